/* test_grammar.c - constrained decoding (srt_session_set_grammar, srt_grammar_match).

   The parser and matcher on texts (what each grammar takes, and the grammars refused); the trie
   walk that finds the allowed tokens against a walk of each token on its own, over real
   vocabularies (srt-pack --vocab-only of ../shared/tokenizer's SentencePiece and byte-level BPE);
   and stories260K under grammars: greedy draws the argmax of the allowed tokens, sampling draws
   what the sampler draws from the masked logits (same random sequence), truncation, input, state
   loads and srt_session_next_draft keep the grammar's text right, a chat's replies and srt-chat's
   --grammar / --json answer in the grammar. Uses internals (srt__gm_*, session fields). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"

/* s as one line of at most 40 bytes (check names are single lines). */
static const char *oneline(const char *s) {
    static char buf[4][48];
    static int k;
    char *b = buf[k++ & 3];
    int i;
    for (i = 0; i < 40 && s[i]; i++) b[i] = s[i] == '\n' ? '|' : s[i];
    b[i] = 0;
    return b;
}
static int match(const char *g, const char *text) {
    int r = -1;
    srt_status st = srt_grammar_match(g, text, strlen(text), &r);
    return st == SRT_OK ? r : -100 + (int)st;
}
enum { NO = 0, PRE = SRT_GRAMMAR_PREFIX, FULL = SRT_GRAMMAR_COMPLETE, BOTH = SRT_GRAMMAR_PREFIX | SRT_GRAMMAR_COMPLETE };

static void test_match(void) {
    static const struct { const char *g, *text; int want; } cases[] = {
        {SRT_GRAMMAR_JSON, "{}", FULL},
        {SRT_GRAMMAR_JSON, "{\"a\": [1, -2.5, 3e10, 0.0E-7, true, false, null, \"x\\u00e9\\n\\\"\"], \"b\": {}}", FULL},
        {SRT_GRAMMAR_JSON, "{\n  \"a\": {\"b\": [[], [{}]]}\n}", FULL},
        {SRT_GRAMMAR_JSON, "{\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\": 1}", FULL},
        {SRT_GRAMMAR_JSON, "", PRE},
        {SRT_GRAMMAR_JSON, "{\"a\": [1, 2.5", PRE},
        {SRT_GRAMMAR_JSON, "{\"a\": \"\xe2\x82", PRE},           /* inside a character */
        {SRT_GRAMMAR_JSON, "{\"a\": \"\xe2\x28", NO},            /* not UTF-8 */
        {SRT_GRAMMAR_JSON, "{\"a\": \"\xed\xa0\x80\"}", NO},     /* a surrogate */
        {SRT_GRAMMAR_JSON, "{\"a\": \"\xc0\xaf\"}", NO},         /* overlong */
        {SRT_GRAMMAR_JSON, " {}", NO},
        {SRT_GRAMMAR_JSON, "[1]", NO},
        {SRT_GRAMMAR_JSON, "{\"a\": 01}", NO},
        {SRT_GRAMMAR_JSON, "{\"a\": 1,}", NO},
        {SRT_GRAMMAR_JSON, "{\"a\": \"\t\"}", NO},
        {SRT_GRAMMAR_JSON, "{\"a\": \"\\q\"}", NO},
        {SRT_GRAMMAR_JSON, "{\"a\": 1} ", NO},
        {SRT_GRAMMAR_JSON, "{\"a\":  1}", NO},                   /* one space at most */
        {SRT_GRAMMAR_JSON, "{\"a\": 1}", FULL},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "aab", BOTH},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "aaaab", BOTH},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "aaaaab", NO},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "ab", NO},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "aabcdxyxy", BOTH},
        {"root ::= \"a\"{2,4} [b-d]+ x?\nx ::= \"xy\"*", "aabcdxyx", PRE},
        {"root ::= \"ab\"{3}", "ababab", FULL},
        {"root ::= \"ab\"{3}", "abab", PRE},
        {"root ::= [0-9]{2,}", "1", PRE},
        {"root ::= [0-9]{2,}", "12345", BOTH},
        {"root ::= [0-9]{0,2}", "", BOTH},
        {"root ::= [0-9]{0,2}", "12", FULL},
        {"root ::= ( \"a\"\n  | \"b\" # a comment\n ) \"c\"  # another\n", "bc", FULL},
        {"root ::=\n  first-rule second_rule\nfirst-rule ::= \"1\"\nsecond_rule ::= \"2\" |\n", "1", BOTH},
        {"root ::= (\"a\" | [^a])* \"$\"", "xa\xe4\xb8\xad$", BOTH},
        {"root ::= . . .", "a\xc3\xa9\xf0\x9f\x98\x80", FULL},
        {"root ::= [\\u4e00-\\u9fff]+ \"\\u3002\"", "\xe4\xb8\xad\xe6\x96\x87\xe3\x80\x82", FULL},
        {"root ::= [\\u4e00-\\u9fff]+ \"\\u3002\"", "\xe4\xb8", PRE},
        {"root ::= [\\u4e00-\\u9fff]+ \"\\u3002\"", "\xc3\xa9", NO},
        {"root ::= [\\u4e00-\\u9fff]+ \"\\u3002\"", "\xe3\x80", NO},   /* U+3000..U+303F: only U+3002 would do, and not first */
        {"root ::= [^\\x00-\\x7f]", "\xf4\x8f\xbf\xbf", FULL},
        {"root ::= [\\U0001F600-\\U0001F64F]", "\xf0\x9f\x98\x80", FULL},
        {"root ::= [\\U0001F600-\\U0001F64F]", "\xf0\x9f\x99", PRE},
        {"root ::= [\\U0001F600-\\U0001F64F]", "\xf0\x9f\x9a", NO},
        {"root ::= \"\\x41\\t\\\\\\\"\\[\\]\"", "A\t\\\"[]", FULL},
        {"root ::= [\\]\\-\\^a]+", "]-^a", BOTH},
        {"root ::= [a-]", "-", FULL},
        {"root ::= \"\"", "", FULL},
        {"root ::= \"\"*", "", FULL},
        {"root ::= x\nx ::= \"x\" x", "xxxx", PRE},            /* never complete, always goes on */
        {"root ::= a b\na ::= \"\" | \"a\"\nb ::= a \"b\"", "ab", FULL},
        {"root ::= a b\na ::= \"\" | \"a\"\nb ::= a \"b\"", "aab", FULL},
        {"root ::= a b\na ::= \"\" | \"a\"\nb ::= a \"b\"", "b", FULL},
        {"root ::= (\"a\" | \"a\" | \"aa\")+", "aaaa", BOTH},  /* ambiguous: equal stacks are one */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = match(cases[i].g, cases[i].text);
        CHECK(r == cases[i].want, "match %zu: \"%s\" -> %d (want %d)%s%s", i, oneline(cases[i].text), r, cases[i].want, r < 0 ? ": " : "", r < 0 ? srt_last_error() : "");
    }
}

