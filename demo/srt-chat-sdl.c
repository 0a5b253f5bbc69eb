/* srt-chat-sdl - an offline chat window on SDL2, text drawn with stb_truetype.

   srt-chat-sdl [--model MODEL.srt] [options]
       Opens a resizable window. Without --model, drop a .srt file onto it. A model with a chat
       template (or --template NAME) chats: the conversation stays in the KV cache and only each
       new turn is evaluated. Without one, every message continues the text.
       Keys: Enter sends, Shift+Enter starts a new line, Esc stops a generation, Ctrl+R (Retry)
       generates the last reply again from the same prompt, Ctrl+N starts a
       new chat, Ctrl+C copies the last reply (Ctrl+Shift+C the whole conversation; a right click
       copies one message), Ctrl+V pastes, PgUp/PgDn and the wheel scroll.
       Lines read as srt-chat reads them: /save FILE and /load FILE keep and take up a
       conversation (messages and KV cache, in srt-chat's file format both ways), /reset is New
       chat; in a chat /retry is Retry and /undo takes back the last exchange (the KV cache goes
       back to where it began); anything else is a message.
   srt-chat-sdl --model M.srt --tools FILE [options]
       Tool calling (a template with tools: Qwen2.5 / Qwen3, Llama 3.1+, gpt-oss, SmolLM3): FILE's JSON
       array of definitions goes to the model; a reply's calls are shown as notes ("Tool call: NAME ARGS")
       and /tool RESULT gives each call's result (in order); when every call has one they are sent
       together and the model answers. A conversation opened again names the calls left to answer.
   srt-chat-sdl --model M.srt --grammar FILE | --json | --json-schema FILE [options]
       Every reply (or continuation) is constrained to the GBNF grammar in FILE (llama.cpp's syntax),
       to a JSON object, or to JSON that the JSON Schema in FILE describes: srt_session_set_grammar,
       set on each model's session. With --tools, --tool-grammar constrains the calls instead (a
       tool's name, arguments its parameters' schema matches: srt_chat_desc.tool_grammar).
   srt-chat-sdl --model M.srt --chat FILE [options]
       The conversation lives in FILE: opened after the model loads (its messages come back as
       bubbles, its KV cache as it was: nothing is read again), saved after every reply (finished
       or stopped), Retry, /undo and New chat. A missing FILE starts a new chat saved there; one
       that cannot be opened (another model, damaged) is said so in the window and not
       overwritten (unless /save FILE asks for it: then the saves go on there).
   srt-chat-sdl --model M.srt --script FILE [--script-log LOG] [--screenshot OUT.png]
       Scripted: FILE's commands (see script_usage below) drive the window; the log says what
       happened (replies, statistics, scroll positions); the PNG is written when the script ends.
       Under Xvfb this is the UI test (tests/test_ui.sh).

   srt-chat-sdl --model M.srt --draft N [--draft-model SMALL.srt] [options]
       Speculative decoding: up to N tokens found by prompt lookup (or proposed by a smaller model
       of the same vocabulary, on the CPU and greedy) are checked per evaluation (srt_chat_desc /
       srt_generate_desc draft_max, draft); greedy replies are the same, in fewer evaluations where
       the text repeats itself or the small model guesses right (the log's stats say how many).

   srt-chat-sdl --model M.srt --backend cuda [--device N] [options]
       The model on an NVIDIA GPU (build/srt-chat-sdl-cuda: this file with -DSRT_CHAT_CUDA +
       tools/cuda-backend.cu, built by ./build.sh when nvcc is found); the status line names the
       device. Tokenizing and sampling stay on the CPU: the replies are the CPU's.

   Threads: generation runs on a worker thread; the window talks to it through two
   mutex-protected queues (commands one way, events the other) and never waits for it. The worker
   also saves and opens the conversation files (it owns the session); the window sends no message
   while one is being opened and refuses /load while a reply is generating (the line stays typed).
   Build: ./build.sh (needs SDL2 and Debian's libstb-dev; stb headers from /usr/include/stb). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#ifdef SRT_CHAT_CUDA
#  include "sparsert_cuda.h"   /* the declarations; the backend is tools/cuda-backend.cu (nvcc) */
#endif

#include <SDL.h>
#define STB_TRUETYPE_IMPLEMENTATION
#include "stb_truetype.h"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* ---------------------------------------------------------------- small helpers */
typedef struct text_buf { char *p; size_t n, cap; } text_buf;

static int tb_add(text_buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *np = (char *)realloc(b->p, cap);
        if (!np) return 0;
        b->p = np; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
    return 1;
}
static void tb_free(text_buf *b) { free(b->p); b->p = NULL; b->n = b->cap = 0; }
static char *dup_n(const char *s, size_t n) {
    char *p = (char *)malloc(n + 1);
    if (p) { if (n) memcpy(p, s, n); p[n] = 0; }
    return p;
}
static char *dup_s(const char *s) { return dup_n(s, strlen(s)); }
static const char *base_name(const char *path) {
    const char *b = path, *p;
    for (p = path; *p; p++) if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}
static double now_ms(void) { return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency(); }

/* UTF-8: the code point at s[*i] (U+FFFD for a malformed byte, which is skipped alone). */
static uint32_t utf8_next(const char *s, size_t n, size_t *i) {
    const unsigned char *u = (const unsigned char *)s + *i;
    size_t left = n - *i, len, k;
    uint32_t c = u[0];
    if (c < 0x80) { *i += 1; return c; }
    if (c >= 0xC2 && c <= 0xDF) { len = 2; c &= 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; c &= 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; c &= 0x07; }
    else { *i += 1; return 0xFFFD; }
    if (left < len) { *i += 1; return 0xFFFD; }
    for (k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80) { *i += 1; return 0xFFFD; }
        c = (c << 6) | (u[k] & 0x3F);
    }
    if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (len == 4 && (c < 0x10000 || c > 0x10FFFF))) { *i += 1; return 0xFFFD; }
    *i += len;
    return c;
}
static size_t utf8_prev(const char *s, size_t i) {
    if (i == 0) return 0;
    i--;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return i;
}
/* Wide (two-column) characters: CJK, Hangul, fullwidth forms, most emoji. A line may break
   before and after each of them. */
static int cp_wide(uint32_t c) {
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) || (c >= 0xAC00 && c <= 0xD7A3) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
           (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) || (c >= 0x1F900 && c <= 0x1F9FF) ||
           (c >= 0x20000 && c <= 0x3FFFD);
}
/* Characters that take no room when the font lacks them (joiners, variation selectors, marks). */
static int cp_zero_width(uint32_t c) {
    return (c >= 0x200B && c <= 0x200F) || (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0x0300 && c <= 0x036F) ||
           (c >= 0xE0100 && c <= 0xE01EF) || c == 0x2060 || c == 0xFEFF || (c < 0x20 && c != '\t');
}

/* ---------------------------------------------------------------- font and glyph cache */
/* One TTF (or the first font of a TTC), two pixel sizes, glyphs rasterised on first use into an
   atlas texture (white, coverage in alpha; drawn with a colour modulation). A full atlas or
   table starts over. A code point the font lacks is drawn as a hollow box. */
enum { FONT_BODY = 0, FONT_SMALL = 1, FONT_SIZES = 2 };
#define ATLAS_SIZE 1024
#define GLYPH_SLOTS 4096
typedef struct glyph {
    uint32_t key;             /* code point * 4 + size + 1; 0 = empty slot */
    short x, y, w, h;         /* in the atlas */
    short xoff, yoff;         /* bitmap offset from the pen on the baseline */
    float adv;
    char missing;             /* 1 = the font has no glyph: draw a box */
} glyph;
typedef struct font {
    unsigned char *data;
    stbtt_fontinfo info;
    float px[FONT_SIZES], sc[FONT_SIZES];
    int ascent[FONT_SIZES], line_h[FONT_SIZES];
    SDL_Texture *atlas;
    int ax, ay, row_h;        /* shelf packer */
    glyph slots[GLYPH_SLOTS];
    int n_used;
    unsigned char *tmp;       /* rasteriser scratch */
    uint32_t *tmp_rgba;
} font;

static unsigned char *load_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = (unsigned char *)malloc((size_t)n))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
        else if (len) *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* The first readable font of: --font, then the usual places on Linux, Windows and macOS. */
