/* test_import.c - tools/srt_import.h: the stories260K checkpoints in three formats agree, every
   vocab GGUF opens, dequantization matches the documented formulas, and malformed input
   (truncated, flipped, hand-crafted absurd files) is refused with a message, without a crash,
   a leak or a huge allocation. Mixtures of experts: llama.cpp's 3-D expert tensors are split into
   one tensor per expert (values = the 3-D tensor's slices; the same as an older per-expert file),
   bad expert metadata and shapes are refused naming the problem, and srt-pack's .srt of a tiny
   qwen3moe / Mixtral GGUF loads and runs (build/sparsert.o). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#define MKDIR(p) _mkdir(p)
#else
#define MKDIR(p) mkdir((p), 0755)
#endif

/* ---- counting allocator: catches leaks and oversized requests */
static long g_live;              /* live allocations */
static size_t g_max_req;         /* largest single request since the last reset */
static size_t g_limit = (size_t)1 << 30;
static long g_allocs, g_fail_at;  /* allocation g_fail_at (counted from 1 by g_allocs) fails; 0: none does */
static void *t_malloc(size_t n) {
    size_t *p;
    if (n > g_max_req) g_max_req = n;
    if (n > g_limit || ++g_allocs == g_fail_at) return NULL;
    p = (size_t *)malloc(n + 16);
    if (!p) return NULL;
    g_live++;
    return (char *)p + 16;
}
static void *t_calloc(size_t n, size_t sz) {
    void *p;
    if (sz && n > ((size_t)-1) / sz) return NULL;
    p = t_malloc(n * sz);
    if (p) memset(p, 0, n * sz);
    return p;
}
static void t_free(void *p) {
    if (!p) return;
    g_live--;
    free((char *)p - 16);
}
#define SRTI_MALLOC(sz) t_malloc(sz)
#define SRTI_CALLOC(n, sz) t_calloc((n), (sz))
#define SRTI_FREE(p) t_free(p)
#define SRT_IMPORT_IMPLEMENTATION
#include "tools/srt_import.h"
#include "sparsert.h"   /* the packed MoE models run (linked with build/sparsert.o) */
#include "tests/testing.h"

#define MODELS SRT_SHARED "/models/stories260K/"
#define TMP "build/tmp/"

