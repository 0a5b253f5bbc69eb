/* test_kernels.c - every SIMD kernel against the portable reference, bit for bit: each format, each
   instruction-set level this machine supports (forced lower levels included), GEMV and GEMM token
   counts, odd shapes (M, K not multiples of the tile or group), 1 and 2 threads; and a whole model
   gives the same logits at every level. The one exception is the AMX bf16 GEMM, which rounds x to
   two bf16 parts: it is held to a tolerance (srt_test_amx_bf16_tol). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"
#include "tests/tiny_model.h"

#include <math.h>
#include <stdlib.h>

static void test_levels(void) {
    srt_isa best = srt_isa_best(), isa;
    CHECK(best >= SRT_ISA_PORTABLE && best < SRT_ISA_COUNT, "best level: %s", srt_isa_name(best));
    CHECK(srt_isa_from_name("avx2") == SRT_ISA_AVX2 && srt_isa_from_name("nope") == -1 && strcmp(srt_isa_name(SRT_ISA_AMX), "amx") == 0,
          "level names");
    CHECK(srt_isa_resolve(SRT_ISA_PORTABLE) == SRT_ISA_PORTABLE && srt_isa_resolve(best) == best, "portable and the best level can be forced");
    isa = srt_isa_resolve(SRT_ISA_AMX);
    CHECK(isa == best, "forcing amx (the top level) lowers it to the best this CPU has (%s)", srt_isa_name(isa));
    {   /* srt_isa_supported: exactly the levels srt_isa_resolve keeps */
        int i, agree = 1, resolved;
        for (i = SRT_ISA_PORTABLE; i < SRT_ISA_COUNT; i++) {
            resolved = srt_isa_resolve((srt_isa)i) == (srt_isa)i;
            agree &= srt_isa_supported((srt_isa)i) == resolved;
        }
        CHECK(agree && srt_isa_supported(SRT_ISA_PORTABLE) && srt_isa_supported(best) && !srt_isa_supported(SRT_ISA_AUTO) &&
              !srt_isa_supported((srt_isa)SRT_ISA_COUNT), "srt_isa_supported: the levels srt_isa_resolve keeps (avxvnni here: %d)",
              srt_isa_supported(SRT_ISA_AVXVNNI));
    }
}

/* y at `isa` with `pool` equals the portable reference bit for bit. */
static void test_format(srt_pool *pool, srt_format f, uint32_t group) {
    static const int shapes[][2] = {{1, 32}, {17, 100}, {45, 300}, {16, 64}, {130, 520}, {3, 2048}};
    /* 4k + 1, 2, 3 (a GEMM block's leftovers; 18 and 71: 2 and 3 after the blocks where a GEMM starts
       at 16 tokens, 71 an odd one after AVX2's pairs where it starts at 32); 71: the AMX bf16 GEMM's
       second pass of 64 */
    enum { NT_MAX = 71 };   /* the most tokens in toks */
    static const int toks[] = {1, 2, 3, 5, 7, 13, 18, NT_MAX};
    size_t si, ti;
    srt_isa best = srt_isa_best();
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int M = shapes[si][0], K = shapes[si][1], i, isa;
        srt_tensor_parts lay;
        void *parts[4] = {0, 0, 0, 0};
        float *w = (float *)malloc(sizeof(float) * M * K), *x = (float *)malloc(sizeof(float) * NT_MAX * K);
        float *ref = (float *)malloc(sizeof(float) * NT_MAX * M), *y = (float *)malloc(sizeof(float) * NT_MAX * M);
        for (i = 0; i < M * K; i++) w[i] = srt_test_frand() * (i % 13 == 0 ? 2.0f : 0.5f);
        for (i = 0; i < NT_MAX * K; i++) x[i] = srt_test_frand() * (i % 7 == 0 ? 5.0f : 1.0f);
        if (srt_tensor_layout(f, (uint64_t)M, (uint64_t)K, group, &lay) != SRT_OK) { CHECK(0, "layout: %s", srt_last_error()); return; }
        for (i = 0; i < lay.n_parts; i++) parts[i] = malloc((size_t)lay.size[i]);
        srt_quantize(f, group, w, (uint64_t)M, (uint64_t)K, parts);
        for (ti = 0; ti < sizeof toks / sizeof toks[0]; ti++) {
            int n = toks[ti];
            srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)parts, (uint64_t)M, (uint64_t)K, n, x, ref);
            for (isa = SRT_ISA_AVX2; isa <= (int)best; isa++) {
                if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
                int bad = 0, first = -1, amx_bf16 = isa == SRT_ISA_AMX && f == SRT_BF16 && n >= 2;
                for (i = 0; i < n * M; i++) y[i] = -12345.0f;
                srt_matmul(pool, (srt_isa)isa, f, group, (const void *const *)parts, (uint64_t)M, (uint64_t)K, n, x, y);
                if (amx_bf16) {   /* bf16 tiles: x in two bf16 parts, sums in another order (sparsert_x86.h) */
                    for (i = 0; i < n * M; i++)
                        if (!(fabs((double)y[i] - ref[i]) <= srt_test_amx_bf16_tol(w + (i % M) * K, x + (i / M) * K, K))) { if (first < 0) first = i; bad++; }
                    CHECK(bad == 0, "%s %dx%d n=%d amx%s: within 2^-14 of sum |w x| of the reference (%d not; first [%d] %.9g vs %.9g)",
                          srt_format_name(f), M, K, n, pool ? " 2 threads" : "", bad, first, first >= 0 ? y[first] : 0.0, first >= 0 ? ref[first] : 0.0);
                    continue;
                }
                for (i = 0; i < n * M; i++) if (memcmp(&y[i], &ref[i], 4) != 0) { if (first < 0) first = i; bad++; }
                CHECK(bad == 0, "%s/g%u %dx%d n=%d %s%s: equals the reference bit for bit (%d differ; first [%d] %.9g vs %.9g)",
                      srt_format_name(f), group, M, K, n, srt_isa_name((srt_isa)isa), pool ? " 2 threads" : "",
                      bad, first, first >= 0 ? y[first] : 0.0, first >= 0 ? ref[first] : 0.0);
            }
        }
        for (i = 0; i < 4; i++) free(parts[i]);
        free(w); free(x); free(ref); free(y);
    }
}

