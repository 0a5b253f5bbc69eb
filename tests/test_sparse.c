/* test_sparse.c - the sparse formats (sb-bf16, sb-q8, sb-q4, s4x1, tcsl): their reference kernels equal
   the dense references of the same pruned weights (bit for bit but for sb-bf16), every SIMD kernel
   equals the reference bit for bit at 0..99% sparsity, odd shapes, GEMV and GEMM token counts, each
   ISA level this machine has and 1 and 2 threads; dequantization; sizes; a damaged sparse tensor is
   refused at load; stories260K pruned by magnitude and packed sparse gives the dense model's logits;
   tcsl's words come in the bank order a GPU kernel writes without conflicts; quantizing and
   dequantizing on a pool give the bytes and floats of one thread, for every format. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"
#include "tests/tiny_model.h"

#include <math.h>
#include <stdlib.h>

#define TMP "build/tmp"

/* Magnitude pruning: per row, the fraction `sparsity` of smallest |w| becomes 0; block4 = per block
   of 4 rows, whole columns by the block's sum |w| (the 4x1 pattern s4x1 wants). */
static int cmp_float(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return x < y ? -1 : x > y; }
static void prune(float *w, int rows, int cols, double sparsity, int block4) {
    float *tmp = (float *)malloc(sizeof(float) * (size_t)cols);
    int r, k, drop = (int)(sparsity * cols + 0.5);
    if (drop <= 0) { free(tmp); return; }
    for (r = 0; r < rows; r += block4 ? 4 : 1) {
        int nr = block4 ? (rows - r < 4 ? rows - r : 4) : 1, i;
        float th;
        for (k = 0; k < cols; k++) { tmp[k] = 0; for (i = 0; i < nr; i++) tmp[k] += fabsf(w[(size_t)(r + i) * cols + k]); }
        {
            float *sorted = (float *)malloc(sizeof(float) * (size_t)cols);
            memcpy(sorted, tmp, sizeof(float) * (size_t)cols);
            qsort(sorted, (size_t)cols, sizeof(float), cmp_float);
            th = sorted[drop - 1];
            free(sorted);
        }
        for (k = 0; k < cols; k++) if (tmp[k] <= th) for (i = 0; i < nr; i++) w[(size_t)(r + i) * cols + k] = 0.0f;
    }
    free(tmp);
}

typedef struct tensor { srt_format f; uint32_t group; int rows, cols; void *parts[4]; srt_tensor_parts lay; } tensor;
static int make(tensor *t, srt_format f, uint32_t group, const float *w, int rows, int cols) {
    int i;
    memset(t, 0, sizeof *t);
    t->f = f; t->group = group; t->rows = rows; t->cols = cols;
    if (srt_tensor_layout_data(f, (uint64_t)rows, (uint64_t)cols, group, w, &t->lay) != SRT_OK) return 0;
    for (i = 0; i < t->lay.n_parts; i++) t->parts[i] = malloc((size_t)t->lay.size[i] + 1);
    return srt_quantize(f, group, w, (uint64_t)rows, (uint64_t)cols, t->parts) == SRT_OK;
}
static void drop(tensor *t) { int i; for (i = 0; i < 4; i++) free(t->parts[i]); }
static srt_format dense_of(srt_format f) { return f == SRT_SB_BF16 ? SRT_BF16 : f == SRT_SB_Q4 ? SRT_Q4 : f == SRT_TCSL ? SRT_F16 : SRT_Q8; }
static uint32_t group_of_dense(srt_format f, uint32_t group) { return f == SRT_SB_BF16 || f == SRT_TCSL ? 0 : group; }

static const double sparsities[] = {0.0, 0.3, 0.5, 0.7, 0.9, 0.99};
static const int shapes[][2] = {{1, 32}, {17, 100}, {45, 300}, {16, 64}, {130, 520}, {3, 2048}, {64, 96}};
static const int toks[] = {1, 2, 3, 6, 13, 35};

/* The sparse reference equals the dense reference of the same weights bit for bit (integer formats;
   sb-bf16 sums in another order, so to rounding: within 1e-6 of sum |w x|), and dequantizes to the
   same floats. */