/* ---- file helpers */
static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    unsigned char *p;
    long sz;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = (unsigned char *)malloc((size_t)sz + 1);
    if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) { free(p); p = NULL; }
    fclose(f);
    *n = (size_t)sz;
    return p;
}
static int spit(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return 0;
    ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Opens, and when it succeeds reads every tensor; returns 0 if open failed (err set). Checks that
   failures carry a message and nothing leaks. *bad counts violations. */
static int try_open(const char *path, const char *tok, char *err, size_t errlen, int read_tensors, int *bad) {
    srti_model *m = NULL;
    long live0 = g_live;
    int rc = srti_open(path, tok, &m, err, errlen);
    if (rc != 0) {
        if (err[0] == 0 || m != NULL) (*bad)++;
    } else {
        uint32_t i;
        if (!m) { (*bad)++; return 0; }
        if (read_tensors) {
            for (i = 0; i < m->n_tensors; i++) {
                uint64_t nv = srti_tensor_nvalues(&m->tensors[i]);
                float *v;
                char e2[512];
                if (nv > ((uint64_t)1 << 26)) continue;
                v = (float *)malloc((size_t)nv * sizeof(float) + 4);
                if (srti_read_f32(m, i, v, e2, sizeof e2) != 0 && e2[0] == 0) (*bad)++;
                free(v);
            }
        }
        srti_close(m);
    }
    if (g_live != live0) (*bad)++;
    return rc == 0;
}

/* ---- tiny GGUF builder for hand-crafted files */
typedef struct { unsigned char *p; size_t n, cap; } buf;
static void put(buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = (unsigned char *)realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void put_u8(buf *b, unsigned v) { unsigned char c = (unsigned char)v; put(b, &c, 1); }
static void put_u16(buf *b, unsigned v) { put_u8(b, v & 255); put_u8(b, (v >> 8) & 255); }
static void put_u32(buf *b, uint32_t v) { int i; for (i = 0; i < 4; i++) put_u8(b, (v >> (8 * i)) & 255); }
static void put_u64(buf *b, uint64_t v) { int i; for (i = 0; i < 8; i++) put_u8(b, (unsigned)((v >> (8 * i)) & 255)); }
static void put_f32(buf *b, float f) { uint32_t u; memcpy(&u, &f, 4); put_u32(b, u); }
static void put_str(buf *b, const char *s) { put_u64(b, strlen(s)); put(b, s, strlen(s)); }
static void put_hdr(buf *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    put(b, "GGUF", 4); put_u32(b, version); put_u64(b, n_tensors); put_u64(b, n_kv);
}
static void kv_u32(buf *b, const char *k, uint32_t v) { put_str(b, k); put_u32(b, 4); put_u32(b, v); }
static void kv_str(buf *b, const char *k, const char *v) { put_str(b, k); put_u32(b, 8); put_str(b, v); }
static void kv_tokens(buf *b, int n) {
    int i; char t[16];
    put_str(b, "tokenizer.ggml.tokens"); put_u32(b, 9); put_u32(b, 8); put_u64(b, (uint64_t)n);
    for (i = 0; i < n; i++) { sprintf(t, "t%d", i); put_str(b, t); }
}
static void tinfo(buf *b, const char *name, uint32_t nd, uint64_t ne0, uint64_t ne1, uint32_t type, uint64_t off) {
    put_str(b, name); put_u32(b, nd); put_u64(b, ne0); if (nd > 1) put_u64(b, ne1); put_u32(b, type); put_u64(b, off);
}
static void pad_to(buf *b, size_t a) { while (b->n % a) put_u8(b, 0); }

/* Writes b to a file and expects srti_open to fail with a message containing `needle`. */
static void expect_fail(buf *b, const char *what, const char *needle) {
    char err[512];
    int bad = 0, ok;
    g_max_req = 0;
    spit(TMP "crafted.gguf", b->p, b->n);
    err[0] = 0;
    ok = try_open(TMP "crafted.gguf", NULL, err, sizeof err, 1, &bad);
    CHECK(!ok && bad == 0 && (!needle || strstr(err, needle)) && g_max_req < ((size_t)1 << 20),
          "crafted GGUF, %s: refused (\"%s\")", what, err);
    b->n = 0;
}

/* ---- reference formulas in double precision */
static double ref_f16(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31) return m ? NAN : (s ? -INFINITY : INFINITY);
    v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
    return s ? -v : v;
}
static uint32_t rng_state = 12345;
static uint32_t rnd(void) { rng_state = rng_state * 1664525u + 1013904223u; return rng_state >> 8; }

static void test_dequant(void) {
    unsigned char blk[4096];
    float out[1024];
    int i, ok, b;
    double maxerr;
    /* F16: special values and random bits */
    {
        static const uint16_t hv[] = { 0x0000, 0x8000, 0x3C00, 0xC000, 0x7BFF, 0x0001, 0x03FF, 0x0400, 0x3555, 0x7C00, 0xFC00 };
        ok = 1;
        for (i = 0; i < (int)(sizeof hv / sizeof hv[0]); i++) { blk[2 * i] = hv[i] & 255; blk[2 * i + 1] = hv[i] >> 8; }
        for (; i < 512; i++) { uint16_t h = (uint16_t)(rnd() & 0xFFFF); if (((h >> 10) & 31) == 31) h &= 0xBFFF; blk[2 * i] = h & 255; blk[2 * i + 1] = h >> 8; }
        ok = srti_dequantize(SRTI_TYPE_F16, blk, 512, out) == 0;
        for (i = 0; i < 512 && ok; i++) {
            double r = ref_f16((uint16_t)(blk[2 * i] | (blk[2 * i + 1] << 8)));
            if (!((double)out[i] == r)) ok = 0;
        }
        CHECK(ok, "F16 dequantization is exact (zeros, max, subnormals, infinities, random)");
        blk[0] = 0x00; blk[1] = 0x7E;
        CHECK(srti_dequantize(SRTI_TYPE_F16, blk, 1, out) == 0 && out[0] != out[0], "F16 NaN stays NaN");
    }
    /* BF16 */
    ok = 1;
    for (i = 0; i < 256; i++) { uint16_t h = (uint16_t)(rnd() & 0xFFFF); if (((h >> 7) & 255) == 255) h &= 0xBFFF; blk[2 * i] = h & 255; blk[2 * i + 1] = h >> 8; }
    ok = srti_dequantize(SRTI_TYPE_BF16, blk, 256, out) == 0;
    for (i = 0; i < 256 && ok; i++) {
        uint32_t u = (uint32_t)(blk[2 * i] | (blk[2 * i + 1] << 8)) << 16;
        int s = u >> 31, e = (u >> 23) & 255; uint32_t m = u & 0x7FFFFF;
        double r = e ? ldexp(1.0 + m / 8388608.0, e - 127) : ldexp(m / 8388608.0, -126);
        if (s) r = -r;
        if ((double)out[i] != r) ok = 0;
    }
    CHECK(ok, "BF16 dequantization is exact (random bits)");
    /* Q8_0: 8 blocks of { f16 d, int8 qs[32] }: x = d * q */
    for (b = 0; b < 8; b++) {
        uint16_t d = (uint16_t)(0x2000 + (rnd() % 0x3000)) | (uint16_t)((b & 1) << 15);
        blk[34 * b] = d & 255; blk[34 * b + 1] = d >> 8;
        for (i = 0; i < 32; i++) blk[34 * b + 2 + i] = (unsigned char)(i == 0 ? 0x80 : i == 1 ? 0x7F : rnd() & 255);
    }
    ok = srti_dequantize(SRTI_TYPE_Q8_0, blk, 256, out) == 0;
    maxerr = 0;
    for (b = 0; b < 8; b++) {
        double d = ref_f16((uint16_t)(blk[34 * b] | (blk[34 * b + 1] << 8)));
        for (i = 0; i < 32; i++) {
            int q = blk[34 * b + 2 + i]; if (q > 127) q -= 256;
            double e = fabs((double)out[32 * b + i] - d * q) / (fabs(d * q) + 1e-30);
            if (e > maxerr) maxerr = e;   /* not fmax(): gcc 12 for aarch64 crashes vectorizing that */
        }
    }
    CHECK(ok && maxerr < 1e-6, "Q8_0 dequantization = d * q (8 blocks, max rel err %g)", maxerr);
    /* Q4_0: { f16 d, qs[16] }: x[j] = d * ((qs[j] & 15) - 8), x[j+16] = d * ((qs[j] >> 4) - 8) */
    for (b = 0; b < 8; b++) {
        uint16_t d = (uint16_t)(0x2000 + (rnd() % 0x3000)) | (uint16_t)((b & 2) << 14);
        blk[18 * b] = d & 255; blk[18 * b + 1] = d >> 8;
        for (i = 0; i < 16; i++) blk[18 * b + 2 + i] = (unsigned char)(i == 0 ? 0x0F : i == 1 ? 0xF0 : rnd() & 255);
    }
    ok = srti_dequantize(SRTI_TYPE_Q4_0, blk, 256, out) == 0;
    maxerr = 0;
    for (b = 0; b < 8; b++) {
        double d = ref_f16((uint16_t)(blk[18 * b] | (blk[18 * b + 1] << 8)));
        for (i = 0; i < 32; i++) {
            int byte = blk[18 * b + 2 + (i % 16)];
            int q = (i < 16 ? (byte & 15) : (byte >> 4)) - 8;
            double e = fabs((double)out[32 * b + i] - d * q) / (fabs(d * q) + 1e-30);
            if (e > maxerr) maxerr = e;   /* not fmax(): gcc 12 for aarch64 crashes vectorizing that */
        }
    }
    CHECK(ok && maxerr < 1e-6, "Q4_0 dequantization = d * (nibble - 8), low nibbles first (max rel err %g)", maxerr);
    /* Q4_1: { d, m, qs[16] }: x = d * nibble + m */
    for (i = 0; i < 40; i++) blk[i] = (unsigned char)(rnd() & 255);
    blk[1] = 0x3C; blk[0] = 0; blk[3] = 0xBC; blk[2] = 0;   /* d = 1, m = -1 */
    ok = srti_dequantize(SRTI_TYPE_Q4_1, blk, 32, out) == 0;
    for (i = 0; i < 32 && ok; i++) ok = out[i] == (float)((i < 16 ? (blk[4 + i] & 15) : (blk[4 + i - 16] >> 4)) - 1);
    CHECK(ok, "Q4_1 dequantization = d * nibble + m");
    /* Q5_0: { d, qh[4], qs[16] }: 5th bit of value j is bit j of qh */
    for (i = 0; i < 22; i++) blk[i] = (unsigned char)(rnd() & 255);
    blk[0] = 0; blk[1] = 0x40;                               /* d = 2 */
    ok = srti_dequantize(SRTI_TYPE_Q5_0, blk, 32, out) == 0;
    for (i = 0; i < 32 && ok; i++) {
        uint32_t qh = (uint32_t)blk[2] | ((uint32_t)blk[3] << 8) | ((uint32_t)blk[4] << 16) | ((uint32_t)blk[5] << 24);
        int lo = i < 16 ? (blk[6 + i] & 15) : (blk[6 + i - 16] >> 4);
        int q = lo | (int)(((qh >> i) & 1) << 4);
        ok = out[i] == (float)(2 * (q - 16));
    }
    CHECK(ok, "Q5_0 dequantization = d * (q5 - 16), bit j of qh is value j's high bit");
    /* Q6_K: value i: chunk c = i/128, r = i%128, l = r%32, part = r/32;
       low 4 bits from ql[64c + l + 32*(part&1)] (low nibble for part<2), high 2 from qh[32c + l] >> 2*part,
       scale sc[8c + l/16 + 2*part] */
    for (i = 0; i < 210; i++) blk[i] = (unsigned char)(rnd() & 255);
    blk[208] = 0x00; blk[209] = 0x3C;                         /* d = 1 */
    ok = srti_dequantize(SRTI_TYPE_Q6_K, blk, 256, out) == 0;
    for (i = 0; i < 256 && ok; i++) {
        int c = i / 128, r = i % 128, l = r % 32, part = r / 32;
        int qlb = blk[64 * c + l + 32 * (part & 1)];
        int lo = part < 2 ? (qlb & 15) : (qlb >> 4);
        int hi = (blk[128 + 32 * c + l] >> (2 * part)) & 3;
        int sc = (signed char)blk[192 + 8 * c + l / 16 + 2 * part];
        ok = out[i] == (float)(sc * ((lo | (hi << 4)) - 32));
    }
    CHECK(ok, "Q6_K dequantization matches the index formula");
    /* Q4_K: sub-block s = i/32 has 6-bit scale/min from the 12-byte packed array */
    for (i = 0; i < 144; i++) blk[i] = (unsigned char)(rnd() & 255);
    blk[0] = 0x00; blk[1] = 0x3C; blk[2] = 0x00; blk[3] = 0x38; /* d = 1, dmin = 0.5 */
    ok = srti_dequantize(SRTI_TYPE_Q4_K, blk, 256, out) == 0;
    for (i = 0; i < 256 && ok; i++) {
        int s = i / 32, sc, mn;
        const unsigned char *q = blk + 4;
        int byte = blk[16 + 32 * (i / 64) + i % 32];
        int nib = (s % 2 == 0) ? (byte & 15) : (byte >> 4);
        if (s < 4) { sc = q[s] & 63; mn = q[s + 4] & 63; }
        else { sc = (q[s + 4] & 15) | ((q[s - 4] >> 6) << 4); mn = (q[s + 4] >> 4) | ((q[s] >> 6) << 4); }
        ok = out[i] == (float)(sc * nib) - 0.5f * (float)mn;
    }
    CHECK(ok, "Q4_K dequantization matches the index formula");
    /* TQ2_0: value i = 128*(i/128) + 32*l + m takes bits 2l of qs[32*(i/128) + m]: code - 1 */
    for (i = 0; i < 66; i++) blk[i] = (unsigned char)(rnd() & 255);
    blk[64] = 0x00; blk[65] = 0x3C;
    ok = srti_dequantize(SRTI_TYPE_TQ2_0, blk, 256, out) == 0;
    for (i = 0; i < 256 && ok; i++) {
        int j = i / 128, l = (i % 128) / 32, m = i % 32;
        ok = out[i] == (float)(((blk[32 * j + m] >> (2 * l)) & 3) - 1);
    }
    CHECK(ok, "TQ2_0 dequantization = code - 1");
    /* every supported type runs on random bytes without trouble */
    {
        static const uint32_t types[] = { 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 34, 35 };
        int t, fin = 1;
        for (t = 0; t < (int)(sizeof types / sizeof types[0]); t++) {
            uint32_t bv = 1, bb = 1, k;
            srti_type_block(types[t], &bv, &bb);
            for (k = 0; k < 4 * bb; k++) blk[k] = (unsigned char)(rnd() & 255);
            for (k = 0; k < 4; k++) { blk[k * bb + bb - 1] = 0x3C; blk[k * bb + 1] = 0x3C; }   /* keep scales finite */
            if (srti_dequantize(types[t], blk, 4 * bv, out) != 0) { fin = 0; break; }
        }
        CHECK(fin, "Q4_1/Q5_0/Q5_1/Q8_0/Q8_1/Q2_K..Q8_K/TQ1_0/TQ2_0 all dequantize");
    }
    /* MXFP4: { e, qs[16] }: byte j = value j (low nibble), value j + 16 (high); FP4 E2M1 doubled
       {0, 1, 2, 3, 4, 6, 8, 12, -0, -1, .., -12} times 2^(e - 128) (ggml's E8M0 "half") */
    memset(blk, 0, 64);
    blk[0] = 128; blk[1 + 7] = 0xD7;              /* value 7: code 7 (12), value 23: code 13 (-6); scale 1 */
    blk[17] = 130; blk[18 + 0] = 0xF9;            /* value 32: code 9 (-1), value 48: code 15 (-12); scale 4 */
    blk[34] = 0; blk[35 + 15] = 0x21;             /* value 79: code 1 (1 * 2^-128, a subnormal), value 95: code 2 */
    ok = srti_dequantize(SRTI_TYPE_MXFP4, blk, 96, out) == 0;
    CHECK(ok && out[7] == 12.0f && out[23] == -6.0f && out[32] == -4.0f && out[48] == -48.0f && out[79] == ldexpf(1.0f, -128) &&
              out[95] == ldexpf(2.0f, -128) && out[0] == 0.0f && out[40] == 0.0f,
          "MXFP4 dequantization: the FP4 values times 2^(e - 128), low nibbles first (12, -6, -4, -48, 2^-128, 2^-127)");
    /* IQ4_NL: { f16 d, qs[16] }: d * the non-linear code book {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113} */
    memset(blk, 0, 64);
    blk[0] = 0x00; blk[1] = 0x3C; blk[2] = 0x80;   /* d 1: value 0 code 0 (-127), value 16 code 8 (1) */
    blk[18] = 0x00; blk[19] = 0x38; blk[20 + 5] = 0xF3;   /* d 0.5: value 37 code 3 (-32.5), value 53 code 15 (56.5) */
    ok = srti_dequantize(SRTI_TYPE_IQ4_NL, blk, 64, out) == 0;
    CHECK(ok && out[0] == -127.0f && out[16] == 1.0f && out[37] == -32.5f && out[53] == 56.5f && out[33] == -63.5f,
          "IQ4_NL dequantization: d times the non-linear code book, low nibbles first");
    CHECK(srti_dequantize(SRTI_TYPE_IQ2_XXS, blk, 256, out) != 0, "unsupported type IQ2_XXS is refused by srti_dequantize");
    CHECK(srti_dequantize(99, blk, 256, out) != 0, "unknown type 99 is refused by srti_dequantize");
    CHECK(srti_dequantize(SRTI_TYPE_Q8_0, blk, 33, out) != 0, "Q8_0 with a partial block is refused");
}

/* ---- stories260K: llama2.c v0, v1 and GGUF agree */
static int same_hp(const srti_hparams *a, const srti_hparams *b) {
    return strcmp(a->arch, b->arch) == 0 && a->n_vocab == b->n_vocab && a->n_embd == b->n_embd && a->n_ff == b->n_ff &&
           a->n_layer == b->n_layer && a->n_head == b->n_head && a->n_head_kv == b->n_head_kv && a->head_dim == b->head_dim &&
           a->rope_dim == b->rope_dim && a->rope_theta == b->rope_theta && a->norm_eps == b->norm_eps &&
           a->rope_neox == b->rope_neox && strcmp(a->rope_scaling, b->rope_scaling) == 0 &&
           a->rope_scale_factor == b->rope_scale_factor;
}
static int same_vocab(const srti_vocab *a, const srti_vocab *b) {
    uint32_t i;
    if (strcmp(a->model, b->model) || a->n_tokens != b->n_tokens || !a->scores || !b->scores) return 0;
    for (i = 0; i < a->n_tokens; i++)
        if (strcmp(a->tokens[i], b->tokens[i]) || a->scores[i] != b->scores[i] || a->types[i] != b->types[i]) {
            printf("# token %u differs: '%s' %g %d vs '%s' %g %d\n", i, a->tokens[i], a->scores[i], a->types[i],
                   b->tokens[i], b->scores[i], b->types[i]);
            return 0;
        }
    return a->bos == b->bos && a->eos == b->eos && a->unk == b->unk;
}
static int same_tensor(srti_model *a, int ia, srti_model *b, int ib) {
    uint64_t n = srti_tensor_nvalues(&a->tensors[ia]);
    float *x, *y;
    char err[256];
    int ok;
    if (ia < 0 || ib < 0 || n != srti_tensor_nvalues(&b->tensors[ib])) return 0;
    if (memcmp(a->tensors[ia].ne, b->tensors[ib].ne, sizeof(a->tensors[ia].ne)) != 0) return 0;
    x = (float *)malloc((size_t)n * 4); y = (float *)malloc((size_t)n * 4);
    ok = srti_read_f32(a, (uint32_t)ia, x, err, sizeof err) == 0 && srti_read_f32(b, (uint32_t)ib, y, err, sizeof err) == 0 &&
         memcmp(x, y, (size_t)n * 4) == 0;
    free(x); free(y);
    return ok;
}

static void test_stories(void) {
    srti_model *g = NULL, *v0 = NULL, *v1 = NULL;
    char err[512];
    uint32_t i;
    int ok;
    CHECK(srti_open(MODELS "stories260K.gguf", NULL, &g, err, sizeof err) == 0, "open stories260K.gguf %s", err);
    CHECK(srti_open(MODELS "stories260K.bin", MODELS "tok512.bin", &v0, err, sizeof err) == 0, "open stories260K.bin (v0) %s", err);
    CHECK(srti_open(MODELS "stories260K_v1.bin", MODELS "tok512.bin", &v1, err, sizeof err) == 0, "open stories260K_v1.bin (v1) %s", err);
    if (!g || !v0 || !v1) { srti_close(g); srti_close(v0); srti_close(v1); return; }
    CHECK(g->source == SRTI_SRC_GGUF && v0->source == SRTI_SRC_LLAMA2C_V0 && v1->source == SRTI_SRC_LLAMA2C_V1,
          "formats detected: %s, %s, %s", g->source_name, v0->source_name, v1->source_name);
    CHECK(v0->hp.n_embd == 64 && v0->hp.n_ff == 172 && v0->hp.n_layer == 5 && v0->hp.n_head == 8 && v0->hp.n_head_kv == 4 &&
          v0->hp.n_vocab == 512 && v0->hp.n_ctx == 512 && v0->hp.head_dim == 8 && v0->hp.rope_dim == 8 && v0->hp.tied_output == 1 &&
          strcmp(v0->hp.arch, "llama") == 0 && v0->hp.rope_neox == 0, "v0 header: dim 64, hidden 172, 5 layers, 8/4 heads, vocab 512, seq 512");
    CHECK(same_hp(&v0->hp, &v1->hp) && v0->hp.n_ctx == v1->hp.n_ctx && v1->hp.tied_output == 1, "v0 and v1 hparams identical");
    CHECK(same_hp(&v0->hp, &g->hp) && g->hp.n_ctx == 2048, "v0 and GGUF hparams identical (GGUF n_ctx %u)", g->hp.n_ctx);
    CHECK(g->hp.tied_output == 0 && srti_find(g, "output.weight") >= 0 && srti_find(v0, "output.weight") < 0,
          "GGUF has a separate output.weight, llama2.c shares the embedding");
    CHECK(same_vocab(&v0->vocab, &g->vocab), "v0 + tok512.bin vocab == GGUF vocab (tokens, scores, types, special ids)");
    CHECK(same_vocab(&v1->vocab, &g->vocab), "v1 + tok512.bin vocab == GGUF vocab");
    CHECK(v0->vocab.add_bos == 1 && v0->vocab.add_space_prefix == 1 && v0->vocab.bos == 1 && v0->vocab.eos == 2 &&
          strcmp(v0->vocab.tokens[1], "<s>") == 0 && v0->vocab.types[3] == SRTI_TOKEN_BYTE, "llama2.c vocab normalized to SentencePiece conventions");
    CHECK(v0->n_tensors == 47 && v1->n_tensors == 47 && g->n_tensors == 48, "tensor counts 47 / 47 / 48");
    ok = 1;
    for (i = 0; i < v0->n_tensors; i++) {
        const char *nm = v0->tensors[i].name;
        if (!same_tensor(v0, (int)i, v1, srti_find(v1, nm)) || !same_tensor(v0, (int)i, g, srti_find(g, nm))) {
            printf("# tensor %s differs\n", nm);
            ok = 0;
        }
    }
    CHECK(ok, "every tensor is bit-identical in v0, v1 and GGUF (same name, same shape)");
    CHECK(same_tensor(v0, srti_find(v0, "token_embd.weight"), g, srti_find(g, "output.weight")), "GGUF output.weight == shared embedding");
    CHECK(srti_check_llama(v0, err, sizeof err) == 0 && srti_check_llama(g, err, sizeof err) == 0, "srti_check_llama accepts all three %s", err);
    {
        float *x = (float *)malloc(64 * 4);
        CHECK(srti_read_f32(v0, 9999, x, err, sizeof err) != 0 && err[0], "srti_read_f32 with a bad index: %s", err);
        free(x);
    }
    srti_close(g); srti_close(v0); srti_close(v1);
}

static void test_vocabs(void) {
    static const struct { const char *name, *model, *pre; uint32_t n; } v[] = {
        { "baichuan", "llama", "", 64000 }, { "deepseek-coder", "gpt2", "deepseek-coder", 32256 },
        { "deepseek-llm", "gpt2", "deepseek-llm", 102400 }, { "falcon", "gpt2", "falcon", 65024 },
        { "gpt-2", "gpt2", "gpt-2", 50257 }, { "gpt-neox", "gpt2", "", 50432 }, { "llama-bpe", "gpt2", "llama-bpe", 128256 },
        { "llama-spm", "llama", "default", 32000 }, { "mpt", "gpt2", "mpt", 50432 }, { "phi-3", "llama", "default", 32064 },
        { "refact", "gpt2", "refact", 49216 }, { "starcoder", "gpt2", "starcoder", 49152 }
    };
    int i;
    for (i = 0; i < (int)(sizeof v / sizeof v[0]); i++) {
        char path[256], err[512];
        srti_model *m = NULL;
        int rc;
        snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf", v[i].name);
        rc = srti_open(path, NULL, &m, err, sizeof err);
        CHECK(rc == 0 && m && m->n_tensors == 0 && strcmp(m->vocab.model, v[i].model) == 0 && strcmp(m->vocab.pre, v[i].pre) == 0 &&
              m->vocab.n_tokens == v[i].n && (strcmp(v[i].model, "gpt2") != 0 || m->vocab.n_merges > 0),
              "vocab %s: model '%s', pre '%s', %u tokens, %u merges %s", v[i].name, m ? m->vocab.model : "", m ? m->vocab.pre : "",
              m ? m->vocab.n_tokens : 0, m ? m->vocab.n_merges : 0, rc ? err : "");
        if (m && strcmp(v[i].name, "llama-bpe") == 0)
            CHECK(m->vocab.n_merges == 280147 && m->vocab.bos == 128000 && m->vocab.eos == 128001 && m->vocab.add_bos == 1 &&
                  strcmp(m->vocab.tokens[128000], "<|begin_of_text|>") == 0 && m->vocab.types[128000] == SRTI_TOKEN_CONTROL,
                  "llama-bpe: 280147 merges, <|begin_of_text|> = 128000 (control), add_bos");
        if (m && strcmp(v[i].name, "phi-3") == 0)
            CHECK(m->vocab.chat_template != NULL && m->vocab.eos == 32000 && m->vocab.add_eos == 0, "phi-3: chat template, eos 32000");
        if (m && strcmp(v[i].name, "llama-spm") == 0)
            CHECK(m->vocab.scores != NULL && m->vocab.unk == 0 && m->vocab.types[13] == SRTI_TOKEN_BYTE && strcmp(m->vocab.tokens[13], "<0x0A>") == 0,
                  "llama-spm: scores, unk 0, <0x0A> is a byte token");
        srti_close(m);
    }
}

/* ---- malformed inputs */
static void truncations(const char *src, const char *tok, const char *label, const char *tmpname) {
    size_t n, k;
    unsigned char *d = slurp(src, &n);
    int bad = 0, opened = 0, tries = 0;
    char err[512], path[256];
    if (!d) { CHECK(0, "read %s", src); return; }
    snprintf(path, sizeof path, TMP "%s", tmpname);
    g_max_req = 0;
    for (k = 0; k < 256 + 64; k++) {
        size_t len = k < 256 ? k : (n * (k - 256)) / 64;
        if (k >= 256 && len < 256) continue;
        spit(path, d, len);
        err[0] = 0;
        tries++;
        if (try_open(tok ? path : path, tok, err, sizeof err, 0, &bad)) opened++;
    }
    CHECK(opened == 0 && bad == 0 && g_max_req <= 2 * n + (1 << 20),
          "%s truncated at %d lengths: all refused with a message, no leak (largest allocation %lu bytes; last: %s)", label, tries,
          (unsigned long)g_max_req, err);
    free(d);
}

/* Flips bytes [0, upto) one at a time in place (xor 0xFF, then a random value every 3rd byte). */
static void flips(const char *src, const char *tok, int tok_is_target, const char *label, size_t upto) {
    size_t n, p;
    unsigned char *d = tok_is_target ? slurp(tok, &n) : slurp(src, &n);
    const char *path = TMP "flip.bin";
    int bad = 0, opened = 0, failed = 0;
    char err[512];
    FILE *f;
    if (!d) { CHECK(0, "read %s", src); return; }
    spit(path, d, n);
    if (upto > n) upto = n;
    g_max_req = 0;
    for (p = 0; p < upto; p++) {
        int variant;
        for (variant = 0; variant < 2; variant++) {
            unsigned char c = variant == 0 ? (unsigned char)(d[p] ^ 0xFF) : (unsigned char)rnd();
            if (variant == 1 && (p % 3) != 0) continue;
            f = fopen(path, "r+b");
            if (!f) { bad++; continue; }
            fseek(f, (long)p, SEEK_SET); fputc(c, f); fclose(f);
            err[0] = 0;
            if (try_open(tok_is_target ? src : path, tok_is_target ? path : tok, err, sizeof err, (p % 64) == 0, &bad)) opened++;
            else failed++;
            f = fopen(path, "r+b");
            if (!f) { bad++; continue; }
            fseek(f, (long)p, SEEK_SET); fputc(d[p], f); fclose(f);
        }
    }
    CHECK(bad == 0 && failed > 0 && g_max_req <= 2 * n + (1 << 20),
          "%s: byte flips over the first %lu bytes: no crash, no leak, every error has a message (%d refused, %d still valid)",
          label, (unsigned long)upto, failed, opened);
    free(d);
}

static void test_malformed(void) {
    buf b = { NULL, 0, 0 };
    char err[512];
    srti_model *m = NULL;
    int bad = 0;

    truncations(MODELS "stories260K.gguf", NULL, "stories260K.gguf", "trunc.gguf");
    truncations(MODELS "stories260K.bin", MODELS "tok512.bin", "stories260K.bin", "trunc.bin");
    truncations(MODELS "stories260K_v1.bin", MODELS "tok512.bin", "stories260K_v1.bin", "trunc_v1.bin");
    truncations(SRT_SHARED "/tokenizer/ggml-vocab-llama-spm.gguf", NULL, "ggml-vocab-llama-spm.gguf", "trunc_vocab.gguf");
    {   /* tokenizer truncations: the model is fine, the tokenizer is cut */
        size_t n, k; unsigned char *d = slurp(MODELS "tok512.bin", &n);
        int opened = 0; bad = 0;
        for (k = 0; d && k < 64 + 256; k++) {
            size_t len = k < 256 ? k : (n * (k - 256)) / 64;
            spit(TMP "trunc_tok.bin", d, len);
            if (try_open(MODELS "stories260K.bin", TMP "trunc_tok.bin", err, sizeof err, 0, &bad)) opened++;
        }
        CHECK(d && opened == 0 && bad == 0, "tok512.bin truncated at 320 lengths: all refused (%s)", err);
        free(d);
    }
    flips(MODELS "stories260K.gguf", NULL, 0, "stories260K.gguf", 12100);
    flips(MODELS "stories260K.bin", MODELS "tok512.bin", 0, "stories260K.bin", 64);
    flips(MODELS "stories260K_v1.bin", MODELS "tok512.bin", 0, "stories260K_v1.bin", 300);
    flips(MODELS "stories260K.bin", MODELS "tok512.bin", 1, "tok512.bin", 6227);

    /* missing / wrong files */
    err[0] = 0;
    CHECK(srti_open(TMP "does-not-exist.gguf", NULL, &m, err, sizeof err) != 0 && err[0] && !m, "missing file: %s", err);
    err[0] = 0;
    CHECK(srti_open(MODELS "stories260K.bin", TMP "no-tokenizer.bin", &m, err, sizeof err) != 0 && err[0] && !m, "missing tokenizer: %s", err);
    err[0] = 0;
    CHECK(srti_open(MODELS "stories260K.bin", SRT_SHARED "/models/llama2-tokenizer/tokenizer.bin", &m, err, sizeof err) != 0 && err[0] && !m,
          "tokenizer of the wrong vocabulary size: %s", err);
    err[0] = 0;
    CHECK(srti_open(MODELS "stories260K.bin", MODELS "stories260K.gguf", &m, err, sizeof err) != 0 && err[0] && !m,
          "a GGUF given as tokenizer.bin: %s", err);
    err[0] = 0;
    CHECK(srti_open(MODELS "stories260K.gguf", MODELS "tok512.bin", &m, err, sizeof err) != 0 && err[0] && !m,
          "tokenizer.bin with a GGUF: %s", err);
    {   /* no tokenizer: opens with an empty vocab */
        int rc = srti_open(MODELS "stories260K.bin", NULL, &m, err, sizeof err);
        CHECK(rc == 0 && m->vocab.n_tokens == 0 && m->vocab.model[0] == 0, "llama2.c without tokenizer opens with no vocab");
        srti_close(m); m = NULL;
    }
    {   /* tokenizer with a negative length / absurd max_token_length / trailing junk */
        size_t n; unsigned char *d = slurp(MODELS "tok512.bin", &n);
        if (d) {
            unsigned char *e = (unsigned char *)malloc(n + 8);
            memcpy(e, d, n);
            e[4 + 4 + 0] = 0xFF; e[4 + 4 + 1] = 0xFF; e[4 + 4 + 2] = 0xFF; e[4 + 4 + 3] = 0xFF;  /* token 0 length = -1 */
            spit(TMP "bad_tok.bin", e, n); bad = 0; err[0] = 0;
            CHECK(!try_open(MODELS "stories260K.bin", TMP "bad_tok.bin", err, sizeof err, 0, &bad) && bad == 0, "tokenizer with length -1: %s", err);
            memcpy(e, d, n); e[0] = 0; e[1] = 0; e[2] = 0; e[3] = 0x80;
            spit(TMP "bad_tok.bin", e, n); bad = 0; err[0] = 0;
            CHECK(!try_open(MODELS "stories260K.bin", TMP "bad_tok.bin", err, sizeof err, 0, &bad) && bad == 0, "tokenizer with negative max_token_length: %s", err);
            memcpy(e, d, n); memset(e + n, 0, 8);
            spit(TMP "bad_tok.bin", e, n + 8); bad = 0; err[0] = 0;
            CHECK(!try_open(MODELS "stories260K.bin", TMP "bad_tok.bin", err, sizeof err, 0, &bad) && bad == 0, "tokenizer with trailing bytes: %s", err);
            free(e);
        }
        free(d);
    }
    {   /* llama2.c headers */
        int32_t h[7] = { 64, 172, 5, 8, 4, 512, 512 };
        int i;
        static const struct { int field; int32_t value; const char *what; } cases[] = {
            { 0, 0, "dim 0" }, { 0, -64, "negative dim" }, { 1, 0x7fffffff, "huge hidden_dim" }, { 2, 1 << 30, "huge n_layers" },
            { 3, 7, "dim not divisible by n_heads" }, { 4, 3, "n_heads not divisible by n_kv_heads" }, { 5, 0, "vocab 0" },
            { 5, (int32_t)0x80000000, "vocab INT_MIN" }, { 6, -1, "negative seq_len" }, { 5, 513, "size mismatch" }
        };
        for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
            int32_t hh[7];
            memcpy(hh, h, sizeof hh);
            hh[cases[i].field] = cases[i].value;
            b.n = 0;
            { int j; for (j = 0; j < 7; j++) put_u32(&b, (uint32_t)hh[j]); }
            { int j; for (j = 0; j < 1000; j++) put_f32(&b, 0.5f); }
            spit(TMP "bad_l2c.bin", b.p, b.n); bad = 0; err[0] = 0;
            CHECK(!try_open(TMP "bad_l2c.bin", MODELS "tok512.bin", err, sizeof err, 0, &bad) && bad == 0, "llama2.c header, %s: %s", cases[i].what, err);
        }
        b.n = 0; put_u32(&b, 0x616b3432); put_u32(&b, 2); { int j; for (j = 0; j < 100; j++) put_u32(&b, 0); }
        spit(TMP "bad_l2c.bin", b.p, b.n); bad = 0; err[0] = 0;
        CHECK(!try_open(TMP "bad_l2c.bin", NULL, err, sizeof err, 0, &bad) && bad == 0 && strstr(err, "version 2"), "llama2.c version 2: %s", err);
        b.n = 0; put(&b, "XYZ", 3);
        spit(TMP "bad_l2c.bin", b.p, b.n); bad = 0; err[0] = 0;
        CHECK(!try_open(TMP "bad_l2c.bin", NULL, err, sizeof err, 0, &bad) && bad == 0, "3-byte file: %s", err);
        b.n = 0; put(&b, "PK\3\4garbage-garbage-garbage-garbage", 36);
        spit(TMP "bad_l2c.bin", b.p, b.n); bad = 0; err[0] = 0;
        CHECK(!try_open(TMP "bad_l2c.bin", NULL, err, sizeof err, 0, &bad) && bad == 0, "wrong magic (zip): %s", err);
        b.n = 0;
    }

    /* hand-crafted GGUF files */
    put_hdr(&b, 1, 0, 0); expect_fail(&b, "version 1", "version 1");
    put_hdr(&b, 4, 0, 0); expect_fail(&b, "version 4", "version 4");
    put(&b, "GGUF", 4); put_u32(&b, 0x03000000u); put_u64(&b, 0); put_u64(&b, 0); expect_fail(&b, "big-endian version", "version");
    put_hdr(&b, 3, 0, 0xFFFFFFFFFFFFFFFFull); expect_fail(&b, "n_kv = 2^64-1", "metadata count");
    put_hdr(&b, 3, 0xFFFFFFFFFFFFull, 0); expect_fail(&b, "n_tensors = 2^48-1", "tensor count");
    put_hdr(&b, 3, 0, 1); put_u64(&b, 0xFFFFFFFFFFFFFFF0ull); put(&b, "abc", 3); pad_to(&b, 64); expect_fail(&b, "key length 2^64-16", "string length");
    put_hdr(&b, 3, 0, 1); put_str(&b, "general.name"); put_u32(&b, 8); put_u64(&b, 1u << 30); put(&b, "abcdefgh", 8);
    expect_fail(&b, "string value longer than the file", "exceeds");
    put_hdr(&b, 3, 0, 1); put_str(&b, "x"); put_u32(&b, 13); put_u32(&b, 0); expect_fail(&b, "value type 13", "type 13");
    put_hdr(&b, 3, 0, 1); put_str(&b, "x"); put_u32(&b, 9); put_u32(&b, 4); put_u64(&b, 0x4000000000000000ull); put_u32(&b, 0);
    expect_fail(&b, "array count 2^62", "array");
    put_hdr(&b, 3, 0, 1); put_str(&b, "tokenizer.ggml.tokens"); put_u32(&b, 9); put_u32(&b, 8); put_u64(&b, 100000000ull); put_u64(&b, 1);
    expect_fail(&b, "tokens array count 1e8 in a tiny file", "array count");
    put_hdr(&b, 3, 0, 1); put_str(&b, "tokenizer.ggml.scores"); put_u32(&b, 9); put_u32(&b, 5); put_u64(&b, 1); put_u32(&b, 0);
    expect_fail(&b, "scores as int32", "expected an array of float32");
    {   /* arrays nested 20 deep */
        int i;
        put_hdr(&b, 3, 0, 1); put_str(&b, "nested"); put_u32(&b, 9);
        for (i = 0; i < 20; i++) { put_u32(&b, 9); put_u64(&b, 1); }
        put_u32(&b, 4); put_u64(&b, 1); put_u32(&b, 7);
        expect_fail(&b, "arrays nested 20 deep", "nested");
    }
    put_hdr(&b, 3, 0, 2); kv_u32(&b, "a", 1); kv_u32(&b, "a", 2); expect_fail(&b, "duplicate key", "twice");
    put_hdr(&b, 3, 0, 3); kv_str(&b, "tokenizer.ggml.model", "llama"); kv_tokens(&b, 4); kv_u32(&b, "tokenizer.ggml.bos_token_id", 4);
    expect_fail(&b, "bos id outside the vocabulary", "outside");
    {   /* llama.cpp's end-of-turn ids join the tokens that end generation (eos itself and ids outside the vocabulary left out) */
        srti_model *m = NULL;
        char err[512];
        put_hdr(&b, 3, 0, 5); kv_str(&b, "tokenizer.ggml.model", "llama"); kv_tokens(&b, 4); kv_u32(&b, "tokenizer.ggml.eos_token_id", 1);
        kv_u32(&b, "tokenizer.ggml.eot_token_id", 3); kv_u32(&b, "tokenizer.ggml.eom_token_id", 1);
        spit(TMP "crafted.gguf", b.p, b.n);
        b.n = 0;
        CHECK(srti_open(TMP "crafted.gguf", NULL, &m, err, sizeof err) == 0 && m->vocab.eos == 1 && m->vocab.n_eog == 1 && m->vocab.eog[0] == 3,
              "GGUF eot_token_id 3 (and eom 1, the eos) give one more token that ends generation: %s", err);
        srti_close(m);
    }
    put_hdr(&b, 3, 0, 3); kv_str(&b, "tokenizer.ggml.model", "llama"); kv_tokens(&b, 4);
    put_str(&b, "tokenizer.ggml.scores"); put_u32(&b, 9); put_u32(&b, 6); put_u64(&b, 3); put_f32(&b, 0); put_f32(&b, 0); put_f32(&b, 0);
    expect_fail(&b, "3 scores for 4 tokens", "scores");
    put_hdr(&b, 3, 0, 2); kv_str(&b, "general.architecture", "llama"); kv_str(&b, "llama.context_length", "2048");
    expect_fail(&b, "context_length as a string", "expected an integer");
    put_hdr(&b, 3, 0, 1); kv_u32(&b, "general.alignment", 24); expect_fail(&b, "alignment 24", "alignment");
    put_hdr(&b, 3, 0, 1); kv_str(&b, "general.architecture", "an-architecture-name-longer-than-32-bytes");
    expect_fail(&b, "architecture name too long", "too long");

#define TENSOR_FILE(nt) put_hdr(&b, 3, nt, 1); kv_str(&b, "general.architecture", "llama")
    TENSOR_FILE(1); tinfo(&b, "t", 5, 1, 1, 0, 0); expect_fail(&b, "n_dims 5", "dimensions");
    TENSOR_FILE(1); tinfo(&b, "t", 0, 1, 1, 0, 0); expect_fail(&b, "n_dims 0", "dimensions");
    TENSOR_FILE(1); tinfo(&b, "t", 2, 0, 4, 0, 0); expect_fail(&b, "ne[0] = 0", "dimension");
    TENSOR_FILE(1); tinfo(&b, "t", 2, 1ull << 32, 1ull << 32, 0, 0); expect_fail(&b, "ne product 2^64 (overflow)", "too large");
    TENSOR_FILE(1); tinfo(&b, "t", 2, 0xFFFFFFFFFFFFFFFFull, 2, 0, 0); expect_fail(&b, "ne[0] = 2^64-1", "too large");
    TENSOR_FILE(1); tinfo(&b, "t", 1, 33, 1, SRTI_TYPE_Q8_0, 0); expect_fail(&b, "Q8_0 row of 33 values", "block size");
    TENSOR_FILE(1); tinfo(&b, "t", 1, 16, 1, 0, 0xFFFFFFFFFFFFFFE0ull); pad_to(&b, 32); put(&b, "0123456789abcdef0123456789abcdef", 32);
    expect_fail(&b, "offset 2^64-32", "exceeds the file size");
    TENSOR_FILE(1); tinfo(&b, "t", 1, 16, 1, 0, 64); pad_to(&b, 32); put(&b, "0123456789abcdef0123456789abcdef", 32);
    expect_fail(&b, "data past the end", "exceeds the file size");
    TENSOR_FILE(1); tinfo(&b, "t", 1, 4, 1, 0, 4); pad_to(&b, 32); put(&b, "0123456789abcdef0123456789abcdef", 32);
    expect_fail(&b, "misaligned offset", "alignment");
    TENSOR_FILE(2); tinfo(&b, "t", 1, 4, 1, 0, 0); tinfo(&b, "t", 1, 4, 1, 0, 0); pad_to(&b, 32); put(&b, "0123456789abcdef", 16);
    expect_fail(&b, "duplicate tensor name", "twice");
    {
        char longname[200];
        memset(longname, 'a', sizeof longname); longname[199] = 0;
        TENSOR_FILE(1); tinfo(&b, longname, 1, 4, 1, 0, 0); pad_to(&b, 32); put(&b, "0123456789abcdef", 16);
        expect_fail(&b, "tensor name of 199 bytes", "too long");
    }
    TENSOR_FILE(1); put_u64(&b, 0xFFFFFFFFull); expect_fail(&b, "tensor name length 2^32-1", "exceeds");

    {   /* a valid synthetic GGUF: F16, BF16, Q8_0, Q4_0, an unsupported and an unknown type */
        static const uint16_t f16v[4] = { 0x3C00, 0xC000, 0x3555, 0x0001 };
        static const uint16_t bf16v[4] = { 0x3F80, 0xC040, 0x4049, 0x8000 };
        unsigned char q8[34], q4[18];
        float out[64];
        int i, okq8 = 1, okq4 = 1;
        q8[0] = 0x00; q8[1] = 0x38;   /* d = 0.5 */
        for (i = 0; i < 32; i++) q8[2 + i] = (unsigned char)(i * 7 - 100);
        q4[0] = 0x00; q4[1] = 0x40;   /* d = 2 */
        for (i = 0; i < 16; i++) q4[2 + i] = (unsigned char)(i | ((15 - i) << 4));
        put_hdr(&b, 2, 6, 3); kv_str(&b, "general.architecture", "llama"); kv_u32(&b, "general.alignment", 64);
        kv_u32(&b, "llama.context_length", 77);
        tinfo(&b, "f16", 1, 4, 1, SRTI_TYPE_F16, 0);
        tinfo(&b, "bf16", 1, 4, 1, SRTI_TYPE_BF16, 64);
        tinfo(&b, "q8", 1, 32, 1, SRTI_TYPE_Q8_0, 128);
        tinfo(&b, "q4", 1, 32, 1, SRTI_TYPE_Q4_0, 192);
        tinfo(&b, "iq2", 1, 256, 1, SRTI_TYPE_IQ2_XXS, 256);
        tinfo(&b, "t99", 1, 4, 1, 99, 384);
        pad_to(&b, 64);
        for (i = 0; i < 4; i++) put_u16(&b, f16v[i]);
        pad_to(&b, 64);
        for (i = 0; i < 4; i++) put_u16(&b, bf16v[i]);
        pad_to(&b, 64); put(&b, q8, 34);
        pad_to(&b, 64); put(&b, q4, 18);
        pad_to(&b, 64); { for (i = 0; i < 66; i++) put_u8(&b, 0); }
        pad_to(&b, 64); { for (i = 0; i < 16; i++) put_u8(&b, 0); }
        spit(TMP "synthetic.gguf", b.p, b.n);
        b.n = 0;
        if (srti_open(TMP "synthetic.gguf", NULL, &m, err, sizeof err) != 0) { CHECK(0, "synthetic GGUF opens: %s", err); }
        else {
            CHECK(m->n_tensors == 6 && m->alignment == 64 && m->hp.n_ctx == 77 && m->vocab.n_tokens == 0 && strcmp(m->source_name, "GGUF v2") == 0,
                  "synthetic GGUF v2 (alignment 64, no vocab) opens, even with unsupported tensor types");
            CHECK(srti_read_f32(m, 0, out, err, sizeof err) == 0 && out[0] == 1.0f && out[1] == -2.0f &&
                  fabs(out[2] - 0.333251953125) < 1e-9 && out[3] == (float)ldexp(1.0, -24), "F16 tensor read");
            CHECK(srti_read_f32(m, 1, out, err, sizeof err) == 0 && out[0] == 1.0f && out[1] == -3.0f && out[2] == 3.140625f &&
                  out[3] == 0.0f && signbit(out[3]), "BF16 tensor read");
            CHECK(srti_read_f32(m, 2, out, err, sizeof err) == 0, "Q8_0 tensor read");
            for (i = 0; i < 32; i++) okq8 &= out[i] == 0.5f * (float)(signed char)(unsigned char)(i * 7 - 100);
            CHECK(okq8, "Q8_0 tensor values = 0.5 * q");
            CHECK(srti_read_f32(m, 3, out, err, sizeof err) == 0, "Q4_0 tensor read");
            for (i = 0; i < 16; i++) okq4 &= out[i] == 2.0f * (float)(i - 8) && out[16 + i] == 2.0f * (float)(7 - i);
            CHECK(okq4, "Q4_0 tensor values = 2 * (nibble - 8)");
            {
                float *big = (float *)malloc(256 * 4);
                err[0] = 0;
                CHECK(srti_read_f32(m, 4, big, err, sizeof err) != 0 && strstr(err, "IQ2_XXS") && strstr(err, "iq2"),
                      "unsupported type is an error at read time: %s", err);
                err[0] = 0;
                CHECK(srti_read_f32(m, 5, big, err, sizeof err) != 0 && strstr(err, "99"), "unknown type 99 at read time: %s", err);
                free(big);
            }
            CHECK(srti_check_llama(m, err, sizeof err) != 0 && err[0], "srti_check_llama refuses it: %s", err);
            srti_close(m); m = NULL;
        }
    }
    free(b.p);
}


