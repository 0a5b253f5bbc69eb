/* test_grammar.c - constrained decoding (srt_session_set_grammar, srt_grammar_match).

   The parser and matcher on texts (what each grammar takes, and the grammars refused); the trie
   walk that finds the allowed tokens against a walk of each token on its own, over real
   vocabularies (srt-pack --vocab-only of ../shared/tokenizer's SentencePiece and byte-level BPE);
   and stories260K under grammars: greedy draws the argmax of the allowed tokens, sampling draws
   what the sampler draws from the masked logits (same random sequence), truncation, input, state
   loads and srt_session_next_draft keep the grammar's text right, a chat's replies and srt-chat's
   --grammar / --json answer in the grammar. Uses internals (srt__gm_*, session fields); the
   matcher's frames are made again from the text after 100 of them instead of 2^20, so that every
   session check also checks that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRT__GM_COMPACT 100   /* the matcher's frames made again from the text often, not after 2^20 (every session check runs through it) */
#include "tests/fail_alloc.h"   /* the implementation, with an SRT_MALLOC that fails where test_out_of_memory says */

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
        {"root ::= <[1000]>", SRT_ERR_UNSUPPORTED, "refers to tokens"},   /* (a session's grammar can) */
        {"root ::= \"a\" <think>", SRT_ERR_UNSUPPORTED, "refers to tokens"},
        {"root ::= <[12x]>", SRT_ERR_FORMAT, "<[ID]>"},
        {"root ::= <[16777216]>", SRT_ERR_FORMAT, "below 2^24"},
        {"root ::= <think", SRT_ERR_FORMAT, "needs its '>'"},
        {"root ::= <>", SRT_ERR_FORMAT, "needs its '>'"},
        {"root ::= !<s>", SRT_ERR_UNSUPPORTED, "negated token reference"},
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

