/* test_arch.c - each architecture's transformer against a plain reference written here from the
   models' published definitions (double precision, one token at a time), on tiny random f32
   models: llama (adjacent-pair RoPE, also partial RoPE and head_dim != n_embd / n_head), qwen2
   (q/k/v biases, NeoX RoPE by default) and qwen3 (an RMSNorm of every q and k head, weights of
   head_dim, after the projections and their biases and before RoPE) and phi3 (NeoX RoPE; with
   LongRoPE: each frequency divided by its factor, the long set when the session's context exceeds
   the original one, cos and sin scaled by the attention factor; partial RoPE as Phi-4-mini).
   gemma (Gemma 1: embeddings times sqrt(n_embd), GELU (tanh), 1/sqrt(head_dim)), gemma2 / gemma3
   (those, norms of the attention's and the FFN's outputs,
   the file's attention scale, sliding-window layers; gemma2: soft caps of the scores
   and the logits; gemma3: q/k norms, the sliding layers' own rope base, linear rope scaling of the
   global ones), smollm3 (NoPE layers), granite (the four multipliers), olmo2 (norms of the
   attention's and the FFN's outputs only; q and k each normalized over all heads), exaone4 (those
   output norms with per-head q/k norms; with a window, sliding layers in a pattern and no RoPE in
   the full-attention ones), exaone (EXAONE 3.x: llama's layers with NeoX RoPE) and the mixtures
   of experts (Mixtral, qwen3moe, qwen2moe with a gated shared expert, granitemoe with an ungated
   one, olmoe with olmo2's q/k norms).
   Logits are compared after every token fed one at a time and after a prompt fed as one batch.
   Also: a qwen3 file without its q/k norms, or with norms of the wrong size, is refused with the
   tensor named; LongRoPE files without their factors, with bad ones or with factors but another
   scaling are refused; a session state saved under the short factors does not load under the
   long ones. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include <math.h>
#include <stdlib.h>

#define MAXL 4
#define V 259   /* <unk> <s> </s> and 256 byte tokens */
#define T_TOK 12

typedef struct {
    const char *tag, *arch;
    int E, F, L, H, KVH, hd, rope_dim;
    float theta, eps;
    int bias, qk_norm, tied, write_neox;   /* write_neox: -1 = leave rope.neox to the architecture */
    int longrope_orig;     /* > 0: LongRoPE with this original context (sessions have 64: above = long factors) */
    float attn_factor;     /* LongRoPE's scale of cos and sin */
    /* gemma (0 elsewhere): the q . k scale; soft caps of the scores and the logits; sliding window and
       pattern (layer l slides iff l % pattern < pattern - 1; smollm3: the NoPE step written to the
       file, 0 = none written, the default 4); the sliding layers' rope base; the global layers'
       linear rope factor */
    float attn_scale, attn_cap, final_cap;
    int window, pattern;
    float theta_swa, rope_linear;
    /* mixture of experts (0 elsewhere): experts, experts used per token, whether their weights are
       renormalized; F is then an expert's width (feed_forward_length is written as 3 F, unused);
       granitemoe: its (ungated) shared expert's width, 0 = none */
    int NX, K, enorm, FS;
    /* YaRN (0 elsewhere): the factor; the original context is 32, beta 32 / 1 (the defaults), cos and
       sin times attn_factor when it is not 1, else 1 + 0.1 ln factor (written as rope.scaling.yarn_attn_factor
       then); with sliding layers (OLMo 3) only the others have it; yarn_exact: the ramp's bounds not
       rounded (rope.scaling.yarn_truncate 0: gpt-oss's checkpoints) */
    float yarn;
    int yarn_exact;
} cfg_t;
static int is_gemma(const cfg_t *c) { return !strncmp(c->arch, "gemma", 5); }
static int is_exaone4(const cfg_t *c) { return !strcmp(c->arch, "exaone4"); }
static int has_post_norms(const cfg_t *c) { return (is_gemma(c) && strcmp(c->arch, "gemma") != 0) || !strcmp(c->arch, "olmo2") || is_exaone4(c); }   /* Gemma 2 / 3,
                                                                                                                                        OLMo 2, EXAONE 4 */
static int has_pre_norms(const cfg_t *c) { return strcmp(c->arch, "olmo2") != 0 && !is_exaone4(c); }   /* OLMo 2, EXAONE 4: the outputs only */
/* with qk_norm: the q and k norms' lengths, one head's (qwen3, gemma3) or all heads' (olmo2, olmoe) */
static int qk_full(const cfg_t *c) { return !strcmp(c->arch, "olmo2") || !strcmp(c->arch, "olmoe"); }
static int qn_len(const cfg_t *c) { return qk_full(c) ? c->H * c->hd : c->hd; }
static int kn_len(const cfg_t *c) { return qk_full(c) ? c->KVH * c->hd : c->hd; }
/* the shared expert: qwen2moe's 1.5 times as wide as an expert (wider, as in Qwen2-MoE: the FFN
   scratch must hold it) and gated; granitemoe's FS wide (0: none), not gated; none elsewhere */
static int shexp_width(const cfg_t *c) { return !strcmp(c->arch, "qwen2moe") ? 3 * c->F / 2 : !strcmp(c->arch, "granitemoe") ? c->FS : 0; }
static int shexp_gated(const cfg_t *c) { return !strcmp(c->arch, "qwen2moe"); }
/* gpt-oss: biases of the attention's output, the router and every expert matrix, a sink logit per
   head, the clamped SwiGLU, top-k of the router's logits then a softmax over those k */
static int is_gptoss(const cfg_t *c) { return !strcmp(c->arch, "gpt-oss"); }
static int gptoss_off = -1;   /* the reference without: 0 the sinks, 1 the SwiGLU's clamps, 2 the experts' biases (the checks that each shows) */
static int is_granite(const cfg_t *c) { return !strcmp(c->arch, "granite") || !strcmp(c->arch, "granitemoe") || !strcmp(c->arch, "minicpm"); }   /* the
                                                                                                                           multipliers */
/* smollm3: layer l rotates neither q nor k when (l + 1) % step == 0; exaone4 with a window: the
   layers that do not slide rotate neither (use_nope 0: the reference rotates every layer, the
   check that leaving the NoPE layers out shows) */
static int use_nope = 1;
static int slides(const cfg_t *c, int l) { return c->window > 0 && l % c->pattern < c->pattern - 1; }
static int nope(const cfg_t *c, int l) {
    const int step = c->pattern ? c->pattern : 4;
    if (is_exaone4(c)) return use_nope && c->window > 0 && !slides(c, l);
    return use_nope && !strcmp(c->arch, "smollm3") && (l + 1) % step == 0;
}
/* granite's multipliers k = 0 embedding, 1 residual, 2 logit scale (granite: a published Granite 3
   2B-style set; its attention multiplier is attn_scale); 1 elsewhere, and for k = granite_off (the
   check that each one shows). granitemoe's are milder, so that a tiny model's routing still shows
   in its logits (with 12 and 0.22 the layers' outputs are small next to the embeddings). */
static int granite_off = -1, granite_no_logit = 0;   /* granite_no_logit: the file leaves logit_scale out */
static double granite_mul(const cfg_t *c, int k) {   /* (minicpm: MiniCPM-2B's scale_emb 12, scale_depth 1.4 over its 40 layers, 2304 / dim_model_base 256) */
    static const double v[3][3] = {{12.0, 0.22, 8.0}, {2.0, 0.7, 2.0}, {12.0, 0.22135943621, 9.0}};
    return !is_granite(c) || k == granite_off ? 1.0 : v[!strcmp(c->arch, "granitemoe") ? 1 : !strcmp(c->arch, "minicpm") ? 2 : 0][k];
}
/* LongRoPE factors of dimension pair i: distinct sets, so that taking the wrong one shows */
static float rope_factor(int long_set, int i) { return long_set ? 1.0f + 0.75f * (float)i : 1.0f + 0.2f * (float)(i % 3); }

typedef struct {
    float *emb, *out, *onorm;
    struct { float *an, *fn, *wq, *wk, *wv, *wo, *wg, *wu, *wd, *bq, *bk, *bv, *qn, *kn, *pan, *pfn, *wr, *sg, *su, *sd, *sgi;
             float *bo, *sk, *rb, *xbg, *xbu, *xbd; } l[MAXL];
    /* with experts: wg, wu, wd hold NX matrices one after the other, wr the router (NX x E); sg, su,
       sd the shared expert's gate, up and down, sgi its gate vector (E); gpt-oss: bo the attention
       output's bias, sk the sinks (H), rb the router's bias, xbg, xbu, xbd the experts' biases (NX x
       F, NX x F, NX x E) */
} weights_t;

static float *rnd(int n, float base, float scale) {
    float *p = (float *)malloc(sizeof(float) * (size_t)n);
    int i;
    for (i = 0; p && i < n; i++) p[i] = base + scale * srt_test_frand();
    return p;
}

static void make_weights(const cfg_t *c, weights_t *w) {
    int Q = c->H * c->hd, KV = c->KVH * c->hd, l;
    memset(w, 0, sizeof *w);
    w->emb = rnd(V * c->E, 0.0f, 0.5f);
    w->out = c->tied ? NULL : rnd(V * c->E, 0.0f, 0.3f);
    w->onorm = rnd(c->E, 1.0f, 0.2f);
    for (l = 0; l < c->L; l++) {
        w->l[l].an = rnd(c->E, 1.0f, 0.2f); w->l[l].fn = rnd(c->E, 1.0f, 0.2f);
        w->l[l].wq = rnd(Q * c->E, 0.0f, 0.3f); w->l[l].wk = rnd(KV * c->E, 0.0f, 0.3f); w->l[l].wv = rnd(KV * c->E, 0.0f, 0.3f);
        w->l[l].wo = rnd(c->E * Q, 0.0f, 0.3f);
        {
            const int nx = c->NX ? c->NX : 1;
            w->l[l].wg = rnd(nx * c->F * c->E, 0.0f, 0.3f); w->l[l].wu = rnd(nx * c->F * c->E, 0.0f, 0.3f); w->l[l].wd = rnd(nx * c->E * c->F, 0.0f, 0.3f);
            if (c->NX) w->l[l].wr = rnd(c->NX * c->E, 0.0f, 0.5f);
            if (shexp_width(c)) {
                const int fs = shexp_width(c);
                w->l[l].sg = rnd(fs * c->E, 0.0f, 0.3f); w->l[l].su = rnd(fs * c->E, 0.0f, 0.3f); w->l[l].sd = rnd(c->E * fs, 0.0f, 0.3f);
                if (shexp_gated(c)) w->l[l].sgi = rnd(c->E, 0.0f, 0.5f);
            }
        }
        if (c->bias) { w->l[l].bq = rnd(Q, 0.0f, 0.5f); w->l[l].bk = rnd(KV, 0.0f, 0.5f); w->l[l].bv = rnd(KV, 0.0f, 0.5f); }
        if (c->qk_norm) { w->l[l].qn = rnd(qn_len(c), 1.0f, 0.5f); w->l[l].kn = rnd(kn_len(c), 1.0f, 0.5f); }
        if (has_post_norms(c)) { w->l[l].pan = rnd(c->E, 1.0f, 0.2f); w->l[l].pfn = rnd(c->E, 1.0f, 0.2f); }
        if (is_gptoss(c)) {   /* some gate and up biases far enough out that the clamps at 7 bite */
            int i;
            w->l[l].bo = rnd(c->E, 0.0f, 0.5f); w->l[l].sk = rnd(c->H, 0.5f, 1.0f); w->l[l].rb = rnd(c->NX, 0.0f, 1.0f);
            w->l[l].xbg = rnd(c->NX * c->F, 0.0f, 0.5f); w->l[l].xbu = rnd(c->NX * c->F, 0.0f, 0.5f); w->l[l].xbd = rnd(c->NX * c->E, 0.0f, 0.5f);
            for (i = 0; i < c->NX * c->F; i += 5) { w->l[l].xbg[i] += 9.0f; w->l[l].xbu[i + 1 < c->NX * c->F ? i + 1 : i] -= 9.0f; }
        }
    }
}

