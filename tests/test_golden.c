/* test_golden.c - stories260K end to end against ../shared/golden (llama2.c and llama.cpp agree):
   packed from the llama2.c v0 and v1 checkpoints and from the GGUF, in f32/f16/bf16/q8/q4 (group
   32), with 1 and 2 threads: prompt tokens equal llama.cpp's, greedy ids equal the golden ids (q8:
   the first 32 generated, q4: the first 2), srt-chat prints the golden texts byte for byte; q8 and
   q4 stay close to f32 (mean KL divergence over the golden stories: q8 < 0.01, q4 < 0.1 nats; the
   f32 model with a Q8 KV cache < 0.01) and
   continue the prompts sensibly (f32 finds their continuations about as likely as its own). Needs
   build/srt-pack and build/srt-chat (build.sh builds them first). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
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
    {"q8", "--weights q8", 32}, {"q4", "--weights q4 --group 32", 2}};
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
    check_chat_text("build/tmp/golden_v0_f32.srt");
    check_kl("q8", SRT_KV_DEFAULT, 0.01);
    check_kl("q4", SRT_KV_DEFAULT, 0.1);
    check_kl("f32", SRT_KV_Q8, 0.01);
    check_sensible("q8");
    check_sensible("q4");
    return srt_test_finish();
}
