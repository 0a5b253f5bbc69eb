/* sparsert.h - an embeddable LLM runtime for AI PCs, as one stb-style C header.

   WHAT IT IS
     A model loader (the .srt container, memory-mapped, zero-copy), a thread pool, weight kernels
     (F32, F16, BF16, Q8 with per-group scales), a Llama-family transformer, a SentencePiece-style
     tokenizer, a sampler and a steppable generation loop. Portable C99 that is also valid C++.

   HOW TO USE
     In exactly one C or C++ file of your program:
         #define SPARSERT_IMPLEMENTATION
         #include "sparsert.h"
     Everywhere else just #include "sparsert.h". Nothing else to build or link (add -lm, and
     -pthread on POSIX).

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
    SRT_Q8   = 3,   /* int8 values + one f16 scale per group of `group` along K */
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

/* ---------------------------------------------------------------- model */
typedef struct srt_model srt_model;

typedef struct srt_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} srt_allocator;

typedef struct srt_model_desc {
    int n_threads;           /* threads when `pool` is NULL; 0 = one per CPU that `cores` picks */
    srt_cores cores;         /* which CPUs the model's own pool uses; 0 = SRT_CORES_AUTO */
    const char *cpu_list;    /* with SRT_CORES_LIST: "0-3,8" */
    int pin;                 /* as srt_pool_desc.pin: 0 = default, 1 = always pin, -1 = never */
    srt_pool *pool;          /* shared pool (not owned); NULL = the model makes its own */
    int verify_checksums;    /* 1 = check every tensor's CRC-32 at load (reads the whole file) */
    srt_allocator allocator; /* all-NULL = SRT_MALLOC/SRT_FREE */
} srt_model_desc;

typedef struct srt_model_info {
    const char *architecture;    /* "llama" */
    const char *name;            /* general.name or "" */
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, n_ctx_train;
    srt_format format;           /* format of the largest weight matrices */
    uint64_t weight_bytes;       /* bytes of all weight tensors */
    uint64_t file_bytes;
    int bos, eos;                /* special token ids, -1 if none */
} srt_model_info;

SRT_API srt_status srt_model_load(const char *path, const srt_model_desc *desc, srt_model **out);
SRT_API void srt_model_free(srt_model *model);
SRT_API void srt_model_get_info(const srt_model *model, srt_model_info *info);
/* Metadata lookup by key (see formats/SRT.md): returns 1 and fills *out if present with that type. */
SRT_API int srt_model_meta_str(const srt_model *model, const char *key, const char **out);
SRT_API int srt_model_meta_u32(const srt_model *model, const char *key, uint32_t *out);
SRT_API int srt_model_meta_f32(const srt_model *model, const char *key, float *out);

/* ---------------------------------------------------------------- tokenizer */
enum {
    SRT_TOKENIZE_ADD_BOS = 1,       /* prepend BOS (if the vocab has one) */
    SRT_TOKENIZE_NO_BOS = 2,        /* never prepend BOS, even when the model asks for it */
    SRT_TOKENIZE_NO_SPACE_PREFIX = 4 /* no SentencePiece dummy-prefix space (text that continues a sequence) */
};
/* Encodes `len` bytes of UTF-8 `text` into at most `cap` ids; *n_out receives the number needed.
   Returns SRT_ERR_INVALID_ARG (with *n_out set) when cap is too small. Invalid UTF-8 is encoded
   through byte-fallback tokens. flags = 0 adds BOS if the model's tokenizer.add_bos says so. */
SRT_API srt_status srt_tokenize(const srt_model *model, const char *text, size_t len, int flags,
                                int32_t *ids, int cap, int *n_out);
SRT_API int srt_vocab_size(const srt_model *model);
/* Raw vocabulary piece as stored ("\xe2\x96\x81the", "<0x0A>", "<s>"); NULL if out of range. */
SRT_API const char *srt_token_piece(const srt_model *model, int32_t token);
/* Bytes this token contributes to text (spaces restored, byte tokens decoded, control tokens empty).
   Writes at most cap bytes, returns the full length. */
SRT_API int srt_token_bytes(const srt_model *model, int32_t token, char *buf, int cap);

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
typedef enum srt_kv_type { SRT_KV_DEFAULT = 0, SRT_KV_F32 = 1, SRT_KV_F16 = 2 } srt_kv_type;
typedef struct srt_session_desc {
    int n_ctx;               /* context length; 0 = the model's training context (capped at 4096) */
    int n_batch;             /* prompt tokens per forward batch; 0 = 32 */
    srt_kv_type kv_type;     /* 0 = F16 */
    srt_sampler_desc sampler;
} srt_session_desc;

SRT_API srt_status srt_session_create(srt_model *model, const srt_session_desc *desc, srt_session **out);
SRT_API void srt_session_destroy(srt_session *s);
/* Forgets the conversation (KV cache, history); keeps the allocation. */
SRT_API void srt_session_reset(srt_session *s);
/* Evaluates tokens (in batches) at the current position; the logits of the last one become the
   distribution for the next srt_session_next(). SRT_ERR_CONTEXT_FULL if they do not fit. */
SRT_API srt_status srt_session_feed(srt_session *s, const int32_t *tokens, int n);
/* Tokenizes `text` (flags as srt_tokenize) and feeds it. At position > 0 no BOS is added and no
   dummy-prefix space either: the text continues the sequence exactly as written. */
SRT_API srt_status srt_session_prompt(srt_session *s, const char *text, int flags);
/* Samples the next token from the current distribution and makes it part of the sequence (it is
   evaluated lazily, on the next call that needs its logits). */
SRT_API srt_status srt_session_next(srt_session *s, int32_t *token);
/* Logits (n_vocab floats) of the current distribution; NULL if there is none yet. */
SRT_API const float *srt_session_logits(srt_session *s);
SRT_API int srt_session_pos(const srt_session *s);       /* tokens in the sequence */
SRT_API int srt_session_n_ctx(const srt_session *s);
SRT_API const int32_t *srt_session_tokens(const srt_session *s);
/* Asks a running srt_session_feed/srt_generate to stop (thread-safe); cleared by the next call. */
SRT_API void srt_session_cancel(srt_session *s);

typedef struct srt_generate_desc {
    const char *prompt;      /* text to feed first (may be NULL or "") */
    int prompt_flags;        /* as srt_tokenize */
    int max_tokens;          /* new tokens to produce; 0 = until EOS or the context is full */
    int stop_at_eos;         /* 0 = default (yes); -1 = no */
    /* Called with whole UTF-8 characters as they are produced; return nonzero to stop. */
    int (*on_text)(const char *text, int len, int32_t token, void *user);
    void *user;
} srt_generate_desc;
typedef struct srt_generate_result {
    int n_prompt, n_generated;
    double prompt_ms, decode_ms;
    int stopped_by;          /* 0 max_tokens, 1 eos, 2 callback, 3 cancelled, 4 context full */
} srt_generate_result;
SRT_API srt_status srt_generate(srt_session *s, const srt_generate_desc *desc, srt_generate_result *result);

/* ---------------------------------------------------------------- quantization */
/* Bytes of each part of a rows x cols tensor in `format` with `group` (0 = format default). */
typedef struct srt_tensor_parts {
    int n_parts;
    uint32_t kind[4];        /* SRT_PART_* */
    uint64_t size[4];
} srt_tensor_parts;
enum { SRT_PART_VALUES = 0, SRT_PART_SCALES = 1 };
SRT_API srt_status srt_tensor_layout(srt_format format, uint64_t rows, uint64_t cols, uint32_t group, srt_tensor_parts *parts);
/* Converts rows x cols floats (row-major) to `format`; parts[i] must hold layout.size[i] bytes. */
SRT_API srt_status srt_quantize(srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts);
/* Converts back to floats (reference dequantization). */
SRT_API srt_status srt_dequantize(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst);
SRT_API float srt_f16_to_f32(uint16_t h);
SRT_API uint16_t srt_f32_to_f16(float f);
SRT_API float srt_bf16_to_f32(uint16_t h);
SRT_API uint16_t srt_f32_to_bf16(float f);

/* Reference matrix-vector kernel: y[M] = W[M x K] * x[K] for a tensor in `format`. The runtime
   uses the same arithmetic; exposed for tests and tools. */
SRT_API srt_status srt_matvec(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                              const float *x, float *y);

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
    SRT_CHAT_FORMAT_COUNT
} srt_chat_format;

typedef struct srt_chat_message {
    const char *role;         /* "system", "user", "assistant" (chatml and llama3 also render other roles) */
    const char *content;      /* UTF-8 */
} srt_chat_message;