static void free_weights(const cfg_t *c, weights_t *w) {
    int l;
    free(w->emb); free(w->out); free(w->onorm);
    for (l = 0; l < c->L; l++) {
        free(w->l[l].an); free(w->l[l].fn); free(w->l[l].wq); free(w->l[l].wk); free(w->l[l].wv); free(w->l[l].wo);
        free(w->l[l].wg); free(w->l[l].wu); free(w->l[l].wd); free(w->l[l].bq); free(w->l[l].bk); free(w->l[l].bv);
        free(w->l[l].qn); free(w->l[l].kn); free(w->l[l].pan); free(w->l[l].pfn); free(w->l[l].wr);
        free(w->l[l].sg); free(w->l[l].su); free(w->l[l].sd); free(w->l[l].sgi);
        free(w->l[l].bo); free(w->l[l].sk); free(w->l[l].rb); free(w->l[l].xbg); free(w->l[l].xbu); free(w->l[l].xbd);
    }
}

/* The formats and groups of the experts' gate, up and down (check_moe_formats; f32 elsewhere) */
static srt_format expert_fmt[3] = {SRT_F32, SRT_F32, SRT_F32};
static uint32_t expert_group[3] = {0, 0, 0};
static int expert_count_key = 0;   /* > 0: the expert_count written instead of the model's (check_moe_errors) */
static const char *rope_type_key = NULL;   /* set: the rope.scaling.type written (check_rope_scaling_errors) */
static float yarn_ext_key = -1.0f;         /* >= 0: a rope.scaling.yarn_ext_factor written */
static srt_format matrix_fmt = SRT_F32;    /* the format of the other matrices (fp4: group 32) */

/* The model as a .srt: f32 weights (experts: expert_fmt), a byte vocabulary. skip: a tensor left out; qn_extra: the q
   norms written that many values longer; lr_type: write rope.scaling.type longrope; factor0: the
   first long factor's value (1 for the valid ones). */
static int write_srt_ex(const char *path, const cfg_t *c, const weights_t *w, const char *skip, int qn_extra, int lr_type, float factor0) {
    srt_writer *wr;
    static char names[256][8];
    const char *tokens[V];
    float scores[V];
    int32_t types[V];
    char key[128], nm[64];
    int Q = c->H * c->hd, KV = c->KVH * c->hd, i, l, ok = 1;
    if (srt_writer_open(path, &wr) != SRT_OK) return 0;
    srt_writer_meta_str(wr, "general.architecture", c->arch);
#define KEY(s) (snprintf(key, sizeof key, "%s." s, c->arch), key)
    srt_writer_meta_u32(wr, KEY("context_length"), 64);
    srt_writer_meta_u32(wr, KEY("embedding_length"), (uint32_t)c->E);
    srt_writer_meta_u32(wr, KEY("feed_forward_length"), (uint32_t)(c->NX ? 3 * c->F : c->F));
    if (c->NX) {
        srt_writer_meta_u32(wr, KEY("expert_count"), (uint32_t)(expert_count_key ? expert_count_key : c->NX));
        srt_writer_meta_u32(wr, KEY("expert_used_count"), (uint32_t)c->K);
        srt_writer_meta_u32(wr, KEY("expert_feed_forward_length"), (uint32_t)c->F);
        if (c->enorm || (strcmp(c->arch, "qwen2moe") != 0 && strcmp(c->arch, "olmoe") != 0))   /* (qwen2moe, olmoe: 0 when absent) */
            srt_writer_meta_u32(wr, KEY("expert_weights_norm"), (uint32_t)c->enorm);
        if (shexp_width(c)) srt_writer_meta_u32(wr, KEY("expert_shared_feed_forward_length"), (uint32_t)shexp_width(c));
    }
    srt_writer_meta_u32(wr, KEY("block_count"), (uint32_t)c->L);
    srt_writer_meta_u32(wr, KEY("attention.head_count"), (uint32_t)c->H);
    srt_writer_meta_u32(wr, KEY("attention.head_count_kv"), (uint32_t)c->KVH);
    srt_writer_meta_u32(wr, KEY("attention.key_length"), (uint32_t)c->hd);
    srt_writer_meta_u32(wr, KEY("rope.dimension_count"), (uint32_t)c->rope_dim);
    srt_writer_meta_f32(wr, KEY("rope.freq_base"), c->theta);
    srt_writer_meta_f32(wr, KEY("attention.layer_norm_rms_epsilon"), c->eps);
    if (c->write_neox >= 0) srt_writer_meta_u32(wr, KEY("rope.neox"), (uint32_t)c->write_neox);
    if (lr_type) srt_writer_meta_str(wr, KEY("rope.scaling.type"), "longrope");
    if (c->yarn > 0) {   /* llama.cpp's keys; the betas as their defaults, written */
        srt_writer_meta_str(wr, KEY("rope.scaling.type"), "yarn");
        srt_writer_meta_f32(wr, KEY("rope.scaling.factor"), c->yarn);
        srt_writer_meta_u32(wr, KEY("rope.scaling.original_context_length"), 32);
        srt_writer_meta_f32(wr, KEY("rope.scaling.yarn_beta_fast"), 32.0f);
        srt_writer_meta_f32(wr, KEY("rope.scaling.yarn_beta_slow"), 1.0f);
        if (c->attn_factor != 1.0f) srt_writer_meta_f32(wr, KEY("rope.scaling.yarn_attn_factor"), c->attn_factor);
        if (yarn_ext_key >= 0.0f) srt_writer_meta_f32(wr, KEY("rope.scaling.yarn_ext_factor"), yarn_ext_key);
        if (c->yarn_exact) srt_writer_meta_u32(wr, KEY("rope.scaling.yarn_truncate"), 0);
    }
    if (rope_type_key) srt_writer_meta_str(wr, KEY("rope.scaling.type"), rope_type_key);
    if (c->longrope_orig > 0) {
        srt_writer_meta_u32(wr, KEY("rope.scaling.original_context_length"), (uint32_t)c->longrope_orig);
        srt_writer_meta_f32(wr, KEY("rope.scaling.attn_factor"), c->attn_factor);
    }
    if (is_gemma(c) && c->attn_scale > 0) srt_writer_meta_f32(wr, KEY("attention.scale"), c->attn_scale);   /* (Gemma 1 from llama.cpp: none) */
    if (is_gemma(c) && has_post_norms(c)) {
        if (c->attn_cap > 0) srt_writer_meta_f32(wr, KEY("attn_logit_softcapping"), c->attn_cap);
        if (c->final_cap > 0) srt_writer_meta_f32(wr, KEY("final_logit_softcapping"), c->final_cap);
        if (c->window) srt_writer_meta_u32(wr, KEY("attention.sliding_window"), (uint32_t)c->window);
        srt_writer_meta_u32(wr, KEY("attention.sliding_window_pattern"), (uint32_t)c->pattern);
        if (c->theta_swa > 0) srt_writer_meta_f32(wr, KEY("rope.freq_base_swa"), c->theta_swa);
        if (c->rope_linear > 0) {
            srt_writer_meta_str(wr, KEY("rope.scaling.type"), "linear");
            srt_writer_meta_f32(wr, KEY("rope.scaling.factor"), c->rope_linear);
        }
    }
    if (!strcmp(c->arch, "smollm3") && c->pattern) srt_writer_meta_u32(wr, KEY("no_rope_layer_step"), (uint32_t)c->pattern);
    if ((is_exaone4(c) || !strcmp(c->arch, "olmo2") || is_gptoss(c)) && c->window) {   /* (the default pattern, 4 / gpt-oss 2: none written) */
        srt_writer_meta_u32(wr, KEY("attention.sliding_window"), (uint32_t)c->window);
        if (c->pattern != (is_gptoss(c) ? 2 : 4)) srt_writer_meta_u32(wr, KEY("attention.sliding_window_pattern"), (uint32_t)c->pattern);
    }
    if (is_granite(c)) {
        if (c->attn_scale > 0) srt_writer_meta_f32(wr, KEY("attention.scale"), c->attn_scale);
        srt_writer_meta_f32(wr, KEY("embedding_scale"), (float)granite_mul(c, 0));
        srt_writer_meta_f32(wr, KEY("residual_scale"), (float)granite_mul(c, 1));
        if (!granite_no_logit) srt_writer_meta_f32(wr, KEY("logit_scale"), (float)granite_mul(c, 2));
    }
#undef KEY
    tokens[0] = "<unk>"; types[0] = 2; scores[0] = 0;
    tokens[1] = "<s>"; types[1] = 3; scores[1] = 0;
    tokens[2] = "</s>"; types[2] = 3; scores[2] = 0;
    for (i = 0; i < 256; i++) { snprintf(names[i], sizeof names[i], "<0x%02X>", i); tokens[3 + i] = names[i]; types[3 + i] = 6; scores[3 + i] = 0; }
    srt_writer_meta_str(wr, "tokenizer.ggml.model", "llama");
    srt_writer_meta_arr(wr, "tokenizer.ggml.tokens", SRT_META_ARR_STR, tokens, V);
    srt_writer_meta_arr(wr, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, V);
    srt_writer_meta_arr(wr, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, V);
    srt_writer_meta_u32(wr, "tokenizer.ggml.bos_token_id", 1);
    srt_writer_meta_u32(wr, "tokenizer.ggml.eos_token_id", 2);
#define ADD(name, rows, cols, data) do { \
        const srt_format f_ = (rows) > 1 ? matrix_fmt : SRT_F32; \
        if (ok && !(skip && !strcmp(skip, name)) && srt_writer_add_tensor(wr, name, f_, f_ == SRT_F32 ? 0 : 32, (uint64_t)(rows), (uint64_t)(cols), data) != SRT_OK) ok = 0; \
    } while (0)
    ADD("token_embd.weight", V, c->E, w->emb);
    if (!c->tied) ADD("output.weight", V, c->E, w->out);
    ADD("output_norm.weight", 1, c->E, w->onorm);
    if (c->longrope_orig > 0) {
        float fl[32], fs[32];
        for (i = 0; i < c->rope_dim / 2; i++) { fl[i] = i ? rope_factor(1, i) : factor0 * rope_factor(1, 0); fs[i] = rope_factor(0, i); }
        ADD("rope_factors_long.weight", 1, c->rope_dim / 2, fl);
        ADD("rope_factors_short.weight", 1, c->rope_dim / 2, fs);
    }
    for (l = 0; l < c->L; l++) {
#define LADD(s, rows, cols, data) do { snprintf(nm, sizeof nm, "blk.%d." s, l); ADD(nm, rows, cols, data); } while (0)
        if (has_pre_norms(c)) {
            LADD("attn_norm.weight", 1, c->E, w->l[l].an);
            LADD("ffn_norm.weight", 1, c->E, w->l[l].fn);
        }
        LADD("attn_q.weight", Q, c->E, w->l[l].wq);
        LADD("attn_k.weight", KV, c->E, w->l[l].wk);
        LADD("attn_v.weight", KV, c->E, w->l[l].wv);
        LADD("attn_output.weight", c->E, Q, w->l[l].wo);
        if (c->NX) {
            int x;
            LADD("ffn_gate_inp.weight", c->NX, c->E, w->l[l].wr);
            for (x = 0; x < c->NX; x++) {
                const size_t at = (size_t)x * (size_t)c->F * (size_t)c->E;
#define XADD(kind, k, rows, cols, data) do { \
                    snprintf(nm, sizeof nm, "blk.%d.ffn_" kind ".%d.weight", l, x); \
                    if (ok && !(skip && !strcmp(skip, nm)) && \
                        srt_writer_add_tensor(wr, nm, expert_fmt[k], expert_group[k], (uint64_t)(rows), (uint64_t)(cols), data) != SRT_OK) ok = 0; \
                } while (0)
                XADD("gate", 0, c->F, c->E, w->l[l].wg + at);
                XADD("up", 1, c->F, c->E, w->l[l].wu + at);
                XADD("down", 2, c->E, c->F, w->l[l].wd + at);
#undef XADD
                if (is_gptoss(c)) {
#define BADD(kind, n, data) do { snprintf(nm, sizeof nm, "blk.%d.ffn_" kind ".%d.bias", l, x); ADD(nm, 1, n, data); } while (0)
                    BADD("gate", c->F, w->l[l].xbg + (size_t)x * c->F);
                    BADD("up", c->F, w->l[l].xbu + (size_t)x * c->F);
                    BADD("down", c->E, w->l[l].xbd + (size_t)x * c->E);
#undef BADD
                }
            }
            if (is_gptoss(c)) {
                LADD("ffn_gate_inp.bias", 1, c->NX, w->l[l].rb);
                LADD("attn_output.bias", 1, c->E, w->l[l].bo);
                LADD("attn_sinks.weight", 1, c->H, w->l[l].sk);
            }
            if (shexp_width(c)) {
                if (shexp_gated(c)) LADD("ffn_gate_inp_shexp.weight", 1, c->E, w->l[l].sgi);
                LADD("ffn_gate_shexp.weight", shexp_width(c), c->E, w->l[l].sg);
                LADD("ffn_up_shexp.weight", shexp_width(c), c->E, w->l[l].su);
                LADD("ffn_down_shexp.weight", c->E, shexp_width(c), w->l[l].sd);
            }
        } else {
            LADD("ffn_gate.weight", c->F, c->E, w->l[l].wg);
            LADD("ffn_up.weight", c->F, c->E, w->l[l].wu);
            LADD("ffn_down.weight", c->E, c->F, w->l[l].wd);
        }
        if (c->bias) { LADD("attn_q.bias", 1, Q, w->l[l].bq); LADD("attn_k.bias", 1, KV, w->l[l].bk); LADD("attn_v.bias", 1, KV, w->l[l].bv); }
        if (c->qk_norm) {
            float qn[128];
            memcpy(qn, w->l[l].qn, sizeof(float) * (size_t)qn_len(c));
            for (i = 0; i < qn_extra; i++) qn[qn_len(c) + i] = 1.0f;
            LADD("attn_q_norm.weight", 1, qn_len(c) + qn_extra, qn);
            LADD("attn_k_norm.weight", 1, kn_len(c), w->l[l].kn);
        }
        if (has_post_norms(c)) { LADD("post_attention_norm.weight", 1, c->E, w->l[l].pan); LADD("post_ffw_norm.weight", 1, c->E, w->l[l].pfn); }