static void test_refused(void) {
    static const struct { const char *g; srt_status st; const char *msg; } cases[] = {
        {"", SRT_ERR_FORMAT, "no rule 'root'"},
        {"# only a comment\n", SRT_ERR_FORMAT, "no rule 'root'"},
        {"rot ::= \"a\"", SRT_ERR_FORMAT, "no rule 'root'"},
        {"root ::= x\n", SRT_ERR_FORMAT, "line 1 column 10: rule 'x' is used but not defined"},
        {"root ::= \"a\"\nroot ::= \"b\"", SRT_ERR_FORMAT, "line 2 column 1: a rule defined twice"},
        {"root ::= \"a\n\"", SRT_ERR_FORMAT, "a line break in a literal"},
        {"root ::= \"abc", SRT_ERR_FORMAT, "unterminated literal"},
        {"root ::= [a-", SRT_ERR_FORMAT, "unterminated character class"},
        {"root ::= [z-a]", SRT_ERR_FORMAT, "below its start"},
        {"root ::= \"\\q\"", SRT_ERR_FORMAT, "unknown escape"},
        {"root ::= \"\\xZZ\"", SRT_ERR_FORMAT, "bad \\x"},
        {"root ::= \"\\U00110000\"", SRT_ERR_FORMAT, "bad \\x"},
        {"root ::= \"\xc3\"", SRT_ERR_FORMAT, "invalid UTF-8"},
        {"root ::= \"\xed\xa0\x80\"", SRT_ERR_FORMAT, "invalid UTF-8"},
        {"root ::= \"a\"{3,2}", SRT_ERR_FORMAT, "n < m"},
        {"root ::= \"a\"{1001}", SRT_ERR_FORMAT, "over 1000"},
        {"root ::= \"a\"{2", SRT_ERR_FORMAT, "expected }"},
        {"root ::= \"a\"{x}", SRT_ERR_FORMAT, "expected a number"},
        {"root ::= *", SRT_ERR_FORMAT, "nothing before it"},
        {"root ::= \"a\"**", SRT_ERR_FORMAT, "nothing before it"},
        {"root ::= (\"a\"", SRT_ERR_FORMAT, "unclosed parenthesis"},
        {"root ::= \"a\")", SRT_ERR_FORMAT, "unmatched )"},
        {"root ::= \"a\" ::= \"b\"", SRT_ERR_FORMAT, "unexpected character"},
        {"root \"a\"", SRT_ERR_FORMAT, "expected ::="},
        {"::= \"a\"", SRT_ERR_FORMAT, "expected a rule name"},
        {"root ::= \"a\"\n  | \"b\"", SRT_ERR_FORMAT, "line 2 column 3: expected a rule name"},
        {"root ::= root \"a\" | \"b\"", SRT_ERR_FORMAT, "rule 'root' is left-recursive"},
        {"root ::= a\na ::= b \"x\"\nb ::= \"\" | a", SRT_ERR_FORMAT, "left-recursive"},
        {"root ::= (root \"a\")?", SRT_ERR_FORMAT, "left-recursive"},
        {"root ::= \"x\"* root", SRT_ERR_FORMAT, "left-recursive"},
        {"root ::= (\"a\"*)*", SRT_ERR_FORMAT, "left-recursive"},   /* a repeated group that matches the empty text, as llama.cpp */
        {"root ::= <[1000]>", SRT_ERR_UNSUPPORTED, "token references"},
    };
    size_t i;
    int r;
    char deep[600];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        srt_status st = srt_grammar_match(cases[i].g, "", 0, &r);
        CHECK(st == cases[i].st && strstr(srt_last_error(), cases[i].msg), "refused %zu (%s): %s (%s)", i, oneline(cases[i].g), srt_status_str(st), srt_last_error());
    }
    /* parentheses nested 200 deep: refused, not a stack overflow; 100 deep is fine */
    memset(deep, 0, sizeof deep);
    strcpy(deep, "root ::= ");
    for (i = 0; i < 200; i++) strcat(deep, "(");
    strcat(deep, "\"a\"");
    for (i = 0; i < 200; i++) strcat(deep, ")");
    CHECK(srt_grammar_match(deep, "a", 1, &r) == SRT_ERR_FORMAT && strstr(srt_last_error(), "nested too deep"), "200 nested groups refused: %s", srt_last_error());
    strcpy(deep, "root ::= ");
    for (i = 0; i < 100; i++) strcat(deep, "(");
    strcat(deep, "\"a\"");
    for (i = 0; i < 100; i++) strcat(deep, ")");
    CHECK(srt_grammar_match(deep, "a", 1, &r) == SRT_OK && r == FULL, "100 nested groups match");
    /* repetitions share their element: 10^9 characters in a few thousand elements */
    CHECK(srt_grammar_match("root ::= ((\"ab\"{1000}){1000}){1000}", "abab", 4, &r) == SRT_OK && r == PRE, "10^9 characters of repetitions: a small grammar");
    {   /* over 2^20 elements: refused */
        const size_t n = (1u << 20) + 16;
        char *big = (char *)malloc(n + 16);
        if (big) {
            memcpy(big, "root ::= \"", 10);
            memset(big + 10, 'a', n);
            strcpy(big + 10 + n, "\"");
        }
        CHECK(big && srt_grammar_match(big, "", 0, &r) == SRT_ERR_FORMAT && strstr(srt_last_error(), "too large"), "a literal of 2^20 + 16 characters refused: %s", srt_last_error());
        free(big);
    }
    CHECK(srt_grammar_match(NULL, "", 0, &r) == SRT_ERR_INVALID_ARG && srt_grammar_match("root ::= \"a\"", NULL, 1, &r) == SRT_ERR_INVALID_ARG &&
          srt_grammar_match("root ::= \"a\"", "a", 1, NULL) == SRT_ERR_INVALID_ARG, "srt_grammar_match: NULL arguments refused");
    /* deep nesting of the text (not the grammar) stops with an error, not a crash */
    {
        char *t = (char *)malloc(20001);
        srt_status st;
        for (i = 0; i < 20000; i++) t[i] = i < 10000 ? '[' : ']';
        st = srt_grammar_match("root ::= v\nv ::= \"[\" v? \"]\"", t, 20000, &r);
        CHECK(st == SRT_OK && r == FULL, "20000 nested brackets matched: %s (%d)", srt_status_str(st), r);
        free(t);
    }
}

