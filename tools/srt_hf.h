/* srt_hf.h - the Hugging Face half of srt_import.h: a model folder read into an srti_model, and
   models of random weights made from a config.json. This file is part of srt_import.h's
   implementation (srt_import.h includes it at its end, with tools/srt_json.h); do not include it
   on its own. Its public entry points are srti_open() (given a folder) and srti_open_random().

   WHAT A FOLDER MAY HOLD
     config.json               LlamaForCausalLM, MistralForCausalLM (-> "llama"), Qwen2ForCausalLM
                               (-> "qwen2", QKV biases), Qwen3ForCausalLM (-> "qwen3", q_norm and
                               k_norm: per-head RMSNorm of q and k), Phi3ForCausalLM (-> "phi3":
                               qkv_proj and gate_up_proj split as they are read; partial_rotary_factor;
                               rope_scaling longrope / su: long_factor and short_factor become the
                               rope_factors_long/short.weight tensors; sliding_window recorded),
                               GemmaForCausalLM (-> "gemma"), Gemma2ForCausalLM (-> "gemma2"),
                               Gemma3ForCausalLM and the text model
                               of Gemma3ForConditionalGeneration (-> "gemma3"; see GEMMA below),
                               MixtralForCausalLM (-> "llama" with experts), Qwen3MoeForCausalLM
                               (-> "qwen3moe": Qwen3 with experts) and Qwen2MoeForCausalLM (->
                               "qwen2moe": Qwen2 with experts and a shared expert; see EXPERTS below),
                               SmolLM3ForCausalLM (-> "smollm3": Llama, q/k permuted, with NoPE layers:
                               no_rope_layer_interval, no_rope_layers as that pattern),
                               GraniteForCausalLM (-> "granite": Llama, q/k permuted, with the
                               embedding / attention / residual multipliers and logits_scaling),
                               MiniCPMForCausalLM (-> "minicpm": Granite's multipliers from scale_emb,
                               scale_depth and dim_model_base, srti__hf_minicpm_config),
                               GraniteMoeForCausalLM and GraniteMoeSharedForCausalLM (-> "granitemoe":
                               Granite with experts; see EXPERTS below), Olmo2ForCausalLM (-> "olmo2":
                               no norms before attention and FFN, post_attention_layernorm and
                               post_feedforward_layernorm of their outputs, q_norm / k_norm over
                               all heads, NeoX rope; Olmo3ForCausalLM too, with sliding_window and
                               layer_types, srti__hf_olmo3_config), OlmoeForCausalLM (-> "olmoe": Llama's norms,
                               those q/k norms and experts; see EXPERTS) and Exaone4ForCausalLM (->
                               "exaone4": OLMo 2's norms with per-head q_norm / k_norm; sliding_window,
                               sliding_window_pattern, layer_types as srti__hf_exaone4_config reads them),
                               ExaoneForCausalLM (-> "exaone": EXAONE 3.0 / 3.5, Llama's layers under
                               other names (srti__exaone_name) and NeoX rope; num_layers,
                               layer_norm_epsilon (1e-5) and activation_function in place of
                               num_hidden_layers, rms_norm_eps and hidden_act),
                               GptOssForCausalLM (-> "gpt-oss"; see GPT-OSS below):
                               hidden_size, intermediate_size,
                               num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
                               rms_norm_eps, rope_theta, rope_scaling (linear, llama3, yarn as
                               srti__hf_yarn reads it; other types are kept by name and refused by
                               srt-pack), or transformers 5's rope_parameters in their place
                               (srti__hf_rope_parameters), max_position_embeddings,
                               vocab_size, tie_word_embeddings, attention_bias, bos/eos_token_id.
                               Absent values take transformers' defaults (rms_norm_eps 1e-6,
                               rope_theta 10000; Gemma 3: all of Gemma3TextConfig's, see GEMMA).
                               mlp_bias and hidden_act other than silu are refused.
     tokenizer.json            a BPE model. Byte-level (a ByteLevel pre-tokenizer or decoder) becomes
                               tokenizer.ggml.model "gpt2" with its merges ("a b" strings, or
                               ["a","b"] pairs whose spaces become U+0120 as llama.cpp's gguf-py
                               writes them) and tokenizer.ggml.pre = the llama.cpp name of its
                               pre-tokenizer (table below; an unknown one is an error). BPE with
                               byte_fallback and a Metaspace / "\u2581" normalizer becomes "llama"
                               (SentencePiece style): scores are minus the rank of the merge that
                               makes each piece, so the runtime's best-score-first merging follows
                               the merge list; <0xNN> pieces are byte tokens.
                               Token types follow llama.cpp's converter: added tokens that are
                               special, or look special (<|...|>, <pad>, <mask>, <unused...>), are
                               control tokens, other added tokens user-defined; ids missing from
                               the vocabulary are filled with unused "[PADn]" tokens up to
                               config.json's vocab_size.
     tokenizer_config.json     chat_template (a string, or a list of {name, template}: "default"
                               is taken), bos_token / eos_token / pad_token / unk_token (string or
                               {"content": ...}), add_bos_token, add_eos_token. A chat_template.jinja
                               file beside it is used when tokenizer_config.json has no template.
                               Without add_bos_token, a TemplateProcessing post-processor that starts
                               with the BOS token means add_bos = 1.
     generation_config.json    eos_token_id (an id or a list): with config.json's list, the tokens
                               besides eos that end generation (srti_vocab.eog; ids the vocabulary
                               lacks are left out).
     model.safetensors, or the shards named by model.safetensors.index.json
                               F32, F16, BF16 tensors (and gpt-oss's U8 MXFP4 pairs; with a
                               quantization_config of FP8 weights, F8_E4M3 weights with their
                               weight_scale_inv / weight_scale, srti__hf_quant_config and
                               srti__st_fp8; another quant_method is refused). Every header is validated before use: its
                               length against the file, the JSON, each dtype, shape and
                               data_offsets (end - begin = elements x dtype size, the tensors tile
                               the data area exactly, as the safetensors format requires), and the
                               index against the shards. Without weights the folder still gives a
                               vocabulary (srt-pack --vocab-only).

   ROPE
     Hugging Face Llama/Mistral checkpoints rotate (i, i + d/2) pairs (rotate_half); GGUF and this
     runtime's "llama" architecture rotate adjacent pairs, because llama.cpp's converter permutes
     the rows of q_proj and k_proj (per head: row 2j+s comes from row s*d/2+j). We do the same,
     while reading (srti_tensor.permute_heads), so a packed folder equals the GGUF llama.cpp would
     make of it. Qwen2, Qwen3 and Phi-3 are left in NeoX order; their architectures imply NeoX rope
     (rope.neox = 1).

   GEMMA
     As llama.cpp's converter: post_attention_layernorm is the norm of the attention's output
     (blk.N.post_attention_norm), pre/post_feedforward_layernorm are ffn_norm / post_ffw_norm;
     every norm is stored as w + 1 (Gemma's RMSNorm multiplies by 1 + w); NeoX rope, no q/k
     permutation, tied embeddings unless the config says otherwise, head_dim default 256;
     srti_hparams' sliding_window, swa_pattern (from layer_types or sliding_window_pattern),
     attn_softcap / final_softcap (Gemma 2: 50 / 30 when absent, none when null), attn_scale
     (query_pre_attn_scalar^-0.5) and rope_theta_swa (Gemma 3's rope_local_base_freq). The tokenizer.json
     (byte_fallback, a Replace " " -> U+2581 normalizer) is a "llama" vocabulary with
     add_space_prefix 0. A Gemma 3 config may leave any field out: it takes transformers'
     Gemma3TextConfig default (srti__gemma3_text: vocab_size 262208, hidden_size 2304,
     intermediate_size 9216, 26 layers, 8 heads, 4 KV heads, head_dim 256, max_position_embeddings
     131072, rope_theta 1e6, rope_local_base_freq 1e4, query_pre_attn_scalar 256, sliding_window
     4096, sliding_window_pattern 6).
     Gemma3ForConditionalGeneration (model_type "gemma3": Gemma 3 4B, 12B, 27B as published) is
     read as its text model, as llama.cpp's converter reads it: every setting from text_config
     (which states little beyond the shape, the rest being those defaults; token ids and
     tie_word_embeddings at the top level win over text_config's), the tensors under
     language_model.model. or model.language_model. (transformers >= 4.52) as the model.* ones of
     Gemma3ForCausalLM, lm_head under language_model. or not, and every vision_tower.* and
     multi_modal_projector.* tensor (also under model.) left out. Its vocab_size (262208) is over
     the tokenizer's 262145 ids, so <image_soft_token> (262144) stays, a control token, and the
     ids past it are unused [PADn] ones. Without text_config it is refused.

   EXPERTS
     Mixtral's block_sparse_moe.gate and Qwen3-MoE's mlp.gate (the router) become
     blk.N.ffn_gate_inp.weight; expert X's block_sparse_moe.experts.X.w1 / w3 / w2 (Mixtral) and
     mlp.experts.X.gate_proj / up_proj / down_proj (Qwen3-MoE) become blk.N.ffn_gate.X /
     ffn_up.X / ffn_down.X.weight, one 2-D tensor per expert (formats/SRT.md). Mixtral is Llama
     with experts: q/k permuted as for Llama, experts intermediate_size wide, the picked experts'
     weights renormalized; its sliding_window is ignored as Mistral's is (not recorded, not
     applied; null in the released configs). Qwen3-MoE is Qwen3 with experts (q_norm / k_norm,
     NeoX rope): num_experts, num_experts_per_tok, moe_intermediate_size, and norm_topk_prob as
     expert_weights_norm. Qwen2-MoE is Qwen2 (QKV biases, NeoX rope) with Qwen3-MoE's experts and a
     shared expert: mlp.shared_expert.gate_proj / up_proj / down_proj become blk.N.ffn_gate_shexp /
     ffn_up_shexp / ffn_down_shexp.weight (shared_expert_intermediate_size wide), and
     mlp.shared_expert_gate ([1, hidden]) the vector blk.N.ffn_gate_inp_shexp.weight. Dense FFN
     layers in a MoE model (decoder_sparse_step > 1, mlp_only_layers) are refused; absent fields take
     transformers' defaults (srti__hf_moe_config). Granite MoE is Granite with experts stored 3-D:
     block_sparse_moe.router.layer becomes ffn_gate_inp, input_linear ([experts, 2 x
     intermediate_size, hidden]: each expert's gate rows, then its up rows) is split into
     ffn_gate.X and ffn_up.X, output_linear into ffn_down.X; the picked experts' weights are
     renormalized (its softmax is over the top-k logits). GraniteMoeShared adds shared_mlp, whose
     input_linear ([2 x shared_intermediate_size, hidden]) is split into ffn_gate_shexp and
     ffn_up_shexp and whose output_linear is ffn_down_shexp; it is not gated. OLMoE names its experts
     as Qwen3-MoE does (mlp.gate, mlp.experts.X.*_proj), intermediate_size wide: num_experts (64),
     num_experts_per_tok (8), norm_topk_prob (false); clip_qkv is refused.

   GPT-OSS
     openai/gpt-oss-20b / -120b as published: attention with biases (q/k/v and o_proj.bias ->
     attn_output.bias) and self_attn.sinks (-> attn_sinks.weight), NeoX rope (not permuted),
     post_attention_layernorm as the FFN's input norm (ffn_norm), mlp.router.weight / .bias ->
     ffn_gate_inp.weight / .bias, and each layer's experts stored 3-D and quantized: the MXFP4
     pairs mlp.experts.gate_up_proj_blocks (U8 [experts, 2 x intermediate_size, hidden / 32, 16]:
     32 FP4 values a block, value 2j in byte j's low nibble, 2j + 1 in its high one) with
     gate_up_proj_scales (U8 [experts, rows, hidden / 32]: E8M0, 2^(s - 127)), and down_proj's
     likewise, joined into one tensor of type SRTI_TYPE_HF_MXFP4 whichever shards hold them.
     Gate and up are interleaved by rows (row 2i is gate row i, 2i + 1 up row i), and so are the
     values of gate_up_proj_bias [experts, 2 x intermediate_size]; srti__split_fused makes
     blk.N.ffn_gate.X / ffn_up.X / ffn_down.X .weight and .bias of them (srti_tensor.row_step).
     A fine-tune saved dequantized has mlp.experts.gate_up_proj [experts, hidden, 2 x
     intermediate_size] and down_proj [experts, intermediate_size, hidden] (F32 / F16 / BF16,
     [in, out]: transposed against the others), read transposed (srti_tensor.tcols). Settings as
     srti__hf_gptoss_config reads them; srt-pack keeps MXFP4 experts as fp4 by default.

   PRE-TOKENIZER NAMES (the pre_tokenizer steps, flattened; Split regexes compared exactly)
     ByteLevel(use_regex)                          gpt-2 (gpt-neox / mpt for those architectures)
     Digits(individual) + ByteLevel(use_regex)     smollm for Llama architectures, else starcoder
                                                   (refact for GPTRefact)
     Split(Llama 3 regex) + ByteLevel              llama-bpe
     Split(Qwen2 regex) + ByteLevel                qwen2
     Split(Tekken regex) + ByteLevel               tekken
     Split(o200k regex) + ByteLevel                gpt-4o
     Punctuation + ByteLevel + Digits + Split(3 digits)          falcon
     Split([\r\n]) + Split(\s?\p{L}+) + Split(\s?\p{P}+) ...     deepseek-coder
     Split([\r\n]) + Split(\s?[A-Za-z...]+) ...                   deepseek-llm
     Split(\p{N}{1,3}) + Split([CJK]+) + ...                     deepseek-v3
*/

#define SRT_JSON_IMPLEMENTATION
#if defined(SRTI_STATIC) && !defined(SRTJ_STATIC)
#  define SRTJ_STATIC
#endif
#include "srt_json.h"

