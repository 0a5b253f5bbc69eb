/* srt_import.h - reads model checkpoints (GGUF v2/v3, llama2.c v0 and v1, Hugging Face folders
   with safetensors) into one normalized description: hyper-parameters, vocabulary and a tensor
   directory with GGUF tensor names. Tensor data is read lazily, one tensor at a time, and
   dequantized to float. It can also describe a model of random weights made from a Hugging Face
   config.json (srti_open_random), generated tensor by tensor.

   HOW TO USE
     In exactly one C or C++ file:
         #define SRT_IMPORT_IMPLEMENTATION
         #include "tools/srt_import.h"
     Portable C99 (also valid C++); plain stdio with 64-bit offsets, no mmap.

         srti_model *m; char err[512];
         if (srti_open("model.gguf", NULL, &m, err, sizeof err)) { fprintf(stderr, "%s\n", err); ... }
         for (uint32_t i = 0; i < m->n_tensors; i++) {
             float *v = malloc(srti_tensor_nvalues(&m->tensors[i]) * sizeof(float));
             if (srti_read_f32(m, i, v, err, sizeof err)) ...
         }
         srti_close(m);

   TENSOR NAMES AND SHAPES
     GGUF naming for every source: token_embd.weight, output_norm.weight, output.weight (absent
     when the embedding is tied), blk.N.{attn_norm,attn_q,attn_k,attn_v,attn_output,ffn_norm,
     ffn_gate,ffn_down,ffn_up}.weight (+ biases etc. as the GGUF has them). ne[0] is the innermost
     dimension (columns = input features), ne[1] the rows (output features), as in GGUF.
     Phi-3's fused matrices (attn_qkv: q, k and v rows; ffn_up of 2 x n_ff rows: gate, then up)
     are presented as those separate tensors, each a range of the fused one's rows. Likewise a
     mixture of experts (Mixtral as "llama" with expert_count, "qwen3moe"): llama.cpp's 3-D
     blk.N.ffn_{gate,up,down}_exps.weight ([cols, rows, n_expert]) are presented as one 2-D
     tensor per expert X, blk.N.ffn_{gate,up,down}.X.weight (the names of older Mixtral GGUFs,
     which pass as they are); the router is blk.N.ffn_gate_inp.weight. gpt-oss's 2-D expert biases
     blk.N.ffn_{gate,up,down}_exps.bias ([n, n_expert]) become blk.N.ffn_{gate,up,down}.X.bias, and
     its blk.N.post_attention_norm.weight (the FFN's input norm) blk.N.ffn_norm.weight.

   HUGGING FACE FOLDERS (tools/srt_hf.h, part of this header's implementation)
     srti_open(DIR) reads DIR/config.json (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
     Qwen3ForCausalLM, Phi3ForCausalLM, the Gemma and MoE classes: tools/srt_hf.h),
     DIR/tokenizer.json (+ tokenizer_config.json: chat template, special tokens) and
     DIR/model.safetensors or the shards listed by DIR/model.safetensors.index.json (F32, F16,
     BF16; gpt-oss's MXFP4 pairs; FP8 with block scales). Tensors get GGUF names, and the result is what llama.cpp's convert_hf_to_gguf.py would
     make: Llama/Mistral q_proj/k_proj rows are permuted from Hugging Face's rotate-half (NeoX)
     pairing to GGUF's adjacent pairs as they are read (srti_tensor.permute_heads); Qwen2 and Qwen3
     keep NeoX order and are marked so (hp.rope_neox). The vocabulary is stored as GGUF's tokenizer.ggml.*
     (byte-level BPE = "gpt2" with merges and the llama.cpp pre-tokenizer name; SentencePiece-style
     BPE with byte fallback = "llama" with scores). See srt_hf.h for the details.

   ROBUSTNESS
     Every count, length and offset read from a file is checked against the file size and sane
     limits before anything is allocated; malformed input gives an error message, never a crash.
     srti_open succeeds for tensors of types it cannot dequantize (so a vocabulary can still be
     taken from such a file); srti_read_f32 then names the type in its error.

   CONFIGURATION
     SRTI_API (default extern), SRTI_STATIC (make the functions static).
     SRTI_MALLOC(sz), SRTI_CALLOC(n,sz), SRTI_FREE(p): allocation (define all three or none).
     On 32-bit POSIX systems compile with -D_FILE_OFFSET_BITS=64 for files over 2 GiB.

   LICENSE
     MIT. Copyright (c) 2026 the sparsert authors.
*/
#ifndef SRT_IMPORT_H
#define SRT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#ifndef SRTI_API
#  ifdef SRTI_STATIC
#    define SRTI_API static
#  else
#    define SRTI_API extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ggml tensor type ids as stored in GGUF files (the ones this header knows by name). */
enum {
    SRTI_TYPE_F32 = 0, SRTI_TYPE_F16 = 1, SRTI_TYPE_Q4_0 = 2, SRTI_TYPE_Q4_1 = 3,
    SRTI_TYPE_Q5_0 = 6, SRTI_TYPE_Q5_1 = 7, SRTI_TYPE_Q8_0 = 8, SRTI_TYPE_Q8_1 = 9,
    SRTI_TYPE_Q2_K = 10, SRTI_TYPE_Q3_K = 11, SRTI_TYPE_Q4_K = 12, SRTI_TYPE_Q5_K = 13,
    SRTI_TYPE_Q6_K = 14, SRTI_TYPE_Q8_K = 15,
    SRTI_TYPE_IQ2_XXS = 16, SRTI_TYPE_IQ2_XS = 17, SRTI_TYPE_IQ3_XXS = 18, SRTI_TYPE_IQ1_S = 19,
    SRTI_TYPE_IQ4_NL = 20, SRTI_TYPE_IQ3_S = 21, SRTI_TYPE_IQ2_S = 22, SRTI_TYPE_IQ4_XS = 23,
    SRTI_TYPE_I8 = 24, SRTI_TYPE_I16 = 25, SRTI_TYPE_I32 = 26, SRTI_TYPE_I64 = 27, SRTI_TYPE_F64 = 28,
    SRTI_TYPE_IQ1_M = 29, SRTI_TYPE_BF16 = 30, SRTI_TYPE_TQ1_0 = 34, SRTI_TYPE_TQ2_0 = 35,
    SRTI_TYPE_MXFP4 = 39,
    SRTI_TYPE_HF_MXFP4 = 1039,  /* not a ggml type: a Hugging Face MXFP4 pair (gpt-oss's experts), the U8 _blocks tensor
                                   (16 bytes of 32 nibbles, low nibble first) and its _scales (E8M0) at aux_offset */
    SRTI_TYPE_HF_FP8 = 1040     /* not a ggml type: a Hugging Face FP8 pair (quant_method fp8), the F8_E4M3 weight and its
                                   weight_scale_inv (one F32 / BF16 per block of rows x columns, aux_type) at aux_offset */
};

/* GGUF token types */
enum { SRTI_TOKEN_NORMAL = 1, SRTI_TOKEN_UNKNOWN = 2, SRTI_TOKEN_CONTROL = 3,
       SRTI_TOKEN_USER_DEFINED = 4, SRTI_TOKEN_UNUSED = 5, SRTI_TOKEN_BYTE = 6 };

/* Where a model came from. */
enum { SRTI_SRC_GGUF = 1, SRTI_SRC_LLAMA2C_V0 = 2, SRTI_SRC_LLAMA2C_V1 = 3, SRTI_SRC_HF = 4, SRTI_SRC_RANDOM = 5 };

typedef struct srti_hparams {
    char arch[32];            /* general.architecture ("llama", "qwen2", "qwen2moe", "qwen3", "qwen3moe", "phi3", "gemma", "gemma2",
                                 "gemma3", "smollm3", "granite", "granitemoe", "minicpm", "olmo2", "olmoe", "exaone", "exaone4", "gpt-oss"); "llama" for
                                 llama2.c */
    char name[128];           /* general.name or "" */
    uint32_t n_vocab, n_embd, n_ff, n_layer, n_head, n_head_kv, head_dim, rope_dim, n_ctx;
    float rope_theta;         /* default 10000 */
    float norm_eps;           /* default 1e-5 */
    int rope_neox;            /* 0 = adjacent pairs (llama), 1 = NeoX halves (qwen2, qwen3, qwen3moe, phi3, gemma) */
    char rope_scaling[16];    /* "none", "linear", "llama3", "longrope" (or what the file says, e.g. "yarn");
                                 "llama3" is also recovered from a llama.cpp rope_freqs.weight tensor,
                                 "longrope" (Phi-3) from the rope_factors_long/short.weight tensors */
    float rope_scale_factor, rope_low_freq_factor, rope_high_freq_factor; /* defaults 1, 1, 4 */
    uint32_t rope_orig_ctx;   /* 0 if absent */
    float rope_attn_factor;   /* LongRoPE: cos and sin are scaled by it; default 1 */
    /* YaRN (rope_scaling "yarn", llama.cpp's rope.scaling.yarn_* keys): the extrapolation share (-1 absent: 1), cos and sin's
       scale (transformers' attention_factor; 0 absent: 1 + 0.1 ln factor), the rotation counts bounding the ramp (0 absent: 32, 1) */
    float yarn_ext_factor, yarn_attn_factor, yarn_beta_fast, yarn_beta_slow;
    int yarn_exact;           /* 1: those bounds not rounded (transformers' truncate false: gpt-oss); 0: llama.cpp's floor / ceil */
    uint32_t sliding_window;  /* phi3: the checkpoint's sliding window (0 = none); recorded, not applied
                                 (llama.cpp does not apply it to Phi-3 either); gemma2/3, olmo2 (OLMo 3), exaone4, gpt-oss:
                                 applied (exaone4: its full-attention layers then have no RoPE) */
    /* gemma2 / gemma3 only (0 elsewhere and when absent; attn_scale also gemma): */
    float attn_scale;         /* the q . k scale (query_pre_attn_scalar^-1/2; Gemma 1: head_dim^-1/2) */
    float attn_softcap, final_softcap;   /* Gemma 2's soft caps of the attention scores and the logits */
    uint32_t swa_pattern;     /* layer l slides iff l % swa_pattern < swa_pattern - 1 (0: the runtime's default: 2 / 6; olmo2, exaone4 4) */
    float rope_theta_swa;     /* Gemma 3, OLMo 3: the sliding layers' rope base (0: the runtime's default, 10000 / the model's) */
    /* mixture of experts (0 elsewhere): Mixtral ("llama"), Qwen3-MoE ("qwen3moe"), Qwen2-MoE ("qwen2moe"), Granite MoE ("granitemoe"),
       OLMoE ("olmoe") */
    uint32_t n_expert;        /* experts per layer (0 = a dense FFN) */
    uint32_t n_expert_used;   /* experts a token goes through */
    uint32_t n_ff_exp;        /* an expert's FFN width (0 = n_ff) */
    uint32_t n_ff_shexp;      /* the shared expert's width: qwen2moe (0 = n_ff), granitemoe (0 = none; GraniteMoeShared's, not gated) */
    float embd_scale, residual_scale, logit_scale;   /* granite's and minicpm's multipliers (0: absent; logit_scale required) */
    int rope_finetuned;       /* granite: rope.scaling.finetuned (-1 absent; 0 = no RoPE, refused) */
    uint32_t nope_step;       /* smollm3: layer l has no RoPE when (l + 1) % nope_step == 0 (4: llama.cpp's value, no GGUF key) */
    int expert_weights_norm;  /* 1: the chosen experts' probabilities divided by their sum; 0: as they are; -1 absent (= 1) */
    int tied_output;          /* 1 if there is no separate output.weight */
} srti_hparams;

typedef struct srti_vocab {
    char model[16];           /* "llama" (SentencePiece) or "gpt2" (byte-level BPE), "" if none */
    char pre[32];             /* tokenizer.ggml.pre or "" */
    uint32_t n_tokens;
    char **tokens;            /* NUL-terminated pieces (a piece with an embedded NUL ends there) */
    float *scores;            /* NULL if the file has none */
    int32_t *types;           /* GGUF token types (SRTI_TOKEN_*); all NORMAL if the file has none */
    uint32_t n_merges;
    char **merges;            /* "a b" pairs; NULL if none */
    int32_t bos, eos, unk, pad; /* -1 if absent */
    int32_t eog[16]; uint32_t n_eog;   /* other tokens that end generation: GGUF's eot / eom ids, a Hugging Face
                                          folder's eos_token_id lists (config.json, generation_config.json) */
    int add_bos, add_eos, add_space_prefix; /* -1 if absent in the file */
    char *chat_template;      /* NULL if none */
} srti_vocab;

typedef struct srti_tensor {
    char name[96];            /* GGUF naming */
    uint32_t n_dims; uint64_t ne[4]; /* ne[0] = innermost (columns); unused dims are 1 */
    uint32_t src_type;        /* ggml type for GGUF files; 0 (F32) for llama2.c */
    uint64_t offset, nbytes;  /* absolute position in the file; nbytes 0 for unknown types */
    uint32_t file;            /* Hugging Face: which safetensors shard holds it (0 otherwise) */
    uint32_t permute_heads;   /* >0: rows are reordered from NeoX halves to GGUF pairs over this many
                                 heads when read (HF Llama q_proj/k_proj); 0 = read as stored */
    const float *values;      /* non-NULL: the values themselves, held by the model (Phi-3's LongRoPE
                                 factors from a Hugging Face config.json) */
    /* Hugging Face gpt-oss: parts of stored tensors that are not a range of whole rows */
    uint32_t row_step, first; /* row_step > 1: row r (a vector's value r) is stored unit first + r x row_step from offset
                                 (gate and up interleaved); nbytes counts the tensor's own rows */
    uint64_t tcols;           /* > 0: stored transposed, ne[0] rows of tcols values from offset (a dense gpt-oss expert
                                 [in, out]); row r is stored column first + r x max(row_step, 1) */
    uint64_t aux_offset, aux_nbytes; uint32_t aux_file;   /* SRTI_TYPE_HF_MXFP4 / _FP8: where the scales are (aux_nbytes 0: missing) */
    uint32_t aux_type;        /* SRTI_TYPE_HF_FP8: the scales' type (F32 or BF16) and rows */
    uint64_t aux_rows;
} srti_tensor;

struct srti__priv;
typedef struct srti_model {
    srti_hparams hp;
    srti_vocab vocab;
    uint32_t n_tensors;
    srti_tensor *tensors;
    /* informational */
    int source;               /* SRTI_SRC_* */
    char source_name[24];     /* "GGUF v3", "llama2.c v0", "llama2.c v1", "safetensors", "random" */
    uint64_t file_size;       /* all safetensors shards together for Hugging Face folders; 0 for random */
    uint32_t alignment;       /* GGUF data alignment (0 for llama2.c) */
    /* private */
    struct srti__priv *priv;
} srti_model;

/* Opens a checkpoint: a Hugging Face model folder (a directory, or its config.json or
   tokenizer.json; see srt_hf.h), GGUF (magic "GGUF"), llama2.c v1 (magic "ak42", version 1) or
   else a llama2.c v0 legacy header. tokenizer_path: llama2.c tokenizer.bin for llama2.c
   checkpoints (NULL = no vocabulary: vocab.n_tokens = 0); must be NULL for the others.
   Returns 0 on success; nonzero with a message in err (which may be NULL) on failure. */
SRTI_API int srti_open(const char *path, const char *tokenizer_path, srti_model **out, char *err, size_t errlen);
/* A model of random weights in the shape a Hugging Face config.json describes: values drawn from
   N(0, 0.02^2), norm weights 1, deterministic in (seed, tensor name) and generated when
   srti_read_f32 asks for them, so no more than one tensor is ever in memory. The vocabulary comes
   from tokenizer.json (+ tokenizer_config.json) beside the config when there is one; otherwise a
   placeholder vocabulary of config.vocab_size tokens is made (<unk>, <s>, </s>, the 256 byte
   tokens <0xNN>, then unused [PADn] tokens), enough to run and time the model. */
SRTI_API int srti_open_random(const char *config_path, uint64_t seed, srti_model **out, char *err, size_t errlen);
/* Reads tensor i dequantized to float: srti_tensor_nvalues() values. */
SRTI_API int srti_read_f32(srti_model *m, uint32_t i, float *out, char *err, size_t errlen);
/* Threads for srti_read_f32's work on values (random generation, dequantization): srti calls
   fn(ctx, n, chunk, range, user), which must call range(user, begin, end, thread_index) on chunks
   of at most `chunk` items covering [0, n) once each, on any threads, and return when all are done:
   sparsert's srt_pool_parallel_for with its pool as ctx does. fn NULL (the default) = this thread.
   The values read do not depend on it. */
typedef void (*srti_range_fn)(void *user, int64_t begin, int64_t end, int thread_index);
typedef void (*srti_parallel_fn)(void *ctx, int64_t n, int64_t chunk, srti_range_fn range, void *user);
SRTI_API void srti_set_parallel(srti_model *m, srti_parallel_fn fn, void *ctx);
/* Index of the tensor with this name, or -1. */
SRTI_API int srti_find(const srti_model *m, const char *name);
SRTI_API void srti_close(srti_model *m);
/* Dequantizes n_values (a multiple of the type's block size) of ggml type `ggml_type`.
   Returns 0, or nonzero when the type is not supported. */
SRTI_API int srti_dequantize(uint32_t ggml_type, const void *src, uint64_t n_values, float *dst);

/* ---- extras */
SRTI_API uint64_t srti_tensor_nvalues(const srti_tensor *t);
/* Name of a ggml type ("Q4_K"), or NULL if unknown. */
SRTI_API const char *srti_type_name(uint32_t ggml_type);
/* Block geometry of a ggml type: returns 1 and fills values/bytes per block if the type is known. */
SRTI_API int srti_type_block(uint32_t ggml_type, uint32_t *block_values, uint32_t *block_bytes);
/* 1 if srti_dequantize supports the type. */
SRTI_API int srti_type_supported(uint32_t ggml_type);
/* Scalar metadata of a GGUF file (arrays are not kept). Each returns 1 if the key is present with a
   compatible type (integers: any GGUF integer or bool type; floats: f32/f64 or an integer). */
SRTI_API int srti_meta_str(const srti_model *m, const char *key, const char **out);
SRTI_API int srti_meta_int(const srti_model *m, const char *key, int64_t *out);
SRTI_API int srti_meta_float(const srti_model *m, const char *key, double *out);
/* Checks that the model is a Llama-family transformer this project can run: hyper-parameters are
   sane and every required tensor is present with the expected shape. 0 = ok. */
SRTI_API int srti_check_llama(const srti_model *m, char *err, size_t errlen);
/* Adds token id to v->eog unless it is eos, already there, outside the vocabulary or the list is full. */
SRTI_API void srti_vocab_add_eog(srti_vocab *v, int64_t id);
/* Converts an IEEE half / bfloat16 to float. */
SRTI_API float srti_f16_to_f32(uint16_t h);
SRTI_API float srti_bf16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif /* SRT_IMPORT_H */

/* ============================================================================================ */
#ifdef SRT_IMPORT_IMPLEMENTATION
#ifndef SRT_IMPORT_IMPLEMENTATION_DONE
#define SRT_IMPORT_IMPLEMENTATION_DONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>

#ifndef SRTI_MALLOC
#  define SRTI_MALLOC(sz) malloc(sz)
#  define SRTI_CALLOC(n, sz) calloc((n), (sz))
#  define SRTI_FREE(p) free(p)
#endif