/* The allowed tokens of a trie walk against each token walked alone, at each byte of text. */
static void check_mask(const srt_model *m, const char *name, const char *gbnf, const char *text) {
    srt__grammar *g = NULL;
    srt__gmatch gm;
    srt__gtrie tr;
    unsigned char *al = (unsigned char *)malloc((size_t)m->vocab.n);
    size_t i, n = strlen(text);
    int bad = 0, states = 0, total = 0, eog_ok = 1;
    memset(&gm, 0, sizeof gm);
    if (!al || srt__grammar_parse(gbnf, &g) != SRT_OK || !srt__gtrie_build(&tr, &m->vocab) || !srt__gm_init(&gm, g)) {
        CHECK(0, "%s: set up (%s)", name, srt_last_error());
        free(al);
        srt__grammar_free(g);
        return;
    }
    for (i = 0; i <= n; i++) {
        int k, na = srt__gm_allowed(&gm, &tr, &m->vocab, al), nb = 0;
        for (k = 0; k < m->vocab.n; k++) {
            int ok = srt__gm_token(&gm, &m->vocab, k, 0);
            nb += ok;
            if (ok != al[k] && bad++ < 3) printf("# %s at byte %zu: token %d trie %d alone %d\n", name, i, k, al[k], ok);
            if (srt__is_eog(&m->vocab, k) && al[k] != srt__gm_complete(&gm)) eog_ok = 0;
        }
        if (na != nb) bad++;
        states++;
        total += na;
        if (i < n && !srt__gm_feed(&gm, (const unsigned char *)text + i, 1, 1)) { CHECK(0, "%s: the text leaves the grammar at byte %zu", name, i); break; }
    }
    CHECK(!bad && eog_ok && gm.st == SRT_OK, "%s: trie walk = each token alone at %d states (%d allowed in all)", name, states, total);
    CHECK(srt__gm_complete(&gm), "%s: the text is complete", name);
    srt__gm_free(&gm);
    srt__gtrie_free(&tr);
    srt__grammar_free(g);
    free(al);
}

