/* test_state.c - session state (srt_session_state_save / _load, srt_session_save / _load).
   A session that takes a saved state over must go on exactly as the saved one does: the same
   logits bit for bit and the same sampled tokens (temperature > 0: the random state travels too),
   for every KV type (F32, F16, Q8), with a token pending, after a truncate (no logits), empty, with
   a sparse KV cache (pruned stretches) and on stories260K. The file and the buffer hold the same
   bytes. Every damaged state (each truncation, a flipped byte anywhere, another model, another KV
   type, too small a context, another sparsity) is refused with its own error, and the refused
   session is left as it was. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include <stdlib.h>

static int make_model(const char *path, int hd, int seed) {
    char cmd[320];
    snprintf(cmd, sizeof cmd, "build/srt-bench make-model %s --embd %d --heads 4 --kv-heads 2 --ff 96 --layers 2 --vocab 300 --format q8 --seed %d > build/tmp/state_make.log 2>&1",
             path, 4 * hd, seed);
    return system(cmd) == 0;
}

static srt_session *new_session(srt_model *m, srt_kv_type kv, int n_ctx, float sparsity, uint64_t seed) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = n_ctx;
    sd.n_batch = 16;
    sd.kv_type = kv;
    sd.kv_sparsity_k = sd.kv_sparsity_v = sparsity;
    sd.sampler.temperature = 0.9f;
    sd.sampler.top_k = 40;
    sd.sampler.seed = seed;
    return srt_session_create(m, &sd, &s) == SRT_OK ? s : NULL;
}

/* The whole state in a malloc'd buffer (NULL on failure). */
static unsigned char *state_of(srt_session *s, size_t *n) {
    unsigned char *b;
    size_t size = 0, again = 0;
    if (srt_session_state_save(s, NULL, 0, &size) != SRT_OK || !(b = (unsigned char *)malloc(size))) return NULL;
    if (srt_session_state_save(s, b, size, &again) != SRT_OK || again != size) { free(b); return NULL; }
    *n = size;
    return b;
}

/* a and b go on alike for n tokens: the same logits, bit for bit, and the same sampled tokens. */
static int go_on_alike(srt_session *a, srt_session *b, int n_vocab, int n) {
    static const int32_t start[3] = {5, 9, 12};
    int i;
    if (n > 0 && srt_session_pos(a) == 0 && srt_session_pos(b) == 0 &&   /* empty: give both a beginning */
        (srt_session_logits(a) || srt_session_feed(a, start, 3) != SRT_OK || srt_session_feed(b, start, 3) != SRT_OK)) return 0;
    for (i = 0; i < n; i++) {
        const float *la = srt_session_logits(a), *lb = srt_session_logits(b);
        int32_t ta = -1, tb = -2;
        if (!la || !lb || memcmp(la, lb, sizeof(float) * (size_t)n_vocab) != 0) return 0;
        if (srt_session_next(a, &ta) != SRT_OK || srt_session_next(b, &tb) != SRT_OK || ta != tb) return 0;
    }
    return srt_session_pos(a) == srt_session_pos(b) && memcmp(srt_session_tokens(a), srt_session_tokens(b), sizeof(int32_t) * (size_t)srt_session_pos(a)) == 0;
}

/* Saves a (buffer and file), loads both into fresh sessions with other seeds and context sizes,
   and checks that all three go on alike. */
static void check_round_trip(srt_model *m, srt_session *a, srt_kv_type kv, float sparsity, int n_vocab, const char *what) {
    size_t n = 0, nf = 0;
    unsigned char *st = state_of(a, &n), *file;
    srt_session *b = new_session(m, kv, 700, sparsity, 99), *c = new_session(m, kv, 300, sparsity, 7);
    int pos = srt_session_pos(a), ok;
    CHECK(st && b && c, "%s: state saved (%llu bytes): %s", what, (unsigned long long)n, st ? "" : srt_last_error());
    if (!st || !b || !c) { free(st); srt_session_destroy(b); srt_session_destroy(c); return; }
    CHECK(srt_session_save(a, "build/tmp/state.bin") == SRT_OK, "%s: state saved to a file: %s", what, srt_last_error());
    file = (unsigned char *)srt_test_read_file("build/tmp/state.bin", &nf);
    CHECK(file && nf == n && memcmp(file, st, n) == 0, "%s: the file holds the buffer's bytes", what);
    free(file);
    ok = srt_session_state_load(b, st, n) == SRT_OK && srt_session_load(c, "build/tmp/state.bin") == SRT_OK;
    CHECK(ok && srt_session_pos(b) == pos && srt_session_pos(c) == pos, "%s: loaded from the buffer and the file, %d tokens: %s", what, pos, ok ? "" : srt_last_error());
    if (ok) {
        size_t n2 = 0;
        unsigned char *st2 = state_of(b, &n2);
        CHECK(st2 && n2 == n && memcmp(st2, st, n) == 0, "%s: saving the loaded session gives the same bytes", what);
        free(st2);
        CHECK(go_on_alike(a, b, n_vocab, 12), "%s: the session loaded from the buffer samples what the saved one samples (12 tokens, logits bit for bit)", what);
        /* b, in use, takes the file's state over again; c (another context size) goes on alike */
        CHECK(srt_session_load(b, "build/tmp/state.bin") == SRT_OK && go_on_alike(b, c, n_vocab, 12) &&
              memcmp(srt_session_tokens(a), srt_session_tokens(c), sizeof(int32_t) * (size_t)srt_session_pos(c)) == 0,
              "%s: loaded again over a session in use, and from the file: the same 12 tokens", what);
    }
    free(st);
    srt_session_destroy(b); srt_session_destroy(c);
}

