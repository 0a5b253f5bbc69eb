/* sparsert_sycl.h - SYCL 2020 backend of sparsert.h: low-bit GEMV/GEMM and the whole transformer
   forward pass on a SYCL device (Intel GPUs: Arc / Xe2; any SYCL 2020 device works).

   HOW TO USE
     In one C++ file compiled by a SYCL compiler (icpx -fsycl, acpp, ...):
         #define SPARSERT_SYCL
         #include "sparsert_sycl.h"
     The rest of the app (C or C++, any compiler) includes sparsert.h with SPARSERT_IMPLEMENTATION
     in one file as usual, and sparsert_sycl.h (without SPARSERT_SYCL) where it needs the
     declarations below. Then:
         srt_backend *gpu = srt_sycl_backend(0);     // first GPU, else the first device
         srt_model_desc md = {0};
         md.backend = gpu;                           // weights are uploaded once by srt_model_load
         srt_model_load("model.srt", &md, &model);   // sessions, feed, next: as on the CPU
         ...
         srt_model_free(model); srt_backend_free(gpu);
     `./build.sh sycl` builds tests/test_sycl.cpp this way (build/test-sycl).

   WHAT RUNS ON THE DEVICE
     Every forward batch: embedding lookup, RMSNorm, q/k/v (+ biases), RoPE (both pairings; the
     angles come from the core, so llama3/linear scaling are exactly the CPU's), the KV cache
     (f16 or f32) and attention with grouped-query heads, the output projection, SwiGLU FFN,
     residuals, the final norm and the output matrix. Only the last token's logits are copied back;
     sampling stays on the CPU.
     Matrix products read the weights in the layouts of formats/LAYOUTS.md, unchanged:
     - GEMV (one token): one work-group per tile of 16 rows; activation quantization is fused into
       it (each work-group takes the abs-max of the groups it works on and quantizes them as it
       reads them), integer codes x int8 activations summed exactly in int32 per group, then the
       reference epilogue y = fma(acc_g, scale_g * dx_g, y) in group order, + bias.
     - GEMM (a prompt batch): a separate quantization pass (int8 codes + one scale per token and
       group), then one work-item per 2 rows x 4 tokens, each decoded weight reused for 4 tokens
       and each activation for 2 rows from registers; the same epilogue. Small shapes (few rows x
       tokens) split the groups over work-items (K-splitting): int32 group sums go to memory and a
       second kernel applies the epilogue in group order.
     - F32/F16/BF16 weights: 16 lanes per row, lane j summing elements k = j mod 16 with fma, the
       lanes reduced by halves: the CPU reference dot product.
     - Activations may be F32, F16 or BF16 (srt_sycl_matmul); the forward pass uses F32.
     Because integer sums are exact and every float operation is done in the CPU reference's order,
     all results equal the CPU's bit for bit on a device with IEEE f32 (fma, division and sqrt
     correctly rounded; build with -ffp-contract=off, and for icpx -fp-model=precise
     -fsycl-fp32-prec-sqrt). Nothing depends on the sub-group size: the portable kernels use
     work-group local memory and barriers only (CPU SYCL implementations run sub-groups of 1).
     Xe2 / DPAS: with Intel's matrix extension (SYCL_EXT_INTEL_MATRIX, defined by icpx's
     <sycl/sycl.hpp>) a joint_matrix int8 GEMM is compiled in for Q8 weights, whose tiles already
     are DPAS's packed B layout (see formats/LAYOUTS.md); srt_sycl_matmul(...,
     SRT_SYCL_PATH_DPAS) uses it when the device lists the kernel's shape (s8 x s8 -> s32,
     M 8, N 16, K 32, sub-groups of 16: Xe2 and PVC, not DG2's N 8), else it returns
     SRT_ERR_UNSUPPORTED. Other compilers compile it away; so does #define SRT_SYCL_NO_DPAS.

   LIMITS
     One device per backend, one queue (in order); sessions of one backend take turns. The
     session observer is not called with a backend.

   LICENSE
     MIT, as sparsert.h.
*/
#ifndef SPARSERT_SYCL_H
#define SPARSERT_SYCL_H
#include "sparsert.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend on SYCL device `device`: 0 = the first GPU (the first device of any kind when there is
   no GPU), i > 0 = the i-th device after it in the list GPUs, accelerators, CPUs; -1 = the SYCL
   default selector. NULL only when out of host memory: a device that cannot be opened makes
   srt_model_load fail with the reason (srt_sycl_info says it too). Free with srt_backend_free. */
SRT_API srt_backend *srt_sycl_backend(int device);
/* One line: SYCL implementation and version, device, sub-group sizes, DPAS availability. */
SRT_API const char *srt_sycl_info(srt_backend *b);
/* Message of the last failed srt_sycl_matmul on this backend ("" if none). */
SRT_API const char *srt_sycl_last_error(srt_backend *b);

/* Kernel paths of srt_sycl_matmul (tests and benchmarks); AUTO is what the forward pass does. */
typedef enum srt_sycl_path {
    SRT_SYCL_PATH_AUTO = 0,     /* GEMV for n = 1, else GEMM (K-split when the shape is small) */
    SRT_SYCL_PATH_GEMV = 1,     /* the fused-quantization kernel, one work-group per (token, tile) */
    SRT_SYCL_PATH_GEMM = 2,     /* quantization pass + register-blocked kernel, no K-split */
    SRT_SYCL_PATH_KSPLIT = 3,   /* quantization pass + K-split kernel + epilogue kernel */
    SRT_SYCL_PATH_DPAS = 4      /* joint_matrix (Q8 only, oneAPI matrix extension and hardware) */
} srt_sycl_path;
/* y[t * rows + r] = W[r] . x[t] (+ bias[r]) for t < n on the device, as srt_matmul on the CPU.
   x: n x cols values of x_format (SRT_F32, SRT_F16 or SRT_BF16); bias may be NULL. Integer
   formats take the same path choice; float weights always use the float kernel. */
SRT_API srt_status srt_sycl_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                   uint64_t rows, uint64_t cols, int n, const void *x, srt_format x_format,
                                   const float *bias, float *y, srt_sycl_path path);

#ifdef __cplusplus
}
#endif
#endif /* SPARSERT_SYCL_H */

/* ================================================================================================
   Implementation (only with SPARSERT_SYCL, in a C++ file compiled by a SYCL compiler)
   ================================================================================================ */
#ifdef SPARSERT_SYCL
#ifndef SPARSERT_SYCL_DONE
#define SPARSERT_SYCL_DONE
#ifndef __cplusplus
#  error "sparsert_sycl.h: SPARSERT_SYCL needs a C++ SYCL compiler (icpx -fsycl, acpp)"
#endif
#include <sycl/sycl.hpp>
#include <algorithm>
#include <cfloat>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <map>
#include <new>
#include <string>
#include <vector>

/* DPC++ (icpx) defines SYCL_EXT_INTEL_MATRIX (and SYCL_EXT_ONEAPI_MATRIX) in <sycl/sycl.hpp>, which
   includes the joint_matrix headers unconditionally; SYCL_EXT_ONEAPI_MATRIX_VERSION is only a macro
   that users of old DPC++ versions passed with -D, the headers never define it. SRT_SYCL_NO_DPAS
   leaves the kernel out (e.g. DPC++ builds for CUDA / HIP targets). */
#if !defined(SRT_SYCL_NO_DPAS) && (defined(SYCL_EXT_INTEL_MATRIX) || defined(SYCL_EXT_ONEAPI_MATRIX_VERSION))
#  define SRT__SYCL_DPAS 1      /* joint_matrix exists at compile time (icpx); the device is asked at run time */
#else
#  define SRT__SYCL_DPAS 0
#endif

/* ---------------------------------------------------------------- device helpers */
/* Bit-exact copies of the core's conversions (sparsert.h section 3): integer operations only, so
   every device gives the CPU's values. */