#undef LADD
    }
#undef ADD
    if (!ok) { srt_writer_abort(wr); return 0; }
    return srt_writer_finish(wr) == SRT_OK;
}

static int write_srt(const char *path, const cfg_t *c, const weights_t *w, const char *skip, int qn_extra) {
    return write_srt_ex(path, c, w, skip, qn_extra, c->longrope_orig > 0, 1.0f);
}

/* ---------------------------------------------------------------- the reference */
static void ref_rmsnorm(double *o, const double *x, const float *w, int n, double eps) {
    double ss = 0;
    int i;
    for (i = 0; i < n; i++) ss += x[i] * x[i];
    ss = 1.0 / sqrt(ss / n + eps);
    for (i = 0; i < n; i++) o[i] = w[i] * (x[i] * ss);
}
static void ref_matvec(double *y, const float *W, const double *x, int rows, int cols, const float *b) {
    int r, k;
    for (r = 0; r < rows; r++) {
        double s = b ? b[r] : 0.0;
        for (k = 0; k < cols; k++) s += (double)W[(size_t)r * cols + k] * x[k];
        y[r] = s;
    }
}
/* YaRN as transformers defines it (_compute_yarn_parameters): the frequency of pair i is
   interpolated (divided by the factor) times ramp(i) plus extrapolated (kept) times 1 - ramp(i),
   ramp rising linearly from 0 at the correction dimension of beta_fast = 32 rotations in the
   original context (32 positions), floored, to 1 at that of beta_slow = 1, ceiled (neither with
   yarn_exact); cos and sin times the attention factor. yarn_everywhere 1: the sliding layers of an olmo2 model too (the
   check that their plain rotation shows). */
static int yarn_everywhere = 0;
static double ref_yarn_freq(const cfg_t *c, double theta, int i, double freq) {
    const double d = c->rope_dim, pi2 = 2.0 * 3.14159265358979323846;
    double lo = d * log(32.0 / (32.0 * pi2)) / (2.0 * log(theta)), hi = d * log(32.0 / (1.0 * pi2)) / (2.0 * log(theta)), r;
    if (!c->yarn_exact) { lo = floor(lo); hi = ceil(hi); }
    if (lo < 0) lo = 0;
    if (hi > d - 1) hi = d - 1;
    if (hi == lo) hi += 0.001;
    r = (i - lo) / (hi - lo);
    r = r < 0 ? 0 : r > 1 ? 1 : r;
    return freq / c->yarn * r + freq * (1.0 - r);
}

/* Rotates the first rope_dim dimensions of each of n heads by position pos: pairs (2i, 2i+1), or
   with neox (i, i + rope_dim / 2), angle pos * theta^(-2i / rope_dim); LongRoPE: the angle divided
   by factor i of the long set if the context (64) exceeds the original one, else of the short set,
   and both rotated values times the attention factor; YaRN: ref_yarn_freq's frequencies, the
   values times its attention factor. */
static void ref_rope(double *v, int n, const cfg_t *c, int neox, int pos, int layer) {
    int h, i, half = c->rope_dim / 2;
    const int sl = slides(c, layer);   /* gemma: a sliding layer's own base, without the global layers' scaling; olmo2 (OLMo 3): without YaRN */
    const double theta = sl && c->theta_swa > 0 ? c->theta_swa : c->theta, lin = !sl && c->rope_linear > 0 ? c->rope_linear : 1.0;
    const int yarn = c->yarn > 0 && (!sl || strcmp(c->arch, "olmo2") != 0 || yarn_everywhere);
    const double ymscale = c->attn_factor != 1.0f ? c->attn_factor : 1.0 + 0.1 * log(c->yarn > 0 ? c->yarn : 1.0);
    for (h = 0; h < n; h++)
        for (i = 0; i < half; i++) {
            double a = pow(theta, -2.0 * i / c->rope_dim) / lin, cs, sn;
            if (yarn) a = ref_yarn_freq(c, theta, i, a);
            a *= pos;
            if (c->longrope_orig > 0) a /= rope_factor(64 > c->longrope_orig, i);
            cs = cos(a); sn = sin(a);
            if (c->longrope_orig > 0) { cs *= c->attn_factor; sn *= c->attn_factor; }
            if (yarn) { cs *= ymscale; sn *= ymscale; }
            int p = neox ? i : 2 * i, q = neox ? i + half : 2 * i + 1;
            double x0 = v[h * c->hd + p], x1 = v[h * c->hd + q];
            v[h * c->hd + p] = x0 * cs - x1 * sn;
            v[h * c->hd + q] = x0 * sn + x1 * cs;
        }
}

/* The FFN of layer l on xb into o: SwiGLU (gemma: GELU); with experts, the sum over the K most
   probable experts (softmax of the router's logits over all NX) of their outputs, weighted by
   their probabilities, divided by the K probabilities' sum when enorm; plus qwen2moe's shared
   expert unless use_shexp is 0 (the check that leaving it out shows). */
