/* srt-pack - converts a checkpoint (Hugging Face folder, GGUF, llama2.c v0/v1 + tokenizer.bin)
   into a .srt file, or makes a model of random weights from a config.json.

     srt-pack [options] IN OUT.srt
     srt-pack --random CONFIG.json [--seed S] [options] OUT.srt

   IN is a Hugging Face model folder (config.json, tokenizer.json, tokenizer_config.json,
   model.safetensors or model-0000N-of-0000M.safetensors + model.safetensors.index.json), a GGUF
   file or a llama2.c checkpoint.

   Options:
     --random CONFIG    random weights (N(0, 0.02), norms 1) in the shape of a Hugging Face
                        config.json, made one tensor at a time; the vocabulary is the folder's
                        tokenizer.json if there is one, else a placeholder of vocab_size tokens
     --seed S           seed of --random (default 1); the same seed gives the same file
     --tokenizer PATH   llama2.c tokenizer.bin (required for llama2.c checkpoints)
     --weights FMT      format of the 2-D weight matrices: f32, f16 (default; MXFP4 tensors of a
                        GGUF, gpt-oss's experts, then fp4), bf16, q8, q4, q2, tq (ternary), q1
                        (binary), fp4 (FP4 values with per-group scales: MXFP4 kept exactly), and
                        the sparse sb-bf16, sb-q8, sb-q4, s4x1, tcsl (zeros of the weights skipped;
                        see --sparsity); formats/LAYOUTS.md
     --group N|row      group size along the input dimension for q8..q1 and fp4: a multiple of 32
                        (default: the runtime's, 64; fp4 32), or "row" for one scale per row
     --tensor PAT=FMT[:G]  format (and group) for the 2-D tensors whose names match the glob PAT
                        (* and ?), e.g. --tensor 'token_embd*=q8' --tensor 'output.weight=q8:32';
                        repeatable, the last match wins
     --sparsity S       prune the attention and FFN weight matrices to sparsity S in [0, 1);
     --sparsity PAT=S   or those whose names match the glob PAT (repeatable, the last match wins,
                        e.g. --sparsity 0.5 --sparsity 'blk.*.ffn_*=0.7'); prints each 2-D tensor's
                        achieved sparsity and ||W - W'|| / ||W|| (W' pruned and quantized)
     --prune METHOD     magnitude (default): the smallest |w| of each tensor; wanda: the smallest
                        |w_ij| x ||x_j|| of each output row, x_j = input channel j over --calib
     --calib FILE.txt   calibration text for wanda: the unpruned model is packed F32 to
                        OUT.calib.srt (removed after), run over the text, and its inputs measured
     --keep-dense PATS  comma-separated globs of tensors never pruned, added to the defaults
                        token_embd.*, output.*, *norm*, *ffn_gate_inp* (tools/srt_prune.h)
     --sparse-format F  how pruned tensors are stored: sb (bitmap + values: bf16/f16/f32 -> sb-bf16,
                        q8 -> sb-q8, q4 -> sb-q4; q2/tq/q1 stay dense), s4x1 (4x1 block-sparse q8;
                        pruning then removes whole blocks of 4 output rows at one input column) or
                        tcsl (Tiled-CSL f16, for the CUDA backend); without it, pruned weights are
                        stored zeroed in the dense format
     --vocab-only       write only the tokenizer (no tensors, no hyper-parameters)
     --no-verify        do not load the result with srt_model_load() after writing it
     -t, --threads N    threads for generating, dequantizing, pruning and quantizing (default: one
                        per physical core, as srt_pool_create picks); the output does not depend on it
     -q, --quiet        no progress output
     -h, --help         this text

   1-D tensors (norms, biases) are always stored F32. Quantized GGUF sources (Q8_0, Q4_0, K-quants,
   ...) are dequantized to float first. The output is written to OUT.tmp and renamed at the end, so
   a failed run never leaves a partial file under OUT. Exit status 0 on success, 1 on error.

   Uses only the public APIs of sparsert.h and tools/srt_import.h. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#define SRT_IMPORT_IMPLEMENTATION
#include "tools/srt_import.h"
#include "tools/srt_prune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#  include <io.h>
#  define srtp_isatty(fd) _isatty(fd)
#else
#  include <unistd.h>
#  define srtp_isatty(fd) isatty(fd)
#endif

static void usage(FILE *f) {
    fprintf(f,
        "usage: srt-pack [options] IN OUT.srt\n"
        "       srt-pack --random CONFIG.json [--seed S] [options] OUT.srt\n"
        "  IN is a Hugging Face model folder (config.json, tokenizer.json, *.safetensors),\n"
        "  a GGUF file or a llama2.c checkpoint (v0 or v1; give its --tokenizer)\n"
        "options:\n"
        "  --random CONFIG    random weights in the shape of a Hugging Face config.json\n"
        "                     (tokenizer.json beside it is used if present)\n"
        "  --seed S           seed for --random (default 1)\n"
        "  --tokenizer PATH   llama2.c tokenizer.bin (required for llama2.c checkpoints)\n"
        "  --weights FMT      2-D weight format: f32, f16 (default; MXFP4 tensors fp4), bf16, q8, q4, q2, tq, q1, fp4,\n"
        "                     sb-bf16, sb-q8, sb-q4, s4x1, tcsl (sparse)\n"
        "  --group N|row      group size for q8..q1 and fp4: a multiple of 32 (default 64; fp4 32) or row\n"
        "  --tensor PAT=FMT[:G]  format for 2-D tensors matching the glob PAT (repeatable)\n"
        "  --sparsity S|PAT=S prune attention/FFN weights to sparsity S in [0, 1), all or those\n"
        "                     matching the glob PAT (repeatable, the last match wins)\n"
        "  --prune METHOD     magnitude (default: smallest |w| per tensor) or wanda (|w| x input\n"
        "                     channel norm on --calib text, per output row)\n"
        "  --calib FILE.txt   calibration text for --prune wanda\n"
        "  --keep-dense PATS  comma-separated globs never pruned (besides token_embd.*, output.*, *norm*, *ffn_gate_inp*)\n"
        "  --chat-template F  store the Jinja chat template in file F (replacing the input's, if any)\n"
        "  --vocab-only       pack only the tokenizer\n"
        "  --no-verify        skip loading the result with srt_model_load()\n"
        "  -t, --threads N    threads (default: one per physical core); the output is the same\n"
        "  -q, --quiet        no progress output\n"
        "  -h, --help         show this help\n");
}

static const char *base_name(const char *p) {
    const char *b = p, *q;
    for (q = p; *q; q++) if (*q == '/' || *q == '\\') b = q + 1;
    return b;
}

/* Matches "--name value" and "--name=value"; advances *i past a separate value. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') { *val = argv[*i] + n + 1; return 1; }
    if (argv[*i][n] != 0) return 0;
    if (*i + 1 >= argc) { *val = NULL; return 1; }
    *val = argv[++*i];
    return 1;
}

typedef struct packer {
    srt_writer *w;
    const char *out;
    srt_status st;
    char key[160];
} packer;

/* Metadata helpers: remember the first failure, ignore later calls. */
static void m_u32(packer *p, const char *a, const char *k, uint32_t v) {
    if (p->st != SRT_OK) return;
    snprintf(p->key, sizeof p->key, "%s%s%s", a ? a : "", a ? "." : "", k);
    p->st = srt_writer_meta_u32(p->w, p->key, v);
}
static void m_f32(packer *p, const char *a, const char *k, float v) {
    if (p->st != SRT_OK) return;
    snprintf(p->key, sizeof p->key, "%s%s%s", a ? a : "", a ? "." : "", k);
    p->st = srt_writer_meta_f32(p->w, p->key, v);
}
static void m_str(packer *p, const char *a, const char *k, const char *v) {
    if (p->st != SRT_OK) return;
    snprintf(p->key, sizeof p->key, "%s%s%s", a ? a : "", a ? "." : "", k);
    p->st = srt_writer_meta_str(p->w, p->key, v);
}
static void m_arr(packer *p, const char *k, srt_meta_type t, const void *data, uint32_t n) {
    if (p->st != SRT_OK) return;
    snprintf(p->key, sizeof p->key, "%s", k);
    p->st = srt_writer_meta_arr(p->w, p->key, t, data, n);
}