static void test_masks(void) {
    static const char *const vocabs[3] = {"llama-spm", "llama-bpe", "gpt-2"};
    const char *cjk = "root ::= [\\u4e00-\\u9fff]{1,8} ([\\u3001\\u3002] [\\u4e00-\\u9fff]{1,8})* \"\\u3002\"";
    const char *words = "root ::= (word (\" \" | \",\" \" \"?))* word \".\"\nword ::= [A-Za-z]+ | [^\\x00-\\x7f]+";
    int i;
    for (i = 0; i < 3; i++) {
        char cmd[512], path[256], tag[128];
        srt_model *m = NULL;
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        snprintf(path, sizeof path, "build/tmp/grammar-%s.srt", vocabs[i]);
        snprintf(cmd, sizeof cmd, "build/srt-pack -q --vocab-only " SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf %s", vocabs[i], path);
        if (system(cmd) != 0 || srt_model_load(path, &md, &m) != SRT_OK) { CHECK(0, "%s: packed and loaded", vocabs[i]); continue; }
        snprintf(tag, sizeof tag, "%s, JSON", vocabs[i]);
        check_mask(m, tag, SRT_GRAMMAR_JSON, "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par\xc3\xa9s \xe2\x82\xac\", \"days\": [1, 2.5e3],\n  \"ok\": true}}");
        snprintf(tag, sizeof tag, "%s, CJK", vocabs[i]);
        check_mask(m, tag, cjk, "\xe4\xb8\xad\xe6\x96\x87\xe3\x80\x81\xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x82");
        snprintf(tag, sizeof tag, "%s, words", vocabs[i]);
        check_mask(m, tag, words, "The cat, sat on the mat \xc3\xa9\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87.");
        {   /* a session cannot be made on a vocab-only model: no grammar to set either */
            srt_session *s = NULL;
            CHECK(srt_session_create(m, NULL, &s) == SRT_ERR_UNSUPPORTED && !s, "%s: vocab-only has no sessions", vocabs[i]);
        }
        srt_model_free(m);
    }
}

/* stories260K sessions */
static srt_session *new_session(srt_model *m, float temp, int top_k, float top_p, uint64_t seed) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 512;
    sd.sampler.temperature = temp; sd.sampler.top_k = top_k; sd.sampler.top_p = top_p; sd.sampler.seed = seed;
    if (srt_session_create(m, &sd, &s) != SRT_OK) return NULL;
    return s;
}
/* The text of tokens[from ..) as the grammar reads it. */
static void text_of(const srt_model *m, const int32_t *t, int n, char *out, size_t cap) {
    size_t at = 0;
    int i;
    for (i = 0; i < n; i++) {
        int b = srt_token_bytes(m, t[i], out + at, (int)(cap - 1 - at));
        at += (size_t)b < cap - 1 - at ? (size_t)b : cap - 1 - at;
    }
    out[at] = 0;
}
/* Draws up to max tokens (to an end-of-generation token) and checks each: greedy, the argmax of
   the tokens the grammar allows (each walked alone from the text so far); the text is a prefix of
   the grammar's language all along. Returns the tokens drawn. */