static int use_shexp = 1;
static void ref_ffn(const cfg_t *c, const weights_t *w, int l, const double *xb, double *o) {
    const int E = c->E, F = c->F, nx = c->NX ? c->NX : 1;
    double *g = (double *)calloc((size_t)F, sizeof(double)), *u = (double *)calloc((size_t)F, sizeof(double));
    double *y = (double *)calloc((size_t)E, sizeof(double)), p[64], wsum = 0;
    int picked[64] = {0}, x, j, i;
    const int gb = is_gptoss(c) && gptoss_off != 2;   /* the experts' biases */
    if (c->NX && is_gptoss(c)) {   /* the K largest logits (with the router's bias), a softmax over them (written apart from the other path) */
        double mx = -1e300, sum = 0;
        ref_matvec(p, w->l[l].wr, xb, c->NX, E, w->l[l].rb);
        for (j = 0; j < c->K; j++) {
            int best = -1;
            for (x = 0; x < c->NX; x++) if (!picked[x] && (best < 0 || p[x] > p[best])) best = x;
            picked[best] = 1;
            if (p[best] > mx) mx = p[best];
        }
        for (x = 0; x < c->NX; x++) if (picked[x]) sum += exp(p[x] - mx);
        for (x = 0; x < c->NX; x++) p[x] = picked[x] ? exp(p[x] - mx) / (c->enorm ? sum : 1.0) : 0.0;
        wsum = 1.0;
    } else if (c->NX) {
        double mx = -1e300, sum = 0;
        ref_matvec(p, w->l[l].wr, xb, c->NX, E, NULL);
        for (x = 0; x < c->NX; x++) if (p[x] > mx) mx = p[x];
        for (x = 0; x < c->NX; x++) { p[x] = exp(p[x] - mx); sum += p[x]; }
        for (x = 0; x < c->NX; x++) p[x] /= sum;
        for (j = 0; j < c->K; j++) {
            int best = -1;
            for (x = 0; x < c->NX; x++) if (!picked[x] && (best < 0 || p[x] > p[best])) best = x;
            picked[best] = 1;
            wsum += p[best];
        }
    } else { picked[0] = 1; p[0] = 1; wsum = 1; }
    for (i = 0; i < E; i++) o[i] = 0;
    for (x = 0; x < nx; x++) {
        const size_t at = (size_t)x * (size_t)F * (size_t)E;
        const double wt = c->NX ? (c->enorm ? p[x] / wsum : p[x]) : 1.0;
        if (!picked[x]) continue;
        ref_matvec(g, w->l[l].wg + at, xb, F, E, gb ? w->l[l].xbg + (size_t)x * F : NULL);
        ref_matvec(u, w->l[l].wu + at, xb, F, E, gb ? w->l[l].xbu + (size_t)x * F : NULL);
        for (i = 0; i < F; i++) {   /* gemma: GELU, tanh approximation (gelu_pytorch_tanh); gpt-oss: min(g, 7) sigmoid(1.702 min(g, 7)) (clamp(u, -7, 7) + 1); else SiLU */
            if (is_gptoss(c)) {
                const double a = gptoss_off == 1 || g[i] < 7 ? g[i] : 7, b = gptoss_off == 1 ? u[i] : u[i] < -7 ? -7 : u[i] > 7 ? 7 : u[i];
                g[i] = a / (1.0 + exp(-1.702 * a)) * (b + 1.0);
            } else
                g[i] = is_gemma(c) ? 0.5 * g[i] * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (g[i] + 0.044715 * g[i] * g[i] * g[i]))) * u[i]
                                   : g[i] / (1.0 + exp(-g[i])) * u[i];
        }
        ref_matvec(y, w->l[l].wd + at, g, E, F, gb ? w->l[l].xbd + (size_t)x * E : NULL);
        for (i = 0; i < E; i++) o[i] += wt * y[i];
    }
    if (shexp_width(c) && use_shexp) {   /* + [sigmoid(sgi . x)] down(silu(gate x) * up x) */
        const int FS = shexp_width(c);
        double *sg = (double *)calloc((size_t)FS, sizeof(double)), *su = (double *)calloc((size_t)FS, sizeof(double)), gate = 0;
        for (i = 0; i < E && shexp_gated(c); i++) gate += (double)w->l[l].sgi[i] * xb[i];
        gate = shexp_gated(c) ? 1.0 / (1.0 + exp(-gate)) : 1.0;
        ref_matvec(sg, w->l[l].sg, xb, FS, E, NULL);
        ref_matvec(su, w->l[l].su, xb, FS, E, NULL);
        for (i = 0; i < FS; i++) sg[i] = sg[i] / (1.0 + exp(-sg[i])) * su[i];
        ref_matvec(y, w->l[l].sd, sg, E, FS, NULL);
        for (i = 0; i < E; i++) o[i] += gate * y[i];
        free(sg); free(su);
    }
    free(g); free(u); free(y);
}

/* Logits after each of the n tokens (n x V doubles). use_qk_norm 0 leaves a qwen3 model's norms
   out: what the runtime would compute without them (the check that the comparison can fail). */
static void ref_forward(const cfg_t *c, const weights_t *w, const int32_t *toks, int n, int neox, int use_qk_norm, double *logits) {
    int E = c->E, Q = c->H * c->hd, KV = c->KVH * c->hd, hd = c->hd, t, l, h, i, p;
    double *x = (double *)calloc((size_t)E, sizeof(double)), *xb = (double *)calloc((size_t)E, sizeof(double));
    double *q = (double *)calloc((size_t)Q, sizeof(double)), *att = (double *)calloc((size_t)Q, sizeof(double));
    double *kc = (double *)calloc((size_t)MAXL * T_TOK * KV, sizeof(double)), *vc = (double *)calloc((size_t)MAXL * T_TOK * KV, sizeof(double));
    double *sc = (double *)calloc(T_TOK, sizeof(double)), *o = (double *)calloc((size_t)E, sizeof(double));
    for (t = 0; t < n; t++) {
        for (i = 0; i < E; i++) x[i] = w->emb[(size_t)toks[t] * E + i] * (is_gemma(c) ? sqrt((double)E) : granite_mul(c, 0));
        for (l = 0; l < c->L; l++) {
            const int lo = slides(c, l) && t + 1 > c->window ? t + 1 - c->window : 0;   /* the first position a sliding layer sees */
            double *k = kc + ((size_t)l * T_TOK + t) * KV, *v = vc + ((size_t)l * T_TOK + t) * KV;
            if (has_pre_norms(c)) ref_rmsnorm(xb, x, w->l[l].an, E, c->eps);
            else memcpy(xb, x, sizeof(double) * (size_t)E);
            ref_matvec(q, w->l[l].wq, xb, Q, E, w->l[l].bq);
            ref_matvec(k, w->l[l].wk, xb, KV, E, w->l[l].bk);
            ref_matvec(v, w->l[l].wv, xb, KV, E, w->l[l].bv);
            if (c->qk_norm && use_qk_norm && qk_full(c)) {   /* olmo2, olmoe: all of q, all of k */
                ref_rmsnorm(q, q, w->l[l].qn, Q, c->eps);
                ref_rmsnorm(k, k, w->l[l].kn, KV, c->eps);
            } else if (c->qk_norm && use_qk_norm) {
                for (h = 0; h < c->H; h++) ref_rmsnorm(q + h * hd, q + h * hd, w->l[l].qn, hd, c->eps);
                for (h = 0; h < c->KVH; h++) ref_rmsnorm(k + h * hd, k + h * hd, w->l[l].kn, hd, c->eps);
            }
            if (!nope(c, l)) {
                ref_rope(q, c->H, c, neox, t, l);
                ref_rope(k, c->KVH, c, neox, t, l);
            }
            for (h = 0; h < c->H; h++) {
                int kvh = h / (c->H / c->KVH);
                double mx = -1e300, sum = 0;
                for (p = lo; p <= t; p++) {
                    const double *kp = kc + ((size_t)l * T_TOK + p) * KV + kvh * hd;
                    double s = 0;
                    for (i = 0; i < hd; i++) s += q[h * hd + i] * kp[i];
                    sc[p] = c->attn_scale > 0 ? s * c->attn_scale : s / sqrt((double)hd);
                    if (c->attn_cap > 0) sc[p] = c->attn_cap * tanh(sc[p] / c->attn_cap);
                    if (sc[p] > mx) mx = sc[p];
                }
                if (w->l[l].sk && gptoss_off != 0) {   /* gpt-oss: the sink joins the softmax, nothing is read from it */
                    if (w->l[l].sk[h] > mx) mx = w->l[l].sk[h];
                    sum = exp(w->l[l].sk[h] - mx);
                }
                for (p = lo; p <= t; p++) { sc[p] = exp(sc[p] - mx); sum += sc[p]; }
                for (i = 0; i < hd; i++) {
                    double s = 0;
                    for (p = lo; p <= t; p++) s += sc[p] * vc[((size_t)l * T_TOK + p) * KV + kvh * hd + i];
                    att[h * hd + i] = s / sum;
                }
            }
            ref_matvec(o, w->l[l].wo, att, E, Q, w->l[l].bo);
            if (w->l[l].pan) ref_rmsnorm(o, o, w->l[l].pan, E, c->eps);
            for (i = 0; i < E; i++) x[i] += granite_mul(c, 1) * o[i];
            if (has_pre_norms(c)) ref_rmsnorm(xb, x, w->l[l].fn, E, c->eps);
            else memcpy(xb, x, sizeof(double) * (size_t)E);
            ref_ffn(c, w, l, xb, o);
            if (w->l[l].pfn) ref_rmsnorm(o, o, w->l[l].pfn, E, c->eps);
            for (i = 0; i < E; i++) x[i] += granite_mul(c, 1) * o[i];
        }
        ref_rmsnorm(xb, x, w->onorm, E, c->eps);
        for (i = 0; i < V; i++) {
            const float *row = (c->tied ? w->emb : w->out) + (size_t)i * E;
            double s = 0;
            for (p = 0; p < E; p++) s += (double)row[p] * xb[p];
            logits[(size_t)t * V + i] = (c->final_cap > 0 ? c->final_cap * tanh(s / c->final_cap) : s) / granite_mul(c, 2);
        }
    }
    free(x); free(xb); free(q); free(att); free(kc); free(vc); free(sc); free(o);
}

/* max |a - b| / max(1, max |b|) over V logits */
static double rel_err(const float *a, const double *b) {
    double md = 0, mb = 1;
    int i;
    for (i = 0; i < V; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (d > md || d != d) md = d;
        if (fabs(b[i]) > mb) mb = fabs(b[i]);
    }
    return md / mb;
}

/* The observer's view of a mixture of experts: rows seen per layer by the router and by experts'
   gate / up / down, and calls with an expert name that is not "ffn_KIND.X", X < experts. */
typedef struct { int nx, router[MAXL], expert[MAXL][3], shexp[MAXL][3], bad; } moe_seen;
static void moe_observer(void *user, int layer, const char *weight, const float *x, int n_tok, int cols) {
    moe_seen *o = (moe_seen *)user;
    static const char *const kinds[3] = {"ffn_gate.", "ffn_up.", "ffn_down."};
    int k;
    (void)x; (void)cols;
    if (layer < 0 || layer >= MAXL) return;
    if (!strcmp(weight, "ffn_gate_inp")) { o->router[layer] += n_tok; return; }
    if (!strcmp(weight, "ffn_gate_shexp") || !strcmp(weight, "ffn_up_shexp") || !strcmp(weight, "ffn_down_shexp")) {
        o->shexp[layer][weight[4] == 'g' ? 0 : weight[4] == 'u' ? 1 : 2] += n_tok;
        return;
    }
    for (k = 0; k < 3; k++)
        if (!strncmp(weight, kinds[k], strlen(kinds[k]))) {
            char *end;
            long e = strtol(weight + strlen(kinds[k]), &end, 10);
            if (*end || e < 0 || e >= o->nx) o->bad++;
            o->expert[layer][k] += n_tok;
        }
}