static void write_vocab(packer *p, const srti_vocab *v, int is_llama2c) {
    m_str(p, NULL, "tokenizer.ggml.model", v->model);
    if (v->pre[0]) m_str(p, NULL, "tokenizer.ggml.pre", v->pre);
    m_arr(p, "tokenizer.ggml.tokens", SRT_META_ARR_STR, (const void *)v->tokens, v->n_tokens);
    if (v->scores) m_arr(p, "tokenizer.ggml.scores", SRT_META_ARR_F32, v->scores, v->n_tokens);
    m_arr(p, "tokenizer.ggml.token_type", SRT_META_ARR_I32, v->types, v->n_tokens);
    if (v->n_merges) m_arr(p, "tokenizer.ggml.merges", SRT_META_ARR_STR, (const void *)v->merges, v->n_merges);
    if (v->bos >= 0) m_u32(p, NULL, "tokenizer.ggml.bos_token_id", (uint32_t)v->bos);
    if (v->eos >= 0) m_u32(p, NULL, "tokenizer.ggml.eos_token_id", (uint32_t)v->eos);
    if (v->n_eog) {   /* the other tokens that end generation (formats/SRT.md) */
        uint32_t ids[16], i;
        for (i = 0; i < v->n_eog; i++) ids[i] = (uint32_t)v->eog[i];
        m_arr(p, "tokenizer.ggml.eog_token_ids", SRT_META_ARR_U32, ids, v->n_eog);
    }
    if (v->unk >= 0) m_u32(p, NULL, "tokenizer.ggml.unknown_token_id", (uint32_t)v->unk);
    if (v->pad >= 0) m_u32(p, NULL, "tokenizer.ggml.padding_token_id", (uint32_t)v->pad);
    /* llama2.c: run.c always adds BOS and the dummy-prefix space, never EOS */
    if (v->add_bos >= 0) m_u32(p, NULL, "tokenizer.ggml.add_bos_token", (uint32_t)(v->add_bos != 0));
    else if (is_llama2c) m_u32(p, NULL, "tokenizer.ggml.add_bos_token", 1);
    if (v->add_eos >= 0) m_u32(p, NULL, "tokenizer.ggml.add_eos_token", (uint32_t)(v->add_eos != 0));
    else if (is_llama2c) m_u32(p, NULL, "tokenizer.ggml.add_eos_token", 0);
    if (v->add_space_prefix >= 0) m_u32(p, NULL, "tokenizer.ggml.add_space_prefix", (uint32_t)(v->add_space_prefix != 0));
    else if (is_llama2c) m_u32(p, NULL, "tokenizer.ggml.add_space_prefix", 1);
    if (v->chat_template) m_str(p, NULL, "tokenizer.chat_template", v->chat_template);
}