static int draw_checked(srt_session *s, const char *gbnf, int max, const char *tag, int greedy) {
    srt_model *m = s->m;
    srt__grammar *g = NULL;
    srt__gmatch gm;
    int n = 0, bad = 0, r;
    char text[4096];
    memset(&gm, 0, sizeof gm);
    if (srt__grammar_parse(gbnf, &g) != SRT_OK || !srt__gm_init(&gm, g)) { CHECK(0, "%s: grammar", tag); srt__grammar_free(g); return 0; }
    while (n < max) {
        const float *lg = srt_session_logits(s);
        int32_t t, k, best = -1;
        if (!lg) { bad++; break; }
        if (greedy)
            for (k = 0; k < m->vocab.n; k++)
                if (srt__gm_token(&gm, &m->vocab, k, 0) && (best < 0 || lg[k] > lg[best])) best = k;
        if (srt_session_next(s, &t) != SRT_OK) { bad++; printf("# %s: %s\n", tag, srt_last_error()); break; }
        n++;
        if (greedy && t != best) { bad++; printf("# %s: token %d drew %d, the best allowed is %d\n", tag, n, t, best); }
        if (!srt__gm_token(&gm, &m->vocab, t, 1)) { bad++; printf("# %s: token %d (%d) not allowed\n", tag, n, t); break; }
        if (srt_token_is_eog(m, t)) break;
    }
    text_of(m, srt_session_tokens(s) + srt_session_pos(s) - n, n, text, sizeof text);
    r = 0;
    srt_grammar_match(gbnf, text, strlen(text), &r);
    CHECK(!bad && r != 0, "%s: %d tokens, each allowed%s: \"%s\"", tag, n, greedy ? " and the best allowed" : "", oneline(text));
    srt__gm_free(&gm);
    srt__grammar_free(g);
    return n;
}

static const char *story_grammar =
    "root ::= \" \" name \" and \" name \" went to the \" place \".\"\n"
    "name ::= \"Lily\" | \"Tom\" | \"Ben\" | \"Sue\"\n"
    "place ::= [a-z]+ (\" \" [a-z]+)?";

