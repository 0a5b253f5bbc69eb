/* fuzz_srt.c - fuzz target for the .srt model loader (sparsert.h srt_model_load).

   The input is written to a temporary file and loaded (mmap or copy, by the input's size). A file
   that loads is then used: model info and metadata, tokenizing a short text (every id must be in
   range), a session with a small context fed a few tokens, two sampled tokens and the chat
   template; so that a header the loader should have refused shows up as a crash in the forward
   pass. Build and run: see tests/fuzz_common.h and `./build.sh fuzz`.
   Seeds (--seeds DIR): tests/tiny_model.h's random-weight model in every weight format, a qwen3
   one (q/k norms) in q8, a phi3 one (LongRoPE factors) in q4, smollm3 (a NoPE layer) and gemma
   (Gemma 1) in q8, granite (multipliers) in q4, gemma2 (soft caps, sliding window) in q4, gemma3
   (q/k norms, sliding rope base) in q8, qwen3moe (router, 4 experts) in q8, qwen2moe (with a
   shared expert) in q4, granitemoe (multipliers, an ungated shared expert) in q8, olmo2 (output norms
   only, q/k norms of all heads) in q4, olmoe in q8 and exaone4 (output norms only, a sliding layer, a
   NoPE one) in q4. */
#define FZ_NAME "fuzz_srt"
#define FZ_PER_SEED 250
#define FZ_DICT {"SRT", "llama.", "tokenizer.ggml.", "general.architecture", "blk.0.attn_q.weight", "token_embd.weight", \
                 "output.weight", "llama.context_length", "llama.attention.head_count_kv", "qwen3", "attn_q_norm.weight", \
                 "phi3", "longrope", "rope_factors_long.weight", "phi3.rope.scaling.attn_factor", \
                 "gemma2", "gemma3", "attention.sliding_window", "attn_logit_softcapping", "post_ffw_norm.weight", \
                 "qwen3moe", "qwen3moe.expert_count", "qwen2moe", "ffn_gate_inp_shexp.weight", "expert_shared_feed_forward_length", \
                 "smollm3", "smollm3.no_rope_layer_step", "granite", "granite.logit_scale", "granitemoe", "olmo2", "olmoe", "exaone4", "minicpm", "yarn", "rope.scaling.yarn_ext_factor", "rope.scaling.yarn_attn_factor", "post_attention_norm.weight", "qwen3moe.expert_used_count", "blk.0.ffn_gate_inp.weight", "blk.1.ffn_down.3.weight", \
                 "\xff\xff\xff\xff", "\0\0\0\0", NULL}
#include "fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tiny_model.h"

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }

/* Writes the input with its header and index CRC-32s made right (when the header says where the
   index is and it lies inside the input), so that mutations reach the parser behind the checksums
   (the checksum tests are in test_core). */
