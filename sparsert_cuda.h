/* sparsert_cuda.h - CUDA backend of sparsert.h: low-bit GEMV/GEMM and the whole transformer forward
   pass on an NVIDIA GPU (written for Ampere and Hopper: sm_80, sm_90; any GPU with dp4a works).

   HOW TO USE
     In one .cu file compiled by nvcc (-fmad=false, no fast-math: see EXACTNESS):
         #define SPARSERT_CUDA
         #include "sparsert_cuda.h"
     and link with -lcublas. The rest of the app (C or C++, any compiler) includes sparsert.h with
     SPARSERT_IMPLEMENTATION in one file as usual, and sparsert_cuda.h (without SPARSERT_CUDA)
     where it needs the declarations below. Then:
         srt_backend *gpu = srt_cuda_backend(0);     // CUDA device 0
         srt_model_desc md = {0};
         md.backend = gpu;                           // weights are uploaded once by srt_model_load
         srt_model_load("model.srt", &md, &model);   // sessions, feed, next: as on the CPU
         ...
         srt_model_free(model); srt_backend_free(gpu);
     `./build.sh cuda` builds tests/test_cuda.cu this way (build/test-cuda) and runs it. ./build.sh
     also builds the same test against a CPU emulator of the CUDA runtime (tests/cuda_emu,
     SRT_CUDA_EMULATOR: build/test-cuda-emu), which runs every kernel without a GPU.

   WHAT RUNS ON THE DEVICE
     Every forward batch: embedding lookup, RMSNorm, q/k/v (+ biases), RoPE (both pairings; the
     angles come from the core, so llama3/linear scaling are exactly the CPU's), the KV cache
     (f32, f16 or q8; q8 scores are integer dot products with q quantized once per token and
     head, as the CPU's) and attention with grouped-query heads, the output projection, SwiGLU FFN,
     residuals, the final norm and the output matrix. Only the last token's logits are copied back
     (the last n_logits tokens' for forward_rows: speculative decoding's checks); sampling stays on
     the CPU. Weights live in plain device memory (cudaMalloc), uploaded once;
     parts shared by two tensors (tied embeddings) once.
     Matrix products read the weights in the layouts of formats/LAYOUTS.md, unchanged:
     - GEMV (one token): a quantization pass (int8 codes + one scale per token and group, the
       CPU's), then one block of 256 threads per 16-row tile and token, the codes brought into
       shared memory a window at a time, the weights staged there by cp.async a window ahead. A
       thread reads 16 bytes of a 64-byte chunk (4 rows) and
       sums codes x int8 activations with __dp4a: Q8 words go to dp4a as they are, 4/2/1-bit codes
       are masked out of the word one step at a time (value = mul * code - off, so sum(value * q) =
       mul * sum(code * q) - off * sum(q), exact). The int32 sums of the threads that share a group
       are combined with shared-memory atomics (integer addition: exact in any order), then the
       reference epilogue y = fma(acc_g, scale_g * dx_g, y) in group order, + bias.
     - GEMM (a prompt batch): the same kernel with 4 tokens per block: each weight word is read
       and decoded once for the 4 tokens; or, from 16 tokens where tokens x rows >= 196608 (below
       that it was slower on the H200), srt__cu_gemm_mma: 4 tiles x 16/32/64 tokens a block, the
       codes as s8 values (mul * code - off) summed exactly by mma.sync m16n8k32 s8 on the tensor
       cores, the same epilogue in group order (bit for bit the same result).
     - F32/F16/BF16 weights: 16 lanes per row, lane j summing elements k = j mod 16 with fma, the
       lanes reduced by halves (shuffles): the CPU reference dot product, for up to 4 tokens per
       weight read.
     - cuBLAS (float weights only): cublasGemmEx with f32 accumulation (CUBLAS_COMPUTE_32F). F16 and
       BF16 weights need activations of the same type: x is split into hi + lo halves of that type
       and both are multiplied (error ~2^-16 relative instead of 2^-9; F16 needs |x| < 65504). Not
       bit-exact: within about 1e-5 of sum |w x| per output. The forward pass uses it for batches
       of at least srt_cuda_set_cublas_min_tokens() tokens (default 32; 0 = never).
     - TCSL weights (Tiled-CSL f16, srt-pack --sparse-format tcsl): Flash-LLM's SpMM for any number
       of tokens (section "TCSL" below): each tile's non-zeros loaded compactly, the dense tile
       rebuilt in shared memory, multiplied with mma.sync on the tensor cores (f16 activations,
       f32 sums): within f16 tolerance of the CPU reference, not bit-exact.
     Decode (one token) runs as a CUDA graph, captured once per session (with and without the
     logits): the position lives in a small device struct copied before each launch, and every
     kernel reads it there, so one graph serves every step. If capture fails the plain launches
     run. Prompt batches use plain launches. SRT_CUDA_GRAPHS=0 turns graphs off; SRT_CUDA_SYNC=1
     synchronizes after every kernel and names the one that failed (debugging); SRT_CUDA_SPLIT_K=N
     sets srt_cuda_set_split_k (0 keeps the TCSL SpMM to one pass: each block writes its outputs);
     SRT_CUDA_PDL=0 launches the GEMV and the SpMM plainly, not as programmatic dependents
     (compute capability 9.0 on: they read their first weights while the kernel before finishes);
     SRT_CUDA_GEMV_BLOCKS=N gives a GEMV launch at most N blocks per token block, each taking
     tiles in turn (tests; a tuning experiment: see the GEMV); SRT_CUDA_MMA_MIN=N runs integer
     GEMMs of N tokens and more on the tensor cores whatever their shape (0: never; tests).
     Fusions, because a decode step of a large model is hundreds of small launches and each costs
     a gap on the GPU: every matrix product adds into the residual itself (x += W x: no add
     kernel); RoPE and the KV-cache store are one kernel; and where the GEMV serves (one token,
     integer weights of one format and group) q, k and v are one launch, and gate, up and SwiGLU
     another, the RMSNorm before each writing the GEMV's quantized input itself; TCSL products over
     the same x convert it to f16 once. Attention is two launches where the head size allows
     (srt__cu_attend). An integer layer is then 11 launches (4 GEMVs for its 7 matrices, 2 norms,
     2 quantizations, RoPE + KV store, 2 attention), a TCSL one 24 (with split-K;
     srt_cuda_last_step_kernels counts them).

   EXACTNESS
     Integer sums are exact and every float operation is done in the CPU reference's order, so
     all paths but cuBLAS and TCSL equal the CPU's results bit for bit: compile with -fmad=false (no
     contraction of a * b + c into fma; explicit fmaf stays fused) and without fast-math (nvcc's
     defaults -prec-div=true -prec-sqrt=true give IEEE division and square root).

   LIMITS
     One device per backend, one stream; sessions of one backend take turns (a mutex). The
     session observer is not called with a backend. The CPU's sparse formats (sb-bf16, sb-q8, sb-q4,
     s4x1) have no CUDA kernels: a model using them is refused at load (SRT_ERR_UNSUPPORTED); TCSL
     is the GPU's sparse format (token_embd must stay dense: the lookup reads rows).

   LICENSE
     MIT, as sparsert.h.
*/
#ifndef SPARSERT_CUDA_H
#define SPARSERT_CUDA_H
#include "sparsert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend on CUDA device `device` (0 = the first). NULL only when out of host memory: a device
   that cannot be opened (none, no driver) makes srt_model_load fail with the reason and
   SRT_ERR_UNSUPPORTED; srt_cuda_info says it too. Free with srt_backend_free. */
SRT_API srt_backend *srt_cuda_backend(int device);
/* One line: CUDA runtime and driver versions, device name, compute capability, SMs, memory; or why
   there is no device. */
SRT_API const char *srt_cuda_info(srt_backend *b);
/* Message of the last failed srt_cuda_matmul / srt_cuda_bench_matmul / srt_cuda_bench_read on this
   backend ("" if none). */
SRT_API const char *srt_cuda_last_error(srt_backend *b);
/* Float-weight batches of at least n tokens go to cuBLAS in the forward pass (default 32; 0 = never,
   so that every result equals the CPU's bit for bit). */
SRT_API void srt_cuda_set_cublas_min_tokens(srt_backend *b, int n);
/* TCSL split-K: products whose row tiles x token blocks would give fewer than n blocks per SM are
   split along K until they give about that many (each split a partial sum, added in split order by
   a second kernel); 0 = never split. Default SRT_CUDA_SPLIT_K from the environment, else 8. */
SRT_API void srt_cuda_set_split_k(srt_backend *b, int blocks_per_sm);
/* 1 if the last forward step on this backend replayed its captured CUDA graph, else 0 (prompt
   batches, SRT_CUDA_GRAPHS=0, or a capture that failed: the decode step then launches plainly). */
SRT_API int srt_cuda_last_step_graph(srt_backend *b);
/* Kernels the last forward step on this backend launched, cuBLAS products counted as one each (a
   decode step replayed from its CUDA graph: the graph's); 0 before the first. The decode step's
   launch overhead grows with it: benchmarks report it, tests pin the fusions down with it. */
SRT_API int srt_cuda_last_step_kernels(srt_backend *b);

/* Kernel paths of srt_cuda_matmul (tests and benchmarks); AUTO is what the forward pass does. */
typedef enum srt_cuda_path {
    SRT_CUDA_PATH_AUTO = 0,     /* integer: GEMV for n = 1, else GEMM; float: cuBLAS from the min tokens on, else the float kernel */
    SRT_CUDA_PATH_GEMV = 1,     /* integer: the fused-quantization kernel, one block per (tile, token); float: the float kernel */
    SRT_CUDA_PATH_GEMM = 2,     /* integer: quantization pass + register-blocked kernel; float: the float kernel */
    SRT_CUDA_PATH_CUBLAS = 3,   /* float weights only (F32, F16, BF16): cublasGemmEx; integer formats: SRT_ERR_UNSUPPORTED */
    SRT_CUDA_PATH_CUBLAS_F16 = 4 /* F16 weights only: activations rounded to f16, one f16 cublasGemmEx (f32 sums): the
                                    baseline the TCSL SpMM is measured against. TCSL weights take every path but the two cuBLAS ones. */
} srt_cuda_path;
/* y[t * rows + r] = W[r] . x[t] (+ bias[r]) for t < n on the device, as srt_matmul on the CPU.
   Host pointers in and out (uploaded and freed in the call); bias may be NULL. */
SRT_API srt_status srt_cuda_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                   uint64_t rows, uint64_t cols, int n, const float *x, const float *bias, float *y,
                                   srt_cuda_path path);
/* Times the same product with weights and activations already on the device (uploaded before the
   timing, freed after): a warm-up call, then at least `iters` calls between two CUDA events;
   *ms_per_call = elapsed / calls. The weights are uploaded in as many copies as make twice the L2
   cache (at most 64, fewer when memory runs out) and the calls cycle through them, so that they
   are read from device memory as a model's layers are: weight bytes / time = the kernel's bandwidth.
   The calls run as a CUDA graph of one call per copy, replayed (as the decode step runs: no host
   launch cost between kernels); with SRT_CUDA_GRAPHS=0, or if the capture fails, as plain launches. */
SRT_API srt_status srt_cuda_bench_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                         uint64_t rows, uint64_t cols, int n, srt_cuda_path path, int iters,
                                         double *ms_per_call);
/* Device read bandwidth, the roofline the kernels are compared to: allocates `bytes` (rounded down
   to 16) of device memory, fills it, then times `iters` runs (after one warm-up) of a read kernel
   (16-byte loads, grid-stride, 8 blocks of 256 threads per SM, the words XORed into one value per
   block that is written out) between two CUDA events; *gb_per_s = bytes x iters / time / 1e9.
   Use a buffer far larger than the L2 cache (4 GB). SRT_ERR_UNSUPPORTED without a device (the
   reason in srt_cuda_last_error), SRT_ERR_OUT_OF_MEMORY when the buffer does not fit. */
SRT_API srt_status srt_cuda_bench_read(srt_backend *b, uint64_t bytes, int iters, double *gb_per_s);

#ifdef __cplusplus
}
#endif
#endif /* SPARSERT_CUDA_H */

/* ================================================================================================
   Implementation (only with SPARSERT_CUDA, in a .cu file compiled by nvcc)
   ================================================================================================ */
#ifdef SPARSERT_CUDA
#ifndef SPARSERT_CUDA_DONE
#define SPARSERT_CUDA_DONE
#if !defined(__CUDACC__) && !defined(SRT_CUDA_EMULATOR)
#  error "sparsert_cuda.h: SPARSERT_CUDA needs nvcc (a .cu file compiled by nvcc -fmad=false)"
#endif
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <algorithm>
#include <cfloat>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <vector>

/* ---------------------------------------------------------------- device helpers */
/* f16 -> f32 is exact in hardware; f32 -> f16/bf16 round to nearest even in integer operations
   (the core's srt_f32_to_f16 / srt_f32_to_bf16, NaN included). */