static void write_hparams(packer *p, const srti_hparams *hp) {
    const char *a = hp->arch;
    m_u32(p, a, "context_length", hp->n_ctx);
    m_u32(p, a, "embedding_length", hp->n_embd);
    m_u32(p, a, "feed_forward_length", hp->n_ff);
    m_u32(p, a, "block_count", hp->n_layer);
    m_u32(p, a, "attention.head_count", hp->n_head);
    m_u32(p, a, "attention.head_count_kv", hp->n_head_kv);
    m_u32(p, a, "attention.key_length", hp->head_dim);
    m_u32(p, a, "rope.dimension_count", hp->rope_dim);
    m_u32(p, a, "vocab_size", hp->n_vocab);
    m_f32(p, a, "rope.freq_base", hp->rope_theta);
    m_f32(p, a, "attention.layer_norm_rms_epsilon", hp->norm_eps);
    m_u32(p, a, "rope.neox", (uint32_t)(hp->rope_neox != 0));
    m_str(p, a, "rope.scaling.type", hp->rope_scaling);
    m_f32(p, a, "rope.scaling.factor", hp->rope_scale_factor);
    m_f32(p, a, "rope.scaling.low_freq_factor", hp->rope_low_freq_factor);
    m_f32(p, a, "rope.scaling.high_freq_factor", hp->rope_high_freq_factor);
    if (hp->rope_orig_ctx > 0) m_u32(p, a, "rope.scaling.original_context_length", hp->rope_orig_ctx);
    if (hp->rope_attn_factor != 1.0f) m_f32(p, a, "rope.scaling.attn_factor", hp->rope_attn_factor);
    if (hp->yarn_ext_factor >= 0.0f) m_f32(p, a, "rope.scaling.yarn_ext_factor", hp->yarn_ext_factor);   /* yarn */
    if (hp->yarn_attn_factor > 0.0f) m_f32(p, a, "rope.scaling.yarn_attn_factor", hp->yarn_attn_factor);
    if (hp->yarn_beta_fast > 0.0f) m_f32(p, a, "rope.scaling.yarn_beta_fast", hp->yarn_beta_fast);
    if (hp->yarn_beta_slow > 0.0f) m_f32(p, a, "rope.scaling.yarn_beta_slow", hp->yarn_beta_slow);
    if (hp->yarn_exact) m_u32(p, a, "rope.scaling.yarn_truncate", 0);
    if (hp->sliding_window) m_u32(p, a, "attention.sliding_window", hp->sliding_window);   /* phi3: recorded, not applied */
    if (hp->attn_scale > 0.0f) m_f32(p, a, "attention.scale", hp->attn_scale);   /* gemma, granite */
    if (!strcmp(hp->arch, "smollm3")) m_u32(p, a, "no_rope_layer_step", hp->nope_step);
    if (hp->embd_scale > 0.0f) m_f32(p, a, "embedding_scale", hp->embd_scale);   /* granite */
    if (hp->residual_scale > 0.0f) m_f32(p, a, "residual_scale", hp->residual_scale);
    if (hp->logit_scale > 0.0f) m_f32(p, a, "logit_scale", hp->logit_scale);
    if (hp->attn_softcap > 0.0f) m_f32(p, a, "attn_logit_softcapping", hp->attn_softcap);
    if (hp->final_softcap > 0.0f) m_f32(p, a, "final_logit_softcapping", hp->final_softcap);
    if (hp->swa_pattern) m_u32(p, a, "attention.sliding_window_pattern", hp->swa_pattern);
    if (hp->rope_theta_swa > 0.0f) m_f32(p, a, "rope.freq_base_swa", hp->rope_theta_swa);
    if (hp->n_expert) {   /* mixture of experts */
        m_u32(p, a, "expert_count", hp->n_expert);
        m_u32(p, a, "expert_used_count", hp->n_expert_used);
        m_u32(p, a, "expert_feed_forward_length", hp->n_ff_exp ? hp->n_ff_exp : hp->n_ff);
        m_u32(p, a, "expert_weights_norm", (uint32_t)(hp->expert_weights_norm != 0));
        if (!strcmp(hp->arch, "qwen2moe") || hp->n_ff_shexp) m_u32(p, a, "expert_shared_feed_forward_length", hp->n_ff_shexp ? hp->n_ff_shexp : hp->n_ff);
    }
}

