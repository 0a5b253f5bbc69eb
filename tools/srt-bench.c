/* srt-bench - measurements of the runtime, through the public API only.

     srt-bench membw [--threads N | --threads-list 1,2] [--mb 2048] [--passes 10] [--isa L] [--json]
         read bandwidth of a buffer far larger than the last-level cache (default 2048 MB), with the
         widest loads the CPU has, in regions of 8 MiB per thread (each thread its own slice): the
         median region rate (gbs), and the median and best whole-pass rates. --threads N = 1..N.
     srt-bench gemv|gemm [--format f16,bf16,q8,q4,q2,tq,q1] [--group 64[,32,128,row]]
                         [--shape MxK[*COUNT],...] [--threads N | --threads-list 1,2]
                         [--isa portable,avx2,avxvnni,avx512,amx] [--n TOKENS] [--set-mb 1536]
                         [--seconds 1] [--bw GBS[,GBS..]] [--mb 2048] [--sparsity 0.5] [--json]
         srt_matmul speed per format x group x shape x threads x ISA: median time per call while
         cycling through enough copies of each matrix to exceed the LLC (--set-mb per shape).
         GB/s = bytes of the tensor / time, GFLOP/s = 2 M K n / time, roofline_fraction = GB/s /
         the membw GB/s measured at start at that thread count (or --bw). Default shapes: the
         Llama-3.2-1B matrices with their count per token; a "-summary" line per format, thread
         count and ISA weighs the shapes by count (one token's worth of GEMVs). gemv: n = 1;
         gemm: --n, default 32. --isa default: every level up to the best this CPU has.
         Sparse formats (sb-bf16, sb-q8, sb-q4, s4x1): random weights pruned by magnitude at
         --sparsity (default 0.5; a list runs each; s4x1 in 4x1 blocks); GB/s counts the bytes the
         tensor really has.
     srt-bench e2e MODEL.srt [--threads N | --threads-list ..] [--isa L[,L..]] [--prompt-tokens 128]
                             [--tokens 64] [--runs 3] [--batch B] [--load auto,mmap,copy] [--bw GBS] [--mb 2048]
                             [--kv f16|f32|q8] [--kv-sparsity K[,V]] [--state] [--swa-full] [--json]
         prefill tokens/s, decode tokens/s, time to first token, peak RSS (medians of --runs) on
         random token ids (no tokenizer needed); roofline_fraction = decode tokens/s x (weight bytes
         read per token + KV cache bytes read by the middle decode step) / the read bandwidth
         measured after the runs (or --bw). --load compares how the file reaches memory
         (srt_model_desc.load); the "load" field says which was used. --kv-sparsity: the prompt's
         K and V rows pruned (srt_session_desc.kv_sparsity_k / _v; V = K when one value is given).
         --kv: the KV cache type (srt_session_desc.kv_type; default f16). --state: after each
         prompt its session state is saved into memory and loaded into a second session (the
         logits must agree), outside the timed steps: state_bytes, state_save_ms, state_load_ms,
         prefill_ms and state_load_speedup = prefill_ms / state_load_ms. --swa-full: sliding-window
         layers keep every position (srt_session_desc.swa_full) instead of a ring.
     srt-bench decode MODEL [--tokens 64] ...      = e2e with --prompt-tokens 1 --runs 1
     srt-bench spec MODEL.srt [--threads N | --threads-list ..] [--isa L] [--n 1,2,4,8] [--prompt-tokens 128]
                              [--tokens 64] [--runs 3] [--batch B] [--json]
         speculative decoding (srt_session_next_draft) per proposal count k (--n): greedy decoding
         of --tokens tokens after a random prompt, plain and with proposals that are all right (the
         plain tokens ahead: the ceiling), all wrong (the floor) and from prompt lookup; decode
         tokens/s, evaluations, kept_fraction, speedup over plain (medians of --runs, the kinds in
         turn) and same_tokens (1: the tokens of plain decoding; else exit status 1).
     srt-bench quantize [--format fp4,q4,q8] [--group 32] [--shape 2880x2880] [--threads N | --threads-list 1,2]
                        [--source float,mxfp4] [--runs 3] [--json]
         srt_quantize_pool speed (what srt-pack spends per tensor) per format x group x shape x
         source x threads: Mvalues/s (median of --runs) and the RMS relative error of the values
         back. --source float: uniform random weights; mxfp4: MXFP4 blocks as gpt-oss's experts hold
         them (32 FP4 values times a power of two whose block maximum is 4 or 6 times it), which fp4
         keeps exactly (exact_fraction 1).
     srt-bench pool [--json] [--topology] [--threads N] [--cores auto|performance|all|LIST] [--no-pin]
         fork/join latency, parallel-for overhead on a tiny matrix, and GEMV throughput with one
         worker slowed to half speed, dynamic chunks vs a static split.
     srt-bench make-model OUT [--embd 1024] [--ff 2816] [--layers 8] [--heads 16] [--kv-heads 4]
                              [--vocab 8192] [--format q8] [--group N|row] [--untied] [--seed S]
                              [--arch llama|gemma3|qwen3moe|gpt-oss] [--window 512] [--swa-pattern 6]
                              [--experts 64] [--experts-used 8] [--sparsity 0.5]
         writes a random-weight Llama model (filler vocab; tied embeddings unless --untied) for e2e;
         a sparse --format (sb-q8, sb-q4, s4x1, ...): the layers' matrices pruned by magnitude to
         --sparsity, the embedding in the dense twin (q8, q4, bf16, f16) as srt-pack keeps it;
         --arch gemma3: a Gemma 3 model instead (q/k norms, post-norms, layer l attends to the last
         --window positions unless l % P = P - 1, P = --swa-pattern); --arch qwen3moe: a Qwen3-MoE
         model (q/k norms, each layer's FFN --experts-used of --experts experts of width --ff, an
         f32 router); --arch gpt-oss: gpt-oss's graph (those experts with biases, a router bias,
         q/k/v and output biases, attention sinks, YaRN, the even layers sliding over --window).
   GPU (build/srt-bench-cuda: this file with -DSRT_BENCH_CUDA + tools/cuda-backend.cu, built by
   ./build.sh when nvcc is found; the plain build refuses these with exit status 2). Without a usable
   device each prints the device error (srt_cuda_info) and exits 1. Lines: threads "-", isa "cuda",
   device = the GPU's name. --device N picks the CUDA device (default 0).
     srt-bench gpu-membw [--mb 4096] [--iters 50] [--json]
         device read bandwidth (srt_cuda_bench_read: 16-byte loads over --mb MB, --iters passes).
     srt-bench gpu-gemv|gpu-gemm [--format q8,q4,q2,tq,f16,tcsl] [--shape MxK[*COUNT],...] [--n 8,16,32,64]
                                 [--sparsity 0.6,0.7,0.8,0.9] [--group 64] [--path auto|gemv|gemm|cublas|cublas-f16]
                                 [--iters N] [--bw GBS] [--mb 4096] [--split-k 2,8] [--json]
         srt_cuda_bench_matmul per format x sparsity (sparse formats) x shape x n: ms per call (--iters
         calls, default enough for ~0.2 s; the weights cycle through copies that exceed the L2 cache),
         gbs = bytes of the tensor / time, tflops = 2 M K n / time, roofline_fraction = gbs / the
         gpu-membw figure measured at start (or --bw). tcsl lines add the cuBLAS f16 baseline on the
         same pruned weights stored f16 (SRT_CUDA_PATH_CUBLAS_F16: cublas_ms, cublas_tflops) and
         speedup = cublas_ms / ms (Flash-LLM's comparison). Random weights as gemv's, one seed per
         run, pruned by magnitude for sparse formats (and for their baseline). Defaults: gpu-gemv the
         Llama-3.2-1B shapes of gemv, n = 1; gpu-gemm the Llama-3-8B matrices (4096x4096*2,
         1024x4096*2, 14336x4096*2, 4096x14336: q o, k v, gate up, down per layer) at n = 8,16,32,64.
         A "-summary" line per format, sparsity and n weighs the shapes by count. --split-k: each
         tcsl measurement once per value of srt_cuda_set_split_k (lines and summaries say split_k).
     srt-bench e2e|decode|spec MODEL.srt --backend cuda ...
         the model on the GPU (srt_model_desc.backend = srt_cuda_backend); bandwidth_gbs and
         roofline_fraction from gpu-membw (or --bw); isa "cuda", backend = the backend's name,
         kernels_per_token = the launches of a decode step (srt_cuda_last_step_kernels), cuda_graph = 1 if
         it replayed its CUDA graph (srt_cuda_last_step_graph).
   Every mode takes --cores POLICY and --no-pin. --json prints one JSON object per result line
   (keys: mode, format, threads, isa, ... see README.md); without it, aligned tables. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#ifdef SRT_BENCH_CUDA
#  include "sparsert_cuda.h"   /* the declarations; the backend is tools/cuda-backend.cu (nvcc) */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#  include <immintrin.h>
#endif
#ifdef _WIN32
#  ifndef PSAPI_VERSION
#    define PSAPI_VERSION 2      /* GetProcessMemoryInfo = K32GetProcessMemoryInfo in kernel32 */
#  endif
#  include <windows.h>
#  include <psapi.h>
#else
#  include <sys/resource.h>
#endif

static double now_us(void) {
#ifdef _WIN32
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (!freq.QuadPart) QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart * 1e6 / (double)freq.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
#endif
}

/* Peak resident set size of this process in MB (0 if unknown). */
static double peak_rss_mb(void) {
#ifdef _WIN32
    PROCESS_MEMORY_COUNTERS pmc;
    if (GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return (double)pmc.PeakWorkingSetSize / 1e6;
    return 0.0;
#else
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0.0;
#  ifdef __APPLE__
    return (double)ru.ru_maxrss / 1e6;        /* bytes */
#  else
    return (double)ru.ru_maxrss * 1024.0 / 1e6; /* KiB */
#  endif
#endif
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* median of v[0..n) (sorts v) */
static double median(double *v, int n) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* 64-byte aligned allocation (malloc'd block, the offset stored just before the pointer) */
static void *alloc64(size_t n) {
    unsigned char *p = (unsigned char *)malloc(n + 64 + sizeof(void *)), *a;
    if (!p) return NULL;
    a = (unsigned char *)(((uintptr_t)(p + sizeof(void *)) + 63) & ~(uintptr_t)63);
    memcpy(a - sizeof(void *), &p, sizeof p);
    return a;
}
static void free64(void *a) {
    void *p;
    if (!a) return;
    memcpy(&p, (unsigned char *)a - sizeof(void *), sizeof p);
    free(p);
}

/* ---------------------------------------------------------------- results: JSON lines or tables */
/* One result: ordered key/value pairs. --json prints {"key":value,...} per line; otherwise rows of a
   table whose header is printed again whenever the keys change. */
#define REC_MAX 40
typedef struct rec { int n; const char *key[REC_MAX]; char val[REC_MAX][200]; int str[REC_MAX]; } rec;
static void rec_str(rec *r, const char *k, const char *v) {
    if (r->n >= REC_MAX) return;
    r->key[r->n] = k; snprintf(r->val[r->n], sizeof r->val[0], "%s", v); r->str[r->n++] = 1;
}
static void rec_int(rec *r, const char *k, long long v) {
    if (r->n >= REC_MAX) return;
    r->key[r->n] = k; snprintf(r->val[r->n], sizeof r->val[0], "%lld", v); r->str[r->n++] = 0;
}
static void rec_num(rec *r, const char *k, double v, int decimals) {
    if (r->n >= REC_MAX) return;
    r->key[r->n] = k; snprintf(r->val[r->n], sizeof r->val[0], "%.*f", decimals, v); r->str[r->n++] = 0;
}
/* 4 significant digits (tiny results of smoke tests stay nonzero), plain decimals from 1000 on */
static void rec_sig(rec *r, const char *k, double v) {
    if (r->n >= REC_MAX) return;
    r->key[r->n] = k;
    snprintf(r->val[r->n], sizeof r->val[0], v >= 1000.0 || v <= -1000.0 ? "%.1f" : "%.4g", v);
    r->str[r->n++] = 0;
}
static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}
static void rec_emit(const rec *r, int json) {
    static char last[1024];
    static int width[REC_MAX];
    char header[1024];
    int i, used = 0;
    if (json) {
        putchar('{');
        for (i = 0; i < r->n; i++) {
            if (i) putchar(',');
            json_string(r->key[i]);
            putchar(':');
            if (r->str[i]) json_string(r->val[i]); else fputs(r->val[i], stdout);
        }
        puts("}");
        fflush(stdout);
        return;
    }
    header[0] = 0;
    for (i = 0; i < r->n && used < (int)sizeof header - 1; i++)
        used += snprintf(header + used, sizeof header - (size_t)used, "%s ", r->key[i]);
    if (strcmp(header, last) != 0) {   /* new table: column widths from the keys and this first row */
        if (last[0]) putchar('\n');
        for (i = 0; i < r->n; i++) {
            int k = (int)strlen(r->key[i]), v = (int)strlen(r->val[i]);
            width[i] = k > v ? k : v;
            if (width[i] < 7) width[i] = 7;
            printf(i ? "  %*s" : "%*s", r->str[i] ? -width[i] : width[i], r->key[i]);
        }
        putchar('\n');
        snprintf(last, sizeof last, "%s", header);
    }
    for (i = 0; i < r->n; i++) printf(i ? "  %*s" : "%*s", r->str[i] ? -width[i] : width[i], r->val[i]);
    putchar('\n');
    fflush(stdout);
}

/* ---------------------------------------------------------------- options (one parser for every mode) */
#define MAX_LIST 16
#define MAX_SHAPES 32
typedef struct shape { int64_t m, k; int count; } shape;
typedef struct opts {
    int json, topology, threads, no_pin, tokens;
    int swa_full;                                   /* e2e: srt_session_desc.swa_full */
    srt_cores cores;
    const char *cpu_list;
    int embd, ff, layers, heads, kv_heads, vocab, untied;   /* make-model */
    const char *arch;                               /* make-model: "llama", "gemma3" or "qwen3moe" */
    int window, swa_pattern;                        /* make-model gemma3 */
    int experts, experts_used;                      /* make-model qwen3moe (--ff: an expert's width) */
    uint32_t seed;
    int thread_list[MAX_LIST], n_thread_list;
    int isa[MAX_LIST], n_isa;
    int load[3], n_load;                            /* e2e: srt_load modes to compare */
    int format[MAX_LIST], n_format;
    int group[MAX_LIST], n_group;                   /* 0 = per row (one group spans K) */
    shape shapes[MAX_SHAPES];
    int n_shapes;
    double bw[MAX_LIST];
    int n_bw;
    int passes, runs, prompt_tokens, batch;
    double mb, set_mb, seconds;
    double sparsity[MAX_LIST];                      /* sparse formats: fractions of weights pruned by magnitude */
    int n_sparsity, sparsity_set, mb_set, n_n;      /* n_n: values given to --n (o.n_list) */
    int n_list[MAX_LIST];
    int iters, device, path;                        /* GPU modes: --iters (0 = auto), --device, --path */
    int split_k[MAX_LIST], n_split_k;               /* gpu-gemm / gpu-gemv: srt_cuda_set_split_k values for tcsl */
    srt_backend *gpu;                               /* e2e --backend cuda: the CUDA backend (else NULL) */
    float kv_sparsity[2];                           /* e2e: srt_session_desc.kv_sparsity_k / _v */
    srt_kv_type kv;                                 /* e2e: srt_session_desc.kv_type */
    int state;                                      /* e2e --state: time saving and loading the prompt's state */
    int source[2], n_source;                        /* quantize: 0 float, 1 mxfp4 */
} opts;

/* Splits "a,b,c" and calls item() on each piece; 0 on any bad piece or too many. */
static int parse_list(const char *s, int cap, int *n, int (*item)(const char *piece, int index, void *user), void *user) {
    char piece[64];
    *n = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof piece || *n >= cap) return 0;
        memcpy(piece, s, len); piece[len] = 0;
        if (!item(piece, *n, user)) return 0;
        (*n)++;
        s += len;
        if (*s == ',') s++;
    }
    return *n > 0;
}
static int positive_int(const char *s, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end != 0 || v < 1 || v > 1000000000L) return 0;
    *out = (int)v;
    return 1;
}
static int item_thread(const char *p, int i, void *u) { return positive_int(p, &((opts *)u)->thread_list[i]); }
static int item_isa(const char *p, int i, void *u) { int v = srt_isa_from_name(p); ((opts *)u)->isa[i] = v; return v >= 0; }
static int item_load(const char *p, int i, void *u) {
    int v = !strcmp(p, "auto") ? SRT_LOAD_AUTO : !strcmp(p, "mmap") ? SRT_LOAD_MMAP : !strcmp(p, "copy") ? SRT_LOAD_COPY : -1;
    ((opts *)u)->load[i] = v;
    return v >= 0;
}
static int item_format(const char *p, int i, void *u) { int v = srt_format_from_name(p); ((opts *)u)->format[i] = v; return v >= 0; }
static int item_group(const char *p, int i, void *u) {
    if (!strcmp(p, "row")) { ((opts *)u)->group[i] = 0; return 1; }
    return positive_int(p, &((opts *)u)->group[i]);
}
static int item_sparsity(const char *p, int i, void *u) { char *e; double v = strtod(p, &e); ((opts *)u)->sparsity[i] = v; return *e == 0 && v >= 0.0 && v < 1.0; }
static int item_n(const char *p, int i, void *u) { return positive_int(p, &((opts *)u)->n_list[i]); }
static int item_split_k(const char *p, int i, void *u) { char *e; long v = strtol(p, &e, 10); ((opts *)u)->split_k[i] = (int)v; return *p && !*e && v >= 0 && v <= 64; }
static int item_source(const char *p, int i, void *u) { ((opts *)u)->source[i] = !strcmp(p, "mxfp4"); return !strcmp(p, "float") || !strcmp(p, "mxfp4"); }
static int item_bw(const char *p, int i, void *u) { char *e; double v = strtod(p, &e); ((opts *)u)->bw[i] = v; return *e == 0 && v > 0.0; }
static int item_shape(const char *p, int i, void *u) {   /* MxK or MxK*COUNT */
    shape *s = &((opts *)u)->shapes[i];
    long long m, k;
    int count = 1, used = 0;
    if (sscanf(p, "%lldx%lld%n", &m, &k, &used) != 2 || m < 1 || k < 1) return 0;
    if (p[used] == '*') { if (!positive_int(p + used + 1, &count)) return 0; }
    else if (p[used] != 0) return 0;
    s->m = m; s->k = k; s->count = count;
    return 1;
}

