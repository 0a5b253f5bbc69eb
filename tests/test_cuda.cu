/* test_cuda.cu - the CUDA backend (sparsert_cuda.h) against the CPU reference (SRT_CUDA_DEVICE=i
   picks another device than 0).
   Without a CUDA device (no GPU, no driver) it still checks what needs none: srt_cuda_backend
   returns a backend whose info says why there is no device, srt_model_load with it fails with that
   message and SRT_ERR_UNSUPPORTED, srt_cuda_matmul and srt_cuda_bench_matmul fail cleanly; then it
   prints one line "skipped: GPU checks (no CUDA device: <reason>)" and exits 0.
   With a device:
   - every matrix kernel path (fused-quantization GEMV, GEMM, the reference-order float kernel,
     cuBLAS) for every dense format (f32, f16, bf16, q8, q4, q2, tq, q1) on odd shapes, 1/3/9/33
     tokens, with and without bias: equal to srt_matmul (portable) bit for bit; cuBLAS within
     2e-3 x sum |w x| of each output;
   - whole models through the backend (a tiny llama with GQA, a qwen2-style one with biases and
     neox rope, llama3 rope scaling, f16, f32 and q8 KV caches, prompt batches of 1, 16 and 40; decode
     through CUDA graphs and without them; two sessions taking turns): the logits of every step
     equal the CPU's bit for bit and so do the greedy tokens; with cuBLAS for float prompt batches,
     within a tolerance;
   - speculative decoding (srt_session_next_draft through forward_rows), proposals right, wrong and
     mixed: the CPU's plain greedy tokens, and its logits after them bit for bit;
   - stories260K packed from ../shared (f32, q8, q4): the golden greedy ids of ../shared/golden.
   The shapes here are below the size from which integer GEMMs run on the tensor cores by default
   (16 tokens, tokens x rows >= 196608), so the checks are repeated with the tensor cores from 2
   tokens whatever the shape (SRT_CUDA_MMA_MIN=2: blocks of 16, 32 and 64 tokens, groups ending
   inside and across 64-column stages) and, with 3 GEMV blocks, never.
   Built by `./build.sh cuda` (C core by cc + this file by nvcc -fmad=false), and by ./build.sh
   against the CPU emulator of tests/cuda_emu as build/test-cuda-emu, where the GPU checks run
   without a GPU. */
#define SPARSERT_CUDA
#include "sparsert_cuda.h"
#include "tests/testing.h"
#include "tests/backend_test.h"
/* this build's files in build/tmp: the emulator's are its own (build.sh runs test_cuda_emu beside the other tests) */
#ifdef SRT_CUDA_EMULATOR
#  define CU_TMP "build/tmp/cuda-emu_"
#else
#  define CU_TMP "build/tmp/cuda_"
#endif

#include <math.h>
#include <stdlib.h>
#include <string>
#include <vector>


/* ---------------------------------------------------------------- kernels */
static const int default_ns[4] = {1, 3, 9, 33};
static void check_kernels(srt_format f, uint64_t rows, uint64_t cols, uint32_t group, const int *ns = default_ns) {
    srt_tensor_parts lay;
    std::vector<float> w(rows * cols), wq(rows * cols), bias(rows);
    int ok_exact = 1, ok_blas = 1;
    double worst_blas = 0.0;
    char what[1024];
    if (srt_tensor_layout(f, rows, cols, group, &lay) != SRT_OK) { CHECK(0, "layout %s", srt_format_name(f)); return; }
    std::vector<std::vector<unsigned char> > parts((size_t)lay.n_parts);
    void *pp[4] = {0, 0, 0, 0};
    for (int i = 0; i < lay.n_parts; i++) { parts[(size_t)i].resize((size_t)lay.size[i]); pp[i] = parts[(size_t)i].data(); }
    for (size_t i = 0; i < w.size(); i++) w[i] = srt_test_frand() * (i % 7 == 0 ? 2.0f : 0.5f);
    for (size_t i = 0; i < bias.size(); i++) bias[i] = srt_test_frand();
    if (srt_quantize(f, group, w.data(), rows, cols, pp) != SRT_OK) { CHECK(0, "quantize %s: %s", srt_format_name(f), srt_last_error()); return; }
    srt_dequantize(f, group, (const void *const *)pp, rows, cols, wq.data());
    const int is_int = f >= SRT_Q8;
    for (int ni = 0; ni < 4; ni++) {
        const int n = ns[ni];
        std::vector<float> x((size_t)n * cols), ref((size_t)n * rows), got((size_t)n * rows);
        for (size_t i = 0; i < x.size(); i++) {
            float v = srt_test_frand() * (i % 5 == 0 ? 3.0f : 1.0f);
            if (i % 97 == 13) v = 0.0f;
            x[i] = v;
        }
        if (n > 1) for (size_t i = 0; i < cols; i++) x[cols + i] = 0.0f;   /* an all-zero token: dx = 0 */
        if (srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)pp, rows, cols, n, x.data(), ref.data()) != SRT_OK) {
            CHECK(0, "cpu reference: %s", srt_last_error()); return;
        }
        const srt_cuda_path paths[4] = {SRT_CUDA_PATH_AUTO, SRT_CUDA_PATH_GEMV, SRT_CUDA_PATH_GEMM, SRT_CUDA_PATH_CUBLAS};
        for (int pi = 0; pi < 4; pi++)
            for (int wb = 0; wb < 2; wb++) {
                const srt_cuda_path path = paths[pi];
                std::vector<float> want = ref;
                if (wb) for (int t = 0; t < n; t++) for (uint64_t r = 0; r < rows; r++) want[(size_t)t * rows + r] += bias[r];
                srt_status st = srt_cuda_matmul(gpu, f, group, (const void *const *)pp, rows, cols, n, x.data(), wb ? bias.data() : NULL,
                                                got.data(), path);
                if (path == SRT_CUDA_PATH_CUBLAS && is_int) {
                    if (st != SRT_ERR_UNSUPPORTED) { CHECK(0, "%s: the cuBLAS path is refused for integer formats (status %d)", srt_format_name(f), (int)st); ok_exact = 0; }
                    continue;
                }
                if (path == SRT_CUDA_PATH_CUBLAS || (path == SRT_CUDA_PATH_AUTO && !is_int && n >= 32)) {   /* AUTO: cuBLAS from 32 tokens */
                    double worst = 0.0;
                    size_t bad = 0;
                    if (st == SRT_OK)
                        for (int t = 0; t < n; t++)
                            for (uint64_t r = 0; r < rows; r++) {
                                double mag = 0.0;
                                const size_t i = (size_t)t * rows + r;
                                for (uint64_t k = 0; k < cols; k++) mag += fabs((double)wq[r * cols + k] * (double)x[(size_t)t * cols + k]);
                                const double e = fabs((double)got[i] - (double)want[i]) / (mag + 1e-30);
                                if (e > worst || e != e) { worst = e; bad = i; }
                            }
                    if (st != SRT_OK || !(worst <= 2e-3)) {
                        snprintf(what, sizeof what, "%s %llux%llu n=%d cuBLAS path=%d bias=%d: status %d (%s), y[%zu] = %.9g, cpu %.9g (error %.3g of sum |w x|)",
                                 srt_format_name(f), (unsigned long long)rows, (unsigned long long)cols, n, (int)path, wb, (int)st,
                                 srt_cuda_last_error(gpu), bad, got[bad], want[bad], worst);
                        CHECK(0, "%s", what);
                        ok_blas = 0;
                    }
                    if (worst > worst_blas) worst_blas = worst;
                    continue;
                }
                int same = st == SRT_OK && memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0;
                if (!same) {
                    size_t i, bad = 0;
                    for (i = 0; i < want.size(); i++) if (got[i] != want[i]) { bad = i; break; }
                    snprintf(what, sizeof what, "%s %llux%llu g%u n=%d path=%d bias=%d: status %d (%s), y[%zu] (token %zu, row %zu) = %.9g, cpu %.9g",
                             srt_format_name(f), (unsigned long long)rows, (unsigned long long)cols, group, n, (int)path, wb, (int)st,
                             srt_cuda_last_error(gpu), bad, bad / rows, bad % rows, got[bad], want[bad]);
                    CHECK(0, "%s", what);
                    ok_exact = 0;
                }
            }
    }
    if (ok_exact)
        CHECK(1, "%s %llu x %llu group %u: %s equal the CPU reference bit for bit (%d/%d/%d/%d tokens, bias)",
              srt_format_name(f), (unsigned long long)rows, (unsigned long long)cols, group,
              is_int ? "fused GEMV and GEMM (and AUTO)" : "the float kernel (GEMV, GEMM and AUTO below 32 tokens)", ns[0], ns[1], ns[2], ns[3]);
    if (!is_int && ok_blas)
        CHECK(1, "%s %llu x %llu: cuBLAS within 2e-3 of sum |w x| (worst %.3g)", srt_format_name(f), (unsigned long long)rows,
              (unsigned long long)cols, worst_blas);
}