static __device__ __forceinline__ float srt__cu_f16(uint16_t h) { return __half2float(__ushort_as_half(h)); }
static __device__ __forceinline__ float srt__cu_bf16(uint16_t h) { return __uint_as_float((uint32_t)h << 16); }
static __device__ uint16_t srt__cu_to_f16(float f) {
    uint32_t x = __float_as_uint(f), sign, man;
    int exp;
    sign = (x >> 16) & 0x8000u;
    exp = (int)((x >> 23) & 0xff);
    man = x & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    exp = exp - 127 + 15;
    if (exp >= 0x1f) return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) {
        uint32_t m, shift, r, halfway;
        if (exp < -10) return (uint16_t)sign;
        m = man | 0x800000u;
        shift = (uint32_t)(14 - exp);
        r = m >> shift;
        halfway = 1u << (shift - 1);
        if ((m & ((1u << shift) - 1)) > halfway || ((m & ((1u << shift) - 1)) == halfway && (r & 1))) r++;
        return (uint16_t)(sign | r);
    } else {
        uint32_t r = ((uint32_t)exp << 10) | (man >> 13), rest = man & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
}
static __device__ uint16_t srt__cu_to_bf16(float f) {
    uint32_t x = __float_as_uint(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);   /* NaN stays NaN */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
/* weight element as f32: FM 0 = f32, 1 = f16, 2 = bf16 */
template <int FM> static __device__ __forceinline__ float srt__cu_ld(const uint8_t *p, uint64_t i) {
    if (FM == 0) return ((const float *)p)[i];
    if (FM == 1) return srt__cu_f16(((const uint16_t *)p)[i]);
    return srt__cu_bf16(((const uint16_t *)p)[i]);
}
/* the core's srt__expf: the same polynomial and operations */
static __device__ float srt__cu_expf(float x) {
    float n, r, p;
    x = x < 88.0f ? x : 88.0f;
    x = x > -87.0f ? x : -87.0f;
    n = fmaf(x, 1.44269504f, 12582912.0f) - 12582912.0f;
    r = fmaf(n, -0.693145752f, x);
    r = fmaf(n, -1.42860677e-6f, r);
    p = fmaf(1.0f / 720.0f, r, 1.0f / 120.0f);
    p = fmaf(p, r, 1.0f / 24.0f);
    p = fmaf(p, r, 1.0f / 6.0f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    return p * __uint_as_float((uint32_t)((int32_t)n + 127) << 23);
}
/* the core's srt__act_code: round half away from zero, NaN -> 0, clamped to [-127, 127] */
static __device__ __forceinline__ int srt__cu_act_code(float v) {
    if (!(v == v)) return 0;
    if (v >= 127.0f) return 127;
    if (v <= -127.0f) return -127;
    return (int)roundf(v);
}
/* Integer formats (formats/LAYOUTS.md): bits per code, columns per chunk, and value = mul * code - off. */
template <int F> struct srt__cu_fmt {
    static constexpr int bits = F == SRT_Q8 ? 8 : F == SRT_Q4 ? 4 : F == SRT_Q1 ? 1 : 2;
    static constexpr int per_byte = 8 / bits;
    static constexpr int kstep = 4 * per_byte;
    static constexpr uint32_t lane_mask = F == SRT_Q8 ? 0xffffffffu : F == SRT_Q4 ? 0x0f0f0f0fu : F == SRT_Q1 ? 0x01010101u : 0x03030303u;
    static constexpr int mul = F == SRT_Q2 || F == SRT_Q1 ? 2 : 1;
    static constexpr int off = F == SRT_Q4 ? 8 : F == SRT_Q2 ? 3 : F == SRT_Q8 ? 0 : 1;
};
/* Chunk step s of a weight word: the codes of 4 columns as bytes (Q8: the signed codes themselves). */
template <int F> static __device__ __forceinline__ int srt__cu_codes(uint32_t word, int s) {
    typedef srt__cu_fmt<F> fm;
    return F == SRT_Q8 ? (int)word : (int)((word >> (s * fm::bits)) & fm::lane_mask);
}

/* ---------------------------------------------------------------- state */
/* A weight matrix on the device. */
struct srt__cuda_mat {
    srt_format format;
    uint32_t group;
    uint64_t rows, cols;
    const uint8_t *v;        /* values part (float formats: the elements) */
    const uint16_t *sc;      /* scales part (integer formats) */
    uint64_t kp, chunks, ng, tiles;
    const uint32_t *toff;    /* TCSL: tile offsets (v = the words); tm x tk tiles of 64 x 64 */
    uint64_t tm, tk;
};
struct srt__cuda {
    srt_backend b;
    int device = 0;
    int sms = 0;             /* streaming multiprocessors (TCSL split-K) */
    bool ok = false;         /* device opened */
    bool graphs = true, sync_each = false;
    bool pdl = false;        /* programmatic dependent launch (compute capability 9.0 on, unless SRT_CUDA_PDL=0) */
    int gemv_blocks = 0;     /* > 0: at most this many blocks per token block of a GEMV / GEMM launch (SRT_CUDA_GEMV_BLOCKS) */
    uint64_t attn_split_launches = 0;   /* launch pairs of the attention in two launches (tests) */
    int cublas_min = 32;
    /* integer GEMMs on the tensor cores (srt__cu_gemm_mma) from mma_min tokens where tokens x rows
       >= mma_work (below that the tiled kernel was faster on the H200); SRT_CUDA_MMA_MIN=N: from N
       tokens whatever the shape (0: never) */
    int mma_min = 16;
    uint64_t mma_work = 196608;
    int split_k = 8;         /* TCSL: blocks per SM that split-K aims for (0: no split) */
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    std::string name, info, open_error;
    char last_error[512];
    std::mutex lock;
    /* first error of the current call: which operation, and the CUDA error */
    const char *fail_what = nullptr;
    cudaError_t fail_code = cudaSuccess;
    bool capturing = false;
    int kernels = 0;         /* launched (kernels and cuBLAS calls) since the current forward began */
    int step_kernels = 0;    /* those of the last forward: srt_cuda_last_step_kernels */
    bool step_graph = false; /* the last forward replayed a graph: srt_cuda_last_step_graph */
};
struct srt__cuda_layer {
    const float *attn_norm, *ffn_norm, *bq, *bk, *bv;
    const float *q_norm, *k_norm;   /* head_dim floats (qwen3) or null */
    srt__cuda_mat wq, wk, wv, wo, gate, up, down;
};
struct srt__cuda_model {
    srt__cuda *S;
    std::vector<void *> allocs;
    std::map<const void *, void *> uploaded;   /* host part -> device copy (tied embeddings share) */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim, rope_neox;
    float norm_eps;
    uint64_t max_kp, max_ng;                   /* over all matrices: scratch sizes */
    uint64_t max_tcsl_tk, max_tcsl_rows;       /* over the TCSL matrices (0: none) */
    srt__cuda_mat tok_embd, output;
    const float *output_norm;
    std::vector<srt__cuda_layer> layers;
};
/* What changes from step to step, in device memory (and a pinned host mirror): the kernels read the
   position from here, so one captured graph serves every decode step. */
struct srt__cu_step {
    int pos, n, pad0, pad1;
};
struct srt__cuda_session {
    srt__cuda_model *M;
    int n_ctx, n_batch;
    int logit_rows;          /* rows of logits a forward returns at most: min(n_batch, SRT_DRAFT_MAX + 1) */
    srt_kv_type kv_type;
    size_t kv_row;           /* bytes of one head's row: the cache is [layer][position][KV head][row] */
    unsigned char *k_cache, *v_cache;
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2, *logits, *scores;
    uint8_t *stage;          /* device: step | toks (n_batch int32) | cs (n_batch x rope_dim floats) */
    uint8_t *hstage;         /* pinned host mirror */
    size_t toks_off, cs_off, stage_bytes;
    void *ws;                /* GEMM / cuBLAS scratch for n_batch tokens */
    size_t ws_cap;
    cudaGraphExec_t graph[2];  /* decode graphs: [0] without logits, [1] with */
    bool graph_failed[2];
    int graph_kernels[2];      /* the kernels each graph holds */
};

static srt_status srt__cu_err(char *err, size_t cap, srt_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && cap) vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return st;
}
/* Records the first failure of the current call (a launch or an API call). */
static void srt__cu_note(srt__cuda *S, cudaError_t e, const char *what) {
    if (e != cudaSuccess && S->fail_code == cudaSuccess) { S->fail_code = e; S->fail_what = what; }
}
/* After a kernel launch: configuration errors at once; with SRT_CUDA_SYNC=1 (not while capturing)
   also the kernel's own errors, attributed to it. */
static void srt__cu_launched(srt__cuda *S, const char *what) {
    S->kernels++;
    srt__cu_note(S, cudaGetLastError(), what);
    if (S->sync_each && !S->capturing) srt__cu_note(S, cudaStreamSynchronize(S->stream), what);
}
static void srt__cu_reset_fail(srt__cuda *S) { S->fail_code = cudaSuccess; S->fail_what = nullptr; }
static srt_status srt__cu_fail_status(srt__cuda *S, char *err, size_t cap) {
    if (S->fail_code == cudaSuccess) return SRT_OK;
    return srt__cu_err(err, cap, S->fail_code == cudaErrorMemoryAllocation ? SRT_ERR_OUT_OF_MEMORY : SRT_ERR_UNSUPPORTED,
                       "cuda: %s: %s (%s)", S->fail_what ? S->fail_what : "?", cudaGetErrorString(S->fail_code), cudaGetErrorName(S->fail_code));
}
static __host__ __device__ __forceinline__ uint64_t srt__cu_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static __host__ __device__ __forceinline__ uint32_t srt__cu_min32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline unsigned srt__cu_blocks(uint64_t items, unsigned per) { return (unsigned)((items + per - 1) / per); }
/* Launches kernel k (grid x block threads, no dynamic shared memory) in S->stream as a programmatic
   dependent of the kernel before it (srt__cu_dep_wait) where the device has it (S->pdl), else as
   a plain launch would. */
template <class... P, class... A>
static void srt__cu_launch_pdl(srt__cuda *S, void (*k)(P...), dim3 grid, dim3 block, const char *what, A... args) {
    cudaLaunchAttribute at[1] = {};
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    const cudaLaunchConfig_t cfg = {grid, block, 0, S->stream, at, S->pdl ? 1u : 0u};   /* in the order of its fields */
    srt__cu_note(S, cudaLaunchKernelEx(&cfg, k, args...), what);
    srt__cu_launched(S, what);
}

/* ---------------------------------------------------------------- matrix kernels */
/* The PTX the GEMV and the SpMM need, one instruction per function, so that the CPU emulator of the tests
   (tests/cuda_emu, SRT_CUDA_EMULATOR) can stand in for them. */
#ifndef SRT_CUDA_EMULATOR
static __device__ __forceinline__ uint32_t srt__cu_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
/* 16 bytes global -> shared, asynchronous until srt__cu_cp_async_wait_all */
static __device__ __forceinline__ void srt__cu_cp_async16(void *smem, const void *gmem) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(srt__cu_smem_addr(smem)), "l"(gmem));
}
static __device__ __forceinline__ void srt__cu_cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
static __device__ __forceinline__ void srt__cu_cp_async_wait_all(void) { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
/* 4 bytes global -> shared (cached in L1: small operands that many blocks read) */
static __device__ __forceinline__ void srt__cu_cp_async4(void *smem, const void *gmem) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(srt__cu_smem_addr(smem)), "l"(gmem));
}
/* waits for this thread's copies of every committed group but the newest N */
template <int N> static __device__ __forceinline__ void srt__cu_cp_async_wait_group(void) { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
/* ldmatrix: 4 (2) 8 x 8 b16 matrices whose rows lanes 0-31 (0-15) point to */
static __device__ __forceinline__ void srt__cu_ldmatrix_x4(uint32_t *r, const void *smem) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(srt__cu_smem_addr(smem)) : "memory");
}
static __device__ __forceinline__ void srt__cu_ldmatrix_x2(uint32_t *r, const void *smem) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(srt__cu_smem_addr(smem)) : "memory");
}
/* d += A (16 x 16 f16, row) x B (16 x 8 f16, col), f32 sums */
static __device__ __forceinline__ void srt__cu_mma(float *d, const uint32_t *a, uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
/* d += A (16 x 32 s8, row) x B (32 x 8 s8, col), s32 sums (exact) */
static __device__ __forceinline__ void srt__cu_mma_s8(int *d, const uint32_t *a, uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif
/* Programmatic dependent launch (sm_90; a no-op before, and on the emulator): a kernel launched
   with srt__cu_launch_pdl may start while the kernel before it still runs, once that one's blocks
   have all called srt__cu_dep_launch. Until srt__cu_dep_wait (which returns when the kernel before
   has finished and its writes are visible) it may only read what no kernel writes (weights) and
   write nothing. The GEMV streams its first weights in that time: the quantization pass before it
   is a few microseconds of latency that the weight reads then overlap. */
static __device__ __forceinline__ void srt__cu_dep_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void srt__cu_dep_launch(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
/* GEMV: a block takes items (a tile of 16 rows of one matrix; SWIGLU: a tile of gate and the same
   tile of up) x one token (the GEMM: x SRT__CU_GEMM_TB tokens), items blockIdx.x + i gridDim.x:
   one item each, or with SRT_CUDA_GEMV_BLOCKS=N at most N blocks (srt__cu_int_matmul). 256
   threads = 64 slots x 4 row quads (thread tid: quad q = tid % 4 = rows 4q..4q+3, slot j =
   tid / 4), over activations quantized beforehand (srt__cu_quantize: codes and dx per group, once
   per launch, not again in every block: each block redoing the abs-max and the codes of the whole
   x read as many bytes as its share of a q4 matrix and serialized on shared atomics). Groups are
   taken GB at a time; slot j works on group j / S of the batch, chunks (j % S) + S i of it. Per
   batch: (1) the batch's weight scales and dx into shared memory; (2) the codes, a window at a
   time (4096 columns for one token, 8192 for the GEMM's tokens together), copied into shared
   memory (once per block when a tile is one batch of one window: every tile reads the same), and
   each thread reads 16 bytes of its chunks in the window (rows 4q..4q+3) and sums with dp4a into
   int32; (3) the threads of a group add their sums into shared memory (atomicAdd on int: exact);
   (4) 16 threads (one per row) apply the epilogue in group order.
   The first weight loads of a window (and the scales of a batch) are issued one step ahead, into
   shared memory: the next window's (of this tile or the block's next one) while this one's sums
   are added up and applied, the first window's before srt__cu_dep_wait. A block's reads then do
   not stop at each of those steps, nor between its tiles.
   On the H100, N = 3 blocks per SM (396) made the Llama-3-8B layer's GEMVs 0.51 of the bandwidth
   instead of 0.48 when timed alone, but the 8B q4 decode slower (226 against 255 tok/s in one run,
   with every other kernel launched as a dependent too): a block that starts late, its SM still
   busy with the kernel before, still has its whole share to do. Hence one item per block. */
/* Loads a thread issues before it uses them, where a loop would otherwise wait for each load in
   turn (in-order issue: a use stalls the thread until its load arrives, and the next load issues
   only after the use). A kernel whose every phase has a chain of such round trips takes
   microseconds however little it reads: the decode step is hundreds of small kernels. */
#define SRT__CU_LOADS 8
#define SRT__CU_GEMV_THREADS 256
#define SRT__CU_GEMV_SLOTS 64
#define SRT__CU_GEMV_WIN 8192   /* columns of codes in shared memory at a time (8 KB) */
#define SRT__CU_GEMV_LOADS 4    /* weight loads a thread issues before it sums them */
/* What one GEMV launch computes. STORE / ACCUM: y_m = W_m x (+ bias_m), or y_m += that (the
   residual add fused), for up to 3 matrices over the same activations (q, k and v): matrix m has
   items end[m-1] <= item < end[m]. SWIGLU: y_0 = silu(W_0 x + b_0) * (W_1 x + b_1) (gate and up
   of equal shape), an item one tile of both. The matrices share format, group and cols. */
enum { SRT__CU_STORE = 0, SRT__CU_ACCUM = 1, SRT__CU_SWIGLU = 2 };
struct srt__cu_gemv_out { float *y; const float *bias; uint64_t ldy; };
struct srt__cu_gemv_args {
    srt__cuda_mat w0, w1, w2;
    srt__cu_gemv_out o0, o1, o2;
    unsigned end0, end1, items;
    int mode;
};
/* Blocks per SM: one token, 3 (at most 80 registers; 45 KB of shared memory each): while a block
   sums up a batch and waits at its barriers, the others' reads keep the memory busy (on the H100,
   timed as a graph, 3 gave the Llama-3-8B layer 0.48 of the bandwidth and 4, which spills, 0.47).
   The GEMM's TB tokens need up to 128 registers for their sums: 2. */
#define SRT__CU_GEMV_PER_SM(TB) ((TB) == 1 ? 3 : 2)
template <int F, int TB>
__global__ void __launch_bounds__(SRT__CU_GEMV_THREADS, SRT__CU_GEMV_PER_SM(TB)) srt__cu_gemv_int(srt__cu_gemv_args A, const int8_t *qa, const float *da, int n, int S, int GB) {
    typedef srt__cu_fmt<F> fm;
    /* codes in shared memory at a time (one token: a 4096-column window, a q4 batch, to leave room for s_w),
       window columns per token, code loads per thread */
    enum { WIN = TB == 1 ? SRT__CU_GEMV_WIN / 2 : SRT__CU_GEMV_WIN, WT = WIN / TB, VPT = WIN / 16 / SRT__CU_GEMV_THREADS };
    /* weight loads in flight: one token and 4-bit or fewer codes take twice as many (a q4 group of
       64 in one round; more tokens need the registers for their sums) */
    enum { LOADS = TB == 1 && F != SRT_Q8 ? 2 * SRT__CU_GEMV_LOADS : SRT__CU_GEMV_LOADS };
    __shared__ float s_d[TB][SRT__CU_GEMV_SLOTS];
    __shared__ int s_acc[TB][SRT__CU_GEMV_SLOTS][16];
    __shared__ uint4 s_sc4[2][SRT__CU_GEMV_SLOTS * 2];   /* the weight scales of batch b in [b % 2] (16 per group) */
    __shared__ uint4 s_q4[WIN / 16];                     /* token tt's codes from uint4 tt * WT / 16 */
    __shared__ uint4 s_w[LOADS][SRT__CU_GEMV_THREADS];   /* the first weights of the next window, each thread's own */
    const uint32_t *s_q = (const uint32_t *)s_q4;
    const int tid = (int)threadIdx.x, q = tid & 3, j = tid >> 2, gl = j / S, sp = j % S;
    const bool swiglu = A.mode == SRT__CU_SWIGLU;
    /* in-tile indices in 32 bits (registers; srt__cu_upload_mat keeps kp and ng below 2^31); the
       matrices share these */
    const uint32_t G = A.w0.group, cpg = G / (uint32_t)fm::kstep, ks = (uint32_t)fm::kstep, kp = (uint32_t)A.w0.kp, ng = (uint32_t)A.w0.ng,
                   chunks = (uint32_t)A.w0.chunks;
    const uint64_t t0 = (uint64_t)blockIdx.y * TB;
    const int nt = (int)srt__cu_min((uint64_t)n - t0, (uint64_t)TB);
    const int8_t *qa_t = qa + t0 * kp;   /* token t0's codes and scales */
    const float *da_t = da + t0 * ng;
    /* The block's units in turn: unit u is item blockIdx.x + (u / per) gridDim.x (per = 2 for
       SWIGLU: gate, then up); its matrix m and tile. false past the last. */
    const int per = swiglu ? 2 : 1;
    const auto unit_at = [&](unsigned u, int *m, uint64_t *tile) {
        const unsigned item = blockIdx.x + u / (unsigned)per * gridDim.x;
        if (item >= A.items) return false;
        if (swiglu) { *m = (int)(u % 2u); *tile = item; }
        else { *m = item < A.end0 ? 0 : item < A.end1 ? 1 : 2; *tile = item - (*m == 0 ? 0u : *m == 1 ? A.end0 : A.end1); }
        return true;
    };
    /* a unit's weights (this quad's 16 bytes of chunk cu: wt[4 cu]) and scales (selects, not a
       dynamic index into the parameters) */
    const auto weights_of = [&](int m, uint64_t tile) {
        const uint8_t *v = m == 0 ? A.w0.v : m == 1 ? A.w1.v : A.w2.v;
        return (const uint4 *)(v + tile * chunks * 64) + q;
    };
    const auto scales_of = [&](int m, uint64_t tile) { return (m == 0 ? A.w0.sc : m == 1 ? A.w1.sc : A.w2.sc) + tile * ng * 16; };
    /* The span of this thread's chunks in the window from column w0 of the batch from group g0:
       c, c + S, ... < hi (none when its group is past the batch); the batch's groups (gn) and the
       end of its chunks in columns (kc1 <= kp). */
    struct span { uint32_t c, hi, kc1; int gn; };
    const auto span_of = [&](uint32_t g0, uint32_t w0) {
        span s;
        s.gn = (int)srt__cu_min32(ng - g0, (uint32_t)GB);
        s.kc1 = srt__cu_min32((g0 + (uint32_t)s.gn) * cpg, chunks) * ks;
        const uint32_t g = g0 + (uint32_t)gl, lo = w0 / ks;
        s.hi = gl < s.gn ? srt__cu_min32(srt__cu_min32((g + 1) * cpg, chunks), srt__cu_min32(s.kc1, w0 + WT) / ks) : 0u;
        s.c = g * cpg + (uint32_t)sp;
        if (s.c < lo) s.c += (lo - s.c + (uint32_t)S - 1) / (uint32_t)S * (uint32_t)S;
        return s;
    };
    /* chunks c, c + S, ... (LOADS of them, those below hi) into this thread's slots of s_w,
       asynchronously (cp.async: no registers held while they are in flight) */
    const auto stage_weights = [&](const uint4 *wt, uint32_t c, uint32_t hi) {
#pragma unroll
        for (int u = 0; u < LOADS; u++) {
            const uint32_t cu = c + (uint32_t)u * (uint32_t)S;
            if (cu < hi) srt__cu_cp_async16(&s_w[u][tid], wt + 4 * cu);
        }
        srt__cu_cp_async_commit();
    };
    /* the scales of the batch from group g0 into s_sc4[b] (groups past gn are not read) */
    const auto stage_scales = [&](const uint16_t *scb, uint32_t g0, int gn, int b) {
        if (tid < 2 * gn) srt__cu_cp_async16(&s_sc4[b][tid], (const uint4 *)(scb + (uint64_t)g0 * 16) + tid);
    };
    int m = 0, sb = 0;   /* the unit's matrix; the batch's s_sc4 */
    uint64_t tile = 0;
    unsigned u = 0;
    if (!unit_at(0, &m, &tile)) return;   /* (the launch has no block without an item) */
    const uint4 *wt = weights_of(m, tile);
    const uint16_t *scb = scales_of(m, tile);
    span sw = span_of(0, 0);   /* the first window: weights and scales before the wait */
    /* a tile of one batch of one window: every unit reads the same codes and dx, loaded once */
    const bool one_window = (int)ng <= GB && sw.kc1 <= (uint32_t)WT;
    bool have_codes = false;
    stage_scales(scb, 0, sw.gn, 0);
    stage_weights(wt, sw.c, sw.hi);
    srt__cu_dep_wait();
    float gate = 0.0f;   /* SWIGLU: the gate tile's sum, until the up tile's */
    for (;;) {
        float yv = 0.0f;
        for (uint32_t g0 = 0; g0 < ng; g0 += (uint32_t)GB) {
            const int gn = sw.gn;
            const uint32_t kc1 = sw.kc1;
            int acc[TB][4];
#pragma unroll
            for (int tt = 0; tt < TB; tt++) acc[tt][0] = acc[tt][1] = acc[tt][2] = acc[tt][3] = 0;
            for (uint32_t w0 = g0 * G; w0 < kc1; w0 += WT) {   /* window starts are multiples of 32 columns */
                /* sw: this window's span, its first weights staged (a step ahead) */
                const uint32_t hi = sw.hi;
                uint32_t c = sw.c;
                if (!have_codes) {
                    float dv[TB] = {};
                    if (w0 == g0 * G)
#pragma unroll
                        for (int tt = 0; tt < TB; tt++) dv[tt] = tid < gn && tt < nt ? da_t[(uint64_t)tt * ng + g0 + (uint32_t)tid] : 0.0f;
                    uint4 v[VPT];
                    {   /* the window's codes, 16 bytes per load, all of a thread's loads in flight (rows of codes
                           are kp = a multiple of 32 long, so rounding the window up to 16 stays inside them);
                           tokens past nt get zeros */
                        const int nv = (int)((srt__cu_min32(kc1, w0 + WT) - w0 + 15) / 16);
#pragma unroll
                        for (int e0 = 0; e0 < VPT; e0++) {
                            const int e = tid + e0 * SRT__CU_GEMV_THREADS, tt = e / (WT / 16), i = e % (WT / 16);
                            v[e0] = make_uint4(0u, 0u, 0u, 0u);
                            if (tt < nt && i < nv) v[e0] = __ldg((const uint4 *)(qa_t + (uint64_t)tt * kp + w0) + i);
                        }
                    }
                    if (w0 == g0 * G && tid < gn)
#pragma unroll
                        for (int tt = 0; tt < TB; tt++) s_d[tt][tid] = dv[tt];
#pragma unroll
                    for (int e0 = 0; e0 < VPT; e0++) s_q4[tid + e0 * SRT__CU_GEMV_THREADS] = v[e0];
                    have_codes = one_window;
                }
                if (w0 == g0 * G)   /* a batch's first window: its zeroed sums */
                    for (int e = tid; e < TB * SRT__CU_GEMV_SLOTS * 16; e += SRT__CU_GEMV_THREADS) (&s_acc[0][0][0])[e] = 0;
                srt__cu_cp_async_wait_all();   /* this thread's staged weights and scales */
                __syncthreads();   /* the codes, scales, dx and zeroed sums in place */
                while (c < hi) {
                    /* a round: LOADS chunks staged in s_w together (that many 16-byte reads in flight
                       per thread, not one: memory-level parallelism is what a GEMV at HBM speed
                       needs), then their sums; the first round's were staged a step ahead */
                    srt__cu_cp_async_wait_all();
#pragma unroll
                    for (int e0 = 0; e0 < LOADS; e0++) {
                        const uint32_t cu = c + (uint32_t)e0 * (uint32_t)S;
                        if (cu >= hi) break;
                        const uint4 wu = s_w[e0][tid];
                        const uint32_t ww[4] = {wu.x, wu.y, wu.z, wu.w};
                        const uint32_t *xw = s_q + (cu * ks - w0) / 4;   /* token tt's words from xw + tt * WT / 4 */
                        if (F == SRT_Q8) {
#pragma unroll
                            for (int tt = 0; tt < TB; tt++) {
                                const int xq = (int)xw[tt * (WT / 4)];
#pragma unroll
                                for (int r = 0; r < 4; r++) acc[tt][r] = __dp4a((int)ww[r], xq, acc[tt][r]);
                            }
                        } else {   /* the codes of a word decoded once for the TB tokens */
                            int a[TB][4], qs[TB];
#pragma unroll
                            for (int tt = 0; tt < TB; tt++) { qs[tt] = 0; a[tt][0] = a[tt][1] = a[tt][2] = a[tt][3] = 0; }
#pragma unroll
                            for (int st = 0; st < fm::per_byte; st++) {
                                int xq[TB];
#pragma unroll
                                for (int tt = 0; tt < TB; tt++) { xq[tt] = (int)xw[tt * (WT / 4) + st]; qs[tt] = __dp4a(xq[tt], 0x01010101, qs[tt]); }
#pragma unroll
                                for (int r = 0; r < 4; r++) {
                                    const int cw = srt__cu_codes<F>(ww[r], st);
#pragma unroll
                                    for (int tt = 0; tt < TB; tt++) a[tt][r] = __dp4a(cw, xq[tt], a[tt][r]);
                                }
                            }
#pragma unroll
                            for (int tt = 0; tt < TB; tt++)
#pragma unroll
                                for (int r = 0; r < 4; r++) acc[tt][r] += fm::mul * a[tt][r] - fm::off * qs[tt];
                        }
                    }
                    c += LOADS * (uint32_t)S;
                    if (c < hi) stage_weights(wt, c, hi);   /* the slots are this thread's own: no barrier */
                }
                /* one step ahead: the next window's first weights (the next batch's scales too, and
                   the block's next unit's after its last) */
                if (w0 + WT < kc1) {
                    sw = span_of(g0, w0 + WT);
                    stage_weights(wt, sw.c, sw.hi);
                } else if (g0 + (uint32_t)GB < ng) {
                    sw = span_of(g0 + (uint32_t)GB, (g0 + (uint32_t)GB) * G);
                    stage_scales(scb, g0 + (uint32_t)GB, sw.gn, sb ^ 1);
                    stage_weights(wt, sw.c, sw.hi);
                } else {
                    int m2;
                    uint64_t tile2;
                    if (unit_at(u + 1, &m2, &tile2)) {
                        sw = span_of(0, 0);
                        stage_scales(scales_of(m2, tile2), 0, sw.gn, sb ^ 1);
                        stage_weights(weights_of(m2, tile2), sw.c, sw.hi);
                    }
                }
                if (!have_codes) __syncthreads();   /* the window's codes are read before the next window overwrites them */
            }
#pragma unroll
            for (int tt = 0; tt < TB; tt++)
#pragma unroll
                for (int r = 0; r < 4; r++) if (acc[tt][r]) atomicAdd(&s_acc[tt][gl][4 * q + r], acc[tt][r]);
            __syncthreads();
            if (tid < 16 * TB) {   /* the reference epilogue, in group order, from shared memory (8 groups' operands read at a time) */
                const int tt = tid >> 4, row = tid & 15;
                const uint16_t *s_sc = (const uint16_t *)s_sc4[sb];
                for (int g8 = 0; g8 < gn; g8 += 8) {
                    float a[8], mm[8];
#pragma unroll
                    for (int e0 = 0; e0 < 8; e0++)
                        if (g8 + e0 < gn) { a[e0] = (float)s_acc[tt][g8 + e0][row]; mm[e0] = srt__cu_f16(s_sc[(g8 + e0) * 16 + row]) * s_d[tt][g8 + e0]; }
#pragma unroll
                    for (int e0 = 0; e0 < 8; e0++)
                        if (g8 + e0 < gn) yv = fmaf(a[e0], mm[e0], yv);
                }
            }
            __syncthreads();   /* s_acc and s_d are read before the next batch (or unit) resets them */
            sb ^= 1;
        }
        {   /* the unit's outputs: thread tid < 16 TB has token t0 + tid / 16's sum for row tile * 16 + tid % 16 */
            const uint64_t t = t0 + (uint64_t)(tid >> 4), r = tile * 16 + (uint64_t)(tid & 15);
            const uint64_t rows = m == 0 ? A.w0.rows : m == 1 ? A.w1.rows : A.w2.rows;
            const bool out = tid < 16 * TB && t < (uint64_t)n && r < rows;
            if (swiglu) {
                if (m == 0) gate = yv;
                else if (out) {   /* the SwiGLU kernel's operations, in its order */
                    const float g = gate + (A.o0.bias ? A.o0.bias[r] : 0.0f), up = yv + (A.o1.bias ? A.o1.bias[r] : 0.0f);
                    A.o0.y[t * A.o0.ldy + r] = g * (1.0f / (1.0f + srt__cu_expf(-g))) * up;
                }
            } else if (out) {
                const srt__cu_gemv_out o = m == 0 ? A.o0 : m == 1 ? A.o1 : A.o2;
                const float v = yv + (o.bias ? o.bias[r] : 0.0f);
                float *yr = o.y + t * o.ldy + r;
                *yr = A.mode == SRT__CU_ACCUM ? *yr + v : v;
            }
        }
        if (!unit_at(++u, &m, &tile)) break;   /* the next unit: its first window is staged */
        wt = weights_of(m, tile);
        scb = scales_of(m, tile);
    }
}
/* Splits per group S and groups per batch GB of the GEMV: S x GB <= 64 slots. */
static void srt__cu_gemv_split(const srt__cuda_mat &w, int kstep, int *S, int *GB) {
    const uint64_t cpg = w.group / (uint64_t)kstep, gb = srt__cu_min(w.ng, SRT__CU_GEMV_SLOTS);
    uint64_t s = SRT__CU_GEMV_SLOTS / gb;
    if (s > cpg) s = cpg;
    if (s < 1) s = 1;
    *S = (int)s;
    *GB = (int)(SRT__CU_GEMV_SLOTS / s);   /* >= gb */
    if ((uint64_t)*GB > w.ng) *GB = (int)w.ng;
}

/* The integer GEMM of prompts on the tensor cores: bit for bit the tiled kernel's result, which
   sums with dp4a, SRT__CU_GEMM_TB tokens a block, so that a prompt decodes and reads each weight
   n / SRT__CU_GEMM_TB times. Here a block takes 4 tiles (64 rows, a warp each) x BN tokens of one
   matrix (STORE or ACCUM). The weights' codes become s8 values mul * code - off (the tiled
   kernel's int sums are the same sums) and mma.sync m16n8k32 s8 x s8 -> s32 adds them up exactly,
   a group at a time; at each group's end the reference epilogue y = fma(sum, f16(scale) * dx, y)
   runs on the accumulator fragments, in group order. A stage of 64 columns comes in by cp.async,
   SRT__CU_MMA_NS - 1 stages ahead: the 4 tiles' chunks (their tiled layout), the BN tokens' codes
   (rows padded to 80 bytes: conflict-free B reads) and the scales and dx of the (at most 2) groups
   that end in it. On the H200 a block takes about 1 us per stage whatever BN (a first version
   that loaded the scales and dx at each group's end was 5-7% faster, in another call): 4 warps
   walking all of K, each warp's chain of shared loads, mma and epilogue exposed; hence the size
   rule of srt__cu_int_matmul, and more warps per tile (K split inside groups: int sums, exact)
   next. */
#define SRT__CU_MMA_KC 64
#define SRT__CU_MMA_NS 3
/* the 4 codes of set st of a weight word (srt__cu_codes) as s8 values mul * code - off (bytewise:
   small codes, no carries; Q8 codes are the values) */
template <int F> static __device__ __forceinline__ uint32_t srt__cu_vals_s8(uint32_t word, int st) {
    typedef srt__cu_fmt<F> fm;
    const uint32_t c = (uint32_t)srt__cu_codes<F>(word, st);
    if (F == SRT_Q8) return c;
    return ((c << (fm::mul - 1)) + 0x01010101u * (uint32_t)(0x80 - fm::off)) ^ 0x80808080u;
}
template <int F, int BN>
__global__ void __launch_bounds__(128) srt__cu_gemm_mma(srt__cu_gemv_args A, const int8_t *qa, const float *da, int n) {
    typedef srt__cu_fmt<F> fm;
    enum { KC = SRT__CU_MMA_KC, NS = SRT__CU_MMA_NS, NB = BN / 8, CPS = KC / fm::kstep, XS = KC + 16 };
    __shared__ __align__(16) uint8_t s_a[NS][4 * CPS * 64];   /* a stage's chunks of the 4 tiles */
    __shared__ __align__(16) uint8_t s_b[NS][BN * XS];        /* a stage's codes of the BN tokens */
    __shared__ __align__(16) uint16_t s_sc[NS][2][4][16];     /* the scales of its groups ga, ga + 1: [group][tile][row] */
    __shared__ float s_dx[NS][2][BN];                         /* their dx: [group][token] */
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const uint32_t kp = (uint32_t)A.w0.kp, ng = (uint32_t)A.w0.ng, G = A.w0.group, chunks = (uint32_t)A.w0.chunks;
    const uint64_t tiles = A.w0.tiles, tile0 = (uint64_t)blockIdx.x * 4, my_tile = tile0 + (uint64_t)warp, tok0 = (uint64_t)blockIdx.y * BN;
    const uint32_t stages = (kp + KC - 1) / KC;
    srt__cu_dep_wait();
    /* stage s: chunks [s CPS, s CPS + CPS) of each tile (those below chunks), columns [s KC, s KC + KC)
       of each token's codes (below kp), the scales and dx of groups ga = s KC / G and ga + 1 (below ng) */
    const auto issue = [&](uint32_t s) {
        if (s < stages) {
            const int b = (int)(s % NS);
            const uint32_t ga = s * KC / G;
            for (int i = tid; i < 4 * CPS * 4; i += 128) {
                const int ti = i / (CPS * 4), pc = i % (CPS * 4);
                if (tile0 + (uint64_t)ti < tiles && s * CPS + (uint32_t)(pc / 4) < chunks)
                    srt__cu_cp_async16(s_a[b] + ti * CPS * 64 + pc * 16, A.w0.v + ((tile0 + (uint64_t)ti) * chunks + (uint64_t)s * CPS) * 64 + (uint64_t)pc * 16);
            }
            for (int i = tid; i < BN * (KC / 16); i += 128) {
                const int r = i / (KC / 16), pc = i % (KC / 16);
                const uint32_t k = s * KC + (uint32_t)pc * 16;
                if (tok0 + (uint64_t)r < (uint64_t)n && k < kp) srt__cu_cp_async16(s_b[b] + r * XS + pc * 16, qa + (tok0 + (uint64_t)r) * kp + k);
            }
            if (tid < 16) {   /* a half (8 rows) of a tile's scales of a group */
                const int j = tid >> 3, ti = (tid >> 1) & 3, h = tid & 1;
                if (tile0 + (uint64_t)ti < tiles && ga + (uint32_t)j < ng)
                    srt__cu_cp_async16(&s_sc[b][j][ti][8 * h], A.w0.sc + ((tile0 + (uint64_t)ti) * ng + ga + (uint32_t)j) * 16 + (uint64_t)(8 * h));
            }
            for (int i = tid; i < 2 * BN; i += 128) {
                const int j = i / BN, r = i % BN;
                if (tok0 + (uint64_t)r < (uint64_t)n && ga + (uint32_t)j < ng) srt__cu_cp_async4(&s_dx[b][j][r], da + (tok0 + (uint64_t)r) * ng + ga + (uint32_t)j);
            }
        }
        srt__cu_cp_async_commit();
    };
    int acc[NB][4];
    float y[NB][4];
#pragma unroll
    for (int j = 0; j < NB; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) { acc[j][e] = 0; y[j][e] = 0.0f; }
    for (int s = 0; s < NS - 1; s++) issue((uint32_t)s);
    uint32_t gi = 0;   /* the group being summed */
    for (uint32_t s = 0; s < stages; s++) {
        srt__cu_cp_async_wait_group<NS - 2>();
        __syncthreads();   /* stage s in place; stage s - 1's buffers read by every warp */
        issue(s + NS - 1);
        const int b = (int)(s % NS);
        const uint32_t ga = s * KC / G;
        const uint8_t *a = s_a[b] + warp * CPS * 64, *bx = s_b[b];
#pragma unroll
        for (int kk = 0; kk < KC / 32; kk++) {
            const uint32_t k0 = s * KC + (uint32_t)kk * 32;
            if (k0 >= kp) break;
            uint32_t af[4];   /* rows g, g + 8 x columns 4t.., then 16 + 4t.. of this k-step */
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int kl = kk * 32 + 4 * t + 16 * h, c = kl / fm::kstep, st = (kl % fm::kstep) / 4;
#pragma unroll
                for (int rh = 0; rh < 2; rh++) {
                    const int r = g + 8 * rh;
                    af[2 * h + rh] = srt__cu_vals_s8<F>(*(const uint32_t *)(a + c * 64 + (r >> 2) * 16 + (r & 3) * 4), st);
                }
            }
#pragma unroll
            for (int j = 0; j < NB; j++) {
                const uint8_t *bp = bx + (8 * j + g) * XS + kk * 32 + 4 * t;
                srt__cu_mma_s8(acc[j], af, *(const uint32_t *)bp, *(const uint32_t *)(bp + 16));
            }
            if ((k0 + 32) % G == 0 || k0 + 32 >= kp) {   /* group gi ends (gi - ga is 0 or 1): the reference epilogue */
                const int jg = (int)(gi - ga);
                const float s0 = srt__cu_f16(s_sc[b][jg][warp][g]), s1 = srt__cu_f16(s_sc[b][jg][warp][g + 8]);
#pragma unroll
                for (int j = 0; j < NB; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        y[j][e] = fmaf((float)acc[j][e], (e < 2 ? s0 : s1) * s_dx[b][jg][8 * j + 2 * t + (e & 1)], y[j][e]);
                        acc[j][e] = 0;
                    }
                gi++;
            }
        }
    }
    srt__cu_cp_async_wait_all();
    if (my_tile >= tiles) return;
#pragma unroll
    for (int j = 0; j < NB; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const uint64_t row = my_tile * 16 + (uint64_t)(g + 8 * (e >> 1)), tok = tok0 + (uint64_t)(8 * j + 2 * t + (e & 1));
            if (row >= A.w0.rows || tok >= (uint64_t)n) continue;
            const float v = y[j][e] + (A.o0.bias ? A.o0.bias[row] : 0.0f);
            float *yr = A.o0.y + tok * A.o0.ldy + row;
            *yr = A.mode == SRT__CU_ACCUM ? *yr + v : v;
        }
}

/* Quantization pass of the GEMM: one block per (group, token): q = code(x * (1 / dx)) into
   qa[t * kp + k] (zeros from cols to kp), dx into da[t * ng + g]. */
__global__ void __launch_bounds__(128) srt__cu_quantize(const float *x, uint64_t K, uint64_t G, uint64_t ng, uint64_t kp, int8_t *qa, float *da) {
    __shared__ unsigned int s_max;
    srt__cu_dep_launch();   /* the GEMV after it may start streaming its weights */
    const uint64_t g = blockIdx.x, t = blockIdx.y, k0 = g * G, len = srt__cu_min(K - k0, G);
    const float *xt = x + t * K + k0;
    if (threadIdx.x == 0) s_max = 0u;
    __syncthreads();
    for (uint64_t k = threadIdx.x; k < len; k += blockDim.x) {
        const float a = fabsf(xt[k]);
        if (a > 0.0f) atomicMax(&s_max, __float_as_uint(a));
    }
    __syncthreads();
    const float d = __uint_as_float(s_max) / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
    if (threadIdx.x == 0) da[t * ng + g] = d;
    for (uint64_t k = threadIdx.x; k < len; k += blockDim.x) qa[t * kp + k0 + k] = (int8_t)srt__cu_act_code(xt[k] * id);
    if (g == ng - 1)
        for (uint64_t k = K + threadIdx.x; k < kp; k += blockDim.x) qa[t * kp + k] = 0;
}

/* Float weights: 16 lanes per row (16 rows per block of 256), lane j sums k = j mod 16 with fma
   for up to FTB tokens; the lanes are reduced by halves with shuffles (s[j] += s[j + h], h = 8, 4,
   2, 1): the CPU reference order. */
#define SRT__CU_FTB 4
template <int FM>
__global__ void __launch_bounds__(256) srt__cu_mv_float(srt__cuda_mat W, const float *x, int n, float *y, uint64_t ldy, const float *bias, int accum) {
    const int lane = (int)(threadIdx.x & 15);
    const uint64_t r = (uint64_t)blockIdx.x * 16 + (threadIdx.x >> 4), K = W.cols, t0 = (uint64_t)blockIdx.y * SRT__CU_FTB;
    const int nt = (int)srt__cu_min((uint64_t)n - t0, SRT__CU_FTB);
    const bool ok = r < W.rows;
    float s[SRT__CU_FTB];
#pragma unroll
    for (int tt = 0; tt < SRT__CU_FTB; tt++) s[tt] = 0.0f;
    if (ok) {
        uint64_t k = (uint64_t)lane;
        for (; k + 16 * (SRT__CU_LOADS - 1) < K; k += 16 * SRT__CU_LOADS) {   /* the weights' loads first */
            float w[SRT__CU_LOADS];
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) w[u] = srt__cu_ld<FM>(W.v, r * K + k + 16 * (uint64_t)u);
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++)
#pragma unroll
                for (int tt = 0; tt < SRT__CU_FTB; tt++)
                    if (tt < nt) s[tt] = fmaf(w[u], x[(t0 + (uint64_t)tt) * K + k + 16 * (uint64_t)u], s[tt]);
        }
        for (; k < K; k += 16) {
            const float w = srt__cu_ld<FM>(W.v, r * K + k);
#pragma unroll
            for (int tt = 0; tt < SRT__CU_FTB; tt++)
                if (tt < nt) s[tt] = fmaf(w, x[(t0 + (uint64_t)tt) * K + k], s[tt]);
        }
    }
#pragma unroll
    for (int h = 8; h; h >>= 1)
#pragma unroll
        for (int tt = 0; tt < SRT__CU_FTB; tt++) s[tt] += __shfl_down_sync(0xffffffffu, s[tt], h, 16);
    if (ok && lane == 0)
#pragma unroll
        for (int tt = 0; tt < SRT__CU_FTB; tt++)
            if (tt < nt) {
                const float v = s[tt] + (bias ? bias[r] : 0.0f);
                float *yr = y + (t0 + (uint64_t)tt) * ldy + r;
                *yr = accum ? *yr + v : v;
            }
}