/* JSON Schema to grammar: what each schema's grammar takes, and the schemas refused. */
static int schema_match(const char *schema, const char *text) {
    char g[8192];
    size_t n = 0;
    int r = -1;
    srt_status st = srt_grammar_from_json_schema(schema, g, sizeof g, &n);
    if (st != SRT_OK) return -100 + (int)st;
    st = srt_grammar_match(g, text, strlen(text), &r);
    return st == SRT_OK ? r : -200 + (int)st;
}
static void test_schema(void) {
    static const char *const person = "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}, \"age\": {\"type\": \"integer\"}, "
                                      "\"tags\": {\"type\": \"array\", \"items\": {\"enum\": [\"a\", \"b\\u00e9\", 3, null]}}, \"ok\": {\"type\": \"boolean\"}}, \"required\": [\"age\"]}";
    static const char *const opt = "{\"properties\": {\"x\": {\"type\": \"number\"}, \"y\": {\"type\": [\"string\", \"null\"]}, \"z\": {\"const\": [1, {\"k\": true}]}}}";
    static const char *const defs = "{\"type\": \"object\", \"properties\": {\"pet\": {\"$ref\": \"#/$defs/Pet\"}, \"owners\": {\"$ref\": \"#/$defs/Names\"}, "
                                    "\"a/b\": {\"$ref\": \"#/$defs/x~1y\"}, \"pct\": {\"$ref\": \"#/$defs/100%25\"}, \"first\": {\"$ref\": \"#/$defs/Pair/prefixItems/1\"}}, "
                                    "\"required\": [\"pet\", \"owners\"], \"$defs\": {\"Pet\": {\"type\": \"object\", \"properties\": {\"kind\": {\"$ref\": \"#/$defs/Kind\"}}}, "
                                    "\"Kind\": {\"enum\": [\"cat\"]}, \"Names\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}, \"x/y\": {\"type\": \"integer\"}, "
                                    "\"100%\": {\"type\": \"boolean\"}, \"Pair\": {\"prefixItems\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]}}}";
    static const char *const tree = "{\"$ref\": \"#/$defs/Node\", \"$defs\": {\"Node\": {\"type\": \"object\", \"properties\": {\"v\": {\"type\": \"integer\"}, "
                                    "\"kids\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/Node\"}}}, \"required\": [\"v\", \"kids\"]}}}";
    static const struct { const char *schema, *text; int want; } cases[] = {
        {"{\"type\": \"string\"}", "\"hi \\\" there\"", FULL},
        {"{\"type\": \"string\"}", "3", NO},
        {"{\"type\": \"integer\"}", "-12", BOTH},
        {"{\"type\": \"integer\"}", "1.5", NO},
        {"{\"type\": \"number\"}", "1.5e3", BOTH},
        {"{\"type\": \"boolean\"}", "false", FULL},
        {"{\"type\": \"null\"}", "null", FULL},
        {"{\"type\": [\"integer\", \"null\"]}", "null", FULL},
        {"{\"type\": [\"integer\", \"null\"]}", "\"1\"", NO},
        {"true", "{\"any\": [1, {}]}", FULL},
        {"{}", "[\"any\"]", FULL},
        {"{\"enum\": [\"red\", 2, {\"a\": [null]}]}", "{\"a\": [null]}", FULL},
        {"{\"enum\": [\"red\", 2, {\"a\": [null]}]}", "\"blue\"", NO},
        {"{\"anyOf\": [{\"type\": \"integer\"}, {\"type\": \"array\", \"items\": {\"type\": \"string\"}}]}", "[\"a\", \"b\"]", FULL},
        {"{\"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"array\", \"items\": {\"type\": \"string\"}}]}", "[1]", NO},
        {"{\"type\": \"array\"}", "[1, \"x\", null]", FULL},
        {"{\"type\": \"object\"}", "{\"k\": 1}", FULL},
        {person, "{\"age\": 7}", FULL},
        {person, "{\"name\": \"Ann\", \"age\": 7, \"tags\": [\"b\xc3\xa9\", 3], \"ok\": true}", FULL},   /* the enum's value as tojson writes it: raw UTF-8 */
        {person, "{\"name\": \"Ann\", \"age\": 7, \"tags\": [\"b\\u00e9\"]}", NO},
        {person, "{\"name\": \"Ann\", \"age\": 7, \"tags\": []}", FULL},
        {person, "{\"name\": \"Ann\"}", NO},                  /* age is required */
        {person, "{\"age\": 7, \"name\": \"Ann\"}", NO},       /* in the schema's order */
        {person, "{\"age\": 7, \"other\": 1}", NO},             /* no other properties */
        {person, "{\"age\": 7.5}", NO},
        {person, "{\n  \"age\": 7,\n  \"ok\": false\n}", FULL},
        {opt, "{}", FULL},
        {opt, "{\"y\": null}", FULL},
        {opt, "{\"x\": 1, \"z\": [1, {\"k\": true}]}", FULL},
        {opt, "{\"z\": [1, {\"k\": false}]}", NO},
        {opt, "{\"y\": \"s\", \"x\": 1}", NO},
        {"{\"properties\": {}}", "{}", FULL},
        {"{\"items\": {\"type\": \"integer\"}}", "[1, 2]", FULL},
        /* $ref: "#", JSON pointers ($defs, definitions, ~1, %25, array indexes), recursion */
        {defs, "{\"pet\": {\"kind\": \"cat\"}, \"owners\": [\"Ann\"]}", FULL},
        {defs, "{\"pet\": {\"kind\": \"dog\"}, \"owners\": []}", NO},
        {defs, "{\"pet\": {\"kind\": \"cat\"}, \"owners\": [3]}", NO},
        {defs, "{\"pet\": {\"kind\": \"cat\"}, \"owners\": [], \"a/b\": 2, \"pct\": true, \"first\": 1}", FULL},
        {defs, "{\"pet\": {\"kind\": \"cat\"}, \"owners\": [], \"first\": \"x\"}", NO},
        {tree, "{\"v\": 1, \"kids\": [{\"v\": 2, \"kids\": []}, {\"v\": 3, \"kids\": [{\"v\": 4, \"kids\": []}]}]}", FULL},
        {tree, "{\"v\": 1, \"kids\": [{\"v\": 2}]}", NO},
        {"{\"type\": \"object\", \"properties\": {\"next\": {\"$ref\": \"#\"}}}", "{\"next\": {\"next\": {}}}", FULL},
        {"{\"$ref\": \"#/$defs/N\", \"$defs\": {\"N\": {\"allOf\": [{\"properties\": {\"v\": {\"type\": \"integer\"}}}, "
         "{\"properties\": {\"kids\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/N\"}}}}]}}}", "{\"v\": 1, \"kids\": [{\"kids\": [{\"v\": 3}]}]}", FULL},   /* recursion through an allOf: merged once */
        {"{\"type\": \"string\", \"nullable\": true}", "null", FULL},
        {"{\"type\": \"string\", \"nullable\": true}", "\"s\"", FULL},
        {"{\"type\": \"string\", \"nullable\": false}", "null", NO},
        /* allOf: properties and required merged, other keywords once */
        {"{\"allOf\": [{\"$ref\": \"#/$defs/a\"}, {\"properties\": {\"y\": {\"type\": \"string\"}}, \"required\": [\"y\"]}], "
         "\"$defs\": {\"a\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"integer\"}}, \"required\": [\"x\"]}}}", "{\"x\": 1, \"y\": \"s\"}", FULL},
        {"{\"allOf\": [{\"$ref\": \"#/$defs/a\"}, {\"properties\": {\"y\": {\"type\": \"string\"}}, \"required\": [\"y\"]}], "
         "\"$defs\": {\"a\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"integer\"}}, \"required\": [\"x\"]}}}", "{\"x\": 1}", NO},
        {"{\"allOf\": [{\"type\": \"string\"}, {\"maxLength\": 2}], \"description\": \"d\"}", "\"ab\"", FULL},
        {"{\"allOf\": [{\"type\": \"string\"}, {\"maxLength\": 2}], \"description\": \"d\"}", "\"abc\"", NO},
        {"{\"description\": \"pydantic v1\", \"allOf\": [{\"$ref\": \"#/definitions/c\"}], \"definitions\": {\"c\": {\"enum\": [\"r\", \"g\"]}}}", "\"g\"", FULL},
        {"{\"allOf\": [{\"properties\": {\"a\": {\"const\": 1}, \"b\": {\"const\": 2}}, \"required\": [\"a\", \"b\"]}, {\"properties\": {\"a\": {\"const\": 9}, \"c\": {\"const\": 3}}}]}",
         "{\"a\": 1, \"b\": 2, \"c\": 3}", FULL},
        {"{\"allOf\": [{\"properties\": {\"a\": {\"const\": 1}, \"b\": {\"const\": 2}}, \"required\": [\"a\", \"b\"]}, {\"properties\": {\"a\": {\"const\": 9}, \"c\": {\"const\": 3}}}]}",
         "{\"a\": 1, \"c\": 3}", NO},
        {"{\"allOf\": [{\"properties\": {\"a\": {\"const\": 1}, \"b\": {\"const\": 2}}, \"required\": [\"a\", \"b\"]}, {\"properties\": {\"a\": {\"const\": 9}, \"c\": {\"const\": 3}}}]}",
         "{\"a\": 9, \"b\": 2}", NO},
        /* lengths, counts and formats */
        {"{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 3}", "\"a\"", NO},
        {"{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 3}", "\"a\\u00e9\"", FULL},
        {"{\"type\": \"string\", \"minLength\": 2, \"maxLength\": 3}", "\"abcd\"", NO},
        {"{\"type\": \"string\", \"maxLength\": 0}", "\"\"", FULL},
        {"{\"type\": \"string\", \"minLength\": 1.0}", "\"\"", NO},
        {"{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 1, \"maxItems\": 2}", "[]", NO},
        {"{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 1, \"maxItems\": 2}", "[1, 2]", FULL},
        {"{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 1, \"maxItems\": 2}", "[1, 2, 3]", NO},
        {"{\"type\": \"array\", \"maxItems\": 0}", "[]", FULL},
        {"{\"type\": \"array\", \"maxItems\": 0}", "[1]", NO},
        {"{\"type\": \"array\", \"minItems\": 3}", "[1, 2]", NO},
        {"{\"prefixItems\": [{\"type\": \"string\"}, {\"type\": \"integer\"}], \"items\": false}", "[\"a\", 1]", FULL},
        {"{\"prefixItems\": [{\"type\": \"string\"}, {\"type\": \"integer\"}], \"items\": false}", "[\"a\", 1, 2]", NO},
        {"{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"type\": \"null\"}}", "[\"a\", null, null]", FULL},
        {"{\"prefixItems\": [{\"type\": \"string\"}]}", "[\"a\", {}, 3]", FULL},
        {"{\"prefixItems\": [{\"type\": \"string\"}]}", "[1]", NO},
        {"{\"type\": \"string\", \"format\": \"date\"}", "\"2026-11-29\"", FULL},
        {"{\"type\": \"string\", \"format\": \"date\"}", "\"2026-13-29\"", NO},
        {"{\"type\": \"string\", \"format\": \"date-time\"}", "\"2026-11-29T17:45:00.123Z\"", FULL},
        {"{\"type\": \"string\", \"format\": \"time\"}", "\"24:00:00Z\"", NO},
        {"{\"type\": \"string\", \"format\": \"uuid\"}", "\"123e4567-e89b-12d3-a456-426614174000\"", FULL},
        {"{\"type\": \"string\", \"format\": \"email\"}", "\"any text\"", FULL},
        /* patterns: a search unless anchored; characters as tojson writes them */
        {"{\"type\": \"string\", \"pattern\": \"^[a-z]+@[a-z]+\\\\.com$\"}", "\"ann@x.com\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^[a-z]+@[a-z]+\\\\.com$\"}", "\"Ann@x.com\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[a-z]+@[a-z]+\\\\.com$\"}", "\"ann@x.co\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"\\\\d{3}-\\\\d{4}\"}", "\"call 555-1234 now\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"\\\\d{3}-\\\\d{4}\"}", "\"555-12\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^(\\\\+1 )?\\\\(\\\\d{3}\\\\) \\\\d{3}-\\\\d{4}$\"}", "\"(555) 123-4567\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^(\\\\+1 )?\\\\(\\\\d{3}\\\\) \\\\d{3}-\\\\d{4}$\"}", "\"+1 (555) 123-4567\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^(\\\\+1 )?\\\\(\\\\d{3}\\\\) \\\\d{3}-\\\\d{4}$\"}", "\"1 (555) 123-4567\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[^a]$\"}", "\"b\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^[^a]$\"}", "\"a\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[^a]$\"}", "\"\\\"\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^[^a]$\"}", "\"\\n\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^[^a]$\"}", "\"\\u001b\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^\\\"\\\\\\\\$\"}", "\"\\\"\\\\\"", FULL},   /* the pattern ^"\\$: a quote and a backslash */
        {"{\"type\": \"string\", \"pattern\": \"^\\u00e9+\\\\u00e9$\"}", "\"\xc3\xa9\xc3\xa9\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^a|b$\"}", "\"axx\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^a|b$\"}", "\"xxb\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^a|b$\"}", "\"xax\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[\\\\w-]+$\"}", "\"a_b-9\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^[\\\\w-]+$\"}", "\"a b\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^a{2,3}?$\"}", "\"aaa\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^a{2,3}?$\"}", "\"aaaa\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^(?:ab)+(?<x>c)$\"}", "\"ababc\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^a{b}$\"}", "\"a{b}\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^.$\"}", "\"x\"", FULL},
        {"{\"type\": \"string\", \"pattern\": \"^.$\"}", "\"\\n\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[\\\\D]$\"}", "\"7\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[]$\"}", "\"\"", NO},
        {"{\"type\": \"string\", \"pattern\": \"^[^]$\"}", "\"\\t\"", FULL},
        /* additionalProperties */
        {"{\"type\": \"object\", \"additionalProperties\": {\"type\": \"integer\"}}", "{\"a\": 1, \"b\": 2}", FULL},
        {"{\"type\": \"object\", \"additionalProperties\": {\"type\": \"integer\"}}", "{\"a\": \"1\"}", NO},
        {"{\"type\": \"object\", \"additionalProperties\": false}", "{}", FULL},
        {"{\"type\": \"object\", \"additionalProperties\": false}", "{\"a\": 1}", NO},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": true}", "{\"z\": [1], \"y\": null}", FULL},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": true}", "{\"a\": 1, \"z\": [1]}", FULL},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"], \"additionalProperties\": {\"type\": \"string\"}}", "{\"a\": 1, \"z\": \"s\"}", FULL},
        {"{\"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"], \"additionalProperties\": {\"type\": \"string\"}}", "{\"z\": \"s\", \"a\": 1}", NO},
    };
    static const struct { const char *schema, *msg; } bad[] = {
        {"{\"$ref\": \"#/defs/x\"}", "a $ref that points nowhere"}, {"{\"$ref\": \"other.json#/a\"}", "a $ref outside this schema"},
        {"{\"$ref\": 3}", "a $ref that is not a string"}, {"{\"$ref\": \"#\"}", "a $ref that leads to itself"},
        {"{\"$ref\": \"#/$defs/a\", \"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}}}", "a $ref that leads to itself"},
        {"{\"anyOf\": [{\"$ref\": \"#\"}, {\"type\": \"null\"}]}", "the grammar written is refused"},
        {"{\"allOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}]}", "an allOf whose parts disagree"},
        {"{\"allOf\": {}}", "an allOf that is not an array"}, {"{\"allOf\": [{\"$ref\": \"#\"}]}", "an allOf of more than 64 parts"},
        {"{\"type\": \"string\", \"minLength\": 3, \"maxLength\": 2}", "a minLength above the maxLength"},
        {"{\"type\": \"string\", \"minLength\": -1}", "not a whole number"}, {"{\"type\": \"string\", \"maxLength\": 1.5}", "not a whole number"},
        {"{\"type\": \"string\", \"minLength\": 1000001}", "a minimum length or count over 1000000"},
        {"{\"type\": \"array\", \"minItems\": 2, \"maxItems\": 1}", "a minItems above the maxItems"},
        {"{\"prefixItems\": [{}, {}], \"maxItems\": 1}", "below the number of prefixItems"}, {"{\"prefixItems\": {}}", "a prefixItems that is not an array"},
        {"{\"properties\": []}", "a properties that is not an object"},
        {"{\"type\": \"integer\", \"minimum\": 5, \"maximum\": 4}", "a minimum above the maximum"},
        {"{\"type\": \"integer\", \"exclusiveMinimum\": 5, \"exclusiveMaximum\": 6}", "a minimum above the maximum"},
        {"{\"type\": \"integer\", \"minimum\": \"1\"}", "a minimum or maximum that is not a number"},
        {"{\"type\": \"number\", \"minimum\": 0.5, \"exclusiveMaximum\": 0.5}", "a minimum above the maximum"},
        {"{\"type\": \"number\", \"minimum\": 1e300}", "beyond 16 digits"}, {"{\"type\": \"number\", \"maximum\": {}}", "not a number"},
        {"{\"type\": \"string\", \"pattern\": \"(?=a)b\"}", "lookaround"}, {"{\"type\": \"string\", \"pattern\": \"(a)\\\\1\"}", "back-reference"},
        {"{\"type\": \"string\", \"pattern\": \"\\\\bword\"}", "word boundary"}, {"{\"type\": \"string\", \"pattern\": \"a**\"}", "a quantifier after a quantifier"},
        {"{\"type\": \"string\", \"pattern\": \"(a\"}", "a group without its ')'"}, {"{\"type\": \"string\", \"pattern\": \"a)\"}", "an unbalanced ')'"},
        {"{\"type\": \"string\", \"pattern\": \"[a\"}", "a class without its ']'"}, {"{\"type\": \"string\", \"pattern\": \"a^b\"}", "^ or $ inside it"},
        {"{\"type\": \"string\", \"pattern\": \"x{1001}\"}", "a repetition count over 1000"}, {"{\"type\": \"string\", \"pattern\": \"[z-a]\"}", "out of order"},
        {"{\"type\": \"string\", \"pattern\": \"\\\\q\"}", "an unknown escape"}, {"{\"type\": \"string\", \"pattern\": \"a{3,2}\"}", "where n < m"},
        {"{\"type\": \"string\", \"pattern\": \"*a\"}", "a quantifier with nothing before it"}, {"{\"type\": \"string\", \"pattern\": 3}", "a pattern that is not a string"},
        {"", "not one JSON value"}, {"{\"type\": \"string\"", "not one JSON value"}, {"{} {}", "not one JSON value"},
        {"{\"type\": \"strin\"}", "a type that is not"}, {"{\"type\": 3}", "not a string or an array"}, {"{\"type\": []}", "empty type array"},
        {"{\"enum\": []}", "not an array of values"}, {"{\"anyOf\": {}}", "not an array of values"}, {"3", "not an object or true"},
        {"{\"properties\": {\"a\": false}}", "not an object or true"}, {"\"\xc3\"", "not one JSON value"},
    };
    size_t i, n = 0;
    char small[8];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = schema_match(cases[i].schema, cases[i].text);
        CHECK(r == cases[i].want, "schema %zu (%s): \"%s\" -> %d (want %d)%s", i, oneline(cases[i].schema), oneline(cases[i].text), r, cases[i].want, r < 0 ? srt_last_error() : "");
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        srt_status st = srt_grammar_from_json_schema(bad[i].schema, NULL, 0, &n);
        CHECK(st == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), bad[i].msg), "schema refused: %s: %s", oneline(bad[i].schema), srt_last_error());
    }
    {   /* counts past the grammar's 1000 repetitions, written in blocks of 1000 */
        static const long lens[] = {1199, 1200, 1999, 2000, 2001, 2500, 2501, 3500, 3501};
        char *t = (char *)malloc(2 * 3501 + 3);
        size_t k;
        for (i = 0; t && i < sizeof lens / sizeof lens[0]; i++) {
            int r, want = lens[i] >= 1200 && lens[i] <= 2500 ? FULL : NO;
            t[0] = '"';
            memset(t + 1, 'a', (size_t)lens[i]);
            strcpy(t + 1 + lens[i], "\"");
            r = schema_match("{\"type\": \"string\", \"minLength\": 1200, \"maxLength\": 2500}", t);
            CHECK(r == want, "a string of %ld characters, 1200 to 2500: %d (want %d)", lens[i], r, want);
            for (t[0] = '[', k = 0; k < (size_t)lens[i]; k++) { t[1 + 2 * k] = '1'; t[2 + 2 * k] = ','; }
            strcpy(t + 2 * lens[i], "]");
            want = lens[i] <= 3500 ? FULL : NO;
            r = schema_match("{\"type\": \"array\", \"items\": {\"const\": 1}, \"maxItems\": 3500}", t);
            CHECK(r == want, "an array of %ld items, at most 3500: %d (want %d)", lens[i], r, want);
        }
        free(t);
    }
    {   /* integer ranges: every integer from -300 to 300 and far ones, taken exactly when in the range */
#define LIM 9999999999999999LL
        static const struct { const char *schema; long long lo, hi; } rg[] = {
            {"{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 16}", 1, 16},
            {"{\"type\": \"integer\", \"minimum\": 0, \"maximum\": 255}", 0, 255},
            {"{\"type\": \"integer\", \"minimum\": -40, \"maximum\": 40}", -40, 40},
            {"{\"type\": \"integer\", \"minimum\": -150, \"maximum\": -7}", -150, -7},
            {"{\"type\": \"integer\", \"minimum\": 123, \"maximum\": 987}", 123, 987},
            {"{\"type\": \"integer\", \"minimum\": 7}", 7, LIM},
            {"{\"type\": \"integer\", \"maximum\": 99}", -LIM, 99},
            {"{\"type\": \"integer\", \"exclusiveMinimum\": 0, \"exclusiveMaximum\": 100}", 1, 99},
            {"{\"type\": \"integer\", \"minimum\": 2.5, \"maximum\": 10.5}", 3, 10},
            {"{\"type\": \"integer\", \"minimum\": 5, \"exclusiveMinimum\": true, \"maximum\": 9, \"exclusiveMaximum\": true}", 6, 8},
            {"{\"type\": \"integer\", \"minimum\": 100, \"maximum\": 100}", 100, 100},
            {"{\"type\": \"integer\", \"minimum\": -1000000, \"maximum\": 1000000000000}", -1000000, 1000000000000LL},
            {"{\"type\": \"integer\", \"minimum\": -1e300, \"maximum\": 1e300}", -LIM, LIM},
            {"{\"type\": \"integer\", \"minimum\": -2.5, \"exclusiveMaximum\": -0.5}", -2, -1},
            {"{\"type\": \"integer\", \"exclusiveMinimum\": -3, \"maximum\": -1.5}", -2, -2},
        };
        static const long long distant[] = {999, 1000, 1001, 9999, 12345, -999, -1000, -1001, 999999, 1000000, -1000001, 999999999999LL,
                                        1000000000000LL, 1000000000001LL, LIM, -LIM};
        for (i = 0; i < sizeof rg / sizeof rg[0]; i++) {
            char g[8192], t[32];
            size_t gl = 0, k;
            int wrong = 0, tried = 0;
            long long x;
            if (srt_grammar_from_json_schema(rg[i].schema, g, sizeof g, &gl) != SRT_OK) { CHECK(0, "range %zu: %s", i, srt_last_error()); continue; }
            for (k = 0; k < 601 + sizeof distant / sizeof distant[0]; k++, tried++) {
                int r = -1;
                x = k < 601 ? (long long)k - 300 : distant[k - 601];
                snprintf(t, sizeof t, "%lld", x);
                if (srt_grammar_match(g, t, strlen(t), &r) != SRT_OK || ((r & FULL) != 0) != (x >= rg[i].lo && x <= rg[i].hi)) {
                    if (wrong++ < 3) printf("# %s: %s -> %d\n", rg[i].schema, t, r);
                }
            }
            CHECK(!wrong, "range %zu (%s): %d of %d integers taken or refused wrongly", i, rg[i].schema + 19, wrong, tried);
        }
#undef LIM
    }
    {   /* number ranges: every hundredth from -3 to 3, written with two decimals and trimmed, taken
           exactly when in the range (bounds in thousandths; NB: no bound) */
#define NB 99999999L
        static const struct { const char *schema; long lo, hi; int sl, sh; } rg[] = {
            {"{\"type\": \"number\", \"minimum\": 0, \"maximum\": 1}", 0, 1000, 0, 0},
            {"{\"type\": \"number\", \"exclusiveMinimum\": 0, \"exclusiveMaximum\": 1}", 0, 1000, 1, 1},
            {"{\"type\": \"number\", \"minimum\": 0.25, \"maximum\": 0.75}", 250, 750, 0, 0},
            {"{\"type\": \"number\", \"exclusiveMinimum\": -0.5, \"maximum\": 2.125}", -500, 2125, 1, 0},
            {"{\"type\": \"number\", \"minimum\": -2.75, \"exclusiveMaximum\": -0.125}", -2750, -125, 0, 1},
            {"{\"type\": \"number\", \"minimum\": 1.5}", 1500, NB, 0, 0},
            {"{\"type\": \"number\", \"maximum\": -1}", -NB, -1000, 0, 0},
            {"{\"type\": \"number\", \"minimum\": 0.1, \"maximum\": 0.105}", 100, 105, 0, 0},
            {"{\"type\": \"number\", \"minimum\": -1, \"maximum\": 1e0}", -1000, 1000, 0, 0},
            {"{\"type\": \"number\", \"exclusiveMinimum\": 0}", 0, NB, 1, 0},
            {"{\"type\": \"number\", \"maximum\": 2.999, \"minimum\": 25e-1}", 2500, 2999, 0, 0},
            {"{\"type\": \"number\", \"minimum\": 1, \"exclusiveMinimum\": true, \"maximum\": 2, \"exclusiveMaximum\": true}", 1000, 2000, 1, 1},
            {"{\"type\": \"number\", \"minimum\": 0.305, \"exclusiveMaximum\": 0.31}", 305, 310, 0, 1},
            {"{\"type\": \"number\", \"minimum\": -0.3, \"maximum\": -0.3}", -300, -300, 0, 0},
            {"{\"type\": \"number\", \"minimum\": -1e300, \"exclusiveMaximum\": 0.02}", -NB, 20, 0, 1},
        };
        for (i = 0; i < sizeof rg / sizeof rg[0]; i++) {
            char g[16384], t[32];
            size_t gl = 0;
            int wrong = 0, tried = 0, form;
            long h;
            if (srt_grammar_from_json_schema(rg[i].schema, g, sizeof g, &gl) != SRT_OK) { CHECK(0, "number range %zu: %s", i, srt_last_error()); continue; }
            for (h = -300; h <= 300; h++)
                for (form = 0; form < 2; form++, tried++) {
                    const long v = 10 * h, a = h < 0 ? -h : h;
                    const int in = (rg[i].sl ? v > rg[i].lo : v >= rg[i].lo) && (rg[i].sh ? v < rg[i].hi : v <= rg[i].hi);
                    int r = -1;
                    if (!form) snprintf(t, sizeof t, "%s%ld.%02ld", h < 0 ? "-" : "", a / 100, a % 100);
                    else if (a % 100 == 0) snprintf(t, sizeof t, "%s%ld", h < 0 ? "-" : "", a / 100);
                    else if (a % 10 == 0) snprintf(t, sizeof t, "%s%ld.%ld", h < 0 ? "-" : "", a / 100, (a % 100) / 10);
                    else snprintf(t, sizeof t, "%s%ld.%02ld", h < 0 ? "-" : "", a / 100, a % 100);
                    if (srt_grammar_match(g, t, strlen(t), &r) != SRT_OK || ((r & FULL) != 0) != in) {
                        if (wrong++ < 3) printf("# %s: %s -> %d (want %s)\n", rg[i].schema, t, r, in ? "taken" : "refused");
                    }
                }
            CHECK(!wrong, "number range %zu (%s): %d of %d numbers taken or refused wrongly", i, rg[i].schema + 18, wrong, tried);
        }
#undef NB
    }
    CHECK(srt_grammar_from_json_schema(person, NULL, 0, &n) == SRT_ERR_INVALID_ARG && n > 100 &&
          srt_grammar_from_json_schema(person, small, sizeof small, &i) == SRT_ERR_INVALID_ARG && i == n && small[7] == 0,
          "a buffer too small: the length is set (%zu)", n);
}

