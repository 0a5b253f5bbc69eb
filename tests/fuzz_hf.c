/* fuzz_hf.c - fuzz target for the Hugging Face folder reader (tools/srt_hf.h through srti_open:
   config.json, tokenizer.json, tokenizer_config.json, chat_template.jinja, generation_config.json, model.safetensors or
   model.safetensors.index.json + shards) and srti_open_random on the same config.json.

   Input: a folder as several files (tests/fuzz_common.h): the text before the first
   "\n@@file NAME\n" is config.json; NAME is one of the names in fz_hf_names (others are ignored,
   so no input writes outside the folder). The files go to a temporary folder, srti_open reads it,
   and a folder that opens is used through fz_use_srti; srti_open_random(config.json) is opened too
   (its vocabulary checked, no tensors generated).
   Seeds (--seeds DIR): a tiny Llama (byte-level BPE, tied embeddings, F32/F16/BF16 tensors, chat
   template), the same in two shards with an index, a tiny Qwen2 (QKV biases), a tiny Qwen3 (q/k
   norms), a tiny Phi-3 (fused qkv_proj and gate_up_proj, LongRoPE factor lists, partial RoPE),
   a tiny Gemma 3 (post norms, layer_types, local rope base, linear scaling), a tiny Qwen3-MoE
   (q/k norms, a router and 2 experts, norm_topk_prob) and a tiny Mixtral (block_sparse_moe: a
   router and 2 experts of w1 / w3 / w2), a tiny GraniteMoeShared (multipliers, 3-D experts with
   fused gate / up, a fused shared expert), a tiny OLMo 2 (output norms only, q/k norms of all
   heads), a tiny EXAONE 4 (those norms, per-head q/k norms, "LLLG" sliding_window_pattern, llama3
   rope scaling), a tiny OLMo 3 (OLMo 2 with a sliding layer and YaRN) with a SentencePiece-style
   tokenizer and a separate lm_head, a tiny Qwen3 in FP8 (block scales; compressed-tensors' per-row scales), a tiny gpt-oss (sinks, biases, a generation_config.json eos
   list, MXFP4 expert pairs with gate and up interleaved, in one file and split over two shards;
   and the dequantized, transposed form), a tiny EXAONE 3.5 (its own tensor names and config keys,
   its chat template), and
   ../shared/models/smollm2-135m-instruct's config.json with the tiny tokenizer (no weights). */
#define FZ_NAME "fuzz_hf"
#define FZ_PER_SEED 300
#define FZ_DICT {"\n@@file tokenizer.json\n", "\n@@file model.safetensors\n", "\n@@file model.safetensors.index.json\n", \
                 "\n@@file tokenizer_config.json\n", "\"F16\"", "\"BF16\"", "\"F32\"", "\"data_offsets\"", "\"shape\"", \
                 "\"dtype\"", "\"weight_map\"", "\"vocab_size\"", "\"hidden_size\"", "\"num_key_value_heads\"", \
                 "\"merges\"", "\"vocab\"", "\"added_tokens\"", "\"byte_fallback\"", "\"Metaspace\"", "\"ByteLevel\"", \
                 "\"chat_template\"", "\"rope_scaling\"", "\"llama3\"", "\"Qwen3ForCausalLM\"", "self_attn.q_norm.weight", \
                 "\"Phi3ForCausalLM\"", "\"longrope\"", "\"long_factor\"", "self_attn.qkv_proj.weight", \
                 "\"GemmaForCausalLM\"", "\"Gemma2ForCausalLM\"", "\"Gemma3ForConditionalGeneration\"", "\"text_config\"", "\"layer_types\"", \
                 "\"full_attention\"", "\"sliding_attention\"", "language_model.model.", "vision_tower.", \
                 "\"Qwen3MoeForCausalLM\"", "\"MixtralForCausalLM\"", "\"num_experts\"", "\"num_local_experts\"", \
                 "\"num_experts_per_tok\"", "\"moe_intermediate_size\"", "\"norm_topk_prob\"", "\"decoder_sparse_step\"", \
                 "\"mlp_only_layers\"", "mlp.experts.", "block_sparse_moe.experts.", "mlp.gate.weight", \
                 "\"GraniteMoeSharedForCausalLM\"", "\"shared_intermediate_size\"", "\"Olmo2ForCausalLM\"", "\"Exaone4ForCausalLM\"", "\"sliding_window_pattern\"", "\"Olmo3ForCausalLM\"", "\"MiniCPMForCausalLM\"", "\"scale_emb\"", "\"dim_model_base\"", "\"yarn\"", "\"attention_factor\"", "\"truncate\"", "post_feedforward_layernorm", "block_sparse_moe.input_linear.weight", "shared_mlp.", \
                 "\n@@file generation_config.json\n", "\"compressed-tensors\"", "\"float-quantized\"", "\"F8_E4M3\"", "_scale_inv", "\"eos_token_id\"", "\"GptOssForCausalLM\"", "\"U8\"", "_blocks", "_scales", "mlp.experts.gate_up_proj", "self_attn.sinks", "\"swiglu_limit\"", \
                 "[", "]", "{", "}", ",", ":", "-1", "1e400", \
                 "4294967296", "\"\\u0120\"", "\"<0x0A>\"", NULL}