static inline float srt__sycl_bits_f32(uint32_t b) { return sycl::bit_cast<float>(b); }
static inline float srt__sycl_f16(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
    else if (exp) bits = sign | ((exp + 112) << 23) | (man << 13);
    else if (man) {
        int e = -1;
        do { e++; man <<= 1; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else bits = sign;
    return srt__sycl_bits_f32(bits);
}
static inline uint16_t srt__sycl_to_f16(float f) {   /* round to nearest even */
    uint32_t x = sycl::bit_cast<uint32_t>(f), sign, man;
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
static inline float srt__sycl_bf16(uint16_t h) { return srt__sycl_bits_f32((uint32_t)h << 16); }
/* activation / weight element as f32: XM 0 = f32, 1 = f16, 2 = bf16 */
template <int XM> static inline float srt__sycl_ld(const void *p, uint64_t i) {
    if (XM == 0) return ((const float *)p)[i];
    if (XM == 1) return srt__sycl_f16(((const uint16_t *)p)[i]);
    return srt__sycl_bf16(((const uint16_t *)p)[i]);
}
/* the core's srt__expf: the same polynomial and operations */
static inline float srt__sycl_expf(float x) {
    float n, r, p;
    x = x < 88.0f ? x : 88.0f;
    x = x > -87.0f ? x : -87.0f;
    n = sycl::fma(x, 1.44269504f, 12582912.0f) - 12582912.0f;
    r = sycl::fma(n, -0.693145752f, x);
    r = sycl::fma(n, -1.42860677e-6f, r);
    p = sycl::fma(1.0f / 720.0f, r, 1.0f / 120.0f);
    p = sycl::fma(p, r, 1.0f / 24.0f);
    p = sycl::fma(p, r, 1.0f / 6.0f);
    p = sycl::fma(p, r, 0.5f);
    p = sycl::fma(p, r, 1.0f);
    p = sycl::fma(p, r, 1.0f);
    return p * srt__sycl_bits_f32((uint32_t)((int32_t)n + 127) << 23);
}
/* Integer formats (formats/LAYOUTS.md): bits per code and value(code). */
template <int F> struct srt__sycl_fmt {
    static constexpr int bits = F == SRT_Q8 ? 8 : F == SRT_Q4 ? 4 : F == SRT_Q1 ? 1 : 2;
    static constexpr int per_byte = 8 / bits;
    static constexpr int kstep = 4 * per_byte;
    static constexpr uint32_t mask = (1u << bits) - 1;
    static inline int value(uint32_t code) {
        return F == SRT_Q8 ? (int)(int8_t)(uint8_t)code
             : F == SRT_Q4 ? (int)code - 8 : F == SRT_Q2 ? 2 * (int)code - 3 : F == SRT_TQ ? (int)code - 1 : 2 * (int)code - 1;
    }
};

/* ---------------------------------------------------------------- state */
/* A weight matrix on the device. */
struct srt__sycl_mat {
    srt_format format;
    uint32_t group;
    uint64_t rows, cols;
    const uint8_t *v;        /* values part (float formats: the elements) */
    const uint16_t *sc;      /* scales part (integer formats) */
    uint64_t kp, chunks, ng, tiles;
};
struct srt__sycl_buf {       /* grow-only device scratch */
    void *p = nullptr;
    size_t cap = 0;
};
struct srt__sycl {
    srt_backend b;
    sycl::queue *q = nullptr;
    sycl::device dev;
    std::string name, info, open_error;
    char last_error[512];
    int parts = 16;          /* work-items per row of a tile in the GEMV kernel (16 x parts <= max work-group) */
    int attn_wg = 64;
    size_t max_wg = 1;
    bool dpas = false;       /* matrix extension compiled in and the device has combinations */
};
struct srt__sycl_layer {
    const float *attn_norm, *ffn_norm, *bq, *bk, *bv;
    const float *q_norm, *k_norm;   /* head_dim floats (qwen3) or null */
    srt__sycl_mat wq, wk, wv, wo, gate, up, down;
};
struct srt__sycl_model {
    srt__sycl *S;
    std::vector<void *> allocs;
    std::map<const void *, void *> uploaded;   /* host part -> device copy (tied embeddings share) */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim, rope_neox;
    float norm_eps;
    srt__sycl_mat tok_embd, output;
    const float *output_norm;
    std::vector<srt__sycl_layer> layers;
};
struct srt__sycl_session {
    srt__sycl_model *M;
    int n_ctx, n_batch, kv_f16, kv_dim;
    void *k_cache, *v_cache;
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2, *logits, *cs, *scores;
    int32_t *toks;
    srt__sycl_buf ws;        /* GEMM: quantized activations, scales, K-split sums */
};

static srt_status srt__sycl_err(char *err, size_t cap, srt_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && cap) vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return st;
}

/* ---------------------------------------------------------------- matrix kernels */
/* GEMV with fused activation quantization. Work-group = 16 rows (i) x P parts (p), one per
   (token, tile). Groups are taken P at a time; each of them gets P / (groups in the batch) parts,
   which (1) take the abs-max of a slice of the group's activations (combined in local memory:
   max is exact), (2) quantize the activations of their chunks on the fly and sum code values x q
   in int32; part 0 of each row then adds the parts (exact) and applies the epilogue in group
   order. */
template <int F, int XM>
static void srt__sycl_gemv_int(srt__sycl *S, const srt__sycl_mat &w, const void *x, int n, float *y, uint64_t ldy, const float *bias) {
    typedef srt__sycl_fmt<F> fm;
    const int P = S->parts, WG = 16 * P;
    const srt__sycl_mat W = w;
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<float, 1> lmax(sycl::range<1>((size_t)WG), h);
        sycl::local_accessor<int32_t, 1> lacc(sycl::range<1>((size_t)WG), h);
        sycl::local_accessor<float, 1> ld(sycl::range<1>((size_t)P), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>((size_t)n, (size_t)W.tiles * WG), sycl::range<2>(1, (size_t)WG)),
                       [=](sycl::nd_item<2> it) {
            const int l = (int)it.get_local_id(1), i = l % 16, p = l / 16;
            const uint64_t t = it.get_group(0), tile = it.get_group(1), K = W.cols, G = W.group, cpg = G / fm::kstep;
            const uint8_t *xt = (const uint8_t *)x + t * K * (XM == 0 ? 4 : 2);
            float yv = 0.0f;
            for (uint64_t gb0 = 0; gb0 < W.ng; gb0 += (uint64_t)P) {
                const int gn = (int)(W.ng - gb0 < (uint64_t)P ? W.ng - gb0 : (uint64_t)P), pp = P / gn, gl = p / pp, sub = p % pp;
                const bool active = gl < gn;
                const uint64_t g = gb0 + (uint64_t)gl, k0 = g * G, klen = active ? (K - k0 < G ? K - k0 : G) : 0;
                float am = 0.0f;
                for (uint64_t kk = (uint64_t)(sub * 16 + i); kk < klen; kk += (uint64_t)pp * 16) {
                    float a = sycl::fabs(srt__sycl_ld<XM>(xt, k0 + kk));
                    if (a > am) am = a;
                }
                lmax[l] = am;
                sycl::group_barrier(it.get_group());
                if (active && sub == 0 && i == 0) {
                    float m = 0.0f;
                    for (int j = gl * pp * 16; j < (gl + 1) * pp * 16; j++) if (lmax[j] > m) m = lmax[j];
                    ld[gl] = m / 127.0f;
                }
                sycl::group_barrier(it.get_group());
                int32_t acc = 0;
                if (active) {
                    const float d = ld[gl], id = d > 0.0f ? 1.0f / d : 0.0f;
                    const uint64_t c1 = (g + 1) * cpg < W.chunks ? (g + 1) * cpg : W.chunks;
                    for (uint64_t c = g * cpg + (uint64_t)sub; c < c1; c += (uint64_t)pp) {
                        const uint8_t *ch = W.v + (tile * W.chunks + c) * 64 + 4 * i;
                        for (int b = 0; b < 4; b++) {
                            const uint32_t byte = ch[b];
                            for (int s = 0; s < fm::per_byte; s++) {
                                const uint64_t k = c * fm::kstep + 4 * (uint64_t)s + (uint64_t)b;
                                if (k < K) acc += fm::value((byte >> (s * fm::bits)) & fm::mask) * (int32_t)sycl::round(srt__sycl_ld<XM>(xt, k) * id);
                            }
                        }
                    }
                }
                lacc[l] = acc;
                sycl::group_barrier(it.get_group());
                if (p == 0)
                    for (int gi = 0; gi < gn; gi++) {
                        int32_t a = 0;
                        for (int sb = 0; sb < pp; sb++) a += lacc[(gi * pp + sb) * 16 + i];
                        yv = sycl::fma((float)a, srt__sycl_f16(W.sc[(tile * W.ng + gb0 + (uint64_t)gi) * 16 + (uint64_t)i]) * ld[gi], yv);
                    }
                sycl::group_barrier(it.get_group());
            }
            const uint64_t r = tile * 16 + (uint64_t)i;
            if (p == 0 && r < W.rows) y[t * ldy + r] = yv + (bias ? bias[r] : 0.0f);
        });
    });
}

/* Quantization pass of the GEMM: per (token, group) one work-group: q = round(x / dx) into
   qa[t * kp + k] (zeros from cols to kp), dx into da[t * ng + g]. */
