/* tiny_model.h - writes a small random-weight llama model with a SentencePiece vocabulary, for
   tests that need a real .srt without a checkpoint. Include after sparsert.h. */
#ifndef SRT_TINY_MODEL_H
#define SRT_TINY_MODEL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t tiny_rng_state = 777;
static float tiny_rand(void) {   /* uniform in [-1, 1) */
    tiny_rng_state = tiny_rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((tiny_rng_state >> 40) / 8388608.0) - 1.0f;
}

#define T_E 32
#define T_F 48
#define T_L 2
#define T_H 4
#define T_KVH 2
#define T_V 300   /* 3 specials + 256 byte tokens + 20 pieces + unused slots */

static const char *extra_pieces[] = {
    "\xe2\x96\x81", "a", "b", "c", "ab", "abc", "\xe2\x96\x81" "a", "\xe2\x96\x81" "ab", "\xe2\x96\x81" "abc", "h", "e", "l", "o",
    "he", "ll", "llo", "hello", "\xe2\x96\x81" "hello", "\xc3\xa9", "\xe2\x82\xac", 0};

/* Writes a random-weight model with a SentencePiece vocab: <unk> <s> </s>, <0x00>..<0xFF>, then
   pieces. arch "llama", "qwen3" (with its q/k norms), "phi3" (LongRoPE: original context 32,
   attention factor 1.1, factors around 1), "gemma" (attention scale 0.3, the scale all Gemmas here
   have), "smollm3" (no RoPE in layer 1: step 2), "granite" (multipliers 12, 0.22, 8, 1/64), "gemma2" (soft caps 20 / 10, a window of 4 on even
   layers), "gemma3" (q/k norms, a window of 4 on layer 0 of every 2, sliding rope base 100) or
   "qwen3moe" (q/k norms, 4 experts of width T_F / 2, 2 used, an f32 router), "qwen2moe" (those
   experts without the norms, a shared expert of width T_F), "granitemoe" (granite's multipliers with
   qwen2moe's experts and an ungated shared expert), "olmo2" (no input norms, output norms, q/k norms
   over all heads), "olmoe" (those q/k norms with qwen2moe's experts, no shared one) or "exaone4" (olmo2's norms with
   per-head q/k norms, a window of 4 on layer 0 of every 2, layer 1 without RoPE) or "minicpm" (granite's multipliers);
   chat_template: tokenizer.chat_template
   (NULL = none). skip_tensor / bad_tensor tweak it for the error tests. */
/* Set by a caller: every norm weight this value instead of random ones near 1 (0 = random), and the
   model's general.name (fuzz_srt's NaN seed patches the value and picks the file size by the name). */
static float tiny_norm_value = 0.0f;
static const char *tiny_name = "tiny-test";
/* Set by a caller: vocabulary slot tiny_piece_id becomes the control token tiny_piece_text (a
   vocabulary that differs; an end-of-turn token the model generates). -1 = none. */
