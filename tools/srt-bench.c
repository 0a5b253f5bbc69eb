/* srt-bench - measurements of the runtime, through the public API only.

     srt-bench pool [--json] [--topology] [--threads N] [--cores auto|performance|all|LIST] [--no-pin]
         fork/join latency, parallel-for overhead on a tiny matrix, and GEMV throughput with one
         worker slowed to half speed, dynamic chunks vs a static split.
     srt-bench make-model OUT [--embd 1024] [--ff 2816] [--layers 8] [--heads 16] [--kv-heads 4]
                              [--vocab 8192] [--format q8]
         writes a random-weight Llama model (no tokenizer) for decode benchmarks.
     srt-bench decode MODEL [--tokens 64] [--json] [--threads N] [--cores ...] [--no-pin]
         greedy decode speed (tokens/s) from a one-token prompt. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
#ifdef _WIN32
    return (double)clock() * 1e6 / CLOCKS_PER_SEC;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
#endif
}

typedef struct opts {
    int json, topology, threads, no_pin, tokens;
    srt_cores cores;
    const char *cpu_list;
    int embd, ff, layers, heads, kv_heads, vocab;
    srt_format format;
} opts;

static int parse_cores(const char *s, opts *o) {
    if (!strcmp(s, "auto")) o->cores = SRT_CORES_AUTO;
    else if (!strcmp(s, "performance")) o->cores = SRT_CORES_PERFORMANCE;
    else if (!strcmp(s, "all")) o->cores = SRT_CORES_ALL;
    else { int tmp[1]; if (srt_parse_cpu_list(s, tmp, 1) <= 0) return 0; o->cores = SRT_CORES_LIST; o->cpu_list = s; }
    return 1;
}

static srt_status make_pool(const opts *o, int threads, const srt_pool_desc *extra, srt_pool **out) {
    srt_pool_desc pd;
    memset(&pd, 0, sizeof pd);
    if (extra) pd = *extra;
    pd.n_threads = threads;
    pd.cores = o->cores;
    pd.cpu_list = o->cpu_list;
    pd.pin = o->no_pin ? -1 : 0;
    return srt_pool_create(&pd, out);
}

static const char *type_name(srt_core_type t) { return t == SRT_CORE_EFFICIENCY ? "E" : t == SRT_CORE_PERFORMANCE ? "P" : "?"; }

static void print_topology(const opts *o) {
    static srt_topology t;
    int cpus[SRT_MAX_CPUS], n, i;
    srt_topology_detect(NULL, &t);
    n = srt_cores_select(&t, o->cores, o->cpu_list, cpus, SRT_MAX_CPUS);
    if (o->json) {
        printf("{\"bench\":\"topology\",\"cpus\":%d,\"cores\":%d,\"perf_cores\":%d,\"eff_cores\":%d,\"hybrid\":%d,\"source\":\"%s\",\"selected\":[",
               t.n_cpus, t.n_cores, t.n_perf_cores, t.n_eff_cores, t.hybrid, t.source);
        for (i = 0; i < n; i++) printf(i ? ",%d" : "%d", cpus[i]);
        printf("]}\n");
        return;
    }
    printf("topology: %d logical CPUs, %d physical cores (%d P, %d E), %s, source: %s\n",
           t.n_cpus, t.n_cores, t.n_perf_cores, t.n_eff_cores, t.hybrid ? "hybrid" : "not hybrid", t.source);
    printf("  cpu  core  smt  type  package  numa  llc  max_mhz  usable\n");
    for (i = 0; i < t.n_cpus; i++) {
        const srt_cpu *c = &t.cpu[i];
        printf("  %3d  %4d  %3d  %4s  %7d  %4d  %3d  %7u  %6d\n", c->id, c->core, c->smt, type_name(c->type), c->package, c->numa, c->llc, c->max_khz / 1000, c->usable);
    }
    printf("  selected by the policy (%d):", n);
    for (i = 0; i < n; i++) printf(" %d", cpus[i]);
    printf("\n");
}

/* ---------------------------------------------------------------- pool benchmark */
static void noop(void *user, int64_t b, int64_t e, int t) { (void)user; (void)b; (void)e; (void)t; }