/* cuBLAS helpers: x split into hi + lo of the weights' 16-bit type; bias added afterwards. */
template <int BF>
__global__ void srt__cu_split16(const float *x, uint64_t count, uint16_t *hi, uint16_t *lo) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float v = x[i];
    const uint16_t h = BF ? srt__cu_to_bf16(v) : srt__cu_to_f16(v);
    const float hv = BF ? srt__cu_bf16(h) : srt__cu_f16(h);
    hi[i] = h;
    lo[i] = BF ? srt__cu_to_bf16(v - hv) : srt__cu_to_f16(v - hv);
}
__global__ void srt__cu_add_bias(float *y, uint64_t ldy, uint64_t rows, int n, const float *bias) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * (uint64_t)n) return;
    const uint64_t t = i / rows, r = i % rows;
    y[t * ldy + r] = y[t * ldy + r] + bias[r];
}

/* ---- TCSL (Tiled-CSL) sparse kernels: see formats/LAYOUTS.md
   Flash-LLM's load-as-sparse, compute-as-dense SpMM. A block of 4 warps takes one row of 64 x 64
   weight tiles (64 output rows) and BN tokens, over a range of K tiles (split-K when the blocks
   would not fill the GPU; partial sums then go to scratch and a second kernel adds them in split
   order, so results are repeatable). Per K tile:
   - gmem2reg: the tile's words (at most 4096 = 128 threads x 8 x uint4) into registers, issued one
     tile ahead so that their latency hides behind the tensor-core work of the current tile;
   - rst_smem: the next tile's shared-memory buffer zeroed, the next activation tile fetched with
     cp.async (activations are rounded to f16 once per product, rows padded to whole tiles);
   - extract: each word's f16 written at its place of the swizzled tile (the pack order puts 32
     consecutive words in 32 banks, but a lane holds 4 consecutive words, so a warp's 32 stores meet
     4 to a bank; 4-byte loads that avoid this were slower on the H200: ec7f9be);
   - smem2tc: ldmatrix + mma.sync m16n8k16 (f16 x f16 -> f32), each warp 16 rows x BN tokens.
   Two buffers of each, two barriers per tile. The sums are f32 over f16 products on the tensor
   cores: within f16 tolerance of the CPU reference, not bit for bit. */
#define SRT__CU_TT 64u
/* Byte offset of W[r][c] in a tile held as 64 rows of 128 bytes, 16-byte chunks XOR-swizzled by
   the row: the ldmatrix reads of 8 consecutive rows hit 8 different chunks. (Shared by the kernel
   and the host-side emulation of tests/test_cuda.cu.) */
static __host__ __device__ __forceinline__ uint32_t srt__cu_tcsl_smem(uint32_t r, uint32_t c) {
    return r * 128u + ((((c >> 3) ^ (r & 7u)) & 7u) << 4) + ((c & 7u) << 1);
}
/* ldmatrix.x4 row addresses of lane `lane` for k-step kk (16 columns): A = the warp's 16 weight rows
   (matrices: rows 0-7 / 8-15 x columns 0-7, then x columns 8-15: registers a0..a3 of mma's A), B =
   16 tokens from 16p (matrices: tokens 0-7 x columns 0-7 / 8-15, then tokens 8-15: b0 b1 of two
   n8 blocks); for BN = 8, ldmatrix.x2 with lanes 0-15 of the B pattern. */
static __host__ __device__ __forceinline__ uint32_t srt__cu_tcsl_a_at(int warp, int lane, int kk) {
    return srt__cu_tcsl_smem((uint32_t)(16 * warp + (lane & 7) + ((lane >> 3) & 1) * 8), (uint32_t)(16 * kk + (lane >> 4) * 8));
}
static __host__ __device__ __forceinline__ uint32_t srt__cu_tcsl_b_at(int p, int lane, int kk) {
    return srt__cu_tcsl_smem((uint32_t)(16 * p + (lane & 7) + ((lane >> 4) & 1) * 8), (uint32_t)(16 * kk + ((lane >> 3) & 1) * 8));
}
/* Element e of accumulator j (n8 block j) of lane `lane` in warp `warp`: weight row in the tile and
   token (mma's C fragment: rows lane / 4 and + 8, columns 2 (lane % 4) and + 1). */
static __host__ __device__ __forceinline__ int srt__cu_tcsl_acc_row(int warp, int lane, int e) { return 16 * warp + (lane >> 2) + (e >> 1) * 8; }
static __host__ __device__ __forceinline__ int srt__cu_tcsl_acc_tok(int j, int lane, int e) { return 8 * j + 2 * (lane & 3) + (e & 1); }

/* x (n x K f32) -> x16 (n_pad x Kp f16, zeros past n and K) */
__global__ void srt__cu_tcsl_x16(const float *x, int n, uint64_t K, int n_pad, uint64_t Kp, __half *x16) {
    srt__cu_dep_launch();   /* the SpMM after it may start loading its first words */
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (uint64_t)n_pad * Kp) return;
    const uint64_t t = i / Kp, k = i % Kp;
    x16[i] = __float2half_rn(t < (uint64_t)n && k < K ? x[t * K + k] : 0.0f);
}

static __device__ __forceinline__ void srt__cu_extract(uint8_t *tile, uint32_t word) {
    const uint32_t loc = word >> 16;
    *(uint16_t *)(tile + srt__cu_tcsl_smem(loc >> 6, loc & 63u)) = (uint16_t)(word & 0xffffu);
}

/* out: splits == 1: y[t * ldy + r] (+ bias), or (accum) y += that; else the partial sums
   part[(split * n_pad + t) * rows + r]. */
template <int BN>
__global__ void __launch_bounds__(128) srt__cu_tcsl_spmm(const uint32_t *__restrict__ words, const uint32_t *__restrict__ toff, uint32_t tk,
                                                         const __half *__restrict__ x16, uint64_t Kp, uint32_t rows, int n, int n_pad,
                                                         uint32_t kt_per, int splits, float *__restrict__ y, uint64_t ldy,
                                                         const float *__restrict__ bias, float *__restrict__ part, int accum) {
    __shared__ __align__(128) uint8_t sa[2][SRT__CU_TT * 128];
    __shared__ __align__(128) uint8_t sb[2][BN * 128];
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint32_t ti = blockIdx.x, split = blockIdx.z;
    const int n0 = (int)blockIdx.y * BN;
    const uint32_t kt0 = split * kt_per, kt1 = kt0 + kt_per < tk ? kt0 + kt_per : tk;
    float acc[BN / 8][4];
    uint4 reg[8];
    uint32_t cnt = 0;
    /* the tile offsets of K tiles kt, kt + 1 and kt + 2 of this row tile, one load ahead: a tile's
       words load is then one round trip, not two (the offset, then the words) */
    const uint32_t *to = toff + (uint64_t)ti * tk;
    uint32_t o0 = 0, o1 = 0, o2 = 0;
    if (kt0 < kt1) { o0 = __ldg(to + kt0); o1 = __ldg(to + kt0 + 1); if (kt0 + 2 <= kt1) o2 = __ldg(to + kt0 + 2); }
#pragma unroll
    for (int j = 0; j < BN / 8; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    /* gmem2reg: tile (ti, kt)'s words (o0 .. o1); a thread holds words 4 (u * 128 + tid) .. + 3; then
       the offsets move on a tile and the one after is loaded */
#define SRT__CU_LOAD_WORDS(kt) do { \
        const uint32_t w0 = o0; \
        cnt = o1 - w0; \
        _Pragma("unroll") for (int u = 0; u < 8; u++) \
            if ((uint32_t)(u * 128 + tid) * 4u < cnt) reg[u] = __ldg((const uint4 *)(words + w0) + u * 128 + tid); \
        o0 = o1; o1 = o2; \
        if ((kt) + 3 <= kt1) o2 = __ldg(to + (kt) + 3); \
    } while (0)
    /* rst_smem + the activation tile (BN tokens x 64 columns) by cp.async */
#define SRT__CU_PREPARE(buf, kt) do { \
        const uint4 z = make_uint4(0u, 0u, 0u, 0u); \
        _Pragma("unroll") for (int u = 0; u < 4; u++) ((uint4 *)sa[buf])[u * 128 + tid] = z; \
        for (int c = tid; c < BN * 8; c += 128) { \
            const int tr = c >> 3, ch = c & 7; \
            const __half *src = x16 + (uint64_t)(n0 + tr) * Kp + (uint64_t)(kt) * SRT__CU_TT + (uint64_t)ch * 8; \
            srt__cu_cp_async16(sb[buf] + srt__cu_tcsl_smem((uint32_t)tr, 8u * (uint32_t)ch), src); \
        } \
        srt__cu_cp_async_commit(); \
    } while (0)
