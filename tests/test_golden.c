/* test_golden.c - stories260K end to end against ../shared/golden (llama2.c and llama.cpp agree):
   packed from the llama2.c v0 and v1 checkpoints and from the GGUF, in f32/f16/bf16/q8/q4 (group
   32)/fp4 (group 32), with 1 and 2 threads: prompt tokens equal llama.cpp's, greedy ids equal the golden ids (q8:
   the first 32 generated, q4 and fp4: the first 2), srt-chat prints the golden texts byte for byte; q8,
   q4 and fp4 stay close to f32 (mean KL divergence over the golden stories: q8 < 0.01, q4 and fp4 < 0.1 nats; the
   f32 model with a Q8 KV cache < 0.01) and
   continue the prompts sensibly (f32 finds their continuations about as likely as its own). The
   GGUF rewritten as llama.cpp writes a Phi-3 (phi3: q, k, v fused into attn_qkv in NeoX order,
   gate and up fused into ffn_up, LongRoPE factors) gives the golden ids too. Needs build/srt-pack
   and build/srt-chat (build.sh builds them first). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#define SRT_IMPORT_IMPLEMENTATION
#include "tools/srt_import.h"
#include "tests/testing.h"

#include <math.h>
#include <stdlib.h>

#define T_VOCAB 512   /* stories260K */

#define M SRT_SHARED "/models/stories260K/"
#define G SRT_SHARED "/golden/"

static const struct { const char *name, *args; } sources[] = {
    {"v0", "--tokenizer " M "tok512.bin " M "stories260K.bin"},
    {"v1", "--tokenizer " M "tok512.bin " M "stories260K_v1.bin"},
    {"gguf", M "stories260K.gguf"},
};
/* pack options, and how many generated ids must equal the golden ones (0 = all) */
static const struct { const char *name, *opts; int n_exact; } formats[] = {
    {"f32", "--weights f32", 0}, {"f16", "--weights f16", 0}, {"bf16", "--weights bf16", 0},
    {"q8", "--weights q8", 32}, {"q4", "--weights q4 --group 32", 2}, {"fp4", "--weights fp4", 2}};
static const struct { const char *file, *text; } prompts[] = {
    {"once_upon_a_time", "Once upon a time"},
    {"lily_red_ball", "Lily had a red ball"},
    {"empty", ""},
};



/* Ids of a llamacpp_tokenize_*.txt file: the "[1, 403, ...]" that llama-tokenize --ids printed
   last. Returns the count, -1 if unreadable. */
static int read_tokenize_ids(const char *file, int32_t *ids, int cap) {
    char path[512], *t, *q;
    int n = 0;
    snprintf(path, sizeof path, G "llamacpp_tokenize_%s.txt", file);
    if (!(t = srt_test_read_file(path, NULL))) return -1;
    for (q = strrchr(t, '['); q && *q && *q != ']' && n < cap;) {
        char *e;
        long v = strtol(q + 1, &e, 10);
        if (e == q + 1) { q++; continue; }
        ids[n++] = (int32_t)v;
        q = e;
    }
    free(t);
    return n;
}

