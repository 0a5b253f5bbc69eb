/* srt_prune.h - weight pruning for srt-pack: magnitude and Wanda, with per-tensor sparsity targets
   and a report of the achieved sparsity and reconstruction error. stb-ish: static functions only;
   include after sparsert.h (it uses the public API: srt_quantize, sessions and their observer).

   WHICH TENSORS
     The 2-D linear weights of attention and FFN: blk.N.attn_q, attn_k, attn_v, attn_output,
     ffn_gate, ffn_up, ffn_down (.weight), a mixture of experts' blk.N.ffn_gate.X, ffn_up.X,
     ffn_down.X (.weight, expert X) and its shared expert's ffn_gate_shexp, ffn_up_shexp,
     ffn_down_shexp (.weight), unless their name matches a keep-dense glob. Token
     embeddings, the output matrix and norms are never pruned (the default keep-dense list names
     them: token_embd.*, output.*, *norm*, *ffn_gate_inp* (MoE routers)); --keep-dense 'GLOB,GLOB' adds to it.
   HOW MUCH
     --sparsity S (every such tensor) and --sparsity 'PAT=S' (those whose name matches the glob PAT,
     * and ?), S in [0, 1). Repeatable; the last rule that matches wins, as for --tensor. 0 = dense.
   METHODS (ties are broken by position, lower index first, so the counts are exact)
     magnitude  the round(S x rows x cols) weights of smallest |w| in the tensor become 0
     wanda      score |w_ij| x ||x_j||_2, x_j = input channel j of this matrix over every calibration
                token (Sun, Liu, Bair, Kolter 2023, "A Simple and Effective Pruning Approach for
                Large Language Models"); in each output row the round(S x cols) lowest scores become 0.
                The activations come from the unpruned model itself: srtp_calibrate() runs an .srt
                (srt-pack writes a temporary F32 one) over the calibration text and collects them
                through srt_session_desc.observer. An expert's x_j are those of the tokens the router
                sent to it; an expert no calibration token reached has no norms, so its rows are
                pruned by |w_ij| alone (Wanda with every norm 1), and the report says which.
   FORMAT
     srtp_choose_format() is the one place that picks the stored format of a pruned tensor: with
     --sparse-format sb the SB format of the dense choice (bf16/f16/f32 -> sb-bf16, q8 -> sb-q8,
     q4 -> sb-q4; q2/tq/q1 have none and stay dense), with s4x1 the 4x1 block-sparse Q8 format,
     whose blocks (4 consecutive output rows at one input column) are then what is pruned: a block
     scores the sum of its weights' scores; with tcsl Tiled-CSL f16 (the CUDA backend's sparse
     format) whatever the dense choice. Without --sparse-format a pruned tensor is stored
     zeroed in the dense format. (srt-pack stores a tensor dense again when its sparsity is below
     the sparse format's measured break-even.)
   REPORT
     Per 2-D tensor: the fraction of zeros and ||W - W'||_F / ||W||_F, W' = the weights as stored
     (pruned, then quantized and dequantized), plus totals. */
#ifndef SRT_PRUNE_H
#define SRT_PRUNE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRTP_MAX_RULES 64
#define SRTP_MAX_KEEP 64
#define SRTP_KINDS 10
enum { SRTP_MAGNITUDE = 0, SRTP_WANDA = 1 };
enum { SRTP_DENSE = 0, SRTP_SB = 1, SRTP_S4X1 = 2, SRTP_TCSL = 3 };   /* --sparse-format */
/* kinds 4-6 also name the experts' matrices ("ffn_gate.X"), 7-9 are the shared expert's (qwen2moe, granitemoe) */
static const char *const srtp_kind_names[SRTP_KINDS] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down",
                                                         "ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp"};

typedef struct srtp_rule { char pattern[200]; float sparsity; } srtp_rule;   /* pattern "*" = every tensor */
typedef struct srtp_stat {
    char name[96];
    uint64_t rows, cols, zeros;
    srt_format fmt;
    float target;            /* requested sparsity, 0 = not pruned */
    double err2, norm2;      /* ||W - W'||^2, ||W||^2 */
    int uncalibrated;        /* wanda: an expert no calibration token reached, pruned by |w| per row */
} srtp_stat;

typedef struct srtp_state {
    srtp_rule rules[SRTP_MAX_RULES];
    int n_rules;
    char keep[SRTP_MAX_KEEP][128];
    int n_keep;
    int method;              /* SRTP_*, -1 = not given (magnitude) */
    const char *calib;       /* calibration text (wanda) */
    int sparse_format;       /* SRTP_DENSE, SRTP_SB, SRTP_S4X1, SRTP_TCSL */
    /* wanda: per layer and kind, the sum over calibration tokens of x_j^2 (cols values) */
    int n_layer, n_expert;
    double **sumsq;          /* per layer SRTP_KINDS dense matrices, then each expert's ffn_gate, ffn_up, ffn_down (srtp__slot) */
    int *sumsq_cols;
    uint64_t calib_tokens;
    int calib_bad;           /* an observed input had an unexpected width */
    /* scratch and results */
    float *orig, *score, *tmp;
    uint64_t cap_orig, cap_score, cap_tmp;
    uint64_t *counts, *hist; double *sums;   /* per-chunk partials, radix histograms (srtp__job) */
    uint64_t cap_counts, cap_hist, cap_sums;
    srtp_stat *stats;
    int n_stats, cap_stats;
    srt_pool *pool;          /* threads for the quantization round trip (NULL = this thread; not owned) */
    void *rt_parts[4];       /* the round trip's packed parts, kept from tensor to tensor */
    uint64_t rt_cap[4];
} srtp_state;