/* llama.cpp's Llama-3 GGUFs carry rope_freqs.weight instead of rope.scaling.* metadata */
static void test_llama3_rope(void) {
    buf b = { NULL, 0, 0 };
    int pass, j;
    char err[512];
    for (pass = 0; pass < 5; pass++) {   /* (pass 4: EXAONE 3.5's GGUF, llama.cpp's "exaone") */
        srti_model *m = NULL;
        const char *arch = pass == 2 ? "qwen2" : pass == 3 ? "qwen3" : pass == 4 ? "exaone" : "llama";
        char k1[64], k2[64];
        snprintf(k1, sizeof k1, "%s.rope.freq_base", arch);
        snprintf(k2, sizeof k2, "%s.rope.dimension_count", arch);
        b.n = 0;
        put_hdr(&b, 3, 1, 3);
        kv_str(&b, "general.architecture", arch);
        put_str(&b, k1); put_u32(&b, 6); put_f32(&b, 500000.0f);
        kv_u32(&b, k2, 64);
        tinfo(&b, "rope_freqs.weight", 1, 32, 1, SRTI_TYPE_F32, 0);
        pad_to(&b, 32);
        for (j = 0; j < 32; j++) {
            double freq = 1.0 / pow(500000.0, (2.0 * j) / 64.0), wl = 2 * 3.14159265358979323846 / freq, v;
            if (wl < 8192.0 / 4.0) v = 1.0;
            else if (wl > 8192.0) v = 32.0;
            else { double sm = (8192.0 / wl - 1.0) / 3.0; v = 1.0 / ((1.0 - sm) / 32.0 + sm); }
            if (pass == 1 && j == 20) v *= 1.5;   /* not a llama3 table */
            put_f32(&b, (float)v);
        }
        spit(TMP "rope.gguf", b.p, b.n);
        if (srti_open(TMP "rope.gguf", NULL, &m, err, sizeof err) != 0) { CHECK(0, "rope_freqs GGUF opens: %s", err); continue; }
        if (pass == 4)
            CHECK(strcmp(m->hp.rope_scaling, "llama3") == 0 && m->hp.rope_scale_factor == 32.0f && m->hp.rope_orig_ctx == 8192 && m->hp.rope_neox == 1,
                  "exaone: NeoX rope, llama3 rope scaling recovered from rope_freqs.weight (factor %g)", m->hp.rope_scale_factor);
        else if (pass == 0)
            CHECK(strcmp(m->hp.rope_scaling, "llama3") == 0 && m->hp.rope_scale_factor == 32.0f && m->hp.rope_low_freq_factor == 1.0f &&
                  m->hp.rope_high_freq_factor == 4.0f && m->hp.rope_orig_ctx == 8192 && m->hp.rope_theta == 500000.0f && m->hp.rope_neox == 0,
                  "llama3 rope scaling recovered from rope_freqs.weight (factor %g, orig %u)", m->hp.rope_scale_factor, m->hp.rope_orig_ctx);
        else if (pass == 1)
            CHECK(strcmp(m->hp.rope_scaling, "none") == 0, "a rope_freqs.weight that is not a llama3 table is left alone");
        else
            CHECK(m->hp.rope_neox == 1, "%s uses NeoX rope", arch);
        srti_close(m);
    }
    free(b.p);
}

