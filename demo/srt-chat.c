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
       in a chat /undo takes back the last exchange and /retry answers the last message again
       (both go back in the KV cache with srt_session_truncate: nothing before it is read again);
       /save FILE keeps the conversation (messages and KV cache: srt_session_save_chat) and
       /load FILE takes one up again, in this run or a later one, with nothing read again.
       When the context window fills up, the oldest messages are dropped (the system message
       stays) and the rest is read again; whenever the conversation is read again (and after
       /reset) the tokens it still begins with stay in the KV cache.
   --prompt-cache FILE
       keeps the session state after the prompt (-p text; in a chat, the first turn's) in FILE
       (srt_session_save); a later run whose prompt begins with the same tokens loads it and
       evaluates only the rest, e.g. a long system prompt is read once.
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
        "                          gemma (default: recognised from the model; 'list' prints them)\n"
        "      --system TEXT       system message for the chat\n"
        "      --show-prompt       print each text fed to the model on stderr (chat mode)\n"
        "      --ignore-eos        keep generating after end-of-sequence\n"
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
    fprintf(stderr, "\n[prompt: %d tokens in %.1f ms (%.1f tok/s) | generated: %d tokens in %.1f ms (%.1f tok/s)]\n",
            r->n_prompt, r->prompt_ms, r->prompt_ms > 0 ? r->n_prompt * 1000.0 / r->prompt_ms : 0.0,
            r->n_generated, r->decode_ms, r->decode_ms > 0 ? r->n_generated * 1000.0 / r->decode_ms : 0.0);
}


/* --prompt-cache: the session state after the prompt */
static void save_cache(srt_session *s, const char *path) {
    double t0 = srt_time_ms();
    if (srt_session_save(s, path) != SRT_OK) fprintf(stderr, "srt-chat: cannot write the prompt cache: %s\n", srt_last_error());
    else fprintf(stderr, "[prompt cache: %d tokens saved to %s in %.1f ms]\n", srt_session_pos(s), path, srt_time_ms() - t0);
}

/* ---------------------------------------------------------------- chat */
typedef struct text_buf { char *p; size_t n, cap; } text_buf;
static int tb_add(text_buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *np = (char *)realloc(b->p, cap);
        if (!np) return 0;
        b->p = np; b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
    return 1;
}

typedef struct chat {
    srt_model *model;
    srt_session *session;
    srt_chat_template tmpl;
    srt_chat_message *msgs;
    int n_msgs, cap_msgs;
    text_buf fed;              /* exactly the text the session's tokens stand for */
    int prev_special;          /* the last token in the session is a control token */
    int n_predict, show_prompt;
    int32_t eos;               /* -2 with --ignore-eos */
    /* where the last exchange began (before its user message was fed), for /undo and /retry */
    int has_turn, turn_pos, turn_msg, turn_prev_special;
    size_t turn_fed;
    const char *cache_path;    /* --prompt-cache: the first turn's prompt is saved there */
    int cache_done;
    double cache_ms;           /* loading it took */
    uint64_t seed;             /* the sampler's (--seed) */
} chat;

static int is_control(const srt_model *m, int32_t t) {
    const char *p = srt_token_piece(m, t);
    return p && p[0] && p[1] && srt_token_bytes(m, t, NULL, 0) == 0;
}

static int chat_add(chat *c, const char *role, const char *content, size_t len) {
    char *r, *t;
    if (c->n_msgs == c->cap_msgs) {
        int cap = c->cap_msgs ? 2 * c->cap_msgs : 16;
        srt_chat_message *nm = (srt_chat_message *)realloc(c->msgs, (size_t)cap * sizeof *nm);
        if (!nm) return 0;
        c->msgs = nm; c->cap_msgs = cap;
    }
    r = (char *)malloc(strlen(role) + 1);
    t = (char *)malloc(len + 1);
    if (!r || !t) { free(r); free(t); return 0; }
    strcpy(r, role);
    memcpy(t, content, len);
    t[len] = 0;
    c->msgs[c->n_msgs].role = r;
    c->msgs[c->n_msgs].content = t;
    c->n_msgs++;
    return 1;
}
static void chat_drop(chat *c, int i) {
    free((void *)c->msgs[i].role);
    free((void *)c->msgs[i].content);
    memmove(c->msgs + i, c->msgs + i + 1, (size_t)(c->n_msgs - i - 1) * sizeof *c->msgs);
    c->n_msgs--;
}

