/* fuzz_grammar.c - fuzz target for the GBNF grammars of constrained decoding (sparsert.h section
   11, srt_grammar_match, srt_session_set_grammar).

   Input: the grammar, a NUL, then a text (absent = ""). Checks, beyond "no crash":
   - a grammar is parsed or refused with SRT_ERR_FORMAT / SRT_ERR_UNSUPPORTED (and a message);
   - the text fed byte by byte and fed at once leave the same state (complete, can go on), which is
     what srt_grammar_match says, and a byte refused on the way refuses the whole;
   - at every prefix of the text (the first 48 bytes), the tokens the trie walk allows are exactly
     those a walk of each token alone allows, over a made-up vocabulary: the 256 bytes, pieces of
     the text (2 to 6 bytes, so that tokens split characters as real ones do), and an
     end-of-generation token allowed exactly when the text so far is complete; the cache of masks
     (srt__gm_allowed_cached) gives the walk's mask;
   - the part before the NUL read as a JSON Schema (srt_grammar_from_json_schema) and as the tools
     of a chat (the tool-call grammars of chatml and llama3): a grammar written is one that parses,
     measured and written at the same length, and takes the text or not without a failure.
   Token references (<[ID]>, <TEXT>) parse; srt_grammar_match refuses them, and over the made-up
   vocabulary the <[ID]> ones below its size are matched as tokens (unresolved <TEXT> ones never).
   Seeds: tests/fuzz/grammar (committed; grammars, schemas, tool lists), none generated. */
#define FZ_NAME "fuzz_grammar"
#define FZ_PER_SEED 1500
#define FZ_DICT {"::=", "root", " ::= ", "|", "(", ")", "*", "+", "?", "{", "}", "{2,5}", "{0,}", "[", "]", "[^", "-", ".", "\"", "\\", \
                 "\\x", "\\u", "\\U", "\\n", "\\\\", "\\\"", "\\]", "#", "\n", "\0", " ", "a", "x", "<[1]>", "<[300]>", "<think>", "!<", "\xc3\xa9", "\xe4\xb8\xad", \
                 "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xc0\xaf", "\xff", "root ::= ", "x ::= ", "\nx ::= ", NULL}
#include "tests/fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }

/* A grammar written from JSON must parse and must take the text or not without a failure. */
static void fz_written(const char *what, const char *g, const unsigned char *text, size_t tlen) {
    int r;
    srt_status st = srt_grammar_match(g, (const char *)text, tlen, &r);
    if (st != SRT_OK && st != SRT_ERR_UNSUPPORTED) { fprintf(stderr, "%s: the grammar written does not parse: %s\n%s\n", what, srt_last_error(), g); abort(); }
}
static void fz_schema(const char *json, const unsigned char *text, size_t tlen) {
    size_t n = 0, n2 = 0;
    srt_status st = srt_grammar_from_json_schema(json, NULL, 0, &n);
    srt_chat_template t;
    int f;
    if (st != SRT_ERR_INVALID_ARG) { fprintf(stderr, "schema: measuring gave %d\n", st); abort(); }
    if (n) {
        char *g = (char *)malloc(n + 1);
        if (!g) return;
        if (srt_grammar_from_json_schema(json, g, n + 1, &n2) != SRT_OK || n2 != n || strlen(g) != n) { fprintf(stderr, "schema: written %zu, measured %zu\n", n2, n); abort(); }
        fz_written("schema", g, text, tlen);
        free(g);
    }
    for (f = 0; f < 2; f++) {   /* as tools, once they pass the chat's check */
        char *g = NULL;
        const char *trig = NULL;
        memset(&t, 0, sizeof t);
        t.format = f ? SRT_CHAT_LLAMA3 : SRT_CHAT_CHATML;
        t.tool_use = 1;
        if (srt__chat_tools_check(&t, json, 0, "fuzz") != SRT_OK) return;
        st = srt__chat_tool_grammar(&t, json, &g, &trig);
        if (st == SRT_OK) {
            if (strncmp(strstr(g, "tool-call ::= ") + 15, trig, strlen(trig)) != 0 && f == 0) { fprintf(stderr, "the tool grammar does not start with its trigger\n%s\n", g); abort(); }
            fz_written("tools", g, text, tlen);
        } else if (st != SRT_ERR_INVALID_ARG && st != SRT_ERR_OUT_OF_MEMORY) { fprintf(stderr, "tools: %d\n", st); abort(); }
        free(g);
    }
}