template <int XM>
static void srt__sycl_quantize(srt__sycl *S, const srt__sycl_mat &w, const void *x, int n, int8_t *qa, float *da) {
    const int QW = (int)std::min<size_t>(64, S->max_wg);
    const uint64_t K = w.cols, G = w.group, ng = w.ng, kp = w.kp;
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<float, 1> lmax(sycl::range<1>((size_t)QW), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>((size_t)n, (size_t)(ng * QW)), sycl::range<2>(1, (size_t)QW)),
                       [=](sycl::nd_item<2> it) {
            const int l = (int)it.get_local_id(1);
            const uint64_t t = it.get_group(0), g = it.get_group(1), k0 = g * G, len = K - k0 < G ? K - k0 : G;
            const uint8_t *xt = (const uint8_t *)x + t * K * (XM == 0 ? 4 : 2);
            float am = 0.0f;
            for (uint64_t k = (uint64_t)l; k < len; k += (uint64_t)QW) {
                float a = sycl::fabs(srt__sycl_ld<XM>(xt, k0 + k));
                if (a > am) am = a;
            }
            lmax[l] = am;
            sycl::group_barrier(it.get_group());
            float m = 0.0f;
            for (int j = 0; j < QW; j++) if (lmax[j] > m) m = lmax[j];
            const float d = m / 127.0f, id = d > 0.0f ? 1.0f / d : 0.0f;
            if (l == 0) da[t * ng + g] = d;
            for (uint64_t k = (uint64_t)l; k < len; k += (uint64_t)QW) qa[t * kp + k0 + k] = (int8_t)sycl::round(srt__sycl_ld<XM>(xt, k0 + k) * id);
            if (g == ng - 1)
                for (uint64_t k = K + (uint64_t)l; k < kp; k += (uint64_t)QW) qa[t * kp + k] = 0;
        });
    });
}

/* GEMM on quantized activations: one work-item = RB rows (of one tile) x TB tokens over groups
   [g0, g1); each code is decoded once for TB tokens and each activation used for RB rows. KS = 0:
   the epilogue follows each group (y written); KS = 1: the int32 group sums go to accs[(t * rows_pad + r) * ng + g]. */
#define SRT__SYCL_RB 2
#define SRT__SYCL_TB 4
template <int F, int KS>
static void srt__sycl_gemm_int(srt__sycl *S, const srt__sycl_mat &w, const int8_t *qa, const float *da, int n, int splits,
                               float *y, uint64_t ldy, const float *bias, int32_t *accs) {
    typedef srt__sycl_fmt<F> fm;
    const srt__sycl_mat W = w;
    const uint64_t rows_pad = W.tiles * 16, gps = (W.ng + (uint64_t)splits - 1) / (uint64_t)splits;
    const size_t ntb = (size_t)((n + SRT__SYCL_TB - 1) / SRT__SYCL_TB);
    S->q->parallel_for(sycl::range<3>((size_t)splits, ntb, (size_t)(rows_pad / SRT__SYCL_RB)), [=](sycl::item<3> it) {
        const uint64_t sp = it.get_id(0), t0 = it.get_id(1) * SRT__SYCL_TB, r0 = it.get_id(2) * SRT__SYCL_RB;
        const uint64_t tile = r0 / 16, i0 = r0 % 16, K = W.cols, cpg = W.group / fm::kstep, kp = W.kp;
        const int nt = (int)((uint64_t)n - t0 < SRT__SYCL_TB ? (uint64_t)n - t0 : SRT__SYCL_TB);
        const uint64_t g0 = sp * gps, g1 = g0 + gps < W.ng ? g0 + gps : W.ng;
        float yv[SRT__SYCL_TB][SRT__SYCL_RB];
        for (int tt = 0; tt < SRT__SYCL_TB; tt++) for (int rb = 0; rb < SRT__SYCL_RB; rb++) yv[tt][rb] = 0.0f;
        (void)K;
        for (uint64_t g = g0; g < g1; g++) {
            int32_t acc[SRT__SYCL_TB][SRT__SYCL_RB];
            for (int tt = 0; tt < SRT__SYCL_TB; tt++) for (int rb = 0; rb < SRT__SYCL_RB; rb++) acc[tt][rb] = 0;
            const uint64_t c1 = (g + 1) * cpg < W.chunks ? (g + 1) * cpg : W.chunks;
            for (uint64_t c = g * cpg; c < c1; c++) {
                const uint8_t *ch = W.v + (tile * W.chunks + c) * 64 + 4 * i0;
                for (int b = 0; b < 4; b++) {
                    uint32_t byte[SRT__SYCL_RB];
                    for (int rb = 0; rb < SRT__SYCL_RB; rb++) byte[rb] = ch[4 * rb + b];
                    for (int s = 0; s < fm::per_byte; s++) {
                        const uint64_t k = c * fm::kstep + 4 * (uint64_t)s + (uint64_t)b;   /* < kp; q is 0 beyond cols */
                        int val[SRT__SYCL_RB];
                        for (int rb = 0; rb < SRT__SYCL_RB; rb++) val[rb] = fm::value((byte[rb] >> (s * fm::bits)) & fm::mask);
                        for (int tt = 0; tt < SRT__SYCL_TB; tt++) {
                            const int32_t qv = tt < nt ? (int32_t)qa[(t0 + (uint64_t)tt) * kp + k] : 0;
                            for (int rb = 0; rb < SRT__SYCL_RB; rb++) acc[tt][rb] += val[rb] * qv;
                        }
                    }
                }
            }
            for (int tt = 0; tt < nt; tt++)
                for (int rb = 0; rb < SRT__SYCL_RB; rb++) {
                    if (KS) accs[((t0 + (uint64_t)tt) * rows_pad + r0 + (uint64_t)rb) * W.ng + g] = acc[tt][rb];
                    else yv[tt][rb] = sycl::fma((float)acc[tt][rb], srt__sycl_f16(W.sc[(tile * W.ng + g) * 16 + i0 + (uint64_t)rb]) * da[(t0 + (uint64_t)tt) * W.ng + g], yv[tt][rb]);
                }
        }
        if (!KS)
            for (int tt = 0; tt < nt; tt++)
                for (int rb = 0; rb < SRT__SYCL_RB; rb++) {
                    const uint64_t r = r0 + (uint64_t)rb;
                    if (r < W.rows) y[(t0 + (uint64_t)tt) * ldy + r] = yv[tt][rb] + (bias ? bias[r] : 0.0f);
                }
    });
}
/* K-split epilogue: y = fma(acc_g, scale_g * dx_g, y) over g in order, + bias. */
static void srt__sycl_ksplit_epilogue(srt__sycl *S, const srt__sycl_mat &w, const int32_t *accs, const float *da, int n,
                                      float *y, uint64_t ldy, const float *bias) {
    const srt__sycl_mat W = w;
    const uint64_t rows_pad = W.tiles * 16;
    S->q->parallel_for(sycl::range<2>((size_t)n, (size_t)W.rows), [=](sycl::item<2> it) {
        const uint64_t t = it.get_id(0), r = it.get_id(1);
        float yv = 0.0f;
        for (uint64_t g = 0; g < W.ng; g++)
            yv = sycl::fma((float)accs[(t * rows_pad + r) * W.ng + g], srt__sycl_f16(W.sc[((r / 16) * W.ng + g) * 16 + r % 16]) * da[t * W.ng + g], yv);
        y[t * ldy + r] = yv + (bias ? bias[r] : 0.0f);
    });
}

/* Float weights (FM) x activations (XM): RW rows per work-group, 16 lanes per row, lane j sums
   k = j mod 16 with fma; the lanes are reduced by halves (the CPU reference order). */
template <int FM, int XM>
static void srt__sycl_mv_float(srt__sycl *S, const srt__sycl_mat &w, const void *x, int n, float *y, uint64_t ldy, const float *bias) {
    const int RW = (int)std::max<size_t>(1, std::min<size_t>(8, S->max_wg / 16)), WG = 16 * RW;
    const srt__sycl_mat W = w;
    const size_t groups = (size_t)((W.rows + (uint64_t)RW - 1) / (uint64_t)RW);
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<float, 1> ls(sycl::range<1>((size_t)WG), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>((size_t)n, groups * WG), sycl::range<2>(1, (size_t)WG)), [=](sycl::nd_item<2> it) {
            const int l = (int)it.get_local_id(1), j = l % 16, rl = l / 16;
            const uint64_t t = it.get_group(0), r = it.get_group(1) * (uint64_t)RW + (uint64_t)rl, K = W.cols;
            const uint8_t *xt = (const uint8_t *)x + t * K * (XM == 0 ? 4 : 2);
            float s = 0.0f;
            if (r < W.rows)
                for (uint64_t k = (uint64_t)j; k < K; k += 16) s = sycl::fma(srt__sycl_ld<FM>(W.v, r * K + k), srt__sycl_ld<XM>(xt, k), s);
            ls[l] = s;
            for (int hh = 8; hh; hh >>= 1) {
                sycl::group_barrier(it.get_group());
                if (j < hh) ls[l] += ls[l + hh];
            }
            if (j == 0 && r < W.rows) y[t * ldy + r] = ls[l] + (bias ? bias[r] : 0.0f);
        });
    });
}