static void srtp_init(srtp_state *st) {
    static const char *const defaults[4] = {"token_embd.*", "output.*", "*norm*", "*ffn_gate_inp*"};
    int i;
    memset(st, 0, sizeof *st);
    st->method = -1;
    for (i = 0; i < 4; i++) snprintf(st->keep[st->n_keep++], sizeof st->keep[0], "%s", defaults[i]);
}

static void srtp_free(srtp_state *st) {
    int i;
    for (i = 0; st->sumsq && i < st->n_layer * (SRTP_KINDS + 3 * st->n_expert); i++) free(st->sumsq[i]);
    free(st->sumsq); free(st->sumsq_cols);
    free(st->orig); free(st->score); free(st->tmp); free(st->stats);
    free(st->counts); free(st->hist); free(st->sums);
    for (i = 0; i < 4; i++) free(st->rt_parts[i]);
    memset(st, 0, sizeof *st);
}

static int srtp_active(const srtp_state *st) { return st->n_rules > 0; }

/* Glob match with * and ?. */
static int srtp_glob(const char *p, const char *s) {
    if (*p == 0) return *s == 0;
    if (*p == '*') return srtp_glob(p + 1, s) || (*s && srtp_glob(p, s + 1));
    return *s && (*p == '?' || *p == *s) && srtp_glob(p + 1, s + 1);
}

/* "S" or "PATTERN=S" (--sparsity). 0 or -1 with a message in err. */
static int srtp_parse_sparsity(srtp_state *st, const char *arg, char *err, size_t errlen) {
    const char *eq = arg ? strrchr(arg, '=') : NULL, *num = eq ? eq + 1 : arg;
    char *end;
    double s;
    srtp_rule *r;
    if (!arg || !*arg) { snprintf(err, errlen, "--sparsity needs S or PATTERN=S (S in [0, 1))"); return -1; }
    if (st->n_rules == SRTP_MAX_RULES) { snprintf(err, errlen, "too many --sparsity options (at most %d)", SRTP_MAX_RULES); return -1; }
    s = strtod(num, &end);
    if (!*num || *end || !(s >= 0.0 && s < 1.0)) { snprintf(err, errlen, "--sparsity '%s': the sparsity must be a number in [0, 1)", arg); return -1; }
    if (eq && (eq == arg || (size_t)(eq - arg) >= sizeof st->rules[0].pattern)) { snprintf(err, errlen, "--sparsity '%s': empty or too long pattern", arg); return -1; }
    r = &st->rules[st->n_rules++];
    if (eq) { memcpy(r->pattern, arg, (size_t)(eq - arg)); r->pattern[eq - arg] = 0; }
    else snprintf(r->pattern, sizeof r->pattern, "*");
    r->sparsity = (float)s;
    return 0;
}

/* Comma-separated globs (--keep-dense), added to the defaults. */
static int srtp_parse_keep(srtp_state *st, const char *arg, char *err, size_t errlen) {
    const char *p = arg;
    if (!arg || !*arg) { snprintf(err, errlen, "--keep-dense needs comma-separated patterns"); return -1; }
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0) { snprintf(err, errlen, "--keep-dense '%s': empty pattern", arg); return -1; }
        if (n >= sizeof st->keep[0]) { snprintf(err, errlen, "--keep-dense: pattern of %u bytes is too long", (unsigned)n); return -1; }
        if (st->n_keep == SRTP_MAX_KEEP) { snprintf(err, errlen, "--keep-dense: too many patterns (at most %d)", SRTP_MAX_KEEP); return -1; }
        memcpy(st->keep[st->n_keep], p, n); st->keep[st->n_keep][n] = 0;
        st->n_keep++;
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

static int srtp_parse_method(srtp_state *st, const char *arg, char *err, size_t errlen) {
    if (arg && strcmp(arg, "magnitude") == 0) st->method = SRTP_MAGNITUDE;
    else if (arg && strcmp(arg, "wanda") == 0) st->method = SRTP_WANDA;
    else { snprintf(err, errlen, "--prune '%s': unknown method (magnitude, wanda)", arg ? arg : ""); return -1; }
    return 0;
}

/* The options together; 0 if they make sense. */
static int srtp_check_options(srtp_state *st, int vocab_only, char *err, size_t errlen) {
    if (!srtp_active(st)) {
        if (st->method >= 0) { snprintf(err, errlen, "--prune needs --sparsity"); return -1; }
        if (st->calib) { snprintf(err, errlen, "--calib applies to --prune wanda with --sparsity"); return -1; }
        return 0;
    }
    if (vocab_only) { snprintf(err, errlen, "--sparsity does not apply to --vocab-only"); return -1; }
    if (st->method < 0) st->method = SRTP_MAGNITUDE;
    if (st->method == SRTP_WANDA && !st->calib) { snprintf(err, errlen, "--prune wanda needs --calib FILE.txt (calibration text)"); return -1; }
    if (st->method != SRTP_WANDA && st->calib) { snprintf(err, errlen, "--calib applies to --prune wanda only"); return -1; }
    return 0;
}

/* "KIND" (a dense matrix: *expert = -1) or, for the FFN kinds, "KIND.X" (expert X) at the start of
   s, followed by `tail` -> kind index (SRTP_KINDS order); -1 for anything else ("ffn_gate_inp"). */