static srt_session *session(srt_model *m, int n_batch) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 64;
    sd.n_batch = n_batch;
    sd.kv_type = SRT_KV_F32;
    if (srt_session_create(m, &sd, &s) != SRT_OK) return NULL;
    return s;
}

#define TOL 1e-4   /* float against double: ~1e-6 seen; a missing step is off by O(1) */

static void check_arch(const cfg_t *c, uint64_t seed) {
    weights_t w;
    char path[256];
    srt_model *m = NULL;
    srt_model_desc md;
    srt_session *s1, *sb;
    int32_t toks[T_TOK];
    double *ref = (double *)malloc(sizeof(double) * T_TOK * V), worst = 0;
    int t, neox;
    srt_test_rng = seed;
    make_weights(c, &w);
    for (t = 0; t < T_TOK; t++) toks[t] = t == 0 ? 1 : 3 + (int32_t)((t * 53 + (int)seed) % 256);
    snprintf(path, sizeof path, "build/tmp/arch_%s.srt", c->arch);
    if (!ref || !write_srt(path, c, &w, NULL, 0)) { CHECK(0, "%s: model written", c->tag); free(ref); free_weights(c, &w); return; }
    memset(&md, 0, sizeof md);
    md.n_threads = 2;
    if (srt_model_load(path, &md, &m) != SRT_OK) { CHECK(0, "%s: loads: %s", c->tag, srt_last_error()); free(ref); free_weights(c, &w); return; }
    {
        srt_model_info info;
        memset(&info, 0, sizeof info);
        srt_model_get_info(m, &info);
        CHECK(info.architecture && !strcmp(info.architecture, c->arch) && info.head_dim == c->hd, "%s: loads as %s, head_dim %d", c->tag, info.architecture ? info.architecture : "?", info.head_dim);
        if (c->NX) {
            /* per token: all f32 weights but the embedding's other rows, of the experts K of NX */
            const uint64_t Q = (uint64_t)c->H * c->hd, KV = (uint64_t)c->KVH * c->hd, E = (uint64_t)c->E, F = (uint64_t)c->F;
            const uint64_t layer = 2 * E + E * Q * 2 + 2 * E * KV + (uint64_t)c->NX * E + (c->qk_norm ? (uint64_t)qn_len(c) + (uint64_t)kn_len(c) : 0) + (uint64_t)c->K * 3 * E * F +
                                   (c->bias ? Q + 2 * KV : 0) + (shexp_width(c) ? (shexp_gated(c) ? E : 0) + 3 * E * (uint64_t)shexp_width(c) : 0) +   /* + the shared expert, all of it */
                                   (is_gptoss(c) ? E + (uint64_t)c->H + (uint64_t)c->NX + (uint64_t)c->K * (2 * F + E) : 0);   /* gpt-oss's biases and sinks */
            const uint64_t want = 4 * (E + (c->tied ? V * E : V * E + E) + (uint64_t)c->L * layer);
            CHECK(info.n_expert == c->NX && info.n_expert_used == c->K && info.n_ff == c->F && info.token_bytes == want,
                  "%s: info: %d experts, %d used, n_ff %d (an expert's), %llu bytes a token (%llu expected)", c->tag, info.n_expert, info.n_expert_used, info.n_ff,
                  (unsigned long long)info.token_bytes, (unsigned long long)want);
        }
    }
    neox = c->write_neox >= 0 ? c->write_neox : strcmp(c->arch, "llama") != 0 && strcmp(c->arch, "smollm3") != 0 && !is_granite(c);
    ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
    s1 = session(m, 1);
    sb = session(m, 16);
    if (!s1 || !sb) CHECK(0, "%s: sessions: %s", c->tag, srt_last_error());
    else {
        for (t = 0; t < T_TOK; t++) {
            double e;
            if (srt_session_feed(s1, &toks[t], 1) != SRT_OK || !srt_session_logits(s1)) break;
            e = rel_err(srt_session_logits(s1), ref + (size_t)t * V);
            if (e > worst || e != e) worst = e;
        }
        CHECK(t == T_TOK && worst <= TOL, "%s: logits after each of %d tokens fed one at a time equal the reference (max |diff| / max(1, max |logit|) %.2e)",
              c->tag, T_TOK, worst);
        CHECK(srt_session_feed(sb, toks, T_TOK) == SRT_OK && srt_session_logits(sb) &&
                  rel_err(srt_session_logits(sb), ref + (size_t)(T_TOK - 1) * V) <= TOL,
              "%s: the same %d tokens as one batch: the last logits equal the reference", c->tag, T_TOK);
        if (c->qk_norm && t == T_TOK) {   /* the comparison can fail: without the norms the reference is far off */
            double off;
            ref_forward(c, &w, toks, T_TOK, neox, 0, ref);
            off = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(off > 100 * TOL, "%s: the reference without the q/k norms differs (%.2e): the norms are applied", c->tag, off);
        }
        if (is_granite(c) && t == T_TOK) {   /* each multiplier is applied: the reference without it is far off */
            static const char *const what[3] = {"embedding", "residual", "logit"};
            cfg_t plain = *c;
            double off[4];
            int k;
            for (k = 0; k < 3; k++) {
                granite_off = k;
                ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
                granite_off = -1;
                off[k] = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            }
            plain.attn_scale = 0;
            ref_forward(&plain, &w, toks, T_TOK, neox, 1, ref);
            off[3] = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            for (k = 0; k < (c->attn_scale > 0 ? 4 : 3); k++)   /* (minicpm has no attention multiplier) */
                CHECK(off[k] > 100 * TOL, "%s: the reference without the %s multiplier differs (%.2e)", c->tag, k < 3 ? what[k] : "attention", off[k]);
        }
        if (c->yarn > 0 && t == T_TOK) {   /* without YaRN the reference is far off; OLMo 3's sliding layers rotate without it */
            cfg_t off = *c;
            double e1, e2 = 1;
            off.yarn = 0;
            ref_forward(&off, &w, toks, T_TOK, neox, 1, ref);
            e1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            if (c->window && !strcmp(c->arch, "olmo2")) {
                yarn_everywhere = 1;
                ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
                yarn_everywhere = 0;
                e2 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            }
            CHECK(e1 > 100 * TOL, "%s: the reference without YaRN differs (%.2e)", c->tag, e1);
            off = *c;
            off.yarn_exact = !c->yarn_exact;
            ref_forward(&off, &w, toks, T_TOK, neox, 1, ref);
            e1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            if (c->rope_dim >= 16)   /* (at 8 dimensions the rounding moves no pair's blend) */
                CHECK(e1 > 100 * TOL, "%s: the reference with the ramp's bounds %s differs (%.2e)", c->tag, c->yarn_exact ? "rounded" : "not rounded", e1);
            if (c->window && !strcmp(c->arch, "olmo2")) CHECK(e2 > 100 * TOL, "%s: the reference with YaRN in the sliding layers too differs (%.2e)", c->tag, e2);
        }
        if (c->window && (!strcmp(c->arch, "olmo2") || is_gptoss(c)) && t == T_TOK) {   /* OLMo 3, gpt-oss without their windows are far off */
            cfg_t off = *c;
            double e;
            off.window = 0;
            ref_forward(&off, &w, toks, T_TOK, neox, 1, ref);
            e = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(e > 100 * TOL, "%s: the reference without the sliding windows differs (%.2e)", c->tag, e);
        }
        if (is_exaone4(c) && c->window && t == T_TOK) {   /* without the window, or with RoPE in the full-attention layers, the reference is far off */
            cfg_t off = *c;
            double e1, e2;
            off.window = 0;
            ref_forward(&off, &w, toks, T_TOK, neox, 1, ref);
            e1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            use_nope = 0;
            ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
            use_nope = 1;
            e2 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(e1 > 100 * TOL && e2 > 100 * TOL, "%s: the reference without windows differs (%.2e), with RoPE in the full-attention layers too (%.2e)",
                  c->tag, e1, e2);
        }
        if (!strcmp(c->arch, "smollm3") && t == T_TOK) {   /* the comparison can fail: with RoPE in every layer the reference is far off */
            double off;
            use_nope = 0;
            ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
            use_nope = 1;
            off = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(off > 100 * TOL, "%s: the reference with RoPE in every layer differs (%.2e): the NoPE layers rotate nothing", c->tag, off);
        }
        if (c->longrope_orig > 0 && t == T_TOK) {   /* the other factor set, or no attention factor, is far off */
            cfg_t other = *c, plain = *c;
            double off1, off2;
            other.longrope_orig = 64 > c->longrope_orig ? 64 : 32;
            plain.attn_factor = 1.0f;
            ref_forward(&other, &w, toks, T_TOK, neox, 1, ref);
            off1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            ref_forward(&plain, &w, toks, T_TOK, neox, 1, ref);
            off2 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(off1 > 100 * TOL && off2 > 100 * TOL, "%s: the reference with the %s factors differs (%.2e), without the attention factor too (%.2e)",
                  c->tag, 64 > c->longrope_orig ? "short" : "long", off1, off2);
        }
        if (c->NX) {   /* the observer sees the router's input once per token, each expert's with its tokens only */
            srt_session_desc sd;
            srt_session *so = NULL;
            moe_seen seen;
            int l, ok = 1;
            memset(&seen, 0, sizeof seen);
            seen.nx = c->NX;
            memset(&sd, 0, sizeof sd);
            sd.n_ctx = 64; sd.n_batch = 16; sd.observer = moe_observer; sd.observer_user = &seen;
            ok = srt_session_create(m, &sd, &so) == SRT_OK && srt_session_feed(so, toks, T_TOK) == SRT_OK;
            for (l = 0; l < c->L; l++)
                ok = ok && seen.router[l] == T_TOK && seen.expert[l][0] == T_TOK * c->K && seen.expert[l][1] == T_TOK * c->K && seen.expert[l][2] == T_TOK * c->K &&
                     seen.shexp[l][0] == (shexp_width(c) ? T_TOK : 0) && seen.shexp[l][1] == seen.shexp[l][0] && seen.shexp[l][2] == seen.shexp[l][0];
            CHECK(ok && !seen.bad, "%s: observer: the router sees %d rows a layer, each kind of expert matrix %d (%d, %d, %d in layer 0), names ffn_KIND.X",
                  c->tag, T_TOK, T_TOK * c->K, seen.expert[0][0], seen.expert[0][1], seen.expert[0][2]);
            srt_session_destroy(so);
        }
        if (c->NX && t == T_TOK) {   /* the other weighting, or one expert fewer, is far off: the routing is the checkpoint's */
            cfg_t flip = *c, fewer = *c;
            double e1, e2;
            flip.enorm = !c->enorm;
            fewer.K = c->K - 1;
            ref_forward(&flip, &w, toks, T_TOK, neox, 1, ref);
            e1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            ref_forward(&fewer, &w, toks, T_TOK, neox, 1, ref);
            e2 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
            CHECK(e1 > 100 * TOL && e2 > 100 * TOL, "%s: the reference %s renormalized weights differs (%.2e), with %d experts a token (%.2e)",
                  c->tag, c->enorm ? "without" : "with", e1, c->K - 1, e2);
            if (shexp_width(c)) {
                use_shexp = 0;
                ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
                use_shexp = 1;
                e1 = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
                CHECK(e1 > 100 * TOL, "%s: the reference without the shared expert differs (%.2e)", c->tag, e1);
            }
        }
        if (is_gptoss(c) && t == T_TOK) {   /* the sinks, the clamps and the experts' biases each show */
            static const char *const what[3] = {"the attention sinks", "the SwiGLU's clamps", "the experts' biases"};
            int f;
            for (f = 0; f < 3; f++) {
                double e;
                gptoss_off = f;
                ref_forward(c, &w, toks, T_TOK, neox, 1, ref);
                gptoss_off = -1;
                e = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
                CHECK(e > 100 * TOL, "%s: the reference without %s differs (%.2e)", c->tag, what[f], e);
            }
        }
        if (is_gemma(c) && t == T_TOK) {   /* each gemma feature that this model has changes the logits: they are all applied */
            static const char *const what[] = {"the sliding window", "the scores' soft cap", "the logits' soft cap", "the sliding layers' rope base",
                                               "the global layers' rope scaling", "the attention scale"};
            int f;
            for (f = 0; f < 6; f++) {
                cfg_t off = *c;
                double e;
                if (f == 0) off.window = 0;
                else if (f == 1) off.attn_cap = 0;
                else if (f == 2) off.final_cap = 0;
                else if (f == 3) off.theta_swa = 0;
                else if (f == 4) off.rope_linear = 0;
                else off.attn_scale = c->attn_scale > 0 ? 1.0f / sqrtf((float)c->hd) : 0.0f;
                if (!memcmp(&off, c, sizeof off)) continue;   /* a feature this model does not have */
                ref_forward(&off, &w, toks, T_TOK, neox, 1, ref);
                e = rel_err(srt_session_logits(s1), ref + (size_t)(T_TOK - 1) * V);
                CHECK(e > 100 * TOL, "%s: the reference without %s differs (%.2e)", c->tag, what[f], e);
            }
        }
    }
    srt_session_destroy(s1);
    srt_session_destroy(sb);
    srt_model_free(m);
    remove(path);
    free(ref);
    free_weights(c, &w);
}

