/* test_sycl.cpp - the SYCL backend (sparsert_sycl.h) against the CPU reference, on whatever SYCL
   device exists (SRT_SYCL_DEVICE=i picks another; see srt_sycl_backend):
   - every matrix kernel (GEMV with fused quantization, GEMM, GEMM with K-split, float weights) for
     every format on odd shapes, 1..9 tokens, f32/f16/bf16 activations, with and without bias:
     equal to srt_matmul (portable) bit for bit;
   - whole models through the backend (a tiny llama with GQA, a qwen2-style one with biases and
     neox rope, llama3 rope scaling, f16 and f32 KV caches (a Q8 one is refused), prompt batches): the logits of every
     step equal the CPU's, and so do the greedy tokens;
   - stories260K packed from ../shared (f32, q8, q4): the golden greedy ids of ../shared/golden.
   Built by `./build.sh sycl` (C core + this C++ file compiled by the SYCL compiler). */
#define SPARSERT_SYCL
#include "sparsert_sycl.h"
#include "tests/testing.h"
#include "tests/backend_test.h"

#include <math.h>
#include <stdlib.h>
#include <vector>


/* ---------------------------------------------------------------- kernels */
static void check_kernels(srt_format f, uint64_t rows, uint64_t cols, uint32_t group) {
    srt_tensor_parts lay;
    std::vector<float> w(rows * cols), bias(rows);
    int ok_all = 1;
    char what[160];
    if (srt_tensor_layout(f, rows, cols, group, &lay) != SRT_OK) { CHECK(0, "layout %s", srt_format_name(f)); return; }
    std::vector<std::vector<unsigned char> > parts((size_t)lay.n_parts);
    void *pp[4] = {0, 0, 0, 0};
    for (int i = 0; i < lay.n_parts; i++) { parts[(size_t)i].resize((size_t)lay.size[i]); pp[i] = parts[(size_t)i].data(); }
    for (size_t i = 0; i < w.size(); i++) w[i] = srt_test_frand() * (i % 7 == 0 ? 2.0f : 0.5f);
    for (size_t i = 0; i < bias.size(); i++) bias[i] = srt_test_frand();
    if (srt_quantize(f, group, w.data(), rows, cols, pp) != SRT_OK) { CHECK(0, "quantize %s: %s", srt_format_name(f), srt_last_error()); return; }
    const int ns[3] = {1, 3, 9};
    const srt_format xfs[3] = {SRT_F32, SRT_F16, SRT_BF16};
    const int is_int = f >= SRT_Q8;
    for (int ni = 0; ni < 3; ni++)
        for (int xi = 0; xi < 3; xi++) {
            const int n = ns[ni];
            const srt_format xf = xfs[xi];
            std::vector<float> x((size_t)n * cols), ref((size_t)n * rows), got((size_t)n * rows);
            std::vector<uint16_t> xh((size_t)n * cols);
            for (size_t i = 0; i < x.size(); i++) {
                float v = srt_test_frand() * (i % 5 == 0 ? 3.0f : 1.0f);
                if (i % 97 == 13) v = 0.0f;
                if (xf == SRT_F16) { xh[i] = srt_f32_to_f16(v); v = srt_f16_to_f32(xh[i]); }
                if (xf == SRT_BF16) { xh[i] = srt_f32_to_bf16(v); v = srt_bf16_to_f32(xh[i]); }
                x[i] = v;
            }
            if (ni == 1) for (size_t i = 0; i < cols; i++) x[cols + i] = 0.0f;   /* an all-zero token: dx = 0 */
            if (ni == 1 && xf != SRT_F32) for (size_t i = 0; i < cols; i++) xh[cols + i] = 0;
            if (srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)pp, rows, cols, n, x.data(), ref.data()) != SRT_OK) {
                CHECK(0, "cpu reference: %s", srt_last_error()); return;
            }
            const srt_sycl_path paths[3] = {SRT_SYCL_PATH_GEMV, SRT_SYCL_PATH_GEMM, SRT_SYCL_PATH_KSPLIT};
            for (int pi = 0; pi < (is_int ? 3 : 1); pi++)
                for (int wb = 0; wb < 2; wb++) {
                    std::vector<float> want = ref;
                    if (wb) for (int t = 0; t < n; t++) for (uint64_t r = 0; r < rows; r++) want[(size_t)t * rows + r] += bias[r];
                    srt_status st = srt_sycl_matmul(gpu, f, group, (const void *const *)pp, rows, cols, n,
                                                    xf == SRT_F32 ? (const void *)x.data() : (const void *)xh.data(), xf,
                                                    wb ? bias.data() : NULL, got.data(), is_int ? paths[pi] : SRT_SYCL_PATH_AUTO);
                    int same = st == SRT_OK && memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0;
                    if (!same) {
                        size_t i, bad = 0;
                        for (i = 0; i < want.size(); i++) if (got[i] != want[i]) { bad = i; break; }
                        snprintf(what, sizeof what, "%s %llux%llu g%u n=%d x=%s path=%d bias=%d: status %d (%s), y[%zu] = %.9g, cpu %.9g",
                                 srt_format_name(f), (unsigned long long)rows, (unsigned long long)cols, group, n, srt_format_name(xf),
                                 is_int ? (int)paths[pi] : 0, wb, (int)st, srt_sycl_last_error(gpu), bad, got[bad], want[bad]);
                        CHECK(0, "%s", what);
                        ok_all = 0;
                    }
                }
        }
    if (ok_all)
        CHECK(1, "%s %llu x %llu group %u: %s equal the CPU reference bit for bit (1/3/9 tokens, f32/f16/bf16 activations, bias)",
              srt_format_name(f), (unsigned long long)rows, (unsigned long long)cols, group,
              is_int ? "fused GEMV, GEMM and K-split GEMM" : "the float kernel");
    if (f == SRT_Q8 && rows == 37) {   /* the DPAS path: exact where it exists, refused cleanly where not */
        std::vector<float> x(3 * cols), ref(3 * rows), got(3 * rows);
        for (size_t i = 0; i < x.size(); i++) x[i] = srt_test_frand();
        srt_matmul(NULL, SRT_ISA_PORTABLE, f, group, (const void *const *)pp, rows, cols, 3, x.data(), ref.data());
        srt_status st = srt_sycl_matmul(gpu, f, group, (const void *const *)pp, rows, cols, 3, x.data(), SRT_F32, NULL, got.data(), SRT_SYCL_PATH_DPAS);
        if (st == SRT_ERR_UNSUPPORTED) CHECK(1, "DPAS path: refused with SRT_ERR_UNSUPPORTED on this build/device (%s)", srt_sycl_last_error(gpu));
        else CHECK(st == SRT_OK && memcmp(got.data(), ref.data(), ref.size() * sizeof(float)) == 0, "DPAS (joint_matrix) Q8 GEMM equals the CPU reference");
    }
}

