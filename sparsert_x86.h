/* sparsert_x86.h - x86-64 kernels for sparsert.h (AVX2, AVX-VNNI, AVX-512 VNNI, AMX).

   Not included by applications: sparsert.h pulls it into its implementation on x86-64 with GCC or
   clang (define SPARSERT_NO_X86 to leave it out). Every kernel carries its own target attribute, so
   the file compiles without -m flags and one binary runs on any x86-64; srt__x86_best_isa() picks
   what the CPU and the OS support at run time.

   Every kernel reproduces the reference kernels of sparsert.h section 7 bit for bit:
   - float formats: 16 f32 partial sums with FMA (k -> lane k mod 16), reduced by halves;
   - integer formats: exact int32 sums per group, then y = fma(acc, scale * dx, y) group by group.
*/
#ifndef SPARSERT_X86_H
#define SPARSERT_X86_H

/* GCC 12's AVX-512 headers start some intrinsics from a self-initialized _mm512_undefined_*()
   value, which g++ (C++ only) reports as maybe-uninitialized wherever one is inlined at -O2 -Wall:
   hundreds of warnings about its own header (GCC bug 105593, fixed in GCC 13). */
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#  pragma GCC diagnostic ignored "-Wuninitialized"
#  define SRT__X86_POP_DIAGNOSTICS
#endif
#include <immintrin.h>
#if defined(__linux__)
#  include <sys/syscall.h>
#  include <unistd.h>
#endif

/* ---------------------------------------------------------------- CPU detection */
static void srt__cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    uint32_t a, b, c, d;
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(leaf), "c"(sub));
    r[0] = a; r[1] = b; r[2] = c; r[3] = d;
}
static uint64_t srt__xgetbv(uint32_t idx) {
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(idx));
    return ((uint64_t)hi << 32) | lo;
}

/* Linux hands out AMX tile state only to processes that ask (arch_prctl ARCH_REQ_XCOMP_PERM). */
static int srt__amx_permitted(void) {
#if defined(__linux__)
    return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0;
#else
    return 0;
#endif
}

/* Bit i set = level i usable (CPU has it, OS saves its registers). */
static unsigned srt__x86_detect(void) {
    uint32_t r[4], r7[4], r71[4], max;
    uint64_t xcr0;
    unsigned levels = 0;
    int avx512;
    srt__cpuid(0, 0, r);
    max = r[0];
    srt__cpuid(1, 0, r);
    if (!(r[2] & (1u << 27)) || !(r[2] & (1u << 28)) || max < 7) return 0;      /* OSXSAVE, AVX */
    xcr0 = srt__xgetbv(0);
    if ((xcr0 & 6) != 6) return 0;                                               /* XMM + YMM state */
    if (!((r[2] >> 12) & 1) || !((r[2] >> 29) & 1)) return 0;                    /* FMA, F16C */
    srt__cpuid(7, 0, r7);
    srt__cpuid(7, 1, r71);
    if (!((r7[1] >> 5) & 1)) return 0;                                           /* AVX2 */
    levels |= 1u << SRT_ISA_AVX2;
    if ((r71[0] >> 4) & 1) levels |= 1u << SRT_ISA_AVXVNNI;
    avx512 = (xcr0 & 0xe0) == 0xe0 &&                                            /* opmask, ZMM state */
             ((r7[1] >> 16) & 1) && ((r7[1] >> 17) & 1) && ((r7[1] >> 30) & 1) &&   /* F, DQ, BW */
             ((r7[1] >> 31) & 1) && ((r7[2] >> 11) & 1);                          /* VL, VNNI */
    if (avx512) levels |= 1u << SRT_ISA_AVX512;
#ifdef SRT_TEST_AVXVNNI_EVEX   /* the kernels need AVX-512 VL VNNI then, AVX-VNNI alone is not enough */
    levels = avx512 ? levels | 1u << SRT_ISA_AVXVNNI : levels & ~(1u << SRT_ISA_AVXVNNI);
#endif
    if (avx512 && ((r7[3] >> 24) & 1) && ((r7[3] >> 25) & 1) && ((r7[3] >> 22) & 1) &&   /* TILE, INT8, BF16 */
        (xcr0 & (3ull << 17)) == (3ull << 17) && srt__amx_permitted())            /* TILECFG, TILEDATA */
        levels |= 1u << SRT_ISA_AMX;
    return levels;
}
static unsigned srt__x86_levels(void) {
    /* atomic (threads may load models at once): detection is idempotent, a race only repeats it */
    static int32_t cached = -1;
    int32_t v = srt__atomic_load32(&cached);
    if (v < 0) { v = (int32_t)srt__x86_detect(); srt__atomic_store32(&cached, v); }
    return (unsigned)v;
}

/* Runs `fn` on the tokens from `first` on: the tail an integer kernel that takes tokens in blocks
   leaves to a kernel for fewer tokens. */
static void srt__mm_tail(const srt__mm *mm, int first, uint64_t tile0, uint64_t tile1, srt__kernel_fn fn) {
    srt__mm rest = *mm;
    srt__acts ra = *mm->a;
    ra.q += (uint64_t)first * ra.kp; ra.d += (uint64_t)first * ra.ng; ra.s += (uint64_t)first * ra.ng;
    rest.a = &ra; rest.n_tok = mm->n_tok - first; rest.y = mm->y + (uint64_t)first * mm->ldy;
    fn(&rest, tile0, tile1);
}

#define SRT__AVX2 __attribute__((target("avx2,fma,f16c")))
/* SRT_TEST_AVXVNNI_EVEX (tests only): the AVX-VNNI kernels built with the EVEX form of the same
   instruction (AVX512-VL VNNI, the same 256-bit operation) and the level reported wherever AVX-512
   is, so that they run where AVX-VNNI does not: AMD Zen 4, qemu 7.2, valgrind. */
#ifdef SRT_TEST_AVXVNNI_EVEX
#  define SRT__AVXVNNI __attribute__((target("avx2,fma,f16c,avx512f,avx512vl,avx512vnni")))
#  define SRT__AVXVNNIP __attribute__((target("avx2,fma,f16c,popcnt,avx512f,avx512vl,avx512vnni")))   /* + popcnt: sparse */
#  define srt__dpbusd256 _mm256_dpbusd_epi32
#else
#  define SRT__AVXVNNI __attribute__((target("avx2,fma,f16c,avxvnni")))
#  define SRT__AVXVNNIP __attribute__((target("avx2,fma,f16c,popcnt,avxvnni")))
#  define srt__dpbusd256 _mm256_dpbusd_avx_epi32
#endif
#define SRT__AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,fma,f16c")))

static int32_t srt__ld32(const int8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

/* ---------------------------------------------------------------- float formats */
/* One dot product in the reference order: lane j of 16 sums elements k = j mod 16 with FMA. */
#define SRT__F512_LOAD_F32(p, i) _mm512_loadu_ps((const float *)(p) + (i))
#define SRT__F512_LOAD_F16(p, i) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)(p) + (i))))
#define SRT__F512_LOAD_BF16(p, i) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)((const uint16_t *)(p) + (i)))), 16))
#define SRT__F512_MLOAD_F32(p, i, m) _mm512_maskz_loadu_ps(m, (const float *)(p) + (i))
#define SRT__F512_MLOAD_F16(p, i, m) _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, (const uint16_t *)(p) + (i)))
#define SRT__F512_MLOAD_BF16(p, i, m) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, (const uint16_t *)(p) + (i))), 16))

static SRT__AVX512 float srt__hsum512(__m512 v) {   /* s[j] += s[j + 8], + 4, + 2, + 1 */
    __m256 a = _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    b = _mm_add_ps(b, _mm_movehl_ps(b, b));
    b = _mm_add_ss(b, _mm_movehdup_ps(b));
    return _mm_cvtss_f32(b);
}

/* NR rows at a time share each load of x; a single row for the rest. 16-bit rows also prefetch
   the rows of the next pass. A pass reads NR rows at once, with twice the work per byte of F32,
   and on a Zen 4 core the hardware prefetch and the loads in flight left it at 0.6 of the read
   bandwidth. srt-bench gemv, F16, one token of Llama-3.2-1B, 1 thread: 113 ms, 93 with the
   prefetch at NR = 4, 84 at NR = 2. So 1-3 tokens take NR = 2; prompts NR = 4, whose x loads,
   shared by 4 rows, NR = 2 would double (prefill 1.5x slower). F32 (NR = 4) reads at 0.9 without
   the prefetch, 2-4% slower with it. */
#define SRT__FLOAT512(NAME, ESZ, NR, LOAD, MLOAD) \
static SRT__AVX512 void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    const srt__weights *w = mm->w; \
    uint64_t K = w->cols, r = tile0 * SRT__TILE, r1 = tile1 * SRT__TILE < w->rows ? tile1 * SRT__TILE : w->rows, k; \
    uint64_t kt = K & ~(uint64_t)15; \
    __mmask16 m = (__mmask16)((1u << (K & 15)) - 1); \
    const char *base = (const char *)w->part[0]; \
    int t; \
    for (; r < r1; ) { \
        int nr = r1 - r >= NR ? NR : 1, i; \
        const int pf = ESZ == 2 && r + 2 * NR <= r1; \
        for (t = 0; t < mm->n_tok; t++) { \
            const float *x = mm->a->x + (uint64_t)t * K; \
            float *y = mm->y + (uint64_t)t * mm->ldy + r; \
            if (nr == NR) { \
                const char *p0 = base + r * K * ESZ, *p1 = p0 + K * ESZ, *p2 = p1 + K * ESZ, *p3 = p2 + K * ESZ; \
                __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0; \
                for (k = 0; k < kt; k += 16) { \
                    __m512 xv = _mm512_loadu_ps(x + k); \
                    if (pf && t == 0 && (k * ESZ) % 64 == 0)   /* later tokens find the rows in cache */ \
                        for (i = 0; i < NR; i++) _mm_prefetch(p0 + (uint64_t)(NR + i) * K * ESZ + k * ESZ, _MM_HINT_T0); \
                    a0 = _mm512_fmadd_ps(LOAD(p0, k), xv, a0); a1 = _mm512_fmadd_ps(LOAD(p1, k), xv, a1); \
                    if (NR > 2) { a2 = _mm512_fmadd_ps(LOAD(p2, k), xv, a2); a3 = _mm512_fmadd_ps(LOAD(p3, k), xv, a3); } \
                } \
                if (m) { \
                    __m512 xv = _mm512_maskz_loadu_ps(m, x + kt); \
                    a0 = _mm512_mask3_fmadd_ps(MLOAD(p0, kt, m), xv, a0, m); a1 = _mm512_mask3_fmadd_ps(MLOAD(p1, kt, m), xv, a1, m); \
                    if (NR > 2) { a2 = _mm512_mask3_fmadd_ps(MLOAD(p2, kt, m), xv, a2, m); a3 = _mm512_mask3_fmadd_ps(MLOAD(p3, kt, m), xv, a3, m); } \
                } \
                y[0] = srt__hsum512(a0); y[1] = srt__hsum512(a1); \
                if (NR > 2) { y[2] = srt__hsum512(a2); y[3] = srt__hsum512(a3); } \
            } else { \
                const char *p0 = base + r * K * ESZ; \
                __m512 a0 = _mm512_setzero_ps(); \
                for (k = 0; k < kt; k += 16) a0 = _mm512_fmadd_ps(LOAD(p0, k), _mm512_loadu_ps(x + k), a0); \
                if (m) a0 = _mm512_mask3_fmadd_ps(MLOAD(p0, kt, m), _mm512_maskz_loadu_ps(m, x + kt), a0, m); \
                y[0] = srt__hsum512(a0); \
            } \
            if (mm->bias) for (i = 0; i < nr; i++) y[i] += mm->bias[r + (uint64_t)i]; \
        } \
        r += (uint64_t)nr; \
    } \
}
SRT__FLOAT512(srt__f32_avx512, 4, 4, SRT__F512_LOAD_F32, SRT__F512_MLOAD_F32)
SRT__FLOAT512(srt__f16_avx512, 2, 4, SRT__F512_LOAD_F16, SRT__F512_MLOAD_F16)
SRT__FLOAT512(srt__bf16_avx512, 2, 4, SRT__F512_LOAD_BF16, SRT__F512_MLOAD_BF16)
SRT__FLOAT512(srt__f16_gemv_avx512, 2, 2, SRT__F512_LOAD_F16, SRT__F512_MLOAD_F16)
SRT__FLOAT512(srt__bf16_gemv_avx512, 2, 2, SRT__F512_LOAD_BF16, SRT__F512_MLOAD_BF16)

/* AVX2: lanes 0-7 and 8-15 of the reference are two 8-wide accumulators; the tail (K mod 16) and
   the reduction are done on the stored lanes exactly as the reference does them. */
#define SRT__F256_LOAD_F32(p, i) _mm256_loadu_ps((const float *)(p) + (i))
#define SRT__F256_LOAD_F16(p, i) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)(p) + (i))))
#define SRT__F256_LOAD_BF16(p, i) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)((const uint16_t *)(p) + (i)))), 16))
static SRT__AVX2 float srt__finish256(__m256 lo, __m256 hi, const float *wrow_f, const uint16_t *wrow_h, int fmt, const float *x, uint64_t kt, uint64_t K) {
    float s[16];
    int j, h;
    if (kt == K) {   /* no tail: the same halving adds in registers (s[j] += s[j + 8], + 4, + 2, + 1) */
        __m256 v = _mm256_add_ps(lo, hi);
        __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        q = _mm_add_ps(q, _mm_movehl_ps(q, q));
        q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
        return _mm_cvtss_f32(q);
    }
    _mm256_storeu_ps(s, lo); _mm256_storeu_ps(s + 8, hi);
    for (; kt < K; kt++) {
        float wv = fmt == SRT_F32 ? wrow_f[kt] : fmt == SRT_F16 ? srt_f16_to_f32(wrow_h[kt]) : srt_bf16_to_f32(wrow_h[kt]);
        s[kt & 15] = fmaf(wv, x[kt], s[kt & 15]);
    }
    for (h = 8; h; h >>= 1) for (j = 0; j < h; j++) s[j] += s[j + h];
    return s[0];
}
#define SRT__FLOAT256(NAME, FMT, ESZ, LOAD) \
static SRT__AVX2 void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    const srt__weights *w = mm->w; \
    uint64_t K = w->cols, r = tile0 * SRT__TILE, r1 = tile1 * SRT__TILE < w->rows ? tile1 * SRT__TILE : w->rows, k; \
    uint64_t kt = K & ~(uint64_t)15; \
    const char *base = (const char *)w->part[0]; \
    int t; \
    for (; r < r1; ) { \
        int nr = r1 - r >= 2 ? 2 : 1, i; \
        const int pf = r + 4 <= r1;   /* the next pass's rows, as SRT__FLOAT512 (F32 too: 1.3-1.45x here) */ \
        for (t = 0; t < mm->n_tok; t++) { \
            const float *x = mm->a->x + (uint64_t)t * K; \
            float *y = mm->y + (uint64_t)t * mm->ldy + r; \
            const char *p0 = base + r * K * ESZ, *p1 = p0 + K * ESZ; \
            __m256 l0 = _mm256_setzero_ps(), h0 = l0, l1 = l0, h1 = l0; \
            if (nr == 2) { \
                for (k = 0; k < kt; k += 16) { \
                    __m256 xl = _mm256_loadu_ps(x + k), xh = _mm256_loadu_ps(x + k + 8); \
                    if (pf && t == 0 && (k * ESZ) % 64 == 0) { \
                        _mm_prefetch(p1 + K * ESZ + k * ESZ, _MM_HINT_T0); _mm_prefetch(p1 + 2 * K * ESZ + k * ESZ, _MM_HINT_T0); \
                    } \
                    l0 = _mm256_fmadd_ps(LOAD(p0, k), xl, l0); h0 = _mm256_fmadd_ps(LOAD(p0, k + 8), xh, h0); \
                    l1 = _mm256_fmadd_ps(LOAD(p1, k), xl, l1); h1 = _mm256_fmadd_ps(LOAD(p1, k + 8), xh, h1); \
                } \
                y[1] = srt__finish256(l1, h1, (const float *)p1, (const uint16_t *)p1, FMT, x, kt, K); \
            } else \
                for (k = 0; k < kt; k += 16) { \
                    l0 = _mm256_fmadd_ps(LOAD(p0, k), _mm256_loadu_ps(x + k), l0); \
                    h0 = _mm256_fmadd_ps(LOAD(p0, k + 8), _mm256_loadu_ps(x + k + 8), h0); \
                } \
            y[0] = srt__finish256(l0, h0, (const float *)p0, (const uint16_t *)p0, FMT, x, kt, K); \
            if (mm->bias) for (i = 0; i < nr; i++) y[i] += mm->bias[r + (uint64_t)i]; \
        } \
        r += (uint64_t)nr; \
    } \
}
SRT__FLOAT256(srt__f32_avx2, SRT_F32, 4, SRT__F256_LOAD_F32)
SRT__FLOAT256(srt__f16_avx2, SRT_F16, 2, SRT__F256_LOAD_F16)
SRT__FLOAT256(srt__bf16_avx2, SRT_BF16, 2, SRT__F256_LOAD_BF16)

/* ---------------------------------------------------------------- integer formats */
/* Per tile and group: int32 sums for 16 rows from vpdpbusd(u, 4 broadcast activation bytes), then
   acc = mul * sum - off * sum(q) and y = fma(acc, scale * dx, y) (see srt__code_value). A byte
   holds S = 8 / bits codes; step s of a 64-byte chunk uses activation bytes c * kstep + 4s .. + 3.
   GEMV leaves step s's codes in place (u = byte & (mask << bits * s), i.e. code << bits * s) in an
   accumulator of its own and shifts the sum right at the end of the group: one AND per step, no
   shift, no table (the largest u * q sum, 240 * 127 * 65536, still fits int32). GEMM shares each
   unpacked chunk between four tokens, so it shifts the codes down and uses one accumulator per
   token. */
/* Software prefetch distance (bytes ahead in the weight stream): the hardware streamer stops at
   4 KiB pages; one page ahead measured best for Q4/Q2/Q1 GEMV (+10-30% at one thread). */
#define SRT__PREFETCH 4096
/* The token loops of the GEMM kernels (arrays of accumulators, one a token): -O2 does not unroll
   them on its own, and rolled they keep the accumulators in memory (a load and a store each per
   use: the AVX-512 sb-q8 GEMM took 2.1x as long). */
#define SRT__UNROLL _Pragma("GCC unroll 8")
#define SRT__STEPS_1(X) X(0)
#define SRT__STEPS_2(X) X(0) X(1)
#define SRT__STEPS_4(X) X(0) X(1) X(2) X(3)
#define SRT__STEPS_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

/* AVX-512 */
static SRT__AVX512 void srt__store512(const srt__mm *mm, int t, uint64_t tile, __m512 y) {   /* y (+ bias), rows < M */
    uint64_t r0 = tile * SRT__TILE, n = mm->w->rows - r0 < SRT__TILE ? mm->w->rows - r0 : SRT__TILE;
    __mmask16 m = (__mmask16)(n == 16 ? 0xffff : (1u << n) - 1);
    if (mm->bias) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m, mm->bias + r0));
    _mm512_mask_storeu_ps(mm->y + (uint64_t)t * mm->ldy + r0, m, y);
}
static SRT__AVX512 __m512 srt__epilogue512(__m512i acc, int mul, int off, int32_t qsum, const uint16_t *sc, float dx, __m512 y) {
    __m512 f;
    if (mul == 2) acc = _mm512_slli_epi32(acc, 1);
    acc = _mm512_sub_epi32(acc, _mm512_set1_epi32(off * qsum));
    f = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)sc)), _mm512_set1_ps(dx));
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), f, y);
}
#define SRT__INT512_SETUP \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(w->format, w->rows, w->cols, w->group); \
    const int off = srt__code_off(w->format), mul = srt__code_mul(w->format), bits = (int)tl.bits; \
    const __m512i c80 = _mm512_set1_epi8((char)0x80), low = _mm512_set1_epi8((char)((1 << bits) - 1)); \
    uint64_t cpg = w->group / tl.kstep, tile, g, c; \
    const __m512i lut = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)srt__fp4_u)); \
    __m512i mk[8]; \
    int t, s_; \
    for (s_ = 0; s_ < 8; s_++) mk[s_] = _mm512_set1_epi8((char)(((1 << bits) - 1) << (bits * s_ & 7))); \
    (void)c80; (void)low; (void)mk; (void)lut;

#define SRT__COMBINE512(s) if ((s) && (s) < NA_) sum = _mm512_add_epi32(sum, _mm512_srai_epi32(acc[(s) % NA_], (s) * shift_));
/* NA accumulators: steps NA.. read the codes shifted down NA * BITS bits (wh) into those of steps
   0.. (S <= 2 NA). Q8: 0 codes in place, 1 q8 (u = code ^ 0x80), 2 fp4 (u = the table's entry of
   the code shifted down: no shift of the step sums) */
#define SRT__GEMV512(NAME, S, BITS, Q8, NA) \
static SRT__AVX512 void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, NA_ = NA, shift_ = (Q8) == 2 ? 0 : BITS }; \
    SRT__INT512_SETUP \
    for (t = 0; t < mm->n_tok; t++) { \
        const int8_t *q = a->q + (uint64_t)t * a->kp; \
        const float *dx = a->d + (uint64_t)t * a->ng; \
        const int32_t *qs = a->s + (uint64_t)t * a->ng; \
        for (tile = tile0; tile < tile1; tile++) { \
            const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
            const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
            __m512 y = _mm512_setzero_ps(); \
            for (g = 0; g < tl.ng; g++) { \
                __m512i acc[NA_], sum; \
                uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
                for (s_ = 0; s_ < NA_; s_++) acc[s_] = _mm512_setzero_si512(); \
                for (c = g * cpg; c < c1; c++) { \
                    const __m512i wv = _mm512_loadu_si512((const void *)(v + c * 64)), wh = _mm512_srli_epi16(wv, NA_ * bits_); \
                    const int8_t *qc = q + c * tl.kstep; \
                    _mm_prefetch((const char *)(v + c * 64) + SRT__PREFETCH, _MM_HINT_T0); \
                    (void)wh; \
                    SRT__STEPS_##S(SRT__GEMV512_STEP_##Q8) \
                } \
                sum = acc[0]; \
                SRT__STEPS_##S(SRT__COMBINE512) \
                y = srt__epilogue512(sum, mul, off, qs[g], sc + g * SRT__TILE, dx[g], y); \
            } \
            srt__store512(mm, t, tile, y); \
        } \
    } \
}
#define SRT__GEMV512_STEP_0(s) acc[(s) % NA_] = _mm512_dpbusd_epi32(acc[(s) % NA_], _mm512_and_si512((s) < NA_ ? wv : wh, mk[(s) % NA_]), \
                                                                   _mm512_set1_epi32(srt__ld32(qc + 4 * (s))));
#define SRT__GEMV512_STEP_1(s) acc[s] = _mm512_dpbusd_epi32(acc[s], _mm512_xor_si512(wv, c80), _mm512_set1_epi32(srt__ld32(qc + 4 * (s))));
#define SRT__GEMV512_STEP_2(s) acc[s] = _mm512_dpbusd_epi32(acc[s], _mm512_shuffle_epi8(lut, _mm512_and_si512((s) ? _mm512_srli_epi16(wv, (s) * bits_) : wv, low)), \
                                                     _mm512_set1_epi32(srt__ld32(qc + 4 * (s))));

/* GEMM: NT (2-4) tokens share each unpacked chunk: blocks of four per tile, then the 2 or 3 left
   over on the same tile, while it is in cache. So 2-3 tokens (speculative decoding's checks) read
   the weights once: on Zen 4, q4 128256 x 2048, 2 threads, 2 / 3 tokens took 3.6 / 4.1 ms, against 4.6 / 5.9
   through the GEMV kernel (a pass over the weights a token; one token 3.0). A single token left
   over goes through the GEMV kernel after all tiles: tile by tile, 5 tokens took 8.3 ms, not 7.3. */
#define SRT__GEMM512_STEP(s) { \
        __m512i u = Q8_ == 1 ? _mm512_xor_si512(wv, c80) : _mm512_and_si512((s) ? _mm512_srli_epi16(wv, (s) * bits_) : wv, low); \
        if (Q8_ == 2) u = _mm512_shuffle_epi8(lut, u); \
        b0 = _mm512_dpbusd_epi32(b0, u, _mm512_set1_epi32(srt__ld32(q0 + o + 4 * (s)))); \
        b1 = _mm512_dpbusd_epi32(b1, u, _mm512_set1_epi32(srt__ld32(q1 + o + 4 * (s)))); \
        if (NT_ > 2) b2 = _mm512_dpbusd_epi32(b2, u, _mm512_set1_epi32(srt__ld32(q2 + o + 4 * (s)))); \
        if (NT_ > 3) b3 = _mm512_dpbusd_epi32(b3, u, _mm512_set1_epi32(srt__ld32(q3 + o + 4 * (s)))); }
#define SRT__GEMM512_FINISH(T, B) if (T < NT_) \
        y[T] = srt__epilogue512(B, mul, off, a->s[gi + T * a->ng], sc + g * SRT__TILE, a->d[gi + T * a->ng], y[T]);
/* tokens t0 .. t0 + NT - 1 on one tile */
#define SRT__GEMM512_BLOCK(NT, S) { \
        enum { NT_ = NT }; \
        const int8_t *q0 = a->q + (uint64_t)t0 * a->kp, *q1 = q0 + a->kp, *q2 = NT_ > 2 ? q1 + a->kp : q1, *q3 = NT_ > 3 ? q2 + a->kp : q2; \
        __m512 y[4]; \
        for (t = 0; t < 4; t++) y[t] = _mm512_setzero_ps(); \
        for (g = 0; g < tl.ng; g++) { \
            __m512i b0 = _mm512_setzero_si512(), b1 = b0, b2 = b0, b3 = b0; \
            uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks, gi = (uint64_t)t0 * a->ng + g; \
            for (c = g * cpg; c < c1; c++) { \
                __m512i wv = _mm512_loadu_si512((const void *)(v + c * 64)); \
                uint64_t o = c * tl.kstep; \
                SRT__STEPS_##S(SRT__GEMM512_STEP) \
            } \
            SRT__GEMM512_FINISH(0, b0) SRT__GEMM512_FINISH(1, b1) SRT__GEMM512_FINISH(2, b2) SRT__GEMM512_FINISH(3, b3) \
        } \
        for (t = 0; t < NT_; t++) srt__store512(mm, t0 + t, tile, y[t]); }
#define SRT__GEMM512(NAME, GEMV, S, BITS, Q8) \
static SRT__AVX512 void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, Q8_ = Q8 }; \
    int t0, n4 = mm->n_tok & ~3, rest = mm->n_tok - n4; \
    SRT__INT512_SETUP \
    for (tile = tile0; tile < tile1; tile++) { \
        const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        for (t0 = 0; t0 < n4; t0 += 4) SRT__GEMM512_BLOCK(4, S) \
        if (rest == 3) SRT__GEMM512_BLOCK(3, S) \
        else if (rest == 2) SRT__GEMM512_BLOCK(2, S) \
    } \
    if (rest == 1) srt__mm_tail(mm, n4, tile0, tile1, GEMV); \
}
SRT__GEMV512(srt__q8_gemv_avx512, 1, 8, 1, 1)
SRT__GEMV512(srt__q4_gemv_avx512, 2, 4, 0, 2)
SRT__GEMV512(srt__q2_gemv_avx512, 4, 2, 0, 4)
SRT__GEMV512(srt__q1_gemv_avx512, 8, 1, 0, 4)
SRT__GEMM512(srt__q8_gemm_avx512, srt__q8_gemv_avx512, 1, 8, 1)
SRT__GEMM512(srt__q4_gemm_avx512, srt__q4_gemv_avx512, 2, 4, 0)
SRT__GEMM512(srt__q2_gemm_avx512, srt__q2_gemv_avx512, 4, 2, 0)
SRT__GEMM512(srt__q1_gemm_avx512, srt__q1_gemv_avx512, 8, 1, 0)
SRT__GEMV512(srt__fp4_gemv_avx512, 2, 4, 2, 2)
SRT__GEMM512(srt__fp4_gemm_avx512, srt__fp4_gemv_avx512, 2, 4, 2)

/* AMX (GEMM, 8+ tokens): per group, C[tokens x 16 rows] += A[tokens x K] . B[K x 16 rows] in int32
   tiles. B is the weights' own layout: a chunk of Q8 is one B row (4 K values of 16 rows), so Q8
   tiles load straight from the tensor (tdpbssd, signed x signed, no offset); the sub-byte formats
   are unpacked into a B buffer first (codes shifted down, tdpbsud, then mul / off as in GEMV). The
   int32 sums are stored and finished by the same epilogue as the AVX-512 kernels, so the results are
   bit-identical. K per tile step is 64 (32 when a group or the padded row is not a multiple of 64). */
/* Linux only: the OS grants AMX state on request (srt__amx_permitted), and GCC's mingw headers pass
   the tile stride as a 32-bit long, which does not assemble. */
#if defined(__linux__)
#  define SRT__HAVE_AMX 1
#define SRT__AMX __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,fma,f16c,amx-tile,amx-int8")))
typedef struct srt__tilecfg { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; } srt__tilecfg;
/* ldtilecfg through this, not _tile_loadconfig: GCC's macro names only the first 8 bytes of the
   config as read, so the compiler may drop the stores to the rest (it did, in a test program). */
