/* test_spec.c - speculative decoding (srt_session_next_draft, srt_draft_lookup, srt_generate's
   draft_max): greedy decoding with proposals gives the tokens and the final logits of plain
   decoding bit for bit, whatever is proposed (all right, all wrong, half right, more than a batch
   holds), on tiny llama (f32, q8, q4), qwen3moe and gemma2 models (the sliding window's ring taken
   back past its spare rows) and with a sparse KV cache; the sampler's rule for a proposal draws
   from exactly the sampler's distribution (200,000 draws of srt__sample, and 20,000 session draws
   against the logits); srt_generate with prompt lookup and with a draft model ends where plain
   decoding ends (max_tokens, a callback's stop, EOS on stories260K) with the same text and the
   sequence the app saw, in fewer evaluations; chats with proposals hand out plain chats' tokens
   and keep the session at what the app saw after every call; the proposal count adapts;
   srt-chat --draft / --draft-model print plain decoding's text; bad arguments are refused. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include "tiny_model.h"

#include <math.h>

#define N_GEN 40

static srt_session *new_session(srt_model *m, int n_ctx, int n_batch, float temperature, float repeat_penalty) {
    srt_session_desc d;
    srt_session *s = NULL;
    memset(&d, 0, sizeof d);
    d.n_ctx = n_ctx; d.n_batch = n_batch;
    d.sampler.temperature = temperature;
    d.sampler.repeat_penalty = repeat_penalty;
    d.sampler.repeat_last_n = 8;
    if (srt_session_create(m, &d, &s) != SRT_OK) return NULL;
    return s;
}

static void test_lookup(void) {
    const int32_t a[] = {5, 6, 7, 8, 9, 5, 6, 7, 1, 5, 6, 7};
    const int32_t b[] = {1, 2, 3, 9, 4, 2, 3, 8, 1, 2, 3};
    const int32_t c[] = {1, 2, 3};
    int32_t d[8];
    int n;
    n = srt_draft_lookup(a, 12, 1, 3, d, 8);
    CHECK(n == 4 && d[0] == 1 && d[1] == 5 && d[2] == 6 && d[3] == 7, "lookup: the tokens after the latest earlier occurrence of the last 3 (%d)", n);
    n = srt_draft_lookup(a, 12, 1, 3, d, 2);
    CHECK(n == 2 && d[0] == 1 && d[1] == 5, "lookup: at most cap tokens");
    n = srt_draft_lookup(b, 11, 1, 3, d, 8);
    CHECK(n == 8 && d[0] == 9 && d[1] == 4, "lookup: the longest n-gram first (3 tokens match an older place than 2)");
    n = srt_draft_lookup(b, 11, 1, 2, d, 8);
    CHECK(n == 4 && d[0] == 8 && d[1] == 1 && d[3] == 3, "lookup: ngram_max 2 takes the latest place of the last 2");
    CHECK(srt_draft_lookup(c, 3, 1, 3, d, 8) == 0, "lookup: no earlier occurrence, no draft");
    CHECK(srt_draft_lookup(b, 11, 0, 3, d, 8) == 0 && srt_draft_lookup(b, 11, 3, 2, d, 8) == 0 && srt_draft_lookup(b, 11, 1, 3, d, 0) == 0 &&
          srt_draft_lookup(b, 1, 1, 3, d, 8) == 0 && srt_draft_lookup(b, 0, 1, 3, d, 8) == 0 && srt_draft_lookup(NULL, 5, 1, 3, d, 8) == 0,
          "lookup: bad arguments and too short a sequence give no draft");
}

/* The proposal count after an evaluation: doubled after all were kept, one more than the kept
   ones otherwise, within 1 .. draft_max; unchanged without proposals. */
static void test_adapt(void) {
    CHECK(srt__draft_adapt(2, 2, 2, 8) == 4 && srt__draft_adapt(4, 4, 4, 8) == 8 && srt__draft_adapt(8, 8, 8, 8) == 8 && srt__draft_adapt(6, 6, 6, 8) == 8,
          "adapt: all kept: twice as many, at most draft_max");
    CHECK(srt__draft_adapt(8, 8, 2, 8) == 3 && srt__draft_adapt(8, 8, 0, 8) == 1 && srt__draft_adapt(4, 3, 2, 8) == 3,
          "adapt: some not kept: one more than were kept");
    CHECK(srt__draft_adapt(5, 0, 0, 8) == 5, "adapt: no proposals (no lookup match): unchanged");
}

/* srt__sample with a proposal draws from the sampler's distribution: the frequencies of 200,000
   draws against the probabilities srt__candidates gives (5 standard errors: 0.0056). */
