/* tests/cuda_emu/cuda_runtime.h - a CPU stand-in for the CUDA runtime, so that sparsert_cuda.h's
   kernels and host code run, and tests/test_cuda.cu's GPU checks execute, on a machine without a
   GPU (build/test-cuda-emu, built by ./build.sh with the C++ compiler; see README, CUDA backend).

   What it is: the few CUDA language features and runtime calls that sparsert_cuda.h uses, in
   plain C++17. build.sh rewrites each launch `k<<<grid, block, smem, stream>>>(args)` into
   `srt_emu::launch(k, grid, block, smem, stream)(args)` and compiles with -DSRT_CUDA_EMULATOR,
   -ffp-contract=off (no contraction, as nvcc -fmad=false) and this folder first on the include path.
   - A block runs as one fiber per CUDA thread on the calling OS thread, blocks one after the other.
     A fiber switches only at __syncthreads() (all live threads of the block) and at warp
     collectives (__shfl_*_sync, __syncwarp, ldmatrix, mma.sync: all 32 lanes of the warp), so __shared__
     variables can be plain statics. Each warp runs as far as it can (to __syncthreads) before the
     next one starts, first warp first in even blocks and last warp first in odd ones: a missing
     barrier between warps shows up as wrong results. A barrier nobody can pass (a deadlock) and
     a warp collective with exited lanes stop the program with a message, as do misaligned
     cp.async / ldmatrix addresses; an invalid launch configuration is cudaErrorInvalidConfiguration.
   - ldmatrix, mma.sync m16n8k16 (f16) and m16n8k32 (s8) follow the PTX fragment layouts (ISA
     manual, "Matrix fragments for mma.m16n8k16 / m16n8k32"); f16 products are summed in float in k
     order, not the tensor cores' way; s8 sums are exact, as on the GPU.
     A cp.async lands when its thread waits (wait_all, or wait_group for the groups it covers), the
     latest moment PTX allows; a thread that ends with copies it never waited for is an error.
   - Streams execute at once (in order). Capture records the work into a graph that
     cudaGraphLaunch replays; cudaStreamSynchronize during capture fails and invalidates it, as on
     a GPU. Device memory is host memory (256-byte aligned, filled with 0xff bytes so that nothing
     relies on fresh memory being zero), counted against SRT_CUDA_EMU_MEM_MB (default 4096).
   - The device says it has SRT_CUDA_EMU_SMS multiprocessors (default 132, an H100/H200) and a
     256 KiB L2 cache.
   What it is not: a model of timing, of the memory model (every access is coherent), of races,
   or of the tensor cores' rounding. It tests the index math, the control flow and the host code;
   the GPU checks still have to run on a GPU. */
#ifndef SRT_CUDA_EMU_RUNTIME_H
#define SRT_CUDA_EMU_RUNTIME_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>
#include <cmath>
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>
#include <sys/mman.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SRT_EMU_ASAN 1
#endif
#if !defined(__x86_64__)
#error "tests/cuda_emu: the fiber switch is written for x86-64 (build.sh builds the emulator only there)"
#endif

/* ---------------------------------------------------------------- the language */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static   /* one block at a time on one OS thread: a static is the block's */

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { uint4 r = {a, b, c, d}; return r; }

