/* test_limits.c - resource limits and the edges of a session's life: a model file larger than the
   memory available is refused before it is mapped or copied (srt_model_desc.memory_limit stands in
   for a small machine; a sparse 1 TiB file for a real one), the context window overflows cleanly,
   srt_session_cancel from another thread stops a long prompt and a generation, and a session
   stopped by its callback or cancelled with a token handed out is destroyed cleanly (run under
   asan, tsan and valgrind by build.sh). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include "tiny_model.h"
#include <stdlib.h>
#ifdef _WIN32
#  include <windows.h>
#else
#  include <pthread.h>
#  include <sched.h>
#  include <fcntl.h>
#  include <unistd.h>
#endif

#define TINY "build/tmp/limits_tiny.srt"

static uint64_t file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

/* ---------------------------------------------------------------- big models */
static void test_big_model(void) {
    static const srt_load loads[3] = {SRT_LOAD_AUTO, SRT_LOAD_MMAP, SRT_LOAD_COPY};
    static const char *const load_names[3] = {"auto", "mmap", "copy"};
    srt_model_desc d;
    srt_model *m = NULL;
    uint64_t size = file_size(TINY);
    char want[64];
    int i;
    memset(&d, 0, sizeof d);
    d.n_threads = 1;
    CHECK(size > 0, "the tiny model is %llu bytes", (unsigned long long)size);
    snprintf(want, sizeof want, "%llu bytes", (unsigned long long)size);
    for (i = 0; i < 3; i++) {
        srt_status st;
        d.load = loads[i];
        d.memory_limit = size - 1;
        st = srt_model_load(TINY, &d, &m);
        CHECK(st == SRT_ERR_OUT_OF_MEMORY && m == NULL && strstr(srt_last_error(), want) && strstr(srt_last_error(), "memory_limit"),
              "load %s: a file one byte larger than the memory limit is refused, naming the sizes: %s", load_names[i], srt_last_error());
        if (m) { srt_model_free(m); m = NULL; }
        d.memory_limit = size;
        st = srt_model_load(TINY, &d, &m);
        CHECK(st == SRT_OK && m != NULL, "load %s: a file exactly the size of the memory limit loads (%s)", load_names[i], st ? srt_last_error() : "ok");
        if (m) {
            srt_model_info info;
            srt_model_get_info(m, &info);
            CHECK(i == 0 || info.load == loads[i], "load %s: loaded as asked", load_names[i]);
            srt_model_free(m); m = NULL;
        }
    }
    d.load = SRT_LOAD_AUTO;
    d.memory_limit = 0;
    CHECK(srt_model_load(TINY, &d, &m) == SRT_OK, "memory_limit 0: the limit is what the OS reports free, and a small model fits");
    srt_model_free(m); m = NULL;
#if defined(__linux__)
    {   /* a real machine: a sparse file of 1 TiB (no disk blocks) is bigger than RAM + swap here */
        const char *big = "build/tmp/limits_1tib.srt";
        int fd = open(big, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        int made = fd >= 0 && ftruncate(fd, (off_t)1 << 40) == 0;
        if (fd >= 0) close(fd);
        if (!made) CHECK(0, "cannot make a sparse 1 TiB file (%s)", big);
        else {
            srt_status st;
            for (i = 0; i < 3; i++) {
                d.load = loads[i];
                st = srt_model_load(big, &d, &m);
                CHECK(st == SRT_ERR_OUT_OF_MEMORY && m == NULL && strstr(srt_last_error(), "1099511627776 bytes"),
                      "load %s: a 1 TiB model is refused before it is mapped or read: %s", load_names[i], srt_last_error());
            }
            /* the override: the file is mapped, and then found not to be a model (all zeros) */
            d.load = SRT_LOAD_MMAP;
            d.memory_limit = UINT64_MAX;
            st = srt_model_load(big, &d, &m);
            CHECK(st != SRT_ERR_OUT_OF_MEMORY && st != SRT_OK && m == NULL,
                  "memory_limit UINT64_MAX: no refusal, the mapped file is judged by its contents (%s: %s)", srt_status_str(st), srt_last_error());
            d.memory_limit = 0;
        }
        remove(big);
    }
#endif
}

/* ---------------------------------------------------------------- context overflow */
static void greedy_ids(srt_session *s, const char *prompt, int n, int32_t *out) {
    int i;
    srt_session_reset(s);
    if (srt_session_prompt(s, prompt, 0) != SRT_OK) { memset(out, 0xff, (size_t)n * sizeof *out); return; }
    for (i = 0; i < n; i++) if (srt_session_next(s, &out[i]) != SRT_OK) out[i] = -1;
}

static void test_context_overflow(srt_model *m) {
    srt_session_desc sd;
    srt_session *s;
    srt_generate_desc g;
    srt_generate_result r;
    int32_t ids[40], before[6], after[6], t;
    srt_status st;
    int i, n_ctx = 16;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = n_ctx; sd.n_batch = 4;
    if (srt_session_create(m, &sd, &s) != SRT_OK) { CHECK(0, "session: %s", srt_last_error()); return; }
    greedy_ids(s, "abc", 6, before);
    for (i = 0; i < 40; i++) ids[i] = 3 + i;
    srt_session_reset(s);
    CHECK(srt_session_feed(s, ids, n_ctx + 1) == SRT_ERR_CONTEXT_FULL && srt_session_pos(s) == 0,
          "feed n_ctx + 1 tokens: SRT_ERR_CONTEXT_FULL, nothing consumed (%s)", srt_last_error());
    CHECK(srt_session_feed(s, ids, n_ctx) == SRT_OK && srt_session_pos(s) == n_ctx, "feed exactly n_ctx tokens fits");
    CHECK(srt_session_feed(s, ids, 1) == SRT_ERR_CONTEXT_FULL && srt_session_pos(s) == n_ctx, "one more token on a full context: SRT_ERR_CONTEXT_FULL");
    CHECK(srt_session_next(s, &t) == SRT_ERR_CONTEXT_FULL && srt_session_pos(s) == n_ctx, "next on a full context: SRT_ERR_CONTEXT_FULL");
    CHECK(srt_session_prompt(s, "abc", 0) == SRT_ERR_CONTEXT_FULL, "a prompt on a full context: SRT_ERR_CONTEXT_FULL");
    CHECK(srt_session_logits(s) != NULL, "the logits of the last token are still there");
    memset(&g, 0, sizeof g);
    g.stop_at_eos = -1;
    st = srt_generate(s, &g, &r);
    CHECK(st == SRT_ERR_CONTEXT_FULL && r.stopped_by == 4 && r.n_generated == 0,
          "generate on a full context: SRT_ERR_CONTEXT_FULL, stopped_by 4, nothing generated");
    /* generating into the end of the context */
    srt_session_reset(s);
    g.prompt = "abc"; g.max_tokens = 0;
    st = srt_generate(s, &g, &r);
    CHECK(st == SRT_ERR_CONTEXT_FULL && r.stopped_by == 4 && srt_session_pos(s) == n_ctx && r.n_prompt + r.n_generated == n_ctx,
          "generate until the context is full: %d prompt + %d generated = n_ctx, stopped_by 4", r.n_prompt, r.n_generated);
    /* a prompt that alone does not fit */
    srt_session_reset(s);
    g.prompt = "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc"; g.max_tokens = 4;   /* 21 tokens */
    st = srt_generate(s, &g, &r);
    CHECK(st == SRT_ERR_CONTEXT_FULL && r.stopped_by == 4 && r.n_generated == 0 && srt_session_pos(s) == 0,
          "generate with a prompt longer than the context: SRT_ERR_CONTEXT_FULL, stopped_by 4, nothing consumed");
    greedy_ids(s, "abc", 6, after);
    CHECK(memcmp(before, after, sizeof before) == 0, "after the overflows and a reset the session generates what it did at first");
    srt_session_destroy(s);
}

/* ---------------------------------------------------------------- cancellation from another thread */
/* The worker blocks in a callback (observer or on_text) until the other thread has called
   srt_session_cancel, so the request arrives while the call is running, whatever the scheduler. */
typedef struct cancel_run {
    srt_session *s;
    int32_t started;        /* atomic: the worker is inside the call */
    int32_t cancel_sent;    /* atomic: the canceller has called srt_session_cancel */
    int blocked;            /* the worker has waited once (worker thread only) */
    int pos_at_block;       /* srt_session_pos when it did */
} cancel_run;

static void wait_for(int32_t *flag) {
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
#ifdef _WIN32
        SwitchToThread();
#else
        sched_yield();
#endif
    }
}
static void block_until_cancelled(cancel_run *c) {
    if (c->blocked) return;
    c->blocked = 1;
    c->pos_at_block = srt_session_pos(c->s);
    __atomic_store_n(&c->started, 1, __ATOMIC_RELEASE);
    wait_for(&c->cancel_sent);
}
static void observe_block(void *user, int layer, const char *weight, const float *x, int n_tokens, int cols) {
    (void)layer; (void)weight; (void)x; (void)n_tokens; (void)cols;
    block_until_cancelled((cancel_run *)user);
}
static int on_text_block(const char *text, int len, int32_t tok, void *user) {
    (void)text; (void)len; (void)tok;
    block_until_cancelled((cancel_run *)user);
    return 0;
}
#ifdef _WIN32
static DWORD WINAPI canceller(LPVOID arg)
#else
static void *canceller(void *arg)
#endif
{
    cancel_run *c = (cancel_run *)arg;
    wait_for(&c->started);
    srt_session_cancel(c->s);
    __atomic_store_n(&c->cancel_sent, 1, __ATOMIC_RELEASE);
    return 0;
}
typedef struct thread_handle {
#ifdef _WIN32
    HANDLE h;
#else
    pthread_t h;
#endif
} thread_handle;
static int start_canceller(thread_handle *t, cancel_run *c) {
#ifdef _WIN32
    return (t->h = CreateThread(NULL, 0, canceller, c, 0, NULL)) != NULL;
#else
    return pthread_create(&t->h, NULL, canceller, c) == 0;
#endif
}
static void join(thread_handle *t) {
#ifdef _WIN32
    WaitForSingleObject(t->h, INFINITE); CloseHandle(t->h);
#else
    pthread_join(t->h, NULL);
#endif
}

