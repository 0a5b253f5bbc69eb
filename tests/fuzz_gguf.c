/* fuzz_gguf.c - fuzz target for the GGUF reader (tools/srt_import.h srti_open on a .gguf).

   The input is written to a temporary file and opened; a file that opens is used through
   fz_use_srti (tests/fuzz_common.h): vocabulary, metadata lookups, srti_check_llama, and every
   tensor of a supported type read and dequantized. Build and run: tests/fuzz_common.h, ./build.sh fuzz.
   Seeds (--seeds DIR): a tiny valid llama GGUF (SentencePiece vocabulary, several tensor types),
   the same with a byte-level BPE vocabulary and merges, the same as a Phi-3 (fused attn_qkv and
   ffn_up, split when opened; LongRoPE factors and attention factor), a qwen3moe of 4 experts in llama.cpp's
   3-D ffn_{gate,up,down}_exps tensors (split per expert when opened), a "type zoo" of one random tensor
   per ggml type this reader knows, the keys of a 64-layer exaone4 with its sliding-window pattern as
   one bool per layer (no tensors), a gpt-oss as llama.cpp writes it (MXFP4 3-D experts, their 2-D
   biases, sinks, post_attention_norm) and ../shared/models/stories260K/stories260K.gguf. */
#define FZ_NAME "fuzz_gguf"
#define FZ_PER_SEED 300
#define FZ_DICT {"GGUF", "general.alignment", "general.architecture", "llama.block_count", "llama.embedding_length", \
                 "tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.model", "token_embd.weight", \
                 "blk.0.attn_q.weight", "\xff\xff\xff\xff", "\0\0\0\0\0\0\0\0", "\x09\0\0\0", "\x08\0\0\0", \
                 "qwen3moe.expert_count", "llama.expert_count", "expert_used_count", "_exps.weight", "\x03\0\0\0", \
                 "exaone4.attention.sliding_window_pattern", "\x07\0\0\0", "_exps.bias", "\x27\0\0\0", NULL}
#define FZ_SRTI
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char path[512], err[512];
    srti_model *m = NULL;
    fz_tmp_path(path, sizeof path, "model.gguf");
    if (!fz_write_file(path, data, size)) abort();
    if (srti_open(path, NULL, &m, err, sizeof err) == 0) {
        fz_use_srti(m);
        srti_close(m);
    } else if (m || !err[0]) { fprintf(stderr, "failed open: model %p, message '%s'\n", (void *)m, err); abort(); }
    unlink(path);
    return 0;
}

/* ---------------------------------------------------------------- seed writer */
static void g_str(fz_buf *b, const char *s) { fz_u64(b, strlen(s)); fz_puts(b, s); }
static void g_kv_u32(fz_buf *b, const char *k, uint32_t v) { g_str(b, k); fz_u32(b, 4); fz_u32(b, v); }
static void g_kv_f32(fz_buf *b, const char *k, float v) { g_str(b, k); fz_u32(b, 6); fz_f32(b, v); }
static void g_kv_str(fz_buf *b, const char *k, const char *v) { g_str(b, k); fz_u32(b, 8); g_str(b, v); }
static void g_kv_strs(fz_buf *b, const char *k, const char *const *v, uint32_t n) {
    uint32_t i;
    g_str(b, k); fz_u32(b, 9); fz_u32(b, 8); fz_u64(b, n);
    for (i = 0; i < n; i++) g_str(b, v[i]);
}
typedef struct g_tensor { char name[48]; uint64_t ne0, ne1, ne2; uint32_t type; } g_tensor;   /* ne2 0 or 1: 1-D or 2-D */
static uint32_t g_rng = 99;
static unsigned g_byte(void) { g_rng = g_rng * 1664525u + 1013904223u; return g_rng >> 24; }