/* ---------------------------------------------------------------- half */
struct __half { unsigned short x; };
static inline __half __ushort_as_half(unsigned short v) { __half h; h.x = v; return h; }
static inline float __half2float(__half h) {
    const uint32_t sign = (uint32_t)(h.x & 0x8000u) << 16, e = (h.x >> 10) & 0x1fu, m = h.x & 0x3ffu;
    uint32_t bits;
    float f;
    if (e == 0x1f) bits = sign | 0x7f800000u | (m << 13);
    else if (e) bits = sign | ((e + 112u) << 23) | (m << 13);
    else {   /* zero or subnormal: m x 2^-24, exact in float */
        f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    memcpy(&f, &bits, 4);
    return f;
}
static inline __half __float2half_rn(float f) {   /* round to nearest even; NaN stays NaN */
    uint32_t x, sign, man;
    int exp;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u; exp = (int)((x >> 23) & 0xff); man = x & 0x7fffffu;
    if (exp == 0xff) return __ushort_as_half((unsigned short)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0)));
    exp = exp - 127 + 15;
    if (exp >= 0x1f) return __ushort_as_half((unsigned short)(sign | 0x7c00u));
    if (exp <= 0) {
        if (exp < -10) return __ushort_as_half((unsigned short)sign);
        const uint32_t m = man | 0x800000u, shift = (uint32_t)(14 - exp), rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        uint32_t r = m >> shift;
        if (rest > halfway || (rest == halfway && (r & 1))) r++;
        return __ushort_as_half((unsigned short)(sign | r));
    }
    uint32_t r = ((uint32_t)exp << 10) | (man >> 13);
    const uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (r & 1))) r++;
    return __ushort_as_half((unsigned short)(sign | r));
}

/* ---------------------------------------------------------------- scalar intrinsics */
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline int __dp4a(int a, int b, int c) {
    for (int i = 0; i < 4; i++) c += (int)(int8_t)(uint8_t)((unsigned)a >> (8 * i)) * (int)(int8_t)(uint8_t)((unsigned)b >> (8 * i));
    return c;
}
template <class T> static inline T __ldg(const T *p) { return *p; }
/* fibers never run at the same time: atomics are plain read-modify-writes */
static inline unsigned atomicMax(unsigned *p, unsigned v) { const unsigned o = *p; if (v > o) *p = v; return o; }
static inline int atomicAdd(int *p, int v) { const int o = *p; *p = o + v; return o; }

/* ---------------------------------------------------------------- fibers */
extern "C" void srt_emu_switch(void **save_sp, void *to_sp);
/* the callee-saved registers (MXCSR and the x87 control word are left alone: nothing here changes
   rounding modes); the stack pointer into *save_sp */
__asm__(".text\n"
        ".globl srt_emu_switch\n"
        ".type srt_emu_switch,@function\n"
        "srt_emu_switch:\n"
        "    pushq %rbp\n    pushq %rbx\n    pushq %r12\n    pushq %r13\n    pushq %r14\n    pushq %r15\n"
        "    movq %rsp, (%rdi)\n    movq %rsi, %rsp\n"
        "    popq %r15\n    popq %r14\n    popq %r13\n    popq %r12\n    popq %rbx\n    popq %rbp\n"
        "    ret\n"
        ".size srt_emu_switch, .-srt_emu_switch\n");