#if SRT__SYCL_DPAS
/* Xe2 / XMX: Q8 tiles are the packed (VNNI4) B operand of an 8 x 16 x 32 int8 DPAS as stored:
   chunk c of a tile holds k = 4c..4c+3 for the tile's 16 rows at byte 4 * row + k % 4, i.e.
   B[k][n] at ((k / 4) * 16 + n) * 4 + k % 4 with a row stride of 16. One sub-group computes 8
   tokens x 16 rows; per group of G columns the int32 accumulator tile is stored to local memory and
   the reference epilogue applied in group order. Needs the device's sub-group size to be 16
   (Xe2 / PVC); the quantized activations come from srt__sycl_quantize (A = 8 tokens x 32 codes). */
namespace srt__sycl_xmx = sycl::ext::oneapi::experimental::matrix;
static void srt__sycl_gemm_dpas(srt__sycl *S, const srt__sycl_mat &w, const int8_t *qa, const float *da, int n,
                                float *y, uint64_t ldy, const float *bias) {
    const srt__sycl_mat W = w;
    const size_t ntb = (size_t)((n + 7) / 8);
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<int32_t, 1> lc(sycl::range<1>(8 * 16), h);
        sycl::local_accessor<int8_t, 1> la(sycl::range<1>(8 * 32), h);
        h.parallel_for(sycl::nd_range<2>(sycl::range<2>(ntb, (size_t)W.tiles * 16), sycl::range<2>(1, 16)),
                       [=](sycl::nd_item<2> it) [[sycl::reqd_sub_group_size(16)]] {
            sycl::sub_group sg = it.get_sub_group();
            const int lane = (int)it.get_local_id(1);
            const uint64_t t0 = it.get_group(0) * 8, tile = it.get_group(1), cpg = W.group / 4;
            float yv[8];
            for (int m = 0; m < 8; m++) yv[m] = 0.0f;
            srt__sycl_xmx::joint_matrix<sycl::sub_group, int8_t, srt__sycl_xmx::use::a, 8, 32, srt__sycl_xmx::layout::row_major> ma;
            srt__sycl_xmx::joint_matrix<sycl::sub_group, int8_t, srt__sycl_xmx::use::b, 32, 16, srt__sycl_xmx::layout::ext_intel_packed> mb;
            srt__sycl_xmx::joint_matrix<sycl::sub_group, int32_t, srt__sycl_xmx::use::accumulator, 8, 16, srt__sycl_xmx::layout::dynamic> mc;
            for (uint64_t g = 0; g < W.ng; g++) {
                srt__sycl_xmx::joint_matrix_fill(sg, mc, 0);
                const uint64_t c1 = (g + 1) * cpg < W.chunks ? (g + 1) * cpg : W.chunks;
                for (uint64_t c = g * cpg; c < c1; c += 8) {   /* 8 chunks = 32 columns */
                    for (int e = lane; e < 8 * 32; e += 16) {   /* A: 8 tokens x 32 codes, zero rows past n */
                        const uint64_t t = t0 + (uint64_t)(e / 32);
                        la[e] = t < (uint64_t)n ? qa[t * W.kp + c * 4 + (uint64_t)(e % 32)] : (int8_t)0;
                    }
                    sycl::group_barrier(sg);
                    srt__sycl_xmx::joint_matrix_load(sg, ma, la.template get_multi_ptr<sycl::access::decorated::no>(), 32);
                    srt__sycl_xmx::joint_matrix_load(sg, mb, sycl::address_space_cast<sycl::access::address_space::global_space, sycl::access::decorated::no>(
                                                         (int8_t *)(W.v + (tile * W.chunks + c) * 64)), 16 * 4);
                    srt__sycl_xmx::joint_matrix_mad(sg, mc, ma, mb, mc);
                    sycl::group_barrier(sg);
                }
                srt__sycl_xmx::joint_matrix_store(sg, mc, lc.template get_multi_ptr<sycl::access::decorated::no>(), 16, srt__sycl_xmx::layout::row_major);
                sycl::group_barrier(sg);
                const float sc = srt__sycl_f16(W.sc[(tile * W.ng + g) * 16 + (uint64_t)lane]);
                for (int m = 0; m < 8; m++)
                    if (t0 + (uint64_t)m < (uint64_t)n) yv[m] = sycl::fma((float)lc[m * 16 + lane], sc * da[(t0 + (uint64_t)m) * W.ng + g], yv[m]);
                sycl::group_barrier(sg);
            }
            const uint64_t r = tile * 16 + (uint64_t)lane;
            for (int m = 0; m < 8; m++)
                if (r < W.rows && t0 + (uint64_t)m < (uint64_t)n) y[(t0 + (uint64_t)m) * ldy + r] = yv[m] + (bias ? bias[r] : 0.0f);
        });
    });
}
#endif

/* Scratch of the GEMM path for n tokens of w: quantized activations, scales, K-split sums. */
static size_t srt__sycl_gemm_bytes(const srt__sycl_mat &w, int n, int ksplit) {
    size_t b = (size_t)n * (size_t)w.kp + 64 + (size_t)n * (size_t)w.ng * 4 + 64;
    if (ksplit) b += (size_t)n * (size_t)(w.tiles * 16) * (size_t)w.ng * 4;
    return b;
}
/* GEMM K-split when the plain kernel would have fewer work-items than this. */
#define SRT__SYCL_KSPLIT_ITEMS 4096u

/* y = W x (+ bias) for n tokens on the device; ws must hold srt__sycl_gemm_bytes for the GEMM
   paths. Returns SRT_ERR_UNSUPPORTED for a path that is not available. */
template <int XM>
static srt_status srt__sycl_matmul_dev(srt__sycl *S, const srt__sycl_mat &w, const void *x, int n, float *y, uint64_t ldy,
                                       const float *bias, srt__sycl_buf *ws, srt_sycl_path path) {
    if (w.format == SRT_F32 || w.format == SRT_F16 || w.format == SRT_BF16) {
        if (w.format == SRT_F32) srt__sycl_mv_float<0, XM>(S, w, x, n, y, ldy, bias);
        else if (w.format == SRT_F16) srt__sycl_mv_float<1, XM>(S, w, x, n, y, ldy, bias);
        else srt__sycl_mv_float<2, XM>(S, w, x, n, y, ldy, bias);
        return SRT_OK;
    }
    if (path == SRT_SYCL_PATH_AUTO) {
        uint64_t items = (w.tiles * 16 / SRT__SYCL_RB) * (uint64_t)((n + SRT__SYCL_TB - 1) / SRT__SYCL_TB);
        path = n == 1 ? SRT_SYCL_PATH_GEMV : items < SRT__SYCL_KSPLIT_ITEMS && w.ng >= 4 ? SRT_SYCL_PATH_KSPLIT : SRT_SYCL_PATH_GEMM;
    }
    if (path == SRT_SYCL_PATH_GEMV) {
        switch (w.format) {
            case SRT_Q8: srt__sycl_gemv_int<SRT_Q8, XM>(S, w, x, n, y, ldy, bias); break;
            case SRT_Q4: srt__sycl_gemv_int<SRT_Q4, XM>(S, w, x, n, y, ldy, bias); break;
            case SRT_Q2: srt__sycl_gemv_int<SRT_Q2, XM>(S, w, x, n, y, ldy, bias); break;
            case SRT_TQ: srt__sycl_gemv_int<SRT_TQ, XM>(S, w, x, n, y, ldy, bias); break;
            default: srt__sycl_gemv_int<SRT_Q1, XM>(S, w, x, n, y, ldy, bias); break;
        }
        return SRT_OK;
    }
    if (path == SRT_SYCL_PATH_DPAS && !(S->dpas && w.format == SRT_Q8)) return SRT_ERR_UNSUPPORTED;
    {
        const int ks = path == SRT_SYCL_PATH_KSPLIT;
        const size_t need = srt__sycl_gemm_bytes(w, n, ks);
        int8_t *qa;
        float *da;
        int32_t *accs;
        int splits = 1;
        if (ws->cap < need) {
            S->q->wait();   /* kernels in flight may still read the old scratch */
            if (ws->p) sycl::free(ws->p, *S->q);
            ws->p = sycl::malloc_device(need, *S->q);
            ws->cap = ws->p ? need : 0;
            if (!ws->p) return SRT_ERR_OUT_OF_MEMORY;
        }
        qa = (int8_t *)ws->p;
        da = (float *)((uint8_t *)ws->p + ((size_t)n * (size_t)w.kp + 63) / 64 * 64);
        accs = (int32_t *)((uint8_t *)da + ((size_t)n * (size_t)w.ng * 4 + 63) / 64 * 64);
        srt__sycl_quantize<XM>(S, w, x, n, qa, da);
#if SRT__SYCL_DPAS
        if (path == SRT_SYCL_PATH_DPAS) { srt__sycl_gemm_dpas(S, w, qa, da, n, y, ldy, bias); return SRT_OK; }
#endif
        if (ks) {   /* enough splits for ~KSPLIT_ITEMS work-items, at least 1 group each */
            uint64_t items = (w.tiles * 16 / SRT__SYCL_RB) * (uint64_t)((n + SRT__SYCL_TB - 1) / SRT__SYCL_TB);
            uint64_t sp = (SRT__SYCL_KSPLIT_ITEMS + items - 1) / items;
            splits = (int)(sp < w.ng ? sp : w.ng);
            if (splits < 1) splits = 1;
        }
#define SRT__SYCL_GEMM(FMT) \
        if (ks) srt__sycl_gemm_int<FMT, 1>(S, w, qa, da, n, splits, y, ldy, bias, accs); \
        else srt__sycl_gemm_int<FMT, 0>(S, w, qa, da, n, 1, y, ldy, bias, accs);
        switch (w.format) {
            case SRT_Q8: SRT__SYCL_GEMM(SRT_Q8) break;
            case SRT_Q4: SRT__SYCL_GEMM(SRT_Q4) break;
            case SRT_Q2: SRT__SYCL_GEMM(SRT_Q2) break;
            case SRT_TQ: SRT__SYCL_GEMM(SRT_TQ) break;
            default: SRT__SYCL_GEMM(SRT_Q1) break;
        }
#undef SRT__SYCL_GEMM
        if (ks) srt__sycl_ksplit_epilogue(S, w, accs, da, n, y, ldy, bias);
    }
    return SRT_OK;
}