static void test_kernels(void) {
    static const struct { srt_format f; uint32_t group; } fmts[] = {
        {SRT_F32, 0}, {SRT_F16, 0}, {SRT_BF16, 0}, {SRT_Q8, 32}, {SRT_Q8, 64}, {SRT_Q4, 32}, {SRT_Q4, 128},
        {SRT_Q2, 64}, {SRT_TQ, 32}, {SRT_TQ, 256}, {SRT_Q1, 32}, {SRT_Q1, 64}, {SRT_Q8, 4096}, {SRT_FP4, 32}, {SRT_FP4, 96}};
    srt_pool *pool = NULL;
    srt_pool_desc pd;
    size_t fi;
    memset(&pd, 0, sizeof pd);
    pd.n_threads = 2;
    if (srt_pool_create(&pd, &pool) != SRT_OK) { CHECK(0, "pool: %s", srt_last_error()); return; }
    if (srt_isa_best() < SRT_ISA_AVX2) printf("# no SIMD level on this machine: only the portable kernels run\n");
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        test_format(NULL, fmts[fi].f, fmts[fi].group);
        test_format(pool, fmts[fi].f, fmts[fi].group);
    }
    srt_pool_destroy(pool);
}

/* The bias (Qwen2's q/k/v) is added by every kernel as the reference adds it: 130 rows (a last tile
   of 2), 1 and 13 tokens; bf16 and sb-bf16 on AMX to the tolerance, the others bit for bit. */
static void test_bias(void) {
    static const struct { srt_format f; uint32_t group; } fmts[] = {{SRT_F32, 0}, {SRT_BF16, 0}, {SRT_SB_BF16, 0}, {SRT_Q8, 64}, {SRT_SB_Q8, 64}};
    enum { M = 130, K = 200, N = 13 };
    float *w = (float *)malloc(sizeof(float) * M * K), *x = (float *)malloc(sizeof(float) * N * K), *b = (float *)malloc(sizeof(float) * M);
    float *ref = (float *)malloc(sizeof(float) * N * M), *y = (float *)malloc(sizeof(float) * N * M);
    void *scratch = malloc((size_t)srt__acts_bytes(N, K, 32));
    size_t fi;
    int i, n, isa;
    for (i = 0; i < M * K; i++) w[i] = i % 3 == 0 ? 0.0f : srt_test_frand();   /* a third zeros: the sparse formats store the rest */
    for (i = 0; i < N * K; i++) x[i] = srt_test_frand();
    for (i = 0; i < M; i++) b[i] = 10.0f * srt_test_frand();
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        srt_tensor_parts lay;
        srt__weights wt;
        const srt__weights *ws[1];
        const float *bs[1];
        float *ys[1];
        memset(&wt, 0, sizeof wt);
        wt.format = fmts[fi].f; wt.group = fmts[fi].group; wt.rows = M; wt.cols = K;
        if (srt_tensor_layout_data(wt.format, M, K, wt.group, w, &lay) != SRT_OK) { CHECK(0, "layout: %s", srt_last_error()); continue; }
        for (i = 0; i < lay.n_parts; i++) wt.part[i] = malloc((size_t)lay.size[i]);
        srt_quantize(wt.format, wt.group, w, M, K, (void *const *)wt.part);
        ws[0] = &wt; bs[0] = b;
        for (n = 1; n <= N; n += N - 1) {
            ys[0] = ref;
            srt__matmul_run(NULL, SRT_ISA_PORTABLE, 1, ws, x, n, ys, bs, scratch);
            for (isa = SRT_ISA_AVX2; isa <= (int)srt_isa_best(); isa++) {
                if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
                int bad = 0, tol = isa == SRT_ISA_AMX && n >= 2 && (wt.format == SRT_BF16 || wt.format == SRT_SB_BF16);
                ys[0] = y;
                srt__matmul_run(NULL, (srt_isa)isa, 1, ws, x, n, ys, bs, scratch);
                for (i = 0; i < n * M; i++)
                    if (tol ? !(fabs((double)y[i] - ref[i]) <= srt_test_amx_bf16_tol(w + (i % M) * K, x + (i / M) * K, K)) : memcmp(&y[i], &ref[i], 4) != 0) bad++;
                CHECK(bad == 0, "%s n=%d %s with a bias: equals the reference %s (%d differ)", srt_format_name(wt.format), n, srt_isa_name((srt_isa)isa),
                      tol ? "to the AMX bf16 tolerance" : "bit for bit", bad);
            }
        }
        for (i = 0; i < lay.n_parts; i++) free((void *)wt.part[i]);
    }
    free(w); free(x); free(b); free(ref); free(y); free(scratch);
}