static void check_generation(srt_model *model, const char *tag, int n_exact) {
    size_t p;
    for (p = 0; p < sizeof prompts / sizeof prompts[0]; p++) {
        int32_t gold[512], got[512], toks[64];
        char path[512];
        int n_gold, n_prompt = 0, i, mismatch = -1, limit;
        srt_session *s;
        srt_session_desc sd;
        snprintf(path, sizeof path, G "llamacpp_%s.ids.txt", prompts[p].file);
        n_gold = srt_test_read_ids(path, gold, 512);
        if (n_gold <= 0) { CHECK(0, "%s: read %s", tag, path); continue; }
        srt_tokenize(model, prompts[p].text, strlen(prompts[p].text), 0, toks, 64, &n_prompt);
        {
            int32_t want[64];
            int n_want = read_tokenize_ids(prompts[p].file, want, 64);
            CHECK(n_want > 0 && n_prompt == n_want && memcmp(toks, want, (size_t)n_want * sizeof(int32_t)) == 0,
                  "%s '%s': prompt tokens equal llamacpp_tokenize_%s.txt (%d ids)", tag, prompts[p].text, prompts[p].file, n_want);
        }
        CHECK(n_prompt > 0 && memcmp(toks, gold, (size_t)n_prompt * sizeof(int32_t)) == 0, "%s '%s': prompt tokens start the golden id sequence", tag, prompts[p].text);
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 512;
        if (srt_session_create(model, &sd, &s) != SRT_OK) { CHECK(0, "%s: session: %s", tag, srt_last_error()); continue; }
        srt_session_feed(s, toks, n_prompt);
        for (i = n_prompt; i < n_gold; i++) if (srt_session_next(s, &got[i]) != SRT_OK) { got[i] = -1; break; }
        limit = n_exact ? n_prompt + n_exact : n_gold;
        for (i = n_prompt; i < limit; i++) if (got[i] != gold[i]) { mismatch = i; break; }
        if (n_exact) {
            int agree = 0;
            for (i = n_prompt; i < n_gold && got[i] == gold[i]; i++) agree++;
            CHECK(mismatch < 0, "%s '%s': the first %d generated ids equal the golden ids (%d agree in a row)", tag, prompts[p].text, n_exact, agree);
        } else
            CHECK(mismatch < 0, "%s '%s': all %d generated ids equal the golden ids%s", tag, prompts[p].text, n_gold - n_prompt,
                  mismatch < 0 ? "" : " (first difference below)");
        if (mismatch >= 0) printf("#   position %d: got %d, golden %d\n", mismatch, got[mismatch], gold[mismatch]);
        srt_session_destroy(s);
    }
}

static void check_chat_text(const char *model_path) {
    size_t p;
    for (p = 0; p < sizeof prompts / sizeof prompts[0]; p++) {
        char cmd[1024], path[512];
        int32_t ids[512];
        char *gold, *ours;
        size_t n_gold, n_ours;
        int32_t prompt_ids[64];
        int n_ids = 0, n_prompt_ids;
        /* llama2.c: 200 positions counting the prompt (BOS excluded) */
        snprintf(path, sizeof path, G "llama2c_%s.ids.txt", prompts[p].file);
        n_ids = srt_test_read_ids(path, ids, 512);
        n_prompt_ids = read_tokenize_ids(prompts[p].file, prompt_ids, 64);
        snprintf(cmd, sizeof cmd, "build/srt-chat -m %s -p \"%s\" -n %d --temp 0 -t 1 > build/tmp/chat.txt 2>build/tmp/chat.err",
                 model_path, prompts[p].text, n_ids - n_prompt_ids);
        CHECK(system(cmd) == 0, "srt-chat -p '%s' -n %d runs", prompts[p].text, n_ids - n_prompt_ids);
        snprintf(path, sizeof path, G "llama2c_%s.txt", prompts[p].file);
        gold = srt_test_read_file(path, &n_gold);
        ours = srt_test_read_file("build/tmp/chat.txt", &n_ours);
        CHECK(gold && ours && n_gold == n_ours && memcmp(gold, ours, n_gold) == 0, "srt-chat stdout equals llama2c_%s.txt byte for byte (%d vs %d bytes)",
              prompts[p].file, (int)n_ours, (int)n_gold);
        free(gold); free(ours);
        /* llama.cpp: 200 new tokens; its stdout has a leading space and ends with "\n\n" */
        snprintf(cmd, sizeof cmd, "build/srt-chat -m %s -p \"%s\" -n 200 --temp 0 -t 2 > build/tmp/chat.txt 2>build/tmp/chat.err", model_path, prompts[p].text);
        CHECK(system(cmd) == 0, "srt-chat -p '%s' -n 200 -t 2 runs", prompts[p].text);
        snprintf(path, sizeof path, G "llamacpp_%s_t1.txt", prompts[p].file);
        gold = srt_test_read_file(path, &n_gold);
        ours = srt_test_read_file("build/tmp/chat.txt", &n_ours);
        CHECK(gold && ours && n_gold >= 3 && n_ours + 1 == n_gold - 1 &&
              memcmp(gold + 1, ours, n_ours - 1) == 0,
              "srt-chat -n 200 equals llamacpp_%s_t1.txt (without its leading space and extra newline)", prompts[p].file);
        free(gold); free(ours);
    }
}