static void test_reference(srt_format f, uint32_t group) {
    size_t si, pi;
    int worst_bits = 0, bad_deq = 0, bad_ref = 0, n_cases = 0, smaller = 1;
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (pi = 0; pi < sizeof sparsities / sizeof sparsities[0]; pi++) {
            int M = shapes[si][0], K = shapes[si][1], i;
            float *w = (float *)malloc(sizeof(float) * M * K), *x = (float *)malloc(sizeof(float) * 5 * K);
            float *ys = (float *)malloc(sizeof(float) * 5 * M), *yd = (float *)malloc(sizeof(float) * 5 * M);
            float *ds = (float *)malloc(sizeof(float) * M * K), *dd = (float *)malloc(sizeof(float) * M * K);
            tensor ts, td;
            srt_tensor_parts bound;
            for (i = 0; i < M * K; i++) w[i] = srt_test_frand() * (i % 13 == 0 ? 2.0f : 0.5f);
            for (i = 0; i < 5 * K; i++) x[i] = srt_test_frand() * (i % 7 == 0 ? 5.0f : 1.0f);
            prune(w, M, K, sparsities[pi], f == SRT_S4X1);
            if (!make(&ts, f, group, w, M, K) || !make(&td, dense_of(f), group_of_dense(f, group), w, M, K)) {
                CHECK(0, "%s %dx%d: quantize: %s", srt_format_name(f), M, K, srt_last_error());
                return;
            }
            srt_tensor_layout(f, (uint64_t)M, (uint64_t)K, group, &bound);
            for (i = 0; i < bound.n_parts; i++) if (ts.lay.size[i] > bound.size[i] || ts.lay.kind[i] != bound.kind[i]) smaller = 0;
            srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)ts.parts, (uint64_t)M, (uint64_t)K, 5, x, ys);
            srt_matmul(NULL, SRT_ISA_PORTABLE, td.f, td.group, (const void *const *)td.parts, (uint64_t)M, (uint64_t)K, 5, x, yd);
            srt_dequantize(f, group, (const void *const *)ts.parts, (uint64_t)M, (uint64_t)K, ds);
            srt_dequantize(td.f, td.group, (const void *const *)td.parts, (uint64_t)M, (uint64_t)K, dd);
            for (i = 0; i < M * K; i++) if (ds[i] != dd[i]) { bad_deq++; break; }   /* == : a dense zero may be -0 (negative q4 scale) */
            for (i = 0; i < 5 * M; i++) {
                if (f == SRT_SB_BF16) {
                    double mag = 0.0;
                    int k;
                    for (k = 0; k < K; k++) mag += fabs((double)dd[(i % M) * K + k] * x[(i / M) * K + k]);
                    if (!(fabs((double)ys[i] - yd[i]) <= 1e-6 * mag)) bad_ref++;
                } else if (memcmp(&ys[i], &yd[i], 4) != 0) bad_ref++;
            }
            n_cases++;
            drop(&ts); drop(&td);
            free(w); free(x); free(ys); free(yd); free(ds); free(dd);
        }
    (void)worst_bits;
    CHECK(bad_deq == 0, "%s/g%u: dequantizes to the %s floats of the same weights (%d cases, %d differ)", srt_format_name(f), group, srt_format_name(dense_of(f)), n_cases, bad_deq);
    CHECK(bad_ref == 0, "%s/g%u: the reference kernel equals the %s reference %s (%d outputs differ)", srt_format_name(f), group, srt_format_name(dense_of(f)),
          f == SRT_SB_BF16 ? "to rounding" : "bit for bit", bad_ref);
    CHECK(smaller, "%s/g%u: srt_tensor_layout_data sizes are within srt_tensor_layout's bounds", srt_format_name(f), group);
}

/* Every ISA level (and 2 threads) equals the portable reference bit for bit; sb-bf16 on AMX tiles
   (2+ tokens) to srt_test_amx_bf16_tol. */