static int srtp__kind(const char *s, const char *tail, int *expert) {
    int k;
    for (k = 0; k < SRTP_KINDS; k++) {
        const size_t n = strlen(srtp_kind_names[k]);
        const char *p;
        long x = 0;
        if (strncmp(s, srtp_kind_names[k], n) != 0) continue;
        p = s + n;
        if (strcmp(p, tail) == 0) { *expert = -1; return k; }
        if (k < 4 || k > 6 || p[0] != '.' || p[1] < '0' || p[1] > '9') continue;   /* experts: ffn_gate, ffn_up, ffn_down only */
        for (p++; *p >= '0' && *p <= '9' && x <= 1000000; p++) x = 10 * x + (*p - '0');
        if (x <= 1000000 && strcmp(p, tail) == 0) { *expert = (int)x; return k; }
    }
    return -1;
}
/* "blk.N.KIND.weight" or "blk.N.KIND.X.weight" (expert X of an FFN kind) -> kind index (SRTP_KINDS
   order), N and X (-1: not an expert); -1 for any other name. */
static int srtp_linear_kind(const char *name, int *layer, int *expert) {
    long l;
    char *end;
    int k;
    if (strncmp(name, "blk.", 4) != 0 || name[4] < '0' || name[4] > '9') return -1;
    l = strtol(name + 4, &end, 10);
    if (*end != '.' || l < 0 || l > 100000) return -1;
    k = srtp__kind(end + 1, ".weight", expert);
    if (k >= 0) *layer = (int)l;
    return k;
}

/* The sparsity asked for this tensor: 0 unless it is an attention/FFN weight that no keep-dense
   glob names and a --sparsity rule matches (the last one). */
static float srtp_sparsity_for(const srtp_state *st, const char *name) {
    int i, layer, expert;
    float s = 0.0f;
    if (srtp_linear_kind(name, &layer, &expert) < 0) return 0.0f;
    for (i = 0; i < st->n_keep; i++) if (srtp_glob(st->keep[i], name)) return 0.0f;
    for (i = 0; i < st->n_rules; i++) if (srtp_glob(st->rules[i].pattern, name)) s = st->rules[i].sparsity;
    return s;
}

/* --sparse-format sb|s4x1|tcsl */
static int srtp_parse_sparse_format(srtp_state *st, const char *arg, char *err, size_t errlen) {
    if (arg && strcmp(arg, "sb") == 0) st->sparse_format = SRTP_SB;
    else if (arg && strcmp(arg, "s4x1") == 0) st->sparse_format = SRTP_S4X1;
    else if (arg && strcmp(arg, "tcsl") == 0) st->sparse_format = SRTP_TCSL;
    else { snprintf(err, errlen, "--sparse-format takes sb, s4x1 or tcsl (got '%s')", arg ? arg : ""); return -1; }
    return 0;
}

/* The one place that picks the stored format of a tensor pruned to `sparsity` (> 0): the sparse
   counterpart of the dense choice of --weights/--tensor (see the top of this file). */
static void srtp_choose_format(const srtp_state *st, const char *name, float sparsity, srt_format dense_fmt, uint32_t dense_group,
                               srt_format *fmt, uint32_t *group) {
    int is_float = dense_fmt == SRT_F32 || dense_fmt == SRT_F16 || dense_fmt == SRT_BF16;
    (void)name; (void)sparsity;
    *fmt = dense_fmt;
    *group = dense_group;
    if (st->sparse_format == SRTP_S4X1) *fmt = SRT_S4X1;
    else if (st->sparse_format == SRTP_TCSL) *fmt = SRT_TCSL;
    else if (st->sparse_format == SRTP_SB)
        *fmt = dense_fmt == SRT_Q8 ? SRT_SB_Q8 : dense_fmt == SRT_Q4 ? SRT_SB_Q4 : is_float ? SRT_SB_BF16 : dense_fmt;
    if (*fmt == SRT_SB_BF16 || *fmt == SRT_TCSL || (*fmt == SRT_S4X1 && is_float)) *group = 0;   /* no groups / the default group */
}


/* ---------------------------------------------------------------- calibration (wanda) */
/* The sums of squares of every matrix of n_layer layers of n_expert experts (0: dense), each made
   when the observer first meets it; 0 when out of memory. */
static int srtp_sums_init(srtp_state *st, int n_layer, int n_expert) {
    const size_t n = (size_t)n_layer * (size_t)(SRTP_KINDS + 3 * n_expert);
    st->n_layer = n_layer; st->n_expert = n_expert;
    st->sumsq = (double **)calloc(n, sizeof(double *));
    st->sumsq_cols = (int *)calloc(n, sizeof(int));
    return st->sumsq && st->sumsq_cols;
}
/* The index of (layer, kind, expert; -1 = the dense matrix) in st->sumsq; -1 if there is none. */
static int srtp__slot(const srtp_state *st, int layer, int kind, int expert) {
    if (!st->sumsq || layer < 0 || layer >= st->n_layer || kind < 0 || expert >= st->n_expert || (expert >= 0 && (kind < 4 || kind > 6))) return -1;
    return layer * (SRTP_KINDS + 3 * st->n_expert) + (expert < 0 ? kind : SRTP_KINDS + 3 * expert + kind - 4);
}
static void srtp_observer(void *user, int layer, const char *weight, const float *x, int n_tokens, int cols) {
    srtp_state *st = (srtp_state *)user;
    int k, t, j, expert, slot;
    double *acc;
    if (layer < 0 || layer >= st->n_layer || cols <= 0) return;   /* the output matrix is never pruned */
    k = srtp__kind(weight, "", &expert);   /* "ffn_gate.3": expert 3's, with the tokens routed to it */
    if (k < 0) return;                     /* the router (ffn_gate_inp) is never pruned */
    if ((slot = srtp__slot(st, layer, k, expert)) < 0) { st->calib_bad = 1; return; }
    if (!st->sumsq[slot]) {
        if (!(st->sumsq[slot] = (double *)calloc((size_t)cols, sizeof(double)))) { st->calib_bad = 1; return; }
        st->sumsq_cols[slot] = cols;
    }
    if (st->sumsq_cols[slot] != cols) { st->calib_bad = 1; return; }
    acc = st->sumsq[slot];
    for (t = 0; t < n_tokens; t++)
        for (j = 0; j < cols; j++) { double v = x[(size_t)t * (size_t)cols + (size_t)j]; acc[j] += v * v; }
    if (layer == 0 && k == 0 && expert < 0) st->calib_tokens += (uint64_t)n_tokens;
}