static void test_round_trips(const char *path, const char *name, int hd_min) {
    static const srt_kv_type kvs[] = {SRT_KV_F32, SRT_KV_F16, SRT_KV_Q8};
    srt_model *m = NULL;
    srt_model_info info;
    int32_t toks[100];
    size_t k;
    int i;
    char what[160];
    if (srt_model_load(path, NULL, &m) != SRT_OK) { CHECK(0, "%s loads: %s", name, srt_last_error()); return; }
    memset(&info, 0, sizeof info);
    srt_model_get_info(m, &info);
    for (i = 0; i < 100; i++) toks[i] = 3 + (int32_t)((uint32_t)(i * 2654435761u) % (uint32_t)(info.n_vocab - 3));
    for (k = 0; k < 3; k++) {
        srt_session *a = new_session(m, kvs[k], 512, 0.0f, 5);
        int32_t t;
        const char *kvn = kvs[k] == SRT_KV_F32 ? "f32" : kvs[k] == SRT_KV_F16 ? "f16" : "q8";
        if (!a) { CHECK(0, "%s session: %s", name, srt_last_error()); continue; }
        snprintf(what, sizeof what, "%s, %s KV, empty", name, kvn);
        check_round_trip(m, a, kvs[k], 0.0f, info.n_vocab, what);
        srt_session_reset(a);
        /* a 40-token prompt (3 batches), 3 sampled: the last one pending (not evaluated yet) */
        CHECK(srt_session_feed(a, toks, 40) == SRT_OK && srt_session_next(a, &t) == SRT_OK && srt_session_next(a, &t) == SRT_OK &&
              srt_session_next(a, &t) == SRT_OK && a->n_eval == 42 && a->n_tokens == 43, "%s, %s KV: prompt fed, 3 tokens sampled", name, kvn);
        snprintf(what, sizeof what, "%s, %s KV, a token pending", name, kvn);
        check_round_trip(m, a, kvs[k], 0.0f, info.n_vocab, what);
        /* truncated: no logits, the last kept token to be evaluated again */
        CHECK(srt_session_truncate(a, 30) == SRT_OK && !a->has_logits && a->n_eval == 29, "%s, %s KV: truncated to 30", name, kvn);
        snprintf(what, sizeof what, "%s, %s KV, truncated (no logits)", name, kvn);
        check_round_trip(m, a, kvs[k], 0.0f, info.n_vocab, what);
        srt_session_destroy(a);
    }
    /* sparse KV: two pruned stretches (two prompts with tokens generated between) */
    {
        float sp = hd_min < 16 ? 0.5f : 0.3f;
        srt_session *a = new_session(m, SRT_KV_F16, 512, sp, 5);
        int32_t t;
        CHECK(a && srt_session_feed(a, toks, 35) == SRT_OK && srt_session_next(a, &t) == SRT_OK && srt_session_next(a, &t) == SRT_OK &&
              srt_session_feed(a, toks + 50, 20) == SRT_OK && srt_session_next(a, &t) == SRT_OK && a->n_seg == 2,
              "%s, sparse KV %.1f: two prompts, two pruned stretches", name, (double)sp);
        snprintf(what, sizeof what, "%s, sparse KV %.1f, 2 stretches", name, (double)sp);
        if (a) check_round_trip(m, a, SRT_KV_F16, sp, info.n_vocab, what);
        srt_session_destroy(a);
    }
    srt_model_free(m);
}