static void srt__tile_config(const srt__tilecfg *cfg) { __asm__ volatile("ldtilecfg %0" : : "m"(*cfg)); }

#define SRT__AMX_UNPACK(s) if ((s) < S_) { \
        __m512i u_ = _mm512_and_si512((s) ? _mm512_srli_epi16(wv, (s) * bits_) : wv, low); \
        if (Q8_ == 2) u_ = _mm512_shuffle_epi8(lut, u_); \
        _mm512_storeu_si512((void *)(bbuf + ((c * tl.kstep + 4 * (s) - k) / 4) * 64), u_); }
#define SRT__AMX_KERNEL(NAME, S, BITS, Q8) \
static SRT__AMX void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, S_ = S, Q8_ = Q8 }; \
    SRT__INT512_SETUP \
    int32_t cbuf[16 * 16]; \
    uint8_t bbuf[16 * 64]; \
    srt__tilecfg cfg; \
    uint64_t kg = (w->group % 64 == 0 && tl.kp % 64 == 0) ? 64 : 32, k, k1; \
    int t0, nt; \
    (void)s_; (void)cpg; \
    for (t0 = 0; t0 < mm->n_tok; t0 += 16) { \
        nt = mm->n_tok - t0 < 16 ? mm->n_tok - t0 : 16; \
        memset(&cfg, 0, sizeof cfg); \
        cfg.palette = 1; \
        cfg.rows[0] = (uint8_t)nt; cfg.colsb[0] = 64;               /* C: tokens x 16 int32 */ \
        cfg.rows[1] = (uint8_t)nt; cfg.colsb[1] = (uint16_t)kg;     /* A: tokens x kg int8 */ \
        cfg.rows[2] = (uint8_t)(kg / 4); cfg.colsb[2] = 64;         /* B: kg/4 rows of 16 x 4 bytes */ \
        srt__tile_config(&cfg); \
        for (tile = tile0; tile < tile1; tile++) { \
            const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
            const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
            __m512 y[16]; \
            for (t = 0; t < nt; t++) y[t] = _mm512_setzero_ps(); \
            for (g = 0; g < tl.ng; g++) { \
                k1 = (g + 1) * w->group < tl.kp ? (g + 1) * w->group : tl.kp; \
                _tile_zero(0); \
                for (k = g * w->group; k < k1; k += kg) { \
                    _tile_loadd(1, a->q + (uint64_t)t0 * a->kp + k, (long)a->kp); \
                    if (Q8_ == 1) { \
                        _tile_loadd(2, v + (k / 4) * 64, 64); \
                        _tile_dpbssd(0, 1, 2); \
                    } else { \
                        for (c = k / tl.kstep; c < (k + kg) / tl.kstep; c++) { \
                            __m512i wv = _mm512_loadu_si512((const void *)(v + c * 64)); \
                            SRT__STEPS_8(SRT__AMX_UNPACK) \
                        } \
                        _tile_loadd(2, bbuf, 64); \
                        _tile_dpbsud(0, 1, 2); \
                    } \
                } \
                _tile_stored(0, cbuf, 64); \
                for (t = 0; t < nt; t++) { \
                    uint64_t gi = (uint64_t)(t0 + t) * a->ng + g; \
                    y[t] = srt__epilogue512(_mm512_loadu_si512((const void *)(cbuf + 16 * t)), Q8_ == 1 ? 1 : mul, Q8_ == 1 ? 0 : off, \
                                            a->s[gi], sc + g * SRT__TILE, a->d[gi], y[t]); \
                } \
            } \
            for (t = 0; t < nt; t++) srt__store512(mm, t0 + t, tile, y[t]); \
        } \
        _tile_release(); \
    } \
}
SRT__AMX_KERNEL(srt__q8_amx, 1, 8, 1)
SRT__AMX_KERNEL(srt__q4_amx, 2, 4, 0)
SRT__AMX_KERNEL(srt__q2_amx, 4, 2, 0)
SRT__AMX_KERNEL(srt__q1_amx, 8, 1, 0)
SRT__AMX_KERNEL(srt__fp4_amx, 2, 4, 2)
#else
#  define SRT__HAVE_AMX 0
#endif

/* AVX2 (+ AVX-VNNI): a chunk is two 32-byte halves, rows 0-7 (w0, acc0) and 8-15 (w1, acc1), done
   in the same pass so that they share each broadcast of x and the loop (one half after the other
   took 1.3-1.7x as long: twice the instructions a byte of the AVX-512 loop). With VNNI the codes stay
   in place as in the AVX-512 GEMV, NA accumulators a half: steps NA.. read the codes shifted down 4
   bits (w0h, w1h) into the accumulators of steps 0.. (Q1: 4, as 8 would not fit in 16 registers; Q2:
   2, 15% faster than 4). Without VNNI the dot product is vpmaddubsw + vpmaddwd, whose int16 pair
   sums must not saturate: codes are shifted down (u <= 15), a chunk's steps add their pair sums in
   int16 (at most steps x 2 x max code x 128 <= 7680) and widen them once; Q8 uses |w| with
   sign(q, w) (|products| <= 127 * 127) and no offset. */
#define SRT__QB256(s) _mm256_set1_epi32(srt__ld32(qc + 4 * (s)))
#define SRT__STEP256_VNNI(s) { const __m256i qb_ = SRT__QB256(s); \
        acc0[(s) % NA_] = srt__dpbusd256(acc0[(s) % NA_], _mm256_and_si256((s) < NA_ ? w0 : w0h, mk[(s) % NA_]), qb_); \
        acc1[(s) % NA_] = srt__dpbusd256(acc1[(s) % NA_], _mm256_and_si256((s) < NA_ ? w1 : w1h, mk[(s) % NA_]), qb_); }
#define SRT__STEP256_VNNI_FP4(s) { const __m256i qb_ = SRT__QB256(s); \
        acc0[s] = srt__dpbusd256(acc0[s], _mm256_shuffle_epi8(lut, _mm256_and_si256((s) ? _mm256_srli_epi16(w0, 4) : w0, low)), qb_); \
        acc1[s] = srt__dpbusd256(acc1[s], _mm256_shuffle_epi8(lut, _mm256_and_si256((s) ? _mm256_srli_epi16(w1, 4) : w1, low)), qb_); }
#define SRT__STEP256_AVX2_FP4(s) { const __m256i qb_ = SRT__QB256(s); \
        const __m256i d0_ = _mm256_maddubs_epi16(_mm256_shuffle_epi8(lut, _mm256_and_si256((s) ? _mm256_srli_epi16(w0, 4) : w0, low)), qb_); \
        const __m256i d1_ = _mm256_maddubs_epi16(_mm256_shuffle_epi8(lut, _mm256_and_si256((s) ? _mm256_srli_epi16(w1, 4) : w1, low)), qb_); \
        p0 = (s) ? _mm256_add_epi16(p0, d0_) : d0_; p1 = (s) ? _mm256_add_epi16(p1, d1_) : d1_; }
#define SRT__STEP256_AVX2_FP4_END SRT__STEP256_AVX2_END
#define SRT__STEP256_VNNI_FP4_END
#define SRT__STEP256_VNNI_Q8(s) { const __m256i qb_ = SRT__QB256(s); \
        acc0[s] = srt__dpbusd256(acc0[s], _mm256_xor_si256(w0, c80), qb_); \
        acc1[s] = srt__dpbusd256(acc1[s], _mm256_xor_si256(w1, c80), qb_); }
#define SRT__STEP256_AVX2(s) { const __m256i qb_ = SRT__QB256(s); \
        const __m256i d0_ = _mm256_maddubs_epi16(_mm256_and_si256((s) ? _mm256_srli_epi16(w0, (s) * bits_) : w0, low), qb_); \
        const __m256i d1_ = _mm256_maddubs_epi16(_mm256_and_si256((s) ? _mm256_srli_epi16(w1, (s) * bits_) : w1, low), qb_); \
        p0 = (s) ? _mm256_add_epi16(p0, d0_) : d0_; p1 = (s) ? _mm256_add_epi16(p1, d1_) : d1_; }
#define SRT__STEP256_AVX2_END acc0[0] = _mm256_add_epi32(acc0[0], _mm256_madd_epi16(p0, ones16)); \
                              acc1[0] = _mm256_add_epi32(acc1[0], _mm256_madd_epi16(p1, ones16));
#define SRT__STEP256_VNNI_END
#define SRT__STEP256_VNNI_Q8_END
#define SRT__STEP256_AVX2_Q8_END
#define SRT__STEP256_AVX2_Q8(s) { const __m256i qb_ = SRT__QB256(s); \
        acc0[s] = _mm256_add_epi32(acc0[s], _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w0), _mm256_sign_epi8(qb_, w0)), ones16)); \
        acc1[s] = _mm256_add_epi32(acc1[s], _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w1), _mm256_sign_epi8(qb_, w1)), ones16)); }

static SRT__AVX2 __m256 srt__epilogue256(__m256i acc, int mul, int off, int32_t qsum, const uint16_t *sc, float dx, __m256 y) {
    __m256 f;
    if (mul == 2) acc = _mm256_slli_epi32(acc, 1);
    acc = _mm256_sub_epi32(acc, _mm256_set1_epi32(off * qsum));
    f = _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sc)), _mm256_set1_ps(dx));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), f, y);
}
static SRT__AVX2 void srt__store256(const srt__mm *mm, int t, uint64_t r0, __m256 y) {   /* 8 rows from r0 (+ bias), rows < M */
    float tmp[8];
    uint64_t n = mm->w->rows > r0 ? mm->w->rows - r0 : 0, i;
    float *out = mm->y + (uint64_t)t * mm->ldy + r0;
    if (n >= 8 && !mm->bias) { _mm256_storeu_ps(out, y); return; }
    _mm256_storeu_ps(tmp, y);
    for (i = 0; i < n && i < 8; i++) out[i] = tmp[i] + (mm->bias ? mm->bias[r0 + i] : 0.0f);
}

#define SRT__COMBINE256_1(s) if ((s) && (s) < NA_) { sum0 = _mm256_add_epi32(sum0, _mm256_srai_epi32(acc0[(s) % NA_], (s) * bits_)); \
                                                   sum1 = _mm256_add_epi32(sum1, _mm256_srai_epi32(acc1[(s) % NA_], (s) * bits_)); }
#define SRT__COMBINE256_0(s) if ((s) && (s) < NA_) { sum0 = _mm256_add_epi32(sum0, acc0[(s) % NA_]); sum1 = _mm256_add_epi32(sum1, acc1[(s) % NA_]); }
/* IN_PLACE: 1 = step sums are shifted down at the end of the group (codes left in place) */
/* NA: accumulators a half */
#define SRT__INT256(NAME, ATTR, S, BITS, STEP, OFF, IN_PLACE, NA) \
static ATTR void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, NA_ = NA }; \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(w->format, w->rows, w->cols, w->group); \
    const int off = OFF, mul = srt__code_mul(w->format); \
    const __m256i c80 = _mm256_set1_epi8((char)0x80), low = _mm256_set1_epi8((char)((1 << bits_) - 1)), ones16 = _mm256_set1_epi16(1); \
    const __m256i lut = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)srt__fp4_u)); \
    uint64_t cpg = w->group / tl.kstep, tile, g, c; \
    __m256i mk[8]; \
    int t, s_; \
    for (s_ = 0; s_ < 8; s_++) mk[s_] = _mm256_set1_epi8((char)(((1 << bits_) - 1) << (bits_ * s_ & 7))); \
    (void)c80; (void)low; (void)ones16; (void)mk; (void)lut; \
    for (tile = tile0; tile < tile1; tile++) \
        for (t = 0; t < mm->n_tok; t++) { \
            const int8_t *q = a->q + (uint64_t)t * a->kp; \
            const float *dx = a->d + (uint64_t)t * a->ng; \
            const int32_t *qs = a->s + (uint64_t)t * a->ng; \
            const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
            const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
            __m256 y0 = _mm256_setzero_ps(), y1 = y0; \
            for (g = 0; g < tl.ng; g++) { \
                __m256i acc0[NA_], acc1[NA_], sum0, sum1; \
                uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
                for (s_ = 0; s_ < NA_; s_++) acc0[s_] = acc1[s_] = _mm256_setzero_si256(); \
                for (c = g * cpg; c < c1; c++) { \
                    const __m256i w0 = _mm256_loadu_si256((const __m256i *)(v + c * 64)), w1 = _mm256_loadu_si256((const __m256i *)(v + c * 64 + 32)); \
                    const __m256i w0h = _mm256_srli_epi16(w0, NA_ * bits_), w1h = _mm256_srli_epi16(w1, NA_ * bits_); \
                    const int8_t *qc = q + c * tl.kstep; \
                    __m256i p0 = _mm256_setzero_si256(), p1 = p0;   /* the int16 step sums (AVX2) */ \
                    _mm_prefetch((const char *)(v + c * 64) + SRT__PREFETCH, _MM_HINT_T0); \
                    (void)w0h; (void)w1h; (void)p0; (void)p1; \
                    SRT__STEPS_##S(STEP) \
                    STEP##_END \
                } \
                sum0 = acc0[0]; sum1 = acc1[0]; \
                SRT__STEPS_##S(SRT__COMBINE256_##IN_PLACE) \
                y0 = srt__epilogue256(sum0, mul, off, qs[g], sc + g * SRT__TILE, dx[g], y0); \
                y1 = srt__epilogue256(sum1, mul, off, qs[g], sc + g * SRT__TILE + 8, dx[g], y1); \
            } \
            srt__store256(mm, t, tile * SRT__TILE, y0); \
            srt__store256(mm, t, tile * SRT__TILE + 8, y1); \
        } \
}
SRT__INT256(srt__q8_avx2, SRT__AVX2, 1, 8, SRT__STEP256_AVX2_Q8, 0, 0, 1)
SRT__INT256(srt__q4_avx2, SRT__AVX2, 2, 4, SRT__STEP256_AVX2, srt__code_off(w->format), 0, 1)
SRT__INT256(srt__q2_avx2, SRT__AVX2, 4, 2, SRT__STEP256_AVX2, srt__code_off(w->format), 0, 1)
SRT__INT256(srt__q1_avx2, SRT__AVX2, 8, 1, SRT__STEP256_AVX2, srt__code_off(w->format), 0, 1)
SRT__INT256(srt__q8_avxvnni, SRT__AVXVNNI, 1, 8, SRT__STEP256_VNNI_Q8, srt__code_off(w->format), 1, 1)
SRT__INT256(srt__q4_avxvnni, SRT__AVXVNNI, 2, 4, SRT__STEP256_VNNI, srt__code_off(w->format), 1, 2)
SRT__INT256(srt__q2_avxvnni, SRT__AVXVNNI, 4, 2, SRT__STEP256_VNNI, srt__code_off(w->format), 1, 2)
SRT__INT256(srt__q1_avxvnni, SRT__AVXVNNI, 8, 1, SRT__STEP256_VNNI, srt__code_off(w->format), 1, 4)
SRT__INT256(srt__fp4_avx2, SRT__AVX2, 2, 4, SRT__STEP256_AVX2_FP4, srt__code_off(w->format), 0, 1)
SRT__INT256(srt__fp4_avxvnni, SRT__AVXVNNI, 2, 4, SRT__STEP256_VNNI_FP4, srt__code_off(w->format), 0, 2)

/* AVX-VNNI GEMM: as the AVX-512 one, NT (2-4) tokens share each unpacked chunk (codes shifted down,
   one accumulator a token and half: 8), the halves in the same pass; blocks of four per tile, then
   the 2 or 3 left over on the same tile; a single one through the GEMV kernel after all tiles. */
#define SRT__GEMM256_TOK(B0, B1, Q, s) { const __m256i qb_ = _mm256_set1_epi32(srt__ld32((Q) + o + 4 * (s))); \
        B0 = srt__dpbusd256(B0, u0, qb_); B1 = srt__dpbusd256(B1, u1, qb_); }
#define SRT__GEMM256_UNPACK(W, s) (Q8_ == 1 ? _mm256_xor_si256(W, c80) : Q8_ == 2 ? _mm256_shuffle_epi8(lut, _mm256_and_si256((s) ? _mm256_srli_epi16(W, (s) * bits_) : W, low)) \
                                                                : _mm256_and_si256((s) ? _mm256_srli_epi16(W, (s) * bits_) : W, low))
#define SRT__GEMM256_STEP(s) { \
        const __m256i u0 = SRT__GEMM256_UNPACK(w0, s), u1 = SRT__GEMM256_UNPACK(w1, s); \
        SRT__GEMM256_TOK(b00, b01, q0, s) SRT__GEMM256_TOK(b10, b11, q1, s) \
        if (NT_ > 2) SRT__GEMM256_TOK(b20, b21, q2, s) \
        if (NT_ > 3) SRT__GEMM256_TOK(b30, b31, q3, s) }
#define SRT__GEMM256_FINISH(T, B0, B1) if (T < NT_) { uint64_t gi_ = (uint64_t)(t0 + (T)) * a->ng + g; \
        y0[T] = srt__epilogue256(B0, mul, off, a->s[gi_], sc + g * SRT__TILE, a->d[gi_], y0[T]); \
        y1[T] = srt__epilogue256(B1, mul, off, a->s[gi_], sc + g * SRT__TILE + 8, a->d[gi_], y1[T]); }
/* tokens t0 .. t0 + NT - 1 on one tile */
#define SRT__GEMM256_BLOCK(NT, S) { \
        enum { NT_ = NT }; \
        const int8_t *q0 = a->q + (uint64_t)t0 * a->kp, *q1 = q0 + a->kp, *q2 = NT_ > 2 ? q1 + a->kp : q1, *q3 = NT_ > 3 ? q2 + a->kp : q2; \
        __m256 y0[4], y1[4]; \
        for (t = 0; t < 4; t++) y0[t] = y1[t] = _mm256_setzero_ps(); \
        for (g = 0; g < tl.ng; g++) { \
            __m256i b00 = _mm256_setzero_si256(), b01 = b00, b10 = b00, b11 = b00, b20 = b00, b21 = b00, b30 = b00, b31 = b00; \
            uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
            for (c = g * cpg; c < c1; c++) { \
                const __m256i w0 = _mm256_loadu_si256((const __m256i *)(v + c * 64)), w1 = _mm256_loadu_si256((const __m256i *)(v + c * 64 + 32)); \
                uint64_t o = c * tl.kstep; \
                SRT__STEPS_##S(SRT__GEMM256_STEP) \
            } \
            SRT__GEMM256_FINISH(0, b00, b01) SRT__GEMM256_FINISH(1, b10, b11) \
            SRT__GEMM256_FINISH(2, b20, b21) SRT__GEMM256_FINISH(3, b30, b31) \
        } \
        for (t = 0; t < NT_; t++) { \
            srt__store256(mm, t0 + t, tile * SRT__TILE, y0[t]); \
            srt__store256(mm, t0 + t, tile * SRT__TILE + 8, y1[t]); \
        } }
#define SRT__GEMM256(NAME, GEMV, S, BITS, Q8) \
static SRT__AVXVNNI void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, Q8_ = Q8 }; \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(w->format, w->rows, w->cols, w->group); \
    const int off = srt__code_off(w->format), mul = srt__code_mul(w->format); \
    const __m256i c80 = _mm256_set1_epi8((char)0x80), low = _mm256_set1_epi8((char)((1 << bits_) - 1)); \
    const __m256i lut = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)srt__fp4_u)); \
    uint64_t cpg = w->group / tl.kstep, tile, g, c; \
    int t, t0, n4 = mm->n_tok & ~3, rest = mm->n_tok - n4; \
    (void)c80; (void)low; (void)lut; \
    for (tile = tile0; tile < tile1; tile++) { \
        const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        for (t0 = 0; t0 < n4; t0 += 4) SRT__GEMM256_BLOCK(4, S) \
        if (rest == 3) SRT__GEMM256_BLOCK(3, S) \
        else if (rest == 2) SRT__GEMM256_BLOCK(2, S) \
    } \
    if (rest == 1) srt__mm_tail(mm, n4, tile0, tile1, GEMV); \
}
SRT__GEMM256(srt__q8_gemm_avxvnni, srt__q8_avxvnni, 1, 8, 1)
SRT__GEMM256(srt__q4_gemm_avxvnni, srt__q4_avxvnni, 2, 4, 0)
SRT__GEMM256(srt__q2_gemm_avxvnni, srt__q2_avxvnni, 4, 2, 0)
SRT__GEMM256(srt__q1_gemm_avxvnni, srt__q1_avxvnni, 8, 1, 0)
SRT__GEMM256(srt__fp4_gemm_avxvnni, srt__fp4_avxvnni, 2, 4, 2)

/* AVX2 GEMM (no VNNI): two tokens share each loaded and unpacked chunk, the halves in the same
   pass; each token keeps the GEMV's int16 step sums (p) and int32 accumulators (b) a half. Q8: |w|
   once, sign(q, w) per token. A leftover token goes through the GEMV kernel. Four tokens measured
   no faster, nor did adding several chunks' step sums in int16 before widening them: the
   vpmaddubsw a token and step stay, and they bound it (1.06-1.14x faster than a GEMV a token on Zen 4). */
#define SRT__GEMM256_AVX2(NAME, GEMV, S, BITS, Q8, NT) \
static SRT__AVX2 void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { bits_ = BITS, NT_ = NT, Q8_ = Q8 }; \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(w->format, w->rows, w->cols, w->group); \
    const int off = Q8_ == 1 ? 0 : srt__code_off(w->format), mul = srt__code_mul(w->format); \
    const __m256i low = _mm256_set1_epi8((char)((1 << bits_) - 1)), ones16 = _mm256_set1_epi16(1); \
    const __m256i lut = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)srt__fp4_u)); \
    uint64_t cpg = w->group / tl.kstep, tile, g, c; \
    int t, t0, nfull = mm->n_tok / NT_ * NT_; \
    (void)low; (void)lut; \
    for (tile = tile0; tile < tile1; tile++) { \
        const uint8_t *v = (const uint8_t *)w->part[0] + tile * tl.chunks * 64; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        for (t0 = 0; t0 < nfull; t0 += NT_) { \
            const int8_t *qt[NT_]; \
            __m256 y0[NT_], y1[NT_]; \
            SRT__UNROLL for (t = 0; t < NT_; t++) { qt[t] = a->q + (uint64_t)(t0 + t) * a->kp; y0[t] = y1[t] = _mm256_setzero_ps(); } \
            for (g = 0; g < tl.ng; g++) { \
                __m256i b0[NT_], b1[NT_]; \
                uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
                SRT__UNROLL for (t = 0; t < NT_; t++) b0[t] = b1[t] = _mm256_setzero_si256(); \
                for (c = g * cpg; c < c1; c++) { \
                    const __m256i w0 = _mm256_loadu_si256((const __m256i *)(v + c * 64)), w1 = _mm256_loadu_si256((const __m256i *)(v + c * 64 + 32)); \
                    uint64_t o = c * tl.kstep; \
                    if (Q8_ == 1) { \
                        const __m256i a0 = _mm256_abs_epi8(w0), a1 = _mm256_abs_epi8(w1); \
                        SRT__UNROLL for (t = 0; t < NT_; t++) { \
                            const __m256i qb = _mm256_set1_epi32(srt__ld32(qt[t] + o)); \
                            b0[t] = _mm256_add_epi32(b0[t], _mm256_madd_epi16(_mm256_maddubs_epi16(a0, _mm256_sign_epi8(qb, w0)), ones16)); \
                            b1[t] = _mm256_add_epi32(b1[t], _mm256_madd_epi16(_mm256_maddubs_epi16(a1, _mm256_sign_epi8(qb, w1)), ones16)); \
                        } \
                    } else { \
                        __m256i p0[NT_], p1[NT_]; \
                        SRT__STEPS_##S(SRT__GEMM256_AVX2_STEP) \
                        SRT__UNROLL for (t = 0; t < NT_; t++) { \
                            b0[t] = _mm256_add_epi32(b0[t], _mm256_madd_epi16(p0[t], ones16)); \
                            b1[t] = _mm256_add_epi32(b1[t], _mm256_madd_epi16(p1[t], ones16)); \
                        } \
                    } \
                } \
                SRT__UNROLL for (t = 0; t < NT_; t++) { \
                    uint64_t gi = (uint64_t)(t0 + t) * a->ng + g; \
                    y0[t] = srt__epilogue256(b0[t], mul, off, a->s[gi], sc + g * SRT__TILE, a->d[gi], y0[t]); \
                    y1[t] = srt__epilogue256(b1[t], mul, off, a->s[gi], sc + g * SRT__TILE + 8, a->d[gi], y1[t]); \
                } \
            } \
            SRT__UNROLL for (t = 0; t < NT_; t++) { \
                srt__store256(mm, t0 + t, tile * SRT__TILE, y0[t]); \
                srt__store256(mm, t0 + t, tile * SRT__TILE + 8, y1[t]); \
            } \
        } \
    } \
    if (nfull < mm->n_tok) srt__mm_tail(mm, nfull, tile0, tile1, GEMV); \
}
#define SRT__GEMM256_AVX2_STEP(s) { \
        __m256i u0 = _mm256_and_si256((s) ? _mm256_srli_epi16(w0, (s) * bits_) : w0, low); \
        __m256i u1 = _mm256_and_si256((s) ? _mm256_srli_epi16(w1, (s) * bits_) : w1, low); \
        if (Q8_ == 2) { u0 = _mm256_shuffle_epi8(lut, u0); u1 = _mm256_shuffle_epi8(lut, u1); } \
        SRT__UNROLL for (t = 0; t < NT_; t++) { \
            const __m256i qb = _mm256_set1_epi32(srt__ld32(qt[t] + o + 4 * (s))); \
            const __m256i d0 = _mm256_maddubs_epi16(u0, qb), d1 = _mm256_maddubs_epi16(u1, qb); \
            p0[t] = (s) ? _mm256_add_epi16(p0[t], d0) : d0; p1[t] = (s) ? _mm256_add_epi16(p1[t], d1) : d1; \
        } }
SRT__GEMM256_AVX2(srt__q8_gemm_avx2, srt__q8_avx2, 1, 8, 1, 2)
SRT__GEMM256_AVX2(srt__q4_gemm_avx2, srt__q4_avx2, 2, 4, 0, 2)
SRT__GEMM256_AVX2(srt__q2_gemm_avx2, srt__q2_avx2, 4, 2, 0, 2)
SRT__GEMM256_AVX2(srt__q1_gemm_avx2, srt__q1_avx2, 8, 1, 0, 2)
SRT__GEMM256_AVX2(srt__fp4_gemm_avx2, srt__fp4_avx2, 2, 4, 2, 2)

/* ---------------------------------------------------------------- vector ops (AVX2 + FMA + F16C) */
/* The same operations as the references in sparsert.h, lane by lane, so results are identical. */
static SRT__AVX2 float srt__dot_f32_avx2(const float *w, const float *x, uint64_t n) {
    __m256 lo = _mm256_setzero_ps(), hi = lo;
    uint64_t k, kt = n & ~(uint64_t)15;
    for (k = 0; k < kt; k += 16) {
        lo = _mm256_fmadd_ps(_mm256_loadu_ps(w + k), _mm256_loadu_ps(x + k), lo);
        hi = _mm256_fmadd_ps(_mm256_loadu_ps(w + k + 8), _mm256_loadu_ps(x + k + 8), hi);
    }
    return srt__finish256(lo, hi, w, NULL, SRT_F32, x, kt, n);
}
static SRT__AVX2 float srt__dot_f16_avx2(const uint16_t *w, const float *x, uint64_t n) {
    __m256 lo = _mm256_setzero_ps(), hi = lo;
    uint64_t k, kt = n & ~(uint64_t)15;
    for (k = 0; k < kt; k += 16) {
        lo = _mm256_fmadd_ps(SRT__F256_LOAD_F16(w, k), _mm256_loadu_ps(x + k), lo);
        hi = _mm256_fmadd_ps(SRT__F256_LOAD_F16(w, k + 8), _mm256_loadu_ps(x + k + 8), hi);
    }
    return srt__finish256(lo, hi, NULL, w, SRT_F16, x, kt, n);
}
static SRT__AVX2 void srt__axpy_f32_avx2(float *y, float a, const float *x, uint64_t n) {
    __m256 av = _mm256_set1_ps(a);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] = fmaf(a, x[i], y[i]);
}
static SRT__AVX2 void srt__axpy_f16_avx2(float *y, float a, const uint16_t *x, uint64_t n) {
    __m256 av = _mm256_set1_ps(a);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(av, SRT__F256_LOAD_F16(x, i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) y[i] = fmaf(a, srt_f16_to_f32(x[i]), y[i]);
}
static SRT__AVX2 __m256 srt__exp256(__m256 x) {   /* srt__expf, 8 lanes */
    __m256 n, r, p;
    x = _mm256_min_ps(x, _mm256_set1_ps(88.0f));
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504f), _mm256_set1_ps(12582912.0f)), _mm256_set1_ps(12582912.0f));
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693145752f), x);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-1.42860677e-6f), r);
    p = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 720.0f), r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23)));
}
static SRT__AVX2 void srt__exp_avx2(float *x, uint64_t n) {
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, srt__exp256(_mm256_loadu_ps(x + i)));
    for (; i < n; i++) x[i] = srt__expf(x[i]);
}
/* The largest of init and the non-NaN values of x (max_ps returns its second operand when the
   first is NaN). */