#define SRT__CU_EXTRACT(buf) do { \
        _Pragma("unroll") for (int u = 0; u < 8; u++) { \
            const uint32_t at = (uint32_t)(u * 128 + tid) * 4u; \
            if (at < cnt) { \
                srt__cu_extract(sa[buf], reg[u].x); srt__cu_extract(sa[buf], reg[u].y); \
                srt__cu_extract(sa[buf], reg[u].z); srt__cu_extract(sa[buf], reg[u].w); \
            } \
        } \
    } while (0)
    if (kt0 < kt1) SRT__CU_LOAD_WORDS(kt0);
    srt__cu_dep_wait();   /* x16 (and part, y) from here: the kernels before have finished */
    if (kt0 < kt1) {
        SRT__CU_PREPARE(0, kt0);
        __syncthreads();                     /* the zeros before any extract */
        SRT__CU_EXTRACT(0);
        for (uint32_t kt = kt0; kt < kt1; kt++) {
            const int buf = (int)((kt - kt0) & 1u);
            const bool more = kt + 1 < kt1;
            srt__cu_cp_async_wait_all();
            __syncthreads();                 /* tile kt complete in sa/sb[buf]; the other buffers are free */
            if (more) { SRT__CU_LOAD_WORDS(kt + 1); SRT__CU_PREPARE(buf ^ 1, kt + 1); }
#pragma unroll
            for (int kk = 0; kk < 4; kk++) {
                uint32_t a[4];
                srt__cu_ldmatrix_x4(a, sa[buf] + srt__cu_tcsl_a_at(warp, lane, kk));
                if (BN == 8) {
                    uint32_t b[2];
                    srt__cu_ldmatrix_x2(b, sb[buf] + srt__cu_tcsl_b_at(0, lane & 15, kk));
                    srt__cu_mma(acc[0], a, b[0], b[1]);
                } else {
#pragma unroll
                    for (int p = 0; p < BN / 16; p++) {
                        uint32_t b[4];
                        srt__cu_ldmatrix_x4(b, sb[buf] + srt__cu_tcsl_b_at(p, lane, kk));
                        srt__cu_mma(acc[2 * p], a, b[0], b[1]);
                        srt__cu_mma(acc[2 * p + 1], a, b[2], b[3]);
                    }
                }
            }
            __syncthreads();                 /* the zeros of the other buffer before the extract */
            if (more) SRT__CU_EXTRACT(buf ^ 1);
        }
    }
#undef SRT__CU_LOAD_WORDS
#undef SRT__CU_PREPARE
#undef SRT__CU_EXTRACT
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const uint32_t r = ti * SRT__CU_TT + (uint32_t)srt__cu_tcsl_acc_row(warp, lane, e);
            const int t = n0 + srt__cu_tcsl_acc_tok(j, lane, e);
            if (r >= rows || t >= n) continue;
            if (splits == 1) {
                const float v = acc[j][e] + (bias ? bias[r] : 0.0f);
                y[(uint64_t)t * ldy + r] = accum ? y[(uint64_t)t * ldy + r] + v : v;
            }
            else part[((uint64_t)split * (uint64_t)n_pad + (uint64_t)t) * rows + r] = acc[j][e];
        }
}
/* y[t * ldy + r] = the splits' partial sums in split order (+ bias), or (accum) y += that */
__global__ void srt__cu_tcsl_reduce(const float *part, int splits, int n, int n_pad, uint32_t rows, const float *bias, float *y, uint64_t ldy, int accum) {
    srt__cu_dep_launch();   /* a next SpMM over the same x16 may start loading its first words */
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (uint64_t)n * rows) return;
    const uint64_t t = i / rows, r = i % rows;
    float s = 0.0f;
    for (int sp = 0; sp < splits; sp++) s += part[((uint64_t)sp * (uint64_t)n_pad + t) * rows + r];
    const float v = s + (bias ? bias[r] : 0.0f);
    y[t * ldy + r] = accum ? y[t * ldy + r] + v : v;
}
/* The launch shape for n tokens: BN, padded tokens, K tiles per split and splits (at most
   srt__cu_tcsl_part_rows partial rows: splits x n_pad). A block has one K tile in flight at a
   time, so the GPU reads at full speed only with many blocks resident per SM (srt_cuda_set_split_k). */
#define SRT__CU_TCSL_PART 512                 /* partial rows at most, */
#define SRT__CU_TCSL_PART_FLOATS (8u << 20)   /* and at most 32 MB of them (a vocabulary-sized TCSL matrix) */
static uint64_t srt__cu_tcsl_part_rows(uint64_t rows) {
    const uint64_t r = SRT__CU_TCSL_PART_FLOATS / (rows > 0 ? rows : 1);
    return r < SRT__CU_TCSL_PART ? r : SRT__CU_TCSL_PART;
}
struct srt__cu_tcsl_plan { int bn, n_pad, splits; uint32_t kt_per; };
static srt__cu_tcsl_plan srt__cu_tcsl_plan_for(const srt__cuda *S, const srt__cuda_mat &w, int n) {
    srt__cu_tcsl_plan p;
    p.bn = n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 64;
    p.n_pad = (n + p.bn - 1) / p.bn * p.bn;
    const uint64_t blocks = w.tm * (uint64_t)(p.n_pad / p.bn), want = (uint64_t)S->split_k * (uint64_t)(S->sms > 0 ? S->sms : 1);
    uint64_t sp = blocks >= want ? 1 : (want + blocks - 1) / blocks;
    if (sp > w.tk) sp = w.tk;
    if (sp * (uint64_t)p.n_pad > srt__cu_tcsl_part_rows(w.rows)) sp = srt__cu_tcsl_part_rows(w.rows) / (uint64_t)p.n_pad;
    if (sp < 1) sp = 1;
    p.kt_per = (uint32_t)((w.tk + sp - 1) / sp);
    p.splits = (int)((w.tk + p.kt_per - 1) / p.kt_per);
    return p;
}
/* Scratch: x16 (n_pad x Kp halves) + the partial sums (srt__cu_tcsl_part_rows rows of `rows` floats:
   at most rows x SRT__CU_TCSL_PART and SRT__CU_TCSL_PART_FLOATS, which also covers fewer rows). */
static size_t srt__cu_tcsl_ws_bytes(uint64_t tk, uint64_t rows, int n) {
    const uint64_t part = rows * SRT__CU_TCSL_PART < SRT__CU_TCSL_PART_FLOATS ? rows * SRT__CU_TCSL_PART : SRT__CU_TCSL_PART_FLOATS;
    return ((size_t)(n + 63) * (size_t)tk * SRT__CU_TT * 2 + 255) / 256 * 256 + (size_t)part * 4 + 256;
}
/* x16_ready: ws already holds x in f16 (the previous product over the same x and width). */
static srt_status srt__cu_tcsl_matmul(srt__cuda *S, const srt__cuda_mat &w, const float *x, int n, float *y, uint64_t ldy,
                                      const float *bias, int accum, void *ws, size_t ws_cap, bool x16_ready) {
    const srt__cu_tcsl_plan p = srt__cu_tcsl_plan_for(S, w, n);
    const uint64_t Kp = w.tk * SRT__CU_TT;
    __half *x16 = (__half *)ws;
    float *part = (float *)((uint8_t *)ws + ((size_t)p.n_pad * (size_t)Kp * 2 + 255) / 256 * 256);
    if (ws_cap < srt__cu_tcsl_ws_bytes(w.tk, w.rows, n)) return SRT_ERR_OUT_OF_MEMORY;
    if (!x16_ready) {
        srt__cu_tcsl_x16<<<srt__cu_blocks((uint64_t)p.n_pad * Kp, 256), 256, 0, S->stream>>>(x, n, w.cols, p.n_pad, Kp, x16);
        srt__cu_launched(S, "TCSL activations to f16");
    }
    const dim3 grid((unsigned)w.tm, (unsigned)(p.n_pad / p.bn), (unsigned)p.splits);
    const uint32_t *words = (const uint32_t *)w.v;
#define SRT__CU_SPMM(BN) srt__cu_launch_pdl(S, srt__cu_tcsl_spmm<BN>, grid, dim3(128), "TCSL SpMM kernel", words, w.toff, (uint32_t)w.tk, \
                                            (const __half *)x16, Kp, (uint32_t)w.rows, n, p.n_pad, p.kt_per, p.splits, y, ldy, bias, part, accum)
    switch (p.bn) {
        case 8: SRT__CU_SPMM(8); break;
        case 16: SRT__CU_SPMM(16); break;
        case 32: SRT__CU_SPMM(32); break;
        default: SRT__CU_SPMM(64); break;
    }
#undef SRT__CU_SPMM
    if (p.splits > 1) {
        srt__cu_tcsl_reduce<<<srt__cu_blocks((uint64_t)n * w.rows, 256), 256, 0, S->stream>>>(part, p.splits, n, p.n_pad, (uint32_t)w.rows, bias, y, ldy, accum);
        srt__cu_launched(S, "TCSL split-K sum");
    }
    return SRT_OK;
}

/* Scratch of the GEMM and cuBLAS paths for n tokens of K columns (kp padded): quantized
   activations + scales, or the hi/lo halves of x. */
static size_t srt__cu_ws_bytes(uint64_t kp, uint64_t ng, int n) {
    const size_t gemm = ((size_t)n * (size_t)kp + 255) / 256 * 256 + (size_t)n * (size_t)ng * 4;
    const size_t blas = ((size_t)n * (size_t)kp * 2 + 255) / 256 * 256 * 2;
    return (gemm > blas ? gemm : blas) + 256;
}

/* Where the quantized x of n tokens for w lies in ws (codes qa: n x kp, then scales da: n x ng, as
   the GEMM reads them); SRT_ERR_OUT_OF_MEMORY if ws_cap is less than srt__cu_ws_bytes. */
static srt_status srt__cu_ws_codes(const srt__cuda_mat &w, int n, void *ws, size_t ws_cap, int8_t **qa, float **da) {
    if (ws_cap < srt__cu_ws_bytes(w.kp, w.ng, n)) return SRT_ERR_OUT_OF_MEMORY;
    *qa = (int8_t *)ws;
    *da = (float *)((uint8_t *)ws + ((size_t)n * (size_t)w.kp + 255) / 256 * 256);
    return SRT_OK;
}
/* Quantizes x (n tokens) into ws for w (srt__cu_ws_codes). */
static srt_status srt__cu_quantize_x(srt__cuda *S, const srt__cuda_mat &w, const float *x, int n, void *ws, size_t ws_cap, int8_t **qa, float **da) {
    const srt_status r = srt__cu_ws_codes(w, n, ws, ws_cap, qa, da);
    if (r != SRT_OK) return r;
    srt__cu_quantize<<<dim3((unsigned)w.ng, (unsigned)n), 128, 0, S->stream>>>(x, w.cols, w.group, w.ng, w.kp, *qa, *da);
    srt__cu_launched(S, "activation quantization");
    return SRT_OK;
}
/* Launches the integer kernel for n tokens over count <= 3 matrices of x (mode:
   srt__cu_gemv_args): output i is y[i] (+ bias[i]) with leading dimension ldy0 for the first, rows
   for the others (SWIGLU: y[0] only). w[0]'s format decides the kernel; x is quantized into ws
   first (x_quantized: srt__cu_rmsnorm_q has written its codes there already). Blocks take
   SRT__CU_GEMM_TB tokens each when `gemm` (each weight load serving them all: prompt batches),
   else one (the GEMV: twice the blocks per token block, for one token as many as there are
   tiles). */
#define SRT__CU_GEMM_TB 4
/* The integer kernel of format F: the tensor-core GEMM when bn (its tokens per block) is not 0,
   else the tiled GEMV (gemm: GEMM) on grid. */
template <int F>
static void srt__cu_int_launch(srt__cuda *S, const srt__cu_gemv_args &a, const int8_t *qa, const float *da, int n, unsigned tiles, dim3 grid, bool gemm, int bn) {
    if (bn) {
        void (*k)(srt__cu_gemv_args, const int8_t *, const float *, int) = bn == 16 ? srt__cu_gemm_mma<F, 16> : bn == 32 ? srt__cu_gemm_mma<F, 32> : srt__cu_gemm_mma<F, 64>;
        srt__cu_launch_pdl(S, k, dim3((tiles + 3) / 4, srt__cu_blocks((uint64_t)n, (unsigned)bn)), dim3(128), "GEMM kernel (tensor cores)", a, qa, da, n);
        return;
    }
    int sp, gb;
    srt__cu_gemv_split(a.w0, srt__cu_fmt<F>::kstep, &sp, &gb);
    srt__cu_launch_pdl(S, gemm ? srt__cu_gemv_int<F, SRT__CU_GEMM_TB> : srt__cu_gemv_int<F, 1>, grid, dim3(SRT__CU_GEMV_THREADS),
                       gemm ? "GEMM kernel" : "GEMV kernel", a, qa, da, n, sp, gb);
}
static srt_status srt__cu_int_matmul(srt__cuda *S, int mode, int count, const srt__cuda_mat *const *w, float *const *y, const float *const *bias,
                                     uint64_t ldy0, int n, const float *x, void *ws, size_t ws_cap, bool gemm, bool x_quantized = false) {
    srt__cu_gemv_args a;
    srt__cuda_mat *wa[3] = {&a.w0, &a.w1, &a.w2};
    srt__cu_gemv_out *oa[3] = {&a.o0, &a.o1, &a.o2};
    unsigned tiles = 0, ends[3] = {0, 0, 0};
    int8_t *qa;
    float *da;
    const srt_status r = x_quantized ? srt__cu_ws_codes(*w[0], n, ws, ws_cap, &qa, &da) : srt__cu_quantize_x(S, *w[0], x, n, ws, ws_cap, &qa, &da);
    if (r != SRT_OK) return r;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < count; i++) {
        *wa[i] = *w[i];
        oa[i]->y = y[i]; oa[i]->bias = bias[i]; oa[i]->ldy = i == 0 ? ldy0 : w[i]->rows;
        ends[i] = tiles += mode == SRT__CU_SWIGLU && i > 0 ? 0u : (unsigned)w[i]->tiles;   /* SWIGLU: a block takes a tile of both */
    }
    a.end0 = ends[0];
    a.end1 = count > 1 ? ends[1] : ends[0];
    a.items = tiles;
    a.mode = mode;
    /* a block per item (tile), or with S->gemv_blocks at most that many, each given about as many
       items: a block then moves on to its next tile without a gap in its reads */
    const unsigned slots = S->gemv_blocks > 0 && (unsigned)S->gemv_blocks < tiles ? (unsigned)S->gemv_blocks : tiles;
    const unsigned per_block = (tiles + slots - 1) / slots;
    const dim3 grid((tiles + per_block - 1) / per_block, gemm ? srt__cu_blocks((uint64_t)n, SRT__CU_GEMM_TB) : (unsigned)n);
    /* prompts from mma_min tokens where the work is large enough: the tensor cores, bn tokens a block */
    const bool mma = gemm && count == 1 && mode != SRT__CU_SWIGLU && S->mma_min > 0 && n >= S->mma_min && (uint64_t)n * w[0]->rows >= S->mma_work;
    const int bn = !mma ? 0 : n <= 16 ? 16 : n <= 32 ? 32 : 64;
    switch (w[0]->format) {
        case SRT_Q8: srt__cu_int_launch<SRT_Q8>(S, a, qa, da, n, tiles, grid, gemm, bn); break;
        case SRT_Q4: srt__cu_int_launch<SRT_Q4>(S, a, qa, da, n, tiles, grid, gemm, bn); break;
        case SRT_Q2: srt__cu_int_launch<SRT_Q2>(S, a, qa, da, n, tiles, grid, gemm, bn); break;
        case SRT_TQ: srt__cu_int_launch<SRT_TQ>(S, a, qa, da, n, tiles, grid, gemm, bn); break;
        default: srt__cu_int_launch<SRT_Q1>(S, a, qa, da, n, tiles, grid, gemm, bn); break;
    }
    return SRT_OK;
}

/* After `calls` cuBLAS products: a failure is noted (reported through the call's failure, as "cuda:
   CUBLAS_STATUS_...: unknown error"), else the bias is added. */
static srt_status srt__cu_blas_done(srt__cuda *S, int calls, cublasStatus_t bs, uint64_t rows, int n, float *y, uint64_t ldy, const float *bias) {
    S->kernels += calls;
    if (bs != CUBLAS_STATUS_SUCCESS) { srt__cu_note(S, cudaErrorUnknown, cublasGetStatusString(bs)); return SRT_OK; }
    if (bias) {
        srt__cu_add_bias<<<srt__cu_blocks(rows * (uint64_t)n, 256), 256, 0, S->stream>>>(y, ldy, rows, n, bias);
        srt__cu_launched(S, "bias");
    }
    return SRT_OK;
}
/* y = W x (+ bias) for n tokens on the device (S->stream), or with accum y += that (the residual
   add, as the CPU does it: y + (W x + bias)); ws holds srt__cu_ws_bytes for the GEMM and cuBLAS
   paths. Returns SRT_ERR_UNSUPPORTED for a path that does not exist for the format. */
static srt_status srt__cu_matmul_dev(srt__cuda *S, const srt__cuda_mat &w, const float *x, int n, float *y, uint64_t ldy,
                                     const float *bias, int accum, void *ws, size_t ws_cap, srt_cuda_path path) {
    const bool is_float = w.format == SRT_F32 || w.format == SRT_F16 || w.format == SRT_BF16;
    if (w.format == SRT_TCSL)   /* one kernel for any number of tokens */
        return path == SRT_CUDA_PATH_CUBLAS || path == SRT_CUDA_PATH_CUBLAS_F16 ? SRT_ERR_UNSUPPORTED : srt__cu_tcsl_matmul(S, w, x, n, y, ldy, bias, accum, ws, ws_cap, false);
    if (path == SRT_CUDA_PATH_CUBLAS_F16) {   /* the plain f16 GEMM: the baseline of the TCSL SpMM */
        const float one = 1.0f, beta = accum ? 1.0f : 0.0f;
        if (w.format != SRT_F16 || !S->blas) return SRT_ERR_UNSUPPORTED;
        if (ws_cap < srt__cu_ws_bytes(w.kp, w.ng, n)) return SRT_ERR_OUT_OF_MEMORY;
        srt__cu_tcsl_x16<<<srt__cu_blocks((uint64_t)n * w.cols, 256), 256, 0, S->stream>>>(x, n, w.cols, n, w.cols, (__half *)ws);
        srt__cu_launched(S, "activations to f16");
        const cublasStatus_t bs = cublasGemmEx(S->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)w.rows, n, (int)w.cols, &one, w.v, CUDA_R_16F, (int)w.cols,
                                               ws, CUDA_R_16F, (int)w.cols, &beta, y, CUDA_R_32F, (int)ldy, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        return srt__cu_blas_done(S, 1, bs, w.rows, n, y, ldy, bias);
    }
    if (path == SRT_CUDA_PATH_AUTO) {
        if (is_float) path = S->cublas_min > 0 && n >= S->cublas_min && n > 1 && S->blas ? SRT_CUDA_PATH_CUBLAS : SRT_CUDA_PATH_GEMV;
        else path = n == 1 ? SRT_CUDA_PATH_GEMV : SRT_CUDA_PATH_GEMM;
    }
    if (is_float && path != SRT_CUDA_PATH_CUBLAS) {
        const dim3 grid(srt__cu_blocks(w.rows, 16), srt__cu_blocks((uint64_t)n, SRT__CU_FTB));
        if (w.format == SRT_F32) srt__cu_mv_float<0><<<grid, 256, 0, S->stream>>>(w, x, n, y, ldy, bias, accum);
        else if (w.format == SRT_F16) srt__cu_mv_float<1><<<grid, 256, 0, S->stream>>>(w, x, n, y, ldy, bias, accum);
        else srt__cu_mv_float<2><<<grid, 256, 0, S->stream>>>(w, x, n, y, ldy, bias, accum);
        srt__cu_launched(S, "float matrix kernel");
        return SRT_OK;
    }
    if (path == SRT_CUDA_PATH_CUBLAS) {
        const float one = 1.0f, beta = accum ? 1.0f : 0.0f;   /* accum: y + (hi + lo) becomes (y + hi) + lo, within the tolerance of this path */
        cublasStatus_t bs;
        if (!is_float || !S->blas) return SRT_ERR_UNSUPPORTED;
        if (ws_cap < srt__cu_ws_bytes(w.kp, w.ng, n)) return SRT_ERR_OUT_OF_MEMORY;
        if (w.format == SRT_F32)
            bs = cublasGemmEx(S->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)w.rows, n, (int)w.cols, &one, w.v, CUDA_R_32F, (int)w.cols,
                              x, CUDA_R_32F, (int)w.cols, &beta, y, CUDA_R_32F, (int)ldy, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        else {
            const uint64_t count = (uint64_t)n * w.cols;
            const cudaDataType_t ty = w.format == SRT_F16 ? CUDA_R_16F : CUDA_R_16BF;
            uint16_t *hi = (uint16_t *)ws, *lo = (uint16_t *)((uint8_t *)ws + (count * 2 + 255) / 256 * 256);
            if (w.format == SRT_F16) srt__cu_split16<0><<<srt__cu_blocks(count, 256), 256, 0, S->stream>>>(x, count, hi, lo);
            else srt__cu_split16<1><<<srt__cu_blocks(count, 256), 256, 0, S->stream>>>(x, count, hi, lo);
            srt__cu_launched(S, "cuBLAS input split");
            bs = cublasGemmEx(S->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)w.rows, n, (int)w.cols, &one, w.v, ty, (int)w.cols,
                              hi, ty, (int)w.cols, &beta, y, CUDA_R_32F, (int)ldy, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            if (bs == CUBLAS_STATUS_SUCCESS)
                bs = cublasGemmEx(S->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)w.rows, n, (int)w.cols, &one, w.v, ty, (int)w.cols,
                                  lo, ty, (int)w.cols, &one, y, CUDA_R_32F, (int)ldy, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        }
        return srt__cu_blas_done(S, w.format == SRT_F32 ? 1 : 2, bs, w.rows, n, y, ldy, bias);
    }
    const srt__cuda_mat *wp = &w;   /* the integer GEMV or GEMM */
    return srt__cu_int_matmul(S, accum ? SRT__CU_ACCUM : SRT__CU_STORE, 1, &wp, &y, &bias, ldy, n, x, ws, ws_cap, path == SRT_CUDA_PATH_GEMM);
}

/* ---------------------------------------------------------------- transformer kernels */
/* o[t] = w * (1 / sqrt(mean(x[t]^2) + eps) * x[t]); one block per token. The sum of squares is the
   reference dot product: lane j < 16 sums k = j mod 16 in order with fma, the lanes reduced by
   halves. That is 16 chains of len / 16 dependent steps, so their loads must not wait one by one:
   the block brings x into shared memory a window at a time (every thread, SRT__CU_LOADS loads in
   flight each), and the 16 chains read it from there. */