/* The file at path (written: `written`) fails to load with a message containing `want`. */
static void expect_refused(const char *path, int written, const char *what, const char *want) {
    srt_model *m = NULL;
    srt_model_desc md;
    srt_status st;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    CHECK(written, "%s written", what);
    st = srt_model_load(path, &md, &m);
    CHECK(st != SRT_OK && m == NULL && strstr(srt_last_error(), want) != NULL, "it is refused: %s (%s)", srt_status_str(st), srt_last_error());
    srt_model_free(m);
}

/* c's model written without each of the n named tensors is refused naming it. */
static void check_required(const cfg_t *c, const char *const *names, int n) {
    const char *path = "build/tmp/arch_bad.srt";
    char what[160];
    weights_t w;
    int i;
    srt_test_rng = 9;
    make_weights(c, &w);
    for (i = 0; i < n; i++) {
        snprintf(what, sizeof what, "a%s %s file without %s", c->arch[0] == 'o' || c->arch[0] == 'e' ? "n" : "", c->arch, names[i]);
        expect_refused(path, write_srt(path, c, &w, names[i], 0), what, names[i]);
    }
    remove(path);
    free_weights(c, &w);
}

/* A qwen3 file missing a norm, or with one of the wrong size, is refused naming the tensor. */
static void check_qwen3_errors(void) {
    static const char *const need[1] = {"blk.1.attn_k_norm.weight"};
    cfg_t c = {"qwen3", "qwen3", 32, 48, 2, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    weights_t w;
    const char *path = "build/tmp/arch_bad.srt";
    check_required(&c, need, 1);
    srt_test_rng = 5;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, NULL, 3), "a qwen3 file whose q norms hold head_dim + 3 values", "attn_q_norm.weight");
    remove(path);
    free_weights(&c, &w);
}

/* Quantized experts: gate, up and down of formats f (groups g). Gate and up of different formats
   (each expert's input prepared twice; down sb-bf16: its own split of the input), or all alike
   (a decoded token's one prepared input serves every expert's gate and up): a prompt fed as one
   batch gives the logits of the tokens fed one at a time, 2 threads the logits of 1 bit for bit,
   and both stay near the f32 reference (the quantization error only: a mixed-up expert input
   would be off by O(1)). */
static void check_moe_formats(const char *tag, const srt_format f[3], const uint32_t g[3]) {
    cfg_t c = {"", "qwen3moe", 64, 32, 2, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 8, 3, 1, 0, 0, 0};
    weights_t w;
    const char *path = "build/tmp/arch_moe_q.srt";
    srt_model *m1 = NULL, *m2 = NULL;
    srt_model_desc md;
    int32_t toks[T_TOK];
    double *ref = (double *)malloc(sizeof(double) * T_TOK * V), e_one = 1, e_ref = 1;
    float one[V];
    int t, same = 0;
    c.tag = tag;
    srt_test_rng = 9;
    make_weights(&c, &w);
    for (t = 0; t < T_TOK; t++) toks[t] = t == 0 ? 1 : 3 + (int32_t)((t * 37 + 11) % 256);
    for (t = 0; t < 3; t++) { expert_fmt[t] = f[t]; expert_group[t] = g[t]; }
    CHECK(ref && write_srt(path, &c, &w, NULL, 0), "%s: written", c.tag);
    expert_fmt[0] = expert_fmt[1] = expert_fmt[2] = SRT_F32; expert_group[0] = expert_group[1] = expert_group[2] = 0;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    srt_model_load(path, &md, &m1);
    md.n_threads = 2;
    srt_model_load(path, &md, &m2);
    if (m1 && m2 && ref) {
        srt_session *s1 = session(m1, 1), *sb1 = session(m1, 16), *sb2 = session(m2, 16);
        ref_forward(&c, &w, toks, T_TOK, 1, 1, ref);
        for (t = 0; s1 && t < T_TOK && srt_session_feed(s1, &toks[t], 1) == SRT_OK; t++) {}
        if (t == T_TOK && srt_session_logits(s1)) memcpy(one, srt_session_logits(s1), sizeof one);
        if (t == T_TOK && sb1 && sb2 && srt_session_feed(sb1, toks, T_TOK) == SRT_OK && srt_session_feed(sb2, toks, T_TOK) == SRT_OK) {
            double d[V];
            int i;
            for (i = 0; i < V; i++) d[i] = one[i];
            e_one = rel_err(srt_session_logits(sb1), d);
            e_ref = rel_err(srt_session_logits(sb1), ref + (size_t)(T_TOK - 1) * V);
            same = !memcmp(srt_session_logits(sb1), srt_session_logits(sb2), sizeof one);
        }
        srt_session_destroy(s1); srt_session_destroy(sb1); srt_session_destroy(sb2);
    }
    CHECK(e_one <= 1e-4, "%s: a batch of %d equals the tokens fed one at a time (%.2e)", c.tag, T_TOK, e_one);
    CHECK(same, "%s: 2 threads give 1 thread's logits bit for bit", c.tag);
    CHECK(e_ref <= 0.1, "%s: near the f32 reference (%.2e: the quantization error)", c.tag, e_ref);
    srt_model_free(m1); srt_model_free(m2);
    remove(path);
    free(ref);
    free_weights(&c, &w);
}

/* Mixtures of experts that are refused: an expert's matrix or the router missing, more experts
   used than there are, more experts claimed than the file has tensors for, experts for an
   architecture without them, qwen3moe without experts. */
static void check_moe_errors(void) {
    cfg_t c = {"qwen3moe", "qwen3moe", 32, 24, 2, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 4, 2, 1, 0, 0, 0};
    weights_t w;
    const char *path = "build/tmp/arch_bad.srt";
    srt_test_rng = 8;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, "blk.1.ffn_down.3.weight", 0), "a qwen3moe file without blk.1.ffn_down.3.weight", "blk.1.ffn_down.3.weight");
    expect_refused(path, write_srt(path, &c, &w, "blk.0.ffn_gate_inp.weight", 0), "a qwen3moe file without its first router", "blk.0.ffn_gate_inp.weight");
    c.K = 5;
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a qwen3moe file that uses 5 of 4 experts", "5 used");
    c.K = 2;
    expert_count_key = 4000;   /* refused before a table of 2 x 4000 x 3 experts is made */
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a qwen3moe file of 4 experts that claims 4000", "2 layers of 4000 experts need 24002");
    expert_count_key = 0;
    c.K = 2;
    c.arch = "qwen2";
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a qwen2 file with experts", "'qwen2' with experts");
    free_weights(&c, &w);
    c.arch = "qwen3moe"; c.NX = 0; c.K = 0;
    srt_test_rng = 8;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a qwen3moe file without experts", "0 experts");
    free_weights(&c, &w);
    c.arch = "qwen2moe"; c.NX = 4; c.K = 2; c.qk_norm = 0;   /* qwen2moe: the shared expert and its gate are required */
    srt_test_rng = 8;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, "blk.1.ffn_up_shexp.weight", 0), "a qwen2moe file without blk.1.ffn_up_shexp.weight", "blk.1.ffn_up_shexp.weight");
    expect_refused(path, write_srt(path, &c, &w, "blk.0.ffn_gate_inp_shexp.weight", 0), "a qwen2moe file without its first shared-expert gate",
                   "blk.0.ffn_gate_inp_shexp.weight");
    free_weights(&c, &w);
    c.arch = "granitemoe"; c.FS = 16;   /* granitemoe: a shared expert where the file gives its width; experts required */
    srt_test_rng = 8;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, "blk.1.ffn_down_shexp.weight", 0), "a granitemoe file of shared width 16 without blk.1.ffn_down_shexp.weight",
                   "blk.1.ffn_down_shexp.weight");
    free_weights(&c, &w);
    c.NX = 0; c.K = 0; c.FS = 0;
    srt_test_rng = 8;
    make_weights(&c, &w);
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a granitemoe file without experts", "0 experts");
    remove(path);
    free_weights(&c, &w);
}

