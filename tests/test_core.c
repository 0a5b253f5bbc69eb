/* test_core.c - the runtime's own pieces, without checkpoints: number conversions, every weight
   format against a double-precision reference, the .srt writer/reader round trip and its refusal
   of damaged files, the tokenizer's UTF-8 streaming, the sampler, context limits, cancellation;
   CRC-32 (the check value, combining blocks, on a pool). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ numbers */
static void test_half_floats(void) {
    uint32_t h;
    int bad = 0, bad_bf = 0, i;
    for (h = 0; h < 65536; h++) {
        float f = srt_f16_to_f32((uint16_t)h);
        if (f != f) continue;                              /* nan */
        if (srt_f32_to_f16(f) != h) bad++;
    }
    CHECK(bad == 0, "f16 -> f32 -> f16 round trip is exact for all 63k+ non-nan values (%d bad)", bad);
    CHECK(srt_f16_to_f32(0x3c00) == 1.0f && srt_f16_to_f32(0xc000) == -2.0f && srt_f16_to_f32(0x0001) == ldexpf(1.0f, -24),
          "f16 decodes 1, -2 and the smallest subnormal");
    /* rounding to nearest: the f16 result is never farther than half an ulp from the input */
    for (i = 0; i < 100000; i++) {
        float f = srt_test_frand() * 70000.0f * (i % 7 == 0 ? 1e-6f : 1.0f);
        float back = srt_f16_to_f32(srt_f32_to_f16(f));
        uint16_t hb = srt_f32_to_f16(f);
        float up = srt_f16_to_f32((uint16_t)(hb + 1)), down = srt_f16_to_f32((uint16_t)(hb - 1));
        if (fabsf(f) < 65504.0f && (fabs((double)back - f) > fabs((double)up - f) || fabs((double)back - f) > fabs((double)down - f))) bad++;
        {
            float b = srt_bf16_to_f32(srt_f32_to_bf16(f));
            if (fabs((double)b - f) > fabs((double)f) * (1.0 / 256.0)) bad_bf++;
        }
    }
    CHECK(bad == 0, "f32 -> f16 rounds to the nearest representable value (%d bad)", bad);
    CHECK(bad_bf == 0, "f32 -> bf16 within half an ulp (%d bad)", bad_bf);
}

/* ------------------------------------------------------------------ kernels */
/* For each format and odd shapes: the reference kernel equals a double-precision dot product of
   the dequantized weights with the activations the kernel sees (quantized ones for the integer
   formats), and the quantization error (RMS relative to the weights' RMS) is what the format
   promises. */
static int is_int(srt_format f) { return (f >= SRT_Q8 && f <= SRT_Q1) || f == SRT_FP4; }
static void test_kernels(void) {
    static const int shapes[][2] = {{1, 1}, {13, 37}, {64, 256}, {7, 1000}, {33, 31}};
    static const struct { srt_format f; uint32_t group; double rms; } fmts[] = {
        {SRT_F32, 0, 0.0}, {SRT_F16, 0, 4e-4}, {SRT_BF16, 0, 3e-3},
        {SRT_Q8, 32, 0.012}, {SRT_Q8, 64, 0.012}, {SRT_Q8, 1024, 0.02}, {SRT_Q4, 32, 0.17}, {SRT_Q4, 128, 0.2},
        {SRT_Q2, 32, 0.6}, {SRT_Q2, 64, 0.62}, {SRT_TQ, 32, 0.62}, {SRT_TQ, 64, 0.65}, {SRT_Q1, 32, 0.85}, {SRT_Q1, 64, 0.85},
        {SRT_FP4, 32, 0.12}, {SRT_FP4, 128, 0.15}};   /* (fp4 below q4 on these weights) */
    size_t si, fi;
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++)
        for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
            int M = shapes[si][0], K = shapes[si][1], r, k;
            srt_format f = fmts[fi].f;
            uint32_t g = fmts[fi].group;
            srt_tensor_parts lay;
            void *parts[4] = {0, 0, 0, 0};
            float *w = (float *)malloc(sizeof(float) * M * K), *deq = (float *)malloc(sizeof(float) * M * K);
            float *x = (float *)malloc(sizeof(float) * K), *xq = (float *)malloc(sizeof(float) * K), *y = (float *)malloc(sizeof(float) * M);
            double max_err = 0.0, q_err = 0.0, w_sq = 0.0;
            int i;
            for (i = 0; i < M * K; i++) w[i] = srt_test_frand() * (i % 11 == 0 ? 4.0f : 0.5f);
            for (i = 0; i < K; i++) x[i] = srt_test_frand() * 3.0f;
            CHECK(srt_tensor_layout(f, (uint64_t)M, (uint64_t)K, g, &lay) == SRT_OK, "%s/g%u %dx%d: layout", srt_format_name(f), g, M, K);
            for (i = 0; i < lay.n_parts; i++) parts[i] = malloc((size_t)lay.size[i]);
            CHECK(srt_quantize(f, g, w, (uint64_t)M, (uint64_t)K, parts) == SRT_OK, "%s/g%u %dx%d: quantize", srt_format_name(f), g, M, K);
            srt_dequantize(f, g, (const void *const *)parts, (uint64_t)M, (uint64_t)K, deq);
            /* the activations as the kernel sees them */
            memcpy(xq, x, sizeof(float) * K);
            if (is_int(f))
                for (k = 0; k < K; k += (int)g) {
                    int len = K - k < (int)g ? K - k : (int)g, j;
                    float amax = 0.0f, d;
                    for (j = 0; j < len; j++) if (fabsf(x[k + j]) > amax) amax = fabsf(x[k + j]);
                    d = amax / 127.0f;
                    for (j = 0; j < len; j++) xq[k + j] = d > 0 ? roundf(x[k + j] * (1.0f / d)) * d : 0.0f;
                }
            srt_matvec(f, g, (const void *const *)parts, (uint64_t)M, (uint64_t)K, x, y);
            for (r = 0; r < M; r++) {
                double ref = 0.0, mag = 0.0, err;
                for (k = 0; k < K; k++) { ref += (double)deq[r * K + k] * xq[k]; mag += fabs((double)deq[r * K + k] * xq[k]); }
                err = fabs(y[r] - ref) / (mag + 1e-30);
                if (err > max_err) max_err = err;
            }
            for (i = 0; i < M * K; i++) { q_err += ((double)deq[i] - w[i]) * ((double)deq[i] - w[i]); w_sq += (double)w[i] * w[i]; }
            q_err = sqrt(q_err / w_sq);
            CHECK(max_err < 1e-5, "%s/g%u %dx%d: kernel equals double-precision reference (rel err %.2e)", srt_format_name(f), g, M, K, max_err);
            CHECK(q_err <= fmts[fi].rms, "%s/g%u %dx%d: quantization error %.3f <= %.3f (RMS, relative)", srt_format_name(f), g, M, K, q_err, fmts[fi].rms);
            for (i = 0; i < 4; i++) free(parts[i]);
            free(w); free(deq); free(x); free(xq); free(y);
        }
    {
        float nanv[2] = {1.0f, 0.0f};
        void *p[1];
        uint16_t out[2];
        p[0] = out;
        nanv[1] = nanv[1] / nanv[1];
        CHECK(srt_quantize(SRT_F16, 0, nanv, 1, 2, p) == SRT_ERR_INVALID_ARG && srt_last_error()[0], "non-finite weights are refused: %s", srt_last_error());
        {
            srt_tensor_parts lay;
            CHECK(srt_tensor_layout(SRT_Q8, 4, 4, 0, &lay) == SRT_ERR_FORMAT, "q8 with group 0 is refused: %s", srt_last_error());
            CHECK(srt_tensor_layout(SRT_Q4, 4, 4, 48, &lay) == SRT_ERR_FORMAT, "q4 with group 48 (not a multiple of 32) is refused: %s", srt_last_error());
            CHECK(srt_tensor_layout(SRT_Q2, 4, 4, 131072, &lay) == SRT_ERR_FORMAT, "q2 with group 131072 is refused: %s", srt_last_error());
            CHECK(srt_tensor_layout(SRT_F16, 4, 4, 32, &lay) == SRT_ERR_FORMAT, "f16 with a group size is refused: %s", srt_last_error());
            CHECK(srt_tensor_layout((srt_format)99, 4, 4, 0, &lay) == SRT_ERR_UNSUPPORTED, "an unknown format is refused: %s", srt_last_error());
        }
    }
}