#define SRT__CU_NORM_THREADS 256
#ifndef SRT__CU_NORM_WIN         /* the emulated test sets 128, so that its small models cross windows */
#define SRT__CU_NORM_WIN 4096   /* floats of x in shared memory at a time */
#endif
static_assert(SRT__CU_NORM_WIN % (16 * SRT__CU_LOADS) == 0, "RMSNorm's window: whole batches of the 16 chains");
/* 1 / sqrt(mean(x^2) + eps) of the len values at xt, as the CPU computes it (16 chains, lane j
   summing k = j mod 16 with fma, reduced by halves), for every thread of the block (all call it:
   barriers). x is staged in s_x (SRT__CU_NORM_WIN floats of shared memory) a window at a time, so
   the chains wait on no global load; with len <= SRT__CU_NORM_WIN all of x stays there after. */
static __device__ float srt__cu_norm_scale(const float *xt, int len, float eps, float *s_x) {
    __shared__ float s_inv;
    const int tid = (int)threadIdx.x;
    float s = 0.0f;
    for (int w0 = 0; w0 < len; w0 += SRT__CU_NORM_WIN) {
        const int n = len - w0 < SRT__CU_NORM_WIN ? len - w0 : SRT__CU_NORM_WIN;
        for (int k0 = 0; k0 < n; k0 += SRT__CU_LOADS * SRT__CU_NORM_THREADS) {
            float v[SRT__CU_LOADS];
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) {
                const int k = k0 + u * SRT__CU_NORM_THREADS + tid;
                v[u] = k < n ? xt[w0 + k] : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) {
                const int k = k0 + u * SRT__CU_NORM_THREADS + tid;
                if (k < n) s_x[k] = v[u];
            }
        }
        __syncthreads();
        if (tid < 16) {   /* the window keeps each lane's k order: it starts at a multiple of 16 */
            int k = tid;
            for (; k + 16 * (SRT__CU_LOADS - 1) < n; k += 16 * SRT__CU_LOADS) {
                float v[SRT__CU_LOADS];
#pragma unroll
                for (int u = 0; u < SRT__CU_LOADS; u++) v[u] = s_x[k + 16 * u];
#pragma unroll
                for (int u = 0; u < SRT__CU_LOADS; u++) s = fmaf(v[u], v[u], s);
            }
            for (; k < n; k += 16) s = fmaf(s_x[k], s_x[k], s);
        }
        __syncthreads();   /* the chains are done with the window before the next one fills it */
    }
    if (tid < 32) {
        for (int h = 8; h; h >>= 1) s += __shfl_down_sync(0xffffffffu, s, h, 16);
        if (tid == 0) {
            float ss = s;
            ss /= (float)len;
            ss += eps;
            s_inv = 1.0f / sqrtf(ss);
        }
    }
    __syncthreads();
    return s_inv;
}
__global__ void __launch_bounds__(SRT__CU_NORM_THREADS) srt__cu_rmsnorm(float *o, const float *x, const float *w, int len, float eps) {
    const int tid = (int)threadIdx.x;
    const uint64_t t = blockIdx.x;
    const float *xt = x + t * (uint64_t)len;
    __shared__ float s_x[SRT__CU_NORM_WIN];
    const float ss = srt__cu_norm_scale(xt, len, eps, s_x);
    for (int k0 = 0; k0 < len; k0 += SRT__CU_LOADS * SRT__CU_NORM_THREADS) {
        float xv[SRT__CU_LOADS], wv[SRT__CU_LOADS];
#pragma unroll
        for (int u = 0; u < SRT__CU_LOADS; u++) {
            const int k = k0 + u * SRT__CU_NORM_THREADS + tid;
            xv[u] = k < len ? xt[k] : 0.0f;
            wv[u] = k < len ? w[k] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < SRT__CU_LOADS; u++) {
            const int k = k0 + u * SRT__CU_NORM_THREADS + tid;
            if (k < len) o[t * (uint64_t)len + (uint64_t)k] = wv[u] * (ss * xv[u]);
        }
    }
}

/* RMSNorm and the quantization of its output for the integer GEMV that reads it, in one launch
   (on the H100 the q4 8B model decoded 311 tok/s with it against 298 without, 2026-11-28; a first
   version, one block per token, decoded slower on the H200: 246 against 263 tok/s). Block (b, t) computes token t's scale
   as srt__cu_rmsnorm does (every block of the token the same chains, over x from L2) and, for
   groups b, b + gridDim.x, ..., writes the codes and dx that srt__cu_quantize would write from the
   normalized values (which it does not store: only the GEMV reads them): a launch fewer per norm,
   with the quantization's parallelism kept. */
__global__ void __launch_bounds__(SRT__CU_NORM_THREADS) srt__cu_rmsnorm_q(const float *x, const float *w, int len, float eps, uint64_t G, uint64_t ng,
                                                                         uint64_t kp, int8_t *qa, float *da) {
    __shared__ float s_x[SRT__CU_NORM_WIN];
    __shared__ unsigned int s_max;
    srt__cu_dep_launch();   /* the GEMV after it may start streaming its weights */
    const uint64_t t = blockIdx.y, K = (uint64_t)len;
    const float *xt = x + t * K;
    /* the block's first weight, loaded before the scale's chains and not after them (the norm's
       weights are evicted from L2 by the rest of a decode step: a trip to memory on the path); x
       from shared memory when it stays there */
    const uint64_t k_first = (uint64_t)blockIdx.x * G + threadIdx.x;
    const float w_first = blockIdx.x < ng && threadIdx.x < G && k_first < K ? w[k_first] : 0.0f;
    const float ss = srt__cu_norm_scale(xt, len, eps, s_x);
    const bool staged = len <= SRT__CU_NORM_WIN;
    const auto value = [&](uint64_t k) { return (k == k_first ? w_first : w[k]) * (ss * (staged ? s_x[k] : xt[k])); };
    for (uint64_t g = blockIdx.x; g < ng; g += gridDim.x) {
        const uint64_t k0 = g * G, glen = srt__cu_min(K - k0, G);
        if (threadIdx.x == 0) s_max = 0u;
        __syncthreads();
        for (uint64_t k = threadIdx.x; k < glen; k += blockDim.x) {
            const float a = fabsf(value(k0 + k));
            if (a > 0.0f) atomicMax(&s_max, __float_as_uint(a));
        }
        __syncthreads();
        const float d = __uint_as_float(s_max) / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
        if (threadIdx.x == 0) da[t * ng + g] = d;
        for (uint64_t k = threadIdx.x; k < glen; k += blockDim.x) qa[t * kp + k0 + k] = (int8_t)srt__cu_act_code(value(k0 + k) * id);
        if (g == ng - 1)
            for (uint64_t k = K + threadIdx.x; k < kp; k += blockDim.x) qa[t * kp + k] = 0;
        __syncthreads();   /* s_max is read before the next group resets it */
    }
}

/* x[t] = row toks[t] of the embedding matrix, dequantized as the core does. */
__global__ void srt__cu_embed(srt__cuda_mat W, const int32_t *toks, int n, float *x) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, K = W.cols;
    if (i >= (uint64_t)n * K) return;
    const uint64_t t = i / K, k = i % K, r = (uint64_t)toks[t];
    float v;
    if (W.format == SRT_F32) v = ((const float *)W.v)[r * K + k];
    else if (W.format == SRT_F16) v = srt__cu_f16(((const uint16_t *)W.v)[r * K + k]);
    else if (W.format == SRT_BF16) v = srt__cu_bf16(((const uint16_t *)W.v)[r * K + k]);
    else {
        const int bits = W.format == SRT_Q8 ? 8 : W.format == SRT_Q4 ? 4 : W.format == SRT_Q1 ? 1 : 2, kstep = 32 / bits;
        const uint64_t c = k / (uint64_t)kstep, wi = k % (uint64_t)kstep;
        const uint32_t code = (uint32_t)(W.v[((r / 16) * W.chunks + c) * 64 + (r % 16) * 4 + wi % 4] >> ((wi / 4) * (uint64_t)bits)) & ((1u << bits) - 1);
        const int val = W.format == SRT_Q8 ? (int)(int8_t)(uint8_t)code : W.format == SRT_Q4 ? (int)code - 8
                      : W.format == SRT_Q2 ? 2 * (int)code - 3 : W.format == SRT_TQ ? (int)code - 1 : 2 * (int)code - 1;
        v = (float)val * srt__cu_f16(W.sc[((r / 16) * W.ng + k / W.group) * 16 + r % 16]);
    }
    x[t * K + k] = v;
}

/* RoPE, and k, v into the KV cache of `layer` at the step's position, in one launch. The rotation
   is the core's: the first rope_dim dimensions of each head by the angles cs[t][i] = (cos, sin),
   pairs (2i, 2i+1) or, neox, (i, i + rope_dim/2). Threads 0 .. nq - 1 (nq = n x nh x half) rotate
   a pair of q in place. The cache part starts at the next whole warp: for an F32 / F16 cache, n x
   KV threads store one element each of k (rotated on the way: ss->k is read only) and v; for a Q8
   cache, one warp per (token, KV head, block of 32) quantizes them (srt__cu_q8_block). */
static __device__ __forceinline__ void srt__cu_rope_pair(int i, int half, int neox, int *a, int *b) {
    *a = neox ? i : 2 * i;
    *b = neox ? i + half : 2 * i + 1;
}
/* element e (dimension d of its head, token t) of k, rotated */
static __device__ __forceinline__ float srt__cu_rope_k(const float *k, uint64_t e, int d, int t, const float *cs, int rope_dim, int neox) {
    const int half = rope_dim / 2;
    if (d >= 2 * half) return k[e];
    const int i = neox ? d % half : d / 2;
    int a, b;
    srt__cu_rope_pair(i, half, neox, &a, &b);
    const float *kh = k + (e - (uint64_t)d);
    const float c = cs[(size_t)t * (size_t)rope_dim + 2 * (size_t)i], sn = cs[(size_t)t * (size_t)rope_dim + 2 * (size_t)i + 1];
    const float v0 = kh[a], v1 = kh[b];
    return d == a ? v0 * c - v1 * sn : v0 * sn + v1 * c;
}

/* Q8 KV rows, the core's srt__kv_q8_store bit for bit: a row of hd int8 codes, then one F16 scale
   per 32 of them (little-endian, at hd + 2 x block: read bytewise, it need not be aligned). */
static __device__ __forceinline__ float srt__cu_q8_scale(const unsigned char *row, int hd, int block) {
    return srt__cu_f16((uint16_t)(row[hd + 2 * block] | row[hd + 2 * block + 1] << 8));
}
/* One warp quantizes one block of len <= 32 values (x: lane's value, lanes >= len hold none). */
static __device__ __forceinline__ void srt__cu_q8_block(float x, int lane, int len, int hd, int block, unsigned char *row) {
    float amax = lane < len ? fabsf(x) : 0.0f;
    int bad = lane < len && !(amax <= FLT_MAX);
#pragma unroll
    for (int o = 16; o; o >>= 1) {   /* max is exact in any order; NaN lanes are flagged by bad */
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
        bad |= __shfl_xor_sync(0xffffffffu, bad, o);
    }
    uint16_t h = bad ? (uint16_t)0x7e00 : amax / 127.0f >= 65504.0f ? (uint16_t)0x7bff : srt__cu_to_f16(amax / 127.0f);
    if (!bad && h < 0x7bff && srt__cu_f16(h) * 127.0f < amax) h++;   /* positive F16: the next one up */
    const float d = srt__cu_f16(h), id = d > 0.0f && d <= 65504.0f ? 1.0f / d : 0.0f;
    if (lane < len) row[32 * block + lane] = (unsigned char)(int8_t)srt__cu_act_code(x * id);
    if (lane == 0) { row[hd + 2 * block] = (unsigned char)(h & 0xff); row[hd + 2 * block + 1] = (unsigned char)(h >> 8); }
}
/* Threads srt__cu_rope_kv launches for n tokens: the q part rounded up to whole warps, then the cache part. */
static inline uint64_t srt__cu_rope_kv_threads(int n, int nh, int rope_dim, int KVH, int hd, srt_kv_type type) {
    const uint64_t nq = (uint64_t)n * (uint64_t)nh * (uint64_t)(rope_dim / 2);
    const uint64_t cache = type == SRT_KV_Q8 ? (uint64_t)n * (uint64_t)KVH * (uint64_t)((hd + 31) / 32) * 32u : (uint64_t)n * (uint64_t)KVH * (uint64_t)hd;
    return (nq + 31) / 32 * 32 + cache;
}
__global__ void srt__cu_rope_kv(const srt__cu_step *st, int layer, int n_ctx, int n, int nh, int KVH, int hd, int rope_dim, int neox,
                                const float *cs, float *q, const float *k, const float *v, srt_kv_type type, size_t row,
                                unsigned char *kc, unsigned char *vc) {
    const int half = rope_dim / 2;
    const uint64_t id = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x, nq = (uint64_t)n * (uint64_t)nh * (uint64_t)half;
    const uint64_t nq_pad = (nq + 31) / 32 * 32, KV = (uint64_t)KVH * (uint64_t)hd;
    if (id < nq) {
        const int i = (int)(id % (uint64_t)half), hh = (int)(id / (uint64_t)half % (uint64_t)nh), t = (int)(id / ((uint64_t)half * (uint64_t)nh));
        float *qv = q + ((size_t)t * (size_t)nh + (size_t)hh) * (size_t)hd;
        const float c = cs[(size_t)t * (size_t)rope_dim + 2 * (size_t)i], sn = cs[(size_t)t * (size_t)rope_dim + 2 * (size_t)i + 1];
        int a, b;
        srt__cu_rope_pair(i, half, neox, &a, &b);
        const float v0 = qv[a], v1 = qv[b];
        qv[a] = v0 * c - v1 * sn;
        qv[b] = v0 * sn + v1 * c;
        return;
    }
    if (id < nq_pad) return;
    const uint64_t e = id - nq_pad;   /* whole warps from here: e / 32 is the warp, e % 32 its lane */
    if (type == SRT_KV_Q8) {
        const int nb = (hd + 31) / 32, lane = (int)(e % 32u);
        const uint64_t w = e / 32u;
        if (w >= (uint64_t)n * (uint64_t)KVH * (uint64_t)nb) return;   /* whole warps: the shuffles need all 32 lanes */
        const int b = (int)(w % (uint64_t)nb), h = (int)(w / (uint64_t)nb % (uint64_t)KVH), t = (int)(w / ((uint64_t)nb * (uint64_t)KVH));
        const int d = 32 * b + lane, len = hd - 32 * b < 32 ? hd - 32 * b : 32;
        const uint64_t ek = (uint64_t)t * KV + (uint64_t)h * (uint64_t)hd + (uint64_t)d;
        const float kx = lane < len ? srt__cu_rope_k(k, ek, d, t, cs, rope_dim, neox) : 0.0f, vx = lane < len ? v[ek] : 0.0f;
        const size_t at = (((size_t)layer * (size_t)n_ctx + (size_t)(st->pos + t)) * (size_t)KVH + (size_t)h) * row;
        srt__cu_q8_block(kx, lane, len, hd, b, kc + at);
        srt__cu_q8_block(vx, lane, len, hd, b, vc + at);
        return;
    }
    if (e >= (uint64_t)n * KV) return;
    const int t = (int)(e / KV), d = (int)(e % KV % (uint64_t)hd);
    const float kv = srt__cu_rope_k(k, e, d, t, cs, rope_dim, neox);
    const size_t at = ((size_t)layer * (size_t)n_ctx + (size_t)st->pos) * (size_t)KV + e;
    if (type == SRT_KV_F16) { ((uint16_t *)kc)[at] = srt__cu_to_f16(kv); ((uint16_t *)vc)[at] = srt__cu_to_f16(v[e]); }
    else { ((float *)kc)[at] = kv; ((float *)vc)[at] = v[e]; }
}
/* Element d of a cache row as f32; sc: d's Q8 scale (unused for F32 / F16). */
static __device__ __forceinline__ float srt__cu_kv_at(const unsigned char *row, srt_kv_type type, int d, float sc) {
    if (type == SRT_KV_Q8) return (float)(int8_t)row[d] * sc;
    return type == SRT_KV_F16 ? srt__cu_f16(((const uint16_t *)row)[d]) : ((const float *)row)[d];
}

/* Q8 scores, the core's srt__kv_q8_quantize_q / srt__kv_q8_score: each warp quantizes q's blocks
   of 32 (the block's lane l holds value 32 b + l) into shared memory once per (token, head); a
   row's score is then, block by block in order, fma(float(idot), d_q x d_k, s), idot the exact
   int32 sum of code products (__dp4a over the code words). */
#define SRT__CU_MAX_HD 1024   /* the loader's limit on head_dim (SRT__KV_MAX_HD) */
static __device__ __forceinline__ void srt__cu_q8_quantize_q(const float *qh, int hd, int lane, int warp, int warps, signed char *codes, float *qd) {
    for (int b = warp; b < (hd + 31) / 32; b += warps) {   /* warp-uniform: the shuffles have all 32 lanes */
        const int d = 32 * b + lane;
        const float x = d < hd ? qh[d] : 0.0f;
        float amax = fabsf(x);
        int bad = !(amax <= FLT_MAX);
#pragma unroll
        for (int o = 16; o; o >>= 1) {   /* max is exact in any order; NaN lanes are flagged by bad */
            amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
            bad |= __shfl_xor_sync(0xffffffffu, bad, o);
        }
        const float db = bad ? __uint_as_float(0x7fc00000u) : amax / 127.0f;   /* NaN: the score shows it */
        codes[d] = (signed char)(d < hd && db > 0.0f ? srt__cu_act_code(x / db) : 0);
        if (lane == 0) qd[b] = db;
    }
}
/* 4 codes of a row from byte o, as one int (rows need not be 4-byte aligned) */
static __device__ __forceinline__ int srt__cu_q8_word(const unsigned char *row, int o) {
    return (int)((uint32_t)row[o] | (uint32_t)row[o + 1] << 8 | (uint32_t)row[o + 2] << 16 | (uint32_t)row[o + 3] << 24);
}
static __device__ __forceinline__ float srt__cu_q8_score(const unsigned char *row, int hd, const signed char *codes, const float *qd) {
    float s = 0.0f;
    for (int b = 0; 32 * b < hd; b++) {
        const int d0 = 32 * b;
        int dot = 0;
        if (hd - d0 >= 32) {
#pragma unroll
            for (int w = 0; w < 8; w++) dot = __dp4a(srt__cu_q8_word(row, d0 + 4 * w), srt__cu_q8_word((const unsigned char *)codes, d0 + 4 * w), dot);
        } else
            for (int d = d0; d < hd; d++) dot += (int)(signed char)row[d] * (int)codes[d];
        s = fmaf((float)dot, qd[b] * srt__cu_q8_scale(row, hd, b), s);
    }
    return s;
}

/* One block per (token, head): scores (reference dot products, or the integer Q8 ones, one
   position per thread), max (exact), exp (the core's polynomial), the sum in position order (one
   thread), division, then each output dimension as fma over positions in order: the CPU's
   operations exactly. The position comes from the step struct. The cache's rows: row bytes each,
   KVH of them a position. */
#define SRT__CU_ATTN 128
__global__ void __launch_bounds__(SRT__CU_ATTN) srt__cu_attention(const srt__cu_step *st, const float *q, const unsigned char *kc, const unsigned char *vc,
                                                                 float *att, float *scores, int nh, int grp, int hd, int KVH, size_t row, int n_ctx,
                                                                 int layer, srt_kv_type type, float scale) {
    __shared__ float s_red[SRT__CU_ATTN];
    __shared__ signed char s_qc[SRT__CU_MAX_HD];
    __shared__ float s_qd[SRT__CU_MAX_HD / 32];
    const int l = (int)threadIdx.x, task = (int)blockIdx.x, t = task / nh, hh = task % nh, kvh = hh / grp, pos = st->pos + t;
    const float *qh = q + ((size_t)t * (size_t)nh + (size_t)hh) * (size_t)hd;
    float *sc = scores + (size_t)task * (size_t)n_ctx, *out = att + ((size_t)t * (size_t)nh + (size_t)hh) * (size_t)hd;
    const size_t pstride = (size_t)KVH * row, base = (size_t)layer * (size_t)n_ctx * pstride + (size_t)kvh * row;
    const bool q8 = type == SRT_KV_Q8;
    float mx = -FLT_MAX;
    if (q8) {
        srt__cu_q8_quantize_q(qh, hd, l % 32, l / 32, SRT__CU_ATTN / 32, s_qc, s_qd);
        __syncthreads();
    }
    for (int i = l; i <= pos; i += SRT__CU_ATTN) {
        const unsigned char *kr = kc + base + (size_t)i * pstride;
        float s;
        if (q8) s = srt__cu_q8_score(kr, hd, s_qc, s_qd) * scale;
        else {
            float s16[16];
#pragma unroll
            for (int j = 0; j < 16; j++) s16[j] = 0.0f;
            for (int d0 = 0; d0 < hd; d0 += 16) {
#pragma unroll
                for (int j = 0; j < 16; j++) {
                    const int d = d0 + j;
                    if (d < hd) s16[j] = fmaf(srt__cu_kv_at(kr, type, d, 0.0f), qh[d], s16[j]);
                }
            }
#pragma unroll
            for (int h = 8; h; h >>= 1)
#pragma unroll
                for (int j = 0; j < h; j++) s16[j] += s16[j + h];
            s = s16[0] * scale;
        }
        sc[i] = s;
        if (s > mx) mx = s;
    }
    s_red[l] = mx;
    __syncthreads();
    mx = -FLT_MAX;
    for (int j = 0; j < SRT__CU_ATTN; j++) if (s_red[j] > mx) mx = s_red[j];
    for (int i = l; i <= pos; i += SRT__CU_ATTN) sc[i] = srt__cu_expf(sc[i] - mx);
    __syncthreads();
    if (l == 0) {   /* in position order; SRT__CU_LOADS loads in flight, not one at a time */
        float sum = 0.0f;
        int i = 0;
        for (; i + SRT__CU_LOADS <= pos + 1; i += SRT__CU_LOADS) {
            float v[SRT__CU_LOADS];
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) v[u] = sc[i + u];
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) sum += v[u];
        }
        for (; i <= pos; i++) sum += sc[i];
        s_red[0] = sum;
    }
    __syncthreads();
    const float sum = s_red[0];
    for (int i = l; i <= pos; i += SRT__CU_ATTN) sc[i] /= sum;
    __syncthreads();
    for (int d = l; d < hd; d += SRT__CU_ATTN) {
        float o = 0.0f;
        int i = 0;
        for (; i + SRT__CU_LOADS <= pos + 1; i += SRT__CU_LOADS) {   /* as the sum: loads first */
            float p[SRT__CU_LOADS], vv[SRT__CU_LOADS];
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) {
                const unsigned char *vr = vc + base + (size_t)(i + u) * pstride;
                p[u] = sc[i + u];
                vv[u] = srt__cu_kv_at(vr, type, d, q8 ? srt__cu_q8_scale(vr, hd, d / 32) : 0.0f);
            }
#pragma unroll
            for (int u = 0; u < SRT__CU_LOADS; u++) o = fmaf(p[u], vv[u], o);
        }
        for (; i <= pos; i++) {
            const unsigned char *vr = vc + base + (size_t)i * pstride;
            o = fmaf(sc[i], srt__cu_kv_at(vr, type, d, q8 ? srt__cu_q8_scale(vr, hd, d / 32) : 0.0f), o);
        }
        out[d] = o;
    }
}