/* A model's logits after a prompt are the same at every level (the last: q4 with a Q8 KV cache). */
static void test_model_levels(void) {
    static const srt_format fmts[] = {SRT_F32, SRT_BF16, SRT_Q8, SRT_Q4, SRT_TQ, SRT_Q4, SRT_FP4};
    size_t fi;
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        float *ref = (float *)malloc(sizeof(float) * T_V);
        int isa;
        if (!write_tiny_model("build/tmp/tiny_levels.srt", fmts[fi], NULL, NULL, 1)) { CHECK(0, "tiny model: %s", srt_last_error()); free(ref); return; }
        for (isa = SRT_ISA_PORTABLE; isa <= (int)srt_isa_best(); isa++) {
            if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
            srt_model *m = NULL;
            srt_session *s = NULL;
            srt_model_desc d;
            srt_session_desc sd;
            const float *lg;
            memset(&d, 0, sizeof d); memset(&sd, 0, sizeof sd);
            d.n_threads = 2; d.isa = (srt_isa)isa;
            if (fi == 5) sd.kv_type = SRT_KV_Q8;
            if (srt_model_load("build/tmp/tiny_levels.srt", &d, &m) != SRT_OK || srt_session_create(m, &sd, &s) != SRT_OK) {
                CHECK(0, "load at %s: %s", srt_isa_name((srt_isa)isa), srt_last_error()); srt_model_free(m); break;
            }
            srt_session_prompt(s, "abc hello world", 0);
            lg = srt_session_logits(s);
            if (isa == SRT_ISA_PORTABLE) memcpy(ref, lg, sizeof(float) * T_V);
            else if (isa == SRT_ISA_AMX && fmts[fi] == SRT_BF16) {   /* the prompt's tokens go through the AMX bf16 GEMM */
                double worst = 0, top = 0;
                int i;
                for (i = 0; lg && i < T_V; i++) {
                    double e = fabs((double)lg[i] - ref[i]);
                    if (!(e <= worst)) worst = e;
                    if (fabs(ref[i]) > top) top = fabs(ref[i]);
                }
                CHECK(lg && worst <= 1e-4 * top, "bf16 model: logits at amx within 1e-4 of the largest portable one (%.3g of %.3g)", worst, top);
            } else CHECK(lg && memcmp(lg, ref, sizeof(float) * T_V) == 0, "%s model%s: logits at %s equal the portable ones", srt_format_name(fmts[fi]),
                         fi == 5 ? " with a Q8 KV cache" : "", srt_isa_name((srt_isa)isa));
            srt_session_destroy(s);
            srt_model_free(m);
        }
        free(ref);
    }
    remove("build/tmp/tiny_levels.srt");
}

/* Integer attention scores over Q8 rows (sparsert.h: srt__kv_q8_quantize_q, srt__kv_q8_score;
   sparsert_x86.h: srt__attn_scores_q8_*). q's codes and scales as specified; the reference's
   score against the same quantized math in double precision, and against the float score of q
   unquantized; every level's attn_scores against the reference bit for bit (head sizes 8..128,
   80 with a short last block; 1..8 and 12 query heads; 1..100 rows, two row strides; zero, NaN,
   infinite, huge, tiny and subnormal q; rows of codes +-127, F16-subnormal, tiny and saturated
   scales, zero rows), writing nothing past the n rows. */