/* Mean KL(P_f32 || P_fmt) in nats over the positions of a text (the two golden stories), each
   model fed the same tokens one by one; kv: the KV cache of the fmt model's session (the f32
   one's is the default, F16). Thresholds (documented in README): q8 < 0.01, q4 < 0.1, the f32
   model with a Q8 KV cache < 0.01. */
static void check_kl(const char *fmt, srt_kv_type kv, double limit) {
    char path[256];
    srt_model *ref = NULL, *q = NULL;
    srt_session *sr = NULL, *sq = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    char *text = srt_test_read_file(G "llama2c_once_upon_a_time.txt", NULL), *text2 = srt_test_read_file(G "llama2c_lily_red_ball.txt", NULL);
    int32_t toks[1024];
    int n = 0, n2 = 0, i, v;
    double kl = 0.0;
    memset(&md, 0, sizeof md); memset(&sd, 0, sizeof sd);
    md.n_threads = 2; sd.n_ctx = 512;
    snprintf(path, sizeof path, "build/tmp/golden_v0_%s.srt", fmt);
    if (!text || !text2 || srt_model_load("build/tmp/golden_v0_f32.srt", &md, &ref) != SRT_OK || srt_model_load(path, &md, &q) != SRT_OK ||
        srt_session_create(ref, &sd, &sr) != SRT_OK || (sd.kv_type = kv, srt_session_create(q, &sd, &sq)) != SRT_OK) {
        CHECK(0, "kl %s: setup: %s", fmt, srt_last_error());
        goto done;
    }
    srt_tokenize(ref, text, strlen(text), SRT_TOKENIZE_ADD_BOS, toks, 512, &n);
    srt_tokenize(ref, text2, strlen(text2), SRT_TOKENIZE_ADD_BOS, toks + n, 512, &n2);
    n += n2;
    n = n > 500 ? 500 : n;
    for (i = 0; i < n; i++) {
        const float *a, *b;
        double ma = -1e30, mb = -1e30, za = 0.0, zb = 0.0, k = 0.0;
        int nv = T_VOCAB;
        srt_session_feed(sr, &toks[i], 1);
        srt_session_feed(sq, &toks[i], 1);
        a = srt_session_logits(sr); b = srt_session_logits(sq);
        if (!a || !b) { CHECK(0, "kl %s: logits at %d", fmt, i); goto done; }
        for (v = 0; v < nv; v++) { if (a[v] > ma) ma = a[v]; if (b[v] > mb) mb = b[v]; }
        for (v = 0; v < nv; v++) { za += exp(a[v] - ma); zb += exp(b[v] - mb); }
        for (v = 0; v < nv; v++) {
            double pa = exp(a[v] - ma) / za, lpa = a[v] - ma - log(za), lpb = b[v] - mb - log(zb);
            k += pa * (lpa - lpb);
        }
        kl += k;
    }
    kl /= n;
    CHECK(kl < limit, "%s%s: mean KL divergence from f32 over %d positions of the golden stories = %.5f nats < %.3g", fmt, kv == SRT_KV_Q8 ? " with a Q8 KV cache" : "", n, kl, limit);
done:
    srt_session_destroy(sr); srt_session_destroy(sq);
    srt_model_free(ref); srt_model_free(q);
    free(text); free(text2);
}

/* Mean negative log-likelihood (nats) that model m gives to ids[from..n) after ids[0..from). */
static double mean_nll(srt_model *m, const int32_t *ids, int from, int n) {
    srt_session *s;
    srt_session_desc sd;
    double nll = 0.0;
    int i, v;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 512;
    if (srt_session_create(m, &sd, &s) != SRT_OK) return 1e9;
    srt_session_feed(s, ids, from);
    for (i = from; i < n; i++) {
        const float *lg = srt_session_logits(s);
        double mx = -1e30, z = 0.0;
        for (v = 0; v < T_VOCAB; v++) if (lg[v] > mx) mx = lg[v];
        for (v = 0; v < T_VOCAB; v++) z += exp(lg[v] - mx);
        nll += -(lg[ids[i]] - mx - log(z));
        srt_session_feed(s, &ids[i], 1);
    }
    srt_session_destroy(s);
    return nll / (n - from);
}