#include "tests/tiny_model.h"

static void spit(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(b, 1, (size_t)n, f);
    fclose(f);
}
/* Loads mapped and copied; both must give the same status (else a status no caller expects). */
static srt_status try_load(const char *path, int verify) {
    srt_model *m = NULL;
    srt_model_desc d;
    srt_status st, st2;
    memset(&d, 0, sizeof d);
    d.n_threads = 1; d.verify_checksums = verify; d.load = SRT_LOAD_MMAP;
    st = srt_model_load(path, &d, &m);
    srt_model_free(m);
    m = NULL;
    d.load = SRT_LOAD_COPY;
    st2 = srt_model_load(path, &d, &m);
    srt_model_free(m);
    return st == st2 ? st : (srt_status)-1000;
}

static void greedy(srt_model *m, const char *prompt, int n, int32_t *out, srt_kv_type kv, int n_batch) {
    srt_session *s;
    srt_session_desc sd;
    int i;
    memset(&sd, 0, sizeof sd);
    sd.kv_type = kv; sd.n_batch = n_batch;
    srt_session_create(m, &sd, &s);
    srt_session_prompt(s, prompt, 0);
    for (i = 0; i < n; i++) if (srt_session_next(s, &out[i]) != SRT_OK) out[i] = -1;
    srt_session_destroy(s);
}

/* fp4 holds MXFP4 exactly: groups of 32 values v * 2^e (v of the FP4 table doubled, e any exponent
   whose scale an f16 holds), the largest |v| 12, 8, 6, 4, 3, 2 or 1, come back bit for bit; and
   values off that grid do not. */