#define FZ_SRTI
#include "fuzz_common.h"

static const char *const fz_hf_names[] = {"config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json",
                                          "model.safetensors", "model.safetensors.index.json",
                                          "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", NULL};

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char dir[512], path[700], err[512];
    fz_part parts[16];
    int n = fz_split_files(data, size, parts, 16), i, k;
    srti_model *m = NULL;
    fz_tmp_path(dir, sizeof dir, "hf");
    fz_mkdir(dir);
    for (k = 0; fz_hf_names[k]; k++) { snprintf(path, sizeof path, "%s/%s", dir, fz_hf_names[k]); unlink(path); }
    for (i = 0; i < n; i++) {
        const char *name = i == 0 ? "config.json" : parts[i].name;
        for (k = 0; fz_hf_names[k]; k++) if (!strcmp(name, fz_hf_names[k])) break;
        if (!fz_hf_names[k]) continue;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!fz_write_file(path, parts[i].data, parts[i].n)) abort();
    }
    if (srti_open(dir, NULL, &m, err, sizeof err) == 0) {
        fz_use_srti(m);
        srti_close(m);
    } else if (m || !err[0]) { fprintf(stderr, "failed open: model %p, message '%s'\n", (void *)m, err); abort(); }
    m = NULL;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (srti_open_random(path, 1, &m, err, sizeof err) == 0) {
        uint32_t t;
        size_t sum = 0;
        for (t = 0; t < m->vocab.n_tokens; t++) sum += strlen(m->vocab.tokens[t]);
        for (t = 0; t < m->n_tensors; t++) sum += strlen(m->tensors[t].name);
        if (sum == 1) fprintf(stderr, " ");
        srti_check_llama(m, err, sizeof err);   /* (srti_find's index: fast for the 262144 tensors a random model may have) */
        srti_close(m);
    } else if (m || !err[0]) { fprintf(stderr, "failed open_random: model %p, message '%s'\n", (void *)m, err); abort(); }
    for (k = 0; fz_hf_names[k]; k++) { snprintf(path, sizeof path, "%s/%s", dir, fz_hf_names[k]); unlink(path); }
    rmdir(dir);
    return 0;
}

/* ---------------------------------------------------------------- seeds */
static const char *const h_bpe_tokenizer =
    "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":0,\"content\":\"<|endoftext|>\",\"special\":true},"
    "{\"id\":1,\"content\":\"<|im_start|>\",\"special\":true},{\"id\":2,\"content\":\"<|im_end|>\",\"special\":true}],"
    "\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
    "\"post_processor\":null,\"decoder\":{\"type\":\"ByteLevel\"},"
    "\"model\":{\"type\":\"BPE\",\"byte_fallback\":false,\"vocab\":{\"<|endoftext|>\":0,\"<|im_start|>\":1,\"<|im_end|>\":2,"
    "\"h\":3,\"e\":4,\"l\":5,\"o\":6,\"\\u0120\":7,\"w\":8,\"he\":9,\"ll\":10,\"hell\":11,\"hello\":12,\"\\u0120w\":13,\"r\":14,\"d\":15},"
    "\"merges\":[\"h e\",\"l l\",\"he ll\",[\"hell\",\"o\"],\"\\u0120 w\"]}}";