static void test_kernels(srt_pool *pool, srt_format f, uint32_t group) {
    size_t si, pi, ti;
    srt_isa best = srt_isa_best();
    int bad_total = 0, cases = 0;
    char first[256] = "";
    for (si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (pi = 0; pi < sizeof sparsities / sizeof sparsities[0]; pi++) {
            int M = shapes[si][0], K = shapes[si][1], i, isa;
            float *w = (float *)malloc(sizeof(float) * M * K), *x = (float *)malloc(sizeof(float) * 35 * K);
            float *ref = (float *)malloc(sizeof(float) * 35 * M), *y = (float *)malloc(sizeof(float) * 35 * M);
            tensor ts;
            for (i = 0; i < M * K; i++) w[i] = srt_test_frand() * (i % 13 == 0 ? 2.0f : 0.5f);
            for (i = 0; i < 35 * K; i++) x[i] = srt_test_frand() * (i % 7 == 0 ? 5.0f : 1.0f);
            prune(w, M, K, sparsities[pi], f == SRT_S4X1 && pi % 2 == 0);   /* s4x1: 4x1 blocks and unstructured */
            if (!make(&ts, f, group, w, M, K)) { CHECK(0, "quantize: %s", srt_last_error()); return; }
            for (ti = 0; ti < sizeof toks / sizeof toks[0]; ti++) {
                int n = toks[ti];
                int same_seen = 0;
                srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)ts.parts, (uint64_t)M, (uint64_t)K, n, x, ref);
                for (isa = SRT_ISA_AVX2; isa <= (int)best; isa++) {
                    if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
                    int bad = 0, fi = -1, amx_bf16 = isa == SRT_ISA_AMX && f == SRT_SB_BF16 && n >= 2;   /* bf16 tiles: a tolerance */
                    /* levels that run the portable kernel on float activations (tcsl: no SIMD kernel on
                       the CPU) compute what the reference did: one of them is checked (the pool's tiling) */
                    if (!srt__format_is_int(f) && srt__kernel((srt_isa)isa, f, n) == srt__kernel(SRT_ISA_PORTABLE, f, n) && same_seen++) continue;
                    for (i = 0; i < n * M; i++) y[i] = -12345.0f;
                    srt_matmul(pool, (srt_isa)isa, f, group, (const void *const *)ts.parts, (uint64_t)M, (uint64_t)K, n, x, y);
                    for (i = 0; i < n * M; i++)
                        if (amx_bf16 ? !(fabs((double)y[i] - ref[i]) <= srt_test_amx_bf16_tol(w + (i % M) * K, x + (i / M) * K, K)) : memcmp(&y[i], &ref[i], 4) != 0) {
                            if (fi < 0) fi = i;
                            bad++;
                        }
                    if (bad && !first[0])
                        snprintf(first, sizeof first, "%dx%d sparsity %.2f n=%d %s: %d differ, first [%d] %.9g vs %.9g", M, K, sparsities[pi], n,
                                 srt_isa_name((srt_isa)isa), bad, fi, y[fi], ref[fi]);
                    bad_total += bad != 0;
                    cases++;
                }
            }
            drop(&ts);
            free(w); free(x); free(ref); free(y);
        }
    CHECK(bad_total == 0, "%s/g%u%s: every level equals the reference bit for bit (sb-bf16 at amx: to a tolerance) (%d cases: 7 shapes x 6 sparsities x n 1,2,3,6,13,35 x levels, one for those that share the portable kernel)%s%s",
          srt_format_name(f), group, pool ? " 2 threads" : "", cases, first[0] ? "; " : "", first);
}

/* ---- files */
/* Offset and size of part `part` of tensor `name` in an .srt file (directory parsed by hand). */
static uint64_t le(const unsigned char *p, int n) { uint64_t v = 0; while (n-- > 0) v = v << 8 | p[n]; return v; }
static int find_part(const unsigned char *f, size_t n, const char *name, int part, uint64_t *off, uint64_t *size) {
    uint64_t at = le(f + 32, 8);
    uint32_t nt = (uint32_t)le(f + 52, 4), i, j;
    for (i = 0; i < nt && at < n; i++) {
        uint32_t nl = (uint32_t)le(f + at, 4), np;
        int hit = nl == strlen(name) && !memcmp(f + at + 4, name, nl);
        at += 4 + nl + 4 + 4 + 8 + 8;
        np = (uint32_t)le(f + at, 4); at += 4;
        for (j = 0; j < np; j++, at += 24)
            if (hit && (int)j == part) { *off = le(f + at + 4, 8); *size = le(f + at + 12, 8); return 1; }
    }
    return 0;
}
static int write_bytes(const char *path, const unsigned char *b, size_t n) {
    FILE *fp = fopen(path, "wb");
    int ok = fp && fwrite(b, 1, n, fp) == n;
    if (fp) fclose(fp);
    return ok;
}

/* A damaged offset, bitmap or count in the data (not covered by the index checksum) is refused at
   load with the tensor named. */