/* header, kv (already in `kv`, n_kv entries), tensor infos, data aligned to 32 */
static int g_write(const char *dir, const char *name, const fz_buf *kv, uint64_t n_kv, const g_tensor *t, int nt, int real_floats) {
    fz_buf b = {NULL, 0, 0};
    uint64_t off = 0;
    int i, rc;
    fz_puts(&b, "GGUF"); fz_u32(&b, 3); fz_u64(&b, (uint64_t)nt); fz_u64(&b, n_kv);
    fz_put(&b, kv->p, kv->n);
    for (i = 0; i < nt; i++) {
        uint32_t bv, bb;
        if (!srti_type_block(t[i].type, &bv, &bb)) return 1;
        const uint64_t ne2 = t[i].ne2 > 1 ? t[i].ne2 : 1;
        g_str(&b, t[i].name);
        fz_u32(&b, ne2 > 1 ? 3 : t[i].ne1 > 1 ? 2 : 1); fz_u64(&b, t[i].ne0); if (t[i].ne1 > 1 || ne2 > 1) fz_u64(&b, t[i].ne1);
        if (ne2 > 1) fz_u64(&b, ne2);
        fz_u32(&b, t[i].type); fz_u64(&b, off);
        off += (t[i].ne0 * t[i].ne1 * ne2 / bv * bb + 31) / 32 * 32;
    }
    while (b.n % 32) fz_u8(&b, 0);
    for (i = 0; i < nt; i++) {
        uint32_t bv = 1, bb = 0;
        uint64_t k, n;
        srti_type_block(t[i].type, &bv, &bb);
        n = t[i].ne0 * t[i].ne1 * (t[i].ne2 > 1 ? t[i].ne2 : 1) / bv * bb;
        if (real_floats && t[i].type == SRTI_TYPE_F32) for (k = 0; k < n / 4; k++) fz_f32(&b, (float)(g_byte() % 64) / 32.0f - 1.0f);
        else if (real_floats && t[i].type == SRTI_TYPE_F16) for (k = 0; k < n / 2; k++) { fz_u8(&b, g_byte()); fz_u8(&b, 0x30 + g_byte() % 8 + (g_byte() & 0x80)); }
        else for (k = 0; k < n; k++) fz_u8(&b, (g_byte() & 0x3f) | ((k & 1) ? 0 : 0x80));   /* f16 scales stay finite */
        while (b.n % 32) fz_u8(&b, 0);
    }
    rc = fz_seed(dir, name, b.p, b.n);
    free(b.p);
    return rc;
}