/* LongRoPE files that are refused: a factor set missing, factors without the scaling type, a
   factor of 0 or above 1e6; and a session state saved with the short factors (context 32) is refused by
   a session of context 64 (long factors), while one of the same context takes it. */
static void check_longrope_errors(void) {
    cfg_t c = {"phi3", "phi3", 32, 48, 2, 4, 2, 16, 16, 10000.0f, 1e-5f, 0, 0, 1, -1, 48, 1.2f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const struct { const char *skip; int lr_type; float factor0; const char *want, *what; } bad[] = {
        {"rope_factors_short.weight", 1, 1.0f, "rope_factors_short.weight", "a phi3 file without rope_factors_short.weight"},
        {NULL, 0, 1.0f, "another scaling type", "a phi3 file with factors but no longrope scaling type"},
        {NULL, 1, 0.0f, "rope factor 0", "a phi3 file with a factor of 0"},
        {NULL, 1, 2e6f, "rope factor 0", "a phi3 file with a factor of 2e6"},
    };
    weights_t w;
    srt_model *m = NULL;
    srt_model_desc md;
    srt_status st;
    size_t i;
    const char *path = "build/tmp/arch_bad.srt";
    srt_test_rng = 6;
    make_weights(&c, &w);
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused(path, write_srt_ex(path, &c, &w, bad[i].skip, 0, bad[i].lr_type, bad[i].factor0), bad[i].what, bad[i].want);
    if (write_srt(path, &c, &w, NULL, 0) && srt_model_load(path, &md, &m) == SRT_OK) {
        srt_session_desc sd;
        srt_session *s32 = NULL, *s64 = NULL, *s32b = NULL;
        int32_t toks[4] = {1, 40, 50, 60};
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 32;
        srt_session_create(m, &sd, &s32);
        srt_session_create(m, &sd, &s32b);
        sd.n_ctx = 64;
        srt_session_create(m, &sd, &s64);
        CHECK(s32 && s64 && s32b && srt_session_feed(s32, toks, 4) == SRT_OK && srt_session_save(s32, "build/tmp/arch_state.bin") == SRT_OK,
              "a phi3 session of context 32 (short factors) saved");
        st = s64 ? srt_session_load(s64, "build/tmp/arch_state.bin") : SRT_ERR_INVALID_ARG;
        CHECK(st != SRT_OK && strstr(srt_last_error(), "another model") != NULL, "a session of context 64 (long factors) refuses it: %s", srt_last_error());
        st = s32b ? srt_session_load(s32b, "build/tmp/arch_state.bin") : SRT_ERR_INVALID_ARG;
        CHECK(st == SRT_OK, "a session of context 32 takes it (%s)", st == SRT_OK ? "ok" : srt_last_error());
        srt_session_destroy(s32); srt_session_destroy(s32b); srt_session_destroy(s64);
        remove("build/tmp/arch_state.bin");
    } else CHECK(0, "a valid phi3 LongRoPE model loads: %s", srt_last_error());
    srt_model_free(m);
    remove(path);
    free_weights(&c, &w);
}

/* Rope scalings that are refused: an unknown type (transformers' "dynamic"), YaRN with an
   extrapolation share above 1. */
static void check_rope_scaling_errors(void) {
    cfg_t c = {"llama", "llama", 32, 48, 2, 4, 2, 8, 8, 1e4f, 1e-5f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4.0f, 0};
    weights_t w;
    const char *path = "build/tmp/arch_bad.srt";
    srt_test_rng = 10;
    make_weights(&c, &w);
    rope_type_key = "dynamic";
    c.yarn = 0;
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a llama file with rope scaling \"dynamic\"", "rope scaling 'dynamic' is not supported");
    rope_type_key = NULL;
    c.yarn = 4.0f;
    yarn_ext_key = 2.0f;
    expect_refused(path, write_srt(path, &c, &w, NULL, 0), "a llama file with yarn_ext_factor 2", "bad yarn parameters");
    yarn_ext_key = -1.0f;
    remove(path);
    free_weights(&c, &w);
}

/* A backend that would take any model: srt_model_load must refuse gemma and mixtures of experts
   before handing them over, as srt_backend_model cannot describe their graphs. */
static int fake_loads;
static srt_status fake_load(srt_backend *b, const srt_backend_model *m, void **model, char *err, size_t cap) {
    (void)b; (void)m; (void)err; (void)cap;
    fake_loads++;
    *model = &fake_loads;
    return SRT_OK;
}
static void fake_unload(srt_backend *b, void *model) { (void)b; (void)model; }
static srt_status fake_session_create(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv_type, void **session, char *err, size_t cap) {
    (void)b; (void)model; (void)n_ctx; (void)n_batch; (void)kv_type; (void)session; (void)err; (void)cap;
    return SRT_ERR_UNSUPPORTED;
}
static void fake_session_destroy(srt_backend *b, void *session) { (void)b; (void)session; }
static srt_status fake_forward(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs, float *logits, char *err, size_t cap) {
    (void)b; (void)session; (void)tokens; (void)n; (void)pos; (void)rope_cs; (void)logits; (void)err; (void)cap;
    return SRT_ERR_UNSUPPORTED;
}
static void check_cpu_only(const cfg_t *cp) {
    cfg_t c = *cp;
    weights_t w;
    srt_backend b;
    srt_model_desc md;
    srt_model *m = NULL;
    srt_status st;
    const char *path = "build/tmp/arch_gemma_backend.srt";
    srt_test_rng = 7;
    make_weights(&c, &w);
    memset(&b, 0, sizeof b);
    b.name = "fake"; b.load = fake_load; b.unload = fake_unload; b.session_create = fake_session_create;
    b.session_destroy = fake_session_destroy; b.forward = fake_forward;
    memset(&md, 0, sizeof md);
    md.backend = &b;
    CHECK(write_srt(path, &c, &w, NULL, 0), "a %s model written", c.tag);
    st = srt_model_load(path, &md, &m);
    CHECK(st == SRT_ERR_UNSUPPORTED && !m && fake_loads == 0 && strstr(srt_last_error(), "CPU only"),
          "a backend is refused for %s before it sees the model: %s (%s)", c.tag, srt_status_str(st), srt_last_error());
    srt_model_free(m);
    remove(path);
    free_weights(&c, &w);
}