/* ---------------------------------------------------------------- platform: 64-bit file offsets */
#if defined(_WIN32)
#  define srti__fseek64(f, o) _fseeki64((f), (__int64)(o), SEEK_SET)
#  define srti__fseek_end(f) _fseeki64((f), 0, SEEK_END)
#  define srti__ftell64(f) ((int64_t)_ftelli64(f))
#elif defined(LONG_MAX) && LONG_MAX > 2147483647L
   /* LP64: long is 64 bits, plain fseek/ftell reach everywhere */
#  define srti__fseek64(f, o) fseek((f), (long)(o), SEEK_SET)
#  define srti__fseek_end(f) fseek((f), 0L, SEEK_END)
#  define srti__ftell64(f) ((int64_t)ftell(f))
#else
#  include <sys/types.h>
#  define srti__fseek64(f, o) fseeko((f), (off_t)(o), SEEK_SET)
#  define srti__fseek_end(f) fseeko((f), (off_t)0, SEEK_END)
#  define srti__ftell64(f) ((int64_t)ftello(f))
#endif

/* ---------------------------------------------------------------- errors */
typedef unsigned long long srti__ull;

static void srti__seterr(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    if (!err || errlen == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (err[0] == 0 && errlen > 1) { err[0] = '?'; err[1] = 0; }
}

/* ---------------------------------------------------------------- private state */
typedef struct srti__kv {
    char *key;
    uint32_t type;            /* GGUF value type */
    int64_t i; uint64_t u;    /* integers (u for unsigned values, i clamped) */
    double f;
    char *s;
} srti__kv;

struct srti__priv {
    FILE *fp;
    char *path;
    srti__kv *kv; uint64_t n_kv;
    /* Hugging Face: safetensors shards (srti_tensor.file indexes them) */
    FILE **shard_fp; char **shard_path; uint64_t *shard_size; uint32_t n_shards;
    float *inline_vals;       /* what srti_tensor.values point into (Phi-3 LongRoPE factors: long, short) */
    uint32_t n_inline;
    uint64_t seed;            /* SRTI_SRC_RANDOM */
    srti_parallel_fn par; void *par_ctx;   /* srti_set_parallel */
    /* srti_find's index (made by srti_open): tensor numbers in name order, valid while
       m->tensors and m->n_tensors are still by_name_of and n_by_name (a MoE file has 10^4+ tensors) */
    uint32_t *by_name; uint32_t n_by_name; const srti_tensor *by_name_of;
    int fp8;                  /* Hugging Face FP8 weights (quant_method fp8, compressed-tensors): fp8_block, the rows and columns a
                                 scale covers (0: the whole dimension: per row [1, 0], per tensor [0, 0]) */
    uint32_t fp8_block[2];
};

/* ---------------------------------------------------------------- small helpers */
static uint16_t srti__le16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t srti__le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t srti__le64(const unsigned char *p) { return (uint64_t)srti__le32(p) | ((uint64_t)srti__le32(p + 4) << 32); }
static float srti__lef32(const unsigned char *p) { uint32_t u = srti__le32(p); float f; memcpy(&f, &u, 4); return f; }
static int srti__host_is_le(void) { uint32_t x = 1; unsigned char c; memcpy(&c, &x, 1); return c == 1; }

static char *srti__strdup(const char *s) {
    size_t n = strlen(s);
    char *d = (char *)SRTI_MALLOC(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}
/* Copies at most cap-1 bytes, not splitting a UTF-8 character. */
static void srti__copy_trunc(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
    }
    memcpy(dst, src, n);
    dst[n] = 0;
}

SRTI_API float srti_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    float f;
    if (exp == 0x1F) bits = sign | 0x7F800000u | (man << 13);             /* inf / nan */
    else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);   /* normal: exp - 15 + 127 */
    else if (man == 0) bits = sign;                                       /* zero */
    else {                                                                 /* subnormal: man * 2^-24 */
        f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    memcpy(&f, &bits, 4);
    return f;
}
SRTI_API float srti_bf16_to_f32(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* ---------------------------------------------------------------- ggml types */
typedef struct srti__type_info { uint32_t id; const char *name; uint32_t blck, size; int supported; } srti__type_info;
static const srti__type_info srti__types[] = {
    { 0, "F32", 1, 4, 1 },      { 1, "F16", 1, 2, 1 },      { 2, "Q4_0", 32, 18, 1 },
    { 3, "Q4_1", 32, 20, 1 },   { 6, "Q5_0", 32, 22, 1 },   { 7, "Q5_1", 32, 24, 1 },
    { 8, "Q8_0", 32, 34, 1 },   { 9, "Q8_1", 32, 36, 1 },   { 10, "Q2_K", 256, 84, 1 },
    { 11, "Q3_K", 256, 110, 1 },{ 12, "Q4_K", 256, 144, 1 },{ 13, "Q5_K", 256, 176, 1 },
    { 14, "Q6_K", 256, 210, 1 },{ 15, "Q8_K", 256, 292, 1 },{ 16, "IQ2_XXS", 256, 66, 0 },
    { 17, "IQ2_XS", 256, 74, 0 },{ 18, "IQ3_XXS", 256, 98, 0 },{ 19, "IQ1_S", 256, 50, 0 },
    { 20, "IQ4_NL", 32, 18, 1 },{ 21, "IQ3_S", 256, 110, 0 },{ 22, "IQ2_S", 256, 82, 0 },
    { 23, "IQ4_XS", 256, 136, 0 },{ 24, "I8", 1, 1, 1 },     { 25, "I16", 1, 2, 1 },
    { 26, "I32", 1, 4, 1 },     { 27, "I64", 1, 8, 0 },     { 28, "F64", 1, 8, 1 },
    { 29, "IQ1_M", 256, 56, 0 },{ 30, "BF16", 1, 2, 1 },    { 34, "TQ1_0", 256, 54, 1 },
    { 35, "TQ2_0", 256, 66, 1 },{ 39, "MXFP4", 32, 17, 1 },
    { 1039, "MXFP4", 32, 16, 0 },  /* (its blocks; read by srti__read_hf_mxfp4, not srti_dequantize) */
    { 1040, "F8_E4M3", 1, 1, 0 }   /* (read by srti__read_hf_fp8) */
};
static const srti__type_info *srti__type(uint32_t id) {
    size_t i;
    for (i = 0; i < sizeof(srti__types) / sizeof(srti__types[0]); i++)
        if (srti__types[i].id == id) return &srti__types[i];
    return NULL;
}
SRTI_API const char *srti_type_name(uint32_t t) { const srti__type_info *ti = srti__type(t); return ti ? ti->name : NULL; }
SRTI_API int srti_type_block(uint32_t t, uint32_t *bv, uint32_t *bb) {
    const srti__type_info *ti = srti__type(t);
    if (!ti) return 0;
    if (bv) *bv = ti->blck;
    if (bb) *bb = ti->size;
    return 1;
}
SRTI_API int srti_type_supported(uint32_t t) { const srti__type_info *ti = srti__type(t); return ti ? ti->supported : 0; }
SRTI_API uint64_t srti_tensor_nvalues(const srti_tensor *t) {
    uint64_t n = 1; uint32_t d;
    for (d = 0; d < t->n_dims && d < 4; d++) n *= t->ne[d];
    return n;
}

/* ---------------------------------------------------------------- dequantization */
/* Each function converts `nb` blocks. Layouts follow ggml's block structs (little-endian). */
static float srti__h(const unsigned char *p) { return srti_f16_to_f32(srti__le16(p)); }

static void srti__dq_q4_0(const unsigned char *b, uint64_t nb, float *y) {  /* d, qs[16] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 18, y += 32) {
        float d = srti__h(b);
        for (j = 0; j < 16; j++) {
            y[j] = (float)((b[2 + j] & 0x0F) - 8) * d;
            y[j + 16] = (float)((b[2 + j] >> 4) - 8) * d;
        }
    }
}
static void srti__dq_q4_1(const unsigned char *b, uint64_t nb, float *y) {  /* d, m, qs[16] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 20, y += 32) {
        float d = srti__h(b), m = srti__h(b + 2);
        for (j = 0; j < 16; j++) {
            y[j] = (float)(b[4 + j] & 0x0F) * d + m;
            y[j + 16] = (float)(b[4 + j] >> 4) * d + m;
        }
    }
}
static void srti__dq_q5_0(const unsigned char *b, uint64_t nb, float *y) {  /* d, qh[4], qs[16] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 22, y += 32) {
        float d = srti__h(b);
        uint32_t qh = srti__le32(b + 2);
        for (j = 0; j < 16; j++) {
            int lo = (b[6 + j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            int hi = (b[6 + j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            y[j] = (float)(lo - 16) * d;
            y[j + 16] = (float)(hi - 16) * d;
        }
    }
}
static void srti__dq_q5_1(const unsigned char *b, uint64_t nb, float *y) {  /* d, m, qh[4], qs[16] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 24, y += 32) {
        float d = srti__h(b), m = srti__h(b + 2);
        uint32_t qh = srti__le32(b + 4);
        for (j = 0; j < 16; j++) {
            int lo = (b[8 + j] & 0x0F) | (int)(((qh >> j) & 1) << 4);
            int hi = (b[8 + j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
            y[j] = (float)lo * d + m;
            y[j + 16] = (float)hi * d + m;
        }
    }
}
static void srti__dq_q8_0(const unsigned char *b, uint64_t nb, float *y) {  /* d, qs[32] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 34, y += 32) {
        float d = srti__h(b);
        for (j = 0; j < 32; j++) y[j] = (float)(signed char)b[2 + j] * d;
    }
}
static void srti__dq_q8_1(const unsigned char *b, uint64_t nb, float *y) {  /* d, s, qs[32] */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 36, y += 32) {
        float d = srti__h(b);
        for (j = 0; j < 32; j++) y[j] = (float)(signed char)b[4 + j] * d;
    }
}
/* K-quants: super-blocks of 256 values. */
static void srti__dq_q2_k(const unsigned char *b, uint64_t nb, float *y) {
    /* scales[16] (low nibble scale, high nibble min), qs[64] (2-bit), d, dmin */
    uint64_t i; int n, j, l, shift, is;
    for (i = 0; i < nb; i++, b += 84) {
        const unsigned char *sc = b, *q = b + 16;
        float d = srti__h(b + 80), dmin = srti__h(b + 82);
        is = 0;
        for (n = 0; n < 256; n += 128) {
            for (shift = 0; shift < 8; shift += 2) {
                for (j = 0; j < 2; j++) {
                    unsigned char s = sc[is++];
                    float dl = d * (float)(s & 0x0F), ml = dmin * (float)(s >> 4);
                    for (l = 0; l < 16; l++) *y++ = dl * (float)((q[j * 16 + l] >> shift) & 3) - ml;
                }
            }
            q += 32;
        }
    }
}
static void srti__dq_q3_k(const unsigned char *b, uint64_t nb, float *y) {
    /* hmask[32], qs[64], scales[12] (16 6-bit scales), d */
    uint64_t i; int n, j, l, shift, is, k;
    for (i = 0; i < nb; i++, b += 110) {
        const unsigned char *hm = b, *q = b + 32, *s12 = b + 96;
        float d_all = srti__h(b + 108);
        signed char sc[16];
        unsigned char m = 1;
        /* unpack: low 4 bits from s12[0..7] (both nibbles), high 2 bits from s12[8..11] */
        for (k = 0; k < 16; k++) {
            int lo = (k < 8) ? (s12[k] & 0x0F) : (s12[k - 8] >> 4);
            int hi = (s12[8 + (k & 3)] >> (2 * (k >> 2))) & 3;
            sc[k] = (signed char)((lo | (hi << 4)) - 32);
        }
        is = 0;
        for (n = 0; n < 256; n += 128) {
            for (shift = 0; shift < 8; shift += 2) {
                for (j = 0; j < 2; j++) {
                    float dl = d_all * (float)sc[is++];
                    for (l = 0; l < 16; l++) {
                        int v = (int)((q[j * 16 + l] >> shift) & 3) - ((hm[j * 16 + l] & m) ? 0 : 4);
                        *y++ = dl * (float)v;
                    }
                }
                m = (unsigned char)(m << 1);
            }
            q += 32;
        }
    }
}
/* 6-bit scale and min j (0..7) of the 12-byte K-quant scale array (Q4_K, Q5_K). */
static void srti__k_scale_min(int j, const unsigned char *q, int *sc, int *mn) {
    if (j < 4) { *sc = q[j] & 63; *mn = q[j + 4] & 63; }
    else {
        *sc = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
        *mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}
static void srti__dq_q4_k(const unsigned char *b, uint64_t nb, float *y) {
    /* d, dmin, scales[12], qs[128] */
    uint64_t i; int j, l, is, sc, mn;
    for (i = 0; i < nb; i++, b += 144) {
        float d = srti__h(b), dmin = srti__h(b + 2);
        const unsigned char *s12 = b + 4, *q = b + 16;
        is = 0;
        for (j = 0; j < 256; j += 64) {
            float d1, m1, d2, m2;
            srti__k_scale_min(is, s12, &sc, &mn); d1 = d * (float)sc; m1 = dmin * (float)mn;
            srti__k_scale_min(is + 1, s12, &sc, &mn); d2 = d * (float)sc; m2 = dmin * (float)mn;
            for (l = 0; l < 32; l++) *y++ = d1 * (float)(q[l] & 0x0F) - m1;
            for (l = 0; l < 32; l++) *y++ = d2 * (float)(q[l] >> 4) - m2;
            q += 32; is += 2;
        }
    }
}
static void srti__dq_q5_k(const unsigned char *b, uint64_t nb, float *y) {
    /* d, dmin, scales[12], qh[32], qs[128] */
    uint64_t i; int j, l, is, sc, mn;
    for (i = 0; i < nb; i++, b += 176) {
        float d = srti__h(b), dmin = srti__h(b + 2);
        const unsigned char *s12 = b + 4, *qh = b + 16, *q = b + 48;
        unsigned char u1 = 1, u2 = 2;
        is = 0;
        for (j = 0; j < 256; j += 64) {
            float d1, m1, d2, m2;
            srti__k_scale_min(is, s12, &sc, &mn); d1 = d * (float)sc; m1 = dmin * (float)mn;
            srti__k_scale_min(is + 1, s12, &sc, &mn); d2 = d * (float)sc; m2 = dmin * (float)mn;
            for (l = 0; l < 32; l++) *y++ = d1 * (float)((q[l] & 0x0F) + ((qh[l] & u1) ? 16 : 0)) - m1;
            for (l = 0; l < 32; l++) *y++ = d2 * (float)((q[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
            q += 32; is += 2;
            u1 = (unsigned char)(u1 << 2); u2 = (unsigned char)(u2 << 2);
        }
    }
}
static void srti__dq_q6_k(const unsigned char *b, uint64_t nb, float *y) {
    /* ql[128], qh[64], scales[16] (int8), d */
    uint64_t i; int n, l;
    for (i = 0; i < nb; i++, b += 210) {
        const unsigned char *ql = b, *qh = b + 128;
        const signed char *sc = (const signed char *)(b + 192);
        float d = srti__h(b + 208);
        for (n = 0; n < 256; n += 128) {
            for (l = 0; l < 32; l++) {
                int is = l / 16;
                int q1 = (int)((ql[l] & 0x0F) | (((qh[l] >> 0) & 3) << 4)) - 32;
                int q2 = (int)((ql[l + 32] & 0x0F) | (((qh[l] >> 2) & 3) << 4)) - 32;
                int q3 = (int)((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                int q4 = (int)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * (float)sc[is] * (float)q1;
                y[l + 32] = d * (float)sc[is + 2] * (float)q2;
                y[l + 64] = d * (float)sc[is + 4] * (float)q3;
                y[l + 96] = d * (float)sc[is + 6] * (float)q4;
            }
            y += 128; ql += 64; qh += 32; sc += 8;
        }
    }
}
static void srti__dq_q8_k(const unsigned char *b, uint64_t nb, float *y) {
    /* float d, qs[256] int8, bsums[16] int16 */
    uint64_t i; int j;
    for (i = 0; i < nb; i++, b += 292) {
        float d = srti__lef32(b);
        for (j = 0; j < 256; j++) *y++ = d * (float)(signed char)b[4 + j];
    }
}
static void srti__dq_tq1_0(const unsigned char *b, uint64_t nb, float *y) {
    /* qs[48]: 5 ternary digits per byte (base 3, fixed-point), qh[4]: 4 per byte, d */
    static const unsigned char pow3[6] = { 1, 3, 9, 27, 81, 243 };
    uint64_t i; int j, n, m, l;
    for (i = 0; i < nb; i++, b += 54) {
        const unsigned char *qs = b, *qh = b + 48;
        float d = srti__h(b + 52);
        for (j = 0; j < 32; j += 32) {                 /* first 32 bytes: 160 values */
            for (n = 0; n < 5; n++)
                for (m = 0; m < 32; m++) {
                    unsigned char q = (unsigned char)(qs[j + m] * pow3[n]);
                    int xi = (int)(((uint16_t)q * 3) >> 8);
                    *y++ = (float)(xi - 1) * d;
                }
        }
        for (j = 32; j < 48; j += 16) {                /* next 16 bytes: 80 values */
            for (n = 0; n < 5; n++)
                for (m = 0; m < 16; m++) {
                    unsigned char q = (unsigned char)(qs[j + m] * pow3[n]);
                    int xi = (int)(((uint16_t)q * 3) >> 8);
                    *y++ = (float)(xi - 1) * d;
                }
        }
        for (n = 0; n < 4; n++)                         /* qh: 16 values */
            for (l = 0; l < 4; l++) {
                unsigned char q = (unsigned char)(qh[l] * pow3[n]);
                int xi = (int)(((uint16_t)q * 3) >> 8);
                *y++ = (float)(xi - 1) * d;
            }
    }
}
static void srti__dq_tq2_0(const unsigned char *b, uint64_t nb, float *y) {
    /* qs[64]: 2-bit codes (0,1,2 -> -1,0,1), d */
    uint64_t i; int j, l, m;
    for (i = 0; i < nb; i++, b += 66) {
        float d = srti__h(b + 64);
        for (j = 0; j < 64; j += 32)
            for (l = 0; l < 4; l++)
                for (m = 0; m < 32; m++) {
                    int q = (b[j + m] >> (l * 2)) & 3;
                    *y++ = (float)(q - 1) * d;
                }
    }
}

/* The 4-bit codebooks: byte j of a block holds value j (low nibble) and value j + 16 (high). IQ4_NL:
   { f16 d, qs[16] }, d * kvalues[code]; MXFP4 (gpt-oss's experts): { e (E8M0), qs[16] }, the FP4
   (E2M1) values doubled as integers times 2^(e - 128) (exponents above 252 overflow; the writer
   refuses what is not finite). */
static void srti__dq_nibbles(const unsigned char *qs, const signed char *kv, float d, float *y) {
    int j;
    for (j = 0; j < 16; j++) { y[j] = d * (float)kv[qs[j] & 15]; y[j + 16] = d * (float)kv[qs[j] >> 4]; }
}
static void srti__dq_iq4_nl(const unsigned char *b, uint64_t nb, float *y) {
    static const signed char kv[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
    uint64_t i;
    for (i = 0; i < nb; i++, b += 18, y += 32) srti__dq_nibbles(b + 2, kv, srti__h(b), y);
}
static void srti__dq_mxfp4(const unsigned char *b, uint64_t nb, float *y) {
    static const signed char kv[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
    uint64_t i;
    for (i = 0; i < nb; i++, b += 17, y += 32) srti__dq_nibbles(b + 1, kv, ldexpf(1.0f, (int)b[0] - 128), y);
}

SRTI_API int srti_dequantize(uint32_t type, const void *src, uint64_t n, float *y) {
    const unsigned char *b = (const unsigned char *)src;
    const srti__type_info *ti = srti__type(type);
    uint64_t i, nb;
    if (!ti || !ti->supported || n % ti->blck != 0 || (n > 0 && (!src || !y))) return 1;
    nb = n / ti->blck;
    switch (type) {
    case SRTI_TYPE_F32: for (i = 0; i < n; i++) y[i] = srti__lef32(b + 4 * i); break;
    case SRTI_TYPE_F16: for (i = 0; i < n; i++) y[i] = srti_f16_to_f32(srti__le16(b + 2 * i)); break;
    case SRTI_TYPE_BF16: for (i = 0; i < n; i++) y[i] = srti_bf16_to_f32(srti__le16(b + 2 * i)); break;
    case SRTI_TYPE_F64:
        for (i = 0; i < n; i++) { uint64_t u = srti__le64(b + 8 * i); double v; memcpy(&v, &u, 8); y[i] = (float)v; }
        break;
    case SRTI_TYPE_I8: for (i = 0; i < n; i++) y[i] = (float)(signed char)b[i]; break;
    case SRTI_TYPE_I16: for (i = 0; i < n; i++) y[i] = (float)(int16_t)srti__le16(b + 2 * i); break;
    case SRTI_TYPE_I32: for (i = 0; i < n; i++) y[i] = (float)(int32_t)srti__le32(b + 4 * i); break;
    case SRTI_TYPE_Q4_0: srti__dq_q4_0(b, nb, y); break;
    case SRTI_TYPE_Q4_1: srti__dq_q4_1(b, nb, y); break;
    case SRTI_TYPE_Q5_0: srti__dq_q5_0(b, nb, y); break;
    case SRTI_TYPE_Q5_1: srti__dq_q5_1(b, nb, y); break;
    case SRTI_TYPE_Q8_0: srti__dq_q8_0(b, nb, y); break;
    case SRTI_TYPE_Q8_1: srti__dq_q8_1(b, nb, y); break;
    case SRTI_TYPE_Q2_K: srti__dq_q2_k(b, nb, y); break;
    case SRTI_TYPE_Q3_K: srti__dq_q3_k(b, nb, y); break;
    case SRTI_TYPE_Q4_K: srti__dq_q4_k(b, nb, y); break;
    case SRTI_TYPE_Q5_K: srti__dq_q5_k(b, nb, y); break;
    case SRTI_TYPE_Q6_K: srti__dq_q6_k(b, nb, y); break;
    case SRTI_TYPE_Q8_K: srti__dq_q8_k(b, nb, y); break;
    case SRTI_TYPE_TQ1_0: srti__dq_tq1_0(b, nb, y); break;
    case SRTI_TYPE_TQ2_0: srti__dq_tq2_0(b, nb, y); break;
    case SRTI_TYPE_IQ4_NL: srti__dq_iq4_nl(b, nb, y); break;
    case SRTI_TYPE_MXFP4: srti__dq_mxfp4(b, nb, y); break;
    default: return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- buffered reader */
typedef struct srti__rd {
    FILE *fp;
    uint64_t size, pos;
    unsigned char *buf; size_t cap;
    uint64_t bstart; size_t blen;
    const char *path;
    char *err; size_t errlen;
} srti__rd;

static uint64_t srti__rd_left(const srti__rd *r) { return r->pos <= r->size ? r->size - r->pos : 0; }

static int srti__rd_eof(srti__rd *r, uint64_t need, const char *what) {
    srti__seterr(r->err, r->errlen, "%s: unexpected end of file at offset %llu reading %s (%llu bytes needed, %llu left)",
                 r->path, (srti__ull)r->pos, what, (srti__ull)need, (srti__ull)srti__rd_left(r));
    return 1;
}
static int srti__rd_read(srti__rd *r, void *dst, uint64_t n, const char *what) {
    unsigned char *d = (unsigned char *)dst;
    if (n > srti__rd_left(r)) return srti__rd_eof(r, n, what);
    while (n > 0) {
        size_t k;
        if (r->pos < r->bstart || r->pos >= r->bstart + r->blen) {
            uint64_t want = srti__rd_left(r);
            if (want > r->cap) want = r->cap;
            if (srti__fseek64(r->fp, r->pos) != 0) {
                srti__seterr(r->err, r->errlen, "%s: seek to offset %llu failed", r->path, (srti__ull)r->pos);
                return 1;
            }
            r->bstart = r->pos;
            r->blen = fread(r->buf, 1, (size_t)want, r->fp);
            if (r->blen == 0) {
                srti__seterr(r->err, r->errlen, "%s: read error at offset %llu", r->path, (srti__ull)r->pos);
                return 1;
            }
        }
        k = (size_t)(r->bstart + r->blen - r->pos);
        if (k > n) k = (size_t)n;
        memcpy(d, r->buf + (size_t)(r->pos - r->bstart), k);
        d += k; r->pos += k; n -= k;
    }
    return 0;
}
static int srti__rd_skip(srti__rd *r, uint64_t n, const char *what) {
    if (n > srti__rd_left(r)) return srti__rd_eof(r, n, what);
    r->pos += n;
    return 0;
}
static int srti__rd_u32(srti__rd *r, uint32_t *v, const char *what) {
    unsigned char b[4];
    if (srti__rd_read(r, b, 4, what)) return 1;
    *v = srti__le32(b);
    return 0;
}
static int srti__rd_u64(srti__rd *r, uint64_t *v, const char *what) {
    unsigned char b[8];
    if (srti__rd_read(r, b, 8, what)) return 1;
    *v = srti__le64(b);
    return 0;
}
/* GGUF string: u64 length + bytes. maxlen bounds the length; result is NUL-terminated. */
static int srti__rd_gguf_str(srti__rd *r, char **out, uint64_t maxlen, const char *what) {
    uint64_t n, at = r->pos;
    char *s;
    *out = NULL;
    if (srti__rd_u64(r, &n, what)) return 1;
    if (n > srti__rd_left(r)) {
        srti__seterr(r->err, r->errlen, "%s: %s at offset %llu: string length %llu exceeds the %llu bytes left in the file",
                     r->path, what, (srti__ull)at, (srti__ull)n, (srti__ull)srti__rd_left(r));
        return 1;
    }
    if (n > maxlen) {
        srti__seterr(r->err, r->errlen, "%s: %s at offset %llu: string length %llu exceeds the limit %llu",
                     r->path, what, (srti__ull)at, (srti__ull)n, (srti__ull)maxlen);
        return 1;
    }
    s = (char *)SRTI_MALLOC((size_t)n + 1);
    if (!s) { srti__seterr(r->err, r->errlen, "%s: out of memory", r->path); return 1; }
    if (srti__rd_read(r, s, n, what)) { SRTI_FREE(s); return 1; }
    s[n] = 0;
    *out = s;
    return 0;
}

/* ---------------------------------------------------------------- model lifetime */
static void srti__free_strs(char **v, uint32_t n) {
    uint32_t i;
    if (!v) return;
    for (i = 0; i < n; i++) SRTI_FREE(v[i]);
    SRTI_FREE(v);
}
SRTI_API void srti_close(srti_model *m) {
    if (!m) return;
    srti__free_strs(m->vocab.tokens, m->vocab.n_tokens);
    srti__free_strs(m->vocab.merges, m->vocab.n_merges);
    SRTI_FREE(m->vocab.scores);
    SRTI_FREE(m->vocab.types);
    SRTI_FREE(m->vocab.chat_template);
    SRTI_FREE(m->tensors);
    if (m->priv) {
        uint64_t i;
        if (m->priv->fp) fclose(m->priv->fp);
        SRTI_FREE(m->priv->path);
        for (i = 0; i < m->priv->n_shards; i++) {
            if (m->priv->shard_fp && m->priv->shard_fp[i]) fclose(m->priv->shard_fp[i]);
            if (m->priv->shard_path) SRTI_FREE(m->priv->shard_path[i]);
        }
        SRTI_FREE(m->priv->shard_fp); SRTI_FREE(m->priv->shard_path); SRTI_FREE(m->priv->shard_size);
        for (i = 0; i < m->priv->n_kv; i++) { SRTI_FREE(m->priv->kv[i].key); SRTI_FREE(m->priv->kv[i].s); }
        SRTI_FREE(m->priv->kv);
        SRTI_FREE(m->priv->inline_vals);
        SRTI_FREE(m->priv->by_name);
        SRTI_FREE(m->priv);
    }
    SRTI_FREE(m);
}

static void srti__vocab_init(srti_vocab *v) {
    memset(v, 0, sizeof(*v));
    v->bos = v->eos = v->unk = v->pad = -1;
    v->add_bos = v->add_eos = v->add_space_prefix = -1;
}
SRTI_API void srti_vocab_add_eog(srti_vocab *v, int64_t id) {
    uint32_t i;
    if (!v || id < 0 || id >= (int64_t)v->n_tokens || id == v->eos || v->n_eog >= 16) return;
    for (i = 0; i < v->n_eog; i++) if (v->eog[i] == id) return;
    v->eog[v->n_eog++] = (int32_t)id;
}
static void srti__hparams_init(srti_hparams *hp) {
    memset(hp, 0, sizeof(*hp));
    hp->rope_theta = 10000.0f;
    hp->norm_eps = 1e-5f;
    strcpy(hp->rope_scaling, "none");
    hp->rope_scale_factor = 1.0f;
    hp->rope_low_freq_factor = 1.0f;
    hp->rope_high_freq_factor = 4.0f;
    hp->rope_attn_factor = 1.0f;
    hp->yarn_ext_factor = -1.0f;
    hp->expert_weights_norm = -1;
    hp->rope_finetuned = -1;
}

SRTI_API int srti_find(const srti_model *m, const char *name) {
    uint32_t i;
    if (!m || !name) return -1;
    if (m->priv && m->priv->by_name && m->priv->by_name_of == m->tensors && m->priv->n_by_name == m->n_tensors) {
        uint32_t lo = 0, hi = m->n_tensors;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2, k = m->priv->by_name[mid];
            const int c = strcmp(m->tensors[k].name, name);
            if (c == 0) return (int)k;
            if (c < 0) lo = mid + 1; else hi = mid;
        }
        /* not there: the scan below decides (a caller may have renamed tensors since) */
    }
    for (i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0) return (int)i;
    return -1;
}

/* ---------------------------------------------------------------- metadata store */
static int srti__kv_cmp(const void *a, const void *b) {
    return strcmp(((const srti__kv *)a)->key, ((const srti__kv *)b)->key);
}
static const srti__kv *srti__kv_find(const srti_model *m, const char *key) {
    uint64_t lo = 0, hi;
    if (!m || !m->priv || !key) return NULL;
    hi = m->priv->n_kv;
    while (lo < hi) {   /* kv is sorted by key once srti_open has finished parsing */
        uint64_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->priv->kv[mid].key, key);
        if (c == 0) return &m->priv->kv[mid];
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}
enum { SRTI__G_U8 = 0, SRTI__G_I8, SRTI__G_U16, SRTI__G_I16, SRTI__G_U32, SRTI__G_I32, SRTI__G_F32,
       SRTI__G_BOOL, SRTI__G_STR, SRTI__G_ARR, SRTI__G_U64, SRTI__G_I64, SRTI__G_F64, SRTI__G_COUNT };
static const char *srti__gtype_name(uint32_t t) {
    static const char *n[] = { "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
                               "string", "array", "uint64", "int64", "float64" };
    return t < SRTI__G_COUNT ? n[t] : "invalid";
}
static int srti__gtype_size(uint32_t t) {
    static const int s[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
    return t < SRTI__G_COUNT ? s[t] : 0;
}
static int srti__gtype_is_int(uint32_t t) {
    return t == SRTI__G_U8 || t == SRTI__G_I8 || t == SRTI__G_U16 || t == SRTI__G_I16 || t == SRTI__G_U32 ||
           t == SRTI__G_I32 || t == SRTI__G_BOOL || t == SRTI__G_U64 || t == SRTI__G_I64;
}
SRTI_API int srti_meta_str(const srti_model *m, const char *key, const char **out) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv || kv->type != SRTI__G_STR) return 0;
    if (out) *out = kv->s;
    return 1;
}
SRTI_API int srti_meta_int(const srti_model *m, const char *key, int64_t *out) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv || !srti__gtype_is_int(kv->type)) return 0;
    if (out) *out = kv->i;
    return 1;
}
SRTI_API int srti_meta_float(const srti_model *m, const char *key, double *out) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv || !(srti__gtype_is_int(kv->type) || kv->type == SRTI__G_F32 || kv->type == SRTI__G_F64)) return 0;
    if (out) *out = kv->f;
    return 1;
}

/* ---------------------------------------------------------------- GGUF */
#define SRTI__MAX_KEY 65535u
#define SRTI__MAX_DEPTH 8

/* Scalar value of type t into kv. */
static int srti__gguf_scalar(srti__rd *r, uint32_t t, srti__kv *kv, const char *what) {
    unsigned char b[8];
    int sz = srti__gtype_size(t);
    if (srti__rd_read(r, b, (uint64_t)sz, what)) return 1;
    kv->i = 0; kv->u = 0; kv->f = 0;
    switch (t) {
    case SRTI__G_U8: case SRTI__G_BOOL: kv->u = b[0]; kv->i = b[0]; break;
    case SRTI__G_I8: kv->i = (signed char)b[0]; break;
    case SRTI__G_U16: kv->u = srti__le16(b); kv->i = (int64_t)kv->u; break;
    case SRTI__G_I16: kv->i = (int16_t)srti__le16(b); break;
    case SRTI__G_U32: kv->u = srti__le32(b); kv->i = (int64_t)kv->u; break;
    case SRTI__G_I32: kv->i = (int32_t)srti__le32(b); break;
    case SRTI__G_U64: kv->u = srti__le64(b); kv->i = kv->u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)kv->u; break;
    case SRTI__G_I64: kv->i = (int64_t)srti__le64(b); break;
    case SRTI__G_F32: kv->f = srti__lef32(b); return 0;
    case SRTI__G_F64: { uint64_t u = srti__le64(b); memcpy(&kv->f, &u, 8); return 0; }
    default: return 1;
    }
    if (t == SRTI__G_I8 || t == SRTI__G_I16 || t == SRTI__G_I32 || t == SRTI__G_I64)
        kv->u = kv->i < 0 ? 0 : (uint64_t)kv->i;
    kv->f = (t == SRTI__G_U64) ? (double)kv->u : (double)kv->i;
    return 0;
}

static int srti__gguf_skip(srti__rd *r, uint32_t t, int depth, const char *key) {
    uint64_t n, i;
    if (t < SRTI__G_COUNT && srti__gtype_size(t) > 0) return srti__rd_skip(r, (uint64_t)srti__gtype_size(t), key);
    if (t == SRTI__G_STR) {
        if (srti__rd_u64(r, &n, key)) return 1;
        return srti__rd_skip(r, n, key);
    }
    if (t == SRTI__G_ARR) {
        uint32_t et; int es;
        if (depth >= SRTI__MAX_DEPTH) {
            srti__seterr(r->err, r->errlen, "%s: metadata '%s': arrays nested deeper than %d", r->path, key, SRTI__MAX_DEPTH);
            return 1;
        }
        if (srti__rd_u32(r, &et, key) || srti__rd_u64(r, &n, key)) return 1;
        if (et >= SRTI__G_COUNT) {
            srti__seterr(r->err, r->errlen, "%s: metadata '%s': invalid array element type %u at offset %llu",
                         r->path, key, et, (srti__ull)(r->pos - 12));
            return 1;
        }
        es = srti__gtype_size(et);
        if (es == 0) es = (et == SRTI__G_STR) ? 8 : 12;   /* smallest possible element */
        if (n > srti__rd_left(r) / (uint64_t)es) {
            srti__seterr(r->err, r->errlen, "%s: metadata '%s': array of %llu %s elements cannot fit in the %llu bytes left",
                         r->path, key, (srti__ull)n, srti__gtype_name(et), (srti__ull)srti__rd_left(r));
            return 1;
        }
        if (srti__gtype_size(et) > 0) return srti__rd_skip(r, n * (uint64_t)es, key);
        for (i = 0; i < n; i++)
            if (srti__gguf_skip(r, et, depth + 1, key)) return 1;
        return 0;
    }
    srti__seterr(r->err, r->errlen, "%s: metadata '%s': invalid value type %u", r->path, key, t);
    return 1;
}

/* Reads the header of an array and checks its element type and count. */
static int srti__gguf_arr_head(srti__rd *r, const char *key, uint32_t want1, uint32_t want2, uint64_t *n) {
    uint32_t et; int es;
    if (srti__rd_u32(r, &et, key) || srti__rd_u64(r, n, key)) return 1;
    if (et != want1 && et != want2) {
        srti__seterr(r->err, r->errlen, "%s: metadata '%s': expected an array of %s, found an array of %s",
                     r->path, key, srti__gtype_name(want1), srti__gtype_name(et));
        return 1;
    }
    es = srti__gtype_size(et);
    if (es == 0) es = 8;
    if (*n > srti__rd_left(r) / (uint64_t)es || *n > 0x7fffffffu) {
        srti__seterr(r->err, r->errlen, "%s: metadata '%s': array count %llu does not fit in the %llu bytes left in the file",
                     r->path, key, (srti__ull)*n, (srti__ull)srti__rd_left(r));
        return 1;
    }
    return 0;
}
static int srti__gguf_str_array(srti__rd *r, const char *key, char ***out, uint32_t *count) {
    uint64_t n, i;
    char **v;
    if (srti__gguf_arr_head(r, key, SRTI__G_STR, SRTI__G_STR, &n)) return 1;
    v = (char **)SRTI_CALLOC(n ? (size_t)n : 1, sizeof(char *));
    if (!v) { srti__seterr(r->err, r->errlen, "%s: out of memory", r->path); return 1; }
    for (i = 0; i < n; i++) {
        if (srti__rd_gguf_str(r, &v[i], srti__rd_left(r), key)) { srti__free_strs(v, (uint32_t)i); return 1; }
    }
    *out = v;
    *count = (uint32_t)n;
    return 0;
}

static int srti__ends_with(const char *s, const char *suffix) {
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* An array of one bool per layer (llama.cpp's newer attention.sliding_window_pattern: true = the
   layer slides) kept as a string of '0' and '1'. */
static int srti__gguf_flag_array(srti__rd *r, const char *key, char **out) {
    uint64_t n, i;
    unsigned char b;
    if (srti__gguf_arr_head(r, key, SRTI__G_BOOL, SRTI__G_BOOL, &n)) return 1;
    if (n > 4096) { srti__seterr(r->err, r->errlen, "%s: metadata '%s': %llu flags, more than 4096 layers", r->path, key, (srti__ull)n); return 1; }
    *out = (char *)SRTI_MALLOC((size_t)n + 1);
    if (!*out) { srti__seterr(r->err, r->errlen, "%s: out of memory", r->path); return 1; }
    for (i = 0; i < n; i++) {
        if (srti__rd_read(r, &b, 1, key)) return 1;
        (*out)[i] = b ? '1' : '0';
    }
    (*out)[n] = 0;
    return 0;
}

/* Reads an unsigned metadata value into *out (if the key exists). */
static int srti__kv_u32(srti_model *m, const char *path, const char *key, uint32_t *out, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv || kv->type == SRTI__G_ARR) return 0;   /* per-layer arrays (e.g. OpenELM) are not kept: stays 0 */
    if (!srti__gtype_is_int(kv->type)) {
        srti__seterr(err, errlen, "%s: metadata '%s' has type %s, expected an integer", path, key, srti__gtype_name(kv->type));
        return 1;
    }
    if (kv->i < 0 || kv->u > 0xffffffffu) {
        srti__seterr(err, errlen, "%s: metadata '%s' = %lld is out of range", path, key,
                     (long long)(kv->i < 0 ? kv->i : (int64_t)kv->u));
        return 1;
    }
    *out = (uint32_t)kv->u;
    return 0;
}
static int srti__kv_f32(srti_model *m, const char *path, const char *key, float *out, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv) return 0;
    if (!(srti__gtype_is_int(kv->type) || kv->type == SRTI__G_F32 || kv->type == SRTI__G_F64)) {
        srti__seterr(err, errlen, "%s: metadata '%s' has type %s, expected a number", path, key, srti__gtype_name(kv->type));
        return 1;
    }
    if (!(kv->f == kv->f) || kv->f > 3.4e38 || kv->f < -3.4e38) {
        srti__seterr(err, errlen, "%s: metadata '%s' is not a finite float", path, key);
        return 1;
    }
    *out = (float)kv->f;
    return 0;
}
static int srti__kv_str(srti_model *m, const char *path, const char *key, char *out, size_t cap, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv) return 0;
    if (kv->type != SRTI__G_STR) {
        srti__seterr(err, errlen, "%s: metadata '%s' has type %s, expected a string", path, key, srti__gtype_name(kv->type));
        return 1;
    }
    if (strlen(kv->s) >= cap) {
        srti__seterr(err, errlen, "%s: metadata '%s' = \"%.40s...\" is too long (at most %u bytes)", path, key, kv->s, (unsigned)(cap - 1));
        return 1;
    }
    strcpy(out, kv->s);
    return 0;
}
/* attention.sliding_window_pattern as the period P of the sliding layers (layer l slides iff
   l % P < P - 1): the number itself, or the smallest P that a file's per-layer flags follow
   (refused if they follow none). */
static int srti__kv_swa_period(srti_model *m, const char *path, const char *key, uint32_t n_layer, uint32_t *out, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    uint32_t p, l;
    if (!kv || kv->type != SRTI__G_ARR) return srti__kv_u32(m, path, key, out, err, errlen);
    if (!kv->s || strlen(kv->s) != n_layer) {
        srti__seterr(err, errlen, "%s: metadata '%s' must hold a bool for each of the %u layers", path, key, (unsigned)n_layer);
        return 1;
    }
    for (p = 1; p <= n_layer + 1 && p <= 1024; p++) {
        for (l = 0; l < n_layer && (kv->s[l] == '1') == (l % p < p - 1); l++) {}
        if (l == n_layer) { *out = p; return 0; }
    }
    srti__seterr(err, errlen, "%s: metadata '%s' (%.64s: 1 = sliding) is not a pattern where layer l slides iff l %% P < P - 1", path, key, kv->s);
    return 1;
}
static int srti__kv_bool(srti_model *m, const char *path, const char *key, int *out, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv) return 0;
    if (!srti__gtype_is_int(kv->type)) {
        srti__seterr(err, errlen, "%s: metadata '%s' has type %s, expected a bool", path, key, srti__gtype_name(kv->type));
        return 1;
    }
    *out = kv->i != 0;
    return 0;
}
static int srti__kv_token_id(srti_model *m, const char *path, const char *key, int32_t *out, char *err, size_t errlen) {
    const srti__kv *kv = srti__kv_find(m, key);
    if (!kv) return 0;
    if (!srti__gtype_is_int(kv->type) || kv->type == SRTI__G_BOOL) {
        srti__seterr(err, errlen, "%s: metadata '%s' has type %s, expected an integer", path, key, srti__gtype_name(kv->type));
        return 1;
    }
    /* -1 and 0xffffffff both mean "none" (converters write the latter) */
    if (kv->i == -1 || (kv->type == SRTI__G_U32 && kv->u == 0xffffffffu) || (kv->type == SRTI__G_U64 && kv->u == UINT64_MAX)) {
        *out = -1;
        return 0;
    }
    if (kv->i < 0 || (m->vocab.n_tokens > 0 && kv->u >= m->vocab.n_tokens) || kv->u > 0x7fffffff) {
        srti__seterr(err, errlen, "%s: metadata '%s' = %lld is outside the vocabulary (%u tokens)", path, key,
                     (long long)kv->i, (unsigned)m->vocab.n_tokens);
        return 1;
    }
    *out = (int32_t)kv->u;
    return 0;
}