/* ---------------------------------------------------------------- TCSL */
/* The SpMM kernel's index math run on the CPU: where extract and cp.async put each value in shared
   memory, the ldmatrix lane addresses and the accumulator -> output mapping are the kernel's own
   functions; ldmatrix and mma.sync m16n8k16 are modelled from the PTX ISA's fragment layouts
   (ldmatrix: thread t gets row t / 4, halves 2 (t % 4) and + 1 of each 8 x 8 matrix, whose rows
   lanes 8m..8m+7 address; mma: A regs {A[g][2c..], A[g+8][2c..], A[g][2c+8..], A[g+8][2c+8..]},
   B regs {B[2c..][g], B[2c+8..][g]}, C {C[g][2c], C[g][2c+1], C[g+8][2c], C[g+8][2c+1]}, g = t / 4,
   c = t % 4). A random 64-row TCSL tile row times BN tokens must equal the dense product, each
   output written once. Needs no GPU. */
static uint32_t ld32(const std::vector<uint8_t> &m, uint32_t at) { uint32_t v; memcpy(&v, &m[at], 4); return v; }
/* ldmatrix .x1/.x2/.x4: reg[t][m] for the matrices whose row addresses lanes give */
static int ldm_conflicts;   /* ldmatrix phases whose 8 rows do not cover the 32 banks */
static void ldmatrix(const std::vector<uint8_t> &smem, const uint32_t *addr, int nmat, uint32_t reg[32][4]) {
    for (int m = 0; m < nmat; m++) {
        unsigned chunks = 0;
        for (int i = 0; i < 8; i++) chunks |= 1u << (addr[8 * m + i] >> 4 & 7u);
        ldm_conflicts += chunks != 0xffu;
        for (int t = 0; t < 32; t++) reg[t][m] = ld32(smem, addr[8 * m + t / 4] + 4 * (uint32_t)(t % 4));
    }
}
static float h(uint32_t reg, int hi) { return srt_f16_to_f32((uint16_t)(hi ? reg >> 16 : reg & 0xffff)); }
static void check_tcsl_emulation(void) {
    const int M = 64, K = 64 * 3;
    int bad = 0, unwritten = 0, cases = 0, bank_mismatch = 0;
    double worst = 0.0;
    for (uint32_t r = 0; r < 64; r++)   /* the bank of each place is the one the pack tool ordered the words by (LAYOUTS.md) */
        for (uint32_t c = 0; c < 64; c++) bank_mismatch += srt__cu_tcsl_smem(r, c) / 4 % 32 != 4 * ((c >> 3) ^ (r & 7)) + ((c & 7) >> 1);
    ldm_conflicts = 0;
    for (int BN = 8; BN <= 64; BN *= 2) {
        std::vector<float> w((size_t)M * K), x((size_t)BN * K);
        for (size_t i = 0; i < w.size(); i++) w[i] = (i * 2654435761u) % 10 < 6 ? 0.0f : srt_test_frand();
        for (size_t i = 0; i < x.size(); i++) x[i] = srt_f16_to_f32(srt_f32_to_f16(srt_test_frand()));
        srt_tensor_parts lay;
        if (srt_tensor_layout_data(SRT_TCSL, M, K, 0, w.data(), &lay) != SRT_OK) { CHECK(0, "tcsl layout: %s", srt_last_error()); return; }
        std::vector<uint8_t> words((size_t)lay.size[0] + 16), offs((size_t)lay.size[1]);
        void *pp[2] = {words.data(), offs.data()};
        if (srt_quantize(SRT_TCSL, 0, w.data(), M, K, pp) != SRT_OK) { CHECK(0, "tcsl pack: %s", srt_last_error()); return; }
        std::vector<float> acc((size_t)4 * 32 * (BN / 8) * 4, 0.0f);
        for (int kt = 0; kt < K / 64; kt++) {
            std::vector<uint8_t> sa(64 * 128, 0), sb((size_t)BN * 128, 0);
            uint32_t w0, w1;
            memcpy(&w0, &offs[(size_t)kt * 4], 4); memcpy(&w1, &offs[(size_t)kt * 4 + 4], 4);
            for (uint32_t i = w0; i < w1; i++) {   /* extract */
                const uint32_t word = ld32(words, 4 * i), loc = word >> 16;
                const uint16_t v = (uint16_t)word;
                memcpy(&sa[srt__cu_tcsl_smem(loc >> 6, loc & 63u)], &v, 2);
            }
            for (int tr = 0; tr < BN; tr++)        /* the activation tile, 16 bytes per cp.async */
                for (int ch = 0; ch < 8; ch++)
                    for (int e = 0; e < 8; e++) {
                        const uint16_t v = srt_f32_to_f16(x[(size_t)tr * K + (size_t)kt * 64 + (size_t)ch * 8 + (size_t)e]);
                        memcpy(&sb[srt__cu_tcsl_smem((uint32_t)tr, 8u * (uint32_t)ch) + 2u * (uint32_t)e], &v, 2);
                    }
            for (int warp = 0; warp < 4; warp++)
                for (int kk = 0; kk < 4; kk++) {
                    uint32_t addr[32], ra[32][4], rb[32][4];
                    float A[16][16], B[16][64];
                    for (int l = 0; l < 32; l++) addr[l] = srt__cu_tcsl_a_at(warp, l, kk);
                    ldmatrix(sa, addr, 4, ra);
                    for (int t = 0; t < 32; t++) {
                        const int g = t / 4, c = t % 4;
                        for (int q = 0; q < 2; q++) {
                            A[g][2 * c + q] = h(ra[t][0], q); A[g + 8][2 * c + q] = h(ra[t][1], q);
                            A[g][2 * c + 8 + q] = h(ra[t][2], q); A[g + 8][2 * c + 8 + q] = h(ra[t][3], q);
                        }
                    }
                    for (int p = 0; p < (BN == 8 ? 1 : BN / 16); p++) {
                        for (int l = 0; l < 32; l++) addr[l] = srt__cu_tcsl_b_at(p, BN == 8 ? l & 15 : l, kk);
                        ldmatrix(sb, addr, BN == 8 ? 2 : 4, rb);
                        for (int t = 0; t < 32; t++) {
                            const int g = t / 4, c = t % 4;
                            for (int nb = 0; nb < (BN == 8 ? 1 : 2); nb++)
                                for (int q = 0; q < 2; q++) {
                                    B[2 * c + q][16 * p + 8 * nb + g] = h(rb[t][2 * nb], q);
                                    B[2 * c + 8 + q][16 * p + 8 * nb + g] = h(rb[t][2 * nb + 1], q);
                                }
                        }
                    }
                    for (int t = 0; t < 32; t++)
                        for (int j = 0; j < BN / 8; j++)
                            for (int e = 0; e < 4; e++) {
                                const int r = t / 4 + (e >> 1) * 8, col = 8 * j + 2 * (t % 4) + (e & 1);
                                double d = 0.0;
                                for (int k = 0; k < 16; k++) d += (double)A[r][k] * B[k][col];
                                acc[(((size_t)warp * 32 + (size_t)t) * (size_t)(BN / 8) + (size_t)j) * 4 + (size_t)e] += (float)d;
                            }
                }
        }
        std::vector<float> y((size_t)BN * M, NAN);
        for (int warp = 0; warp < 4; warp++)
            for (int l = 0; l < 32; l++)
                for (int j = 0; j < BN / 8; j++)
                    for (int e = 0; e < 4; e++)
                        y[(size_t)srt__cu_tcsl_acc_tok(j, l, e) * M + (size_t)srt__cu_tcsl_acc_row(warp, l, e)] =
                            acc[(((size_t)warp * 32 + (size_t)l) * (size_t)(BN / 8) + (size_t)j) * 4 + (size_t)e];
        for (int t = 0; t < BN; t++)
            for (int r = 0; r < M; r++) {
                double ref = 0.0, mag = 0.0;
                for (int k = 0; k < K; k++) {
                    const double p = (double)srt_f16_to_f32(srt_f32_to_f16(w[(size_t)r * K + k])) * x[(size_t)t * K + k];
                    ref += p; mag += fabs(p);
                }
                const float got = y[(size_t)t * M + r];
                if (got != got) { unwritten++; continue; }
                if (fabs(got - ref) > 1e-5 * mag + 1e-6) bad++;
                if (mag > 0 && fabs(got - ref) / mag > worst) worst = fabs(got - ref) / mag;
                cases++;
            }
    }
    CHECK(bad == 0 && unwritten == 0 && cases == 64 * (8 + 16 + 32 + 64),
          "TCSL SpMM data path emulated on the CPU (BN 8/16/32/64, 64 x 192 at 60%%): %d outputs equal the dense product (worst %.2g of sum |w x|), %d wrong, %d unwritten",
          cases, worst, bad, unwritten);
    CHECK(bank_mismatch == 0 && ldm_conflicts == 0, "TCSL shared-memory tile: the banks are those of formats/LAYOUTS.md (%d places differ), every ldmatrix phase is conflict-free (%d are not)",
          bank_mismatch, ldm_conflicts);
}