static const char *find_font(const char *given, char *buf, size_t cap) {
    static const char *const paths[] = {
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "/usr/share/fonts/noto/NotoSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf", "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
        "/usr/local/share/fonts/DejaVuSans.ttf",
        "C:\\Windows\\Fonts\\segoeui.ttf", "C:\\Windows\\Fonts\\arial.ttf",
        "/System/Library/Fonts/Supplemental/Arial Unicode.ttf", "/System/Library/Fonts/Supplemental/Arial.ttf",
        "/Library/Fonts/Arial Unicode.ttf", "/Library/Fonts/Arial.ttf", "/System/Library/Fonts/Helvetica.ttc",
        "/System/Library/Fonts/Geneva.ttf"};
    size_t i;
    FILE *f;
    const char *windir = getenv("WINDIR");
    if (given) return given;
    if (windir && strlen(windir) + 20 < cap) {
        snprintf(buf, cap, "%s\\Fonts\\segoeui.ttf", windir);
        if ((f = fopen(buf, "rb")) != NULL) { fclose(f); return buf; }
    }
    for (i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if ((f = fopen(paths[i], "rb")) != NULL) { fclose(f); return paths[i]; }
    return NULL;
}

static void font_clear_cache(font *f) {
    memset(f->slots, 0, sizeof f->slots);
    f->n_used = 0;
    f->ax = f->ay = f->row_h = 0;
}

static void font_set_scale(font *f, float scale) {
    int s, asc, desc, gap;
    stbtt_GetFontVMetrics(&f->info, &asc, &desc, &gap);
    for (s = 0; s < FONT_SIZES; s++) {
        f->px[s] = (s == FONT_BODY ? 17.0f : 13.0f) * scale;
        f->sc[s] = stbtt_ScaleForPixelHeight(&f->info, f->px[s]);
        f->ascent[s] = (int)ceilf(asc * f->sc[s]);
        f->line_h[s] = (int)ceilf((asc - desc + gap) * f->sc[s] * 1.12f);
    }
    font_clear_cache(f);
}

static int font_open(font *f, const char *path, SDL_Renderer *ren, char *err, size_t errcap) {
    int off;
    memset(f, 0, sizeof *f);
    if (!(f->data = load_file(path, NULL))) { snprintf(err, errcap, "cannot read the font %s", path); return 0; }
    off = stbtt_GetFontOffsetForIndex(f->data, 0);
    if (off < 0 || !stbtt_InitFont(&f->info, f->data, off)) { snprintf(err, errcap, "%s is not a TrueType font", path); free(f->data); f->data = NULL; return 0; }
    f->atlas = SDL_CreateTexture(ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, ATLAS_SIZE, ATLAS_SIZE);
    f->tmp = (unsigned char *)malloc(256 * 256);
    f->tmp_rgba = (uint32_t *)malloc(256 * 256 * sizeof(uint32_t));
    if (!f->atlas || !f->tmp || !f->tmp_rgba) { snprintf(err, errcap, "cannot create the glyph atlas: %s", SDL_GetError()); return 0; }
    SDL_SetTextureBlendMode(f->atlas, SDL_BLENDMODE_BLEND);
    return 1;
}
static void font_close(font *f) {
    if (f->atlas) SDL_DestroyTexture(f->atlas);
    free(f->data); free(f->tmp); free(f->tmp_rgba);
    memset(f, 0, sizeof *f);
}

static glyph *font_glyph(font *f, uint32_t cp, int size) {
    uint32_t key = cp * 4u + (uint32_t)size + 1u, h = (key * 2654435761u) & (GLYPH_SLOTS - 1);
    glyph *g;
    int gi, x0, y0, x1, y1, adv, lsb, w, hgt, i;
    for (;;) {
        g = &f->slots[h];
        if (g->key == key) return g;
        if (g->key == 0) break;
        h = (h + 1) & (GLYPH_SLOTS - 1);
    }
    if (f->n_used > GLYPH_SLOTS * 3 / 4) { font_clear_cache(f); return font_glyph(f, cp, size); }
    memset(g, 0, sizeof *g);
    g->key = key;
    f->n_used++;
    gi = stbtt_FindGlyphIndex(&f->info, (int)cp);
    if (gi == 0 && cp != ' ') {
        g->missing = 1;
        g->adv = cp_zero_width(cp) ? 0.0f : f->px[size] * (cp_wide(cp) ? 0.9f : 0.6f);
        return g;
    }
    stbtt_GetGlyphHMetrics(&f->info, gi, &adv, &lsb);
    g->adv = adv * f->sc[size];
    stbtt_GetGlyphBitmapBox(&f->info, gi, f->sc[size], f->sc[size], &x0, &y0, &x1, &y1);
    w = x1 - x0; hgt = y1 - y0;
    if (w <= 0 || hgt <= 0 || w > 256 || hgt > 256) return g;   /* blank (space) or absurdly large */
    if (f->ax + w + 1 > ATLAS_SIZE) { f->ax = 0; f->ay += f->row_h + 1; f->row_h = 0; }
    if (f->ay + hgt + 1 > ATLAS_SIZE) { font_clear_cache(f); return font_glyph(f, cp, size); }
    stbtt_MakeGlyphBitmap(&f->info, f->tmp, w, hgt, w, f->sc[size], f->sc[size], gi);
    for (i = 0; i < w * hgt; i++) f->tmp_rgba[i] = ((uint32_t)f->tmp[i] << 24) | 0xFFFFFFu;
    {
        SDL_Rect r;
        r.x = f->ax; r.y = f->ay; r.w = w; r.h = hgt;
        SDL_UpdateTexture(f->atlas, &r, f->tmp_rgba, w * 4);
    }
    g->x = (short)f->ax; g->y = (short)f->ay; g->w = (short)w; g->h = (short)hgt;
    g->xoff = (short)x0; g->yoff = (short)y0;
    f->ax += w + 1;
    if (hgt > f->row_h) f->row_h = hgt;
    return g;
}

/* ---------------------------------------------------------------- text layout */
/* Word wrap in `w` pixels: lines break at spaces, before and after wide (CJK) characters, and
   inside a word that is wider than the line. The same code measures and draws. */
typedef struct layout {
    int size;                 /* FONT_BODY / FONT_SMALL */
    int x, y, w;              /* top-left and width of the text box */
    SDL_Color color;
    int draw;                 /* 0 = measure only */
    int clip_y0, clip_y1;     /* only lines inside are drawn */
    size_t caret;             /* byte offset whose position is wanted ((size_t)-1 = none) */
    int caret_x, caret_y;     /* out: relative to x, y */
    int max_w;                /* out: widest line */
} layout;

typedef struct ui ui;
static void draw_glyph(ui *u, glyph *g, int size, float pen, int base, SDL_Color c);
static font *ui_font(ui *u);

static int layout_text(ui *u, layout *L, const char *s, size_t n) {
    font *f = ui_font(u);
    float pen = 0, maxw = 0, space = font_glyph(f, ' ', L->size)->adv;
    int line = 0, lh = f->line_h[L->size], asc = f->ascent[L->size];
    size_t i = 0;
    L->caret_x = L->caret_y = 0;
    while (i < n) {
        size_t j, k;
        float ww = 0;
        if (i == L->caret) { L->caret_x = (int)pen; L->caret_y = line * lh; }
        if (s[i] == '\n') { line++; pen = 0; i++; continue; }
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') { pen += s[i] == '\t' ? 4 * space : s[i] == ' ' ? space : 0; i++; continue; }
        for (j = i; j < n; ) {              /* the word: up to a space, or one wide character */
            uint32_t cp;
            k = j;
            cp = utf8_next(s, n, &k);
            if (cp == ' ' || cp == '\n' || cp == '\t' || cp == '\r') break;
            if (cp_wide(cp) && j > i) break;
            ww += font_glyph(f, cp, L->size)->adv;
            j = k;
            if (cp_wide(cp)) break;
        }
        if (pen > 0 && pen + ww > L->w) { line++; pen = 0; }
        while (i < j) {
            uint32_t cp;
            glyph *g;
            k = i;
            cp = utf8_next(s, n, &k);
            g = font_glyph(f, cp, L->size);
            if (pen > 0 && pen + g->adv > L->w) { line++; pen = 0; }
            if (i == L->caret) { L->caret_x = (int)pen; L->caret_y = line * lh; }
            if (L->draw) {
                int top = L->y + line * lh;
                if (top + lh >= L->clip_y0 && top <= L->clip_y1) draw_glyph(u, g, L->size, (float)L->x + pen, top + asc, L->color);
            }
            pen += g->adv;
            if (pen > maxw) maxw = pen;
            i = k;
        }
    }
    if (L->caret == n) { L->caret_x = (int)pen; L->caret_y = line * lh; }
    L->max_w = (int)ceilf(maxw);
    return (line + 1) * lh;
}

/* ---------------------------------------------------------------- worker thread */
/* Commands go UI -> worker, events worker -> UI, each through its own queue under one mutex.
   The worker owns the model and the session; the UI only ever calls srt_session_cancel on it,
   under the mutex and only while a turn is running (cancel_ok).
   Conversation files: CMD_CHAT_OPEN (--chat FILE, after the model loaded: a missing FILE is a new
   chat), CMD_CHAT_LOAD (/load) and CMD_CHAT_SAVE (/save and the saves to --chat FILE) each answer
   with one EV_FILE; CMD_UNDO (/undo) with one EV_UNDONE. */
enum { CMD_LOAD, CMD_TURN, CMD_TOOL_TURN, CMD_RETRY, CMD_RESET, CMD_CHAT_OPEN, CMD_CHAT_LOAD, CMD_CHAT_SAVE, CMD_UNDO, CMD_QUIT };
enum { EV_PROGRESS, EV_LOADED, EV_LOAD_FAILED, EV_TEXT, EV_DONE, EV_NOTE, EV_FILE, EV_UNDONE, EV_CALLS };
enum { STOP_LIMIT = 0, STOP_EOS = 1, STOP_CANCEL = 2, STOP_CONTEXT = 3, STOP_ERROR = 4 };
enum { FILE_FAILED = 0, FILE_DONE = 1, FILE_NEW = 2 };
typedef struct command {
    int kind;
    int turn;                 /* CMD_TURN / CMD_TOOL_TURN / CMD_RETRY: the turn; CMD_CHAT_SAVE: 1 = a save to --chat FILE */
    char *text;               /* CMD_TURN: the message; CMD_TOOL_TURN: the results, each ended by a NUL; CMD_LOAD, CMD_CHAT_*: the path */
    int n_parts;              /* CMD_TOOL_TURN: how many results */
} command;
typedef struct event {
    int kind, turn;           /* EV_FILE: turn as the command's */
    char *text;               /* EV_TEXT: the new characters; EV_LOAD_FAILED / EV_NOTE: a message;
                                 EV_FILE: the path, or the error when it failed */
    size_t len;
    int think;                /* EV_TEXT: 1 = they belong to the reply's reasoning (a reasoning model's), 0 = its answer */
    int op, result;           /* EV_FILE: the command (CMD_CHAT_*), FILE_FAILED / FILE_DONE / FILE_NEW;
                                 EV_UNDONE: result 1 = taken back, 0 = nothing to take back;
                                 EV_CALLS: result = the calls of the last reply (after its notes) */
    srt_chat_message *msgs;   /* EV_FILE after a load in a chat: the conversation (copy_messages; free) */
    int n_msgs;               /* ... their number; after a save: the messages saved */
    char *shown;              /* EV_FILE after a load of continued text: the text of its tokens */
    int n_tokens;             /* tokens generated so far (EV_TEXT, EV_DONE) */
    double decode_ms;         /* time since the first token was asked for */
    double progress;          /* EV_PROGRESS: 0..1 */
    int stop, pos, n_ctx, n_prompt;
    int n_passes;             /* EV_DONE, continued text: evaluations of the model while decoding (0 in a chat) */
    double prompt_ms;
} event;
typedef struct model_facts {  /* EV_LOADED: what the status line shows */
    char file[256], arch[32], format[16], chat[32], device[160];   /* device: the backend's name, "" on the CPU */
    srt_chat_template tmpl;   /* the chat's format (format and think: what srt_chat_reply_split reads), zeroed without a chat */
    int n_ctx, threads, n_layer;
    uint64_t bytes;
} model_facts;

typedef struct worker {
    SDL_mutex *mu;
    SDL_cond *cv;
    command *cmds; int n_cmds, cap_cmds;
    event *evs; int n_evs, cap_evs;
    Uint32 wake_event;        /* SDL user event pushed when the event queue becomes non-empty */
    int cancel_ok, cancel_sent;   /* under mu */
    SDL_atomic_t token_delay_ms;  /* test hook: slows generation so that Stop can be exercised */
    model_facts facts;        /* written by the worker before EV_LOADED, read by the UI after it */
    /* options (set before the thread starts) */
    int n_threads, n_ctx, max_tokens, ignore_eos, no_think;
    int draft_max, draft_ngram;   /* --draft, --draft-ngram (speculative decoding; 0 = off) */
    const char *draft_path;   /* --draft-model: a smaller model proposes (loaded with each model) */
    srt_cores cores;
    const char *cpu_list, *cores_name, *template_name, *system_text;
    char *tools;              /* --tools: the JSON array of tool definitions, else NULL */
    char *grammar;            /* --grammar FILE's text (checked), --json's SRT_GRAMMAR_JSON (a copy), --json-schema's grammar, else NULL */
    int tool_grammar;         /* --tool-grammar */
    srt_kv_type kv;           /* --kv */
    srt_backend *backend;     /* --backend cuda, else NULL (the CPU) */
    srt_sampler_desc sampler;
    /* worker-owned */
    srt_pool *pool;
    srt_model *model;
    srt_session *session;
    srt_chat *chat;           /* the conversation when the model has a chat template; NULL = text continuation */
    srt_model *draft_model;   /* --draft-model and its session (greedy, as long as the model's), else NULL */
    srt_session *draft;
    int has_reply, reply_pos; /* continuation: where the last reply began, for Regenerate */
} worker;

static void post(worker *w, const event *e) {
    int was_empty;
    SDL_LockMutex(w->mu);
    if (w->n_evs == w->cap_evs) {
        int cap = w->cap_evs ? 2 * w->cap_evs : 64;
        event *ne = (event *)realloc(w->evs, (size_t)cap * sizeof *ne);
        if (!ne) { SDL_UnlockMutex(w->mu); free(e->text); free(e->shown); free(e->msgs); return; }
        w->evs = ne; w->cap_evs = cap;
    }
    was_empty = w->n_evs == 0;
    w->evs[w->n_evs++] = *e;
    SDL_UnlockMutex(w->mu);
    /* text and progress are picked up by the window's frame timer while it generates or loads;
       waking it for every token would cost more than the token (an X11 round trip) */
    if (was_empty && e->kind != EV_TEXT && e->kind != EV_PROGRESS) {
        SDL_Event se;
        memset(&se, 0, sizeof se);
        se.type = w->wake_event;
        SDL_PushEvent(&se);
    }
}
static void post_msg(worker *w, int kind, int turn, const char *msg) {
    event e;
    memset(&e, 0, sizeof e);
    e.kind = kind; e.turn = turn;
    e.text = dup_s(msg);
    e.len = e.text ? strlen(e.text) : 0;
    post(w, &e);
}
static void send_cmd_n(worker *w, int kind, int turn, const char *text, size_t len, int n_parts) {
    SDL_LockMutex(w->mu);
    if (w->n_cmds == w->cap_cmds) {
        int cap = w->cap_cmds ? 2 * w->cap_cmds : 8;
        command *nc = (command *)realloc(w->cmds, (size_t)cap * sizeof *nc);
        if (!nc) { SDL_UnlockMutex(w->mu); return; }
        w->cmds = nc; w->cap_cmds = cap;
    }
    w->cmds[w->n_cmds].kind = kind;
    w->cmds[w->n_cmds].turn = turn;
    w->cmds[w->n_cmds].text = text ? dup_n(text, len) : NULL;
    w->cmds[w->n_cmds].n_parts = n_parts;
    w->n_cmds++;
    SDL_CondSignal(w->cv);
    SDL_UnlockMutex(w->mu);
}
static void send_cmd(worker *w, int kind, int turn, const char *text) { send_cmd_n(w, kind, turn, text, text ? strlen(text) : 0, 0); }

/* The conversation in one allocation for the window (free), from the chat the worker owns. */
static srt_chat_message *copy_messages(const srt_chat_message *m, int n) {
    size_t bytes = (size_t)n * sizeof *m;
    srt_chat_message *c;
    char *p;
    int i;
    for (i = 0; i < n; i++) bytes += strlen(m[i].role) + strlen(m[i].content) + 2;
    if (!(c = (srt_chat_message *)malloc(bytes ? bytes : 1))) return NULL;
    p = (char *)(c + n);
    for (i = 0; i < n; i++) {
        size_t r = strlen(m[i].role) + 1, t = strlen(m[i].content) + 1;
        c[i].role = (const char *)memcpy(p, m[i].role, r); p += r;
        c[i].content = (const char *)memcpy(p, m[i].content, t); p += t;
    }
    return c;
}

static void worker_free_model(worker *w) {
    w->has_reply = 0;
    srt_chat_destroy(w->chat);
    w->chat = NULL;
    if (w->draft) srt_session_destroy(w->draft);
    if (w->draft_model) srt_model_free(w->draft_model);
    if (w->session) srt_session_destroy(w->session);
    if (w->model) srt_model_free(w->model);
    if (w->pool) srt_pool_destroy(w->pool);
    w->session = NULL; w->model = NULL; w->pool = NULL; w->draft = NULL; w->draft_model = NULL;
}

static void worker_load(worker *w, const char *path) {
    event e;
    FILE *f;
    char err[1024];
    srt_status st;
    memset(&e, 0, sizeof e);
    worker_free_model(w);
    /* Reading the file once shows real progress and leaves its pages in the OS cache, so the
       memory-mapped load that follows is quick. */
    if (!(f = fopen(path, "rb"))) { snprintf(err, sizeof err, "Cannot open %s", path); post_msg(w, EV_LOAD_FAILED, 0, err); return; }
    {
        static char chunk[1 << 20];
        double total = 0, done = 0, last = -1;
        size_t got;
        if (fseek(f, 0, SEEK_END) == 0) total = (double)ftell(f);
        fseek(f, 0, SEEK_SET);
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            done += (double)got;
            if (total > 0 && done / total - last >= 0.02) {
                last = done / total;
                e.kind = EV_PROGRESS; e.progress = last * 0.9;
                post(w, &e);
            }
        }
        fclose(f);
        w->facts.bytes = (uint64_t)total;
    }
    {
        srt_pool_desc pd;
        srt_model_desc md;
        memset(&pd, 0, sizeof pd);
        pd.n_threads = w->n_threads; pd.cores = w->cores; pd.cpu_list = w->cpu_list;
        if ((st = srt_pool_create(&pd, &w->pool)) != SRT_OK) {
            snprintf(err, sizeof err, "Cannot start the threads: %s", srt_last_error());
            post_msg(w, EV_LOAD_FAILED, 0, err);
            return;
        }
        memset(&md, 0, sizeof md);
        md.pool = w->pool;
        md.backend = w->backend;
        if ((st = srt_model_load(path, &md, &w->model)) != SRT_OK) {
            snprintf(err, sizeof err, "Cannot load %s: %s (%s)", base_name(path), srt_status_str(st), srt_last_error());
            worker_free_model(w);
            post_msg(w, EV_LOAD_FAILED, 0, err);
            return;
        }
    }
    {
        srt_session_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.n_ctx = w->n_ctx;
        sd.sampler = w->sampler;
        sd.kv_type = w->kv;
        if ((st = srt_session_create(w->model, &sd, &w->session)) != SRT_OK) {
            snprintf(err, sizeof err, "Cannot create a session: %s (%s)", srt_status_str(st), srt_last_error());
            worker_free_model(w);
            post_msg(w, EV_LOAD_FAILED, 0, err);
            return;
        }
        if (w->grammar && (st = srt_session_set_grammar(w->session, w->grammar)) != SRT_OK) {
            snprintf(err, sizeof err, "Cannot set the grammar: %s (%s)", srt_status_str(st), srt_last_error());
            worker_free_model(w);
            post_msg(w, EV_LOAD_FAILED, 0, err);
            return;
        }
    }
    if (w->draft_path) {   /* the draft model: on the CPU (the model's threads), its session as long as the model's, greedy */
        srt_model_desc md;
        srt_session_desc sd;
        memset(&md, 0, sizeof md);
        memset(&sd, 0, sizeof sd);
        md.pool = w->pool;
        sd.n_ctx = srt_session_n_ctx(w->session);
        if ((st = srt_model_load(w->draft_path, &md, &w->draft_model)) != SRT_OK || (st = srt_session_create(w->draft_model, &sd, &w->draft)) != SRT_OK) {
            snprintf(err, sizeof err, "Cannot load the draft model %s: %s (%s)", base_name(w->draft_path), srt_status_str(st), srt_last_error());
            worker_free_model(w);
            post_msg(w, EV_LOAD_FAILED, 0, err);
            return;
        }
    }
    {
        srt_model_info info;
        const char *stored = NULL;
        memset(&info, 0, sizeof info);
        srt_model_get_info(w->model, &info);
        srt_model_meta_str(w->model, "tokenizer.chat_template", &stored);
        snprintf(w->facts.file, sizeof w->facts.file, "%s", base_name(path));
        snprintf(w->facts.arch, sizeof w->facts.arch, "%s", info.architecture ? info.architecture : "?");
        snprintf(w->facts.format, sizeof w->facts.format, "%s", srt_format_name(info.format));
        w->facts.n_ctx = srt_session_n_ctx(w->session);
        w->facts.threads = srt_pool_threads(w->pool);
        snprintf(w->facts.device, sizeof w->facts.device, "%s", w->backend ? w->backend->name : "");
        w->facts.n_layer = info.n_layer;
        snprintf(w->facts.chat, sizeof w->facts.chat, "continuation");
        memset(&w->facts.tmpl, 0, sizeof w->facts.tmpl);
        if (w->template_name != NULL || (stored && stored[0])) {
            srt_chat_desc cd;
            const srt_chat_template *t;
            memset(&cd, 0, sizeof cd);
            cd.template_name = w->template_name; cd.system_prompt = w->system_text; cd.max_tokens = w->max_tokens; cd.ignore_eos = w->ignore_eos;
            cd.no_think = w->no_think; cd.draft_max = w->draft_max; cd.draft_ngram = w->draft_ngram; cd.draft = w->draft;
            cd.tools = w->tools;
            cd.tool_grammar = w->tool_grammar;
            if (srt_chat_create(w->session, &cd, &w->chat) != SRT_OK) {
                snprintf(err, sizeof err, "Chat template: %s", srt_last_error());
                worker_free_model(w);
                post_msg(w, EV_LOAD_FAILED, 0, err);
                return;
            }
            t = srt_chat_get_template(w->chat);
            snprintf(w->facts.chat, sizeof w->facts.chat, "%s%s", srt_chat_format_name(t->format), t->guessed ? " (guessed)" : "");
            w->facts.tmpl.format = t->format; w->facts.tmpl.think = t->think;
        }
    }
    e.kind = EV_LOADED; e.progress = 1;
    post(w, &e);
}

/* Makes the session's tokens match what the user sees after the prompt of a turn was fed.
   Returns the status of the feed; *n_prompt = tokens evaluated. */