static void test_corrupt(void) {
    static const struct { srt_format f; int part; uint64_t at; unsigned char xor_; const char *what, *expect; } cases[] = {
        {SRT_SB_Q8, 3, 8, 1, "a tile offset", "offset of tile 1"},
        {SRT_SB_Q8, 2, 5, 0x10, "a bitmap bit", "its bitmaps say"},
        {SRT_SB_Q8, 3, 0, 64, "the first offset", "not 0"},
        {SRT_SB_Q4, 2, 17, 0x03, "two bitmap bits", "its bitmaps say"},
        {SRT_SB_BF16, 2, 16, 2, "a row group offset", "offset of row group 2"},
        {SRT_SB_BF16, 1, 3, 0x80, "a bitmap bit", "offset of row group 1"},
        {SRT_S4X1, 3, (uint64_t)-1, 0x40, "a segment count", "a segment count is"},
        {SRT_S4X1, 3, 8, 0xff, "a tile offset", "offset of tile 1"},
        {SRT_TCSL, 1, 0, 4, "the first offset", "not 0"},
        {SRT_TCSL, 1, 4, 4, "the last offset", "the offsets end at"},
        {SRT_TCSL, 0, 3, 0x40, "a location", "lies outside"},
        {SRT_TCSL, 0, 2, 0x01, "a location", "written twice"},
    };
    size_t ci;
    for (ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        size_t n;
        unsigned char *f;
        uint64_t off, size;
        srt_model *m = NULL;
        srt_model_desc md;
        srt_status st;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        if (!write_tiny_model(TMP "/sparse_ok.srt", cases[ci].f, NULL, NULL, 1)) { CHECK(0, "tiny %s model: %s", srt_format_name(cases[ci].f), srt_last_error()); continue; }
        if (ci == 0 || cases[ci].f != cases[ci - 1].f) {
            st = srt_model_load(TMP "/sparse_ok.srt", &md, &m);
            CHECK(st == SRT_OK, "a tiny %s model loads (%s)", srt_format_name(cases[ci].f), st == SRT_OK ? "ok" : srt_last_error());
            srt_model_free(m); m = NULL;
        }
        f = (unsigned char *)srt_test_read_file(TMP "/sparse_ok.srt", &n);
        if (!f || !find_part(f, n, "blk.0.ffn_up.weight", cases[ci].part, &off, &size) || (cases[ci].at >= size && cases[ci].at != (uint64_t)-1)) { CHECK(0, "find the part"); free(f); continue; }
        f[off + (cases[ci].at == (uint64_t)-1 ? size - 1 : cases[ci].at)] ^= cases[ci].xor_;   /* -1: the last byte */
        write_bytes(TMP "/sparse_bad.srt", f, n);
        free(f);
        st = srt_model_load(TMP "/sparse_bad.srt", &md, &m);
        CHECK(st == SRT_ERR_FORMAT && strstr(srt_last_error(), "blk.0.ffn_up.weight") && strstr(srt_last_error(), cases[ci].expect),
              "%s: %s damaged in the data is refused at load: %s", srt_format_name(cases[ci].f), cases[ci].what, st == SRT_OK ? "(loaded!)" : srt_last_error());
        srt_model_free(m);
    }
    remove(TMP "/sparse_ok.srt"); remove(TMP "/sparse_bad.srt");
}

/* Version 2 files stored sb-bf16 row by row: such a tensor is refused with "re-pack"; a version 2
   file of another format still loads (nothing else changed in version 3). */
static void test_version2(void) {
    static const srt_format fs[] = {SRT_SB_BF16, SRT_SB_Q8};
    size_t fi;
    for (fi = 0; fi < 2; fi++) {
        size_t n;
        unsigned char *f;
        srt_model *m = NULL;
        srt_model_desc md;
        srt_status st;
        srt__crc32 c;
        uint32_t crc;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        if (!write_tiny_model(TMP "/v2_ok.srt", fs[fi], NULL, NULL, 1) || !(f = (unsigned char *)srt_test_read_file(TMP "/v2_ok.srt", &n)) || n < 128) {
            CHECK(0, "tiny %s model: %s", srt_format_name(fs[fi]), srt_last_error());
            continue;
        }
        f[4] = 2; f[5] = f[6] = f[7] = 0;   /* the version, then the header checksum over bytes 0..123 */
        srt__crc32_init(&c);
        crc = srt__crc32_update(&c, 0, f, 124);
        f[124] = (unsigned char)crc; f[125] = (unsigned char)(crc >> 8); f[126] = (unsigned char)(crc >> 16); f[127] = (unsigned char)(crc >> 24);
        write_bytes(TMP "/v2.srt", f, n);
        free(f);
        st = srt_model_load(TMP "/v2.srt", &md, &m);
        if (fs[fi] == SRT_SB_BF16)
            CHECK(st == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "sb-bf16") && strstr(srt_last_error(), "re-pack"),
                  "a version 2 file with sb-bf16 is refused: %s", st == SRT_OK ? "(loaded!)" : srt_last_error());
        else CHECK(st == SRT_OK, "a version 2 file with %s loads (%s)", srt_format_name(fs[fi]), st == SRT_OK ? "ok" : srt_last_error());
        srt_model_free(m);
    }
    remove(TMP "/v2_ok.srt"); remove(TMP "/v2.srt");
}

/* stories260K pruned by magnitude (llama2.c checkpoint, every matrix row by row at 50%), packed
   sparse and dense: the logits are equal bit for bit at every level (sb-q8 = q8, sb-q4 = q4,
   s4x1 = q8, sb-bf16 = bf16). */