/* ---------------------------------------------------------------- transformer kernels */
/* o[t] = w * (1 / sqrt(mean(x[t]^2) + eps) * x[t]) for n rows of len; the sum of squares is the
   reference dot product (16 lanes, reduced by halves). */
static void srt__sycl_rmsnorm(srt__sycl *S, float *o, const float *x, const float *w, int n, int len, float eps) {
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<float, 1> ls(sycl::range<1>(16), h);
        h.parallel_for(sycl::nd_range<1>(sycl::range<1>((size_t)n * 16), sycl::range<1>(16)), [=](sycl::nd_item<1> it) {
            const int j = (int)it.get_local_id(0);
            const uint64_t t = it.get_group(0);
            const float *xt = x + t * (uint64_t)len;
            float s = 0.0f, ss;
            for (int k = j; k < len; k += 16) s = sycl::fma(xt[k], xt[k], s);
            ls[j] = s;
            for (int hh = 8; hh; hh >>= 1) {
                sycl::group_barrier(it.get_group());
                if (j < hh) ls[j] += ls[j + hh];
            }
            sycl::group_barrier(it.get_group());
            ss = ls[0];
            ss /= (float)len;
            ss += eps;
            ss = 1.0f / sycl::sqrt(ss);
            for (int k = j; k < len; k += 16) o[t * (uint64_t)len + (uint64_t)k] = w[k] * (ss * xt[k]);
        });
    });
}

static void srt__sycl_embed(srt__sycl *S, const srt__sycl_mat &w, const int32_t *toks, int n, float *x) {
    const srt__sycl_mat W = w;
    S->q->parallel_for(sycl::range<2>((size_t)n, (size_t)W.cols), [=](sycl::item<2> it) {
        const uint64_t t = it.get_id(0), k = it.get_id(1), r = (uint64_t)toks[t], K = W.cols;
        float v;
        if (W.format == SRT_F32) v = ((const float *)W.v)[r * K + k];
        else if (W.format == SRT_F16) v = srt__sycl_f16(((const uint16_t *)W.v)[r * K + k]);
        else if (W.format == SRT_BF16) v = srt__sycl_bf16(((const uint16_t *)W.v)[r * K + k]);
        else {
            const int bits = W.format == SRT_Q8 ? 8 : W.format == SRT_Q4 ? 4 : W.format == SRT_Q1 ? 1 : 2, kstep = 32 / bits;
            const uint64_t c = k / (uint64_t)kstep, wi = k % (uint64_t)kstep;
            const uint32_t code = (uint32_t)(W.v[((r / 16) * W.chunks + c) * 64 + (r % 16) * 4 + wi % 4] >> ((wi / 4) * (uint64_t)bits)) & ((1u << bits) - 1);
            const int val = W.format == SRT_Q8 ? srt__sycl_fmt<SRT_Q8>::value(code) : W.format == SRT_Q4 ? srt__sycl_fmt<SRT_Q4>::value(code)
                          : W.format == SRT_Q2 ? srt__sycl_fmt<SRT_Q2>::value(code) : W.format == SRT_TQ ? srt__sycl_fmt<SRT_TQ>::value(code)
                          : srt__sycl_fmt<SRT_Q1>::value(code);
            v = (float)val * srt__sycl_f16(W.sc[((r / 16) * W.ng + k / W.group) * 16 + r % 16]);
        }
        x[t * K + k] = v;
    });
}

/* Rotates the first rope_dim dimensions of each head of q (n_head) and k (n_head_kv) by the
   core's angles cs[t][i] = (cos, sin); pairs (2i, 2i+1) or, neox, (i, i + rope_dim/2). */
static void srt__sycl_rope(srt__sycl *S, float *vec, int n, int n_heads, int head_dim, int rope_dim, int neox, const float *cs) {
    const int half = rope_dim / 2;
    S->q->parallel_for(sycl::range<3>((size_t)n, (size_t)n_heads, (size_t)half), [=](sycl::item<3> it) {
        const int t = (int)it.get_id(0), hh = (int)it.get_id(1), i = (int)it.get_id(2);
        float *v = vec + ((size_t)t * n_heads + hh) * head_dim;
        const float c = cs[(size_t)t * rope_dim + 2 * i], sn = cs[(size_t)t * rope_dim + 2 * i + 1];
        const int a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
        const float v0 = v[a], v1 = v[b];
        v[a] = v0 * c - v1 * sn;
        v[b] = v0 * sn + v1 * c;
    });
}

static void srt__sycl_kv_store(srt__sycl *S, srt__sycl_session *ss, int layer, int pos, int n) {
    const int KV = ss->kv_dim, f16 = ss->kv_f16;
    const size_t base = ((size_t)layer * ss->n_ctx + (size_t)pos) * KV;
    void *kc = ss->k_cache, *vc = ss->v_cache;
    const float *k = ss->k, *v = ss->v;
    S->q->parallel_for(sycl::range<1>((size_t)n * KV), [=](sycl::id<1> id) {
        const size_t i = id[0];
        if (f16) { ((uint16_t *)kc)[base + i] = srt__sycl_to_f16(k[i]); ((uint16_t *)vc)[base + i] = srt__sycl_to_f16(v[i]); }
        else { ((float *)kc)[base + i] = k[i]; ((float *)vc)[base + i] = v[i]; }
    });
}

/* One work-group per (token, head): scores (reference dot products, one position per work-item),
   max (exact), exp (the core's polynomial), the sum in position order (one work-item), division,
   then each output dimension as fma over positions in order: the CPU's operations exactly. */