static char *chat_render(chat *c, int add_generation_prompt) {
    size_t len = 0;
    char *buf;
    if (srt_chat_render(&c->tmpl, c->msgs, c->n_msgs, add_generation_prompt, NULL, 0, &len) != SRT_OK && len == 0) return NULL;
    buf = (char *)malloc(len + 1);
    if (buf && srt_chat_render(&c->tmpl, c->msgs, c->n_msgs, add_generation_prompt, buf, len + 1, &len) != SRT_OK) { free(buf); buf = NULL; }
    return buf;
}

/* Tokens of rendered chat text: special-token text ("<|im_start|>") becomes its token, the rest is
   tokenized as text. Text at the start of a turn that follows a special token (or the start of
   the conversation) gets the tokenizer's dummy-prefix space as llama.cpp gives it; text that
   continues text does not. */
static int tokenize_chat(chat *c, const char *text, size_t len, int32_t **out, int *n_out) {
    int32_t *ids;
    int n = 0, need = 0;
    int flags = SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL | (c->fed.n && !c->prev_special ? SRT_TOKENIZE_NO_SPACE_PREFIX : 0);
    srt_tokenize(c->model, text, len, flags, NULL, 0, &need);
    if (!(ids = (int32_t *)malloc((size_t)(need + 1) * sizeof *ids))) return 0;
    if (srt_tokenize(c->model, text, len, flags, ids, need, &n) != SRT_OK) { free(ids); return 0; }
    *out = ids;
    *n_out = n;
    return 1;
}

/* The tokens of ids[0..n) the session holds already, from its start (srt-chat keeps them). */
static int common_start(srt_session *s, const int32_t *ids, int n) {
    const int32_t *have = srt_session_tokens(s);
    int k = 0, pos = srt_session_pos(s);
    while (k < n && k < pos && have[k] == ids[k]) k++;
    return k;
}

/* Feeds text after what was fed. When nothing was (the start, /reset, the conversation read
   again), the session may still hold tokens (an earlier rendering of this conversation, or the
   prompt cache): those the text begins with are kept and only the rest is evaluated.
   *kept = the tokens before the new ones. */
static srt_status chat_feed(chat *c, const char *text, size_t len, int *kept) {
    int32_t *ids = NULL;
    int n = 0, k;
    srt_status st;
    *kept = srt_session_pos(c->session);
    if (!tokenize_chat(c, text, len, &ids, &n)) {
        fprintf(stderr, "srt-chat: cannot tokenize the prompt: %s\n", srt_last_error());
        return SRT_ERR_INVALID_ARG;
    }
    k = c->fed.n ? 0 : common_start(c->session, ids, n);
    if (!c->fed.n && (st = srt_session_truncate(c->session, k)) != SRT_OK) { free(ids); return st; }
    if (!c->fed.n) *kept = k;
    if (c->show_prompt) {
        if (k) fprintf(stderr, "[feed %d tokens, the first %d already in the KV cache: \"%.*s\"]\n", n, k, (int)len, text);
        else fprintf(stderr, "[feed %d tokens: \"%.*s\"]\n", n, (int)len, text);
    }
    st = srt_session_feed(c->session, ids + k, n - k);
    if (st == SRT_OK) {
        tb_add(&c->fed, text, len);
        if (n > 0) c->prev_special = is_control(c->model, ids[n - 1]);
    }
    free(ids);
    return st;
}

