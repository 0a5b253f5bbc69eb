/* fuzz_json.c - fuzz target for tools/srt_json.h.

   libFuzzer:
       clang -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -DSRT_FUZZ_LIBFUZZER -I. \
           tests/fuzz_json.c -o build/fuzz_json_lf -lm
       build/fuzz_json_lf tests/fuzz/json          (the seed corpus)
   Plain build (what ./build.sh test runs): a main() that feeds every seed file given on the
   command line, plus a few hundred deterministic mutations of each (bit flips, JSON-ish bytes,
   deletions, duplications, truncations), through the same target. Under ./build.sh test asan this
   is a small sanitizer-checked fuzz run.

   The target checks more than "no crash": a document that parses is written back out as JSON,
   that text must parse again, and the two trees must be equal (types, strings byte for byte,
   numbers, keys, order). */
#define SRT_JSON_IMPLEMENTATION
#include "tools/srt_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fz_buf { char *p; size_t n, cap; } fz_buf;
static void fz_put(fz_buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *np = (char *)realloc(b->p, cap);
        if (!np) abort();
        b->p = np; b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
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

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
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
    if (srtj_parse(b.p, b.n, &opt, &d2, err, sizeof err) != 0) {
        fprintf(stderr, "re-parse failed: %s\n%.*s\n", err, (int)(b.n < 300 ? b.n : 300), b.p);
        abort();
    }
    if (!fz_equal(srtj_root(d1), srtj_root(d2)) || srtj_count(d1) != srtj_count(d2)) { fprintf(stderr, "round trip differs\n"); abort(); }
    free(b.p);
    srtj_free(d1);
    srtj_free(d2);
    return 0;
}

#ifndef SRT_FUZZ_LIBFUZZER
static uint64_t fz_rng = 0x9E3779B97F4A7C15ull;
static uint32_t fz_rand(void) { fz_rng ^= fz_rng << 13; fz_rng ^= fz_rng >> 7; fz_rng ^= fz_rng << 17; return (uint32_t)(fz_rng >> 11); }

static size_t fz_mutate(unsigned char *buf, size_t n, size_t cap) {
    static const char alphabet[] = "{}[]\",:\\/0123456789eE+-.tfnrule \n\t\x00\x7f\x80\xbf\xc3\xa9\xed\xa0\xf4\x90\xef\xbb";
    int edits = 1 + (int)(fz_rand() % 4), e;
    for (e = 0; e < edits; e++) {
        size_t at = n ? fz_rand() % n : 0, k;
        switch (fz_rand() % 7) {
            case 0: if (n) buf[at] ^= (unsigned char)(1u << (fz_rand() % 8)); break;
            case 1: if (n) buf[at] = (unsigned char)alphabet[fz_rand() % (sizeof alphabet - 1)]; break;
            case 2: if (n < cap) { memmove(buf + at + 1, buf + at, n - at); buf[at] = (unsigned char)alphabet[fz_rand() % (sizeof alphabet - 1)]; n++; } break;
            case 3: k = n - at ? 1 + fz_rand() % (n - at) : 0; if (k > 8) k = 8; memmove(buf + at, buf + at + k, n - at - k); n -= k; break;
            case 4: k = 1 + fz_rand() % 16; if (at + k > n) k = n - at; if (n + k <= cap) { memmove(buf + at + k, buf + at, n - at); n += k; } break;
            case 5: n = at; break;
            default:
                if (n + 6 <= cap) {
                    static const char *const esc[] = {"\\ud800", "\\udc00", "\\u0000", "\\uD83D", "\\uDE00", "\\u00e9"};
                    memmove(buf + at + 6, buf + at, n - at);
                    memcpy(buf + at, esc[fz_rand() % 6], 6);
                    n += 6;
                }
        }
    }
    return n;
}

int main(int argc, char **argv) {
    int i, per_seed = 2000;
    long inputs = 0, seeds = 0;
    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        unsigned char *seed, *buf;
        size_t n, cap;
        long len;
        int m;
        if (!f) { printf("FAIL - fuzz_json: cannot open %s\n", argv[i]); return 1; }
        fseek(f, 0, SEEK_END);
        len = ftell(f);
        fseek(f, 0, SEEK_SET);
        if (len < 0 || len > (1 << 20)) { fclose(f); printf("FAIL - fuzz_json: %s is not a small seed\n", argv[i]); return 1; }
        seed = (unsigned char *)malloc((size_t)len + 1);
        cap = (size_t)len * 2 + 64;
        buf = (unsigned char *)malloc(cap);
        if (!seed || !buf || fread(seed, 1, (size_t)len, f) != (size_t)len) { fclose(f); printf("FAIL - fuzz_json: cannot read %s\n", argv[i]); return 1; }
        fclose(f);
        LLVMFuzzerTestOneInput(seed, (size_t)len);
        for (m = 0; m < per_seed; m++) {
            /* exact-size copies so that reading past the end is caught by ASan */
            unsigned char *exact;
            memcpy(buf, seed, (size_t)len);
            n = fz_mutate(buf, (size_t)len, cap);
            exact = (unsigned char *)malloc(n ? n : 1);
            if (!exact) return 1;
            memcpy(exact, buf, n);
            LLVMFuzzerTestOneInput(exact, n);
            free(exact);
        }
        inputs += 1 + per_seed;
        seeds++;
        free(seed);
        free(buf);
    }
    printf("ok - fuzz_json: %ld inputs (%ld seeds + mutations) parsed or refused without a crash, round trips equal\n", inputs, seeds);
    return seeds > 0 ? 0 : 1;
}
#endif