static int tiny_piece_id = -1;
static const char *tiny_piece_text = NULL;
/* Set by a caller: control tokens in the last unused slots, tiny_controls[i] at T_V - 1 - i (NULL-terminated; NULL = none). */
static const char *const *tiny_controls = NULL;
/* Set by a caller: the EOS token's id (a generated token, to test where generation stops). */
static int tiny_eos_id = 2;
/* Set by a caller: tokenizer.ggml.eog_token_ids written (tiny_n_eog of them, as an array of tiny_eog_type) */
static const uint32_t *tiny_eog = NULL;
static int tiny_n_eog = 0;
static srt_meta_type tiny_eog_type = SRT_META_ARR_U32;
static int write_tiny_model_arch(const char *path, const char *arch, const char *chat_template, srt_format fmt, const char *skip_tensor,
                                 const char *bad_tensor, int with_vocab) {
    srt_writer *w;
    static char names[T_V][16];
    const char *tokens[T_V];
    float scores[T_V];
    int32_t types[T_V];
    int i, n = 0, n_used, l;
    char key[64];
    float *buf = (float *)malloc(sizeof(float) * 4096 * 4);
    if (!buf || srt_writer_open(path, &w) != SRT_OK) { free(buf); return 0; }
#define TKEY(s) (snprintf(key, sizeof key, "%s." s, arch), key)
    srt_writer_meta_str(w, "general.architecture", arch);
    srt_writer_meta_str(w, "general.name", tiny_name);
    srt_writer_meta_u32(w, TKEY("context_length"), 64);
    srt_writer_meta_u32(w, TKEY("embedding_length"), T_E);
    srt_writer_meta_u32(w, TKEY("feed_forward_length"), T_F);
    srt_writer_meta_u32(w, TKEY("block_count"), T_L);
    srt_writer_meta_u32(w, TKEY("attention.head_count"), T_H);
    srt_writer_meta_u32(w, TKEY("attention.head_count_kv"), T_KVH);
    srt_writer_meta_f32(w, TKEY("attention.layer_norm_rms_epsilon"), 1e-5f);
    if (!strcmp(arch, "phi3")) {
        srt_writer_meta_str(w, TKEY("rope.scaling.type"), "longrope");
        srt_writer_meta_u32(w, TKEY("rope.scaling.original_context_length"), 32);
        srt_writer_meta_f32(w, TKEY("rope.scaling.attn_factor"), 1.1f);
    }
    if (!strcmp(arch, "gemma")) srt_writer_meta_f32(w, TKEY("attention.scale"), 0.3f);   /* Gemma 1: no more */
    if (!strcmp(arch, "smollm3")) srt_writer_meta_u32(w, TKEY("no_rope_layer_step"), 2);   /* layer 1 of T_L = 2 without RoPE */
    if (!strcmp(arch, "granite") || !strcmp(arch, "granitemoe") || !strcmp(arch, "minicpm")) {   /* Granite 3 2B-style multipliers (minicpm: the same keys) */
        srt_writer_meta_f32(w, TKEY("embedding_scale"), 12.0f); srt_writer_meta_f32(w, TKEY("residual_scale"), 0.22f);
        srt_writer_meta_f32(w, TKEY("logit_scale"), 8.0f); srt_writer_meta_f32(w, TKEY("attention.scale"), 0.015625f);
    }
    if (!strcmp(arch, "gemma2") || !strcmp(arch, "gemma3")) {
        srt_writer_meta_f32(w, TKEY("attention.scale"), 0.3f);
        srt_writer_meta_u32(w, TKEY("attention.sliding_window"), 4);
        srt_writer_meta_u32(w, TKEY("attention.sliding_window_pattern"), 2);
        if (!strcmp(arch, "gemma2")) { srt_writer_meta_f32(w, TKEY("attn_logit_softcapping"), 20.0f); srt_writer_meta_f32(w, TKEY("final_logit_softcapping"), 10.0f); }
        else srt_writer_meta_f32(w, TKEY("rope.freq_base_swa"), 100.0f);
    }
    if (!strcmp(arch, "exaone4")) { srt_writer_meta_u32(w, TKEY("attention.sliding_window"), 4); srt_writer_meta_u32(w, TKEY("attention.sliding_window_pattern"), 2); }
    if (!strcmp(arch, "qwen3moe") || !strcmp(arch, "qwen2moe") || !strcmp(arch, "granitemoe") || !strcmp(arch, "olmoe")) {
        srt_writer_meta_u32(w, TKEY("expert_count"), 4);
        srt_writer_meta_u32(w, TKEY("expert_used_count"), 2);
        srt_writer_meta_u32(w, TKEY("expert_feed_forward_length"), T_F / 2);
        if (!strcmp(arch, "qwen2moe") || !strcmp(arch, "granitemoe")) srt_writer_meta_u32(w, TKEY("expert_shared_feed_forward_length"), T_F);
    }
#undef TKEY
    if (with_vocab) {
        tokens[n] = "<unk>"; types[n] = 2; scores[n++] = 0;
        tokens[n] = "<s>"; types[n] = 3; scores[n++] = 0;
        tokens[n] = "</s>"; types[n] = 3; scores[n++] = 0;
        for (i = 0; i < 256; i++) { sprintf(names[i], "<0x%02X>", i); tokens[n] = names[i]; types[n] = 6; scores[n++] = 0; }
        for (i = 0; extra_pieces[i]; i++) { tokens[n] = extra_pieces[i]; types[n] = 1; scores[n] = (float)-i; n++; }
        n_used = n;
        while (n < T_V) { tokens[n] = ""; types[n] = 5; scores[n++] = -1000; }   /* unused slots */
        if (tiny_piece_id >= 0 && tiny_piece_id < T_V) { tokens[tiny_piece_id] = tiny_piece_text; types[tiny_piece_id] = 3; }
        for (i = 0; tiny_controls && tiny_controls[i] && T_V - 1 - i >= n_used; i++) { tokens[T_V - 1 - i] = tiny_controls[i]; types[T_V - 1 - i] = 3; }
        srt_writer_meta_str(w, "tokenizer.ggml.model", "llama");
        srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, tokens, T_V);
        srt_writer_meta_arr(w, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, T_V);
        srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, T_V);
        srt_writer_meta_u32(w, "tokenizer.ggml.bos_token_id", 1);
        srt_writer_meta_u32(w, "tokenizer.ggml.eos_token_id", (uint32_t)tiny_eos_id);
        srt_writer_meta_u32(w, "tokenizer.ggml.unknown_token_id", 0);
        if (chat_template) srt_writer_meta_str(w, "tokenizer.chat_template", chat_template);
        if (tiny_eog) srt_writer_meta_arr(w, "tokenizer.ggml.eog_token_ids", tiny_eog_type, tiny_eog, (uint32_t)tiny_n_eog);
    }
