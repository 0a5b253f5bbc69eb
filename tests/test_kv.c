/* test_kv.c - the sparse KV cache (srt_session_desc.kv_sparsity_k / _v): a session that stores the
   pruned rows of its input compact must give bit for bit the logits of the reference session that
   zeroes the same values in place (s->kv_compact = 0), through prompts fed in several batches,
   generated tokens (dense), later turns (new stretches), more turns than stretches (the rest stays
   dense), reset and 1 or 2 threads; pruning must change the result (it is not a no-op) and bad
   settings are refused with a clear error. Random models with head sizes 64 and 40 (the vector
   kernels' tails), stories260K (head size 8) and a gemma3 model whose even layers see the last 24
   positions only (a window that starts inside a pruned stretch, or past whole ones). Also the Q8
   KV cache (test_q8_rows, _sessions) and the ring of sliding-window layers (test_swa_ring). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include <stdlib.h>

/* A random llama model from srt-bench make-model (bf16, 300-token filler vocab): 4 heads of hd,
   2 KV heads; extra: more make-model options. */
static int write_model_ex(const char *path, int hd, const char *extra) {
    char cmd[320];
    snprintf(cmd, sizeof cmd, "build/srt-bench make-model %s --embd %d --heads 4 --kv-heads 2 --ff 96 --layers 2 --vocab 300 --format bf16 %s > build/tmp/kv_make.log 2>&1",
             path, 4 * hd, extra);
    return system(cmd) == 0;
}
static int write_model(const char *path, int hd) { return write_model_ex(path, hd, ""); }

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
        /* truncated into the first stretch (it ends where the kept rows end; the last kept token is
           evaluated again with the new input, pruned as input), then new input continues it */
        ok = ok && srt_session_truncate(a, 50) == SRT_OK && srt_session_truncate(b, 50) == SRT_OK && a->n_seg == 1 && a->seg[0].p1 == 49 &&
             feed2(a, b, toks + 120, 15) && same_logits(a, b, n_vocab) && a->n_seg == 1 && a->seg[0].p1 == 65;
        for (i = 0; i < 3 && ok; i++) ok = next2(a, b) && same_logits(a, b, n_vocab);
        CHECK(ok, "%s, kv sparsity K %.2f V %.2f: truncated into a pruned stretch and fed again: still the zeroed rows' logits (stretch 0..%d)",
              name, sk, sv, a->n_seg ? a->seg[0].p1 : -1);
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

/* The Q8 KV cache (SRT_KV_Q8). Rows: each value within half a step of its block's scale, the
   scale F16(max / 127) rounded up, all-zero, saturating and non-finite blocks. Sessions: the logits stay close
   to the F32 cache's and are not the F16 cache's; the cache takes the bytes it should; Q8 cannot
   be sparse. (The kernels against the portable ones: test_kernels.) */