/* Writing order: token_embd first, then each layer's tensors together, then the rest
   (output_norm, output); source order within a group. Keeps a layer's weights adjacent. */
static const srti_model *g_order_model;
static long order_key(const srti_tensor *t) {
    const char *n = t->name;
    if (strcmp(n, "token_embd.weight") == 0) return 0;
    if (strncmp(n, "blk.", 4) == 0 && n[4] >= '0' && n[4] <= '9') {
        long l = strtol(n + 4, NULL, 10);
        if (l >= 0 && l < 1000000) return 1 + l;
    }
    return 2000000;
}
static int order_cmp(const void *a, const void *b) {
    int ia = *(const int *)a, ib = *(const int *)b;
    long ka = order_key(&g_order_model->tensors[ia]), kb = order_key(&g_order_model->tensors[ib]);
    if (ka != kb) return ka < kb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

/* srti's parallel hook on sparsert's pool (the two range-function types have the same signature) */
static void pool_parallel_for(void *pool, int64_t n, int64_t chunk, srti_range_fn range, void *user) {
    srt_pool_parallel_for((srt_pool *)pool, n, chunk, (srt_range_fn)range, user);
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

/* A sparse format is slower than its dense counterpart below a break-even sparsity (fraction of
   zero weights; s4x1: of all-zero 4x1 blocks), measured with srt-bench gemv on a 2-vCPU AVX-512
   Xeon (formats/LAYOUTS.md): such a tensor is stored dense, with a message. tcsl: 0.6, where
   Flash-LLM's SpMM passes cuBLAS on an A100 (not yet measured with our CUDA kernel). */
typedef struct zero_count { const float *w; uint64_t rows, cols; int blocks; uint64_t zeros[SRT_MAX_CPUS]; } zero_count;
/* zeros of rows [4 r0, 4 r1): all-zero 4x1 blocks, or zero weights */
static void count_zeros(void *user, int64_t r0, int64_t r1, int thread_index) {
    zero_count *z = (zero_count *)user;
    uint64_t r, k, i, n = 0;
    for (r = 4 * (uint64_t)r0; r < 4 * (uint64_t)r1 && r < z->rows; r += 4)
        for (k = 0; k < z->cols; k++) {
            int any = 0;
            for (i = r; i < r + 4 && i < z->rows; i++) {
                int nz = z->w[i * z->cols + k] != 0.0f;
                if (!z->blocks) n += !nz;
                any |= nz;
            }
            if (z->blocks) n += !any;
        }
    z->zeros[thread_index] += n;
}
static srt_format sparse_or_dense(srt_pool *pool, const char *name, srt_format f, uint32_t *group, uint64_t rows, uint64_t cols, const float *w, int quiet, int tty) {
    uint64_t zeros = 0, total = f == SRT_S4X1 ? (rows + 3) / 4 * cols : rows * cols;
    double s, be = f == SRT_SB_BF16 ? 0.20 : f == SRT_SB_Q8 ? 0.25 : f == SRT_SB_Q4 ? 0.30 : f == SRT_TCSL ? 0.60 : 0.50;
    srt_format dense = f == SRT_SB_BF16 ? SRT_BF16 : f == SRT_SB_Q4 ? SRT_Q4 : f == SRT_TCSL ? SRT_F16 : SRT_Q8;
    zero_count z;
    int t;
    memset(&z, 0, sizeof z);
    z.w = w; z.rows = rows; z.cols = cols; z.blocks = f == SRT_S4X1;
    srt_pool_parallel_for(pool, (int64_t)((rows + 3) / 4), srt_pool_chunk(pool, (int64_t)((rows + 3) / 4), (int64_t)(16 * cols)), count_zeros, &z);
    for (t = 0; t < SRT_MAX_CPUS; t++) zeros += z.zeros[t];
    s = total ? (double)zeros / (double)total : 0.0;
    if (s >= be) return f;
    if (!quiet) fprintf(stderr, "%ssrt-pack: %s: sparsity %.2f is below %s's break-even %.2f: stored as %s\n", tty ? "\n" : "", name, s,
                        srt_format_name(f), be, srt_format_name(dense));
    if (dense == SRT_BF16 || dense == SRT_F16) *group = 0;
    else if (*group == 0) *group = 64;
    return dense;
}

/* Glob match with * and ?. */
static int glob_match(const char *p, const char *s) {
    if (*p == 0) return *s == 0;
    if (*p == '*') return glob_match(p + 1, s) || (*s && glob_match(p, s + 1));
    return *s && (*p == '?' || *p == *s) && glob_match(p + 1, s + 1);
}

/* A weight format choice: format and group (0 = default, UINT32_MAX = one group per row). */
typedef struct { const char *pattern; int fmt; uint32_t group; } fmt_choice;
#define GROUP_ROW 0xFFFFFFFFu

/* Parses "FMT[:G]" (fmt_only: no ":G") into c; returns 0 or prints an error and returns 1. */
static int parse_choice(const char *what, const char *fmt_s, const char *group_s, fmt_choice *c) {
    char name[16];
    size_t n = strcspn(fmt_s, ":");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, fmt_s, n); name[n] = 0;
    if (fmt_s[n] == ':') group_s = fmt_s + n + 1;
    c->fmt = srt_format_from_name(name);
    if (c->fmt < 0) { fprintf(stderr, "srt-pack: %s: unknown weight format '%s' (f32, f16, bf16, q8, q4, q2, tq, q1, fp4, sb-bf16, sb-q8, sb-q4, s4x1, tcsl)\n", what, name); return 1; }
    c->group = 0;
    if (group_s) {
        char *end;
        long g = strtol(group_s, &end, 10);
        if (strcmp(group_s, "row") == 0) c->group = GROUP_ROW;
        else if (*group_s == 0 || *end != 0 || g < 32 || g > 65536 || g % 32) {
            fprintf(stderr, "srt-pack: %s: bad group '%s' (a multiple of 32 up to 65536, or row)\n", what, group_s); return 1;
        } else c->group = (uint32_t)g;
        if (c->fmt < SRT_Q8 || c->fmt == SRT_SB_BF16 || c->fmt == SRT_TCSL) { fprintf(stderr, "srt-pack: %s: a group size applies only to q8, q4, q2, tq, q1, fp4, sb-q8, sb-q4, s4x1\n", what); return 1; }
    }
    return 0;
}

/* Writes m to `out`: metadata, then every tensor in the format `choices` picks, pruned by `prune`
   (NULL = none), quantized on `pool`; keep_mxfp4: MXFP4 tensors that no --tensor names go to fp4,
   which holds them exactly (no --weights given). Returns 0, or 1 after printing why (nothing is then
   left under `out`). */
static int write_srt(srti_model *m, const char *out, const char *source, const fmt_choice *choices, int n_choices, int keep_mxfp4,
                     int vocab_only, int quiet, srtp_state *prune, srt_pool *pool, uint64_t *n_written) {
    int tty = srtp_isatty(2), rc = 1;
    packer p;
    float *buf = NULL;
    int *order = NULL;
    uint64_t buf_cap = 0;
    char err[1024];
    memset(&p, 0, sizeof p);
    *n_written = 0;
    if (srt_writer_open(out, &p.w) != SRT_OK) {
        fprintf(stderr, "srt-pack: %s\n", srt_last_error());
        goto done;
    }
    p.out = out;
    srt_writer_set_pool(p.w, pool);
    m_str(&p, NULL, "general.architecture", m->hp.arch[0] ? m->hp.arch : "llama");
    m_str(&p, NULL, "general.name", m->hp.name);
    m_str(&p, NULL, "general.source", source);
    if (!vocab_only) write_hparams(&p, &m->hp);
    write_vocab(&p, &m->vocab, m->source == SRTI_SRC_LLAMA2C_V0 || m->source == SRTI_SRC_LLAMA2C_V1);
    if (p.st != SRT_OK) {
        fprintf(stderr, "srt-pack: %s: metadata '%s': %s\n", out, p.key, srt_last_error());
        srt_writer_abort(p.w);
        goto done;
    }

    if (!vocab_only) {
        uint32_t n_todo = 0, k = 0, oi;
        order = (int *)malloc((m->n_tensors + 1) * sizeof(int));
        if (!order) { fprintf(stderr, "srt-pack: out of memory\n"); srt_writer_abort(p.w); goto done; }
        for (oi = 0; oi < m->n_tensors; oi++) order[oi] = (int)oi;
        g_order_model = m;
        qsort(order, m->n_tensors, sizeof(int), order_cmp);
        for (oi = 0; oi < m->n_tensors; oi++) if (strcmp(m->tensors[oi].name, "rope_freqs.weight") != 0) n_todo++;
        for (oi = 0; oi < m->n_tensors; oi++) {
            const srti_tensor *t = &m->tensors[order[oi]];
            uint64_t nv = srti_tensor_nvalues(t), rows, cols;
            srt_format f;
            uint32_t g;
            srt_status st;
            if (strcmp(t->name, "rope_freqs.weight") == 0) continue;   /* recomputed from the llama3 metadata */
            k++;
            if (t->ne[2] != 1 || t->ne[3] != 1) {
                fprintf(stderr, "%ssrt-pack: tensor '%s' has %u dimensions; only 1-D and 2-D tensors are supported\n",
                        tty && !quiet ? "\n" : "", t->name, (unsigned)t->n_dims);
                srt_writer_abort(p.w);
                goto done;
            }
            if (t->n_dims == 1 || t->ne[1] == 1) { rows = 1; cols = t->ne[0]; f = SRT_F32; g = 0; }
            else {
                static const fmt_choice router = {"", SRT_F32, 0};   /* MoE routers stay f32 (as llama.cpp's quantizer keeps them) */
                const fmt_choice *c = glob_match("*.ffn_gate_inp.weight", t->name) ? &router : &choices[0];
                int ci;
                for (ci = 1; ci < n_choices; ci++) {
                    size_t plen = strcspn(choices[ci].pattern, "=");
                    char pat[256];
                    if (plen >= sizeof pat) plen = sizeof pat - 1;
                    memcpy(pat, choices[ci].pattern, plen); pat[plen] = 0;
                    if (glob_match(pat, t->name)) c = &choices[ci];
                }
                rows = t->ne[1]; cols = t->ne[0]; f = (srt_format)c->fmt;
                g = c->group == GROUP_ROW ? (uint32_t)((cols + 31) / 32 * 32) : c->group;
                if (c->group == GROUP_ROW && cols > 65536) g = 65536;
                if (keep_mxfp4 && c == &choices[0] && (t->src_type == SRTI_TYPE_MXFP4 || t->src_type == SRTI_TYPE_HF_MXFP4)) { f = SRT_FP4; g = 0; }
            }
            if (nv > buf_cap) {
                float *nb;
                if (nv > (uint64_t)((size_t)-1 / sizeof(float)) || !(nb = (float *)realloc(buf, (size_t)nv * sizeof(float)))) {
                    fprintf(stderr, "srt-pack: tensor '%s': out of memory for %llu values\n", t->name, (unsigned long long)nv);
                    srt_writer_abort(p.w);
                    goto done;
                }
                buf = nb;
                buf_cap = nv;
            }
            if (!quiet) {
                char line[256];
                snprintf(line, sizeof line, "[%3u/%u] %-28s %7llu x %-7llu %-4s <- %s", (unsigned)k, (unsigned)n_todo, t->name,
                         (unsigned long long)rows, (unsigned long long)cols, srt_format_name(f),
                         srti_type_name(t->src_type) ? srti_type_name(t->src_type) : "?");
                if (tty) fprintf(stderr, "\r%-100.100s", line);
                else fprintf(stderr, "%s\n", line);
                fflush(stderr);
            }
            if (srti_read_f32(m, (uint32_t)order[oi], buf, err, sizeof err) != 0) {
                fprintf(stderr, "%ssrt-pack: %s\n", tty && !quiet ? "\n" : "", err);
                srt_writer_abort(p.w);
                goto done;
            }
            if (prune && rows > 1 && srtp_process(prune, t->name, rows, cols, buf, &f, &g, err, sizeof err) != 0) {
                fprintf(stderr, "%ssrt-pack: %s\n", tty && !quiet ? "\n" : "", err);
                srt_writer_abort(p.w);
                goto done;
            }
            if (srt_format_is_sparse(f)) f = sparse_or_dense(pool, t->name, f, &g, rows, cols, buf, quiet, tty);
            st = srt_writer_add_tensor(p.w, t->name, f, g, rows, cols, buf);
            if (st != SRT_OK) {
                fprintf(stderr, "%ssrt-pack: %s: tensor '%s': %s (%s)\n", tty && !quiet ? "\n" : "", out, t->name,
                        srt_last_error(), srt_status_str(st));
                srt_writer_abort(p.w);
                goto done;
            }
            (*n_written)++;
        }
        if (!quiet && tty) fprintf(stderr, "\n");
    }
    {
        srt_status st = srt_writer_finish(p.w);   /* frees the writer in every case */
        p.w = NULL;
        if (st != SRT_OK) {
            fprintf(stderr, "srt-pack: %s: %s (%s)\n", out, srt_last_error(), srt_status_str(st));
            goto done;
        }
    }
    rc = 0;
done:
    free(buf);
    free(order);
    return rc;
}

int main(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *tok = NULL, *weights = NULL, *group_s = NULL, *random_cfg = NULL, *chat_template = NULL;
    unsigned long long seed = 1;
    int vocab_only = 0, quiet = 0, verify = 1, i, rc = 1, n_choices = 1, n_threads = 0;
    fmt_choice choices[64];   /* [0] = --weights/--group, then --tensor overrides */
    srti_model *m = NULL;
    char err[1024];
    uint64_t n_written = 0;
    char source[300];
    srtp_state prune;
    srt_pool *pool = NULL;

    srtp_init(&prune);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) quiet = 1;
        else if (strcmp(a, "--vocab-only") == 0) vocab_only = 1;
        else if (strcmp(a, "--no-verify") == 0) verify = 0;
        else if (opt_value(argc, argv, &i, "--tokenizer", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --tokenizer needs a path\n"); return 1; }
            tok = v;
        } else if (opt_value(argc, argv, &i, "--weights", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --weights needs a format (f32, f16, bf16, q8, q4, q2, tq, q1, fp4, sb-bf16, sb-q8, sb-q4, s4x1, tcsl)\n"); return 1; }
            weights = v;
        } else if (opt_value(argc, argv, &i, "--random", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --random needs a config.json\n"); return 1; }
            random_cfg = v;
        } else if (opt_value(argc, argv, &i, "-t", &v) || opt_value(argc, argv, &i, "--threads", &v)) {
            char *end;
            long t = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end != 0 || t < 1 || t > SRT_MAX_CPUS) { fprintf(stderr, "srt-pack: --threads needs a number in 1..%d\n", SRT_MAX_CPUS); return 1; }
            n_threads = (int)t;
        } else if (opt_value(argc, argv, &i, "--seed", &v)) {
            char *end;
            if (!v || !*v || (seed = strtoull(v, &end, 10), *end != 0)) { fprintf(stderr, "srt-pack: --seed needs a number\n"); return 1; }
        } else if (opt_value(argc, argv, &i, "--group", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --group needs a number\n"); return 1; }
            group_s = v;
        } else if (opt_value(argc, argv, &i, "--tensor", &v)) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v) { fprintf(stderr, "srt-pack: --tensor needs PATTERN=FORMAT[:GROUP]\n"); return 1; }
            if (n_choices == (int)(sizeof choices / sizeof choices[0])) { fprintf(stderr, "srt-pack: too many --tensor options\n"); return 1; }
            if (parse_choice("--tensor", eq + 1, NULL, &choices[n_choices]) != 0) return 1;
            choices[n_choices].pattern = v;
            n_choices++;
        } else if (opt_value(argc, argv, &i, "--sparsity", &v)) {
            if (srtp_parse_sparsity(&prune, v, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); return 1; }
        } else if (opt_value(argc, argv, &i, "--prune", &v)) {
            if (srtp_parse_method(&prune, v, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); return 1; }
        } else if (opt_value(argc, argv, &i, "--calib", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --calib needs a text file\n"); return 1; }
            prune.calib = v;
        } else if (opt_value(argc, argv, &i, "--keep-dense", &v)) {
            if (srtp_parse_keep(&prune, v, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); return 1; }
        } else if (opt_value(argc, argv, &i, "--chat-template", &v)) {
            if (!v) { fprintf(stderr, "srt-pack: --chat-template needs a file\n"); return 1; }
            chat_template = v;
        } else if (opt_value(argc, argv, &i, "--sparse-format", &v)) {
            if (srtp_parse_sparse_format(&prune, v, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); return 1; }
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "srt-pack: unknown option '%s'\n", a);
            usage(stderr);
            return 1;
        } else if (!in) in = a;
        else if (!out) out = a;
        else { fprintf(stderr, "srt-pack: unexpected argument '%s'\n", a); usage(stderr); return 1; }
    }
    if (random_cfg) {   /* one positional argument: the output */
        if (!in || out) { fprintf(stderr, "srt-pack: --random takes exactly one more argument, OUT.srt\n"); usage(stderr); return 1; }
        out = in;
        in = random_cfg;
        if (tok) { fprintf(stderr, "srt-pack: --tokenizer does not apply to --random\n"); return 1; }
    }
    if (!in || !out) { usage(stderr); return 1; }
    if (weights && strchr(weights, ':')) { fprintf(stderr, "srt-pack: --weights %s: give the group with --group (FMT:G is --tensor's form)\n", weights); return 1; }
    if (parse_choice("--weights", weights ? weights : "f16", group_s, &choices[0]) != 0) return 1;
    choices[0].pattern = "*";
    if (strcmp(in, out) == 0) { fprintf(stderr, "srt-pack: input and output are the same file\n"); return 1; }
    if (srtp_check_options(&prune, vocab_only, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); return 1; }

    if ((random_cfg ? srti_open_random(in, (uint64_t)seed, &m, err, sizeof err) : srti_open(in, tok, &m, err, sizeof err)) != 0) {
        fprintf(stderr, "srt-pack: %s\n", err);
        return 1;
    }
    {
        srt_pool_desc pd;
        memset(&pd, 0, sizeof pd);
        pd.n_threads = n_threads;
        if (srt_pool_create(&pd, &pool) != SRT_OK) { fprintf(stderr, "srt-pack: %s\n", srt_last_error()); goto done; }
        srti_set_parallel(m, pool_parallel_for, pool);
        prune.pool = pool;
    }
    if (m->vocab.n_tokens == 0) {
        fprintf(stderr, "srt-pack: %s has no tokenizer%s\n", in,
                m->source == SRTI_SRC_GGUF ? " (tokenizer.ggml.tokens is missing)"
                : m->source == SRTI_SRC_HF ? " (tokenizer.json is missing)"
                                           : "; llama2.c checkpoints need --tokenizer tokenizer.bin");
        goto done;
    }
    if (srt_tokenizer_supported(m->vocab.model, m->vocab.pre) != SRT_OK) {   /* unknown pre-tokenizers are refused, never guessed */
        fprintf(stderr, "srt-pack: %s: %s\n", in, srt_last_error());
        goto done;
    }
    if (chat_template) {   /* a template for a checkpoint without one (llama2.c) or a corrected one */
        FILE *f = fopen(chat_template, "rb");
        char *t = NULL;
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (t = (char *)malloc((size_t)n + 1)) != NULL &&
            fread(t, 1, (size_t)n, f) == (size_t)n) t[n] = 0;
        else { free(t); t = NULL; }
        if (f) fclose(f);
        if (!t) { fprintf(stderr, "srt-pack: cannot read the chat template %s\n", chat_template); goto done; }
        if (n == 0 || strlen(t) != (size_t)n) { fprintf(stderr, "srt-pack: the chat template %s is %s\n", chat_template, n ? "not text (it holds a NUL byte)" : "empty"); free(t); goto done; }
        SRTI_FREE(m->vocab.chat_template);
        if (!(m->vocab.chat_template = srti__strdup(t))) { fprintf(stderr, "srt-pack: out of memory\n"); free(t); goto done; }
        free(t);
    }
    if (!vocab_only && m->source == SRTI_SRC_HF && m->n_tensors == 0) {
        fprintf(stderr, "srt-pack: %s has no weights (model.safetensors or model.safetensors.index.json); --vocab-only packs just its tokenizer\n", in);
        goto done;
    }
    if (!vocab_only) {
        if (srti_check_llama(m, err, sizeof err) != 0) { fprintf(stderr, "srt-pack: %s\n", err); goto done; }
        if (strcmp(m->hp.rope_scaling, "none") && strcmp(m->hp.rope_scaling, "linear") && strcmp(m->hp.rope_scaling, "llama3") &&
            strcmp(m->hp.rope_scaling, "longrope") && strcmp(m->hp.rope_scaling, "yarn")) {
            fprintf(stderr, "srt-pack: %s: rope scaling '%s' is not supported (none, linear, llama3, longrope, yarn)\n", in, m->hp.rope_scaling);
            goto done;
        }
        if (srti_find(m, "rope_freqs.weight") >= 0 && strcmp(m->hp.rope_scaling, "llama3") != 0) {
            fprintf(stderr, "srt-pack: %s: rope_freqs.weight does not match Llama-3 rope scaling; custom rope frequencies are not supported\n", in);
            goto done;
        }
    }
    if (random_cfg) snprintf(source, sizeof source, "%s (random, seed %llu)", base_name(in), seed);
    else {   /* the file's (or folder's) own name, not its path */
        char name[256];
        size_t nl;
        snprintf(name, sizeof name, "%s", in);
        nl = strlen(name);
        while (nl > 1 && (name[nl - 1] == '/' || name[nl - 1] == '\\')) name[--nl] = 0;
        snprintf(source, sizeof source, "%s (%s)", base_name(name), m->source_name);
    }

    if (srtp_active(&prune) && prune.method == SRTP_WANDA) {   /* calibrate on the unpruned model, packed F32 */
        char calib_path[4096];
        fmt_choice f32 = {"*", SRT_F32, 0};
        int r;
        if (snprintf(calib_path, sizeof calib_path, "%s.calib.srt", out) >= (int)sizeof calib_path) { fprintf(stderr, "srt-pack: output path too long\n"); goto done; }
        if (!quiet) fprintf(stderr, "srt-pack: writing the unpruned model (f32) to %s for the wanda calibration\n", calib_path);
        if (write_srt(m, calib_path, source, &f32, 1, 0, 0, 1, NULL, pool, &n_written) != 0) goto done;
        r = srtp_calibrate(&prune, calib_path, quiet, err, sizeof err);
        remove(calib_path);
        if (r != 0) { fprintf(stderr, "srt-pack: %s\n", err); goto done; }
    }
    if (write_srt(m, out, source, choices, n_choices, !weights, vocab_only, quiet, srtp_active(&prune) ? &prune : NULL, pool, &n_written) != 0) goto done;
    if (srtp_active(&prune)) srtp_report(&prune, stdout);
    if (verify) {
        srt_model *sm = NULL;
        srt_model_desc md;
        srt_model_info info;
        srt_status st;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        md.verify_checksums = 1;
        st = srt_model_load(out, &md, &sm);
        if (st != SRT_OK) {
            fprintf(stderr, "srt-pack: wrote %s, but it does not load: %s (%s)\n", out, srt_last_error(), srt_status_str(st));
            goto done;
        }
        srt_model_get_info(sm, &info);
        if (!quiet)
            fprintf(stderr, "srt-pack: wrote %s: %.2f MiB, %llu tensors (%s weights), %d tokens, from %s", out,
                    mib(info.file_bytes), (unsigned long long)n_written, vocab_only ? "no" : srt_format_name((srt_format)choices[0].fmt),
                    srt_vocab_size(sm), source);
        if (!quiet && m->file_size) fprintf(stderr, " (%.2f MiB)", mib(m->file_size));
        if (!quiet) fprintf(stderr, "\n");
        srt_model_free(sm);
    } else if (!quiet) {
        FILE *f = fopen(out, "rb");
        long sz = -1;
        if (f) { fseek(f, 0, SEEK_END); sz = ftell(f); fclose(f); }
        fprintf(stderr, "srt-pack: wrote %s: %.2f MiB, %llu tensors, from %s\n", out, sz >= 0 ? mib((uint64_t)sz) : 0.0,
                (unsigned long long)n_written, source);
    }
    rc = 0;
done:
    srtp_free(&prune);
    srti_close(m);
    srt_pool_destroy(pool);
    return rc;
}