/* A plain struct; fill it with srt_chat_template_from_model/_from_text/_by_name, then adjust. */
typedef struct srt_chat_template {
    srt_chat_format format;
    int guessed;              /* 1 = the stored template was not recognised (or absent): ChatML is used */
    char bos[48], eos[48];    /* text of the model's BOS / EOS tokens, where the template writes them */
    char default_system[1024];/* system prompt the template inserts when a conversation has none ("" = none) */
    int dated_system;         /* llama3 (3.1 and later): every conversation starts with a system block
                                 "Cutting Knowledge Date: December 2023\nToday Date: <date>\n\n<system>" */
    char date[16];            /* that date, "26 Jul 2024" (the templates' fallback), or today's date (UTC)
                                 when the template asks for strftime_now */
    char stop[4][32];         /* texts of the tokens that end an assistant turn ("<|im_end|>"); generation
                                 should stop at them (as well as at EOS) */
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
     13 sessions and generation   14 chat templates
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
#else
#  define srt__atomic_load(p)        __atomic_load_n((p), __ATOMIC_SEQ_CST)
#  define srt__atomic_store(p, v)    __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#  define srt__atomic_add(p, v)      __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
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
    int64_t next;                 /* atomic: next item to claim */
    int64_t done;                 /* atomic: workers finished with this generation */
    int32_t generation;           /* atomic; also the futex word */
    int32_t sleepers;             /* atomic: workers asleep (or about to be) */
    int32_t stop;                 /* atomic */
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

static void srt__pool_run_chunks(srt_pool *p, int index) {
    if (p->split) {
        int64_t b = p->n * index / p->n_threads, e = p->n * (index + 1) / p->n_threads;
        if (b < e) srt__pool_call(p, b, e, index);
        return;
    }
    for (;;) {
        int64_t begin = srt__atomic_add(&p->next, p->chunk);
        int64_t end;
        if (begin >= p->n) break;
        end = begin + p->chunk < p->n ? begin + p->chunk : p->n;
        srt__pool_call(p, begin, end, index);
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
    srt__atomic_store(&p->next, 0);
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
#ifdef _WIN32
    HANDLE file, mapping;
#endif
} srt__map;

static srt_status srt__map_open(const char *path, srt__map *m) {
    memset(m, 0, sizeof *m);
#ifdef _WIN32
    {
        LARGE_INTEGER sz;
        m->file = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        if (m->file == INVALID_HANDLE_VALUE) return srt__fail(SRT_ERR_IO, "%s: cannot open (error %lu)", path, (unsigned long)GetLastError());
        if (!GetFileSizeEx(m->file, &sz)) { CloseHandle(m->file); return srt__fail(SRT_ERR_IO, "%s: cannot get size", path); }
        m->size = (uint64_t)sz.QuadPart;
        if (m->size == 0) { CloseHandle(m->file); return srt__fail(SRT_ERR_FORMAT, "%s: empty file", path); }
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
        p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return srt__fail(SRT_ERR_IO, "%s: mmap failed", path);
        m->data = (const unsigned char *)p;
    }
#endif
    return SRT_OK;
}

static void srt__map_close(srt__map *m) {
    if (!m->data) return;
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
   formats/LAYOUTS.md describes each layout bit by bit. */
#define SRT__Q8_DEFAULT_GROUP 64u
#define SRT__MAX_GROUP (1u << 20)

SRT_API const char *srt_format_name(srt_format f) {
    switch (f) {
        case SRT_F32: return "f32";
        case SRT_F16: return "f16";
        case SRT_BF16: return "bf16";
        case SRT_Q8: return "q8";
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

static int srt__format_is_grouped(srt_format f) { return f == SRT_Q8; }

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
        case SRT_Q8: {
            uint64_t ng;
            if (group == 0 || group > SRT__MAX_GROUP) return srt__fail(SRT_ERR_FORMAT, "q8 group size %u out of range 1..%u", group, SRT__MAX_GROUP);
            ng = (cols + group - 1) / group;
            parts->n_parts = 2;
            parts->kind[0] = SRT_PART_VALUES; parts->size[0] = n;
            parts->kind[1] = SRT_PART_SCALES; parts->size[1] = rows * ng * 2;
            return SRT_OK;
        }
        default:
            return srt__fail(SRT_ERR_UNSUPPORTED, "unknown weight format %d", (int)format);
    }
}

/* Q8 quantization of one group: scale = max|x| / 127 rounded to f16, q = round(x / scale). */
static void srt__quantize_q8_group(const float *x, uint64_t n, int8_t *q, uint16_t *scale) {
    float amax = 0.0f, d, id;
    uint64_t i;
    for (i = 0; i < n; i++) { float a = fabsf(x[i]); if (a > amax) amax = a; }
    *scale = srt_f32_to_f16(amax / 127.0f);
    d = srt_f16_to_f32(*scale);
    id = d > 0.0f ? 1.0f / d : 0.0f;
    for (i = 0; i < n; i++) {
        float v = roundf(x[i] * id);
        q[i] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : v);
    }
}

SRT_API srt_status srt_quantize(srt_format format, uint32_t group, const float *src, uint64_t rows, uint64_t cols, void *const *parts) {
    srt_tensor_parts lay;
    uint64_t i, n;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    n = rows * cols;
    for (i = 0; i < n; i++)
        if (!(src[i] == src[i]) || fabsf(src[i]) > FLT_MAX)
            return srt__fail(SRT_ERR_INVALID_ARG, "value %llu (row %llu) is not finite", (unsigned long long)i, (unsigned long long)(i / cols));
    switch (format) {
        case SRT_F32: memcpy(parts[0], src, (size_t)(n * 4)); break;
        case SRT_F16: { uint16_t *d = (uint16_t *)parts[0]; for (i = 0; i < n; i++) d[i] = srt_f32_to_f16(src[i]); break; }
        case SRT_BF16: { uint16_t *d = (uint16_t *)parts[0]; for (i = 0; i < n; i++) d[i] = srt_f32_to_bf16(src[i]); break; }
        case SRT_Q8: {
            uint64_t r, g, ng = (cols + group - 1) / group;
            int8_t *q = (int8_t *)parts[0];
            uint16_t *sc = (uint16_t *)parts[1];
            for (r = 0; r < rows; r++)
                for (g = 0; g < ng; g++) {
                    uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group;
                    srt__quantize_q8_group(src + r * cols + k0, len, q + r * cols + k0, sc + r * ng + g);
                }
            break;
        }
        default: return srt__fail(SRT_ERR_UNSUPPORTED, "unknown weight format %d", (int)format);
    }
    return SRT_OK;
}

SRT_API srt_status srt_dequantize(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols, float *dst) {
    srt_tensor_parts lay;
    uint64_t i, n;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    n = rows * cols;
    switch (format) {
        case SRT_F32: memcpy(dst, parts[0], (size_t)(n * 4)); break;
        case SRT_F16: { const uint16_t *s = (const uint16_t *)parts[0]; for (i = 0; i < n; i++) dst[i] = srt_f16_to_f32(s[i]); break; }
        case SRT_BF16: { const uint16_t *s = (const uint16_t *)parts[0]; for (i = 0; i < n; i++) dst[i] = srt_bf16_to_f32(s[i]); break; }
        case SRT_Q8: {
            uint64_t ng = (cols + group - 1) / group;
            const int8_t *q = (const int8_t *)parts[0];
            const uint16_t *sc = (const uint16_t *)parts[1];
            for (i = 0; i < n; i++) dst[i] = (float)q[i] * srt_f16_to_f32(sc[(i / cols) * ng + (i % cols) / group]);
            break;
        }
        default: return srt__fail(SRT_ERR_UNSUPPORTED, "unknown weight format %d", (int)format);
    }
    return SRT_OK;
}

/* A weight tensor as the kernels see it. */
typedef struct srt__weights {
    srt_format format;
    uint32_t group;
    uint64_t rows, cols;
    const void *part[4];
} srt__weights;

/* Activations prepared for one kernel call: floats as given, plus int8 codes and one scale per
   group for integer formats (quantized on the fly, per group of the weight's group size). */
typedef struct srt__acts {
    const float *x;          /* n_tok x cols */
    int8_t *q;               /* n_tok x cols, or NULL */
    float *d;                /* n_tok x ngroups */
} srt__acts;

static void srt__quantize_acts_q8(const float *x, uint64_t cols, uint32_t group, int8_t *q, float *d) {
    uint64_t g, ng = (cols + group - 1) / group;
    for (g = 0; g < ng; g++) {
        uint64_t k0 = g * group, len = cols - k0 < group ? cols - k0 : group, i;
        float amax = 0.0f, id;
        for (i = 0; i < len; i++) { float a = fabsf(x[k0 + i]); if (a > amax) amax = a; }
        d[g] = amax / 127.0f;
        id = d[g] > 0.0f ? 1.0f / d[g] : 0.0f;
        for (i = 0; i < len; i++) q[k0 + i] = (int8_t)roundf(x[k0 + i] * id);
    }
}

/* Reference dot products. Float formats: 8 partial sums reduced pairwise (a fixed order, so every
   thread count gives the same bits). Q8: exact int32 sums per group, scaled and summed in order. */
#define SRT__DOT8(LOAD) \
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0}; \
    uint64_t i = 0, j; \
    for (; i + 8 <= n; i += 8) for (j = 0; j < 8; j++) s[j] += LOAD(i + j) * x[i + j]; \
    for (j = 0; i < n; i++, j++) s[j] += LOAD(i) * x[i]; \
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));