static const char *const h_spm_tokenizer =
    "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":0,\"content\":\"<unk>\",\"special\":true},"
    "{\"id\":1,\"content\":\"<s>\",\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}],"
    "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\\u2581\"},"
    "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\\u2581\"}]},\"pre_tokenizer\":null,"
    "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},"
    "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]},"
    "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\\u2581\"},\"content\":\" \"},"
    "{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]},"
    "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"unk_token\":\"<unk>\",\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2,"
    "\"<0x0A>\":3,\"<0x20>\":4,\"<0xC3>\":5,\"\\u2581\":6,\"a\":7,\"b\":8,\"ab\":9,\"\\u2581a\":10,\"\\u2581ab\":11,\"c\":12,"
    "\"bc\":13,\"\\u2581c\":14,\"\\u00e9\":15},\"merges\":[\"a b\",\"\\u2581 a\",\"\\u2581a b\",\"b c\",\"\\u2581 c\"]}}";
static const char *const h_tok_config =
    "{\"add_bos_token\":false,\"bos_token\":\"<|im_start|>\",\"eos_token\":{\"content\":\"<|im_end|>\"},\"pad_token\":null,"
    "\"chat_template\":\"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}\"}";

typedef struct h_tensor { const char *name; const char *dtype; int rows, cols, depth, inner; } h_tensor;   /* depth > 0: 3-D [depth, rows, cols];
                                                                                                            inner > 0 too: 4-D [depth, rows, cols, inner] */
static uint32_t h_rng = 5;
static float h_rand(void) { h_rng = h_rng * 1664525u + 1013904223u; return (float)(h_rng >> 8) / 8388608.0f - 1.0f; }
static void h_safetensors(fz_buf *b, const h_tensor *t, int nt) {
    fz_buf hdr = {NULL, 0, 0};
    uint64_t off = 0;
    int i, k;
    fz_puts(&hdr, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < nt; i++) {
        char s[256];
        const int depth = t[i].depth ? t[i].depth : 1, inner = t[i].inner ? t[i].inner : 1;
        uint64_t bytes = (uint64_t)depth * (uint64_t)t[i].rows * (uint64_t)t[i].cols * (uint64_t)inner *
                         (!strcmp(t[i].dtype, "U8") || !strcmp(t[i].dtype, "F8_E4M3") ? 1 : strcmp(t[i].dtype, "F32") ? 2 : 4);
        if (t[i].inner) snprintf(s, sizeof s, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%d,%d,%d,%d],\"data_offsets\":[%llu,%llu]}", t[i].name, t[i].dtype,
                                 t[i].depth, t[i].rows, t[i].cols, t[i].inner, (unsigned long long)off, (unsigned long long)(off + bytes));
        else if (t[i].depth) snprintf(s, sizeof s, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%d,%d,%d],\"data_offsets\":[%llu,%llu]}", t[i].name, t[i].dtype,
                                 t[i].depth, t[i].rows, t[i].cols, (unsigned long long)off, (unsigned long long)(off + bytes));
        else if (t[i].rows > 1 || strstr(t[i].name, "_scale_inv")) snprintf(s, sizeof s, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%d,%d],\"data_offsets\":[%llu,%llu]}", t[i].name, t[i].dtype,
                                    t[i].rows, t[i].cols, (unsigned long long)off, (unsigned long long)(off + bytes));
        else snprintf(s, sizeof s, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%d],\"data_offsets\":[%llu,%llu]}", t[i].name, t[i].dtype,
                      t[i].cols, (unsigned long long)off, (unsigned long long)(off + bytes));
        fz_puts(&hdr, s);
        off += bytes;
    }
    fz_puts(&hdr, "}");
    while (hdr.n % 8) fz_puts(&hdr, " ");
    fz_u64(b, hdr.n);
    fz_put(b, hdr.p, hdr.n);
    free(hdr.p);
    for (i = 0; i < nt; i++)
        for (k = 0; k < (t[i].depth ? t[i].depth : 1) * t[i].rows * t[i].cols * (t[i].inner ? t[i].inner : 1); k++) {
            float f = h_rand() * 0.5f;
            uint32_t u;
            if (strstr(t[i].name, "_scale") && strcmp(t[i].dtype, "U8") != 0) f = f < 0 ? 0.01f - f : 0.01f + f;   /* (FP8 scales: positive) */
            memcpy(&u, &f, 4);
            if (!strcmp(t[i].dtype, "U8")) fz_u8(b, strstr(t[i].name, "_scales") ? 118 + (u & 7) : u >> 24);   /* (scales near 2^-6) */
            else if (!strcmp(t[i].dtype, "F8_E4M3")) fz_u8(b, (u >> 24) & 0x77);   /* (no NaN) */
            else if (!strcmp(t[i].dtype, "F32")) fz_u32(b, u);
            else if (!strcmp(t[i].dtype, "BF16")) { fz_u8(b, (u >> 16) & 255); fz_u8(b, u >> 24); }
            else { uint16_t h = (uint16_t)(((u >> 16) & 0x8000) | (((u >> 23) & 255) < 103 ? 0 : ((((u >> 23) & 255) - 112) << 10) | ((u >> 13) & 0x3ff)));
                   fz_u8(b, h & 255); fz_u8(b, h >> 8); }
        }
}