static void test_sample_rule(void) {
    static const float logits[6] = {2.0f, 1.0f, 0.5f, 0.0f, -1.0f, 3.0f};
    static const struct { int top_k; float min_p, top_p; int proposed; const char *what; } cases[] = {
        {0, 0, 0, 5, "the most probable proposed"}, {0, 0, 0, 2, "a middle one proposed"}, {0, 0, 0, 4, "the least probable proposed"},
        {4, 0, 0, 1, "top-k 4, one of them proposed"}, {4, 0, 0, 4, "top-k 4, one outside proposed"},
        {0, 0.2f, 0.9f, 0, "min-p and top-p, the second proposed"}, {1, 0, 0, 5, "top-k 1 (one candidate), it proposed"},
        {1, 0, 0, 3, "top-k 1, another proposed"}};
    srt__vec_ops vops, *ops = &vops;
    srt__cand cand[6];
    int c;
    srt__vec_ops_for(SRT_ISA_PORTABLE, &vops);
    for (c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        srt_sampler_desc sd;
        double p[6] = {0}, freq[6] = {0}, dev = 0;
        float lg[6], total;
        uint64_t rng = 99 + (uint64_t)c;
        int i, nc, accepted = 0;
        const int N = 200000;
        memset(&sd, 0, sizeof sd);
        sd.temperature = 1.0f; sd.top_k = cases[c].top_k; sd.min_p = cases[c].min_p; sd.top_p = cases[c].top_p;
        memcpy(lg, logits, sizeof lg);
        nc = srt__candidates(&sd, lg, 6, cand, &total);
        for (i = 0; i < nc; i++) p[cand[i].id] = cand[i].p / total;
        for (i = 0; i < N; i++) {
            int32_t t;
            memcpy(lg, logits, sizeof lg);
            t = srt__sample(&sd, ops, lg, 6, NULL, 0, cand, &rng, cases[c].proposed);
            freq[t] += 1.0 / N;
            if (t == cases[c].proposed) accepted++;
        }
        for (i = 0; i < 6; i++) if (fabs(freq[i] - p[i]) > dev) dev = fabs(freq[i] - p[i]);
        CHECK(dev < 0.0056, "sampler rule, %s: frequencies within %.4f of the distribution (proposal kept %.4f, p %.4f)", cases[c].what, dev,
              (double)accepted / N, p[cases[c].proposed]);
    }
    {   /* greedy: the argmax, whatever is proposed */
        srt_sampler_desc sd;
        float lg[6];
        uint64_t rng = 1;
        memset(&sd, 0, sizeof sd);
        memcpy(lg, logits, sizeof lg);
        CHECK(srt__sample(&sd, ops, lg, 6, NULL, 0, cand, &rng, 2) == 5 && rng == 1, "sampler rule, greedy: the argmax, no random draw");
    }
}

/* The proposals of call `call` for the greedy continuation ref[at..]: kind 0 all right, 1 all
   wrong, 2 half right; k tokens (past ref's end: wrong ones). */
static int make_draft(const int32_t *ref, int n_ref, int at, int kind, int k, int n_vocab, int32_t *d) {
    int i;
    for (i = 0; i < k; i++) {
        int32_t r = at + i < n_ref ? ref[at + i] : 7;
        d[i] = kind == 0 || (kind == 2 && i < k / 2) ? r : (r + 1 + i) % n_vocab;
    }
    return k;
}

/* Plain greedy decoding against decoding with proposals on model m: the same N_GEN tokens and the
   same final logits. setup: a hook run on both sessions after the prompt (NULL = none). */