static void test_cancel_threads(srt_model *m) {
    srt_session_desc sd;
    srt_session *s;
    srt_generate_desc g;
    srt_generate_result r;
    cancel_run c;
    thread_handle th;
    int32_t ids[1000], ref[6], got[6];
    srt_status st;
    int i, n = 1000;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 1024; sd.n_batch = 8;
    sd.observer = observe_block; sd.observer_user = &c;
    if (srt_session_create(m, &sd, &s) != SRT_OK) { CHECK(0, "session: %s", srt_last_error()); return; }
    for (i = 0; i < n; i++) ids[i] = 3 + (i * 7) % 20;
    /* a long prompt (125 batches) cancelled while its first batch is evaluated */
    memset(&c, 0, sizeof c); c.s = s;
    if (!start_canceller(&th, &c)) { CHECK(0, "thread"); srt_session_destroy(s); return; }
    st = srt_session_feed(s, ids, n);
    __atomic_store_n(&c.started, 1, __ATOMIC_RELEASE);   /* if the call never blocked: no hang */
    join(&th);
    CHECK(st == SRT_ERR_CANCELLED && srt_session_pos(s) == sd.n_batch,
          "cancel from another thread during a %d-token prompt: SRT_ERR_CANCELLED after the batch running then (%d tokens kept)", n, srt_session_pos(s));
    CHECK(srt_session_feed(s, ids, 4) == SRT_OK && srt_session_pos(s) == sd.n_batch + 4, "the cancelled session takes more input afterwards");
    /* the same through srt_generate's prompt */
    srt_session_reset(s);
    memset(&c, 0, sizeof c); c.s = s;
    memset(&g, 0, sizeof g);
    g.prompt = "abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc"; g.max_tokens = 8; g.stop_at_eos = -1;
    if (!start_canceller(&th, &c)) { CHECK(0, "thread"); srt_session_destroy(s); return; }
    st = srt_generate(s, &g, &r);
    __atomic_store_n(&c.started, 1, __ATOMIC_RELEASE);   /* if the call never blocked: no hang */
    join(&th);
    CHECK(st == SRT_ERR_CANCELLED && r.stopped_by == 3 && r.n_generated == 0 && srt_session_pos(s) == sd.n_batch,
          "cancel from another thread during srt_generate's prompt: SRT_ERR_CANCELLED, stopped_by 3 (%d), nothing generated", r.stopped_by);
    srt_session_destroy(s);
    /* during generation: the request arrives while the first token is handed out */
    sd.observer = NULL;
    if (srt_session_create(m, &sd, &s) != SRT_OK) { CHECK(0, "session: %s", srt_last_error()); return; }
    greedy_ids(s, "abc", 6, ref);
    srt_session_reset(s);
    memset(&c, 0, sizeof c); c.s = s;
    memset(&g, 0, sizeof g);
    g.prompt = "abc"; g.max_tokens = 0; g.stop_at_eos = -1; g.on_text = on_text_block; g.user = &c;
    if (!start_canceller(&th, &c)) { CHECK(0, "thread"); srt_session_destroy(s); return; }
    st = srt_generate(s, &g, &r);
    __atomic_store_n(&c.started, 1, __ATOMIC_RELEASE);   /* if the call never blocked: no hang */
    join(&th);
    CHECK(st == SRT_ERR_CANCELLED && r.stopped_by == 3 && c.pos_at_block > r.n_prompt && srt_session_pos(s) == c.pos_at_block &&
          srt_session_pos(s) == r.n_prompt + r.n_generated,
          "cancel from another thread during generation: stops after the token being handed out (%d generated, stopped_by %d)", r.n_generated, r.stopped_by);
    greedy_ids(s, "abc", 6, got);
    CHECK(memcmp(ref, got, sizeof ref) == 0, "after a reset the cancelled session generates as before");
    srt_session_destroy(s);
}

