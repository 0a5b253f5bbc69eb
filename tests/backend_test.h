/* backend_test.h - shared by the GPU backends' tests (test_cuda.cu, test_sycl.cpp): random tiny
   models, a CPU session against a device session step by step, and the stories260K golden check.
   C++; include after sparsert.h and tests/testing.h; main sets gpu and gpu_name. */
#ifndef SRT_BACKEND_TEST_H
#define SRT_BACKEND_TEST_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static srt_backend *gpu;         /* the backend under test, set by the test's main */
static const char *gpu_name;     /* "cuda", "cuda-emu", "sycl": in messages and file names */
static int gpu_kv_q8;            /* the backend has a Q8 KV cache (set by the test's main) */

/* A random llama/qwen2/qwen3/phi3 model with a byte vocabulary. opts: biases (qwen2), rope_scaling
   llama3 (llama3 = 1) or yarn (2: factor 8 from 64 positions, base 1e4), rope_dim < head_dim; qwen3 has its q/k norms (head_dim each), phi3 LongRoPE (original
   context 64: sessions above it take the long factors; attention factor 1.19). Integer weights in
   groups of `group` columns (0: 32). */
static int write_model(const char *path, const char *arch, srt_format fmt, int E, int F, int L, int H, int KVH, int head_dim,
                       int rope_dim, int llama3, int biases, uint64_t seed, uint32_t group = 0) {
    srt_writer *w;
    static char names[256][8];
    const char *tokens[259];
    float scores[259];
    int32_t types[259];
    const int V = 259, Q = H * head_dim, KV = KVH * head_dim;
    char key[128], nm[64];
    std::vector<float> buf((size_t)4096 * 64);
    srt_test_rng = seed;
    if (srt_writer_open(path, &w) != SRT_OK) return 0;
    srt_writer_meta_str(w, "general.architecture", arch);
#define KEY(s) (snprintf(key, sizeof key, "%s." s, arch), key)
    srt_writer_meta_u32(w, KEY("context_length"), 256);
    srt_writer_meta_u32(w, KEY("embedding_length"), (uint32_t)E);
    srt_writer_meta_u32(w, KEY("feed_forward_length"), (uint32_t)F);
    srt_writer_meta_u32(w, KEY("block_count"), (uint32_t)L);
    srt_writer_meta_u32(w, KEY("attention.head_count"), (uint32_t)H);
    srt_writer_meta_u32(w, KEY("attention.head_count_kv"), (uint32_t)KVH);
    srt_writer_meta_u32(w, KEY("attention.key_length"), (uint32_t)head_dim);
    srt_writer_meta_u32(w, KEY("rope.dimension_count"), (uint32_t)rope_dim);
    srt_writer_meta_f32(w, KEY("attention.layer_norm_rms_epsilon"), 1e-5f);
    if (llama3 == 2) {   /* the rope tables the backend receives carry yarn's frequencies and cos / sin scale */
        srt_writer_meta_str(w, KEY("rope.scaling.type"), "yarn");
        srt_writer_meta_f32(w, KEY("rope.scaling.factor"), 8.0f);
        srt_writer_meta_u32(w, KEY("rope.scaling.original_context_length"), 64);
        srt_writer_meta_f32(w, KEY("rope.freq_base"), 10000.0f);
    } else if (llama3) {
        srt_writer_meta_str(w, KEY("rope.scaling.type"), "llama3");
        srt_writer_meta_f32(w, KEY("rope.scaling.factor"), 8.0f);
        srt_writer_meta_u32(w, KEY("rope.scaling.original_context_length"), 64);
        srt_writer_meta_f32(w, KEY("rope.freq_base"), 500000.0f);
    }
    const int phi3 = !strcmp(arch, "phi3");
    if (phi3) {
        srt_writer_meta_str(w, KEY("rope.scaling.type"), "longrope");
        srt_writer_meta_u32(w, KEY("rope.scaling.original_context_length"), 64);
        srt_writer_meta_f32(w, KEY("rope.scaling.attn_factor"), 1.19f);
    }
#undef KEY
    tokens[0] = "<unk>"; types[0] = 2; scores[0] = 0;
    tokens[1] = "<s>"; types[1] = 3; scores[1] = 0;
    tokens[2] = "</s>"; types[2] = 3; scores[2] = 0;
    for (int i = 0; i < 256; i++) { snprintf(names[i], sizeof names[i], "<0x%02X>", i); tokens[3 + i] = names[i]; types[3 + i] = 6; scores[3 + i] = 0; }
    srt_writer_meta_str(w, "tokenizer.ggml.model", "llama");
    srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, tokens, (uint32_t)V);
    srt_writer_meta_arr(w, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, (uint32_t)V);
    srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, (uint32_t)V);
    srt_writer_meta_u32(w, "tokenizer.ggml.bos_token_id", 1);
    srt_writer_meta_u32(w, "tokenizer.ggml.eos_token_id", 2);
    int ok = 1;
    /* tcsl: the matrices pruned to 70% (every 10 weights, 7 zeros), embeddings and output f16 */