namespace srt_emu {
enum { RUNNABLE, AT_BARRIER, AT_WARP, DONE };
struct fiber {
    void *sp;
    int state, lane, warp;
    unsigned coll;         /* warp collectives done: the parity picks the exchange slots */
    uint3 tid;
    char *stack;
    struct copy { void *to; const void *from; unsigned bytes, group; };
    std::vector<copy> copies;   /* cp.async not yet waited for; group = the commits before it */
    unsigned commits;           /* cp.async.commit_group count */
};
struct slot { unsigned char b[64]; };
static const size_t stack_bytes = (size_t)256 << 10;
struct machine {
    std::vector<fiber> f;
    char *stacks = nullptr;
    void *main_sp = nullptr;
    fiber *cur = nullptr;
    const std::function<void()> *body = nullptr;
    int n = 0, live = 0, at_barrier = 0;
    std::vector<int> warp_live, warp_at, warp_size;
    std::vector<slot> slots;  /* [warp][parity][lane] */
    uint3 block_idx = {0, 0, 0};
    dim3 grid_dim, block_dim;
#ifdef SRT_EMU_ASAN
    void *fake = nullptr;
    const void *main_bottom = nullptr;
    size_t main_size = 0;
#endif
};
static machine g_machine;   /* one translation unit includes this */
static inline machine &m() { return g_machine; }

[[noreturn]] static void die(const char *what) {
    const machine &M = m();
    fprintf(stderr, "cuda emulator: %s (block %u,%u,%u thread %u,%u,%u)\n", what, M.block_idx.x, M.block_idx.y, M.block_idx.z,
            M.cur ? M.cur->tid.x : 0u, M.cur ? M.cur->tid.y : 0u, M.cur ? M.cur->tid.z : 0u);
    abort();
}

/* fiber <-> scheduler */
static void to_fiber(fiber *f) {
    machine &M = m();
    M.cur = f;
#ifdef SRT_EMU_ASAN
    __sanitizer_start_switch_fiber(&M.fake, f->stack + 4096, stack_bytes - 4096);
#endif
    srt_emu_switch(&M.main_sp, f->sp);
#ifdef SRT_EMU_ASAN
    __sanitizer_finish_switch_fiber(M.fake, nullptr, nullptr);
#endif
    M.cur = nullptr;
}
static void to_scheduler(bool finished) {
    machine &M = m();
    fiber *f = M.cur;
#ifdef SRT_EMU_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(finished ? nullptr : &fake, M.main_bottom, M.main_size);
#endif
    srt_emu_switch(&f->sp, M.main_sp);
#ifdef SRT_EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, &M.main_bottom, &M.main_size);
#endif
    (void)finished;
}
/* releases the threads waiting at __syncthreads once every live thread is there */
static void release_barrier() {
    machine &M = m();
    if (M.at_barrier == 0 || M.at_barrier < M.live) return;
    for (int i = 0; i < M.n; i++) if (M.f[(size_t)i].state == AT_BARRIER) M.f[(size_t)i].state = RUNNABLE;
    M.at_barrier = 0;
}
static void fiber_main() {
    machine &M = m();
#ifdef SRT_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &M.main_bottom, &M.main_size);
#endif
    (*M.body)();
    fiber *f = M.cur;
    if (!f->copies.empty()) die("the thread ended with cp.async copies it never waited for");
    f->state = DONE;
    M.live--;
    M.warp_live[(size_t)f->warp]--;
    release_barrier();   /* an exited thread no longer holds up __syncthreads */
    to_scheduler(true);
    die("a finished fiber was resumed");
}
extern "C" void srt_emu_fiber_entry(void) { fiber_main(); }

/* Runs one block of `threads` threads, each executing *body. */
static void run_block(int threads) {
    machine &M = m();
    const int warps = (threads + 31) / 32;
    if (!M.stacks) {   /* for the largest block (1024 threads); pages are touched only when used */
        M.stacks = (char *)mmap(nullptr, 1024 * stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (M.stacks == (char *)MAP_FAILED) die("cannot map the fiber stacks");
        for (size_t i = 0; i < 1024; i++) mprotect(M.stacks + i * stack_bytes, 4096, PROT_NONE);   /* guard page */
        M.f.resize(1024);
    }
    M.n = threads; M.live = threads; M.at_barrier = 0;
    M.warp_live.assign((size_t)warps, 0); M.warp_at.assign((size_t)warps, 0); M.warp_size.assign((size_t)warps, 0);
    M.slots.resize((size_t)warps * 64);
    for (int i = 0; i < threads; i++) {
        fiber &f = M.f[(size_t)i];
        f.state = RUNNABLE; f.lane = i % 32; f.warp = i / 32; f.coll = 0; f.copies.clear(); f.commits = 0;
        f.tid.x = (unsigned)i % M.block_dim.x; f.tid.y = (unsigned)i / M.block_dim.x % M.block_dim.y; f.tid.z = (unsigned)i / (M.block_dim.x * M.block_dim.y);
        f.stack = M.stacks + (size_t)i * stack_bytes;
        M.warp_live[(size_t)f.warp]++; M.warp_size[(size_t)f.warp]++;
        /* the stack's top staggered by 17 cache lines a fiber (up to 64 KiB below the end): tops
           256 KiB apart all fell into the same L1 and L2 sets, and every switch missed */
        char *end = f.stack + stack_bytes - (size_t)i * 17 * 64 % (64 << 10);
#ifdef SRT_EMU_ASAN
        /* the last fiber on this stack never returned from its entry frames: their poison is stale */
        __asan_unpoison_memory_region(end - (16 << 10), 16 << 10);
#endif
        /* the frame srt_emu_switch pops: r15 r14 r13 r12 rbx rbp, then the entry as return address at a
           16-byte boundary (so the entry sees the stack as after a call) */
        uint64_t *top = (uint64_t *)(((uintptr_t)end & ~(uintptr_t)15) - 16);
        top[0] = (uint64_t)(uintptr_t)&srt_emu_fiber_entry;
        top[1] = 0;
        uint64_t *sp = top - 6;
        for (int r = 0; r < 6; r++) sp[r] = 0;
        f.sp = sp;
    }
    /* One warp at a time, as far as it goes (to __syncthreads or its end), before the next: warps
       racing ahead of each other is a schedule a GPU may run, and the one that exposes a missing
       barrier between them. Odd blocks take the warps in reverse, so both directions are tried. */
    const bool reverse = ((M.block_idx.z * M.grid_dim.y + M.block_idx.y) * M.grid_dim.x + M.block_idx.x) & 1;
    for (;;) {
        bool ran = false;
        for (int wi = 0; wi < warps; wi++) {
            const int w = reverse ? warps - 1 - wi : wi, l1 = std::min(threads, 32 * w + 32);
            for (bool again = true; again;) {
                again = false;
                for (int i = 32 * w; i < l1; i++)
                    if (M.f[(size_t)i].state == RUNNABLE) { again = ran = true; to_fiber(&M.f[(size_t)i]); }
            }
        }
        if (M.live == 0) break;
        if (!ran) die("deadlock: threads wait at __syncthreads and at a warp collective that cannot both complete");
    }
}

/* __syncthreads */
static void barrier() {
    machine &M = m();
    M.cur->state = AT_BARRIER;
    M.at_barrier++;
    release_barrier();
    if (M.cur->state == AT_BARRIER) to_scheduler(false);
}
/* A warp collective: every lane of the warp puts `bytes` of its own into its slot and gets the
   warp's 32 slots back once all lanes have. Two sets of slots, alternating: a lane cannot start
   the collective after next before every lane has finished reading this one. */
static const slot *exchange(const void *mine, size_t bytes) {
    machine &M = m();
    fiber *f = M.cur;
    const size_t w = (size_t)f->warp;
    if (M.warp_live[w] != M.warp_size[w]) die("warp collective with exited lanes");
    slot *s = &M.slots[w * 64 + (f->coll & 1) * 32];
    memcpy(s[f->lane].b, mine, bytes);
    f->coll++;
    if (++M.warp_at[w] == M.warp_size[w]) {
        M.warp_at[w] = 0;
        for (int i = (int)w * 32; i < M.n && i < (int)w * 32 + 32; i++) if (M.f[(size_t)i].state == AT_WARP) M.f[(size_t)i].state = RUNNABLE;
    } else {
        f->state = AT_WARP;
        to_scheduler(false);
    }
    return s;
}
} /* namespace srt_emu */

#define threadIdx (srt_emu::m().cur->tid)
#define blockIdx (srt_emu::m().block_idx)
#define blockDim (srt_emu::m().block_dim)
#define gridDim (srt_emu::m().grid_dim)
static inline void __syncthreads() { srt_emu::barrier(); }

/* a warp barrier: a collective that exchanges nothing */
static inline void __syncwarp(unsigned = 0xffffffffu) { const int none = 0; srt_emu::exchange(&none, sizeof none); }
/* shuffles of 4-byte values within segments of `width` lanes */
template <class T> static inline T srt_emu_shfl(T v, int src, int width) {
    const int lane = srt_emu::m().cur->lane, base = lane & ~(width - 1);
    const srt_emu::slot *s = srt_emu::exchange(&v, sizeof v);
    T r = v;
    if (src >= base && src < base + width && src < srt_emu::m().warp_size[(size_t)srt_emu::m().cur->warp]) memcpy(&r, s[src].b, sizeof r);
    return r;
}
template <class T> static inline T __shfl_sync(unsigned, T v, int src_lane, int width = 32) {
    return srt_emu_shfl(v, (srt_emu::m().cur->lane & ~(width - 1)) + (src_lane & (width - 1)), width);
}
template <class T> static inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
    return srt_emu_shfl(v, srt_emu::m().cur->lane + (int)delta, width);
}
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int lane_mask, int width = 32) {
    return srt_emu_shfl(v, srt_emu::m().cur->lane ^ lane_mask, width);
}