/* ---------------------------------------------------------------- first use from two threads at once */
/* Two threads load the model and generate at the same time as the first thing the process does:
   the one-time detections (CPU levels, topology) run concurrently (tsan checks them). */
typedef struct load_run { int ok; int32_t ids[8]; int32_t *go; char why[600]; } load_run;
#ifdef _WIN32
static DWORD WINAPI load_and_generate(LPVOID arg)
#else
static void *load_and_generate(void *arg)
#endif
{
    load_run *lr = (load_run *)arg;
    srt_model_desc d;
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_session_desc sd;
    srt_status st = SRT_OK;
    const char *step = NULL;
    int i;
    memset(&d, 0, sizeof d);
    d.n_threads = 2;
    memset(&sd, 0, sizeof sd);
    wait_for(lr->go);
    if ((st = srt_model_load(TINY, &d, &m)) != SRT_OK) step = "load";
    else if ((st = srt_session_create(m, &sd, &s)) != SRT_OK) step = "session";
    else if ((st = srt_session_prompt(s, "abc", 0)) != SRT_OK) step = "prompt";
    else for (i = 0; i < 8 && !step; i++) if ((st = srt_session_next(s, &lr->ids[i])) != SRT_OK) step = "next";
    lr->ok = !step;
    if (step) snprintf(lr->why, sizeof lr->why, "%s: %s (%s)", step, srt_status_str(st), srt_last_error());
    srt_session_destroy(s);
    srt_model_free(m);
    return 0;
}
static void test_first_use_concurrent(void) {
    load_run lr[2];
    int32_t go = 0;
    int i, started = 0;
#ifdef _WIN32
    HANDLE th[2];
#else
    pthread_t th[2];
#endif
    memset(lr, 0, sizeof lr);
    for (i = 0; i < 2; i++) {
        lr[i].go = &go;
#ifdef _WIN32
        if ((th[i] = CreateThread(NULL, 0, load_and_generate, &lr[i], 0, NULL)) != NULL) started++;
#else
        if (pthread_create(&th[i], NULL, load_and_generate, &lr[i]) == 0) started++;
#endif
    }
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (i = 0; i < started; i++) {
#ifdef _WIN32
        WaitForSingleObject(th[i], INFINITE); CloseHandle(th[i]);
#else
        pthread_join(th[i], NULL);
#endif
    }
    for (i = 0; i < 2; i++) if (!lr[i].ok) printf("# thread %d failed at %s\n", i, lr[i].why);
    if (lr[0].ok && lr[1].ok && memcmp(lr[0].ids, lr[1].ids, sizeof lr[0].ids) != 0)
        for (i = 0; i < 2; i++) printf("# thread %d: %d %d %d %d %d %d %d %d\n", i, lr[i].ids[0], lr[i].ids[1], lr[i].ids[2],
                                       lr[i].ids[3], lr[i].ids[4], lr[i].ids[5], lr[i].ids[6], lr[i].ids[7]);
    CHECK(started == 2 && lr[0].ok && lr[1].ok && memcmp(lr[0].ids, lr[1].ids, sizeof lr[0].ids) == 0,
          "two threads load the model and generate at once, first thing in the process: the same tokens");
}