static SRT__AVX2 float srt__max_avx2(const float *x, uint64_t n, float init) {
    __m256 m = _mm256_set1_ps(init);
    float lanes[8], best;
    uint64_t i;
    int j;
    for (i = 0; i + 8 <= n; i += 8) m = _mm256_max_ps(_mm256_loadu_ps(x + i), m);
    _mm256_storeu_ps(lanes, m);
    best = lanes[0];
    for (j = 1; j < 8; j++) if (lanes[j] > best) best = lanes[j];
    for (; i < n; i++) if (x[i] > best) best = x[i];
    return best;
}
/* srt__softmax on rows rows, ld apart: the max, the subtraction, exp and the division 8 at a
   time; each row's sum in order, as the reference, the sums of 4 rows side by side (4 chains of
   adds, each waiting on its own last add only; a lone row's sum waits an add's latency per value:
   at 4000 positions most of a head's softmax). */
static SRT__AVX2 void srt__softmax_avx2(float *x, uint64_t ld, int rows, uint64_t n) {
    int r0, r;
    uint64_t i;
    for (r0 = 0; r0 < rows; r0 += 4) {
        const int R = rows - r0 < 4 ? rows - r0 : 4;
        float *xr[4], sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (r = 0; r < 4; r++) xr[r] = x + (uint64_t)(r0 + (r < R ? r : 0)) * ld;   /* rows past R: row r0 again, its sums unused */
        for (r = 0; r < R; r++) {
            float *y = xr[r], maxs = srt__max_avx2(y, n, -FLT_MAX);
            __m256 m8 = _mm256_set1_ps(maxs);
            for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, srt__exp256(_mm256_sub_ps(_mm256_loadu_ps(y + i), m8)));
            for (; i < n; i++) y[i] = srt__expf(y[i] - maxs);
        }
        {
            const float *x0 = xr[0], *x1 = xr[1], *x2 = xr[2], *x3 = xr[3];
            float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
            for (i = 0; i < n; i++) { s0 += x0[i]; s1 += x1[i]; s2 += x2[i]; s3 += x3[i]; }
            sum[0] = s0; sum[1] = s1; sum[2] = s2; sum[3] = s3;
        }
        for (r = 0; r < R; r++) {
            float *y = xr[r];
            __m256 d = _mm256_set1_ps(sum[r]);
            for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_div_ps(_mm256_loadu_ps(y + i), d));
            for (; i < n; i++) y[i] /= sum[r];
        }
    }
}
static SRT__AVX2 void srt__swiglu_avx2(float *g, const float *up, uint64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gv = _mm256_loadu_ps(g + i);
        __m256 e = srt__exp256(_mm256_sub_ps(_mm256_setzero_ps(), gv));
        __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, e));
        _mm256_storeu_ps(g + i, _mm256_mul_ps(_mm256_mul_ps(gv, sig), _mm256_loadu_ps(up + i)));
    }
    for (; i < n; i++) g[i] = g[i] * (1.0f / (1.0f + srt__expf(-g[i]))) * up[i];
}
static SRT__AVX2 void srt__geglu_avx2(float *g, const float *up, uint64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f), c = _mm256_set1_ps(0.044715f), k = _mm256_set1_ps(-1.59576912f);
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(g + i);
        const __m256 z = _mm256_mul_ps(_mm256_mul_ps(x, k), _mm256_fmadd_ps(c, _mm256_mul_ps(x, x), one));
        _mm256_storeu_ps(g + i, _mm256_div_ps(_mm256_mul_ps(x, _mm256_loadu_ps(up + i)), _mm256_add_ps(one, srt__exp256(z))));
    }
    srt__geglu(g + i, up + i, n - i);
}
/* srt__quantize_acts, 8 lanes: round half away from zero as trunc(v) + sign(v) when |v - trunc(v)|
   >= 0.5 (exact for |v| < 2^23); the int32 codes are packed to bytes. */
static SRT__AVX2 void srt__quantize_acts_avx2(const float *x, uint64_t cols, uint32_t group, uint64_t kp, int8_t *q, float *d, int32_t *s) {
    const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    uint64_t g, ng = (cols + group - 1) / group;
    for (g = 0; g < ng; g++) {
        uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group, i = 0;
        const float *xg = x + k0;
        __m256 m = _mm256_setzero_ps(), idv;
        __m256i sv = _mm256_setzero_si256();
        float amax, id, lanes[8];
        int32_t sum = 0, li[8];
        for (; i + 8 <= len; i += 8) m = _mm256_max_ps(m, _mm256_andnot_ps(sign, _mm256_loadu_ps(xg + i)));
        _mm256_storeu_ps(lanes, m);
        amax = 0.0f;
        for (i = 0; i < 8; i++) if (lanes[i] > amax) amax = lanes[i];
        for (i = len & ~(uint64_t)7; i < len; i++) { float a = fabsf(xg[i]); if (a > amax) amax = a; }
        d[g] = amax / 127.0f;
        id = d[g] > 0.0f ? 1.0f / d[g] : 0.0f;
        idv = _mm256_set1_ps(id);
        for (i = 0; i + 8 <= len; i += 8) {
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(xg + i), idv), t;
            v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));              /* NaN -> 0 (srt__act_code) */
            v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-127.0f)), _mm256_set1_ps(127.0f));
            t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            __m256 up = _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(v, t)), half, _CMP_GE_OQ);
            __m256i vi = _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_and_ps(up, _mm256_or_ps(_mm256_and_ps(v, sign), one))));
            __m256i p16 = _mm256_packs_epi32(vi, vi), p8 = _mm256_packs_epi16(p16, p16);
            int32_t lo = _mm_cvtsi128_si32(_mm256_castsi256_si128(p8)), hi = _mm_cvtsi128_si32(_mm256_extracti128_si256(p8, 1));
            memcpy(q + k0 + i, &lo, 4); memcpy(q + k0 + i + 4, &hi, 4);
            sv = _mm256_add_epi32(sv, vi);
        }
        _mm256_storeu_si256((__m256i *)li, sv);
        for (i = 0; i < 8; i++) sum += li[i];
        for (i = len & ~(uint64_t)7; i < len; i++) { q[k0 + i] = srt__act_code(xg[i] * id); sum += q[k0 + i]; }
        s[g] = sum;
    }
    for (g = cols; g < kp; g++) q[g] = 0;
}

/* As srt__argmax: the largest non-NaN value, then the first index holding it. */
static SRT__AVX2 int32_t srt__argmax_avx2(const float *x, int n) {
    __m256 m;
    float best;
    int i;
    if (n < 16 || x[0] != x[0]) return srt__argmax(x, n);
    best = srt__max_avx2(x, (uint64_t)n, x[0]);
    m = _mm256_set1_ps(best);
    for (i = 0; i + 8 <= n; i += 8) {
        int hit = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), m, _CMP_EQ_OQ));
        if (hit) return i + __builtin_ctz((unsigned)hit);
    }
    for (; i < n; i++) if (x[i] == best) return i;
    return 0;
}

/* Q8 KV rows (srt__kv_q8_store). Values: 8 codes widened to f32 and multiplied by their block's
   scale give the reference's values (srt__kv_value) exactly, then the F32 math; one or two query
   heads per pass (HG, a constant at each call) share each row's loads and conversions. */
static SRT__AVX2 float srt__kv_q8_scale_avx2(const unsigned char *row, uint64_t hd, uint64_t d) {
    uint16_t h;
    memcpy(&h, row + hd + d / 32 * 2, 2);
    return _cvtsh_ss(h);
}
static SRT__AVX2 __m256 srt__kv_q8_load8(const unsigned char *row, uint64_t d, __m256 sc) {
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(row + d)))), sc);
}
/* Scores: the integer ones of srt__kv_q8_score, with the rows in the lanes. q of up to 8 heads is
   quantized once per call (srt__q8q). For 8 rows (AVX2, AVX-VNNI) or 16 (AVX-512) at a time, a
   block of 32 codes of every row is loaded and transposed so that vector j holds codes 4j..4j+3 of
   row l in lane l (dwords: unpack 32, unpack 64, then 128-bit lanes); a head's block sums of all
   the rows are then 8 multiply-adds with its codes 4j..4j+3 broadcast, and no horizontal sums
   are left: per block in order, s = fma(float(sum), dk x dq, s) in each lane, as the reference.
   - AVX2: vpmaddubsw(|k|, sign(q, k)) + vpmaddwd(1): exact, the int16 pair sums are at most 2 x
     128 x 127 (a code of -128, which the store never writes, is still exact: |k| is 128 as u8);
   - AVX-VNNI, AVX-512 VNNI: vpdpbusd(k xor 0x80, q) = sum (k + 128) q, the sum started at -128 x
     (the block's sum of q's codes);
   - dk: the F16 scales of the rows, one gather for two blocks (srt__q8i_gather8; hd 1, and row
     strides past 2^26 bytes, go to the reference).
   The last n % 8 (n % 16) rows are copied into a buffer, followed by zero rows whose lanes are not
   stored, and run as a whole pass. Heads: 1 to 4 per pass on AVX2 / AVX-VNNI, 1 to 8 on AVX-512,
   all sharing each block's loads and transposition; the passes over one group of rows follow each
   other, so the rows are read from memory once (prefetched SRT__Q8I_PF bytes ahead). */
/* srt__kv_q8_quantize_q, 8 lanes: the same f32 division, then round half away from zero as
   srt__quantize_acts_avx2 does it (the quotient is within [-127, 127] once clamped, so exact). */
static SRT__AVX2 void srt__kv_q8_quantize_q_avx2(const float *q, uint64_t hd, int8_t *codes, float *d, int32_t *sum) {
    const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f), big = _mm256_set1_ps(FLT_MAX);
    uint64_t b;
    for (b = 0; b < hd; b += 32) {
        const uint64_t len = hd - b < 32 ? hd - b : 32;
        float tmp[32], lanes[8], amax = 0.0f, db;
        const float *x = q + b;
        __m256 v[4], m = _mm256_setzero_ps();
        __m256i c[4];
        int k, finite = 0xff;
        if (len < 32) { memset(tmp, 0, sizeof tmp); memcpy(tmp, x, (size_t)len * sizeof(float)); x = tmp; }
        for (k = 0; k < 4; k++) {
            __m256 a;
            v[k] = _mm256_loadu_ps(x + 8 * k);
            a = _mm256_andnot_ps(sign, v[k]);
            finite &= _mm256_movemask_ps(_mm256_cmp_ps(a, big, _CMP_LE_OQ));   /* NaN and infinities: not <= FLT_MAX */
            m = _mm256_max_ps(m, a);
        }
        _mm256_storeu_ps(lanes, m);
        for (k = 0; k < 8; k++) if (lanes[k] > amax) amax = lanes[k];
        db = finite == 0xff ? amax / 127.0f : srt_f16_to_f32(0x7e00);
        d[b / 32] = db;
        if (!(db > 0.0f)) { memset(codes + b, 0, 32); sum[b / 32] = 0; continue; }
        for (k = 0; k < 4; k++) {
            __m256 t, up, r = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(v[k], _mm256_set1_ps(db)), lo), hi);
            t = _mm256_round_ps(r, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            up = _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(r, t)), half, _CMP_GE_OQ);
            c[k] = _mm256_cvttps_epi32(_mm256_add_ps(t, _mm256_and_ps(up, _mm256_or_ps(_mm256_and_ps(r, sign), one))));
        }
        {   /* 32 int32 to bytes in order; the sum of codes */
            __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
            __m256i s8 = _mm256_add_epi32(_mm256_add_epi32(c[0], c[1]), _mm256_add_epi32(c[2], c[3]));
            __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(s8), _mm256_extracti128_si256(s8, 1));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
            s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
            _mm256_storeu_si256((__m256i *)(void *)(codes + b), _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
            sum[b / 32] = _mm_cvtsi128_si32(s4);
        }
    }
}
typedef struct srt__q8q { int8_t c[8 * SRT__KV_MAX_HD]; float d[8 * SRT__KV_MAX_NB]; int32_t s[8 * SRT__KV_MAX_NB]; } srt__q8q;
static void srt__q8q_make(srt__q8q *qq, const float *q, int G, uint64_t hd) {   /* head g at c + g x whole blocks, d / s + g x nb */
    uint64_t nb = (hd + 31) / 32;
    int g;
    for (g = 0; g < G; g++) srt__kv_q8_quantize_q_avx2(q + (uint64_t)g * hd, hd, qq->c + (uint64_t)g * nb * 32, qq->d + (uint64_t)g * nb, qq->s + (uint64_t)g * nb);
}
static int srt__q8i_fallback(uint64_t hd, uint64_t stride) { return hd < 2 || stride > ((uint64_t)1 << 26); }   /* gather offsets in int32 */
/* Codes 0..len-1 (the rest 0) of the rows r0 + l x stride, l < 8, transposed: v_j lane l = codes
   4j..4j+3 of row l (after vpunpck{l,h}dq and vpunpck{l,h}qdq, lane l of u_k holds code dword k or
   4 + k of the rows 0..3 (u0..u3) or 4..7 (u4..u7); vperm2i128 joins their 128-bit halves). */
static SRT__AVX2 inline __attribute__((always_inline)) __m256i srt__q8i_ld8(const unsigned char *p, uint64_t len) {
    unsigned char tmp[32];
    if (len == 32) return _mm256_loadu_si256((const __m256i *)(const void *)p);
    memset(tmp, 0, sizeof tmp);   /* the last block of a row: no reading past it */
    memcpy(tmp, p, (size_t)len);
    return _mm256_loadu_si256((const __m256i *)(const void *)tmp);
}
#define SRT__Q8I_TRANSPOSE(W, LO32, HI32, LO64, HI64, JOIN_LO, JOIN_HI) { \
    const W t0 = LO32(z0, z1), t1 = HI32(z0, z1), t2 = LO32(z2, z3), t3 = HI32(z2, z3); \
    const W t4 = LO32(z4, z5), t5 = HI32(z4, z5), t6 = LO32(z6, z7), t7 = HI32(z6, z7); \
    const W u0 = LO64(t0, t2), u1 = HI64(t0, t2), u2 = LO64(t1, t3), u3 = HI64(t1, t3); \
    const W u4 = LO64(t4, t6), u5 = HI64(t4, t6), u6 = LO64(t5, t7), u7 = HI64(t5, t7); \
    *v0 = JOIN_LO(u0, u4); *v1 = JOIN_LO(u1, u5); *v2 = JOIN_LO(u2, u6); *v3 = JOIN_LO(u3, u7); \
    *v4 = JOIN_HI(u0, u4); *v5 = JOIN_HI(u1, u5); *v6 = JOIN_HI(u2, u6); *v7 = JOIN_HI(u3, u7); }
#define SRT__Q8I_JOIN256_LO(a, b) _mm256_permute2x128_si256(a, b, 0x20)
#define SRT__Q8I_JOIN256_HI(a, b) _mm256_permute2x128_si256(a, b, 0x31)
static SRT__AVX2 inline __attribute__((always_inline)) void srt__q8i_rows8(const unsigned char *r0, uint64_t stride, uint64_t len, __m256i *v0, __m256i *v1, __m256i *v2,
                                                                         __m256i *v3, __m256i *v4, __m256i *v5, __m256i *v6, __m256i *v7) {
    const __m256i z0 = srt__q8i_ld8(r0, len), z1 = srt__q8i_ld8(r0 + stride, len), z2 = srt__q8i_ld8(r0 + 2 * stride, len), z3 = srt__q8i_ld8(r0 + 3 * stride, len);
    const __m256i z4 = srt__q8i_ld8(r0 + 4 * stride, len), z5 = srt__q8i_ld8(r0 + 5 * stride, len), z6 = srt__q8i_ld8(r0 + 6 * stride, len), z7 = srt__q8i_ld8(r0 + 7 * stride, len);
    SRT__Q8I_TRANSPOSE(__m256i, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64, SRT__Q8I_JOIN256_LO, SRT__Q8I_JOIN256_HI)
}
/* The F16 scales of the rows at r0 + ofs[l]: block b's in the low halves of the result, with one
   gather for blocks b and b + 1 (b even) and the 4 bytes that end with the scale for the last
   block (inside the row where hd >= 2). */
static SRT__AVX2 inline __attribute__((always_inline)) __m256i srt__q8i_gather8(const unsigned char *r0, __m256i ofs, uint64_t hd, uint64_t nb, uint64_t b, __m256i prev) {
    if (b & 1) return _mm256_srli_epi32(prev, 16);
    if (b + 1 < nb) return _mm256_i32gather_epi32((const int *)(const void *)(r0 + hd + 2 * b), ofs, 1);
    return _mm256_srli_epi32(_mm256_i32gather_epi32((const int *)(const void *)(r0 + hd + 2 * b - 2), ofs, 1), 16);
}
#define SRT__Q8I_PF 8192   /* prefetch distance in bytes (16 or 32 rows ahead, as the float kernels, measured slower) */
/* One 256-bit kernel per dot product: INIT(s) starts a block's sum (s: q's code sum), PREP(v) makes
   the unsigned operand of a transposed vector once for the heads, STEP(acc, u, v, qb) adds. HG
   heads from qq's head g over the 8 rows r0 + l x stride (ofs: l x stride), nr of them stored;
   one head sums in two chains (a0: code dwords 0, 2, 4, 6, a1: the odd ones). */
#define SRT__Q8I_STEP(PREP, STEP, V, O) { \
            const __m256i u = PREP(V); \
            if (HG == 1 && (O) % 8) a1 = STEP(a1, u, V, _mm256_set1_epi32(srt__ld32(q0 + (O))));   /* one head: two chains */ \
            else a0 = STEP(a0, u, V, _mm256_set1_epi32(srt__ld32(q0 + (O)))); \
            if (HG > 1) a1 = STEP(a1, u, V, _mm256_set1_epi32(srt__ld32(q0 + nb * 32 + (O)))); \
            if (HG > 2) a2 = STEP(a2, u, V, _mm256_set1_epi32(srt__ld32(q0 + 2 * nb * 32 + (O)))); \
            if (HG > 3) a3 = STEP(a3, u, V, _mm256_set1_epi32(srt__ld32(q0 + 3 * nb * 32 + (O)))); }
#define SRT__Q8I_PASSES(HEADS, R, S, OFS, NR, I) \
            for (g = 0; g + 4 <= gn; g += 4) HEADS##4(R, S, OFS, &qq, g, hd, NR, scale, out + (uint64_t)(g0 + g) * ldo + (I), ldo); \
            if (gn - g == 3) HEADS##3(R, S, OFS, &qq, g, hd, NR, scale, out + (uint64_t)(g0 + g) * ldo + (I), ldo); \
            else if (gn - g == 2) HEADS##2(R, S, OFS, &qq, g, hd, NR, scale, out + (uint64_t)(g0 + g) * ldo + (I), ldo); \
            else if (gn - g == 1) HEADS##1(R, S, OFS, &qq, g, hd, NR, scale, out + (uint64_t)(g0 + g) * ldo + (I), ldo);
#define SRT__Q8I_HG(NAME, TARGET, HG) \
static TARGET __attribute__((noinline)) void NAME##_heads##HG(const unsigned char *r0, uint64_t stride, __m256i ofs, const srt__q8q *qq, int g, \
                                                               uint64_t hd, int nr, float scale, float *out, uint64_t ldo) { \
    NAME##_heads(r0, stride, ofs, qq, g, HG, hd, nr, scale, out, ldo); \
}
#define SRT__Q8I_256(NAME, TARGET, INIT, PREP, STEP) \
static TARGET inline __attribute__((always_inline)) void NAME##_heads(const unsigned char *r0, uint64_t stride, __m256i ofs, const srt__q8q *qq, int g, int HG, \
                                                                      uint64_t hd, int nr, float scale, float *out, uint64_t ldo) { \
    const uint64_t nb = (hd + 31) / 32; \
    const int8_t *c = qq->c + (uint64_t)g * nb * 32; \
    const float *d = qq->d + (uint64_t)g * nb; \
    const int32_t *sq = qq->s + (uint64_t)g * nb; \
    __m256 f0 = _mm256_setzero_ps(), f1 = f0, f2 = f0, f3 = f0; \
    __m256i sg = _mm256_setzero_si256(); \
    uint64_t b; \
    (void)sq; \
    for (b = 0; b < nb; b++) { \
        __m256i v0, v1, v2, v3, v4, v5, v6, v7, a0 = INIT(sq[b]), a1 = _mm256_setzero_si256(), a2 = a1, a3 = a1; \
        const int8_t *q0 = c + 32 * b; \
        __m256 dk; \
        if (HG > 1) a1 = INIT(sq[nb + b]); \
        if (HG > 2) a2 = INIT(sq[2 * nb + b]); \
        if (HG > 3) a3 = INIT(sq[3 * nb + b]); \
        sg = srt__q8i_gather8(r0, ofs, hd, nb, b, sg); \
        dk = _mm256_cvtph_ps(_mm_packus_epi32(_mm256_castsi256_si128(_mm256_and_si256(sg, _mm256_set1_epi32(0xffff))), \
                                              _mm256_extracti128_si256(_mm256_and_si256(sg, _mm256_set1_epi32(0xffff)), 1))); \
        srt__q8i_rows8(r0 + 32 * b, stride, hd - 32 * b < 32 ? hd - 32 * b : 32, &v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7); \
        SRT__Q8I_STEP(PREP, STEP, v0, 0) SRT__Q8I_STEP(PREP, STEP, v1, 4) SRT__Q8I_STEP(PREP, STEP, v2, 8) SRT__Q8I_STEP(PREP, STEP, v3, 12) \
        SRT__Q8I_STEP(PREP, STEP, v4, 16) SRT__Q8I_STEP(PREP, STEP, v5, 20) SRT__Q8I_STEP(PREP, STEP, v6, 24) SRT__Q8I_STEP(PREP, STEP, v7, 28) \
        if (HG == 1) a0 = _mm256_add_epi32(a0, a1); \
        f0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a0), _mm256_mul_ps(dk, _mm256_set1_ps(d[b])), f0); \
        if (HG > 1) f1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a1), _mm256_mul_ps(dk, _mm256_set1_ps(d[nb + b])), f1); \
        if (HG > 2) f2 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a2), _mm256_mul_ps(dk, _mm256_set1_ps(d[2 * nb + b])), f2); \
        if (HG > 3) f3 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a3), _mm256_mul_ps(dk, _mm256_set1_ps(d[3 * nb + b])), f3); \
    } \
    { \
        const __m256 sv = _mm256_set1_ps(scale); \
        float t[32]; \
        int h; \
        f0 = _mm256_mul_ps(f0, sv); f1 = _mm256_mul_ps(f1, sv); f2 = _mm256_mul_ps(f2, sv); f3 = _mm256_mul_ps(f3, sv); \
        if (nr == 8) { \
            _mm256_storeu_ps(out, f0); \
            if (HG > 1) _mm256_storeu_ps(out + ldo, f1); \
            if (HG > 2) _mm256_storeu_ps(out + 2 * ldo, f2); \
            if (HG > 3) _mm256_storeu_ps(out + 3 * ldo, f3); \
        } else { \
            _mm256_storeu_ps(t, f0); _mm256_storeu_ps(t + 8, f1); _mm256_storeu_ps(t + 16, f2); _mm256_storeu_ps(t + 24, f3); \
            for (h = 0; h < HG; h++) memcpy(out + (uint64_t)h * ldo, t + 8 * h, sizeof(float) * (size_t)nr); \
        } \
    } \
} \
/* one copy per head count, not inlined, for the full passes and the tail alike: inlined at both \
   (with the AVX-512 kernel's eight) the copies were 0.5 MB of code in an ASan build and half of \
   the time it took to compile a program */ \
SRT__Q8I_HG(NAME, TARGET, 1) SRT__Q8I_HG(NAME, TARGET, 2) SRT__Q8I_HG(NAME, TARGET, 3) SRT__Q8I_HG(NAME, TARGET, 4) \
/* the heads in passes of 4, then 3, 2 or 1 */ \
static TARGET void NAME(const unsigned char *rows, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) { \
    srt__q8q qq; \
    unsigned char tail[8 * (SRT__KV_MAX_HD + 2 * SRT__KV_MAX_NB)]; \
    const uint64_t rb = srt__kv_q8_row_bytes(hd); \
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); \
    const int nt = n % 8, nf = n - nt; \
    __m256i ofs, tofs; \
    int g0, g, i, l; \
    if (srt__q8i_fallback(hd, stride)) { srt__attn_scores(rows, SRT__KV_E_Q8, stride, q, G, hd, n, scale, out, ldo); return; } \
    ofs = _mm256_mullo_epi32(iota, _mm256_set1_epi32((int)stride)); \
    tofs = _mm256_mullo_epi32(iota, _mm256_set1_epi32((int)rb)); \
    if (nt) { \
        for (l = 0; l < nt; l++) memcpy(tail + (uint64_t)l * rb, rows + (uint64_t)(nf + l) * stride, (size_t)rb); \
        memset(tail + (uint64_t)nt * rb, 0, (size_t)((uint64_t)(8 - nt) * rb)); \
    } \
    for (g0 = 0; g0 < G; g0 += 8) { \
        int gn = G - g0 < 8 ? G - g0 : 8; \
        srt__q8q_make(&qq, q + (uint64_t)g0 * hd, gn, hd); \
        for (i = 0; i < nf; i += 8) { \
            const unsigned char *r = rows + (uint64_t)i * stride; \
            uint64_t o; \
            for (o = 0; o < 8 * stride; o += 64) _mm_prefetch((const char *)r + SRT__Q8I_PF + o, _MM_HINT_T0); \
            SRT__Q8I_PASSES(NAME##_heads, r, stride, ofs, 8, i) \
        } \
        if (nt) { SRT__Q8I_PASSES(NAME##_heads, tail, rb, tofs, nt, nf) } \
    } \
}
#define SRT__Q8I_INIT0(s) _mm256_setzero_si256()
#define SRT__Q8I_ABS(v) _mm256_abs_epi8(v)
#define SRT__Q8I_MADD(acc, u, v, qb) _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, _mm256_sign_epi8(qb, v)), _mm256_set1_epi16(1)))
#define SRT__Q8I_INIT128(s) _mm256_set1_epi32(-128 * (s))
#define SRT__Q8I_FLIP(v) _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80))
#define SRT__Q8I_DPBUSD(acc, u, v, qb) srt__dpbusd256(acc, u, qb)
SRT__Q8I_256(srt__attn_scores_q8_avx2, SRT__AVX2, SRT__Q8I_INIT0, SRT__Q8I_ABS, SRT__Q8I_MADD)
SRT__Q8I_256(srt__attn_scores_q8_avxvnni, SRT__AVXVNNI, SRT__Q8I_INIT128, SRT__Q8I_FLIP, SRT__Q8I_DPBUSD)
#undef SRT__Q8I_256
#undef SRT__Q8I_HG
#undef SRT__Q8I_STEP
#undef SRT__Q8I_PASSES
#undef SRT__Q8I_JOIN256_LO
#undef SRT__Q8I_JOIN256_HI
#undef SRT__Q8I_INIT0
#undef SRT__Q8I_ABS
#undef SRT__Q8I_MADD
#undef SRT__Q8I_INIT128
#undef SRT__Q8I_FLIP
#undef SRT__Q8I_DPBUSD
/* AVX-512: 16 rows r0 + l x stride, the 256-bit halves of z_r holding rows r and r + 4 (r < 4) or
   r + 4 and r + 8, so that after the transposition in 256-bit halves vshufi32x4 puts rows 0..15 in
   lane order. */
static SRT__AVX512 inline __attribute__((always_inline)) __m512i srt__q8i_ld16(const unsigned char *a, const unsigned char *b, __mmask32 m, int full) {
    if (full) return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)a)), _mm256_loadu_si256((const __m256i *)(const void *)b), 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_maskz_loadu_epi8(m, a)), _mm256_maskz_loadu_epi8(m, b), 1);   /* no reading past the row */
}
#define SRT__Q8I_JOIN512_LO(a, b) _mm512_shuffle_i32x4(a, b, 0x88)
#define SRT__Q8I_JOIN512_HI(a, b) _mm512_shuffle_i32x4(a, b, 0xdd)
static SRT__AVX512 inline __attribute__((always_inline)) void srt__q8i_rows16(const unsigned char *r0, uint64_t stride, __mmask32 m, int full, __m512i *v0, __m512i *v1,
                                                                            __m512i *v2, __m512i *v3, __m512i *v4, __m512i *v5, __m512i *v6, __m512i *v7) {
    const unsigned char *r8 = r0 + 8 * stride;
    const __m512i z0 = srt__q8i_ld16(r0, r0 + 4 * stride, m, full), z1 = srt__q8i_ld16(r0 + stride, r0 + 5 * stride, m, full);
    const __m512i z2 = srt__q8i_ld16(r0 + 2 * stride, r0 + 6 * stride, m, full), z3 = srt__q8i_ld16(r0 + 3 * stride, r0 + 7 * stride, m, full);
    const __m512i z4 = srt__q8i_ld16(r8, r8 + 4 * stride, m, full), z5 = srt__q8i_ld16(r8 + stride, r8 + 5 * stride, m, full);
    const __m512i z6 = srt__q8i_ld16(r8 + 2 * stride, r8 + 6 * stride, m, full), z7 = srt__q8i_ld16(r8 + 3 * stride, r8 + 7 * stride, m, full);
    SRT__Q8I_TRANSPOSE(__m512i, _mm512_unpacklo_epi32, _mm512_unpackhi_epi32, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64, SRT__Q8I_JOIN512_LO, SRT__Q8I_JOIN512_HI)
}
#undef SRT__Q8I_JOIN512_LO
#undef SRT__Q8I_JOIN512_HI
#undef SRT__Q8I_TRANSPOSE