/* ---------------------------------------------------------------- models */


static void check_models(void) {
    int32_t prompt[40];
    for (int i = 0; i < 40; i++) prompt[i] = 3 + (i * 37 + 11) % 256;
    prompt[0] = 1;
    struct { const char *tag, *arch; srt_format f; int E, F, L, H, KVH, hd, rd, llama3, biases; } cfg[] = {
        {"llama q8 gqa", "llama", SRT_Q8, 64, 96, 2, 4, 2, 16, 16, 0, 0},
        {"llama q4", "llama", SRT_Q4, 64, 96, 2, 4, 2, 16, 16, 0, 0},
        {"llama q2", "llama", SRT_Q2, 64, 96, 2, 4, 1, 16, 16, 0, 0},
        {"llama tq", "llama", SRT_TQ, 64, 96, 2, 4, 4, 16, 16, 0, 0},
        {"llama q1", "llama", SRT_Q1, 64, 96, 2, 4, 2, 16, 16, 0, 0},
        {"llama f16 llama3-rope", "llama", SRT_F16, 64, 96, 2, 4, 2, 16, 16, 1, 0},
        {"llama bf16 rope_dim<head_dim", "llama", SRT_BF16, 96, 160, 2, 3, 1, 32, 16, 0, 0},
        {"qwen2 q8 biases neox", "qwen2", SRT_Q8, 64, 128, 2, 4, 2, 16, 16, 0, 1},
        {"qwen2 f32 biases neox", "qwen2", SRT_F32, 64, 128, 2, 4, 2, 16, 16, 0, 1},
        {"qwen3 q8 q/k norms, head_dim 32 (Q != E)", "qwen3", SRT_Q8, 64, 96, 2, 4, 2, 32, 32, 0, 0},
    };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        char path[256], tag[160];
        snprintf(path, sizeof path, "build/tmp/sycl_model_%zu.srt", c);
        if (!write_model(path, cfg[c].arch, cfg[c].f, cfg[c].E, cfg[c].F, cfg[c].L, cfg[c].H, cfg[c].KVH, cfg[c].hd, cfg[c].rd,
                         cfg[c].llama3, cfg[c].biases, 100 + c)) { CHECK(0, "%s: write model: %s", cfg[c].tag, srt_last_error()); continue; }
        snprintf(tag, sizeof tag, "%s, f16 KV", cfg[c].tag);
        compare_sessions(tag, path, prompt, 40, 16, SRT_KV_F16, 12);
        if (c == 0) {
            srt_model *cpu = NULL, *dev = NULL;
            check_state(cfg[c].tag, path, prompt, SRT_KV_F16);
            check_spec(cfg[c].tag, path, prompt, 9, SRT_KV_F16);   /* refused: no forward_rows */
            if (load_pair(cfg[c].tag, path, &cpu, &dev)) {   /* this backend has no Q8 KV cache */
                srt_session_desc sd;
                srt_session *q = NULL;
                memset(&sd, 0, sizeof sd);
                sd.kv_type = SRT_KV_Q8;
                CHECK(srt_session_create(dev, &sd, &q) == SRT_ERR_UNSUPPORTED && !q && strstr(srt_last_error(), "Q8"),
                      "a Q8 KV cache on SYCL is refused: %s", srt_last_error());
            }
            srt_model_free(cpu); srt_model_free(dev);
        }
        if (c == 0 || c == 7) {
            snprintf(tag, sizeof tag, "%s, f32 KV, batch 1", cfg[c].tag);
            compare_sessions(tag, path, prompt, 9, 1, SRT_KV_F32, 6);
            snprintf(tag, sizeof tag, "%s, batch 40", cfg[c].tag);
            compare_sessions(tag, path, prompt, 40, 40, SRT_KV_F16, 4);
        }
    }
}

