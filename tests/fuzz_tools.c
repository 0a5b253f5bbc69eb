/* fuzz_tools.c - fuzz target for the chat templates' tools (sparsert.h section 14): the JSON tool
   definitions that srt_chat_render writes as the templates' tojson does, and srt_chat_tool_calls.

   Input: the tools text, a NUL, then a reply (absent = ""). Checks, beyond "no crash":
   - harmony (gpt-oss's TypeScript namespace) accepts only tools the others accept (it also refuses
     schemas its template cannot write), smollm3 (Python's str() of each) exactly those chatml
     accepts, and both report the length they write;
   - ChatML (Qwen2.5's tools block, compact JSON) and llama3 (Llama 3.2's, indented) accept or
     refuse the same tools, and accept them exactly when tools/srt_json.h (the strict parser srt-pack
     uses, a separate implementation; duplicate keys allowed, as Python's json) reads an array of
     objects 65 levels deep at most;
   - the compact form is a fixed point (the tools written again give the same text) and reads as the
     same values (types, strings and keys byte for byte, numbers as doubles, order);
   - the reported length is the length written, also after a first call with a small buffer;
   - srt_chat_tool_calls of the reply under chatml, llama3 and harmony: SRT_OK or SRT_ERR_FORMAT, spans inside
     the reply, names without escapes, arguments that read as a JSON object.
   Seeds: tests/fuzz/tools (committed), none generated. */
#define FZ_NAME "fuzz_tools"
#define FZ_PER_SEED 2000
#define FZ_DICT {"{", "}", "[", "]", "\"", ",", ":", "\\", "0", "-", ".", "e", "E+", "true", "false", "null", "\\ud800", "\\udc00", \
                 "\\u0000", "\\uD83D", "\\uDE00", "\\u00e9", "\x7f", "\x80", "\xc3\xa9", "\xed\xa0\x80", " ", "\n", "1e999", "-0", "0.1", \
                 "<tool_call>", "</tool_call>", "<|python_tag|>", "\"name\"", "\"arguments\"", "\"parameters\"", "\"type\"", "\"function\"", "\0", \
                 "\"description\"", "\"properties\"", "\"required\"", "\"items\"", "\"oneOf\"", "\"enum\"", "\"default\"", "\"nullable\"", \
                 "\"object\"", "\"array\"", "\"string\"", "to=functions.", "<|message|>", "<|call|>", "<|end|>", NULL}
#include "tests/fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#define SRT_JSON_IMPLEMENTATION
#include "tools/srt_json.h"

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }
static void fz_fail(const char *what) { fprintf(stderr, "%s\n", what); abort(); }