/* "Continues sensibly": the f32 model finds the quantized model's 64-token greedy continuation of
   each prompt about as likely as its own (mean NLL within 0.35 nats of the golden continuation's). */
static void check_sensible(const char *fmt) {
    char path[256];
    srt_model *ref = NULL, *q = NULL;
    srt_model_desc md;
    size_t p;
    memset(&md, 0, sizeof md);
    md.n_threads = 2;
    snprintf(path, sizeof path, "build/tmp/golden_v0_%s.srt", fmt);
    if (srt_model_load("build/tmp/golden_v0_f32.srt", &md, &ref) != SRT_OK || srt_model_load(path, &md, &q) != SRT_OK) {
        CHECK(0, "sensible %s: %s", fmt, srt_last_error()); srt_model_free(ref); return;
    }
    for (p = 0; p < sizeof prompts / sizeof prompts[0]; p++) {
        int32_t ids[128], gold[512];
        char gpath[512];
        int n = 0, i, n_gold;
        srt_session *s;
        srt_session_desc sd;
        double nq, ng;
        memset(&sd, 0, sizeof sd);
        srt_tokenize(q, prompts[p].text, strlen(prompts[p].text), 0, ids, 64, &n);
        snprintf(gpath, sizeof gpath, G "llamacpp_%s.ids.txt", prompts[p].file);
        n_gold = srt_test_read_ids(gpath, gold, 512);
        if (srt_session_create(q, &sd, &s) != SRT_OK || n_gold < n + 64) { CHECK(0, "sensible %s: setup", fmt); continue; }
        srt_session_feed(s, ids, n);
        for (i = n; i < n + 64; i++) srt_session_next(s, &ids[i]);
        srt_session_destroy(s);
        nq = mean_nll(ref, ids, n, n + 64);
        ng = mean_nll(ref, gold, n, n + 64);
        CHECK(nq < ng + 0.35, "%s '%s': f32 gives the %s continuation mean NLL %.3f, its own golden one %.3f (limit +0.35 nats)",
              fmt, prompts[p].text, fmt, nq, ng);
    }
    srt_model_free(ref); srt_model_free(q);
}