/* ---------------------------------------------------------------- the SpMM's PTX (see sparsert_cuda.h) */
/* cp.async: the copy lands when its thread waits (the latest moment the PTX allows), so shared
   memory read before the wait is stale */
static inline void srt_emu_cp_async(void *smem, const void *gmem, unsigned bytes) {
    if (((uintptr_t)smem | (uintptr_t)gmem) & (bytes - 1)) srt_emu::die("cp.async from or to an address not aligned to its size");
    srt_emu::fiber *f = srt_emu::m().cur;
    f->copies.push_back(srt_emu::fiber::copy{smem, gmem, bytes, f->commits});
}
static inline void srt__cu_cp_async16(void *smem, const void *gmem) { srt_emu_cp_async(smem, gmem, 16); }
static inline void srt__cu_cp_async4(void *smem, const void *gmem) { srt_emu_cp_async(smem, gmem, 4); }
static inline void srt__cu_cp_async_commit(void) { srt_emu::m().cur->commits++; }
/* lands this thread's copies of every committed group but the newest `pending` (all: wait_all) */
static inline void srt_emu_cp_async_land(unsigned pending, bool all) {
    srt_emu::fiber *f = srt_emu::m().cur;
    std::vector<srt_emu::fiber::copy> keep;
    for (size_t i = 0; i < f->copies.size(); i++) {
        const srt_emu::fiber::copy &c = f->copies[i];
        if (all || c.group + pending < f->commits) memcpy(c.to, c.from, c.bytes);
        else keep.push_back(c);
    }
    f->copies.swap(keep);
}
static inline void srt__cu_cp_async_wait_all(void) { srt_emu_cp_async_land(0, true); }
template <int N> static inline void srt__cu_cp_async_wait_group(void) { srt_emu_cp_async_land((unsigned)N, false); }
/* lane l gets, of matrix i, row l / 4, columns 2 (l % 4) and + 1; the rows' addresses come from
   lanes 8i..8i+7 */
