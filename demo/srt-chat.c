/* srt-chat - terminal completion/chat on a packed .srt model.

   srt-chat -m MODEL.srt -p PROMPT [-n N] [--temp T] [--seed S] [-t THREADS] ...
       non-interactive: prints the prompt and its continuation on stdout, nothing else there;
       speed statistics go to stderr.
   srt-chat -m MODEL.srt
       interactive: each line you type continues the same conversation (kept in the KV cache);
       Ctrl-C stops a running generation, Ctrl-D quits, /reset starts over. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static srt_session *g_session;   /* for the Ctrl-C handler */
static void on_sigint(int sig) { (void)sig; if (g_session) srt_session_cancel(g_session); }

static void usage(FILE *f) {
    fprintf(f,
        "usage: srt-chat -m MODEL.srt [options]\n"
        "  -m, --model PATH        packed model (.srt)\n"
        "  -p, --prompt TEXT       non-interactive: continue TEXT and exit\n"
        "  -f, --file PATH         read the prompt from a file\n"
        "  -n, --n-predict N       new tokens to generate (default 256; 0 = until EOS/context end)\n"
        "  -c, --ctx N             context length (default: the model's, at most 4096)\n"
        "  -t, --threads N         threads (default: all logical CPUs)\n"
        "  -b, --batch N           prompt tokens per batch (default 32)\n"
        "      --temp T            temperature (default 0.8 interactive, 0 = greedy with -p unless given)\n"
        "      --top-k K  --top-p P  --min-p P  --repeat-penalty R  --repeat-last-n N\n"
        "      --seed S            sampler seed (default fixed)\n"
        "      --kv f16|f32        KV cache precision (default f16)\n"
        "      --no-bos            do not prepend BOS to the prompt\n"
        "      --ignore-eos        keep generating after end-of-sequence\n"
        "      --cores POLICY      auto (default: one thread per physical core, P-cores first),\n"
        "                          performance (P-cores only), all (every logical CPU), or a CPU list \"0-3,8\"\n"
        "      --pin / --no-pin    pin threads to their CPUs (default: only for performance and lists)\n"
        "      --verify            check every tensor checksum at load\n"
        "  -h, --help\n");
}

typedef struct out_state { FILE *f; } out_state;
static int print_text(const char *text, int len, int32_t token, void *user) {
    (void)token;
    fwrite(text, 1, (size_t)len, ((out_state *)user)->f);
    fflush(((out_state *)user)->f);
    return 0;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = (char *)malloc((size_t)n + 1))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
        else buf[n] = 0;
    }
    fclose(f);
    return buf;
}

static void print_stats(const srt_generate_result *r) {
    fprintf(stderr, "\n[prompt: %d tokens in %.1f ms (%.1f tok/s) | generated: %d tokens in %.1f ms (%.1f tok/s)]\n",
            r->n_prompt, r->prompt_ms, r->prompt_ms > 0 ? r->n_prompt * 1000.0 / r->prompt_ms : 0.0,
            r->n_generated, r->decode_ms, r->decode_ms > 0 ? r->n_generated * 1000.0 / r->decode_ms : 0.0);
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *prompt = NULL, *prompt_file = NULL;
    int n_predict = 256, threads = 0, n_ctx = 0, n_batch = 0, temp_given = 0, no_bos = 0, ignore_eos = 0, verify = 0, pin = 0, i;
    srt_cores cores = SRT_CORES_AUTO;
    const char *cpu_list = NULL;
    srt_sampler_desc sampler;
    srt_kv_type kv = SRT_KV_DEFAULT;
    srt_model *model;
    srt_session *session;
    srt_status st;
    char *file_text = NULL;
    memset(&sampler, 0, sizeof sampler);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (fprintf(stderr, "srt-chat: %s needs a value\n", a), exit(2), (char *)0))
        if (!strcmp(a, "-m") || !strcmp(a, "--model")) model_path = NEXT();
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt")) prompt = NEXT();
        else if (!strcmp(a, "-f") || !strcmp(a, "--file")) prompt_file = NEXT();
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict")) n_predict = atoi(NEXT());
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx")) n_ctx = atoi(NEXT());
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) threads = atoi(NEXT());
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch")) n_batch = atoi(NEXT());
        else if (!strcmp(a, "--temp")) { sampler.temperature = (float)atof(NEXT()); temp_given = 1; }
        else if (!strcmp(a, "--top-k")) sampler.top_k = atoi(NEXT());
        else if (!strcmp(a, "--top-p")) sampler.top_p = (float)atof(NEXT());
        else if (!strcmp(a, "--min-p")) sampler.min_p = (float)atof(NEXT());
        else if (!strcmp(a, "--repeat-penalty")) sampler.repeat_penalty = (float)atof(NEXT());
        else if (!strcmp(a, "--repeat-last-n")) sampler.repeat_last_n = atoi(NEXT());
        else if (!strcmp(a, "--seed")) sampler.seed = strtoull(NEXT(), NULL, 10);
        else if (!strcmp(a, "--kv")) { const char *k = NEXT(); if (!strcmp(k, "f32")) kv = SRT_KV_F32; else if (!strcmp(k, "f16")) kv = SRT_KV_F16; else { fprintf(stderr, "srt-chat: --kv takes f16 or f32\n"); return 2; } }
        else if (!strcmp(a, "--no-bos")) no_bos = 1;
        else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
        else if (!strcmp(a, "--verify")) verify = 1;
        else if (!strcmp(a, "--pin")) pin = 1;
        else if (!strcmp(a, "--no-pin")) pin = -1;
        else if (!strcmp(a, "--cores")) {
            const char *c = NEXT();
            if (!strcmp(c, "auto")) cores = SRT_CORES_AUTO;
            else if (!strcmp(c, "performance")) cores = SRT_CORES_PERFORMANCE;
            else if (!strcmp(c, "all")) cores = SRT_CORES_ALL;
            else { int tmp[256]; if (srt_parse_cpu_list(c, tmp, 256) <= 0) { fprintf(stderr, "srt-chat: --cores takes auto, performance, all or a CPU list like 0-3,8\n"); return 2; } cores = SRT_CORES_LIST; cpu_list = c; }
        }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else { fprintf(stderr, "srt-chat: unknown option '%s'\n", a); usage(stderr); return 2; }