static float srt__dot_f32(const float *w, const float *x, uint64_t n) {
#define SRT__LOAD_F32(k) w[k]
    SRT__DOT8(SRT__LOAD_F32)
#undef SRT__LOAD_F32
}
static float srt__dot_f16(const uint16_t *w, const float *x, uint64_t n) {
#define SRT__LOAD_F16(k) srt_f16_to_f32(w[k])
    SRT__DOT8(SRT__LOAD_F16)
#undef SRT__LOAD_F16
}
static float srt__dot_bf16(const uint16_t *w, const float *x, uint64_t n) {
#define SRT__LOAD_BF16(k) srt_bf16_to_f32(w[k])
    SRT__DOT8(SRT__LOAD_BF16)
#undef SRT__LOAD_BF16
}
static float srt__dot_q8(const int8_t *w, const uint16_t *ws, const int8_t *q, const float *d, uint64_t n, uint32_t group) {
    float sum = 0.0f;
    uint64_t k0, g = 0;
    for (k0 = 0; k0 < n; k0 += group, g++) {
        uint64_t len = n - k0 < group ? n - k0 : group, i;
        int32_t acc = 0;
        for (i = 0; i < len; i++) acc += (int32_t)w[k0 + i] * (int32_t)q[k0 + i];
        sum += (float)acc * (srt_f16_to_f32(ws[g]) * d[g]);
    }
    return sum;
}

/* y = row `r` of W times token `t` of the activations. */
static float srt__dot_row(const srt__weights *w, uint64_t r, const srt__acts *a, uint64_t t) {
    uint64_t K = w->cols;
    switch (w->format) {
        case SRT_F32: return srt__dot_f32((const float *)w->part[0] + r * K, a->x + t * K, K);
        case SRT_F16: return srt__dot_f16((const uint16_t *)w->part[0] + r * K, a->x + t * K, K);
        case SRT_BF16: return srt__dot_bf16((const uint16_t *)w->part[0] + r * K, a->x + t * K, K);
        case SRT_Q8: {
            uint64_t ng = (K + w->group - 1) / w->group;
            return srt__dot_q8((const int8_t *)w->part[0] + r * K, (const uint16_t *)w->part[1] + r * ng,
                               a->q + t * K, a->d + t * ng, K, w->group);
        }
        default: return 0.0f;
    }
}

/* Row of W as floats (embedding lookup). */
static void srt__weights_row(const srt__weights *w, uint64_t r, float *out) {
    const void *parts[4];
    uint64_t K = w->cols;
    switch (w->format) {
        case SRT_F32: parts[0] = (const float *)w->part[0] + r * K; break;
        case SRT_F16: case SRT_BF16: parts[0] = (const uint16_t *)w->part[0] + r * K; break;
        case SRT_Q8: parts[0] = (const int8_t *)w->part[0] + r * K;
                     parts[1] = (const uint16_t *)w->part[1] + r * ((K + w->group - 1) / w->group); break;
        default: return;
    }
    srt_dequantize(w->format, w->group, parts, 1, K, out);
}

SRT_API srt_status srt_matvec(srt_format format, uint32_t group, const void *const *parts, uint64_t rows, uint64_t cols,
                              const float *x, float *y) {
    srt_tensor_parts lay;
    srt__weights w;
    srt__acts a;
    uint64_t r;
    int i;
    srt_status st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return st;
    memset(&w, 0, sizeof w);
    w.format = format; w.group = group; w.rows = rows; w.cols = cols;
    for (i = 0; i < lay.n_parts; i++) w.part[i] = parts[i];
    a.x = x; a.q = NULL; a.d = NULL;
    if (srt__format_is_grouped(format)) {
        a.q = (int8_t *)SRT_MALLOC((size_t)cols);
        a.d = (float *)SRT_MALLOC((size_t)((cols + group - 1) / group) * sizeof(float));
        if (!a.q || !a.d) { SRT_FREE(a.q); SRT_FREE(a.d); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_matvec: out of memory"); }
        srt__quantize_acts_q8(x, cols, group, a.q, a.d);
    }
    for (r = 0; r < rows; r++) y[r] = srt__dot_row(&w, r, &a, 0);
    SRT_FREE(a.q); SRT_FREE(a.d);
    return SRT_OK;
}

/* ---------------------------------------------------------------- 8 .srt writer */
/* File layout (formats/SRT.md): 128-byte header | tensor data parts, each 64-byte aligned |
   metadata | tensor directory. Data goes out as tensors arrive, so the writer never holds a
   model in memory; the header, written last, points at the metadata and directory. */
#define SRT__MAGIC "SRTM"
#define SRT__FILE_VERSION 1u
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
};

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