/* HG heads (qq's first) over the 16 rows r0 + l x stride (ofs: l x stride), the lanes of mrows stored.
   HG is not a constant here: with 32 registers, a copy per head count measured no faster in
   bench-attn (and made this kernel 0.3 MB of code in an ASan build). */
static SRT__AVX512 __attribute__((noinline)) void srt__q8i_heads512(const unsigned char *r0, uint64_t stride, __m512i ofs, const srt__q8q *qq, int HG,
                                                                              uint64_t hd, __mmask16 mrows, float scale, float *out, uint64_t ldo) {
    const uint64_t nb = (hd + 31) / 32;
    const __m512i c80 = _mm512_set1_epi8((char)0x80);
    __m512 f0 = _mm512_setzero_ps(), f1 = f0, f2 = f0, f3 = f0, f4 = f0, f5 = f0, f6 = f0, f7 = f0;
    __m512i sg = _mm512_setzero_si512();
    uint64_t b;
    for (b = 0; b < nb; b++) {
        const uint64_t len = hd - 32 * b < 32 ? hd - 32 * b : 32;
        __m512i v0, v1, v2, v3, v4, v5, v6, v7;
        __m512 dk;
        if (b & 1) sg = _mm512_srli_epi32(sg, 16);   /* scales b - 1 and b came with one gather */
        else if (b + 1 < nb) sg = _mm512_i32gather_epi32(ofs, (const void *)(r0 + hd + 2 * b), 1);
        else sg = _mm512_srli_epi32(_mm512_i32gather_epi32(ofs, (const void *)(r0 + hd + 2 * b - 2), 1), 16);
        dk = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(sg));
        if (len == 32) srt__q8i_rows16(r0 + 32 * b, stride, 0, 1, &v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7);
        else srt__q8i_rows16(r0 + 32 * b, stride, ((__mmask32)1 << len) - 1, 0, &v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7);
        v0 = _mm512_xor_si512(v0, c80); v1 = _mm512_xor_si512(v1, c80); v2 = _mm512_xor_si512(v2, c80); v3 = _mm512_xor_si512(v3, c80);
        v4 = _mm512_xor_si512(v4, c80); v5 = _mm512_xor_si512(v5, c80); v6 = _mm512_xor_si512(v6, c80); v7 = _mm512_xor_si512(v7, c80);
#define SRT__Q8I_HEAD(H, F) \
        if (HG > H) { \
            const int8_t *c = qq->c + (H * nb + b) * 32; \
            __m512i a = _mm512_set1_epi32(-128 * qq->s[H * nb + b]), e = _mm512_setzero_si512(); \
            a = _mm512_dpbusd_epi32(a, v0, _mm512_set1_epi32(srt__ld32(c))); e = _mm512_dpbusd_epi32(e, v1, _mm512_set1_epi32(srt__ld32(c + 4))); \
            a = _mm512_dpbusd_epi32(a, v2, _mm512_set1_epi32(srt__ld32(c + 8))); e = _mm512_dpbusd_epi32(e, v3, _mm512_set1_epi32(srt__ld32(c + 12))); \
            a = _mm512_dpbusd_epi32(a, v4, _mm512_set1_epi32(srt__ld32(c + 16))); e = _mm512_dpbusd_epi32(e, v5, _mm512_set1_epi32(srt__ld32(c + 20))); \
            a = _mm512_dpbusd_epi32(a, v6, _mm512_set1_epi32(srt__ld32(c + 24))); e = _mm512_dpbusd_epi32(e, v7, _mm512_set1_epi32(srt__ld32(c + 28))); \
            F = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(a, e)), _mm512_mul_ps(dk, _mm512_set1_ps(qq->d[H * nb + b])), F); \
        }
        SRT__Q8I_HEAD(0, f0) SRT__Q8I_HEAD(1, f1) SRT__Q8I_HEAD(2, f2) SRT__Q8I_HEAD(3, f3)
        SRT__Q8I_HEAD(4, f4) SRT__Q8I_HEAD(5, f5) SRT__Q8I_HEAD(6, f6) SRT__Q8I_HEAD(7, f7)
#undef SRT__Q8I_HEAD
    }
    {
        const __m512 sv = _mm512_set1_ps(scale);
        _mm512_mask_storeu_ps(out, mrows, _mm512_mul_ps(f0, sv));
        if (HG > 1) _mm512_mask_storeu_ps(out + ldo, mrows, _mm512_mul_ps(f1, sv));
        if (HG > 2) _mm512_mask_storeu_ps(out + 2 * ldo, mrows, _mm512_mul_ps(f2, sv));
        if (HG > 3) _mm512_mask_storeu_ps(out + 3 * ldo, mrows, _mm512_mul_ps(f3, sv));
        if (HG > 4) _mm512_mask_storeu_ps(out + 4 * ldo, mrows, _mm512_mul_ps(f4, sv));
        if (HG > 5) _mm512_mask_storeu_ps(out + 5 * ldo, mrows, _mm512_mul_ps(f5, sv));
        if (HG > 6) _mm512_mask_storeu_ps(out + 6 * ldo, mrows, _mm512_mul_ps(f6, sv));
        if (HG > 7) _mm512_mask_storeu_ps(out + 7 * ldo, mrows, _mm512_mul_ps(f7, sv));
    }
}
/* The rows in passes of 16; the last n % 16 copied into a buffer, 16 rows with zeros after them. */
static SRT__AVX512 void srt__attn_scores_q8_avx512(const unsigned char *rows, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    srt__q8q qq;
    unsigned char tail[16 * (SRT__KV_MAX_HD + 2 * SRT__KV_MAX_NB)];
    const uint64_t rb = srt__kv_q8_row_bytes(hd);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int nt = n % 16, nf = n - nt;
    __m512i ofs, tofs;
    int g0, i, l;
    if (srt__q8i_fallback(hd, stride)) { srt__attn_scores(rows, SRT__KV_E_Q8, stride, q, G, hd, n, scale, out, ldo); return; }
    ofs = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)stride));
    tofs = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)rb));
    if (nt) {
        for (l = 0; l < nt; l++) memcpy(tail + (uint64_t)l * rb, rows + (uint64_t)(nf + l) * stride, (size_t)rb);
        memset(tail + (uint64_t)nt * rb, 0, (size_t)((uint64_t)(16 - nt) * rb));
    }
    for (g0 = 0; g0 < G; g0 += 8) {
        int gn = G - g0 < 8 ? G - g0 : 8;
        srt__q8q_make(&qq, q + (uint64_t)g0 * hd, gn, hd);
        for (i = 0; i < nf; i += 16) {
            const unsigned char *r = rows + (uint64_t)i * stride;
            uint64_t pf;
            for (pf = 0; pf < 16 * stride; pf += 64) _mm_prefetch((const char *)r + SRT__Q8I_PF + pf, _MM_HINT_T0);
            srt__q8i_heads512(r, stride, ofs, &qq, gn, hd, (__mmask16)0xffff, scale, out + (uint64_t)g0 * ldo + i, ldo);
        }
        if (nt) srt__q8i_heads512(tail, rb, tofs, &qq, gn, hd, (__mmask16)((1u << nt) - 1), scale, out + (uint64_t)g0 * ldo + nf, ldo);
    }
}
#undef SRT__Q8I_PF
static SRT__AVX2 inline __attribute__((always_inline)) void srt__attn_values_q8_heads(const unsigned char *rows, uint64_t stride, const float *w0, uint64_t ldw, int HG,
                                                                                      int n, uint64_t hd, float *o0) {
    const float *w1 = w0 + ldw;
    float *o1 = o0 + hd;
    uint64_t d0, d;
    int i;
    for (d0 = 0; d0 + 32 <= hd; d0 += 32) {   /* one scale block: 32 outputs x HG heads in registers */
        __m256 a0 = _mm256_loadu_ps(o0 + d0), a1 = _mm256_loadu_ps(o0 + d0 + 8), a2 = _mm256_loadu_ps(o0 + d0 + 16), a3 = _mm256_loadu_ps(o0 + d0 + 24);
        __m256 b0 = a0, b1 = a1, b2 = a2, b3 = a3;
        if (HG > 1) { b0 = _mm256_loadu_ps(o1 + d0); b1 = _mm256_loadu_ps(o1 + d0 + 8); b2 = _mm256_loadu_ps(o1 + d0 + 16); b3 = _mm256_loadu_ps(o1 + d0 + 24); }
        for (i = 0; i < n; i++) {
            const unsigned char *r = rows + (uint64_t)i * stride;
            __m256 sc = _mm256_set1_ps(srt__kv_q8_scale_avx2(r, hd, d0));
            __m256 k0 = srt__kv_q8_load8(r, d0, sc), k1 = srt__kv_q8_load8(r, d0 + 8, sc), k2 = srt__kv_q8_load8(r, d0 + 16, sc), k3 = srt__kv_q8_load8(r, d0 + 24, sc);
            __m256 v0 = _mm256_set1_ps(w0[i]);
            _mm_prefetch((const char *)r + d0 + 16 * stride, _MM_HINT_T0);
            a0 = _mm256_fmadd_ps(v0, k0, a0); a1 = _mm256_fmadd_ps(v0, k1, a1); a2 = _mm256_fmadd_ps(v0, k2, a2); a3 = _mm256_fmadd_ps(v0, k3, a3);
            if (HG > 1) {
                __m256 v1 = _mm256_set1_ps(w1[i]);
                b0 = _mm256_fmadd_ps(v1, k0, b0); b1 = _mm256_fmadd_ps(v1, k1, b1); b2 = _mm256_fmadd_ps(v1, k2, b2); b3 = _mm256_fmadd_ps(v1, k3, b3);
            }
        }
        _mm256_storeu_ps(o0 + d0, a0); _mm256_storeu_ps(o0 + d0 + 8, a1); _mm256_storeu_ps(o0 + d0 + 16, a2); _mm256_storeu_ps(o0 + d0 + 24, a3);
        if (HG > 1) { _mm256_storeu_ps(o1 + d0, b0); _mm256_storeu_ps(o1 + d0 + 8, b1); _mm256_storeu_ps(o1 + d0 + 16, b2); _mm256_storeu_ps(o1 + d0 + 24, b3); }
    }
    if (d0 < hd)   /* the rest as the reference does it */
        for (i = 0; i < n; i++)
            for (d = d0; d < hd; d++) {
                float x = srt__kv_value(rows + (uint64_t)i * stride, SRT__KV_E_Q8, hd, d);
                o0[d] = srt__fmaf(w0[i], x, o0[d]);
                if (HG > 1) o1[d] = srt__fmaf(w1[i], x, o1[d]);
            }
}
static SRT__AVX2 void srt__attn_values_q8_avx2(const unsigned char *rows, uint64_t stride, const float *ws, uint64_t ldw, int G, int n, uint64_t hd, float *outs) {
    int g = 0;
    for (; g + 2 <= G; g += 2) srt__attn_values_q8_heads(rows, stride, ws + g * ldw, ldw, 2, n, hd, outs + g * hd);
    if (g < G) srt__attn_values_q8_heads(rows, stride, ws + g * ldw, ldw, 1, n, hd, outs + g * hd);
}
/* As srt__attn_scores / srt__attn_values with the row loop inside one call: each row's dot is the
   reference's (16 lanes as lo/hi, halving adds), the values are fma(w[i], row i, out) row by row.
   F16 rows: two query heads per pass share each row's loads and conversions (and the prefetch 16
   rows ahead); an odd last head, and F32 rows, one at a time. */
static SRT__AVX2 void srt__attn_scores_avx2(const void *rows, int type, uint64_t stride, const float *qs, int G, uint64_t hd, int n, float scale, float *outs, uint64_t ldo) {
    uint64_t kt = hd & ~(uint64_t)15, k;
    int i, g = 0, f16 = type == SRT__KV_E_F16;
    if (type == SRT__KV_E_Q8) { srt__attn_scores_q8_avx2((const unsigned char *)rows, stride, qs, G, hd, n, scale, outs, ldo); return; }
    if (f16)
        for (; g + 2 <= G; g += 2) {
            const float *q0 = qs + g * hd, *q1 = q0 + hd;
            float *o0 = outs + g * ldo, *o1 = o0 + ldo;
            for (i = 0; i < n; i++) {
                const uint16_t *r = (const uint16_t *)rows + (uint64_t)i * stride;
                __m256 l0 = _mm256_setzero_ps(), h0 = l0, l1 = l0, h1 = l0;
                for (k = 0; k < 2 * hd; k += 64) _mm_prefetch((const char *)(r + 16 * stride) + k, _MM_HINT_T0);   /* every line of the row */
                for (k = 0; k < kt; k += 16) {
                    __m256 kl = SRT__F256_LOAD_F16(r, k), kh = SRT__F256_LOAD_F16(r, k + 8);
                    l0 = _mm256_fmadd_ps(kl, _mm256_loadu_ps(q0 + k), l0); h0 = _mm256_fmadd_ps(kh, _mm256_loadu_ps(q0 + k + 8), h0);
                    l1 = _mm256_fmadd_ps(kl, _mm256_loadu_ps(q1 + k), l1); h1 = _mm256_fmadd_ps(kh, _mm256_loadu_ps(q1 + k + 8), h1);
                }
                o0[i] = srt__finish256(l0, h0, NULL, r, SRT_F16, q0, kt, hd) * scale;
                o1[i] = srt__finish256(l1, h1, NULL, r, SRT_F16, q1, kt, hd) * scale;
            }
        }
    for (; g < G; g++)
    for (i = 0; i < n; i++) {
        const float *q = qs + g * hd;
        float *out = outs + g * ldo;
        __m256 lo = _mm256_setzero_ps(), hi = lo;
        if (f16) {
            const uint16_t *r = (const uint16_t *)rows + (uint64_t)i * stride;
            for (k = 0; k < kt; k += 16) {
                lo = _mm256_fmadd_ps(SRT__F256_LOAD_F16(r, k), _mm256_loadu_ps(q + k), lo);
                hi = _mm256_fmadd_ps(SRT__F256_LOAD_F16(r, k + 8), _mm256_loadu_ps(q + k + 8), hi);
            }
            out[i] = srt__finish256(lo, hi, NULL, r, SRT_F16, q, kt, hd) * scale;
        } else {
            const float *r = (const float *)rows + (uint64_t)i * stride;
            for (k = 0; k < kt; k += 16) {
                lo = _mm256_fmadd_ps(_mm256_loadu_ps(r + k), _mm256_loadu_ps(q + k), lo);
                hi = _mm256_fmadd_ps(_mm256_loadu_ps(r + k + 8), _mm256_loadu_ps(q + k + 8), hi);
            }
            out[i] = srt__finish256(lo, hi, r, NULL, SRT_F32, q, kt, hd) * scale;
        }
    }
}
static SRT__AVX2 void srt__attn_values_avx2(const void *rows, int type, uint64_t stride, const float *ws, uint64_t ldw, int G, int n, uint64_t hd, float *outs) {
    uint64_t d0, d;
    int i, g = 0, f16 = type == SRT__KV_E_F16;
    if (type == SRT__KV_E_Q8) { srt__attn_values_q8_avx2((const unsigned char *)rows, stride, ws, ldw, G, n, hd, outs); return; }
    if (f16)   /* two heads x 32 outputs in registers: 8 FMA chains; each row loaded once for both */
        for (; g + 2 <= G; g += 2) {
            const float *w0 = ws + g * ldw, *w1 = w0 + ldw;
            float *o0 = outs + g * hd, *o1 = o0 + hd;
            for (d0 = 0; d0 + 32 <= hd; d0 += 32) {
                __m256 a0 = _mm256_loadu_ps(o0 + d0), a1 = _mm256_loadu_ps(o0 + d0 + 8), a2 = _mm256_loadu_ps(o0 + d0 + 16), a3 = _mm256_loadu_ps(o0 + d0 + 24);
                __m256 b0 = _mm256_loadu_ps(o1 + d0), b1 = _mm256_loadu_ps(o1 + d0 + 8), b2 = _mm256_loadu_ps(o1 + d0 + 16), b3 = _mm256_loadu_ps(o1 + d0 + 24);
                for (i = 0; i < n; i++) {
                    const uint16_t *r = (const uint16_t *)rows + (uint64_t)i * stride + d0;
                    __m256 k0 = SRT__F256_LOAD_F16(r, 0), k1 = SRT__F256_LOAD_F16(r, 8), k2 = SRT__F256_LOAD_F16(r, 16), k3 = SRT__F256_LOAD_F16(r, 24);
                    __m256 v0 = _mm256_set1_ps(w0[i]), v1 = _mm256_set1_ps(w1[i]);
                    _mm_prefetch((const char *)(r + 16 * stride), _MM_HINT_T0);
                    a0 = _mm256_fmadd_ps(v0, k0, a0); a1 = _mm256_fmadd_ps(v0, k1, a1); a2 = _mm256_fmadd_ps(v0, k2, a2); a3 = _mm256_fmadd_ps(v0, k3, a3);
                    b0 = _mm256_fmadd_ps(v1, k0, b0); b1 = _mm256_fmadd_ps(v1, k1, b1); b2 = _mm256_fmadd_ps(v1, k2, b2); b3 = _mm256_fmadd_ps(v1, k3, b3);
                }
                _mm256_storeu_ps(o0 + d0, a0); _mm256_storeu_ps(o0 + d0 + 8, a1); _mm256_storeu_ps(o0 + d0 + 16, a2); _mm256_storeu_ps(o0 + d0 + 24, a3);
                _mm256_storeu_ps(o1 + d0, b0); _mm256_storeu_ps(o1 + d0 + 8, b1); _mm256_storeu_ps(o1 + d0 + 16, b2); _mm256_storeu_ps(o1 + d0 + 24, b3);
            }
            if (d0 < hd)   /* the rest as the reference does it */
                for (i = 0; i < n; i++)
                    for (d = d0; d < hd; d++) {
                        float x = srt_f16_to_f32(((const uint16_t *)rows)[(uint64_t)i * stride + d]);
                        o0[d] = srt__fmaf(w0[i], x, o0[d]);
                        o1[d] = srt__fmaf(w1[i], x, o1[d]);
                    }
        }
    for (; g < G; g++) {
    const float *w = ws + g * ldw;
    float *out = outs + g * hd;
    for (d0 = 0; d0 + 32 <= hd; d0 += 32) {   /* 32 outputs in registers across all rows */
        __m256 a0 = _mm256_loadu_ps(out + d0), a1 = _mm256_loadu_ps(out + d0 + 8), a2 = _mm256_loadu_ps(out + d0 + 16), a3 = _mm256_loadu_ps(out + d0 + 24);
        for (i = 0; i < n; i++) {
            __m256 wv = _mm256_set1_ps(w[i]);
            if (f16) {
                const uint16_t *r = (const uint16_t *)rows + (uint64_t)i * stride + d0;
                a0 = _mm256_fmadd_ps(wv, SRT__F256_LOAD_F16(r, 0), a0); a1 = _mm256_fmadd_ps(wv, SRT__F256_LOAD_F16(r, 8), a1);
                a2 = _mm256_fmadd_ps(wv, SRT__F256_LOAD_F16(r, 16), a2); a3 = _mm256_fmadd_ps(wv, SRT__F256_LOAD_F16(r, 24), a3);
            } else {
                const float *r = (const float *)rows + (uint64_t)i * stride + d0;
                a0 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(r), a0); a1 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(r + 8), a1);
                a2 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(r + 16), a2); a3 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(r + 24), a3);
            }
        }
        _mm256_storeu_ps(out + d0, a0); _mm256_storeu_ps(out + d0 + 8, a1); _mm256_storeu_ps(out + d0 + 16, a2); _mm256_storeu_ps(out + d0 + 24, a3);
    }
    if (d0 < hd)   /* the rest as the reference does it */
        for (i = 0; i < n; i++)
            for (d = d0; d < hd; d++)
                out[d] = srt__fmaf(w[i], f16 ? srt_f16_to_f32(((const uint16_t *)rows)[(uint64_t)i * stride + d]) : ((const float *)rows)[(uint64_t)i * stride + d], out[d]);
    }
}


/* ---------------------------------------------------------------- sparse formats (AVX-512 VBMI2) */
/* Load as sparse, compute as dense: sb-q8 / sb-q4 rebuild each 64-byte chunk of the dense tile
   with vpexpandb (the bitmap is the mask) and run the dense Q8 math on it (u = byte ^ 0x80, or
   ^ 0x08 for the sign-extended nibbles of sb-q4, so u = value + off for zeros too); sb-bf16
   expands 32 bf16 of a row with vpexpandw and splits them into even and odd f32 lanes; s4x1 gathers
   the activations of a micro-tile's 4 columns with vpermb. They need AVX512-VBMI and -VBMI2 (Ice
   Lake and later); without them the sparse formats use the portable kernels. */
#define SRT__AVX512SP __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi,avx512vbmi2,fma,f16c,popcnt")))
/* What kernels choose by besides the level: bit 0 VBMI + VBMI2, bit 1 the vendor is AMD (kernels
   tuned per vendor). Cached atomically, as srt__x86_levels. */
static int srt__x86_traits(void) {
    static int32_t cached = -1;
    int32_t v = srt__atomic_load32(&cached);
    if (v < 0) {
        uint32_t r[4];
        int amd;
        srt__cpuid(0, 0, r);
        amd = r[1] == 0x68747541u && r[3] == 0x69746e65u && r[2] == 0x444d4163u;   /* "Auth" "enti" "cAMD" */
        v = amd << 1;
        if (r[0] >= 7) { srt__cpuid(7, 0, r); v |= ((r[2] >> 1) & 1) && ((r[2] >> 6) & 1); }   /* VBMI, VBMI2 */
        srt__atomic_store32(&cached, v);
    }
    return v;
}
static int srt__x86_vbmi2(void) { return srt__x86_traits() & 1; }
static int srt__x86_amd(void) { return srt__x86_traits() >> 1 & 1; }

#define SRT__SBQ4_BATCH 16   /* sb-q4 chunks unpacked before any is expanded (AVX-512 GEMV, AVX2) */
/* A packed sb-q4 chunk (32 bytes at p) with its nibbles spread to one byte each: zero-extended to
   16-bit words, the high nibble shifted into the high byte, both masked. */
static SRT__AVX512SP inline __attribute__((always_inline)) __m512i srt__sbq4_spread512(const uint8_t *p) {
    __m512i w = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_ternarylogic_epi32(w, _mm512_slli_epi16(w, 4), _mm512_set1_epi16(0x0f0f), 0xa8);   /* (a | b) & c */
}
/* On AMD the GEMV expands sb-q4 chunks from nibbles spread a batch at a time into nib (the memory
   form of vpexpandb): on Zen 4 the in-register spread and the register vpexpandb of each chunk took
   1.2x as long. On a Sapphire Rapids-class Xeon the buffer took 1.1-1.35x as long as registers
   (2026-11-28), so other vendors spread in registers, as the GEMM, whose tokens share each expansion,
   does everywhere. */
/* sb-q8 / sb-q4: NT tokens share each expanded chunk (GEMV: one token at a time; GEMM: blocks of 4,
   then a block of the 3 or 2 left, tile by tile; a single token left goes through the GEMV). Two
   chunks per step into two accumulators (groups have a multiple of 8 chunks). */
#define SRT__SB_EXPAND(U, C) { \
        uint64_t m_ = srt__rd64(bm + (C) * 8); \
        if (BUF_) U = _mm512_xor_si512(_mm512_maskz_expandloadu_epi8(m_, (const void *)(nib + 64 * ((C) - cb))), flip); \
        else if (Q4_) { \
            U = _mm512_xor_si512(_mm512_maskz_expand_epi8(m_, srt__sbq4_spread512(p)), flip); \
            p += ((uint64_t)_mm_popcnt_u64(m_) + 1) >> 1; \
        } else { \
            U = _mm512_xor_si512(_mm512_maskz_expandloadu_epi8(m_, (const void *)p), flip); \
            p += (uint64_t)_mm_popcnt_u64(m_); \
        } }
#define SRT__SB512_BLOCK(NT) { \
        enum { NT_ = NT, BUF_ = SPREAD_BUF_ && (NT) == 1 }; \
        const uint8_t *p = (const uint8_t *)w->part[0] + srt__rd64(offs + tile * 8); \
        __attribute__((aligned(64))) uint8_t nib[BUF_ ? 64 * SRT__SBQ4_BATCH : 1]; \
        uint64_t cb = 0; \
        __m512 y[NT]; \
        (void)nib; (void)cb; \
        SRT__UNROLL for (j = 0; j < NT_; j++) y[j] = _mm512_setzero_ps(); \
        for (g = 0; g < tl.ng; g++) { \
            __m512i acc[NT], acc2[NT]; \
            uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
            SRT__UNROLL for (j = 0; j < NT_; j++) { acc[j] = _mm512_setzero_si512(); acc2[j] = acc[j]; } \
            for (c = g * cpg; c < c1; c += 2) { \
                __m512i u0, u1; \
                if (BUF_ && (c - g * cpg) % SRT__SBQ4_BATCH == 0) { \
                    uint64_t i_, n_ = c1 - c < SRT__SBQ4_BATCH ? c1 - c : SRT__SBQ4_BATCH; \
                    for (i_ = 0, cb = c; i_ < n_; i_++) { \
                        _mm512_store_si512((void *)(nib + 64 * i_), srt__sbq4_spread512(p)); \
                        _mm_prefetch((const char *)p + SRT__PREFETCH, _MM_HINT_T0); \
                        p += ((uint64_t)_mm_popcnt_u64(srt__rd64(bm + (c + i_) * 8)) + 1) >> 1; \
                    } \
                } \
                if (!BUF_) _mm_prefetch((const char *)p + SRT__PREFETCH, _MM_HINT_T0); \
                if (c % 8 == 0) _mm_prefetch((const char *)(bm + c * 8) + SRT__PREFETCH / 4, _MM_HINT_T0); \
                SRT__SB_EXPAND(u0, c) \
                SRT__SB_EXPAND(u1, c + 1) \
                SRT__UNROLL for (j = 0; j < NT_; j++) { \
                    const int8_t *qc = a->q + (uint64_t)(t0 + j) * a->kp + 4 * c; \
                    acc[j] = _mm512_dpbusd_epi32(acc[j], u0, _mm512_set1_epi32(srt__ld32(qc))); \
                    acc2[j] = _mm512_dpbusd_epi32(acc2[j], u1, _mm512_set1_epi32(srt__ld32(qc + 4))); \
                } \
            } \
            SRT__UNROLL for (j = 0; j < NT_; j++) { \
                uint64_t gi = (uint64_t)(t0 + j) * a->ng + g; \
                y[j] = srt__epilogue512(_mm512_add_epi32(acc[j], acc2[j]), 1, off, a->s[gi], sc + g * SRT__TILE, a->d[gi], y[j]); \
            } \
        } \
        SRT__UNROLL for (j = 0; j < NT_; j++) srt__store512(mm, t0 + j, tile, y[j]); }