static srt_status turn_prompt(worker *w, int turn, const char *text, int n_results, int *n_prompt) {
    int n_ctx = srt_session_n_ctx(w->session), room = w->max_tokens > 0 && w->max_tokens < n_ctx / 2 ? w->max_tokens : n_ctx / 4;
    int32_t *ids = NULL;
    int n = 0, pos0;
    srt_status st;
    if (!w->chat) {
        int flags = srt_session_pos(w->session) > 0 ? SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_NO_SPACE_PREFIX : 0;
        int need = 0;
        srt_tokenize(w->model, text, strlen(text), flags, NULL, 0, &need);
        if (srt_session_pos(w->session) > 0 && srt_session_pos(w->session) + need + room > n_ctx) {
            post_msg(w, EV_NOTE, turn, "The context window is full: the text starts over from this message.");
            srt_session_reset(w->session);
            flags = 0;
            srt_tokenize(w->model, text, strlen(text), flags, NULL, 0, &need);
        }
        if (!(ids = (int32_t *)malloc((size_t)(need + 1) * sizeof *ids))) return SRT_ERR_OUT_OF_MEMORY;
        if ((st = srt_tokenize(w->model, text, strlen(text), flags, ids, need, &n)) != SRT_OK) { free(ids); return st; }
        if (srt_session_pos(w->session) + n + 1 > n_ctx) { free(ids); return SRT_ERR_CONTEXT_FULL; }
        pos0 = srt_session_pos(w->session);
        st = srt_session_feed(w->session, ids, n);
        *n_prompt = srt_session_pos(w->session) - pos0;
        free(ids);
        return st;
    }
    {
        srt_chat_turn t;
        if (n_results > 0) {   /* a tool turn: the results, each ended by a NUL */
            srt_chat_message res[16];
            const char *p = text;
            int i;
            for (i = 0; i < n_results && i < 16; i++, p += strlen(p) + 1) { res[i].role = "tool"; res[i].content = p; }
            st = srt_chat_send_messages(w->chat, res, i, &t);
        } else st = srt_chat_send(w->chat, text, &t);
        if (t.n_dropped) post_msg(w, EV_NOTE, turn, "The context window is full: the oldest turns were dropped.");
        *n_prompt = t.n_prompt;
        return st;
    }
}

/* Regenerate (text NULL): the session goes back to where the last reply began. */
static srt_status turn_regenerate(worker *w) {
    if (w->chat) return srt_chat_regenerate(w->chat);
    return w->has_reply ? srt_session_truncate(w->session, w->reply_pos) : SRT_ERR_INVALID_ARG;
}
static int cancel_requested(worker *w) {   /* Stop was pressed during this turn */
    int c;
    SDL_LockMutex(w->mu);
    c = w->cancel_sent;
    SDL_UnlockMutex(w->mu);
    return c;
}
/* A reply's new characters go to the window as EV_TEXT (then the --token-delay test hook). */
typedef struct reply_sink { worker *w; event *e; int turn, n_gen, think; double t1; } reply_sink;
static void reply_text(reply_sink *k, const char *text, int n) {
    worker *w = k->w;
    event *e = k->e;
    int delay;
    e->kind = EV_TEXT; e->turn = k->turn; e->n_tokens = k->n_gen; e->decode_ms = now_ms() - k->t1; e->think = k->think;
    e->pos = srt_session_pos(w->session); e->n_ctx = srt_session_n_ctx(w->session);
    e->text = n > 0 ? dup_n(text, (size_t)n) : NULL; e->len = n > 0 ? (size_t)n : 0;
    post(w, e);
    if ((delay = SDL_AtomicGet(&w->token_delay_ms)) > 0) SDL_Delay((Uint32)delay);
}
/* continued text: srt_generate draws it (with proposals under --draft) and calls this per character run */
static int reply_on_text(const char *text, int len, int32_t token, void *user) {
    reply_sink *k = (reply_sink *)user;
    if (token >= 0) k->n_gen++;
    reply_text(k, text, len);
    return 0;
}

/* Bytes of s[0..n) up to its last whole UTF-8 character (a reply read part-way may end inside one). */
static size_t utf8_whole(const char *s, size_t n) {
    size_t k = n, lead;
    while (k > 0 && n - k < 4 && ((unsigned char)s[k - 1] & 0xC0) == 0x80) k--;
    if (k == 0) return n;
    lead = (unsigned char)s[k - 1];
    if (lead < 0x80) return n;
    return n - (k - 1) >= (lead >= 0xF0 ? 4u : lead >= 0xE0 ? 3u : 2u) ? n : k - 1;
}
/* A reasoning model's reply (srt_chat_reply_split): what its reasoning and its answer grew by since
   *r_done / *a_done bytes goes to the window, each as its own EV_TEXT. */
static void reply_parts(reply_sink *k, size_t *r_done, size_t *a_done) {
    int n = 0;
    const srt_chat_message *ms = srt_chat_messages(k->w->chat, &n);
    srt_chat_reply_parts rp;
    size_t r, a;
    srt_chat_reply_split(srt_chat_get_template(k->w->chat), n > 0 ? ms[n - 1].content : "", &rp);
    r = utf8_whole(rp.reasoning, rp.reasoning_len);
    a = utf8_whole(rp.answer, rp.answer_len);
    if (r > *r_done) { k->think = 1; reply_text(k, rp.reasoning + *r_done, (int)(r - *r_done)); *r_done = r; }
    if (a > *a_done) { k->think = 0; reply_text(k, rp.answer + *a_done, (int)(a - *a_done)); *a_done = a; }
    k->think = 0;
}

/* --tools: the last reply's calls as notes, then EV_CALLS with their number (the window's /tool counts them). */
static void worker_report_calls(worker *w, int turn) {
    srt_chat_tool_call calls[16];
    event e;
    int n = 0, i;
    const srt_chat_message *ms;
    char note[1200];
    if (!w->tools || !w->chat) return;
    ms = srt_chat_messages(w->chat, &n);
    memset(&e, 0, sizeof e);
    if (n > 0 && !strcmp(ms[n - 1].role, "assistant")) {
        if (srt_chat_tool_calls(srt_chat_get_template(w->chat), ms[n - 1].content, calls, 16, &e.result) != SRT_OK) {
            snprintf(note, sizeof note, "A malformed tool call: %s", srt_last_error());
            post_msg(w, EV_NOTE, turn, note);
        }
        if (e.result > 16) e.result = 16;
        for (i = 0; i < e.result; i++) {
            snprintf(note, sizeof note, "Tool call: %.*s %.*s", (int)calls[i].name_len, calls[i].name, (int)calls[i].arguments_len, calls[i].arguments);
            post_msg(w, EV_NOTE, turn, note);
        }
        if (e.result) post_msg(w, EV_NOTE, turn, e.result > 1 ? "Answer with /tool RESULT, one per call, in order" : "Answer with /tool RESULT");
    }
    e.kind = EV_CALLS; e.turn = turn;
    post(w, &e);
}
static void worker_turn(worker *w, int turn, const char *text, int n_results) {
    event e;
    srt_status st;
    int n_prompt = 0, n_gen = 0, stop = STOP_LIMIT, calls = 0;
    double t0 = now_ms(), t1;
    srt_utf8_stream us;
    reply_sink sink;
    srt_chat_reply_parts kind;
    size_t r_done = 0, a_done = 0;
    static char txt[6 * 1024 + 16];
    memset(&e, 0, sizeof e);
    memset(&us, 0, sizeof us);
    if (!w->session) { post_msg(w, EV_NOTE, turn, "No model is loaded: drop a .srt file onto the window."); goto done; }
    if (!text && turn_regenerate(w) != SRT_OK) { post_msg(w, EV_NOTE, turn, "There is no reply to regenerate."); goto done; }
    SDL_LockMutex(w->mu);
    w->cancel_ok = 1;
    SDL_UnlockMutex(w->mu);
    st = text ? turn_prompt(w, turn, text, n_results, &n_prompt) : SRT_OK;
    w->has_reply = st == SRT_OK;
    if (st == SRT_OK) w->reply_pos = srt_session_pos(w->session);
    t1 = now_ms();
    e.prompt_ms = t1 - t0;
    if (st == SRT_ERR_CANCELLED) stop = STOP_CANCEL;
    else if (st == SRT_ERR_CONTEXT_FULL) { post_msg(w, EV_NOTE, turn, "The message does not fit into the context window."); stop = STOP_CONTEXT; }
    else if (st != SRT_OK) {
        char err[600];
        snprintf(err, sizeof err, "Cannot read the message: %s (%s)", srt_status_str(st), srt_last_error());
        post_msg(w, EV_NOTE, turn, err);
        stop = STOP_ERROR;
    }
    sink.w = w; sink.e = &e; sink.turn = turn; sink.n_gen = 0; sink.think = 0; sink.t1 = t1;
    srt_chat_reply_split(w->chat ? srt_chat_get_template(w->chat) : NULL, NULL, &kind);   /* (kind.reasons: a reasoning model's chat) */
    if (st == SRT_OK && !w->chat && cancel_requested(w)) stop = STOP_CANCEL;   /* srt_generate would clear the request */
    else if (st == SRT_OK && !w->chat) {   /* continued text, until EOS or the limit */
        srt_generate_desc g;
        srt_generate_result r;
        memset(&g, 0, sizeof g);
        g.max_tokens = w->max_tokens; g.stop_at_eos = w->ignore_eos ? -1 : 0;
        g.on_text = reply_on_text; g.user = &sink;
        g.draft_max = w->draft_max; g.draft_ngram = w->draft_ngram; g.draft = w->draft;
        st = srt_generate(w->session, &g, &r);
        n_gen = r.n_generated;
        e.n_passes = r.n_passes;
        if (r.stopped_by == 1) stop = STOP_EOS;
        else if (r.stopped_by == 3) stop = STOP_CANCEL;   /* the sequence is kept */
        else if (r.stopped_by == 4) { stop = STOP_CONTEXT; st = SRT_OK; }
        else if (st != SRT_OK) stop = STOP_ERROR;
    }
    while (st == SRT_OK && w->chat) {   /* a chat's reply, token by token */
        int32_t tok;
        int n, end;
        st = srt_chat_next(w->chat, &tok, &end);
        if (st == SRT_ERR_CONTEXT_FULL) { stop = STOP_CONTEXT; st = SRT_OK; break; }
        if (st == SRT_ERR_CANCELLED) { stop = STOP_CANCEL; break; }   /* the sequence is kept */
        if (st != SRT_OK) { stop = STOP_ERROR; break; }
        if (end == SRT_CHAT_END_LIMIT) break;
        n_gen++;
        if (end == SRT_CHAT_END_TURN) { stop = STOP_EOS; break; }
        sink.n_gen = n_gen;
        if (kind.reasons) { reply_parts(&sink, &r_done, &a_done); continue; }
        n = srt_utf8_stream_token(&us, w->model, tok, 0, txt, (int)sizeof txt);
        reply_text(&sink, txt, n);
    }
    if (w->chat && kind.reasons) reply_parts(&sink, &r_done, &a_done);
    else if (w->chat) {
        int n = srt_utf8_stream_flush(&us, txt, (int)sizeof txt);
        if (n > 0) reply_text(&sink, txt, n);
    }
    /* a request that came after the last check stays set in the session; the next feed clears it */
    SDL_LockMutex(w->mu);
    w->cancel_ok = 0;
    w->cancel_sent = 0;
    SDL_UnlockMutex(w->mu);
    calls = w->chat && (stop == STOP_EOS || stop == STOP_LIMIT);
done:
    e.kind = EV_DONE; e.turn = turn; e.text = NULL; e.len = 0;
    e.n_tokens = n_gen; e.decode_ms = now_ms() - (t0 + e.prompt_ms);
    e.stop = stop; e.n_prompt = n_prompt;
    e.pos = w->session ? srt_session_pos(w->session) : 0;
    e.n_ctx = w->session ? srt_session_n_ctx(w->session) : 0;
    post(w, &e);
    if (calls) worker_report_calls(w, turn);   /* after the reply's end: its notes follow it */
}

/* --- conversation files, as srt-chat's /save and /load write and read them: in a chat
   srt_chat_save / srt_chat_load, continued text is the session state alone. */
static void worker_chat_save(worker *w, int turn, const char *path) {
    event e;
    srt_status st;
    char err[1200];
    memset(&e, 0, sizeof e);
    e.kind = EV_FILE; e.turn = turn; e.op = CMD_CHAT_SAVE;
    if (!w->session) st = SRT_ERR_INVALID_ARG;
    else if (w->chat) st = srt_chat_save(w->chat, path);
    else st = srt_session_save(w->session, path);
    if (st != SRT_OK) {
        if (w->session) snprintf(err, sizeof err, "Cannot save the conversation: %s", srt_last_error());   /* it names the file */
        else snprintf(err, sizeof err, "Cannot save the conversation to %s: no model is loaded", path);
        e.text = dup_s(err);
    } else {
        e.result = FILE_DONE;
        e.text = dup_s(path);
        if (w->chat) srt_chat_messages(w->chat, &e.n_msgs);
        e.pos = srt_session_pos(w->session); e.n_ctx = srt_session_n_ctx(w->session);
    }
    e.len = e.text ? strlen(e.text) : 0;
    post(w, &e);
}
/* The conversation of PATH takes this one's place (srt_chat_load says what happens on an error). */
static void worker_chat_load(worker *w, int op, const char *path) {
    event e;
    srt_status st;
    int i, pos;
    char err[1200];
    memset(&e, 0, sizeof e);
    e.kind = EV_FILE; e.op = op;
    if (op == CMD_CHAT_OPEN && w->session) {     /* --chat FILE that is not there yet: a new chat */
        FILE *f = fopen(path, "rb");
        if (!f && errno == ENOENT) { e.result = FILE_NEW; e.text = dup_s(path); e.len = e.text ? strlen(e.text) : 0; post(w, &e); return; }
        if (f) fclose(f);
    }
    if (!w->session) st = SRT_ERR_INVALID_ARG;
    else st = w->chat ? srt_chat_load(w->chat, path) : srt_session_load(w->session, path);
    if (st != SRT_OK) {
        if (w->session) snprintf(err, sizeof err, "Cannot open the conversation: %s", srt_last_error());
        else snprintf(err, sizeof err, "Cannot open the conversation %s: no model is loaded", path);
        e.text = dup_s(err); e.len = e.text ? strlen(e.text) : 0;
        post(w, &e);
        return;
    }
    w->has_reply = 0;
    pos = srt_session_pos(w->session);
    if (w->chat) {                               /* the window shows them, then frees them */
        const srt_chat_message *m = srt_chat_messages(w->chat, &e.n_msgs);
        if (!(e.msgs = copy_messages(m, e.n_msgs))) e.n_msgs = 0;
    } else {                                     /* the text so far, as one bubble */
        text_buf t = {NULL, 0, 0};
        char piece[1024];
        for (i = 0; i < pos; i++) {
            int k = srt_token_bytes(w->model, srt_session_tokens(w->session)[i], piece, (int)sizeof piece);
            tb_add(&t, piece, (size_t)(k < (int)sizeof piece ? k : (int)sizeof piece));
        }
        e.shown = t.p ? t.p : dup_s("");
    }
    e.result = FILE_DONE;
    e.text = dup_s(path); e.len = e.text ? strlen(e.text) : 0;
    e.pos = pos; e.n_ctx = srt_session_n_ctx(w->session);
    post(w, &e);
    worker_report_calls(w, 0);   /* calls the conversation left to answer */
}

/* /undo in a chat: the last exchange (its message and reply) is taken back and the KV cache goes
   back to where it began, as srt-chat's /undo does; once, and not across a load. */
static void worker_undo(worker *w) {
    event e;
    memset(&e, 0, sizeof e);
    e.kind = EV_UNDONE;
    if (w->chat && srt_chat_undo(w->chat) == SRT_OK) e.result = 1;
    e.pos = w->session ? srt_session_pos(w->session) : 0;
    e.n_ctx = w->session ? srt_session_n_ctx(w->session) : 0;
    post(w, &e);
    if (e.result) worker_report_calls(w, 0);   /* the reply before it may call tools again */
}