/* The seed `name`: b (config.json and the other files so far), then the tensors t: one
   model.safetensors (split == nt), or t[0..split) and t[split..nt) in two shards with an index;
   frees b. */
static int h_weights(const char *dir, const char *name, fz_buf *b, const h_tensor *t, int nt, int split) {
    int rc;
    if (split == nt) {
        fz_put_file(b, "model.safetensors", NULL, 0);
        h_safetensors(b, t, nt);
    } else {
        fz_buf idx = {NULL, 0, 0};
        int i;
        fz_puts(&idx, "{\"metadata\":{\"total_size\":0},\"weight_map\":{");
        for (i = 0; i < nt; i++) {
            char s[200];
            snprintf(s, sizeof s, "%s\"%s\":\"model-0000%d-of-00002.safetensors\"", i ? "," : "", t[i].name, i < split ? 1 : 2);
            fz_puts(&idx, s);
        }
        fz_puts(&idx, "}}");
        fz_put_file(b, "model.safetensors.index.json", idx.p, idx.n);
        free(idx.p);
        fz_put_file(b, "model-00001-of-00002.safetensors", NULL, 0);
        h_safetensors(b, t, split);
        fz_put_file(b, "model-00002-of-00002.safetensors", NULL, 0);
        h_safetensors(b, t + split, nt - split);
    }
    rc = fz_seed(dir, name, b->p, b->n);
    free(b->p);
    return rc;
}