/* SPREAD_BUF: the GEMV's sb-q4 chunks spread a batch at a time into a buffer (see above) */
#define SRT__SB512(NAME, Q4, GEMM, SPREAD_BUF, REST) \
static SRT__AVX512SP void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { Q4_ = Q4, SPREAD_BUF_ = SPREAD_BUF }; \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group); \
    const int off = Q4 ? 8 : 128; \
    const __m512i flip = _mm512_set1_epi8((char)(Q4 ? 0x08 : 0x80)); \
    const unsigned char *offs = (const unsigned char *)w->part[3]; \
    uint64_t cpg = w->group / 4, tile, g, c; \
    int t0, j, n4 = (GEMM) ? mm->n_tok & ~3 : 0, rest = (GEMM) ? mm->n_tok - n4 : 0; \
    for (tile = tile0; tile < tile1; tile++) { \
        const unsigned char *bm = (const unsigned char *)w->part[2] + tile * tl.chunks * 8; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        if (!(GEMM)) for (t0 = 0; t0 < mm->n_tok; t0++) SRT__SB512_BLOCK(1) \
        else { \
            for (t0 = 0; t0 < n4; t0 += 4) SRT__SB512_BLOCK(4) \
            if (rest == 3) SRT__SB512_BLOCK(3) \
            else if (rest == 2) SRT__SB512_BLOCK(2) \
        } \
    } \
    if (rest == 1) srt__mm_tail(mm, n4, tile0, tile1, REST); \
}
static void srt__sb_none(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { (void)mm; (void)tile0; (void)tile1; }
SRT__SB512(srt__sbq8_gemv_avx512, 0, 0, 0, srt__sb_none)
SRT__SB512(srt__sbq4_gemv_reg_avx512, 1, 0, 0, srt__sb_none)
SRT__SB512(srt__sbq4_gemv_buf_avx512, 1, 0, 1, srt__sb_none)
/* The sb-q4 GEMV: the buffered spread on AMD, in registers elsewhere (above). srt__sbq4_spread_buf:
   -1 by vendor, 0 / 1 forced (tests). */
static int srt__sbq4_spread_buf = -1;
static void srt__sbq4_gemv_avx512(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    (srt__sbq4_spread_buf < 0 ? srt__x86_amd() : srt__sbq4_spread_buf) ? srt__sbq4_gemv_buf_avx512(mm, tile0, tile1) : srt__sbq4_gemv_reg_avx512(mm, tile0, tile1);
}
SRT__SB512(srt__sbq8_gemm_avx512, 0, 1, 0, srt__sbq8_gemv_avx512)
SRT__SB512(srt__sbq4_gemm_avx512, 1, 1, 0, srt__sbq4_gemv_avx512)

/* sb-bf16: one vpexpandw per 32 columns (mask loaded straight into k, no pdep): the 32 bf16 of a
   bitmap word land in the 32 words of a zmm; the even columns are the low halves of its 32-bit
   lanes (shifted up: their f32), the odd ones the high halves (masked: their f32). x comes split
   the same way (a->xs, made once per product by srt__sb_bf16_split_x): the kernel is bound by its
   vector ports, not by memory, at 70% sparsity, and permuting x in the loop (two vpermt2ps per 32
   columns and four rows) cost 12% of its time. ae lane i sums column 32b + 2i, ao column
   32b + 2i + 1: the reference's partial sums s[2i], s[2i + 1]. The four rows of a group share each
   load of x and read one stream of values and one of bitmap words (formats/LAYOUTS.md: the layout
   is in groups of 4 rows for this loop). Accumulators are named variables, not arrays: arrays of
   __m512 end up on the stack, and the store-to-load round trip in the FMA chain cost more than
   everything else (the speed did not depend on the sparsity). */
#define SRT__AVX512SPB __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi,avx512vbmi2,fma,f16c,popcnt,bmi2")))
/* xs (n_tok x 32 ceil(K / 32)): per 32 columns of x the 16 even ones, then the 16 odd ones; 0 past K */
static SRT__AVX512SPB void srt__sb_bf16_split_x(const float *x, uint64_t K, int n_tok, float *xs) {
    const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    uint64_t nb = (K + 31) / 32, b;
    int t;
    for (t = 0; t < n_tok; t++, x += K, xs += nb * 32)
        for (b = 0; b < nb; b++) {
            uint64_t n = K - 32 * b < 32 ? K - 32 * b : 32;
            __mmask16 m0 = (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1), m1 = (__mmask16)(n > 16 ? (1u << (n - 16)) - 1 : 0);
            __m512 x0 = _mm512_maskz_loadu_ps(m0, x + 32 * b), x1 = _mm512_maskz_loadu_ps(m1, x + 32 * b + 16);
            _mm512_storeu_ps(xs + 32 * b, _mm512_permutex2var_ps(x0, ie, x1));
            _mm512_storeu_ps(xs + 32 * b + 16, _mm512_permutex2var_ps(x0, io, x1));
        }
}
static SRT__AVX512SPB void srt__sb_bf16_avx512(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    uint64_t K = w->cols, nb = (K + 31) / 32, b;
    uint64_t r = tile0 * SRT__TILE, r1 = tile1 * SRT__TILE < w->rows ? tile1 * SRT__TILE : w->rows;
    const unsigned char *bmp = (const unsigned char *)w->part[1], *offs = (const unsigned char *)w->part[2];
    const uint16_t *vals = (const uint16_t *)w->part[0];
    const __m512i hi16 = _mm512_set1_epi32((int)0xffff0000u);
    int t;
    /* one row of a block: its values follow the previous row's in the one stream p. The loop's work
       per byte is close to one core's read speed and the hardware prefetchers do little for it, so
       it prefetches by hand: rows 1 and 3 3 KB ahead into L1, row 0 6 KB ahead into L2, the bitmaps
       768 bytes, and x 1 KB (at K = 8192 the split x and a group's stream overflow L1). Distances,
       the unroll by 2 and what was tried instead (more groups per pass: interleaved streams, slower
       from memory): README, "Sparse formats against their dense counterparts". */
#define SRT__SBF_ROW(I) { \
        uint32_t m_ = srt__rd32(bm + 4 * (4 * b + I)); \
        __m512i v_ = _mm512_maskz_expand_epi16(_cvtu32_mask32(m_), _mm512_loadu_si512((const void *)p)); \
        if (I & 1) _mm_prefetch((const char *)p + 3072, _MM_HINT_T0); \
        if (I == 0) _mm_prefetch((const char *)p + 6144, _MM_HINT_T1); \
        p += _mm_popcnt_u32(m_); \
        ae##I = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(v_, 16)), xe, ae##I); \
        ao##I = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(v_, hi16)), xo, ao##I); }
#define SRT__SBF_END(I) y[I] = srt__hsum512(_mm512_add_ps(ae##I, ao##I)) + (mm->bias ? mm->bias[r + I] : 0.0f);
    for (; r + SRT__SBG <= r1; r += SRT__SBG)   /* whole groups: the four rows together */
        for (t = 0; t < mm->n_tok; t++) {
            const float *x = mm->a->xs + (uint64_t)t * nb * 32;
            float *y = mm->y + (uint64_t)t * mm->ldy + r;
            const uint16_t *p = vals + srt__rd64(offs + r / SRT__SBG * 8);
            const unsigned char *bm = bmp + r * nb * 4;
            __m512 ae0 = _mm512_setzero_ps(), ao0 = ae0, ae1 = ae0, ao1 = ae0, ae2 = ae0, ao2 = ae0, ae3 = ae0, ao3 = ae0;
#pragma GCC unroll 2
            for (b = 0; b < nb; b++) {
                const __m512 xe = _mm512_loadu_ps(x + 32 * b), xo = _mm512_loadu_ps(x + 32 * b + 16);
                _mm_prefetch((const char *)(bm + 16 * b) + 768, _MM_HINT_T0);
                _mm_prefetch((const char *)(x + 32 * b) + 1024, _MM_HINT_T0);
                _mm_prefetch((const char *)(x + 32 * b) + 1088, _MM_HINT_T0);
                SRT__SBF_ROW(0) SRT__SBF_ROW(1) SRT__SBF_ROW(2) SRT__SBF_ROW(3)
            }
            SRT__SBF_END(0) SRT__SBF_END(1) SRT__SBF_END(2) SRT__SBF_END(3)
        }
    if (r < r1) srt__sb_bf16_rows(mm, r, r1);
#undef SRT__SBF_ROW
#undef SRT__SBF_END
}

static SRT__AVX512SP __m128i srt__lanes4(__m512i v) {   /* sum of the four 128-bit lanes */
    __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}
/* 128 bytes 0xff then 128 zeros: the bytes from 128 - b keep the first b of a load (b <= 128), the
   s4x1 kernels' masks for the micro-tiles (16 weight or 4 index bytes each) past a count */
#define SRT__R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
static const uint8_t srt__s4_keep[256] = {SRT__R16(255), SRT__R16(255), SRT__R16(255), SRT__R16(255),
                                          SRT__R16(255), SRT__R16(255), SRT__R16(255), SRT__R16(255)};
#undef SRT__R16
/* An s4x1 kernel's view of its matrix: parts, tiling, segments in all and per group. */
#define SRT__S4_PARTS \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group); \
    const int8_t *vals = (const int8_t *)w->part[0]; \
    const uint8_t *idx = (const uint8_t *)w->part[2]; \
    const unsigned char *offs = (const unsigned char *)w->part[3]; \
    const uint64_t nseg = tl.kp / SRT__SEG, spg = w->group / SRT__SEG;
/* s4x1 GEMV: a step takes four micro-tiles of a block (64 weight bytes, lanes = micro-tile x row);
   their column indices become a vpermb pattern that gathers the activation bytes (q + 128, u8) from
   the 32-byte segment, broadcast to both halves so that only index bits 0-4 count (as the
   reference's & 31). sum w (q + 128) - 128 sum w = sum w q, exact in int32.
   - The four blocks of a tile run side by side on one load of the segment, each with its own
     accumulators and its own pointers into the values and the indices.
   - A second step runs for all four blocks when one has more than 4 micro-tiles in the segment: a
     branch per block on its count would be mispredicted around 50% sparsity; this one is taken
     nearly always there and nearly never from about 70% on.
   - The weights past a block's count are zeroed with an AND from srt__s4_keep (128 - 16 n and
     192 - 16 n give the two steps' masks for any n <= 8), and the indices past it gather garbage
     that meets zero weights: masked byte loads of the indices made the kernel 3.5x slower on Zen 4.
     Only the segments of the matrix's last tile whose steps could read past its last micro-tile
     use masked loads (block 3's pointer is the largest, so it alone decides).
   - Per group the four blocks' accumulators are summed over their micro-tiles (128-bit lanes) by a
     tree of lane shuffles into one vector of the tile's 16 rows, then scaled.
   - Tokens after the first find the tile in cache; the next tile's place is prefetched.
   The kernel this replaced kept the blocks' positions in an array and spilled many of its scalars:
   1.5-1.6x slower in the cache (README, s4x1 GEMV at high sparsity). The AVX2 GEMV finds its
   tile's places and tail the same way, inline: a shared helper made this one 3% slower. */
static SRT__AVX512SP void srt__s4x1_gemv_avx512(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    SRT__S4_PARTS
    const uint64_t total = srt__rd64(offs + tl.tiles * 8);   /* micro-tiles of the matrix */
    const __m512i pat = _mm512_set_epi8(15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12,
                                        11, 10, 9, 8, 11, 10, 9, 8, 11, 10, 9, 8, 11, 10, 9, 8,
                                        7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5, 4,
                                        3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0);
    const __m512i c80 = _mm512_set1_epi8((char)0x80);
    uint64_t tile, s, g;
    int t;
    for (tile = tile0; tile < tile1; tile++) {
        const unsigned char *counts = offs + (tl.tiles + 1) * 8 + tile * 4 * nseg;
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE;
        uint64_t start0 = srt__rd64(offs + tile * 8), start1 = start0, start2, start3, safe = nseg;
        const uint64_t ahead = srt__rd64(offs + (tile + 1) * 8) - start0;   /* the same place in the next tile */
        for (s = 0; s < nseg; s++) start1 += counts[s];
        for (s = 0, start2 = start1; s < nseg; s++) start2 += counts[nseg + s];
        for (s = 0, start3 = start2; s < nseg; s++) start3 += counts[2 * nseg + s];
        if (start0 + ahead + 8 > total) {   /* safe: the segments before the first whose steps may read past the end */
            uint64_t left = total - (start0 + ahead);   /* micro-tiles after block 3's place at segment `safe` */
            while (safe > 0 && left + counts[3 * nseg + safe - 1] < 8) left += counts[3 * nseg + --safe];
        }
        for (t = 0; t < mm->n_tok; t++) {
            const int8_t *q = a->q + (uint64_t)t * a->kp;
            const float *dx = a->d + (uint64_t)t * a->ng;
            const int8_t *v0 = vals + 16 * start0, *v1 = vals + 16 * start1, *v2 = vals + 16 * start2, *v3 = vals + 16 * start3;
            const uint8_t *i0 = idx + 4 * start0, *i1 = idx + 4 * start1, *i2 = idx + 4 * start2, *i3 = idx + 4 * start3;
            __m512 y = _mm512_setzero_ps();
            for (g = 0, s = 0; g < tl.ng; g++) {
                const uint64_t s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg;
                __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0, acc2 = acc0, acc3 = acc0, ws0 = acc0, ws1 = acc0, ws2 = acc0, ws3 = acc0, r;
#define SRT__S4V_MAC(B, iv, wv) \
                    acc##B = _mm512_dpbusd_epi32(acc##B, _mm512_permutexvar_epi8(_mm512_permutexvar_epi8(pat, _mm512_castsi128_si512(iv)), qz), wv); \
                    ws##B = _mm512_dpbusd_epi32(ws##B, c80, wv);
#define SRT__S4V_STEP(B, H) \
                    SRT__S4V_MAC(B, _mm_loadu_si128((const __m128i *)(i##B + 16 * (H))), \
                                 _mm512_and_si512(_mm512_loadu_si512(v##B + 64 * (H)), _mm512_loadu_si512(srt__s4_keep + 128 + 64 * (H) - 16 * n##B)))
#define SRT__S4V_SAFE(B, H) { \
                    const unsigned k = (H) ? (n##B > 4 ? n##B - 4 : 0) : (n##B < 4 ? n##B : 4); \
                    SRT__S4V_MAC(B, _mm_maskz_loadu_epi8((__mmask16)((1u << (4 * k)) - 1), i##B + 16 * (H)), \
                                 _mm512_maskz_loadu_epi8(_cvtu64_mask64(k == 4 ? ~0ull : (1ull << (16 * k)) - 1), v##B + 64 * (H))) }
#define SRT__S4V_NEXT(B) \
                    _mm_prefetch((const char *)(v##B + 16 * ahead), _MM_HINT_T0); \
                    _mm_prefetch((const char *)(i##B + 4 * ahead), _MM_HINT_T0); \
                    v##B += 16 * n##B; i##B += 4 * n##B;
#define SRT__S4V_SEG(STEPS) { \
                    const unsigned n0 = counts[s], n1 = counts[nseg + s], n2 = counts[2 * nseg + s], n3 = counts[3 * nseg + s]; \
                    const __m512i qz = _mm512_xor_si512(_mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(q + s * SRT__SEG))), c80); \
                    STEPS \
                    SRT__S4V_NEXT(0) SRT__S4V_NEXT(1) SRT__S4V_NEXT(2) SRT__S4V_NEXT(3) }
#define SRT__S4V_FASTSTEPS \
                    SRT__S4V_STEP(0, 0) SRT__S4V_STEP(1, 0) SRT__S4V_STEP(2, 0) SRT__S4V_STEP(3, 0) \
                    if (((n0 + 3) | (n1 + 3) | (n2 + 3) | (n3 + 3)) & 8) {   /* a count > 4 (counts <= 8) */ \
                        SRT__S4V_STEP(0, 1) SRT__S4V_STEP(1, 1) SRT__S4V_STEP(2, 1) SRT__S4V_STEP(3, 1) \
                    }
#define SRT__S4V_SAFESTEPS \
                    SRT__S4V_SAFE(0, 0) SRT__S4V_SAFE(1, 0) SRT__S4V_SAFE(2, 0) SRT__S4V_SAFE(3, 0) \
                    SRT__S4V_SAFE(0, 1) SRT__S4V_SAFE(1, 1) SRT__S4V_SAFE(2, 1) SRT__S4V_SAFE(3, 1)
                const uint64_t e = s1 < safe ? s1 : safe;
                for (; s < e; s++) SRT__S4V_SEG(SRT__S4V_FASTSTEPS)
                for (; s < s1; s++) SRT__S4V_SEG(SRT__S4V_SAFESTEPS)
#undef SRT__S4V_MAC
#undef SRT__S4V_STEP
#undef SRT__S4V_SAFE
#undef SRT__S4V_NEXT
#undef SRT__S4V_SEG
#undef SRT__S4V_FASTSTEPS
#undef SRT__S4V_SAFESTEPS
                /* acc_B - ws_B (ws = 128 sum w), summed over the micro-tiles: lanes (0, 2) + (1, 3)
                   of two blocks at a time gives [B0 01, B0 23, B1 01, B1 23], then of the pairs */
                acc0 = _mm512_sub_epi32(acc0, ws0); acc1 = _mm512_sub_epi32(acc1, ws1);
                acc2 = _mm512_sub_epi32(acc2, ws2); acc3 = _mm512_sub_epi32(acc3, ws3);
                acc0 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc0, acc1, 0x88), _mm512_shuffle_i32x4(acc0, acc1, 0xdd));
                acc2 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc2, acc3, 0x88), _mm512_shuffle_i32x4(acc2, acc3, 0xdd));
                r = _mm512_add_epi32(_mm512_shuffle_i32x4(acc0, acc2, 0x88), _mm512_shuffle_i32x4(acc0, acc2, 0xdd));
                y = _mm512_fmadd_ps(_mm512_cvtepi32_ps(r), _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(sc + g * SRT__TILE))),
                                                                         _mm512_set1_ps(dx[g])), y);
            }
            srt__store512(mm, t, tile, y);
        }
    }
}

/* s4x1 GEMM, four tokens at once: lanes = token x row of a block. Per micro-tile the 4 column
   indices + 32 t form a vpermt2b pattern over the four tokens' 32-byte segments (q + 128), the 16
   weight bytes are broadcast to the four tokens: one vpermt2b and one vpdpbusd per micro-tile and
   4 tokens. 128 sum w per row and group is computed once per tile (wsum). */
#define SRT__S4_MAXG 256
/* From 8 tokens: its per-tile pass (wsum) costs more than the GEMV's passes below that (Sapphire
   Rapids-class Xeon, 2 threads, 8192 x 2048: 4 tokens 1.2x / 1.7x / 1.15x the GEMV's time at 50 /
   70 / 90% sparsity, 6 tokens 1.3x / 1.25x / 1.1x; 8 tokens 0.8x / 0.9x / 0.65x) */
#define SRT__S4X1_GEMM4_MIN 8
static SRT__AVX512SP void srt__s4x1_gemm_avx512(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    SRT__S4_PARTS
    uint64_t tile, bi, s, m;
    const __m512i ones = _mm512_set1_epi8(1), c80 = _mm512_set1_epi8((char)0x80);
    const __m512i tadd = _mm512_set_epi32(0x60606060, 0x60606060, 0x60606060, 0x60606060, 0x40404040, 0x40404040, 0x40404040, 0x40404040,
                                          0x20202020, 0x20202020, 0x20202020, 0x20202020, 0, 0, 0, 0);
    const __m512i tsel = _mm512_set_epi32(3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0);
    const __m512i b31 = _mm512_set1_epi8(31);
    int32_t wsum[4 * SRT__S4_MAXG * 4];
    int t0, n4 = mm->n_tok & ~3, j;
    if (tl.ng > SRT__S4_MAXG) n4 = 0;   /* very many groups: all tokens through GEMV */
    for (tile = tile0; tile < tile1 && n4; tile++) {
        const unsigned char *counts = offs + (tl.tiles + 1) * 8 + tile * 4 * nseg;
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE;
        uint64_t start[4], pos;
        pos = srt__rd64(offs + tile * 8);
        /* block starts and sum w per block, group and row */
        for (bi = 0; bi < 4; bi++) {   /* no branch on the counts (0..8) and no division: two masked halves of 4 micro-tiles */
            uint64_t g;
            start[bi] = pos;
            for (g = 0, s = 0; g < tl.ng; g++) {
                const uint64_t s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg;
                __m512i ws = _mm512_setzero_si512();
                for (; s < s1; s++) {
                    const uint64_t n = counts[bi * nseg + s], k0 = n < 4 ? n : 4, k1 = n - k0;
                    ws = _mm512_dpbusd_epi32(ws, ones, _mm512_maskz_loadu_epi8(_cvtu64_mask64(k0 == 4 ? ~0ull : (1ull << (16 * k0)) - 1), vals + pos * 16));
                    ws = _mm512_dpbusd_epi32(ws, ones, _mm512_maskz_loadu_epi8(_cvtu64_mask64(k1 == 4 ? ~0ull : (1ull << (16 * k1)) - 1), vals + pos * 16 + 64));
                    pos += n;
                }
                _mm_storeu_si128((__m128i *)(wsum + (bi * SRT__S4_MAXG + g) * 4), _mm_slli_epi32(srt__lanes4(ws), 7));
            }
        }
        for (t0 = 0; t0 < n4; t0 += 4) {
            const int8_t *q0 = a->q + (uint64_t)t0 * a->kp;
            uint64_t p[4];
            __m512 yb[4];
            float yt[4][4 * 4];
            for (bi = 0; bi < 4; bi++) { p[bi] = start[bi]; yb[bi] = _mm512_setzero_ps(); }
            for (s = 0; s < nseg; ) {
                uint64_t g = s / spg, s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg;
                __m512i acc[4];
                __m512 f4, dxv;
                for (bi = 0; bi < 4; bi++) acc[bi] = _mm512_setzero_si512();
                for (; s < s1; s++) {
                    const int8_t *qs = q0 + s * SRT__SEG;
                    __m512i q01 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)qs)), _mm256_loadu_si256((const __m256i *)(qs + a->kp)), 1);
                    __m512i q23 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(qs + 2 * a->kp))), _mm256_loadu_si256((const __m256i *)(qs + 3 * a->kp)), 1);
                    q01 = _mm512_xor_si512(q01, c80); q23 = _mm512_xor_si512(q23, c80);
                    for (bi = 0; bi < 4; bi++) {
                        uint64_t n = counts[bi * nseg + s];
                        for (m = 0; m < n; m++) {
                            __m512i pv = _mm512_add_epi8(_mm512_and_si512(_mm512_set1_epi32((int)srt__rd32(idx + (p[bi] + m) * 4)), b31), tadd);
                            __m512i gv = _mm512_permutex2var_epi8(q01, pv, q23);
                            acc[bi] = _mm512_dpbusd_epi32(acc[bi], gv, _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(vals + (p[bi] + m) * 16))));
                        }
                        p[bi] += n;
                    }
                }
                /* epilogue: lanes (token t, row i) */
                dxv = _mm512_permutexvar_ps(tsel, _mm512_castps128_ps512(_mm_set_ps(a->d[(uint64_t)(t0 + 3) * a->ng + g], a->d[(uint64_t)(t0 + 2) * a->ng + g],
                                                                                      a->d[(uint64_t)(t0 + 1) * a->ng + g], a->d[(uint64_t)t0 * a->ng + g])));
                for (bi = 0; bi < 4; bi++) {
                    __m512i ws = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(wsum + (bi * SRT__S4_MAXG + g) * 4)));
                    f4 = _mm512_mul_ps(_mm512_broadcast_f32x4(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(sc + g * SRT__TILE + 4 * bi)))), dxv);
                    yb[bi] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(acc[bi], ws)), f4, yb[bi]);
                }
            }
            for (bi = 0; bi < 4; bi++) _mm512_storeu_ps(yt[bi], yb[bi]);
            for (j = 0; j < 4; j++) {
                float row[SRT__TILE];
                for (bi = 0; bi < 4; bi++) memcpy(row + 4 * bi, yt[bi] + 4 * j, 16);
                srt__store512(mm, t0 + j, tile, _mm512_loadu_ps(row));
            }
        }
    }
    if (n4 < mm->n_tok) srt__mm_tail(mm, n4, tile0, tile1, srt__s4x1_gemv_avx512);
}

/* s4x1 GEMM for 16+ tokens: lanes = 16 tokens. The activations (q + 128) are first transposed to
   16 bytes per column (one per token: a vpgatherdd of 4 columns x 16 tokens and a vpermb per 4
   columns); a micro-tile's 4 columns are then 4 loads of 16 bytes and one vpermb, and its 16
   weights 4 vpdpbusd against the rows' broadcast 4 bytes (64 multiply-adds each). Per tile, a first
   pass turns every micro-tile's column indices into byte offsets in a 16-token panel (`mo`) and
   finds where each block's micro-tiles of each group start, so that the hot loop runs over one
   block and group at a time without the per-segment counts (their data-dependent loop exits cost
   more than the math), for two 16-token panels at once when 32 or more tokens are left (one load
   of the weights for both). 128 sum w per row and group is subtracted as in the 4-token kernel.
   Fewer than 16 tokens left: the 4-token kernel. */
/* The 16-token panels of the s4x1 GEMM: qt[kp t0 + 16 c + t] = q[t0 + t][c] + 128 for t0 < n16 (a
   multiple of 16); made once per product by srt__acts_prepare. */
static SRT__AVX512SP void srt__s4x1_panels_avx512(const int8_t *q, uint64_t kp, int n16, uint8_t *qt) {
    const __m512i tr = _mm512_set_epi8(63, 59, 55, 51, 47, 43, 39, 35, 31, 27, 23, 19, 15, 11, 7, 3,   /* byte 16 j + t <- 4 t + j */
                                       62, 58, 54, 50, 46, 42, 38, 34, 30, 26, 22, 18, 14, 10, 6, 2,
                                       61, 57, 53, 49, 45, 41, 37, 33, 29, 25, 21, 17, 13, 9, 5, 1,
                                       60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0);
    const __m512i c80 = _mm512_set1_epi8((char)0x80);
    const __m512i vidx = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32((int)kp));
    uint64_t c;
    int t0;
    for (t0 = 0; t0 < n16; t0 += 16)
        for (c = 0; c < kp; c += 4) {
            __m512i v = _mm512_i32gather_epi32(vidx, (const void *)(q + (uint64_t)t0 * kp + c), 1);
            _mm512_storeu_si512((void *)(qt + (uint64_t)t0 * kp + c * 16), _mm512_xor_si512(_mm512_permutexvar_epi8(tr, v), c80));
        }
}
static SRT__AVX512SP void srt__s4x1_gemm16_avx512(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    SRT__S4_PARTS
    uint64_t tile, bi, s, m, g;
    const __m512i ones = _mm512_set1_epi8(1), b31 = _mm512_set1_epi32(31);
    const __m512i il = _mm512_set_epi8(63, 47, 31, 15, 62, 46, 30, 14, 61, 45, 29, 13, 60, 44, 28, 12,   /* byte 4 t + j <- 16 j + t */
                                       59, 43, 27, 11, 58, 42, 26, 10, 57, 41, 25, 9, 56, 40, 24, 8,
                                       55, 39, 23, 7, 54, 38, 22, 6, 53, 37, 21, 5, 52, 36, 20, 4,
                                       51, 35, 19, 3, 50, 34, 18, 2, 49, 33, 17, 1, 48, 32, 16, 0);
    int32_t wsum[4 * SRT__S4_MAXG * 4];
    uint32_t gstart[4][SRT__S4_MAXG + 1];   /* block bi's micro-tiles of group g: [gstart[bi][g], gstart[bi][g + 1]) */
    float ybuf[SRT__TILE][32], sf[SRT__S4_MAXG * SRT__TILE];   /* sf: the tile's row scales, group-major */
    float *dT = NULL;                        /* dT[g n16 + t]: activation scale of token t, group g */
    uint32_t *mo = NULL;                     /* 4 byte offsets (16 x column) per micro-tile of the tile */
    uint64_t mo_cap = 0;
    int t0, n16 = mm->n_tok & ~15, t, i;
    const uint8_t *qt = a->qt;
    uint8_t *own = NULL;   /* panels made here when the caller prepared none (another matrix's activations) */
    if (tl.ng > SRT__S4_MAXG || !n16 || tl.kp > (1u << 26)) n16 = 0;
    else if (!qt) {
        if (!(own = (uint8_t *)SRT_MALLOC((size_t)(tl.kp * (uint64_t)n16 + 64)))) n16 = 0;
        else srt__s4x1_panels_avx512(a->q, a->kp, n16, own);
        qt = own;
    }
    if (n16 && !(dT = (float *)SRT_MALLOC(sizeof(float) * (size_t)(tl.ng * (uint64_t)n16 + 16)))) n16 = 0;
    for (g = 0; n16 && g < tl.ng; g++)
        for (t = 0; t < n16; t++) dT[g * (uint64_t)n16 + (uint64_t)t] = a->d[(uint64_t)t * a->ng + g];
    for (tile = tile0; tile < tile1 && n16; tile++) {
        const unsigned char *counts = offs + (tl.tiles + 1) * 8 + tile * 4 * nseg;
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE;
        uint64_t pos0 = srt__rd64(offs + tile * 8), n_mt = srt__rd64(offs + (tile + 1) * 8) - pos0, pos = 0;
        const int8_t *tv = vals + pos0 * 16;
        if (n_mt > mo_cap) {
            uint32_t *nm = (uint32_t *)SRT_REALLOC(mo, (size_t)(n_mt * 16));
            if (!nm) { n16 = 0; break; }   /* out of memory: the 4-token kernel does the rest */
            mo = nm; mo_cap = n_mt;
        }
        for (bi = 0; bi < 4; bi++) {   /* offsets, group starts, 128 sum w per block, group and row */
            for (g = 0, s = 0; g < tl.ng; g++) {
                uint64_t s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg;
                __m512i ws = _mm512_setzero_si512();
                gstart[bi][g] = (uint32_t)pos;
                for (; s < s1; s++) {   /* no branch on the count (0..8): two masked halves of 4 micro-tiles */
                    uint64_t n = counts[bi * nseg + s], k0 = n < 4 ? n : 4, k1 = n - k0;
                    const uint8_t *ix = idx + (pos0 + pos) * 4;
                    const __m512i base = _mm512_set1_epi32((int)(s * SRT__SEG));
                    __mmask16 mi0 = (__mmask16)((1u << (4 * k0)) - 1), mi1 = (__mmask16)((1u << (4 * k1)) - 1);
                    __mmask64 mw0 = _cvtu64_mask64(k0 == 4 ? ~0ull : (1ull << (16 * k0)) - 1), mw1 = _cvtu64_mask64(k1 == 4 ? ~0ull : (1ull << (16 * k1)) - 1);
                    __m512i o0 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(mi0, ix)), o1 = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(mi1, ix + 16));
                    _mm512_mask_storeu_epi32(mo + pos * 4, mi0, _mm512_slli_epi32(_mm512_add_epi32(_mm512_and_si512(o0, b31), base), 4));
                    _mm512_mask_storeu_epi32(mo + pos * 4 + 16, mi1, _mm512_slli_epi32(_mm512_add_epi32(_mm512_and_si512(o1, b31), base), 4));
                    ws = _mm512_dpbusd_epi32(ws, ones, _mm512_maskz_loadu_epi8(mw0, tv + pos * 16));
                    ws = _mm512_dpbusd_epi32(ws, ones, _mm512_maskz_loadu_epi8(mw1, tv + pos * 16 + 64));
                    pos += n;
                }
                _mm_storeu_si128((__m128i *)(wsum + (bi * SRT__S4_MAXG + g) * 4), _mm_slli_epi32(srt__lanes4(ws), 7));
            }
            gstart[bi][tl.ng] = (uint32_t)pos;
        }
        for (g = 0; g < tl.ng; g++) _mm512_storeu_ps(sf + g * SRT__TILE, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(sc + g * SRT__TILE))));
        for (t0 = 0; t0 < n16; ) {
            const int two = n16 - t0 >= 32;   /* two 16-token panels */
            const uint8_t *q0 = qt + (uint64_t)t0 * tl.kp, *q1 = q0 + (two ? 16 * tl.kp : 0);
            const float *d0 = dT + (uint64_t)t0, *d1 = d0 + (two ? 16 : 0);
            for (bi = 0; bi < 4; bi++) {   /* one block's 4 rows x 1 or 2 panels, summed over the groups in registers */
                __m512 y0 = _mm512_setzero_ps(), y1 = y0, y2 = y0, y3 = y0, z0 = y0, z1 = y0, z2 = y0, z3 = y0;
                for (g = 0; g < tl.ng; g++) {
                    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
                    const __m512 dx0 = _mm512_loadu_ps(d0 + g * (uint64_t)n16), dx1 = _mm512_loadu_ps(d1 + g * (uint64_t)n16);
                    for (m = gstart[bi][g]; m < gstart[bi][g + 1]; m++) {
                        const uint32_t *o = mo + m * 4;
                        const int8_t *wm = tv + m * 16;
                        __m512i w0 = _mm512_set1_epi32(srt__ld32(wm)), w1 = _mm512_set1_epi32(srt__ld32(wm + 4));
                        __m512i w2 = _mm512_set1_epi32(srt__ld32(wm + 8)), w3 = _mm512_set1_epi32(srt__ld32(wm + 12));
                        __m512i z = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(q0 + o[0])));
                        z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q0 + o[1])), 1);
                        z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q0 + o[2])), 2);
                        z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q0 + o[3])), 3);
                        z = _mm512_permutexvar_epi8(il, z);
                        a0 = _mm512_dpbusd_epi32(a0, z, w0); a1 = _mm512_dpbusd_epi32(a1, z, w1);
                        a2 = _mm512_dpbusd_epi32(a2, z, w2); a3 = _mm512_dpbusd_epi32(a3, z, w3);
                        if (two) {
                            z = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(q1 + o[0])));
                            z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q1 + o[1])), 1);
                            z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q1 + o[2])), 2);
                            z = _mm512_inserti32x4(z, _mm_loadu_si128((const __m128i *)(q1 + o[3])), 3);
                            z = _mm512_permutexvar_epi8(il, z);
                            b0 = _mm512_dpbusd_epi32(b0, z, w0); b1 = _mm512_dpbusd_epi32(b1, z, w1);
                            b2 = _mm512_dpbusd_epi32(b2, z, w2); b3 = _mm512_dpbusd_epi32(b3, z, w3);
                        }
                    }
                    /* y += (acc - 128 sum w) x (scale x dx): the reference's order, group after group */