/* Runs the (unpruned, float) model at model_path over the calibration text st->calib in windows of
   its context (at most 2048 tokens; BOS as the model's tokenizer adds it) and keeps the sum of
   squares of each input channel of every attention/FFN matrix. 0 or -1 with a message. */
static int srtp_calibrate(srtp_state *st, const char *model_path, int quiet, char *err, size_t errlen) {
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    srt_model_info info;
    FILE *f = NULL;
    char *text = NULL;
    int32_t *ids = NULL;
    long len;
    int n_ids = 0, window, at, rc = -1;
    srt_status ss;
    memset(&md, 0, sizeof md);
    if ((ss = srt_model_load(model_path, &md, &m)) != SRT_OK) { snprintf(err, errlen, "calibration model %.300s: %.500s (%s)", model_path, srt_last_error(), srt_status_str(ss)); return -1; }
    srt_model_get_info(m, &info);
    if (!(f = fopen(st->calib, "rb")) || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "--calib %s: cannot read the file", st->calib); goto done;
    }
    if (len == 0 || len > (1L << 30)) { snprintf(err, errlen, "--calib %s: %ld bytes (1 byte to 1 GiB)", st->calib, len); goto done; }
    if (!(text = (char *)malloc((size_t)len + 1)) || fread(text, 1, (size_t)len, f) != (size_t)len) {
        snprintf(err, errlen, "--calib %s: cannot read %ld bytes", st->calib, len); goto done;
    }
    text[len] = 0;
    srt_tokenize(m, text, (size_t)len, 0, NULL, 0, &n_ids);
    if (n_ids < 2 || !(ids = (int32_t *)malloc((size_t)n_ids * sizeof(int32_t))) ||
        srt_tokenize(m, text, (size_t)len, 0, ids, n_ids, &n_ids) != SRT_OK) {
        snprintf(err, errlen, "--calib %s: %d tokens; calibration needs at least 2", st->calib, n_ids); goto done;
    }
    if (!srtp_sums_init(st, info.n_layer, info.n_expert)) { snprintf(err, errlen, "calibration: out of memory"); goto done; }
    window = info.n_ctx_train > 0 && info.n_ctx_train < 2048 ? info.n_ctx_train : 2048;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = window;
    sd.kv_type = SRT_KV_F32;          /* the float model as it is (and F32 attention is faster for small heads) */
    sd.observer = srtp_observer;
    sd.observer_user = st;
    if ((ss = srt_session_create(m, &sd, &s)) != SRT_OK) { snprintf(err, errlen, "calibration session: %s (%s)", srt_last_error(), srt_status_str(ss)); goto done; }
    for (at = 0; at < n_ids; at += window) {
        int n = n_ids - at < window ? n_ids - at : window;
        srt_session_reset(s);
        if ((ss = srt_session_feed(s, ids + at, n)) != SRT_OK) { snprintf(err, errlen, "calibration: %s (%s)", srt_last_error(), srt_status_str(ss)); goto done; }
        if (st->calib_bad) { snprintf(err, errlen, "calibration: an observed input has an unexpected width (or out of memory)"); goto done; }
    }
    if (!quiet) fprintf(stderr, "srt-pack: wanda calibration: %d tokens of %s in %d windows of up to %d\n", n_ids, st->calib, (n_ids + window - 1) / window, window);
    rc = 0;
done:
    if (f) fclose(f);
    free(text); free(ids);
    srt_session_destroy(s);
    srt_model_free(m);
    return rc;
}

/* ---------------------------------------------------------------- pruning */
/* The k-th smallest (0-based) of a[0..n), n >= 1; reorders a. Three-way quickselect (many equal
   values stay linear), deterministic pivots. */
static float srtp__select(float *a, uint64_t n, uint64_t k) {
    uint64_t lo = 0, hi = n, rng = 0x9E3779B97F4A7C15ull;
    while (hi - lo > 1) {
        uint64_t lt = lo, i = lo, gt = hi;
        float p, t;
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        p = a[lo + (rng >> 33) % (hi - lo)];
        while (i < gt) {
            if (a[i] < p) { t = a[lt]; a[lt++] = a[i]; a[i++] = t; }
            else if (a[i] > p) { t = a[--gt]; a[gt] = a[i]; a[i] = t; }
            else i++;
        }
        if (k < lt) hi = lt;
        else if (k >= gt) lo = gt;
        else return p;
    }
    return a[lo];
}