static void test_stories(srt_model *m) {
    srt_session *s = new_session(m, 0.0f, 0, 0.0f, 0), *b;
    int32_t t, toks[64];
    int n, i, pos0, r, k;
    char text[4096];
    if (!s) { CHECK(0, "session"); return; }
    /* greedy, closed grammar: the best allowed tokens, then EOS */
    CHECK(srt_session_prompt(s, "Once upon a time", 0) == SRT_OK && srt_session_set_grammar(s, story_grammar) == SRT_OK, "story grammar set");
    pos0 = srt_session_pos(s);
    n = draw_checked(s, story_grammar, 100, "stories greedy, story grammar", 1);
    CHECK(n > 0 && srt_token_is_eog(m, srt_session_tokens(s)[pos0 + n - 1]), "stories greedy, story grammar: ends with EOS once complete");
    text_of(m, srt_session_tokens(s) + pos0, n, text, sizeof text);
    CHECK(match(story_grammar, text) & FULL, "stories greedy: \"%s\" is complete", text);
    /* truncation inside the grammar's text: drawn again the same */
    memcpy(toks, srt_session_tokens(s) + pos0, (size_t)n * sizeof(int32_t));
    CHECK(srt_session_truncate(s, pos0 + 3) == SRT_OK, "truncated inside the text");
    for (i = 3, k = 0; i < n; i++) k += srt_session_next(s, &t) == SRT_OK && t == toks[i];
    CHECK(k == n - 3, "after a truncation to 3 tokens in, the rest drawn again the same (%d of %d)", k, n - 3);
    /* input restarts the text: a new answer after a prompt */
    CHECK(srt_session_prompt(s, " The next day,", 0) == SRT_OK, "prompt after the answer");
    draw_checked(s, story_grammar, 100, "stories greedy, after more input", 1);
    /* truncation to before the text's start: it starts there */
    CHECK(srt_session_truncate(s, pos0 - 2) == SRT_OK, "truncated before the text");
    n = draw_checked(s, story_grammar, 100, "stories greedy, from the truncation", 1);
    /* srt_session_next_draft draws one token at a time, as srt_session_next */
    srt_session_reset(s);
    CHECK(srt_session_prompt(s, "Once upon a time", 0) == SRT_OK, "prompt after a reset");
    {
        int32_t prop[4] = {toks[0], toks[1], toks[2], toks[3]}, out[5];
        int no = 0;
        srt_status st = srt_session_next_draft(s, prop, 4, out, &no);
        CHECK(st == SRT_OK && no == 1 && out[0] == toks[0], "next_draft under a grammar: one token, the same (%d)", no);
    }
    /* removed: the same as a session that never had one */
    CHECK(srt_session_set_grammar(s, NULL) == SRT_OK, "grammar removed");
    srt_session_reset(s);
    b = new_session(m, 0.0f, 0, 0.0f, 0);
    srt_session_prompt(s, "Once upon a time", 0);
    srt_session_prompt(b, "Once upon a time", 0);
    for (i = k = 0; i < 40; i++) {
        int32_t x, y;
        k += srt_session_next(s, &x) == SRT_OK && srt_session_next(b, &y) == SRT_OK && x == y;
    }
    CHECK(k == 40, "without the grammar, the draws of a session that had none (%d of 40)", k);
    /* a refused grammar keeps the earlier one */
    CHECK(srt_session_set_grammar(s, story_grammar) == SRT_OK && srt_session_set_grammar(s, "root ::= oops") == SRT_ERR_FORMAT, "a refused grammar");
    srt_session_prompt(s, " Then", 0);
    draw_checked(s, story_grammar, 100, "stories greedy, the grammar kept after a refused one", 1);
    /* a state load starts the text at its end */
    {
        size_t size = 0;
        void *st;
        srt_session_state_save(s, NULL, 0, &size);
        st = malloc(size);
        CHECK(st && srt_session_state_save(s, st, size, &size) == SRT_OK && srt_session_set_grammar(b, story_grammar) == SRT_OK &&
              srt_session_state_load(b, st, size) == SRT_OK && b->g_start == srt_session_pos(b), "a state loaded: the text starts at its end");
        draw_checked(b, story_grammar, 100, "stories greedy, after a state load", 1);
        free(st);
    }
    srt_session_destroy(b);
    /* JSON, greedy: the best allowed each time */
    srt_session_reset(s);
    CHECK(srt_session_set_grammar(s, SRT_GRAMMAR_JSON) == SRT_OK && srt_session_prompt(s, "Once upon a time", 0) == SRT_OK, "JSON grammar set");
    draw_checked(s, SRT_GRAMMAR_JSON, 150, "stories greedy, JSON", 1);
    /* srt_generate stops at EOS once the text is complete and nothing can follow */
    {
        srt_generate_desc gd;
        srt_generate_result res;
        int p0 = srt_session_pos(s);
        memset(&gd, 0, sizeof gd);
        memset(&res, 0, sizeof res);
        gd.prompt = " Lily said,"; gd.max_tokens = 100;
        CHECK(srt_session_set_grammar(s, "root ::= \" \\\"\" [A-Za-z ]{1,40} [.!?] \"\\\"\"") == SRT_OK, "quote grammar");
        srt_status st = srt_generate(s, &gd, &res);
        CHECK(st == SRT_OK && res.stopped_by == 1 && res.n_generated > 2, "srt_generate under a grammar ends with EOS (%d tokens, stopped by %d)", res.n_generated, res.stopped_by);
        text_of(m, srt_session_tokens(s) + p0 + res.n_prompt, srt_session_pos(s) - p0 - res.n_prompt, text, sizeof text);
        r = match("root ::= \" \\\"\" [A-Za-z ]{1,40} [.!?] \"\\\"\"", text);
        CHECK(r == FULL, "srt_generate's answer \"%s\" is complete (%d)", text, r);
    }
    srt_session_destroy(s);
}