#define SRT__S4M_ROW(R, ACC, DX, Y) { \
                        __m512i v_ = _mm512_sub_epi32(ACC, _mm512_set1_epi32(wsum[(bi * SRT__S4_MAXG + g) * 4 + (R)])); \
                        Y = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v_), _mm512_mul_ps(_mm512_set1_ps(sf[g * SRT__TILE + bi * 4 + (R)]), DX), Y); }
                    SRT__S4M_ROW(0, a0, dx0, y0) SRT__S4M_ROW(1, a1, dx0, y1) SRT__S4M_ROW(2, a2, dx0, y2) SRT__S4M_ROW(3, a3, dx0, y3)
                    if (two) { SRT__S4M_ROW(0, b0, dx1, z0) SRT__S4M_ROW(1, b1, dx1, z1) SRT__S4M_ROW(2, b2, dx1, z2) SRT__S4M_ROW(3, b3, dx1, z3) }
#undef SRT__S4M_ROW
                }
                _mm512_storeu_ps(ybuf[bi * 4 + 0], y0); _mm512_storeu_ps(ybuf[bi * 4 + 1], y1);
                _mm512_storeu_ps(ybuf[bi * 4 + 2], y2); _mm512_storeu_ps(ybuf[bi * 4 + 3], y3);
                _mm512_storeu_ps(ybuf[bi * 4 + 0] + 16, z0); _mm512_storeu_ps(ybuf[bi * 4 + 1] + 16, z1);
                _mm512_storeu_ps(ybuf[bi * 4 + 2] + 16, z2); _mm512_storeu_ps(ybuf[bi * 4 + 3] + 16, z3);
            }
            for (t = 0; t < (two ? 32 : 16); t++)
                for (i = 0; i < (int)SRT__TILE; i++) {
                    uint64_t r = tile * SRT__TILE + (uint64_t)i;
                    if (r < w->rows) mm->y[(uint64_t)(t0 + t) * mm->ldy + r] = ybuf[i][t] + (mm->bias ? mm->bias[r] : 0.0f);
                }
            t0 += two ? 32 : 16;
        }
    }
    if (mo) SRT_FREE(mo);
    if (own) SRT_FREE(own);
    if (dT) SRT_FREE(dT);
    if (n16 < mm->n_tok) srt__mm_tail(mm, n16, tile0, tile1, srt__s4x1_gemm_avx512);
}

/* AVX2 (+ AVX-VNNI) sb-q8 / sb-q4, and every level on CPUs without VBMI2: table-driven expansion.
   SRT__T1(m) is the pshufb control that expands the next popcount(m) packed bytes to the set bits
   of the 8-bit mask m (0x80 = zero elsewhere). The control of 16 bytes (masks m0, m1) is one sum of
   two 16-byte entries, srt__sb_lo[m0] = {T1(m0), popcount(m0) in each byte} and srt__sb_hi[m1] =
   {0, T1(m1)}: the second 8 bytes come out shifted by the first's popcount (0x80 + n keeps bit 7,
   so zeros stay zeros). Two loads and an add, where building it in general registers took eight
   instructions. sb-q4 expands the same way from its nibbles unpacked to bytes.
   The dense AVX2 math follows on the two 32-byte halves (rows 0-7, 8-15): sb-q8 with |w| and
   sign(q, w) (or u = w ^ 0x80 with VNNI), sb-q4 with u = e ^ 0x08 = value + 8, minus 8 sum(q). */
#define SRT__AVX2P __attribute__((target("avx2,fma,f16c,popcnt")))
#define SRT__PC8(m) (((m) & 1) + ((m) >> 1 & 1) + ((m) >> 2 & 1) + ((m) >> 3 & 1) + ((m) >> 4 & 1) + ((m) >> 5 & 1) + ((m) >> 6 & 1) + ((m) >> 7 & 1))
#define SRT__TE(m, i) (((m) >> (i) & 1 ? (uint64_t)SRT__PC8((m) & ((1u << (i)) - 1)) : 0x80ull) << (8 * (i)))
#define SRT__T1(m) (SRT__TE(m, 0) | SRT__TE(m, 1) | SRT__TE(m, 2) | SRT__TE(m, 3) | SRT__TE(m, 4) | SRT__TE(m, 5) | SRT__TE(m, 6) | SRT__TE(m, 7))
#define SRT__X4(F, m) F(m), F((m) + 1), F((m) + 2), F((m) + 3)
#define SRT__X16(F, m) SRT__X4(F, m), SRT__X4(F, (m) + 4), SRT__X4(F, (m) + 8), SRT__X4(F, (m) + 12)
#define SRT__X256(F) SRT__X16(F, 0u), SRT__X16(F, 16u), SRT__X16(F, 32u), SRT__X16(F, 48u), SRT__X16(F, 64u), SRT__X16(F, 80u), \
    SRT__X16(F, 96u), SRT__X16(F, 112u), SRT__X16(F, 128u), SRT__X16(F, 144u), SRT__X16(F, 160u), SRT__X16(F, 176u), \
    SRT__X16(F, 192u), SRT__X16(F, 208u), SRT__X16(F, 224u), SRT__X16(F, 240u)
#define SRT__B8(n) ((uint64_t)(n) * 0x0101010101010101ull)
#define SRT__LO(m) SRT__T1(m), SRT__B8(SRT__PC8(m))
#define SRT__HI(m) 0, SRT__T1(m)
__attribute__((aligned(64))) static const uint64_t srt__sb_lo[512] = {SRT__X256(SRT__LO)};
__attribute__((aligned(64))) static const uint64_t srt__sb_hi[512] = {SRT__X256(SRT__HI)};
static SRT__AVX2P inline __attribute__((always_inline)) __m128i srt__sb_ctrl(const uint8_t *m) {
    return _mm_add_epi8(_mm_load_si128((const __m128i *)(srt__sb_lo + 2 * (size_t)m[0])), _mm_load_si128((const __m128i *)(srt__sb_hi + 2 * (size_t)m[1])));
}
/* The dense 64-byte chunk with bitmap bm from its packed bytes at src (one byte per stored weight;
   for sb-q4, the nibbles unpacked by srt__sbq4_unpack). Each 16 bytes start at the popcount of the
   bitmap before them: four independent popcounts, no chain through the loads. */
static SRT__AVX2P inline __attribute__((always_inline)) void srt__sb_expand_chunk(const uint8_t *src, const uint8_t *bm, __m256i *lo, __m256i *hi) {
    uint64_t m = srt__rd64(bm);
    uint64_t u1 = (uint64_t)_mm_popcnt_u64(m & 0xffffu), u2 = (uint64_t)_mm_popcnt_u64(m & 0xffffffffu);
    uint64_t u3 = (uint64_t)_mm_popcnt_u64(m & 0xffffffffffffull);
    __m128i e0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)src), srt__sb_ctrl(bm));
    __m128i e1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + u1)), srt__sb_ctrl(bm + 2));
    __m128i e2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + u2)), srt__sb_ctrl(bm + 4));
    __m128i e3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + u3)), srt__sb_ctrl(bm + 6));
    *lo = _mm256_set_m128i(e1, e0);
    *hi = _mm256_set_m128i(e3, e2);
}
/* sb-q4: the packed nibbles of n chunks (from *pp, advanced) spread to one byte each, chunk i at
   nib + 64 i, so that the byte expansion above serves sb-q4 too. The kernels unpack a batch of
   chunks before expanding any of them: a 16-byte load that straddles two 32-byte stores still in
   the store buffer cannot be forwarded, and expanding each chunk right after unpacking it took 1.5x
   as long as selecting nibbles in the expansion (a blend per 16 bytes), which this replaces. */
static SRT__AVX2P inline __attribute__((always_inline)) void srt__sbq4_unpack(const uint8_t **pp, const uint8_t *bm, uint64_t n, uint8_t *nib) {
    const __m256i lo4 = _mm256_set1_epi8(0x0f);
    const uint8_t *p = *pp;
    uint64_t i;
    for (i = 0; i < n; i++) {
        /* qwords 0 2 | 1 3: the in-lane unpacks then give nibbles 0-31 and 32-63 in order */
        __m256i x = _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)p), 0xd8);
        __m256i l = _mm256_and_si256(x, lo4), h = _mm256_and_si256(_mm256_srli_epi16(x, 4), lo4);
        _mm256_storeu_si256((__m256i *)(nib + 64 * i), _mm256_unpacklo_epi8(l, h));
        _mm256_storeu_si256((__m256i *)(nib + 64 * i + 32), _mm256_unpackhi_epi8(l, h));
        _mm_prefetch((const char *)p + SRT__PREFETCH, _MM_HINT_T0);
        p += ((uint64_t)_mm_popcnt_u64(srt__rd64(bm + 8 * i)) + 1) / 2;
    }
    *pp = p;
}
/* NT tokens share each expanded chunk (GEMV: one token at a time; GEMM: blocks of 4, then a block of
   the 3 or 2 left, tile by tile; a single token left goes through the GEMV) */
#define SRT__SB256_BLOCK(NT) { \
        enum { NT_ = NT }; \
        const uint8_t *p = (const uint8_t *)w->part[0] + srt__rd64(offs + tile * 8); \
        const int8_t *q0 = a->q + (uint64_t)t0 * kp; \
        __m256 y0[NT], y1[NT]; \
        SRT__UNROLL for (j = 0; j < NT_; j++) y0[j] = y1[j] = _mm256_setzero_ps(); \
        for (g = 0; g < tl.ng; g++) { \
            __m256i a0[NT], a1[NT]; \
            uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks; \
            SRT__UNROLL for (j = 0; j < NT_; j++) a0[j] = a1[j] = _mm256_setzero_si256(); \
            for (c = g * cpg; c < c1; ) { \
                const uint64_t cb = c, ce = (Q4_) && c1 - c > SRT__SBQ4_BATCH ? c + SRT__SBQ4_BATCH : c1; \
                if (Q4_) srt__sbq4_unpack(&p, bm + cb * 8, ce - cb, nib);   /* the batch's nibbles, then its chunks */ \
                for (; c < ce; c++) { \
                    __m256i e0, e1, u0, u1; \
                    if (Q4_) srt__sb_expand_chunk(nib + 64 * (c - cb), bm + c * 8, &e0, &e1); \
                    else { \
                        _mm_prefetch((const char *)p + SRT__PREFETCH, _MM_HINT_T0); \
                        srt__sb_expand_chunk(p, bm + c * 8, &e0, &e1); \
                        p += (uint64_t)_mm_popcnt_u64(srt__rd64(bm + c * 8)); \
                    } \
                    u0 = (VNNI_ || Q4_) ? _mm256_xor_si256(e0, flip) : _mm256_abs_epi8(e0); \
                    u1 = (VNNI_ || Q4_) ? _mm256_xor_si256(e1, flip) : _mm256_abs_epi8(e1); \
                    SRT__UNROLL for (j = 0; j < NT_; j++) { \
                        const __m256i qb = _mm256_set1_epi32(srt__ld32(q0 + (uint64_t)j * kp + 4 * c)); \
                        if (VNNI_) { \
                            a0[j] = srt__dpbusd256(a0[j], u0, qb); \
                            a1[j] = srt__dpbusd256(a1[j], u1, qb); \
                        } else if (Q4_) { \
                            a0[j] = _mm256_add_epi32(a0[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u0, qb), ones16)); \
                            a1[j] = _mm256_add_epi32(a1[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u1, qb), ones16)); \
                        } else { \
                            a0[j] = _mm256_add_epi32(a0[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u0, _mm256_sign_epi8(qb, e0)), ones16)); \
                            a1[j] = _mm256_add_epi32(a1[j], _mm256_madd_epi16(_mm256_maddubs_epi16(u1, _mm256_sign_epi8(qb, e1)), ones16)); \
                        } \
                    } \
                } \
            } \
            SRT__UNROLL for (j = 0; j < NT_; j++) { \
                uint64_t gi = (uint64_t)(t0 + j) * a->ng + g; \
                y0[j] = srt__epilogue256(a0[j], 1, off, a->s[gi], sc + g * SRT__TILE, a->d[gi], y0[j]); \
                y1[j] = srt__epilogue256(a1[j], 1, off, a->s[gi], sc + g * SRT__TILE + 8, a->d[gi], y1[j]); \
            } \
        } \
        SRT__UNROLL for (j = 0; j < NT_; j++) { \
            srt__store256(mm, t0 + j, tile * SRT__TILE, y0[j]); \
            srt__store256(mm, t0 + j, tile * SRT__TILE + 8, y1[j]); \
        } }
#define SRT__SB256(NAME, ATTR, Q4, VNNI, GEMM, REST) \
static ATTR void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    enum { Q4_ = Q4, VNNI_ = VNNI }; \
    const srt__weights *w = mm->w; \
    const srt__acts *a = mm->a; \
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group); \
    const int off = (Q4) ? 8 : (VNNI) ? 128 : 0; \
    const __m256i flip = _mm256_set1_epi8((char)((Q4) ? 0x08 : 0x80)), ones16 = _mm256_set1_epi16(1); \
    const unsigned char *offs = (const unsigned char *)w->part[3]; \
    const uint64_t kp = a->kp; \
    uint64_t cpg = w->group / 4, tile, g, c; \
    int t0, j, n4 = (GEMM) ? mm->n_tok & ~3 : 0, rest = (GEMM) ? mm->n_tok - n4 : 0; \
    __attribute__((aligned(64))) uint8_t nib[(Q4) ? 64 * SRT__SBQ4_BATCH : 1]; \
    (void)flip; (void)ones16; (void)nib; \
    for (tile = tile0; tile < tile1; tile++) { \
        const unsigned char *bm = (const unsigned char *)w->part[2] + tile * tl.chunks * 8; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        if (!(GEMM)) for (t0 = 0; t0 < mm->n_tok; t0++) SRT__SB256_BLOCK(1) \
        else { \
            for (t0 = 0; t0 < n4; t0 += 4) SRT__SB256_BLOCK(4) \
            if (rest == 3) SRT__SB256_BLOCK(3) \
            else if (rest == 2) SRT__SB256_BLOCK(2) \
        } \
    } \
    if (rest == 1) srt__mm_tail(mm, n4, tile0, tile1, REST); \
}
SRT__SB256(srt__sbq8_avx2, SRT__AVX2P, 0, 0, 0, srt__sb_none)
SRT__SB256(srt__sbq4_avx2, SRT__AVX2P, 1, 0, 0, srt__sb_none)
SRT__SB256(srt__sbq8_avxvnni, SRT__AVXVNNIP, 0, 1, 0, srt__sb_none)
SRT__SB256(srt__sbq4_avxvnni, SRT__AVXVNNIP, 1, 1, 0, srt__sb_none)
SRT__SB256(srt__sbq8_gemm_avx2, SRT__AVX2P, 0, 0, 1, srt__sbq8_avx2)
SRT__SB256(srt__sbq4_gemm_avx2, SRT__AVX2P, 1, 0, 1, srt__sbq4_avx2)
SRT__SB256(srt__sbq8_gemm_avxvnni, SRT__AVXVNNIP, 0, 1, 1, srt__sbq8_avxvnni)
SRT__SB256(srt__sbq4_gemm_avxvnni, SRT__AVXVNNIP, 1, 1, 1, srt__sbq4_avxvnni)

/* AVX2 sb-bf16: 8 bf16 at a time expanded by a pshufb control per 8-bit mask (two bytes per
   element), widened to f32; lanes 0-7 and 8-15 of the dense float reference are two accumulators;
   the tail (K mod 16 columns) and the reduction are done on the stored lanes as the reference does. */
#define SRT__TW(m, i) (((m) >> (i) & 1 ? (uint64_t)(2 * SRT__PC8((m) & ((1u << (i)) - 1)) | (2 * SRT__PC8((m) & ((1u << (i)) - 1)) + 1) << 8) : 0x8080ull) << (16 * ((i) & 3)))
#define SRT__TW1(m) (SRT__TW(m, 0) | SRT__TW(m, 1) | SRT__TW(m, 2) | SRT__TW(m, 3)), (SRT__TW(m, 4) | SRT__TW(m, 5) | SRT__TW(m, 6) | SRT__TW(m, 7))
#define SRT__TW4(m) SRT__TW1(m), SRT__TW1((m) + 1), SRT__TW1((m) + 2), SRT__TW1((m) + 3)
#define SRT__TW16(m) SRT__TW4(m), SRT__TW4((m) + 4), SRT__TW4((m) + 8), SRT__TW4((m) + 12)
#define SRT__TW64(m) SRT__TW16(m), SRT__TW16((m) + 16), SRT__TW16((m) + 32), SRT__TW16((m) + 48)
static const uint64_t srt__sb_tbl16[512] = {SRT__TW64(0u), SRT__TW64(64u), SRT__TW64(128u), SRT__TW64(192u)};
static SRT__AVX2P __m256 srt__sbf_expand8(const uint16_t **pp, uint32_t m8) {
    __m128i ctrl = _mm_loadu_si128((const __m128i *)(srt__sb_tbl16 + 2 * m8));
    __m128i v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)*pp), ctrl);
    *pp += _mm_popcnt_u32(m8);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(v), 16));
}
/* Sparse KV rows (srt__kv_compact_row) in attention: 8 F16 at a time expanded by the sb-bf16
   table, widened with vcvtph2ps, then the dense kernels' math (equal to the reference bit for
   bit); tails through the reference's expansion. Loads read up to 14 bytes past a row's values
   (the cache has 64 bytes of padding). */
static SRT__AVX2P __m256 srt__kv_expand8(const uint16_t **pp, uint32_t m8) {
    __m128i ctrl = _mm_loadu_si128((const __m128i *)(srt__sb_tbl16 + 2 * m8));
    __m128i v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)*pp), ctrl);
    *pp += _mm_popcnt_u32(m8);
    return _mm256_cvtph_ps(v);
}
static SRT__AVX2P void srt__attn_scores_sb_avx2(const unsigned char *rows, uint64_t slot, const float *qs, int G, uint64_t hd, int n, float scale, float *outs, uint64_t ldo) {
    uint64_t kt = hd & ~(uint64_t)15, k;
    uint16_t e[SRT__KV_MAX_HD];
    int i, g;
    for (g = 0; g < G; g++)
    for (i = 0; i < n; i++) {
        const float *q = qs + g * hd;
        float *out = outs + g * ldo;
        const unsigned char *row = rows + (uint64_t)i * slot;
        const uint16_t *v = (const uint16_t *)(const void *)(row + srt__kv_bm_bytes(hd));
        __m256 lo = _mm256_setzero_ps(), hi = lo;
        for (k = 0; k < kt; k += 16) {
            lo = _mm256_fmadd_ps(srt__kv_expand8(&v, row[k >> 3]), _mm256_loadu_ps(q + k), lo);
            hi = _mm256_fmadd_ps(srt__kv_expand8(&v, row[(k >> 3) + 1]), _mm256_loadu_ps(q + k + 8), hi);
        }
        if (kt < hd) srt__kv_expand(row, hd, e);
        out[i] = srt__finish256(lo, hi, NULL, e, SRT_F16, q, kt, hd) * scale;
    }
}
static SRT__AVX2P void srt__attn_values_sb_avx2(const unsigned char *rows, uint64_t slot, const float *ws, uint64_t ldw, int G, int n, uint64_t hd, float *outs) {
    uint64_t bmb = srt__kv_bm_bytes(hd), d0, d, j;
    uint16_t e[SRT__KV_MAX_HD];
    int i, g;
    for (g = 0; g < G; g++) {
    const float *w = ws + g * ldw;
    float *out = outs + g * hd;
    for (d0 = 0; d0 + 32 <= hd; d0 += 32) {   /* 32 outputs in registers across all rows */
        __m256 a0 = _mm256_loadu_ps(out + d0), a1 = _mm256_loadu_ps(out + d0 + 8), a2 = _mm256_loadu_ps(out + d0 + 16), a3 = _mm256_loadu_ps(out + d0 + 24);
        for (i = 0; i < n; i++) {
            const unsigned char *row = rows + (uint64_t)i * slot, *bm = row + d0 / 8;
            const uint16_t *v = (const uint16_t *)(const void *)(row + bmb);
            __m256 wv = _mm256_set1_ps(w[i]);
            for (j = 0; j < d0 / 8; j += 4) v += _mm_popcnt_u32(srt__rd32(row + j));   /* the values before d0 */
            a0 = _mm256_fmadd_ps(wv, srt__kv_expand8(&v, bm[0]), a0); a1 = _mm256_fmadd_ps(wv, srt__kv_expand8(&v, bm[1]), a1);
            a2 = _mm256_fmadd_ps(wv, srt__kv_expand8(&v, bm[2]), a2); a3 = _mm256_fmadd_ps(wv, srt__kv_expand8(&v, bm[3]), a3);
        }
        _mm256_storeu_ps(out + d0, a0); _mm256_storeu_ps(out + d0 + 8, a1); _mm256_storeu_ps(out + d0 + 16, a2); _mm256_storeu_ps(out + d0 + 24, a3);
    }
    if (d0 < hd)
        for (i = 0; i < n; i++) {
            srt__kv_expand(rows + (uint64_t)i * slot, hd, e);
            for (d = d0; d < hd; d++) out[d] = srt__fmaf(w[i], srt_f16_to_f32(e[d]), out[d]);
        }
    }
}

/* AVX-512 attention over F16 rows (dense, or compact rows expanded with vpexpandw), and the values
   of Q8 rows (their scores: srt__attn_scores_q8_avx512): up to four query heads per pass, so that
   each K / V row is loaded and widened once for all of them. Scores:
   lane j of a head's accumulator is the reference's partial sum j (element k to lane k mod 16;
   the last vector masked), reduced as it is. Values: out[g][d] = fma(w_g[i], row_i[d], .) row
   after row, 64 outputs x HG heads in registers per pass over the rows. HG (heads) and SB (compact
   rows) are constants at each call, so every variant compiles to its own straight loop. */
/* Values 32k2.. of a row as two 16-lane vectors (m0, m1: their lanes below hd). A compact row's
   32 bitmap bits (those past hd cleared: the bitmap may end after 16 of them) expand its next
   values with one vpexpandw. */
static SRT__AVX512SP inline __attribute__((always_inline)) void srt__kv_row32(const unsigned char *row, const uint16_t **v, int SB, uint64_t hd, uint64_t k2,
                                                                             __mmask16 m0, __mmask16 m1, __m512 *lo, __m512 *hi) {
    if (SB == 2) {   /* Q8: codes times the block's scale */
        uint16_t h;
        __m512 sc;
        memcpy(&h, row + hd + 2 * k2, 2);
        sc = _mm512_set1_ps(_cvtsh_ss(h));
        *lo = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m0, row + 32 * k2))), sc);
        *hi = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m1, row + 32 * k2 + 16))), sc);
    } else if (SB) {
        uint32_t bits = (uint32_t)m0 | (uint32_t)m1 << 16;
        __m512i e;
        if (bits) bits &= srt__rd32(row + 4 * k2);
        e = _mm512_maskz_expandloadu_epi16(bits, *v);
        *v += _mm_popcnt_u32(bits);
        *lo = _mm512_cvtph_ps(_mm512_castsi512_si256(e));
        *hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(e, 1));
    } else {
        const uint16_t *r = (const uint16_t *)(const void *)row + 32 * k2;
        *lo = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m0, r));
        *hi = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m1, r + 16));
    }
}
/* lanes of the 16-value vector at d that lie below hd */
#define SRT__KV_MASK(d, hd) (__mmask16)((d) + 16 <= (hd) ? 0xffffu : (d) < (hd) ? (1u << ((hd) - (d))) - 1 : 0u)
static SRT__AVX512SP inline __attribute__((always_inline)) void srt__attn_scores512_heads(const unsigned char *rows, uint64_t step, int SB, const float *q,
                                                                                         int HG, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    uint64_t n32 = (hd + 31) / 32, k2, bmb = srt__kv_bm_bytes(hd);
    const float *q1 = q + (HG > 1 ? hd : 0), *q2 = q + (HG > 2 ? 2 * hd : 0), *q3 = q + (HG > 3 ? 3 * hd : 0);
    int i;
    for (i = 0; i < n; i++) {
        const unsigned char *row = rows + (uint64_t)i * step;
        const uint16_t *v = (const uint16_t *)(const void *)(row + bmb);
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        uint64_t line;
        for (line = 0; line < step; line += 64)   /* the stream, 16 rows ahead: every line of the row
                                                     (two lines only left head size 128 at memory latency) */
            _mm_prefetch((const char *)row + 16 * step + line, _MM_HINT_T0);
        for (k2 = 0; k2 < n32; k2++) {
            const __mmask16 m0 = SRT__KV_MASK(32 * k2, hd), m1 = SRT__KV_MASK(32 * k2 + 16, hd);
            const uint64_t d = 32 * k2;
            __m512 lo, hi;
            srt__kv_row32(row, &v, SB, hd, k2, m0, m1, &lo, &hi);
#define SRT__AS_HEAD(A, Q) \
            A = _mm512_mask3_fmadd_ps(lo, _mm512_maskz_loadu_ps(m0, (Q) + d), A, m0); \
            A = _mm512_mask3_fmadd_ps(hi, _mm512_maskz_loadu_ps(m1, (Q) + d + 16), A, m1);
            SRT__AS_HEAD(a0, q)
            if (HG > 1) { SRT__AS_HEAD(a1, q1) }
            if (HG > 2) { SRT__AS_HEAD(a2, q2) }
            if (HG > 3) { SRT__AS_HEAD(a3, q3) }
#undef SRT__AS_HEAD
        }
        out[i] = srt__hsum512(a0) * scale;
        if (HG > 1) out[ldo + i] = srt__hsum512(a1) * scale;
        if (HG > 2) out[2 * ldo + i] = srt__hsum512(a2) * scale;
        if (HG > 3) out[3 * ldo + i] = srt__hsum512(a3) * scale;
    }
}
#define SRT__AV_HEAD(A0, A1, A2, A3, W) { \
        __m512 wv_ = _mm512_set1_ps((W)[i]); \
        A0 = _mm512_fmadd_ps(wv_, k0, A0); A1 = _mm512_fmadd_ps(wv_, k1, A1); \
        A2 = _mm512_fmadd_ps(wv_, k2, A2); A3 = _mm512_fmadd_ps(wv_, k3, A3); }