#define Q8S_HDS 5
#define Q8S_ROWS 100
#define Q8S_HEADS 12
static const int q8s_hds[Q8S_HDS] = {8, 16, 64, 80, 128};
/* row i of head size hd, by kind i % 8 */
static void q8s_row(int i, int hd, float *x) {
    int d, kind = i % 8;
    for (d = 0; d < hd; d++) x[d] = srt_test_frand();
    switch (kind) {
        case 1: for (d = 0; d < hd; d++) x[d] = (d + i) % 3 ? 2.5f : -2.5f; break;    /* every code +-127 */
        case 2: for (d = 0; d < hd; d++) x[d] *= 3e-6f; break;                        /* scale F16-subnormal (< 2^-14) */
        case 3: for (d = 0; d < hd; d++) x[d] *= 1e9f; break;                         /* scale saturated at 65504 */
        case 4: for (d = 0; d < hd; d++) x[d] = 0.0f; break;                          /* scale 0 */
        case 5: for (d = 0; d < hd; d++) x[d] *= 1e-3f; x[hd / 2] = 300.0f; break;     /* one large value among small ones */
        case 6: for (d = 0; d < hd; d++) x[d] *= 1e-30f; break;                       /* scale 0: below F16 */
        default: for (d = 0; d < hd; d++) x[d] *= (float)(1 + i % 5); break;
    }
}
/* q of head h (kind h % 12) */
static void q8s_q(int h, int hd, int with_nan, float *q) {
    int d;
    for (d = 0; d < hd; d++) q[d] = srt_test_frand();
    switch (h % 12) {
        case 1: for (d = 0; d < 32 && d < hd; d++) q[d] = 0.0f; break;                /* the first block all zero */
        case 2: if (with_nan) q[hd - 1] = NAN; break;                                  /* a NaN in the last block */
        case 3: for (d = 0; d < hd; d++) q[d] *= 1e30f; break;
        case 4: for (d = 0; d < hd; d++) q[d] *= 1e-30f; break;
        case 5: for (d = 0; d < hd; d++) q[d] = 0.0f; break;
        case 6: for (d = 0; d < hd; d++) q[d] = d % 2 ? 1.0f : -1.0f; break;          /* every code +-127 */
        case 7: for (d = 0; d < hd; d++) q[d] *= 1e-40f; break;                       /* subnormal: d = 0 */
        case 8: if (with_nan) q[0] = -INFINITY; break;
        case 9: for (d = 0; d < hd; d++) q[d] *= 3e38f; break;                        /* near FLT_MAX */
        default: for (d = 0; d < hd; d++) q[d] *= (float)(h + 1); break;
    }
}
static void test_q8_scores(void) {
    static unsigned char rows[Q8S_ROWS * (128 + 8 + 5)];
    static float q[Q8S_HEADS * 128], ref[Q8S_HEADS * 128], y[Q8S_HEADS * 128];
    float x[128], d[4];
    int8_t c[128];
    int32_t sum[4];
    int hi, i, b;
    {   /* quantization of q: d = max |q| / 127, codes = q / d rounded half away from zero, a NaN or an infinity makes d NaN */
        int ok = 1, ok_zero = 1, ok_bad = 1;
        for (hi = 0; hi < Q8S_HDS; hi++) {
            int hd = q8s_hds[hi], h;
            for (h = 0; h < 3 * Q8S_HEADS; h++) {
                q8s_q(h, hd, 1, x);
                srt__kv_q8_quantize_q(x, (uint64_t)hd, c, d, sum);
                for (b = 0; 32 * b < hd; b++) {
                    float amax = 0.0f;
                    int bad = 0, s = 0, top = 0;
                    for (i = 32 * b; i < hd && i < 32 * b + 32; i++) { bad |= !(fabsf(x[i]) <= FLT_MAX); if (fabsf(x[i]) > amax) amax = fabsf(x[i]); }
                    for (i = 32 * b; i < 32 * b + 32; i++) {
                        s += c[i];
                        if (i >= hd || bad || !(amax / 127.0f > 0.0f)) { ok_zero = ok_zero && c[i] == 0; continue; }
                        {
                            double v = (double)(x[i] / (amax / 127.0f)), e = v - c[i];   /* the f32 quotient, rounded */
                            ok = ok && c[i] >= -127 && fabs(e) <= 0.5 && (fabs(e) < 0.5 || fabs((double)c[i]) > fabs(v));
                            top |= fabsf(x[i]) == amax && abs(c[i]) == 127;
                        }
                    }
                    ok = ok && s == sum[b];
                    if (bad) ok_bad = ok_bad && d[b] != d[b];
                    else {
                        ok = ok && d[b] == amax / 127.0f && (top || !(d[b] > 0.0f));
                        ok_zero = ok_zero && (d[b] > 0.0f || amax / 127.0f == 0.0f);
                    }
                }
            }
        }
        CHECK(ok, "Q8 scores: q's scale per block of 32 is max |q| / 127 (f32), codes = q / scale rounded half away from zero, the largest +-127, sums kept");
#if SRT__HAVE_X86
        if (srt_isa_best() >= SRT_ISA_AVX2) {   /* the x86 kernels' quantizer */
            int ok_simd = 1, rep;
            for (hi = 0; hi < Q8S_HDS; hi++) {
                int hd = q8s_hds[hi], nb = (hd + 31) / 32;
                for (rep = 0; rep < 4 * Q8S_HEADS; rep++) {
                    int8_t c2[128];
                    float d2[4];
                    int32_t sum2[4];
                    q8s_q(rep, hd, 1, x);
                    if (rep >= Q8S_HEADS) for (i = 0; i < hd; i++) x[i] = (float)((i * 7 + rep) % 255 - 127) * 0.5f * (float)rep;   /* ties: k + 0.5 */
                    srt__kv_q8_quantize_q(x, (uint64_t)hd, c, d, sum);
                    srt__kv_q8_quantize_q_avx2(x, (uint64_t)hd, c2, d2, sum2);
                    ok_simd = ok_simd && memcmp(c, c2, (size_t)(32 * nb)) == 0 && memcmp(d, d2, sizeof(float) * (size_t)nb) == 0 && memcmp(sum, sum2, sizeof(int32_t) * (size_t)nb) == 0;
                }
            }
            CHECK(ok_simd, "Q8 scores: the AVX2 quantizer of q equals the portable one (codes, scales, sums; ties, NaN, zero blocks)");
        }
#endif
        CHECK(ok_zero, "Q8 scores: zero (and below-f32) blocks of q and the padding past the head size get codes 0");
        CHECK(ok_bad, "Q8 scores: a NaN or an infinity in a block of q makes its scale NaN");
    }
    srt_test_rng = 4242;   /* the same data on every platform (the x86 check above draws numbers) */
    {   /* the reference's score: the same quantized math in double; near the float score of q unquantized */
        int ok_exact = 1, ok_float = 1, n_cmp = 0;
        double worst_exact = 0, worst_float = 0;   /* error / tolerance */
        for (hi = 0; hi < Q8S_HDS; hi++) {
            int hd = q8s_hds[hi], nb = (hd + 31) / 32, h;
            uint64_t rb = srt__kv_q8_row_bytes((uint64_t)hd);
            for (i = 0; i < Q8S_ROWS; i++) { q8s_row(i, hd, x); srt__kv_q8_store(x, (uint64_t)hd, rows + (uint64_t)i * rb); }
            for (h = 0; h < Q8S_HEADS; h++) {
                float qv[128];
                q8s_q(h == 2 || h == 8 || h == 9 || h == 3 ? 0 : h, hd, 0, qv);   /* finite, and no product past FLT_MAX */
                srt__kv_q8_quantize_q(qv, (uint64_t)hd, c, d, sum);
                for (i = 0; i < Q8S_ROWS; i++) {
                    const unsigned char *row = rows + (uint64_t)i * rb;
                    double exact = 0, mag = 0, fl = 0, qerr = 0, under = 0;
                    float got = srt__kv_q8_score(row, (uint64_t)hd, c, d);
                    int k;
                    for (b = 0; b < nb; b++) {
                        double dk = srt__kv_q8_scale(row, (uint64_t)hd, (uint64_t)(32 * b)), term;
                        long idot = 0;
                        for (k = 32 * b; k < hd && k < 32 * b + 32; k++) {
                            double v = srt__kv_value(row, SRT__KV_E_Q8, (uint64_t)hd, (uint64_t)k);
                            idot += (long)(signed char)row[k] * c[k];
                            fl += v * qv[k];
                            qerr += 0.5 * d[b] * fabs(v);   /* q's rounding: at most half a step a value */
                        }
                        term = (double)idot * d[b] * dk;
                        exact += term; mag += fabs(term);
                        under += ldexp(fabs((double)idot), -149) + ldexp(1.0, -149);   /* dq x dk, the fma: below f32's subnormals */
                    }
                    n_cmp++;
                    {   /* f32: dq x dk and each fma round once: (nb + 1) units of 2^-24 of the terms' sum, or
                           2^-149 (times |idot|) where they are subnormal */
                        double e = fabs(got - exact), tol = (nb + 1) * ldexp(mag, -24) + under;
                        if (!(e <= tol)) ok_exact = 0;
                        if (e / tol > worst_exact) worst_exact = e / tol;
                        e = fabs(got - fl);
                        tol = qerr * 1.0001 + (nb + 1) * ldexp(mag, -24) + under;
                        if (!(e <= tol)) ok_float = 0;
                        if (e / tol > worst_float) worst_float = e / tol;
                    }
                }
            }
        }
        CHECK(ok_exact, "Q8 scores: the reference equals the same integer math in double within (blocks + 1) x 2^-24 of its terms (%d rows x heads; worst %.2f of that)",
              n_cmp, worst_exact);
        CHECK(ok_float, "Q8 scores: the reference is within q's rounding (half a step a value) of the float score of q unquantized (worst %.2f of that bound)", worst_float);
    }
    {   /* every level against the reference, bit for bit */
        srt__vec_ops refops, ops;
        int isa;
        srt__vec_ops_for(SRT_ISA_PORTABLE, &refops);
        for (isa = SRT_ISA_AVX2; isa <= (int)srt_isa_best(); isa++) {
            if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
            int ok = 1, ok_past = 1, calls = 0, si;
            srt__vec_ops_for((srt_isa)isa, &ops);
            for (hi = 0; hi < Q8S_HDS; hi++) {
                int hd = q8s_hds[hi];
                uint64_t rb = srt__kv_q8_row_bytes((uint64_t)hd);
                for (si = 0; si < 2; si++) {
                    static const int gs[] = {1, 2, 3, 4, 5, 6, 7, 8, 12};
                    uint64_t stride = si ? rb + 5 : rb, ld = Q8S_ROWS + 3;
                    size_t gi;
                    for (i = 0; i < Q8S_ROWS; i++) { q8s_row(i, hd, x); srt__kv_q8_store(x, (uint64_t)hd, rows + (uint64_t)i * stride); }
                    for (i = 0; i < Q8S_HEADS; i++) q8s_q(i, hd, 1, q + i * hd);
                    for (gi = 0; gi < sizeof gs / sizeof gs[0]; gi++) {
                        int G = gs[gi], n, h;
                        const float *qg = q + (gi % 3) * hd;   /* head sets starting at 0, 1, 2 */
                        if ((int)(gi % 3) + G > Q8S_HEADS) qg = q;
                        refops.attn_scores(rows, SRT__KV_E_Q8, stride, qg, G, (uint64_t)hd, Q8S_ROWS, 0.125f, ref, ld);
                        for (n = 1; n <= Q8S_ROWS; n++) {
                            for (h = 0; h < G * (int)ld; h++) y[h] = -777.0f;
                            ops.attn_scores(rows, SRT__KV_E_Q8, stride, qg, G, (uint64_t)hd, n, 0.125f, y, ld);
                            calls++;
                            for (h = 0; h < G; h++) {
                                ok = ok && memcmp(y + h * ld, ref + h * ld, sizeof(float) * (size_t)n) == 0;
                                for (i = n; i < (int)ld; i++) ok_past = ok_past && y[h * ld + i] == -777.0f;
                            }
                            if (!ok) { printf("# first difference: %s hd %d stride %d G %d n %d\n", srt_isa_name((srt_isa)isa), hd, (int)stride, G, n); break; }
                        }
                        if (!ok) break;
                    }
                    if (!ok) break;
                }
                if (!ok) break;
            }
            CHECK(ok, "%s Q8 scores equal the portable ones bit for bit (%d calls: head sizes 8..128, 1..12 heads, 1..100 rows; NaN, inf, zero, huge, tiny q; +-127, subnormal-scale, saturated, zero rows)",
                  srt_isa_name((srt_isa)isa), calls);
            CHECK(ok_past, "%s Q8 scores write nothing past the n rows", srt_isa_name((srt_isa)isa));
        }
    }
    {   /* the NaN shows: a head with a NaN or an infinity in q scores NaN on every row, the others stay finite */
        int ok = 1, hd = 64;
        uint64_t rb = srt__kv_q8_row_bytes((uint64_t)hd);
        srt__vec_ops ops;
        srt__vec_ops_for(srt_isa_best(), &ops);
        for (i = 0; i < 20; i++) { q8s_row(i % 4 == 0 ? 0 : i, hd, x); srt__kv_q8_store(x, (uint64_t)hd, rows + (uint64_t)i * rb); }
        for (i = 0; i < 3; i++) q8s_q(i == 2 ? 8 : i == 1 ? 2 : 0, hd, 1, q + i * hd);
        ops.attn_scores(rows, SRT__KV_E_Q8, rb, q, 3, (uint64_t)hd, 20, 0.125f, y, 20);
        for (i = 0; i < 20; i++) ok = ok && y[i] == y[i] && y[20 + i] != y[20 + i] && y[40 + i] != y[40 + i];
        CHECK(ok, "%s Q8 scores: a NaN or an infinity in q gives NaN scores (not silently dropped codes), other heads unaffected", srt_isa_name(srt_isa_best()));
    }
}