/* Attention in two launches: the same operations in the same order as srt__cu_attention, so the
   same bits, with the work spread. srt__cu_attention is one block per (token, head); at 8192
   positions its sum and its value sums are chains of 8192 steps each waiting on global memory.
   On the H100 (2026-11-28, q4 8B model, Q8 cache) decode at 4096 positions went from 40.1 to 118.1
   tok/s with these (8192: 71.0, against 19.7 before), and at 16 positions 300 -> 304.
   - srt__cu_attn_scores: blocks (token x head, C) take 128 positions at a time, C blocks per head.
     F32/F16 rows: 16 / (elements per 16 bytes) lanes per position, lane c holding the reference's
     accumulators j = c E .. c E + E - 1 (dimensions d = j mod 16, in order) and the halving
     reduction taken across lanes by shuffles where it crosses them. Q8 rows: a warp per position,
     lane l one code word of a block of 8 lanes (dp4a, summed exactly by shuffles), then the fma
     over blocks in order.
   - srt__cu_attn_values: a warp per (token, head, 32 dimensions). The max (exact in any order),
     then the sum of exp in position order (32 at a time from the lanes by shuffles), then each
     lane's fma chain over positions in order, the rows' 32 dimensions and the scores staged in
     shared memory by cp.async R - 1 chunks of 32 positions ahead.
   Fits: head_dim a multiple of 16; Q8 also a multiple of 32 with rows of whole words. */
#define SRT__CU_ATTS_THREADS 128   /* scores: 4 warps of 32 positions */
template <int T> struct srt__cu_attv_cfg;   /* per KV type: bytes a position takes in a stage, copy size, stages */
template <> struct srt__cu_attv_cfg<SRT_KV_F32> { enum { PB = 128, CB = 16, R = 3 }; };
template <> struct srt__cu_attv_cfg<SRT_KV_F16> { enum { PB = 64, CB = 16, R = 6 }; };
template <> struct srt__cu_attv_cfg<SRT_KV_Q8> { enum { PB = 36, CB = 4, R = 10 }; };   /* 32 codes, the word with the block's scale */
static inline bool srt__cu_attn_split_fits(srt_kv_type type, int hd, size_t row) {
    return hd % 16 == 0 && hd <= SRT__CU_MAX_HD && (type != SRT_KV_Q8 || (hd % 32 == 0 && row % 4 == 0));
}

template <int T>
__global__ void __launch_bounds__(SRT__CU_ATTS_THREADS) srt__cu_attn_scores(const srt__cu_step *st, const float *q, const unsigned char *kc, float *scores,
                                                                           int nh, int grp, int hd, int KVH, size_t row, int n_ctx, int layer, float scale) {
    __shared__ __align__(16) float s_q[SRT__CU_MAX_HD];   /* F32/F16: q; Q8: its codes */
    __shared__ float s_qd[SRT__CU_MAX_HD / 32];
    const int l = (int)threadIdx.x, lane = l % 32, warp = l / 32, task = (int)blockIdx.x, t = task / nh, hh = task % nh, kvh = hh / grp, pos = st->pos + t;
    if ((int)blockIdx.y * SRT__CU_ATTS_THREADS > pos) return;   /* (the whole block) no position of its */
    const float *qh = q + ((size_t)t * (size_t)nh + (size_t)hh) * (size_t)hd;
    float *sc = scores + (size_t)task * (size_t)n_ctx;
    const size_t pstride = (size_t)KVH * row;
    const unsigned char *kb = kc + (size_t)layer * (size_t)n_ctx * pstride + (size_t)kvh * row;
    if (T == SRT_KV_Q8) srt__cu_q8_quantize_q(qh, hd, lane, warp, SRT__CU_ATTS_THREADS / 32, (signed char *)s_q, s_qd);
    else for (int d = l; d < hd; d += SRT__CU_ATTS_THREADS) s_q[d] = qh[d];
    __syncthreads();
    for (int i0 = (int)blockIdx.y * SRT__CU_ATTS_THREADS + 32 * warp; i0 <= pos; i0 += (int)gridDim.y * SRT__CU_ATTS_THREADS) {   /* warp-uniform */
        if (T == SRT_KV_Q8) {
            /* items (position, k): lane l takes word 32 k + l of the position's row; 8 items' loads at a time */
            const int W = hd / 4, KW = (W + 31) / 32, nb = hd / 32, items = 32 * KW;
            float s = 0.0f;
            for (int b0 = 0; b0 < items; b0 += 8) {
                int wd[8];
                uint16_t ks[8];
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int it = b0 + u, p = i0 + it / KW, w = 32 * (it % KW) + lane;
                    const bool ok = it < items && p <= pos && w < W;
                    const unsigned char *kr = kb + (size_t)p * pstride;
                    wd[u] = ok ? *(const int *)(kr + 4 * w) : 0;
                    ks[u] = ok ? *(const uint16_t *)(kr + hd + 2 * (w / 8)) : (uint16_t)0;
                }
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int it = b0 + u, p = i0 + it / KW, k = it % KW, w = 32 * k + lane;
                    if (it >= items || p > pos) break;   /* warp-uniform */
                    int dot = w < W ? __dp4a(wd[u], ((const int *)s_q)[w], 0) : 0;
                    dot += __shfl_xor_sync(0xffffffffu, dot, 1);   /* exact: the block's 8 lanes */
                    dot += __shfl_xor_sync(0xffffffffu, dot, 2);
                    dot += __shfl_xor_sync(0xffffffffu, dot, 4);
                    const float m = w < W ? s_qd[w / 8] * srt__cu_f16(ks[u]) : 0.0f;
#pragma unroll
                    for (int bb = 0; bb < 4; bb++) {
                        const float db = (float)__shfl_sync(0xffffffffu, dot, 8 * bb), mb = __shfl_sync(0xffffffffu, m, 8 * bb);
                        if (4 * k + bb < nb) s = fmaf(db, mb, s);
                    }
                    if (k == KW - 1) {
                        if (lane == 0) sc[p] = s * scale;
                        s = 0.0f;
                    }
                }
            }
        } else {
            /* E elements per 16-byte load, L = 16 / E lanes per position, 32 / L positions per step */
            constexpr int E = T == SRT_KV_F16 ? 8 : 4, L = 16 / E, ES = T == SRT_KV_F16 ? 2 : 4;
            const int c = lane % L;
#pragma unroll
            for (int step = 0; step < L; step++) {
                const int p = i0 + step * (32 / L) + lane / L;
                const unsigned char *kr = kb + (size_t)p * pstride;
                float acc[E];
#pragma unroll
                for (int e = 0; e < E; e++) acc[e] = 0.0f;
                if (p <= pos) {
#pragma unroll 4
                    for (int k = 0; k < hd / 16; k++) {
                        const int d0 = 16 * k + c * E;
                        const uint4 u = *(const uint4 *)(kr + (size_t)d0 * ES);
                        const uint32_t wv[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            const float kv = T == SRT_KV_F16 ? srt__cu_f16((uint16_t)(wv[e / 2] >> (16 * (e % 2)))) : __uint_as_float(wv[e]);
                            acc[e] = fmaf(kv, s_q[d0 + e], acc[e]);
                        }
                    }
                }
#pragma unroll
                for (int h = 8; h; h >>= 1) {   /* s16[j] += s16[j + h]: across lanes while h >= E */
                    if (h >= E) {
#pragma unroll
                        for (int e = 0; e < E; e++) acc[e] += __shfl_down_sync(0xffffffffu, acc[e], h / E);
                    } else {
#pragma unroll
                        for (int e = 0; e < E; e++) if (e < h) acc[e] += acc[e + h];
                    }
                }
                if (p <= pos && c == 0) sc[p] = acc[0] * scale;
            }
        }
    }
}

/* Chunk c (positions 32 c ..) into stage c % R: lane-strided copies of the rows' 32 dimensions of
   slice sl (Q8: and the word with its scale), and the 32 scores; one commit group per chunk, empty
   past the end. */
template <int T>
static __device__ __forceinline__ void srt__cu_attv_stage(unsigned char *ring, int c, int n, int lane, int sl, int hd, const unsigned char *vb,
                                                         size_t pstride, const float *sc) {
    typedef srt__cu_attv_cfg<T> C;
    const int SB = 32 * C::PB + 128, i0 = 32 * c;
    unsigned char *stg = ring + (c % C::R) * SB;
    if (i0 < n) {
        const int dims = hd - 32 * sl < 32 ? hd - 32 * sl : 32;
        const int cpp = T == SRT_KV_Q8 ? 9 : dims * (T == SRT_KV_F16 ? 2 : 4) / 16;   /* copies per position */
        for (int k = lane; k < 32 * cpp; k += 32) {
            const int j = k / cpp, u = k % cpp;
            if (i0 + j >= n) break;   /* (k grows with j) */
            const unsigned char *vr = vb + (size_t)(i0 + j) * pstride;
            if (T == SRT_KV_Q8) srt__cu_cp_async4(stg + j * C::PB + 4 * u, u < 8 ? vr + 32 * sl + 4 * u : vr + hd + 4 * (sl / 2));
            else srt__cu_cp_async16(stg + j * C::PB + 16 * u, vr + (size_t)(32 * sl) * (T == SRT_KV_F16 ? 2 : 4) + 16 * u);
        }
        if (i0 + lane < n) srt__cu_cp_async4(stg + 32 * C::PB + 4 * lane, sc + i0 + lane);
    }
    srt__cu_cp_async_commit();
}
template <int T>
__global__ void __launch_bounds__(32) srt__cu_attn_values(const srt__cu_step *st, const unsigned char *vc, const float *scores, float *att,
                                                         int nh, int grp, int hd, int KVH, size_t row, int n_ctx, int layer) {
    typedef srt__cu_attv_cfg<T> C;
    enum { SB = 32 * C::PB + 128 };
    __shared__ __align__(16) unsigned char ring[C::R * SB];
    const int lane = (int)threadIdx.x, task = (int)blockIdx.x, sl = (int)blockIdx.y, t = task / nh, hh = task % nh, kvh = hh / grp, n = st->pos + t + 1;
    const float *sc = scores + (size_t)task * (size_t)n_ctx;
    const size_t pstride = (size_t)KVH * row;
    const unsigned char *vb = vc + (size_t)layer * (size_t)n_ctx * pstride + (size_t)kvh * row;
    for (int c = 0; c < C::R - 1; c++) srt__cu_attv_stage<T>(ring, c, n, lane, sl, hd, vb, pstride, sc);   /* the first values on their way */
    float mx = -FLT_MAX;
    for (int i = lane; i < n; i += 128) {   /* exact in any order; NaNs never win */
        float v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] = i + 32 * u < n ? sc[i + 32 * u] : -FLT_MAX;
#pragma unroll
        for (int u = 0; u < 4; u++) if (v[u] > mx) mx = v[u];
    }
#pragma unroll
    for (int o = 16; o; o >>= 1) {
        const float y = __shfl_xor_sync(0xffffffffu, mx, o);
        if (y > mx) mx = y;
    }
    float sum = 0.0f, cur[4], nxt[4];   /* in position order: 128 scores loaded while the 128 before are added */
#pragma unroll
    for (int u = 0; u < 4; u++) cur[u] = 32 * u + lane < n ? sc[32 * u + lane] : 0.0f;
    for (int g = 0; g < n; g += 128) {
#pragma unroll
        for (int u = 0; u < 4; u++) nxt[u] = g + 128 + 32 * u + lane < n ? sc[g + 128 + 32 * u + lane] : 0.0f;
#pragma unroll
        for (int u = 0; u < 4; u++) {
            const int i0 = g + 32 * u, m = n - i0 < 32 ? n - i0 : 32;
            if (m <= 0) break;
            const float e = srt__cu_expf(cur[u] - mx);
            if (m == 32) {
#pragma unroll
                for (int j = 0; j < 32; j++) sum += __shfl_sync(0xffffffffu, e, j);
            } else
                for (int j = 0; j < m; j++) sum += __shfl_sync(0xffffffffu, e, j);
        }
#pragma unroll
        for (int u = 0; u < 4; u++) cur[u] = nxt[u];
    }
    float o = 0.0f;
    for (int c = 0; 32 * c < n; c++) {
        srt__cu_attv_stage<T>(ring, c + C::R - 1, n, lane, sl, hd, vb, pstride, sc);   /* into the stage chunk c - 1 used */
        srt__cu_cp_async_wait_group<C::R - 1>();   /* this lane's copies of chunk c; the warp's after the barrier */
        __syncwarp();
        const unsigned char *stg = ring + (c % C::R) * SB;
        const int m = n - 32 * c < 32 ? n - 32 * c : 32;
        const float p = lane < m ? srt__cu_expf(((const float *)(stg + 32 * C::PB))[lane] - mx) / sum : 0.0f;
        float sv = 0.0f;   /* Q8: the slice's block scale, per position */
#define SRT__CU_ATTV_STEP(j) do { \
            const unsigned char *vr = stg + (j) * C::PB; \
            if (T == SRT_KV_Q8) sv = srt__cu_f16((uint16_t)(*(const uint32_t *)(vr + 32) >> (16 * (sl % 2)))); \
            const float vv = T == SRT_KV_Q8 ? (float)(int8_t)vr[lane] * sv : T == SRT_KV_F16 ? srt__cu_f16(((const uint16_t *)vr)[lane]) : ((const float *)vr)[lane]; \
            o = fmaf(__shfl_sync(0xffffffffu, p, (j)), vv, o); } while (0)
        if (m == 32) {
#pragma unroll
            for (int j = 0; j < 32; j++) SRT__CU_ATTV_STEP(j);
        } else
            for (int j = 0; j < m; j++) SRT__CU_ATTV_STEP(j);
#undef SRT__CU_ATTV_STEP
        __syncwarp();   /* the stage is refilled next */
    }
    srt__cu_cp_async_wait_all();   /* (nothing is left: chunks past the end copy nothing) */
    const int d = 32 * sl + lane;
    if (d < hd) att[((size_t)t * (size_t)nh + (size_t)hh) * (size_t)hd + (size_t)d] = o;
}

__global__ void srt__cu_swiglu(float *g, const float *up, uint64_t n) {
    const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = g[i] * (1.0f / (1.0f + srt__cu_expf(-g[i]))) * up[i];
}

/* ---------------------------------------------------------------- backend table */
static srt__cuda *srt__cu_of(srt_backend *b) { return (srt__cuda *)b->impl; }

static void srt__cu_free_all(std::vector<void *> *allocs) {
    for (size_t i = 0; i < allocs->size(); i++) cudaFree((*allocs)[i]);
    allocs->clear();
}
/* cudaMalloc + copy on the backend's stream; NULL when out of device memory. */
static void *srt__cu_upload(srt__cuda *S, std::vector<void *> *allocs, const void *host, size_t bytes) {
    void *p = nullptr;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) { cudaGetLastError(); return nullptr; }
    allocs->push_back(p);
    if (bytes) srt__cu_note(S, cudaMemcpyAsync(p, host, bytes, cudaMemcpyHostToDevice, S->stream), "copy to the device");
    return p;
}
static void srt__cu_mem_note(char *buf, size_t cap) {
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) snprintf(buf, cap, "; %llu of %llu MiB free", (unsigned long long)(fr >> 20), (unsigned long long)(tot >> 20));
    else { cudaGetLastError(); buf[0] = 0; }
}
static srt_status srt__cu_upload_mat(srt__cuda *S, srt__cuda_model *M, const srt_backend_tensor &t, srt__cuda_mat *out, const char *what,
                                     char *err, size_t cap) {
    srt_tensor_parts lay;
    srt_status st;
    if (t.format > SRT_Q1 && t.format != SRT_TCSL)
        return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "%s: weight format %s has no CUDA kernels (of the sparse formats, tcsl runs on the GPU: srt-pack --sparse-format tcsl)",
                           what, srt_format_name(t.format));
    st = srt_tensor_layout(t.format, t.rows, t.cols, t.group, &lay);
    if (st != SRT_OK) return srt__cu_err(err, cap, st, "%s: tensor %llu x %llu: bad layout", what, (unsigned long long)t.rows, (unsigned long long)t.cols);
    out->format = t.format; out->group = t.group; out->rows = t.rows; out->cols = t.cols;
    out->v = nullptr; out->sc = nullptr; out->toff = nullptr;
    out->tm = (t.rows + SRT__CU_TT - 1) / SRT__CU_TT; out->tk = (t.cols + SRT__CU_TT - 1) / SRT__CU_TT;
    if (t.format == SRT_TCSL) {   /* the words part is as large as its last tile offset says (checked at load) */
        uint32_t words;
        memcpy(&words, (const uint8_t *)t.part[1] + out->tm * out->tk * 4, 4);
        lay.size[0] = (uint64_t)words * 4;
        if (out->tk > M->max_tcsl_tk) M->max_tcsl_tk = out->tk;
        if (t.rows > M->max_tcsl_rows) M->max_tcsl_rows = t.rows;
    }
    out->kp = (t.cols + 31) / 32 * 32;
    out->tiles = (t.rows + 15) / 16;
    out->ng = t.group ? (t.cols + t.group - 1) / t.group : 1;
    out->chunks = t.format >= SRT_Q8 ? out->kp / (uint64_t)(4 * (8 / (t.format == SRT_Q8 ? 8 : t.format == SRT_Q4 ? 4 : t.format == SRT_Q1 ? 1 : 2))) : 0;
    if (out->tiles > 0x7fffffffu || out->ng > 0x7fffffffu || out->kp > 0x7fffffffu)
        return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "%s: tensor %llu x %llu is too large for the CUDA kernels", what,
                           (unsigned long long)t.rows, (unsigned long long)t.cols);
    if (out->kp > M->max_kp) M->max_kp = out->kp;
    if (out->ng > M->max_ng) M->max_ng = out->ng;
    for (int i = 0; i < lay.n_parts && i < 2; i++) {
        void *d;
        std::map<const void *, void *>::iterator f = M->uploaded.find(t.part[i]);
        if (f != M->uploaded.end()) d = f->second;
        else {
            if (!(d = srt__cu_upload(S, &M->allocs, t.part[i], (size_t)lay.size[i]))) {
                char mem[96];
                srt__cu_mem_note(mem, sizeof mem);
                return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory for %s (%s, %llu bytes%s)", what,
                                   i ? "scales" : "values", (unsigned long long)lay.size[i], mem);
            }
            M->uploaded[t.part[i]] = d;
        }
        if (i == 0) out->v = (const uint8_t *)d;
        else if (t.format == SRT_TCSL) out->toff = (const uint32_t *)d;
        else out->sc = (const uint16_t *)d;
    }
    return SRT_OK;
}
static srt_status srt__cu_upload_vec(srt__cuda *S, srt__cuda_model *M, const float *v, size_t n, const float **out, const char *what,
                                     char *err, size_t cap) {
    *out = nullptr;
    if (!v) return SRT_OK;
    if (!(*out = (const float *)srt__cu_upload(S, &M->allocs, v, n * sizeof(float))))
        return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory for %s (%llu bytes)", what, (unsigned long long)(n * sizeof(float)));
    return SRT_OK;
}

static void srt__cu_unload(srt_backend *b, void *model) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_model *M = (srt__cuda_model *)model;
    if (!M) return;
    std::lock_guard<std::mutex> g(S->lock);
    cudaSetDevice(S->device);
    cudaStreamSynchronize(S->stream);
    srt__cu_free_all(&M->allocs);
    cudaGetLastError();
    delete M;
}

