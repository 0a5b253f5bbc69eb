/* srt-chat - terminal chat / completion on a packed .srt model.

   srt-chat -m MODEL.srt -p PROMPT [-n N] [--temp T] [--seed S] [-t THREADS] ...
       non-interactive: prints the prompt and its continuation on stdout, nothing else there;
       speed statistics go to stderr. With --chat (or --template) the prompt is one user message
       instead, rendered with the chat template, and only the reply is printed.
   srt-chat -m MODEL.srt
       interactive. A model with a chat template (tokenizer.chat_template), or --template NAME,
       gives a chat: each line is a user message; the conversation stays in the KV cache and only
       the new turn's text is evaluated. Without a template (or with --no-chat) each line
       continues the text. Ctrl-C stops a running generation, Ctrl-D quits, /reset starts over;
       in a chat /undo takes back the last exchange and /retry draws the last reply again
       (both go back in the KV cache with srt_session_truncate: nothing before it is read again);
       /save FILE keeps the conversation (messages and KV cache: srt_session_save_chat) and
       /load FILE takes one up again, in this run or a later one, with nothing read again.
       --tools FILE offers the model the tools of a JSON array (OpenAI's form): the calls a reply
       makes are printed on stderr, "(tool call) NAME ARGUMENTS", and /tool TEXT gives a call's
       result back (one per call, in order; the model answers when each call has one).
       --grammar FILE (GBNF, as llama.cpp's), --json or --json-schema FILE limits every answer (each
       reply, or each continuation) to text the grammar matches: srt_session_set_grammar.
       --tool-grammar (with --tools) constrains the calls a reply makes to the tools' names and
       parameters (srt_chat_desc.tool_grammar).
       When the context window fills up, the oldest messages are dropped (the system message
       stays) and the rest is read again; whenever the conversation is read again (and after
       /reset) the tokens it still begins with stay in the KV cache.
   --prompt-cache FILE
       keeps the session state after the prompt (-p text; in a chat, the first turn's) in FILE
       (srt_session_save); a later run whose prompt begins with the same tokens loads it and
       evaluates only the rest, e.g. a long system prompt is read once.
   --draft N, --draft-model PATH
       speculative decoding (srt_session_next_draft): proposed tokens, from prompt lookup or a
       smaller model, are checked N at a time in one evaluation; greedy output is unchanged.
   --backend cuda [--device N]
       runs the model on an NVIDIA GPU (build/srt-chat-cuda: this file with -DSRT_CHAT_CUDA +
       tools/cuda-backend.cu, built by ./build.sh when nvcc is found); tokenizing and sampling
       stay on the CPU, so the output is the same as on the CPU. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#ifdef SRT_CHAT_CUDA
#  include "sparsert_cuda.h"   /* the declarations; the backend is tools/cuda-backend.cu (nvcc) */
#endif

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#  include <fcntl.h>
#  include <io.h>
#endif

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
        "      --kv f16|f32|q8     KV cache precision (default f16; q8: half the memory)\n"
        "      --prompt-cache FILE keep the evaluated prompt (with a chat: the first turn's) in FILE; a later run\n"
        "                          whose prompt begins the same way reads that part from it (same model and --kv)\n"
        "      --kv-sparsity K[,V] sparse KV cache: drop this fraction of each head's K (and V) values of\n"
        "                          the prompts, smallest first (e.g. 0.3,0.5; default 0 = dense)\n"
        "      --no-bos            do not prepend BOS to the prompt\n"
        "      --chat              chat even with -p (the prompt is one user message)\n"
        "      --no-chat           interactive text continuation even when the model has a chat template\n"
        "      --template NAME     chat template: chatml, llama3, llama2, mistral, mistral-v3, phi3, zephyr,\n"
        "                          gemma, tulu, granite, exaone4, minicpm, olmo3, harmony, smollm3 (default: recognised from the model;\n"
        "                          'list' prints them)\n"
        "      --system TEXT       system message for the chat\n"
        "      --tools FILE        tools the model may call (a JSON array of definitions); answer its calls with /tool RESULT\n"
        "      --grammar FILE      constrain each answer to the GBNF grammar in FILE (llama.cpp's syntax, rule root)\n"
        "      --json              constrain each answer to a JSON object (SRT_GRAMMAR_JSON)\n"
        "      --json-schema FILE  constrain each answer to JSON that the JSON Schema in FILE describes\n"
        "      --tool-grammar      with --tools: constrain each tool call to a tool's name and its parameters' schema\n"
        "      --show-prompt       print each text fed to the model on stderr (chat mode)\n"
        "      --no-think          replies without reasoning where the template has the switch (Qwen3, SmolLM3)\n"
        "      --reasoning LEVEL   gpt-oss (harmony): low, medium (the template's default) or high reasoning effort\n"
        "      --ignore-eos        keep generating after end-of-sequence\n"
        "      --draft N           speculative decoding: check up to N proposed tokens per evaluation (1..16;\n"
        "                          proposals by prompt lookup unless --draft-model; greedy output unchanged)\n"
        "      --draft-ngram N     prompt lookup: match the last N tokens first (default 3)\n"
        "      --draft-model PATH  a smaller model with the same vocabulary proposes (greedy; --draft default 8)\n"
        "      --cores POLICY      auto (default: one thread per physical core, P-cores first),\n"
        "                          performance (P-cores only), all (every logical CPU), or a CPU list \"0-3,8\"\n"
        "      --pin / --no-pin    pin threads to their CPUs (default: only for performance and lists)\n"
        "      --verify            check every tensor checksum at load\n"
        "      --load MODE         auto (default: copy into huge pages on Linux when it fits), mmap, copy\n"
        "      --backend cpu|cuda  where the model runs (cuda: build/srt-chat-cuda; default cpu)\n"
        "      --device N          the CUDA device (default 0)\n"
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