/* The tool-call grammars of the chat templates. */
static const char *const tools_json =
    "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"The weather.\", \"parameters\": {\"type\": \"object\", "
    "\"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}, \"required\": [\"city\"]}}}, "
    "{\"type\": \"function\", \"function\": {\"name\": \"now\", \"description\": \"The time.\"}}]";
static void test_tool_grammars(void) {
    static const struct { srt_chat_format f; const char *text; int want; } cases[] = {
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", BOTH},
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n"
                          "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>", BOTH},
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"now\", \"arguments\": {\"any\": [1]}}\n</tool_call>", BOTH},   /* no parameters: any object */
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"days\": 2}}\n</tool_call>", NO},
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"weather\", \"arguments\": {}}\n</tool_call>", NO},
        {SRT_CHAT_CHATML, "<tool_call>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n</tool_call>", NO},
        {SRT_CHAT_SMOLLM3, "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>", BOTH},
        {SRT_CHAT_LLAMA3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", FULL},
        {SRT_CHAT_LLAMA3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}{\"name\": \"now\", \"parameters\": {}}", NO},
        {SRT_CHAT_LLAMA3, "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}", NO},
    };
    srt_chat_template t;
    size_t i;
    char *g = NULL;
    const char *trig = NULL;
    srt_status st;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = -1;
        memset(&t, 0, sizeof t);
        t.format = cases[i].f;
        st = srt__chat_tool_grammar(&t, tools_json, &g, &trig);
        if (st == SRT_OK) st = srt_grammar_match(g, cases[i].text, strlen(cases[i].text), &r);
        CHECK(st == SRT_OK && r == cases[i].want && !strncmp(cases[i].text, trig, strlen(trig)), "tool grammar %zu (%s, trigger %s): %d (want %d)",
              i, srt_chat_format_name(cases[i].f), trig ? trig : "-", r, cases[i].want);
        free(g);
        g = NULL;
    }
    memset(&t, 0, sizeof t);
    t.format = SRT_CHAT_HARMONY;
    CHECK(srt__chat_tool_grammar(&t, tools_json, &g, &trig) == SRT_ERR_UNSUPPORTED && !g, "harmony: no tool grammar (%s)", srt_last_error());
    t.format = SRT_CHAT_CHATML;
    CHECK(srt__chat_tool_grammar(&t, "[{\"type\": \"function\", \"function\": {\"description\": \"x\"}}]", &g, &trig) == SRT_ERR_INVALID_ARG && !g &&
          strstr(srt_last_error(), "without a \"name\""), "a tool without a name: %s", srt_last_error());
    CHECK(srt__chat_tool_grammar(&t, "[{\"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"bad\"}}}]", &g, &trig) == SRT_ERR_INVALID_ARG && !g &&
          strstr(srt_last_error(), "the tools: a type that is not"), "a tool with a bad schema: %s", srt_last_error());
}