static srt_status srt__cu_load(srt_backend *b, const srt_backend_model *m, void **model, char *err, size_t cap) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_model *M;
    srt_status st = SRT_OK;
    char what[64];
    *model = nullptr;
    if (!S->ok) return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "%s", S->open_error.c_str());
    M = new (std::nothrow) srt__cuda_model();
    if (!M) return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of memory");
    M->S = S;
    M->n_vocab = m->n_vocab; M->n_embd = m->n_embd; M->n_ff = m->n_ff; M->n_layer = m->n_layer; M->n_head = m->n_head;
    M->n_head_kv = m->n_head_kv; M->head_dim = m->head_dim; M->rope_dim = m->rope_dim; M->rope_neox = m->rope_neox; M->norm_eps = m->norm_eps;
    M->max_kp = 32; M->max_ng = 1;
    {
        std::lock_guard<std::mutex> g(S->lock);
        cudaSetDevice(S->device);
        srt__cu_reset_fail(S);
        const size_t E = (size_t)m->n_embd, Q = (size_t)m->n_head * m->head_dim, KV = (size_t)m->n_head_kv * m->head_dim;
        M->layers.resize((size_t)m->n_layer);
        if (m->tok_embd.format == SRT_TCSL) {   /* the lookup reads rows */
            st = srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "token_embd in tcsl: the embedding lookup needs a dense format (srt-pack keeps token_embd dense unless told otherwise)");
            goto fail;
        }
        if ((st = srt__cu_upload_mat(S, M, m->tok_embd, &M->tok_embd, "token_embd", err, cap)) != SRT_OK ||
            (st = srt__cu_upload_mat(S, M, m->output, &M->output, "output", err, cap)) != SRT_OK ||
            (st = srt__cu_upload_vec(S, M, m->output_norm, E, &M->output_norm, "output_norm", err, cap)) != SRT_OK) goto fail;
        for (int l = 0; l < m->n_layer; l++) {
            const srt_backend_layer *L = &m->layers[l];
            srt__cuda_layer *D = &M->layers[(size_t)l];
#define SRT__CU_NAME(s) (snprintf(what, sizeof what, "blk.%d.%s", l, s), what)
            if ((st = srt__cu_upload_vec(S, M, L->attn_norm, E, &D->attn_norm, SRT__CU_NAME("attn_norm"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->ffn_norm, E, &D->ffn_norm, SRT__CU_NAME("ffn_norm"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->bq, Q, &D->bq, SRT__CU_NAME("attn_q.bias"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->bk, KV, &D->bk, SRT__CU_NAME("attn_k.bias"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->bv, KV, &D->bv, SRT__CU_NAME("attn_v.bias"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->q_norm, (size_t)m->head_dim, &D->q_norm, SRT__CU_NAME("attn_q_norm"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_vec(S, M, L->k_norm, (size_t)m->head_dim, &D->k_norm, SRT__CU_NAME("attn_k_norm"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->wq, &D->wq, SRT__CU_NAME("attn_q"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->wk, &D->wk, SRT__CU_NAME("attn_k"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->wv, &D->wv, SRT__CU_NAME("attn_v"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->wo, &D->wo, SRT__CU_NAME("attn_output"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->gate, &D->gate, SRT__CU_NAME("ffn_gate"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->up, &D->up, SRT__CU_NAME("ffn_up"), err, cap)) != SRT_OK ||
                (st = srt__cu_upload_mat(S, M, L->down, &D->down, SRT__CU_NAME("ffn_down"), err, cap)) != SRT_OK) goto fail;
#undef SRT__CU_NAME
        }
        /* the host weights may go away after load: wait for the copies */
        srt__cu_note(S, cudaStreamSynchronize(S->stream), "weight upload");
        if ((st = srt__cu_fail_status(S, err, cap)) != SRT_OK) goto fail;
    }
    *model = M;
    return SRT_OK;
fail:
    srt__cu_unload(b, M);
    return st;
}

static void srt__cu_session_destroy(srt_backend *b, void *session) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_session *ss = (srt__cuda_session *)session;
    if (!ss) return;
    std::lock_guard<std::mutex> g(S->lock);
    cudaSetDevice(S->device);
    cudaStreamSynchronize(S->stream);
    for (int i = 0; i < 2; i++) if (ss->graph[i]) cudaGraphExecDestroy(ss->graph[i]);
    void *ps[] = {ss->k_cache, ss->v_cache, ss->x, ss->xb, ss->q, ss->k, ss->v, ss->att, ss->hb, ss->hb2, ss->logits, ss->scores, ss->stage, ss->ws};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) if (ps[i]) cudaFree(ps[i]);
    if (ss->hstage) cudaFreeHost(ss->hstage);
    cudaGetLastError();
    delete ss;
}

static srt_status srt__cu_session_create(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv_type, void **session, char *err, size_t cap) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_model *M = (srt__cuda_model *)model;
    srt__cuda_session *ss = new (std::nothrow) srt__cuda_session();
    *session = nullptr;
    if (!ss) return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of memory");
    if (n_batch > 65535) { delete ss; return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "batches of more than 65535 tokens (%d)", n_batch); }
    if (kv_type != SRT_KV_F32 && kv_type != SRT_KV_F16 && kv_type != SRT_KV_Q8) { delete ss; return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "KV cache type %d", (int)kv_type); }
    const size_t hd = (size_t)M->head_dim;
    ss->M = M; ss->n_ctx = n_ctx; ss->n_batch = n_batch; ss->kv_type = kv_type;
    ss->logit_rows = std::min(n_batch, SRT_DRAFT_MAX + 1);
    ss->kv_row = kv_type == SRT_KV_Q8 ? hd + (hd + 31) / 32 * 2 : hd * (kv_type == SRT_KV_F16 ? 2 : 4);
    const size_t B = (size_t)n_batch, E = (size_t)M->n_embd, Q = (size_t)M->n_head * M->head_dim, KV = (size_t)M->n_head_kv * hd, F = (size_t)M->n_ff;
    const size_t maxk = std::max(E, std::max(Q, F)), kv_bytes = (size_t)M->n_layer * (size_t)n_ctx * (size_t)M->n_head_kv * ss->kv_row;
    ss->toks_off = 256;
    ss->cs_off = ss->toks_off + (B * 4 + 255) / 256 * 256;
    ss->stage_bytes = ss->cs_off + B * (size_t)M->rope_dim * 4 + 16;
    ss->ws_cap = std::max(srt__cu_ws_bytes(M->max_kp, M->max_ng, n_batch),
                          M->max_tcsl_tk ? srt__cu_tcsl_ws_bytes(M->max_tcsl_tk, M->max_tcsl_rows, n_batch) : (size_t)0);
    {
        std::lock_guard<std::mutex> g(S->lock);
        cudaSetDevice(S->device);
        const char *failed = nullptr;
        size_t failed_bytes = 0;
#define SRT__CU_ALLOC(field, bytes, what) \
        if (!failed && cudaMalloc((void **)&ss->field, (bytes) + 64) != cudaSuccess) { ss->field = nullptr; failed = what; failed_bytes = (bytes); }
        SRT__CU_ALLOC(k_cache, kv_bytes, "the K cache") SRT__CU_ALLOC(v_cache, kv_bytes, "the V cache")
        SRT__CU_ALLOC(x, B * E * 4, "activations") SRT__CU_ALLOC(xb, B * maxk * 4, "activations") SRT__CU_ALLOC(q, B * Q * 4, "activations")
        SRT__CU_ALLOC(k, B * KV * 4, "activations") SRT__CU_ALLOC(v, B * KV * 4, "activations") SRT__CU_ALLOC(att, B * Q * 4, "activations")
        SRT__CU_ALLOC(hb, B * F * 4, "activations") SRT__CU_ALLOC(hb2, B * F * 4, "activations")
        SRT__CU_ALLOC(logits, (size_t)ss->logit_rows * (size_t)M->n_vocab * 4, "logits")
        SRT__CU_ALLOC(scores, B * (size_t)M->n_head * (size_t)n_ctx * 4, "attention scores")
        SRT__CU_ALLOC(stage, ss->stage_bytes, "step data") SRT__CU_ALLOC(ws, ss->ws_cap, "matrix product scratch")
#undef SRT__CU_ALLOC
        if (!failed && cudaMallocHost((void **)&ss->hstage, ss->stage_bytes) != cudaSuccess) { ss->hstage = nullptr; failed = "pinned host staging"; failed_bytes = ss->stage_bytes; }
        if (failed) {
            char mem[96];
            cudaGetLastError();
            srt__cu_mem_note(mem, sizeof mem);
            snprintf(err, cap, "out of device memory for %s (%llu bytes; KV cache %llu MiB for %d tokens, %s%s)", failed,
                     (unsigned long long)failed_bytes, (unsigned long long)(2 * kv_bytes >> 20), n_ctx, kv_type == SRT_KV_Q8 ? "q8" : kv_type == SRT_KV_F16 ? "f16" : "f32", mem);
        }
        if (failed) goto oom;
    }
    *session = ss;
    return SRT_OK;
oom:
    srt__cu_session_destroy(b, ss);
    return SRT_ERR_OUT_OF_MEMORY;
}

/* Whether products over the same activations can share one GEMV launch: one token (AUTO's GEMV
   path) and one integer format, group and width. */
static bool srt__cu_gemv_joins(const srt__cuda_mat &a, const srt__cuda_mat &b, int n) {
    return n == 1 && a.format >= SRT_Q8 && a.format <= SRT_Q1 && a.format == b.format && a.group == b.group && a.cols == b.cols;
}
/* the count matrices over the same x all join one GEMV launch */
static bool srt__cu_gemv_all_join(int count, const srt__cuda_mat *const *w, int n) {
    bool all = true;
    for (int i = 0; i < count; i++) all = all && srt__cu_gemv_joins(*w[0], *w[i], n);
    return all;
}
/* ss->xb = RMSNorm(x) (n tokens of len) with weight nw. When `gemv` (the integer GEMV launch over w
   reads xb next), one srt__cu_rmsnorm_q launch writes xb's codes and dx into the
   GEMV's scratch instead, and not xb; *quantized then says so. */
static srt_status srt__cu_norm(srt__cuda *S, srt__cuda_session *ss, const float *x, const float *nw, int len, int n, float eps, const srt__cuda_mat &w,
                               bool gemv, bool *quantized) {
    *quantized = false;
    if (gemv) {
        int8_t *qa;
        float *da;
        const srt_status r = srt__cu_ws_codes(w, n, ss->ws, ss->ws_cap, &qa, &da);
        if (r != SRT_OK) return r;
        const dim3 grid((unsigned)srt__cu_min(w.ng, 256), (unsigned)n);
        srt__cu_rmsnorm_q<<<grid, SRT__CU_NORM_THREADS, 0, S->stream>>>(x, nw, len, eps, w.group, w.ng, w.kp, qa, da);
        srt__cu_launched(S, "rmsnorm and quantization");
        *quantized = true;
        return SRT_OK;
    }
    srt__cu_rmsnorm<<<(unsigned)n, SRT__CU_NORM_THREADS, 0, S->stream>>>(ss->xb, x, nw, len, eps);
    srt__cu_launched(S, "rmsnorm");
    return SRT_OK;
}

/* y_i = W_i x (+ bias_i) for count <= 3 matrices over the same x (q, k, v; gate, up): one GEMV
   launch when they all join (x_quantized: over the codes srt__cu_norm wrote); TCSL matrices of one
   width convert x to f16 once; else a product each. */
static srt_status srt__cu_mm_same_x(srt__cuda *S, srt__cuda_session *ss, int count, const srt__cuda_mat *const *w, float *const *y,
                                    const float *const *bias, const float *x, int n, bool x_quantized) {
    bool tcsl = true;
    srt_status r;
    for (int i = 0; i < count; i++) tcsl = tcsl && w[i]->format == SRT_TCSL && w[i]->cols == w[0]->cols;
    if (srt__cu_gemv_all_join(count, w, n))
        return srt__cu_int_matmul(S, SRT__CU_STORE, count, w, y, bias, w[0]->rows, n, x, ss->ws, ss->ws_cap, false, x_quantized);
    for (int i = 0; i < count; i++) {
        r = tcsl ? srt__cu_tcsl_matmul(S, *w[i], x, n, y[i], w[i]->rows, bias[i], 0, ss->ws, ss->ws_cap, i > 0)
                 : srt__cu_matmul_dev(S, *w[i], x, n, y[i], w[i]->rows, bias[i], 0, ss->ws, ss->ws_cap, SRT_CUDA_PATH_AUTO);
        if (r != SRT_OK) return r;
    }
    return SRT_OK;
}

/* Attention of layer l for n tokens: where the shape fits (srt__cu_attn_split_fits) the scores in C blocks per head (about 4 blocks per SM in all, at most one per 128
   positions of the context) and the values in a warp per 32 dimensions; else srt__cu_attention. */
static srt_status srt__cu_attend(srt__cuda *S, srt__cuda_session *ss, int n, int l, float scale) {
    const srt__cuda_model *M = ss->M;
    const srt__cu_step *st = (const srt__cu_step *)ss->stage;
    const int nh = M->n_head, grp = M->n_head / M->n_head_kv, hd = M->head_dim, KVH = M->n_head_kv;
    const size_t row = ss->kv_row;
    cudaStream_t sm = S->stream;
    if (!srt__cu_attn_split_fits(ss->kv_type, hd, row)) {
        srt__cu_attention<<<(unsigned)(n * nh), SRT__CU_ATTN, 0, sm>>>(st, ss->q, ss->k_cache, ss->v_cache, ss->att, ss->scores, nh, grp, hd, KVH, row, ss->n_ctx, l, ss->kv_type, scale);
        srt__cu_launched(S, "attention");
        return SRT_OK;
    }
    const int chunks = (ss->n_ctx + SRT__CU_ATTS_THREADS - 1) / SRT__CU_ATTS_THREADS, per = std::max(1, 4 * S->sms / (n * nh));
    const dim3 gs((unsigned)(n * nh), (unsigned)std::min(chunks, per)), gv((unsigned)(n * nh), (unsigned)((hd + 31) / 32));
    const srt_kv_type T = ss->kv_type;
    auto *scores = T == SRT_KV_Q8 ? srt__cu_attn_scores<SRT_KV_Q8> : T == SRT_KV_F16 ? srt__cu_attn_scores<SRT_KV_F16> : srt__cu_attn_scores<SRT_KV_F32>;
    auto *values = T == SRT_KV_Q8 ? srt__cu_attn_values<SRT_KV_Q8> : T == SRT_KV_F16 ? srt__cu_attn_values<SRT_KV_F16> : srt__cu_attn_values<SRT_KV_F32>;
    scores<<<gs, SRT__CU_ATTS_THREADS, 0, sm>>>(st, ss->q, ss->k_cache, ss->scores, nh, grp, hd, KVH, row, ss->n_ctx, l, scale);
    srt__cu_launched(S, "attention scores");
    values<<<gv, 32, 0, sm>>>(st, ss->v_cache, ss->scores, ss->att, nh, grp, hd, KVH, row, ss->n_ctx, l);
    srt__cu_launched(S, "attention values");
    S->attn_split_launches++;
    return SRT_OK;
}

/* The kernels of one forward batch of n tokens (step data already on the device), with the logits
   of the last n_logits (0..logit_rows) of them. */
static srt_status srt__cu_enqueue(srt__cuda *S, srt__cuda_session *ss, int n, int n_logits) {
    const srt__cuda_model *M = ss->M;
    const int E = M->n_embd, F = M->n_ff;
    const srt__cu_step *st = (const srt__cu_step *)ss->stage;
    const int32_t *toks = (const int32_t *)(ss->stage + ss->toks_off);
    const float *cs = (const float *)(ss->stage + ss->cs_off);
    const float scale = 1.0f / sqrtf((float)M->head_dim);
    cudaStream_t sm = S->stream;
    srt_status r;
#define SRT__CU_MM(w, xin, nt, out, bias, accum) \
    if ((r = srt__cu_matmul_dev(S, w, xin, nt, out, (w).rows, bias, accum, ss->ws, ss->ws_cap, SRT_CUDA_PATH_AUTO)) != SRT_OK) return r;
    srt__cu_embed<<<srt__cu_blocks((uint64_t)n * (uint64_t)E, 256), 256, 0, sm>>>(M->tok_embd, toks, n, ss->x);
    srt__cu_launched(S, "embedding");
    for (int l = 0; l < M->n_layer; l++) {
        const srt__cuda_layer &L = M->layers[(size_t)l];
        {
            const srt__cuda_mat *w[3] = {&L.wq, &L.wk, &L.wv};
            float *y[3] = {ss->q, ss->k, ss->v};
            const float *b[3] = {L.bq, L.bk, L.bv};
            bool quantized;
            if ((r = srt__cu_norm(S, ss, ss->x, L.attn_norm, E, n, M->norm_eps, L.wq, srt__cu_gemv_all_join(3, w, n), &quantized)) != SRT_OK ||
                (r = srt__cu_mm_same_x(S, ss, 3, w, y, b, ss->xb, n, quantized)) != SRT_OK) return r;
        }
        if (L.q_norm) {   /* qwen3: every q and k head normalized (rows of head_dim, in place) before the rotation */
            srt__cu_rmsnorm<<<(unsigned)(n * M->n_head), SRT__CU_NORM_THREADS, 0, sm>>>(ss->q, ss->q, L.q_norm, M->head_dim, M->norm_eps);
            srt__cu_launched(S, "q norm");
            srt__cu_rmsnorm<<<(unsigned)(n * M->n_head_kv), SRT__CU_NORM_THREADS, 0, sm>>>(ss->k, ss->k, L.k_norm, M->head_dim, M->norm_eps);
            srt__cu_launched(S, "k norm");
        }
        {
            const uint64_t threads = srt__cu_rope_kv_threads(n, M->n_head, M->rope_dim, M->n_head_kv, M->head_dim, ss->kv_type);
            srt__cu_rope_kv<<<srt__cu_blocks(threads, 256), 256, 0, sm>>>(st, l, ss->n_ctx, n, M->n_head, M->n_head_kv, M->head_dim, M->rope_dim, M->rope_neox, cs, ss->q, ss->k, ss->v, ss->kv_type, ss->kv_row, ss->k_cache, ss->v_cache);
            srt__cu_launched(S, "RoPE and KV cache store");
        }
        if ((r = srt__cu_attend(S, ss, n, l, scale)) != SRT_OK) return r;
        SRT__CU_MM(L.wo, ss->att, n, ss->x, nullptr, 1)   /* x += wo att */
        const srt__cuda_mat *gu[2] = {&L.gate, &L.up};
        float *hbs[2] = {ss->hb, ss->hb2};
        const float *no_bias[2] = {nullptr, nullptr};
        const bool gu_gemv = srt__cu_gemv_all_join(2, gu, n), swiglu = gu_gemv && L.gate.rows == L.up.rows;   /* gate, up and SwiGLU in one launch */
        bool quantized;
        if ((r = srt__cu_norm(S, ss, ss->x, L.ffn_norm, E, n, M->norm_eps, L.gate, gu_gemv, &quantized)) != SRT_OK) return r;
        if (swiglu) {
            if ((r = srt__cu_int_matmul(S, SRT__CU_SWIGLU, 2, gu, hbs, no_bias, L.gate.rows, n, ss->xb, ss->ws, ss->ws_cap, false, quantized)) != SRT_OK) return r;
        } else {
            if ((r = srt__cu_mm_same_x(S, ss, 2, gu, hbs, no_bias, ss->xb, n, quantized)) != SRT_OK) return r;
            srt__cu_swiglu<<<srt__cu_blocks((uint64_t)n * (uint64_t)F, 256), 256, 0, sm>>>(ss->hb, ss->hb2, (uint64_t)n * (uint64_t)F);
            srt__cu_launched(S, "swiglu");
        }
        SRT__CU_MM(L.down, ss->hb, n, ss->x, nullptr, 1)   /* x += down hb */
    }
    if (n_logits > 0) {
        srt__cu_rmsnorm<<<(unsigned)n_logits, SRT__CU_NORM_THREADS, 0, sm>>>(ss->xb, ss->x + (size_t)(n - n_logits) * (size_t)E, M->output_norm, E, M->norm_eps);
        srt__cu_launched(S, "rmsnorm");
        SRT__CU_MM(M->output, ss->xb, n_logits, ss->logits, nullptr, 0)
    }
#undef SRT__CU_MM
    return SRT_OK;
}

/* What `launch` (a callable returning srt_status) enqueues on S->stream, captured and instantiated
   as a graph; nullptr if the capture, the launches (*st then says why) or the instantiation fail,
   with the failure cleared: the caller then launches plainly. */
template <class F> static cudaGraphExec_t srt__cu_capture_graph(srt__cuda *S, F launch, srt_status *st) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    *st = SRT_OK;
    if (cudaStreamBeginCapture(S->stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) { cudaGetLastError(); return nullptr; }
    S->capturing = true;
    *st = launch();
    S->capturing = false;
    const cudaError_t e = cudaStreamEndCapture(S->stream, &graph);
    if (e == cudaSuccess && *st == SRT_OK && S->fail_code == cudaSuccess && graph && cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) exec = nullptr;
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    if (!exec) srt__cu_reset_fail(S);
    return exec;
}
/* Captures the one-token forward into a graph (want_logits: with the output matrix); false if
   capture or instantiation fails (the caller then launches plainly). */
static bool srt__cu_capture(srt__cuda *S, srt__cuda_session *ss, int want_logits) {
    srt_status st;
    S->kernels = 0;
    const cudaGraphExec_t exec = srt__cu_capture_graph(S, [&]() { return srt__cu_enqueue(S, ss, 1, want_logits); }, &st);
    if (!exec) return false;
    ss->graph[want_logits ? 1 : 0] = exec;
    ss->graph_kernels[want_logits ? 1 : 0] = S->kernels;
    return true;
}

/* forward_rows (2..n logits rows, at most logit_rows), and forward (0 or 1) */
static srt_status srt__cu_forward_n(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs,
                                    int n_logits, float *logits, char *err, size_t cap) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_session *ss = (srt__cuda_session *)session;
    const srt__cuda_model *M = ss->M;
    srt_status st = SRT_OK;
    const int gi = n_logits ? 1 : 0;
    if (n < 1 || n > ss->n_batch || pos < 0 || pos + n > ss->n_ctx) return srt__cu_err(err, cap, SRT_ERR_INVALID_ARG, "forward: %d tokens at %d", n, pos);
    if (n_logits < 0 || n_logits > n || n_logits > ss->logit_rows || (n_logits && !logits))
        return srt__cu_err(err, cap, SRT_ERR_INVALID_ARG, "forward: the logits of %d of %d tokens (at most %d)", n_logits, n, ss->logit_rows);
    std::lock_guard<std::mutex> g(S->lock);
    cudaSetDevice(S->device);
    srt__cu_reset_fail(S);
    {   /* step data: one copy from pinned memory (the previous forward has finished with it) */
        srt__cu_step *h = (srt__cu_step *)ss->hstage;
        h->pos = pos; h->n = n; h->pad0 = h->pad1 = 0;
        memcpy(ss->hstage + ss->toks_off, tokens, (size_t)n * sizeof(int32_t));
        memcpy(ss->hstage + ss->cs_off, rope_cs, (size_t)n * (size_t)M->rope_dim * sizeof(float));
        srt__cu_note(S, cudaMemcpyAsync(ss->stage, ss->hstage, ss->cs_off + (size_t)n * (size_t)M->rope_dim * sizeof(float),
                                        cudaMemcpyHostToDevice, S->stream), "copy of the step data");
    }
    if (n == 1 && S->graphs && !S->sync_each && !ss->graph[gi] && !ss->graph_failed[gi] && S->fail_code == cudaSuccess)
        if (!srt__cu_capture(S, ss, gi)) ss->graph_failed[gi] = true;
    S->kernels = 0;
    S->step_graph = n == 1 && ss->graph[gi];
    if (S->step_graph) {
        srt__cu_note(S, cudaGraphLaunch(ss->graph[gi], S->stream), "decode graph launch");
        S->kernels = ss->graph_kernels[gi];
    } else st = srt__cu_enqueue(S, ss, n, n_logits);
    S->step_kernels = S->kernels;
    if (st == SRT_OK && n_logits)
        srt__cu_note(S, cudaMemcpyAsync(logits, ss->logits, (size_t)n_logits * (size_t)M->n_vocab * sizeof(float), cudaMemcpyDeviceToHost, S->stream),
                     "copy of the logits");
    srt__cu_note(S, cudaStreamSynchronize(S->stream), "forward (synchronize)");
    if (st != SRT_OK) return srt__cu_err(err, cap, st, "out of device memory (matrix product scratch)");
    return srt__cu_fail_status(S, err, cap);
}
static srt_status srt__cu_forward(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs,
                                  float *logits, char *err, size_t cap) {
    return srt__cu_forward_n(b, session, tokens, n, pos, rope_cs, logits ? 1 : 0, logits, err, cap);
}

/* Session state: one layer of the K or V cache, positions 0..n-1 (contiguous on the device, rows as the CPU's). */
static srt_status srt__cu_kv_copy(srt_backend *b, void *session, int which, int layer, int n, void *host, int to_device, char *err, size_t cap) {
    srt__cuda *S = srt__cu_of(b);
    srt__cuda_session *ss = (srt__cuda_session *)session;
    const size_t pos_bytes = (size_t)ss->M->n_head_kv * ss->kv_row, bytes = (size_t)n * pos_bytes;
    if (which < 0 || which > 1 || layer < 0 || layer >= ss->M->n_layer || n < 0 || n > ss->n_ctx)
        return srt__cu_err(err, cap, SRT_ERR_INVALID_ARG, "kv_copy: cache %d, layer %d, %d positions", which, layer, n);
    std::lock_guard<std::mutex> g(S->lock);
    cudaSetDevice(S->device);
    srt__cu_reset_fail(S);
    unsigned char *dev = (which ? ss->v_cache : ss->k_cache) + (size_t)layer * (size_t)ss->n_ctx * pos_bytes;
    if (bytes) srt__cu_note(S, cudaMemcpyAsync(to_device ? (void *)dev : host, to_device ? (const void *)host : (const void *)dev, bytes,
                                               to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, S->stream), "copy of the KV cache");
    srt__cu_note(S, cudaStreamSynchronize(S->stream), "KV cache copy (synchronize)");
    return srt__cu_fail_status(S, err, cap);
}

static void srt__cu_destroy(srt_backend *b) {
    srt__cuda *S = srt__cu_of(b);
    if (!S) return;
    if (S->ok) {
        cudaSetDevice(S->device);
        if (S->blas) cublasDestroy(S->blas);
        if (S->stream) cudaStreamDestroy(S->stream);
        cudaGetLastError();
    }
    delete S;
}

/* ---------------------------------------------------------------- public functions */
static std::string srt__cu_version(int v) {
    char b[32];
    if (v <= 0) return "none";
    snprintf(b, sizeof b, "%d.%d", v / 1000, v % 1000 / 10);
    return b;
}

SRT_API srt_backend *srt_cuda_backend(int device) {
    srt__cuda *S = new (std::nothrow) srt__cuda();
    int rt = 0, drv = 0, count = 0;
    cudaError_t e;
    char buf[512];
    if (!S) return nullptr;
    memset(&S->b, 0, sizeof S->b);
    S->last_error[0] = 0;
    S->device = device;
    S->b.impl = S;
    S->b.load = srt__cu_load; S->b.unload = srt__cu_unload;
    S->b.session_create = srt__cu_session_create; S->b.session_destroy = srt__cu_session_destroy;
    S->b.forward = srt__cu_forward; S->b.forward_rows = srt__cu_forward_n; S->b.destroy = srt__cu_destroy; S->b.kv_copy = srt__cu_kv_copy;
    {
        const char *g = getenv("SRT_CUDA_GRAPHS"), *sy = getenv("SRT_CUDA_SYNC"), *sk = getenv("SRT_CUDA_SPLIT_K"), *pd = getenv("SRT_CUDA_PDL");
        S->pdl = !(pd && pd[0] == '0');
        if (getenv("SRT_CUDA_GEMV_BLOCKS")) S->gemv_blocks = atoi(getenv("SRT_CUDA_GEMV_BLOCKS"));
        if (getenv("SRT_CUDA_MMA_MIN")) { S->mma_min = atoi(getenv("SRT_CUDA_MMA_MIN")); S->mma_work = 0; }
        S->graphs = !(g && g[0] == '0');
        if (sk && sk[0]) S->split_k = atoi(sk) > 0 ? atoi(sk) : 0;
        S->sync_each = sy && sy[0] && sy[0] != '0';
    }
    cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    const std::string versions = "CUDA runtime " + srt__cu_version(rt) + ", driver " + srt__cu_version(drv);
    e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && (device < 0 || device >= count)) {
        snprintf(buf, sizeof buf, "cannot open CUDA device %d: %d device%s found", device, count, count == 1 ? "" : "s");
        S->open_error = buf;
    } else if (e == cudaSuccess) {
        cudaDeviceProp p;
        if ((e = cudaSetDevice(device)) == cudaSuccess && (e = cudaGetDeviceProperties(&p, device)) == cudaSuccess &&
            (e = cudaStreamCreateWithFlags(&S->stream, cudaStreamNonBlocking)) == cudaSuccess) {
            int bv = 0;
            std::string blas;
            if (cublasCreate(&S->blas) == CUBLAS_STATUS_SUCCESS && cublasSetStream(S->blas, S->stream) == CUBLAS_STATUS_SUCCESS &&
                cublasGetVersion(S->blas, &bv) == CUBLAS_STATUS_SUCCESS) {
                snprintf(buf, sizeof buf, "cuBLAS %d.%d.%d", bv / 10000, bv / 100 % 100, bv % 100);
                blas = buf;
            } else {
                if (S->blas) cublasDestroy(S->blas);
                S->blas = nullptr;
                blas = "cuBLAS unavailable (the CUBLAS path is refused)";
            }
            S->ok = true;
            S->sms = p.multiProcessorCount;
            S->pdl = S->pdl && p.major >= 9;
            S->name = std::string("cuda: ") + p.name;
            snprintf(buf, sizeof buf, "%s; device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB; %s", versions.c_str(), device, p.name,
                     p.major, p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), blas.c_str());
            S->info = buf;
        } else {
            snprintf(buf, sizeof buf, "cannot open CUDA device %d: %s (%s)", device, cudaGetErrorString(e), cudaGetErrorName(e));
            S->open_error = buf;
            if (S->stream) cudaStreamDestroy(S->stream);
            S->stream = nullptr;
        }
    } else {
        snprintf(buf, sizeof buf, "cannot open CUDA device %d: %s (%s)", device, cudaGetErrorString(e), cudaGetErrorName(e));
        S->open_error = buf;
    }
    cudaGetLastError();
    if (!S->ok) {
        S->name = "cuda: no device";
        S->info = versions + "; " + S->open_error;
    }
    S->b.name = S->name.c_str();
    return &S->b;
}

SRT_API const char *srt_cuda_info(srt_backend *b) { return b && b->impl ? srt__cu_of(b)->info.c_str() : ""; }
SRT_API const char *srt_cuda_last_error(srt_backend *b) { return b && b->impl ? srt__cu_of(b)->last_error : ""; }
SRT_API int srt_cuda_last_step_kernels(srt_backend *b) {
    if (!b || !b->impl) return 0;
    srt__cuda *S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    return S->step_kernels;
}
SRT_API int srt_cuda_last_step_graph(srt_backend *b) {
    if (!b || !b->impl) return 0;
    srt__cuda *S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    return S->step_graph ? 1 : 0;
}
SRT_API void srt_cuda_set_cublas_min_tokens(srt_backend *b, int n) {
    if (!b || !b->impl) return;
    srt__cuda *S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    S->cublas_min = n > 0 ? n : 0;
}
SRT_API void srt_cuda_set_split_k(srt_backend *b, int blocks_per_sm) {
    if (!b || !b->impl) return;
    srt__cuda *S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    S->split_k = blocks_per_sm > 0 ? blocks_per_sm : 0;
}

/* Weights, activations, bias and output of one product on the device (srt_cuda_matmul, bench). */
struct srt__cu_mm_job {
    srt__cuda_model M;
    srt__cuda_mat w;
    float *dx = nullptr, *dy = nullptr;
    const float *db = nullptr;
    void *ws = nullptr;
    size_t ws_cap = 0;
};
static srt_backend_tensor srt__cu_mm_tensor(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols) {
    srt_backend_tensor t;
    t.format = format; t.group = group; t.rows = rows; t.cols = cols;
    for (int i = 0; i < 4; i++) t.part[i] = nullptr;
    for (int i = 0; i < ((format >= SRT_Q8 && format <= SRT_Q1) || format == SRT_TCSL ? 2 : 1); i++) t.part[i] = parts[i];
    return t;
}
static srt_status srt__cu_mm_setup(srt__cuda *S, srt__cu_mm_job *j, srt_format format, uint32_t group, const void *const *parts,
                                   uint64_t rows, uint64_t cols, int n, const float *x, const float *bias, char *err, size_t cap) {
    const srt_backend_tensor t = srt__cu_mm_tensor(format, group, parts, rows, cols);
    srt_status st;
    j->M.S = S; j->M.max_kp = 32; j->M.max_ng = 1; j->M.max_tcsl_tk = 0; j->M.max_tcsl_rows = 0;
    if ((st = srt__cu_upload_mat(S, &j->M, t, &j->w, "the matrix", err, cap)) != SRT_OK) return st;
    const size_t xb = (size_t)n * (size_t)cols * sizeof(float), yb = (size_t)n * (size_t)rows * sizeof(float);
    if (x) j->dx = (float *)srt__cu_upload(S, &j->M.allocs, x, xb);
    else if (cudaMalloc((void **)&j->dx, xb) == cudaSuccess) {
        j->M.allocs.push_back(j->dx);
        srt__cu_note(S, cudaMemsetAsync(j->dx, 0, xb, S->stream), "memset");
    } else j->dx = nullptr;
    if (cudaMalloc((void **)&j->dy, yb) == cudaSuccess) j->M.allocs.push_back(j->dy); else j->dy = nullptr;
    j->ws_cap = format == SRT_TCSL ? srt__cu_tcsl_ws_bytes(j->w.tk, rows, n) : srt__cu_ws_bytes(j->w.kp, j->w.ng, n);
    if (cudaMalloc(&j->ws, j->ws_cap) == cudaSuccess) j->M.allocs.push_back(j->ws); else j->ws = nullptr;
    if (bias && (st = srt__cu_upload_vec(S, &j->M, bias, (size_t)rows, &j->db, "the bias", err, cap)) != SRT_OK) return st;
    if (!j->dx || !j->dy || !j->ws) {
        cudaGetLastError();
        return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory (activations, output or scratch of %d x %llu)", n, (unsigned long long)cols);
    }
    return SRT_OK;
}
static srt_status srt__cu_mm_check(srt__cuda *S, srt_format format, uint32_t group, const void *const *parts, uint64_t rows,
                                   uint64_t cols, int n, int have_x, int have_y) {
    srt_tensor_parts lay;
    char *err = S->last_error;
    const size_t cap = sizeof S->last_error;
    err[0] = 0;
    if (!S->ok) return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "%s", S->open_error.c_str());
    if (n < 1 || n > 65535 || !have_x || !have_y || !parts || (int)format < 0 || (int)format >= (int)SRT_FORMAT_COUNT)
        return srt__cu_err(err, cap, SRT_ERR_INVALID_ARG, "srt_cuda_matmul: bad arguments");
    if (srt_tensor_layout(format, rows, cols, group, &lay) != SRT_OK)
        return srt__cu_err(err, cap, SRT_ERR_SHAPE, "srt_cuda_matmul: bad shape or group (%s)", srt_last_error());
    return SRT_OK;
}

SRT_API srt_status srt_cuda_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                   uint64_t rows, uint64_t cols, int n, const float *x, const float *bias, float *y,
                                   srt_cuda_path path) {
    srt__cuda *S;
    srt_status st;
    if (!b || !b->impl) return SRT_ERR_INVALID_ARG;
    S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    if ((st = srt__cu_mm_check(S, format, group, parts, rows, cols, n, x != nullptr, y != nullptr)) != SRT_OK) return st;
    char *err = S->last_error;
    const size_t cap = sizeof S->last_error;
    cudaSetDevice(S->device);
    srt__cu_reset_fail(S);
    srt__cu_mm_job j;
    if ((st = srt__cu_mm_setup(S, &j, format, group, parts, rows, cols, n, x, bias, err, cap)) == SRT_OK) {
        st = srt__cu_matmul_dev(S, j.w, j.dx, n, j.dy, rows, j.db, 0, j.ws, j.ws_cap, path);
        if (st == SRT_ERR_UNSUPPORTED) srt__cu_err(err, cap, st, "kernel path %d is not available for %s%s", (int)path, srt_format_name(format),
                                                   S->blas ? "" : " (no cuBLAS)");
        else if (st != SRT_OK) srt__cu_err(err, cap, st, "out of device memory (scratch)");
        else srt__cu_note(S, cudaMemcpyAsync(y, j.dy, (size_t)n * (size_t)rows * sizeof(float), cudaMemcpyDeviceToHost, S->stream), "copy of the result");
    }
    srt__cu_note(S, cudaStreamSynchronize(S->stream), "matmul (synchronize)");
    if (st == SRT_OK) st = srt__cu_fail_status(S, err, cap);
    srt__cu_free_all(&j.M.allocs);
    cudaGetLastError();
    return st;
}

SRT_API srt_status srt_cuda_bench_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                         uint64_t rows, uint64_t cols, int n, srt_cuda_path path, int iters,
                                         double *ms_per_call) {
    srt__cuda *S;
    srt_status st;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    if (!b || !b->impl) return SRT_ERR_INVALID_ARG;
    S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    if ((st = srt__cu_mm_check(S, format, group, parts, rows, cols, n, 1, ms_per_call != nullptr)) != SRT_OK) return st;
    char *err = S->last_error;
    const size_t cap = sizeof S->last_error;
    if (iters < 1) iters = 1;
    *ms_per_call = 0.0;
    cudaSetDevice(S->device);
    srt__cu_reset_fail(S);
    srt__cu_mm_job j;
    if ((st = srt__cu_mm_setup(S, &j, format, group, parts, rows, cols, n, nullptr, nullptr, err, cap)) == SRT_OK) {
        /* more copies of the weights, cycled, until they are twice the L2 cache (at most 64; fewer if
           memory runs out): a model's layers do not stay in L2 between calls, so the timing must not either */
        std::vector<srt__cuda_mat> w(1, j.w);
        int l2 = 0;
        size_t before = 0, after = 0, total = 0;
        char scratch[96];
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, S->device);
        cudaMemGetInfo(&before, &total);
        for (size_t per = 0; w.size() < 64 && (per == 0 || per * w.size() < 2 * (size_t)l2);) {
            const srt_backend_tensor t = srt__cu_mm_tensor(format, group, parts, rows, cols);
            srt__cuda_mat m;
            j.M.uploaded.clear();
            if (srt__cu_upload_mat(S, &j.M, t, &m, "a copy of the matrix", scratch, sizeof scratch) != SRT_OK) break;
            w.push_back(m);
            cudaMemGetInfo(&after, &total);
            if (per == 0) per = before > after ? before - after : 1;
        }
        cudaGetLastError();
        srt__cu_note(S, cudaEventCreate(&e0), "cudaEventCreate");
        srt__cu_note(S, cudaEventCreate(&e1), "cudaEventCreate");
        st = srt__cu_matmul_dev(S, j.w, j.dx, n, j.dy, rows, nullptr, 0, j.ws, j.ws_cap, path);   /* warm-up */
        /* one call per copy captured as a graph, replayed: the kernels follow each other as in a
           decode step's graph, without the host's launch cost between them (which, for a small
           matrix, is longer than the kernels: a plain loop would time the host) */
        cudaGraphExec_t exec = nullptr;   /* none: the plain loop below */
        const int reps = (int)w.size(), launches = (iters + reps - 1) / reps;
        if (st == SRT_OK && S->fail_code == cudaSuccess && S->graphs)
            exec = srt__cu_capture_graph(S, [&]() {
                srt_status r = SRT_OK;
                for (int i = 0; i < reps && r == SRT_OK; i++) r = srt__cu_matmul_dev(S, w[(size_t)i], j.dx, n, j.dy, rows, nullptr, 0, j.ws, j.ws_cap, path);
                return r;
            }, &st);
        if (exec) {
            srt__cu_note(S, cudaGraphLaunch(exec, S->stream), "bench graph launch");   /* warm-up */
            srt__cu_note(S, cudaEventRecord(e0, S->stream), "cudaEventRecord");
            for (int i = 0; i < launches; i++) srt__cu_note(S, cudaGraphLaunch(exec, S->stream), "bench graph launch");
            srt__cu_note(S, cudaEventRecord(e1, S->stream), "cudaEventRecord");
            iters = launches * reps;
        } else if (st == SRT_OK && S->fail_code == cudaSuccess) {
            srt__cu_note(S, cudaEventRecord(e0, S->stream), "cudaEventRecord");
            for (int i = 0; i < iters && st == SRT_OK; i++) st = srt__cu_matmul_dev(S, w[(size_t)i % w.size()], j.dx, n, j.dy, rows, nullptr, 0, j.ws, j.ws_cap, path);
            srt__cu_note(S, cudaEventRecord(e1, S->stream), "cudaEventRecord");
        }
        srt__cu_note(S, cudaStreamSynchronize(S->stream), "bench (synchronize)");
        if (exec) cudaGraphExecDestroy(exec);
        if (st == SRT_OK && S->fail_code == cudaSuccess) {
            float ms = 0.0f;
            srt__cu_note(S, cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            *ms_per_call = (double)ms / iters;
        }
        if (st == SRT_ERR_UNSUPPORTED) srt__cu_err(err, cap, st, "kernel path %d is not available for %s", (int)path, srt_format_name(format));
        else if (st != SRT_OK) srt__cu_err(err, cap, st, "out of device memory (scratch)");
        if (e0) cudaEventDestroy(e0);
        if (e1) cudaEventDestroy(e1);
    }
    cudaStreamSynchronize(S->stream);
    if (st == SRT_OK) st = srt__cu_fail_status(S, err, cap);
    srt__cu_free_all(&j.M.allocs);
    cudaGetLastError();
    return st;
}