static void test_fp4_mxfp4(void) {
    static const float table[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
    enum { M = 7, K = 32 * 12 };
    float *w = (float *)malloc(sizeof(float) * M * K), *deq = (float *)malloc(sizeof(float) * M * K);
    srt_tensor_parts lay;
    void *parts[4] = {0, 0, 0, 0};
    int i, g, same = 1, off_grid = 0;
    for (g = 0; g < M * K / 32; g++) {
        const int top = 1 + g % 7, e = -14 + g % 16;   /* codes 0..top and their negatives: the largest |v| is table[top] (mostly) */
        for (i = 0; i < 32; i++) {
            const int code = (int)(srt_test_frand() * 100.0f + 100.0f) % (top + 1) + (i % 2 ? 8 : 0);
            w[g * 32 + i] = ldexpf(table[code], e);
        }
        w[g * 32 + 5] = ldexpf(table[top], e);   /* the largest present */
    }
    if (srt_tensor_layout(SRT_FP4, M, K, 32, &lay) != SRT_OK) { CHECK(0, "fp4 layout: %s", srt_last_error()); free(w); free(deq); return; }
    for (i = 0; i < lay.n_parts; i++) parts[i] = malloc((size_t)lay.size[i]);
    CHECK(srt_quantize(SRT_FP4, 32, w, M, K, parts) == SRT_OK && srt_dequantize(SRT_FP4, 32, (const void *const *)parts, M, K, deq) == SRT_OK,
          "fp4/g32: MXFP4 values quantize and dequantize");
    for (i = 0; i < M * K; i++) same &= deq[i] == w[i];
    CHECK(same, "fp4/g32: %d groups of MXFP4 values (largest |v| 1 .. 12, exponents -14 .. 1) come back exactly", M * K / 32);
    w[3] = ldexpf(5.0f, -3);   /* 5 is not in the table: that group is no longer exact */
    srt_quantize(SRT_FP4, 32, w, M, K, parts);
    srt_dequantize(SRT_FP4, 32, (const void *const *)parts, M, K, deq);
    for (i = 0; i < 32; i++) off_grid += deq[i] != w[i];
    CHECK(off_grid > 0, "fp4/g32: a value off the grid is rounded (%d values of its group differ)", off_grid);
    for (i = 0; i < 4; i++) free(parts[i]);
    free(w); free(deq);
}

static void test_model_roundtrip(void) {
    static const srt_format fmts[] = {SRT_F32, SRT_F16, SRT_BF16, SRT_Q8};
    size_t fi;
    for (fi = 0; fi < 4; fi++) {
        srt_model *m1, *m2;
        srt_model_desc d;
        srt_model_info info;
        int32_t a[20], b[20], c[20];
        const char *s;
        uint32_t u;
        int ok;
        ok = write_tiny_model("build/tmp/tiny.srt", fmts[fi], NULL, NULL, 1);
        CHECK(ok, "%s: tiny model written", srt_format_name(fmts[fi]));
        memset(&d, 0, sizeof d);
        d.n_threads = 1; d.verify_checksums = 1; d.load = SRT_LOAD_MMAP;
        CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m1) == SRT_OK, "%s: loads mapped, with checksums verified (%s)", srt_format_name(fmts[fi]), srt_last_error());
        d.n_threads = 2; d.verify_checksums = 0; d.load = SRT_LOAD_COPY;
        CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m2) == SRT_OK, "%s: loads copied, with 2 threads", srt_format_name(fmts[fi]));
        memset(&info, 0, sizeof info);
        srt_model_get_info(m2, &info);
        CHECK(info.load == SRT_LOAD_COPY, "%s: info says the copy was loaded", srt_format_name(fmts[fi]));
        memset(&info, 0, sizeof info);
        srt_model_get_info(m1, &info);
        CHECK(info.load == SRT_LOAD_MMAP, "%s: info says the file was mapped", srt_format_name(fmts[fi]));
        CHECK(info.n_embd == T_E && info.n_layer == T_L && info.n_head_kv == T_KVH && info.n_vocab == T_V && info.format == fmts[fi],
              "%s: info reports the shape and format", srt_format_name(fmts[fi]));
        CHECK(srt_model_meta_str(m1, "general.name", &s) && !strcmp(s, "tiny-test") && srt_model_meta_u32(m1, "llama.block_count", &u) && u == T_L,
              "%s: metadata round-trips", srt_format_name(fmts[fi]));
        greedy(m1, "abc hello", 20, a, SRT_KV_F32, 32);
        greedy(m2, "abc hello", 20, b, SRT_KV_F32, 32);
        greedy(m2, "abc hello", 20, c, SRT_KV_F32, 1);
        CHECK(memcmp(a, b, sizeof a) == 0, "%s: mapped on 1 thread and copied on 2 generate the same tokens", srt_format_name(fmts[fi]));
        CHECK(memcmp(a, c, sizeof a) == 0, "%s: batched prompt equals token-by-token prompt", srt_format_name(fmts[fi]));
        /* bitwise-equal logits across thread counts */
        {
            srt_session *s1, *s2;
            srt_session_desc sd;
            const float *l1, *l2;
            memset(&sd, 0, sizeof sd);
            srt_session_create(m1, &sd, &s1);
            srt_session_create(m2, &sd, &s2);
            srt_session_prompt(s1, "hello abc", 0);
            srt_session_prompt(s2, "hello abc", 0);
            l1 = srt_session_logits(s1); l2 = srt_session_logits(s2);
            CHECK(l1 && l2 && memcmp(l1, l2, sizeof(float) * T_V) == 0, "%s: logits are bit-identical for 1 and 2 threads (mapped, copied)", srt_format_name(fmts[fi]));
            srt_session_destroy(s1); srt_session_destroy(s2);
        }
        srt_model_free(m1); srt_model_free(m2);
    }
}

/* Recomputes the index and header checksums of an .srt image after a deliberate edit, so that
   only the edited field is wrong. */
static void reseal(unsigned char *img) {
    srt__crc32 c;
    uint64_t meta_off, meta_size, dir_size;
    uint32_t crc;
    memcpy(&meta_off, img + 16, 8); memcpy(&meta_size, img + 24, 8); memcpy(&dir_size, img + 40, 8);
    srt__crc32_init(&c);
    crc = srt__crc32_update(&c, 0, img + meta_off, meta_size + dir_size);
    memcpy(img + 60, &crc, 4);
    crc = srt__crc32_update(&c, 0, img, 124);
    memcpy(img + 124, &crc, 4);
}