#define ADD(name, rows, cols, f, vec) do { \
        for (int i = 0; i < (rows) * (cols); i++) buf[(size_t)i] = (vec) ? 1.0f + 0.2f * srt_test_frand() : srt_test_frand() * 0.4f; \
        if ((f) == SRT_TCSL) for (int i = 0; i < (rows) * (cols); i++) if ((unsigned)i * 2654435761u % 10u < 7u) buf[(size_t)i] = 0.0f; \
        if (ok && srt_writer_add_tensor(w, name, f, (f) >= SRT_Q8 && (f) != SRT_TCSL ? (group ? group : 32u) : 0, (uint64_t)(rows), (uint64_t)(cols), buf.data()) != SRT_OK) ok = 0; \
    } while (0)
    const srt_format efmt = fmt == SRT_TCSL ? SRT_F16 : fmt;
    ADD("token_embd.weight", V, E, efmt, 0);
    ADD("output_norm.weight", 1, E, SRT_F32, 1);
    if (biases) ADD("output.weight", V, E, efmt, 0);   /* untied */
    if (phi3) { ADD("rope_factors_long.weight", 1, rope_dim / 2, SRT_F32, 1); ADD("rope_factors_short.weight", 1, rope_dim / 2, SRT_F32, 1); }
    for (int l = 0; l < L; l++) {
#define LADD(s, rows, cols, f, vec) do { snprintf(nm, sizeof nm, "blk.%d." s, l); ADD(nm, rows, cols, f, vec); } while (0)
        LADD("attn_norm.weight", 1, E, SRT_F32, 1);
        LADD("ffn_norm.weight", 1, E, SRT_F32, 1);
        LADD("attn_q.weight", Q, E, fmt, 0);
        LADD("attn_k.weight", KV, E, fmt, 0);
        LADD("attn_v.weight", KV, E, fmt, 0);
        LADD("attn_output.weight", E, Q, fmt, 0);
        LADD("ffn_gate.weight", F, E, fmt, 0);
        LADD("ffn_up.weight", F, E, fmt, 0);
        LADD("ffn_down.weight", E, F, fmt, 0);
        if (biases) { LADD("attn_q.bias", 1, Q, SRT_F32, 0); LADD("attn_k.bias", 1, KV, SRT_F32, 0); LADD("attn_v.bias", 1, KV, SRT_F32, 0); }
        if (!strcmp(arch, "qwen3")) { LADD("attn_q_norm.weight", 1, head_dim, SRT_F32, 1); LADD("attn_k_norm.weight", 1, head_dim, SRT_F32, 1); }
#undef LADD
    }
#undef ADD
    if (!ok) { srt_writer_abort(w); return 0; }
    return srt_writer_finish(w) == SRT_OK;
}

/* The model twice: on the CPU (1 thread, below AMX: its bf16 GEMM rounds x to two bf16 parts,
   which the backends do not copy) and on the backend under test. 0 (and a failed check) if not. */