/* Zeroes the k entries of w[0..n) of smallest score (ties: lower index first). tmp: n floats. */
static void srtp__zero_smallest(float *w, const float *score, uint64_t n, uint64_t k, float *tmp) {
    uint64_t i, below = 0, take;
    float t;
    if (k == 0) return;
    if (k >= n) { for (i = 0; i < n; i++) w[i] = 0.0f; return; }
    memcpy(tmp, score, (size_t)n * sizeof(float));
    t = srtp__select(tmp, n, k - 1);
    for (i = 0; i < n; i++) below += score[i] < t;
    take = k - below;
    for (i = 0; i < n; i++)
        if (score[i] < t) w[i] = 0.0f;
        else if (score[i] == t && take) { w[i] = 0.0f; take--; }
}

/* ---- whole tensors on st->pool. The work goes in chunks of SRTP_CHUNK items whatever the thread
   count, and what chunks count or sum is combined in chunk order, so every result (the pruned
   weights, the report) is the same on any number of threads. */
#define SRTP_CHUNK 65536
typedef struct srtp__job {
    float *w, *orig, *score;       /* pruned in place; a copy of the original; scores */
    const float *out;              /* the round trip (srtp__stats) */
    uint64_t n;
    float t;                       /* srtp__zero_pool: the threshold score */
    uint32_t hi;                   /* radix select: the top 16 bits of the k-th score (pass 1) */
    int pass;
    uint64_t *hist;                /* radix select: 65536 counts per thread */
    uint64_t *c1, *c2;             /* per chunk: counts */
    double *d1, *d2;               /* per chunk: sums */
} srtp__job;
static uint64_t srtp__chunks(uint64_t n) { return (n + SRTP_CHUNK - 1) / SRTP_CHUNK; }
static void srtp__run(srtp_state *st, srtp__job *j, srt_range_fn fn) {
    srt_pool_parallel_for(st->pool, (int64_t)srtp__chunks(j->n), 1, fn, j);
}
#define SRTP__CHUNK_RANGE(c, i0, i1) uint64_t i0 = (uint64_t)(c) * SRTP_CHUNK, i1 = i0 + SRTP_CHUNK < j->n ? i0 + SRTP_CHUNK : j->n

/* orig = w, score = |w|, c1 = 1 + the first value that is not finite (0: none) */
static void srtp__copy_abs(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__job *j = (srtp__job *)user;
    int64_t c;
    (void)thread_index;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t i;
        j->c1[c] = 0;
        for (i = i0; i < i1; i++) {
            float x = j->w[i];
            if (!(x - x == 0.0f) && !j->c1[c]) j->c1[c] = i + 1;
            j->orig[i] = x;
            j->score[i] = fabsf(x);
        }
    }
}
/* Radix select over the bits of non-negative scores (ordered as the values): pass 0 counts the top
   16 bits, pass 1 the low 16 bits of the scores whose top is j->hi. */
static void srtp__histogram(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__job *j = (srtp__job *)user;
    uint64_t *h = j->hist + (size_t)thread_index * 65536;
    int64_t c;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t i;
        for (i = i0; i < i1; i++) {
            uint32_t x;
            memcpy(&x, &j->score[i], 4);
            if (j->pass == 0) h[x >> 16]++;
            else if (x >> 16 == j->hi) h[x & 0xffffu]++;
        }
    }
}
/* c1 = scores below t, c2 = scores equal to t, per chunk */
static void srtp__count_t(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__job *j = (srtp__job *)user;
    int64_t c;
    (void)thread_index;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t i, below = 0, equal = 0;
        for (i = i0; i < i1; i++) { below += j->score[i] < j->t; equal += j->score[i] == j->t; }
        j->c1[c] = below; j->c2[c] = equal;
    }
}
/* zeroes scores below t and, of those equal to t, the first ones while c2 (now: how many of the
   chunk's may still go, after the chunks before it took theirs) lasts */
static void srtp__zero_t(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__job *j = (srtp__job *)user;
    int64_t c;
    (void)thread_index;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t i, take = j->c2[c];
        for (i = i0; i < i1; i++)
            if (j->score[i] < j->t) j->w[i] = 0.0f;
            else if (j->score[i] == j->t && take) { j->w[i] = 0.0f; take--; }
    }
}
/* The k-th smallest (0-based) of j->score[0..n) (non-negative): two histogram passes. */
static float srtp__select_pool(srtp_state *st, srtp__job *j, uint64_t k) {
    int threads = srt_pool_threads(st->pool), t, pass;
    uint32_t bits = 0;
    float v;
    for (pass = 0; pass < 2; pass++) {
        uint64_t b, seen = 0;
        memset(j->hist, 0, (size_t)threads * 65536 * sizeof(uint64_t));
        j->pass = pass;
        srtp__run(st, j, srtp__histogram);
        for (b = 0; b < 65536; b++) {
            uint64_t cnt = 0;
            for (t = 0; t < threads; t++) cnt += j->hist[(size_t)t * 65536 + b];
            if (seen + cnt > k) break;
            seen += cnt;
        }
        k -= seen;
        if (pass == 0) { j->hi = (uint32_t)b; bits = (uint32_t)b << 16; }
        else bits |= (uint32_t)b;
    }
    memcpy(&v, &bits, 4);
    return v;
}
/* srtp__zero_smallest on the pool: zeroes the k entries of j->w of smallest j->score (ties: lower
   index first). Needs j->hist, c1 and c2. */