/* The allowed tokens of a trie walk against each token walked alone, at each byte of text, then
   (after a reset, the frames made again) of text2 from its second byte; and the cache's answer
   against the walk (hits: some answers must come from the cache, and the walks must keep sets in
   their memo). */
/* Out of memory at each allocation in turn, one failing per run (each_allocation): a run ends as
   the run where none fails does, or with SRT_ERR_OUT_OF_MEMORY, never with another answer. For the
   schema converter (its allOf merge, $refs, patterns, ranges), a tool grammar, the matcher on a
   text, and (vocab not NULL) the trie walk from states inside and outside a string (its setup
   does not fail: that loop is its own). */
static srt_status oom_schema(void *ctx, uint64_t *h) {
    static char buf[16384];
    size_t n = 0;
    const srt_status st = srt_grammar_from_json_schema((const char *)ctx, buf, sizeof buf, &n);
    if (st == SRT_OK) *h = hash(0, buf, n);
    return st;
}
static srt_status oom_tool_grammar(void *ctx, uint64_t *h) {
    srt_chat_template t;
    char *g = NULL;
    const char *trig = NULL;
    srt_status st;
    memset(&t, 0, sizeof t);
    t.format = SRT_CHAT_CHATML;
    if ((st = srt__chat_tool_grammar(&t, (const char *)ctx, &g, &trig)) == SRT_OK) *h = hash(hash(0, g, strlen(g)), trig, strlen(trig));
    free(g);
    return st;
}
static srt_status oom_match(void *ctx, uint64_t *h) {
    int r = -1;
    const srt_status st = srt_grammar_match(SRT_GRAMMAR_JSON, (const char *)ctx, strlen((const char *)ctx), &r);
    *h = hash(0, &r, sizeof r);
    return st == SRT_OK && r != FULL ? SRT_ERR_INVALID_ARG : st;   /* (the text is whole JSON) */
}
static srt_status oom_parse(void *ctx, uint64_t *h) {   /* a grammar with token references */
    srt__grammar *g = NULL;
    const srt_status st = srt__grammar_parse((const char *)ctx, &g);
    int i;
    *h = 0;
    if (st == SRT_OK) {
        *h = hash(0, &g->n_tok, sizeof g->n_tok);
        for (i = 0; i < g->n_tok; i++) *h = hash(*h, g->tok[i].text ? g->tok[i].text : "#", g->tok[i].text ? strlen(g->tok[i].text) : 1);
        *h = hash(*h, g->rng, (size_t)g->n_rng * sizeof *g->rng);
    }
    srt__grammar_free(g);
    return st;
}
static void test_out_of_memory(const srt_model *vocab) {
    static const char *const schemas[] = {
        "{\"allOf\": [{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}}, {\"type\": \"object\", \"required\": [\"a\"]}]}",
        "{\"allOf\": [{\"type\": \"object\"}, {\"type\": \"string\"}]}",   /* parts that disagree: refused, also when out of memory comes in the compare */
        "{\"$ref\": \"#/$defs/N\", \"$defs\": {\"N\": {\"type\": \"object\", \"properties\": {\"kids\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/N\"}}}}}}",
        ("{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\", \"pattern\": \"^[A-Z]{2}-\\\\d{3,5}(x|y)?$\"}, "
         "\"n\": {\"type\": \"number\", \"minimum\": -2.5, \"exclusiveMaximum\": 17}, \"d\": {\"type\": \"string\", \"format\": \"date-time\"}}}"),
    };
    static const char *const gm_text = "{\"k\": [1, 2.5e3, \"s\\u00e9\"], \"t\": true}";
    size_t i;
    for (i = 0; i < sizeof schemas / sizeof *schemas; i++) {
        char what[32];
        snprintf(what, sizeof what, "JSON schema %d", (int)i);
        each_allocation(what, oom_schema, (void *)schemas[i], i == 1 ? SRT_ERR_INVALID_ARG : SRT_OK, 1000);
    }
    each_allocation("a tool grammar", oom_tool_grammar, (void *)tools_json, SRT_OK, 1000);
    each_allocation("srt_grammar_match", oom_match, (void *)gm_text, SRT_OK, 1000);
    each_allocation("a grammar with token references", oom_parse, (void *)"root ::= \"a\" <think> <[5]> (<|end|> \"b\")* x\nx ::= <s>", SRT_OK, 1000);
    if (vocab) {   /* the trie walk (its memo, its sorted copies) from states after each prefix length */
        static const size_t cut[] = {0, 7, 12, 19, 25};   /* the start, in an array, in a number, in a string (twice) */
        srt__grammar *g = NULL;
        srt__gtrie tr;
        unsigned char *want = (unsigned char *)malloc((size_t)vocab->vocab.n), *got = (unsigned char *)malloc((size_t)vocab->vocab.n);
        long trials = 0, ooms = 0, bad = 0, walks_kept = 0;
        size_t c;
        if (!want || !got || srt__grammar_parse(SRT_GRAMMAR_JSON, &g) != SRT_OK || !srt__gtrie_build(&tr, &vocab->vocab)) { CHECK(0, "out of memory in the walk: set up"); free(want); free(got); srt__grammar_free(g); return; }
        for (c = 0; c < sizeof cut / sizeof *cut; c++) {
            long k, total = 0;
            int n0 = -1;
            for (k = 0; k == 0 || k <= total; k++) {
                srt__gmatch gm;
                int n;
                memset(&gm, 0, sizeof gm);
                if (!srt__gm_init(&gm, g) || (cut[c] && !srt__gm_feed(&gm, (const unsigned char *)gm_text, cut[c], 1))) { bad++; srt__gm_free(&gm); break; }
                srt_test_allocs = 0; srt_test_fail_at = k;
                n = srt__gm_allowed(&gm, &tr, &vocab->vocab, k ? got : want);
                srt_test_fail_at = 0;
                if (!k) { total = srt_test_allocs; n0 = n; walks_kept += gm.w_used; }
                else {
                    trials++;
                    if (n < 0 && gm.st == SRT_ERR_OUT_OF_MEMORY) ooms++;
                    else if (n != n0 || memcmp(got, want, (size_t)vocab->vocab.n) != 0) bad++;
                }
                srt__gm_free(&gm);
            }
            if (n0 <= 0) bad++;
        }
        CHECK(!bad && ooms > 0 && walks_kept > 0, "out of memory at each allocation of 5 trie walks (%ld runs, the memo kept %ld sets): %ld out of memory, %ld other masks", trials, walks_kept, ooms, bad);
        srt__gtrie_free(&tr);
        srt__grammar_free(g);
        free(want); free(got);
    }
}
static void check_mask(const srt_model *m, const char *name, const char *gbnf, const char *text, const char *text2, int hits) {
    srt__grammar *g = NULL;
    srt__gmatch gm;
    srt__gtrie tr;
    srt__gcache gc;
    unsigned char *al = (unsigned char *)malloc((size_t)m->vocab.n);
    size_t i, n;
    int bad = 0, bad_cache = 0, states = 0, total = 0, eog_ok = 1, pass, memo_sets = 0;
    memset(&gm, 0, sizeof gm);
    memset(&gc, 0, sizeof gc);
    if (!al || srt__grammar_parse(gbnf, &g) != SRT_OK || !srt__gtrie_build(&tr, &m->vocab) || !srt__gm_init(&gm, g)) {
        CHECK(0, "%s: set up (%s)", name, srt_last_error());
        free(al);
        srt__grammar_free(g);
        return;
    }
    for (pass = 0; pass < 2; pass++) {
        const char *t = pass ? text2 : text;
        if (pass) srt__gm_reset(&gm);
        for (i = 0, n = strlen(t); i <= n; i++) {
            int k, na, nb = 0, nc = -1;
            const unsigned char *ca;
            if (pass && !i) {   /* text 2's first byte taken without a walk (as a prompt's are): the frames it makes have the first numbers */
                if (!srt__gm_feed(&gm, (const unsigned char *)t, 1, 1)) break;
                continue;
            }
            na = srt__gm_allowed(&gm, &tr, &m->vocab, al);
            memo_sets += gm.w_used;
            ca = srt__gm_allowed_cached(&gc, &gm, &tr, &m->vocab, &nc);
            for (k = 0; k < m->vocab.n; k++) {
                int ok = srt__gm_token(&gm, &m->vocab, k, 0);
                nb += ok;
                if (ok != al[k] && bad++ < 3) printf("# %s at byte %zu: token %d trie %d alone %d\n", name, i, k, al[k], ok);
                if (srt__is_eog(&m->vocab, k) && al[k] != srt__gm_complete(&gm)) eog_ok = 0;
            }
            if (na != nb) bad++;
            if (!ca || nc != na || memcmp(ca, al, (size_t)m->vocab.n) != 0) bad_cache++;
            states++;
            total += na;
            if (i < n && !srt__gm_feed(&gm, (const unsigned char *)t + i, 1, 1)) { CHECK(0, "%s: the text leaves the grammar at byte %zu", name, i); break; }
        }
        CHECK(srt__gm_complete(&gm), "%s: text %d is complete", name, pass + 1);
    }
    CHECK(!bad && eog_ok && gm.st == SRT_OK, "%s: trie walk = each token alone at %d states (%d allowed in all)", name, states, total);
    CHECK(!bad_cache && ((gc.hits > 0 && memo_sets > 0) || !hits) && gc.hits + gc.walks == (uint64_t)states,
          "%s: the cache's masks = the walk's at %d states (%d differ; %d from the cache, %d walks; memo sets summed over the walks: %d)",
          name, states, bad_cache, (int)gc.hits, (int)gc.walks, memo_sets);
    srt__gcache_free(&gc);
    srt__gm_free(&gm);
    srt__gtrie_free(&tr);
    srt__grammar_free(g);
    free(al);
}

