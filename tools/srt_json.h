/* srt_json.h - a small strict JSON parser (RFC 8259) for the Hugging Face files srt-pack reads
   (config.json, tokenizer.json, tokenizer_config.json, safetensors headers and indexes).

   HOW TO USE
     In exactly one C or C++ file:
         #define SRT_JSON_IMPLEMENTATION
         #include "tools/srt_json.h"
     (tools/srt_import.h does this itself when it is implemented; define it only once per program.)

         srtj_doc *doc; char err[256];
         if (srtj_parse(text, len, NULL, &doc, err, sizeof err)) { fprintf(stderr, "%s\n", err); ... }
         const srtj_value *v = srtj_get(srtj_root(doc), "hidden_size");
         int64_t n;
         if (v && srtj_int(v, &n)) ...
         for (const srtj_value *m = srtj_first(srtj_root(doc)); m; m = srtj_next(m))
             printf("%s\n", m->key);          // members of an object, elements of an array
         srtj_free(doc);

   WHAT IS ACCEPTED (strict RFC 8259; anything else is an error with its byte offset)
     - One value of any type at the top, surrounded by optional whitespace (space, tab, CR, LF).
       A leading UTF-8 byte order mark is skipped (RFC 8259 section 8.1 allows ignoring it).
     - Strings must be valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF) and
       contain no raw control characters (< 0x20). Escapes: \" \\ \/ \b \f \n \r \t \uXXXX; a
       \uD800-\uDBFF escape must be followed by a \uDC00-\uDFFF escape (the pair becomes one code
       point); a lone surrogate escape is an error. \u0000 is allowed: the decoded string then
       contains a NUL byte (use the length, not strlen).
     - Numbers follow the grammar exactly (no leading zeros, no '+', no '.5', no 'NaN'/'Infinity'
       and no hex). They are converted to double (correctly rounded by strtod, independent of the
       C locale); a finite number whose magnitude overflows a double is an error. Integers that fit
       in int64 are also kept exactly (srtj_int).
     - No comments, no trailing commas, no single quotes, no unquoted keys.
     - Nesting deeper than srtj_options.max_depth (default 256) is an error (no stack overflow).
     - Duplicate keys in one object: an error by default (the RFC leaves the meaning open, and two
       readers could disagree on which one counts). With srtj_options.allow_duplicate_keys every
       member is kept in order and srtj_get() returns the LAST one, as Python's json module does.

   ERRORS
     srtj_parse() returns 0 on success, nonzero on failure with a message like
       "JSON error at byte 1234 (line 5, column 17): expected ':' after an object key"
     Any input - truncated, binary, hostile - gives an error, never a crash or a read outside it.

   CONFIGURATION
     SRTJ_API (default extern), SRTJ_STATIC (make the functions static).
     SRTJ_MALLOC(sz), SRTJ_REALLOC(p,sz), SRTJ_FREE(p): allocation (define all three or none).

   LICENSE
     MIT. Copyright (c) 2026 the sparsert authors.
*/
#ifndef SRT_JSON_H
#define SRT_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifndef SRTJ_API
#  ifdef SRTJ_STATIC
#    define SRTJ_API static
#  else
#    define SRTJ_API extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srtj_type {
    SRTJ_NULL = 0, SRTJ_FALSE = 1, SRTJ_TRUE = 2, SRTJ_NUMBER = 3, SRTJ_STRING = 4, SRTJ_ARRAY = 5, SRTJ_OBJECT = 6
} srtj_type;

/* One value. All pointers stay valid until srtj_free(). */
typedef struct srtj_value {
    srtj_type type;
    uint32_t n;                     /* STRING: bytes (without the terminating NUL); ARRAY/OBJECT: children */
    const char *str;                /* STRING: decoded UTF-8, NUL-terminated; NULL otherwise */
    double num;                     /* NUMBER */
    int64_t i;                      /* NUMBER: the exact value when is_int */
    int is_int;                     /* NUMBER: 1 if written without fraction/exponent and it fits in int64 */
    const char *key;                /* member of an OBJECT: decoded key, NUL-terminated; NULL otherwise */
    uint32_t key_len;
    uint32_t offset;                /* byte offset of the value in the input (for messages) */
    const struct srtj_value *first; /* ARRAY/OBJECT: first child; NULL if empty */
    const struct srtj_value *next;  /* next sibling in the parent; NULL for the last */
} srtj_value;