static int srti__tensor_cmp(const void *a, const void *b) {
    return strcmp((*(const srti_tensor *const *)a)->name, (*(const srti_tensor *const *)b)->name);
}
/* srti_find's index of the finished model (without memory for it, srti_find scans) */
static void srti__index_names(srti_model *m) {
    srti_tensor **sorted;
    uint32_t i;
    SRTI_FREE(m->priv->by_name);
    m->priv->by_name = NULL;
    if (m->n_tensors < 16) return;   /* a scan is as fast */
    sorted = (srti_tensor **)SRTI_MALLOC((size_t)m->n_tensors * sizeof(srti_tensor *));
    m->priv->by_name = (uint32_t *)SRTI_MALLOC((size_t)m->n_tensors * sizeof(uint32_t));
    if (!sorted || !m->priv->by_name) { SRTI_FREE(sorted); SRTI_FREE(m->priv->by_name); m->priv->by_name = NULL; return; }
    for (i = 0; i < m->n_tensors; i++) sorted[i] = &m->tensors[i];
    qsort(sorted, (size_t)m->n_tensors, sizeof(srti_tensor *), srti__tensor_cmp);
    for (i = 0; i < m->n_tensors; i++) m->priv->by_name[i] = (uint32_t)(sorted[i] - m->tensors);
    SRTI_FREE(sorted);
    m->priv->n_by_name = m->n_tensors;
    m->priv->by_name_of = m->tensors;
}