/* Sampling: the tokens a session under a grammar draws are those its sampler draws from the
   logits with the forbidden tokens at -inf (replayed with the same random sequence). */
static void test_sampling(srt_model *m) {
    static const struct { float temp; int top_k; float top_p; } cfg[3] = {{1.0f, 0, 0.0f}, {0.8f, 40, 0.0f}, {1.2f, 0, 0.9f}};
    int c, seed;
    for (c = 0; c < 3; c++)
        for (seed = 1; seed <= 4; seed++) {
            srt_session *a = new_session(m, cfg[c].temp, cfg[c].top_k, cfg[c].top_p, (uint64_t)seed), *b = new_session(m, cfg[c].temp, cfg[c].top_k, cfg[c].top_p, (uint64_t)seed);
            srt__grammar *g = NULL;
            srt__gmatch gm;
            unsigned char *al = (unsigned char *)malloc((size_t)m->vocab.n);
            float *lg = (float *)malloc((size_t)m->n_vocab * sizeof(float));
            int n = 0, same = 1, complete = 0, k;
            char tag[96];
            memset(&gm, 0, sizeof gm);
            if (!a || !b || !al || !lg || srt__grammar_parse(story_grammar, &g) != SRT_OK || !srt__gm_init(&gm, g)) { CHECK(0, "sampling set up"); break; }
            srt_session_prompt(a, "Once upon a time", 0);
            srt_session_prompt(b, "Once upon a time", 0);
            srt_session_set_grammar(a, story_grammar);
            while (n < 60 && same) {
                int32_t x, y;
                if (srt_session_next(a, &x) != SRT_OK) { same = 0; break; }
                for (k = 0; k < m->vocab.n; k++) al[k] = (unsigned char)srt__gm_token(&gm, &m->vocab, k, 0);
                memcpy(lg, srt_session_logits(b), (size_t)m->n_vocab * sizeof(float));
                for (k = 0; k < m->vocab.n; k++) if (!al[k]) lg[k] = -INFINITY;
                y = srt__sample(&b->d.sampler, &m->ops, lg, m->vocab.n, b->tokens, b->n_tokens, b->cand, &b->rng, -1);
                same = x == y && al[x];
                if (!same) printf("# token %d: grammar session %d, masked sampler %d\n", n, x, y);
                srt__gm_token(&gm, &m->vocab, x, 1);
                srt_session_feed(b, &y, 1);
                n++;
                if (srt_token_is_eog(m, x)) { complete = 1; break; }
            }
            snprintf(tag, sizeof tag, "temperature %.1f top-k %d top-p %.1f seed %d", cfg[c].temp, cfg[c].top_k, cfg[c].top_p, seed);
            CHECK(same && complete, "%s: %d tokens, each the masked sampler's, then EOS", tag, n);
            srt__gm_free(&gm); srt__grammar_free(g); free(al); free(lg);
            srt_session_destroy(a); srt_session_destroy(b);
        }
}

