/* test_kv.c - the sparse KV cache (srt_session_desc.kv_sparsity_k / _v): a session that stores the
   pruned rows of its input compact must give bit for bit the logits of the reference session that
   zeroes the same values in place (s->kv_compact = 0), through prompts fed in several batches,
   generated tokens (dense), later turns (new stretches), more turns than stretches (the rest stays
   dense), reset and 1 or 2 threads; pruning must change the result (it is not a no-op) and bad
   settings are refused with a clear error. Random models with head sizes 64 and 40 (the vector
   kernels' tails), and stories260K (head size 8). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include <stdlib.h>

/* A random llama model from srt-bench make-model (bf16, 300-token filler vocab): 4 heads of hd,
   2 KV heads. */
static int write_model(const char *path, int hd) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "build/srt-bench make-model %s --embd %d --heads 4 --kv-heads 2 --ff 96 --layers 2 --vocab 300 --format bf16 > build/tmp/kv_make.log 2>&1",
             path, 4 * hd);
    return system(cmd) == 0;
}

static srt_session *make_session(srt_model *m, float sk, float sv, int compact) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 1024;
    sd.n_batch = 32;
    sd.kv_sparsity_k = sk;
    sd.kv_sparsity_v = sv;
    if (srt_session_create(m, &sd, &s) != SRT_OK) return NULL;
    s->kv_compact = compact;
    return s;
}

/* 1 if both sessions' logits agree bit for bit (pending tokens evaluated: not input, not pruned). */
static int same_logits(srt_session *a, srt_session *b, int n_vocab) {
    const float *la = srt_session_logits(a), *lb = srt_session_logits(b);
    return la && lb && memcmp(la, lb, sizeof(float) * (size_t)n_vocab) == 0;
}
static int feed2(srt_session *a, srt_session *b, const int32_t *toks, int n) {
    return srt_session_feed(a, toks, n) == SRT_OK && srt_session_feed(b, toks, n) == SRT_OK;
}
static int next2(srt_session *a, srt_session *b) {   /* greedy: the same token from the same logits */
    int32_t ta = -1, tb = -2;
    return srt_session_next(a, &ta) == SRT_OK && srt_session_next(b, &tb) == SRT_OK && ta == tb;
}

static void test_model(const char *path, const char *name, int threads) {
    static const float sp[][2] = {{0.3f, 0.5f}, {0.5f, 0.0f}, {0.0f, 0.7f}, {0.95f, 0.95f}};
    srt_model_desc md;
    srt_model *m = NULL;
    srt_model_info info;
    int32_t toks[200];
    size_t si;
    int i, n_vocab;
    memset(&md, 0, sizeof md);
    md.n_threads = threads;
    if (srt_model_load(path, &md, &m) != SRT_OK) { CHECK(0, "%s loads: %s", name, srt_last_error()); return; }
    srt_model_get_info(m, &info);
    n_vocab = info.n_vocab;
    for (i = 0; i < 200; i++) toks[i] = 3 + (int32_t)((uint32_t)(i * 2654435761u) % (uint32_t)(n_vocab - 3));
    for (si = 0; si < sizeof sp / sizeof sp[0]; si++) {
        float sk = sp[si][0], sv = sp[si][1];
        int hd = info.head_dim;
        srt_session *a, *b, *d;
        int ok = 1, differs = 0, turn;
        /* stories260K's head size 8 cannot go below 0.25 (the bitmap's 2 bytes) */
        if ((sk > 0.0f && sk < 0.25f && hd < 16) || (sv > 0.0f && sv < 0.25f && hd < 16)) continue;
        a = make_session(m, sk, sv, 1); b = make_session(m, sk, sv, 0); d = make_session(m, 0.0f, 0.0f, 1);
        if (!a || !b || !d) { CHECK(0, "%s sessions with kv sparsity %.2f/%.2f: %s", name, sk, sv, srt_last_error()); srt_session_destroy(a); srt_session_destroy(b); srt_session_destroy(d); continue; }
        /* a 70-token prompt (3 batches, one stretch), 5 generated, a 20-token turn, 5 generated */
        ok = feed2(a, b, toks, 70) && same_logits(a, b, n_vocab);
        differs = srt_session_feed(d, toks, 70) == SRT_OK && !same_logits(a, d, n_vocab);
        for (i = 0; i < 5 && ok; i++) ok = next2(a, b) && same_logits(a, b, n_vocab);
        ok = ok && feed2(a, b, toks + 70, 20) && same_logits(a, b, n_vocab);
        for (i = 0; i < 5 && ok; i++) ok = next2(a, b) && same_logits(a, b, n_vocab);
        CHECK(ok && a->n_seg == 2, "%s, %d thread(s), kv sparsity K %.2f V %.2f: compact rows give the logits of the zeroed rows, bit for bit (2 stretches: %d)",
              name, threads, sk, sv, a->n_seg);
        CHECK(differs, "%s, kv sparsity K %.2f V %.2f: the logits after the prompt differ from the dense cache's", name, sk, sv);
        /* more turns than stretches: one token each, a generated one between (so none continues) */
        for (turn = 0; turn < SRT__KV_SEGS + 6 && ok; turn++)
            ok = feed2(a, b, toks + 100 + turn % 90, 1) && next2(a, b) && same_logits(a, b, n_vocab);
        CHECK(ok && a->n_seg == SRT__KV_SEGS && b->n_seg == SRT__KV_SEGS, "%s, kv sparsity K %.2f V %.2f: %d turns fill the %d stretches, the rest stays dense, still equal",
              name, sk, sv, SRT__KV_SEGS + 8, SRT__KV_SEGS);
        /* reset: a fresh start gives a fresh session's logits */
        srt_session_reset(a); srt_session_reset(b);
        ok = a->n_seg == 0 && srt_session_feed(a, toks + 7, 40) == SRT_OK && srt_session_feed(b, toks + 7, 40) == SRT_OK;
        if (ok) {
            srt_session *f = make_session(m, sk, sv, 1);
            ok = f && srt_session_feed(f, toks + 7, 40) == SRT_OK && same_logits(a, f, n_vocab) && same_logits(a, b, n_vocab);
            srt_session_destroy(f);
        }
        CHECK(ok, "%s, kv sparsity K %.2f V %.2f: after reset as a new session", name, sk, sv);
        srt_session_destroy(a); srt_session_destroy(b); srt_session_destroy(d);
    }
    srt_model_free(m);
}

