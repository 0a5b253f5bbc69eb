/* test_json - tools/srt_json.h: what it accepts, what it refuses and the messages it gives. */
#define SRT_JSON_IMPLEMENTATION
#include "tools/srt_json.h"
#include "testing.h"

#include <math.h>
#include <stdlib.h>

static srtj_doc *parse(const char *text, size_t len, const srtj_options *opt, char *err, size_t errlen) {
    srtj_doc *d = NULL;
    if (srtj_parse(text, len, opt, &d, err, errlen) != 0) return NULL;
    return d;
}
#define P(text) parse(text, sizeof(text) - 1, NULL, err, sizeof err)

/* refused, with `want` in the message and the error at byte `at` */
static void bad(const char *name, const char *text, size_t len, const char *want, long at) {
    char err[256], head[64];
    srtj_doc *d = parse(text, len, NULL, err, sizeof err);
    snprintf(head, sizeof head, "JSON error at byte %ld ", at);
    CHECK(!d && strstr(err, want) && (at < 0 || strncmp(err, head, strlen(head)) == 0), "refuses %s: %s", name, err);
    srtj_free(d);
}
#define BAD(name, text, want, at) bad(name, text, sizeof(text) - 1, want, at)

static void test_good(void) {
    char err[256];
    srtj_doc *d;
    const srtj_value *r, *v;
    int64_t i;
    double x;
    int b;

    d = P("{\"a\": 1, \"b\": [true, false, null], \"c\": \"x\", \"d\": {}, \"e\": []}");
    r = srtj_root(d);
    CHECK(d && srtj_is(r, SRTJ_OBJECT) && r->n == 5 && srtj_count(d) == 9, "object with 5 members, 9 values (%s)", err);
    CHECK(srtj_int(srtj_get(r, "a"), &i) && i == 1, "integer member");
    v = srtj_get(r, "b");
    CHECK(srtj_is(v, SRTJ_ARRAY) && v->n == 3 && srtj_bool(srtj_at(v, 0), &b) && b == 1 && srtj_bool(srtj_at(v, 1), &b) && b == 0 &&
          srtj_is(srtj_at(v, 2), SRTJ_NULL) && !srtj_at(v, 3), "array of true, false, null");
    CHECK(srtj_string(srtj_get(r, "c")) && strcmp(srtj_string(srtj_get(r, "c")), "x") == 0, "string member");
    CHECK(srtj_get(r, "d")->n == 0 && !srtj_first(srtj_get(r, "d")) && srtj_get(r, "e")->n == 0, "empty object and array");
    CHECK(!srtj_get(r, "zz") && !srtj_get(v, "a") && !srtj_string(v) && !srtj_int(v, &i), "missing keys and wrong types give NULL / 0");
    CHECK(strcmp(srtj_first(r)->key, "a") == 0 && strcmp(srtj_next(srtj_first(r))->key, "b") == 0, "members in document order");
    srtj_free(d);

    d = P("\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e\"");
    CHECK(d && strcmp(srtj_root(d)->str, "\xc3\xa9\xf0\x9f\x98\x80\n\t\"\\/\b\f\r h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e") == 0,
          "escapes, a surrogate pair and raw UTF-8 decode (%s)", err);
    srtj_free(d);
    d = P("\"a\\u0000b\"");
    CHECK(d && srtj_root(d)->n == 3 && memcmp(srtj_root(d)->str, "a\0b", 4) == 0, "\\u0000 keeps its NUL, length 3");
    srtj_free(d);

    d = P("[0, -0, 1e10, -1.5E-3, 123456789012345678, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1e308, 1e-400, 0.1, 2.5e+3, 1.0]");
    r = srtj_root(d);
    CHECK(d && r->n == 13, "numbers parse (%s)", err);
    if (d) {
        CHECK(srtj_int(srtj_at(r, 0), &i) && i == 0 && srtj_int(srtj_at(r, 1), &i) && i == 0, "0 and -0 are integers");
        CHECK(srtj_number(srtj_at(r, 2), &x) && x == 1e10 && srtj_number(srtj_at(r, 3), &x) && x == -1.5e-3, "exponents");
        CHECK(srtj_int(srtj_at(r, 4), &i) && i == 123456789012345678ll, "18-digit integer exact");
        CHECK(srtj_int(srtj_at(r, 5), &i) && i == INT64_MAX && srtj_int(srtj_at(r, 6), &i) && i == INT64_MIN, "int64 limits exact");
        CHECK(!srtj_at(r, 7)->is_int && srtj_number(srtj_at(r, 7), &x) && x == 9223372036854775808.0, "2^63 is a number, not an int64");
        CHECK(srtj_number(srtj_at(r, 8), &x) && x == 1e308 && srtj_number(srtj_at(r, 9), &x) && x == 0.0, "1e308; 1e-400 underflows to 0");
        CHECK(srtj_number(srtj_at(r, 10), &x) && x == 0.1 && srtj_number(srtj_at(r, 11), &x) && x == 2500.0, "0.1 correctly rounded, 2.5e+3");
        CHECK(!srtj_at(r, 12)->is_int && srtj_int(srtj_at(r, 12), &i) && i == 1, "1.0 is not written as an integer but converts to one");
        CHECK(!srtj_int(srtj_at(r, 10), &i), "0.1 does not convert to an integer");
    }
    srtj_free(d);

    d = P(" \r\n\t 42 \n");
    CHECK(d && srtj_int(srtj_root(d), &i) && i == 42, "top-level number with whitespace");
    srtj_free(d);
    d = P("\xef\xbb\xbf{\"bom\":true}");
    CHECK(d && srtj_bool(srtj_get(srtj_root(d), "bom"), &b) && b, "a leading byte order mark is skipped");
    srtj_free(d);

    {   /* depth */
        char deep[1200];
        srtj_options opt;
        int k;
        for (k = 0; k < 200; k++) deep[k] = '[';
        for (k = 0; k < 200; k++) deep[200 + k] = ']';
        d = parse(deep, 400, NULL, err, sizeof err);
        CHECK(d != NULL, "200 levels of nesting parse");
        srtj_free(d);
        for (k = 0; k < 600; k++) { deep[k] = '['; deep[600 + k] = ']'; }
        d = parse(deep, 1200, NULL, err, sizeof err);
        CHECK(!d && strstr(err, "nesting deeper than 256 levels") && strstr(err, "at byte 256 "), "600 levels refused at byte 256: %s", err);
        memset(&opt, 0, sizeof opt);
        opt.max_depth = 1000;
        d = parse(deep, 1200, &opt, err, sizeof err);
        CHECK(d != NULL, "max_depth 1000 allows 600 levels");
        srtj_free(d);
    }
    {   /* duplicate keys: refused by default, the last one wins when allowed */
        srtj_options opt;
        char big[4096];
        int k, n = 0;
        BAD("a duplicate key", "{\"a\":1,\"b\":2,\"a\":3}", "duplicate key \"a\"", 13);
        memset(&opt, 0, sizeof opt);
        opt.allow_duplicate_keys = 1;
        d = parse("{\"a\":1,\"b\":2,\"a\":3}", 19, &opt, err, sizeof err);
        CHECK(d && srtj_root(d)->n == 3 && srtj_int(srtj_get(srtj_root(d), "a"), &i) && i == 3, "allow_duplicate_keys keeps all, srtj_get returns the last");
        srtj_free(d);
        n += snprintf(big + n, sizeof big - (size_t)n, "{");
        for (k = 0; k < 100; k++) n += snprintf(big + n, sizeof big - (size_t)n, "%s\"k%d\":%d", k ? "," : "", k, k);
        n += snprintf(big + n, sizeof big - (size_t)n, "}");
        d = parse(big, (size_t)n, NULL, err, sizeof err);
        CHECK(d && srtj_root(d)->n == 100 && srtj_int(srtj_get(srtj_root(d), "k77"), &i) && i == 77, "100 distinct keys (hashed check)");
        srtj_free(d);
        n--;
        n += snprintf(big + n, sizeof big - (size_t)n, ",\"k42\":0}");
        d = parse(big, (size_t)n, NULL, err, sizeof err);
        CHECK(!d && strstr(err, "duplicate key \"k42\""), "a duplicate among 101 keys is found: %s", err);
        srtj_free(d);
    }
}