/* Gemma 1 / 2 / 3: scaled embeddings, GELU, an attention scale; Gemma 2 / 3 also soft caps,
   sliding windows and post norms (formats/SRT.md) */
static int srti__gemma(const char *arch) { return !strcmp(arch, "gemma") || !strcmp(arch, "gemma2") || !strcmp(arch, "gemma3"); }
static int srti__gemma_post(const char *arch) { return !strcmp(arch, "gemma2") || !strcmp(arch, "gemma3"); }
/* Hyper-parameters and vocabulary fields from the metadata store (GGUF). */
static int srti__gguf_hparams(srti_model *m, const char *path, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    srti_vocab *v = &m->vocab;
    char key[128];
    const char *a;
    const srti__kv *kv;
    int e = 0, ti;
    int got_head_kv = 0;
    uint32_t scratch;

    if (srti__kv_str(m, path, "general.architecture", hp->arch, sizeof(hp->arch), err, errlen)) return 1;
    kv = srti__kv_find(m, "general.name");
    if (kv && kv->type == SRTI__G_STR) srti__copy_trunc(hp->name, sizeof(hp->name), kv->s);
    if (hp->arch[0] == 0 && m->n_tensors > 0) {
        srti__seterr(err, errlen, "%s: metadata 'general.architecture' is missing", path);
        return 1;
    }
    a = hp->arch;
#define SRTI__K(suffix) (snprintf(key, sizeof(key), "%s.%s", a, suffix), key)
    e = e || srti__kv_u32(m, path, SRTI__K("context_length"), &hp->n_ctx, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("embedding_length"), &hp->n_embd, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("feed_forward_length"), &hp->n_ff, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("block_count"), &hp->n_layer, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("attention.head_count"), &hp->n_head, err, errlen);
    if (!e && srti__kv_find(m, SRTI__K("attention.head_count_kv"))) {
        got_head_kv = 1;
        e = srti__kv_u32(m, path, key, &hp->n_head_kv, err, errlen);
    }
    e = e || srti__kv_u32(m, path, SRTI__K("attention.key_length"), &hp->head_dim, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("rope.dimension_count"), &hp->rope_dim, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.freq_base"), &hp->rope_theta, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("attention.layer_norm_rms_epsilon"), &hp->norm_eps, err, errlen);
    e = e || srti__kv_str(m, path, SRTI__K("rope.scaling.type"), hp->rope_scaling, sizeof(hp->rope_scaling), err, errlen);
    if (!e && srti__kv_find(m, SRTI__K("rope.scale_linear"))) {       /* older files */
        e = srti__kv_f32(m, path, key, &hp->rope_scale_factor, err, errlen);
        if (!e && hp->rope_scale_factor != 1.0f && strcmp(hp->rope_scaling, "none") == 0) strcpy(hp->rope_scaling, "linear");
    }
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.factor"), &hp->rope_scale_factor, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.low_freq_factor"), &hp->rope_low_freq_factor, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.high_freq_factor"), &hp->rope_high_freq_factor, err, errlen);
    e = e || srti__kv_u32(m, path, SRTI__K("rope.scaling.original_context_length"), &hp->rope_orig_ctx, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.attn_factor"), &hp->rope_attn_factor, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.yarn_ext_factor"), &hp->yarn_ext_factor, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.yarn_attn_factor"), &hp->yarn_attn_factor, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.yarn_beta_fast"), &hp->yarn_beta_fast, err, errlen);
    e = e || srti__kv_f32(m, path, SRTI__K("rope.scaling.yarn_beta_slow"), &hp->yarn_beta_slow, err, errlen);
    if (!strcmp(a, "phi3") || srti__gemma_post(a) || !strcmp(a, "olmo2") || !strcmp(a, "gpt-oss"))
        e = e || srti__kv_u32(m, path, SRTI__K("attention.sliding_window"), &hp->sliding_window, err, errlen);
    if (!strcmp(a, "gpt-oss") && hp->sliding_window > 0) {   /* llama.cpp: the even layers slide (pattern 2) */
        hp->swa_pattern = 2;
        e = e || srti__kv_swa_period(m, path, SRTI__K("attention.sliding_window_pattern"), hp->n_layer, &hp->swa_pattern, err, errlen);
    }
    if (!strcmp(a, "olmo2") && hp->sliding_window > 0) {   /* OLMo 3: 3 sliding layers of every 4 unless the file says otherwise; their own rope base */
        hp->swa_pattern = 4;
        e = e || srti__kv_swa_period(m, path, SRTI__K("attention.sliding_window_pattern"), hp->n_layer, &hp->swa_pattern, err, errlen);
        e = e || srti__kv_f32(m, path, SRTI__K("rope.freq_base_swa"), &hp->rope_theta_swa, err, errlen);
    }
    if (srti__gemma(a)) e = e || srti__kv_f32(m, path, SRTI__K("attention.scale"), &hp->attn_scale, err, errlen);
    if (!strcmp(a, "granite") || !strcmp(a, "granitemoe") || !strcmp(a, "minicpm")) {
        e = e || srti__kv_f32(m, path, SRTI__K("attention.scale"), &hp->attn_scale, err, errlen);
        e = e || srti__kv_f32(m, path, SRTI__K("embedding_scale"), &hp->embd_scale, err, errlen);
        e = e || srti__kv_f32(m, path, SRTI__K("residual_scale"), &hp->residual_scale, err, errlen);
        e = e || srti__kv_f32(m, path, SRTI__K("logit_scale"), &hp->logit_scale, err, errlen);
        e = e || srti__kv_bool(m, path, SRTI__K("rope.scaling.finetuned"), &hp->rope_finetuned, err, errlen);
    }
    if (!strcmp(a, "exaone4") && hp->n_layer == 64) {   /* llama.cpp: only the 32B (64 layers) has sliding layers: window 4096, 3 of every 4
                                                            layers, unless the file says otherwise; other sizes have none, whatever it says */
        hp->sliding_window = 4096;
        hp->swa_pattern = 4;
        e = e || srti__kv_u32(m, path, SRTI__K("attention.sliding_window"), &hp->sliding_window, err, errlen);
        e = e || srti__kv_swa_period(m, path, SRTI__K("attention.sliding_window_pattern"), hp->n_layer, &hp->swa_pattern, err, errlen);
    }
    if (!strcmp(a, "smollm3")) {   /* (our key; llama.cpp's GGUF has none and fixes 4) */
        hp->nope_step = 4;
        e = e || srti__kv_u32(m, path, SRTI__K("no_rope_layer_step"), &hp->nope_step, err, errlen);
    }
    if (srti__gemma_post(a)) {   /* (llama.cpp reads none of these for Gemma 1) */
        e = e || srti__kv_f32(m, path, SRTI__K("attn_logit_softcapping"), &hp->attn_softcap, err, errlen);
        e = e || srti__kv_f32(m, path, SRTI__K("final_logit_softcapping"), &hp->final_softcap, err, errlen);
        e = e || srti__kv_u32(m, path, SRTI__K("attention.sliding_window_pattern"), &hp->swa_pattern, err, errlen);   /* (an array is ignored) */
        e = e || srti__kv_f32(m, path, SRTI__K("rope.freq_base_swa"), &hp->rope_theta_swa, err, errlen);
    }
    if (!strcmp(a, "llama") || !strcmp(a, "qwen3moe") || !strcmp(a, "qwen2moe") || !strcmp(a, "granitemoe") || !strcmp(a, "olmoe") ||
        !strcmp(a, "gpt-oss")) {   /* mixture of experts: Mixtral, Qwen3-MoE, Qwen2-MoE, Granite MoE, OLMoE, gpt-oss */
        e = e || srti__kv_u32(m, path, SRTI__K("expert_count"), &hp->n_expert, err, errlen);
        e = e || srti__kv_u32(m, path, SRTI__K("expert_used_count"), &hp->n_expert_used, err, errlen);
        e = e || srti__kv_u32(m, path, SRTI__K("expert_feed_forward_length"), &hp->n_ff_exp, err, errlen);
        e = e || srti__kv_bool(m, path, SRTI__K("expert_weights_norm"), &hp->expert_weights_norm, err, errlen);   /* bool or integer */
        /* the shared expert (granitemoe: GraniteMoeShared's, where the key is); llama.cpp's qwen2moe and olmoe graphs never renormalize their
           picked experts' weights */
        if (!strcmp(a, "qwen2moe") || !strcmp(a, "granitemoe")) e = e || srti__kv_u32(m, path, SRTI__K("expert_shared_feed_forward_length"), &hp->n_ff_shexp, err, errlen);
        if ((!strcmp(a, "qwen2moe") || !strcmp(a, "olmoe")) && hp->expert_weights_norm < 0) hp->expert_weights_norm = 0;
        if (!strcmp(a, "gpt-oss")) hp->expert_weights_norm = 1;   /* (its softmax over the picked experts' logits) */
        /* srti__split_fused cuts the 3-D expert tensors by expert_count: a wrong count is refused here, before that */
        if (!e && hp->n_expert > 4096) {
            srti__seterr(err, errlen, "%s: metadata '%s' = %u: at most 4096 experts are supported", path, SRTI__K("expert_count"), (unsigned)hp->n_expert);
            e = 1;
        }
        if (!e && hp->n_expert > 0 && (hp->n_expert_used == 0 || hp->n_expert_used > hp->n_expert)) {
            const int absent = !srti__kv_find(m, SRTI__K("expert_used_count"));
            srti__seterr(err, errlen, "%s: metadata '%s' = %u%s: a token goes through 1 .. expert_count = %u experts", path,
                         key, (unsigned)hp->n_expert_used, absent ? " (missing)" : "", (unsigned)hp->n_expert);
            e = 1;
        }
    }
    scratch = 0;
    e = e || srti__kv_u32(m, path, SRTI__K("vocab_size"), &scratch, err, errlen);
#undef SRTI__K
    if (e) return 1;
    if (!got_head_kv) hp->n_head_kv = hp->n_head;
    if (hp->head_dim == 0 && hp->n_head > 0) hp->head_dim = hp->n_embd / hp->n_head;
    if (hp->rope_dim == 0) hp->rope_dim = hp->head_dim;
    hp->rope_neox = strcmp(hp->arch, "qwen2") == 0 || strcmp(hp->arch, "qwen2moe") == 0 || strcmp(hp->arch, "qwen3") == 0 || strcmp(hp->arch, "qwen3moe") == 0 ||
                    strcmp(hp->arch, "phi3") == 0 || srti__gemma(hp->arch) || strcmp(hp->arch, "olmo2") == 0 || strcmp(hp->arch, "olmoe") == 0 ||
                    strcmp(hp->arch, "exaone4") == 0 || strcmp(hp->arch, "exaone") == 0 || strcmp(hp->arch, "gpt-oss") == 0;
    /* llama.cpp's GGUF has no attention.scale for Gemma: llama.cpp takes 1 / sqrt(n_embd / n_head) for
       the 27B models (46 layers: Gemma 2, 62: Gemma 3; query_pre_attn_scalar 144 there) and
       1 / sqrt(head_dim) otherwise (all of Gemma 1). Recorded here, so the packed file says it. */
    if (srti__gemma(hp->arch) && hp->attn_scale == 0.0f && hp->n_head > 0 && hp->head_dim > 0) {
        const int big = (!strcmp(hp->arch, "gemma2") && hp->n_layer == 46) || (!strcmp(hp->arch, "gemma3") && hp->n_layer == 62);
        hp->attn_scale = 1.0f / sqrtf((float)(big ? hp->n_embd / hp->n_head : hp->head_dim));
    }
    hp->tied_output = srti_find(m, "output.weight") < 0;
    ti = srti_find(m, "token_embd.weight");
    if (ti >= 0 && m->tensors[ti].n_dims == 2 && m->tensors[ti].ne[1] <= 0xffffffffu) hp->n_vocab = (uint32_t)m->tensors[ti].ne[1];
    else if (v->n_tokens > 0) hp->n_vocab = v->n_tokens;
    else hp->n_vocab = scratch;

    /* vocabulary scalars */
    if (srti__kv_str(m, path, "tokenizer.ggml.model", v->model, sizeof(v->model), err, errlen)) return 1;
    if (srti__kv_str(m, path, "tokenizer.ggml.pre", v->pre, sizeof(v->pre), err, errlen)) return 1;
    if (srti__kv_token_id(m, path, "tokenizer.ggml.bos_token_id", &v->bos, err, errlen)) return 1;
    if (srti__kv_token_id(m, path, "tokenizer.ggml.eos_token_id", &v->eos, err, errlen)) return 1;
    {   /* end-of-turn ids llama.cpp's converter records */
        static const char *const ends[2] = {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"};
        int k;
        for (k = 0; k < 2; k++) {
            int32_t id = -1;
            if (srti__kv_token_id(m, path, ends[k], &id, err, errlen)) return 1;
            srti_vocab_add_eog(v, id);
        }
    }
    if (srti__kv_token_id(m, path, "tokenizer.ggml.unknown_token_id", &v->unk, err, errlen)) return 1;
    if (srti__kv_token_id(m, path, "tokenizer.ggml.padding_token_id", &v->pad, err, errlen)) return 1;
    if (srti__kv_bool(m, path, "tokenizer.ggml.add_bos_token", &v->add_bos, err, errlen)) return 1;
    if (srti__kv_bool(m, path, "tokenizer.ggml.add_eos_token", &v->add_eos, err, errlen)) return 1;
    if (srti__kv_bool(m, path, "tokenizer.ggml.add_space_prefix", &v->add_space_prefix, err, errlen)) return 1;
    kv = srti__kv_find(m, "tokenizer.chat_template");
    if (kv) {
        if (kv->type != SRTI__G_STR) {
            srti__seterr(err, errlen, "%s: metadata 'tokenizer.chat_template' has type %s, expected a string", path, srti__gtype_name(kv->type));
            return 1;
        }
        v->chat_template = srti__strdup(kv->s);
        if (!v->chat_template) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    }
    if (v->n_tokens > 0 && v->model[0] == 0) {
        srti__seterr(err, errlen, "%s: the file has tokenizer.ggml.tokens but no tokenizer.ggml.model", path);
        return 1;
    }
    return 0;
}