#define SRT__AV_LOAD(A0, A1, A2, A3, O) \
        A0 = _mm512_maskz_loadu_ps(m0, (O) + d0); A1 = _mm512_maskz_loadu_ps(m1, (O) + d0 + 16); \
        A2 = _mm512_maskz_loadu_ps(m2, (O) + d0 + 32); A3 = _mm512_maskz_loadu_ps(m3, (O) + d0 + 48);
#define SRT__AV_STORE(A0, A1, A2, A3, O) \
        _mm512_mask_storeu_ps((O) + d0, m0, A0); _mm512_mask_storeu_ps((O) + d0 + 16, m1, A1); \
        _mm512_mask_storeu_ps((O) + d0 + 32, m2, A2); _mm512_mask_storeu_ps((O) + d0 + 48, m3, A3);
static SRT__AVX512SP inline __attribute__((always_inline)) void srt__attn_values512_heads(const unsigned char *rows, uint64_t step, int SB, const float *w, uint64_t ldw,
                                                                                         int HG, int n, uint64_t hd, float *out) {
    const float *w1 = w + (HG > 1 ? ldw : 0), *w2 = w + (HG > 2 ? 2 * ldw : 0), *w3 = w + (HG > 3 ? 3 * ldw : 0);
    float *o1 = out + (HG > 1 ? hd : 0), *o2 = out + (HG > 2 ? 2 * hd : 0), *o3 = out + (HG > 3 ? 3 * hd : 0);
    uint64_t d0, bmb = srt__kv_bm_bytes(hd), j;
    int i;
    for (d0 = 0; d0 < hd; d0 += 64) {
        const __mmask16 m0 = SRT__KV_MASK(d0, hd), m1 = SRT__KV_MASK(d0 + 16, hd), m2 = SRT__KV_MASK(d0 + 32, hd), m3 = SRT__KV_MASK(d0 + 48, hd);
        __m512 a00, a01, a02, a03, a10 = _mm512_setzero_ps(), a11 = a10, a12 = a10, a13 = a10;
        __m512 a20 = a10, a21 = a10, a22 = a10, a23 = a10, a30 = a10, a31 = a10, a32 = a10, a33 = a10;
        SRT__AV_LOAD(a00, a01, a02, a03, out)
        if (HG > 1) { SRT__AV_LOAD(a10, a11, a12, a13, o1) }
        if (HG > 2) { SRT__AV_LOAD(a20, a21, a22, a23, o2) }
        if (HG > 3) { SRT__AV_LOAD(a30, a31, a32, a33, o3) }
        for (i = 0; i < n; i++) {
            const unsigned char *row = rows + (uint64_t)i * step;
            const uint16_t *v = (const uint16_t *)(const void *)(row + bmb);
            __m512 k0, k1, k2, k3;
            _mm_prefetch((const char *)row + d0 * (SB == 2 ? 1 : 2) + 16 * step, _MM_HINT_T0);
            _mm_prefetch((const char *)row + d0 * (SB == 2 ? 1 : 2) + 16 * step + 64, _MM_HINT_T0);
            if (SB == 1) for (j = 0; j < d0 / 8; j += 4) v += _mm_popcnt_u32(srt__rd32(row + j));   /* the values before d0 */
            srt__kv_row32(row, &v, SB, hd, d0 / 32, m0, m1, &k0, &k1);
            srt__kv_row32(row, &v, SB, hd, d0 / 32 + 1, m2, m3, &k2, &k3);
            SRT__AV_HEAD(a00, a01, a02, a03, w)
            if (HG > 1) SRT__AV_HEAD(a10, a11, a12, a13, w1)
            if (HG > 2) SRT__AV_HEAD(a20, a21, a22, a23, w2)
            if (HG > 3) SRT__AV_HEAD(a30, a31, a32, a33, w3)
        }
        SRT__AV_STORE(a00, a01, a02, a03, out)
        if (HG > 1) { SRT__AV_STORE(a10, a11, a12, a13, o1) }
        if (HG > 2) { SRT__AV_STORE(a20, a21, a22, a23, o2) }
        if (HG > 3) { SRT__AV_STORE(a30, a31, a32, a33, o3) }
    }
}
#undef SRT__AV_HEAD
#undef SRT__KV_MASK
#undef SRT__AV_LOAD
#undef SRT__AV_STORE
/* the heads in passes of 4, then the 1-3 left in one pass (each pass reads the rows once) */
#define SRT__ATTN512_GROUPS(CALL) \
    int g = 0; \
    for (; g + 4 <= G; g += 4) CALL(4); \
    if (G - g == 3) CALL(3); \
    else if (G - g == 2) CALL(2); \
    else if (G - g == 1) CALL(1);
static SRT__AVX512SP void srt__attn_scores_avx512(const void *rows, int type, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    if (type == SRT__KV_E_F32) { srt__attn_scores_avx2(rows, type, stride, q, G, hd, n, scale, out, ldo); return; }
    if (type == SRT__KV_E_Q8) { srt__attn_scores_q8_avx512((const unsigned char *)rows, stride, q, G, hd, n, scale, out, ldo); return; }
#define SRT__CALL(HG) srt__attn_scores512_heads((const unsigned char *)rows, 2 * stride, 0, q + g * hd, HG, hd, n, scale, out + g * ldo, ldo)
    {
        SRT__ATTN512_GROUPS(SRT__CALL)
    }
#undef SRT__CALL
}
static SRT__AVX512SP void srt__attn_scores_sb_avx512(const unsigned char *rows, uint64_t slot, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
#define SRT__CALL(HG) srt__attn_scores512_heads(rows, slot, 1, q + g * hd, HG, hd, n, scale, out + g * ldo, ldo)
    SRT__ATTN512_GROUPS(SRT__CALL)
#undef SRT__CALL
}
static SRT__AVX512SP void srt__attn_values_avx512(const void *rows, int type, uint64_t stride, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out) {
    if (type == SRT__KV_E_F32) { srt__attn_values_avx2(rows, type, stride, w, ldw, G, n, hd, out); return; }
    if (type == SRT__KV_E_Q8) {
#define SRT__CALL(HG) srt__attn_values512_heads((const unsigned char *)rows, stride, 2, w + g * ldw, ldw, HG, n, hd, out + g * hd)
        SRT__ATTN512_GROUPS(SRT__CALL)
#undef SRT__CALL
    } else {
#define SRT__CALL(HG) srt__attn_values512_heads((const unsigned char *)rows, 2 * stride, 0, w + g * ldw, ldw, HG, n, hd, out + g * hd)
        SRT__ATTN512_GROUPS(SRT__CALL)
#undef SRT__CALL
    }
}
static SRT__AVX512SP void srt__attn_values_sb_avx512(const unsigned char *rows, uint64_t slot, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out) {
#define SRT__CALL(HG) srt__attn_values512_heads(rows, slot, 1, w + g * ldw, ldw, HG, n, hd, out + g * hd)
    SRT__ATTN512_GROUPS(SRT__CALL)
#undef SRT__CALL
}
#undef SRT__ATTN512_GROUPS

/* AVX-VNNI, and AVX-512 without VBMI2: the AVX2 attention with the level's integer Q8 scores */
static void srt__attn_scores_avxvnni(const void *rows, int type, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    if (type == SRT__KV_E_Q8) srt__attn_scores_q8_avxvnni((const unsigned char *)rows, stride, q, G, hd, n, scale, out, ldo);
    else srt__attn_scores_avx2(rows, type, stride, q, G, hd, n, scale, out, ldo);
}
static void srt__attn_scores_avx512vnni(const void *rows, int type, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    if (type == SRT__KV_E_Q8) srt__attn_scores_q8_avx512((const unsigned char *)rows, stride, q, G, hd, n, scale, out, ldo);
    else srt__attn_scores_avx2(rows, type, stride, q, G, hd, n, scale, out, ldo);
}

static void srt__x86_vec_ops(srt_isa isa, srt__vec_ops *ops) {
    if (isa < SRT_ISA_AVX2) return;
    ops->attn_scores = srt__attn_scores_avx2; ops->attn_values = srt__attn_values_avx2;
    ops->attn_scores_sb = srt__attn_scores_sb_avx2; ops->attn_values_sb = srt__attn_values_sb_avx2;
    if (isa >= SRT_ISA_AVX512) ops->attn_scores = srt__attn_scores_avx512vnni;
    else if (isa == SRT_ISA_AVXVNNI && (srt__x86_levels() >> SRT_ISA_AVXVNNI & 1)) ops->attn_scores = srt__attn_scores_avxvnni;
    if (isa >= SRT_ISA_AVX512 && srt__x86_vbmi2()) {
        ops->attn_scores = srt__attn_scores_avx512; ops->attn_values = srt__attn_values_avx512;
        ops->attn_scores_sb = srt__attn_scores_sb_avx512; ops->attn_values_sb = srt__attn_values_sb_avx512;
    }
    ops->argmax = srt__argmax_avx2;
    ops->dot_f32 = srt__dot_f32_avx2; ops->dot_f16 = srt__dot_f16_avx2;
    ops->axpy_f32 = srt__axpy_f32_avx2; ops->axpy_f16 = srt__axpy_f16_avx2;
    ops->exp = srt__exp_avx2; ops->softmax = srt__softmax_avx2; ops->swiglu = srt__swiglu_avx2; ops->geglu = srt__geglu_avx2;
}

/* AVX2 sb-bf16: a whole group's rows in one pass, as the AVX-512 kernel (one stream of values: a
   row's values of a block follow the previous row's); a group of fewer rows (the last) through
   the reference's walk. 16 accumulators leave no register for the rest, so the compiler keeps a
   few in memory: still faster than two passes over the values (those measured 25-90% slower). */
static SRT__AVX2P void srt__sb_bf16_avx2(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    uint64_t K = w->cols, nb = (K + 31) / 32, nfull = K / 32, b;
    uint64_t r = tile0 * SRT__TILE, r1 = tile1 * SRT__TILE < w->rows ? tile1 * SRT__TILE : w->rows;
    const unsigned char *bmp = (const unsigned char *)w->part[1], *offs = (const unsigned char *)w->part[2];
    const uint16_t *vals = (const uint16_t *)w->part[0];
    float xt[32];   /* the last block of x, 0-padded */
    int t, j, h;
#define SRT__SBA_ROW(A0, A1, A2, A3, I) { \
        uint32_t m = srt__rd32(bm + 4 * (4 * b + I)); \
        A0 = _mm256_fmadd_ps(srt__sbf_expand8(&p, m & 0xffu), _mm256_loadu_ps(xb), A0); \
        A1 = _mm256_fmadd_ps(srt__sbf_expand8(&p, m >> 8 & 0xffu), _mm256_loadu_ps(xb + 8), A1); \
        A2 = _mm256_fmadd_ps(srt__sbf_expand8(&p, m >> 16 & 0xffu), _mm256_loadu_ps(xb + 16), A2); \
        A3 = _mm256_fmadd_ps(srt__sbf_expand8(&p, m >> 24), _mm256_loadu_ps(xb + 24), A3); }
#define SRT__SBA_END(A0, A1, A2, A3, I) { \
        float s[32]; \
        _mm256_storeu_ps(s, A0); _mm256_storeu_ps(s + 8, A1); _mm256_storeu_ps(s + 16, A2); _mm256_storeu_ps(s + 24, A3); \
        for (j = 0; j < 16; j++) s[j] = s[2 * j] + s[2 * j + 1]; \
        for (h = 8; h; h >>= 1) for (j = 0; j < h; j++) s[j] += s[j + h]; \
        mm->y[(uint64_t)t * mm->ldy + r + I] = s[0] + (mm->bias ? mm->bias[r + I] : 0.0f); }
    for (; r + SRT__SBG <= r1; r += SRT__SBG)
        for (t = 0; t < mm->n_tok; t++) {
            const float *x = mm->a->x + (uint64_t)t * K;
            const uint16_t *p = vals + srt__rd64(offs + r / SRT__SBG * 8);
            const unsigned char *bm = bmp + r * nb * 4;
            /* aC lane l (bC, cC, dC: rows 1-3): the reference's sum 8C + l (named, not arrays: see the AVX-512 kernel) */
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
            __m256 c0 = a0, c1 = a0, c2 = a0, c3 = a0, d0 = a0, d1 = a0, d2 = a0, d3 = a0;
            for (j = 0; j < 32; j++) xt[j] = 32 * nfull + (uint64_t)j < K ? x[32 * nfull + j] : 0.0f;
            for (b = 0; b < nb; b++) {
                const float *xb = b == nfull ? xt : x + 32 * b;
                _mm_prefetch((const char *)p + SRT__PREFETCH, _MM_HINT_T0);
                _mm_prefetch((const char *)p + SRT__PREFETCH + 64, _MM_HINT_T0);
                SRT__SBA_ROW(a0, a1, a2, a3, 0) SRT__SBA_ROW(b0, b1, b2, b3, 1)
                SRT__SBA_ROW(c0, c1, c2, c3, 2) SRT__SBA_ROW(d0, d1, d2, d3, 3)
            }
            SRT__SBA_END(a0, a1, a2, a3, 0) SRT__SBA_END(b0, b1, b2, b3, 1)
            SRT__SBA_END(c0, c1, c2, c3, 2) SRT__SBA_END(d0, d1, d2, d3, 3)
        }
    if (r < r1) srt__sb_bf16_rows(mm, r, r1);
#undef SRT__SBA_ROW
#undef SRT__SBA_END
}

/* AVX2 / AVX-VNNI s4x1 GEMV: as the AVX-512 one, a step takes 4 micro-tiles of a block (lanes =
   micro-tile x row, two 256-bit halves), and a second step runs for all four blocks when one has
   more than 4 in the segment; the four blocks of a tile run side by side on one load of the
   segment's activations. A step's 16 column indices c gather their activations with two pshufb on
   the segment's 16-byte halves lo and lh = lo ^ hi: lo[c & 15] ^ lh[c - 16], the second 0 for
   c < 16 (bit 7 of its control set), so hi[c - 16] for c >= 16. The bytes past the block's count are
   zeroed (16 bytes of srt__s4_keep at 128 - 4 n or 144 - 4 n: no clamp, no branch) and vpermd
   repeats each micro-tile's 4 for its 4 rows. The product is |w| x sign(q, w) (vpdpbusd with AVX-VNNI, vpmaddubsw + vpmaddwd with
   AVX2; no saturation: |w|, |q| <= 127), so a zero activation zeroes whatever weight bytes follow
   the count and no 128 sum(w) term is needed. Each block's place in the values stays in a
   register, the next tile's weights and indices are prefetched, and the segments of the last tile
   whose steps could read past the matrix's last micro-tile take each block's micro-tiles from
   zero-padded copies (the tile ran the reference: a 512x2048 GEMV was 1.1-1.3x slower, the 16-token
   GEMM 1.5-2x). The scalar gather
   with a loop per block and segment that this replaced was 2-2.9x slower (its loop exits were
   mispredicted on the counts). Tokens after the first find the tile in cache. */
#define SRT__S4A_VNNI(B, av, wv) acc##B = srt__dpbusd256(acc##B, _mm256_abs_epi8(wv), _mm256_sign_epi8(av, wv));
#define SRT__S4A_AVX2(B, av, wv) acc##B = _mm256_add_epi32(acc##B, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(wv), _mm256_sign_epi8(av, wv)), ones));
#define SRT__S4A_STEP(B, H, MAC, IP, VP) { \
    const __m128i c = _mm_and_si128(_mm_loadu_si128((const __m128i *)((IP) + 16 * (H))), m31); \
    const __m128i gv = _mm_and_si128(_mm_xor_si128(_mm_shuffle_epi8(lo, c), _mm_shuffle_epi8(lh, _mm_sub_epi8(c, c16))), \
                                     _mm_loadu_si128((const __m128i *)(srt__s4_keep + 128 + 16 * (H) - 4 * n##B))); \
    MAC(B, _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(gv), pat01), _mm256_loadu_si256((const __m256i *)((VP) + 64 * (H)))) \
    MAC(B, _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(gv), pat23), _mm256_loadu_si256((const __m256i *)((VP) + 64 * (H) + 32))) }
#define SRT__S4A_FAST(B, H, MAC) SRT__S4A_STEP(B, H, MAC, idx + 4 * p##B, vals + 16 * p##B)
#define SRT__S4A_COPY(B, MAC) { \
    uint8_t ib[32] = {0}; \
    int8_t vb[128] = {0}; \
    memcpy(ib, idx + 4 * p##B, 4 * n##B); \
    memcpy(vb, vals + 16 * p##B, 16 * n##B); \
    SRT__S4A_STEP(B, 0, MAC, ib, vb) SRT__S4A_STEP(B, 1, MAC, ib, vb) }
/* a segment of the four blocks: STEPS(MAC) on its counts n0-n3 and activations lo, lh */
#define SRT__S4A_SEG(STEPS, MAC) { \
    const unsigned n0 = counts[s], n1 = counts[nseg + s], n2 = counts[2 * nseg + s], n3 = counts[3 * nseg + s]; \
    const __m128i lo = _mm_loadu_si128((const __m128i *)(q + s * SRT__SEG)); \
    const __m128i lh = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(q + s * SRT__SEG + 16)), lo); \
    STEPS(MAC) \
    SRT__S4A_NEXT(0) SRT__S4A_NEXT(1) SRT__S4A_NEXT(2) SRT__S4A_NEXT(3) }
#define SRT__S4A_FASTSTEPS(MAC) \
    SRT__S4A_FAST(0, 0, MAC) SRT__S4A_FAST(1, 0, MAC) SRT__S4A_FAST(2, 0, MAC) SRT__S4A_FAST(3, 0, MAC) \
    if (((n0 + 3) | (n1 + 3) | (n2 + 3) | (n3 + 3)) & 8) {   /* a count > 4 (counts <= 8) */ \
        SRT__S4A_FAST(0, 1, MAC) SRT__S4A_FAST(1, 1, MAC) SRT__S4A_FAST(2, 1, MAC) SRT__S4A_FAST(3, 1, MAC) \
    }
#define SRT__S4A_COPYSTEPS(MAC) SRT__S4A_COPY(0, MAC) SRT__S4A_COPY(1, MAC) SRT__S4A_COPY(2, MAC) SRT__S4A_COPY(3, MAC)
#define SRT__S4A_NEXT(B) { \
    _mm_prefetch((const char *)(vals + 16 * (p##B + ahead)), _MM_HINT_T0); \
    _mm_prefetch((const char *)(idx + 4 * (p##B + ahead)), _MM_HINT_T0); \
    p##B += n##B; }
#define SRT__S4A_END(B) { \
    const __m128i r4 = _mm_add_epi32(_mm256_castsi256_si128(acc##B), _mm256_extracti128_si256(acc##B, 1)); \
    const __m128 f = _mm_mul_ps(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(sc + g * SRT__TILE + 4 * (B)))), f4); \
    yb##B = _mm_fmadd_ps(_mm_cvtepi32_ps(r4), f, yb##B); }
#define SRT__S4X1_256(NAME, ATTR, MAC) \
static ATTR void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    SRT__S4_PARTS \
    const uint64_t total = srt__rd64(offs + tl.tiles * 8); \
    const __m256i pat01 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), pat23 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3); \
    const __m256i ones = _mm256_set1_epi16(1); \
    const __m128i m31 = _mm_set1_epi8(31), c16 = _mm_set1_epi8(16); \
    uint64_t tile, s, g; \
    int t; \
    (void)ones;   /* AVX2's vpmaddwd only */ \
    for (tile = tile0; tile < tile1; tile++) { \
        const unsigned char *counts = offs + (tl.tiles + 1) * 8 + tile * 4 * nseg; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        uint64_t start0 = srt__rd64(offs + tile * 8), start1 = start0, start2, start3, safe = nseg; \
        const uint64_t ahead = srt__rd64(offs + (tile + 1) * 8) - start0;   /* the same place in the next tile */ \
        for (s = 0; s < nseg; s++) start1 += counts[s]; \
        for (s = 0, start2 = start1; s < nseg; s++) start2 += counts[nseg + s]; \
        for (s = 0, start3 = start2; s < nseg; s++) start3 += counts[2 * nseg + s]; \
        if (start0 + ahead + 8 > total) {   /* safe: as in the AVX-512 GEMV */ \
            uint64_t left = total - (start0 + ahead); \
            while (safe > 0 && left + counts[3 * nseg + safe - 1] < 8) left += counts[3 * nseg + --safe]; \
        } \
        for (t = 0; t < mm->n_tok; t++) {   /* later tokens find the tile's weights in cache */ \
            const int8_t *q = a->q + (uint64_t)t * a->kp; \
            const float *dx = a->d + (uint64_t)t * a->ng; \
            uint64_t p0 = start0, p1 = start1, p2 = start2, p3 = start3; \
            __m128 yb0 = _mm_setzero_ps(), yb1 = yb0, yb2 = yb0, yb3 = yb0; \
            float yt[SRT__TILE]; \
            for (g = 0, s = 0; g < tl.ng; g++) { \
                const uint64_t s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg; \
                const __m128 f4 = _mm_set1_ps(dx[g]); \
                __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0; \
                const uint64_t e = s1 < safe ? s1 : safe; \
                for (; s < e; s++) SRT__S4A_SEG(SRT__S4A_FASTSTEPS, MAC) \
                for (; s < s1; s++) SRT__S4A_SEG(SRT__S4A_COPYSTEPS, MAC) \
                SRT__S4A_END(0) SRT__S4A_END(1) SRT__S4A_END(2) SRT__S4A_END(3) \
            } \
            _mm_storeu_ps(yt, yb0); _mm_storeu_ps(yt + 4, yb1); _mm_storeu_ps(yt + 8, yb2); _mm_storeu_ps(yt + 12, yb3); \
            srt__store256(mm, t, tile * SRT__TILE, _mm256_loadu_ps(yt)); \
            srt__store256(mm, t, tile * SRT__TILE + 8, _mm256_loadu_ps(yt + 8)); \
        } \
    } \
}
SRT__S4X1_256(srt__s4x1_avx2, SRT__AVX2P, SRT__S4A_AVX2)
SRT__S4X1_256(srt__s4x1_avxvnni, SRT__AVXVNNIP, SRT__S4A_VNNI)
#undef SRT__S4A_VNNI
#undef SRT__S4A_AVX2
#undef SRT__S4A_STEP
#undef SRT__S4A_FAST
#undef SRT__S4A_COPY
#undef SRT__S4A_SEG
#undef SRT__S4A_FASTSTEPS
#undef SRT__S4A_COPYSTEPS
#undef SRT__S4A_NEXT
#undef SRT__S4A_END

/* AVX2 / AVX-VNNI s4x1 GEMM for 16+ tokens: lanes = tokens, as the AVX-512 one, on the same 16-token
   panels (16 bytes per column, one per token; q + 128 for AVX-VNNI's vpdpbusd, q itself for AVX2's
   sign trick). A micro-tile's 4 columns are 4 loads of 16 bytes, two 256-bit registers [c0 | c2] and
   [c1 | c3]; two vpunpck*bw, two vperm2i128 and two vpunpck*wd transpose them to the 4 bytes of each
   token, for tokens 0-3, 8-11 (A0) and 4-7, 12-15 (A1), and each row's 4 broadcast weight bytes
   multiply both (8 vpdpbusd, or |w| x sign(q, w) with vpmaddubsw + vpmaddwd, for 256 multiply-adds).
   As in the AVX-512 kernel a first pass per tile turns the column indices into byte offsets in a
   panel (eight micro-tiles a segment, no branch on the count) and finds where each block's
   micro-tiles of each group start, and AVX-VNNI subtracts 128 sum w per row and group, computed
   there too. Fewer than 16 tokens left: the GEMV. The output lanes' token order is undone when the
   tile is written. */
static const int srt__s4_lane_tok[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
/* The panels: qt[kp t0 + 16 c + t] = q[t0 + t][c] ^ flip for t0 < n16 (a multiple of 16). */
static void srt__s4x1_panels_256(const int8_t *q, uint64_t kp, int n16, uint8_t *qt, uint8_t flip) {
    uint64_t c;
    int t0, t;
    for (t0 = 0; t0 < n16; t0 += 16)
        for (t = 0; t < 16; t++) {
            const uint8_t *src = (const uint8_t *)q + (uint64_t)(t0 + t) * kp;
            uint8_t *dst = qt + (uint64_t)t0 * kp + (uint64_t)t;
            for (c = 0; c < kp; c++) dst[16 * c] = src[c] ^ flip;
        }
}
#define SRT__S4G_VNNI(ACC, A, W) ACC = srt__dpbusd256(ACC, A, W);
#define SRT__S4G_AVX2(ACC, A, W) ACC = _mm256_add_epi32(ACC, _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(W), _mm256_sign_epi8(A, W)), ones));
/* AVX-VNNI: the 8 micro-tiles' weights at wv, masked to the count n, summed per row into ws */
#define SRT__S4G_WS_VNNI \
    for (h = 0; h < 4; h++) \
        ws = srt__dpbusd256(ws, ones, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(wv + 32 * (uint64_t)h)), \
                                                                _mm256_loadu_si256((const __m256i *)(srt__s4_keep + 128 - 16 * n + 32 * (uint64_t)h))));
#define SRT__S4G_ROW(R, ACC0, ACC1) { \
    const __m256 f_ = _mm256_set1_ps(sf[g * SRT__TILE + bi * 4 + (R)]); \
    const __m256i ws_ = _mm256_set1_epi32(wsum[g * SRT__TILE + bi * 4 + (R)]); \
    _mm256_storeu_ps(ybuf[bi * 4 + (R)], _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(ACC0, ws_)), _mm256_mul_ps(f_, dx0), _mm256_loadu_ps(ybuf[bi * 4 + (R)]))); \
    _mm256_storeu_ps(ybuf[bi * 4 + (R)] + 8, _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(ACC1, ws_)), _mm256_mul_ps(f_, dx1), _mm256_loadu_ps(ybuf[bi * 4 + (R)] + 8))); }