static char *read_output(const char *path);
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
        check_mask(m, tag, SRT_GRAMMAR_JSON, "{\"a\": [\"P\xc3\xa9 \xe2\x82\xac\\n\", -2.5e3, true],\n  \"b\": {}}", "{\"xy\": null, \"a\": [{}]}", 1);
        snprintf(tag, sizeof tag, "%s, after a reset", vocabs[i]);   /* the frame made after "b" has the number of the one after "a" */
        {   /* text 2's first frame is number 2; in one of the orders, the first walk gave number 2 to text 1's other first letter */
            static const char *const g2 = "root ::= \"a\" [0-9]+ | \"b\" [a-z]+";
            check_mask(m, tag, g2, "a12", "bcd", 1);
            check_mask(m, tag, g2, "bcd", "a12", 1);
        }
        snprintf(tag, sizeof tag, "%s, CJK", vocabs[i]);
        check_mask(m, tag, cjk, "\xe4\xb8\xad\xe6\x96\x87\xe3\x80\x81\xe4\xbd\xa0\xe5\xa5\xbd\xe3\x80\x82", "\xe5\xa5\xbd\xe3\x80\x82", 0);
        snprintf(tag, sizeof tag, "%s, words", vocabs[i]);
        check_mask(m, tag, words, "The cat, sat on the mat \xc3\xa9\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87.", "A b.", 1);
        if (i == 2) test_out_of_memory(m);
        if (i == 0) {   /* the benchmark runs (not built under sanitizers) */
            FILE *f = fopen("build/bench-grammar", "rb");
            if (!f) printf("# skipped bench-grammar: not built (a sanitizer or cross build)\n");
            else {
                char *out;
                int rc;
                fclose(f);
                rc = system("build/bench-grammar build/tmp/grammar-llama-spm.srt --reps 1 --alone > build/tmp/bench-grammar.txt 2>&1");
                out = read_output("build/tmp/bench-grammar.txt");
                const char *line = out && strstr(out, "cached ") ? strstr(out, "cached ") : out ? out : "(no output)";
                CHECK(rc == 0 && strstr(line, "same masks: yes") && out && strstr(out, "alone "), "bench-grammar runs: %.*s", (int)strcspn(line, "\n"), line);
                free(out);
            }
        }
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
/* Token references on stories260K, whose <s> and </s> are tokens 1 and 2: the session draws the
   token itself where the grammar has it (also inside a repetition), by <TEXT> or <[ID]>; no class
   or '.' takes a token; references the vocabulary has no token for are refused and the session
   keeps its grammar. */