static int worker_main(void *arg) {
    worker *w = (worker *)arg;
    for (;;) {
        command c;
        SDL_LockMutex(w->mu);
        while (w->n_cmds == 0) SDL_CondWait(w->cv, w->mu);
        c = w->cmds[0];
        memmove(w->cmds, w->cmds + 1, (size_t)(w->n_cmds - 1) * sizeof *w->cmds);
        w->n_cmds--;
        SDL_UnlockMutex(w->mu);
        if (c.kind == CMD_QUIT) { free(c.text); break; }
        if (c.kind == CMD_LOAD) worker_load(w, c.text);
        else if (c.kind == CMD_TURN) worker_turn(w, c.turn, c.text, 0);
        else if (c.kind == CMD_TOOL_TURN) worker_turn(w, c.turn, c.text, c.n_parts);
        else if (c.kind == CMD_RETRY) worker_turn(w, c.turn, NULL, 0);
        else if (c.kind == CMD_CHAT_OPEN || c.kind == CMD_CHAT_LOAD) worker_chat_load(w, c.kind, c.text);
        else if (c.kind == CMD_CHAT_SAVE) worker_chat_save(w, c.turn, c.text);
        else if (c.kind == CMD_UNDO) worker_undo(w);
        else if (c.kind == CMD_RESET && w->session) {
            w->has_reply = 0;
            if (w->chat) srt_chat_reset(w->chat);
            else srt_session_reset(w->session);   /* the sampler starts from its seed, as in a new session */
        }
        free(c.text);
    }
    worker_free_model(w);
    return 0;
}

/* ---------------------------------------------------------------- the window */
enum { ROLE_USER, ROLE_MODEL, ROLE_NOTE };
typedef struct message {
    int role, turn;
    text_buf text;
    text_buf think;           /* a reasoning model's reasoning, shown dim above its answer */
    int streaming, n_tokens, stop;
    int restored;             /* it came from a conversation file */
    double decode_ms;
    int cache_w, cache_h, cache_maxw;  /* layout of `text` (and `think`) at width cache_w and lengths cache_n, cache_tn */
    int think_h;              /* the reasoning's height within cache_h (0: none) */
    size_t cache_n, cache_tn;
    SDL_Rect bubble;          /* this frame, in window pixels */
} message;

typedef struct theme { SDL_Color bg, bar, text, dim, user, model, note, note_text, accent, input, border, error; } theme;
static const theme TH = {
    {30, 32, 38, 255}, {22, 23, 28, 255}, {230, 232, 236, 255}, {140, 146, 160, 255}, {44, 72, 112, 255},
    {44, 47, 56, 255}, {70, 40, 40, 255}, {255, 190, 170, 255}, {79, 140, 255, 255}, {38, 40, 48, 255},
    {70, 74, 88, 255}, {255, 120, 110, 255}};

struct ui {
    SDL_Window *win;
    SDL_Renderer *ren;
    font font;
    float scale, user_scale;  /* user_scale: --scale, 0 = from the display */
    int W, H;                 /* drawable size in pixels */
    float mouse_ratio;        /* drawable pixels per window coordinate */
    int mx, my;
    worker *w;
    SDL_Thread *thread;
    message *msgs; int n_msgs, cap_msgs;
    int turn, conv_start;     /* latest turn id; turns <= conv_start belong to a cleared chat */
    int n_calls, n_results;   /* --tools: the last reply's calls (EV_CALLS) and the results given so far (/tool) */
    text_buf results;         /* ... each ended by a NUL */
    int generating, loading, model_ok;
    const char *chat_file;    /* --chat FILE: opened after the model loads, saved after each reply */
    int chat_file_ok;         /* FILE may be written: it was opened, or it was not there */
    int chat_cmds, all_cmds;  /* commands the worker has not answered: those that change the transcript
                                 (/load, opening --chat FILE, /undo) / all of those and the saves */
    double load_progress, load_t0;
    model_facts facts;
    text_buf input;
    size_t caret;
    int input_scroll;
    int scroll, stick, content_h;
    SDL_Rect r_top, r_view, r_input, r_status, b_retry, b_new, b_stop, b_send, status_text;
    char error[1024];
    char flash[512];
    double flash_until;
    double tok_s;
    int ctx_pos, ctx_n;
    char status[1200];
    int quit;
    double caret_t0;
    int dirty, blink_phase;   /* redraw only when something changed */
};
static font *ui_font(ui *u) { return &u->font; }