static inline void srt_emu_ldmatrix(uint32_t *r, const void *smem, int count) {
    if ((uintptr_t)smem & 15) srt_emu::die("ldmatrix row address not 16-byte aligned");
    const srt_emu::slot *s = srt_emu::exchange(&smem, sizeof smem);
    const int lane = srt_emu::m().cur->lane;
    for (int i = 0; i < count; i++) {
        const unsigned char *row;
        memcpy(&row, s[8 * i + lane / 4].b, sizeof row);
        memcpy(&r[i], row + 4 * (lane % 4), 4);
    }
}
static inline void srt__cu_ldmatrix_x4(uint32_t *r, const void *smem) { srt_emu_ldmatrix(r, smem, 4); }
static inline void srt__cu_ldmatrix_x2(uint32_t *r, const void *smem) { srt_emu_ldmatrix(r, smem, 2); }
/* mma.sync.m16n8kK.row.col, P values a register (K = 8 P: f16 P = 2, s8 P = 4; value(r, h) is
   value h of register r), lane l = 4 g + t:
   A: a0 (g, P t..), a1 (g + 8, P t..), a2 (g, P t + K / 2..), a3 (g + 8, P t + K / 2..);
   B: b0 (k P t.., n g), b1 (k P t + K / 2.., n g); C/D: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
   Sums in k order (f16: in float, not the tensor cores' way; s8: exact, as on the GPU). */