/* A phi3 GGUF with a Q8_0 attn_qkv (2 q heads and 1 kv head of 8: q 16 rows, k and v 8, of 32 columns) and a Q4_0 ffn_up of
   2 x 8 rows: the parts are row ranges of the fused bytes. Q8_0 row r holds the code r + 1 (scale
   1), Q4_0 row r the nibble r % 8 + 8 (scale 1: value r % 8), so each split row shows where it
   came from. Also refused: an attn_qkv whose rows are not q + k + v. */
static void test_phi3_split(void) {
    buf b = {NULL, 0, 0};
    srti_model *m = NULL;
    char err[512];
    float v[16 * 32];
    int r, c, ok, qi, ki, vi, gi, ui;
    const uint64_t q8_row = 34;   /* a Q8_0 row of 32: f16 scale + 32 codes */
    put_hdr(&b, 3, 2, 9);
    kv_str(&b, "general.architecture", "phi3");
    kv_u32(&b, "phi3.embedding_length", 32); kv_u32(&b, "phi3.feed_forward_length", 8); kv_u32(&b, "phi3.block_count", 1);
    kv_u32(&b, "phi3.attention.head_count", 2); kv_u32(&b, "phi3.attention.head_count_kv", 1); kv_u32(&b, "phi3.context_length", 64);
    kv_u32(&b, "phi3.attention.sliding_window", 2047); kv_u32(&b, "phi3.attention.key_length", 8);
    tinfo(&b, "blk.0.attn_qkv.weight", 2, 32, 32, SRTI_TYPE_Q8_0, 0);
    tinfo(&b, "blk.0.ffn_up.weight", 2, 32, 16, SRTI_TYPE_Q4_0, 32 * q8_row);   /* 1088: 32-aligned */
    pad_to(&b, 32);
    for (r = 0; r < 32; r++) { put_u16(&b, 0x3C00); for (c = 0; c < 32; c++) put_u8(&b, (unsigned)(r + 1)); }
    pad_to(&b, 32);
    for (r = 0; r < 16; r++) { put_u16(&b, 0x3C00); for (c = 0; c < 16; c++) put_u8(&b, (unsigned)((r % 8 + 8) * 17)); }
    spit(TMP "phi3.gguf", b.p, b.n);
    ok = srti_open(TMP "phi3.gguf", NULL, &m, err, sizeof err) == 0;
    CHECK(ok, "a phi3 GGUF with Q8_0 attn_qkv and Q4_0 ffn_up opens (%s)", ok ? "ok" : err);
    if (ok) {
        qi = srti_find(m, "blk.0.attn_q.weight"); ki = srti_find(m, "blk.0.attn_k.weight"); vi = srti_find(m, "blk.0.attn_v.weight");
        gi = srti_find(m, "blk.0.ffn_gate.weight"); ui = srti_find(m, "blk.0.ffn_up.weight");
        CHECK(m->n_tensors == 5 && qi >= 0 && ki >= 0 && vi >= 0 && gi >= 0 && ui >= 0 && m->tensors[qi].ne[1] == 16 && m->tensors[ki].ne[1] == 8 &&
              m->tensors[vi].ne[1] == 8 && m->tensors[gi].ne[1] == 8 && m->tensors[ui].ne[1] == 8 && m->hp.rope_neox == 1 && m->hp.sliding_window == 2047,
              "split into attn_q [32, 16], attn_k and attn_v [32, 8], ffn_gate and ffn_up [32, 8]; NeoX rope, sliding window 2047 recorded");
        if (m->n_tensors == 5 && qi >= 0 && ki >= 0 && vi >= 0 && gi >= 0 && ui >= 0) {
            static const struct { int first; } rows[5] = {{1}, {17}, {25}, {0}, {8}};
            int idx[5], t;
            idx[0] = qi; idx[1] = ki; idx[2] = vi; idx[3] = gi; idx[4] = ui;
            for (t = 0, ok = 1; t < 5 && ok; t++) {
                ok = srti_read_f32(m, (uint32_t)idx[t], v, err, sizeof err) == 0;
                for (r = 0; ok && r < (int)m->tensors[idx[t]].ne[1]; r++)
                    for (c = 0; ok && c < 32; c++) ok = v[r * 32 + c] == (float)(t < 3 ? rows[t].first + r : (rows[t].first + r) % 8);
            }
            CHECK(ok, "each part reads the fused tensor's rows: q rows 0-15, k 16-23, v 24-31; gate rows 0-7, up 8-15 (%s)", ok ? "ok" : err);
        }
    }
    srti_close(m);
    free(b.p);
    b.p = NULL; b.n = b.cap = 0;
    put_hdr(&b, 3, 1, 5);
    kv_str(&b, "general.architecture", "phi3");
    kv_u32(&b, "phi3.embedding_length", 32); kv_u32(&b, "phi3.feed_forward_length", 8); kv_u32(&b, "phi3.block_count", 1);
    kv_u32(&b, "phi3.attention.head_count", 2);
    tinfo(&b, "blk.0.attn_qkv.weight", 2, 32, 40, SRTI_TYPE_Q8_0, 0);
    pad_to(&b, 32);
    for (r = 0; r < 40; r++) { put_u16(&b, 0x3C00); for (c = 0; c < 32; c++) put_u8(&b, 1); }
    expect_fail(&b, "phi3 attn_qkv of 40 rows for q 32 + k 32 + v 32", "cannot be split into q, k and v");
    free(b.p);
}

/* Gemma GGUFs as llama.cpp writes them: the keys read (soft caps, sliding window and pattern, the
   sliding layers' rope base), NeoX rope, and attention.scale from llama.cpp's rule when the file
   has none (1 / sqrt(n_embd / n_head) for the 27B models, 46 layers in Gemma 2 and 62 in Gemma 3;
   else 1 / sqrt(head_dim)); a Gemma 1 file ("gemma") has only the scale (those keys are not read,
   as llama.cpp reads none of them for it); a complete 1-layer gemma2 file passes srti_check_llama
   and the same without its post-FFN norm, or a gemma3 one without its q/k norms, is refused naming
   the tensor; a 1-layer gemma file without post norms passes. */
static void kv_f32(buf *b, const char *k, float v) { put_str(b, k); put_u32(b, 6); put_f32(b, v); }
static void test_gemma(void) {
    static const struct { const char *arch; uint32_t layers; int scale_key; float want; const char *what; } hp[] = {
        {"gemma2", 46, 0, 0.25f, "gemma2 of 46 layers (27B): 1 / sqrt(64 / 4)"},
        {"gemma2", 26, 0, 0.1767767f, "gemma2 of 26 layers: 1 / sqrt(head_dim 32)"},
        {"gemma3", 62, 0, 0.25f, "gemma3 of 62 layers (27B): 1 / sqrt(64 / 4)"},
        {"gemma3", 26, 1, 0.125f, "gemma3 with attention.scale 0.125"},
        {"gemma", 28, 0, 0.1767767f, "gemma (Gemma 1) of 28 layers: 1 / sqrt(head_dim 32)"},
    };
    char err[512], key[96];
    size_t i;
    buf b = {NULL, 0, 0};
    for (i = 0; i < sizeof hp / sizeof hp[0]; i++) {
        srti_model *m = NULL;
        const char *a = hp[i].arch;
        int ok;
#define K(s) (snprintf(key, sizeof key, "%s." s, a), key)
        b.n = 0;
        put_hdr(&b, 3, 0, 11 + (uint64_t)hp[i].scale_key);
        kv_str(&b, "general.architecture", a);
        kv_u32(&b, K("embedding_length"), 64); kv_u32(&b, K("feed_forward_length"), 128); kv_u32(&b, K("block_count"), hp[i].layers);
        kv_u32(&b, K("attention.head_count"), 4); kv_u32(&b, K("attention.head_count_kv"), 2); kv_u32(&b, K("attention.key_length"), 32);
        kv_f32(&b, K("attn_logit_softcapping"), 50.0f); kv_f32(&b, K("final_logit_softcapping"), 30.0f);
        kv_u32(&b, K("attention.sliding_window"), 4096); kv_f32(&b, K("rope.freq_base_swa"), 20000.0f);
        if (hp[i].scale_key) kv_f32(&b, K("attention.scale"), 0.125f);
#undef K
        spit(TMP "gemma.gguf", b.p, b.n);
        ok = srti_open(TMP "gemma.gguf", NULL, &m, err, sizeof err) == 0;
        if (strcmp(a, "gemma") != 0)
            CHECK(ok && fabsf(m->hp.attn_scale - hp[i].want) < 1e-6f && m->hp.attn_softcap == 50.0f && m->hp.final_softcap == 30.0f &&
                      m->hp.sliding_window == 4096 && m->hp.rope_theta_swa == 20000.0f && m->hp.rope_neox == 1 && m->hp.swa_pattern == 0,
                  "%s: attention scale %g, soft caps, window, rope base read (%s)", hp[i].what, ok ? (double)m->hp.attn_scale : 0.0, ok ? "ok" : err);
        else
            CHECK(ok && fabsf(m->hp.attn_scale - hp[i].want) < 1e-6f && m->hp.attn_softcap == 0.0f && m->hp.final_softcap == 0.0f &&
                      m->hp.sliding_window == 0 && m->hp.rope_theta_swa == 0.0f && m->hp.rope_neox == 1,
                  "%s: attention scale %g; soft caps, window and rope base not read (%s)", hp[i].what, ok ? (double)m->hp.attn_scale : 0.0, ok ? "ok" : err);
        srti_close(m);
    }
    {   /* complete 1-layer files: E 8, F 8, 2 heads of 4, 1 KV head, 300 tokens, all F32 */
        /* swa: an attention.sliding_window of 4096 is written (OLMo 3's: its one layer slides) */
        static const struct { const char *arch, *skip, *want; int swa; } f[] = {
            {"gemma2", NULL, NULL, 0}, {"gemma2", "blk.0.post_ffw_norm.weight", "blk.0.post_ffw_norm.weight", 0},
            {"gemma3", NULL, NULL, 0}, {"gemma3", "blk.0.attn_k_norm.weight", "blk.0.attn_k_norm.weight", 0},
            {"gemma", NULL, NULL, 0}, {"smollm3", NULL, NULL, 0},   /* (smollm3, granite: Llama's tensors, as gemma's without post norms) */
            {"granite", NULL, NULL, 0}, {"granite", "granite.logit_scale", "granite needs a logit scale", 0},   /* (skip: a key here) */
            {"minicpm", NULL, NULL, 0}, {"minicpm", "minicpm.logit_scale", "minicpm needs a logit scale", 0},   /* (MiniCPM: Granite's keys) */
            {"olmo2", NULL, NULL, 0}, {"olmo2", "blk.0.attn_q_norm.weight", "blk.0.attn_q_norm.weight", 0}, {"olmo2", NULL, NULL, 1},
        };
        /* only: 0 every architecture, 1 gemma3 (per-head q/k norms), 2 gemma2, gemma3 and olmo2 (output norms), 3 all but olmo2 (input norms),
           4 olmo2 (q/k norms of all heads: q's 8 values, not a head's 4) */
        static const struct { const char *name; uint64_t ne0, ne1; int only; } t[] = {
            {"token_embd.weight", 8, 300, 0}, {"output_norm.weight", 8, 1, 0}, {"blk.0.attn_norm.weight", 8, 1, 3},
            {"blk.0.attn_q.weight", 8, 8, 0}, {"blk.0.attn_k.weight", 8, 4, 0}, {"blk.0.attn_v.weight", 8, 4, 0},
            {"blk.0.attn_output.weight", 8, 8, 0}, {"blk.0.post_attention_norm.weight", 8, 1, 2}, {"blk.0.ffn_norm.weight", 8, 1, 3},
            {"blk.0.ffn_gate.weight", 8, 8, 0}, {"blk.0.ffn_up.weight", 8, 8, 0}, {"blk.0.ffn_down.weight", 8, 8, 0},
            {"blk.0.post_ffw_norm.weight", 8, 1, 2}, {"blk.0.attn_q_norm.weight", 4, 1, 1}, {"blk.0.attn_k_norm.weight", 4, 1, 1},
            {"blk.0.attn_q_norm.weight", 8, 1, 4}, {"blk.0.attn_k_norm.weight", 4, 1, 4},
        };
        size_t fi, ti;
        for (fi = 0; fi < sizeof f / sizeof f[0]; fi++) {
            const char *a = f[fi].arch;
            const int g3 = !strcmp(a, "gemma3"), granite = !strcmp(a, "granite") || !strcmp(a, "minicpm"), olmo2 = !strcmp(a, "olmo2");
            const int post = !strcmp(a, "gemma2") || g3 || olmo2;   /* norms of the attention's and the FFN's outputs */
            uint64_t n_t = 0, off = 0, j;
            srti_model *m = NULL;
            int ok;
#define SKIP(ti) ((t[ti].only == 1 && !g3) || (t[ti].only == 2 && !post) || (t[ti].only == 3 && olmo2) || (t[ti].only == 4 && !olmo2) || \
                  (f[fi].skip && !strcmp(f[fi].skip, t[ti].name)))
            for (ti = 0; ti < sizeof t / sizeof t[0]; ti++) n_t += !SKIP(ti);
            b.n = 0;
            put_hdr(&b, 3, n_t, 9 + (granite ? (f[fi].skip ? 3 : 4) : 0) + f[fi].swa);
#define K(s) (snprintf(key, sizeof key, "%s." s, a), key)
            kv_str(&b, "general.architecture", a);
            kv_u32(&b, K("embedding_length"), 8); kv_u32(&b, K("feed_forward_length"), 8); kv_u32(&b, K("block_count"), 1);
            kv_u32(&b, K("attention.head_count"), 2); kv_u32(&b, K("attention.head_count_kv"), 1); kv_u32(&b, K("context_length"), 64);
            if (granite) {   /* llama.cpp's keys, Granite 3 2B-style multipliers; logit_scale is required */
                kv_f32(&b, K("embedding_scale"), 12.0f); kv_f32(&b, K("residual_scale"), 0.22f); kv_f32(&b, K("attention.scale"), 0.015625f);
                if (!f[fi].skip) kv_f32(&b, K("logit_scale"), 8.0f);
            }
            if (f[fi].swa) kv_u32(&b, K("attention.sliding_window"), 4096);
#undef K
            kv_str(&b, "tokenizer.ggml.model", "llama");
            kv_tokens(&b, 300);
            for (ti = 0; ti < sizeof t / sizeof t[0]; ti++) {
                if (SKIP(ti)) continue;
                tinfo(&b, t[ti].name, t[ti].ne1 > 1 ? 2 : 1, t[ti].ne0, t[ti].ne1, SRTI_TYPE_F32, off);
                off += (t[ti].ne0 * t[ti].ne1 * 4 + 31) / 32 * 32;
            }
            pad_to(&b, 32);
            for (j = 0; j < off / 4; j++) put_f32(&b, 0.01f * (float)(j % 7));
            spit(TMP "gemma.gguf", b.p, b.n);
            ok = srti_open(TMP "gemma.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
            if (!f[fi].want) {
                CHECK(ok, "a complete 1-layer %s GGUF passes the check (%s)", a, ok ? "ok" : err);
                /* srt-pack loads what it wrote (srt_model_load: the runtime takes the keys and tensors) */
                CHECK(system("build/srt-pack -q " TMP "gemma.gguf " TMP "gemma.srt > " TMP "gemma_pack.log 2>&1") == 0,
                      "srt-pack packs it and the runtime loads the result (" TMP "gemma_pack.log)");
                if (!strcmp(a, "smollm3")) {   /* llama.cpp's GGUF has no NoPE key: its fixed step 4 is written; adjacent-pair RoPE */
                    srt_model *sm = NULL;
                    srt_model_desc md;
                    uint32_t step = 0, neox = 9;
                    memset(&md, 0, sizeof md);
                    ok = m && m->hp.nope_step == 4 && m->hp.rope_neox == 0 && srt_model_load(TMP "gemma.srt", &md, &sm) == SRT_OK &&
                         srt_model_meta_u32(sm, "smollm3.no_rope_layer_step", &step) && step == 4 && srt_model_meta_u32(sm, "smollm3.rope.neox", &neox) && neox == 0;
                    CHECK(ok, "smollm3: no_rope_layer_step 4 (absent from the GGUF) and rope.neox 0 in the packed file (%s)", ok ? "ok" : srt_last_error());
                    srt_model_free(sm);
                }
                if (granite) {   /* the multipliers reach the packed file; adjacent-pair RoPE */
                    srt_model *sm = NULL;
                    srt_model_desc md;
                    float es = 0, rs = 0, ls = 0, as = 0;
                    uint32_t neox = 9;
                    memset(&md, 0, sizeof md);
#define K(s) (snprintf(key, sizeof key, "%s." s, a), key)
                    ok = m && m->hp.rope_neox == 0 && srt_model_load(TMP "gemma.srt", &md, &sm) == SRT_OK &&
                         srt_model_meta_f32(sm, K("embedding_scale"), &es) && es == 12.0f && srt_model_meta_f32(sm, K("residual_scale"), &rs) &&
                         rs == 0.22f && srt_model_meta_f32(sm, K("logit_scale"), &ls) && ls == 8.0f &&
                         srt_model_meta_f32(sm, K("attention.scale"), &as) && as == 0.015625f && srt_model_meta_u32(sm, K("rope.neox"), &neox) && neox == 0;
#undef K
                    CHECK(ok, "%s: embedding 12, residual 0.22, logit 8, attention 1/64 and rope.neox 0 in the packed file (%s)", a, ok ? "ok" : srt_last_error());
                    srt_model_free(sm);
                }
                if (olmo2) {   /* NeoX rope by architecture; the packed file has no input norms and q's norm over both heads */
                    srt_model *sm = NULL;
                    srt_model_desc md;
                    memset(&md, 0, sizeof md);
                    srt_model_info info;
                    memset(&info, 0, sizeof info);
                    ok = m && m->hp.rope_neox == 1 && srt_model_load(TMP "gemma.srt", &md, &sm) == SRT_OK;
                    if (ok) srt_model_get_info(sm, &info);
                    ok = ok && info.n_swa_layers == f[fi].swa && info.swa_window == (f[fi].swa ? 4096 : 0);
                    CHECK(ok, "olmo2%s: NeoX rope; the packed file (post norms only, q/k norms of 8 and 4 values) loads%s (%s)", f[fi].swa ? " (OLMo 3)" : "",
                          f[fi].swa ? " with its layer sliding over 4096 positions" : "", ok ? "ok" : srt_last_error());
                    srt_model_free(sm);
                }
                remove(TMP "gemma.srt");
            }
            else CHECK(!ok && strstr(err, f[fi].want), "a %s GGUF without %s is refused (%s)", a, f[fi].skip ? f[fi].skip : "", err);
            srti_close(m);
#undef SKIP
        }
    }
    free(b.p);
    remove(TMP "gemma.gguf");
}