typedef struct count_alloc { size_t live, peak; } count_alloc;
static void *count_malloc(size_t n, void *user) {
    count_alloc *c = (count_alloc *)user;
    size_t *p = (size_t *)malloc(n + 64);
    if (!p) return NULL;
    p[0] = n; c->live += n; if (c->live > c->peak) c->peak = c->live;
    return (char *)p + 64;
}
static void count_free(void *ptr, void *user) {
    count_alloc *c = (count_alloc *)user;
    if (!ptr) return;
    ptr = (char *)ptr - 64;
    c->live -= *(size_t *)ptr;
    free(ptr);
}
static void test_q8_rows(void) {
    static const int hds[] = {1, 7, 32, 40, 64, 100, 128};
    unsigned char row[128 + 8];
    float x[128];
    size_t hi;
    int ok = 1, ok_scale = 1, i;
    uint16_t h;
    for (hi = 0; hi < sizeof hds / sizeof hds[0]; hi++) {
        int hd = hds[hi], rep;
        for (rep = 0; rep < 20; rep++) {
            float mag = rep % 4 == 0 ? 1e-3f : rep % 4 == 1 ? 1.0f : rep % 4 == 2 ? 30.0f : 2000.0f;
            int b;
            for (i = 0; i < hd; i++) x[i] = srt_test_frand() * mag;
            if (rep == 5) x[hd - 1] = 0.0f;
            srt__kv_q8_store(x, (uint64_t)hd, row);
            for (b = 0; b < hd; b += 32) {
                float amax = 0.0f, sc = srt__kv_q8_scale(row, (uint64_t)hd, (uint64_t)b);
                for (i = b; i < hd && i < b + 32; i++) if (fabsf(x[i]) > amax) amax = fabsf(x[i]);
                h = srt_f32_to_f16(amax / 127.0f);
                if (srt_f16_to_f32(h) * 127.0f < amax) h++;
                ok_scale = ok_scale && sc == srt_f16_to_f32(h) && (amax == 0.0f || (srt_f16_to_f32(h) - amax / 127.0f) / srt_f16_to_f32(h) < (amax < 0.01f ? 0.05f : 2e-3f));
                for (i = b; i < hd && i < b + 32; i++) {
                    float v = srt__kv_value(row, 2, (uint64_t)hd, (uint64_t)i);
                    ok = ok && fabsf(v - x[i]) <= 0.5f * sc * 1.0001f + 1e-30f && (signed char)row[i] >= -127;
                }
            }
        }
    }
    CHECK(ok && ok_scale, "Q8 rows (head sizes 1..128, tiny to large values): scale = F16(max / 127), rounded up, per 32 values; every value within half a step");
    memset(x, 0, sizeof x);
    srt__kv_q8_store(x, 40, row);
    for (i = 0, ok = 1; i < 40; i++) ok = ok && row[i] == 0 && srt__kv_value(row, 2, 40, (uint64_t)i) == 0.0f;
    CHECK(ok, "an all-zero row stays zero");
    for (i = 0; i < 64; i++) x[i] = (float)(i - 32) * 1e7f;
    srt__kv_q8_store(x, 64, row);
    memcpy(&h, row + 64, 2);
    CHECK(h == 0x7bff && (signed char)row[0] == -127 && srt__kv_value(row, 2, 64, 0) == -127.0f * 65504.0f,
          "values beyond F16 saturate at 127 x 65504 (scale %04x)", h);
    for (i = 0; i < 64; i++) x[i] = (float)i;
    x[40] = NAN;
    srt__kv_q8_store(x, 64, row);
    CHECK(srt__kv_value(row, 2, 64, 40) != srt__kv_value(row, 2, 64, 40) && srt__kv_value(row, 2, 64, 33) != srt__kv_value(row, 2, 64, 33) &&
          fabsf(srt__kv_value(row, 2, 64, 31) - 31.0f) < 0.2f, "a NaN makes its block NaN (not silent zeros), the other block is kept");
    x[40] = INFINITY;
    srt__kv_q8_store(x, 64, row);
    CHECK(srt__kv_value(row, 2, 64, 50) != srt__kv_value(row, 2, 64, 50), "so does an infinity");
}
static void test_q8_sessions(const char *path, const char *name, double tol) {
    srt_model_desc md;
    srt_model *m = NULL;
    srt_model_info info;
    srt_session_desc sd;
    srt_session *s[3] = {NULL, NULL, NULL};
    static const srt_kv_type types[3] = {SRT_KV_F32, SRT_KV_F16, SRT_KV_Q8};
    count_alloc ca = {0, 0};
    int32_t toks[150];
    int i, k, ok = 1, differs = 0;
    double worst = 0.0, top = 0.0;
    size_t before, bytes[3];
    memset(&md, 0, sizeof md);
    md.allocator.alloc = count_malloc; md.allocator.free = count_free; md.allocator.user = &ca;
    if (srt_model_load(path, &md, &m) != SRT_OK) { CHECK(0, "%s loads: %s", name, srt_last_error()); return; }
    srt_model_get_info(m, &info);
    for (i = 0; i < 150; i++) toks[i] = 3 + (int32_t)((uint32_t)(i * 2654435761u) % (uint32_t)(info.n_vocab - 3));
    for (k = 0; k < 3; k++) {
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 512; sd.kv_type = types[k];
        before = ca.live;
        if (srt_session_create(m, &sd, &s[k]) != SRT_OK) { CHECK(0, "%s: %s session: %s", name, k ? "F16/Q8" : "F32", srt_last_error()); ok = 0; }
        bytes[k] = ca.live - before;
    }
    if (ok) {
        size_t rows = (size_t)2 * (size_t)info.n_layer * (size_t)info.n_head_kv * 512, hd = (size_t)info.head_dim;
        CHECK(bytes[1] - bytes[2] == rows * (2 * hd - (hd + (hd + 31) / 32 * 2)),
              "%s: the Q8 cache takes %zu bytes less than the F16 one (hd + 2 per 32 values a row)", name, bytes[1] - bytes[2]);
        /* a 100-token prompt in batches, then 30 tokens fed one at a time (the decode path) */
        for (k = 0; k < 3 && ok; k++) ok = srt_session_feed(s[k], toks, 100) == SRT_OK;
        for (i = 100; i < 130 && ok; i++) {
            const float *lf, *lh, *lq;
            for (k = 0; k < 3 && ok; k++) ok = srt_session_feed(s[k], toks + i, 1) == SRT_OK;
            lf = srt_session_logits(s[0]); lh = srt_session_logits(s[1]); lq = srt_session_logits(s[2]);
            for (k = 0; ok && k < info.n_vocab; k++) {
                double e = fabs((double)lq[k] - lf[k]);
                if (!(e <= worst)) worst = e;
                if (fabs(lf[k]) > top) top = fabs(lf[k]);
                differs |= lq[k] != lh[k];
            }
        }
        CHECK(ok && worst <= tol * top, "%s: Q8 KV logits within %.0e of the largest F32 one over 30 decode steps after a 100-token prompt (%.3g of %.3g)",
              name, tol, worst, top);
        CHECK(ok && differs, "%s: ... and they are not the F16 cache's", name);
    }
    for (k = 0; k < 3; k++) srt_session_destroy(s[k]);
    memset(&sd, 0, sizeof sd);
    sd.kv_type = SRT_KV_Q8; sd.kv_sparsity_k = 0.5f;
    CHECK(srt_session_create(m, &sd, &s[0]) == SRT_ERR_UNSUPPORTED && !s[0] && strstr(srt_last_error(), "F16"), "a Q8 KV cache cannot be sparse: %s", srt_last_error());
    sd.kv_sparsity_k = 0.0f; sd.kv_type = (srt_kv_type)7;
    CHECK(srt_session_create(m, &sd, &s[0]) == SRT_ERR_INVALID_ARG && !s[0] && strstr(srt_last_error(), "kv_type 7"), "an unknown kv_type is refused: %s", srt_last_error());
    sd.kv_type = SRT_KV_Q8; sd.n_ctx = -5;
    CHECK(srt_session_create(m, &sd, &s[0]) == SRT_ERR_INVALID_ARG && !s[0] && strstr(srt_last_error(), "n_ctx -5"), "a negative n_ctx is refused: %s", srt_last_error());
    srt_model_free(m);
    CHECK(ca.live == 0, "%s: everything allocated was freed", name);
}