/* ------------------------------------------------------------------ damaged files */
static void test_damaged_files(void) {
    size_t n, cut;
    unsigned char *good;
    int crashes_none = 1, bad_accepts = 0, flips_accepted = 0, i;
    write_tiny_model("build/tmp/good.srt", SRT_Q8, NULL, NULL, 1);
    good = (unsigned char *)srt_test_read_file("build/tmp/good.srt", &n);
    CHECK(good != NULL, "reference file read back");
    if (!good) return;
    /* truncations: every length in the first 300 bytes, then 200 spread over the file */
    for (i = 0; i < 500; i++) {
        cut = i < 300 ? (size_t)i : (size_t)((double)(i - 300) / 200.0 * (double)n);
        if (cut >= n) continue;
        spit("build/tmp/bad.srt", good, cut);
        if (try_load("build/tmp/bad.srt", 0) == SRT_OK) bad_accepts++;
    }
    CHECK(bad_accepts == 0 && crashes_none, "500 truncated files are all refused (%d accepted)", bad_accepts);
    spit("build/tmp/bad.srt", good, n - 1);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT && strstr(srt_last_error(), "truncated"), "truncation is named: %s", srt_last_error());
    /* a flipped byte anywhere in header, metadata or directory is caught by the checksums */
    {
        uint64_t meta_off = 0;
        memcpy(&meta_off, good + 16, 8);
        for (i = 0; i < 400; i++) {
            size_t pos = i < 128 ? (size_t)i : (size_t)meta_off + (size_t)((double)(i - 128) / 272.0 * (double)(n - (size_t)meta_off));
            unsigned char save;
            if (pos >= n) continue;
            save = good[pos];
            good[pos] ^= (unsigned char)(1u << (i % 8));
            spit("build/tmp/bad.srt", good, n);
            if (try_load("build/tmp/bad.srt", 0) == SRT_OK) flips_accepted++;
            good[pos] = save;
        }
        CHECK(flips_accepted == 0, "400 single-bit flips in header/metadata/directory are refused (%d accepted)", flips_accepted);
    }
    /* a flipped data byte: accepted without verification, refused with it */
    good[4096] ^= 0x10;
    spit("build/tmp/bad.srt", good, n);
    CHECK(try_load("build/tmp/bad.srt", 1) == SRT_ERR_CHECKSUM && strstr(srt_last_error(), "tensor"), "data corruption is caught by verify_checksums: %s", srt_last_error());
    good[4096] ^= 0x10;
    memcpy(good, "GGUF", 4);
    spit("build/tmp/bad.srt", good, n);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT && strstr(srt_last_error(), "magic"), "wrong magic: %s", srt_last_error());
    free(good);
    CHECK(try_load("build/tmp/does-not-exist.srt", 0) == SRT_ERR_IO, "missing file: %s", srt_last_error());
    spit("build/tmp/bad.srt", (const unsigned char *)"", 0);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT, "empty file: %s", srt_last_error());
    /* well-formed files that describe the wrong model */
    write_tiny_model("build/tmp/bad.srt", SRT_F16, "blk.1.ffn_up.weight", NULL, 1);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT && strstr(srt_last_error(), "blk.1.ffn_up.weight"), "missing tensor is named: %s", srt_last_error());
    write_tiny_model("build/tmp/bad.srt", SRT_F16, NULL, "blk.0.attn_k.weight", 1);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_SHAPE && strstr(srt_last_error(), "blk.0.attn_k.weight"), "wrong shape is named: %s", srt_last_error());
    write_tiny_model("build/tmp/bad.srt", SRT_F16, NULL, NULL, 0);
    CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_NO_TOKENIZER, "a model without tokenizer is refused: %s", srt_last_error());
    /* an unknown format number in the directory (checksums recomputed so only the format is wrong) */
    {
        uint64_t meta_off, meta_size, dir_off, dir_size;
        write_tiny_model("build/tmp/good.srt", SRT_F16, NULL, NULL, 1);
        good = (unsigned char *)srt_test_read_file("build/tmp/good.srt", &n);
        memcpy(&meta_off, good + 16, 8); memcpy(&meta_size, good + 24, 8); memcpy(&dir_off, good + 32, 8); memcpy(&dir_size, good + 40, 8);
        /* first directory entry: u32 name length, name, u32 format */
        {
            uint32_t nl;
            memcpy(&nl, good + dir_off, 4);
            good[dir_off + 4 + nl] = 77;
        }
        reseal(good);
        spit("build/tmp/bad.srt", good, n);
        CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "format 77"), "unknown weight format: %s", srt_last_error());
        /* absurd shape: rows = 2^50 */
        {
            uint32_t nl;
            uint64_t rows = 1ull << 50;
            memcpy(&nl, good + dir_off, 4);
            good[dir_off + 4 + nl] = 1;
            memcpy(good + dir_off + 4 + nl + 8, &rows, 8);
            reseal(good);
            spit("build/tmp/bad.srt", good, n);
            CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT && strstr(srt_last_error(), "shape"), "absurd shape: %s", srt_last_error());
        }
        /* absurd offset: the first part of the first tensor points past the end of the file */
        free(good);
        good = (unsigned char *)srt_test_read_file("build/tmp/good.srt", &n);
        {
            uint32_t nl;
            uint64_t off = (uint64_t)1 << 62;
            memcpy(&nl, good + dir_off, 4);
            /* name, u32 format, u32 group, u64 rows, u64 cols, u32 n_parts, then u32 kind, u64 offset */
            memcpy(good + dir_off + 4 + nl + 4 + 4 + 8 + 8 + 4 + 4, &off, 8);
            reseal(good);
            spit("build/tmp/bad.srt", good, n);
            CHECK(try_load("build/tmp/bad.srt", 0) == SRT_ERR_FORMAT && strstr(srt_last_error(), "outside the data region"), "absurd offset: %s", srt_last_error());
        }
        free(good);
    }
}