/* Tokens the rendered text would take (for the context check). */
static int chat_count(chat *c, const char *text) {
    int32_t *ids = NULL;
    int n = 0, saved = c->prev_special;
    c->prev_special = 1;
    if (!tokenize_chat(c, text, strlen(text), &ids, &n)) n = -1;
    c->prev_special = saved;
    free(ids);
    return n;
}

static int chat_is_stop(chat *c, int32_t tok) {
    const char *p = srt_token_piece(c->model, tok);
    int k;
    if (tok == c->eos) return 1;
    for (k = 0; k < 4; k++) if (c->tmpl.stop[k][0] && p && strcmp(p, c->tmpl.stop[k]) == 0) return 1;
    return 0;
}

/* One user turn: feeds only what is new since the last turn, generates the reply. */
static srt_status chat_turn(chat *c, const char *user, FILE *out) {
    char *full;
    srt_status st = SRT_OK;
    text_buf reply = {NULL, 0, 0};
    srt_utf8_stream us;
    char piece[4096];
    int n_ctx = srt_session_n_ctx(c->session), generated = 0, n_prompt, stopped = 0, dropped = 0, reread = 0, kept;
    if (!chat_add(c, "user", user, strlen(user))) return SRT_ERR_OUT_OF_MEMORY;
    if (!(full = chat_render(c, 1))) { fprintf(stderr, "srt-chat: %s\n", srt_last_error()); chat_drop(c, c->n_msgs - 1); return SRT_ERR_INVALID_ARG; }
    /* the conversation so far must be a prefix of the new rendering; otherwise (a template that
       rewrites earlier turns, an answer the template trims) it is read again from the start, which
       keeps the tokens it still begins with (chat_feed) */
    if (c->fed.n > 0 && (strlen(full) < c->fed.n || memcmp(full, c->fed.p, c->fed.n) != 0)) {
        fprintf(stderr, "(the template renders earlier turns differently now: reading the conversation again)\n");
        c->fed.n = 0;
        c->prev_special = 0;
        reread = 1;
    }
    /* context: the new text plus room for a reply must fit; else drop the oldest messages (the
       system message stays, and so do its tokens in the KV cache) */
    {
        int need = chat_count(c, full + c->fed.n);
        int room = c->n_predict > 0 && c->n_predict < n_ctx / 2 ? c->n_predict : n_ctx / 4;
        while (need >= 0 && (c->fed.n ? srt_session_pos(c->session) : 0) + need + room > n_ctx) {
            int first = c->n_msgs > 0 && !strcmp(c->msgs[0].role, "system") ? 1 : 0;
            if (c->n_msgs - first <= 1) break;   /* only the new message is left */
            chat_drop(c, first);
            if (c->n_msgs - first > 1 && !strcmp(c->msgs[first].role, "assistant")) chat_drop(c, first);
            dropped++;
            c->fed.n = 0;
            c->prev_special = 0;
            free(full);
            if (!(full = chat_render(c, 1))) return SRT_ERR_INVALID_ARG;
            need = chat_count(c, full);
        }
        if (need < 0 || (c->fed.n ? srt_session_pos(c->session) : 0) + need + 1 > n_ctx) {
            fprintf(stderr, "(the message is too long for the context window of %d tokens)\n", n_ctx);
            chat_drop(c, c->n_msgs - 1);
            free(full);
            return SRT_OK;
        }
    }
    c->has_turn = 1; c->turn_msg = c->n_msgs - 1; c->turn_fed = c->fed.n; c->turn_prev_special = c->prev_special;
    st = chat_feed(c, full + c->fed.n, strlen(full + c->fed.n), &kept);
    c->turn_pos = kept;
    n_prompt = srt_session_pos(c->session) - kept;
    free(full);
    if (dropped && st == SRT_OK) fprintf(stderr, "(context window full: the %d oldest turns were dropped; %d tokens kept, %d read again)\n", dropped, kept, n_prompt);
    else if (reread && st == SRT_OK) fprintf(stderr, "(%d tokens kept, %d read again)\n", kept, n_prompt);
    if (st != SRT_OK) {   /* batches evaluated before a cancel are taken back too */
        srt_session_truncate(c->session, c->turn_pos);
        chat_drop(c, c->n_msgs - 1);
        c->has_turn = 0;
        return st;
    }
    if (c->cache_path && !c->cache_done) {   /* the first prompt, for the next run (--prompt-cache) */
        c->cache_done = 1;
        if (kept) fprintf(stderr, "[prompt cache: %d of the prompt's %d tokens read from %s in %.1f ms]\n", kept, kept + n_prompt, c->cache_path, c->cache_ms);
        if (n_prompt > 0) save_cache(c->session, c->cache_path);
    }
    memset(&us, 0, sizeof us);
    while (c->n_predict <= 0 || generated < c->n_predict) {
        int32_t tok;
        int n;
        st = srt_session_next(c->session, &tok);
        if (st == SRT_ERR_CONTEXT_FULL) { fprintf(stderr, "\n(context window full: the reply is cut here)\n"); st = SRT_OK; break; }
        if (st != SRT_OK) break;
        generated++;
        if (chat_is_stop(c, tok)) {
            const char *p = srt_token_piece(c->model, tok);
            tb_add(&c->fed, p, strlen(p));
            c->prev_special = 1;
            stopped = 1;
            break;
        }
        n = srt_token_bytes(c->model, tok, piece, (int)sizeof piece);
        if (n > (int)sizeof piece) n = (int)sizeof piece;
        if (n == 0 && is_control(c->model, tok)) {   /* other control tokens: their text */
            const char *p = srt_token_piece(c->model, tok);
            tb_add(&reply, p, strlen(p));
            tb_add(&c->fed, p, strlen(p));
            c->prev_special = 1;
            continue;
        }
        tb_add(&reply, piece, (size_t)n);
        tb_add(&c->fed, piece, (size_t)n);
        c->prev_special = 0;
        {
            char txt[6 * sizeof piece + 16];
            int w = srt_utf8_stream_token(&us, c->model, tok, 0, txt, (int)sizeof txt);
            if (w > 0) { fwrite(txt, 1, (size_t)w, out); fflush(out); }
        }
    }
    {
        char txt[16];
        int w = srt_utf8_stream_flush(&us, txt, (int)sizeof txt);
        if (w > 0) fwrite(txt, 1, (size_t)w, out);
        fputs("\n", out);
        fflush(out);
    }
    fprintf(stderr, "[prompt: %d new tokens | reply: %d tokens%s | context %d/%d]\n", n_prompt, generated,
            stopped ? "" : " (no end of turn)", srt_session_pos(c->session), n_ctx);
    if (st == SRT_ERR_CANCELLED) fprintf(stderr, "(stopped)\n");
    chat_add(c, "assistant", reply.p ? reply.p : "", reply.n);
    free(reply.p);
    return st == SRT_ERR_CANCELLED ? SRT_OK : st;
}