/* ---------------------------------------------------------------- small helpers */
typedef struct srti__sb { char *p; size_t n, cap; int oom; } srti__sb;   /* growing string */
static void srti__sb_put(srti__sb *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *np;
        while (cap < b->n + n + 1) cap *= 2;
        np = (char *)SRTI_MALLOC(cap);
        if (!np) { b->oom = 1; return; }
        if (b->p) { memcpy(np, b->p, b->n); SRTI_FREE(b->p); }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void srti__sb_str(srti__sb *b, const char *s) { srti__sb_put(b, s, strlen(s)); }

static char *srti__join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *p = (char *)SRTI_MALLOC(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

/* Whole file into a NUL-terminated buffer. 0 = ok, 1 = error (message set), 2 = does not exist. */
static int srti__slurp(const char *path, uint64_t max_bytes, char **out, size_t *len, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    int64_t sz;
    char *b;
    *out = NULL;
    if (len) *len = 0;
    if (!f) return 2;
    if (srti__fseek_end(f) != 0 || (sz = srti__ftell64(f)) < 0 || srti__fseek64(f, 0) != 0) {
        fclose(f);
        srti__seterr(err, errlen, "%s: cannot determine the file size (a directory?)", path);
        return 1;
    }
    if ((uint64_t)sz > max_bytes || (uint64_t)sz >= (uint64_t)((size_t)-1)) {
        fclose(f);
        srti__seterr(err, errlen, "%s: %llu bytes is more than the %llu this reader accepts", path, (srti__ull)sz, (srti__ull)max_bytes);
        return 1;
    }
    b = (char *)SRTI_MALLOC((size_t)sz + 1);
    if (!b) { fclose(f); srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    if (sz > 0 && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        fclose(f);
        SRTI_FREE(b);
        srti__seterr(err, errlen, "%s: read error", path);
        return 1;
    }
    fclose(f);
    b[sz] = 0;
    *out = b;
    if (len) *len = (size_t)sz;
    return 0;
}

/* Reads and parses a JSON file. 0 = ok, 1 = error, 2 = does not exist. */
static int srti__json_file(const char *path, uint64_t max_bytes, srtj_doc **doc, char *err, size_t errlen) {
    char *text, jerr[300];
    size_t n;
    int rc = srti__slurp(path, max_bytes, &text, &n, err, errlen);
    *doc = NULL;
    if (rc) return rc;
    if (srtj_parse(text, n, NULL, doc, jerr, sizeof jerr)) {
        srti__seterr(err, errlen, "%s: %s", path, jerr);
        SRTI_FREE(text);
        return 1;
    }
    SRTI_FREE(text);
    return 0;
}

static int srti__file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}

/* The folder of a Hugging Face model named by `path` (the folder itself, or its config.json or
   tokenizer.json), or NULL if `path` is not one or (*oom set) memory ran out. */
static char *srti__hf_folder(const char *path, int *oom) {
    static const char *const files[2] = {"config.json", "tokenizer.json"};
    size_t n = strlen(path);
    int k;
    for (k = 0; k < 2; k++) {
        size_t fl = strlen(files[k]);
        if (n >= fl && strcmp(path + n - fl, files[k]) == 0 && (n == fl || path[n - fl - 1] == '/' || path[n - fl - 1] == '\\')) {
            char *d = n == fl ? srti__strdup(".") : (char *)SRTI_MALLOC(n - fl + 1);   /* (+1: "/" for "/config.json") */
            if (!d) { *oom = 1; return NULL; }
            if (n == fl) return d;
            memcpy(d, path, n - fl - 1);
            d[n - fl - 1] = 0;
            if (d[0] == 0) { d[0] = '/'; d[1] = 0; }   /* "/config.json" */
            return d;
        }
    }
    for (k = 0; k < 2; k++) {
        char *p = srti__join(path, files[k]);
        int ok = p && srti__file_exists(p);
        SRTI_FREE(p);
        if (!p) { *oom = 1; return NULL; }
        if (ok) {
            char *d = srti__strdup(path);
            if (d) { size_t l = strlen(d); while (l > 1 && (d[l - 1] == '/' || d[l - 1] == '\\')) d[--l] = 0; }
            else *oom = 1;
            return d;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- JSON field readers */
/* Each returns 1 (message set) on a wrong type or range; absent or null leaves *out alone unless
   `required`, which is then an error. */
static int srti__jint(const char *file, const srtj_value *obj, const char *key, int64_t lo, int64_t hi, int required,
                      int64_t *out, char *err, size_t errlen) {
    const srtj_value *v = srtj_get(obj, key);
    int64_t x;
    if (!v || v->type == SRTJ_NULL) {
        if (required) { srti__seterr(err, errlen, "%s: \"%s\" is missing", file, key); return 1; }
        return 0;
    }
    if (!srtj_int(v, &x)) {
        srti__seterr(err, errlen, "%s: \"%s\" must be an integer (it is %s at byte %u)", file, key,
                     v->type == SRTJ_NUMBER ? "a fraction" : srtj_type_name(v->type), (unsigned)v->offset);
        return 1;
    }
    if (x < lo || x > hi) {
        srti__seterr(err, errlen, "%s: \"%s\" = %lld is out of range (%lld..%lld)", file, key, (long long)x, (long long)lo, (long long)hi);
        return 1;
    }
    *out = x;
    return 0;
}
static int srti__ju32(const char *file, const srtj_value *obj, const char *key, uint32_t lo, uint32_t hi, int required,
                      uint32_t *out, char *err, size_t errlen) {
    int64_t x = -1;
    if (srti__jint(file, obj, key, lo, hi, required, &x, err, errlen)) return 1;
    if (x >= 0) *out = (uint32_t)x;
    return 0;
}
static int srti__jf32(const char *file, const srtj_value *obj, const char *key, float *out, char *err, size_t errlen) {
    const srtj_value *v = srtj_get(obj, key);
    double d;
    if (!v || v->type == SRTJ_NULL) return 0;
    if (!srtj_number(v, &d) || !(d > 0.0) || d > 3.0e38) {
        srti__seterr(err, errlen, "%s: \"%s\" must be a positive number", file, key);
        return 1;
    }
    *out = (float)d;
    return 0;
}
static int srti__jbool(const char *file, const srtj_value *obj, const char *key, int *out, char *err, size_t errlen) {
    const srtj_value *v = srtj_get(obj, key);
    if (!v || v->type == SRTJ_NULL) return 0;
    if (!srtj_bool(v, out)) { srti__seterr(err, errlen, "%s: \"%s\" must be true or false", file, key); return 1; }
    return 0;
}
/* A token id given as an integer or a list of integers (the first one counts); -1 if absent. */
/* Every id of obj's key (a token id or a list of them) appended to ids[*n..cap): the tokens that end
   generation, as transformers reads eos_token_id. */
static int srti__jtoken_ids(const char *file, const srtj_value *obj, const char *key, int64_t *ids, int *n, int cap, char *err, size_t errlen) {
    const srtj_value *v = srtj_get(obj, key), *e;
    if (!v || v->type == SRTJ_NULL) return 0;
    for (e = srtj_is(v, SRTJ_ARRAY) ? v->first : v; e; e = srtj_is(v, SRTJ_ARRAY) ? e->next : NULL) {
        int64_t id;
        if (!srtj_int(e, &id) || id < 0 || id > 0x7fffffff) { srti__seterr(err, errlen, "%s: \"%s\" must hold token ids", file, key); return 1; }
        if (*n < cap) ids[(*n)++] = id;
    }
    return 0;
}
static int srti__jtoken_id(const char *file, const srtj_value *obj, const char *key, int64_t *out, char *err, size_t errlen) {
    const srtj_value *v = srtj_get(obj, key);
    if (v && v->type == SRTJ_ARRAY) {
        if (v->n == 0) return 0;
        if (!srtj_int(v->first, out) || *out < 0 || *out > 0x7fffffff) {
            srti__seterr(err, errlen, "%s: \"%s\" must hold token ids", file, key);
            return 1;
        }
        return 0;
    }
    return srti__jint(file, obj, key, 0, 0x7fffffff, 0, out, err, errlen);
}

/* ---------------------------------------------------------------- config.json */
enum { SRTI__HF_LLAMA = 1, SRTI__HF_MISTRAL = 2, SRTI__HF_QWEN2 = 3, SRTI__HF_QWEN3 = 4, SRTI__HF_PHI3 = 5, SRTI__HF_GEMMA2 = 6, SRTI__HF_GEMMA3 = 7,
       SRTI__HF_MIXTRAL = 8, SRTI__HF_QWEN3MOE = 9, SRTI__HF_GEMMA = 10, SRTI__HF_QWEN2MOE = 11,
       SRTI__HF_SMOLLM3 = 12, SRTI__HF_GRANITE = 13, SRTI__HF_GRANITEMOE = 14, SRTI__HF_OLMO2 = 15, SRTI__HF_OLMOE = 16, SRTI__HF_EXAONE4 = 17,
       SRTI__HF_MINICPM = 18, SRTI__HF_GPTOSS = 19, SRTI__HF_EXAONE = 20 };
#define SRTI__HF_IS_GEMMA(kind) ((kind) == SRTI__HF_GEMMA || (kind) == SRTI__HF_GEMMA2 || (kind) == SRTI__HF_GEMMA3)
#define SRTI__HF_QK_NORM(kind) ((kind) == SRTI__HF_QWEN3 || (kind) == SRTI__HF_QWEN3MOE || (kind) == SRTI__HF_GEMMA3 || (kind) == SRTI__HF_EXAONE4)   /* per-head
                                                                                                                                     q/k RMSNorm */
#define SRTI__HF_POST_ONLY(kind) ((kind) == SRTI__HF_OLMO2 || (kind) == SRTI__HF_EXAONE4)   /* norms of the attention's and the FFN's outputs only */
#define SRTI__HF_QK_NORM_FULL(kind) ((kind) == SRTI__HF_OLMO2 || (kind) == SRTI__HF_OLMOE)   /* q/k RMSNorm over all heads */
typedef struct srti__hf_cfg {
    char arch_class[64];       /* "LlamaForCausalLM" (or the model_type) */
    int kind;                  /* SRTI__HF_*; 0 = not a supported architecture */
    int qkv_bias;              /* q/k/v projections have biases */
    int tie;                   /* tie_word_embeddings: -1 absent */
    int64_t bos, eos, pad;     /* token ids from config.json, -1 absent */
    uint32_t vocab_size;       /* 0 absent */
    int multimodal;            /* Gemma3ForConditionalGeneration: text_config, language_model.* tensors */
    int64_t eos_ids[16]; int n_eos_ids;   /* every eos_token_id of config.json (a list: the tokens that end generation) */
    char quant[32];            /* quantization_config.quant_method ("" none) */
    int fp8;                   /* FP8 weights with scales: fp8_block, the rows x columns a scale covers (0: the whole dimension) */
    uint32_t fp8_block[2];
    int olmo3;                 /* Olmo3ForCausalLM: OLMo 2 with sliding-window layers */
} srti__hf_cfg;

/* rope_scaling of type longrope (or su, its first name): Phi-3's per-dimension frequency divisors
   long_factor and short_factor (rope_dim / 2 each), kept for srti__hf_add_rope_factors, and the
   scale of cos and sin: attention_factor, or as transformers computes it from the lengthening
   max_position_embeddings / original_max_position_embeddings. */
static int srti__hf_longrope(srti_model *m, const char *file, const srtj_value *c, const srtj_value *rs, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    const uint32_t half = hp->rope_dim / 2;
    static const char *key[2] = {"long_factor", "short_factor"};
    uint32_t orig = 0, j;
    int which;
    strcpy(hp->rope_scaling, "longrope");
    if (srti__ju32(file, c, "original_max_position_embeddings", 1, 1u << 26, 0, &orig, err, errlen) ||
        srti__ju32(file, rs, "original_max_position_embeddings", 1, 1u << 26, 0, &orig, err, errlen))
        return 1;
    if (!orig) { srti__seterr(err, errlen, "%s: longrope scaling needs original_max_position_embeddings", file); return 1; }
    hp->rope_orig_ctx = orig;
    hp->rope_attn_factor = 0.0f;
    if (srti__jf32(file, rs, "attention_factor", &hp->rope_attn_factor, err, errlen)) return 1;
    if (hp->rope_attn_factor == 0.0f) {
        const double scale = (double)hp->n_ctx / (double)orig;
        hp->rope_attn_factor = scale > 1.0 && orig > 1 ? (float)sqrt(1.0 + log(scale) / log((double)orig)) : 1.0f;
    }
    SRTI_FREE(m->priv->inline_vals);
    m->priv->n_inline = 0;
    if (!(m->priv->inline_vals = (float *)SRTI_MALLOC((size_t)half * 2 * sizeof(float) + 1))) { srti__seterr(err, errlen, "out of memory"); return 1; }
    for (which = 0; which < 2; which++) {
        const srtj_value *a = srtj_get(rs, key[which]), *e;
        if (!srtj_is(a, SRTJ_ARRAY) || a->n != half) {
            srti__seterr(err, errlen, "%s: rope_scaling.%s must be an array of %u numbers (rotated dimensions / 2)", file, key[which], (unsigned)half);
            return 1;
        }
        for (e = a->first, j = 0; e; e = e->next, j++) {
            double d;
            if (!srtj_number(e, &d) || !(d > 0.0) || d > 1e6) {
                srti__seterr(err, errlen, "%s: rope_scaling.%s[%u] must be a positive number", file, key[which], (unsigned)j);
                return 1;
            }
            m->priv->inline_vals[(uint32_t)which * half + j] = (float)d;
        }
    }
    m->priv->n_inline = 2 * half;
    return 0;
}
/* The factors as tensors (rope_factors_long.weight, rope_factors_short.weight), as llama.cpp's
   converter writes them. */
static int srti__hf_add_rope_factors(srti_model *m, char *err, size_t errlen) {
    srti_tensor *nt;
    const uint32_t half = m->priv->n_inline / 2;
    int j;
    if (!m->priv->n_inline) return 0;
    if (!(nt = (srti_tensor *)SRTI_CALLOC((size_t)m->n_tensors + 2, sizeof(srti_tensor)))) { srti__seterr(err, errlen, "out of memory"); return 1; }
    if (m->n_tensors) memcpy(nt, m->tensors, (size_t)m->n_tensors * sizeof(srti_tensor));
    SRTI_FREE(m->tensors);
    m->tensors = nt;
    for (j = 0; j < 2; j++) {
        srti_tensor *t = &m->tensors[m->n_tensors++];
        strcpy(t->name, j ? "rope_factors_short.weight" : "rope_factors_long.weight");
        t->n_dims = 1;
        t->ne[0] = half; t->ne[1] = t->ne[2] = t->ne[3] = 1;
        t->src_type = SRTI_TYPE_F32;
        t->nbytes = (uint64_t)half * 4;
        t->values = m->priv->inline_vals + (uint32_t)j * half;
    }
    return 0;
}

/* ---------------------------------------------------------------- Gemma 2 / Gemma 3 */
/* transformers' Gemma3TextConfig defaults, for what a Gemma 3 config leaves out: Gemma3ForCausalLM's
   config.json, and the text_config of Gemma3ForConditionalGeneration, which states little more than
   the shape (gemma-3-4b-it's has hidden and intermediate size, layers, rope_scaling and
   sliding_window: its 8 heads of 256, 4 KV heads and vocab_size 262208 are these defaults). The
   others: rms_norm_eps 1e-6, no soft-capping, no rope_scaling, gelu_pytorch_tanh, tied embeddings,
   no attention bias. */
typedef struct srti__gemma3_defaults {
    uint32_t vocab_size, hidden_size, intermediate_size, layers, heads, kv_heads, head_dim, max_pos, sliding_window, pattern;
    float rope_theta, rope_local_base_freq, query_pre_attn_scalar;
} srti__gemma3_defaults;
static const srti__gemma3_defaults srti__gemma3_text = {262208, 2304, 9216, 26, 8, 4, 256, 131072, 4096, 6, 1000000.0f, 10000.0f, 256.0f};

/* The MLP activation: GELU with the tanh approximation is what the runtime has for Gemma.
   transformers' Gemma 2/3 MLPs use hidden_activation (default gelu_pytorch_tanh) and ignore
   hidden_act; a hidden_act of plain "gelu" without hidden_activation is Gemma 1's convention,
   which transformers runs as the tanh approximation too. */
static int srti__hf_gemma_act(const char *file, const srtj_value *c, char *err, size_t errlen) {
    const char *act = srtj_string(srtj_get(c, "hidden_activation")), *key = "hidden_activation";
    int plain_gelu_ok = 0;
    if (!act) { act = srtj_string(srtj_get(c, "hidden_act")); key = "hidden_act"; plain_gelu_ok = 1; }
    if (act && strcmp(act, "gelu_pytorch_tanh") != 0 && strcmp(act, "gelu_tanh") != 0 && !(plain_gelu_ok && !strcmp(act, "gelu"))) {
        srti__seterr(err, errlen, "%s: %s \"%s\" is not supported for Gemma (gelu_pytorch_tanh)", file, key, act);
        return 1;
    }
    return 0;
}

/* layer_types, where the config has one (a list of "sliding_attention" / "full_attention", one per
   layer), as the period P of a sliding-window pattern, layer l sliding iff l % P < P - 1: P is its
   first full-attention layer + 1 (none: *pattern stays). Refused if the list follows no such
   pattern, or another P than `given` (0: none given). */
static int srti__hf_layer_types(const char *file, const srtj_value *c, uint32_t n_layer, uint32_t given, uint32_t *pattern, char *err, size_t errlen) {
    const srtj_value *lt = srtj_get(c, "layer_types"), *e;
    uint32_t first_full = 0, l;
    if (!lt || lt->type == SRTJ_NULL) return 0;
    if (!srtj_is(lt, SRTJ_ARRAY) || lt->n != n_layer) {
        srti__seterr(err, errlen, "%s: layer_types must be a list of %u entries (num_hidden_layers)", file, (unsigned)n_layer);
        return 1;
    }
    for (e = lt->first, l = 0; e; e = e->next, l++) {   /* every entry one of the two */
        const char *s = srtj_string(e);
        if (!s || (strcmp(s, "sliding_attention") != 0 && strcmp(s, "full_attention") != 0)) {
            srti__seterr(err, errlen, "%s: layer_types[%u] must be \"sliding_attention\" or \"full_attention\"", file, (unsigned)l);
            return 1;
        }
        if (!first_full && !strcmp(s, "full_attention")) first_full = l + 1;
    }
    if (first_full) *pattern = first_full;
    if (given && *pattern != given) {
        srti__seterr(err, errlen, "%s: layer_types repeats every %u layers, sliding_window_pattern says %u", file, (unsigned)*pattern, (unsigned)given);
        return 1;
    }
    for (e = lt->first, l = 0; e; e = e->next, l++)
        if (!strcmp(srtj_string(e), "sliding_attention") != (l % *pattern < *pattern - 1)) {
            srti__seterr(err, errlen, "%s: layer_types is not a sliding-window pattern (layer l slides iff l %% P < P - 1, here P = %u): layer %u is %s",
                         file, (unsigned)*pattern, (unsigned)l, srtj_string(e));
            return 1;
        }
    return 0;
}

/* Gemma's attention: sliding-window layers in a fixed pattern (layer l slides iff l % P < P - 1;
   Gemma 2: P = 2, Gemma 3: sliding_window_pattern, default 6), optional tanh soft-capping of the
   attention scores and final logits (Gemma 2), scores scaled by query_pre_attn_scalar^-0.5, and
   (Gemma 3) a rope base of its own for the sliding layers. A layer_types list must be such a
   pattern. Gemma 3 values left out take srti__gemma3_text's defaults (sliding_window 4096,
   query_pre_attn_scalar 256); a null sliding_window is no window, a null query_pre_attn_scalar
   head_dim (llama.cpp's scale for a GGUF without one). Gemma 1 has none of this: its scale is
   head_dim^-1/2 (GemmaAttention's), and transformers' GemmaConfig has no other of these keys. */
static int srti__hf_gemma_config(srti_model *m, const char *file, const srtj_value *c, const srti__hf_cfg *cfg, float local_theta, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    if (cfg->kind == SRTI__HF_GEMMA) {
        hp->attn_scale = (float)(1.0 / sqrt((double)hp->head_dim));
        return 0;
    }
    static const char *caps[2] = {"attn_logit_softcapping", "final_logit_softcapping"};
    const int g3 = cfg->kind == SRTI__HF_GEMMA3;
    uint32_t pattern = g3 ? srti__gemma3_text.pattern : 2, given = 0;
    float qpas = g3 && !srtj_get(c, "query_pre_attn_scalar") ? srti__gemma3_text.query_pre_attn_scalar : (float)hp->head_dim;
    float local_base = local_theta > 0.0f ? local_theta : srti__gemma3_text.rope_local_base_freq;   /* (rope_parameters' sliding_attention) */
    int k;
    if (g3 && !srtj_get(c, "sliding_window")) hp->sliding_window = srti__gemma3_text.sliding_window;
    if (srti__ju32(file, c, "sliding_window", 0, 1u << 30, 0, &hp->sliding_window, err, errlen)) return 1;
    if (g3 && srti__ju32(file, c, "sliding_window_pattern", 1, 4096, 0, &given, err, errlen)) return 1;
    if (given) pattern = given;
    if (srti__hf_layer_types(file, c, hp->n_layer, given, &pattern, err, errlen)) return 1;
    hp->swa_pattern = pattern;
    for (k = 0; k < 2; k++) {   /* absent: transformers' Gemma 2 defaults (50, 30); null: none */
        float cap = cfg->kind == SRTI__HF_GEMMA2 && !srtj_get(c, caps[k]) ? (k ? 30.0f : 50.0f) : 0.0f;
        if (srti__jf32(file, c, caps[k], &cap, err, errlen)) return 1;
        if (!(cap >= 0.0f && cap <= 1e6f)) { srti__seterr(err, errlen, "%s: %s %g is out of range", file, caps[k], (double)cap); return 1; }
        *(k ? &hp->final_softcap : &hp->attn_softcap) = cap;
    }
    if (srti__jf32(file, c, "query_pre_attn_scalar", &qpas, err, errlen)) return 1;
    if (!(qpas > 0.0f)) { srti__seterr(err, errlen, "%s: query_pre_attn_scalar %g is not positive", file, (double)qpas); return 1; }
    hp->attn_scale = (float)(1.0 / sqrt((double)qpas));
    if (g3) {
        if (srti__jf32(file, c, "rope_local_base_freq", &local_base, err, errlen)) return 1;
        hp->rope_theta_swa = local_base;
    }
    return 0;
}

/* ---------------------------------------------------------------- MiniCPM */
/* MiniCPMForCausalLM (MiniCPM 1 / 2, MiniCPM4; packed as "minicpm"): Llama (q/k permuted) with
   Granite's three multipliers as llama.cpp's converter derives them: embeddings times scale_emb,
   the attention's and the FFN's outputs times scale_depth / sqrt(num_hidden_layers), the logits
   divided by hidden_size / dim_model_base. All three are required (the converter's KeyError). */
static int srti__hf_minicpm_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    static const char *const keys[3] = {"scale_emb", "scale_depth", "dim_model_base"};
    float v[3] = {0, 0, 0};
    int k;
    for (k = 0; k < 3; k++) {
        if (srti__jf32(file, c, keys[k], &v[k], err, errlen)) return 1;
        if (v[k] == 0.0f) { srti__seterr(err, errlen, "%s: MiniCPM needs \"%s\"", file, keys[k]); return 1; }
    }
    hp->embd_scale = v[0];
    hp->residual_scale = (float)((double)v[1] / sqrt((double)hp->n_layer));
    hp->logit_scale = (float)((double)hp->n_embd / (double)v[2]);
    if (hp->embd_scale > 1e4f || hp->residual_scale > 1e4f || !(hp->logit_scale > 0.0f) || hp->logit_scale > 1e6f) {
        srti__seterr(err, errlen, "%s: MiniCPM multipliers out of range: scale_emb %g, scale_depth %g, dim_model_base %g", file, (double)v[0], (double)v[1],
                     (double)v[2]);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- YaRN, OLMo 3 */
/* rope_scaling of type yarn, as llama.cpp's converter takes it: factor and
   original_max_position_embeddings as given (transformers' default for the latter:
   max_position_embeddings), attention_factor, beta_fast, beta_slow, extrapolation_factor, and
   truncate (false in gpt-oss: the ramp's bounds unrounded, yarn_exact; llama.cpp's converter drops
   it). DeepSeek's mscale / mscale_all_dim are refused. */
static int srti__hf_yarn(const char *file, const srtj_value *v, srti_hparams *hp, char *err, size_t errlen) {
    static const char *const mscales[2] = {"mscale", "mscale_all_dim"};
    int i, truncate = 1;
    for (i = 0; i < 2; i++) {
        const srtj_value *x = srtj_get(v, mscales[i]);
        if (x && x->type != SRTJ_NULL) { srti__seterr(err, errlen, "%s: rope_scaling.%s is not supported for yarn", file, mscales[i]); return 1; }
    }
    if (srti__jbool(file, v, "truncate", &truncate, err, errlen)) return 1;
    hp->yarn_exact = !truncate;
    return srti__jf32(file, v, "attention_factor", &hp->yarn_attn_factor, err, errlen) || srti__jf32(file, v, "beta_fast", &hp->yarn_beta_fast, err, errlen) ||
           srti__jf32(file, v, "beta_slow", &hp->yarn_beta_slow, err, errlen) || srti__jf32(file, v, "extrapolation_factor", &hp->yarn_ext_factor, err, errlen);
}

/* sliding_window (null: none) over the layers layer_types names (which must be such a pattern),
   with the config class's defaults for both. */
static int srti__hf_windows(srti_model *m, const char *file, const srtj_value *c, uint32_t window, uint32_t pattern, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    const srtj_value *sw = srtj_get(c, "sliding_window");
    if (sw && sw->type == SRTJ_NULL) return 0;
    if (srti__ju32(file, c, "sliding_window", 1, 1u << 30, 0, &window, err, errlen) || srti__hf_layer_types(file, c, hp->n_layer, 0, &pattern, err, errlen))
        return 1;
    if (pattern < 2) return 0;   /* no layer slides */
    hp->sliding_window = window;
    hp->swa_pattern = pattern;
    return 0;
}
/* OLMo 3 (Olmo3ForCausalLM, packed as "olmo2"): sliding_window (Olmo3Config's default 4096; null:
   none) over the layers layer_types names (default: 3 sliding of every 4). Only the other layers
   have the rope scaling (rope_theta_swa left to the runtime's default: the model's base). */
static int srti__hf_olmo3_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    return srti__hf_windows(m, file, c, 4096, 4, err, errlen);
}

/* ---------------------------------------------------------------- EXAONE 4 */
/* EXAONE 4's hybrid attention (the 32B): where sliding_window is set (transformers' default 4096
   when absent; null: none), layer l slides iff l % P < P - 1, P from sliding_window_pattern (a
   number, default 4, or "LLLG": P - 1 local layers and a global one) or layer_types, and the
   full-attention layers have no RoPE. A window with no sliding layer is refused: transformers
   would rotate no layer then, llama.cpp every one. Without a window every layer rotates. */
static int srti__hf_exaone4_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    const srtj_value *sw = srtj_get(c, "sliding_window"), *sp = srtj_get(c, "sliding_window_pattern");
    uint32_t window = 4096, given = 0, pattern = 4, l;
    if (sw && sw->type == SRTJ_NULL) return 0;
    if (srti__ju32(file, c, "sliding_window", 1, 1u << 30, 0, &window, err, errlen)) return 1;
    if (srtj_string(sp)) {
        const char *p = srtj_string(sp);
        size_t n = strlen(p), i;
        for (i = 0; i + 1 < n && p[i] == 'L'; i++) {}
        if (n == 0 || n > 1024 || i != n - 1 || p[i] != 'G') {
            srti__seterr(err, errlen, "%s: sliding_window_pattern \"%.40s\" is not P - 1 'L's and a 'G' (local layers, then a global one)", file, p);
            return 1;
        }
        given = (uint32_t)n;
    } else if (srti__ju32(file, c, "sliding_window_pattern", 1, 1024, 0, &given, err, errlen)) return 1;
    if (given) pattern = given;
    if (srti__hf_layer_types(file, c, hp->n_layer, given, &pattern, err, errlen)) return 1;
    for (l = 0; l < hp->n_layer && !(l % pattern < pattern - 1); l++) {}
    if (l == hp->n_layer) {
        srti__seterr(err, errlen, "%s: sliding_window %u but no layer slides (pattern %u): transformers would rotate no layer, llama.cpp every one "
                     "(a sliding_window of null means no windows)", file, (unsigned)window, (unsigned)pattern);
        return 1;
    }
    hp->sliding_window = window;
    hp->swa_pattern = pattern;
    return 0;
}

/* ---------------------------------------------------------------- SmolLM3 */
/* SmolLM3: Llama with NoPE layers. no_rope_layers (1: the layer rotates, 0: it does not) must be
   the pattern of no_rope_layer_interval N (default 4): layer l without RoPE iff (l + 1) % N == 0,
   the one pattern llama.cpp runs (N fixed at 4 there); recorded as no_rope_layer_step. Sliding
   windows (use_sliding_window true) are refused; a sliding_window value alone is ignored. */
static int srti__hf_smollm3_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    const srtj_value *list = srtj_get(c, "no_rope_layers"), *e;
    uint32_t step = 4, l;
    int swa = 0;
    if (srti__ju32(file, c, "no_rope_layer_interval", 1, 4096, 0, &step, err, errlen) || srti__jbool(file, c, "use_sliding_window", &swa, err, errlen))
        return 1;
    if (swa == 1) { srti__seterr(err, errlen, "%s: use_sliding_window true is not supported for SmolLM3", file); return 1; }
    if (list && list->type != SRTJ_NULL) {
        if (!srtj_is(list, SRTJ_ARRAY) || list->n != hp->n_layer) {
            srti__seterr(err, errlen, "%s: no_rope_layers must be a list of %u entries (num_hidden_layers)", file, (unsigned)hp->n_layer);
            return 1;
        }
        for (e = list->first, l = 0; e; e = e->next, l++) {
            int64_t v = -1;
            if (!srtj_int(e, &v) || (v != 0 && v != 1) || (v == 1) != ((l + 1) % step != 0)) {
                srti__seterr(err, errlen, "%s: no_rope_layers[%u] must be %d: only the pattern of no_rope_layer_interval %u (no RoPE in layer l iff "
                             "(l + 1) %% %u == 0) is supported", file, (unsigned)l, (l + 1) % step != 0, (unsigned)step, (unsigned)step);
                return 1;
            }
        }
    }
    hp->nope_step = step;
    return 0;
}

/* ---------------------------------------------------------------- Granite */
/* Granite (3.x dense, and Granite MoE): Llama with four multipliers, transformers' GraniteConfig
   defaults 1.0 each: embedding_multiplier (the embeddings), attention_multiplier (the q . k scale
   itself, not 1/sqrt(head_dim)), residual_multiplier (the attention's and the FFN's outputs before
   their residual adds) and logits_scaling (the logits are divided by it). GraniteMoeConfig's
   position_embedding_type other than "rope" (no positions) is refused. */
static int srti__hf_granite_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    static const char *const keys[4] = {"embedding_multiplier", "attention_multiplier", "residual_multiplier", "logits_scaling"};
    float *const dst[4] = {&hp->embd_scale, &hp->attn_scale, &hp->residual_scale, &hp->logit_scale};
    const char *pe = srtj_string(srtj_get(c, "position_embedding_type"));
    int k;
    if (pe && strcmp(pe, "rope") != 0) {
        srti__seterr(err, errlen, "%s: position_embedding_type \"%.40s\" is not supported (rope)", file, pe);
        return 1;
    }
    for (k = 0; k < 4; k++) {
        float v = 1.0f;
        if (srti__jf32(file, c, keys[k], &v, err, errlen)) return 1;
        if (!(v > 0.0f) || v > (k == 3 ? 1e6f : k == 1 ? 16.0f : 1e4f)) {
            srti__seterr(err, errlen, "%s: %s %g is out of range", file, keys[k], (double)v);
            return 1;
        }
        *dst[k] = v;
    }
    return 0;
}

/* ---------------------------------------------------------------- gpt-oss */
/* gpt-oss (GptOssForCausalLM, as GptOssConfig reads it): num_local_experts (default 128) experts
   of intermediate_size, num_experts_per_tok (4) of them picked, their weights a softmax over the
   picked logits (expert_weights_norm); sliding_window (128; null: none) over the layers
   layer_types names (default: the even ones, pattern 2); without rope_scaling the config class's
   YaRN (factor 32 over 4096 positions, betas 32 / 1, truncate false: without rope_parameters too); swiglu_limit must be the
   runtime's 7. The q/k/v and output projections always have biases (attention_bias is forced). */
static int srti__hf_gptoss_config(srti_model *m, const char *file, const srtj_value *c, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    float limit = 7.0f;
    hp->n_expert = 128;
    hp->n_expert_used = 4;
    if (srti__ju32(file, c, "num_local_experts", 1, 4096, 0, &hp->n_expert, err, errlen) ||
        srti__ju32(file, c, "num_experts_per_tok", 1, hp->n_expert, 0, &hp->n_expert_used, err, errlen) || srti__jf32(file, c, "swiglu_limit", &limit, err, errlen))
        return 1;
    if (hp->n_expert_used > hp->n_expert) {
        srti__seterr(err, errlen, "%s: num_experts_per_tok %u is over num_local_experts %u", file, (unsigned)hp->n_expert_used, (unsigned)hp->n_expert);
        return 1;
    }
    if (limit != 7.0f) { srti__seterr(err, errlen, "%s: swiglu_limit %g is not supported (7, the released models')", file, (double)limit); return 1; }
    hp->n_ff_exp = hp->n_ff;
    hp->expert_weights_norm = 1;
    if (!srtj_get(c, "rope_scaling") && !srtj_get(c, "rope_parameters")) {   /* (the class's default rope_parameters) */
        strcpy(hp->rope_scaling, "yarn");
        hp->rope_scale_factor = 32.0f;
        hp->rope_orig_ctx = 4096;
        hp->yarn_exact = 1;
    }
    return srti__hf_windows(m, file, c, 128, 2, err, errlen);
}

/* ---------------------------------------------------------------- mixtures of experts */
/* Mixtral (-> "llama" with experts), Qwen3-MoE (-> "qwen3moe") and Qwen2-MoE (-> "qwen2moe"):
   every layer's FFN is a router and n_expert experts, of which each token goes through
   n_expert_used; Qwen2-MoE adds a shared expert of shared_expert_intermediate_size that every token
   goes through. Absent fields take the config classes' defaults: MixtralConfig's num_local_experts
   8 and num_experts_per_tok 2 (an expert is intermediate_size wide); Qwen3MoeConfig's num_experts
   128, num_experts_per_tok 8, moe_intermediate_size 768, norm_topk_prob false, decoder_sparse_step 1
   and mlp_only_layers []; Qwen2MoeConfig's the same but num_experts 60, num_experts_per_tok 4,
   moe_intermediate_size 1408 and shared_expert_intermediate_size 5632.
   transformers reads num_experts and num_local_experts as one setting (attribute_map) in both
   classes, so either spelling counts; both given must agree. A Qwen3-MoE layer with a dense FFN
   (decoder_sparse_step > 1, a layer in mlp_only_layers) is refused: the runtime has experts in
   every layer or in none. Granite MoE (GraniteMoeConfig): num_local_experts 8, num_experts_per_tok
   2, experts intermediate_size wide and renormalized (softmax over the top-k logits), and
   GraniteMoeSharedConfig's shared_intermediate_size (0: no shared expert). OLMoE (OlmoeConfig):
   num_experts 64, num_experts_per_tok 8, experts intermediate_size wide, norm_topk_prob false. */
static int srti__hf_moe_config(srti_model *m, const char *file, const srtj_value *c, const srti__hf_cfg *cfg, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    const int mixtral = cfg->kind == SRTI__HF_MIXTRAL, granite = cfg->kind == SRTI__HF_GRANITEMOE, olmoe = cfg->kind == SRTI__HF_OLMOE;
    const char *own = mixtral || granite ? "num_local_experts" : "num_experts", *other = mixtral || granite ? "num_experts" : "num_local_experts";
    uint32_t n_own = 0, n_other = 0, step = 1;
    const srtj_value *mlp_only;
    int norm = 0;
    if (srti__ju32(file, c, own, 1, 4096, 0, &n_own, err, errlen) || srti__ju32(file, c, other, 1, 4096, 0, &n_other, err, errlen)) return 1;
    if (n_own && n_other && n_own != n_other) {
        srti__seterr(err, errlen, "%s: %s %u and %s %u disagree (transformers reads them as one setting)", file, own, (unsigned)n_own, other, (unsigned)n_other);
        return 1;
    }
    const int q2 = cfg->kind == SRTI__HF_QWEN2MOE;
    hp->n_expert = n_own ? n_own : n_other ? n_other : mixtral || granite ? 8 : q2 ? 60 : olmoe ? 64 : 128;
    hp->n_expert_used = mixtral || granite ? 2 : q2 ? 4 : 8;
    if (hp->n_expert_used > hp->n_expert) hp->n_expert_used = hp->n_expert;   /* a default never over the experts there are */
    if (srti__ju32(file, c, "num_experts_per_tok", 1, hp->n_expert, 0, &hp->n_expert_used, err, errlen)) return 1;
    if (mixtral || granite) {   /* an expert is intermediate_size wide, and the picked experts' weights always sum to 1 */
        hp->n_ff_exp = hp->n_ff;
        hp->expert_weights_norm = 1;
        return granite ? srti__ju32(file, c, "shared_intermediate_size", 0, 1u << 24, 0, &hp->n_ff_shexp, err, errlen) : 0;
    }
    hp->n_ff_exp = q2 ? 1408 : olmoe ? hp->n_ff : 768;
    hp->n_ff_shexp = q2 ? 5632 : 0;
    if (q2 && srti__ju32(file, c, "shared_expert_intermediate_size", 1, 1u << 24, 0, &hp->n_ff_shexp, err, errlen)) return 1;
    if (olmoe) {   /* an expert is intermediate_size wide; every layer has experts */
        if (srti__jbool(file, c, "norm_topk_prob", &norm, err, errlen)) return 1;
        hp->expert_weights_norm = norm;
        return 0;
    }
    if (srti__ju32(file, c, "moe_intermediate_size", 1, 1u << 24, 0, &hp->n_ff_exp, err, errlen) ||
        srti__jbool(file, c, "norm_topk_prob", &norm, err, errlen) ||
        srti__ju32(file, c, "decoder_sparse_step", 1, 1u << 20, 0, &step, err, errlen))
        return 1;
    /* norm_topk_prob as the checkpoint says (transformers' default false: the picked experts'
       softmax probabilities used as they are). llama.cpp's qwen3moe graph always renormalizes;
       every released Qwen3-MoE checkpoint sets it true, so the two agree on those. Its qwen2moe
       graph never does; the released Qwen2-MoE checkpoints set it false. */
    hp->expert_weights_norm = norm;
    if (step != 1) {
        srti__seterr(err, errlen, "%s: decoder_sparse_step %u leaves layers with a dense FFN (experts only where (layer + 1) %% %u == 0): not supported",
                     file, (unsigned)step, (unsigned)step);
        return 1;
    }
    mlp_only = srtj_get(c, "mlp_only_layers");
    if (mlp_only && mlp_only->type != SRTJ_NULL && (!srtj_is(mlp_only, SRTJ_ARRAY) || mlp_only->n > 0)) {
        srti__seterr(err, errlen, "%s: mlp_only_layers %s: layers with a dense FFN are not supported", file,
                     srtj_is(mlp_only, SRTJ_ARRAY) ? "is not empty" : "must be a list (of layer indices)");
        return 1;
    }
    return 0;
}

/* A [rows, columns] pair of 1 .. 65536 (a block of FP8 scales) */
static int srti__jblock(const char *file, const srtj_value *bs, const char *what, uint32_t *block, char *err, size_t errlen) {
    int64_t a = 0, b = 0;
    if (!srtj_is(bs, SRTJ_ARRAY) || bs->n != 2 || !srtj_int(bs->first, &a) || !srtj_int(bs->first->next, &b) || a < 1 || b < 1 || a > 65536 || b > 65536) {
        srti__seterr(err, errlen, "%s: quantization_config%s must be [rows, columns], 1 .. 65536 each", file, what);
        return 1;
    }
    block[0] = (uint32_t)a; block[1] = (uint32_t)b;
    return 0;
}
/* quantization_config: FP8 weights with scales, as quant_method fp8 writes them (DeepSeek's and
   Qwen's: fmt e4m3, a weight_scale_inv per weight_block_size, default 128 x 128) and as
   compressed-tensors' float-quantized format does (RedHat's / Neural Magic's FP8 checkpoints: one
   config group of 8-bit float weights, symmetric, a weight_scale per row (strategy channel), per
   tensor or per block_structure; activation settings ignored: activations stay the runtime's);
   mxfp4 (gpt-oss's). Any other method (or compressed-tensors otherwise) is refused when the
   weights are read (a vocabulary still packs). */
static int srti__hf_quant_config(const char *file, const srtj_value *c, srti__hf_cfg *cfg, char *err, size_t errlen) {
    const srtj_value *q = srtj_get(c, "quantization_config"), *bs;
    const char *method, *fmt;
    if (!q || q->type == SRTJ_NULL) return 0;
    method = srtj_string(srtj_get(q, "quant_method"));
    if (!srtj_is(q, SRTJ_OBJECT) || !method || !method[0]) { srti__seterr(err, errlen, "%s: quantization_config needs a quant_method", file); return 1; }
    srti__copy_trunc(cfg->quant, sizeof cfg->quant, method);
    if (!strcmp(method, "compressed-tensors")) {
        const srtj_value *groups = srtj_get(q, "config_groups"), *w = srtj_get(srtj_first(groups), "weights");
        const char *format = srtj_string(srtj_get(q, "format")), *type = srtj_string(srtj_get(w, "type")), *strategy = srtj_string(srtj_get(w, "strategy"));
        int64_t bits = 0;
        int symmetric = 1;
        if (!format || strcmp(format, "float-quantized") != 0 || !srtj_is(groups, SRTJ_OBJECT) || groups->n != 1 || !srtj_is(w, SRTJ_OBJECT) ||
            !srtj_int(srtj_get(w, "num_bits"), &bits) || bits != 8 || !type || strcmp(type, "float") != 0 || !strategy ||
            srti__jbool(file, w, "symmetric", &symmetric, err, errlen) || !symmetric) {
            if (!err || !err[0])
                srti__seterr(err, errlen, "%s: compressed-tensors quantization is supported as format float-quantized, one config group of symmetric "
                             "8-bit float weights (FP8)", file);
            return 1;
        }
        cfg->fp8 = 1;
        if (!strcmp(strategy, "channel")) { cfg->fp8_block[0] = 1; cfg->fp8_block[1] = 0; }
        else if (!strcmp(strategy, "tensor")) cfg->fp8_block[0] = cfg->fp8_block[1] = 0;
        else if (!strcmp(strategy, "block")) return srti__jblock(file, srtj_get(w, "block_structure"), ".config_groups weights.block_structure", cfg->fp8_block, err, errlen);
        else { srti__seterr(err, errlen, "%s: compressed-tensors weights.strategy \"%.20s\" is not supported (channel, tensor, block)", file, strategy); return 1; }
        return 0;
    }
    if (strcmp(method, "fp8") != 0) return 0;
    fmt = srtj_string(srtj_get(q, "fmt"));
    if (fmt && strcmp(fmt, "e4m3") != 0) { srti__seterr(err, errlen, "%s: quantization_config.fmt \"%.20s\" is not supported (e4m3)", file, fmt); return 1; }
    cfg->fp8 = 1;
    cfg->fp8_block[0] = cfg->fp8_block[1] = 128;
    bs = srtj_get(q, "weight_block_size");
    return bs && bs->type != SRTJ_NULL ? srti__jblock(file, bs, ".weight_block_size", cfg->fp8_block, err, errlen) : 0;
}

/* The rotation's settings as transformers 5 writes them: rope_parameters, an object holding
   rope_theta, rope_type and the scaling's keys (rope_scaling's), partial_rotary_factor; or, for
   models whose layers rotate differently, one such object per layer type (Gemma 3's
   full_attention and sliding_attention: the latter's rope_theta is the sliding layers' base,
   rope_local_base_freq before). Read over the older top-level keys; without rope_parameters those
   are read as before. A per-layer-type object elsewhere is refused rather than half read. */
typedef struct srti__hf_rope {
    const srtj_value *main;      /* the object of the (full-attention) layers' settings, or NULL */
    const srtj_value *scaling;   /* rope_scaling, or the rope_parameters object when it names a rope_type; NULL: none */
    float local_theta;           /* sliding_attention's rope_theta; 0: not given */
} srti__hf_rope;
static int srti__hf_rope_parameters(const char *file, const srtj_value *c, const srti__hf_cfg *cfg, srti__hf_rope *r, char *err, size_t errlen) {
    const srtj_value *rp = srtj_get(c, "rope_parameters"), *rs = srtj_get(c, "rope_scaling");
    memset(r, 0, sizeof *r);
    r->scaling = rs && rs->type != SRTJ_NULL ? rs : NULL;
    if (!rp || rp->type == SRTJ_NULL) return 0;
    if (!srtj_is(rp, SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: rope_parameters must be an object", file); return 1; }
    if (srtj_get(rp, "full_attention") || srtj_get(rp, "sliding_attention")) {
        const srtj_value *full = srtj_get(rp, "full_attention"), *slide = srtj_get(rp, "sliding_attention");
        if (cfg->kind != SRTI__HF_GEMMA3) {
            srti__seterr(err, errlen, "%s: rope_parameters per layer type is supported for Gemma 3 only", file);
            return 1;
        }
        if ((full && !srtj_is(full, SRTJ_OBJECT)) || (slide && !srtj_is(slide, SRTJ_OBJECT))) {
            srti__seterr(err, errlen, "%s: rope_parameters.full_attention / .sliding_attention must be objects", file);
            return 1;
        }
        if (slide && srti__jf32(file, slide, "rope_theta", &r->local_theta, err, errlen)) return 1;
        if (slide && srtj_get(slide, "rope_type") && strcmp(srtj_string(srtj_get(slide, "rope_type")) ? srtj_string(srtj_get(slide, "rope_type")) : "", "default")) {
            srti__seterr(err, errlen, "%s: rope_parameters.sliding_attention.rope_type must be \"default\" (the sliding layers are not scaled)", file);
            return 1;
        }
        rp = full;
    }
    r->main = rp;
    if (rp && (srtj_get(rp, "rope_type") || srtj_get(rp, "type"))) r->scaling = rp;
    return 0;
}

static int srti__hf_config(srti_model *m, const char *file, const srtj_value *c, srti__hf_cfg *cfg, char *err, size_t errlen) {
    srti_hparams *hp = &m->hp;
    srti__hf_rope rope;
    const srtj_value *v, *top = c;
    const char *s, *top_file = file;
    char tc_file[1024];
    int flag = 0, g3;
    memset(cfg, 0, sizeof *cfg);
    cfg->tie = -1;
    cfg->bos = cfg->eos = cfg->pad = -1;
    if (!srtj_is(c, SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: the top level is not an object", file); return 1; }
    v = srtj_get(c, "architectures");
    if (srtj_is(v, SRTJ_ARRAY) && srtj_string(v->first)) srti__copy_trunc(cfg->arch_class, sizeof cfg->arch_class, v->first->str);
    else if ((s = srtj_string(srtj_get(c, "model_type"))) != NULL) srti__copy_trunc(cfg->arch_class, sizeof cfg->arch_class, s);
    if (!strcmp(cfg->arch_class, "LlamaForCausalLM") || !strcmp(cfg->arch_class, "llama")) cfg->kind = SRTI__HF_LLAMA;
    else if (!strcmp(cfg->arch_class, "MistralForCausalLM") || !strcmp(cfg->arch_class, "mistral")) cfg->kind = SRTI__HF_MISTRAL;
    else if (!strcmp(cfg->arch_class, "Qwen2ForCausalLM") || !strcmp(cfg->arch_class, "qwen2")) cfg->kind = SRTI__HF_QWEN2;
    else if (!strcmp(cfg->arch_class, "Qwen3ForCausalLM") || !strcmp(cfg->arch_class, "qwen3")) cfg->kind = SRTI__HF_QWEN3;
    else if (!strcmp(cfg->arch_class, "Qwen3MoeForCausalLM") || !strcmp(cfg->arch_class, "qwen3_moe")) cfg->kind = SRTI__HF_QWEN3MOE;
    else if (!strcmp(cfg->arch_class, "Qwen2MoeForCausalLM") || !strcmp(cfg->arch_class, "qwen2_moe")) cfg->kind = SRTI__HF_QWEN2MOE;
    else if (!strcmp(cfg->arch_class, "SmolLM3ForCausalLM") || !strcmp(cfg->arch_class, "smollm3")) cfg->kind = SRTI__HF_SMOLLM3;
    else if (!strcmp(cfg->arch_class, "GraniteForCausalLM") || !strcmp(cfg->arch_class, "granite")) cfg->kind = SRTI__HF_GRANITE;
    else if (!strcmp(cfg->arch_class, "MiniCPMForCausalLM") || !strcmp(cfg->arch_class, "minicpm")) cfg->kind = SRTI__HF_MINICPM;
    else if (!strcmp(cfg->arch_class, "GraniteMoeForCausalLM") || !strcmp(cfg->arch_class, "granitemoe") ||
             !strcmp(cfg->arch_class, "GraniteMoeSharedForCausalLM") || !strcmp(cfg->arch_class, "granitemoeshared")) cfg->kind = SRTI__HF_GRANITEMOE;
    else if (!strcmp(cfg->arch_class, "Olmo2ForCausalLM") || !strcmp(cfg->arch_class, "olmo2")) cfg->kind = SRTI__HF_OLMO2;
    else if (!strcmp(cfg->arch_class, "Olmo3ForCausalLM") || !strcmp(cfg->arch_class, "olmo3")) {
        cfg->kind = SRTI__HF_OLMO2;   /* as llama.cpp's converter writes it */
        cfg->olmo3 = 1;
    }
    else if (!strcmp(cfg->arch_class, "OlmoeForCausalLM") || !strcmp(cfg->arch_class, "olmoe")) cfg->kind = SRTI__HF_OLMOE;
    else if (!strcmp(cfg->arch_class, "Exaone4ForCausalLM") || !strcmp(cfg->arch_class, "exaone4")) cfg->kind = SRTI__HF_EXAONE4;
    else if (!strcmp(cfg->arch_class, "ExaoneForCausalLM") || !strcmp(cfg->arch_class, "exaone")) cfg->kind = SRTI__HF_EXAONE;
    else if (!strcmp(cfg->arch_class, "MixtralForCausalLM") || !strcmp(cfg->arch_class, "mixtral")) cfg->kind = SRTI__HF_MIXTRAL;
    else if (!strcmp(cfg->arch_class, "GptOssForCausalLM") || !strcmp(cfg->arch_class, "gpt_oss")) cfg->kind = SRTI__HF_GPTOSS;
    else if (!strcmp(cfg->arch_class, "Phi3ForCausalLM") || !strcmp(cfg->arch_class, "phi3")) cfg->kind = SRTI__HF_PHI3;
    else if (!strcmp(cfg->arch_class, "GemmaForCausalLM") || !strcmp(cfg->arch_class, "gemma")) cfg->kind = SRTI__HF_GEMMA;
    else if (!strcmp(cfg->arch_class, "Gemma2ForCausalLM") || !strcmp(cfg->arch_class, "gemma2")) cfg->kind = SRTI__HF_GEMMA2;
    else if (!strcmp(cfg->arch_class, "Gemma3ForCausalLM") || !strcmp(cfg->arch_class, "gemma3_text")) cfg->kind = SRTI__HF_GEMMA3;
    else if (!strcmp(cfg->arch_class, "Gemma3ForConditionalGeneration") || !strcmp(cfg->arch_class, "gemma3")) {
        cfg->kind = SRTI__HF_GEMMA3;   /* the text model of the multimodal one */
        cfg->multimodal = 1;
    }
    strcpy(hp->arch, cfg->kind == SRTI__HF_QWEN2 ? "qwen2" : cfg->kind == SRTI__HF_QWEN3 ? "qwen3" : cfg->kind == SRTI__HF_QWEN3MOE ? "qwen3moe" :
                     cfg->kind == SRTI__HF_QWEN2MOE ? "qwen2moe" : cfg->kind == SRTI__HF_SMOLLM3 ? "smollm3" :
                     cfg->kind == SRTI__HF_GRANITE ? "granite" : cfg->kind == SRTI__HF_GRANITEMOE ? "granitemoe" : cfg->kind == SRTI__HF_MINICPM ? "minicpm" :
                     cfg->kind == SRTI__HF_OLMO2 ? "olmo2" : cfg->kind == SRTI__HF_OLMOE ? "olmoe" : cfg->kind == SRTI__HF_EXAONE4 ? "exaone4" :
                     cfg->kind == SRTI__HF_EXAONE ? "exaone" : cfg->kind == SRTI__HF_PHI3 ? "phi3" : cfg->kind == SRTI__HF_GPTOSS ? "gpt-oss" :
                     cfg->kind == SRTI__HF_GEMMA ? "gemma" : cfg->kind == SRTI__HF_GEMMA2 ? "gemma2" : cfg->kind == SRTI__HF_GEMMA3 ? "gemma3" : cfg->kind ? "llama" : "");
    if ((s = srtj_string(srtj_get(c, "_name_or_path"))) != NULL && s[0]) {
        const char *b = s, *q;
        for (q = s; *q; q++) if (*q == '/' || *q == '\\') b = q + 1;
        if (*b) srti__copy_trunc(hp->name, sizeof hp->name, b);
    }
    if (cfg->multimodal) {   /* every setting of the text model from text_config; the rest is the vision side's */
        const srtj_value *tc = srtj_get(c, "text_config");
        const char *tt = srtj_string(srtj_get(tc, "model_type"));
        if (!srtj_is(tc, SRTJ_OBJECT)) {
            srti__seterr(err, errlen, "%s: %s without a \"text_config\" object (the text model's settings)", file, cfg->arch_class);
            return 1;
        }
        if (tt && strcmp(tt, "gemma3_text") != 0) {
            srti__seterr(err, errlen, "%s: text_config.model_type \"%s\" is not gemma3_text", file, tt);
            return 1;
        }
        snprintf(tc_file, sizeof tc_file, "%s: text_config", file);   /* where the messages point */
        file = tc_file;
        c = tc;
    }
    if (srti__jtoken_id(file, c, "bos_token_id", &cfg->bos, err, errlen) ||
        srti__jtoken_id(file, c, "eos_token_id", &cfg->eos, err, errlen) ||
        srti__jtoken_ids(file, c, "eos_token_id", cfg->eos_ids, &cfg->n_eos_ids, 16, err, errlen) ||
        srti__jtoken_id(file, c, "pad_token_id", &cfg->pad, err, errlen) ||
        srti__ju32(file, c, "vocab_size", 1, 1u << 24, 0, &cfg->vocab_size, err, errlen) ||
        srti__jbool(file, c, "tie_word_embeddings", &cfg->tie, err, errlen))
        return 1;
    if (cfg->multimodal && (   /* stated at the top level (gemma-3-4b-it: eos_token_id [1, 106]), these win */
        srti__jtoken_id(top_file, top, "bos_token_id", &cfg->bos, err, errlen) ||
        srti__jtoken_id(top_file, top, "eos_token_id", &cfg->eos, err, errlen) ||
        srti__jtoken_ids(top_file, top, "eos_token_id", cfg->eos_ids, &cfg->n_eos_ids, 16, err, errlen) ||
        srti__jtoken_id(top_file, top, "pad_token_id", &cfg->pad, err, errlen) ||
        srti__jbool(top_file, top, "tie_word_embeddings", &cfg->tie, err, errlen)))
        return 1;
    if (srti__hf_quant_config(file, top, cfg, err, errlen)) return 1;
    if (!cfg->kind) return 0;   /* vocabulary only; srt-pack refuses the architecture */
    g3 = cfg->kind == SRTI__HF_GEMMA3;
    /* transformers' defaults for these configs */
    hp->norm_eps = cfg->kind == SRTI__HF_MIXTRAL || SRTI__HF_QK_NORM_FULL(cfg->kind) || cfg->kind == SRTI__HF_EXAONE4 || cfg->kind == SRTI__HF_EXAONE ||
                   cfg->kind == SRTI__HF_GPTOSS ? 1e-5f : 1e-6f;
    hp->rope_theta = g3 ? srti__gemma3_text.rope_theta : cfg->kind == SRTI__HF_MIXTRAL ? 1000000.0f : cfg->kind == SRTI__HF_SMOLLM3 ? 2000000.0f :
                     cfg->kind == SRTI__HF_GPTOSS ? 150000.0f : 10000.0f;
    hp->n_ctx = g3 ? srti__gemma3_text.max_pos : cfg->kind == SRTI__HF_MIXTRAL || cfg->kind == SRTI__HF_GPTOSS ? 131072 :
                cfg->kind == SRTI__HF_QWEN3MOE || cfg->kind == SRTI__HF_QWEN2MOE ? 32768 : 2048;
    if (SRTI__HF_IS_GEMMA(cfg->kind) && cfg->tie < 0) cfg->tie = 1;   /* Gemma's config classes tie by default */
    if (g3) {   /* Gemma 3: every field has a default (Gemma3TextConfig's); elsewhere the shape is required */
        if (!cfg->vocab_size) cfg->vocab_size = srti__gemma3_text.vocab_size;
        hp->n_embd = srti__gemma3_text.hidden_size;
        hp->n_ff = srti__gemma3_text.intermediate_size;
        hp->n_layer = srti__gemma3_text.layers;
        hp->n_head = srti__gemma3_text.heads;
    }
    if (srti__ju32(file, c, "hidden_size", 1, 1u << 20, !g3, &hp->n_embd, err, errlen) ||
        srti__ju32(file, c, "intermediate_size", 1, 1u << 24, !g3, &hp->n_ff, err, errlen) ||
        srti__ju32(file, c, cfg->kind == SRTI__HF_EXAONE ? "num_layers" : "num_hidden_layers", 1, 4096, !g3, &hp->n_layer, err, errlen) ||
        srti__ju32(file, c, "num_attention_heads", 1, 4096, !g3, &hp->n_head, err, errlen))
        return 1;
    hp->n_head_kv = g3 ? srti__gemma3_text.kv_heads : hp->n_head;
    hp->head_dim = SRTI__HF_IS_GEMMA(cfg->kind) ? srti__gemma3_text.head_dim : hp->n_embd / hp->n_head;   /* Gemma's is not hidden / heads (256 in Gemma 2 too) */
    if (srti__ju32(file, c, "num_key_value_heads", 1, 4096, 0, &hp->n_head_kv, err, errlen) ||
        srti__ju32(file, c, "head_dim", 1, 4096, 0, &hp->head_dim, err, errlen) ||
        srti__ju32(file, c, "max_position_embeddings", 1, 1u << 26, 0, &hp->n_ctx, err, errlen) ||
        srti__jf32(file, c, cfg->kind == SRTI__HF_EXAONE ? "layer_norm_epsilon" : "rms_norm_eps", &hp->norm_eps, err, errlen) ||
        srti__jf32(file, c, "rope_theta", &hp->rope_theta, err, errlen))
        return 1;
    if (hp->n_head % hp->n_head_kv != 0) {
        srti__seterr(err, errlen, "%s: num_attention_heads %u is not a multiple of num_key_value_heads %u", file, hp->n_head, hp->n_head_kv);
        return 1;
    }
    if (hp->head_dim == 0 || hp->head_dim % 2) { srti__seterr(err, errlen, "%s: head dimension %u is not even", file, hp->head_dim); return 1; }
    hp->rope_dim = hp->head_dim;
    if (srti__hf_rope_parameters(file, c, cfg, &rope, err, errlen) || srti__jf32(file, rope.main, "rope_theta", &hp->rope_theta, err, errlen)) return 1;
    {   /* Phi-4-mini rotates 3/4 of each head (transformers: int(head_dim x factor)) */
        float prf = 1.0f;
        if (srti__jf32(file, c, "partial_rotary_factor", &prf, err, errlen) || srti__jf32(file, rope.main, "partial_rotary_factor", &prf, err, errlen)) return 1;
        if (prf < 1.0f) hp->rope_dim = (uint32_t)((float)hp->head_dim * prf);
        if (prf > 1.0f || hp->rope_dim == 0 || hp->rope_dim % 2) {
            srti__seterr(err, errlen, "%s: partial_rotary_factor %g gives %u rotated dimensions of %u; an even number from 2 to head_dim is needed",
                         file, (double)prf, (unsigned)hp->rope_dim, (unsigned)hp->head_dim);
            return 1;
        }
    }
    if (cfg->kind == SRTI__HF_PHI3 && srti__ju32(file, c, "sliding_window", 0, 1u << 30, 0, &hp->sliding_window, err, errlen)) return 1;
    hp->n_vocab = cfg->vocab_size;
    if (SRTI__HF_IS_GEMMA(cfg->kind)) {
        if (srti__hf_gemma_act(file, c, err, errlen)) return 1;
    } else {
        const char *act = cfg->kind == SRTI__HF_EXAONE ? "activation_function" : "hidden_act";   /* (ExaoneConfig's name) */
        if ((s = srtj_string(srtj_get(c, act))) != NULL && strcmp(s, "silu") != 0) {
            srti__seterr(err, errlen, "%s: %s \"%s\" is not supported (silu)", file, act, s);
            return 1;
        }
    }
    if (srti__jbool(file, c, "mlp_bias", &flag, err, errlen)) return 1;
    if (flag) { srti__seterr(err, errlen, "%s: mlp_bias is not supported", file); return 1; }
    flag = 0;
    if (srti__jbool(file, c, "attention_bias", &flag, err, errlen)) return 1;
    if (flag && SRTI__HF_IS_GEMMA(cfg->kind)) { srti__seterr(err, errlen, "%s: attention_bias is not supported for %s", file, cfg->arch_class); return 1; }
    cfg->qkv_bias = cfg->kind == SRTI__HF_QWEN2 || cfg->kind == SRTI__HF_QWEN2MOE || cfg->kind == SRTI__HF_GPTOSS || flag;   /* (GptOssConfig: always) */
    hp->rope_neox = cfg->kind == SRTI__HF_QWEN2 || cfg->kind == SRTI__HF_QWEN2MOE || cfg->kind == SRTI__HF_QWEN3 || cfg->kind == SRTI__HF_QWEN3MOE ||
                    cfg->kind == SRTI__HF_PHI3 || SRTI__HF_QK_NORM_FULL(cfg->kind) || cfg->kind == SRTI__HF_EXAONE4 || cfg->kind == SRTI__HF_EXAONE ||
                    SRTI__HF_IS_GEMMA(cfg->kind) || cfg->kind == SRTI__HF_GPTOSS;
    if ((cfg->kind == SRTI__HF_MIXTRAL || cfg->kind == SRTI__HF_QWEN3MOE || cfg->kind == SRTI__HF_QWEN2MOE || cfg->kind == SRTI__HF_GRANITEMOE ||
         cfg->kind == SRTI__HF_OLMOE) &&
        srti__hf_moe_config(m, file, c, cfg, err, errlen))
        return 1;
    v = srtj_get(c, "clip_qkv");   /* OLMoE's optional clamp of q, k and v */
    if (v && v->type != SRTJ_NULL) { srti__seterr(err, errlen, "%s: clip_qkv is not supported", file); return 1; }
    v = rope.scaling;
    if (v && v->type != SRTJ_NULL) {
        const char *type = srtj_string(srtj_get(v, "rope_type"));
        int64_t orig = 0;
        if (!type) type = srtj_string(srtj_get(v, "type"));
        if (!srtj_is(v, SRTJ_OBJECT) || !type) { srti__seterr(err, errlen, "%s: rope_scaling must be null or an object with a rope_type", file); return 1; }
        if (SRTI__HF_IS_GEMMA(cfg->kind) && strcmp(type, "default") != 0 && strcmp(type, "linear") != 0) {
            srti__seterr(err, errlen, "%s: rope_scaling type \"%s\" is not supported for %s (linear)", file, type, cfg->arch_class);
            return 1;
        }
        if (!strcmp(type, "longrope") || !strcmp(type, "su")) return srti__hf_longrope(m, file, c, v, err, errlen);
        if (strcmp(type, "default") != 0) {
            srti__copy_trunc(hp->rope_scaling, sizeof hp->rope_scaling, type);
            if (srti__jf32(file, v, "factor", &hp->rope_scale_factor, err, errlen) ||
                srti__jf32(file, v, "low_freq_factor", &hp->rope_low_freq_factor, err, errlen) ||
                srti__jf32(file, v, "high_freq_factor", &hp->rope_high_freq_factor, err, errlen) ||
                srti__jint(file, v, "original_max_position_embeddings", 1, 1 << 26, 0, &orig, err, errlen))
                return 1;
            if (orig > 0) hp->rope_orig_ctx = (uint32_t)orig;
            else if (!strcmp(type, "llama3")) hp->rope_orig_ctx = 8192;
            else if (!strcmp(type, "yarn")) hp->rope_orig_ctx = hp->n_ctx;   /* (transformers: max_position_embeddings) */
            if (!strcmp(type, "yarn") && srti__hf_yarn(file, v, hp, err, errlen)) return 1;
        }
    }
    if (cfg->kind == SRTI__HF_SMOLLM3) return srti__hf_smollm3_config(m, file, c, err, errlen);
    if (cfg->kind == SRTI__HF_GRANITE || cfg->kind == SRTI__HF_GRANITEMOE) return srti__hf_granite_config(m, file, c, err, errlen);
    if (cfg->kind == SRTI__HF_MINICPM) return srti__hf_minicpm_config(m, file, c, err, errlen);
    if (cfg->kind == SRTI__HF_EXAONE4) return srti__hf_exaone4_config(m, file, c, err, errlen);
    if (cfg->kind == SRTI__HF_GPTOSS) return srti__hf_gptoss_config(m, file, c, err, errlen);
    if (cfg->olmo3) return srti__hf_olmo3_config(m, file, c, err, errlen);
    return SRTI__HF_IS_GEMMA(cfg->kind) ? srti__hf_gemma_config(m, file, c, cfg, rope.local_theta, err, errlen) : 0;
}

/* ---------------------------------------------------------------- tokenizer.json */
/* text -> id index over the vocabulary (open addressing, first id wins) */
typedef struct srti__tokmap { int32_t *slot; uint32_t mask; } srti__tokmap;
static uint32_t srti__fnv(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 16777619u; }
    return h;
}
static int srti__tokmap_build(srti__tokmap *tm, char **tokens, uint32_t n) {
    uint32_t size = 16, i;
    while (size < 2 * n) size <<= 1;
    tm->slot = (int32_t *)SRTI_MALLOC((size_t)size * sizeof(int32_t));
    if (!tm->slot) return 1;
    memset(tm->slot, 0xff, (size_t)size * sizeof(int32_t));
    tm->mask = size - 1;
    for (i = 0; i < n; i++) {
        uint32_t h = srti__fnv(tokens[i], strlen(tokens[i])) & tm->mask;
        while (tm->slot[h] >= 0 && strcmp(tokens[tm->slot[h]], tokens[i]) != 0) h = (h + 1) & tm->mask;
        if (tm->slot[h] < 0) tm->slot[h] = (int32_t)i;
    }
    return 0;
}
static int32_t srti__tokmap_find(const srti__tokmap *tm, char **tokens, const char *s, size_t n) {
    uint32_t h = srti__fnv(s, n) & tm->mask;
    while (tm->slot[h] >= 0) {
        const char *t = tokens[tm->slot[h]];
        if (strlen(t) == n && memcmp(t, s, n) == 0) return tm->slot[h];
        h = (h + 1) & tm->mask;
    }
    return -1;
}

/* llama.cpp's convert_hf_to_gguf.py does_token_look_special() */
static int srti__looks_special(const char *t) {
    size_t n = strlen(t);
    if (!strcmp(t, "<pad>") || !strcmp(t, "<mask>") || !strcmp(t, "<2mass>") || !strcmp(t, "[@BOS@]")) return 1;
    if (n >= 4 && !strncmp(t, "<|", 2) && !strcmp(t + n - 2, "|>")) return 1;
    if (n >= 8 && !strncmp(t, "<\xef\xbd\x9c", 4) && !strcmp(t + n - 4, "\xef\xbd\x9c>")) return 1;   /* <｜...｜> (deepseek) */
    if (n >= 8 && !strncmp(t, "<unused", 7) && t[n - 1] == '>') return 1;
    return 0;
}

static int srti__is_byte_piece(const char *t) {
    return strlen(t) == 6 && t[0] == '<' && t[1] == '0' && t[2] == 'x' && t[5] == '>' &&
           strchr("0123456789ABCDEFabcdef", t[3]) && t[3] && strchr("0123456789ABCDEFabcdef", t[4]) && t[4];
}

/* The pre-tokenizer's steps, flattened, as one comparable string ("Digits(individual)|ByteLevel(regex)"). */
static void srti__pre_sig(const srtj_value *p, srti__sb *b, int depth) {
    const char *type = srtj_string(srtj_get(p, "type"));
    if (!type || depth > 8) { srti__sb_str(b, "?|"); return; }
    if (!strcmp(type, "Sequence")) {
        const srtj_value *q;
        for (q = srtj_first(srtj_get(p, "pretokenizers")); q; q = q->next) srti__pre_sig(q, b, depth + 1);
        return;
    }
    srti__sb_str(b, type);
    if (!strcmp(type, "ByteLevel")) {
        int use_regex = 1, prefix = 0;
        srtj_bool(srtj_get(p, "use_regex"), &use_regex);
        srtj_bool(srtj_get(p, "add_prefix_space"), &prefix);
        if (use_regex) srti__sb_str(b, "(regex)");
        if (prefix) srti__sb_str(b, "(prefix)");
    } else if (!strcmp(type, "Digits")) {
        int ind = 0;
        srtj_bool(srtj_get(p, "individual_digits"), &ind);
        if (ind) srti__sb_str(b, "(individual)");
    } else if (!strcmp(type, "Split")) {
        const srtj_value *pat = srtj_get(p, "pattern");
        const char *rx = srtj_string(srtj_get(pat, "Regex")), *st = srtj_string(srtj_get(pat, "String"));
        const char *beh = srtj_string(srtj_get(p, "behavior"));
        int inv = 0;
        srtj_bool(srtj_get(p, "invert"), &inv);
        srti__sb_str(b, "(");
        if (rx) srti__sb_str(b, rx);
        else if (st) { srti__sb_str(b, "string:"); srti__sb_str(b, st); }
        srti__sb_str(b, ")");
        if ((beh && strcmp(beh, "Isolated") != 0) || inv) { srti__sb_str(b, "("); srti__sb_str(b, beh ? beh : "?"); srti__sb_str(b, inv ? ",invert)" : ")"); }
    }
    srti__sb_str(b, "|");
}

#define SRTI__RX_LLAMA3 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define SRTI__RX_QWEN2 "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define SRTI__RX_TEKKEN "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define SRTI__RX_GPT4O "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

/* llama.cpp's tokenizer.ggml.pre name for a byte-level pre-tokenizer signature; NULL if unknown.
   `arch` (config.json's class) separates families whose pre-tokenizers are identical. */
static const char *srti__pre_name(const char *sig, const char *arch) {
    static const struct { const char *sig, *name; } exact[] = {
        {"Split(" SRTI__RX_LLAMA3 ")|ByteLevel|", "llama-bpe"},
        {"Split(" SRTI__RX_QWEN2 ")|ByteLevel|", "qwen2"},
        {"Split(" SRTI__RX_TEKKEN ")|ByteLevel|", "tekken"},
        {"Split(" SRTI__RX_GPT4O ")|ByteLevel|", "gpt-4o"},
        {"Punctuation|ByteLevel(regex)|Digits|Split([0-9][0-9][0-9])|", "falcon"},
    };
    size_t i;
    for (i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(sig, exact[i].sig)) return exact[i].name;
    if (!strcmp(sig, "ByteLevel(regex)|")) {
        if (!strcmp(arch, "GPTNeoXForCausalLM")) return "gpt-neox";
        if (!strcmp(arch, "MptForCausalLM") || !strcmp(arch, "MPTForCausalLM")) return "mpt";
        return "gpt-2";
    }
    if (!strcmp(sig, "Digits(individual)|ByteLevel(regex)|")) {
        if (!strncmp(arch, "Llama", 5) || !strcmp(arch, "llama")) return "smollm";
        if (!strcmp(arch, "GPTRefactForCausalLM")) return "refact";
        return "starcoder";
    }
    /* the DeepSeek families: recognised by their distinctive first splits */
    if ((!strncmp(sig, "Split([\r\n])|", 12) || !strncmp(sig, "Split([\\r\\n])|", 14)) && strstr(sig, "|ByteLevel|")) {
        if (strstr(sig, "|Split(\\s?\\p{L}+)|Split(\\s?\\p{P}+)|")) return "deepseek-coder";
        if (strstr(sig, "|Split(\\s?[A-Za-z")) return "deepseek-llm";
    }
    if (!strncmp(sig, "Split(\\p{N}{1,3})|Split([", 25) && strstr(sig, "|ByteLevel|")) return "deepseek-v3";
    return NULL;
}

/* Content of a special-token entry of tokenizer_config.json: "text" or {"content": "text"}. */
static const char *srti__token_content(const srtj_value *v) {
    if (srtj_is(v, SRTJ_STRING)) return v->str;
    if (srtj_is(v, SRTJ_OBJECT)) return srtj_string(srtj_get(v, "content"));
    return NULL;
}

/* Does a TemplateProcessing post-processor (possibly inside a Sequence) start with the BOS token /
   end with EOS? Returns 1 and sets *bos / *eos when one is found. */
static int srti__post_template(const srtj_value *pp, const char *bos, const char *eos, int *add_bos, int *add_eos, int depth) {
    const char *type = srtj_string(srtj_get(pp, "type"));
    const srtj_value *single, *q, *last = NULL;
    if (!type || depth > 4) return 0;
    if (!strcmp(type, "Sequence")) {
        for (q = srtj_first(srtj_get(pp, "processors")); q; q = q->next)
            if (srti__post_template(q, bos, eos, add_bos, add_eos, depth + 1)) return 1;
        return 0;
    }
    if (strcmp(type, "TemplateProcessing") != 0) return 0;
    single = srtj_get(pp, "single");
    if (!srtj_is(single, SRTJ_ARRAY)) return 0;
    for (q = single->first; q; q = q->next) last = q;
    {
        const char *first_id = srtj_string(srtj_get(srtj_get(single->first, "SpecialToken"), "id"));
        const char *last_id = srtj_string(srtj_get(srtj_get(last, "SpecialToken"), "id"));
        *add_bos = first_id && bos && !strcmp(first_id, bos);
        *add_eos = last_id && eos && !strcmp(last_id, eos);
    }
    return 1;
}

/* Reads tokenizer.json (+ tokenizer_config.json, chat_template.jinja) of `dir` into m->vocab.
   cfg may describe config.json (vocab_size, token ids, architecture) or be all defaults. */
static int srti__hf_tokenizer(srti_model *m, const char *dir, const srti__hf_cfg *cfg, char *err, size_t errlen) {
    srti_vocab *v = &m->vocab;
    char *tpath = srti__join(dir, "tokenizer.json"), *cpath = srti__join(dir, "tokenizer_config.json");
    srtj_doc *tdoc = NULL, *cdoc = NULL;
    const srtj_value *root, *model, *vocab, *merges, *added, *e, *tcfg = NULL;
    const char *type, *bos_text = NULL, *eos_text = NULL, *pad_text = NULL, *unk_text = NULL;
    int rc = 1, byte_fallback = 0, byte_level = 0, spm = 0, k;
    int64_t max_id = -1;
    uint32_t n, i;
    int32_t *score_set = NULL;
    srti__tokmap tm;
    srti__sb sig = {NULL, 0, 0, 0};
    memset(&tm, 0, sizeof tm);
    if (!tpath || !cpath) { srti__seterr(err, errlen, "out of memory"); goto done; }
    k = srti__json_file(tpath, (uint64_t)1 << 30, &tdoc, err, errlen);
    if (k == 2) { rc = 0; goto done; }   /* no tokenizer: vocab.n_tokens = 0 */
    if (k) goto done;
    k = srti__json_file(cpath, (uint64_t)1 << 28, &cdoc, err, errlen);
    if (k == 1) goto done;
    tcfg = srtj_root(cdoc);
    root = srtj_root(tdoc);
    model = srtj_get(root, "model");
    type = srtj_string(srtj_get(model, "type"));
    vocab = srtj_get(model, "vocab");
    merges = srtj_get(model, "merges");
    added = srtj_get(root, "added_tokens");
    /* Gemma 3's tokenizer.json can hold added tokens past the text model's vocab_size
       (<image_soft_token>, 262144, in gemma-3-1b of vocab_size 262144): left out, as llama.cpp's
       converter leaves out-of-range ids out. The multimodal ones' vocab_size (text_config's, or
       its default 262208) holds it: it stays, a control token (special), and 262145.. are [PADn]. */
#define SRTI__GEMMA_EXTRA(id) (SRTI__HF_IS_GEMMA(cfg->kind) && cfg->vocab_size && (id) >= (int64_t)cfg->vocab_size)
    if (!srtj_is(model, SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: \"model\" is missing", tpath); goto done; }
    if (type && strcmp(type, "BPE") != 0) { srti__seterr(err, errlen, "%s: tokenizer model \"%s\" is not supported (BPE)", tpath, type); goto done; }
    if (!srtj_is(vocab, SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: model.vocab must be an object of token: id", tpath); goto done; }
    if (merges && merges->type != SRTJ_ARRAY && merges->type != SRTJ_NULL) { srti__seterr(err, errlen, "%s: model.merges must be a list", tpath); goto done; }
    if (added && added->type != SRTJ_ARRAY && added->type != SRTJ_NULL) { srti__seterr(err, errlen, "%s: added_tokens must be a list", tpath); goto done; }
    if (srti__jbool(tpath, model, "byte_fallback", &byte_fallback, err, errlen)) goto done;

    /* family: byte-level (GPT-2 style) or SentencePiece style */
    srti__pre_sig(srtj_get(root, "pre_tokenizer"), &sig, 0);
    if (sig.oom) { srti__seterr(err, errlen, "out of memory"); goto done; }
    {
        const char *dec = srtj_string(srtj_get(srtj_get(root, "decoder"), "type"));
        byte_level = (sig.p && strstr(sig.p, "ByteLevel")) || (dec && !strcmp(dec, "ByteLevel"));
    }
    if (!byte_level) {
        const char *norm = srtj_string(srtj_get(srtj_get(root, "normalizer"), "type"));
        spm = byte_fallback || (sig.p && strstr(sig.p, "Metaspace")) || (norm && (!strcmp(norm, "Sequence") || !strcmp(norm, "Prepend") || !strcmp(norm, "Replace")));
        if (!spm) {
            srti__seterr(err, errlen, "%s: cannot tell the tokenizer family: neither byte-level (ByteLevel) nor SentencePiece style (byte_fallback, Metaspace)", tpath);
            goto done;
        }
    }
    strcpy(v->model, byte_level ? "gpt2" : "llama");
    if (byte_level) {
        const char *pre = srti__pre_name(sig.p ? sig.p : "", cfg->arch_class);
        if (!pre) {
            srti__seterr(err, errlen, "%s: unknown pre-tokenizer (%.300s); the llama.cpp tokenizer.ggml.pre name it corresponds to is not known",
                         tpath, sig.p ? sig.p : "none");
            goto done;
        }
        strcpy(v->pre, pre);
    }

    /* the id space: vocab + added tokens, up to config.json's vocab_size */
    for (e = vocab->first; e; e = e->next) {
        int64_t id;
        if (!srtj_int(e, &id) || id < 0 || id >= (1 << 24)) { srti__seterr(err, errlen, "%s: vocab entry \"%.60s\" has no valid id", tpath, e->key); goto done; }
        if (id > max_id) max_id = id;
    }
    for (e = srtj_first(added); e; e = e->next) {
        int64_t id;
        if (srti__jint(tpath, e, "id", 0, (1 << 24) - 1, 1, &id, err, errlen)) goto done;
        if (!srtj_string(srtj_get(e, "content"))) { srti__seterr(err, errlen, "%s: added token %lld has no content", tpath, (long long)id); goto done; }
        if (id > max_id && !SRTI__GEMMA_EXTRA(id)) max_id = id;
    }
    if (max_id < 0) { srti__seterr(err, errlen, "%s: the vocabulary is empty", tpath); goto done; }
    n = (uint32_t)max_id + 1;
    if (cfg->vocab_size) {
        if (n > cfg->vocab_size) {
            srti__seterr(err, errlen, "%s: token id %u is outside config.json's vocab_size %u", tpath, n - 1, cfg->vocab_size);
            goto done;
        }
        n = cfg->vocab_size;
    }
    v->tokens = (char **)SRTI_CALLOC(n, sizeof(char *));
    v->types = (int32_t *)SRTI_MALLOC((size_t)n * sizeof(int32_t));
    if (!v->tokens || !v->types) { srti__seterr(err, errlen, "out of memory"); goto done; }
    v->n_tokens = n;
    for (e = vocab->first; e; e = e->next) {
        int64_t id = 0;
        srtj_int(e, &id);
        if (v->tokens[id]) { srti__seterr(err, errlen, "%s: id %lld is used by \"%.60s\" and \"%.60s\"", tpath, (long long)id, v->tokens[id], e->key); goto done; }
        if (!(v->tokens[id] = srti__strdup(e->key))) { srti__seterr(err, errlen, "out of memory"); goto done; }
        v->types[id] = SRTI_TOKEN_NORMAL;
    }
    for (e = srtj_first(added); e; e = e->next) {   /* added tokens override (their content is the text) */
        int64_t id = 0;
        int special = 0;
        const char *content = srtj_string(srtj_get(e, "content"));
        srtj_int(srtj_get(e, "id"), &id);
        if (SRTI__GEMMA_EXTRA(id)) continue;
        if (srti__jbool(tpath, e, "special", &special, err, errlen)) goto done;
        SRTI_FREE(v->tokens[id]);
        if (!(v->tokens[id] = srti__strdup(content))) { srti__seterr(err, errlen, "out of memory"); goto done; }
        if (special || srti__looks_special(content)) v->types[id] = SRTI_TOKEN_CONTROL;
        else {
            char *t = v->tokens[id], *o = t;   /* user-defined: pre-normalised, U+2581 -> space (as llama.cpp) */
            while (*t) {
                if ((unsigned char)t[0] == 0xE2 && (unsigned char)t[1] == 0x96 && (unsigned char)t[2] == 0x81) { *o++ = ' '; t += 3; }
                else *o++ = *t++;
            }
            *o = 0;
            v->types[id] = SRTI_TOKEN_USER_DEFINED;
        }
    }
    for (i = 0; i < n; i++)
        if (!v->tokens[i]) {
            char pad[24];
            snprintf(pad, sizeof pad, "[PAD%u]", (unsigned)i);
            if (!(v->tokens[i] = srti__strdup(pad))) { srti__seterr(err, errlen, "out of memory"); goto done; }
            v->types[i] = SRTI_TOKEN_UNUSED;
        }
    if (srti__tokmap_build(&tm, v->tokens, n)) { srti__seterr(err, errlen, "out of memory"); goto done; }

    /* merges */
    if (srtj_is(merges, SRTJ_ARRAY) && merges->n > 0) {
        uint32_t j = 0;
        v->merges = (char **)SRTI_CALLOC(merges->n, sizeof(char *));
        if (!v->merges) { srti__seterr(err, errlen, "out of memory"); goto done; }
        for (e = merges->first; e; e = e->next, j++) {
            srti__sb mb = {NULL, 0, 0, 0};
            if (e->type == SRTJ_STRING) {
                const char *sp = strchr(e->str, ' ');
                if (!sp || sp == e->str || !sp[1] || (size_t)strlen(e->str) != e->n) {
                    srti__seterr(err, errlen, "%s: merge %u \"%.60s\" is not \"a b\"", tpath, (unsigned)j, e->str);
                    goto done;
                }
                srti__sb_str(&mb, e->str);
            } else if (e->type == SRTJ_ARRAY && e->n == 2 && srtj_string(e->first) && srtj_string(e->first->next) &&
                       e->first->n > 0 && e->first->next->n > 0 && strlen(e->first->str) == e->first->n && strlen(e->first->next->str) == e->first->next->n) {
                int part;
                const srtj_value *pv = e->first;
                for (part = 0; part < 2; part++, pv = pv->next) {   /* spaces inside a piece -> U+0120, as gguf-py */
                    const char *q;
                    if (part) srti__sb_put(&mb, " ", 1);
                    for (q = pv->str; *q; q++) {
                        if (*q == ' ') srti__sb_put(&mb, "\xc4\xa0", 2);
                        else srti__sb_put(&mb, q, 1);
                    }
                }
            } else {
                srti__seterr(err, errlen, "%s: merge %u is neither \"a b\" nor [\"a\", \"b\"]", tpath, (unsigned)j);
                goto done;
            }
            if (mb.oom || !mb.p) { SRTI_FREE(mb.p); srti__seterr(err, errlen, "out of memory"); goto done; }
            v->merges[j] = mb.p;
            v->n_merges = j + 1;
        }
    }

    /* special tokens: tokenizer_config.json by text, then config.json by id */
    bos_text = srti__token_content(srtj_get(tcfg, "bos_token"));
    eos_text = srti__token_content(srtj_get(tcfg, "eos_token"));
    pad_text = srti__token_content(srtj_get(tcfg, "pad_token"));
    unk_text = srti__token_content(srtj_get(tcfg, "unk_token"));
    if (!unk_text) unk_text = srtj_string(srtj_get(model, "unk_token"));
    {
        const char *texts[4];
        int32_t *dst[4];
        int64_t fallback[4];
        texts[0] = bos_text; texts[1] = eos_text; texts[2] = pad_text; texts[3] = unk_text;
        dst[0] = &v->bos; dst[1] = &v->eos; dst[2] = &v->pad; dst[3] = &v->unk;
        fallback[0] = cfg->bos; fallback[1] = cfg->eos; fallback[2] = cfg->pad; fallback[3] = -1;
        for (k = 0; k < 4; k++) {
            int32_t id = texts[k] ? srti__tokmap_find(&tm, v->tokens, texts[k], strlen(texts[k])) : -1;
            if (id < 0 && fallback[k] >= 0 && fallback[k] < (int64_t)n) id = (int32_t)fallback[k];
            *dst[k] = id;
        }
    }
    if (v->unk >= 0 && v->types[v->unk] == SRTI_TOKEN_NORMAL) v->types[v->unk] = SRTI_TOKEN_UNKNOWN;
    if (srti__jbool(cpath, tcfg, "add_bos_token", &v->add_bos, err, errlen) ||
        srti__jbool(cpath, tcfg, "add_eos_token", &v->add_eos, err, errlen))
        goto done;
    if (v->add_bos < 0) {
        int ab = 0, ae = 0;
        if (srti__post_template(srtj_get(root, "post_processor"), bos_text ? bos_text : v->bos >= 0 ? v->tokens[v->bos] : NULL,
                                eos_text ? eos_text : v->eos >= 0 ? v->tokens[v->eos] : NULL, &ab, &ae, 0)) {
            v->add_bos = ab;
            if (v->add_eos < 0) v->add_eos = ae;
        }
    }

    /* SentencePiece style: byte tokens, scores from the merge ranks, the dummy prefix */
    if (spm) {
        const char *norm_type = srtj_string(srtj_get(srtj_get(root, "normalizer"), "type"));
        v->scores = (float *)SRTI_MALLOC((size_t)n * sizeof(float));
        score_set = (int32_t *)SRTI_CALLOC(n, sizeof(int32_t));
        if (!v->scores || !score_set) { srti__seterr(err, errlen, "out of memory"); goto done; }
        for (i = 0; i < n; i++) {
            const char *t = v->tokens[i];
            size_t len = strlen(t);
            int single = len > 0 && len == (size_t)((unsigned char)t[0] < 0x80 ? 1 : (unsigned char)t[0] < 0xE0 ? 2 : (unsigned char)t[0] < 0xF0 ? 3 : 4);
            if (byte_fallback && srti__is_byte_piece(t) && v->types[i] == SRTI_TOKEN_NORMAL) v->types[i] = SRTI_TOKEN_BYTE;
            /* pieces no merge makes: never preferred (single characters are never merge results) */
            v->scores[i] = (v->types[i] != SRTI_TOKEN_NORMAL || single) ? 0.0f : -1e9f;
        }
        for (i = 0; i < v->n_merges; i++) {
            const char *mg = v->merges[i], *sp = strchr(mg, ' ');
            char buf[512];
            size_t a = (size_t)(sp - mg), b = strlen(sp + 1);
            int32_t id;
            if (a + b >= sizeof buf) continue;
            memcpy(buf, mg, a);
            memcpy(buf + a, sp + 1, b);
            id = srti__tokmap_find(&tm, v->tokens, buf, a + b);
            if (id >= 0 && !score_set[id] && v->types[id] == SRTI_TOKEN_NORMAL) { v->scores[id] = -(float)i; score_set[id] = 1; }
        }
        srti__free_strs(v->merges, v->n_merges);   /* "llama" vocabularies carry scores, not merges */
        v->merges = NULL;
        v->n_merges = 0;
        v->add_space_prefix = 0;
        if (sig.p && strstr(sig.p, "Metaspace")) {
            const srtj_value *pre = srtj_get(root, "pre_tokenizer");
            const char *scheme = srtj_string(srtj_get(pre, "prepend_scheme"));
            int aps = 1;
            srtj_bool(srtj_get(pre, "add_prefix_space"), &aps);
            v->add_space_prefix = scheme ? strcmp(scheme, "never") != 0 : aps;
        }
        if (norm_type && (!strcmp(norm_type, "Prepend") || !strcmp(norm_type, "Sequence"))) {
            const srtj_value *norm = srtj_get(root, "normalizer"), *q;
            if (!strcmp(norm_type, "Prepend")) v->add_space_prefix = 1;
            for (q = srtj_first(srtj_get(norm, "normalizers")); q; q = q->next)
                if (srtj_string(srtj_get(q, "type")) && !strcmp(srtj_string(srtj_get(q, "type")), "Prepend")) v->add_space_prefix = 1;
        }
    }

    /* chat template: tokenizer_config.json, else chat_template.jinja */
    {
        const srtj_value *ct = srtj_get(tcfg, "chat_template");
        const char *text = srtj_string(ct);
        if (srtj_is(ct, SRTJ_ARRAY)) {
            const srtj_value *q;
            for (q = ct->first; q; q = q->next) {
                const char *name = srtj_string(srtj_get(q, "name"));
                if (!text || (name && !strcmp(name, "default"))) text = srtj_string(srtj_get(q, "template"));
            }
        }
        if (text) {
            if (!(v->chat_template = srti__strdup(text))) { srti__seterr(err, errlen, "out of memory"); goto done; }
        } else {
            char *jpath = srti__join(dir, "chat_template.jinja"), *jt = NULL;
            int r2 = jpath ? srti__slurp(jpath, (uint64_t)1 << 24, &jt, NULL, err, errlen) : (srti__seterr(err, errlen, "out of memory"), 1);
            SRTI_FREE(jpath);
            if (r2 == 1) goto done;
            v->chat_template = jt;
        }
    }
    {   /* the tokens that end generation: config.json's eos_token_id list and generation_config.json's
           (transformers' generate() stops at any of them; ids the vocabulary lacks are left out) */
        char *gpath = srti__join(dir, "generation_config.json");
        srtj_doc *gdoc = NULL;
        int64_t ids[32];
        int n_ids = 0, r2 = gpath ? srti__json_file(gpath, (uint64_t)1 << 20, &gdoc, err, errlen) : (srti__seterr(err, errlen, "out of memory"), 1);
        for (k = 0; k < cfg->n_eos_ids; k++) ids[n_ids++] = cfg->eos_ids[k];
        if (r2 == 0 && srti__jtoken_ids(gpath, srtj_root(gdoc), "eos_token_id", ids, &n_ids, 32, err, errlen)) r2 = 1;
        srtj_free(gdoc);
        SRTI_FREE(gpath);
        if (r2 == 1) goto done;
        for (k = 0; k < n_ids; k++) srti_vocab_add_eog(v, ids[k]);
    }
    rc = 0;
done:
    if (rc) {
        srti__free_strs(v->tokens, v->n_tokens); srti__free_strs(v->merges, v->n_merges);
        SRTI_FREE(v->types); SRTI_FREE(v->scores); SRTI_FREE(v->chat_template);
        srti__vocab_init(v);
    }
    SRTI_FREE(score_set);
    SRTI_FREE(tm.slot);
    SRTI_FREE(sig.p);
    srtj_free(tdoc);
    srtj_free(cdoc);
    SRTI_FREE(tpath);
    SRTI_FREE(cpath);
    return rc;
#undef SRTI__GEMMA_EXTRA
}

/* ---------------------------------------------------------------- safetensors */
/* GGUF name for a Hugging Face tensor name: 1 = mapped, 0 = skipped on purpose (rotary
   inv_freq buffers; a multimodal checkpoint's vision side), -1 = unknown. *permute: heads to permute
   over (0 = none). multimodal (Gemma3ForConditionalGeneration): the text model's tensors are under
   language_model.model. (language_model.lm_head.weight), or model.language_model. from transformers
   4.52 on (lm_head.weight), and read as the model.* names of a text-only checkpoint; the vision
   tower and the projector into the text model's embedding are skipped, as llama.cpp's converter
   skips them (it writes them to a separate mmproj file). *role: what of the named tensor this one
   is (gpt-oss's experts: SRTI__ROLE_*). */
enum { SRTI__ROLE_WHOLE = 0, SRTI__ROLE_BLOCKS = 1, SRTI__ROLE_SCALES = 2, SRTI__ROLE_TRANSPOSED = 3 };
/* ExaoneForCausalLM's tensor names (EXAONE 3.0 / 3.5) as LlamaForCausalLM's: transformer.wte /
   ln_f, transformer.h.N.ln_1 / ln_2, attn.attention.{q,k,v,out}_proj, mlp.c_fc_0 (gate) / c_fc_1
   (up) / c_proj (down); lm_head as it is. 1 with the Llama name in out; 0 for a name it does not
   know (refused, Llama's own names too). */
static int srti__exaone_name(const char *hf, char *out, size_t cap) {
    static const struct { const char *ex, *ll; } part[] = {
        {"ln_1.weight", "input_layernorm.weight"}, {"ln_2.weight", "post_attention_layernorm.weight"},
        {"attn.attention.q_proj.weight", "self_attn.q_proj.weight"}, {"attn.attention.k_proj.weight", "self_attn.k_proj.weight"},
        {"attn.attention.v_proj.weight", "self_attn.v_proj.weight"}, {"attn.attention.out_proj.weight", "self_attn.o_proj.weight"},
        {"mlp.c_fc_0.weight", "mlp.gate_proj.weight"}, {"mlp.c_fc_1.weight", "mlp.up_proj.weight"}, {"mlp.c_proj.weight", "mlp.down_proj.weight"},
    };
    size_t i;
    if (!strcmp(hf, "transformer.wte.weight")) hf = "model.embed_tokens.weight";
    else if (!strcmp(hf, "transformer.ln_f.weight")) hf = "model.norm.weight";
    else if (!strncmp(hf, "transformer.h.", 14) && hf[14] >= '0' && hf[14] <= '9') {
        const char *p = hf + 14;
        while (*p >= '0' && *p <= '9') p++;
        if (*p != '.' || p - (hf + 14) > 6) return 0;
        for (i = 0; i < sizeof part / sizeof part[0]; i++)
            if (!strcmp(p + 1, part[i].ex)) { snprintf(out, cap, "model.layers.%.*s.%s", (int)(p - (hf + 14)), hf + 14, part[i].ll); return 1; }
        if (srti__ends_with(p, "inv_freq")) { snprintf(out, cap, "model.layers.%.*s.rotary_emb.inv_freq", (int)(p - (hf + 14)), hf + 14); return 1; }
        return 0;
    }
    else if (strcmp(hf, "lm_head.weight") != 0) return 0;
    snprintf(out, cap, "%s", hf);
    return 1;
}
static int srti__hf_name(const char *hf, const srti_hparams *hp, int permute_qk, int multimodal, char *out, size_t cap, uint32_t *permute, int *role) {
    static const struct { const char *hf, *gg; int qk; } layer[] = {
        {"input_layernorm.weight", "attn_norm.weight", 0}, {"post_attention_layernorm.weight", "ffn_norm.weight", 0},
        {"self_attn.q_proj.weight", "attn_q.weight", 1}, {"self_attn.q_proj.bias", "attn_q.bias", 1},
        {"self_attn.k_proj.weight", "attn_k.weight", 2}, {"self_attn.k_proj.bias", "attn_k.bias", 2},
        {"self_attn.v_proj.weight", "attn_v.weight", 0}, {"self_attn.v_proj.bias", "attn_v.bias", 0},
        {"self_attn.q_norm.weight", "attn_q_norm.weight", 0}, {"self_attn.k_norm.weight", "attn_k_norm.weight", 0},
        {"self_attn.o_proj.weight", "attn_output.weight", 0}, {"mlp.gate_proj.weight", "ffn_gate.weight", 0},
        {"mlp.up_proj.weight", "ffn_up.weight", 0}, {"mlp.down_proj.weight", "ffn_down.weight", 0},
        {"self_attn.qkv_proj.weight", "attn_qkv.weight", 0}, {"mlp.gate_up_proj.weight", "ffn_up.weight", 0},   /* Phi-3 */
    };
    /* Gemma: Gemma 1 has Llama's two norms a layer (the first two entries, then the matrices);
       Gemma 2 / 3 four, where post_attention_layernorm normalises the attention's output (entries
       2-4 in place of 1); q_norm / k_norm (the last two) in Gemma 3 only */
    static const struct { const char *hf, *gg; } gemma[] = {
        {"input_layernorm.weight", "attn_norm.weight"}, {"post_attention_layernorm.weight", "ffn_norm.weight"},
        {"post_attention_layernorm.weight", "post_attention_norm.weight"},
        {"pre_feedforward_layernorm.weight", "ffn_norm.weight"}, {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
        {"self_attn.q_proj.weight", "attn_q.weight"}, {"self_attn.k_proj.weight", "attn_k.weight"},
        {"self_attn.v_proj.weight", "attn_v.weight"}, {"self_attn.o_proj.weight", "attn_output.weight"},
        {"mlp.gate_proj.weight", "ffn_gate.weight"}, {"mlp.up_proj.weight", "ffn_up.weight"}, {"mlp.down_proj.weight", "ffn_down.weight"},
        {"self_attn.q_norm.weight", "attn_q_norm.weight"}, {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    };
    static const char *const vision[] = {"vision_tower.", "model.vision_tower.", "multi_modal_projector.", "model.multi_modal_projector."};
    static const char *const text[] = {"language_model.model.", "model.language_model."};
    const int is_gemma = !strncmp(hp->arch, "gemma", 5);
    char text_name[256];
    *permute = 0;
    *role = SRTI__ROLE_WHOLE;
    if (multimodal) {
        size_t i, n = 0;
        for (i = 0; i < sizeof vision / sizeof vision[0]; i++)
            if (!strncmp(hf, vision[i], strlen(vision[i]))) return 0;
        if (!strcmp(hf, "language_model.lm_head.weight")) hf = "lm_head.weight";
        else if (strcmp(hf, "lm_head.weight") != 0) {
            for (i = 0; i < sizeof text / sizeof text[0]; i++) {
                n = strlen(text[i]);
                if (!strncmp(hf, text[i], n)) break;
            }
            if (i == sizeof text / sizeof text[0] || strlen(hf + n) + 7 > sizeof text_name) return -1;
            snprintf(text_name, sizeof text_name, "model.%s", hf + n);
            hf = text_name;
        }
    }
    if (!strcmp(hp->arch, "exaone")) {   /* EXAONE 3.x: its names as Llama's (the weights as they are: NeoX rope) */
        if (srti__exaone_name(hf, text_name, sizeof text_name) != 1) return -1;
        hf = text_name;
    }
    if (!strcmp(hf, "model.embed_tokens.weight")) { snprintf(out, cap, "token_embd.weight"); return 1; }
    if (!strcmp(hf, "model.norm.weight")) { snprintf(out, cap, "output_norm.weight"); return 1; }
    if (!strcmp(hf, "lm_head.weight")) { snprintf(out, cap, "output.weight"); return 1; }
    if (!strncmp(hf, "model.layers.", 13) && hf[13] >= '0' && hf[13] <= '9') {
        const char *p = hf + 13;
        unsigned long l = 0;
        size_t i;
        while (*p >= '0' && *p <= '9' && l < 100000) l = l * 10 + (unsigned long)(*p++ - '0');
        if (*p++ != '.' || l >= hp->n_layer) return -1;
        if (srti__ends_with(p, "rotary_emb.inv_freq")) return 0;
        if (is_gemma) {
            const int g1 = !strcmp(hp->arch, "gemma");
            const size_t n = sizeof gemma / sizeof gemma[0] - (strcmp(hp->arch, "gemma3") ? 2 : 0);
            for (i = 0; i < n; i++)
                if ((g1 ? i < 2 || i > 4 : i != 1) && !strcmp(p, gemma[i].hf)) { snprintf(out, cap, "blk.%lu.%s", l, gemma[i].gg); return 1; }
            return -1;
        }
        if (!strcmp(hp->arch, "gpt-oss")) {   /* sinks, biases; 3-D experts, gate and up interleaved: split by srti__split_fused */
            static const struct { const char *hf, *gg; int role; } oss[] = {
                {"self_attn.sinks", "attn_sinks.weight", 0}, {"self_attn.o_proj.bias", "attn_output.bias", 0},
                {"mlp.router.weight", "ffn_gate_inp.weight", 0}, {"mlp.router.bias", "ffn_gate_inp.bias", 0},
                {"mlp.experts.gate_up_proj_blocks", "ffn_gate_up_exps.weight", SRTI__ROLE_BLOCKS},
                {"mlp.experts.gate_up_proj_scales", "ffn_gate_up_exps.weight", SRTI__ROLE_SCALES},
                {"mlp.experts.gate_up_proj", "ffn_gate_up_exps.weight", SRTI__ROLE_TRANSPOSED},
                {"mlp.experts.gate_up_proj_bias", "ffn_gate_up_exps.bias", 0},
                {"mlp.experts.down_proj_blocks", "ffn_down_exps.weight", SRTI__ROLE_BLOCKS},
                {"mlp.experts.down_proj_scales", "ffn_down_exps.weight", SRTI__ROLE_SCALES},
                {"mlp.experts.down_proj", "ffn_down_exps.weight", SRTI__ROLE_TRANSPOSED},
                {"mlp.experts.down_proj_bias", "ffn_down_exps.bias", 0},
            };
            for (i = 0; i < sizeof oss / sizeof oss[0]; i++)
                if (!strcmp(p, oss[i].hf)) { snprintf(out, cap, "blk.%lu.%s", l, oss[i].gg); *role = oss[i].role; return 1; }
        } else if (!strcmp(hp->arch, "granitemoe")) {   /* 3-D experts and fused gate / up, split by srti__split_fused */
            static const char *const hf_g[5] = {"block_sparse_moe.router.layer.weight", "block_sparse_moe.input_linear.weight",
                                                "block_sparse_moe.output_linear.weight", "shared_mlp.input_linear.weight", "shared_mlp.output_linear.weight"};
            static const char *const gg_g[5] = {"ffn_gate_inp", "ffn_gate_up_exps", "ffn_down_exps", "ffn_gate_up_shexp", "ffn_down_shexp"};
            for (i = 0; i < (hp->n_ff_shexp ? 5u : 3u); i++)
                if (!strcmp(p, hf_g[i])) { snprintf(out, cap, "blk.%lu.%s.weight", l, gg_g[i]); return 1; }
        } else if (hp->n_expert) {   /* the router and expert X's matrices, in place of the dense FFN (whose names then have no place) */
            static const char *const hf_part[2][3] = {{"gate_proj.weight", "up_proj.weight", "down_proj.weight"}, {"w1.weight", "w3.weight", "w2.weight"}};
            static const char *const gg_part[3] = {"gate", "up", "down"};
            const int mixtral = !strcmp(hp->arch, "llama");   /* block_sparse_moe.experts.X.w1/w3/w2; Qwen3-MoE: mlp.experts.X.*_proj */
            const char *block = mixtral ? "block_sparse_moe." : "mlp.";
            const size_t bl = strlen(block);
            unsigned long x = 0;
            if (!strncmp(p, block, bl)) {
                const char *q = p + bl;
                if (!strcmp(q, "gate.weight")) { snprintf(out, cap, "blk.%lu.ffn_gate_inp.weight", l); return 1; }
                if (!strcmp(hp->arch, "qwen2moe")) {   /* the shared expert ([1, n_embd] gate: a vector, as llama.cpp's) */
                    if (!strcmp(q, "shared_expert_gate.weight")) { snprintf(out, cap, "blk.%lu.ffn_gate_inp_shexp.weight", l); return 1; }
                    for (i = 0; i < 3; i++)
                        if (!strncmp(q, "shared_expert.", 14) && !strcmp(q + 14, hf_part[0][i])) {
                            snprintf(out, cap, "blk.%lu.ffn_%s_shexp.weight", l, gg_part[i]);
                            return 1;
                        }
                }
                if (strncmp(q, "experts.", 8) != 0 || q[8] < '0' || q[8] > '9') return -1;
                q += 8;
                while (*q >= '0' && *q <= '9' && x < 100000) x = x * 10 + (unsigned long)(*q++ - '0');
                if (*q++ != '.' || x >= hp->n_expert) return -1;
                for (i = 0; i < 3; i++)
                    if (!strcmp(q, hf_part[mixtral][i])) { snprintf(out, cap, "blk.%lu.ffn_%s.%lu.weight", l, gg_part[i], x); return 1; }
                return -1;
            }
        }
        if (!strcmp(hp->arch, "olmo2") || !strcmp(hp->arch, "exaone4")) {   /* the norms of the attention's and the FFN's outputs; no input norms */
            if (!strcmp(p, "post_attention_layernorm.weight")) { snprintf(out, cap, "blk.%lu.post_attention_norm.weight", l); return 1; }
            if (!strcmp(p, "post_feedforward_layernorm.weight")) { snprintf(out, cap, "blk.%lu.post_ffw_norm.weight", l); return 1; }
            if (!strcmp(p, "input_layernorm.weight")) return -1;
        }
        for (i = 0; i < sizeof layer / sizeof layer[0]; i++)
            if (!strcmp(p, layer[i].hf) && !(hp->n_expert && !strncmp(p, "mlp.", 4))) {
                snprintf(out, cap, "blk.%lu.%s", l, layer[i].gg);
                if (permute_qk && layer[i].qk) *permute = layer[i].qk == 1 ? hp->n_head : hp->n_head_kv;
                return 1;
            }
    }
    return -1;
}

typedef struct srti__span { uint64_t begin, end; } srti__span;
static int srti__span_cmp(const void *a, const void *b) {
    const srti__span *x = (const srti__span *)a, *y = (const srti__span *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : (x->end < y->end ? -1 : x->end > y->end);
}

static int srti__st_dtype(const char *s, uint32_t *bytes, uint32_t *ggml) {
    static const struct { const char *name; uint32_t bytes, ggml; } t[] = {
        {"F32", 4, SRTI_TYPE_F32}, {"F16", 2, SRTI_TYPE_F16}, {"BF16", 2, SRTI_TYPE_BF16},
        {"F64", 8, 0xffffffffu}, {"I64", 8, 0xffffffffu}, {"U64", 8, 0xffffffffu}, {"I32", 4, 0xffffffffu},
        {"U32", 4, 0xffffffffu}, {"I16", 2, 0xffffffffu}, {"U16", 2, 0xffffffffu}, {"I8", 1, 0xffffffffu},
        {"U8", 1, 0xffffffffu}, {"BOOL", 1, 0xffffffffu}, {"F8_E4M3", 1, 0xffffffffu}, {"F8_E5M2", 1, 0xffffffffu},
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) { *bytes = t[i].bytes; *ggml = t[i].ggml; return 1; }
    return 0;
}

/* One header entry, checked: dtype known, shape sane, data_offsets inside the data area and of
   exactly elements x dtype-size bytes. */
typedef struct srti__st_entry {
    uint32_t bytes, ggml, nd;      /* ggml 0xffffffff: a dtype that is not converted */
    uint64_t ne[8], nv;
    int64_t begin, end;
} srti__st_entry;
static int srti__st_check(const char *path, const srtj_value *e, uint64_t data_size, srti__st_entry *x, char *err, size_t errlen) {
    const srtj_value *dt = srtj_get(e, "dtype"), *shape = srtj_get(e, "shape"), *offs = srtj_get(e, "data_offsets"), *d;
    memset(x, 0, sizeof *x);
    x->nv = 1;
    if (!srtj_is(e, SRTJ_OBJECT) || !srtj_string(dt) || !srtj_is(shape, SRTJ_ARRAY) || !srtj_is(offs, SRTJ_ARRAY) || offs->n != 2) {
        srti__seterr(err, errlen, "%s: tensor '%.80s': needs \"dtype\", \"shape\" and \"data_offsets\": [begin, end]", path, e->key);
        return 1;
    }
    if (!srti__st_dtype(dt->str, &x->bytes, &x->ggml)) { srti__seterr(err, errlen, "%s: tensor '%.80s': unknown dtype \"%.20s\"", path, e->key, dt->str); return 1; }
    if (shape->n > 8) { srti__seterr(err, errlen, "%s: tensor '%.80s': %u dimensions", path, e->key, (unsigned)shape->n); return 1; }
    for (d = shape->first; d; d = d->next) {
        int64_t v;
        if (!srtj_int(d, &v) || v < 0 || v > ((int64_t)1 << 40) || (v && x->nv > ((uint64_t)1 << 48) / (uint64_t)v)) {
            srti__seterr(err, errlen, "%s: tensor '%.80s': shape entry %u is not a sane dimension", path, e->key, (unsigned)x->nd);
            return 1;
        }
        x->ne[x->nd++] = (uint64_t)v;
        x->nv *= (uint64_t)v;
    }
    if (!srtj_int(offs->first, &x->begin) || !srtj_int(offs->first->next, &x->end) || x->begin < 0 || x->end < x->begin || (uint64_t)x->end > data_size) {
        srti__seterr(err, errlen, "%s: tensor '%.80s': data_offsets must be 0 <= begin <= end <= %llu (the data size)", path, e->key, (srti__ull)data_size);
        return 1;
    }
    if ((uint64_t)(x->end - x->begin) != x->nv * x->bytes) {
        srti__seterr(err, errlen, "%s: tensor '%.80s': data_offsets [%lld, %lld] hold %lld bytes, but %llu %s values need %llu", path, e->key,
                     (long long)x->begin, (long long)x->end, (long long)(x->end - x->begin), (srti__ull)x->nv, dt->str, (srti__ull)(x->nv * x->bytes));
        return 1;
    }
    return 0;
}

/* A new, zeroed tensor named gname at the end of m->tensors: its index, or -1 (out of memory). */
static int srti__st_new_tensor(srti_model *m, const char *gname, uint32_t *cap_tensors, char *err, size_t errlen) {
    srti_tensor *t;
    if (m->n_tensors == *cap_tensors) {
        uint32_t cap = *cap_tensors ? *cap_tensors * 2 : 64;
        srti_tensor *nt = (srti_tensor *)SRTI_CALLOC(cap, sizeof(srti_tensor));
        if (!nt) { srti__seterr(err, errlen, "out of memory"); return -1; }
        if (m->tensors) { memcpy(nt, m->tensors, m->n_tensors * sizeof(srti_tensor)); SRTI_FREE(m->tensors); }
        m->tensors = nt;
        *cap_tensors = cap;
    }
    t = &m->tensors[m->n_tensors];
    memset(t, 0, sizeof *t);
    strcpy(t->name, gname);
    return (int)m->n_tensors++;
}
/* Hugging Face pairs: a tensor stored as its values and its scales (MXFP4, FP8), joined into the one
   tensor gname of source type `type` by whichever half comes second, from any shard. The tensor
   whose half this is: made for the first half; NULL (with the error) when gname is another tensor
   or this half came before. */
static srti_tensor *srti__st_pair(srti_model *m, const char *key, const char *path, const char *gname, uint32_t type, int scales, uint32_t *cap_tensors,
                                  char *err, size_t errlen) {
    int at = srti_find(m, gname);
    srti_tensor *t;
    if (at < 0) {
        if ((at = srti__st_new_tensor(m, gname, cap_tensors, err, errlen)) < 0) return NULL;
        t = &m->tensors[at];
        t->src_type = type;
        t->ne[0] = t->ne[1] = t->ne[2] = t->ne[3] = 1;
        return t;
    }
    t = &m->tensors[at];
    if (t->src_type != type || (scales ? t->aux_nbytes : t->nbytes) != 0) {
        srti__seterr(err, errlen, "%s: tensor '%.80s' (%s) appears twice", path, key, gname);
        return NULL;
    }
    return t;
}
/* Where the half's data is: the values at offset, the scales at aux_offset. */
static void srti__st_pair_place(srti_tensor *t, int scales, const srti__st_entry *x, uint64_t data_start, uint32_t shard) {
    if (scales) {
        t->aux_offset = data_start + (uint64_t)x->begin;
        t->aux_nbytes = (uint64_t)(x->end - x->begin);
        t->aux_file = shard;
    } else {
        t->offset = data_start + (uint64_t)x->begin;
        t->nbytes = (uint64_t)(x->end - x->begin);
        t->file = shard;
    }
}
/* One half of a Hugging Face MXFP4 pair (gpt-oss): _blocks, U8 [experts, rows, K / 32, 16], or
   _scales, U8 [experts, rows, K / 32]; the tensor [K, rows, experts] of type SRTI_TYPE_HF_MXFP4. */
static int srti__st_mxfp4(srti_model *m, const char *key, const char *dtype, const char *path, uint32_t shard, uint64_t data_start, const srti__st_entry *x,
                          const char *gname, int role, uint32_t *cap_tensors, char *err, size_t errlen) {
    const int blocks = role == SRTI__ROLE_BLOCKS;
    const uint64_t *ne = x->ne;
    srti_tensor *t;
    if (strcmp(dtype, "U8") != 0 || x->nd != (blocks ? 4u : 3u) || (blocks && ne[3] != 16) || ne[0] == 0 || ne[1] == 0 || ne[2] == 0) {
        srti__seterr(err, errlen, "%s: tensor '%.80s' must be U8 [experts, rows, blocks%s] (MXFP4 %s)", path, key, blocks ? ", 16" : "", blocks ? "blocks" : "scales");
        return 1;
    }
    if (!(t = srti__st_pair(m, key, path, gname, SRTI_TYPE_HF_MXFP4, !blocks, cap_tensors, err, errlen))) return 1;
    if (t->nbytes || t->aux_nbytes) {   /* the other half is there: the shapes agree */
        if (t->ne[0] != ne[2] * 32 || t->ne[1] != ne[1] || t->ne[2] != ne[0]) {
            srti__seterr(err, errlen, "%s: tensor '%.80s' [%llu, %llu, %llu%s] does not match its MXFP4 %s: %llu experts of %llu rows of %llu blocks", path, key,
                         (srti__ull)ne[0], (srti__ull)ne[1], (srti__ull)ne[2], blocks ? ", 16" : "", blocks ? "scales" : "blocks", (srti__ull)t->ne[2],
                         (srti__ull)t->ne[1], (srti__ull)(t->ne[0] / 32));
            return 1;
        }
    } else {
        t->n_dims = 3;
        t->ne[0] = ne[2] * 32;
        t->ne[1] = ne[1];
        t->ne[2] = ne[0];
    }
    srti__st_pair_place(t, !blocks, x, data_start, shard);
    return 0;
}
/* One half of a Hugging Face FP8 pair: X.weight, F8_E4M3 [rows, columns], or its scales
   (X.weight_scale_inv / X.weight_scale), F32 / BF16 [ceil(rows / b0), ceil(columns / b1)] (b:
   m->priv->fp8_block, 0 the whole dimension; a scale per tensor may be [] or [1], per row [rows]);
   the tensor [columns, rows] of type SRTI_TYPE_HF_FP8. */
static int srti__st_fp8(srti_model *m, const char *key, const char *dtype, const char *path, uint32_t shard, uint64_t data_start, const srti__st_entry *x,
                        const char *gname, uint32_t permute, int scales, uint32_t *cap_tensors, char *err, size_t errlen) {
    srti_tensor *t;
    if (!m->priv->fp8) { srti__seterr(err, errlen, "%s: tensor '%.80s' is FP8, but config.json has no quantization_config of FP8 weights", path, key); return 1; }
    if ((scales ? x->nd > 2 || (x->ggml != SRTI_TYPE_F32 && x->ggml != SRTI_TYPE_BF16) : x->nd != 2 || strcmp(dtype, "F8_E4M3") != 0) || x->nv == 0) {
        srti__seterr(err, errlen, "%s: tensor '%.80s' must be %s", path, key, scales ? "F32 or BF16, at most 2-D (FP8 scales)" : "F8_E4M3, 2-D");
        return 1;
    }
    if (!(t = srti__st_pair(m, key, path, gname, SRTI_TYPE_HF_FP8, scales, cap_tensors, err, errlen))) return 1;
    t->n_dims = 2;
    if (scales) {
        t->aux_type = x->ggml;
        t->aux_rows = x->nd ? x->ne[0] : 1;
    } else {
        t->ne[0] = x->ne[1];
        t->ne[1] = x->ne[0];
        t->permute_heads = permute;
        if (permute && t->ne[1] % ((uint64_t)permute * 2) != 0) {
            srti__seterr(err, errlen, "%s: tensor '%.80s': %llu rows do not split into %u heads of even size", path, key, (srti__ull)t->ne[1], permute);
            return 1;
        }
    }
    srti__st_pair_place(t, scales, x, data_start, shard);
    if (t->nbytes && t->aux_nbytes) {   /* both halves: the scales fit the values */
        const uint64_t b0 = m->priv->fp8_block[0] ? m->priv->fp8_block[0] : t->ne[1], b1 = m->priv->fp8_block[1] ? m->priv->fp8_block[1] : t->ne[0];
        if (t->aux_rows != (t->ne[1] + b0 - 1) / b0 || t->aux_nbytes != t->aux_rows * ((t->ne[0] + b1 - 1) / b1) * (t->aux_type == SRTI_TYPE_F32 ? 4u : 2u)) {
            srti__seterr(err, errlen, "%s: tensor '%.80s': FP8 scales of %llu rows (%llu bytes) do not match [%llu, %llu] in blocks of %llu x %llu",
                         path, key, (srti__ull)t->aux_rows, (srti__ull)t->aux_nbytes, (srti__ull)t->ne[1], (srti__ull)t->ne[0], (srti__ull)b0, (srti__ull)b1);
            return 1;
        }
    }
    return 0;
}
/* Every pair has both halves. */
static int srti__hf_check_pairs(const srti_model *m, char *err, size_t errlen) {
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++) {
        const srti_tensor *t = &m->tensors[i];
        const int mx = t->src_type == SRTI_TYPE_HF_MXFP4;
        if ((mx || t->src_type == SRTI_TYPE_HF_FP8) && (t->nbytes == 0 || t->aux_nbytes == 0)) {
            srti__seterr(err, errlen, "%s: tensor '%s' has %s %s but no %s", m->priv->path, t->name, mx ? "MXFP4" : "FP8", t->nbytes ? (mx ? "blocks" : "values") : "scales",
                         t->nbytes ? (mx ? "scales (_scales)" : "scales (weight_scale_inv / weight_scale)") : (mx ? "blocks (_blocks)" : "values (F8_E4M3 weight)"));
            return 1;
        }
    }
    return 0;
}

/* Reads one shard's header: validates all of it, then appends the tensors it holds to m->tensors.
   With an index, the weight map's entry for each tensor must name this shard. */
static int srti__st_shard(srti_model *m, uint32_t shard, const srtj_value *weight_map, int permute_qk, int multimodal, uint32_t *cap_tensors,
                          uint32_t *n_found, char *err, size_t errlen) {
    const char *path = m->priv->shard_path[shard];
    FILE *fp = m->priv->shard_fp[shard];
    uint64_t fsize = m->priv->shard_size[shard], hlen, data_start, data_size, at = 0;
    unsigned char b8[8];
    char *header = NULL, jerr[300];
    srtj_doc *doc = NULL;
    const srtj_value *e;
    srti__span *spans = NULL;
    srti__st_entry x;
    uint32_t n_spans = 0, k;
    int rc = 1;
    const char *shard_name = path + strlen(path);
    while (shard_name > path && shard_name[-1] != '/' && shard_name[-1] != '\\') shard_name--;
    if (fsize < 8) { srti__seterr(err, errlen, "%s: %llu bytes is too small for a safetensors file", path, (srti__ull)fsize); return 1; }
    if (srti__fseek64(fp, 0) != 0 || fread(b8, 1, 8, fp) != 8) { srti__seterr(err, errlen, "%s: read error", path); return 1; }
    hlen = srti__le64(b8);
    if (hlen < 2 || hlen > fsize - 8) {
        srti__seterr(err, errlen, "%s: safetensors header length %llu does not fit in the file of %llu bytes (not a safetensors file?)",
                     path, (srti__ull)hlen, (srti__ull)fsize);
        return 1;
    }
    if (hlen > ((uint64_t)100 << 20)) { srti__seterr(err, errlen, "%s: safetensors header of %llu bytes is over the 100 MiB limit", path, (srti__ull)hlen); return 1; }
    header = (char *)SRTI_MALLOC((size_t)hlen + 1);
    if (!header) { srti__seterr(err, errlen, "%s: out of memory", path); return 1; }
    if (fread(header, 1, (size_t)hlen, fp) != (size_t)hlen) { srti__seterr(err, errlen, "%s: read error in the header", path); goto done; }
    header[hlen] = 0;
    if (header[0] != '{') { srti__seterr(err, errlen, "%s: the safetensors header does not start with '{'", path); goto done; }
    if (srtj_parse(header, (size_t)hlen, NULL, &doc, jerr, sizeof jerr)) { srti__seterr(err, errlen, "%s: header: %s", path, jerr); goto done; }
    if (!srtj_is(srtj_root(doc), SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: the header is not an object", path); goto done; }
    data_start = 8 + hlen;
    data_size = fsize - data_start;

    /* every entry valid, and together they tile the data area exactly (safetensors' own rule) */
    spans = (srti__span *)SRTI_MALLOC((srtj_root(doc)->n + 1) * sizeof(srti__span));
    if (!spans) { srti__seterr(err, errlen, "%s: out of memory", path); goto done; }
    for (e = srtj_root(doc)->first; e; e = e->next) {
        if (!strcmp(e->key, "__metadata__")) {
            if (!srtj_is(e, SRTJ_OBJECT)) { srti__seterr(err, errlen, "%s: __metadata__ must be an object", path); goto done; }
            continue;
        }
        if (srti__st_check(path, e, data_size, &x, err, errlen)) goto done;
        spans[n_spans].begin = (uint64_t)x.begin;
        spans[n_spans].end = (uint64_t)x.end;
        n_spans++;
    }
    qsort(spans, n_spans, sizeof *spans, srti__span_cmp);
    for (k = 0; k < n_spans; k++) {
        if (spans[k].begin != at) {
            srti__seterr(err, errlen, "%s: tensor data %s at offset %llu (expected %llu): the data_offsets overlap or leave a gap", path,
                         spans[k].begin < at ? "overlaps" : "has a gap", (srti__ull)spans[k].begin, (srti__ull)at);
            goto done;
        }
        at = spans[k].end;
    }
    if (at != data_size) {
        srti__seterr(err, errlen, "%s: the tensors end at data offset %llu, but the file has %llu data bytes (truncated or padded)", path,
                     (srti__ull)at, (srti__ull)data_size);
        goto done;
    }

    /* the tensors, with GGUF names */
    for (e = srtj_root(doc)->first; e; e = e->next) {
        uint32_t permute = 0;
        char gname[96], base[256];
        int mapped, role, at, fp8;
        srti_tensor *t;
        if (!strcmp(e->key, "__metadata__")) continue;
        srti__st_check(path, e, data_size, &x, err, errlen);
        if (weight_map) {
            const char *where = srtj_string(srtj_get(weight_map, e->key));
            if (!where) continue;   /* not in the index: ignored, as transformers does */
            if (strcmp(where, shard_name) != 0) {
                srti__seterr(err, errlen, "%s: tensor '%.80s' is here, but the index puts it in %.100s", path, e->key, where);
                goto done;
            }
            (*n_found)++;
        }
        {   /* quant_method fp8: X.weight in F8_E4M3 and its X.weight_scale_inv, joined in one tensor by whichever comes second */
            const char *dt = srtj_string(srtj_get(e, "dtype"));
            const size_t kl = strlen(e->key);
            const size_t cut = srti__ends_with(e->key, ".weight_scale_inv") ? 10 : m->priv->fp8 && srti__ends_with(e->key, ".weight_scale") ? 6 : 0;
            fp8 = cut ? 2 : dt && !strcmp(dt, "F8_E4M3") ? 1 : 0;
            if (cut && kl < sizeof base) { memcpy(base, e->key, kl - cut); base[kl - cut] = 0; }   /* (less "_scale_inv" / "_scale") */
            if (m->priv->fp8 && (srti__ends_with(e->key, ".input_scale") || srti__ends_with(e->key, ".k_scale") || srti__ends_with(e->key, ".v_scale")))
                continue;   /* compressed-tensors' activation and KV scales: activations stay the runtime's */
        }
        mapped = fp8 == 2 && strlen(e->key) >= sizeof base ? -1 :
                 srti__hf_name(fp8 == 2 ? base : e->key, &m->hp, permute_qk, multimodal, gname, sizeof gname, &permute, &role);
        if (mapped == 0) continue;
        if (mapped < 0) {
            srti__seterr(err, errlen, "%s: tensor '%.80s' has no place in a %s model (layers %u)", path, e->key, m->hp.arch, (unsigned)m->hp.n_layer);
            goto done;
        }
        if (fp8) {
            if (srti__st_fp8(m, e->key, srtj_string(srtj_get(e, "dtype")), path, shard, data_start, &x, gname, permute, fp8 == 2, cap_tensors, err, errlen))
                goto done;
            continue;
        }
        if (role == SRTI__ROLE_BLOCKS || role == SRTI__ROLE_SCALES) {   /* an MXFP4 pair, joined in one tensor by whichever comes second */
            if (srti__st_mxfp4(m, e->key, srtj_string(srtj_get(e, "dtype")), path, shard, data_start, &x, gname, role, cap_tensors, err, errlen)) goto done;
            continue;
        }
        if (x.ggml == 0xffffffffu) {
            srti__seterr(err, errlen, "%s: tensor '%.80s' has dtype %s; only F32, F16 and BF16 are supported", path, e->key, srtj_string(srtj_get(e, "dtype")));
            goto done;
        }
        if (x.nd < 1 || x.nd > (srti__ends_with(gname, "_exps.weight") ? 3u : 2u) || x.nv == 0) {   /* (Granite MoE's experts are 3-D) */
            srti__seterr(err, errlen, "%s: tensor '%.80s' has %u dimensions and %llu values; %s expected", path, e->key, (unsigned)x.nd, (srti__ull)x.nv,
                         srti__ends_with(gname, "_exps.weight") ? "3-D (experts, rows, columns)" : "1-D or 2-D");
            goto done;
        }
        if (role == SRTI__ROLE_TRANSPOSED && x.nd != 3) {
            srti__seterr(err, errlen, "%s: tensor '%.80s' has %u dimensions; 3-D (experts, in, out) expected", path, e->key, (unsigned)x.nd);
            goto done;
        }
        if (srti_find(m, gname) >= 0) { srti__seterr(err, errlen, "%s: tensor '%.80s' (%s) appears twice", path, e->key, gname); goto done; }
        if ((at = srti__st_new_tensor(m, gname, cap_tensors, err, errlen)) < 0) goto done;
        t = &m->tensors[at];
        t->n_dims = x.nd;
        t->ne[0] = x.ne[x.nd - 1];   /* safetensors [(experts,) rows, cols] -> GGUF ne[0] = cols, ne[2] = experts */
        t->ne[1] = x.nd >= 2 ? x.ne[x.nd - 2] : 1;
        t->ne[2] = x.nd == 3 ? x.ne[0] : 1;
        t->ne[3] = 1;
        if (role == SRTI__ROLE_TRANSPOSED) {   /* gpt-oss's dense experts [experts, in, out]: rows are its columns */
            t->tcols = t->ne[0];
            t->ne[0] = t->ne[1];
            t->ne[1] = t->tcols;
        }
        t->src_type = x.ggml;
        t->offset = data_start + (uint64_t)x.begin;
        t->nbytes = (uint64_t)(x.end - x.begin);
        t->file = shard;
        t->permute_heads = permute;
        if (permute && (x.nd == 2 ? t->ne[1] : t->ne[0]) % ((uint64_t)permute * 2) != 0) {
            srti__seterr(err, errlen, "%s: tensor '%.80s': %llu rows do not split into %u heads of even size", path, e->key,
                         (srti__ull)(x.nd == 2 ? t->ne[1] : t->ne[0]), permute);
            goto done;
        }
    }
    rc = 0;
done:
    SRTI_FREE(spans);
    srtj_free(doc);
    SRTI_FREE(header);
    return rc;
}

static int srti__add_shard(srti_model *m, const char *dir, const char *name, char *err, size_t errlen) {
    uint32_t k = m->priv->n_shards;
    FILE **nf = (FILE **)SRTI_MALLOC((k + 1) * sizeof(FILE *));
    char **np = (char **)SRTI_MALLOC((k + 1) * sizeof(char *));
    uint64_t *ns = (uint64_t *)SRTI_MALLOC((k + 1) * sizeof(uint64_t));
    int64_t sz;
    if (!nf || !np || !ns) { SRTI_FREE(nf); SRTI_FREE(np); SRTI_FREE(ns); srti__seterr(err, errlen, "out of memory"); return 1; }
    if (k) {
        memcpy(nf, m->priv->shard_fp, k * sizeof(FILE *));
        memcpy(np, m->priv->shard_path, k * sizeof(char *));
        memcpy(ns, m->priv->shard_size, k * sizeof(uint64_t));
    }
    SRTI_FREE(m->priv->shard_fp); SRTI_FREE(m->priv->shard_path); SRTI_FREE(m->priv->shard_size);
    m->priv->shard_fp = nf; m->priv->shard_path = np; m->priv->shard_size = ns;
    nf[k] = NULL;
    np[k] = srti__join(dir, name);
    ns[k] = 0;
    m->priv->n_shards = k + 1;
    if (!np[k]) { srti__seterr(err, errlen, "out of memory"); return 1; }
    nf[k] = fopen(np[k], "rb");
    if (!nf[k]) { srti__seterr(err, errlen, "%s: cannot open the file", np[k]); return 1; }
    if (srti__fseek_end(nf[k]) != 0 || (sz = srti__ftell64(nf[k])) < 0) { srti__seterr(err, errlen, "%s: cannot determine the file size", np[k]); return 1; }
    ns[k] = (uint64_t)sz;
    m->file_size += (uint64_t)sz;
    return 0;
}

static int srti__hf_weights(srti_model *m, const char *dir, const srti__hf_cfg *cfg, char *err, size_t errlen) {
    char *ipath = srti__join(dir, "model.safetensors.index.json"), *spath = srti__join(dir, "model.safetensors");
    srtj_doc *idx = NULL;
    const srtj_value *wm = NULL, *e;
    uint32_t cap = 0, found = 0, k;
    int rc = 1, r;
    int permute_qk = cfg->kind == SRTI__HF_LLAMA || cfg->kind == SRTI__HF_MISTRAL || cfg->kind == SRTI__HF_MIXTRAL || cfg->kind == SRTI__HF_SMOLLM3 ||
                     cfg->kind == SRTI__HF_GRANITE || cfg->kind == SRTI__HF_GRANITEMOE || cfg->kind == SRTI__HF_MINICPM;
    if (!ipath || !spath) { srti__seterr(err, errlen, "out of memory"); goto done; }
    if (cfg->quant[0] && !cfg->fp8 && !(!strcmp(cfg->quant, "mxfp4") && cfg->kind == SRTI__HF_GPTOSS) &&
        (srti__file_exists(ipath) || srti__file_exists(spath))) {
        srti__seterr(err, errlen, "%s: quantization_config.quant_method \"%s\" is not supported (fp8; compressed-tensors FP8; gpt-oss's mxfp4): "
                     "use the unquantized checkpoint", dir, cfg->quant);
        goto done;
    }
    m->priv->fp8 = cfg->fp8;
    m->priv->fp8_block[0] = cfg->fp8_block[0];
    m->priv->fp8_block[1] = cfg->fp8_block[1];
    r = srti__json_file(ipath, (uint64_t)1 << 28, &idx, err, errlen);
    if (r == 1) goto done;
    if (r == 0) {
        wm = srtj_get(srtj_root(idx), "weight_map");
        if (!srtj_is(wm, SRTJ_OBJECT) || wm->n == 0) { srti__seterr(err, errlen, "%s: \"weight_map\" must be a non-empty object", ipath); goto done; }
        for (e = wm->first; e; e = e->next) {   /* distinct shard files, in order of appearance */
            const char *f = srtj_string(e);
            int seen = 0;
            if (!f || !f[0] || strchr(f, '/') || strchr(f, '\\') || !strcmp(f, "..") || !srti__ends_with(f, ".safetensors") || strlen(f) != e->n) {
                srti__seterr(err, errlen, "%s: tensor '%.80s' names shard \"%.100s\": a plain *.safetensors file name is required", ipath, e->key, f ? f : "(not a string)");
                goto done;
            }
            for (k = 0; k < m->priv->n_shards && !seen; k++) {
                const char *p = m->priv->shard_path[k];
                seen = srti__ends_with(p, f) && (p[strlen(p) - strlen(f) - 1] == '/');
            }
            if (!seen && srti__add_shard(m, dir, f, err, errlen)) goto done;
        }
    } else if (srti__file_exists(spath)) {
        if (srti__add_shard(m, dir, "model.safetensors", err, errlen)) goto done;
    } else {
        char *bin = srti__join(dir, "pytorch_model.bin"), *bidx = srti__join(dir, "pytorch_model.bin.index.json");
        int legacy = (bin && srti__file_exists(bin)) || (bidx && srti__file_exists(bidx)), oom = !bin || !bidx;
        SRTI_FREE(bin); SRTI_FREE(bidx);
        if (oom) { srti__seterr(err, errlen, "out of memory"); goto done; }
        if (legacy) {
            srti__seterr(err, errlen, "%s: holds PyTorch pickle weights (pytorch_model.bin); only safetensors are read (convert them, e.g. with transformers' save_pretrained(safe_serialization=True))", dir);
            goto done;
        }
        rc = 0;   /* no weights: a vocabulary-only folder */
        goto done;
    }
    for (k = 0; k < m->priv->n_shards; k++)
        if (srti__st_shard(m, k, wm, permute_qk, cfg->multimodal, &cap, &found, err, errlen)) goto done;
    if (wm && found != wm->n) {
        for (e = wm->first; e; e = e->next) {
            uint32_t j;
            int there = 0;
            char gname[96];
            uint32_t perm;
            int role;
            int mp = srti__hf_name(e->key, &m->hp, permute_qk, cfg->multimodal, gname, sizeof gname, &perm, &role);
            for (j = 0; j < m->n_tensors && mp > 0 && !there; j++) there = !strcmp(m->tensors[j].name, gname);
            if (mp > 0 && !there) { srti__seterr(err, errlen, "%s: the index lists tensor '%.80s' in %s, which does not hold it", ipath, e->key, e->str); goto done; }
        }
        srti__seterr(err, errlen, "%s: %u tensors of the index were not found in their shards", ipath, (unsigned)(wm->n - found));
        goto done;
    }
    /* tied embeddings: a stored lm_head identical by definition is dropped, a missing one is an error
       only when the config says the output is separate */
    {
        int oi = srti_find(m, "output.weight");
        if (oi >= 0 && cfg->tie == 1) {
            memmove(&m->tensors[oi], &m->tensors[oi + 1], (m->n_tensors - (uint32_t)oi - 1) * sizeof(srti_tensor));
            m->n_tensors--;
        } else if (oi < 0 && cfg->tie == 0 && m->n_tensors > 0) {
            srti__seterr(err, errlen, "%s: lm_head.weight is missing and config.json says tie_word_embeddings = false", dir);
            goto done;
        }
    }
    rc = 0;
done:
    srtj_free(idx);
    SRTI_FREE(ipath);
    SRTI_FREE(spath);
    return rc;
}

/* Row permutation of llama.cpp's convert_hf_to_gguf.py LlamaModel.permute(): within each of
   n_head heads of d rows, GGUF row 2j+s is Hugging Face row s*d/2 + j (s = 0, 1). */
static void srti__permute_rows(float *w, uint64_t rows, uint64_t cols, uint32_t n_head) {
    uint64_t d = rows / n_head, h, j;
    size_t bytes = (size_t)(d * cols) * sizeof(float);
    float *tmp;
    if (n_head == 0 || d % 2 || !(tmp = (float *)SRTI_MALLOC(bytes ? bytes : 1))) return;
    for (h = 0; h < n_head; h++) {
        float *head = w + h * d * cols;
        memcpy(tmp, head, bytes);
        for (j = 0; j < d / 2; j++) {
            memcpy(head + (2 * j) * cols, tmp + j * cols, (size_t)cols * sizeof(float));
            memcpy(head + (2 * j + 1) * cols, tmp + (d / 2 + j) * cols, (size_t)cols * sizeof(float));
        }
    }
    SRTI_FREE(tmp);
}

/* x rounded to the nearest IEEE half (ties to even), as a float: the converter adds Gemma's 1 to
   an F16 norm in F16. */
static float srti__round_f16(float x) {
    int e;
    double q;
    if (x != x || x == 0.0f) return x;
    frexp((double)x, &e);
    q = ldexp(1.0, e - 11 < -24 ? -24 : e - 11);   /* 11 significant bits; subnormals: steps of 2^-24 */
    x = (float)(nearbyint((double)x / q) * q);
    return x > 65504.0f ? HUGE_VALF : x < -65504.0f ? -HUGE_VALF : x;
}

/* A Gemma folder's norms with their 1 added. Gemma's RMSNorm multiplies by (1 + w); llama.cpp's
   converter stores w + 1 (in F32 for BF16 and F32 sources, in F16 for F16 ones) so that a plain
   x * w RMSNorm applies, and so do we: the norms are read now and held as F32 values (a few MB for
   the largest Gemma). Which tensors a gemma model needs, in which shapes, srti_check_llama says, as
   for the other architectures. */
static int srti__hf_gemma_norms(srti_model *m, char *err, size_t errlen) {
    uint64_t total = 0, at = 0;
    uint32_t i;
    for (i = 0; i < m->n_tensors; i++)
        if (srti__ends_with(m->tensors[i].name, "norm.weight")) total += srti_tensor_nvalues(&m->tensors[i]);
    SRTI_FREE(m->priv->inline_vals);   /* no LongRoPE factors in a Gemma model */
    m->priv->n_inline = 0;
    if (!(m->priv->inline_vals = (float *)SRTI_MALLOC((size_t)total * sizeof(float) + 1))) { srti__seterr(err, errlen, "out of memory"); return 1; }
    for (i = 0; i < m->n_tensors; i++) {
        srti_tensor *t = &m->tensors[i];
        const uint64_t n = srti_tensor_nvalues(t);
        float *v = m->priv->inline_vals + at;
        uint64_t j;
        if (!srti__ends_with(t->name, "norm.weight")) continue;
        if (srti_read_f32(m, i, v, err, errlen)) return 1;
        for (j = 0; j < n; j++) v[j] = t->src_type == SRTI_TYPE_F16 ? srti__round_f16(v[j] + 1.0f) : v[j] + 1.0f;
        t->values = v;
        t->src_type = SRTI_TYPE_F32;
        t->nbytes = n * 4;
        at += n;
    }
    m->priv->n_inline = (uint32_t)at;
    return 0;
}

/* config.json of a folder (or the given file) into m->hp; sets cfg. 0 = ok, 2 = no config.json. */
static int srti__hf_read_config(srti_model *m, const char *cfg_path, srti__hf_cfg *cfg, char *err, size_t errlen) {
    srtj_doc *doc = NULL;
    int r = srti__json_file(cfg_path, (uint64_t)1 << 24, &doc, err, errlen);
    memset(cfg, 0, sizeof *cfg);
    cfg->tie = -1;
    cfg->bos = cfg->eos = cfg->pad = -1;
    if (r) return r;
    r = srti__hf_config(m, cfg_path, srtj_root(doc), cfg, err, errlen);
    srtj_free(doc);
    return r;
}

#define SRTI__HF_ARCHS "LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, Qwen2MoeForCausalLM, Qwen3ForCausalLM, " \
                       "Qwen3MoeForCausalLM, Phi3ForCausalLM, GemmaForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3ForConditionalGeneration, " \
                       "SmolLM3ForCausalLM, GraniteForCausalLM, GraniteMoeForCausalLM, GraniteMoeSharedForCausalLM, MiniCPMForCausalLM, Olmo2ForCausalLM, " \
                       "Olmo3ForCausalLM, OlmoeForCausalLM, ExaoneForCausalLM, Exaone4ForCausalLM, GptOssForCausalLM"
/* More on a refused architecture: of the multimodal ones only Gemma 3's is read (its text model). */
static const char *srti__hf_why_not(const srti__hf_cfg *cfg) {
    if (strstr(cfg->arch_class, "ForConditionalGeneration"))
        return "; of the multimodal checkpoints only Gemma3ForConditionalGeneration is read (its text model, the vision tower left out)";
    return "";
}

static int srti__open_hf(srti_model *m, const char *dir, char *err, size_t errlen) {
    char *cpath = srti__join(dir, "config.json");
    srti__hf_cfg cfg;
    int r, rc = 1;
    if (!cpath) { srti__seterr(err, errlen, "out of memory"); return 1; }
    m->source = SRTI_SRC_HF;
    strcpy(m->source_name, "safetensors");
    r = srti__hf_read_config(m, cpath, &cfg, err, errlen);
    if (r == 1) goto done;
    if (r == 0 && !cfg.kind && cfg.arch_class[0] == 0) { srti__seterr(err, errlen, "%s: neither \"architectures\" nor \"model_type\" is given", cpath); goto done; }
    if (!m->hp.name[0]) {   /* the folder's name */
        const char *b = dir, *q;
        for (q = dir; *q; q++) if ((*q == '/' || *q == '\\') && q[1]) b = q + 1;
        srti__copy_trunc(m->hp.name, sizeof m->hp.name, b);
        { size_t l = strlen(m->hp.name); while (l && (m->hp.name[l - 1] == '/' || m->hp.name[l - 1] == '\\')) m->hp.name[--l] = 0; }
    }
    if (srti__hf_tokenizer(m, dir, &cfg, err, errlen)) goto done;
    if (r == 2) {   /* no config.json: a tokenizer alone (vocabulary only) */
        if (m->vocab.n_tokens == 0) { srti__seterr(err, errlen, "%s: neither config.json nor tokenizer.json is readable", dir); goto done; }
        rc = 0;
        goto done;
    }
    if (!cfg.kind) {
        char *st = srti__join(dir, "model.safetensors"), *ix = srti__join(dir, "model.safetensors.index.json");
        int has_weights = (st && srti__file_exists(st)) || (ix && srti__file_exists(ix)), oom = !st || !ix;
        SRTI_FREE(st); SRTI_FREE(ix);
        if (oom) { srti__seterr(err, errlen, "out of memory"); goto done; }
        if (has_weights) {
            srti__seterr(err, errlen, "%s: architecture \"%s\" is not supported (" SRTI__HF_ARCHS ")%s", cpath, cfg.arch_class, srti__hf_why_not(&cfg));
            goto done;
        }
        srti__copy_trunc(m->hp.arch, sizeof m->hp.arch, cfg.arch_class);
        rc = 0;
        goto done;
    }
    if (srti__hf_weights(m, dir, &cfg, err, errlen)) goto done;
    if (m->n_tensors && (srti__hf_check_pairs(m, err, errlen) || srti__split_fused(m, err, errlen) || srti__hf_add_rope_factors(m, err, errlen))) goto done;
    m->hp.tied_output = srti_find(m, "output.weight") < 0;
    {
        int ti = srti_find(m, "token_embd.weight");
        if (ti >= 0) {
            if (m->hp.n_vocab && m->tensors[ti].ne[1] != m->hp.n_vocab) {
                srti__seterr(err, errlen, "%s: model.embed_tokens.weight has %llu rows, config.json says vocab_size %u", dir,
                             (srti__ull)m->tensors[ti].ne[1], (unsigned)m->hp.n_vocab);
                goto done;
            }
            m->hp.n_vocab = (uint32_t)m->tensors[ti].ne[1];
        }
    }
    if (!m->hp.n_vocab) m->hp.n_vocab = m->vocab.n_tokens;
    if (m->n_tensors && SRTI__HF_IS_GEMMA(cfg.kind) && srti__hf_gemma_norms(m, err, errlen)) goto done;
    rc = 0;
done:
    SRTI_FREE(cpath);
    return rc;
}

/* ---------------------------------------------------------------- random models */
static uint64_t srti__splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Values are drawn in streams of SRTI__RANDOM_STREAM, each seeded from (seed, tensor name, stream
   index), so that threads can draw them in any order and the file stays the same. */
#define SRTI__RANDOM_STREAM 65536u
typedef struct srti__random_job { uint64_t state; uint64_t n; float *out; } srti__random_job;
static void srti__random_streams(void *user, int64_t s0, int64_t s1, int thread_index) {
    const srti__random_job *j = (const srti__random_job *)user;
    int64_t s;
    (void)thread_index;
    for (s = s0; s < s1; s++) {
        uint64_t state = j->state ^ ((uint64_t)s * 0xD1B54A32D192ED03ull), k = (uint64_t)s * SRTI__RANDOM_STREAM;
        uint64_t end = k + SRTI__RANDOM_STREAM < j->n ? k + SRTI__RANDOM_STREAM : j->n;
        srti__splitmix(&state);
        for (; k < end; k += 2) {   /* Box-Muller: two N(0,1) values from two uniforms in (0, 1] */
            uint64_t a = srti__splitmix(&state), b = srti__splitmix(&state);
            double u1 = ((double)(a >> 11) + 1.0) * (1.0 / 9007199254740992.0);
            double u2 = (double)(b >> 11) * (1.0 / 9007199254740992.0);
            double r = sqrt(-2.0 * log(u1)) * 0.02;
            j->out[k] = (float)(r * cos(6.283185307179586 * u2));
            if (k + 1 < end) j->out[k + 1] = (float)(r * sin(6.283185307179586 * u2));
        }
    }
}

static int srti__random_read(srti_model *m, uint32_t i, float *out, char *err, size_t errlen) {
    const srti_tensor *t = &m->tensors[i];
    uint64_t n = srti_tensor_nvalues(t), k;
    const char *nm = t->name;
    srti__random_job j;
    (void)err; (void)errlen;
    if (srti__ends_with(nm, "_norm.weight")) {   /* RMSNorm weights: 1 */
        for (k = 0; k < n; k++) out[k] = 1.0f;
        return 0;
    }
    j.state = m->priv->seed ^ ((uint64_t)srti__fnv(nm, strlen(nm)) << 32) ^ (uint64_t)srti__fnv(nm, strlen(nm) > 1 ? strlen(nm) - 1 : 0);
    j.n = n;
    j.out = out;
    srti__parallel(m, (int64_t)((n + SRTI__RANDOM_STREAM - 1) / SRTI__RANDOM_STREAM), 1, srti__random_streams, &j);
    return 0;
}

static int srti__placeholder_vocab(srti_vocab *v, uint32_t n, char *err, size_t errlen) {
    uint32_t i;
    v->tokens = (char **)SRTI_CALLOC(n, sizeof(char *));
    v->types = (int32_t *)SRTI_MALLOC((size_t)n * sizeof(int32_t));
    v->scores = (float *)SRTI_CALLOC(n, sizeof(float));
    if (!v->tokens || !v->types || !v->scores) { srti__seterr(err, errlen, "out of memory"); return 1; }
    v->n_tokens = n;
    for (i = 0; i < n; i++) {
        char buf[24];
        int type = SRTI_TOKEN_UNUSED;
        if (i == 0) { strcpy(buf, "<unk>"); type = SRTI_TOKEN_UNKNOWN; }
        else if (i == 1) { strcpy(buf, "<s>"); type = SRTI_TOKEN_CONTROL; }
        else if (i == 2) { strcpy(buf, "</s>"); type = SRTI_TOKEN_CONTROL; }
        else if (i < 259) { snprintf(buf, sizeof buf, "<0x%02X>", (unsigned)(i - 3)); type = SRTI_TOKEN_BYTE; }
        else snprintf(buf, sizeof buf, "[PAD%u]", (unsigned)i);
        if (!(v->tokens[i] = srti__strdup(buf))) { srti__seterr(err, errlen, "out of memory"); return 1; }
        v->types[i] = type;
    }
    strcpy(v->model, "llama");
    v->unk = 0; v->bos = 1; v->eos = 2;
    v->add_bos = 1; v->add_eos = 0; v->add_space_prefix = 1;
    return 0;
}

SRTI_API int srti_open_random(const char *config_path, uint64_t seed, srti_model **out, char *err, size_t errlen) {
    srti_model *m;
    srti__hf_cfg cfg;
    char *dir = NULL;
    int r;
    if (err && errlen) err[0] = 0;
    if (!out || !config_path) { srti__seterr(err, errlen, "srti_open_random: invalid argument"); return 1; }
    *out = NULL;
    m = (srti_model *)SRTI_CALLOC(1, sizeof(srti_model));
    if (!m || !(m->priv = (struct srti__priv *)SRTI_CALLOC(1, sizeof(struct srti__priv)))) {
        SRTI_FREE(m);
        srti__seterr(err, errlen, "out of memory");
        return 1;
    }
    srti__hparams_init(&m->hp);
    srti__vocab_init(&m->vocab);
    m->source = SRTI_SRC_RANDOM;
    snprintf(m->source_name, sizeof m->source_name, "random");
    m->priv->seed = seed;
    if (!(m->priv->path = srti__strdup(config_path))) { srti__seterr(err, errlen, "out of memory"); goto fail; }
    r = srti__hf_read_config(m, config_path, &cfg, err, errlen);
    if (r == 2) { srti__seterr(err, errlen, "%s: cannot open the file", config_path); goto fail; }
    if (r) goto fail;
    if (!cfg.kind) { srti__seterr(err, errlen, "%s: architecture \"%s\" is not supported (" SRTI__HF_ARCHS ")%s", config_path, cfg.arch_class, srti__hf_why_not(&cfg)); goto fail; }
    if (!cfg.vocab_size) { srti__seterr(err, errlen, "%s: \"vocab_size\" is missing", config_path); goto fail; }
    if (cfg.vocab_size < 3) { srti__seterr(err, errlen, "%s: vocab_size %u is too small", config_path, (unsigned)cfg.vocab_size); goto fail; }
    if (!m->hp.name[0]) snprintf(m->hp.name, sizeof m->hp.name, "random");
    {   /* the folder of the config: a tokenizer there is used */
        const char *slash = NULL, *q;
        for (q = config_path; *q; q++) if (*q == '/' || *q == '\\') slash = q;
        if (slash) {
            size_t l = (size_t)(slash - config_path);
            if (!(dir = (char *)SRTI_MALLOC(l + 2))) { srti__seterr(err, errlen, "out of memory"); goto fail; }
            memcpy(dir, config_path, l ? l : 1);
            dir[l ? l : 1] = 0;
        } else if (!(dir = srti__strdup("."))) { srti__seterr(err, errlen, "out of memory"); goto fail; }
    }
    if (srti__hf_tokenizer(m, dir, &cfg, err, errlen)) goto fail;
    if (m->vocab.n_tokens == 0 && srti__placeholder_vocab(&m->vocab, cfg.vocab_size, err, errlen)) goto fail;
    m->hp.n_vocab = cfg.vocab_size;
    m->hp.tied_output = cfg.tie == 1;
    {
        uint64_t E = m->hp.n_embd, F = m->hp.n_ff, V = m->hp.n_vocab, Q = (uint64_t)m->hp.n_head * m->hp.head_dim,
                 KV = (uint64_t)m->hp.n_head_kv * m->hp.head_dim, off = 0, l, x;
        const uint64_t FE = m->hp.n_ff_exp ? m->hp.n_ff_exp : F, FS = m->hp.n_ff_shexp;
        const int post = cfg.kind == SRTI__HF_GEMMA2 || cfg.kind == SRTI__HF_GEMMA3 || SRTI__HF_POST_ONLY(cfg.kind);   /* Gemma 2 / 3's, OLMo 2's and EXAONE 4's
                                                                                                                           norms after attention and FFN */
        const int pre = !SRTI__HF_POST_ONLY(cfg.kind);   /* the norms before them */
        const int oss = cfg.kind == SRTI__HF_GPTOSS;   /* the output bias and sinks, the router bias, the experts' biases */
        /* per layer: 2 norms, q, k, v, o and the FFN: dense (3), or the router and 3 an expert (+ 4: a shared expert) */
        const uint64_t per = 6 + (m->hp.n_expert ? 1 + 3 * (uint64_t)m->hp.n_expert : 3) + (cfg.qkv_bias ? 3 : 0) + (SRTI__HF_QK_NORM(cfg.kind) || SRTI__HF_QK_NORM_FULL(cfg.kind) ? 2 : 0) +
                             (post ? 2 : 0) + (FS ? 4 : 0) + (oss ? 3 + 3 * (uint64_t)m->hp.n_expert : 0);
        char nm[96];
        if (m->hp.n_layer * per > SRTI__MAX_TENSORS) {   /* (Qwen3-235B-A22B: 94 x 393) */
            srti__seterr(err, errlen, "%s: %u layers of %llu tensors (%u experts) are more than the %u tensors a random model may have", config_path,
                         (unsigned)m->hp.n_layer, (srti__ull)per, (unsigned)m->hp.n_expert, (unsigned)SRTI__MAX_TENSORS);
            goto fail;
        }
        m->tensors = (srti_tensor *)SRTI_CALLOC((size_t)(m->hp.n_layer * per) + 3, sizeof(srti_tensor));
        if (!m->tensors) { srti__seterr(err, errlen, "out of memory"); goto fail; }
        srti__add_tensor(m, "token_embd.weight", E, V, &off);
        for (l = 0; l < m->hp.n_layer; l++) {
#define SRTI__T(s, a, b) snprintf(nm, sizeof nm, "blk.%u." s, (unsigned)l); srti__add_tensor(m, nm, a, b, &off);
            if (pre) { SRTI__T("attn_norm.weight", E, 0) }
            SRTI__T("attn_q.weight", E, Q)
            SRTI__T("attn_k.weight", E, KV)
            SRTI__T("attn_v.weight", E, KV)
            if (cfg.qkv_bias) {
                SRTI__T("attn_q.bias", Q, 0)
                SRTI__T("attn_k.bias", KV, 0)
                SRTI__T("attn_v.bias", KV, 0)
            }
            if (SRTI__HF_QK_NORM(cfg.kind) || SRTI__HF_QK_NORM_FULL(cfg.kind)) {
                SRTI__T("attn_q_norm.weight", SRTI__HF_QK_NORM_FULL(cfg.kind) ? Q : m->hp.head_dim, 0)
                SRTI__T("attn_k_norm.weight", SRTI__HF_QK_NORM_FULL(cfg.kind) ? KV : m->hp.head_dim, 0)
            }
            SRTI__T("attn_output.weight", Q, E)
            if (oss) {
                SRTI__T("attn_output.bias", E, 0)
                SRTI__T("attn_sinks.weight", m->hp.n_head, 0)
            }
            if (post) { SRTI__T("post_attention_norm.weight", E, 0) }   /* the macro is two statements */
            if (pre) { SRTI__T("ffn_norm.weight", E, 0) }
            if (m->hp.n_expert) {   /* the router, then each expert's gate, down and up (the order srti_check_llama lists them in) */
                SRTI__T("ffn_gate_inp.weight", E, m->hp.n_expert)
                if (oss) { SRTI__T("ffn_gate_inp.bias", m->hp.n_expert, 0) }
                for (x = 0; x < m->hp.n_expert; x++) {
                    snprintf(nm, sizeof nm, "blk.%u.ffn_gate.%u.weight", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, E, FE, &off);
                    snprintf(nm, sizeof nm, "blk.%u.ffn_down.%u.weight", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, FE, E, &off);
                    snprintf(nm, sizeof nm, "blk.%u.ffn_up.%u.weight", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, E, FE, &off);
                    if (oss) {
                        snprintf(nm, sizeof nm, "blk.%u.ffn_gate.%u.bias", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, FE, 0, &off);
                        snprintf(nm, sizeof nm, "blk.%u.ffn_down.%u.bias", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, E, 0, &off);
                        snprintf(nm, sizeof nm, "blk.%u.ffn_up.%u.bias", (unsigned)l, (unsigned)x); srti__add_tensor(m, nm, FE, 0, &off);
                    }
                }
                if (FS) {   /* (gated in qwen2moe only) */
                    if (cfg.kind == SRTI__HF_QWEN2MOE) { SRTI__T("ffn_gate_inp_shexp.weight", E, 0) }
                    SRTI__T("ffn_gate_shexp.weight", E, FS)
                    SRTI__T("ffn_down_shexp.weight", FS, E)
                    SRTI__T("ffn_up_shexp.weight", E, FS)
                }
            } else {
                SRTI__T("ffn_gate.weight", E, F)
                SRTI__T("ffn_down.weight", F, E)
                SRTI__T("ffn_up.weight", E, F)
            }
            if (post) { SRTI__T("post_ffw_norm.weight", E, 0) }
#undef SRTI__T
        }
        srti__add_tensor(m, "output_norm.weight", E, 0, &off);
        if (!m->hp.tied_output) srti__add_tensor(m, "output.weight", E, V, &off);
    }
    if (srti__hf_add_rope_factors(m, err, errlen)) goto fail;
    SRTI_FREE(dir);
    srti__index_names(m);   /* srti_find by binary search: a MoE config makes 10^4+ tensors */
    *out = m;
    return 0;
fail:
    SRTI_FREE(dir);
    srti_close(m);
    return 1;
}