static void srtp__zero_pool(srtp_state *st, srtp__job *j, uint64_t k) {
    uint64_t i, below = 0, take, nc = srtp__chunks(j->n);
    if (k == 0) return;
    if (k >= j->n) { memset(j->w, 0, (size_t)j->n * sizeof(float)); return; }
    j->t = srtp__select_pool(st, j, k - 1);
    srtp__run(st, j, srtp__count_t);
    for (i = 0; i < nc; i++) below += j->c1[i];
    take = k - below;
    for (i = 0; i < nc; i++) {   /* the ties each chunk zeroes, in index order */
        uint64_t mine = j->c2[i] < take ? j->c2[i] : take;
        j->c2[i] = mine;
        take -= mine;
    }
    srtp__run(st, j, srtp__zero_t);
}

/* s4x1 by magnitude, over blocks (4 rows at a column, in row-block, column order): pass 0 sets
   score[b] = sum |w| of block b and the mask (j->w) to 1; pass 1 zeroes the blocks whose mask the
   selection zeroed. */
typedef struct srtp__blocks { srtp__job *j; float *w; uint64_t rows, cols; int pass; } srtp__blocks;
static void srtp__blocks_pass(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__blocks *bl = (srtp__blocks *)user;
    srtp__job *j = bl->j;
    int64_t c;
    (void)thread_index;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t b;
        for (b = i0; b < i1; b++) {
            uint64_t r0 = b / bl->cols * 4, col = b % bl->cols, r;
            float sc = 0.0f;
            if (bl->pass == 1) {
                if (j->w[b] == 0.0f)
                    for (r = r0; r < r0 + 4 && r < bl->rows; r++) bl->w[r * bl->cols + col] = 0.0f;
                continue;
            }
            for (r = r0; r < r0 + 4 && r < bl->rows; r++) sc += fabsf(bl->w[r * bl->cols + col]);
            j->score[b] = sc;
            j->w[b] = 1.0f;
        }
    }
}
/* Wanda: each output row (s4x1: each block of 4 rows) on its own, with per-thread scratch. */
typedef struct srtp__wanda { float *w; const float *norm; uint64_t rows, cols, k, step; float *scratch; } srtp__wanda;
static void srtp__wanda_rows(void *user, int64_t b0, int64_t b1, int thread_index) {
    srtp__wanda *a = (srtp__wanda *)user;
    uint64_t cols = a->cols, b, i, rr;
    float *score = a->scratch + (size_t)thread_index * 3 * cols, *tmp = score + cols, *mask = tmp + cols;
    for (b = (uint64_t)b0; b < (uint64_t)b1; b++) {
        uint64_t r = b * a->step, nr = a->rows - r < a->step ? a->rows - r : a->step;
        for (i = 0; i < cols; i++) {
            float sc = 0.0f;
            for (rr = r; rr < r + nr; rr++) sc += fabsf(a->w[rr * cols + i]) * a->norm[i];
            score[i] = sc;
        }
        if (a->step == 1) { srtp__zero_smallest(a->w + r * cols, score, cols, a->k, tmp); continue; }
        for (i = 0; i < cols; i++) mask[i] = 1.0f;   /* the block's k weakest columns */
        srtp__zero_smallest(mask, score, cols, a->k, tmp);
        for (i = 0; i < cols; i++)
            if (mask[i] == 0.0f)
                for (rr = r; rr < r + nr; rr++) a->w[rr * cols + i] = 0.0f;
    }
}

/* Grows one scratch buffer to n values of `size` bytes. */
static int srtp__reserve_bytes(void **buf, uint64_t *cap, uint64_t n, size_t size, char *err, size_t errlen) {
    void *a;
    if (n <= *cap) return 0;
    if (n > (uint64_t)((size_t)-1 / size) || !(a = realloc(*buf, (size_t)n * size))) {
        snprintf(err, errlen, "pruning: out of memory for %llu values", (unsigned long long)n);
        return -1;
    }
    *buf = a;
    *cap = n;
    return 0;
}
static int srtp__reserve(float **buf, uint64_t *cap, uint64_t n, char *err, size_t errlen) {
    void *p = *buf;
    int r = srtp__reserve_bytes(&p, cap, n, sizeof(float), err, errlen);
    *buf = (float *)p;
    return r;
}

/* A job over the n weights w with st's scratch: score (n floats), orig (n floats, or w itself when
   the tensor is not pruned), per-chunk counts and sums and the histograms. */
static int srtp__job_init(srtp_state *st, srtp__job *j, float *w, uint64_t n, int pruned, char *err, size_t errlen) {
    uint64_t nc = srtp__chunks(n), threads = (uint64_t)srt_pool_threads(st->pool);
    memset(j, 0, sizeof *j);
    if ((pruned && srtp__reserve(&st->orig, &st->cap_orig, n, err, errlen) != 0) || srtp__reserve(&st->score, &st->cap_score, n, err, errlen) != 0 ||
        srtp__reserve_bytes((void **)&st->counts, &st->cap_counts, 2 * nc, sizeof(uint64_t), err, errlen) != 0 ||
        srtp__reserve_bytes((void **)&st->sums, &st->cap_sums, 2 * nc, sizeof(double), err, errlen) != 0 ||
        srtp__reserve_bytes((void **)&st->hist, &st->cap_hist, threads * 65536, sizeof(uint64_t), err, errlen) != 0) return -1;
    j->w = w; j->n = n; j->orig = pruned ? st->orig : w; j->score = st->score;
    j->c1 = st->counts; j->c2 = st->counts + nc; j->d1 = st->sums; j->d2 = st->sums + nc;
    j->hist = st->hist;
    return 0;
}