/* Takes back the last exchange (its user message and the reply): the KV cache goes back to where
   it began. Returns 0 when there is none (at the start, after /reset or an /undo). */
static int chat_undo(chat *c) {
    if (!c->has_turn || c->turn_msg >= c->n_msgs || srt_session_truncate(c->session, c->turn_pos) != SRT_OK) return 0;
    while (c->n_msgs > c->turn_msg) chat_drop(c, c->n_msgs - 1);
    c->fed.n = c->turn_fed;
    c->prev_special = c->turn_prev_special;
    c->has_turn = 0;
    return 1;
}
/* Starts over with the system message. Its tokens stay in the KV cache (the next turn keeps what
   it begins with); the sampler starts again from its seed, as in a new session. */
static void chat_reset(chat *c) {
    c->has_turn = 0;
    while (c->n_msgs > 0 && !(c->n_msgs == 1 && !strcmp(c->msgs[0].role, "system"))) chat_drop(c, c->n_msgs - 1);
    srt_session_seed(c->session, c->seed);
    c->fed.n = 0;
    c->prev_special = 0;
}
/* Before a save with nothing of the chat fed (after /reset, or a chat to be read again): the
   session may still hold an earlier conversation's tokens, kept for the next turn to reuse. Only
   those the current conversation (the system message) begins with stay, so that a file saved
   after /reset holds nothing of the conversation before it. */