static void check_greedy(srt_model *m, const char *tag, int n_ctx, int n_batch, float kv_sparsity, int take_back) {
    static const int32_t prompt[5] = {1, 100, 200, 50, 77};
    int32_t ref[N_GEN + 8], got[N_GEN + SRT_DRAFT_MAX + 1], d[32], out[SRT_DRAFT_MAX + 1];
    int kind, i, n_v = srt_vocab_size(m);
    srt_session *a = new_session(m, n_ctx, n_batch, 0.0f, 1.3f), *b = NULL;
    const float *la, *lb;
    if (!a) { CHECK(0, "%s: session (%s)", tag, srt_last_error()); return; }
    if (kv_sparsity > 0) {   /* sessions with a sparse KV cache for the prompt */
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = n_ctx; sd.n_batch = n_batch; sd.sampler.repeat_penalty = 1.3f; sd.sampler.repeat_last_n = 8;
        sd.kv_sparsity_k = sd.kv_sparsity_v = kv_sparsity;
        srt_session_destroy(a);
        if (srt_session_create(m, &sd, &a) != SRT_OK) { CHECK(0, "%s: sparse KV session (%s)", tag, srt_last_error()); return; }
    }
    srt_session_feed(a, prompt, 5);
    for (i = 0; i < N_GEN && srt_session_next(a, &ref[i]) == SRT_OK; i++) {}
    if (take_back) {   /* back past what the ring of a sliding layer holds: everything is evaluated again */
        srt_session_truncate(a, 5 + take_back);
        for (i = take_back; i < N_GEN && srt_session_next(a, &ref[i]) == SRT_OK; i++) {}
    }
    la = srt_session_logits(a);
    for (kind = 0; kind < 4; kind++) {   /* 3: every kind in turn, and drafts longer than a batch holds */
        int n = 0, calls = 0, ok = 1, st = SRT_OK;
        srt_session_desc sd = a->d;
        b = NULL;
        if (srt_session_create(m, &sd, &b) != SRT_OK) { CHECK(0, "%s: second session", tag); break; }
        srt_session_feed(b, prompt, 5);
        if (take_back) {   /* the same way there: plain up to take_back + 20, back, then proposals */
            int32_t t;
            for (i = 0; i < take_back + 20; i++) srt_session_next(b, &t);
            srt_session_truncate(b, 5 + take_back);
            n = take_back;
            memcpy(got, ref, sizeof(int32_t) * (size_t)take_back);
        }
        while (n < N_GEN && st == SRT_OK) {
            const int k = kind == 3 ? (calls % 3 == 2 ? 20 : 1 + calls % 7) : 1 + calls % 7;
            int nd = make_draft(ref, N_GEN, n, kind == 3 ? calls % 3 : kind, k, n_v, d), nout = 0;
            st = srt_session_next_draft(b, d, nd, out, &nout);
            if (st != SRT_OK || nout < 1 || nout > nd + 1) { ok = 0; break; }
            memcpy(got + n, out, sizeof(int32_t) * (size_t)nout);
            n += nout;
            calls++;
        }
        for (i = 0; i < N_GEN && ok; i++) ok = got[i] == ref[i];
        if (ok && n > N_GEN) srt_session_truncate(b, 5 + N_GEN);   /* drawn past N_GEN (right proposals): back to where a stopped */
        lb = srt_session_logits(b);
        CHECK(ok && n >= N_GEN && la && lb && memcmp(la, lb, sizeof(float) * (size_t)n_v) == 0,
              "%s, proposals %s: the greedy tokens and the final logits of plain decoding, bit for bit (%d calls for %d tokens)", tag,
              kind == 0 ? "all right" : kind == 1 ? "all wrong" : kind == 2 ? "half right" : "of every kind, up to 20", calls, n);
        if (kind == 0) CHECK(calls * 2 < N_GEN - take_back, "%s, right proposals: fewer evaluations (%d for %d tokens)", tag, calls, N_GEN - take_back);
        if (kind == 1) CHECK(calls >= N_GEN - take_back, "%s, wrong proposals: one token per evaluation (%d)", tag, calls);
        srt_session_destroy(b);
    }
    srt_session_destroy(a);
}

static void test_greedy(void) {
    static const struct { const char *arch; srt_format f; } models[] = {
        {"llama", SRT_F32}, {"llama", SRT_Q8}, {"llama", SRT_Q4}, {"qwen3moe", SRT_Q8}, {"qwen2moe", SRT_Q4}, {"gemma2", SRT_F16}, {"gemma", SRT_Q4}, {"smollm3", SRT_Q8},
        {"granite", SRT_Q4}, {"granitemoe", SRT_Q8}, {"olmo2", SRT_Q4}, {"olmoe", SRT_Q8}, {"exaone4", SRT_Q8}, {"minicpm", SRT_Q4}, {"phi3", SRT_BF16}};
    int i;
    for (i = 0; i < (int)(sizeof models / sizeof models[0]); i++) {
        srt_model *m = NULL;
        srt_model_desc md;
        char tag[64];
        memset(&md, 0, sizeof md);
        /* AMX's bf16 GEMM carries x as two bf16 parts: its batch logits differ from a single token's in
           the last bits (documented), so bf16 is held to the bit-for-bit rule at the AVX-512 level */
        if (models[i].f == SRT_BF16 && srt_isa_supported(SRT_ISA_AMX)) md.isa = SRT_ISA_AVX512;
        snprintf(tag, sizeof tag, "%s %s%s", models[i].arch, srt_format_name(models[i].f), md.isa ? " (avx512)" : "");
        if (!write_tiny_model_arch("build/tmp/spec.srt", models[i].arch, NULL, models[i].f, NULL, NULL, 1) ||
            srt_model_load("build/tmp/spec.srt", &md, &m) != SRT_OK) { CHECK(0, "%s: model (%s)", tag, srt_last_error()); continue; }
        check_greedy(m, tag, 64, 8, 0.0f, 0);
        if (i == 0) {
            check_greedy(m, "llama f32, a sparse KV cache for the prompt", 64, 8, 0.5f, 0);
            check_greedy(m, "llama f32, the context ends with the tokens", 5 + N_GEN, 8, 0.0f, 0);
        }
        if (!strcmp(models[i].arch, "gemma2")) {   /* window 4, n_batch 8: a ring of 15 rows */
            srt_session *s = new_session(m, 64, 8, 0.0f, 1.3f);
            CHECK(s && s->swa_cap == 15 && s->n_ctx == 64, "gemma2: its sliding layers keep a ring of %d of the 64 positions", s ? s->swa_cap : -1);
            srt_session_destroy(s);
            check_greedy(m, "gemma2 f16, taken back past the ring", 64, 8, 0.0f, 10);
        }
        srt_model_free(m);
    }
}

/* The first token drawn with a proposal, at temperature 1 on the tiny model, against the softmax
   of the logits: 20,000 draws (5 standard errors: 0.018). */