/* The vector ops of each level against the portable ones, bit for bit (argmax: NaNs, ties, signed
   zeros included). */
static void test_vec_ops(void) {
    enum { N = 128256 + 7 };
    static float a[N], b[N], y1[N], y2[N];
    static uint16_t h[N];
    srt__vec_ops ref, ops;
    int isa, i, len;
    srt__vec_ops_for(SRT_ISA_PORTABLE, &ref);
    for (i = 0; i < N; i++) { a[i] = srt_test_frand() * 8.0f; b[i] = srt_test_frand(); h[i] = srt_f32_to_f16(srt_test_frand()); }
    for (isa = SRT_ISA_AVX2; isa <= (int)srt_isa_best(); isa++) {
        if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
        int ok = 1, ok_max = 1;
        srt__vec_ops_for((srt_isa)isa, &ops);
        for (len = 1; len < N; len = len < 100 ? len + 1 : len * 3 + 1) {
            float d1 = ref.dot_f32(a, b, (uint64_t)len), d2 = ops.dot_f32(a, b, (uint64_t)len);
            ok = ok && memcmp(&d1, &d2, 4) == 0;
            d1 = ref.dot_f16(h, b, (uint64_t)len); d2 = ops.dot_f16(h, b, (uint64_t)len);
            ok = ok && memcmp(&d1, &d2, 4) == 0;
            memcpy(y1, b, sizeof(float) * (size_t)len); memcpy(y2, b, sizeof(float) * (size_t)len);
            ref.axpy_f32(y1, 0.37f, a, (uint64_t)len); ops.axpy_f32(y2, 0.37f, a, (uint64_t)len);
            ref.axpy_f16(y1, -1.5f, h, (uint64_t)len); ops.axpy_f16(y2, -1.5f, h, (uint64_t)len);
            ref.exp(y1, (uint64_t)len); ops.exp(y2, (uint64_t)len);
            ref.swiglu(y1, b, (uint64_t)len); ops.swiglu(y2, b, (uint64_t)len);
            ok = ok && memcmp(y1, y2, sizeof(float) * (size_t)len) == 0;
            memcpy(y1, a, sizeof(float) * (size_t)len); memcpy(y2, a, sizeof(float) * (size_t)len);
            ref.geglu(y1, b, (uint64_t)len); ops.geglu(y2, b, (uint64_t)len);
            ok = ok && memcmp(y1, y2, sizeof(float) * (size_t)len) == 0;
            memcpy(y1, a, sizeof(float) * (size_t)len); memcpy(y2, a, sizeof(float) * (size_t)len);
            if (len > 3 && len % 2) { y1[len / 3] = y2[len / 3] = NAN; y1[len - 1] = y2[len - 1] = 40.0f; }   /* a NaN is never the max */
            ref.softmax(y1, 0, 1, (uint64_t)len); ops.softmax(y2, 0, 1, (uint64_t)len);
            ok = ok && memcmp(y1, y2, sizeof(float) * (size_t)len) == 0;
            if (len <= 2000) {   /* rows 1..9 at once (attention's heads of a group), ld apart, each another slice of a */
                const int rows = 1 + len % 9;
                const uint64_t ld = (uint64_t)len + 3;
                int r;
                for (r = 0; r < rows; r++) {
                    memcpy(y1 + r * ld, a + 7 * r, sizeof(float) * (size_t)len);
                    memcpy(y2 + r * ld, a + 7 * r, sizeof(float) * (size_t)len);
                }
                ref.softmax(y1, ld, rows, (uint64_t)len); ops.softmax(y2, ld, rows, (uint64_t)len);
                for (r = 0; r < rows; r++) ok = ok && memcmp(y1 + r * ld, y2 + r * ld, sizeof(float) * (size_t)len) == 0;
            }
            ok_max = ok_max && ref.argmax(a, len) == ops.argmax(a, len);
        }
        /* argmax corner cases over the full 128k vocabulary */
        for (i = 0; i < 12 && ok_max; i++) {
            int at = (int)(srt_test_rng % (uint32_t)N);
            memcpy(y1, a, sizeof(float) * N);
            switch (i % 6) {
                case 0: y1[at] = 100.0f; y1[N - 1 - at / 2] = 100.0f; break;            /* a tie: the first wins */
                case 1: y1[at] = NAN; y1[at / 2] = 50.0f; break;                       /* NaNs never win */
                case 2: y1[0] = NAN; break;                                           /* ... unless at 0 */
                case 3: { int k; for (k = 0; k < N; k++) y1[k] = -1.0f; y1[at] = -0.0f; y1[N - 1] = 0.0f; } break;
                case 4: y1[N - 1] = 1000.0f; break;                                    /* the tail */
                default: { int k; for (k = 0; k < N; k++) y1[k] = -INFINITY; } break;
            }
            ok_max = ref.argmax(y1, N) == ops.argmax(y1, N);
            srt_test_frand();
        }
        {   /* attention: head sizes with and without a 16- / 32-multiple, rows `stride` apart, 1..8 query heads;
               Q8 rows quantized from a (an all-zero row, and rows of one large value among small ones, included) */
            static const int hds[] = {1, 7, 16, 17, 32, 48, 64, 80, 100, 128, 256}, groups[] = {1, 2, 3, 4, 5, 8};
            static unsigned char q8[37 * (256 + 16 + 7) + 64];
            static float src[300];
            size_t hi, gi;
            int type, ok_att = 1;
            for (hi = 0; hi < sizeof hds / sizeof hds[0]; hi++) {
                uint64_t hd = (uint64_t)hds[hi], q8_stride = srt__kv_q8_row_bytes(hd) + 7;
                for (i = 0; i < 37; i++) {
                    memcpy(src, a + i * 300, sizeof(float) * (size_t)hd);
                    if (i == 3) memset(src, 0, sizeof(float) * (size_t)hd);
                    if (i % 5 == 4) { int d; for (d = 0; d < (int)hd; d++) src[d] *= 1e-3f; src[(int)hd / 2] = 300.0f; }
                    srt__kv_q8_store(src, hd, q8 + (uint64_t)i * q8_stride);
                }
                for (gi = 0; gi < sizeof groups / sizeof groups[0]; gi++)
                    for (type = SRT__KV_E_F32; type <= SRT__KV_E_Q8; type++) {
                        uint64_t stride = type == SRT__KV_E_Q8 ? q8_stride : hd * 3 + 5, ld = 41;
                        int rows = 37, G = groups[gi];
                        const void *r = type == SRT__KV_E_Q8 ? (const void *)q8 : type == SRT__KV_E_F16 ? (const void *)h : (const void *)a;
                        ref.attn_scores(r, type, stride, b, G, hd, rows, 0.125f, y1, ld); ops.attn_scores(r, type, stride, b, G, hd, rows, 0.125f, y2, ld);
                        for (i = 0; i < G; i++) ok_att = ok_att && memcmp(y1 + i * ld, y2 + i * ld, sizeof(float) * (size_t)rows) == 0;
                        memcpy(y1, b + 500, sizeof(float) * (size_t)hd * G); memcpy(y2, b + 500, sizeof(float) * (size_t)hd * G);   /* they add to out */
                        ref.attn_values(r, type, stride, b + 1000, ld, G, rows, hd, y1); ops.attn_values(r, type, stride, b + 1000, ld, G, rows, hd, y2);
                        ok_att = ok_att && memcmp(y1, y2, sizeof(float) * (size_t)hd * G) == 0;
                    }
            }
            CHECK(ok_att, "%s attention scores and values equal the portable ones (head sizes 1..256, 1..8 heads, f32, f16 and q8 rows)", srt_isa_name((srt_isa)isa));
        }
        {   /* sparse KV rows: compact rows of 0..hd-1 kept values, against the dense ops on the expanded rows */
            static const int hds[] = {1, 7, 16, 17, 32, 48, 64, 80, 100, 128, 256};
            static unsigned char c[37 * (256 / 8 + 256 * 2) + 64];
            static uint16_t e[37 * 256];
            size_t hi;
            int ok_sb = 1, ok_dense = 1, ok_keep = 1;
            for (hi = 0; hi < sizeof hds / sizeof hds[0]; hi++) {
                uint64_t hd = (uint64_t)hds[hi], nnz, slot, ld = 41;
                int rows = 37, k, G = 1 + (int)(hi % 5);
                for (nnz = 1; nnz <= hd; nnz += hd < 8 ? 1 : hd / 7) {
                    slot = srt__kv_slot_bytes(hd, nnz);
                    for (k = 0; k < rows; k++) {   /* rows with ties, zeros and negative values */
                        uint64_t d, kept = 0;
                        uint16_t *src = h + (uint64_t)k * 300;
                        if (k % 5 == 1) src[hd / 2] = src[0];
                        if (k % 7 == 2) src[hd - 1] = 0x8000;
                        srt__kv_compact_row(src, hd, nnz, c + (uint64_t)k * slot);
                        srt__kv_expand(c + (uint64_t)k * slot, hd, e + (uint64_t)k * hd);
                        for (d = 0; d < hd; d++) {   /* kept: nnz values, as they were; dropped: none larger */
                            if (c[(uint64_t)k * slot + d / 8] >> (d % 8) & 1) { kept++; ok_keep = ok_keep && e[(uint64_t)k * hd + d] == src[d]; }
                            else ok_keep = ok_keep && e[(uint64_t)k * hd + d] == 0;
                        }
                        ok_keep = ok_keep && kept == nnz;
                        for (d = 0; d < hd && ok_keep; d++)
                            if (!(c[(uint64_t)k * slot + d / 8] >> (d % 8) & 1)) {
                                uint64_t d2;
                                for (d2 = 0; d2 < hd; d2++)
                                    if (c[(uint64_t)k * slot + d2 / 8] >> (d2 % 8) & 1) ok_keep = ok_keep && (src[d2] & 0x7fff) >= (src[d] & 0x7fff);
                            }
                    }
                    ref.attn_scores(e, 1, hd, b, G, hd, rows, 0.125f, y1, ld);
                    ops.attn_scores_sb(c, slot, b, G, hd, rows, 0.125f, y2, ld);
                    for (k = 0; k < G; k++) ok_sb = ok_sb && memcmp(y1 + k * ld, y2 + k * ld, sizeof(float) * (size_t)rows) == 0;
                    ref.attn_scores_sb(c, slot, b, G, hd, rows, 0.125f, y2, ld);
                    for (k = 0; k < G; k++) ok_dense = ok_dense && memcmp(y1 + k * ld, y2 + k * ld, sizeof(float) * (size_t)rows) == 0;
                    memcpy(y1, b + 500, sizeof(float) * (size_t)hd * G); memcpy(y2, b + 500, sizeof(float) * (size_t)hd * G);
                    ref.attn_values(e, 1, hd, b + 1000, ld, G, rows, hd, y1); ops.attn_values_sb(c, slot, b + 1000, ld, G, rows, hd, y2);
                    ok_sb = ok_sb && memcmp(y1, y2, sizeof(float) * (size_t)hd * G) == 0;
                    memcpy(y2, b + 500, sizeof(float) * (size_t)hd * G);
                    ref.attn_values_sb(c, slot, b + 1000, ld, G, rows, hd, y2);
                    ok_dense = ok_dense && memcmp(y1, y2, sizeof(float) * (size_t)hd * G) == 0;
                }
            }
            CHECK(ok_keep, "sparse KV rows keep exactly nnz values, the largest |values|, unchanged (head sizes 1..256)");
            CHECK(ok_dense, "portable sparse KV attention equals the dense one on the expanded rows (1..5 heads)");
            CHECK(ok_sb, "%s sparse KV attention scores and values equal the dense ones on the expanded rows, bit for bit", srt_isa_name((srt_isa)isa));
        }
        CHECK(ok, "%s vector ops (dot f32/f16, axpy, exp, swiglu, geglu, softmax of 1..9 rows) equal the portable ones, lengths 1..128k", srt_isa_name((srt_isa)isa));
        CHECK(ok_max, "%s argmax equals the portable one (ties, NaNs, signed zeros, tail)", srt_isa_name((srt_isa)isa));
    }
}