/* srt_session_seed after a load: the app's seed rules, as if the prompt had been fed here. */
static void test_seed(const char *path) {
    srt_model *m = NULL;
    srt_session *a, *b, *d;
    int32_t toks[30];
    unsigned char *st = NULL;
    size_t n = 0;
    int i;
    if (srt_model_load(path, NULL, &m) != SRT_OK) { CHECK(0, "model loads: %s", srt_last_error()); return; }
    for (i = 0; i < 30; i++) toks[i] = 3 + i * 5;
    a = new_session(m, SRT_KV_F16, 128, 0.0f, 5); b = new_session(m, SRT_KV_F16, 128, 0.0f, 5); d = new_session(m, SRT_KV_F16, 128, 0.0f, 77);
    if (a && b && d && srt_session_feed(a, toks, 30) == SRT_OK && (st = state_of(a, &n)) != NULL && srt_session_feed(d, toks, 30) == SRT_OK &&
        srt_session_state_load(b, st, n) == SRT_OK) {
        srt_session_seed(b, 77);
        CHECK(go_on_alike(b, d, 0, 20), "srt_session_seed(77) after a load samples what a session seeded 77 samples");
        srt_session_state_load(b, st, n);
        CHECK(go_on_alike(a, b, 0, 20), "without it the saved seed's sequence goes on");
        CHECK(srt_session_pos(d) == 50 && memcmp(srt_session_tokens(a) + 30, srt_session_tokens(d) + 30, 20 * sizeof(int32_t)) != 0,
              "seeds 5 and 77 draw different tokens (so the checks above can fail)");
    } else CHECK(0, "sessions for srt_session_seed: %s", srt_last_error());
    free(st);
    srt_session_destroy(a); srt_session_destroy(b); srt_session_destroy(d);
    srt_model_free(m);
}

/* A refused load leaves the session as it was: its tokens and logits, and what it samples next. */
static int unchanged(srt_session *s, const unsigned char *before, size_t n) {
    size_t n2 = 0;
    unsigned char *now = state_of(s, &n2);
    int same = now && n2 == n && memcmp(now, before, n) == 0;
    free(now);
    return same;
}