static void test_bad(void) {
    char err[256];
    srtj_doc *d;
    BAD("empty input", "", "unexpected end of input", 0);
    BAD("whitespace only", "  \n ", "unexpected end of input", 4);
    BAD("an unterminated object", "{", "unexpected end of input in an object", 1);
    BAD("a trailing comma in an array", "[1,]", "trailing comma", 3);
    BAD("a trailing comma in an object", "{\"a\":1,}", "trailing comma", 7);
    BAD("an unquoted key", "{a:1}", "expected a string key", 1);
    BAD("single quotes", "'x'", "unexpected character '''", 0);
    BAD("a leading zero", "01", "leading zeros", 0);
    BAD("'1.'", "1.", "a digit must follow the decimal point", 2);
    BAD("'.5'", ".5", "unexpected character '.'", 0);
    BAD("'+1'", "+1", "unexpected character '+'", 0);
    BAD("a lone minus", "-", "needs a digit after '-'", 0);
    BAD("'1e'", "1e", "the exponent needs a digit", 2);
    BAD("'1e+'", "1e+", "the exponent needs a digit", 3);
    BAD("NaN", "NaN", "unexpected character 'N'", 0);
    BAD("Infinity", "[Infinity]", "unexpected character 'I'", 1);
    BAD("an overflowing number", "[1, 1e999]", "out of the range of a double", 4);
    BAD("'tru'", "tru", "expected 'true'", 0);
    BAD("'nul'", "[nul]", "expected 'null'", 1);
    BAD("a missing comma", "[1 2]", "expected ',' or ']'", 3);
    BAD("a missing colon", "{\"a\" 1}", "expected ':' after an object key", 5);
    BAD("an unterminated string", "\"abc", "unterminated string", 0);
    BAD("an unknown escape", "\"a\\x\"", "invalid escape '\\x'", 2);
    BAD("a short \\u escape", "\"\\u12\"", "4 hex digits", 1);
    BAD("a lone high surrogate", "\"\\ud800\"", "not followed by a low surrogate", 1);
    BAD("a lone low surrogate", "\"\\udc00\"", "lone low surrogate", 1);
    BAD("a high surrogate before a non-surrogate", "\"\\ud800\\u0041\"", "not followed by a low surrogate", 1);
    BAD("a raw control character", "\"a\x01\"", "raw control character 0x01", 2);
    BAD("a raw NUL inside a string", "\"a\0b\"", "raw control character 0x00", 2);
    BAD("an overlong UTF-8 form", "\"\xc0\xaf\"", "invalid UTF-8 byte 0xC0", 1);
    BAD("a UTF-8 surrogate", "\"\xed\xa0\x80\"", "invalid UTF-8 byte 0xED", 1);
    BAD("UTF-8 above U+10FFFF", "\"\xf4\x90\x80\x80\"", "invalid UTF-8 byte 0xF4", 1);
    BAD("truncated UTF-8", "\"\xe2\x82\"", "invalid UTF-8 byte 0xE2", 1);
    BAD("a stray continuation byte", "\"\x80\"", "invalid UTF-8 byte 0x80", 1);
    BAD("data after the value", "1 2", "unexpected data after the top-level value", 2);
    BAD("a comment", "/*c*/1", "unexpected character '/'", 0);
    BAD("a binary byte", "\xff", "unexpected byte 0xFF", 0);
    BAD("an unexpected closing bracket", "[1}", "expected ',' or ']'", 2);
    d = P("{\n  \"a\": [1,\n  2,, 3]}");
    CHECK(!d && strcmp(err, "JSON error at byte 17 (line 3, column 5): unexpected character ',' (expected a value)") == 0,
          "message names byte, line and column: %s", err);
    CHECK(srtj_parse("{}", 2, NULL, NULL, err, sizeof err) != 0, "NULL out pointer refused");
    d = NULL;
    CHECK(srtj_parse(NULL, 0, NULL, &d, err, sizeof err) != 0 && !d, "NULL empty text refused");
    CHECK(srtj_parse("[1]", 3, NULL, &d, NULL, 0) == 0 && d, "a NULL error buffer is fine");
    srtj_free(d);
    srtj_free(NULL);
    CHECK(!srtj_root(NULL) && !srtj_get(NULL, "a") && !srtj_first(NULL) && srtj_count(NULL) == 0, "NULL documents and values are harmless");
}

static void test_real_file(void) {
    size_t n = 0;
    char *text = srt_test_read_file(SRT_SHARED "/models/smollm2-135m-instruct/tokenizer.json", &n);
    char err[256];
    srtj_doc *d;
    const srtj_value *model;
    int64_t id;
    if (!text) { CHECK(0, "read SmolLM2 tokenizer.json"); return; }
    d = parse(text, n, NULL, err, sizeof err);
    model = srtj_get(srtj_root(d), "model");
    CHECK(d && srtj_get(model, "vocab") && srtj_get(model, "vocab")->n == 49152 && srtj_get(model, "merges")->n == 48900,
          "SmolLM2 tokenizer.json: 49152 vocab entries, 48900 merges (%s)", err);
    CHECK(srtj_int(srtj_get(srtj_get(model, "vocab"), "<|im_end|>"), &id) && id == 2, "vocab lookup <|im_end|> = 2");
    srtj_free(d);
    free(text);
}

int main(void) {
    test_good();
    test_bad();
    test_real_file();
    return srt_test_finish();
}