/* The TCSL SpMM against the CPU reference on the same packed tensor: f16 activations and tensor-core
   sums, so within 2e-3 x sum |w x| of each output (+ 1e-5 absolute). */
/* The SpMM's launch plan against its scratch (host code, no device): for tall and short matrices,
   any number of tokens and any split-K target, the splits cover K, and the f16 activations plus the
   partial sums fit in srt__cu_tcsl_ws_bytes (a vocabulary-sized matrix keeps them under 32 MB). */
static void check_tcsl_plan(void) {
    static const uint64_t rows_list[] = {64, 200, 4096, 14336, 128256, 262144}, tks[] = {1, 3, 64, 224};
    static const int ns[] = {1, 8, 9, 64, 100, 512}, targets[] = {0, 2, 8, 64};
    srt__cuda S;
    int bad = 0, cases = 0, split = 0;
    S.sms = 132;
    for (int ti = 0; ti < 4; ti++)
        for (size_t ri = 0; ri < sizeof rows_list / sizeof rows_list[0]; ri++)
            for (int ki = 0; ki < 4; ki++)
                for (int ni = 0; ni < 6; ni++) {
                    srt__cuda_mat w;
                    memset(&w, 0, sizeof w);
                    S.split_k = targets[ti];
                    w.rows = rows_list[ri]; w.tm = (w.rows + 63) / 64; w.tk = tks[ki]; w.cols = w.tk * 64;
                    const srt__cu_tcsl_plan p = srt__cu_tcsl_plan_for(&S, w, ns[ni]);
                    const uint64_t x16 = ((uint64_t)p.n_pad * w.tk * 64 * 2 + 255) / 256 * 256;
                    const uint64_t part = p.splits > 1 ? (uint64_t)p.splits * (uint64_t)p.n_pad * w.rows * 4 : 0;
                    const uint64_t x16_max = ((uint64_t)(ns[ni] + 63) * w.tk * 64 * 2 + 255) / 256 * 256;   /* what the scratch holds for x16 */
                    cases++; split += p.splits > 1;
                    if (p.splits < 1 || (uint64_t)p.splits * p.kt_per < w.tk || (uint64_t)(p.splits - 1) * p.kt_per >= w.tk ||
                        x16 + part > srt__cu_tcsl_ws_bytes(w.tk, w.rows, ns[ni]) || (targets[ti] == 0 && p.splits != 1) ||
                        srt__cu_tcsl_ws_bytes(w.tk, w.rows, ns[ni]) > x16_max + (32u << 20) + 256) {
                        if (bad++ < 3) fprintf(stderr, "plan: rows %llu, %llu K tiles, %d tokens, target %d: %d splits of %u, scratch %llu bytes\n", (unsigned long long)w.rows,
                                               (unsigned long long)w.tk, ns[ni], targets[ti], p.splits, p.kt_per, (unsigned long long)srt__cu_tcsl_ws_bytes(w.tk, w.rows, ns[ni]));
                    }
                }
    CHECK(bad == 0 && split > 0, "TCSL launch plans: K covered by the splits, activations and partial sums inside the scratch (%d of %d plans wrong, %d split)", bad, cases, split);
}
static void check_tcsl(uint64_t rows, uint64_t cols, double sparsity) {
    const int ns[] = {1, 3, 8, 9, 17, 33, 64, 65, 100};
    std::vector<float> w(rows * cols), bias(rows);
    srt_tensor_parts lay;
    int worst_n = 0, bad = 0;
    double worst = 0.0;
    for (size_t i = 0; i < w.size(); i++) w[i] = srt_test_frand() < 2.0 * sparsity - 1.0 ? 0.0f : srt_test_frand();
    for (size_t i = 0; i < bias.size(); i++) bias[i] = srt_test_frand();
    if (srt_tensor_layout_data(SRT_TCSL, rows, cols, 0, w.data(), &lay) != SRT_OK) { CHECK(0, "tcsl layout: %s", srt_last_error()); return; }
    std::vector<uint8_t> words((size_t)lay.size[0] + 16), offs((size_t)lay.size[1]);
    void *pp[2] = {words.data(), offs.data()};
    if (srt_quantize(SRT_TCSL, 0, w.data(), rows, cols, pp) != SRT_OK) { CHECK(0, "tcsl pack: %s", srt_last_error()); return; }
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        const int n = ns[ni];
        std::vector<float> x((size_t)n * cols), ref((size_t)n * rows), got((size_t)n * rows);
        for (size_t i = 0; i < x.size(); i++) x[i] = srt_test_frand() * (i % 5 == 0 ? 3.0f : 1.0f);
        srt_matmul(NULL, SRT_ISA_PORTABLE, SRT_TCSL, 0, (const void *const *)pp, rows, cols, n, x.data(), ref.data());
        for (int wb = 0; wb < 2; wb++) {
            if (srt_cuda_matmul(gpu, SRT_TCSL, 0, (const void *const *)pp, rows, cols, n, x.data(), wb ? bias.data() : NULL, got.data(),
                                SRT_CUDA_PATH_AUTO) != SRT_OK) { CHECK(0, "tcsl %llux%llu n=%d: %s", (unsigned long long)rows, (unsigned long long)cols, n, srt_cuda_last_error(gpu)); return; }
            for (int t = 0; t < n; t++)
                for (uint64_t r = 0; r < rows; r++) {
                    double mag = 0.0;
                    for (uint64_t k = 0; k < cols; k++) mag += fabs((double)w[r * cols + k] * x[(size_t)t * cols + k]);
                    const double want = ref[(size_t)t * rows + r] + (wb ? bias[r] : 0.0f), d = fabs(got[(size_t)t * rows + r] - want);
                    if (!(d <= 2e-3 * mag + 1e-5)) bad++;
                    if (mag > 0 && d / mag > worst) { worst = d / mag; worst_n = n; }
                }
        }
    }
    CHECK(bad == 0, "tcsl %llu x %llu at %.0f%%: the SpMM equals the CPU reference within 2e-3 x sum |w x| (n 1..100, with and without bias; worst %.2g at n=%d; %d outside)",
          (unsigned long long)rows, (unsigned long long)cols, sparsity * 100, worst, worst_n, bad);
}