/* Prunes w (rows x cols, row-major) in place to `sparsity` with st->method; st->orig gets the
   weights before pruning. *uncalibrated (may be NULL) = 1 for an expert wanda pruned without norms. */
static int srtp_prune(srtp_state *st, const char *name, uint64_t rows, uint64_t cols, float *w, float sparsity, int *uncalibrated, char *err, size_t errlen) {
    uint64_t n = rows * cols, i;
    srtp__job j;
    if (srtp__job_init(st, &j, w, n, 1, err, errlen) != 0) return -1;
    srtp__run(st, &j, srtp__copy_abs);
    for (i = 0; i < srtp__chunks(n); i++)
        if (j.c1[i]) { snprintf(err, errlen, "tensor '%s' has a non-finite value at %llu; it cannot be pruned", name, (unsigned long long)(j.c1[i] - 1)); return -1; }
    if (uncalibrated) *uncalibrated = 0;
    if (st->method == SRTP_WANDA) {
        int layer = -1, expert = -1, kind = srtp_linear_kind(name, &layer, &expert), slot = srtp__slot(st, layer, kind, expert);
        const double *ss = slot >= 0 ? st->sumsq[slot] : NULL;
        srtp__wanda a;
        float *norm;
        if (ss ? (uint64_t)st->sumsq_cols[slot] != cols : expert < 0) {   /* a dense matrix is always observed: a mismatch is an error */
            snprintf(err, errlen, "tensor '%s': no calibration activations of width %llu were observed for it", name, (unsigned long long)cols);
            return -1;
        }
        if (srtp__reserve(&st->tmp, &st->cap_tmp, cols * (1 + 3 * (uint64_t)srt_pool_threads(st->pool)), err, errlen) != 0) return -1;
        norm = st->tmp;
        for (i = 0; i < cols; i++) norm[i] = ss ? (float)sqrt(ss[i]) : 1.0f;   /* an expert no token reached: |w| per row */
        if (!ss && uncalibrated) *uncalibrated = 1;
        a.w = w; a.norm = norm; a.rows = rows; a.cols = cols; a.scratch = st->tmp + cols;
        a.k = (uint64_t)floor((double)sparsity * (double)cols + 0.5);
        a.step = st->sparse_format == SRTP_S4X1 ? 4 : 1;   /* s4x1: per 4-row block, its k weakest columns */
        srt_pool_parallel_for(st->pool, (int64_t)((rows + a.step - 1) / a.step), 0, srtp__wanda_rows, &a);
    } else if (st->sparse_format == SRTP_S4X1) {   /* the tensor's weakest 4x1 blocks */
        uint64_t nb = (rows + 3) / 4 * cols, k = (uint64_t)floor((double)sparsity * (double)nb + 0.5);
        srtp__blocks bl;
        if (srtp__reserve(&st->tmp, &st->cap_tmp, nb, err, errlen) != 0) return -1;
        j.n = nb; j.w = st->tmp;   /* the mask */
        bl.j = &j; bl.w = w; bl.rows = rows; bl.cols = cols; bl.pass = 0;
        srt_pool_parallel_for(st->pool, (int64_t)srtp__chunks(nb), 1, srtp__blocks_pass, &bl);
        srtp__zero_pool(st, &j, k);
        bl.pass = 1;
        srt_pool_parallel_for(st->pool, (int64_t)srtp__chunks(nb), 1, srtp__blocks_pass, &bl);
    } else srtp__zero_pool(st, &j, (uint64_t)floor((double)sparsity * (double)n + 0.5));
    return 0;
}

/* What the runtime will compute with: w quantized to fmt and back (F32: w itself). The parts are
   kept from tensor to tensor and sized by the bound (no counting pass): the kernels' sizes are
   what the writer checks. */
static int srtp__roundtrip(srtp_state *st, srt_format fmt, uint32_t group, const float *w, uint64_t rows, uint64_t cols, float *out, char *err, size_t errlen) {
    srt_tensor_parts lay;
    int i;
    if (fmt == SRT_F32) { memcpy(out, w, (size_t)(rows * cols) * sizeof(float)); return 0; }
    if (fmt >= SRT_Q8 && fmt != SRT_SB_BF16 && fmt != SRT_TCSL && group == 0) group = fmt == SRT_FP4 ? 32 : 64;   /* what the writer does with 0
                                                                                                                  (sparsert.h: SRT__DEFAULT_GROUP; fp4 32) */
    if (srt_tensor_layout(fmt, rows, cols, group, &lay) != SRT_OK) {
        snprintf(err, errlen, "%s", srt_last_error());
        return -1;
    }
    for (i = 0; i < lay.n_parts; i++)
        if (lay.size[i] >= st->rt_cap[i]) {   /* never empty: a part of 0 bytes still gets a pointer */
            free(st->rt_parts[i]);
            st->rt_cap[i] = 0;
            if ((uint64_t)(size_t)(lay.size[i] + 1) != lay.size[i] + 1 || !(st->rt_parts[i] = malloc((size_t)lay.size[i] + 1))) { snprintf(err, errlen, "out of memory"); return -1; }
            st->rt_cap[i] = lay.size[i] + 1;
        }
    if (srt_quantize_pool(st->pool, fmt, group, w, rows, cols, st->rt_parts) != SRT_OK ||
        srt_dequantize_pool(st->pool, fmt, group, (const void *const *)st->rt_parts, rows, cols, out) != SRT_OK) {
        snprintf(err, errlen, "%s", srt_last_error());
        return -1;
    }
    return 0;
}

