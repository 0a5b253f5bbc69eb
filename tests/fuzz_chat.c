/* fuzz_chat.c - fuzz target for chat templates: srt_chat_template_from_text on arbitrary Jinja text,
   then srt_chat_render of messages taken from the input.

   Input: byte 0 = options (bit 0 add_generation_prompt, bits 1-4 a format that overrides the
   recognised one when < SRT_CHAT_FORMAT_COUNT, bit 5 dated system block, bit 6 an empty default
   system prompt, bit 7 no_think); the rest is split at NUL bytes: the template text, the BOS
   text, the EOS text (absent = NULL), then role / content pairs. Checks: the template is always accepted, its strings
   are terminated, rendering succeeds or says a role cannot be expressed, the length it reports
   is the length it writes (also after a first call with a buffer that is too small), the
   same call gives the same text, and srt_chat_reply_split of each content gives spans inside it.
   Seeds (--seeds DIR): tests/fuzz/chat (one small template per format, committed) and the chat
   template of ../shared/tokenizer/ggml-vocab-phi-3.gguf, with a short conversation. */
#define FZ_NAME "fuzz_chat"
#define FZ_PER_SEED 1000
#define FZ_DICT {"<|im_start|>", "<|im_end|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "[INST]", "<<SYS>>", \
                 "' [INST] '", "'[INST] '", "<|assistant|>", "<|end|>", "<|user|>", "<start_of_turn>", "Cutting Knowledge Date", \
                 "strftime_now", "<|im_start|>system\\n", "\\n", "\\", "'", "\"", "{{", "}}", "{%", "%}", "system", "user", \
                 "assistant", "tool", "<think>", "</think>", "last_query_index", "<tool_response>", "</tool_response>", "\0", \
                 "[|endofturn|]", "[|assistant|]", "<\xe7\x94\xa8\xe6\x88\xb7>", "<AI>", "<|start_of_role|>", "<|channel|>final<|message|>", \
                 "<|start|>", "<|return|>", "<tool_call>", "</tool_call>", "render_tool_namespace", "to=functions.", "<|constrain|>json", \
                 "<|message|>", "<|call|>", "ipython", "{", "}", NULL}