/* ---------------------------------------------------------------- models */


static srt_status (*real_session_create)(srt_backend *, void *, int, int, srt_kv_type, void **, char *, size_t);
static srt_status session_create_type7(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv, void **session, char *err, size_t cap) {
    (void)kv;
    return real_session_create(b, model, n_ctx, n_batch, (srt_kv_type)7, session, err, cap);
}

/* Two device sessions of one model, stepped in turns (each has its own KV cache and decode graph),
   against one CPU session each. */
static bool same_logits(srt_session *a, srt_session *b) {
    const float *la = srt_session_logits(a), *lb = srt_session_logits(b);
    return la && lb && memcmp(la, lb, 259 * sizeof(float)) == 0;
}
static void check_turns(const char *path, const int32_t *prompt) {
    srt_model *cpu = NULL, *dev = NULL;
    srt_session *c[2] = {NULL, NULL}, *d[2] = {NULL, NULL};
    srt_model_desc md;
    srt_session_desc sdesc;
    int same = 1;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (srt_model_load(path, &md, &cpu) != SRT_OK) { CHECK(0, "turns: cpu load: %s", srt_last_error()); return; }
    md.backend = gpu;
    if (srt_model_load(path, &md, &dev) != SRT_OK) { CHECK(0, "turns: cuda load: %s", srt_last_error()); srt_model_free(cpu); return; }
    memset(&sdesc, 0, sizeof sdesc);
    sdesc.n_ctx = 64; sdesc.n_batch = 8;
    for (int s = 0; s < 2; s++) {
        if (srt_session_create(cpu, &sdesc, &c[s]) != SRT_OK || srt_session_create(dev, &sdesc, &d[s]) != SRT_OK ||
            srt_session_feed(c[s], prompt + 5 * s, 11) != SRT_OK || srt_session_feed(d[s], prompt + 5 * s, 11) != SRT_OK) { same = 0; break; }
    }
    for (int i = 0; i < 10 && same; i++)
        for (int s = 0; s < 2; s++) {
            int32_t tc, td;
            if (srt_session_next(c[s], &tc) != SRT_OK || srt_session_next(d[s], &td) != SRT_OK || tc != td) { same = 0; break; }
            if (memcmp(srt_session_logits(c[s]), srt_session_logits(d[s]), 259 * sizeof(float)) != 0) { same = 0; break; }
        }
    CHECK(same, "two sessions of one model stepped in turns: logits and tokens equal the CPU's%s%s", same ? "" : ": ", same ? "" : srt_last_error());
    if (same) {   /* back to the prompt (its last token evaluated again on the device), then other input */
        same = srt_session_truncate(c[0], 11) == SRT_OK && srt_session_truncate(d[0], 11) == SRT_OK &&
               same_logits(c[0], d[0]) &&
               srt_session_truncate(c[0], 6) == SRT_OK && srt_session_truncate(d[0], 6) == SRT_OK &&
               srt_session_feed(c[0], prompt + 20, 9) == SRT_OK && srt_session_feed(d[0], prompt + 20, 9) == SRT_OK && same_logits(c[0], d[0]);
        CHECK(same, "srt_session_truncate on the backend: the logits equal the CPU's after truncating and feeding other tokens%s%s", same ? "" : ": ", same ? "" : srt_last_error());
    }
    for (int s = 0; s < 2; s++) { srt_session_destroy(c[s]); srt_session_destroy(d[s]); }
    {   /* a KV cache type the backend does not know (the core passes only F32, F16 and Q8) */
        real_session_create = gpu->session_create;
        gpu->session_create = session_create_type7;
        d[0] = NULL;
        CHECK(srt_session_create(dev, &sdesc, &d[0]) == SRT_ERR_UNSUPPORTED && !d[0] && strstr(srt_last_error(), "KV cache type 7"),
              "an unknown KV cache type is refused by the backend: %s", srt_last_error());
        gpu->session_create = real_session_create;
    }
    srt_model_free(cpu); srt_model_free(dev);
}

