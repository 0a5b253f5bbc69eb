/* fuzz_json.c - fuzz target for tools/srt_json.h (builds and the plain replay main: see
   tests/fuzz_common.h; the seeds are tests/fuzz/json/, none are generated).

   The target checks more than "no crash": a document that parses is written back out as JSON,
   that text must parse again, and the two trees must be equal (types, strings byte for byte,
   numbers, keys, order). */
#define FZ_NAME "fuzz_json"
#define FZ_PER_SEED 2000
#define FZ_DICT {"{", "}", "[", "]", "\"", ",", ":", "\\", "0", "-", ".", "e", "E+", "true", "false", "null", \
                 "\\ud800", "\\udc00", "\\u0000", "\\uD83D", "\\uDE00", "\\u00e9", "\x7f", "\x80", "\xbf", \
                 "\xc3\xa9", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xef\xbb\xbf", " ", "\n", NULL}
#include "tests/fuzz_common.h"
#define SRT_JSON_IMPLEMENTATION
#include "tools/srt_json.h"

static void fz_str(fz_buf *b, const char *s, size_t n) {
    size_t i;
    fz_put(b, "\"", 1);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { char e[2]; e[0] = '\\'; e[1] = (char)c; fz_put(b, e, 2); }
        else if (c < 0x20) { char e[8]; snprintf(e, sizeof e, "\\u%04x", c); fz_put(b, e, 6); }
        else fz_put(b, s + i, 1);
    }
    fz_put(b, "\"", 1);
}
static void fz_write(fz_buf *b, const srtj_value *v) {
    char num[40];
    const srtj_value *c;
    switch (v->type) {
        case SRTJ_NULL: fz_put(b, "null", 4); break;
        case SRTJ_TRUE: fz_put(b, "true", 4); break;
        case SRTJ_FALSE: fz_put(b, "false", 5); break;
        case SRTJ_NUMBER:
            if (v->is_int) snprintf(num, sizeof num, "%lld", (long long)v->i);
            else {   /* keep it a non-integer literal so that is_int round-trips */
                snprintf(num, sizeof num, "%.17g", v->num);
                if (!strpbrk(num, ".eE")) strcat(num, ".0");
            }
            fz_put(b, num, strlen(num));
            break;
        case SRTJ_STRING: fz_str(b, v->str, v->n); break;
        case SRTJ_ARRAY: case SRTJ_OBJECT:
            fz_put(b, v->type == SRTJ_ARRAY ? "[" : "{", 1);
            for (c = v->first; c; c = c->next) {
                if (c != v->first) fz_put(b, ",", 1);
                if (v->type == SRTJ_OBJECT) { fz_str(b, c->key, c->key_len); fz_put(b, ":", 1); }
                fz_write(b, c);
            }
            fz_put(b, v->type == SRTJ_ARRAY ? "]" : "}", 1);
            break;
    }
}
static int fz_valid_utf8(const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t k;
        if ((unsigned char)s[i] < 0x80) { i++; continue; }
        k = srtj__utf8_len((const unsigned char *)s + i, n - i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}
/* Structural equality; also checks the invariants of every value. */
static int fz_equal(const srtj_value *a, const srtj_value *b) {
    const srtj_value *x, *y;
    uint32_t count = 0;
    if (a->type != b->type || a->n != b->n) return 0;
    if (a->key_len != b->key_len || (a->key && (!b->key || memcmp(a->key, b->key, a->key_len) != 0))) return 0;
    if (a->key && (a->key[a->key_len] != 0 || !fz_valid_utf8(a->key, a->key_len))) return 0;
    switch (a->type) {
        case SRTJ_STRING:
            if (a->str[a->n] != 0 || !fz_valid_utf8(a->str, a->n)) return 0;
            return memcmp(a->str, b->str, a->n) == 0;
        case SRTJ_NUMBER:
            if (a->is_int != b->is_int || (a->is_int && a->i != b->i)) return 0;
            return a->num == b->num;
        case SRTJ_ARRAY: case SRTJ_OBJECT:
            for (x = a->first, y = b->first; x && y; x = x->next, y = y->next) {
                if (!fz_equal(x, y)) return 0;
                count++;
            }
            return !x && !y && count == a->n;
        default: return 1;
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    srtj_doc *d1 = NULL, *d2 = NULL;
    char err[256];
    srtj_options opt;
    fz_buf b = {NULL, 0, 0};
    memset(&opt, 0, sizeof opt);
    opt.allow_duplicate_keys = size > 0 && (data[size - 1] & 1);   /* exercise both policies */
    if (srtj_parse((const char *)data, size, &opt, &d1, err, sizeof err) != 0) {
        if (d1 || strncmp(err, "JSON error at byte ", 19) != 0) abort();
        return 0;
    }
    fz_write(&b, srtj_root(d1));
    if (srtj_parse((const char *)b.p, b.n, &opt, &d2, err, sizeof err) != 0) {
        fprintf(stderr, "re-parse failed: %s\n%.*s\n", err, (int)(b.n < 300 ? b.n : 300), (const char *)b.p);
        abort();
    }
    if (!fz_equal(srtj_root(d1), srtj_root(d2)) || srtj_count(d1) != srtj_count(d2)) { fprintf(stderr, "round trip differs\n"); abort(); }
    free(b.p);
    srtj_free(d1);
    srtj_free(d2);
    return 0;
}

static int fz_make_seeds(const char *dir) { (void)dir; return 0; }   /* the committed seeds only */