/* llama.cpp stores Llama-3 rope scaling as a tensor of per-frequency divisors (rope_freqs.weight)
   instead of metadata. When the file has no rope.scaling.type, recover the llama3 parameters
   from it: factor = its maximum; low/high freq factors and the original context are matched
   against the usual values (1, 4, 8192 or the file's original_context_length). */
static void srti__infer_llama3(srti_model *m) {
    int i = srti_find(m, "rope_freqs.weight");
    const srti_tensor *t;
    float f[4096], factor = 0.0f;
    uint32_t n, j, c;
    uint32_t origs[2];
    if (i < 0 || strcmp(m->hp.rope_scaling, "none") != 0) return;
    t = &m->tensors[i];
    n = (uint32_t)t->ne[0];
    if (t->n_dims != 1 || t->src_type != SRTI_TYPE_F32 || n == 0 || n > 4096 || n * 2 != m->hp.rope_dim) return;
    if (srti_read_f32(m, (uint32_t)i, f, NULL, 0) != 0) return;
    for (j = 0; j < n; j++) if (f[j] > factor) factor = f[j];
    if (!(factor > 1.0f) || !(factor < 1e6f)) return;
    origs[0] = m->hp.rope_orig_ctx ? m->hp.rope_orig_ctx : 8192; origs[1] = 8192;
    for (c = 0; c < 2; c++) {
        double orig = origs[c], lo = 1.0, hi = 4.0;
        int ok = 1;
        for (j = 0; j < n && ok; j++) {
            double freq = 1.0 / pow((double)m->hp.rope_theta, (double)(2 * j) / (double)m->hp.rope_dim);
            double wavelen = 2.0 * 3.14159265358979323846 / freq, want;
            if (wavelen < orig / hi) want = 1.0;
            else if (wavelen > orig / lo) want = factor;
            else {
                double smooth = (orig / wavelen - lo) / (hi - lo);
                want = 1.0 / ((1.0 - smooth) / factor + smooth);
            }
            if (fabs(want - (double)f[j]) > 1e-3 * want) ok = 0;
        }
        if (ok) {
            strcpy(m->hp.rope_scaling, "llama3");
            m->hp.rope_scale_factor = factor;
            m->hp.rope_low_freq_factor = 1.0f;
            m->hp.rope_high_freq_factor = 4.0f;
            m->hp.rope_orig_ctx = origs[c];
            return;
        }
    }
}

/* Tensors stored together that the runtime reads apart. Phi-3 keeps q, k and v in one matrix
   (attn_qkv: n_head + 2 n_head_kv heads of rows) and gate and up in one (ffn_up: 2 n_ff rows, gate
   first); llama.cpp keeps a layer's experts in one 3-D tensor per kind (ffn_gate_exps and
   ffn_up_exps [n_embd, n_ff_exp, n_expert], ffn_down_exps [n_ff_exp, n_embd, n_expert]). Each part
   becomes the 2-D tensor the other architectures (attn_q, ffn_gate) or older Mixtral files
   (blk.N.ffn_gate.X.weight) have: the same bytes, a range of the stored rows counted over
   ne[1] x ne[2] (rows are whole quantization blocks, so any type splits; expert X is rows
   X ne[1] .. (X + 1) ne[1] - 1). A model that already stores them apart is left as it is. */
typedef struct srti__parts {
    uint32_t n;                 /* parts (0: the tensor is not split) */
    int experts;                /* 1: a 3-D tensor of n_expert experts, whose parts are blk.N.KIND.X.weight; 2: gpt-oss's
                                   2-D expert biases [n, n_expert], whose parts are blk.N.KIND.X.bias */
    const char *const *kinds;   /* fused 2-D: part j is blk.N.kinds[j].weight; fused experts (Granite MoE's gate and up):
                                   part j is kinds[j % 2] of expert j / 2 */
    int interleaved;            /* fused experts: gate and up alternate by rows (a bias: by values), gpt-oss's Hugging Face
                                   ffn_gate_up_exps; else an expert's gate rows come first, then its up rows */
    const char *kind;           /* experts, one kind each: "ffn_gate", "ffn_up" or "ffn_down" */
    uint64_t rows[3];           /* fused 2-D: part j's rows (an expert's part has ne[1] / (kinds ? 2 : 1)) */
    uint64_t total;             /* fused 2-D: the rows the fused tensor must have */
    const char *dot;            /* the name after "blk.N" */
} srti__parts;
static uint32_t srti__split_parts(const srti_tensor *t, const srti_hparams *hp, srti__parts *p) {
    static const char *const qkv[3] = {"attn_q", "attn_k", "attn_v"}, *const gu[2] = {"ffn_gate", "ffn_up"};
    static const char *const gu_shexp[2] = {"ffn_gate_shexp", "ffn_up_shexp"};
    static const char *const exps[3] = {"ffn_gate", "ffn_up", "ffn_down"};
    const uint64_t F = hp->n_ff;
    int k;
    memset(p, 0, sizeof *p);
    p->dot = strncmp(t->name, "blk.", 4) ? NULL : strchr(t->name + 4, '.');
    if (!p->dot) return 0;
    if (!strcmp(hp->arch, "phi3") && !strcmp(p->dot, ".attn_qkv.weight")) {
        p->n = 3; p->kinds = qkv;
        p->rows[0] = (uint64_t)hp->n_head * hp->head_dim; p->rows[1] = p->rows[2] = (uint64_t)hp->n_head_kv * hp->head_dim;
    } else if (!strcmp(hp->arch, "phi3") && !strcmp(p->dot, ".ffn_up.weight") && F > 0 && t->ne[1] == 2 * F) {
        p->n = 2; p->kinds = gu; p->rows[0] = p->rows[1] = F;
    } else if (!strcmp(hp->arch, "granitemoe") && hp->n_ff_shexp > 0 && !strcmp(p->dot, ".ffn_gate_up_shexp.weight")) {   /* (a Hugging Face name) */
        p->n = 2; p->kinds = gu_shexp; p->rows[0] = p->rows[1] = hp->n_ff_shexp;
    } else if (!strcmp(hp->arch, "granitemoe") && hp->n_expert > 0 && !strcmp(p->dot, ".ffn_gate_up_exps.weight")) {
        p->n = 2 * hp->n_expert; p->experts = 1; p->kinds = gu;
    } else if (!strcmp(hp->arch, "gpt-oss") && hp->n_expert > 0 && (!strcmp(p->dot, ".ffn_gate_up_exps.weight") || !strcmp(p->dot, ".ffn_gate_up_exps.bias"))) {
        p->n = 2 * hp->n_expert; p->experts = srti__ends_with(p->dot, ".bias") ? 2 : 1; p->kinds = gu; p->interleaved = 1;   /* (Hugging Face names) */
    } else if (hp->n_expert > 0) {   /* llama (Mixtral), qwen2moe, qwen3moe and granitemoe, whose expert_count was read */
        for (k = 0; k < 3; k++) {
            const size_t n = strlen(exps[k]);
            if (!strncmp(p->dot + 1, exps[k], n) && !strcmp(p->dot + 1 + n, "_exps.weight")) { p->n = hp->n_expert; p->experts = 1; p->kind = exps[k]; break; }
            if (!strncmp(p->dot + 1, exps[k], n) && !strcmp(p->dot + 1 + n, "_exps.bias")) { p->n = hp->n_expert; p->experts = 2; p->kind = exps[k]; break; }
        }
    }
    p->total = p->rows[0] + p->rows[1] + p->rows[2];
    return p->n;
}
/* At most this many tensors in a model, after splitting or made at random: a real MoE file has some
   10^4 (Qwen3-235B-A22B: 94 layers x 393, 36945), and a small crafted file or config must not make
   millions (their descriptors alone: 46 MB at the limit). */
#define SRTI__MAX_TENSORS (1u << 18)
static int srti__split_fused(srti_model *m, char *err, size_t errlen) {
    uint32_t i, k;
    uint64_t n_new = 0;
    srti_tensor *nt, **sorted;
    srti__parts p;
    for (i = 0; i < m->n_tensors; i++)
        if (srti__split_parts(&m->tensors[i], &m->hp, &p)) n_new += p.n - 1;
    if (n_new == 0) return 0;
    if (m->n_tensors + n_new > SRTI__MAX_TENSORS) {
        srti__seterr(err, errlen, "%s: splitting the fused and per-expert tensors would make %llu tensors (at most %u)", m->priv->path,
                     (srti__ull)(m->n_tensors + n_new), SRTI__MAX_TENSORS);
        return 1;
    }
    nt = (srti_tensor *)SRTI_CALLOC((size_t)(m->n_tensors + n_new), sizeof(srti_tensor));
    if (!nt) { srti__seterr(err, errlen, "%s: out of memory", m->priv->path); return 1; }
    for (i = 0, k = 0; i < m->n_tensors; i++) {
        const srti_tensor *t = &m->tensors[i];
        const int experts = srti__split_parts(t, &m->hp, &p) ? p.experts : 0, bias = experts == 2;
        const uint64_t rows = t->ne[1] * t->ne[2];
        uint32_t j;
        if (!p.n) { nt[k++] = *t; continue; }
        if (experts ? t->ne[bias ? 1 : 2] != m->hp.n_expert || t->ne[3] != 1 || (bias && t->ne[2] != 1) || (p.kinds && t->ne[bias ? 0 : 1] % 2)
                    : t->n_dims != 2 || t->ne[1] != p.total) {
            if (experts)
                srti__seterr(err, errlen, "%s: tensor '%s' [%llu, %llu, %llu, %llu] cannot be split into %u experts (expert_count): its %s dimension must be %u%s",
                             m->priv->path, t->name, (srti__ull)t->ne[0], (srti__ull)t->ne[1], (srti__ull)t->ne[2], (srti__ull)t->ne[3],
                             (unsigned)m->hp.n_expert, bias ? "second and last" : "third", (unsigned)m->hp.n_expert,
                             p.kinds ? ", its rows (a bias: values) an even number (gate and up)" : "");
            else
                srti__seterr(err, errlen, "%s: tensor '%s' [%llu, %llu, %llu] cannot be split into %s (2-D, %llu rows expected)", m->priv->path, t->name,
                             (srti__ull)t->ne[0], (srti__ull)t->ne[1], (srti__ull)t->ne[2], p.n == 3 ? "q, k and v" : "gate and up", (srti__ull)p.total);
            SRTI_FREE(nt);
            return 1;
        }
        if (t->nbytes == 0 || t->nbytes % rows != 0 || t->permute_heads || t->values) {
            srti__seterr(err, errlen, "%s: tensor '%s' of type %u (%llu bytes) cannot be split into %u parts of whole rows", m->priv->path, t->name,
                         (unsigned)t->src_type, (srti__ull)t->nbytes, (unsigned)p.n);
            SRTI_FREE(nt);
            return 1;
        }
        if (t->src_type == SRTI_TYPE_HF_FP8) {   /* (its scales cover blocks of rows: a split would need them cut too) */
            srti__seterr(err, errlen, "%s: tensor '%s' is FP8, which is not split into its parts (a fused or 3-D FP8 tensor)", m->priv->path, t->name);
            SRTI_FREE(nt);
            return 1;
        }
        if (t->row_step > 1 || t->first || (t->tcols && !experts)) {
            srti__seterr(err, errlen, "%s: tensor '%s' is itself a part of a stored tensor", m->priv->path, t->name);
            SRTI_FREE(nt);
            return 1;
        }
        if (experts) {   /* expert x's bytes (and an MXFP4 pair's scales) are the x-th of n_expert equal ranges */
            const uint32_t per = p.kinds ? 2 : 1;   /* parts an expert has (gate and up) */
            const uint64_t xb = t->nbytes / m->hp.n_expert, xa = t->aux_nbytes / m->hp.n_expert;
            for (j = 0; j < p.n; j++) {
                srti_tensor *o = &nt[k++];
                const uint32_t x = j / per, q = j % per;
                *o = *t;
                snprintf(o->name, sizeof o->name, "%.*s.%s.%u.%s", (int)(p.dot - t->name), t->name, p.kinds ? p.kinds[q] : p.kind, (unsigned)x,
                         bias ? "bias" : "weight");
                o->n_dims = bias ? 1 : 2;
                if (bias) { o->ne[0] = t->ne[0] / per; o->ne[1] = 1; }
                else o->ne[1] = t->ne[1] / per;
                o->ne[2] = o->ne[3] = 1;
                o->offset = t->offset + x * xb;
                o->aux_offset = t->aux_offset + x * xa;
                o->nbytes = t->tcols ? xb : xb / per;   /* (a transposed part is read from its expert's whole matrix) */
                o->aux_nbytes = xa / per;
                if (p.interleaved || t->tcols) {
                    o->first = p.interleaved ? q : 0;
                    o->row_step = per;
                } else {   /* gate rows, then up rows */
                    o->offset += q * o->nbytes;
                    o->aux_offset += q * o->aux_nbytes;
                }
            }
        } else {
            const uint64_t row_bytes = t->nbytes / rows;
            uint64_t at = t->offset;
            for (j = 0; j < p.n; j++) {
                srti_tensor *o = &nt[k++];
                *o = *t;
                snprintf(o->name, sizeof o->name, "%.*s.%s.weight", (int)(p.dot - t->name), t->name, p.kinds[j]);
                o->ne[1] = p.rows[j];
                o->offset = at;
                o->nbytes = o->ne[1] * row_bytes;
                at += o->nbytes;
            }
        }
    }
    SRTI_FREE(m->tensors);
    m->tensors = nt;
    m->n_tensors = k;
    /* a file with both the stored and the split form of a tensor */
    sorted = (srti_tensor **)SRTI_MALLOC((size_t)m->n_tensors * sizeof(srti_tensor *));
    if (!sorted) { srti__seterr(err, errlen, "%s: out of memory", m->priv->path); return 1; }
    for (i = 0; i < m->n_tensors; i++) sorted[i] = &m->tensors[i];
    qsort(sorted, (size_t)m->n_tensors, sizeof(srti_tensor *), srti__tensor_cmp);
    for (i = 1; i < m->n_tensors; i++)
        if (!strcmp(sorted[i - 1]->name, sorted[i]->name)) {
            srti__seterr(err, errlen, "%s: tensor '%s' is both stored and part of a fused or per-expert tensor", m->priv->path, sorted[i]->name);
            SRTI_FREE(sorted);
            return 1;
        }
    SRTI_FREE(sorted);
    return 0;
}
/* Renames the tensors blk.N<from> to blk.N<to> (a name too long for the field stays as it is and
   is then missing by the other name). */
static void srti__rename_suffix(srti_model *m, const char *from, const char *to) {
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++) {
        char *name = m->tensors[i].name;
        const char *dot = strncmp(name, "blk.", 4) ? NULL : strchr(name + 4, '.');
        if (dot && !strcmp(dot, from) && (size_t)(dot - name) + strlen(to) < sizeof m->tensors[i].name) strcpy(name + (dot - name), to);
    }
}
/* LongRoPE (Phi-3 128k, Phi-3.5, Phi-4-mini): llama.cpp's GGUF has no scaling type for it, only
   the factor tensors. */
static void srti__infer_longrope(srti_model *m) {
    if (!strcmp(m->hp.rope_scaling, "none") && srti_find(m, "rope_factors_long.weight") >= 0 && srti_find(m, "rope_factors_short.weight") >= 0)
        strcpy(m->hp.rope_scaling, "longrope");
}