static int h_tiny(const char *dir, const char *name, int qwen, int sharded) {   /* qwen: 0 no, 2 or 3; 4: Phi-3; 5: Gemma 3; 6: Qwen3-MoE; 7: Mixtral;
                                                                                    8: GraniteMoeShared; 9: OLMo 2; 10: EXAONE 4; 11: OLMo 3;
                                                                                    12: Qwen3 FP8 (q/k/v/o F8_E4M3, 4 x 4 block scales);
                                                                                    13: the same in compressed-tensors' FP8 (a scale per row) */
    static char scale_names[4][80];
    const int fp8 = qwen == 12 || qwen == 13, post_only = qwen >= 9 && qwen <= 11;   /* post_only: OLMo 2 / 3, EXAONE 4 */
    h_tensor t[28];
    int nt = 0;
    fz_buf b = {NULL, 0, 0};
    char cfg[900];
    snprintf(cfg, sizeof cfg, "{\"architectures\":[\"%s\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-06,\"rope_theta\":10000.0,"
             "\"max_position_embeddings\":64,\"vocab_size\":16,\"tie_word_embeddings\":%s,\"hidden_act\":\"silu\","
             "\"bos_token_id\":1,\"eos_token_id\":2%s}",
             fp8 ? "Qwen3ForCausalLM" : qwen == 11 ? "Olmo3ForCausalLM" : qwen == 10 ? "Exaone4ForCausalLM" : qwen == 9 ? "Olmo2ForCausalLM" : qwen == 8 ? "GraniteMoeSharedForCausalLM" : qwen == 7 ? "MixtralForCausalLM" : qwen == 6 ? "Qwen3MoeForCausalLM" : qwen == 5 ? "Gemma3ForCausalLM" : qwen == 4 ? "Phi3ForCausalLM" :
             qwen == 3 ? "Qwen3ForCausalLM" : qwen ? "Qwen2ForCausalLM" : "LlamaForCausalLM",
             qwen ? "false" : "true",
             qwen == 13 ? ",\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"float-quantized\",\"config_groups\":"
                          "{\"group_0\":{\"weights\":{\"num_bits\":8,\"type\":\"float\",\"strategy\":\"channel\",\"symmetric\":true}}}}"
             : fp8 ? ",\"quantization_config\":{\"quant_method\":\"fp8\",\"fmt\":\"e4m3\",\"weight_block_size\":[4,4]}"
             : qwen == 11 ? ",\"sliding_window\":4,\"layer_types\":[\"sliding_attention\"],\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":8.0,"
                          "\"original_max_position_embeddings\":16,\"attention_factor\":1.2079441541679836,\"beta_fast\":32,\"beta_slow\":1}"
             : qwen == 10 ? ",\"sliding_window\":4,\"sliding_window_pattern\":\"LLLG\",\"layer_types\":[\"sliding_attention\"],"
                          "\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":16.0,\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,\"original_max_position_embeddings\":32}"
             : qwen == 8 ? ",\"num_local_experts\":2,\"num_experts_per_tok\":1,\"shared_intermediate_size\":4,\"embedding_multiplier\":12.0,"
                         "\"attention_multiplier\":0.25,\"residual_multiplier\":0.22,\"logits_scaling\":8.0,\"position_embedding_type\":\"rope\""
             : qwen == 7 ? ",\"num_local_experts\":2,\"num_experts_per_tok\":1,\"sliding_window\":null"
             : qwen == 6 ? ",\"num_experts\":2,\"num_experts_per_tok\":2,\"moe_intermediate_size\":4,\"norm_topk_prob\":true,"
                         "\"decoder_sparse_step\":1,\"mlp_only_layers\":[]"
             : qwen == 5 ? ",\"head_dim\":4,\"hidden_activation\":\"gelu_pytorch_tanh\",\"sliding_window\":4,\"layer_types\":[\"full_attention\"],"
                         "\"query_pre_attn_scalar\":4,\"rope_local_base_freq\":100.0,\"rope_scaling\":{\"rope_type\":\"linear\",\"factor\":2.0}"
             : qwen == 4 ? ",\"original_max_position_embeddings\":16,\"partial_rotary_factor\":0.5,\"sliding_window\":47,"
                         "\"rope_scaling\":{\"type\":\"longrope\",\"long_factor\":[4.0],\"short_factor\":[1.25]}"
             : qwen ? "" : ",\"rope_scaling\":{\"rope_type\":\"llama3\",\"factor\":8.0,\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,\"original_max_position_embeddings\":32}");
#define T(n, d, r, c) do { t[nt].name = n; t[nt].dtype = d; t[nt].rows = r; t[nt].cols = c; t[nt].depth = t[nt].inner = 0; nt++; } while (0)
    T("model.embed_tokens.weight", "F16", 16, 8);
    if (!post_only) T("model.layers.0.input_layernorm.weight", "F32", 1, 8);
    if (qwen == 4) T("model.layers.0.self_attn.qkv_proj.weight", "BF16", 16, 8);
    else {
        T("model.layers.0.self_attn.q_proj.weight", "BF16", 8, 8);
        T("model.layers.0.self_attn.k_proj.weight", "F16", 4, 8);
        T("model.layers.0.self_attn.v_proj.weight", "F32", 4, 8);
    }
    T("model.layers.0.self_attn.o_proj.weight", "BF16", 8, 8);
    if (qwen == 3 || qwen == 5 || qwen == 6 || qwen >= 9) {   /* (OLMo 2's q norm covers both heads) */
        T("model.layers.0.self_attn.q_norm.weight", "F32", 1, qwen == 9 || qwen == 11 ? 8 : 4);
        T("model.layers.0.self_attn.k_norm.weight", "BF16", 1, 4);
    } else if (qwen == 2) {
        T("model.layers.0.self_attn.q_proj.bias", "F32", 1, 8);
        T("model.layers.0.self_attn.k_proj.bias", "F32", 1, 4);
        T("model.layers.0.self_attn.v_proj.bias", "BF16", 1, 4);
    }
    T("model.layers.0.post_attention_layernorm.weight", "F32", 1, 8);
    if (post_only) T("model.layers.0.post_feedforward_layernorm.weight", "F16", 1, 8);   /* OLMo 2, EXAONE 4: the FFN's output norm */
    if (qwen == 5) {   /* Gemma: the FFN's norms before and after it */
        T("model.layers.0.pre_feedforward_layernorm.weight", "BF16", 1, 8);
        T("model.layers.0.post_feedforward_layernorm.weight", "F16", 1, 8);
    }
    if (qwen == 4) T("model.layers.0.mlp.gate_up_proj.weight", "F16", 32, 8);
    else if (qwen == 6) {   /* a router and 2 experts of width 4 */
        T("model.layers.0.mlp.gate.weight", "F32", 2, 8);
        T("model.layers.0.mlp.experts.0.gate_proj.weight", "BF16", 4, 8);
        T("model.layers.0.mlp.experts.0.up_proj.weight", "F16", 4, 8);
        T("model.layers.0.mlp.experts.0.down_proj.weight", "BF16", 8, 4);
        T("model.layers.0.mlp.experts.1.gate_proj.weight", "F16", 4, 8);
        T("model.layers.0.mlp.experts.1.up_proj.weight", "BF16", 4, 8);
        T("model.layers.0.mlp.experts.1.down_proj.weight", "F32", 8, 4);
    } else if (qwen == 7) {   /* a router and 2 experts of width intermediate_size (16) */
        T("model.layers.0.block_sparse_moe.gate.weight", "BF16", 2, 8);
        T("model.layers.0.block_sparse_moe.experts.0.w1.weight", "F16", 16, 8);
        T("model.layers.0.block_sparse_moe.experts.0.w2.weight", "BF16", 8, 16);
        T("model.layers.0.block_sparse_moe.experts.0.w3.weight", "F32", 16, 8);
        T("model.layers.0.block_sparse_moe.experts.1.w1.weight", "BF16", 16, 8);
        T("model.layers.0.block_sparse_moe.experts.1.w2.weight", "F16", 8, 16);
        T("model.layers.0.block_sparse_moe.experts.1.w3.weight", "BF16", 16, 8);
    } else if (qwen == 8) {   /* a router, 2 experts of width 16 (3-D, gate and up fused) and a shared expert of 4 */
        T("model.layers.0.block_sparse_moe.router.layer.weight", "BF16", 2, 8);
        T("model.layers.0.block_sparse_moe.input_linear.weight", "F16", 32, 8); t[nt - 1].depth = 2;
        T("model.layers.0.block_sparse_moe.output_linear.weight", "BF16", 8, 16); t[nt - 1].depth = 2;
        T("model.layers.0.shared_mlp.input_linear.weight", "F32", 8, 8);
        T("model.layers.0.shared_mlp.output_linear.weight", "BF16", 8, 4);
    } else {
        T("model.layers.0.mlp.gate_proj.weight", "F16", 16, 8);
        T("model.layers.0.mlp.up_proj.weight", "BF16", 16, 8);
    }
    if (qwen < 6 || qwen >= 9) T("model.layers.0.mlp.down_proj.weight", "F32", 8, 16);
    T("model.norm.weight", "F32", 1, 8);
    if (qwen) T("lm_head.weight", "F16", 16, 8);
    if (fp8) {   /* the attention's matrices in FP8, each with its scales */
        int i, k = 0, n0 = nt;
        for (i = 0; i < n0; i++)
            if (strstr(t[i].name, "_proj.weight") && k < 4) {
                t[i].dtype = "F8_E4M3";
                snprintf(scale_names[k], sizeof scale_names[k], "%s%s", t[i].name, qwen == 13 ? "_scale" : "_scale_inv");
                if (qwen == 13) T(scale_names[k], "BF16", t[i].rows, 1);
                else T(scale_names[k], "F32", (t[i].rows + 3) / 4, (t[i].cols + 3) / 4);
                k++;
            }
    }
#undef T
    fz_puts(&b, cfg);
    fz_put_file(&b, "tokenizer.json", qwen ? h_spm_tokenizer : h_bpe_tokenizer, strlen(qwen ? h_spm_tokenizer : h_bpe_tokenizer));
    if (!qwen) fz_put_file(&b, "tokenizer_config.json", h_tok_config, strlen(h_tok_config));
    else fz_put_file(&b, "chat_template.jinja", "{{ bos_token }}{% for m in messages %}[INST] {{ m.content }} [/INST]{% endfor %}", 79);
    return h_weights(dir, name, &b, t, nt, sharded ? nt / 2 : nt);
}