static void srt__writer_free(srt_writer *w) {
    if (w->f) fclose(w->f);
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
    void *parts[4] = {NULL, NULL, NULL, NULL};
    uint64_t offs[4];
    uint32_t crcs[4];
    srt_status st;
    int i;
    if (srt__format_is_grouped(format) && group == 0) group = SRT__Q8_DEFAULT_GROUP;
    if (!data) return srt__fail(SRT_ERR_INVALID_ARG, "srt_writer_add_tensor: NULL data for '%s'", name ? name : "");
    st = srt_tensor_layout(format, rows, cols, group, &lay);
    if (st != SRT_OK) return srt__fail(st, "tensor '%s': %s", name ? name : "", srt_last_error());
    st = srt__writer_name(w, 't', name);
    if (st != SRT_OK) return st;
    for (i = 0; i < lay.n_parts; i++)
        if ((uint64_t)(size_t)lay.size[i] != lay.size[i] || !(parts[i] = SRT_MALLOC((size_t)lay.size[i]))) {
            st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "tensor '%s': out of memory for %llu bytes", name, (unsigned long long)lay.size[i]);
            goto done;
        }
    st = srt_quantize(format, group, data, rows, cols, parts);
    if (st != SRT_OK) { st = srt__fail(st, "tensor '%s': %s", name, srt_last_error()); goto done; }
    for (i = 0; i < lay.n_parts; i++) {
        static const unsigned char zeros[SRT__ALIGN] = {0};
        uint64_t pad = (SRT__ALIGN - w->pos % SRT__ALIGN) % SRT__ALIGN;
        if ((st = srt__writer_bytes(w, zeros, pad)) != SRT_OK) goto done;
        offs[i] = w->pos;
        crcs[i] = srt__crc32_update(&w->crc, 0, parts[i], lay.size[i]);
        if ((st = srt__writer_bytes(w, parts[i], lay.size[i])) != SRT_OK) goto done;
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
    if (w->dir.oom) st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_writer: out of memory");
done:
    for (i = 0; i < 4; i++) SRT_FREE(parts[i]);
    return st;
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
#ifdef _WIN32
    if (!MoveFileExA(w->tmp_path, w->path, MOVEFILE_REPLACE_EXISTING)) {
#else
    if (rename(w->tmp_path, w->path) != 0) {
#endif
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
} srt__tensor;

typedef struct srt__layer {
    const float *attn_norm, *ffn_norm, *bq, *bk, *bv;
    srt__weights wq, wk, wv, wo, gate, down, up;
} srt__layer;

/* Tokenizer data (section 10 fills and uses it). */
enum { SRT__TOK_NONE = 0, SRT__TOK_SPM = 1, SRT__TOK_UNSUPPORTED = 2 };
enum { SRT__TT_NORMAL = 1, SRT__TT_UNKNOWN = 2, SRT__TT_CONTROL = 3, SRT__TT_USER = 4, SRT__TT_UNUSED = 5, SRT__TT_BYTE = 6 };
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
    int32_t byte_token[256];   /* -1 if the vocab lacks <0xNN> */
    int bos, eos, unk;
    int add_bos, add_space_prefix;
    char *arena;
} srt__vocab;

struct srt_model {
    srt_allocator alloc;
    srt__map map;
    srt_pool *pool;
    int own_pool;
    char *arena;               /* keys, strings */
    srt__meta *meta;
    uint32_t n_meta;
    srt__tensor *tensors;
    uint32_t n_tensors;
    char *tensor_names;
    /* hyperparameters */
    char arch[32];
    int n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim, n_ctx_train;
    float rope_theta, norm_eps;
    int rope_neox;
    int rope_scaling;          /* 0 none, 1 linear, 2 llama3 */
    float rope_factor, rope_low_freq, rope_high_freq;
    float rope_orig_ctx;
    /* weights */
    srt__weights tok_embd, output;
    const float *output_norm;
    srt__layer *layers;
    srt__vocab vocab;
    srt_model_info info;
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
                                 uint64_t data_end) {
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
        if (srt_tensor_layout((srt_format)fmt, rows, cols, group, &lay) != SRT_OK)
            return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': %s", path, t->name, srt_last_error());
        if ((int)nparts != lay.n_parts) return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': %u parts, format %s needs %d", path, t->name, nparts, srt_format_name((srt_format)fmt), lay.n_parts);
        t->w.format = (srt_format)fmt; t->w.group = group; t->w.rows = rows; t->w.cols = cols; t->n_parts = (int)nparts;
        for (j = 0; j < nparts; j++) {
            uint32_t kind, crc;
            uint64_t off, sz;
            if (!srt__cur_u32(&c, &kind) || !srt__cur_u64(&c, &off) || !srt__cur_u64(&c, &sz) || !srt__cur_u32(&c, &crc))
                return srt__fail(SRT_ERR_FORMAT, "%s: tensor '%s': directory entry truncated", path, t->name);
            if (kind != lay.kind[j] || sz != lay.size[j])
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
    }
    if (c.p != c.end) return srt__fail(SRT_ERR_FORMAT, "%s: %llu stray bytes after the tensor directory", path, (unsigned long long)(c.end - c.p));
    return SRT_OK;
}

static srt__tensor *srt__find_tensor(srt_model *m, const char *name) {
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++) if (strcmp(m->tensors[i].name, name) == 0) return &m->tensors[i];
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
    if (strcmp(s, "llama") != 0 && strcmp(s, "qwen2") != 0) return srt__fail(SRT_ERR_UNSUPPORTED, "architecture '%s' is not supported (llama, qwen2)", s);
    snprintf(m->arch, sizeof m->arch, "%s", s);
    m->n_embd = srt__meta_u32_or(m, SRT__KEY("embedding_length"), 0);
    m->n_ff = srt__meta_u32_or(m, SRT__KEY("feed_forward_length"), 0);
    m->n_layer = srt__meta_u32_or(m, SRT__KEY("block_count"), 0);
    m->n_head = srt__meta_u32_or(m, SRT__KEY("attention.head_count"), 0);
    m->n_head_kv = srt__meta_u32_or(m, SRT__KEY("attention.head_count_kv"), (uint32_t)m->n_head);
    m->n_ctx_train = srt__meta_u32_or(m, SRT__KEY("context_length"), 2048);
    if (m->n_embd <= 0 || m->n_embd > 65536 || m->n_ff <= 0 || m->n_ff > 1 << 20 || m->n_layer <= 0 || m->n_layer > 1024 ||
        m->n_head <= 0 || m->n_head > 1024 || m->n_head_kv <= 0 || m->n_head % m->n_head_kv != 0 || m->n_ctx_train <= 0)
        return srt__fail(SRT_ERR_FORMAT, "bad hyperparameters: embd %d ff %d layers %d heads %d kv heads %d ctx %d",
                         m->n_embd, m->n_ff, m->n_layer, m->n_head, m->n_head_kv, m->n_ctx_train);
    m->head_dim = srt__meta_u32_or(m, SRT__KEY("attention.key_length"), (uint32_t)(m->n_embd / m->n_head));
    m->rope_dim = srt__meta_u32_or(m, SRT__KEY("rope.dimension_count"), (uint32_t)m->head_dim);
    if (m->head_dim <= 0 || m->head_dim > 1024 || m->rope_dim <= 0 || m->rope_dim > m->head_dim || m->rope_dim % 2)
        return srt__fail(SRT_ERR_FORMAT, "bad head dimensions: head %d rope %d", m->head_dim, m->rope_dim);
    m->rope_theta = srt__meta_f32_or(m, SRT__KEY("rope.freq_base"), 10000.0f);
    m->norm_eps = srt__meta_f32_or(m, SRT__KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
    m->rope_neox = srt__meta_u32_or(m, SRT__KEY("rope.neox"), strcmp(m->arch, "qwen2") == 0) != 0;
    if (!(m->rope_theta > 0.0f) || !(m->norm_eps > 0.0f) || m->norm_eps > 1.0f) return srt__fail(SRT_ERR_FORMAT, "bad rope base %g or norm epsilon %g", m->rope_theta, m->norm_eps);
    m->rope_scaling = 0;
    if (srt_model_meta_str(m, SRT__KEY("rope.scaling.type"), &s) && strcmp(s, "none") != 0) {
        if (strcmp(s, "linear") == 0) m->rope_scaling = 1;
        else if (strcmp(s, "llama3") == 0) m->rope_scaling = 2;
        else return srt__fail(SRT_ERR_UNSUPPORTED, "rope scaling '%s' is not supported (linear, llama3)", s);
        m->rope_factor = srt__meta_f32_or(m, SRT__KEY("rope.scaling.factor"), 1.0f);
        m->rope_low_freq = srt__meta_f32_or(m, SRT__KEY("rope.scaling.low_freq_factor"), 1.0f);
        m->rope_high_freq = srt__meta_f32_or(m, SRT__KEY("rope.scaling.high_freq_factor"), 4.0f);
        m->rope_orig_ctx = (float)srt__meta_u32_or(m, SRT__KEY("rope.scaling.original_context_length"), 8192);
        if (!(m->rope_factor >= 1.0f) || !(m->rope_high_freq > m->rope_low_freq) || !(m->rope_orig_ctx > 0.0f))
            return srt__fail(SRT_ERR_FORMAT, "bad rope scaling parameters");
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
    m->layers = (srt__layer *)srt__alloc(&m->alloc, (size_t)m->n_layer * sizeof *m->layers);
    if (!m->layers) return srt__fail(SRT_ERR_OUT_OF_MEMORY, "out of memory");
    for (l = 0; l < m->n_layer; l++) {
        srt__layer *L = &m->layers[l];
#define SRT__NAME(s) (snprintf(name, sizeof name, "blk.%d." s, l), name)
        if ((st = srt__bind_vec(m, SRT__NAME("attn_norm.weight"), E, 0, &L->attn_norm)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("ffn_norm.weight"), E, 0, &L->ffn_norm)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_q.weight"), Q, E, 0, &L->wq)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_k.weight"), KV, E, 0, &L->wk)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_v.weight"), KV, E, 0, &L->wv)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("attn_output.weight"), E, Q, 0, &L->wo)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("ffn_gate.weight"), F, E, 0, &L->gate)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("ffn_down.weight"), E, F, 0, &L->down)) != SRT_OK ||
            (st = srt__bind(m, SRT__NAME("ffn_up.weight"), F, E, 0, &L->up)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_q.bias"), Q, 1, &L->bq)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_k.bias"), KV, 1, &L->bk)) != SRT_OK ||
            (st = srt__bind_vec(m, SRT__NAME("attn_v.bias"), KV, 1, &L->bv)) != SRT_OK)
            return st;
#undef SRT__NAME
    }
    for (i = 0; i < m->n_tensors; i++)
        if (!m->tensors[i].used) srt__log(SRT_LOG_WARN, "tensor '%s' is not used by the %s graph", m->tensors[i].name, m->arch);
    return SRT_OK;
}

static srt_status srt__vocab_load(srt_model *m);   /* section 10 */
static void srt__vocab_free(srt_model *m);

SRT_API void srt_model_free(srt_model *m) {
    srt_allocator a;
    if (!m) return;
    a = m->alloc;
    srt__vocab_free(m);
    if (m->own_pool) srt_pool_destroy(m->pool);
    srt__map_close(&m->map);
    srt__free(&a, m->tensor_names);
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
    if ((st = srt__map_open(path, &m->map)) != SRT_OK) return st;
    h = m->map.data;
    fsize = m->map.size;
    if (fsize < SRT__HEADER_SIZE) return srt__fail(SRT_ERR_FORMAT, "%s: %llu bytes is too short for an .srt header (%u)", path, (unsigned long long)fsize, SRT__HEADER_SIZE);
    if (memcmp(h, SRT__MAGIC, 4) != 0) return srt__fail(SRT_ERR_FORMAT, "%s: not an .srt file (bad magic; convert checkpoints with srt-pack)", path);
    srt__crc32_init(&crct);
    if (srt__crc32_update(&crct, 0, h, 124) != (uint32_t)srt__get_le(h + 124, 4)) return srt__fail(SRT_ERR_CHECKSUM, "%s: header checksum mismatch (corrupted header)", path);
    version = (uint32_t)srt__get_le(h + 4, 4);
    if (version != SRT__FILE_VERSION) return srt__fail(SRT_ERR_UNSUPPORTED, "%s: .srt version %u, this build reads version %u", path, version, SRT__FILE_VERSION);
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
    if ((st = srt__parse_dir(m, path, h + dir_off, dir_size, n_tensors, data_end)) != SRT_OK) return st;
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
    /* info */
    memset(&m->info, 0, sizeof m->info);
    m->info.architecture = m->arch;
    if (!srt_model_meta_str(m, "general.name", &m->info.name)) m->info.name = "";
    m->info.n_vocab = m->n_vocab; m->info.n_embd = m->n_embd; m->info.n_ff = m->n_ff; m->info.n_layer = m->n_layer;
    m->info.n_head = m->n_head; m->info.n_head_kv = m->n_head_kv; m->info.head_dim = m->head_dim; m->info.n_ctx_train = m->n_ctx_train;
    m->info.file_bytes = m->map.size;
    m->info.bos = m->vocab.bos; m->info.eos = m->vocab.eos;
    {
        uint64_t biggest = 0;
        for (i = 0; i < m->n_tensors; i++) {
            uint64_t b = 0;
            int j;
            for (j = 0; j < m->tensors[i].n_parts; j++) b += m->tensors[i].part_size[j];
            m->info.weight_bytes += b;
            if (b > biggest) { biggest = b; m->info.format = m->tensors[i].w.format; }
        }
    }
    *out = m;
    return SRT_OK;
}