static void chat_trim_stale(chat *c) {
    char *full;
    int32_t *ids = NULL;
    int n = 0, keep = 0;
    if (c->fed.n || srt_session_pos(c->session) == 0) return;
    if ((full = chat_render(c, 0)) != NULL && tokenize_chat(c, full, strlen(full), &ids, &n)) keep = common_start(c->session, ids, n);
    srt_session_truncate(c->session, keep);
    free(ids);
    free(full);
}
/* /save FILE: the session state with the messages and, as a last message of role "srt-chat:fed",
   the text the session's tokens stand for (srt_session_save_chat). */
static void chat_save(chat *c, const char *path) {
    srt_chat_message *all = (srt_chat_message *)malloc((size_t)(c->n_msgs + 1) * sizeof *all);
    char *fed = (char *)malloc(c->fed.n + 1);   /* fed.p may go on past fed.n (after /undo) */
    if (!all || !fed) { fprintf(stderr, "srt-chat: out of memory\n"); free(all); free(fed); return; }
    chat_trim_stale(c);
    if (c->fed.n) memcpy(fed, c->fed.p, c->fed.n);
    fed[c->fed.n] = 0;
    if (c->n_msgs) memcpy(all, c->msgs, (size_t)c->n_msgs * sizeof *all);
    all[c->n_msgs].role = "srt-chat:fed";
    all[c->n_msgs].content = fed;
    if (srt_session_save_chat(c->session, path, all, c->n_msgs + 1) != SRT_OK) fprintf(stderr, "srt-chat: cannot save: %s\n", srt_last_error());
    else fprintf(stderr, "(saved to %s: %d messages, %d tokens)\n", path, c->n_msgs, srt_session_pos(c->session));
    free(all);
    free(fed);
}
/* /load FILE: the conversation of a /save takes this one's place. Without the fed text (a file of
   another app) the next turn reads the conversation again, keeping the tokens it begins with. */
static void chat_load(chat *c, const char *path) {
    srt_chat_message *msgs = NULL;
    int n = 0, i, pos;
    if (srt_session_load_chat(c->session, path, &msgs, &n) != SRT_OK) {
        fprintf(stderr, "srt-chat: cannot load: %s\n", srt_last_error());
        c->fed.n = 0;   /* the next turn checks what the KV cache holds */
        c->prev_special = 0;
        return;
    }
    while (c->n_msgs > 0) chat_drop(c, c->n_msgs - 1);
    c->fed.n = 0;
    c->prev_special = 0;
    c->has_turn = 0;
    for (i = 0; i < n; i++) {
        if (!strcmp(msgs[i].role, "srt-chat:fed")) { c->fed.n = 0; tb_add(&c->fed, msgs[i].content, strlen(msgs[i].content)); }
        else chat_add(c, msgs[i].role, msgs[i].content, strlen(msgs[i].content));
    }
    pos = srt_session_pos(c->session);
    if (pos > 0) c->prev_special = is_control(c->model, srt_session_tokens(c->session)[pos - 1]);
    fprintf(stderr, "(loaded %s: %d messages, %d tokens)\n", path, c->n_msgs, pos);
    srt_chat_messages_free(msgs);
}
static void chat_free(chat *c) {
    while (c->n_msgs > 0) chat_drop(c, c->n_msgs - 1);
    free(c->msgs);
    free(c->fed.p);
}

static srt_backend *g_backend;   /* --backend cuda; freed by main after the model */