/* f32 GEMV rows; 16 partial sums in a fixed order (vectorisable, still deterministic) */
typedef struct gemv { const float *w, *x; float *y; int64_t cols; } gemv;
static void gemv_rows(void *user, int64_t begin, int64_t end, int thread) {
    const gemv *g = (const gemv *)user;
    int64_t r, c;
    int k;
    (void)thread;
    for (r = begin; r < end; r++) {
        const float *w = g->w + r * g->cols;
        float acc[16], s = 0.0f;
        for (k = 0; k < 16; k++) acc[k] = 0.0f;
        for (c = 0; c + 16 <= g->cols; c += 16)
            for (k = 0; k < 16; k++) acc[k] += w[c + k] * g->x[c + k];
        for (; c < g->cols; c++) acc[0] += w[c] * g->x[c];
        for (k = 0; k < 16; k++) s += acc[k];
        g->y[r] = s;
    }
}

/* best-of time (us) of `reps` calls of the given region */
static double time_gemv(srt_pool *p, gemv *g, int64_t rows, int64_t chunk, int use_static, int reps) {
    double best = 1e30;
    int r;
    for (r = 0; r < reps; r++) {
        double t0 = now_us(), dt;
        if (use_static) srt_pool_parallel_for_static(p, rows, gemv_rows, g);
        else if (p) srt_pool_parallel_for(p, rows, chunk, gemv_rows, g);
        else gemv_rows(g, 0, rows, 0);
        dt = now_us() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

static int bench_pool(const opts *o) {
    srt_pool *p;
    int threads, i, reps = 200000;
    double t0, forkjoin_us, serial_us, t_one, par_us, overhead_us, t_dyn_fast, t_dyn_slow, t_sta_slow, ideal, f_dyn, f_sta;
    int64_t tiny_rows = 64, tiny_cols = 256, big_rows = 8192, big_cols = 8192, chunk, k;
    float *w, *x, *y;
    gemv g;
    srt_pool_desc slow;
    if (o->topology) print_topology(o);
    if (make_pool(o, o->threads, NULL, &p) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    threads = srt_pool_threads(p);
    w = (float *)malloc(sizeof(float) * (size_t)(big_rows * big_cols));
    x = (float *)malloc(sizeof(float) * (size_t)big_cols);
    y = (float *)malloc(sizeof(float) * (size_t)big_rows);
    if (!w || !x || !y) { fprintf(stderr, "srt-bench: out of memory\n"); return 1; }
    for (k = 0; k < big_rows * big_cols; k++) w[k] = (float)((k * 7919) % 1000) * 0.001f - 0.5f;
    for (i = 0; i < big_cols; i++) x[i] = (float)(i % 17) * 0.1f;

    /* 1. fork/join: an empty region in which every thread takes one item */
    for (i = 0; i < 1000; i++) srt_pool_parallel_for(p, threads, 1, noop, NULL);
    t0 = now_us();
    for (i = 0; i < reps; i++) srt_pool_parallel_for(p, threads, 1, noop, NULL);
    forkjoin_us = (now_us() - t0) / reps;

    /* 2. tiny GEMV (64 x 256 f32, 64 KiB): forced split vs serial */
    g.w = w; g.x = x; g.y = y; g.cols = tiny_cols;
    serial_us = time_gemv(NULL, &g, tiny_rows, 0, 0, 20000);
    par_us = time_gemv(p, &g, tiny_rows, 4, 0, 20000);
    overhead_us = par_us - serial_us / threads;

    /* 3. memory-bound GEMV (8192 x 8192 f32, 256 MiB) with the last thread at half speed */
    g.cols = big_cols;
    chunk = srt_pool_chunk(p, big_rows, big_cols * (int64_t)sizeof(float));
    t_one = time_gemv(NULL, &g, big_rows, 0, 0, 5);
    t_dyn_fast = time_gemv(p, &g, big_rows, chunk, 0, 10);
    srt_pool_destroy(p);
    memset(&slow, 0, sizeof slow);
    slow.slow_thread = threads - 1; slow.slow_factor = 2.0f;
    if (make_pool(o, threads, &slow, &p) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    t_dyn_slow = time_gemv(p, &g, big_rows, chunk, 0, 10);
    t_sta_slow = time_gemv(p, &g, big_rows, 0, 1, 10);
    srt_pool_destroy(p);
    /* ideal with one worker at half speed: the unslowed throughput times (T - 1 + 0.5) / T */
    ideal = (1.0 / t_dyn_fast) * ((threads - 1) + 0.5) / threads;
    f_dyn = (1.0 / t_dyn_slow) / ideal;
    f_sta = (1.0 / t_sta_slow) / ideal;
    if (threads < 2) f_dyn = f_sta = 1.0;   /* nothing to balance */
    if (o->json) {
        printf("{\"bench\":\"pool\",\"threads\":%d,\"forkjoin_us\":%.3f,\"parallel_for_overhead_us\":%.3f,\"tiny_serial_us\":%.3f,\"tiny_parallel_us\":%.3f,"
               "\"gemv_1thread_ms\":%.3f,\"gemv_ms\":%.3f,\"gemv_gbps\":%.2f,\"chunk\":%lld,\"slowed_dynamic_ms\":%.3f,\"slowed_static_ms\":%.3f,"
               "\"slowed_dynamic_fraction\":%.3f,\"slowed_static_fraction\":%.3f}\n",
               threads, forkjoin_us, overhead_us, serial_us, par_us, t_one / 1e3, t_dyn_fast / 1e3, (double)big_rows * big_cols * 4 / t_dyn_fast / 1e3,
               (long long)chunk, t_dyn_slow / 1e3, t_sta_slow / 1e3, f_dyn, f_sta);
    } else {
        printf("pool: %d threads\n", threads);
        printf("  fork/join (empty region, every thread one item): %.3f us\n", forkjoin_us);
        printf("  tiny GEMV 64x256 f32: serial %.2f us, %d threads %.2f us, overhead vs ideal split %.2f us\n", serial_us, threads, par_us, overhead_us);
        printf("  GEMV 8192x8192 f32 (256 MiB): 1 thread %.2f ms, %d threads %.2f ms, %.1f GB/s, chunk %lld rows\n", t_one / 1e3, threads, t_dyn_fast / 1e3, (double)big_rows * big_cols * 4 / t_dyn_fast / 1e3, (long long)chunk);
        printf("  thread %d at half speed: dynamic %.2f ms (%.3f of ideal), static %.2f ms (%.3f of ideal)\n",
               threads - 1, t_dyn_slow / 1e3, f_dyn, t_sta_slow / 1e3, f_sta);
    }
    free(w); free(x); free(y);
    return 0;
}

/* ---------------------------------------------------------------- random model + decode */
static uint32_t rng = 2463534242u;
static float frand(void) { rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; return (float)(rng >> 8) / 16777216.0f - 0.5f; }

static int add_tensor(srt_writer *w, const char *name, int rows, int cols, srt_format f, int norm) {
    float *buf = (float *)malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    size_t i;
    srt_status st;
    if (!buf) return 0;
    for (i = 0; i < (size_t)rows * (size_t)cols; i++) buf[i] = norm ? 1.0f + 0.1f * frand() : frand() * 0.1f;
    st = srt_writer_add_tensor(w, name, norm ? SRT_F32 : f, 0, (uint64_t)rows, (uint64_t)cols, buf);
    free(buf);
    if (st != SRT_OK) fprintf(stderr, "srt-bench: %s: %s\n", name, srt_last_error());
    return st == SRT_OK;
}

static int make_model(const char *path, const opts *o) {
    srt_writer *w;
    int l, ok = 1, kv = o->embd / o->heads * o->kv_heads;
    char nm[64];
    if (srt_writer_open(path, &w) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    srt_writer_meta_str(w, "general.architecture", "llama");
    srt_writer_meta_str(w, "general.name", "srt-bench random");
    srt_writer_meta_u32(w, "llama.context_length", 2048);
    srt_writer_meta_u32(w, "llama.embedding_length", (uint32_t)o->embd);
    srt_writer_meta_u32(w, "llama.feed_forward_length", (uint32_t)o->ff);
    srt_writer_meta_u32(w, "llama.block_count", (uint32_t)o->layers);
    srt_writer_meta_u32(w, "llama.attention.head_count", (uint32_t)o->heads);
    srt_writer_meta_u32(w, "llama.attention.head_count_kv", (uint32_t)o->kv_heads);
    srt_writer_meta_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    {   /* a SentencePiece-style vocab: <unk> <s> </s>, 256 byte tokens, then filler pieces */
        char **tokens = (char **)malloc(sizeof(char *) * (size_t)o->vocab);
        float *scores = (float *)malloc(sizeof(float) * (size_t)o->vocab);
        int32_t *types = (int32_t *)malloc(sizeof(int32_t) * (size_t)o->vocab);
        int i;
        if (!tokens || !scores || !types || o->vocab < 300) { fprintf(stderr, "srt-bench: vocab too small or out of memory\n"); srt_writer_abort(w); return 1; }
        for (i = 0; i < o->vocab; i++) {
            tokens[i] = (char *)malloc(16);
            if (i < 3) snprintf(tokens[i], 16, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
            else if (i < 259) snprintf(tokens[i], 16, "<0x%02X>", i - 3);
            else snprintf(tokens[i], 16, "\xe2\x96\x81w%d", i);
            types[i] = i == 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1;
            scores[i] = i < 259 ? 0.0f : (float)-i;
        }
        srt_writer_meta_str(w, "tokenizer.ggml.model", "llama");
        srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, (const void *)tokens, (uint32_t)o->vocab);
        srt_writer_meta_arr(w, "tokenizer.ggml.scores", SRT_META_ARR_F32, scores, (uint32_t)o->vocab);
        srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, (uint32_t)o->vocab);
        srt_writer_meta_u32(w, "tokenizer.ggml.bos_token_id", 1);
        srt_writer_meta_u32(w, "tokenizer.ggml.eos_token_id", 2);
        srt_writer_meta_u32(w, "tokenizer.ggml.unknown_token_id", 0);
        for (i = 0; i < o->vocab; i++) free(tokens[i]);
        free(tokens); free(scores); free(types);
    }
    ok = ok && add_tensor(w, "token_embd.weight", o->vocab, o->embd, o->format, 0);
    ok = ok && add_tensor(w, "output_norm.weight", 1, o->embd, o->format, 1);
    for (l = 0; ok && l < o->layers; l++) {
#define L(s, r, c, n) (snprintf(nm, sizeof nm, "blk.%d." s, l), add_tensor(w, nm, r, c, o->format, n))
        ok = L("attn_norm.weight", 1, o->embd, 1) && L("ffn_norm.weight", 1, o->embd, 1)
          && L("attn_q.weight", o->embd, o->embd, 0) && L("attn_k.weight", kv, o->embd, 0) && L("attn_v.weight", kv, o->embd, 0)
          && L("attn_output.weight", o->embd, o->embd, 0) && L("ffn_gate.weight", o->ff, o->embd, 0)
          && L("ffn_up.weight", o->ff, o->embd, 0) && L("ffn_down.weight", o->embd, o->ff, 0);
#undef L
    }
    if (!ok) { srt_writer_abort(w); return 1; }
    if (srt_writer_finish(w) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    printf("wrote %s\n", path);
    return 0;
}

static int bench_decode(const char *path, const opts *o) {
    srt_pool *p;
    srt_model *m;
    srt_session *s;
    srt_model_desc md;
    srt_session_desc sd;
    srt_model_info info;
    int32_t tok = 1;
    int i;
    double t0, dt;
    if (make_pool(o, o->threads, NULL, &p) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    memset(&md, 0, sizeof md);
    md.pool = p;
    if (srt_model_load(path, &md, &m) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    srt_model_get_info(m, &info);
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = o->tokens + 8;
    if (srt_session_create(m, &sd, &s) != SRT_OK) { fprintf(stderr, "srt-bench: %s\n", srt_last_error()); return 1; }
    srt_session_feed(s, &tok, 1);
    for (i = 0; i < 4; i++) srt_session_next(s, &tok);   /* warm up */
    t0 = now_us();
    for (i = 0; i < o->tokens; i++) if (srt_session_next(s, &tok) != SRT_OK) break;
    srt_session_logits(s);   /* evaluate the last one too */
    dt = now_us() - t0;
    if (o->json) printf("{\"bench\":\"decode\",\"threads\":%d,\"tokens\":%d,\"tokens_per_s\":%.2f,\"weight_mb\":%.1f}\n",
                        srt_pool_threads(p), i, i / (dt / 1e6), (double)info.weight_bytes / 1e6);
    else printf("decode: %d threads, %d tokens, %.2f tokens/s (%.1f MB of weights)\n", srt_pool_threads(p), i, i / (dt / 1e6), (double)info.weight_bytes / 1e6);
    srt_session_destroy(s);
    srt_model_free(m);
    srt_pool_destroy(p);
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: srt-bench pool [--json] [--topology] [--threads N] [--cores auto|performance|all|LIST] [--no-pin]\n"
                    "       srt-bench make-model OUT [--embd N] [--ff N] [--layers N] [--heads N] [--kv-heads N] [--vocab N] [--format q8]\n"
                    "       srt-bench decode MODEL [--tokens N] [--json] [--threads N] [--cores ...] [--no-pin]\n");
    return 2;
}

int main(int argc, char **argv) {
    opts o;
    const char *cmd, *file = NULL;
    int i;
    memset(&o, 0, sizeof o);
    o.tokens = 64; o.embd = 1024; o.ff = 2816; o.layers = 8; o.heads = 16; o.kv_heads = 4; o.vocab = 8192; o.format = SRT_Q8;
    if (argc < 2) return usage();
    cmd = argv[1];
    for (i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) o.json = 1;
        else if (!strcmp(a, "--topology")) o.topology = 1;
        else if (!strcmp(a, "--no-pin")) o.no_pin = 1;
        else if (!strcmp(a, "--cores") && v) { if (!parse_cores(v, &o)) { fprintf(stderr, "srt-bench: bad --cores %s\n", v); return 2; } i++; }
        else if (!strcmp(a, "--threads") && v) { o.threads = atoi(v); i++; }
        else if (!strcmp(a, "--tokens") && v) { o.tokens = atoi(v); i++; }
        else if (!strcmp(a, "--embd") && v) { o.embd = atoi(v); i++; }
        else if (!strcmp(a, "--ff") && v) { o.ff = atoi(v); i++; }
        else if (!strcmp(a, "--layers") && v) { o.layers = atoi(v); i++; }
        else if (!strcmp(a, "--heads") && v) { o.heads = atoi(v); i++; }
        else if (!strcmp(a, "--kv-heads") && v) { o.kv_heads = atoi(v); i++; }
        else if (!strcmp(a, "--vocab") && v) { o.vocab = atoi(v); i++; }
        else if (!strcmp(a, "--format") && v) { int f = srt_format_from_name(v); if (f < 0) return usage(); o.format = (srt_format)f; i++; }
        else if (a[0] != '-' && !file) file = a;
        else return usage();
    }
    if (!strcmp(cmd, "pool")) return bench_pool(&o);
    if (!strcmp(cmd, "make-model") && file) return make_model(file, &o);
    if (!strcmp(cmd, "decode") && file) return bench_decode(file, &o);
    return usage();
}