static int draw_tokens(srt_session *s, int32_t *out, int max) {
    int n = 0;
    while (n < max) {
        if (srt_session_next(s, &out[n]) != SRT_OK) { printf("# %s\n", srt_last_error()); return -1; }
        if (srt_token_is_eog(s->m, out[n++])) break;
    }
    return n;
}
static void test_tokens(srt_model *m) {
    static const char *const grammars[2] = {"root ::= \" Lily\" <s> \" went home.\" </s>", "root ::= \" Lily\" <[1]> \" went home.\" <[2]>"};
    srt_session *s = new_session(m, 0.0f, 0, 0.0f, 0);
    int32_t t[64];
    char text[512];
    int i, n, k, ones;
    if (!s) { CHECK(0, "session"); return; }
    CHECK(!strcmp(m->vocab.piece[1], "<s>") && !strcmp(m->vocab.piece[2], "</s>") && srt_token_is_eog(m, 2) && !srt_token_is_eog(m, 1),
          "stories260K: <s> is token 1, </s> token 2 (end of generation)");
    for (i = 0; i < 2; i++) {
        CHECK(srt_session_prompt(s, "Once upon a time", 0) == SRT_OK && srt_session_set_grammar(s, grammars[i]) == SRT_OK, "grammar %s set", grammars[i]);
        n = draw_tokens(s, t, 40);
        for (k = 0, ones = 0; k < n; k++) ones += t[k] == 1;
        for (k = 0; k < n && t[k] != 1; k++) {}
        text_of(m, t, k, text, sizeof text);
        CHECK(n > 2 && ones == 1 && !strcmp(text, " Lily") && t[n - 1] == 2, "%s: \" Lily\" drawn as text, then token 1, then the rest and token 2 "
              "(%d tokens, token 1 %d times, \"%s\" before it)", grammars[i], n, ones, text);
        if (n > 2 && k < n) {
            text_of(m, t + k + 1, n - k - 2, text, sizeof text);
            CHECK(!strcmp(text, " went home."), "%s: \" went home.\" between the two tokens (\"%s\")", grammars[i], text);
        }
    }
    CHECK(srt_session_prompt(s, "Once upon a time", 0) == SRT_OK && srt_session_set_grammar(s, "root ::= (\" Tom\" <s>){2} </s>") == SRT_OK &&
          (n = draw_tokens(s, t, 40)) > 0, "a repeated group with a token");
    for (k = 0, ones = 0; k < n; k++) ones += t[k] == 1;
    CHECK(ones == 2 && t[n - 1] == 2 && t[n - 2] == 1, "(\" Tom\" <s>){2} </s>: token 1 twice, the last before </s> (%d tokens)", n);
    {   /* the matcher alone. A class or '.' never takes a token's code point, where the grammar refers to the
           token elsewhere (else the token is text: <s> has none); its reference does. A referenced token is
           the grammar's symbol only: </s> does not end a complete text where the grammar does not take it
           (unreferenced, it does), and a one-letter token is not read as its letter. */
        static const struct { const char *g, *fed; int k, want, complete; const char *what; } c[] = {
            {"root ::= . | \"z\" <s>", "", 1, 0, 0, "'.' does not take token 1"},
            {"root ::= [^a] | \"z\" <s>", "", 1, 0, 0, "[^a] does not take token 1"},
            {"root ::= [\\x00-\\U0010FFFF] | \"z\" <s>", "", 1, 0, 0, "[\\x00-\\U0010FFFF] does not take token 1"},
            {"root ::= <[1]>", "", 1, 1, 1, "<[1]> takes token 1, and the text is complete"},
            {"root ::= \"x\" | \"y\" <[2]>", "x", 2, 0, 0, "a complete text does not end with </s> where the grammar refers to it elsewhere"},
            {"root ::= \"x\"", "x", 2, 1, 1, "a complete text ends with </s> where the grammar does not refer to it"},
            {"root ::= \"L\" | <[K]> \"y\"", "", -1, 1, 0, "a one-letter token the grammar refers to is taken as the symbol, not as its letter"},
        };
        int32_t letter = -1;
        for (k = 3; k < m->vocab.n && letter < 0; k++)
            if (m->vocab.text_len[k] == 1 && m->vocab.text[k][0] >= 'a' && m->vocab.text[k][0] <= 'z') letter = k;
        for (i = 0; i < (int)(sizeof c / sizeof c[0]); i++) {
            srt__grammar *gr = NULL;
            srt__gmatch gm;
            char g[64], *at;
            const int32_t tk = c[i].k >= 0 ? c[i].k : letter;
            int ok;
            snprintf(g, sizeof g, "%s", c[i].g);
            if ((at = strstr(g, "[K]")) != NULL) {   /* the letter token: "L" is its letter, K its id */
                char rest[32];
                snprintf(rest, sizeof rest, "%s", at + 3);
                snprintf(at, sizeof g - (size_t)(at - g), "[%d]%s", (int)tk, rest);
                *strchr(g, 'L') = tk >= 0 ? m->vocab.text[tk][0] : 'L';
            }
            memset(&gm, 0, sizeof gm);
            ok = tk > 0 && srt__grammar_parse(g, &gr) == SRT_OK && srt__grammar_resolve(gr, &m->vocab) == SRT_OK && srt__gm_init(&gm, gr) &&
                 srt__gm_feed(&gm, (const unsigned char *)c[i].fed, strlen(c[i].fed), 1);
            ok = ok && srt__gm_token(&gm, &m->vocab, tk, 1) == c[i].want && (!c[i].want || srt__gm_complete(&gm) == c[i].complete);
            CHECK(ok, "%s: %s", g, c[i].what);
            srt__gm_free(&gm);
            srt__grammar_free(gr);
        }
    }
    CHECK(srt_session_set_grammar(s, story_grammar) == SRT_OK, "story grammar set");
    CHECK(srt_session_set_grammar(s, "root ::= \"a\" <nosuch>") == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "<nosuch> is not a token"),
          "a <TEXT> no token has is refused: %s", srt_last_error());
    CHECK(srt_session_set_grammar(s, "root ::= <[512]>") == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "past the vocabulary (512 tokens)"),
          "<[512]> past the 512 tokens is refused: %s", srt_last_error());
    CHECK(srt_session_prompt(s, "Once upon a time", 0) == SRT_OK, "prompt");
    draw_checked(s, story_grammar, 100, "stories greedy, the story grammar kept after refused token references", 1);
    srt_session_destroy(s);
}