static void srt__sycl_attention(srt__sycl *S, srt__sycl_session *ss, int layer, int p0, int n) {
    const srt__sycl_model *M = ss->M;
    const int hd = M->head_dim, nh = M->n_head, grp = M->n_head / M->n_head_kv, KV = ss->kv_dim, n_ctx = ss->n_ctx, f16 = ss->kv_f16;
    const int AW = S->attn_wg;
    const float scale = 1.0f / sqrtf((float)hd);
    const size_t lbase = (size_t)layer * n_ctx * KV;
    const void *kc = ss->k_cache, *vc = ss->v_cache;
    const float *q = ss->q;
    float *att = ss->att, *scores = ss->scores;
    S->q->submit([&](sycl::handler &h) {
        sycl::local_accessor<float, 1> lm(sycl::range<1>((size_t)AW), h);
        h.parallel_for(sycl::nd_range<1>(sycl::range<1>((size_t)n * nh * AW), sycl::range<1>((size_t)AW)), [=](sycl::nd_item<1> it) {
            const int l = (int)it.get_local_id(0), task = (int)it.get_group(0), t = task / nh, hh = task % nh, kvh = hh / grp, pos = p0 + t;
            const float *qh = q + (size_t)t * nh * hd + (size_t)hh * hd;
            float *sc = scores + (size_t)task * n_ctx, *out = att + (size_t)t * nh * hd + (size_t)hh * hd;
            const size_t base = lbase + (size_t)kvh * hd;
            float mx = -FLT_MAX;
            for (int i = l; i <= pos; i += AW) {
                float s16[16];
                for (int j = 0; j < 16; j++) s16[j] = 0.0f;
                for (int d = 0; d < hd; d++) {
                    const float kv = f16 ? srt__sycl_f16(((const uint16_t *)kc)[base + (size_t)i * KV + d]) : ((const float *)kc)[base + (size_t)i * KV + d];
                    s16[d & 15] = sycl::fma(kv, qh[d], s16[d & 15]);
                }
                for (int hf = 8; hf; hf >>= 1) for (int j = 0; j < hf; j++) s16[j] += s16[j + hf];
                sc[i] = s16[0] * scale;
                if (sc[i] > mx) mx = sc[i];
            }
            lm[l] = mx;
            sycl::group_barrier(it.get_group());
            mx = -FLT_MAX;
            for (int j = 0; j < AW; j++) if (lm[j] > mx) mx = lm[j];
            for (int i = l; i <= pos; i += AW) sc[i] = srt__sycl_expf(sc[i] - mx);
            sycl::group_barrier(it.get_group());
            if (l == 0) {
                float sum = 0.0f;
                for (int i = 0; i <= pos; i++) sum += sc[i];
                lm[0] = sum;
            }
            sycl::group_barrier(it.get_group());
            const float sum = lm[0];
            for (int i = l; i <= pos; i += AW) sc[i] /= sum;
            sycl::group_barrier(it.get_group());
            for (int d = l; d < hd; d += AW) {
                float o = 0.0f;
                for (int i = 0; i <= pos; i++) {
                    const float vv = f16 ? srt__sycl_f16(((const uint16_t *)vc)[base + (size_t)i * KV + d]) : ((const float *)vc)[base + (size_t)i * KV + d];
                    o = sycl::fma(sc[i], vv, o);
                }
                out[d] = o;
            }
        });
    });
}

static void srt__sycl_add(srt__sycl *S, float *x, const float *y, size_t n) {
    S->q->parallel_for(sycl::range<1>(n), [=](sycl::id<1> i) { x[i[0]] += y[i[0]]; });
}
static void srt__sycl_swiglu(srt__sycl *S, float *g, const float *up, size_t n) {
    S->q->parallel_for(sycl::range<1>(n), [=](sycl::id<1> id) {
        const size_t i = id[0];
        g[i] = g[i] * (1.0f / (1.0f + srt__sycl_expf(-g[i]))) * up[i];
    });
}

/* ---------------------------------------------------------------- backend table */
static void *srt__sycl_upload(srt__sycl *S, std::vector<void *> *allocs, const void *host, size_t bytes) {
    void *p = sycl::malloc_device(bytes ? bytes : 1, *S->q);
    if (!p) return nullptr;
    allocs->push_back(p);
    if (bytes) S->q->memcpy(p, host, bytes);
    return p;
}
static srt_status srt__sycl_upload_mat(srt__sycl *S, srt__sycl_model *M, const srt_backend_tensor &t, srt__sycl_mat *out, char *err, size_t cap) {
    srt_tensor_parts lay;
    srt_status st;
    if (srt_format_is_sparse(t.format))
        return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "weight format %s has no SYCL kernels yet (sparse formats run on the CPU)", srt_format_name(t.format));
    st = srt_tensor_layout(t.format, t.rows, t.cols, t.group, &lay);
    if (st != SRT_OK) return srt__sycl_err(err, cap, st, "tensor %llu x %llu: bad layout", (unsigned long long)t.rows, (unsigned long long)t.cols);
    out->format = t.format; out->group = t.group; out->rows = t.rows; out->cols = t.cols;
    out->v = nullptr; out->sc = nullptr;
    out->kp = (t.cols + 31) / 32 * 32;
    out->tiles = (t.rows + 15) / 16;
    out->ng = t.group ? (t.cols + t.group - 1) / t.group : 1;
    out->chunks = t.format >= SRT_Q8 ? out->kp / (uint64_t)(4 * (8 / (t.format == SRT_Q8 ? 8 : t.format == SRT_Q4 ? 4 : t.format == SRT_Q1 ? 1 : 2))) : 0;
    for (int i = 0; i < lay.n_parts && i < 2; i++) {
        void *d;
        std::map<const void *, void *>::iterator f = M->uploaded.find(t.part[i]);
        if (f != M->uploaded.end()) d = f->second;
        else {
            if (!(d = srt__sycl_upload(S, &M->allocs, t.part[i], (size_t)lay.size[i])))
                return srt__sycl_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory (a weight of %llu bytes)", (unsigned long long)lay.size[i]);
            M->uploaded[t.part[i]] = d;
        }
        if (i == 0) out->v = (const uint8_t *)d; else out->sc = (const uint16_t *)d;
    }
    return SRT_OK;
}
static srt_status srt__sycl_upload_vec(srt__sycl *S, srt__sycl_model *M, const float *v, size_t n, const float **out, char *err, size_t cap) {
    *out = nullptr;
    if (!v) return SRT_OK;
    if (!(*out = (const float *)srt__sycl_upload(S, &M->allocs, v, n * sizeof(float))))
        return srt__sycl_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory");
    return SRT_OK;
}
static srt__sycl *srt__sycl_of(srt_backend *b) { return (srt__sycl *)b->impl; }

static void srt__sycl_unload(srt_backend *b, void *model) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_model *M = (srt__sycl_model *)model;
    if (!M) return;
    try { S->q->wait(); } catch (...) {}
    for (size_t i = 0; i < M->allocs.size(); i++) sycl::free(M->allocs[i], *S->q);
    delete M;
}

static srt_status srt__sycl_load(srt_backend *b, const srt_backend_model *m, void **model, char *err, size_t cap) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_model *M;
    srt_status st = SRT_OK;
    *model = nullptr;
    if (!S->q) return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "%s", S->open_error.c_str());
    M = new (std::nothrow) srt__sycl_model();
    if (!M) return srt__sycl_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of memory");
    M->S = S;
    M->n_vocab = m->n_vocab; M->n_embd = m->n_embd; M->n_ff = m->n_ff; M->n_layer = m->n_layer; M->n_head = m->n_head;
    M->n_head_kv = m->n_head_kv; M->head_dim = m->head_dim; M->rope_dim = m->rope_dim; M->rope_neox = m->rope_neox; M->norm_eps = m->norm_eps;
    try {
        const size_t E = (size_t)m->n_embd, Q = (size_t)m->n_head * m->head_dim, KV = (size_t)m->n_head_kv * m->head_dim;
        M->layers.resize((size_t)m->n_layer);
        if ((st = srt__sycl_upload_mat(S, M, m->tok_embd, &M->tok_embd, err, cap)) != SRT_OK ||
            (st = srt__sycl_upload_mat(S, M, m->output, &M->output, err, cap)) != SRT_OK ||
            (st = srt__sycl_upload_vec(S, M, m->output_norm, E, &M->output_norm, err, cap)) != SRT_OK) goto fail;
        for (int l = 0; l < m->n_layer; l++) {
            const srt_backend_layer *L = &m->layers[l];
            srt__sycl_layer *D = &M->layers[(size_t)l];
            if ((st = srt__sycl_upload_vec(S, M, L->attn_norm, E, &D->attn_norm, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->ffn_norm, E, &D->ffn_norm, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->bq, Q, &D->bq, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->bk, KV, &D->bk, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->bv, KV, &D->bv, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->q_norm, (size_t)m->head_dim, &D->q_norm, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_vec(S, M, L->k_norm, (size_t)m->head_dim, &D->k_norm, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->wq, &D->wq, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->wk, &D->wk, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->wv, &D->wv, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->wo, &D->wo, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->gate, &D->gate, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->up, &D->up, err, cap)) != SRT_OK ||
                (st = srt__sycl_upload_mat(S, M, L->down, &D->down, err, cap)) != SRT_OK) goto fail;
        }
        S->q->wait_and_throw();   /* the host weights may go away after load */
    } catch (const std::exception &e) {
        st = srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "device error while uploading the weights: %s", e.what());
        goto fail;
    }
    *model = M;
    return SRT_OK;
fail:
    srt__sycl_unload(b, M);
    return st;
}

static void srt__sycl_session_destroy(srt_backend *b, void *session) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_session *ss = (srt__sycl_session *)session;
    if (!ss) return;
    try { S->q->wait(); } catch (...) {}
    void *ps[] = {ss->k_cache, ss->v_cache, ss->x, ss->xb, ss->q, ss->k, ss->v, ss->att, ss->hb, ss->hb2, ss->logits, ss->cs, ss->scores, ss->toks, ss->ws.p};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) if (ps[i]) sycl::free(ps[i], *S->q);
    delete ss;
}