/* Sliding-window layers in a ring (srt_session_desc.swa_full = 0): the logits of a session that
   keeps every position, bit for bit, through batches that wrap the ring, generation, a truncation
   within what the ring holds (no re-evaluation) and one past it (the sequence evaluated again from
   its start), and session states moved between ring and full sessions (a state holds a sliding
   layer's last window - 1 rows: a truncation before its end evaluates everything again). */
static srt_session *swa_session(srt_model *m, int full, int n_ctx, int n_batch) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = n_ctx;
    sd.n_batch = n_batch;
    sd.swa_full = full;
    if (srt_session_create(m, &sd, &s) != SRT_OK) return NULL;
    return s;
}
static void test_swa_ring(const char *path) {
    srt_model_desc md;
    srt_model *m = NULL;
    srt_session *r = NULL, *f = NULL, *r2 = NULL, *f2 = NULL, *sp = NULL;
    int32_t toks[200];
    int i, ok, n_vocab = 0;
    size_t size_r = 0, size_f = 0;
    void *state = NULL;
    memset(&md, 0, sizeof md);
    md.n_threads = 2;
    /* bit for bit after re-evaluating in other batches: not AMX's bf16 GEMM (documented, sparsert.h) */
    if (srt_isa_supported(SRT_ISA_AMX)) md.isa = SRT_ISA_AVX512;
    if (srt_model_load(path, &md, &m) != SRT_OK) { CHECK(0, "swa model loads: %s", srt_last_error()); return; }
    n_vocab = m->n_vocab;
    for (i = 0; i < 200; i++) toks[i] = 3 + (int32_t)((uint32_t)(i * 2246822519u) % (uint32_t)(n_vocab - 3));
    r = swa_session(m, 0, 256, 4); f = swa_session(m, 1, 256, 4);
    {
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = 256; sd.n_batch = 4; sd.kv_sparsity_k = 0.5f;
        if (srt_session_create(m, &sd, &sp) != SRT_OK) sp = NULL;
    }
    CHECK(r && f && sp && r->swa_cap == 2 * 8 + 4 - 1 && f->swa_cap == 256 && sp->swa_cap == 256,
          "window 8, batches of 4: the ring holds 19 rows (swa_full and a sparse KV cache: all 256)");
    if (!r || !f) goto done;
    ok = feed2(r, f, toks, 100) && same_logits(r, f, n_vocab);
    for (i = 0; i < 10 && ok; i++) ok = next2(r, f) && same_logits(r, f, n_vocab);
    CHECK(ok && r->swa_lo == r->n_eval - 19, "a 100-token prompt in batches of 4 and 10 generated tokens: the ring session's logits are the full one's, bit for bit");
    ok = ok && srt_session_truncate(r, 105) == SRT_OK && srt_session_truncate(f, 105) == SRT_OK && r->n_eval == 104;
    ok = ok && feed2(r, f, toks + 120, 6) && same_logits(r, f, n_vocab);
    for (i = 0; i < 3 && ok; i++) ok = next2(r, f) && same_logits(r, f, n_vocab);
    CHECK(ok, "truncated back 5 positions (the ring still holds the window): not evaluated again, and still equal");
    ok = ok && srt_session_truncate(r, 70) == SRT_OK && srt_session_truncate(f, 70) == SRT_OK && r->n_eval == 0 && f->n_eval == 69;
    ok = ok && feed2(r, f, toks + 150, 7) && same_logits(r, f, n_vocab);
    for (i = 0; i < 3 && ok; i++) ok = next2(r, f) && same_logits(r, f, n_vocab);
    CHECK(ok, "truncated back 44 positions (past the ring): evaluated again from the start, and still equal");
    /* states: ring -> full and ring, full -> ring; both hold the same rows */
    ok = ok && srt_session_state_save(r, NULL, 0, &size_r) == SRT_OK && srt_session_state_save(f, NULL, 0, &size_f) == SRT_OK && size_r == size_f &&
         (state = malloc(size_r)) != NULL && srt_session_state_save(r, state, size_r, &size_r) == SRT_OK;
    r2 = swa_session(m, 0, 256, 4); f2 = swa_session(m, 1, 256, 4);
    ok = ok && r2 && f2 && srt_session_state_load(r2, state, size_r) == SRT_OK && srt_session_state_load(f2, state, size_r) == SRT_OK &&
         same_logits(r2, r, n_vocab) && same_logits(f2, r, n_vocab);
    for (i = 0; i < 4 && ok; i++) ok = next2(r2, f2) && next2(r, f) && same_logits(r2, r, n_vocab) && same_logits(f2, r, n_vocab);
    CHECK(ok, "a ring session's state (%zu bytes, as a full session's) loads into a ring and a full session: the same continuation", size_r);
    ok = ok && srt_session_truncate(r2, srt_session_pos(r2) - 8) == SRT_OK && srt_session_truncate(f2, srt_session_pos(f2) - 8) == SRT_OK &&
         srt_session_truncate(r, srt_session_pos(r) - 8) == SRT_OK && srt_session_truncate(f, srt_session_pos(f) - 8) == SRT_OK &&
         r2->n_eval == 0 && f2->n_eval == 0 && r->n_eval > 0;
    ok = ok && feed2(r2, f2, toks + 10, 3) && feed2(r, f, toks + 10, 3) && same_logits(r2, r, n_vocab) && same_logits(f2, r, n_vocab);
    CHECK(ok, "after loading and 4 tokens more, a truncation of 8 reaches before the rows the state held: the sequence is evaluated again (the ring session that made the state keeps its rows), still equal");
    free(state); state = NULL;
    ok = srt_session_state_save(f, NULL, 0, &size_f) == SRT_OK && (state = malloc(size_f)) != NULL && srt_session_state_save(f, state, size_f, &size_f) == SRT_OK;
    srt_session_reset(r2);
    ok = ok && srt_session_state_load(r2, state, size_f) == SRT_OK && same_logits(r2, f, n_vocab);
    for (i = 0; i < 4 && ok; i++) ok = next2(r2, f) && same_logits(r2, f, n_vocab);
    CHECK(ok, "a full session's state loads into a ring session: the same continuation");
done:
    free(state);
    srt_session_destroy(r); srt_session_destroy(f); srt_session_destroy(r2); srt_session_destroy(f2); srt_session_destroy(sp);
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
    CHECK(write_model_ex("build/tmp/kv_gemma.srt", 64, "--arch gemma3 --window 24 --swa-pattern 2"), "a gemma3 model written (build/tmp/kv_make.log)");
    test_model("build/tmp/kv_gemma.srt", "gemma3, window 24", 2);
    remove("build/tmp/kv_gemma.srt");
    CHECK(write_model_ex("build/tmp/kv_swa.srt", 16, "--arch gemma3 --window 8 --swa-pattern 2"), "a gemma3 model with a window of 8 written");
    test_swa_ring("build/tmp/kv_swa.srt");
    remove("build/tmp/kv_swa.srt");
    test_errors("build/tmp/kv_hd64.srt");
    test_q8_rows();
    test_q8_sessions("build/tmp/kv_hd64.srt", "head size 64", 1e-2);
    test_q8_sessions("build/tmp/kv_hd40.srt", "head size 40", 1e-2);
    test_q8_sessions("build/tmp/kv_stories.srt", "stories260K", 3e-2);   /* head size 8: a scale per 8 values; quality: test_golden (KL) */
    remove("build/tmp/kv_hd64.srt");
    remove("build/tmp/kv_hd40.srt");
    remove("build/tmp/kv_stories.srt");
    return srt_test_finish();
}