static int fz_same(const srtj_value *a, const srtj_value *b) {
    if (a->type != b->type) return 0;
    if (a->key || b->key) { if (!a->key || !b->key || a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len) != 0) return 0; }
    switch (a->type) {
        case SRTJ_STRING: return a->n == b->n && memcmp(a->str, b->str, a->n) == 0;
        case SRTJ_NUMBER: return a->num == b->num;
        case SRTJ_ARRAY: case SRTJ_OBJECT: {
            const srtj_value *x = a->first, *y = b->first;
            for (; x && y; x = x->next, y = y->next) if (!fz_same(x, y)) return 0;
            return !x && !y;
        }
        default: return 1;
    }
}
/* Renders with the template; checks the length protocol; the text (malloc'd) or NULL with *st set. */
static char *fz_render(const srt_chat_template *t, const srt_chat_message *m, int n, srt_status *st) {
    char small[8], *buf;
    size_t len = 0, len2 = 0;
    *st = srt_chat_render(t, m, n, 1, small, sizeof small, &len);
    if (*st != SRT_ERR_INVALID_ARG || len < sizeof small) return NULL;   /* refused (or it fit: it never does) */
    if (!(buf = (char *)malloc(len + 1))) abort();
    *st = srt_chat_render(t, m, n, 1, buf, len + 1, &len2);
    if (*st != SRT_OK || len2 != len || strlen(buf) != len) fz_fail("render: the length reported is not the length written");
    return buf;
}
static void fz_calls(srt_chat_format f, const char *reply) {
    srt_chat_template t;
    srt_chat_tool_call c[4];
    int n = -1, i;
    srt_status st;
    const char *end = reply + strlen(reply);
    memset(&t, 0, sizeof t);
    t.format = f;
    st = srt_chat_tool_calls(&t, reply, c, 4, &n);
    if (st != SRT_OK && st != SRT_ERR_FORMAT) fz_fail("tool calls: another status");
    if (st != SRT_OK) { if (n != 0) fz_fail("tool calls: a count with an error"); return; }
    for (i = 0; i < n && i < 4; i++) {
        srtj_doc *d = NULL;
        char err[128];
        if (c[i].name < reply || c[i].name + c[i].name_len > end || c[i].arguments < reply || c[i].arguments + c[i].arguments_len > end) fz_fail("call outside the reply");
        if (memchr(c[i].name, '\\', c[i].name_len)) fz_fail("a name with escapes");
        if (srtj_parse(c[i].arguments, c[i].arguments_len, NULL, &d, err, sizeof err) != 0) {
            srtj_options o = {0, 1};   /* (duplicate keys are Python's: the last one counts) */
            if (srtj_parse(c[i].arguments, c[i].arguments_len, &o, &d, err, sizeof err) != 0) fz_fail("arguments that are not JSON");
        }
        if (!srtj_is(srtj_root(d), SRTJ_OBJECT)) fz_fail("arguments that are not an object");
        srtj_free(d);
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static const char qwen[] = "<tool_call> <tool_response> {%- if tools %} <|im_start|>",
                      llama[] = "<|start_header_id|> <|end_header_id|> ipython Cutting Knowledge Date",
                      harmony[] = "<|channel|>final<|message|> render_tool_namespace",
                      smollm3[] = "<|im_start|> ## Metadata Reasoning Mode: xml_tools";
    static int quiet;
    char *copy, *tools, *reply, *q, *l, *h, *sm, *again;
    srt_chat_template tq, tl, th, ts;
    srt_chat_message m[1] = {{"user", "x"}};
    srt_status sq, sl, sh, ss, s2;
    srtj_doc *doc = NULL, *doc2 = NULL;
    srtj_options opt = {65, 1};
    char err[256];
    int json_ok;
    if (!quiet) { srt_set_log(fz_quiet, NULL); quiet = 1; }
    if (!(copy = (char *)malloc(size + 2))) abort();
    memcpy(copy, data, size);
    copy[size] = copy[size + 1] = 0;
    tools = copy;
    reply = copy + strlen(copy) + 1;
    if (reply > copy + size) reply = copy + size + 1;   /* (no NUL: no reply) */
    srt_chat_template_from_text(qwen, NULL, NULL, &tq);
    srt_chat_template_from_text(llama, "<|begin_of_text|>", NULL, &tl);
    srt_chat_template_from_text(harmony, NULL, NULL, &th);
    srt_chat_template_from_text(smollm3, NULL, NULL, &ts);
    if (!tq.tool_use || !tl.tool_use || !th.tool_use || !ts.tool_use) fz_fail("the templates do not render tools");
    tq.tools = tl.tools = th.tools = ts.tools = tools;
    q = fz_render(&tq, m, 1, &sq);
    l = fz_render(&tl, m, 1, &sl);
    h = fz_render(&th, m, 1, &sh);
    if (sh != SRT_OK && sh != SRT_ERR_INVALID_ARG) fz_fail("harmony: another status");
    if (sh == SRT_OK && sq != SRT_OK) fz_fail("harmony accepts tools chatml refuses");
    sm = fz_render(&ts, m, 1, &ss);   /* SmolLM3: Python's str() of each, any JSON chatml reads */
    if ((ss == SRT_OK) != (sq == SRT_OK)) fz_fail("smollm3 and chatml disagree on the tools");
    if ((sq == SRT_OK) != (sl == SRT_OK)) fz_fail("chatml and llama3 disagree on the tools");
    if (sq != SRT_OK && sq != SRT_ERR_INVALID_ARG) fz_fail("tools: another status");
    json_ok = tools[0] && srtj_parse(tools, strlen(tools), &opt, &doc, err, sizeof err) == 0 && srtj_is(srtj_root(doc), SRTJ_ARRAY) &&
              strncmp(tools, "\xef\xbb\xbf", 3) != 0;
    if (json_ok) {
        const srtj_value *v;
        for (v = srtj_first(srtj_root(doc)); v; v = srtj_next(v)) json_ok = json_ok && srtj_is(v, SRTJ_OBJECT);
    }
    if (tools[0] && json_ok != (sq == SRT_OK)) fz_fail(json_ok ? "tools srt_json reads were refused" : "tools srt_json refuses were accepted");
    if (sq == SRT_OK && tools[0] && srtj_first(srtj_root(doc))) {   /* the compact form: a fixed point, the same values */
        const char *a = strstr(q, "<tools>\n"), *b = strstr(q, "\n</tools>");
        size_t k, n;
        char *arr, *p;
        if (!a || !b || b < a + 8) fz_fail("no tools block");
        n = (size_t)(b - a - 8);
        if (!(arr = (char *)malloc(n + 3))) abort();
        p = arr;
        *p++ = '[';
        for (k = 0; k < n; k++) *p++ = a[8 + k] == '\n' ? ',' : a[8 + k];   /* one tool a line: JSON strings hold no raw newline */
        *p++ = ']';
        *p = 0;
        tq.tools = arr;
        again = fz_render(&tq, m, 1, &s2);
        if (s2 != SRT_OK || strcmp(again, q) != 0) fz_fail("the compact form is not a fixed point");
        if (srtj_parse(arr, strlen(arr), &opt, &doc2, err, sizeof err) != 0 || !fz_same(srtj_root(doc), srtj_root(doc2))) fz_fail("the compact form holds other values");
        free(again);
        free(arr);
    }
    srtj_free(doc);
    srtj_free(doc2);
    free(q);
    free(l);
    free(h);
    free(sm);
    fz_calls(SRT_CHAT_CHATML, reply);
    fz_calls(SRT_CHAT_LLAMA3, reply);
    fz_calls(SRT_CHAT_HARMONY, reply);
    fz_calls(SRT_CHAT_GEMMA, reply);
    free(copy);
    return 0;
}

static int fz_make_seeds(const char *dir) { (void)dir; return 0; }