static srt_status srt__sycl_session_create(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv_type, void **session, char *err, size_t cap) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_model *M = (srt__sycl_model *)model;
    *session = nullptr;
    if (kv_type != SRT_KV_F32 && kv_type != SRT_KV_F16)
        return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "a %s KV cache (this backend has F32 and F16 ones)", kv_type == SRT_KV_Q8 ? "Q8" : "unknown");
    const int kv_f16 = kv_type == SRT_KV_F16;
    srt__sycl_session *ss = new (std::nothrow) srt__sycl_session();
    if (!ss) return srt__sycl_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of memory");
    ss->M = M; ss->n_ctx = n_ctx; ss->n_batch = n_batch; ss->kv_f16 = kv_f16; ss->kv_dim = M->n_head_kv * M->head_dim;
    const size_t B = (size_t)n_batch, E = (size_t)M->n_embd, Q = (size_t)M->n_head * M->head_dim, KV = (size_t)ss->kv_dim, F = (size_t)M->n_ff;
    const size_t maxk = std::max(E, std::max(Q, F)), kv_bytes = (size_t)M->n_layer * (size_t)n_ctx * KV * (kv_f16 ? 2 : 4);
    try {
#define SRT__SYCL_ALLOC(field, type, count) ss->field = (type *)sycl::malloc_device((count) * sizeof(type) + 64, *S->q)
        SRT__SYCL_ALLOC(k_cache, uint8_t, kv_bytes); SRT__SYCL_ALLOC(v_cache, uint8_t, kv_bytes);
        SRT__SYCL_ALLOC(x, float, B * E); SRT__SYCL_ALLOC(xb, float, B * maxk); SRT__SYCL_ALLOC(q, float, B * Q);
        SRT__SYCL_ALLOC(k, float, B * KV); SRT__SYCL_ALLOC(v, float, B * KV); SRT__SYCL_ALLOC(att, float, B * Q);
        SRT__SYCL_ALLOC(hb, float, B * F); SRT__SYCL_ALLOC(hb2, float, B * F); SRT__SYCL_ALLOC(logits, float, (size_t)M->n_vocab);
        SRT__SYCL_ALLOC(cs, float, B * (size_t)M->rope_dim); SRT__SYCL_ALLOC(scores, float, B * (size_t)M->n_head * (size_t)n_ctx);
        SRT__SYCL_ALLOC(toks, int32_t, B);
#undef SRT__SYCL_ALLOC
    } catch (const std::exception &e) {
        srt__sycl_session_destroy(b, ss);
        return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "device error: %s", e.what());
    }
    if (!ss->k_cache || !ss->v_cache || !ss->x || !ss->xb || !ss->q || !ss->k || !ss->v || !ss->att || !ss->hb || !ss->hb2 ||
        !ss->logits || !ss->cs || !ss->scores || !ss->toks) {
        srt__sycl_session_destroy(b, ss);
        return srt__sycl_err(err, cap, SRT_ERR_OUT_OF_MEMORY, "out of device memory (KV cache %llu MB for %d tokens)",
                             (unsigned long long)(2 * kv_bytes >> 20), n_ctx);
    }
    *session = ss;
    return SRT_OK;
}

static srt_status srt__sycl_forward(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs,
                                    float *logits, char *err, size_t cap) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_session *ss = (srt__sycl_session *)session;
    const srt__sycl_model *M = ss->M;
    const int E = M->n_embd, F = M->n_ff, Q = M->n_head * M->head_dim, KV = ss->kv_dim;
    srt_status st = SRT_OK;
    if (n < 1 || n > ss->n_batch || pos < 0 || pos + n > ss->n_ctx) return srt__sycl_err(err, cap, SRT_ERR_INVALID_ARG, "forward: %d tokens at %d", n, pos);
    try {
#define SRT__SYCL_MM(w, xin, nt, out, bias) \
        if ((st = srt__sycl_matmul_dev<0>(S, w, xin, nt, out, (w).rows, bias, &ss->ws, SRT_SYCL_PATH_AUTO)) != SRT_OK) \
            return srt__sycl_err(err, cap, st, "out of device memory (matrix product scratch)");
        S->q->memcpy(ss->toks, tokens, (size_t)n * sizeof(int32_t));
        S->q->memcpy(ss->cs, rope_cs, (size_t)n * (size_t)M->rope_dim * sizeof(float));
        srt__sycl_embed(S, M->tok_embd, ss->toks, n, ss->x);
        for (int l = 0; l < M->n_layer; l++) {
            const srt__sycl_layer &L = M->layers[(size_t)l];
            srt__sycl_rmsnorm(S, ss->xb, ss->x, L.attn_norm, n, E, M->norm_eps);
            SRT__SYCL_MM(L.wq, ss->xb, n, ss->q, L.bq)
            SRT__SYCL_MM(L.wk, ss->xb, n, ss->k, L.bk)
            SRT__SYCL_MM(L.wv, ss->xb, n, ss->v, L.bv)
            if (L.q_norm) {   /* qwen3: every q and k head normalized (rows of head_dim, in place) before the rotation */
                srt__sycl_rmsnorm(S, ss->q, ss->q, L.q_norm, n * M->n_head, M->head_dim, M->norm_eps);
                srt__sycl_rmsnorm(S, ss->k, ss->k, L.k_norm, n * M->n_head_kv, M->head_dim, M->norm_eps);
            }
            srt__sycl_rope(S, ss->q, n, M->n_head, M->head_dim, M->rope_dim, M->rope_neox, ss->cs);
            srt__sycl_rope(S, ss->k, n, M->n_head_kv, M->head_dim, M->rope_dim, M->rope_neox, ss->cs);
            srt__sycl_kv_store(S, ss, l, pos, n);
            srt__sycl_attention(S, ss, l, pos, n);
            SRT__SYCL_MM(L.wo, ss->att, n, ss->xb, nullptr)
            srt__sycl_add(S, ss->x, ss->xb, (size_t)n * E);
            srt__sycl_rmsnorm(S, ss->xb, ss->x, L.ffn_norm, n, E, M->norm_eps);
            SRT__SYCL_MM(L.gate, ss->xb, n, ss->hb, nullptr)
            SRT__SYCL_MM(L.up, ss->xb, n, ss->hb2, nullptr)
            srt__sycl_swiglu(S, ss->hb, ss->hb2, (size_t)n * F);
            SRT__SYCL_MM(L.down, ss->hb, n, ss->xb, nullptr)
            srt__sycl_add(S, ss->x, ss->xb, (size_t)n * E);
        }
        if (logits) {
            srt__sycl_rmsnorm(S, ss->xb, ss->x + (size_t)(n - 1) * E, M->output_norm, 1, E, M->norm_eps);
            SRT__SYCL_MM(M->output, ss->xb, 1, ss->logits, nullptr)
            S->q->memcpy(logits, ss->logits, (size_t)M->n_vocab * sizeof(float));
        }
#undef SRT__SYCL_MM
        (void)Q; (void)KV;
        S->q->wait_and_throw();
    } catch (const std::exception &e) {
        return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "device error: %s", e.what());
    }
    return st;
}

/* Session state: one layer of the K or V cache, positions 0..n-1 (contiguous on the device). */
static srt_status srt__sycl_kv_copy(srt_backend *b, void *session, int which, int layer, int n, void *host, int to_device, char *err, size_t cap) {
    srt__sycl *S = srt__sycl_of(b);
    srt__sycl_session *ss = (srt__sycl_session *)session;
    const size_t elem = ss->kv_f16 ? 2 : 4, bytes = (size_t)n * (size_t)ss->kv_dim * elem;
    if (which < 0 || which > 1 || layer < 0 || layer >= ss->M->n_layer || n < 0 || n > ss->n_ctx)
        return srt__sycl_err(err, cap, SRT_ERR_INVALID_ARG, "kv_copy: cache %d, layer %d, %d positions", which, layer, n);
    try {
        char *dev = (char *)(which ? ss->v_cache : ss->k_cache) + (size_t)layer * (size_t)ss->n_ctx * (size_t)ss->kv_dim * elem;
        if (bytes) S->q->memcpy(to_device ? (void *)dev : host, to_device ? (const void *)host : (const void *)dev, bytes);
        S->q->wait_and_throw();
    } catch (const std::exception &e) {
        return srt__sycl_err(err, cap, SRT_ERR_UNSUPPORTED, "device error: %s", e.what());
    }
    return SRT_OK;
}

static void srt__sycl_destroy(srt_backend *b) {
    srt__sycl *S = srt__sycl_of(b);
    if (!S) return;
    delete S->q;
    delete S;
}