static int parse_cores(const char *s, opts *o) {
    if (!strcmp(s, "auto")) o->cores = SRT_CORES_AUTO;
    else if (!strcmp(s, "performance")) o->cores = SRT_CORES_PERFORMANCE;
    else if (!strcmp(s, "all")) o->cores = SRT_CORES_ALL;
    else { int tmp[1]; if (srt_parse_cpu_list(s, tmp, 1) <= 0) return 0; o->cores = SRT_CORES_LIST; o->cpu_list = s; }
    return 1;
}

static srt_status make_pool(const opts *o, int threads, const srt_pool_desc *extra, srt_pool **out) {
    srt_pool_desc pd;
    memset(&pd, 0, sizeof pd);
    if (extra) pd = *extra;
    pd.n_threads = threads;
    pd.cores = o->cores;
    pd.cpu_list = o->cpu_list;
    pd.pin = o->no_pin ? -1 : 0;
    return srt_pool_create(&pd, out);
}

/* The thread counts a mode runs: --threads-list, else --threads N (membw: 1..N), else the pool's
   default (membw: 1..default). */
static int thread_counts(const opts *o, int up_to, int *out) {
    int i, n = 0, top = o->threads;
    if (o->n_thread_list) { for (i = 0; i < o->n_thread_list; i++) out[i] = o->thread_list[i]; return o->n_thread_list; }
    if (top <= 0) {
        srt_pool *p;
        if (make_pool(o, 0, NULL, &p) != SRT_OK) return 0;
        top = srt_pool_threads(p);
        srt_pool_destroy(p);
    }
    if (!up_to) { out[0] = top; return 1; }
    for (i = 1; i <= top && n < MAX_LIST; i++) out[n++] = i;
    return n;
}

static const char *type_name(srt_core_type t) { return t == SRT_CORE_EFFICIENCY ? "E" : t == SRT_CORE_PERFORMANCE ? "P" : "?"; }

static void print_topology(const opts *o) {
    static srt_topology t;
    int cpus[SRT_MAX_CPUS], n, i;
    srt_topology_detect(NULL, &t);
    n = srt_cores_select(&t, o->cores, o->cpu_list, cpus, SRT_MAX_CPUS);
    if (o->json) {
        printf("{\"mode\":\"topology\",\"bench\":\"topology\",\"cpus\":%d,\"cores\":%d,\"perf_cores\":%d,\"eff_cores\":%d,\"hybrid\":%d,\"source\":\"%s\",\"selected\":[",
               t.n_cpus, t.n_cores, t.n_perf_cores, t.n_eff_cores, t.hybrid, t.source);
        for (i = 0; i < n; i++) printf(i ? ",%d" : "%d", cpus[i]);
        printf("]}\n");
        return;
    }
    printf("topology: %d logical CPUs, %d physical cores (%d P, %d E), %s, source: %s\n",
           t.n_cpus, t.n_cores, t.n_perf_cores, t.n_eff_cores, t.hybrid ? "hybrid" : "not hybrid", t.source);
    printf("  cpu  core  smt  type  package  numa  llc  max_mhz  usable\n");
    for (i = 0; i < t.n_cpus; i++) {
        const srt_cpu *c = &t.cpu[i];
        printf("  %3d  %4d  %3d  %4s  %7d  %4d  %3d  %7u  %6d\n", c->id, c->core, c->smt, type_name(c->type), c->package, c->numa, c->llc, c->max_khz / 1000, c->usable);
    }
    printf("  selected by the policy (%d):", n);
    for (i = 0; i < n; i++) printf(" %d", cpus[i]);
    printf("\n");
}

/* xorshift32: reproducible random weights and token ids (--seed) */
static uint32_t rng = 2463534242u;
static uint32_t rand_u32(void) { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return rng; }
static float frand(void) { return (float)(rand_u32() >> 8) / 16777216.0f - 0.5f; }

/* ---------------------------------------------------------------- pool benchmark */
static void noop(void *user, int64_t b, int64_t e, int t) { (void)user; (void)b; (void)e; (void)t; }

/* f32 GEMV rows; 16 partial sums in a fixed order (vectorisable, still deterministic) */
typedef struct gemv { const float *w, *x; float *y; int64_t cols; } gemv;
static void gemv_rows(void *user, int64_t begin, int64_t end, int thread) {
    const gemv *g = (const gemv *)user;
    int64_t r, c;
    int k;
    (void)thread;
    for (r = begin; r < end; r++) {
        const float *w = g->w + r * g->cols;
        float acc[16], s = 0.0f;
        for (k = 0; k < 16; k++) acc[k] = 0.0f;
        for (c = 0; c + 16 <= g->cols; c += 16)
            for (k = 0; k < 16; k++) acc[k] += w[c + k] * g->x[c + k];
        for (; c < g->cols; c++) acc[0] += w[c] * g->x[c];
        for (k = 0; k < 16; k++) s += acc[k];
        g->y[r] = s;
    }
}