/* The decode step's launches: per_layer x layers + tail. A layer of one integer format is 11
   (rmsnorm writing the codes of q/k/v's GEMV, that GEMV, RoPE with the KV store, attention's
   scores and values, the quantization of wo's input, wo adding into the residual, rmsnorm writing
   the codes of gate/up/SwiGLU's GEMV, that GEMV, the quantization of down's input, down adding
   into the residual); 10 with a Q8 KV cache and heads of 16 (srt__cu_attention, one launch); the
   tail is the embedding, the final norm and the output product (quantization and GEMV). qwen3 adds
   its q and k norms (13). The
   decode steps replay their CUDA graph (graph = 1; the prompt never does), or (graph = 0, with
   SRT_CUDA_GRAPHS=0) launch plainly: a capture that fails must not pass unnoticed. */
static void check_step_kernels(const char *tag, const char *path, const int32_t *prompt, int n_layer, int per_layer, int tail, srt_kv_type kv,
                               int graph) {
    srt_model *dev = NULL;
    srt_session *d = NULL;
    srt_model_desc md;
    srt_session_desc sdesc;
    int32_t tok;
    int k[3] = {-1, -1, -1}, gr[3] = {-1, -1, -1};
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    md.backend = gpu;
    memset(&sdesc, 0, sizeof sdesc);
    sdesc.n_ctx = 64; sdesc.n_batch = 8; sdesc.kv_type = kv;
    if (srt_model_load(path, &md, &dev) != SRT_OK || srt_session_create(dev, &sdesc, &d) != SRT_OK ||
        srt_session_feed(d, prompt, 5) != SRT_OK) { CHECK(0, "%s: kernels per step: %s", tag, srt_last_error()); srt_session_destroy(d); srt_model_free(dev); return; }
    k[0] = srt_cuda_last_step_kernels(gpu);
    gr[0] = srt_cuda_last_step_graph(gpu);
    if (srt_session_next(d, &tok) != SRT_OK) k[0] = -1;   /* samples; the token is evaluated by the next call */
    for (int i = 1; i < 3; i++) {
        k[i] = srt_session_next(d, &tok) == SRT_OK ? srt_cuda_last_step_kernels(gpu) : -1;
        gr[i] = srt_cuda_last_step_graph(gpu);
    }
    CHECK(k[1] == per_layer * n_layer + tail && k[2] == k[1] && k[0] > 0,
          "%s: a decode step launches %d kernels per layer + %d (%d, then %d; the 5-token prompt %d)", tag, per_layer, tail, k[1], k[2], k[0]);
    CHECK(gr[0] == 0 && gr[1] == graph && gr[2] == graph, "%s: the decode steps %s (graph replayed: prompt %d, steps %d %d)", tag,
          graph ? "replay their CUDA graph" : "launch plainly", gr[0], gr[1], gr[2]);
    srt_session_destroy(d);
    srt_model_free(dev);
}

/* A backend on device SRT_CUDA_DEVICE (else 0) created with environment variable name=value (and
   name2=value2), which the backend reads when it is created; the variables are unset after. */
static srt_backend *backend_with(const char *name, const char *value, const char *name2 = NULL, const char *value2 = NULL) {
    const char *dev = getenv("SRT_CUDA_DEVICE");
    setenv(name, value, 1);
    if (name2) setenv(name2, value2, 1);
    srt_backend *b = srt_cuda_backend(dev ? atoi(dev) : 0);
    unsetenv(name);
    if (name2) unsetenv(name2);
    return b;
}