#include "fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }
static int fz_terminated(const char *s, size_t cap) { return memchr(s, 0, cap) != NULL; }

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char *copy, *p, *end, *part[40];
    int np = 0, n_msgs, i, opt;
    srt_chat_template t;
    srt_chat_message msgs[18];
    char small[16];
    size_t len = 0, len2 = 0;
    srt_status st;
    static int quiet;
    if (!quiet) { srt_set_log(fz_quiet, NULL); quiet = 1; }
    if (size == 0) return 0;
    opt = data[0];
    copy = (char *)malloc(size + 1);   /* NUL-terminated parts */
    if (!copy) abort();
    memcpy(copy, data + 1, size - 1);
    copy[size - 1] = 0;
    for (p = copy, end = copy + size - 1; np < 40; p += strlen(p) + 1) {
        part[np++] = p;
        if (p + strlen(p) >= end) break;
    }
    if (srt_chat_template_from_text(part[0], np > 1 ? part[1] : NULL, np > 2 ? part[2] : NULL, &t) != SRT_OK) { fprintf(stderr, "template refused\n"); abort(); }
    if (!fz_terminated(t.bos, sizeof t.bos) || !fz_terminated(t.eos, sizeof t.eos) || !fz_terminated(t.default_system, sizeof t.default_system) ||
        !fz_terminated(t.date, sizeof t.date) || (unsigned)t.format >= SRT_CHAT_FORMAT_COUNT) { fprintf(stderr, "bad template struct\n"); abort(); }
    for (i = 0; i < 4; i++) if (!fz_terminated(t.stop[i], sizeof t.stop[i])) { fprintf(stderr, "bad stop string\n"); abort(); }
    if (((opt >> 1) & 15) < SRT_CHAT_FORMAT_COUNT) t.format = (srt_chat_format)((opt >> 1) & 15);
    if (opt & 32) { t.dated_system = 1; if (!t.date[0]) strcpy(t.date, "26 Jul 2024"); }
    if (opt & 64) t.default_system[0] = 0;
    if (opt & 128) t.no_think = 1;
    n_msgs = np > 3 ? (np - 3 + 1) / 2 : 0;
    if (n_msgs > 18) n_msgs = 18;
    for (i = 0; i < n_msgs; i++) {
        msgs[i].role = part[3 + 2 * i];
        msgs[i].content = 3 + 2 * i + 1 < np ? part[3 + 2 * i + 1] : "";
    }
    st = srt_chat_render(&t, msgs, n_msgs, opt & 1, small, sizeof small, &len);
    if (st == SRT_OK) {
        if (len >= sizeof small || strlen(small) != len) { fprintf(stderr, "render: length %zu, wrote %zu\n", len, strlen(small)); abort(); }
    } else if (st == SRT_ERR_INVALID_ARG) {
        char *buf = (char *)malloc(len + 1), *buf2 = (char *)malloc(len + 1);
        if (!buf || !buf2) abort();
        st = srt_chat_render(&t, msgs, n_msgs, opt & 1, buf, len + 1, &len2);
        if (st == SRT_OK) {
            if (len2 != len || strlen(buf) != len) { fprintf(stderr, "render: length %zu then %zu, wrote %zu\n", len, len2, strlen(buf)); abort(); }
            if (srt_chat_render(&t, msgs, n_msgs, opt & 1, buf2, len + 1, &len2) != SRT_OK || len2 != len || memcmp(buf, buf2, len) != 0) {
                fprintf(stderr, "render is not deterministic\n"); abort();
            }
        } else if (st != SRT_ERR_INVALID_ARG) { fprintf(stderr, "render: %s\n", srt_status_str(st)); abort(); }
        free(buf); free(buf2);
    } else { fprintf(stderr, "render: %s\n", srt_status_str(st)); abort(); }
    for (i = 0; i < n_msgs; i++) {   /* every content split as a reply: spans inside it */
        srt_chat_reply_parts rp;
        const char *c = msgs[i].content, *e = c + strlen(c);
        srt_chat_reply_split(&t, c, &rp);
        if (rp.reasoning < c || rp.reasoning + rp.reasoning_len > e || rp.answer < c || rp.answer + rp.answer_len > e) {
            fprintf(stderr, "reply split outside the reply\n"); abort();
        }
    }
    free(copy);
    return 0;
}

/* ---------------------------------------------------------------- seeds */
static int fz_make_seeds(const char *dir) {
    static const char conv[] = "\0<s>\0</s>\0system\0Be brief.\0user\0Hi \xc3\xa9!\0assistant\0Hello.\0user\0Again?";
    size_t n, at;
    unsigned char *p = fz_read_file("../shared/tokenizer/ggml-vocab-phi-3.gguf", &n);
    const unsigned char *k;
    if (!p) return 0;
    /* the GGUF value: key, u32 type 8 (string), u64 length, bytes */
    k = fz_find(p, n, "tokenizer.chat_template");
    at = k ? (size_t)(k - p) + 23 : n;
    if (at + 12 <= n && p[at] == 8) {
        uint64_t len = 0;
        int i;
        for (i = 0; i < 8; i++) len |= (uint64_t)p[at + 4 + i] << (8 * i);
        if (len <= n - at - 12) {
            fz_buf b = {NULL, 0, 0};
            int rc;
            fz_u8(&b, 0x1f);   /* generation prompt, no format override */
            fz_put(&b, p + at + 12, (size_t)len);
            fz_put(&b, conv, sizeof conv - 1);
            rc = fz_seed(dir, "phi-3", b.p, b.n);
            free(b.p);
            free(p);
            return rc;
        }
    }
    free(p);
    return 0;
}