static int fz_fix_checksums(const char *path, const unsigned char *data, size_t size) {
    static srt__crc32 crc;
    unsigned char *p;
    int ok;
    if (size < 128 || memcmp(data, "SRTM", 4) != 0) return fz_write_file(path, data, size);
    if (!crc.table[1]) srt__crc32_init(&crc);
    p = (unsigned char *)malloc(size);
    if (!p) return 0;
    memcpy(p, data, size);
    {
        uint64_t mo = srt__get_le(p + 16, 8), ms = srt__get_le(p + 24, 8), dof = srt__get_le(p + 32, 8), ds = srt__get_le(p + 40, 8);
        if (mo <= size && ms <= size - mo && dof <= size && ds <= size - dof) {
            uint32_t c = srt__crc32_update(&crc, 0, p + mo, ms);
            srt__put_le(p + 60, srt__crc32_update(&crc, c, p + dof, ds), 4);
        }
        srt__put_le(p + 124, srt__crc32_update(&crc, 0, p, 124), 4);
    }
    ok = fz_write_file(path, p, size);
    free(p);
    return ok;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static srt_pool *pool;
    char path[512];
    srt_model *m = NULL;
    srt_model_desc md;
    if (!pool) {
        srt_pool_desc pd;
        memset(&pd, 0, sizeof pd);
        pd.n_threads = 1;
        srt_set_log(fz_quiet, NULL);
        if (srt_pool_create(&pd, &pool) != SRT_OK) abort();
    }
    fz_tmp_path(path, sizeof path, "model.srt");
    if (!fz_fix_checksums(path, data, size)) abort();
    memset(&md, 0, sizeof md);
    md.pool = pool;
    md.load = (size & 1) ? SRT_LOAD_MMAP : SRT_LOAD_COPY;
    md.isa = (size & 2) ? SRT_ISA_PORTABLE : SRT_ISA_AUTO;
    if (srt_model_load(path, &md, &m) == SRT_OK) {
        srt_model_info info;
        const char *s;
        uint32_t u;
        float f;
        int32_t ids[64];
        int n = 0, i, nv;
        srt_session *ss = NULL;
        srt_session_desc sd;
        srt_chat_template t;
        memset(&info, 0, sizeof info);
        srt_model_get_info(m, &info);
        nv = srt_vocab_size(m);
        if (info.n_vocab <= 0 || info.n_layer <= 0 || info.n_embd <= 0) { fprintf(stderr, "loaded with empty dimensions\n"); abort(); }
        srt_model_meta_str(m, "general.name", &s);
        srt_model_meta_u32(m, "llama.context_length", &u);
        srt_model_meta_f32(m, "llama.rope.freq_base", &f);
        if (srt_chat_template_from_model(m, NULL, &t) != SRT_OK) { fprintf(stderr, "no chat template\n"); abort(); }
        if (nv > 0 && srt_tokenize(m, "Hello world, h\xc3\xa9llo \xe2\x82\xac 12 <s>\xff", 27, 0, ids, 64, &n) == SRT_OK) {
            if (n < 0 || n > 64) { fprintf(stderr, "token count %d\n", n); abort(); }
            for (i = 0; i < n; i++) {
                char b[64];
                if (ids[i] < 0 || ids[i] >= nv) { fprintf(stderr, "token id %d out of range (vocab %d)\n", ids[i], nv); abort(); }
                srt_token_bytes(m, ids[i], b, sizeof b);
                if (!srt_token_piece(m, ids[i])) { fprintf(stderr, "no piece for token %d\n", ids[i]); abort(); }
            }
        }
        if (n == 0) { ids[0] = 0; n = 1; }
        if (n > 4) n = 4;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 8;
        sd.kv_type = (size & 4) ? SRT_KV_F32 : (size & 8) ? SRT_KV_Q8 : SRT_KV_F16;
        if (srt_session_create(m, &sd, &ss) == SRT_OK) {
            int32_t tok;
            if (srt_session_feed(ss, ids, n) == SRT_OK) {
                for (i = 0; i < 2; i++) {
                    if (srt_session_next(ss, &tok) != SRT_OK) break;
                    if (tok < 0 || tok >= info.n_vocab) { fprintf(stderr, "sampled token %d out of range\n", tok); abort(); }
                }
            }
            srt_session_destroy(ss);
        }
        srt_model_free(m);
    } else if (m) { fprintf(stderr, "failed load left a model\n"); abort(); }
    unlink(path);
    return 0;
}

/* Two malformed files, made here rather than kept in the repository: the header of a tiny model
   alone (the rest cut off), and a tiny q8 model a third of whose norm weights are NaN (srt_writer refuses to
   write NaN, so they are written as a sentinel and patched; the harness fixes the checksums). The
   NaN model is 0 mod 4 bytes long, so the harness runs it at the best ISA level: NaN activations
   once made the AVX2 quantizer's code sums overflow (test_kernels checks the quantizer itself). */