static void check_models(void) {
    int32_t prompt[40];
    for (int i = 0; i < 40; i++) prompt[i] = 3 + (i * 37 + 11) % 256;
    prompt[0] = 1;
    struct { const char *tag, *arch; srt_format f; int E, F, L, H, KVH, hd, rd, llama3, biases; uint32_t group; } cfg[] = {
        {"llama q8 gqa", "llama", SRT_Q8, 64, 96, 2, 4, 2, 16, 16, 0, 0, 0},
        {"llama q4", "llama", SRT_Q4, 64, 96, 2, 4, 2, 16, 16, 0, 0, 0},
        {"llama q2", "llama", SRT_Q2, 64, 96, 2, 4, 1, 16, 16, 0, 0, 0},
        {"llama tq", "llama", SRT_TQ, 64, 96, 2, 4, 4, 16, 16, 0, 0, 0},
        {"llama q1", "llama", SRT_Q1, 64, 96, 2, 4, 2, 16, 16, 0, 0, 0},
        {"llama f16 llama3-rope", "llama", SRT_F16, 64, 96, 2, 4, 2, 16, 16, 1, 0, 0},
        {"llama bf16 rope_dim<head_dim", "llama", SRT_BF16, 96, 160, 2, 3, 1, 32, 16, 0, 0, 0},
        {"qwen2 q8 biases neox", "qwen2", SRT_Q8, 64, 128, 2, 4, 2, 16, 16, 0, 1, 0},
        {"qwen2 f32 biases neox", "qwen2", SRT_F32, 64, 128, 2, 4, 2, 16, 16, 0, 1, 0},
        {"llama q4 head_dim 128", "llama", SRT_Q4, 256, 320, 1, 2, 1, 128, 128, 0, 0, 0},
        {"llama tcsl 70% gqa", "llama", SRT_TCSL, 128, 320, 2, 4, 2, 32, 32, 0, 0, 0},
        {"qwen2 tcsl 70% biases neox", "qwen2", SRT_TCSL, 96, 200, 2, 3, 1, 32, 32, 0, 1, 0},
        {"qwen3 q8 q/k norms, head_dim 32 (Q != E)", "qwen3", SRT_Q8, 64, 96, 2, 4, 2, 32, 32, 0, 0, 0},
        {"qwen3 q4 q/k norms, biases", "qwen3", SRT_Q4, 64, 128, 2, 4, 1, 16, 16, 0, 1, 0},
        {"phi3 q4 LongRoPE, partial rope 12 of 16", "phi3", SRT_Q4, 64, 96, 2, 4, 2, 16, 12, 0, 0, 0},
        {"llama q8 head_dim 64 gqa", "llama", SRT_Q8, 256, 320, 1, 4, 2, 64, 64, 0, 0, 0},
        {"llama q4 head_dim 64, groups of 64", "llama", SRT_Q4, 256, 320, 2, 4, 2, 64, 64, 0, 0, 64},
        {"llama q8 head_dim 64, groups of 128, FFN 200", "llama", SRT_Q8, 256, 200, 1, 4, 2, 64, 64, 0, 0, 128},
        {"qwen2 q8 yarn 8, neox", "qwen2", SRT_Q8, 64, 128, 2, 4, 2, 16, 16, 2, 1, 0},
        {"exaone q4 llama3-rope (EXAONE 3.5: llama with NeoX rope)", "exaone", SRT_Q4, 64, 96, 2, 4, 2, 16, 16, 1, 0, 0},
    };
    srt_cuda_set_cublas_min_tokens(gpu, 0);   /* every path in the reference order */
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        char path[256], tag[160];
        snprintf(path, sizeof path, CU_TMP "model_%zu.srt", c);
        if (!write_model(path, cfg[c].arch, cfg[c].f, cfg[c].E, cfg[c].F, cfg[c].L, cfg[c].H, cfg[c].KVH, cfg[c].hd, cfg[c].rd,
                         cfg[c].llama3, cfg[c].biases, 100 + c, cfg[c].group)) { CHECK(0, "%s: write model: %s", cfg[c].tag, srt_last_error()); continue; }
        snprintf(tag, sizeof tag, "%s, f16 KV", cfg[c].tag);
        if (cfg[c].f == SRT_TCSL) {   /* tensor-core sums over f16 activations: within a tolerance */
            compare_sessions_tol(tag, path, prompt, 40, 16, SRT_KV_F16, 12, 5e-3);
            snprintf(tag, sizeof tag, "%s, batch 1", cfg[c].tag);
            compare_sessions_tol(tag, path, prompt, 9, 1, SRT_KV_F16, 6, 5e-3);
            continue;
        }
        compare_sessions(tag, path, prompt, 40, 16, SRT_KV_F16, 12);
        if (c == 0 || c == 7 || c == 12) {
            snprintf(tag, sizeof tag, "%s, f32 KV, batch 1", cfg[c].tag);
            compare_sessions(tag, path, prompt, 9, 1, SRT_KV_F32, 6);
            snprintf(tag, sizeof tag, "%s, batch 40", cfg[c].tag);
            compare_sessions(tag, path, prompt, 40, 40, SRT_KV_F16, 4);
        }
        if (c == 0 || c == 6 || c == 7 || c == 9) {   /* Q8 KV: head sizes 16, 32 (rope_dim 16), 16 neox, 128 */
            snprintf(tag, sizeof tag, "%s, q8 KV", cfg[c].tag);
            compare_sessions(tag, path, prompt, 40, 16, SRT_KV_Q8, 12);
            snprintf(tag, sizeof tag, "%s, q8 KV, batch 1", cfg[c].tag);
            compare_sessions(tag, path, prompt, 9, 1, SRT_KV_Q8, 6);
        }
        if (c == 0) { check_turns(path, prompt); check_state(cfg[c].tag, path, prompt, SRT_KV_F16); check_state(cfg[c].tag, path, prompt, SRT_KV_Q8); }
        if (c == 1 || c == 7) check_step_kernels(cfg[c].tag, path, prompt, cfg[c].L, 11, 4, SRT_KV_F16, 1);
        if (c == 1) check_step_kernels("llama q4, q8 KV", path, prompt, cfg[c].L, 10, 4, SRT_KV_Q8, 1);
        if (c == 12) check_step_kernels(cfg[c].tag, path, prompt, cfg[c].L, 13, 4, SRT_KV_F16, 1);   /* + the q and k norms */
        if (c == 0 || c == 1 || c == 6 || c == 12) {   /* speculative decoding: q8 GQA, q4, bf16 rope_dim < head_dim, qwen3 */
            snprintf(tag, sizeof tag, "%s, speculative", cfg[c].tag);
            check_spec(tag, path, prompt, 9, SRT_KV_F16);
            if (c == 0) { snprintf(tag, sizeof tag, "%s, speculative, q8 KV", cfg[c].tag); check_spec(tag, path, prompt, 9, SRT_KV_Q8); }
        }
        if (c == 5 || c == 8) {   /* float weights: prompt batches through cuBLAS */
            srt_cuda_set_cublas_min_tokens(gpu, 2);
            snprintf(tag, sizeof tag, "%s, cuBLAS for batches", cfg[c].tag);
            compare_sessions_tol(tag, path, prompt, 40, 40, SRT_KV_F32, 6, 1e-3);
            srt_cuda_set_cublas_min_tokens(gpu, 0);
        }
    }
    {   /* decode without CUDA graphs (plain launches) gives the same, and so does TCSL without split-K */
        srt_backend *saved = gpu;
        gpu = backend_with("SRT_CUDA_GRAPHS", "0");
        if (gpu) {
            srt_cuda_set_cublas_min_tokens(gpu, 0);
            compare_sessions("llama q8 gqa, f16 KV, without CUDA graphs", CU_TMP "model_0.srt", prompt, 40, 16, SRT_KV_F16, 12);
            check_step_kernels("llama q8 gqa, without CUDA graphs", CU_TMP "model_0.srt", prompt, 2, 11, 4, SRT_KV_F16, 0);
            compare_sessions("llama q8 gqa, q8 KV, without CUDA graphs", CU_TMP "model_0.srt", prompt, 40, 16, SRT_KV_Q8, 12);
            srt_backend_free(gpu);
        }
        /* the TCSL SpMM in one pass (tiny matrices are otherwise always split along K): the
           epilogue that adds into the residual itself */
        gpu = backend_with("SRT_CUDA_SPLIT_K", "0");
        if (gpu) {
            compare_sessions_tol("llama tcsl 70% gqa, without split-K", CU_TMP "model_10.srt", prompt, 40, 16, SRT_KV_F16, 6, 5e-3);
            compare_sessions_tol("qwen2 tcsl 70% biases neox, without split-K, batch 1", CU_TMP "model_11.srt", prompt, 9, 1, SRT_KV_F16, 6, 5e-3);
            /* a TCSL layer: 2 norms, RoPE + KV store, attention (2), SwiGLU; x to f16 once for q/k/v,
               once for gate/up and once each for wo and down; 7 SpMMs */
            check_step_kernels("llama tcsl 70% gqa, without split-K", CU_TMP "model_10.srt", prompt, 2, 17, 3, SRT_KV_F16, 1);
            srt_backend_free(gpu);
        }
        /* GEMV and GEMM launches of 3 blocks per token block, each taking tiles in turn (across q, k
           and v; in the SwiGLU launch a gate tile, then its up tile), the next one's first weights
           and scales staged while the last is summed up: one batch, two batches, two windows */
        gpu = backend_with("SRT_CUDA_GEMV_BLOCKS", "3", "SRT_CUDA_MMA_MIN", "0");   /* (and every GEMM the tiled kernel's) */
        if (gpu) {
            srt_cuda_set_cublas_min_tokens(gpu, 0);
            check_kernels(SRT_Q4, 130, 1100, 32);
            check_kernels(SRT_Q8, 130, 4100, 64);
            check_kernels(SRT_Q2, 50, 20000, 16384);
            compare_sessions("llama q4, 3 GEMV blocks", CU_TMP "model_1.srt", prompt, 40, 16, SRT_KV_F16, 12);
            compare_sessions("llama q8 gqa, 3 GEMV blocks", CU_TMP "model_0.srt", prompt, 40, 16, SRT_KV_F16, 12);
            srt_backend_free(gpu);
        }
        gpu = saved;
        /* attention in two launches (srt__cu_attn_scores / _values; the models above take it too): the
           logits of every step bit for bit at 600 positions fed in batches of 64 (a
           batch's scores in one block per head going over all positions, a decode step's in several
           blocks per head; the values' stages wrapping around many times); F32, F16 and Q8 caches; heads
           of 16 (half of a warp's 32 dimensions), 64 and 128 dimensions. A Q8 cache with heads of 16 takes
           srt__cu_attention. Its launches are counted, so the checks cannot pass on srt__cu_attention. */
        {
            static int32_t longp[600];
            for (int i = 0; i < 600; i++) longp[i] = i ? 3 + (i * 37 + 11) % 256 : 1;
            srt_cuda_set_cublas_min_tokens(gpu, 0);
            const uint64_t before = srt__cu_of(gpu)->attn_split_launches;
            compare_sessions("qwen2 f32 biases neox, f32 KV, split attention, batch 1", CU_TMP "model_8.srt", prompt, 9, 1, SRT_KV_F32, 6);
            compare_sessions_ctx("llama q8 gqa, f16 KV, split attention, 600 positions", CU_TMP "model_0.srt", longp, 600, 64, SRT_KV_F16, 8, 0.0, 640);
            compare_sessions_ctx("llama q8 gqa, f32 KV, split attention, 600 positions", CU_TMP "model_0.srt", longp, 600, 64, SRT_KV_F32, 8, 0.0, 640);
            compare_sessions_ctx("llama q4 head_dim 128, q8 KV, split attention, 600 positions", CU_TMP "model_9.srt", longp, 600, 64, SRT_KV_Q8, 8, 0.0, 640);
            compare_sessions_ctx("llama q4 head_dim 128, f16 KV, split attention, 600 positions", CU_TMP "model_9.srt", longp, 600, 64, SRT_KV_F16, 8, 0.0, 640);
            compare_sessions_ctx("llama q8 head_dim 64 gqa, q8 KV, split attention, 600 positions", CU_TMP "model_15.srt", longp, 600, 64, SRT_KV_Q8, 8, 0.0, 640);
            compare_sessions_ctx("llama q8 head_dim 64 gqa, f32 KV, split attention, 300 positions", CU_TMP "model_15.srt", longp, 300, 64, SRT_KV_F32, 8, 0.0, 640);
            const uint64_t mid = srt__cu_of(gpu)->attn_split_launches;
            compare_sessions("llama q8 gqa, q8 KV (heads of 16: srt__cu_attention)", CU_TMP "model_0.srt", prompt, 40, 16, SRT_KV_Q8, 6);
            CHECK(mid > before && srt__cu_of(gpu)->attn_split_launches == mid,
                  "the checks ran the split attention (%llu launch pairs); the Q8 cache with heads of 16 srt__cu_attention", (unsigned long long)(mid - before));
        }
        /* the tensor-core GEMM from 2 tokens (by default from 16): 3 and 9 tokens in blocks of 16,
           groups ending mid-stage (96), spanning stages (1024, 16384), K not a multiple of 64 */
        gpu = backend_with("SRT_CUDA_MMA_MIN", "2");
        if (gpu) {
            const srt_format fs[] = {SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_Q1};
            srt_cuda_set_cublas_min_tokens(gpu, 0);
            for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
                check_kernels(fs[i], 37, 100, 32);
                check_kernels(fs[i], 50, 300, 96);
                check_kernels(fs[i], 33, 1000, 1024);
            }
            check_kernels(SRT_Q4, 20, 20000, 16384);
            {   /* blocks of 32 and 64 tokens, 3 token blocks (the last one partial) */
                const int ns[4] = {2, 20, 64, 130};
                check_kernels(SRT_Q4, 37, 100, 32, ns);
                check_kernels(SRT_Q8, 70, 300, 96, ns);
            }
            compare_sessions("llama q4, tensor-core GEMM from 2 tokens, batch 9", CU_TMP "model_1.srt", prompt, 9, 9, SRT_KV_F16, 6);
            compare_sessions("qwen2 q8 biases neox, tensor-core GEMM from 2 tokens", CU_TMP "model_7.srt", prompt, 40, 16, SRT_KV_F16, 6);
            srt_backend_free(gpu);
        }
        gpu = saved;
    }
}