static int srti__open_gguf(srti_model *m, srti__rd *r, char *err, size_t errlen) {
    const char *path = r->path;
    unsigned char hdr[24];
    uint32_t version;
    uint64_t n_tensors, n_kv, i, cap_kv;
    uint64_t data_start;
    int has_scores = 0, has_types = 0;
    uint64_t n_scores = 0, n_types = 0;
    srti_tensor **sorted = NULL;

    if (srti__rd_read(r, hdr, 8, "the GGUF header")) return 1;
    version = srti__le32(hdr + 4);
    if (version == 1) { srti__seterr(err, errlen, "%s: GGUF version 1 is not supported (convert it with a newer tool)", path); return 1; }
    if (version != 2 && version != 3) {
        srti__seterr(err, errlen, "%s: unsupported GGUF version %u%s", path, (unsigned)version,
                     (version & 0xffff) == 0 ? " (a big-endian file?)" : "");
        return 1;
    }
    if (srti__rd_u64(r, &n_tensors, "the tensor count") || srti__rd_u64(r, &n_kv, "the metadata count")) return 1;
    m->source = SRTI_SRC_GGUF;
    snprintf(m->source_name, sizeof(m->source_name), "GGUF v%u", (unsigned)version);
    /* each metadata entry takes at least 13 bytes, each tensor info at least 28 */
    if (n_kv > srti__rd_left(r) / 13) {
        srti__seterr(err, errlen, "%s: metadata count %llu cannot fit in a file of %llu bytes", path, (srti__ull)n_kv, (srti__ull)r->size);
        return 1;
    }
    if (n_tensors > srti__rd_left(r) / 28 || n_tensors > 0x7fffffffu) {
        srti__seterr(err, errlen, "%s: tensor count %llu cannot fit in a file of %llu bytes", path, (srti__ull)n_tensors, (srti__ull)r->size);
        return 1;
    }
    cap_kv = n_kv;
    m->priv->kv = (srti__kv *)SRTI_CALLOC(cap_kv ? (size_t)cap_kv : 1, sizeof(srti__kv));
    if (!m->priv->kv) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }

    for (i = 0; i < n_kv; i++) {
        srti__kv *kv = &m->priv->kv[i];
        uint64_t at = r->pos;
        uint32_t t;
        if (srti__rd_gguf_str(r, &kv->key, SRTI__MAX_KEY, "a metadata key")) return 1;
        m->priv->n_kv = i + 1;
        if (srti__rd_u32(r, &t, kv->key)) return 1;
        kv->type = t;
        if (t >= SRTI__G_COUNT) {
            srti__seterr(err, errlen, "%s: metadata '%s' at offset %llu: invalid value type %u", path, kv->key, (srti__ull)at, t);
            return 1;
        }
        if (t == SRTI__G_STR) {
            if (srti__rd_gguf_str(r, &kv->s, srti__rd_left(r), kv->key)) return 1;
        } else if (t != SRTI__G_ARR) {
            if (srti__gguf_scalar(r, t, kv, kv->key)) return 1;
        } else if (strcmp(kv->key, "tokenizer.ggml.tokens") == 0) {
            if (m->vocab.tokens) goto dup;
            if (srti__gguf_str_array(r, kv->key, &m->vocab.tokens, &m->vocab.n_tokens)) return 1;
        } else if (strcmp(kv->key, "tokenizer.ggml.merges") == 0) {
            if (m->vocab.merges) goto dup;
            if (srti__gguf_str_array(r, kv->key, &m->vocab.merges, &m->vocab.n_merges)) return 1;
        } else if (strcmp(kv->key, "tokenizer.ggml.scores") == 0) {
            uint64_t j; unsigned char b[4];
            if (has_scores) goto dup;
            if (srti__gguf_arr_head(r, kv->key, SRTI__G_F32, SRTI__G_F32, &n_scores)) return 1;
            m->vocab.scores = (float *)SRTI_MALLOC(n_scores ? (size_t)n_scores * sizeof(float) : 1);
            if (!m->vocab.scores) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
            has_scores = 1;
            for (j = 0; j < n_scores; j++) {
                if (srti__rd_read(r, b, 4, kv->key)) return 1;
                m->vocab.scores[j] = srti__lef32(b);
            }
        } else if (srti__ends_with(kv->key, ".attention.sliding_window_pattern")) {   /* per-layer flags (srti__kv_swa_period) */
            if (srti__gguf_flag_array(r, kv->key, &kv->s)) return 1;
        } else if (strcmp(kv->key, "tokenizer.ggml.token_type") == 0) {
            uint64_t j; unsigned char b[4];
            if (has_types) goto dup;
            if (srti__gguf_arr_head(r, kv->key, SRTI__G_I32, SRTI__G_U32, &n_types)) return 1;
            m->vocab.types = (int32_t *)SRTI_MALLOC(n_types ? (size_t)n_types * sizeof(int32_t) : 1);
            if (!m->vocab.types) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
            has_types = 1;
            for (j = 0; j < n_types; j++) {
                if (srti__rd_read(r, b, 4, kv->key)) return 1;
                m->vocab.types[j] = (int32_t)srti__le32(b);
            }
        } else {
            if (srti__gguf_skip(r, t, 0, kv->key)) return 1;
        }
    }
    /* sort the store for lookups, reject duplicate keys */
    if (m->priv->n_kv > 1) {
        qsort(m->priv->kv, (size_t)m->priv->n_kv, sizeof(srti__kv), srti__kv_cmp);
        for (i = 1; i < m->priv->n_kv; i++)
            if (strcmp(m->priv->kv[i - 1].key, m->priv->kv[i].key) == 0) {
                srti__seterr(err, errlen, "%s: metadata key '%s' appears twice", path, m->priv->kv[i].key);
                return 1;
            }
    }
    if (has_scores && n_scores != m->vocab.n_tokens) {
        srti__seterr(err, errlen, "%s: tokenizer.ggml.scores has %llu entries but there are %u tokens", path, (srti__ull)n_scores, (unsigned)m->vocab.n_tokens);
        return 1;
    }
    if (has_types && n_types != m->vocab.n_tokens) {
        srti__seterr(err, errlen, "%s: tokenizer.ggml.token_type has %llu entries but there are %u tokens", path, (srti__ull)n_types, (unsigned)m->vocab.n_tokens);
        return 1;
    }
    if (!has_types && m->vocab.n_tokens > 0) {
        uint32_t j;
        m->vocab.types = (int32_t *)SRTI_MALLOC((size_t)m->vocab.n_tokens * sizeof(int32_t));
        if (!m->vocab.types) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
        for (j = 0; j < m->vocab.n_tokens; j++) m->vocab.types[j] = SRTI_TOKEN_NORMAL;
    }
    if (has_scores && m->vocab.n_tokens == 0) { SRTI_FREE(m->vocab.scores); m->vocab.scores = NULL; }
    if (has_types && m->vocab.n_tokens == 0) { SRTI_FREE(m->vocab.types); m->vocab.types = NULL; }

    /* alignment */
    m->alignment = 32;
    {
        const srti__kv *kv = srti__kv_find(m, "general.alignment");
        if (kv) {
            if (kv->type != SRTI__G_U32 || kv->u == 0 || (kv->u & (kv->u - 1)) != 0 || kv->u > (1u << 24)) {
                srti__seterr(err, errlen, "%s: general.alignment must be a uint32 power of two (got %s %llu)", path,
                             srti__gtype_name(kv->type), (srti__ull)kv->u);
                return 1;
            }
            m->alignment = (uint32_t)kv->u;
        }
    }

    /* tensor infos */
    m->tensors = (srti_tensor *)SRTI_CALLOC(n_tensors ? (size_t)n_tensors : 1, sizeof(srti_tensor));
    if (!m->tensors) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    for (i = 0; i < n_tensors; i++) {
        srti_tensor *t = &m->tensors[i];
        char *name = NULL;
        uint32_t d;
        uint64_t at = r->pos, nv = 1;
        if (srti__rd_gguf_str(r, &name, srti__rd_left(r), "a tensor name")) return 1;
        if (strlen(name) >= sizeof(t->name) || name[0] == 0) {
            srti__seterr(err, errlen, "%s: tensor %llu at offset %llu: name \"%.40s\" is %s", path, (srti__ull)i, (srti__ull)at,
                         name, name[0] ? "too long" : "empty");
            SRTI_FREE(name);
            return 1;
        }
        strcpy(t->name, name);
        SRTI_FREE(name);
        m->n_tensors = (uint32_t)(i + 1);
        if (srti__rd_u32(r, &t->n_dims, t->name)) return 1;
        if (t->n_dims < 1 || t->n_dims > 4) {
            srti__seterr(err, errlen, "%s: tensor '%s': %u dimensions (1 to 4 supported)", path, t->name, (unsigned)t->n_dims);
            return 1;
        }
        t->ne[0] = t->ne[1] = t->ne[2] = t->ne[3] = 1;
        for (d = 0; d < t->n_dims; d++) {
            if (srti__rd_u64(r, &t->ne[d], t->name)) return 1;
            if (t->ne[d] == 0 || t->ne[d] > ((uint64_t)1 << 40) || nv > ((uint64_t)1 << 48) / t->ne[d]) {
                srti__seterr(err, errlen, "%s: tensor '%s': dimension %u = %llu is zero or too large", path, t->name,
                             (unsigned)d, (srti__ull)t->ne[d]);
                return 1;
            }
            nv *= t->ne[d];
        }
        if (srti__rd_u32(r, &t->src_type, t->name) || srti__rd_u64(r, &t->offset, t->name)) return 1;
        {
            const srti__type_info *ti = srti__type(t->src_type);
            if (ti) {
                if (t->ne[0] % ti->blck != 0) {
                    srti__seterr(err, errlen, "%s: tensor '%s': row length %llu is not a multiple of the %s block size %u", path,
                                 t->name, (srti__ull)t->ne[0], ti->name, (unsigned)ti->blck);
                    return 1;
                }
                t->nbytes = nv / ti->blck * ti->size;
            } else {
                t->nbytes = 0;   /* unknown type: reported by srti_read_f32 */
            }
        }
    }
    /* duplicate tensor names */
    if (n_tensors > 1) {
        sorted = (srti_tensor **)SRTI_MALLOC((size_t)n_tensors * sizeof(srti_tensor *));
        if (!sorted) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
        for (i = 0; i < n_tensors; i++) sorted[i] = &m->tensors[i];
        qsort(sorted, (size_t)n_tensors, sizeof(srti_tensor *), srti__tensor_cmp);
        for (i = 1; i < n_tensors; i++)
            if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0) {
                srti__seterr(err, errlen, "%s: tensor '%s' appears twice", path, sorted[i]->name);
                SRTI_FREE(sorted);
                return 1;
            }
        SRTI_FREE(sorted);
    }
    /* data section */
    data_start = (r->pos + m->alignment - 1) / m->alignment * m->alignment;
    for (i = 0; i < n_tensors; i++) {
        srti_tensor *t = &m->tensors[i];
        if (t->offset % m->alignment != 0) {
            srti__seterr(err, errlen, "%s: tensor '%s': data offset %llu is not a multiple of the alignment %u", path, t->name,
                         (srti__ull)t->offset, (unsigned)m->alignment);
            return 1;
        }
        if (t->offset > r->size || data_start > r->size - t->offset || t->nbytes > r->size - data_start - t->offset) {
            srti__seterr(err, errlen, "%s: tensor '%s': data at offset %llu + %llu + %llu bytes exceeds the file size %llu",
                         path, t->name, (srti__ull)data_start, (srti__ull)t->offset, (srti__ull)t->nbytes, (srti__ull)r->size);
            return 1;
        }
        t->offset += data_start;
    }
    if (srti__gguf_hparams(m, path, err, errlen)) return 1;
    if (!strcmp(m->hp.arch, "gpt-oss")) srti__rename_suffix(m, ".post_attention_norm.weight", ".ffn_norm.weight");   /* (the FFN's input norm) */
    if (srti__split_fused(m, err, errlen)) return 1;
    srti__infer_llama3(m);
    srti__infer_longrope(m);
    return 0;
dup:
    srti__seterr(err, errlen, "%s: metadata key '%s' appears twice", path, m->priv->kv[m->priv->n_kv - 1].key);
    return 1;
}

/* ---------------------------------------------------------------- llama2.c */
typedef struct srti__l2c { int32_t dim, hidden, n_layers, n_heads, n_kv_heads, vocab, seq_len; int shared; } srti__l2c;

static void srti__add_tensor(srti_model *m, const char *name, uint64_t ne0, uint64_t ne1, uint64_t *off) {
    srti_tensor *t = &m->tensors[m->n_tensors++];
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->n_dims = ne1 > 0 ? 2 : 1;
    t->ne[0] = ne0; t->ne[1] = ne1 > 0 ? ne1 : 1; t->ne[2] = t->ne[3] = 1;
    t->src_type = SRTI_TYPE_F32;
    t->offset = *off;
    t->nbytes = ne0 * (ne1 > 0 ? ne1 : 1) * 4;
    *off += t->nbytes;
}

static int srti__llama2c_layout(srti_model *m, const srti__l2c *c, int v1, uint64_t header, char *err, size_t errlen) {
    const char *path = m->priv->path;
    uint64_t D = (uint64_t)c->dim, H = (uint64_t)c->hidden, L = (uint64_t)c->n_layers, V = (uint64_t)c->vocab;
    uint64_t hs = D / (uint64_t)c->n_heads, KV = hs * (uint64_t)c->n_kv_heads;
    uint64_t per_layer = D + D * D + 2 * D * KV + D * D + D + 3 * D * H;
    uint64_t total = header + 4 * (L * per_layer + D + V * D + (c->shared ? 0 : V * D) +
                                   (v1 ? 0 : (uint64_t)c->seq_len * (hs / 2) * 2));
    uint64_t off, l;
    char nm[64];
    if (total != m->file_size) {
        srti__seterr(err, errlen, "%s: file size %llu does not match the llama2.c %s header (dim %d, hidden %d, %d layers, "
                     "%d heads, %d kv heads, vocab %d, seq_len %d, %s classifier: %llu bytes expected)",
                     path, (srti__ull)m->file_size, v1 ? "v1" : "v0", c->dim, c->hidden, c->n_layers, c->n_heads, c->n_kv_heads,
                     c->vocab, c->seq_len, c->shared ? "shared" : "separate", (srti__ull)total);
        return 1;
    }
    m->tensors = (srti_tensor *)SRTI_CALLOC((size_t)(L * 9 + 3), sizeof(srti_tensor));
    if (!m->tensors) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    off = header;
#define SRTI__EACH(fmt, ne0, ne1) for (l = 0; l < L; l++) { snprintf(nm, sizeof nm, fmt, (unsigned)l); srti__add_tensor(m, nm, ne0, ne1, &off); }
    if (!v1) {
        srti__add_tensor(m, "token_embd.weight", D, V, &off);
        SRTI__EACH("blk.%u.attn_norm.weight", D, 0);
        SRTI__EACH("blk.%u.attn_q.weight", D, D);
        SRTI__EACH("blk.%u.attn_k.weight", D, KV);
        SRTI__EACH("blk.%u.attn_v.weight", D, KV);
        SRTI__EACH("blk.%u.attn_output.weight", D, D);
        SRTI__EACH("blk.%u.ffn_norm.weight", D, 0);
        SRTI__EACH("blk.%u.ffn_gate.weight", D, H);
        SRTI__EACH("blk.%u.ffn_down.weight", H, D);
        SRTI__EACH("blk.%u.ffn_up.weight", D, H);
        srti__add_tensor(m, "output_norm.weight", D, 0, &off);
        off += 4 * (uint64_t)c->seq_len * (hs / 2) * 2;   /* freq_cis_real, freq_cis_imag: unused */
    } else {
        SRTI__EACH("blk.%u.attn_norm.weight", D, 0);
        SRTI__EACH("blk.%u.ffn_norm.weight", D, 0);
        srti__add_tensor(m, "output_norm.weight", D, 0, &off);
        srti__add_tensor(m, "token_embd.weight", D, V, &off);
        SRTI__EACH("blk.%u.attn_q.weight", D, D);
        SRTI__EACH("blk.%u.attn_k.weight", D, KV);
        SRTI__EACH("blk.%u.attn_v.weight", D, KV);
        SRTI__EACH("blk.%u.attn_output.weight", D, D);
        SRTI__EACH("blk.%u.ffn_gate.weight", D, H);
        SRTI__EACH("blk.%u.ffn_down.weight", H, D);
        SRTI__EACH("blk.%u.ffn_up.weight", D, H);
    }
#undef SRTI__EACH
    if (!c->shared) srti__add_tensor(m, "output.weight", D, V, &off);
    if (off != total) { srti__seterr(err, errlen, "%s: internal layout error", path); return 1; }

    strcpy(m->hp.arch, "llama");
    m->hp.n_vocab = (uint32_t)V;
    m->hp.n_embd = (uint32_t)D;
    m->hp.n_ff = (uint32_t)H;
    m->hp.n_layer = (uint32_t)L;
    m->hp.n_head = (uint32_t)c->n_heads;
    m->hp.n_head_kv = (uint32_t)c->n_kv_heads;
    m->hp.head_dim = (uint32_t)hs;
    m->hp.rope_dim = (uint32_t)hs;
    m->hp.n_ctx = (uint32_t)c->seq_len;
    m->hp.tied_output = c->shared;
    return 0;
}

static int srti__llama2c_params(const char *path, srti__l2c *c, int v1, char *err, size_t errlen) {
    const char *what = v1 ? "llama2.c v1" : "llama2.c v0 (or an unknown format)";
    int64_t vocab = c->vocab < 0 ? -(int64_t)c->vocab : c->vocab;
    if (c->dim <= 0 || c->dim > 65536 || c->hidden <= 0 || c->hidden > (1 << 20) || c->n_layers <= 0 || c->n_layers > 1024 ||
        c->n_heads <= 0 || c->n_heads > c->dim || c->n_kv_heads <= 0 || c->n_kv_heads > c->n_heads ||
        vocab <= 0 || vocab > (1 << 22) || c->seq_len <= 0 || c->seq_len > (1 << 24) ||
        c->dim % c->n_heads != 0 || c->n_heads % c->n_kv_heads != 0) {
        srti__seterr(err, errlen, "%s: not a valid %s checkpoint: header dim %d, hidden_dim %d, n_layers %d, n_heads %d, "
                     "n_kv_heads %d, vocab_size %d, seq_len %d", path, what, c->dim, c->hidden, c->n_layers, c->n_heads,
                     c->n_kv_heads, c->vocab, c->seq_len);
        return 1;
    }
    return 0;
}

/* llama2.c tokenizer.bin, normalized to SentencePiece conventions (like llama.cpp's converter). */
static int srti__llama2c_tokenizer(srti_model *m, const char *tpath, char *err, size_t errlen) {
    srti__rd r;
    FILE *fp;
    int64_t sz;
    unsigned char b[8];
    uint32_t n = m->hp.n_vocab, i;
    int rc = 1;
    int32_t maxlen;
    srti_vocab *v = &m->vocab;

    fp = fopen(tpath, "rb");
    if (!fp) { srti__seterr(err, errlen, "%s: cannot open the tokenizer file", tpath); return 1; }
    memset(&r, 0, sizeof(r));
    r.fp = fp; r.path = tpath; r.err = err; r.errlen = errlen;
    if (srti__fseek_end(fp) != 0 || (sz = srti__ftell64(fp)) < 0) {
        srti__seterr(err, errlen, "%s: cannot determine the file size", tpath);
        fclose(fp);
        return 1;
    }
    r.size = (uint64_t)sz;
    r.cap = 1 << 16;
    r.buf = (unsigned char *)SRTI_MALLOC(r.cap);
    if (!r.buf) { fclose(fp); srti__seterr(err, errlen, "out of memory"); return 1; }
    if (srti__rd_read(&r, b, 4, "max_token_length")) goto done;
    maxlen = (int32_t)srti__le32(b);
    if (maxlen <= 0 || maxlen > 65536) {
        srti__seterr(err, errlen, "%s: not a llama2.c tokenizer: max_token_length %d", tpath, (int)maxlen);
        goto done;
    }
    /* each token takes at least 8 bytes */
    if ((uint64_t)n > srti__rd_left(&r) / 8) {
        srti__seterr(err, errlen, "%s: tokenizer file of %llu bytes is too small for the model's %u tokens", tpath,
                     (srti__ull)r.size, (unsigned)n);
        goto done;
    }
    v->tokens = (char **)SRTI_CALLOC(n ? n : 1, sizeof(char *));
    v->scores = (float *)SRTI_MALLOC((n ? n : 1) * sizeof(float));
    v->types = (int32_t *)SRTI_MALLOC((n ? n : 1) * sizeof(int32_t));
    if (!v->tokens || !v->scores || !v->types) { srti__seterr(err, errlen, "out of memory"); goto done; }
    for (i = 0; i < n; i++) {
        int32_t len;
        char *s, *o;
        int32_t k, spaces = 0;
        int type = SRTI_TOKEN_NORMAL;
        if (srti__rd_read(&r, b, 8, "a token's score and length")) goto done;
        len = (int32_t)srti__le32(b + 4);
        if (len < 0 || len > maxlen || (uint64_t)len > srti__rd_left(&r)) {
            srti__seterr(err, errlen, "%s: token %u at offset %llu: invalid length %d (max_token_length %d, %llu bytes left)", tpath,
                         (unsigned)i, (srti__ull)(r.pos - 8), (int)len, (int)maxlen, (srti__ull)srti__rd_left(&r));
            goto done;
        }
        v->scores[i] = srti__lef32(b);
        s = (char *)SRTI_MALLOC((size_t)len + 1);
        if (!s) { srti__seterr(err, errlen, "out of memory"); goto done; }
        if (srti__rd_read(&r, s, (uint64_t)len, "a token")) { SRTI_FREE(s); goto done; }
        s[len] = 0;
        for (k = 0; k < len; k++) if (s[k] == ' ') spaces++;
        if (i == 0) { SRTI_FREE(s); s = srti__strdup("<unk>"); type = SRTI_TOKEN_UNKNOWN; }
        else if (i == 1) { SRTI_FREE(s); s = srti__strdup("<s>"); type = SRTI_TOKEN_CONTROL; }
        else if (i == 2) { SRTI_FREE(s); s = srti__strdup("</s>"); type = SRTI_TOKEN_CONTROL; }
        else if (len == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && s[5] == '>' &&
                 strchr("0123456789ABCDEFabcdef", s[3]) && strchr("0123456789ABCDEFabcdef", s[4])) type = SRTI_TOKEN_BYTE;
        else if (spaces > 0) {   /* ' ' -> U+2581 */
            char *t = (char *)SRTI_MALLOC((size_t)len + 2 * (size_t)spaces + 1);
            if (!t) { SRTI_FREE(s); srti__seterr(err, errlen, "out of memory"); goto done; }
            for (k = 0, o = t; k < len; k++) {
                if (s[k] == ' ') { *o++ = (char)0xE2; *o++ = (char)0x96; *o++ = (char)0x81; }
                else *o++ = s[k];
            }
            *o = 0;
            SRTI_FREE(s);
            s = t;
        }
        if (!s) { srti__seterr(err, errlen, "out of memory"); goto done; }
        v->tokens[i] = s;
        v->types[i] = type;
        v->n_tokens = i + 1;
    }
    if (srti__rd_left(&r) != 0) {
        srti__seterr(err, errlen, "%s: %llu unexpected bytes after the model's %u tokens (is this the right tokenizer?)", tpath,
                     (srti__ull)srti__rd_left(&r), (unsigned)n);
        goto done;
    }
    strcpy(v->model, "llama");
    v->unk = n > 0 ? 0 : -1;
    v->bos = n > 1 ? 1 : -1;
    v->eos = n > 2 ? 2 : -1;
    v->add_bos = 1;
    v->add_eos = 0;
    v->add_space_prefix = 1;
    rc = 0;
done:
    SRTI_FREE(r.buf);
    fclose(fp);
    return rc;
}