static void test_errors(const char *path) {
    static const float bad[] = {-0.1f, 0.96f, 1.0f, 0.05f};
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_session_desc sd;
    size_t i;
    if (srt_model_load(path, NULL, &m) != SRT_OK) { CHECK(0, "the model loads"); return; }
    for (i = 0; i < sizeof bad / sizeof bad[0] + 1; i++) {
        srt_status st;
        memset(&sd, 0, sizeof sd);
        if (i < sizeof bad / sizeof bad[0]) sd.kv_sparsity_v = bad[i];
        else sd.kv_sparsity_k = NAN;
        st = srt_session_create(m, &sd, &s);
        CHECK(st == SRT_ERR_INVALID_ARG && !s && strstr(srt_last_error(), i < 4 ? "kv_sparsity_v" : "kv_sparsity_k"),
              "kv sparsity %g refused: %s", i < 4 ? (double)bad[i] : NAN, srt_last_error());
    }
    CHECK(strstr(srt_last_error(), "outside"), "NaN is outside the range");
    memset(&sd, 0, sizeof sd);
    sd.kv_sparsity_k = 0.05f;
    CHECK(srt_session_create(m, &sd, &s) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "at least 0.078"),
          "below the break-even at head size 64 the error names the minimum: %s", srt_last_error());
    sd.kv_sparsity_k = 5.0f / 64.0f;
    CHECK(srt_session_create(m, &sd, &s) == SRT_OK && s, "the break-even itself is accepted");
    srt_session_destroy(s); s = NULL;
    sd.kv_type = SRT_KV_F32;
    sd.kv_sparsity_k = 0.5f;
    CHECK(srt_session_create(m, &sd, &s) == SRT_ERR_UNSUPPORTED && !s && strstr(srt_last_error(), "F16"),
          "an F32 KV cache cannot be sparse: %s", srt_last_error());
    srt_model_free(m);
}

int main(void) {
    if (system("mkdir -p build/tmp") != 0) return 1;
    CHECK(write_model("build/tmp/kv_hd64.srt", 64) && write_model("build/tmp/kv_hd40.srt", 40), "random models written (build/tmp/kv_make.log)");
    test_model("build/tmp/kv_hd64.srt", "head size 64", 1);
    test_model("build/tmp/kv_hd64.srt", "head size 64", 2);
    test_model("build/tmp/kv_hd40.srt", "head size 40", 2);
    CHECK(system("build/srt-pack -q " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/kv_stories.srt > build/tmp/kv_pack.log 2>&1") == 0,
          "stories260K packed (build/tmp/kv_pack.log)");
    test_model("build/tmp/kv_stories.srt", "stories260K", 2);
    test_errors("build/tmp/kv_hd64.srt");
    remove("build/tmp/kv_hd64.srt");
    remove("build/tmp/kv_hd40.srt");
    remove("build/tmp/kv_stories.srt");
    return srt_test_finish();
}