static void set_color(ui *u, SDL_Color c) { SDL_SetRenderDrawColor(u->ren, c.r, c.g, c.b, c.a); }
static void fill(ui *u, SDL_Rect r, SDL_Color c) { set_color(u, c); SDL_RenderFillRect(u->ren, &r); }
static void fill_round(ui *u, SDL_Rect r, int rad, SDL_Color c) {
    int y;
    if (rad * 2 > r.h) rad = r.h / 2;
    if (rad * 2 > r.w) rad = r.w / 2;
    set_color(u, c);
    for (y = 0; y < rad; y++) {               /* corner rows, inset by the circle */
        float dy = (float)rad - (float)y - 0.5f;
        int dx = rad - (int)(sqrtf((float)(rad * rad) - dy * dy) + 0.5f);
        SDL_Rect a, b;
        a.x = r.x + dx; a.y = r.y + y; a.w = r.w - 2 * dx; a.h = 1;
        b = a; b.y = r.y + r.h - 1 - y;
        SDL_RenderFillRect(u->ren, &a);
        SDL_RenderFillRect(u->ren, &b);
    }
    {
        SDL_Rect m;
        m.x = r.x; m.y = r.y + rad; m.w = r.w; m.h = r.h - 2 * rad;
        SDL_RenderFillRect(u->ren, &m);
    }
}
static void draw_glyph(ui *u, glyph *g, int size, float pen, int base, SDL_Color c) {
    SDL_Rect src, dst;
    if (g->missing) {                         /* the replacement box */
        font *f = &u->font;
        int bw = (int)(g->adv * 0.8f), bh = (int)(f->px[size] * 0.7f);
        SDL_Rect r;
        if (bw <= 0) return;
        r.x = (int)(pen + g->adv * 0.1f); r.y = base - bh; r.w = bw; r.h = bh;
        set_color(u, c);
        SDL_RenderDrawRect(u->ren, &r);
        return;
    }
    if (g->w == 0) return;
    src.x = g->x; src.y = g->y; src.w = g->w; src.h = g->h;
    dst.x = (int)floorf(pen + 0.5f) + g->xoff; dst.y = base + g->yoff; dst.w = g->w; dst.h = g->h;
    SDL_SetTextureColorMod(u->font.atlas, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(u->font.atlas, c.a);
    SDL_RenderCopy(u->ren, u->font.atlas, &src, &dst);
}
/* Draws a one-line (or wrapped, if w > 0) string; returns its width. */
static int text_at(ui *u, int size, int x, int y, int w, const char *s, SDL_Color c) {
    layout L;
    memset(&L, 0, sizeof L);
    L.size = size; L.x = x; L.y = y; L.w = w > 0 ? w : 1 << 30; L.color = c; L.draw = 1;
    L.clip_y0 = 0; L.clip_y1 = 1 << 30; L.caret = (size_t)-1;
    layout_text(u, &L, s, strlen(s));
    return L.max_w;
}
static int text_width(ui *u, int size, const char *s) {
    layout L;
    memset(&L, 0, sizeof L);
    L.size = size; L.w = 1 << 30; L.caret = (size_t)-1;
    layout_text(u, &L, s, strlen(s));
    return L.max_w;
}
static int px(ui *u, float v) { return (int)(v * u->scale + 0.5f); }
static int inside(SDL_Rect r, int x, int y) { return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h; }

static void button(ui *u, SDL_Rect r, const char *label, int enabled, int primary) {
    int hover = enabled && inside(r, u->mx, u->my), tw = text_width(u, FONT_BODY, label);
    SDL_Color bg = primary ? TH.accent : TH.model, fg = enabled ? TH.text : TH.dim;
    if (!enabled) bg = TH.input;
    else if (hover) { bg.r = (Uint8)(bg.r + (255 - bg.r) / 6); bg.g = (Uint8)(bg.g + (255 - bg.g) / 6); bg.b = (Uint8)(bg.b + (255 - bg.b) / 6); }
    fill_round(u, r, px(u, 6), bg);
    text_at(u, FONT_BODY, r.x + (r.w - tw) / 2, r.y + (r.h - u->font.line_h[FONT_BODY]) / 2 + px(u, 1), 0, label, fg);
}

static message *add_message(ui *u, int role, int turn, const char *text) {
    message *m;
    if (u->n_msgs == u->cap_msgs) {
        int cap = u->cap_msgs ? 2 * u->cap_msgs : 32;
        message *nm = (message *)realloc(u->msgs, (size_t)cap * sizeof *nm);
        if (!nm) return NULL;
        u->msgs = nm; u->cap_msgs = cap;
    }
    m = &u->msgs[u->n_msgs++];
    memset(m, 0, sizeof *m);
    m->role = role; m->turn = turn;
    if (text) tb_add(&m->text, text, strlen(text));
    return m;
}
static void free_message(message *m) { tb_free(&m->text); tb_free(&m->think); }
static void clear_messages(ui *u) {
    int i;
    for (i = 0; i < u->n_msgs; i++) free_message(&u->msgs[i]);
    u->n_msgs = 0;
    u->scroll = 0; u->stick = 1;
}
static void script_log(const char *prefix, const char *text);
static void flash(ui *u, const char *msg) {
    snprintf(u->flash, sizeof u->flash, "%s", msg);
    u->flash_until = now_ms() + 2500;
    script_log("flash: ", msg);
}
/* A note in the transcript (errors the user must see), also on stderr and in the script log. */
static void add_note(ui *u, const char *msg) {
    add_message(u, ROLE_NOTE, 0, msg);
    u->stick = 1;
    fprintf(stderr, "srt-chat-sdl: %s\n", msg);
    script_log("note: ", msg);
}

/* --- geometry */
#define MAX_INPUT_LINES 6
static int column_w(ui *u) { int w = u->W - 2 * px(u, 20); return w > px(u, 860) ? px(u, 860) : w; }

static void ui_layout(ui *u) {
    int lh = u->font.line_h[FONT_BODY], in_h, bw = px(u, 96), bh = px(u, 30), cw = column_w(u), cx = (u->W - cw) / 2;
    layout L;
    memset(&L, 0, sizeof L);
    L.size = FONT_BODY; L.w = cw - bw - px(u, 8) - 2 * px(u, 12); L.caret = (size_t)-1;
    in_h = layout_text(u, &L, u->input.p ? u->input.p : "", u->input.n);
    if (in_h > MAX_INPUT_LINES * lh) in_h = MAX_INPUT_LINES * lh;
    u->r_top.x = 0; u->r_top.y = 0; u->r_top.w = u->W; u->r_top.h = px(u, 46);
    u->r_status.x = 0; u->r_status.h = px(u, 26); u->r_status.y = u->H - u->r_status.h; u->r_status.w = u->W;
    u->r_input.h = in_h + px(u, 20); u->r_input.x = cx; u->r_input.w = cw - bw - px(u, 8);
    u->r_input.y = u->r_status.y - px(u, 12) - u->r_input.h;
    u->b_send.w = bw; u->b_send.h = bh > u->r_input.h ? u->r_input.h : bh;
    u->b_send.x = cx + cw - bw; u->b_send.y = u->r_input.y + u->r_input.h - u->b_send.h;
    u->r_view.x = 0; u->r_view.y = u->r_top.h; u->r_view.w = u->W; u->r_view.h = u->r_input.y - px(u, 12) - u->r_top.h;
    if (u->r_view.h < 0) u->r_view.h = 0;
    u->b_stop.w = bw; u->b_stop.h = bh; u->b_stop.x = u->W - px(u, 12) - bw; u->b_stop.y = (u->r_top.h - bh) / 2;
    u->b_new = u->b_stop; u->b_new.x -= bw + px(u, 8);
    u->b_retry = u->b_new; u->b_retry.x -= bw + px(u, 8);
}

/* What a bubble shows: a reply without the spaces and newlines it starts with. */
static const char *shown_text(const message *m, size_t *n) {
    const char *p = m->text.p ? m->text.p : "";
    size_t k = 0;
    if (m->role == ROLE_MODEL) while (k < m->text.n && (p[k] == ' ' || p[k] == '\n')) k++;
    *n = m->text.n - k;
    return p + k;
}

/* Height of one message in the transcript (label, bubble, meta line) at the current width. */
static void message_measure(ui *u, message *m) {
    int cw = column_w(u), maxw = m->role == ROLE_NOTE ? cw : (int)(cw * (m->role == ROLE_USER ? 0.75f : 0.9f)) - 2 * px(u, 12);
    if (m->cache_w != maxw || m->cache_n != m->text.n || m->cache_tn != m->think.n || m->cache_h == 0) {
        layout L;
        memset(&L, 0, sizeof L);
        const char *t;
        size_t n;
        int tw = 0;
        m->think_h = 0;
        if (m->think.n) {   /* the reasoning above the answer, small and dim */
            L.size = FONT_SMALL; L.w = maxw; L.caret = (size_t)-1;
            m->think_h = layout_text(u, &L, m->think.p, m->think.n) + px(u, 8);
            tw = L.max_w;
            memset(&L, 0, sizeof L);
        }
        L.size = FONT_BODY; L.w = maxw; L.caret = (size_t)-1;
        t = shown_text(m, &n);
        m->cache_h = m->think_h + layout_text(u, &L, t, n);
        m->cache_maxw = L.max_w > tw ? L.max_w : tw;
        m->cache_w = maxw; m->cache_n = m->text.n; m->cache_tn = m->think.n;
    }
}

static void draw_transcript(ui *u) {
    int i, y, cw = column_w(u), cx = (u->W - cw) / 2, pad = px(u, 12), vpad = px(u, 8), slh = u->font.line_h[FONT_SMALL], max_scroll;
    /* positions: content y from 0; the view shows [scroll, scroll + view.h) */
    y = px(u, 14);
    for (i = 0; i < u->n_msgs; i++) {
        message *m = &u->msgs[i];
        message_measure(u, m);
        m->bubble.y = y + (m->role == ROLE_NOTE ? 0 : slh + px(u, 3));
        m->bubble.h = m->cache_h + 2 * vpad;
        m->bubble.w = (m->cache_maxw > px(u, 24) ? m->cache_maxw : px(u, 24)) + 2 * pad;
        if (m->role == ROLE_NOTE) m->bubble.w = cw;
        m->bubble.x = m->role == ROLE_USER ? cx + cw - m->bubble.w : cx;
        y = m->bubble.y + m->bubble.h + (m->role == ROLE_MODEL ? slh + px(u, 2) : 0) + px(u, 12);
    }
    u->content_h = y;
    max_scroll = u->content_h - u->r_view.h > 0 ? u->content_h - u->r_view.h : 0;
    if (u->stick || u->scroll > max_scroll) u->scroll = max_scroll;
    if (u->scroll < 0) u->scroll = 0;
    u->stick = u->scroll >= max_scroll;
    SDL_RenderSetClipRect(u->ren, &u->r_view);
    for (i = 0; i < u->n_msgs; i++) {
        message *m = &u->msgs[i];
        int dy = u->r_view.y - u->scroll;
        SDL_Rect b = m->bubble;
        layout L;
        const char *t;
        size_t tn;
        b.y += dy;
        m->bubble.y = b.y;                     /* window pixels from now on (script log, copy) */
        if (b.y + b.h + 2 * slh < u->r_view.y || b.y - 2 * slh > u->r_view.y + u->r_view.h) continue;
        if (m->role == ROLE_USER) {
            int tw = text_width(u, FONT_SMALL, "You");
            text_at(u, FONT_SMALL, cx + cw - tw - px(u, 4), b.y - slh - px(u, 3), 0, "You", TH.dim);
        } else if (m->role == ROLE_MODEL) {
            char who[300];
            snprintf(who, sizeof who, "%s%s", u->facts.file[0] ? u->facts.file : "model", strcmp(u->facts.chat, "continuation") ? "" : "  (continues your text)");
            text_at(u, FONT_SMALL, cx + px(u, 4), b.y - slh - px(u, 3), 0, who, TH.dim);
        }
        fill_round(u, b, px(u, 10), m->role == ROLE_USER ? TH.user : m->role == ROLE_MODEL ? TH.model : TH.note);
        if (m->think_h) {
            memset(&L, 0, sizeof L);
            L.size = FONT_SMALL; L.x = b.x + pad; L.y = b.y + vpad; L.w = m->cache_w; L.draw = 1; L.color = TH.dim; L.caret = (size_t)-1;
            L.clip_y0 = u->r_view.y; L.clip_y1 = u->r_view.y + u->r_view.h;
            layout_text(u, &L, m->think.p, m->think.n);
        }
        memset(&L, 0, sizeof L);
        L.size = FONT_BODY; L.x = b.x + pad; L.y = b.y + vpad + m->think_h; L.w = m->cache_w; L.draw = 1;
        L.color = m->role == ROLE_NOTE ? TH.note_text : TH.text;
        t = shown_text(m, &tn);
        L.clip_y0 = u->r_view.y; L.clip_y1 = u->r_view.y + u->r_view.h; L.caret = m->streaming ? tn : (size_t)-1;
        if (m->role == ROLE_NOTE) L.w = cw - 2 * pad;
        layout_text(u, &L, t, tn);
        if (m->streaming) {                    /* a blinking block where the next token goes */
            SDL_Rect c;
            c.x = L.x + L.caret_x + px(u, 2); c.y = L.y + L.caret_y + px(u, 3);
            c.w = px(u, 8); c.h = u->font.line_h[FONT_BODY] - px(u, 6);
            if (fmod((now_ms() - u->caret_t0) / 500.0, 2.0) < 1.0) fill(u, c, TH.accent);
        }
        if (m->role == ROLE_MODEL) {
            char meta[160];
            if (m->restored) snprintf(meta, sizeof meta, "from the conversation file");
            else if (m->streaming && m->n_tokens == 0) snprintf(meta, sizeof meta, "reading the prompt...");
            else if (m->streaming) snprintf(meta, sizeof meta, "%d tokens, %.1f tok/s", m->n_tokens, m->decode_ms > 0 ? m->n_tokens * 1000.0 / m->decode_ms : 0.0);
            else snprintf(meta, sizeof meta, "%d tokens, %.1f tok/s%s", m->n_tokens, m->decode_ms > 0 ? m->n_tokens * 1000.0 / m->decode_ms : 0.0,
                          m->stop == STOP_CANCEL ? " - stopped" : m->stop == STOP_CONTEXT ? " - context full" : m->stop == STOP_LIMIT ? " - length limit" : "");
            text_at(u, FONT_SMALL, b.x + px(u, 4), b.y + b.h + px(u, 2), 0, meta, TH.dim);
        }
    }
    if (u->n_msgs == 0) {                      /* the empty view says what to do */
        char line[1200];
        int cy = u->r_view.y + u->r_view.h / 2 - 2 * u->font.line_h[FONT_BODY];
        if (u->loading) {
            SDL_Rect bar, done;
            snprintf(line, sizeof line, "Loading %s ... %d%%", u->facts.file, (int)(u->load_progress * 100));
            text_at(u, FONT_BODY, (u->W - text_width(u, FONT_BODY, line)) / 2, cy, 0, line, TH.text);
            bar.w = px(u, 320); bar.h = px(u, 8); bar.x = (u->W - bar.w) / 2; bar.y = cy + u->font.line_h[FONT_BODY] + px(u, 10);
            fill_round(u, bar, px(u, 4), TH.input);
            done = bar; done.w = (int)(bar.w * u->load_progress);
            if (done.w > 0) fill_round(u, done, px(u, 4), TH.accent);
        } else if (!u->model_ok) {
            const char *l1 = "Drop a .srt model file onto this window", *l2 = "(or start with --model PATH)";
            text_at(u, FONT_BODY, (u->W - text_width(u, FONT_BODY, l1)) / 2, cy, 0, l1, TH.text);
            text_at(u, FONT_SMALL, (u->W - text_width(u, FONT_SMALL, l2)) / 2, cy + u->font.line_h[FONT_BODY] + px(u, 4), 0, l2, TH.dim);
        } else {
            snprintf(line, sizeof line, "%s is ready (%s). Type a message below.", u->facts.file,
                     strcmp(u->facts.chat, "continuation") ? "chat" : "no chat template: it continues your text");
            text_at(u, FONT_BODY, (u->W - text_width(u, FONT_BODY, line)) / 2, cy, 0, line, TH.dim);
        }
        if (u->error[0]) {
            int ew = column_w(u);
            layout L;
            memset(&L, 0, sizeof L);
            L.size = FONT_BODY; L.x = (u->W - ew) / 2; L.y = cy + 3 * u->font.line_h[FONT_BODY]; L.w = ew; L.draw = 1;
            L.color = TH.error; L.clip_y1 = 1 << 30; L.caret = (size_t)-1;
            layout_text(u, &L, u->error, strlen(u->error));
        }
    }
    SDL_RenderSetClipRect(u->ren, NULL);
}

static void make_status(ui *u) {
    char tail[1100];
    const char *state = u->loading ? "Loading" : !u->model_ok ? "No model" : u->generating ? "Generating" : u->chat_cmds ? "Loading the conversation" : "Ready";
    if (u->model_ok)
    {
        char where[200];
        if (u->facts.device[0]) snprintf(where, sizeof where, "%s", u->facts.device);
        else snprintf(where, sizeof where, "%d threads (%s)", u->facts.threads, u->w->cores_name);
        snprintf(tail, sizeof tail, "%s  |  %s %s  |  context %d/%d  |  %.1f tok/s  |  %s  |  %s",
                 u->facts.file, u->facts.arch, u->facts.format, u->ctx_pos, u->ctx_n ? u->ctx_n : u->facts.n_ctx, u->tok_s,
                 where, u->facts.chat);
    }
    else if (u->loading) snprintf(tail, sizeof tail, "%s  |  %d%%", u->facts.file, (int)(u->load_progress * 100));
    else snprintf(tail, sizeof tail, "drop a .srt file onto the window");
    snprintf(u->status, sizeof u->status, "%s  |  %s", state, tail);
}

static void ui_draw(ui *u) {
    int lh = u->font.line_h[FONT_BODY];
    ui_layout(u);
    set_color(u, TH.bg);
    SDL_RenderClear(u->ren);
    draw_transcript(u);
    /* top bar */
    fill(u, u->r_top, TH.bar);
    {
        int x = px(u, 16), y = (u->r_top.h - lh) / 2;
        x += text_at(u, FONT_BODY, x, y, 0, "sparsert chat", TH.text) + px(u, 14);
        text_at(u, FONT_SMALL, x, y + px(u, 3), 0, u->model_ok ? u->facts.file : "offline, on this computer", TH.dim);
    }
    button(u, u->b_retry, "Retry", u->model_ok && !u->loading && !u->generating && u->turn > u->conv_start, 0);
    button(u, u->b_new, "New chat", u->model_ok && !u->loading, 0);
    button(u, u->b_stop, "Stop", u->generating, 0);
    /* input box */
    {
        SDL_Rect r = u->r_input, in;
        int pad = px(u, 12), caret_visible;
        layout L;
        fill_round(u, r, px(u, 10), TH.border);
        in.x = r.x + 1; in.y = r.y + 1; in.w = r.w - 2; in.h = r.h - 2;
        fill_round(u, in, px(u, 10), TH.input);
        memset(&L, 0, sizeof L);
        L.size = FONT_BODY; L.x = r.x + pad; L.w = r.w - 2 * pad; L.caret = u->caret; L.color = TH.text;
        layout_text(u, &L, u->input.p ? u->input.p : "", u->input.n);          /* find the caret */
        if (L.caret_y - u->input_scroll > r.h - px(u, 20) - lh) u->input_scroll = L.caret_y - (r.h - px(u, 20) - lh);
        if (L.caret_y < u->input_scroll) u->input_scroll = L.caret_y;
        L.y = r.y + px(u, 10) - u->input_scroll; L.draw = 1;
        L.clip_y0 = r.y + px(u, 4); L.clip_y1 = r.y + r.h - lh;
        SDL_RenderSetClipRect(u->ren, &in);
        if (u->input.n == 0)
            text_at(u, FONT_BODY, L.x, L.y, 0, u->model_ok ? "Message  (Enter sends, Shift+Enter new line, Esc stops)" : "Load a model first", TH.dim);
        else layout_text(u, &L, u->input.p, u->input.n);
        caret_visible = fmod((now_ms() - u->caret_t0) / 500.0, 2.0) < 1.0;
        if (caret_visible) {
            SDL_Rect c;
            c.x = L.x + L.caret_x; c.y = L.y + L.caret_y + px(u, 2); c.w = px(u, 2) > 1 ? px(u, 2) : 1; c.h = lh - px(u, 4);
            fill(u, c, TH.text);
        }
        SDL_RenderSetClipRect(u->ren, NULL);
    }
    button(u, u->b_send, u->generating ? "Stop" : "Send", u->generating || (u->model_ok && u->input.n > 0), 1);
    /* status line */
    fill(u, u->r_status, TH.bar);
    make_status(u);
    {
        int x = px(u, 12), y = u->r_status.y + (u->r_status.h - u->font.line_h[FONT_SMALL]) / 2;
        int tw = text_at(u, FONT_SMALL, x, y, 0, u->status, TH.dim);
        u->status_text.x = x; u->status_text.y = y; u->status_text.w = tw; u->status_text.h = u->font.line_h[FONT_SMALL];
    }
    /* a short notice ("Copied") over the bottom of the transcript */
    if (u->flash[0] && now_ms() < u->flash_until) {
        int tw = text_width(u, FONT_SMALL, u->flash);
        SDL_Rect r;
        r.w = tw + px(u, 24); r.h = u->font.line_h[FONT_SMALL] + px(u, 12);
        r.x = (u->W - r.w) / 2; r.y = u->r_view.y + u->r_view.h - r.h - px(u, 6);
        fill_round(u, r, px(u, 8), TH.border);
        text_at(u, FONT_SMALL, r.x + px(u, 12), r.y + px(u, 6), 0, u->flash, TH.text);
    }
}

/* --- actions */
static void ui_stop(ui *u) {
    worker *w = u->w;
    SDL_LockMutex(w->mu);
    if (w->cancel_ok && !w->cancel_sent && w->session) { srt_session_cancel(w->session); w->cancel_sent = 1; }
    SDL_UnlockMutex(w->mu);
}
static void file_cmd(ui *u, int kind, int auto_save, const char *path) {
    send_cmd(u->w, kind, auto_save, path);
    u->all_cmds++;
    if (kind != CMD_CHAT_SAVE) u->chat_cmds++;   /* CMD_CHAT_OPEN, CMD_CHAT_LOAD, CMD_UNDO */
}
/* After each reply, Retry, /undo and New chat the conversation goes to --chat FILE, unless FILE was there
   but could not be opened (it is kept as it is, until /save FILE overwrites it). */
static void autosave(ui *u) {
    if (u->chat_file && u->chat_file_ok && u->model_ok) file_cmd(u, CMD_CHAT_SAVE, 1, u->chat_file);
}
static int is_chat(ui *u) { return strcmp(u->facts.chat, "continuation") != 0; }
static void ui_new_chat(ui *u);
static void ui_retry(ui *u);
/* A line srt-chat reads as a command is one here too: /save FILE, /load FILE and /reset, and in a
   chat /retry and /undo (the last exchange taken back); returns 0 for anything else (a message,
   as srt-chat sends it). */
/* /tool RESULT: one call's result; when every call of the last reply has one, they go as one turn,
   shown as one bubble (so that /undo takes them back together, as the chat does). */
static void ui_tool_result(ui *u, const char *result) {
    text_buf shown = {NULL, 0, 0};
    const char *p;
    int i;
    char msg[80];
    if (u->generating) { flash(u, "Wait for the reply, or press Esc to stop it"); return; }
    if (!u->n_calls) { flash(u, "The last reply calls no tool"); return; }
    if (!tb_add(&u->results, result, strlen(result) + 1)) return;
    if (++u->n_results < u->n_calls) {
        snprintf(msg, sizeof msg, "Result %d of %d kept: /tool the next one", u->n_results, u->n_calls);
        flash(u, msg);
        return;
    }
    tb_add(&shown, u->n_results > 1 ? "Tool results:" : "Tool result:", u->n_results > 1 ? 13 : 12);
    for (i = 0, p = u->results.p; i < u->n_results; i++, p += strlen(p) + 1) { tb_add(&shown, u->n_results > 1 ? "\n" : " ", 1); tb_add(&shown, p, strlen(p)); }
    u->turn++;
    add_message(u, ROLE_USER, u->turn, shown.p);
    {
        message *m = add_message(u, ROLE_MODEL, u->turn, NULL);
        if (m) m->streaming = 1;
    }
    send_cmd_n(u->w, CMD_TOOL_TURN, u->turn, u->results.p, u->results.n, u->n_results);
    tb_free(&shown);
    tb_free(&u->results);
    u->n_results = u->n_calls = 0;
    u->generating = 1; u->stick = 1;
}
static int ui_command(ui *u, const char *text) {
    if (strchr(text, '\n')) return 0;
    if (u->w->tools && is_chat(u) && !strncmp(text, "/tool ", 6) && text[6]) { ui_tool_result(u, text + 6); return 1; }
    if (!strncmp(text, "/save ", 6) && text[6]) file_cmd(u, CMD_CHAT_SAVE, 0, text + 6);
    else if (!strncmp(text, "/load ", 6) && text[6]) file_cmd(u, CMD_CHAT_LOAD, 0, text + 6);
    else if (!strcmp(text, "/reset")) ui_new_chat(u);
    else if (is_chat(u) && !strcmp(text, "/retry")) ui_retry(u);
    else if (is_chat(u) && !strcmp(text, "/undo")) file_cmd(u, CMD_UNDO, 0, NULL);
    else return 0;
    return 1;
}
static void ui_send(ui *u) {
    size_t a = 0, b = u->input.n;
    char *text;
    if (u->generating) { flash(u, "Wait for the reply, or press Esc to stop it"); return; }
    if (!u->model_ok || u->loading) { flash(u, u->loading ? "The model is still loading" : "Load a model first: drop a .srt file here"); return; }
    if (u->chat_cmds) { flash(u, "The conversation is being loaded: a moment"); return; }
    while (a < b && (u->input.p[a] == ' ' || u->input.p[a] == '\n')) a++;
    while (b > a && (u->input.p[b - 1] == ' ' || u->input.p[b - 1] == '\n')) b--;
    if (a == b) return;
    text = dup_n(u->input.p + a, b - a);
    if (!text) return;
    if (text[0] == '/' && ui_command(u, text)) {
        free(text);
        u->input.n = 0; if (u->input.p) u->input.p[0] = 0;
        u->caret = 0; u->input_scroll = 0;
        return;
    }
    u->turn++;
    add_message(u, ROLE_USER, u->turn, text);
    {
        message *m = add_message(u, ROLE_MODEL, u->turn, NULL);
        if (m) m->streaming = 1;
    }
    tb_free(&u->results);   /* a message instead of the results: the calls go unanswered */
    u->n_results = u->n_calls = 0;
    send_cmd(u->w, CMD_TURN, u->turn, text);
    free(text);
    u->input.n = 0; if (u->input.p) u->input.p[0] = 0;
    u->caret = 0; u->input_scroll = 0;
    u->generating = 1; u->stick = 1;
}
/* Regenerate: the last reply again, from the same prompt (another draw unless --temp 0). */
static void ui_retry(ui *u) {
    message *m = NULL;
    int k;
    if (u->generating) { flash(u, "Wait for the reply, or press Esc to stop it"); return; }
    if (!u->model_ok || u->loading) return;
    if (u->chat_cmds) { flash(u, "The conversation is being loaded: a moment"); return; }
    for (k = u->n_msgs - 1; k >= 0 && u->turn > u->conv_start; k--)
        if (u->msgs[k].role == ROLE_MODEL && u->msgs[k].turn == u->turn) { m = &u->msgs[k]; break; }
    if (!m) { flash(u, "There is no reply to regenerate"); return; }
    m->text.n = 0; if (m->text.p) m->text.p[0] = 0;
    m->think.n = 0; if (m->think.p) m->think.p[0] = 0;
    m->streaming = 1; m->n_tokens = 0; m->decode_ms = 0;
    send_cmd(u->w, CMD_RETRY, u->turn, NULL);
    u->generating = 1; u->stick = 1;
}
static void ui_new_chat(ui *u) {
    if (!u->model_ok) return;
    if (u->chat_cmds) { flash(u, "The conversation is being loaded: a moment"); return; }
    if (u->generating) ui_stop(u);
    clear_messages(u);
    u->conv_start = u->turn;
    u->ctx_pos = 0;
    send_cmd(u->w, CMD_RESET, 0, NULL);
    autosave(u);
}
static void ui_load(ui *u, const char *path) {
    if (u->generating || u->loading || u->chat_cmds) { flash(u, "Busy: stop the generation first"); return; }
    clear_messages(u);
    u->conv_start = u->turn;
    u->loading = 1; u->model_ok = 0; u->load_progress = 0; u->load_t0 = now_ms(); u->error[0] = 0;
    u->ctx_pos = 0; u->ctx_n = 0; u->tok_s = 0;
    snprintf(u->facts.file, sizeof u->facts.file, "%s", base_name(path));
    send_cmd(u->w, CMD_LOAD, 0, path);
}
static void copy_text(ui *u, const char *text, const char *what) {
    char msg[96];
    if (!text || !text[0]) { flash(u, "Nothing to copy yet"); return; }
    SDL_SetClipboardText(text);
    snprintf(msg, sizeof msg, "Copied %s", what);
    flash(u, msg);
}
static void copy_last_reply(ui *u) {
    int i;
    for (i = u->n_msgs - 1; i >= 0; i--)
        if (u->msgs[i].role == ROLE_MODEL && u->msgs[i].text.n) { copy_text(u, u->msgs[i].text.p, "the last reply"); return; }
    flash(u, "Nothing to copy yet");
}
static void copy_all(ui *u) {
    text_buf t = {NULL, 0, 0};
    int i;
    for (i = 0; i < u->n_msgs; i++) {
        const char *who = u->msgs[i].role == ROLE_USER ? "You: " : u->msgs[i].role == ROLE_MODEL ? "Model: " : "Note: ";
        tb_add(&t, who, strlen(who));
        if (u->msgs[i].text.n) tb_add(&t, u->msgs[i].text.p, u->msgs[i].text.n);
        tb_add(&t, "\n\n", 2);
    }
    copy_text(u, t.p, "the conversation");
    tb_free(&t);
}
static void input_insert(ui *u, const char *s, size_t n) {
    text_buf *b = &u->input;
    if (!tb_add(b, s, n)) return;             /* grows; then move the tail */
    memmove(b->p + u->caret + n, b->p + u->caret, b->n - n - u->caret);
    memcpy(b->p + u->caret, s, n);
    u->caret += n;
    u->caret_t0 = now_ms();
}
static void input_paste(ui *u) {
    char *t = SDL_GetClipboardText(), *r, *q;
    if (!t) return;
    for (r = q = t; *r; r++) if (*r != '\r') *q++ = *r;   /* CRLF -> LF */
    *q = 0;
    input_insert(u, t, strlen(t));
    SDL_free(t);
}
static void scroll_by(ui *u, int dy) {
    u->scroll += dy;
    if (u->scroll < 0) u->scroll = 0;
    u->stick = 0;                              /* draw_transcript clamps and re-sticks at the bottom */
    if (u->scroll >= u->content_h - u->r_view.h) u->stick = 1;
}

static void ui_key(ui *u, SDL_Keycode k, Uint16 mod) {
    int ctrl = (mod & (KMOD_CTRL | KMOD_GUI)) != 0, shift = (mod & KMOD_SHIFT) != 0;
    text_buf *b = &u->input;
    u->caret_t0 = now_ms();
    switch (k) {
    case SDLK_RETURN: case SDLK_KP_ENTER:
        if (shift) input_insert(u, "\n", 1);
        else if (u->generating) flash(u, "Wait for the reply, or press Esc to stop it");
        else ui_send(u);
        break;
    case SDLK_ESCAPE: if (u->generating) ui_stop(u); break;
    case SDLK_BACKSPACE:
        if (u->caret > 0) {
            size_t p = utf8_prev(b->p, u->caret);
            memmove(b->p + p, b->p + u->caret, b->n - u->caret + 1);
            b->n -= u->caret - p; u->caret = p;
        }
        break;
    case SDLK_DELETE:
        if (u->caret < b->n) {
            size_t p = u->caret;
            utf8_next(b->p, b->n, &p);
            memmove(b->p + u->caret, b->p + p, b->n - p + 1);
            b->n -= p - u->caret;
        }
        break;
    case SDLK_LEFT: u->caret = utf8_prev(b->p, u->caret); break;
    case SDLK_RIGHT: if (u->caret < b->n) utf8_next(b->p, b->n, &u->caret); break;
    case SDLK_HOME:
        if (ctrl) { u->scroll = 0; u->stick = 0; }
        else while (u->caret > 0 && b->p[u->caret - 1] != '\n') u->caret--;
        break;
    case SDLK_END:
        if (ctrl) u->stick = 1;
        else while (u->caret < b->n && b->p[u->caret] != '\n') u->caret++;
        break;
    case SDLK_PAGEUP: scroll_by(u, -(u->r_view.h * 9 / 10)); break;
    case SDLK_PAGEDOWN: scroll_by(u, u->r_view.h * 9 / 10); break;
    case SDLK_v: if (ctrl) input_paste(u); break;
    case SDLK_c: if (ctrl) { if (shift) copy_all(u); else copy_last_reply(u); } break;
    case SDLK_n: if (ctrl) ui_new_chat(u); break;
    case SDLK_r: if (ctrl) ui_retry(u); break;
    case SDLK_q: if (ctrl) u->quit = 1; break;
    default: break;
    }
}

static void ui_click(ui *u, int x, int y, int button_no) {
    int i;
    if (button_no == SDL_BUTTON_RIGHT) {       /* right click on a message copies it */
        for (i = 0; i < u->n_msgs; i++)
            if (inside(u->msgs[i].bubble, x, y) && inside(u->r_view, x, y)) { copy_text(u, u->msgs[i].text.p, "the message"); return; }
        return;
    }
    if (inside(u->b_new, x, y)) ui_new_chat(u);
    else if (inside(u->b_retry, x, y)) ui_retry(u);
    else if (inside(u->b_stop, x, y)) ui_stop(u);
    else if (inside(u->b_send, x, y)) { if (u->generating) ui_stop(u); else ui_send(u); }
}

/* EV_FILE: a conversation file was saved, or opened (its messages become the transcript), or not. */
static void ui_on_file(ui *u, const event *e) {
    char msg[1400];
    const char *path = e->text ? e->text : "";
    int i, n = 0;
    u->all_cmds--;
    if (e->op != CMD_CHAT_SAVE) u->chat_cmds--;
    if (e->result == FILE_FAILED) {
        if (e->op == CMD_CHAT_OPEN) {
            u->chat_file_ok = 0;
            snprintf(msg, sizeof msg, "%s. This chat starts empty and is not saved to %s: that file stays as it is "
                     "(/save OTHER-FILE keeps this chat elsewhere; /save %s overwrites it and saves there again).", path,
                     u->chat_file ? u->chat_file : "it", u->chat_file ? u->chat_file : "FILE");
            add_note(u, msg);
        } else add_note(u, path);
        return;
    }
    if (e->op == CMD_CHAT_SAVE) {
        if (!e->turn && u->chat_file && !strcmp(path, u->chat_file)) u->chat_file_ok = 1;   /* the user chose to overwrite it */
        if (is_chat(u)) snprintf(msg, sizeof msg, "saved to %s: %d messages, %d tokens", path, e->n_msgs, e->pos);
        else snprintf(msg, sizeof msg, "saved to %s: %d tokens", path, e->pos);
        script_log("file: ", msg);
        if (!e->turn) { msg[0] = 'S'; flash(u, msg); }   /* srt-chat's words: "(saved to FILE: ...)" */
        return;
    }
    if (e->result == FILE_NEW) {
        u->chat_file_ok = 1;
        script_log("file: new ", path);
        snprintf(msg, sizeof msg, "A new chat: it is saved to %s", path);
        flash(u, msg);
        return;
    }
    if (e->op == CMD_CHAT_OPEN) u->chat_file_ok = 1;
    clear_messages(u);
    if (e->shown && e->shown[0]) {               /* continued text: all of it in one bubble */
        message *m = add_message(u, ROLE_MODEL, ++u->turn, e->shown);
        if (m) m->restored = 1;
    }
    for (i = 0; i < e->n_msgs; i++) {
        const char *role = e->msgs[i].role;
        message *m = NULL;
        n++;
        if (!strcmp(role, "user")) m = add_message(u, ROLE_USER, ++u->turn, e->msgs[i].content);
        else if (!strcmp(role, "tool")) {   /* a turn's tool results in one bubble, as they were sent */
            text_buf shown = {NULL, 0, 0};
            int k, last = i;
            while (last + 1 < e->n_msgs && !strcmp(e->msgs[last + 1].role, "tool")) last++;
            tb_add(&shown, last > i ? "Tool results:" : "Tool result:", last > i ? 13 : 12);
            for (k = i; k <= last; k++) { tb_add(&shown, last > i ? "\n" : " ", 1); tb_add(&shown, e->msgs[k].content, strlen(e->msgs[k].content)); }
            m = add_message(u, ROLE_USER, ++u->turn, shown.p);
            tb_free(&shown);
            n += last - i;
            i = last;
        }
        else if (!strcmp(role, "assistant")) {   /* a reasoning model's reply: its reasoning and answer apart, as while it was generated */
            srt_chat_reply_parts rp;
            srt_chat_reply_split(&u->facts.tmpl, e->msgs[i].content, &rp);
            if ((m = add_message(u, ROLE_MODEL, u->turn, NULL)) != NULL) {
                tb_add(&m->text, rp.answer, rp.answer_len);
                if (rp.reasoning_len) tb_add(&m->think, rp.reasoning, rp.reasoning_len);
            }
        }
        if (m) m->restored = 1;
    }
    u->conv_start = u->turn;                     /* Retry waits for a new reply (the worker has none to redo) */
    u->ctx_pos = e->pos; u->ctx_n = e->n_ctx; u->tok_s = 0;
    if (e->shown) snprintf(msg, sizeof msg, "loaded %s: %d tokens", path, e->pos);
    else snprintf(msg, sizeof msg, "loaded %s: %d messages, %d tokens", path, n, e->pos);
    script_log("file: ", msg);
    msg[0] = 'L';
    flash(u, msg);
}

/* EV_UNDONE: the bubbles of the last exchange go (from its message on), and Retry waits for a new reply. */
static void ui_on_undone(ui *u, const event *e) {
    int k;
    u->chat_cmds--;
    u->all_cmds--;
    if (!e->result) { flash(u, "Nothing to take back"); return; }
    for (k = u->n_msgs - 1; k >= 0 && u->msgs[k].role != ROLE_USER; k--) {}
    while (k >= 0 && u->n_msgs > k) free_message(&u->msgs[--u->n_msgs]);
    u->conv_start = u->turn;
    u->ctx_pos = e->pos; u->ctx_n = e->n_ctx;
    flash(u, "Last exchange taken back");
    autosave(u);
}

/* Reads what the worker sent. */
static void script_on_done(ui *u, const message *m, const event *e);
static void ui_drain(ui *u) {
    worker *w = u->w;
    event *evs;
    int n, i;
    SDL_LockMutex(w->mu);
    evs = w->evs; n = w->n_evs;
    w->evs = NULL; w->n_evs = w->cap_evs = 0;
    SDL_UnlockMutex(w->mu);
    for (i = 0; i < n; i++) {
        event *e = &evs[i];
        message *m = NULL;
        int k;
        for (k = u->n_msgs - 1; k >= 0 && e->turn > u->conv_start; k--)
            if (u->msgs[k].role == ROLE_MODEL && u->msgs[k].turn == e->turn) { m = &u->msgs[k]; break; }
        switch (e->kind) {
        case EV_PROGRESS: u->load_progress = e->progress; break;
        case EV_LOADED:
            SDL_LockMutex(w->mu);
            u->facts = w->facts;
            SDL_UnlockMutex(w->mu);
            u->loading = 0; u->model_ok = 1; u->load_progress = 1; u->ctx_n = u->facts.n_ctx;
            {
                char msg[400];
                snprintf(msg, sizeof msg, "Loaded %s in %.0f ms", u->facts.file, now_ms() - u->load_t0);
                flash(u, msg);
            }
            if (u->chat_file) { u->chat_file_ok = 0; file_cmd(u, CMD_CHAT_OPEN, 0, u->chat_file); }
            break;
        case EV_LOAD_FAILED:
            u->loading = 0; u->model_ok = 0;
            snprintf(u->error, sizeof u->error, "%s", e->text ? e->text : "cannot load the model");
            fprintf(stderr, "srt-chat-sdl: %s\n", u->error);
            break;
        case EV_TEXT:
            if (m) {
                if (e->len) tb_add(e->think ? &m->think : &m->text, e->text, e->len);
                if (e->n_tokens) { m->n_tokens = e->n_tokens; m->decode_ms = e->decode_ms; }
                if (m->decode_ms > 0) u->tok_s = m->n_tokens * 1000.0 / m->decode_ms;
                if (e->pos > 0) { u->ctx_pos = e->pos; u->ctx_n = e->n_ctx; }
            }
            break;
        case EV_NOTE:
            if (e->turn == 0 || e->turn > u->conv_start) {
                message *nm = add_message(u, ROLE_NOTE, e->turn, e->text);
                if (nm && u->n_msgs >= 2 && u->msgs[u->n_msgs - 2].streaming) {   /* keep the reply last */
                    message t = u->msgs[u->n_msgs - 1];
                    u->msgs[u->n_msgs - 1] = u->msgs[u->n_msgs - 2];
                    u->msgs[u->n_msgs - 2] = t;
                }
                fprintf(stderr, "srt-chat-sdl: %s\n", e->text ? e->text : "");
                script_log("note: ", e->text ? e->text : "");
            }
            break;
        case EV_DONE:
            if (e->turn == u->turn) u->generating = 0;
            u->ctx_pos = e->pos; u->ctx_n = e->n_ctx;
            if (m) {
                m->streaming = 0; m->stop = e->stop; m->n_tokens = e->n_tokens; m->decode_ms = e->decode_ms;
                if (m->decode_ms > 0 && m->n_tokens > 0) u->tok_s = m->n_tokens * 1000.0 / m->decode_ms;
            }
            script_on_done(u, m, e);
            if (e->turn > u->conv_start) autosave(u);
            break;
        case EV_FILE: ui_on_file(u, e); break;
        case EV_UNDONE: ui_on_undone(u, e); break;
        case EV_CALLS:
            u->n_calls = e->result;
            u->n_results = 0;
            tb_free(&u->results);
            break;
        default: break;
        }
        free(e->text);
        free(e->shown);
        free(e->msgs);
    }
    free(evs);
    if (n > 0) u->dirty = 1;
}

/* ---------------------------------------------------------------- scripted mode (tests) */
/* One command per line ('#' starts a comment); the window runs between commands:
     wait-model [SEC]        until the model is loaded (or failed) and the --chat FILE opened;
                             logs "model: ..."
     wait-idle [SEC]         until no reply is generating, no model loading and every /save,
                             /load, /undo and save to --chat FILE is done
     type TEXT               types TEXT into the input box (\n = new line, \\ = backslash)
     send TEXT               types TEXT and presses Enter
     key [Ctrl+][Shift+]KEY  Enter, Escape, PageUp, PageDown, Home, End, Backspace, Delete, Left,
                             Right or a letter (Ctrl+V pastes, Ctrl+C copies the last reply, ...)
     wait-reply [SEC]        until the reply has finished; each finished reply logs "reply N: TEXT"
                             (newlines as \n; before it "reasoning N: TEXT" when it has any)
                             and "stats: ..."
     wait-tokens N [SEC]     until the reply being generated has N tokens (or has finished)
     wheel N                 N mouse-wheel notches (positive: up, towards older messages)
     click new|retry|stop|send  presses that button
     resize W H              resizes the window (window coordinates); logs "window: ..."
     drop PATH               as if PATH had been dropped onto the window
     slow MS                 waits MS milliseconds after each generated token (0 = off)
     log-scroll              logs "scroll: top=T max=M at_bottom=0|1"
     log-input               logs "input: TEXT"
     log-messages            logs "message N user|model|note: TEXT" for each bubble (as shown;
                             a reply's reasoning first as "message N reasoning: TEXT")
     log-status              logs "status: TEXT" (the status line)
     clear-input             empties the input box
     screenshot PATH         writes a PNG of the window now
     sleep MS                lets the window run for MS milliseconds
     quit                    ends the script
   The log also gets each note ("note: TEXT"), each short notice ("flash: TEXT") and each
   conversation file saved or opened ("file: saved|loaded PATH: ...", "file: new PATH").
   A wait that times out (default 120 s) logs "error: ..." and ends the script with exit status 1.
   When the script ends, --screenshot PATH is written, with "rect ..." lines for the status text
   and each visible message bubble (pixels of the PNG), and the window closes. */
enum { WAIT_NONE, WAIT_MODEL, WAIT_REPLY, WAIT_TOKENS, WAIT_SIZE, WAIT_SLEEP, WAIT_IDLE };
typedef struct script {
    int active, failed;
    char **lines; int n, at;
    int waiting, want, want_w, want_h;
    double deadline;
    FILE *log;
    int replies;
    const char *final_shot;
    char shot[1024];          /* a screenshot to take after the next frame is drawn */
} script;
static script S;

static void log_escaped(FILE *f, const char *prefix, const char *s, size_t n) {
    size_t i;
    fputs(prefix, f);
    for (i = 0; i < n; i++) {
        if (s[i] == '\n') fputs("\\n", f);
        else if (s[i] == '\\') fputs("\\\\", f);
        else fputc(s[i], f);
    }
    fputc('\n', f);
    fflush(f);
}
static void script_log(const char *prefix, const char *text) {
    if (S.log) log_escaped(S.log, prefix, text, strlen(text));
}
static void script_on_done(ui *u, const message *m, const event *e) {
    static const char *const why[] = {"limit", "eos", "cancelled", "context", "error"};
    char pre[32];
    (void)u;
    if (!S.log) return;
    S.replies++;
    if (m && m->think.n) {
        snprintf(pre, sizeof pre, "reasoning %d: ", S.replies);
        log_escaped(S.log, pre, m->think.p, m->think.n);
    }
    snprintf(pre, sizeof pre, "reply %d: ", S.replies);
    log_escaped(S.log, pre, m && m->text.p ? m->text.p : "", m ? m->text.n : 0);
    fprintf(S.log, "stats: reply=%d tokens=%d tok/s=%.1f stop=%s prompt_tokens=%d context=%d/%d passes=%d\n", S.replies, e->n_tokens,
            e->decode_ms > 0 ? e->n_tokens * 1000.0 / e->decode_ms : 0.0, why[e->stop], e->n_prompt, e->pos, e->n_ctx, e->n_passes);
    fflush(S.log);
}
static int script_load(const char *path) {
    char *text = (char *)load_file(path, NULL), *p, *line;
    size_t len = 0;
    FILE *f = fopen(path, "rb");
    if (f) { fseek(f, 0, SEEK_END); len = (size_t)ftell(f); fclose(f); }
    if (!text && len > 0) return 0;
    if (!f) return 0;
    p = dup_n(text ? text : "", text ? len : 0);
    free(text);
    if (!p) return 0;
    for (line = p; *line; ) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        if (end && end > line && end[-1] == '\r') end[-1] = 0;
        while (*line == ' ' || *line == '\t') line++;
        if (*line && *line != '#') {
            char **nl = (char **)realloc(S.lines, (size_t)(S.n + 1) * sizeof *nl);
            if (!nl) return 0;
            S.lines = nl;
            S.lines[S.n++] = dup_s(line);
        }
        if (!end) break;
        line = end + 1;
    }
    free(p);
    return 1;
}
static void screenshot(ui *u, const char *path) {
    unsigned char *px = (unsigned char *)malloc((size_t)u->W * (size_t)u->H * 4);
    int ok = px && SDL_RenderReadPixels(u->ren, NULL, SDL_PIXELFORMAT_RGBA32, px, u->W * 4) == 0;
    if (ok) {
        int i;
        for (i = 0; i < u->W * u->H; i++) px[i * 4 + 3] = 255;
        ok = stbi_write_png(path, u->W, u->H, 4, px, u->W * 4) != 0;
    }
    free(px);
    if (S.log) {
        if (!ok) fprintf(S.log, "error: cannot write the screenshot %s: %s\n", path, SDL_GetError());
        else {
            int i;
            fprintf(S.log, "screenshot: %s %dx%d\n", path, u->W, u->H);
            fprintf(S.log, "status: %s\n", u->status);
            fprintf(S.log, "rect status %d %d %d %d\n", u->status_text.x, u->status_text.y, u->status_text.w, u->status_text.h);
            for (i = 0; i < u->n_msgs; i++) {
                SDL_Rect r = u->msgs[i].bubble, c;
                if (SDL_IntersectRect(&r, &u->r_view, &c))
                    fprintf(S.log, "rect message %d %s %d %d %d %d\n", i + 1,
                            u->msgs[i].role == ROLE_USER ? "user" : u->msgs[i].role == ROLE_MODEL ? "model" : "note", c.x, c.y, c.w, c.h);
            }
        }
        fflush(S.log);
    }
    if (!ok) { fprintf(stderr, "srt-chat-sdl: cannot write %s\n", path); S.failed = 1; }
}
static void unescape(const char *s, text_buf *out) {
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == 'n') { tb_add(out, "\n", 1); s++; }
        else if (s[0] == '\\' && s[1] == '\\') { tb_add(out, "\\", 1); s++; }
        else tb_add(out, s, 1);
    }
}
static void script_fail(const char *what) {
    if (S.log) { fprintf(S.log, "error: %s (script line %d: %s)\n", what, S.at, S.at > 0 && S.at <= S.n ? S.lines[S.at - 1] : ""); fflush(S.log); }
    fprintf(stderr, "srt-chat-sdl: script: %s\n", what);
    S.failed = 1;
    S.at = S.n;
    S.waiting = WAIT_NONE;
}
static void wheel(ui *u, int notches) { scroll_by(u, -notches * 3 * u->font.line_h[FONT_BODY]); }