/* srt_cuda_bench_read: the buffer's words from a hash of their index (nothing a compressor could use);
   the read kernel takes 4 loads per thread in flight per step. */
static __global__ void srt__cu_fill_words(uint4 *p, uint64_t n) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t h = (uint32_t)(i * 0x9E3779B97F4A7C15ull >> 32);
        p[i] = make_uint4(h, h * 0x85EBCA6Bu, h ^ 0xC2B2AE35u, (uint32_t)i);
    }
}
static __global__ void srt__cu_read_words(const uint4 *__restrict__ p, uint64_t n, uint32_t *out) {
    __shared__ uint32_t part[32];
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t acc = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
        acc ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^ (d.x ^ d.y ^ d.z ^ d.w);
    }
    for (; i < n; i += stride) { const uint4 a = p[i]; acc ^= a.x ^ a.y ^ a.z ^ a.w; }
    for (int o = 16; o > 0; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned w = 1; w < blockDim.x / 32; w++) acc ^= part[w];
        out[blockIdx.x] = acc;
    }
}

SRT_API srt_status srt_cuda_bench_read(srt_backend *b, uint64_t bytes, int iters, double *gb_per_s) {
    srt__cuda *S;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    uint4 *buf = nullptr;
    uint32_t *out = nullptr;
    if (!b || !b->impl) return SRT_ERR_INVALID_ARG;
    S = srt__cu_of(b);
    std::lock_guard<std::mutex> g(S->lock);
    char *err = S->last_error;
    const size_t cap = sizeof S->last_error;
    const uint64_t n = bytes / 16;
    err[0] = 0;
    if (!S->ok) return srt__cu_err(err, cap, SRT_ERR_UNSUPPORTED, "%s", S->open_error.c_str());
    if (!gb_per_s || n < 1) return srt__cu_err(err, cap, SRT_ERR_INVALID_ARG, "srt_cuda_bench_read: bad arguments (bytes < 16 or no output)");
    if (iters < 1) iters = 1;
    *gb_per_s = 0.0;
    cudaSetDevice(S->device);
    srt__cu_reset_fail(S);
    const unsigned threads = 256, blocks = (unsigned)srt__cu_min((uint64_t)(S->sms > 0 ? S->sms : 1) * 8, (n + threads - 1) / threads);
    if (cudaMalloc((void **)&buf, n * 16) != cudaSuccess || cudaMalloc((void **)&out, blocks * sizeof(uint32_t)) != cudaSuccess) {
        char note[96];
        cudaGetLastError();
        srt__cu_mem_note(note, sizeof note);
        if (buf) cudaFree(buf);
        return srt__cu_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory for a read buffer of %llu MB%s",
                           (unsigned long long)(n * 16 / 1000000), note);
    }
    srt__cu_fill_words<<<blocks, threads, 0, S->stream>>>(buf, n);
    srt__cu_launched(S, "fill");
    srt__cu_read_words<<<blocks, threads, 0, S->stream>>>(buf, n, out);   /* warm-up */
    srt__cu_launched(S, "read");
    srt__cu_note(S, cudaEventCreate(&e0), "cudaEventCreate");
    srt__cu_note(S, cudaEventCreate(&e1), "cudaEventCreate");
    if (S->fail_code == cudaSuccess) {
        srt__cu_note(S, cudaEventRecord(e0, S->stream), "cudaEventRecord");
        for (int i = 0; i < iters; i++) srt__cu_read_words<<<blocks, threads, 0, S->stream>>>(buf, n, out);
        srt__cu_launched(S, "read");
        srt__cu_note(S, cudaEventRecord(e1, S->stream), "cudaEventRecord");
    }
    srt__cu_note(S, cudaStreamSynchronize(S->stream), "bench read (synchronize)");
    if (S->fail_code == cudaSuccess) {
        float ms = 0.0f;
        srt__cu_note(S, cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
        if (ms > 0.0f) *gb_per_s = (double)(n * 16) * iters / ((double)ms * 1e-3) / 1e9;
    }
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(out);
    cudaFree(buf);
    const srt_status st = srt__cu_fail_status(S, err, cap);
    cudaGetLastError();
    return st;
}

#endif /* SPARSERT_CUDA_DONE */
#endif /* SPARSERT_CUDA */