/* ---------------------------------------------------------------- stories260K as a Phi-3 GGUF */
typedef struct gbuf { unsigned char *p; size_t n, cap; } gbuf;
static void g_put(gbuf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1 << 16;
        while (cap < b->n + n) cap *= 2;
        b->p = (unsigned char *)realloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void g_u32(gbuf *b, uint32_t v) { g_put(b, &v, 4); }   /* (little-endian hosts) */
static void g_u64(gbuf *b, uint64_t v) { g_put(b, &v, 8); }
static void g_str(gbuf *b, const char *s) { g_u64(b, strlen(s)); g_put(b, s, strlen(s)); }
static void g_kv_u32(gbuf *b, int *n, const char *k, uint32_t v) { g_str(b, k); g_u32(b, 4); g_u32(b, v); (*n)++; }
static void g_kv_f32(gbuf *b, int *n, const char *k, float v) { g_str(b, k); g_u32(b, 6); g_put(b, &v, 4); (*n)++; }
static void g_kv_bool(gbuf *b, int *n, const char *k, int v) { unsigned char c = (unsigned char)(v != 0); g_str(b, k); g_u32(b, 7); g_put(b, &c, 1); (*n)++; }
static void g_kv_str(gbuf *b, int *n, const char *k, const char *v) { g_str(b, k); g_u32(b, 8); g_str(b, v); (*n)++; }

/* Writes stories260K.gguf (llama) as the phi3 GGUF llama.cpp's converter would make of the same
   weights: q and k rows back in NeoX order (the converter's permutation undone), [q; k; v] as
   attn_qkv, [gate; up] as ffn_up, and LongRoPE factors for an original context of 256: long 1,
   short 3, so that only the long set (a context of 512) keeps the model as it was. */
static int write_phi3_gguf(const char *src, const char *dst) {
    srti_model *m = NULL;
    char err[512], key[96];
    gbuf kv = {NULL, 0, 0}, ti = {NULL, 0, 0}, data = {NULL, 0, 0};
    int n_kv = 0, n_t = 0, ok = 1;
    uint32_t l, i;
    float *v = NULL;
    if (srti_open(src, NULL, &m, err, sizeof err) != 0) { printf("# %s\n", err); return 0; }
    {
        const srti_hparams *hp = &m->hp;
        const srti_vocab *vo = &m->vocab;
        const uint64_t E = hp->n_embd, F = hp->n_ff, hd = hp->head_dim, Q = hp->n_head * hd, KV = hp->n_head_kv * hd;
        float *w = (float *)malloc(sizeof(float) * (size_t)(E * (Q + 2 * KV > 2 * F ? Q + 2 * KV : 2 * F) + E * hp->n_vocab));
        v = (float *)malloc(sizeof(float) * (size_t)(E * (2 * F > E ? 2 * F : E) + E * hp->n_vocab));
#define K(s) (snprintf(key, sizeof key, "phi3." s), key)
        g_kv_str(&kv, &n_kv, "general.architecture", "phi3");
        g_kv_u32(&kv, &n_kv, K("context_length"), hp->n_ctx);
        g_kv_u32(&kv, &n_kv, K("embedding_length"), hp->n_embd);
        g_kv_u32(&kv, &n_kv, K("feed_forward_length"), hp->n_ff);
        g_kv_u32(&kv, &n_kv, K("block_count"), hp->n_layer);
        g_kv_u32(&kv, &n_kv, K("attention.head_count"), hp->n_head);
        g_kv_u32(&kv, &n_kv, K("attention.head_count_kv"), hp->n_head_kv);
        g_kv_u32(&kv, &n_kv, K("rope.dimension_count"), hp->rope_dim);
        g_kv_f32(&kv, &n_kv, K("rope.freq_base"), hp->rope_theta);
        g_kv_f32(&kv, &n_kv, K("attention.layer_norm_rms_epsilon"), hp->norm_eps);
        g_kv_u32(&kv, &n_kv, K("rope.scaling.original_context_length"), 256);
        g_kv_f32(&kv, &n_kv, K("rope.scaling.attn_factor"), 1.0f);
        g_kv_u32(&kv, &n_kv, K("attention.sliding_window"), 2047);
#undef K
        g_kv_str(&kv, &n_kv, "tokenizer.ggml.model", vo->model);
        g_str(&kv, "tokenizer.ggml.tokens"); g_u32(&kv, 9); g_u32(&kv, 8); g_u64(&kv, vo->n_tokens);
        for (i = 0; i < vo->n_tokens; i++) g_str(&kv, vo->tokens[i]);
        g_str(&kv, "tokenizer.ggml.scores"); g_u32(&kv, 9); g_u32(&kv, 6); g_u64(&kv, vo->n_tokens);
        g_put(&kv, vo->scores, (size_t)vo->n_tokens * 4);
        g_str(&kv, "tokenizer.ggml.token_type"); g_u32(&kv, 9); g_u32(&kv, 5); g_u64(&kv, vo->n_tokens);
        g_put(&kv, vo->types, (size_t)vo->n_tokens * 4);
        n_kv += 3;
        if (vo->bos >= 0) g_kv_u32(&kv, &n_kv, "tokenizer.ggml.bos_token_id", (uint32_t)vo->bos);
        if (vo->eos >= 0) g_kv_u32(&kv, &n_kv, "tokenizer.ggml.eos_token_id", (uint32_t)vo->eos);
        if (vo->unk >= 0) g_kv_u32(&kv, &n_kv, "tokenizer.ggml.unknown_token_id", (uint32_t)vo->unk);
        if (vo->add_bos >= 0) g_kv_bool(&kv, &n_kv, "tokenizer.ggml.add_bos_token", vo->add_bos);
        if (vo->add_space_prefix >= 0) g_kv_bool(&kv, &n_kv, "tokenizer.ggml.add_space_prefix", vo->add_space_prefix);
        /* tensors: name, dims, F32, offset (32-aligned) */
#define TENSOR(nm, ne0, ne1, vals) do { \
            uint64_t n_ = (uint64_t)(ne0) * (uint64_t)(ne1); \
            g_str(&ti, nm); g_u32(&ti, (ne1) > 1 ? 2 : 1); g_u64(&ti, ne0); if ((ne1) > 1) g_u64(&ti, ne1); \
            g_u32(&ti, 0); g_u64(&ti, data.n); g_put(&data, vals, (size_t)n_ * 4); \
            while (data.n % 32) { unsigned char z_ = 0; g_put(&data, &z_, 1); } \
            n_t++; \
        } while (0)
#define READ(nm, dst) (ok = ok && srti_find(m, nm) >= 0 && srti_read_f32(m, (uint32_t)srti_find(m, nm), dst, err, sizeof err) == 0)
        if (!w || !v) ok = 0;
        if (READ("token_embd.weight", v)) TENSOR("token_embd.weight", E, hp->n_vocab, v);
        if (READ("output_norm.weight", v)) TENSOR("output_norm.weight", E, 1, v);
        if (srti_find(m, "output.weight") >= 0 && READ("output.weight", v)) TENSOR("output.weight", E, hp->n_vocab, v);
        for (i = 0; i < hp->rope_dim / 2; i++) { v[i] = 1.0f; v[hp->rope_dim / 2 + i] = 3.0f; }
        if (ok) { TENSOR("rope_factors_long.weight", hp->rope_dim / 2, 1, v); TENSOR("rope_factors_short.weight", hp->rope_dim / 2, 1, v + hp->rope_dim / 2); }
        for (l = 0; ok && l < hp->n_layer; l++) {
            char nm[64], out[64];
            uint64_t r, h, j, s;
            static const char *vecs[2] = {"attn_norm", "ffn_norm"}, *mats[2] = {"attn_output", "ffn_down"};
            for (i = 0; i < 2; i++) {
                snprintf(nm, sizeof nm, "blk.%u.%s.weight", l, vecs[i]);
                if (READ(nm, v)) TENSOR(nm, E, 1, v);
                snprintf(nm, sizeof nm, "blk.%u.%s.weight", l, mats[i]);
                if (READ(nm, v)) TENSOR(nm, i ? F : Q, E, v);
            }
            for (i = 0; i < 3; i++) {   /* q, k (rows to NeoX order), v */
                const uint64_t rows = i ? KV : Q, at = i == 0 ? 0 : i == 1 ? Q : Q + KV;
                snprintf(nm, sizeof nm, "blk.%u.attn_%c.weight", l, "qkv"[i]);
                if (!READ(nm, v)) break;
                for (r = 0; r < rows; r++) {
                    h = r / hd; j = r % hd;                  /* GGUF row h*hd + 2j' + s' holds NeoX row s' hd/2 + j' */
                    s = i < 2 ? h * hd + (j < hd / 2 ? 2 * j : 2 * (j - hd / 2) + 1) : r;
                    memcpy(w + (at + r) * E, v + s * E, (size_t)E * 4);
                }
            }
            snprintf(out, sizeof out, "blk.%u.attn_qkv.weight", l);
            if (ok) TENSOR(out, E, Q + 2 * KV, w);
            snprintf(nm, sizeof nm, "blk.%u.ffn_gate.weight", l);
            if (READ(nm, w)) {
                snprintf(nm, sizeof nm, "blk.%u.ffn_up.weight", l);
                if (READ(nm, w + F * E)) TENSOR(nm, E, 2 * F, w);
            }
        }
#undef READ
#undef TENSOR
        free(w);
    }
    if (ok) {
        FILE *f = fopen(dst, "wb");
        gbuf h = {NULL, 0, 0};
        g_put(&h, "GGUF", 4); g_u32(&h, 3); g_u64(&h, (uint64_t)n_t); g_u64(&h, (uint64_t)n_kv);
        g_put(&h, kv.p, kv.n); g_put(&h, ti.p, ti.n);
        while (h.n % 32) { unsigned char z = 0; g_put(&h, &z, 1); }
        ok = f && fwrite(h.p, 1, h.n, f) == h.n && fwrite(data.p, 1, data.n, f) == data.n;
        if (f && fclose(f) != 0) ok = 0;
        free(h.p);
    } else printf("# %s\n", err);
    free(v); free(kv.p); free(ti.p); free(data.p);
    srti_close(m);
    return ok;
}
static void check_phi3(int max_threads) {
    int threads;
    const char *gguf = "build/tmp/stories260K_phi3.gguf", *out = "build/tmp/golden_phi3_f32.srt";
    CHECK(write_phi3_gguf(M "stories260K.gguf", gguf), "stories260K.gguf rewritten as a phi3 GGUF (fused attn_qkv in NeoX order and ffn_up, LongRoPE factors)");
    if (system("build/srt-pack -q --weights f32 build/tmp/stories260K_phi3.gguf build/tmp/golden_phi3_f32.srt > build/tmp/pack.log 2>&1") != 0) {
        CHECK(0, "srt-pack phi3 GGUF (see build/tmp/pack.log)");
        return;
    }
    for (threads = 1; threads <= max_threads; threads++) {
        srt_model *model;
        srt_model_desc md;
        srt_model_info info;
        char tag[64];
        memset(&md, 0, sizeof md);
        md.n_threads = threads;
        snprintf(tag, sizeof tag, "phi3-gguf/f32/t%d", threads);
        if (srt_model_load(out, &md, &model) != SRT_OK) { CHECK(0, "%s: load: %s", tag, srt_last_error()); continue; }
        srt_model_get_info(model, &info);
        CHECK(info.architecture && !strcmp(info.architecture, "phi3"), "%s: loads as phi3", tag);
        check_generation(model, tag, 0);
        srt_model_free(model);
    }
    remove(gguf);
}