/* ------------------------------------------------------------------ tokenizer and streaming */
static void test_tokenizer_and_stream(void) {
    srt_model *m;
    srt_model_desc d;
    int32_t ids[64];
    int n = 0, i;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    write_tiny_model("build/tmp/tiny.srt", SRT_F32, NULL, NULL, 1);
    if (srt_model_load("build/tmp/tiny.srt", &d, &m) != SRT_OK) { CHECK(0, "tiny model loads"); return; }
    CHECK(srt_tokenize(m, "hello abc", 9, SRT_TOKENIZE_NO_BOS, ids, 64, &n) == SRT_OK && n == 2 &&
          !strcmp(srt_token_piece(m, ids[0]), "\xe2\x96\x81hello") && !strcmp(srt_token_piece(m, ids[1]), "\xe2\x96\x81" "abc"),
          "merges reach whole words: 'hello abc' -> [_hello, _abc] (n=%d)", n);
    CHECK(srt_tokenize(m, "hello", 5, 0, ids, 64, &n) == SRT_OK && n == 2 && ids[0] == 1, "BOS is added by default for SentencePiece");
    CHECK(srt_tokenize(m, "", 0, SRT_TOKENIZE_NO_BOS, ids, 64, &n) == SRT_OK && n == 0, "empty text gives no tokens");
    CHECK(srt_tokenize(m, "abc hello", 9, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_NO_SPACE_PREFIX, ids, 64, &n) == SRT_OK && n == 2 &&
          !strcmp(srt_token_piece(m, ids[0]), "abc") && !strcmp(srt_token_piece(m, ids[1]), "\xe2\x96\x81hello"),
          "NO_SPACE_PREFIX: a continuation starts without the dummy space");
    CHECK(srt_tokenize(m, "z\xff", 2, SRT_TOKENIZE_NO_BOS, ids, 64, &n) == SRT_OK && n == 3 && ids[1] == 3 + 'z' && ids[2] == 3 + 0xff,
          "unknown characters and invalid UTF-8 fall back to byte tokens");
    CHECK(srt_tokenize(m, "hello abc", 9, SRT_TOKENIZE_NO_BOS, ids, 1, &n) == SRT_ERR_INVALID_ARG && n == 2, "too small an output buffer reports the size needed");
    /* streaming: a 3-byte character split over byte tokens comes out whole, only at the end */
    {
        srt_utf8_stream st;
        char out[256];
        int w1, w2, w3, w4;
        memset(&st, 0, sizeof st);
        w1 = srt_utf8_stream_token(&st, m, 3 + 0xE2, 0, out, sizeof out);
        w2 = srt_utf8_stream_token(&st, m, 3 + 0x82, 0, out, sizeof out);
        w3 = srt_utf8_stream_token(&st, m, 3 + 0xAC, 0, out, sizeof out);
        CHECK(w1 == 0 && w2 == 0 && w3 == 3 && memcmp(out, "\xe2\x82\xac", 3) == 0, "a split euro sign is held back until complete");
        /* invalid: lead byte then ASCII -> U+FFFD then the ASCII */
        w1 = srt_utf8_stream_token(&st, m, 3 + 0xE2, 0, out, sizeof out);
        w2 = srt_utf8_stream_token(&st, m, 3 + 'A', 0, out, sizeof out);
        CHECK(w1 == 0 && w2 == 4 && memcmp(out, "\xef\xbf\xbd" "A", 4) == 0, "a broken sequence becomes U+FFFD and the next byte survives");
        /* overlong and surrogate encodings are refused */
        w1 = srt_utf8_stream_token(&st, m, 3 + 0xC0, 0, out, sizeof out);
        CHECK(w1 == 3 && memcmp(out, "\xef\xbf\xbd", 3) == 0, "0xC0 (overlong lead) becomes U+FFFD");
        srt_utf8_stream_token(&st, m, 3 + 0xED, 0, out, sizeof out);
        w2 = srt_utf8_stream_token(&st, m, 3 + 0xA0, 0, out, sizeof out);
        CHECK(w2 == 6, "a UTF-16 surrogate (ED A0) becomes two U+FFFD");
        w3 = srt_utf8_stream_token(&st, m, 3 + 0xF0, 0, out, sizeof out);
        w4 = srt_utf8_stream_flush(&st, out, sizeof out);
        CHECK(w3 == 0 && w4 == 3, "an unfinished character at the end is flushed as U+FFFD");
        memset(&st, 0, sizeof st);
        srt_tokenize(m, "hello", 5, SRT_TOKENIZE_NO_BOS, ids, 64, &n);
        w1 = srt_utf8_stream_token(&st, m, ids[0], SRT_STREAM_STRIP_LEADING_SPACE, out, sizeof out);
        CHECK(w1 == 5 && memcmp(out, "hello", 5) == 0, "the dummy-prefix space is stripped at the start of a stream");
        CHECK(srt_utf8_stream_token(&st, m, ids[0], 0, out, 8) == -1, "too small an output buffer is refused, not overrun");
    }
    /* detokenize(tokenize(x)) == x for valid UTF-8 */
    {
        static const char *texts[] = {"hello abc", "  spaces  inside ", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac 5", "a\nb\tc", "\xf0\x9f\x98\x80 emoji", 0};
        int t, all = 1;
        for (t = 0; texts[t]; t++) {
            char out[1024];
            int w = 0;
            srt_utf8_stream st;
            memset(&st, 0, sizeof st);
            srt_tokenize(m, texts[t], strlen(texts[t]), SRT_TOKENIZE_NO_BOS, ids, 64, &n);
            for (i = 0; i < n; i++) w += srt_utf8_stream_token(&st, m, ids[i], SRT_STREAM_STRIP_LEADING_SPACE, out + w, (int)sizeof out - w);
            if (w != (int)strlen(texts[t]) || memcmp(out, texts[t], (size_t)w) != 0) { all = 0; printf("# round trip of '%s' gave '%.*s'\n", texts[t], w, out); }
        }
        CHECK(all, "detokenize(tokenize(text)) == text for 5 texts with spaces, accents, tabs and emoji");
    }
    srt_model_free(m);
}

/* ------------------------------------------------------------------ sampler, limits, cancellation */
static int cancel_after_3(const char *text, int len, int32_t tok, void *user) {
    srt_session *s = (srt_session *)user;
    (void)text; (void)len; (void)tok;
    if (srt_session_pos(s) >= 8) srt_session_cancel(s);
    return 0;
}
static int stop_calls;
static int stop_at_once(const char *text, int len, int32_t tok, void *user) { (void)text; (void)len; (void)tok; (void)user; stop_calls++; return 1; }

/* The model desc's core policy reaches the model's own pool. */
static void test_model_cores(void) {
    srt_model *m = NULL;
    srt_model_desc d;
    int32_t a[8], b[8];
    memset(&d, 0, sizeof d);
    d.cores = SRT_CORES_LIST; d.cpu_list = "0";
    CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m) == SRT_OK, "a model loads with --cores 0 (%s)", srt_last_error());
    if (m) { greedy(m, "abc", 8, a, SRT_KV_F16, 32); srt_model_free(m); m = NULL; }
    d.cores = SRT_CORES_ALL; d.cpu_list = NULL; d.pin = -1;
    CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m) == SRT_OK, "a model loads with all cores, unpinned");
    if (m) { greedy(m, "abc", 8, b, SRT_KV_F16, 32); srt_model_free(m); m = NULL; }
    CHECK(memcmp(a, b, sizeof a) == 0, "the core policy does not change results");
    d.cores = SRT_CORES_LIST; d.cpu_list = "0,0";
    CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m) == SRT_ERR_INVALID_ARG && m == NULL, "a repeated CPU in the list is refused: %s", srt_last_error());
    d.cores = SRT_CORES_AUTO; d.cpu_list = NULL; d.load = (srt_load)7;
    CHECK(srt_model_load("build/tmp/tiny.srt", &d, &m) == SRT_ERR_INVALID_ARG && m == NULL, "an unknown load mode is refused: %s", srt_last_error());
}