#define SRT__S4X1_GEMM256(NAME, ATTR, MAC, WSUM, FLIP, GEMV) \
static ATTR void NAME(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { \
    SRT__S4_PARTS \
    const uint64_t total = srt__rd64(offs + tl.tiles * 8); \
    const __m256i ones = FLIP ? _mm256_set1_epi8(1) : _mm256_set1_epi16(1), m31 = _mm256_set1_epi32(31); \
    int32_t wsum[SRT__S4_MAXG * SRT__TILE]; \
    uint32_t gstart[4][SRT__S4_MAXG + 1];   /* block bi's micro-tiles of group g: [gstart[bi][g], gstart[bi][g + 1]) */ \
    float ybuf[SRT__TILE][16], sf[SRT__S4_MAXG * SRT__TILE]; \
    float *dT = NULL;      /* dT[g n16 + t0 + L]: activation scale of the token in lane L of panel t0, group g */ \
    uint32_t *mo = NULL;   /* 4 byte offsets (16 x column) per micro-tile of the tile, 8 spare */ \
    uint64_t mo_cap = 0, tile, bi, s, g, m; \
    int t0, n16 = mm->n_tok & ~15, t, i; \
    const uint8_t *qt = a->qt; \
    uint8_t *own = NULL;   /* panels made here when the caller prepared none */ \
    if (tl.ng > SRT__S4_MAXG || !n16 || tl.kp > (1u << 26)) n16 = 0; \
    else if (!qt) { \
        if (!(own = (uint8_t *)SRT_MALLOC((size_t)(tl.kp * (uint64_t)n16 + 64)))) n16 = 0; \
        else srt__s4x1_panels_256(a->q, a->kp, n16, own, FLIP ? 0x80 : 0); \
        qt = own; \
    } \
    if (n16 && !(dT = (float *)SRT_MALLOC(sizeof(float) * (size_t)(tl.ng * (uint64_t)n16 + 16)))) n16 = 0; \
    for (g = 0; n16 && g < tl.ng; g++) \
        for (t = 0; t < n16; t++) dT[g * (uint64_t)n16 + (uint64_t)t] = a->d[(uint64_t)((t & ~15) + srt__s4_lane_tok[t & 15]) * a->ng + g]; \
    for (i = 0; i < SRT__S4_MAXG * (int)SRT__TILE; i++) wsum[i] = 0; \
    for (tile = tile0; tile < tile1 && n16; tile++) { \
        const unsigned char *counts = offs + (tl.tiles + 1) * 8 + tile * 4 * nseg; \
        const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE; \
        const uint64_t pos0 = srt__rd64(offs + tile * 8), n_mt = srt__rd64(offs + (tile + 1) * 8) - pos0; \
        const int8_t *tv = vals + pos0 * 16; \
        uint64_t pos = 0; \
        if (n_mt + 8 > mo_cap) { \
            uint32_t *nm = (uint32_t *)SRT_REALLOC(mo, (size_t)((n_mt + 8) * 16)); \
            if (!nm) { n16 = 0; break; }   /* out of memory: the GEMV does the rest */ \
            mo = nm; mo_cap = n_mt + 8; \
        } \
        for (bi = 0; bi < 4; bi++) { \
            for (g = 0, s = 0; g < tl.ng; g++) { \
                const uint64_t s1 = (g + 1) * spg < nseg ? (g + 1) * spg : nseg; \
                __m256i ws = _mm256_setzero_si256(); \
                gstart[bi][g] = (uint32_t)pos; \
                for (; s < s1; s++) {   /* eight micro-tiles' offsets stored, the next segment's overwrite those past the count */ \
                    const uint64_t n = counts[bi * nseg + s]; \
                    const uint8_t *ix = idx + (pos0 + pos) * 4; \
                    const int8_t *wv = tv + pos * 16; \
                    const __m256i base = _mm256_set1_epi32((int)(s * SRT__SEG)); \
                    uint8_t ib[32]; \
                    int8_t vb[128]; \
                    int h; \
                    if (pos0 + pos + 8 > total) {   /* it reads 8 micro-tiles: the matrix's last ones from zero-padded copies */ \
                        memset(ib, 0, sizeof ib); memcpy(ib, ix, 4 * n); ix = ib; \
                        memset(vb, 0, sizeof vb); memcpy(vb, wv, 16 * n); wv = vb; \
                    } \
                    for (h = 0; h < 4; h++) \
                        _mm256_storeu_si256((__m256i *)(mo + pos * 4 + 8 * (uint64_t)h), \
                                            _mm256_slli_epi32(_mm256_add_epi32(_mm256_and_si256(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(ix + 8 * h))), m31), base), 4)); \
                    WSUM \
                    pos += n; \
                } \
                _mm_storeu_si128((__m128i *)(wsum + g * SRT__TILE + bi * 4), \
                                 _mm_slli_epi32(_mm_add_epi32(_mm256_castsi256_si128(ws), _mm256_extracti128_si256(ws, 1)), 7)); \
            } \
            gstart[bi][tl.ng] = (uint32_t)pos; \
        } \
        for (g = 0; g < tl.ng; g++) { \
            _mm256_storeu_ps(sf + g * SRT__TILE, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sc + g * SRT__TILE)))); \
            _mm256_storeu_ps(sf + g * SRT__TILE + 8, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sc + g * SRT__TILE + 8)))); \
        } \
        for (t0 = 0; t0 < n16; t0 += 16) { \
            const uint8_t *q0 = qt + (uint64_t)t0 * tl.kp; \
            for (i = 0; i < (int)SRT__TILE; i++) { _mm256_storeu_ps(ybuf[i], _mm256_setzero_ps()); _mm256_storeu_ps(ybuf[i] + 8, _mm256_setzero_ps()); } \
            for (bi = 0; bi < 4; bi++) \
                for (g = 0; g < tl.ng; g++) { \
                    const __m256 dx0 = _mm256_loadu_ps(dT + g * (uint64_t)n16 + (uint64_t)t0), dx1 = _mm256_loadu_ps(dT + g * (uint64_t)n16 + (uint64_t)t0 + 8); \
                    __m256i a00 = _mm256_setzero_si256(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00; \
                    for (m = gstart[bi][g]; m < gstart[bi][g + 1]; m++) { \
                        const uint32_t *o = mo + m * 4; \
                        const int8_t *wm = tv + m * 16; \
                        const __m256i x = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(q0 + o[0]))), \
                                                                  _mm_loadu_si128((const __m128i *)(q0 + o[2])), 1); \
                        const __m256i y = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(q0 + o[1]))), \
                                                                  _mm_loadu_si128((const __m128i *)(q0 + o[3])), 1); \
                        const __m256i p = _mm256_unpacklo_epi8(x, y), r = _mm256_unpackhi_epi8(x, y);   /* [c0 c1 of t0-7 | c2 c3 of t0-7], t8-15 */ \
                        const __m256i lo = _mm256_permute2x128_si256(p, r, 0x20), hi = _mm256_permute2x128_si256(p, r, 0x31); \
                        const __m256i a0 = _mm256_unpacklo_epi16(lo, hi), a1 = _mm256_unpackhi_epi16(lo, hi); \
                        const __m256i w0 = _mm256_set1_epi32(srt__ld32(wm)), w1 = _mm256_set1_epi32(srt__ld32(wm + 4)); \
                        const __m256i w2 = _mm256_set1_epi32(srt__ld32(wm + 8)), w3 = _mm256_set1_epi32(srt__ld32(wm + 12)); \
                        MAC(a00, a0, w0) MAC(a01, a1, w0) MAC(a10, a0, w1) MAC(a11, a1, w1) \
                        MAC(a20, a0, w2) MAC(a21, a1, w2) MAC(a30, a0, w3) MAC(a31, a1, w3) \
                    } \
                    SRT__S4G_ROW(0, a00, a01) SRT__S4G_ROW(1, a10, a11) SRT__S4G_ROW(2, a20, a21) SRT__S4G_ROW(3, a30, a31) \
                } \
            for (t = 0; t < 16; t++) \
                for (i = 0; i < (int)SRT__TILE; i++) { \
                    const uint64_t r = tile * SRT__TILE + (uint64_t)i; \
                    if (r < w->rows) mm->y[(uint64_t)(t0 + srt__s4_lane_tok[t]) * mm->ldy + r] = ybuf[i][t] + (mm->bias ? mm->bias[r] : 0.0f); \
                } \
        } \
    } \
    if (mo) SRT_FREE(mo); \
    if (own) SRT_FREE(own); \
    if (dT) SRT_FREE(dT); \
    if (n16 < mm->n_tok) srt__mm_tail(mm, n16, tile0, tile1, GEMV); \
}
SRT__S4X1_GEMM256(srt__s4x1_gemm16_avx2, SRT__AVX2P, SRT__S4G_AVX2, , 0, srt__s4x1_avx2)
SRT__S4X1_GEMM256(srt__s4x1_gemm16_avxvnni, SRT__AVXVNNIP, SRT__S4G_VNNI, SRT__S4G_WS_VNNI, 1, srt__s4x1_avxvnni)
#undef SRT__S4G_VNNI
#undef SRT__S4G_AVX2
#undef SRT__S4G_ROW
#undef SRT__S4G_WS_VNNI
#undef SRT__S4_PARTS

#if SRT__HAVE_AMX
/* AMX GEMM (8+ tokens) for sb-q8 / sb-q4: each chunk is expanded (vpexpandb) into the B tile
   buffer, which then is exactly the dense B tile: sb-q8 int8 values (tdpbssd, no offset), sb-q4
   u = value + 8 (tdpbsud, minus 8 sum(q)); the epilogue is the AVX-512 one. */
#define SRT__AMXSP __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi,avx512vbmi2,fma,f16c,popcnt,amx-tile,amx-int8")))
static SRT__AMXSP void srt__sb_amx(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    const srt__acts *a = mm->a;
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group);
    const int q4 = w->format == SRT_SB_Q4;
    const __m512i lo4 = _mm512_set1_epi16(0x0f0f), f8 = _mm512_set1_epi8(8);
    const unsigned char *offs = (const unsigned char *)w->part[3];
    int32_t cbuf[16 * 16];
    uint8_t bbuf[16 * 64];
    srt__tilecfg cfg;
    uint64_t kg = (w->group % 64 == 0 && tl.kp % 64 == 0) ? 64 : 32, k, k1, tile, g, c;
    int t0, nt, t;
    for (t0 = 0; t0 < mm->n_tok; t0 += 16) {
        nt = mm->n_tok - t0 < 16 ? mm->n_tok - t0 : 16;
        memset(&cfg, 0, sizeof cfg);
        cfg.palette = 1;
        cfg.rows[0] = (uint8_t)nt; cfg.colsb[0] = 64;
        cfg.rows[1] = (uint8_t)nt; cfg.colsb[1] = (uint16_t)kg;
        cfg.rows[2] = (uint8_t)(kg / 4); cfg.colsb[2] = 64;
        srt__tile_config(&cfg);
        for (tile = tile0; tile < tile1; tile++) {
            const uint8_t *p = (const uint8_t *)w->part[0] + srt__rd64(offs + tile * 8);
            const unsigned char *bm = (const unsigned char *)w->part[2] + tile * tl.chunks * 8;
            const uint16_t *sc = (const uint16_t *)w->part[1] + tile * tl.ng * SRT__TILE;
            __m512 y[16];
            for (t = 0; t < nt; t++) y[t] = _mm512_setzero_ps();
            for (g = 0; g < tl.ng; g++) {
                k1 = (g + 1) * w->group < tl.kp ? (g + 1) * w->group : tl.kp;
                _tile_zero(0);
                for (k = g * w->group; k < k1; k += kg) {
                    _tile_loadd(1, a->q + (uint64_t)t0 * a->kp + k, (long)a->kp);
                    for (c = k / 4; c < (k + kg) / 4; c++) {
                        uint64_t m = srt__rd64(bm + c * 8);
                        __m512i e;
                        if (q4) {
                            __m512i w16 = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
                            w16 = _mm512_ternarylogic_epi32(w16, _mm512_slli_epi16(w16, 4), lo4, 0xa8);
                            e = _mm512_xor_si512(_mm512_maskz_expand_epi8(m, w16), f8);
                            p += ((uint64_t)_mm_popcnt_u64(m) + 1) >> 1;
                        } else {
                            e = _mm512_maskz_expandloadu_epi8(m, (const void *)p);
                            p += (uint64_t)_mm_popcnt_u64(m);
                        }
                        _mm512_storeu_si512((void *)(bbuf + (c - k / 4) * 64), e);
                    }
                    _tile_loadd(2, bbuf, 64);
                    if (q4) _tile_dpbsud(0, 1, 2);
                    else _tile_dpbssd(0, 1, 2);
                }
                _tile_stored(0, cbuf, 64);
                for (t = 0; t < nt; t++) {
                    uint64_t gi = (uint64_t)(t0 + t) * a->ng + g;
                    y[t] = srt__epilogue512(_mm512_loadu_si512((const void *)(cbuf + 16 * t)), 1, q4 ? 8 : 0, a->s[gi], sc + g * SRT__TILE, a->d[gi], y[t]);
                }
            }
            for (t = 0; t < nt; t++) srt__store512(mm, t0 + t, tile, y[t]);
        }
        _tile_release();
    }
}

/* AMX GEMM (2+ tokens) for bf16 and sb-bf16: per tile of 16 rows and 32 columns,
   C[16 rows x tokens] += A[16 rows x 32] . B[32 x tokens] in f32 tiles (tdpbf16ps). A is the
   weights: a dense bf16 tile loads straight from the matrix (the stride is a row); an sb-bf16 one
   is expanded (vpexpandw) into a buffer first, as are the last partial 32 columns and a last tile
   of fewer than 16 rows (zero-padded). B is x in bf16, which holds only 8 bits of an f32's 24, so
   x goes in two parts, hi = bf16(x) and lo = bf16(x - hi) (both rounded to nearest even), and two
   tdpbf16ps accumulate A.hi and A.lo: x is carried to 2^-17 of itself, the products are exact in
   f32, and the result differs from the reference (f32 x, another order of the sums) by that and
   by f32 rounding only. The tests hold it to 2^-14 of sum |w x|. Up to 64 tokens share each A
   tile: C in tiles 0-3 (16 tokens each), A in 4, B in 5 (16 tokens) and 6 (the last chunk's). */
#define SRT__AMXBF __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi,avx512vbmi2,fma,f16c,popcnt,amx-tile,amx-bf16")))
#define SRT__XB_PASS 64   /* tokens per pass over the weights */
#define SRT__BF16_AMX_MIN 2   /* 1 token: the AVX-512 kernels (2+ measured faster on AMX) */
static SRT__AMXBF __m512i srt__bf16_rne512(__m512i u) {   /* f32 bits -> bf16 in the high halves, rounded to nearest even */
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1))));
    __mmask16 nan = _mm512_cmp_ps_mask(_mm512_castsi512_ps(u), _mm512_castsi512_ps(u), _CMP_UNORD_Q);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(u, _mm512_set1_epi32(0x400000)));   /* NaN stays (quiet) NaN */
    return _mm512_and_si512(r, _mm512_set1_epi32((int)0xffff0000u));
}
/* r[i] (16 dwords) becomes column i: a 16 x 16 transpose of 32-bit elements */
static SRT__AMXBF void srt__transpose16x16(__m512i r[16]) {
    __m512i t[16], u[16];
    int i, j;
    for (i = 0; i < 8; i++) { t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]); t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]); }
    for (i = 0; i < 4; i++) {   /* lane L of u[4i + j]: rows 4i..4i+3 of column 4L + j */
        u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]); u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]); u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (j = 0; j < 4; j++) {
        __m512i ab02 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x88), ab13 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xdd);
        __m512i cd02 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x88), cd13 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xdd);
        r[j] = _mm512_shuffle_i32x4(ab02, cd02, 0x88); r[8 + j] = _mm512_shuffle_i32x4(ab02, cd02, 0xdd);
        r[4 + j] = _mm512_shuffle_i32x4(ab13, cd13, 0x88); r[12 + j] = _mm512_shuffle_i32x4(ab13, cd13, 0xdd);
    }
}
/* a->xb: per 16 tokens (the last: what is left, nt), per 32 columns, the hi then the lo part as a
   B tile: 16 rows of nt bf16 pairs, row k2 = columns 2 k2 and 2 k2 + 1 of each token (0 past K).
   Each token's 32 columns become 16 pairs (a row per token), and a transpose makes them columns. */
static SRT__AMXBF void srt__bf16_split_tiles(const float *x, uint64_t K, int n_tok, uint16_t *xb) {
    const __m512i odd = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
                                         31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    uint64_t nks = (K + 31) / 32, s;
    int t0, t, k2, part;
    for (t0 = 0; t0 < n_tok; t0 += 16) {
        int nt = n_tok - t0 < 16 ? n_tok - t0 : 16;
        __mmask16 cols = (__mmask16)((1u << nt) - 1);
        uint16_t *chunk = xb + (uint64_t)t0 * nks * 64;
        for (s = 0; s < nks; s++) {
            uint64_t n = K - 32 * s < 32 ? K - 32 * s : 32;
            __mmask16 m0 = (__mmask16)(n >= 16 ? 0xffffu : (1u << n) - 1), m1 = (__mmask16)(n > 16 ? (1u << (n - 16)) - 1 : 0);
            __m512i r[2][16];
            for (t = 0; t < 16; t++) {
                const float *xt = x + (uint64_t)(t0 + (t < nt ? t : 0)) * K + 32 * s;
                __m512 x0 = _mm512_maskz_loadu_ps(t < nt ? m0 : 0, xt), x1 = _mm512_maskz_loadu_ps(t < nt ? m1 : 0, xt + 16);
                __m512i h0 = srt__bf16_rne512(_mm512_castps_si512(x0)), h1 = srt__bf16_rne512(_mm512_castps_si512(x1));
                __m512i l0 = srt__bf16_rne512(_mm512_castps_si512(_mm512_sub_ps(x0, _mm512_castsi512_ps(h0))));
                __m512i l1 = srt__bf16_rne512(_mm512_castps_si512(_mm512_sub_ps(x1, _mm512_castsi512_ps(h1))));
                r[0][t] = _mm512_permutex2var_epi16(h0, odd, h1);
                r[1][t] = _mm512_permutex2var_epi16(l0, odd, l1);
            }
            for (part = 0; part < 2; part++) {
                uint16_t *tl = chunk + (2 * s + (uint64_t)part) * 32 * (uint64_t)nt;
                srt__transpose16x16(r[part]);
                for (k2 = 0; k2 < 16; k2++) _mm512_mask_storeu_epi32(tl + k2 * 2 * nt, cols, r[part][k2]);
            }
        }
    }
}
static SRT__AMXBF void srt__bf16_amx_run(const srt__mm *mm, uint64_t tile0, uint64_t tile1, int sparse) {
    const srt__weights *w = mm->w;
    uint64_t K = w->cols, nks = (K + 31) / 32, full = K / 32, tile, s;
    const unsigned char *bmp = (const unsigned char *)w->part[1], *offs = (const unsigned char *)w->part[2];
    const uint16_t *vals = (const uint16_t *)w->part[0];
    uint16_t abuf[16 * 32];
    float cbuf[16 * 16] = {0};   /* C as stored: 16 rows x up to 16 tokens */
    srt__tilecfg cfg;
    int p0, np, nch, ntl, j, t, i;
    for (p0 = 0; p0 < mm->n_tok; p0 += SRT__XB_PASS) {
        np = mm->n_tok - p0 < SRT__XB_PASS ? mm->n_tok - p0 : SRT__XB_PASS;
        nch = (np + 15) / 16; ntl = np - 16 * (nch - 1);
        memset(&cfg, 0, sizeof cfg);
        cfg.palette = 1;
        for (j = 0; j < nch; j++) { cfg.rows[j] = 16; cfg.colsb[j] = (uint16_t)(4 * (j < nch - 1 ? 16 : ntl)); }   /* C: 16 rows x tokens */
        cfg.rows[4] = 16; cfg.colsb[4] = 64;                    /* A: 16 rows x 32 bf16 */
        cfg.rows[5] = 16; cfg.colsb[5] = 64;                    /* B of 16 tokens */
        cfg.rows[6] = 16; cfg.colsb[6] = (uint16_t)(4 * ntl);   /* B of the last chunk */
        srt__tile_config(&cfg);
        for (tile = tile0; tile < tile1; tile++) {
            uint64_t r0 = tile * SRT__TILE, nr = w->rows - r0 < SRT__TILE ? w->rows - r0 : SRT__TILE;
            const uint16_t *p[4] = {0, 0, 0, 0}, *xp = mm->a->xb + (uint64_t)p0 * nks * 64;   /* this pass's x tiles */
            const unsigned char *bm[4] = {0, 0, 0, 0};
            uint64_t gr[4] = {0, 0, 0, 0}, g;
            int direct = !sparse && nr == SRT__TILE;
            __mmask16 rows = (__mmask16)(nr == 16 ? 0xffffu : (1u << nr) - 1);
            __m512 bias = mm->bias ? _mm512_maskz_loadu_ps(rows, mm->bias + r0) : _mm512_setzero_ps();
            if (sparse)
                for (g = 0; g * SRT__SBG < nr; g++) {
                    uint64_t g0 = r0 + g * SRT__SBG;
                    gr[g] = srt__sbg_rows(w->rows, g0);
                    p[g] = vals + srt__rd64(offs + g0 / SRT__SBG * 8);
                    bm[g] = bmp + g0 * nks * 4;
                }
            if (!direct) memset(abuf, 0, sizeof abuf);   /* rows past nr stay 0 */
            _tile_zero(0);   /* only configured tiles may be touched */
            if (nch > 1) _tile_zero(1);
            if (nch > 2) _tile_zero(2);
            if (nch > 3) _tile_zero(3);
            for (s = 0; s < nks; s++) {
                if (sparse) {
                    for (g = 0; g < 4 && gr[g]; g++)
                        for (i = 0; i < (int)gr[g]; i++) {
                            uint32_t m = srt__rd32(bm[g] + 4 * (s * gr[g] + (uint64_t)i));
                            _mm512_storeu_si512((void *)(abuf + (g * SRT__SBG + (uint64_t)i) * 32),
                                                _mm512_maskz_expand_epi16(_cvtu32_mask32(m), _mm512_loadu_si512((const void *)p[g])));
                            p[g] += _mm_popcnt_u32(m);
                        }
                    _tile_loadd(4, abuf, 64);
                } else if (direct && s < full) {
                    _tile_loadd(4, vals + r0 * K + 32 * s, (long)(2 * K));
                } else {
                    uint64_t n = K - 32 * s < 32 ? K - 32 * s : 32;
                    __mmask32 m = (__mmask32)(n == 32 ? 0xffffffffu : (1u << n) - 1);
                    for (i = 0; i < (int)nr; i++)
                        _mm512_storeu_si512((void *)(abuf + i * 32), _mm512_maskz_loadu_epi16(m, vals + (r0 + (uint64_t)i) * K + 32 * s));
                    _tile_loadd(4, abuf, 64);
                }
                /* chunk J of 16 tokens: its hi and lo B tiles (the last chunk's are ntl wide) */
#define SRT__XB_CHUNK(J) if (J < nch) { \
                    const uint16_t *b_ = xp + (uint64_t)J * 16 * nks * 64; \
                    if (J == nch - 1) { \
                        b_ += s * 64 * (uint64_t)ntl; \
                        _tile_loadd(6, b_, 4 * ntl); _tile_dpbf16ps(J, 4, 6); \
                        _tile_loadd(6, b_ + 32 * ntl, 4 * ntl); _tile_dpbf16ps(J, 4, 6); \
                    } else { \
                        b_ += s * 64 * 16; \
                        _tile_loadd(5, b_, 64); _tile_dpbf16ps(J, 4, 5); \
                        _tile_loadd(5, b_ + 32 * 16, 64); _tile_dpbf16ps(J, 4, 5); \
                    } }
                SRT__XB_CHUNK(0) SRT__XB_CHUNK(1) SRT__XB_CHUNK(2) SRT__XB_CHUNK(3)
#undef SRT__XB_CHUNK
            }
            /* C (rows x tokens) -> y (tokens x rows) */
#define SRT__XB_STORE(J) if (J < nch) { \
                int nt_ = J < nch - 1 ? 16 : ntl; \
                __m512i c_[16]; \
                _tile_stored(J, cbuf, 64); \
                for (i = 0; i < 16; i++) c_[i] = _mm512_loadu_si512((const void *)(cbuf + 16 * i)); \
                srt__transpose16x16(c_); \
                for (t = 0; t < nt_; t++) \
                    _mm512_mask_storeu_ps(mm->y + (uint64_t)(p0 + 16 * J + t) * mm->ldy + r0, rows, _mm512_add_ps(_mm512_castsi512_ps(c_[t]), bias)); }
            SRT__XB_STORE(0) SRT__XB_STORE(1) SRT__XB_STORE(2) SRT__XB_STORE(3)
#undef SRT__XB_STORE
        }
        _tile_release();
    }
}
static void srt__bf16_amx(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { srt__bf16_amx_run(mm, tile0, tile1, 0); }
static void srt__sb_bf16_amx(const srt__mm *mm, uint64_t tile0, uint64_t tile1) { srt__bf16_amx_run(mm, tile0, tile1, 1); }
#endif

/* The sparse kernel for a format at an ISA level; NULL = the portable reference. */
static srt__kernel_fn srt__x86_sparse_kernel(srt_isa isa, srt_format f, int n_tok) {
    if (isa < SRT_ISA_AVX512 || !srt__x86_vbmi2()) {   /* AVX2 / AVX-VNNI, and AVX-512 without VBMI2 */
        int vnni = isa >= SRT_ISA_AVXVNNI && (srt__x86_levels() >> SRT_ISA_AVXVNNI & 1);
        if (isa < SRT_ISA_AVX2) return NULL;
        if (f == SRT_SB_Q8) return n_tok >= 2 ? (vnni ? srt__sbq8_gemm_avxvnni : srt__sbq8_gemm_avx2) : vnni ? srt__sbq8_avxvnni : srt__sbq8_avx2;
        if (f == SRT_SB_Q4) return n_tok >= 2 ? (vnni ? srt__sbq4_gemm_avxvnni : srt__sbq4_gemm_avx2) : vnni ? srt__sbq4_avxvnni : srt__sbq4_avx2;
        if (f == SRT_SB_BF16) return srt__sb_bf16_avx2;
        if (f == SRT_S4X1) return n_tok >= 16 ? (vnni ? srt__s4x1_gemm16_avxvnni : srt__s4x1_gemm16_avx2) : vnni ? srt__s4x1_avxvnni : srt__s4x1_avx2;
        return NULL;
    }
#if SRT__HAVE_AMX
    if (isa >= SRT_ISA_AMX && n_tok >= 8 && (f == SRT_SB_Q8 || f == SRT_SB_Q4)) return srt__sb_amx;
    if (isa >= SRT_ISA_AMX && n_tok >= SRT__BF16_AMX_MIN && f == SRT_SB_BF16) return srt__sb_bf16_amx;
#endif
    switch (f) {
        case SRT_SB_BF16: return srt__sb_bf16_avx512;
        case SRT_SB_Q8: return n_tok >= 2 ? srt__sbq8_gemm_avx512 : srt__sbq8_gemv_avx512;
        case SRT_SB_Q4: return n_tok >= 2 ? srt__sbq4_gemm_avx512 : srt__sbq4_gemv_avx512;
        case SRT_S4X1: return n_tok >= 16 ? srt__s4x1_gemm16_avx512 : n_tok >= SRT__S4X1_GEMM4_MIN ? srt__s4x1_gemm_avx512 : srt__s4x1_gemv_avx512;
        default: return NULL;
    }
}

/* ---------------------------------------------------------------- dispatch */
static srt__kernel_fn srt__x86_kernel(srt_isa isa, srt_format f, int n_tok) {
    int i = f == SRT_Q8 ? 0 : f == SRT_Q4 ? 1 : (f == SRT_Q2 || f == SRT_TQ) ? 2 : f == SRT_Q1 ? 3 : f == SRT_FP4 ? 4 : -1;
    static const srt__kernel_fn gemv512[5] = {srt__q8_gemv_avx512, srt__q4_gemv_avx512, srt__q2_gemv_avx512, srt__q1_gemv_avx512, srt__fp4_gemv_avx512};
    static const srt__kernel_fn gemm512[5] = {srt__q8_gemm_avx512, srt__q4_gemm_avx512, srt__q2_gemm_avx512, srt__q1_gemm_avx512, srt__fp4_gemm_avx512};
    static const srt__kernel_fn vnni[5] = {srt__q8_avxvnni, srt__q4_avxvnni, srt__q2_avxvnni, srt__q1_avxvnni, srt__fp4_avxvnni};
    static const srt__kernel_fn gemm_vnni[5] = {srt__q8_gemm_avxvnni, srt__q4_gemm_avxvnni, srt__q2_gemm_avxvnni, srt__q1_gemm_avxvnni, srt__fp4_gemm_avxvnni};
    static const srt__kernel_fn avx2[5] = {srt__q8_avx2, srt__q4_avx2, srt__q2_avx2, srt__q1_avx2, srt__fp4_avx2};
    static const srt__kernel_fn gemm_avx2[5] = {srt__q8_gemm_avx2, srt__q4_gemm_avx2, srt__q2_gemm_avx2, srt__q1_gemm_avx2, srt__fp4_gemm_avx2};
    if (srt_format_is_sparse(f)) return srt__x86_sparse_kernel(isa, f, n_tok);
#if SRT__HAVE_AMX
    static const srt__kernel_fn amx[5] = {srt__q8_amx, srt__q4_amx, srt__q2_amx, srt__q1_amx, srt__fp4_amx};
    if (isa >= SRT_ISA_AMX && i >= 0 && n_tok >= 8) return amx[i];
    if (isa >= SRT_ISA_AMX && f == SRT_BF16 && n_tok >= SRT__BF16_AMX_MIN) return srt__bf16_amx;
#endif
    /* The fewest tokens for which the GEMM beats the GEMV (q8, q4, q2 / tq, q1). The GEMV takes a tile's
       tokens in turn, reading it from L1 after the first, so the GEMM wins only where sharing each
       unpacked chunk saves more than its longer loop costs: on a Sapphire Rapids-class Xeon (2 threads,
       8192 x 2048, 2026-11-28), GEMM / GEMV time at 2 / 4 / 8 / 16 tokens was, AVX-512: q8 0.92 /
       0.88 / 0.80 / 0.76, q4 1.03 / 0.96 / 0.74 / 0.72 (0.78 at 2 on Zen 4), q2 1.36 / 1.03 / 0.85 /
       0.77, q1 1.43 / 1.72 / 1.25 / 0.77; AVX-VNNI: q8 1.10 / 0.99 / 0.87 / 0.82, q4 1.22 / 1.06 / 0.80
       / 0.75, q2 1.53 / 1.74 / 1.30 / 0.84 (0.95 at 12), q1 2.16 / 1.64 / 1.15 / 0.72; AVX2 (no VNNI,
       2-token blocks), at 2 / 4 / 8 / 16 / 32: q8 1.29 / 1.10 / 0.99 / 0.91 / 0.84, q4 1.35 / 1.17 /
       1.01 / 0.92 / 0.89, q2 2.17 / 1.94 / 1.23 / 1.05 / 1.02, q1 2.20 / 1.66 / 1.24 / 1.19 / 1.10 (at
       32 tokens on one thread of Zen 4 the q2 / q1 GEMM measured 1.08x / 1.09x faster). */
    static const int gemm512_min[5] = {2, 2, 6, 16, 2}, gemm_vnni_min[5] = {4, 6, 12, 16, 6}, gemm_avx2_min[5] = {8, 8, 32, 32, 8};   /* (fp4: q4's) */
    if (isa >= SRT_ISA_AVX512) {
        if (i >= 0) return n_tok >= gemm512_min[i] ? gemm512[i] : gemv512[i];
        if (f == SRT_F32) return srt__f32_avx512;   /* 16-bit: two rows a pass for 1-3 tokens, four (x loads shared) for more */
        return f == SRT_F16 ? (n_tok >= 4 ? srt__f16_avx512 : srt__f16_gemv_avx512) : n_tok >= 4 ? srt__bf16_avx512 : srt__bf16_gemv_avx512;
    }
    if (isa >= SRT_ISA_AVX2) {
        if (i >= 0 && isa == SRT_ISA_AVXVNNI) return n_tok >= gemm_vnni_min[i] ? gemm_vnni[i] : vnni[i];
        if (i >= 0) return n_tok >= gemm_avx2_min[i] ? gemm_avx2[i] : avx2[i];
        return f == SRT_F32 ? srt__f32_avx2 : f == SRT_F16 ? srt__f16_avx2 : srt__bf16_avx2;
    }
    return NULL;
}

#ifdef SRT__X86_POP_DIAGNOSTICS
#  pragma GCC diagnostic pop
#  undef SRT__X86_POP_DIAGNOSTICS
#endif
#endif /* SPARSERT_X86_H */