SRT_API void srt_model_get_info(const srt_model *m, srt_model_info *info) { if (m && info) *info = m->info; }

/* ---------------------------------------------------------------- 10 tokenizer */
/* SentencePiece-style BPE as llama.cpp runs it on GGUF "llama" vocabs: spaces become U+2581, a
   dummy-prefix space is added, the text is split into UTF-8 characters, and adjacent symbols are
   merged best-score-first (ties: leftmost) while the merged piece is in the vocab; characters not
   in the vocab fall back to <0xNN> byte tokens. */
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

static void srt__vocab_free(srt_model *m) {
    srt__vocab *v = &m->vocab;
    srt__free(&m->alloc, (void *)v->piece); srt__free(&m->alloc, v->piece_len);
    srt__free(&m->alloc, (void *)v->text); srt__free(&m->alloc, v->text_len);
    srt__free(&m->alloc, v->score); srt__free(&m->alloc, v->type);
    srt__free(&m->alloc, v->hash); srt__free(&m->alloc, v->arena);
    memset(v, 0, sizeof *v);
}

static int srt__hexval(int c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

static srt_status srt__vocab_load(srt_model *m) {
    srt__vocab *v = &m->vocab;
    const srt__meta *tokens = srt__find_meta(m, "tokenizer.ggml.tokens"), *scores, *types;
    const char *model_name = "";
    srt__cursor c;
    uint64_t bytes = 0;
    uint32_t i, n, hsize;
    char *a;
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
    if (strcmp(model_name, "llama") == 0) v->kind = SRT__TOK_SPM;
    else v->kind = SRT__TOK_UNSUPPORTED;
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
    v->add_bos = srt__meta_u32_or(m, "tokenizer.ggml.add_bos_token", v->kind == SRT__TOK_SPM && v->bos >= 0) != 0;
    v->add_space_prefix = srt__meta_u32_or(m, "tokenizer.ggml.add_space_prefix", 1) != 0;
    return SRT_OK;
}

typedef struct srt__sym { int prev, next; const char *text; uint32_t n; } srt__sym;
typedef struct srt__bigram { float score; int left, right; uint32_t size; } srt__bigram;
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

/* heap of bigrams: best = highest score, then leftmost */
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
    b.score = v->score[id]; b.left = left; b.right = right; b.size = sym[left].n + sym[right].n;
    srt__heap_push(heap, nheap, b);
}

static srt_status srt__spm_encode(const srt__vocab *v, const char *text, size_t len, int space_prefix, srt__ids *out) {
    static const uint8_t utf8_len[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
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
        uint32_t cl = utf8_len[(unsigned char)buf[i] >> 4];
        if (cl > n - i) cl = (uint32_t)(n - i);
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

static srt_status srt__tokenize(const srt_model *m, const char *text, size_t len, int flags, srt__ids *out) {
    const srt__vocab *v = &m->vocab;
    int add_bos;
    if (v->kind == SRT__TOK_NONE) return srt__fail(SRT_ERR_NO_TOKENIZER, "the model has no tokenizer");
    if (v->kind != SRT__TOK_SPM) {
        const char *name = "?";
        srt_model_meta_str(m, "tokenizer.ggml.model", &name);
        return srt__fail(SRT_ERR_UNSUPPORTED, "tokenizer model '%s' is not supported yet (llama/SentencePiece only)", name);
    }
    if (len && !text) return srt__fail(SRT_ERR_INVALID_ARG, "srt_tokenize: NULL text");
    add_bos = (flags & SRT_TOKENIZE_NO_BOS) ? 0 : (flags & SRT_TOKENIZE_ADD_BOS) ? 1 : v->add_bos;
    if (add_bos && v->bos >= 0) srt__ids_push(out, v->bos);
    return srt__spm_encode(v, text, len, v->add_space_prefix && !(flags & SRT_TOKENIZE_NO_SPACE_PREFIX), out);
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

static int32_t srt__argmax(const float *x, int n) {
    int i, best = 0;
    for (i = 1; i < n; i++) if (x[i] > x[best]) best = i;
    return best;
}

/* logits is scratch (modified). history: the tokens so far, for the repetition penalty. */
static int32_t srt__sample(const srt_sampler_desc *sd, float *logits, int n, const int32_t *history, int n_hist,
                           srt__cand *cand, uint64_t *rng) {
    int i, nc = n;
    float maxl, sum = 0.0f, r, acc;
    if (sd->repeat_penalty > 0.0f && sd->repeat_penalty != 1.0f) {
        int last = sd->repeat_last_n > 0 ? sd->repeat_last_n : 64, start = n_hist > last ? n_hist - last : 0, j;
        for (i = start; i < n_hist; i++) {
            int32_t t = history[i];
            for (j = start; j < i && history[j] != t; j++) {}
            if (j < i || t < 0 || t >= n) continue;              /* penalise each token once */
            logits[t] = logits[t] > 0.0f ? logits[t] / sd->repeat_penalty : logits[t] * sd->repeat_penalty;
        }
    }
    if (!(sd->temperature > 0.0f)) return srt__argmax(logits, n);
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
    r = srt__rng_uniform(rng) * sum;
    acc = 0.0f;
    for (i = 0; i < nc; i++) { acc += cand[i].p; if (r < acc) return cand[i].id; }
    return cand[nc - 1].id;
}

/* ---------------------------------------------------------------- 12 transformer forward */
struct srt_session {
    srt_model *m;
    srt_session_desc d;
    int n_ctx, n_batch, kv_f16, kv_dim;
    void *k_cache, *v_cache;          /* [layer][n_ctx][kv_dim], f32 or f16 */
    int32_t *tokens;                  /* n_ctx: the sequence (evaluated + pending) */
    int n_tokens, n_eval;
    float *logits;                    /* n_vocab */
    int has_logits;
    float *rope_freq;                 /* rope_dim / 2 */
    /* batch scratch, n_batch rows each */
    float *x, *xb, *q, *k, *v, *att, *hb, *hb2;
    int8_t *aq;                       /* activation codes for integer formats */
    float *ad;                        /* activation scales */
    float *scores;                    /* n_threads x n_ctx */
    srt__cand *cand;                  /* sampler */
    float *slog;                      /* sampler logits copy */
    uint64_t rng;
    int64_t cancel;                   /* atomic */
};

typedef struct srt__matmul_job {
    const srt__weights *w;
    srt__acts a;
    int n_tok;
    float *y;                         /* n_tok x rows */
    const float *bias;
} srt__matmul_job;

static void srt__matmul_rows(void *user, int64_t begin, int64_t end, int thread) {
    srt__matmul_job *j = (srt__matmul_job *)user;
    int64_t r;
    int t;
    (void)thread;
    for (r = begin; r < end; r++)
        for (t = 0; t < j->n_tok; t++)
            j->y[(uint64_t)t * j->w->rows + (uint64_t)r] = srt__dot_row(j->w, (uint64_t)r, &j->a, (uint64_t)t) + (j->bias ? j->bias[r] : 0.0f);
}

/* y[n_tok][rows] = x[n_tok][cols] * W^T (+ bias). Rows are split into chunks over the pool; each
   output element is computed by one thread in a fixed order, so results do not depend on threads. */
static void srt__matmul(srt_session *s, const srt__weights *w, const float *x, int n_tok, float *y, const float *bias) {
    srt__matmul_job j;
    srt_tensor_parts row;
    int64_t row_bytes = 0;
    int i;
    j.w = w; j.n_tok = n_tok; j.y = y; j.bias = bias;
    j.a.x = x; j.a.q = NULL; j.a.d = NULL;
    if (srt__format_is_grouped(w->format)) {
        uint64_t t, ng = (w->cols + w->group - 1) / w->group;
        for (t = 0; t < (uint64_t)n_tok; t++) srt__quantize_acts_q8(x + t * w->cols, w->cols, w->group, s->aq + t * w->cols, s->ad + t * ng);
        j.a.q = s->aq; j.a.d = s->ad;
    }
    srt_tensor_layout(w->format, 1, w->cols, w->group, &row);   /* bytes one row reads */
    for (i = 0; i < row.n_parts; i++) row_bytes += (int64_t)row.size[i];
    srt_pool_parallel_for(s->m->pool, (int64_t)w->rows, srt_pool_chunk(s->m->pool, (int64_t)w->rows, row_bytes * n_tok), srt__matmul_rows, &j);
}

static void srt__rmsnorm(float *o, const float *x, const float *w, int n, float eps) {
    float ss = 0.0f;
    int i;
    for (i = 0; i < n; i++) ss += x[i] * x[i];
    ss /= (float)n;
    ss += eps;
    ss = 1.0f / sqrtf(ss);
    for (i = 0; i < n; i++) o[i] = w[i] * (ss * x[i]);
}

static void srt__rope(const srt_session *s, float *vec, int n_heads, int pos) {
    const srt_model *m = s->m;
    int h, i, half = m->rope_dim / 2;
    for (i = 0; i < half; i++) {
        float val = (float)pos * s->rope_freq[i], c = cosf(val), sn = sinf(val);
        for (h = 0; h < n_heads; h++) {
            float *v = vec + h * m->head_dim;
            int a = m->rope_neox ? i : 2 * i, b = m->rope_neox ? i + half : 2 * i + 1;
            float v0 = v[a], v1 = v[b];
            v[a] = v0 * c - v1 * sn;
            v[b] = v0 * sn + v1 * c;
        }
    }
}

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
        }
        s->rope_freq[i] = freq;
    }
}