static void test_sessions(void) {
    srt_model *m;
    srt_model_desc d;
    srt_session *s;
    srt_session_desc sd;
    srt_generate_desc g;
    srt_generate_result r;
    int32_t a[16], b[16], t;
    memset(&r, 0, sizeof r);
    int i, same;
    const float *lg;
    memset(&d, 0, sizeof d);
    d.n_threads = 2;
    if (srt_model_load("build/tmp/tiny.srt", &d, &m) != SRT_OK) { CHECK(0, "tiny model loads"); return; }
    /* greedy picks the argmax */
    memset(&sd, 0, sizeof sd);
    srt_session_create(m, &sd, &s);
    srt_session_prompt(s, "abc", 0);
    lg = srt_session_logits(s);
    {
        int best = 0;
        for (i = 1; i < T_V; i++) if (lg[i] > lg[best]) best = i;
        CHECK(srt_session_next(s, &t) == SRT_OK && t == best, "temperature 0 picks the argmax");
    }
    srt_session_destroy(s);
    /* seeded sampling is reproducible; different seeds differ; top-k 1 is greedy */
    sd.sampler.temperature = 1.5f; sd.sampler.seed = 42; sd.sampler.top_p = 0.95f; sd.sampler.min_p = 0.01f; sd.sampler.repeat_penalty = 1.1f;
    for (i = 0; i < 2; i++) {
        int k;
        srt_session_create(m, &sd, &s);
        srt_session_prompt(s, "abc", 0);
        for (k = 0; k < 16; k++) srt_session_next(s, i ? &b[k] : &a[k]);
        srt_session_destroy(s);
    }
    CHECK(memcmp(a, b, sizeof a) == 0, "the same seed samples the same 16 tokens");
    sd.sampler.seed = 43;
    srt_session_create(m, &sd, &s);
    srt_session_prompt(s, "abc", 0);
    for (i = 0, same = 1; i < 16; i++) { srt_session_next(s, &b[i]); if (b[i] != a[i]) same = 0; }
    srt_session_destroy(s);
    CHECK(!same, "another seed samples differently");
    memset(&sd.sampler, 0, sizeof sd.sampler);
    sd.sampler.temperature = 1.5f; sd.sampler.top_k = 1; sd.sampler.seed = 7;
    srt_session_create(m, &sd, &s);
    srt_session_prompt(s, "abc", 0);
    memset(&sd.sampler, 0, sizeof sd.sampler);
    {
        srt_session *s0;
        int k, eq = 1;
        srt_session_create(m, &sd, &s0);
        srt_session_prompt(s0, "abc", 0);
        for (k = 0; k < 16; k++) { srt_session_next(s, &a[k]); srt_session_next(s0, &b[k]); if (a[k] != b[k]) eq = 0; }
        CHECK(eq, "top-k 1 with temperature equals greedy");
        srt_session_destroy(s0);
    }
    srt_session_destroy(s);
    /* context overflow */
    sd.n_ctx = 8;
    srt_session_create(m, &sd, &s);
    {
        int32_t nine[9] = {1, 5, 6, 7, 8, 9, 10, 11, 12};
        CHECK(srt_session_feed(s, nine, 9) == SRT_ERR_CONTEXT_FULL && srt_session_pos(s) == 0, "9 tokens into an 8-token context: refused, nothing consumed (%s)", srt_last_error());
        CHECK(srt_session_feed(s, nine, 5) == SRT_OK, "5 tokens fit");
        memset(&g, 0, sizeof g);
        g.stop_at_eos = -1;
        CHECK(srt_generate(s, &g, &r) == SRT_ERR_CONTEXT_FULL && r.stopped_by == 4 && srt_session_pos(s) == 8 && r.n_generated == 3,
              "generation stops cleanly at the end of the context (%d generated)", r.n_generated);
        CHECK(srt_session_next(s, &t) == SRT_ERR_CONTEXT_FULL, "next() on a full context says so");
        nine[0] = T_V;
        srt_session_reset(s);
        CHECK(srt_session_feed(s, nine, 1) == SRT_ERR_INVALID_ARG, "an out-of-vocabulary id is refused: %s", srt_last_error());
    }
    srt_session_destroy(s);
    /* cancellation from the callback (stands in for another thread), and stopping by callback */
    sd.n_ctx = 64;
    srt_session_create(m, &sd, &s);
    memset(&g, 0, sizeof g);
    g.prompt = "abc"; g.max_tokens = 40; g.on_text = cancel_after_3; g.user = s; g.stop_at_eos = -1;
    CHECK(srt_generate(s, &g, &r) == SRT_ERR_CANCELLED && r.stopped_by == 3 && r.n_generated < 40, "cancel stops generation (%d tokens)", r.n_generated);
    /* steppable calls: a stale request does not cancel new input; one between tokens stops the next
       srt_session_next without changing the sequence, and going on gives the uncancelled tokens */
    {
        int32_t plain[6], stepped[6], tok;
        int k, pos, ok = 1;
        srt_session_reset(s);
        srt_session_cancel(s);
        CHECK(srt_session_prompt(s, "abc", 0) == SRT_OK, "a cancel request made before a prompt does not cancel it");
        for (k = 0; k < 6; k++) ok = ok && srt_session_next(s, &plain[k]) == SRT_OK;
        srt_session_reset(s);
        srt_session_prompt(s, "abc", 0);
        for (k = 0; k < 6 && ok; k++) {
            if (k == 3) {
                pos = srt_session_pos(s);
                srt_session_cancel(s);
                ok = srt_session_next(s, &tok) == SRT_ERR_CANCELLED && srt_session_pos(s) == pos && srt_session_tokens(s)[pos - 1] == stepped[2];
            }
            ok = ok && srt_session_next(s, &stepped[k]) == SRT_OK;
        }
        CHECK(ok && memcmp(plain, stepped, sizeof plain) == 0, "cancel between srt_session_next calls: CANCELLED once, sequence kept, then the same tokens");
    }
    srt_session_reset(s);
    g.on_text = stop_at_once;
    stop_calls = 0;
    CHECK(srt_generate(s, &g, &r) == SRT_OK && r.stopped_by == 2 && stop_calls == 1 && r.n_generated >= 1 &&
          srt_session_pos(s) == r.n_prompt + r.n_generated,
          "a callback returning nonzero stops generation at that token (%d generated, the first ones may hold partial UTF-8)", r.n_generated);
    srt_session_destroy(s);
    /* truncate: back to a point of the sequence, as if what came after had never been fed */
    {
        static float keep[T_V];
        srt_session *ref;
        int32_t toks[40], gen1[8], gen2[8], seq[11];
        int k, ok, same_gen = 1;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 64; sd.n_batch = 8;
        srt_session_create(m, &sd, &s); srt_session_create(m, &sd, &ref);
        for (k = 0; k < 40; k++) toks[k] = 1 + (k * 7) % (T_V - 1);
        ok = srt_session_feed(s, toks, 30) == SRT_OK && (lg = srt_session_logits(s)) != NULL;
        if (ok) memcpy(keep, lg, sizeof keep);
        for (k = 0; k < 8 && ok; k++) ok = srt_session_next(s, &gen1[k]) == SRT_OK;
        ok = ok && srt_session_logits(s) && srt_session_truncate(s, 30) == SRT_OK && srt_session_pos(s) == 30 &&
             (lg = srt_session_logits(s)) != NULL && memcmp(lg, keep, sizeof keep) == 0;
        CHECK(ok, "truncate back to the prompt: the logits after it again, bit for bit");
        for (k = 0; k < 8 && ok; k++) { ok = srt_session_next(s, &gen2[k]) == SRT_OK; same_gen = same_gen && gen2[k] == gen1[k]; }
        CHECK(ok && same_gen, "... and greedy generation gives the same 8 tokens again");
        /* into the prompt, then other input: a session fed the kept tokens and the new ones */
        seq[0] = toks[11];
        memcpy(seq + 1, toks + 20, 10 * sizeof(int32_t));
        ok = srt_session_truncate(s, 12) == SRT_OK && srt_session_pos(s) == 12 && srt_session_feed(s, toks + 20, 10) == SRT_OK &&
             srt_session_feed(ref, toks, 11) == SRT_OK && srt_session_feed(ref, seq, 11) == SRT_OK &&
             srt_session_logits(s) && srt_session_logits(ref) && memcmp(srt_session_logits(s), srt_session_logits(ref), sizeof keep) == 0 &&
             memcmp(srt_session_tokens(s), srt_session_tokens(ref), 22 * sizeof(int32_t)) == 0;
        CHECK(ok, "truncate into the prompt and feed other tokens: the logits of a session fed the same sequence");
        /* a sampled token not yet evaluated, dropped: the distribution it came from is the current one */
        ok = srt_session_next(s, &t) == SRT_OK && srt_session_pos(s) == 23 && srt_session_truncate(s, 22) == SRT_OK &&
             memcmp(srt_session_logits(s), srt_session_logits(ref), sizeof keep) == 0 && srt_session_next(s, &a[0]) == SRT_OK && a[0] == t;
        CHECK(ok, "truncate drops a sampled token; sampling again (greedy) gives it again");
        CHECK(srt_session_truncate(s, -1) == SRT_ERR_INVALID_ARG && srt_session_truncate(s, 24) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "0..23") &&
              srt_session_truncate(NULL, 0) == SRT_ERR_INVALID_ARG && srt_session_pos(s) == 23, "truncate refuses -1, more than the sequence, NULL: %s", srt_last_error());
        CHECK(srt_session_truncate(s, 0) == SRT_OK && srt_session_pos(s) == 0 && srt_session_logits(s) == NULL &&
              srt_session_next(s, &t) == SRT_ERR_INVALID_ARG && srt_session_feed(s, toks, 30) == SRT_OK && srt_session_logits(s) &&
              memcmp(srt_session_logits(s), keep, sizeof keep) == 0, "truncate to 0 empties the sequence; feeding again gives the first logits");
        srt_session_destroy(s); srt_session_destroy(ref);
    }
    memset(&sd, 0, sizeof sd);
    /* two sessions on one model, interleaved, equal a single one */
    {
        srt_session *s1, *s2;
        int k, eq = 1;
        srt_session_create(m, &sd, &s1);
        srt_session_create(m, &sd, &s2);
        srt_session_prompt(s1, "hello", 0);
        srt_session_prompt(s2, "abc", 0);
        srt_session_create(m, &sd, &s);
        srt_session_prompt(s, "hello", 0);
        for (k = 0; k < 10; k++) { srt_session_next(s1, &a[k]); srt_session_next(s2, &t); srt_session_next(s, &b[k]); if (a[k] != b[k]) eq = 0; }
        CHECK(eq, "two interleaved sessions do not disturb each other");
        srt_session_destroy(s1); srt_session_destroy(s2); srt_session_destroy(s);
    }
    srt_model_free(m);
}