/* The tokens of a whole prompt (flags as srt_tokenize), malloc'd. */
static srt_status tokenize_all(const srt_model *m, const char *text, int flags, int32_t **out, int *n) {
    int need = 0;
    srt_status st;
    *out = NULL;
    srt_tokenize(m, text, strlen(text), flags, NULL, 0, &need);
    if (!(*out = (int32_t *)malloc((size_t)need * sizeof **out + 1))) return SRT_ERR_OUT_OF_MEMORY;
    if ((st = srt_tokenize(m, text, strlen(text), flags, *out, need, n)) != SRT_OK) { free(*out); *out = NULL; }
    return st;
}

static void print_stats(const srt_generate_result *r) {
    fprintf(stderr, "\n[prompt: %d tokens in %.1f ms (%.1f tok/s) | generated: %d tokens in %.1f ms (%.1f tok/s)",
            r->n_prompt, r->prompt_ms, r->prompt_ms > 0 ? r->n_prompt * 1000.0 / r->prompt_ms : 0.0,
            r->n_generated, r->decode_ms, r->decode_ms > 0 ? r->n_generated * 1000.0 / r->decode_ms : 0.0);
    if (r->n_proposed > 0) fprintf(stderr, " | speculative: %d evaluations, %d of %d proposals kept", r->n_passes, r->n_accepted, r->n_proposed);
    fprintf(stderr, "]\n");
}


/* --prompt-cache: the session state after the prompt */
static void save_cache(srt_session *s, const char *path) {
    double t0 = srt_time_ms();
    if (srt_session_save(s, path) != SRT_OK) fprintf(stderr, "srt-chat: cannot write the prompt cache: %s\n", srt_last_error());
    else fprintf(stderr, "[prompt cache: %d tokens saved to %s in %.1f ms]\n", srt_session_pos(s), path, srt_time_ms() - t0);
}

/* The tokens of ids[0..n) the session holds already, from its start (a loaded prompt cache). */
static int common_start(srt_session *s, const int32_t *ids, int n) {
    const int32_t *have = srt_session_tokens(s);
    int k = 0, pos = srt_session_pos(s);
    while (k < n && k < pos && have[k] == ids[k]) k++;
    return k;
}

/* ---------------------------------------------------------------- chat (srt_chat) */
typedef struct chat_app {
    srt_chat *chat;
    srt_session *session;
    const srt_model *model;
    int show_prompt;
    const char *cache_path;    /* --prompt-cache: the first turn's prompt is saved there */
    int cache_done;
    double cache_ms;           /* loading it took */
    int tools;                 /* --tools: replies are read for calls */
    int n_calls;               /* the last reply's calls, and the results given so far (/tool) */
    int n_results;
    srt_chat_message results[16];
} chat_app;