static int prune_llama2c(const char *in, const char *out, double sparsity, int block4) {
    size_t n;
    unsigned char *b = (unsigned char *)srt_test_read_file(in, &n);
    int32_t c[7];
    float *w;
    int dim, hid, L, kv, vocab, i;
    size_t at = 0;
    if (!b || n < 28) { free(b); return 0; }
    memcpy(c, b, 28);
    dim = c[0]; hid = c[1]; L = c[2]; kv = dim / c[3] * c[4]; vocab = c[5] < 0 ? -c[5] : c[5];
    w = (float *)(void *)(b + 28);
#define SKIP(count) at += (size_t)(count)
#define PRUNE(rows, cols) { prune(w + at, (rows), (cols), sparsity, block4); at += (size_t)(rows) * (size_t)(cols); }
    PRUNE(vocab, dim);
    SKIP(L * dim);
    for (i = 0; i < L; i++) PRUNE(dim, dim);
    for (i = 0; i < L; i++) PRUNE(kv, dim);
    for (i = 0; i < L; i++) PRUNE(kv, dim);
    for (i = 0; i < L; i++) PRUNE(dim, dim);
    SKIP(L * dim);
    for (i = 0; i < L; i++) PRUNE(hid, dim);
    for (i = 0; i < L; i++) PRUNE(dim, hid);
    for (i = 0; i < L; i++) PRUNE(hid, dim);
#undef SKIP
#undef PRUNE
    if (28 + at * 4 > n) { free(b); return 0; }
    i = write_bytes(out, b, n);
    free(b);
    return i;
}
static int pack(const char *bin, const char *fmt, const char *out) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "build/srt-pack -q --weights %s --group 32 --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin %s %s", fmt, bin, out);
    if (strcmp(fmt, "bf16") == 0 || strcmp(fmt, "sb-bf16") == 0 || strcmp(fmt, "f16") == 0 || strcmp(fmt, "tcsl") == 0)
        snprintf(cmd, sizeof cmd, "build/srt-pack -q --weights %s --tokenizer " SRT_SHARED "/models/stories260K/tok512.bin %s %s", fmt, bin, out);
    return system(cmd) == 0;
}
static float *logits_of(const char *path, srt_isa isa, int *n_vocab) {
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    float *out = NULL;
    memset(&md, 0, sizeof md); memset(&sd, 0, sizeof sd);
    md.n_threads = 2; md.isa = isa;
    if (srt_model_load(path, &md, &m) == SRT_OK && srt_session_create(m, &sd, &s) == SRT_OK &&
        srt_session_prompt(s, "Once upon a time, there was a little girl named Lily. She", SRT_TOKENIZE_ADD_BOS) == SRT_OK) {
        *n_vocab = srt_vocab_size(m);
        out = (float *)malloc(sizeof(float) * (size_t)*n_vocab);
        memcpy(out, srt_session_logits(s), sizeof(float) * (size_t)*n_vocab);
    } else fprintf(stderr, "%s: %s\n", path, srt_last_error());
    srt_session_destroy(s);
    srt_model_free(m);
    return out;
}
static void test_stories(void) {
    static const char *pairs[][2] = {{"sb-q8", "q8"}, {"sb-q4", "q4"}, {"s4x1", "q8"}, {"sb-bf16", "bf16"}, {"tcsl", "f16"}};
    size_t pi;
    int isa;
    if (!prune_llama2c(SRT_SHARED "/models/stories260K/stories260K.bin", TMP "/stories_pruned.bin", 0.5, 0) ||
        !prune_llama2c(SRT_SHARED "/models/stories260K/stories260K.bin", TMP "/stories_pruned4.bin", 0.5, 1) ||
        !prune_llama2c(SRT_SHARED "/models/stories260K/stories260K.bin", TMP "/stories_pruned70.bin", 0.7, 0)) { CHECK(0, "prune stories260K"); return; }
    /* unstructured 50% leaves few all-zero 4x1 blocks: below s4x1's break-even, srt-pack stores q8 */
    if (pack(TMP "/stories_pruned.bin", "s4x1", TMP "/stories_s4.srt")) {
        srt_model *m = NULL;
        srt_model_desc md;
        srt_model_info info;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        CHECK(srt_model_load(TMP "/stories_s4.srt", &md, &m) == SRT_OK && (srt_model_get_info(m, &info), info.format == SRT_Q8),
              "srt-pack --weights s4x1 on unstructured 50%% sparsity stores q8 (below the break-even)");
        srt_model_free(m);
        remove(TMP "/stories_s4.srt");
    } else CHECK(0, "pack s4x1");
    for (pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        char sp[256], de[256];
        /* tcsl's break-even is 0.6: 70% */
        const char *bin = strcmp(pairs[pi][0], "s4x1") == 0 ? TMP "/stories_pruned4.bin" : strcmp(pairs[pi][0], "tcsl") == 0 ? TMP "/stories_pruned70.bin" : TMP "/stories_pruned.bin";
        snprintf(sp, sizeof sp, TMP "/stories_%s.srt", pairs[pi][0]);
        snprintf(de, sizeof de, TMP "/stories_%s.srt", pairs[pi][1]);
        if (!pack(bin, pairs[pi][0], sp) || !pack(bin, pairs[pi][1], de)) { CHECK(0, "pack %s / %s", pairs[pi][0], pairs[pi][1]); continue; }
        {
            srt_model *m = NULL;
            srt_model_desc md;
            srt_model_info info;
            memset(&md, 0, sizeof md);
            md.n_threads = 1;
            int ok = srt_model_load(sp, &md, &m) == SRT_OK;
            memset(&info, 0, sizeof info);
            if (ok) srt_model_get_info(m, &info);
            CHECK(ok && !strcmp(srt_format_name(info.format), pairs[pi][0]), "stories260K packed as %s (%.1f KB of weights)", pairs[pi][0], info.weight_bytes / 1e3);
            srt_model_free(m);
        }
        for (isa = SRT_ISA_PORTABLE; isa <= (int)srt_isa_best(); isa++) {
            if (!srt_test_level_checked(isa)) continue;   /* a level this CPU lacks (AVX-VNNI on AMD Zen 4) */
            int nv = 0, nv2 = 0, i, same = 1, am = 0, am2 = 0;
            float *a = logits_of(sp, (srt_isa)isa, &nv), *b = logits_of(de, (srt_isa)isa, &nv2);
            double maxd = 0, range = 0;
            if (!a || !b || nv != nv2) { CHECK(0, "%s model at %s runs", pairs[pi][0], srt_isa_name((srt_isa)isa)); free(a); free(b); continue; }
            for (i = 0; i < nv; i++) {
                if (memcmp(&a[i], &b[i], 4)) same = 0;
                if (fabs((double)a[i] - b[i]) > maxd) maxd = fabs((double)a[i] - b[i]);
                if (fabs((double)b[i]) > range) range = fabs((double)b[i]);
                if (a[i] > a[am]) am = i;
                if (b[i] > b[am2]) am2 = i;
            }
            if (strcmp(pairs[pi][0], "sb-bf16") == 0)   /* another summation order than bf16: equal to rounding */
                CHECK(am == am2 && maxd <= 1e-3 * range, "stories260K pruned 50%%, sb-bf16 at %s: logits equal bf16's to rounding (max |diff| %.3g of %.3g), same argmax",
                      srt_isa_name((srt_isa)isa), maxd, range);
            else CHECK(same, "stories260K pruned %s, %s at %s: logits equal %s's bit for bit (max |diff| %.3g)", strcmp(pairs[pi][0], "tcsl") ? "50%" : "70%", pairs[pi][0], srt_isa_name((srt_isa)isa), pairs[pi][1], maxd);
            free(a); free(b);
        }
        remove(sp); remove(de);
    }
    remove(TMP "/stories_pruned.bin"); remove(TMP "/stories_pruned4.bin"); remove(TMP "/stories_pruned70.bin");
}