template <class T, int P, class V> static inline void srt_emu_mma(T *d, const uint32_t *a, uint32_t b0, uint32_t b1, V value) {
    enum { K = 8 * P };
    const uint32_t mine[6] = {a[0], a[1], a[2], a[3], b0, b1};
    const srt_emu::slot *s = srt_emu::exchange(mine, sizeof mine);
    const int lane = srt_emu::m().cur->lane, g = lane / 4, t = lane % 4;
    T A[2][K], B[2][K];   /* this lane's rows g, g + 8 of A and columns 2t, 2t + 1 of B */
    for (int q = 0; q < 4; q++) {
        uint32_t va[6], vb0[6], vb1[6];
        memcpy(va, s[4 * g + q].b, sizeof va);
        memcpy(vb0, s[4 * (2 * t) + q].b, sizeof vb0);
        memcpy(vb1, s[4 * (2 * t + 1) + q].b, sizeof vb1);
        for (int h = 0; h < P; h++) {
            A[0][P * q + h] = value(va[0], h);
            A[1][P * q + h] = value(va[1], h);
            A[0][P * q + K / 2 + h] = value(va[2], h);
            A[1][P * q + K / 2 + h] = value(va[3], h);
            B[0][P * q + h] = value(vb0[4], h);
            B[0][P * q + K / 2 + h] = value(vb0[5], h);
            B[1][P * q + h] = value(vb1[4], h);
            B[1][P * q + K / 2 + h] = value(vb1[5], h);
        }
    }
    for (int e = 0; e < 4; e++) {
        T sum = d[e];
        for (int k = 0; k < K; k++) sum += A[e >> 1][k] * B[e & 1][k];
        d[e] = sum;
    }
}
static inline void srt__cu_mma(float *d, const uint32_t *a, uint32_t b0, uint32_t b1) {
    srt_emu_mma<float, 2>(d, a, b0, b1, [](uint32_t r, int h) { return __half2float(__ushort_as_half((unsigned short)(r >> (16 * h)))); });
}
static inline void srt__cu_mma_s8(int *d, const uint32_t *a, uint32_t b0, uint32_t b1) {
    srt_emu_mma<int, 4>(d, a, b0, b1, [](uint32_t r, int h) { return (int)(int8_t)(uint8_t)(r >> (8 * h)); });
}

/* ---------------------------------------------------------------- the runtime */
typedef enum cudaError {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevice = 101, cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorUnknown = 999
} cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2 };
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrL2CacheSize = 38 };
#define cudaStreamNonBlocking 0x01u
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int major, minor, multiProcessorCount;
};
typedef std::vector<std::function<void()> > srt_emu_work;
struct CUstream_st { srt_emu_work *capture; bool invalidated; };
struct CUgraph_st { srt_emu_work work; };
struct CUgraphExec_st { srt_emu_work work; };
struct CUevent_st { double ms; };
typedef CUstream_st *cudaStream_t;
typedef CUgraph_st *cudaGraph_t;
typedef CUgraphExec_st *cudaGraphExec_t;
typedef CUevent_st *cudaEvent_t;