typedef struct pool_job { int64_t *hits; int64_t max_thread; } pool_job;
static void count_hits(void *user, int64_t begin, int64_t end, int thread) {
    pool_job *j = (pool_job *)user;
    int64_t k;
    int64_t seen = __atomic_load_n(&j->max_thread, __ATOMIC_RELAXED);
    for (k = begin; k < end; k++) j->hits[k]++;
    /* an atomic max: the plain one was a data race (TSan reported it under ./build.sh test tsan) */
    while (thread > seen && !__atomic_compare_exchange_n(&j->max_thread, &seen, (int64_t)thread, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}
static void test_pool(void) {
    srt_pool *p;
    srt_pool_desc pd = {0};
    static int64_t hits[10007];
    pool_job j;
    int round, once = 1;
    int64_t k;
    pd.n_threads = 3;
    CHECK(srt_pool_create(&pd, &p) == SRT_OK && srt_pool_threads(p) == 3, "a 3-thread pool starts");
    j.hits = hits; j.max_thread = 0;
    for (round = 0; round < 300; round++) {
        int64_t n = 1 + (round * 7919) % 10007;
        memset(hits, 0, sizeof hits);
        srt_pool_parallel_for(p, n, 1 + round % 37, count_hits, &j);
        for (k = 0; k < n; k++) if (hits[k] != 1) once = 0;
    }
    CHECK(once, "300 parallel-fors of varied size and chunk visit every item exactly once");
    CHECK(j.max_thread < 3, "thread indices stay below the thread count");
    srt_pool_destroy(p);
    pd.n_threads = -1;
    CHECK(srt_pool_create(&pd, &p) == SRT_ERR_INVALID_ARG, "a negative thread count is refused");
}

/* CRC-32: the standard check value; crc(A B) from crc(A), crc(B); the writer's CRC on a pool of 3
   threads equals one thread over 5.5 MiB (blocks of 1 MiB and a partial one). */
static void test_crc(void) {
    srt__crc32 c;
    srt_pool *p = NULL;
    srt_pool_desc pd;
    size_t n = (size_t)11 << 19, i, bad = 0;
    unsigned char *buf = (unsigned char *)malloc(n);
    srt__crc32_init(&c);
    CHECK(srt__crc32_update(&c, 0, "123456789", 9) == 0xCBF43926u, "crc32(\"123456789\") = 0xCBF43926");
    for (i = 0; i < n; i++) buf[i] = (unsigned char)(srt_test_frand() * 128.0f + 128.0f);
    for (i = 0; i <= 1000; i += 37)
        bad += srt__crc32_combine(srt__crc32_update(&c, 0, buf, i), srt__crc32_update(&c, 0, buf + i, 1000 - i), 1000 - i) != srt__crc32_update(&c, 0, buf, 1000);
    CHECK(bad == 0, "crc32 of A then B combined from their CRCs (28 split points)");
    memset(&pd, 0, sizeof pd);
    pd.n_threads = 3;
    if (srt_pool_create(&pd, &p) != SRT_OK) { CHECK(0, "pool: %s", srt_last_error()); free(buf); return; }
    CHECK(srt__crc32_pool(p, &c, buf, n) == srt__crc32_update(&c, 0, buf, n) && srt__crc32_pool(p, &c, buf, 5) == srt__crc32_update(&c, 0, buf, 5),
          "crc32 on a pool of 3 threads = one thread (5.5 MiB, 5 bytes)");
    srt_pool_destroy(p);
    free(buf);
}

int main(void) {
    if (system("mkdir -p build/tmp") != 0) return 1;
    test_crc();
    test_half_floats();
    test_kernels();
    test_fp4_mxfp4();
    test_model_roundtrip();
    test_damaged_files();
    test_tokenizer_and_stream();
    test_sessions();
    test_model_cores();
    test_pool();
    CHECK(strcmp(srt_status_str(SRT_ERR_CHECKSUM), "checksum mismatch") == 0 && strcmp(srt_version(), SRT_VERSION_STRING) == 0, "status strings and version");
    return srt_test_finish();
}