#define FZ_PIECES 96
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    const unsigned char *nul = (const unsigned char *)memchr(data, 0, size);
    const size_t glen = nul ? (size_t)(nul - data) : size;
    const unsigned char *text = nul ? nul + 1 : data + size;
    const size_t tlen = nul ? size - glen - 1 : 0;
    char *gbnf = (char *)malloc(glen + 1);
    srt__grammar *g = NULL;
    srt__gmatch a, b;
    srt_status st;
    size_t fed = 0;
    int r = -1, flags_a, flags_b;
    srt_set_log(fz_quiet, NULL);
    if (!gbnf) return 0;
    memcpy(gbnf, data, glen);
    gbnf[glen] = 0;
    fz_schema(gbnf, text, tlen);
    st = srt__grammar_parse(gbnf, &g);
    if (st != SRT_OK) {
        if (st != SRT_ERR_FORMAT && st != SRT_ERR_UNSUPPORTED && st != SRT_ERR_OUT_OF_MEMORY) { fprintf(stderr, "refused with %d\n", st); abort(); }
        if (!srt_last_error()[0]) { fprintf(stderr, "refused without a message\n"); abort(); }
        free(gbnf);
        return 0;
    }
    memset(&a, 0, sizeof a); memset(&b, 0, sizeof b);
    if (!srt__gm_init(&a, g) || !srt__gm_init(&b, g)) goto done;   /* (a grammar too ambiguous at its start) */
    /* byte by byte against all at once, and srt_grammar_match */
    for (fed = 0; fed < tlen && srt__gm_feed(&a, text + fed, 1, 1); fed++) {}
    {
        const int all = srt__gm_feed(&b, text, tlen, 1);
        if (a.st != SRT_OK || b.st != SRT_OK) goto done;
        if (all != (fed == tlen)) { fprintf(stderr, "at once %d, byte by byte stopped at %zu of %zu\n", all, fed, tlen); abort(); }
        flags_a = srt__gm_flags(&a); flags_b = srt__gm_flags(&b);
        if (all && flags_a != flags_b) { fprintf(stderr, "flags %d byte by byte, %d at once\n", flags_a, flags_b); abort(); }
        st = srt_grammar_match(gbnf, (const char *)text, tlen, &r);
        if (st == SRT_OK && r != (all ? flags_b : 0)) { fprintf(stderr, "srt_grammar_match %d, the matcher %d\n", r, all ? flags_b : 0); abort(); }
    }
    /* the trie walk against each token alone, at the prefixes of the text */
    {
        static char bytes[256][1];
        const char *texts[256 + FZ_PIECES + 1];
        uint32_t lens[256 + FZ_PIECES + 1];
        srt__vocab v;
        srt__gtrie tr;
        srt__gmatch m;
        srt__gcache gc;
        unsigned char allowed[256 + FZ_PIECES + 1];
        int n = 0, k;
        size_t at;
        for (k = 0; k < 256; k++) { bytes[k][0] = (char)k; texts[n] = bytes[k]; lens[n++] = 1; }
        for (at = 0; at < tlen && n < 256 + FZ_PIECES; at++) {
            size_t l = 2 + (at * 7 + tlen) % 5;
            if (at + l > tlen) continue;
            texts[n] = (const char *)text + at; lens[n++] = (uint32_t)l;
        }
        texts[n] = ""; lens[n] = 0;   /* end of generation */
        memset(&v, 0, sizeof v);
        v.n = n + 1; v.text = texts; v.text_len = lens; v.eog[0] = n; v.n_eog = 1;
        memset(&m, 0, sizeof m);
        memset(&gc, 0, sizeof gc);
        if (!srt__gtrie_build(&tr, &v)) goto done;
        if (srt__gm_init(&m, g))
            for (at = 0; at <= fed && at <= 48; at++) {
                const int na = srt__gm_allowed(&m, &tr, &v, allowed);
                int nc = -1;
                const unsigned char *ca = na < 0 ? NULL : srt__gm_allowed_cached(&gc, &m, &tr, &v, &nc);
                if (na < 0 || !ca) break;
                if (nc != na || memcmp(ca, allowed, (size_t)v.n) != 0) { fprintf(stderr, "byte %zu: the cache's mask differs from the walk's\n", at); abort(); }
                for (k = 0; k < v.n; k++) {
                    const int one = srt__gm_token(&m, &v, k, 0);
                    if (m.st != SRT_OK) break;
                    if (one != allowed[k]) { fprintf(stderr, "byte %zu: token %d: trie %d, alone %d\n", at, k, allowed[k], one); abort(); }
                }
                if (m.st != SRT_OK || at == fed || !srt__gm_feed(&m, text + at, 1, 1)) break;
            }
        srt__gm_free(&m);
        srt__gcache_free(&gc);
        srt__gtrie_free(&tr);
    }
done:
    srt__gm_free(&a); srt__gm_free(&b);
    srt__grammar_free(g);
    free(gbnf);
    return 0;
}

static int fz_make_seeds(const char *dir) { (void)dir; return 0; }