/* ---------------------------------------------------------------- without a device */
/* What must hold when the backend has no device: clear failures, nothing half-made. */
static void check_no_device(const char *open_error) {
    srt_model *m = NULL;
    srt_model_desc md;
    srt_status st;
    float x[64], y[16];
    double ms = -1.0;
    std::vector<unsigned char> v(16 * 64 * 4);
    const void *parts[1] = {v.data()};
    memset(x, 0, sizeof x);
    memset(&md, 0, sizeof md);
    md.backend = gpu;
    CHECK(strncmp(gpu->name, "cuda: no device", 15) == 0, "no device: the backend is named '%s'", gpu->name);
    CHECK(strstr(srt_cuda_info(gpu), "CUDA runtime ") != NULL && strstr(srt_cuda_info(gpu), "cannot open CUDA device") != NULL,
          "no device: srt_cuda_info gives the runtime version and the reason: %s", srt_cuda_info(gpu));
    CHECK(write_model(CU_TMP "nodev.srt", "llama", SRT_Q8, 32, 64, 1, 2, 1, 16, 16, 0, 0, 1), "a tiny q8 model written");
    st = srt_model_load(CU_TMP "nodev.srt", &md, &m);
    CHECK(st == SRT_ERR_UNSUPPORTED && !m && strstr(srt_last_error(), open_error) != NULL && strstr(srt_last_error(), "cuda: no device") != NULL,
          "no device: srt_model_load fails with SRT_ERR_UNSUPPORTED and the reason: %s", srt_last_error());
    if (m) srt_model_free(m);
    md.backend = NULL;
    m = NULL;
    CHECK(srt_model_load(CU_TMP "nodev.srt", &md, &m) == SRT_OK && m, "the same model loads on the CPU");
    if (m) srt_model_free(m);
    st = srt_cuda_matmul(gpu, SRT_F32, 0, parts, 16, 64, 1, x, NULL, y, SRT_CUDA_PATH_AUTO);
    CHECK(st == SRT_ERR_UNSUPPORTED && strstr(srt_cuda_last_error(gpu), "cannot open CUDA device") != NULL,
          "no device: srt_cuda_matmul fails with SRT_ERR_UNSUPPORTED: %s", srt_cuda_last_error(gpu));
    st = srt_cuda_bench_matmul(gpu, SRT_F32, 0, parts, 16, 64, 1, SRT_CUDA_PATH_AUTO, 10, &ms);
    CHECK(st == SRT_ERR_UNSUPPORTED, "no device: srt_cuda_bench_matmul fails with SRT_ERR_UNSUPPORTED");
    CHECK(srt_cuda_matmul(NULL, SRT_F32, 0, parts, 16, 64, 1, x, NULL, y, SRT_CUDA_PATH_AUTO) == SRT_ERR_INVALID_ARG &&
          srt_cuda_info(NULL)[0] == 0 && srt_cuda_last_error(NULL)[0] == 0, "a NULL backend: SRT_ERR_INVALID_ARG and empty strings");
    {   /* a device number past the end names itself */
        srt_backend *b = srt_cuda_backend(999);
        CHECK(b && strstr(srt_cuda_info(b), "cannot open CUDA device 999") != NULL, "device 999: %s", b ? srt_cuda_info(b) : "NULL");
        srt_backend_free(b);
    }
}