static void test_refusals(const char *path, const char *other_path, const char *other_shape_path) {
    srt_model *m = NULL, *o = NULL, *w = NULL;
    srt_session *a, *b, *q, *sp;
    srt_model_info info;
    unsigned char *st = NULL, *bad, *mine = NULL;
    size_t n = 0, n_mine = 0, i, size = 0;
    int32_t toks[20];
    int all_refused = 1, checksum = 0;
    if (srt_model_load(path, NULL, &m) != SRT_OK || srt_model_load(other_path, NULL, &o) != SRT_OK || srt_model_load(other_shape_path, NULL, &w) != SRT_OK) {
        CHECK(0, "models load: %s", srt_last_error());
        srt_model_free(m); srt_model_free(o);
        return;
    }
    srt_model_get_info(m, &info);
    for (i = 0; i < 20; i++) toks[i] = 3 + (int32_t)(i * 7);
    a = new_session(m, SRT_KV_F16, 64, 0.0f, 1);
    b = new_session(m, SRT_KV_F16, 64, 0.0f, 2);
    if (!a || !b || srt_session_feed(a, toks, 12) != SRT_OK || srt_session_feed(b, toks + 3, 9) != SRT_OK || !(st = state_of(a, &n)) || !(mine = state_of(b, &n_mine))) {
        CHECK(0, "sessions for the refusals: %s", srt_last_error());
        goto done;
    }
    /* every truncation and a flipped byte anywhere: refused, b untouched */
    for (i = 0; i < n; i++) {
        srt_status r = srt_session_state_load(b, st, i);
        if (r == SRT_OK) all_refused = 0;
    }
    CHECK(all_refused, "each of the %llu truncations is refused", (unsigned long long)n);
    CHECK(srt_session_state_load(b, st, n - 1) == SRT_ERR_FORMAT && strstr(srt_last_error(), "truncated"), "a truncated state: %s", srt_last_error());
    if ((bad = (unsigned char *)malloc(n + 1)) != NULL) {
        for (i = 0; i < n; i++) {
            srt_status r;
            memcpy(bad, st, n);
            bad[i] ^= (unsigned char)(1u << (i % 8));
            r = srt_session_state_load(b, bad, n);
            if (r == SRT_OK) all_refused = 0;
            if (r == SRT_ERR_CHECKSUM) checksum++;
        }
        CHECK(all_refused && checksum > 0, "a flipped bit in each of the %llu bytes is refused (%d by the checksum)", (unsigned long long)n, checksum);
        memcpy(bad, st, n); bad[n] = 0;
        CHECK(srt_session_state_load(b, bad, n + 1) == SRT_ERR_FORMAT && strstr(srt_last_error(), "trailing"), "a byte too many: %s", srt_last_error());
        memcpy(bad, st, n); bad[4] = 2;
        CHECK(srt_session_state_load(b, bad, n) == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "version 2"), "a newer version: %s", srt_last_error());
        memcpy(bad, st, n); bad[0] = 'X';
        CHECK(srt_session_state_load(b, bad, n) == SRT_ERR_FORMAT && strstr(srt_last_error(), "magic"), "no magic: %s", srt_last_error());
        free(bad);
    }
    CHECK(unchanged(b, mine, n_mine), "the refused session is as it was");
    /* another model, the same shape; another shape; another KV type; too small a context; sparsity */
    {
        srt_session *ob = new_session(o, SRT_KV_F16, 64, 0.0f, 1), *wb = new_session(w, SRT_KV_F16, 64, 0.0f, 1);
        CHECK(ob && srt_session_state_load(ob, st, n) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "another model of the same shape"),
              "a state of another model of the same shape: %s", srt_last_error());
        CHECK(wb && srt_session_state_load(wb, st, n) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "another model ("),
              "a state of a model of another shape: %s", srt_last_error());
        srt_session_destroy(ob); srt_session_destroy(wb);
    }
    q = new_session(m, SRT_KV_Q8, 64, 0.0f, 1);
    CHECK(q && srt_session_state_load(q, st, n) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "its KV cache is f16, this session's is q8"),
          "an f16 state into a q8 session: %s", srt_last_error());
    srt_session_destroy(q);
    q = new_session(m, SRT_KV_F16, 10, 0.0f, 1);
    CHECK(q && srt_session_state_load(q, st, n) == SRT_ERR_CONTEXT_FULL && srt_session_pos(q) == 0, "12 tokens into a context of 10: %s", srt_last_error());
    srt_session_destroy(q);
    sp = new_session(m, SRT_KV_F16, 64, 0.5f, 1);
    if (sp && srt_session_feed(sp, toks, 12) == SRT_OK && sp->n_seg == 1) {
        unsigned char *sst = NULL;
        size_t sn = 0;
        CHECK(srt_session_state_load(sp, st, n) == SRT_OK && sp->n_seg == 0, "a dense state into a sparse session (nothing pruned in it)");
        CHECK(srt_session_feed(sp, toks, 12) == SRT_OK && sp->n_seg == 1 && (sst = state_of(sp, &sn)) != NULL, "the sparse session prunes what it is fed next");
        if (sst) {
            CHECK(srt_session_state_load(b, sst, sn) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "kv_sparsity"),
                  "a state with pruned rows into a dense session: %s", srt_last_error());
            free(sst);
        }
    } else CHECK(0, "a sparse session: %s", srt_last_error());
    srt_session_destroy(sp);
    /* arguments and files */
    CHECK(srt_session_state_save(a, NULL, 0, NULL) == SRT_ERR_INVALID_ARG, "no size pointer");
    CHECK(srt_session_state_save(NULL, NULL, 0, &size) == SRT_ERR_INVALID_ARG && srt_session_state_load(NULL, st, n) == SRT_ERR_INVALID_ARG,
          "no session");
    if ((bad = (unsigned char *)malloc(n)) != NULL) {
        size = 0;
        CHECK(srt_session_state_save(a, bad, n - 1, &size) == SRT_ERR_INVALID_ARG && size == n, "a buffer one byte short: %s", srt_last_error());
        free(bad);
    }
    CHECK(srt_session_state_load(b, NULL, 0) == SRT_ERR_FORMAT, "nothing to load");
    CHECK(srt_session_load(b, "build/tmp/no-such-state.bin") == SRT_ERR_IO, "a missing file: %s", srt_last_error());
    CHECK(srt_session_save(a, "build/tmp/no-such-dir/state.bin") == SRT_ERR_IO, "a file that cannot be made: %s", srt_last_error());
    {
        FILE *f = fopen("build/tmp/state-short.bin", "wb");
        if (f) { fwrite(st, 1, n / 2, f); fclose(f); }
        CHECK(srt_session_load(b, "build/tmp/state-short.bin") == SRT_ERR_FORMAT && strstr(srt_last_error(), "build/tmp/state-short.bin: session state: ") && strstr(srt_last_error(), "(truncated)"),
              "a truncated file names the file: %s", srt_last_error());
        remove("build/tmp/state-short.bin");
    }
    CHECK(unchanged(b, mine, n_mine), "after all the refusals the session is still as it was");
done:
    free(st); free(mine);
    srt_session_destroy(a); srt_session_destroy(b);
    srt_model_free(m); srt_model_free(o); srt_model_free(w);
}

/* ---------------------------------------------------------------- conversation files */
/* srt_session_save_chat / _load_chat: the messages come back as saved (any bytes but NUL, in
   order), the state as srt_session_save's; plain srt_session_load reads the file too; damaged
   message sections and bad arguments are refused. */