static int load_pair(const char *tag, const char *path, srt_model **cpu, srt_model **dev) {
    srt_model_desc md;
    *cpu = *dev = NULL;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    md.isa = srt_isa_best() > SRT_ISA_AVX512 ? SRT_ISA_AVX512 : SRT_ISA_AUTO;
    if (srt_model_load(path, &md, cpu) != SRT_OK) { CHECK(0, "%s: cpu load: %s", tag, srt_last_error()); return 0; }
    md.backend = gpu;
    md.isa = SRT_ISA_AUTO;
    if (srt_model_load(path, &md, dev) != SRT_OK) { CHECK(0, "%s: %s load: %s", tag, gpu_name, srt_last_error()); srt_model_free(*cpu); *cpu = NULL; return 0; }
    return 1;
}

/* Feeds the same tokens to a CPU and a backend session (batches of n_batch), then generates
   n_gen greedy tokens on both. tol = 0: every logits vector must be equal bit for bit, and the
   tokens too; tol > 0: max |difference| <= tol x max |logit| (cuBLAS), tokens not compared.
   Sessions of n_ctx positions (compare_sessions, _tol: 128). */
static void compare_sessions_ctx(const char *tag, const char *path, const int32_t *prompt, int n_prompt, int n_batch, srt_kv_type kv, int n_gen,
                                 double tol, int n_ctx) {
    srt_model *cpu = NULL, *dev = NULL;
    srt_session *sc = NULL, *sd = NULL;
    srt_session_desc sdesc;
    if (!load_pair(tag, path, &cpu, &dev)) return;
    memset(&sdesc, 0, sizeof sdesc);
    sdesc.n_ctx = n_ctx; sdesc.n_batch = n_batch; sdesc.kv_type = kv;
    if (srt_session_create(cpu, &sdesc, &sc) != SRT_OK || srt_session_create(dev, &sdesc, &sd) != SRT_OK) {
        CHECK(0, "%s: sessions: %s", tag, srt_last_error());
    } else {
        srt_model_info info;
        int V, steps = 0, equal = 1, same_tokens = 1;
        double maxd = 0.0, maxl = 0.0;
        srt_model_get_info(dev, &info);
        V = info.n_vocab;
        srt_status a = srt_session_feed(sc, prompt, n_prompt), b = srt_session_feed(sd, prompt, n_prompt);
        CHECK(a == SRT_OK && b == SRT_OK, "%s: prompt of %d tokens fed in batches of %d (backend '%s')%s%s", tag, n_prompt, n_batch, info.backend,
              b == SRT_OK ? "" : ": ", b == SRT_OK ? "" : srt_last_error());
        for (int i = 0; i <= n_gen && a == SRT_OK && b == SRT_OK; i++) {
            const float *lc = srt_session_logits(sc), *ld = srt_session_logits(sd);
            int32_t tc, td;
            if (!lc || !ld) { equal = 0; break; }
            for (int v = 0; v < V; v++) {
                double d = fabs((double)lc[v] - (double)ld[v]);
                if (d > maxd || d != d) maxd = d;
                if (fabs((double)lc[v]) > maxl) maxl = fabs((double)lc[v]);
            }
            if (memcmp(lc, ld, (size_t)V * sizeof(float)) != 0) equal = 0;
            steps++;
            if (i == n_gen) break;
            if (tol > 0.0) {   /* both continue with the CPU's token */
                if (srt_session_next(sc, &tc) != SRT_OK || srt_session_feed(sd, &tc, 1) != SRT_OK) { same_tokens = 0; break; }
                continue;
            }
            if (srt_session_next(sc, &tc) != SRT_OK || srt_session_next(sd, &td) != SRT_OK) { same_tokens = 0; CHECK(0, "%s: next: %s", tag, srt_last_error()); break; }
            if (tc != td) same_tokens = 0;
        }
        if (tol > 0.0) {
            CHECK(steps == n_gen + 1 && same_tokens && maxd <= tol * maxl, "%s: logits of %d steps within %g of max |logit| %g (max |diff| %g)",
                  tag, steps, tol, maxl, maxd);
        } else {
            CHECK(equal && steps == n_gen + 1, "%s: logits of %d steps equal the CPU's bit for bit (max |diff| %g)", tag, steps, maxd);
            CHECK(same_tokens, "%s: %d greedy tokens equal the CPU's", tag, n_gen);
        }
    }
    srt_session_destroy(sc); srt_session_destroy(sd);
    srt_model_free(cpu); srt_model_free(dev);
}
static void compare_sessions_tol(const char *tag, const char *path, const int32_t *prompt, int n_prompt, int n_batch, srt_kv_type kv, int n_gen,
                                 double tol) {
    compare_sessions_ctx(tag, path, prompt, n_prompt, n_batch, kv, n_gen, tol, 128);
}
static void compare_sessions(const char *tag, const char *path, const int32_t *prompt, int n_prompt, int n_batch, srt_kv_type kv, int n_gen) {
    compare_sessions_tol(tag, path, prompt, n_prompt, n_batch, kv, n_gen, 0.0);
}