/* EXAONE 3.5 (ExaoneForCausalLM): Llama's layers under its own names and config keys, rope
   scaling llama3, untied, EXAONE 3.5's chat template */
static int h_exaone3(const char *dir, const char *name) {
    static const char *const cfg = "{\"architectures\":[\"ExaoneForCausalLM\"],\"model_type\":\"exaone\",\"hidden_size\":8,\"intermediate_size\":16,"
                                   "\"num_layers\":1,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":4,\"layer_norm_epsilon\":1e-05,"
                                   "\"activation_function\":\"silu\",\"rope_theta\":1000000.0,\"max_position_embeddings\":64,\"vocab_size\":16,"
                                   "\"tie_word_embeddings\":false,\"bos_token_id\":1,\"eos_token_id\":2,\"rope_scaling\":{\"rope_type\":\"llama3\","
                                   "\"factor\":8.0,\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,\"original_max_position_embeddings\":32}}";
    static const char *const tmpl = "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}{{ '[|system|][|endofturn|]\\n' }}"
                                    "{% endif %}{{ '[|' + message['role'] + '|]' + message['content'] }}{% if message['role'] == 'user' %}{{ '\\n' }}"
                                    "{% else %}{{ '[|endofturn|]\\n' }}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '[|assistant|]' }}{% endif %}";
    static const h_tensor t[] = {
        {"transformer.wte.weight", "BF16", 16, 8, 0, 0}, {"transformer.h.0.ln_1.weight", "F32", 1, 8, 0, 0},
        {"transformer.h.0.attn.attention.q_proj.weight", "BF16", 8, 8, 0, 0}, {"transformer.h.0.attn.attention.k_proj.weight", "F16", 4, 8, 0, 0},
        {"transformer.h.0.attn.attention.v_proj.weight", "F32", 4, 8, 0, 0}, {"transformer.h.0.attn.attention.out_proj.weight", "BF16", 8, 8, 0, 0},
        {"transformer.h.0.ln_2.weight", "F32", 1, 8, 0, 0}, {"transformer.h.0.mlp.c_fc_0.weight", "F16", 16, 8, 0, 0},
        {"transformer.h.0.mlp.c_fc_1.weight", "BF16", 16, 8, 0, 0}, {"transformer.h.0.mlp.c_proj.weight", "F32", 8, 16, 0, 0},
        {"transformer.ln_f.weight", "F32", 1, 8, 0, 0}, {"lm_head.weight", "F16", 16, 8, 0, 0},
    };
    fz_buf b = {NULL, 0, 0};
    fz_puts(&b, cfg);
    fz_put_file(&b, "tokenizer.json", h_bpe_tokenizer, strlen(h_bpe_tokenizer));
    fz_put_file(&b, "chat_template.jinja", tmpl, strlen(tmpl));
    return h_weights(dir, name, &b, t, (int)(sizeof t / sizeof t[0]), (int)(sizeof t / sizeof t[0]));
}