/* ---------------------------------------------------------------- public functions */
static std::string srt__sycl_impl_name() {
#if defined(ACPP_VERSION_MAJOR)
    return "AdaptiveCpp " + std::to_string(ACPP_VERSION_MAJOR) + "." + std::to_string(ACPP_VERSION_MINOR) + "." + std::to_string(ACPP_VERSION_PATCH);
#elif defined(__INTEL_LLVM_COMPILER)
    return "Intel oneAPI DPC++ " + std::to_string(__INTEL_LLVM_COMPILER);
#elif defined(__LIBSYCL_MAJOR_VERSION)
    return "DPC++ (libsycl " + std::to_string(__LIBSYCL_MAJOR_VERSION) + "." + std::to_string(__LIBSYCL_MINOR_VERSION) + ")";
#else
    return "unknown SYCL 2020 implementation";
#endif
}

SRT_API srt_backend *srt_sycl_backend(int device) {
    srt__sycl *S = new (std::nothrow) srt__sycl();
    if (!S) return nullptr;
    memset(&S->b, 0, sizeof S->b);
    S->last_error[0] = 0;
    S->b.impl = S;
    S->b.load = srt__sycl_load; S->b.unload = srt__sycl_unload;
    S->b.session_create = srt__sycl_session_create; S->b.session_destroy = srt__sycl_session_destroy;
    S->b.forward = srt__sycl_forward; S->b.destroy = srt__sycl_destroy; S->b.kv_copy = srt__sycl_kv_copy;
    try {
        if (device < 0) S->dev = sycl::device(sycl::default_selector_v);
        else {
            std::vector<sycl::device> all = sycl::device::get_devices(), order;
            for (int pass = 0; pass < 3; pass++)
                for (size_t i = 0; i < all.size(); i++) {
                    const bool gpu = all[i].is_gpu(), acc = all[i].is_accelerator();
                    if ((pass == 0 && gpu) || (pass == 1 && acc) || (pass == 2 && !gpu && !acc)) order.push_back(all[i]);
                }
            if ((size_t)device >= order.size()) {
                char m[160];
                snprintf(m, sizeof m, "no SYCL device %d (%zu found)", device, order.size());
                throw std::runtime_error(m);
            }
            S->dev = order[(size_t)device];
        }
        S->q = new sycl::queue(S->dev, sycl::property::queue::in_order());
        S->max_wg = S->dev.get_info<sycl::info::device::max_work_group_size>();
        S->parts = (int)std::max<size_t>(1, std::min<size_t>(16, S->max_wg / 16));
        S->attn_wg = (int)std::max<size_t>(1, std::min<size_t>(64, S->max_wg));
        std::vector<size_t> sgs = S->dev.get_info<sycl::info::device::sub_group_sizes>();
        std::string sg;
        for (size_t i = 0; i < sgs.size(); i++) sg += (i ? "," : "") + std::to_string(sgs[i]);
#if SRT__SYCL_DPAS
        try {   /* the exact shape of srt__sycl_gemm_dpas: s8 x s8 -> s32, M 8, N 16, K 32 (Xe2 / PVC; DG2 has N 8) */
            namespace xmx = sycl::ext::oneapi::experimental::matrix;
            const std::vector<xmx::combination> cs = S->dev.get_info<sycl::ext::oneapi::experimental::info::device::matrix_combinations>();
            S->dpas = false;
            for (size_t i = 0; i < cs.size(); i++) {
                const xmx::combination &c = cs[i];
                if (c.atype == xmx::matrix_type::sint8 && c.btype == xmx::matrix_type::sint8 && c.ctype == xmx::matrix_type::sint32 &&
                    c.dtype == xmx::matrix_type::sint32 && (c.msize ? c.msize == 8 : c.max_msize >= 8) &&
                    (c.nsize ? c.nsize == 16 : c.max_nsize >= 16) && (c.ksize ? c.ksize == 32 : c.max_ksize >= 32))
                    S->dpas = true;
            }
            S->dpas = S->dpas && std::find(sgs.begin(), sgs.end(), (size_t)16) != sgs.end();
        } catch (...) { S->dpas = false; }
#endif
        S->name = "sycl: " + S->dev.get_info<sycl::info::device::name>();
        S->info = srt__sycl_impl_name() + "; platform " + S->dev.get_platform().get_info<sycl::info::platform::name>() + " " +
                  S->dev.get_platform().get_info<sycl::info::platform::version>() + "; device " + S->dev.get_info<sycl::info::device::name>() +
                  " (driver " + S->dev.get_info<sycl::info::device::driver_version>() + ", " + (S->dev.is_gpu() ? "gpu" : S->dev.is_cpu() ? "cpu" : "other") +
                  "); sub-group sizes " + (sg.empty() ? "none" : sg) + "; max work-group " + std::to_string(S->max_wg) + "; DPAS " +
                  (SRT__SYCL_DPAS ? (S->dpas ? "yes" : "compiled in, not on this device") : "not compiled in (no SYCL_EXT_INTEL_MATRIX)");
    } catch (const std::exception &e) {
        delete S->q;
        S->q = nullptr;
        S->open_error = std::string("cannot open a SYCL device: ") + e.what();
        S->name = "sycl: no device";
        S->info = srt__sycl_impl_name() + "; " + S->open_error;
    }
    S->b.name = S->name.c_str();
    return &S->b;
}

SRT_API const char *srt_sycl_info(srt_backend *b) { return b && b->impl ? srt__sycl_of(b)->info.c_str() : ""; }
SRT_API const char *srt_sycl_last_error(srt_backend *b) { return b && b->impl ? srt__sycl_of(b)->last_error : ""; }

SRT_API srt_status srt_sycl_matmul(srt_backend *b, srt_format format, uint32_t group, const void *const *parts,
                                   uint64_t rows, uint64_t cols, int n, const void *x, srt_format x_format,
                                   const float *bias, float *y, srt_sycl_path path) {
    srt__sycl *S;
    srt__sycl_model M;
    srt__sycl_mat w;
    srt__sycl_buf ws;
    srt_backend_tensor t;
    srt_status st;
    void *dx = nullptr, *dy = nullptr;
    const float *db = nullptr;
    char *err;
    if (!b || !b->impl) return SRT_ERR_INVALID_ARG;
    S = srt__sycl_of(b);
    err = S->last_error;
    err[0] = 0;
    if (!S->q) return srt__sycl_err(err, sizeof S->last_error, SRT_ERR_UNSUPPORTED, "%s", S->open_error.c_str());
    if (n < 1 || !x || !y || !parts || (x_format != SRT_F32 && x_format != SRT_F16 && x_format != SRT_BF16))
        return srt__sycl_err(err, sizeof S->last_error, SRT_ERR_INVALID_ARG, "srt_sycl_matmul: bad arguments");
    t.format = format; t.group = group; t.rows = rows; t.cols = cols;
    for (int i = 0; i < 4; i++) t.part[i] = nullptr;
    for (int i = 0; i < (format >= SRT_Q8 ? 2 : 1); i++) t.part[i] = parts[i];
    try {
        if ((st = srt__sycl_upload_mat(S, &M, t, &w, err, sizeof S->last_error)) != SRT_OK) goto done;
        dx = srt__sycl_upload(S, &M.allocs, x, (size_t)n * (size_t)cols * (x_format == SRT_F32 ? 4 : 2));
        dy = sycl::malloc_device((size_t)n * (size_t)rows * sizeof(float), *S->q);
        if (dy) M.allocs.push_back(dy);
        if (bias && (st = srt__sycl_upload_vec(S, &M, bias, (size_t)rows, &db, err, sizeof S->last_error)) != SRT_OK) goto done;
        if (!dx || !dy) { st = srt__sycl_err(err, sizeof S->last_error, SRT_ERR_OUT_OF_MEMORY, "out of device memory"); goto done; }
        st = x_format == SRT_F32 ? srt__sycl_matmul_dev<0>(S, w, dx, n, (float *)dy, rows, db, &ws, path)
           : x_format == SRT_F16 ? srt__sycl_matmul_dev<1>(S, w, dx, n, (float *)dy, rows, db, &ws, path)
           : srt__sycl_matmul_dev<2>(S, w, dx, n, (float *)dy, rows, db, &ws, path);
        if (st == SRT_ERR_UNSUPPORTED) srt__sycl_err(err, sizeof S->last_error, st, "kernel path %d is not available for %s on this device", (int)path, srt_format_name(format));
        else if (st != SRT_OK) srt__sycl_err(err, sizeof S->last_error, st, "out of device memory (scratch)");
        else S->q->memcpy(y, dy, (size_t)n * (size_t)rows * sizeof(float));
        S->q->wait_and_throw();
    } catch (const std::exception &e) {
        st = srt__sycl_err(err, sizeof S->last_error, SRT_ERR_UNSUPPORTED, "device error: %s", e.what());
    }
done:
    try { S->q->wait(); } catch (...) {}
    for (size_t i = 0; i < M.allocs.size(); i++) sycl::free(M.allocs[i], *S->q);
    if (ws.p) sycl::free(ws.p, *S->q);
    return st;
}

#endif /* SPARSERT_SYCL_DONE */
#endif /* SPARSERT_SYCL */