/* Runs the script until it has to wait; returns 1 when it has ended. */
static int script_step(ui *u) {
    while (S.waiting != WAIT_NONE || S.at < S.n) {
        const char *cmd, *arg;
        char name[32];
        size_t nl;
        if (S.waiting != WAIT_NONE) {
            int done = 0;
            message *last = u->n_msgs ? &u->msgs[u->n_msgs - 1] : NULL;
            switch (S.waiting) {
            case WAIT_MODEL:
                done = !u->loading && !u->chat_cmds;
                if (done && S.log) {
                    if (u->model_ok) fprintf(S.log, "model: loaded %s %s %s context=%d threads=%d (%s) %s\n", u->facts.file, u->facts.arch,
                                             u->facts.format, u->facts.n_ctx, u->facts.threads, u->w->cores_name, u->facts.chat);
                    else if (u->error[0]) fprintf(S.log, "model: failed: %s\n", u->error);
                    else fprintf(S.log, "model: none\n");
                }
                break;
            case WAIT_REPLY: done = !u->generating; break;
            case WAIT_IDLE: done = !u->generating && !u->loading && !u->all_cmds; break;
            case WAIT_TOKENS: done = !u->generating || (last && last->role == ROLE_MODEL && last->n_tokens >= S.want); break;
            case WAIT_SIZE: {
                int ww, wh;
                SDL_GetWindowSize(u->win, &ww, &wh);
                done = ww == S.want_w && wh == S.want_h;
                if (done && S.log) fprintf(S.log, "window: %dx%d pixels=%dx%d\n", ww, wh, u->W, u->H);
                break;
            }
            case WAIT_SLEEP: done = now_ms() >= S.deadline; break;
            default: done = 1;
            }
            if (S.log) fflush(S.log);
            if (done) { S.waiting = WAIT_NONE; continue; }
            if (now_ms() > S.deadline) { script_fail("timed out"); break; }
            return 0;
        }
        cmd = S.lines[S.at++];
        nl = strcspn(cmd, " \t");
        snprintf(name, sizeof name, "%.*s", (int)(nl < 31 ? nl : 31), cmd);
        arg = cmd + nl;
        while (*arg == ' ' || *arg == '\t') arg++;
        S.deadline = now_ms() + 120000.0;
        if (!strcmp(name, "wait-model") || !strcmp(name, "wait-reply") || !strcmp(name, "wait-idle")) {
            if (*arg) S.deadline = now_ms() + atof(arg) * 1000.0;
            S.waiting = name[5] == 'm' ? WAIT_MODEL : name[5] == 'r' ? WAIT_REPLY : WAIT_IDLE;
        } else if (!strcmp(name, "wait-tokens")) {
            const char *t;
            S.want = atoi(arg);
            t = strchr(arg, ' ');
            if (t) S.deadline = now_ms() + atof(t) * 1000.0;
            S.waiting = WAIT_TOKENS;
        } else if (!strcmp(name, "type") || !strcmp(name, "send")) {
            text_buf t = {NULL, 0, 0};
            unescape(arg, &t);
            if (t.n) input_insert(u, t.p, t.n);
            tb_free(&t);
            if (name[0] == 's') ui_key(u, SDLK_RETURN, 0);
            return 0;                          /* draw a frame between inputs */
        } else if (!strcmp(name, "key")) {
            Uint16 mod = 0;
            SDL_Keycode k;
            for (;;) {
                if (!SDL_strncasecmp(arg, "ctrl+", 5)) { mod |= KMOD_LCTRL; arg += 5; }
                else if (!SDL_strncasecmp(arg, "shift+", 6)) { mod |= KMOD_LSHIFT; arg += 6; }
                else break;
            }
            k = !SDL_strcasecmp(arg, "enter") ? SDLK_RETURN : SDL_GetKeyFromName(arg);
            if (k == SDLK_UNKNOWN) { script_fail("unknown key"); break; }
            ui_key(u, k, mod);
            return 0;
        } else if (!strcmp(name, "wheel")) { wheel(u, atoi(arg)); return 0; }
        else if (!strcmp(name, "click")) {
            SDL_Rect r = !strcmp(arg, "new") ? u->b_new : !strcmp(arg, "retry") ? u->b_retry : !strcmp(arg, "stop") ? u->b_stop : u->b_send;
            ui_click(u, r.x + r.w / 2, r.y + r.h / 2, SDL_BUTTON_LEFT);
            return 0;
        } else if (!strcmp(name, "resize")) {
            S.want_w = atoi(arg);
            S.want_h = strchr(arg, ' ') ? atoi(strchr(arg, ' ') + 1) : 0;
            SDL_SetWindowSize(u->win, S.want_w, S.want_h);
            S.deadline = now_ms() + 10000.0;
            S.waiting = WAIT_SIZE;
            return 0;
        } else if (!strcmp(name, "drop")) { ui_load(u, arg); return 0; }
        else if (!strcmp(name, "slow")) SDL_AtomicSet(&u->w->token_delay_ms, atoi(arg));
        else if (!strcmp(name, "log-scroll")) {
            int max = u->content_h - u->r_view.h > 0 ? u->content_h - u->r_view.h : 0;
            if (S.log) fprintf(S.log, "scroll: top=%d max=%d at_bottom=%d\n", u->scroll, max, u->scroll >= max);
        } else if (!strcmp(name, "log-input")) { if (S.log) log_escaped(S.log, "input: ", u->input.p ? u->input.p : "", u->input.n); }
        else if (!strcmp(name, "log-messages")) {
            int i;
            for (i = 0; i < u->n_msgs && S.log; i++) {
                char pre[48];
                const char *t;
                size_t n;
                if (u->msgs[i].think.n) {
                    snprintf(pre, sizeof pre, "message %d reasoning: ", i + 1);
                    log_escaped(S.log, pre, u->msgs[i].think.p, u->msgs[i].think.n);
                }
                snprintf(pre, sizeof pre, "message %d %s: ", i + 1, u->msgs[i].role == ROLE_USER ? "user" : u->msgs[i].role == ROLE_MODEL ? "model" : "note");
                t = shown_text(&u->msgs[i], &n);
                log_escaped(S.log, pre, t, n);
            }
        } else if (!strcmp(name, "log-status")) { make_status(u); script_log("status: ", u->status); }
        else if (!strcmp(name, "clear-input")) { u->input.n = 0; if (u->input.p) u->input.p[0] = 0; u->caret = 0; }
        else if (!strcmp(name, "screenshot")) { snprintf(S.shot, sizeof S.shot, "%s", arg); return 0; }
        else if (!strcmp(name, "sleep")) { S.deadline = now_ms() + atof(arg); S.waiting = WAIT_SLEEP; }
        else if (!strcmp(name, "quit")) { S.at = S.n; break; }
        else { script_fail("unknown command"); break; }
        if (S.log) fflush(S.log);
    }
    return S.waiting == WAIT_NONE && S.at >= S.n;
}