static int chat_main(int argc, char **argv) {
    const char *model_path = NULL, *prompt = NULL, *prompt_file = NULL;
    int n_predict = 256, threads = 0, n_ctx = 0, n_batch = 0, temp_given = 0, no_bos = 0, ignore_eos = 0, verify = 0, pin = 0, i;
    int use_cuda = 0, device = 0;
    int force_chat = 0, no_chat = 0, show_prompt = 0, use_chat;
    const char *template_name = NULL, *system_text = NULL, *cache_path = NULL;
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
        else if (!strcmp(a, "--system")) system_text = NEXT();
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
            srt_session_destroy(session); srt_model_free(model); free(file_text);
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
    if (use_chat) {
        chat c;
        srt_model_info info;
        memset(&c, 0, sizeof c);
        c.model = model;
        c.session = session;
        c.n_predict = n_predict;
        c.show_prompt = show_prompt;
        c.cache_path = cache_path;
        c.cache_ms = cache_ms;
        c.seed = sampler.seed;
        if ((st = srt_chat_template_from_model(model, template_name, &c.tmpl)) != SRT_OK) {
            fprintf(stderr, "srt-chat: %s\n", srt_last_error());
            srt_session_destroy(session); srt_model_free(model); free(file_text);
            return 2;
        }
        srt_model_get_info(model, &info);
        c.eos = ignore_eos ? -2 : info.eos;
        if (ignore_eos) memset(c.tmpl.stop, 0, sizeof c.tmpl.stop);
        if (system_text) chat_add(&c, "system", system_text, strlen(system_text));
        if (prompt) {
            st = chat_turn(&c, prompt, stdout);
        } else {
            char line[8192];
            fprintf(stderr, "%s: %s, %d layers, %s weights, context %d, chat template %s%s. /undo, /retry, /reset, /save FILE, /load FILE, Ctrl-D quits.\n",
                    model_path, info.architecture, info.n_layer, srt_format_name(info.format), srt_session_n_ctx(session),
                    srt_chat_format_name(c.tmpl.format), c.tmpl.guessed ? " (guessed)" : "");
            st = SRT_OK;
            for (;;) {
                size_t len;
                fprintf(stderr, "> ");
                if (!fgets(line, sizeof line, stdin)) break;
                len = strlen(line);
                if (len && line[len - 1] == '\n') line[--len] = 0;
                if (len && line[len - 1] == '\r') line[--len] = 0;
                if (!strcmp(line, "/reset")) { chat_reset(&c); fprintf(stderr, "(conversation reset)\n"); continue; }
                if (!strncmp(line, "/save ", 6) && line[6]) { chat_save(&c, line + 6); continue; }
                if (!strncmp(line, "/load ", 6) && line[6]) { chat_load(&c, line + 6); continue; }
                if (!strcmp(line, "/undo")) { fprintf(stderr, chat_undo(&c) ? "(last exchange taken back)\n" : "(nothing to take back)\n"); continue; }
                if (!strcmp(line, "/retry")) {   /* the same message again: with --temp > 0 another reply */
                    const char *last = c.has_turn && c.turn_msg < c.n_msgs ? c.msgs[c.turn_msg].content : NULL;
                    char *msg = last ? (char *)malloc(strlen(last) + 1) : NULL;
                    if (msg) strcpy(msg, last);
                    if (!msg || !chat_undo(&c)) { fprintf(stderr, "(nothing to answer again)\n"); free(msg); continue; }
                    st = chat_turn(&c, msg, stdout);
                    free(msg);
                    if (st != SRT_OK) { fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error()); st = SRT_OK; }
                    continue;
                }
                if (len == 0) continue;
                st = chat_turn(&c, line, stdout);
                if (st != SRT_OK) { fprintf(stderr, "srt-chat: %s: %s\n", srt_status_str(st), srt_last_error()); st = SRT_OK; }
            }
        }
        chat_free(&c);
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

int main(int argc, char **argv) {
    int rc = chat_main(argc, argv);
    srt_backend_free(g_backend);
    return rc;
}