typedef struct srt__attn_job { srt_session *s; int layer, p0, n_tok; } srt__attn_job;

/* One task = one (token, head): softmax(q . K / sqrt(d)) V over positions 0..pos. */
static void srt__attn_tasks(void *user, int64_t begin, int64_t end, int thread) {
    srt__attn_job *j = (srt__attn_job *)user;
    srt_session *s = j->s;
    const srt_model *m = s->m;
    int hd = m->head_dim, group = m->n_head / m->n_head_kv;
    float *sc = s->scores + (size_t)thread * s->n_ctx, scale = 1.0f / sqrtf((float)hd);
    int64_t task;
    for (task = begin; task < end; task++) {
        int t = (int)(task / m->n_head), h = (int)(task % m->n_head), kvh = h / group, pos = j->p0 + t, i, d;
        const float *q = s->q + (size_t)t * m->n_head * hd + (size_t)h * hd;
        float *out = s->att + (size_t)t * m->n_head * hd + (size_t)h * hd, maxs = -FLT_MAX, sum = 0.0f;
        size_t base = (size_t)j->layer * s->n_ctx * s->kv_dim + (size_t)kvh * hd;
        for (i = 0; i <= pos; i++) {
            float dot = 0.0f;
            size_t at = base + (size_t)i * s->kv_dim;
            if (s->kv_f16) { const uint16_t *k = (const uint16_t *)s->k_cache + at; for (d = 0; d < hd; d++) dot += q[d] * srt_f16_to_f32(k[d]); }
            else { const float *k = (const float *)s->k_cache + at; for (d = 0; d < hd; d++) dot += q[d] * k[d]; }
            sc[i] = dot * scale;
            if (sc[i] > maxs) maxs = sc[i];
        }
        for (i = 0; i <= pos; i++) { sc[i] = expf(sc[i] - maxs); sum += sc[i]; }
        for (i = 0; i <= pos; i++) sc[i] /= sum;
        for (d = 0; d < hd; d++) out[d] = 0.0f;
        for (i = 0; i <= pos; i++) {
            size_t at = base + (size_t)i * s->kv_dim;
            if (s->kv_f16) { const uint16_t *v = (const uint16_t *)s->v_cache + at; for (d = 0; d < hd; d++) out[d] += sc[i] * srt_f16_to_f32(v[d]); }
            else { const float *v = (const float *)s->v_cache + at; for (d = 0; d < hd; d++) out[d] += sc[i] * v[d]; }
        }
    }
}

/* Evaluates n (<= n_batch) tokens at positions n_eval.. and, if want_logits, the logits of the last. */
static void srt__forward_batch(srt_session *s, const int32_t *toks, int n, int want_logits) {
    srt_model *m = s->m;
    int E = m->n_embd, Q = m->n_head * m->head_dim, KV = s->kv_dim, F = m->n_ff, p0 = s->n_eval, l, t, i;
    for (t = 0; t < n; t++) srt__weights_row(&m->tok_embd, (uint64_t)toks[t], s->x + (size_t)t * E);
    for (l = 0; l < m->n_layer; l++) {
        const srt__layer *L = &m->layers[l];
        srt__attn_job aj;
        for (t = 0; t < n; t++) srt__rmsnorm(s->xb + (size_t)t * E, s->x + (size_t)t * E, L->attn_norm, E, m->norm_eps);
        srt__matmul(s, &L->wq, s->xb, n, s->q, L->bq);
        srt__matmul(s, &L->wk, s->xb, n, s->k, L->bk);
        srt__matmul(s, &L->wv, s->xb, n, s->v, L->bv);
        for (t = 0; t < n; t++) {
            size_t at = ((size_t)l * s->n_ctx + (size_t)(p0 + t)) * KV;
            srt__rope(s, s->q + (size_t)t * Q, m->n_head, p0 + t);
            srt__rope(s, s->k + (size_t)t * KV, m->n_head_kv, p0 + t);
            if (s->kv_f16) {
                uint16_t *kc = (uint16_t *)s->k_cache + at, *vc = (uint16_t *)s->v_cache + at;
                for (i = 0; i < KV; i++) { kc[i] = srt_f32_to_f16(s->k[(size_t)t * KV + i]); vc[i] = srt_f32_to_f16(s->v[(size_t)t * KV + i]); }
            } else {
                memcpy((float *)s->k_cache + at, s->k + (size_t)t * KV, (size_t)KV * sizeof(float));
                memcpy((float *)s->v_cache + at, s->v + (size_t)t * KV, (size_t)KV * sizeof(float));
            }
        }
        aj.s = s; aj.layer = l; aj.p0 = p0; aj.n_tok = n;
        srt_pool_parallel_for(m->pool, (int64_t)n * m->n_head, 1, srt__attn_tasks, &aj);
        srt__matmul(s, &L->wo, s->att, n, s->xb, NULL);
        for (i = 0; i < n * E; i++) s->x[i] += s->xb[i];
        for (t = 0; t < n; t++) srt__rmsnorm(s->xb + (size_t)t * E, s->x + (size_t)t * E, L->ffn_norm, E, m->norm_eps);
        srt__matmul(s, &L->gate, s->xb, n, s->hb, NULL);
        srt__matmul(s, &L->up, s->xb, n, s->hb2, NULL);
        for (i = 0; i < n * F; i++) { float g = s->hb[i]; s->hb[i] = g * (1.0f / (1.0f + expf(-g))) * s->hb2[i]; }   /* SwiGLU */
        srt__matmul(s, &L->down, s->hb, n, s->xb, NULL);
        for (i = 0; i < n * E; i++) s->x[i] += s->xb[i];
    }
    s->n_eval += n;
    s->has_logits = 0;
    if (want_logits) {
        srt__rmsnorm(s->xb, s->x + (size_t)(n - 1) * E, m->output_norm, E, m->norm_eps);
        srt__matmul(s, &m->output, s->xb, 1, s->logits, NULL);
        s->has_logits = 1;
    }
}