/* Session state between the CPU and the device (srt_session_state_save / _load through
   srt_backend.kv_copy): a device session's state loads into another device session and into a CPU
   session, a CPU session's into a device session, and each goes on as the saved one does, logits
   bit for bit and the same sampled tokens (for a model whose device logits equal the CPU's), with
   a KV cache of type kv. Refused: a backend without kv_copy, a state of another KV type, a state
   with pruned rows. */
static std::vector<unsigned char> state_bytes(srt_session *s) {
    size_t n = 0;
    std::vector<unsigned char> b;
    if (srt_session_state_save(s, NULL, 0, &n) != SRT_OK) return b;
    b.resize(n);
    if (srt_session_state_save(s, b.data(), n, &n) != SRT_OK) b.clear();
    return b;
}
static int go_on_alike(srt_session *a, srt_session *b, int V, int n) {
    for (int i = 0; i < n; i++) {
        const float *la = srt_session_logits(a), *lb = srt_session_logits(b);
        int32_t ta = -1, tb = -2;
        if (!la || !lb || memcmp(la, lb, (size_t)V * sizeof(float)) != 0) return 0;
        if (srt_session_next(a, &ta) != SRT_OK || srt_session_next(b, &tb) != SRT_OK || ta != tb) return 0;
    }
    return 1;
}
static void check_state(const char *tag0, const char *path, const int32_t *prompt, srt_kv_type kv) {
    const srt_kv_type other = kv == SRT_KV_Q8 ? SRT_KV_F16 : SRT_KV_Q8;
    char tag[160];
    snprintf(tag, sizeof tag, "%s, %s KV", tag0, kv == SRT_KV_Q8 ? "q8" : kv == SRT_KV_F16 ? "f16" : "f32");
    srt_model *cpu = NULL, *dev = NULL;
    srt_session_desc sd;
    srt_session *d1 = NULL, *d2 = NULL, *c1 = NULL, *c2 = NULL;
    int32_t t;
    if (!load_pair(tag, path, &cpu, &dev)) return;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 96; sd.n_batch = 16; sd.sampler.temperature = 0.8f; sd.sampler.seed = 7; sd.kv_type = kv;
    srt_model_info info;
    srt_model_get_info(dev, &info);
    const int V = info.n_vocab;
    if (srt_session_create(dev, &sd, &d1) == SRT_OK && srt_session_create(cpu, &sd, &c1) == SRT_OK && srt_session_create(cpu, &sd, &c2) == SRT_OK &&
        (sd.n_ctx = 64, srt_session_create(dev, &sd, &d2)) == SRT_OK &&
        srt_session_feed(d1, prompt, 40) == SRT_OK && srt_session_next(d1, &t) == SRT_OK && srt_session_next(d1, &t) == SRT_OK) {
        std::vector<unsigned char> st = state_bytes(d1);
        CHECK(!st.empty(), "%s: the %s session's state saved (%zu bytes): %s", tag, gpu_name, st.size(), st.empty() ? srt_last_error() : "");
        srt_status l2 = srt_session_state_load(d2, st.data(), st.size()), l1 = l2 == SRT_OK ? srt_session_state_load(c1, st.data(), st.size()) : l2;
        CHECK(l1 == SRT_OK, "%s: loaded into another %s session and a CPU session%s%s", tag, gpu_name, l1 == SRT_OK ? "" : ": ", l1 == SRT_OK ? "" : srt_last_error());
        CHECK(state_bytes(d2) == st && state_bytes(c1) == st, "%s: both save the same bytes again", tag);
        CHECK(go_on_alike(d1, d2, V, 10), "%s: the second %s session goes on as the first (10 tokens, logits bit for bit)", tag, gpu_name);
        CHECK(srt_session_state_load(d2, st.data(), st.size()) == SRT_OK && go_on_alike(c1, d2, V, 10) &&
              memcmp(srt_session_tokens(c1), srt_session_tokens(d1), sizeof(int32_t) * (size_t)srt_session_pos(d1)) == 0,
              "%s: so does the CPU session", tag);
        /* the same prompt evaluated on the CPU: the same state, and it goes on alike on the device */
        if (srt_session_feed(c2, prompt, 40) == SRT_OK && srt_session_next(c2, &t) == SRT_OK && srt_session_next(c2, &t) == SRT_OK) {
            std::vector<unsigned char> cs = state_bytes(c2);
            CHECK(cs == st, "%s: the CPU session that read the same prompt saves the same bytes as the %s one", tag, gpu_name);
            CHECK(srt_session_state_load(d2, cs.data(), cs.size()) == SRT_OK && go_on_alike(c2, d2, V, 10),
                  "%s: the CPU's state loaded into a %s session goes on as the CPU session", tag, gpu_name);
        } else CHECK(0, "%s: CPU prompt: %s", tag, srt_last_error());
        {   /* refusals */
            srt_status (*kv_copy)(srt_backend *, void *, int, int, int, void *, int, char *, size_t) = gpu->kv_copy;
            size_t n = 0;
            gpu->kv_copy = NULL;
            CHECK(srt_session_state_save(d1, NULL, 0, &n) == SRT_ERR_UNSUPPORTED && srt_session_state_load(d2, st.data(), st.size()) == SRT_ERR_UNSUPPORTED &&
                  strstr(srt_last_error(), "kv_copy"), "%s: a backend without kv_copy refuses: %s", tag, srt_last_error());
            gpu->kv_copy = kv_copy;
            srt_session *q = NULL;
            const char *other_name = other == SRT_KV_Q8 ? "q8" : "f16";
            sd.kv_type = other; sd.n_ctx = 96;
            if (srt_session_create(cpu, &sd, &q) == SRT_OK && srt_session_feed(q, prompt, 10) == SRT_OK) {
                std::vector<unsigned char> qs = state_bytes(q);
                CHECK(srt_session_state_load(d2, qs.data(), qs.size()) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), other_name),
                      "%s: a state of an %s KV cache into the %s session is refused: %s", tag, other_name, gpu_name, srt_last_error());
            } else CHECK(0, "%s: an %s CPU session: %s", tag, other_name, srt_last_error());
            srt_session_destroy(q); q = NULL;
            sd.kv_type = SRT_KV_F16; sd.kv_sparsity_k = sd.kv_sparsity_v = 0.5f;   /* (pruned rows are F16: for an F16 session) */
            if (kv == SRT_KV_F16 && srt_session_create(cpu, &sd, &q) == SRT_OK && srt_session_feed(q, prompt, 10) == SRT_OK) {
                std::vector<unsigned char> ps = state_bytes(q);
                CHECK(srt_session_state_load(d2, ps.data(), ps.size()) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "kv_sparsity"),
                      "%s: a state with pruned rows into a %s session is refused: %s", tag, gpu_name, srt_last_error());
            } else if (kv == SRT_KV_F16) CHECK(0, "%s: a sparse CPU session: %s", tag, srt_last_error());
            srt_session_destroy(q);
        }
    } else CHECK(0, "%s: sessions for the state checks: %s", tag, srt_last_error());
    srt_session_destroy(d1); srt_session_destroy(d2); srt_session_destroy(c1); srt_session_destroy(c2);
    srt_model_free(cpu); srt_model_free(dev);
}