static void test_chat_files(const char *path) {
    static const char weird[] = "caf\xc3\xa9 \xe2\x82\xac \xff\xfe half a character: \xe2\x82 <|im_end|>\n\t";
    srt_chat_message msgs[4], *back = NULL;
    srt_model *m = NULL;
    srt_session *a, *b, *c;
    int32_t toks[20], t;
    int i, n = -1, same;
    size_t na = 0, nf = 0;
    unsigned char *sa = NULL, *file = NULL;
    if (srt_model_load(path, NULL, &m) != SRT_OK) { CHECK(0, "model loads: %s", srt_last_error()); return; }
    for (i = 0; i < 20; i++) toks[i] = 3 + i * 11;
    msgs[0].role = "system"; msgs[0].content = "Tell stories.";
    msgs[1].role = "user"; msgs[1].content = weird;
    msgs[2].role = "assistant"; msgs[2].content = "";
    msgs[3].role = "srt-chat:fed"; msgs[3].content = "<|im_start|>system\nTell stories.";
    a = new_session(m, SRT_KV_F16, 64, 0.0f, 5); b = new_session(m, SRT_KV_F16, 64, 0.0f, 6); c = new_session(m, SRT_KV_F16, 64, 0.0f, 7);
    if (!a || !b || !c || srt_session_feed(a, toks, 20) != SRT_OK || srt_session_next(a, &t) != SRT_OK || !(sa = state_of(a, &na))) {
        CHECK(0, "sessions for the conversation files: %s", srt_last_error());
        goto done;
    }
    CHECK(srt_session_save_chat(a, "build/tmp/chat.state", msgs, 4) == SRT_OK, "a conversation file saved");
    CHECK(srt_session_load_chat(b, "build/tmp/chat.state", &back, &n) == SRT_OK && n == 4 && back, "loaded: 4 messages back");
    same = back && n == 4;
    for (i = 0; same && i < 4; i++) same = !strcmp(back[i].role, msgs[i].role) && !strcmp(back[i].content, msgs[i].content);
    CHECK(same, "the roles and contents are the saved bytes (invalid UTF-8, a cut character, control text and an empty one too)");
    srt_chat_messages_free(back); back = NULL;
    CHECK(go_on_alike(a, b, 0, 6), "the loaded session goes on as the saved one");
    CHECK(srt_session_load(c, "build/tmp/chat.state") == SRT_OK && srt_session_pos(c) == 21, "srt_session_load reads a conversation file (messages skipped)");
    CHECK(srt_session_load_chat(c, "build/tmp/chat.state", NULL, &n) == SRT_ERR_INVALID_ARG, "load_chat without a messages pointer is refused");
    /* a file without messages: load_chat gives none */
    CHECK(srt_session_save(a, "build/tmp/chat0.state") == SRT_OK && srt_session_load_chat(c, "build/tmp/chat0.state", &back, &n) == SRT_OK && n == 0 && !back,
          "a plain state through load_chat: no messages");
    /* refused messages */
    msgs[2].role = ""; 
    CHECK(srt_session_save_chat(a, "build/tmp/chat1.state", msgs, 4) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "message 2"), "an empty role is refused: %s", srt_last_error());
    msgs[2].role = "assistant"; msgs[2].content = NULL;
    CHECK(srt_session_save_chat(a, "build/tmp/chat1.state", msgs, 4) == SRT_ERR_INVALID_ARG, "a NULL content is refused");
    msgs[2].content = "";
    CHECK(srt_session_save_chat(a, "build/tmp/chat1.state", NULL, 2) == SRT_ERR_INVALID_ARG && srt_session_save_chat(a, "build/tmp/chat1.state", msgs, -1) == SRT_ERR_INVALID_ARG,
          "no messages pointer, a negative count: refused");
    /* a damaged messages section (checksum made right, so the section's own checks answer) */
    if ((file = (unsigned char *)srt_test_read_file("build/tmp/chat.state", &nf)) != NULL) {
        static const struct { size_t at; uint32_t v; const char *what; } bad[] = {
            {72, 0, "an empty role"}, {72, 1000, "a role past the section"}, {64, 5, "one message more than there are"}, {76, 0, "a NUL inside a role"}};
        size_t k;
        srt__crc32 tab;
        srt__crc32_init(&tab);
        for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            unsigned char *d = (unsigned char *)malloc(nf);
            srt_status r;
            if (!d) continue;
            memcpy(d, file, nf);
            if (k == 3) d[bad[k].at] = 0; else srt__put_le(d + bad[k].at, bad[k].v, 4);
            srt__put_le(d + nf - 4, srt__crc32_update(&tab, 0, d, nf - 4), 4);
            r = srt_session_state_load(c, d, nf);
            CHECK(r == SRT_ERR_FORMAT && strstr(srt_last_error(), "messages"), "%s in the messages section is refused: %s", bad[k].what, srt_last_error());
            free(d);
        }
        free(file);
    }
done:
    free(sa);
    srt_session_destroy(a); srt_session_destroy(b); srt_session_destroy(c);
    srt_model_free(m);
    remove("build/tmp/chat.state"); remove("build/tmp/chat0.state");
}