/* tcsl: each tile's words are padded to a multiple of 4 with repeats of its last word, and come in
   rounds over the 32 shared-memory banks: as long as every bank still has weights, each 32 words a
   warp writes at once hit 32 distinct banks (LAYOUTS.md). */
static unsigned bank_of(uint32_t word) { unsigned r = (word >> 16) / 64, c = (word >> 16) % 64; return 4u * ((c >> 3) ^ (r & 7u)) + ((c & 7u) >> 1); }
static void test_tcsl_order(void) {
    static const double sps[] = {0.0, 0.5, 0.9};
    const int M = 130, K = 300, tk = (K + 63) / 64, tm = (M + 63) / 64;
    int bad_pad = 0, bad_bank = 0, groups = 0;
    size_t pi;
    for (pi = 0; pi < 3; pi++) {
        float *w = (float *)malloc(sizeof(float) * M * K);
        tensor ts;
        int i, t;
        for (i = 0; i < M * K; i++) w[i] = srt_test_frand() + 0.01f;
        prune(w, M, K, sps[pi], 0);
        if (!make(&ts, SRT_TCSL, 0, w, M, K)) { CHECK(0, "tcsl: %s", srt_last_error()); free(w); return; }
        for (t = 0; t < tm * tk; t++) {
            const uint32_t *off = (const uint32_t *)ts.parts[1], *v = (const uint32_t *)ts.parts[0];
            uint32_t w0 = off[t], w1 = off[t + 1], real = w1, g, k;
            unsigned cnt[32] = {0}, minc = ~0u, b;
            if ((w1 - w0) % 4) bad_pad++;
            while (real > w0 + 1 && v[real - 1] == v[real - 2]) real--;   /* the repeats */
            if (w1 - real > 3) bad_pad++;
            for (k = w0; k < real; k++) cnt[bank_of(v[k])]++;
            for (b = 0; b < 32; b++) if (cnt[b] < minc) minc = cnt[b];
            for (g = 0; g < minc; g++) {
                unsigned seen = 0;
                for (k = w0 + 32 * g; k < w0 + 32 * g + 32; k++) seen |= 1u << bank_of(v[k]);
                bad_bank += seen != 0xffffffffu;
                groups++;
            }
        }
        drop(&ts);
        free(w);
    }
    CHECK(bad_pad == 0, "tcsl: every tile holds a multiple of 4 words, padded with repeats of its last one");
    CHECK(bad_bank == 0 && groups > 300, "tcsl: %d groups of 32 words (while every bank has weights) hit 32 distinct banks; %d do not", groups, bad_bank);
}