/* ---- sliding layers as llama.cpp reads them. EXAONE 4: only the 64-layer model (the 32B) has
   them, window 4096 and 3 sliding layers of every 4 unless the file says otherwise; other sizes
   have none whatever the file records. OLMo 3 ("olmo2" with attention.sliding_window): 3 of every 4
   unless the file says otherwise, and its YaRN keys (as llama.cpp's converter writes OLMo 3's)
   reach the packed file. The pattern as a number or as one bool per layer (newer converters),
   which must follow a period P (layer l slides iff l % P < P - 1). Complete tiny files (E 8, 2
   heads of 4, 1 KV head) are packed and loaded: the runtime reports the sliding layers. */
static void test_swa_layers(void) {
    static const struct { const char *arch; uint32_t layers, window; int pattern; const char *flags; uint32_t want_window, want_pattern; int swa_layers;
                          const char *want_err, *what; } c[] = {
        {"exaone4", 64, 0, -1, NULL, 4096, 4, 48, NULL, "64 layers, no keys: llama.cpp's window 4096, 3 sliding layers of 4"},
        {"exaone4", 64, 512, -1, "LLLG", 512, 4, 48, NULL, "64 layers, window 512, the pattern as LLLG flags"},
        {"exaone4", 64, 512, 2, NULL, 512, 2, 32, NULL, "64 layers, window 512, sliding_window_pattern 2"},
        {"exaone4", 64, 0, -1, "LG", 4096, 2, 32, NULL, "64 layers, the pattern as LG flags"},
        {"exaone4", 64, 0, -1, "LLGL", 0, 0, 0, "is not a pattern", "64 layers, flags LLGL repeated (no period)"},
        {"exaone4", 64, 0, -1, "short", 0, 0, 0, "a bool for each of the 64 layers", "64 layers, 63 flags"},
        {"exaone4", 6, 4096, -1, "LLLG", 0, 0, 0, NULL, "6 layers with a window and flags: none (llama.cpp applies them to the 64-layer model only)"},
        {"olmo2", 8, 4096, -1, "LLLG", 4096, 4, 6, NULL, "OLMo 3: 8 layers, window 4096, LLLG flags, YaRN 8"},
        {"olmo2", 6, 64, -1, NULL, 64, 4, 5, NULL, "OLMo 3: 6 layers, window 64, no pattern key (3 of every 4), YaRN 8"},
        {"olmo2", 6, 0, -1, NULL, 0, 0, 0, NULL, "OLMo 2: 6 layers without a window"},
    };
    static const struct { const char *name; uint64_t ne0, ne1; } lt[] = {   /* (olmo2's q norm: both heads, 8 values) */
        {"attn_q.weight", 8, 8}, {"attn_k.weight", 8, 4}, {"attn_v.weight", 8, 4}, {"attn_output.weight", 8, 8},
        {"attn_q_norm.weight", 4, 1}, {"attn_k_norm.weight", 4, 1}, {"post_attention_norm.weight", 8, 1},
        {"ffn_gate.weight", 8, 8}, {"ffn_up.weight", 8, 8}, {"ffn_down.weight", 8, 8}, {"post_ffw_norm.weight", 8, 1},
    };
    const size_t NLT = sizeof lt / sizeof lt[0];
    char err[512], nm[96], key[96];
    size_t i, k;
    buf b = {NULL, 0, 0};
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *a = c[i].arch;
        const int olmo3 = !strcmp(a, "olmo2") && c[i].window > 0;   /* with YaRN, as OLMo-3-7B's config has it */
        srti_model *m = NULL;
        uint64_t off = 0, j, l;
        int ok;
#define K(s) (snprintf(key, sizeof key, "%s." s, a), key)
        b.n = 0;
        put_hdr(&b, 3, 2 + (uint64_t)c[i].layers * NLT, 10 + (c[i].window > 0) + (c[i].pattern >= 0) + (c[i].flags != NULL) + 4 * olmo3);
        kv_str(&b, "general.architecture", a);
        kv_u32(&b, K("embedding_length"), 8); kv_u32(&b, K("feed_forward_length"), 8); kv_u32(&b, K("block_count"), c[i].layers);
        kv_u32(&b, K("attention.head_count"), 2); kv_u32(&b, K("attention.head_count_kv"), 1); kv_u32(&b, K("context_length"), 64);
        if (c[i].window) kv_u32(&b, K("attention.sliding_window"), c[i].window);
        if (c[i].pattern >= 0) kv_u32(&b, K("attention.sliding_window_pattern"), (uint32_t)c[i].pattern);
        if (c[i].flags) {   /* a GGUF array (9) of bools (7): 'L' = true; "short": one layer's flag missing */
            const int shrt = !strcmp(c[i].flags, "short");
            const uint64_t n = c[i].layers - (uint64_t)shrt;
            put_str(&b, K("attention.sliding_window_pattern")); put_u32(&b, 9); put_u32(&b, 7); put_u64(&b, n);
            for (l = 0; l < n; l++) put_u8(&b, shrt ? l % 4 < 3 : c[i].flags[l % strlen(c[i].flags)] == 'L');
        }
        if (olmo3) {
            kv_str(&b, K("rope.scaling.type"), "yarn"); kv_f32(&b, K("rope.scaling.factor"), 8.0f);
            kv_u32(&b, K("rope.scaling.original_context_length"), 8192); kv_f32(&b, K("rope.scaling.yarn_attn_factor"), 1.2079441f);
        }
        kv_str(&b, "tokenizer.ggml.model", "llama");
        kv_tokens(&b, 300);
        kv_f32(&b, K("rope.freq_base"), olmo3 ? 5e5f : 1e6f);
#undef K
        tinfo(&b, "token_embd.weight", 2, 8, 300, SRTI_TYPE_F32, off); off += 8 * 300 * 4;
        tinfo(&b, "output_norm.weight", 1, 8, 1, SRTI_TYPE_F32, off); off += 32;
        for (l = 0; l < c[i].layers; l++)
            for (k = 0; k < NLT; k++) {
                snprintf(nm, sizeof nm, "blk.%u.%s", (unsigned)l, lt[k].name);
                tinfo(&b, nm, lt[k].ne1 > 1 ? 2 : 1, k == 4 && !strcmp(a, "olmo2") ? 8 : lt[k].ne0, lt[k].ne1, SRTI_TYPE_F32, off);
                off += (lt[k].ne0 * lt[k].ne1 * 4 + 31) / 32 * 32;
            }
        pad_to(&b, 32);
        for (j = 0; j < off / 4; j++) put_f32(&b, 0.05f * (float)((j * 7) % 11) - 0.2f);
        spit(TMP "exaone4.gguf", b.p, b.n);
        ok = srti_open(TMP "exaone4.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
        if (c[i].want_err) CHECK(!ok && strstr(err, c[i].want_err), "%s: %s is refused (%s)", a, c[i].what, err);
        else {
            srt_model *sm = NULL;
            srt_model_desc md;
            srt_model_info info;
            int finite = 0;
            memset(&info, 0, sizeof info);
            ok = ok && m->hp.sliding_window == c[i].want_window && m->hp.swa_pattern == c[i].want_pattern && m->hp.rope_neox == 1;
            CHECK(ok, "%s: %s: window %u, pattern %u read, NeoX rope (%s)", a, c[i].what, ok ? m->hp.sliding_window : 0, ok ? m->hp.swa_pattern : 0,
                  ok ? "ok" : err);
            ok = ok && system("build/srt-pack -q " TMP "exaone4.gguf " TMP "exaone4.srt > " TMP "exaone4_pack.log 2>&1") == 0;
            memset(&md, 0, sizeof md);
            ok = ok && srt_model_load(TMP "exaone4.srt", &md, &sm) == SRT_OK;
            if (ok && olmo3) {   /* the YaRN keys reach the packed file */
                const char *type = "";
                float f = 0, af = 0;
                uint32_t orig = 0;
                ok = srt_model_meta_str(sm, "olmo2.rope.scaling.type", &type) && !strcmp(type, "yarn") && srt_model_meta_f32(sm, "olmo2.rope.scaling.factor", &f) &&
                     f == 8.0f && srt_model_meta_u32(sm, "olmo2.rope.scaling.original_context_length", &orig) && orig == 8192 &&
                     srt_model_meta_f32(sm, "olmo2.rope.scaling.yarn_attn_factor", &af) && af == 1.2079441f;
                CHECK(ok, "olmo2: %s: yarn, factor 8, original context 8192, attention factor 1.2079 in the packed file", c[i].what);
            }
            if (ok) {
                srt_session *s = NULL;
                srt_session_desc sd;
                int32_t toks[5] = {1, 20, 30, 40, 50};
                memset(&sd, 0, sizeof sd);
                sd.n_ctx = 32;
                srt_model_get_info(sm, &info);
                if (srt_session_create(sm, &sd, &s) == SRT_OK && srt_session_feed(s, toks, 5) == SRT_OK && srt_session_logits(s)) {
                    const float *lg = srt_session_logits(s);
                    for (finite = 1, j = 0; j < 300; j++) finite = finite && lg[j] == lg[j] && fabsf(lg[j]) < 1e30f;
                }
                srt_session_destroy(s);
            }
            CHECK(ok && info.n_swa_layers == c[i].swa_layers && info.swa_window == (int)c[i].want_window && finite,
                  "%s: %s: packed, the runtime has %d sliding layers of window %d (%d expected) and evaluates 5 tokens (%s)", a, c[i].what,
                  info.n_swa_layers, info.swa_window, c[i].swa_layers, ok ? "ok" : srt_last_error());
            srt_model_free(sm);
            remove(TMP "exaone4.srt");
        }
        srti_close(m);
    }
    free(b.p);
    remove(TMP "exaone4.gguf");
}

/* ---- mixture of experts (Mixtral as "llama" with expert_count, "qwen3moe", "qwen2moe", "granitemoe", "olmoe") */
/* A 2-layer MoE GGUF of n_embd 32, expert width 64, 2 heads of 16 (1 KV head), 300 tokens. The
   experts are llama.cpp's 3-D blk.N.ffn_{gate,up,down}_exps.weight, or with per_expert the older
   2-D blk.N.ffn_{gate,up,down}.X.weight; expert X of layer l, kind k (gate, up, down) holds the bytes
   moe_bytes(moe_seed(l, k, X), ...) in either form, so both files hold the same experts. */
#define ME 32
#define MF 64
#define MV 300
typedef struct moe_cfg {
    const char *arch;
    uint32_t n_expert;        /* expert_count (0: the key is absent) */
    int n_used;               /* expert_used_count (-1: absent) */
    uint32_t exps_type;       /* the experts' ggml type */
    int per_expert;           /* 1: 2-D tensors per expert */
    int no_router;            /* 1: blk.1.ffn_gate_inp.weight left out */
    uint32_t ne2;             /* the 3-D tensors' third dimension (0: n_expert) */
    int both;                 /* 1: blk.0.ffn_gate.0.weight stored besides the 3-D tensors */
    int norm, norm_type;      /* expert_weights_norm (-1: absent) and its GGUF type (7 bool, 4 uint32) */
    int shexp;                /* 1 = the shared expert (width MS, expert_shared_feed_forward_length); qwen2moe: and its gate vector */
    int no_sinks;             /* gpt-oss: 1 = blk.1.attn_sinks.weight left out */
} moe_cfg;
#define MS 96
static uint32_t moe_seed(uint32_t l, uint32_t k, uint32_t x) { return 10000u + (l * 3u + k) * 64u + x; }
/* nvalues of ggml type `type` from a generator seeded by `seed`: small floats, or quantized blocks of
   random codes with a positive f16 scale of 2^-7 .. 2^-6 */