static int g_llama(const char *dir, const char *name, int bpe, int phi3) {
    static const uint32_t types[] = {SRTI_TYPE_F16, SRTI_TYPE_Q4_0, SRTI_TYPE_Q4_1, SRTI_TYPE_Q5_0, SRTI_TYPE_Q5_1, SRTI_TYPE_BF16, SRTI_TYPE_Q8_0};
    static const char *const blk[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};
    const uint64_t E = 32, F = 64, KV = 16, V = 64;
    const char *tokens[64];
    char names[64][16];
    fz_buf kv = {NULL, 0, 0};
    g_tensor t[16];
    int nt = 0, i, rc, n_kv = 0;
    float scores[64];
    const char *a = phi3 ? "phi3" : "llama";
    char key[64];
#define K(sfx) (snprintf(key, sizeof key, "%s.%s", a, sfx), key)
    g_kv_str(&kv, "general.architecture", a); n_kv++;
    g_kv_str(&kv, "general.name", "fuzz-tiny"); n_kv++;
    g_kv_u32(&kv, "general.alignment", 32); n_kv++;
    g_kv_u32(&kv, K("context_length"), 128); n_kv++;
    g_kv_u32(&kv, K("embedding_length"), (uint32_t)E); n_kv++;
    g_kv_u32(&kv, K("feed_forward_length"), (uint32_t)F); n_kv++;
    g_kv_u32(&kv, K("block_count"), 1); n_kv++;
    g_kv_u32(&kv, K("attention.head_count"), 4); n_kv++;
    g_kv_u32(&kv, K("attention.head_count_kv"), 2); n_kv++;
    g_kv_f32(&kv, K("attention.layer_norm_rms_epsilon"), 1e-5f); n_kv++;
    g_kv_f32(&kv, K("rope.freq_base"), 10000.0f); n_kv++;
    if (phi3) {
        g_kv_u32(&kv, K("rope.scaling.original_context_length"), 64); n_kv++;
        g_kv_f32(&kv, K("rope.scaling.attn_factor"), 1.19f); n_kv++;
        g_kv_u32(&kv, K("attention.sliding_window"), 47); n_kv++;
    }
#undef K
    tokens[0] = "<unk>"; tokens[1] = "<s>"; tokens[2] = "</s>";
    for (i = 3; i < 64; i++) {
        if (bpe) snprintf(names[i], sizeof names[i], "%c%c", 'a' + i % 26, i < 29 ? 0 : 'a' + (i * 7) % 26);
        else snprintf(names[i], sizeof names[i], "<0x%02X>", i);
        tokens[i] = names[i];
    }
    g_kv_str(&kv, "tokenizer.ggml.model", bpe ? "gpt2" : "llama"); n_kv++;
    if (bpe) { g_kv_str(&kv, "tokenizer.ggml.pre", "llama-bpe"); n_kv++; }
    g_kv_strs(&kv, "tokenizer.ggml.tokens", tokens, 64); n_kv++;
    for (i = 0; i < 64; i++) scores[i] = (float)-i;
    g_str(&kv, "tokenizer.ggml.scores"); fz_u32(&kv, 9); fz_u32(&kv, 6); fz_u64(&kv, 64);
    for (i = 0; i < 64; i++) fz_f32(&kv, scores[i]);
    n_kv++;
    g_str(&kv, "tokenizer.ggml.token_type"); fz_u32(&kv, 9); fz_u32(&kv, 5); fz_u64(&kv, 64);
    for (i = 0; i < 64; i++) fz_u32(&kv, i == 0 ? 2 : i < 3 ? 3 : bpe ? 1 : 6);
    n_kv++;
    if (bpe) {
        static const char *const merges[] = {"a b", "c d", "ab cd", "e f"};
        g_kv_strs(&kv, "tokenizer.ggml.merges", merges, 4); n_kv++;
    }
    g_kv_u32(&kv, "tokenizer.ggml.bos_token_id", 1); n_kv++;
    g_kv_u32(&kv, "tokenizer.ggml.eos_token_id", 2); n_kv++;
    g_kv_str(&kv, "tokenizer.chat_template", "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"); n_kv++;
#define T(nm, a, b, ty) do { snprintf(t[nt].name, sizeof t[nt].name, "%s", nm); t[nt].ne0 = a; t[nt].ne1 = b; t[nt].ne2 = 1; t[nt].type = ty; nt++; } while (0)
    T("token_embd.weight", E, V, SRTI_TYPE_Q8_0);
    T("output_norm.weight", E, 1, SRTI_TYPE_F32);
    T("output.weight", E, V, bpe ? SRTI_TYPE_F16 : SRTI_TYPE_Q4_0);
    T("blk.0.attn_norm.weight", E, 1, SRTI_TYPE_F32);
    T("blk.0.ffn_norm.weight", E, 1, SRTI_TYPE_F32);
    for (i = 0; i < 7; i++) {
        char nm[48];
        if (phi3 && (i == 1 || i == 2 || i == 4)) continue;   /* in attn_qkv, ffn_up */
        snprintf(nm, sizeof nm, "blk.0.%s.weight", phi3 && i == 0 ? "attn_qkv" : blk[i]);
        T(nm, i == 6 ? F : E, (i == 1 || i == 2 ? KV : i == 4 || i == 5 ? F : E) + (phi3 && i == 0 ? 2 * KV : phi3 && i == 5 ? F : 0),
          types[(i + bpe) % 7]);
    }
    if (phi3) { T("rope_factors_long.weight", 4, 1, SRTI_TYPE_F32); T("rope_factors_short.weight", 4, 1, SRTI_TYPE_F32); }
#undef T
    rc = g_write(dir, name, &kv, (uint64_t)n_kv, t, nt, 1);
    free(kv.p);
    return rc;
}

/* A mixture of experts of 1 layer, 4 experts (2 used) of width 32 in llama.cpp's 3-D
   ffn_{gate,up,down}_exps tensors, the router, a byte-level BPE vocabulary (srt-pack packs it).
   qwen3moe: experts Q8_0, Q4_0 ([32, 32, 4]) and F16, per-head q/k norms. gpt-oss (oss): experts
   MXFP4 with their 2-D biases [width, 4], the router's bias, q and output biases, sinks, the FFN norm
   as post_attention_norm, a window and YaRN. */