static int srti__open_llama2c(srti_model *m, srti__rd *r, int v1, const char *tokenizer_path, char *err, size_t errlen) {
    unsigned char h[37];
    srti__l2c c;
    uint64_t header = v1 ? 256 : 28;
    if (srti__rd_read(r, h, v1 ? 37 : 28, "the llama2.c header")) return 1;
    {
        const unsigned char *p = v1 ? h + 8 : h;
        c.dim = (int32_t)srti__le32(p); c.hidden = (int32_t)srti__le32(p + 4); c.n_layers = (int32_t)srti__le32(p + 8);
        c.n_heads = (int32_t)srti__le32(p + 12); c.n_kv_heads = (int32_t)srti__le32(p + 16);
        c.vocab = (int32_t)srti__le32(p + 20); c.seq_len = (int32_t)srti__le32(p + 24);
    }
    if (srti__llama2c_params(m->priv->path, &c, v1, err, errlen)) return 1;
    if (v1) {
        if (h[36] > 1) { srti__seterr(err, errlen, "%s: llama2.c v1 header: shared_classifier byte is %u", m->priv->path, h[36]); return 1; }
        if (c.vocab < 0) { srti__seterr(err, errlen, "%s: llama2.c v1 header: negative vocab_size %d", m->priv->path, c.vocab); return 1; }
        c.shared = h[36];
    } else {
        c.shared = c.vocab > 0;
        if (c.vocab < 0) c.vocab = -c.vocab;
    }
    m->source = v1 ? SRTI_SRC_LLAMA2C_V1 : SRTI_SRC_LLAMA2C_V0;
    strcpy(m->source_name, v1 ? "llama2.c v1" : "llama2.c v0");
    if (srti__llama2c_layout(m, &c, v1, header, err, errlen)) return 1;
    if (tokenizer_path && srti__llama2c_tokenizer(m, tokenizer_path, err, errlen)) return 1;
    return 0;
}

/* ---------------------------------------------------------------- open / read */
/* Hugging Face folders and random models: tools/srt_hf.h, included at the end. */
static char *srti__hf_folder(const char *path, int *oom);
static int srti__open_hf(srti_model *m, const char *dir, char *err, size_t errlen);
static int srti__random_read(srti_model *m, uint32_t i, float *out, char *err, size_t errlen);
static void srti__permute_rows(float *w, uint64_t rows, uint64_t cols, uint32_t n_head);