static void moe_bytes(buf *b, uint32_t seed, uint32_t type, uint64_t nvalues) {
    uint32_t s = seed * 2654435761u + 1u, bv = 1, bb = 4;
    uint64_t i, j;
#define MOE_R() (s = s * 1664525u + 1013904223u, s >> 8)
    srti_type_block(type, &bv, &bb);
    for (i = 0; i < nvalues / bv; i++) {
        if (type == SRTI_TYPE_F32) { put_f32(b, (float)((int)(MOE_R() % 2001u) - 1000) / 4000.0f); continue; }
        if (type == SRTI_TYPE_MXFP4) { put_u8(b, 120u + MOE_R() % 6u); for (j = 1; j < bb; j++) put_u8(b, MOE_R() & 255u); continue; }   /* 2^-8 .. 2^-3 */
        put_u16(b, 0x2000u + MOE_R() % 0x400u);
        for (j = 2; j < bb; j++) put_u8(b, MOE_R() & 255u);
    }
#undef MOE_R
}
static uint64_t moe_nbytes(uint32_t type, uint64_t nvalues) { uint32_t bv = 1, bb = 4; srti_type_block(type, &bv, &bb); return nvalues / bv * bb; }
static void moe_write(const moe_cfg *c, const char *path) {
    static const char *const kinds[3] = {"gate", "up", "down"};
    buf kv = {NULL, 0, 0}, ti = {NULL, 0, 0}, data = {NULL, 0, 0}, f = {NULL, 0, 0};
    const uint32_t X = c->n_expert ? c->n_expert : 4, X3 = c->ne2 ? c->ne2 : X;
    uint64_t n_kv = 0, n_t = 0;
    uint32_t l, k, x;
    char key[96], nm[96];
    const char *a = c->arch;
    const int gptoss = !strcmp(a, "gpt-oss");
#define K(s) (snprintf(key, sizeof key, "%s." s, a), key)
    kv_str(&kv, "general.architecture", a); n_kv++;
    kv_u32(&kv, K("embedding_length"), ME); kv_u32(&kv, K("feed_forward_length"), 96); kv_u32(&kv, K("block_count"), 2);
    kv_u32(&kv, K("attention.head_count"), 2); kv_u32(&kv, K("attention.head_count_kv"), 1); kv_u32(&kv, K("context_length"), 64);
    kv_u32(&kv, K("expert_feed_forward_length"), MF); n_kv += 7;
    if (!strcmp(a, "gpt-oss")) { kv_u32(&kv, K("attention.sliding_window"), 3); n_kv++; }   /* (llama.cpp's: no pattern key, layer 0 of 2 slides) */
    put_str(&kv, K("attention.layer_norm_rms_epsilon")); put_u32(&kv, 6); put_f32(&kv, 1e-6f); n_kv++;
    if (c->n_expert) { kv_u32(&kv, K("expert_count"), c->n_expert); n_kv++; }
    if (c->n_used >= 0) { kv_u32(&kv, K("expert_used_count"), (uint32_t)c->n_used); n_kv++; }
    if (c->shexp) { kv_u32(&kv, K("expert_shared_feed_forward_length"), MS); n_kv++; }
    if (!strcmp(a, "granitemoe")) {   /* Granite's multipliers (logit_scale required) */
        static const char *const gk[4] = {"embedding_scale", "residual_scale", "logit_scale", "attention.scale"};
        static const float gv[4] = {2.0f, 0.5f, 4.0f, 0.125f};
        int i;
        for (i = 0; i < 4; i++) { snprintf(key, sizeof key, "%s.%s", a, gk[i]); put_str(&kv, key); put_u32(&kv, 6); put_f32(&kv, gv[i]); n_kv++; }
    }
    if (c->norm >= 0) {
        put_str(&kv, K("expert_weights_norm")); put_u32(&kv, (uint32_t)c->norm_type);
        if (c->norm_type == 7) put_u8(&kv, (unsigned)c->norm); else put_u32(&kv, (uint32_t)c->norm);
        n_kv++;
    }
#undef K
    {   /* <unk>, <s>, </s>, the 256 byte tokens, then t259 ..: any text tokenizes (byte fallback) */
        uint32_t i;
        char tok[16];
        kv_str(&kv, "tokenizer.ggml.model", "llama");
        put_str(&kv, "tokenizer.ggml.tokens"); put_u32(&kv, 9); put_u32(&kv, 8); put_u64(&kv, MV);
        for (i = 0; i < MV; i++) {
            if (i < 3) snprintf(tok, sizeof tok, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
            else if (i < 259) snprintf(tok, sizeof tok, "<0x%02X>", (unsigned)(i - 3));
            else snprintf(tok, sizeof tok, "t%u", (unsigned)i);
            put_str(&kv, tok);
        }
        put_str(&kv, "tokenizer.ggml.token_type"); put_u32(&kv, 9); put_u32(&kv, 5); put_u64(&kv, MV);
        for (i = 0; i < MV; i++) put_u32(&kv, i == 0 ? 2u : i < 3 ? 3u : i < 259 ? 6u : 1u);
        kv_u32(&kv, "tokenizer.ggml.bos_token_id", 1); kv_u32(&kv, "tokenizer.ggml.unknown_token_id", 0);
        n_kv += 5;
    }
#define T(name, nd, a0, a1, a2, type, seed, nseeds) do { \
        uint64_t s_; \
        put_str(&ti, name); put_u32(&ti, nd); put_u64(&ti, a0); if ((nd) > 1) put_u64(&ti, a1); if ((nd) > 2) put_u64(&ti, a2); \
        put_u32(&ti, type); put_u64(&ti, (uint64_t)data.n); n_t++; \
        for (s_ = 0; s_ < (nseeds); s_++) moe_bytes(&data, (seed) + (uint32_t)s_, type, (uint64_t)(a0) * (a1)); \
        pad_to(&data, 32); \
    } while (0)
    T("token_embd.weight", 2, ME, MV, 1, SRTI_TYPE_F32, 1, 1);
    T("output_norm.weight", 1, ME, 1, 1, SRTI_TYPE_F32, 2, 1);
    T("output.weight", 2, ME, MV, 1, SRTI_TYPE_F32, 3, 1);
    for (l = 0; l < 2; l++) {
        static const struct { const char *n; uint32_t nd, a0, a1; int qk; } d[] = {
            {"attn_norm", 1, ME, 1, 0}, {"attn_q", 2, ME, 32, 0}, {"attn_k", 2, ME, 16, 0}, {"attn_v", 2, ME, 16, 0},
            {"attn_output", 2, 32, ME, 0}, {"attn_q_norm", 1, 16, 1, 1}, {"attn_k_norm", 1, 16, 1, 1}, {"ffn_norm", 1, ME, 1, 0},
        };
        size_t i;
        for (i = 0; i < sizeof d / sizeof d[0]; i++) {
            const int olmoe = !strcmp(a, "olmoe");   /* its q norm covers both heads: 32 values */
            if (d[i].qk && strcmp(a, "qwen3moe") != 0 && !olmoe) continue;   /* (qwen2moe's biases are optional: none here) */
            if (gptoss && !strcmp(d[i].n, "ffn_norm")) snprintf(nm, sizeof nm, "blk.%u.post_attention_norm.weight", (unsigned)l);   /* (llama.cpp's name) */
            else snprintf(nm, sizeof nm, "blk.%u.%s.weight", (unsigned)l, d[i].n);
            T(nm, d[i].nd, olmoe && !strcmp(d[i].n, "attn_q_norm") ? 32 : d[i].a0, d[i].a1, 1, SRTI_TYPE_F32, 100 + 16 * l + (uint32_t)i, 1);
        }
        if (!(c->no_router && l == 1)) {
            snprintf(nm, sizeof nm, "blk.%u.ffn_gate_inp.weight", (unsigned)l);
            T(nm, 2, ME, X, 1, SRTI_TYPE_F32, 200 + l, 1);
        }
        if (gptoss) {   /* the biases (the experts' 2-D: [width, n_expert]) and the sinks, as llama.cpp names them */
            snprintf(nm, sizeof nm, "blk.%u.ffn_gate_inp.bias", (unsigned)l); T(nm, 1, X, 1, 1, SRTI_TYPE_F32, 210 + l, 1);
            snprintf(nm, sizeof nm, "blk.%u.attn_output.bias", (unsigned)l); T(nm, 1, ME, 1, 1, SRTI_TYPE_F32, 220 + l, 1);
            snprintf(nm, sizeof nm, "blk.%u.attn_sinks.weight", (unsigned)l);
            if (!(c->no_sinks && l == 1)) T(nm, 1, 2, 1, 1, SRTI_TYPE_F32, 230 + l, 1);
            for (k = 0; k < 3; k++) {
                snprintf(nm, sizeof nm, "blk.%u.ffn_%s_exps.bias", (unsigned)l, kinds[k]);
                T(nm, 2, k == 2 ? ME : MF, X, 1, SRTI_TYPE_F32, 240 + 4 * l + k, 1);
            }
        }
        for (k = 0; k < 3; k++) {
            const uint64_t a0 = k == 2 ? MF : ME, a1 = k == 2 ? ME : MF;
            if (c->per_expert)
                for (x = 0; x < X; x++) {
                    snprintf(nm, sizeof nm, "blk.%u.ffn_%s.%u.weight", (unsigned)l, kinds[k], (unsigned)x);
                    T(nm, 2, a0, a1, 1, c->exps_type, moe_seed(l, k, x), 1);
                }
            else {
                snprintf(nm, sizeof nm, "blk.%u.ffn_%s_exps.weight", (unsigned)l, kinds[k]);
                T(nm, 3, a0, a1, X3, c->exps_type, moe_seed(l, k, 0), X3);
            }
        }
        if (c->shexp) {   /* as llama.cpp writes them: qwen2moe's gate a vector [n_embd], the expert's matrices 2-D */
            if (!strcmp(a, "qwen2moe")) { snprintf(nm, sizeof nm, "blk.%u.ffn_gate_inp_shexp.weight", (unsigned)l); T(nm, 1, ME, 1, 1, SRTI_TYPE_F32, 300 + l, 1); }
            snprintf(nm, sizeof nm, "blk.%u.ffn_gate_shexp.weight", (unsigned)l); T(nm, 2, ME, MS, 1, c->exps_type, 310 + l, 1);
            snprintf(nm, sizeof nm, "blk.%u.ffn_up_shexp.weight", (unsigned)l); T(nm, 2, ME, MS, 1, c->exps_type, 320 + l, 1);
            snprintf(nm, sizeof nm, "blk.%u.ffn_down_shexp.weight", (unsigned)l); T(nm, 2, MS, ME, 1, c->exps_type, 330 + l, 1);
        }
    }
    if (c->both) T("blk.0.ffn_gate.0.weight", 2, ME, MF, 1, c->exps_type, moe_seed(0, 0, 0), 1);
#undef T
    put_hdr(&f, 3, n_t, n_kv);
    put(&f, kv.p, kv.n); put(&f, ti.p, ti.n);
    pad_to(&f, 32);
    put(&f, data.p, data.n);
    spit(path, f.p, f.n);
    free(kv.p); free(ti.p); free(data.p); free(f.p);
}
static moe_cfg moe_default(const char *arch, uint32_t type) {
    moe_cfg c;
    memset(&c, 0, sizeof c);
    c.arch = arch; c.n_expert = 4; c.n_used = 2; c.exps_type = type; c.norm = -1; c.norm_type = 7;
    return c;
}
/* Opens path and expects srti_open (check = 0) or srti_check_llama (check = 1) to refuse it with
   a message holding needle. */
static void moe_refused(const moe_cfg *c, int check, const char *needle, const char *what) {
    srti_model *m = NULL;
    char err[512];
    int bad = 0, opened;
    err[0] = 0;
    moe_write(c, TMP "moe_bad.gguf");
    opened = try_open(TMP "moe_bad.gguf", NULL, err, sizeof err, 1, &bad);
    if (check && opened && srti_open(TMP "moe_bad.gguf", NULL, &m, err, sizeof err) == 0) {
        opened = srti_check_llama(m, err, sizeof err) == 0;
        srti_close(m);
    }
    CHECK(!opened && bad == 0 && strstr(err, needle) != NULL, "MoE GGUF, %s: refused (\"%s\")", what, err);
}


static void test_moe(void) {
    static const uint32_t types[3] = {SRTI_TYPE_F32, SRTI_TYPE_Q8_0, SRTI_TYPE_Q4_0};
    static const char *const kinds[3] = {"gate", "up", "down"};
    char err[512], nm[96];
    int ti;
    for (ti = 0; ti < 3; ti++) {   /* qwen3moe: the 3-D experts split; expert X's values = slice X of the 3-D tensor */
        moe_cfg c = moe_default("qwen3moe", types[ti]);
        srti_model *m = NULL;
        int ok, shapes = 1, values = 1, left = 0;
        uint32_t l, k, x, i;
        moe_write(&c, TMP "moe.gguf");
        ok = srti_open(TMP "moe.gguf", NULL, &m, err, sizeof err) == 0;
        CHECK(ok, "a qwen3moe GGUF with 3-D %s experts opens (%s)", srti_type_name(types[ti]), ok ? "ok" : err);
        if (!ok) continue;
        CHECK(m->hp.n_expert == 4 && m->hp.n_expert_used == 2 && m->hp.n_ff_exp == MF && m->hp.n_ff == 96 && m->hp.expert_weights_norm == -1 &&
              m->hp.rope_neox == 1 && m->n_tensors == 3 + 2 * (8 + 1 + 3 * 4),
              "qwen3moe: 4 experts, 2 used, width 64, expert_weights_norm absent (-1), NeoX rope, %u tensors after the split", (unsigned)m->n_tensors);
        for (i = 0; i < m->n_tensors; i++) left += strstr(m->tensors[i].name, "_exps") != NULL;
        for (l = 0; l < 2; l++)
            for (k = 0; k < 3; k++) {
                const uint64_t a0 = k == 2 ? MF : ME, a1 = k == 2 ? ME : MF, nv = a0 * a1;
                buf src = {NULL, 0, 0};
                float *all = (float *)malloc((size_t)(4 * nv) * sizeof(float)), *v = (float *)malloc((size_t)nv * sizeof(float));
                for (x = 0; x < 4; x++) moe_bytes(&src, moe_seed(l, k, 0) + x, types[ti], nv);   /* the 3-D tensor's bytes */
                if (srti_dequantize(types[ti], src.p, 4 * nv, all) != 0) values = 0;
                for (x = 0; x < 4; x++) {
                    int idx;
                    const srti_tensor *t;
                    snprintf(nm, sizeof nm, "blk.%u.ffn_%s.%u.weight", (unsigned)l, kinds[k], (unsigned)x);
                    idx = srti_find(m, nm);
                    if (idx < 0) { shapes = values = 0; continue; }
                    t = &m->tensors[idx];
                    if (t->n_dims != 2 || t->ne[0] != a0 || t->ne[1] != a1 || t->ne[2] != 1 || t->ne[3] != 1 || t->src_type != types[ti] ||
                        srti_tensor_nvalues(t) != nv || t->nbytes != moe_nbytes(types[ti], nv))
                        shapes = 0;
                    if (srti_read_f32(m, (uint32_t)idx, v, err, sizeof err) != 0 || memcmp(v, all + x * nv, (size_t)nv * sizeof(float)) != 0) values = 0;
                }
                free(src.p); free(all); free(v);
            }
        CHECK(shapes && left == 0, "%s: every blk.N.ffn_{gate,up,down}.X.weight is 2-D ([32, 64], down [64, 32]), of the source type; no _exps tensor is left",
              srti_type_name(types[ti]));
        CHECK(values, "%s: srti_read_f32 of expert X = slice X of the 3-D tensor dequantized, for every layer, kind and expert", srti_type_name(types[ti]));
        ok = srti_check_llama(m, err, sizeof err) == 0;
        CHECK(ok, "srti_check_llama accepts the split %s qwen3moe model (%s)", srti_type_name(types[ti]), ok ? "ok" : err);
        srti_close(m);
    }
    {   /* Mixtral ("llama" with experts): the 3-D form and the older per-expert 2-D form give the same tensors */
        moe_cfg c3 = moe_default("llama", SRTI_TYPE_Q8_0), c2 = c3;
        srti_model *m3 = NULL, *m2 = NULL;
        int ok, same = 1;
        uint32_t i;
        c3.norm = 0; c3.norm_type = 4;   /* expert_weights_norm as an integer */
        c2.per_expert = 1; c2.norm = 1; c2.norm_type = 7;   /* and as a bool */
        moe_write(&c3, TMP "moe3.gguf");
        moe_write(&c2, TMP "moe2.gguf");
        ok = srti_open(TMP "moe3.gguf", NULL, &m3, err, sizeof err) == 0 && srti_open(TMP "moe2.gguf", NULL, &m2, err, sizeof err) == 0;
        CHECK(ok, "Mixtral-style llama GGUFs with 3-D and with per-expert experts open (%s)", ok ? "ok" : err);
        if (ok) {
            same = m3->n_tensors == m2->n_tensors;
            for (i = 0; same && i < m2->n_tensors; i++) same = same_tensor(m2, (int)i, m3, srti_find(m3, m2->tensors[i].name));
            CHECK(same && m3->n_tensors == 3 + 2 * (6 + 1 + 3 * 4), "llama: the 3-D experts split into exactly the per-expert file's tensors (names, shapes, values; %u tensors)",
                  (unsigned)m3->n_tensors);
            CHECK(m3->hp.n_expert == 4 && m3->hp.n_expert_used == 2 && m3->hp.rope_neox == 0 && m3->hp.expert_weights_norm == 0 && m2->hp.expert_weights_norm == 1,
                  "llama: 4 experts, 2 used, adjacent-pair rope; expert_weights_norm read as an integer (0) and as a bool (1)");
            ok = srti_check_llama(m3, err, sizeof err) == 0 && srti_check_llama(m2, err, sizeof err) == 0;
            CHECK(ok, "srti_check_llama accepts both (%s)", ok ? "ok" : err);
        }
        srti_close(m3); srti_close(m2);
    }
    {   /* refusals, each naming the problem */
        moe_cfg c = moe_default("qwen3moe", SRTI_TYPE_Q8_0);
        c.no_router = 1; moe_refused(&c, 1, "blk.1.ffn_gate_inp.weight' is missing", "no router in layer 1");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.ne2 = 3;
        moe_refused(&c, 0, "tensor 'blk.0.ffn_gate_exps.weight' [32, 64, 3, 1] cannot be split into 4 experts", "3-D tensors of 3 experts, expert_count 4");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.ne2 = 5;
        moe_refused(&c, 0, "tensor 'blk.0.ffn_gate_exps.weight' [32, 64, 5, 1] cannot be split into 4 experts", "3-D tensors of 5 experts, expert_count 4");
        c = moe_default("qwen3moe", 99);
        moe_refused(&c, 0, "'blk.0.ffn_gate_exps.weight' of type 99 (0 bytes) cannot be split", "3-D tensors of an unknown type");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.n_used = 0;
        moe_refused(&c, 0, "'qwen3moe.expert_used_count' = 0: a token goes through 1 .. expert_count = 4 experts", "expert_used_count 0");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.n_used = 5;
        moe_refused(&c, 0, "'qwen3moe.expert_used_count' = 5: a token goes through 1 .. expert_count = 4 experts", "expert_used_count 5 of 4");
        c = moe_default("llama", SRTI_TYPE_Q8_0); c.n_used = -1;
        moe_refused(&c, 0, "'llama.expert_used_count' = 0 (missing)", "llama with expert_count and no expert_used_count");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.n_expert = 5000; c.ne2 = 2;
        moe_refused(&c, 0, "'qwen3moe.expert_count' = 5000: at most 4096 experts", "expert_count 5000");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.n_expert = 0;
        moe_refused(&c, 1, "qwen3moe with 0 experts", "qwen3moe without expert_count");
        c = moe_default("qwen3moe", SRTI_TYPE_Q8_0); c.both = 1;
        moe_refused(&c, 0, "tensor 'blk.0.ffn_gate.0.weight' is both stored and part of a fused or per-expert tensor", "expert 0 stored in both forms");
        c = moe_default("llama", SRTI_TYPE_Q8_0); c.n_expert = 0; c.n_used = -1;
        moe_refused(&c, 1, "tensor 'blk.0.ffn_gate_exps.weight' holds 4 experts, but the file has no llama.expert_count", "llama with 3-D experts and no expert_count");
        c = moe_default("qwen2moe", SRTI_TYPE_Q8_0);
        moe_refused(&c, 1, "tensor 'blk.0.ffn_gate_inp_shexp.weight' is missing", "qwen2moe without its shared expert");
        c = moe_default("qwen2", SRTI_TYPE_Q8_0);
        moe_refused(&c, 1, "holds 4 experts, but the file has no qwen2.expert_count", "qwen2 with experts");
    }
}