static void test_sample_session(srt_model *m) {
    static const int32_t prompt[3] = {1, 100, 200};
    srt_session *s = new_session(m, 64, 8, 1.0f, 0.0f);
    const int V = srt_vocab_size(m), N = 20000;
    double *p = (double *)calloc((size_t)V, sizeof(double)), *f = (double *)calloc((size_t)V, sizeof(double)), sum = 0, dev = 0;
    const float *lg;
    int i, best = 0, kept = 0;
    if (!s || !p || !f || srt_session_feed(s, prompt, 3) != SRT_OK || !(lg = srt_session_logits(s))) { CHECK(0, "sampling session"); free(p); free(f); srt_session_destroy(s); return; }
    for (i = 0; i < V; i++) { p[i] = exp((double)lg[i]); sum += p[i]; if (lg[i] > lg[best]) best = i; }
    for (i = 0; i < V; i++) p[i] /= sum;
    for (i = 0; i < N; i++) {
        int32_t d[2], out[3];
        int n = 0;
        d[0] = best; d[1] = 5;
        if (srt_session_next_draft(s, d, 2, out, &n) != SRT_OK || n < 1) break;
        f[out[0]] += 1.0 / N;
        kept += out[0] == best;
        srt_session_truncate(s, 3);
    }
    for (i = 0; i < V; i++) if (fabs(f[i] - p[i]) > dev) dev = fabs(f[i] - p[i]);
    CHECK(dev < 0.018, "sampling with proposals: 20,000 first tokens within %.4f of the softmax (the proposal, p %.3f, kept %.3f)", dev, p[best], (double)kept / N);
    free(p); free(f);
    srt_session_destroy(s);
}

typedef struct gen_log { char text[4096]; int len, n, stop_after; } gen_log;
static int on_text(const char *t, int n, int32_t tok, void *user) {
    gen_log *g = (gen_log *)user;
    (void)tok;
    if (g->len + n < (int)sizeof g->text) { memcpy(g->text + g->len, t, (size_t)n); g->len += n; g->text[g->len] = 0; }
    return g->stop_after > 0 && ++g->n >= g->stop_after;
}
/* srt_generate greedy, plain and with proposals (draft: a draft session, else lookup): the same
   text, count and stop, and the same sequence afterwards. */
static void check_generate(srt_model *m, srt_session *draft, const char *prompt, int max_tokens, int stop_after, int n_ctx, const char *tag, int want_fewer) {
    srt_session *a = new_session(m, n_ctx, 32, 0.0f, 0.0f), *b = new_session(m, n_ctx, 32, 0.0f, 0.0f);
    srt_generate_desc g;
    srt_generate_result ra, rb;
    gen_log la, lb;
    srt_status sa, sb;
    if (!a || !b) { CHECK(0, "%s: sessions", tag); srt_session_destroy(a); srt_session_destroy(b); return; }
    memset(&g, 0, sizeof g); memset(&la, 0, sizeof la); memset(&lb, 0, sizeof lb);
    g.prompt = prompt; g.max_tokens = max_tokens; g.on_text = on_text;
    la.stop_after = lb.stop_after = stop_after;
    g.user = &la;
    sa = srt_generate(a, &g, &ra);
    g.user = &lb; g.draft_max = 8; g.draft = draft;
    sb = srt_generate(b, &g, &rb);
    CHECK((sa == SRT_OK || sa == SRT_ERR_CONTEXT_FULL) && sb == sa && ra.n_generated == rb.n_generated && ra.stopped_by == rb.stopped_by && la.len == lb.len && !memcmp(la.text, lb.text, (size_t)la.len) &&
          a->n_tokens == b->n_tokens && !memcmp(a->tokens, b->tokens, sizeof(int32_t) * (size_t)a->n_tokens),
          "%s: the text, count (%d, %d), stop (%d, %d) and sequence of plain decoding", tag, ra.n_generated, rb.n_generated, ra.stopped_by, rb.stopped_by);
    CHECK(rb.n_accepted <= rb.n_proposed && rb.n_passes <= rb.n_generated + 1 && (!want_fewer || rb.n_passes < ra.n_passes),
          "%s: %d evaluations for %d tokens (plain %d); %d of %d proposals kept", tag, rb.n_passes, rb.n_generated, ra.n_passes, rb.n_accepted, rb.n_proposed);
    srt_session_destroy(a); srt_session_destroy(b);
}