/* ---------------------------------------------------------------- device-only API checks */
static void check_api(void) {
    srt_model *m = NULL;
    srt_model_desc md;
    std::vector<float> w(64 * 256), x(256), y(64);
    std::vector<unsigned char> v, s;
    srt_tensor_parts lay;
    double ms = 0.0;
    memset(&md, 0, sizeof md);
    md.backend = gpu;
    CHECK(write_model(CU_TMP "sparse.srt", "llama", SRT_SB_Q8, 32, 64, 1, 2, 1, 16, 16, 0, 0, 1) &&
          srt_model_load(CU_TMP "sparse.srt", &md, &m) == SRT_ERR_UNSUPPORTED && !m && strstr(srt_last_error(), "sb-q8"),
          "a model in a sparse format is refused by the CUDA backend: %s", srt_last_error());
    if (m) srt_model_free(m);
    for (size_t i = 0; i < w.size(); i++) w[i] = srt_test_frand();
    for (size_t i = 0; i < x.size(); i++) x[i] = srt_test_frand();
    srt_tensor_layout(SRT_Q4, 64, 256, 64, &lay);
    v.resize((size_t)lay.size[0]); s.resize((size_t)lay.size[1]);
    void *pp[2] = {v.data(), s.data()};
    srt_quantize(SRT_Q4, 64, w.data(), 64, 256, pp);
    CHECK(srt_cuda_matmul(gpu, SRT_Q4, 64, (const void *const *)pp, 64, 256, 1, x.data(), NULL, y.data(), SRT_CUDA_PATH_CUBLAS) == SRT_ERR_UNSUPPORTED &&
          srt_cuda_last_error(gpu)[0], "the cuBLAS path is refused for q4: %s", srt_cuda_last_error(gpu));
    CHECK(srt_cuda_matmul(gpu, SRT_Q4, 48, (const void *const *)pp, 64, 256, 1, x.data(), NULL, y.data(), SRT_CUDA_PATH_AUTO) == SRT_ERR_SHAPE,
          "a bad group size is refused: %s", srt_cuda_last_error(gpu));
    srt_status st = srt_cuda_bench_matmul(gpu, SRT_Q4, 64, (const void *const *)pp, 64, 256, 1, SRT_CUDA_PATH_GEMV, 20, &ms);
    CHECK(st == SRT_OK && ms > 0.0, "srt_cuda_bench_matmul: %.4f ms per q4 GEMV call (status %d %s)", ms, (int)st, srt_cuda_last_error(gpu));
}

int main(void) {
    const char *env = getenv("SRT_CUDA_DEVICE");
    if (system("mkdir -p build/tmp") != 0) { CHECK(0, "mkdir build/tmp"); return srt_test_finish(); }
#ifdef SRT_CUDA_EMULATOR
    gpu_name = "cuda-emu";   /* in messages and the stories260K files: test_cuda and test_cuda_emu may run side by side */
#else
    gpu_name = "cuda";
#endif
    gpu_kv_q8 = 1;
    gpu = srt_cuda_backend(env ? atoi(env) : 0);
    if (!gpu) { CHECK(0, "srt_cuda_backend: out of memory"); return srt_test_finish(); }
    printf("# CUDA: %s\n", srt_cuda_info(gpu));
    if (strcmp(gpu->name, "cuda: no device") == 0) {
        const char *info = srt_cuda_info(gpu), *why = strstr(info, "cannot open CUDA device");
        std::string reason = why ? why : info;
        const size_t colon = reason.find(": ");
        check_no_device(why ? why : "cannot open CUDA device");
        check_tcsl_emulation();
        check_tcsl_plan();
        srt_backend_free(gpu);
        printf("skipped: GPU checks (no CUDA device: %s)\n", colon != std::string::npos ? reason.c_str() + colon + 2 : reason.c_str());
        return srt_test_finish();
    }
    check_api();
    check_tcsl_emulation();
    check_tcsl_plan();
    check_tcsl(64, 64, 0.0);
    check_tcsl(130, 300, 0.5);
    check_tcsl(1000, 520, 0.7);
    check_tcsl(2048, 2048, 0.9);
    check_tcsl(333, 4100, 0.99);
    {   /* without split-K: each block walks every K tile (its two buffers reused many times) */
        srt_backend *plain = gpu;
        gpu = backend_with("SRT_CUDA_SPLIT_K", "0");
        if (gpu) { check_tcsl(200, 1100, 0.7); check_tcsl(64, 2048, 0.9); srt_backend_free(gpu); }
        gpu = plain;
    }
    {
        const srt_format fs[] = {SRT_F32, SRT_F16, SRT_BF16, SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_Q1};
        for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
            const int is_int = fs[i] >= SRT_Q8;
            check_kernels(fs[i], 37, 100, is_int ? 32 : 0);
            check_kernels(fs[i], 16, 64, is_int ? 64 : 0);
            check_kernels(fs[i], 21, 1100, is_int ? 32 : 0);    /* 35 groups */
            check_kernels(fs[i], 130, 4100, is_int ? 64 : 0);   /* 65 groups: two batches of the GEMV */
            if (is_int) {
                check_kernels(fs[i], 50, 300, 96);
                check_kernels(fs[i], 33, 1000, 1024);             /* one group per row */
                check_kernels(fs[i], 20, 20000, 16384);           /* the GEMV's 8192-column windows: a group across two */
            }
        }
        /* tall enough for the default size rule: 16 and 33 tokens on the tensor cores, 15 not */
        const int ns[4] = {1, 15, 16, 33};
        check_kernels(SRT_Q4, 12300, 64, 32, ns);
    }
    check_models();
    check_stories();
    srt_backend_free(gpu);
    return srt_test_finish();
}