namespace srt_emu {
struct runtime {
    cudaError_t last = cudaSuccess;
    std::map<void *, size_t> allocs;
    size_t used = 0;
};
static runtime g_runtime;
static inline runtime &rt() { return g_runtime; }
static cudaError_t fail(cudaError_t e) { if (e != cudaSuccess) rt().last = e; return e; }
static size_t total_memory() {
    const char *e = getenv("SRT_CUDA_EMU_MEM_MB");
    return (size_t)(e && atoi(e) > 0 ? atoi(e) : 4096) << 20;
}
static int sm_count() {
    const char *e = getenv("SRT_CUDA_EMU_SMS");
    return e && atoi(e) > 0 ? atoi(e) : 132;
}
/* work on a stream: recorded while it is captured, else done now */
static void enqueue(cudaStream_t s, std::function<void()> w) {
    if (s && s->capture) s->capture->push_back(std::move(w));
    else w();
}
static void run_grid(dim3 grid, dim3 block, const std::function<void()> &body) {
    machine &M = m();
    const std::function<void()> *saved = M.body;
    M.grid_dim = grid; M.block_dim = block; M.body = &body;
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                M.block_idx.x = x; M.block_idx.y = y; M.block_idx.z = z;
                run_block((int)(block.x * block.y * block.z));
            }
    M.body = saved;
}
template <class... P> struct launcher {
    void (*kernel)(P...);
    dim3 grid, block;
    cudaStream_t stream;
    template <class... A> void operator()(A &&...a) const {
        const uint64_t threads = (uint64_t)block.x * block.y * block.z;
        if (threads < 1 || threads > 1024 || block.z > 64 || grid.x < 1 || grid.x > 0x7fffffffu || grid.y < 1 || grid.y > 65535 ||
            grid.z < 1 || grid.z > 65535) {
            fail(cudaErrorInvalidConfiguration);
            return;
        }
        const std::tuple<P...> args(std::forward<A>(a)...);
        void (*k)(P...) = kernel;
        const dim3 g = grid, b = block;
        enqueue(stream, [k, g, b, args]() { run_grid(g, b, [&]() { std::apply(k, args); }); });
    }
};
template <class... P> static launcher<P...> launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t = 0, cudaStream_t stream = nullptr) {
    launcher<P...> l;
    l.kernel = kernel; l.grid = grid; l.block = block; l.stream = stream;
    return l;
}
static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
} /* namespace srt_emu */

/* cudaLaunchKernelEx: a plain launch; its only attribute here, programmatic stream serialization,
   changes nothing on a stream that runs one kernel after the other. The fields are CUDA's, in its
   order, but the dimensions are named grid and block (gridDim and blockDim are macros here). */
enum cudaLaunchAttributeID { cudaLaunchAttributeProgrammaticStreamSerialization = 3 };
union cudaLaunchAttributeValue { char pad[64]; unsigned int programmaticStreamSerializationAllowed; };
struct cudaLaunchAttribute { cudaLaunchAttributeID id; char pad[4]; cudaLaunchAttributeValue val; };
struct cudaLaunchConfig_t {
    dim3 grid, block;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
};
template <class... P, class... A> static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *c, void (*k)(P...), A &&...a) {
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id != cudaLaunchAttributeProgrammaticStreamSerialization) return cudaErrorInvalidValue;
    srt_emu::launch(k, c->grid, c->block, c->dynamicSmemBytes, c->stream)(std::forward<A>(a)...);
    return cudaSuccess;   /* a bad configuration is the last error, as after a plain launch */
}