static int fz_malformed_seeds(const char *dir) {
    static const float sentinel = 1234.5f;
    char path[1024];
    unsigned char *p;
    size_t n = 0, i;
    int k, rc;
    snprintf(path, sizeof path, "%s/tiny-q8.srt", dir);   /* written by fz_make_seeds before */
    if (!(p = fz_read_file(path, &n)) || n < SRT__HEADER_SIZE) { free(p); fprintf(stderr, "fuzz_srt: cannot read %s\n", path); return 1; }
    rc = fz_seed(dir, "header-only.srt", p, SRT__HEADER_SIZE);
    free(p);
    p = NULL;
    if (rc) return 1;
    snprintf(path, sizeof path, "%s/nan-norm-weights.srt", dir);
    tiny_norm_value = sentinel;
    for (k = 0, n = 2; k < 4 && (n & 3) != 0; k++) {   /* a name one byte longer moves the size by 1 .. 4 (padding) */
        static const char *const names[4] = {"tiny-nan", "tiny-nan1", "tiny-nan12", "tiny-nan123"};
        tiny_name = names[k];
        free(p); p = NULL;
        if (!write_tiny_model_arch(path, "llama", NULL, SRT_Q8, NULL, NULL, 1) || !(p = fz_read_file(path, &n))) n = 2;
    }
    tiny_norm_value = 0.0f; tiny_name = "tiny-test";
    if (!p || (n & 3) != 0) { free(p); fprintf(stderr, "fuzz_srt: cannot write the NaN seed\n"); return 1; }
    for (i = 0, k = 0; i + 4 <= n; i += 4)
        if (!memcmp(p + i, &sentinel, 4)) {   /* every third NaN, the others 1: groups with some NaN activations */
            const float v = k++ % 3 ? 1.0f : NAN;
            memcpy(p + i, &v, 4);
        }
    rc = k < 3 * T_E ? 1 : fz_seed(dir, "nan-norm-weights.srt", p, n);   /* the output norm and 2 per layer */
    free(p);
    return rc;
}

static int fz_make_seeds(const char *dir) {
    static const srt_format fmts[] = {SRT_F16, SRT_BF16, SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_Q1, SRT_SB_BF16, SRT_SB_Q8, SRT_SB_Q4, SRT_S4X1, SRT_TCSL, SRT_FP4};
    size_t i;
    for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tiny-%s.srt", dir, srt_format_name(fmts[i]));
        if (!write_tiny_model(path, fmts[i], NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
    }
    {   /* qwen3: its q/k norms bound and used */
        char path[1024];
        snprintf(path, sizeof path, "%s/tiny-qwen3-q8.srt", dir);
        if (!write_tiny_model_arch(path, "qwen3", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-phi3-q4.srt", dir);   /* phi3: the LongRoPE factors bound and used */
        if (!write_tiny_model_arch(path, "phi3", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-gemma-q8.srt", dir);   /* gemma: scaled embeddings, GELU, no post norms */
        if (!write_tiny_model_arch(path, "gemma", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-smollm3-q8.srt", dir);   /* smollm3: a layer without RoPE, its step key */
        if (!write_tiny_model_arch(path, "smollm3", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-granite-q4.srt", dir);   /* granite: the four multipliers */
        if (!write_tiny_model_arch(path, "granite", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-gemma2-q4.srt", dir);   /* gemma2: soft caps, sliding layers */
        if (!write_tiny_model_arch(path, "gemma2", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-gemma3-q8.srt", dir);   /* gemma3: q/k and post norms, the sliding layers' rope */
        if (!write_tiny_model_arch(path, "gemma3", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-qwen2moe-q4.srt", dir);   /* qwen2moe: the shared expert, its gate and width */
        if (!write_tiny_model_arch(path, "qwen2moe", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-granitemoe-q8.srt", dir);   /* granitemoe: multipliers, experts, a shared expert without a gate */
        if (!write_tiny_model_arch(path, "granitemoe", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-olmo2-q4.srt", dir);   /* olmo2: output norms only, q/k norms of all heads */
        if (!write_tiny_model_arch(path, "olmo2", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-olmoe-q8.srt", dir);   /* olmoe: those q/k norms with experts */
        if (!write_tiny_model_arch(path, "olmoe", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-exaone4-q4.srt", dir);   /* exaone4: output norms only, per-head q/k norms, a sliding layer, a NoPE one */
        if (!write_tiny_model_arch(path, "exaone4", NULL, SRT_Q4, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
        snprintf(path, sizeof path, "%s/tiny-qwen3moe-q8.srt", dir);   /* qwen3moe: the router, experts and their keys */
        if (!write_tiny_model_arch(path, "qwen3moe", NULL, SRT_Q8, NULL, NULL, 1)) { fprintf(stderr, "fuzz_srt: cannot write %s\n", path); return 1; }
    }
    return fz_malformed_seeds(dir);
}