static void test_generate(void) {
    srt_model *m = NULL, *same = NULL, *q4 = NULL, *other = NULL;
    srt_model_desc md;
    srt_session *ds = NULL, *dq = NULL, *dother = NULL, *s = NULL;
    srt_generate_desc g;
    srt_generate_result r;
    memset(&md, 0, sizeof md);
    tiny_rng_state = 777;
    if (!write_tiny_model("build/tmp/spec_f32.srt", SRT_F32, NULL, NULL, 1) || srt_model_load("build/tmp/spec_f32.srt", &md, &m) != SRT_OK ||
        srt_model_load("build/tmp/spec_f32.srt", &md, &same) != SRT_OK) { CHECK(0, "generate: model (%s)", srt_last_error()); return; }
    tiny_rng_state = 777;
    if (write_tiny_model("build/tmp/spec_q4.srt", SRT_Q4, NULL, NULL, 1)) srt_model_load("build/tmp/spec_q4.srt", &md, &q4);
    tiny_piece_id = T_V - 1; tiny_piece_text = "zz";
    if (write_tiny_model("build/tmp/spec_other.srt", SRT_F32, NULL, NULL, 1)) srt_model_load("build/tmp/spec_other.srt", &md, &other);
    tiny_piece_id = -1;
    ds = same ? new_session(same, 64, 32, 0.0f, 0.0f) : NULL;
    dq = q4 ? new_session(q4, 64, 32, 0.0f, 0.0f) : NULL;
    dother = other ? new_session(other, 64, 32, 0.0f, 0.0f) : NULL;
    check_generate(m, NULL, "hello abc", 30, 0, 64, "generate, lookup, 30 tokens", 0);
    check_generate(m, ds, "hello abc", 30, 0, 64, "generate, the same model drafting", 1);
    check_generate(m, dq, "hello abc", 30, 0, 64, "generate, a q4 draft model", 0);
    check_generate(m, ds, "hello abc", 0, 13, 64, "generate, the same model drafting, the callback stops at 13", 1);
    check_generate(m, ds, "hello abc", 23, 0, 64, "generate, the same model drafting, max_tokens 23", 1);
    check_generate(m, ds, "hello abc", 0, 0, 40, "generate, the same model drafting, to the end of a 40-token context", 1);
    check_generate(m, ds, "hello abc", 0, 0, 64, "generate, the same model drafting again (its session taken up)", 1);
    CHECK(ds && ds->n_tokens > 0, "the draft session followed the sequence (%d tokens)", ds ? ds->n_tokens : -1);
    {   /* EOS inside the tokens of one evaluation: the same model with a later greedy token as EOS */
        srt_model *me = NULL, *me2 = NULL;
        srt_session *de = NULL;
        int32_t t = -1, seen[40];
        int i, j, at = -1;
        s = new_session(m, 64, 32, 0.0f, 0.0f);
        srt_session_prompt(s, "hello abc", 0);
        for (i = 0; i < 40 && at < 0; i++) {   /* the first token from the 9th on that was not drawn before */
            srt_session_next(s, &seen[i]);
            for (j = 0; j < i && seen[j] != seen[i]; j++) {}
            if (i >= 8 && j == i) { at = i; t = seen[i]; }
        }
        srt_session_destroy(s);
        tiny_rng_state = 777; tiny_eos_id = t;
        if (write_tiny_model("build/tmp/spec_eos.srt", SRT_F32, NULL, NULL, 1)) { srt_model_load("build/tmp/spec_eos.srt", &md, &me); srt_model_load("build/tmp/spec_eos.srt", &md, &me2); }
        tiny_eos_id = 2;
        de = me2 ? new_session(me2, 64, 32, 0.0f, 0.0f) : NULL;
        CHECK(me && de && at >= 8, "a model whose EOS is its greedy token %d (%d)", at, t);
        if (me && de) {
            check_generate(me, NULL, "hello abc", 0, 0, 64, "generate to EOS, lookup", 0);
            check_generate(me, de, "hello abc", 0, 0, 64, "generate to EOS, the same model drafting", 1);
        }
        srt_session_destroy(de);
        srt_model_free(me); srt_model_free(me2);
        me = NULL;
        /* the same token as the control token "<|im_end|>" (EOS stays 2): generation ends there too */
        tiny_rng_state = 777; tiny_piece_id = t; tiny_piece_text = "<|im_end|>";
        if (write_tiny_model("build/tmp/spec_eot.srt", SRT_F32, NULL, NULL, 1)) srt_model_load("build/tmp/spec_eot.srt", &md, &me);
        tiny_piece_id = -1;
        if (me) {
            srt_generate_desc ge;
            srt_generate_result rg;
            srt_status st;
            memset(&ge, 0, sizeof ge);
            memset(&rg, 0, sizeof rg);
            s = new_session(me, 64, 32, 0.0f, 0.0f);
            ge.prompt = "hello abc";
            st = s ? srt_generate(s, &ge, &rg) : SRT_ERR_INVALID_ARG;
            CHECK(srt_token_is_eog(me, t) && srt_token_is_eog(me, 2) && !srt_token_is_eog(me, 5) && st == SRT_OK &&
                  rg.stopped_by == 1 && rg.n_generated == at && s->tokens[s->n_tokens - 1] == t,
                  "generate stops at an end-of-turn control token that is not EOS (<|im_end|>, after %d tokens)", rg.n_generated);
            srt_session_reset(s);
            ge.stop_at_eos = -1; ge.max_tokens = at + 5;
            st = srt_generate(s, &ge, &rg);
            CHECK(st == SRT_OK && rg.n_generated == at + 5, "with stop_at_eos -1 it goes on past it (%d tokens)", rg.n_generated);
            srt_session_destroy(s);
            check_generate(me, NULL, "hello abc", 0, 0, 64, "generate to <|im_end|>, lookup", 0);
        } else CHECK(0, "a model with <|im_end|>");
        srt_model_free(me);
        me = NULL;   /* EXAONE's end of turn, "[|endofturn|]", is one too */
        tiny_rng_state = 777; tiny_piece_id = t; tiny_piece_text = "[|endofturn|]";
        if (write_tiny_model("build/tmp/spec_eot.srt", SRT_F32, NULL, NULL, 1)) srt_model_load("build/tmp/spec_eot.srt", &md, &me);
        tiny_piece_id = -1;
        CHECK(me && srt_token_is_eog(me, t) && !srt_token_is_eog(me, 5), "the control token [|endofturn|] ends generation");
        srt_model_free(me);
    }
    s = new_session(m, 64, 32, 0.0f, 0.0f);
    memset(&g, 0, sizeof g);
    g.prompt = "hello"; g.max_tokens = 5;
    g.draft_max = SRT_DRAFT_MAX + 1;
    CHECK(srt_generate(s, &g, &r) == SRT_ERR_INVALID_ARG && s->n_tokens == 0, "generate: draft_max past SRT_DRAFT_MAX is refused (%s)", srt_last_error());
    g.draft_max = 4; g.draft = s;
    CHECK(srt_generate(s, &g, &r) == SRT_ERR_INVALID_ARG, "generate: the session drafting for itself is refused");
    g.draft = dother;
    CHECK(dother && srt_generate(s, &g, &r) == SRT_ERR_INVALID_ARG && strstr(srt_last_error(), "vocabulary"), "generate: a draft model of another vocabulary is refused (%s)", srt_last_error());
    g.draft_ngram = -1; g.draft = NULL;
    CHECK(srt_generate(s, &g, &r) == SRT_ERR_INVALID_ARG, "generate: a negative draft_ngram is refused");
    srt_session_destroy(s);
    {   /* the call's own refusals */
        int32_t d[3] = {5, 6, 7}, out[4], t;
        int n = -1;
        s = new_session(m, 64, 32, 0.0f, 0.0f);
        CHECK(srt_session_next_draft(s, d, 3, out, &n) == SRT_ERR_INVALID_ARG && n == 0, "next_draft: nothing to continue yet is refused (%s)", srt_last_error());
        srt_session_feed(s, d, 3);
        d[1] = T_V;
        CHECK(srt_session_next_draft(s, d, 3, out, &n) == SRT_ERR_INVALID_ARG && s->n_tokens == 3, "next_draft: a proposal outside the vocabulary is refused (%s)", srt_last_error());
        d[1] = 6;
        CHECK(srt_session_next_draft(s, d, -1, out, &n) == SRT_ERR_INVALID_ARG && srt_session_next_draft(s, NULL, 2, out, &n) == SRT_ERR_INVALID_ARG &&
              srt_session_next_draft(s, d, 2, NULL, &n) == SRT_ERR_INVALID_ARG && srt_session_next_draft(NULL, d, 2, out, &n) == SRT_ERR_INVALID_ARG,
              "next_draft: bad arguments are refused");
        srt_session_cancel(s);
        CHECK(srt_session_next_draft(s, d, 3, out, &n) == SRT_ERR_CANCELLED && s->n_tokens == 3, "next_draft: a cancel request stops it before anything is drawn");
        CHECK(srt_session_next_draft(s, d, 0, out, &n) == SRT_OK && n == 1 && s->n_tokens == 4, "next_draft: no proposals draws one token");
        srt_session_truncate(s, 3);
        srt_session_next(s, &t);
        CHECK(t == out[0], "next_draft with no proposals draws what srt_session_next draws");
        srt_session_destroy(s);
    }
    srt_session_destroy(ds); srt_session_destroy(dq); srt_session_destroy(dother);
    if (m) test_sample_session(m);
    srt_model_free(m); srt_model_free(same); srt_model_free(q4); srt_model_free(other);
}