/* ---------------------------------------------------------------- a backend's state */
/* A stand-in backend whose "device" is a CPU session of the same model: the core's device path
   (srt_backend.kv_copy: the position-major layout, errors) without a GPU. The real backends run
   the same checks in tests/backend_test.h (CUDA: also on its CPU emulator). */
typedef struct mock { srt_model *cpu; int copies, fail_at; } mock;
static srt_status mock_load(srt_backend *b, const srt_backend_model *m, void **model, char *err, size_t cap) { (void)m; (void)err; (void)cap; *model = b->impl; return SRT_OK; }
static void mock_unload(srt_backend *b, void *model) { (void)b; (void)model; }
static srt_status mock_session_create(srt_backend *b, void *model, int n_ctx, int n_batch, srt_kv_type kv_type, void **session, char *err, size_t cap) {
    srt_session_desc sd;
    srt_session *s = NULL;
    (void)model;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = n_ctx; sd.n_batch = n_batch; sd.kv_type = kv_type;
    if (srt_session_create(((mock *)b->impl)->cpu, &sd, &s) != SRT_OK) { snprintf(err, cap, "%s", srt_last_error()); return SRT_ERR_OUT_OF_MEMORY; }
    *session = s;
    return SRT_OK;
}
static void mock_session_destroy(srt_backend *b, void *session) { (void)b; srt_session_destroy((srt_session *)session); }
/* forward_rows: the last n_logits tokens one at a time, each one's logits copied (forward: 0 or 1) */
static srt_status mock_forward_rows(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs, int n_logits,
                                   float *logits, char *err, size_t cap) {
    srt_session *s = (srt_session *)session;
    const int V = s->m->n_vocab;
    int i;
    (void)b; (void)rope_cs;
    if (srt_session_truncate(s, pos) != SRT_OK || (n > n_logits && srt_session_feed(s, tokens, n - n_logits) != SRT_OK)) { snprintf(err, cap, "%s", srt_last_error()); return SRT_ERR_INVALID_ARG; }
    for (i = 0; i < n_logits; i++) {
        if (srt_session_feed(s, tokens + n - n_logits + i, 1) != SRT_OK) { snprintf(err, cap, "%s", srt_last_error()); return SRT_ERR_INVALID_ARG; }
        memcpy(logits + (size_t)i * (size_t)V, srt_session_logits(s), sizeof(float) * (size_t)V);
    }
    return SRT_OK;
}
static srt_status mock_forward(srt_backend *b, void *session, const int32_t *tokens, int n, int pos, const float *rope_cs, float *logits, char *err, size_t cap) {
    return mock_forward_rows(b, session, tokens, n, pos, rope_cs, logits ? 1 : 0, logits, err, cap);
}
static srt_status mock_kv_copy(srt_backend *b, void *session, int which, int layer, int n, void *host, int to_device, char *err, size_t cap) {
    mock *mk = (mock *)b->impl;
    srt_session *s = (srt_session *)session;
    int kvh, p;
    if (++mk->copies == mk->fail_at) { snprintf(err, cap, "the device fell off the bus"); return SRT_ERR_IO; }
    for (kvh = 0; kvh < s->m->n_head_kv; kvh++)
        for (p = 0; p < n; p++) {
            char *row = srt__kv_region(s, which, layer, kvh) + (size_t)p * s->kv_row, *h = (char *)host + ((size_t)p * (size_t)s->m->n_head_kv + (size_t)kvh) * s->kv_row;
            if (to_device) memcpy(row, h, (size_t)s->kv_row); else memcpy(h, row, (size_t)s->kv_row);
        }
    if (to_device) { s->n_tokens = s->n_eval = n; s->has_logits = 0; }   /* the rows are there now; their tokens do not matter to it */
    return SRT_OK;
}