/* srt_quantize_pool and srt_dequantize_pool on 2, 3 and 5 threads equal one thread byte for byte
   (every format, odd shapes, 0 / 70% / 100% zeros), and write every byte of every part (the parts
   are filled with 0x00 or 0xA5 before); the first value that is not finite is the one named. */
static void test_threads(void) {
    static const struct { srt_format f; uint32_t group; } fmts[] = {
        {SRT_F32, 0}, {SRT_F16, 0}, {SRT_BF16, 0}, {SRT_Q8, 64}, {SRT_Q4, 32}, {SRT_Q2, 64}, {SRT_TQ, 64}, {SRT_Q1, 96},
        {SRT_SB_BF16, 0}, {SRT_SB_Q8, 64}, {SRT_SB_Q4, 32}, {SRT_S4X1, 32}, {SRT_TCSL, 0}};
    static const int tshapes[][2] = {{1, 32}, {17, 100}, {130, 520}, {200, 150}, {1000, 64}};
    static const double tsparsity[] = {0.0, 0.7, 1.0};
    srt_pool *pools[3] = {NULL, NULL, NULL};
    int nthreads[3] = {2, 3, 5}, pi;
    size_t fi, si, qi;
    for (pi = 0; pi < 3; pi++) {
        srt_pool_desc pd;
        memset(&pd, 0, sizeof pd);
        pd.n_threads = nthreads[pi];
        if (srt_pool_create(&pd, &pools[pi]) != SRT_OK) { CHECK(0, "pool of %d: %s", nthreads[pi], srt_last_error()); return; }
    }
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        srt_format f = fmts[fi].f;
        int cases = 0, bad = 0;
        char first[600] = "";
        for (si = 0; si < sizeof tshapes / sizeof tshapes[0]; si++)
            for (qi = 0; qi < sizeof tsparsity / sizeof tsparsity[0]; qi++) {
                int M = tshapes[si][0], K = tshapes[si][1], i, p;
                float *w = (float *)malloc(sizeof(float) * (size_t)M * K), *ref = (float *)malloc(sizeof(float) * (size_t)M * K);
                float *got = (float *)malloc(sizeof(float) * (size_t)M * K);
                srt_tensor_parts lay;
                void *one[4] = {NULL, NULL, NULL, NULL}, *many[4] = {NULL, NULL, NULL, NULL};
                for (i = 0; i < M * K; i++) w[i] = srt_test_frand();
                prune(w, M, K, tsparsity[qi], f == SRT_S4X1);
                if (srt_tensor_layout_data(f, (uint64_t)M, (uint64_t)K, fmts[fi].group, w, &lay) != SRT_OK) { bad++; snprintf(first, sizeof first, "layout: %s", srt_last_error()); goto next; }
                for (p = 0; p < lay.n_parts; p++) { one[p] = calloc(1, (size_t)lay.size[p] + 1); many[p] = malloc((size_t)lay.size[p] + 1); }
                if (srt_quantize(f, fmts[fi].group, w, (uint64_t)M, (uint64_t)K, one) != SRT_OK ||
                    srt_dequantize(f, fmts[fi].group, (const void *const *)one, (uint64_t)M, (uint64_t)K, ref) != SRT_OK) { bad++; snprintf(first, sizeof first, "one thread: %s", srt_last_error()); goto next; }
                for (pi = 0; pi < 3; pi++, cases++) {
                    int same = 1;
                    for (p = 0; p < lay.n_parts; p++) memset(many[p], pi == 1 ? 0 : 0xA5, (size_t)lay.size[p]);
                    for (i = 0; i < M * K; i++) got[i] = -7.0f;
                    if (srt_quantize_pool(pools[pi], f, fmts[fi].group, w, (uint64_t)M, (uint64_t)K, many) != SRT_OK ||
                        srt_dequantize_pool(pools[pi], f, fmts[fi].group, (const void *const *)many, (uint64_t)M, (uint64_t)K, got) != SRT_OK) same = 0;
                    for (p = 0; same && p < lay.n_parts; p++) same = memcmp(one[p], many[p], (size_t)lay.size[p]) == 0;
                    if (same) same = memcmp(ref, got, sizeof(float) * (size_t)M * K) == 0;
                    if (!same && !bad++) snprintf(first, sizeof first, "%dx%d, %.0f%% zeros, %d threads", M, K, 100 * tsparsity[qi], nthreads[pi]);
                }
            next:
                for (p = 0; p < 4; p++) { free(one[p]); free(many[p]); }
                free(w); free(ref); free(got);
            }
        CHECK(bad == 0, "%s: quantized and dequantized on 2, 3 and 5 threads = one thread, every byte written (%d cases)%s%s",
              srt_format_name(f), cases, first[0] ? "; first: " : "", first);
    }
    {   /* values 100 (inf), 40000 (nan) and 50000 (-inf) of 1000 x 64: the error names 100 */
        float *w = (float *)calloc(64000, sizeof(float));
        srt_tensor_parts lay;
        void *parts[4] = {NULL, NULL, NULL, NULL};
        int p, ok;
        w[100] = INFINITY; w[40000] = NAN; w[50000] = -INFINITY;
        srt_tensor_layout(SRT_Q8, 1000, 64, 64, &lay);
        for (p = 0; p < lay.n_parts; p++) parts[p] = malloc((size_t)lay.size[p]);
        ok = srt_quantize_pool(pools[2], SRT_Q8, 64, w, 1000, 64, parts) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "value 100 (row 1)") != NULL;
        CHECK(ok, "a pool names the first value that is not finite: %s", srt_last_error());
        for (p = 0; p < 4; p++) free(parts[p]);
        free(w);
    }
    for (pi = 0; pi < 3; pi++) srt_pool_destroy(pools[pi]);
}