/* Loads an .srt and evaluates tokens 5, 17, 42, 299 and 1: 0 with the last logits in `logits` (MV
   floats), all finite; info gets the model's description (its strings gone with the model: the
   architecture is copied to arch, 32 bytes). */
static int moe_run(const char *path, srt_model_info *info, char *arch, float *logits, char *err, size_t errlen) {
    static const int32_t toks[5] = {5, 17, 42, 299, 1};
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    const float *lg;
    int rc = 1, i;
    memset(&md, 0, sizeof md); memset(&sd, 0, sizeof sd);
    md.n_threads = 2;
    sd.n_ctx = 16; sd.n_batch = 3;   /* two batches: 3 tokens, then 2 */
    if (srt_model_load(path, &md, &m) != SRT_OK || srt_session_create(m, &sd, &s) != SRT_OK || srt_session_feed(s, toks, 5) != SRT_OK ||
        !(lg = srt_session_logits(s))) {
        snprintf(err, errlen, "%s: %s", path, srt_last_error());
        goto done;
    }
    srt_model_get_info(m, info);
    snprintf(arch, 32, "%s", info->architecture);
    info->architecture = info->name = info->backend = NULL;
    for (i = 0; i < MV; i++) if (!isfinite(lg[i])) { snprintf(err, errlen, "%s: logit %d is %g", path, i, (double)lg[i]); goto done; }
    memcpy(logits, lg, MV * sizeof(float));
    rc = 0;
done:
    srt_session_destroy(s);
    srt_model_free(m);
    return rc;
}

/* srt-pack on the MoE GGUFs: the .srt has the expert keys and one tensor per expert, the routers stay
   f32 under --weights q4, and the runtime loads it and evaluates tokens to finite logits; the Mixtral
   files of 3-D and of per-expert tensors pack to models of identical logits. */