#undef NEXT
    }
    if (!model_path) { fprintf(stderr, "srt-chat: no model given (-m MODEL.srt)\n"); usage(stderr); return 2; }
    if (n_predict < 0 || threads < 0 || n_ctx < 0 || n_batch < 0) { fprintf(stderr, "srt-chat: negative count\n"); return 2; }
    if (prompt_file) {
        if (!(file_text = read_file(prompt_file))) { fprintf(stderr, "srt-chat: cannot read %s\n", prompt_file); return 1; }
        prompt = file_text;
    }
    if (!temp_given) sampler.temperature = prompt ? 0.0f : 0.8f;
    {
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.n_threads = threads;
        md.verify_checksums = verify;
        md.cores = cores; md.cpu_list = cpu_list; md.pin = pin;
        if ((st = srt_model_load(model_path, &md, &model)) != SRT_OK) {
            fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
            free(file_text);
            return 1;
        }
    }
    {
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = n_ctx; sd.n_batch = n_batch; sd.kv_type = kv; sd.sampler = sampler;
        if ((st = srt_session_create(model, &sd, &session)) != SRT_OK) {
            fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
            srt_model_free(model); free(file_text);
            return 1;
        }
    }
    g_session = session;
    signal(SIGINT, on_sigint);
    if (prompt) {
        srt_generate_desc g;
        srt_generate_result r;
        out_state o;
        o.f = stdout;
        memset(&g, 0, sizeof g);
        g.prompt = prompt; g.max_tokens = n_predict; g.on_text = print_text; g.user = &o;
        g.prompt_flags = no_bos ? SRT_TOKENIZE_NO_BOS : 0;
        g.stop_at_eos = ignore_eos ? -1 : 0;
        if (prompt[0] == 0 && no_bos) { fprintf(stderr, "srt-chat: an empty prompt needs BOS\n"); return 2; }
        fputs(prompt, stdout);
        st = srt_generate(session, &g, &r);
        fputs("\n", stdout);
        print_stats(&r);
        if (st == SRT_ERR_CONTEXT_FULL) fprintf(stderr, "srt-chat: stopped: the context window (%d tokens) is full\n", srt_session_n_ctx(session));
        else if (st != SRT_OK) fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
    } else {
        char line[8192];
        srt_model_info info;
        srt_model_get_info(model, &info);
        fprintf(stderr, "%s: %s, %d layers, %s weights, context %d. Type text to continue it; /reset starts over, Ctrl-D quits.\n",
                model_path, info.architecture, info.n_layer, srt_format_name(info.format), srt_session_n_ctx(session));
        st = SRT_OK;
        for (;;) {
            srt_generate_desc g;
            srt_generate_result r;
            out_state o;
            size_t len;
            fprintf(stderr, "> ");
            if (!fgets(line, sizeof line, stdin)) break;
            len = strlen(line);
            if (len && line[len - 1] == '\n') line[--len] = 0;
            if (!strcmp(line, "/reset")) { srt_session_reset(session); fprintf(stderr, "(conversation reset)\n"); continue; }
            o.f = stdout;
            memset(&g, 0, sizeof g);
            g.prompt = line; g.max_tokens = n_predict; g.on_text = print_text; g.user = &o;
            g.stop_at_eos = ignore_eos ? -1 : 0;
            fputs(line, stdout);
            st = srt_generate(session, &g, &r);
            fputs("\n", stdout);
            print_stats(&r);
            if (st == SRT_ERR_CONTEXT_FULL) { fprintf(stderr, "(the context window is full: /reset to start over)\n"); st = SRT_OK; }
            else if (st == SRT_ERR_CANCELLED) { fprintf(stderr, "(stopped)\n"); st = SRT_OK; }
            else if (st != SRT_OK) fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
        }
    }
    g_session = NULL;
    srt_session_destroy(session);
    srt_model_free(model);
    free(file_text);
    return st == SRT_OK || st == SRT_ERR_CONTEXT_FULL ? 0 : 1;
}