/* What srt_chat_send did, on stderr. */
static void report_turn(chat_app *a, const srt_chat_turn *t) {
    if (a->show_prompt) {
        if (t->from_start && t->n_kept) fprintf(stderr, "[feed %d tokens, the first %d already in the KV cache: \"%.*s\"]\n", t->n_tokens, t->n_kept, (int)t->text_len, t->text);
        else fprintf(stderr, "[feed %d tokens: \"%.*s\"]\n", t->n_tokens, (int)t->text_len, t->text);
    }
    if (t->n_dropped) fprintf(stderr, "(context window full: the %d oldest turns were dropped; %d tokens kept, %d read again)\n", t->n_dropped, t->n_kept, t->n_prompt);
    else if (t->rerendered) fprintf(stderr, "(the template renders earlier turns differently now: %d tokens kept, %d read again)\n", t->n_kept, t->n_prompt);
    if (a->cache_path && !a->cache_done) {   /* the first prompt, for the next run (--prompt-cache) */
        a->cache_done = 1;
        if (t->n_kept) fprintf(stderr, "[prompt cache: %d of the prompt's %d tokens read from %s in %.1f ms]\n", t->n_kept, t->n_kept + t->n_prompt, a->cache_path, a->cache_ms);
        if (t->n_prompt > 0) save_cache(a->session, a->cache_path);
    }
}

/* Prints what the reply's reasoning and answer (srt_chat_reply_split) grew by since *r_done / *a_done
   bytes: the reasoning on stderr, "(reasoning) " before it, the answer on out. */
static void print_reply_parts(chat_app *a, FILE *out, size_t *r_done, size_t *a_done) {
    int n = 0;
    const srt_chat_message *ms = srt_chat_messages(a->chat, &n);
    srt_chat_reply_parts rp;
    srt_chat_reply_split(srt_chat_get_template(a->chat), n > 0 ? ms[n - 1].content : "", &rp);
    if (rp.reasoning_len > *r_done) {
        if (!*r_done) fputs("(reasoning) ", stderr);
        fwrite(rp.reasoning + *r_done, 1, rp.reasoning_len - *r_done, stderr);
        *r_done = rp.reasoning_len;
    }
    if (rp.answer_len > *a_done) {
        if (!*a_done && *r_done) fputs("\n", stderr);
        fwrite(rp.answer + *a_done, 1, rp.answer_len - *a_done, out);
        fflush(out);
        *a_done = rp.answer_len;
    }
}

/* --tools: the results given with /tool, dropped once sent (or when a user message comes instead). */
static void clear_results(chat_app *a) {
    while (a->n_results > 0) free((void *)a->results[--a->n_results].content);
}
static int add_result(chat_app *a, const char *text) {
    size_t n = strlen(text);
    char *r = a->n_results < 16 ? (char *)malloc(n + 1) : NULL;
    if (!r) return 0;
    memcpy(r, text, n + 1);
    a->results[a->n_results].role = "tool";
    a->results[a->n_results++].content = r;
    return 1;
}

/* --tools: the calls of the reply just drawn, on stderr. */
static void report_calls(chat_app *a) {
    srt_chat_tool_call calls[16];
    int n = 0, i;
    const srt_chat_message *ms = srt_chat_messages(a->chat, &n);
    srt_status st = srt_chat_tool_calls(srt_chat_get_template(a->chat), n > 0 ? ms[n - 1].content : "", calls, 16, &a->n_calls);
    if (st != SRT_OK) { fprintf(stderr, "(a malformed tool call: %s)\n", srt_last_error()); a->n_calls = 0; return; }
    if (a->n_calls > 16) a->n_calls = 16;
    for (i = 0; i < a->n_calls; i++)
        fprintf(stderr, "(tool call) %.*s %.*s\n", (int)calls[i].name_len, calls[i].name, (int)calls[i].arguments_len, calls[i].arguments);
    if (a->n_calls) fprintf(stderr, "(answer with /tool RESULT, %s)\n", a->n_calls > 1 ? "one line per call, in order" : "one line");
}

/* One turn: the messages (NULL: the last reply again) are fed, what is new only, and the reply printed
   (a reasoning model's reasoning on stderr, its answer on out). */