#define SM SRT_SHARED "/models/stories260K/"
#define SG SRT_SHARED "/golden/"
/* stories260K packed f32, q8 and q4 through the backend: the golden greedy ids of ../shared/golden. */
/* Speculative decoding on the device (srt_backend.forward_rows): greedy tokens drawn through
   srt_session_next_draft with proposals right, wrong and mixed (1 to 6 a call) are the CPU's plain
   greedy tokens; the logits after them, and after one more token (the device rows of the proposals
   not kept are forgotten), equal the CPU's bit for bit (a model whose device logits equal the
   CPU's). A backend without forward_rows refuses with SRT_ERR_UNSUPPORTED. */
static void check_spec(const char *tag, const char *path, const int32_t *prompt, int n_prompt, srt_kv_type kv) {
    enum { N = 40, AHEAD = 8 };
    srt_model *cpu = NULL, *dev = NULL;
    srt_session *sc = NULL, *sd = NULL, *sc2 = NULL;
    srt_session_desc sdesc;
    srt_model_info info;
    int32_t ref[N + AHEAD], got[N + AHEAD], draft[AHEAD], out[AHEAD + 1];
    int n_got = 0, evals = 0, kept = 0, proposed = 0, ok = 1;
    if (!load_pair(tag, path, &cpu, &dev)) return;
    srt_model_get_info(dev, &info);
    memset(&sdesc, 0, sizeof sdesc);
    sdesc.n_ctx = 128; sdesc.n_batch = 16; sdesc.kv_type = kv;
    if (srt_session_create(cpu, &sdesc, &sc) != SRT_OK || srt_session_create(dev, &sdesc, &sd) != SRT_OK ||
        srt_session_create(cpu, &sdesc, &sc2) != SRT_OK || srt_session_feed(sc, prompt, n_prompt) != SRT_OK ||
        srt_session_feed(sd, prompt, n_prompt) != SRT_OK) {
        CHECK(0, "%s: sessions: %s", tag, srt_last_error());
        ok = 0;
    }
    for (int i = 0; ok && i < N + AHEAD; i++) if (srt_session_next(sc, &ref[i]) != SRT_OK) { CHECK(0, "%s: cpu next: %s", tag, srt_last_error()); ok = 0; }
    if (ok && !gpu->forward_rows) {
        int n_out = 0;
        srt_status st = srt_session_next_draft(sd, ref, 2, out, &n_out);
        CHECK(st == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "forward_rows"), "%s: %s has no forward_rows: speculative decoding refused (%s)",
              tag, gpu_name, srt_last_error());
        ok = 0;
    }
    while (ok && n_got < N) {
        const int k = 1 + evals % 6, pattern = evals % 3;   /* all right, all wrong, the middle one wrong */
        int n_out = 0;
        for (int j = 0; j < k; j++) {
            draft[j] = ref[n_got + j];
            if (pattern == 1 || (pattern == 2 && j == k / 2)) draft[j] = (draft[j] + 1) % info.n_vocab;
        }
        if (srt_session_next_draft(sd, draft, k, out, &n_out) != SRT_OK) { CHECK(0, "%s: next_draft: %s", tag, srt_last_error()); ok = 0; break; }
        memcpy(got + n_got, out, (size_t)n_out * sizeof(int32_t));
        n_got += n_out; evals++; proposed += k; kept += n_out - 1;
    }
    if (ok) {
        const int same = memcmp(got, ref, (size_t)n_got * sizeof(int32_t)) == 0;
        const float *lc, *ld;
        int32_t tc = -1, td = -2;
        CHECK(same, "%s: %d greedy tokens through srt_session_next_draft on the %s device (%d evaluations, %d of %d proposals kept) are the CPU's plain ones",
              tag, n_got, gpu_name, evals, kept, proposed);
        srt_session_feed(sc2, prompt, n_prompt);
        srt_session_feed(sc2, got, n_got);
        lc = srt_session_logits(sc2); ld = srt_session_logits(sd);   /* the device evaluates the last drawn token here */
        CHECK(lc && ld && memcmp(lc, ld, (size_t)info.n_vocab * sizeof(float)) == 0, "%s: the logits after them equal the CPU's bit for bit", tag);
        srt_session_next(sc2, &tc); srt_session_next(sd, &td);
        lc = srt_session_logits(sc2); ld = srt_session_logits(sd);
        CHECK(tc == td && lc && ld && memcmp(lc, ld, (size_t)info.n_vocab * sizeof(float)) == 0,
              "%s: and one token later (the KV rows of the proposals not kept are forgotten)", tag);
    }
    srt_session_destroy(sc); srt_session_destroy(sd); srt_session_destroy(sc2);
    srt_model_free(cpu); srt_model_free(dev);
}