int main(void) {
    const char *env = getenv("SRT_SYCL_DEVICE");
    if (system("mkdir -p build/tmp") != 0) { CHECK(0, "mkdir build/tmp"); return srt_test_finish(); }
    gpu_name = "sycl";
    gpu = srt_sycl_backend(env ? atoi(env) : 0);
    if (!gpu) { CHECK(0, "srt_sycl_backend: out of memory"); return srt_test_finish(); }
    printf("# SYCL: %s\n", srt_sycl_info(gpu));
    {
        srt_model *m = NULL;
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.backend = gpu;
        if (strcmp(gpu->name, "sycl: no device") == 0) {
            CHECK(write_model("build/tmp/sycl_nodev.srt", "llama", SRT_Q8, 32, 64, 1, 2, 1, 16, 16, 0, 0, 1) &&
                  srt_model_load("build/tmp/sycl_nodev.srt", &md, &m) == SRT_ERR_UNSUPPORTED && !m,
                  "no SYCL device: srt_model_load fails with SRT_ERR_UNSUPPORTED: %s", srt_last_error());
            srt_backend_free(gpu);
            return srt_test_finish();
        }
    }
    {
        srt_model *m = NULL;
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.backend = gpu;
        CHECK(write_model("build/tmp/sycl_sparse.srt", "llama", SRT_SB_Q8, 32, 64, 1, 2, 1, 16, 16, 0, 0, 1) &&
              srt_model_load("build/tmp/sycl_sparse.srt", &md, &m) == SRT_ERR_UNSUPPORTED && !m && strstr(srt_last_error(), "sb-q8"),
              "a model in a sparse format is refused by the SYCL backend: %s", srt_last_error());
    }
    {
        const srt_format fs[] = {SRT_F32, SRT_F16, SRT_BF16, SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_Q1};
        for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
            const int is_int = fs[i] >= SRT_Q8;
            check_kernels(fs[i], 37, 100, is_int ? 32 : 0);
            check_kernels(fs[i], 16, 64, is_int ? 64 : 0);
            check_kernels(fs[i], 21, 1100, is_int ? 32 : 0);    /* 35 groups: several batches of the GEMV */
            if (is_int) {
                check_kernels(fs[i], 50, 300, 96);
                check_kernels(fs[i], 33, 1000, 1024);             /* one group per row */
            }
        }
    }
    check_models();
    check_stories();
    srt_backend_free(gpu);
    return srt_test_finish();
}