static void test_sampling(srt_model *m) {
    static const struct { float temp; int top_k; float top_p; } cfg[3] = {{1.0f, 0, 0.0f}, {0.8f, 40, 0.0f}, {1.2f, 0, 0.9f}};
    int c, seed;
    uint64_t hits = 0, walks = 0;
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
            hits += a->gcache.hits; walks += a->gcache.walks;
            srt__gm_free(&gm); srt__grammar_free(g); free(al); free(lg);
            srt_session_destroy(a); srt_session_destroy(b);
        }
    CHECK(hits > 0 && walks > 0, "sampling: %d masks from the cache of states, %d trie walks", (int)hits, (int)walks);
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

/* A lazy grammar: the text is free until the trigger " Lily", then a tool call's grammar from
   there (the call opened by " Lily said: "). Greedy: the tokens before the trigger are those of a
   session without a grammar; the call names a tool, its arguments match its schema, then EOS. */
static void test_lazy(srt_model *m) {
    const char *trig = " Lily";
    char *g = NULL, text[4096];
    int seed, n_trig = 0;
    if (srt__sg_text(NULL, tools_json, " Lily said: ", NULL, "", "\"arguments\"", &g, NULL) != SRT_OK) { CHECK(0, "lazy: the grammar"); return; }
    for (seed = 0; seed <= 6; seed++) {
        srt_session *a = new_session(m, seed ? 1.0f : 0.0f, 0, 0.0f, (uint64_t)seed), *b = new_session(m, 0.0f, 0, 0.0f, 0);
        int n = 0, p0, same = 1, eog = 0, r = -1;
        const char *at;
        srt_chat_tool_call call;
        memset(&call, 0, sizeof call);
        srt_session_prompt(a, "Once upon a time", 0);
        srt_session_prompt(b, "Once upon a time", 0);
        CHECK(srt_session_set_grammar_lazy(a, g, &trig, 1) == SRT_OK, "lazy grammar set (seed %d)", seed);
        p0 = srt_session_pos(a);
        while (n < 200 && !eog) {
            int32_t x, y = -1;
            if (srt_session_next(a, &x) != SRT_OK) { printf("# %s\n", srt_last_error()); break; }
            n++;
            eog = srt_token_is_eog(m, x);
            if (seed == 0 && a->g_on == 0 && srt_session_next(b, &y) == SRT_OK && x != y) same = 0;   /* before the trigger */
        }
        text_of(m, srt_session_tokens(a) + p0, n, text, sizeof text);
        at = strstr(text, trig);
        if (at) {
            n_trig++;
            srt_grammar_match(g, at, strlen(at), &r);
            if (!strncmp(at, " Lily said: ", 12)) srt__json_call(at + 12, &call);
        }
        if (seed == 0)
            CHECK(at && same && eog && r == FULL && call.name && call.arguments, "lazy, greedy: the free text as without a grammar, then a call and EOS: \"%s\"", oneline(at ? at : text));
        else
            CHECK(!at || (eog ? r == FULL : r & PRE), "lazy, temperature 1 seed %d: %s: \"%s\"", seed, at ? "from the trigger, in the grammar" : "no trigger", oneline(at ? at : text));
        srt_session_destroy(a); srt_session_destroy(b);
    }
    CHECK(n_trig >= 3, "lazy: the trigger came in %d of 7 runs (the temperature runs check something)", n_trig);
    {   /* refusals; input starts the text again before the trigger */
        srt_session *a = new_session(m, 0.0f, 0, 0.0f, 0);
        const char *empty = "", *many[65];
        int i;
        for (i = 0; i < 65; i++) many[i] = "x";
        CHECK(srt_session_set_grammar_lazy(a, g, &empty, 1) == SRT_ERR_INVALID_ARG && srt_session_set_grammar_lazy(a, g, many, 65) == SRT_ERR_INVALID_ARG &&
              srt_session_set_grammar_lazy(a, g, NULL, 1) == SRT_ERR_INVALID_ARG && !a->gram, "lazy: an empty trigger, 65 of them, NULL refused");
        srt_session_prompt(a, "Once upon a time", 0);
        srt_session_set_grammar_lazy(a, g, &trig, 1);
        for (i = 0; i < 200 && !a->g_on; i++) { int32_t x; srt_session_next(a, &x); }
        CHECK(a->g_on, "lazy: on after the trigger");
        srt_session_prompt(a, " Then", 0);
        CHECK(!a->g_on && a->gtext_n == 0, "lazy: input starts the text again, before the trigger");
        srt_session_destroy(a);
    }
    free(g);
}