/* A chat under a grammar: each reply is in it (the turn's input restarts the text). */
static void test_chat(srt_model *m) {
    srt_session *s = new_session(m, 0.0f, 0, 0.0f, 0);
    srt_chat *c = NULL;
    srt_chat_desc cd;
    const char *yn = "root ::= (\"Yes\" | \"No\") \", \" [a-z ]{1,30} \".\"";
    int turn;
    memset(&cd, 0, sizeof cd);
    cd.template_name = "chatml";
    if (!s || srt_session_set_grammar(s, yn) != SRT_OK || srt_chat_create(s, &cd, &c) != SRT_OK) { CHECK(0, "chat set up: %s", srt_last_error()); srt_session_destroy(s); return; }
    for (turn = 0; turn < 3; turn++) {
        static const char *const q[3] = {"Is the sky blue?", "Did Lily go to the park?", "Was the dog happy?"};
        const srt_chat_message *ms;
        int32_t t;
        int end = 0, nm, i = 0;
        CHECK(srt_chat_send(c, q[turn], NULL) == SRT_OK, "chat turn %d sent", turn);
        while (i++ < 100 && srt_chat_next(c, &t, &end) == SRT_OK && end == SRT_CHAT_GOING) {}
        ms = srt_chat_messages(c, &nm);
        CHECK(end == SRT_CHAT_END_TURN && match(yn, ms[nm - 1].content) == FULL, "chat turn %d: the reply \"%s\" is in the grammar, then the turn ends", turn, ms[nm - 1].content);
    }
    CHECK(srt_chat_regenerate(c) == SRT_OK, "regenerate");
    {
        const srt_chat_message *ms;
        int32_t t;
        int end = 0, nm, i = 0;
        while (i++ < 100 && srt_chat_next(c, &t, &end) == SRT_OK && end == SRT_CHAT_GOING) {}
        ms = srt_chat_messages(c, &nm);
        CHECK(end == SRT_CHAT_END_TURN && match(yn, ms[nm - 1].content) == FULL, "the regenerated reply \"%s\" is in the grammar", ms[nm - 1].content);
    }
    srt_chat_destroy(c);
    srt_session_destroy(s);
}

/* srt-chat --grammar FILE and --json. */
static char *read_output(const char *path) {   /* without srt-chat's last newline */
    size_t n = 0;
    char *out = srt_test_read_file(path, &n);
    if (out && n && out[n - 1] == '\n') out[n - 1] = 0;
    return out;
}
static void test_cli(void) {
    FILE *f = fopen("build/tmp/grammar-story.gbnf", "wb");
    char *out;
    int rc;
    if (f) { fputs(story_grammar, f); fputs("\n", f); fclose(f); }
    rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p \"Once upon a time\" --grammar build/tmp/grammar-story.gbnf > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
    out = read_output("build/tmp/grammar-cli.txt");
    CHECK(rc == 0 && out && strncmp(out, "Once upon a time", 16) == 0 && match(story_grammar, out + 16) == FULL, "srt-chat --grammar: \"%s\"", out ? out : "");
    free(out);
    rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p \"Once upon a time\" --json -n 40 > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
    out = read_output("build/tmp/grammar-cli.txt");
    CHECK(rc == 0 && out && strncmp(out, "Once upon a time", 16) == 0 && (match(SRT_GRAMMAR_JSON, out + 16) & BOTH) && out[16] == '{', "srt-chat --json: \"%.60s\"", out ? out : "");
    free(out);
    f = fopen("build/tmp/grammar-bad.gbnf", "wb");
    if (f) { fputs("root ::= \"a\" (\n", f); fclose(f); }
    rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p x --grammar build/tmp/grammar-bad.gbnf > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
    out = read_output("build/tmp/grammar-cli.err");
    CHECK(rc != 0 && out && strstr(out, "grammar-bad.gbnf") && strstr(out, "line 1 column 14: unclosed parenthesis"), "srt-chat --grammar with a bad grammar: \"%s\"", out ? out : "");
    free(out);
    rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p x --grammar build/tmp/no-such.gbnf --json > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
    CHECK(rc != 0, "srt-chat --grammar with --json refused");
}

int main(void) {
    srt_model *m = NULL;
    srt_model_desc md;
    test_match();
    test_refused();
    test_masks();
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (system("build/srt-pack -q --weights f32 " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/grammar_stories.srt > build/tmp/grammar_pack.log 2>&1") != 0 ||
        srt_model_load("build/tmp/grammar_stories.srt", &md, &m) != SRT_OK)
        CHECK(0, "stories260K packed (see build/tmp/grammar_pack.log)");
    else {
        test_stories(m);
        test_sampling(m);
        test_chat(m);
        test_cli();
    }
    srt_model_free(m);
    return srt_test_finish();
}