static int file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static void test_backend(const char *path, srt_kv_type kv) {
    const char *kvn = kv == SRT_KV_Q8 ? "q8" : "f16";
    srt_backend be;
    mock mk;
    srt_model *cpu = NULL, *dev = NULL;
    srt_model_desc md;
    srt_session *d1 = NULL, *d2 = NULL, *c1 = NULL;
    int32_t toks[40], t;
    int i;
    memset(&be, 0, sizeof be);
    memset(&mk, 0, sizeof mk);
    be.name = "mock"; be.impl = &mk;
    be.load = mock_load; be.unload = mock_unload; be.session_create = mock_session_create; be.session_destroy = mock_session_destroy;
    be.forward = mock_forward; be.kv_copy = mock_kv_copy;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (srt_model_load(path, &md, &cpu) != SRT_OK || srt_model_load(path, &md, &mk.cpu) != SRT_OK || (md.backend = &be, srt_model_load(path, &md, &dev)) != SRT_OK) {
        CHECK(0, "models for the backend checks: %s", srt_last_error());
        srt_model_free(cpu); srt_model_free(mk.cpu);
        return;
    }
    for (i = 0; i < 40; i++) toks[i] = 3 + (i * 37 + 11) % 290;
    d1 = new_session(dev, kv, 128, 0.0f, 5); d2 = new_session(dev, kv, 128, 0.0f, 6); c1 = new_session(cpu, kv, 128, 0.0f, 7);
    if (d1 && d2 && c1 && srt_session_feed(d1, toks, 40) == SRT_OK && srt_session_next(d1, &t) == SRT_OK && srt_session_next(d1, &t) == SRT_OK) {
        size_t n = 0, nc = 0;
        unsigned char *st = state_of(d1, &n), *cs = NULL;
        srt_model_info info;
        memset(&info, 0, sizeof info);
        srt_model_get_info(dev, &info);
        CHECK(st != NULL, "%s KV: a backend session's state saved through kv_copy: %s", kvn, st ? "" : srt_last_error());
        {   /* the same prompt and seed on the CPU: the same bytes (rows in the CPU's order) */
            srt_session *c2 = new_session(cpu, kv, 128, 0.0f, 5);
            unsigned char *c2s = NULL;
            size_t n2 = 0;
            CHECK(c2 && srt_session_feed(c2, toks, 40) == SRT_OK && srt_session_next(c2, &t) == SRT_OK && srt_session_next(c2, &t) == SRT_OK &&
                  (c2s = state_of(c2, &n2)) != NULL && st && n2 == n && memcmp(c2s, st, n) == 0, "%s KV: a CPU session given the same prompt and seed saves the same bytes", kvn);
            free(c2s);
            srt_session_destroy(c2);
        }
        CHECK(st && srt_session_state_load(c1, st, n) == SRT_OK && (cs = state_of(c1, &nc)) != NULL && nc == n && memcmp(cs, st, n) == 0,
              "%s KV: it loads into a CPU session, which saves the same bytes", kvn);
        CHECK(st && srt_session_state_load(d2, st, n) == SRT_OK && go_on_alike(d1, d2, info.n_vocab, 8), "%s KV: it loads into another backend session: both go on alike", kvn);
        CHECK(st && srt_session_state_load(d1, st, n) == SRT_OK && go_on_alike(c1, d1, info.n_vocab, 8),
              "%s KV: and the CPU session goes on as the backend session does", kvn);
        /* a device error half-way: the load fails with the backend's message and leaves the session empty */
        mk.copies = 0; mk.fail_at = 3;
        if (kv == SRT_KV_F16) CHECK(st && srt_session_state_load(d2, st, n) == SRT_ERR_IO && strstr(srt_last_error(), "backend mock: the device fell off the bus") && srt_session_pos(d2) == 0 &&
              !srt_session_logits(d2), "a device error while the cache is written: the error, and an empty session");
        mk.copies = 0; mk.fail_at = 2;
        remove("build/tmp/state-dev.bin");
        if (kv == SRT_KV_F16) CHECK(srt_session_save(d1, "build/tmp/state-dev.bin") == SRT_ERR_IO && strstr(srt_last_error(), "fell off") &&
              !file_exists("build/tmp/state-dev.bin") && !file_exists("build/tmp/state-dev.bin.tmp"), "a device error while saving: no file, no temporary file");
        mk.fail_at = 0;
        free(st); free(cs);
    } else CHECK(0, "backend sessions: %s", srt_last_error());
    srt_session_destroy(d1); srt_session_destroy(d2); srt_session_destroy(c1);
    srt_model_free(dev); srt_model_free(cpu); srt_model_free(mk.cpu);
}

/* Speculative decoding through a backend: refused without srt_backend.forward_rows; with it (the
   mock's), greedy tokens with proposals right, wrong and mixed are the CPU's plain ones, and so is
   srt_generate with prompt lookup. (The real backends: check_spec in tests/backend_test.h.) */