#define ADD(name, rows, cols, f) do { \
        int rr = (rows); \
        if (skip_tensor && !strcmp(skip_tensor, name)) break; \
        if (bad_tensor && !strcmp(bad_tensor, name)) rr++; \
        for (i = 0; i < rr * (cols); i++) buf[i] = (f) == SRT_F32 && rr == 1 ? (tiny_norm_value != 0.0f ? tiny_norm_value : 1.0f + 0.1f * tiny_rand()) : tiny_rand() * 0.3f; \
        if (srt_writer_add_tensor(w, name, f, (f) >= SRT_Q8 && (f) != SRT_SB_BF16 && (f) != SRT_TCSL ? 32 : 0, (uint64_t)rr, (uint64_t)(cols), buf) != SRT_OK) { srt_writer_abort(w); free(buf); return 0; } \
    } while (0)
    ADD("token_embd.weight", T_V, T_E, fmt);
    ADD("output_norm.weight", 1, T_E, SRT_F32);
    if (!strcmp(arch, "phi3")) { ADD("rope_factors_long.weight", 1, T_E / T_H / 2, SRT_F32); ADD("rope_factors_short.weight", 1, T_E / T_H / 2, SRT_F32); }
    for (l = 0; l < T_L; l++) {
        char nm[64];
#define LADD(s, rows, cols, f) do { sprintf(nm, "blk.%d." s, l); ADD(nm, rows, cols, f); } while (0)
        if (strcmp(arch, "olmo2") != 0 && strcmp(arch, "exaone4") != 0) { LADD("attn_norm.weight", 1, T_E, SRT_F32); LADD("ffn_norm.weight", 1, T_E, SRT_F32); }
        LADD("attn_q.weight", T_E, T_E, fmt);
        LADD("attn_k.weight", T_E / T_H * T_KVH, T_E, fmt);
        LADD("attn_v.weight", T_E / T_H * T_KVH, T_E, fmt);
        LADD("attn_output.weight", T_E, T_E, fmt);
        if (!strcmp(arch, "qwen3moe") || !strcmp(arch, "qwen2moe") || !strcmp(arch, "granitemoe") || !strcmp(arch, "olmoe")) {
            int x;
            if (!strcmp(arch, "qwen2moe") || !strcmp(arch, "granitemoe")) {   /* the shared expert and (qwen2moe) its gate */
                if (!strcmp(arch, "qwen2moe")) LADD("ffn_gate_inp_shexp.weight", 1, T_E, SRT_F32);
                LADD("ffn_gate_shexp.weight", T_F, T_E, fmt); LADD("ffn_up_shexp.weight", T_F, T_E, fmt); LADD("ffn_down_shexp.weight", T_E, T_F, fmt);
            }
            LADD("ffn_gate_inp.weight", 4, T_E, SRT_F32);
            for (x = 0; x < 4; x++) {
#define XADD(kind, rows, cols) do { sprintf(nm, "blk.%d.ffn_" kind ".%d.weight", l, x); ADD(nm, rows, cols, fmt); } while (0)
                XADD("gate", T_F / 2, T_E); XADD("up", T_F / 2, T_E); XADD("down", T_E, T_F / 2);
#undef XADD
            }
        } else {
            LADD("ffn_gate.weight", T_F, T_E, fmt);
            LADD("ffn_up.weight", T_F, T_E, fmt);
            LADD("ffn_down.weight", T_E, T_F, fmt);
        }
        if (!strcmp(arch, "qwen3") || !strcmp(arch, "qwen3moe") || !strcmp(arch, "gemma3") || !strcmp(arch, "exaone4")) {
            LADD("attn_q_norm.weight", 1, T_E / T_H, SRT_F32); LADD("attn_k_norm.weight", 1, T_E / T_H, SRT_F32);
        }
        if (!strcmp(arch, "olmo2") || !strcmp(arch, "olmoe")) { LADD("attn_q_norm.weight", 1, T_E, SRT_F32); LADD("attn_k_norm.weight", 1, T_E / T_H * T_KVH, SRT_F32); }
        if (!strcmp(arch, "gemma2") || !strcmp(arch, "gemma3") || !strcmp(arch, "olmo2") || !strcmp(arch, "exaone4")) {
            LADD("post_attention_norm.weight", 1, T_E, SRT_F32); LADD("post_ffw_norm.weight", 1, T_E, SRT_F32);
        }
#undef LADD
    }
#undef ADD
    free(buf);
    return srt_writer_finish(w) == SRT_OK;
}
static int write_tiny_model(const char *path, srt_format fmt, const char *skip_tensor, const char *bad_tensor, int with_vocab) {
    return write_tiny_model_arch(path, "llama", NULL, fmt, skip_tensor, bad_tensor, with_vocab);
}

#endif