static srt_status chat_turn(chat_app *a, const srt_chat_message *msgs, int n_msgs, FILE *out) {
    srt_chat_turn t;
    srt_utf8_stream us;
    srt_status st;
    srt_chat_reply_parts kind;
    size_t r_done = 0, a_done = 0;
    int n_ctx = srt_session_n_ctx(a->session), generated = 0, end = SRT_CHAT_GOING;
    memset(&t, 0, sizeof t);
    srt_chat_reply_split(srt_chat_get_template(a->chat), NULL, &kind);   /* (kind.reasons: a format with reasoning) */
    if (!msgs) st = srt_chat_regenerate(a->chat);
    else if ((st = srt_chat_send_messages(a->chat, msgs, n_msgs, &t)) == SRT_OK) report_turn(a, &t);
    if (st == SRT_ERR_CONTEXT_FULL) { fprintf(stderr, "(the message is too long for the context window of %d tokens)\n", n_ctx); return SRT_OK; }
    if (st != SRT_OK) return st;
    memset(&us, 0, sizeof us);
    for (;;) {
        int32_t tok;
        char txt[6 * 4096 + 16];
        int w;
        st = srt_chat_next(a->chat, &tok, &end);
        if (st == SRT_ERR_CONTEXT_FULL) { fprintf(stderr, "\n(context window full: the reply is cut here)\n"); st = SRT_OK; break; }
        if (st != SRT_OK || end == SRT_CHAT_END_LIMIT) break;
        generated++;
        if (end == SRT_CHAT_END_TURN) break;
        if (kind.reasons) print_reply_parts(a, out, &r_done, &a_done);
        else if ((w = srt_utf8_stream_token(&us, a->model, tok, 0, txt, (int)sizeof txt)) > 0) { fwrite(txt, 1, (size_t)w, out); fflush(out); }
    }
    if (r_done && !a_done) fputs("\n", stderr);   /* (reasoning and nothing after it) */
    {
        char txt[16];
        int w = srt_utf8_stream_flush(&us, txt, (int)sizeof txt);
        if (w > 0) fwrite(txt, 1, (size_t)w, out);
        fputs("\n", out);
        fflush(out);
    }
    fprintf(stderr, "[prompt: %d new tokens | reply: %d tokens%s | context %d/%d]\n", t.n_prompt, generated,
            end == SRT_CHAT_END_TURN ? "" : " (no end of turn)", srt_session_pos(a->session), n_ctx);
    if (a->tools && st == SRT_OK) report_calls(a);
    if (st == SRT_ERR_CANCELLED) fprintf(stderr, "(stopped)\n");
    return st == SRT_ERR_CANCELLED ? SRT_OK : st;
}

/* /save FILE, /load FILE */
static void chat_save(chat_app *a, const char *path) {
    int n = 0;
    srt_chat_messages(a->chat, &n);
    if (srt_chat_save(a->chat, path) != SRT_OK) fprintf(stderr, "srt-chat: cannot save: %s\n", srt_last_error());
    else fprintf(stderr, "(saved to %s: %d messages, %d tokens)\n", path, n, srt_session_pos(a->session));
}
static void chat_load(chat_app *a, const char *path) {
    int n = 0;
    if (srt_chat_load(a->chat, path) != SRT_OK) { fprintf(stderr, "srt-chat: cannot load: %s\n", srt_last_error()); return; }
    const srt_chat_message *ms = srt_chat_messages(a->chat, &n);
    fprintf(stderr, "(loaded %s: %d messages, %d tokens)\n", path, n, srt_session_pos(a->session));
    clear_results(a);
    a->n_calls = 0;
    if (a->tools && n > 0 && !strcmp(ms[n - 1].role, "assistant")) report_calls(a);   /* calls it may have left to answer */
}

static srt_backend *g_backend;   /* --backend cuda; freed by main after the model */