/* ---------------------------------------------------------------- 13 sessions and generation */
SRT_API void srt_session_destroy(srt_session *s) {
    const srt_allocator *a;
    if (!s) return;
    a = &s->m->alloc;
    srt__free(a, s->k_cache); srt__free(a, s->v_cache); srt__free(a, s->tokens); srt__free(a, s->logits);
    srt__free(a, s->rope_freq); srt__free(a, s->x); srt__free(a, s->xb); srt__free(a, s->q); srt__free(a, s->k);
    srt__free(a, s->v); srt__free(a, s->att); srt__free(a, s->hb); srt__free(a, s->hb2); srt__free(a, s->aq);
    srt__free(a, s->ad); srt__free(a, s->scores); srt__free(a, s->cand); srt__free(a, s->slog);
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
    if (s->d.n_ctx < 0 || s->d.n_batch < 0 || s->d.n_ctx > (1 << 22)) { srt_session_destroy(s); return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_create: n_ctx %d / n_batch %d out of range", s->d.n_ctx, s->d.n_batch); }
    s->n_ctx = s->d.n_ctx ? s->d.n_ctx : (m->n_ctx_train < 4096 ? m->n_ctx_train : 4096);
    s->n_batch = s->d.n_batch ? s->d.n_batch : 32;
    if (s->n_batch > s->n_ctx) s->n_batch = s->n_ctx;
    s->kv_f16 = s->d.kv_type != SRT_KV_F32;
    s->kv_dim = m->n_head_kv * m->head_dim;
    s->rng = s->d.sampler.seed ? s->d.sampler.seed : 0x5EED5EEDull;
    B = (size_t)s->n_batch; E = (size_t)m->n_embd; Q = (size_t)m->n_head * m->head_dim; KV = (size_t)s->kv_dim; F = (size_t)m->n_ff;
    maxk = E > Q ? E : Q; if (F > maxk) maxk = F;
    kv_bytes = (uint64_t)m->n_layer * (uint64_t)s->n_ctx * KV * (s->kv_f16 ? 2 : 4);
    if ((uint64_t)(size_t)kv_bytes != kv_bytes) { srt_session_destroy(s); return srt__fail(SRT_ERR_OUT_OF_MEMORY, "KV cache of %llu bytes does not fit the address space", (unsigned long long)kv_bytes); }
    s->k_cache = srt__alloc(a, (size_t)kv_bytes);
    s->v_cache = srt__alloc(a, (size_t)kv_bytes);
    s->tokens = (int32_t *)srt__alloc(a, (size_t)s->n_ctx * sizeof(int32_t));
    s->logits = (float *)srt__alloc(a, (size_t)m->n_vocab * sizeof(float));
    s->slog = (float *)srt__alloc(a, (size_t)m->n_vocab * sizeof(float));
    s->cand = (srt__cand *)srt__alloc(a, (size_t)m->n_vocab * sizeof(srt__cand));
    s->rope_freq = (float *)srt__alloc(a, (size_t)m->rope_dim / 2 * sizeof(float));
    s->x = (float *)srt__alloc(a, B * E * sizeof(float));
    s->xb = (float *)srt__alloc(a, B * maxk * sizeof(float));
    s->q = (float *)srt__alloc(a, B * Q * sizeof(float));
    s->k = (float *)srt__alloc(a, B * KV * sizeof(float));
    s->v = (float *)srt__alloc(a, B * KV * sizeof(float));
    s->att = (float *)srt__alloc(a, B * Q * sizeof(float));
    s->hb = (float *)srt__alloc(a, B * F * sizeof(float));
    s->hb2 = (float *)srt__alloc(a, B * F * sizeof(float));
    s->aq = (int8_t *)srt__alloc(a, B * maxk);
    s->ad = (float *)srt__alloc(a, B * maxk * sizeof(float));
    s->scores = (float *)srt__alloc(a, (size_t)srt_pool_threads(m->pool) * (size_t)s->n_ctx * sizeof(float));
    if (!s->k_cache || !s->v_cache || !s->tokens || !s->logits || !s->slog || !s->cand || !s->rope_freq || !s->x || !s->xb ||
        !s->q || !s->k || !s->v || !s->att || !s->hb || !s->hb2 || !s->aq || !s->ad || !s->scores) {
        srt_session_destroy(s);
        return srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_session_create: out of memory (KV cache %llu MB for %d tokens)", (unsigned long long)(2 * kv_bytes >> 20), s->n_ctx);
    }
    srt__rope_init(s);
    *out = s;
    return SRT_OK;
}

SRT_API void srt_session_reset(srt_session *s) {
    if (!s) return;
    s->n_tokens = s->n_eval = 0;
    s->has_logits = 0;
    s->rng = s->d.sampler.seed ? s->d.sampler.seed : 0x5EED5EEDull;
}
SRT_API int srt_session_pos(const srt_session *s) { return s ? s->n_tokens : 0; }
SRT_API int srt_session_n_ctx(const srt_session *s) { return s ? s->n_ctx : 0; }
SRT_API const int32_t *srt_session_tokens(const srt_session *s) { return s ? s->tokens : NULL; }
SRT_API void srt_session_cancel(srt_session *s) { if (s) srt__atomic_store(&s->cancel, 1); }
static int srt__take_cancel(srt_session *s) { return srt__atomic_load(&s->cancel) ? (srt__atomic_store(&s->cancel, 0), 1) : 0; }

/* Evaluates the pending tokens (s->tokens[n_eval..n_tokens)) in batches. */
static srt_status srt__eval_pending(srt_session *s) {
    while (s->n_eval < s->n_tokens) {
        int n = s->n_tokens - s->n_eval;
        if (n > s->n_batch) n = s->n_batch;
        if (srt__take_cancel(s)) {
            s->n_tokens = s->n_eval;      /* drop what was not evaluated */
            s->has_logits = 0;
            return srt__fail(SRT_ERR_CANCELLED, "cancelled after %d tokens", s->n_eval);
        }
        srt__forward_batch(s, s->tokens + s->n_eval, n, s->n_eval + n == s->n_tokens);
    }
    return SRT_OK;
}

/* True while the sequence holds no text yet (nothing, or only BOS): text added now starts the
   text, so it takes the SentencePiece dummy-prefix space, and decoding drops that space again. */
static int srt__at_text_start(const srt_session *s) {
    return s->n_tokens == 0 || (s->n_tokens == 1 && s->tokens[0] == s->m->vocab.bos);
}

SRT_API srt_status srt_session_feed(srt_session *s, const int32_t *tokens, int n) {
    int i;
    if (!s || n < 0 || (n > 0 && !tokens)) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_feed: bad arguments");
    if (n > s->n_ctx - s->n_tokens)
        return srt__fail(SRT_ERR_CONTEXT_FULL, "%d tokens do not fit: %d of %d context positions are used", n, s->n_tokens, s->n_ctx);
    for (i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= s->m->n_vocab) return srt__fail(SRT_ERR_INVALID_ARG, "token %d (id %d) is outside the vocabulary (%d)", i, tokens[i], s->m->n_vocab);
    memcpy(s->tokens + s->n_tokens, tokens, (size_t)n * sizeof(int32_t));
    s->n_tokens += n;
    return srt__eval_pending(s);
}

SRT_API srt_status srt_session_prompt(srt_session *s, const char *text, int flags) {
    srt__ids t = {NULL, 0, 0, 0};
    srt_status st;
    if (!s) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_prompt: NULL session");
    if (s->n_tokens > 0 && !(flags & SRT_TOKENIZE_ADD_BOS)) flags |= SRT_TOKENIZE_NO_BOS;
    if (!srt__at_text_start(s)) flags |= SRT_TOKENIZE_NO_SPACE_PREFIX;   /* a continuation */
    st = srt__tokenize(s->m, text ? text : "", text ? strlen(text) : 0, flags, &t);
    if (st == SRT_OK) st = srt_session_feed(s, t.p, t.n);
    SRT_FREE(t.p);
    return st;
}

SRT_API const float *srt_session_logits(srt_session *s) {
    if (!s || srt__eval_pending(s) != SRT_OK || !s->has_logits) return NULL;
    return s->logits;
}

SRT_API srt_status srt_session_next(srt_session *s, int32_t *token) {
    srt_status st;
    int32_t t;
    if (!s || !token) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next: NULL argument");
    if ((st = srt__eval_pending(s)) != SRT_OK) return st;
    if (!s->has_logits) return srt__fail(SRT_ERR_INVALID_ARG, "srt_session_next: nothing to continue (feed a prompt first)");
    if (s->n_tokens >= s->n_ctx) return srt__fail(SRT_ERR_CONTEXT_FULL, "the context window (%d tokens) is full", s->n_ctx);
    memcpy(s->slog, s->logits, (size_t)s->m->n_vocab * sizeof(float));
    t = srt__sample(&s->d.sampler, s->slog, s->m->vocab.n, s->tokens, s->n_tokens, s->cand, &s->rng);   /* padding rows never sampled */
    s->tokens[s->n_tokens++] = t;
    *token = t;
    return SRT_OK;
}

SRT_API srt_status srt_generate(srt_session *s, const srt_generate_desc *g, srt_generate_result *result) {
    srt_generate_result r;
    srt_utf8_stream us;
    srt_status st = SRT_OK;
    double t0;
    char *buf;
    int cap, start, stream_flags = 0;
    memset(&r, 0, sizeof r);
    memset(&us, 0, sizeof us);
    if (result) *result = r;
    if (!s || !g) return srt__fail(SRT_ERR_INVALID_ARG, "srt_generate: NULL argument");
    srt__atomic_store(&s->cancel, 0);
    t0 = srt__now_ms();
    start = s->n_tokens;
    /* generated text that starts the text drops the dummy-prefix space when decoded */
    if (s->m->vocab.add_space_prefix && srt__at_text_start(s) && !(g->prompt && g->prompt[0]))
        stream_flags = SRT_STREAM_STRIP_LEADING_SPACE;
    if (g->prompt && g->prompt[0]) st = srt_session_prompt(s, g->prompt, g->prompt_flags);
    else if (s->n_tokens == 0 && s->m->vocab.bos >= 0) st = srt_session_feed(s, &s->m->vocab.bos, 1);
    r.n_prompt = s->n_tokens - start;
    r.prompt_ms = srt__now_ms() - t0;
    cap = 4096;
    buf = (char *)SRT_MALLOC((size_t)cap);
    if (!buf) st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_generate: out of memory");
    t0 = srt__now_ms();
    while (st == SRT_OK && (g->max_tokens <= 0 || r.n_generated < g->max_tokens)) {
        int32_t tok;
        int n;
        if (srt__take_cancel(s)) { r.stopped_by = 3; st = srt__fail(SRT_ERR_CANCELLED, "generation cancelled"); break; }
        st = srt_session_next(s, &tok);
        if (st == SRT_ERR_CONTEXT_FULL) { r.stopped_by = 4; break; }
        if (st == SRT_ERR_CANCELLED) { r.stopped_by = 3; break; }
        if (st != SRT_OK) break;
        if (tok == s->m->vocab.eos && g->stop_at_eos >= 0) { r.stopped_by = 1; break; }
        r.n_generated++;
        if ((int)(6 * (uint64_t)s->m->vocab.text_len[tok] + 16) > cap) {
            char *nb = (char *)SRT_REALLOC(buf, 6 * (size_t)s->m->vocab.text_len[tok] + 16);
            if (!nb) { st = srt__fail(SRT_ERR_OUT_OF_MEMORY, "srt_generate: out of memory"); break; }
            buf = nb; cap = (int)(6 * s->m->vocab.text_len[tok] + 16);
        }
        n = srt_utf8_stream_token(&us, s->m, tok, stream_flags, buf, cap);
        if (n > 0 && g->on_text && g->on_text(buf, n, tok, g->user)) { r.stopped_by = 2; break; }
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

/* ---------------------------------------------------------------- 14 chat templates */
/* Each format is written from its reference Jinja template (the one named in the public enum);
   where a template trims content (Jinja's trim / strip) so do we, with ASCII whitespace. */
#include <time.h>
static const char *const srt__chat_names[SRT_CHAT_FORMAT_COUNT] = {"chatml", "llama3", "llama2", "mistral", "mistral-v3", "phi3", "zephyr", "gemma"};

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

/* The family's usual BOS/EOS/stop texts. */
static void srt__chat_defaults(srt_chat_template *t) {
    static const char *const bos[SRT_CHAT_FORMAT_COUNT] = {"", "<|begin_of_text|>", "<s>", "<s>", "<s>", "<s>", "<s>", "<bos>"};
    static const char *const eos[SRT_CHAT_FORMAT_COUNT] = {"<|im_end|>", "<|eot_id|>", "</s>", "</s>", "</s>", "<|endoftext|>", "</s>", "<eos>"};
    static const char *const stop[SRT_CHAT_FORMAT_COUNT][2] = {
        {"<|im_end|>", ""}, {"<|eot_id|>", "<|eom_id|>"}, {"</s>", ""}, {"</s>", ""}, {"</s>", ""},
        {"<|end|>", "<|endoftext|>"}, {"</s>", ""}, {"<end_of_turn>", "<eos>"}};
    srt__chat_copy(t->bos, sizeof t->bos, bos[t->format]);
    srt__chat_copy(t->eos, sizeof t->eos, eos[t->format]);
    memset(t->stop, 0, sizeof t->stop);
    srt__chat_copy(t->stop[0], sizeof t->stop[0], stop[t->format][0]);
    srt__chat_copy(t->stop[1], sizeof t->stop[1], stop[t->format][1]);
}

/* "DD Mon YYYY" for today (UTC), from time() without the non-reentrant localtime(). */
static void srt__chat_today(char *out, size_t cap) {
    static const char *const mon[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
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
    snprintf(out, cap, "%02d %s %04d", (int)d, mon[m - 1], (int)y);
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

/* The format a Jinja template text belongs to, by distinctive markers (most specific first).
   Returns 1 if recognised, 0 if not (ChatML then), 2 for an [INST] template of no known variant. */
static int srt__chat_detect(const char *j, srt_chat_format *f) {
    *f = SRT_CHAT_CHATML;
    if (strstr(j, "<|im_start|>")) return 1;
    if (strstr(j, "<|start_header_id|>") && strstr(j, "<|end_header_id|>")) { *f = SRT_CHAT_LLAMA3; return 1; }
    if (strstr(j, "[INST]")) {
        if (strstr(j, "<<SYS>>")) { *f = SRT_CHAT_LLAMA2; return 1; }
        if (strstr(j, "' [INST] '") || strstr(j, "\" [INST] \"")) { *f = SRT_CHAT_MISTRAL; return 1; }
        if (strstr(j, "'[INST] '") || strstr(j, "\"[INST] \"")) { *f = SRT_CHAT_MISTRAL_V3; return 1; }
        *f = SRT_CHAT_MISTRAL;
        return 2;
    }
    if (strstr(j, "<|assistant|>") && strstr(j, "<|end|>")) { *f = SRT_CHAT_PHI3; return 1; }
    if (strstr(j, "<|user|>") && strstr(j, "<|assistant|>")) { *f = SRT_CHAT_ZEPHYR; return 1; }
    if (strstr(j, "<start_of_turn>")) { *f = SRT_CHAT_GEMMA; return 1; }
    return 0;
}

/* What a recognised template adds beyond its format: ChatML's own default system prompt,
   Llama 3.1's dated system block. */
static void srt__chat_extras(const char *j, srt_chat_template *t) {
    if (t->format == SRT_CHAT_CHATML) srt__chat_default_system(j, t->default_system, sizeof t->default_system);
    if (t->format == SRT_CHAT_LLAMA3 && strstr(j, "Cutting Knowledge Date")) {
        t->dated_system = 1;
        if (strstr(j, "strftime_now")) srt__chat_today(t->date, sizeof t->date);
        else srt__chat_copy(t->date, sizeof t->date, "26 Jul 2024");
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
        char names[160] = "";
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
static int srt__chat_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static void srt__put_trim(srt__out *o, const char *s) {
    size_t n = strlen(s);
    while (n && srt__chat_space(*s)) { s++; n--; }
    while (n && srt__chat_space(s[n - 1])) n--;
    srt__put(o, s, n);
}
/* Python's str.strip() of a + b (Llama 2 strips the system block and the message together). */
static void srt__put_trim2(srt__out *o, const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    while (na && srt__chat_space(*a)) { a++; na--; }
    if (!na) { srt__put_trim(o, b); return; }
    while (nb && srt__chat_space(b[nb - 1])) nb--;
    if (!nb) while (na && srt__chat_space(a[na - 1])) na--;
    srt__put(o, a, na);
    srt__put(o, b, nb);
}

SRT_API srt_status srt_chat_render(const srt_chat_template *t, const srt_chat_message *msgs, int n, int add_generation_prompt,
                                   char *buf, size_t cap, size_t *len) {
    srt__out o;
    int i, first = 0;
    const char *sys = NULL;
    char tmp[64];
    if (len) *len = 0;
    if (!t || (unsigned)t->format >= SRT_CHAT_FORMAT_COUNT || n < 0 || (n > 0 && !msgs) || (!buf && cap))
        return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: bad arguments");
    for (i = 0; i < n; i++) {
        const char *r = msgs[i].role;
        if (!r || !msgs[i].content) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: message %d has no role or content", i);
        if (t->format != SRT_CHAT_CHATML && t->format != SRT_CHAT_LLAMA3 && strcmp(r, "system") && strcmp(r, "user") && strcmp(r, "assistant"))
            return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: the %s format has no role '%s'", srt__chat_names[t->format], r);
    }
    o.buf = buf; o.cap = cap; o.n = 0;
    if (n > 0 && !strcmp(msgs[0].role, "system")) { sys = msgs[0].content; first = 1; }
    switch (t->format) {
        case SRT_CHAT_CHATML:
            if (n > 0 && !sys && t->default_system[0]) {
                srt__puts(&o, "<|im_start|>system\n"); srt__puts(&o, t->default_system); srt__puts(&o, "<|im_end|>\n");
            }
            for (i = 0; i < n; i++) {
                srt__puts(&o, "<|im_start|>"); srt__puts(&o, msgs[i].role); srt__puts(&o, "\n");
                srt__puts(&o, msgs[i].content); srt__puts(&o, "<|im_end|>\n");
            }
            if (add_generation_prompt) srt__puts(&o, "<|im_start|>assistant\n");
            break;
        case SRT_CHAT_LLAMA3:
            if (t->dated_system) {
                srt__puts(&o, t->bos);
                srt__puts(&o, "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: ");
                srt__puts(&o, t->date[0] ? t->date : "26 Jul 2024");
                srt__puts(&o, "\n\n");
                if (sys) srt__put_trim(&o, sys);
                srt__puts(&o, "<|eot_id|>");
            } else first = 0;
            for (i = first; i < n; i++) {
                if (i == 0 && !t->dated_system) srt__puts(&o, t->bos);
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
        default: break;
    }
    if (len) *len = o.n;
    if (cap) buf[o.n < cap ? o.n : cap - 1] = 0;
    if (o.n >= cap) return srt__fail(SRT_ERR_INVALID_ARG, "srt_chat_render: %llu bytes do not fit in %llu", (unsigned long long)o.n + 1, (unsigned long long)cap);
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