static void test_backend_spec(const char *path) {
    srt_backend be;
    mock mk;
    srt_model *cpu = NULL, *dev = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    srt_session *c = NULL, *d = NULL;
    srt_generate_desc g;
    srt_generate_result rc, rd;
    int32_t toks[12], ref[48], got[48], draft[6], out[7];
    int i, n_got = 0, evals = 0, n_out = 0, kept = 0;
    srt_status st;
    memset(&be, 0, sizeof be);
    memset(&mk, 0, sizeof mk);
    be.name = "mock"; be.impl = &mk;
    be.load = mock_load; be.unload = mock_unload; be.session_create = mock_session_create; be.session_destroy = mock_session_destroy;
    be.forward = mock_forward;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 128; sd.n_batch = 16;   /* greedy */
    if (srt_model_load(path, &md, &cpu) != SRT_OK || srt_model_load(path, &md, &mk.cpu) != SRT_OK || (md.backend = &be, srt_model_load(path, &md, &dev)) != SRT_OK ||
        srt_session_create(cpu, &sd, &c) != SRT_OK || srt_session_create(dev, &sd, &d) != SRT_OK) {
        CHECK(0, "models and sessions for the backend's speculative decoding: %s", srt_last_error());
        srt_session_destroy(c); srt_session_destroy(d); srt_model_free(cpu); srt_model_free(mk.cpu); srt_model_free(dev);
        return;
    }
    for (i = 0; i < 12; i++) toks[i] = 3 + (i * 37 + 11) % 290;
    srt_session_feed(c, toks, 12); srt_session_feed(d, toks, 12);
    for (i = 0; i < 48; i++) srt_session_next(c, &ref[i]);
    st = srt_session_next_draft(d, ref, 3, out, &n_out);
    CHECK(st == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "forward_rows"), "a backend without forward_rows: srt_session_next_draft refused (%s)", srt_last_error());
    memset(&g, 0, sizeof g);
    g.max_tokens = 8; g.draft_max = 4;
    st = srt_generate(d, &g, &rd);
    CHECK(st == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "forward_rows"), "and srt_generate with draft_max (%s)", srt_last_error());
    be.forward_rows = mock_forward_rows;
    while (n_got < 40) {
        const int k = 1 + evals % 6, pattern = evals % 3;   /* all right, all wrong, the middle one wrong */
        for (i = 0; i < k; i++) draft[i] = pattern == 1 || (pattern == 2 && i == k / 2) ? (ref[n_got + i] + 1) % 290 : ref[n_got + i];
        if (srt_session_next_draft(d, draft, k, out, &n_out) != SRT_OK) { CHECK(0, "next_draft on the backend: %s", srt_last_error()); break; }
        memcpy(got + n_got, out, sizeof(int32_t) * (size_t)n_out);
        n_got += n_out; evals++; kept += n_out - 1;
    }
    CHECK(n_got >= 40 && memcmp(got, ref, sizeof(int32_t) * (size_t)n_got) == 0,
          "with forward_rows: %d greedy tokens in %d evaluations (%d proposals kept) are the CPU's plain ones", n_got, evals, kept);
    {   /* srt_generate with prompt lookup on a repetitive prompt, against plain on the CPU */
        memset(&g, 0, sizeof g);
        g.prompt = "Once upon a time, Lily had a red ball. Once upon a time, Lily had"; g.max_tokens = 24;
        srt_session_reset(c); srt_session_reset(d);
        st = srt_generate(c, &g, &rc);
        g.draft_max = 4;
        if (st == SRT_OK) st = srt_generate(d, &g, &rd);
        CHECK(st == SRT_OK && rd.n_generated == rc.n_generated && srt_session_pos(c) == srt_session_pos(d) &&
              memcmp(srt_session_tokens(c), srt_session_tokens(d), sizeof(int32_t) * (size_t)srt_session_pos(c)) == 0 && rd.n_passes < rd.n_generated,
              "srt_generate with prompt lookup on the backend: plain decoding's %d tokens (%d evaluations, %d of %d proposals kept)", rd.n_generated,
              rd.n_passes, rd.n_accepted, rd.n_proposed);
    }
    srt_session_destroy(c); srt_session_destroy(d);
    srt_model_free(dev); srt_model_free(cpu); srt_model_free(mk.cpu);
}

int main(void) {
    if (system("mkdir -p build/tmp") != 0) return 1;
    CHECK(make_model("build/tmp/state_a.srt", 16, 1) && make_model("build/tmp/state_b.srt", 16, 2) && make_model("build/tmp/state_c.srt", 8, 1),
          "random models written (build/tmp/state_make.log)");
    test_round_trips("build/tmp/state_a.srt", "random model", 16);
    CHECK(system("build/srt-pack -q " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/state_stories.srt > build/tmp/state_pack.log 2>&1") == 0,
          "stories260K packed (build/tmp/state_pack.log)");
    test_round_trips("build/tmp/state_stories.srt", "stories260K", 8);
    test_seed("build/tmp/state_a.srt");
    test_backend("build/tmp/state_a.srt", SRT_KV_F16);
    test_backend("build/tmp/state_a.srt", SRT_KV_Q8);
    test_backend_spec("build/tmp/state_stories.srt");
    test_chat_files("build/tmp/state_a.srt");
    test_refusals("build/tmp/state_a.srt", "build/tmp/state_b.srt", "build/tmp/state_c.srt");
    remove("build/tmp/state_a.srt"); remove("build/tmp/state_b.srt"); remove("build/tmp/state_c.srt");
    remove("build/tmp/state_stories.srt"); remove("build/tmp/state.bin");
    return srt_test_finish();
}