static int chat_main(int argc, char **argv) {
    const char *model_path = NULL, *prompt = NULL, *prompt_file = NULL;
    int n_predict = 256, threads = 0, n_ctx = 0, n_batch = 0, temp_given = 0, no_bos = 0, ignore_eos = 0, verify = 0, pin = 0, no_think = 0, i;
    int use_cuda = 0, device = 0, draft_max = -1, draft_ngram = 0;
    const char *draft_path = NULL;
    srt_model *draft_model = NULL;
    srt_session *draft = NULL;
    int force_chat = 0, no_chat = 0, show_prompt = 0, use_chat;
    const char *template_name = NULL, *system_text = NULL, *cache_path = NULL, *reasoning = NULL, *tools_file = NULL, *grammar_file = NULL;
    const char *schema_file = NULL;
    int json = 0, tool_grammar = 0;
    double cache_ms = 0.0;   /* loading the prompt cache */
    srt_cores cores = SRT_CORES_AUTO;
    srt_load load = SRT_LOAD_AUTO;
    const char *cpu_list = NULL;
    srt_sampler_desc sampler;
    srt_kv_type kv = SRT_KV_DEFAULT;
    float kv_sparsity[2] = {0.0f, 0.0f};
    srt_model *model;
    srt_session *session;
    srt_status st;
    char *file_text = NULL;
#ifdef _WIN32
    /* the text is UTF-8 bytes, written as they are: no "\n" -> "\r\n" (stdin stays in text mode,
       so typed lines lose their "\r") */
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
#endif
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
        else if (!strcmp(a, "--kv-sparsity")) {
            const char *k = NEXT(), *comma = strchr(k, ',');
            char *end;
            kv_sparsity[0] = strtof(k, &end);
            kv_sparsity[1] = comma ? strtof(comma + 1, &end) : kv_sparsity[0];
            if (*end || end == k) { fprintf(stderr, "srt-chat: --kv-sparsity takes K or K,V (fractions, e.g. 0.3,0.5)\n"); return 2; }
        }
        else if (!strcmp(a, "--kv")) { const char *k = NEXT(); if (!strcmp(k, "f32")) kv = SRT_KV_F32; else if (!strcmp(k, "f16")) kv = SRT_KV_F16; else if (!strcmp(k, "q8")) kv = SRT_KV_Q8; else { fprintf(stderr, "srt-chat: --kv takes f16, f32 or q8\n"); return 2; } }
        else if (!strcmp(a, "--prompt-cache")) cache_path = NEXT();
        else if (!strcmp(a, "--no-bos")) no_bos = 1;
        else if (!strcmp(a, "--chat")) force_chat = 1;
        else if (!strcmp(a, "--no-chat")) no_chat = 1;
        else if (!strcmp(a, "--show-prompt")) show_prompt = 1;
        else if (!strcmp(a, "--no-think")) no_think = 1;
        else if (!strcmp(a, "--reasoning")) reasoning = NEXT();
        else if (!strcmp(a, "--system")) system_text = NEXT();
        else if (!strcmp(a, "--tools")) tools_file = NEXT();
        else if (!strcmp(a, "--grammar")) grammar_file = NEXT();
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--json-schema")) schema_file = NEXT();
        else if (!strcmp(a, "--tool-grammar")) tool_grammar = 1;
        else if (!strcmp(a, "--template")) {
            template_name = NEXT();
            if (!strcmp(template_name, "list")) {
                int f;
                for (f = 0; f < SRT_CHAT_FORMAT_COUNT; f++) printf("%s\n", srt_chat_format_name((srt_chat_format)f));
                return 0;
            }
            if (srt_chat_format_from_name(template_name) < 0) { fprintf(stderr, "srt-chat: unknown template '%s' (--template list shows them)\n", template_name); return 2; }
        }
        else if (!strcmp(a, "--ignore-eos")) ignore_eos = 1;
        else if (!strcmp(a, "--draft")) draft_max = atoi(NEXT());
        else if (!strcmp(a, "--draft-ngram")) draft_ngram = atoi(NEXT());
        else if (!strcmp(a, "--draft-model")) draft_path = NEXT();
        else if (!strcmp(a, "--verify")) verify = 1;
        else if (!strcmp(a, "--load")) {
            const char *c = NEXT();
            if (!strcmp(c, "auto")) load = SRT_LOAD_AUTO;
            else if (!strcmp(c, "mmap")) load = SRT_LOAD_MMAP;
            else if (!strcmp(c, "copy")) load = SRT_LOAD_COPY;
            else { fprintf(stderr, "srt-chat: --load takes auto, mmap or copy\n"); return 2; }
        }
        else if (!strcmp(a, "--backend")) {
            const char *b = NEXT();
            if (!strcmp(b, "cuda")) use_cuda = 1;
            else if (strcmp(b, "cpu")) { fprintf(stderr, "srt-chat: --backend takes cpu or cuda\n"); return 2; }
        }
        else if (!strcmp(a, "--device")) device = atoi(NEXT());
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
    if (force_chat && no_chat) { fprintf(stderr, "srt-chat: --chat and --no-chat exclude each other\n"); return 2; }
    if (n_predict < 0 || threads < 0 || n_ctx < 0 || n_batch < 0) { fprintf(stderr, "srt-chat: negative count\n"); return 2; }
    if (draft_max < 0) draft_max = draft_path ? 8 : 0;
    if (draft_max > SRT_DRAFT_MAX || draft_ngram < 0) { fprintf(stderr, "srt-chat: --draft takes 0..%d, --draft-ngram a count\n", SRT_DRAFT_MAX); return 2; }
    if (prompt_file) {
        if (!(file_text = read_file(prompt_file))) { fprintf(stderr, "srt-chat: cannot read %s\n", prompt_file); return 1; }
        prompt = file_text;
    }
    if (!temp_given) sampler.temperature = prompt ? 0.0f : 0.8f;
    if (use_cuda) {
#ifdef SRT_CHAT_CUDA
        if (!(g_backend = srt_cuda_backend(device))) { fprintf(stderr, "srt-chat: out of memory\n"); free(file_text); return 1; }
#else
        (void)device;
        fprintf(stderr, "srt-chat: this srt-chat was built without CUDA: use build/srt-chat-cuda (./build.sh cuda)\n");
        free(file_text);
        return 2;
#endif
    }
    {
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.backend = g_backend;
        md.n_threads = threads;
        md.verify_checksums = verify;
        md.load = load;
        md.cores = cores; md.cpu_list = cpu_list; md.pin = pin;
        if ((st = srt_model_load(model_path, &md, &model)) != SRT_OK) {
            fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
            free(file_text);
            return 1;
        }
        if (g_backend) fprintf(stderr, "srt-chat: the model runs on %s\n", g_backend->name);
    }
    {
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = n_ctx; sd.n_batch = n_batch; sd.kv_type = kv; sd.sampler = sampler;
        sd.kv_sparsity_k = kv_sparsity[0]; sd.kv_sparsity_v = kv_sparsity[1];
        if ((st = srt_session_create(model, &sd, &session)) != SRT_OK) {
            fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
            srt_model_free(model); free(file_text);
            return 1;
        }
    }
    if (grammar_file || json || schema_file) {   /* every answer from here on: srt_session_set_grammar restarts it after each input */
        const char *path = grammar_file ? grammar_file : schema_file;
        char *text = path ? read_file(path) : NULL, *gbnf = NULL;
        size_t n = 0;
        if (!!grammar_file + json + !!schema_file > 1) { fprintf(stderr, "srt-chat: one of --grammar, --json and --json-schema\n"); st = SRT_ERR_INVALID_ARG; }
        else if (path && !text) { fprintf(stderr, "srt-chat: cannot read %s\n", path); st = SRT_ERR_IO; }
        else if (schema_file && srt_grammar_from_json_schema(text, NULL, 0, &n) == SRT_ERR_INVALID_ARG && n == 0) {
            fprintf(stderr, "srt-chat: %s: %s\n", schema_file, srt_last_error()); st = SRT_ERR_INVALID_ARG;
        } else if (schema_file && (!(gbnf = (char *)malloc(n + 1)) || (st = srt_grammar_from_json_schema(text, gbnf, n + 1, &n)) != SRT_OK)) {
            fprintf(stderr, "srt-chat: %s: %s\n", schema_file, gbnf ? srt_last_error() : "out of memory"); st = SRT_ERR_INVALID_ARG;
        } else if ((st = srt_session_set_grammar(session, json ? SRT_GRAMMAR_JSON : gbnf ? gbnf : text)) != SRT_OK)
            fprintf(stderr, "srt-chat: %s%s%s: %s\n", path ? path : "", path ? ": " : "", srt_status_str(st), srt_last_error());
        free(text); free(gbnf);
        if (st != SRT_OK) { srt_session_destroy(session); srt_model_free(model); free(file_text); return 2; }
    }
    if (draft_path && draft_max > 0) {   /* the draft model: on the CPU, its session as long as the model's, greedy */
        srt_model_desc md;
        srt_session_desc sd;
        memset(&md, 0, sizeof md);
        memset(&sd, 0, sizeof sd);
        md.n_threads = threads; md.load = load; md.cores = cores; md.cpu_list = cpu_list; md.pin = pin;
        sd.n_ctx = srt_session_n_ctx(session); sd.n_batch = n_batch;
        if ((st = srt_model_load(draft_path, &md, &draft_model)) != SRT_OK || (st = srt_session_create(draft_model, &sd, &draft)) != SRT_OK) {
            fprintf(stderr, "srt-chat: the draft model: %s: %s\n", srt_status_str(st), srt_last_error());
            srt_model_free(draft_model); srt_session_destroy(session); srt_model_free(model); free(file_text);
            return 1;
        }
    }
    g_session = session;
    signal(SIGINT, on_sigint);
    {
        const char *stored = NULL;
        srt_model_meta_str(model, "tokenizer.chat_template", &stored);
        use_chat = !no_chat && (force_chat || template_name || (!prompt && stored && stored[0]));
    }
    if (cache_path) {   /* the session starts with the cached tokens; the prompt keeps those it begins with */
        FILE *f = fopen(cache_path, "rb");
        if (!use_chat && !prompt) {
            fprintf(stderr, "srt-chat: --prompt-cache needs a prompt (-p, -f) or a chat\n");
            if (f) fclose(f);
            srt_session_destroy(session); srt_model_free(model); srt_session_destroy(draft); srt_model_free(draft_model); free(file_text);
            return 2;
        }
        if (f) {
            double t0 = srt_time_ms();
            fclose(f);
            if (srt_session_load(session, cache_path) == SRT_OK) srt_session_seed(session, sampler.seed);   /* this run's seed rules */
            else fprintf(stderr, "srt-chat: the prompt cache is not used (it will be written again): %s\n", srt_last_error());
            cache_ms = srt_time_ms() - t0;
        }
    }
    if (tools_file && !use_chat) {
        fprintf(stderr, "srt-chat: --tools needs a chat (a chat template, --chat or --template)\n");
        srt_session_destroy(session); srt_model_free(model); srt_session_destroy(draft); srt_model_free(draft_model); free(file_text);
        return 2;
    }
    if (tool_grammar && (!tools_file || grammar_file || json || schema_file)) {
        fprintf(stderr, "srt-chat: --tool-grammar needs --tools, and no --grammar, --json or --json-schema\n");
        srt_session_destroy(session); srt_model_free(model); srt_session_destroy(draft); srt_model_free(draft_model); free(file_text);
        return 2;
    }
    if (use_chat) {
        chat_app c;
        srt_chat_desc cd;
        srt_model_info info;
        char *tools_text = NULL;
        memset(&c, 0, sizeof c);
        memset(&cd, 0, sizeof cd);
        c.model = model;
        c.session = session;
        c.show_prompt = show_prompt;
        c.cache_path = cache_path;
        c.cache_ms = cache_ms;
        cd.template_name = template_name; cd.system_prompt = system_text; cd.max_tokens = n_predict; cd.ignore_eos = ignore_eos;
        cd.no_think = no_think;
        cd.reasoning = reasoning;
        cd.draft_max = draft_max; cd.draft_ngram = draft_ngram; cd.draft = draft;
        if (tools_file && !(tools_text = read_file(tools_file))) fprintf(stderr, "srt-chat: cannot read %s\n", tools_file);
        cd.tools = tools_text;
        cd.tool_grammar = tool_grammar;
        c.tools = tools_text != NULL;
        if ((tools_file && !tools_text) || (st = srt_chat_create(session, &cd, &c.chat)) != SRT_OK) {
            if (tools_text) fprintf(stderr, "srt-chat: %s\n", srt_last_error());
            srt_session_destroy(session); srt_model_free(model); srt_session_destroy(draft); srt_model_free(draft_model); free(file_text); free(tools_text);
            return 2;
        }
        free(tools_text);   /* (the chat has its copy) */
        srt_model_get_info(model, &info);
        if (prompt) {
            srt_chat_message m;
            m.role = "user"; m.content = prompt;
            st = chat_turn(&c, &m, 1, stdout);
        } else {
            const srt_chat_template *t = srt_chat_get_template(c.chat);
            char line[8192];
            fprintf(stderr, "%s: %s, %d layers, %s weights, context %d, chat template %s%s. /undo, /retry, /reset, /save FILE, /load FILE, %sCtrl-D quits.\n",
                    model_path, info.architecture, info.n_layer, srt_format_name(info.format), srt_session_n_ctx(session),
                    srt_chat_format_name(t->format), t->guessed ? " (guessed)" : "", c.tools ? "/tool RESULT, " : "");
            st = SRT_OK;
            for (;;) {
                size_t len;
                fprintf(stderr, "> ");
                if (!fgets(line, sizeof line, stdin)) break;
                len = strlen(line);
                if (len && line[len - 1] == '\n') line[--len] = 0;
                if (len && line[len - 1] == '\r') line[--len] = 0;
                if (!strcmp(line, "/reset")) { srt_chat_reset(c.chat); fprintf(stderr, "(conversation reset)\n"); continue; }
                if (!strncmp(line, "/save ", 6) && line[6]) { chat_save(&c, line + 6); continue; }
                if (!strncmp(line, "/load ", 6) && line[6]) { chat_load(&c, line + 6); continue; }
                if (!strcmp(line, "/undo")) { fprintf(stderr, srt_chat_undo(c.chat) == SRT_OK ? "(last exchange taken back)\n" : "(nothing to take back)\n"); continue; }
                if (!strcmp(line, "/retry")) {   /* the last reply again: with --temp > 0 another one */
                    st = chat_turn(&c, NULL, 0, stdout);
                    if (st != SRT_OK) fprintf(stderr, "(nothing to answer again)\n");
                    st = SRT_OK;
                    continue;
                }
                if (!strncmp(line, "/tool ", 6) && c.tools) {   /* a call's result; sent when every call has one */
                    if (!add_result(&c, line + 6)) { fprintf(stderr, "(too many results)\n"); continue; }
                    if (c.n_results < c.n_calls) { fprintf(stderr, "(result %d of %d)\n", c.n_results, c.n_calls); continue; }
                    st = chat_turn(&c, c.results, c.n_results, stdout);
                    clear_results(&c);
                } else if (len == 0) continue;
                else {
                    srt_chat_message m;
                    clear_results(&c);
                    m.role = "user"; m.content = line;
                    st = chat_turn(&c, &m, 1, stdout);
                }
                if (st != SRT_OK) { fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error()); st = SRT_OK; }
            }
        }
        clear_results(&c);
        srt_chat_destroy(c.chat);
    } else if (prompt) {
        srt_generate_desc g;
        srt_generate_result r;
        out_state o;
        int32_t *ids = NULL;
        int n = 0, kept = 0;
        double t0;
        o.f = stdout;
        memset(&g, 0, sizeof g);
        memset(&r, 0, sizeof r);
        g.max_tokens = n_predict; g.on_text = print_text; g.user = &o;
        g.stop_at_eos = ignore_eos ? -1 : 0;
        g.draft_max = draft_max; g.draft_ngram = draft_ngram; g.draft = draft;
        if (prompt[0] == 0 && no_bos) { fprintf(stderr, "srt-chat: an empty prompt needs BOS\n"); return 2; }
        fputs(prompt, stdout);
        /* the prompt's tokens: those the session holds already (the prompt cache) are kept */
        st = tokenize_all(model, prompt, no_bos ? SRT_TOKENIZE_NO_BOS : 0, &ids, &n);
        t0 = srt_time_ms();
        if (st == SRT_OK && (st = srt_session_truncate(session, kept = common_start(session, ids, n))) == SRT_OK)
            st = srt_session_feed(session, ids + kept, n - kept);
        r.n_prompt = srt_session_pos(session) - kept;   /* what was evaluated (none when it does not fit) */
        r.prompt_ms = srt_time_ms() - t0;
        free(ids);
        if (st == SRT_OK && cache_path) {
            if (kept) fprintf(stderr, "[prompt cache: %d of the prompt's %d tokens read from %s in %.1f ms]\n", kept, n, cache_path, cache_ms);
            if (kept < n) save_cache(session, cache_path);
        }
        if (st == SRT_OK) {
            srt_generate_result gr;
            st = srt_generate(session, &g, &gr);
            r.n_generated = gr.n_generated; r.decode_ms = gr.decode_ms;
            r.n_passes = gr.n_passes; r.n_proposed = gr.n_proposed; r.n_accepted = gr.n_accepted;
        }
        fputs("\n", stdout);
        print_stats(&r);
        if (st == SRT_ERR_CONTEXT_FULL) fprintf(stderr, "srt-chat: stopped: the context window (%d tokens) is full\n", srt_session_n_ctx(session));
        else if (st != SRT_OK) fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error());
    } else {
        char line[8192];
        srt_model_info info;
        srt_model_get_info(model, &info);
        fprintf(stderr, "%s: %s, %d layers, %s weights, context %d. Type text to continue it; /reset starts over, /save FILE, /load FILE, Ctrl-D quits.\n",
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
            if (!strncmp(line, "/save ", 6) && line[6]) {
                if (srt_session_save(session, line + 6) != SRT_OK) fprintf(stderr, "srt-chat: cannot save: %s\n", srt_last_error());
                else fprintf(stderr, "(saved to %s: %d tokens)\n", line + 6, srt_session_pos(session));
                continue;
            }
            if (!strncmp(line, "/load ", 6) && line[6]) {
                if (srt_session_load(session, line + 6) != SRT_OK) fprintf(stderr, "srt-chat: cannot load: %s\n", srt_last_error());
                else fprintf(stderr, "(loaded %s: %d tokens)\n", line + 6, srt_session_pos(session));
                continue;
            }
            o.f = stdout;
            memset(&g, 0, sizeof g);
            g.prompt = line; g.max_tokens = n_predict; g.on_text = print_text; g.user = &o;
            g.stop_at_eos = ignore_eos ? -1 : 0;
            g.draft_max = draft_max; g.draft_ngram = draft_ngram; g.draft = draft;
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
    srt_session_destroy(draft);
    srt_model_free(draft_model);
    free(file_text);
    return st == SRT_OK || st == SRT_ERR_CONTEXT_FULL ? 0 : 1;
}

int main(int argc, char **argv) {
    int rc = chat_main(argc, argv);
    srt_backend_free(g_backend);
    return rc;
}