typedef struct srtj_options {
    int max_depth;                  /* 0 = 256 */
    int allow_duplicate_keys;       /* 0 = a duplicate key is an error */
} srtj_options;

typedef struct srtj_doc srtj_doc;

/* Parses len bytes of text (need not be NUL-terminated). opt may be NULL. 0 = ok. */
SRTJ_API int srtj_parse(const char *text, size_t len, const srtj_options *opt, srtj_doc **out, char *err, size_t errlen);
SRTJ_API void srtj_free(srtj_doc *doc);
SRTJ_API const srtj_value *srtj_root(const srtj_doc *doc);
SRTJ_API size_t srtj_count(const srtj_doc *doc);    /* values in the document */

/* Lookups; each returns NULL / 0 when v is NULL or not of the right type. */
SRTJ_API const srtj_value *srtj_get(const srtj_value *obj, const char *key);  /* last member with that key */
SRTJ_API const srtj_value *srtj_at(const srtj_value *arr, uint32_t index);    /* O(index) */
SRTJ_API const srtj_value *srtj_first(const srtj_value *v);
SRTJ_API const srtj_value *srtj_next(const srtj_value *v);
SRTJ_API int srtj_is(const srtj_value *v, srtj_type t);
SRTJ_API const char *srtj_string(const srtj_value *v);              /* NULL unless a string */
SRTJ_API int srtj_number(const srtj_value *v, double *out);         /* 1 if a number */
SRTJ_API int srtj_int(const srtj_value *v, int64_t *out);           /* 1 if an integer that fits int64 */
SRTJ_API int srtj_bool(const srtj_value *v, int *out);              /* 1 if true/false */
SRTJ_API const char *srtj_type_name(srtj_type t);                  /* "null", "string", ... */

#ifdef __cplusplus
}
#endif
#endif /* SRT_JSON_H */

/* ============================================================================================ */
#ifdef SRT_JSON_IMPLEMENTATION
#ifndef SRT_JSON_IMPLEMENTATION_DONE
#define SRT_JSON_IMPLEMENTATION_DONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <locale.h>
#include <math.h>

#ifndef SRTJ_MALLOC
#  define SRTJ_MALLOC(sz) malloc(sz)
#  define SRTJ_REALLOC(p, sz) realloc(p, sz)
#  define SRTJ_FREE(p) free(p)
#endif

/* Values are built in one growing array and linked by index while parsing (the array moves as it
   grows); a last pass turns the indices into pointers. Strings are decoded into one buffer of
   len + 1 bytes: a decoded string plus its NUL is never longer than its quoted source. */
typedef struct srtj__node {
    srtj_value v;
    uint32_t first, next;          /* indices + 1; 0 = none */
} srtj__node;

struct srtj_doc {
    srtj__node *nodes;
    size_t n_nodes;
    char *strings;
};

typedef struct srtj__parser {
    const unsigned char *p;        /* input */
    size_t len, pos;
    srtj__node *nodes;
    size_t n_nodes, cap_nodes;
    char *strings;
    size_t n_strings;
    int max_depth, allow_dup;
    uint32_t *scratch;             /* duplicate-key hash table */
    size_t cap_scratch;
    char *err;
    size_t errlen;
    int failed;
} srtj__parser;

static int srtj__fail(srtj__parser *ps, size_t at, const char *fmt, ...) {
    char msg[200];
    size_t i;
    int line = 1, col = 1;
    va_list ap;
    if (ps->failed) return 1;
    ps->failed = 1;
    if (!ps->err || ps->errlen == 0) return 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (at > ps->len) at = ps->len;
    for (i = 0; i < at; i++) {
        if (ps->p[i] == '\n') { line++; col = 1; }
        else col++;
    }
    snprintf(ps->err, ps->errlen, "JSON error at byte %lu (line %d, column %d): %s", (unsigned long)at, line, col, msg);
    return 1;
}

