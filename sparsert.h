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
typedef struct srt_pool srt_pool;
typedef struct srt_pool_desc {
    int n_threads;          /* total threads including the caller; 0 = number of logical CPUs (max 64) */
} srt_pool_desc;
SRT_API srt_status srt_pool_create(const srt_pool_desc *desc, srt_pool **out);
SRT_API void srt_pool_destroy(srt_pool *pool);
SRT_API int srt_pool_threads(const srt_pool *pool);
/* fn(user, begin, end, thread_index) is called on chunks of [0, n) of at most `chunk` items,
   claimed dynamically by all threads; returns when all are done. Not reentrant per pool. */
typedef void (*srt_range_fn)(void *user, int64_t begin, int64_t end, int thread_index);
SRT_API void srt_pool_parallel_for(srt_pool *pool, int64_t n, int64_t chunk, srt_range_fn fn, void *user);

/* ---------------------------------------------------------------- model */
typedef struct srt_model srt_model;

typedef struct srt_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} srt_allocator;

typedef struct srt_model_desc {
    int n_threads;           /* threads when `pool` is NULL; 0 = all logical CPUs */
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
    SRT_TOKENIZE_NO_BOS = 2         /* never prepend BOS, even when the model asks for it */
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
typedef struct srt_utf8_stream { unsigned char pending[8]; int n_pending; int at_start; } srt_utf8_stream;
/* Appends the text of `token` to out (cap bytes; the output of one call is at most 32 + piece
   bytes). flags: SRT_STREAM_STRIP_LEADING_SPACE drops one space at the very start of the stream
   (SentencePiece dummy prefix). Returns bytes written (never a partial character). */
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
/* Tokenizes `text` (flags as srt_tokenize; BOS only added at position 0) and feeds it. */
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

#ifdef __cplusplus
}
#endif
#endif /* SPARSERT_H */
