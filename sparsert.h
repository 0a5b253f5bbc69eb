/* sparsert.h - an embeddable LLM runtime for AI PCs, as one stb-style C header.

   WHAT IT IS
     A model loader (the .srt container, memory-mapped, zero-copy), a thread pool, weight kernels
     (F32, F16, BF16, Q8..Q1 with per-group scales, and sparse SB-BF16 / SB-Q8 / SB-Q4 / S4X1 that
     store only the non-zero weights), a Llama-family transformer (architectures llama: Llama 2/3
     and Mistral; qwen2: QKV biases; qwen3: q/k norms; phi3: Phi-3/3.5/4-mini with LongRoPE),
     SentencePiece and
     byte-level BPE tokenizers, a sampler and a steppable generation loop. Portable C99 that is
     also valid C++.

   HOW TO USE
     In exactly one C or C++ file of your program:
         #define SPARSERT_IMPLEMENTATION
         #include "sparsert.h"
     Everywhere else just #include "sparsert.h". Nothing else to build or link (add -lm, and
     -pthread on POSIX). Defining SPARSERT_IMPLEMENTATION_DONE (e.g. -D on the command line) turns
     a file's SPARSERT_IMPLEMENTATION into a plain include: build.sh compiles the implementation
     once and links it to every tool and test that defines it.

   EXAMPLE
         srt_model *model; srt_session *s;
         srt_model_desc md = {0};                    // zero = sensible defaults
         if (srt_model_load("stories.srt", &md, &model) != SRT_OK) {
             fprintf(stderr, "%s\n", srt_last_error()); return 1;
         }
         srt_session_desc sd = {0};
         sd.sampler.temperature = 0.8f;
         srt_session_create(model, &sd, &s);
         srt_generate_desc g = {0};
         g.prompt = "Once upon a time"; g.max_tokens = 64;
         g.on_text = my_print_callback;              // return nonzero to stop
         srt_generate(s, &g);
         srt_session_destroy(s); srt_model_free(model);

   CONFIGURATION MACROS (define before the #include that has SPARSERT_IMPLEMENTATION)
     SRT_MALLOC(sz), SRT_REALLOC(p,sz), SRT_FREE(p)   allocation (default: malloc/realloc/free)
     SRT_ASSERT(x)                                    internal assertions (default: assert)
     SRT_API                                          linkage of public functions (default: extern)
     SRT_STATIC                                       make every public function static
     SPARSERT_NO_X86                                  do not pull in sparsert_x86.h on x86-64

   ERRORS
     Every fallible call returns srt_status (SRT_OK == 0, failures negative). srt_status_str()
     names the code; srt_last_error() gives a detail message for the calling thread (file offset,
     tensor name, ...). Bad input never crashes: truncated or corrupted files, absurd shapes and
     unsupported types are refused with a code and a message.

   THREADS
     An srt_model is read-only after loading and may be shared by many sessions and threads.
     An srt_session belongs to one thread at a time; srt_session_cancel() may be called from any
     thread. The log hook is process-global.

   OBSERVING THE FORWARD PASS
     srt_session_desc.observer is called with the input activations of every weight matmul (layer,
     tensor name such as "ffn_down", n_tokens x cols floats) as a session evaluates; srt-pack
     --prune wanda uses it to measure the input channels of each layer on calibration text.

   GPU BACKENDS
     srt_model_desc.backend = a backend object (sparsert_sycl.h: srt_sycl_backend(0), compiled in
     its own C++ file by a SYCL compiler) runs the whole forward pass on that device: the weights
     are uploaded once at load, the KV cache lives there, only the logits come back. The
     interface (struct srt_backend, a function table) is documented where it is declared.

   FILE FORMAT
     formats/SRT.md (container) and formats/LAYOUTS.md (weight layouts), next to this header.

   LICENSE
     MIT. Copyright (c) 2026 the sparsert authors. See the end of this file.
*/
/* The implementation needs POSIX declarations (clock_gettime, mmap); ask before any header. */
#if defined(SPARSERT_IMPLEMENTATION) && !defined(_WIN32) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#  define _POSIX_C_SOURCE 200809L
#endif

#ifndef SPARSERT_H
#define SPARSERT_H

#include <stddef.h>
#include <stdint.h>

#define SRT_VERSION_MAJOR 0
#define SRT_VERSION_MINOR 1
#define SRT_VERSION_PATCH 0
#define SRT_VERSION_STRING "0.1.0"

#ifndef SRT_API
#  ifdef SRT_STATIC
#    define SRT_API static
#  else
#    define SRT_API extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- status codes */
#define SRT__STATUS_LIST(X) \
    X(SRT_OK,                 0, "ok") \
    X(SRT_ERR_INVALID_ARG,   -1, "invalid argument") \
    X(SRT_ERR_OUT_OF_MEMORY, -2, "out of memory") \
    X(SRT_ERR_IO,            -3, "file i/o error") \
    X(SRT_ERR_FORMAT,        -4, "malformed file") \
    X(SRT_ERR_CHECKSUM,      -5, "checksum mismatch") \
    X(SRT_ERR_UNSUPPORTED,   -6, "unsupported feature or type") \
    X(SRT_ERR_SHAPE,         -7, "tensor shape mismatch") \
    X(SRT_ERR_CONTEXT_FULL,  -8, "context window is full") \
    X(SRT_ERR_CANCELLED,     -9, "cancelled") \
    X(SRT_ERR_NO_TOKENIZER, -10, "model has no tokenizer") \
    X(SRT_ERR_THREAD,       -11, "thread creation failed")

typedef enum srt_status {
#define SRT__X(name, value, text) name = value,
    SRT__STATUS_LIST(SRT__X)
#undef SRT__X
    SRT_STATUS_FORCE_INT = 0x7fffffff
} srt_status;

SRT_API const char *srt_status_str(srt_status s);
/* Detail message of the last failure on this thread ("" if none). */
SRT_API const char *srt_last_error(void);
SRT_API const char *srt_version(void);
SRT_API double srt_time_ms(void);        /* a monotonic clock in milliseconds, for timing calls */

/* ---------------------------------------------------------------- logging */
typedef enum srt_log_level { SRT_LOG_ERROR = 0, SRT_LOG_WARN = 1, SRT_LOG_INFO = 2, SRT_LOG_DEBUG = 3 } srt_log_level;
typedef void (*srt_log_fn)(srt_log_level level, const char *msg, void *user);
/* Process-global log hook; NULL restores the default (warnings and errors to stderr). */
SRT_API void srt_set_log(srt_log_fn fn, void *user);

/* ---------------------------------------------------------------- weight formats */
/* Values are stored in .srt files: never renumber. Layouts: formats/LAYOUTS.md. */
typedef enum srt_format {
    SRT_F32  = 0,
    SRT_F16  = 1,
    SRT_BF16 = 2,
    SRT_Q8   = 3,   /* int8 values, one f16 scale per group of `group` along K (tiles of 16 rows) */
    SRT_Q4   = 4,   /* int4 in [-8, 7], per-group scales */
    SRT_Q2   = 5,   /* int2 levels {-3, -1, 1, 3}, per-group scales */
    SRT_TQ   = 6,   /* ternary {-1, 0, 1} as 2-bit codes, per-group scales */
    SRT_Q1   = 7,   /* binary {-1, +1}, per-group scales */
    /* Sparse formats: zeros of the float weights are not stored (formats/LAYOUTS.md). */
    SRT_SB_BF16 = 8, /* bitmap per 32 columns of a row + the non-zero bf16 values */
    SRT_SB_Q8 = 9,   /* bitmap per 64-byte chunk of the Q8 tiles + the non-zero int8 codes, per-group scales */
    SRT_SB_Q4 = 10,  /* the same with 4-bit codes (-8..7), two per byte */
    SRT_S4X1 = 11,   /* 4x1 block-sparse Q8: 4 rows x 1 column blocks, grouped 4 columns at a time */
    SRT_TCSL = 12,   /* Tiled-CSL (Flash-LLM): 64 x 64 tiles of (f16 value, in-tile location) words, for GPUs */
    SRT_FP4 = 13,    /* 4-bit codes of the FP4 (E2M1) values {0, 0.5, 1, 1.5, 2, 3, 4, 6} and their negatives, doubled
                        (integers up to 12), per-group scales: q4's layout; MXFP4 (gpt-oss) is stored in it exactly (CPU only) */
    SRT_FORMAT_COUNT
} srt_format;

SRT_API const char *srt_format_name(srt_format f);      /* "f32", "q8", ...; "?" if unknown */
SRT_API int srt_format_from_name(const char *name);      /* -1 if unknown */

/* ---------------------------------------------------------------- thread pool */
/* CPU topology: which logical CPUs share a physical core, and which cores are performance (P) or
   efficiency (E) cores. Sources, in order: Linux sysfs (/sys/devices/cpu_core|cpu_atom/cpus,
   then CPUID leaf 0x1A per CPU on x86, then cpu_capacity / cpuinfo_max_freq groups for Arm
   big.LITTLE), Windows GetLogicalProcessorInformationEx (EfficiencyClass), macOS hw.perflevel*. */
#define SRT_MAX_CPUS 256
typedef enum srt_core_type { SRT_CORE_UNKNOWN = 0, SRT_CORE_PERFORMANCE = 1, SRT_CORE_EFFICIENCY = 2 } srt_core_type;
typedef struct srt_cpu {
    int id;                  /* logical CPU number as the OS counts them */
    int core;                /* physical core, numbered 0..n_cores-1 */
    int smt;                 /* 0 = first hardware thread of its core, 1.. = SMT siblings */
    int package, numa;       /* socket and NUMA node (0 when unknown) */
    int llc;                 /* lowest CPU id sharing its last-level cache; -1 = unknown */
    srt_core_type type;      /* PERFORMANCE on machines that are not hybrid */
    uint32_t max_khz;        /* cpufreq maximum; 0 = unknown */
    int usable;              /* 1 = this process may run there (affinity mask) */
} srt_cpu;
typedef struct srt_topology {
    int n_cpus, n_cores, n_perf_cores, n_eff_cores;
    int hybrid;              /* 1 when both P- and E-cores exist */
    const char *source;      /* where the core types came from: "cpu_core/cpu_atom", "cpuid", ... */
    srt_cpu cpu[SRT_MAX_CPUS];  /* ordered by id */
} srt_topology;
/* Where srt_topology_detect() looks. Zero-initialised (or NULL) = the running machine. */
typedef struct srt_topology_probe {
    const char *sysfs_root;  /* Linux sysfs mount, default "/sys"; tests point it at a fake tree */
    /* CPUID as seen on logical CPU `cpu`: fill regs (eax, ebx, ecx, edx), return 1; 0 = no CPUID.
       NULL = the real instruction (x86 Linux, only when sysfs has no cpu_core/cpu_atom). */
    int (*cpuid)(void *user, int cpu, uint32_t leaf, uint32_t subleaf, uint32_t regs[4]);
    void *cpuid_user;
    int fake;                /* 1 = read only sysfs_root and `cpuid`: no OS calls, every CPU usable */
} srt_topology_probe;
SRT_API srt_status srt_topology_detect(const srt_topology_probe *probe, srt_topology *out);
/* Parses "0-3,8,10-11" into at most cap CPU ids; returns the count or -1 if malformed. */
SRT_API int srt_parse_cpu_list(const char *text, int *cpus, int cap);

/* Which CPUs a pool's threads run on. */
typedef enum srt_cores {
    SRT_CORES_AUTO = 0,          /* one thread per physical core, P-cores first, then E-cores that
                                    share the P-cores' last-level cache (dynamic chunks let them help
                                    memory-bound GEMV instead of holding it back) */
    SRT_CORES_PERFORMANCE = 1,   /* one thread per physical P-core */
    SRT_CORES_ALL = 2,           /* every logical CPU: P, then E, then SMT siblings */
    SRT_CORES_LIST = 3           /* exactly the CPUs of srt_pool_desc.cpu_list, in that order */
} srt_cores;
/* The CPUs `policy` picks, in the order threads get them; returns the count, -1 if `list` is
   malformed or names a CPU that is absent or not usable. */
SRT_API int srt_cores_select(const srt_topology *t, srt_cores policy, const char *list, int *cpus, int cap);

typedef struct srt_pool srt_pool;
typedef struct srt_pool_desc {
    int n_threads;          /* total threads including the caller; 0 = one per CPU the policy picks (max 256) */
    srt_cores cores;        /* 0 = SRT_CORES_AUTO */
    const char *cpu_list;   /* with SRT_CORES_LIST: "0-3,8" */
    int pin;                /* 0 = pin workers to their CPU for PERFORMANCE and LIST only, 1 = always,
                               -1 = never. The calling thread (index 0) is never pinned. */
    const srt_topology *topology;   /* NULL = detect the running machine */
    /* test hook: thread `slow_thread` takes `slow_factor` times as long per chunk (it busy-waits
       after each one), emulating a slower core. 0 = off. */
    int slow_thread;
    float slow_factor;
} srt_pool_desc;
SRT_API srt_status srt_pool_create(const srt_pool_desc *desc, srt_pool **out);
/* Stops and joins the workers. No parallel-for may be running on the pool. */
SRT_API void srt_pool_destroy(srt_pool *pool);
SRT_API int srt_pool_threads(const srt_pool *pool);
/* CPU thread `index` was meant for (-1 = none) and whether it is pinned there. */
SRT_API int srt_pool_thread_cpu(const srt_pool *pool, int index, int *pinned);
/* fn(user, begin, end, thread_index) is called on chunks of [0, n) of at most `chunk` items,
   claimed dynamically by all threads (faster threads take more); returns when all are done.
   chunk <= 0 picks one (see srt_pool_chunk). One fork/join per call. Calls from several threads
   take turns; a call from inside fn runs inline on the calling thread. Each item is processed by
   exactly one call, so results are bit-exact whatever the thread count as long as each output is
   written by one item; for reductions, use a chunk size that does not depend on the thread count
   and combine per-chunk partials in chunk order. */
typedef void (*srt_range_fn)(void *user, int64_t begin, int64_t end, int thread_index);
SRT_API void srt_pool_parallel_for(srt_pool *pool, int64_t n, int64_t chunk, srt_range_fn fn, void *user);
/* The same with a static split: thread i gets the i-th contiguous slice (for comparison). */
SRT_API void srt_pool_parallel_for_static(srt_pool *pool, int64_t n, srt_range_fn fn, void *user);
/* Chunk size for n items that each touch about `bytes_per_item` bytes: big enough to amortise the
   claim (>= 16 KiB of work), small enough for ~16 chunks per thread. >= n means "run inline". */
SRT_API int64_t srt_pool_chunk(const srt_pool *pool, int64_t n, int64_t bytes_per_item);

/* ---------------------------------------------------------------- instruction sets */
/* Kernel levels. x86-64: avx2 = AVX2 + FMA + F16C; avxvnni = avx2 + AVX-VNNI (vpdpbusd on 256
   bits); avx512 = AVX-512 F/BW/DQ/VL + VNNI; amx = avx512 + AMX-INT8/BF16 (GEMM). A CPU may have
   avx512 without avxvnni (Ice Lake): a level it lacks is lowered to the next one it has. Elsewhere only portable C. One binary carries all of them and picks at run
   time from CPUID and what the OS enables (XCR0, Linux AMX permission). */
typedef enum srt_isa {
    SRT_ISA_AUTO = 0, SRT_ISA_PORTABLE = 1, SRT_ISA_AVX2 = 2, SRT_ISA_AVXVNNI = 3, SRT_ISA_AVX512 = 4, SRT_ISA_AMX = 5,
    SRT_ISA_COUNT
} srt_isa;
SRT_API srt_isa srt_isa_best(void);                  /* the best level this CPU and OS support */
SRT_API int srt_isa_supported(srt_isa isa);          /* 1: this CPU and OS run the level (AUTO: 0) */
/* AUTO -> the environment variable SRT_ISA (a name below) if set, else the best; a level the CPU
   lacks is lowered (with a warning) to the highest one below it that it has. */
SRT_API srt_isa srt_isa_resolve(srt_isa isa);
SRT_API const char *srt_isa_name(srt_isa isa);       /* "auto", "portable", "avx2", "avxvnni", "avx512", "amx" */
SRT_API int srt_isa_from_name(const char *name);     /* -1 if unknown */

/* ---------------------------------------------------------------- KV cache types */
/* The session's KV cache (srt_session_desc.kv_type), on the CPU and on a backend. Q8: per 32
   values of a head's row, int8 codes and an F16 scale (1.0625 bytes a value); attention's scores
   over it are integer dot products with q quantized the same way once per token (README, "Q8 KV
   cache"). */
typedef enum srt_kv_type { SRT_KV_DEFAULT = 0, SRT_KV_F32 = 1, SRT_KV_F16 = 2, SRT_KV_Q8 = 3 } srt_kv_type;

/* ---------------------------------------------------------------- backends (GPUs) */
/* A backend evaluates the transformer somewhere else than on the CPU (sparsert_sycl.h: Intel GPUs
   through SYCL 2020). It lives in its own translation unit, compiled by its own compiler, and hands
   the app a filled-in srt_backend; the app sets srt_model_desc.backend to it, so one binary carries
   both (`md.backend = srt_sycl_backend(0)`). With a backend, srt_model_load uploads the weights once
   (`load`), srt_session_create makes the device KV cache (`session_create`), and every forward batch
   runs there (`forward`): only the logits come back; tokenizing and sampling stay on the CPU. The
   session's observer is not called. Errors (no device, out of device memory) fail those calls
   with the backend's message. The core only calls through this table; a backend fills it in. */
typedef struct srt_backend_tensor {  /* a weight as the core holds it (layouts: formats/LAYOUTS.md) */
    srt_format format;
    uint32_t group;
    uint64_t rows, cols;
    const void *part[4];     /* parts as srt_tensor_layout() sizes them */
} srt_backend_tensor;
typedef struct srt_backend_layer {
    const float *attn_norm, *ffn_norm;   /* n_embd floats */
    const float *bq, *bk, *bv;           /* q/k/v biases or NULL */
    srt_backend_tensor wq, wk, wv, wo, gate, up, down;
    const float *q_norm, *k_norm;        /* head_dim floats or NULL: Qwen3's RMSNorm of each q and k
                                            head (the model's epsilon) after the biases, before RoPE */
} srt_backend_layer;
typedef struct srt_backend_model {   /* valid during `load` only: a backend copies what it needs */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim;
    int rope_neox;           /* 0: rotate pairs (2i, 2i+1); 1: pairs (i, i + rope_dim/2) */
    float norm_eps;
    srt_backend_tensor tok_embd, output;  /* output may share tok_embd's parts (tied embeddings) */
    const float *output_norm;
    const srt_backend_layer *layers;      /* n_layer */
} srt_backend_model;
typedef struct srt_backend srt_backend;
struct srt_backend {
    const char *name;        /* e.g. "sycl: Intel(R) Arc(TM) 140V GPU" */
    void *impl;              /* the backend's own state */
    /* Failures return a status and write a NUL-terminated message into err (cap bytes). */
    srt_status (*load)(srt_backend *b, const srt_backend_model *m, void **model, char *err, size_t cap);
    void (*unload)(srt_backend *b, void *model);
    /* kv_type: SRT_KV_F32, _F16 or _Q8 (never DEFAULT); one the backend lacks: SRT_ERR_UNSUPPORTED */
    srt_status (*session_create)(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv_type, void **session, char *err, size_t cap);
    void (*session_destroy)(srt_backend *b, void *session);
    /* Evaluates n (<= n_batch) tokens at positions pos..pos+n-1 into the device KV cache. rope_cs:
       n x rope_dim floats, token t's (cos, sin) of angle (pos + t) * freq_i for i < rope_dim / 2,
       computed by the core so every backend rotates by the same values. logits: NULL, or n_vocab
       floats to receive the last token's logits. */
    srt_status (*forward)(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs,
                          float *logits, char *err, size_t cap);
    void (*destroy)(srt_backend *b);      /* frees the backend itself */
    /* Session state (srt_session_save / _load; NULL: refused). Copies the rows of positions
       0..n-1 of one layer of the K (which = 0) or V (1) cache between the device and host memory
       laid out [position][KV head][row], a row as the CPU stores it (head_dim f32 or f16 values;
       Q8: head_dim int8 codes, then one F16 scale per 32 of them): to_device 0 reads them into
       host, 1 writes host into the cache. */
    srt_status (*kv_copy)(srt_backend *b, void *session, int which, int layer, int n, void *host, int to_device, char *err, size_t cap);
    /* As forward, with the logits of the last n_logits (2..n) tokens: n_logits x n_vocab floats,
       in token order (speculative decoding checks every proposal). NULL: speculative decoding on
       this backend is refused with SRT_ERR_UNSUPPORTED. */
    srt_status (*forward_rows)(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs,
                               int n_logits, float *logits, char *err, size_t cap);
};
/* Frees a backend made by its constructor (srt_sycl_backend). Models loaded with it must be freed first. */
SRT_API void srt_backend_free(srt_backend *b);

/* ---------------------------------------------------------------- model */
typedef struct srt_model srt_model;

typedef struct srt_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} srt_allocator;

/* MMAP maps the file (pages shared with the OS cache, loaded on first touch). COPY reads it into
   private memory, advised to use huge pages on Linux: decode streams every weight once per token
   and 4 KiB pages cost TLB misses and stop the hardware prefetchers at each page (measured: Q4
   decode of a 1.2B model 33 -> 37 tokens/s). AUTO = COPY on Linux with transparent huge pages
   enabled when the file fits in half the available memory, else MMAP; and MMAP when the copy's
   memory cannot be allocated.
   Either way a file larger than the memory available is refused before it is mapped or read
   (SRT_ERR_OUT_OF_MEMORY, the message gives both sizes): decode reads every weight for every
   token, so a model that does not fit would page in from disk all the time (mapped) or push the
   system into swap (copied). srt_model_desc.memory_limit sets the limit instead of the OS. */
typedef enum srt_load { SRT_LOAD_AUTO = 0, SRT_LOAD_MMAP = 1, SRT_LOAD_COPY = 2 } srt_load;

typedef struct srt_model_desc {
    int n_threads;           /* threads when `pool` is NULL; 0 = one per CPU that `cores` picks */
    srt_cores cores;         /* which CPUs the model's own pool uses; 0 = SRT_CORES_AUTO */
    const char *cpu_list;    /* with SRT_CORES_LIST: "0-3,8" */
    int pin;                 /* as srt_pool_desc.pin: 0 = default, 1 = always pin, -1 = never */
    srt_pool *pool;          /* shared pool (not owned); NULL = the model makes its own */
    int verify_checksums;    /* 1 = check every tensor's CRC-32 at load (reads the whole file) */
    srt_allocator allocator; /* all-NULL = SRT_MALLOC/SRT_FREE */
    srt_isa isa;             /* kernel level; 0 = SRT_ISA_AUTO (see srt_isa_resolve) */
    srt_load load;           /* how the file reaches memory; 0 = SRT_LOAD_AUTO */
    srt_backend *backend;    /* NULL = the CPU; else the forward pass runs there (not owned) */
    /* Bytes of memory the loader assumes are free for the model file; a larger file is refused
       with SRT_ERR_OUT_OF_MEMORY before it is mapped or read. 0 = what the OS reports free: Linux
       MemAvailable + SwapFree, Windows available physical memory + page file, macOS physical
       memory (no check where unknown). UINT64_MAX = no check (load anyway). AUTO copies only
       files that take at most half of it. */
    uint64_t memory_limit;
} srt_model_desc;

typedef struct srt_model_info {
    const char *architecture;    /* "llama", "qwen2", "qwen2moe", "qwen3", "qwen3moe", "phi3", "gemma", "gemma2", "gemma3", "smollm3",
                                    "granite", "granitemoe", "minicpm", "olmo2", "olmoe", "exaone", "exaone4" or
                                    "gpt-oss" */
    const char *name;            /* general.name or "" */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_ctx_train;
    srt_format format;           /* the format holding the most bytes of weight matrices */
    uint64_t weight_bytes;       /* bytes of all weight tensors */
    uint64_t file_bytes;
    srt_load load;               /* SRT_LOAD_MMAP or SRT_LOAD_COPY: how the file was loaded */
    int bos, eos;                /* special token ids, -1 if none */
    const char *backend;         /* "cpu", or the name of srt_model_desc.backend */
    int n_swa_layers, swa_window;   /* layers that attend to the last swa_window positions only (Gemma 2 / 3, OLMo 3, EXAONE 4
                                       32B); 0, 0 for none */
    int n_expert, n_expert_used;    /* mixture of experts: experts per layer, experts a token goes through (n_ff is an
                                       expert's width then); 0, 0 for a dense FFN */
    uint64_t token_bytes;           /* weight bytes one decoded token reads: all but the embedding matrix (one row of
                                       it), of the experts only the used share (n_expert_used / n_expert) */
} srt_model_info;

SRT_API srt_status srt_model_load(const char *path, const srt_model_desc *desc, srt_model **out);
SRT_API void srt_model_free(srt_model *model);
SRT_API void srt_model_get_info(const srt_model *model, srt_model_info *info);
/* Metadata lookup by key (see formats/SRT.md): returns 1 and fills *out if present with that type. */
SRT_API int srt_model_meta_str(const srt_model *model, const char *key, const char **out);
SRT_API int srt_model_meta_u32(const srt_model *model, const char *key, uint32_t *out);
SRT_API int srt_model_meta_f32(const srt_model *model, const char *key, float *out);

/* ---------------------------------------------------------------- tokenizer */
/* Vocabularies as GGUF describes them: tokenizer.ggml.model "llama" (SentencePiece BPE) or "gpt2"
   (byte-level BPE, with the pre-tokenizer of the model family named by tokenizer.ggml.pre: gpt-2,
   llama-bpe/llama3, qwen2, deepseek-llm, deepseek-coder, falcon, starcoder, refact, smollm, mpt,
   tekken, gpt-4o, ...). Results match llama.cpp and the Hugging Face tokenizers. */
enum {
    SRT_TOKENIZE_ADD_BOS = 1,       /* prepend BOS (if the vocab has one) */
    SRT_TOKENIZE_NO_BOS = 2,        /* never prepend BOS, even when the model asks for it */
    SRT_TOKENIZE_NO_SPACE_PREFIX = 4, /* no SentencePiece dummy-prefix space (text that continues a sequence) */
    SRT_TOKENIZE_PARSE_SPECIAL = 8  /* the texts of control tokens ("<|eot_id|>", "<s>") become those tokens;
                                       without it they are tokenized as plain text */
};
/* Encodes `len` bytes of UTF-8 `text` into at most `cap` ids; *n_out receives the number needed.
   Returns SRT_ERR_INVALID_ARG (with *n_out set) when cap is too small. flags = 0 adds BOS if the
   model's tokenizer.add_bos says so. User-defined tokens (added tokens that are not special, e.g.
   GPT-NeoX's runs of spaces) are always recognised in the text, as Hugging Face does.
   Invalid UTF-8 is encoded through byte tokens: SentencePiece vocabs use <0xNN>; byte-level BPE
   takes each byte that does not start a complete sequence as a character of its own (split like
   U+FFFD), so that detokenizing gives back the exact input bytes. */
SRT_API srt_status srt_tokenize(const srt_model *model, const char *text, size_t len, int flags,
                                int32_t *ids, int cap, int *n_out);
/* SRT_OK if the runtime can tokenize with this tokenizer.ggml.model and tokenizer.ggml.pre (NULL or ""
   = absent); otherwise SRT_ERR_UNSUPPORTED, and srt_last_error() says why. srt-pack checks this. */
SRT_API srt_status srt_tokenizer_supported(const char *model, const char *pre);
SRT_API int srt_vocab_size(const srt_model *model);
/* Raw vocabulary piece as stored ("\xe2\x96\x81the", "<0x0A>", "<s>"); NULL if out of range. */
SRT_API const char *srt_token_piece(const srt_model *model, int32_t token);
/* Bytes this token contributes to text (spaces restored, byte tokens decoded, control tokens empty).
   Writes at most cap bytes, returns the full length. */
SRT_API int srt_token_bytes(const srt_model *model, int32_t token, char *buf, int cap);
/* 1 for a token that ends generation: EOS, tokenizer.ggml.eot_token_id / eom_token_id, and the
   control tokens that end a turn in the common chat formats ("<|eot_id|>", "<|eom_id|>",
   "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
   "[|endofturn|]", "<|return|>", "<|call|>"; with the last two, as in gpt-oss's harmony, "<|end|>"
   is not one), so an instruct model stops at the end of its turn also outside a chat. 0 otherwise. */
SRT_API int srt_token_is_eog(const srt_model *model, int32_t token);

/* Streaming detokenizer: feeds token bytes, emits only whole UTF-8 characters; invalid sequences
   come out as U+FFFD. Plain struct: zero-initialise, no cleanup. */
typedef struct srt_utf8_stream { unsigned char pending[4]; int n_pending, need, started; } srt_utf8_stream;
/* Appends the text of `token` to out and returns the bytes written (never a partial character),
   or -1 if cap < 6 * srt_token_bytes(token) + 16. flags: SRT_STREAM_STRIP_LEADING_SPACE drops one
   space at the very start of the stream (the SentencePiece dummy prefix). */
enum { SRT_STREAM_STRIP_LEADING_SPACE = 1 };
SRT_API int srt_utf8_stream_token(srt_utf8_stream *st, const srt_model *model, int32_t token, int flags, char *out, int cap);
/* Flushes incomplete bytes at the end (as U+FFFD). */
SRT_API int srt_utf8_stream_flush(srt_utf8_stream *st, char *out, int cap);

/* ---------------------------------------------------------------- sampler */
typedef struct srt_sampler_desc {
    float temperature;       /* 0 = greedy (argmax). Default 0. */
    int top_k;               /* 0 = off */
    float top_p;             /* 0 or 1 = off */
    float min_p;             /* 0 = off */
    float repeat_penalty;    /* 0 or 1 = off; applied to the last repeat_last_n tokens */
    int repeat_last_n;       /* 0 = 64 */
    uint64_t seed;           /* 0 = a fixed default seed (runs are reproducible) */
} srt_sampler_desc;

/* ---------------------------------------------------------------- session (KV cache + decoding) */
typedef struct srt_session srt_session;
typedef struct srt_session_desc {
    int n_ctx;               /* context length; 0 = the model's training context (capped at 4096) */
    int n_batch;             /* prompt tokens per forward batch; 0 = 32 */
    srt_kv_type kv_type;     /* 0 = F16; SRT_KV_Q8 halves the cache (not with kv_sparsity) */
    srt_sampler_desc sampler;
    /* Observer of the forward pass (calibration and analysis, e.g. srt-pack --prune wanda). When
       set, it is called on the evaluating thread just before each weight matmul with that matmul's
       input: x = n_tokens rows of cols floats, valid during the call only. layer 0..n_layer-1 with
       weight = the block tensor's name ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate",
       "ffn_up", "ffn_down"; a mixture of experts: "ffn_gate_inp" for the router and "ffn_gate.X",
       "ffn_up.X", "ffn_down.X" for expert X, with the rows of the tokens routed to it only;
       "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp" for a shared expert), or
       layer -1 with "output" for the logits (the last token of a batch; speculative decoding: the
       pending token and the proposals). q, k, v (and gate, up)
       share one input: each gets its own call. NULL = none. */
    void (*observer)(void *user, int layer, const char *weight, const float *x, int n_tokens, int cols);
    void *observer_user;
    /* Sparse KV cache (SparAMX style): the K and V rows of the positions fed as input (prompts,
       srt_session_feed; generated tokens stay dense) keep only the largest-magnitude values of each
       head, stored compact (a bitmap + the kept F16 values), so that attention over a long prompt
       reads fewer bytes. The fraction of each head's K / V values dropped: 0 = dense (default),
       else from the head size's break-even (the bitmap must pay off: 5/64 at head size 64) to 0.95.
       F16 KV cache on the CPU only (else SRT_ERR_UNSUPPORTED). A session keeps up to 64 separate
       pruned stretches (turns); input fed after that stays dense. */
    float kv_sparsity_k, kv_sparsity_v;
    /* Sliding-window layers (Gemma 2 / 3) keep only their last 2 windows + n_batch - 1 positions,
       in a ring (Gemma 3 at 32k: a fifth of the full cache), unless swa_full = 1 or the KV cache is
       sparse. srt_session_truncate further back than the ring's spare window evaluates the
       sequence again from its start (the rows the window needs are gone); a saved state holds a
       sliding layer's last window - 1 positions, so the same goes for a truncation before a loaded
       state's end. */
    int swa_full;
} srt_session_desc;

SRT_API srt_status srt_session_create(srt_model *model, const srt_session_desc *desc, srt_session **out);
SRT_API void srt_session_destroy(srt_session *s);
/* Forgets the conversation (KV cache, history); keeps the allocation. */
SRT_API void srt_session_reset(srt_session *s);
/* Keeps the first n tokens of the sequence and forgets the rest: to regenerate a reply, edit the
   last message, or go on from a shared beginning without evaluating it again. The next
   distribution is the one after token n - 1 again (that one token is evaluated again when needed;
   with a sparse KV cache its rows are stored dense then). n = 0 empties the sequence as
   srt_session_reset does, but the sampler's random state goes on, as it does for n > 0 (sampling
   again gives another draw). SRT_ERR_INVALID_ARG unless 0 <= n <= srt_session_pos. */
SRT_API srt_status srt_session_truncate(srt_session *s, int n);
/* Evaluates tokens (in batches) at the current position; the logits of the last one become the
   distribution for the next srt_session_next(). SRT_ERR_CONTEXT_FULL if they do not fit. */
SRT_API srt_status srt_session_feed(srt_session *s, const int32_t *tokens, int n);
/* Tokenizes `text` (flags as srt_tokenize) and feeds it. At position > 0 no BOS is added and no
   dummy-prefix space either: the text continues the sequence exactly as written. */
SRT_API srt_status srt_session_prompt(srt_session *s, const char *text, int flags);
/* Samples the next token from the current distribution and makes it part of the sequence (it is
   evaluated lazily, on the next call that needs its logits). */
SRT_API srt_status srt_session_next(srt_session *s, int32_t *token);
/* Speculative decoding: draws what srt_session_next draws, several tokens per evaluation.
   draft = n_draft tokens proposed to follow the sequence (srt_draft_lookup, a smaller model's
   greedy guesses, ...). They are evaluated in one batch with the pending token, so the weights are
   read once for all of them, and taken while the sampler agrees. Greedy (temperature 0) keeps a
   proposal that is the argmax: the tokens are those srt_session_next would give (a batch's logits
   are a single token's bit for bit on the CPU, but for bf16 / sb-bf16 weights on AMX, whose batch
   products differ in the last bits: a near tie may then go the other way). With a temperature a
   proposal x is kept with the probability p(x) the sampler gives it, else a token is drawn from p
   without x: every token is drawn from exactly p, whatever was proposed (the draws differ from
   srt_session_next's). The first token that is not a kept proposal (the correction, or one more
   after all were kept) ends the call: the tokens go into the sequence and into out (room for
   n_draft + 1), *n_out of them (1 .. n_draft + 1). At most SRT_DRAFT_MAX, n_batch - 1 and the room
   in the context less one proposals are checked (none: as srt_session_next). On a backend the
   batch and single-token logits may differ in the last bits (CUDA's tensor-core and cuBLAS paths),
   so may greedy near ties. Errors as srt_session_next, and SRT_ERR_UNSUPPORTED on a backend without
   srt_backend.forward_rows (SYCL). */
#define SRT_DRAFT_MAX 16
SRT_API srt_status srt_session_next_draft(srt_session *s, const int32_t *draft, int n_draft, int32_t *out, int *n_out);
/* Prompt lookup (a draft without a second model): finds the latest earlier occurrence of the last
   g tokens of tokens[0..n), g from ngram_max down to ngram_min (>= 1), and copies up to cap of the
   tokens that followed it into draft. Returns how many (0: no match). Output that repeats the
   prompt or itself (code edits, quotes, summaries, lists) is drafted well. */
SRT_API int srt_draft_lookup(const int32_t *tokens, int n, int ngram_min, int ngram_max, int32_t *draft, int cap);
/* Logits (n_vocab floats) of the current distribution; NULL if there is none yet. */
SRT_API const float *srt_session_logits(srt_session *s);
SRT_API int srt_session_pos(const srt_session *s);       /* tokens in the sequence */
SRT_API int srt_session_n_ctx(const srt_session *s);
SRT_API const int32_t *srt_session_tokens(const srt_session *s);
/* Restarts the sampler's random sequence from seed (as srt_sampler_desc.seed: 0 = the default),
   e.g. after srt_session_load when the app's own seed should rule instead of the saved state's. */
SRT_API void srt_session_seed(srt_session *s, uint64_t seed);
/* Asks the session to stop (thread-safe, from any thread): a running srt_session_feed/prompt stops
   between batches with SRT_ERR_CANCELLED (the tokens it had not evaluated are dropped); a running
   srt_generate stops after the current token; with none running, the next srt_session_next returns
   SRT_ERR_CANCELLED and leaves the sequence as it was (call it again to go on). feed, prompt and
   generate first clear a request left over from before they started. The session must outlive
   the call: join (or otherwise wait for) a cancelling thread before srt_session_destroy. */
SRT_API void srt_session_cancel(srt_session *s);
/* Session state: the sequence, its KV cache, the current distribution and the sampler's random
   state as bytes (formats/SESSION.md) that a session of the same model takes up again later, in
   this process or another: a conversation resumes, or a long shared beginning (a system prompt)
   is evaluated once and reused, without evaluating anything again; sampling after a load draws
   what the saved session would have drawn next. The loading session needs the same model (its
   hyperparameters and weight checksums are compared), the same KV type, room for the tokens
   (else SRT_ERR_CONTEXT_FULL), and, when the state holds pruned stretches (kv_sparsity), the same
   sparsity. Its own n_ctx, n_batch and sampler settings stay. The state does not depend on where
   the session runs: one saved on a backend (CUDA, SYCL) loads on the CPU and the other way round
   (a backend without srt_backend.kv_copy refuses with SRT_ERR_UNSUPPORTED; a device error, or no
   memory for the copy, while a backend's cache is written leaves that session empty).
   srt_session_state_save writes the state into buf (cap bytes) and sets *size to its length; with
   buf NULL it only sets *size (SRT_ERR_INVALID_ARG, *size set, when cap is too small).
   srt_session_state_load takes a state over; on any error (SRT_ERR_FORMAT, SRT_ERR_CHECKSUM, a
   newer version SRT_ERR_UNSUPPORTED, another model or KV type SRT_ERR_INVALID_ARG) the session is
   left as it was. srt_session_save / _load do the same with a file (written to PATH.tmp, then
   renamed over PATH, so a failed save leaves the old file). */
SRT_API srt_status srt_session_state_save(srt_session *s, void *buf, size_t cap, size_t *size);
SRT_API srt_status srt_session_state_load(srt_session *s, const void *data, size_t size);
SRT_API srt_status srt_session_save(srt_session *s, const char *path);
SRT_API srt_status srt_session_load(srt_session *s, const char *path);

typedef struct srt_generate_desc {
    const char *prompt;      /* text to feed first (may be NULL or "") */
    int prompt_flags;        /* as srt_tokenize */
    int max_tokens;          /* new tokens to produce; 0 = until EOS or the context is full */
    int stop_at_eos;         /* 0 = default (yes: EOS and the end-of-turn tokens, srt_token_is_eog); -1 = no */
    /* Called with whole UTF-8 characters as they are produced; return nonzero to stop. It may read the
       session (srt_session_pos, _tokens) and call srt_session_cancel (generation stops after this
       token), but not change it otherwise: reset or destroy it after srt_generate has returned. */
    int (*on_text)(const char *text, int len, int32_t token, void *user);
    void *user;
    /* Speculative decoding (srt_session_next_draft; not on SYCL): up to draft_max tokens (<=
       SRT_DRAFT_MAX) are proposed and checked per evaluation; 0 = off. The count adapts: after an
       evaluation that kept all its proposals the next checks twice as many, else one more than it
       kept (a proposal not kept costs a row of evaluation). The proposals come from
       draft, a session of a smaller model with the same vocabulary (it follows the sequence and
       guesses with its own sampler: make it greedy), or, with draft NULL, from prompt lookup
       (srt_draft_lookup, n-grams of draft_ngram (0 = 3) down to 1 tokens). */
    int draft_max;
    int draft_ngram;
    srt_session *draft;
} srt_generate_desc;
typedef struct srt_generate_result {
    int n_prompt, n_generated;
    double prompt_ms, decode_ms;
    int stopped_by;          /* 0 max_tokens, 1 eos, 2 callback, 3 cancelled, 4 context full (3 and 4
                                also when it happens to the prompt; 0 for other errors) */
    int n_passes;            /* evaluations of the model while decoding (speculative decoding: fewer than tokens) */
    int n_proposed, n_accepted;   /* speculative decoding: tokens proposed, and kept */
} srt_generate_result;
SRT_API srt_status srt_generate(srt_session *s, const srt_generate_desc *desc, srt_generate_result *result);

/* ---------------------------------------------------------------- grammars */
/* Constrained decoding: a grammar in GBNF, as llama.cpp writes it (its grammars/README.md), limits
   what the sampler may draw to text the grammar can still complete: JSON, a fixed set of answers,
   a tool call's arguments. Rules are `name ::= alternatives` (names of letters, digits, '-' and
   '_'; a rule ends at the end of its line, but after "::=", after '|' and inside parentheses);
   terminals are "literals" and [character classes] ([^...] negated, ranges a-z) with the escapes
   \n \r \t \\ \" \[ \] \- \^ \xHH \uHHHH \UHHHHHHHH, and '.' is any character; ( ) groups; * + ?
   and {m} {m,} {m,n} (m, n <= 1000) repeat the element before them; '#' starts a comment. The
   text must match rule "root". Matching is on Unicode code points of UTF-8 text. A grammar is
   refused (SRT_ERR_FORMAT, srt_last_error() names the line and column) when it does not parse, a
   rule is used but not defined or defined twice, root is missing, or a rule is left-recursive
   (`a ::= a "x"`, also through rules that match the empty text), which the matcher could not run.
   Token references, as llama.cpp writes them: <[ID]> is the token of that id, <TEXT> the one
   token whose piece (else text) is <TEXT> (`<|channel|>`, `<think>`, `<s>`): the token itself, not
   text that spells it, so control tokens can be asked for. Such a token is matched as the
   grammar's symbol only (where the grammar has no reference to it here, it is not drawn, not even
   as text or to end the text), and no character class or '.' takes one. They need a vocabulary:
   srt_session_set_grammar resolves them (SRT_ERR_INVALID_ARG for an id past the vocabulary or a
   TEXT that is no token's), srt_grammar_match refuses them (SRT_ERR_UNSUPPORTED); llama.cpp's
   negated !<...> is SRT_ERR_UNSUPPORTED too. A lazy grammar's triggers are text, and the text
   from the trigger on is fed to it as text. */
/* JSON as RFC 8259 writes it, an object at the top (OpenAI's "json_object" mode); whitespace
   limited to one space or a newline and indentation, so that a model cannot spin in it. */
#define SRT_GRAMMAR_JSON \
    "root   ::= object\n" \
    "value  ::= object | array | string | number | (\"true\" | \"false\" | \"null\")\n" \
    "object ::= \"{\" ws ( string ws \":\" ws value ws ( \",\" ws string ws \":\" ws value ws )* )? \"}\"\n" \
    "array  ::= \"[\" ws ( value ws ( \",\" ws value ws )* )? \"]\"\n" \
    "string ::= \"\\\"\" ( [^\"\\\\\\x00-\\x1f] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} ) )* \"\\\"\"\n" \
    "number ::= \"-\"? ( \"0\" | [1-9] [0-9]{0,15} ) ( \".\" [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?\n" \
    "ws     ::= ( \" \" | \"\\n\" [ ]{0,20} )?\n"
/* Whether text[0..len) is in the language of grammar gbnf: *result = SRT_GRAMMAR_COMPLETE (it
   matches root), | SRT_GRAMMAR_PREFIX (the grammar takes a character after it), or 0 (the grammar
   refuses it; also invalid UTF-8). Errors: those of a refused grammar. */
enum { SRT_GRAMMAR_PREFIX = 1, SRT_GRAMMAR_COMPLETE = 2 };
SRT_API srt_status srt_grammar_match(const char *gbnf, const char *text, size_t len, int *result);
/* Constrains what srt_session_next (and srt_generate, srt_chat_next) draws from now on: each token
   keeps the text drawn a prefix of the grammar's language (its bytes as srt_token_bytes gives them,
   a SentencePiece dummy-prefix space included), control tokens but those that end generation are
   never drawn, and those (srt_token_is_eog) only once the text is complete; once nothing can follow,
   only they can be. The text starts at the sequence's current end and starts again after each input
   (srt_session_feed, _prompt, srt_generate's prompt: the grammar constrains each answer), after
   srt_session_reset, a state load, or a truncation to before its start; a truncation inside it
   takes the text back with the tokens. The tokens are drawn from the sampler's distribution less
   the tokens the grammar forbids (top-k, top-p and min-p choose among the allowed ones).
   srt_session_next_draft draws one token at a time while a grammar is set. gbnf NULL = none.
   Errors: a refused grammar (the session keeps its earlier one), SRT_ERR_OUT_OF_MEMORY; later,
   srt_session_next gives SRT_ERR_UNSUPPORTED when no token of the vocabulary continues the text. */
SRT_API srt_status srt_session_set_grammar(srt_session *s, const char *gbnf);
/* A lazy grammar: the text is free until one of the trigger strings (1 .. 64 of them, each 1 .. 256
   bytes) appears in it; the grammar's text is the rest, from that trigger's first byte on (so its
   root starts with the trigger). A draw that would start it with text the grammar refuses (a
   token that completes a trigger and goes on wrongly) is drawn again without that token. Tool
   calls: trigger "<tool_call>", the grammar the calls' syntax (srt_chat_desc.tool_grammar). The
   rest as srt_session_set_grammar (which is this with no triggers); each input starts the text
   again, before any trigger. */
SRT_API srt_status srt_session_set_grammar_lazy(srt_session *s, const char *gbnf, const char *const *triggers, int n_triggers);
/* A grammar for the JSON texts a JSON Schema (Draft 2020-12 and earlier) describes, the JSON as
   tojson writes it (", ", ": " or a newline and indentation). Followed:
   - "type" (a name or an array of them), "enum", "const", "anyOf" / "oneOf", OpenAPI's "nullable";
   - "properties" in their order, the "required" ones always there, and more only with
     "additionalProperties" true or a schema;
   - "items", "prefixItems" (all there), "minItems", "maxItems";
   - "minLength", "maxLength", "pattern" (ECMAScript regular expressions without back-references,
     lookarounds and word boundaries), "format" date / time / date-time / uuid;
   - "minimum" / "maximum" and their exclusive forms (a number in a range has no exponent);
   - "allOf" (properties and required merged, other keywords must agree);
   - "$ref" to "#" or a JSON pointer in the schema ("#/$defs/Name"), recursion included.
   Not checked: other formats, multipleOf, the number of properties. A schema without any of these
   (or true) takes any JSON value. Writes at most cap - 1 bytes and a NUL into buf (NULL with cap 0
   to measure); *len receives the full length. SRT_ERR_INVALID_ARG, with the byte, for a schema
   that is not JSON, has an unknown type, a $ref that points nowhere or outside the schema, parts
   of an allOf that disagree, a minimum above its maximum, a pattern it cannot check, or recursion
   that reads nothing first; and (with *len set) when cap is too small. */
SRT_API srt_status srt_grammar_from_json_schema(const char *schema, char *buf, size_t cap, size_t *len);

/* ---------------------------------------------------------------- quantization */
/* Bytes of each part of a rows x cols tensor in `format` with `group` (0 = format default). */
typedef struct srt_tensor_parts {
    int n_parts;
    uint32_t kind[4];        /* SRT_PART_* */
    uint64_t size[4];
} srt_tensor_parts;
enum { SRT_PART_VALUES = 0, SRT_PART_SCALES = 1, SRT_PART_BITMAP = 2, SRT_PART_OFFSETS = 3, SRT_PART_INDEX = 4 };
/* Sparse formats (sb-bf16, sb-q8, sb-q4, s4x1): the sizes of their values and index parts depend on
   which weights are zero, so srt_tensor_layout gives an upper bound for those two (every weight
   stored) and srt_tensor_layout_data the exact sizes for rows x cols floats `src`, which is what
   srt_quantize then fills. For dense formats the two functions agree (src is not read). */
SRT_API srt_status srt_tensor_layout(srt_format format, uint64_t rows, uint64_t cols, uint32_t group, srt_tensor_parts *parts);
SRT_API srt_status srt_tensor_layout_data(srt_format format, uint64_t rows, uint64_t cols, uint32_t group, const float *src, srt_tensor_parts *parts);
/* 1 for the sparse formats. */
SRT_API int srt_format_is_sparse(srt_format format);
/* Converts rows x cols floats (row-major) to `format`; parts[i] must hold layout.size[i] bytes
   (sparse formats: the sizes srt_tensor_layout_data gives for the same src). Every byte of every
   part is written. */
SRT_API srt_status srt_quantize(srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts);
/* Converts back to floats (reference dequantization). */
SRT_API srt_status srt_dequantize(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst);
/* The same on the threads of `pool` (NULL = this thread); the results do not depend on the
   thread count. */
SRT_API srt_status srt_quantize_pool(srt_pool *pool, srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts);
SRT_API srt_status srt_dequantize_pool(srt_pool *pool, srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst);
SRT_API float srt_f16_to_f32(uint16_t h);
SRT_API uint16_t srt_f32_to_f16(float f);
SRT_API float srt_bf16_to_f32(uint16_t h);
SRT_API uint16_t srt_f32_to_bf16(float f);

/* Reference matrix-vector kernel (portable C, this thread): y[M] = W[M x K] * x[K] for a tensor in
   `format`. Every SIMD kernel reproduces it: bit for bit (formats/LAYOUTS.md says how). */
SRT_API srt_status srt_matvec(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                              const float *x, float *y);
/* The runtime's kernels: y[t * M + r] = W[r] . x[t * K] for n tokens, on `pool` (NULL = this
   thread) with the kernels of instruction set `isa` (SRT_ISA_AUTO = as srt_isa_resolve). */
SRT_API srt_status srt_matmul(srt_pool *pool, srt_isa isa, srt_format format, uint32_t group, const void *const *parts,
                              uint64_t rows, uint64_t cols, int n, const float *x, float *y);

/* ---------------------------------------------------------------- .srt writer */
typedef struct srt_writer srt_writer;
typedef enum srt_meta_type {
    SRT_META_U32 = 0, SRT_META_I32 = 1, SRT_META_F32 = 2, SRT_META_STR = 3,
    SRT_META_ARR_U32 = 4, SRT_META_ARR_I32 = 5, SRT_META_ARR_F32 = 6, SRT_META_ARR_STR = 7,
    SRT_META_ARR_U8 = 8, SRT_META_TYPE_COUNT
} srt_meta_type;
/* Writes to "<path>.tmp" and renames to `path` in srt_writer_finish(); nothing appears under
   `path` unless it succeeds. */
SRT_API srt_status srt_writer_open(const char *path, srt_writer **out);
SRT_API srt_status srt_writer_meta_u32(srt_writer *w, const char *key, uint32_t v);
SRT_API srt_status srt_writer_meta_i32(srt_writer *w, const char *key, int32_t v);
SRT_API srt_status srt_writer_meta_f32(srt_writer *w, const char *key, float v);
SRT_API srt_status srt_writer_meta_str(srt_writer *w, const char *key, const char *v);
/* Arrays: type is SRT_META_ARR_*; for ARR_STR `data` is const char *const *. */
SRT_API srt_status srt_writer_meta_arr(srt_writer *w, const char *key, srt_meta_type type, const void *data, uint32_t n);
/* Quantizes rows x cols floats to `format` and appends the tensor. 1-D tensors have rows = 1. */
SRT_API srt_status srt_writer_add_tensor(srt_writer *w, const char *name, srt_format format, uint32_t group,
                                         uint64_t rows, uint64_t cols, const float *data);
/* Quantizes the tensors added from now on with the threads of `pool` (NULL = this thread; not
   owned, must outlive its use); the file does not depend on the thread count. */
SRT_API void srt_writer_set_pool(srt_writer *w, srt_pool *pool);
SRT_API srt_status srt_writer_finish(srt_writer *w);     /* always frees w */
SRT_API void srt_writer_abort(srt_writer *w);            /* removes the temporary file, frees w */
SRT_API uint64_t srt_writer_bytes(const srt_writer *w);  /* bytes written so far */

/* ---------------------------------------------------------------- chat templates */
/* Conversations rendered into the text a chat model was trained on. There is no Jinja engine:
   the template stored with the model (tokenizer.chat_template, verbatim from the checkpoint) is
   recognised by its markers and rendered natively, byte for byte as the Jinja template renders
   system / user / assistant turns (Hugging Face settings: trim_blocks, lstrip_blocks). */
typedef enum srt_chat_format {
    SRT_CHAT_CHATML = 0,      /* "chatml": <|im_start|>role\ncontent<|im_end|>\n (Qwen, SmolLM, many fine-tunes) */
    SRT_CHAT_LLAMA3 = 1,      /* "llama3": <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|> (3.1+: dated system block) */
    SRT_CHAT_LLAMA2 = 2,      /* "llama2": <s>[INST] <<SYS>>\nsys\n<</SYS>>\n\nuser [/INST] answer </s> */
    SRT_CHAT_MISTRAL = 3,     /* "mistral": <s> [INST] user [/INST] answer</s> (Mistral 7B v0.1, Mixtral) */
    SRT_CHAT_MISTRAL_V3 = 4,  /* "mistral-v3": <s>[INST] user[/INST] answer</s> (Mistral 7B v0.3; the system
                                 prompt goes into the last user turn) */
    SRT_CHAT_PHI3 = 5,        /* "phi3": <|user|>\ncontent<|end|>\n<|assistant|>\n */
    SRT_CHAT_ZEPHYR = 6,      /* "zephyr": <|user|>\ncontent</s>\n<|assistant|>\n */
    SRT_CHAT_GEMMA = 7,       /* "gemma": <bos><start_of_turn>user\ncontent<end_of_turn>\n<start_of_turn>model\n
                                 (a system message prefixes the first user turn, as in Gemma 3) */
    SRT_CHAT_TULU = 8,        /* "tulu": <bos><|user|>\ncontent\n<|assistant|>\nanswer<eos>\n (Tulu 3, OLMo 2 and OLMoE
                                 Instruct: EOS after replies only) */
    SRT_CHAT_GRANITE = 9,     /* "granite": <|start_of_role|>role<|end_of_role|>content<|end_of_text|>\n, always a
                                 system turn first (Granite 3.1 and later: a dated default_system) */
    SRT_CHAT_EXAONE4 = 10,    /* "exaone4": [|role|]\ncontent[|endofturn|]\n, a reply opened by an empty reasoning block
                                 "<think>\n\n</think>\n\n" (EXAONE 4.0 in its default, non-reasoning mode) */
    SRT_CHAT_MINICPM = 11,    /* "minicpm": <USER>question<AI>answer, other roles' content as it is (MiniCPM 1 / 2; trimmed;
                                 USER is the two characters U+7528 U+6237) */
    SRT_CHAT_OLMO3 = 12,      /* "olmo3": ChatML with OLMo 3 Think's rules: system messages end with " You do not currently
                                 have access to any functions. <functions></functions>", a last reply with EOS, and the
                                 reply opens with "<think>" (a default_system when the conversation has none) */
    SRT_CHAT_HARMONY = 13,    /* "harmony": gpt-oss's <|start|>role<|message|>content<|end|>, after a fixed system message
                                 (identity, knowledge cutoff, date, "Reasoning: medium"); the conversation's system message
                                 becomes the developer message "# Instructions\n\n...\n\n"; replies are written as their final
                                 channel "<|start|>assistant<|channel|>final<|message|>A<|end|>" (the reasoning dropped) */
    SRT_CHAT_SMOLLM3 = 14,    /* "smollm3": ChatML with SmolLM3's system block always first ("## Metadata": knowledge cutoff,
                                 today as "29 November 2026", "Reasoning Mode: /think" or "/no_think" (no_think, or the system
                                 message saying so); "## Custom Instructions": the system message, or the template's own);
                                 without /think each reply opens with an empty "<think>\n\n</think>\n" */
    SRT_CHAT_EXAONE3 = 15,    /* "exaone3": [|role|]content, then "\n" after a user turn and "[|endofturn|]\n" after the others;
                                 an empty system turn "[|system|][|endofturn|]\n" first when the conversation has none
                                 (EXAONE 3.0 / 3.5) */
    SRT_CHAT_FORMAT_COUNT
} srt_chat_format;

typedef struct srt_chat_message {
    const char *role;         /* "system", "user", "assistant"; "tool" for a tool's result where the template has tools
                                 (srt_chat_template.tool_use); chatml and llama3 also render other roles */
    const char *content;      /* UTF-8 */
} srt_chat_message;

/* A plain struct; fill it with srt_chat_template_from_model/_from_text/_by_name, then adjust. */
typedef struct srt_chat_template {
    srt_chat_format format;
    int guessed;              /* 1 = the stored template was not recognised (or absent): ChatML is used */
    char bos[48], eos[48];    /* text of the model's BOS / EOS tokens, where the template writes them */
    char default_system[1024];/* system prompt the template inserts when a conversation has none ("" = none; granite:
                                 its system turn is then empty) */
    int dated_system;         /* llama3 (3.1 and later): every conversation starts with a system block
                                 "Cutting Knowledge Date: December 2023\nToday Date: <date>\n\n<system>" */
    char date[24];            /* that date, "26 Jul 2024" (the templates' fallback), or today's date (UTC)
                                 when the template asks for strftime_now; harmony: today as "2026-11-29"; smollm3: as
                                 "29 November 2026" */
    char stop[4][32];         /* texts of the tokens that end an assistant turn ("<|im_end|>"); generation
                                 should stop at them (as well as at EOS) */
    int think;                /* 1 = Qwen3's reasoning rules (a ChatML template that splits replies at
                                 "</think>" around the last user query): an assistant message before the
                                 last user message renders without its reasoning (only what follows the
                                 last "</think>", newlines stripped), a later one with the reasoning as
                                 "<think>\nR\n</think>\n\nA" (an empty block for the last message) */
    int no_think;             /* set by the app, with think: the reply opens with an empty reasoning
                                 block "<think>\n\n</think>\n\n" (Qwen3's enable_thinking=false); smollm3: the
                                 reasoning mode /no_think (its enable_thinking=false; the system message's /think
                                 or /no_think wins) */
    char reasoning[8];        /* harmony: the reasoning effort its system message names, "low", "medium" or
                                 "high" (the template's reasoning_effort; "" = medium, its default) */
    int tool_use;             /* 1 = the template renders tools and tool results (set when it is recognised: a ChatML
                                 template with Qwen's <tool_call> block (Qwen2.5, Qwen3, Hermes), a Llama 3.1+ one with
                                 the ipython role, gpt-oss's with its tool namespace, SmolLM3's with its xml_tools). Then
                                 a message of role "tool"
                                 (llama3: or "ipython") is a tool's result: chatml writes consecutive ones into one user
                                 turn as <tool_response>\nR\n</tool_response>, llama3 as an ipython turn and harmony as
                                 "<|start|>functions.NAME to=assistant<|channel|>commentary<|message|>" (NAME: the call
                                 of the reply before it), both with the content written as a JSON string (the templates'
                                 tojson). harmony writes a reply that calls a tool as its template does: its reasoning
                                 (unless a later reply answers) and the call, the arguments through tojson. */
    const char *tools;        /* the tools the model may call, or NULL / "": a JSON array of definitions, each
                                 written as the template's tojson writes it (Python's json.dumps: ", " and ": ", or
                                 indented by 4 for llama3); OpenAI's form {"type": "function", "function": {"name",
                                 "description", "parameters"}} is what the models were trained on. chatml: the system
                                 block lists them in <tools>; llama3: the first user message does (Llama 3.1's default
                                 tools_in_user_message); harmony: the developer message, as a TypeScript namespace of
                                 the JSON schemas; smollm3: its system block, each written by Python's str(). Needs tool_use (else SRT_ERR_UNSUPPORTED); JSON that is not an array
                                 of objects (strict RFC 8259, valid UTF-8, 64 levels at most), or for harmony one its
                                 template cannot write (a function without a description, ...): SRT_ERR_INVALID_ARG.
                                 Not copied by the render (srt_chat copies srt_chat_desc.tools). Duplicate keys are
                                 written as they are (Python keeps the last one's value). */
} srt_chat_template;

SRT_API const char *srt_chat_format_name(srt_chat_format f);  /* "chatml", ...; NULL if out of range */
SRT_API int srt_chat_format_from_name(const char *name);       /* -1 if unknown */
/* Recognises a Jinja template text (NULL or "" = none). An unknown template gives ChatML,
   guessed = 1 and a logged warning; it is still SRT_OK. bos/eos: the token texts (NULL = the
   family's usual ones). */
SRT_API srt_status srt_chat_template_from_text(const char *jinja, const char *bos, const char *eos, srt_chat_template *out);
/* The model's template: name NULL = recognised from tokenizer.chat_template; otherwise a format
   name (srt_chat_format_name), which then wins (the stored template still supplies its default
   system prompt if it is of that format). SRT_ERR_INVALID_ARG for an unknown name. */
SRT_API srt_status srt_chat_template_from_model(const srt_model *model, const char *name, srt_chat_template *out);
/* Renders n messages (+ the opening of an assistant turn if add_generation_prompt) into buf:
   at most cap - 1 bytes and a NUL; *len receives the full length. SRT_ERR_INVALID_ARG (with *len
   set) when cap is too small, or for a role the format cannot express. */
SRT_API srt_status srt_chat_render(const srt_chat_template *t, const srt_chat_message *msgs, int n, int add_generation_prompt,
                                   char *buf, size_t cap, size_t *len);
/* A reply's reasoning and answer, as spans of its text (also of one still being generated: either
   may end early). harmony: the first analysis message's text and the last final message's (up to
   its <|end|> / <|return|>); a reply without channels is all answer. Reasoning formats (Qwen3's
   think, exaone4, olmo3): the text between <think> and </think> (olmo3: from the start, its
   generation prompt opens the block; the others: from the start when only </think> is there) and
   what follows </think>, newlines before it skipped; a reply without them is all answer. Other
   formats: no reasoning, the whole reply. reply NULL counts as "". reasons: 1 for the formats
   that carry reasoning (an app shows their replies through this split), 0 for the others. */
typedef struct srt_chat_reply_parts {
    const char *reasoning; size_t reasoning_len;
    const char *answer; size_t answer_len;
    int reasons;
} srt_chat_reply_parts;
SRT_API void srt_chat_reply_split(const srt_chat_template *t, const char *reply, srt_chat_reply_parts *out);
/* The tools a finished reply calls, as spans of its text: chatml (tool_use): each <tool_call> block holding
   {"name": NAME, "arguments": {...}} (Qwen / Hermes; smollm3 too; a reply may call several); llama3: a reply that is one
   JSON object {"name": NAME, "parameters": {...}} (or "arguments"), after an optional <|python_tag|> (Llama
   3.1's JSON tool calls); harmony: the last message's "to=functions.NAME" header (in either of its places)
   and the JSON object after its <|message|> (one call a reply: <|call|> ends it); any other reply calls
   nothing. name: the function's name (a chatml / llama3 name with escapes is refused); arguments: the
   object as the model wrote it. *n = the calls (the first cap are written to calls). SRT_ERR_FORMAT, with
   srt_last_error saying what is wrong, for a chatml <tool_call> block that is not such an object or is not
   closed, or a harmony call without a name or an object (an app can tell the model so); other formats:
   *n = 0. */
typedef struct srt_chat_tool_call {
    const char *name; size_t name_len;
    const char *arguments; size_t arguments_len;
} srt_chat_tool_call;
SRT_API srt_status srt_chat_tool_calls(const srt_chat_template *t, const char *reply, srt_chat_tool_call *calls, int cap, int *n);
/* Conversation files: srt_session_save with n messages kept beside the state (role and content:
   any bytes but NUL; roles not empty), so that an app takes a chat up again with its messages and
   its KV cache. srt_session_load_chat loads the state as srt_session_load does and hands the
   messages back in one allocation, *msgs (NULL when none), to free with srt_chat_messages_free.
   srt_session_load reads such a file too (the messages are skipped). */
SRT_API srt_status srt_session_save_chat(srt_session *s, const char *path, const srt_chat_message *msgs, int n);
SRT_API srt_status srt_session_load_chat(srt_session *s, const char *path, srt_chat_message **msgs, int *n);
SRT_API void srt_chat_messages_free(srt_chat_message *msgs);

/* ---------------------------------------------------------------- chats */
/* A conversation over a session: the messages, rendered with the model's chat template and fed
   turn by turn so that only what is new gets evaluated; the oldest exchanges make room when the
   context window fills; the last reply can be generated again and the last exchange taken back;
   the whole conversation goes to a file and comes back (srt_session_save_chat, with the text the
   session's tokens stand for as a last message of role "srt-chat:fed"). The app draws the reply
   token by token (srt_chat_next) and shows it with srt_utf8_stream_token.
     srt_chat *c; srt_chat_desc d = {0};
     srt_chat_create(session, &d, &c);
     srt_chat_send(c, "Hello!", NULL);
     while (srt_chat_next(c, &tok, &end) == SRT_OK && !end) show(tok);
   The chat does not own the session, and while it is in use only the chat feeds, truncates or
   loads it (srt_session_cancel from another thread and the getters are fine). A session that
   already holds tokens (a prompt cache loaded into it) keeps those the first turn begins with. */
typedef struct srt_chat srt_chat;
typedef struct srt_chat_desc {
    const char *template_name; /* NULL = the model's (srt_chat_template_from_model) */
    const char *system_prompt; /* the system message; NULL = none (the template may add its default) */
    int max_tokens;            /* a reply ends after this many tokens (end = SRT_CHAT_END_LIMIT); 0 = at
                                  the end of the turn or of the context. The context keeps room for a
                                  reply of this many tokens, at most half of it (0: a quarter). */
    int ignore_eos;            /* 1 = neither EOS nor the template's stop tokens end a reply */
    int no_think;              /* 1 = replies without reasoning where the template has the switch
                                  (srt_chat_template.think: Qwen3; smollm3); earlier replies' reasoning is never
                                  fed again where the template drops it */
    const char *reasoning;     /* harmony (gpt-oss): the reasoning effort, "low", "medium" or "high"; NULL = the
                                  template's (medium); another value: SRT_ERR_INVALID_ARG */
    const char *tools;         /* the tools the model may call (srt_chat_template.tools; copied): SRT_ERR_UNSUPPORTED
                                  when the template has none, SRT_ERR_INVALID_ARG when it is not a JSON array of
                                  objects. The app runs the calls (srt_chat_tool_calls of the reply) and hands their
                                  results back as messages of role "tool" (srt_chat_send_messages). */
    int tool_grammar;          /* 1 = constrained tool calls (srt_session_set_grammar_lazy, set on the session by
                                  srt_chat_create, removed by srt_chat_destroy): from the call's opening on
                                  ("<tool_call>" in chatml and smollm3; in llama3, the reply's {"name"), the calls
                                  are the template's syntax with a tool's name and arguments its "parameters"
                                  schema matches (srt_grammar_from_json_schema). Needs tools; SRT_ERR_UNSUPPORTED
                                  for harmony (its calls are in control tokens). */
    /* Speculative decoding, as srt_generate_desc's (not on SYCL; 0 = off): srt_chat_next hands out
       the tokens one evaluation drew one by one; the session may hold those not handed out yet,
       and any other call on the chat (and srt_chat_destroy) drops them from it again. */
    int draft_max;
    int draft_ngram;
    srt_session *draft;
} srt_chat_desc;
typedef struct srt_chat_turn {   /* what srt_chat_send did */
    int n_dropped;             /* exchanges dropped from the start (after the system message) to make room */
    int from_start;            /* 1 = the text fed is the whole conversation, not what it adds to the last
                                  turn (the first turn, after a reset, a load without fed text, dropped
                                  exchanges); the session kept the n_kept tokens it begins with */
    int rerendered;            /* 1 = from the start because the template renders earlier turns differently
                                  now than when they were fed */
    int n_tokens;              /* tokens of the text fed */
    int n_kept;                /* tokens in the session before the evaluated ones */
    int n_prompt;              /* tokens evaluated */
    const char *text;          /* the text fed (n_tokens tokens; valid until the next call on the chat) */
    size_t text_len;
} srt_chat_turn;
enum { SRT_CHAT_GOING = 0, SRT_CHAT_END_TURN = 1, SRT_CHAT_END_LIMIT = 2 };

SRT_API srt_status srt_chat_create(srt_session *s, const srt_chat_desc *desc, srt_chat **out);
SRT_API void srt_chat_destroy(srt_chat *c);
SRT_API const srt_chat_template *srt_chat_get_template(const srt_chat *c);
/* The conversation: the system message if any, then user and assistant messages; the reply being
   drawn is the last one (it grows with srt_chat_next). Valid until the next call on the chat. */
SRT_API const srt_chat_message *srt_chat_messages(const srt_chat *c, int *n);
/* Adds a user message, feeds what the conversation now renders beyond what the session holds,
   and opens the reply (an empty assistant message). turn may be NULL. On an error the message is
   not kept and the session holds no more than it held before the turn (exchanges dropped to make
   room stay dropped): SRT_ERR_CONTEXT_FULL when the message does not fit even with every earlier
   exchange dropped, SRT_ERR_CANCELLED (srt_session_cancel), SRT_ERR_INVALID_ARG for a role the
   template cannot render. */
SRT_API srt_status srt_chat_send(srt_chat *c, const char *text, srt_chat_turn *turn);
/* srt_chat_send for n messages at once, of any role the template renders but "system" and "assistant":
   the results of a reply's tool calls (role "tool", one message per call, in the calls' order), a user
   message. Added, fed and answered as one turn (srt_chat_undo takes all of them back); on an error none
   is kept. */
SRT_API srt_status srt_chat_send_messages(srt_chat *c, const srt_chat_message *msgs, int n, srt_chat_turn *turn);
/* Draws the reply's next token. *end = SRT_CHAT_GOING: *token is part of the reply (a control
   token's text goes into it too; srt_utf8_stream_token shows nothing for it); SRT_CHAT_END_TURN:
   the model ended its turn with *token (EOS, a template stop token or another end-of-turn token,
   srt_token_is_eog; not part of the reply);
   SRT_CHAT_END_LIMIT: max_tokens were drawn (*token = -1). SRT_ERR_CONTEXT_FULL: the reply is cut
   there. SRT_ERR_CANCELLED: nothing was drawn; calling again goes on. SRT_ERR_INVALID_ARG when no
   reply is open (before the first send, after its end). */
SRT_API srt_status srt_chat_next(srt_chat *c, int32_t *token, int *end);
/* The last reply again: the session goes back to where it began and the reply opens empty (the
   sampler goes on, so with a temperature > 0 it draws another one). SRT_ERR_INVALID_ARG when
   there is none (at the start, after srt_chat_undo, _reset or _load). */
SRT_API srt_status srt_chat_regenerate(srt_chat *c);
/* Takes back the last exchange (the user message and its reply); the session goes back to where
   it began. Once: SRT_ERR_INVALID_ARG when there is nothing to take back. */
SRT_API srt_status srt_chat_undo(srt_chat *c);
/* Starts over with the system message; its tokens stay in the session for the next turn to
   reuse. The sampler starts again from its seed, as in a new session. */
SRT_API void srt_chat_reset(srt_chat *c);
/* The conversation to a file and back (formats/SESSION.md). Tokens that a reset left in the
   session beyond the system message are dropped before a save. A load that fails leaves the
   messages as they were, and the next turn feeds the conversation from its start, keeping the
   tokens the session still holds that it begins with (a failed load may have emptied a backend's
   cache). So does the first turn after loading a file without the fed text (another app's). */
SRT_API srt_status srt_chat_save(srt_chat *c, const char *path);
SRT_API srt_status srt_chat_load(srt_chat *c, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* SPARSERT_H */

/* ================================================================================================
   IMPLEMENTATION
   Sections, each using only those above it:
     1 platform (includes, atomics, time, thread-local)   2 errors and logging   3 memory
     4 numbers (f16/bf16, CRC-32)   5 threads (srt_pool)   6 files (mapping)   7 weight formats
     8 .srt writer   9 .srt reader and model   10 tokenizer   11 sampler   12 transformer forward
     13 sessions and generation   14 chat templates   15 chats
   ================================================================================================ */
#ifdef SPARSERT_IMPLEMENTATION
#ifndef SPARSERT_IMPLEMENTATION_DONE
#define SPARSERT_IMPLEMENTATION_DONE

/* ---------------------------------------------------------------- 1 platform */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <math.h>
#include <float.h>
#include <limits.h>

#ifdef _WIN32
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>
#else
#  include <pthread.h>
#  include <sched.h>
#  include <time.h>
#  include <unistd.h>
#  include <fcntl.h>
#  include <sys/mman.h>
#  include <sys/stat.h>
#endif

#ifndef SRT_MALLOC
#  define SRT_MALLOC(sz) malloc(sz)
#  define SRT_REALLOC(p, sz) realloc(p, sz)
#  define SRT_FREE(p) free(p)
#endif
#ifndef SRT_ASSERT
#  include <assert.h>
#  define SRT_ASSERT(x) assert(x)
#endif

#if defined(__cplusplus) && __cplusplus >= 201103L
#  define SRT__TLS thread_local
#elif defined(_MSC_VER)
#  define SRT__TLS __declspec(thread)
#else
#  define SRT__TLS __thread
#endif

/* Atomics: GCC/Clang builtins (also MinGW); MSVC intrinsics. Sequentially consistent is plenty:
   they sit on fork/join edges, never in inner loops. */
#if defined(_MSC_VER) && !defined(__clang__)
#  include <intrin.h>
#  define srt__atomic_load(p)        _InterlockedOr64((volatile __int64 *)(p), 0)
#  define srt__atomic_store(p, v)    _InterlockedExchange64((volatile __int64 *)(p), (v))
#  define srt__atomic_add(p, v)      _InterlockedExchangeAdd64((volatile __int64 *)(p), (v))
#  define srt__atomic_cas(p, e, d)   (_InterlockedCompareExchange64((volatile __int64 *)(p), (d), (e)) == (e))
#else
#  define srt__atomic_load(p)        __atomic_load_n((p), __ATOMIC_SEQ_CST)
#  define srt__atomic_store(p, v)    __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#  define srt__atomic_add(p, v)      __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
static int srt__atomic_cas(int64_t *p, int64_t expected, int64_t desired) {   /* 1 if *p was `expected` */
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
#endif
/* 32-bit versions (futex / WaitOnAddress words) and a spin-wait hint. */
#if defined(_MSC_VER) && !defined(__clang__)
#  define srt__atomic_load32(p)      _InterlockedOr((volatile long *)(p), 0)
#  define srt__atomic_store32(p, v)  _InterlockedExchange((volatile long *)(p), (long)(v))
#  define srt__atomic_add32(p, v)    _InterlockedExchangeAdd((volatile long *)(p), (long)(v))
#  define srt__cpu_relax()           YieldProcessor()
#else
#  define srt__atomic_load32(p)      __atomic_load_n((p), __ATOMIC_SEQ_CST)
#  define srt__atomic_store32(p, v)  __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#  define srt__atomic_add32(p, v)    __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#  if defined(__x86_64__) || defined(__i386__)
#    define srt__cpu_relax()         __builtin_ia32_pause()
#  elif defined(__aarch64__)
#    define srt__cpu_relax()         __asm__ __volatile__("yield")
#  else
#    define srt__cpu_relax()         ((void)0)
#  endif
#endif

/* fmaf, correctly rounded: the portable kernels match the FMA kernels bit for bit only with a fused
   multiply-add. mingw-w64's libm fmaf is not fused (a*b is rounded first; 1 ulp off in about one
   call in five), so there, without -mfma, it is done here: a*b is exact in double, the sum is
   rounded to odd in double (TwoSum gives its error e; 53 >= 2 * 24 + 2 bits), and rounding that to
   float gives the correctly rounded result (Boldo and Melquiond's round-to-odd). */
#if defined(__MINGW32__) && !defined(__FMA__)
static float srt__fmaf(float a, float b, float c) {
    double p = (double)a * (double)b, s = p + (double)c, bb = s - p, e = (p - (s - bb)) + ((double)c - bb);
    uint64_t u;
    if (e != 0 && s - s == 0) {   /* inexact and finite: the odd one of s and its neighbour on e's side */
        memcpy(&u, &s, sizeof u);
        if (!(u & 1)) u = (e > 0) == (s > 0) ? u + 1 : u - 1;
        memcpy(&s, &u, sizeof u);
    }
    return (float)s;
}
#else
#  define srt__fmaf fmaf
#endif

static double srt__now_ms(void) {
#ifdef _WIN32
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
#endif
}

static int srt__cpu_count(void) {
#ifdef _WIN32
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (int)si.dwNumberOfProcessors;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

/* ---------------------------------------------------------------- 2 errors and logging */
static SRT__TLS char srt__error_text[512];

static void srt__default_log(srt_log_level level, const char *msg, void *user) {
    (void)user;
    if (level <= SRT_LOG_WARN) fprintf(stderr, "sparsert: %s: %s\n", level == SRT_LOG_ERROR ? "error" : "warning", msg);
}
static srt_log_fn srt__log_fn = srt__default_log;
static void *srt__log_user;

SRT_API void srt_set_log(srt_log_fn fn, void *user) {
    srt__log_fn = fn ? fn : srt__default_log;
    srt__log_user = fn ? user : NULL;
}

static void srt__log(srt_log_level level, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    srt__log_fn(level, buf, srt__log_user);
}

/* Records the detail message for srt_last_error() and returns the status, so that
   `return srt__fail(SRT_ERR_FORMAT, "...", ...)` reads as one step. */
static srt_status srt__fail(srt_status st, const char *fmt, ...) {
    char buf[sizeof srt__error_text];   /* the arguments may include srt__error_text itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    memcpy(srt__error_text, buf, sizeof buf);
    return st;
}

SRT_API const char *srt_status_str(srt_status s) {
    switch (s) {
#define SRT__X(name, value, text) case name: return text;
        SRT__STATUS_LIST(SRT__X)
#undef SRT__X
        default: return "unknown status";
    }
}
SRT_API const char *srt_last_error(void) { return srt__error_text; }
SRT_API const char *srt_version(void) { return SRT_VERSION_STRING; }
SRT_API double srt_time_ms(void) { return srt__now_ms(); }

/* ---------------------------------------------------------------- 3 memory */
/* Every allocation goes through an srt_allocator (desc-provided or the macros). Sizes are checked
   for overflow by the callers through srt__mul_ok. */
static void *srt__macro_alloc(size_t size, void *user) { (void)user; return SRT_MALLOC(size); }
static void srt__macro_free(void *p, void *user) { (void)user; SRT_FREE(p); }
static srt_allocator srt__resolve_allocator(const srt_allocator *a) {
    srt_allocator r;
    if (a && a->alloc && a->free) return *a;
    r.alloc = srt__macro_alloc; r.free = srt__macro_free; r.user = NULL;
    return r;
}
static void *srt__alloc(const srt_allocator *a, size_t size) {
    void *p = a->alloc(size ? size : 1, a->user);
    if (p) memset(p, 0, size ? size : 1);
    return p;
}
static void srt__free(const srt_allocator *a, void *p) { if (p) a->free(p, a->user); }
static void *srt__malloc0(size_t size) {
    void *p = SRT_MALLOC(size ? size : 1);
    if (p) memset(p, 0, size ? size : 1);
    return p;
}
static int srt__mul_ok(uint64_t a, uint64_t b, uint64_t *out) {
    if (a && b > UINT64_MAX / a) return 0;
    *out = a * b;
    return 1;
}

/* ---------------------------------------------------------------- 4 numbers */
SRT_API float srt_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;
    if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);          /* inf / nan */
    else if (exp) bits = sign | ((exp + 112) << 23) | (man << 13);     /* normal */
    else if (man) {                                                   /* subnormal: renormalise */
        int e = -1;
        do { e++; man <<= 1; } while (!(man & 0x400));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
    } else bits = sign;
    memcpy(&f, &bits, 4);
    return f;
}
SRT_API uint16_t srt_f32_to_f16(float f) {   /* round to nearest even, like F16C */
    uint32_t x, sign, man;
    int exp;
    memcpy(&x, &f, 4);
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
        if (rest > 0x1000u || (rest == 0x1000u && (r & 1))) r++;   /* may carry into the exponent: correct */
        return (uint16_t)(sign | r);
    }
}
SRT_API float srt_bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}
SRT_API uint16_t srt_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);  /* quiet nan */
    x += 0x7fffu + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320), slicing-by-one; the table is built on the stack of
   the first caller each time to keep the no-global-state rule (1 KB, ~1 us). */
typedef struct srt__crc32 { uint32_t table[256]; } srt__crc32;
static void srt__crc32_init(srt__crc32 *c) {
    uint32_t i, j;
    for (i = 0; i < 256; i++) {
        uint32_t r = i;
        for (j = 0; j < 8; j++) r = (r >> 1) ^ (0xEDB88320u & (0u - (r & 1)));
        c->table[i] = r;
    }
}
static uint32_t srt__crc32_update(const srt__crc32 *c, uint32_t crc, const void *data, uint64_t n) {
    const unsigned char *p = (const unsigned char *)data;
    crc = ~crc;
    while (n--) crc = c->table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
/* The CRC of A then B from crc(A), crc(B) and B's length: crc(A) x^(8 len B) + crc(B) modulo the
   polynomial, so that blocks can be summed apart. Polynomials are bit-reflected, as in the table:
   bit 31 is x^0. */
static uint32_t srt__crc32_mulmod(uint32_t a, uint32_t b) {
    uint32_t m = 1u << 31, p = 0;
    for (; m; m >>= 1) {
        if (a & m) p ^= b;
        b = b & 1 ? (b >> 1) ^ 0xEDB88320u : b >> 1;   /* b x */
    }
    return p;
}
static uint32_t srt__crc32_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
    uint32_t xn = 1u << 31, sq = 1u << 23;   /* x^0, x^8 */
    for (; len_b; len_b >>= 1, sq = srt__crc32_mulmod(sq, sq))
        if (len_b & 1) xn = srt__crc32_mulmod(xn, sq);
    return srt__crc32_mulmod(xn, crc_a) ^ crc_b;
}

/* ---------------------------------------------------------------- 5 threads */
/* Topology (which CPUs exist, their physical cores and core types), the core policy, pinning, and
   the pool: persistent workers wait for a new "generation" of work (spin, then sleep on a futex /
   WaitOnAddress / condition variable); a parallel-for hands out chunks through one atomic counter,
   so faster threads take more. */
#if defined(__linux__)
#  include <sys/syscall.h>
#  if defined(SYS_futex)
#    include <linux/futex.h>
#    define SRT__FUTEX 1
#  endif
#  if !defined(__cplusplus)
long syscall(long number, ...);    /* hidden by _POSIX_C_SOURCE; same prototype as glibc/musl */
#  endif
#  if !defined(CPU_SET)             /* glibc/musl declare these only with _GNU_SOURCE */
int sched_setaffinity(pid_t pid, size_t size, const void *mask);
int sched_getaffinity(pid_t pid, size_t size, void *mask);
#    define SRT__AFFINITY_MASK(m) ((void *)(m))
#  else
#    define SRT__AFFINITY_MASK(m) ((cpu_set_t *)(void *)(m))
#  endif
#  if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#    include <cpuid.h>
#    define SRT__REAL_CPUID 1
#  endif
#endif
#if defined(__APPLE__)
int sysctlbyname(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
#endif

#ifdef _WIN32
typedef HANDLE srt__thread;
typedef CRITICAL_SECTION srt__mutex;
typedef CONDITION_VARIABLE srt__cond;
#  define srt__mutex_init(m) InitializeCriticalSection(m)
#  define srt__mutex_destroy(m) DeleteCriticalSection(m)
#  define srt__mutex_lock(m) EnterCriticalSection(m)
#  define srt__mutex_unlock(m) LeaveCriticalSection(m)
#  define srt__cond_init(c) InitializeConditionVariable(c)
#  define srt__cond_destroy(c) ((void)0)
#  define srt__cond_wait(c, m) SleepConditionVariableCS(c, m, INFINITE)
#  define srt__cond_broadcast(c) WakeAllConditionVariable(c)
#  define srt__yield() SwitchToThread()
typedef BOOL (WINAPI *srt__wait_on_address_fn)(volatile VOID *addr, PVOID compare, SIZE_T size, DWORD ms);
typedef VOID (WINAPI *srt__wake_by_address_fn)(PVOID addr);
#else
typedef pthread_t srt__thread;
typedef pthread_mutex_t srt__mutex;
typedef pthread_cond_t srt__cond;
#  define srt__mutex_init(m) pthread_mutex_init(m, NULL)
#  define srt__mutex_destroy(m) pthread_mutex_destroy(m)
#  define srt__mutex_lock(m) pthread_mutex_lock(m)
#  define srt__mutex_unlock(m) pthread_mutex_unlock(m)
#  define srt__cond_init(c) pthread_cond_init(c, NULL)
#  define srt__cond_destroy(c) pthread_cond_destroy(c)
#  define srt__cond_wait(c, m) pthread_cond_wait(c, m)
#  define srt__cond_broadcast(c) pthread_cond_broadcast(c)
#  define srt__yield() sched_yield()
#endif

/* ---- CPU lists and topology */
SRT_API int srt_parse_cpu_list(const char *s, int *cpus, int cap) {
    int n = 0;
    if (!s) return -1;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '\n') return 0;
    for (;;) {
        long a, b, k;
        char *e;
        if (*s < '0' || *s > '9') return -1;
        a = strtol(s, &e, 10); s = e; b = a;
        if (*s == '-') {
            s++;
            if (*s < '0' || *s > '9') return -1;
            b = strtol(s, &e, 10); s = e;
        }
        if (b < a || b >= 1L << 20) return -1;
        for (k = a; k <= b; k++) { if (n < cap) cpus[n] = (int)k; n++; }
        if (*s == ',') { s++; continue; }
        while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
        return *s ? -1 : (n < cap ? n : cap);
    }
}

/* Reads root + path into buf (trailing newline removed); 0 if absent. */
static int srt__read_text(const char *root, const char *path, char *buf, size_t cap) {
    char full[512];
    FILE *f;
    size_t n;
    snprintf(full, sizeof full, "%s%s", root, path);
    f = fopen(full, "rb");
    if (!f) return 0;
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
    return 1;
}
static long srt__read_long(const char *root, const char *path, long dflt) {
    char buf[64];
    if (!srt__read_text(root, path, buf, sizeof buf) || (buf[0] != '-' && (buf[0] < '0' || buf[0] > '9'))) return dflt;
    return strtol(buf, NULL, 10);
}
/* Lowest CPU of a list file, -1 if absent. */
static int srt__read_list_min(const char *root, const char *path) {
    char buf[2048];
    int cpus[SRT_MAX_CPUS], n, i, lo = -1;
    if (!srt__read_text(root, path, buf, sizeof buf)) return -1;
    n = srt_parse_cpu_list(buf, cpus, SRT_MAX_CPUS);
    for (i = 0; i < n; i++) if (lo < 0 || cpus[i] < lo) lo = cpus[i];
    return lo;
}
static srt_cpu *srt__topo_find(srt_topology *t, int id) {
    int i;
    for (i = 0; i < t->n_cpus; i++) if (t->cpu[i].id == id) return &t->cpu[i];
    return NULL;
}
/* Marks the CPUs of a list file with `type`; returns how many it named. */
static int srt__topo_mark(srt_topology *t, const char *root, const char *path, srt_core_type type) {
    char buf[2048];
    int cpus[SRT_MAX_CPUS], n, i, hit = 0;
    if (!srt__read_text(root, path, buf, sizeof buf)) return 0;
    n = srt_parse_cpu_list(buf, cpus, SRT_MAX_CPUS);
    for (i = 0; i < n; i++) {
        srt_cpu *c = srt__topo_find(t, cpus[i]);
        if (c) { c->type = type; hit++; }
    }
    return hit;
}

#if defined(__linux__)
/* Runs CPUID on logical CPU `cpu` by moving the calling thread there for a moment. */
static int srt__real_cpuid(void *user, int cpu, uint32_t leaf, uint32_t sub, uint32_t r[4]) {
#if defined(SRT__REAL_CPUID)
    unsigned long old[SRT_MAX_CPUS / (8 * sizeof(unsigned long))], want[SRT_MAX_CPUS / (8 * sizeof(unsigned long))];
    unsigned int a, b, c, d;
    (void)user;
    if (leaf != 0x1a) { __cpuid_count(leaf, sub, a, b, c, d); r[0] = a; r[1] = b; r[2] = c; r[3] = d; return 1; }   /* same on every CPU */
    if (cpu < 0 || cpu >= SRT_MAX_CPUS || sched_getaffinity(0, sizeof old, SRT__AFFINITY_MASK(old)) != 0) return 0;
    memset(want, 0, sizeof want);
    want[cpu / (8 * sizeof(unsigned long))] = 1ul << (cpu % (8 * sizeof(unsigned long)));
    if (sched_setaffinity(0, sizeof want, SRT__AFFINITY_MASK(want)) != 0) return 0;
    __cpuid_count(leaf, sub, a, b, c, d);
    r[0] = a; r[1] = b; r[2] = c; r[3] = d;
    sched_setaffinity(0, sizeof old, SRT__AFFINITY_MASK(old));
    return 1;
#else
    (void)user; (void)cpu; (void)leaf; (void)sub; (void)r;
    return 0;
#endif
}
#endif

/* Fills core numbers, counts and `hybrid` from per-CPU core keys (stored in .core) and types. */
static void srt__topo_finish(srt_topology *t) {
    int i, j, keys[SRT_MAX_CPUS], nk = 0, has_p = 0, has_e = 0;
    for (i = 0; i < t->n_cpus; i++) {
        srt_cpu *c = &t->cpu[i];
        int k = c->core, found = -1, sib = 0;
        for (j = 0; j < nk; j++) if (keys[j] == k) { found = j; break; }
        if (found < 0) { keys[nk] = k; found = nk++; }
        for (j = 0; j < i; j++) if (t->cpu[j].core == found) sib++;
        c->core = found;
        c->smt = sib;
        if (c->type == SRT_CORE_UNKNOWN) c->type = SRT_CORE_PERFORMANCE;
        if (c->type == SRT_CORE_PERFORMANCE) has_p = 1; else has_e = 1;
    }
    t->n_cores = nk;
    t->hybrid = has_p && has_e;
    t->n_perf_cores = t->n_eff_cores = 0;
    for (i = 0; i < t->n_cpus; i++)
        if (t->cpu[i].smt == 0) { if (t->cpu[i].type == SRT_CORE_EFFICIENCY) t->n_eff_cores++; else t->n_perf_cores++; }
}

/* Linux-style sysfs tree under root (the real /sys or a test's fake one). */
static srt_status srt__topo_sysfs(srt_topology *t, const char *root, const srt_topology_probe *pr) {
    char buf[4096], path[160];
    int ids[SRT_MAX_CPUS], n, i, k, typed = 0;
    int (*cpuid)(void *, int, uint32_t, uint32_t, uint32_t[4]) = pr ? pr->cpuid : NULL;
    void *cpuid_user = pr ? pr->cpuid_user : NULL;
    if (!srt__read_text(root, "/devices/system/cpu/online", buf, sizeof buf) &&
        !srt__read_text(root, "/devices/system/cpu/possible", buf, sizeof buf)) return SRT_ERR_UNSUPPORTED;
    n = srt_parse_cpu_list(buf, ids, SRT_MAX_CPUS);
    if (n <= 0) return SRT_ERR_FORMAT;
    t->n_cpus = n;
    for (i = 0; i < n; i++) {
        srt_cpu *c = &t->cpu[i];
        int id = ids[i], lo, best_level = -1;
        c->id = id;
        c->usable = 1;
        c->type = SRT_CORE_UNKNOWN;
        c->package = (int)srt__read_long(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/topology/physical_package_id", id), path), 0);
        if (c->package < 0) c->package = 0;
        /* a core is keyed by the lowest CPU among its hardware threads */
        lo = srt__read_list_min(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/topology/thread_siblings_list", id), path));
        if (lo < 0) lo = srt__read_list_min(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/topology/core_cpus_list", id), path));
        if (lo < 0) {
            long core_id = srt__read_long(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/topology/core_id", id), path), -1);
            lo = core_id < 0 ? id : (int)(100000 + c->package * 10000 + core_id);
        }
        c->core = lo;
        c->max_khz = (uint32_t)srt__read_long(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", id), path), 0);
        c->llc = -1;
        for (k = 0; k < 8; k++) {
            long level = srt__read_long(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/cache/index%d/level", id, k), path), -1);
            if (level < 0) { if (k >= 4) break; continue; }
            if (level > best_level) {
                int l = srt__read_list_min(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", id, k), path));
                if (l >= 0) { best_level = (int)level; c->llc = l; }
            }
        }
    }
    for (k = 0; k < 64; k++) {
        int cpus[SRT_MAX_CPUS], m, j;
        snprintf(path, sizeof path, "/devices/system/node/node%d/cpulist", k);
        if (!srt__read_text(root, path, buf, sizeof buf)) continue;
        m = srt_parse_cpu_list(buf, cpus, SRT_MAX_CPUS);
        for (j = 0; j < m; j++) { srt_cpu *c = srt__topo_find(t, cpus[j]); if (c) c->numa = k; }
    }
    /* core types: Intel hybrid PMU lists first */
    if (srt__topo_mark(t, root, "/devices/cpu_core/cpus", SRT_CORE_PERFORMANCE) +
        srt__topo_mark(t, root, "/devices/cpu_atom/cpus", SRT_CORE_EFFICIENCY) > 0) { t->source = "cpu_core/cpu_atom"; typed = 1; }
#if defined(__linux__)
    if (!typed && !cpuid && !(pr && pr->fake)) cpuid = srt__real_cpuid;
#endif
    /* CPUID, when there is one, decides on x86: leaf 7 EDX bit 15 = hybrid part; leaf 0x1A
       EAX[31:24] = 0x40 Core, 0x20 Atom. Without the hybrid bit all cores are alike (differing
       max frequencies are then favoured-core turbo bins, not core types). */
    if (!typed && cpuid) {
        uint32_t r[4];
        if (cpuid(cpuid_user, t->cpu[0].id, 0, 0, r)) {
            uint32_t max_leaf = r[0];
            if (max_leaf >= 0x1a && cpuid(cpuid_user, t->cpu[0].id, 7, 0, r) && (r[3] >> 15 & 1)) {
                for (i = 0; i < n; i++)
                    if (cpuid(cpuid_user, t->cpu[i].id, 0x1a, 0, r))
                        t->cpu[i].type = (r[0] >> 24) == 0x20 ? SRT_CORE_EFFICIENCY : (r[0] >> 24) == 0x40 ? SRT_CORE_PERFORMANCE : SRT_CORE_UNKNOWN;
                t->source = "cpuid";
            } else t->source = "uniform (cpuid)";
            typed = 1;
        }
    }
    /* Arm big.LITTLE: cores well below the fastest (capacity, else max frequency) are E-cores;
       the 0.8 margin keeps favoured-core turbo bins of one design apart from different designs */
    for (k = 0; k < 2 && !typed; k++) {
        long v[SRT_MAX_CPUS], hi = 0, lo = LONG_MAX;
        for (i = 0; i < n; i++) {
            v[i] = k == 0 ? srt__read_long(root, (snprintf(path, sizeof path, "/devices/system/cpu/cpu%d/cpu_capacity", t->cpu[i].id), path), 0)
                          : (long)t->cpu[i].max_khz;
            if (v[i] > hi) hi = v[i];
            if (v[i] < lo) lo = v[i];
        }
        if (lo <= 0 || (double)lo >= 0.8 * (double)hi) continue;
        for (i = 0; i < n; i++) t->cpu[i].type = (double)v[i] < 0.8 * (double)hi ? SRT_CORE_EFFICIENCY : SRT_CORE_PERFORMANCE;
        t->source = k == 0 ? "cpu_capacity" : "cpufreq";
        typed = 1;
    }
    if (!typed) t->source = "uniform";
    return SRT_OK;
}

#if defined(__linux__)
static void srt__topo_affinity(srt_topology *t) {
    unsigned long mask[SRT_MAX_CPUS / (8 * sizeof(unsigned long))];
    const int bits = (int)(8 * sizeof(unsigned long));
    int i;
    memset(mask, 0, sizeof mask);
    if (sched_getaffinity(0, sizeof mask, SRT__AFFINITY_MASK(mask)) != 0) return;
    for (i = 0; i < t->n_cpus; i++) {
        int id = t->cpu[i].id;
        t->cpu[i].usable = id < SRT_MAX_CPUS && (mask[id / bits] >> (id % bits) & 1ul);
    }
}
#endif

#if defined(_WIN32)
/* One record per physical core; EfficiencyClass (byte 1 of PROCESSOR_RELATIONSHIP, named
   Reserved[0] in older SDKs): higher = faster. Processor group 0 only. */
static srt_status srt__topo_windows(srt_topology *t) {
    DWORD len = 0, off = 0;
    unsigned char *buf;
    int core = 0, i, hi = 0, lo = 255;
    GetLogicalProcessorInformationEx(RelationProcessorCore, NULL, &len);
    if (!len || !(buf = (unsigned char *)SRT_MALLOC(len))) return SRT_ERR_UNSUPPORTED;
    if (!GetLogicalProcessorInformationEx(RelationProcessorCore, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)buf, &len)) { SRT_FREE(buf); return SRT_ERR_UNSUPPORTED; }
    while (off < len) {
        PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX r = (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)(buf + off);
        if (r->Relationship == RelationProcessorCore && r->Processor.GroupCount >= 1 && r->Processor.GroupMask[0].Group == 0) {
            int eff = ((const unsigned char *)&r->Processor)[1], b;
            for (b = 0; b < 64 && t->n_cpus < SRT_MAX_CPUS; b++) {
                if (!((unsigned long long)r->Processor.GroupMask[0].Mask >> b & 1)) continue;
                t->cpu[t->n_cpus].id = b; t->cpu[t->n_cpus].core = core; t->cpu[t->n_cpus].llc = -1;
                t->cpu[t->n_cpus].usable = 1; t->cpu[t->n_cpus].max_khz = (uint32_t)eff;   /* temporarily */
                t->n_cpus++;
            }
            if (eff > hi) hi = eff;
            if (eff < lo) lo = eff;
            core++;
        }
        off += r->Size;
    }
    SRT_FREE(buf);
    if (!t->n_cpus) return SRT_ERR_UNSUPPORTED;
    for (i = 0; i < t->n_cpus; i++) {
        t->cpu[i].type = (int)t->cpu[i].max_khz < hi ? SRT_CORE_EFFICIENCY : SRT_CORE_PERFORMANCE;
        t->cpu[i].max_khz = 0;
    }
    /* sort by id (records come per core) */
    for (i = 1; i < t->n_cpus; i++) {
        srt_cpu c = t->cpu[i];
        int j = i;
        while (j > 0 && t->cpu[j - 1].id > c.id) { t->cpu[j] = t->cpu[j - 1]; j--; }
        t->cpu[j] = c;
    }
    t->source = hi > lo ? "windows EfficiencyClass" : "uniform";
    return SRT_OK;
}
#endif

#if defined(__APPLE__)
/* hw.perflevel0 = performance cores, hw.perflevel1 = efficiency cores. macOS does not say which
   logical CPU is which and cannot pin, so CPUs are numbered P first. */
static srt_status srt__topo_macos(srt_topology *t) {
    int lv, nlevels = 1, i;
    size_t sz = sizeof nlevels;
    if (sysctlbyname("hw.nperflevels", &nlevels, &sz, NULL, 0) != 0 || nlevels < 1) nlevels = 1;
    for (lv = 0; lv < nlevels && lv < 2; lv++) {
        char name[64];
        int logical = 0, physical = 0;
        snprintf(name, sizeof name, "hw.perflevel%d.logicalcpu", lv); sz = sizeof logical;
        if (sysctlbyname(name, &logical, &sz, NULL, 0) != 0) return SRT_ERR_UNSUPPORTED;
        snprintf(name, sizeof name, "hw.perflevel%d.physicalcpu", lv); sz = sizeof physical;
        if (sysctlbyname(name, &physical, &sz, NULL, 0) != 0 || physical < 1) physical = logical;
        for (i = 0; i < logical && t->n_cpus < SRT_MAX_CPUS; i++) {
            srt_cpu *c = &t->cpu[t->n_cpus];
            c->id = t->n_cpus; c->core = 1000 * lv + i * physical / logical; c->llc = -1; c->usable = 1;
            c->type = lv == 0 ? SRT_CORE_PERFORMANCE : SRT_CORE_EFFICIENCY;
            t->n_cpus++;
        }
    }
    if (!t->n_cpus) return SRT_ERR_UNSUPPORTED;
    t->source = nlevels > 1 ? "macos hw.perflevel" : "uniform";
    return SRT_OK;
}
#endif

SRT_API srt_status srt_topology_detect(const srt_topology_probe *probe, srt_topology *t) {
    srt_status st = SRT_ERR_UNSUPPORTED;
    int fake = probe && probe->fake, i;
    if (!t) return srt__fail(SRT_ERR_INVALID_ARG, "srt_topology_detect: out is NULL");
    memset(t, 0, sizeof *t);
    if (fake || (probe && probe->sysfs_root)) {
        st = srt__topo_sysfs(t, probe->sysfs_root ? probe->sysfs_root : "/sys", probe);
    } else {
#if defined(_WIN32)
        st = srt__topo_windows(t);
#elif defined(__APPLE__)
        st = srt__topo_macos(t);
#else
        st = srt__topo_sysfs(t, "/sys", probe);
#endif
    }
    if (st != SRT_OK && fake) return srt__fail(st, "srt_topology_detect: no CPU list under %s", probe->sysfs_root ? probe->sysfs_root : "/sys");
    if (st != SRT_OK) {   /* last resort: count CPUs, one core each */
        int n = srt__cpu_count();
        memset(t, 0, sizeof *t);
        t->n_cpus = n < SRT_MAX_CPUS ? n : SRT_MAX_CPUS;
        for (i = 0; i < t->n_cpus; i++) { t->cpu[i].id = i; t->cpu[i].core = i; t->cpu[i].llc = -1; t->cpu[i].usable = 1; }
        t->source = "count";
    }
#if defined(__linux__)
    if (!fake) srt__topo_affinity(t);
#endif
    srt__topo_finish(t);
    return SRT_OK;
}

/* ---- policy */
static int srt__cpu_rank(const srt_topology *t, const srt_cpu *c, int p_llc) {
    /* 0: first thread of a P-core; 1: of an E-core sharing the P-cores' LLC; 2: other E-cores
       (low-power islands); 3: SMT siblings */
    if (c->smt) return 3;
    if (c->type != SRT_CORE_EFFICIENCY) return 0;
    return (!t->hybrid || p_llc < 0 || c->llc < 0 || c->llc == p_llc) ? 1 : 2;
}
SRT_API int srt_cores_select(const srt_topology *t, srt_cores policy, const char *list, int *cpus, int cap) {
    int n = 0, rank, i, p_llc = -1, max_rank, n_rank1 = 0;
    if (!t || !cpus || cap <= 0) return -1;
    if (policy == SRT_CORES_LIST) {
        int want[SRT_MAX_CPUS], m = srt_parse_cpu_list(list, want, SRT_MAX_CPUS), j;
        if (m <= 0) return -1;
        for (i = 0; i < m; i++) {
            srt_cpu *c = srt__topo_find((srt_topology *)t, want[i]);
            if (!c || !c->usable) return -1;
            for (j = 0; j < i; j++) if (want[j] == want[i]) return -1;
            if (n < cap) cpus[n++] = want[i];
        }
        return n;
    }
    for (i = 0; i < t->n_cpus; i++)
        if (t->cpu[i].type == SRT_CORE_PERFORMANCE && !t->cpu[i].smt) { p_llc = t->cpu[i].llc; break; }
    for (i = 0; i < t->n_cpus; i++) if (srt__cpu_rank(t, &t->cpu[i], p_llc) == 1) n_rank1++;
    /* auto skips a low-power island only when regular E-cores exist (Meteor Lake, not Lunar Lake) */
    max_rank = policy == SRT_CORES_ALL ? 3 : policy == SRT_CORES_PERFORMANCE ? 0 : n_rank1 ? 1 : 2;
    for (rank = 0; rank <= max_rank; rank++)
        for (i = 0; i < t->n_cpus && n < cap; i++)
            if (t->cpu[i].usable && srt__cpu_rank(t, &t->cpu[i], p_llc) == rank) cpus[n++] = t->cpu[i].id;
    if (n == 0)   /* e.g. every P-core masked off: fall back to whatever may run */
        for (i = 0; i < t->n_cpus && n < cap; i++) if (t->cpu[i].usable && (policy == SRT_CORES_ALL || !t->cpu[i].smt)) cpus[n++] = t->cpu[i].id;
    return n;
}

/* Pins the calling thread to one CPU; 0 if the platform cannot. */
static int srt__pin_self(int cpu) {
#if defined(__linux__)
    unsigned long mask[SRT_MAX_CPUS / (8 * sizeof(unsigned long))];
    const int bits = (int)(8 * sizeof(unsigned long));
    if (cpu < 0 || cpu >= SRT_MAX_CPUS) return 0;
    memset(mask, 0, sizeof mask);
    mask[cpu / bits] = 1ul << (cpu % bits);
    return sched_setaffinity(0, sizeof mask, SRT__AFFINITY_MASK(mask)) == 0;
#elif defined(_WIN32)
    if (cpu < 0 || cpu >= 64) return 0;
    return SetThreadAffinityMask(GetCurrentThread(), (DWORD_PTR)1 << cpu) != 0;
#else
    (void)cpu;   /* macOS has no hard affinity */
    return 0;
#endif
}

/* ---- the pool */
#define SRT__MAX_THREADS SRT_MAX_CPUS
#define SRT__SPIN_ITERS 20000          /* ~0.5-1 ms of pause loops before sleeping */
#define SRT__CHUNK_MIN_BYTES 16384
#define SRT__CHUNKS_PER_THREAD 16

struct srt_pool {
    int n_threads;
    srt__thread threads[SRT__MAX_THREADS];
    int cpu[SRT__MAX_THREADS];    /* CPU meant for each thread, -1 = none */
    int32_t pinned[SRT__MAX_THREADS];  /* atomic: set by the worker once it pinned itself */
    int n_started, pin;
    int slow_thread;
    double slow_factor;
    srt__mutex lock;              /* condition-variable sleeping */
    srt__cond wake;
    srt__mutex region;            /* one parallel region at a time (pool shared by sessions) */
#ifdef _WIN32
    srt__wait_on_address_fn wait_on_address;   /* NULL before Windows 8: condition variable */
    srt__wake_by_address_fn wake_by_address_all;
#endif
    /* the current job, published by the generation bump */
    srt_range_fn fn;
    void *user;
    int64_t n, chunk;
    int split;                    /* 1 = static: thread i takes slice i */
    int64_t done;                 /* atomic: workers finished with this generation */
    int32_t generation;           /* atomic; also the futex word */
    int32_t sleepers;             /* atomic: workers asleep (or about to be) */
    int32_t stop;                 /* atomic */
    /* Dynamic split: thread i owns the i-th contiguous run of chunks, packed as (first unclaimed
       << 32 | end). It claims from the front; a thread that ran out takes from the back of the
       others' runs. Each thread thus streams through memory in one long run (at two threads,
       alternating chunks cost a cold prefetcher start per chunk: 2048x2048 Q4 GEMV 0.77 of the
       bandwidth roofline), while faster threads still take more. One cache line per run. */
    struct { int64_t run; char pad[64 - sizeof(int64_t)]; } runs[SRT__MAX_THREADS];
};

typedef struct srt__worker_arg { srt_pool *pool; int index; } srt__worker_arg;

/* Which pool thread the current thread is, while it runs pool work (nested calls run inline). */
static SRT__TLS srt_pool *srt__tls_pool;
static SRT__TLS int srt__tls_index;

static void srt__pool_call(srt_pool *p, int64_t begin, int64_t end, int index) {
    if (p->slow_factor > 1.0 && index == p->slow_thread) {
        double t0 = srt__now_ms(), until;
        p->fn(p->user, begin, end, index);
        until = t0 + (srt__now_ms() - t0) * p->slow_factor;
        while (srt__now_ms() < until) srt__cpu_relax();
    } else p->fn(p->user, begin, end, index);
}

/* Claims one chunk of run `r`: from the front for its owner, else from the back; -1 if empty. */
static int64_t srt__pool_claim(srt_pool *p, int r, int owner) {
    int64_t *run = &p->runs[r].run;
    for (;;) {
        int64_t v = srt__atomic_load(run), first = v >> 32, end = v & 0xffffffff;
        if (first >= end) return -1;
        if (owner ? srt__atomic_cas(run, v, ((first + 1) << 32) | end) : srt__atomic_cas(run, v, (first << 32) | (end - 1)))
            return owner ? first : end - 1;
    }
}

static void srt__pool_run_chunks(srt_pool *p, int index) {
    int i;
    if (p->split) {
        int64_t b = p->n * index / p->n_threads, e = p->n * (index + 1) / p->n_threads;
        if (b < e) srt__pool_call(p, b, e, index);
        return;
    }
    for (i = 0; i < p->n_threads; i++) {   /* own run first, then the others' */
        int r = (index + i) % p->n_threads;
        int64_t c;
        while ((c = srt__pool_claim(p, r, i == 0)) >= 0) {
            int64_t begin = c * p->chunk, end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
            srt__pool_call(p, begin, end, index);
        }
    }
}

/* Sleeps until the generation differs from `seen`. The sleeper count is raised before the
   generation is re-read, and the waker bumps the generation before reading the count, so one of
   them always sees the other (sequentially consistent atomics): no lost wake-up. */
static void srt__pool_sleep(srt_pool *p, int32_t seen) {
    srt__atomic_add32(&p->sleepers, 1);
#if defined(SRT__FUTEX)
    while (srt__atomic_load32(&p->generation) == seen)
        syscall(SYS_futex, &p->generation, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
#  ifdef _WIN32
    if (p->wait_on_address) {
        while (srt__atomic_load32(&p->generation) == seen) p->wait_on_address(&p->generation, &seen, sizeof seen, INFINITE);
    } else
#  endif
    {
        srt__mutex_lock(&p->lock);
        while (srt__atomic_load32(&p->generation) == seen) srt__cond_wait(&p->wake, &p->lock);
        srt__mutex_unlock(&p->lock);
    }
#endif
    srt__atomic_add32(&p->sleepers, -1);
}
static void srt__pool_wake_all(srt_pool *p) {
    srt__atomic_add32(&p->generation, 1);
    if (!srt__atomic_load32(&p->sleepers)) return;   /* everyone is spinning: no system call */
#if defined(SRT__FUTEX)
    syscall(SYS_futex, &p->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
#  ifdef _WIN32
    if (p->wake_by_address_all) { p->wake_by_address_all(&p->generation); return; }
#  endif
    srt__mutex_lock(&p->lock);
    srt__cond_broadcast(&p->wake);
    srt__mutex_unlock(&p->lock);
#endif
}

static void srt__pool_worker(srt_pool *p, int index) {
    int32_t seen = 0;
    srt__tls_pool = p;
    srt__tls_index = index;
    if (p->pin && p->cpu[index] >= 0 && srt__pin_self(p->cpu[index])) srt__atomic_store32(&p->pinned[index], 1);
    for (;;) {
        int spins = 0;
        while (srt__atomic_load32(&p->generation) == seen) {
            if (++spins < SRT__SPIN_ITERS) { srt__cpu_relax(); continue; }
            srt__pool_sleep(p, seen);
        }
        seen = srt__atomic_load32(&p->generation);
        if (srt__atomic_load32(&p->stop)) return;
        srt__pool_run_chunks(p, index);
        srt__atomic_add(&p->done, 1);
    }
}

#ifdef _WIN32
static DWORD WINAPI srt__thread_main(LPVOID arg) {
    srt__worker_arg a = *(srt__worker_arg *)arg;
    SRT_FREE(arg);
    srt__pool_worker(a.pool, a.index);
    return 0;
}
#else
static void *srt__thread_main(void *arg) {
    srt__worker_arg a = *(srt__worker_arg *)arg;
    SRT_FREE(arg);
    srt__pool_worker(a.pool, a.index);
    return NULL;
}
#endif

SRT_API void srt_pool_destroy(srt_pool *p) {
    int i;
    if (!p) return;
    srt__atomic_store32(&p->stop, 1);
    srt__pool_wake_all(p);
    for (i = 0; i < p->n_started; i++) {
#ifdef _WIN32
        WaitForSingleObject(p->threads[i], INFINITE);
        CloseHandle(p->threads[i]);
#else
        pthread_join(p->threads[i], NULL);
#endif
    }
    srt__mutex_destroy(&p->lock);
    srt__mutex_destroy(&p->region);
    srt__cond_destroy(&p->wake);
    SRT_FREE(p);
}

SRT_API srt_status srt_pool_create(const srt_pool_desc *desc, srt_pool **out) {
    srt_pool *p;
    srt_pool_desc d;
    srt_topology *topo = NULL;
    int cpus[SRT_MAX_CPUS], n_cpus, n, i;
    if (!out) return srt__fail(SRT_ERR_INVALID_ARG, "srt_pool_create: out is NULL");
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.n_threads < 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_pool_create: n_threads %d < 0", d.n_threads);
    if ((int)d.cores < 0 || (int)d.cores > SRT_CORES_LIST) return srt__fail(SRT_ERR_INVALID_ARG, "srt_pool_create: unknown cores policy %d", (int)d.cores);
    if (!d.topology) {
        topo = (srt_topology *)srt__malloc0(sizeof *topo);
        if (!topo) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_pool_create: out of memory");
        srt_topology_detect(NULL, topo);
    }
    n_cpus = srt_cores_select(d.topology ? d.topology : topo, d.cores, d.cpu_list, cpus, SRT_MAX_CPUS);
    SRT_FREE(topo);
    if (n_cpus < 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_pool_create: bad CPU list \"%s\" (malformed, repeated, absent or not allowed CPU)", d.cpu_list ? d.cpu_list : "");
    n = d.n_threads ? d.n_threads : (n_cpus > 0 ? n_cpus : 1);
    if (n > SRT__MAX_THREADS) n = SRT__MAX_THREADS;
    p = (srt_pool *)srt__malloc0(sizeof *p);
    if (!p) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_pool_create: out of memory");
    p->n_threads = n;
    p->pin = d.pin > 0 || (d.pin == 0 && (d.cores == SRT_CORES_PERFORMANCE || d.cores == SRT_CORES_LIST));
    for (i = 0; i < n; i++) p->cpu[i] = i < n_cpus ? cpus[i] : -1;
    p->slow_thread = d.slow_thread;
    p->slow_factor = d.slow_factor;
    srt__mutex_init(&p->lock);
    srt__mutex_init(&p->region);
    srt__cond_init(&p->wake);
#ifdef _WIN32
    {   /* WaitOnAddress lives in KernelBase.dll from Windows 8 on; looked up so nothing extra links */
        HMODULE kb = GetModuleHandleA("kernelbase.dll");
        FARPROC w = kb ? GetProcAddress(kb, "WaitOnAddress") : NULL, k = kb ? GetProcAddress(kb, "WakeByAddressAll") : NULL;
        if (w && k) { memcpy(&p->wait_on_address, &w, sizeof w); memcpy(&p->wake_by_address_all, &k, sizeof k); }
    }
#endif
    for (i = 1; i < n; i++) {
        srt__worker_arg *a = (srt__worker_arg *)SRT_MALLOC(sizeof *a);
        int ok;
        if (!a) { srt_pool_destroy(p); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_pool_create: out of memory"); }
        a->pool = p; a->index = i;
#ifdef _WIN32
        p->threads[p->n_started] = CreateThread(NULL, 0, srt__thread_main, a, 0, NULL);
        ok = p->threads[p->n_started] != NULL;
#else
        ok = pthread_create(&p->threads[p->n_started], NULL, srt__thread_main, a) == 0;
#endif
        if (!ok) { SRT_FREE(a); srt_pool_destroy(p); return srt__fail(SRT_ERR_THREAD, "srt_pool_create: could not start thread %d", i); }
        p->n_started++;
    }
    *out = p;
    return SRT_OK;
}

SRT_API int srt_pool_threads(const srt_pool *p) { return p ? p->n_threads : 1; }

SRT_API int srt_pool_thread_cpu(const srt_pool *p, int index, int *pinned) {
    if (pinned) *pinned = 0;
    if (!p || index < 0 || index >= p->n_threads) return -1;
    if (pinned) *pinned = srt__atomic_load32(&((srt_pool *)p)->pinned[index]) != 0;
    return p->cpu[index];
}

SRT_API int64_t srt_pool_chunk(const srt_pool *p, int64_t n, int64_t bytes_per_item) {
    int64_t threads = srt_pool_threads(p), by_cost, by_balance;
    if (n <= 0) return 1;
    if (bytes_per_item < 1) bytes_per_item = 1;
    by_cost = (SRT__CHUNK_MIN_BYTES + bytes_per_item - 1) / bytes_per_item;
    by_balance = n / (threads * SRT__CHUNKS_PER_THREAD);
    return by_balance > by_cost ? by_balance : by_cost;
}

static void srt__pool_region(srt_pool *p, int64_t n, int64_t chunk, int split, srt_range_fn fn, void *user) {
    int spins = 0;
    srt__mutex_lock(&p->region);
    p->fn = fn; p->user = user; p->n = n; p->chunk = chunk; p->split = split;
    if (!split) {
        int64_t n_chunks = (n + chunk - 1) / chunk, i;
        for (i = 0; i < p->n_threads; i++)
            srt__atomic_store(&p->runs[i].run, (n_chunks * i / p->n_threads) << 32 | (n_chunks * (i + 1) / p->n_threads));
    }
    srt__atomic_store(&p->done, 0);
    srt__pool_wake_all(p);            /* the generation bump publishes the job */
    srt__tls_pool = p; srt__tls_index = 0;
    srt__pool_run_chunks(p, 0);
    srt__tls_pool = NULL;
    while (srt__atomic_load(&p->done) < p->n_threads - 1) {
        if (++spins < SRT__SPIN_ITERS) srt__cpu_relax();
        else srt__yield();
    }
    srt__mutex_unlock(&p->region);
}

/* Serially, still in chunks (so per-chunk partials of a reduction come out the same). */
static void srt__run_inline(int64_t n, int64_t chunk, srt_range_fn fn, void *user) {
    int index = srt__tls_pool ? srt__tls_index : 0;
    int64_t b;
    for (b = 0; b < n; b += chunk) fn(user, b, b + chunk < n ? b + chunk : n, index);
}

SRT_API void srt_pool_parallel_for(srt_pool *p, int64_t n, int64_t chunk, srt_range_fn fn, void *user) {
    if (n <= 0) return;
    if (chunk < 1) chunk = n / ((int64_t)srt_pool_threads(p) * SRT__CHUNKS_PER_THREAD);   /* cost unknown */
    if (chunk < 1) chunk = 1;
    if ((n - 1) / chunk >= 0x7fffffff) chunk = n / 0x7fffffff + 1;   /* chunk indices fit the packed runs */
    if (!p || p->n_threads == 1 || n <= chunk || srt__tls_pool) { srt__run_inline(n, chunk, fn, user); return; }
    srt__pool_region(p, n, chunk, 0, fn, user);
}

SRT_API void srt_pool_parallel_for_static(srt_pool *p, int64_t n, srt_range_fn fn, void *user) {
    if (n <= 0) return;
    if (!p || p->n_threads == 1 || srt__tls_pool) { srt__run_inline(n, n, fn, user); return; }   /* nested: inline */
    srt__pool_region(p, n, 1, 1, fn, user);
}

/* ---------------------------------------------------------------- 6 files */
/* Read-only mapping of a whole file: mmap on POSIX, a file mapping on Windows. */
typedef struct srt__map { const unsigned char *data; uint64_t size;
    void *block;                  /* SRT_LOAD_COPY: the allocation holding data */
#ifdef _WIN32
    HANDLE file, mapping;
#endif
} srt__map;

#define SRT__HUGE_PAGE ((size_t)2 << 20)

/* Memory the OS can give a model now, in bytes: *ram without swapping (Linux MemAvailable,
   Windows available physical memory, macOS physical memory) and *swap (free swap, free page
   file; 0 on macOS, whose swap grows on demand). Returns 0 where unknown. */
static int srt__memory_free(uint64_t *ram, uint64_t *swap) {
    *ram = *swap = 0;
#if defined(__linux__)
    {
        char buf[4096];
        const char *at;
        size_t n;
        unsigned long long kb = 0;
        FILE *f = fopen("/proc/meminfo", "r");
        if (!f) return 0;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        if (!(at = strstr(buf, "MemAvailable:")) || sscanf(at + 13, "%llu", &kb) != 1) return 0;
        *ram = (uint64_t)kb * 1024;
        if ((at = strstr(buf, "SwapFree:")) && sscanf(at + 9, "%llu", &kb) == 1) *swap = (uint64_t)kb * 1024;
        return 1;
    }
#elif defined(_WIN32)
    {
        MEMORYSTATUSEX ms;
        ms.dwLength = sizeof ms;
        /* wine answers a second caller within the same second from a cache the first has not
           filled yet: success with all zeros. No physical memory at all means "unknown". */
        if (!GlobalMemoryStatusEx(&ms) || !ms.ullTotalPhys) return 0;
        *ram = (uint64_t)ms.ullAvailPhys;
        *swap = ms.ullAvailPageFile > ms.ullAvailPhys ? (uint64_t)(ms.ullAvailPageFile - ms.ullAvailPhys) : 0;
        return 1;
    }
#elif defined(__APPLE__)
    {
        uint64_t total = 0;
        size_t sz = sizeof total;
        if (sysctlbyname("hw.memsize", &total, &sz, NULL, 0) != 0 || !total) return 0;
        *ram = total;
        return 1;
    }
#else
    return 0;
#endif
}

/* Refuses a file of `size` bytes that does not fit in the memory available (limit: as
   srt_model_desc.memory_limit), before anything is mapped or read. *avail receives the bytes
   AUTO may count on (0 = unknown). */
static srt_status srt__check_fits(const char *path, uint64_t size, uint64_t limit, uint64_t *avail) {
    uint64_t ram, swap;
    *avail = 0;
    if (limit == UINT64_MAX) return SRT_OK;
    if (limit) {
        *avail = limit;
        if (size <= limit) return SRT_OK;
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: the model file is %llu bytes (%.1f MiB), more than the memory limit of %llu bytes "
                         "(%.1f MiB, srt_model_desc.memory_limit)", path, (unsigned long long)size, (double)size / 1048576.0,
                         (unsigned long long)limit, (double)limit / 1048576.0);
    }
    if (!srt__memory_free(&ram, &swap)) return SRT_OK;   /* unknown: no check */
    *avail = ram;
    if (size <= ram || size - ram <= swap) return SRT_OK;
    return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: the model file is %llu bytes (%.1f MiB) but only %.1f MiB of memory is free "
                     "(%.1f MiB RAM + %.1f MiB swap): it would thrash; free memory, or set srt_model_desc.memory_limit to override",
                     path, (unsigned long long)size, (double)size / 1048576.0, (double)(ram + swap) / 1048576.0,
                     (double)ram / 1048576.0, (double)swap / 1048576.0);
}

/* Whether AUTO copies: Linux with transparent huge pages not "[never]", and the file takes at most
   half of the memory available (`avail`: MemAvailable or the app's limit; a larger copy would push
   the system into swap; mapping pages in lazily is the better deal then). */
static int srt__load_copy_pays(uint64_t size, uint64_t avail) {
#if defined(__linux__)
    char buf[4096];
    size_t n;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (strstr(buf, "[never]") || !strchr(buf, '[')) return 0;
    return avail && size <= avail / 2;
#else
    (void)size; (void)avail;
    return 0;
#endif
}

/* SRT_LOAD_COPY: the whole file read into memory aligned to a huge page (advised to use huge pages
   on Linux). Any platform: plain stdio. */
static srt_status srt__map_copy(const char *path, srt__map *m, uint64_t size) {
    FILE *f;
    unsigned char *base;
    uint64_t got = 0;
    if ((uint64_t)(size_t)size != size || size > (uint64_t)SIZE_MAX - SRT__HUGE_PAGE)
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: too large for the address space", path);
    if (!(m->block = SRT_MALLOC((size_t)size + SRT__HUGE_PAGE)))
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: cannot allocate %llu bytes to load the model (try SRT_LOAD_MMAP)", path, (unsigned long long)size);
    base = (unsigned char *)m->block + (SRT__HUGE_PAGE - (size_t)((uintptr_t)m->block % SRT__HUGE_PAGE)) % SRT__HUGE_PAGE;
#if defined(__linux__) && defined(SYS_madvise)
    syscall(SYS_madvise, (void *)base, (size_t)(size / SRT__HUGE_PAGE * SRT__HUGE_PAGE), 14 /* MADV_HUGEPAGE */);
#endif
    if (!(f = fopen(path, "rb"))) { SRT_FREE(m->block); m->block = NULL; return srt__fail(SRT_ERR_IO, "%s: cannot open", path); }
    while (got < size) {
        size_t want = size - got > ((size_t)1 << 26) ? ((size_t)1 << 26) : (size_t)(size - got), r = fread(base + got, 1, want, f);
        if (r == 0) break;
        got += r;
    }
    fclose(f);
    if (got != size) {
        SRT_FREE(m->block); m->block = NULL;
        return srt__fail(SRT_ERR_IO, "%s: read %llu of %llu bytes", path, (unsigned long long)got, (unsigned long long)size);
    }
    m->data = base;
    m->size = size;
    return SRT_OK;
}

static srt_status srt__map_open(const char *path, srt__map *m, srt_load load, uint64_t limit) {
    uint64_t avail;
    srt_status fits;
    memset(m, 0, sizeof *m);
#ifdef _WIN32
    {
        LARGE_INTEGER sz;
        m->file = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        if (m->file == INVALID_HANDLE_VALUE) return srt__fail(SRT_ERR_IO, "%s: cannot open (error %lu)", path, (unsigned long)GetLastError());
        if (!GetFileSizeEx(m->file, &sz)) { CloseHandle(m->file); return srt__fail(SRT_ERR_IO, "%s: cannot get size", path); }
        m->size = (uint64_t)sz.QuadPart;
        if (m->size == 0) { CloseHandle(m->file); return srt__fail(SRT_ERR_FORMAT, "%s: empty file", path); }
        if ((fits = srt__check_fits(path, m->size, limit, &avail)) != SRT_OK) { CloseHandle(m->file); return fits; }
        if (load == SRT_LOAD_COPY || (load == SRT_LOAD_AUTO && srt__load_copy_pays(m->size, avail))) {
            const srt_status st = srt__map_copy(path, m, m->size);
            if (st != SRT_ERR_OUT_OF_MEMORY || load == SRT_LOAD_COPY) { CloseHandle(m->file); return st; }   /* (AUTO: mapped instead) */
        }
        m->mapping = CreateFileMappingA(m->file, NULL, PAGE_READONLY, 0, 0, NULL);
        if (!m->mapping) { CloseHandle(m->file); return srt__fail(SRT_ERR_IO, "%s: cannot map (error %lu)", path, (unsigned long)GetLastError()); }
        m->data = (const unsigned char *)MapViewOfFile(m->mapping, FILE_MAP_READ, 0, 0, 0);
        if (!m->data) { CloseHandle(m->mapping); CloseHandle(m->file); return srt__fail(SRT_ERR_IO, "%s: cannot map view", path); }
    }
#else
    {
        struct stat st;
        void *p;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return srt__fail(SRT_ERR_IO, "%s: cannot open", path);
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return srt__fail(SRT_ERR_IO, "%s: not a regular file", path); }
        m->size = (uint64_t)st.st_size;
        if (m->size == 0) { close(fd); return srt__fail(SRT_ERR_FORMAT, "%s: empty file", path); }
        if ((uint64_t)(size_t)m->size != m->size) { close(fd); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: too large for the address space", path); }
        if ((fits = srt__check_fits(path, m->size, limit, &avail)) != SRT_OK) { close(fd); return fits; }
        if (load == SRT_LOAD_COPY || (load == SRT_LOAD_AUTO && srt__load_copy_pays(m->size, avail))) {
            const srt_status st = srt__map_copy(path, m, m->size);
            if (st != SRT_ERR_OUT_OF_MEMORY || load == SRT_LOAD_COPY) { close(fd); return st; }   /* (AUTO: mapped instead) */
        }
        p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return srt__fail(SRT_ERR_IO, "%s: mmap failed", path);
        m->data = (const unsigned char *)p;
    }
#endif
    return SRT_OK;
}

/* Renames tmp over path (a file written whole, then put in place: a reader never sees half of it). */
static int srt__replace_file(const char *tmp, const char *path) {
#ifdef _WIN32
    return MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING) != 0;
#else
    return rename(tmp, path) == 0;
#endif
}

static void srt__map_close(srt__map *m) {
    if (!m->data) return;
    if (m->block) { SRT_FREE(m->block); m->block = NULL; m->data = NULL; return; }
#ifdef _WIN32
    UnmapViewOfFile((LPCVOID)m->data);
    CloseHandle(m->mapping);
    CloseHandle(m->file);
#else
    munmap((void *)m->data, (size_t)m->size);
#endif
    m->data = NULL;
}

/* ---------------------------------------------------------------- 7 weight formats */
/* A weight tensor is rows x cols (rows = outputs M, cols = inputs K), stored in up to 4 parts.
   formats/LAYOUTS.md describes each layout bit by bit. Float formats are row-major. Integer formats
   (Q8, Q4, Q2, TQ, Q1) are stored in tiles of 16 rows: a 64-byte chunk holds 4 bytes per row, so
   one vpdpbusd against 4 broadcast activation bytes yields 16 row sums at once (the VNNI4-
   interleaved layout); K is padded to a multiple of 32 and scales are stored per tile and group. */
#define SRT__DEFAULT_GROUP 64u
#define SRT__TILE 16u                 /* rows per tile of an integer format */
#define SRT__KPAD 32u                 /* integer formats pad K to a multiple of this; groups are multiples of it */
#define SRT__MAX_HEADS 1024           /* attention heads of a model (a task's sink state is on the stack) */
#define SRT__MAX_GROUP 65536u         /* a group's int32 sum stays exact: 255 * 127 * 65536 < 2^31 */

SRT_API const char *srt_format_name(srt_format f) {
    switch (f) {
        case SRT_F32: return "f32";
        case SRT_F16: return "f16";
        case SRT_BF16: return "bf16";
        case SRT_Q8: return "q8";
        case SRT_Q4: return "q4";
        case SRT_Q2: return "q2";
        case SRT_TQ: return "tq";
        case SRT_Q1: return "q1";
        case SRT_SB_BF16: return "sb-bf16";
        case SRT_SB_Q8: return "sb-q8";
        case SRT_SB_Q4: return "sb-q4";
        case SRT_S4X1: return "s4x1";
        case SRT_TCSL: return "tcsl";
        case SRT_FP4: return "fp4";
        default: return "?";
    }
}
SRT_API int srt_format_from_name(const char *name) {
    int f;
    if (!name) return -1;
    for (f = 0; f < SRT_FORMAT_COUNT; f++)
        if (strcmp(name, srt_format_name((srt_format)f)) == 0) return f;
    return -1;
}

/* Formats whose kernels take int8-quantized activations: the dense tiled ones and sb-q8, sb-q4, s4x1. */
static int srt__format_is_tiled(srt_format f) { return (f >= SRT_Q8 && f <= SRT_Q1) || f == SRT_FP4; }
static int srt__format_is_int(srt_format f) { return srt__format_is_tiled(f) || f == SRT_SB_Q8 || f == SRT_SB_Q4 || f == SRT_S4X1; }
SRT_API int srt_format_is_sparse(srt_format f) { return f >= SRT_SB_BF16 && f <= SRT_TCSL; }
static uint32_t srt__code_bits(srt_format f) { return f == SRT_Q8 ? 8 : f == SRT_Q4 || f == SRT_FP4 ? 4 : f == SRT_Q1 ? 1 : 2; }
/* K values one 64-byte chunk covers per row: 4 bytes x (8 / bits) codes per byte. */
static uint32_t srt__kstep(srt_format f) { return 4 * (8 / srt__code_bits(f)); }

/* Integer weight value of a code: Q8 the int8 itself; FP4 its table entry; the others mul * code -
   off: Q4 code - 8, Q2 2 * code - 3 (levels -3 -1 1 3), TQ code - 1 (code 3 = +2 is never written),
   Q1 2 * code - 1. The kernels compute sum(w * x) = mul * sum(u * x) - off * sum(x), so that vpdpbusd
   (u8 x s8) applies to u = the code itself (Q8: u = code ^ 0x80 = w + 128, off = 128; FP4: u = the
   table entry + 12 = srt__fp4_u[code], off = 12, looked up 64 bytes at a time with vpshufb). */
static const int8_t srt__fp4_value[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};   /* MXFP4's (ggml's kvalues_mxfp4) */
static const uint8_t srt__fp4_u[16] = {12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0};
static int srt__code_off(srt_format f) { return f == SRT_Q8 ? 128 : f == SRT_Q4 ? 8 : f == SRT_FP4 ? 12 : f == SRT_Q2 ? 3 : 1; }
static int srt__code_mul(srt_format f) { return f == SRT_Q2 || f == SRT_Q1 ? 2 : 1; }
static int srt__code_value(srt_format f, uint32_t code) {
    return f == SRT_Q8 ? (int)(int8_t)(uint8_t)code : f == SRT_FP4 ? srt__fp4_value[code & 15] : srt__code_mul(f) * (int)code - srt__code_off(f);
}

/* Shape of a tiled tensor. */
typedef struct srt__tiling { uint64_t tiles, kp, chunks, ng; uint32_t kstep, bits; } srt__tiling;
static srt__tiling srt__tiling_of(srt_format f, uint64_t rows, uint64_t cols, uint32_t group) {
    srt__tiling t;
    t.bits = srt__code_bits(f); t.kstep = srt__kstep(f);
    t.tiles = (rows + SRT__TILE - 1) / SRT__TILE;
    t.kp = (cols + SRT__KPAD - 1) / SRT__KPAD * SRT__KPAD;
    t.chunks = t.kp / t.kstep;
    t.ng = (cols + group - 1) / group;
    return t;
}

static srt_status srt__sparse_layout(srt_pool *pool, srt_format format, uint64_t rows, uint64_t cols, uint32_t group, const float *src, srt_tensor_parts *parts);
SRT_API srt_status srt_tensor_layout(srt_format format, uint64_t rows, uint64_t cols, uint32_t group, srt_tensor_parts *parts) {
    uint64_t n;
    memset(parts, 0, sizeof *parts);
    if (rows == 0 || cols == 0 || rows > (1ull << 40) || cols > (1ull << 40) || !srt__mul_ok(rows, cols, &n) || n > (1ull << 44))
        return srt__fail(SRT_ERR_SHAPE, "bad tensor shape %llu x %llu", (unsigned long long)rows, (unsigned long long)cols);
    switch (format) {
        case SRT_F32: case SRT_F16: case SRT_BF16:
            if (group != 0) return srt__fail(SRT_ERR_FORMAT, "format %s takes no group size (got %u)", srt_format_name(format), group);
            parts->n_parts = 1;
            parts->kind[0] = SRT_PART_VALUES;
            parts->size[0] = n * (format == SRT_F32 ? 4 : 2);
            return SRT_OK;
        case SRT_Q8: case SRT_Q4: case SRT_Q2: case SRT_TQ: case SRT_Q1: case SRT_FP4: {
            srt__tiling t;
            if (group < SRT__KPAD || group > SRT__MAX_GROUP || group % SRT__KPAD)
                return srt__fail(SRT_ERR_FORMAT, "%s group size %u: must be a multiple of %u in %u..%u", srt_format_name(format), group, SRT__KPAD, SRT__KPAD, SRT__MAX_GROUP);
            t = srt__tiling_of(format, rows, cols, group);
            parts->n_parts = 2;
            parts->kind[0] = SRT_PART_VALUES; parts->size[0] = t.tiles * t.chunks * 64;
            parts->kind[1] = SRT_PART_SCALES; parts->size[1] = t.tiles * t.ng * SRT__TILE * 2;
            return SRT_OK;
        }
        case SRT_SB_BF16: case SRT_SB_Q8: case SRT_SB_Q4: case SRT_S4X1: case SRT_TCSL:
            return srt__sparse_layout(NULL, format, rows, cols, group, NULL, parts);
        default:
            return srt__fail(SRT_ERR_UNSUPPORTED, "unknown weight format %d", (int)format);
    }
}
/* srt_tensor_layout_data, counting a sparse tensor's non-zeros on `pool` */
static srt_status srt__layout_data(srt_pool *pool, srt_format format, uint64_t rows, uint64_t cols, uint32_t group, const float *src, srt_tensor_parts *parts) {
    srt_status st = srt_tensor_layout(format, rows, cols, group, parts);
    if (st != SRT_OK || !srt_format_is_sparse(format)) return st;
    if (!src) return srt__fail(SRT_ERR_INVALID_ARG, "srt_tensor_layout_data: NULL data");
    return srt__sparse_layout(pool, format, rows, cols, group, src, parts);
}
SRT_API srt_status srt_tensor_layout_data(srt_format format, uint64_t rows, uint64_t cols, uint32_t group, const float *src, srt_tensor_parts *parts) {
    return srt__layout_data(NULL, format, rows, cols, group, src, parts);
}

/* Where the code of W[r][k] lives: byte index into the values part and bit shift. Chunk c of
   tile r/16 covers k in [c*kstep, (c+1)*kstep); byte 4*(r%16) + (k%4) of the chunk holds the codes
   for k%kstep = 4s + (k%4), s = 0.. 8/bits-1, at bits [s*bits, (s+1)*bits). */
static uint64_t srt__code_at(const srt__tiling *t, uint64_t r, uint64_t k, uint32_t *shift) {
    uint64_t c = k / t->kstep, w = k % t->kstep;
    *shift = (uint32_t)(w / 4) * t->bits;
    return ((r / SRT__TILE) * t->chunks + c) * 64 + (r % SRT__TILE) * 4 + (w % 4);
}
static uint64_t srt__scale_at(const srt__tiling *t, uint64_t r, uint64_t g) {
    return ((r / SRT__TILE) * t->ng + g) * SRT__TILE + r % SRT__TILE;
}

/* Quantization of one group of n weights to codes + an f16 scale (round half away from zero).
   Q8: d = max|w| / 127. Q4, Q2, TQ: the d with the least squared error on a small grid that starts
   at m / -8 (m the weight of largest magnitude, which then maps to -8 exactly), max|w| / 3 and
   max|w| (exact for already-ternary weights). Q1: d = mean|w|, the least-squares scale for signs.
   FP4: the best of max|w| / v for each table value v and of Q4's grid below max|w| / 12, each
   rounded to f16 first: a group that holds MXFP4 values (a power-of-two scale s times table
   values, max|w| = s v for one v) comes back exactly, with d = s. */
/* FP4: the index of the table value nearest |v| (ties: the smaller magnitude), by counting the
   midpoints between table values below it */
static int srt__fp4_nearest(float a) {
    return (a > 0.5f) + (a > 1.5f) + (a > 2.5f) + (a > 3.5f) + (a > 5.0f) + (a > 7.0f) + (a > 10.0f);
}
static float srt__round_code(srt_format f, float v) {   /* v = w / d on the value grid -> code */
    float c;
    switch (f) {
        case SRT_FP4: {   /* negatives in codes 9..15 */
            const int i = srt__fp4_nearest(fabsf(v));
            return (float)(i && v < 0.0f ? i + 8 : i);
        }
        case SRT_Q8: c = roundf(v); return c > 127.0f ? 127.0f : c < -127.0f ? -127.0f : c;
        case SRT_Q4: c = roundf(v) + 8.0f; return c > 15.0f ? 15.0f : c < 0.0f ? 0.0f : c;
        case SRT_Q2: c = roundf((v + 3.0f) * 0.5f); return c > 3.0f ? 3.0f : c < 0.0f ? 0.0f : c;
        case SRT_TQ: c = roundf(v) + 1.0f; return c > 2.0f ? 2.0f : c < 0.0f ? 0.0f : c;
        default: return v >= 0.0f ? 1.0f : 0.0f;
    }
}
static float srt__group_error(srt_format f, const float *x, uint64_t n, float d) {
    float id = d != 0.0f ? 1.0f / d : 0.0f, e = 0.0f;
    uint64_t i;
    if (f == SRT_FP4) {   /* the magnitudes alone (the code's sign is the weight's): no code round trip */
        for (i = 0; i < n; i++) {
            const float q = (float)srt__fp4_value[srt__fp4_nearest(fabsf(x[i] * id))] * d - fabsf(x[i]);
            e += q * q;
        }
        return e;
    }
    for (i = 0; i < n; i++) {
        float q = (float)srt__code_value(f, (uint32_t)srt__round_code(f, x[i] * id)) * d - x[i];
        e += q * q;
    }
    return e;
}
/* The scale among d0 * (1 - shrink * i), i < steps, with the least squared error (d0 first). */
static float srt__search_scale(srt_format f, const float *x, uint64_t n, float d0, int steps, float shrink) {
    float d = d0, best = -1.0f;
    int i;
    for (i = 0; i < steps && d0 != 0.0f; i++) {
        float cand = d0 * (1.0f - shrink * (float)i), e = srt__group_error(f, x, n, cand);
        if (best < 0.0f || e < best) { best = e; d = cand; }
    }
    return d;
}
static void srt__quantize_group(srt_format f, const float *x, uint64_t n, uint8_t *codes, uint16_t *scale) {
    float amax = 0.0f, m = 0.0f, sum = 0.0f, d, id;
    uint64_t i;
    for (i = 0; i < n; i++) {
        float a = fabsf(x[i]);
        sum += a;
        if (a > amax) { amax = a; m = x[i]; }
    }
    switch (f) {
        case SRT_Q8: d = amax / 127.0f; break;
        case SRT_Q4: d = srt__search_scale(f, x, n, m / -8.0f, 8, 0.025f); break;   /* m / -8 maps m exactly */
        case SRT_FP4: {   /* each candidate with its scale as stored (f16), so that an exact one stays exact */
            float e = -1.0f, c, ce, cs[8], es[8];
            int v, exact = 0;
            d = 0.0f;
            for (v = 7; v >= 6 && !exact; v--) {   /* an MXFP4 block's amax is 6 or 4 times its scale (table values 12, 8): exact
                                                      there, the search ends (another exact scale would give the same values) */
                cs[v] = srt_f16_to_f32(srt_f32_to_f16(amax / (float)srt__fp4_value[v]));
                es[v] = srt__group_error(f, x, n, cs[v]);
                if (es[v] == 0.0f) { d = cs[v]; exact = 1; }
            }
            for (v = 1; v <= 8 && !exact; v++) {   /* amax onto table value v, then (v = 8) Q4's grid below amax / 12 */
                if (v == 6 || v == 7) { c = cs[v]; ce = es[v]; }
                else {
                    c = v < 8 ? amax / (float)srt__fp4_value[v] : srt__search_scale(f, x, n, amax / 12.0f, 8, 0.025f);
                    c = srt_f16_to_f32(srt_f32_to_f16(c));
                    ce = srt__group_error(f, x, n, c);
                }
                if (e < 0.0f || ce < e) { e = ce; d = c; }
            }
            break;
        }
        case SRT_Q2: d = srt__search_scale(f, x, n, amax / 3.0f, 16, 0.045f); break;
        case SRT_TQ: d = srt__search_scale(f, x, n, amax, 16, 0.045f); break;      /* amax: exact for ternary weights */
        default: d = sum / (float)n; break;                                            /* Q1: least squares for signs */
    }
    *scale = srt_f32_to_f16(d);
    d = srt_f16_to_f32(*scale);
    id = d != 0.0f ? 1.0f / d : 0.0f;
    for (i = 0; i < n; i++) codes[i] = (uint8_t)((int)srt__round_code(f, x[i] * id) & 0xff);
}

/* ---- sparse formats: sb-bf16, sb-q8, sb-q4, s4x1 (formats/LAYOUTS.md, "Sparse formats").
   Zeros of the float weights are the sparsity: a weight that is exactly 0 is not stored, every
   other one is (even if its code rounds to 0). Every part is read only within its size: the loader
   checks offsets, bitmaps and counts against each other (srt__sparse_check). */
#define SRT__SB_PAD 64u     /* zero bytes after the packed values of sb formats (a kernel loads 64 at once) */
#define SRT__SEG 32u        /* s4x1: columns per segment; a column index is an offset 0..31 in it */
#define SRT__S4_MAXMT 8u    /* s4x1: at most 8 micro-tiles (4 columns each) per block and segment */

/* sb-bf16 stores rows in groups of SRT__SBG (the last one holds what is left): block by block (32
   columns), row by row within a block, for bitmap words and values alike, so that the kernels,
   which compute a group's rows together, read one stream of each (a stream per row, as in file
   version 2, made the AVX-512 GEMV 3-5% slower at 50% and 6-8% at 70%). */
#define SRT__SBG 4u
static uint64_t srt__sbg_rows(uint64_t rows, uint64_t g0) { return rows - g0 < SRT__SBG ? rows - g0 : SRT__SBG; }
/* the bitmap word of row r, block b (of nb per row) */
static uint64_t srt__sbg_word(uint64_t rows, uint64_t nb, uint64_t r, uint64_t b) {
    uint64_t g0 = r / SRT__SBG * SRT__SBG;
    return g0 * nb + b * srt__sbg_rows(rows, g0) + (r - g0);
}
static void srt__sp_put(unsigned char *p, uint64_t v, int bytes) { int i; for (i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static uint64_t srt__rd64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t srt__rd32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static int srt__popcount64(uint64_t x) {
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}
/* Bytes of packed values for a chunk with n non-zeros: sb-q8 one each, sb-q4 two per byte. */
static uint64_t srt__sb_chunk_bytes(srt_format f, int n) { return f == SRT_SB_Q4 ? (uint64_t)(n + 1) / 2 : (uint64_t)n; }
/* 1 if W[r][k] (inside the matrix) is stored. */
static int srt__nz(const float *src, uint64_t rows, uint64_t cols, uint64_t r, uint64_t k) {
    return r < rows && k < cols && src[r * cols + k] != 0.0f;
}

/* ---- TCSL, Tiled-CSL (Flash-LLM; formats/LAYOUTS.md "TCSL"): the matrix in 64 x 64 tiles, tile
   (i, j) = rows 64i.., columns 64j.., numbered i * tk + j; per tile its stored weights as 32-bit
   words `f16 value | location << 16` (location = 64 * row + column inside the tile), in the
   bank-interleaved order a GPU kernel writes to shared memory without conflicts, padded to a
   multiple of 4 words with repeats of the last one; u32 offsets (in words) per tile. */
#define SRT__TCSL_T 64u
/* Shared-memory bank (of 32 four-byte banks) of W[r][c] in a tile rebuilt as 64 rows of 128 bytes
   whose 16-byte chunks are swizzled by (row mod 8): the layout ldmatrix reads without conflicts. */
static unsigned srt__tcsl_bank(unsigned r, unsigned c) { return 4u * ((c >> 3) ^ (r & 7u)) + ((c & 7u) >> 1); }
/* Words of tile (i, j): its non-zeros (src NULL: every place) rounded up to a multiple of 4. */
static uint64_t srt__tcsl_tile_words(const float *src, uint64_t rows, uint64_t cols, uint64_t i, uint64_t j) {
    uint64_t r1 = (i + 1) * SRT__TCSL_T < rows ? (i + 1) * SRT__TCSL_T : rows, c1 = (j + 1) * SRT__TCSL_T < cols ? (j + 1) * SRT__TCSL_T : cols, r, c;
    uint64_t nnz = (r1 - i * SRT__TCSL_T) * (c1 - j * SRT__TCSL_T);
    if (src)
        for (nnz = 0, r = i * SRT__TCSL_T; r < r1; r++)
            for (c = j * SRT__TCSL_T; c < c1; c++) nnz += src[r * cols + c] != 0.0f;
    return (nnz + 3) / 4 * 4;
}
/* Tile (i, j)'s words, written from word `pos` of the values part on. */
static void srt__tcsl_pack_tile(const float *src, uint64_t rows, uint64_t cols, uint64_t i, uint64_t j, unsigned char *v, uint64_t pos) {
    static const unsigned T = SRT__TCSL_T;
    uint32_t bucket[32][SRT__TCSL_T * SRT__TCSL_T / 32];   /* a bank holds 128 of a tile's 4096 places */
    unsigned cnt[32] = {0}, taken[32] = {0}, r, c, b, n = 0, left;
    for (r = 0; r < T && i * T + r < rows; r++)
        for (c = 0; c < T && j * T + c < cols; c++) {
            float x = src[(i * T + r) * cols + j * T + c];
            if (x == 0.0f) continue;
            b = srt__tcsl_bank(r, c);
            bucket[b][cnt[b]++] = (uint32_t)srt_f32_to_f16(x) | (uint32_t)(r * T + c) << 16;
            n++;
        }
    for (left = n; left; )   /* rounds: one word of every bank that has one left */
        for (b = 0; b < 32; b++)
            if (taken[b] < cnt[b]) { srt__sp_put(v + 4 * pos++, bucket[b][taken[b]++], 4); left--; }
    for (; n % 4; n++, pos++) memcpy(v + 4 * pos, v + 4 * (pos - 1), 4);   /* repeats of the last word */
}
static void srt__tcsl_unpack_rows(const void *const *parts, uint64_t rows, uint64_t cols, uint64_t r0, uint64_t n_rows, float *dst) {
    uint64_t tk = (cols + SRT__TCSL_T - 1) / SRT__TCSL_T, i, j, w;
    const unsigned char *v = (const unsigned char *)parts[0], *off = (const unsigned char *)parts[1];
    (void)rows;
    for (i = r0 / SRT__TCSL_T; i * SRT__TCSL_T < r0 + n_rows; i++)
        for (j = 0; j < tk; j++)
            for (w = srt__rd32(off + (i * tk + j) * 4); w < srt__rd32(off + (i * tk + j + 1) * 4); w++) {
                uint32_t word = srt__rd32(v + 4 * w), loc = word >> 16;
                uint64_t r = i * SRT__TCSL_T + loc / SRT__TCSL_T, c = j * SRT__TCSL_T + loc % SRT__TCSL_T;
                if (r >= r0 && r < r0 + n_rows) dst[(r - r0) * cols + c] = srt_f16_to_f32((uint16_t)word);
            }
}
/* Offsets start at 0, grow by multiples of 4 words, at most a tile's area (rounded up to 4), and
   end at the size of the values part; every location lies inside the matrix and is written once
   (but for the repeats of a tile's last word that pad it). */
static srt_status srt__tcsl_check(uint64_t rows, uint64_t cols, const void *const *parts, const uint64_t *size) {
    uint64_t tm = (rows + SRT__TCSL_T - 1) / SRT__TCSL_T, tk = (cols + SRT__TCSL_T - 1) / SRT__TCSL_T, i, j, w;
    const unsigned char *v = (const unsigned char *)parts[0], *off = (const unsigned char *)parts[1];
    if (srt__rd32(off) != 0) return srt__fail(SRT_ERR_FORMAT, "tcsl: the first tile offset is %u, not 0", srt__rd32(off));
    if (srt__rd32(off + tm * tk * 4) != size[0] / 4 || size[0] % 4)
        return srt__fail(SRT_ERR_FORMAT, "tcsl: the offsets end at word %u, the values part holds %llu bytes", srt__rd32(off + tm * tk * 4), (unsigned long long)size[0]);
    for (i = 0; i < tm; i++)
        for (j = 0; j < tk; j++) {
            uint64_t t = i * tk + j, w0 = srt__rd32(off + t * 4), w1 = srt__rd32(off + (t + 1) * 4);
            uint64_t h = rows - i * SRT__TCSL_T < SRT__TCSL_T ? rows - i * SRT__TCSL_T : SRT__TCSL_T;
            uint64_t wd = cols - j * SRT__TCSL_T < SRT__TCSL_T ? cols - j * SRT__TCSL_T : SRT__TCSL_T;
            unsigned char seen[SRT__TCSL_T * SRT__TCSL_T / 8];
            uint32_t last = 0;
            if (w1 < w0 || (w1 - w0) % 4 || w1 - w0 > (h * wd + 3) / 4 * 4)
                return srt__fail(SRT_ERR_FORMAT, "tcsl: tile %llu (rows %llu.., columns %llu..): %lld words (a multiple of 4, at most %llu)", (unsigned long long)t,
                                 (unsigned long long)(i * SRT__TCSL_T), (unsigned long long)(j * SRT__TCSL_T), (long long)(w1 - w0), (unsigned long long)((h * wd + 3) / 4 * 4));
            memset(seen, 0, sizeof seen);
            for (w = w0; w < w1; w++) {
                uint32_t word = srt__rd32(v + 4 * w), loc = word >> 16;
                if (loc / SRT__TCSL_T >= h || loc % SRT__TCSL_T >= wd)
                    return srt__fail(SRT_ERR_FORMAT, "tcsl: tile %llu word %llu: location %u lies outside the %llu x %llu tile", (unsigned long long)t,
                                     (unsigned long long)(w - w0), loc, (unsigned long long)h, (unsigned long long)wd);
                if (seen[loc >> 3] >> (loc & 7) & 1) {
                    if (word == last && w1 - w < 4) continue;   /* a padding repeat of the last word */
                    return srt__fail(SRT_ERR_FORMAT, "tcsl: tile %llu word %llu: location %u is written twice", (unsigned long long)t, (unsigned long long)(w - w0), loc);
                }
                seen[loc >> 3] |= (unsigned char)(1u << (loc & 7));
                last = word;
            }
        }
    return SRT_OK;
}

/* What a sparse tensor stores depends on which weights are zero, so packing is split into units that
   are counted first and filled after: a tile of 16 rows (sb-q8, sb-q4, s4x1), a group of
   SRT__SBG rows (sb-bf16) or a row of 64 x 64 tiles (tcsl). A prefix sum of the counts gives every
   unit (tcsl: every tile) its offset, so the units fill in parallel and the bytes do not depend on
   the thread count. Each unit writes, and zeroes, only its own bytes of every part. */
typedef struct srt__qjob {
    srt_format format;
    uint32_t group;
    const float *src;
    uint64_t rows, cols;
    void *const *parts;
    srt__tiling t;          /* integer formats; sb-q8, sb-q4, s4x1: their 16-row tiles (as Q8) */
    uint64_t units;         /* sparse: units to count and fill */
    uint64_t tk, nseg;      /* tcsl: tiles per tile row; s4x1: segments per row */
    uint64_t *start;        /* sparse: start[x] = where unit (tcsl: tile) x begins, start[n] = the total;
                               in words (tcsl), values (sb-bf16), bytes (sb-q8, sb-q4), micro-tiles (s4x1) */
    int64_t bad;            /* srt_quantize: the first value that is not finite (atomic min; -1 = none) */
    int64_t oom;            /* a unit could not get its scratch memory (atomic) */
} srt__qjob;

/* Values stored by the rows of sb-bf16 group g0.. */
static uint64_t srt__sbg_nnz(const float *src, uint64_t rows, uint64_t cols, uint64_t g0) {
    uint64_t n = 0, i, end = (g0 + srt__sbg_rows(rows, g0)) * cols;
    for (i = g0 * cols; i < end; i++) n += src[i] != 0.0f;
    return n;
}
/* Bytes of packed values of an sb-q8 / sb-q4 tile. */
static uint64_t srt__sb_tile_bytes(srt_format format, const float *src, uint64_t rows, uint64_t cols, const srt__tiling *t, uint64_t tile) {
    uint64_t bytes = 0, c, r, k;
    for (c = 0; c < t->chunks; c++) {
        int cnt = 0;
        for (r = tile * SRT__TILE; r < tile * SRT__TILE + SRT__TILE; r++)
            for (k = 4 * c; k < 4 * c + 4; k++) cnt += srt__nz(src, rows, cols, r, k);
        bytes += srt__sb_chunk_bytes(format, cnt);
    }
    return bytes;
}
/* Micro-tiles of an s4x1 tile: per block of 4 rows and segment, its non-zero columns in fours. */
static uint64_t srt__s4_tile_mt(const float *src, uint64_t rows, uint64_t cols, uint64_t nseg, uint64_t tile) {
    uint64_t mt = 0, b, s, k, r;
    for (b = tile * 4; b < tile * 4 + 4; b++)
        for (s = 0; s < nseg; s++) {
            uint64_t ncol = 0;
            for (k = s * SRT__SEG; k < (s + 1) * SRT__SEG && k < cols; k++) {
                int any = 0;
                for (r = 4 * b; r < 4 * b + 4; r++) any |= srt__nz(src, rows, cols, r, k);
                ncol += (uint64_t)any;
            }
            mt += (ncol + 3) / 4;
        }
    return mt;
}

static void srt__sparse_count_units(void *user, int64_t u0, int64_t u1, int thread_index) {
    srt__qjob *j = (srt__qjob *)user;
    uint64_t u, x;
    (void)thread_index;
    for (u = (uint64_t)u0; u < (uint64_t)u1; u++) {
        if (j->format == SRT_TCSL)
            for (x = 0; x < j->tk; x++) j->start[u * j->tk + x + 1] = srt__tcsl_tile_words(j->src, j->rows, j->cols, u, x);
        else if (j->format == SRT_SB_BF16) j->start[u + 1] = srt__sbg_nnz(j->src, j->rows, j->cols, u * SRT__SBG);
        else if (j->format == SRT_S4X1) j->start[u + 1] = srt__s4_tile_mt(j->src, j->rows, j->cols, j->nseg, u);
        else j->start[u + 1] = srt__sb_tile_bytes(j->format, j->src, j->rows, j->cols, &j->t, u);
    }
}

/* Sets up j for a sparse format (units, tiling) and, with src, counts every unit and fills j->start
   (allocated here; the caller frees it). */
static srt_status srt__sparse_count(srt_pool *pool, srt__qjob *j) {
    uint64_t n_start, x;
    if (j->format == SRT_TCSL) {
        uint64_t tm = (j->rows + SRT__TCSL_T - 1) / SRT__TCSL_T;
        j->tk = (j->cols + SRT__TCSL_T - 1) / SRT__TCSL_T;
        if (j->rows * j->cols + 3 * tm * j->tk >= (1ull << 32))
            return srt__fail(SRT_ERR_SHAPE, "tcsl: %llu x %llu is too large (u32 offsets)", (unsigned long long)j->rows, (unsigned long long)j->cols);
        j->units = tm;
        n_start = tm * j->tk;
    } else if (j->format == SRT_SB_BF16) {
        j->units = n_start = (j->rows + SRT__SBG - 1) / SRT__SBG;
    } else {
        j->t = srt__tiling_of(SRT_Q8, j->rows, j->cols, j->group);   /* chunks of 16 rows x 4 columns */
        j->nseg = j->t.kp / SRT__SEG;
        j->units = n_start = j->t.tiles;
    }
    if (!j->src) return SRT_OK;
    if ((uint64_t)(size_t)(n_start + 1) != n_start + 1 || !(j->start = (uint64_t *)SRT_MALLOC((size_t)(n_start + 1) * sizeof(uint64_t))))
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "sparse tensor %llu x %llu: out of memory", (unsigned long long)j->rows, (unsigned long long)j->cols);
    j->start[0] = 0;
    srt_pool_parallel_for(pool, (int64_t)j->units, srt_pool_chunk(pool, (int64_t)j->units, (int64_t)(j->rows * j->cols * 4 / j->units)),
                          srt__sparse_count_units, j);
    for (x = 0; x < n_start; x++) j->start[x + 1] += j->start[x];
    return SRT_OK;
}

/* Part sizes of a sparse format: exact for src (counted on pool), the bound (every weight) without. */
static srt_status srt__sparse_layout(srt_pool *pool, srt_format format, uint64_t rows, uint64_t cols, uint32_t group, const float *src, srt_tensor_parts *parts) {
    srt__qjob j;
    uint64_t total = 0;
    srt_status st;
    if ((format == SRT_TCSL || format == SRT_SB_BF16) && group != 0)
        return srt__fail(SRT_ERR_FORMAT, "format %s takes no group size (got %u)", srt_format_name(format), group);
    if (format != SRT_TCSL && format != SRT_SB_BF16 && (group < SRT__KPAD || group > SRT__MAX_GROUP || group % SRT__KPAD))
        return srt__fail(SRT_ERR_FORMAT, "%s group size %u: must be a multiple of %u in %u..%u", srt_format_name(format), group, SRT__KPAD, SRT__KPAD, SRT__MAX_GROUP);
    memset(&j, 0, sizeof j);
    j.format = format; j.group = group; j.src = src; j.rows = rows; j.cols = cols;
    if ((st = srt__sparse_count(pool, &j)) != SRT_OK) return st;
    if (src) { total = j.start[format == SRT_TCSL ? j.units * j.tk : j.units]; SRT_FREE(j.start); }
    else if (format == SRT_TCSL) {
        uint64_t i, x;
        for (i = 0; i < j.units; i++)
            for (x = 0; x < j.tk; x++) total += srt__tcsl_tile_words(NULL, rows, cols, i, x);
    } else if (format == SRT_SB_BF16) total = rows * cols;
    else if (format == SRT_S4X1) total = j.t.tiles * 4 * j.nseg * SRT__S4_MAXMT;
    else total = j.t.tiles * j.t.chunks * (format == SRT_SB_Q4 ? 32 : 64);
    if (format == SRT_TCSL) {
        parts->n_parts = 2;
        parts->kind[0] = SRT_PART_VALUES; parts->size[0] = total * 4;
        parts->kind[1] = SRT_PART_OFFSETS; parts->size[1] = (j.units * j.tk + 1) * 4;
    } else if (format == SRT_SB_BF16) {
        parts->n_parts = 3;
        parts->kind[0] = SRT_PART_VALUES; parts->size[0] = total * 2 + SRT__SB_PAD;
        parts->kind[1] = SRT_PART_BITMAP; parts->size[1] = rows * ((cols + 31) / 32) * 4;
        parts->kind[2] = SRT_PART_OFFSETS; parts->size[2] = (j.units + 1) * 8;
    } else {
        parts->n_parts = 4;
        parts->kind[0] = SRT_PART_VALUES;
        parts->kind[1] = SRT_PART_SCALES; parts->size[1] = j.t.tiles * j.t.ng * SRT__TILE * 2;
        if (format == SRT_S4X1) {
            parts->size[0] = total * 16;
            parts->kind[2] = SRT_PART_INDEX; parts->size[2] = total * 4;
            parts->kind[3] = SRT_PART_OFFSETS; parts->size[3] = (j.t.tiles + 1) * 8 + j.t.tiles * 4 * j.nseg;
        } else {
            parts->size[0] = total + SRT__SB_PAD;
            parts->kind[2] = SRT_PART_BITMAP; parts->size[2] = j.t.tiles * j.t.chunks * 8;
            parts->kind[3] = SRT_PART_OFFSETS; parts->size[3] = (j.t.tiles + 1) * 8;
        }
    }
    return SRT_OK;
}

/* Quantizes the rows of tile `tile` (Q8 or Q4 codes of the dense convention) into codes[16][kp]
   and their scales into the scales part (the tile's scales of rows past the end: 0). */
static void srt__sparse_tile_codes(srt_format dense, uint32_t group, const float *src, uint64_t rows, uint64_t cols,
                                   const srt__tiling *t, uint64_t tile, uint8_t *codes, uint16_t *sc) {
    uint64_t i, g;
    memset(codes, 0, (size_t)(SRT__TILE * t->kp));
    memset(sc + srt__scale_at(t, tile * SRT__TILE, 0), 0, (size_t)(t->ng * SRT__TILE * 2));
    for (i = 0; i < SRT__TILE && tile * SRT__TILE + i < rows; i++) {
        uint64_t r = tile * SRT__TILE + i;
        for (g = 0; g < t->ng; g++) {
            uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group;
            srt__quantize_group(dense, src + r * cols + k0, len, codes + i * t->kp + k0, sc + srt__scale_at(t, r, g));
        }
    }
}

/* Fills units u0..u1 at the offsets the count gave them. */
static void srt__sparse_fill_units(void *user, int64_t u0, int64_t u1, int thread_index) {
    srt__qjob *j = (srt__qjob *)user;
    const float *src = j->src;
    uint64_t rows = j->rows, cols = j->cols, u;
    void *const *parts = j->parts;
    uint8_t *codes = NULL;
    (void)thread_index;
    if (j->format == SRT_TCSL) {
        unsigned char *off = (unsigned char *)parts[1];
        uint64_t x;
        for (u = (uint64_t)u0; u < (uint64_t)u1; u++)
            for (x = u * j->tk; x < (u + 1) * j->tk; x++) {
                srt__sp_put(off + x * 4, j->start[x], 4);
                srt__tcsl_pack_tile(src, rows, cols, u, x - u * j->tk, (unsigned char *)parts[0], j->start[x]);
            }
        return;
    }
    if (j->format == SRT_SB_BF16) {
        uint16_t *v = (uint16_t *)parts[0];
        unsigned char *bm = (unsigned char *)parts[1], *off = (unsigned char *)parts[2];
        uint64_t nb = (cols + 31) / 32, i, b;
        for (u = (uint64_t)u0; u < (uint64_t)u1; u++) {
            uint64_t g0 = u * SRT__SBG, rg = srt__sbg_rows(rows, g0), pos = j->start[u], word = g0 * nb;
            srt__sp_put(off + u * 8, pos, 8);
            for (b = 0; b < nb; b++)
                for (i = 0; i < rg; i++, word++) {   /* words in file order: srt__sbg_word(rows, nb, g0 + i, b) == word */
                    uint32_t bits = 0, k;
                    for (k = 0; k < 32 && 32 * b + k < cols; k++) {
                        float x = src[(g0 + i) * cols + 32 * b + k];
                        if (x != 0.0f) { bits |= 1u << k; v[pos++] = srt_f32_to_bf16(x); }
                    }
                    srt__sp_put(bm + word * 4, bits, 4);
                }
        }
        return;
    }
    if (!(codes = (uint8_t *)SRT_MALLOC((size_t)(SRT__TILE * j->t.kp)))) { srt__atomic_store(&j->oom, 1); return; }
    for (u = (uint64_t)u0; u < (uint64_t)u1; u++) {
        const srt__tiling *t = &j->t;
        uint8_t *v = (uint8_t *)parts[0];
        unsigned char *off = (unsigned char *)parts[3];
        uint64_t tile = u, c, pos = j->start[u];
        srt__sparse_tile_codes(j->format == SRT_SB_Q4 ? SRT_Q4 : SRT_Q8, j->group, src, rows, cols, t, tile, codes, (uint16_t *)parts[1]);
        srt__sp_put(off + tile * 8, pos, 8);
        if (j->format == SRT_S4X1) {
            unsigned char *counts = off + (t->tiles + 1) * 8;
            uint8_t *idx = (uint8_t *)parts[2];
            uint64_t bi, s, k, nseg = j->nseg;
            memset(v + pos * 16, 0, (size_t)((j->start[u + 1] - pos) * 16));   /* unused places of a micro-tile: column 0, weights 0 */
            memset(idx + pos * 4, 0, (size_t)((j->start[u + 1] - pos) * 4));
            for (bi = 0; bi < 4; bi++) {
                uint64_t b = tile * 4 + bi;
                for (s = 0; s < nseg; s++) {
                    uint64_t ncol = 0, m0 = pos;
                    for (k = s * SRT__SEG; k < (s + 1) * SRT__SEG && k < cols; k++) {
                        int any = 0, ii;
                        for (ii = 0; ii < 4; ii++) any |= srt__nz(src, rows, cols, 4 * b + (uint64_t)ii, k);
                        if (!any) continue;
                        idx[pos * 4 + ncol % 4] = (uint8_t)(k - s * SRT__SEG);
                        for (ii = 0; ii < 4; ii++) v[pos * 16 + (uint64_t)ii * 4 + ncol % 4] = codes[(bi * 4 + (uint64_t)ii) * t->kp + k];
                        if (++ncol % 4 == 0) pos++;
                    }
                    if (ncol % 4) pos++;
                    counts[b * nseg + s] = (unsigned char)(pos - m0);
                }
            }
        } else {
            unsigned char *bm = (unsigned char *)parts[2];
            memset(v + pos, 0, (size_t)(j->start[u + 1] - pos));   /* sb-q4 ors nibbles in */
            for (c = 0; c < t->chunks; c++) {
                uint64_t bits = 0;
                int b, n = 0;
                for (b = 0; b < 64; b++) {
                    uint64_t r = tile * SRT__TILE + (uint64_t)(b / 4), k = 4 * c + (uint64_t)(b % 4);
                    uint8_t code;
                    if (!srt__nz(src, rows, cols, r, k)) continue;
                    bits |= 1ull << b;
                    code = codes[(uint64_t)(b / 4) * t->kp + k];
                    if (j->format == SRT_SB_Q8) v[pos + (uint64_t)n] = code;                     /* the int8 value */
                    else v[pos + (uint64_t)(n / 2)] |= (uint8_t)(((code ^ 8u) & 15u) << (4 * (n % 2)));   /* value & 15 */
                    n++;
                }
                srt__sp_put(bm + (tile * t->chunks + c) * 8, bits, 8);
                pos += srt__sb_chunk_bytes(j->format, n);
            }
        }
    }
    SRT_FREE(codes);
}

static srt_status srt__sparse_quantize(srt_pool *pool, srt__qjob *j) {
    srt_status st = srt__sparse_count(pool, j);
    uint64_t total;
    void *const *parts = j->parts;
    if (st != SRT_OK) return st;
    srt_pool_parallel_for(pool, (int64_t)j->units, srt_pool_chunk(pool, (int64_t)j->units, (int64_t)(j->rows * j->cols * 4 / j->units)),
                          srt__sparse_fill_units, j);
    total = j->start[j->format == SRT_TCSL ? j->units * j->tk : j->units];
    if (j->format == SRT_TCSL) srt__sp_put((unsigned char *)parts[1] + j->units * j->tk * 4, total, 4);
    else if (j->format == SRT_SB_BF16) {
        srt__sp_put((unsigned char *)parts[2] + j->units * 8, total, 8);
        memset((uint16_t *)parts[0] + total, 0, SRT__SB_PAD);
    } else {
        srt__sp_put((unsigned char *)parts[3] + j->t.tiles * 8, total, 8);
        if (j->format != SRT_S4X1) memset((uint8_t *)parts[0] + total, 0, SRT__SB_PAD);
    }
    SRT_FREE(j->start);
    j->start = NULL;
    if (j->oom) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_quantize: out of memory");
    return SRT_OK;
}

/* Value of the n-th packed code from byte `p`: sb-q8 the int8, sb-q4 the sign-extended nibble. */
static int srt__sb_value(srt_format f, const uint8_t *p, int n) {
    if (f == SRT_SB_Q8) return (int)(int8_t)p[n];
    return (int)(((p[n / 2] >> (4 * (n % 2))) & 15u) ^ 8u) - 8;
}

/* Rows [r0, r0 + n_rows) as floats, decoded tile by tile. */
static void srt__sparse_dequantize_rows(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                                        uint64_t r0, uint64_t n_rows, float *dst) {
    uint64_t r1 = r0 + n_rows;
    memset(dst, 0, (size_t)(n_rows * cols * sizeof(float)));
    if (format == SRT_TCSL) srt__tcsl_unpack_rows(parts, rows, cols, r0, n_rows, dst);
    else if (format == SRT_SB_BF16) {
        const uint16_t *v = (const uint16_t *)parts[0];
        const unsigned char *bm = (const unsigned char *)parts[1], *off = (const unsigned char *)parts[2];
        uint64_t nb = (cols + 31) / 32, g0, i, b, j;
        for (g0 = r0 / SRT__SBG * SRT__SBG; g0 < r1; g0 += SRT__SBG) {
            uint64_t pos = srt__rd64(off + g0 / SRT__SBG * 8), rg = srt__sbg_rows(rows, g0);
            for (b = 0; b < nb; b++)
                for (i = 0; i < rg; i++) {
                    uint64_t r = g0 + i;
                    uint32_t bits = srt__rd32(bm + srt__sbg_word(rows, nb, r, b) * 4);
                    if (r < r0 || r >= r1) { pos += (uint64_t)srt__popcount64(bits); continue; }
                    for (j = 0; j < 32; j++) if (bits >> j & 1) dst[(r - r0) * cols + 32 * b + j] = srt_bf16_to_f32(v[pos++]);
                }
        }
    } else {
        srt__tiling t = srt__tiling_of(SRT_Q8, rows, cols, group);
        const uint8_t *v = (const uint8_t *)parts[0];
        const uint16_t *sc = (const uint16_t *)parts[1];
        const unsigned char *off = (const unsigned char *)parts[3];
        uint64_t tile, c, nseg = t.kp / SRT__SEG;
        for (tile = r0 / SRT__TILE; tile * SRT__TILE < r1; tile++) {
            uint64_t pos = srt__rd64(off + tile * 8);
            if (format == SRT_S4X1) {
                const unsigned char *counts = off + (t.tiles + 1) * 8;
                const uint8_t *idx = (const uint8_t *)parts[2];
                uint64_t bi, s, m;
                int i, j;
                for (bi = 0; bi < 4; bi++)
                    for (s = 0; s < nseg; s++)
                        for (m = 0; m < counts[(tile * 4 + bi) * nseg + s]; m++, pos++)
                            for (j = 0; j < 4; j++) {
                                uint64_t k = s * SRT__SEG + (idx[pos * 4 + (uint64_t)j] & 31u);
                                for (i = 0; i < 4; i++) {
                                    uint64_t r = tile * SRT__TILE + bi * 4 + (uint64_t)i;
                                    if (r >= r0 && r < r1 && k < cols)
                                        dst[(r - r0) * cols + k] += (float)(int8_t)v[pos * 16 + (uint64_t)(4 * i + j)] * srt_f16_to_f32(sc[srt__scale_at(&t, r, k / group)]);
                                }
                            }
                continue;
            }
            for (c = 0; c < t.chunks; c++) {
                uint64_t bits = srt__rd64((const unsigned char *)parts[2] + (tile * t.chunks + c) * 8);
                int b, n = 0;
                for (b = 0; b < 64; b++) {
                    uint64_t r = tile * SRT__TILE + (uint64_t)(b / 4), k = 4 * c + (uint64_t)(b % 4);
                    if (!(bits >> b & 1)) continue;
                    if (r >= r0 && r < r1 && k < cols)
                        dst[(r - r0) * cols + k] = (float)srt__sb_value(format, v + pos, n) * srt_f16_to_f32(sc[srt__scale_at(&t, r, k / group)]);
                    n++;
                }
                pos += srt__sb_chunk_bytes(format, n);
            }
        }
    }
}

/* Checks a sparse tensor's parts against each other (sizes as in the directory), so that no kernel
   reads outside them: offsets start at 0, grow by exactly what the bitmaps (or counts) say, and end
   inside the values part; sb-bf16 bits beyond the last column are 0; s4x1 counts are <= 8. */
static srt_status srt__sparse_check(srt_format format, uint32_t group, uint64_t rows, uint64_t cols, const void *const *parts, const uint64_t *size) {
    if (format == SRT_TCSL) return srt__tcsl_check(rows, cols, parts, size);
    if (format == SRT_SB_BF16) {
        const unsigned char *bm = (const unsigned char *)parts[1], *off = (const unsigned char *)parts[2];
        uint64_t nb = (cols + 31) / 32, g0, i, b, pos = 0, word = 0;
        uint32_t tail = cols % 32 ? ~((1u << (cols % 32)) - 1) : 0;
        if (srt__rd64(off) != 0) return srt__fail(SRT_ERR_FORMAT, "sb-bf16: the first row group offset is %llu, not 0", (unsigned long long)srt__rd64(off));
        for (g0 = 0; g0 < rows; g0 += SRT__SBG) {
            uint64_t rg = srt__sbg_rows(rows, g0), g1 = g0 / SRT__SBG + 1;
            for (b = 0; b < nb; b++)
                for (i = 0; i < rg; i++, word++) {   /* file order, as srt__sparse_quantize writes */
                    uint32_t bits = srt__rd32(bm + word * 4);
                    pos += (uint64_t)srt__popcount64(bits);
                    if (b == nb - 1 && (bits & tail)) return srt__fail(SRT_ERR_FORMAT, "sb-bf16: row %llu has bitmap bits beyond column %llu", (unsigned long long)(g0 + i), (unsigned long long)cols);
                }
            if (srt__rd64(off + g1 * 8) != pos)
                return srt__fail(SRT_ERR_FORMAT, "sb-bf16: offset of row group %llu is %llu, its bitmaps say %llu", (unsigned long long)g1, (unsigned long long)srt__rd64(off + g1 * 8), (unsigned long long)pos);
        }
        if (pos > (size[0] - SRT__SB_PAD) / 2 || size[0] < SRT__SB_PAD)
            return srt__fail(SRT_ERR_FORMAT, "sb-bf16: %llu values do not fit in the values part (%llu bytes)", (unsigned long long)pos, (unsigned long long)size[0]);
    } else {
        srt__tiling t = srt__tiling_of(SRT_Q8, rows, cols, group);
        const unsigned char *off = (const unsigned char *)parts[3];
        uint64_t tile, c, pos = 0, nseg = t.kp / SRT__SEG;
        if (srt__rd64(off) != 0) return srt__fail(SRT_ERR_FORMAT, "%s: the first tile offset is %llu, not 0", srt_format_name(format), (unsigned long long)srt__rd64(off));
        for (tile = 0; tile < t.tiles; tile++) {
            if (format == SRT_S4X1) {
                const unsigned char *counts = off + (t.tiles + 1) * 8 + tile * 4 * nseg;
                for (c = 0; c < 4 * nseg; c++) {
                    if (counts[c] > SRT__S4_MAXMT) return srt__fail(SRT_ERR_FORMAT, "s4x1: tile %llu: a segment count is %u (at most %u)", (unsigned long long)tile, counts[c], SRT__S4_MAXMT);
                    pos += counts[c];
                }
            } else
                for (c = 0; c < t.chunks; c++)
                    pos += srt__sb_chunk_bytes(format, srt__popcount64(srt__rd64((const unsigned char *)parts[2] + (tile * t.chunks + c) * 8)));
            if (srt__rd64(off + (tile + 1) * 8) != pos)
                return srt__fail(SRT_ERR_FORMAT, "%s: offset of tile %llu is %llu, its %s say %llu", srt_format_name(format), (unsigned long long)(tile + 1),
                                 (unsigned long long)srt__rd64(off + (tile + 1) * 8), format == SRT_S4X1 ? "counts" : "bitmaps", (unsigned long long)pos);
        }
        if (format == SRT_S4X1 ? (pos > size[0] / 16 || pos > size[2] / 4) : (size[0] < SRT__SB_PAD || pos > size[0] - SRT__SB_PAD))
            return srt__fail(SRT_ERR_FORMAT, "%s: the offsets end at %llu, beyond the values part (%llu bytes)", srt_format_name(format), (unsigned long long)pos, (unsigned long long)size[0]);
    }
    return SRT_OK;
}

static void srt__check_finite(void *user, int64_t i0, int64_t i1, int thread_index) {
    srt__qjob *j = (srt__qjob *)user;
    int64_t i, seen;
    (void)thread_index;
    for (i = i0; i < i1; i++)
        if (!(j->src[i] == j->src[i]) || fabsf(j->src[i]) > FLT_MAX) break;
    if (i == i1) return;
    for (seen = srt__atomic_load(&j->bad); seen < 0 || i < seen; seen = srt__atomic_load(&j->bad))
        if (srt__atomic_cas(&j->bad, seen, i)) break;
}
static void srt__quantize_floats(void *user, int64_t i0, int64_t i1, int thread_index) {
    srt__qjob *j = (srt__qjob *)user;
    int64_t i;
    (void)thread_index;
    if (j->format == SRT_F32) memcpy((float *)j->parts[0] + i0, j->src + i0, (size_t)(i1 - i0) * 4);
    else if (j->format == SRT_F16) for (i = i0; i < i1; i++) ((uint16_t *)j->parts[0])[i] = srt_f32_to_f16(j->src[i]);
    else for (i = i0; i < i1; i++) ((uint16_t *)j->parts[0])[i] = srt_f32_to_bf16(j->src[i]);
}
/* Integer formats, tile by tile: a tile's codes and scales are contiguous in their parts. */
static void srt__quantize_tiles(void *user, int64_t tile0, int64_t tile1, int thread_index) {
    srt__qjob *j = (srt__qjob *)user;
    const srt__tiling *t = &j->t;
    uint8_t *v = (uint8_t *)j->parts[0], codes[SRT__MAX_GROUP];
    uint16_t *sc = (uint16_t *)j->parts[1];
    uint64_t tile, r, g, k, group = j->group, cols = j->cols;
    (void)thread_index;
    for (tile = (uint64_t)tile0; tile < (uint64_t)tile1; tile++) {
        memset(v + tile * t->chunks * 64, 0, (size_t)(t->chunks * 64));   /* padding rows and columns: code 0, scale 0 */
        memset(sc + tile * t->ng * SRT__TILE, 0, (size_t)(t->ng * SRT__TILE * 2));
        for (r = tile * SRT__TILE; r < (tile + 1) * SRT__TILE && r < j->rows; r++)
            for (g = 0; g < t->ng; g++) {
                uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group;
                srt__quantize_group(j->format, j->src + r * cols + k0, len, codes, sc + srt__scale_at(t, r, g));
                for (k = 0; k < len; k++) {
                    uint32_t shift;
                    uint64_t at = srt__code_at(t, r, k0 + k, &shift);
                    v[at] = (uint8_t)(v[at] | (uint32_t)codes[k] << shift);
                }
            }
    }
}

SRT_API srt_status srt_quantize_pool(srt_pool *pool, srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts) {
    srt_tensor_parts lay;
    srt__qjob j;
    uint64_t n;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    if (!src || !parts) return srt__fail(SRT_ERR_INVALID_ARG, "srt_quantize: NULL data or parts");
    n = rows * cols;
    memset(&j, 0, sizeof j);
    j.format = format; j.group = group; j.src = src; j.rows = rows; j.cols = cols; j.parts = parts; j.bad = -1;
    srt_pool_parallel_for(pool, (int64_t)n, srt_pool_chunk(pool, (int64_t)n, 4), srt__check_finite, &j);
    if (j.bad >= 0)
        return srt__fail(SRT_ERR_INVALID_ARG, "value %llu (row %llu) is not finite", (unsigned long long)j.bad, (unsigned long long)((uint64_t)j.bad / cols));
    if (srt_format_is_sparse(format)) return srt__sparse_quantize(pool, &j);
    if (format == SRT_F32 || format == SRT_F16 || format == SRT_BF16) {
        srt_pool_parallel_for(pool, (int64_t)n, srt_pool_chunk(pool, (int64_t)n, 6), srt__quantize_floats, &j);
        return SRT_OK;
    }
    j.t = srt__tiling_of(format, rows, cols, group);
    srt_pool_parallel_for(pool, (int64_t)j.t.tiles, srt_pool_chunk(pool, (int64_t)j.t.tiles, (int64_t)(SRT__TILE * cols * 4 * 8)), srt__quantize_tiles, &j);
    return SRT_OK;
}
SRT_API srt_status srt_quantize(srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts) {
    return srt_quantize_pool(NULL, format, group, src, rows, cols, parts);
}

/* Rows [r0, r0 + n_rows) of a tensor as floats (dst is n_rows x cols). */
static void srt__dequantize_rows(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                                 uint64_t r0, uint64_t n_rows, float *dst) {
    uint64_t i, n = n_rows * cols, o = r0 * cols;
    if (srt_format_is_sparse(format)) { srt__sparse_dequantize_rows(format, group, parts, rows, cols, r0, n_rows, dst); return; }
    switch (format) {
        case SRT_F32: memcpy(dst, (const float *)parts[0] + o, (size_t)(n * 4)); break;
        case SRT_F16: { const uint16_t *s = (const uint16_t *)parts[0] + o; for (i = 0; i < n; i++) dst[i] = srt_f16_to_f32(s[i]); break; }
        case SRT_BF16: { const uint16_t *s = (const uint16_t *)parts[0] + o; for (i = 0; i < n; i++) dst[i] = srt_bf16_to_f32(s[i]); break; }
        default: {
            srt__tiling t = srt__tiling_of(format, rows, cols, group);
            const uint8_t *v = (const uint8_t *)parts[0];
            const uint16_t *sc = (const uint16_t *)parts[1];
            uint64_t r, k;
            for (r = r0; r < r0 + n_rows; r++)
                for (k = 0; k < cols; k++) {
                    uint32_t shift;
                    uint64_t at = srt__code_at(&t, r, k, &shift);
                    uint32_t code = (uint32_t)(v[at] >> shift) & ((1u << t.bits) - 1);
                    dst[(r - r0) * cols + k] = (float)srt__code_value(format, code) * srt_f16_to_f32(sc[srt__scale_at(&t, r, k / group)]);
                }
        }
    }
}
typedef struct srt__dqjob { srt_format format; uint32_t group; const void *const *parts; uint64_t rows, cols; float *dst; } srt__dqjob;
#define SRT__DQ_ROWS 64u   /* rows per unit: whole tcsl tile rows and sb tiles */
static void srt__dequantize_units(void *user, int64_t u0, int64_t u1, int thread_index) {
    srt__dqjob *j = (srt__dqjob *)user;
    uint64_t r0 = (uint64_t)u0 * SRT__DQ_ROWS, r1 = (uint64_t)u1 * SRT__DQ_ROWS < j->rows ? (uint64_t)u1 * SRT__DQ_ROWS : j->rows;
    (void)thread_index;
    srt__dequantize_rows(j->format, j->group, j->parts, j->rows, j->cols, r0, r1 - r0, j->dst + r0 * j->cols);
}
SRT_API srt_status srt_dequantize_pool(srt_pool *pool, srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst) {
    srt_tensor_parts lay;
    srt__dqjob j;
    uint64_t units;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    if (!parts || !dst) return srt__fail(SRT_ERR_INVALID_ARG, "srt_dequantize: NULL parts or output");
    j.format = format; j.group = group; j.parts = parts; j.rows = rows; j.cols = cols; j.dst = dst;
    units = (rows + SRT__DQ_ROWS - 1) / SRT__DQ_ROWS;
    srt_pool_parallel_for(pool, (int64_t)units, srt_pool_chunk(pool, (int64_t)units, (int64_t)(SRT__DQ_ROWS * cols * 4)), srt__dequantize_units, &j);
    return SRT_OK;
}
SRT_API srt_status srt_dequantize(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst) {
    return srt_dequantize_pool(NULL, format, group, parts, rows, cols, dst);
}

/* A weight tensor as the kernels see it. */
typedef struct srt__weights {
    srt_format format;
    uint32_t group;
    uint64_t rows, cols;
    const void *part[4];
} srt__weights;

/* Row of W as floats (embedding lookup). */
static void srt__weights_row(const srt__weights *w, uint64_t r, float *out) {
    srt__dequantize_rows(w->format, w->group, w->part, w->rows, w->cols, r, 1, out);
}

/* Activations prepared for one kernel call: floats as given, plus for integer formats int8 codes
   (K padded with zeros to a multiple of 32), one scale and one code sum per group of the
   weight's group size. */
typedef struct srt__acts {
    const float *x;          /* n_tok x cols */
    int8_t *q;               /* n_tok x kp, or NULL */
    float *d;                /* n_tok x ng */
    int32_t *s;              /* n_tok x ng: sum of q over the group */
    uint8_t *qt;             /* s4x1 GEMM of 16+ tokens: q + 128 in 16-token panels (sparsert_x86.h), or NULL */
    float *xs;               /* sb-bf16 AVX-512: x split into even and odd columns (srt__sb_bf16_split_x), or NULL */
    uint16_t *xb;            /* bf16 / sb-bf16 AMX: x as hi and lo bf16 B tiles (srt__bf16_split_tiles), or NULL */
    uint64_t kp, ng;
} srt__acts;

/* dx = max|x| / 127 (f32), q = round_half_away(x * (1 / dx)); the SIMD kernels reproduce this.
   Non-finite activations (a model with inf/NaN weights) give codes that are defined: NaN -> 0,
   clamped to [-127, 127]; the output is garbage then, but computing it is not undefined. */
static int8_t srt__act_code(float v) {
    if (!(v == v)) return 0;
    if (v >= 127.0f) return 127;
    if (v <= -127.0f) return -127;
    return (int8_t)roundf(v);
}
static void srt__quantize_acts(const float *x, uint64_t cols, uint32_t group, uint64_t kp, int8_t *q, float *d, int32_t *s) {
    uint64_t g, ng = (cols + group - 1) / group;
    for (g = 0; g < ng; g++) {
        uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group, i;
        float amax = 0.0f, id;
        int32_t sum = 0;
        for (i = 0; i < len; i++) { float a = fabsf(x[k0 + i]); if (a > amax) amax = a; }
        d[g] = amax / 127.0f;
        id = d[g] > 0.0f ? 1.0f / d[g] : 0.0f;
        for (i = 0; i < len; i++) { q[k0 + i] = srt__act_code(x[k0 + i] * id); sum += q[k0 + i]; }
        s[g] = sum;
    }
    for (g = cols; g < kp; g++) q[g] = 0;
}

/* One matrix product: y[t * ldy + r] = W[r] . x[t] (+ bias[r]) for tokens t < n_tok. Kernels
   compute whole tiles of 16 rows (the last one clipped to `rows`). */
typedef struct srt__mm {
    const srt__weights *w;
    const srt__acts *a;
    int n_tok;
    float *y;
    uint64_t ldy;
    const float *bias;
} srt__mm;
typedef void (*srt__kernel_fn)(const srt__mm *mm, uint64_t tile0, uint64_t tile1);

/* Reference float dot product: 16 partial sums in f32 with fused multiply-add (element k goes to
   sum k mod 16), reduced by halves: s[j] += s[j + 8], then + 4, + 2, + 1. A 16-lane (or 2 x 8-lane)
   FMA loop reproduces it bit for bit. */
#define SRT__DOT16(LOAD) \
    float s[16]; \
    uint64_t i; \
    int j, h; \
    for (j = 0; j < 16; j++) s[j] = 0.0f; \
    for (i = 0; i < n; i++) s[i & 15] = srt__fmaf(LOAD(i), x[i], s[i & 15]); \
    for (h = 8; h; h >>= 1) for (j = 0; j < h; j++) s[j] += s[j + h]; \
    return s[0];
static float srt__dot_f32(const float *w, const float *x, uint64_t n) {
#define SRT__LOAD_F32(k) w[k]
    SRT__DOT16(SRT__LOAD_F32)
#undef SRT__LOAD_F32
}
static float srt__dot_f16(const uint16_t *w, const float *x, uint64_t n) {
#define SRT__LOAD_F16(k) srt_f16_to_f32(w[k])
    SRT__DOT16(SRT__LOAD_F16)
#undef SRT__LOAD_F16
}
static float srt__dot_bf16(const uint16_t *w, const float *x, uint64_t n) {
#define SRT__LOAD_BF16(k) srt_bf16_to_f32(w[k])
    SRT__DOT16(SRT__LOAD_BF16)
#undef SRT__LOAD_BF16
}

static void srt__ref_float(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    uint64_t K = w->cols, r, r1 = tile1 * SRT__TILE < w->rows ? tile1 * SRT__TILE : w->rows;
    int t;
    for (r = tile0 * SRT__TILE; r < r1; r++)
        for (t = 0; t < mm->n_tok; t++) {
            const float *x = mm->a->x + (uint64_t)t * K;
            float y = w->format == SRT_F32 ? srt__dot_f32((const float *)w->part[0] + r * K, x, K)
                    : w->format == SRT_F16 ? srt__dot_f16((const uint16_t *)w->part[0] + r * K, x, K)
                    : srt__dot_bf16((const uint16_t *)w->part[0] + r * K, x, K);
            mm->y[(uint64_t)t * mm->ldy + r] = y + (mm->bias ? mm->bias[r] : 0.0f);
        }
}

/* Reference integer kernel. Per row and group g: acc_g = sum_k w[k] * q[k] exactly in int32;
   y = fma((float)acc_g, scale_g * dx_g, y) over g in order from y = 0; then + bias. */
static void srt__ref_int(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    const srt__acts *a = mm->a;
    srt__tiling tl = srt__tiling_of(w->format, w->rows, w->cols, w->group);
    const uint8_t *v = (const uint8_t *)w->part[0];
    const uint16_t *sc = (const uint16_t *)w->part[1];
    uint64_t tile, g, c, cpg = w->group / tl.kstep;
    uint32_t mask = (1u << tl.bits) - 1, per_byte = 8 / tl.bits;
    int t, lane, b;
    for (tile = tile0; tile < tile1; tile++)
        for (t = 0; t < mm->n_tok; t++) {
            const int8_t *q = a->q + (uint64_t)t * a->kp;
            float y[SRT__TILE];
            for (lane = 0; lane < (int)SRT__TILE; lane++) y[lane] = 0.0f;
            for (g = 0; g < tl.ng; g++) {
                int32_t acc[SRT__TILE];
                uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks;
                for (lane = 0; lane < (int)SRT__TILE; lane++) acc[lane] = 0;
                for (c = g * cpg; c < c1; c++) {
                    const uint8_t *chunk = v + (tile * tl.chunks + c) * 64;
                    for (lane = 0; lane < (int)SRT__TILE; lane++)
                        for (b = 0; b < 4; b++) {
                            uint32_t byte = chunk[lane * 4 + b], s;
                            for (s = 0; s < per_byte; s++)
                                acc[lane] += srt__code_value(w->format, (byte >> (s * tl.bits)) & mask) * (int32_t)q[c * tl.kstep + 4 * s + (uint32_t)b];
                        }
                }
                for (lane = 0; lane < (int)SRT__TILE; lane++)
                    y[lane] = srt__fmaf((float)acc[lane], srt_f16_to_f32(sc[(tile * tl.ng + g) * SRT__TILE + (uint64_t)lane]) * a->d[(uint64_t)t * a->ng + g], y[lane]);
            }
            for (lane = 0; lane < (int)SRT__TILE; lane++) {
                uint64_t r = tile * SRT__TILE + (uint64_t)lane;
                if (r < w->rows) mm->y[(uint64_t)t * mm->ldy + r] = y[lane] + (mm->bias ? mm->bias[r] : 0.0f);
            }
        }
}

/* Reference kernels of the sparse formats; the SIMD kernels of sparsert_x86.h reproduce them bit
   for bit. sb-bf16: 32 f32 partial sums with FMA over every column of the 32-column bitmap words
   (column k, zero or not, goes to sum k mod 32; columns past K count as 0 x 0), then sums 2i and
   2i + 1 added and the 16 reduced by halves like the dense float reference. The order differs from
   bf16's (16 sums), so sb-bf16 and bf16 agree to rounding, not bit for bit: a vpexpandw fills 32
   columns at once and splits into even and odd columns (sparsert_x86.h). */
/* Row i of the group whose values start at v + pos and bitmap words at bm (rg rows): in each block
   the values of the rows before i come first, then row i's, then the others'. */
static float srt__sb_bf16_dot(const uint16_t *v, uint64_t pos, const unsigned char *bm, uint64_t rg, uint64_t i, const float *x, uint64_t K) {
    float s[32];
    uint64_t k, kb = (K + 31) / 32 * 32, b, l;
    uint32_t bits = 0;
    int j, h;
    for (j = 0; j < 32; j++) s[j] = 0.0f;
    for (k = 0; k < kb; k++) {
        float wv = 0.0f;
        if (k % 32 == 0) {
            b = k / 32;
            for (l = 0; l < i; l++) pos += (uint64_t)srt__popcount64(srt__rd32(bm + (b * rg + l) * 4));
            bits = srt__rd32(bm + (b * rg + i) * 4);
        }
        if (bits >> (k % 32) & 1) wv = srt_bf16_to_f32(v[pos++]);
        s[k & 31] = srt__fmaf(wv, k < K ? x[k] : 0.0f, s[k & 31]);
        if (k % 32 == 31) for (l = i + 1; l < rg; l++) pos += (uint64_t)srt__popcount64(srt__rd32(bm + (k / 32 * rg + l) * 4));
    }
    for (j = 0; j < 16; j++) s[j] = s[2 * j] + s[2 * j + 1];
    for (h = 8; h; h >>= 1) for (j = 0; j < h; j++) s[j] += s[j + h];
    return s[0];
}
/* Rows [r, r1) by the reference (also the SIMD kernels' last group when the rows are not a
   multiple of 4: they compute whole groups only). */
static void srt__sb_bf16_rows(const srt__mm *mm, uint64_t r, uint64_t r1) {
    const srt__weights *w = mm->w;
    uint64_t K = w->cols, nb = (K + 31) / 32;
    const unsigned char *bm = (const unsigned char *)w->part[1], *off = (const unsigned char *)w->part[2];
    int t;
    for (; r < r1; r++) {
        uint64_t g0 = r / SRT__SBG * SRT__SBG;
        for (t = 0; t < mm->n_tok; t++)
            mm->y[(uint64_t)t * mm->ldy + r] = srt__sb_bf16_dot((const uint16_t *)w->part[0], srt__rd64(off + g0 / SRT__SBG * 8), bm + g0 * nb * 4,
                                                                 srt__sbg_rows(w->rows, g0), r - g0, mm->a->x + (uint64_t)t * K, K) + (mm->bias ? mm->bias[r] : 0.0f);
    }
}
static void srt__ref_sb_bf16(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    srt__sb_bf16_rows(mm, tile0 * SRT__TILE, tile1 * SRT__TILE < mm->w->rows ? tile1 * SRT__TILE : mm->w->rows);
}

/* tcsl: exactly the F16 reference (srt__dot_f16's 16 partial sums, zeros included), on each tile's
   16 rows rebuilt 64 columns at a time; tokens in groups of 8 share each rebuilt block. */
static void srt__ref_tcsl(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    const unsigned char *v = (const unsigned char *)w->part[0], *off = (const unsigned char *)w->part[1];
    uint64_t K = w->cols, tk = (K + SRT__TCSL_T - 1) / SRT__TCSL_T, tile, j, wi, c;
    int t0, t, r, h, l;
    for (tile = tile0; tile < tile1; tile++) {
        uint64_t r0 = tile * SRT__TILE, i = r0 / SRT__TCSL_T, sub = r0 % SRT__TCSL_T;
        for (t0 = 0; t0 < mm->n_tok; t0 += 8) {
            int nt = mm->n_tok - t0 < 8 ? mm->n_tok - t0 : 8;
            float s[8][SRT__TILE][16];
            uint16_t e[SRT__TILE][SRT__TCSL_T];
            memset(s, 0, sizeof s);
            for (j = 0; j < tk; j++) {
                memset(e, 0, sizeof e);
                for (wi = srt__rd32(off + (i * tk + j) * 4); wi < srt__rd32(off + (i * tk + j + 1) * 4); wi++) {
                    uint32_t word = srt__rd32(v + 4 * wi), rr = (word >> 16) / SRT__TCSL_T;
                    if (rr >= sub && rr < sub + SRT__TILE) e[rr - sub][(word >> 16) % SRT__TCSL_T] = (uint16_t)word;
                }
                for (t = 0; t < nt; t++) {
                    const float *x = mm->a->x + (uint64_t)(t0 + t) * K + j * SRT__TCSL_T;
                    for (r = 0; r < (int)SRT__TILE; r++)
                        for (c = 0; c < SRT__TCSL_T && j * SRT__TCSL_T + c < K; c++)
                            s[t][r][c & 15] = srt__fmaf(srt_f16_to_f32(e[r][c]), x[c], s[t][r][c & 15]);
                }
            }
            for (t = 0; t < nt; t++)
                for (r = 0; r < (int)SRT__TILE && r0 + (uint64_t)r < w->rows; r++) {
                    float *p = s[t][r];
                    for (h = 8; h; h >>= 1) for (l = 0; l < h; l++) p[l] += p[l + h];
                    mm->y[(uint64_t)(t0 + t) * mm->ldy + r0 + (uint64_t)r] = p[0] + (mm->bias ? mm->bias[r0 + (uint64_t)r] : 0.0f);
                }
        }
    }
}

/* sb-q8 / sb-q4 / s4x1: exactly the integer reference of the dense formats (acc_g in int32, then
   y = fma(acc_g, scale * dx, y) group by group), over the stored weights only. */
static void srt__ref_int_finish(const srt__mm *mm, uint64_t tile, int t, const float *y) {
    int lane;
    for (lane = 0; lane < (int)SRT__TILE; lane++) {
        uint64_t r = tile * SRT__TILE + (uint64_t)lane;
        if (r < mm->w->rows) mm->y[(uint64_t)t * mm->ldy + r] = y[lane] + (mm->bias ? mm->bias[r] : 0.0f);
    }
}
static void srt__ref_sb_int(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    const srt__acts *a = mm->a;
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group);
    const uint8_t *v = (const uint8_t *)w->part[0];
    const uint16_t *sc = (const uint16_t *)w->part[1];
    const unsigned char *bm = (const unsigned char *)w->part[2], *off = (const unsigned char *)w->part[3];
    uint64_t tile, g, c, cpg = w->group / 4;
    int t, lane, b;
    for (tile = tile0; tile < tile1; tile++)
        for (t = 0; t < mm->n_tok; t++) {
            const int8_t *q = a->q + (uint64_t)t * a->kp;
            uint64_t pos = srt__rd64(off + tile * 8);
            float y[SRT__TILE];
            for (lane = 0; lane < (int)SRT__TILE; lane++) y[lane] = 0.0f;
            for (g = 0; g < tl.ng; g++) {
                int32_t acc[SRT__TILE];
                uint64_t c1 = (g + 1) * cpg < tl.chunks ? (g + 1) * cpg : tl.chunks;
                for (lane = 0; lane < (int)SRT__TILE; lane++) acc[lane] = 0;
                for (c = g * cpg; c < c1; c++) {
                    uint64_t bits = srt__rd64(bm + (tile * tl.chunks + c) * 8);
                    int n = 0;
                    for (b = 0; b < 64; b++)
                        if (bits >> b & 1) acc[b / 4] += srt__sb_value(w->format, v + pos, n++) * (int32_t)q[4 * c + (uint64_t)(b % 4)];
                    pos += srt__sb_chunk_bytes(w->format, n);
                }
                for (lane = 0; lane < (int)SRT__TILE; lane++)
                    y[lane] = srt__fmaf((float)acc[lane], srt_f16_to_f32(sc[(tile * tl.ng + g) * SRT__TILE + (uint64_t)lane]) * a->d[(uint64_t)t * a->ng + g], y[lane]);
            }
            srt__ref_int_finish(mm, tile, t, y);
        }
}
/* s4x1: micro-tiles in storage order (block, segment); the group of a segment is s * 32 / G. */
static void srt__ref_s4x1(const srt__mm *mm, uint64_t tile0, uint64_t tile1) {
    const srt__weights *w = mm->w;
    const srt__acts *a = mm->a;
    srt__tiling tl = srt__tiling_of(SRT_Q8, w->rows, w->cols, w->group);
    const int8_t *v = (const int8_t *)w->part[0];
    const uint16_t *sc = (const uint16_t *)w->part[1];
    const uint8_t *idx = (const uint8_t *)w->part[2];
    const unsigned char *off = (const unsigned char *)w->part[3];
    uint64_t nseg = tl.kp / SRT__SEG, spg = w->group / SRT__SEG, tile, bi, s, m;
    int t, i, j;
    for (tile = tile0; tile < tile1; tile++)
        for (t = 0; t < mm->n_tok; t++) {
            const int8_t *q = a->q + (uint64_t)t * a->kp;
            const unsigned char *counts = off + (tl.tiles + 1) * 8 + tile * 4 * nseg;
            uint64_t pos = srt__rd64(off + tile * 8);
            float y[SRT__TILE];
            for (i = 0; i < (int)SRT__TILE; i++) y[i] = 0.0f;
            for (bi = 0; bi < 4; bi++) {
                int32_t acc[4] = {0, 0, 0, 0};
                for (s = 0; s < nseg; s++) {
                    for (m = 0; m < counts[bi * nseg + s]; m++, pos++)
                        for (j = 0; j < 4; j++) {
                            int32_t qk = q[s * SRT__SEG + (idx[pos * 4 + (uint64_t)j] & 31u)];
                            for (i = 0; i < 4; i++) acc[i] += (int32_t)v[pos * 16 + (uint64_t)(4 * i + j)] * qk;
                        }
                    if ((s + 1) % spg == 0 || s + 1 == nseg) {   /* end of group g */
                        uint64_t g = s / spg;
                        for (i = 0; i < 4; i++) {
                            uint64_t lane = bi * 4 + (uint64_t)i;
                            y[lane] = srt__fmaf((float)acc[i], srt_f16_to_f32(sc[(tile * tl.ng + g) * SRT__TILE + lane]) * a->d[(uint64_t)t * a->ng + g], y[lane]);
                            acc[i] = 0;
                        }
                    }
                }
            }
            srt__ref_int_finish(mm, tile, t, y);
        }
}

/* ---- vector ops of the decode step besides the matrix products, with references that SIMD
   versions reproduce bit for bit (only FMA, +, *, / and one fixed exp). */
/* exp(x) = 2^n e^r, n = round(x / ln 2), |r| <= ln 2 / 2, e^r by its degree-6 Taylor polynomial
   (error < 2 ulp); x is clamped to [-87, 88]. */
static float srt__expf(float x) {
    float n, r, p, scale;
    uint32_t bits;
    x = x < 88.0f ? x : 88.0f;
    x = x > -87.0f ? x : -87.0f;
    n = srt__fmaf(x, 1.44269504f, 12582912.0f) - 12582912.0f;   /* round to nearest */
    r = srt__fmaf(n, -0.693145752f, x);
    r = srt__fmaf(n, -1.42860677e-6f, r);
    p = srt__fmaf(1.0f / 720.0f, r, 1.0f / 120.0f);
    p = srt__fmaf(p, r, 1.0f / 24.0f);
    p = srt__fmaf(p, r, 1.0f / 6.0f);
    p = srt__fmaf(p, r, 0.5f);
    p = srt__fmaf(p, r, 1.0f);
    p = srt__fmaf(p, r, 1.0f);
    bits = (uint32_t)((int32_t)n + 127) << 23;
    memcpy(&scale, &bits, 4);
    return p * scale;
}
typedef struct srt__vec_ops {
    float (*dot_f32)(const float *w, const float *x, uint64_t n);        /* as srt__dot_f32 */
    float (*dot_f16)(const uint16_t *w, const float *x, uint64_t n);
    void (*axpy_f32)(float *y, float a, const float *x, uint64_t n);     /* y = fma(a, x, y) */
    void (*axpy_f16)(float *y, float a, const uint16_t *x, uint64_t n);
    void (*exp)(float *x, uint64_t n);                                    /* x = srt__expf(x) */
    void (*softmax)(float *x, uint64_t ld, int rows, uint64_t n);        /* srt__softmax on rows rows, ld apart */
    void (*swiglu)(float *g, const float *up, uint64_t n);               /* g = g * (1 / (1 + exp(-g))) * up */
    void (*geglu)(float *g, const float *up, uint64_t n);                /* g = gelu_tanh(g) * up, as srt__geglu */
    int32_t (*argmax)(const float *x, int n);                            /* first index of the largest */
    /* attention over n cached rows of hd values (`type` srt__kv_elem; rows `stride` elements apart,
       a Q8 row's element being a byte) for the G query heads that share them (q: G vectors of hd,
       one after the other): out[g * ldo + i] = dot(row i, q_g) * scale (F32 / F16 rows: the
       srt__dot_f32 order; Q8 rows: the integer score of srt__kv_q8_score, q_g quantized once per
       call); and out[g * hd + d] += sum_i w[g * ldw + i] row_i[d] as axpy in row order (Q8: the
       row's values as f32, srt__kv_value) */
    void (*attn_scores)(const void *rows, int type, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo);
    void (*attn_values)(const void *rows, int type, uint64_t stride, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out);
    /* the same over compact F16 rows (srt__kv_compact_row, `slot` bytes apart), as if expanded */
    void (*attn_scores_sb)(const unsigned char *rows, uint64_t slot, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo);
    void (*attn_values_sb)(const unsigned char *rows, uint64_t slot, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out);
} srt__vec_ops;
static void srt__axpy_f32(float *y, float a, const float *x, uint64_t n) { uint64_t i; for (i = 0; i < n; i++) y[i] = srt__fmaf(a, x[i], y[i]); }
static void srt__axpy_f16(float *y, float a, const uint16_t *x, uint64_t n) { uint64_t i; for (i = 0; i < n; i++) y[i] = srt__fmaf(a, srt_f16_to_f32(x[i]), y[i]); }
/* KV cache elements. A Q8 row of hd values: hd int8 codes, then one F16 scale per 32 of them
   (the last block may be shorter), unaligned: value d = code[d] * scale[d / 32], rounded to f32. */
enum srt__kv_elem { SRT__KV_E_F32 = 0, SRT__KV_E_F16 = 1, SRT__KV_E_Q8 = 2 };
static uint64_t srt__kv_q8_row_bytes(uint64_t hd) { return hd + (hd + 31) / 32 * 2; }
static uint64_t srt__kv_elem_bytes(int type) { return type == SRT__KV_E_F32 ? 4u : type == SRT__KV_E_F16 ? 2u : 1u; }
static float srt__kv_q8_scale(const unsigned char *row, uint64_t hd, uint64_t d) {
    uint16_t h;
    memcpy(&h, row + hd + d / 32 * 2, 2);
    return srt_f16_to_f32(h);
}
/* Quantizes hd floats into a Q8 row: per block, scale = the F16 nearest max |x| / 127, or the next
   one up where 127 x that is below max |x| (so every value is within half a step: no clamping,
   also where F16 is subnormal), at most 65504 (larger values saturate at 127 x 65504); code = x /
   scale rounded. A block holding a NaN or an infinity gets a NaN scale, so that it shows in the
   result as it would in F16. */
static void srt__kv_q8_store(const float *x, uint64_t hd, unsigned char *row) {
    uint64_t b, i;
    for (b = 0; b < hd; b += 32) {
        uint64_t len = hd - b < 32 ? hd - b : 32;
        float amax = 0.0f, d, id;
        uint16_t h;
        int bad = 0;
        for (i = 0; i < len; i++) { float a = fabsf(x[b + i]); if (a > amax) amax = a; bad |= !(a <= FLT_MAX); }
        h = bad ? (uint16_t)0x7e00 : amax / 127.0f >= 65504.0f ? (uint16_t)0x7bff : srt_f32_to_f16(amax / 127.0f);
        if (!bad && h < 0x7bff && srt_f16_to_f32(h) * 127.0f < amax) h++;   /* positive F16: the next one up */
        d = srt_f16_to_f32(h);
        id = d > 0.0f && d <= 65504.0f ? 1.0f / d : 0.0f;
        for (i = 0; i < len; i++) row[b + i] = (unsigned char)srt__act_code(x[b + i] * id);
        memcpy(row + hd + b / 32 * 2, &h, 2);
    }
}
/* Element d of a row, as f32. */
static float srt__kv_value(const void *row, int type, uint64_t hd, uint64_t d) {
    if (type == SRT__KV_E_Q8) return (float)(int8_t)((const unsigned char *)row)[d] * srt__kv_q8_scale((const unsigned char *)row, hd, d);
    return type == SRT__KV_E_F16 ? srt_f16_to_f32(((const uint16_t *)row)[d]) : ((const float *)row)[d];
}
static const void *srt__kv_row(const void *rows, int type, uint64_t stride, int i) {
    return (const char *)rows + (uint64_t)i * stride * srt__kv_elem_bytes(type);
}
/* Integer scores over Q8 rows. q (one head's hd values) is quantized in the K rows' blocks of 32
   (the last one may be shorter): d = max |q| / 127 (f32 division), code = srt__act_code(q / d)
   (all 0 where d is 0: max |q| below about 127 x 2^-150), and the block's sum of codes
   (what the VNNI kernels subtract, see sparsert_x86.h); a NaN or an infinity in the block makes d
   NaN, so the score shows it, as it would in the float product. codes: whole blocks, the tail of
   the last one 0. The score of a row is then, block by block in order,
       s = fma((float)idot_b, d_q[b] * d_k[b], s)   from s = 0,
   idot_b the exact int32 dot product of the block's codes (at most 32 x 127 x 128 in magnitude,
   so exact as a float too): every ISA level and the CUDA backend compute exactly this, and
   attention multiplies it by the scale as it does the float dot products. */
#define SRT__KV_MAX_HD 1024   /* the loader's limit on head_dim */
#define SRT__KV_MAX_NB (SRT__KV_MAX_HD / 32)
static void srt__kv_q8_quantize_q(const float *q, uint64_t hd, int8_t *codes, float *d, int32_t *sum) {
    uint64_t b, i;
    for (b = 0; b < hd; b += 32) {
        uint64_t len = hd - b < 32 ? hd - b : 32;
        float amax = 0.0f, db;
        int32_t s = 0;
        int bad = 0;
        for (i = 0; i < len; i++) { float a = fabsf(q[b + i]); if (a > amax) amax = a; bad |= !(a <= FLT_MAX); }
        db = amax / 127.0f;
        if (bad) db = srt_f16_to_f32(0x7e00);   /* NaN */
        for (i = 0; i < 32; i++) {
            int8_t c = i < len && db > 0.0f ? srt__act_code(q[b + i] / db) : 0;   /* NaN d: 0 */
            codes[b + i] = c;
            s += c;
        }
        d[b / 32] = db;
        sum[b / 32] = s;
    }
}
static float srt__kv_q8_score(const unsigned char *row, uint64_t hd, const int8_t *qc, const float *qd) {
    uint64_t b, i;
    float s = 0.0f;
    for (b = 0; b < hd; b += 32) {
        uint64_t len = hd - b < 32 ? hd - b : 32;
        int32_t dot = 0;
        for (i = 0; i < len; i++) dot += (int32_t)(int8_t)row[b + i] * (int32_t)qc[b + i];
        s = srt__fmaf((float)dot, qd[b / 32] * srt__kv_q8_scale(row, hd, b), s);
    }
    return s;
}
static void srt__attn_scores(const void *rows, int type, uint64_t stride, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    int8_t qc[SRT__KV_MAX_HD];
    float qd[SRT__KV_MAX_NB];
    int32_t qs[SRT__KV_MAX_NB];
    int g, i;
    for (g = 0; g < G; g++) {
        if (type == SRT__KV_E_Q8) srt__kv_q8_quantize_q(q + g * hd, hd, qc, qd, qs);
        for (i = 0; i < n; i++) {
            const void *row = srt__kv_row(rows, type, stride, i);
            out[g * ldo + i] = (type == SRT__KV_E_Q8 ? srt__kv_q8_score((const unsigned char *)row, hd, qc, qd)
                                : type == SRT__KV_E_F16 ? srt__dot_f16((const uint16_t *)row, q + g * hd, hd) : srt__dot_f32((const float *)row, q + g * hd, hd)) * scale;
        }
    }
}
static void srt__attn_values(const void *rows, int type, uint64_t stride, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out) {
    int g, i;
    uint64_t d;
    for (g = 0; g < G; g++)
        for (i = 0; i < n; i++) {
            const void *row = srt__kv_row(rows, type, stride, i);
            float a = w[g * ldw + i], *o = out + g * hd;
            if (type == SRT__KV_E_F16) srt__axpy_f16(o, a, (const uint16_t *)row, hd);
            else if (type == SRT__KV_E_F32) srt__axpy_f32(o, a, (const float *)row, hd);
            else for (d = 0; d < hd; d++) o[d] = srt__fmaf(a, srt__kv_value(row, type, hd, d), o[d]);
        }
}
/* Sparse KV rows: a bitmap of head_dim bits (bit i of byte i / 8: value i kept; rounded up to
   whole 16-bit words) and then the kept values, F16, in order. A row keeps exactly nnz values. */
static uint64_t srt__kv_bm_bytes(uint64_t hd) { return (hd + 15) / 16 * 2; }
static uint64_t srt__kv_slot_bytes(uint64_t hd, uint64_t nnz) { return srt__kv_bm_bytes(hd) + 2 * nnz; }
/* The k-th largest (k from 0) of n distinct keys, by quickselect (a[] is reordered). */
static uint32_t srt__kth_largest(uint32_t *a, uint64_t n, uint64_t k) {
    uint64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t pivot = a[lo + (hi - lo) / 2], t;
        uint64_t i = lo, j = hi;
        while (i <= j) {   /* larger keys to the left */
            while (a[i] > pivot) i++;
            while (a[j] < pivot) j--;
            if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; if (j) j--; else break; }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}
/* Keeps the nnz largest |values| of an F16 row (equal magnitudes: the lower index first). */
static void srt__kv_compact_row(const uint16_t *row, uint64_t hd, uint64_t nnz, unsigned char *out) {
    uint32_t key[SRT__KV_MAX_HD], work[SRT__KV_MAX_HD], cut;
    unsigned char *v = out + srt__kv_bm_bytes(hd);
    uint64_t i;
    for (i = 0; i < hd; i++) key[i] = (uint32_t)(row[i] & 0x7fff) << 16 | (uint32_t)(0xffff - i);   /* unique keys */
    memcpy(work, key, (size_t)hd * 4);
    cut = srt__kth_largest(work, hd, nnz - 1);
    memset(out, 0, (size_t)srt__kv_bm_bytes(hd));
    for (i = 0; i < hd; i++)
        if (key[i] >= cut) { out[i >> 3] |= (unsigned char)(1u << (i & 7)); memcpy(v, row + i, 2); v += 2; }
}
static void srt__kv_expand(const unsigned char *row, uint64_t hd, uint16_t *out) {
    const unsigned char *v = row + srt__kv_bm_bytes(hd);
    uint64_t i;
    for (i = 0; i < hd; i++)
        if (row[i >> 3] >> (i & 7) & 1) { memcpy(out + i, v, 2); v += 2; }
        else out[i] = 0;
}
static void srt__attn_scores_sb(const unsigned char *rows, uint64_t slot, const float *q, int G, uint64_t hd, int n, float scale, float *out, uint64_t ldo) {
    uint16_t e[SRT__KV_MAX_HD];
    int g, i;
    for (i = 0; i < n; i++) {
        srt__kv_expand(rows + (uint64_t)i * slot, hd, e);
        for (g = 0; g < G; g++) out[g * ldo + i] = srt__dot_f16(e, q + g * hd, hd) * scale;
    }
}
static void srt__attn_values_sb(const unsigned char *rows, uint64_t slot, const float *w, uint64_t ldw, int G, int n, uint64_t hd, float *out) {
    uint16_t e[SRT__KV_MAX_HD];
    int g, i;
    for (i = 0; i < n; i++) {
        srt__kv_expand(rows + (uint64_t)i * slot, hd, e);
        for (g = 0; g < G; g++) srt__axpy_f16(out + g * hd, w[g * ldw + i], e, hd);
    }
}

/* NaNs never win (a NaN at 0 stays); among equals the first. */
static int32_t srt__argmax(const float *x, int n) {
    int i, best = 0;
    for (i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}
static void srt__exp_vec(float *x, uint64_t n) { uint64_t i; for (i = 0; i < n; i++) x[i] = srt__expf(x[i]); }
/* x = exp(x - max) / sum: the max over the non-NaN values, the sum in order (vector versions
   vectorize all but the sum, which keeps its order). */
static void srt__softmax(float *x, uint64_t n) {
    float maxs = -FLT_MAX, sum = 0.0f;
    uint64_t i;
    for (i = 0; i < n; i++) if (x[i] > maxs) maxs = x[i];
    for (i = 0; i < n; i++) x[i] -= maxs;
    srt__exp_vec(x, n);
    for (i = 0; i < n; i++) sum += x[i];
    for (i = 0; i < n; i++) x[i] /= sum;
}
static void srt__softmax_rows(float *x, uint64_t ld, int rows, uint64_t n) { int r; for (r = 0; r < rows; r++) srt__softmax(x + (uint64_t)r * ld, n); }
static void srt__swiglu(float *g, const float *up, uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) g[i] = g[i] * (1.0f / (1.0f + srt__expf(-g[i]))) * up[i];
}
/* Gemma's FFN: g = gelu(g) * up, GELU's tanh approximation (transformers' gelu_pytorch_tanh), as
   x sigmoid(2 z) = x up / (1 + exp(-2 z)), -2 z = (-2 sqrt(2 / pi) x) (1 + 0.044715 x^2): one exp,
   as SwiGLU (tanhf per value cost more than the FFN's matrices at 1B) */
static void srt__geglu(float *g, const float *up, uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) {
        const float x = g[i], z = (x * -1.59576912f) * srt__fmaf(0.044715f, x * x, 1.0f);
        g[i] = (x * up[i]) / (1.0f + srt__expf(z));
    }
}
/* gpt-oss's experts (llama.cpp's swiglu_oai, the checkpoint's): the gate clamped above at 7, up to
   [-7, 7], g = gate sigmoid(1.702 gate) (up + 1) */
static void srt__swiglu_oai(float *g, const float *up, uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) {
        const float x = g[i] < 7.0f ? g[i] : 7.0f, y = up[i] < -7.0f ? -7.0f : up[i] > 7.0f ? 7.0f : up[i];
        g[i] = x / (1.0f + srt__expf(-1.702f * x)) * (y + 1.0f);
    }
}
/* Gemma 2's soft cap: x -> cap tanh(x / cap) = cap - 2 cap / (exp(2 x / cap) + 1) (the logits:
   256000 of them a token) */
static void srt__softcap(const srt__vec_ops *ops, float *x, uint64_t n, float cap) {
    uint64_t i;
    for (i = 0; i < n; i++) x[i] *= 2.0f / cap;
    ops->exp(x, n);
    for (i = 0; i < n; i++) x[i] = cap - 2.0f * cap / (x[i] + 1.0f);
}

/* ---- instruction sets: detection, choice, kernel table */
static const char *const srt__isa_names[SRT_ISA_COUNT] = {"auto", "portable", "avx2", "avxvnni", "avx512", "amx"};
SRT_API const char *srt_isa_name(srt_isa isa) { return (unsigned)isa < SRT_ISA_COUNT ? srt__isa_names[isa] : "?"; }
SRT_API int srt_isa_from_name(const char *name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < SRT_ISA_COUNT; i++) if (strcmp(name, srt__isa_names[i]) == 0) return i;
    return -1;
}

#if !defined(SPARSERT_NO_X86) && (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
#  define SRT__HAVE_X86 1
#  include "sparsert_x86.h"
#else
#  define SRT__HAVE_X86 0
#endif

/* Levels are not strictly nested on every CPU (AVX512-VNNI without AVX-VNNI), hence a set. */
static int srt__isa_supported(srt_isa isa) {
#if SRT__HAVE_X86
    return isa == SRT_ISA_PORTABLE || (isa > SRT_ISA_PORTABLE && isa < SRT_ISA_COUNT && (srt__x86_levels() >> isa & 1));
#else
    return isa == SRT_ISA_PORTABLE;
#endif
}
SRT_API int srt_isa_supported(srt_isa isa) { return srt__isa_supported(isa); }
SRT_API srt_isa srt_isa_best(void) {
    srt_isa isa = (srt_isa)(SRT_ISA_COUNT - 1);
    while (isa > SRT_ISA_PORTABLE && !srt__isa_supported(isa)) isa = (srt_isa)(isa - 1);
    return isa;
}

SRT_API srt_isa srt_isa_resolve(srt_isa isa) {
    srt_isa best = srt_isa_best();
    if (isa == SRT_ISA_AUTO) {
        const char *env = getenv("SRT_ISA");
        int e = env && *env ? srt_isa_from_name(env) : 0;
        if (e < 0) srt__log(SRT_LOG_WARN, "SRT_ISA=%s is not one of portable, avx2, avxvnni, avx512, amx: ignored", env);
        isa = e > 0 ? (srt_isa)e : best;
    }
    if ((unsigned)isa >= SRT_ISA_COUNT) isa = best;
    if (!srt__isa_supported(isa)) {
        srt_isa lower = isa;
        while (lower > SRT_ISA_PORTABLE && !srt__isa_supported(lower)) lower = (srt_isa)(lower - 1);
        srt__log(SRT_LOG_WARN, "instruction set %s is not available on this CPU; using %s", srt_isa_name(isa), srt_isa_name(lower));
        isa = lower;
    }
    return isa;
}

/* The kernel for a format at an instruction-set level, for n_tok tokens (1 = GEMV, more = GEMM). */
static srt__kernel_fn srt__kernel(srt_isa isa, srt_format f, int n_tok) {
#if SRT__HAVE_X86
    srt__kernel_fn k = srt__x86_kernel(isa, f, n_tok);
    if (k) return k;
#else
    (void)isa; (void)n_tok;
#endif
    switch (f) {
        case SRT_SB_BF16: return srt__ref_sb_bf16;
        case SRT_SB_Q8: case SRT_SB_Q4: return srt__ref_sb_int;
        case SRT_S4X1: return srt__ref_s4x1;
        case SRT_TCSL: return srt__ref_tcsl;
        default: return srt__format_is_tiled(f) ? srt__ref_int : srt__ref_float;
    }
}

static void srt__vec_ops_for(srt_isa isa, srt__vec_ops *ops) {
    ops->dot_f32 = srt__dot_f32; ops->dot_f16 = srt__dot_f16;
    ops->axpy_f32 = srt__axpy_f32; ops->axpy_f16 = srt__axpy_f16;
    ops->exp = srt__exp_vec; ops->softmax = srt__softmax_rows; ops->swiglu = srt__swiglu; ops->geglu = srt__geglu; ops->argmax = srt__argmax;
    ops->attn_scores = srt__attn_scores; ops->attn_values = srt__attn_values;
    ops->attn_scores_sb = srt__attn_scores_sb; ops->attn_values_sb = srt__attn_values_sb;
#if SRT__HAVE_X86
    srt__x86_vec_ops(isa, ops);
#else
    (void)isa;
#endif
}

/* Scratch for the activations of n_tok tokens of a cols-wide input. */
static uint64_t srt__acts_bytes(uint64_t n_tok, uint64_t cols, uint32_t min_group) {
    uint64_t kp = (cols + SRT__KPAD - 1) / SRT__KPAD * SRT__KPAD, ng = (cols + min_group - 1) / min_group;
    return n_tok * (4 * kp + ng * 8) + 64;   /* d, s, q and the s4x1 panels; or the split x of sb-bf16 */
}
typedef void (*srt__quantize_acts_fn)(const float *x, uint64_t cols, uint32_t group, uint64_t kp, int8_t *q, float *d, int32_t *s);
static void srt__acts_prepare(srt__acts *a, const srt__weights *w, const float *x, int n_tok, void *scratch, srt_isa isa) {
    a->x = x; a->q = NULL; a->d = NULL; a->s = NULL; a->qt = NULL; a->xs = NULL; a->xb = NULL; a->kp = 0; a->ng = 0;
    if (srt__format_is_int(w->format)) {
        uint64_t t;
        a->kp = (w->cols + SRT__KPAD - 1) / SRT__KPAD * SRT__KPAD;
        a->ng = (w->cols + w->group - 1) / w->group;
        a->d = (float *)scratch;
        a->s = (int32_t *)(a->d + (uint64_t)n_tok * a->ng);
        a->q = (int8_t *)(a->s + (uint64_t)n_tok * a->ng);
        srt__quantize_acts_fn quant = srt__quantize_acts;
#if SRT__HAVE_X86
        if (isa >= SRT_ISA_AVX2) quant = srt__quantize_acts_avx2;
#else
        (void)isa;
#endif
        for (t = 0; t < (uint64_t)n_tok; t++)
            quant(x + t * w->cols, w->cols, w->group, a->kp, a->q + t * a->kp, a->d + t * a->ng, a->s + t * a->ng);
#if SRT__HAVE_X86
        /* once per product, not once per block of tiles in each kernel call */
        srt__kernel_fn fn = srt__x86_kernel(isa, w->format, n_tok);
        if (fn == srt__s4x1_gemm16_avx512 || fn == srt__s4x1_gemm16_avxvnni || fn == srt__s4x1_gemm16_avx2) {
            a->qt = (uint8_t *)(a->q + (uint64_t)n_tok * a->kp);
            if (fn == srt__s4x1_gemm16_avx512) srt__s4x1_panels_avx512(a->q, a->kp, n_tok & ~15, a->qt);
            else srt__s4x1_panels_256(a->q, a->kp, n_tok & ~15, a->qt, fn == srt__s4x1_gemm16_avxvnni ? 0x80 : 0);
        }
#endif
    }
}

typedef struct srt__mm_job { srt__mm mm; srt__kernel_fn fn; } srt__mm_job;
/* Several products in one parallel region (q, k, v; gate, up; the experts a token picked): the
   tiles of all are numbered one after the other, so there is one fork/join and one tail for all. */
#define SRT__MAX_FUSED 3
typedef struct srt__mm_multi { int n; const srt__mm_job *job; const int64_t *start; } srt__mm_multi;
static void srt__mm_multi_tiles(void *user, int64_t begin, int64_t end, int thread) {
    srt__mm_multi *j = (srt__mm_multi *)user;
    int i;
    (void)thread;
    for (i = 0; i < j->n; i++) {
        int64_t lo = begin > j->start[i] ? begin : j->start[i], hi = end < j->start[i + 1] ? end : j->start[i + 1];
        if (lo < hi) j->job[i].fn(&j->job[i].mm, (uint64_t)(lo - j->start[i]), (uint64_t)(hi - j->start[i]));
    }
}
/* Bytes one tile of 16 rows reads, roughly (for the chunk size only). */
static int64_t srt__tile_bytes(const srt__weights *w) {
    uint64_t bits = w->format == SRT_F32 ? 32 : (w->format == SRT_F16 || w->format == SRT_BF16) ? 16 : srt__format_is_int(w->format) ? srt__code_bits(w->format) : 8;
    return (int64_t)(SRT__TILE * w->cols * bits / 8 + 1);
}
/* Whether matrices of one input can share a region: each kernel reads the activations prepared for
   the first, so the integer ones must quantize alike. */
static int srt__same_acts(const srt__weights *a, const srt__weights *b) {
    if (srt__format_is_int(a->format) != srt__format_is_int(b->format)) return 0;
    return !srt__format_is_int(a->format) || (a->group == b->group && a->cols == b->cols);
}

/* The job y (n_tok x w->rows) = w x (+ bias) on the activations *a prepared from x (srt__acts_prepare):
   the kernel, and the split forms of x that some float kernels read, made in scratch once per *a. */
static void srt__mm_job_init(srt__mm_job *jb, const srt__weights *w, srt__acts *a, const float *x, int n_tok, float *y, const float *bias,
                             void *scratch, srt_isa isa) {
    srt__mm *mm = &jb->mm;
    mm->w = w; mm->a = a; mm->n_tok = n_tok; mm->y = y; mm->ldy = w->rows; mm->bias = bias;
    jb->fn = srt__kernel(isa, w->format, n_tok);
#if SRT__HAVE_X86
    if (jb->fn == srt__sb_bf16_avx512 && !a->xs) {   /* float formats: the scratch is free for it */
        a->xs = (float *)scratch;
        srt__sb_bf16_split_x(x, w->cols, n_tok, a->xs);
    }
#if SRT__HAVE_AMX
    if ((jb->fn == srt__bf16_amx || jb->fn == srt__sb_bf16_amx) && !a->xb) {   /* 4 bytes per column and token, as xs */
        a->xb = (uint16_t *)scratch;
        srt__bf16_split_tiles(x, w->cols, n_tok, a->xb);
    }
#endif
#else
    (void)x; (void)scratch;
#endif
}
/* Runs n jobs in one parallel region over the pool (NULL = this thread); start: n + 1 entries, filled here. */
static void srt__mm_run(srt_pool *pool, int n, const srt__mm_job *job, int64_t *start) {
    srt__mm_multi j;
    int64_t bytes = 0;
    int i;
    j.n = n; j.job = job; j.start = start;
    start[0] = 0;
    for (i = 0; i < n; i++) {
        const srt__weights *w = job[i].mm.w;
        int64_t tiles = (int64_t)((w->rows + SRT__TILE - 1) / SRT__TILE);
        start[i + 1] = start[i] + tiles;
        bytes += srt__tile_bytes(w) * tiles;
    }
    if (start[n] == 0) return;
    if (!pool) srt__mm_multi_tiles(&j, 0, start[n], 0);
    else srt_pool_parallel_for(pool, start[n], srt_pool_chunk(pool, start[n], bytes / start[n]), srt__mm_multi_tiles, &j);
}
/* ys[i] (n_tok x ws[i]->rows) = ws[i] x (+ biases[i]; NULL = none) for 1..SRT__MAX_FUSED matrices
   that satisfy srt__same_acts, over the pool (NULL = this thread). */
static void srt__matmul_run(srt_pool *pool, srt_isa isa, int n, const srt__weights *const *ws, const float *x, int n_tok,
                            float *const *ys, const float *const *biases, void *scratch) {
    srt__mm_job job[SRT__MAX_FUSED];
    int64_t start[SRT__MAX_FUSED + 1];
    srt__acts a;
    int i;
    srt__acts_prepare(&a, ws[0], x, n_tok, scratch, isa);
    for (i = 0; i < n; i++) srt__mm_job_init(&job[i], ws[i], &a, x, n_tok, ys[i], biases ? biases[i] : NULL, scratch, isa);
    srt__mm_run(pool, n, job, start);
}
SRT_API srt_status srt_matmul(srt_pool *pool, srt_isa isa, srt_format format, uint32_t group, const void *const *parts,
                              uint64_t rows, uint64_t cols, int n, const float *x, float *y) {
    srt_tensor_parts lay;
    srt__weights w;
    void *scratch;
    uint64_t bytes;
    int i;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    if (n < 1 || !x || !y) return srt__fail(SRT_ERR_INVALID_ARG, "srt_matmul: n = %d, x and y must be non-NULL", n);
    memset(&w, 0, sizeof w);
    w.format = format; w.group = group; w.rows = rows; w.cols = cols;
    for (i = 0; i < lay.n_parts; i++) w.part[i] = parts[i];
    bytes = srt__acts_bytes((uint64_t)n, cols, srt__format_is_int(format) ? group : SRT__KPAD);
    if ((uint64_t)(size_t)bytes != bytes || !(scratch = SRT_MALLOC((size_t)bytes)))
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_matmul: out of memory");
    {
        const srt__weights *ws[1];
        ws[0] = &w;
        srt__matmul_run(pool, srt_isa_resolve(isa), 1, ws, x, n, &y, NULL, scratch);
    }
    SRT_FREE(scratch);
    return SRT_OK;
}

SRT_API srt_status srt_matvec(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                              const float *x, float *y) {
    return srt_matmul(NULL, SRT_ISA_PORTABLE, format, group, parts, rows, cols, 1, x, y);
}

/* ---------------------------------------------------------------- 8 .srt writer */
/* File layout (formats/SRT.md): 128-byte header | tensor data parts, each 64-byte aligned |
   metadata | tensor directory. Data goes out as tensors arrive, so the writer never holds a
   model in memory; the header, written last, points at the metadata and directory. */
#define SRT__MAGIC "SRTM"
#define SRT__FILE_VERSION 3u   /* 3: sb-bf16 in row groups (version 2 files load unless they hold sb-bf16) */
#define SRT__HEADER_SIZE 128u
#define SRT__ALIGN 64u
#define SRT__MAX_NAME 1024u

typedef struct srt__buf { unsigned char *p; uint64_t n, cap; int oom; } srt__buf;
static void srt__buf_put(srt__buf *b, const void *data, uint64_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        uint64_t cap = b->cap ? b->cap * 2 : 4096;
        unsigned char *np;
        while (cap < b->n + n) cap *= 2;
        np = (unsigned char *)SRT_REALLOC(b->p, (size_t)cap);
        if (!np) { b->oom = 1; return; }
        b->p = np; b->cap = cap;
    }
    memcpy(b->p + b->n, data, (size_t)n);
    b->n += n;
}
static void srt__put_le(unsigned char *p, uint64_t v, int bytes) { int i; for (i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void srt__buf_u32(srt__buf *b, uint32_t v) { unsigned char t[4]; srt__put_le(t, v, 4); srt__buf_put(b, t, 4); }
static void srt__buf_u64(srt__buf *b, uint64_t v) { unsigned char t[8]; srt__put_le(t, v, 8); srt__buf_put(b, t, 8); }
static void srt__buf_f32(srt__buf *b, float f) { uint32_t v; memcpy(&v, &f, 4); srt__buf_u32(b, v); }
static void srt__buf_str(srt__buf *b, const char *s, uint32_t n) { srt__buf_u32(b, n); srt__buf_put(b, s, n); }

struct srt_writer {
    FILE *f;
    char *path, *tmp_path;
    uint64_t pos;                 /* bytes written so far */
    srt__buf meta, dir;
    uint32_t n_meta, n_tensors;
    srt__buf names;               /* "\0name\0name..." to refuse duplicates */
    srt__crc32 crc;
    int failed;
    srt_pool *pool;               /* quantizes on it (not owned) */
    void *part[4];                /* a tensor's packed parts, kept for the next one (fresh pages */
    uint64_t part_cap[4];         /* each cost the kernel a zeroing page fault) */
};

/* CRC-32 of n bytes on pool: blocks of 1 MiB summed apart, then combined in order. */
#define SRT__CRC_BLOCK ((uint64_t)1 << 20)
typedef struct srt__crc_job { const srt__crc32 *c; const unsigned char *p; uint64_t n; uint32_t *crc; } srt__crc_job;
static void srt__crc_blocks(void *user, int64_t b0, int64_t b1, int thread_index) {
    const srt__crc_job *j = (const srt__crc_job *)user;
    int64_t b;
    (void)thread_index;
    for (b = b0; b < b1; b++) {
        uint64_t at = (uint64_t)b * SRT__CRC_BLOCK;
        j->crc[b] = srt__crc32_update(j->c, 0, j->p + at, j->n - at < SRT__CRC_BLOCK ? j->n - at : SRT__CRC_BLOCK);
    }
}
static uint32_t srt__crc32_pool(srt_pool *pool, const srt__crc32 *c, const void *data, uint64_t n) {
    uint64_t nb = (n + SRT__CRC_BLOCK - 1) / SRT__CRC_BLOCK, b;
    srt__crc_job j;
    uint32_t crc;
    if (!pool || srt_pool_threads(pool) < 2 || nb < 2 || (uint64_t)(size_t)nb != nb || !(j.crc = (uint32_t *)SRT_MALLOC((size_t)nb * 4)))
        return srt__crc32_update(c, 0, data, n);
    j.c = c; j.p = (const unsigned char *)data; j.n = n;
    srt_pool_parallel_for(pool, (int64_t)nb, 1, srt__crc_blocks, &j);
    for (crc = j.crc[0], b = 1; b < nb; b++)
        crc = srt__crc32_combine(crc, j.crc[b], n - b * SRT__CRC_BLOCK < SRT__CRC_BLOCK ? n - b * SRT__CRC_BLOCK : SRT__CRC_BLOCK);
    SRT_FREE(j.crc);
    return crc;
}

static srt_status srt__writer_bytes(srt_writer *w, const void *data, uint64_t n) {
    if (n && fwrite(data, 1, (size_t)n, w->f) != (size_t)n) {
        w->failed = 1;
        return srt__fail(SRT_ERR_IO, "%s: write failed at offset %llu (disk full?)", w->tmp_path, (unsigned long long)w->pos);
    }
    w->pos += n;
    return SRT_OK;
}

SRT_API srt_status srt_writer_open(const char *path, srt_writer **out) {
    srt_writer *w;
    size_t len;
    unsigned char zero[SRT__HEADER_SIZE];
    if (!path || !out) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_open: NULL argument");
    *out = NULL;
    w = (srt_writer *)srt__malloc0(sizeof *w);
    len = strlen(path);
    if (!w || !(w->path = (char *)SRT_MALLOC(len + 1)) || !(w->tmp_path = (char *)SRT_MALLOC(len + 5))) {
        if (w) { SRT_FREE(w->path); SRT_FREE(w); }
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_writer_open: out of memory");
    }
    memcpy(w->path, path, len + 1);
    memcpy(w->tmp_path, path, len);
    memcpy(w->tmp_path + len, ".tmp", 5);
    w->f = fopen(w->tmp_path, "wb");
    if (!w->f) {
        srt_status st = srt__fail(SRT_ERR_IO, "%s: cannot create", w->tmp_path);
        SRT_FREE(w->path); SRT_FREE(w->tmp_path); SRT_FREE(w);
        return st;
    }
    srt__crc32_init(&w->crc);
    memset(zero, 0, sizeof zero);
    if (srt__writer_bytes(w, zero, sizeof zero) != SRT_OK) { srt_status st = SRT_ERR_IO; srt_writer_abort(w); return st; }
    *out = w;
    return SRT_OK;
}

SRT_API uint64_t srt_writer_bytes(const srt_writer *w) { return w ? w->pos : 0; }
SRT_API void srt_writer_set_pool(srt_writer *w, srt_pool *pool) { if (w) w->pool = pool; }

static void srt__writer_free(srt_writer *w) {
    int i;
    if (w->f) fclose(w->f);
    for (i = 0; i < 4; i++) SRT_FREE(w->part[i]);
    SRT_FREE(w->meta.p); SRT_FREE(w->dir.p); SRT_FREE(w->names.p);
    SRT_FREE(w->path); SRT_FREE(w->tmp_path);
    SRT_FREE(w);
}
SRT_API void srt_writer_abort(srt_writer *w) {
    if (!w) return;
    if (w->f) { fclose(w->f); w->f = NULL; }
    remove(w->tmp_path);
    srt__writer_free(w);
}

/* Registers a key or tensor name; refuses empty, overlong and duplicate names. */
static srt_status srt__writer_name(srt_writer *w, char kind, const char *name) {
    size_t len = name ? strlen(name) : 0;
    uint64_t i = 0;
    if (!w || w->failed) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer: writer is NULL or failed earlier");
    if (len == 0 || len > SRT__MAX_NAME) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer: name length %u not in 1..%u", (unsigned)len, SRT__MAX_NAME);
    while (i < w->names.n) {
        const char *s = (const char *)w->names.p + i;
        if (s[0] == kind && strcmp(s + 1, name) == 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer: duplicate %s '%s'", kind == 'm' ? "key" : "tensor", name);
        i += strlen(s) + 1;
    }
    srt__buf_put(&w->names, &kind, 1);
    srt__buf_put(&w->names, name, len + 1);
    return w->names.oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_writer: out of memory") : SRT_OK;
}

static srt_status srt__writer_meta_begin(srt_writer *w, const char *key, srt_meta_type type) {
    srt_status st = srt__writer_name(w, 'm', key);
    if (st != SRT_OK) return st;
    srt__buf_str(&w->meta, key, (uint32_t)strlen(key));
    srt__buf_u32(&w->meta, (uint32_t)type);
    w->n_meta++;
    return SRT_OK;
}
static srt_status srt__writer_meta_end(srt_writer *w) {
    return w->meta.oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_writer: out of memory") : SRT_OK;
}
SRT_API srt_status srt_writer_meta_u32(srt_writer *w, const char *key, uint32_t v) {
    srt_status st = srt__writer_meta_begin(w, key, SRT_META_U32);
    if (st == SRT_OK) { srt__buf_u32(&w->meta, v); st = srt__writer_meta_end(w); }
    return st;
}
SRT_API srt_status srt_writer_meta_i32(srt_writer *w, const char *key, int32_t v) {
    srt_status st = srt__writer_meta_begin(w, key, SRT_META_I32);
    if (st == SRT_OK) { srt__buf_u32(&w->meta, (uint32_t)v); st = srt__writer_meta_end(w); }
    return st;
}
SRT_API srt_status srt_writer_meta_f32(srt_writer *w, const char *key, float v) {
    srt_status st = srt__writer_meta_begin(w, key, SRT_META_F32);
    if (st == SRT_OK) { srt__buf_f32(&w->meta, v); st = srt__writer_meta_end(w); }
    return st;
}
SRT_API srt_status srt_writer_meta_str(srt_writer *w, const char *key, const char *v) {
    srt_status st;
    if (!v) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_meta_str: NULL value for '%s'", key ? key : "");
    st = srt__writer_meta_begin(w, key, SRT_META_STR);
    if (st == SRT_OK) { srt__buf_str(&w->meta, v, (uint32_t)strlen(v)); st = srt__writer_meta_end(w); }
    return st;
}
SRT_API srt_status srt_writer_meta_arr(srt_writer *w, const char *key, srt_meta_type type, const void *data, uint32_t n) {
    srt_status st;
    uint32_t i;
    if (type < SRT_META_ARR_U32 || type > SRT_META_ARR_U8) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_meta_arr: type %d is not an array type", (int)type);
    if (n && !data) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_meta_arr: NULL data for '%s'", key ? key : "");
    st = srt__writer_meta_begin(w, key, type);
    if (st != SRT_OK) return st;
    srt__buf_u32(&w->meta, n);
    for (i = 0; i < n; i++) {
        switch (type) {
            case SRT_META_ARR_U32: srt__buf_u32(&w->meta, ((const uint32_t *)data)[i]); break;
            case SRT_META_ARR_I32: srt__buf_u32(&w->meta, (uint32_t)((const int32_t *)data)[i]); break;
            case SRT_META_ARR_F32: srt__buf_f32(&w->meta, ((const float *)data)[i]); break;
            case SRT_META_ARR_U8: srt__buf_put(&w->meta, (const unsigned char *)data + i, 1); break;
            default: {
                const char *s = ((const char *const *)data)[i];
                if (!s) s = "";
                srt__buf_str(&w->meta, s, (uint32_t)strlen(s));
            }
        }
    }
    return srt__writer_meta_end(w);
}

SRT_API srt_status srt_writer_add_tensor(srt_writer *w, const char *name, srt_format format, uint32_t group,
                                         uint64_t rows, uint64_t cols, const float *data) {
    srt_tensor_parts lay;
    uint64_t offs[4];
    uint32_t crcs[4];
    srt_status st;
    int i;
    if (srt__format_is_int(format) && group == 0) group = format == SRT_FP4 ? 32 : SRT__DEFAULT_GROUP;   /* (fp4: MXFP4's blocks) */
    if (!data) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_add_tensor: NULL data for '%s'", name ? name : "");
    st = srt__layout_data(w ? w->pool : NULL, format, rows, cols, group, data, &lay);
    if (st != SRT_OK) return srt__fail(st, "tensor '%s': %s", name ? name : "", srt_last_error());
    st = srt__writer_name(w, 't', name);
    if (st != SRT_OK) return st;
    for (i = 0; i < lay.n_parts; i++)
        if (lay.size[i] >= w->part_cap[i]) {   /* never empty: a part of 0 bytes still gets a pointer */
            SRT_FREE(w->part[i]);
            w->part_cap[i] = 0;
            if ((uint64_t)(size_t)(lay.size[i] + 1) != lay.size[i] + 1 || !(w->part[i] = SRT_MALLOC((size_t)lay.size[i] + 1)))
                return srt__fail(SRT_ERR_OUT_OF_MEMORY, "tensor '%s': out of memory for %llu bytes", name, (unsigned long long)lay.size[i]);
            w->part_cap[i] = lay.size[i] + 1;
        }
    st = srt_quantize_pool(w->pool, format, group, data, rows, cols, w->part);
    if (st != SRT_OK) return srt__fail(st, "tensor '%s': %s", name, srt_last_error());
    for (i = 0; i < lay.n_parts; i++) {
        static const unsigned char zeros[SRT__ALIGN] = {0};
        uint64_t pad = (SRT__ALIGN - w->pos % SRT__ALIGN) % SRT__ALIGN;
        if ((st = srt__writer_bytes(w, zeros, pad)) != SRT_OK) return st;
        offs[i] = w->pos;
        crcs[i] = srt__crc32_pool(w->pool, &w->crc, w->part[i], lay.size[i]);
        if ((st = srt__writer_bytes(w, w->part[i], lay.size[i])) != SRT_OK) return st;
    }
    srt__buf_str(&w->dir, name, (uint32_t)strlen(name));
    srt__buf_u32(&w->dir, (uint32_t)format);
    srt__buf_u32(&w->dir, group);
    srt__buf_u64(&w->dir, rows);
    srt__buf_u64(&w->dir, cols);
    srt__buf_u32(&w->dir, (uint32_t)lay.n_parts);
    for (i = 0; i < lay.n_parts; i++) {
        srt__buf_u32(&w->dir, lay.kind[i]);
        srt__buf_u64(&w->dir, offs[i]);
        srt__buf_u64(&w->dir, lay.size[i]);
        srt__buf_u32(&w->dir, crcs[i]);
    }
    w->n_tensors++;
    return w->dir.oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_writer: out of memory") : SRT_OK;
}

SRT_API srt_status srt_writer_finish(srt_writer *w) {
    unsigned char h[SRT__HEADER_SIZE];
    uint64_t meta_off, dir_off;
    uint32_t crc;
    srt_status st;
    if (!w) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_finish: NULL writer");
    if (w->failed || w->meta.oom || w->dir.oom) { st = srt__fail(SRT_ERR_IO, "srt_writer_finish: an earlier write failed"); srt_writer_abort(w); return st; }
    meta_off = w->pos;
    if ((st = srt__writer_bytes(w, w->meta.p, w->meta.n)) != SRT_OK) { srt_writer_abort(w); return st; }
    dir_off = w->pos;
    if ((st = srt__writer_bytes(w, w->dir.p, w->dir.n)) != SRT_OK) { srt_writer_abort(w); return st; }
    memset(h, 0, sizeof h);
    memcpy(h, SRT__MAGIC, 4);
    srt__put_le(h + 4, SRT__FILE_VERSION, 4);
    srt__put_le(h + 8, w->pos, 8);
    srt__put_le(h + 16, meta_off, 8);
    srt__put_le(h + 24, w->meta.n, 8);
    srt__put_le(h + 32, dir_off, 8);
    srt__put_le(h + 40, w->dir.n, 8);
    srt__put_le(h + 48, w->n_meta, 4);
    srt__put_le(h + 52, w->n_tensors, 4);
    srt__put_le(h + 56, SRT__ALIGN, 4);
    crc = srt__crc32_update(&w->crc, 0, w->meta.p, w->meta.n);
    crc = srt__crc32_update(&w->crc, crc, w->dir.p, w->dir.n);
    srt__put_le(h + 60, crc, 4);
    srt__put_le(h + 124, srt__crc32_update(&w->crc, 0, h, 124), 4);
    if (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->f) != sizeof h || fflush(w->f) != 0) {
        st = srt__fail(SRT_ERR_IO, "%s: cannot write the header", w->tmp_path);
        srt_writer_abort(w);
        return st;
    }
    fclose(w->f);
    w->f = NULL;
    if (!srt__replace_file(w->tmp_path, w->path)) {
        st = srt__fail(SRT_ERR_IO, "cannot rename %s to %s", w->tmp_path, w->path);
        srt_writer_abort(w);
        return st;
    }
    srt__writer_free(w);
    return SRT_OK;
}

/* ---------------------------------------------------------------- 9 .srt reader and model */
/* Every number read from the file is checked before use: offsets and sizes against the file,
   counts against the bytes that remain, shapes against the hyperparameters. */
typedef struct srt__cursor { const unsigned char *p, *end; } srt__cursor;
static uint64_t srt__get_le(const unsigned char *p, int bytes) { uint64_t v = 0; int i; for (i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i]; return v; }
static int srt__cur_u32(srt__cursor *c, uint32_t *v) { if (c->end - c->p < 4) return 0; *v = (uint32_t)srt__get_le(c->p, 4); c->p += 4; return 1; }
static int srt__cur_u64(srt__cursor *c, uint64_t *v) { if (c->end - c->p < 8) return 0; *v = srt__get_le(c->p, 8); c->p += 8; return 1; }
static int srt__cur_bytes(srt__cursor *c, uint64_t n, const unsigned char **out) { if ((uint64_t)(c->end - c->p) < n) return 0; *out = c->p; c->p += n; return 1; }
static float srt__le_f32(const unsigned char *p) { uint32_t v = (uint32_t)srt__get_le(p, 4); float f; memcpy(&f, &v, 4); return f; }

typedef struct srt__meta {
    const char *key;           /* NUL-terminated copy */
    uint32_t type;
    uint32_t count;            /* array length (1 for scalars) */
    const unsigned char *val;  /* raw little-endian value in the mapping (arrays: after the count) */
    const char *str;           /* NUL-terminated copy for SRT_META_STR */
} srt__meta;

typedef struct srt__tensor {
    const char *name;
    srt__weights w;
    uint64_t part_size[4];
    uint32_t part_crc[4];
    int n_parts;
    int used;
    int expert;                /* bound as a mixture of experts' expert matrix (srt__token_bytes) */
} srt__tensor;

typedef struct srt__layer {
    const float *attn_norm, *ffn_norm, *bq, *bk, *bv;   /* the norms NULL in olmo2, exaone4: their inputs go in as they are */
    const float *q_norm, *k_norm;   /* RMSNorm of q and k before RoPE: per head (qwen3, gemma3, exaone4), or of all heads together
                                       (olmo2, olmoe: m->qk_norm_full); NULL otherwise */
    const float *post_attn_norm, *post_ffw_norm;   /* gemma2/3, olmo2, exaone4: RMSNorm of the attention's and the FFN's outputs */
    int swa;                        /* gemma, olmo2 (OLMo 3), exaone4: this layer attends to the last swa_window positions only */
    int nope;                       /* smollm3, exaone4's full-attention layers: no RoPE in this layer (q and k attend by content
                                       alone) */
    int swa_before;                 /* sliding layers before this one (where its KV cache regions begin) */
    srt__weights wq, wk, wv, wo, gate, down, up;   /* gate, down, up: the dense FFN (unused with experts) */
    srt__weights router;            /* mixture of experts: n_expert x n_embd, a token's expert logits */
    srt__weights *experts;          /* n_expert x (gate, up, down), in the model's array; NULL for a dense FFN */
    /* the shared expert (qwen2moe, granitemoe): a SwiGLU FFN of width n_ff_shexp that every
       token goes through, its output scaled by sigmoid(shexp_gate_inp . x) where that is bound
       (qwen2moe) */
    srt__weights shexp_gate, shexp_up, shexp_down;
    const float *shexp_gate_inp;    /* n_embd, or NULL: not gated */
    /* gpt-oss (NULL elsewhere): the attention output's bias (n_embd), each head's sink logit
       (n_head: one more term exp(sink) in its softmax's denominator, a position nothing is read
       from), the router's bias (n_expert), and each expert's gate, up, down biases (the model's array) */
    const float *bo, *sinks, *router_b;
    const float **expert_bias;
} srt__layer;

/* Tokenizer data (section 10 fills and uses it). */
enum { SRT__TOK_NONE = 0, SRT__TOK_SPM = 1, SRT__TOK_BPE = 2, SRT__TOK_UNSUPPORTED = 3 };
enum { SRT__TT_NORMAL = 1, SRT__TT_UNKNOWN = 2, SRT__TT_CONTROL = 3, SRT__TT_USER = 4, SRT__TT_UNUSED = 5, SRT__TT_BYTE = 6 };
typedef struct srt__merge { int32_t left, right, rank, result; } srt__merge;   /* rank -1 = empty slot */
typedef struct srt__vocab {
    int kind;
    int n;
    const char **piece;        /* NUL-terminated copies */
    uint32_t *piece_len;
    const char **text;         /* the bytes each token contributes to text */
    uint32_t *text_len;
    float *score;
    int32_t *type;
    int32_t *hash;             /* open addressing over piece, -1 = empty */
    uint32_t hash_mask;
    int32_t byte_token[256];   /* SPM: the <0xNN> tokens; BPE: the token of each byte's character; -1 = none */
    int bos, eos, unk;
    int32_t eog[24];           /* the tokens that end generation (srt_token_is_eog), eos first */
    int n_eog;
    int add_bos, add_space_prefix;
    char *arena;
    /* byte-level BPE */
    int pre;                   /* index into srt__pre_defs (section 10) */
    int ignore_merges;         /* a word that is a token is taken whole (Llama 3) */
    srt__merge *merge;         /* (left, right) -> rank, result; open addressing */
    uint32_t merge_mask;
    /* control, user-defined and unknown tokens, longest piece first */
    int32_t *special;
    unsigned char *special_flags;   /* SRT__SPECIAL_* */
    int n_special;
} srt__vocab;

struct srt_model {
    srt_allocator alloc;
    srt__map map;
    srt_pool *pool;
    int own_pool;
    srt_isa isa;               /* kernel level (resolved) */
    srt__vec_ops ops;          /* its vector ops */
    char *arena;               /* keys, strings */
    srt__meta *meta;
    uint32_t n_meta;
    srt__tensor *tensors;
    uint32_t n_tensors;
    char *tensor_names;
    uint32_t *tensor_hash;     /* open addressing over the names: index + 1, 0 = empty (MoE files hold 10^4+ tensors) */
    uint32_t tensor_hash_mask;
    /* hyperparameters */
    char arch[32];
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim, n_ctx_train;
    float rope_theta, norm_eps;
    int rope_neox;
    int rope_scaling;          /* 0 none, 1 linear, 2 llama3, 3 longrope (Phi-3: per-dimension factors), 4 yarn */
    float rope_factor, rope_low_freq, rope_high_freq;
    float yarn_ext, yarn_low, yarn_high;   /* yarn: the extrapolation share (1) and the dimension pairs where the ramp
                                              from extrapolation to interpolation begins and ends */
    float rope_orig_ctx;
    float rope_attn_factor;    /* cos and sin are multiplied by it (LongRoPE's attention scale, YaRN's; 1 otherwise) */
    const float *rope_long, *rope_short;   /* longrope: rope_dim / 2 divisors of the frequencies, for a
                                              session context above / up to rope_orig_ctx */
    /* Gemma 1 / 2 / 3 (arch "gemma", "gemma2", "gemma3"; all neutral for the others; Gemma 1 has
       only the attention scale of these, and no post norms) */
    int gemma;                 /* embeddings scaled by sqrt(n_embd), GELU (tanh) for SiLU in the FFN */
    float attn_scale;          /* q . k scale: attention.scale, else 1 / sqrt(head_dim) */
    float attn_softcap, final_softcap;   /* s -> cap tanh(s / cap) on the attention scores / the logits; 0 = none */
    int swa_window, swa_pattern;   /* sliding layers (l % pattern < pattern - 1) see the last swa_window positions (gemma2/3,
                                      olmo2 (OLMo 3), exaone4) */
    float rope_theta_swa;      /* the sliding layers' rope base (unscaled); 0 = they rotate as the others */
    /* mixture of experts (Mixtral: "llama"; "qwen3moe", "qwen2moe", "granitemoe"): every layer's FFN
       is n_expert_used of n_expert experts of width n_ff, picked per token by the router; qwen2moe
       and (optionally) granitemoe add a shared expert of width n_ff_shexp */
    int n_expert, n_expert_used;
    int n_ff_shexp;            /* 0: no shared expert */
    int shexp_gated;           /* qwen2moe: the shared expert's output times sigmoid(ffn_gate_inp_shexp . x); granitemoe: not */
    /* smollm3: layer l rotates no q or k when (l + 1) % nope_step == 0 (0: every layer rotates) */
    int nope_step;
    /* olmo2, exaone4: no norms before the attention and the FFN, norms of their outputs
       (post_attn_norm, post_ffw_norm); olmo2, olmoe: q and k normalized over all their heads at once */
    int post_norms_only, qk_norm_full;
    /* exaone4 with sliding layers (the 32B): the full-attention layers rotate nothing (NoPE) */
    int swa_nope;
    /* granite, minicpm: the embeddings times embd_scale, the attention's and the FFN's outputs times
       residual_scale before their residual adds, the logits divided by logit_scale (1, 1, 1 elsewhere;
       gemma's embd_scale is sqrt(n_embd)) */
    int granite;
    float embd_scale, residual_scale, logit_scale;
    int expert_norm;           /* the picked experts' probabilities divided by their sum */
    srt__weights *experts;     /* n_layer x n_expert x (gate, up, down) */
    /* gpt-oss: biases of the attention's output, the router and every expert's matrices, a sink
       logit per head in each attention softmax, the experts' clamped SwiGLU (swiglu_oai) */
    int gptoss;
    const float **expert_bias; /* gpt-oss: n_layer x n_expert x (gate, up, down) biases */
    /* weights */
    srt__weights tok_embd, output;
    const float *output_norm;
    srt__layer *layers;
    srt__vocab vocab;
    srt_model_info info;
    srt_backend *backend;      /* srt_model_desc.backend (not owned), NULL = CPU */
    void *bk_model;            /* its copy of the weights */
};

static const srt__meta *srt__find_meta(const srt_model *m, const char *key) {
    uint32_t i;
    for (i = 0; i < m->n_meta; i++) if (strcmp(m->meta[i].key, key) == 0) return &m->meta[i];
    return NULL;
}
SRT_API int srt_model_meta_str(const srt_model *m, const char *key, const char **out) {
    const srt__meta *e = m && key ? srt__find_meta(m, key) : NULL;
    if (!e || e->type != SRT_META_STR) return 0;
    *out = e->str;
    return 1;
}
SRT_API int srt_model_meta_u32(const srt_model *m, const char *key, uint32_t *out) {
    const srt__meta *e = m && key ? srt__find_meta(m, key) : NULL;
    if (!e || (e->type != SRT_META_U32 && !(e->type == SRT_META_I32 && (int32_t)srt__get_le(e->val, 4) >= 0))) return 0;
    *out = (uint32_t)srt__get_le(e->val, 4);
    return 1;
}
SRT_API int srt_model_meta_f32(const srt_model *m, const char *key, float *out) {
    const srt__meta *e = m && key ? srt__find_meta(m, key) : NULL;
    if (!e || e->type != SRT_META_F32) return 0;
    *out = srt__le_f32(e->val);
    return 1;
}

/* Parses the metadata block. Strings and keys are copied (NUL-terminated) into m->arena. */
static srt_status srt__parse_meta(srt_model *m, const char *path, const unsigned char *p, uint64_t size, uint32_t n) {
    srt__cursor c;
    char *a;
    uint32_t i;
    c.p = p; c.end = p + size;
    if ((uint64_t)n > size / 8) return srt__fail(SRT_ERR_FORMAT, "%s: metadata count %u does not fit in %llu bytes", path, n, (unsigned long long)size);
    m->meta = (srt__meta *)srt__alloc(&m->alloc, (size_t)n * sizeof *m->meta + 1);
    m->arena = (char *)srt__alloc(&m->alloc, (size_t)(size + 2 * (uint64_t)n + 1));
    if (!m->meta || !m->arena) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory for metadata", path);
    a = m->arena;
    for (i = 0; i < n; i++) {
        srt__meta *e = &m->meta[i];
        uint32_t klen, type, len, j;
        const unsigned char *kp, *vp;
        uint64_t at = (uint64_t)(c.p - p);
        if (!srt__cur_u32(&c, &klen) || klen == 0 || klen > SRT__MAX_NAME || !srt__cur_bytes(&c, klen, &kp) || !srt__cur_u32(&c, &type))
            return srt__fail(SRT_ERR_FORMAT, "%s: metadata entry %u at offset %llu is truncated or has a bad key", path, i, (unsigned long long)at);
        memcpy(a, kp, klen); a[klen] = 0; e->key = a; a += klen + 1;
        if (strlen(e->key) != klen) return srt__fail(SRT_ERR_FORMAT, "%s: metadata key %u contains a NUL byte", path, i);
        e->type = type; e->count = 1;
        switch (type) {
            case SRT_META_U32: case SRT_META_I32: case SRT_META_F32:
                if (!srt__cur_bytes(&c, 4, &vp)) goto truncated;
                e->val = vp; break;
            case SRT_META_STR:
                if (!srt__cur_u32(&c, &len) || !srt__cur_bytes(&c, len, &vp)) goto truncated;
                memcpy(a, vp, len); a[len] = 0; e->str = a; a += len + 1; e->val = vp; break;
            case SRT_META_ARR_U32: case SRT_META_ARR_I32: case SRT_META_ARR_F32: case SRT_META_ARR_U8:
                if (!srt__cur_u32(&c, &len)) goto truncated;
                e->count = len;
                if (!srt__cur_bytes(&c, (uint64_t)len * (type == SRT_META_ARR_U8 ? 1 : 4), &vp)) goto truncated;
                e->val = vp; break;
            case SRT_META_ARR_STR:
                if (!srt__cur_u32(&c, &len)) goto truncated;
                e->count = len; e->val = c.p;
                if ((uint64_t)len > (uint64_t)(c.end - c.p) / 4) goto truncated;
                for (j = 0; j < len; j++) { uint32_t sl; const unsigned char *sp; if (!srt__cur_u32(&c, &sl) || !srt__cur_bytes(&c, sl, &sp)) goto truncated; }
                break;
            default:
                return srt__fail(SRT_ERR_FORMAT, "%s: metadata '%s' has unknown type %u", path, e->key, type);
        }
        continue;
    truncated:
        return srt__fail(SRT_ERR_FORMAT, "%s: metadata '%s' (offset %llu) runs past the metadata block", path, e->key, (unsigned long long)at);
    }
    if (c.p != c.end) return srt__fail(SRT_ERR_FORMAT, "%s: %llu stray bytes after the metadata", path, (unsigned long long)(c.end - c.p));
    m->n_meta = n;
    return SRT_OK;
}

static srt_status srt__parse_dir(srt_model *m, const char *path, const unsigned char *p, uint64_t size, uint32_t n,
                                 uint64_t data_end, uint32_t version) {
    srt__cursor c;
    uint32_t i;
    char *names;
    c.p = p; c.end = p + size;
    if ((uint64_t)n > size / 32) return srt__fail(SRT_ERR_FORMAT, "%s: tensor count %u does not fit in the directory (%llu bytes)", path, n, (unsigned long long)size);
    m->tensors = (srt__tensor *)srt__alloc(&m->alloc, (size_t)n * sizeof *m->tensors + 1);
    m->tensor_names = names = (char *)srt__alloc(&m->alloc, (size_t)size + n + 1);
    if (!m->tensors || !names) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory for the tensor directory", path);
    m->n_tensors = n;
    for (i = 0; i < n; i++) {
        srt__tensor *t = &m->tensors[i];
        uint32_t nlen, fmt, group, nparts, j;
        uint64_t rows, cols;
        const unsigned char *np;
        srt_tensor_parts lay;
        if (!srt__cur_u32(&c, &nlen) || nlen == 0 || nlen > SRT__MAX_NAME || !srt__cur_bytes(&c, nlen, &np))
            return srt__fail(SRT_ERR_FORMAT, "%s: tensor %u: truncated or bad name in the directory", path, i);
        memcpy(names, np, nlen); names[nlen] = 0; t->name = names; names += nlen + 1;
        if (!srt__cur_u32(&c, &fmt) || !srt__cur_u32(&c, &group) || !srt__cur_u64(&c, &rows) || !srt__cur_u64(&c, &cols) || !srt__cur_u32(&c, &nparts))
            return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': directory entry truncated", path, t->name);
        if (fmt >= SRT_FORMAT_COUNT) return srt__fail(SRT_ERR_UNSUPPORTED, "%s: tensor '%s': unknown weight format %u (file from a newer sparsert?)", path, t->name, fmt);
        if (fmt == SRT_SB_BF16 && version < 3)
            return srt__fail(SRT_ERR_UNSUPPORTED, "%s: tensor '%s': sb-bf16 of a version %u file (rows one by one; version 3 stores them in groups of 4): re-pack", path, t->name, version);
        if (srt_tensor_layout((srt_format)fmt, rows, cols, group, &lay) != SRT_OK)
            return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': %s", path, t->name, srt_last_error());
        if ((int)nparts != lay.n_parts) return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': %u parts, format %s needs %d", path, t->name, nparts, srt_format_name((srt_format)fmt), lay.n_parts);
        t->w.format = (srt_format)fmt; t->w.group = group; t->w.rows = rows; t->w.cols = cols; t->n_parts = (int)nparts;
        for (j = 0; j < nparts; j++) {
            uint32_t kind, crc;
            uint64_t off, sz;
            if (!srt__cur_u32(&c, &kind) || !srt__cur_u64(&c, &off) || !srt__cur_u64(&c, &sz) || !srt__cur_u32(&c, &crc))
                return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': directory entry truncated", path, t->name);
            /* sparse formats: the values (and index) parts are as large as the data needs, at most the bound */
            if (kind != lay.kind[j] || (srt_format_is_sparse((srt_format)fmt) && (kind == SRT_PART_VALUES || kind == SRT_PART_INDEX) ? sz > lay.size[j] : sz != lay.size[j]))
                return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s' part %u: kind %u size %llu, expected kind %u size %llu for %llu x %llu %s",
                                 path, t->name, j, kind, (unsigned long long)sz, lay.kind[j], (unsigned long long)lay.size[j],
                                 (unsigned long long)rows, (unsigned long long)cols, srt_format_name((srt_format)fmt));
            if (off < SRT__HEADER_SIZE || off % SRT__ALIGN || off > data_end || sz > data_end - off)
                return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s' part %u: data at offset %llu + %llu bytes lies outside the data region (%u..%llu) or is misaligned",
                                 path, t->name, j, (unsigned long long)off, (unsigned long long)sz, SRT__HEADER_SIZE, (unsigned long long)data_end);
            t->w.part[j] = m->map.data + off;
            t->part_size[j] = sz;
            t->part_crc[j] = crc;
        }
        if (srt_format_is_sparse(t->w.format) && srt__sparse_check(t->w.format, group, rows, cols, t->w.part, t->part_size) != SRT_OK)
            return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': %s", path, t->name, srt_last_error());
    }
    if (c.p != c.end) return srt__fail(SRT_ERR_FORMAT, "%s: %llu stray bytes after the tensor directory", path, (unsigned long long)(c.end - c.p));
    return SRT_OK;
}

static uint32_t srt__name_hash(const char *s) { uint32_t h = 2166136261u; while (*s) h = (h ^ (unsigned char)*s++) * 16777619u; return h; }
/* The name index (after srt__parse_dir); refuses a name stored twice, which a lookup could not tell apart. */
static srt_status srt__index_tensors(srt_model *m, const char *path) {
    uint64_t cap = 16;
    uint32_t i;
    while (cap < 2 * (uint64_t)m->n_tensors) cap *= 2;
    m->tensor_hash = cap >> 32 ? NULL : (uint32_t *)srt__alloc(&m->alloc, (size_t)cap * sizeof(uint32_t));
    if (!m->tensor_hash) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory for the tensor index", path);
    memset(m->tensor_hash, 0, (size_t)cap * sizeof(uint32_t));
    m->tensor_hash_mask = (uint32_t)cap - 1;
    for (i = 0; i < m->n_tensors; i++) {
        uint32_t h = srt__name_hash(m->tensors[i].name) & m->tensor_hash_mask;
        for (; m->tensor_hash[h]; h = (h + 1) & m->tensor_hash_mask)
            if (strcmp(m->tensors[m->tensor_hash[h] - 1].name, m->tensors[i].name) == 0)
                return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s' is stored twice", path, m->tensors[i].name);
        m->tensor_hash[h] = i + 1;
    }
    return SRT_OK;
}
static srt__tensor *srt__find_tensor(srt_model *m, const char *name) {
    uint32_t h;
    if (!m->tensor_hash) return NULL;
    for (h = srt__name_hash(name) & m->tensor_hash_mask; m->tensor_hash[h]; h = (h + 1) & m->tensor_hash_mask)
        if (strcmp(m->tensors[m->tensor_hash[h] - 1].name, name) == 0) return &m->tensors[m->tensor_hash[h] - 1];
    return NULL;
}

/* Looks a weight up and checks its shape; `optional` tensors may be missing (returns SRT_OK, w zeroed). */
static srt_status srt__bind(srt_model *m, const char *name, uint64_t rows, uint64_t cols, int optional, srt__weights *w) {
    srt__tensor *t = srt__find_tensor(m, name);
    memset(w, 0, sizeof *w);
    if (!t) return optional ? SRT_OK : srt__fail(SRT_ERR_FORMAT, "tensor '%s' is missing", name);
    if (t->w.rows != rows || t->w.cols != cols)
        return srt__fail(SRT_ERR_SHAPE, "tensor '%s' is %llu x %llu, the hyperparameters need %llu x %llu", name,
                         (unsigned long long)t->w.rows, (unsigned long long)t->w.cols, (unsigned long long)rows, (unsigned long long)cols);
    t->used = 1;
    *w = t->w;
    return SRT_OK;
}
/* Norm weights and biases: 1 x n, stored F32. */
static srt_status srt__bind_vec(srt_model *m, const char *name, uint64_t n, int optional, const float **out) {
    srt__weights w;
    srt_status st = srt__bind(m, name, 1, n, optional, &w);
    *out = NULL;
    if (st != SRT_OK || !w.part[0]) return st;
    if (w.format != SRT_F32) return srt__fail(SRT_ERR_UNSUPPORTED, "tensor '%s' is %s; vectors (norms, biases) must be f32", name, srt_format_name(w.format));
    *out = (const float *)w.part[0];
    return SRT_OK;
}

static int srt__meta_u32_or(const srt_model *m, const char *key, uint32_t def) { uint32_t v; return srt_model_meta_u32(m, key, &v) ? (int)v : (int)def; }
static float srt__meta_f32_or(const srt_model *m, const char *key, float def) { float v; return srt_model_meta_f32(m, key, &v) ? v : def; }

static srt_status srt__load_hparams(srt_model *m) {
    char key[96];
    const char *s;
#define SRT__KEY(suffix) (snprintf(key, sizeof key, "%s." suffix, m->arch), key)
    if (!srt_model_meta_str(m, "general.architecture", &s)) return srt__fail(SRT_ERR_FORMAT, "metadata general.architecture is missing");
    if (strcmp(s, "llama") != 0 && strcmp(s, "qwen2") != 0 && strcmp(s, "qwen2moe") != 0 && strcmp(s, "qwen3") != 0 && strcmp(s, "qwen3moe") != 0 &&
        strcmp(s, "phi3") != 0 && strcmp(s, "gemma") != 0 && strcmp(s, "gemma2") != 0 && strcmp(s, "gemma3") != 0 && strcmp(s, "smollm3") != 0 &&
        strcmp(s, "granite") != 0 && strcmp(s, "granitemoe") != 0 && strcmp(s, "minicpm") != 0 && strcmp(s, "olmo2") != 0 && strcmp(s, "olmoe") != 0 &&
        strcmp(s, "exaone4") != 0 && strcmp(s, "exaone") != 0 && strcmp(s, "gpt-oss") != 0)
        return srt__fail(SRT_ERR_UNSUPPORTED, "architecture '%s' is not supported (llama, qwen2, qwen2moe, qwen3, qwen3moe, phi3, gemma, gemma2, gemma3, smollm3, "
                         "granite, granitemoe, minicpm, olmo2, olmoe, exaone, exaone4, gpt-oss)", s);
    snprintf(m->arch, sizeof m->arch, "%s", s);
    m->n_embd = srt__meta_u32_or(m, SRT__KEY("embedding_length"), 0);
    m->n_ff = srt__meta_u32_or(m, SRT__KEY("feed_forward_length"), 0);
    m->n_layer = srt__meta_u32_or(m, SRT__KEY("block_count"), 0);
    m->n_head = srt__meta_u32_or(m, SRT__KEY("attention.head_count"), 0);
    m->n_head_kv = srt__meta_u32_or(m, SRT__KEY("attention.head_count_kv"), (uint32_t)m->n_head);
    m->n_ctx_train = srt__meta_u32_or(m, SRT__KEY("context_length"), 2048);
    if (m->n_embd <= 0 || m->n_embd > 65536 || m->n_ff <= 0 || m->n_ff > 1 << 20 || m->n_layer <= 0 || m->n_layer > 1024 ||
        m->n_head <= 0 || m->n_head > SRT__MAX_HEADS || m->n_head_kv <= 0 || m->n_head % m->n_head_kv != 0 || m->n_ctx_train <= 0)
        return srt__fail(SRT_ERR_FORMAT, "bad hyperparameters: embd %d ff %d layers %d heads %d kv heads %d ctx %d",
                         m->n_embd, m->n_ff, m->n_layer, m->n_head, m->n_head_kv, m->n_ctx_train);
    m->head_dim = srt__meta_u32_or(m, SRT__KEY("attention.key_length"), (uint32_t)(m->n_embd / m->n_head));
    m->rope_dim = srt__meta_u32_or(m, SRT__KEY("rope.dimension_count"), (uint32_t)m->head_dim);
    if (m->head_dim <= 0 || m->head_dim > SRT__KV_MAX_HD || m->rope_dim <= 0 || m->rope_dim > m->head_dim || m->rope_dim % 2)
        return srt__fail(SRT_ERR_FORMAT, "bad head dimensions: head %d rope %d", m->head_dim, m->rope_dim);
    m->rope_theta = srt__meta_f32_or(m, SRT__KEY("rope.freq_base"), 10000.0f);
    m->norm_eps = srt__meta_f32_or(m, SRT__KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
    /* MiniCPM (1, 2, 4) is Granite's graph: llama.cpp's converter writes scale_emb, scale_depth /
       sqrt(layers) and hidden_size / dim_model_base as the same three multipliers */
    m->granite = strcmp(m->arch, "granite") == 0 || strcmp(m->arch, "granitemoe") == 0 || strcmp(m->arch, "minicpm") == 0;
    m->post_norms_only = strcmp(m->arch, "olmo2") == 0 || strcmp(m->arch, "exaone4") == 0;
    m->qk_norm_full = strcmp(m->arch, "olmo2") == 0 || strcmp(m->arch, "olmoe") == 0;
    m->gptoss = strcmp(m->arch, "gpt-oss") == 0;
    m->rope_neox = srt__meta_u32_or(m, SRT__KEY("rope.neox"), strcmp(m->arch, "llama") != 0 && strcmp(m->arch, "smollm3") != 0 && !m->granite) != 0;   /* qwen2/3, phi3, gemma: NeoX */
    /* SmolLM3's NoPE layers: every 4th (llama.cpp's fixed step; its GGUF has no key for it) */
    m->nope_step = strcmp(m->arch, "smollm3") == 0 ? srt__meta_u32_or(m, SRT__KEY("no_rope_layer_step"), 4) : 0;
    if (m->nope_step < 0 || m->nope_step > 4096) return srt__fail(SRT_ERR_FORMAT, "bad no_rope_layer_step %d (0 .. 4096)", m->nope_step);
    if (!(m->rope_theta > 0.0f) || !(m->norm_eps > 0.0f) || m->norm_eps > 1.0f) return srt__fail(SRT_ERR_FORMAT, "bad rope base %g or norm epsilon %g", m->rope_theta, m->norm_eps);
    m->rope_scaling = 0;
    /* LongRoPE (Phi-3): GGUF names no scaling type, it has the factor tensors (bound with the weights) */
    m->rope_attn_factor = srt__meta_f32_or(m, SRT__KEY("rope.scaling.attn_factor"), 1.0f);
    if (!(m->rope_attn_factor > 0.0f) || m->rope_attn_factor > 16.0f) return srt__fail(SRT_ERR_FORMAT, "bad rope attention factor %g", m->rope_attn_factor);
    m->rope_orig_ctx = 0.0f;   /* (0 without scaling: session states hash it) */
    if (srt_model_meta_str(m, SRT__KEY("rope.scaling.type"), &s) && strcmp(s, "none") != 0) {
        if (strcmp(s, "linear") == 0) m->rope_scaling = 1;
        else if (strcmp(s, "llama3") == 0) m->rope_scaling = 2;
        else if (strcmp(s, "longrope") == 0) m->rope_scaling = 3;
        else if (strcmp(s, "yarn") == 0) m->rope_scaling = 4;
        else return srt__fail(SRT_ERR_UNSUPPORTED, "rope scaling '%s' is not supported (linear, llama3, longrope, yarn)", s);
        m->rope_factor = srt__meta_f32_or(m, SRT__KEY("rope.scaling.factor"), 1.0f);
        m->rope_low_freq = srt__meta_f32_or(m, SRT__KEY("rope.scaling.low_freq_factor"), 1.0f);
        m->rope_high_freq = srt__meta_f32_or(m, SRT__KEY("rope.scaling.high_freq_factor"), 4.0f);
        m->rope_orig_ctx = (float)srt__meta_u32_or(m, SRT__KEY("rope.scaling.original_context_length"), m->rope_scaling >= 3 ? (uint32_t)m->n_ctx_train : 8192);
        if (!(m->rope_factor >= 1.0f) || !(m->rope_high_freq > m->rope_low_freq) || !(m->rope_orig_ctx > 0.0f))
            return srt__fail(SRT_ERR_FORMAT, "bad rope scaling parameters");
    }
    /* YaRN (llama.cpp's keys and defaults, transformers' definition): frequency pair i is blended from
       its interpolated (divided by the factor) and its own (extrapolated) value, all extrapolated
       below the pair that turns beta_fast times in the original context, all interpolated above the
       one that turns beta_slow times, a linear ramp between; cos and sin are scaled by
       yarn_attn_factor (transformers' attention_factor; default 1 + 0.1 ln factor, with which
       llama.cpp scales them whatever the file says) */
    m->yarn_ext = m->yarn_low = m->yarn_high = 0.0f;
    if (m->rope_scaling == 4) {
        const float fast = srt__meta_f32_or(m, SRT__KEY("rope.scaling.yarn_beta_fast"), 32.0f), slow = srt__meta_f32_or(m, SRT__KEY("rope.scaling.yarn_beta_slow"), 1.0f);
        const float d = (float)m->rope_dim, two_ln_base = 2.0f * logf(m->rope_theta);
        float mscale;
        m->yarn_ext = srt__meta_f32_or(m, SRT__KEY("rope.scaling.yarn_ext_factor"), 1.0f);
        mscale = srt__meta_f32_or(m, SRT__KEY("rope.scaling.yarn_attn_factor"), m->yarn_ext != 0.0f ? 1.0f + 0.1f * logf(m->rope_factor) : 1.0f);
        if (!(fast > 0.0f) || !(slow > 0.0f) || fast > 1e6f || slow > 1e6f || !(m->yarn_ext >= 0.0f && m->yarn_ext <= 1.0f) || !(mscale > 0.0f) || mscale > 16.0f ||
            !(m->rope_theta > 1.0f))
            return srt__fail(SRT_ERR_FORMAT, "bad yarn parameters: beta_fast %g, beta_slow %g, ext_factor %g, attn_factor %g", fast, slow, m->yarn_ext, mscale);
        m->yarn_low = d * logf(m->rope_orig_ctx / (fast * 6.28318530718f)) / two_ln_base;
        m->yarn_high = d * logf(m->rope_orig_ctx / (slow * 6.28318530718f)) / two_ln_base;
        if (srt__meta_u32_or(m, SRT__KEY("rope.scaling.yarn_truncate"), 1)) {   /* llama.cpp, and transformers unless truncate is false (gpt-oss) */
            m->yarn_low = floorf(m->yarn_low);
            m->yarn_high = ceilf(m->yarn_high);
        }
        if (m->yarn_low < 0.0f) m->yarn_low = 0.0f;
        if (m->yarn_high > d - 1.0f) m->yarn_high = d - 1.0f;
        m->rope_attn_factor *= mscale;
    }
    /* Gemma: the attention scale (query_pre_attn_scalar), soft caps, sliding-window layers and their
       own rope base (Gemma 3: 10000 against the global layers' 1e6 and scaling). Phi-3 records a
       sliding window too, but llama.cpp does not apply it, so only Gemma 2 / 3 read these; Gemma 1
       has none of them (llama.cpp reads none), only the scale. */
    m->gemma = strcmp(m->arch, "gemma") == 0 || strcmp(m->arch, "gemma2") == 0 || strcmp(m->arch, "gemma3") == 0;
    m->attn_scale = 1.0f / sqrtf((float)m->head_dim);   /* the file's attention.scale for Gemma and Granite */
    if (m->gemma || m->granite) m->attn_scale = srt__meta_f32_or(m, SRT__KEY("attention.scale"), m->attn_scale);
    if (!(m->attn_scale > 0.0f) || m->attn_scale > 16.0f) return srt__fail(SRT_ERR_FORMAT, "bad attention scale %g (0 .. 16)", m->attn_scale);
    m->attn_softcap = m->final_softcap = 0.0f;
    m->swa_window = m->swa_pattern = 0;
    m->rope_theta_swa = 0.0f;
    m->swa_nope = 0;
    /* OLMo 3 (olmo2 with a window) and EXAONE 4's 32B: where the file gives a window, layers slide in
       the pattern (3 of every 4 by default). OLMo 3's sliding layers rotate by rope.freq_base_swa
       (default the model's base) without the rope scaling, which only its full-attention layers
       have (llama.cpp's graph, OLMo-core's). EXAONE 4's full-attention layers have no RoPE and its
       sliding layers rotate as a model without windows does (llama.cpp: the global base and factors). */
    if (m->post_norms_only) {
        const int ex = strcmp(m->arch, "exaone4") == 0;
        m->swa_window = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window"), 0);
        m->swa_pattern = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window_pattern"), 4);
        m->swa_nope = ex && m->swa_window > 0;
        if (!ex && m->swa_window > 0) m->rope_theta_swa = srt__meta_f32_or(m, SRT__KEY("rope.freq_base_swa"), m->rope_theta);
        if (m->swa_window < 0 || m->swa_pattern < 1 || m->swa_pattern > 1024 || !(m->rope_theta_swa >= 0.0f) || m->rope_theta_swa > 1e12f)
            return srt__fail(SRT_ERR_FORMAT, "bad %s sliding window %d (pattern %d, rope base %g)", m->arch, m->swa_window, m->swa_pattern, m->rope_theta_swa);
    }
    if (m->gptoss) {   /* gpt-oss: every other layer slides (the even ones: llama.cpp's pattern 2), over 128 positions in the released models */
        m->swa_window = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window"), 0);
        m->swa_pattern = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window_pattern"), 2);
        if (m->swa_window < 0 || m->swa_pattern < 1 || m->swa_pattern > 1024)
            return srt__fail(SRT_ERR_FORMAT, "bad gpt-oss sliding window %d (pattern %d)", m->swa_window, m->swa_pattern);
    }
    if (m->gemma) {
        const int g3 = strcmp(m->arch, "gemma3") == 0, g1 = strcmp(m->arch, "gemma") == 0;
        m->swa_pattern = 1;   /* (no layer slides: l % 1 < 0 never holds) */
        if (!g1) {
            m->attn_softcap = srt__meta_f32_or(m, SRT__KEY("attn_logit_softcapping"), 0.0f);
            m->final_softcap = srt__meta_f32_or(m, SRT__KEY("final_logit_softcapping"), 0.0f);
            m->swa_window = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window"), 0);
            m->swa_pattern = srt__meta_u32_or(m, SRT__KEY("attention.sliding_window_pattern"), g3 ? 6 : 2);
            m->rope_theta_swa = srt__meta_f32_or(m, SRT__KEY("rope.freq_base_swa"), g3 ? 10000.0f : 0.0f);
        }
        if (!(m->attn_softcap >= 0.0f) || m->attn_softcap > 1e6f ||
            !(m->final_softcap >= 0.0f) || m->final_softcap > 1e6f || m->swa_window < 0 || m->swa_pattern < 1 || m->swa_pattern > 1024 ||
            !(m->rope_theta_swa >= 0.0f) || m->rope_theta_swa > 1e12f)
            return srt__fail(SRT_ERR_FORMAT, "bad gemma parameters: soft caps %g / %g, sliding window %d (pattern %d), rope base %g",
                             m->attn_softcap, m->final_softcap, m->swa_window, m->swa_pattern, m->rope_theta_swa);
    }
    /* the sliding layers' unscaled angles are the others' when the base is the same and nothing scales */
    if (m->rope_theta_swa == m->rope_theta && m->rope_scaling == 0 && m->rope_attn_factor == 1.0f) m->rope_theta_swa = 0.0f;
    /* Granite's and MiniCPM's multipliers (llama.cpp's keys; logit_scale required, the others default to none) */
    m->embd_scale = m->gemma ? sqrtf((float)m->n_embd) : 1.0f;
    m->residual_scale = m->logit_scale = 1.0f;
    if (m->granite) {
        float v;
        m->embd_scale = srt__meta_f32_or(m, SRT__KEY("embedding_scale"), 1.0f);
        m->residual_scale = srt__meta_f32_or(m, SRT__KEY("residual_scale"), 1.0f);
        if (!srt_model_meta_f32(m, SRT__KEY("logit_scale"), &v)) return srt__fail(SRT_ERR_FORMAT, "%s: metadata %s is missing", m->arch, key);
        m->logit_scale = v;
        if (srt__meta_u32_or(m, SRT__KEY("rope.scaling.finetuned"), 1) == 0)
            return srt__fail(SRT_ERR_UNSUPPORTED, "%s without RoPE (rope.scaling.finetuned 0) is not supported", m->arch);
        if (!(m->embd_scale > 0.0f) || m->embd_scale > 1e4f || !(m->residual_scale > 0.0f) || m->residual_scale > 1e4f || !(m->logit_scale > 0.0f) ||
            m->logit_scale > 1e6f)
            return srt__fail(SRT_ERR_FORMAT, "bad %s multipliers: embedding %g, residual %g, logit scale %g", m->arch, m->embd_scale,
                             m->residual_scale, m->logit_scale);
    }
    /* Mixture of experts: Mixtral is "llama" with experts, Qwen3-MoE "qwen3moe", Qwen2-MoE "qwen2moe"
       and Granite MoE "granitemoe" (which must have them). qwen2moe has a shared expert of width
       expert_shared_feed_forward_length (default feed_forward_length, as llama.cpp's), scaled by a
       sigmoid gate (ffn_gate_inp_shexp); granitemoe has one, not gated, where that key is there
       (GraniteMoeShared; llama.cpp's converter writes both as granitemoe). OLMoE "olmoe" has them
       too. qwen2moe's and olmoe's picked experts' weights are not renormalized unless the file says
       so (llama.cpp's graphs never do). The graph's FFN width is then an expert's. */
    {
        const int q2 = strcmp(m->arch, "qwen2moe") == 0, gs = strcmp(m->arch, "granitemoe") == 0, oe = strcmp(m->arch, "olmoe") == 0;
        const int needs = q2 || gs || oe || m->gptoss || strcmp(m->arch, "qwen3moe") == 0;
        m->n_expert = srt__meta_u32_or(m, SRT__KEY("expert_count"), 0);
        m->n_expert_used = srt__meta_u32_or(m, SRT__KEY("expert_used_count"), 0);
        /* (gpt-oss: a softmax over the picked experts' logits, which is the same) */
        m->expert_norm = m->gptoss || srt__meta_u32_or(m, SRT__KEY("expert_weights_norm"), q2 || oe ? 0 : 1) != 0;
        m->n_ff_shexp = 0;
        m->shexp_gated = q2;
        if (m->n_expert != 0 || needs) {
            const int ff = srt__meta_u32_or(m, SRT__KEY("expert_feed_forward_length"), (uint32_t)m->n_ff);
            if (strcmp(m->arch, "llama") != 0 && !needs)
                return srt__fail(SRT_ERR_UNSUPPORTED, "architecture '%s' with experts is not supported (llama, qwen2moe, qwen3moe, granitemoe, olmoe, gpt-oss)", m->arch);
            if (q2 || gs) m->n_ff_shexp = srt__meta_u32_or(m, SRT__KEY("expert_shared_feed_forward_length"), q2 ? (uint32_t)m->n_ff : 0);
            if (m->n_expert <= 0 || m->n_expert > 4096 || m->n_expert_used <= 0 || m->n_expert_used > m->n_expert || ff <= 0 || ff > 1 << 20 ||
                m->n_ff_shexp < 0 || m->n_ff_shexp > 1 << 20 || (q2 && m->n_ff_shexp == 0))
                return srt__fail(SRT_ERR_FORMAT, "bad mixture of experts: %d experts, %d used, width %d, shared width %d (1 <= used <= experts <= 4096)",
                                 m->n_expert, m->n_expert_used, ff, m->n_ff_shexp);
            m->n_ff = ff;
        }
    }
#undef SRT__KEY
    return SRT_OK;
}

static srt_status srt__bind_weights(srt_model *m) {
    int l;
    uint64_t E = (uint64_t)m->n_embd, Q = (uint64_t)m->n_head * m->head_dim, KV = (uint64_t)m->n_head_kv * m->head_dim, F = (uint64_t)m->n_ff;
    char name[96];
    srt_status st;
    uint32_t i;
    if ((st = srt__bind(m, "token_embd.weight", (uint64_t)m->n_vocab, E, 0, &m->tok_embd)) != SRT_OK) return st;
    if ((st = srt__bind(m, "output.weight", (uint64_t)m->n_vocab, E, 1, &m->output)) != SRT_OK) return st;
    if (!m->output.part[0]) m->output = m->tok_embd;          /* tied embeddings */
    if ((st = srt__bind_vec(m, "output_norm.weight", E, 0, &m->output_norm)) != SRT_OK) return st;
    /* LongRoPE's frequency divisors (Phi-3 128k): both or neither, and only with that scaling */
    if ((st = srt__bind_vec(m, "rope_factors_long.weight", (uint64_t)m->rope_dim / 2, 1, &m->rope_long)) != SRT_OK ||
        (st = srt__bind_vec(m, "rope_factors_short.weight", (uint64_t)m->rope_dim / 2, 1, &m->rope_short)) != SRT_OK)
        return st;
    if ((m->rope_scaling == 3) != (m->rope_long || m->rope_short) || !m->rope_long != !m->rope_short)
        return srt__fail(SRT_ERR_FORMAT, "rope scaling 'longrope' needs both rope_factors_long.weight and rope_factors_short.weight (%s)",
                         m->rope_scaling == 3 ? "one is missing" : "the file has factors but another scaling type");
    if (m->rope_long) {
        for (i = 0; i < (uint32_t)m->rope_dim / 2; i++)
            if (!(m->rope_long[i] > 0.0f) || !(m->rope_short[i] > 0.0f) || m->rope_long[i] > 1e6f || m->rope_short[i] > 1e6f)
                return srt__fail(SRT_ERR_FORMAT, "rope factor %u is %g (long) / %g (short); positive finite values expected", (unsigned)i, m->rope_long[i], m->rope_short[i]);
    }
    m->layers = (srt__layer *)srt__alloc(&m->alloc, (size_t)m->n_layer * sizeof *m->layers);
    if (!m->layers) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory");
    if (m->n_expert) {   /* (a file too small for them is refused before their table is made) */
        const uint64_t need = (uint64_t)m->n_layer * (1 + 3 * (uint64_t)m->n_expert);
        if (m->n_tensors < need)
            return srt__fail(SRT_ERR_FORMAT, "%d layers of %d experts need %llu router and expert tensors; the file has %u tensors in all", m->n_layer,
                             m->n_expert, (unsigned long long)need, m->n_tensors);
        m->experts = (srt__weights *)srt__alloc(&m->alloc, (size_t)m->n_layer * (size_t)m->n_expert * 3 * sizeof *m->experts);
        if (m->gptoss) m->expert_bias = (const float **)srt__alloc(&m->alloc, (size_t)m->n_layer * (size_t)m->n_expert * 3 * sizeof *m->expert_bias);
        if (!m->experts || (m->gptoss && !m->expert_bias)) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory");
    }
    for (l = 0; l < m->n_layer; l++) {
        srt__layer *L = &m->layers[l];
#define SRT__NAME(s) (snprintf(name, sizeof name, "blk.%d." s, l), name)
        if ((!m->post_norms_only && ((st = srt__bind_vec(m, SRT__NAME("attn_norm.weight"), E, 0, &L->attn_norm)) != SRT_OK ||
                                     (st = srt__bind_vec(m, SRT__NAME("ffn_norm.weight"), E, 0, &L->ffn_norm)) != SRT_OK)) ||
            (st = srt__bind(m, SRT__NAME("attn_q.weight"), Q, E, 0, &L->wq)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_k.weight"), KV, E, 0, &L->wk)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_v.weight"), KV, E, 0, &L->wv)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_output.weight"), E, Q, 0, &L->wo)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_q.bias"), Q, 1, &L->bq)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_k.bias"), KV, 1, &L->bk)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_v.bias"), KV, 1, &L->bv)) != SRT_OK)
            return st;
        if (m->n_expert) {   /* the router and each expert's gate, up and down */
            int x;
            L->experts = m->experts + (size_t)l * (size_t)m->n_expert * 3;
            if (m->gptoss) L->expert_bias = m->expert_bias + (size_t)l * (size_t)m->n_expert * 3;
            if ((st = srt__bind(m, SRT__NAME("ffn_gate_inp.weight"), (uint64_t)m->n_expert, E, 0, &L->router)) != SRT_OK) return st;
            for (x = 0; x < 3 * m->n_expert; x++) {   /* expert x / 3's gate, up, down */
                static const char *const kinds[3] = {"gate", "up", "down"};
                snprintf(name, sizeof name, "blk.%d.ffn_%s.%d.weight", l, kinds[x % 3], x / 3);
                if ((st = srt__bind(m, name, x % 3 == 2 ? E : F, x % 3 == 2 ? F : E, 0, &L->experts[x])) != SRT_OK) return st;
                srt__find_tensor(m, name)->expert = 1;
                if (m->gptoss) {   /* its bias */
                    snprintf(name, sizeof name, "blk.%d.ffn_%s.%d.bias", l, kinds[x % 3], x / 3);
                    if ((st = srt__bind_vec(m, name, x % 3 == 2 ? E : F, 0, &L->expert_bias[x])) != SRT_OK) return st;
                    srt__find_tensor(m, name)->expert = 1;
                }
            }
            if (m->gptoss && ((st = srt__bind_vec(m, SRT__NAME("ffn_gate_inp.bias"), (uint64_t)m->n_expert, 0, &L->router_b)) != SRT_OK ||
                              (st = srt__bind_vec(m, SRT__NAME("attn_output.bias"), E, 0, &L->bo)) != SRT_OK ||
                              (st = srt__bind_vec(m, SRT__NAME("attn_sinks.weight"), (uint64_t)m->n_head, 0, &L->sinks)) != SRT_OK))
                return st;
            if (m->n_ff_shexp) {   /* the shared expert and (qwen2moe) its gate, a vector: one row */
                const uint64_t FS = (uint64_t)m->n_ff_shexp;
                if ((st = srt__bind(m, SRT__NAME("ffn_gate_shexp.weight"), FS, E, 0, &L->shexp_gate)) != SRT_OK ||
                    (st = srt__bind(m, SRT__NAME("ffn_up_shexp.weight"), FS, E, 0, &L->shexp_up)) != SRT_OK ||
                    (st = srt__bind(m, SRT__NAME("ffn_down_shexp.weight"), E, FS, 0, &L->shexp_down)) != SRT_OK ||
                    (m->shexp_gated && (st = srt__bind_vec(m, SRT__NAME("ffn_gate_inp_shexp.weight"), E, 0, &L->shexp_gate_inp)) != SRT_OK))
                    return st;
            }
        } else if ((st = srt__bind(m, SRT__NAME("ffn_gate.weight"), F, E, 0, &L->gate)) != SRT_OK ||
                   (st = srt__bind(m, SRT__NAME("ffn_down.weight"), E, F, 0, &L->down)) != SRT_OK ||
                   (st = srt__bind(m, SRT__NAME("ffn_up.weight"), F, E, 0, &L->up)) != SRT_OK)
            return st;
        if ((strcmp(m->arch, "qwen3") == 0 || strcmp(m->arch, "qwen3moe") == 0 || strcmp(m->arch, "gemma3") == 0 || strcmp(m->arch, "exaone4") == 0 ||
             m->qk_norm_full) &&   /* their q and k
                                                                                           norms; another architecture leaves them unused */
            ((st = srt__bind_vec(m, SRT__NAME("attn_q_norm.weight"), m->qk_norm_full ? Q : (uint64_t)m->head_dim, 0, &L->q_norm)) != SRT_OK ||
             (st = srt__bind_vec(m, SRT__NAME("attn_k_norm.weight"), m->qk_norm_full ? KV : (uint64_t)m->head_dim, 0, &L->k_norm)) != SRT_OK))
            return st;
        if (((m->gemma && strcmp(m->arch, "gemma") != 0) || m->post_norms_only) &&   /* Gemma 2 / 3 (the weights hold 1 + w, as llama.cpp's converter
                                                                                        writes them), OLMo 2, EXAONE 4: the norms of the attention's and the FFN's
                                                                                        outputs */
            ((st = srt__bind_vec(m, SRT__NAME("post_attention_norm.weight"), E, 0, &L->post_attn_norm)) != SRT_OK ||
             (st = srt__bind_vec(m, SRT__NAME("post_ffw_norm.weight"), E, 0, &L->post_ffw_norm)) != SRT_OK))
            return st;
        L->swa = m->swa_window > 0 && l % m->swa_pattern < m->swa_pattern - 1;
        L->nope = (m->nope_step > 0 && (l + 1) % m->nope_step == 0) || (m->swa_nope && !L->swa);
        L->swa_before = l ? m->layers[l - 1].swa_before + m->layers[l - 1].swa : 0;
#undef SRT__NAME
    }
    for (i = 0; i < m->n_tensors; i++)
        if (!m->tensors[i].used) srt__log(SRT_LOG_WARN, "tensor '%s' is not used by the %s graph", m->tensors[i].name, m->arch);
    return SRT_OK;
}

/* Weight bytes one decode step reads (srt_model_info.token_bytes): every tensor, but of the embedding
   one row when a separate output matrix exists (tied, the logits read all of it), and of the expert
   matrices the share a token uses. */
static uint64_t srt__token_bytes(const srt_model *m) {
    uint64_t total = 0, experts = 0;
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++) {
        const srt__tensor *t = &m->tensors[i];
        uint64_t b = 0;
        int j;
        for (j = 0; j < t->n_parts; j++) b += t->part_size[j];
        if (strcmp(t->name, "token_embd.weight") == 0 && m->output.part[0] != m->tok_embd.part[0]) b /= t->w.rows ? t->w.rows : 1;
        *(t->expert ? &experts : &total) += b;
    }
    return total + (m->n_expert ? experts / (uint64_t)m->n_expert * (uint64_t)m->n_expert_used : 0);
}

static srt_status srt__vocab_load(srt_model *m);   /* section 10 */
static void srt__vocab_free(srt_model *m);

SRT_API void srt_model_free(srt_model *m) {
    srt_allocator a;
    if (!m) return;
    a = m->alloc;
    if (m->backend && m->bk_model) m->backend->unload(m->backend, m->bk_model);
    srt__vocab_free(m);
    if (m->own_pool) srt_pool_destroy(m->pool);
    srt__map_close(&m->map);
    srt__free(&a, m->tensor_names);
    srt__free(&a, m->tensor_hash);
    srt__free(&a, m->experts);
    srt__free(&a, (void *)m->expert_bias);
    srt__free(&a, m->tensors);
    srt__free(&a, m->meta);
    srt__free(&a, m->arena);
    srt__free(&a, m->layers);
    srt__free(&a, m);
}

static srt_status srt__model_open(srt_model *m, const char *path, const srt_model_desc *d) {
    const unsigned char *h;
    uint64_t fsize, meta_off, meta_size, dir_off, dir_size, data_end;
    uint32_t n_meta, n_tensors, version, crc, i;
    srt__crc32 crct;
    srt_status st;
    const char *name;
    if ((st = srt__map_open(path, &m->map, d->load, d->memory_limit)) != SRT_OK) return st;
    h = m->map.data;
    fsize = m->map.size;
    if (fsize < SRT__HEADER_SIZE) return srt__fail(SRT_ERR_FORMAT, "%s: %llu bytes is too short for an .srt header (%u)", path, (unsigned long long)fsize, SRT__HEADER_SIZE);
    if (memcmp(h, SRT__MAGIC, 4) != 0) return srt__fail(SRT_ERR_FORMAT, "%s: not an .srt file (bad magic; convert checkpoints with srt-pack)", path);
    srt__crc32_init(&crct);
    if (srt__crc32_update(&crct, 0, h, 124) != (uint32_t)srt__get_le(h + 124, 4)) return srt__fail(SRT_ERR_CHECKSUM, "%s: header checksum mismatch (corrupted header)", path);
    version = (uint32_t)srt__get_le(h + 4, 4);
    if (version != SRT__FILE_VERSION && version != 2) return srt__fail(SRT_ERR_UNSUPPORTED, "%s: .srt version %u, this build reads versions 2 and %u", path, version, SRT__FILE_VERSION);
    if (srt__get_le(h + 8, 8) != fsize)
        return srt__fail(SRT_ERR_FORMAT, "%s: file is %llu bytes, header says %llu (truncated or appended to)", path, (unsigned long long)fsize, (unsigned long long)srt__get_le(h + 8, 8));
    meta_off = srt__get_le(h + 16, 8); meta_size = srt__get_le(h + 24, 8);
    dir_off = srt__get_le(h + 32, 8); dir_size = srt__get_le(h + 40, 8);
    n_meta = (uint32_t)srt__get_le(h + 48, 4); n_tensors = (uint32_t)srt__get_le(h + 52, 4);
    if (srt__get_le(h + 56, 4) != SRT__ALIGN || meta_off < SRT__HEADER_SIZE || meta_off > fsize || meta_size > fsize - meta_off ||
        dir_off != meta_off + meta_size || dir_size != fsize - dir_off)
        return srt__fail(SRT_ERR_FORMAT, "%s: inconsistent header (metadata %llu+%llu, directory %llu+%llu, file %llu)", path,
                         (unsigned long long)meta_off, (unsigned long long)meta_size, (unsigned long long)dir_off, (unsigned long long)dir_size, (unsigned long long)fsize);
    crc = srt__crc32_update(&crct, 0, h + meta_off, meta_size + dir_size);
    if (crc != (uint32_t)srt__get_le(h + 60, 4)) return srt__fail(SRT_ERR_CHECKSUM, "%s: metadata/directory checksum mismatch (corrupted file)", path);
    data_end = meta_off;
    if ((st = srt__parse_meta(m, path, h + meta_off, meta_size, n_meta)) != SRT_OK) return st;
    if ((st = srt__parse_dir(m, path, h + dir_off, dir_size, n_tensors, data_end, version)) != SRT_OK) return st;
    if ((st = srt__index_tensors(m, path)) != SRT_OK) return st;
    if (d->verify_checksums)
        for (i = 0; i < m->n_tensors; i++) {
            int j;
            for (j = 0; j < m->tensors[i].n_parts; j++)
                if (srt__crc32_update(&crct, 0, m->tensors[i].w.part[j], m->tensors[i].part_size[j]) != m->tensors[i].part_crc[j])
                    return srt__fail(SRT_ERR_CHECKSUM, "%s: tensor '%s' part %d: data checksum mismatch at offset %llu (corrupted data)", path,
                                     m->tensors[i].name, j, (unsigned long long)((const unsigned char *)m->tensors[i].w.part[j] - h));
        }
    if ((st = srt__vocab_load(m)) != SRT_OK) return srt__fail(st, "%s: %s", path, srt_last_error());
    m->n_vocab = m->vocab.n;
    {   /* the embedding may have more rows than the tokenizer has tokens (padded vocabularies) */
        srt__tensor *te = srt__find_tensor(m, "token_embd.weight");
        if (te && te->w.rows < (uint64_t)m->vocab.n)
            return srt__fail(SRT_ERR_SHAPE, "%s: token_embd.weight has %llu rows for %d tokens", path, (unsigned long long)te->w.rows, m->vocab.n);
        if (te && te->w.rows <= (1u << 24)) m->n_vocab = (int)te->w.rows;
    }
    if (m->n_tensors > 0) {
        if (m->vocab.kind == SRT__TOK_NONE) return srt__fail(SRT_ERR_NO_TOKENIZER, "%s: the model has no tokenizer (pack it with one: srt-pack --tokenizer)", path);
        if ((st = srt__load_hparams(m)) != SRT_OK || (st = srt__bind_weights(m)) != SRT_OK) return srt__fail(st, "%s: %s", path, srt_last_error());
    } else if (!srt_model_meta_str(m, "general.architecture", &name)) {
        snprintf(m->arch, sizeof m->arch, "none");
    } else snprintf(m->arch, sizeof m->arch, "%s", name);
    return SRT_OK;
}

/* ---- backends: the model's weights as a srt_backend_model, handed to the backend once */
static srt_backend_tensor srt__backend_tensor(const srt__weights *w) {
    srt_backend_tensor t;
    int i;
    t.format = w->format; t.group = w->group; t.rows = w->rows; t.cols = w->cols;
    for (i = 0; i < 4; i++) t.part[i] = w->part[i];
    return t;
}
static srt_status srt__backend_load(srt_model *m, srt_backend *b) {
    srt_backend_model bm;
    srt_backend_layer *ls;
    char err[256];
    srt_status st;
    uint32_t i;
    int l;
    if (!b->load || !b->unload || !b->session_create || !b->session_destroy || !b->forward)
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_model_load: backend '%s' is incomplete", b->name ? b->name : "?");
    for (i = 0; i < m->n_tensors; i++)   /* the backends have no fp4 kernels */
        if (m->tensors[i].w.format == SRT_FP4)
            return srt__fail(SRT_ERR_UNSUPPORTED, "srt_model_load: tensor '%s' is fp4, which runs on the CPU only (backend %s)", m->tensors[i].name,
                             b->name ? b->name : "?");
    if (m->gemma || m->n_expert || m->nope_step || m->granite || m->post_norms_only || m->qk_norm_full || m->gptoss)   /* srt_backend_model has no
                                                         post-norms, GELU, soft caps, sliding windows, experts, NoPE layers, multipliers, full q/k
                                                         norms or sinks */
        return srt__fail(SRT_ERR_UNSUPPORTED, "srt_model_load: architecture '%s' runs on the CPU only (backend %s)", m->arch, b->name ? b->name : "?");
    ls = (srt_backend_layer *)srt__malloc0((size_t)m->n_layer * sizeof *ls);
    if (!ls) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_model_load: out of memory");
    memset(&bm, 0, sizeof bm);
    bm.n_vocab = m->n_vocab; bm.n_embd = m->n_embd; bm.n_ff = m->n_ff; bm.n_layer = m->n_layer; bm.n_head = m->n_head;
    bm.n_head_kv = m->n_head_kv; bm.head_dim = m->head_dim; bm.rope_dim = m->rope_dim; bm.rope_neox = m->rope_neox;
    bm.norm_eps = m->norm_eps;
    bm.tok_embd = srt__backend_tensor(&m->tok_embd); bm.output = srt__backend_tensor(&m->output);
    bm.output_norm = m->output_norm;
    for (l = 0; l < m->n_layer; l++) {
        const srt__layer *L = &m->layers[l];
        ls[l].attn_norm = L->attn_norm; ls[l].ffn_norm = L->ffn_norm; ls[l].bq = L->bq; ls[l].bk = L->bk; ls[l].bv = L->bv;
        ls[l].q_norm = L->q_norm; ls[l].k_norm = L->k_norm;
        ls[l].wq = srt__backend_tensor(&L->wq); ls[l].wk = srt__backend_tensor(&L->wk); ls[l].wv = srt__backend_tensor(&L->wv);
        ls[l].wo = srt__backend_tensor(&L->wo); ls[l].gate = srt__backend_tensor(&L->gate); ls[l].up = srt__backend_tensor(&L->up);
        ls[l].down = srt__backend_tensor(&L->down);
    }
    bm.layers = ls;
    err[0] = 0;
    st = b->load(b, &bm, &m->bk_model, err, sizeof err);
    SRT_FREE(ls);
    if (st != SRT_OK) { m->bk_model = NULL; return srt__fail(st, "backend %s: %s", b->name ? b->name : "?", err); }
    m->backend = b;
    m->info.backend = b->name ? b->name : "?";
    return SRT_OK;
}
SRT_API void srt_backend_free(srt_backend *b) { if (b && b->destroy) b->destroy(b); }

SRT_API srt_status srt_model_load(const char *path, const srt_model_desc *desc, srt_model **out) {
    srt_model_desc d;
    srt_allocator a;
    srt_model *m;
    srt_status st;
    uint32_t i;
    if (!path || !out) return srt__fail(SRT_ERR_INVALID_ARG, "srt_model_load: NULL argument");
    *out = NULL;
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.n_threads < 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_model_load: n_threads %d < 0", d.n_threads);
    if ((int)d.load < SRT_LOAD_AUTO || (int)d.load > SRT_LOAD_COPY) return srt__fail(SRT_ERR_INVALID_ARG, "srt_model_load: unknown load mode %d", (int)d.load);
    a = srt__resolve_allocator(&d.allocator);
    m = (srt_model *)srt__alloc(&a, sizeof *m);
    if (!m) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_model_load: out of memory");
    m->alloc = a;
    st = srt__model_open(m, path, &d);
    if (st == SRT_OK) {
        if (d.pool) m->pool = d.pool;
        else {
            srt_pool_desc pd;
            memset(&pd, 0, sizeof pd);
            pd.n_threads = d.n_threads;
            pd.cores = d.cores; pd.cpu_list = d.cpu_list; pd.pin = d.pin;
            st = srt_pool_create(&pd, &m->pool);
            m->own_pool = st == SRT_OK;
        }
    }
    if (st != SRT_OK) { srt_model_free(m); return st; }
    m->isa = srt_isa_resolve(d.isa);
    srt__vec_ops_for(m->isa, &m->ops);
    /* info */
    memset(&m->info, 0, sizeof m->info);
    m->info.architecture = m->arch;
    if (!srt_model_meta_str(m, "general.name", &m->info.name)) m->info.name = "";
    m->info.n_vocab = m->n_vocab; m->info.n_embd = m->n_embd; m->info.n_ff = m->n_ff; m->info.n_layer = m->n_layer;
    m->info.n_head = m->n_head; m->info.n_head_kv = m->n_head_kv; m->info.head_dim = m->head_dim; m->info.n_ctx_train = m->n_ctx_train;
    for (i = 0, m->info.n_swa_layers = 0; m->layers && i < (uint32_t)m->n_layer; i++) m->info.n_swa_layers += m->layers[i].swa;
    m->info.swa_window = m->info.n_swa_layers ? m->swa_window : 0;
    m->info.n_expert = m->n_expert; m->info.n_expert_used = m->n_expert_used;
    m->info.file_bytes = m->map.size;
    m->info.load = m->map.block ? SRT_LOAD_COPY : SRT_LOAD_MMAP;
    m->info.bos = m->vocab.bos; m->info.eos = m->vocab.eos;
    {   /* info.format: the format holding the most bytes of matrices (not the largest one, which
           is often an embedding kept in another format than the layers) */
        uint64_t by_format[SRT_FORMAT_COUNT] = {0};
        int f;
        for (i = 0; i < m->n_tensors; i++) {
            uint64_t b = 0;
            int j;
            for (j = 0; j < m->tensors[i].n_parts; j++) b += m->tensors[i].part_size[j];
            m->info.weight_bytes += b;
            if (m->tensors[i].w.rows > 1) by_format[m->tensors[i].w.format] += b;
        }
        for (f = 1; f < SRT_FORMAT_COUNT; f++) if (by_format[f] > by_format[m->info.format]) m->info.format = (srt_format)f;
        m->info.token_bytes = srt__token_bytes(m);
    }
    m->info.backend = "cpu";
    if (d.backend && m->n_tensors > 0 && (st = srt__backend_load(m, d.backend)) != SRT_OK) { srt_model_free(m); return st; }
    *out = m;
    return SRT_OK;
}

SRT_API void srt_model_get_info(const srt_model *m, srt_model_info *info) { if (m && info) *info = m->info; }

/* ---------------------------------------------------------------- 10 tokenizer */
/* Two kinds of vocabulary, tokenized as llama.cpp tokenizes GGUF files (which matches the Hugging
   Face tokenizers the vocabularies come from):
   - tokenizer.ggml.model "llama": SentencePiece-style BPE. Spaces become U+2581, a dummy-prefix
     space is added, the text is split into UTF-8 characters, and adjacent symbols are merged
     best-score-first (ties: leftmost) while the merged piece is in the vocab; characters not in the
     vocab fall back to <0xNN> byte tokens.
   - "gpt2": byte-level BPE. A pre-tokenizer chosen by tokenizer.ggml.pre cuts the text into words
     (each model family's splitting regexes, written below as small matchers over Unicode classes);
     a word's bytes become GPT-2's printable stand-in characters, one symbol per byte, and adjacent
     symbols are merged in the order of tokenizer.ggml.merges (lowest rank first, ties leftmost).
     Llama-3-style vocabs (ignore_merges) take a word that is itself a token as it is.
   Before either, the text is cut at special tokens: user-defined tokens (added tokens that are not
   special, such as GPT-NeoX's runs of spaces) always, control and unknown tokens only with
   SRT_TOKENIZE_PARSE_SPECIAL. */

/* ---- BEGIN GENERATED UNICODE TABLE (tools/gen-unicode.c); do not edit */
/* From UnicodeData.txt and PropList.txt of Unicode 15.0.0. Character classes: */
enum {
    SRT__UC_OTHER = 0,     /* Cc that is not white space, Cf, Cs, Co, Cn (unassigned) */
    SRT__UC_SPACE = 1,     /* White_Space (PropList.txt); wins over the category */
    SRT__UC_UPPER = 2,     /* Lu, Lt */
    SRT__UC_LOWER = 3,     /* Ll */
    SRT__UC_LETTER = 4,    /* Lm, Lo */
    SRT__UC_MARK = 5,      /* Mn, Mc, Me */
    SRT__UC_NUMBER = 6,    /* Nd, Nl, No */
    SRT__UC_PUNCT = 7,     /* Pc, Pd, Ps, Pe, Pi, Pf, Po */
    SRT__UC_SYMBOL = 8,    /* Sm, Sc, Sk, So */
    SRT__UC_SEPARATOR = 9, /* Zs, Zl, Zp that are not White_Space */
    SRT__UC_COUNT
};
/* class of each ASCII character */
static const unsigned char srt__uc_ascii[128] = {
    0,0,0,0,0,0,0,0,0,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    1,7,7,7,8,7,7,7,7,7,7,8,7,7,7,7,6,6,6,6,6,6,6,6,6,6,7,7,8,8,8,7,
    7,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,7,7,7,8,7,
    8,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,7,8,7,8,0
};
/* runs of equal class: (first code point << 4) | class, in code point order; a run lasts up to
   the next entry (the last one up to U+10FFFF) */
#define SRT__UC_RUNS 3455
static const uint32_t srt__uc_runs[SRT__UC_RUNS] = {
    0x0000000, 0x0000091, 0x00000e0, 0x0000201, 0x0000217, 0x0000248, 0x0000257, 0x00002b8, 0x00002c7, 0x0000306,
    0x00003a7, 0x00003c8, 0x00003f7, 0x0000412, 0x00005b7, 0x00005e8, 0x00005f7, 0x0000608, 0x0000613, 0x00007b7,
    0x00007c8, 0x00007d7, 0x00007e8, 0x00007f0, 0x0000851, 0x0000860, 0x0000a01, 0x0000a17, 0x0000a28, 0x0000a77,
    0x0000a88, 0x0000aa4, 0x0000ab7, 0x0000ac8, 0x0000ad0, 0x0000ae8, 0x0000b26, 0x0000b48, 0x0000b53, 0x0000b67,
    0x0000b88, 0x0000b96, 0x0000ba4, 0x0000bb7, 0x0000bc6, 0x0000bf7, 0x0000c02, 0x0000d78, 0x0000d82, 0x0000df3,
    0x0000f78, 0x0000f83, 0x0001002, 0x0001013, 0x0001022, 0x0001033, 0x0001042, 0x0001053, 0x0001062, 0x0001073,
    0x0001082, 0x0001093, 0x00010a2, 0x00010b3, 0x00010c2, 0x00010d3, 0x00010e2, 0x00010f3, 0x0001102, 0x0001113,
    0x0001122, 0x0001133, 0x0001142, 0x0001153, 0x0001162, 0x0001173, 0x0001182, 0x0001193, 0x00011a2, 0x00011b3,
    0x00011c2, 0x00011d3, 0x00011e2, 0x00011f3, 0x0001202, 0x0001213, 0x0001222, 0x0001233, 0x0001242, 0x0001253,
    0x0001262, 0x0001273, 0x0001282, 0x0001293, 0x00012a2, 0x00012b3, 0x00012c2, 0x00012d3, 0x00012e2, 0x00012f3,
    0x0001302, 0x0001313, 0x0001322, 0x0001333, 0x0001342, 0x0001353, 0x0001362, 0x0001373, 0x0001392, 0x00013a3,
    0x00013b2, 0x00013c3, 0x00013d2, 0x00013e3, 0x00013f2, 0x0001403, 0x0001412, 0x0001423, 0x0001432, 0x0001443,
    0x0001452, 0x0001463, 0x0001472, 0x0001483, 0x00014a2, 0x00014b3, 0x00014c2, 0x00014d3, 0x00014e2, 0x00014f3,
    0x0001502, 0x0001513, 0x0001522, 0x0001533, 0x0001542, 0x0001553, 0x0001562, 0x0001573, 0x0001582, 0x0001593,
    0x00015a2, 0x00015b3, 0x00015c2, 0x00015d3, 0x00015e2, 0x00015f3, 0x0001602, 0x0001613, 0x0001622, 0x0001633,
    0x0001642, 0x0001653, 0x0001662, 0x0001673, 0x0001682, 0x0001693, 0x00016a2, 0x00016b3, 0x00016c2, 0x00016d3,
    0x00016e2, 0x00016f3, 0x0001702, 0x0001713, 0x0001722, 0x0001733, 0x0001742, 0x0001753, 0x0001762, 0x0001773,
    0x0001782, 0x00017a3, 0x00017b2, 0x00017c3, 0x00017d2, 0x00017e3, 0x0001812, 0x0001833, 0x0001842, 0x0001853,
    0x0001862, 0x0001883, 0x0001892, 0x00018c3, 0x00018e2, 0x0001923, 0x0001932, 0x0001953, 0x0001962, 0x0001993,
    0x00019c2, 0x00019e3, 0x00019f2, 0x0001a13, 0x0001a22, 0x0001a33, 0x0001a42, 0x0001a53, 0x0001a62, 0x0001a83,
    0x0001a92, 0x0001aa3, 0x0001ac2, 0x0001ad3, 0x0001ae2, 0x0001b03, 0x0001b12, 0x0001b43, 0x0001b52, 0x0001b63,
    0x0001b72, 0x0001b93, 0x0001bb4, 0x0001bc2, 0x0001bd3, 0x0001c04, 0x0001c42, 0x0001c63, 0x0001c72, 0x0001c93,
    0x0001ca2, 0x0001cc3, 0x0001cd2, 0x0001ce3, 0x0001cf2, 0x0001d03, 0x0001d12, 0x0001d23, 0x0001d32, 0x0001d43,
    0x0001d52, 0x0001d63, 0x0001d72, 0x0001d83, 0x0001d92, 0x0001da3, 0x0001db2, 0x0001dc3, 0x0001de2, 0x0001df3,
    0x0001e02, 0x0001e13, 0x0001e22, 0x0001e33, 0x0001e42, 0x0001e53, 0x0001e62, 0x0001e73, 0x0001e82, 0x0001e93,
    0x0001ea2, 0x0001eb3, 0x0001ec2, 0x0001ed3, 0x0001ee2, 0x0001ef3, 0x0001f12, 0x0001f33, 0x0001f42, 0x0001f53,
    0x0001f62, 0x0001f93, 0x0001fa2, 0x0001fb3, 0x0001fc2, 0x0001fd3, 0x0001fe2, 0x0001ff3, 0x0002002, 0x0002013,
    0x0002022, 0x0002033, 0x0002042, 0x0002053, 0x0002062, 0x0002073, 0x0002082, 0x0002093, 0x00020a2, 0x00020b3,
    0x00020c2, 0x00020d3, 0x00020e2, 0x00020f3, 0x0002102, 0x0002113, 0x0002122, 0x0002133, 0x0002142, 0x0002153,
    0x0002162, 0x0002173, 0x0002182, 0x0002193, 0x00021a2, 0x00021b3, 0x00021c2, 0x00021d3, 0x00021e2, 0x00021f3,
    0x0002202, 0x0002213, 0x0002222, 0x0002233, 0x0002242, 0x0002253, 0x0002262, 0x0002273, 0x0002282, 0x0002293,
    0x00022a2, 0x00022b3, 0x00022c2, 0x00022d3, 0x00022e2, 0x00022f3, 0x0002302, 0x0002313, 0x0002322, 0x0002333,
    0x00023a2, 0x00023c3, 0x00023d2, 0x00023f3, 0x0002412, 0x0002423, 0x0002432, 0x0002473, 0x0002482, 0x0002493,
    0x00024a2, 0x00024b3, 0x00024c2, 0x00024d3, 0x00024e2, 0x00024f3, 0x0002944, 0x0002953, 0x0002b04, 0x0002c28,
    0x0002c64, 0x0002d28, 0x0002e04, 0x0002e58, 0x0002ec4, 0x0002ed8, 0x0002ee4, 0x0002ef8, 0x0003005, 0x0003702,
    0x0003713, 0x0003722, 0x0003733, 0x0003744, 0x0003758, 0x0003762, 0x0003773, 0x0003780, 0x00037a4, 0x00037b3,
    0x00037e7, 0x00037f2, 0x0003800, 0x0003848, 0x0003862, 0x0003877, 0x0003882, 0x00038b0, 0x00038c2, 0x00038d0,
    0x00038e2, 0x0003903, 0x0003912, 0x0003a20, 0x0003a32, 0x0003ac3, 0x0003cf2, 0x0003d03, 0x0003d22, 0x0003d53,
    0x0003d82, 0x0003d93, 0x0003da2, 0x0003db3, 0x0003dc2, 0x0003dd3, 0x0003de2, 0x0003df3, 0x0003e02, 0x0003e13,
    0x0003e22, 0x0003e33, 0x0003e42, 0x0003e53, 0x0003e62, 0x0003e73, 0x0003e82, 0x0003e93, 0x0003ea2, 0x0003eb3,
    0x0003ec2, 0x0003ed3, 0x0003ee2, 0x0003ef3, 0x0003f42, 0x0003f53, 0x0003f68, 0x0003f72, 0x0003f83, 0x0003f92,
    0x0003fb3, 0x0003fd2, 0x0004303, 0x0004602, 0x0004613, 0x0004622, 0x0004633, 0x0004642, 0x0004653, 0x0004662,
    0x0004673, 0x0004682, 0x0004693, 0x00046a2, 0x00046b3, 0x00046c2, 0x00046d3, 0x00046e2, 0x00046f3, 0x0004702,
    0x0004713, 0x0004722, 0x0004733, 0x0004742, 0x0004753, 0x0004762, 0x0004773, 0x0004782, 0x0004793, 0x00047a2,
    0x00047b3, 0x00047c2, 0x00047d3, 0x00047e2, 0x00047f3, 0x0004802, 0x0004813, 0x0004828, 0x0004835, 0x00048a2,
    0x00048b3, 0x00048c2, 0x00048d3, 0x00048e2, 0x00048f3, 0x0004902, 0x0004913, 0x0004922, 0x0004933, 0x0004942,
    0x0004953, 0x0004962, 0x0004973, 0x0004982, 0x0004993, 0x00049a2, 0x00049b3, 0x00049c2, 0x00049d3, 0x00049e2,
    0x00049f3, 0x0004a02, 0x0004a13, 0x0004a22, 0x0004a33, 0x0004a42, 0x0004a53, 0x0004a62, 0x0004a73, 0x0004a82,
    0x0004a93, 0x0004aa2, 0x0004ab3, 0x0004ac2, 0x0004ad3, 0x0004ae2, 0x0004af3, 0x0004b02, 0x0004b13, 0x0004b22,
    0x0004b33, 0x0004b42, 0x0004b53, 0x0004b62, 0x0004b73, 0x0004b82, 0x0004b93, 0x0004ba2, 0x0004bb3, 0x0004bc2,
    0x0004bd3, 0x0004be2, 0x0004bf3, 0x0004c02, 0x0004c23, 0x0004c32, 0x0004c43, 0x0004c52, 0x0004c63, 0x0004c72,
    0x0004c83, 0x0004c92, 0x0004ca3, 0x0004cb2, 0x0004cc3, 0x0004cd2, 0x0004ce3, 0x0004d02, 0x0004d13, 0x0004d22,
    0x0004d33, 0x0004d42, 0x0004d53, 0x0004d62, 0x0004d73, 0x0004d82, 0x0004d93, 0x0004da2, 0x0004db3, 0x0004dc2,
    0x0004dd3, 0x0004de2, 0x0004df3, 0x0004e02, 0x0004e13, 0x0004e22, 0x0004e33, 0x0004e42, 0x0004e53, 0x0004e62,
    0x0004e73, 0x0004e82, 0x0004e93, 0x0004ea2, 0x0004eb3, 0x0004ec2, 0x0004ed3, 0x0004ee2, 0x0004ef3, 0x0004f02,
    0x0004f13, 0x0004f22, 0x0004f33, 0x0004f42, 0x0004f53, 0x0004f62, 0x0004f73, 0x0004f82, 0x0004f93, 0x0004fa2,
    0x0004fb3, 0x0004fc2, 0x0004fd3, 0x0004fe2, 0x0004ff3, 0x0005002, 0x0005013, 0x0005022, 0x0005033, 0x0005042,
    0x0005053, 0x0005062, 0x0005073, 0x0005082, 0x0005093, 0x00050a2, 0x00050b3, 0x00050c2, 0x00050d3, 0x00050e2,
    0x00050f3, 0x0005102, 0x0005113, 0x0005122, 0x0005133, 0x0005142, 0x0005153, 0x0005162, 0x0005173, 0x0005182,
    0x0005193, 0x00051a2, 0x00051b3, 0x00051c2, 0x00051d3, 0x00051e2, 0x00051f3, 0x0005202, 0x0005213, 0x0005222,
    0x0005233, 0x0005242, 0x0005253, 0x0005262, 0x0005273, 0x0005282, 0x0005293, 0x00052a2, 0x00052b3, 0x00052c2,
    0x00052d3, 0x00052e2, 0x00052f3, 0x0005300, 0x0005312, 0x0005570, 0x0005594, 0x00055a7, 0x0005603, 0x0005897,
    0x00058b0, 0x00058d8, 0x0005900, 0x0005915, 0x0005be7, 0x0005bf5, 0x0005c07, 0x0005c15, 0x0005c37, 0x0005c45,
    0x0005c67, 0x0005c75, 0x0005c80, 0x0005d04, 0x0005eb0, 0x0005ef4, 0x0005f37, 0x0005f50, 0x0006068, 0x0006097,
    0x00060b8, 0x00060c7, 0x00060e8, 0x0006105, 0x00061b7, 0x00061c0, 0x00061d7, 0x0006204, 0x00064b5, 0x0006606,
    0x00066a7, 0x00066e4, 0x0006705, 0x0006714, 0x0006d47, 0x0006d54, 0x0006d65, 0x0006dd0, 0x0006de8, 0x0006df5,
    0x0006e54, 0x0006e75, 0x0006e98, 0x0006ea5, 0x0006ee4, 0x0006f06, 0x0006fa4, 0x0006fd8, 0x0006ff4, 0x0007007,
    0x00070e0, 0x0007104, 0x0007115, 0x0007124, 0x0007305, 0x00074b0, 0x00074d4, 0x0007a65, 0x0007b14, 0x0007b20,
    0x0007c06, 0x0007ca4, 0x0007eb5, 0x0007f44, 0x0007f68, 0x0007f77, 0x0007fa4, 0x0007fb0, 0x0007fd5, 0x0007fe8,
    0x0008004, 0x0008165, 0x00081a4, 0x00081b5, 0x0008244, 0x0008255, 0x0008284, 0x0008295, 0x00082e0, 0x0008307,
    0x00083f0, 0x0008404, 0x0008595, 0x00085c0, 0x00085e7, 0x00085f0, 0x0008604, 0x00086b0, 0x0008704, 0x0008888,
    0x0008894, 0x00088f0, 0x0008985, 0x0008a04, 0x0008ca5, 0x0008e20, 0x0008e35, 0x0009044, 0x00093a5, 0x00093d4,
    0x00093e5, 0x0009504, 0x0009515, 0x0009584, 0x0009625, 0x0009647, 0x0009666, 0x0009707, 0x0009714, 0x0009815,
    0x0009840, 0x0009854, 0x00098d0, 0x00098f4, 0x0009910, 0x0009934, 0x0009a90, 0x0009aa4, 0x0009b10, 0x0009b24,
    0x0009b30, 0x0009b64, 0x0009ba0, 0x0009bc5, 0x0009bd4, 0x0009be5, 0x0009c50, 0x0009c75, 0x0009c90, 0x0009cb5,
    0x0009ce4, 0x0009cf0, 0x0009d75, 0x0009d80, 0x0009dc4, 0x0009de0, 0x0009df4, 0x0009e25, 0x0009e40, 0x0009e66,
    0x0009f04, 0x0009f28, 0x0009f46, 0x0009fa8, 0x0009fc4, 0x0009fd7, 0x0009fe5, 0x0009ff0, 0x000a015, 0x000a040,
    0x000a054, 0x000a0b0, 0x000a0f4, 0x000a110, 0x000a134, 0x000a290, 0x000a2a4, 0x000a310, 0x000a324, 0x000a340,
    0x000a354, 0x000a370, 0x000a384, 0x000a3a0, 0x000a3c5, 0x000a3d0, 0x000a3e5, 0x000a430, 0x000a475, 0x000a490,
    0x000a4b5, 0x000a4e0, 0x000a515, 0x000a520, 0x000a594, 0x000a5d0, 0x000a5e4, 0x000a5f0, 0x000a666, 0x000a705,
    0x000a724, 0x000a755, 0x000a767, 0x000a770, 0x000a815, 0x000a840, 0x000a854, 0x000a8e0, 0x000a8f4, 0x000a920,
    0x000a934, 0x000aa90, 0x000aaa4, 0x000ab10, 0x000ab24, 0x000ab40, 0x000ab54, 0x000aba0, 0x000abc5, 0x000abd4,
    0x000abe5, 0x000ac60, 0x000ac75, 0x000aca0, 0x000acb5, 0x000ace0, 0x000ad04, 0x000ad10, 0x000ae04, 0x000ae25,
    0x000ae40, 0x000ae66, 0x000af07, 0x000af18, 0x000af20, 0x000af94, 0x000afa5, 0x000b000, 0x000b015, 0x000b040,
    0x000b054, 0x000b0d0, 0x000b0f4, 0x000b110, 0x000b134, 0x000b290, 0x000b2a4, 0x000b310, 0x000b324, 0x000b340,
    0x000b354, 0x000b3a0, 0x000b3c5, 0x000b3d4, 0x000b3e5, 0x000b450, 0x000b475, 0x000b490, 0x000b4b5, 0x000b4e0,
    0x000b555, 0x000b580, 0x000b5c4, 0x000b5e0, 0x000b5f4, 0x000b625, 0x000b640, 0x000b666, 0x000b708, 0x000b714,
    0x000b726, 0x000b780, 0x000b825, 0x000b834, 0x000b840, 0x000b854, 0x000b8b0, 0x000b8e4, 0x000b910, 0x000b924,
    0x000b960, 0x000b994, 0x000b9b0, 0x000b9c4, 0x000b9d0, 0x000b9e4, 0x000ba00, 0x000ba34, 0x000ba50, 0x000ba84,
    0x000bab0, 0x000bae4, 0x000bba0, 0x000bbe5, 0x000bc30, 0x000bc65, 0x000bc90, 0x000bca5, 0x000bce0, 0x000bd04,
    0x000bd10, 0x000bd75, 0x000bd80, 0x000be66, 0x000bf38, 0x000bfb0, 0x000c005, 0x000c054, 0x000c0d0, 0x000c0e4,
    0x000c110, 0x000c124, 0x000c290, 0x000c2a4, 0x000c3a0, 0x000c3c5, 0x000c3d4, 0x000c3e5, 0x000c450, 0x000c465,
    0x000c490, 0x000c4a5, 0x000c4e0, 0x000c555, 0x000c570, 0x000c584, 0x000c5b0, 0x000c5d4, 0x000c5e0, 0x000c604,
    0x000c625, 0x000c640, 0x000c666, 0x000c700, 0x000c777, 0x000c786, 0x000c7f8, 0x000c804, 0x000c815, 0x000c847,
    0x000c854, 0x000c8d0, 0x000c8e4, 0x000c910, 0x000c924, 0x000ca90, 0x000caa4, 0x000cb40, 0x000cb54, 0x000cba0,
    0x000cbc5, 0x000cbd4, 0x000cbe5, 0x000cc50, 0x000cc65, 0x000cc90, 0x000cca5, 0x000cce0, 0x000cd55, 0x000cd70,
    0x000cdd4, 0x000cdf0, 0x000ce04, 0x000ce25, 0x000ce40, 0x000ce66, 0x000cf00, 0x000cf14, 0x000cf35, 0x000cf40,
    0x000d005, 0x000d044, 0x000d0d0, 0x000d0e4, 0x000d110, 0x000d124, 0x000d3b5, 0x000d3d4, 0x000d3e5, 0x000d450,
    0x000d465, 0x000d490, 0x000d4a5, 0x000d4e4, 0x000d4f8, 0x000d500, 0x000d544, 0x000d575, 0x000d586, 0x000d5f4,
    0x000d625, 0x000d640, 0x000d666, 0x000d798, 0x000d7a4, 0x000d800, 0x000d815, 0x000d840, 0x000d854, 0x000d970,
    0x000d9a4, 0x000db20, 0x000db34, 0x000dbc0, 0x000dbd4, 0x000dbe0, 0x000dc04, 0x000dc70, 0x000dca5, 0x000dcb0,
    0x000dcf5, 0x000dd50, 0x000dd65, 0x000dd70, 0x000dd85, 0x000de00, 0x000de66, 0x000df00, 0x000df25, 0x000df47,
    0x000df50, 0x000e014, 0x000e315, 0x000e324, 0x000e345, 0x000e3b0, 0x000e3f8, 0x000e404, 0x000e475, 0x000e4f7,
    0x000e506, 0x000e5a7, 0x000e5c0, 0x000e814, 0x000e830, 0x000e844, 0x000e850, 0x000e864, 0x000e8b0, 0x000e8c4,
    0x000ea40, 0x000ea54, 0x000ea60, 0x000ea74, 0x000eb15, 0x000eb24, 0x000eb45, 0x000ebd4, 0x000ebe0, 0x000ec04,
    0x000ec50, 0x000ec64, 0x000ec70, 0x000ec85, 0x000ecf0, 0x000ed06, 0x000eda0, 0x000edc4, 0x000ee00, 0x000f004,
    0x000f018, 0x000f047, 0x000f138, 0x000f147, 0x000f158, 0x000f185, 0x000f1a8, 0x000f206, 0x000f348, 0x000f355,
    0x000f368, 0x000f375, 0x000f388, 0x000f395, 0x000f3a7, 0x000f3e5, 0x000f404, 0x000f480, 0x000f494, 0x000f6d0,
    0x000f715, 0x000f857, 0x000f865, 0x000f884, 0x000f8d5, 0x000f980, 0x000f995, 0x000fbd0, 0x000fbe8, 0x000fc65,
    0x000fc78, 0x000fcd0, 0x000fce8, 0x000fd07, 0x000fd58, 0x000fd97, 0x000fdb0, 0x0010004, 0x00102b5, 0x00103f4,
    0x0010406, 0x00104a7, 0x0010504, 0x0010565, 0x00105a4, 0x00105e5, 0x0010614, 0x0010625, 0x0010654, 0x0010675,
    0x00106e4, 0x0010715, 0x0010754, 0x0010825, 0x00108e4, 0x00108f5, 0x0010906, 0x00109a5, 0x00109e8, 0x0010a02,
    0x0010c60, 0x0010c72, 0x0010c80, 0x0010cd2, 0x0010ce0, 0x0010d03, 0x0010fb7, 0x0010fc4, 0x0010fd3, 0x0011004,
    0x0012490, 0x00124a4, 0x00124e0, 0x0012504, 0x0012570, 0x0012584, 0x0012590, 0x00125a4, 0x00125e0, 0x0012604,
    0x0012890, 0x00128a4, 0x00128e0, 0x0012904, 0x0012b10, 0x0012b24, 0x0012b60, 0x0012b84, 0x0012bf0, 0x0012c04,
    0x0012c10, 0x0012c24, 0x0012c60, 0x0012c84, 0x0012d70, 0x0012d84, 0x0013110, 0x0013124, 0x0013160, 0x0013184,
    0x00135b0, 0x00135d5, 0x0013607, 0x0013696, 0x00137d0, 0x0013804, 0x0013908, 0x00139a0, 0x0013a02, 0x0013f60,
    0x0013f83, 0x0013fe0, 0x0014007, 0x0014014, 0x00166d8, 0x00166e7, 0x00166f4, 0x0016801, 0x0016814, 0x00169b7,
    0x00169d0, 0x0016a04, 0x0016eb7, 0x0016ee6, 0x0016f14, 0x0016f90, 0x0017004, 0x0017125, 0x0017160, 0x00171f4,
    0x0017325, 0x0017357, 0x0017370, 0x0017404, 0x0017525, 0x0017540, 0x0017604, 0x00176d0, 0x00176e4, 0x0017710,
    0x0017725, 0x0017740, 0x0017804, 0x0017b45, 0x0017d47, 0x0017d74, 0x0017d87, 0x0017db8, 0x0017dc4, 0x0017dd5,
    0x0017de0, 0x0017e06, 0x0017ea0, 0x0017f06, 0x0017fa0, 0x0018007, 0x00180b5, 0x00180e0, 0x00180f5, 0x0018106,
    0x00181a0, 0x0018204, 0x0018790, 0x0018804, 0x0018855, 0x0018874, 0x0018a95, 0x0018aa4, 0x0018ab0, 0x0018b04,
    0x0018f60, 0x0019004, 0x00191f0, 0x0019205, 0x00192c0, 0x0019305, 0x00193c0, 0x0019408, 0x0019410, 0x0019447,
    0x0019466, 0x0019504, 0x00196e0, 0x0019704, 0x0019750, 0x0019804, 0x0019ac0, 0x0019b04, 0x0019ca0, 0x0019d06,
    0x0019db0, 0x0019de8, 0x001a004, 0x001a175, 0x001a1c0, 0x001a1e7, 0x001a204, 0x001a555, 0x001a5f0, 0x001a605,
    0x001a7d0, 0x001a7f5, 0x001a806, 0x001a8a0, 0x001a906, 0x001a9a0, 0x001aa07, 0x001aa74, 0x001aa87, 0x001aae0,
    0x001ab05, 0x001acf0, 0x001b005, 0x001b054, 0x001b345, 0x001b454, 0x001b4d0, 0x001b506, 0x001b5a7, 0x001b618,
    0x001b6b5, 0x001b748, 0x001b7d7, 0x001b7f0, 0x001b805, 0x001b834, 0x001ba15, 0x001bae4, 0x001bb06, 0x001bba4,
    0x001be65, 0x001bf40, 0x001bfc7, 0x001c004, 0x001c245, 0x001c380, 0x001c3b7, 0x001c406, 0x001c4a0, 0x001c4d4,
    0x001c506, 0x001c5a4, 0x001c7e7, 0x001c803, 0x001c890, 0x001c902, 0x001cbb0, 0x001cbd2, 0x001cc07, 0x001cc80,
    0x001cd05, 0x001cd37, 0x001cd45, 0x001ce94, 0x001ced5, 0x001cee4, 0x001cf45, 0x001cf54, 0x001cf75, 0x001cfa4,
    0x001cfb0, 0x001d003, 0x001d2c4, 0x001d6b3, 0x001d784, 0x001d793, 0x001d9b4, 0x001dc05, 0x001e002, 0x001e013,
    0x001e022, 0x001e033, 0x001e042, 0x001e053, 0x001e062, 0x001e073, 0x001e082, 0x001e093, 0x001e0a2, 0x001e0b3,
    0x001e0c2, 0x001e0d3, 0x001e0e2, 0x001e0f3, 0x001e102, 0x001e113, 0x001e122, 0x001e133, 0x001e142, 0x001e153,
    0x001e162, 0x001e173, 0x001e182, 0x001e193, 0x001e1a2, 0x001e1b3, 0x001e1c2, 0x001e1d3, 0x001e1e2, 0x001e1f3,
    0x001e202, 0x001e213, 0x001e222, 0x001e233, 0x001e242, 0x001e253, 0x001e262, 0x001e273, 0x001e282, 0x001e293,
    0x001e2a2, 0x001e2b3, 0x001e2c2, 0x001e2d3, 0x001e2e2, 0x001e2f3, 0x001e302, 0x001e313, 0x001e322, 0x001e333,
    0x001e342, 0x001e353, 0x001e362, 0x001e373, 0x001e382, 0x001e393, 0x001e3a2, 0x001e3b3, 0x001e3c2, 0x001e3d3,
    0x001e3e2, 0x001e3f3, 0x001e402, 0x001e413, 0x001e422, 0x001e433, 0x001e442, 0x001e453, 0x001e462, 0x001e473,
    0x001e482, 0x001e493, 0x001e4a2, 0x001e4b3, 0x001e4c2, 0x001e4d3, 0x001e4e2, 0x001e4f3, 0x001e502, 0x001e513,
    0x001e522, 0x001e533, 0x001e542, 0x001e553, 0x001e562, 0x001e573, 0x001e582, 0x001e593, 0x001e5a2, 0x001e5b3,
    0x001e5c2, 0x001e5d3, 0x001e5e2, 0x001e5f3, 0x001e602, 0x001e613, 0x001e622, 0x001e633, 0x001e642, 0x001e653,
    0x001e662, 0x001e673, 0x001e682, 0x001e693, 0x001e6a2, 0x001e6b3, 0x001e6c2, 0x001e6d3, 0x001e6e2, 0x001e6f3,
    0x001e702, 0x001e713, 0x001e722, 0x001e733, 0x001e742, 0x001e753, 0x001e762, 0x001e773, 0x001e782, 0x001e793,
    0x001e7a2, 0x001e7b3, 0x001e7c2, 0x001e7d3, 0x001e7e2, 0x001e7f3, 0x001e802, 0x001e813, 0x001e822, 0x001e833,
    0x001e842, 0x001e853, 0x001e862, 0x001e873, 0x001e882, 0x001e893, 0x001e8a2, 0x001e8b3, 0x001e8c2, 0x001e8d3,
    0x001e8e2, 0x001e8f3, 0x001e902, 0x001e913, 0x001e922, 0x001e933, 0x001e942, 0x001e953, 0x001e9e2, 0x001e9f3,
    0x001ea02, 0x001ea13, 0x001ea22, 0x001ea33, 0x001ea42, 0x001ea53, 0x001ea62, 0x001ea73, 0x001ea82, 0x001ea93,
    0x001eaa2, 0x001eab3, 0x001eac2, 0x001ead3, 0x001eae2, 0x001eaf3, 0x001eb02, 0x001eb13, 0x001eb22, 0x001eb33,
    0x001eb42, 0x001eb53, 0x001eb62, 0x001eb73, 0x001eb82, 0x001eb93, 0x001eba2, 0x001ebb3, 0x001ebc2, 0x001ebd3,
    0x001ebe2, 0x001ebf3, 0x001ec02, 0x001ec13, 0x001ec22, 0x001ec33, 0x001ec42, 0x001ec53, 0x001ec62, 0x001ec73,
    0x001ec82, 0x001ec93, 0x001eca2, 0x001ecb3, 0x001ecc2, 0x001ecd3, 0x001ece2, 0x001ecf3, 0x001ed02, 0x001ed13,
    0x001ed22, 0x001ed33, 0x001ed42, 0x001ed53, 0x001ed62, 0x001ed73, 0x001ed82, 0x001ed93, 0x001eda2, 0x001edb3,
    0x001edc2, 0x001edd3, 0x001ede2, 0x001edf3, 0x001ee02, 0x001ee13, 0x001ee22, 0x001ee33, 0x001ee42, 0x001ee53,
    0x001ee62, 0x001ee73, 0x001ee82, 0x001ee93, 0x001eea2, 0x001eeb3, 0x001eec2, 0x001eed3, 0x001eee2, 0x001eef3,
    0x001ef02, 0x001ef13, 0x001ef22, 0x001ef33, 0x001ef42, 0x001ef53, 0x001ef62, 0x001ef73, 0x001ef82, 0x001ef93,
    0x001efa2, 0x001efb3, 0x001efc2, 0x001efd3, 0x001efe2, 0x001eff3, 0x001f082, 0x001f103, 0x001f160, 0x001f182,
    0x001f1e0, 0x001f203, 0x001f282, 0x001f303, 0x001f382, 0x001f403, 0x001f460, 0x001f482, 0x001f4e0, 0x001f503,
    0x001f580, 0x001f592, 0x001f5a0, 0x001f5b2, 0x001f5c0, 0x001f5d2, 0x001f5e0, 0x001f5f2, 0x001f603, 0x001f682,
    0x001f703, 0x001f7e0, 0x001f803, 0x001f882, 0x001f903, 0x001f982, 0x001fa03, 0x001fa82, 0x001fb03, 0x001fb50,
    0x001fb63, 0x001fb82, 0x001fbd8, 0x001fbe3, 0x001fbf8, 0x001fc23, 0x001fc50, 0x001fc63, 0x001fc82, 0x001fcd8,
    0x001fd03, 0x001fd40, 0x001fd63, 0x001fd82, 0x001fdc0, 0x001fdd8, 0x001fe03, 0x001fe82, 0x001fed8, 0x001ff00,
    0x001ff23, 0x001ff50, 0x001ff63, 0x001ff82, 0x001ffd8, 0x001fff0, 0x0020001, 0x00200b0, 0x0020107, 0x0020281,
    0x00202a0, 0x00202f1, 0x0020307, 0x0020448, 0x0020457, 0x0020528, 0x0020537, 0x00205f1, 0x0020600, 0x0020706,
    0x0020714, 0x0020720, 0x0020746, 0x00207a8, 0x00207d7, 0x00207f4, 0x0020806, 0x00208a8, 0x00208d7, 0x00208f0,
    0x0020904, 0x00209d0, 0x0020a08, 0x0020c10, 0x0020d05, 0x0020f10, 0x0021008, 0x0021022, 0x0021038, 0x0021072,
    0x0021088, 0x00210a3, 0x00210b2, 0x00210e3, 0x0021102, 0x0021133, 0x0021148, 0x0021152, 0x0021168, 0x0021192,
    0x00211e8, 0x0021242, 0x0021258, 0x0021262, 0x0021278, 0x0021282, 0x0021298, 0x00212a2, 0x00212e8, 0x00212f3,
    0x0021302, 0x0021343, 0x0021354, 0x0021393, 0x00213a8, 0x00213c3, 0x00213e2, 0x0021408, 0x0021452, 0x0021463,
    0x00214a8, 0x00214e3, 0x00214f8, 0x0021506, 0x0021832, 0x0021843, 0x0021856, 0x00218a8, 0x00218c0, 0x0021908,
    0x0023087, 0x00230c8, 0x0023297, 0x00232b8, 0x0024270, 0x0024408, 0x00244b0, 0x0024606, 0x00249c8, 0x0024ea6,
    0x0025008, 0x0027687, 0x0027766, 0x0027948, 0x0027c57, 0x0027c78, 0x0027e67, 0x0027f08, 0x0029837, 0x0029998,
    0x0029d87, 0x0029dc8, 0x0029fc7, 0x0029fe8, 0x002b740, 0x002b768, 0x002b960, 0x002b978, 0x002c002, 0x002c303,
    0x002c602, 0x002c613, 0x002c622, 0x002c653, 0x002c672, 0x002c683, 0x002c692, 0x002c6a3, 0x002c6b2, 0x002c6c3,
    0x002c6d2, 0x002c713, 0x002c722, 0x002c733, 0x002c752, 0x002c763, 0x002c7c4, 0x002c7e2, 0x002c813, 0x002c822,
    0x002c833, 0x002c842, 0x002c853, 0x002c862, 0x002c873, 0x002c882, 0x002c893, 0x002c8a2, 0x002c8b3, 0x002c8c2,
    0x002c8d3, 0x002c8e2, 0x002c8f3, 0x002c902, 0x002c913, 0x002c922, 0x002c933, 0x002c942, 0x002c953, 0x002c962,
    0x002c973, 0x002c982, 0x002c993, 0x002c9a2, 0x002c9b3, 0x002c9c2, 0x002c9d3, 0x002c9e2, 0x002c9f3, 0x002ca02,
    0x002ca13, 0x002ca22, 0x002ca33, 0x002ca42, 0x002ca53, 0x002ca62, 0x002ca73, 0x002ca82, 0x002ca93, 0x002caa2,
    0x002cab3, 0x002cac2, 0x002cad3, 0x002cae2, 0x002caf3, 0x002cb02, 0x002cb13, 0x002cb22, 0x002cb33, 0x002cb42,
    0x002cb53, 0x002cb62, 0x002cb73, 0x002cb82, 0x002cb93, 0x002cba2, 0x002cbb3, 0x002cbc2, 0x002cbd3, 0x002cbe2,
    0x002cbf3, 0x002cc02, 0x002cc13, 0x002cc22, 0x002cc33, 0x002cc42, 0x002cc53, 0x002cc62, 0x002cc73, 0x002cc82,
    0x002cc93, 0x002cca2, 0x002ccb3, 0x002ccc2, 0x002ccd3, 0x002cce2, 0x002ccf3, 0x002cd02, 0x002cd13, 0x002cd22,
    0x002cd33, 0x002cd42, 0x002cd53, 0x002cd62, 0x002cd73, 0x002cd82, 0x002cd93, 0x002cda2, 0x002cdb3, 0x002cdc2,
    0x002cdd3, 0x002cde2, 0x002cdf3, 0x002ce02, 0x002ce13, 0x002ce22, 0x002ce33, 0x002ce58, 0x002ceb2, 0x002cec3,
    0x002ced2, 0x002cee3, 0x002cef5, 0x002cf22, 0x002cf33, 0x002cf40, 0x002cf97, 0x002cfd6, 0x002cfe7, 0x002d003,
    0x002d260, 0x002d273, 0x002d280, 0x002d2d3, 0x002d2e0, 0x002d304, 0x002d680, 0x002d6f4, 0x002d707, 0x002d710,
    0x002d7f5, 0x002d804, 0x002d970, 0x002da04, 0x002da70, 0x002da84, 0x002daf0, 0x002db04, 0x002db70, 0x002db84,
    0x002dbf0, 0x002dc04, 0x002dc70, 0x002dc84, 0x002dcf0, 0x002dd04, 0x002dd70, 0x002dd84, 0x002ddf0, 0x002de05,
    0x002e007, 0x002e2f4, 0x002e307, 0x002e508, 0x002e527, 0x002e5e0, 0x002e808, 0x002e9a0, 0x002e9b8, 0x002ef40,
    0x002f008, 0x002fd60, 0x002ff08, 0x002ffc0, 0x0030001, 0x0030017, 0x0030048, 0x0030054, 0x0030076, 0x0030087,
    0x0030128, 0x0030147, 0x0030208, 0x0030216, 0x00302a5, 0x0030307, 0x0030314, 0x0030368, 0x0030386, 0x00303b4,
    0x00303d7, 0x00303e8, 0x0030400, 0x0030414, 0x0030970, 0x0030995, 0x00309b8, 0x00309d4, 0x0030a07, 0x0030a14,
    0x0030fb7, 0x0030fc4, 0x0031000, 0x0031054, 0x0031300, 0x0031314, 0x00318f0, 0x0031908, 0x0031926, 0x0031968,
    0x0031a04, 0x0031c08, 0x0031e40, 0x0031f04, 0x0032008, 0x00321f0, 0x0032206, 0x00322a8, 0x0032486, 0x0032508,
    0x0032516, 0x0032608, 0x0032806, 0x00328a8, 0x0032b16, 0x0032c08, 0x0034004, 0x004dc08, 0x004e004, 0x00a48d0,
    0x00a4908, 0x00a4c70, 0x00a4d04, 0x00a4fe7, 0x00a5004, 0x00a60d7, 0x00a6104, 0x00a6206, 0x00a62a4, 0x00a62c0,
    0x00a6402, 0x00a6413, 0x00a6422, 0x00a6433, 0x00a6442, 0x00a6453, 0x00a6462, 0x00a6473, 0x00a6482, 0x00a6493,
    0x00a64a2, 0x00a64b3, 0x00a64c2, 0x00a64d3, 0x00a64e2, 0x00a64f3, 0x00a6502, 0x00a6513, 0x00a6522, 0x00a6533,
    0x00a6542, 0x00a6553, 0x00a6562, 0x00a6573, 0x00a6582, 0x00a6593, 0x00a65a2, 0x00a65b3, 0x00a65c2, 0x00a65d3,
    0x00a65e2, 0x00a65f3, 0x00a6602, 0x00a6613, 0x00a6622, 0x00a6633, 0x00a6642, 0x00a6653, 0x00a6662, 0x00a6673,
    0x00a6682, 0x00a6693, 0x00a66a2, 0x00a66b3, 0x00a66c2, 0x00a66d3, 0x00a66e4, 0x00a66f5, 0x00a6737, 0x00a6745,
    0x00a67e7, 0x00a67f4, 0x00a6802, 0x00a6813, 0x00a6822, 0x00a6833, 0x00a6842, 0x00a6853, 0x00a6862, 0x00a6873,
    0x00a6882, 0x00a6893, 0x00a68a2, 0x00a68b3, 0x00a68c2, 0x00a68d3, 0x00a68e2, 0x00a68f3, 0x00a6902, 0x00a6913,
    0x00a6922, 0x00a6933, 0x00a6942, 0x00a6953, 0x00a6962, 0x00a6973, 0x00a6982, 0x00a6993, 0x00a69a2, 0x00a69b3,
    0x00a69c4, 0x00a69e5, 0x00a6a04, 0x00a6e66, 0x00a6f05, 0x00a6f27, 0x00a6f80, 0x00a7008, 0x00a7174, 0x00a7208,
    0x00a7222, 0x00a7233, 0x00a7242, 0x00a7253, 0x00a7262, 0x00a7273, 0x00a7282, 0x00a7293, 0x00a72a2, 0x00a72b3,
    0x00a72c2, 0x00a72d3, 0x00a72e2, 0x00a72f3, 0x00a7322, 0x00a7333, 0x00a7342, 0x00a7353, 0x00a7362, 0x00a7373,
    0x00a7382, 0x00a7393, 0x00a73a2, 0x00a73b3, 0x00a73c2, 0x00a73d3, 0x00a73e2, 0x00a73f3, 0x00a7402, 0x00a7413,
    0x00a7422, 0x00a7433, 0x00a7442, 0x00a7453, 0x00a7462, 0x00a7473, 0x00a7482, 0x00a7493, 0x00a74a2, 0x00a74b3,
    0x00a74c2, 0x00a74d3, 0x00a74e2, 0x00a74f3, 0x00a7502, 0x00a7513, 0x00a7522, 0x00a7533, 0x00a7542, 0x00a7553,
    0x00a7562, 0x00a7573, 0x00a7582, 0x00a7593, 0x00a75a2, 0x00a75b3, 0x00a75c2, 0x00a75d3, 0x00a75e2, 0x00a75f3,
    0x00a7602, 0x00a7613, 0x00a7622, 0x00a7633, 0x00a7642, 0x00a7653, 0x00a7662, 0x00a7673, 0x00a7682, 0x00a7693,
    0x00a76a2, 0x00a76b3, 0x00a76c2, 0x00a76d3, 0x00a76e2, 0x00a76f3, 0x00a7704, 0x00a7713, 0x00a7792, 0x00a77a3,
    0x00a77b2, 0x00a77c3, 0x00a77d2, 0x00a77f3, 0x00a7802, 0x00a7813, 0x00a7822, 0x00a7833, 0x00a7842, 0x00a7853,
    0x00a7862, 0x00a7873, 0x00a7884, 0x00a7898, 0x00a78b2, 0x00a78c3, 0x00a78d2, 0x00a78e3, 0x00a78f4, 0x00a7902,
    0x00a7913, 0x00a7922, 0x00a7933, 0x00a7962, 0x00a7973, 0x00a7982, 0x00a7993, 0x00a79a2, 0x00a79b3, 0x00a79c2,
    0x00a79d3, 0x00a79e2, 0x00a79f3, 0x00a7a02, 0x00a7a13, 0x00a7a22, 0x00a7a33, 0x00a7a42, 0x00a7a53, 0x00a7a62,
    0x00a7a73, 0x00a7a82, 0x00a7a93, 0x00a7aa2, 0x00a7af3, 0x00a7b02, 0x00a7b53, 0x00a7b62, 0x00a7b73, 0x00a7b82,
    0x00a7b93, 0x00a7ba2, 0x00a7bb3, 0x00a7bc2, 0x00a7bd3, 0x00a7be2, 0x00a7bf3, 0x00a7c02, 0x00a7c13, 0x00a7c22,
    0x00a7c33, 0x00a7c42, 0x00a7c83, 0x00a7c92, 0x00a7ca3, 0x00a7cb0, 0x00a7d02, 0x00a7d13, 0x00a7d20, 0x00a7d33,
    0x00a7d40, 0x00a7d53, 0x00a7d62, 0x00a7d73, 0x00a7d82, 0x00a7d93, 0x00a7da0, 0x00a7f24, 0x00a7f52, 0x00a7f63,
    0x00a7f74, 0x00a7fa3, 0x00a7fb4, 0x00a8025, 0x00a8034, 0x00a8065, 0x00a8074, 0x00a80b5, 0x00a80c4, 0x00a8235,
    0x00a8288, 0x00a82c5, 0x00a82d0, 0x00a8306, 0x00a8368, 0x00a83a0, 0x00a8404, 0x00a8747, 0x00a8780, 0x00a8805,
    0x00a8824, 0x00a8b45, 0x00a8c60, 0x00a8ce7, 0x00a8d06, 0x00a8da0, 0x00a8e05, 0x00a8f24, 0x00a8f87, 0x00a8fb4,
    0x00a8fc7, 0x00a8fd4, 0x00a8ff5, 0x00a9006, 0x00a90a4, 0x00a9265, 0x00a92e7, 0x00a9304, 0x00a9475, 0x00a9540,
    0x00a95f7, 0x00a9604, 0x00a97d0, 0x00a9805, 0x00a9844, 0x00a9b35, 0x00a9c17, 0x00a9ce0, 0x00a9cf4, 0x00a9d06,
    0x00a9da0, 0x00a9de7, 0x00a9e04, 0x00a9e55, 0x00a9e64, 0x00a9f06, 0x00a9fa4, 0x00a9ff0, 0x00aa004, 0x00aa295,
    0x00aa370, 0x00aa404, 0x00aa435, 0x00aa444, 0x00aa4c5, 0x00aa4e0, 0x00aa506, 0x00aa5a0, 0x00aa5c7, 0x00aa604,
    0x00aa778, 0x00aa7a4, 0x00aa7b5, 0x00aa7e4, 0x00aab05, 0x00aab14, 0x00aab25, 0x00aab54, 0x00aab75, 0x00aab94,
    0x00aabe5, 0x00aac04, 0x00aac15, 0x00aac24, 0x00aac30, 0x00aadb4, 0x00aade7, 0x00aae04, 0x00aaeb5, 0x00aaf07,
    0x00aaf24, 0x00aaf55, 0x00aaf70, 0x00ab014, 0x00ab070, 0x00ab094, 0x00ab0f0, 0x00ab114, 0x00ab170, 0x00ab204,
    0x00ab270, 0x00ab284, 0x00ab2f0, 0x00ab303, 0x00ab5b8, 0x00ab5c4, 0x00ab603, 0x00ab694, 0x00ab6a8, 0x00ab6c0,
    0x00ab703, 0x00abc04, 0x00abe35, 0x00abeb7, 0x00abec5, 0x00abee0, 0x00abf06, 0x00abfa0, 0x00ac004, 0x00d7a40,
    0x00d7b04, 0x00d7c70, 0x00d7cb4, 0x00d7fc0, 0x00f9004, 0x00fa6e0, 0x00fa704, 0x00fada0, 0x00fb003, 0x00fb070,
    0x00fb133, 0x00fb180, 0x00fb1d4, 0x00fb1e5, 0x00fb1f4, 0x00fb298, 0x00fb2a4, 0x00fb370, 0x00fb384, 0x00fb3d0,
    0x00fb3e4, 0x00fb3f0, 0x00fb404, 0x00fb420, 0x00fb434, 0x00fb450, 0x00fb464, 0x00fbb28, 0x00fbc30, 0x00fbd34,
    0x00fd3e7, 0x00fd408, 0x00fd504, 0x00fd900, 0x00fd924, 0x00fdc80, 0x00fdcf8, 0x00fdd00, 0x00fdf04, 0x00fdfc8,
    0x00fe005, 0x00fe107, 0x00fe1a0, 0x00fe205, 0x00fe307, 0x00fe530, 0x00fe547, 0x00fe628, 0x00fe637, 0x00fe648,
    0x00fe670, 0x00fe687, 0x00fe698, 0x00fe6a7, 0x00fe6c0, 0x00fe704, 0x00fe750, 0x00fe764, 0x00fefd0, 0x00ff017,
    0x00ff048, 0x00ff057, 0x00ff0b8, 0x00ff0c7, 0x00ff106, 0x00ff1a7, 0x00ff1c8, 0x00ff1f7, 0x00ff212, 0x00ff3b7,
    0x00ff3e8, 0x00ff3f7, 0x00ff408, 0x00ff413, 0x00ff5b7, 0x00ff5c8, 0x00ff5d7, 0x00ff5e8, 0x00ff5f7, 0x00ff664,
    0x00ffbf0, 0x00ffc24, 0x00ffc80, 0x00ffca4, 0x00ffd00, 0x00ffd24, 0x00ffd80, 0x00ffda4, 0x00ffdd0, 0x00ffe08,
    0x00ffe70, 0x00ffe88, 0x00ffef0, 0x00fffc8, 0x00fffe0, 0x0100004, 0x01000c0, 0x01000d4, 0x0100270, 0x0100284,
    0x01003b0, 0x01003c4, 0x01003e0, 0x01003f4, 0x01004e0, 0x0100504, 0x01005e0, 0x0100804, 0x0100fb0, 0x0101007,
    0x0101030, 0x0101076, 0x0101340, 0x0101378, 0x0101406, 0x0101798, 0x01018a6, 0x01018c8, 0x01018f0, 0x0101908,
    0x01019d0, 0x0101a08, 0x0101a10, 0x0101d08, 0x0101fd5, 0x0101fe0, 0x0102804, 0x01029d0, 0x0102a04, 0x0102d10,
    0x0102e05, 0x0102e16, 0x0102fc0, 0x0103004, 0x0103206, 0x0103240, 0x01032d4, 0x0103416, 0x0103424, 0x01034a6,
    0x01034b0, 0x0103504, 0x0103765, 0x01037b0, 0x0103804, 0x01039e0, 0x01039f7, 0x0103a04, 0x0103c40, 0x0103c84,
    0x0103d07, 0x0103d16, 0x0103d60, 0x0104002, 0x0104283, 0x0104504, 0x01049e0, 0x0104a06, 0x0104aa0, 0x0104b02,
    0x0104d40, 0x0104d83, 0x0104fc0, 0x0105004, 0x0105280, 0x0105304, 0x0105640, 0x01056f7, 0x0105702, 0x01057b0,
    0x01057c2, 0x01058b0, 0x01058c2, 0x0105930, 0x0105942, 0x0105960, 0x0105973, 0x0105a20, 0x0105a33, 0x0105b20,
    0x0105b33, 0x0105ba0, 0x0105bb3, 0x0105bd0, 0x0106004, 0x0107370, 0x0107404, 0x0107560, 0x0107604, 0x0107680,
    0x0107804, 0x0107860, 0x0107874, 0x0107b10, 0x0107b24, 0x0107bb0, 0x0108004, 0x0108060, 0x0108084, 0x0108090,
    0x01080a4, 0x0108360, 0x0108374, 0x0108390, 0x01083c4, 0x01083d0, 0x01083f4, 0x0108560, 0x0108577, 0x0108586,
    0x0108604, 0x0108778, 0x0108796, 0x0108804, 0x01089f0, 0x0108a76, 0x0108b00, 0x0108e04, 0x0108f30, 0x0108f44,
    0x0108f60, 0x0108fb6, 0x0109004, 0x0109166, 0x01091c0, 0x01091f7, 0x0109204, 0x01093a0, 0x01093f7, 0x0109400,
    0x0109804, 0x0109b80, 0x0109bc6, 0x0109be4, 0x0109c06, 0x0109d00, 0x0109d26, 0x010a004, 0x010a015, 0x010a040,
    0x010a055, 0x010a070, 0x010a0c5, 0x010a104, 0x010a140, 0x010a154, 0x010a180, 0x010a194, 0x010a360, 0x010a385,
    0x010a3b0, 0x010a3f5, 0x010a406, 0x010a490, 0x010a507, 0x010a590, 0x010a604, 0x010a7d6, 0x010a7f7, 0x010a804,
    0x010a9d6, 0x010aa00, 0x010ac04, 0x010ac88, 0x010ac94, 0x010ae55, 0x010ae70, 0x010aeb6, 0x010af07, 0x010af70,
    0x010b004, 0x010b360, 0x010b397, 0x010b404, 0x010b560, 0x010b586, 0x010b604, 0x010b730, 0x010b786, 0x010b804,
    0x010b920, 0x010b997, 0x010b9d0, 0x010ba96, 0x010bb00, 0x010c004, 0x010c490, 0x010c802, 0x010cb30, 0x010cc03,
    0x010cf30, 0x010cfa6, 0x010d004, 0x010d245, 0x010d280, 0x010d306, 0x010d3a0, 0x010e606, 0x010e7f0, 0x010e804,
    0x010eaa0, 0x010eab5, 0x010ead7, 0x010eae0, 0x010eb04, 0x010eb20, 0x010efd5, 0x010f004, 0x010f1d6, 0x010f274,
    0x010f280, 0x010f304, 0x010f465, 0x010f516, 0x010f557, 0x010f5a0, 0x010f704, 0x010f825, 0x010f867, 0x010f8a0,
    0x010fb04, 0x010fc56, 0x010fcc0, 0x010fe04, 0x010ff70, 0x0110005, 0x0110034, 0x0110385, 0x0110477, 0x01104e0,
    0x0110526, 0x0110705, 0x0110714, 0x0110735, 0x0110754, 0x0110760, 0x01107f5, 0x0110834, 0x0110b05, 0x0110bb7,
    0x0110bd0, 0x0110be7, 0x0110c25, 0x0110c30, 0x0110d04, 0x0110e90, 0x0110f06, 0x0110fa0, 0x0111005, 0x0111034,
    0x0111275, 0x0111350, 0x0111366, 0x0111407, 0x0111444, 0x0111455, 0x0111474, 0x0111480, 0x0111504, 0x0111735,
    0x0111747, 0x0111764, 0x0111770, 0x0111805, 0x0111834, 0x0111b35, 0x0111c14, 0x0111c57, 0x0111c95, 0x0111cd7,
    0x0111ce5, 0x0111d06, 0x0111da4, 0x0111db7, 0x0111dc4, 0x0111dd7, 0x0111e00, 0x0111e16, 0x0111f50, 0x0112004,
    0x0112120, 0x0112134, 0x01122c5, 0x0112387, 0x01123e5, 0x01123f4, 0x0112415, 0x0112420, 0x0112804, 0x0112870,
    0x0112884, 0x0112890, 0x01128a4, 0x01128e0, 0x01128f4, 0x01129e0, 0x01129f4, 0x0112a97, 0x0112aa0, 0x0112b04,
    0x0112df5, 0x0112eb0, 0x0112f06, 0x0112fa0, 0x0113005, 0x0113040, 0x0113054, 0x01130d0, 0x01130f4, 0x0113110,
    0x0113134, 0x0113290, 0x01132a4, 0x0113310, 0x0113324, 0x0113340, 0x0113354, 0x01133a0, 0x01133b5, 0x01133d4,
    0x01133e5, 0x0113450, 0x0113475, 0x0113490, 0x01134b5, 0x01134e0, 0x0113504, 0x0113510, 0x0113575, 0x0113580,
    0x01135d4, 0x0113625, 0x0113640, 0x0113665, 0x01136d0, 0x0113705, 0x0113750, 0x0114004, 0x0114355, 0x0114474,
    0x01144b7, 0x0114506, 0x01145a7, 0x01145c0, 0x01145d7, 0x01145e5, 0x01145f4, 0x0114620, 0x0114804, 0x0114b05,
    0x0114c44, 0x0114c67, 0x0114c74, 0x0114c80, 0x0114d06, 0x0114da0, 0x0115804, 0x0115af5, 0x0115b60, 0x0115b85,
    0x0115c17, 0x0115d84, 0x0115dc5, 0x0115de0, 0x0116004, 0x0116305, 0x0116417, 0x0116444, 0x0116450, 0x0116506,
    0x01165a0, 0x0116607, 0x01166d0, 0x0116804, 0x0116ab5, 0x0116b84, 0x0116b97, 0x0116ba0, 0x0116c06, 0x0116ca0,
    0x0117004, 0x01171b0, 0x01171d5, 0x01172c0, 0x0117306, 0x01173c7, 0x01173f8, 0x0117404, 0x0117470, 0x0118004,
    0x01182c5, 0x01183b7, 0x01183c0, 0x0118a02, 0x0118c03, 0x0118e06, 0x0118f30, 0x0118ff4, 0x0119070, 0x0119094,
    0x01190a0, 0x01190c4, 0x0119140, 0x0119154, 0x0119170, 0x0119184, 0x0119305, 0x0119360, 0x0119375, 0x0119390,
    0x01193b5, 0x01193f4, 0x0119405, 0x0119414, 0x0119425, 0x0119447, 0x0119470, 0x0119506, 0x01195a0, 0x0119a04,
    0x0119a80, 0x0119aa4, 0x0119d15, 0x0119d80, 0x0119da5, 0x0119e14, 0x0119e27, 0x0119e34, 0x0119e45, 0x0119e50,
    0x011a004, 0x011a015, 0x011a0b4, 0x011a335, 0x011a3a4, 0x011a3b5, 0x011a3f7, 0x011a475, 0x011a480, 0x011a504,
    0x011a515, 0x011a5c4, 0x011a8a5, 0x011a9a7, 0x011a9d4, 0x011a9e7, 0x011aa30, 0x011ab04, 0x011af90, 0x011b007,
    0x011b0a0, 0x011c004, 0x011c090, 0x011c0a4, 0x011c2f5, 0x011c370, 0x011c385, 0x011c404, 0x011c417, 0x011c460,
    0x011c506, 0x011c6d0, 0x011c707, 0x011c724, 0x011c900, 0x011c925, 0x011ca80, 0x011ca95, 0x011cb70, 0x011d004,
    0x011d070, 0x011d084, 0x011d0a0, 0x011d0b4, 0x011d315, 0x011d370, 0x011d3a5, 0x011d3b0, 0x011d3c5, 0x011d3e0,
    0x011d3f5, 0x011d464, 0x011d475, 0x011d480, 0x011d506, 0x011d5a0, 0x011d604, 0x011d660, 0x011d674, 0x011d690,
    0x011d6a4, 0x011d8a5, 0x011d8f0, 0x011d905, 0x011d920, 0x011d935, 0x011d984, 0x011d990, 0x011da06, 0x011daa0,
    0x011ee04, 0x011ef35, 0x011ef77, 0x011ef90, 0x011f005, 0x011f024, 0x011f035, 0x011f044, 0x011f110, 0x011f124,
    0x011f345, 0x011f3b0, 0x011f3e5, 0x011f437, 0x011f506, 0x011f5a0, 0x011fb04, 0x011fb10, 0x011fc06, 0x011fd58,
    0x011ff20, 0x011fff7, 0x0120004, 0x01239a0, 0x0124006, 0x01246f0, 0x0124707, 0x0124750, 0x0124804, 0x0125440,
    0x012f904, 0x012ff17, 0x012ff30, 0x0130004, 0x0134300, 0x0134405, 0x0134414, 0x0134475, 0x0134560, 0x0144004,
    0x0146470, 0x0168004, 0x016a390, 0x016a404, 0x016a5f0, 0x016a606, 0x016a6a0, 0x016a6e7, 0x016a704, 0x016abf0,
    0x016ac06, 0x016aca0, 0x016ad04, 0x016aee0, 0x016af05, 0x016af57, 0x016af60, 0x016b004, 0x016b305, 0x016b377,
    0x016b3c8, 0x016b404, 0x016b447, 0x016b458, 0x016b460, 0x016b506, 0x016b5a0, 0x016b5b6, 0x016b620, 0x016b634,
    0x016b780, 0x016b7d4, 0x016b900, 0x016e402, 0x016e603, 0x016e806, 0x016e977, 0x016e9b0, 0x016f004, 0x016f4b0,
    0x016f4f5, 0x016f504, 0x016f515, 0x016f880, 0x016f8f5, 0x016f934, 0x016fa00, 0x016fe04, 0x016fe27, 0x016fe34,
    0x016fe45, 0x016fe50, 0x016ff05, 0x016ff20, 0x0170004, 0x0187f80, 0x0188004, 0x018cd60, 0x018d004, 0x018d090,
    0x01aff04, 0x01aff40, 0x01aff54, 0x01affc0, 0x01affd4, 0x01afff0, 0x01b0004, 0x01b1230, 0x01b1324, 0x01b1330,
    0x01b1504, 0x01b1530, 0x01b1554, 0x01b1560, 0x01b1644, 0x01b1680, 0x01b1704, 0x01b2fc0, 0x01bc004, 0x01bc6b0,
    0x01bc704, 0x01bc7d0, 0x01bc804, 0x01bc890, 0x01bc904, 0x01bc9a0, 0x01bc9c8, 0x01bc9d5, 0x01bc9f7, 0x01bca00,
    0x01cf005, 0x01cf2e0, 0x01cf305, 0x01cf470, 0x01cf508, 0x01cfc40, 0x01d0008, 0x01d0f60, 0x01d1008, 0x01d1270,
    0x01d1298, 0x01d1655, 0x01d16a8, 0x01d16d5, 0x01d1730, 0x01d17b5, 0x01d1838, 0x01d1855, 0x01d18c8, 0x01d1aa5,
    0x01d1ae8, 0x01d1eb0, 0x01d2008, 0x01d2425, 0x01d2458, 0x01d2460, 0x01d2c06, 0x01d2d40, 0x01d2e06, 0x01d2f40,
    0x01d3008, 0x01d3570, 0x01d3606, 0x01d3790, 0x01d4002, 0x01d41a3, 0x01d4342, 0x01d44e3, 0x01d4550, 0x01d4563,
    0x01d4682, 0x01d4823, 0x01d49c2, 0x01d49d0, 0x01d49e2, 0x01d4a00, 0x01d4a22, 0x01d4a30, 0x01d4a52, 0x01d4a70,
    0x01d4a92, 0x01d4ad0, 0x01d4ae2, 0x01d4b63, 0x01d4ba0, 0x01d4bb3, 0x01d4bc0, 0x01d4bd3, 0x01d4c40, 0x01d4c53,
    0x01d4d02, 0x01d4ea3, 0x01d5042, 0x01d5060, 0x01d5072, 0x01d50b0, 0x01d50d2, 0x01d5150, 0x01d5162, 0x01d51d0,
    0x01d51e3, 0x01d5382, 0x01d53a0, 0x01d53b2, 0x01d53f0, 0x01d5402, 0x01d5450, 0x01d5462, 0x01d5470, 0x01d54a2,
    0x01d5510, 0x01d5523, 0x01d56c2, 0x01d5863, 0x01d5a02, 0x01d5ba3, 0x01d5d42, 0x01d5ee3, 0x01d6082, 0x01d6223,
    0x01d63c2, 0x01d6563, 0x01d6702, 0x01d68a3, 0x01d6a60, 0x01d6a82, 0x01d6c18, 0x01d6c23, 0x01d6db8, 0x01d6dc3,
    0x01d6e22, 0x01d6fb8, 0x01d6fc3, 0x01d7158, 0x01d7163, 0x01d71c2, 0x01d7358, 0x01d7363, 0x01d74f8, 0x01d7503,
    0x01d7562, 0x01d76f8, 0x01d7703, 0x01d7898, 0x01d78a3, 0x01d7902, 0x01d7a98, 0x01d7aa3, 0x01d7c38, 0x01d7c43,
    0x01d7ca2, 0x01d7cb3, 0x01d7cc0, 0x01d7ce6, 0x01d8008, 0x01da005, 0x01da378, 0x01da3b5, 0x01da6d8, 0x01da755,
    0x01da768, 0x01da845, 0x01da858, 0x01da877, 0x01da8c0, 0x01da9b5, 0x01daa00, 0x01daa15, 0x01dab00, 0x01df003,
    0x01df0a4, 0x01df0b3, 0x01df1f0, 0x01df253, 0x01df2b0, 0x01e0005, 0x01e0070, 0x01e0085, 0x01e0190, 0x01e01b5,
    0x01e0220, 0x01e0235, 0x01e0250, 0x01e0265, 0x01e02b0, 0x01e0304, 0x01e06e0, 0x01e08f5, 0x01e0900, 0x01e1004,
    0x01e12d0, 0x01e1305, 0x01e1374, 0x01e13e0, 0x01e1406, 0x01e14a0, 0x01e14e4, 0x01e14f8, 0x01e1500, 0x01e2904,
    0x01e2ae5, 0x01e2af0, 0x01e2c04, 0x01e2ec5, 0x01e2f06, 0x01e2fa0, 0x01e2ff8, 0x01e3000, 0x01e4d04, 0x01e4ec5,
    0x01e4f06, 0x01e4fa0, 0x01e7e04, 0x01e7e70, 0x01e7e84, 0x01e7ec0, 0x01e7ed4, 0x01e7ef0, 0x01e7f04, 0x01e7ff0,
    0x01e8004, 0x01e8c50, 0x01e8c76, 0x01e8d05, 0x01e8d70, 0x01e9002, 0x01e9223, 0x01e9445, 0x01e94b4, 0x01e94c0,
    0x01e9506, 0x01e95a0, 0x01e95e7, 0x01e9600, 0x01ec716, 0x01ecac8, 0x01ecad6, 0x01ecb08, 0x01ecb16, 0x01ecb50,
    0x01ed016, 0x01ed2e8, 0x01ed2f6, 0x01ed3e0, 0x01ee004, 0x01ee040, 0x01ee054, 0x01ee200, 0x01ee214, 0x01ee230,
    0x01ee244, 0x01ee250, 0x01ee274, 0x01ee280, 0x01ee294, 0x01ee330, 0x01ee344, 0x01ee380, 0x01ee394, 0x01ee3a0,
    0x01ee3b4, 0x01ee3c0, 0x01ee424, 0x01ee430, 0x01ee474, 0x01ee480, 0x01ee494, 0x01ee4a0, 0x01ee4b4, 0x01ee4c0,
    0x01ee4d4, 0x01ee500, 0x01ee514, 0x01ee530, 0x01ee544, 0x01ee550, 0x01ee574, 0x01ee580, 0x01ee594, 0x01ee5a0,
    0x01ee5b4, 0x01ee5c0, 0x01ee5d4, 0x01ee5e0, 0x01ee5f4, 0x01ee600, 0x01ee614, 0x01ee630, 0x01ee644, 0x01ee650,
    0x01ee674, 0x01ee6b0, 0x01ee6c4, 0x01ee730, 0x01ee744, 0x01ee780, 0x01ee794, 0x01ee7d0, 0x01ee7e4, 0x01ee7f0,
    0x01ee804, 0x01ee8a0, 0x01ee8b4, 0x01ee9c0, 0x01eea14, 0x01eea40, 0x01eea54, 0x01eeaa0, 0x01eeab4, 0x01eebc0,
    0x01eef08, 0x01eef20, 0x01f0008, 0x01f02c0, 0x01f0308, 0x01f0940, 0x01f0a08, 0x01f0af0, 0x01f0b18, 0x01f0c00,
    0x01f0c18, 0x01f0d00, 0x01f0d18, 0x01f0f60, 0x01f1006, 0x01f10d8, 0x01f1ae0, 0x01f1e68, 0x01f2030, 0x01f2108,
    0x01f23c0, 0x01f2408, 0x01f2490, 0x01f2508, 0x01f2520, 0x01f2608, 0x01f2660, 0x01f3008, 0x01f6d80, 0x01f6dc8,
    0x01f6ed0, 0x01f6f08, 0x01f6fd0, 0x01f7008, 0x01f7770, 0x01f77b8, 0x01f7da0, 0x01f7e08, 0x01f7ec0, 0x01f7f08,
    0x01f7f10, 0x01f8008, 0x01f80c0, 0x01f8108, 0x01f8480, 0x01f8508, 0x01f85a0, 0x01f8608, 0x01f8880, 0x01f8908,
    0x01f8ae0, 0x01f8b08, 0x01f8b20, 0x01f9008, 0x01fa540, 0x01fa608, 0x01fa6e0, 0x01fa708, 0x01fa7d0, 0x01fa808,
    0x01fa890, 0x01fa908, 0x01fabe0, 0x01fabf8, 0x01fac60, 0x01face8, 0x01fadc0, 0x01fae08, 0x01fae90, 0x01faf08,
    0x01faf90, 0x01fb008, 0x01fb930, 0x01fb948, 0x01fbcb0, 0x01fbf06, 0x01fbfa0, 0x0200004, 0x02a6e00, 0x02a7004,
    0x02b73a0, 0x02b7404, 0x02b81e0, 0x02b8204, 0x02cea20, 0x02ceb04, 0x02ebe10, 0x02f8004, 0x02fa1e0, 0x0300004,
    0x03134b0, 0x0313504, 0x0323b00, 0x0e01005, 0x0e01f00
};
/* ---- END GENERATED UNICODE TABLE */

/* Class of a code point (SRT__UC_*); code points above U+10FFFF are OTHER. */
static int srt__uc_class(uint32_t cp) {
    int lo = 0, hi = SRT__UC_RUNS - 1;
    if (cp < 128) return srt__uc_ascii[cp];
    if (cp > 0x10FFFF) return SRT__UC_OTHER;
    while (lo < hi) {   /* the last run that starts at or before cp */
        int mid = (lo + hi + 1) / 2;
        if ((srt__uc_runs[mid] >> 4) <= cp) lo = mid; else hi = mid - 1;
    }
    return (int)(srt__uc_runs[lo] & 15);
}
static int srt__uc_is_letter(int k) { return k == SRT__UC_UPPER || k == SRT__UC_LOWER || k == SRT__UC_LETTER; }

/* One character of text that need not be valid UTF-8, read as llama.cpp reads it: a lead byte
   followed by its continuation bytes is one code point (overlong forms included); any other byte is
   a character of its own that reads as U+FFFD. Returns the length in bytes (n >= 1). */
static int srt__utf8_next(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0, i;
    if (len == 1) { *cp = c; return 1; }
    if (len == 0 || (size_t)len > n) { *cp = 0xFFFD; return 1; }
    *cp = c & (0x7Fu >> len);
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        *cp = (*cp << 6) | (s[i] & 0x3Fu);
    }
    return len;
}

/* One code point of valid UTF-8 (no overlong forms, surrogates or values past U+10FFFF): its length, 0 if invalid. */
static int srt__utf8_strict(const unsigned char *s, uint32_t *cp) {
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0, i;
    if (len <= 1) { *cp = c; return len; }
    *cp = c & (0x7Fu >> len);
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        *cp = (*cp << 6) | (s[i] & 0x3Fu);
    }
    return *cp < min[len] || (*cp >= 0xD800 && *cp < 0xE000) || *cp > 0x10FFFF ? 0 : len;
}

/* n hex digits at p as *v; 0 if one is not a hex digit. */
static int srt__hex_digits(const char *p, int n, uint32_t *v) {
    int i;
    *v = 0;
    for (i = 0; i < n; i++) {
        char c = p[i];
        uint32_t d = c >= '0' && c <= '9' ? (uint32_t)(c - '0') : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10) : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10) : 16u;
        if (d > 15) return 0;
        *v = *v * 16 + d;
    }
    return 1;
}
static uint32_t srt__hash(const char *s, uint32_t n) {
    uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }
    return h;
}
static int32_t srt__vocab_find(const srt__vocab *v, const char *s, uint32_t n) {
    uint32_t i = srt__hash(s, n) & v->hash_mask;
    for (;;) {
        int32_t id = v->hash[i];
        if (id < 0) return -1;
        if (v->piece_len[id] == n && memcmp(v->piece[id], s, n) == 0) return id;
        i = (i + 1) & v->hash_mask;
    }
}

/* GPT-2's byte-to-character map: the printable bytes ! to ~, 0xA1 to 0xAC and 0xAE to 0xFF stand for
   themselves; the other 68 bytes, in order, become U+0100 to U+0143 (0x00-0x20 -> U+0100-U+0120,
   0x7F-0xA0 -> U+0121-U+0142, 0xAD -> U+0143). */
static uint32_t srt__byte_to_cp(int b) {
    if ((b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE) return (uint32_t)b;
    return b <= 0x20 ? 256u + (uint32_t)b : b <= 0xA0 ? (uint32_t)b + 162u : 323u;
}
static int srt__cp_to_byte(uint32_t cp) {   /* -1: not a stand-in character */
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF)) return (int)cp;
    return cp >= 256 && cp <= 288 ? (int)cp - 256 : cp >= 289 && cp <= 322 ? (int)cp - 162 : cp == 323 ? 0xAD : -1;
}
/* The text of a byte-level token: each stand-in character becomes its byte, anything else is kept.
   Returns the bytes written (never more than n). */
static uint32_t srt__bpe_unmap(const unsigned char *s, uint32_t n, char *out) {
    uint32_t i = 0, w = 0;
    while (i < n) {
        uint32_t cp;
        int len = srt__utf8_next(s + i, n - i, &cp), b = srt__cp_to_byte(cp);
        if (b >= 0) out[w++] = (char)b;
        else { memcpy(out + w, s + i, (size_t)len); w += (uint32_t)len; }
        i += (uint32_t)len;
    }
    return w;
}

/* ---- pre-tokenizers */
/* Each pre-tokenizer is a list of steps, as in llama.cpp: every step splits each piece the previous
   step made into its matches and the text between them (regex-iterator semantics); the pieces of
   the last step are the words. The matchers (srt__pm_match) follow the regexes below exactly,
   including their backtracking; character classes come from the generated table (\s is
   White_Space). */
enum {
    SRT__PM_GPT2,           /* 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ */
    SRT__PM_LLAMA3,         /* (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
    SRT__PM_QWEN2,          /* the same with \p{N} (one digit) */
    SRT__PM_QWEN35,         /* the same as QWEN2 with [\p{L}\p{M}]+ for words and [^\s\p{L}\p{M}\p{N}] for the rest */
    SRT__PM_TEKKEN,         /* [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
    SRT__PM_GPT4O,          /* the same with (?i:'s|'t|'re|'ve|'m|'ll|'d)? after each word and \p{N}{1,3} */
    SRT__PM_PUNCT,          /* [\p{P}\$\+<=>\^~\|]+ */
    SRT__PM_PUNCT_TICK,     /* [\p{P}\$\+<=>\^~\|`]+ */
    SRT__PM_NUMBERS,        /* \p{N}+ */
    SRT__PM_NUMBER,         /* \p{N} */
    SRT__PM_DIGITS3,        /* [0-9][0-9][0-9] */
    SRT__PM_NEWLINE,        /* [\r\n] */
    SRT__PM_DS_LETTERS,     /* \s?[A-Za-zµÀ-ÖØ-öø-ƺ...𞤀-𞥃]+ (srt__pm_ds_letters) */
    SRT__PM_DS_PUNCT,       /* \s?[!-/:-~！-／：-～‘-‟　-。]+ */
    SRT__PM_TRAILING_SPACE, /* \s+$ */
    SRT__PM_CJK,            /* [一-龥ࠀ-一가-퟿]+ */
    SRT__PM_SPACE_LETTERS,  /* \s?\p{L}+ */
    SRT__PM_SPACE_PUNCT,    /* \s?\p{P}+ */
    SRT__PM_BLOOM,          /* " ?[^(\s|.,!?…。，、।۔،)]+" */
    SRT__PM_NUMBERS3,       /* \p{N}{1,3} */
    SRT__PM_CJK_KANA,       /* [一-龥぀-ゟ゠-ヿ]+ */
    SRT__PM_DEEPSEEK3       /* [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+ */
};
typedef struct srt__pre_def {
    const char *names;         /* the tokenizer.ggml.pre values, space-separated */
    unsigned char steps[6], n_steps;
    unsigned char ignore_merges, add_bos;   /* llama.cpp's defaults for the family */
} srt__pre_def;
/* Families and names as llama.cpp's llama_vocab::impl::load has them. A missing tokenizer.ggml.pre
   on a "gpt2" vocab means "default" (llama.cpp does the same, with a warning). */
static const srt__pre_def srt__pre_defs[] = {
    {"default", {SRT__PM_PUNCT, SRT__PM_GPT2, SRT__PM_NUMBERS, SRT__PM_DIGITS3}, 4, 0, 0},
    {"gpt-2 phi-2 mpt olmo jais trillion granite-docling exaone4 gigachat a.x-4.0 mellum", {SRT__PM_GPT2}, 1, 0, 0},
    {"llama3 llama-v3 llama-bpe falcon3 falcon-h1 pixtral midm-2.0 lfm2 jina-v5-nano", {SRT__PM_LLAMA3}, 1, 1, 1},
    {"dbrx smaug-bpe chatglm-bpe glm4", {SRT__PM_LLAMA3}, 1, 0, 0},
    {"qwen2 deepseek-r1-qwen kormo f2llmv2 stablelm2 hunyuan solar-open megrez grok-2", {SRT__PM_QWEN2}, 1, 0, 0},
    {"qwen35", {SRT__PM_QWEN35}, 1, 0, 0},
    {"deepseek-llm", {SRT__PM_NEWLINE, SRT__PM_DS_LETTERS, SRT__PM_DS_PUNCT, SRT__PM_TRAILING_SPACE, SRT__PM_CJK, SRT__PM_NUMBERS}, 6, 0, 0},
    {"deepseek-coder", {SRT__PM_NEWLINE, SRT__PM_SPACE_LETTERS, SRT__PM_SPACE_PUNCT, SRT__PM_CJK, SRT__PM_NUMBER}, 5, 0, 0},
    {"falcon", {SRT__PM_PUNCT_TICK, SRT__PM_GPT2, SRT__PM_DIGITS3}, 3, 0, 0},
    {"starcoder refact smollm command-r codeshell exaone minerva-7b mellum2", {SRT__PM_NUMBER, SRT__PM_GPT2}, 2, 0, 0},
    {"tekken", {SRT__PM_TEKKEN}, 1, 1, 1},
    {"gpt-4o llama4 kanana2 talkie minimax-m2", {SRT__PM_GPT4O}, 1, 0, 0},
    {"bloom poro-chat gpt3-finnish", {SRT__PM_BLOOM}, 1, 0, 0},
    {"viking", {SRT__PM_BLOOM, SRT__PM_NUMBER}, 2, 0, 0},
    {"deepseek-v3 hunyuan-dense joyai-llm hy_v4", {SRT__PM_NUMBERS3, SRT__PM_CJK_KANA, SRT__PM_DEEPSEEK3}, 3, 0, 0}
};
#define SRT__N_PRE ((int)(sizeof srt__pre_defs / sizeof srt__pre_defs[0]))

/* Index into srt__pre_defs of a tokenizer.ggml.pre value ("" = default), -1 if unknown. */
static int srt__pre_find(const char *name) {
    size_t n = strlen(name);
    int i;
    if (n == 0) return 0;
    for (i = 0; i < SRT__N_PRE; i++) {
        const char *p = srt__pre_defs[i].names;
        while (*p) {
            size_t k = strcspn(p, " ");
            if (k == n && memcmp(p, name, n) == 0) return i;
            p += k;
            if (*p == ' ') p++;
        }
    }
    return -1;
}

SRT_API srt_status srt_tokenizer_supported(const char *model, const char *pre) {
    if (!model) return srt__fail(SRT_ERR_INVALID_ARG, "srt_tokenizer_supported: NULL model");
    if (strcmp(model, "llama") == 0) return SRT_OK;   /* SentencePiece has no pre-tokenizer; .pre is ignored */
    if (strcmp(model, "gpt2") == 0) {
        char known[200];
        size_t w = 0;
        int i;
        if (srt__pre_find(pre ? pre : "") >= 0) return SRT_OK;
        for (i = 0; i < SRT__N_PRE; i++) {
            size_t k = strcspn(srt__pre_defs[i].names, " ");
            if (w + k + 3 >= sizeof known) break;
            memcpy(known + w, srt__pre_defs[i].names, k); w += k;
            if (i + 1 < SRT__N_PRE) { memcpy(known + w, ", ", 2); w += 2; }
        }
        known[w] = 0;
        return srt__fail(SRT_ERR_UNSUPPORTED, "byte-level BPE pre-tokenizer '%s' (tokenizer.ggml.pre) is not supported; "
                         "the families known are %s (and aliases)", pre, known);
    }
    return srt__fail(SRT_ERR_UNSUPPORTED, "tokenizer model '%s' is not supported (llama = SentencePiece, gpt2 = byte-level BPE)", model);
}

static void srt__vocab_free(srt_model *m) {
    srt__vocab *v = &m->vocab;
    srt__free(&m->alloc, (void *)v->piece); srt__free(&m->alloc, v->piece_len);
    srt__free(&m->alloc, (void *)v->text); srt__free(&m->alloc, v->text_len);
    srt__free(&m->alloc, v->score); srt__free(&m->alloc, v->type);
    srt__free(&m->alloc, v->hash); srt__free(&m->alloc, v->arena);
    srt__free(&m->alloc, v->merge);
    srt__free(&m->alloc, v->special); srt__free(&m->alloc, v->special_flags);
    memset(v, 0, sizeof *v);
}

static int srt__hexval(int c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

/* The merge table: (left, right) token pair -> rank and merged token, open addressing. */
static uint32_t srt__pair_hash(int32_t a, int32_t b) {
    uint64_t k = (((uint64_t)(uint32_t)a << 32) | (uint32_t)b) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32);
}
static const srt__merge *srt__merge_find(const srt__vocab *v, int32_t a, int32_t b) {
    uint32_t i = srt__pair_hash(a, b) & v->merge_mask;
    for (;;) {
        const srt__merge *e = &v->merge[i];
        if (e->rank < 0) return NULL;
        if (e->left == a && e->right == b) return e;
        i = (i + 1) & v->merge_mask;
    }
}

/* tokenizer.ggml.merges: "A B" per entry, rank = index. A merge whose parts or result are not
   tokens could never apply (Hugging Face refuses such files); it is skipped with a warning. */
static srt_status srt__merges_load(srt_model *m) {
    srt__vocab *v = &m->vocab;
    const srt__meta *mm = srt__find_meta(m, "tokenizer.ggml.merges");
    srt__cursor c;
    uint32_t i, size, n_skipped = 0, max_len = 0;
    char *buf;
    if (!mm) return srt__fail(SRT_ERR_FORMAT, "byte-level BPE vocabulary without tokenizer.ggml.merges");
    if (mm->type != SRT_META_ARR_STR) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.merges is not a string array");
    if (mm->count > (1u << 26)) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.merges: %u merges is too many", mm->count);
    for (size = 16; size < mm->count + mm->count / 2; size <<= 1) {}
    v->merge = (srt__merge *)srt__alloc(&m->alloc, (size_t)size * sizeof(srt__merge));
    if (!v->merge) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory for %u merges", mm->count);
    for (i = 0; i < size; i++) v->merge[i].rank = -1;
    v->merge_mask = size - 1;
    c.p = mm->val; c.end = m->map.data + m->map.size;
    for (i = 0; i < mm->count; i++) {   /* longest entry, for the scratch buffer */
        uint32_t len = 0;
        const unsigned char *sp = NULL;
        if (!srt__cur_u32(&c, &len) || !srt__cur_bytes(&c, len, &sp)) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.merges: merge %u is truncated", i);
        if (len > max_len) max_len = len;
    }
    buf = (char *)SRT_MALLOC((size_t)max_len + 1);
    if (!buf) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory for merges");
    c.p = mm->val;
    for (i = 0; i < mm->count; i++) {
        uint32_t len = 0, sep, h;
        const unsigned char *sp = NULL;
        int32_t a, b, r;
        srt__cur_u32(&c, &len); srt__cur_bytes(&c, len, &sp);
        for (sep = 1; sep < len && sp[sep] != ' '; sep++) {}   /* the first space after the first byte */
        if (sep >= len) { n_skipped++; continue; }
        a = srt__vocab_find(v, (const char *)sp, sep);
        b = srt__vocab_find(v, (const char *)sp + sep + 1, len - sep - 1);
        memcpy(buf, sp, sep); memcpy(buf + sep, sp + sep + 1, len - sep - 1);
        r = srt__vocab_find(v, buf, len - 1);
        if (a < 0 || b < 0 || r < 0) { n_skipped++; continue; }
        for (h = srt__pair_hash(a, b) & v->merge_mask; v->merge[h].rank >= 0; h = (h + 1) & v->merge_mask)
            if (v->merge[h].left == a && v->merge[h].right == b) break;
        if (v->merge[h].rank >= 0) continue;   /* a repeated pair keeps its first (best) rank */
        v->merge[h].left = a; v->merge[h].right = b; v->merge[h].rank = (int32_t)i; v->merge[h].result = r;
    }
    SRT_FREE(buf);
    if (n_skipped) srt__log(SRT_LOG_WARN, "tokenizer.ggml.merges: %u of %u merges are malformed or name pieces that are not tokens; skipped", n_skipped, mm->count);
    return SRT_OK;
}

/* Special tokens: control, user-defined and unknown tokens with a text, longest first (llama.cpp's
   order; equal lengths by id). llama.cpp's per-model attribute: Phi-3's special tokens (but <unk>,
   <s>, <|endoftext|>) strip the white space that follows them. */
enum { SRT__SPECIAL_ALWAYS = 1, SRT__SPECIAL_LSTRIP = 2, SRT__SPECIAL_RSTRIP = 4 };
static int srt__u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static srt_status srt__specials_load(srt_model *m) {
    srt__vocab *v = &m->vocab;
    const char *name = "";
    uint64_t *keys;
    int i, n = 0, phi3 = 0;
    for (i = 0; i < v->n; i++)
        if ((v->type[i] == SRT__TT_CONTROL || v->type[i] == SRT__TT_USER || v->type[i] == SRT__TT_UNKNOWN) && v->piece_len[i] > 0) n++;
    if (n == 0) return SRT_OK;
    keys = (uint64_t *)SRT_MALLOC((size_t)n * sizeof(uint64_t));
    v->special = (int32_t *)srt__alloc(&m->alloc, (size_t)n * sizeof(int32_t));
    v->special_flags = (unsigned char *)srt__alloc(&m->alloc, (size_t)n);
    if (!keys || !v->special || !v->special_flags) { SRT_FREE(keys); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory for special tokens"); }
    for (i = 0, n = 0; i < v->n; i++)
        if ((v->type[i] == SRT__TT_CONTROL || v->type[i] == SRT__TT_USER || v->type[i] == SRT__TT_UNKNOWN) && v->piece_len[i] > 0)
            keys[n++] = ((uint64_t)(0xFFFFFFFFu - v->piece_len[i]) << 32) | (uint32_t)i;
    qsort(keys, (size_t)n, sizeof(uint64_t), srt__u64_cmp);
    if (srt_model_meta_str(m, "general.name", &name)) {
        char low[64];
        size_t k;
        for (k = 0; k + 1 < sizeof low && name[k]; k++) low[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
        low[k] = 0;
        phi3 = strstr(low, "phi-3") || strstr(low, "phi3");
    }
    for (i = 0; i < n; i++) {
        int32_t id = (int32_t)(uint32_t)keys[i];
        const char *p = v->piece[id];
        v->special[i] = id;
        v->special_flags[i] = (unsigned char)(v->type[id] == SRT__TT_USER ? SRT__SPECIAL_ALWAYS : 0);
        if (phi3 && strcmp(p, "<unk>") != 0 && strcmp(p, "<s>") != 0 && strcmp(p, "<|endoftext|>") != 0)
            v->special_flags[i] |= SRT__SPECIAL_RSTRIP;
    }
    v->n_special = n;
    SRT_FREE(keys);
    return SRT_OK;
}

/* The tokens that end generation: EOS, the eot / eom ids a GGUF names, and the control tokens
   whose text ends a turn in the common chat formats (llama.cpp's rule; EXAONE's [|endofturn|] too); at
   most 8. */
static void srt__eog_add(srt__vocab *v, int32_t t) {
    int i;
    for (i = 0; i < v->n_eog && v->eog[i] != t; i++) {}
    if (t >= 0 && t < v->n && i == v->n_eog && v->n_eog < 24) v->eog[v->n_eog++] = t;
}
/* The tokens that end generation: eos, the file's eot / eom ids and its tokenizer.ggml.eog_token_ids
   (a Hugging Face folder's lists: at most 16), and the control tokens of the usual end-of-turn texts. */
static srt_status srt__eog_load(srt_model *m) {
    static const char *const turn_ends[] = {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
                                            "[|endofturn|]", "<|return|>", "<|call|>"};
    srt__vocab *v = &m->vocab;
    uint32_t id;
    int32_t r, c, e;
    int i, k;
    const srt__meta *list = srt__find_meta(m, "tokenizer.ggml.eog_token_ids");
    v->n_eog = 0;
    srt__eog_add(v, v->eos);
    if (srt_model_meta_u32(m, "tokenizer.ggml.eot_token_id", &id) && id < (uint32_t)v->n) srt__eog_add(v, (int32_t)id);
    if (srt_model_meta_u32(m, "tokenizer.ggml.eom_token_id", &id) && id < (uint32_t)v->n) srt__eog_add(v, (int32_t)id);
    if (list) {
        uint32_t j;
        if (list->type != SRT_META_ARR_U32 || list->count > 16)
            return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.eog_token_ids must be an array of at most 16 u32 token ids");
        for (j = 0; j < list->count; j++) {
            id = (uint32_t)srt__get_le(list->val + 4 * (size_t)j, 4);
            if (id >= (uint32_t)v->n) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.eog_token_ids[%u] = %u is outside the vocabulary (%d)", j, id, v->n);
            srt__eog_add(v, (int32_t)id);
        }
    }
    for (i = 0; i < (int)(sizeof turn_ends / sizeof turn_ends[0]); i++) {
        const int32_t t = srt__vocab_find(v, turn_ends[i], (uint32_t)strlen(turn_ends[i]));
        if (t >= 0 && v->type[t] == SRT__TT_CONTROL) srt__eog_add(v, t);
    }
    /* gpt-oss's harmony (llama.cpp's rule): with <|return|> and <|call|>, <|end|> closes a message (the reasoning) inside a
       reply, which ends at one of those two */
    r = srt__vocab_find(v, "<|return|>", 10); c = srt__vocab_find(v, "<|call|>", 8); e = srt__vocab_find(v, "<|end|>", 7);
    if (r >= 0 && c >= 0 && v->type[r] == SRT__TT_CONTROL && v->type[c] == SRT__TT_CONTROL && e != v->eos) {
        for (i = k = 0; i < v->n_eog; i++) if (v->eog[i] != e) v->eog[k++] = v->eog[i];
        v->n_eog = k;
    }
    return SRT_OK;
}
static int srt__is_eog(const srt__vocab *v, int32_t t) {
    int i;
    for (i = 0; i < v->n_eog; i++) if (v->eog[i] == t) return 1;
    return 0;
}
SRT_API int srt_token_is_eog(const srt_model *m, int32_t token) { return m ? srt__is_eog(&m->vocab, token) : 0; }

static srt_status srt__vocab_load(srt_model *m) {
    srt__vocab *v = &m->vocab;
    const srt__meta *tokens = srt__find_meta(m, "tokenizer.ggml.tokens"), *scores, *types;
    const char *model_name = "", *pre_name = "";
    srt__cursor c;
    uint64_t bytes = 0;
    uint32_t i, n, hsize;
    char *a;
    srt_status st;
    memset(v, 0, sizeof *v);
    v->bos = v->eos = v->unk = -1;
    for (i = 0; i < 256; i++) v->byte_token[i] = -1;
    srt_model_meta_str(m, "tokenizer.ggml.model", &model_name);
    if (!tokens) {
        if (model_name[0]) return srt__fail(SRT_ERR_FORMAT, "tokenizer '%s' has no tokenizer.ggml.tokens", model_name);
        return SRT_OK;   /* no tokenizer at all; the caller decides whether that is fatal */
    }
    if (tokens->type != SRT_META_ARR_STR) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.tokens is not a string array");
    n = tokens->count;
    if (n == 0 || n > (1u << 24)) return srt__fail(SRT_ERR_FORMAT, "vocabulary size %u out of range", n);
    scores = srt__find_meta(m, "tokenizer.ggml.scores");
    types = srt__find_meta(m, "tokenizer.ggml.token_type");
    if (scores && (scores->type != SRT_META_ARR_F32 || scores->count != n)) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.scores: expected %u f32 values", n);
    if (types && ((types->type != SRT_META_ARR_I32 && types->type != SRT_META_ARR_U32) || types->count != n))
        return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.token_type: expected %u i32 values", n);
    if (strcmp(model_name, "llama") == 0) v->kind = SRT__TOK_SPM;
    else if (strcmp(model_name, "gpt2") == 0) {
        v->kind = SRT__TOK_BPE;
        srt_model_meta_str(m, "tokenizer.ggml.pre", &pre_name);
        if ((v->pre = srt__pre_find(pre_name)) < 0) return srt_tokenizer_supported(model_name, pre_name);
        if (!pre_name[0]) srt__log(SRT_LOG_WARN, "byte-level BPE vocabulary without tokenizer.ggml.pre: using the 'default' pre-tokenizer, "
                                   "which is probably not the model's own (re-convert it with a current llama.cpp)");
        v->ignore_merges = srt__pre_defs[v->pre].ignore_merges;
    } else v->kind = SRT__TOK_UNSUPPORTED;
    /* sizes of the strings (already bounds-checked by the metadata parser) */
    c.p = tokens->val; c.end = m->map.data + m->map.size;
    for (i = 0; i < n; i++) {
        uint32_t len = 0;
        const unsigned char *sp = NULL;
        if (!srt__cur_u32(&c, &len) || !srt__cur_bytes(&c, len, &sp)) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.tokens: token %u is truncated", i);
        bytes += len;
    }
    v->n = (int)n;
    for (hsize = 1; hsize < 2 * n; hsize <<= 1) {}
    v->hash_mask = hsize - 1;
    v->piece = (const char **)srt__alloc(&m->alloc, n * sizeof *v->piece);
    v->text = (const char **)srt__alloc(&m->alloc, n * sizeof *v->text);
    v->piece_len = (uint32_t *)srt__alloc(&m->alloc, n * sizeof(uint32_t));
    v->text_len = (uint32_t *)srt__alloc(&m->alloc, n * sizeof(uint32_t));
    v->score = (float *)srt__alloc(&m->alloc, n * sizeof(float));
    v->type = (int32_t *)srt__alloc(&m->alloc, n * sizeof(int32_t));
    v->hash = (int32_t *)srt__alloc(&m->alloc, hsize * sizeof(int32_t));
    v->arena = a = (char *)srt__alloc(&m->alloc, (size_t)(2 * bytes + 2 * (uint64_t)n + 1));
    if (!v->piece || !v->text || !v->piece_len || !v->text_len || !v->score || !v->type || !v->hash || !a)
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory for a %u-token vocabulary", n);
    memset(v->hash, 0xff, hsize * sizeof(int32_t));
    c.p = tokens->val;
    for (i = 0; i < n; i++) {
        uint32_t len = 0, k, tl = 0, h;
        const unsigned char *sp = NULL;
        if (!srt__cur_u32(&c, &len) || !srt__cur_bytes(&c, len, &sp)) return srt__fail(SRT_ERR_FORMAT, "tokenizer.ggml.tokens: token %u is truncated", i);
        memcpy(a, sp, len); a[len] = 0;
        v->piece[i] = a; v->piece_len[i] = len; a += len + 1;
        v->score[i] = scores ? srt__le_f32(scores->val + 4 * i) : 0.0f;
        v->type[i] = types ? (int32_t)srt__get_le(types->val + 4 * i, 4) : SRT__TT_NORMAL;
        /* text: what the token contributes to detokenized output */
        v->text[i] = a;
        if (v->type[i] == SRT__TT_BYTE && len == 6 && memcmp(sp, "<0x", 3) == 0 && sp[5] == '>' && srt__hexval(sp[3]) >= 0 && srt__hexval(sp[4]) >= 0) {
            int b = srt__hexval(sp[3]) * 16 + srt__hexval(sp[4]);
            a[tl++] = (char)b;
            if (v->byte_token[b] < 0) v->byte_token[b] = (int32_t)i;
        } else if (v->type[i] == SRT__TT_CONTROL || v->type[i] == SRT__TT_UNUSED) {
            /* renders as nothing */
        } else if (v->kind == SRT__TOK_BPE && v->type[i] != SRT__TT_USER && v->type[i] != SRT__TT_UNKNOWN) {
            tl = srt__bpe_unmap(sp, len, a);   /* stand-in characters back to bytes */
        } else {
            for (k = 0; k < len; k++) {
                if (v->kind == SRT__TOK_SPM && k + 2 < len && sp[k] == 0xE2 && sp[k + 1] == 0x96 && sp[k + 2] == 0x81) { a[tl++] = ' '; k += 2; }
                else a[tl++] = (char)sp[k];
            }
        }
        a[tl] = 0; v->text_len[i] = tl; a += tl + 1;
        /* index; the first of duplicate pieces wins */
        h = srt__hash(v->piece[i], len) & v->hash_mask;
        while (v->hash[h] >= 0 && !(v->piece_len[v->hash[h]] == len && memcmp(v->piece[v->hash[h]], v->piece[i], len) == 0)) h = (h + 1) & v->hash_mask;
        if (v->hash[h] < 0) v->hash[h] = (int32_t)i;
    }
    {
        uint32_t id;
        const char *keys[3] = {"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id"};
        int *dst[3];
        int k;
        dst[0] = &v->bos; dst[1] = &v->eos; dst[2] = &v->unk;
        for (k = 0; k < 3; k++)
            if (srt_model_meta_u32(m, keys[k], &id)) {
                if (id >= n) return srt__fail(SRT_ERR_FORMAT, "%s = %u is outside the vocabulary (%u)", keys[k], id, n);
                *dst[k] = (int)id;
            }
    }
    if (v->kind == SRT__TOK_BPE) {
        int b;
        for (b = 0; b < 256; b++) {   /* the token of each byte's stand-in character */
            char s[2];
            uint32_t cp = srt__byte_to_cp(b);
            int len = 1;
            if (cp < 0x80) s[0] = (char)cp;
            else { s[0] = (char)(0xC0 | (cp >> 6)); s[1] = (char)(0x80 | (cp & 0x3F)); len = 2; }
            v->byte_token[b] = srt__vocab_find(v, s, (uint32_t)len);
        }
        if ((st = srt__merges_load(m)) != SRT_OK) return st;
    }
    if ((st = srt__specials_load(m)) != SRT_OK || (st = srt__eog_load(m)) != SRT_OK) return st;
    v->add_bos = srt__meta_u32_or(m, "tokenizer.ggml.add_bos_token",
                                  v->bos >= 0 && (v->kind == SRT__TOK_SPM || (v->kind == SRT__TOK_BPE && srt__pre_defs[v->pre].add_bos))) != 0;
    v->add_space_prefix = srt__meta_u32_or(m, "tokenizer.ggml.add_space_prefix", v->kind == SRT__TOK_SPM) != 0;
    return SRT_OK;
}

typedef struct srt__sym { int prev, next; const char *text; uint32_t n; } srt__sym;
/* A candidate merge of two adjacent symbols (SentencePiece: score = the piece's score; byte-level
   BPE: score = -rank, exact in a float for any real merge list) and the token it makes. */
typedef struct srt__bigram { float score; int left, right; int32_t id; uint32_t size; } srt__bigram;
typedef struct srt__ids { int32_t *p; int n, cap; int oom; } srt__ids;
static void srt__ids_push(srt__ids *a, int32_t id) {
    if (a->oom) return;
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 64;
        int32_t *np = (int32_t *)SRT_REALLOC(a->p, (size_t)cap * sizeof(int32_t));
        if (!np) { a->oom = 1; return; }
        a->p = np; a->cap = cap;
    }
    a->p[a->n++] = id;
}

/* heap of candidate merges: best = highest score, then leftmost */
static int srt__bigram_better(const srt__bigram *a, const srt__bigram *b) { return a->score > b->score || (a->score == b->score && a->left < b->left); }
static void srt__heap_push(srt__bigram *h, int *n, srt__bigram b) {
    int i = (*n)++;
    while (i > 0 && srt__bigram_better(&b, &h[(i - 1) / 2])) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
    h[i] = b;
}
static srt__bigram srt__heap_pop(srt__bigram *h, int *n) {
    srt__bigram top = h[0], last = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && srt__bigram_better(&h[c + 1], &h[c])) c++;
        if (!srt__bigram_better(&h[c], &last)) break;
        h[i] = h[c]; i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

static void srt__spm_try_bigram(const srt__vocab *v, srt__sym *sym, int left, int right, srt__bigram *heap, int *nheap) {
    int32_t id;
    srt__bigram b;
    if (left < 0 || right < 0) return;
    id = srt__vocab_find(v, sym[left].text, sym[left].n + sym[right].n);
    if (id < 0) return;
    b.score = v->score[id]; b.left = left; b.right = right; b.id = id; b.size = sym[left].n + sym[right].n;
    srt__heap_push(heap, nheap, b);
}

static srt_status srt__spm_encode(const srt__vocab *v, const char *text, size_t len, int space_prefix, srt__ids *out) {
    char *buf;
    srt__sym *sym;
    srt__bigram *heap;
    size_t i, n = 0, nsym = 0;
    int nheap = 0, k;
    if (len == 0) return SRT_OK;
    if (len > ((size_t)1 << 28)) return srt__fail(SRT_ERR_INVALID_ARG, "text of %llu bytes is too long to tokenize at once", (unsigned long long)len);
    buf = (char *)SRT_MALLOC(3 * len + 3);
    sym = (srt__sym *)SRT_MALLOC((3 * len + 3) * sizeof *sym);
    heap = (srt__bigram *)SRT_MALLOC((3 * len + 3) * 3 * sizeof *heap);
    if (!buf || !sym || !heap) { SRT_FREE(buf); SRT_FREE(sym); SRT_FREE(heap); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory"); }
    if (space_prefix) { memcpy(buf, "\xe2\x96\x81", 3); n = 3; }
    for (i = 0; i < len; i++) {
        if (text[i] == ' ') { memcpy(buf + n, "\xe2\x96\x81", 3); n += 3; }
        else buf[n++] = text[i];
    }
    for (i = 0; i < n;) {
        uint32_t cp, cl = (uint32_t)srt__utf8_next((const unsigned char *)buf + i, n - i, &cp);   /* a broken sequence: byte by byte */
        sym[nsym].text = buf + i; sym[nsym].n = cl;
        sym[nsym].prev = (int)nsym - 1; sym[nsym].next = i + cl < n ? (int)nsym + 1 : -1;
        nsym++; i += cl;
    }
    /* every merge removes one symbol and adds at most 2 bigrams: 3 * nsym bounds the heap */
    for (k = 1; k < (int)nsym; k++) srt__spm_try_bigram(v, sym, k - 1, k, heap, &nheap);
    while (nheap > 0) {
        srt__bigram b = srt__heap_pop(heap, &nheap);
        srt__sym *l = &sym[b.left], *r = &sym[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size || l->next != b.right) continue;   /* stale */
        l->n += r->n; r->n = 0;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = b.left;
        srt__spm_try_bigram(v, sym, l->prev, b.left, heap, &nheap);
        srt__spm_try_bigram(v, sym, b.left, l->next, heap, &nheap);
    }
    for (k = 0; k != -1 && nsym > 0; k = sym[k].next) {
        int32_t id = srt__vocab_find(v, sym[k].text, sym[k].n);
        if (id >= 0) srt__ids_push(out, id);
        else {
            uint32_t j;
            for (j = 0; j < sym[k].n; j++) {
                int32_t bt = v->byte_token[(unsigned char)sym[k].text[j]];
                srt__ids_push(out, bt >= 0 ? bt : v->unk >= 0 ? v->unk : 0);
            }
        }
    }
    SRT_FREE(buf); SRT_FREE(sym); SRT_FREE(heap);
    return out->oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory") : SRT_OK;
}

/* ---- byte-level BPE */
typedef struct srt__bsym { int prev, next; uint32_t n; int32_t id; } srt__bsym;
typedef struct srt__bpe {     /* one raw fragment being tokenized */
    const srt__vocab *v;
    const unsigned char *text;
    uint32_t *cp, *off;        /* per character: code point, byte offset (off[n] = end) */
    unsigned char *cls;        /* per character: SRT__UC_* */
    srt__ids *out;
    srt__bsym *sym;            /* merge scratch, grown to the longest word */
    srt__bigram *heap;
    char *enc;
    uint32_t cap;
    int oom;
    void (*on_word)(void *user, size_t off, size_t len);   /* instead of BPE: the words alone (tests) */
    void *user;
} srt__bpe;

static void srt__bpe_try_pair(const srt__vocab *v, const srt__bsym *sym, int left, int right, srt__bigram *heap, int *nheap) {
    const srt__merge *e;
    srt__bigram b;
    if (left < 0 || right < 0 || sym[left].id < 0 || sym[right].id < 0) return;
    if (!(e = srt__merge_find(v, sym[left].id, sym[right].id))) return;
    b.score = -(float)e->rank; b.left = left; b.right = right; b.id = e->result; b.size = sym[left].n + sym[right].n;
    srt__heap_push(heap, nheap, b);
}

/* BPE of one word (n >= 1 bytes). */
static void srt__bpe_word(srt__bpe *t, const unsigned char *w, uint32_t n) {
    const srt__vocab *v = t->v;
    srt__bsym *sym;
    srt__bigram *heap;
    uint32_t i;
    int nheap = 0, k;
    if (n > t->cap) {   /* every merge removes a symbol and adds at most 2 pairs: 3n bounds the heap */
        uint32_t cap = n < 64 ? 64 : n;
        SRT_FREE(t->sym); SRT_FREE(t->heap); SRT_FREE(t->enc);
        t->sym = (srt__bsym *)SRT_MALLOC((size_t)cap * sizeof(srt__bsym));
        t->heap = (srt__bigram *)SRT_MALLOC((size_t)cap * 3 * sizeof(srt__bigram));
        t->enc = (char *)SRT_MALLOC((size_t)cap * 2);
        t->cap = cap;
        if (!t->sym || !t->heap || !t->enc) { t->oom = 1; t->cap = 0; return; }
    }
    if (v->ignore_merges && n > 1) {   /* a word that is a token is taken whole */
        uint32_t len = 0;
        int32_t id;
        for (i = 0; i < n; i++) {
            uint32_t cp = srt__byte_to_cp(w[i]);
            if (cp < 0x80) t->enc[len++] = (char)cp;
            else { t->enc[len++] = (char)(0xC0 | (cp >> 6)); t->enc[len++] = (char)(0x80 | (cp & 0x3F)); }
        }
        if ((id = srt__vocab_find(v, t->enc, len)) >= 0) { srt__ids_push(t->out, id); return; }
    }
    sym = t->sym; heap = t->heap;
    for (i = 0; i < n; i++) {
        sym[i].prev = (int)i - 1; sym[i].next = i + 1 < n ? (int)i + 1 : -1;
        sym[i].n = 1; sym[i].id = v->byte_token[w[i]];
    }
    for (k = 1; k < (int)n; k++) srt__bpe_try_pair(v, sym, k - 1, k, heap, &nheap);
    while (nheap > 0) {
        srt__bigram b = srt__heap_pop(heap, &nheap);
        srt__bsym *l = &sym[b.left], *r = &sym[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size || l->next != b.right) continue;   /* stale */
        l->n += r->n; r->n = 0; l->id = b.id;
        l->next = r->next;
        if (r->next >= 0) sym[r->next].prev = b.left;
        srt__bpe_try_pair(v, sym, l->prev, b.left, heap, &nheap);
        srt__bpe_try_pair(v, sym, b.left, l->next, heap, &nheap);
    }
    for (k = 0; k != -1; k = sym[k].next)
        if (sym[k].id >= 0) srt__ids_push(t->out, sym[k].id);   /* a byte without a token is dropped, as llama.cpp does */
}

/* ---- pre-tokenizer matchers: each returns the end of the match at character p of the piece
   [.., e), or p if there is none there. */
static int srt__pm_word(int k, int marks) { return srt__uc_is_letter(k) || (marks && k == SRT__UC_MARK); }
static int srt__pm_rest(int k, int marks) { return k != SRT__UC_SPACE && k != SRT__UC_NUMBER && !srt__pm_word(k, marks); }   /* [^\s\p{L}\p{N}] */
static int srt__pm_up(int k) { return k == SRT__UC_UPPER || k == SRT__UC_LETTER || k == SRT__UC_MARK; }   /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
static int srt__pm_lo(int k) { return k == SRT__UC_LOWER || k == SRT__UC_LETTER || k == SRT__UC_MARK; }   /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
static int srt__pm_nl(uint32_t c) { return c == '\r' || c == '\n'; }

/* 's|'t|'re|'ve|'m|'ll|'d, any case if any_case */
static size_t srt__pm_contraction(const srt__bpe *t, size_t p, size_t e, int any_case) {
    uint32_t a, b;
    if (p + 1 >= e || t->cp[p] != '\'') return p;
    a = t->cp[p + 1];
    if (any_case && a >= 'A' && a <= 'Z') a += 32;
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return p + 2;
    if (p + 2 >= e) return p;
    b = t->cp[p + 2];
    if (any_case && b >= 'A' && b <= 'Z') b += 32;
    return (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') ? p + 3 : p;
}
/* \s*[\r\n]+ (if newlines) | \s+(?!\S) | \s+ */
static size_t srt__pm_space(const srt__bpe *t, size_t p, size_t e, int newlines) {
    size_t q = p, nl = 0;
    while (q < e && t->cls[q] == SRT__UC_SPACE) { if (srt__pm_nl(t->cp[q])) nl = q + 1; q++; }
    if (newlines && nl) return nl;
    return q - p > 1 && q < e ? q - 1 : q;   /* leave the last space to the word after it */
}
/* ' ?[^\s\p{L}\p{N}]+' then [\r\n]* (tail 1) or [\r\n/]* (tail 2) */
static size_t srt__pm_other(const srt__bpe *t, size_t p, size_t e, int marks, int tail) {
    size_t q = p + (t->cp[p] == ' ' && p + 1 < e && srt__pm_rest(t->cls[p + 1], marks));
    if (!srt__pm_rest(t->cls[q], marks)) return p;
    while (++q < e && srt__pm_rest(t->cls[q], marks)) {}
    while (tail && q < e && (srt__pm_nl(t->cp[q]) || (tail == 2 && t->cp[q] == '/'))) q++;
    return q;
}

static size_t srt__pm_gpt2(const srt__bpe *t, size_t p, size_t e) {
    size_t q = srt__pm_contraction(t, p, e, 0);
    int k;
    if (q > p) return q;
    q = p + (t->cp[p] == ' ' && p + 1 < e);   /* the optional leading space of the next three */
    k = t->cls[q];
    if (srt__uc_is_letter(k)) { while (++q < e && srt__uc_is_letter(t->cls[q])) {} return q; }
    if (k == SRT__UC_NUMBER) { while (++q < e && t->cls[q] == SRT__UC_NUMBER) {} return q; }
    if (k != SRT__UC_SPACE) { while (++q < e && srt__pm_rest(t->cls[q], 0)) {} return q; }
    return srt__pm_space(t, p, e, 0);
}

/* Llama 3 (max_digits 3), Qwen2 (1), Qwen3.5 (1, marks) */
static size_t srt__pm_llama3(const srt__bpe *t, size_t p, size_t e, size_t max_digits, int marks) {
    uint32_t c = t->cp[p];
    int k = t->cls[p];
    size_t q = srt__pm_contraction(t, p, e, 1);
    if (q > p) return q;
    /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    if (!srt__pm_nl(c) && k != SRT__UC_NUMBER && (srt__pm_word(k, marks) || (p + 1 < e && srt__pm_word(t->cls[p + 1], marks)))) {
        for (q = p + 1; q < e && srt__pm_word(t->cls[q], marks); q++) {}
        return q;
    }
    if (k == SRT__UC_NUMBER) {
        for (q = p + 1; q < e && q - p < max_digits && t->cls[q] == SRT__UC_NUMBER; q++) {}
        return q;
    }
    q = srt__pm_other(t, p, e, marks, 1);
    return q > p ? q : srt__pm_space(t, p, e, 1);
}

/* [Lu Lt Lm Lo M]*[Ll Lm Lo M]+ from s, with the regex's backtracking: the end, or 0 if none */
static size_t srt__pm_case_word(const srt__bpe *t, size_t s, size_t e) {
    size_t j = s, i;
    while (j < e && srt__pm_up(t->cls[j])) j++;
    if (j < e && srt__pm_lo(t->cls[j])) { while (++j < e && srt__pm_lo(t->cls[j])) {} return j; }
    for (i = j; i > s; i--) if (srt__pm_lo(t->cls[i - 1])) return i;   /* give back up to the last lower-ish one */
    return 0;
}
/* Tekken (max_digits 1) and GPT-4o (3, contractions) */
static size_t srt__pm_case(const srt__bpe *t, size_t p, size_t e, size_t max_digits, int contractions) {
    int k = t->cls[p];
    int pre = !srt__pm_nl(t->cp[p]) && !srt__uc_is_letter(k) && k != SRT__UC_NUMBER && p + 1 < e;   /* [^\r\n\p{L}\p{N}] */
    size_t q = 0;
    if (pre) q = srt__pm_case_word(t, p + 1, e);
    if (!q) q = srt__pm_case_word(t, p, e);
    if (!q) {   /* [^\r\n\p{L}\p{N}]?[Lu Lt Lm Lo M]+[Ll Lm Lo M]* */
        size_t s = pre && srt__pm_up(t->cls[p + 1]) ? p + 1 : p;
        if (srt__pm_up(t->cls[s])) {
            for (q = s + 1; q < e && srt__pm_up(t->cls[q]); q++) {}
            while (q < e && srt__pm_lo(t->cls[q])) q++;
        }
    }
    if (q) return contractions ? srt__pm_contraction(t, q, e, 1) : q;
    if (k == SRT__UC_NUMBER) {
        for (q = p + 1; q < e && q - p < max_digits && t->cls[q] == SRT__UC_NUMBER; q++) {}
        return q;
    }
    q = srt__pm_other(t, p, e, 0, 2);
    return q > p ? q : srt__pm_space(t, p, e, 1);
}

/* DeepSeek V3 */
static int srt__pm_ps(int k) { return k == SRT__UC_PUNCT || k == SRT__UC_SYMBOL; }
static int srt__pm_lm(int k) { return srt__uc_is_letter(k) || k == SRT__UC_MARK; }
static int srt__pm_ascii_alpha(uint32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static size_t srt__pm_deepseek3(const srt__bpe *t, size_t p, size_t e) {
    uint32_t c = t->cp[p];
    int k = t->cls[p];
    size_t q;
    if (c < 0x80 && srt__pm_ps(k) && p + 1 < e && srt__pm_ascii_alpha(t->cp[p + 1])) {   /* ASCII punctuation + ASCII letters */
        for (q = p + 1; q < e && srt__pm_ascii_alpha(t->cp[q]); q++) {}
        return q;
    }
    if (!srt__pm_nl(c) && !srt__uc_is_letter(k) && !srt__pm_ps(k) && p + 1 < e && srt__pm_lm(t->cls[p + 1])) q = p + 1;   /* [^\r\n\p{L}\p{P}\p{S}]? */
    else q = p;
    if (srt__pm_lm(t->cls[q])) { while (++q < e && srt__pm_lm(t->cls[q])) {} return q; }
    q = p + (c == ' ' && p + 1 < e && srt__pm_ps(t->cls[p + 1]));
    if (srt__pm_ps(t->cls[q])) {
        while (++q < e && srt__pm_ps(t->cls[q])) {}
        while (q < e && srt__pm_nl(t->cp[q])) q++;
        return q;
    }
    return srt__pm_space(t, p, e, 1);
}

/* sorted code point ranges (first, last) */
static int srt__in_ranges(uint32_t c, const uint32_t *r, int n) {
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c < r[2 * mid]) hi = mid - 1;
        else if (c > r[2 * mid + 1]) lo = mid + 1;
        else return 1;
    }
    return 0;
}
/* DeepSeek LLM's letters: the character class of its first regex (cased letters of an older Unicode) */
static const uint32_t srt__ds_letters[] = {
    0x0041,0x005A, 0x0061,0x007A, 0x00B5,0x00B5, 0x00C0,0x00D6, 0x00D8,0x00F6, 0x00F8,0x01BA, 0x01BC,0x01BF, 0x01C4,0x0293,
    0x0295,0x02AF, 0x0370,0x0373, 0x0376,0x0377, 0x037B,0x037D, 0x037F,0x037F, 0x0386,0x0386, 0x0388,0x038A, 0x038C,0x038C,
    0x038E,0x03A1, 0x03A3,0x03F5, 0x03F7,0x0481, 0x048A,0x052F, 0x0531,0x0556, 0x10A0,0x10C5, 0x13A0,0x13F5, 0x13F8,0x13FD,
    0x1C90,0x1CBA, 0x1CBD,0x1CBF, 0x1D00,0x1D2B, 0x1D6B,0x1D77, 0x1D79,0x1D9A, 0x1E00,0x1F15, 0x1F18,0x1F1D, 0x1F20,0x1F45,
    0x1F48,0x1F4D, 0x1F50,0x1F57, 0x1F59,0x1F59, 0x1F5B,0x1F5B, 0x1F5D,0x1F5D, 0x1F5F,0x1F7D, 0x1F80,0x1FB4, 0x1FB6,0x1FBC,
    0x1FBE,0x1FBE, 0x1FC2,0x1FC4, 0x1FC6,0x1FCC, 0x1FD0,0x1FD3, 0x1FD6,0x1FDB, 0x1FE0,0x1FEC, 0x1FF2,0x1FF4, 0x1FF6,0x1FFC,
    0x2102,0x2102, 0x2107,0x2107, 0x210A,0x2113, 0x2115,0x2115, 0x2119,0x211D, 0x2124,0x2124, 0x2126,0x2126, 0x2128,0x2128,
    0x212A,0x212D, 0x212F,0x2134, 0x2139,0x2139, 0x213C,0x213F, 0x2145,0x2149, 0x214E,0x214E, 0x2183,0x2184, 0x2C00,0x2C7B,
    0x2C7E,0x2CE4, 0x2CEB,0x2CEE, 0x2CF2,0x2CF3, 0xA640,0xA66D, 0xA680,0xA69B, 0xA722,0xA76F, 0xA771,0xA787, 0xA78B,0xA78E,
    0xAB70,0xABBF, 0xFB00,0xFB06, 0xFB13,0xFB17, 0xFF21,0xFF3A, 0xFF41,0xFF5A, 0x10400,0x1044F, 0x104B0,0x104D3, 0x104D8,0x104FB,
    0x10C80,0x10CB2, 0x10CC0,0x10CF2, 0x118A0,0x118DF, 0x1E900,0x1E943
};
static const uint32_t srt__ds_punct[] = {0x21,0x2F, 0x3A,0x7E, 0x2018,0x201F, 0x3000,0x3002, 0xFF01,0xFF0F, 0xFF1A,0xFF5E};
static const uint32_t srt__cjk[] = {0x0800,0x9FA5, 0xAC00,0xD7FF};   /* [一-龥ࠀ-一가-퟿] */
static const uint32_t srt__cjk_kana[] = {0x3040,0x30FF, 0x4E00,0x9FA5};   /* [一-龥぀-ゟ゠-ヿ] */
static const uint32_t srt__bloom_stop[] = {0x21,0x21, 0x28,0x29, 0x2C,0x2C, 0x2E,0x2E, 0x3F,0x3F, 0x7C,0x7C, 0x060C,0x060C,
                                          0x06D4,0x06D4, 0x0964,0x0964, 0x2026,0x2026, 0x3001,0x3002, 0xFF0C,0xFF0C};
#define SRT__NR(r) ((int)(sizeof r / sizeof r[0] / 2))

/* Is character i in the class `pm` runs over? The classes spelled with code points never hold
   white space: llama.cpp matches those regexes on text whose non-ASCII spaces became \v. */
static int srt__pm_member(const srt__bpe *t, size_t i, int pm) {
    uint32_t c = t->cp[i];
    int k = t->cls[i];
    switch (pm) {
        case SRT__PM_PUNCT: case SRT__PM_PUNCT_TICK:
            return k == SRT__UC_PUNCT || (c != 0 && c < 0x80 && strchr(pm == SRT__PM_PUNCT ? "$+<=>^~|" : "$+<=>^~|`", (int)c) != NULL);
        case SRT__PM_NUMBERS: return k == SRT__UC_NUMBER;
        case SRT__PM_DS_LETTERS: return k != SRT__UC_SPACE && srt__in_ranges(c, srt__ds_letters, SRT__NR(srt__ds_letters));
        case SRT__PM_DS_PUNCT: return k != SRT__UC_SPACE && srt__in_ranges(c, srt__ds_punct, SRT__NR(srt__ds_punct));
        case SRT__PM_CJK: return k != SRT__UC_SPACE && srt__in_ranges(c, srt__cjk, SRT__NR(srt__cjk));
        case SRT__PM_CJK_KANA: return srt__in_ranges(c, srt__cjk_kana, SRT__NR(srt__cjk_kana));
        case SRT__PM_SPACE_LETTERS: return srt__uc_is_letter(k);
        case SRT__PM_SPACE_PUNCT: return k == SRT__UC_PUNCT;
        case SRT__PM_BLOOM: return k != SRT__UC_SPACE && !srt__in_ranges(c, srt__bloom_stop, SRT__NR(srt__bloom_stop));
        default: return 0;
    }
}

static size_t srt__pm_match(const srt__bpe *t, int pm, size_t p, size_t e) {
    size_t q = p;
    switch (pm) {
        case SRT__PM_GPT2: return srt__pm_gpt2(t, p, e);
        case SRT__PM_LLAMA3: return srt__pm_llama3(t, p, e, 3, 0);
        case SRT__PM_QWEN2: return srt__pm_llama3(t, p, e, 1, 0);
        case SRT__PM_QWEN35: return srt__pm_llama3(t, p, e, 1, 1);
        case SRT__PM_TEKKEN: return srt__pm_case(t, p, e, 1, 0);
        case SRT__PM_GPT4O: return srt__pm_case(t, p, e, 3, 1);
        case SRT__PM_DEEPSEEK3: return srt__pm_deepseek3(t, p, e);
        case SRT__PM_NUMBER: return t->cls[p] == SRT__UC_NUMBER ? p + 1 : p;
        case SRT__PM_NUMBERS3:
            for (; q < e && q < p + 3 && t->cls[q] == SRT__UC_NUMBER; q++) {}
            return q;
        case SRT__PM_NEWLINE: return srt__pm_nl(t->cp[p]) ? p + 1 : p;
        case SRT__PM_DIGITS3:
            for (; q < e && q < p + 3 && t->cp[q] >= '0' && t->cp[q] <= '9'; q++) {}
            return q == p + 3 ? q : p;
        case SRT__PM_DS_LETTERS: case SRT__PM_DS_PUNCT: case SRT__PM_SPACE_LETTERS: case SRT__PM_SPACE_PUNCT:   /* \s?[..]+ */
            if (t->cls[p] == SRT__UC_SPACE && p + 1 < e && srt__pm_member(t, p + 1, pm)) q = p + 1;
            break;
        case SRT__PM_BLOOM:   /* " ?[..]+" */
            if (t->cp[p] == ' ' && p + 1 < e && srt__pm_member(t, p + 1, pm)) q = p + 1;
            break;
        default: break;   /* [..]+ */
    }
    if (!srt__pm_member(t, q, pm)) return p;
    while (++q < e && srt__pm_member(t, q, pm)) {}
    return q;
}

/* Splits [b, e) by step `step` of the pre-tokenizer (matches and the text between them are pieces)
   and hands each piece to the next step; the last step's pieces are words. */
static void srt__pre_split(srt__bpe *t, int step, size_t b, size_t e) {
    const srt__pre_def *d = &srt__pre_defs[t->v->pre];
    size_t p = b, gap = b;
    if (step == d->n_steps) {
        if (t->on_word) t->on_word(t->user, t->off[b], t->off[e] - t->off[b]);
        else srt__bpe_word(t, t->text + t->off[b], t->off[e] - t->off[b]);
        return;
    }
    if (d->steps[step] == SRT__PM_TRAILING_SPACE) {   /* \s+$: the white space that ends the piece */
        size_t s = e;
        while (s > b && t->cls[s - 1] == SRT__UC_SPACE) s--;
        if (s > b) srt__pre_split(t, step + 1, b, s);
        if (s < e) srt__pre_split(t, step + 1, s, e);
        return;
    }
    while (p < e) {
        size_t q = srt__pm_match(t, d->steps[step], p, e);
        if (q > p) {
            if (gap < p) srt__pre_split(t, step + 1, gap, p);
            srt__pre_split(t, step + 1, p, q);
            p = gap = q;
        } else p++;
    }
    if (gap < e) srt__pre_split(t, step + 1, gap, e);
}

/* Pre-tokenizes text and BPE-encodes each word into out, or with on_word set hands it the words. */
static srt_status srt__bpe_run(const srt__vocab *v, const char *text, size_t len, srt__ids *out,
                               void (*on_word)(void *, size_t, size_t), void *user) {
    srt__bpe t;
    size_t i, n = 0;
    memset(&t, 0, sizeof t);
    t.v = v; t.text = (const unsigned char *)text; t.out = out; t.on_word = on_word; t.user = user;
    t.cp = (uint32_t *)SRT_MALLOC((len ? len : 1) * sizeof(uint32_t));
    t.off = (uint32_t *)SRT_MALLOC((len + 1) * sizeof(uint32_t));
    t.cls = (unsigned char *)SRT_MALLOC(len ? len : 1);
    if (t.cp && t.off && t.cls) {
        for (i = 0; i < len; n++) {
            int cl = srt__utf8_next(t.text + i, len - i, &t.cp[n]);
            t.cls[n] = (unsigned char)srt__uc_class(t.cp[n]);
            t.off[n] = (uint32_t)i;
            i += (size_t)cl;
        }
        t.off[n] = (uint32_t)len;
        if (n) srt__pre_split(&t, 0, 0, n);
    } else t.oom = 1;
    SRT_FREE(t.cp); SRT_FREE(t.off); SRT_FREE(t.cls);
    SRT_FREE(t.sym); SRT_FREE(t.heap); SRT_FREE(t.enc);
    return t.oom || (out && out->oom) ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory") : SRT_OK;
}
static srt_status srt__bpe_encode(const srt__vocab *v, const char *text, size_t len, srt__ids *out) { return srt__bpe_run(v, text, len, out, NULL, NULL); }

/* ---- special tokens */
typedef struct srt__frag { size_t off, len; int32_t id; } srt__frag;   /* id -1: text to tokenize */
typedef struct srt__frags { srt__frag *p; int n, cap; int oom; } srt__frags;
static void srt__frags_push(srt__frags *a, size_t off, size_t len, int32_t id) {
    if (a->oom) return;
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 16;
        srt__frag *np = (srt__frag *)SRT_REALLOC(a->p, (size_t)cap * sizeof(srt__frag));
        if (!np) { a->oom = 1; return; }
        a->p = np; a->cap = cap;
    }
    a->p[a->n].off = off; a->p[a->n].len = len; a->p[a->n].id = id; a->n++;
}
static int srt__space_byte(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Cuts text at special tokens as llama.cpp does: taking the tokens longest first, each claims its
   leftmost non-overlapping occurrences in text no token has claimed yet; an lstrip/rstrip token
   also drops the white space beside it. Leaves f->n == 0 when nothing was cut. */
static srt_status srt__special_split(const srt__vocab *v, const unsigned char *s, size_t len, int parse, srt__frags *f) {
    size_t start[257], i, total = 0;
    unsigned char want[256];
    uint32_t *pos = NULL;
    unsigned char *claim = NULL;   /* 0 text, 1 token, 2 dropped space */
    int32_t *tok_at = NULL;
    int j, any = 0;
    memset(want, 0, sizeof want);
    for (j = 0; j < v->n_special; j++)
        if (parse || (v->special_flags[j] & SRT__SPECIAL_ALWAYS)) { want[(unsigned char)v->piece[v->special[j]][0]] = 1; any = 1; }
    if (!any) return SRT_OK;
    /* positions of the bytes that can start a special token, grouped by byte */
    memset(start, 0, sizeof start);
    for (i = 0; i < len; i++) if (want[s[i]]) start[s[i] + 1]++;
    for (i = 0; i < 256; i++) start[i + 1] += start[i];
    total = start[256];
    if (total == 0) return SRT_OK;
    pos = (uint32_t *)SRT_MALLOC(total * sizeof(uint32_t));
    claim = (unsigned char *)SRT_MALLOC(len);
    tok_at = (int32_t *)SRT_MALLOC(len * sizeof(int32_t));
    if (!pos || !claim || !tok_at) { SRT_FREE(pos); SRT_FREE(claim); SRT_FREE(tok_at); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory"); }
    {
        size_t fill[256];
        memcpy(fill, start, sizeof fill);
        for (i = 0; i < len; i++) if (want[s[i]]) pos[fill[s[i]]++] = (uint32_t)i;
    }
    memset(claim, 0, len);
    for (j = 0; j < v->n_special; j++) {
        int32_t id = v->special[j];
        const unsigned char *pc = (const unsigned char *)v->piece[id];
        size_t n = v->piece_len[id], k;
        int fl = v->special_flags[j];
        if (!parse && !(fl & SRT__SPECIAL_ALWAYS)) continue;
        for (k = start[pc[0]]; k < start[pc[0] + 1]; k++) {
            size_t p = pos[k], q;
            if (p + n > len) break;
            if (claim[p] || memcmp(s + p, pc, n) != 0) continue;
            for (q = p; q < p + n && !claim[q]; q++) {}
            if (q < p + n) continue;
            memset(claim + p, 1, n);
            tok_at[p] = id;
            if (fl & SRT__SPECIAL_LSTRIP) for (q = p; q > 0 && !claim[q - 1] && srt__space_byte(s[q - 1]); q--) claim[q - 1] = 2;
            if (fl & SRT__SPECIAL_RSTRIP) for (q = p + n; q < len && !claim[q] && srt__space_byte(s[q]); q++) claim[q] = 2;
        }
    }
    for (i = 0; i < len;) {
        if (claim[i] == 1) { int32_t id = tok_at[i]; srt__frags_push(f, i, v->piece_len[id], id); i += v->piece_len[id]; }
        else if (claim[i] == 2) i++;
        else { size_t b = i; while (i < len && !claim[i]) i++; srt__frags_push(f, b, i - b, -1); }
    }
    SRT_FREE(pos); SRT_FREE(claim); SRT_FREE(tok_at);
    return f->oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory") : SRT_OK;
}

static srt_status srt__tokenize(const srt_model *m, const char *text, size_t len, int flags, srt__ids *out) {
    const srt__vocab *v = &m->vocab;
    srt__frags f = {NULL, 0, 0, 0};
    srt__frag whole;
    srt_status st = SRT_OK;
    int add_bos, i;
    if (v->kind == SRT__TOK_NONE) return srt__fail(SRT_ERR_NO_TOKENIZER, "the model has no tokenizer");
    if (v->kind != SRT__TOK_SPM && v->kind != SRT__TOK_BPE) {
        const char *name = "?";
        srt_model_meta_str(m, "tokenizer.ggml.model", &name);
        return srt_tokenizer_supported(name, NULL);
    }
    if (len && !text) return srt__fail(SRT_ERR_INVALID_ARG, "srt_tokenize: NULL text");
    if (len > ((size_t)1 << 28)) return srt__fail(SRT_ERR_INVALID_ARG, "text of %llu bytes is too long to tokenize at once", (unsigned long long)len);
    add_bos = (flags & SRT_TOKENIZE_NO_BOS) ? 0 : (flags & SRT_TOKENIZE_ADD_BOS) ? 1 : v->add_bos;
    if (add_bos && v->bos >= 0) srt__ids_push(out, v->bos);
    if (len == 0) return out->oom ? srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory") : SRT_OK;
    if ((st = srt__special_split(v, (const unsigned char *)text, len, (flags & SRT_TOKENIZE_PARSE_SPECIAL) != 0, &f)) != SRT_OK) return st;
    if (f.n == 0) { whole.off = 0; whole.len = len; whole.id = -1; f.p = &whole; f.n = 1; }
    for (i = 0; i < f.n && st == SRT_OK; i++) {
        const srt__frag *g = &f.p[i];
        if (g->id >= 0) srt__ids_push(out, g->id);
        else if (v->kind == SRT__TOK_BPE) st = srt__bpe_encode(v, text + g->off, g->len, out);
        else   /* the dummy prefix: at the start (unless the text continues a sequence) and after a special token */
            st = srt__spm_encode(v, text + g->off, g->len, v->add_space_prefix && (i > 0 || !(flags & SRT_TOKENIZE_NO_SPACE_PREFIX)), out);
    }
    if (f.p != &whole) SRT_FREE(f.p);
    if (st == SRT_OK && out->oom) st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "tokenizer: out of memory");
    return st;
}

SRT_API srt_status srt_tokenize(const srt_model *m, const char *text, size_t len, int flags, int32_t *ids, int cap, int *n_out) {
    srt__ids t = {NULL, 0, 0, 0};
    srt_status st;
    if (n_out) *n_out = 0;
    if (!m || (!ids && cap > 0) || cap < 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_tokenize: bad arguments");
    st = srt__tokenize(m, text, len, flags, &t);
    if (st == SRT_OK) {
        if (n_out) *n_out = t.n;
        if (t.n > cap) st = srt__fail(SRT_ERR_INVALID_ARG, "srt_tokenize: %d tokens do not fit in %d", t.n, cap);
        else if (t.n) memcpy(ids, t.p, (size_t)t.n * sizeof(int32_t));
    }
    SRT_FREE(t.p);
    return st;
}

SRT_API int srt_vocab_size(const srt_model *m) { return m ? m->vocab.n : 0; }
SRT_API const char *srt_token_piece(const srt_model *m, int32_t token) {
    return m && token >= 0 && token < m->vocab.n ? m->vocab.piece[token] : NULL;
}
SRT_API int srt_token_bytes(const srt_model *m, int32_t token, char *buf, int cap) {
    uint32_t n;
    if (!m || token < 0 || token >= m->vocab.n) return 0;
    n = m->vocab.text_len[token];
    if (buf && cap > 0) memcpy(buf, m->vocab.text[token], n < (uint32_t)cap ? n : (size_t)cap);
    return (int)n;
}

/* UTF-8 streaming: a small state machine over bytes; a character is written once complete and
   valid (no overlongs, surrogates or values above U+10FFFF), anything else as U+FFFD. */
static int srt__utf8_byte(srt_utf8_stream *st, unsigned char b, char *out) {
    int w = 0;
    for (;;) {
        if (st->n_pending == 0) {
            if (b < 0x80) { out[w++] = (char)b; return w; }
            if (b >= 0xC2 && b <= 0xF4) { st->pending[0] = b; st->n_pending = 1; st->need = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; return w; }
            memcpy(out + w, "\xEF\xBF\xBD", 3); return w + 3;
        } else {
            unsigned char lead = st->pending[0], lo = 0x80, hi = 0xBF;
            if (st->n_pending == 1) {
                if (lead == 0xE0) lo = 0xA0; else if (lead == 0xED) hi = 0x9F;
                else if (lead == 0xF0) lo = 0x90; else if (lead == 0xF4) hi = 0x8F;
            }
            if (b >= lo && b <= hi) {
                st->pending[st->n_pending++] = b;
                if (st->n_pending == st->need) { memcpy(out + w, st->pending, (size_t)st->need); w += st->need; st->n_pending = 0; }
                return w;
            }
            memcpy(out + w, "\xEF\xBF\xBD", 3); w += 3;   /* broken sequence; `b` starts afresh */
            st->n_pending = 0;
        }
    }
}
SRT_API int srt_utf8_stream_token(srt_utf8_stream *st, const srt_model *m, int32_t token, int flags, char *out, int cap) {
    const unsigned char *t;
    uint32_t n, i = 0;
    int w = 0;
    if (!st || !m || token < 0 || token >= m->vocab.n || !out) return 0;
    t = (const unsigned char *)m->vocab.text[token];
    n = m->vocab.text_len[token];
    if ((uint64_t)cap < 6ull * n + 16) return -1;
    if ((flags & SRT_STREAM_STRIP_LEADING_SPACE) && !st->started && n > 0 && t[0] == ' ') i = 1;
    if (n > 0) st->started = 1;
    for (; i < n; i++) w += srt__utf8_byte(st, t[i], out + w);
    return w;
}
SRT_API int srt_utf8_stream_flush(srt_utf8_stream *st, char *out, int cap) {
    if (!st || !out || cap < 3 || st->n_pending == 0) return 0;
    st->n_pending = 0;
    memcpy(out, "\xEF\xBF\xBD", 3);
    return 3;
}

/* ---------------------------------------------------------------- 11 sampler */
typedef struct srt__cand { float p; int32_t id; } srt__cand;

static uint64_t srt__rng_next(uint64_t *state) {   /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float srt__rng_uniform(uint64_t *state) { return (float)(srt__rng_next(state) >> 40) / 16777216.0f; }

static int srt__cand_desc(const void *a, const void *b) {
    const srt__cand *x = (const srt__cand *)a, *y = (const srt__cand *)b;
    return x->p > y->p ? -1 : x->p < y->p ? 1 : (x->id < y->id ? -1 : x->id > y->id);
}
/* Moves the k largest (by p) to the front, in no particular order (quickselect). */
static void srt__select_top(srt__cand *c, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = c[(lo + hi) / 2].p;
        int i = lo, j = hi;
        while (i <= j) {
            while (c[i].p > pivot) i++;
            while (c[j].p < pivot) j--;
            if (i <= j) { srt__cand t = c[i]; c[i] = c[j]; c[j] = t; i++; j--; }
        }
        if (k - 1 <= j) hi = j; else if (k - 1 >= i) lo = i; else break;
    }
}


/* The repetition penalty on logits (modified) for the tokens of history (the tokens so far). */
static void srt__penalize(const srt_sampler_desc *sd, float *logits, int n, const int32_t *history, int n_hist) {
    int last = sd->repeat_last_n > 0 ? sd->repeat_last_n : 64, start = n_hist > last ? n_hist - last : 0, i, j;
    if (!(sd->repeat_penalty > 0.0f && sd->repeat_penalty != 1.0f)) return;
    for (i = start; i < n_hist; i++) {
        int32_t t = history[i];
        for (j = start; j < i && history[j] != t; j++) {}
        if (j < i || t < 0 || t >= n) continue;              /* penalise each token once */
        logits[t] = logits[t] > 0.0f ? logits[t] / sd->repeat_penalty : logits[t] * sd->repeat_penalty;
    }
}
/* The tokens a sampler with temperature > 0 draws from: cand[0..return) with probabilities that
   sum to *total (after temperature, top-k, min-p and top-p). */
static int srt__candidates(const srt_sampler_desc *sd, const float *logits, int n, srt__cand *cand, float *total) {
    int i, nc = n;
    float maxl, sum = 0.0f, acc;
    for (i = 0; i < n; i++) { cand[i].p = logits[i] / sd->temperature; cand[i].id = i; }
    if (sd->top_k > 0 && sd->top_k < n) { srt__select_top(cand, n, sd->top_k); nc = sd->top_k; }
    maxl = cand[0].p;
    for (i = 1; i < nc; i++) if (cand[i].p > maxl) maxl = cand[i].p;
    for (i = 0; i < nc; i++) { cand[i].p = expf(cand[i].p - maxl); sum += cand[i].p; }
    for (i = 0; i < nc; i++) cand[i].p /= sum;
    if (sd->min_p > 0.0f && sd->min_p <= 1.0f) {            /* keep p >= min_p * p_max (p_max = exp(0)/sum) */
        float cut = sd->min_p / sum;
        int k = 0;
        for (i = 0; i < nc; i++) if (cand[i].p >= cut) cand[k++] = cand[i];
        nc = k;
    }
    if (sd->top_p > 0.0f && sd->top_p < 1.0f) {
        /* only candidates above (1 - top_p) / (nc - 1) can be in the nucleus: sort just those */
        float cut = nc > 1 ? (1.0f - sd->top_p) / (float)(nc - 1) : 0.0f;
        int k = 0;
        for (i = 0; i < nc; i++) if (cand[i].p >= cut) cand[k++] = cand[i];
        if (k == 0) k = 1;
        nc = k;
        qsort(cand, (size_t)nc, sizeof *cand, srt__cand_desc);
        acc = 0.0f;
        for (i = 0; i < nc; i++) { acc += cand[i].p; if (acc >= sd->top_p) { nc = i + 1; break; } }
    }
    sum = 0.0f;
    for (i = 0; i < nc; i++) sum += cand[i].p;
    *total = sum;
    return nc;
}
static int32_t srt__draw(const srt__cand *cand, int nc, float total, uint64_t *rng) {
    float r = srt__rng_uniform(rng) * total, acc = 0.0f;
    int i;
    for (i = 0; i < nc; i++) { acc += cand[i].p; if (r < acc) return cand[i].id; }
    return cand[nc - 1].id;
}

/* logits is scratch (modified). history: the tokens so far, for the repetition penalty.
   proposed >= 0 (speculative decoding): with temperature > 0 that token is returned with the
   probability p(proposed) the sampler gives it, else a token drawn from p without it, so that the
   result is drawn from p whatever was proposed; greedy returns the argmax either way. */
static int32_t srt__sample(const srt_sampler_desc *sd, const srt__vec_ops *ops, float *logits, int n, const int32_t *history, int n_hist,
                           srt__cand *cand, uint64_t *rng, int32_t proposed) {
    int nc, i;
    float total;
    srt__penalize(sd, logits, n, history, n_hist);
    if (!(sd->temperature > 0.0f)) return ops->argmax(logits, n);
    nc = srt__candidates(sd, logits, n, cand, &total);
    if (proposed >= 0) {
        for (i = 0; i < nc && cand[i].id != proposed; i++) {}
        if (i < nc) {
            const float pp = cand[i].p;
            if (srt__rng_uniform(rng) * total < pp) return proposed;
            if (nc == 1) return proposed;   /* (rounding) nothing else to draw */
            cand[i] = cand[--nc];           /* the rest, in the order a draw reads it but for the one moved */
            total -= pp;
        }
    }
    return srt__draw(cand, nc, total, rng);
}

/* ---- grammars (GBNF): parsed into rules of elements, matched by a set of pushdown stacks.
   A rule is its alternatives' elements one after another, ALT between two, END after the last. A
   stack is a chain of frames (element position, parent frame): the top is the element to match
   next, the parent is where to go on when its alternative ends. Frames are hash-consed, so equal
   stacks are equal frame ids: a set of stacks is a list of ids without repeats (-1 = the empty
   stack: the text is complete). A set is kept expanded, every top a character element. */
enum { SRT__GE_END = 0, SRT__GE_ALT = 1, SRT__GE_REF = 2, SRT__GE_CHAR = 3, SRT__GE_NCHAR = 4 };
typedef struct srt__gelem { uint32_t type, a, n; } srt__gelem;   /* REF: rule a; (N)CHAR: ranges a .. a + n - 1 */
/* A token reference is a CHAR element of one range, the code point SRT__G_TOKEN + the token's id
   (past Unicode: no text has it); a <TEXT> one holds SRT__G_UNRESOLVED until the vocabulary says
   its id (srt__grammar_resolve). */
#define SRT__G_TOKEN 0x110000u
#define SRT__G_UNRESOLVED 0xFFFFFFFFu
#define SRT__G_MAX_TOKEN (1 << 24)
typedef struct srt__gtok { int32_t id; uint32_t rng; char *text; } srt__gtok;   /* text: <TEXT>'s, NULL for <[id]> */
typedef struct srt__grammar {
    srt__gelem *el;
    int32_t *rule_at;                 /* each rule's first element; rule 0 is root */
    uint32_t *rng;                    /* code point ranges: lo, hi pairs, sorted and merged within an element */
    int n_el, n_rule, n_rng;
    srt__gtok *tok;                   /* the token references, in the order written (a token may come more than once) */
    int n_tok;
} srt__grammar;
#define SRT__G_MAX_ELEMS (1 << 20)
#define SRT__G_MAX_REPEAT 1000
#define SRT__G_MAX_NEST 128

static void srt__grammar_free(srt__grammar *g) {
    int i;
    if (!g) return;
    for (i = 0; i < g->n_tok; i++) SRT_FREE(g->tok[i].text);
    SRT_FREE(g->el); SRT_FREE(g->rule_at); SRT_FREE(g->rng); SRT_FREE(g->tok); SRT_FREE(g);
}

/* The parser: rules are built as element lists, then laid out one after another. Groups and
   repetitions become rules of their own (anonymous: named after the rule they are in). */
typedef struct srt__gvec { srt__gelem *p; int n, cap; } srt__gvec;
typedef struct srt__grule { const char *name; int len, defined, anon; srt__gvec body; } srt__grule;
typedef struct srt__gparse {
    const char *src, *p;
    srt__grule *rules;
    int n_rules, cap_rules, total;    /* total: elements in all rules */
    uint32_t *rng;
    int n_rng, cap_rng;
    srt__gtok *tok;                   /* the token references (srt__grammar.tok) */
    int n_tok, cap_tok;
    srt_status st;                    /* the first error */
} srt__gparse;

static int srt__gp_err(srt__gparse *P, srt_status st, const char *at, const char *what) {
    int line = 1, col = 1;
    const char *q;
    if (P->st != SRT_OK) return 0;
    for (q = P->src; q < at; q++) { if (*q == '\n') { line++; col = 1; } else col++; }
    P->st = srt__fail(st, "grammar, line %d column %d: %s", line, col, what);
    return 0;
}
static int srt__gp_push(srt__gparse *P, srt__gvec *v, uint32_t type, uint32_t a, uint32_t n) {
    if (P->total >= SRT__G_MAX_ELEMS) return srt__gp_err(P, SRT_ERR_FORMAT, P->p, "the grammar is too large (over 2^20 elements)");
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        srt__gelem *np = (srt__gelem *)SRT_REALLOC(v->p, (size_t)cap * sizeof *np);
        if (!np) { if (P->st == SRT_OK) P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); return 0; }
        v->p = np; v->cap = cap;
    }
    v->p[v->n].type = type; v->p[v->n].a = a; v->p[v->n].n = n;
    v->n++; P->total++;
    return 1;
}
/* The rule named name[0..len) (created undefined when new), or a new anonymous one; -1 on failure. */
static int srt__gp_rule(srt__gparse *P, const char *name, int len, int anon) {
    int i;
    if (!anon)
        for (i = 0; i < P->n_rules; i++)
            if (!P->rules[i].anon && P->rules[i].len == len && memcmp(P->rules[i].name, name, (size_t)len) == 0) return i;
    if (P->n_rules == P->cap_rules) {
        int cap = P->cap_rules ? 2 * P->cap_rules : 16;
        srt__grule *np = (srt__grule *)SRT_REALLOC(P->rules, (size_t)cap * sizeof *np);
        if (!np) { if (P->st == SRT_OK) P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); return -1; }
        P->rules = np; P->cap_rules = cap;
    }
    memset(&P->rules[P->n_rules], 0, sizeof P->rules[0]);
    P->rules[P->n_rules].name = name; P->rules[P->n_rules].len = len; P->rules[P->n_rules].anon = anon;
    return P->n_rules++;
}
static int srt__gp_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; }
/* Skips blanks and comments; newlines too when nl. */
static void srt__gp_space(srt__gparse *P, int nl) {
    for (;;) {
        char c = *P->p;
        if (c == ' ' || c == '\t' || (nl && (c == '\n' || c == '\r'))) P->p++;
        else if (c == '#') { while (*P->p && *P->p != '\n' && *P->p != '\r') P->p++; }
        else return;
    }
}
/* One character of a literal or class at P->p (an escape or a UTF-8 character): 0 on an error. */
static int srt__gp_char(srt__gparse *P, uint32_t *cp) {
    const char *at = P->p;
    if (*P->p == '\\') {
        char e = P->p[1];
        int nx = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
        if (nx) {
            if (!srt__hex_digits(P->p + 2, nx, cp) || *cp > 0x10FFFF) return srt__gp_err(P, SRT_ERR_FORMAT, at, "bad \\x, \\u or \\U escape");
            P->p += 2 + nx;
            return 1;
        }
        switch (e) {
        case 'n': *cp = '\n'; break;
        case 'r': *cp = '\r'; break;
        case 't': *cp = '\t'; break;
        case '\\': case '"': case '[': case ']': case '-': case '^': case '\'': *cp = (unsigned char)e; break;
        default: return srt__gp_err(P, SRT_ERR_FORMAT, at, "unknown escape");
        }
        P->p += 2;
        return 1;
    } else {
        int l = srt__utf8_strict((const unsigned char *)P->p, cp);
        if (l <= 0 || *cp == 0) return srt__gp_err(P, SRT_ERR_FORMAT, at, *P->p ? "invalid UTF-8" : "unexpected end of the grammar");
        P->p += l;
        return 1;
    }
}
static int srt__gp_range_cmp(const void *a, const void *b) {
    uint32_t x = ((const uint32_t *)a)[0], y = ((const uint32_t *)b)[0];
    return x < y ? -1 : x > y;
}
/* Sorts the n ranges r[2i] .. r[2i + 1] and merges those that touch: how many are left. */
static int srt__ranges_merge(uint32_t *r, int n) {
    int i, k = 0;
    if (n) qsort(r, (size_t)n, 2 * sizeof(uint32_t), srt__gp_range_cmp);
    for (i = 0; i < n; i++) {
        if (k > 0 && r[2 * i] <= r[2 * k - 1] + 1) { if (r[2 * i + 1] > r[2 * k - 1]) r[2 * k - 1] = r[2 * i + 1]; }
        else { r[2 * k] = r[2 * i]; r[2 * k + 1] = r[2 * i + 1]; k++; }
    }
    return k;
}
/* Appends a character class's ranges lo[i], hi[i] (from index at of P->rng, sorted and merged). */
static int srt__gp_add_range(srt__gparse *P, uint32_t lo, uint32_t hi) {
    if (P->n_rng + 2 > P->cap_rng) {
        int cap = P->cap_rng ? 2 * P->cap_rng : 64;
        uint32_t *np;
        if (P->n_rng > 2 * SRT__G_MAX_ELEMS) return srt__gp_err(P, SRT_ERR_FORMAT, P->p, "the grammar is too large (character ranges)");
        if (!(np = (uint32_t *)SRT_REALLOC(P->rng, (size_t)cap * sizeof *np))) { if (P->st == SRT_OK) P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); return 0; }
        P->rng = np; P->cap_rng = cap;
    }
    P->rng[P->n_rng++] = lo; P->rng[P->n_rng++] = hi;
    return 1;
}
static int srt__gp_merge_ranges(srt__gparse *P, int at) {
    const int n = (P->n_rng - at) / 2, k = n ? srt__ranges_merge(P->rng + at, n) : 0;   /* ([] matches nothing, [^] any character) */
    P->n_rng = at + 2 * k;
    return k;
}
static int srt__gp_alternates(srt__gparse *P, int rule, int nested, int depth);
/* A token reference at P->p: <[ID]> or <TEXT> (TEXT up to the first '>', on one line, at most 256
   bytes with the brackets), as a CHAR element of its own range. */
static int srt__gp_token(srt__gparse *P, int rule) {
    const char *at = P->p, *q;
    srt__gtok t;
    t.id = -1; t.text = NULL;
    if (P->p[1] == '[') {
        long id = 0;
        for (q = P->p + 2; *q >= '0' && *q <= '9'; q++) if ((id = id * 10 + (*q - '0')) >= SRT__G_MAX_TOKEN) break;
        if (q == P->p + 2 || *q != ']' || q[1] != '>') return srt__gp_err(P, SRT_ERR_FORMAT, at, "a token id reference is <[ID]>, ID a number below 2^24");
        t.id = (int32_t)id;
        P->p = q + 2;
    } else {
        for (q = P->p + 1; *q && *q != '>' && *q != '\n' && *q != '\r' && q - P->p < 256; q++) {}
        if (*q != '>' || q == P->p + 1) return srt__gp_err(P, SRT_ERR_FORMAT, at, "a token reference <TEXT> needs its '>' on the same line (256 bytes at most)");
        if (!(t.text = (char *)SRT_MALLOC((size_t)(q - P->p) + 2))) { if (P->st == SRT_OK) P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); return 0; }
        memcpy(t.text, P->p, (size_t)(q - P->p) + 1);
        t.text[q - P->p + 1] = 0;
        P->p = q + 1;
    }
    t.rng = (uint32_t)P->n_rng;
    if (P->n_tok == P->cap_tok) {   /* (each reference is an element: the element limit bounds them) */
        int cap = P->cap_tok ? 2 * P->cap_tok : 8;
        srt__gtok *np = (srt__gtok *)SRT_REALLOC(P->tok, (size_t)cap * sizeof *np);
        if (!np) { SRT_FREE(t.text); if (P->st == SRT_OK) P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); return 0; }
        P->tok = np; P->cap_tok = cap;
    }
    P->tok[P->n_tok++] = t;
    {
        const uint32_t cp = t.text ? SRT__G_UNRESOLVED : SRT__G_TOKEN + (uint32_t)t.id;
        return srt__gp_add_range(P, cp, cp) && srt__gp_push(P, &P->rules[rule].body, SRT__GE_CHAR, t.rng, 1);
    }
}
/* Replaces the last element (v->p[last .. n)) by itself repeated min .. max times (max < 0: no limit). */
static int srt__gp_repeat(srt__gparse *P, int rule, srt__gvec *v, int last, int min, int max) {
    srt__gelem one;
    int i, r, prev = -1, n = v->n - last;
    if (n > 1) {   /* a sequence (a literal) is repeated as a rule of its own */
        if ((r = srt__gp_rule(P, P->rules[rule].name, P->rules[rule].len, 1)) < 0) return 0;
        v = &P->rules[rule].body;   /* (the rules moved) */
        for (i = 0; i < n; i++) if (!srt__gp_push(P, &P->rules[r].body, v->p[last + i].type, v->p[last + i].a, v->p[last + i].n)) return 0;
        P->rules[r].defined = 1;
        one.type = SRT__GE_REF; one.a = (uint32_t)r; one.n = 0;
    } else if (n == 1) one = v->p[last];
    else return 1;   /* "" repeated: nothing */
    v->n = last; P->total -= n;
    for (i = 0; i < min; i++) if (!srt__gp_push(P, &P->rules[rule].body, one.type, one.a, one.n)) return 0;
    /* max < 0: R ::= x R | (empty); else the optional ones nested, R_k ::= x R_{k-1} | (empty), R_1 ::= x | (empty) */
    for (i = 0; max < 0 ? i < 1 : i < max - min; i++) {
        if ((r = srt__gp_rule(P, P->rules[rule].name, P->rules[rule].len, 1)) < 0) return 0;
        P->rules[r].defined = 1;
        if (!srt__gp_push(P, &P->rules[r].body, one.type, one.a, one.n)) return 0;
        if (max < 0 && !srt__gp_push(P, &P->rules[r].body, SRT__GE_REF, (uint32_t)r, 0)) return 0;
        if (prev >= 0 && !srt__gp_push(P, &P->rules[r].body, SRT__GE_REF, (uint32_t)prev, 0)) return 0;
        if (!srt__gp_push(P, &P->rules[r].body, SRT__GE_ALT, 0, 0)) return 0;
        prev = r;
    }
    return prev < 0 || srt__gp_push(P, &P->rules[rule].body, SRT__GE_REF, (uint32_t)prev, 0);
}
static int srt__gp_count(srt__gparse *P, int *v) {
    const char *at = P->p;
    long n = 0;
    if (!(*P->p >= '0' && *P->p <= '9')) return srt__gp_err(P, SRT_ERR_FORMAT, at, "expected a number in { }");
    while (*P->p >= '0' && *P->p <= '9') { if (n <= SRT__G_MAX_REPEAT) n = n * 10 + (*P->p - '0'); P->p++; }
    if (n > SRT__G_MAX_REPEAT) return srt__gp_err(P, SRT_ERR_FORMAT, at, "a repetition count over 1000");
    *v = (int)n;
    return 1;
}
/* One alternative: elements until '|', ')', the end of the line (not nested) or of the text. */
static int srt__gp_sequence(srt__gparse *P, int rule, int nested, int depth) {
    int last = -1;
    for (;;) {
        srt__gvec *v = &P->rules[rule].body;
        const char *at = P->p;
        char c = *P->p;
        int start = v->n;
        if (c == '"') {
            P->p++;
            while (*P->p != '"') {
                uint32_t cp;
                if (!*P->p) return srt__gp_err(P, SRT_ERR_FORMAT, at, "unterminated literal");
                if (*P->p == '\n' || *P->p == '\r') return srt__gp_err(P, SRT_ERR_FORMAT, at, "a line break in a literal (write \\n)");
                if (!srt__gp_char(P, &cp) || !srt__gp_add_range(P, cp, cp) || !srt__gp_push(P, &P->rules[rule].body, SRT__GE_CHAR, (uint32_t)P->n_rng - 2, 1)) return 0;
            }
            P->p++;
            last = start;
        } else if (c == '[') {
            int neg = 0, rat = P->n_rng, k;
            P->p++;
            if (*P->p == '^') { neg = 1; P->p++; }
            while (*P->p != ']') {
                uint32_t lo, hi;
                if (!*P->p) return srt__gp_err(P, SRT_ERR_FORMAT, at, "unterminated character class");
                if (!srt__gp_char(P, &lo)) return 0;
                hi = lo;
                if (P->p[0] == '-' && P->p[1] && P->p[1] != ']') {
                    P->p++;
                    if (!srt__gp_char(P, &hi)) return 0;
                    if (hi < lo) return srt__gp_err(P, SRT_ERR_FORMAT, at, "a range whose end is below its start");
                }
                if (!srt__gp_add_range(P, lo, hi)) return 0;
            }
            P->p++;
            k = srt__gp_merge_ranges(P, rat);
            if (!srt__gp_push(P, &P->rules[rule].body, neg ? SRT__GE_NCHAR : SRT__GE_CHAR, (uint32_t)rat, (uint32_t)k)) return 0;
            last = start;
        } else if (c == '.') {
            P->p++;
            if (!srt__gp_push(P, v, SRT__GE_NCHAR, 0, 0)) return 0;
            last = start;
        } else if (srt__gp_word(c)) {
            const char *name = P->p;
            int r;
            while (srt__gp_word(*P->p)) P->p++;
            if ((r = srt__gp_rule(P, name, (int)(P->p - name), 0)) < 0) return 0;
            if (!srt__gp_push(P, &P->rules[rule].body, SRT__GE_REF, (uint32_t)r, 0)) return 0;
            last = start;
        } else if (c == '(') {
            int r;
            if (depth >= SRT__G_MAX_NEST) return srt__gp_err(P, SRT_ERR_FORMAT, at, "groups nested too deep");
            P->p++;
            if ((r = srt__gp_rule(P, P->rules[rule].name, P->rules[rule].len, 1)) < 0) return 0;
            P->rules[r].defined = 1;
            srt__gp_space(P, 1);
            if (!srt__gp_alternates(P, r, 1, depth + 1)) return 0;
            if (*P->p != ')') return srt__gp_err(P, SRT_ERR_FORMAT, at, "unclosed parenthesis");
            P->p++;
            if (!srt__gp_push(P, &P->rules[rule].body, SRT__GE_REF, (uint32_t)r, 0)) return 0;
            last = start;
        } else if (c == '*' || c == '+' || c == '?' || c == '{') {
            int min = 0, max = -1;
            if (last < 0) return srt__gp_err(P, SRT_ERR_FORMAT, at, "a repetition with nothing before it");
            P->p++;
            if (c == '+') min = 1;
            else if (c == '?') max = 1;
            else if (c == '{') {
                srt__gp_space(P, 0);
                if (!srt__gp_count(P, &min)) return 0;
                srt__gp_space(P, 0);
                max = min;
                if (*P->p == ',') {
                    P->p++;
                    srt__gp_space(P, 0);
                    max = -1;
                    if (*P->p != '}' && !srt__gp_count(P, &max)) return 0;
                    srt__gp_space(P, 0);
                }
                if (*P->p != '}') return srt__gp_err(P, SRT_ERR_FORMAT, at, "expected } after the repetition count");
                P->p++;
                if (max >= 0 && max < min) return srt__gp_err(P, SRT_ERR_FORMAT, at, "a repetition {m,n} with n < m");
            }
            if (!srt__gp_repeat(P, rule, v, last, min, max)) return 0;
            last = -1;   /* x** is refused as llama.cpp refuses it */
        } else if (c == '<') {
            if (!srt__gp_token(P, rule)) return 0;
            last = start;
        } else if (c == '!' && P->p[1] == '<') {
            return srt__gp_err(P, SRT_ERR_UNSUPPORTED, at, "a negated token reference (!<...>) is not supported");
        } else return 1;   /* the end of the sequence */
        srt__gp_space(P, nested);
    }
}
static int srt__gp_alternates(srt__gparse *P, int rule, int nested, int depth) {
    if (!srt__gp_sequence(P, rule, nested, depth)) return 0;
    while (*P->p == '|') {
        P->p++;
        if (!srt__gp_push(P, &P->rules[rule].body, SRT__GE_ALT, 0, 0)) return 0;
        srt__gp_space(P, 1);
        if (!srt__gp_sequence(P, rule, nested, depth)) return 0;
    }
    return 1;
}
/* Each rule's alternatives as ranges [a, b) of g->el, in turn: *a = -1 before the first. Returns 0 after the last. */
static int srt__g_next_alt(const srt__grammar *g, int rule, int *a, int *b) {
    int i = *a < 0 ? g->rule_at[rule] : *b + 1;
    if (*a >= 0 && g->el[*b].type == SRT__GE_END) return 0;
    *a = i;
    while (g->el[i].type != SRT__GE_END && g->el[i].type != SRT__GE_ALT) i++;
    *b = i;
    return 1;
}
/* Refuses left recursion: a rule reachable from itself through the elements that can start its
   alternatives (refs, and what follows them while they can match the empty text). */
static int srt__g_check_left(srt__gparse *P, const srt__grammar *g) {
    int R = g->n_rule, r, a, b, i, changed = 1, n_edge = 0, *indeg, *queue, head = 0, tail = 0, ok = 1;
    unsigned char *nullable = (unsigned char *)SRT_MALLOC((size_t)R + 1);
    int32_t *edge_at = (int32_t *)SRT_MALLOC(((size_t)R + 1) * sizeof(int32_t)), *edges = NULL;
    indeg = (int *)SRT_MALLOC(((size_t)R + 1) * sizeof(int));
    queue = (int *)SRT_MALLOC(((size_t)R + 1) * sizeof(int));
    if (!nullable || !edge_at || !indeg || !queue) { P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); ok = 0; goto done; }
    memset(nullable, 0, (size_t)R);
    while (changed) {   /* nullable: some alternative of only nullable refs */
        changed = 0;
        for (r = 0; r < R; r++) {
            if (nullable[r]) continue;
            for (a = -1; srt__g_next_alt(g, r, &a, &b);) {
                for (i = a; i < b && g->el[i].type == SRT__GE_REF && nullable[g->el[i].a]; i++) {}
                if (i == b) { nullable[r] = 1; changed = 1; break; }
            }
        }
    }
    for (r = 0; r < R; r++)   /* count the edges, then write them */
        for (a = -1; srt__g_next_alt(g, r, &a, &b);)
            for (i = a; i < b && g->el[i].type == SRT__GE_REF; i++) { n_edge++; if (!nullable[g->el[i].a]) break; }
    if (!(edges = (int32_t *)SRT_MALLOC(((size_t)n_edge + 1) * sizeof(int32_t)))) { P->st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory"); ok = 0; goto done; }
    memset(indeg, 0, (size_t)R * sizeof(int));
    for (r = n_edge = 0; r < R; r++) {
        edge_at[r] = n_edge;
        for (a = -1; srt__g_next_alt(g, r, &a, &b);)
            for (i = a; i < b && g->el[i].type == SRT__GE_REF; i++) {
                edges[n_edge++] = (int32_t)g->el[i].a;
                indeg[g->el[i].a]++;
                if (!nullable[g->el[i].a]) break;
            }
    }
    edge_at[R] = n_edge;
    for (r = 0; r < R; r++) if (!indeg[r]) queue[tail++] = r;
    while (head < tail) {   /* Kahn: what is left has a cycle */
        r = queue[head++];
        for (i = edge_at[r]; i < edge_at[r + 1]; i++) if (--indeg[edges[i]] == 0) queue[tail++] = edges[i];
    }
    if (tail < R) {
        char msg[160];
        for (r = 0; r < R && !indeg[r]; r++) {}
        snprintf(msg, sizeof msg, "rule '%.*s' is left-recursive%s", P->rules[r].len > 64 ? 64 : P->rules[r].len, P->rules[r].name,
                 P->rules[r].anon ? " (through a group or repetition in it)" : "");
        srt__gp_err(P, SRT_ERR_FORMAT, P->rules[r].name, msg);
        ok = 0;
    }
done:
    SRT_FREE(nullable); SRT_FREE(edge_at); SRT_FREE(edges); SRT_FREE(indeg); SRT_FREE(queue);
    return ok;
}
/* Parses GBNF text into *out. */
static srt_status srt__grammar_parse(const char *src, srt__grammar **out) {
    srt__gparse P;
    srt__grammar *g = NULL;
    int i, root = -1;
    memset(&P, 0, sizeof P);
    *out = NULL;
    if (!src) return srt__fail(SRT_ERR_INVALID_ARG, "grammar: NULL text");
    P.src = P.p = src;
    for (;;) {
        const char *name;
        int r;
        srt__gp_space(&P, 1);
        if (!*P.p) break;
        name = P.p;
        while (srt__gp_word(*P.p)) P.p++;
        if (P.p == name) { srt__gp_err(&P, SRT_ERR_FORMAT, P.p, "expected a rule name"); break; }
        if ((r = srt__gp_rule(&P, name, (int)(P.p - name), 0)) < 0) break;
        if (P.rules[r].defined) { srt__gp_err(&P, SRT_ERR_FORMAT, name, "a rule defined twice"); break; }
        P.rules[r].defined = 1;
        srt__gp_space(&P, 0);
        if (strncmp(P.p, "::=", 3) != 0) { srt__gp_err(&P, SRT_ERR_FORMAT, P.p, "expected ::="); break; }
        P.p += 3;
        srt__gp_space(&P, 1);
        if (!srt__gp_alternates(&P, r, 0, 0)) break;
        if (*P.p && *P.p != '\n' && *P.p != '\r') { srt__gp_err(&P, SRT_ERR_FORMAT, P.p, *P.p == ')' ? "unmatched )" : "unexpected character"); break; }
    }
    if (P.st == SRT_OK) {
        for (i = 0; i < P.n_rules; i++) {
            if (!P.rules[i].anon && P.rules[i].len == 4 && memcmp(P.rules[i].name, "root", 4) == 0) root = i;
            if (!P.rules[i].defined) {
                char msg[128];
                snprintf(msg, sizeof msg, "rule '%.*s' is used but not defined", P.rules[i].len > 64 ? 64 : P.rules[i].len, P.rules[i].name);
                srt__gp_err(&P, SRT_ERR_FORMAT, P.rules[i].name, msg);
                break;
            }
        }
        if (P.st == SRT_OK && (root < 0 || !P.rules[root].defined)) srt__gp_err(&P, SRT_ERR_FORMAT, P.p, "no rule 'root'");
    }
    if (P.st == SRT_OK) {   /* lay out: root first, then the others in order */
        int n_el = 0, k = 0, *map = (int *)SRT_MALLOC((size_t)P.n_rules * sizeof(int));
        g = (srt__grammar *)SRT_MALLOC(sizeof *g);
        if (g) memset(g, 0, sizeof *g);
        for (i = 0; i < P.n_rules; i++) n_el += P.rules[i].body.n + 1;
        if (g && map) {
            g->el = (srt__gelem *)SRT_MALLOC((size_t)n_el * sizeof *g->el);
            g->rule_at = (int32_t *)SRT_MALLOC((size_t)P.n_rules * sizeof(int32_t));
            g->rng = (uint32_t *)SRT_MALLOC(((size_t)P.n_rng + 2) * sizeof(uint32_t));
        }
        if (!g || !map || !g->el || !g->rule_at || !g->rng) P.st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory");
        else {
            map[root] = 0;
            for (i = 0; i < P.n_rules; i++) if (i != root) map[i] = ++k;
            g->n_rule = P.n_rules;
            for (k = 0; k < P.n_rules; k++) {   /* in the new order */
                int r = k == 0 ? root : (k <= root ? k - 1 : k), j;
                g->rule_at[k] = g->n_el;
                for (j = 0; j < P.rules[r].body.n; j++) {
                    srt__gelem e = P.rules[r].body.p[j];
                    if (e.type == SRT__GE_REF) e.a = (uint32_t)map[e.a];
                    g->el[g->n_el++] = e;
                }
                g->el[g->n_el].type = SRT__GE_END; g->el[g->n_el].a = g->el[g->n_el].n = 0;
                g->n_el++;
            }
            if (P.n_rng) memcpy(g->rng, P.rng, (size_t)P.n_rng * sizeof(uint32_t));
            g->n_rng = P.n_rng;
            g->tok = P.tok; g->n_tok = P.n_tok;   /* (the grammar owns them now) */
            P.tok = NULL; P.n_tok = 0;
        }
        SRT_FREE(map);
        if (P.st == SRT_OK) {
            /* the anonymous rules keep their names for messages: reorder the parse's rules alike */
            srt__grule *old = P.rules, *nr = (srt__grule *)SRT_MALLOC((size_t)P.n_rules * sizeof *nr);
            if (!nr) P.st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "grammar: out of memory");
            else {
                for (k = 0; k < P.n_rules; k++) nr[k] = old[k == 0 ? root : (k <= root ? k - 1 : k)];
                P.rules = nr;
                SRT_FREE(old);
                srt__g_check_left(&P, g);
            }
        }
    }
    for (i = 0; i < P.n_rules; i++) SRT_FREE(P.rules[i].body.p);
    for (i = 0; i < P.n_tok; i++) SRT_FREE(P.tok[i].text);
    SRT_FREE(P.rules); SRT_FREE(P.rng); SRT_FREE(P.tok);
    if (P.st != SRT_OK) { srt__grammar_free(g); return P.st; }
    *out = g;
    return SRT_OK;
}

/* The matcher: frames hash-consed in one arena, the current set of stacks, and the bytes of a
   character not complete yet (a token may end inside one). */
#define SRT__GW_SETS 8                /* the trie walk's memo: sets kept (srt__gm_walk) */
typedef struct srt__gmatch {
    const srt__grammar *g;
    int32_t *fpos, *fpar;             /* frame f: element position, parent frame (-1: none) */
    uint32_t *fmark;                  /* pass stamp: the frame was met in this pass */
    int n_fr, cap_fr;
    int32_t *fhash;                   /* open addressing over (pos, parent), -1 = empty */
    uint32_t hash_mask;
    uint32_t pass, mark_empty;        /* mark_empty: the pass the empty stack was met in */
    srt__ids set;                     /* sets of stacks, one after another: the current one first (n_cur of them) */
    int n_cur, set_at;                /* set_at: where the set being built starts */
    uint32_t part_v; int part_need;   /* an incomplete character: its value so far, continuation bytes to come */
    unsigned char part_lo, part_hi;   /* the range of the next continuation byte */
    int depth;                        /* of the expansion's recursion */
    uint32_t gen;                     /* counts the resets (the frames made again: their numbers mean other frames) */
    /* the trie walk's memo (srt__gm_walk): sets of stacks that characters leave as they are */
    int32_t *w_ids[SRT__GW_SETS];     /* each set's frame numbers, sorted */
    int w_n[SRT__GW_SETS], w_cap[SRT__GW_SETS], w_used;
    unsigned char *w_what;            /* SRT__GW_SETS x 65536: what character c (below U+10000) did to set i, SRT__GW_* */
    uint32_t w_gen;                   /* the reset count the sets belong to */
    int32_t *w_tmp[2];                /* scratch: sorted copies */
    int w_tmp_cap;
    srt_status st;                    /* the first failure (out of memory, a grammar too ambiguous) */
} srt__gmatch;
#define SRT__GM_MAX_STACKS 4096
#define SRT__GM_MAX_DEPTH 2048

static void srt__gm_fail(srt__gmatch *m, srt_status st, const char *what) {
    if (m->st == SRT_OK) m->st = srt__fail(st, "grammar: %s", what);
}
static void srt__gm_free(srt__gmatch *m) {
    int i;
    SRT_FREE(m->fpos); SRT_FREE(m->fpar); SRT_FREE(m->fmark); SRT_FREE(m->fhash); SRT_FREE(m->set.p);
    for (i = 0; i < SRT__GW_SETS; i++) SRT_FREE(m->w_ids[i]);
    SRT_FREE(m->w_what); SRT_FREE(m->w_tmp[0]); SRT_FREE(m->w_tmp[1]);
    memset(m, 0, sizeof *m);
}
/* The frame (pos, par); -2 on failure. */
static int32_t srt__gm_frame(srt__gmatch *m, int32_t pos, int32_t par) {
    uint32_t h, i;
    if (2 * (m->n_fr + 1) > (int)(m->hash_mask + 1) || !m->fhash) {   /* grow: the table at most half full */
        uint32_t cap = m->fhash ? 2 * (m->hash_mask + 1) : 1024, k;
        int32_t *nh = (int32_t *)SRT_MALLOC((size_t)cap * sizeof(int32_t));
        if (!nh || cap > (1u << 30)) { SRT_FREE(nh); srt__gm_fail(m, SRT_ERR_OUT_OF_MEMORY, "out of memory"); return -2; }
        SRT_FREE(m->fhash);
        m->fhash = nh; m->hash_mask = cap - 1;
        for (k = 0; k < cap; k++) nh[k] = -1;
        for (k = 0; k < (uint32_t)m->n_fr; k++) {
            i = ((uint32_t)m->fpos[k] * 2654435761u ^ (uint32_t)m->fpar[k] * 40503u) & m->hash_mask;
            while (nh[i] >= 0) i = (i + 1) & m->hash_mask;
            nh[i] = (int32_t)k;
        }
    }
    h = ((uint32_t)pos * 2654435761u ^ (uint32_t)par * 40503u) & m->hash_mask;
    for (i = h; m->fhash[i] >= 0; i = (i + 1) & m->hash_mask)
        if (m->fpos[m->fhash[i]] == pos && m->fpar[m->fhash[i]] == par) return m->fhash[i];
    if (m->n_fr >= (1 << 22)) { srt__gm_fail(m, SRT_ERR_UNSUPPORTED, "the grammar is too ambiguous here (over 2^22 frames)"); return -2; }
    if (m->n_fr == m->cap_fr) {
        int cap = m->cap_fr ? 2 * m->cap_fr : 1024;
        int32_t *a = (int32_t *)SRT_REALLOC(m->fpos, (size_t)cap * sizeof(int32_t));
        if (a) m->fpos = a;
        a = a ? (int32_t *)SRT_REALLOC(m->fpar, (size_t)cap * sizeof(int32_t)) : NULL;
        if (a) m->fpar = a;
        a = a ? (int32_t *)SRT_REALLOC(m->fmark, (size_t)cap * sizeof(uint32_t)) : NULL;
        if (!a) { srt__gm_fail(m, SRT_ERR_OUT_OF_MEMORY, "out of memory"); return -2; }
        m->fmark = (uint32_t *)a; m->cap_fr = cap;
    }
    m->fpos[m->n_fr] = pos; m->fpar[m->n_fr] = par; m->fmark[m->n_fr] = 0;
    m->fhash[i] = m->n_fr;
    return m->n_fr++;
}
static void srt__gm_expand(srt__gmatch *m, int32_t f);
/* The stacks rule `rule` starts, continuing with frame cont, expanded into the set being built. */
static void srt__gm_expand_rule(srt__gmatch *m, uint32_t rule, int32_t cont) {
    const srt__grammar *g = m->g;
    int a = -1, b;
    while (m->st == SRT_OK && srt__g_next_alt(g, (int)rule, &a, &b))
        srt__gm_expand(m, a == b ? cont : srt__gm_frame(m, a, cont));
}
/* The stacks frame f stands for, each with a character on top, added to the set at the end of
   m->set (once each in a pass). */
static void srt__gm_expand(srt__gmatch *m, int32_t f) {
    const srt__gelem *e;
    int32_t cont;
    if (f == -2 || m->st != SRT_OK) return;
    if (f == -1) {
        if (m->mark_empty != m->pass) { m->mark_empty = m->pass; srt__ids_push(&m->set, -1); }
        return;
    }
    if (m->fmark[f] == m->pass) return;
    m->fmark[f] = m->pass;
    e = &m->g->el[m->fpos[f]];
    if (e->type != SRT__GE_REF) {
        if (m->set.n - m->set_at >= SRT__GM_MAX_STACKS) srt__gm_fail(m, SRT_ERR_UNSUPPORTED, "the grammar is too ambiguous here (over 4096 ways to go on)");
        else srt__ids_push(&m->set, f);
        return;
    }
    if (++m->depth > SRT__GM_MAX_DEPTH) srt__gm_fail(m, SRT_ERR_UNSUPPORTED, "the rules nest too deep here");
    else {
        const uint32_t nt = m->g->el[m->fpos[f] + 1].type;
        cont = nt == SRT__GE_END || nt == SRT__GE_ALT ? m->fpar[f] : srt__gm_frame(m, m->fpos[f] + 1, m->fpar[f]);
        srt__gm_expand_rule(m, e->a, cont);
    }
    m->depth--;
}
static void srt__gm_begin_pass(srt__gmatch *m) {
    if (++m->pass == 0) {   /* wrapped: clear the stamps */
        int i;
        for (i = 0; i < m->n_fr; i++) m->fmark[i] = 0;
        m->mark_empty = 0;
        m->pass = 1;
    }
}
/* Ends a set being built: 0 (and a failure set) when memory ran out. */
static int srt__gm_end_set(srt__gmatch *m) {
    if (m->set.oom) srt__gm_fail(m, SRT_ERR_OUT_OF_MEMORY, "out of memory");
    return m->st == SRT_OK;
}
static void srt__gm_reset(srt__gmatch *m) {
    m->gen++;
    m->set.n = 0;
    m->part_need = 0;
    m->n_fr = 0;
    if (m->fhash) memset(m->fhash, 0xff, ((size_t)m->hash_mask + 1) * sizeof(int32_t));
    srt__gm_begin_pass(m);
    m->set_at = 0;
    srt__gm_expand_rule(m, 0, -1);
    srt__gm_end_set(m);
    m->n_cur = m->set.n;
}
static int srt__gm_init(srt__gmatch *m, const srt__grammar *g) {
    memset(m, 0, sizeof *m);
    m->g = g;
    srt__gm_reset(m);
    return m->st == SRT_OK;
}
static int srt__gm_char_in(const srt__gmatch *m, const srt__gelem *e, uint32_t cp) {
    const uint32_t *r = m->g->rng + e->a;
    uint32_t lo = 0, hi = e->n;
    if (cp >= SRT__G_TOKEN && e->type == SRT__GE_NCHAR) return 0;   /* a token: only its own reference takes it */
    while (lo < hi) {   /* the first range whose end is >= cp */
        uint32_t mid = (lo + hi) / 2;
        if (r[2 * mid + 1] < cp) lo = mid + 1; else hi = mid;
    }
    return (lo < e->n && r[2 * lo] <= cp) == (e->type == SRT__GE_CHAR);
}
/* Whether an element takes some code point in [lo, hi]. */
static int srt__gm_range_in(const srt__gmatch *m, const srt__gelem *e, uint32_t lo, uint32_t hi) {
    const uint32_t *r = m->g->rng + e->a;
    uint32_t i;
    for (i = 0; i < e->n; i++) {
        if (e->type == SRT__GE_CHAR && r[2 * i] <= hi && r[2 * i + 1] >= lo) return 1;
        if (e->type == SRT__GE_NCHAR && r[2 * i] <= lo && r[2 * i + 1] >= hi) return 0;   /* (merged: one range covers or none) */
    }
    return e->type == SRT__GE_NCHAR;
}
/* The set after code point cp from the set at m->set.p[at .. at + n), built at the end of m->set;
   returns its start. */
static int srt__gm_advance(srt__gmatch *m, int at, int n, uint32_t cp) {
    int out = m->set.n, i;
    srt__gm_begin_pass(m);
    m->set_at = out;
    for (i = 0; i < n && m->st == SRT_OK; i++) {
        const int32_t f = m->set.p[at + i];
        const srt__gelem *e;
        if (f < 0) continue;
        e = &m->g->el[m->fpos[f]];
        if (srt__gm_char_in(m, e, cp)) {
            const uint32_t nt = e[1].type;
            srt__gm_expand(m, nt == SRT__GE_END || nt == SRT__GE_ALT ? m->fpar[f] : srt__gm_frame(m, m->fpos[f] + 1, m->fpar[f]));
        }
    }
    srt__gm_end_set(m);
    return out;
}
/* A UTF-8 decoder one byte at a time over (v, need, lo, hi): returns 2 with *cp for a complete
   character, 1 for one still incomplete, 0 for a byte that cannot come here. */
static int srt__gm_utf8(uint32_t *v, int *need, unsigned char *lo, unsigned char *hi, unsigned char b, uint32_t *cp) {
    if (*need == 0) {
        if (b < 0x80) { *cp = b; return 2; }
        if (b < 0xC2 || b > 0xF4) return 0;
        *need = b < 0xE0 ? 1 : b < 0xF0 ? 2 : 3;
        *v = b & (0x3Fu >> *need);
        *lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
        *hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
        return 1;
    }
    if (b < *lo || b > *hi) return 0;
    *v = (*v << 6) | (b & 0x3Fu);
    *lo = 0x80; *hi = 0xBF;
    if (--*need == 0) { *cp = *v; return 2; }
    return 1;
}
/* Whether a stack of the set at [at, at + n) takes a character that begins as the incomplete one (v, need) does. */
static int srt__gm_partial_ok(const srt__gmatch *m, int at, int n, uint32_t v, int need, unsigned char lo, unsigned char hi) {
    /* the code points it can still become: the next byte in [lo, hi], the rest anything */
    const int rest = 6 * (need - 1);
    const uint32_t cmin = ((v << 6) | (lo & 0x3Fu)) << rest, cmax = (((v << 6) | (hi & 0x3Fu)) << rest) | ((1u << rest) - 1);
    int i;
    for (i = 0; i < n; i++) {
        const int32_t f = m->set.p[at + i];
        if (f >= 0 && srt__gm_range_in(m, &m->g->el[m->fpos[f]], cmin, cmax)) return 1;
    }
    return 0;
}
/* Whether bytes s[0..n) keep the text a prefix of the language: 1 if so (with commit, the matcher
   takes them), 0 if not (and on failure, m->st); the state is as before unless committed. */
static int srt__gm_feed(srt__gmatch *m, const unsigned char *s, size_t n, int commit) {
    int at = 0, cnt = m->n_cur, need = m->part_need, r;
    uint32_t v = m->part_v, cp = 0;
    unsigned char lo = m->part_lo, hi = m->part_hi;
    size_t i;
    const int base = m->set.n;
    for (i = 0; i < n; i++) {
        if (!(r = srt__gm_utf8(&v, &need, &lo, &hi, s[i], &cp))) { m->set.n = base; return 0; }
        if (r == 1) {
            if (!srt__gm_partial_ok(m, at, cnt, v, need, lo, hi)) { m->set.n = base; return 0; }
            continue;
        }
        {
            const int next = srt__gm_advance(m, at, cnt, cp);
            if (m->st != SRT_OK || m->set.n == next) { m->set.n = base; return 0; }
            if (at >= base) {   /* drop the set before it: move the new one down */
                memmove(m->set.p + base, m->set.p + next, (size_t)(m->set.n - next) * sizeof(int32_t));
                m->set.n = base + (m->set.n - next);
            }
            at = base; cnt = m->set.n - base;
        }
    }
    if (!commit) { m->set.n = base; return 1; }
    if (at == base) {   /* the new current set */
        memmove(m->set.p, m->set.p + base, (size_t)cnt * sizeof(int32_t));
        m->set.n = m->n_cur = cnt;
    }
    m->part_v = v; m->part_need = need; m->part_lo = lo; m->part_hi = hi;
    return 1;
}
/* The text so far is in the language (a complete character, the empty stack in the set). */
static int srt__gm_complete(const srt__gmatch *m) {
    int i;
    if (m->part_need) return 0;
    for (i = 0; i < m->n_cur; i++) if (m->set.p[i] == -1) return 1;
    return 0;
}
/* SRT_GRAMMAR_COMPLETE and / or SRT_GRAMMAR_PREFIX (a stack wants a character, or one is half read). */
static int srt__gm_flags(const srt__gmatch *m) {
    int i, r = srt__gm_complete(m) ? SRT_GRAMMAR_COMPLETE : 0;
    for (i = 0; i < m->n_cur; i++) if (m->set.p[i] >= 0) r |= SRT_GRAMMAR_PREFIX;
    return m->part_need ? r | SRT_GRAMMAR_PREFIX : r;
}

/* Whether the grammar refers to token k (<[k]> or its <TEXT>). */
static int srt__gm_refers(const srt__gmatch *m, int32_t k) {
    int i;
    for (i = 0; i < m->g->n_tok; i++) if (m->g->tok[i].id == k) return 1;
    return 0;
}
/* Whether token k as the grammar's symbol may come next (with commit, the matcher takes it); not
   inside a character. */
static int srt__gm_take_ref(srt__gmatch *m, int32_t k, int commit) {
    const int base = m->set.n;
    int next, cnt;
    if (m->part_need) return 0;
    next = srt__gm_advance(m, 0, m->n_cur, SRT__G_TOKEN + (uint32_t)k);
    if (m->st != SRT_OK) { m->set.n = base; return 0; }
    cnt = m->set.n - next;
    if (!cnt || !commit) { m->set.n = base; return cnt > 0; }
    memmove(m->set.p, m->set.p + next, (size_t)cnt * sizeof(int32_t));
    m->set.n = m->n_cur = cnt;
    return 1;
}

/* The vocabulary as a trie of token bytes, for finding the tokens a grammar allows in one walk
   (a byte the grammar refuses rules out every token that continues with it). Node 0 is the root;
   children are lists through sib. Tokens with the same bytes are chained through next_tok. */
typedef struct srt__gtrie {
    int32_t *child, *sib, *tok, *next_tok;
    unsigned char *byte;
    int n, cap, depth;                /* depth: the longest token */
} srt__gtrie;
static void srt__gtrie_free(srt__gtrie *t) {
    SRT_FREE(t->child); SRT_FREE(t->sib); SRT_FREE(t->tok); SRT_FREE(t->next_tok); SRT_FREE(t->byte);
    memset(t, 0, sizeof *t);
}
static int srt__gtrie_build(srt__gtrie *t, const srt__vocab *v) {
    int32_t k;
    memset(t, 0, sizeof *t);
    if (!(t->next_tok = (int32_t *)SRT_MALLOC((size_t)v->n * sizeof(int32_t)))) return 0;
    for (k = 0; k < v->n; k++) {
        const unsigned char *s = (const unsigned char *)v->text[k];
        uint32_t i, len = v->text_len[k];
        int32_t node = 0;
        t->next_tok[k] = -1;
        if (!len || srt__is_eog(v, k)) continue;   /* control tokens: decided apart */
        if ((int)len > t->depth) t->depth = (int)len;
        for (i = 0; i <= len; i++) {
            int32_t c;
            if (t->n + 1 >= t->cap || !t->n) {
                int cap = t->cap ? 2 * t->cap : 4096;
                void *p1 = SRT_REALLOC(t->child, (size_t)cap * 4), *p2, *p3, *p4;
                if (p1) t->child = (int32_t *)p1;
                p2 = p1 ? SRT_REALLOC(t->sib, (size_t)cap * 4) : NULL;
                if (p2) t->sib = (int32_t *)p2;
                p3 = p2 ? SRT_REALLOC(t->tok, (size_t)cap * 4) : NULL;
                if (p3) t->tok = (int32_t *)p3;
                p4 = p3 ? SRT_REALLOC(t->byte, (size_t)cap) : NULL;
                if (!p4) return 0;
                t->byte = (unsigned char *)p4; t->cap = cap;
                if (!t->n) { t->child[0] = t->sib[0] = t->tok[0] = -1; t->byte[0] = 0; t->n = 1; }
            }
            if (i == len) { t->next_tok[k] = t->tok[node]; t->tok[node] = k; break; }
            for (c = t->child[node]; c >= 0 && t->byte[c] != s[i]; c = t->sib[c]) {}
            if (c < 0) {
                c = t->n++;
                t->child[c] = t->tok[c] = -1; t->byte[c] = s[i];
                t->sib[c] = t->child[node]; t->child[node] = c;
            }
            node = c;
        }
    }
    return 1;
}
/* The walk's memo. A set of stacks that a character advances to itself (inside a string, most of
   them) is kept by its sorted frame numbers, with what each character below U+10000 did to it:
   the same set or no set (another set is not kept: it is advanced again); then the rest of the
   walk through that set reads the answer instead of advancing again. Kept while the frames are
   (m->gen), 8 sets. */
enum { SRT__GW_UNKNOWN = 0, SRT__GW_SAME = 1, SRT__GW_NONE = 2 };
static int srt__gm_id_cmp(const void *a, const void *b) { const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b; return (x > y) - (x < y); }
/* Sorted copy k (0 or 1) of the set at [at, at + n); NULL when out of memory. */
static const int32_t *srt__gw_sorted(srt__gmatch *m, int k, int at, int n) {
    if (n > m->w_tmp_cap) {
        int32_t *a = (int32_t *)SRT_REALLOC(m->w_tmp[0], (size_t)n * sizeof(int32_t)), *b;
        if (a) m->w_tmp[0] = a;
        b = a ? (int32_t *)SRT_REALLOC(m->w_tmp[1], (size_t)n * sizeof(int32_t)) : NULL;
        if (!b) return NULL;
        m->w_tmp[1] = b; m->w_tmp_cap = n;
    }
    memcpy(m->w_tmp[k], m->set.p + at, (size_t)n * sizeof(int32_t));
    qsort(m->w_tmp[k], (size_t)n, sizeof(int32_t), srt__gm_id_cmp);
    return m->w_tmp[k];
}
/* The memo's number of the set whose sorted frame numbers are ids (n of them); -1 if none. */
static int srt__gw_find(const srt__gmatch *m, const int32_t *ids, int n) {
    int i;
    for (i = 0; i < m->w_used; i++) if (m->w_n[i] == n && !memcmp(m->w_ids[i], ids, (size_t)n * sizeof(int32_t))) return i;
    return -1;
}
/* Keeps set ids in the memo: its number, -1 when the memo is full or memory ran out. */
static int srt__gw_keep(srt__gmatch *m, const int32_t *ids, int n) {
    const int i = m->w_used;
    if (i == SRT__GW_SETS || (!m->w_what && !(m->w_what = (unsigned char *)SRT_MALLOC((size_t)SRT__GW_SETS << 16)))) return -1;
    if (m->w_cap[i] < n) {
        int32_t *p = (int32_t *)SRT_REALLOC(m->w_ids[i], (size_t)n * sizeof(int32_t));
        if (!p) return -1;
        m->w_ids[i] = p; m->w_cap[i] = n;
    }
    memcpy(m->w_ids[i], ids, (size_t)n * sizeof(int32_t));
    m->w_n[i] = n;
    memset(m->w_what + ((size_t)i << 16), SRT__GW_UNKNOWN, (size_t)1 << 16);
    return m->w_used++;
}
/* Marks in allowed the tokens below trie node whose bytes the stacks at [at, at + n) take (the
   bytes so far leaving the incomplete character v, need, lo, hi); memo: the set's number in the
   walk's memo, -1 if it has none. */
static void srt__gm_walk(srt__gmatch *m, const srt__gtrie *t, int32_t node, int at, int n, uint32_t v, int need, unsigned char lo, unsigned char hi, unsigned char *allowed, int memo) {
    int32_t c, k;
    for (c = t->child[node]; c >= 0 && m->st == SRT_OK; c = t->sib[c]) {
        uint32_t v2 = v, cp = 0;
        int need2 = need, r, at2 = at, n2 = n, memo2 = memo;
        unsigned char lo2 = lo, hi2 = hi;
        const int base = m->set.n;
        if (!(r = srt__gm_utf8(&v2, &need2, &lo2, &hi2, t->byte[c], &cp))) continue;
        if (r == 1) { if (!srt__gm_partial_ok(m, at, n, v2, need2, lo2, hi2)) continue; }
        else {
            unsigned char *what = memo >= 0 && cp < 0x10000 ? m->w_what + ((size_t)memo << 16) + cp : NULL;
            if (what && *what == SRT__GW_NONE) continue;
            if (!what || *what != SRT__GW_SAME) {
                const int32_t *a, *b;
                at2 = srt__gm_advance(m, at, n, cp);
                n2 = m->set.n - at2;
                if (!n2) { m->set.n = base; if (what) *what = SRT__GW_NONE; continue; }
                if (n2 == n && (a = srt__gw_sorted(m, 0, at, n)) != NULL && (b = srt__gw_sorted(m, 1, at2, n2)) != NULL && !memcmp(a, b, (size_t)n * sizeof(int32_t))) {
                    if (memo < 0 && cp < 0x10000) memo = srt__gw_keep(m, a, n);   /* (the siblings go from this set too) */
                    if (memo >= 0 && cp < 0x10000) m->w_what[((size_t)memo << 16) + cp] = SRT__GW_SAME;
                    m->set.n = base; at2 = at; n2 = n; memo2 = memo;
                } else memo2 = m->w_used && (b = srt__gw_sorted(m, 1, at2, n2)) != NULL ? srt__gw_find(m, b, n2) : -1;
            }
        }
        for (k = t->tok[c]; k >= 0; k = t->next_tok[k]) allowed[k] = 1;
        if (t->child[c] >= 0 && (n2 > 1 || m->set.p[at2] != -1)) srt__gm_walk(m, t, c, at2, n2, v2, need2, lo2, hi2, allowed, memo2);
        m->set.n = base;
    }
}
/* allowed[0 .. vocab n) = 1 for the tokens the matcher's state lets come next, 0 for the others;
   returns how many (-1 on failure, m->st). */
static int srt__gm_allowed(srt__gmatch *m, const srt__gtrie *t, const srt__vocab *v, unsigned char *allowed) {
    int i, n = 0;
    const int base = m->set.n;
    memset(allowed, 0, (size_t)v->n);
    if (m->w_gen != m->gen || m->w_used == SRT__GW_SETS) { m->w_used = 0; m->w_gen = m->gen; }   /* (full: begin again) */
    if (t->n) {
        const int32_t *ids = m->w_used ? srt__gw_sorted(m, 0, 0, m->n_cur) : NULL;
        srt__gm_walk(m, t, 0, 0, m->n_cur, m->part_v, m->part_need, m->part_lo, m->part_hi, allowed, ids ? srt__gw_find(m, ids, m->n_cur) : -1);
    }
    m->set.n = base;
    if (m->st != SRT_OK) return -1;
    if (srt__gm_complete(m)) for (i = 0; i < v->n_eog; i++) allowed[v->eog[i]] = 1;
    for (i = 0; i < m->g->n_tok; i++) {   /* a referenced token: as the grammar's symbol only, not its text */
        const int32_t k = m->g->tok[i].id;
        if (k >= 0 && k < v->n) allowed[k] = (unsigned char)srt__gm_take_ref(m, k, 0);
        if (m->st != SRT_OK) return -1;
    }
    for (i = 0; i < v->n; i++) n += allowed[i];
    return n;
}
/* The allowed tokens of the last SRT__GC_N states of a matcher: inside a string or a repetition
   the state comes back token after token (the same stacks: frames are hash-consed, and a rule's
   last element does not keep its frame), and a state met before costs a lookup, not a trie walk.
   A state is its stacks (sorted), its partial character and the matcher's reset count. */
#define SRT__GC_N 8
typedef struct srt__gcache {
    unsigned char *masks;             /* SRT__GC_N x vocab n, allocated at the first walk */
    int32_t *keys[SRT__GC_N + 1];     /* the last one: the key looked up */
    int n_key[SRT__GC_N + 1], key_cap[SRT__GC_N + 1], count[SRT__GC_N];
    uint32_t used[SRT__GC_N], clock;  /* used 0: empty */
    uint64_t hits, walks;             /* lookups answered from the cache, trie walks */
} srt__gcache;
static void srt__gcache_free(srt__gcache *c) {
    int i;
    for (i = 0; i <= SRT__GC_N; i++) SRT_FREE(c->keys[i]);
    SRT_FREE(c->masks);
    memset(c, 0, sizeof *c);
}
static void srt__gcache_clear(srt__gcache *c) { int i; for (i = 0; i < SRT__GC_N; i++) c->used[i] = 0, c->n_key[i] = 0; }
/* srt__gm_allowed through the cache: the mask (vocab n bytes, 1 = allowed; valid until the next
   call) and its count in *count; NULL on failure (m->st). */
static const unsigned char *srt__gm_allowed_cached(srt__gcache *c, srt__gmatch *m, const srt__gtrie *t, const srt__vocab *v, int *count) {
    const size_t V = (size_t)v->n;
    const int nk = 5 + m->n_cur, q = SRT__GC_N;
    int i, slot = 0, cap;
    int32_t *key;
    if (!c->masks && !(c->masks = (unsigned char *)SRT_MALLOC(SRT__GC_N * V))) { srt__gm_fail(m, SRT_ERR_OUT_OF_MEMORY, "out of memory"); return NULL; }
    if (c->key_cap[q] < nk) {
        int32_t *nkey = (int32_t *)SRT_REALLOC(c->keys[q], (size_t)nk * sizeof(int32_t));
        if (!nkey) { srt__gm_fail(m, SRT_ERR_OUT_OF_MEMORY, "out of memory"); return NULL; }
        c->keys[q] = nkey; c->key_cap[q] = nk;
    }
    key = c->keys[q];
    key[0] = (int32_t)m->gen; key[1] = (int32_t)m->part_v; key[2] = m->part_need; key[3] = m->part_lo | m->part_hi << 8; key[4] = m->n_cur;
    memcpy(key + 5, m->set.p, (size_t)m->n_cur * sizeof(int32_t));
    qsort(key + 5, (size_t)m->n_cur, sizeof(int32_t), srt__gm_id_cmp);
    c->clock++;
    for (i = 0; i < SRT__GC_N; i++)
        if (c->n_key[i] == nk && !memcmp(c->keys[i], key, (size_t)nk * sizeof(int32_t))) {
            c->used[i] = c->clock;
            c->hits++;
            *count = c->count[i];
            return c->masks + (size_t)i * V;
        }
    for (i = 1; i < SRT__GC_N; i++) if (c->used[i] < c->used[slot]) slot = i;   /* an empty one, or the least recently used */
    c->keys[q] = c->keys[slot]; c->keys[slot] = key;   /* the key moves into the slot */
    cap = c->key_cap[q]; c->key_cap[q] = c->key_cap[slot]; c->key_cap[slot] = cap;
    c->n_key[slot] = 0;
    c->used[slot] = c->clock;
    c->walks++;
    if ((c->count[slot] = srt__gm_allowed(m, t, v, c->masks + (size_t)slot * V)) < 0) return NULL;
    c->n_key[slot] = nk;
    *count = c->count[slot];
    return c->masks + (size_t)slot * V;
}
/* Whether token k may come next (and, with commit, the matcher takes it). */
static int srt__gm_token(srt__gmatch *m, const srt__vocab *v, int32_t k, int commit) {
    if (k < 0 || k >= v->n) return 0;
    if (m->g->n_tok && srt__gm_refers(m, k)) return srt__gm_take_ref(m, k, commit);
    if (srt__is_eog(v, k)) return srt__gm_complete(m);
    return v->text_len[k] && srt__gm_feed(m, (const unsigned char *)v->text[k], v->text_len[k], commit);
}

/* ---------------------------------------------------------------- 12 transformer forward */
/* Sparse KV cache: a stretch of positions [p0, p1) pruned together (one input, fed in one or more
   batches) is stored, in each (layer, KV head) region of a pruned cache, as compact rows packed from
   p0's dense row on. Each compact row is no larger than a dense one, so the rows are rewritten in
   place in position order: nothing after p1 moves. */
#define SRT__KV_SEGS 64
typedef struct srt__kv_seg { int p0, p1; } srt__kv_seg;

/* A session's buffers for the mixture-of-experts FFN, carved from one block. S = n_batch x
   n_expert_used slots: a token's row once for each expert it picked, grouped by expert. */
typedef struct srt__moe_buf {
    void *block;
    float *logits;                    /* n_batch x n_expert: router logits, then probabilities */
    float *wts;                       /* n_batch x n_expert_used: the picked experts' weights */
    int32_t *pick;                    /* n_batch x n_expert_used: the picked experts */
    int32_t *off, *fill;              /* n_expert + 1: expert x's slots are off[x] .. off[x + 1] - 1; fill: the next unused */
    int32_t *tok;                     /* S: a slot's token */
    float *tw;                        /* S: its weight */
    float *xg, *yg;                   /* S x n_embd: the gathered inputs, the experts' outputs */
    float *hg, *hg2;                  /* S x n_ff: gate and up */
    float *shexp;                     /* n_batch x n_embd: the shared expert's output (else NULL) */
    srt__acts *acts;                  /* 2 n_expert: the prepared inputs of one region's jobs */
    srt__mm_job *jobs;                /* 2 n_expert */
    int64_t *start;                   /* 2 n_expert + 1 */
    void *acts_scratch;               /* their quantized activations */
} srt__moe_buf;
/* Allocates b for n_batch rows of model m (no experts: nothing); 0 when out of memory. */
static int srt__moe_alloc(const srt_allocator *a, const srt_model *m, int n_batch, srt__moe_buf *b) {
    const size_t B = (size_t)n_batch, X = (size_t)m->n_expert, K = (size_t)m->n_expert_used, S = B * K, E = (size_t)m->n_embd, F = (size_t)m->n_ff;
    const size_t maxc = E > F ? E : F;
    size_t sz[14], at = 0, i;
    char *p;
    memset(b, 0, sizeof *b);
    if (!X) return 1;
    sz[0] = B * X * 4; sz[1] = S * 4; sz[2] = S * 4; sz[3] = (X + 1) * 4; sz[4] = (X + 1) * 4; sz[5] = S * 4; sz[6] = S * 4;
    sz[7] = S * E * 4; sz[8] = S * E * 4; sz[9] = S * F * 4; sz[10] = S * F * 4;
    sz[11] = 2 * X * sizeof(srt__acts) + 2 * X * sizeof(srt__mm_job) + (2 * X + 1) * sizeof(int64_t);
    sz[12] = 2 * ((size_t)srt__acts_bytes(S, maxc, SRT__KPAD) + 128 * X);   /* each expert's piece rounded up to 64 bytes; gate and up may differ */
    sz[13] = m->n_ff_shexp ? B * E * 4 : 0;
    for (i = 0; i < 14; i++) at += (sz[i] + 63) / 64 * 64;
    if (!(p = (char *)srt__alloc(a, at))) return 0;
    b->block = p;
#define SRT__CARVE(field, type, k) (b->field = (type *)p, p += (sz[k] + 63) / 64 * 64)
    SRT__CARVE(logits, float, 0); SRT__CARVE(wts, float, 1); SRT__CARVE(pick, int32_t, 2); SRT__CARVE(off, int32_t, 3);
    SRT__CARVE(fill, int32_t, 4); SRT__CARVE(tok, int32_t, 5); SRT__CARVE(tw, float, 6); SRT__CARVE(xg, float, 7);
    SRT__CARVE(yg, float, 8); SRT__CARVE(hg, float, 9); SRT__CARVE(hg2, float, 10);
    if (sz[13]) SRT__CARVE(shexp, float, 13);
    b->jobs = (srt__mm_job *)p;
    b->acts = (srt__acts *)(b->jobs + 2 * X);
    b->start = (int64_t *)(b->acts + 2 * X);
    p += (sz[11] + 63) / 64 * 64;
    b->acts_scratch = p;
#undef SRT__CARVE
    return 1;
}

struct srt_session {
    srt_model *m;
    srt_session_desc d;
    int n_ctx, n_batch, kv_elem, kv_dim;   /* kv_elem: srt__kv_elem */
    uint64_t kv_stride, kv_row;       /* a cache row (one position of one KV head): elements, bytes */
    void *k_cache, *v_cache;          /* [layer][KV head][srt__kv_cap: n_ctx, or swa_cap for a sliding layer][row of head_dim values] */
    int kv_nnz[2];                    /* K, V: values kept per head row of pruned positions (head_dim: dense) */
    uint64_t kv_slot[2];              /* K, V: bytes of a compact row */
    int kv_compact;                   /* 1: compact rows (always, outside tests); 0: dropped values zeroed in place */
    int kv_prune;                     /* the batch being evaluated is input to prune */
    int swa_cap;                      /* rows a sliding layer's region holds: n_ctx, or a ring of fewer (position p in row p % swa_cap) */
    int swa_lo;                       /* the first position whose rows the sliding layers still hold */
    int n_seg;
    srt__kv_seg seg[SRT__KV_SEGS];    /* the compact stretches, in position order */
    int32_t *tokens;                  /* n_ctx: the sequence (evaluated + pending) */
    int n_tokens, n_eval;
    float *logits;                    /* n_vocab */
    int has_logits;
    float *rope_freq;                 /* rope_dim / 2 (then as many for the sliding layers when they have their own base) */
    float *rope_cs;                   /* n_batch x rope_dim / 2 x (cos, sin): the batch's angles, shared by all layers */
    float *rope_cs_swa;               /* the same for the sliding layers of a model with rope_theta_swa; else NULL */
    /* batch scratch, n_batch rows each */
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2;
    srt__moe_buf moe;                 /* mixture of experts (NULL pointers for a dense FFN) */
    void *acts;                       /* quantized activations for integer formats (srt__acts_bytes) */
    float *scores;                    /* n_threads x heads per KV head x n_ctx */
    void *bk;                         /* the backend's session (device KV cache), NULL on the CPU */
    srt__cand *cand;                  /* sampler */
    float *slog;                      /* sampler logits copy */
    float *spec_logits;               /* speculative decoding: SRT_DRAFT_MAX + 1 rows of n_vocab (allocated when first used) */
    uint64_t rng;
    int64_t cancel;                   /* atomic */
    /* constrained decoding (srt_session_set_grammar): the grammar's text is tokens[g_start ..); the
       matcher has taken tokens[g_start .. g_pos) */
    srt__grammar *gram;
    srt__gmatch gm;
    srt__gtrie gtrie;                 /* the vocabulary's, built with the first grammar */
    srt__gcache gcache;               /* the tokens the grammar lets come next, of its last states */
    int g_start, g_pos;
    char *gtrig;                      /* a lazy grammar's triggers, each NUL-terminated, n_gtrig of them */
    int n_gtrig, g_on;                /* g_on: the grammar applies (no triggers, or one was drawn) */
    char *gtext;                      /* before a trigger: the bytes of tokens[g_start .. g_pos) */
    size_t gtext_n, gtext_cap;
};

/* Hands the input of the matmul of w to the session's observer, named by where w lives. */
static void srt__observe(srt_session *s, const srt__weights *w, const float *x, int n_tok) {
    static const char *const names[10] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down",
                                          "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp"};
    const srt_model *m = s->m;
    int l, i;
    for (l = 0; l < m->n_layer; l++) {
        const srt__layer *L = &m->layers[l];
        const srt__weights *ws[10];
        ws[0] = &L->wq; ws[1] = &L->wk; ws[2] = &L->wv; ws[3] = &L->wo; ws[4] = &L->gate; ws[5] = &L->up; ws[6] = &L->down;
        ws[7] = &L->shexp_gate; ws[8] = &L->shexp_up; ws[9] = &L->shexp_down;
        for (i = 0; i < 10; i++)
            if (w == ws[i]) { s->d.observer(s->d.observer_user, l, names[i], x, n_tok, (int)w->cols); return; }
        if (w == &L->router) { s->d.observer(s->d.observer_user, l, "ffn_gate_inp", x, n_tok, (int)w->cols); return; }
        if (L->experts && w >= L->experts && w < L->experts + 3 * m->n_expert) {   /* "ffn_gate.X": expert X's, with its tokens only */
            char name[32];
            snprintf(name, sizeof name, "%s.%d", names[4 + (w - L->experts) % 3], (int)((w - L->experts) / 3));
            s->d.observer(s->d.observer_user, l, name, x, n_tok, (int)w->cols);
            return;
        }
    }
    if (w == &m->output) s->d.observer(s->d.observer_user, -1, "output", x, n_tok, (int)w->cols);
}
/* y[n_tok][rows] = x[n_tok][cols] * W^T (+ bias). Tiles of rows are claimed by the pool's threads;
   each output is computed by one thread in a fixed order, so results do not depend on threads. */
static void srt__matmul(srt_session *s, const srt__weights *w, const float *x, int n_tok, float *y, const float *bias) {
    if (s->d.observer) srt__observe(s, w, x, n_tok);
    srt__matmul_run(s->m->pool, s->m->isa, 1, &w, x, n_tok, &y, &bias, s->acts);
}
/* The same for n matrices of one input (q, k, v; gate, up): in one parallel region when their
   kernels can share the prepared activations, else one after the other. */
static void srt__matmul_same_input(srt_session *s, int n, const srt__weights *const *ws, const float *x, int n_tok,
                                   float *const *ys, const float *const *biases) {
    int i, fused = 1;
    for (i = 0; i < n; i++) {
        if (s->d.observer) srt__observe(s, ws[i], x, n_tok);
        if (i && !srt__same_acts(ws[0], ws[i])) fused = 0;
    }
    if (fused) srt__matmul_run(s->m->pool, s->m->isa, n, ws, x, n_tok, ys, biases, s->acts);
    else for (i = 0; i < n; i++) srt__matmul_run(s->m->pool, s->m->isa, 1, ws + i, x, n_tok, ys + i, biases ? biases + i : NULL, s->acts);
}

/* The sum of squares is the reference dot product (vector kernels reproduce it bit for bit). */
static void srt__rmsnorm(const srt__vec_ops *ops, float *o, const float *x, const float *w, int n, float eps) {
    float ss = ops->dot_f32(x, x, (uint64_t)n);
    int i;
    ss /= (float)n;
    ss += eps;
    ss = 1.0f / sqrtf(ss);
    for (i = 0; i < n; i++) o[i] = w[i] * (ss * x[i]);
}

/* cos and sin of position pos at each frequency, times a */
static void srt__rope_angles_of(const srt_session *s, const float *freq, float a, float *cs, int pos) {
    int i, half = s->m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float val = (float)pos * freq[i];
        cs[2 * i] = cosf(val); cs[2 * i + 1] = sinf(val);
        if (a != 1.0f) { cs[2 * i] *= a; cs[2 * i + 1] *= a; }
    }
}
static void srt__rope_angles(const srt_session *s, float *cs, int pos) { srt__rope_angles_of(s, s->rope_freq, s->m->rope_attn_factor, cs, pos); }
static void srt__rope(const srt_session *s, float *vec, int n_heads, const float *cs) {
    const srt_model *m = s->m;
    int h, i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float c = cs[2 * i], sn = cs[2 * i + 1];
        for (h = 0; h < n_heads; h++) {
            float *v = vec + h * m->head_dim;
            int a = m->rope_neox ? i : 2 * i, b = m->rope_neox ? i + half : 2 * i + 1;
            float v0 = v[a], v1 = v[b];
            v[a] = v0 * c - v1 * sn;
            v[b] = v0 * sn + v1 * c;
        }
    }
}

/* Whether a session of n_ctx positions rotates by LongRoPE's long factors (llama.cpp's rule: the
   context, not the position, picks them, so a KV cache never mixes the two). */
static int srt__rope_long(const srt_model *m, int n_ctx) { return m->rope_scaling == 3 && (float)n_ctx > m->rope_orig_ctx; }
static void srt__rope_init(srt_session *s) {
    const srt_model *m = s->m;
    int i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float freq = 1.0f / powf(m->rope_theta, (float)(2 * i) / (float)m->rope_dim);
        if (m->rope_scaling == 1) freq /= m->rope_factor;
        else if (m->rope_scaling == 2) {   /* Llama 3: long wavelengths scaled down, short kept, blend between */
            float wavelen = 6.28318530718f / freq;
            float low_wl = m->rope_orig_ctx / m->rope_low_freq, high_wl = m->rope_orig_ctx / m->rope_high_freq;
            if (wavelen > low_wl) freq /= m->rope_factor;
            else if (wavelen >= high_wl) {
                float smooth = (m->rope_orig_ctx / wavelen - m->rope_low_freq) / (m->rope_high_freq - m->rope_low_freq);
                freq = (1.0f - smooth) * freq / m->rope_factor + smooth * freq;
            }
        } else if (m->rope_scaling == 3)   /* LongRoPE: per-dimension divisors, the long set past the original context */
            freq /= srt__rope_long(m, s->n_ctx) ? m->rope_long[i] : m->rope_short[i];
        else if (m->rope_scaling == 4) {   /* YaRN: extrapolated below yarn_low, interpolated above yarn_high */
            float ramp = ((float)i - m->yarn_low) / (m->yarn_high - m->yarn_low > 0.001f ? m->yarn_high - m->yarn_low : 0.001f);
            const float mix = (1.0f - (ramp < 0.0f ? 0.0f : ramp > 1.0f ? 1.0f : ramp)) * m->yarn_ext;
            freq = freq / m->rope_factor * (1.0f - mix) + freq * mix;
        }
        s->rope_freq[i] = freq;
        if (s->rope_cs_swa) s->rope_freq[half + i] = 1.0f / powf(m->rope_theta_swa, (float)(2 * i) / (float)m->rope_dim);
    }
}

typedef struct srt__attn_job { srt_session *s; int layer, p0, n_tok, heads, window; } srt__attn_job;   /* window 0: all positions */

/* Rows of layer l's cache regions: n_ctx, or swa_cap for a sliding layer. */
static int srt__kv_cap(const srt_session *s, int layer) { return s->m->layers[layer].swa ? s->swa_cap : s->n_ctx; }
/* The cache region of one layer and KV head: srt__kv_cap rows of head_dim values. */
static char *srt__kv_region(const srt_session *s, int which, int layer, int kvh) {
    const size_t sb = (size_t)s->m->layers[layer].swa_before;
    const size_t at = (((size_t)layer - sb) * (size_t)s->n_ctx + sb * (size_t)s->swa_cap) * (size_t)s->m->n_head_kv + (size_t)kvh * (size_t)srt__kv_cap(s, layer);
    return (char *)(which ? s->v_cache : s->k_cache) + at * (size_t)s->kv_row;
}
/* The first of n evaluated positions a sliding layer still needs: the last window - 1 (what the
   next token reads besides its own); 0 for a model without sliding layers. */
static int srt__swa_keep(const srt_model *m, int n) { return m->swa_window > 0 && n > m->swa_window - 1 ? n - (m->swa_window - 1) : 0; }
/* The first position whose rows a session state holds for layer l of n evaluated positions. */
static int srt__state_lo(const srt_session *s, int layer, int n) { return s->m->layers[layer].swa ? srt__swa_keep(s->m, n) : 0; }
/* The first pruned stretch that ends after position p (where srt__kv_run starts from p). */
static int srt__kv_seg_from(const srt_session *s, int p) {
    int g;
    for (g = 0; g < s->n_seg && s->seg[g].p1 <= p; g++) {}
    return g;
}
/* The run of positions from *p (< n) stored one way in a region of cache `which`: returns 1 for
   compact rows, 0 for dense ones; *e = the run's end, *rows = the row of *p. *seg: the next stretch
   not yet passed (start at srt__kv_seg_from(*p)). cap: the region's rows (srt__kv_cap);
   in a ring (cap < n_ctx, never pruned) a run ends where the ring wraps. */
static int srt__kv_run(const srt_session *s, int which, const char *region, int cap, int n, int *p, int *seg, int *e, const char **rows) {
    size_t row = (size_t)s->kv_row;
    if (cap < s->n_ctx) {
        const int wrap = (*p / cap + 1) * cap;
        *e = wrap < n ? wrap : n;
        *rows = region + (size_t)(*p % cap) * row;
        return 0;
    }
    if (s->kv_compact && s->kv_nnz[which] < s->m->head_dim && *seg < s->n_seg) {
        const srt__kv_seg *g = &s->seg[*seg];
        if (*p >= g->p0) {
            *e = g->p1 < n ? g->p1 : n;
            *rows = region + (size_t)g->p0 * row + (size_t)(*p - g->p0) * s->kv_slot[which];
            ++*seg;
            return 1;
        }
        *e = g->p0 < n ? g->p0 : n;
    } else *e = n;
    *rows = region + (size_t)*p * row;
    return 0;
}

/* One task = one (token, KV head, j->heads of the query heads that share it): for each of these
   heads g, softmax(q_g . K / sqrt(d)) V over positions 0..pos (a sliding layer: the last j->window
   of them; Gemma: its own scale and soft cap); the K and V rows are read once for all of them (the
   group is split only when there would be too few tasks for the threads). */
static void srt__attn_tasks(void *user, int64_t begin, int64_t end, int thread) {
    srt__attn_job *j = (srt__attn_job *)user;
    srt_session *s = j->s;
    const srt_model *m = s->m;
    const srt__vec_ops *ops = &m->ops;
    int hd = m->head_dim, group = m->n_head / m->n_head_kv, G = j->heads, chunks = group / G;
    size_t ld = (size_t)s->n_ctx;
    float *sc = s->scores + (size_t)thread * (size_t)group * ld, scale = m->attn_scale, cap = m->attn_softcap, mx[SRT__MAX_HEADS];
    const float *sinks = m->layers[j->layer].sinks;
    int top[SRT__MAX_HEADS];
    int64_t task;
    for (task = begin; task < end; task++) {
        int t = (int)(task / (m->n_head_kv * chunks)), kvh = (int)(task / chunks % m->n_head_kv), n = j->p0 + t + 1, p, e, seg, seg0, g;
        const int lo = j->window && n > j->window ? n - j->window : 0;   /* the first position seen */
        const int head0 = kvh * group + (int)(task % chunks) * G;   /* the first head */
        size_t h0 = (size_t)t * m->n_head * hd + (size_t)head0 * hd;
        const char *kreg = srt__kv_region(s, 0, j->layer, kvh), *vreg = srt__kv_region(s, 1, j->layer, kvh), *rows;
        const int ring = srt__kv_cap(s, j->layer);
        seg0 = srt__kv_seg_from(s, lo);   /* past the pruned stretches wholly before the window */
        for (p = lo, seg = seg0; p < n; p = e)
            if (srt__kv_run(s, 0, kreg, ring, n, &p, &seg, &e, &rows))
                ops->attn_scores_sb((const unsigned char *)rows, s->kv_slot[0], s->q + h0, G, (uint64_t)hd, e - p, scale, sc + p, ld);
            else ops->attn_scores(rows, s->kv_elem, s->kv_stride, s->q + h0, G, (uint64_t)hd, e - p, scale, sc + p, ld);
        if (cap > 0.0f)   /* Gemma 2: scores squashed into (-cap, cap) before the softmax */
            for (g = 0; g < G; g++) srt__softcap(ops, sc + (size_t)g * ld + (size_t)lo, (uint64_t)(n - lo), cap);
        for (g = 0; g < G && sinks; g++) {   /* gpt-oss: each row's largest score, for its sink below */
            const float *r = sc + (size_t)g * ld;
            for (top[g] = lo, p = lo + 1; p < n; p++) if (r[p] > r[top[g]]) top[g] = p;
            mx[g] = r[top[g]];
        }
        ops->softmax(sc + lo, ld, G, (uint64_t)(n - lo));
        for (g = 0; g < G && sinks; g++) {   /* the sink's exp(sink - max) joins the denominator, sum = 1 / p(top): the
                                               probabilities times sum / (sum + exp(sink - max)) */
            float *r = sc + (size_t)g * ld;
            const float f = 1.0f / (1.0f + r[top[g]] * expf(sinks[head0 + g] - mx[g]));
            for (p = lo; p < n; p++) r[p] *= f;
        }
        memset(s->att + h0, 0, (size_t)G * (size_t)hd * sizeof(float));
        for (p = lo, seg = seg0; p < n; p = e)
            if (srt__kv_run(s, 1, vreg, ring, n, &p, &seg, &e, &rows))
                ops->attn_values_sb((const unsigned char *)rows, s->kv_slot[1], sc + p, ld, G, e - p, (uint64_t)hd, s->att + h0);
            else ops->attn_values(rows, s->kv_elem, s->kv_stride, sc + p, ld, G, e - p, (uint64_t)hd, s->att + h0);
    }
}

/* Prunes the rows of positions b0..b0+n-1 (the batch just evaluated) in layer l's pruned caches:
   compact rows continuing the last stretch if it ends at b0, else starting a new one. One task =
   one cache region (in place, in position order). */
typedef struct srt__prune_job { srt_session *s; int layer, b0, n; } srt__prune_job;
static void srt__kv_prune_tasks(void *user, int64_t begin, int64_t end, int thread) {
    srt__prune_job *j = (srt__prune_job *)user;
    srt_session *s = j->s;
    int hd = s->m->head_dim, n_kv = s->m->n_head_kv, t;
    int p0 = s->n_seg && s->seg[s->n_seg - 1].p1 == j->b0 ? s->seg[s->n_seg - 1].p0 : j->b0;
    int64_t task;
    (void)thread;
    for (task = begin; task < end; task++) {
        int which = (int)(task / n_kv), kvh = (int)(task % n_kv);
        uint16_t *reg = (uint16_t *)srt__kv_region(s, which, j->layer, kvh), row[SRT__KV_MAX_HD];
        if (s->kv_nnz[which] >= hd) continue;
        for (t = 0; t < j->n; t++) {
            uint16_t *dense = reg + (size_t)(j->b0 + t) * (size_t)hd;
            memcpy(row, dense, (size_t)hd * 2);   /* the compact row may overlap its own dense one */
            if (s->kv_compact)
                srt__kv_compact_row(row, (uint64_t)hd, (uint64_t)s->kv_nnz[which],
                                    (unsigned char *)(reg + (size_t)p0 * (size_t)hd) + (size_t)(j->b0 + t - p0) * s->kv_slot[which]);
            else {   /* the reference: the same values dropped, the row kept dense */
                unsigned char c[SRT__KV_MAX_HD / 8 * 2 + SRT__KV_MAX_HD * 2];
                srt__kv_compact_row(row, (uint64_t)hd, (uint64_t)s->kv_nnz[which], c);
                srt__kv_expand(c, (uint64_t)hd, dense);
            }
        }
    }
}

/* The activations of w on x (nt rows) prepared in the next free piece of the MoE scratch; returns the piece. */
static void *srt__moe_acts(srt__moe_buf *b, int *na, char **scratch, const srt__weights *w, const float *x, int nt, srt_isa isa) {
    void *sc = *scratch;
    *scratch += (srt__acts_bytes((uint64_t)nt, w->cols, SRT__KPAD) + 63) / 64 * 64;
    srt__acts_prepare(&b->acts[(*na)++], w, x, nt, sc, isa);
    return sc;
}

/* The mixture-of-experts FFN of layer L for the n tokens in s->xb, its output in s->xb: each token's
   router logits, softmax over all experts, the n_expert_used most probable (ties: the lower index)
   weighted by their probability (divided by the picked ones' sum with expert_norm). The rows routed
   to each expert are gathered into one batch per expert (one token: every expert reads its row, so
   it is neither copied nor quantized again); all experts' gate and up products run in one
   parallel region, their down products in a second (a decoded token: 2 regions for its 8 experts,
   not 16); the weighted outputs are added expert by expert, in index order. A shared expert
   (qwen2moe, granitemoe) goes first, as a dense FFN on s->hb / s->hb2, and its output
   (qwen2moe's scaled by its gate) comes last. */
static void srt__moe_ffn(srt_session *s, const srt__layer *L, int n) {
    const srt_model *m = s->m;
    const int E = m->n_embd, F = m->n_ff, X = m->n_expert, K = m->n_expert_used;
    srt__moe_buf *b = &s->moe;
    char *scratch = (char *)b->acts_scratch;
    const srt__weights *aw = NULL;   /* the weights the last prepared input was made for */
    void *sc = NULL;
    int t, i, j, x, nj = 0, na = 0;
    if (m->n_ff_shexp) {   /* shexp_t = [sigmoid(gate_inp . x_t)] down(silu(gate x_t) * up x_t) */
        const srt__weights *ws[2];
        float *ys[2];
        ws[0] = &L->shexp_gate; ws[1] = &L->shexp_up; ys[0] = s->hb; ys[1] = s->hb2;
        srt__matmul_same_input(s, 2, ws, s->xb, n, ys, NULL);
        m->ops.swiglu(s->hb, s->hb2, (uint64_t)n * (uint64_t)m->n_ff_shexp);
        srt__matmul(s, &L->shexp_down, s->hb, n, b->shexp, NULL);
        for (t = 0; t < n && L->shexp_gate_inp; t++) {
            const float *xt = s->xb + (size_t)t * E;
            float *o = b->shexp + (size_t)t * E, g = 0.0f;
            for (j = 0; j < E; j++) g += L->shexp_gate_inp[j] * xt[j];
            g = 1.0f / (1.0f + expf(-g));
            for (j = 0; j < E; j++) o[j] *= g;
        }
    }
    srt__matmul(s, &L->router, s->xb, n, b->logits, L->router_b);
    memset(b->off, 0, (size_t)(X + 1) * sizeof(int32_t));
    for (t = 0; t < n; t++) {
        float *p = b->logits + (size_t)t * X, mx = p[0], sum = 0.0f, wsum = 0.0f;
        int32_t *pick = b->pick + (size_t)t * K;
        float *wt = b->wts + (size_t)t * K;
        for (i = 1; i < X; i++) if (p[i] > mx) mx = p[i];
        for (i = 0; i < X; i++) { p[i] = expf(p[i] - mx); sum += p[i]; }
        for (i = 0; i < X; i++) p[i] /= sum;
        for (j = 0; j < K; j++) {   /* the most probable left; a picked one's probability becomes -1 */
            int best = 0;
            for (i = 1; i < X; i++) if (p[i] > p[best]) best = i;
            pick[j] = best;
            wt[j] = p[best];
            wsum += p[best];
            p[best] = -1.0f;
            b->off[best + 1]++;
        }
        if (m->expert_norm) for (j = 0; j < K; j++) wt[j] /= wsum;
    }
    for (x = 0; x < X; x++) { b->fill[x] = b->off[x]; b->off[x + 1] += b->off[x]; }
    for (t = 0; t < n; t++)   /* slot r of expert x: a token routed to it, in token order */
        for (j = 0; j < K; j++) {
            const int r = b->fill[b->pick[(size_t)t * K + j]]++;
            b->tok[r] = t;
            b->tw[r] = b->wts[(size_t)t * K + j];
            if (n > 1) memcpy(b->xg + (size_t)r * E, s->xb + (size_t)t * E, (size_t)E * sizeof(float));
        }
    for (x = 0; x < X; x++) {   /* gate and up: one job each per expert with tokens */
        const int r0 = b->off[x], nt = b->off[x + 1] - r0;
        const srt__weights *g = &L->experts[3 * x], *u = &L->experts[3 * x + 1];
        const float *xs = n > 1 ? b->xg + (size_t)r0 * E : s->xb;
        if (!nt) continue;
        if (s->d.observer) { srt__observe(s, g, xs, nt); srt__observe(s, u, xs, nt); }
        if (n > 1 || !aw || !srt__same_acts(aw, g)) { sc = srt__moe_acts(b, &na, &scratch, g, xs, nt, m->isa); aw = g; }
        srt__mm_job_init(&b->jobs[nj++], g, &b->acts[na - 1], xs, nt, b->hg + (size_t)r0 * F, L->expert_bias ? L->expert_bias[3 * x] : NULL, sc, m->isa);
        if (!srt__same_acts(aw, u)) { sc = srt__moe_acts(b, &na, &scratch, u, xs, nt, m->isa); aw = u; }
        srt__mm_job_init(&b->jobs[nj++], u, &b->acts[na - 1], xs, nt, b->hg2 + (size_t)r0 * F, L->expert_bias ? L->expert_bias[3 * x + 1] : NULL, sc, m->isa);
    }
    srt__mm_run(m->pool, nj, b->jobs, b->start);
    if (m->gptoss) srt__swiglu_oai(b->hg, b->hg2, (uint64_t)n * K * F);
    else m->ops.swiglu(b->hg, b->hg2, (uint64_t)n * K * F);
    scratch = (char *)b->acts_scratch;
    nj = na = 0;
    for (x = 0; x < X; x++) {   /* down */
        const int r0 = b->off[x], nt = b->off[x + 1] - r0;
        const srt__weights *d = &L->experts[3 * x + 2];
        const float *hs = b->hg + (size_t)r0 * F;
        if (!nt) continue;
        if (s->d.observer) srt__observe(s, d, hs, nt);
        sc = srt__moe_acts(b, &na, &scratch, d, hs, nt, m->isa);
        srt__mm_job_init(&b->jobs[nj++], d, &b->acts[na - 1], hs, nt, b->yg + (size_t)r0 * E, L->expert_bias ? L->expert_bias[3 * x + 2] : NULL, sc, m->isa);
    }
    srt__mm_run(m->pool, nj, b->jobs, b->start);
    memset(s->xb, 0, (size_t)n * E * sizeof(float));   /* the inputs are read: xb takes the sum */
    for (i = 0; i < n * K; i++) {   /* slots are in expert order */
        float *o = s->xb + (size_t)b->tok[i] * E;
        const float *y = b->yg + (size_t)i * E, w = b->tw[i];
        for (j = 0; j < E; j++) o[j] += w * y[j];
    }
    if (m->n_ff_shexp)
        for (i = 0; i < n * E; i++) s->xb[i] += b->shexp[i];
}

/* Evaluates n (<= n_batch) tokens at positions n_eval.. and the logits of the last n_logits of them
   (0 .. n) into out, n_vocab floats each. */
static void srt__forward_batch(srt_session *s, const int32_t *toks, int n, int n_logits, float *out) {
    srt_model *m = s->m;
    int E = m->n_embd, Q = m->n_head * m->head_dim, KV = s->kv_dim, F = m->n_ff, hd = m->head_dim, p0 = s->n_eval, l, t, i, h;
    if (p0 == 0) s->swa_lo = 0;   /* from the start: every row is written again */
    for (t = 0; t < n; t++) {
        srt__weights_row(&m->tok_embd, (uint64_t)toks[t], s->x + (size_t)t * E);
        if (m->embd_scale != 1.0f)   /* Gemma (sqrt(n_embd)) and Granite scale their embeddings */
            for (i = 0; i < E; i++) s->x[(size_t)t * E + i] *= m->embd_scale;
        srt__rope_angles(s, s->rope_cs + (size_t)t * m->rope_dim, p0 + t);
        if (s->rope_cs_swa) srt__rope_angles_of(s, s->rope_freq + m->rope_dim / 2, 1.0f, s->rope_cs_swa + (size_t)t * m->rope_dim, p0 + t);   /* unscaled */
    }
    for (l = 0; l < m->n_layer; l++) {
        const srt__layer *L = &m->layers[l];
        const float *rope_cs = L->swa && s->rope_cs_swa ? s->rope_cs_swa : s->rope_cs;
        srt__attn_job aj;
        if (L->attn_norm)
            for (t = 0; t < n; t++) srt__rmsnorm(&m->ops, s->xb + (size_t)t * E, s->x + (size_t)t * E, L->attn_norm, E, m->norm_eps);
        else memcpy(s->xb, s->x, (size_t)n * (size_t)E * sizeof(float));   /* OLMo 2 */
        {
            const srt__weights *ws[3];
            float *ys[3];
            const float *bs[3];
            ws[0] = &L->wq; ws[1] = &L->wk; ws[2] = &L->wv; ys[0] = s->q; ys[1] = s->k; ys[2] = s->v; bs[0] = L->bq; bs[1] = L->bk; bs[2] = L->bv;
            srt__matmul_same_input(s, 3, ws, s->xb, n, ys, bs);
        }
        for (t = 0; t < n; t++) {
            const float *cs = rope_cs + (size_t)t * m->rope_dim;
            float *qt = s->q + (size_t)t * Q, *kt = s->k + (size_t)t * KV;
            if (L->q_norm && m->qk_norm_full) {   /* olmo2, olmoe: all of q, all of k */
                srt__rmsnorm(&m->ops, qt, qt, L->q_norm, Q, m->norm_eps);
                srt__rmsnorm(&m->ops, kt, kt, L->k_norm, KV, m->norm_eps);
            } else if (L->q_norm) {   /* qwen3, gemma3: each head of q and k normalized before the rotation */
                for (h = 0; h < m->n_head; h++) srt__rmsnorm(&m->ops, qt + (size_t)h * hd, qt + (size_t)h * hd, L->q_norm, hd, m->norm_eps);
                for (h = 0; h < m->n_head_kv; h++) srt__rmsnorm(&m->ops, kt + (size_t)h * hd, kt + (size_t)h * hd, L->k_norm, hd, m->norm_eps);
            }
            if (!L->nope) {
                srt__rope(s, qt, m->n_head, cs);
                srt__rope(s, kt, m->n_head_kv, cs);
            }
            for (h = 0; h < m->n_head_kv; h++) {
                size_t at = (size_t)((p0 + t) % srt__kv_cap(s, l)) * (size_t)s->kv_row;
                const float *k = s->k + (size_t)t * KV + (size_t)h * hd, *v = s->v + (size_t)t * KV + (size_t)h * hd;
                char *kc = srt__kv_region(s, 0, l, h) + at, *vc = srt__kv_region(s, 1, l, h) + at;
                if (s->kv_elem == SRT__KV_E_F16) {
                    for (i = 0; i < hd; i++) { uint16_t hk = srt_f32_to_f16(k[i]), hv = srt_f32_to_f16(v[i]); memcpy(kc + 2 * i, &hk, 2); memcpy(vc + 2 * i, &hv, 2); }
                } else if (s->kv_elem == SRT__KV_E_Q8) {
                    srt__kv_q8_store(k, (uint64_t)hd, (unsigned char *)kc);
                    srt__kv_q8_store(v, (uint64_t)hd, (unsigned char *)vc);
                } else {
                    memcpy(kc, k, (size_t)hd * sizeof(float));
                    memcpy(vc, v, (size_t)hd * sizeof(float));
                }
            }
        }
        aj.s = s; aj.layer = l; aj.p0 = p0; aj.n_tok = n; aj.heads = m->n_head / m->n_head_kv; aj.window = L->swa ? m->swa_window : 0;
        while (aj.heads % 2 == 0 && n * m->n_head / aj.heads < 2 * srt_pool_threads(m->pool)) aj.heads /= 2;
        srt_pool_parallel_for(m->pool, (int64_t)n * m->n_head / aj.heads, 1, srt__attn_tasks, &aj);
        if (s->kv_prune) {
            srt__prune_job pj;
            pj.s = s; pj.layer = l; pj.b0 = p0; pj.n = n;
            srt_pool_parallel_for(m->pool, 2 * (int64_t)m->n_head_kv, 1, srt__kv_prune_tasks, &pj);
        }
        srt__matmul(s, &L->wo, s->att, n, s->xb, L->bo);
        if (L->post_attn_norm)
            for (t = 0; t < n; t++) srt__rmsnorm(&m->ops, s->xb + (size_t)t * E, s->xb + (size_t)t * E, L->post_attn_norm, E, m->norm_eps);
        if (m->residual_scale != 1.0f) for (i = 0; i < n * E; i++) s->xb[i] *= m->residual_scale;   /* Granite */
        for (i = 0; i < n * E; i++) s->x[i] += s->xb[i];
        if (L->ffn_norm)
            for (t = 0; t < n; t++) srt__rmsnorm(&m->ops, s->xb + (size_t)t * E, s->x + (size_t)t * E, L->ffn_norm, E, m->norm_eps);
        else memcpy(s->xb, s->x, (size_t)n * (size_t)E * sizeof(float));
        if (L->experts) srt__moe_ffn(s, L, n);
        else {
            const srt__weights *ws[2];
            float *ys[2];
            ws[0] = &L->gate; ws[1] = &L->up; ys[0] = s->hb; ys[1] = s->hb2;
            srt__matmul_same_input(s, 2, ws, s->xb, n, ys, NULL);
            if (m->gemma) m->ops.geglu(s->hb, s->hb2, (uint64_t)n * F);
            else m->ops.swiglu(s->hb, s->hb2, (uint64_t)n * F);
            srt__matmul(s, &L->down, s->hb, n, s->xb, NULL);
        }
        if (L->post_ffw_norm)
            for (t = 0; t < n; t++) srt__rmsnorm(&m->ops, s->xb + (size_t)t * E, s->xb + (size_t)t * E, L->post_ffw_norm, E, m->norm_eps);
        if (m->residual_scale != 1.0f) for (i = 0; i < n * E; i++) s->xb[i] *= m->residual_scale;
        for (i = 0; i < n * E; i++) s->x[i] += s->xb[i];
    }
    if (s->kv_prune) {   /* the batch's rows are pruned in every layer now */
        if (s->n_seg && s->seg[s->n_seg - 1].p1 == p0) s->seg[s->n_seg - 1].p1 = p0 + n;
        else { s->seg[s->n_seg].p0 = p0; s->seg[s->n_seg].p1 = p0 + n; s->n_seg++; }
    }
    s->n_eval += n;
    if (s->n_eval - s->swa_cap > s->swa_lo) s->swa_lo = s->n_eval - s->swa_cap;   /* the ring wrapped over these */
    s->has_logits = 0;
    if (n_logits > 0) {
        for (t = 0; t < n_logits; t++) srt__rmsnorm(&m->ops, s->xb + (size_t)t * E, s->x + (size_t)(n - n_logits + t) * E, m->output_norm, E, m->norm_eps);
        srt__matmul(s, &m->output, s->xb, n_logits, out, NULL);
        if (m->final_softcap > 0.0f) srt__softcap(&m->ops, out, (uint64_t)n_logits * m->n_vocab, m->final_softcap);   /* Gemma 2 */
        if (m->logit_scale != 1.0f) {   /* Granite */
            const float inv = 1.0f / m->logit_scale;
            for (i = 0; i < n_logits * m->n_vocab; i++) out[i] *= inv;
        }
    }
}

/* The same on the model's backend: the core computes the rotation angles, the device does the rest.
   n_logits 0 or 1 (forward) or more (forward_rows, which the caller checked is there). */
static srt_status srt__backend_forward(srt_session *s, const int32_t *toks, int n, int n_logits, float *out) {
    srt_backend *b = s->m->backend;
    char err[256];
    srt_status st;
    int t;
    for (t = 0; t < n; t++) srt__rope_angles(s, s->rope_cs + (size_t)t * s->m->rope_dim, s->n_eval + t);
    err[0] = 0;
    s->has_logits = 0;
    st = n_logits > 1 ? b->forward_rows(b, s->bk, toks, n, s->n_eval, s->rope_cs, n_logits, out, err, sizeof err)
                      : b->forward(b, s->bk, toks, n, s->n_eval, s->rope_cs, n_logits ? out : NULL, err, sizeof err);
    if (st != SRT_OK) return srt__fail(st, "backend %s: %s", b->name, err);
    s->n_eval += n;
    s->has_logits = n_logits == 1 && out == s->logits;
    return SRT_OK;
}

/* ---------------------------------------------------------------- 13 sessions and generation */
/* ---- constrained decoding: the session's grammar. A lazy grammar (triggers) applies from the
   first trigger in the text on: until then the text's bytes are kept in gtext to find one. */
/* The grammar's text starts again: from g_start, with no trigger seen yet. */
static void srt__grammar_rewind(srt_session *s) {
    s->g_pos = s->g_start;
    s->g_on = s->n_gtrig == 0;
    s->gtext_n = 0;
    srt__gm_reset(&s->gm);
}
/* ... at the end of the sequence (after input, a reset, a state load). */
static void srt__grammar_restart(srt_session *s) {
    if (!s->gram) return;
    s->g_start = s->n_tokens;
    srt__grammar_rewind(s);
}
/* Whether the grammar lets token t come next (with commit, the matcher takes it): 1 or 0 (and
   s->gm.st on failure). Before a lazy grammar's trigger every token may come; the token that
   completes a trigger only if the grammar takes the text from the trigger's first byte on. */
static int srt__grammar_take(srt_session *s, int32_t t, int commit) {
    const srt__vocab *v = &s->m->vocab;
    const size_t n0 = s->gtext_n, len = t >= 0 && t < v->n ? v->text_len[t] : 0;
    size_t at = (size_t)-1, p, i;
    const char *tr;
    int ok;
    if (s->g_on) return srt__gm_token(&s->gm, v, t, commit);
    if (n0 + len > s->gtext_cap) {
        size_t cap = 2 * (n0 + len) + 256;
        char *np = (char *)SRT_REALLOC(s->gtext, cap);
        if (!np) { srt__gm_fail(&s->gm, SRT_ERR_OUT_OF_MEMORY, "out of memory"); return 0; }
        s->gtext = np; s->gtext_cap = cap;
    }
    if (len) memcpy(s->gtext + n0, v->text[t], len);
    s->gtext_n = n0 + len;
    for (tr = s->gtrig, i = 0; i < (size_t)s->n_gtrig; tr += strlen(tr) + 1, i++) {   /* the earliest trigger that ends in t's bytes */
        const size_t L = strlen(tr);
        for (p = n0 + 1 > L ? n0 + 1 - L : 0; p + L <= s->gtext_n && p < at; p++)
            if (memcmp(s->gtext + p, tr, L) == 0) { at = p; break; }
    }
    if (at == (size_t)-1) { if (!commit) s->gtext_n = n0; return 1; }
    ok = srt__gm_feed(&s->gm, (const unsigned char *)s->gtext + at, s->gtext_n - at, commit);
    if (!ok || !commit) s->gtext_n = n0;
    else s->g_on = 1;
    return ok;
}
/* The matcher takes the tokens of the text it has not taken yet (all of them again after a failure,
   or when its frames grew past SRT__GM_COMPACT: only the live ones are made again). */
#ifndef SRT__GM_COMPACT
#define SRT__GM_COMPACT (1 << 20)
#endif
static srt_status srt__grammar_sync(srt_session *s) {
    if (s->gm.st != SRT_OK || s->gm.n_fr > SRT__GM_COMPACT) {
        s->gm.st = SRT_OK;
        srt__grammar_rewind(s);
    }
    while (s->g_pos < s->n_tokens && s->gm.st == SRT_OK) {
        if (!srt__grammar_take(s, s->tokens[s->g_pos], 1)) {
            if (s->gm.st != SRT_OK) break;
            return srt__fail(SRT_ERR_INVALID_ARG, "grammar: token %d of the sequence (id %d) does not continue the grammar's text", s->g_pos, s->tokens[s->g_pos]);
        }
        s->g_pos++;
    }
    return s->gm.st;
}
/* srt__sample under the grammar: the token the sampler draws from the allowed ones. Greedy first
   tries the argmax, which is the answer whenever the grammar allows it; so does a lazy grammar
   before its trigger, with any temperature (all tokens are allowed then but those that would
   start the grammar's text with what it refuses: drawn again without them). */
#define SRT__GRAMMAR_REDRAWS 64
static srt_status srt__grammar_draw(srt_session *s, int32_t *out) {
    const srt__vocab *v = &s->m->vocab;
    const size_t V = (size_t)s->m->n_vocab;
    int32_t t, i, best = -1, banned[SRT__GRAMMAR_REDRAWS];
    int n, nb = 0;
    const unsigned char *allow;
    srt_status st;
    if ((st = srt__grammar_sync(s)) != SRT_OK) return st;
    while (!s->g_on || !(s->d.sampler.temperature > 0.0f)) {
        memcpy(s->slog, s->logits, V * sizeof(float));
        for (i = 0; i < nb; i++) s->slog[banned[i]] = -INFINITY;
        t = srt__sample(&s->d.sampler, &s->m->ops, s->slog, v->n, s->tokens, s->n_tokens, s->cand, &s->rng, -1);
        if (srt__grammar_take(s, t, 0)) { *out = t; return SRT_OK; }
        if (s->gm.st != SRT_OK) return s->gm.st;
        if (s->g_on) break;   /* greedy: the mask below */
        if (nb == SRT__GRAMMAR_REDRAWS)
            return srt__fail(SRT_ERR_UNSUPPORTED, "grammar: %d draws in a row started the grammar's text at a trigger with text it refuses", nb);
        banned[nb++] = t;
    }
    if (!(allow = srt__gm_allowed_cached(&s->gcache, &s->gm, &s->gtrie, v, &n))) return s->gm.st;
    if (n == 0)
        return srt__fail(SRT_ERR_UNSUPPORTED, "grammar: no token of the vocabulary continues the text here (%d tokens into it)%s",
                         s->n_tokens - s->g_start, srt__gm_complete(&s->gm) ? "; it is complete, and the vocabulary has no end-of-generation token" : "");
    memcpy(s->slog, s->logits, V * sizeof(float));
    for (i = 0; i < v->n; i++)
        if (!allow[i]) s->slog[i] = -INFINITY;
        else if (best < 0 || s->slog[i] > s->slog[best]) best = i;
    t = srt__sample(&s->d.sampler, &s->m->ops, s->slog, v->n, s->tokens, s->n_tokens, s->cand, &s->rng, -1);
    *out = allow[t] ? t : best;   /* (a draw at the very end of the sum can round onto a masked token) */
    return SRT_OK;
}
/* The token references' ids from the vocabulary: <[ID]> below its size, <TEXT> the token whose
   piece is <TEXT> (control tokens: "<s>", "<|im_start|>"), else the one whose text is (the first
   of several). */
static srt_status srt__grammar_resolve(srt__grammar *g, const srt__vocab *v) {
    int i;
    int32_t k;
    for (i = 0; i < g->n_tok; i++) {
        srt__gtok *t = &g->tok[i];
        if (t->text) {
            const size_t len = strlen(t->text);
            for (k = 0; k < v->n && !(v->piece_len[k] == len && memcmp(v->piece[k], t->text, len) == 0); k++) {}
            if (k == v->n) for (k = 0; k < v->n && !(v->text_len[k] == len && memcmp(v->text[k], t->text, len) == 0); k++) {}
            if (k == v->n) return srt__fail(SRT_ERR_INVALID_ARG, "grammar: %s is not a token of the vocabulary (a reference <TEXT> names one token by its text)", t->text);
            t->id = k;
        } else if (t->id >= v->n)
            return srt__fail(SRT_ERR_INVALID_ARG, "grammar: token <[%d]> is past the vocabulary (%d tokens)", (int)t->id, v->n);
        g->rng[t->rng] = g->rng[t->rng + 1] = SRT__G_TOKEN + (uint32_t)t->id;
    }
    return SRT_OK;
}
#define SRT__GRAMMAR_TRIGGERS 64
SRT_API srt_status srt_session_set_grammar_lazy(srt_session *s, const char *gbnf, const char *const *triggers, int n_triggers) {
    srt__grammar *g = NULL;
    srt__gmatch gm;
    srt_status st;
    size_t tsize = 0;
    char *trig = NULL;
    int i;
    if (!s) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_set_grammar: NULL session");
    if (!gbnf) {
        srt__grammar_free(s->gram); srt__gm_free(&s->gm); SRT_FREE(s->gtrig);
        s->gram = NULL; s->gtrig = NULL; s->n_gtrig = 0;
        return SRT_OK;
    }
    if (n_triggers < 0 || n_triggers > SRT__GRAMMAR_TRIGGERS || (n_triggers > 0 && !triggers))
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_set_grammar_lazy: %d triggers (0 .. %d)", n_triggers, SRT__GRAMMAR_TRIGGERS);
    for (i = 0; i < n_triggers; i++) {
        if (!triggers[i] || !triggers[i][0] || strlen(triggers[i]) > 256)
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_set_grammar_lazy: trigger %d is NULL, empty or over 256 bytes", i);
        tsize += strlen(triggers[i]) + 1;
    }
    if (s->m->vocab.kind == SRT__TOK_NONE) return srt__fail(SRT_ERR_NO_TOKENIZER, "srt_session_set_grammar: the model has no tokenizer");
    if ((st = srt__grammar_parse(gbnf, &g)) != SRT_OK) return st;
    if ((st = srt__grammar_resolve(g, &s->m->vocab)) != SRT_OK) { srt__grammar_free(g); return st; }
    if (!s->gtrie.n) {   /* the vocabulary's trie, once (a grammar set before uses it: kept on any failure) */
        if (!srt__gtrie_build(&s->gtrie, &s->m->vocab)) {
            srt__gtrie_free(&s->gtrie);
            srt__grammar_free(g);
            return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_set_grammar: out of memory");
        }
    }
    if (tsize && !(trig = (char *)SRT_MALLOC(tsize))) {
        srt__grammar_free(g);
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_set_grammar: out of memory");
    }
    if (!srt__gm_init(&gm, g)) {
        st = gm.st;
        srt__gm_free(&gm); srt__grammar_free(g); SRT_FREE(trig);
        return st;
    }
    for (i = 0, tsize = 0; i < n_triggers; i++) {
        memcpy(trig + tsize, triggers[i], strlen(triggers[i]) + 1);
        tsize += strlen(triggers[i]) + 1;
    }
    srt__grammar_free(s->gram); srt__gm_free(&s->gm); SRT_FREE(s->gtrig);
    s->gram = g;
    s->gm = gm;
    srt__gcache_clear(&s->gcache);   /* (keys of the old matcher's frames) */
    s->gtrig = trig; s->n_gtrig = n_triggers;
    srt__grammar_restart(s);
    return SRT_OK;
}
SRT_API srt_status srt_session_set_grammar(srt_session *s, const char *gbnf) { return srt_session_set_grammar_lazy(s, gbnf, NULL, 0); }
SRT_API srt_status srt_grammar_match(const char *gbnf, const char *text, size_t len, int *result) {
    srt__grammar *g;
    srt__gmatch m;
    srt_status st;
    if (result) *result = 0;
    if (!gbnf || !result || (!text && len)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_grammar_match: NULL argument");
    if ((st = srt__grammar_parse(gbnf, &g)) != SRT_OK) return st;
    if (g->n_tok) {
        srt__grammar_free(g);
        return srt__fail(SRT_ERR_UNSUPPORTED, "srt_grammar_match: the grammar refers to tokens (<...>), which text cannot hold (a session's grammar can)");
    }
    if (srt__gm_init(&m, g) && srt__gm_feed(&m, (const unsigned char *)text, len, 1)) *result = srt__gm_flags(&m);
    st = m.st;
    srt__gm_free(&m);
    srt__grammar_free(g);
    return st;
}

SRT_API void srt_session_destroy(srt_session *s) {
    const srt_allocator *a;
    if (!s) return;
    a = &s->m->alloc;
    if (s->bk) s->m->backend->session_destroy(s->m->backend, s->bk);
    srt__free(a, s->k_cache); srt__free(a, s->v_cache); srt__free(a, s->tokens); srt__free(a, s->logits);
    srt__free(a, s->rope_freq); srt__free(a, s->rope_cs); srt__free(a, s->x); srt__free(a, s->xb); srt__free(a, s->q); srt__free(a, s->k);
    srt__free(a, s->v); srt__free(a, s->att); srt__free(a, s->hb); srt__free(a, s->hb2); srt__free(a, s->acts); srt__free(a, s->moe.block);
    srt__free(a, s->scores); srt__free(a, s->cand); srt__free(a, s->slog); srt__free(a, s->spec_logits);
    srt__grammar_free(s->gram); srt__gm_free(&s->gm); srt__gtrie_free(&s->gtrie); srt__gcache_free(&s->gcache); SRT_FREE(s->gtrig); SRT_FREE(s->gtext);
    srt__free(a, s);
}

SRT_API srt_status srt_session_create(srt_model *m, const srt_session_desc *desc, srt_session **out) {
    srt_session *s;
    const srt_allocator *a;
    uint64_t kv_bytes;
    size_t B, E, Q, KV, F, maxk;
    if (!m || !out) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: NULL argument");
    *out = NULL;
    if (m->n_tensors == 0) return srt__fail(SRT_ERR_UNSUPPORTED, "srt_session_create: the model file holds only a tokenizer (vocab-only)");
    a = &m->alloc;
    s = (srt_session *)srt__alloc(a, sizeof *s);
    if (!s) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_create: out of memory");
    s->m = m;
    if (desc) s->d = *desc;
    if (s->d.n_ctx < 0 || s->d.n_batch < 0 || s->d.n_ctx > (1 << 22)) {   /* the values are read before s is freed */
        srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: n_ctx %d / n_batch %d out of range", s->d.n_ctx, s->d.n_batch);
        srt_session_destroy(s);
        return SRT_ERR_INVALID_ARG;
    }
    s->n_ctx = s->d.n_ctx ? s->d.n_ctx : (m->n_ctx_train < 4096 ? m->n_ctx_train : 4096);
    s->n_batch = s->d.n_batch ? s->d.n_batch : 32;
    if (s->n_batch > s->n_ctx) s->n_batch = s->n_ctx;
    if ((int)s->d.kv_type < 0 || (int)s->d.kv_type > (int)SRT_KV_Q8) {
        srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: kv_type %d is not a KV cache type", (int)s->d.kv_type);
        srt_session_destroy(s);
        return SRT_ERR_INVALID_ARG;
    }
    s->kv_elem = s->d.kv_type == SRT_KV_F32 ? SRT__KV_E_F32 : s->d.kv_type == SRT_KV_Q8 ? SRT__KV_E_Q8 : SRT__KV_E_F16;
    s->kv_stride = s->kv_elem == SRT__KV_E_Q8 ? srt__kv_q8_row_bytes((uint64_t)m->head_dim) : (uint64_t)m->head_dim;
    s->kv_row = s->kv_stride * srt__kv_elem_bytes(s->kv_elem);
    s->kv_dim = m->n_head_kv * m->head_dim;
    s->kv_compact = 1;
    {   /* sparse KV: kept values per head row, and the compact row must be smaller than the dense one */
        const float sp[2] = {s->d.kv_sparsity_k, s->d.kv_sparsity_v};
        uint64_t hd = (uint64_t)m->head_dim, min_drop = srt__kv_bm_bytes(hd) / 2 + 1;
        int c;
        for (c = 0; c < 2; c++) {
            int drop;
            if (!(sp[c] >= 0.0f && sp[c] <= 0.95f)) {
                srt_session_destroy(s);
                return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: kv_sparsity_%c %g is outside [0, 0.95]", "kv"[c], (double)sp[c]);
            }
            drop = (int)(sp[c] * (float)hd + 0.5f);
            if (drop > m->head_dim - 1) drop = m->head_dim - 1;
            s->kv_nnz[c] = m->head_dim - drop;
            s->kv_slot[c] = srt__kv_slot_bytes(hd, (uint64_t)s->kv_nnz[c]);
            if (sp[c] == 0.0f) { s->kv_nnz[c] = m->head_dim; continue; }
            if ((uint64_t)drop < min_drop) {
                srt_session_destroy(s);
                return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: kv_sparsity_%c %g drops %d of %d values per head, but the bitmap costs as much as %d: "
                                 "use 0 or at least %.3f", "kv"[c], (double)sp[c], drop, m->head_dim, (int)(min_drop - 1), (double)min_drop / (double)hd);
            }
            if (s->kv_elem != SRT__KV_E_F16 || m->backend) {
                srt_session_destroy(s);
                return srt__fail(SRT_ERR_UNSUPPORTED, "srt_session_create: a sparse KV cache needs the F16 cache on the CPU%s", m->backend ? " (the model runs on a backend)" : "");
            }
        }
    }
    srt_session_seed(s, s->d.sampler.seed);
    B = (size_t)s->n_batch; E = (size_t)m->n_embd; Q = (size_t)m->n_head * m->head_dim; KV = (size_t)s->kv_dim;
    F = (size_t)(m->n_ff > m->n_ff_shexp ? m->n_ff : m->n_ff_shexp);   /* hb, hb2: the FFN's or the shared expert's width */
    maxk = E > Q ? E : Q; if (F > maxk) maxk = F;
    /* a sliding layer's ring: the window a token reads, a batch's new rows, and a window more so that
       taking back a reply (truncation) rarely reaches past what it holds */
    s->swa_cap = s->n_ctx;
    if (m->swa_window > 0 && !s->d.swa_full && s->kv_nnz[0] == m->head_dim && s->kv_nnz[1] == m->head_dim && !m->backend &&
        (int64_t)2 * m->swa_window + s->n_batch - 1 < (int64_t)s->n_ctx)
        s->swa_cap = 2 * m->swa_window + s->n_batch - 1;
    {
        uint64_t rows = 0;
        int l;
        for (l = 0; l < m->n_layer; l++) rows += (uint64_t)srt__kv_cap(s, l);
        kv_bytes = rows * (uint64_t)m->n_head_kv * s->kv_row;
    }
    if (m->backend) {   /* the KV cache lives on the device */
        char err[256];
        srt_status st;
        err[0] = 0;
        st = m->backend->session_create(m->backend, m->bk_model, s->n_ctx, s->n_batch, s->kv_elem == SRT__KV_E_F32 ? SRT_KV_F32 : s->kv_elem == SRT__KV_E_F16 ? SRT_KV_F16 : SRT_KV_Q8,
                                        &s->bk, err, sizeof err);
        if (st != SRT_OK) { s->bk = NULL; srt_session_destroy(s); return srt__fail(st, "backend %s: %s", m->backend->name, err); }
        kv_bytes = 64;
    }
    if ((uint64_t)(size_t)kv_bytes != kv_bytes) { srt_session_destroy(s); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "KV cache of %llu bytes does not fit the address space", (unsigned long long)kv_bytes); }
    s->k_cache = srt__alloc(a, (size_t)kv_bytes + 64);   /* + 64: vector loads of compact rows read past their last value */
    s->v_cache = srt__alloc(a, (size_t)kv_bytes + 64);
    s->tokens = (int32_t *)srt__alloc(a, (size_t)s->n_ctx * sizeof(int32_t));
    s->logits = (float *)srt__alloc(a, (size_t)m->n_vocab * sizeof(float));
    s->slog = (float *)srt__alloc(a, (size_t)m->n_vocab * sizeof(float));
    s->cand = (srt__cand *)srt__alloc(a, (size_t)m->n_vocab * sizeof(srt__cand));
    {   /* with a second set of angles for the sliding layers (Gemma 3) after the first */
        const size_t sets = m->rope_theta_swa > 0.0f ? 2 : 1;
        s->rope_freq = (float *)srt__alloc(a, sets * (size_t)m->rope_dim / 2 * sizeof(float));
        s->rope_cs = (float *)srt__alloc(a, sets * B * (size_t)(m->rope_dim > 0 ? m->rope_dim : 1) * sizeof(float));
        if (s->rope_cs && sets == 2) s->rope_cs_swa = s->rope_cs + B * (size_t)m->rope_dim;
    }
    s->x = (float *)srt__alloc(a, B * E * sizeof(float));
    s->xb = (float *)srt__alloc(a, B * maxk * sizeof(float));
    s->q = (float *)srt__alloc(a, B * Q * sizeof(float));
    s->k = (float *)srt__alloc(a, B * KV * sizeof(float));
    s->v = (float *)srt__alloc(a, B * KV * sizeof(float));
    s->att = (float *)srt__alloc(a, B * Q * sizeof(float));
    s->hb = (float *)srt__alloc(a, B * F * sizeof(float));
    s->hb2 = (float *)srt__alloc(a, B * F * sizeof(float));
    s->acts = srt__alloc(a, (size_t)srt__acts_bytes(B, maxk, SRT__KPAD));
    s->scores = (float *)srt__alloc(a, (size_t)srt_pool_threads(m->pool) * (size_t)(m->n_head / m->n_head_kv) * (size_t)s->n_ctx * sizeof(float));
    if (!s->k_cache || !s->v_cache || !s->tokens || !s->logits || !s->slog || !s->cand || !s->rope_freq || !s->rope_cs || !s->x || !s->xb ||
        !s->q || !s->k || !s->v || !s->att || !s->hb || !s->hb2 || !s->acts || !s->scores || !srt__moe_alloc(a, m, s->n_batch, &s->moe)) {
        const int n_ctx = s->n_ctx;
        srt_session_destroy(s);
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_create: out of memory (KV cache %llu MB for %d tokens)", (unsigned long long)(2 * kv_bytes >> 20), n_ctx);
    }
    srt__rope_init(s);
    *out = s;
    return SRT_OK;
}

SRT_API void srt_session_seed(srt_session *s, uint64_t seed) { if (s) s->rng = seed ? seed : 0x5EED5EEDull; }
SRT_API void srt_session_reset(srt_session *s) {
    if (!s) return;
    s->n_tokens = s->n_eval = 0;
    s->n_seg = 0;
    s->swa_lo = 0;
    s->has_logits = 0;
    srt_session_seed(s, s->d.sampler.seed);
    srt__grammar_restart(s);
}
/* Keeps the evaluated rows of positions before n (<= n_eval) and forgets the rest. */
static void srt__kv_forget(srt_session *s, int n) {
    int i, k;
    s->n_eval = n;
    if (srt__swa_keep(s->m, n) > 0 && srt__swa_keep(s->m, n) < s->swa_lo) {
        s->n_eval = 0;   /* a sliding layer's window lost its oldest rows (ring, loaded state): the whole sequence again */
        s->has_logits = 0;
    }
    for (i = k = 0; i < s->n_seg; i++)   /* pruned stretches end where the evaluated rows end */
        if (s->seg[i].p0 < s->n_eval) {
            s->seg[k] = s->seg[i];
            if (s->seg[k].p1 > s->n_eval) s->seg[k].p1 = s->n_eval;
            k++;
        }
    s->n_seg = k;
}
SRT_API srt_status srt_session_truncate(srt_session *s, int n) {
    if (!s) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_truncate: NULL session");
    if (n < 0 || n > s->n_tokens) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_truncate: %d is outside 0..%d (the tokens in the sequence)", n, s->n_tokens);
    if (n == s->n_tokens) return SRT_OK;
    s->n_tokens = n;
    if (s->gram && n < s->g_pos) {   /* the grammar's text loses its end: taken again up to n (none before its start) */
        if (n < s->g_start) s->g_start = n;
        srt__grammar_rewind(s);
    }
    if (s->n_eval > n || (s->n_eval == n && !s->has_logits)) {   /* the last kept token is evaluated again for its logits */
        srt__kv_forget(s, n > 0 ? n - 1 : 0);
        s->has_logits = 0;
    }
    return SRT_OK;
}
SRT_API int srt_session_pos(const srt_session *s) { return s ? s->n_tokens : 0; }
SRT_API int srt_session_n_ctx(const srt_session *s) { return s ? s->n_ctx : 0; }
SRT_API const int32_t *srt_session_tokens(const srt_session *s) { return s ? s->tokens : NULL; }
SRT_API void srt_session_cancel(srt_session *s) { if (s) srt__atomic_store(&s->cancel, 1); }
static int srt__take_cancel(srt_session *s) { return srt__atomic_load(&s->cancel) ? (srt__atomic_store(&s->cancel, 0), 1) : 0; }

/* Evaluates the pending tokens (s->tokens[n_eval..n_tokens)) in batches; `cancellable` (feeding
   new input): a cancel request between batches drops the rest. */
static srt_status srt__eval_pending(srt_session *s, int cancellable) {
    while (s->n_eval < s->n_tokens) {
        int n = s->n_tokens - s->n_eval;
        if (n > s->n_batch) n = s->n_batch;
        if (cancellable && srt__take_cancel(s)) {
            s->n_tokens = s->n_eval;      /* drop what was not evaluated */
            s->has_logits = 0;
            return srt__fail(SRT_ERR_CANCELLED, "cancelled after %d tokens", s->n_eval);
        }
        if (s->bk) {
            srt_status st = srt__backend_forward(s, s->tokens + s->n_eval, n, s->n_eval + n == s->n_tokens, s->logits);
            if (st != SRT_OK) return st;
        } else {
            /* input is pruned (sparse KV) while a stretch can take it: the last one continues, or one is free */
            s->kv_prune = cancellable && (s->kv_nnz[0] < s->m->head_dim || s->kv_nnz[1] < s->m->head_dim) &&
                          (s->n_seg < SRT__KV_SEGS || s->seg[s->n_seg - 1].p1 == s->n_eval);
            srt__forward_batch(s, s->tokens + s->n_eval, n, s->n_eval + n == s->n_tokens, s->logits);
            s->has_logits = s->n_eval == s->n_tokens;
            s->kv_prune = 0;
        }
    }
    return SRT_OK;
}

/* True while the sequence holds no text yet (nothing, or only BOS): text added now starts the
   text, so it takes the SentencePiece dummy-prefix space, and decoding drops that space again. */
static int srt__at_text_start(const srt_session *s) {
    return s->n_tokens == 0 || (s->n_tokens == 1 && s->tokens[0] == s->m->vocab.bos);
}

/* feed and prompt without clearing a cancel request: the public calls clear it first (new input:
   a stale request is not for it), srt_generate once at its start, so that a request made while
   it runs its prompt is not lost. */
static srt_status srt__session_feed(srt_session *s, const int32_t *tokens, int n) {
    int i;
    if (!s || n < 0 || (n > 0 && !tokens)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_feed: bad arguments");
    if (n > s->n_ctx - s->n_tokens)
        return srt__fail(SRT_ERR_CONTEXT_FULL, "%d tokens do not fit: %d of %d context positions are used", n, s->n_tokens, s->n_ctx);
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= s->m->n_vocab) return srt__fail(SRT_ERR_INVALID_ARG, "token %d (id %d) is outside the vocabulary (%d)", i, tokens[i], s->m->n_vocab);
    memcpy(s->tokens + s->n_tokens, tokens, (size_t)n * sizeof(int32_t));
    s->n_tokens += n;
    if (n > 0) srt__grammar_restart(s);   /* input: the grammar's text starts after it */
    return srt__eval_pending(s, 1);
}
static srt_status srt__session_prompt(srt_session *s, const char *text, int flags) {
    srt__ids t = {NULL, 0, 0, 0};
    srt_status st;
    if (s->n_tokens > 0 && !(flags & SRT_TOKENIZE_ADD_BOS)) flags |= SRT_TOKENIZE_NO_BOS;
    if (!srt__at_text_start(s)) flags |= SRT_TOKENIZE_NO_SPACE_PREFIX;   /* a continuation */
    st = srt__tokenize(s->m, text ? text : "", text ? strlen(text) : 0, flags, &t);
    if (st == SRT_OK) st = srt__session_feed(s, t.p, t.n);
    SRT_FREE(t.p);
    return st;
}
SRT_API srt_status srt_session_feed(srt_session *s, const int32_t *tokens, int n) {
    if (s) srt__atomic_store(&s->cancel, 0);
    return srt__session_feed(s, tokens, n);
}
SRT_API srt_status srt_session_prompt(srt_session *s, const char *text, int flags) {
    if (!s) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_prompt: NULL session");
    srt__atomic_store(&s->cancel, 0);
    return srt__session_prompt(s, text, flags);
}

SRT_API const float *srt_session_logits(srt_session *s) {
    if (!s || srt__eval_pending(s, 0) != SRT_OK || !s->has_logits) return NULL;
    return s->logits;
}

SRT_API srt_status srt_session_next(srt_session *s, int32_t *token) {
    srt_status st;
    int32_t t = -1;
    if (!s || !token) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next: NULL argument");
    /* the pending token was already handed out: keep it, so the sequence stays what the app saw */
    if (srt__take_cancel(s)) return srt__fail(SRT_ERR_CANCELLED, "cancelled");
    if ((st = srt__eval_pending(s, 0)) != SRT_OK) return st;
    if (!s->has_logits) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next: nothing to continue (feed a prompt first)");
    if (s->n_tokens >= s->n_ctx) return srt__fail(SRT_ERR_CONTEXT_FULL, "the context window (%d tokens) is full", s->n_ctx);
    if (s->gram) {
        if ((st = srt__grammar_draw(s, &t)) != SRT_OK) return st;
    } else {
        memcpy(s->slog, s->logits, (size_t)s->m->n_vocab * sizeof(float));
        t = srt__sample(&s->d.sampler, &s->m->ops, s->slog, s->m->vocab.n, s->tokens, s->n_tokens, s->cand, &s->rng, -1);   /* padding rows never sampled */
    }
    s->tokens[s->n_tokens++] = t;
    *token = t;
    return SRT_OK;
}

/* Speculative decoding needs every checked row's logits: a backend without forward_rows refuses it. */
static srt_status srt__draft_on_backend(const srt_session *s, const char *who) {
    if (s->bk && !s->m->backend->forward_rows)
        return srt__fail(SRT_ERR_UNSUPPORTED, "%s: backend %s returns the last token's logits only (no forward_rows): no speculative decoding", who, s->m->backend->name);
    return SRT_OK;
}
SRT_API srt_status srt_session_next_draft(srt_session *s, const int32_t *draft, int n_draft, int32_t *out, int *n_out) {
    const srt_model *m = s ? s->m : NULL;
    const int V = m ? m->n_vocab : 0;
    srt_status st;
    int k, i, P, n0;
    float *dl;
    int32_t t = -1;
    if (n_out) *n_out = 0;
    if (!s || !out || !n_out || n_draft < 0 || (n_draft > 0 && !draft)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next_draft: bad arguments");
    for (i = 0; i < n_draft; i++)
        if (draft[i] < 0 || draft[i] >= m->vocab.n) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next_draft: proposed token %d (id %d) is outside the vocabulary (%d)", i, draft[i], m->vocab.n);
    if ((st = srt__draft_on_backend(s, "srt_session_next_draft")) != SRT_OK) return st;
    /* proposals checked: one batch with the pending token, and room for one more token after them */
    k = n_draft < SRT_DRAFT_MAX ? n_draft : SRT_DRAFT_MAX;
    if (k > s->n_batch - 1) k = s->n_batch - 1;
    if (k > s->n_ctx - s->n_tokens - 1) k = s->n_ctx - s->n_tokens - 1;
    if (s->gram) k = 0;   /* the grammar's state after each proposal is not kept: one token at a time */
    if (k <= 0) {
        st = srt_session_next(s, out);
        if (st == SRT_OK) *n_out = 1;
        return st;
    }
    if (srt__take_cancel(s)) return srt__fail(SRT_ERR_CANCELLED, "cancelled");
    if (s->n_tokens - s->n_eval > 1) {   /* all but the last pending token first (after a truncation or load) */
        const int keep = s->n_tokens;
        s->n_tokens--;
        st = srt__eval_pending(s, 0);
        s->n_tokens = keep;
        if (st != SRT_OK) return st;
    }
    P = s->n_tokens - s->n_eval;
    if (!P && !s->has_logits) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next_draft: nothing to continue (feed a prompt first)");
    if (!s->spec_logits && !(s->spec_logits = (float *)srt__alloc(&m->alloc, (size_t)(SRT_DRAFT_MAX + 1) * (size_t)V * sizeof(float))))
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_next_draft: out of memory");
    /* row i of dl: the distribution after the sequence and the first i proposals */
    dl = s->spec_logits;
    n0 = s->n_tokens;
    memcpy(s->tokens + n0, draft, (size_t)k * sizeof(int32_t));
    if (!P) memcpy(dl, s->logits, (size_t)V * sizeof(float));
    if (s->bk) {
        if ((st = srt__backend_forward(s, s->tokens + s->n_eval, P + k, P + k, dl + (size_t)(1 - P) * V)) != SRT_OK) return st;
    } else srt__forward_batch(s, s->tokens + s->n_eval, P + k, P + k, dl + (size_t)(1 - P) * V);
    for (i = 0; i <= k; i++) {   /* the proposals as long as the sampler takes them, then one drawn token */
        memcpy(s->slog, dl + (size_t)i * V, (size_t)V * sizeof(float));
        t = srt__sample(&s->d.sampler, &m->ops, s->slog, m->vocab.n, s->tokens, n0 + i, s->cand, &s->rng, i < k ? draft[i] : -1);
        if (i == k || t != draft[i]) break;
    }
    memcpy(out, draft, (size_t)i * sizeof(int32_t));
    out[i] = t;
    *n_out = i + 1;
    s->tokens[n0 + i] = t;
    s->n_tokens = n0 + i + 1;
    memcpy(s->logits, dl + (size_t)i * V, (size_t)V * sizeof(float));   /* the distribution t was drawn from, as after srt_session_next */
    s->has_logits = 1;
    srt__kv_forget(s, n0 + i);   /* the rows of the proposals not taken */
    return SRT_OK;
}

SRT_API int srt_draft_lookup(const int32_t *tokens, int n, int ngram_min, int ngram_max, int32_t *draft, int cap) {
    int g, j, i;
    if (!tokens || !draft || cap <= 0 || ngram_min < 1 || ngram_max < ngram_min) return 0;
    for (g = ngram_max < n - 1 ? ngram_max : n - 1; g >= ngram_min; g--) {
        const int32_t *suffix = tokens + n - g;
        for (j = n - g - 1; j >= 0; j--) {   /* the latest earlier occurrence; at least one token follows it */
            for (i = 0; i < g && tokens[j + i] == suffix[i]; i++) {}
            if (i == g) {
                int c = n - (j + g) < cap ? n - (j + g) : cap;
                memcpy(draft, tokens + j + g, (size_t)c * sizeof(int32_t));
                return c;
            }
        }
    }
    return 0;
}

/* Whether models a and b share a vocabulary (a draft model's guesses are token ids of the other). */
static int srt__same_vocab(const srt_model *a, const srt_model *b) {
    int i;
    if (a->vocab.n != b->vocab.n || a->vocab.eos != b->vocab.eos) return 0;
    for (i = 0; i < a->vocab.n; i++)
        if (strcmp(a->vocab.piece[i], b->vocab.piece[i]) != 0) return 0;
    return 1;
}
/* A draft model's guesses: session d takes up the sequence of s (it keeps what the two have in
   common and evaluates the rest) and draws up to k tokens after it; *n = how many. */
static srt_status srt__draft_guess(srt_session *d, const srt_session *s, int k, int32_t *out, int *n) {
    int common = 0, lim = d->n_tokens < s->n_tokens ? d->n_tokens : s->n_tokens;
    srt_status st;
    *n = 0;
    while (common < lim && d->tokens[common] == s->tokens[common]) common++;
    if ((st = srt_session_truncate(d, common)) != SRT_OK) return st;
    if (s->n_tokens > d->n_ctx) return SRT_OK;   /* the draft's context is too small: no guesses */
    if ((st = srt__session_feed(d, s->tokens + common, s->n_tokens - common)) != SRT_OK) return st;
    while (*n < k && d->n_tokens < d->n_ctx) {
        if ((st = srt_session_next(d, out + *n)) != SRT_OK) return st;
        ++*n;
    }
    return SRT_OK;
}

/* The settings of speculative decoding for session s (srt_generate_desc, srt_chat_desc), checked. */
static srt_status srt__draft_check(const srt_session *s, int draft_max, int draft_ngram, const srt_session *draft, const char *who) {
    if (draft_max < 0 || draft_max > SRT_DRAFT_MAX || draft_ngram < 0 || draft == s)
        return srt__fail(SRT_ERR_INVALID_ARG, "%s: draft_max %d (0 .. %d), draft_ngram %d or the draft session is not valid", who, draft_max, SRT_DRAFT_MAX, draft_ngram);
    if (draft_max > 0 && srt__draft_on_backend(s, who) != SRT_OK) return SRT_ERR_UNSUPPORTED;
    if (draft_max > 0 && draft && !srt__same_vocab(s->m, draft->m)) return srt__fail(SRT_ERR_INVALID_ARG, "%s: the draft model's vocabulary differs from the model's", who);
    return SRT_OK;
}
/* How many proposals the next evaluation checks, after one that kept `kept` of `proposed` (k: the
   count it was allowed): twice as many after all were kept, one more than were kept otherwise. A
   proposal that is not kept costs a row of evaluation (on a 2-core VM a q4 product of 4 rows took
   1.1 to 2 times one row's time, README "Speculative decoding"):
   guesses that keep failing get few rows, a run of right ones (copied text) soon gets draft_max. */
static int srt__draft_adapt(int k, int proposed, int kept, int draft_max) {
    if (proposed <= 0) return k;
    k = kept == proposed ? 2 * k : kept + 1;
    return k < 1 ? 1 : k > draft_max ? draft_max : k;
}
/* Up to k proposals to follow the sequence of s: the draft session's guesses, else prompt lookup. */
static srt_status srt__propose(srt_session *s, srt_session *draft, int draft_ngram, int k, int32_t *out, int *n) {
    *n = 0;
    if (k <= 0) return SRT_OK;
    if (draft) return srt__draft_guess(draft, s, k, out, n);
    *n = srt_draft_lookup(s->tokens, s->n_tokens, 1, draft_ngram ? draft_ngram : 3, out, k);
    return SRT_OK;
}

/* One evaluation's tokens for srt_generate and srt_chat_next: up to *k proposals (no more than
   room - 1, room < 0: no limit) checked by srt_session_next_draft, or one token drawn; *k adapts.
   out: room for SRT_DRAFT_MAX + 1; *n tokens drawn, *proposed proposals made. */
static srt_status srt__draw_step(srt_session *s, srt_session *draft, int draft_ngram, int draft_max, int *k, int room, int32_t *out, int *n, int *proposed) {
    int32_t guess[SRT_DRAFT_MAX];
    int kk = *k;
    srt_status st;
    *n = *proposed = 0;
    if (room >= 0 && kk > room - 1) kk = room - 1;   /* none past the end */
    if ((st = srt__propose(s, draft, draft_ngram, kk, guess, proposed)) != SRT_OK) return st;
    if (!*proposed) {
        if ((st = srt_session_next(s, out)) == SRT_OK) *n = 1;
        return st;
    }
    if ((st = srt_session_next_draft(s, guess, *proposed, out, n)) == SRT_OK) *k = srt__draft_adapt(*k, *proposed, *n - 1, draft_max);
    return st;
}

SRT_API srt_status srt_generate(srt_session *s, const srt_generate_desc *g, srt_generate_result *result) {
    srt_generate_result r;
    srt_utf8_stream us;
    srt_status st = SRT_OK;
    double t0;
    char *buf;
    int cap, start, stream_flags = 0, stop = 0, kdraft;
    memset(&r, 0, sizeof r);
    memset(&us, 0, sizeof us);
    if (result) *result = r;
    if (!s || !g) return srt__fail(SRT_ERR_INVALID_ARG, "srt_generate: NULL argument");
    if ((st = srt__draft_check(s, g->draft_max, g->draft_ngram, g->draft, "srt_generate")) != SRT_OK) return st;
    kdraft = g->draft_max;
    srt__atomic_store(&s->cancel, 0);
    t0 = srt__now_ms();
    start = s->n_tokens;
    /* generated text that starts the text drops the dummy-prefix space when decoded */
    if (s->m->vocab.add_space_prefix && srt__at_text_start(s) && !(g->prompt && g->prompt[0]))
        stream_flags = SRT_STREAM_STRIP_LEADING_SPACE;
    if (g->prompt && g->prompt[0]) st = srt__session_prompt(s, g->prompt, g->prompt_flags);
    else if (s->n_tokens == 0 && s->m->vocab.bos >= 0) st = srt__session_feed(s, &s->m->vocab.bos, 1);
    if (st == SRT_ERR_CANCELLED) r.stopped_by = 3;
    if (st == SRT_ERR_CONTEXT_FULL) r.stopped_by = 4;
    r.n_prompt = s->n_tokens - start;
    r.prompt_ms = srt__now_ms() - t0;
    cap = 4096;
    buf = (char *)SRT_MALLOC((size_t)cap);
    if (!buf) st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_generate: out of memory");
    t0 = srt__now_ms();
    while (st == SRT_OK && !stop && (g->max_tokens <= 0 || r.n_generated < g->max_tokens)) {
        int32_t toks[SRT_DRAFT_MAX + 1];
        int n, ng, j;
        if (srt__take_cancel(s)) { r.stopped_by = 3; st = srt__fail(SRT_ERR_CANCELLED, "generation cancelled"); break; }
        st = srt__draw_step(s, g->draft, g->draft_ngram, g->draft_max, &kdraft, g->max_tokens > 0 ? g->max_tokens - r.n_generated : -1, toks, &n, &ng);
        if (st == SRT_ERR_CONTEXT_FULL) { r.stopped_by = 4; break; }
        if (st == SRT_ERR_CANCELLED) { r.stopped_by = 3; break; }
        if (st != SRT_OK) break;
        r.n_passes++;
        r.n_proposed += ng;
        r.n_accepted += n - 1;
        for (j = 0; j < n; j++) {
            const int32_t tok = toks[j];
            int nb;
            if (g->stop_at_eos >= 0 && srt__is_eog(&s->m->vocab, tok)) { r.stopped_by = 1; stop = 1; }
            else {
                r.n_generated++;
                if ((int)(6 * (uint64_t)s->m->vocab.text_len[tok] + 16) > cap) {
                    char *nbuf = (char *)SRT_REALLOC(buf, 6 * (size_t)s->m->vocab.text_len[tok] + 16);
                    if (!nbuf) { st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_generate: out of memory"); stop = 1; break; }
                    buf = nbuf; cap = (int)(6 * s->m->vocab.text_len[tok] + 16);
                }
                nb = srt_utf8_stream_token(&us, s->m, tok, stream_flags, buf, cap);
                if (nb > 0 && g->on_text && g->on_text(buf, nb, tok, g->user)) { r.stopped_by = 2; stop = 1; }
                else if (g->max_tokens > 0 && r.n_generated >= g->max_tokens) stop = 1;
            }
            if (stop) break;
        }
        /* the tokens after a stop leave the sequence: it ends with what the app saw */
        if (stop && j + 1 < n) srt_session_truncate(s, s->n_tokens - (n - j - 1));
    }
    if (buf) {
        int n = srt_utf8_stream_flush(&us, buf, cap);
        if (n > 0 && g->on_text) g->on_text(buf, n, -1, g->user);
        SRT_FREE(buf);
    }
    r.decode_ms = srt__now_ms() - t0;
    if (result) *result = r;
    return st;
}

/* Session state (formats/SESSION.md): a 72-byte header, the messages of a conversation file, the
   tokens, the pruned stretches, the logits, then the K and V rows of the evaluated positions as the
   cache holds them (each region's dense and compact runs in position order), and a CRC-32 of
   everything before it. */
#define SRT__STATE_MAGIC "SRTS"
#define SRT__STATE_VERSION 1
#define SRT__STATE_HEADER 72
enum { SRT__STATE_LOGITS = 1, SRT__STATE_COMPACT = 2 };

/* Identifies the model a KV cache belongs to: the hyperparameters that shape or rotate K and V,
   and every tensor's name, format, shape and part checksums (the .srt file's CRC-32s cover every
   weight byte, so another fine-tune of the same shape differs here too). */
static uint32_t srt__model_fingerprint(const srt_model *m) {
    srt__crc32 c;
    unsigned char b[64];
    uint32_t crc, i, f[6];
    int j;
    srt__crc32_init(&c);
    crc = srt__crc32_update(&c, 0, m->arch, strlen(m->arch));
    srt__put_le(b, (uint32_t)m->n_vocab, 4); srt__put_le(b + 4, (uint32_t)m->n_embd, 4);
    srt__put_le(b + 8, (uint32_t)m->n_ff, 4); srt__put_le(b + 12, (uint32_t)m->n_layer, 4);
    srt__put_le(b + 16, (uint32_t)m->n_head, 4); srt__put_le(b + 20, (uint32_t)m->n_head_kv, 4);
    srt__put_le(b + 24, (uint32_t)m->head_dim, 4); srt__put_le(b + 28, (uint32_t)m->rope_dim, 4);
    srt__put_le(b + 32, (uint32_t)m->rope_neox, 4); srt__put_le(b + 36, (uint32_t)m->rope_scaling, 4);
    memcpy(&f[0], &m->rope_theta, 4); memcpy(&f[1], &m->norm_eps, 4); memcpy(&f[2], &m->rope_factor, 4);
    memcpy(&f[3], &m->rope_low_freq, 4); memcpy(&f[4], &m->rope_high_freq, 4); memcpy(&f[5], &m->rope_orig_ctx, 4);
    for (j = 0; j < 6; j++) srt__put_le(b + 40 + 4 * j, f[j], 4);
    crc = srt__crc32_update(&c, crc, b, 64);
    if (m->rope_attn_factor != 1.0f) crc = srt__crc32_update(&c, crc, &m->rope_attn_factor, 4);   /* (files before it hash as they did) */
    if (m->rope_scaling == 4) {   /* yarn's blend */
        memcpy(&f[0], &m->yarn_ext, 4); memcpy(&f[1], &m->yarn_low, 4); memcpy(&f[2], &m->yarn_high, 4);
        for (j = 0; j < 3; j++) srt__put_le(b + 4 * j, f[j], 4);
        crc = srt__crc32_update(&c, crc, b, 12);
    }
    if (m->nope_step) { srt__put_le(b, (uint32_t)m->nope_step, 4); crc = srt__crc32_update(&c, crc, b, 4); }   /* which layers' K rotate */
    if (m->granite) {   /* the multipliers shape the cached K and V */
        float g[4];
        g[0] = m->attn_scale; g[1] = m->embd_scale; g[2] = m->residual_scale; g[3] = m->logit_scale;
        for (j = 0; j < 4; j++) { memcpy(&f[0], &g[j], 4); srt__put_le(b + 4 * j, f[0], 4); }
        crc = srt__crc32_update(&c, crc, b, 16);
    }
    if (m->gemma || m->swa_window > 0) {   /* the sliding layers and their rope base rotate K; exaone4: which layers rotate */
        float g[4];
        g[0] = m->attn_scale; g[1] = m->attn_softcap; g[2] = m->final_softcap; g[3] = m->rope_theta_swa;
        for (j = 0; j < 4; j++) { memcpy(&f[0], &g[j], 4); srt__put_le(b + 4 * j, f[0], 4); }
        srt__put_le(b + 16, (uint32_t)m->swa_window, 4); srt__put_le(b + 20, (uint32_t)m->swa_pattern, 4);
        crc = srt__crc32_update(&c, crc, b, 24);
    }
    for (i = 0; i < m->n_tensors; i++) {
        const srt__tensor *t = &m->tensors[i];
        crc = srt__crc32_update(&c, crc, t->name, strlen(t->name) + 1);
        srt__put_le(b, (uint32_t)t->w.format, 4); srt__put_le(b + 4, t->w.group, 4);
        srt__put_le(b + 8, t->w.rows, 8); srt__put_le(b + 16, t->w.cols, 8);
        for (j = 0; j < t->n_parts && j < 4; j++) { srt__put_le(b + 24 + 8 * j, t->part_size[j], 4); srt__put_le(b + 28 + 8 * j, t->part_crc[j], 4); }
        crc = srt__crc32_update(&c, crc, b, 24 + 8 * (uint64_t)j);
    }
    return crc;
}

/* ... and of a session's cache: LongRoPE's long and short factors rotate K differently. */
static uint32_t srt__state_fingerprint(const srt_session *s) {
    return srt__model_fingerprint(s->m) ^ (srt__rope_long(s->m, s->n_ctx) ? 0x4c4f4e47u : 0u);
}

/* Bytes of the rows of positions lo..n-1 of one (layer, KV head) region of cache `which`, with
   the stretches seg[0..n_seg) (all within n). */
static uint64_t srt__kv_region_used(const srt_session *s, int which, const srt__kv_seg *seg, int n_seg, int lo, int n) {
    uint64_t compact = 0;
    int i;
    if (s->kv_compact && s->kv_nnz[which] < s->m->head_dim)
        for (i = 0; i < n_seg; i++) compact += (uint64_t)(seg[i].p1 - (seg[i].p0 > lo ? seg[i].p0 : lo < seg[i].p1 ? lo : seg[i].p1));
    return ((uint64_t)(n - lo) - compact) * s->kv_row + compact * s->kv_slot[which];
}
static uint64_t srt__state_size(const srt_session *s, uint64_t msgs_bytes, int n_tokens, int n_eval, int n_seg, const srt__kv_seg *seg, int has_logits) {
    uint64_t kv = 0;
    int l;
    for (l = 0; l < s->m->n_layer; l++) {
        const int lo = srt__state_lo(s, l, n_eval);
        kv += (uint64_t)s->m->n_head_kv * (srt__kv_region_used(s, 0, seg, n_seg, lo, n_eval) + srt__kv_region_used(s, 1, seg, n_seg, lo, n_eval));
    }
    return SRT__STATE_HEADER + msgs_bytes + 4 * (uint64_t)n_tokens + 8 * (uint64_t)n_seg + (has_logits ? 4 * (uint64_t)s->m->n_vocab : 0) + kv + 4;
}

/* Where the state's bytes go: buf, or file f, with their CRC-32 (blocks summed on the pool).
   failed: a write failed; st: a device copy failed (its message recorded). */
typedef struct srt__state_out { srt__crc32 tab; uint32_t crc; uint64_t at; unsigned char *buf; FILE *f; srt_pool *pool; int failed; srt_status st; } srt__state_out;
static void srt__state_put(srt__state_out *o, const void *p, uint64_t n) {
    if (o->failed || n == 0) return;
    o->crc = srt__crc32_combine(o->crc, srt__crc32_pool(o->pool, &o->tab, p, n), n);
    if (o->buf) memcpy(o->buf + o->at, p, (size_t)n);
    else if (fwrite(p, 1, (size_t)n, o->f) != (size_t)n) o->failed = 1;
    o->at += n;
}
/* Each run of a region's rows of positions srt__state_lo..n-1, dense or compact, in position
   order: `put` copies them out (save), else the state's bytes at *in are copied into the cache
   (load). */
static srt_status srt__state_kv_device(srt_session *s, int n, srt__state_out *put, const unsigned char **in);
static srt_status srt__state_kv(srt_session *s, int n, srt__state_out *put, const unsigned char **in) {
    int which, l, kvh, p, seg, e;
    if (s->bk) return srt__state_kv_device(s, n, put, in);
    for (which = 0; which < 2; which++)
        for (l = 0; l < s->m->n_layer; l++)
            for (kvh = 0; kvh < s->m->n_head_kv; kvh++) {
                const char *region = srt__kv_region(s, which, l, kvh), *rows;
                const int lo = srt__state_lo(s, l, n), cap = srt__kv_cap(s, l);
                for (p = lo, seg = srt__kv_seg_from(s, lo); p < n; p = e) {
                    uint64_t bytes = (uint64_t)(srt__kv_run(s, which, region, cap, n, &p, &seg, &e, &rows) ? s->kv_slot[which] : s->kv_row) * (uint64_t)(e - p);
                    if (put) srt__state_put(put, rows, bytes);
                    else { memcpy((char *)rows, *in, (size_t)bytes); *in += bytes; }
                }
            }
    return SRT_OK;
}
/* The same for a backend session (dense rows only): each layer's cache comes from the device
   position-major ([position][KV head][row]) and is written one KV head after the other. */
static srt_status srt__state_kv_device(srt_session *s, int n, srt__state_out *put, const unsigned char **in) {
    srt_backend *b = s->m->backend;
    const size_t row = (size_t)s->kv_row, heads = (size_t)s->m->n_head_kv, region = (size_t)n * row;
    unsigned char *dev, *reg;
    srt_status st = SRT_OK;
    int which, l, p;
    size_t h;
    char err[256];
    if (n == 0) return SRT_OK;
    dev = (unsigned char *)SRT_MALLOC(heads * region);
    reg = (unsigned char *)SRT_MALLOC(region);
    if (!dev || !reg) { SRT_FREE(dev); SRT_FREE(reg); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "session state: out of memory (%llu bytes)", (unsigned long long)(heads * region)); }
    err[0] = 0;
    for (which = 0; which < 2 && st == SRT_OK; which++)
        for (l = 0; l < s->m->n_layer && st == SRT_OK; l++) {
            if (put) {
                if ((st = b->kv_copy(b, s->bk, which, l, n, dev, 0, err, sizeof err)) != SRT_OK) break;
                for (h = 0; h < heads; h++) {
                    for (p = 0; p < n; p++) memcpy(reg + (size_t)p * row, dev + ((size_t)p * heads + h) * row, row);
                    srt__state_put(put, reg, region);
                }
            } else {
                for (h = 0; h < heads; h++)
                    for (p = 0; p < n; p++) memcpy(dev + ((size_t)p * heads + h) * row, *in + h * region + (size_t)p * row, row);
                *in += heads * region;
                st = b->kv_copy(b, s->bk, which, l, n, dev, 1, err, sizeof err);
            }
        }
    SRT_FREE(dev); SRT_FREE(reg);
    return st == SRT_OK ? SRT_OK : srt__fail(st, "backend %s: %s", b->name, err);
}
/* Bytes of the messages section (each: u32 length, role, u32 length, content); 0 for none. */
static uint64_t srt__state_msgs_bytes(const srt_chat_message *msgs, int n) {
    uint64_t b = 0;
    int i;
    for (i = 0; i < n; i++) b += 8 + (uint64_t)strlen(msgs[i].role) + (uint64_t)strlen(msgs[i].content);
    return b;
}
static void srt__state_write(srt_session *s, srt__state_out *o, const srt_chat_message *msgs, int n_msgs) {
    unsigned char h[SRT__STATE_HEADER], t[8];
    int i;
    memset(h, 0, sizeof h);
    memcpy(h, SRT__STATE_MAGIC, 4);
    srt__put_le(h + 4, SRT__STATE_VERSION, 4);
    srt__put_le(h + 8, srt__state_fingerprint(s), 4);
    srt__put_le(h + 12, (uint32_t)s->kv_elem + 1, 4);   /* srt_kv_type */
    srt__put_le(h + 16, (uint32_t)s->m->n_layer, 4);
    srt__put_le(h + 20, (uint32_t)s->m->n_head_kv, 4);
    srt__put_le(h + 24, (uint32_t)s->m->head_dim, 4);
    srt__put_le(h + 28, (uint32_t)s->m->n_vocab, 4);
    srt__put_le(h + 32, (uint32_t)s->n_tokens, 4);
    srt__put_le(h + 36, (uint32_t)s->n_eval, 4);
    /* how pruned rows are kept matters only with pruned stretches: else the dense values */
    srt__put_le(h + 40, (s->has_logits ? SRT__STATE_LOGITS : 0) | (s->n_seg && s->kv_compact ? SRT__STATE_COMPACT : 0), 4);
    srt__put_le(h + 44, (uint32_t)s->n_seg, 4);
    srt__put_le(h + 48, (uint32_t)(s->n_seg ? s->kv_nnz[0] : s->m->head_dim), 4);
    srt__put_le(h + 52, (uint32_t)(s->n_seg ? s->kv_nnz[1] : s->m->head_dim), 4);
    srt__put_le(h + 56, s->rng, 8);
    srt__put_le(h + 64, (uint32_t)n_msgs, 4);
    srt__put_le(h + 68, srt__state_msgs_bytes(msgs, n_msgs), 4);
    srt__state_put(o, h, sizeof h);
    for (i = 0; i < n_msgs; i++) {
        const char *part[2];
        int k;
        part[0] = msgs[i].role; part[1] = msgs[i].content;
        for (k = 0; k < 2; k++) { srt__put_le(t, (uint32_t)strlen(part[k]), 4); srt__state_put(o, t, 4); srt__state_put(o, part[k], strlen(part[k])); }
    }
    for (i = 0; i < s->n_tokens; i++) { srt__put_le(t, (uint32_t)s->tokens[i], 4); srt__state_put(o, t, 4); }
    for (i = 0; i < s->n_seg; i++) { srt__put_le(t, (uint32_t)s->seg[i].p0, 4); srt__put_le(t + 4, (uint32_t)s->seg[i].p1, 4); srt__state_put(o, t, 8); }
    if (s->has_logits) srt__state_put(o, s->logits, 4 * (uint64_t)s->m->n_vocab);
    if ((o->st = srt__state_kv(s, s->n_eval, o, NULL)) != SRT_OK) o->failed = 1;
    srt__put_le(t, o->crc, 4);
    if (!o->failed) {   /* the trailer is not part of its own checksum */
        if (o->buf) memcpy(o->buf + o->at, t, 4);
        else if (fwrite(t, 1, 4, o->f) != 4) o->failed = 1;
        o->at += 4;
    }
}
static srt_status srt__state_check_session(const srt_session *s, const char *what) {
    if (!s) return srt__fail(SRT_ERR_INVALID_ARG, "%s: NULL session", what);
    if (s->bk && !s->m->backend->kv_copy) return srt__fail(SRT_ERR_UNSUPPORTED, "%s: backend %s cannot copy its KV cache (srt_backend.kv_copy)", what, s->m->backend->name);
    return SRT_OK;
}

SRT_API srt_status srt_session_state_save(srt_session *s, void *buf, size_t cap, size_t *size) {
    srt__state_out o;
    uint64_t need;
    srt_status st = srt__state_check_session(s, "srt_session_state_save");
    if (st != SRT_OK) return st;
    if (!size) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_state_save: NULL size");
    need = srt__state_size(s, 0, s->n_tokens, s->n_eval, s->n_seg, s->seg, s->has_logits);
    if ((uint64_t)(size_t)need != need) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_state_save: %llu bytes do not fit the address space", (unsigned long long)need);
    *size = (size_t)need;
    if (!buf) return SRT_OK;
    if (cap < need) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_state_save: the state takes %llu bytes, the buffer has %llu", (unsigned long long)need, (unsigned long long)cap);
    memset(&o, 0, sizeof o);
    srt__crc32_init(&o.tab);
    o.buf = (unsigned char *)buf;
    o.pool = s->m->pool;
    srt__state_write(s, &o, NULL, 0);
    return o.st;
}

static srt_status srt__session_save(srt_session *s, const char *path, const srt_chat_message *msgs, int n_msgs, const char *what) {
    srt__state_out o;
    char *tmp;
    size_t len;
    int i;
    srt_status st = srt__state_check_session(s, what);
    if (st != SRT_OK) return st;
    if (!path || n_msgs < 0 || (n_msgs > 0 && !msgs)) return srt__fail(SRT_ERR_INVALID_ARG, "%s: NULL path or bad messages", what);
    for (i = 0; i < n_msgs; i++)
        if (!msgs[i].role || !msgs[i].role[0] || !msgs[i].content) return srt__fail(SRT_ERR_INVALID_ARG, "%s: message %d has no role or no content", what, i);
    if (srt__state_msgs_bytes(msgs, n_msgs) > 0xffffffffu) return srt__fail(SRT_ERR_INVALID_ARG, "%s: the messages take more than 4 GiB", what);
    len = strlen(path);
    if (!(tmp = (char *)SRT_MALLOC(len + 5))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    memset(&o, 0, sizeof o);
    srt__crc32_init(&o.tab);
    o.pool = s->m->pool;
    if (!(o.f = fopen(tmp, "wb"))) st = srt__fail(SRT_ERR_IO, "%s: cannot create", tmp);
    else {
        srt__state_write(s, &o, msgs, n_msgs);
        if (o.st != SRT_OK) { fclose(o.f); st = o.st; }
        else if (fclose(o.f) != 0 || o.failed) st = srt__fail(SRT_ERR_IO, "%s: write failed (disk full?)", tmp);
        else if (!srt__replace_file(tmp, path)) st = srt__fail(SRT_ERR_IO, "cannot rename %s to %s", tmp, path);
        if (st != SRT_OK) remove(tmp);
    }
    SRT_FREE(tmp);
    return st;
}
SRT_API srt_status srt_session_save(srt_session *s, const char *path) { return srt__session_save(s, path, NULL, 0, "srt_session_save"); }
SRT_API srt_status srt_session_save_chat(srt_session *s, const char *path, const srt_chat_message *msgs, int n) {
    return srt__session_save(s, path, msgs, n, "srt_session_save_chat");
}

/* The messages section at p (n_msgs of them in bytes): each role non-empty, no NUL inside. 0 if
   malformed. With out, they are copied into one allocation (array, then the strings). */
static int srt__state_msgs(const unsigned char *p, uint32_t n_msgs, uint32_t bytes, srt_chat_message **out) {
    const unsigned char *q = p, *end = p + bytes;
    srt_chat_message *msgs = NULL;
    char *text = NULL;
    uint32_t i;
    int k;
    if ((uint64_t)n_msgs * 8 > bytes) return 0;
    if (out && n_msgs) {
        if (!(msgs = (srt_chat_message *)SRT_MALLOC((size_t)n_msgs * sizeof *msgs + (size_t)bytes + 1))) return -1;
        text = (char *)(msgs + n_msgs);
    }
    for (i = 0; i < n_msgs; i++)
        for (k = 0; k < 2; k++) {
            uint32_t len;
            if (end - q < 4) { SRT_FREE(msgs); return 0; }
            len = (uint32_t)srt__get_le(q, 4);
            q += 4;
            if ((uint64_t)(end - q) < len || (k == 0 && len == 0) || memchr(q, 0, len)) { SRT_FREE(msgs); return 0; }
            if (msgs) {
                memcpy(text, q, len);
                text[len] = 0;
                if (k == 0) msgs[i].role = text; else msgs[i].content = text;
                text += len + 1;
            }
            q += len;
        }
    if (q != end) { SRT_FREE(msgs); return 0; }
    if (out) *out = msgs;
    return 1;
}

/* Checks a state and, when every check passes, makes it the session's; msgs (may be NULL): its
   messages, allocated. */
static srt_status srt__state_load(srt_session *s, const void *data, size_t size, const char *what, srt_chat_message **msgs, int *n_msgs_out) {
    static const char *const kv_names[4] = {"?", "f32", "f16", "q8"};
    const unsigned char *h = (const unsigned char *)data, *p;
    const srt_model *m;
    srt__kv_seg seg[SRT__KV_SEGS];
    srt__crc32 tab;
    uint32_t version, kv, n_layer, n_head_kv, head_dim, n_vocab, n_tokens, n_eval, flags, n_seg, nnz[2], n_msgs, msgs_bytes, i;
    uint64_t need, base;
    int has_logits;
    srt_status st = srt__state_check_session(s, what);
    if (st != SRT_OK) return st;
    m = s->m;
    if (!data && size) return srt__fail(SRT_ERR_INVALID_ARG, "%s: NULL data", what);
    if (size < SRT__STATE_HEADER + 4 || memcmp(h, SRT__STATE_MAGIC, 4) != 0)
        return srt__fail(SRT_ERR_FORMAT, "session state: not a sparsert session state (%s)", size < SRT__STATE_HEADER + 4 ? "too short" : "no SRTS magic");
    version = (uint32_t)srt__get_le(h + 4, 4);
    if (version != SRT__STATE_VERSION) return srt__fail(SRT_ERR_UNSUPPORTED, "session state: version %u (this build reads version %d)", version, SRT__STATE_VERSION);
    kv = (uint32_t)srt__get_le(h + 12, 4);
    n_layer = (uint32_t)srt__get_le(h + 16, 4); n_head_kv = (uint32_t)srt__get_le(h + 20, 4);
    head_dim = (uint32_t)srt__get_le(h + 24, 4); n_vocab = (uint32_t)srt__get_le(h + 28, 4);
    n_tokens = (uint32_t)srt__get_le(h + 32, 4); n_eval = (uint32_t)srt__get_le(h + 36, 4);
    flags = (uint32_t)srt__get_le(h + 40, 4); n_seg = (uint32_t)srt__get_le(h + 44, 4);
    nnz[0] = (uint32_t)srt__get_le(h + 48, 4); nnz[1] = (uint32_t)srt__get_le(h + 52, 4);
    n_msgs = (uint32_t)srt__get_le(h + 64, 4); msgs_bytes = (uint32_t)srt__get_le(h + 68, 4);
    has_logits = (flags & SRT__STATE_LOGITS) != 0;
    base = SRT__STATE_HEADER + (uint64_t)msgs_bytes;   /* where the tokens begin */
    /* whose state it is */
    if (n_layer != (uint32_t)m->n_layer || n_head_kv != (uint32_t)m->n_head_kv || head_dim != (uint32_t)m->head_dim || n_vocab != (uint32_t)m->n_vocab)
        return srt__fail(SRT_ERR_INVALID_ARG, "session state: saved with another model (%u layers, %u KV heads of %u, vocabulary %u; this one has %d, %d of %d, %d)",
                         n_layer, n_head_kv, head_dim, n_vocab, m->n_layer, m->n_head_kv, m->head_dim, m->n_vocab);
    if ((uint32_t)srt__get_le(h + 8, 4) != srt__state_fingerprint(s))
        return srt__fail(SRT_ERR_INVALID_ARG, "session state: saved with another model of the same shape (the weights or RoPE settings differ)");
    if (kv < 1 || kv > 3) return srt__fail(SRT_ERR_FORMAT, "session state: unknown KV cache type %u", kv);
    if (kv != (uint32_t)s->kv_elem + 1)
        return srt__fail(SRT_ERR_INVALID_ARG, "session state: its KV cache is %s, this session's is %s (srt_session_desc.kv_type)", kv_names[kv], kv_names[s->kv_elem + 1]);
    /* the sequence */
    if (flags & ~(uint32_t)(SRT__STATE_LOGITS | SRT__STATE_COMPACT)) return srt__fail(SRT_ERR_FORMAT, "session state: unknown flags 0x%x", flags);
    if (n_eval > n_tokens || (has_logits && n_eval == 0)) return srt__fail(SRT_ERR_FORMAT, "session state: %u evaluated of %u tokens%s", n_eval, n_tokens, has_logits ? " with logits" : "");
    if (n_tokens > (uint32_t)s->n_ctx) return srt__fail(SRT_ERR_CONTEXT_FULL, "session state: %u tokens do not fit the context window (%d tokens)", n_tokens, s->n_ctx);
    if (n_seg > SRT__KV_SEGS) return srt__fail(SRT_ERR_FORMAT, "session state: %u pruned stretches (at most %d)", n_seg, SRT__KV_SEGS);
    if (nnz[0] < 1 || nnz[0] > head_dim || nnz[1] < 1 || nnz[1] > head_dim || (n_seg == 0 && (nnz[0] != head_dim || nnz[1] != head_dim || (flags & SRT__STATE_COMPACT))))
        return srt__fail(SRT_ERR_FORMAT, "session state: %u / %u values kept of %u%s", nnz[0], nnz[1], head_dim, n_seg ? "" : " with nothing pruned");
    if (n_seg > 0 && ((int)nnz[0] != s->kv_nnz[0] || (int)nnz[1] != s->kv_nnz[1] || !(flags & SRT__STATE_COMPACT) != !s->kv_compact))
        return srt__fail(SRT_ERR_INVALID_ARG, "session state: its pruned KV rows keep %u / %u of %u K / V values, this session's keep %d / %d (srt_session_desc.kv_sparsity_k, _v)",
                         nnz[0], nnz[1], head_dim, s->kv_nnz[0], s->kv_nnz[1]);
    if ((uint64_t)size < base + 4 * (uint64_t)n_tokens + 8 * (uint64_t)n_seg) return srt__fail(SRT_ERR_FORMAT, "session state: truncated (%llu bytes)", (unsigned long long)size);
    p = h + base + 4 * (size_t)n_tokens;
    for (i = 0; i < n_seg; i++) {
        seg[i].p0 = (int)(uint32_t)srt__get_le(p + 8 * i, 4);
        seg[i].p1 = (int)(uint32_t)srt__get_le(p + 8 * i + 4, 4);
        if (seg[i].p0 < (i ? seg[i - 1].p1 : 0) || seg[i].p1 <= seg[i].p0 || seg[i].p1 > (int)n_eval)
            return srt__fail(SRT_ERR_FORMAT, "session state: pruned stretch %u [%d, %d) is out of order or beyond the %u evaluated tokens", i, seg[i].p0, seg[i].p1, n_eval);
    }
    need = srt__state_size(s, msgs_bytes, (int)n_tokens, (int)n_eval, (int)n_seg, seg, has_logits);
    if ((uint64_t)size != need)
        return srt__fail(SRT_ERR_FORMAT, "session state: %llu bytes, its header says %llu (%s)", (unsigned long long)size, (unsigned long long)need, (uint64_t)size < need ? "truncated" : "trailing bytes");
    srt__crc32_init(&tab);
    if (srt__crc32_pool(m->pool, &tab, data, size - 4) != (uint32_t)srt__get_le(h + size - 4, 4))
        return srt__fail(SRT_ERR_CHECKSUM, "session state: checksum mismatch (the file is damaged)");
    if (srt__state_msgs(h + SRT__STATE_HEADER, n_msgs, msgs_bytes, NULL) != 1)
        return srt__fail(SRT_ERR_FORMAT, "session state: the %u messages (%u bytes) are malformed (a length past the section, an empty role or a NUL byte)", n_msgs, msgs_bytes);
    for (i = 0; i < n_tokens; i++) {
        uint32_t t = (uint32_t)srt__get_le(h + base + 4 * (size_t)i, 4);
        if (t >= n_vocab) return srt__fail(SRT_ERR_FORMAT, "session state: token %u (id %u) is outside the vocabulary (%u)", i, t, n_vocab);
    }
    p += 8 * (size_t)n_seg;
    if (has_logits)
        for (i = 0; i < n_vocab; i++) {
            float f = srt__le_f32(p + 4 * (size_t)i);
            if (!(f >= -FLT_MAX && f <= FLT_MAX)) return srt__fail(SRT_ERR_FORMAT, "session state: logit %u is not finite", i);
        }
    if (msgs) {
        *msgs = NULL;
        if (srt__state_msgs(h + SRT__STATE_HEADER, n_msgs, msgs_bytes, msgs) != 1) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory for the messages", what);
        *n_msgs_out = (int)n_msgs;
    }
    /* every check passed: the session takes it over */
    for (i = 0; i < n_tokens; i++) s->tokens[i] = (int32_t)(uint32_t)srt__get_le(h + base + 4 * (size_t)i, 4);
    s->n_tokens = (int)n_tokens;
    s->n_eval = (int)n_eval;
    s->n_seg = (int)n_seg;
    memcpy(s->seg, seg, n_seg * sizeof *seg);
    s->has_logits = has_logits;
    if (has_logits) { memcpy(s->logits, p, 4 * (size_t)n_vocab); p += 4 * (size_t)n_vocab; }
    s->rng = srt__get_le(h + 56, 8);
    srt__atomic_store(&s->cancel, 0);
    if ((st = srt__state_kv(s, (int)n_eval, NULL, &p)) != SRT_OK) {   /* the device cache is partly written: nothing of it is kept */
        s->n_tokens = s->n_eval = 0;
        s->has_logits = 0;
        srt__grammar_restart(s);
        if (msgs) { SRT_FREE(*msgs); *msgs = NULL; *n_msgs_out = 0; }
        return st;
    }
    s->swa_lo = srt__swa_keep(m, (int)n_eval);   /* the rows a state holds (srt__state_lo) */
    srt__grammar_restart(s);
    return SRT_OK;
}
SRT_API srt_status srt_session_state_load(srt_session *s, const void *data, size_t size) {
    return srt__state_load(s, data, size, "srt_session_state_load", NULL, NULL);
}

static srt_status srt__session_load(srt_session *s, const char *path, srt_chat_message **msgs, int *n_msgs, const char *what) {
    srt__map map;
    srt_status st = srt__state_check_session(s, what);
    if (st != SRT_OK) return st;
    if (!path || (msgs && !n_msgs)) return srt__fail(SRT_ERR_INVALID_ARG, "%s: NULL argument", what);
    if (msgs) { *msgs = NULL; *n_msgs = 0; }
    /* mapped, with no free-memory check (it is read once, in order) */
    if ((st = srt__map_open(path, &map, SRT_LOAD_MMAP, ~(uint64_t)0)) != SRT_OK) return st;
    st = srt__state_load(s, map.data, (size_t)map.size, what, msgs, n_msgs);
    srt__map_close(&map);
    if (st != SRT_OK) return srt__fail(st, "%s: %s", path, srt_last_error());
    return SRT_OK;
}
SRT_API srt_status srt_session_load(srt_session *s, const char *path) { return srt__session_load(s, path, NULL, NULL, "srt_session_load"); }
SRT_API srt_status srt_session_load_chat(srt_session *s, const char *path, srt_chat_message **msgs, int *n) {
    if (!msgs) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_load_chat: NULL messages");
    return srt__session_load(s, path, msgs, n, "srt_session_load_chat");
}
SRT_API void srt_chat_messages_free(srt_chat_message *msgs) { SRT_FREE(msgs); }

/* ---------------------------------------------------------------- 14 chat templates */
/* Each format is written from its reference Jinja template (the one named in the public enum);
   where a template trims content (Jinja's trim / strip) so do we, with ASCII whitespace. */
#include <time.h>
#include <locale.h>
static const char *const srt__chat_names[SRT_CHAT_FORMAT_COUNT] = {"chatml", "llama3", "llama2", "mistral", "mistral-v3", "phi3", "zephyr", "gemma",
                                                                   "tulu", "granite", "exaone4", "minicpm", "olmo3", "harmony", "smollm3",
                                                                   "exaone3"};

SRT_API const char *srt_chat_format_name(srt_chat_format f) { return (unsigned)f < SRT_CHAT_FORMAT_COUNT ? srt__chat_names[f] : NULL; }
SRT_API int srt_chat_format_from_name(const char *name) {
    int i;
    if (!name) return -1;
    for (i = 0; i < SRT_CHAT_FORMAT_COUNT; i++) if (strcmp(name, srt__chat_names[i]) == 0) return i;
    return -1;
}

static void srt__chat_copy(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}

/* Today (UTC) as "DD Mon YYYY" (strftime's "%d %b %Y"), with form 1 "Month DD, YYYY" ("%B %d, %Y"),
   with form 2 "YYYY-MM-DD" ("%Y-%m-%d"), with form 3 "DD Month YYYY" ("%d %B %Y"), from time() without
   the non-reentrant localtime(). */
static void srt__chat_today(char *out, size_t cap, int form) {
    static const char *const mon[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    static const char *const month[12] = {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                                          "November", "December"};
    long long days = (long long)time(NULL) / 86400, y, doe, yoe, doy, mp, d, m;
    days += 719468;                                   /* civil-from-days (H. Hinnant) */
    y = (days >= 0 ? days : days - 146096) / 146097;
    doe = days - y * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + y * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    if (form == 1) snprintf(out, cap, "%s %02d, %04d", month[m - 1], (int)d, (int)y);
    else if (form == 2) snprintf(out, cap, "%04d-%02d-%02d", (int)y, (int)m, (int)d);
    else if (form == 3) snprintf(out, cap, "%02d %s %04d", (int)d, month[m - 1], (int)y);
    else snprintf(out, cap, "%02d %s %04d", (int)d, mon[m - 1], (int)y);
}

/* The family's usual BOS/EOS/stop texts (harmony, smollm3: and today's date, which their templates always write). */
static void srt__chat_defaults(srt_chat_template *t) {
    static const char *const bos[SRT_CHAT_FORMAT_COUNT] = {"", "<|begin_of_text|>", "<s>", "<s>", "<s>", "<s>", "<s>", "<bos>", "<|endoftext|>",
                                                           "<|end_of_text|>", "[BOS]", "<s>", "", "<|startoftext|>", "", "[BOS]"};
    static const char *const eos[SRT_CHAT_FORMAT_COUNT] = {"<|im_end|>", "<|eot_id|>", "</s>", "</s>", "</s>", "<|endoftext|>", "</s>", "<eos>",
                                                           "<|endoftext|>", "<|end_of_text|>", "[|endofturn|]", "</s>", "<|endoftext|>", "<|return|>", "<|im_end|>",
                                                           "[|endofturn|]"};
    static const char *const stop[SRT_CHAT_FORMAT_COUNT][2] = {
        {"<|im_end|>", ""}, {"<|eot_id|>", "<|eom_id|>"}, {"</s>", ""}, {"</s>", ""}, {"</s>", ""},
        {"<|end|>", "<|endoftext|>"}, {"</s>", ""}, {"<end_of_turn>", "<eos>"}, {"<|endoftext|>", ""}, {"<|end_of_text|>", ""},
        {"[|endofturn|]", ""}, {"</s>", ""}, {"<|im_end|>", "<|endoftext|>"}, {"<|return|>", "<|call|>"}, {"<|im_end|>", "<|end_of_text|>"},
        {"[|endofturn|]", ""}};
    srt__chat_copy(t->bos, sizeof t->bos, bos[t->format]);
    srt__chat_copy(t->eos, sizeof t->eos, eos[t->format]);
    memset(t->stop, 0, sizeof t->stop);
    srt__chat_copy(t->stop[0], sizeof t->stop[0], stop[t->format][0]);
    srt__chat_copy(t->stop[1], sizeof t->stop[1], stop[t->format][1]);
    if (t->format == SRT_CHAT_HARMONY) srt__chat_today(t->date, sizeof t->date, 2);
    if (t->format == SRT_CHAT_SMOLLM3) srt__chat_today(t->date, sizeof t->date, 3);
}

/* ChatML templates that insert a system prompt of their own when the conversation has none
   (Qwen, SmolLM2) write it as a string literal: '<|im_start|>system\n...<|im_end|>'. The first
   such literal without a quote or an expression inside is taken, with its escapes decoded. */
static void srt__chat_default_system(const char *jinja, char *out, size_t cap) {
    const char *p = jinja;
    out[0] = 0;
    while ((p = strstr(p, "<|im_start|>system")) != NULL) {
        const char *q = p + 18, *end;
        size_t o = 0;
        p = q;
        if (q[0] == '\\' && q[1] == 'n') q += 2;
        else if (q[0] == '\n') q += 1;
        else continue;
        end = strstr(q, "<|im_end|>");
        if (!end || end == q) continue;
        {
            const char *r;
            int ok = 1;
            for (r = q; r < end && ok; r++) if (*r == '\'' || *r == '"' || *r == '{' || *r == '}') ok = 0;
            if (!ok) continue;
        }
        while (q < end && o + 1 < cap) {
            if (q[0] == '\\' && q + 1 < end) {
                char c = q[1];
                out[o++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
                q += 2;
            } else out[o++] = *q++;
        }
        out[o] = 0;
        return;
    }
}

#define SRT__MINICPM_USER "<\xe7\x94\xa8\xe6\x88\xb7>"
/* SmolLM3's custom instructions in its reasoning mode when the conversation gives none (its template's text) */
#define SRT__SMOLLM3_THINK \
    "You are a helpful AI assistant named SmolLM, trained by Hugging Face. Your role as an assistant involves thoroughly exploring questions through a " \
    "systematic thinking process before providing the final precise and accurate solutions. This requires engaging in a comprehensive cycle of analysis, " \
    "summarizing, exploration, reassessment, reflection, backtracking, and iteration to develop well-considered thinking process. Please structure your " \
    "response into two main sections: Thought and Solution using the specified format: <think> Thought section </think> Solution section. In the Thought " \
    "section, detail your reasoning process in steps. Each step should include detailed considerations such as analysing questions, summarizing relevant " \
    "findings, brainstorming new ideas, verifying the accuracy of the current steps, refining any errors, and revisiting previous steps. In the Solution " \
    "section, based on various attempts, explorations, and reflections from the Thought section, systematically present the final solution that you deem " \
    "correct. The Solution section should be logical, accurate, and concise and detail necessary steps needed to reach the conclusion.\n\n"   /* MiniCPM's user tag (U+7528 U+6237, "user") in UTF-8 */
/* The format a Jinja template text belongs to, by distinctive markers (most specific first).
   Returns 1 if recognised, 0 if not (ChatML then), 2 for an [INST] template of no known variant. */
static int srt__chat_detect(const char *j, srt_chat_format *f) {
    *f = SRT_CHAT_CHATML;
    if (strstr(j, "<|channel|>final<|message|>")) { *f = SRT_CHAT_HARMONY; return 1; }   /* gpt-oss */
    if (strstr(j, "<|im_start|>")) {   /* OLMo 3 Think's (open-instruct's olmo_thinker) appends this to a system message */
        if (strstr(j, "' You do not currently have access to any functions.")) *f = SRT_CHAT_OLMO3;
        else if (strstr(j, "## Metadata") && strstr(j, "Reasoning Mode: ")) *f = SRT_CHAT_SMOLLM3;
        return 1;
    }
    if (strstr(j, "<|start_header_id|>") && strstr(j, "<|end_header_id|>")) { *f = SRT_CHAT_LLAMA3; return 1; }
    if (strstr(j, "[INST]")) {
        if (strstr(j, "<<SYS>>")) { *f = SRT_CHAT_LLAMA2; return 1; }
        if (strstr(j, "' [INST] '") || strstr(j, "\" [INST] \"")) { *f = SRT_CHAT_MISTRAL; return 1; }
        if (strstr(j, "'[INST] '") || strstr(j, "\"[INST] \"")) { *f = SRT_CHAT_MISTRAL_V3; return 1; }
        *f = SRT_CHAT_MISTRAL;
        return 2;
    }
    if (strstr(j, "<|assistant|>") && strstr(j, "<|end|>")) { *f = SRT_CHAT_PHI3; return 1; }
    if (strstr(j, "<|user|>") && strstr(j, "<|assistant|>")) {   /* Tulu ends a user turn with a newline, Zephyr with EOS */
        *f = strstr(j, "message['content'] + '\\n'") || strstr(j, "message['content'] + '\n'") ? SRT_CHAT_TULU : SRT_CHAT_ZEPHYR;
        return 1;
    }
    if (strstr(j, "<start_of_turn>")) { *f = SRT_CHAT_GEMMA; return 1; }
    if (strstr(j, "<|start_of_role|>")) { *f = SRT_CHAT_GRANITE; return 1; }
    if (strstr(j, "[|endofturn|]") && strstr(j, "<think>")) { *f = SRT_CHAT_EXAONE4; return 1; }
    /* EXAONE 3.0 / 3.5: no reasoning block, an empty system turn written as one literal (EXAONE Deep's
       "<thought>" replies have another layout: not this) */
    if (strstr(j, "[|endofturn|]") && strstr(j, "[|system|][|endofturn|]") && !strstr(j, "<thought>")) { *f = SRT_CHAT_EXAONE3; return 1; }
    if (strstr(j, SRT__MINICPM_USER)) { *f = SRT_CHAT_MINICPM; return 1; }
    return 0;
}

/* What a recognised template adds beyond its format: ChatML's own default system prompt and
   Qwen3's reasoning rules, Llama 3.1's dated system block, Granite's default system turn (3.1 and
   later: the knowledge cutoff and today's date, "%B %d, %Y", before the identity; 3.0: the
   identity alone). */
static void srt__chat_extras(const char *j, srt_chat_template *t) {
    if (t->format == SRT_CHAT_CHATML || t->format == SRT_CHAT_OLMO3) srt__chat_default_system(j, t->default_system, sizeof t->default_system);
    if (t->format == SRT_CHAT_CHATML && strstr(j, "</think>") && strstr(j, "last_query_index")) t->think = 1;
    if (t->format == SRT_CHAT_CHATML && strstr(j, "<tool_call>") && strstr(j, "<tool_response>")) t->tool_use = 1;
    if (t->format == SRT_CHAT_LLAMA3 && strstr(j, "ipython") && strstr(j, "Cutting Knowledge Date")) t->tool_use = 1;
    if (t->format == SRT_CHAT_HARMONY && strstr(j, "render_tool_namespace")) t->tool_use = 1;
    if (t->format == SRT_CHAT_SMOLLM3 && strstr(j, "xml_tools")) t->tool_use = 1;
    if (t->format == SRT_CHAT_LLAMA3 && strstr(j, "Cutting Knowledge Date")) {
        t->dated_system = 1;
        if (strstr(j, "strftime_now")) srt__chat_today(t->date, sizeof t->date, 0);
        else srt__chat_copy(t->date, sizeof t->date, "26 Jul 2024");
    }
    if (t->format == SRT_CHAT_GRANITE && strstr(j, "You are Granite, developed by IBM.")) {
        static const char *const who = "You are Granite, developed by IBM. You are a helpful AI assistant.";
        if (strstr(j, "Knowledge Cutoff Date: April 2024.") && strstr(j, "strftime_now")) {
            char day[32];
            srt__chat_today(day, sizeof day, 1);
            snprintf(t->default_system, sizeof t->default_system, "Knowledge Cutoff Date: April 2024.\nToday's Date: %s.\n%s", day, who);
        } else srt__chat_copy(t->default_system, sizeof t->default_system, who);
    }
}

SRT_API srt_status srt_chat_template_from_text(const char *jinja, const char *bos, const char *eos, srt_chat_template *t) {
    const char *j = jinja ? jinja : "";
    int found;
    if (!t) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_template_from_text: NULL template");
    memset(t, 0, sizeof *t);
    found = srt__chat_detect(j, &t->format);
    t->guessed = found != 1;
    if (found == 2) srt__log(SRT_LOG_WARN, "chat template: an [INST] template of no known variant; rendering it as \"mistral\"");
    else if (!found)
        srt__log(SRT_LOG_WARN, j[0] ? "chat template not recognised; using ChatML (choose another one by name)"
                                    : "the model has no chat template; using ChatML (choose another one by name)");
    srt__chat_defaults(t);
    if (bos) srt__chat_copy(t->bos, sizeof t->bos, bos);
    if (eos) srt__chat_copy(t->eos, sizeof t->eos, eos);
    if (found == 1) srt__chat_extras(j, t);
    return SRT_OK;
}

SRT_API srt_status srt_chat_template_from_model(const srt_model *m, const char *name, srt_chat_template *t) {
    const char *jinja = NULL, *bos = NULL, *eos = NULL;
    int f = -1;
    srt_chat_format stored;
    if (!m || !t) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_template_from_model: NULL argument");
    if (name && (f = srt_chat_format_from_name(name)) < 0) {
        char names[256] = "";
        int i;
        for (i = 0; i < SRT_CHAT_FORMAT_COUNT; i++) { strcat(names, i ? ", " : ""); strcat(names, srt__chat_names[i]); }
        return srt__fail(SRT_ERR_INVALID_ARG, "unknown chat template '%s' (%s)", name, names);
    }
    srt_model_meta_str(m, "tokenizer.chat_template", &jinja);
    if (m->vocab.bos >= 0) bos = m->vocab.piece[m->vocab.bos];
    if (m->vocab.eos >= 0) eos = m->vocab.piece[m->vocab.eos];
    if (f < 0) return srt_chat_template_from_text(jinja, bos, eos, t);
    memset(t, 0, sizeof *t);          /* by name; the stored template only adds its own extras */
    t->format = (srt_chat_format)f;
    srt__chat_defaults(t);
    if (bos) srt__chat_copy(t->bos, sizeof t->bos, bos);
    if (eos) srt__chat_copy(t->eos, sizeof t->eos, eos);
    if (jinja && srt__chat_detect(jinja, &stored) == 1 && stored == t->format) srt__chat_extras(jinja, t);
    return SRT_OK;
}

typedef struct srt__out { char *buf; size_t cap, n; } srt__out;
static void srt__put(srt__out *o, const char *s, size_t n) {
    if (o->n < o->cap) {
        size_t k = o->cap - o->n;
        memcpy(o->buf + o->n, s, n < k ? n : k);
    }
    o->n += n;
}
static void srt__puts(srt__out *o, const char *s) { srt__put(o, s, strlen(s)); }
static const char *srt__strrstr(const char *s, const char *sub) {   /* the last occurrence, or NULL */
    const char *r = NULL, *p = s;
    while ((p = strstr(p, sub)) != NULL) r = p++;
    return r;
}
/* An assistant message under Qwen3's rules (srt_chat_template.think), as its template renders it:
   reasoning = the text before the first "</think>", '\n'-stripped at its end, after its last
   "<think>", '\n'-stripped at its start; answer = the text after the last "</think>",
   '\n'-stripped at its start. keep: "<think>\n" + reasoning.strip('\n') + "\n</think>\n\n" + answer
   (lstripped of '\n' again), for the last message after the last user query or one with reasoning. */
static void srt__chat_think_put(srt__out *o, const char *content, int after_query, int last) {
    const char *end = strstr(content, "</think>"), *r0 = content, *r1 = content, *a = content, *p;
    if (end) {   /* [r0, r1) = the reasoning, a = the answer */
        r1 = end;
        while (r1 > content && r1[-1] == '\n') r1--;
        for (p = content; (p = strstr(p, "<think>")) != NULL && p + 7 <= r1; p++) r0 = p + 7;
        while (r0 < r1 && *r0 == '\n') r0++;
        a = srt__strrstr(content, "</think>") + 8;
    }
    if (after_query && (last || r1 > r0)) {
        while (*a == '\n') a++;
        srt__puts(o, "<think>\n"); srt__put(o, r0, (size_t)(r1 - r0)); srt__puts(o, "\n</think>\n\n");
    } else if (end) while (*a == '\n') a++;
    srt__puts(o, a);
}
/* Qwen3's last query: the last user message that is not a tool response; n - 1 if there is none. */
static int srt__chat_last_query(const srt_chat_message *msgs, int n) {
    int i;
    for (i = n - 1; i >= 0; i--) {
        const char *c = msgs[i].content;
        size_t l = strlen(c);
        if (!strcmp(msgs[i].role, "user") && !(strncmp(c, "<tool_response>", 15) == 0 && l >= 16 && strcmp(c + l - 16, "</tool_response>") == 0))
            return i;
    }
    return n - 1;
}
static int srt__chat_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
/* Python's s.replace(sub, "") then .rstrip() (ASCII white space), in place. */
static void srt__remove_rstrip(char *s, const char *sub) {
    size_t k = 0, n = strlen(sub);
    const char *p = s;
    while (*p) {
        if (!strncmp(p, sub, n)) p += n;
        else s[k++] = *p++;
    }
    while (k && srt__chat_space(s[k - 1])) k--;
    s[k] = 0;
}
static char *srt__chat_strdup(const char *s, size_t n) {
    char *d = (char *)SRT_MALLOC(n + 1);
    if (d) { if (n) memcpy(d, s, n); d[n] = 0; }
    return d;
}
static void srt__put_trim(srt__out *o, const char *s) {
    size_t n = strlen(s);
    while (n && srt__chat_space(*s)) { s++; n--; }
    while (n && srt__chat_space(s[n - 1])) n--;
    srt__put(o, s, n);
}
/* JSON as the templates' tojson writes it: transformers' tojson is Python's json.dumps(x,
   ensure_ascii=False), ", " and ": " between items, or with indent N "," and ": " and each item on
   its own line; an empty object or array stays "{}" / "[]". Values are read strictly (RFC 8259,
   valid UTF-8) and written again: strings with json.dumps' escapes (\" \\ \n \r \t \b \f, other
   control characters as \u00xx, everything else as it is), integers as written ("-0" as 0), other
   numbers as Python's repr of the double (the shortest digits that read back, 1e+16 / 1e-05 beyond
   the fixed range). Each function returns the end of what it read, NULL when it is not JSON. */
#define SRT__JSON_DEPTH 64
static const char *srt__json_ws(const char *p) { while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++; return p; }
/* One code point as json.dumps writes it in a string, or with raw as UTF-8 whatever it is. */
static void srt__json_put_cp(srt__out *o, uint32_t cp, int raw) {
    char b[8];
    int n = 0;
    if (raw && cp < 0x80) { b[0] = (char)cp; n = 1; }
    else if (cp == '"' || cp == '\\') { b[0] = '\\'; b[1] = (char)cp; n = 2; }
    else if (cp == '\n' || cp == '\r' || cp == '\t' || cp == '\b' || cp == '\f') {
        b[0] = '\\'; b[1] = cp == '\n' ? 'n' : cp == '\r' ? 'r' : cp == '\t' ? 't' : cp == '\b' ? 'b' : 'f'; n = 2;
    } else if (cp < 0x20) n = snprintf(b, sizeof b, "\\u%04x", (unsigned)cp);
    else if (cp < 0x80) { b[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 63)); n = 2; }
    else if (cp < 0x10000) { b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 63)); b[2] = (char)(0x80 | (cp & 63)); n = 3; }
    else { b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 63)); b[2] = (char)(0x80 | ((cp >> 6) & 63)); b[3] = (char)(0x80 | (cp & 63)); n = 4; }
    srt__put(o, b, (size_t)n);
}
/* A Python str (here: bytes of valid UTF-8, up to n) as json.dumps writes it, quotes included; 0 if not valid UTF-8. */
static int srt__json_put_text(srt__out *o, const char *s, size_t n) {
    size_t i = 0;
    srt__put(o, "\"", 1);
    while (i < n) {
        uint32_t cp;
        int l = srt__utf8_strict((const unsigned char *)s + i, &cp);
        if (l == 0 || (size_t)l > n - i) return 0;
        srt__json_put_cp(o, cp, 0);
        i += (size_t)l;
    }
    srt__put(o, "\"", 1);
    return 1;
}
/* The next character of a JSON string, *p past its opening quote: 1 with *cp (and *p moved past it),
   0 at the closing quote (*p past it), -1 if the string is malformed. */
static int srt__json_char(const char **p, uint32_t *cp) {
    const char *q = *p;
    uint32_t lo;
    int l;
    if (*q == '"') { *p = q + 1; return 0; }
    if ((unsigned char)*q < 0x20) return -1;   /* a control character, or the text ends */
    if (*q != '\\') {
        if (!(l = srt__utf8_strict((const unsigned char *)q, cp))) return -1;
        q += l;
    } else if (q[1] == 'u') {
        if (!srt__hex_digits(q + 2, 4, cp)) return -1;
        q += 6;
        if (*cp >= 0xDC00 && *cp < 0xE000) return -1;   /* a lone low surrogate */
        if (*cp >= 0xD800 && *cp < 0xDC00) {              /* a pair */
            if (q[0] != '\\' || q[1] != 'u' || !srt__hex_digits(q + 2, 4, &lo) || lo < 0xDC00 || lo >= 0xE000) return -1;
            *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
            q += 6;
        }
    } else {
        static const char esc[] = "\"\\/bfnrt", val[] = "\"\\/\b\f\n\r\t";
        const char *e = q[1] ? strchr(esc, q[1]) : NULL;
        if (!e) return -1;
        *cp = (unsigned char)val[e - esc];
        q += 2;
    }
    *p = q;
    return 1;
}
/* The JSON string at p (its opening quote) as json.dumps writes it, or with raw its text. */
static const char *srt__json_string(srt__out *o, const char *p, int raw) {
    uint32_t cp;
    int r;
    if (!raw) srt__put(o, "\"", 1);
    for (p++; (r = srt__json_char(&p, &cp)) > 0; ) srt__json_put_cp(o, cp, raw);
    if (r < 0) return NULL;
    if (!raw) srt__put(o, "\"", 1);
    return p;
}
/* Whether the JSON strings at a and b (their opening quotes) have the same text (0 if one is
   malformed). Allocates nothing. */
static int srt__json_same_text(const char *a, const char *b) {
    uint32_t ca = 0, cb = 0;
    int ra, rb;
    if (*a != '"' || *b != '"') return 0;
    for (a++, b++;;) {
        ra = srt__json_char(&a, &ca); rb = srt__json_char(&b, &cb);
        if (ra != rb || ra < 0 || (ra && ca != cb)) return 0;
        if (!ra) return 1;
    }
}
/* Python's repr of the double a JSON number (with a fraction or an exponent) reads as. */
static int srt__json_float(srt__out *o, const char *s, size_t n) {
    char b[64], d[24], out[48];
    const struct lconv *lc = localeconv();
    const char point = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
    char *num = NULL, *q;
    double v;
    int prec, nd = 0, e10, dp, k = 0, i;
    if (point == '.') v = strtod(s, NULL);   /* (it stops where the JSON number does; nothing allocated, so walking JSON cannot run out of memory) */
    else {                                  /* strtod reads the locale's decimal point */
        if (n >= sizeof b && !(num = (char *)SRT_MALLOC(n + 1))) return 0;
        q = num ? num : b;
        memcpy(q, s, n);
        q[n] = 0;
        for (i = 0; q[i]; i++) if (q[i] == '.') q[i] = point;
        v = strtod(q, NULL);
        SRT_FREE(num);
    }
    if (!(v - v == 0)) return 0;   /* out of range: Python would write Infinity, which is not JSON */
    for (prec = 1; prec < 17; prec++) { snprintf(b, sizeof b, "%.*e", prec - 1, v); if (strtod(b, NULL) == v) break; }
    snprintf(b, sizeof b, "%.*e", prec - 1, v);
    for (q = b; *q && *q != 'e' && *q != 'E'; q++) if (*q >= '0' && *q <= '9' && nd < 20) d[nd++] = *q;
    e10 = *q ? atoi(q + 1) : 0;
    while (nd > 1 && d[nd - 1] == '0') nd--;
    if (b[0] == '-') out[k++] = '-';
    dp = e10 + 1;   /* digits before the decimal point */
    if (dp > -4 && dp <= 16) {
        if (dp <= 0) { out[k++] = '0'; out[k++] = '.'; for (i = 0; i < -dp; i++) out[k++] = '0'; for (i = 0; i < nd; i++) out[k++] = d[i]; }
        else {
            for (i = 0; i < dp; i++) out[k++] = i < nd ? d[i] : '0';
            out[k++] = '.';
            if (nd <= dp) out[k++] = '0';
            for (i = dp; i < nd; i++) out[k++] = d[i];
        }
        out[k] = 0;
    } else {
        out[k++] = d[0];
        if (nd > 1) { out[k++] = '.'; for (i = 1; i < nd; i++) out[k++] = d[i]; }
        snprintf(out + k, sizeof out - (size_t)k, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
    }
    srt__puts(o, out);
    return 1;
}
static const char *srt__json_number(srt__out *o, const char *p) {
    const char *s = p;
    int frac = 0;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return NULL;
    if (*p == '.') {
        frac = 1;
        if (!(*++p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        frac = 1;
        if (*++p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (frac) return srt__json_float(o, s, (size_t)(p - s)) ? p : NULL;
    if (p - s == 2 && s[0] == '-' && s[1] == '0') srt__put(o, "0", 1);   /* Python's int("-0") */
    else srt__put(o, s, (size_t)(p - s));
    return p;
}
static void srt__json_newline(srt__out *o, int indent, int level) {
    int i;
    srt__put(o, "\n", 1);
    for (i = 0; i < indent * level; i++) srt__put(o, " ", 1);
}
static const char *srt__json_value(srt__out *o, const char *p, int indent, int level) {
    static const char *const lit[3] = {"true", "false", "null"};
    int i;
    p = srt__json_ws(p);
    if (*p == '"') return srt__json_string(o, p, 0);
    if (*p == '{' || *p == '[') {
        const char close = *p == '{' ? '}' : ']';
        if (level >= SRT__JSON_DEPTH) return NULL;
        srt__put(o, p, 1);
        p = srt__json_ws(p + 1);
        if (*p == close) { srt__put(o, p, 1); return p + 1; }
        for (i = 0;; i++) {
            if (i) srt__puts(o, indent ? "," : ", ");
            if (indent) srt__json_newline(o, indent, level + 1);
            if (close == '}') {
                if (*p != '"' || !(p = srt__json_string(o, p, 0))) return NULL;
                if (*(p = srt__json_ws(p)) != ':') return NULL;
                srt__puts(o, ": ");
                p++;
            }
            if (!(p = srt__json_value(o, p, indent, level + 1))) return NULL;
            p = srt__json_ws(p);
            if (*p == close) break;
            if (*p != ',') return NULL;
            p = srt__json_ws(p + 1);
        }
        if (indent) srt__json_newline(o, indent, level);
        srt__put(o, p, 1);
        return p + 1;
    }
    for (i = 0; i < 3; i++)
        if (!strncmp(p, lit[i], strlen(lit[i]))) { srt__puts(o, lit[i]); return p + strlen(lit[i]); }
    return srt__json_number(o, p);
}
/* Writes each object of the JSON array text as tojson does, between before and after; NULL if all
   is well, else where the text stops being an array of objects. */
static const char *srt__json_each(srt__out *o, const char *arr, int indent, const char *before, const char *after) {
    const char *p = srt__json_ws(arr), *at;
    if (*p != '[') return p;
    p = srt__json_ws(p + 1);
    if (*p == ']') return *srt__json_ws(p + 1) ? srt__json_ws(p + 1) : NULL;
    for (;;) {
        if (*p != '{') return p;
        srt__puts(o, before);
        if (!(at = srt__json_value(o, p, indent, 0))) return p;
        srt__puts(o, after);
        p = srt__json_ws(at);
        if (*p == ']') break;
        if (*p != ',') return p;
        p = srt__json_ws(p + 1);
    }
    p = srt__json_ws(p + 1);
    return *p ? p : NULL;
}
/* Walking a JSON text already read by srt__json_value (so every step below is on valid JSON). */
static const char *srt__json_skip(const char *v) { srt__out none = {NULL, 0, 0}; return srt__json_value(&none, v, 0, 0); }
/* The next member of the object at *it (its '{', then where the last member ended): 1 with the key (its
   quoted text) and the value's start, 0 after the last one. */
static int srt__json_member(const char **it, const char **key, const char **val) {
    const char *p = srt__json_ws(*it);
    if (*p == '{' || *p == ',') p = srt__json_ws(p + 1);
    if (*p != '"') return 0;
    *key = p;
    *val = srt__json_ws(srt__json_ws(srt__json_skip(p)) + 1);
    *it = srt__json_skip(*val);
    return 1;
}
/* The next element of the array at *it (its '[', then where the last element ended): 1 with the
   element's start in *val, 0 after the last. */
static int srt__json_item(const char **it, const char **val) {
    const char *p = srt__json_ws(*it);
    if (*p == '[' || *p == ',') p = srt__json_ws(p + 1);
    if (!*p || *p == ']') return 0;
    *val = p;
    *it = srt__json_skip(p);
    return 1;
}
/* Whether the JSON string at v (NULL: none) decodes to s. */
static int srt__json_is(const char *v, const char *s) {
    char b[256];
    srt__out o;
    size_t n = strlen(s);
    if (!v || *v != '"' || n + 3 > sizeof b) return 0;
    o.buf = b; o.cap = sizeof b; o.n = 0;
    srt__json_string(&o, v, 1);
    return o.n == n && memcmp(b, s, n) == 0;
}
/* The decoded text of the JSON string at v, SRT_MALLOC'd (NULL when out of memory). */
static char *srt__json_text(const char *v, size_t *n) {
    srt__out o = {NULL, 0, 0};
    char *b;
    srt__json_string(&o, v, 1);
    if (!(b = (char *)SRT_MALLOC(o.n + 1))) return NULL;
    *n = o.n; o.buf = b; o.cap = o.n + 1; o.n = 0;
    srt__json_string(&o, v, 1);
    b[*n] = 0;
    return b;
}
/* The value of key in the object at obj (the last one, as Python's dict keeps), NULL if none. */
static const char *srt__json_get(const char *obj, const char *key) {
    const char *it = obj, *k, *v, *found = NULL;
    if (!obj || *obj != '{') return NULL;
    while (srt__json_member(&it, &k, &v)) if (srt__json_is(k, key)) found = v;
    return found;
}
/* Jinja's truth: not null / false / 0 / "" / [] / {} (an absent value is false too). */
static int srt__json_truthy(const char *v) {
    if (!v || *v == 'n' || *v == 'f') return 0;
    if (*v == '"') return v[1] != '"';
    if (*v == '[' || *v == '{') return *srt__json_ws(v + 1) != (*v == '[' ? ']' : '}');
    if (*v == '-' || (*v >= '0' && *v <= '9')) {   /* a digit other than 0 before the exponent */
        for (; *v && *v != 'e' && *v != 'E' && *v != ',' && *v != ']' && *v != '}' && !srt__chat_space(*v); v++) if (*v >= '1' && *v <= '9') return 1;
        return 0;
    }
    return 1;
}
/* Python's str() of a scalar, as Jinja's `+` and join write it: a string's text, a number as tojson
   writes it, True / False / None. 0 for an array or object. */
static int srt__json_put_str(srt__out *o, const char *v) {
    if (*v == '"') srt__json_string(o, v, 1);
    else if (*v == 't' || *v == 'f' || *v == 'n') srt__puts(o, *v == 't' ? "True" : *v == 'f' ? "False" : "None");
    else if (*v == '[' || *v == '{') return 0;
    else srt__json_value(o, v, 0, 0);
    return 1;
}

/* Python's repr() of a JSON value (what Jinja's `| string` writes for a dict: SmolLM3's tools): strings
   in single quotes (double when they hold a ' and no "), \\ \t \n \r and the quote escaped, other
   characters Python counts unprintable (control, format, private, unassigned, separators but the
   space: the tokenizer's Unicode classes) as \\xhh / \\uhhhh / \\Uhhhhhhhh; True / False / None;
   ", " and ": " between items. Returns the end of the value. */
static const char *srt__py_repr(srt__out *o, const char *v) {
    v = srt__json_ws(v);
    if (*v == '"') {   /* (read twice, a character at a time: the quote, then the text; nothing allocated) */
        const char *p = v + 1;
        uint32_t cp;
        int q = '\'', sq = 0, dq = 0, r;
        char qc, b[16];
        while ((r = srt__json_char(&p, &cp)) > 0) { sq |= cp == '\''; dq |= cp == '"'; }
        if (r < 0) return NULL;
        if (sq && !dq) q = '"';
        qc = (char)q;
        srt__put(o, &qc, 1);
        for (v++; srt__json_char(&v, &cp) > 0; ) {
            const int cls = cp < 0x80 ? -1 : srt__uc_class(cp);
            if (cp == '\\' || cp == (uint32_t)q) { b[0] = '\\'; b[1] = (char)cp; srt__put(o, b, 2); }
            else if (cp == '\t') srt__puts(o, "\\t");
            else if (cp == '\n') srt__puts(o, "\\n");
            else if (cp == '\r') srt__puts(o, "\\r");
            else if (cp < 0x20 || cp == 0x7f || (cls >= 0 && (cls == SRT__UC_OTHER || cls == SRT__UC_SPACE || cls == SRT__UC_SEPARATOR))) {
                snprintf(b, sizeof b, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", (unsigned)cp);
                srt__puts(o, b);
            } else srt__json_put_cp(o, cp, 1);
        }
        srt__put(o, &qc, 1);
        return p;
    }
    if (*v == '{' || *v == '[') {
        const char close = *v == '{' ? '}' : ']';
        int k;
        srt__put(o, v, 1);
        v = srt__json_ws(v + 1);
        for (k = 0; *v != close; k++) {
            if (k) srt__puts(o, ", ");
            if (close == '}') { v = srt__json_ws(srt__py_repr(o, v)); srt__puts(o, ": "); v = srt__json_ws(v + 1); }   /* (past the ':') */
            v = srt__json_ws(srt__py_repr(o, v));
            if (*v == ',') v = srt__json_ws(v + 1);
        }
        srt__put(o, v, 1);
        return v + 1;
    }
    if (*v == 't' || *v == 'f' || *v == 'n') { srt__puts(o, *v == 't' ? "True" : *v == 'f' ? "False" : "None"); return v + (*v == 'f' ? 5 : 4); }
    return srt__json_number(o, v);
}

/* Whether the JSON string key is one of the strings of the array arr (NULL: none), decoded. */
static int srt__json_has_string(const char *arr, const char *key) {
    const char *it = arr, *v;
    if (!arr || *arr != '[') return 0;
    while (srt__json_item(&it, &v)) if (srt__json_same_text(v, key)) return 1;
    return 0;
}
/* gpt-oss's render_typescript_type: a JSON schema as the TypeScript type its template writes (the
   template's whitespace included). Returns NULL, or what it cannot write. */
static const char *srt__harmony_type(srt__out *o, const char *spec, int depth) {
    const char *type = srt__json_get(spec, "type"), *items, *it, *k, *v;
    int n;
    if (depth > SRT__JSON_DEPTH) return "schemas nested too deeply";
    if (srt__json_is(type, "array")) {
        items = srt__json_get(spec, "items");
        if (!srt__json_truthy(items)) srt__puts(o, "any[]");
        else {
            const char *t = srt__json_get(items, "type");
            if (srt__json_is(t, "string")) srt__puts(o, "string[]");
            else if (srt__json_is(t, "number") || srt__json_is(t, "integer")) srt__puts(o, "number[]");
            else if (srt__json_is(t, "boolean")) srt__puts(o, "boolean[]");
            else {   /* the inner type, unless it is long or "object | object" */
                char b[64];
                srt__out in;
                const char *why;
                in.buf = b; in.cap = sizeof b; in.n = 0;
                if (*items != '{') return "array items that are not an object";
                if ((why = srt__harmony_type(&in, items, depth + 1)) != NULL) return why;
                if (in.n > 50 || (in.n == 15 && !memcmp(b, "object | object", 15))) srt__puts(o, "any[]");
                else { srt__put(o, b, in.n); srt__puts(o, "[]"); }
            }
        }
        if (srt__json_truthy(srt__json_get(spec, "nullable"))) srt__puts(o, " | null");
        return NULL;
    }
    if (type && *type == '[' && srt__json_truthy(type)) {   /* a list of types: joined */
        const char *ty;
        for (it = type, n = 0; srt__json_item(&it, &ty); n++) {
            if (n) srt__puts(o, " | ");
            if (!srt__json_put_str(o, ty)) return "a type list holding an array or object";
        }
        return NULL;
    }
    if (srt__json_truthy(srt__json_get(spec, "oneOf"))) {   /* (the template's has_object_variants never leaves its loop) */
        const char *one = srt__json_get(spec, "oneOf");
        if (*one != '[') return "a oneOf that is not an array";
        for (it = srt__json_ws(one + 1); *it != ']';) {
            const char *next = srt__json_ws(srt__json_skip(it)), *why, *d;
            if (*it != '{') return "a oneOf variant that is not an object";
            if ((why = srt__harmony_type(o, it, depth + 1)) != NULL) return why;
            if (srt__json_truthy(d = srt__json_get(it, "description"))) {
                srt__puts(o, "// ");
                if (*d != '"') return "a description that is not a string";
                srt__json_put_str(o, d);
            }
            if ((d = srt__json_get(it, "default")) != NULL) { srt__puts(o, "                    // default: "); srt__json_value(o, d, 0, 0); }
            if (*next == ',') { srt__puts(o, " | \n"); next = srt__json_ws(next + 1); }
            it = next;
        }
        return NULL;
    }
    if (srt__json_is(type, "string")) {
        const char *e = srt__json_get(spec, "enum");
        if (srt__json_truthy(e)) {
            if (*e != '[') return "an enum that is not an array";
            srt__puts(o, "\"");
            const char *x;
            for (it = e, n = 0; srt__json_item(&it, &x); n++) {
                if (n) srt__puts(o, "\" | \"");
                if (!srt__json_put_str(o, x)) return "an enum holding an array or object";
            }
            srt__puts(o, "\"");
        } else {
            srt__puts(o, "string");
            if (srt__json_truthy(srt__json_get(spec, "nullable"))) srt__puts(o, " | null");
        }
        return NULL;
    }
    if (srt__json_is(type, "number") || srt__json_is(type, "integer")) { srt__puts(o, "number"); return NULL; }
    if (srt__json_is(type, "boolean")) { srt__puts(o, "boolean"); return NULL; }
    if (srt__json_is(type, "object")) {
        const char *props = srt__json_get(spec, "properties"), *req = srt__json_get(spec, "required");
        if (!srt__json_truthy(props)) { srt__puts(o, "object"); return NULL; }
        if (*props != '{') return "properties that are not an object";
        srt__puts(o, "{\n");
        for (it = props, n = 0; srt__json_member(&it, &k, &v); n++) {
            const char *why;
            if (n) srt__puts(o, ", ");
            srt__json_string(o, k, 1);
            if (!srt__json_has_string(req, k)) srt__puts(o, "?");
            srt__puts(o, ": \n                ");
            if (*v != '{') return "a property schema that is not an object";
            if ((why = srt__harmony_type(o, v, depth + 1)) != NULL) return why;
        }
        srt__puts(o, "}");
        return NULL;
    }
    srt__puts(o, "any");
    return NULL;
}

/* gpt-oss's render_tool_namespace("functions", tools): the tools as a TypeScript namespace. Returns NULL, or
   what the template could not write (it would raise: a tool without a function object, a name or a
   description that is not a string, a default added to a string that is not one, ...). */
static const char *srt__harmony_tools(srt__out *o, const char *tools) {
    const char *t = srt__json_ws(srt__json_ws(tools) + 1), *f, *d, *name, *params, *props, *req, *it, *k, *v, *why, *p;
    uint32_t cp;
    int r;
    for (p = tools; *p; ) {   /* (its strings are written as their text, and a rendered text ends at a NUL) */
        if (*p++ != '"') continue;
        while ((r = srt__json_char(&p, &cp)) > 0) if (!cp) return "a string holding the character U+0000 (written as text, it would end the rendered text)";
        if (r < 0) return "a malformed string";
    }
    srt__puts(o, "## functions\n\nnamespace functions {\n\n");
    for (; *t == '{'; t = srt__json_ws(t)) {
        f = srt__json_get(t, "function");
        d = f ? srt__json_get(f, "description") : NULL;
        name = f ? srt__json_get(f, "name") : NULL;
        if (!f || *f != '{') return "a tool without a \"function\" object";
        if (!d || *d != '"') return "a function whose description is not a string (the template writes \"// \" + description)";
        if (!name || *name != '"') return "a function whose name is not a string";
        srt__puts(o, "// "); srt__json_string(o, d, 1); srt__puts(o, "\ntype "); srt__json_string(o, name, 1); srt__puts(o, " = ");
        params = srt__json_get(f, "parameters");
        props = params && *params == '{' ? srt__json_get(params, "properties") : NULL;
        if (srt__json_truthy(params) && srt__json_truthy(props)) {
            if (*props != '{') return "properties that are not an object";
            req = srt__json_get(params, "required");
            if (srt__json_truthy(req) && *req != '[') return "required that is not an array";
            srt__puts(o, "(_: {\n");
            for (it = props; srt__json_member(&it, &k, &v);) {
                const char *def = NULL;
                if (*v != '{') return "a parameter schema that is not an object";
                if (srt__json_truthy(d = srt__json_get(v, "description"))) {
                    if (*d != '"') return "a parameter description that is not a string";
                    srt__puts(o, "// "); srt__json_string(o, d, 1); srt__puts(o, "\n");
                }
                srt__json_string(o, k, 1);
                if (!srt__json_has_string(req, k)) srt__puts(o, "?");
                srt__puts(o, ": ");
                if ((why = srt__harmony_type(o, v, 0)) != NULL) return why;
                if ((def = srt__json_get(v, "default")) != NULL) {
                    int e = srt__json_truthy(srt__json_get(v, "enum")), one = !e && srt__json_truthy(srt__json_get(v, "oneOf"));
                    srt__puts(o, one ? "// default: " : ", // default: ");
                    if (e || one) { if (*def != '"') return "an enum's or oneOf's default that is not a string"; srt__json_string(o, def, 1); }
                    else srt__json_value(o, def, 0, 0);
                }
                srt__puts(o, ",\n");
            }
            srt__puts(o, "}) => any;\n\n");
        } else srt__puts(o, "() => any;\n\n");
        t = srt__json_ws(srt__json_skip(t));
        if (*t == ',') t++;
    }
    srt__puts(o, "} // namespace functions");
    return NULL;
}
/* A harmony reply's tool call: in its last message (after the last <|end|>), "to=functions.NAME" in
   the header and the arguments after <|message|> up to <|call|> or the end. 1 found, 0 none, -1
   malformed (why says how). */
static int srt__harmony_call(const char *r, srt_chat_tool_call *c, const char **why) {
    const char *last = srt__strrstr(r, "<|end|>"), *p = strstr(last ? last : r, "to=functions."), *m, *e, *end;
    memset(c, 0, sizeof *c);
    if (!p) return 0;
    c->name = p + 13;
    for (e = c->name; *e && *e != ' ' && *e != '<'; e++) {}
    c->name_len = (size_t)(e - c->name);
    if (!c->name_len) { *why = "no function name after to=functions."; return -1; }
    if (!(m = strstr(e, "<|message|>"))) { *why = "the call has no <|message|>"; return -1; }
    end = strstr(m + 11, "<|call|>");
    c->arguments = srt__json_ws(m + 11);
    if (*c->arguments != '{' || !(e = srt__json_skip(c->arguments)) || (end ? srt__json_ws(e) != end : *srt__json_ws(e) != 0)) {
        *why = "the arguments are not one JSON object";
        return -1;
    }
    c->arguments_len = (size_t)(e - c->arguments);
    if (memchr(c->name, '\\', c->name_len)) { *why = "the name has escapes"; return -1; }
    return 1;
}
/* Whether template t renders these tools: SRT_ERR_UNSUPPORTED, SRT_ERR_INVALID_ARG or SRT_OK. harmony: with
   schemas also whether its namespace can be written (srt_chat_render finds out while it writes it). */
static srt_status srt__chat_tools_check(const srt_chat_template *t, const char *tools, int schemas, const char *who) {
    srt__out none = {NULL, 0, 0};
    const char *bad;
    if (!t->tool_use || (t->format != SRT_CHAT_CHATML && t->format != SRT_CHAT_LLAMA3 && t->format != SRT_CHAT_HARMONY && t->format != SRT_CHAT_SMOLLM3))
        return srt__fail(SRT_ERR_UNSUPPORTED, "%s: this %s template renders no tools", who, srt__chat_names[t->format]);
    if ((bad = srt__json_each(&none, tools, 0, "", "")) != NULL)
        return srt__fail(SRT_ERR_INVALID_ARG, "%s: the tools are not a JSON array of objects (at byte %llu)", who, (unsigned long long)(bad - tools));
    if (schemas && t->format == SRT_CHAT_HARMONY && (bad = srt__harmony_tools(&none, tools)) != NULL)
        return srt__fail(SRT_ERR_INVALID_ARG, "%s: harmony cannot write these tools: %s", who, bad);
    return SRT_OK;
}
SRT_API srt_status srt_chat_render(const srt_chat_template *t, const srt_chat_message *msgs, int n, int add_generation_prompt,
                                   char *buf, size_t cap, size_t *len) {
    srt__out o;
    int i, first = 0, last_query;
    const char *sys = NULL, *tools = t && t->tools && t->tools[0] ? t->tools : NULL, *last_call = NULL;
    size_t last_call_len = 0;
    char tmp[64];
    if (len) *len = 0;
    if (!t || (unsigned)t->format >= SRT_CHAT_FORMAT_COUNT || n < 0 || (n > 0 && !msgs) || (!buf && cap))
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: bad arguments");
    for (i = 0; i < n; i++) {
        const char *r = msgs[i].role;
        if (!r || !msgs[i].content) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: message %d has no role or content", i);
        if (t->format != SRT_CHAT_CHATML && t->format != SRT_CHAT_LLAMA3 && strcmp(r, "system") && strcmp(r, "user") && strcmp(r, "assistant") &&
            !(((t->format == SRT_CHAT_HARMONY && t->tool_use) || t->format == SRT_CHAT_SMOLLM3) && !strcmp(r, "tool")))
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: the %s format has no role '%s'", srt__chat_names[t->format], r);
    }
    o.buf = buf; o.cap = cap; o.n = 0;
    if (n > 0 && !strcmp(msgs[0].role, "system")) { sys = msgs[0].content; first = 1; }
    if (tools) {
        srt_status st = srt__chat_tools_check(t, tools, 0, "srt_chat_render");
        if (st != SRT_OK) return st;
        /* an empty list: none for Qwen's and gpt-oss's `if tools`; Llama 3.1's `tools is not none` writes its tool prompt without any */
        if (t->format != SRT_CHAT_LLAMA3 && *srt__json_ws(srt__json_ws(tools) + 1) == ']') tools = NULL;
    }
    if (tools) {
        if (t->format == SRT_CHAT_LLAMA3 && n <= first)
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: llama3 lists the tools in the first message after the system one: there is none");
    }
    switch (t->format) {
        case SRT_CHAT_CHATML:
            if (n > 0 && tools) {   /* Qwen's system block: the system message (or the default one), then the tools */
                const char *head = sys ? sys : t->default_system;
                srt__puts(&o, "<|im_start|>system\n");
                if (head[0]) { srt__puts(&o, head); srt__puts(&o, "\n\n"); }
                srt__puts(&o, "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                              "You are provided with function signatures within <tools></tools> XML tags:\n<tools>");
                srt__json_each(&o, tools, 0, "\n", "");
                srt__puts(&o, "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
                              "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
                              "<args-json-object>}\n</tool_call><|im_end|>\n");
            } else if (n > 0 && !sys && t->default_system[0]) {
                srt__puts(&o, "<|im_start|>system\n"); srt__puts(&o, t->default_system); srt__puts(&o, "<|im_end|>\n");
            }
            last_query = t->think ? srt__chat_last_query(msgs, n) : n;
            for (i = tools ? first : 0; i < n; i++) {
                if (t->tool_use && !strcmp(msgs[i].role, "tool")) {   /* consecutive results share one user turn */
                    if (i == 0 || strcmp(msgs[i - 1].role, "tool") != 0) srt__puts(&o, "<|im_start|>user");
                    srt__puts(&o, "\n<tool_response>\n"); srt__puts(&o, msgs[i].content); srt__puts(&o, "\n</tool_response>");
                    if (i == n - 1 || strcmp(msgs[i + 1].role, "tool") != 0) srt__puts(&o, "<|im_end|>\n");
                    continue;
                }
                srt__puts(&o, "<|im_start|>"); srt__puts(&o, msgs[i].role); srt__puts(&o, "\n");
                if (t->think && !strcmp(msgs[i].role, "assistant")) srt__chat_think_put(&o, msgs[i].content, i > last_query, i == n - 1);
                else srt__puts(&o, msgs[i].content);
                srt__puts(&o, "<|im_end|>\n");
            }
            if (add_generation_prompt) srt__puts(&o, t->think && t->no_think ? "<|im_start|>assistant\n<think>\n\n</think>\n\n" : "<|im_start|>assistant\n");
            break;
        case SRT_CHAT_LLAMA3:
            if (t->dated_system || tools) {
                srt__puts(&o, t->bos);
                srt__puts(&o, tools ? "<|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: December 2023\nToday Date: "
                                    : "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: ");
                srt__puts(&o, t->date[0] ? t->date : "26 Jul 2024");
                srt__puts(&o, "\n\n");
                if (sys) srt__put_trim(&o, sys);
                srt__puts(&o, "<|eot_id|>");
                if (tools) {   /* Llama 3.1's tools_in_user_message: the first message after the system one, as a user turn */
                    srt__puts(&o, "<|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON for a "
                                  "function call with its proper arguments that best answers the given prompt.\n\nRespond in the format "
                                  "{\"name\": function name, \"parameters\": dictionary of argument name and its value}.Do not use variables.\n\n");
                    srt__json_each(&o, tools, 4, "", "\n\n");
                    srt__put_trim(&o, msgs[first].content);
                    srt__puts(&o, "<|eot_id|>");
                    first++;
                }
            } else first = 0;
            for (i = first; i < n; i++) {
                if (i == 0 && !t->dated_system) srt__puts(&o, t->bos);
                if (t->tool_use && (!strcmp(msgs[i].role, "tool") || !strcmp(msgs[i].role, "ipython"))) {
                    srt__puts(&o, "<|start_header_id|>ipython<|end_header_id|>\n\n");
                    if (!srt__json_put_text(&o, msgs[i].content, strlen(msgs[i].content)))
                        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: message %d (a tool's result) is not valid UTF-8", i);
                    srt__puts(&o, "<|eot_id|>");
                    continue;
                }
                srt__puts(&o, "<|start_header_id|>"); srt__puts(&o, msgs[i].role); srt__puts(&o, "<|end_header_id|>\n\n");
                srt__put_trim(&o, msgs[i].content); srt__puts(&o, "<|eot_id|>");
            }
            if (add_generation_prompt) srt__puts(&o, "<|start_header_id|>assistant<|end_header_id|>\n\n");
            break;
        case SRT_CHAT_LLAMA2:
            for (i = first; i < n; i++) {
                int user = !strcmp(msgs[i].role, "user");
                if (!user && strcmp(msgs[i].role, "assistant") != 0) continue;   /* a later system message renders nothing */
                srt__puts(&o, user ? t->bos : " ");
                if (user) srt__puts(&o, "[INST] ");
                if (i == first && sys) {   /* content.strip() of '<<SYS>>\n' + sys + '\n<</SYS>>\n\n' + message */
                    size_t a = strlen(sys), b = strlen(msgs[i].content);
                    char *c = (char *)SRT_MALLOC(a + b + 24);
                    if (!c) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_render: out of memory");
                    memcpy(c, "<<SYS>>\n", 8);
                    memcpy(c + 8, sys, a);
                    memcpy(c + 8 + a, "\n<</SYS>>\n\n", 11);
                    memcpy(c + 19 + a, msgs[i].content, b + 1);
                    srt__put_trim(&o, c);
                    SRT_FREE(c);
                } else srt__put_trim(&o, msgs[i].content);
                if (user) srt__puts(&o, " [/INST]");
                else { srt__puts(&o, " "); srt__puts(&o, t->eos); }
            }
            break;
        case SRT_CHAT_MISTRAL:
        case SRT_CHAT_MISTRAL_V3: {
            int v3 = t->format == SRT_CHAT_MISTRAL_V3, j = 0;
            srt__puts(&o, t->bos);
            for (i = first; i < n; i++, j++) {
                if (!strcmp(msgs[i].role, "user")) {
                    srt__puts(&o, v3 ? "[INST] " : " [INST] ");
                    if (sys && (v3 ? i == n - 1 : j == 0)) { srt__puts(&o, sys); srt__puts(&o, "\n\n"); }
                    srt__puts(&o, msgs[i].content);
                    srt__puts(&o, v3 ? "[/INST]" : " [/INST]");
                } else if (!strcmp(msgs[i].role, "assistant")) {
                    srt__puts(&o, " ");
                    if (v3) srt__put_trim(&o, msgs[i].content); else srt__puts(&o, msgs[i].content);
                    srt__puts(&o, t->eos);
                }
            }
            break;
        }
        case SRT_CHAT_PHI3:
            for (i = 0; i < n; i++) {
                snprintf(tmp, sizeof tmp, "<|%s|>\n", msgs[i].role);
                srt__puts(&o, tmp); srt__puts(&o, msgs[i].content); srt__puts(&o, "<|end|>\n");
            }
            srt__puts(&o, add_generation_prompt ? "<|assistant|>\n" : t->eos);
            break;
        case SRT_CHAT_ZEPHYR:
            for (i = 0; i < n; i++) {
                snprintf(tmp, sizeof tmp, "<|%s|>\n", msgs[i].role);
                srt__puts(&o, tmp); srt__puts(&o, msgs[i].content); srt__puts(&o, t->eos); srt__puts(&o, "\n");
                if (i == n - 1 && add_generation_prompt) srt__puts(&o, "<|assistant|>\n");
            }
            break;
        case SRT_CHAT_GEMMA:
            srt__puts(&o, t->bos);
            for (i = first; i < n; i++) {
                srt__puts(&o, "<start_of_turn>");
                srt__puts(&o, !strcmp(msgs[i].role, "assistant") ? "model" : msgs[i].role);
                srt__puts(&o, "\n");
                if (i == first && sys) { srt__puts(&o, sys); srt__puts(&o, "\n\n"); }
                srt__put_trim(&o, msgs[i].content);
                srt__puts(&o, "<end_of_turn>\n");
            }
            if (add_generation_prompt) srt__puts(&o, "<start_of_turn>model\n");
            break;
        case SRT_CHAT_TULU:
            srt__puts(&o, t->bos);
            for (i = 0; i < n; i++) {   /* system and user turns end with a newline, replies with EOS (and a newline unless last) */
                snprintf(tmp, sizeof tmp, "<|%s|>\n", msgs[i].role);
                srt__puts(&o, tmp); srt__puts(&o, msgs[i].content);
                if (strcmp(msgs[i].role, "assistant") != 0) srt__puts(&o, "\n");
                else { srt__puts(&o, t->eos); if (i < n - 1) srt__puts(&o, "\n"); }
            }
            if (n > 0 && add_generation_prompt) srt__puts(&o, "<|assistant|>\n");
            break;
        case SRT_CHAT_GRANITE:   /* a system turn always, the conversation's or the template's default */
            srt__puts(&o, "<|start_of_role|>system<|end_of_role|>"); srt__puts(&o, sys ? sys : t->default_system); srt__puts(&o, "<|end_of_text|>\n");
            for (i = first; i < n; i++) {
                srt__puts(&o, "<|start_of_role|>"); srt__puts(&o, msgs[i].role); srt__puts(&o, "<|end_of_role|>");
                srt__puts(&o, msgs[i].content); srt__puts(&o, "<|end_of_text|>\n");
            }
            if (n > first && add_generation_prompt) srt__puts(&o, "<|start_of_role|>assistant<|end_of_role|>");
            break;
        case SRT_CHAT_EXAONE4:   /* a reply (when not empty) after an empty reasoning block, its own reasoning left out: the text
                                    after its last "</think>", stripped (the template's skip_think, on by default) */
            for (i = 0; i < n; i++) {
                snprintf(tmp, sizeof tmp, "[|%s|]\n", msgs[i].role);
                srt__puts(&o, tmp);
                if (!strcmp(msgs[i].role, "assistant") && msgs[i].content[0]) {
                    const char *end = srt__strrstr(msgs[i].content, "</think>");
                    srt__puts(&o, "<think>\n\n</think>\n\n");
                    if (end) srt__put_trim(&o, end + 8); else srt__puts(&o, msgs[i].content);
                } else if (strcmp(msgs[i].role, "assistant") != 0) srt__puts(&o, msgs[i].content);
                srt__puts(&o, "[|endofturn|]\n");
            }
            if (add_generation_prompt) srt__puts(&o, "[|assistant|]\n<think>\n\n</think>\n\n");
            break;
        case SRT_CHAT_OLMO3: {   /* the default system turn unless some message is a system one */
            int has_system = 0;
            for (i = 0; i < n; i++) has_system |= !strcmp(msgs[i].role, "system");
            if (!has_system && t->default_system[0]) {
                srt__puts(&o, "<|im_start|>system\n"); srt__puts(&o, t->default_system); srt__puts(&o, "<|im_end|>\n");
            }
            for (i = 0; i < n; i++) {
                const int sys_msg = !strcmp(msgs[i].role, "system"), last_reply = i == n - 1 && !strcmp(msgs[i].role, "assistant");
                srt__puts(&o, "<|im_start|>"); srt__puts(&o, msgs[i].role); srt__puts(&o, "\n"); srt__puts(&o, msgs[i].content);
                if (sys_msg) srt__puts(&o, " You do not currently have access to any functions. <functions></functions>");
                srt__puts(&o, last_reply ? t->eos : "<|im_end|>\n");
            }
            if (n > 0 && add_generation_prompt) srt__puts(&o, "<|im_start|>assistant\n<think>");
            break;
        }
        case SRT_CHAT_HARMONY:   /* the system message always; the conversation's system message as the developer's */
            srt__puts(&o, "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: ");
            srt__puts(&o, t->date);
            srt__puts(&o, "\n\nReasoning: ");
            srt__puts(&o, t->reasoning[0] ? t->reasoning : "medium");
            srt__puts(&o, "\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.");
            srt__puts(&o, tools ? "\nCalls to these tools must go to the commentary channel: 'functions'.<|end|>" : "<|end|>");
            if ((sys && sys[0]) || tools) {
                srt__puts(&o, "<|start|>developer<|message|>");
                if (sys && sys[0]) { srt__puts(&o, "# Instructions\n\n"); srt__puts(&o, sys); srt__puts(&o, "\n\n"); }
                const char *why;
                if (tools) {
                    srt__puts(&o, "# Tools\n\n");
                    if ((why = srt__harmony_tools(&o, tools)) != NULL) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: harmony cannot write these tools: %s", why);
                }
                srt__puts(&o, "<|end|>");
            }
            for (i = first; i < n; i++) {
                srt_chat_tool_call call;
                const char *why;
                if (!strcmp(msgs[i].role, "user")) { srt__puts(&o, "<|start|>user<|message|>"); srt__puts(&o, msgs[i].content); srt__puts(&o, "<|end|>"); }
                else if (!strcmp(msgs[i].role, "tool")) {   /* the result of the last call, its text as a JSON string */
                    if (!last_call) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: message %d is a tool's result, but no reply before it calls a tool", i);
                    srt__puts(&o, "<|start|>functions."); srt__put(&o, last_call, last_call_len);
                    srt__puts(&o, " to=assistant<|channel|>commentary<|message|>");
                    if (!srt__json_put_text(&o, msgs[i].content, strlen(msgs[i].content)))
                        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: message %d (a tool's result) is not valid UTF-8", i);
                    srt__puts(&o, "<|end|>");
                } else if (!strcmp(msgs[i].role, "assistant") && t->tool_use && srt__harmony_call(msgs[i].content, &call, &why) == 1) {
                    /* a call: its reasoning unless a later reply answers (the template's future_final_message), then the call as
                       the template writes it, the arguments through tojson */
                    srt_chat_reply_parts rp;
                    srt_chat_tool_call later;
                    int j, answered = 0;
                    for (j = i + 1; j < n && !answered; j++) answered = !strcmp(msgs[j].role, "assistant") && srt__harmony_call(msgs[j].content, &later, &why) != 1;
                    srt_chat_reply_split(t, msgs[i].content, &rp);
                    if (!answered && rp.reasoning_len) {
                        srt__puts(&o, "<|start|>assistant<|channel|>analysis<|message|>"); srt__put(&o, rp.reasoning, rp.reasoning_len); srt__puts(&o, "<|end|>");
                    }
                    srt__puts(&o, "<|start|>assistant to=functions."); srt__put(&o, call.name, call.name_len);
                    srt__puts(&o, "<|channel|>commentary json<|message|>");
                    srt__json_value(&o, call.arguments, 0, 0);
                    srt__puts(&o, "<|call|>");
                    last_call = call.name; last_call_len = call.name_len;
                } else if (!strcmp(msgs[i].role, "assistant")) {   /* the final channel's text; the whole content if it has no channels */
                    const char *a = msgs[i].content, *f = srt__strrstr(a, "<|channel|>final<|message|>"), *e;
                    last_call = NULL;
                    if (f) a = f + 27;
                    else if (strstr(a, "<|channel|>")) a = "";
                    e = strstr(a, "<|end|>");
                    srt__puts(&o, "<|start|>assistant<|channel|>final<|message|>");
                    srt__put(&o, a, e ? (size_t)(e - a) : strlen(a));
                    srt__puts(&o, i == n - 1 && !add_generation_prompt ? "<|return|>" : "<|end|>");
                }   /* (a later system message renders nothing) */
            }
            if (add_generation_prompt) srt__puts(&o, "<|start|>assistant");
            break;
        case SRT_CHAT_SMOLLM3: {   /* the system block always; /think unless no_think or the system message says /no_think */
            int think = !t->no_think;
            char *custom = NULL;
            if (sys) {   /* the custom instructions: the system message without its /no_think, then its /think, right-stripped */
                if (strstr(sys, "/no_think")) think = 0;
                else if (strstr(sys, "/think")) think = 1;
                if (!(custom = srt__chat_strdup(sys, strlen(sys)))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_render: out of memory");
                srt__remove_rstrip(custom, "/no_think");
                srt__remove_rstrip(custom, "/think");
            }
            srt__puts(&o, "<|im_start|>system\n");
            if (sys && strstr(sys, "/system_override")) {   /* the instructions alone */
                srt__remove_rstrip(custom, "/system_override");
                srt__puts(&o, custom);
                srt__puts(&o, "<|im_end|>\n");
            } else {   /* (no <|im_end|>: the template writes it only after its tools) */
                srt__puts(&o, "## Metadata\n\nKnowledge Cutoff Date: June 2025\nToday Date: ");
                srt__puts(&o, t->date);
                srt__puts(&o, think ? "\nReasoning Mode: /think\n\n## Custom Instructions\n\n" : "\nReasoning Mode: /no_think\n\n## Custom Instructions\n\n");
                if (custom && custom[0]) { srt__puts(&o, custom); srt__puts(&o, "\n\n"); }
                else srt__puts(&o, think ? SRT__SMOLLM3_THINK : "You are a helpful AI assistant named SmolLM, trained by Hugging Face.\n\n");
                if (tools) {   /* its xml_tools: each written by Python's str() */
                    const char *p = srt__json_ws(srt__json_ws(tools) + 1);
                    srt__puts(&o, "### Tools\n\nYou may call one or more functions to assist with the user query.\nYou are provided with function "
                                  "signatures within <tools></tools> XML tags:\n\n<tools>\n");
                    while (*p == '{') {
                        p = srt__json_ws(srt__py_repr(&o, p));
                        srt__puts(&o, "\n");
                        if (*p == ',') p = srt__json_ws(p + 1);
                    }
                    srt__puts(&o, "</tools>\n\nFor each function call, return a json object with function name and arguments within "
                                  "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
                                  "<args-json-object>}\n</tool_call>\n\n<|im_end|>\n");
                }
            }
            SRT_FREE(custom);
            for (i = 0; i < n; i++) {   /* (system messages render nothing here) */
                const char *c = msgs[i].content;
                if (!strcmp(msgs[i].role, "user") || !strcmp(msgs[i].role, "tool")) { srt__puts(&o, "<|im_start|>user\n"); srt__puts(&o, c); srt__puts(&o, "<|im_end|>\n"); }
                else if (!strcmp(msgs[i].role, "assistant")) {
                    while (*c == '\n') c++;
                    srt__puts(&o, think ? "<|im_start|>assistant\n" : "<|im_start|>assistant\n<think>\n\n</think>\n");
                    srt__puts(&o, c);
                    srt__puts(&o, "<|im_end|>\n");
                }
            }
            if (add_generation_prompt) srt__puts(&o, think ? "<|im_start|>assistant\n" : "<|im_start|>assistant\n<think>\n\n</think>\n");
            break;
        }
        case SRT_CHAT_EXAONE3:
            if (n > 0 && !sys) srt__puts(&o, "[|system|][|endofturn|]\n");
            for (i = 0; i < n; i++) {
                srt__puts(&o, "[|"); srt__puts(&o, msgs[i].role); srt__puts(&o, "|]"); srt__puts(&o, msgs[i].content);
                srt__puts(&o, strcmp(msgs[i].role, "user") ? "[|endofturn|]\n" : "\n");
            }
            if (add_generation_prompt) srt__puts(&o, "[|assistant|]");
            break;
        case SRT_CHAT_MINICPM:   /* the reply follows the user turn's <AI>: no generation prompt of its own */
            for (i = 0; i < n; i++) {
                const int user = !strcmp(msgs[i].role, "user");
                if (user) srt__puts(&o, SRT__MINICPM_USER);
                srt__put_trim(&o, msgs[i].content);
                if (user) srt__puts(&o, "<AI>");
            }
            break;
        default: break;
    }
    if (len) *len = o.n;
    if (cap) buf[o.n < cap ? o.n : cap - 1] = 0;
    if (o.n >= cap) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: %llu bytes do not fit in %llu", (unsigned long long)o.n + 1, (unsigned long long)cap);
    return SRT_OK;
}

/* The text from s up to the first of the ends (NULL-terminated list) or the end of s. */
static size_t srt__span_to(const char *s, const char *const *ends) {
    size_t n = strlen(s);
    int i;
    for (i = 0; ends[i]; i++) {
        const char *e = strstr(s, ends[i]);
        if (e && (size_t)(e - s) < n) n = (size_t)(e - s);
    }
    return n;
}
SRT_API void srt_chat_reply_split(const srt_chat_template *t, const char *reply, srt_chat_reply_parts *out) {
    static const char *const msg_end[] = {"<|end|>", "<|return|>", "<|call|>", NULL}, *const think_end[] = {"</think>", NULL};
    const char *r = reply ? reply : "", *a, *f;
    if (!out) return;
    out->reasoning = out->answer = r + strlen(r);
    out->reasoning_len = out->answer_len = 0;
    out->reasons = t && (t->format == SRT_CHAT_HARMONY || t->think || t->format == SRT_CHAT_EXAONE4 || t->format == SRT_CHAT_OLMO3 ||
                         t->format == SRT_CHAT_SMOLLM3);
    if (t && t->format == SRT_CHAT_HARMONY && strstr(r, "<|channel|>")) {
        if ((a = strstr(r, "<|channel|>analysis<|message|>")) != NULL) { out->reasoning = a + 30; out->reasoning_len = srt__span_to(a + 30, msg_end); }
        if ((f = srt__strrstr(r, "<|channel|>final<|message|>")) != NULL) { out->answer = f + 27; out->answer_len = srt__span_to(f + 27, msg_end); }
        return;
    }
    if (out->reasons && t->format != SRT_CHAT_HARMONY) {   /* the <think> block */
        const char *open = strstr(r, "<think>"), *close = strstr(r, "</think>");
        if (open || close || t->format == SRT_CHAT_OLMO3) {
            const char *r0 = open ? open + 7 : r;
            out->reasoning = r0;
            out->reasoning_len = srt__span_to(r0, think_end);
            if ((close = strstr(r0, "</think>")) != NULL) {
                for (a = close + 8; *a == '\n'; a++) {}
                out->answer = a;
                out->answer_len = strlen(a);
            }
            return;
        }
    }
    out->answer = r;
    out->answer_len = strlen(r);
}

/* The JSON object at p: where its "name" string and its "arguments" (or "parameters") object are. Returns
   its end, NULL if it is not a JSON object. */
static const char *srt__json_call(const char *p, srt_chat_tool_call *c) {
    srt__out none = {NULL, 0, 0};
    memset(c, 0, sizeof *c);
    if (*(p = srt__json_ws(p)) != '{') return NULL;
    if (*(p = srt__json_ws(p + 1)) == '}') return p + 1;
    for (;;) {
        const char *k = p, *ke, *v, *e;
        size_t kn;
        if (*p != '"' || !(ke = srt__json_string(&none, p, 0)) || *(p = srt__json_ws(ke)) != ':') return NULL;
        if (!(e = srt__json_value(&none, v = srt__json_ws(p + 1), 0, 1))) return NULL;
        kn = (size_t)(ke - k);
        if (kn == 6 && !memcmp(k, "\"name\"", 6) && *v == '"') { c->name = v + 1; c->name_len = (size_t)(e - v) - 2; }
        if (((kn == 11 && !memcmp(k, "\"arguments\"", 11)) || (kn == 12 && !memcmp(k, "\"parameters\"", 12))) && *v == '{') {
            c->arguments = v; c->arguments_len = (size_t)(e - v);
        }
        if (*(p = srt__json_ws(e)) == '}') return p + 1;
        if (*p != ',') return NULL;
        p = srt__json_ws(p + 1);
    }
}
SRT_API srt_status srt_chat_tool_calls(const srt_chat_template *t, const char *reply, srt_chat_tool_call *calls, int cap, int *n) {
    const char *r = reply ? reply : "", *p, *e;
    srt_chat_tool_call c;
    int k = 0;
    if (n) *n = 0;
    if (!t || !n || cap < 0 || (cap > 0 && !calls)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_tool_calls: bad arguments");
    if (t->format == SRT_CHAT_CHATML || t->format == SRT_CHAT_SMOLLM3) {   /* <tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>, any number */
        for (p = r; (p = strstr(p, "<tool_call>")) != NULL; k++) {
            if (!strstr(p + 11, "</tool_call>")) return srt__fail(SRT_ERR_FORMAT, "tool call %d: <tool_call> without </tool_call>", k + 1);
            e = srt__json_call(p + 11, &c);
            if (!e || strncmp(e = srt__json_ws(e), "</tool_call>", 12) != 0)
                return srt__fail(SRT_ERR_FORMAT, "tool call %d: not one JSON object between <tool_call> and </tool_call>", k + 1);
            if (!c.name || !c.arguments) return srt__fail(SRT_ERR_FORMAT, "tool call %d: no \"name\" string or no \"arguments\" object", k + 1);
            if (memchr(c.name, '\\', c.name_len)) return srt__fail(SRT_ERR_FORMAT, "tool call %d: the name has escapes", k + 1);
            if (k < cap) calls[k] = c;
            p = e + 12;
        }
    } else if (t->format == SRT_CHAT_HARMONY) {   /* one call a reply: the last message's to=functions.NAME ... <|message|>{...} */
        const char *why = "";
        if ((k = srt__harmony_call(r, &c, &why)) < 0) return srt__fail(SRT_ERR_FORMAT, "tool call 1: %s", why);
        if (k && cap > 0) calls[0] = c;
    } else if (t->format == SRT_CHAT_LLAMA3) {   /* the whole reply one JSON object {"name": ..., "parameters": {...}} */
        p = srt__json_ws(r);
        if (!strncmp(p, "<|python_tag|>", 14)) p = srt__json_ws(p + 14);
        if (*p == '{' && (e = srt__json_call(p, &c)) != NULL && !*srt__json_ws(e) && c.name && c.arguments && !memchr(c.name, '\\', c.name_len)) {
            if (cap > 0) calls[0] = c;
            k = 1;
        }
    }
    *n = k;
    return SRT_OK;
}

/* ---- JSON Schema to grammar: what srt_grammar_from_json_schema and the chats' tool grammars
   write. A schema becomes rule sN; the schemas inside it get rules of their own, written after it
   (a queue, where a schema reached again through a $ref is the same rule, so recursive schemas
   are finite), and the JSON rules of SRT_GRAMMAR_JSON (value, object, string, ...) come last. */
#define SRT__SG_DEPTH 32               /* $ref hops in a row, allOf nesting */
#define SRT__SG_PARTS 64               /* allOf parts, all levels */
#define SRT__SG_MAX_COUNT 1000000L     /* lengths and item counts */
enum { SRT__SG_CHAR = 1, SRT__SG_FORMATS = 2 };   /* the rules beyond SRT_GRAMMAR_JSON's that were used */
typedef struct srt__sg {
    srt__out *o;
    const char **queue, **roots;      /* the schemas whose rules are still to write: queue[i] is rule s(i), roots[i] its document */
    int n, cap, done;
    const char *root;                 /* the document ("#" of a $ref) of the schema being written */
    int refs;                         /* a $ref was followed: the queue looks for schemas it has already */
    int uses;                         /* SRT__SG_* */
    char **owned;                     /* texts made here (merged allOf schemas), freed with the rest */
    const char **owned_src;           /* the schema each was merged from (merged again: the same text) */
    int n_owned;
    const char *err;                  /* the first problem, a static text */
    const char *err_at;
} srt__sg;
static void srt__sg_fail(srt__sg *g, const char *what, const char *at) { if (!g->err) { g->err = what; g->err_at = at; } }
static void srt__sg_free(srt__sg *g) {
    int i;
    for (i = 0; i < g->n_owned; i++) SRT_FREE(g->owned[i]);
    SRT_FREE((void *)g->owned); SRT_FREE((void *)g->owned_src); SRT_FREE((void *)g->queue); SRT_FREE((void *)g->roots);
}
/* A GBNF literal of the bytes s[0..n). */
static void srt__sg_lit(srt__out *o, const char *s, size_t n) {
    size_t i;
    srt__put(o, "\"", 1);
    for (i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        char b[8];
        if (c == '"' || c == '\\') { b[0] = '\\'; b[1] = (char)c; srt__put(o, b, 2); }
        else if (c < 0x20 || c == 0x7f) { snprintf(b, sizeof b, "\\x%02x", c); srt__puts(o, b); }
        else srt__put(o, s + i, 1);
    }
    srt__put(o, "\"", 1);
}
/* The JSON value at v as tojson writes it (", " and ": "), SRT_MALLOC'd (NULL when out of memory). */
static char *srt__sg_json_text(const char *v, size_t *n) {
    srt__out t = {NULL, 0, 0};
    srt__json_value(&t, v, 0, 0);
    if (!(t.buf = (char *)SRT_MALLOC(t.n + 1))) return NULL;
    t.cap = t.n + 1; t.n = 0;
    srt__json_value(&t, v, 0, 0);
    t.buf[t.n] = 0;
    *n = t.n;
    return t.buf;
}
/* The literal of the JSON value at v as tojson writes it. */
static void srt__sg_json_lit(srt__sg *g, const char *v) {
    size_t n;
    char *b = srt__sg_json_text(v, &n);
    if (!b) { srt__sg_fail(g, "out of memory", NULL); return; }
    srt__put(g->o, " ", 1);
    srt__sg_lit(g->o, b, n);
    SRT_FREE(b);
}
/* The rule of schema v in g->root, queued: its number (-1 when out of memory). */
static int srt__sg_queue(srt__sg *g, const char *v) {
    int i;
    if (g->refs) for (i = 0; i < g->n; i++) if (g->queue[i] == v && g->roots[i] == g->root) return i;
    if (g->n == g->cap) {
        const int cap = g->cap ? 2 * g->cap : 32;
        const char **nq = (const char **)SRT_REALLOC((void *)g->queue, (size_t)cap * sizeof *nq), **nr = NULL;
        if (nq) { g->queue = nq; nr = (const char **)SRT_REALLOC((void *)g->roots, (size_t)cap * sizeof *nr); }
        if (!nr) { srt__sg_fail(g, "out of memory", NULL); return -1; }
        g->roots = nr; g->cap = cap;
    }
    g->queue[g->n] = v; g->roots[g->n] = g->root;
    return g->n++;
}
/* " sN" for schema v (queued). */
static void srt__sg_ref(srt__sg *g, const char *v) {
    char b[24];
    snprintf(b, sizeof b, " s%d", srt__sg_queue(g, v));
    srt__puts(g->o, b);
}
/* What "$ref" r (a JSON string) points to in g->root: "#" is the root, "#/a/b/0" a JSON pointer
   in it (~0, ~1 and %XX decoded). NULL and g->err when it points nowhere this can follow. */
static const char *srt__sg_deref(srt__sg *g, const char *r) {
    size_t n = 0, k;
    char *t, *seg;
    const char *cur = g->root, *p, *it, *e;
    if (*r != '"') { srt__sg_fail(g, "a $ref that is not a string", r); return NULL; }
    if (!(t = srt__json_text(r, &n))) { srt__sg_fail(g, "out of memory", NULL); return NULL; }
    if (t[0] != '#' || (t[1] && t[1] != '/')) { SRT_FREE(t); srt__sg_fail(g, "a $ref outside this schema (\"#\" and \"#/...\" are followed)", r); return NULL; }
    if (!(seg = (char *)SRT_MALLOC(n + 1))) { SRT_FREE(t); srt__sg_fail(g, "out of memory", NULL); return NULL; }
    for (p = t + 1; cur && *p == '/'; ) {
        uint32_t x;
        for (p++, k = 0; *p && *p != '/'; p++) {
            if (*p == '~' && (p[1] == '0' || p[1] == '1')) { seg[k++] = p[1] == '0' ? '~' : '/'; p++; }
            else if (*p == '%' && srt__hex_digits(p + 1, 2, &x) && x) { seg[k++] = (char)x; p += 2; }
            else seg[k++] = *p;
        }
        seg[k] = 0;
        if (*cur == '{') cur = srt__json_get(cur, seg);
        else if (*cur == '[' && k && strspn(seg, "0123456789") == k && (k == 1 || seg[0] != '0') && k < 10) {
            long i = atol(seg);
            for (it = cur, cur = NULL; srt__json_item(&it, &e) && !cur; i--) if (!i) cur = e;
        } else cur = NULL;
    }
    SRT_FREE(seg); SRT_FREE(t);
    if (!cur) srt__sg_fail(g, "a $ref that points nowhere in the schema", r);
    return cur;
}
/* Schema v with its $refs followed (their sibling keywords are not read). NULL and g->err on a
   problem. */
static const char *srt__sg_resolve(srt__sg *g, const char *v) {
    const char *x;
    int hops;
    for (hops = 0; v && *(v = srt__json_ws(v)) == '{' && (x = srt__json_get(v, "$ref")) != NULL; hops++) {
        if (hops == SRT__SG_DEPTH) { srt__sg_fail(g, "a $ref that leads to itself", x); return NULL; }
        g->refs = 1;
        v = srt__sg_deref(g, x);
    }
    return v;
}
/* The parts of schema v's allOf, and v itself (first), nested ones flattened and $refs followed. */
static int srt__sg_parts(srt__sg *g, const char *v, const char **parts, int *n, int depth) {
    const char *x, *it, *e;
    if (!(v = srt__sg_resolve(g, v))) return 0;
    if (*v == 't') return 1;   /* true: nothing */
    if (*v != '{') { srt__sg_fail(g, "a schema that is not an object or true", v); return 0; }
    if (*n == SRT__SG_PARTS || depth > SRT__SG_DEPTH) { srt__sg_fail(g, "an allOf of more than 64 parts, or 32 levels", v); return 0; }
    parts[(*n)++] = v;
    if (!(x = srt__json_get(v, "allOf"))) return 1;
    if (*x != '[') { srt__sg_fail(g, "an allOf that is not an array of schemas", x); return 0; }
    for (it = x; srt__json_item(&it, &e); ) if (!srt__sg_parts(g, e, parts, n, depth + 1)) return 0;
    return 1;
}
/* Whether the two JSON values are the same as tojson writes them; out of memory fails g (and says
   they are). */
static int srt__sg_same(srt__sg *g, const char *a, const char *b) {
    size_t na, nb;
    char *ta = srt__sg_json_text(a, &na), *tb = srt__sg_json_text(b, &nb);
    const int same = !ta || !tb || (na == nb && !memcmp(ta, tb, na));
    if (!ta || !tb) srt__sg_fail(g, "out of memory", NULL);
    SRT_FREE(ta); SRT_FREE(tb);
    return same;
}
/* Whether key k (quoted) is one of names (NULL-ended). */
static int srt__sg_key_in(const char *k, const char *const *names) {
    for (; *names; names++) if (srt__json_is(k, *names)) return 1;
    return 0;
}
/* Writes the member k: v (their JSON texts as they are), after ", " unless *first. */
static void srt__sg_member(srt__out *o, int *first, const char *k, const char *v) {
    if (!*first) srt__puts(o, ", ");
    *first = 0;
    srt__put(o, k, (size_t)(srt__json_skip(k) - k));
    srt__puts(o, ": ");
    srt__put(o, v, (size_t)(srt__json_skip(v) - v));
}
/* The value of key in schema v when it is an object ('{') or array ('['), else NULL. */
static const char *srt__sg_kind(const char *v, const char *key, char kind) {
    const char *x = srt__json_get(v, key);
    return x && *x == kind ? x : NULL;
}
/* The schema of v's allOf (v with the keywords of its parts): "properties" the union (a name's
   first schema kept), "required" the union, every other keyword once (the parts that have it must
   agree; annotations are dropped). A text that g owns; NULL and g->err on a problem. */
static const char *srt__sg_all_of(srt__sg *g, const char *v) {
    static const char *const skip[] = {"allOf", "properties", "required", "title", "description", "$comment", "examples", "default",
                                       "$schema", "$id", "$defs", "definitions", "deprecated", "readOnly", "writeOnly", NULL};
    const char *parts[SRT__SG_PARTS], *it, *k, *x, *pv, **src;
    srt__out o = {NULL, 0, 0};
    char **owned, *key;
    int n = 0, i, j, pass, any_props = 0, any_req = 0;
    size_t kn;
    for (i = 0; i < g->n_owned; i++) if (g->owned_src[i] == v) return g->owned[i];   /* (a recursive schema comes back to it) */
    if (!srt__sg_parts(g, v, parts, &n, 0)) return NULL;
    for (i = 0; i < n; i++) { any_props |= srt__json_get(parts[i], "properties") != NULL; any_req |= srt__json_get(parts[i], "required") != NULL; }
    for (pass = 0; pass < 2; pass++) {
        int first = 1;
        o.n = 0;
        srt__puts(&o, "{");
        if (any_props) {
            srt__puts(&o, "\"properties\": {");
            for (i = 0; i < n; i++) for (it = srt__sg_kind(parts[i], "properties", '{'); it && srt__json_member(&it, &k, &pv); ) {
                int seen = 0;
                if (!(key = srt__json_text(k, &kn))) { srt__sg_fail(g, "out of memory", NULL); break; }
                for (j = 0; j < i && !seen; j++) seen = srt__json_get(srt__sg_kind(parts[j], "properties", '{'), key) != NULL;
                SRT_FREE(key);
                if (!seen) srt__sg_member(&o, &first, k, pv);
            }
            srt__puts(&o, "}");
        }
        if (any_req) {
            srt__puts(&o, any_props ? ", \"required\": [" : "\"required\": [");
            for (i = 0, first = 1; i < n; i++) for (it = srt__sg_kind(parts[i], "required", '['); it && srt__json_item(&it, &x); ) {
                int seen = *x != '"';
                for (j = 0; j < i && !seen; j++) seen = srt__json_has_string(srt__json_get(parts[j], "required"), x);
                if (seen) continue;
                if (!first) srt__puts(&o, ", ");
                first = 0;
                srt__put(&o, x, (size_t)(srt__json_skip(x) - x));
            }
            srt__puts(&o, "]");
        }
        first = !any_props && !any_req;
        for (i = 0; i < n; i++) for (it = parts[i]; srt__json_member(&it, &k, &pv); ) {
            int seen = 0;
            if (srt__sg_key_in(k, skip)) continue;
            if (!(key = srt__json_text(k, &kn))) { srt__sg_fail(g, "out of memory", NULL); break; }
            for (j = 0; j < i && !seen; j++) if ((x = srt__json_get(parts[j], key)) != NULL) {
                seen = 1;
                if (!srt__sg_same(g, x, pv)) srt__sg_fail(g, "an allOf whose parts disagree on a keyword (only properties and required are merged)", k);
            }
            SRT_FREE(key);
            if (!seen) srt__sg_member(&o, &first, k, pv);
        }
        srt__puts(&o, "}");
        if (g->err) { if (pass) SRT_FREE(o.buf); return NULL; }
        if (pass == 0) {
            owned = (char **)SRT_REALLOC((void *)g->owned, (size_t)(g->n_owned + 1) * sizeof *owned);
            if (owned) g->owned = owned;
            src = owned ? (const char **)SRT_REALLOC((void *)g->owned_src, (size_t)(g->n_owned + 1) * sizeof *src) : NULL;
            if (src) g->owned_src = src;
            if (!src || !(o.buf = (char *)SRT_MALLOC(o.n + 1))) { srt__sg_fail(g, "out of memory", NULL); return NULL; }
            o.cap = o.n + 1;
        }
    }
    o.buf[o.n] = 0;
    g->owned_src[g->n_owned] = v;
    g->owned[g->n_owned++] = o.buf;
    return o.buf;
}
/* The whole number keyword key of v (dflt when absent; over SRT__SG_MAX_COUNT: no limit, -1, for a
   maximum). g->err when it is not a whole number >= 0. */
static long srt__sg_count(srt__sg *g, const char *v, const char *key, long dflt) {
    const char *x = srt__json_get(v, key), *p;
    long n = 0;
    if (!x) return dflt;
    for (p = x; *p >= '0' && *p <= '9'; p++) if (n <= SRT__SG_MAX_COUNT) n = n * 10 + (*p - '0');
    if (*p == '.') for (p++; *p == '0'; p++) {}
    if (p == x || (*p >= '1' && *p <= '9') || *p == 'e' || *p == 'E') { srt__sg_fail(g, "a length or count that is not a whole number >= 0", x); return dflt; }
    if (n > SRT__SG_MAX_COUNT) {
        if (dflt < 0) return -1;
        srt__sg_fail(g, "a minimum length or count over 1000000", x);
    }
    return n;
}
/* item (a GBNF element) lo .. hi times (hi < 0: no limit), in blocks of 1000 past the grammar's
   limit of 1000 repetitions. */
static void srt__sg_repeat(srt__out *o, const char *item, long lo, long hi) {
    char b[48];
    const long k = hi < 0 ? -1 : hi - lo;
    if (lo >= 1000) { srt__puts(o, " ("); srt__puts(o, item); snprintf(b, sizeof b, "{1000}){%ld}", lo / 1000); srt__puts(o, b); }
    if (lo % 1000) { srt__put(o, " ", 1); srt__puts(o, item); snprintf(b, sizeof b, "{%ld}", lo % 1000); srt__puts(o, b); }
    if (k < 0) { srt__put(o, " ", 1); srt__puts(o, item); srt__puts(o, "*"); }
    else if (k > 0 && k <= 1000) { srt__put(o, " ", 1); srt__puts(o, item); snprintf(b, sizeof b, "{0,%ld}", k); srt__puts(o, b); }
    else if (k > 1000) {   /* c < 1000 a in whole blocks and a rest, or a blocks and at most k % 1000 */
        srt__puts(o, " (");
        if (k >= 2000) { srt__puts(o, " ("); srt__puts(o, item); snprintf(b, sizeof b, "{1000}){0,%ld}", k / 1000 - 1); srt__puts(o, b); }
        srt__put(o, " ", 1); srt__puts(o, item); srt__puts(o, "{0,999} | ("); srt__puts(o, item); snprintf(b, sizeof b, "{1000}){%ld}", k / 1000); srt__puts(o, b);
        if (k % 1000) { srt__put(o, " ", 1); srt__puts(o, item); snprintf(b, sizeof b, "{0,%ld}", k % 1000); srt__puts(o, b); }
        srt__puts(o, " )");
    }
}
/* Integers from x to y (digit strings of the same length n, x <= y) as a sequence of elements:
   the digits they share, then by the first that differs: x's with the rest up to 9..9, the digits
   between with any rest, y's with the rest from 0..0 (a side whose rest is all 0 or 9 merged in). */
static void srt__sg_digit_span(srt__out *o, const char *x, const char *y, int n) {
    static const char nines[] = "9999999999999999", zeros[] = "0000000000000000";
    char b[48];
    int i = 0, lo, hi, rest, alts = 0;
    while (i < n && x[i] == y[i]) i++;
    if (i) { srt__put(o, " ", 1); srt__sg_lit(o, x, (size_t)i); }
    if (i == n) return;
    rest = n - i - 1;
    lo = x[i] - '0' + (strncmp(x + i + 1, zeros, (size_t)rest) != 0);
    hi = y[i] - '0' - (strncmp(y + i + 1, nines, (size_t)rest) != 0);
    srt__puts(o, " (");
    if (lo != x[i] - '0') { snprintf(b, sizeof b, " \"%c\"", x[i]); srt__puts(o, b); srt__sg_digit_span(o, x + i + 1, nines, rest); alts++; }
    if (lo <= hi) {
        snprintf(b, sizeof b, "%s [%d-%d]", alts++ ? " |" : "", lo, hi);
        srt__puts(o, b);
        if (rest) { snprintf(b, sizeof b, rest > 1 ? " [0-9]{%d}" : " [0-9]", rest); srt__puts(o, b); }
    }
    if (hi != y[i] - '0') { snprintf(b, sizeof b, "%s \"%c\"", alts++ ? " |" : "", y[i]); srt__puts(o, b); srt__sg_digit_span(o, zeros, y + i + 1, rest); }
    srt__puts(o, " )");
}
/* Alternatives for the whole numbers a .. b (0 <= a <= b <= 10^16 - 1), each length of digits
   apart (all the lengths from d on in one when b has no limit); sign: written before each; *first:
   no alternative written yet. */
static void srt__sg_digits(srt__out *o, long long a, long long b, const char *sign, int *first) {
    long long p = 1;
    int d;
    for (d = 1; d <= 16 && p <= b; d++, p *= 10) {
        const long long x = a > (d == 1 ? 0 : p) ? a : (d == 1 ? 0 : p), y = b < 10 * p - 1 ? b : 10 * p - 1;
        char xs[24], ys[24];
        if (x > y) continue;
        srt__puts(o, *first ? "" : " |");
        srt__puts(o, sign);
        *first = 0;
        if (d > 1 && x == p && b == 9999999999999999LL) {   /* every number of d to 16 digits */
            snprintf(xs, sizeof xs, " [1-9] [0-9]{%d,15}", d - 1);
            srt__puts(o, xs);
            return;
        }
        snprintf(xs, sizeof xs, "%lld", x); snprintf(ys, sizeof ys, "%lld", y);
        srt__sg_digit_span(o, xs, ys, d);
    }
}
/* A bound of a number as a decimal: sign, integer part, the fraction's digits without trailing
   zeros (no -0). */
typedef struct srt__dec { int neg; long long ip; char frac[44]; } srt__dec;
/* The JSON number at x as a decimal: 1, or 0 when its integer part has over 16 digits or its
   fraction over 40 (too large or too fine for these grammars). */
static int srt__dec_read(const char *x, srt__dec *d) {
    char m[96];
    int nm = 0, point = -1, e = 0, esign = 1, i, nf = 0;
    memset(d, 0, sizeof *d);
    if (*x == '-') { d->neg = 1; x++; }
    for (; (*x >= '0' && *x <= '9') || *x == '.'; x++) {
        if (*x == '.') point = nm;
        else if (nm < 95) m[nm++] = *x;
        else return 0;
    }
    if (point < 0) point = nm;
    if (*x == 'e' || *x == 'E') {
        x++;
        if (*x == '-' || *x == '+') esign = *x++ == '-' ? -1 : 1;
        for (; *x >= '0' && *x <= '9'; x++) if (e < 1000) e = e * 10 + (*x - '0');
    }
    point += esign * e;
    for (i = 0; i < point; i++) {
        d->ip = d->ip * 10 + (i < nm ? m[i] - '0' : 0);
        if (d->ip > 9999999999999999LL) return 0;
    }
    for (i = point; i < nm; i++) {
        if (nf == 40) return 0;
        d->frac[nf++] = i < 0 ? '0' : m[i];
    }
    while (nf && d->frac[nf - 1] == '0') nf--;
    d->frac[nf] = 0;
    if (!d->ip && !nf) d->neg = 0;
    return 1;
}
/* -1, 0, 1 as a < b, a = b, a > b. */
static int srt__dec_cmp(const srt__dec *a, const srt__dec *b) {
    int c;
    if (a->neg != b->neg) return a->neg ? -1 : 1;
    c = a->ip != b->ip ? (a->ip < b->ip ? -1 : 1) : strcmp(a->frac, b->frac);
    c = c < 0 ? -1 : c > 0;
    return a->neg ? -c : c;
}
/* Fraction digits D (the digits after the point) with .D >= .a (> when strict); nonempty: D has a
   digit. */
static void srt__nf_ge(srt__out *o, const char *a, int strict, int nonempty) {
    char b[40];   /* (D cannot end before a's last digit, which is not 0) */
    if (!*a) { srt__puts(o, strict ? " \"0\"* [1-9] [0-9]*" : nonempty ? " [0-9]+" : " [0-9]*"); return; }
    srt__puts(o, " (");
    if (*a < '9') { snprintf(b, sizeof b, " [%c-9] [0-9]* |", *a + 1); srt__puts(o, b); }
    snprintf(b, sizeof b, " \"%c\"", *a);
    srt__puts(o, b);
    srt__nf_ge(o, a + 1, strict, 0);
    srt__puts(o, " )");
}
/* Fraction digits D with .D <= .b (< when strict; b "" and strict: no D, not to be asked). */
static void srt__nf_le(srt__out *o, const char *b, int strict, int nonempty) {
    char t[40];
    int alts = 0;
    if (!*b) { srt__puts(o, nonempty ? " \"0\"+" : " \"0\"*"); return; }
    srt__puts(o, " (");
    if (*b > '0') { snprintf(t, sizeof t, " [0-%c] [0-9]*", *b - 1); srt__puts(o, t); alts++; }
    if (b[1] || !strict) {
        snprintf(t, sizeof t, "%s \"%c\"", alts ? " |" : "", *b);
        srt__puts(o, t);
        srt__nf_le(o, b + 1, strict, 0);
    }
    srt__puts(o, nonempty ? " )" : " )?");   /* (D ended early: less, b's digits go on to a non-zero one) */
}
/* Fraction digits D with .a <= .D <= .b (sa, sb: strict), .a < .b. */
static void srt__nf_between(srt__out *o, const char *a, const char *b, int sa, int sb, int nonempty) {
    char t[40];
    const char da = *a ? *a : '0', db = *b ? *b : '0';
    if (!*a && !sa) { srt__nf_le(o, b, sb, nonempty); return; }
    if (da == db) {   /* (D cannot end: below a) */
        snprintf(t, sizeof t, " \"%c\"", da);
        srt__puts(o, t);
        srt__nf_between(o, *a ? a + 1 : a, b + 1, sa, sb, 0);
        return;
    }
    snprintf(t, sizeof t, " ( \"%c\"", da);
    srt__puts(o, t);
    srt__nf_ge(o, *a ? a + 1 : a, sa, 0);
    if (da + 1 <= db - 1) { snprintf(t, sizeof t, " | [%c-%c] [0-9]*", da + 1, db - 1); srt__puts(o, t); }
    if (b[1] || !sb) { snprintf(t, sizeof t, " | \"%c\"", db); srt__puts(o, t); srt__nf_le(o, b + 1, sb, 0); }
    srt__puts(o, " )");
}
/* Alternatives for the magnitudes from lo to hi (0 <= lo <= hi; no hi: no limit; sl, sh: strict),
   written without an exponent, each after sign. */
static void srt__sg_magnitudes(srt__out *o, const srt__dec *lo, int sl, const srt__dec *hi, int sh, int has_hi, const char *sign, int *first) {
    const long long lim = 9999999999999999LL;
    char b[40];
    int inner = 1;
    if (has_hi && lo->ip == hi->ip) {   /* one integer part, the fraction between */
        srt__puts(o, *first ? "" : " |"); srt__puts(o, sign); *first = 0;
        snprintf(b, sizeof b, " \"%lld\"", lo->ip); srt__puts(o, b);
        if (!lo->frac[0] && !hi->frac[0]) { srt__puts(o, " ( \".\" \"0\"+ )?"); return; }   /* one number (not strict: checked) */
        srt__puts(o, !lo->frac[0] && !sl ? " ( \".\"" : " \".\"");
        srt__nf_between(o, lo->frac, hi->frac, sl, sh, 1);
        if (!lo->frac[0] && !sl) srt__puts(o, " )?");
        return;
    }
    srt__puts(o, *first ? "" : " |"); srt__puts(o, sign); *first = 0;   /* lo's integer part, a fraction from lo's */
    snprintf(b, sizeof b, " \"%lld\"", lo->ip); srt__puts(o, b);
    srt__puts(o, !lo->frac[0] && !sl ? " ( \".\"" : " \".\"");
    srt__nf_ge(o, lo->frac, sl, 1);
    if (!lo->frac[0] && !sl) srt__puts(o, " )?");
    if (lo->ip + 1 <= (has_hi ? hi->ip - 1 : lim)) {   /* the integer parts between, any fraction */
        srt__puts(o, " |"); srt__puts(o, sign); srt__puts(o, " (");
        srt__sg_digits(o, lo->ip + 1, has_hi ? hi->ip - 1 : lim, "", &inner);
        srt__puts(o, " ) ( \".\" [0-9]{1,16} )?");
    }
    if (has_hi && (hi->frac[0] || !sh)) {   /* hi's integer part, a fraction up to hi's */
        srt__puts(o, " |"); srt__puts(o, sign);
        snprintf(b, sizeof b, " \"%lld\" ( \".\"", hi->ip); srt__puts(o, b);
        srt__nf_le(o, hi->frac, sh, 1);
        srt__puts(o, " )?");
    }
}
/* A number's bound (upper: the maximum): its value and strictness; 0 when none (or none that a
   number of up to 16 integer digits can meet), and g->err for one too large the other way. */
static int srt__sg_num_bound(srt__sg *g, const char *v, int upper, srt__dec *d, int *strict) {
    const char *x = srt__json_get(v, upper ? "maximum" : "minimum"), *ex = srt__json_get(v, upper ? "exclusiveMaximum" : "exclusiveMinimum");
    srt__dec e;
    int have = 0, i;
    for (i = 0; i < 2; i++) {
        const char *q = i ? ex : x;
        if (!q || *q == 't' || *q == 'f') continue;
        if (*q != '-' && !(*q >= '0' && *q <= '9')) { srt__sg_fail(g, "a minimum or maximum that is not a number", q); return 0; }
        if (!srt__dec_read(q, &e)) {
            if ((*q == '-') == !upper) continue;   /* -1e300 as a minimum, 1e300 as a maximum: no limit */
            srt__sg_fail(g, "a number's minimum or maximum beyond 16 digits, or with over 40 after the point", q);
            return 0;
        }
        if (!have || (upper ? srt__dec_cmp(&e, d) < 0 : srt__dec_cmp(&e, d) > 0) || (srt__dec_cmp(&e, d) == 0 && i)) {
            *d = e;
            *strict = i || (ex && *ex == 't');   /* draft 4: "exclusiveMinimum": true */
        }
        have = 1;
    }
    return have;
}
/* The rule body of a number: with minimum / maximum (or their exclusive forms), the numbers in the
   range written without an exponent (up to 16 digits before the point). */
static void srt__sg_number(srt__sg *g, const char *v) {
    srt__out *o = g->o;
    srt__dec lo, hi, nlo, nhi, zero;
    int sl = 0, sh = 0, first = 1, c;
    const int has_lo = srt__sg_num_bound(g, v, 0, &lo, &sl), has_hi = srt__sg_num_bound(g, v, 1, &hi, &sh);
    if (g->err) return;
    if (!has_lo && !has_hi) { srt__puts(o, " number"); return; }
    if (has_lo && has_hi && ((c = srt__dec_cmp(&lo, &hi)) > 0 || (c == 0 && (sl || sh)))) { srt__sg_fail(g, "a minimum above the maximum (no number between)", v); return; }
    memset(&zero, 0, sizeof zero);
    nlo = lo; nlo.neg = 0; nhi = hi; nhi.neg = 0;   /* magnitudes */
    srt__puts(o, " (");
    if (has_lo && !lo.neg) srt__sg_magnitudes(o, &lo, sl, &hi, sh, has_hi, "", &first);
    else if (has_hi && (hi.neg || (!hi.ip && !hi.frac[0]))) srt__sg_magnitudes(o, &nhi, sh, &nlo, sl, has_lo, " \"-\"", &first);
    else {   /* below 0 and above: each side from 0 */
        srt__sg_magnitudes(o, &zero, 0, &nlo, sl, has_lo, " \"-\"", &first);
        srt__sg_magnitudes(o, &zero, 0, &hi, sh, has_hi, "", &first);
    }
    srt__puts(o, " )");
}
/* The rule body of an integer: with minimum / maximum (or their exclusive forms), the digits of
   the numbers in the range (up to 16 digits, as the integer rule). */
static void srt__sg_integer(srt__sg *g, const char *v) {
    const long long lim = 9999999999999999LL;
    long long lo = -lim, hi = lim;
    srt__dec dl, dh;
    int first = 1, sl = 0, sh = 0;
    const int has_lo = srt__sg_num_bound(g, v, 0, &dl, &sl), has_hi = srt__sg_num_bound(g, v, 1, &dh, &sh);
    if (g->err) return;
    if (!has_lo && !has_hi) { srt__puts(g->o, " integer"); return; }
    if (has_lo) {   /* the least integer above (or at) the bound */
        const int up = dl.frac[0] || sl;
        lo = dl.neg ? -dl.ip + (!dl.frac[0] && sl) : dl.ip + up;
    }
    if (has_hi) {   /* the greatest integer below (or at) it */
        const int down = !dh.frac[0] && sh;
        hi = dh.neg ? -dh.ip - (dh.frac[0] ? 1 : 0) - down : dh.ip - down;
    }
    if (lo > hi) { srt__sg_fail(g, "a minimum above the maximum (no integer between)", v); return; }
    srt__puts(g->o, " (");
    if (lo < 0) srt__sg_digits(g->o, hi < 0 ? -hi : 1, -lo, " \"-\"", &first);
    if (hi >= 0) srt__sg_digits(g->o, lo > 0 ? lo : 0, hi, "", &first);
    srt__puts(g->o, " )");
}
/* A string's "pattern" (an ECMAScript regular expression, a search unless anchored with ^ and $)
   as GBNF over the JSON string's text: each character the way tojson writes it (", \ and control
   characters escaped), so that every text the grammar takes decodes to a string the pattern
   matches. Followed: literals, escapes (\d \w \s and their negations, \t \n \r \f \v \0 \xHH
   \uHHHH, escaped syntax characters), ., classes with ranges and negation, groups ((?:) and
   named ones too), |, * + ? {m} {m,} {m,n} (lazy or not), ^ and $ at the ends of the pattern's
   alternatives. Refused: back-references, lookarounds, word boundaries, anchors inside. */
#define SRT__RX_RANGES 256
typedef struct srt__rxset { uint32_t r[2 * SRT__RX_RANGES]; int n; } srt__rxset;
typedef struct srt__rx {
    srt__sg *g;
    const char *p;
    int depth;
} srt__rx;
static void srt__rx_fail(srt__rx *x, const char *why) { srt__sg_fail(x->g, why, NULL); }
static void srt__rx_add(srt__rx *x, srt__rxset *s, uint32_t lo, uint32_t hi) {
    if (s->n == SRT__RX_RANGES) { srt__rx_fail(x, "a pattern whose classes have over 256 ranges"); return; }
    s->r[2 * s->n] = lo; s->r[2 * s->n + 1] = hi; s->n++;
}
static void srt__rx_norm(srt__rxset *s) { s->n = srt__ranges_merge(s->r, s->n); }
/* s = the code points not in s. */
static void srt__rx_invert(srt__rx *x, srt__rxset *s) {
    srt__rxset t;
    uint32_t next = 0;
    int i;
    srt__rx_norm(s);
    t.n = 0;
    for (i = 0; i < s->n; i++) { if (s->r[2 * i] > next) srt__rx_add(x, &t, next, s->r[2 * i] - 1); next = s->r[2 * i + 1] + 1; }
    if (next <= 0x10FFFF) srt__rx_add(x, &t, next, 0x10FFFF);
    *s = t;
}
/* Adds the class escape c (d D w W s S) to s; 0 if c is not one. */
static int srt__rx_class_escape(srt__rx *x, char c, srt__rxset *s) {
    srt__rxset t;
    int i;
    t.n = 0;
    switch (c | 0x20) {
    case 'd': srt__rx_add(x, &t, '0', '9'); break;
    case 'w': srt__rx_add(x, &t, '0', '9'); srt__rx_add(x, &t, 'A', 'Z'); srt__rx_add(x, &t, '_', '_'); srt__rx_add(x, &t, 'a', 'z'); break;
    case 's': srt__rx_add(x, &t, 9, 13); srt__rx_add(x, &t, ' ', ' '); srt__rx_add(x, &t, 0xa0, 0xa0); srt__rx_add(x, &t, 0x2028, 0x2029); srt__rx_add(x, &t, 0xfeff, 0xfeff); break;
    default: return 0;
    }
    if (c >= 'A' && c <= 'Z') srt__rx_invert(x, &t);
    for (i = 0; i < t.n; i++) srt__rx_add(x, s, t.r[2 * i], t.r[2 * i + 1]);
    return 1;
}
/* The character of escape \c at x->p (after the backslash; moves past it); 0 and a failure if it is
   not one. */
static int srt__rx_escape_char(srt__rx *x, uint32_t *cp) {
    const char c = *x->p;
    int nx = c == 'x' ? 2 : c == 'u' ? 4 : 0;
    if (nx) {
        if (!srt__hex_digits(x->p + 1, nx, cp)) { srt__rx_fail(x, "a pattern with a bad \\x or \\u escape"); return 0; }
        x->p += 1 + nx;
        return 1;
    }
    switch (c) {
    case 't': *cp = '\t'; break;
    case 'n': *cp = '\n'; break;
    case 'r': *cp = '\r'; break;
    case 'f': *cp = '\f'; break;
    case 'v': *cp = '\v'; break;
    case '0': *cp = 0; if (x->p[1] >= '0' && x->p[1] <= '9') { srt__rx_fail(x, "a pattern with a back-reference or octal escape"); return 0; } break;
    default:
        if ((c >= '1' && c <= '9') || c == 'b' || c == 'B' || c == 'k') { srt__rx_fail(x, "a pattern with a back-reference or word boundary, which a grammar cannot check"); return 0; }
        if (!c || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) { srt__rx_fail(x, "a pattern with an unknown escape"); return 0; }
        if ((unsigned char)c >= 0x80) { srt__rx_fail(x, "a pattern with an escaped non-ASCII character"); return 0; }
        *cp = (unsigned char)c;   /* \. \* \/ \- ...: the character */
    }
    x->p++;
    return 1;
}
/* The next character of the pattern's text (UTF-8, checked when it was read). */
static uint32_t srt__rx_next(srt__rx *x) {
    uint32_t cp = 0;
    int l = srt__utf8_strict((const unsigned char *)x->p, &cp);
    x->p += l > 0 ? l : 1;
    return cp;
}
/* A code point in a GBNF class: itself if a letter or digit, else an escape. */
static void srt__rx_class_cp(srt__out *o, uint32_t c) {
    char b[16];
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) { b[0] = (char)c; b[1] = 0; }
    else snprintf(b, sizeof b, c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x", (unsigned)c);
    srt__puts(o, b);
}
/* Writes code point set s: the characters that JSON strings hold as they are in one class (or a
   literal, for one character), the others (", \, control characters) as the escapes tojson
   writes, as alternatives. */
static void srt__rx_emit_set(srt__rx *x, srt__rxset *s) {
    static const char *const named[14] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "b", "t", "n", NULL, "f", "r"};
    srt__out *o = x->g->o, alt = {NULL, 0, 0}, cls = {NULL, 0, 0};
    char b[32];
    int i, part, n_alt = 0, n_cls = 0, single = 0;
    uint32_t c;
    srt__rx_norm(s);
    for (i = 0; i < s->n; i++) {   /* measure: how many alternatives, how many class ranges */
        const uint32_t lo = s->r[2 * i], hi = s->r[2 * i + 1];
        n_alt += (lo < 0x20 ? (int)((hi < 0x1f ? hi : 0x1f) - lo + 1) : 0) + (lo <= '"' && hi >= '"') + (lo <= '\\' && hi >= '\\');
        for (part = 0; part < 3; part++) {
            uint32_t a = part == 0 ? 0x20 : part == 1 ? '"' + 1 : '\\' + 1, z = part == 0 ? '"' - 1 : part == 1 ? '\\' - 1 : 0x10FFFF;
            if (a < lo) a = lo;
            if (z > hi) z = hi;
            if (a <= z) { n_cls++; single = a == z && n_cls == 1 ? (int)a : 0; }
        }
    }
    (void)alt; (void)cls;
    if (n_alt + (n_cls > 0) > 1) srt__puts(o, " (");
    n_alt = 0;
    for (i = 0; i < s->n; i++) {
        const uint32_t lo = s->r[2 * i], hi = s->r[2 * i + 1];
        if (lo == 0 && hi >= 0x1f) {   /* all of them, as tojson writes them */
            srt__puts(o, n_alt++ ? " | \"\\\\\" ( [bfnrt] | \"u00\" ( \"0\" [0-7bef] | \"1\" [0-9a-f] ) )" : " \"\\\\\" ( [bfnrt] | \"u00\" ( \"0\" [0-7bef] | \"1\" [0-9a-f] ) )");
        }
        for (c = lo == 0 && hi >= 0x1f ? 0x20 : lo; c <= hi && c < 0x20; c++) {   /* control characters: escapes */
            if (c < 14 && named[c]) snprintf(b, sizeof b, "%s \"\\\\%s\"", n_alt++ ? " |" : "", named[c]);
            else snprintf(b, sizeof b, "%s \"\\\\u%04x\"", n_alt++ ? " |" : "", (unsigned)c);
            srt__puts(o, b);
        }
        if (lo <= '"' && hi >= '"') srt__puts(o, n_alt++ ? " | \"\\\\\\\"\"" : " \"\\\\\\\"\"");
        if (lo <= '\\' && hi >= '\\') srt__puts(o, n_alt++ ? " | \"\\\\\\\\\"" : " \"\\\\\\\\\"");
    }
    if (n_cls == 1 && single) {   /* one character: a literal */
        char u[8];
        uint32_t q = (uint32_t)single;
        int l = q < 0x80 ? 1 : q < 0x800 ? 2 : q < 0x10000 ? 3 : 4;
        if (l == 1) u[0] = (char)q;
        else { int k; u[0] = (char)((0xF0 << (4 - l)) | (q >> (6 * (l - 1)))); for (k = 1; k < l; k++) u[k] = (char)(0x80 | ((q >> (6 * (l - 1 - k))) & 0x3f)); }
        srt__puts(o, n_alt ? " | " : " ");
        srt__sg_lit(o, u, (size_t)l);
    } else if (n_cls) {
        srt__puts(o, n_alt ? " | [" : " [");
        for (i = 0; i < s->n; i++)
            for (part = 0; part < 3; part++) {   /* the range less 0x00-0x1f, '"' and '\' */
                uint32_t a = part == 0 ? 0x20 : part == 1 ? '"' + 1 : '\\' + 1, z = part == 0 ? '"' - 1 : part == 1 ? '\\' - 1 : 0x10FFFF;
                if (a < s->r[2 * i]) a = s->r[2 * i];
                if (z > s->r[2 * i + 1]) z = s->r[2 * i + 1];
                if (a > z) continue;
                srt__rx_class_cp(o, a);
                if (a != z) { srt__put(o, "-", 1); srt__rx_class_cp(o, z); }
            }
        srt__puts(o, "]");
    } else if (!n_alt) srt__puts(o, " [^\\x00-\\U0010ffff]");   /* the empty set: nothing */
    if (n_alt + (n_cls > 0) > 1) srt__puts(o, " )");
}
static void srt__rx_alt(srt__rx *x, int top);
/* One atom and its quantifier. */
static void srt__rx_atom(srt__rx *x) {
    srt__out *o = x->g->o;
    srt__rxset s;
    uint32_t cp;
    const char c = *x->p;
    char b[48];
    s.n = 0;
    if (c == '(') {
        x->p++;
        if (x->p[0] == '?') {
            if (x->p[1] == ':') x->p += 2;
            else if (x->p[1] == '<' && x->p[2] != '=' && x->p[2] != '!') { const char *e = strchr(x->p, '>'); if (!e) { srt__rx_fail(x, "a pattern that is not a regular expression (a group name without >)"); return; } x->p = e + 1; }
            else { srt__rx_fail(x, "a pattern with a lookaround, which a grammar cannot check"); return; }
        }
        if (++x->depth > 64) { srt__rx_fail(x, "a pattern nested over 64 groups deep"); return; }
        srt__rx_alt(x, 0);
        x->depth--;
        if (*x->p != ')') { srt__rx_fail(x, "a pattern that is not a regular expression (a group without its ')')"); return; }
        x->p++;
    } else if (c == '[') {
        int neg = 0;
        x->p++;
        if (*x->p == '^') { neg = 1; x->p++; }
        while (*x->p && *x->p != ']') {   /* ([] is empty, [^] anything, as in ECMAScript) */
            uint32_t lo, hi;
            if (*x->p == '\\') {
                x->p++;
                if (srt__rx_class_escape(x, *x->p, &s)) { x->p++; continue; }
                if (*x->p == 'b') { lo = 8; x->p++; }
                else if (!srt__rx_escape_char(x, &lo)) return;
            } else lo = srt__rx_next(x);
            hi = lo;
            if (x->p[0] == '-' && x->p[1] && x->p[1] != ']') {
                x->p++;
                if (*x->p == '\\') { x->p++; if (*x->p == 'b') { hi = 8; x->p++; } else if (!srt__rx_escape_char(x, &hi)) return; }
                else hi = srt__rx_next(x);
                if (hi < lo) { srt__rx_fail(x, "a pattern with a class range out of order"); return; }
            }
            srt__rx_add(x, &s, lo, hi);
        }
        if (*x->p != ']') { srt__rx_fail(x, "a pattern that is not a regular expression (a class without its ']')"); return; }
        x->p++;
        if (neg) srt__rx_invert(x, &s);
        srt__rx_emit_set(x, &s);
    } else if (c == '.') {
        x->p++;
        srt__rx_add(x, &s, '\n', '\n'); srt__rx_add(x, &s, '\r', '\r'); srt__rx_add(x, &s, 0x2028, 0x2029);
        srt__rx_invert(x, &s);
        srt__rx_emit_set(x, &s);
    } else if (c == '\\') {
        x->p++;
        if (srt__rx_class_escape(x, *x->p, &s)) { x->p++; srt__rx_emit_set(x, &s); }
        else if (srt__rx_escape_char(x, &cp)) { srt__rx_add(x, &s, cp, cp); srt__rx_emit_set(x, &s); }
    } else if (c == '^' || c == '$') {
        srt__rx_fail(x, "a pattern with ^ or $ inside it (only at the ends of its alternatives)");
        return;
    } else if (c == '*' || c == '+' || c == '?' || c == ')' || c == '|' || !c) {
        srt__rx_fail(x, "a pattern that is not a regular expression (a quantifier with nothing before it, or an unbalanced ')')");
        return;
    } else {
        cp = srt__rx_next(x);
        srt__rx_add(x, &s, cp, cp);
        srt__rx_emit_set(x, &s);
    }
    if (x->g->err) return;
    /* the quantifier (a lazy one's ? dropped: the language is the same) */
    if (*x->p == '*' || *x->p == '+' || *x->p == '?') { srt__put(o, x->p, 1); x->p++; }
    else if (*x->p == '{' && x->p[1] >= '0' && x->p[1] <= '9') {
        const char *q = x->p + 1;
        long m = 0, n = -2;
        while (*q >= '0' && *q <= '9') { if (m <= 1000) m = m * 10 + (*q - '0'); q++; }
        if (*q == ',') { q++; n = -1; if (*q >= '0' && *q <= '9') for (n = 0; *q >= '0' && *q <= '9'; q++) if (n <= 1000) n = n * 10 + (*q - '0'); }
        if (*q != '}') return;   /* not a quantifier: '{' is the next atom's character */
        if (m > 1000 || n > 1000) { srt__rx_fail(x, "a pattern with a repetition count over 1000"); return; }
        if (n >= 0 && n < m) { srt__rx_fail(x, "a pattern with a repetition {m,n} where n < m"); return; }
        snprintf(b, sizeof b, n == -2 ? "{%ld}" : n == -1 ? "{%ld,}" : "{%ld,%ld}", m, n);
        srt__puts(o, b);
        x->p = q + 1;
    } else return;
    if (*x->p == '?') x->p++;
    if (*x->p == '*' || *x->p == '+' || *x->p == '?' || (*x->p == '{' && x->p[1] >= '0' && x->p[1] <= '9'))
        srt__rx_fail(x, "a pattern with a quantifier after a quantifier");
}
/* Alternatives separated by | up to ')' or the end; top: the pattern's own, whose ends may be
   anchored (an end that is not takes any characters there). */
static void srt__rx_alt(srt__rx *x, int top) {
    srt__out *o = x->g->o;
    int first = 1;
    srt__puts(o, " (");
    for (;;) {
        int end_anchor = 0;
        if (!first) srt__puts(o, " |");
        first = 0;
        if (top) {
            if (*x->p == '^') x->p++;
            else { x->g->uses |= SRT__SG_CHAR; srt__puts(o, " char*"); }
        }
        while (*x->p && *x->p != '|' && *x->p != ')' && !x->g->err) {
            if (top && *x->p == '$' && (!x->p[1] || x->p[1] == '|')) { end_anchor = 1; x->p++; break; }
            srt__rx_atom(x);
        }
        if (x->g->err) return;
        if (top && !end_anchor) { x->g->uses |= SRT__SG_CHAR; srt__puts(o, " char*"); }
        if (*x->p != '|') break;
        x->p++;
    }
    srt__puts(o, " )");
}
/* The rule body of a string with pattern pat (a JSON string). */
static void srt__sg_pattern(srt__sg *g, const char *pat) {
    size_t n = 0;
    char *t;
    srt__rx x;
    if (*pat != '"') { srt__sg_fail(g, "a pattern that is not a string", pat); return; }
    if (!(t = srt__json_text(pat, &n))) { srt__sg_fail(g, "out of memory", NULL); return; }
    if (strlen(t) != n) { SRT_FREE(t); srt__sg_fail(g, "a pattern with a NUL character", pat); return; }
    x.g = g; x.p = t; x.depth = 0;
    srt__puts(g->o, " \"\\\"\"");
    srt__rx_alt(&x, 1);
    if (!g->err && *x.p) srt__rx_fail(&x, "a pattern that is not a regular expression (an unbalanced ')')");
    if (g->err && !g->err_at) g->err_at = pat;
    srt__puts(g->o, " \"\\\"\"");
    SRT_FREE(t);
}
/* The rule body of a string: the formats date, time, date-time and uuid (other formats are not
   checked), else a pattern, else minLength / maxLength. */
static void srt__sg_string(srt__sg *g, const char *v) {
    static const char *const formats[] = {"date", "time", "date-time", "uuid", NULL};
    const char *f = srt__json_get(v, "format");
    const long lo = srt__sg_count(g, v, "minLength", 0), hi = srt__sg_count(g, v, "maxLength", -1);
    int i;
    for (i = 0; f && formats[i]; i++) if (srt__json_is(f, formats[i])) {
        g->uses |= SRT__SG_FORMATS;
        srt__puts(g->o, " \"\\\"\" ");
        srt__puts(g->o, formats[i]);
        srt__puts(g->o, " \"\\\"\"");
        return;
    }
    if ((f = srt__json_get(v, "pattern")) != NULL) { srt__sg_pattern(g, f); return; }   /* (lengths then not checked) */
    if (hi >= 0 && lo > hi) { srt__sg_fail(g, "a minLength above the maxLength", v); return; }
    if (!lo && hi < 0) { srt__puts(g->o, " string"); return; }
    g->uses |= SRT__SG_CHAR;
    srt__puts(g->o, " \"\\\"\"");
    srt__sg_repeat(g->o, "char", lo, hi);
    srt__puts(g->o, " \"\\\"\"");
}
/* The rule body of an array: "items" (false: none past "prefixItems"), "prefixItems" (all of them
   there), minItems, maxItems. */
static void srt__sg_array(srt__sg *g, const char *v) {
    srt__out *o = g->o;
    const char *items = srt__json_get(v, "items"), *prefix = srt__json_get(v, "prefixItems"), *it, *e;
    const long lo = srt__sg_count(g, v, "minItems", 0);
    long hi = srt__sg_count(g, v, "maxItems", -1), np = 0;
    char one[32], item[48];
    int first = 1;
    if (prefix && *prefix != '[') { srt__sg_fail(g, "a prefixItems that is not an array of schemas", prefix); return; }
    for (it = prefix; prefix && srt__json_item(&it, &e); ) np++;
    if (items && *items == 'f' && (hi < 0 || hi > np)) hi = np;   /* none past the prefix */
    if (hi >= 0 && (lo > hi || hi < np)) { srt__sg_fail(g, "a minItems above the maxItems, or a maxItems below the number of prefixItems", v); return; }
    if (items && *items != 't' && *items != 'f') snprintf(one, sizeof one, "s%d ws", srt__sg_queue(g, items));
    else snprintf(one, sizeof one, "value ws");
    snprintf(item, sizeof item, "(\",\" ws %s)", one);
    srt__puts(o, " \"[\" ws");
    if (np) {
        for (it = prefix; srt__json_item(&it, &e); first = 0) {
            if (!first) srt__puts(o, " \",\" ws");
            srt__sg_ref(g, e);
            srt__puts(o, " ws");
        }
        srt__sg_repeat(o, item, lo > np ? lo - np : 0, hi < 0 ? -1 : hi - np);
    } else if (hi != 0) {
        srt__puts(o, lo ? " " : " ( ");
        srt__puts(o, one);
        srt__sg_repeat(o, item, lo ? lo - 1 : 0, hi < 0 ? -1 : hi - 1);
        if (!lo) srt__puts(o, " )?");
    }
    srt__puts(o, " \"]\"");
}
/* The rule body of an object: "properties" in their order, the "required" ones always and the
   others where they are; after them, with "additionalProperties" true or a schema, any more
   (their names not checked against the listed ones), else none. No properties and no
   additionalProperties: any object. */
static void srt__sg_object(srt__sg *g, const char *v) {
    srt__out *o = g->o;
    const char *props = srt__json_get(v, "properties"), *req = srt__json_get(v, "required"), *add = srt__json_get(v, "additionalProperties"), *it, *k, *pv;
    int n = 0, j, start, first_req = -1, *id;
    unsigned char *isreq;
    char extra[48];
    if (props && *props != '{') { srt__sg_fail(g, "a properties that is not an object", props); return; }
    if (add && *add != 't' && *add != 'f') snprintf(extra, sizeof extra, "( string ws \":\" ws s%d ws )", srt__sg_queue(g, add));
    else snprintf(extra, sizeof extra, "( string ws \":\" ws value ws )");
    if (add && *add == 'f') add = NULL;
    for (it = props; props && srt__json_member(&it, &k, &pv); ) n++;
    if (!n) {
        if (!props && !add && !srt__json_get(v, "additionalProperties")) srt__puts(o, " object");
        else if (!add) srt__puts(o, " \"{\" ws \"}\"");
        else { srt__puts(o, " \"{\" ws ( "); srt__puts(o, extra); srt__puts(o, " (\",\" ws "); srt__puts(o, extra); srt__puts(o, ")* )? \"}\""); }
        return;
    }
    /* the alternatives are which one comes first (an optional one before the first required, or that) */
    id = (int *)SRT_MALLOC((size_t)n * sizeof(int));
    isreq = (unsigned char *)SRT_MALLOC((size_t)n);
    if (!id || !isreq) { srt__sg_fail(g, "out of memory", NULL); SRT_FREE(id); SRT_FREE(isreq); return; }
    for (it = props, j = 0; srt__json_member(&it, &k, &pv); j++) {
        isreq[j] = (unsigned char)srt__json_has_string(req, k);
        if (isreq[j] && first_req < 0) first_req = j;
        id[j] = srt__sg_queue(g, pv);
    }
    srt__puts(o, " \"{\" ws ( (");
    for (start = 0; start < n && (first_req < 0 || start <= first_req); start++) {
        if (start) srt__puts(o, " |");
        for (it = props, j = 0; srt__json_member(&it, &k, &pv); j++) {
            const int opt = j > start && !isreq[j];
            char b[24];
            if (j < start) continue;
            if (opt) srt__puts(o, " (");
            if (j > start) srt__puts(o, " \",\" ws");
            srt__sg_json_lit(g, k);
            snprintf(b, sizeof b, " ws \":\" ws s%d ws", id[j]);
            srt__puts(o, b);
            if (opt) srt__puts(o, ")?");
        }
    }
    srt__puts(o, " )");
    if (add) { srt__puts(o, " (\",\" ws "); srt__puts(o, extra); srt__puts(o, ")*"); }
    if (first_req < 0 && add) { srt__puts(o, " | "); srt__puts(o, extra); srt__puts(o, " (\",\" ws "); srt__puts(o, extra); srt__puts(o, ")*"); }
    srt__puts(o, first_req < 0 ? " )? \"}\"" : " ) \"}\"");
    SRT_FREE(id); SRT_FREE(isreq);
}
/* The body of a rule for type ty (a JSON string) of schema v. */
static void srt__sg_type(srt__sg *g, const char *v, const char *ty) {
    if (srt__json_is(ty, "boolean") || srt__json_is(ty, "null")) srt__puts(g->o, srt__json_is(ty, "null") ? " null" : " boolean");
    else if (srt__json_is(ty, "integer")) srt__sg_integer(g, v);
    else if (srt__json_is(ty, "number")) srt__sg_number(g, v);
    else if (srt__json_is(ty, "string")) srt__sg_string(g, v);
    else if (srt__json_is(ty, "array")) srt__sg_array(g, v);
    else if (srt__json_is(ty, "object")) srt__sg_object(g, v);
    else srt__sg_fail(g, "a type that is not string, integer, number, boolean, null, array or object", v);
}
/* The body of schema v's rule. */
static void srt__sg_keywords(srt__sg *g, const char *v);
static void srt__sg_body(srt__sg *g, const char *v) {
    const char *x;
    if (!(v = srt__sg_resolve(g, v))) return;
    if (*v == 't') { srt__puts(g->o, " value"); return; }   /* true: anything */
    if (*v != '{') { srt__sg_fail(g, "a schema that is not an object or true", v); return; }
    if (srt__json_get(v, "allOf") && !(v = srt__sg_all_of(g, v))) return;
    if ((x = srt__json_get(v, "nullable")) != NULL && *x == 't') {   /* OpenAPI 3.0's: null too */
        srt__puts(g->o, " ( null |");
        srt__sg_keywords(g, v);
        srt__puts(g->o, " )");
    } else srt__sg_keywords(g, v);
}
/* The body of schema object v (its $refs and allOf taken in): by const, enum, anyOf / oneOf, type. */
static void srt__sg_keywords(srt__sg *g, const char *v) {
    srt__out *o = g->o;
    const char *x, *e, *it;
    int first = 1;
    if ((x = srt__json_get(v, "const"))) { srt__sg_json_lit(g, x); return; }
    if ((x = srt__json_get(v, "enum")) || (x = srt__json_get(v, "anyOf")) || (x = srt__json_get(v, "oneOf"))) {
        const int is_enum = x == srt__json_get(v, "enum");
        if (*x != '[' || *srt__json_ws(x + 1) == ']') { srt__sg_fail(g, "an enum, anyOf or oneOf that is not an array of values", x); return; }
        srt__puts(o, " (");
        for (it = x; srt__json_item(&it, &e); first = 0) {
            if (!first) srt__puts(o, " |");
            if (is_enum) srt__sg_json_lit(g, e); else srt__sg_ref(g, e);
        }
        srt__puts(o, " )");
        return;
    }
    if ((x = srt__json_get(v, "type"))) {
        if (*x == '"') { srt__sg_type(g, v, x); return; }
        if (*x != '[') { srt__sg_fail(g, "a type that is not a string or an array of them", x); return; }
        srt__puts(o, " (");
        for (it = x; srt__json_item(&it, &e) && *e == '"'; first = 0) {
            if (!first) srt__puts(o, " |");
            srt__sg_type(g, v, e);
        }
        if (first) srt__sg_fail(g, "an empty type array", x);
        srt__puts(o, " )");
        return;
    }
    if (srt__json_get(v, "properties") || srt__json_get(v, "additionalProperties")) srt__sg_object(g, v);
    else if (srt__json_get(v, "items") || srt__json_get(v, "prefixItems")) srt__sg_array(g, v);
    else srt__puts(o, " value");   /* no type: any value */
}
/* Writes the rules of the queued schemas from g->done on, then the JSON rules. */
static void srt__sg_finish(srt__sg *g) {
    char b[24];
    while (g->done < g->n && !g->err) {
        snprintf(b, sizeof b, "s%d ::=", g->done);
        srt__puts(g->o, b);
        g->root = g->roots[g->done];
        srt__sg_body(g, g->queue[g->done++]);
        srt__puts(g->o, "\n");
    }
    srt__puts(g->o, strchr(SRT_GRAMMAR_JSON, '\n') + 1);   /* all but its root */
    srt__puts(g->o, "integer ::= \"-\"? ( \"0\" | [1-9] [0-9]{0,15} )\nboolean ::= \"true\" | \"false\"\nnull ::= \"null\"\n");
    if (g->uses & SRT__SG_CHAR) srt__puts(g->o, "char ::= [^\"\\\\\\x00-\\x1f] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} )\n");
    if (g->uses & SRT__SG_FORMATS)
        srt__puts(g->o, "date ::= [0-9]{4} \"-\" ( \"0\" [1-9] | \"1\" [0-2] ) \"-\" ( \"0\" [1-9] | [12] [0-9] | \"3\" [01] )\n"
                        "time ::= ( [01] [0-9] | \"2\" [0-3] ) \":\" [0-5] [0-9] \":\" [0-5] [0-9] ( \".\" [0-9]{1,9} )? ( \"Z\" | [+-] ( [01] [0-9] | \"2\" [0-3] ) \":\" [0-5] [0-9] )\n"
                        "date-time ::= date \"T\" time\n"
                        "uuid ::= [0-9a-fA-F]{8} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{12}\n");
}
/* Whether the grammar written parses (a schema whose rules recurse before reading anything, such
   as {"anyOf": [{"$ref": "#"}]}, makes a left recursion). */
static srt_status srt__sg_check(const char *gbnf, const char *what) {
    srt__grammar *gr = NULL;
    char why[256];
    srt_status st = srt__grammar_parse(gbnf, &gr);
    srt__grammar_free(gr);
    if (st == SRT_OK || st == SRT_ERR_OUT_OF_MEMORY) return st;
    srt__chat_copy(why, sizeof why, srt_last_error());
    return srt__fail(SRT_ERR_INVALID_ARG, "%s: the grammar written is refused (a schema that refers to itself before reading anything?): %s", what, why);
}
/* The grammar of tool calls (tools: a JSON array of tool definitions, read already): each call
   open, then {"name": NAME, "ARGS": ARGUMENTS}, then close, one or more of them with sep between
   (sep NULL: one);
   NAME one of the tools' names, ARGUMENTS what the tool's "parameters" schema matches (any object
   without one). g->err on a problem. */
static void srt__sg_tools(srt__sg *g, const char *tools, const char *open, const char *sep, const char *close, const char *args) {
    srt__out *o = g->o;
    const char *it = srt__json_ws(tools), *p, *fn, *name, *params;
    int i = 0;
    srt__puts(o, "root ::= tool-call");
    if (sep) {
        srt__puts(o, " (");
        srt__sg_lit(o, sep, strlen(sep));
        srt__puts(o, " tool-call)*");
    }
    srt__puts(o, "\ntool-call ::= ");
    srt__sg_lit(o, open, strlen(open));
    srt__puts(o, " \"{\" ws \"\\\"name\\\"\" ws \":\" ws tool-name-args ws \"}\" ");
    srt__sg_lit(o, close, strlen(close));
    srt__puts(o, "\ntool-name-args ::=");
    for (; srt__json_item(&it, &p) && *p == '{'; i++) {
        if (!(fn = srt__json_get(p, "function"))) fn = p;
        name = srt__json_get(fn, "name");
        params = srt__json_get(fn, "parameters");
        if (!name || *name != '"') { srt__sg_fail(g, "a tool without a \"name\" string", p); return; }
        srt__puts(o, i ? " |" : "");
        srt__sg_json_lit(g, name);
        srt__puts(o, " ws \",\" ws");
        srt__sg_json_lit(g, args);   /* (a JSON string: the quoted key) */
        srt__puts(o, " ws \":\" ws");
        if (params) { g->root = params; srt__sg_ref(g, params); } else srt__puts(o, " object");
    }
    if (!i) srt__sg_fail(g, "no tools", tools);
    srt__puts(o, "\n");
    srt__sg_finish(g);
}
/* The grammar of JSON Schema schema, or (schema NULL) of srt__sg_tools's calls, SRT_MALLOC'd into
   *out (measured, written, then parsed). */
static srt_status srt__sg_text(const char *schema, const char *tools, const char *open, const char *sep, const char *close, const char *args, char **out, size_t *len) {
    const char *src = schema ? schema : tools, *what = schema ? "JSON schema" : "tool_grammar: the tools";
    srt__out o = {NULL, 0, 0};
    srt_status st;
    int pass;
    *out = NULL;
    for (pass = 0; pass < 2; pass++) {
        srt__sg g;
        memset(&g, 0, sizeof g);
        g.o = &o;
        if (schema) {
            srt__puts(&o, "root ::= s0\n");
            g.root = srt__json_ws(schema);
            srt__sg_queue(&g, g.root);
            srt__sg_finish(&g);
        } else srt__sg_tools(&g, tools, open, sep, close, args);
        srt__sg_free(&g);
        if (g.err) {
            const size_t at = (size_t)(g.err_at - src);
            SRT_FREE(o.buf);
            if (!strcmp(g.err, "out of memory")) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
            if (g.err_at && g.err_at >= src && at <= strlen(src)) return srt__fail(SRT_ERR_INVALID_ARG, "%s: %s (at byte %llu)", what, g.err, (unsigned long long)at);
            return srt__fail(SRT_ERR_INVALID_ARG, "%s: %s", what, g.err);
        }
        if (pass == 0) {
            if (!(o.buf = (char *)SRT_MALLOC(o.n + 1))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
            o.cap = o.n + 1; o.n = 0;
        }
    }
    if (o.n >= o.cap) { SRT_FREE(o.buf); return srt__fail(SRT_ERR_UNSUPPORTED, "%s: the grammar written is longer than measured (a bug)", what); }   /* (the passes must write the same) */
    o.buf[o.n] = 0;
    if ((st = srt__sg_check(o.buf, what)) != SRT_OK) { SRT_FREE(o.buf); return st; }
    *out = o.buf;
    if (len) *len = o.n;
    return SRT_OK;
}
SRT_API srt_status srt_grammar_from_json_schema(const char *schema, char *buf, size_t cap, size_t *len) {
    srt__out none = {NULL, 0, 0};
    const char *e;
    char *g = NULL;
    size_t n = 0;
    srt_status st;
    if (len) *len = 0;
    if (!schema || !len || (!buf && cap)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_grammar_from_json_schema: bad arguments");
    if (!(e = srt__json_value(&none, srt__json_ws(schema), 0, 0)) || *srt__json_ws(e))
        return srt__fail(SRT_ERR_INVALID_ARG, "JSON schema: not one JSON value (valid UTF-8, at most %d levels)", SRT__JSON_DEPTH);
    if ((st = srt__sg_text(schema, NULL, NULL, NULL, NULL, NULL, &g, &n)) != SRT_OK) return st;
    *len = n;
    if (cap) { memcpy(buf, g, n < cap ? n : cap - 1); buf[n < cap ? n : cap - 1] = 0; }
    SRT_FREE(g);
    if (n >= cap) return srt__fail(SRT_ERR_INVALID_ARG, "srt_grammar_from_json_schema: %llu bytes do not fit in %llu", (unsigned long long)n + 1, (unsigned long long)cap);
    return SRT_OK;
}
/* The grammar of a reply's tool calls under template t (tools checked) and the trigger that starts
   it, SRT_MALLOC'd into *out. */
static srt_status srt__chat_tool_grammar(const srt_chat_template *t, const char *tools, char **out, const char **trigger) {
    *out = NULL;
    if (t->format == SRT_CHAT_HARMONY)
        return srt__fail(SRT_ERR_UNSUPPORTED, "tool_grammar: harmony's calls are in control tokens (a grammar for them, with token references, is not written yet)");
    *trigger = t->format == SRT_CHAT_LLAMA3 ? "{\"name\"" : "<tool_call>";
    if (t->format == SRT_CHAT_LLAMA3) return srt__sg_text(NULL, tools, "", NULL, "", "\"parameters\"", out, NULL);   /* the whole reply, one call */
    return srt__sg_text(NULL, tools, "<tool_call>\n", "\n", "\n</tool_call>", "\"arguments\"", out, NULL);
}

/* ---------------------------------------------------------------- 15 chats */
/* The invariant: `fed` is exactly the text the session's tokens stand for (rendered turns, then
   the reply's token texts), so a turn feeds only what its rendering adds after `fed`. When the
   rendering no longer begins with `fed` (or `fed` was forgotten) the conversation is fed from its
   start again and the session keeps the tokens that tokenization begins with. */
typedef struct srt__text { char *p; size_t n, cap; } srt__text;
static int srt__text_add(srt__text *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *np = (char *)SRT_REALLOC(b->p, cap);
        if (!np) return 0;
        b->p = np; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
    return 1;
}

struct srt_chat {
    srt_session *s;
    const srt_model *m;
    srt_chat_template t;
    char *tools;                       /* the copy of srt_chat_desc.tools that t.tools points to */
    int tool_grammar;                  /* the chat set the session's grammar (srt_chat_desc.tool_grammar) */
    srt_chat_message *msgs;            /* role and content: SRT_MALLOC'd each */
    int n_msgs, cap_msgs;
    srt__text fed;
    int prev_special;                  /* the session's last token is a control token */
    int ignore_eos;                    /* neither EOS nor the other end-of-turn tokens end a reply */
    int max_tokens;
    /* the reply: open while srt_chat_next may draw; where it began, for srt_chat_regenerate */
    int reply_open, has_reply, reply_pos, reply_prev_special, n_drawn;
    size_t reply_fed, reply_len, reply_cap;   /* the last message's content: its length, its allocation */
    /* where the last exchange began (before its user message was fed), for srt_chat_undo */
    int has_turn, turn_pos, turn_msg, turn_prev_special;
    size_t turn_fed;
    /* speculative decoding: the tokens the last evaluation drew (in the session), queue[q_at..q_n) not handed out yet */
    int draft_max, draft_ngram, draft_k;   /* draft_k: the proposals the next evaluation checks (srt__draft_adapt) */
    srt_session *draft;
    int32_t queue[SRT_DRAFT_MAX + 1];
    int q_at, q_n;
};
/* Drops the drawn tokens not handed out from the session: it ends with what the app saw. */
static void srt__chat_settle(srt_chat *c) {
    if (c->q_at < c->q_n) srt_session_truncate(c->s, c->s->n_tokens - (c->q_n - c->q_at));
    c->q_at = c->q_n = 0;
}
#define SRT__CHAT_FED_ROLE "srt-chat:fed"

static int srt__chat_add(srt_chat *c, const char *role, const char *content, size_t len) {
    char *r, *t;
    if (c->n_msgs == c->cap_msgs) {
        int cap = c->cap_msgs ? 2 * c->cap_msgs : 16;
        srt_chat_message *nm = (srt_chat_message *)SRT_REALLOC(c->msgs, (size_t)cap * sizeof *nm);
        if (!nm) return 0;
        c->msgs = nm; c->cap_msgs = cap;
    }
    r = srt__chat_strdup(role, strlen(role));
    t = srt__chat_strdup(content, len);
    if (!r || !t) { SRT_FREE(r); SRT_FREE(t); return 0; }
    c->msgs[c->n_msgs].role = r;
    c->msgs[c->n_msgs].content = t;
    c->n_msgs++;
    return 1;
}
static void srt__chat_drop(srt_chat *c, int i) {
    SRT_FREE((void *)c->msgs[i].role);
    SRT_FREE((void *)c->msgs[i].content);
    memmove(c->msgs + i, c->msgs + i + 1, (size_t)(c->n_msgs - i - 1) * sizeof *c->msgs);
    c->n_msgs--;
    c->reply_open = c->reply_open && i != c->n_msgs;   /* the reply is the last message */
}
static void srt__chat_forget(srt_chat *c) { c->fed.n = 0; c->prev_special = 0; }
static int srt__chat_has_system(const srt_chat *c) { return c->n_msgs > 0 && !strcmp(c->msgs[0].role, "system"); }

/* The rendered conversation into *out, SRT_MALLOC'd. */
static srt_status srt__chat_render_all(srt_chat *c, int add_generation_prompt, char **out) {
    size_t len = 0;
    srt_status st;
    *out = NULL;
    if ((st = srt_chat_render(&c->t, c->msgs, c->n_msgs, add_generation_prompt, NULL, 0, &len)) != SRT_OK && len == 0) return st;
    if (!(*out = (char *)SRT_MALLOC(len + 1))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat: out of memory (%llu bytes for the rendered conversation)", (unsigned long long)len + 1);
    if ((st = srt_chat_render(&c->t, c->msgs, c->n_msgs, add_generation_prompt, *out, len + 1, &len)) != SRT_OK) { SRT_FREE(*out); *out = NULL; }
    return st;
}
/* A token the tokenizer writes for its text under SRT_TOKENIZE_PARSE_SPECIAL ("<|im_end|>"). */
static int srt__chat_is_control(const srt_model *m, int32_t t) {
    const char *p = srt_token_piece(m, t);
    return p && p[0] && p[1] && srt_token_bytes(m, t, NULL, 0) == 0;
}
/* Rendered text to tokens: control-token texts become those tokens; text that begins a turn
   after a control token (or the conversation) gets the dummy-prefix space as llama.cpp gives
   it, text that continues text does not. */
static srt_status srt__chat_tokenize(srt_chat *c, const char *text, size_t len, int after_special, int32_t **out, int *n_out) {
    const int flags = SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL | (after_special ? 0 : SRT_TOKENIZE_NO_SPACE_PREFIX);
    srt__ids t = {NULL, 0, 0, 0};
    srt_status st = srt__tokenize(c->m, text, len, flags, &t);
    *out = NULL; *n_out = 0;
    if (st == SRT_OK && !t.p && !(t.p = (int32_t *)SRT_MALLOC(sizeof *t.p))) st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat: out of memory");   /* (never NULL) */
    if (st != SRT_OK) { SRT_FREE(t.p); return st; }
    *out = t.p; *n_out = t.n;
    return SRT_OK;
}
/* The tokens of ids[0..n) the session holds already, from its start. */
static int srt__chat_common(const srt_session *s, const int32_t *ids, int n) {
    int k = 0;
    while (k < n && k < s->n_tokens && s->tokens[k] == ids[k]) k++;
    return k;
}
/* Appends to the open reply (the last message) and to fed. */
static int srt__chat_reply_add(srt_chat *c, const char *text, size_t n) {
    char *r = (char *)c->msgs[c->n_msgs - 1].content;
    size_t have = c->reply_len;   /* not strlen: this runs per token */
    if (have + n + 1 > c->reply_cap) {
        size_t cap = (have + n + 1) * 2;
        if (!(r = (char *)SRT_REALLOC(r, cap))) return 0;
        c->msgs[c->n_msgs - 1].content = r;
        c->reply_cap = cap;
    }
    memcpy(r + have, text, n);
    r[have + n] = 0;
    c->reply_len = have + n;
    return srt__text_add(&c->fed, text, n);
}

SRT_API srt_status srt_chat_create(srt_session *s, const srt_chat_desc *desc, srt_chat **out) {
    srt_chat_desc d;
    srt_chat *c;
    srt_status st;
    if (out) *out = NULL;
    if (!s || !out) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_create: NULL session or out");
    if (srt_vocab_size(s->m) <= 0) return srt__fail(SRT_ERR_NO_TOKENIZER, "srt_chat_create: the model has no tokenizer");
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.max_tokens < 0) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_create: max_tokens %d is negative", d.max_tokens);
    if (!(c = (srt_chat *)SRT_MALLOC(sizeof *c))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_create: out of memory");
    memset(c, 0, sizeof *c);
    c->s = s;
    c->m = s->m;
    c->max_tokens = d.max_tokens;
    c->draft_max = c->draft_k = d.draft_max; c->draft_ngram = d.draft_ngram; c->draft = d.draft;
    if ((st = srt__draft_check(s, d.draft_max, d.draft_ngram, d.draft, "srt_chat_create")) != SRT_OK ||
        (st = srt_chat_template_from_model(s->m, d.template_name, &c->t)) != SRT_OK) { SRT_FREE(c); return st; }
    c->ignore_eos = d.ignore_eos != 0;
    if (d.ignore_eos) memset(c->t.stop, 0, sizeof c->t.stop);
    c->t.no_think = d.no_think != 0;
    if (d.reasoning) {
        if (strcmp(d.reasoning, "low") != 0 && strcmp(d.reasoning, "medium") != 0 && strcmp(d.reasoning, "high") != 0) {
            srt_chat_destroy(c);
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_create: reasoning '%s' is not low, medium or high", d.reasoning);
        }
        srt__chat_copy(c->t.reasoning, sizeof c->t.reasoning, d.reasoning);
    }
    if (d.tools && d.tools[0]) {
        if ((st = srt__chat_tools_check(&c->t, d.tools, 1, "srt_chat_create")) != SRT_OK) { srt_chat_destroy(c); return st; }
        if (!(c->t.tools = c->tools = srt__chat_strdup(d.tools, strlen(d.tools)))) { srt_chat_destroy(c); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_create: out of memory"); }
    }
    if (d.tool_grammar) {
        char *gbnf = NULL;
        const char *trigger = NULL;
        if (!c->tools) { srt_chat_destroy(c); return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_create: tool_grammar without tools"); }
        if ((st = srt__chat_tool_grammar(&c->t, c->tools, &gbnf, &trigger)) != SRT_OK ||
            (st = srt_session_set_grammar_lazy(s, gbnf, &trigger, 1)) != SRT_OK) { SRT_FREE(gbnf); srt_chat_destroy(c); return st; }
        SRT_FREE(gbnf);
        c->tool_grammar = 1;
    }
    if (d.system_prompt && !srt__chat_add(c, "system", d.system_prompt, strlen(d.system_prompt))) { srt_chat_destroy(c); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_create: out of memory"); }
    *out = c;
    return SRT_OK;
}
SRT_API void srt_chat_destroy(srt_chat *c) {
    if (!c) return;
    srt__chat_settle(c);
    if (c->tool_grammar) srt_session_set_grammar(c->s, NULL);
    while (c->n_msgs > 0) srt__chat_drop(c, c->n_msgs - 1);
    SRT_FREE(c->msgs);
    SRT_FREE(c->fed.p);
    SRT_FREE(c->tools);
    SRT_FREE(c);
}
SRT_API const srt_chat_template *srt_chat_get_template(const srt_chat *c) { return c ? &c->t : NULL; }
SRT_API const srt_chat_message *srt_chat_messages(const srt_chat *c, int *n) {
    if (n) *n = c ? c->n_msgs : 0;
    return c ? c->msgs : NULL;
}

/* Takes back the last k messages (a turn's new ones that failed). */
static void srt__chat_drop_last(srt_chat *c, int k) { while (k-- > 0 && c->n_msgs > 0) srt__chat_drop(c, c->n_msgs - 1); }
SRT_API srt_status srt_chat_send(srt_chat *c, const char *text, srt_chat_turn *turn) {
    srt_chat_message m;
    m.role = "user";
    m.content = text;
    if (turn) memset(turn, 0, sizeof *turn);
    if (!c || !text) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_send: NULL chat or text");
    return srt_chat_send_messages(c, &m, 1, turn);
}
SRT_API srt_status srt_chat_send_messages(srt_chat *c, const srt_chat_message *msgs, int n_new, srt_chat_turn *turn) {
    srt_chat_turn tr;
    srt_session *s;
    int32_t *ids = NULL;
    int n = 0, n_ctx, room, k, pos0, i, keep;
    srt_status st;
    char *full;
    memset(&tr, 0, sizeof tr);
    if (turn) *turn = tr;
    if (!c || n_new < 1 || !msgs) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_send_messages: NULL chat or no messages");
    for (i = 0; i < n_new; i++)
        if (!msgs[i].role || !msgs[i].content || !msgs[i].role[0] || !strcmp(msgs[i].role, "system") || !strcmp(msgs[i].role, "assistant") ||
            !strcmp(msgs[i].role, SRT__CHAT_FED_ROLE))
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_send_messages: message %d: %s", i, !msgs[i].role || !msgs[i].content ? "no role or content" : "a role the app does not send");
    /* what making room never drops: the new messages, and before tool results the reply that called them */
    keep = n_new + (!strcmp(msgs[0].role, "tool") && c->n_msgs > 0 && !strcmp(c->msgs[c->n_msgs - 1].role, "assistant"));
    srt__chat_settle(c);
    s = c->s;
    n_ctx = s->n_ctx;
    room = c->max_tokens > 0 && c->max_tokens < n_ctx / 2 ? c->max_tokens : n_ctx / 4;
    c->reply_open = 0;
    for (i = 0; i < n_new; i++)
        if (!srt__chat_add(c, msgs[i].role, msgs[i].content, strlen(msgs[i].content))) { srt__chat_drop_last(c, i); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_send: out of memory"); }
    if ((st = srt__chat_render_all(c, 1, &full)) != SRT_OK) { srt__chat_drop_last(c, n_new); return st; }
    if (c->fed.n > 0 && (strlen(full) < c->fed.n || memcmp(full, c->fed.p, c->fed.n) != 0)) { srt__chat_forget(c); tr.rerendered = 1; }
    for (;;) {   /* the oldest exchanges go until the new text and room for a reply fit: an exchange is a user
                    message and what follows it up to the next one (replies, tool results) */
        int first = srt__chat_has_system(c);
        SRT_FREE(ids);
        if ((st = srt__chat_tokenize(c, full + c->fed.n, strlen(full + c->fed.n), c->fed.n ? c->prev_special : 1, &ids, &n)) != SRT_OK) {
            SRT_FREE(full); srt__chat_drop_last(c, n_new); return st;
        }
        if ((c->fed.n ? s->n_tokens : 0) + n + room <= n_ctx || c->n_msgs - first <= keep) break;
        do srt__chat_drop(c, first);
        while (c->n_msgs - first > keep && strcmp(c->msgs[first].role, "user") != 0);
        c->has_turn = c->has_reply = 0;   /* their positions are gone */
        srt__chat_forget(c);
        tr.n_dropped++;
        SRT_FREE(full);
        if ((st = srt__chat_render_all(c, 1, &full)) != SRT_OK) { SRT_FREE(ids); srt__chat_drop_last(c, n_new); return st; }
    }
    if ((c->fed.n ? s->n_tokens : 0) + n + 1 > n_ctx) {
        SRT_FREE(ids); SRT_FREE(full); srt__chat_drop_last(c, n_new);
        return srt__fail(SRT_ERR_CONTEXT_FULL, "srt_chat_send: the message (%d tokens with its template) does not fit into the context window of %d tokens", n, n_ctx);
    }
    k = c->fed.n ? 0 : srt__chat_common(s, ids, n);
    pos0 = c->fed.n ? s->n_tokens : k;
    st = srt_session_truncate(s, pos0);
    if (st == SRT_OK) st = srt_session_feed(s, ids + k, n - k);
    if (st != SRT_OK) {   /* batches evaluated before a cancel or an error are taken back too */
        srt_session_truncate(s, pos0);
        srt__chat_drop_last(c, n_new);
        SRT_FREE(ids); SRT_FREE(full);
        return st;
    }
    c->has_turn = 1; c->turn_pos = pos0; c->turn_msg = c->n_msgs - n_new; c->turn_fed = c->fed.n; c->turn_prev_special = c->prev_special;
    tr.from_start = c->fed.n == 0; tr.n_tokens = n; tr.n_kept = pos0; tr.n_prompt = s->n_tokens - pos0;
    if (!srt__text_add(&c->fed, full + c->fed.n, strlen(full + c->fed.n)) || !srt__chat_add(c, "assistant", "", 0)) {
        srt__chat_forget(c);   /* the next turn feeds the conversation again, keeping these tokens */
        SRT_FREE(ids); SRT_FREE(full);
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_send: out of memory");
    }
    if (n > 0) c->prev_special = srt__chat_is_control(c->m, ids[n - 1]);
    c->reply_open = c->has_reply = 1;
    c->reply_pos = s->n_tokens; c->reply_fed = c->fed.n; c->reply_prev_special = c->prev_special;
    c->reply_len = 0; c->reply_cap = 1; c->n_drawn = 0;
    tr.text = c->fed.p + c->turn_fed;
    tr.text_len = c->fed.n - c->turn_fed;
    if (turn) *turn = tr;
    SRT_FREE(ids); SRT_FREE(full);
    return SRT_OK;
}

SRT_API srt_status srt_chat_next(srt_chat *c, int32_t *token, int *end) {
    int32_t t;
    srt_status st;
    int stop = 0, k, n;
    const char *piece;
    char buf[256];
    if (token) *token = -1;
    if (end) *end = SRT_CHAT_GOING;
    if (!c || !token || !end) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_next: NULL argument");
    if (!c->reply_open) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_next: no reply is open (srt_chat_send first)");
    if (c->max_tokens > 0 && c->n_drawn >= c->max_tokens) { srt__chat_settle(c); c->reply_open = 0; *end = SRT_CHAT_END_LIMIT; return SRT_OK; }
    if (c->q_at == c->q_n) {   /* draw: one token, or several with proposals */
        int ng;
        c->q_at = 0;
        st = srt__draw_step(c->s, c->draft, c->draft_ngram, c->draft_max, &c->draft_k, c->max_tokens > 0 ? c->max_tokens - c->n_drawn : -1, c->queue, &c->q_n, &ng);
        if (st != SRT_OK) {
            if (st != SRT_ERR_CANCELLED) c->reply_open = 0;
            return st;
        }
    }
    t = c->queue[c->q_at++];
    c->n_drawn++;
    *token = t;
    piece = srt_token_piece(c->m, t);
    stop = !c->ignore_eos && srt__is_eog(&c->m->vocab, t);   /* EOS is one of them */
    for (k = 0; k < 4 && !stop; k++) stop = c->t.stop[k][0] && piece && !strcmp(piece, c->t.stop[k]);
    if (stop) {   /* its text ends the turn in fed ("" for a BOS-like EOS without one) */
        srt__chat_settle(c);
        c->reply_open = 0;
        *end = SRT_CHAT_END_TURN;
        c->prev_special = 1;
        if (!srt__text_add(&c->fed, piece ? piece : "", piece ? strlen(piece) : 0)) { srt__chat_forget(c); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_next: out of memory"); }
        return SRT_OK;
    }
    n = srt_token_bytes(c->m, t, NULL, 0);
    if (n == 0 && srt__chat_is_control(c->m, t)) { c->prev_special = 1; st = srt__chat_reply_add(c, piece, strlen(piece)) ? SRT_OK : SRT_ERR_OUT_OF_MEMORY; }
    else {
        char *p = n <= (int)sizeof buf ? buf : (char *)SRT_MALLOC((size_t)n);
        c->prev_special = 0;
        st = p && srt_token_bytes(c->m, t, p, n) == n && srt__chat_reply_add(c, p, (size_t)n) ? SRT_OK : SRT_ERR_OUT_OF_MEMORY;
        if (p != buf) SRT_FREE(p);
    }
    if (st != SRT_OK) { srt__chat_forget(c); return srt__fail(st, "srt_chat_next: out of memory (the reply's text)"); }
    return SRT_OK;
}

SRT_API srt_status srt_chat_regenerate(srt_chat *c) {
    char *e;
    if (c) srt__chat_settle(c);
    if (!c || !c->has_reply || c->n_msgs == 0 || strcmp(c->msgs[c->n_msgs - 1].role, "assistant") != 0 || srt_session_truncate(c->s, c->reply_pos) != SRT_OK)
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_regenerate: there is no reply to generate again");
    if (!(e = srt__chat_strdup("", 0))) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_regenerate: out of memory");
    SRT_FREE((void *)c->msgs[c->n_msgs - 1].content);
    c->msgs[c->n_msgs - 1].content = e;
    c->fed.n = c->reply_fed;
    c->prev_special = c->reply_prev_special;
    c->reply_open = 1; c->reply_len = 0; c->reply_cap = 1; c->n_drawn = 0;
    return SRT_OK;
}

SRT_API srt_status srt_chat_undo(srt_chat *c) {
    if (c) srt__chat_settle(c);
    if (!c || !c->has_turn || c->turn_msg >= c->n_msgs || srt_session_truncate(c->s, c->turn_pos) != SRT_OK)
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_undo: there is nothing to take back");
    while (c->n_msgs > c->turn_msg) srt__chat_drop(c, c->n_msgs - 1);
    c->fed.n = c->turn_fed;
    c->prev_special = c->turn_prev_special;
    c->has_turn = c->has_reply = c->reply_open = 0;
    return SRT_OK;
}

SRT_API void srt_chat_reset(srt_chat *c) {
    if (!c) return;
    srt__chat_settle(c);
    while (c->n_msgs > (srt__chat_has_system(c) ? 1 : 0)) srt__chat_drop(c, c->n_msgs - 1);
    c->has_turn = c->has_reply = c->reply_open = 0;
    srt__chat_forget(c);
    srt_session_seed(c->s, c->s->d.sampler.seed);
}

/* Before a save with nothing of the conversation fed (after a reset, or a load without the fed
   text), the session may still hold an earlier conversation's tokens, kept for the next turn to
   reuse: only those the current conversation begins with stay, so that the file holds nothing of
   the conversation before. */
static void srt__chat_trim_stale(srt_chat *c) {
    char *full;
    int32_t *ids = NULL;
    int n = 0, keep = 0;
    if (c->fed.n || c->s->n_tokens == 0) return;
    if (srt__chat_render_all(c, 0, &full) == SRT_OK && srt__chat_tokenize(c, full, strlen(full), 1, &ids, &n) == SRT_OK) keep = srt__chat_common(c->s, ids, n);
    srt_session_truncate(c->s, keep);
    SRT_FREE(ids);
    SRT_FREE(full);
}
SRT_API srt_status srt_chat_save(srt_chat *c, const char *path) {
    srt_chat_message *all;
    char *fed;
    srt_status st;
    if (!c || !path) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_save: NULL chat or path");
    srt__chat_settle(c);
    all = (srt_chat_message *)SRT_MALLOC((size_t)(c->n_msgs + 1) * sizeof *all);
    fed = srt__chat_strdup(c->fed.p ? c->fed.p : "", c->fed.n);   /* fed.p may go on past fed.n (after an undo) */
    if (!all || !fed) { SRT_FREE(all); SRT_FREE(fed); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_save: out of memory"); }
    srt__chat_trim_stale(c);
    if (c->n_msgs) memcpy(all, c->msgs, (size_t)c->n_msgs * sizeof *all);
    all[c->n_msgs].role = SRT__CHAT_FED_ROLE;
    all[c->n_msgs].content = fed;
    st = srt_session_save_chat(c->s, path, all, c->n_msgs + 1);
    SRT_FREE(all);
    SRT_FREE(fed);
    return st;
}
SRT_API srt_status srt_chat_load(srt_chat *c, const char *path) {
    srt_chat_message *msgs = NULL;
    int n = 0, i, ok = 1;
    srt_status st;
    if (!c || !path) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_load: NULL chat or path");
    srt__chat_settle(c);
    if ((st = srt_session_load_chat(c->s, path, &msgs, &n)) != SRT_OK) {
        srt__chat_forget(c);   /* a backend's cache may be gone: the next turn checks what the session holds */
        return st;
    }
    while (c->n_msgs > 0) srt__chat_drop(c, c->n_msgs - 1);
    srt__chat_forget(c);
    c->has_turn = c->has_reply = c->reply_open = 0;
    for (i = 0; i < n && ok; i++) {
        if (!strcmp(msgs[i].role, SRT__CHAT_FED_ROLE)) { c->fed.n = 0; ok = srt__text_add(&c->fed, msgs[i].content, strlen(msgs[i].content)); }
        else ok = srt__chat_add(c, msgs[i].role, msgs[i].content, strlen(msgs[i].content));
    }
    srt_chat_messages_free(msgs);
    if (!ok) { srt__chat_forget(c); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_chat_load: %s: out of memory", path); }
    if (c->fed.n && c->s->n_tokens == 0) srt__chat_forget(c);   /* text without tokens: not this session's */
    if (c->s->n_tokens > 0) c->prev_special = srt__chat_is_control(c->m, c->s->tokens[c->s->n_tokens - 1]);
    return SRT_OK;
}

#endif /* SPARSERT_IMPLEMENTATION_DONE */
#endif /* SPARSERT_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2026 the sparsert authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES
OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