static void srtj__ws(srtj__parser *ps) {
    while (ps->pos < ps->len) {
        unsigned char c = ps->p[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        ps->pos++;
    }
}

/* Appends a value; returns its index + 1, or 0 when out of memory. */
static uint32_t srtj__new(srtj__parser *ps, srtj_type t, size_t at) {
    srtj__node *nd;
    if (ps->n_nodes == ps->cap_nodes) {
        size_t cap = ps->cap_nodes ? ps->cap_nodes * 2 : 64;
        srtj__node *nn;
        if (cap > 0xfffffffeu || cap > (size_t)-1 / sizeof(srtj__node)) { srtj__fail(ps, at, "too many values"); return 0; }
        nn = (srtj__node *)SRTJ_REALLOC(ps->nodes, cap * sizeof(srtj__node));
        if (!nn) { srtj__fail(ps, at, "out of memory"); return 0; }
        ps->nodes = nn;
        ps->cap_nodes = cap;
    }
    nd = &ps->nodes[ps->n_nodes++];
    memset(nd, 0, sizeof *nd);
    nd->v.type = t;
    nd->v.offset = (uint32_t)at;
    return (uint32_t)ps->n_nodes;
}

static int srtj__hex4(const unsigned char *s, uint32_t *out) {
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        unsigned char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t srtj__utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t need, k;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) need = 2;
    else if (c >= 0xE0 && c <= 0xEF) { need = 3; if (c == 0xE0) lo = 0xA0; else if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { need = 4; if (c == 0xF0) lo = 0x90; else if (c == 0xF4) hi = 0x8F; }
    else return 0;
    if (n < need) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (k = 2; k < need; k++) if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    return need;
}

static size_t srtj__put_utf8(char *o, uint32_t cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string at ps->pos (on the opening quote); decoded text goes to ps->strings. */
static int srtj__string(srtj__parser *ps, const char **out, uint32_t *out_len) {
    size_t start = ps->pos, o0 = ps->n_strings;
    char *o = ps->strings + ps->n_strings;
    size_t i = ps->pos + 1;
    const unsigned char *p = ps->p;
    for (;;) {
        unsigned char c;
        if (i >= ps->len) return srtj__fail(ps, start, "unterminated string");
        c = p[i];
        if (c == '"') { i++; break; }
        if (c < 0x20) return srtj__fail(ps, i, "raw control character 0x%02X in a string (escape it)", c);
        if (c == '\\') {
            unsigned char e;
            if (i + 1 >= ps->len) return srtj__fail(ps, start, "unterminated string");
            e = p[i + 1];
            switch (e) {
                case '"': *o++ = '"'; i += 2; break;
                case '\\': *o++ = '\\'; i += 2; break;
                case '/': *o++ = '/'; i += 2; break;
                case 'b': *o++ = '\b'; i += 2; break;
                case 'f': *o++ = '\f'; i += 2; break;
                case 'n': *o++ = '\n'; i += 2; break;
                case 'r': *o++ = '\r'; i += 2; break;
                case 't': *o++ = '\t'; i += 2; break;
                case 'u': {
                    uint32_t cp, lo;
                    if (i + 6 > ps->len || !srtj__hex4(p + i + 2, &cp)) return srtj__fail(ps, i, "\\u must be followed by 4 hex digits");
                    if (cp >= 0xDC00 && cp <= 0xDFFF) return srtj__fail(ps, i, "lone low surrogate \\u%04X", (unsigned)cp);
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (i + 12 > ps->len || p[i + 6] != '\\' || p[i + 7] != 'u' || !srtj__hex4(p + i + 8, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                            return srtj__fail(ps, i, "high surrogate \\u%04X is not followed by a low surrogate escape", (unsigned)cp);
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 12;
                    } else i += 6;
                    o += srtj__put_utf8(o, cp);
                    break;
                }
                default:
                    if (e >= 0x20 && e < 0x7F) return srtj__fail(ps, i, "invalid escape '\\%c'", e);
                    return srtj__fail(ps, i, "invalid escape (byte 0x%02X after '\\')", e);
            }
        } else if (c < 0x80) {
            *o++ = (char)c;
            i++;
        } else {
            size_t k = srtj__utf8_len(p + i, ps->len - i), j;
            if (!k) return srtj__fail(ps, i, "invalid UTF-8 byte 0x%02X in a string", c);
            for (j = 0; j < k; j++) *o++ = (char)p[i + j];
            i += k;
        }
    }
    *o++ = 0;
    ps->pos = i;
    *out = ps->strings + o0;
    *out_len = (uint32_t)((size_t)(o - (ps->strings + o0)) - 1);
    ps->n_strings = (size_t)(o - ps->strings);
    return 0;
}

static int srtj__number(srtj__parser *ps, uint32_t idx) {
    size_t s = ps->pos, i = ps->pos, digits_start;
    const unsigned char *p = ps->p;
    int is_int = 1, neg = 0;
    char small[64], *buf = small;
    double d;
    char *end;
    if (i < ps->len && p[i] == '-') { neg = 1; i++; }
    digits_start = i;
    if (i >= ps->len || p[i] < '0' || p[i] > '9') return srtj__fail(ps, s, "a number needs a digit after '-'");
    if (p[i] == '0') {
        i++;
        if (i < ps->len && p[i] >= '0' && p[i] <= '9') return srtj__fail(ps, s, "leading zeros are not allowed in numbers");
    } else while (i < ps->len && p[i] >= '0' && p[i] <= '9') i++;
    if (i < ps->len && p[i] == '.') {
        is_int = 0;
        i++;
        if (i >= ps->len || p[i] < '0' || p[i] > '9') return srtj__fail(ps, i, "a digit must follow the decimal point");
        while (i < ps->len && p[i] >= '0' && p[i] <= '9') i++;
    }
    if (i < ps->len && (p[i] == 'e' || p[i] == 'E')) {
        is_int = 0;
        i++;
        if (i < ps->len && (p[i] == '+' || p[i] == '-')) i++;
        if (i >= ps->len || p[i] < '0' || p[i] > '9') return srtj__fail(ps, i, "the exponent needs a digit");
        while (i < ps->len && p[i] >= '0' && p[i] <= '9') i++;
    }
    /* strtod on a NUL-terminated copy, with the locale's decimal point (normally '.') */
    if (i - s + 1 > sizeof small) {
        buf = (char *)SRTJ_MALLOC(i - s + 1);
        if (!buf) return srtj__fail(ps, s, "out of memory");
    }
    memcpy(buf, p + s, i - s);
    buf[i - s] = 0;
    {
        const struct lconv *lc = localeconv();
        char dp = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
        if (dp != '.') { char *q = strchr(buf, '.'); if (q) *q = dp; }
    }
    d = strtod(buf, &end);
    if (buf != small) SRTJ_FREE(buf);
    if (!(d - d == 0.0)) return srtj__fail(ps, s, "number out of the range of a double");
    {
        srtj_value *v = &ps->nodes[idx - 1].v;
        v->num = d;
        v->is_int = 0;
        if (is_int) {   /* exact int64 when it fits */
            uint64_t acc = 0, lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
            size_t k;
            int ok = 1;
            for (k = digits_start; k < i; k++) {
                uint64_t dg = (uint64_t)(p[k] - '0');
                if (acc > (lim - dg) / 10) { ok = 0; break; }
                acc = acc * 10 + dg;
            }
            if (ok) {
                v->is_int = 1;
                v->i = neg ? (acc == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
            }
        }
    }
    ps->pos = i;
    return 0;
}

static int srtj__literal(srtj__parser *ps, const char *word) {
    size_t n = strlen(word);
    if (ps->len - ps->pos < n || memcmp(ps->p + ps->pos, word, n) != 0) return srtj__fail(ps, ps->pos, "invalid literal (expected '%s')", word);
    ps->pos += n;
    return 0;
}

static uint32_t srtj__hash(const char *s, uint32_t n) {
    uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }
    return h;
}

/* Refuses duplicate keys among the members of object `obj` (index + 1). */
static int srtj__check_dups(srtj__parser *ps, uint32_t obj) {
    uint32_t n = ps->nodes[obj - 1].v.n, m, k;
    if (n < 2) return 0;
    if (n <= 16) {
        for (m = ps->nodes[obj - 1].first; m; m = ps->nodes[m - 1].next)
            for (k = ps->nodes[m - 1].next; k; k = ps->nodes[k - 1].next) {
                const srtj_value *a = &ps->nodes[m - 1].v, *b = &ps->nodes[k - 1].v;
                if (a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0)
                    return srtj__fail(ps, b->offset, "duplicate key \"%.60s\" in an object", b->key);
            }
        return 0;
    } else {
        size_t size = 1, mask;
        while (size < 2 * (size_t)n) size <<= 1;
        if (size > ps->cap_scratch) {
            uint32_t *ns = (uint32_t *)SRTJ_REALLOC(ps->scratch, size * sizeof(uint32_t));
            if (!ns) return srtj__fail(ps, ps->nodes[obj - 1].v.offset, "out of memory");
            ps->scratch = ns;
            ps->cap_scratch = size;
        }
        memset(ps->scratch, 0, size * sizeof(uint32_t));
        mask = size - 1;
        for (m = ps->nodes[obj - 1].first; m; m = ps->nodes[m - 1].next) {
            const srtj_value *a = &ps->nodes[m - 1].v;
            size_t h = srtj__hash(a->key, a->key_len) & mask;
            while (ps->scratch[h]) {
                const srtj_value *b = &ps->nodes[ps->scratch[h] - 1].v;
                if (a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0)
                    return srtj__fail(ps, a->offset, "duplicate key \"%.60s\" in an object", a->key);
                h = (h + 1) & mask;
            }
            ps->scratch[h] = m;
        }
        return 0;
    }
}

/* Parses one value at ps->pos (whitespace already skipped); returns its index + 1, 0 on error. */
static uint32_t srtj__value(srtj__parser *ps, int depth) {
    unsigned char c;
    uint32_t idx;
    size_t at = ps->pos;
    if (ps->pos >= ps->len) { srtj__fail(ps, ps->pos, "unexpected end of input (expected a value)"); return 0; }
    c = ps->p[ps->pos];
    switch (c) {
        case 'n': if (!(idx = srtj__new(ps, SRTJ_NULL, at)) || srtj__literal(ps, "null")) return 0; return idx;
        case 't': if (!(idx = srtj__new(ps, SRTJ_TRUE, at)) || srtj__literal(ps, "true")) return 0; return idx;
        case 'f': if (!(idx = srtj__new(ps, SRTJ_FALSE, at)) || srtj__literal(ps, "false")) return 0; return idx;
        case '"': {
            const char *s;
            uint32_t n;
            if (!(idx = srtj__new(ps, SRTJ_STRING, at)) || srtj__string(ps, &s, &n)) return 0;
            ps->nodes[idx - 1].v.str = s;
            ps->nodes[idx - 1].v.n = n;
            return idx;
        }
        case '[': case '{': {
            int is_obj = c == '{';
            uint32_t last = 0, count = 0;
            if (depth >= ps->max_depth) { srtj__fail(ps, at, "nesting deeper than %d levels", ps->max_depth); return 0; }
            if (!(idx = srtj__new(ps, is_obj ? SRTJ_OBJECT : SRTJ_ARRAY, at))) return 0;
            ps->pos++;
            srtj__ws(ps);
            if (ps->pos < ps->len && ps->p[ps->pos] == (is_obj ? '}' : ']')) { ps->pos++; return idx; }
            for (;;) {
                const char *key = NULL;
                uint32_t key_len = 0, child;
                size_t key_at = ps->pos;
                if (is_obj) {
                    if (ps->pos >= ps->len) { srtj__fail(ps, ps->pos, "unexpected end of input in an object"); return 0; }
                    if (ps->p[ps->pos] != '"') { srtj__fail(ps, ps->pos, "expected a string key in an object"); return 0; }
                    if (srtj__string(ps, &key, &key_len)) return 0;
                    srtj__ws(ps);
                    if (ps->pos >= ps->len || ps->p[ps->pos] != ':') { srtj__fail(ps, ps->pos, "expected ':' after an object key"); return 0; }
                    ps->pos++;
                    srtj__ws(ps);
                }
                if (!(child = srtj__value(ps, depth + 1))) return 0;
                if (is_obj) {
                    ps->nodes[child - 1].v.key = key;
                    ps->nodes[child - 1].v.key_len = key_len;
                    ps->nodes[child - 1].v.offset = (uint32_t)key_at;
                }
                if (last) ps->nodes[last - 1].next = child;
                else ps->nodes[idx - 1].first = child;
                last = child;
                if (count == 0xffffffffu) { srtj__fail(ps, at, "too many members"); return 0; }
                count++;
                srtj__ws(ps);
                if (ps->pos >= ps->len) { srtj__fail(ps, ps->pos, "unexpected end of input in an %s", is_obj ? "object" : "array"); return 0; }
                c = ps->p[ps->pos];
                if (c == ',') {
                    ps->pos++;
                    srtj__ws(ps);
                    if (ps->pos < ps->len && ps->p[ps->pos] == (is_obj ? '}' : ']')) { srtj__fail(ps, ps->pos, "trailing comma"); return 0; }
                    continue;
                }
                if (c == (is_obj ? '}' : ']')) { ps->pos++; break; }
                srtj__fail(ps, ps->pos, "expected ',' or '%c'", is_obj ? '}' : ']');
                return 0;
            }
            ps->nodes[idx - 1].v.n = count;
            if (is_obj && !ps->allow_dup && srtj__check_dups(ps, idx)) return 0;
            return idx;
        }
        default:
            if (c == '-' || (c >= '0' && c <= '9')) {
                if (!(idx = srtj__new(ps, SRTJ_NUMBER, at)) || srtj__number(ps, idx)) return 0;
                return idx;
            }
            if (c >= 0x20 && c < 0x7F) srtj__fail(ps, at, "unexpected character '%c' (expected a value)", c);
            else srtj__fail(ps, at, "unexpected byte 0x%02X (expected a value)", c);
            return 0;
    }
}

SRTJ_API int srtj_parse(const char *text, size_t len, const srtj_options *opt, srtj_doc **out, char *err, size_t errlen) {
    srtj__parser ps;
    srtj_doc *doc;
    size_t i;
    uint32_t root;
    if (err && errlen) err[0] = 0;
    if (!out) return 1;
    *out = NULL;
    memset(&ps, 0, sizeof ps);
    ps.p = (const unsigned char *)text;
    ps.len = len;
    ps.err = err;
    ps.errlen = errlen;
    ps.max_depth = opt && opt->max_depth > 0 ? opt->max_depth : 256;
    ps.allow_dup = opt ? opt->allow_duplicate_keys : 0;
    if (!text && len) { srtj__fail(&ps, 0, "NULL text"); return 1; }
    if (len >= 0xffffffffu) { srtj__fail(&ps, 0, "input of %lu bytes is too large (limit 4 GiB)", (unsigned long)len); return 1; }
    ps.strings = (char *)SRTJ_MALLOC(len + 1);
    if (!ps.strings) { srtj__fail(&ps, 0, "out of memory"); return 1; }
    if (len >= 3 && ps.p[0] == 0xEF && ps.p[1] == 0xBB && ps.p[2] == 0xBF) ps.pos = 3;
    srtj__ws(&ps);
    root = srtj__value(&ps, 0);
    if (root) {
        srtj__ws(&ps);
        if (ps.pos != ps.len) { srtj__fail(&ps, ps.pos, "unexpected data after the top-level value"); root = 0; }
    }
    SRTJ_FREE(ps.scratch);
    if (!root) {
        SRTJ_FREE(ps.nodes);
        SRTJ_FREE(ps.strings);
        if (err && errlen && !err[0]) snprintf(err, errlen, "JSON error");
        return 1;
    }
    doc = (srtj_doc *)SRTJ_MALLOC(sizeof *doc);
    if (!doc) { SRTJ_FREE(ps.nodes); SRTJ_FREE(ps.strings); srtj__fail(&ps, 0, "out of memory"); return 1; }
    for (i = 0; i < ps.n_nodes; i++) {   /* indices -> pointers (root is node 0) */
        srtj__node *nd = &ps.nodes[i];
        nd->v.first = nd->first ? &ps.nodes[nd->first - 1].v : NULL;
        nd->v.next = nd->next ? &ps.nodes[nd->next - 1].v : NULL;
    }
    doc->nodes = ps.nodes;
    doc->n_nodes = ps.n_nodes;
    doc->strings = ps.strings;
    *out = doc;
    return 0;
}

SRTJ_API void srtj_free(srtj_doc *doc) {
    if (!doc) return;
    SRTJ_FREE(doc->nodes);
    SRTJ_FREE(doc->strings);
    SRTJ_FREE(doc);
}
SRTJ_API const srtj_value *srtj_root(const srtj_doc *doc) { return doc && doc->n_nodes ? &doc->nodes[0].v : NULL; }
SRTJ_API size_t srtj_count(const srtj_doc *doc) { return doc ? doc->n_nodes : 0; }

SRTJ_API const srtj_value *srtj_get(const srtj_value *obj, const char *key) {
    const srtj_value *m, *found = NULL;
    size_t n;
    if (!obj || obj->type != SRTJ_OBJECT || !key) return NULL;
    n = strlen(key);
    for (m = obj->first; m; m = m->next)
        if (m->key_len == n && memcmp(m->key, key, n) == 0) found = m;
    return found;
}
SRTJ_API const srtj_value *srtj_at(const srtj_value *arr, uint32_t index) {
    const srtj_value *m;
    if (!arr || (arr->type != SRTJ_ARRAY && arr->type != SRTJ_OBJECT)) return NULL;
    for (m = arr->first; m && index > 0; m = m->next) index--;
    return m;
}
SRTJ_API const srtj_value *srtj_first(const srtj_value *v) { return v && (v->type == SRTJ_ARRAY || v->type == SRTJ_OBJECT) ? v->first : NULL; }
SRTJ_API const srtj_value *srtj_next(const srtj_value *v) { return v ? v->next : NULL; }
SRTJ_API int srtj_is(const srtj_value *v, srtj_type t) { return v && v->type == t; }
SRTJ_API const char *srtj_string(const srtj_value *v) { return v && v->type == SRTJ_STRING ? v->str : NULL; }
SRTJ_API int srtj_number(const srtj_value *v, double *out) {
    if (!v || v->type != SRTJ_NUMBER) return 0;
    if (out) *out = v->num;
    return 1;
}
SRTJ_API int srtj_int(const srtj_value *v, int64_t *out) {
    if (!v || v->type != SRTJ_NUMBER) return 0;
    if (v->is_int) { if (out) *out = v->i; return 1; }
    /* 1.0e3 style: integral doubles inside the exactly representable range */
    if (v->num == floor(v->num) && fabs(v->num) <= 9007199254740992.0) { if (out) *out = (int64_t)v->num; return 1; }
    return 0;
}
SRTJ_API int srtj_bool(const srtj_value *v, int *out) {
    if (!v || (v->type != SRTJ_TRUE && v->type != SRTJ_FALSE)) return 0;
    if (out) *out = v->type == SRTJ_TRUE;
    return 1;
}
SRTJ_API const char *srtj_type_name(srtj_type t) {
    static const char *names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return (unsigned)t < 7u ? names[t] : "?";
}

#endif /* SRT_JSON_IMPLEMENTATION_DONE */
#endif /* SRT_JSON_IMPLEMENTATION */