/* stories260K (real weights) packed by srt-pack: the golden prompts to the end of a 512-token
   context, plain and with prompt lookup, and with its q8 copy drafting. */
static void test_stories(void) {
    static const char *prompts[3] = {"Once upon a time", "Lily had a red ball", ""};
    srt_model *m = NULL, *q8 = NULL;
    srt_model_desc md;
    srt_session *dq;
    int p;
    memset(&md, 0, sizeof md);
    if (system("build/srt-pack -q --weights f32 " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/spec_stories.srt > build/tmp/spec_pack.log 2>&1") != 0 ||
        system("build/srt-pack -q --weights q8 " SRT_SHARED "/models/stories260K/stories260K.gguf build/tmp/spec_stories_q8.srt > build/tmp/spec_pack.log 2>&1") != 0 ||
        srt_model_load("build/tmp/spec_stories.srt", &md, &m) != SRT_OK || srt_model_load("build/tmp/spec_stories_q8.srt", &md, &q8) != SRT_OK) {
        CHECK(0, "stories260K packed (see build/tmp/spec_pack.log)");
        srt_model_free(m);
        return;
    }
    dq = new_session(q8, 512, 32, 0.0f, 0.0f);
    for (p = 0; p < 3; p++) {
        char tag[96];
        snprintf(tag, sizeof tag, "stories260K \"%s\", lookup, to the end of the context", prompts[p]);
        check_generate(m, NULL, prompts[p], 0, 0, 512, tag, 1);
        snprintf(tag, sizeof tag, "stories260K \"%s\", its q8 copy drafting, to the end of the context", prompts[p]);
        check_generate(m, dq, prompts[p], 0, 0, 512, tag, 1);
    }
    srt_session_destroy(dq);
    srt_model_free(m); srt_model_free(q8);
    {   /* srt-chat --draft N and --draft-model: the text of plain decoding */
        static const char *const opts[3] = {"", "--draft 8", "--draft-model build/tmp/spec_stories_q8.srt"};
        char cmd[512], *txt[3], *err;
        int i;
        for (i = 0; i < 3; i++) {
            snprintf(cmd, sizeof cmd, "build/srt-chat -m build/tmp/spec_stories.srt -p \"Once upon a time\" -n 200 -t 1 %s > build/tmp/spec_chat%d.txt 2>build/tmp/spec_chat%d.err", opts[i], i, i);
            txt[i] = system(cmd) == 0 ? (snprintf(cmd, sizeof cmd, "build/tmp/spec_chat%d.txt", i), srt_test_read_file(cmd, NULL)) : NULL;
        }
        err = srt_test_read_file("build/tmp/spec_chat2.err", NULL);
        CHECK(txt[0] && txt[1] && txt[2] && strlen(txt[0]) > 400 && !strcmp(txt[0], txt[1]) && !strcmp(txt[0], txt[2]) && err && strstr(err, "speculative:"),
              "srt-chat --draft 8 and --draft-model print plain decoding's text (%d bytes) and the proposals kept", txt[0] ? (int)strlen(txt[0]) : -1);
        for (i = 0; i < 3; i++) free(txt[i]);
        free(err);
    }
}

/* Chats over two sessions of one model, plain and with proposals (draft: a draft session, else
   lookup), through the same calls: the same tokens handed out, the same messages, and the same
   sequence in the session after each call (tokens drawn but not handed out are dropped). */
static void check_chat(srt_model *m, srt_session *draft, int max_tokens, int want_turn_end, const char *tag) {
    srt_session *sa = new_session(m, 256, 32, 0.0f, 0.0f), *sb = new_session(m, 256, 32, 0.0f, 0.0f);
    srt_chat *ca = NULL, *cb = NULL;
    srt_chat_desc d;
    int step, ok = 1, i, drawn = 0, ends = 0, held = 0, turns = 0;
    memset(&d, 0, sizeof d);
    d.template_name = "chatml"; d.max_tokens = max_tokens;
    if (!sa || !sb || srt_chat_create(sa, &d, &ca) != SRT_OK) { CHECK(0, "%s: chat", tag); srt_session_destroy(sa); srt_session_destroy(sb); return; }
    d.draft_max = 6; d.draft = draft;
    if (srt_chat_create(sb, &d, &cb) != SRT_OK) { CHECK(0, "%s: chat with proposals (%s)", tag, srt_last_error()); srt_chat_destroy(ca); srt_session_destroy(sa); srt_session_destroy(sb); return; }
    /* send, draw 7, send again (the reply left open), draw to the end, regenerate, draw 3, undo, send, draw to the end,
       send, draw 3 (then srt_chat_destroy) */
    for (step = 0; step < 11 && ok; step++) {
        const int draw = step == 1 ? 7 : step == 3 || step == 8 ? 1000 : step == 5 || step == 10 ? 3 : 0;
        srt_status a = SRT_OK, b = SRT_OK;
        if (step == 0 || step == 2 || step == 7 || step == 9) { a = srt_chat_send(ca, step == 2 ? "abc abc" : "hello abc", NULL); b = srt_chat_send(cb, step == 2 ? "abc abc" : "hello abc", NULL); }
        if (step == 4) { a = srt_chat_regenerate(ca); b = srt_chat_regenerate(cb); }
        if (step == 6) { a = srt_chat_undo(ca); b = srt_chat_undo(cb); }
        ok = a == b && a == SRT_OK;
        for (i = 0; i < draw && ok; i++) {
            int32_t ta, tb;
            int ea, eb;
            a = srt_chat_next(ca, &ta, &ea);
            b = srt_chat_next(cb, &tb, &eb);
            ok = a == b && ta == tb && ea == eb;
            drawn++;
            if (a != SRT_OK || ea != SRT_CHAT_GOING) { ends++; turns += ea == SRT_CHAT_END_TURN; break; }
        }
        /* less the tokens drawn and not handed out yet (a reply left open) */
        ok = ok && sa->n_tokens == sb->n_tokens - (cb->q_n - cb->q_at) && !memcmp(sa->tokens, sb->tokens, sizeof(int32_t) * (size_t)sa->n_tokens);
        if (cb->q_n > cb->q_at) held++;
        ok = ok && (cb->reply_open || cb->q_n == cb->q_at);   /* a closed reply holds nothing more */
        if (!ok) printf("# %s: step %d differs (%d, %d tokens)\n", tag, step, sa->n_tokens, sb->n_tokens);
        {
            int na, nb, k;
            const srt_chat_message *ma = srt_chat_messages(ca, &na), *mb = srt_chat_messages(cb, &nb);
            ok = ok && na == nb;
            for (k = 0; ok && k < na; k++) ok = !strcmp(ma[k].role, mb[k].role) && !strcmp(ma[k].content, mb[k].content);
        }
    }
    CHECK(ok && ends == 2 && turns >= want_turn_end, "%s: the tokens, ends, messages and session of a plain chat after every call (%d draws, %d replies ended, %d by the turn's end; "
          "%d times tokens not handed out yet)", tag, drawn, ends, turns, held);
    srt_chat_destroy(ca);
    srt_chat_destroy(cb);
    CHECK(ok && sb->n_tokens == sa->n_tokens, "%s: the session holds what the app saw after srt_chat_destroy (%d tokens)", tag, sb->n_tokens);
    srt_session_destroy(sa); srt_session_destroy(sb);
}

static void test_chat(void) {
    srt_model *m = NULL, *same = NULL;
    srt_model_desc md;
    srt_session *ds;
    srt_chat *c = NULL;
    srt_chat_desc d;
    memset(&md, 0, sizeof md);
    tiny_rng_state = 777;
    if (!write_tiny_model("build/tmp/spec_chat.srt", SRT_F32, NULL, NULL, 1) || srt_model_load("build/tmp/spec_chat.srt", &md, &m) != SRT_OK ||
        srt_model_load("build/tmp/spec_chat.srt", &md, &same) != SRT_OK) { CHECK(0, "chat: model"); return; }
    ds = new_session(same, 256, 32, 0.0f, 0.0f);
    check_chat(m, NULL, 0, 0, "chat, lookup");
    check_chat(m, ds, 0, 0, "chat, the same model drafting");
    check_chat(m, ds, 9, 0, "chat, the same model drafting, replies of at most 9 tokens");
    {   /* replies that end their turn: the same model with a token of check_chat's second reply as EOS */
        srt_session *s = new_session(m, 256, 32, 0.0f, 0.0f);
        srt_model *me = NULL, *me2 = NULL;
        srt_session *de = NULL;
        int32_t t = -1, seen[40];
        int i, j, end = 0, at = -1;
        memset(&d, 0, sizeof d);
        d.template_name = "chatml";
        if (s && srt_chat_create(s, &d, &c) == SRT_OK && srt_chat_send(c, "hello abc", NULL) == SRT_OK) {   /* as check_chat's steps 0 .. 3 */
            for (i = 0; i < 7; i++) srt_chat_next(c, &t, &end);
            srt_chat_send(c, "abc abc", NULL);
        }
        if (c)
            for (i = 0; i < 40 && at < 0 && srt_chat_next(c, &seen[i], &end) == SRT_OK; i++) {   /* a token from the 9th on not drawn before */
                for (j = 0; j < i && seen[j] != seen[i]; j++) {}
                if (i >= 8 && j == i) { at = i; t = seen[i]; }
            }
        srt_chat_destroy(c); c = NULL;
        srt_session_destroy(s);
        tiny_rng_state = 777; tiny_eos_id = t;
        if (write_tiny_model("build/tmp/spec_chat_eos.srt", SRT_F32, NULL, NULL, 1)) { srt_model_load("build/tmp/spec_chat_eos.srt", &md, &me); srt_model_load("build/tmp/spec_chat_eos.srt", &md, &me2); }
        tiny_eos_id = 2;
        de = me2 ? new_session(me2, 256, 32, 0.0f, 0.0f) : NULL;
        CHECK(de && at >= 8, "chat: a model whose EOS is the token %d of its second reply (%d)", at, t);
        if (de) { check_chat(me, de, 0, 1, "chat to the end of the turn, the same model drafting"); check_chat(me, NULL, 0, 1, "chat to the end of the turn, lookup"); }
        srt_session_destroy(de);
        srt_model_free(me); srt_model_free(me2);
        me = NULL;
        /* the same token as the control token "<|eot_id|>" (EOS stays 2; chatml's stop text is <|im_end|>): it ends the turn too */
        tiny_rng_state = 777; tiny_piece_id = t; tiny_piece_text = "<|eot_id|>";
        if (write_tiny_model("build/tmp/spec_chat_eot.srt", SRT_F32, NULL, NULL, 1)) srt_model_load("build/tmp/spec_chat_eot.srt", &md, &me);
        tiny_piece_id = -1;
        CHECK(me != NULL, "chat: a model whose <|eot_id|> is the token %d of its second reply", at);
        if (me) check_chat(me, NULL, 0, 1, "chat to an end-of-turn token that is neither EOS nor the template's stop, lookup");
        srt_model_free(me);
    }
    memset(&d, 0, sizeof d);
    d.draft_max = SRT_DRAFT_MAX + 1;
    CHECK(srt_chat_create(ds, &d, &c) == SRT_ERR_INVALID_ARG && !c, "chat: draft_max past SRT_DRAFT_MAX is refused");
    srt_session_destroy(ds);
    srt_model_free(m); srt_model_free(same);
}

int main(void) {
    if (system("mkdir -p build/tmp") != 0) return 1;
    test_lookup();
    test_adapt();
    test_sample_rule();
    test_greedy();
    test_generate();
    test_chat();
    test_stories();
    return srt_test_finish();
}