/* ---------------------------------------------------------------- main */
static void usage(FILE *f) {
    fprintf(f,
        "usage: srt-chat-sdl [--model MODEL.srt] [options]\n"
        "  -m, --model PATH        packed model (.srt); without it, drop one onto the window\n"
        "      --template NAME     chat template (chatml, llama3, llama2, mistral, mistral-v3, phi3, zephyr,\n"
        "                          gemma, tulu, granite, exaone4, minicpm, olmo3, harmony, smollm3); default: the model's, else the text\n"
        "                          is continued\n"
        "      --system TEXT       system message (chat)\n"
        "      --tools FILE        tools the model may call (a JSON array of definitions); answer its calls with /tool RESULT\n"
        "      --grammar FILE      constrain each reply to the GBNF grammar in FILE (llama.cpp's syntax, rule root)\n"
        "      --json              constrain each reply to a JSON object\n"
        "      --json-schema FILE  constrain each reply to JSON that the JSON Schema in FILE describes\n"
        "      --tool-grammar      with --tools: constrain each tool call to a tool's name and its parameters' schema\n"
        "      --chat FILE         keep the conversation in FILE: opened after the model loads, saved after each\n"
        "                          reply (srt-chat's /save format); a FILE that cannot be opened is not overwritten\n"
        "      --kv f16|f32|q8     KV cache precision (default f16; q8: half the memory)\n"
        "      --backend cpu|cuda  where the model runs (cuda: build/srt-chat-sdl-cuda; default cpu)\n"
        "      --device N          the CUDA device (default 0)\n"
        "  -t, --threads N         threads (default: one per physical core that --cores picks)\n"
        "      --cores POLICY      auto (default), performance (P-cores only), all, or a CPU list \"0-3,8\"\n"
        "  -n, --max-tokens N      longest reply in tokens (default 512; 0 = until the end of the turn)\n"
        "  -c, --ctx N             context length (default: the model's, at most 4096)\n"
        "      --temp T            temperature (default 0.7; 0 = greedy)\n"
        "      --top-p P  --top-k K  --min-p P  --repeat-penalty R  --seed S\n"
        "      --ignore-eos        keep generating after end-of-sequence\n"
        "      --no-think          replies without reasoning where the template has the switch (Qwen3, SmolLM3)\n"
        "      --draft N           speculative decoding: check up to N tokens found by prompt lookup per\n"
        "                          evaluation (1..16; greedy replies unchanged; not on SYCL)\n"
        "      --draft-ngram N     prompt lookup: match the last N tokens first (default 3)\n"
        "      --draft-model PATH  a smaller model with the same vocabulary proposes (greedy; --draft default 8)\n"
        "      --font PATH         TTF/TTC font (default: DejaVu Sans, Segoe UI, Arial, ... where found)\n"
        "      --scale F           UI scale (default: from the display's pixel density)\n"
        "      --size WxH          initial window size (default 980x720)\n"
        "      --script FILE       run the commands of FILE (see the top of demo/srt-chat-sdl.c), then quit\n"
        "      --script-log PATH   where the script logs (default stdout)\n"
        "      --screenshot PATH   PNG of the window when the script ends\n"
        "      --token-delay MS    wait after each token (slow-motion demos and tests)\n"
        "  -h, --help\n");
}