int main(void) {
    static const cfg_t cfgs[] = {
        /* tag, arch, E, F, L, H, KVH, hd, rope_dim, theta, eps, bias, qk_norm, tied, write_neox, longrope_orig, attn_factor */
        {"llama gqa", "llama", 48, 80, 2, 4, 2, 12, 12, 10000.0f, 1e-5f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"llama head_dim 16 != 48/4, partial rope 8, untied", "llama", 48, 64, 2, 4, 1, 16, 8, 10000.0f, 1e-5f, 0, 0, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"qwen2 biases, neox by architecture", "qwen2", 48, 80, 2, 4, 2, 12, 12, 1e6f, 1e-6f, 1, 0, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"qwen3 q/k norms, head_dim 16 != 48/4", "qwen3", 48, 80, 2, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"qwen3 with biases (norms after them), gqa 4:1", "qwen3", 32, 48, 2, 4, 1, 16, 16, 1e6f, 1e-6f, 1, 1, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"phi3 neox by architecture, no scaling (Phi-3-mini-4k)", "phi3", 48, 80, 2, 4, 4, 12, 12, 10000.0f, 1e-5f, 0, 0, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"phi3 LongRoPE, long factors (context 64 > 32), attention factor 1.19", "phi3", 48, 80, 2, 4, 2, 16, 16, 10000.0f, 1e-5f, 0, 0, 1, -1, 32, 1.19f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"phi3 LongRoPE, short factors (context 64 <= 64), partial rope 12 of 16 (Phi-4-mini)", "phi3", 48, 80, 2, 4, 2, 16, 12, 10000.0f, 1e-5f, 0, 0, 1, -1, 64, 1.19f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* ..., attn_scale, attn_cap, final_cap, window, pattern, theta_swa, rope_linear */
        {"gemma (Gemma 1): MQA, head_dim 16 != 48/4, no attention.scale (1/sqrt(16))", "gemma", 48, 80, 2, 4, 1, 16, 16, 10000.0f, 1e-6f, 0, 0, 1, -1, 0, 1.0f,
         0.0f, 0.0f, 0.0f, 0, 0, 0.0f, 0.0f, 0, 0, 0, 0, 0, 0},
        {"gemma2: soft caps, window 5 on even layers, scale 1/sqrt(24) with head_dim 16", "gemma2", 48, 80, 3, 4, 2, 16, 16, 10000.0f, 1e-6f, 0, 0, 1, -1, 0, 1.0f,
         0.2041241f, 2.0f, 3.0f, 5, 2, 0.0f, 0.0f, 0, 0, 0, 0, 0, 0},
        {"gemma3: q/k norms, window 4 (pattern 3), sliding rope base 100, global 1e4 scaled 8", "gemma3", 32, 64, 3, 4, 1, 16, 16, 10000.0f, 1e-6f, 0, 1, 1, -1, 0, 1.0f,
         0.2f, 0.0f, 0.0f, 4, 3, 100.0f, 8.0f, 0, 0, 0, 0, 0, 0},
        /* smollm3: NoPE in layer 3 (step 4, no key: llama.cpp's), and in layers 1 and 3 (step 2 in the file) */
        {"smollm3: layer 3 without RoPE (the default step 4), gqa, adjacent pairs", "smollm3", 48, 80, 4, 4, 2, 12, 12, 1e6f, 1e-6f, 0, 0, 1, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"smollm3: no_rope_layer_step 2 (layers 1 and 3), untied", "smollm3", 32, 48, 4, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 0, -1, 0, 1.0f,
         0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0},
        /* granite: Granite 3 2B-style multipliers (embedding 12, residual 0.22, logits / 8, attention 1/64) */
        {"granite: embedding 12, residual 0.22, logits / 8, attention scale 1/64", "granite", 48, 80, 2, 4, 2, 12, 12, 1e4f, 1e-5f, 0, 0, 1, -1, 0, 1.0f,
         0.015625f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* minicpm: MiniCPM-2B's multipliers (no attention one), adjacent pairs */
        {"minicpm (MiniCPM-2B's embedding 12, residual 1.4 / sqrt(40), logits / 9, adjacent pairs)", "minicpm", 48, 80, 2, 4, 2, 12, 12, 1e4f, 1e-5f, 0, 0, 1, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* ..., experts, used, renormalized */
        {"mixtral (llama, 4 experts, 2 used, renormalized)", "llama", 48, 40, 2, 4, 2, 12, 12, 1e6f, 1e-5f, 0, 0, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 4, 2, 1, 0, 0, 0},
        {"qwen3moe (8 experts, 3 used, renormalized, q/k norms)", "qwen3moe", 32, 24, 3, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 8, 3, 1, 0, 0, 0},
        {"qwen3moe (6 experts, 2 used, probabilities as they are)", "qwen3moe", 32, 24, 2, 4, 1, 16, 16, 1e6f, 1e-6f, 0, 1, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 6, 2, 0, 0, 0, 0},
        {"qwen2moe (biases, 6 experts, 2 used, no expert_weights_norm key: as they are, shared expert of 36)", "qwen2moe", 32, 24, 2, 4, 2, 8, 8, 1e6f, 1e-6f, 1, 0,
         1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 6, 2, 0, 0, 0, 0},
        {"qwen2moe (8 experts, 3 used, renormalized, untied)", "qwen2moe", 32, 24, 3, 4, 1, 8, 8, 1e6f, 1e-6f, 1, 0, 0, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 8, 3, 1, 0, 0, 0},
        /* granitemoe: Granite's multipliers with experts (renormalized: its softmax is over the top-k
           logits), and GraniteMoeShared's ungated shared expert, wider than an expert */
        {"granitemoe (multipliers, 6 experts, 2 used, renormalized)", "granitemoe", 48, 24, 2, 4, 2, 12, 12, 1e4f, 1e-6f, 0, 0, 1, -1, 0, 1.0f,
         0.015625f, 0, 0, 0, 0, 0, 0, 6, 2, 1, 0, 0, 0},
        {"granitemoe with a shared expert of 40 (GraniteMoeShared), 6 experts, 2 used, untied", "granitemoe", 32, 24, 3, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 0, -1, 0,
         1.0f, 0.125f, 0, 0, 0, 0, 0, 0, 6, 2, 1, 40, 0, 0},
        /* olmo2: no input norms, norms of the attention's and the FFN's outputs, q/k norms over all heads; olmoe: those q/k norms with
           Llama's norms and experts, not renormalized */
        {"olmo2 (output norms only, q/k norms of all heads, gqa, neox)", "olmo2", 48, 80, 2, 4, 2, 12, 12, 5e5f, 1e-6f, 0, 1, 0, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"olmo2 (mha, tied, 3 layers)", "olmo2", 32, 48, 3, 4, 4, 8, 8, 1e4f, 1e-5f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"olmoe (q/k norms of all heads, 8 experts, 3 used, probabilities as they are)", "olmoe", 32, 24, 2, 4, 4, 8, 8, 1e4f, 1e-5f, 0, 1, 0, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 8, 3, 0, 0, 0, 0},
        /* exaone (EXAONE 3.0 / 3.5): llama's layers with NeoX rope, which the architecture implies (no rope.neox written) */
        {"exaone (llama's layers, NeoX rope by default; gqa, untied)", "exaone", 32, 48, 2, 4, 2, 8, 8, 1e6f, 1e-5f, 0, 0, 0, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        /* exaone4: output norms only, per-head q/k norms, NeoX; the 32B's hybrid attention: window 4, 3 sliding layers then a
           full-attention one without RoPE (the default pattern, no key), and pattern 2 in the file (layers 1 and 3 full) */
        {"exaone4 (the 1.2B: no windows, every layer rotates; gqa, tied)", "exaone4", 48, 80, 2, 4, 2, 12, 12, 1e6f, 1e-5f, 0, 1, 1, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"exaone4 (the 32B: window 4, layers 0-2 slide, layer 3 full without RoPE; untied)", "exaone4", 32, 48, 4, 4, 1, 8, 8, 1e6f, 1e-5f, 0, 1, 0, -1, 0, 1.0f,
         0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0},
        /* olmo2 with windows (OLMo 3): layers 0-2 slide over 4 positions with plain rope, layer 3 has YaRN (factor 8); YaRN on llama
           (adjacent pairs, the default attention factor) and qwen3 (NeoX, an attention factor of 1.1 in the file) */
        {"olmo2 (OLMo 3: window 4, layers 0-2 slide with plain rope, layer 3 full with yarn 8)", "olmo2", 32, 48, 4, 4, 2, 8, 8, 1e4f, 1e-6f, 0, 1, 0, -1, 0,
         1.0f, 0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 8.0f, 0},
        {"llama + yarn 8 (adjacent pairs, attention factor 1 + 0.1 ln 8)", "llama", 48, 80, 2, 4, 2, 16, 16, 1e4f, 1e-5f, 0, 0, 1, -1, 0, 1.0f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8.0f, 0},
        {"qwen3 + yarn 4 (neox, yarn_attn_factor 1.1 in the file)", "qwen3", 48, 80, 2, 4, 2, 16, 16, 1e4f, 1e-6f, 0, 1, 1, -1, 0, 1.1f,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4.0f, 0},
        {"exaone4 (window 5, sliding_window_pattern 2: layers 1 and 3 full without RoPE)", "exaone4", 32, 48, 4, 4, 2, 8, 8, 1e4f, 1e-5f, 0, 1, 1, -1, 0, 1.0f,
         0, 0, 0, 5, 2, 0, 0, 0, 0, 0, 0, 0, 0},
        /* gpt-oss: q/k/v and output biases, sinks, window 4 on the even layers (no pattern key), yarn 8 in every layer, 6 experts
           with biases, 2 used (softmax over the picked) */
        {"gpt-oss (sinks, biases, window 4 on layers 0 and 2, yarn 8, 6 experts, 2 used)", "gpt-oss", 32, 24, 4, 4, 2, 8, 8, 1.5e5f, 1e-5f, 1, 0, 0, -1, 0,
         1.0f, 0, 0, 0, 4, 2, 0, 0, 6, 2, 1, 0, 8.0f, 0},
        /* gpt-oss as its checkpoint states YaRN (truncate false: the ramp's bounds 0 .. 1.09, not 0 .. 2), head 16 */
        {"gpt-oss (yarn 8 unrounded, head 16)", "gpt-oss", 32, 24, 2, 4, 2, 16, 16, 1.5e5f, 1e-5f, 1, 0, 0, -1, 0,
         1.0f, 0, 0, 0, 4, 2, 0, 0, 6, 2, 1, 0, 8.0f, 1},
    };
    size_t i;
    srt_set_log(NULL, NULL);
    if (system("mkdir -p build/tmp") != 0) return 1;
    for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) check_arch(&cfgs[i], 40 + i);
    check_qwen3_errors();
    check_longrope_errors();
    check_rope_scaling_errors();
    {
        static const cfg_t gemma = {"gemma3", "gemma3", 32, 48, 2, 4, 2, 16, 16, 10000.0f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0.25f, 0, 0, 8, 2, 0, 0, 0, 0, 0, 0, 0, 0};
        static const cfg_t moe = {"qwen3moe", "qwen3moe", 32, 24, 2, 4, 2, 16, 16, 1e6f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 4, 2, 1, 0, 0, 0};
        static const cfg_t gemma1 = {"gemma", "gemma", 32, 48, 2, 4, 1, 16, 16, 10000.0f, 1e-6f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        check_cpu_only(&gemma);
        check_cpu_only(&gemma1);
        {
            static const cfg_t smol = {"smollm3", "smollm3", 32, 48, 4, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            static const cfg_t gran = {"granite", "granite", 32, 48, 2, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 1, -1, 0, 1.0f, 0.125f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            static const cfg_t granmoe = {"granitemoe", "granitemoe", 32, 24, 2, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 1, -1, 0, 1.0f, 0.125f, 0, 0, 0, 0, 0, 0, 4, 2, 1, 16, 0, 0};
            check_cpu_only(&smol);
            check_cpu_only(&gran);
            {
                static const cfg_t mcpm = {"minicpm", "minicpm", 32, 48, 2, 4, 1, 8, 8, 1e4f, 1e-6f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
                check_cpu_only(&mcpm);
            }
            check_cpu_only(&granmoe);
            {   /* olmo2 and exaone4: backends refused (their norms); a missing output norm, a missing per-head k norm refused */
                static const cfg_t olmo2 = {"olmo2", "olmo2", 32, 48, 2, 4, 2, 8, 8, 1e4f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
                static const cfg_t ex = {"exaone4", "exaone4", 32, 48, 4, 4, 2, 8, 8, 1e4f, 1e-6f, 0, 1, 1, -1, 0, 1.0f, 0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0};
                static const char *const olmo2_need[1] = {"blk.1.post_ffw_norm.weight"};
                static const char *const ex_need[2] = {"blk.2.post_attention_norm.weight", "blk.0.attn_k_norm.weight"};
                check_cpu_only(&olmo2);
                check_required(&olmo2, olmo2_need, 1);
                check_cpu_only(&ex);
                check_required(&ex, ex_need, 2);
            }
            {   /* gpt-oss: backends refused (sinks, experts); a missing sink, router bias, output bias or expert bias refused */
                static const cfg_t oss = {"gpt-oss", "gpt-oss", 32, 24, 2, 4, 2, 8, 8, 1e4f, 1e-5f, 1, 0, 1, -1, 0, 1.0f, 0, 0, 0, 4, 2, 0, 0, 4, 2, 1, 0, 0, 0};
                static const char *const oss_need[4] = {"blk.1.attn_sinks.weight", "blk.0.ffn_gate_inp.bias", "blk.1.attn_output.bias", "blk.0.ffn_up.3.bias"};
                check_cpu_only(&oss);
                check_required(&oss, oss_need, 4);
            }
            {   /* llama.cpp requires granite's logit scale: a file without it is refused */
                weights_t w;
                granite_no_logit = 1;
                srt_test_rng = 9;
                make_weights(&gran, &w);
                expect_refused("build/tmp/arch_bad.srt", write_srt("build/tmp/arch_bad.srt", &gran, &w, NULL, 0), "a granite file without logit_scale",
                               "granite.logit_scale is missing");
                granite_no_logit = 0;
                remove("build/tmp/arch_bad.srt");
                free_weights(&gran, &w);
            }
        }
        check_cpu_only(&moe);
        {   /* a llama whose matrices are fp4: the backends have no fp4 kernels */
            static const cfg_t fp4 = {"llama with fp4 matrices", "llama", 64, 96, 2, 4, 2, 16, 16, 1e4f, 1e-5f, 0, 0, 1, -1, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            matrix_fmt = SRT_FP4;
            check_cpu_only(&fp4);
            matrix_fmt = SRT_F32;
        }
    }
    check_moe_errors();
    {
        static const srt_format mixed[3] = {SRT_Q4, SRT_Q8, SRT_SB_BF16}, alike[3] = {SRT_Q8, SRT_Q8, SRT_Q4};
        static const uint32_t mixed_g[3] = {64, 32, 0}, alike_g[3] = {32, 32, 32};
        check_moe_formats("qwen3moe q4/q8/sb-bf16 experts", mixed, mixed_g);
        check_moe_formats("qwen3moe q8/q8/q4 experts (one prepared input)", alike, alike_g);
    }
    return srt_test_finish();
}