SRTI_API int srti_open(const char *path, const char *tokenizer_path, srti_model **out, char *err, size_t errlen) {
    srti_model *m;
    srti__rd r;
    unsigned char magic[8];
    int64_t sz;
    int rc = 1;

    if (err && errlen) err[0] = 0;
    if (!out || !path) { srti__seterr(err, errlen, "srti_open: invalid argument"); return 1; }
    *out = NULL;
    m = (srti_model *)SRTI_CALLOC(1, sizeof(srti_model));
    if (!m) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    m->priv = (struct srti__priv *)SRTI_CALLOC(1, sizeof(struct srti__priv));
    if (!m->priv) { SRTI_FREE(m); srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    srti__hparams_init(&m->hp);
    srti__vocab_init(&m->vocab);
    m->priv->path = srti__strdup(path);
    memset(&r, 0, sizeof(r));
    if (!m->priv->path) { srti__seterr(err, errlen, "%s: out of memory", path); goto fail; }
    {
        int oom = 0;
        char *dir = srti__hf_folder(path, &oom);   /* NULL unless a Hugging Face folder */
        if (oom) { srti__seterr(err, errlen, "%s: out of memory", path); goto fail; }
        if (dir) {
            if (tokenizer_path) {
                srti__seterr(err, errlen, "%s: a separate tokenizer file is only used with llama2.c checkpoints", path);
                SRTI_FREE(dir);
                goto fail;
            }
            rc = srti__open_hf(m, dir, err, errlen);
            SRTI_FREE(dir);
            if (rc) goto fail;
            srti__index_names(m);
            *out = m;
            return 0;
        }
    }
    m->priv->fp = fopen(path, "rb");
    if (!m->priv->fp) { srti__seterr(err, errlen, "%s: cannot open the file", path); goto fail; }
    if (srti__fseek_end(m->priv->fp) != 0 || (sz = srti__ftell64(m->priv->fp)) < 0) {
        srti__seterr(err, errlen, "%s: cannot determine the file size", path);
        goto fail;
    }
    m->file_size = (uint64_t)sz;
    r.fp = m->priv->fp; r.size = m->file_size; r.path = path; r.err = err; r.errlen = errlen;
    r.cap = 1 << 16;
    r.buf = (unsigned char *)SRTI_MALLOC(r.cap);
    if (!r.buf) { srti__seterr(err, errlen, "%s: out of memory", path); goto fail; }
    if (m->file_size < 8) {
        srti__seterr(err, errlen, "%s: file of %llu bytes is too small to be a model", path, (srti__ull)m->file_size);
        goto fail;
    }
    if (srti__rd_read(&r, magic, 8, "the magic")) goto fail;
    r.pos = 0;
    if (memcmp(magic, "GGUF", 4) == 0) {
        if (tokenizer_path) {
            srti__seterr(err, errlen, "%s: a separate tokenizer file is only used with llama2.c checkpoints", path);
            goto fail;
        }
        rc = srti__open_gguf(m, &r, err, errlen);
    } else if (srti__le32(magic) == 0x616b3432u) {
        uint32_t ver = srti__le32(magic + 4);
        if (ver != 1) {
            srti__seterr(err, errlen, "%s: llama2.c checkpoint version %u is not supported (only v0 and v1 float32 exports)", path, (unsigned)ver);
            goto fail;
        }
        rc = srti__open_llama2c(m, &r, 1, tokenizer_path, err, errlen);
    } else if (memcmp(magic, "FUGG", 4) == 0) {
        srti__seterr(err, errlen, "%s: big-endian GGUF files are not supported", path);
        goto fail;
    } else {
        rc = srti__open_llama2c(m, &r, 0, tokenizer_path, err, errlen);
    }
    if (rc) goto fail;
    SRTI_FREE(r.buf);
    srti__index_names(m);
    *out = m;
    return 0;
fail:
    if (err && errlen && err[0] == 0) srti__seterr(err, errlen, "%s: cannot read the model", path);
    SRTI_FREE(r.buf);
    srti_close(m);
    return 1;
}

SRTI_API void srti_set_parallel(srti_model *m, srti_parallel_fn fn, void *ctx) {
    if (m && m->priv) { m->priv->par = fn; m->priv->par_ctx = ctx; }
}
/* range(user, 0, n, 0) on this thread, or through srti_set_parallel's fn */
static void srti__parallel(srti_model *m, int64_t n, int64_t chunk, srti_range_fn range, void *user) {
    if (m->priv->par && n > 1) m->priv->par(m->priv->par_ctx, n, chunk, range, user);
    else if (n > 0) range(user, 0, n, 0);
}

typedef struct srti__dequantize_job { uint32_t type; const srti__type_info *ti; const unsigned char *src; float *out; } srti__dequantize_job;
static void srti__dequantize_blocks(void *user, int64_t b0, int64_t b1, int thread_index) {
    const srti__dequantize_job *j = (const srti__dequantize_job *)user;
    (void)thread_index;
    srti_dequantize(j->type, j->src + (uint64_t)b0 * j->ti->size, (uint64_t)(b1 - b0) * j->ti->blck, j->out + (uint64_t)b0 * j->ti->blck);
}

/* The file holding a tensor's data: the model's, or a Hugging Face shard */
static int srti__data_file(srti_model *m, const srti_tensor *t, uint32_t file, const char **path, FILE **fp, uint64_t *size, char *err, size_t errlen) {
    *path = m->priv->path;
    *fp = m->priv->fp;
    *size = m->file_size;
    if (m->priv->n_shards) {
        if (file >= m->priv->n_shards) { srti__seterr(err, errlen, "srti_read_f32: tensor '%s': bad shard index", t->name); return 1; }
        *path = m->priv->shard_path[file];
        *fp = m->priv->shard_fp[file];
        *size = m->priv->shard_size[file];
    }
    return 0;
}
static int srti__read_range(const char *path, FILE *fp, uint64_t size, const srti_tensor *t, uint64_t offset, uint64_t n, unsigned char *buf, char *err,
                            size_t errlen) {
    if (offset > size || n > size - offset) {
        srti__seterr(err, errlen, "%s: tensor '%s': data at offset %llu + %llu bytes exceeds file size %llu", path, t->name, (srti__ull)offset, (srti__ull)n,
                     (srti__ull)size);
        return 1;
    }
    if (srti__fseek64(fp, offset) != 0 || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        srti__seterr(err, errlen, "%s: tensor '%s': short read at offset %llu", path, t->name, (srti__ull)offset);
        return 1;
    }
    return 0;
}

/* A tensor's stored values as floats, whatever holds them (srti_read_f32 permutes q / k rows after). */
static int srti__read_stored(srti_model *m, const srti_tensor *t, float *out, char *err, size_t errlen);
/* A Hugging Face MXFP4 pair: each row's K / 32 blocks of 16 bytes (value 2j in byte j's low nibble,
   2j + 1 in its high one) and K / 32 scale bytes, rewritten as ggml's block_mxfp4 (the scale byte,
   then value j in byte j's low nibble and j + 16 in its high one: the same E8M0 scale, since
   ggml's table is the FP4 values doubled and its exponent bias 128) and decoded by srti_dequantize. */
static int srti__read_hf_mxfp4(srti_model *m, const srti_tensor *t, float *out, char *err, size_t errlen) {
    const uint64_t nb = srti_tensor_nvalues(t) / 32, chunk = 65536;   /* blocks */
    const char *path, *spath;
    FILE *fp, *sfp;
    uint64_t size, ssize, b0;
    unsigned char *raw, *sc, *gg;
    srti__dequantize_job dq;
    int rc = 0;
    if (t->ne[0] % 32 || t->nbytes != nb * 16 || t->aux_nbytes != nb) {
        srti__seterr(err, errlen, "%s: tensor '%s': MXFP4 blocks (%llu bytes) and scales (%llu bytes) do not fit %llu values of rows of %llu", m->priv->path,
                     t->name, (srti__ull)t->nbytes, (srti__ull)t->aux_nbytes, (srti__ull)srti_tensor_nvalues(t), (srti__ull)t->ne[0]);
        return 1;
    }
    if (srti__data_file(m, t, t->file, &path, &fp, &size, err, errlen) || srti__data_file(m, t, t->aux_file, &spath, &sfp, &ssize, err, errlen)) return 1;
    raw = (unsigned char *)SRTI_MALLOC((size_t)chunk * 16);
    sc = (unsigned char *)SRTI_MALLOC((size_t)chunk);
    gg = (unsigned char *)SRTI_MALLOC((size_t)chunk * 17);
    if (!raw || !sc || !gg) { srti__seterr(err, errlen, "%s: out of memory", path); rc = 1; }
    dq.type = SRTI_TYPE_MXFP4;
    dq.ti = srti__type(SRTI_TYPE_MXFP4);
    for (b0 = 0; !rc && b0 < nb; b0 += chunk) {
        const uint64_t k = nb - b0 < chunk ? nb - b0 : chunk;
        uint64_t b;
        int j;
        if (srti__read_range(path, fp, size, t, t->offset + b0 * 16, k * 16, raw, err, errlen) ||
            srti__read_range(spath, sfp, ssize, t, t->aux_offset + b0, k, sc, err, errlen)) { rc = 1; break; }
        for (b = 0; b < k; b++) {
            const unsigned char *q = raw + b * 16;
            unsigned char *g = gg + b * 17;
            g[0] = sc[b];
            for (j = 0; j < 16; j++) {   /* values j and j + 16: nibbles 2j's and (2j + 32)'s of the Hugging Face block */
                const unsigned lo = j % 2 ? q[j / 2] >> 4 : q[j / 2] & 15u, hi = j % 2 ? q[8 + j / 2] >> 4 : q[8 + j / 2] & 15u;
                g[1 + j] = (unsigned char)(lo | hi << 4);
            }
        }
        dq.src = gg;
        dq.out = out + b0 * 32;
        srti__parallel(m, (int64_t)k, 512, srti__dequantize_blocks, &dq);
    }
    SRTI_FREE(raw); SRTI_FREE(sc); SRTI_FREE(gg);
    return rc;
}
/* FP8 E4M3 (float8_e4m3fn: bias 7, no infinities; S.1111.111, NaN, is refused by the reader) */
static float srti__fp8_e4m3(unsigned char b) {
    const int e = (b >> 3) & 15, mant = b & 7;
    const float v = e ? ldexpf(1.0f + (float)mant / 8.0f, e - 7) : ldexpf((float)mant / 8.0f, -6);
    return b & 0x80 ? -v : v;
}
/* A Hugging Face FP8 pair: the [R, C] E4M3 bytes times weight_scale_inv [ceil(R / b0), ceil(C / b1)]
   (DeepSeek's and Qwen's block-wise FP8: value = fp8 x scale of its block). */
static int srti__read_hf_fp8(srti_model *m, const srti_tensor *t, float *out, char *err, size_t errlen) {
    const uint64_t R = t->ne[1], C = t->ne[0], b0 = m->priv->fp8_block[0] ? m->priv->fp8_block[0] : R, b1 = m->priv->fp8_block[1] ? m->priv->fp8_block[1] : C;
    const uint64_t sr = b0 ? (R + b0 - 1) / b0 : 0, sc = b1 ? (C + b1 - 1) / b1 : 0, ssize = t->aux_type == SRTI_TYPE_F32 ? 4 : 2;
    const char *path, *spath;
    FILE *fp, *sfp;
    uint64_t size, fsize, r, c;
    unsigned char *row = NULL, *sb = NULL;
    float *scales = NULL;
    int rc = 1;
    if (t->n_dims != 2 || !b0 || !b1 || t->nbytes != R * C || t->aux_rows != sr || t->aux_nbytes != sr * sc * ssize) {
        srti__seterr(err, errlen, "%s: tensor '%s': FP8 values (%llu bytes) and scales (%llu bytes) do not fit [%llu, %llu] in blocks of %llu x %llu",
                     m->priv->path, t->name, (srti__ull)t->nbytes, (srti__ull)t->aux_nbytes, (srti__ull)R, (srti__ull)C, (srti__ull)b0, (srti__ull)b1);
        return 1;
    }
    if (srti__data_file(m, t, t->file, &path, &fp, &size, err, errlen) || srti__data_file(m, t, t->aux_file, &spath, &sfp, &fsize, err, errlen)) return 1;
    row = (unsigned char *)SRTI_MALLOC((size_t)C + 1);
    sb = (unsigned char *)SRTI_MALLOC((size_t)(sr * sc * ssize) + 1);
    scales = (float *)SRTI_MALLOC((size_t)(sr * sc) * sizeof(float) + 1);
    if (!row || !sb || !scales) { srti__seterr(err, errlen, "%s: out of memory", path); goto done; }
    if (srti__read_range(spath, sfp, fsize, t, t->aux_offset, sr * sc * ssize, sb, err, errlen) ||
        srti_dequantize(t->aux_type, sb, sr * sc, scales) != 0)
        goto done;
    for (r = 0; r < sr * sc; r++)
        if (!(scales[r] >= 0.0f && scales[r] < 3.0e38f)) {
            srti__seterr(err, errlen, "%s: tensor '%s': FP8 scale %llu is %g (a finite, non-negative number expected)", spath, t->name, (srti__ull)r, (double)scales[r]);
            goto done;
        }
    for (r = 0; r < R; r++) {
        if (srti__read_range(path, fp, size, t, t->offset + r * C, C, row, err, errlen)) goto done;
        for (c = 0; c < C; c++) {
            if ((row[c] & 0x7f) == 0x7f) {
                srti__seterr(err, errlen, "%s: tensor '%s': FP8 NaN at [%llu, %llu]", path, t->name, (srti__ull)r, (srti__ull)c);
                goto done;
            }
            out[r * C + c] = srti__fp8_e4m3(row[c]) * scales[(r / b0) * sc + c / b1];
        }
    }
    rc = 0;
done:
    SRTI_FREE(row); SRTI_FREE(sb); SRTI_FREE(scales);
    return rc;
}
/* A part of a stored tensor that is not a range of rows (srti_tensor.row_step / tcols): the stored
   span it lies in is read whole, then its rows picked (a transposed matrix: its columns). */
static int srti__read_gather(srti_model *m, const srti_tensor *t, float *out, char *err, size_t errlen) {
    const int vec = t->n_dims == 1;
    const uint64_t step = t->row_step > 1 ? t->row_step : 1, n = vec ? t->ne[0] : t->ne[1], K = vec ? 1 : t->ne[0];
    srti_tensor v = *t;
    uint64_t span, r, k;
    float *tmp;
    int rc;
    if (n == 0 || (!vec && (t->n_dims != 2 || t->ne[2] != 1)) || t->nbytes % n || (t->aux_nbytes && t->aux_nbytes % n) || (t->tcols && vec) ||
        (t->tcols && t->first + (n - 1) * step >= t->tcols)) {
        srti__seterr(err, errlen, "%s: tensor '%s': a part of a stored tensor that does not fit it", m->priv->path, t->name);
        return 1;
    }
    v.row_step = v.first = 0;
    v.tcols = 0;
    if (t->tcols) {   /* the stored [K rows, tcols columns] */
        const srti__type_info *ti = srti__type(t->src_type);
        if (!ti || ti->blck != 1 || t->nbytes != K * t->tcols * ti->size) {
            srti__seterr(err, errlen, "%s: tensor '%s': a transposed tensor of type %u and %llu bytes", m->priv->path, t->name, (unsigned)t->src_type,
                         (srti__ull)t->nbytes);
            return 1;
        }
        span = K;
        v.ne[0] = t->tcols;
        v.ne[1] = K;
    } else {   /* units first .. first + (n - 1) step */
        span = t->first + (n - 1) * step + 1;
        v.nbytes = span * (t->nbytes / n);
        v.aux_nbytes = span * (t->aux_nbytes / n);
        if (vec) v.ne[0] = span;
        else v.ne[1] = span;
    }
    tmp = (float *)SRTI_MALLOC((size_t)(srti_tensor_nvalues(&v) * sizeof(float)));
    if (!tmp) { srti__seterr(err, errlen, "%s: tensor '%s': out of memory", m->priv->path, t->name); return 1; }
    rc = srti__read_stored(m, &v, tmp, err, errlen);
    if (!rc && t->tcols)
        for (r = 0; r < n; r++)
            for (k = 0; k < K; k++) out[r * K + k] = tmp[k * t->tcols + t->first + r * step];
    else if (!rc)
        for (r = 0; r < n; r++) memcpy(out + r * K, tmp + (t->first + r * step) * K, (size_t)K * sizeof(float));
    SRTI_FREE(tmp);
    return rc;
}

SRTI_API int srti_read_f32(srti_model *m, uint32_t i, float *out, char *err, size_t errlen) {
    const srti_tensor *t;
    if (err && errlen) err[0] = 0;
    if (!m || !m->priv || !out || i >= m->n_tensors) { srti__seterr(err, errlen, "srti_read_f32: invalid argument"); return 1; }
    t = &m->tensors[i];
    if (t->values) { memcpy(out, t->values, (size_t)srti_tensor_nvalues(t) * sizeof(float)); return 0; }
    if (m->source == SRTI_SRC_RANDOM) return srti__random_read(m, i, out, err, errlen);
    if (srti__read_stored(m, t, out, err, errlen)) return 1;
    if (t->permute_heads) srti__permute_rows(out, t->n_dims == 1 ? t->ne[0] : t->ne[1], t->n_dims == 1 ? 1 : t->ne[0], t->permute_heads);
    return 0;
}
static int srti__read_stored(srti_model *m, const srti_tensor *t, float *out, char *err, size_t errlen) {
    const srti__type_info *ti;
    srti__dequantize_job dq;
    uint64_t nblocks, done = 0, chunk, file_size;
    unsigned char *buf = NULL;
    const char *path;
    FILE *fp;
    if (t->row_step > 1 || t->first || t->tcols) return srti__read_gather(m, t, out, err, errlen);
    if (t->src_type == SRTI_TYPE_HF_MXFP4) return srti__read_hf_mxfp4(m, t, out, err, errlen);
    if (t->src_type == SRTI_TYPE_HF_FP8) return srti__read_hf_fp8(m, t, out, err, errlen);
    if (srti__data_file(m, t, t->file, &path, &fp, &file_size, err, errlen)) return 1;
    ti = srti__type(t->src_type);
    if (!ti || !ti->supported) {
        srti__seterr(err, errlen, "%s: tensor '%s' has type %s (%u), which cannot be converted yet", path, t->name,
                     ti ? ti->name : "unknown", (unsigned)t->src_type);
        return 1;
    }
    nblocks = t->nbytes / ti->size;
    if (t->src_type == SRTI_TYPE_F32 && srti__host_is_le())   /* straight into the output */
        return srti__read_range(path, fp, file_size, t, t->offset, nblocks * 4, (unsigned char *)out, err, errlen);
    chunk = ((uint64_t)1 << 22) / ti->size;
    if (chunk == 0) chunk = 1;
    if (chunk > nblocks) chunk = nblocks;
    buf = (unsigned char *)SRTI_MALLOC(chunk ? (size_t)(chunk * ti->size) : 1);
    if (!buf) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    dq.type = t->src_type; dq.ti = ti;
    while (done < nblocks) {
        uint64_t k = nblocks - done < chunk ? nblocks - done : chunk;
        if (srti__read_range(path, fp, file_size, t, t->offset + done * ti->size, k * ti->size, buf, err, errlen)) {
            SRTI_FREE(buf);
            return 1;
        }
        dq.src = buf;
        dq.out = out + done * ti->blck;
        srti__parallel(m, (int64_t)k, (int64_t)(16384 / ti->blck + 1), srti__dequantize_blocks, &dq);
        done += k;
    }
    SRTI_FREE(buf);
    return 0;
}

/* ---------------------------------------------------------------- llama checks */
static int srti__expect(const srti_model *m, const char *name, uint64_t ne0, uint64_t ne1, int required, char *err, size_t errlen) {
    int i = srti_find(m, name);
    const srti_tensor *t;
    if (i < 0) {
        if (required) srti__seterr(err, errlen, "%s: tensor '%s' is missing", m->priv->path, name);
        return required;
    }
    t = &m->tensors[i];
    if (t->ne[0] != ne0 || t->ne[1] != ne1 || t->ne[2] != 1 || t->ne[3] != 1) {
        srti__seterr(err, errlen, "%s: tensor '%s' has shape [%llu, %llu, %llu, %llu], expected [%llu, %llu]", m->priv->path, name,
                     (srti__ull)t->ne[0], (srti__ull)t->ne[1], (srti__ull)t->ne[2], (srti__ull)t->ne[3], (srti__ull)ne0, (srti__ull)ne1);
        return 1;
    }
    return 0;
}
SRTI_API int srti_check_llama(const srti_model *m, char *err, size_t errlen) {
    const srti_hparams *hp;
    uint64_t E, F, V, Q, KV;
    uint32_t l;
    char nm[96];
    if (err && errlen) err[0] = 0;
    if (!m || !m->priv) { srti__seterr(err, errlen, "srti_check_llama: invalid argument"); return 1; }
    hp = &m->hp;
    const int gemma = srti__gemma(hp->arch);
    const int exaone4 = !strcmp(hp->arch, "exaone4");
    const int qk_norm = !strcmp(hp->arch, "qwen3") || !strcmp(hp->arch, "qwen3moe") || !strcmp(hp->arch, "gemma3") || exaone4;   /* per-head q/k RMSNorm */
    const int olmo2 = !strcmp(hp->arch, "olmo2"), qk_norm_full = olmo2 || !strcmp(hp->arch, "olmoe");   /* q/k RMSNorm over all heads */
    const int post_only = olmo2 || exaone4;   /* norms of the attention's and the FFN's outputs, none of their inputs */
    const int granite = !strcmp(hp->arch, "granite") || !strcmp(hp->arch, "granitemoe") || !strcmp(hp->arch, "minicpm");   /* the multipliers */
    const int gptoss = !strcmp(hp->arch, "gpt-oss");   /* biases of the attention's output, the router and the experts; attention sinks */
    const int moe_arch = !strcmp(hp->arch, "qwen3moe") || !strcmp(hp->arch, "qwen2moe") || !strcmp(hp->arch, "granitemoe") || !strcmp(hp->arch, "olmoe") ||
                         gptoss;   /* must have experts */
    if (strcmp(hp->arch, "llama") != 0 && strcmp(hp->arch, "qwen2") != 0 && strcmp(hp->arch, "qwen3") != 0 && !moe_arch &&
        strcmp(hp->arch, "phi3") != 0 && !gemma && strcmp(hp->arch, "smollm3") != 0 && !granite && !post_only && strcmp(hp->arch, "exaone") != 0) {
        srti__seterr(err, errlen, "%s: architecture '%s' is not supported (llama, qwen2, qwen2moe, qwen3, qwen3moe, phi3, gemma, gemma2, gemma3, smollm3, granite, "
                     "granitemoe, minicpm, olmo2, olmoe, exaone, exaone4, gpt-oss)", m->priv->path, hp->arch);
        return 1;
    }
    if (!strcmp(hp->rope_scaling, "yarn") &&
        (!(hp->rope_scale_factor >= 1 && hp->rope_scale_factor <= 1e6) || !(hp->yarn_ext_factor <= 1) || !(hp->yarn_attn_factor >= 0 && hp->yarn_attn_factor <= 16) ||
         !(hp->yarn_beta_fast >= 0 && hp->yarn_beta_fast <= 1e6) || !(hp->yarn_beta_slow >= 0 && hp->yarn_beta_slow <= 1e6))) {
        srti__seterr(err, errlen, "%s: implausible yarn parameters: factor %g, ext_factor %g, attn_factor %g, beta_fast %g, beta_slow %g", m->priv->path,
                     (double)hp->rope_scale_factor, (double)hp->yarn_ext_factor, (double)hp->yarn_attn_factor, (double)hp->yarn_beta_fast,
                     (double)hp->yarn_beta_slow);
        return 1;
    }
    if (granite &&
        (!(hp->logit_scale > 0 && hp->logit_scale <= 1e6) || !(hp->embd_scale >= 0 && hp->embd_scale <= 1e4) || !(hp->residual_scale >= 0 && hp->residual_scale <= 1e4) ||
         !(hp->attn_scale >= 0 && hp->attn_scale <= 16) || hp->rope_finetuned == 0)) {
        srti__seterr(err, errlen, "%s: %s needs a logit scale and plausible multipliers, with RoPE: logit %g, embedding %g, residual %g, attention %g%s",
                     m->priv->path, hp->arch, (double)hp->logit_scale, (double)hp->embd_scale, (double)hp->residual_scale, (double)hp->attn_scale,
                     hp->rope_finetuned == 0 ? ", rope.scaling.finetuned false (no RoPE) is not supported" : "");
        return 1;
    }
    if (hp->nope_step > 4096) {
        srti__seterr(err, errlen, "%s: implausible no_rope_layer_step %u", m->priv->path, (unsigned)hp->nope_step);
        return 1;
    }
    /* experts: llama (Mixtral), qwen2moe, qwen3moe, granitemoe and olmoe only, which must have them */
    if ((hp->n_expert > 0) != (moe_arch || (!strcmp(hp->arch, "llama") && hp->n_expert > 0)) ||
        (hp->n_expert > 0 && (hp->n_expert > 4096 || hp->n_expert_used == 0 || hp->n_expert_used > hp->n_expert || hp->n_ff_exp > (1u << 24) ||
                              hp->n_ff_shexp > (1u << 24)))) {
        srti__seterr(err, errlen, "%s: %s with %u experts (%u used, width %u): experts need architecture llama, qwen2moe, qwen3moe, granitemoe, olmoe or gpt-oss, "
                     "1 <= used <= experts <= 4096",
                     m->priv->path, hp->arch, (unsigned)hp->n_expert, (unsigned)hp->n_expert_used, (unsigned)hp->n_ff_exp);
        return 1;
    }
    if ((post_only || gptoss) && (hp->swa_pattern > 1024 || hp->sliding_window > (1u << 30) || !(hp->rope_theta_swa >= 0 && hp->rope_theta_swa <= 1e12))) {
        srti__seterr(err, errlen, "%s: implausible %s sliding window %u (pattern %u, rope base %g)", m->priv->path, hp->arch, (unsigned)hp->sliding_window,
                     (unsigned)hp->swa_pattern, (double)hp->rope_theta_swa);
        return 1;
    }
    if (gemma && (!(hp->attn_scale > 0 && hp->attn_scale <= 16) || !(hp->attn_softcap >= 0 && hp->attn_softcap <= 1e6) ||
                  !(hp->final_softcap >= 0 && hp->final_softcap <= 1e6) || hp->swa_pattern > 1024 || !(hp->rope_theta_swa >= 0 && hp->rope_theta_swa <= 1e12))) {
        srti__seterr(err, errlen, "%s: implausible gemma parameters: attention scale %g, soft caps %g / %g, sliding window pattern %u, rope base %g",
                     m->priv->path, (double)hp->attn_scale, (double)hp->attn_softcap, (double)hp->final_softcap, (unsigned)hp->swa_pattern,
                     (double)hp->rope_theta_swa);
        return 1;
    }
    if (hp->n_embd == 0 || hp->n_embd > (1u << 20) || hp->n_layer == 0 || hp->n_layer > 4096 || hp->n_head == 0 ||
        hp->n_head > 4096 || hp->n_head_kv == 0 || hp->n_head % hp->n_head_kv != 0 || hp->head_dim == 0 ||
        hp->head_dim > 4096 || hp->rope_dim == 0 || hp->rope_dim > hp->head_dim || hp->rope_dim % 2 != 0 ||
        hp->n_ff == 0 || hp->n_ff > (1u << 24) || hp->n_vocab == 0 || hp->n_vocab > (1u << 24) ||
        !(hp->norm_eps > 0 && hp->norm_eps < 1) || !(hp->rope_theta > 0) || hp->n_ctx > (1u << 26)) {
        srti__seterr(err, errlen, "%s: implausible hyper-parameters: n_vocab %u, n_embd %u, n_ff %u, n_layer %u, n_head %u, "
                     "n_head_kv %u, head_dim %u, rope_dim %u, n_ctx %u, norm_eps %g, rope_theta %g", m->priv->path,
                     hp->n_vocab, hp->n_embd, hp->n_ff, hp->n_layer, hp->n_head, hp->n_head_kv, hp->head_dim, hp->rope_dim,
                     hp->n_ctx, (double)hp->norm_eps, (double)hp->rope_theta);
        return 1;
    }
    E = hp->n_embd; F = hp->n_ff; V = hp->n_vocab;
    Q = (uint64_t)hp->n_head * hp->head_dim; KV = (uint64_t)hp->n_head_kv * hp->head_dim;
    if (srti__expect(m, "token_embd.weight", E, V, 1, err, errlen)) return 1;
    if (srti__expect(m, "output_norm.weight", E, 1, 1, err, errlen)) return 1;
    if (srti__expect(m, "output.weight", E, V, 0, err, errlen)) return 1;
    if (srti__expect(m, "rope_factors_long.weight", hp->rope_dim / 2, 1, !strcmp(hp->rope_scaling, "longrope"), err, errlen) ||
        srti__expect(m, "rope_factors_short.weight", hp->rope_dim / 2, 1, !strcmp(hp->rope_scaling, "longrope"), err, errlen))
        return 1;
    if (!(hp->rope_attn_factor > 0 && hp->rope_attn_factor <= 16)) {
        srti__seterr(err, errlen, "%s: implausible rope attention factor %g", m->priv->path, (double)hp->rope_attn_factor);
        return 1;
    }
    if (!hp->n_expert) {   /* llama.cpp's 3-D expert tensors are split only by a file that counts its experts */
        uint32_t i;
        for (i = 0; i < m->n_tensors; i++) {
            const size_t n = strlen(m->tensors[i].name);
            if (n > 12 && !strcmp(m->tensors[i].name + n - 12, "_exps.weight")) {
                srti__seterr(err, errlen, "%s: tensor '%s' holds %llu experts, but the file has no %s.expert_count", m->priv->path,
                             m->tensors[i].name, (srti__ull)m->tensors[i].ne[2], hp->arch);
                return 1;
            }
        }
    }
    for (l = 0; l < hp->n_layer; l++) {
#define SRTI__X(suffix, a, b, req) \
        snprintf(nm, sizeof nm, "blk.%u.%s", (unsigned)l, suffix); \
        if (srti__expect(m, nm, a, b, req, err, errlen)) return 1;
        SRTI__X("attn_norm.weight", E, 1, !post_only)   /* (OLMo 2 and EXAONE 4 normalize the outputs instead: the post norms below) */
        SRTI__X("attn_q.weight", E, Q, 1)
        SRTI__X("attn_k.weight", E, KV, 1)
        SRTI__X("attn_v.weight", E, KV, 1)
        SRTI__X("attn_output.weight", Q, E, 1)
        SRTI__X("attn_output.bias", E, 1, gptoss)
        SRTI__X("attn_sinks.weight", hp->n_head, 1, gptoss)
        SRTI__X("attn_q.bias", Q, 1, 0)
        SRTI__X("attn_k.bias", KV, 1, 0)
        SRTI__X("attn_v.bias", KV, 1, 0)
        SRTI__X("attn_q_norm.weight", qk_norm_full ? Q : hp->head_dim, 1, qk_norm || qk_norm_full)
        SRTI__X("attn_k_norm.weight", qk_norm_full ? KV : hp->head_dim, 1, qk_norm || qk_norm_full)
        SRTI__X("post_attention_norm.weight", E, 1, srti__gemma_post(hp->arch) || post_only)   /* Gemma 2 / 3's, OLMo 2's and EXAONE 4's norms of the attention's
                                                                                                   and the FFN's outputs */
        SRTI__X("post_ffw_norm.weight", E, 1, srti__gemma_post(hp->arch) || post_only)
        SRTI__X("ffn_norm.weight", E, 1, !post_only)
        if (hp->n_expert) {   /* the router and every expert's matrices; no dense FFN */
            const uint64_t FE = hp->n_ff_exp ? hp->n_ff_exp : F;
            uint32_t x;
            SRTI__X("ffn_gate_inp.weight", E, hp->n_expert, 1)
            SRTI__X("ffn_gate_inp.bias", hp->n_expert, 1, gptoss)
            for (x = 0; x < hp->n_expert; x++) {
                char ex[48];
#define SRTI__EX(kind, a, b) snprintf(ex, sizeof ex, "ffn_" kind ".%u.weight", (unsigned)x); SRTI__X(ex, a, b, 1)
#define SRTI__EXB(kind, a) snprintf(ex, sizeof ex, "ffn_" kind ".%u.bias", (unsigned)x); SRTI__X(ex, a, 1, gptoss)
                SRTI__EX("gate", E, FE)
                SRTI__EX("down", FE, E)
                SRTI__EX("up", E, FE)
                SRTI__EXB("gate", FE)
                SRTI__EXB("down", E)
                SRTI__EXB("up", FE)
#undef SRTI__EX
#undef SRTI__EXB
            }
            if (!strcmp(hp->arch, "qwen2moe") || hp->n_ff_shexp) {   /* the shared expert and (qwen2moe) its gate */
                const uint64_t FS = hp->n_ff_shexp ? hp->n_ff_shexp : F;
                SRTI__X("ffn_gate_inp_shexp.weight", E, 1, !strcmp(hp->arch, "qwen2moe"))
                SRTI__X("ffn_gate_shexp.weight", E, FS, 1)
                SRTI__X("ffn_down_shexp.weight", FS, E, 1)
                SRTI__X("ffn_up_shexp.weight", E, FS, 1)
            }
        } else {
            SRTI__X("ffn_gate.weight", E, F, 1)
            SRTI__X("ffn_down.weight", F, E, 1)
            SRTI__X("ffn_up.weight", E, F, 1)
        }
#undef SRTI__X
    }
    if (m->vocab.n_tokens > hp->n_vocab) {
        srti__seterr(err, errlen, "%s: the vocabulary has %u tokens but the embedding only %u rows", m->priv->path,
                     (unsigned)m->vocab.n_tokens, (unsigned)hp->n_vocab);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- Hugging Face folders, random models */
#include "srt_hf.h"

#endif /* SRT_IMPORT_IMPLEMENTATION_DONE */
#endif /* SRT_IMPORT_IMPLEMENTATION */
