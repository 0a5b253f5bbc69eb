/* bench_attn.c - a micro-benchmark of the attention ops over the KV cache (srt__vec_ops attn_scores
   and attn_values), single-threaded: ns per cached row for F16 and Q8 rows, 1 and 4 query heads
   per KV head, at one ISA level. Not a test (./build.sh builds it, nothing runs it):

     build/bench-attn [--isa avx512] [--hd 64] [--rows 4096] [--mb 256] [--reps 15]

   Each measurement walks regions of --rows rows (one KV head's positions of one layer) one after
   the other through --mb MB of cache, so that the rows come from memory as in a long decode, and
   reports the median over --reps walks, for the scores and the values separately. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    srt_isa isa = srt_isa_best();
    int hd = 64, rows = 4096, reps = 15, i, a;
    double mb = 256;
    uint64_t seed = 12345;
    srt__vec_ops ops;
    for (a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--isa")) { int v = srt_isa_from_name(argv[a + 1]); if (v <= 0) return 2; isa = srt_isa_resolve((srt_isa)v); }
        else if (!strcmp(argv[a], "--hd")) hd = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--rows")) rows = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--mb")) mb = atof(argv[a + 1]);
        else if (!strcmp(argv[a], "--reps")) reps = atoi(argv[a + 1]);
        else { fprintf(stderr, "usage: bench-attn [--isa L] [--hd 64] [--rows 4096] [--mb 256] [--reps 15]\n"); return 2; }
    }
    if (hd < 1 || hd > SRT__KV_MAX_HD || rows < 1 || reps < 1 || reps > 101 || mb <= 0) return 2;
    srt__vec_ops_for(isa, &ops);
    {
        static const int heads[] = {1, 4};
        const int types[2] = {SRT__KV_E_F16, SRT__KV_E_Q8};
        uint64_t q8row = srt__kv_q8_row_bytes((uint64_t)hd), f16row = 2 * (uint64_t)hd;
        uint64_t region = (uint64_t)rows * q8row > (uint64_t)rows * f16row ? (uint64_t)rows * q8row : (uint64_t)rows * f16row;
        uint64_t n_regions = (uint64_t)(mb * 1048576.0 / (double)region) + 1, r;
        unsigned char *cache = (unsigned char *)malloc((size_t)(region * n_regions));
        float *q = (float *)malloc(sizeof(float) * 4 * (size_t)hd), *w = (float *)malloc(sizeof(float) * 4 * (size_t)rows);
        float *sc = (float *)malloc(sizeof(float) * 4 * (size_t)rows), *out = (float *)malloc(sizeof(float) * 4 * (size_t)hd);
        float *x = (float *)malloc(sizeof(float) * (size_t)hd);
        size_t ti, hi;
        if (!cache || !q || !w || !sc || !out || !x) return 1;
        for (i = 0; i < 4 * hd; i++) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; q[i] = (float)((seed >> 40) / 8388608.0) - 1.0f; }
        for (i = 0; i < 4 * rows; i++) w[i] = 1.0f / (float)rows;
        printf("isa %s, head size %d, %d rows a region, %llu regions (%.0f MB)\n", srt_isa_name(isa), hd, rows, (unsigned long long)n_regions,
               (double)(region * n_regions) / 1048576.0);
        for (ti = 0; ti < 2; ti++) {
            int type = types[ti];
            uint64_t stride = type == SRT__KV_E_Q8 ? q8row : (uint64_t)hd, rb = type == SRT__KV_E_Q8 ? q8row : f16row;
            for (r = 0; r < n_regions; r++)   /* every region: rows of random values */
                for (i = 0; i < rows; i++) {
                    unsigned char *row = cache + r * region + (uint64_t)i * rb;
                    int d;
                    for (d = 0; d < hd; d++) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; x[d] = (float)((seed >> 40) / 8388608.0) - 1.0f; }
                    if (type == SRT__KV_E_Q8) srt__kv_q8_store(x, (uint64_t)hd, row);
                    else for (d = 0; d < hd; d++) { uint16_t h = srt_f32_to_f16(x[d]); memcpy(row + 2 * d, &h, 2); }
                }
            for (hi = 0; hi < 2; hi++) {
                int G = heads[hi], what;
                for (what = 0; what < 2; what++) {   /* scores, values */
                    double t[101], ns;
                    int k;
                    for (k = 0; k < reps; k++) {
                        double t0 = srt_time_ms();
                        for (r = 0; r < n_regions; r++) {
                            const void *rr = cache + r * region;
                            if (what == 0) ops.attn_scores(rr, type, stride, q, G, (uint64_t)hd, rows, 0.125f, sc, (uint64_t)rows);
                            else { memset(out, 0, sizeof(float) * (size_t)(G * hd)); ops.attn_values(rr, type, stride, w, (uint64_t)rows, G, rows, (uint64_t)hd, out); }
                        }
                        t[k] = srt_time_ms() - t0;
                    }
                    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
                    ns = t[reps / 2] * 1e6 / ((double)n_regions * rows);
                    printf("%s G=%d %-6s %7.2f ns/row  (%.2f GB/s)\n", type == SRT__KV_E_Q8 ? "q8 " : "f16", G,
                           what == 0 ? "scores" : "values", ns, (double)rb / ns);
                }
            }
        }
        if (sc[0] != sc[0] || out[0] != out[0]) printf("(NaN)\n");
        free(cache); free(q); free(w); free(sc); free(out); free(x);
    }
    return 0;
}