int main(void) {
    size_t si, fi;
    char cmd[1024], out[256];
    /* Under valgrind (./build.sh test valgrind sets SRT_TEST_SLOW=valgrind) only the 1-thread runs:
       valgrind runs one thread at a time, so the 2-thread ones would repeat the same memory checks
       at twice the cost (about 19 minutes in all here); ./build.sh test tsan runs them. */
    const char *slow = getenv("SRT_TEST_SLOW");
    int max_threads = slow && !strcmp(slow, "valgrind") ? 1 : 2;
    if (system("mkdir -p build/tmp") != 0) return 1;
    for (si = 0; si < sizeof sources / sizeof sources[0]; si++)
        for (fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
            int threads;
            snprintf(out, sizeof out, "build/tmp/golden_%s_%s.srt", sources[si].name, formats[fi].name);
            snprintf(cmd, sizeof cmd, "build/srt-pack -q %s %s %s > build/tmp/pack.log 2>&1", formats[fi].opts, sources[si].args, out);
            if (system(cmd) != 0) { CHECK(0, "srt-pack %s %s (see build/tmp/pack.log)", sources[si].name, formats[fi].name); continue; }
            for (threads = 1; threads <= max_threads; threads++) {
                srt_model *model;
                srt_model_desc md;
                char tag[128];
                memset(&md, 0, sizeof md);
                md.n_threads = threads;
                md.verify_checksums = 1;
                snprintf(tag, sizeof tag, "%s/%s/t%d", sources[si].name, formats[fi].name, threads);
                if (srt_model_load(out, &md, &model) != SRT_OK) { CHECK(0, "%s: load: %s", tag, srt_last_error()); continue; }
                check_generation(model, tag, formats[fi].n_exact);
                srt_model_free(model);
            }
        }
    check_phi3(max_threads);
    check_chat_text("build/tmp/golden_v0_f32.srt");
    check_kl("q8", SRT_KV_DEFAULT, 0.01);
    check_kl("q4", SRT_KV_DEFAULT, 0.1);
    check_kl("fp4", SRT_KV_DEFAULT, 0.1);
    check_kl("f32", SRT_KV_Q8, 0.01);
    check_sensible("q8");
    check_sensible("q4");
    return srt_test_finish();
}