static int g_moe(const char *dir, int oss) {
    static const char *const kinds[3] = {"gate", "up", "down"};
    static const uint32_t types[3] = {SRTI_TYPE_Q8_0, SRTI_TYPE_Q4_0, SRTI_TYPE_F16};
    const uint64_t E = 32, FE = 32, V = 64;
    const char *arch = oss ? "gpt-oss" : "qwen3moe", *tokens[64];
    char names[64][8], nm[48], key[96];
    fz_buf kv = {NULL, 0, 0};
    g_tensor t[24];
    int nt = 0, i, rc, n_kv = 0;
#define K(s) (snprintf(key, sizeof key, "%s." s, arch), key)
    g_kv_str(&kv, "general.architecture", arch); n_kv++;
    g_kv_u32(&kv, K("context_length"), 128); n_kv++;
    g_kv_u32(&kv, K("embedding_length"), (uint32_t)E); n_kv++;
    g_kv_u32(&kv, K("feed_forward_length"), 96); n_kv++;
    g_kv_u32(&kv, K("expert_feed_forward_length"), (uint32_t)FE); n_kv++;
    g_kv_u32(&kv, K("expert_count"), 4); n_kv++;
    g_kv_u32(&kv, K("expert_used_count"), 2); n_kv++;
    g_kv_u32(&kv, K("block_count"), 1); n_kv++;
    g_kv_u32(&kv, K("attention.head_count"), 2); n_kv++;
    g_kv_u32(&kv, K("attention.head_count_kv"), 1); n_kv++;
    g_kv_u32(&kv, K("attention.key_length"), 16); n_kv++;
    if (oss) {
        g_kv_u32(&kv, K("attention.sliding_window"), 8); n_kv++;
        g_kv_str(&kv, K("rope.scaling.type"), "yarn"); n_kv++;
        g_kv_f32(&kv, K("rope.scaling.factor"), 32.0f); n_kv++;
        g_kv_u32(&kv, K("rope.scaling.original_context_length"), 64); n_kv++;
    } else {
        g_str(&kv, K("expert_weights_norm")); fz_u32(&kv, 7); fz_u8(&kv, 1); n_kv++;
        g_kv_f32(&kv, K("attention.layer_norm_rms_epsilon"), 1e-6f); n_kv++;
    }
#undef K
    for (i = 0; i < 64; i++) { snprintf(names[i], sizeof names[i], "%c%c", 'a' + i % 26, i < 26 ? 0 : 'a' + i / 26); tokens[i] = names[i]; }
    g_kv_str(&kv, "tokenizer.ggml.model", "gpt2"); n_kv++;
    g_kv_str(&kv, "tokenizer.ggml.pre", oss ? "gpt-4o" : "qwen2"); n_kv++;
    g_kv_strs(&kv, "tokenizer.ggml.tokens", tokens, 64); n_kv++;
    {
        static const char *const merges[] = {"a b", "a c"};   /* "ab" and "ac" are tokens 26 and 52 */
        g_kv_strs(&kv, "tokenizer.ggml.merges", merges, 2); n_kv++;
    }
#define T(nm_, a, b, c, ty) do { snprintf(t[nt].name, sizeof t[nt].name, "%s", nm_); t[nt].ne0 = a; t[nt].ne1 = b; t[nt].ne2 = c; t[nt].type = ty; nt++; } while (0)
    T("token_embd.weight", E, V, 1, SRTI_TYPE_Q8_0);
    if (oss) T("output.weight", E, V, 1, SRTI_TYPE_Q8_0);
    T("output_norm.weight", E, 1, 1, SRTI_TYPE_F32);
    T("blk.0.attn_norm.weight", E, 1, 1, SRTI_TYPE_F32);
    T("blk.0.attn_q.weight", E, 32, 1, SRTI_TYPE_F16);
    T("blk.0.attn_k.weight", E, 16, 1, SRTI_TYPE_F16);
    T("blk.0.attn_v.weight", E, 16, 1, SRTI_TYPE_Q8_0);
    T("blk.0.attn_output.weight", 32, E, 1, oss ? SRTI_TYPE_Q8_0 : SRTI_TYPE_Q4_0);
    T("blk.0.ffn_gate_inp.weight", E, 4, 1, SRTI_TYPE_F32);
    if (oss) {
        T("blk.0.attn_q.bias", 32, 1, 1, SRTI_TYPE_F32);
        T("blk.0.attn_output.bias", E, 1, 1, SRTI_TYPE_F32);
        T("blk.0.attn_sinks.weight", 2, 1, 1, SRTI_TYPE_F32);
        T("blk.0.post_attention_norm.weight", E, 1, 1, SRTI_TYPE_F32);
        T("blk.0.ffn_gate_inp.bias", 4, 1, 1, SRTI_TYPE_F32);
    } else {
        T("blk.0.attn_q_norm.weight", 16, 1, 1, SRTI_TYPE_F32);
        T("blk.0.attn_k_norm.weight", 16, 1, 1, SRTI_TYPE_F32);
        T("blk.0.ffn_norm.weight", E, 1, 1, SRTI_TYPE_F32);
    }
    for (i = 0; i < 3; i++) {
        snprintf(nm, sizeof nm, "blk.0.ffn_%s_exps.weight", kinds[i]);
        T(nm, i == 2 ? FE : E, i == 2 ? E : FE, 4, oss ? SRTI_TYPE_MXFP4 : types[i]);
        if (!oss) continue;
        snprintf(nm, sizeof nm, "blk.0.ffn_%s_exps.bias", kinds[i]);
        T(nm, i == 2 ? E : FE, 4, 1, SRTI_TYPE_F32);
    }
#undef T
    rc = g_write(dir, oss ? "tiny-gpt-oss.gguf" : "tiny-qwen3moe.gguf", &kv, (uint64_t)n_kv, t, nt, 1);
    free(kv.p);
    return rc;
}