static void handle_event(ui *u, const SDL_Event *ev) {
    switch (ev->type) {
    case SDL_QUIT: u->quit = 1; break;
    case SDL_KEYDOWN: ui_key(u, ev->key.keysym.sym, ev->key.keysym.mod); break;
    case SDL_TEXTINPUT: input_insert(u, ev->text.text, strlen(ev->text.text)); break;
    case SDL_MOUSEWHEEL: wheel(u, ev->wheel.y); break;
    case SDL_MOUSEMOTION:
        u->mx = (int)(ev->motion.x * u->mouse_ratio); u->my = (int)(ev->motion.y * u->mouse_ratio);
        break;
    case SDL_MOUSEBUTTONDOWN:
        u->mx = (int)(ev->button.x * u->mouse_ratio); u->my = (int)(ev->button.y * u->mouse_ratio);
        ui_click(u, u->mx, u->my, ev->button.button);
        break;
    case SDL_DROPFILE:
        if (ev->drop.file) { ui_load(u, ev->drop.file); SDL_free(ev->drop.file); }
        break;
    default: break;
    }
}

/* Pixels per window coordinate (Retina / Wayland HiDPI) times the display's DPI where the
   system reports it instead (Windows, X11 with a high Xft DPI). */
static void update_scale(ui *u) {
    int ww, wh, dw, dh;
    float s;
    SDL_GetWindowSize(u->win, &ww, &wh);
    SDL_GetRendererOutputSize(u->ren, &dw, &dh);
    u->mouse_ratio = ww > 0 ? (float)dw / (float)ww : 1.0f;
    s = u->mouse_ratio;
    if (u->user_scale > 0) s *= u->user_scale;
#ifndef __APPLE__
    else if (s < 1.25f) {
        float ddpi, hdpi, vdpi;
        int d = SDL_GetWindowDisplayIndex(u->win);
        if (d >= 0 && SDL_GetDisplayDPI(d, &ddpi, &hdpi, &vdpi) == 0 && hdpi > 120.0f && hdpi < 600.0f)
            s = floorf(hdpi / 96.0f * 4.0f + 0.5f) / 4.0f;
    }
#endif
    u->W = dw; u->H = dh;
    if (fabsf(s - u->scale) > 0.01f) { u->scale = s; font_set_scale(&u->font, s); }
}

int main(int argc, char **argv) {
    static ui U;
    static worker W;
    ui *u = &U;
    worker *w = &W;
    const char *model_path = NULL, *font_path = NULL, *script_path = NULL, *log_path = NULL;
    char font_buf[512], err[600];
    int win_w = 980, win_h = 720, i, token_delay = 0, rc = 0, use_cuda = 0, device = 0, draft_given = 0;
    memset(w, 0, sizeof *w);
    w->max_tokens = 512;
    w->cores_name = "auto";
    w->sampler.temperature = 0.7f;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (fprintf(stderr, "srt-chat-sdl: %s needs a value\n", a), exit(2), (char *)0))
        if (!strcmp(a, "-m") || !strcmp(a, "--model")) model_path = NEXT();
        else if (!strcmp(a, "--template")) {
            w->template_name = NEXT();
            if (srt_chat_format_from_name(w->template_name) < 0) { fprintf(stderr, "srt-chat-sdl: unknown template '%s'\n", w->template_name); return 2; }
        }
        else if (!strcmp(a, "--system")) w->system_text = NEXT();
        else if (!strcmp(a, "--tools")) {
            const char *path = NEXT();
            size_t n = 0;
            char *t = (char *)load_file(path, &n);
            if (!t || !(w->tools = (char *)realloc(t, n + 1))) { free(t); fprintf(stderr, "srt-chat-sdl: cannot read the tools %s\n", path); return 2; }
            w->tools[n] = 0;
        }
        else if (!strcmp(a, "--grammar") || !strcmp(a, "--json") || !strcmp(a, "--json-schema")) {   /* checked here: a bad grammar is an error before the window opens */
            const int schema = !strcmp(a, "--json-schema");
            const char *path = !strcmp(a, "--json") ? NULL : NEXT();
            size_t n = 0;
            char *t = path ? (char *)load_file(path, &n) : NULL, *text;
            int r;
            srt_status st;
            if (w->grammar) { free(t); fprintf(stderr, "srt-chat-sdl: one of --grammar, --json and --json-schema\n"); return 2; }
            if (path && (!t || !(text = (char *)realloc(t, n + 1)))) { free(t); fprintf(stderr, "srt-chat-sdl: cannot read %s\n", path); return 2; }
            if (!path) {
                if (!(w->grammar = (char *)malloc(sizeof SRT_GRAMMAR_JSON))) return 2;
                memcpy(w->grammar, SRT_GRAMMAR_JSON, sizeof SRT_GRAMMAR_JSON);
            } else if (!schema) { w->grammar = text; w->grammar[n] = 0; }
            else {   /* the schema's grammar */
                text[n] = 0;
                if (srt_grammar_from_json_schema(text, NULL, 0, &n) != SRT_ERR_INVALID_ARG || !n || !(w->grammar = (char *)malloc(n + 1)) ||
                    srt_grammar_from_json_schema(text, w->grammar, n + 1, &n) != SRT_OK) { fprintf(stderr, "srt-chat-sdl: %s: %s\n", path, srt_last_error()); free(text); return 2; }
                free(text);
            }
            if ((st = srt_grammar_match(w->grammar, "", 0, &r)) != SRT_OK) { fprintf(stderr, "srt-chat-sdl: %s: %s: %s\n", path ? path : "--json", srt_status_str(st), srt_last_error()); return 2; }
        }
        else if (!strcmp(a, "--tool-grammar")) w->tool_grammar = 1;
        else if (!strcmp(a, "--chat")) u->chat_file = NEXT();
        else if (!strcmp(a, "--kv")) {
            const char *k = NEXT();
            if (!strcmp(k, "f32")) w->kv = SRT_KV_F32; else if (!strcmp(k, "f16")) w->kv = SRT_KV_F16; else if (!strcmp(k, "q8")) w->kv = SRT_KV_Q8;
            else { fprintf(stderr, "srt-chat-sdl: --kv takes f16, f32 or q8\n"); return 2; }
        }
        else if (!strcmp(a, "--backend")) {
            const char *b = NEXT();
            if (!strcmp(b, "cuda")) use_cuda = 1;
            else if (strcmp(b, "cpu")) { fprintf(stderr, "srt-chat-sdl: --backend takes cpu or cuda\n"); return 2; }
        }
        else if (!strcmp(a, "--device")) device = atoi(NEXT());
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) w->n_threads = atoi(NEXT());
        else if (!strcmp(a, "--cores")) {
            const char *c = NEXT();
            w->cores_name = c;
            if (!strcmp(c, "auto")) w->cores = SRT_CORES_AUTO;
            else if (!strcmp(c, "performance")) w->cores = SRT_CORES_PERFORMANCE;
            else if (!strcmp(c, "all")) w->cores = SRT_CORES_ALL;
            else {
                int tmp[256];
                if (srt_parse_cpu_list(c, tmp, 256) <= 0) { fprintf(stderr, "srt-chat-sdl: --cores takes auto, performance, all or a CPU list like 0-3,8\n"); return 2; }
                w->cores = SRT_CORES_LIST; w->cpu_list = c;
            }
        }
        else if (!strcmp(a, "-n") || !strcmp(a, "--max-tokens")) w->max_tokens = atoi(NEXT());
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx")) w->n_ctx = atoi(NEXT());
        else if (!strcmp(a, "--temp")) w->sampler.temperature = (float)atof(NEXT());
        else if (!strcmp(a, "--top-p")) w->sampler.top_p = (float)atof(NEXT());
        else if (!strcmp(a, "--top-k")) w->sampler.top_k = atoi(NEXT());
        else if (!strcmp(a, "--min-p")) w->sampler.min_p = (float)atof(NEXT());
        else if (!strcmp(a, "--repeat-penalty")) w->sampler.repeat_penalty = (float)atof(NEXT());
        else if (!strcmp(a, "--seed")) w->sampler.seed = strtoull(NEXT(), NULL, 10);
        else if (!strcmp(a, "--ignore-eos")) w->ignore_eos = 1;
        else if (!strcmp(a, "--no-think")) w->no_think = 1;
        else if (!strcmp(a, "--draft")) { w->draft_max = atoi(NEXT()); draft_given = 1; }
        else if (!strcmp(a, "--draft-ngram")) w->draft_ngram = atoi(NEXT());
        else if (!strcmp(a, "--draft-model")) w->draft_path = NEXT();
        else if (!strcmp(a, "--font")) font_path = NEXT();
        else if (!strcmp(a, "--scale")) u->user_scale = (float)atof(NEXT());
        else if (!strcmp(a, "--size")) {
            const char *v = NEXT();
            if (sscanf(v, "%dx%d", &win_w, &win_h) != 2 || win_w < 200 || win_h < 200) { fprintf(stderr, "srt-chat-sdl: --size takes WxH\n"); return 2; }
        }
        else if (!strcmp(a, "--script")) script_path = NEXT();
        else if (!strcmp(a, "--script-log")) log_path = NEXT();
        else if (!strcmp(a, "--screenshot")) S.final_shot = NEXT();
        else if (!strcmp(a, "--token-delay")) token_delay = atoi(NEXT());
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else { fprintf(stderr, "srt-chat-sdl: unknown option '%s'\n", a); usage(stderr); return 2; }
#undef NEXT
    }
    if (w->n_threads < 0 || w->n_ctx < 0 || w->max_tokens < 0) { fprintf(stderr, "srt-chat-sdl: negative count\n"); return 2; }
    if (w->tool_grammar && (!w->tools || w->grammar)) { fprintf(stderr, "srt-chat-sdl: --tool-grammar needs --tools, and no --grammar, --json or --json-schema\n"); return 2; }
    if (w->draft_max < 0 || w->draft_max > SRT_DRAFT_MAX || w->draft_ngram < 0) { fprintf(stderr, "srt-chat-sdl: --draft takes 0..%d, --draft-ngram a count\n", SRT_DRAFT_MAX); return 2; }
    if (w->draft_path && !draft_given) w->draft_max = 8;   /* srt-chat's default with a draft model; --draft 0: none loaded */
    if (!w->draft_max) w->draft_path = NULL;
    if (use_cuda) {   /* a backend without a device fails the model load, with the reason, in the window */
#ifdef SRT_CHAT_CUDA
        if (!(w->backend = srt_cuda_backend(device))) { fprintf(stderr, "srt-chat-sdl: out of memory\n"); return 1; }
#else
        (void)device;
        fprintf(stderr, "srt-chat-sdl: this srt-chat-sdl was built without CUDA: use build/srt-chat-sdl-cuda (./build.sh cuda)\n");
        return 2;
#endif
    }
    if (script_path) {
        if (!script_load(script_path)) { fprintf(stderr, "srt-chat-sdl: cannot read the script %s\n", script_path); return 2; }
        S.active = 1;
        S.log = stdout;
        if (log_path && !(S.log = fopen(log_path, "w"))) { fprintf(stderr, "srt-chat-sdl: cannot write %s\n", log_path); return 2; }
        /* the software renderer draws the same pixels everywhere (Xvfb has no GPU anyway) */
        if (!getenv("SDL_RENDER_DRIVER")) SDL_SetHint(SDL_HINT_RENDER_DRIVER, "software");
    }
    font_path = find_font(font_path, font_buf, sizeof font_buf);
    if (!font_path) {
        const char *msg = "No font found: pass --font PATH to a .ttf file (for example DejaVuSans.ttf).";
        fprintf(stderr, "srt-chat-sdl: %s\n", msg);
        SDL_ShowSimpleMessageBox(SDL_MESSAGEBOX_ERROR, "sparsert chat", msg, NULL);
        return 1;
    }
    SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) { fprintf(stderr, "srt-chat-sdl: SDL_Init: %s\n", SDL_GetError()); return 1; }
    u->win = SDL_CreateWindow("sparsert chat", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, win_w, win_h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!u->win) { fprintf(stderr, "srt-chat-sdl: cannot open a window: %s\n", SDL_GetError()); SDL_Quit(); return 1; }
    SDL_SetWindowMinimumSize(u->win, 420, 320);
    u->ren = SDL_CreateRenderer(u->win, -1, SDL_RENDERER_ACCELERATED | SDL_RENDERER_PRESENTVSYNC);
    if (!u->ren) u->ren = SDL_CreateRenderer(u->win, -1, 0);
    if (!u->ren) { fprintf(stderr, "srt-chat-sdl: no renderer: %s\n", SDL_GetError()); SDL_DestroyWindow(u->win); SDL_Quit(); return 1; }
    if (!font_open(&u->font, font_path, u->ren, err, sizeof err)) {
        fprintf(stderr, "srt-chat-sdl: %s\n", err);
        SDL_ShowSimpleMessageBox(SDL_MESSAGEBOX_ERROR, "sparsert chat", err, u->win);
        SDL_DestroyRenderer(u->ren); SDL_DestroyWindow(u->win); SDL_Quit();
        return 1;
    }
    update_scale(u);
    u->stick = 1;
    u->caret_t0 = now_ms();
    u->w = w;
    w->mu = SDL_CreateMutex();
    w->cv = SDL_CreateCond();
    w->wake_event = SDL_RegisterEvents(1);
    SDL_AtomicSet(&w->token_delay_ms, token_delay);
    if (!w->mu || !w->cv || w->wake_event == (Uint32)-1 || !(u->thread = SDL_CreateThread(worker_main, "srt-worker", w))) {
        fprintf(stderr, "srt-chat-sdl: cannot start the worker thread: %s\n", SDL_GetError());
        return 1;
    }
    if (model_path) ui_load(u, model_path);
    SDL_StartTextInput();
    while (!u->quit) {
        SDL_Event ev;
        int busy = u->generating || u->loading || S.active || (u->flash[0] && now_ms() < u->flash_until);
        if (SDL_WaitEventTimeout(&ev, busy ? 30 : 250)) {
            handle_event(u, &ev);
            while (SDL_PollEvent(&ev)) handle_event(u, &ev);
            u->dirty = 1;
        }
        update_scale(u);                       /* resizes, moves to a display of another density */
        ui_drain(u);
        if (S.active && script_step(u) && !S.shot[0]) {
            S.active = 0;
            if (S.final_shot) snprintf(S.shot, sizeof S.shot, "%s", S.final_shot);
            u->quit = 1;
            u->dirty = 1;                      /* one last frame, for the screenshot */
        }
        {
            int phase = (int)fmod((now_ms() - u->caret_t0) / 500.0, 2.0);
            if (phase != u->blink_phase) { u->blink_phase = phase; u->dirty = 1; }
            if (u->flash[0] && now_ms() >= u->flash_until) { u->flash[0] = 0; u->dirty = 1; }
        }
        if (!u->dirty && !S.active && !u->loading) continue;
        u->dirty = 0;
        ui_draw(u);
        if (S.shot[0]) { screenshot(u, S.shot); S.shot[0] = 0; }
        SDL_RenderPresent(u->ren);
    }
    SDL_StopTextInput();
    ui_stop(u);
    send_cmd(w, CMD_QUIT, 0, NULL);
    SDL_WaitThread(u->thread, NULL);
    ui_drain(u);
    clear_messages(u);
    free(u->msgs);
    tb_free(&u->input);
    for (i = 0; i < S.n; i++) free(S.lines[i]);
    free(S.lines);
    for (i = 0; i < w->n_cmds; i++) free(w->cmds[i].text);
    free(w->cmds);
    rc = S.failed ? 1 : 0;
    if (S.log && S.log != stdout) fclose(S.log);
    SDL_DestroyCond(w->cv);
    SDL_DestroyMutex(w->mu);
    font_close(&u->font);
    SDL_DestroyRenderer(u->ren);
    SDL_DestroyWindow(u->win);
    SDL_Quit();
    srt_backend_free(w->backend);   /* after the worker freed the model */
    free(w->tools);
    free(w->grammar);
    tb_free(&u->results);
    return rc;
}