static inline cudaError_t cudaGetLastError(void) { const cudaError_t e = srt_emu::rt().last; srt_emu::rt().last = cudaSuccess; return e; }
static inline const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "cudaSuccess";
        case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
        case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
        case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
        case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
        case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
        default: return "cudaErrorUnknown";
    }
}
static inline const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
        case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
        default: return "unknown error";
    }
}
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int d) {
    return d == 0 ? cudaSuccess : srt_emu::fail(cudaErrorInvalidDevice);
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
    if (d != 0) return srt_emu::fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulator (tests/cuda_emu)");
    p->totalGlobalMem = srt_emu::total_memory();
    p->major = 9; p->minor = 0;
    p->multiProcessorCount = srt_emu::sm_count();
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d) {
    if (d != 0) return srt_emu::fail(cudaErrorInvalidDevice);
    if (a == cudaDevAttrL2CacheSize) *v = 256 << 10;
    else if (a == cudaDevAttrMultiProcessorCount) *v = srt_emu::sm_count();
    else return srt_emu::fail(cudaErrorInvalidValue);
    return cudaSuccess;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    *total = srt_emu::total_memory();
    *free_bytes = *total - srt_emu::rt().used;
    return cudaSuccess;
}
static inline cudaError_t cudaMalloc(void **p, size_t bytes) {
    srt_emu::runtime &R = srt_emu::rt();
    const size_t rounded = (bytes + 255) / 256 * 256;
    *p = nullptr;
    if (bytes == 0 || rounded > srt_emu::total_memory() - R.used) return srt_emu::fail(bytes ? cudaErrorMemoryAllocation : cudaErrorInvalidValue);
    void *q = aligned_alloc(256, rounded);
    if (!q) return srt_emu::fail(cudaErrorMemoryAllocation);
    memset(q, 0xff, rounded);
    R.allocs[q] = rounded;
    R.used += rounded;
    *p = q;
    return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) { return cudaMalloc((void **)p, bytes); }
static inline cudaError_t cudaFree(void *p) {
    srt_emu::runtime &R = srt_emu::rt();
    if (!p) return cudaSuccess;
    std::map<void *, size_t>::iterator it = R.allocs.find(p);
    if (it == R.allocs.end()) return srt_emu::fail(cudaErrorInvalidValue);
    R.used -= it->second;
    R.allocs.erase(it);
    free(p);
    return cudaSuccess;
}
static inline cudaError_t cudaMallocHost(void **p, size_t bytes) {
    *p = malloc(bytes ? bytes : 1);
    return *p ? cudaSuccess : srt_emu::fail(cudaErrorMemoryAllocation);
}
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind, cudaStream_t s = nullptr) {
    srt_emu::enqueue(s, [dst, src, bytes]() { memcpy(dst, src, bytes); });
    return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *dst, int v, size_t bytes, cudaStream_t s = nullptr) {
    srt_emu::enqueue(s, [dst, v, bytes]() { memset(dst, v, bytes); });
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
    *s = new CUstream_st();
    (*s)->capture = nullptr; (*s)->invalidated = false;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { if (s) { delete s->capture; delete s; } return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    if (s && s->capture) { s->invalidated = true; return srt_emu::fail(cudaErrorStreamCaptureUnsupported); }
    return cudaSuccess;
}
static inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
    if (!s || s->capture) return srt_emu::fail(cudaErrorInvalidValue);
    s->capture = new srt_emu_work();
    s->invalidated = false;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
    *g = nullptr;
    if (!s || !s->capture) return srt_emu::fail(cudaErrorInvalidValue);
    srt_emu_work *w = s->capture;
    s->capture = nullptr;
    if (s->invalidated) { delete w; return srt_emu::fail(cudaErrorStreamCaptureInvalidated); }
    *g = new CUgraph_st();
    (*g)->work.swap(*w);
    delete w;
    return cudaSuccess;
}
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long = 0) {
    *e = new CUgraphExec_st();
    (*e)->work = g->work;
    return cudaSuccess;
}
static inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t s) {
    const CUgraphExec_st *x = e;
    srt_emu::enqueue(s, [x]() { for (size_t i = 0; i < x->work.size(); i++) x->work[i](); });
    return cudaSuccess;
}
static inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }
static inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) { delete e; return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new CUevent_st(); (*e)->ms = 0.0; return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
    srt_emu::enqueue(s, [e]() { e->ms = srt_emu::now_ms(); });
    return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)(b->ms - a->ms); return cudaSuccess; }
#endif /* SRT_CUDA_EMU_RUNTIME_H */