static void test_moe_pack(void) {
    static const char *const packs[2] = {"", "--weights q4 "}, *const label[2] = {"(default f16)", "--weights q4"};
    char cmd[512], err[512], arch[32] = "";
    int p;
    moe_cfg c = moe_default("qwen3moe", SRTI_TYPE_Q8_0);
    moe_write(&c, TMP "moe.gguf");
    for (p = 0; p < 2; p++) {
        uint32_t fr = 99, fg = 99, fd = 99, nt = 0;
        uint64_t rr = 0, cr = 0, rg = 0, cg = 0, rd = 0, cd = 0;
        srt_model_info info;
        float lg[MV];
        int ok, has_exps = 0;
        uint32_t v4 = 0, v2 = 0, vf = 0, vn = 9;
        srt_model *m = NULL;
        srt_model_desc md;
        snprintf(cmd, sizeof cmd, "build/srt-pack -q %s" TMP "moe.gguf " TMP "moe.srt > " TMP "moe_pack.log 2>&1", packs[p]);
        ok = system(cmd) == 0;
        CHECK(ok, "srt-pack %s packs the tiny qwen3moe GGUF (3-D Q8_0 experts; " TMP "moe_pack.log)", label[p]);
        if (!ok) continue;
        ok = srt_dir_entry(TMP "moe.srt", "blk.1.ffn_gate_inp.weight", &fr, &rr, &cr, &nt) &&
             srt_dir_entry(TMP "moe.srt", "blk.1.ffn_gate.3.weight", &fg, &rg, &cg, NULL) &&
             srt_dir_entry(TMP "moe.srt", "blk.0.ffn_down.2.weight", &fd, &rd, &cd, NULL);
        has_exps = srt_dir_entry(TMP "moe.srt", "blk.0.ffn_gate_exps.weight", &fg, &rg, &cg, NULL);
        CHECK(ok && !has_exps && nt == 45 && fr == 0 && rr == 4 && cr == ME && rg == MF && cg == ME && rd == ME && cd == MF &&
                  fg == (p ? 4u : 1u) && fd == fg,
              "srt-pack %s: %u tensors, the router f32 [4 x 32], experts per tensor (gate.3 [64 x 32], down.2 [32 x 64]) in %s; no _exps tensor",
              label[p], (unsigned)nt, p ? "q4" : "f16");
        memset(&md, 0, sizeof md);
        ok = srt_model_load(TMP "moe.srt", &md, &m) == SRT_OK;
        if (ok) {
            ok = srt_model_meta_u32(m, "qwen3moe.expert_count", &v4) && srt_model_meta_u32(m, "qwen3moe.expert_used_count", &v2) &&
                 srt_model_meta_u32(m, "qwen3moe.expert_feed_forward_length", &vf) && srt_model_meta_u32(m, "qwen3moe.expert_weights_norm", &vn);
            srt_model_free(m);
        }
        CHECK(ok && v4 == 4 && v2 == 2 && vf == MF && vn == 1, "srt-pack %s: the keys expert_count 4, expert_used_count 2, expert_feed_forward_length 64, expert_weights_norm 1 (absent: 1)",
              label[p]);
        ok = moe_run(TMP "moe.srt", &info, arch, lg, err, sizeof err) == 0;
        CHECK(ok && info.n_expert == 4 && info.n_expert_used == 2 && info.n_ff == MF && !strcmp(arch, "qwen3moe"),
              "srt-pack %s: srt_model_load loads it (qwen3moe, 4 experts, 2 used, width 64) and a session evaluates 5 tokens to finite logits (%s)",
              label[p], ok ? "ok" : err);
        remove(TMP "moe.srt");
    }
    {
        moe_cfg c3 = moe_default("llama", SRTI_TYPE_Q4_0), c2 = c3;
        float l3[MV], l2[MV];
        srt_model_info info;
        int ok;
        c2.per_expert = 1;
        moe_write(&c3, TMP "moe3.gguf");
        moe_write(&c2, TMP "moe2.gguf");
        ok = system("build/srt-pack -q --weights f32 " TMP "moe3.gguf " TMP "moe3.srt > " TMP "moe_pack.log 2>&1") == 0 &&
             system("build/srt-pack -q --weights f32 " TMP "moe2.gguf " TMP "moe2.srt >> " TMP "moe_pack.log 2>&1") == 0;
        CHECK(ok, "srt-pack packs the Mixtral-style llama GGUFs (3-D and per-expert Q4_0 experts)");
        ok = ok && moe_run(TMP "moe3.srt", &info, arch, l3, err, sizeof err) == 0 && info.n_expert == 4 && moe_run(TMP "moe2.srt", &info, arch, l2, err, sizeof err) == 0;
        CHECK(ok && !memcmp(l3, l2, sizeof l3), "Mixtral: both load and give bit-identical logits after 5 tokens (%s)", ok ? "ok" : err);
        remove(TMP "moe3.srt"); remove(TMP "moe2.srt");
    }
    {   /* wanda: the experts are calibrated on the tokens routed to them and pruned row by row */
        int ok = system("build/srt-pack -q --weights f32 --sparsity 0.5 --prune wanda --calib tests/data/calib.txt " TMP "moe.gguf " TMP "moe.srt > "
                        TMP "moe_wanda.txt 2> " TMP "moe_pack.log") == 0;
        char *rep = ok ? srt_test_read_file(TMP "moe_wanda.txt", NULL) : NULL;
        int experts = 0, exact = 1, router = 0;
        const char *p = rep;
        while (p && (p = strstr(p, "\nblk.")) != NULL) {
            char name[96]; double target = 0, sp = -1;
            unsigned long long rows = 0, cols = 0;
            char fmt[16];
            p++;
            if (sscanf(p, "%95s %llu x %llu %15s %lf %lf", name, &rows, &cols, fmt, &target, &sp) != 6) continue;
            if (strstr(name, "ffn_gate_inp")) router += target == 0 && sp < 0.05;
            else if (strstr(name, "ffn_gate.") || strstr(name, "ffn_up.") || strstr(name, "ffn_down.")) {
                experts++;
                exact &= target == 0.5 && fabs(sp - 0.5) < 1e-9;
            }
        }
        CHECK(ok && experts == 24 && exact && router == 2 && rep && !strstr(rep, "no calibration token"),
              "srt-pack --prune wanda --sparsity 0.5 on the qwen3moe GGUF: all 24 experts calibrated (each saw routed tokens) and pruned to 0.5, the routers dense (" TMP "moe_wanda.txt)");
        free(rep);
        remove(TMP "moe.srt");
    }
    {   /* qwen2moe: the shared expert's width read, weights not renormalized when the key is absent (llama.cpp's
           graph never does); packed with the key and the shared expert (its gate f32), it runs */
        moe_cfg q2 = moe_default("qwen2moe", SRTI_TYPE_Q8_0);
        srti_model *m = NULL;
        srt_model_info info;
        float lg[MV];
        uint32_t fs = 0, vn = 9, fgi = 99, fsg = 99, nt = 0;
        uint64_t r = 0, cl = 0, rs = 0, cs = 0;
        int ok;
        q2.shexp = 1;
        moe_write(&q2, TMP "moe2.gguf");
        ok = srti_open(TMP "moe2.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
        CHECK(ok && m->hp.n_ff_shexp == MS && m->hp.expert_weights_norm == 0 && m->hp.rope_neox == 1 && m->hp.n_ff_exp == MF,
              "a qwen2moe GGUF with a shared expert opens and passes the check: shared width 96, expert_weights_norm absent -> 0, NeoX rope (%s)",
              ok ? "ok" : err);
        srti_close(m);
        ok = system("build/srt-pack -q --weights q8 " TMP "moe2.gguf " TMP "moe2.srt > " TMP "moe_pack.log 2>&1") == 0;
        ok = ok && srt_dir_entry(TMP "moe2.srt", "blk.1.ffn_gate_inp_shexp.weight", &fgi, &r, &cl, &nt) &&
             srt_dir_entry(TMP "moe2.srt", "blk.1.ffn_down_shexp.weight", &fsg, &rs, &cs, NULL);
        CHECK(ok && fgi == (uint32_t)SRT_F32 && r == 1 && cl == ME && fsg == (uint32_t)SRT_Q8 && rs == ME && cs == MS && nt == 3 + 2 * (6 + 1 + 3 * 4 + 4),
              "srt-pack --weights q8: the shared expert's gate an f32 vector [1 x 32], its down q8 [32 x 96], %u tensors", (unsigned)nt);
        ok = moe_run(TMP "moe2.srt", &info, arch, lg, err, sizeof err) == 0;
        if (ok) {
            srt_model *sm = NULL;
            srt_model_desc md;
            memset(&md, 0, sizeof md);
            ok = srt_model_load(TMP "moe2.srt", &md, &sm) == SRT_OK && srt_model_meta_u32(sm, "qwen2moe.expert_shared_feed_forward_length", &fs) &&
                 srt_model_meta_u32(sm, "qwen2moe.expert_weights_norm", &vn);
            srt_model_free(sm);
        }
        CHECK(ok && !strcmp(arch, "qwen2moe") && info.n_expert == 4 && info.n_ff == MF && fs == MS && vn == 0,
              "the packed qwen2moe loads (expert_shared_feed_forward_length 96, expert_weights_norm 0) and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : err);
        {   /* wanda prunes the shared expert too, calibrated on every token; its gate vector stays as it is */
            char *rep;
            const char *p;
            int shared = 0, exact = 1, gate = 0;
            ok = system("build/srt-pack -q --weights f32 --sparsity 0.5 --prune wanda --calib tests/data/calib.txt " TMP "moe2.gguf " TMP "moe2.srt > "
                        TMP "moe_wanda.txt 2> " TMP "moe_pack.log") == 0;
            rep = ok ? srt_test_read_file(TMP "moe_wanda.txt", NULL) : NULL;
            for (p = rep; p && (p = strstr(p, "\nblk.")) != NULL;) {
                char name[96], fmt[16];
                double target = 0, sp = -1;
                unsigned long long rows = 0, cols = 0;
                p++;
                if (sscanf(p, "%95s %llu x %llu %15s %lf %lf", name, &rows, &cols, fmt, &target, &sp) != 6) continue;
                if (strstr(name, "ffn_gate_inp_shexp")) gate++;
                else if (strstr(name, "_shexp.")) { shared++; exact &= target == 0.5 && fabs(sp - 0.5) < 1e-9; }
            }
            CHECK(ok && shared == 6 && exact && gate == 0 && rep && !strstr(rep, "no calibration"),
                  "srt-pack --prune wanda --sparsity 0.5 on the qwen2moe GGUF: the 6 shared-expert matrices calibrated and pruned to 0.5, "
                  "the shared gate vector not (%d of them; " TMP "moe_wanda.txt)", shared);
            free(rep);
        }
        remove(TMP "moe2.srt");
    }
    {   /* olmoe: llama.cpp's 3-D experts, q/k norms of all heads (q: 32 values), not renormalized when the key is absent, NeoX rope;
           packed, it runs */
        moe_cfg oe = moe_default("olmoe", SRTI_TYPE_Q4_0);
        srti_model *m = NULL;
        srt_model_info info;
        float lg[MV];
        uint32_t vn = 9;
        int ok;
        moe_write(&oe, TMP "moe2.gguf");
        ok = srti_open(TMP "moe2.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
        CHECK(ok && m->hp.expert_weights_norm == 0 && m->hp.rope_neox == 1 && m->hp.n_ff_exp == MF && m->hp.n_ff_shexp == 0,
              "an olmoe GGUF opens and passes the check: q norm of 32 values, expert_weights_norm absent -> 0, NeoX rope (%s)", ok ? "ok" : err);
        srti_close(m);
        ok = system("build/srt-pack -q --weights q4 " TMP "moe2.gguf " TMP "moe2.srt > " TMP "moe_pack.log 2>&1") == 0 &&
             moe_run(TMP "moe2.srt", &info, arch, lg, err, sizeof err) == 0;
        if (ok) {
            srt_model *sm = NULL;
            srt_model_desc md;
            memset(&md, 0, sizeof md);
            ok = srt_model_load(TMP "moe2.srt", &md, &sm) == SRT_OK && srt_model_meta_u32(sm, "olmoe.expert_weights_norm", &vn);
            srt_model_free(sm);
        }
        CHECK(ok && !strcmp(arch, "olmoe") && info.n_expert == 4 && info.n_ff == MF && vn == 0,
              "the packed olmoe loads (expert_weights_norm 0) and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : err);
        remove(TMP "moe2.srt");
    }
    {   /* granitemoe (GraniteMoeShared as llama.cpp writes it): Granite's multipliers, the 3-D experts split,
           a shared expert without a gate; renormalized by default, adjacent-pair rope; packed, it runs */
        moe_cfg gm = moe_default("granitemoe", SRTI_TYPE_Q8_0);
        srti_model *m = NULL;
        srt_model_info info;
        float lg[MV], ls = 0;
        uint32_t fs = 0, vn = 9, fsg = 99, nt = 0;
        uint64_t rs = 0, cs = 0;
        int ok;
        gm.shexp = 1;
        moe_write(&gm, TMP "moe2.gguf");
        ok = srti_open(TMP "moe2.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
        CHECK(ok && m->hp.n_ff_shexp == MS && m->hp.expert_weights_norm == -1 && m->hp.rope_neox == 0 && m->hp.n_ff_exp == MF && m->hp.logit_scale == 4.0f &&
                  m->hp.residual_scale == 0.5f && m->hp.embd_scale == 2.0f && m->hp.attn_scale == 0.125f && srti_find(m, "blk.1.ffn_up.3.weight") >= 0,
              "a granitemoe GGUF with a shared expert opens and passes the check: shared width 96, multipliers 2 / 0.5 / 4 / 0.125, adjacent-pair rope, "
              "experts split (%s)", ok ? "ok" : err);
        srti_close(m);
        ok = system("build/srt-pack -q --weights q8 " TMP "moe2.gguf " TMP "moe2.srt > " TMP "moe_pack.log 2>&1") == 0;
        ok = ok && srt_dir_entry(TMP "moe2.srt", "blk.1.ffn_down_shexp.weight", &fsg, &rs, &cs, &nt);
        CHECK(ok && fsg == (uint32_t)SRT_Q8 && rs == ME && cs == MS && nt == 3 + 2 * (6 + 1 + 3 * 4 + 3),
              "srt-pack --weights q8: the shared expert's down q8 [32 x 96], no gate, %u tensors", (unsigned)nt);
        ok = moe_run(TMP "moe2.srt", &info, arch, lg, err, sizeof err) == 0;
        if (ok) {
            srt_model *sm = NULL;
            srt_model_desc md;
            memset(&md, 0, sizeof md);
            ok = srt_model_load(TMP "moe2.srt", &md, &sm) == SRT_OK && srt_model_meta_u32(sm, "granitemoe.expert_shared_feed_forward_length", &fs) &&
                 srt_model_meta_u32(sm, "granitemoe.expert_weights_norm", &vn) && srt_model_meta_f32(sm, "granitemoe.logit_scale", &ls);
            srt_model_free(sm);
        }
        CHECK(ok && !strcmp(arch, "granitemoe") && info.n_expert == 4 && info.n_ff == MF && fs == MS && vn == 1 && ls == 4.0f,
              "the packed granitemoe loads (expert_shared_feed_forward_length 96, expert_weights_norm 1, logit_scale 4) and evaluates 5 tokens to finite logits (%s)",
              ok ? "ok" : err);
        remove(TMP "moe2.srt");
    }
    remove(TMP "moe.gguf"); remove(TMP "moe2.gguf"); remove(TMP "moe3.gguf"); remove(TMP "moe_bad.gguf");
}

/* Many experts: 64 I8 tensors blk.N.ffn_gate_exps.weight [1, 1, 4096] (their data shared) split into
   262144 tensors, the limit, and srti_find finds each through srti_open's name index (a scan would
   take minutes); one tensor more is refused before anything is allocated for it. */
static void test_moe_many(void) {
    buf b = {NULL, 0, 0};
    srti_model *m = NULL;
    char err[512], nm[96];
    int n, ok;
    for (n = 64; n <= 65; n++) {
        int i;
        b.n = 0;
        put_hdr(&b, 3, (uint64_t)n, 3);
        kv_str(&b, "general.architecture", "llama"); kv_u32(&b, "llama.expert_count", 4096); kv_u32(&b, "llama.expert_used_count", 1);
        for (i = 0; i < n; i++) {
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate_exps.weight", i);
            put_str(&b, nm); put_u32(&b, 3); put_u64(&b, 1); put_u64(&b, 1); put_u64(&b, 4096); put_u32(&b, SRTI_TYPE_I8); put_u64(&b, 0);
        }
        pad_to(&b, 32);
        for (i = 0; i < 4096; i++) put_u8(&b, (unsigned)(i & 127));
        if (n == 65) { expect_fail(&b, "65 x 4096 experts", "would make 266240 tensors (at most 262144)"); break; }
        spit(TMP "many.gguf", b.p, b.n);
        ok = srti_open(TMP "many.gguf", NULL, &m, err, sizeof err) == 0;
        CHECK(ok && m->n_tensors == 262144, "64 tensors of 4096 experts split into %u tensors (%s)", ok ? (unsigned)m->n_tensors : 0u, ok ? "ok" : err);
        if (ok) {
            uint32_t t, found = 0;
            float v = -1.0f;
            int k;
            for (t = 0; t < m->n_tensors; t++) found += srti_find(m, m->tensors[t].name) == (int)t;
            k = srti_find(m, "blk.63.ffn_gate.4095.weight");
            CHECK(found == m->n_tensors && k >= 0 && m->priv->by_name && m->priv->n_by_name == m->n_tensors && srti_find(m, "blk.64.ffn_gate.0.weight") < 0 && srti_find(m, "blk.0.ffn_gate.4096.weight") < 0 &&
                  srti_read_f32(m, (uint32_t)k, &v, err, sizeof err) == 0 && v == 127.0f,
                  "srti_find finds all 262144 through the index by name (blk.63.ffn_gate.4095.weight = byte 4095 of the shared data), and no blk.64 or expert 4096");
            snprintf(m->tensors[k].name, sizeof m->tensors[k].name, "renamed");   /* a caller's change after srti_open */
            CHECK(srti_find(m, "renamed") == k && srti_find(m, "blk.63.ffn_gate.4095.weight") < 0, "srti_find still answers after a tensor is renamed in place");
        }
        srti_close(m); m = NULL;
    }
    free(b.p);
    remove(TMP "many.gguf");
}

/* gpt-oss as llama.cpp writes it: MXFP4 experts in 3-D tensors, their biases 2-D [width, n_expert],
   the FFN's input norm named post_attention_norm, sinks and a window without a pattern key. Opened,
   the biases are one vector per expert, the norm is ffn_norm, every even layer slides; packed, the
   runtime evaluates it. */
static void test_gptoss(void) {
    static const signed char fp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
    moe_cfg c = moe_default("gpt-oss", SRTI_TYPE_MXFP4);
    srti_model *m = NULL;
    char err[512], arch[32] = "";
    float *v = (float *)malloc(MF * ME * sizeof(float));
    buf want = {NULL, 0, 0};
    int ok, i, vals = 1;
    moe_write(&c, TMP "oss.gguf");
    ok = v && srti_open(TMP "oss.gguf", NULL, &m, err, sizeof err) == 0 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok && m->hp.n_expert == 4 && m->hp.sliding_window == 3 && m->hp.swa_pattern == 2 && m->hp.expert_weights_norm == 1 && m->hp.rope_neox,
          "gpt-oss GGUF: opens and checks (4 experts, window 3, pattern 2, weights renormalized, NeoX) %s", ok ? "" : err);
    if (ok) {
        const int fn = srti_find(m, "blk.1.ffn_norm.weight"), up = srti_find(m, "blk.1.ffn_up.2.weight"), db = srti_find(m, "blk.0.ffn_down.3.bias");
        CHECK(fn >= 0 && srti_find(m, "blk.1.post_attention_norm.weight") < 0 && db >= 0 && m->tensors[db].n_dims == 1 && m->tensors[db].ne[0] == ME &&
                  srti_find(m, "blk.0.ffn_down_exps.bias") < 0 && srti_find(m, "blk.0.ffn_gate_exps.weight") < 0,
              "gpt-oss GGUF: post_attention_norm is the FFN's norm (ffn_norm); the 2-D expert biases are one vector each (blk.0.ffn_down.3.bias [32])");
        /* expert 2's up matrix: the third slice of the 3-D tensor, decoded by hand */
        moe_bytes(&want, moe_seed(1, 1, 0) + 2, SRTI_TYPE_MXFP4, (uint64_t)ME * MF);
        ok = up >= 0 && srti_read_f32(m, (uint32_t)up, v, err, sizeof err) == 0;
        for (i = 0; ok && i < ME * MF; i++) {
            const unsigned char *blk = want.p + (size_t)(i / 32) * 17, q = blk[1 + i % 16];
            if (v[i] != ldexpf((float)fp4[i % 32 < 16 ? q & 15 : q >> 4], (int)blk[0] - 128)) vals = 0;
        }
        CHECK(ok && vals, "gpt-oss GGUF: blk.1.ffn_up.2.weight is expert 2's MXFP4 slice, decoded");
        want.n = 0;
        moe_bytes(&want, 240 + 4 * 0 + 2, SRTI_TYPE_F32, (uint64_t)ME * 4);   /* layer 0's down biases [32, 4] */
        ok = srti_read_f32(m, (uint32_t)db, v, err, sizeof err) == 0 && memcmp(v, want.p + 3 * ME * 4, ME * sizeof(float)) == 0;
        CHECK(ok, "gpt-oss GGUF: blk.0.ffn_down.3.bias is column 3 of ffn_down_exps.bias");
    }
    srti_close(m);
    m = NULL;
    {   /* packed (q8), the runtime loads and runs it: its even layer slides */
        srt_model_info info;
        float lg[MV];
        ok = system("build/srt-pack -q --weights q8 " TMP "oss.gguf " TMP "oss.srt > " TMP "oss_pack.log 2>&1") == 0 &&
             moe_run(TMP "oss.srt", &info, arch, lg, err, sizeof err) == 0;
        CHECK(ok && !strcmp(arch, "gpt-oss") && info.n_expert == 4 && info.n_expert_used == 2 && info.n_swa_layers == 1 && info.swa_window == 3,
              "gpt-oss GGUF: srt-pack packs it, the runtime evaluates 5 tokens to finite logits (1 of 2 layers slides over 3) %s", ok ? "" : err);
        remove(TMP "oss.srt");
    }
    {   /* the experts as fp4 keep the MXFP4 values exactly: asked for (the rest q8), and without --weights (the rest f16); the runtime
           evaluates it */
        static const char *const packs[2] = {"--weights q8 --tensor blk.*.ffn_*.*.weight=fp4 ", ""};
        int pk;
        for (pk = 0; pk < 2; pk++) {
            srt_model_info info;
            float lg[MV];
            uint32_t fmt = 99, qfmt = 99;
            int i2, exact = 1;
            char cmd[512];
            snprintf(cmd, sizeof cmd, "build/srt-pack -q %s" TMP "oss.gguf " TMP "oss.srt > " TMP "oss_pack.log 2>&1", packs[pk]);
            ok = system(cmd) == 0 && srt_read_tensor(TMP "oss.srt", "blk.1.ffn_up.2.weight", v, &fmt) && fmt == SRT_FP4;
            want.n = 0;
            moe_bytes(&want, moe_seed(1, 1, 0) + 2, SRTI_TYPE_MXFP4, (uint64_t)ME * MF);
            for (i2 = 0; ok && i2 < ME * MF; i2++) {
                const unsigned char *blk = want.p + (size_t)(i2 / 32) * 17, q = blk[1 + i2 % 16];
                if (v[i2] != ldexpf((float)fp4[i2 % 32 < 16 ? q & 15 : q >> 4], (int)blk[0] - 128)) exact = 0;
            }
            ok = ok && srt_read_tensor(TMP "oss.srt", "blk.0.attn_q.weight", v, &qfmt) && qfmt == (pk ? SRT_F16 : SRT_Q8);
            CHECK(ok && exact, "gpt-oss GGUF packed %s: blk.1.ffn_up.2.weight is fp4 and holds the MXFP4 values exactly, attn_q %s",
                  pk ? "without --weights" : "with fp4 experts asked for", pk ? "f16" : "q8");
            ok = ok && moe_run(TMP "oss.srt", &info, arch, lg, err, sizeof err) == 0;
            CHECK(ok, "gpt-oss GGUF with fp4 experts (%s): the runtime evaluates 5 tokens to finite logits %s", pk ? "default" : "asked for", ok ? "" : err);
            remove(TMP "oss.srt");
        }
    }
    c.no_sinks = 1;
    moe_refused(&c, 1, "blk.1.attn_sinks.weight' is missing", "gpt-oss without layer 1's sinks");
    free(want.p);
    free(v);
    remove(TMP "oss.gguf");
}

/* Out of memory at each allocation of opening a checkpoint in turn (one failing per run): every run
   opens it as the run where nothing fails does (the same tensor names and shapes, tokens and scores) or
   fails saying "out of memory", and leaves nothing allocated. Every allocation when there are at
   most 200, else 200 spread over them (the first 100, then evenly). */
static uint64_t model_hash(const srti_model *m) {
    uint64_t h = 1469598103934665603ull;
    uint32_t i;
    const unsigned char *p;
    size_t k, n;
#define HASH_BYTES(ptr, len) for (p = (const unsigned char *)(ptr), n = (len), k = 0; k < n; k++) h = (h ^ p[k]) * 1099511628211ull
    HASH_BYTES(&m->n_tensors, sizeof m->n_tensors);
    for (i = 0; i < m->n_tensors; i++) { HASH_BYTES(m->tensors[i].name, strlen(m->tensors[i].name)); HASH_BYTES(m->tensors[i].ne, sizeof m->tensors[i].ne); }
    HASH_BYTES(&m->vocab.n_tokens, sizeof m->vocab.n_tokens);
    for (i = 0; i < m->vocab.n_tokens; i++) { HASH_BYTES(m->vocab.tokens[i], strlen(m->vocab.tokens[i])); if (m->vocab.scores) HASH_BYTES(&m->vocab.scores[i], sizeof(float)); }
#undef HASH_BYTES
    return h;
}
static void test_out_of_memory(void) {
    static const char *const paths[][2] = {{MODELS "stories260K.gguf", NULL}, {MODELS "stories260K_v1.bin", MODELS "tok512.bin"},
                                           {SRT_SHARED "/tokenizer/ggml-vocab-gpt-2.gguf", NULL}};
    size_t i;
    for (i = 0; i < sizeof paths / sizeof *paths; i++) {
        srti_model *m = NULL;
        char err[512];
        long total, k, step, runs = 0, ooms = 0, bad = 0, live0 = g_live;
        uint64_t h0;
        g_allocs = 0; g_fail_at = 0;
        if (srti_open(paths[i][0], paths[i][1], &m, err, sizeof err) != 0) { CHECK(0, "out of memory: %s opens (%s)", paths[i][0], err); continue; }
        total = g_allocs;
        h0 = model_hash(m);
        srti_close(m);
        step = total <= 200 ? 1 : (total - 100) / 100 + 1;
        for (k = 1; k <= total; k += k < 100 ? 1 : step) {
            int rc;
            m = NULL; err[0] = 0;
            g_allocs = 0; g_fail_at = k;
            rc = srti_open(paths[i][0], paths[i][1], &m, err, sizeof err);
            g_fail_at = 0;
            runs++;
            if (rc != 0 && !m && strstr(err, "out of memory")) ooms++;
            else if (rc != 0 || !m || model_hash(m) != h0) { if (bad++ < 3) printf("# %s: allocation %ld of %ld failing: %d (%s)\n", paths[i][0], k, total, rc, err); }
            if (m) srti_close(m);
        }
        CHECK(!bad && ooms > 0 && g_live == live0, "out of memory at %ld of the %ld allocations of opening %s: %ld out of memory, %ld other answers, %ld left allocated",
              runs, total, paths[i][0], ooms, bad, g_live - live0);
    }
}

int main(void) {
    MKDIR("build");
    MKDIR("build/tmp");
    test_dequant();
    test_stories();
    test_vocabs();
    test_malformed();
    test_llama3_rope();
    test_phi3_split();
    test_gemma();
    test_swa_layers();
    test_moe();
    test_moe_pack();
    test_moe_many();
    test_gptoss();
    test_out_of_memory();
    CHECK(g_live == 0, "no allocation left behind (%ld live)", g_live);
    return srt_test_finish();
}