/* ---------------------------------------------------------------- ending a session mid-generation */
static int stop_after_2(const char *text, int len, int32_t tok, void *user) {
    (void)text; (void)len;
    if (tok < 0) return 0;   /* the final flush of incomplete UTF-8 bytes */
    return ++*(int *)user >= 2;
}
static int cancel_in_callback(const char *text, int len, int32_t tok, void *user) {
    (void)text; (void)len; (void)tok;
    srt_session_cancel((srt_session *)user);
    return 0;
}
static void test_destroy_midway(srt_model *m) {
    srt_session_desc sd;
    srt_session *s;
    srt_generate_desc g;
    srt_generate_result r;
    int32_t t;
    int calls = 0;
    srt_status st;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 64;
    memset(&g, 0, sizeof g);
    g.stop_at_eos = -1;
    /* the callback returns nonzero: srt_generate returns, then the session is destroyed */
    srt_session_create(m, &sd, &s);
    g.prompt = "abc"; g.max_tokens = 0; g.on_text = stop_after_2; g.user = &calls;
    st = srt_generate(s, &g, &r);
    CHECK(st == SRT_OK && r.stopped_by == 2 && calls == 2, "a callback returning nonzero stops generation (%d calls)", calls);
    srt_session_destroy(s);
    CHECK(1, "the stopped session is destroyed (asan/valgrind check the memory)");
    /* the callback cancels: generation stops after that token, then destroy */
    srt_session_create(m, &sd, &s);
    g.on_text = cancel_in_callback; g.user = s;
    st = srt_generate(s, &g, &r);
    CHECK(st == SRT_ERR_CANCELLED && r.stopped_by == 3 && r.n_generated >= 1, "cancel from inside the callback stops generation (%d generated)", r.n_generated);
    srt_session_destroy(s);
    /* a token handed out by srt_session_next, then cancel and destroy with the request pending */
    srt_session_create(m, &sd, &s);
    CHECK(srt_session_prompt(s, "abc", 0) == SRT_OK && srt_session_next(s, &t) == SRT_OK, "a token is handed out");
    srt_session_cancel(s);
    srt_session_destroy(s);
    CHECK(1, "a session with a token handed out and a cancel pending is destroyed");
    /* a cancelled feed leaves tokens that were never evaluated dropped; destroy right after */
    srt_session_create(m, &sd, &s);
    CHECK(srt_session_prompt(s, "abc", 0) == SRT_OK && srt_session_next(s, &t) == SRT_OK && srt_session_next(s, &t) == SRT_OK,
          "two tokens handed out (the second not yet evaluated)");
    srt_session_cancel(s);
    CHECK(srt_session_next(s, &t) == SRT_ERR_CANCELLED, "next after cancel: SRT_ERR_CANCELLED");
    srt_session_destroy(s);
    srt_session_destroy(NULL);
    CHECK(1, "srt_session_destroy(NULL) is a no-op");
}

int main(void) {
    srt_model *m = NULL;
    srt_model_desc d;
    if (system("mkdir -p build/tmp") != 0) return 1;
    if (!write_tiny_model(TINY, SRT_Q8, NULL, NULL, 1)) { CHECK(0, "write the tiny model"); return srt_test_finish(); }
    test_first_use_concurrent();   /* first: before anything else has run the one-time detections */
    test_big_model();
    memset(&d, 0, sizeof d);
    d.n_threads = 2;
    if (srt_model_load(TINY, &d, &m) != SRT_OK) { CHECK(0, "tiny model loads: %s", srt_last_error()); return srt_test_finish(); }
    test_context_overflow(m);
    test_cancel_threads(m);
    test_destroy_midway(m);
    srt_model_free(m);
    remove(TINY);
    return srt_test_finish();
}