/* c1 = zeros of w, d1 = sum (orig - out)^2, d2 = sum orig^2, per chunk */
static void srtp__stats(void *user, int64_t c0, int64_t c1, int thread_index) {
    srtp__job *j = (srtp__job *)user;
    int64_t c;
    (void)thread_index;
    for (c = c0; c < c1; c++) {
        SRTP__CHUNK_RANGE(c, i0, i1);
        uint64_t i, zeros = 0;
        double e2 = 0, n2 = 0;
        for (i = i0; i < i1; i++) {
            double d = (double)j->orig[i] - j->out[i];
            zeros += j->w[i] == 0.0f;
            e2 += d * d;
            n2 += (double)j->orig[i] * j->orig[i];
        }
        j->c1[c] = zeros; j->d1[c] = e2; j->d2[c] = n2;
    }
}

/* One 2-D tensor about to be written: prunes w in place when a --sparsity rule asks for it, sets
   the stored format (srtp_choose_format; fmt and group come in as the dense choice) and records the
   achieved sparsity and reconstruction error. 0 or -1 with a message. */
static int srtp_process(srtp_state *st, const char *name, uint64_t rows, uint64_t cols, float *w, srt_format *fmt, uint32_t *group,
                        char *err, size_t errlen) {
    uint64_t n = rows * cols, i;
    float s = srtp_sparsity_for(st, name);
    int uncalibrated = 0;
    srtp_stat *rec;
    srtp__job j;
    if (s > 0.0f) {
        if (srtp_prune(st, name, rows, cols, w, s, &uncalibrated, err, errlen) != 0) return -1;
        srtp_choose_format(st, name, s, *fmt, *group, fmt, group);
    }
    if (srtp__job_init(st, &j, w, n, s > 0.0f, err, errlen) != 0) return -1;
    if (st->n_stats == st->cap_stats) {
        int nc = st->cap_stats ? 2 * st->cap_stats : 64;
        srtp_stat *ns = (srtp_stat *)realloc(st->stats, (size_t)nc * sizeof *ns);
        if (!ns) { snprintf(err, errlen, "out of memory"); return -1; }
        st->stats = ns; st->cap_stats = nc;
    }
    rec = &st->stats[st->n_stats++];
    memset(rec, 0, sizeof *rec);
    snprintf(rec->name, sizeof rec->name, "%s", name);
    rec->rows = rows; rec->cols = cols; rec->fmt = *fmt; rec->target = s; rec->uncalibrated = uncalibrated;
    if (srtp__roundtrip(st, *fmt, *group, w, rows, cols, st->score, err, errlen) != 0) {   /* score: n floats of scratch */
        st->n_stats--;
        return -1;
    }
    j.out = st->score;
    srtp__run(st, &j, srtp__stats);
    for (i = 0; i < srtp__chunks(n); i++) { rec->zeros += j.c1[i]; rec->err2 += j.d1[i]; rec->norm2 += j.d2[i]; }
    return 0;
}

/* The per-tensor table and totals. */
static void srtp_report(const srtp_state *st, FILE *f) {
    double e2[2] = {0, 0}, n2[2] = {0, 0};
    uint64_t z[2] = {0, 0}, n[2] = {0, 0};
    int i, np = 0, nu = 0;
    fprintf(f, "%-30s %15s %-5s %7s %9s %10s\n", "tensor", "rows x cols", "fmt", "target", "sparsity", "rel.error");
    for (i = 0; i < st->n_stats; i++) {
        const srtp_stat *r = &st->stats[i];
        char shape[40];
        int j = r->target > 0.0f;
        uint64_t nv = r->rows * r->cols;
        snprintf(shape, sizeof shape, "%llu x %llu", (unsigned long long)r->rows, (unsigned long long)r->cols);
        fprintf(f, "%-30s %15s %-5s %7.3f %9.4f %10.5f%s\n", r->name, shape, srt_format_name(r->fmt), r->target,
                nv ? (double)r->zeros / (double)nv : 0.0, r->norm2 > 0 ? sqrt(r->err2 / r->norm2) : 0.0, r->uncalibrated ? " *" : "");
        np += j;
        nu += r->uncalibrated;
        e2[j] += r->err2; n2[j] += r->norm2; z[j] += r->zeros; n[j] += nv;
    }
    if (nu) fprintf(f, "* %d experts that no calibration token was routed to: pruned by |w| per row (no input norms)\n", nu);
    fprintf(f, "total pruned (%d tensors, %llu weights): sparsity %.4f, rel.error %.5f\n", np, (unsigned long long)n[1],
            n[1] ? (double)z[1] / (double)n[1] : 0.0, n2[1] > 0 ? sqrt(e2[1] / n2[1]) : 0.0);
    fprintf(f, "total 2-D (%d tensors, %llu weights): sparsity %.4f, rel.error %.5f\n", st->n_stats, (unsigned long long)(n[0] + n[1]),
            n[0] + n[1] ? (double)(z[0] + z[1]) / (double)(n[0] + n[1]) : 0.0, n2[0] + n2[1] > 0 ? sqrt((e2[0] + e2[1]) / (n2[0] + n2[1])) : 0.0);
}

#endif