/* gpt-oss: hidden 32, 4 heads of 8, 2 kv heads, 1 sliding layer, 2 experts of 32 (1 used); mxfp4:
   the experts as MXFP4 pairs (sharded: the blocks in one shard, the scales in the other), else
   dequantized and transposed [experts, in, out] */
static int h_gptoss(const char *dir, const char *name, int mxfp4, int sharded) {
    static const char *const cfg = "{\"architectures\":[\"GptOssForCausalLM\"],\"hidden_size\":32,\"intermediate_size\":32,\"num_hidden_layers\":1,"
                                   "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":8,\"num_local_experts\":2,\"num_experts_per_tok\":1,"
                                   "\"sliding_window\":4,\"layer_types\":[\"sliding_attention\"],\"vocab_size\":16,\"tie_word_embeddings\":false,"
                                   "\"swiglu_limit\":7.0,\"rope_theta\":150000,\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":32.0,\"beta_fast\":32.0,"
                                   "\"beta_slow\":1.0,\"truncate\":false,\"original_max_position_embeddings\":16}}";
    static const h_tensor common[] = {
        {"model.embed_tokens.weight", "BF16", 16, 32, 0, 0}, {"model.layers.0.input_layernorm.weight", "BF16", 1, 32, 0, 0},
        {"model.layers.0.self_attn.q_proj.weight", "BF16", 32, 32, 0, 0}, {"model.layers.0.self_attn.q_proj.bias", "BF16", 1, 32, 0, 0},
        {"model.layers.0.self_attn.k_proj.weight", "BF16", 16, 32, 0, 0}, {"model.layers.0.self_attn.k_proj.bias", "BF16", 1, 16, 0, 0},
        {"model.layers.0.self_attn.v_proj.weight", "BF16", 16, 32, 0, 0}, {"model.layers.0.self_attn.v_proj.bias", "BF16", 1, 16, 0, 0},
        {"model.layers.0.self_attn.o_proj.weight", "BF16", 32, 32, 0, 0}, {"model.layers.0.self_attn.o_proj.bias", "BF16", 1, 32, 0, 0},
        {"model.layers.0.self_attn.sinks", "BF16", 1, 4, 0, 0}, {"model.layers.0.post_attention_layernorm.weight", "BF16", 1, 32, 0, 0},
        {"model.layers.0.mlp.router.weight", "BF16", 2, 32, 0, 0}, {"model.layers.0.mlp.router.bias", "BF16", 1, 2, 0, 0},
        {"model.layers.0.mlp.experts.gate_up_proj_bias", "BF16", 2, 64, 0, 0}, {"model.layers.0.mlp.experts.down_proj_bias", "BF16", 2, 32, 0, 0},
        {"model.norm.weight", "BF16", 1, 32, 0, 0}, {"lm_head.weight", "BF16", 16, 32, 0, 0},
    };
    static const h_tensor pairs[] = {
        {"model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", 64, 1, 2, 16}, {"model.layers.0.mlp.experts.down_proj_blocks", "U8", 32, 1, 2, 16},
        {"model.layers.0.mlp.experts.gate_up_proj_scales", "U8", 64, 1, 2, 0}, {"model.layers.0.mlp.experts.down_proj_scales", "U8", 32, 1, 2, 0},
    };
    static const h_tensor dense[] = {
        {"model.layers.0.mlp.experts.gate_up_proj", "BF16", 32, 64, 2, 0}, {"model.layers.0.mlp.experts.down_proj", "BF16", 32, 32, 2, 0},
    };
    h_tensor t[24];
    fz_buf b = {NULL, 0, 0};
    const int nc = (int)(sizeof common / sizeof common[0]);
    int nt = nc;
    memcpy(t, common, sizeof common);
    if (mxfp4) { memcpy(t + nt, pairs, sizeof pairs); nt += 4; }
    else { memcpy(t + nt, dense, sizeof dense); nt += 2; }
    fz_puts(&b, cfg);
    fz_put_file(&b, "tokenizer.json", h_bpe_tokenizer, strlen(h_bpe_tokenizer));
    fz_put_file(&b, "generation_config.json", "{\"eos_token_id\":[2,0,1]}", 24);   /* (gpt-oss's: three tokens end generation) */
    return h_weights(dir, name, &b, t, nt, sharded ? nt - 2 : nt);   /* (sharded: the scales in the second shard) */
}