/* The activation quantizer on non-finite and extreme inputs (a model with NaN or infinite weights
   feeds them): every code is defined (NaN -> 0, others clamped to +-127), each group's sum is the
   sum of its codes, and the AVX2 version gives the same codes, sums and scales bit for bit (its
   code sum once overflowed: undefined behaviour, found by fuzz_srt on NaN norm weights). */
static void test_act_quant_nonfinite(void) {
    enum { COLS = 200, GROUP = 32, KP = 224, NG = (COLS + GROUP - 1) / GROUP };
    static const float odd[] = {NAN, INFINITY, -INFINITY, 3e38f, -3e38f, 1e-40f, 0.0f, -0.0f};
    float x[COLS], d[2][NG];
    int8_t q[2][KP];
    int32_t sums[2][NG];
    int round, k, g, ok_def = 1, ok_same = 1, levels = 1;
    for (round = 0; round < 16; round++) {
        for (k = 0; k < COLS; k++) x[k] = srt_test_frand() * 4.0f;
        for (k = round % 7; k < COLS; k += 5 + round) x[k] = odd[(k + round) % 8];   /* groups with each kind, and some without */
        memset(q, 0x55, sizeof q);
        srt__quantize_acts(x, COLS, GROUP, KP, q[0], d[0], sums[0]);
        for (g = 0; g < NG; g++) {
            int32_t sum = 0;
            for (k = g * GROUP; k < COLS && k < (g + 1) * GROUP; k++) {
                sum += q[0][k];
                if (q[0][k] < -127 || (x[k] != x[k] && q[0][k] != 0)) ok_def = 0;
            }
            if (sum != sums[0][g]) ok_def = 0;
        }
        for (k = COLS; k < KP; k++) if (q[0][k] != 0) ok_def = 0;
#if SRT__HAVE_X86
        if (srt_isa_best() >= SRT_ISA_AVX2) {
            levels = 2;
            memset(q[1], 0x55, sizeof q[1]);
            srt__quantize_acts_avx2(x, COLS, GROUP, KP, q[1], d[1], sums[1]);
            if (memcmp(q[0], q[1], KP) || memcmp(sums[0], sums[1], sizeof sums[0]) || memcmp(d[0], d[1], sizeof d[0])) ok_same = 0;
        }
#endif
    }
    CHECK(ok_def, "activation quantizer: NaN, +-inf, +-3e38, subnormal inputs give defined codes (NaN -> 0, within +-127) and sums of the codes");
    CHECK(ok_same, "activation quantizer: %s", levels == 2 ? "the AVX2 version equals the portable one bit for bit on them (codes, sums, scales)"
                                                             : "no AVX2 here: the portable version only");
}

int main(void) {
    srt_test_rng = 777;
    if (system("mkdir -p build/tmp") != 0) return 1;
#ifdef SRT_TEST_AVXVNNI_EVEX   /* test_kernels_vnni.c */
    if (!srt__isa_supported(SRT_ISA_AVXVNNI)) { printf("# skipped: no AVX-512 VNNI to run the AVX-VNNI kernels with\n"); return srt_test_finish(); }
#endif
    test_levels();
    test_kernels();
    test_bias();
    test_vec_ops();
    test_q8_scores();
    test_act_quant_nonfinite();
    test_model_levels();
    return srt_test_finish();
}