static void check_stories(void) {
    static const struct { const char *name, *opts; int n_exact; } fmts[] = {
        {"f32", "--weights f32", 0}, {"q8", "--weights q8", 32}, {"q4", "--weights q4 --group 32", 2}};
    static const struct { const char *file, *text; } prompts[] = {
        {"once_upon_a_time", "Once upon a time"}, {"lily_red_ball", "Lily had a red ball"}, {"empty", ""}};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        char cmd[1024], path[256], tag[64];
        srt_model *dev = NULL;
        srt_model_desc md;
        snprintf(path, sizeof path, "build/tmp/%s_stories_%s.srt", gpu_name, fmts[f].name);
        snprintf(cmd, sizeof cmd, "build/srt-pack %s --tokenizer " SM "tok512.bin " SM "stories260K.bin %s > build/tmp/%s_pack.log 2>&1", fmts[f].opts, path, gpu_name);
        if (system(cmd) != 0) { CHECK(0, "stories260K %s: srt-pack failed (build it with ./build.sh)", fmts[f].name); continue; }
        memset(&md, 0, sizeof md);
        md.backend = gpu;
        if (srt_model_load(path, &md, &dev) != SRT_OK) { CHECK(0, "stories260K %s: %s load: %s", fmts[f].name, gpu_name, srt_last_error()); continue; }
        for (size_t p = 0; p < sizeof prompts / sizeof prompts[0]; p++) {
            int32_t gold[512], got[512], toks[64];
            int n_gold, n_prompt = 0, mismatch = -1, limit;
            srt_session *s;
            srt_session_desc sd;
            snprintf(cmd, sizeof cmd, SG "llamacpp_%s.ids.txt", prompts[p].file);
            n_gold = srt_test_read_ids(cmd, gold, 512);
            if (n_gold <= 0) { CHECK(0, "read %s", cmd); continue; }
            srt_tokenize(dev, prompts[p].text, strlen(prompts[p].text), 0, toks, 64, &n_prompt);
            memset(&sd, 0, sizeof sd);
            sd.n_ctx = 512;
            if (srt_session_create(dev, &sd, &s) != SRT_OK) { CHECK(0, "session: %s", srt_last_error()); continue; }
            /* quantized: the golden ids are the f32 model's, only a prefix is expected (as in test_golden): only that is generated */
            limit = fmts[f].n_exact ? n_prompt + fmts[f].n_exact : n_gold;
            if (limit > n_gold) limit = n_gold;
            srt_session_feed(s, toks, n_prompt);
            for (int i = n_prompt; i < limit; i++) if (srt_session_next(s, &got[i]) != SRT_OK) { got[i] = -1; break; }
            for (int i = n_prompt; i < limit; i++) if (got[i] != gold[i]) { mismatch = i; break; }
            snprintf(tag, sizeof tag, "stories260K %s", fmts[f].name);
            CHECK(mismatch < 0, "%s '%s' on the %s device: %s %d generated ids equal the golden ids", tag, prompts[p].text, gpu_name,
                  fmts[f].n_exact ? "the first" : "all", limit - n_prompt);
            if (mismatch >= 0) printf("#   position %d: got %d, golden %d\n", mismatch, got[mismatch], gold[mismatch]);
            srt_session_destroy(s);
        }
        srt_model_free(dev);
        {   /* and the CPU's logits, bit for bit, over a prompt batch and 30 greedy steps */
            int32_t toks[64];
            int n = 0;
            srt_model *cpu = NULL;
            memset(&md, 0, sizeof md);
            if (srt_model_load(path, &md, &cpu) == SRT_OK) {
                srt_tokenize(cpu, "Lily had a red ball", 19, 0, toks, 64, &n);
                srt_model_free(cpu);
                snprintf(tag, sizeof tag, "stories260K %s", fmts[f].name);
                compare_sessions(tag, path, toks, n, 32, SRT_KV_F16, 30);
                if (gpu_kv_q8) {
                    snprintf(tag, sizeof tag, "stories260K %s, q8 KV", fmts[f].name);
                    compare_sessions(tag, path, toks, n, 32, SRT_KV_Q8, 30);
                }
            }
        }
    }
}

#endif