static int fz_make_seeds(const char *dir) {
    size_t n;
    unsigned char *p;
    if (h_tiny(dir, "tiny-llama", 0, 0) || h_tiny(dir, "tiny-llama-sharded", 0, 1) || h_tiny(dir, "tiny-qwen2", 2, 0) || h_tiny(dir, "tiny-qwen3", 3, 0) ||
        h_tiny(dir, "tiny-phi3", 4, 0) || h_tiny(dir, "tiny-gemma3", 5, 0) || h_tiny(dir, "tiny-qwen3moe", 6, 0) || h_tiny(dir, "tiny-mixtral", 7, 0) ||
        h_tiny(dir, "tiny-granitemoe", 8, 0) || h_tiny(dir, "tiny-olmo2", 9, 0) || h_tiny(dir, "tiny-exaone4", 10, 0) || h_tiny(dir, "tiny-olmo3", 11, 0) ||
        h_tiny(dir, "tiny-qwen3-fp8", 12, 0) || h_tiny(dir, "tiny-qwen3-fp8-ct", 13, 0) || h_gptoss(dir, "tiny-gptoss", 1, 0) || h_gptoss(dir, "tiny-gptoss-sharded", 1, 1) || h_gptoss(dir, "tiny-gptoss-dense", 0, 0) || h_exaone3(dir, "tiny-exaone3"))
        return 1;
    p = fz_read_file("../shared/models/smollm2-135m-instruct/config.json", &n);
    if (p) {
        fz_buf b = {NULL, 0, 0};
        int rc;
        fz_put(&b, p, n);
        fz_put_file(&b, "tokenizer.json", h_bpe_tokenizer, strlen(h_bpe_tokenizer));
        free(p);
        rc = fz_seed(dir, "smollm2-config", b.p, b.n);
        free(b.p);
        if (rc) return 1;
    }
    return 0;
}