static int g_zoo(const char *dir) {
    fz_buf kv = {NULL, 0, 0};
    g_tensor t[48];
    int nt = 0, rc;
    uint32_t ty, bv, bb;
    g_kv_str(&kv, "general.architecture", "zoo");
    for (ty = 0; ty < 48; ty++) {
        if (!srti_type_block(ty, &bv, &bb)) continue;
        snprintf(t[nt].name, sizeof t[nt].name, "type.%s", srti_type_name(ty));
        t[nt].ne0 = 256; t[nt].ne1 = 2; t[nt].ne2 = 1; t[nt].type = ty;
        nt++;
    }
    rc = g_write(dir, "zoo.gguf", &kv, 1, t, nt, 0);
    free(kv.p);
    return rc;
}

static int g_exaone4(const char *dir) {   /* the keys only: srti_check_llama then wants tensors */
    fz_buf kv = {NULL, 0, 0};
    int l, rc;
    g_kv_str(&kv, "general.architecture", "exaone4");
    g_kv_u32(&kv, "exaone4.block_count", 64);
    g_kv_u32(&kv, "exaone4.attention.sliding_window", 4096);
    g_str(&kv, "exaone4.attention.sliding_window_pattern"); fz_u32(&kv, 9); fz_u32(&kv, 7); fz_u64(&kv, 64);   /* an array of 64 bools */
    for (l = 0; l < 64; l++) fz_u8(&kv, l % 4 < 3);
    rc = g_write(dir, "exaone4-keys.gguf", &kv, 4, NULL, 0, 0);
    free(kv.p);
    return rc;
}

static int fz_make_seeds(const char *dir) {
    /* two headers alone: version 3 with no tensors and no keys, and with counts far past the file */
    static const unsigned char empty[24] = {'G', 'G', 'U', 'F', 3};
    static const unsigned char huge[24] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
                                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    size_t n;
    unsigned char *p;
    if (fz_seed(dir, "empty.gguf", empty, sizeof empty) || fz_seed(dir, "huge-counts.gguf", huge, sizeof huge)) return 1;
    if (g_llama(dir, "tiny-spm.gguf", 0, 0) || g_llama(dir, "tiny-bpe.gguf", 1, 0) || g_llama(dir, "tiny-phi3.gguf", 0, 1) || g_moe(dir, 0) || g_zoo(dir) || g_exaone4(dir) || g_moe(dir, 1)) return 1;
    p = fz_read_file("../shared/models/stories260K/stories260K.gguf", &n);
    if (p) { int rc = fz_seed(dir, "stories260K.gguf", p, n); free(p); if (rc) return 1; }
    return 0;
}