static void test_names(void) {
    CHECK(srt_format_from_name("sb-q8") == SRT_SB_Q8 && srt_format_from_name("sb-bf16") == SRT_SB_BF16 && srt_format_from_name("sb-q4") == SRT_SB_Q4 &&
          srt_format_from_name("s4x1") == SRT_S4X1 && srt_format_from_name("tcsl") == SRT_TCSL && srt_format_is_sparse(SRT_S4X1) &&
          srt_format_is_sparse(SRT_TCSL) && !srt_format_is_sparse(SRT_Q8), "format names and srt_format_is_sparse");
}

int main(void) {
    static const struct { srt_format f; uint32_t group; } fmts[] = {
        {SRT_SB_Q8, 32}, {SRT_SB_Q8, 64}, {SRT_SB_Q8, 128}, {SRT_SB_BF16, 0}, {SRT_SB_Q4, 32}, {SRT_SB_Q4, 64}, {SRT_SB_Q4, 160}, {SRT_S4X1, 32}, {SRT_S4X1, 64}, {SRT_S4X1, 96}, {SRT_TCSL, 0}};
    srt_pool *pool = NULL;
    srt_pool_desc pd;
    size_t fi;
    srt_test_rng = 4242;
    if (system("mkdir -p " TMP) != 0) return 1;
#ifdef SRT_TEST_AVXVNNI_EVEX   /* test_sparse_vnni.c: the kernels only, at the AVX-VNNI level */
    if (!srt__isa_supported(SRT_ISA_AVXVNNI)) { printf("# skipped: no AVX-512 VNNI to run the AVX-VNNI kernels with\n"); return srt_test_finish(); }
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) test_kernels(NULL, fmts[fi].f, fmts[fi].group);
    return srt_test_finish();
#endif
    test_names();
    memset(&pd, 0, sizeof pd);
    pd.n_threads = 2;
    if (srt_pool_create(&pd, &pool) != SRT_OK) { CHECK(0, "pool: %s", srt_last_error()); return srt_test_finish(); }
    for (fi = 0; fi < sizeof fmts / sizeof fmts[0]; fi++) {
        test_reference(fmts[fi].f, fmts[fi].group);
        test_kernels(NULL, fmts[fi].f, fmts[fi].group);
        test_kernels(pool, fmts[fi].f, fmts[fi].group);
    }
#if SRT__HAVE_X86
    if (srt__isa_supported(SRT_ISA_AVX512)) {   /* the AVX-512 sb-q4 GEMV's other spread (chosen by CPU vendor) */
        srt__sbq4_spread_buf = !srt__x86_amd();
        test_kernels(NULL, SRT_SB_Q4, 64);
        srt__sbq4_spread_buf = -1;
    }
#endif
    srt_pool_destroy(pool);
    test_threads();
    test_tcsl_order();
    test_corrupt();
    test_version2();
    test_stories();
    return srt_test_finish();
}