/* A chat's tool grammar (srt_chat_desc.tool_grammar) on stories260K packed with a template that has
   Qwen's tool blocks: the session holds the lazy grammar while the chat lives; stories260K never
   writes "<tool_call>", so the replies are those of a chat without it. */
static void test_chat_tools(void) {
    FILE *f = fopen("build/tmp/grammar-tools.jinja", "wb");
    srt_model *m = NULL;
    srt_model_desc md;
    srt_session *s = NULL, *s2 = NULL;
    srt_chat *c = NULL, *c2 = NULL;
    srt_chat_desc cd;
    int turn;
    if (f) { fputs("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{# <tool_call> <tool_response> #}", f); fclose(f); }
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (system("build/srt-pack -q --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin --chat-template build/tmp/grammar-tools.jinja "
               SRT_SHARED "/models/stories260K/stories260K.bin build/tmp/grammar-tools.srt > build/tmp/grammar_pack.log 2>&1") != 0 ||
        srt_model_load("build/tmp/grammar-tools.srt", &md, &m) != SRT_OK) { CHECK(0, "stories260K with a tools template packed"); return; }
    {   /* the tools take 560 tokens of stories260K's vocabulary */
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 2048;
        if (srt_session_create(m, &sd, &s) != SRT_OK || srt_session_create(m, &sd, &s2) != SRT_OK) { CHECK(0, "sessions of 2048"); srt_session_destroy(s); srt_model_free(m); return; }
    }
    memset(&cd, 0, sizeof cd);
    cd.tool_grammar = 1;
    CHECK(srt_chat_create(s, &cd, &c) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "without tools") && !s->gram, "tool_grammar without tools refused");
    cd.tools = tools_json;
    CHECK(srt_chat_create(s, &cd, &c) == SRT_OK && s->gram && s->n_gtrig == 1 && !strcmp(s->gtrig, "<tool_call>"), "a chat with tool_grammar: the session's lazy grammar, trigger <tool_call>");
    cd.tool_grammar = 0;
    CHECK(srt_chat_create(s2, &cd, &c2) == SRT_OK && !s2->gram, "the same chat without it");
    for (turn = 0; c && c2 && turn < 2; turn++) {
        static const char *const q[2] = {"Weather in Paris?", "And tomorrow?"};
        const srt_chat_message *ms, *ms2;
        int32_t t;
        int end = 0, end2 = 0, nm, nm2, i = 0;
        if (srt_chat_send(c, q[turn], NULL) != SRT_OK || srt_chat_send(c2, q[turn], NULL) != SRT_OK) { CHECK(0, "tool grammar, turn %d sent: %s", turn, srt_last_error()); break; }
        while (i++ < 60 && srt_chat_next(c, &t, &end) == SRT_OK && end == SRT_CHAT_GOING) {}
        i = 0;
        while (i++ < 60 && srt_chat_next(c2, &t, &end2) == SRT_OK && end2 == SRT_CHAT_GOING) {}
        ms = srt_chat_messages(c, &nm);
        ms2 = srt_chat_messages(c2, &nm2);
        CHECK(end == end2 && !strcmp(ms[nm - 1].content, ms2[nm2 - 1].content), "tool grammar, turn %d: no call, the reply of a chat without it: \"%s\"", turn, oneline(ms[nm - 1].content));
    }
    srt_chat_destroy(c);
    CHECK(!s->gram, "srt_chat_destroy removes the tool grammar");
    srt_chat_destroy(c2);
    srt_session_destroy(s); srt_session_destroy(s2);
    srt_model_free(m);
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
    {   /* --json-schema */
        static const char *const schema = "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}, \"age\": {\"type\": \"integer\"}}, \"required\": [\"name\", \"age\"]}";
        char g[4096];
        size_t n;
        int r = -1;
        f = fopen("build/tmp/grammar-schema.json", "wb");
        if (f) { fputs(schema, f); fclose(f); }
        rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p \"Once upon a time\" --json-schema build/tmp/grammar-schema.json -n 100 > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
        out = read_output("build/tmp/grammar-cli.txt");
        if (out && strlen(out) >= 16 && srt_grammar_from_json_schema(schema, g, sizeof g, &n) == SRT_OK) srt_grammar_match(g, out + 16, strlen(out + 16), &r);
        CHECK(rc == 0 && r > 0, "srt-chat --json-schema: \"%s\" (%d)", oneline(out ? out + 16 : ""), r);
        free(out);
        f = fopen("build/tmp/grammar-schema.json", "wb");
        if (f) { fputs("{\"type\": \"bogus\"}", f); fclose(f); }
        rc = system("build/srt-chat -m build/tmp/grammar_stories.srt -p x --json-schema build/tmp/grammar-schema.json > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
        out = read_output("build/tmp/grammar-cli.err");
        CHECK(rc != 0 && out && strstr(out, "JSON schema: a type that is not"), "srt-chat --json-schema with a bad schema: \"%s\"", out ? out : "");
        free(out);
    }
    {   /* --tool-grammar: with --tools only; stories260K makes no call, so the replies are those without it */
        char *a, *b;
        f = fopen("build/tmp/grammar-tools.json", "wb");
        if (f) { fputs(tools_json, f); fclose(f); }
        rc = system("build/srt-chat -m build/tmp/grammar-tools.srt --tool-grammar -p x > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
        out = read_output("build/tmp/grammar-cli.err");
        CHECK(rc != 0 && out && strstr(out, "--tool-grammar needs --tools"), "srt-chat --tool-grammar without --tools refused: \"%s\"", out ? out : "");
        free(out);
        rc = system("printf 'Weather in Paris?\\nAnd tomorrow?\\n' | build/srt-chat -m build/tmp/grammar-tools.srt --tools build/tmp/grammar-tools.json --tool-grammar -c 2048 -n 40 --temp 0 > build/tmp/grammar-cli.txt 2>build/tmp/grammar-cli.err");
        rc |= system("printf 'Weather in Paris?\\nAnd tomorrow?\\n' | build/srt-chat -m build/tmp/grammar-tools.srt --tools build/tmp/grammar-tools.json -c 2048 -n 40 --temp 0 > build/tmp/grammar-cli2.txt 2>build/tmp/grammar-cli.err");
        a = read_output("build/tmp/grammar-cli.txt");
        b = read_output("build/tmp/grammar-cli2.txt");
        CHECK(rc == 0 && a && b && a[0] && !strcmp(a, b), "srt-chat --tools --tool-grammar: the replies without a call as without it: \"%s\"", oneline(a ? a : ""));
        free(a); free(b);
    }
}

int main(void) {
    srt_model *m = NULL;
    srt_model_desc md;
    if (system("mkdir -p build/tmp") != 0) { printf("FAIL - cannot make build/tmp\n"); return 1; }
    test_match();
    test_refused();
    test_schema();
    test_tool_grammars();
    test_masks();
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (system("build/srt-pack -q --weights f32 " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/grammar_stories.srt > build/tmp/grammar_pack.log 2>&1") != 0 ||
        srt_model_load("build/tmp/grammar_stories.srt", &md, &m) != SRT_OK)
        CHECK(0, "stories260K packed (see build/tmp/grammar_pack.log)");
    else {
        test_stories(m);
        test_tokens(m);
        test_sampling(m);
        test_chat(m);
        test_lazy(m);
        test_chat_tools();
        test_cli();
    }
    srt_model_free(m);
    return srt_test_finish();
}