/* best-of time (us) of `reps` calls of the given region */
static double time_gemv(srt_pool *p, gemv *g, int64_t rows, int64_t chunk, int use_static, int reps) {
    double best = 1e30;
    int r;
    for (r = 0; r < reps; r++) {
        double t0 = now_us(), dt;
        if (use_static) srt_pool_parallel_for_static(p, rows, gemv_rows, g);
        else if (p) srt_pool_parallel_for(p, rows, chunk, gemv_rows, g);
        else gemv_rows(g, 0, rows, 0);
        dt = now_us() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

static int bench_pool(const opts *o) {
    srt_pool *p;
    int threads, i, reps = 200000;
    double t0, forkjoin_us, serial_us, t_one, par_us, overhead_us, t_dyn_fast, t_dyn_slow, t_sta_slow, ideal, f_dyn, f_sta;
    int64_t tiny_rows = 64, tiny_cols = 256, big_rows = 8192, big_cols = 8192, chunk, k;
    float *w, *x, *y;
    gemv g;
    srt_pool_desc slow;
    if (o->topology) print_topology(o);
    if (make_pool(o, o->threads, NULL, &p) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    threads = srt_pool_threads(p);
    w = (float *)malloc(sizeof(float) * (size_t)(big_rows * big_cols));
    x = (float *)malloc(sizeof(float) * (size_t)big_cols);
    y = (float *)malloc(sizeof(float) * (size_t)big_rows);
    if (!w || !x || !y) { fprintf(stderr, "srt-bench: out of memory\n"); return 1; }
    for (k = 0; k < big_rows * big_cols; k++) w[k] = (float)((k * 7919) % 1000) * 0.001f - 0.5f;
    for (i = 0; i < big_cols; i++) x[i] = (float)(i % 17) * 0.1f;

    /* 1. fork/join: an empty region in which every thread takes one item */
    for (i = 0; i < 1000; i++) srt_pool_parallel_for(p, threads, 1, noop, NULL);
    t0 = now_us();
    for (i = 0; i < reps; i++) srt_pool_parallel_for(p, threads, 1, noop, NULL);
    forkjoin_us = (now_us() - t0) / reps;

    /* 2. tiny GEMV (64 x 256 f32, 64 KiB): forced split vs serial */
    g.w = w; g.x = x; g.y = y; g.cols = tiny_cols;
    serial_us = time_gemv(NULL, &g, tiny_rows, 0, 0, 20000);
    par_us = time_gemv(p, &g, tiny_rows, 4, 0, 20000);
    overhead_us = par_us - serial_us / threads;

    /* 3. memory-bound GEMV (8192 x 8192 f32, 256 MiB) with the last thread at half speed */
    g.cols = big_cols;
    chunk = srt_pool_chunk(p, big_rows, big_cols * (int64_t)sizeof(float));
    t_one = time_gemv(NULL, &g, big_rows, 0, 0, 5);
    t_dyn_fast = time_gemv(p, &g, big_rows, chunk, 0, 10);
    srt_pool_destroy(p);
    memset(&slow, 0, sizeof slow);
    slow.slow_thread = threads - 1; slow.slow_factor = 2.0f;
    if (make_pool(o, threads, &slow, &p) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    t_dyn_slow = time_gemv(p, &g, big_rows, chunk, 0, 10);
    t_sta_slow = time_gemv(p, &g, big_rows, 0, 1, 10);
    srt_pool_destroy(p);
    /* ideal with one worker at half speed: the unslowed throughput times (T - 1 + 0.5) / T */
    ideal = (1.0 / t_dyn_fast) * ((threads - 1) + 0.5) / threads;
    f_dyn = (1.0 / t_dyn_slow) / ideal;
    f_sta = (1.0 / t_sta_slow) / ideal;
    if (threads < 2) f_dyn = f_sta = 1.0;   /* nothing to balance */
    if (o->json) {
        printf("{\"mode\":\"pool\",\"bench\":\"pool\",\"threads\":%d,\"forkjoin_us\":%.3f,\"parallel_for_overhead_us\":%.3f,\"tiny_serial_us\":%.3f,\"tiny_parallel_us\":%.3f,"
               "\"gemv_1thread_ms\":%.3f,\"gemv_ms\":%.3f,\"gemv_gbps\":%.2f,\"chunk\":%lld,\"slowed_dynamic_ms\":%.3f,\"slowed_static_ms\":%.3f,"
               "\"slowed_dynamic_fraction\":%.3f,\"slowed_static_fraction\":%.3f}\n",
               threads, forkjoin_us, overhead_us, serial_us, par_us, t_one / 1e3, t_dyn_fast / 1e3, (double)big_rows * big_cols * 4 / t_dyn_fast / 1e3,
               (long long)chunk, t_dyn_slow / 1e3, t_sta_slow / 1e3, f_dyn, f_sta);
    } else {
        printf("pool: %d threads\n", threads);
        printf("  fork/join (empty region, every thread one item): %.3f us\n", forkjoin_us);
        printf("  tiny GEMV 64x256 f32: serial %.2f us, %d threads %.2f us, overhead vs ideal split %.2f us\n", serial_us, threads, par_us, overhead_us);
        printf("  GEMV 8192x8192 f32 (256 MiB): 1 thread %.2f ms, %d threads %.2f ms, %.1f GB/s, chunk %lld rows\n", t_one / 1e3, threads, t_dyn_fast / 1e3, (double)big_rows * big_cols * 4 / t_dyn_fast / 1e3, (long long)chunk);
        printf("  thread %d at half speed: dynamic %.2f ms (%.3f of ideal), static %.2f ms (%.3f of ideal)\n",
               threads - 1, t_dyn_slow / 1e3, f_dyn, t_sta_slow / 1e3, f_sta);
    }
    free(w); free(x); free(y);
    return 0;
}

/* ---------------------------------------------------------------- memory read bandwidth */
/* The buffer holds the words 0, 1, 2, ...: every pass checks that the slices' sums add up to
   n (n - 1) / 2, so all bytes were read and the compiler cannot drop the loop.
   A pass reads the buffer in regions of BW_REGION_BLOCKS blocks per thread (one parallel-for each,
   every thread its own contiguous slice), timed one by one: the median region rate is the
   bandwidth, robust to the preemptions of a shared machine in the same way as the median time
   of a GEMV call. The whole-pass rates are reported too. */
#define BW_BLOCK_WORDS 4096                   /* 32 KiB per parallel-for item */
#define BW_REGION_BLOCKS 256                  /* 8 MiB per thread per region */
typedef struct bw_job { uint64_t *buf; int64_t base; srt_isa level; uint64_t sums[SRT_MAX_CPUS][8]; } bw_job;   /* one cache line per thread */

static void bw_fill(void *user, int64_t begin, int64_t end, int thread) {
    uint64_t *b = ((bw_job *)user)->buf, i;
    (void)thread;
    for (i = (uint64_t)begin * BW_BLOCK_WORDS; i < (uint64_t)end * BW_BLOCK_WORDS; i++) b[i] = i;
}
/* Sums of the words in [p, e) (a multiple of 8 words), mod 2^64. The widest loads win: on the
   machine of issue 4 one 512-bit load per cache line reads ~40% faster than four 128-bit ones, and
   the kernels use wide loads, so the roofline must too. */
static uint64_t sum_portable(const uint64_t *p, const uint64_t *e) {
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    for (; p < e; p += 8) {
        a0 += p[0]; a1 += p[1]; a2 += p[2]; a3 += p[3];
        a4 += p[4]; a5 += p[5]; a6 += p[6]; a7 += p[7];
    }
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}
#if (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#  define BENCH_X86 1
__attribute__((target("avx2"))) static uint64_t sum_avx2(const uint64_t *p, const uint64_t *e) {
    __m256i a = _mm256_setzero_si256();
    uint64_t t[4];
    for (; p < e; p += 8) {
        a = _mm256_add_epi64(a, _mm256_loadu_si256((const __m256i *)(const void *)p));
        a = _mm256_add_epi64(a, _mm256_loadu_si256((const __m256i *)(const void *)(p + 4)));
    }
    _mm256_storeu_si256((__m256i *)(void *)t, a);
    return (t[0] + t[1]) + (t[2] + t[3]);
}
__attribute__((target("avx512f"))) static uint64_t sum_avx512(const uint64_t *p, const uint64_t *e) {
    __m512i a = _mm512_setzero_si512();
    for (; p < e; p += 8) a = _mm512_add_epi64(a, _mm512_loadu_si512((const void *)p));
    return (uint64_t)_mm512_reduce_add_epi64(a);
}
#else
#  define BENCH_X86 0
#endif
/* The load width membw uses: the best of the CPU, or `isa` if lower (named like the kernel levels). */
static srt_isa bw_level(srt_isa isa) {
    srt_isa best = srt_isa_best(), l = isa == SRT_ISA_AUTO || isa > best ? best : isa;
    if (!BENCH_X86 || l < SRT_ISA_AVX2) return SRT_ISA_PORTABLE;
    return l >= SRT_ISA_AVX512 ? SRT_ISA_AVX512 : SRT_ISA_AVX2;
}
/* blocks base + [begin, end) */
static void bw_read(void *user, int64_t begin, int64_t end, int thread) {
    bw_job *j = (bw_job *)user;
    const uint64_t *p = j->buf + (uint64_t)(j->base + begin) * BW_BLOCK_WORDS, *e = j->buf + (uint64_t)(j->base + end) * BW_BLOCK_WORDS;
    uint64_t s;
#if BENCH_X86
    if (j->level == SRT_ISA_AVX512) s = sum_avx512(p, e);
    else if (j->level == SRT_ISA_AVX2) s = sum_avx2(p, e);
    else
#endif
    s = sum_portable(p, e);
    j->sums[thread][0] += s;
}

typedef struct membw { uint64_t *buf; int64_t blocks; bw_job *job; } membw;
static int membw_alloc(membw *b, double mb, srt_pool *pool, srt_isa level) {
    uint64_t bytes = (uint64_t)(mb * 1e6);
    b->blocks = (int64_t)(bytes / (BW_BLOCK_WORDS * 8));
    if (b->blocks < 1) b->blocks = 1;
    b->buf = (uint64_t *)alloc64((size_t)b->blocks * BW_BLOCK_WORDS * 8);
    b->job = (bw_job *)alloc64(sizeof(bw_job));
    if (!b->buf || !b->job) {
        fprintf(stderr, "srt-bench: cannot allocate %.0f MB for the bandwidth buffer (try --mb)\n", mb);
        free64(b->buf); free64(b->job);
        return 0;
    }
    b->job->buf = b->buf;
    b->job->base = 0;
    b->job->level = level;
    srt_pool_parallel_for_static(pool, b->blocks, bw_fill, b->job);   /* touch every page */
    return 1;
}
static void membw_free(membw *b) { free64(b->buf); free64(b->job); b->buf = NULL; b->job = NULL; }

typedef struct bw_result { double gbs, gbs_pass, gbs_best; } bw_result;
/* `passes` reads of the whole buffer by the pool's threads (after one to warm up). Returns 0 if a
   sum came out wrong or memory ran out. */
static int membw_measure(membw *b, srt_pool *pool, int passes, bw_result *res) {
    uint64_t n = (uint64_t)b->blocks * BW_BLOCK_WORDS, expect = n % 2 ? n * ((n - 1) / 2) : (n / 2) * (n - 1);
    int64_t region = (int64_t)BW_REGION_BLOCKS * srt_pool_threads(pool), start;
    int64_t per_pass = (b->blocks + region - 1) / region;
    double t[64], bytes = (double)n * 8, *rate = (double *)malloc(sizeof(double) * (size_t)(per_pass * passes));
    int p, i, n_rate = 0;
    if (!rate) return 0;
    for (p = -1; p < passes; p++) {   /* pass -1 warms up */
        uint64_t sum = 0;
        double tp = now_us();
        memset(b->job->sums, 0, sizeof b->job->sums);
        for (start = 0; start < b->blocks; start += region) {
            int64_t len = b->blocks - start < region ? b->blocks - start : region;
            double t0 = now_us(), dt;
            b->job->base = start;
            srt_pool_parallel_for_static(pool, len, bw_read, b->job);
            dt = now_us() - t0;
            if (p >= 0) rate[n_rate++] = (double)len * BW_BLOCK_WORDS * 8 / (dt > 1e-3 ? dt : 1e-3) / 1e3;
        }
        if (p >= 0) t[p] = now_us() - tp;
        for (i = 0; i < SRT_MAX_CPUS; i++) sum += b->job->sums[i][0];
        if (sum != expect) {
            fprintf(stderr, "srt-bench: membw: wrong sum (%llu, expected %llu)\n", (unsigned long long)sum, (unsigned long long)expect);
            free(rate);
            return 0;
        }
    }
    res->gbs = median(rate, n_rate);
    res->gbs_pass = bytes / median(t, passes) / 1e3;
    res->gbs_best = bytes / t[0] / 1e3;   /* sorted by median() */
    free(rate);
    return 1;
}

static void membw_record(const opts *o, int threads, srt_isa level, double mb, int passes, const bw_result *b) {
    rec r;
    memset(&r, 0, sizeof r);
    rec_str(&r, "mode", "membw"); rec_str(&r, "format", "-"); rec_int(&r, "threads", threads); rec_str(&r, "isa", srt_isa_name(level));
    rec_num(&r, "mb", mb, 1); rec_int(&r, "passes", passes);
    rec_sig(&r, "gbs", b->gbs); rec_sig(&r, "gbs_pass", b->gbs_pass); rec_sig(&r, "gbs_best", b->gbs_best);
    rec_emit(&r, o->json);
}

/* Bandwidth for each pool (same order), from --bw or measured now; prints the membw lines. */
static int bandwidths(const opts *o, srt_pool **pools, int n, srt_isa level, double *gbs) {
    membw b;
    int i;
    if (o->n_bw) {
        for (i = 0; i < n; i++) gbs[i] = o->bw[o->n_bw == 1 ? 0 : i < o->n_bw ? i : o->n_bw - 1];
        return 1;
    }
    if (!membw_alloc(&b, o->mb, pools[0], level)) return 0;
    for (i = 0; i < n; i++) {
        bw_result r;
        if (!membw_measure(&b, pools[i], o->passes, &r)) { membw_free(&b); return 0; }
        gbs[i] = r.gbs;
        membw_record(o, srt_pool_threads(pools[i]), level, (double)b.blocks * BW_BLOCK_WORDS * 8 / 1e6, o->passes, &r);
    }
    membw_free(&b);
    return 1;
}

static int create_pools(const opts *o, int up_to, srt_pool **pools, int *n) {
    int counts[MAX_LIST], i;
    *n = thread_counts(o, up_to, counts);
    for (i = 0; i < *n; i++)
        if (make_pool(o, counts[i], NULL, &pools[i]) != SRT_OK) {
            fprintf(stderr, "srt-bench: %s\n", srt_last_error());
            while (i-- > 0) srt_pool_destroy(pools[i]);
            return 0;
        }
    return *n > 0;
}
static void destroy_pools(srt_pool **pools, int n) { int i; for (i = 0; i < n; i++) srt_pool_destroy(pools[i]); }

static int bench_membw(const opts *o) {
    srt_pool *pools[MAX_LIST];
    double gbs[MAX_LIST];
    int n, ok;
    if (!create_pools(o, 1, pools, &n)) return 1;
    ok = bandwidths(o, pools, n, bw_level(o->n_isa ? (srt_isa)o->isa[0] : SRT_ISA_AUTO), gbs);
    destroy_pools(pools, n);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- GEMV / GEMM */
/* Llama-3.2-1B: per layer q, o (2048x2048), k, v (512x2048), gate, up (8192x2048), down (2048x8192);
   16 layers; the tied 128256x2048 output matrix once per token. */
static const shape llama_1b_shapes[] = {{2048, 2048, 32}, {512, 2048, 32}, {8192, 2048, 32}, {2048, 8192, 16}, {128256, 2048, 1}};

static int is_int_format(int f) { return (f >= SRT_Q8 && f <= SRT_Q1) || f == SRT_FP4 || f == SRT_SB_Q8 || f == SRT_SB_Q4 || f == SRT_S4X1; }

/* Magnitude pruning for the sparse formats: per row the fraction `s` of smallest |w| becomes 0
   (s4x1: per block of 4 rows, whole columns by the block's sum |w|, the pattern it stores). */
static float kth_smallest(float *a, int64_t n, int64_t k) {   /* quickselect; reorders a */
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float piv = a[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) i++;
            while (a[j] > piv) j--;
            if (i <= j) { float t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
        }
        if (k <= j) hi = j; else if (k >= i) lo = i; else return a[k];
    }
    return a[k];
}
static void prune_magnitude(float *w, int64_t rows, int64_t cols, double s, int block4) {
    int64_t drop = (int64_t)(s * (double)cols + 0.5), r, k, i;
    float *score = (float *)malloc(sizeof(float) * (size_t)cols), *tmp = (float *)malloc(sizeof(float) * (size_t)cols);
    if (!score || !tmp || drop <= 0) { free(score); free(tmp); return; }
    for (r = 0; r < rows; r += block4 ? 4 : 1) {
        int64_t nr = block4 ? (rows - r < 4 ? rows - r : 4) : 1;
        float th;
        for (k = 0; k < cols; k++) { score[k] = 0.0f; for (i = 0; i < nr; i++) score[k] += fabsf(w[(r + i) * cols + k]); }
        memcpy(tmp, score, sizeof(float) * (size_t)cols);
        th = kth_smallest(tmp, cols, drop - 1);
        for (k = 0; k < cols; k++) if (score[k] <= th) for (i = 0; i < nr; i++) w[(r + i) * cols + k] = 0.0f;
    }
    free(score); free(tmp);
}
/* group for a K-wide matrix: float formats none, "row" = K rounded up to 32 */
static uint32_t group_for(int format, int group, int64_t k) {
    if (!is_int_format(format)) return 0;
    return group ? (uint32_t)group : (uint32_t)((k + 31) / 32 * 32);
}

/* `copies` distinct copies of one quantized M x K matrix, each part 64-byte aligned. */
typedef struct wset { int copies, n_parts; uint64_t bytes; void **mem; const void *(*parts)[4]; } wset;
static void wset_free(wset *w) {
    int c;
    for (c = 0; c < w->copies; c++) free64(w->mem[c]);
    free(w->mem); free((void *)w->parts);
    memset(w, 0, sizeof *w);
}
/* Copy `c` of a part, made different from the others on every page (hosts may merge identical
   pages, which would let all copies share the cache) without changing what kind of numbers it
   holds: integer codes get random bits (Q8 never -128), 16-bit floats and scales a random lowest
   mantissa bit where they are normal numbers. */
static void vary_copy(unsigned char *dst, const unsigned char *src, uint64_t size, int format, uint32_t kind, uint64_t c) {
    uint64_t r = 0x9E3779B97F4A7C15ull * (c + 1), i;
    if (kind == SRT_PART_BITMAP || kind == SRT_PART_OFFSETS || kind == SRT_PART_INDEX) {   /* sparse structure: as is */
        memcpy(dst, src, (size_t)size);
    } else if (kind == SRT_PART_VALUES && is_int_format(format)) {
        for (i = 0; i < size; i++) {
            unsigned char b;
            if (i % 8 == 0) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; }
            b = (unsigned char)(src[i] ^ (unsigned char)(r >> (i % 8 * 8)));
            dst[i] = format == SRT_Q8 && b == 0x80 ? 0x81 : b;
        }
    } else if (format == SRT_F32 && kind == SRT_PART_VALUES) {
        memcpy(dst, src, (size_t)size);
        for (i = 0; i + 4 <= size; i += 4) {   /* the lowest mantissa bit sits in the first byte (little-endian) */
            if (i % 256 == 0) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; }
            if (src[i + 3] & 0x7f) dst[i] = (unsigned char)(src[i] ^ ((r >> (i / 4 % 64)) & 1));
        }
    } else {   /* f16 / bf16 values, f16 scales */
        unsigned exp_mask = (format == SRT_BF16 || format == SRT_SB_BF16) && kind == SRT_PART_VALUES ? 0x7f80u : 0x7c00u;
        memcpy(dst, src, (size_t)size);
        for (i = 0; i + 2 <= size; i += 2) {
            unsigned v = (unsigned)src[i] | (unsigned)src[i + 1] << 8;
            if (i % 128 == 0) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; }
            if (v & exp_mask) dst[i] = (unsigned char)(src[i] ^ ((r >> (i / 2 % 64)) & 1));
        }
    }
}

/* Quantizes random weights once (a block of up to ~1M values: rows repeat beyond it, which does not
   change the speed of any kernel) and fills every copy with them. Sparse formats: the whole matrix,
   pruned by magnitude at `sparsity` (their layout is not a repeat of a block's). */
static int wset_make(wset *w, int format, uint32_t group, int64_t m, int64_t k, double set_mb, double sparsity) {
    srt_tensor_parts lay, blay;
    int sparse = srt_format_is_sparse((srt_format)format);
    int64_t brows = m <= 16 || sparse ? m : (1 << 20) / k / 16 * 16, i;
    uint64_t off[4], total = 0;
    float *src;
    void *bparts[4] = {NULL, NULL, NULL, NULL};
    int p, c, want;
    memset(w, 0, sizeof *w);
    if (brows < 16) brows = 16;
    if (brows > m) brows = m;
    src = (float *)malloc(sizeof(float) * (size_t)(brows * k));
    if (!src) goto oom;
    for (i = 0; i < brows * k; i++) src[i] = frand() * 0.1f;
    if (sparse) prune_magnitude(src, brows, k, sparsity, format == SRT_S4X1);
    if (srt_tensor_layout_data((srt_format)format, (uint64_t)m, (uint64_t)k, group, src, &lay) != SRT_OK ||
        srt_tensor_layout_data((srt_format)format, (uint64_t)brows, (uint64_t)k, group, src, &blay) != SRT_OK) {
        fprintf(stderr, "srt-bench: %s %lldx%lld group %u: %s\n", srt_format_name((srt_format)format), (long long)m, (long long)k, group, srt_last_error());
        free(src);
        return 0;
    }
    for (p = 0; p < lay.n_parts; p++) { off[p] = total; total += (lay.size[p] + 63) / 64 * 64; w->bytes += lay.size[p]; }
    w->n_parts = lay.n_parts;
    want = (int)(set_mb * 1e6 / (double)w->bytes + 0.999);
    if (want < 2) want = 2;
    if (want > 100000) want = 100000;
    /* the block */
    for (p = 0; p < blay.n_parts; p++) bparts[p] = malloc((size_t)blay.size[p]);
    for (p = 0; p < blay.n_parts; p++) if (!bparts[p]) goto oom;
    if (srt_quantize((srt_format)format, group, src, (uint64_t)brows, (uint64_t)k, bparts) != SRT_OK) {
        fprintf(stderr, "srt-bench: srt_quantize: %s\n", srt_last_error());
        goto fail;
    }
    free(src); src = NULL;
    w->mem = (void **)calloc((size_t)want, sizeof(void *));
    w->parts = (const void *(*)[4])calloc((size_t)want, sizeof *w->parts);
    if (!w->mem || !w->parts) goto oom;
    for (c = 0; c < want; c++) {
        unsigned char *mem = (unsigned char *)alloc64((size_t)total);
        if (!mem) {
            if (c < 1) goto oom;
            fprintf(stderr, "srt-bench: only %d copies of %lldx%lld fit in memory\n", c, (long long)m, (long long)k);
            break;
        }
        w->mem[c] = mem;
        w->copies = c + 1;
        for (p = 0; p < lay.n_parts; p++) {
            unsigned char *dst = mem + off[p];
            w->parts[c][p] = dst;
            if (c == 0) {   /* part p of the full matrix = part p of the block, repeated */
                uint64_t at, len;
                for (at = 0; at < lay.size[p]; at += len) {
                    len = lay.size[p] - at < blay.size[p] ? lay.size[p] - at : blay.size[p];
                    memcpy(dst + at, bparts[p], (size_t)len);
                }
            } else {
                vary_copy(dst, (const unsigned char *)w->parts[0][p], lay.size[p], format, lay.kind[p], (uint64_t)c);
            }
        }
    }
    for (p = 0; p < 4; p++) free(bparts[p]);
    return 1;
oom:
    fprintf(stderr, "srt-bench: out of memory for %lldx%lld %s (try a smaller --set-mb)\n", (long long)m, (long long)k, srt_format_name((srt_format)format));
fail:
    free(src);
    for (p = 0; p < 4; p++) free(bparts[p]);
    wset_free(w);
    return 0;
}

/* Median microseconds per srt_matmul call, cycling through the copies; runs at least 3 calls and
   until `seconds` have passed (at most 100000 calls); *mean gets the mean time. -1 on an error. */
static double time_matmul(srt_pool *pool, srt_isa isa, int format, uint32_t group, const wset *w, int64_t m, int64_t k,
                          int n, const float *x, float *y, double seconds, double *times, int *calls, double *mean) {
    double start, total = 0.0;
    int i = 0, c = 0;
    if (srt_matmul(pool, isa, (srt_format)format, group, w->parts[0], (uint64_t)m, (uint64_t)k, n, x, y) != SRT_OK) {   /* warm-up */
        fprintf(stderr, "srt-bench: srt_matmul: %s\n", srt_last_error());
        return -1.0;
    }
    start = now_us();
    while (i < 100000 && (i < 3 || now_us() - start < seconds * 1e6)) {
        double t0;
        c = c + 1 < w->copies ? c + 1 : 0;
        t0 = now_us();
        srt_matmul(pool, isa, (srt_format)format, group, w->parts[c], (uint64_t)m, (uint64_t)k, n, x, y);
        times[i] = now_us() - t0;
        total += times[i++];
    }
    *calls = i;
    *mean = total / i > 1e-3 ? total / i : 1e-3;
    start = median(times, i);
    return start > 1e-3 ? start : 1e-3;   /* a coarse clock must not make it 0 */
}

typedef struct acc { double bytes, us, flops; int matrices, shapes; } acc;

/* The ISA levels to run: --isa (levels the CPU lacks are skipped), else those of portable..best it has. */
static int isa_levels(const opts *o, srt_isa *out) {
    srt_isa best = srt_isa_best();
    int i, j, n = 0;
    if (!o->n_isa) { for (i = SRT_ISA_PORTABLE; i <= (int)best; i++) if (srt_isa_supported((srt_isa)i)) out[n++] = (srt_isa)i; return n; }
    for (i = 0; i < o->n_isa; i++) {
        srt_isa l = o->isa[i] == SRT_ISA_AUTO ? srt_isa_resolve(SRT_ISA_AUTO) : (srt_isa)o->isa[i];
        int dup = 0;
        if (!srt_isa_supported(l)) {   /* not lowered: a row labelled avxvnni must have run the AVX-VNNI kernels */
            fprintf(stderr, "srt-bench: %s is not available on this CPU (best: %s); skipped\n", srt_isa_name(l), srt_isa_name(best));
            continue;
        }
        for (j = 0; j < n; j++) dup |= out[j] == l;
        if (!dup) out[n++] = l;
    }
    return n;
}

static void matmul_record(rec *r, const char *mode, int format, uint32_t group, int per_row, int threads, srt_isa isa) {
    memset(r, 0, sizeof *r);
    rec_str(r, "mode", mode); rec_str(r, "format", srt_format_name((srt_format)format));
    rec_int(r, "group", group); if (per_row) rec_int(r, "per_row", 1);
    rec_int(r, "threads", threads); rec_str(r, "isa", srt_isa_name(isa));
}

static int bench_matmul(const opts *o, int gemm) {
    static const int default_formats[] = {SRT_F16, SRT_BF16, SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_Q1};
    const char *mode = gemm ? "gemm" : "gemv", *summary_mode = gemm ? "gemm-summary" : "gemv-summary";
    srt_pool *pools[MAX_LIST];
    srt_isa isas[SRT_ISA_COUNT];
    double bw[MAX_LIST], *times;
    const shape *shapes = o->n_shapes ? o->shapes : llama_1b_shapes;
    int n_shapes = o->n_shapes ? o->n_shapes : (int)(sizeof llama_1b_shapes / sizeof llama_1b_shapes[0]);
    int n_pools, n_isa, fi, vi, si, ti, ii, n = gemm ? o->n_list[0] : 1, rc = 0;
    int n_formats = o->n_format ? o->n_format : (int)(sizeof default_formats / sizeof default_formats[0]);
    int n_groups = o->n_group ? o->n_group : 1;
    float *x = NULL, *y = NULL;
    int64_t max_k = 0, max_m = 0;
    if (gemm && o->n_n > 1) { fprintf(stderr, "srt-bench: gemm takes one --n (lists are for gpu-gemm)\n"); return 2; }
    n_isa = isa_levels(o, isas);
    if (!n_isa) return 2;
    if (!create_pools(o, 0, pools, &n_pools)) return 1;
    if (!bandwidths(o, pools, n_pools, bw_level(SRT_ISA_AUTO), bw)) { destroy_pools(pools, n_pools); return 1; }
    for (si = 0; si < n_shapes; si++) {
        if (shapes[si].k > max_k) max_k = shapes[si].k;
        if (shapes[si].m > max_m) max_m = shapes[si].m;
    }
    x = (float *)malloc(sizeof(float) * (size_t)(max_k * n));
    y = (float *)malloc(sizeof(float) * (size_t)(max_m * n));
    times = (double *)malloc(sizeof(double) * 100000);
    if (!x || !y || !times) { fprintf(stderr, "srt-bench: out of memory\n"); rc = 1; goto done; }
    for (si = 0; si < max_k * n; si++) x[si] = frand();
    for (fi = 0; fi < n_formats; fi++) {
        int format = o->n_format ? o->format[fi] : default_formats[fi];
        int n_sp = srt_format_is_sparse((srt_format)format) ? o->n_sparsity : 1;
        for (vi = 0; vi < (is_int_format(format) ? n_groups : 1) * n_sp; vi++) {   /* group x sparsity */
            int group_spec = o->n_group ? o->group[vi / n_sp] : 64;
            double sparsity = o->sparsity[vi % n_sp];
            acc sum[MAX_LIST][SRT_ISA_COUNT];
            memset(sum, 0, sizeof sum);
            for (si = 0; si < n_shapes; si++) {
                const shape *s = &shapes[si];
                uint32_t group = group_for(format, group_spec, s->k);
                wset w;
                if (!wset_make(&w, format, group, s->m, s->k, o->set_mb, sparsity)) { rc = 1; continue; }
                for (ti = 0; ti < n_pools; ti++)
                    for (ii = 0; ii < n_isa; ii++) {
                        int calls = 0, threads = srt_pool_threads(pools[ti]);
                        double mean, us = time_matmul(pools[ti], isas[ii], format, group, &w, s->m, s->k, n, x, y, o->seconds, times, &calls, &mean);
                        double flops = 2.0 * (double)s->m * (double)s->k * n, gbs;
                        rec r;
                        if (us < 0) { rc = 1; continue; }
                        gbs = (double)w.bytes / us / 1e3;
                        matmul_record(&r, mode, format, group, is_int_format(format) && !group_spec, threads, isas[ii]);
                        if (srt_format_is_sparse((srt_format)format)) rec_num(&r, "sparsity", sparsity, 2);
                        rec_int(&r, "m", s->m); rec_int(&r, "k", s->k); rec_int(&r, "n", n);
                        rec_num(&r, "mb", (double)w.bytes / 1e6, 2); rec_int(&r, "copies", w.copies); rec_int(&r, "calls", calls);
                        rec_num(&r, "us", us, 1); rec_sig(&r, "gbs", gbs); rec_sig(&r, "gbs_mean", (double)w.bytes / mean / 1e3);
                        rec_sig(&r, "gflops", flops / us / 1e3);
                        rec_sig(&r, "bw_gbs", bw[ti]); rec_sig(&r, "roofline_fraction", gbs / bw[ti]);
                        rec_emit(&r, o->json);
                        sum[ti][ii].bytes += (double)w.bytes * s->count;
                        sum[ti][ii].us += us * s->count;
                        sum[ti][ii].flops += flops * s->count;
                        sum[ti][ii].matrices += s->count;
                        sum[ti][ii].shapes++;
                    }
                wset_free(&w);
            }
            if (n_shapes < 2) continue;
            for (ti = 0; ti < n_pools; ti++)
                for (ii = 0; ii < n_isa; ii++) {
                    const acc *a = &sum[ti][ii];
                    rec r;
                    if (a->shapes != n_shapes) continue;   /* a shape failed */
                    matmul_record(&r, summary_mode, format, is_int_format(format) ? (uint32_t)group_spec : 0, is_int_format(format) && !group_spec, srt_pool_threads(pools[ti]), isas[ii]);
                    if (srt_format_is_sparse((srt_format)format)) rec_num(&r, "sparsity", sparsity, 2);
                    rec_str(&r, "shapes", o->n_shapes ? "custom" : "llama-3.2-1b");
                    rec_int(&r, "n", n); rec_int(&r, "matrices", a->matrices);
                    rec_num(&r, "mb", a->bytes / 1e6, 2); rec_num(&r, "us", a->us, 1);
                    rec_sig(&r, "gbs", a->bytes / a->us / 1e3); rec_sig(&r, "gflops", a->flops / a->us / 1e3);
                    rec_sig(&r, "bw_gbs", bw[ti]); rec_sig(&r, "roofline_fraction", a->bytes / a->us / 1e3 / bw[ti]);
                    rec_emit(&r, o->json);
                }
        }
    }
done:
    free(x); free(y); free(times);
    destroy_pools(pools, n_pools);
    return rc;
}

/* ---------------------------------------------------------------- GPU (build/srt-bench-cuda) */
#ifdef SRT_BENCH_CUDA
/* The CUDA backend of --device; NULL (after printing why) when there is no usable device. */
static srt_backend *gpu_open(const opts *o) {
    srt_backend *b = srt_cuda_backend(o->device);
    double g;
    if (!b) { fprintf(stderr, "srt-bench: out of memory\n"); return NULL; }
    if (srt_cuda_bench_read(b, 1 << 20, 1, &g) != SRT_OK) {
        fprintf(stderr, "srt-bench: no usable CUDA device: %s\nsrt-bench: %s\n", srt_cuda_last_error(b), srt_cuda_info(b));
        srt_backend_free(b);
        return NULL;
    }
    return b;
}
static void gpu_record(rec *r, const char *mode, const char *format, srt_backend *b) {
    memset(r, 0, sizeof *r);
    rec_str(r, "mode", mode); rec_str(r, "format", format); rec_str(r, "threads", "-"); rec_str(r, "isa", "cuda");
    rec_str(r, "device", strncmp(b->name, "cuda: ", 6) ? b->name : b->name + 6);
}
/* Device read bandwidth: --bw, else srt_cuda_bench_read of --mb (default 4096) MB, printed as a
   gpu-membw line. 0 on an error. */
static double gpu_bandwidth(const opts *o, srt_backend *b) {
    double mb = o->mb_set ? o->mb : 4096, gbs = 0.0;
    int iters = o->iters ? o->iters : 50;
    rec r;
    if (o->n_bw) return o->bw[0];
    if (srt_cuda_bench_read(b, (uint64_t)(mb * 1e6), iters, &gbs) != SRT_OK) {
        fprintf(stderr, "srt-bench: gpu-membw: %s\n", srt_cuda_last_error(b));
        return 0.0;
    }
    gpu_record(&r, "gpu-membw", "-", b);
    rec_num(&r, "mb", mb, 1); rec_int(&r, "iters", iters); rec_sig(&r, "gbs", gbs);
    rec_emit(&r, o->json);
    return gbs;
}
static int bench_gpu_membw(const opts *o) {
    srt_backend *b = gpu_open(o);
    rec r;
    double gbs;
    if (!b) return 1;
    gpu_record(&r, "gpu", "-", b); rec_str(&r, "info", srt_cuda_info(b)); rec_emit(&r, o->json);
    gbs = gpu_bandwidth(o, b);
    srt_backend_free(b);
    return gbs > 0.0 ? 0 : 1;
}

/* One M x K matrix for the GPU: random weights (rng reset to `seed`, so every format of a shape gets
   the same ones), pruned by magnitude at `sparsity` when > 0, in `format`; with `f16` not NULL the
   same pruned weights in F16 there too (the cuBLAS baseline of TCSL). */
typedef struct gmat { void *mem; const void *parts[4]; uint64_t bytes; } gmat;
static int gpu_pack_src(gmat *g, int format, uint32_t group, int64_t m, int64_t k, const float *src);
static int gpu_pack(gmat *g, int format, uint32_t group, int64_t m, int64_t k, double sparsity, uint32_t seed, gmat *f16) {
    float *src = (float *)malloc(sizeof(float) * (size_t)(m * k));
    int64_t i;
    int ok;
    memset(g, 0, sizeof *g);
    if (f16) memset(f16, 0, sizeof *f16);
    if (!src) { fprintf(stderr, "srt-bench: out of memory for %lldx%lld\n", (long long)m, (long long)k); return 0; }
    rng = seed;
    for (i = 0; i < m * k; i++) src[i] = frand() * 0.1f;
    if (sparsity > 0.0) prune_magnitude(src, m, k, sparsity, 0);
    ok = gpu_pack_src(g, format, group, m, k, src) && (!f16 || gpu_pack_src(f16, SRT_F16, 0, m, k, src));
    if (!ok) { free64(g->mem); g->mem = NULL; }
    free(src);
    return ok;
}
static int gpu_pack_src(gmat *g, int format, uint32_t group, int64_t m, int64_t k, const float *src) {
    srt_tensor_parts lay;
    uint64_t total = 0, off = 0;
    int p, ok = 0;
    memset(g, 0, sizeof *g);
    if (srt_tensor_layout_data((srt_format)format, (uint64_t)m, (uint64_t)k, group, src, &lay) == SRT_OK) {
        for (p = 0; p < lay.n_parts; p++) total += (lay.size[p] + 63) / 64 * 64;
        if ((g->mem = alloc64((size_t)total)) != NULL) {
            for (p = 0; p < lay.n_parts; p++) { g->parts[p] = (unsigned char *)g->mem + off; off += (lay.size[p] + 63) / 64 * 64; g->bytes += lay.size[p]; }
            ok = srt_quantize((srt_format)format, group, src, (uint64_t)m, (uint64_t)k, (void *const *)g->parts) == SRT_OK;
        }
    }
    if (!ok) fprintf(stderr, "srt-bench: %s %lldx%lld: %s\n", srt_format_name((srt_format)format), (long long)m, (long long)k, g->mem ? srt_last_error() : "out of memory");
    if (!ok) { free64(g->mem); g->mem = NULL; }
    return ok;
}

/* ms per call (srt_cuda_bench_matmul, weights on the device): --iters calls, else 3 to calibrate and
   then enough for ~0.2 s (10..10000). -1 on an error. */
static double gpu_time(const opts *o, srt_backend *b, int format, uint32_t group, const gmat *g, int64_t m, int64_t k, int n,
                       srt_cuda_path path, int *iters) {
    double ms = 0.0;
    int it = o->iters ? o->iters : 3, pass;
    for (pass = 0; pass < (o->iters ? 1 : 2); pass++) {
        if (pass) it = ms > 0.02 ? (int)(200.0 / ms) : 10000;
        if (it < 10 && pass) it = 10;
        if (it > 10000) it = 10000;
        if (srt_cuda_bench_matmul(b, (srt_format)format, group, g->parts, (uint64_t)m, (uint64_t)k, n, path, it, &ms) != SRT_OK) {
            fprintf(stderr, "srt-bench: %s %lldx%lld n %d: %s\n", srt_format_name((srt_format)format), (long long)m, (long long)k, n, srt_cuda_last_error(b));
            return -1.0;
        }
    }
    *iters = it;
    return ms > 1e-6 ? ms : 1e-6;
}

/* gpu-gemv / gpu-gemm: per format x sparsity (sparse formats) x shape x n. TCSL lines carry the
   cuBLAS f16 baseline on the same pruned weights (SRT_CUDA_PATH_CUBLAS_F16) and the speedup. */
static int bench_gpu_matmul(const opts *o, int gemm) {
    static const int def_formats[] = {SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_F16, SRT_TCSL};
    static const shape llama3_8b[] = {{4096, 4096, 2}, {1024, 4096, 2}, {14336, 4096, 2}, {4096, 14336, 1}};   /* q o, k v, gate up, down */
    static const int def_n[] = {8, 16, 32, 64};
    static const double def_sp[] = {0.6, 0.7, 0.8, 0.9};
    static const char *const path_names[] = {"auto", "gemv", "gemm", "cublas", "cublas-f16"};
    const char *mode = gemm ? "gpu-gemm" : "gpu-gemv";
    const shape *shapes = o->n_shapes ? o->shapes : gemm ? llama3_8b : llama_1b_shapes;
    int n_shapes = o->n_shapes ? o->n_shapes : gemm ? 4 : (int)(sizeof llama_1b_shapes / sizeof llama_1b_shapes[0]);
    int n_formats = o->n_format ? o->n_format : (int)(sizeof def_formats / sizeof def_formats[0]);
    int n_ns = !gemm ? 1 : o->n_n ? o->n_n : 4, n_sk = o->n_split_k ? o->n_split_k : 1, fi, vi, si, ni, rc = 0;
    uint32_t seed = rng;
    srt_backend *b;
    double bw;
    rec r;
    if (n_ns * n_sk > MAX_LIST) { fprintf(stderr, "srt-bench: at most %d --n x --split-k values\n", MAX_LIST); return 2; }   /* the summaries' slots */
    if (!(b = gpu_open(o))) return 1;
    gpu_record(&r, "gpu", "-", b); rec_str(&r, "info", srt_cuda_info(b)); rec_emit(&r, o->json);
    if ((bw = gpu_bandwidth(o, b)) <= 0.0) { srt_backend_free(b); return 1; }
    for (fi = 0; fi < n_formats; fi++) {
        int format = o->n_format ? o->format[fi] : def_formats[fi], sparse = srt_format_is_sparse((srt_format)format);
        int n_sp = !sparse ? 1 : o->sparsity_set ? o->n_sparsity : 4;
        const int n_sk_f = format == SRT_TCSL ? n_sk : 1;   /* --split-k applies to tcsl only */
        for (vi = 0; vi < n_sp; vi++) {
            double sp = !sparse ? 0.0 : o->sparsity_set ? o->sparsity[vi] : def_sp[vi];
            acc sum[MAX_LIST], base[MAX_LIST];   /* per n: the format's and the cuBLAS baseline's totals */
            memset(sum, 0, sizeof sum); memset(base, 0, sizeof base);
            for (si = 0; si < n_shapes; si++) {
                const shape *s = &shapes[si];
                uint32_t group = group_for(format, o->n_group ? o->group[0] : 64, s->k);
                gmat w, f16;
                int tcsl = format == SRT_TCSL;
                if (!gpu_pack(&w, format, group, s->m, s->k, sp, seed, tcsl ? &f16 : NULL)) { rc = 1; continue; }
                for (ni = 0; ni < n_ns * n_sk_f; ni++) {   /* per --split-k value (tcsl), each n */
                    int n = !gemm ? 1 : o->n_n ? o->n_list[ni % n_ns] : def_n[ni % n_ns], iters, biters = 0;
                    double ms, bms = 0.0, flops, gbs;
                    if (o->n_split_k && tcsl) srt_cuda_set_split_k(b, o->split_k[ni / n_ns]);
                    ms = gpu_time(o, b, format, group, &w, s->m, s->k, n, (srt_cuda_path)o->path, &iters);
                    flops = 2.0 * (double)s->m * (double)s->k * n; gbs = (double)w.bytes / ms / 1e6;
                    if (ms > 0 && tcsl && (bms = gpu_time(o, b, SRT_F16, 0, &f16, s->m, s->k, n, SRT_CUDA_PATH_CUBLAS_F16, &biters)) < 0) ms = -1.0;
                    if (ms < 0) { rc = 1; continue; }
                    gpu_record(&r, mode, srt_format_name((srt_format)format), b);
                    if (is_int_format(format)) rec_int(&r, "group", group);
                    if (sparse) rec_num(&r, "sparsity", sp, 2);
                    rec_str(&r, "path", path_names[o->path]);
                    if (o->n_split_k && tcsl) rec_int(&r, "split_k", o->split_k[ni / n_ns]);
                    rec_int(&r, "m", s->m); rec_int(&r, "k", s->k); rec_int(&r, "n", n);
                    rec_num(&r, "mb", (double)w.bytes / 1e6, 2); rec_int(&r, "iters", iters);
                    rec_sig(&r, "ms", ms); rec_sig(&r, "gbs", gbs); rec_sig(&r, "tflops", flops / ms / 1e9);
                    rec_sig(&r, "bw_gbs", bw); rec_sig(&r, "roofline_fraction", gbs / bw);
                    if (tcsl) { rec_sig(&r, "cublas_ms", bms); rec_sig(&r, "cublas_tflops", flops / bms / 1e9); rec_sig(&r, "speedup", bms / ms); }
                    rec_emit(&r, o->json);
                    sum[ni].bytes += (double)w.bytes * s->count; sum[ni].us += ms * s->count; sum[ni].flops += flops * s->count;
                    sum[ni].matrices += s->count; sum[ni].shapes++;
                    base[ni].us += bms * s->count;
                }
                free64(w.mem);
                if (tcsl) free64(f16.mem);
            }
            for (ni = 0; n_shapes > 1 && ni < n_ns * n_sk_f; ni++) {   /* one token's (or batch's) worth of the shapes, weighed by count */
                const acc *a = &sum[ni];
                if (a->shapes != n_shapes) continue;
                gpu_record(&r, gemm ? "gpu-gemm-summary" : "gpu-gemv-summary", srt_format_name((srt_format)format), b);
                if (sparse) rec_num(&r, "sparsity", sp, 2);
                rec_str(&r, "shapes", o->n_shapes ? "custom" : gemm ? "llama-3-8b" : "llama-3.2-1b");
                if (o->n_split_k && format == SRT_TCSL) rec_int(&r, "split_k", o->split_k[ni / n_ns]);
                rec_int(&r, "n", !gemm ? 1 : o->n_n ? o->n_list[ni % n_ns] : def_n[ni % n_ns]); rec_int(&r, "matrices", a->matrices);
                rec_num(&r, "mb", a->bytes / 1e6, 2); rec_sig(&r, "ms", a->us);
                rec_sig(&r, "gbs", a->bytes / a->us / 1e6); rec_sig(&r, "tflops", a->flops / a->us / 1e9);
                rec_sig(&r, "bw_gbs", bw); rec_sig(&r, "roofline_fraction", a->bytes / a->us / 1e6 / bw);
                if (format == SRT_TCSL) { rec_sig(&r, "cublas_ms", base[ni].us); rec_sig(&r, "speedup", base[ni].us / a->us); }
                rec_emit(&r, o->json);
            }
        }
    }
    srt_backend_free(b);
    return rc;
}
#else
static double gpu_bandwidth(const opts *o, srt_backend *b) { (void)o; (void)b; return 0.0; }
#endif

/* ---------------------------------------------------------------- random model */
/* sparsity: the fraction pruned by magnitude (sparse formats; s4x1 in 4x1 blocks) */
static int add_tensor(srt_writer *w, const char *name, int rows, int cols, srt_format f, int group, int norm, double sparsity) {
    float *buf = (float *)malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    size_t i;
    srt_status st;
    if (!buf) return 0;
    for (i = 0; i < (size_t)rows * (size_t)cols; i++) buf[i] = norm ? 1.0f + 0.1f * frand() : frand() * 0.1f;
    if (sparsity > 0 && !norm) prune_magnitude(buf, rows, cols, sparsity, f == SRT_S4X1);
    st = norm ? srt_writer_add_tensor(w, name, SRT_F32, 0, 1, (uint64_t)cols, buf)
              : srt_writer_add_tensor(w, name, f, group_for(f, group, cols), (uint64_t)rows, (uint64_t)cols, buf);
    free(buf);
    if (st != SRT_OK) fprintf(stderr, "srt-bench: %s: %s\n", name, srt_last_error());
    return st == SRT_OK;
}

static int make_model(const char *path, const opts *o) {
    srt_writer *w;
    srt_format format = o->n_format ? (srt_format)o->format[0] : SRT_Q8;
    int l, ok = 1, kv = o->embd / o->heads * o->kv_heads, group = o->n_group ? o->group[0] : 64, hd = o->embd / o->heads;
    const char *a = o->arch;
    const int gemma = !strcmp(a, "gemma3"), oss = !strcmp(a, "gpt-oss"), moe = !strcmp(a, "qwen3moe") || oss, sparse = srt_format_is_sparse(format);
    /* a sparse format: the layers' matrices pruned (--sparsity), the embedding in the dense twin, as srt-pack keeps it */
    const srt_format emb = !sparse ? format : format == SRT_SB_BF16 ? SRT_BF16 : format == SRT_TCSL ? SRT_F16 : format == SRT_SB_Q4 ? SRT_Q4 : SRT_Q8;
    const double sp = sparse ? o->sparsity[0] : 0.0;
    char nm[64], key[96];
    if (moe && o->experts_used > o->experts) { fprintf(stderr, "srt-bench: --experts-used %d exceeds --experts %d\n", o->experts_used, o->experts); return 2; }
    if (srt_writer_open(path, &w) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
#define KEY(s) (snprintf(key, sizeof key, "%s." s, a), key)
    srt_writer_meta_str(w, "general.architecture", a);
    srt_writer_meta_str(w, "general.name", "srt-bench random");
    srt_writer_meta_u32(w, KEY("context_length"), gemma ? 32768 : 2048);
    srt_writer_meta_u32(w, KEY("embedding_length"), (uint32_t)o->embd);
    srt_writer_meta_u32(w, KEY("feed_forward_length"), (uint32_t)o->ff);
    srt_writer_meta_u32(w, KEY("block_count"), (uint32_t)o->layers);
    srt_writer_meta_u32(w, KEY("attention.head_count"), (uint32_t)o->heads);
    srt_writer_meta_u32(w, KEY("attention.head_count_kv"), (uint32_t)o->kv_heads);
    srt_writer_meta_f32(w, KEY("attention.layer_norm_rms_epsilon"), gemma ? 1e-6f : 1e-5f);
    if (gemma) {   /* Gemma 3's settings (rope bases 1e6 / 1e4, the scale of query_pre_attn_scalar = head_dim) */
        srt_writer_meta_f32(w, KEY("rope.freq_base"), 1e6f);
        srt_writer_meta_f32(w, KEY("attention.scale"), 1.0f / sqrtf((float)hd));
        srt_writer_meta_u32(w, KEY("attention.sliding_window"), (uint32_t)o->window);
        srt_writer_meta_u32(w, KEY("attention.sliding_window_pattern"), (uint32_t)o->swa_pattern);
    }
    if (oss) {   /* gpt-oss: YaRN (factor 32 over 4096, base 150000), every even layer sliding over --window */
        srt_writer_meta_f32(w, KEY("rope.freq_base"), 150000.0f);
        srt_writer_meta_str(w, KEY("rope.scaling.type"), "yarn");
        srt_writer_meta_f32(w, KEY("rope.scaling.factor"), 32.0f);
        srt_writer_meta_u32(w, KEY("rope.scaling.original_context_length"), 4096);
        srt_writer_meta_u32(w, KEY("attention.sliding_window"), (uint32_t)o->window);
    }
    if (moe) {   /* Qwen3-MoE, gpt-oss: every layer's FFN o->experts_used of o->experts experts of width --ff */
        if (!oss) srt_writer_meta_f32(w, KEY("rope.freq_base"), 1e6f);
        srt_writer_meta_u32(w, KEY("expert_count"), (uint32_t)o->experts);
        srt_writer_meta_u32(w, KEY("expert_used_count"), (uint32_t)o->experts_used);
        srt_writer_meta_u32(w, KEY("expert_feed_forward_length"), (uint32_t)o->ff);
    }
#undef KEY
    {   /* a SentencePiece-style vocab: <unk> <s> </s>, 256 byte tokens, then filler pieces */
        char **tokens = (char **)malloc(sizeof(char *) * (size_t)o->vocab);
        float *scores = (float *)malloc(sizeof(float) * (size_t)o->vocab);
        int32_t *types = (int32_t *)malloc(sizeof(int32_t) * (size_t)o->vocab);
        int i;
        if (!tokens || !scores || !types || o->vocab < 300) { fprintf(stderr, "srt-bench: vocab too small or out of memory\n"); srt_writer_abort(w); return 1; }
        for (i = 0; i < o->vocab; i++) {
            tokens[i] = (char *)malloc(16);
            if (i < 3) snprintf(tokens[i], 16, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
            else if (i < 259) snprintf(tokens[i], 16, "<0x%02X>", i - 3);
            else snprintf(tokens[i], 16, "\xe2\x96\x81w%d", i);
            types[i] = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
            scores[i] = i < 259 ? 0.0f : (float)-i;
        }
        srt_writer_meta_str(w, "tokenizer.ggml.model", "llama");
        srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, (const void *)tokens, (uint32_t)o->vocab);
        srt_writer_meta_arr(w, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, (uint32_t)o->vocab);
        srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, (uint32_t)o->vocab);
        srt_writer_meta_u32(w, "tokenizer.ggml.bos_token_id", 1);
        srt_writer_meta_u32(w, "tokenizer.ggml.eos_token_id", 2);
        srt_writer_meta_u32(w, "tokenizer.ggml.unknown_token_id", 0);
        for (i = 0; i < o->vocab; i++) free(tokens[i]);
        free(tokens); free(scores); free(types);
    }
    ok = ok && add_tensor(w, "token_embd.weight", o->vocab, o->embd, emb, group, 0, 0.0);
    ok = ok && add_tensor(w, "output_norm.weight", 1, o->embd, format, group, 1, 0.0);
    if (o->untied) ok = ok && add_tensor(w, "output.weight", o->vocab, o->embd, emb, group, 0, 0.0);
    for (l = 0; ok && l < o->layers; l++) {
#define L(s, r, c, n) (snprintf(nm, sizeof nm, "blk.%d." s, l), add_tensor(w, nm, r, c, format, group, n, sp))
        ok = L("attn_norm.weight", 1, o->embd, 1) && L("ffn_norm.weight", 1, o->embd, 1)
          && L("attn_q.weight", o->embd, o->embd, 0) && L("attn_k.weight", kv, o->embd, 0) && L("attn_v.weight", kv, o->embd, 0)
          && L("attn_output.weight", o->embd, o->embd, 0);
        if (moe) {   /* the router (f32, as srt-pack keeps it) and each expert */
            int x;
            ok = ok && (snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.weight", l), add_tensor(w, nm, o->experts, o->embd, SRT_F32, 0, 0, 0.0));
            for (x = 0; ok && x < o->experts; x++) {
#define X(kind, r, c) (snprintf(nm, sizeof nm, "blk.%d.ffn_" kind ".%d.weight", l, x), add_tensor(w, nm, r, c, format, group, 0, sp))
#define XB(kind, c) (snprintf(nm, sizeof nm, "blk.%d.ffn_" kind ".%d.bias", l, x), add_tensor(w, nm, 1, c, format, group, 1, 0.0))
                ok = X("gate", o->ff, o->embd) && X("up", o->ff, o->embd) && X("down", o->embd, o->ff);
                if (oss) ok = ok && XB("gate", o->ff) && XB("up", o->ff) && XB("down", o->embd);
#undef X
#undef XB
            }
            if (oss)   /* the router's and the attention output's biases, the sinks, q/k/v biases */
                ok = ok && L("ffn_gate_inp.bias", 1, o->experts, 1) && L("attn_output.bias", 1, o->embd, 1) && L("attn_sinks.weight", 1, o->heads, 1) &&
                     L("attn_q.bias", 1, o->embd, 1) && L("attn_k.bias", 1, kv, 1) && L("attn_v.bias", 1, kv, 1);
        } else ok = ok && L("ffn_gate.weight", o->ff, o->embd, 0) && L("ffn_up.weight", o->ff, o->embd, 0) && L("ffn_down.weight", o->embd, o->ff, 0);
        if (gemma || (moe && !oss)) ok = ok && L("attn_q_norm.weight", 1, hd, 1) && L("attn_k_norm.weight", 1, hd, 1);
        if (gemma) ok = ok && L("post_attention_norm.weight", 1, o->embd, 1) && L("post_ffw_norm.weight", 1, o->embd, 1);
#undef L
    }
    if (!ok) { srt_writer_abort(w); return 1; }
    if (srt_writer_finish(w) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    printf("wrote %s\n", path);
    return 0;
}

/* ---------------------------------------------------------------- end to end */
static uint64_t rd_le(const unsigned char *p, int n) { uint64_t v = 0; while (n-- > 0) v = v << 8 | p[n]; return v; }

/* The format holding most of the bytes of the layers' matrices (blk.*), from the .srt tensor
   directory (formats/SRT.md); -1 if unknown. (The bytes a token reads: srt_model_info.token_bytes.) */
static int matrix_format(const char *path) {
    FILE *fp = fopen(path, "rb");
    unsigned char h[128], *d = NULL;
    uint64_t dir_size, at = 0, i, by_format[SRT_FORMAT_COUNT] = {0}, best = 0;
    uint32_t n_tensors;
    int f, format = -1;
    if (!fp) return -1;
    if (fread(h, 1, sizeof h, fp) != sizeof h || memcmp(h, "SRTM", 4) != 0) goto done;
    dir_size = rd_le(h + 40, 8);
    n_tensors = (uint32_t)rd_le(h + 52, 4);
    if (dir_size > (1u << 30) || fseek(fp, -(long)dir_size, SEEK_END) != 0) goto done;
    if (!(d = (unsigned char *)malloc((size_t)dir_size + 1)) || fread(d, 1, (size_t)dir_size, fp) != dir_size) goto done;
    for (i = 0; i < n_tensors; i++) {
        uint64_t name_len, rows, bytes = 0, p, n_parts;
        const unsigned char *name;
        if (at + 4 > dir_size) goto done;
        name_len = rd_le(d + at, 4); name = d + at + 4; at += 4 + name_len;
        if (at + 28 > dir_size) goto done;
        f = (int)rd_le(d + at, 4);
        rows = rd_le(d + at + 8, 8);
        n_parts = rd_le(d + at + 24, 4);
        at += 28;
        if (n_parts > 4 || at + n_parts * 24 > dir_size) goto done;
        for (p = 0; p < n_parts; p++) bytes += rd_le(d + at + p * 24 + 12, 8);
        at += n_parts * 24;
        if (name_len > 4 && !memcmp(name, "blk.", 4) && rows > 1 && f >= 0 && f < SRT_FORMAT_COUNT) by_format[f] += bytes;
    }
    for (f = 0; f < SRT_FORMAT_COUNT; f++) if (by_format[f] > best) { best = by_format[f]; format = f; }
done:
    free(d);
    fclose(fp);
    return format;
}

typedef struct e2e_result {
    double prefill_tok_s, decode_tok_s, decode_tok_s_median, ttft_ms, rss_mb;
    double state_save_ms, state_load_ms;   /* --state */
    size_t state_bytes;
    int threads, kernels, graph;
    srt_isa isa;
    srt_load load;
} e2e_result;

/* --state: the prompt's session state saved into memory and loaded into a second session, timed;
   the loaded session must give the same logits (else 0). */
static int state_round_trip(srt_session *s, srt_session *s2, unsigned char **buf, size_t *size, double *save_ms, double *load_ms, int n_vocab) {
    double t0, t1;
    const float *a, *b;
    if (!*buf && (srt_session_state_save(s, NULL, 0, size) != SRT_OK || !(*buf = (unsigned char *)malloc(*size)))) return 0;
    t0 = now_us();
    if (srt_session_state_save(s, *buf, *size, size) != SRT_OK) return 0;
    t1 = now_us();
    if (srt_session_state_load(s2, *buf, *size) != SRT_OK) return 0;
    *save_ms = (t1 - t0) / 1e3;
    *load_ms = (now_us() - t1) / 1e3;
    a = srt_session_logits(s); b = srt_session_logits(s2);
    if (!a || !b || memcmp(a, b, sizeof(float) * (size_t)n_vocab) != 0) { fprintf(stderr, "srt-bench: the loaded state gives other logits\n"); return 0; }
    return 1;
}

/* One model load at one thread count and ISA: a warm-up, then `runs` x (prompt, decode). */
static int e2e_run(const opts *o, const char *path, srt_pool *pool, srt_isa isa, srt_load load, srt_model_info *info, e2e_result *res) {
    srt_model *m;
    srt_session *s, *s2 = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    int32_t *prompt, tok;
    double pre[64], dec[64], ttft[64], step[64], save[64], load_[64], *token_us;
    unsigned char *state = NULL;
    size_t state_size = 0;
    int r, i, runs = o->runs, P = o->prompt_tokens, T = o->tokens;
    memset(&md, 0, sizeof md);
    md.pool = pool;
    md.isa = isa;
    md.load = load;
    md.backend = o->gpu;
    if (srt_model_load(path, &md, &m) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 0; }
    srt_model_get_info(m, info);
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = P + T + 8;
    sd.n_batch = o->batch;
    sd.kv_sparsity_k = o->kv_sparsity[0];
    sd.kv_sparsity_v = o->kv_sparsity[1];
    sd.kv_type = o->kv;
    sd.swa_full = o->swa_full;
    if (srt_session_create(m, &sd, &s) != SRT_OK || (o->state && srt_session_create(m, &sd, &s2) != SRT_OK)) {
        fprintf(stderr, "srt-bench: %s\n", srt_last_error()); srt_session_destroy(s); srt_model_free(m); return 0;
    }
    prompt = (int32_t *)malloc(sizeof(int32_t) * (size_t)P);
    token_us = (double *)malloc(sizeof(double) * (size_t)T);
    if (!prompt || !token_us) { free(prompt); free(token_us); srt_session_destroy(s); srt_model_free(m); return 0; }
    for (i = 0; i < P; i++) prompt[i] = (int32_t)(rand_u32() % (uint32_t)info->n_vocab);
    /* warm-up: every weight page mapped and in cache as far as it fits */
    if (srt_session_feed(s, prompt, P < 4 ? P : 4) != SRT_OK || srt_session_next(s, &tok) != SRT_OK || srt_session_next(s, &tok) != SRT_OK || !srt_session_logits(s)) {
        fprintf(stderr, "srt-bench: %s\n", srt_last_error());
        free(prompt); free(token_us); srt_session_destroy(s); srt_model_free(m);
        return 0;
    }
    for (r = 0; r < runs; r++) {
        double t0, t1, t2, t3;
        srt_session_reset(s);
        t0 = now_us();
        if (srt_session_feed(s, prompt, P) != SRT_OK) break;
        t1 = now_us();
        if (o->state) {   /* outside the timed steps: t0 moves on by what it took */
            if (!state_round_trip(s, s2, &state, &state_size, &save[r], &load_[r], info->n_vocab)) break;
            t0 += now_us() - t1;
            t1 = now_us();
        }
        if (srt_session_next(s, &tok) != SRT_OK) break;   /* the first token: sampled from the prompt's logits */
        t2 = now_us();
        for (i = 0, t3 = t2; i < T; i++) {   /* each call evaluates the previous token, then samples */
            double t = t3;
            if (srt_session_next(s, &tok) != SRT_OK) break;
            t3 = now_us();
            token_us[i] = t3 - t;
        }
        if (i < T) break;
        pre[r] = P / ((t1 - t0) / 1e6);
        ttft[r] = (t2 - t0) / 1e3;
        dec[r] = T / ((t3 - t2) / 1e6);
        step[r] = 1e6 / median(token_us, T);
    }
    free(prompt);
    free(token_us);
    free(state);
    srt_session_destroy(s);
    srt_session_destroy(s2);
    srt_model_free(m);
    if (r < runs) { fprintf(stderr, "srt-bench: e2e run %d stopped: %s\n", r + 1, srt_last_error()); return 0; }
    if (o->state) { res->state_save_ms = median(save, runs); res->state_load_ms = median(load_, runs); res->state_bytes = state_size; }
    res->prefill_tok_s = median(pre, runs);
    res->decode_tok_s = median(dec, runs);
    res->decode_tok_s_median = median(step, runs);
    res->ttft_ms = median(ttft, runs);
    res->rss_mb = peak_rss_mb();
    res->threads = srt_pool_threads(pool);
    res->isa = srt_isa_resolve(isa);
    res->load = info->load;
    res->kernels = res->graph = 0;
#ifdef SRT_BENCH_CUDA
    if (o->gpu) {   /* of the last decode step */
        res->kernels = srt_cuda_last_step_kernels(o->gpu);
        res->graph = srt_cuda_last_step_graph(o->gpu);
    }
#endif
    return 1;
}

static int bench_e2e(const opts *o, const char *path) {
    srt_pool *pools[MAX_LIST];
    srt_isa isas[SRT_ISA_COUNT];
    e2e_result res[MAX_LIST][SRT_ISA_COUNT][3];
    double bw[MAX_LIST];
    srt_model_info info;
    int n_pools, n_isa, ti, ii, li, ok = 1, n_load = o->n_load ? o->n_load : 1;
    srt_load loads[3] = { SRT_LOAD_AUTO, SRT_LOAD_AUTO, SRT_LOAD_AUTO };
    uint64_t per_token = 0, kv_per_token = 0;
    const int format = matrix_format(path);
    const char *base = strrchr(path, '/'), *base2 = strrchr(path, '\\');
    if (base2 && (!base || base2 > base)) base = base2;
    if (o->prompt_tokens < 1 || o->tokens < 1) { fprintf(stderr, "srt-bench: --prompt-tokens and --tokens must be >= 1\n"); return 2; }
    if (o->n_isa && !o->gpu) { n_isa = isa_levels(o, isas); if (!n_isa) return 2; }
    else { isas[0] = SRT_ISA_AUTO; n_isa = 1; }
    for (li = 0; li < o->n_load; li++) loads[li] = (srt_load)o->load[li];
    if (!create_pools(o, 0, pools, &n_pools)) return 1;
    memset(&info, 0, sizeof info);
    /* every run first (the peak RSS is the model's, not the bandwidth buffer's), then bandwidth */
    for (ti = 0; ok && ti < n_pools; ti++)
        for (ii = 0; ok && ii < n_isa; ii++)
            for (li = 0; ok && li < n_load; li++) ok = e2e_run(o, path, pools[ti], isas[ii], loads[li], &info, &res[ti][ii][li]);
    if (ok && o->gpu) { bw[0] = gpu_bandwidth(o, o->gpu); ok = bw[0] > 0.0; for (ti = 1; ti < n_pools; ti++) bw[ti] = bw[0]; }
    else if (ok) ok = bandwidths(o, pools, n_pools, bw_level(SRT_ISA_AUTO), bw);
    per_token = info.token_bytes;
    if (ok) {   /* the KV cache read by the middle decode step: the prompt's rows (compact if pruned), then dense ones */
        uint64_t hd = (uint64_t)info.head_dim, bm = (hd + 15) / 16 * 2, c, prompt_row = 0;
        uint64_t row = o->kv == SRT_KV_F32 ? 4 * hd : o->kv == SRT_KV_Q8 ? hd + (hd + 31) / 32 * 2 : 2 * hd;
        for (c = 0; c < 2; c++) {
            uint64_t drop = (uint64_t)(o->kv_sparsity[c] * (float)hd + 0.5f);
            prompt_row += o->kv_sparsity[c] > 0.0f ? bm + 2 * (hd - drop) : row;
        }
        kv_per_token = (uint64_t)info.n_layer * (uint64_t)info.n_head_kv *
                       ((uint64_t)o->prompt_tokens * prompt_row + (uint64_t)(o->tokens / 2 + 1) * 2 * row);
        {   /* sliding layers read their window only (counted as dense rows) */
            const uint64_t all = (uint64_t)o->prompt_tokens * prompt_row + (uint64_t)(o->tokens / 2 + 1) * 2 * row, win = (uint64_t)info.swa_window * 2 * row;
            if (info.n_swa_layers && win < all) kv_per_token -= (uint64_t)info.n_swa_layers * (uint64_t)info.n_head_kv * (all - win);
        }
    }
    for (ti = 0; ok && ti < n_pools; ti++)
        for (ii = 0; ii < n_isa * n_load; ii++) {
            const e2e_result *e = &res[ti][ii / n_load][ii % n_load];
            rec r;
            memset(&r, 0, sizeof r);
            rec_str(&r, "mode", "e2e"); rec_str(&r, "format", srt_format_name(format >= 0 ? (srt_format)format : info.format));
            rec_int(&r, "threads", e->threads); rec_str(&r, "isa", o->gpu ? "cuda" : srt_isa_name(e->isa));
            if (o->gpu) rec_str(&r, "backend", o->gpu->name);
            if (o->gpu) { rec_int(&r, "kernels_per_token", e->kernels); rec_int(&r, "cuda_graph", e->graph); }
            rec_str(&r, "model", base ? base + 1 : path);
            rec_str(&r, "load", e->load == SRT_LOAD_COPY ? "copy" : "mmap");
            rec_int(&r, "prompt_tokens", o->prompt_tokens); rec_int(&r, "tokens", o->tokens); rec_int(&r, "runs", o->runs);
            rec_int(&r, "weight_bytes", (long long)info.weight_bytes);
            rec_int(&r, "weight_bytes_per_token", (long long)per_token);
            rec_str(&r, "kv", o->kv == SRT_KV_F32 ? "f32" : o->kv == SRT_KV_Q8 ? "q8" : "f16");
            rec_num(&r, "kv_sparsity_k", o->kv_sparsity[0], 2); rec_num(&r, "kv_sparsity_v", o->kv_sparsity[1], 2);
            rec_int(&r, "kv_bytes_per_token", (long long)kv_per_token);
            rec_sig(&r, "prefill_tok_s", e->prefill_tok_s); rec_sig(&r, "decode_tok_s", e->decode_tok_s);
            rec_sig(&r, "decode_tok_s_median", e->decode_tok_s_median);
            rec_sig(&r, "ttft_ms", e->ttft_ms); rec_num(&r, "peak_rss_mb", e->rss_mb, 1);
            rec_sig(&r, "bandwidth_gbs", bw[ti]);
            rec_sig(&r, "roofline_fraction", e->decode_tok_s * (double)(per_token + kv_per_token) / (bw[ti] * 1e9));
            if (o->state) {   /* the prompt's state against reading the prompt again */
                double prefill_ms = o->prompt_tokens * 1e3 / e->prefill_tok_s;
                rec_int(&r, "state_bytes", (long long)e->state_bytes);
                rec_sig(&r, "state_save_ms", e->state_save_ms); rec_sig(&r, "state_load_ms", e->state_load_ms);
                rec_sig(&r, "prefill_ms", prefill_ms);
                rec_sig(&r, "state_load_speedup", prefill_ms / e->state_load_ms);
            }
            rec_emit(&r, o->json);
        }
    destroy_pools(pools, n_pools);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- speculative decoding */
/* What speculative decoding's proposals cost and gain, per proposal count k: plain greedy decoding
   of T tokens (srt_generate) against srt_session_next_draft with k proposals that are all right
   (the plain tokens ahead: the ceiling at full acceptance) or all wrong (the floor: one token per
   evaluation, k more rows evaluated each time), and srt_generate with prompt lookup (draft_max k;
   on a random model's output, not a text's). */
enum { SPEC_PLAIN, SPEC_RIGHT, SPEC_WRONG, SPEC_LOOKUP, SPEC_KINDS };
static const char *const spec_kind_names[SPEC_KINDS] = {"plain", "right", "wrong", "lookup"};
/* One decode of T tokens after the prompt; ref: plain's tokens (written by SPEC_PLAIN); *same = out equals ref. */
static double spec_decode(srt_session *s, const int32_t *prompt, int P, int T, int kind, int k, int n_vocab, int32_t *ref, int32_t *out,
                          int *evals, int *kept, int *same) {
    double t0;
    int n = 0, i;
    *evals = *kept = 0;
    srt_session_reset(s);
    if (srt_session_feed(s, prompt, P) != SRT_OK) return -1;
    t0 = now_us();
    if (kind == SPEC_PLAIN || kind == SPEC_LOOKUP) {   /* as an app decodes: srt_generate (lookup: its adaptive proposal count) */
        srt_generate_desc g;
        srt_generate_result gr;
        memset(&g, 0, sizeof g);
        g.max_tokens = T; g.stop_at_eos = -1; g.draft_max = kind == SPEC_LOOKUP ? k : 0;
        if (srt_generate(s, &g, &gr) != SRT_OK || gr.n_generated != T) return -1;
        *evals = gr.n_passes; *kept = gr.n_accepted;
        n = T;
        memcpy(out, srt_session_tokens(s) + P, sizeof(int32_t) * (size_t)T);
    }
    while (n < T) {
        int32_t d[SRT_DRAFT_MAX], got[SRT_DRAFT_MAX + 1];
        int nd = 0, ng = 0;
        if (kind == SPEC_RIGHT || kind == SPEC_WRONG)
            for (nd = 0; nd < k && n + nd < T - 1; nd++) d[nd] = kind == SPEC_RIGHT ? ref[n + nd] : (ref[n + nd] + 1 + nd) % n_vocab;
        if (nd > 0 ? srt_session_next_draft(s, d, nd, got, &ng) != SRT_OK : srt_session_next(s, got) != SRT_OK) return -1;
        if (nd == 0) ng = 1;
        (*evals)++;
        *kept += ng - 1;
        for (i = 0; i < ng && n < T; i++) out[n++] = got[i];
    }
    t0 = now_us() - t0;
    if (kind == SPEC_PLAIN) memcpy(ref, out, sizeof(int32_t) * (size_t)T);
    *same = !memcmp(ref, out, sizeof(int32_t) * (size_t)T);
    return t0;
}
static int bench_spec(const opts *o, const char *path) {
    srt_pool *pools[MAX_LIST];
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    srt_model_info info;
    const int P = o->prompt_tokens, T = o->tokens, n_k = o->n_n ? o->n_n : 4;
    const int ks_default[4] = {1, 2, 4, 8};
    const char *base = strrchr(path, '/');
    int32_t *prompt = NULL, *ref = NULL, *out = NULL;
    int n_pools, ti, ki, kind, r, i, ok = 1;
    if (P < 1 || T < 2 || o->runs > 64) { fprintf(stderr, "srt-bench: spec needs --prompt-tokens >= 1, --tokens >= 2\n"); return 2; }
    for (ki = 0; ki < n_k; ki++)
        if ((o->n_n ? o->n_list[ki] : ks_default[ki]) > SRT_DRAFT_MAX) { fprintf(stderr, "srt-bench: spec: --n at most %d\n", SRT_DRAFT_MAX); return 2; }
    if (!create_pools(o, 0, pools, &n_pools)) return 1;
    memset(&info, 0, sizeof info);
    prompt = (int32_t *)malloc(sizeof(int32_t) * (size_t)P);
    ref = (int32_t *)malloc(sizeof(int32_t) * (size_t)T);
    out = (int32_t *)malloc(sizeof(int32_t) * (size_t)T);
    for (ti = 0; ok && ti < n_pools; ti++) {
        memset(&md, 0, sizeof md);
        md.pool = pools[ti];
        md.isa = o->n_isa ? (srt_isa)o->isa[0] : SRT_ISA_AUTO;
        md.backend = o->gpu;   /* srt-bench-cuda --backend cuda: the checks run on the GPU (srt_backend.forward_rows) */
        if (!prompt || !ref || !out || srt_model_load(path, &md, &m) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); ok = 0; break; }
        srt_model_get_info(m, &info);
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = P + T + SRT_DRAFT_MAX + 8;
        sd.n_batch = o->batch;
        if (srt_session_create(m, &sd, &s) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); ok = 0; break; }
        for (i = 0; i < P; i++) prompt[i] = (int32_t)(rand_u32() % (uint32_t)info.n_vocab);
        for (ki = 0; ok && ki < n_k; ki++) {
            const int k = o->n_n ? o->n_list[ki] : ks_default[ki];
            double us[SPEC_KINDS][64];
            int evals[SPEC_KINDS], kept[SPEC_KINDS], same[SPEC_KINDS], all_same[SPEC_KINDS];
            for (kind = 0; kind < SPEC_KINDS; kind++) all_same[kind] = 1;
            if (spec_decode(s, prompt, P, T, SPEC_PLAIN, k, info.n_vocab, ref, out, &evals[0], &kept[0], &same[0]) < 0) { ok = 0; break; }   /* warm-up, ref */
            for (r = 0; ok && r < o->runs; r++)   /* the kinds in turn, each run: drift hits them alike */
                for (kind = 0; ok && kind < SPEC_KINDS; kind++) {
                    us[kind][r] = spec_decode(s, prompt, P, T, kind, k, info.n_vocab, ref, out, &evals[kind], &kept[kind], &same[kind]);
                    ok = us[kind][r] > 0;
                    all_same[kind] &= same[kind];
                }
            if (!ok) { fprintf(stderr, "srt-bench: spec: %s\n", srt_last_error()); break; }
            for (kind = 0; kind < SPEC_KINDS; kind++) {
                const double tok_s = T / (median(us[kind], o->runs) / 1e6), plain = T / (median(us[SPEC_PLAIN], o->runs) / 1e6);
                rec rr;
                memset(&rr, 0, sizeof rr);
                rec_str(&rr, "mode", "spec"); rec_str(&rr, "format", srt_format_name(info.format));
                rec_int(&rr, "threads", srt_pool_threads(pools[ti])); rec_str(&rr, "isa", o->gpu ? "cuda" : srt_isa_name(srt_isa_resolve(md.isa)));
                if (o->gpu) rec_str(&rr, "backend", o->gpu->name);
                rec_str(&rr, "model", base ? base + 1 : path);
                rec_int(&rr, "k", kind == SPEC_PLAIN ? 0 : k); rec_str(&rr, "proposals", spec_kind_names[kind]);
                rec_int(&rr, "tokens", T); rec_int(&rr, "evaluations", evals[kind]);
                rec_sig(&rr, "kept_fraction", kind == SPEC_PLAIN ? 0.0 : (double)kept[kind] / (double)(T > 1 ? T - 1 : 1));
                rec_sig(&rr, "decode_tok_s", tok_s); rec_sig(&rr, "speedup", tok_s / plain);
                rec_int(&rr, "same_tokens", all_same[kind]);
                rec_emit(&rr, o->json);
                if (!all_same[kind]) { fprintf(stderr, "srt-bench: spec: the %s proposals gave other tokens than plain decoding\n", spec_kind_names[kind]); ok = 0; }
            }
        }
        srt_session_destroy(s); s = NULL;
        srt_model_free(m); m = NULL;
    }
    free(prompt); free(ref); free(out);
    srt_session_destroy(s);
    srt_model_free(m);
    destroy_pools(pools, n_pools);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- quantize */
/* M x K weights: uniform in [-0.5, 0.5), or MXFP4 blocks of 32 (FP4 values times 2^e, the block's
   largest magnitude 4 or 6 times 2^e, e from -10 to -3). */
static void quant_source(float *w, uint64_t n, int mxfp4) {
    static const float fp4[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    uint64_t i, b;
    if (!mxfp4) { for (i = 0; i < n; i++) w[i] = frand(); return; }
    for (b = 0; b < n; b += 32) {
        const float s = ldexpf(1.0f, -3 - (int)(rand_u32() % 8));
        const uint64_t end = b + 32 < n ? b + 32 : n;
        for (i = b; i < end; i++) w[i] = fp4[rand_u32() % 8] * s * (rand_u32() & 1 ? -1.0f : 1.0f);
        w[b] = (rand_u32() & 1 ? 6.0f : 4.0f) * s;   /* the block's maximum */
    }
}
static int bench_quantize(const opts *o) {
    static const int def_formats[3] = {SRT_FP4, SRT_Q4, SRT_Q8};
    static const char *const source_names[2] = {"float", "mxfp4"};
    int counts[MAX_LIST], nc = thread_counts(o, 0, counts), fi, gi, si, ti, ci, r;
    const int nf = o->n_format ? o->n_format : 3, ng = o->n_group ? o->n_group : 1, ns = o->n_source ? o->n_source : 2, runs = o->runs < 16 ? o->runs : 16;
    const int nsh = o->n_shapes ? o->n_shapes : 1;
    for (ci = 0; ci < nsh; ci++)
        for (si = 0; si < ns; si++) {
            const uint64_t M = o->n_shapes ? (uint64_t)o->shapes[ci].m : 2880, K = o->n_shapes ? (uint64_t)o->shapes[ci].k : 2880;
            const int src = o->n_source ? o->source[si] : si;
            float *w = (float *)malloc((size_t)(M * K) * sizeof(float)), *back = (float *)malloc((size_t)(M * K) * sizeof(float));
            if (!w || !back) { free(w); free(back); fprintf(stderr, "srt-bench: out of memory\n"); return 1; }
            quant_source(w, M * K, src);
            for (fi = 0; fi < nf; fi++)
                for (gi = 0; gi < ng; gi++)
                    for (ti = 0; ti < nc; ti++) {
                        const srt_format f = (srt_format)(o->n_format ? o->format[fi] : def_formats[fi]);
                        const uint32_t group = o->n_group ? (uint32_t)o->group[gi] : 32;
                        srt_tensor_parts tp;
                        void *parts[4] = {NULL, NULL, NULL, NULL};
                        double t[16], e2 = 0.0, w2 = 0.0;
                        uint64_t i, same = 0;
                        srt_pool *pool = NULL;
                        rec rc;
                        int ok = srt_tensor_layout(f, M, K, group, &tp) == SRT_OK && make_pool(o, counts[ti], NULL, &pool) == SRT_OK;
                        for (i = 0; ok && i < (uint64_t)tp.n_parts; i++) ok = (parts[i] = malloc((size_t)tp.size[i])) != NULL;
                        for (r = 0; ok && r < runs; r++) {
                            const double t0 = now_us();
                            ok = srt_quantize_pool(pool, f, group, w, M, K, parts) == SRT_OK;
                            t[r] = now_us() - t0;
                        }
                        ok = ok && srt_dequantize(f, group, (const void *const *)parts, M, K, back) == SRT_OK;
                        if (!ok) fprintf(stderr, "srt-bench: quantize %s: %s\n", srt_format_name(f), srt_last_error());
                        for (i = 0; ok && i < M * K; i++) {
                            const double d = (double)back[i] - (double)w[i];
                            e2 += d * d; w2 += (double)w[i] * w[i]; same += back[i] == w[i];
                        }
                        for (i = 0; i < 4; i++) free(parts[i]);
                        srt_pool_destroy(pool);
                        if (!ok) { free(w); free(back); return 1; }
                        memset(&rc, 0, sizeof rc);
                        rec_str(&rc, "mode", "quantize"); rec_str(&rc, "format", srt_format_name(f)); rec_int(&rc, "group", group);
                        rec_int(&rc, "m", (long long)M); rec_int(&rc, "k", (long long)K); rec_str(&rc, "source", source_names[src]);
                        rec_int(&rc, "threads", counts[ti]);
                        rec_num(&rc, "mvalues_per_s", (double)(M * K) / median(t, runs), 1);
                        rec_sig(&rc, "rms_rel_error", w2 > 0 ? sqrt(e2 / w2) : 0.0);
                        rec_num(&rc, "exact_fraction", (double)same / (double)(M * K), 4);
                        rec_emit(&rc, o->json);
                    }
            free(w); free(back);
        }
    return 0;
}

/* ---------------------------------------------------------------- main */
static int usage(void) {
    fprintf(stderr,
        "usage: srt-bench membw [--threads N | --threads-list 1,2] [--mb 2048] [--passes 10] [--isa L] [--json]\n"
        "       srt-bench gemv|gemm [--format f16,bf16,q8,q4,q2,tq,q1] [--group 64[,32,128,row]] [--shape MxK[*COUNT],...]\n"
        "                 [--threads N | --threads-list 1,2] [--isa portable,avx2,avxvnni,avx512,amx] [--n 32]\n"
        "                 [--set-mb 1536] [--seconds 1] [--bw GBS[,GBS]] [--mb 2048] [--sparsity 0.5] [--json]\n"
        "       srt-bench e2e MODEL.srt [--threads N | --threads-list ..] [--isa L[,L]] [--prompt-tokens 128] [--tokens 64]\n"
        "                 [--runs 3] [--batch B] [--load auto,mmap,copy] [--bw GBS] [--mb 2048] [--kv f16|f32|q8] [--kv-sparsity K[,V]] [--state] [--swa-full] [--json]\n"
        "       srt-bench decode MODEL.srt [--tokens 64] ...   (e2e with --prompt-tokens 1 --runs 1)\n"
        "       srt-bench spec MODEL.srt [--threads N | --threads-list ..] [--isa L] [--n 1,2,4,8] [--prompt-tokens 128] [--tokens 64] [--runs 3] [--json]\n"
        "       srt-bench quantize [--format fp4,q4,q8] [--group 32] [--shape 2880x2880] [--threads N | --threads-list 1,2]\n"
        "                 [--source float,mxfp4] [--runs 3] [--json]\n"
        "       srt-bench pool [--json] [--topology] [--threads N]\n"
        "       srt-bench make-model OUT [--embd N] [--ff N] [--layers N] [--heads N] [--kv-heads N] [--vocab N]\n"
        "                 [--format q8] [--group N|row] [--untied] [--seed S] [--arch llama|gemma3|qwen3moe|gpt-oss] [--window 512] [--swa-pattern 6]\n"
        "                 [--experts 64] [--experts-used 8] [--sparsity 0.5 (sparse formats)]\n"
        "       srt-bench e2e|decode|spec MODEL.srt --backend cuda [--device 0] ...   (srt-bench-cuda: decode on the GPU)\n"
        "       srt-bench gpu-membw [--mb 4096] [--iters 50] [--device 0] [--json]   (srt-bench-cuda)\n"
        "       srt-bench gpu-gemv|gpu-gemm [--format q8,q4,q2,tq,f16,tcsl] [--shape MxK[*COUNT],...] [--n 8,16,32,64]\n"
        "                 [--sparsity 0.6,0.7,0.8,0.9] [--group 64] [--path auto|gemv|gemm|cublas|cublas-f16]\n"
        "                 [--iters N] [--bw GBS] [--mb 4096] [--device 0] [--json]   (srt-bench-cuda)\n"
        "every mode: [--cores auto|performance|all|LIST] [--no-pin]\n");
    return 2;
}

int main(int argc, char **argv) {
    opts o;
    const char *cmd, *file = NULL;
    int i, prompt_set = 0, runs_set = 0, backend_cuda = 0, gpu_mode, rc;
    memset(&o, 0, sizeof o);
    o.tokens = 64; o.embd = 1024; o.ff = 2816; o.layers = 8; o.heads = 16; o.kv_heads = 4; o.vocab = 8192;
    o.arch = "llama"; o.window = 512; o.swa_pattern = 6; o.experts = 64; o.experts_used = 8;
    o.n_list[0] = 32; o.n_n = 0; o.passes = 10; o.runs = 3; o.prompt_tokens = 128;
    o.mb = 2048; o.set_mb = 1536; o.seconds = 1.0; o.sparsity[0] = 0.5; o.n_sparsity = 1;
    if (argc < 2) return usage();
    cmd = argv[1];
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, n;
        /* flags take no value: the next argument is an option of its own */
        if (!strcmp(a, "--json")) { o.json = 1; continue; }
        if (!strcmp(a, "--topology")) { o.topology = 1; continue; }
        if (!strcmp(a, "--no-pin")) { o.no_pin = 1; continue; }
        if (!strcmp(a, "--untied")) { o.untied = 1; continue; }
        if (!strcmp(a, "--state")) { o.state = 1; continue; }
        if (!strcmp(a, "--swa-full")) { o.swa_full = 1; continue; }
        if (!v || a[0] != '-' || a[1] != '-') {
            if (a[0] != '-' && !file) file = a; else return usage();
            continue;
        }
        else if (!strcmp(a, "--cores")) ok = parse_cores(v, &o);
        else if (!strcmp(a, "--threads")) ok = positive_int(v, &o.threads);
        else if (!strcmp(a, "--threads-list")) ok = parse_list(v, MAX_LIST, &o.n_thread_list, item_thread, &o);
        else if (!strcmp(a, "--isa")) ok = parse_list(v, MAX_LIST, &o.n_isa, item_isa, &o);
        else if (!strcmp(a, "--load")) ok = parse_list(v, 3, &o.n_load, item_load, &o);
        else if (!strcmp(a, "--format")) ok = parse_list(v, MAX_LIST, &o.n_format, item_format, &o);
        else if (!strcmp(a, "--group")) ok = parse_list(v, MAX_LIST, &o.n_group, item_group, &o);
        else if (!strcmp(a, "--shape")) ok = parse_list(v, MAX_SHAPES, &o.n_shapes, item_shape, &o);
        else if (!strcmp(a, "--bw")) ok = parse_list(v, MAX_LIST, &o.n_bw, item_bw, &o);
        else if (!strcmp(a, "--n")) ok = parse_list(v, MAX_LIST, &o.n_n, item_n, &o);
        else if (!strcmp(a, "--split-k")) ok = parse_list(v, MAX_LIST, &o.n_split_k, item_split_k, &o);
        else if (!strcmp(a, "--tokens")) ok = positive_int(v, &o.tokens);
        else if (!strcmp(a, "--prompt-tokens")) { ok = positive_int(v, &o.prompt_tokens); prompt_set = 1; }
        else if (!strcmp(a, "--runs")) { ok = positive_int(v, &o.runs) && o.runs <= 64; runs_set = 1; }
        else if (!strcmp(a, "--passes")) ok = positive_int(v, &o.passes) && o.passes <= 64;
        else if (!strcmp(a, "--batch")) ok = positive_int(v, &o.batch);
        else if (!strcmp(a, "--mb")) { ok = (o.mb = atof(v)) > 0; o.mb_set = 1; }
        else if (!strcmp(a, "--set-mb")) ok = (o.set_mb = atof(v)) >= 0;
        else if (!strcmp(a, "--seconds")) ok = (o.seconds = atof(v)) >= 0;
        else if (!strcmp(a, "--sparsity")) { ok = parse_list(v, MAX_LIST, &o.n_sparsity, item_sparsity, &o); o.sparsity_set = 1; }
        else if (!strcmp(a, "--iters")) ok = positive_int(v, &o.iters);
        else if (!strcmp(a, "--device")) { char *e; long d = strtol(v, &e, 10); ok = *v && !*e && d >= 0 && d < 1024; o.device = (int)d; }
        else if (!strcmp(a, "--backend")) { ok = !strcmp(v, "cpu") || !strcmp(v, "cuda"); backend_cuda = !strcmp(v, "cuda"); }
        else if (!strcmp(a, "--path")) {
            static const char *const names[] = {"auto", "gemv", "gemm", "cublas", "cublas-f16"};
            for (n = 0; n < 5 && strcmp(v, names[n]); n++) {}
            ok = n < 5; o.path = n;
        }
        else if (!strcmp(a, "--kv")) {
            ok = !strcmp(v, "f16") || !strcmp(v, "f32") || !strcmp(v, "q8");
            o.kv = !strcmp(v, "f32") ? SRT_KV_F32 : !strcmp(v, "q8") ? SRT_KV_Q8 : SRT_KV_F16;
        }
        else if (!strcmp(a, "--kv-sparsity")) {
            const char *comma = strchr(v, ',');
            o.kv_sparsity[0] = (float)atof(v);
            o.kv_sparsity[1] = comma ? (float)atof(comma + 1) : o.kv_sparsity[0];
            ok = o.kv_sparsity[0] >= 0 && o.kv_sparsity[0] < 1 && o.kv_sparsity[1] >= 0 && o.kv_sparsity[1] < 1;
        }
        else if (!strcmp(a, "--seed")) { ok = positive_int(v, &n); rng = (uint32_t)n; }
        else if (!strcmp(a, "--embd")) ok = positive_int(v, &o.embd);
        else if (!strcmp(a, "--ff")) ok = positive_int(v, &o.ff);
        else if (!strcmp(a, "--layers")) ok = positive_int(v, &o.layers);
        else if (!strcmp(a, "--heads")) ok = positive_int(v, &o.heads);
        else if (!strcmp(a, "--kv-heads")) ok = positive_int(v, &o.kv_heads);
        else if (!strcmp(a, "--vocab")) ok = positive_int(v, &o.vocab);
        else if (!strcmp(a, "--arch")) { o.arch = v; ok = !strcmp(v, "llama") || !strcmp(v, "gemma3") || !strcmp(v, "qwen3moe") || !strcmp(v, "gpt-oss"); }
        else if (!strcmp(a, "--experts")) ok = positive_int(v, &o.experts);
        else if (!strcmp(a, "--experts-used")) ok = positive_int(v, &o.experts_used);
        else if (!strcmp(a, "--window")) ok = positive_int(v, &o.window);
        else if (!strcmp(a, "--swa-pattern")) ok = positive_int(v, &o.swa_pattern);
        else if (!strcmp(a, "--source")) ok = parse_list(v, 2, &o.n_source, item_source, &o);
        else return usage();
        if (!ok) { fprintf(stderr, "srt-bench: bad value for %s: %s\n", a, v); return 2; }
        i++;
    }
    gpu_mode = !strcmp(cmd, "gpu-membw") || !strcmp(cmd, "gpu-gemv") || !strcmp(cmd, "gpu-gemm");
    if (file && strcmp(cmd, "e2e") && strcmp(cmd, "decode") && strcmp(cmd, "make-model") && strcmp(cmd, "spec")) {
        fprintf(stderr, "srt-bench: %s takes no file argument (got '%s')\n", cmd, file);
        return 2;
    }
    if (backend_cuda && strcmp(cmd, "e2e") && strcmp(cmd, "decode") && strcmp(cmd, "spec")) { fprintf(stderr, "srt-bench: --backend applies to e2e, decode and spec\n"); return 2; }
    if (gpu_mode || backend_cuda) {
#ifndef SRT_BENCH_CUDA
        fprintf(stderr, "srt-bench: this srt-bench was built without CUDA: use build/srt-bench-cuda (./build.sh cuda)\n");
        return 2;
#else
        if (!strcmp(cmd, "gpu-membw")) { o.n_bw = 0; return bench_gpu_membw(&o); }
        if (!strcmp(cmd, "gpu-gemv")) return bench_gpu_matmul(&o, 0);
        if (!strcmp(cmd, "gpu-gemm")) return bench_gpu_matmul(&o, 1);
        if (!file) return usage();
        if (!(o.gpu = gpu_open(&o))) return 1;
#endif
    }
    if (!strcmp(cmd, "membw")) { o.n_bw = 0; return bench_membw(&o); }
    if (!strcmp(cmd, "gemv")) return bench_matmul(&o, 0);
    if (!strcmp(cmd, "gemm")) return bench_matmul(&o, 1);
    if ((!strcmp(cmd, "e2e") || !strcmp(cmd, "decode")) && file) {
        if (!strcmp(cmd, "decode") && !prompt_set) o.prompt_tokens = 1;
        if (!strcmp(cmd, "decode") && !runs_set) o.runs = 1;
        rc = bench_e2e(&o, file);
        if (o.gpu) srt_backend_free(o.gpu);
        return rc;
    }
    if (!strcmp(cmd, "pool")) return bench_pool(&o);
    if (!strcmp(cmd, "quantize")) return bench_quantize(&o);
    if (!strcmp(cmd, "spec") && file) {
        rc = bench_spec(&o, file);
        if (o.gpu) srt_backend_free(o.gpu);
        return rc;
    }
    if (!strcmp(cmd, "make-model") && file) return make_model(file, &o);
    return usage();
}
