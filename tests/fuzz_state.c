/* fuzz_state.c - fuzz target for session states (sparsert.h srt_session_state_load, _load).

   The input is a session state for tests/tiny_model.h's model (q8 weights, head size 8). Its
   trailing CRC-32 is made right first, so that mutations reach the checks behind it (the checksum
   itself is tested in test_state). The loading session takes the KV type the header names (f16 if
   none) and a sparse KV cache when the header says values were dropped, so that most inputs get
   past the first refusals. A state that loads must save back to the very same bytes (odd-sized
   inputs go through files: srt_session_load_chat, then srt_session_save_chat with the messages it
   gave; the others through memory, compared when they hold no messages), and the session must
   then go on: its logits are there when the state says so, and two sampled tokens are in the
   vocabulary. Every state that loads is also loaded from a file by a chat (srt_chat_load, which
   takes the text the tokens stand for from the messages): it must hold the file's messages and
   take one more turn (any status) without harm. Build and run: see tests/fuzz_common.h and `./build.sh fuzz`.
   Seeds (--seeds DIR): states of the tiny model: empty, a prompt with a token pending, truncated,
   for each KV type, a sparse cache with two pruned stretches, and conversation files (one saved
   by srt_session_save_chat, one by srt_chat_save). */
#define FZ_NAME "fuzz_state"
#define FZ_PER_SEED 400
#define FZ_DICT {"SRTS", "\x01\0\0\0", "\x02\0\0\0", "\x03\0\0\0", "\xff\xff\xff\xff", "\0\0\0\0", "\x20\0\0\0", "\x21\0\0\0", NULL}
#include "fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tiny_model.h"

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }

static srt_model *fz_model(void) {
    static srt_model *m;
    if (!m) {
        char path[512];
        srt_model_desc md;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        srt_set_log(fz_quiet, NULL);
        fz_tmp_path(path, sizeof path, "state-model.srt");
        if (!write_tiny_model(path, SRT_Q8, NULL, NULL, 1) || srt_model_load(path, &md, &m) != SRT_OK) { fprintf(stderr, "fuzz_state: no model\n"); abort(); }
        unlink(path);   /* mapped or copied: the model keeps it */
    }
    return m;
}

static srt_session *fz_session(srt_kv_type kv, float sparsity) {
    srt_session_desc sd;
    srt_session *s = NULL;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 32;
    sd.n_batch = 4;
    sd.kv_type = kv;
    sd.kv_sparsity_k = sd.kv_sparsity_v = sparsity;
    sd.sampler.temperature = 0.8f;
    if (srt_session_create(fz_model(), &sd, &s) != SRT_OK) { fprintf(stderr, "fuzz_state: no session: %s\n", srt_last_error()); abort(); }
    return s;
}

/* The conversation file at path, loaded by a chat on a fresh session: its messages (but the fed
   text) are the chat's, and a turn goes through whatever the text says. */
static void fz_chat_goes_on(const unsigned char *p, size_t size, srt_kv_type kv, float sparsity) {
    srt_session *s = fz_session(kv, sparsity);
    srt_chat *c = NULL;
    srt_chat_desc cd;
    srt_chat_message *msgs = NULL;
    const srt_chat_message *have;
    int i, k = 0, n = 0, end = 0, n_msgs = 0;
    int32_t tok;
    char path[512];
    fz_tmp_path(path, sizeof path, "chat.bin");
    if (!fz_write_file(path, p, size)) abort();
    if (srt_session_load_chat(s, path, &msgs, &n_msgs) != SRT_OK) { fprintf(stderr, "a state that loaded did not load from a file: %s\n", srt_last_error()); abort(); }
    memset(&cd, 0, sizeof cd);
    cd.template_name = "llama2";   /* the shortest prompts: the tiny model's tokens are mostly bytes */
    cd.max_tokens = 3;
    if (srt_chat_create(s, &cd, &c) != SRT_OK) { fprintf(stderr, "fuzz_state: no chat: %s\n", srt_last_error()); abort(); }
    if (srt_chat_load(c, path) != SRT_OK) { fprintf(stderr, "a conversation file that loads did not load into a chat: %s\n", srt_last_error()); abort(); }
    unlink(path);
    have = srt_chat_messages(c, &n);
    for (i = 0; i < n_msgs; i++) {
        if (!strcmp(msgs[i].role, "srt-chat:fed")) continue;
        if (k >= n || strcmp(have[k].role, msgs[i].role) || strcmp(have[k].content, msgs[i].content)) { fprintf(stderr, "the chat holds other messages than the file\n"); abort(); }
        k++;
    }
    if (k != n) { fprintf(stderr, "the chat holds more messages than the file\n"); abort(); }
    srt_chat_messages_free(msgs);
    if (srt_chat_send(c, "hi", NULL) == SRT_OK) {
        if (srt_session_pos(s) > srt_session_n_ctx(s)) { fprintf(stderr, "a chat turn went past the context\n"); abort(); }
        while (srt_chat_next(c, &tok, &end) == SRT_OK && end == SRT_CHAT_GOING)
            if (tok < 0 || tok >= srt_vocab_size(fz_model())) { fprintf(stderr, "chat token %d out of range\n", tok); abort(); }
    }
    srt_chat_destroy(c);
    srt_session_destroy(s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    static srt__crc32 crc;
    unsigned char *p = (unsigned char *)malloc(size + 1), *again = NULL;
    srt_kv_type kv = SRT_KV_F16;
    srt_session *s;
    srt_status st;
    size_t n = 0;
    float sparsity = 0.0f;
    if (!p) abort();
    if (size) memcpy(p, data, size);
    if (!crc.table[1]) srt__crc32_init(&crc);
    if (size >= 76) {
        uint32_t k = (uint32_t)srt__get_le(p + 12, 4), nnz = (uint32_t)srt__get_le(p + 48, 4);
        if (k >= 1 && k <= 3) kv = (srt_kv_type)k;
        if (kv == SRT_KV_F16 && nnz < 8) sparsity = 0.5f;
        srt__put_le(p + size - 4, srt__crc32_update(&crc, 0, p, size - 4), 4);
    }
    s = fz_session(kv, sparsity);
    if (size & 1) {   /* a file, with its messages: saved again with them, the same bytes */
        char path[512];
        srt_chat_message *msgs = NULL;
        int n_msgs = 0;
        fz_tmp_path(path, sizeof path, "state.bin");
        if (!fz_write_file(path, p, size)) abort();
        st = srt_session_load_chat(s, path, &msgs, &n_msgs);
        unlink(path);
        if (st == SRT_OK) {
            size_t got = 0;
            if (srt_session_save_chat(s, path, msgs, n_msgs) != SRT_OK || !(again = fz_read_file(path, &got)) || got != size || memcmp(again, p, size) != 0) {
                fprintf(stderr, "a loaded conversation file does not save back to its own bytes\n");
                abort();
            }
            free(again);
            again = NULL;
            unlink(path);
        } else if (msgs || n_msgs) { fprintf(stderr, "a refused file gave messages\n"); abort(); }
        srt_chat_messages_free(msgs);
    } else {
        st = srt_session_state_load(s, p, size);
        if (st == SRT_OK && srt__get_le(p + 64, 4) == 0 &&
            (srt_session_state_save(s, NULL, 0, &n) != SRT_OK || n != size || !(again = (unsigned char *)malloc(n)) ||
             srt_session_state_save(s, again, n, &n) != SRT_OK || memcmp(again, p, size) != 0)) {
            fprintf(stderr, "a loaded state does not save back to its own bytes\n");
            abort();
        }
        free(again);
    }
    if (st == SRT_OK) {
        int32_t tok;
        int i;
        fz_chat_goes_on(p, size, kv, sparsity);
        if (srt_session_pos(s) > srt_session_n_ctx(s)) { fprintf(stderr, "loaded past the context\n"); abort(); }
        if ((p[40] & 1) && !srt_session_logits(s)) { fprintf(stderr, "a state with logits loaded without them\n"); abort(); }
        for (i = 0; i < 2; i++) {
            if (srt_session_next(s, &tok) != SRT_OK) break;
            if (tok < 0 || tok >= srt_vocab_size(fz_model())) { fprintf(stderr, "sampled token %d out of range\n", tok); abort(); }
        }
    } else if (srt_session_pos(s) != 0) { fprintf(stderr, "a refused state changed the session\n"); abort(); }
    srt_session_destroy(s);
    free(p);
    return 0;
}

static int fz_save(srt_session *s, const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.state", dir, name);
    if (srt_session_save(s, path) != SRT_OK) { fprintf(stderr, "fuzz_state: %s: %s\n", path, srt_last_error()); return 1; }
    return 0;
}

static int fz_make_seeds(const char *dir) {
    static const srt_kv_type kvs[3] = {SRT_KV_F32, SRT_KV_F16, SRT_KV_Q8};
    static const char *const names[3] = {"f32", "f16", "q8"};
    static const int32_t prompt[12] = {1, 262, 270, 275, 3, 100, 276, 4, 5, 277, 278, 50};
    char name[64];
    int k, bad = 0;
    int32_t t;
    for (k = 0; k < 3; k++) {
        srt_session *s = fz_session(kvs[k], 0.0f);
        snprintf(name, sizeof name, "%s-empty", names[k]);
        bad |= fz_save(s, dir, name);
        bad |= srt_session_feed(s, prompt, 6) != SRT_OK || srt_session_next(s, &t) != SRT_OK || srt_session_next(s, &t) != SRT_OK;
        snprintf(name, sizeof name, "%s-pending", names[k]);
        bad |= fz_save(s, dir, name);
        bad |= srt_session_truncate(s, 5) != SRT_OK;
        snprintf(name, sizeof name, "%s-truncated", names[k]);
        bad |= fz_save(s, dir, name);
        srt_session_destroy(s);
    }
    {
        srt_session *s = fz_session(SRT_KV_F16, 0.5f);
        bad |= srt_session_feed(s, prompt, 7) != SRT_OK || srt_session_next(s, &t) != SRT_OK || srt_session_next(s, &t) != SRT_OK ||
               srt_session_feed(s, prompt + 7, 5) != SRT_OK || s->n_seg != 2;
        bad |= fz_save(s, dir, "f16-sparse");
        srt_session_destroy(s);
    }
    {   /* a conversation file */
        srt_session *s = fz_session(SRT_KV_F16, 0.0f);
        srt_chat_message msgs[3];
        char path[1024];
        msgs[0].role = "system"; msgs[0].content = "Be brief.";
        msgs[1].role = "user"; msgs[1].content = "hello \xe2\x82";
        msgs[2].role = "assistant"; msgs[2].content = "";
        snprintf(path, sizeof path, "%s/f16-chat.state", dir);
        bad |= srt_session_feed(s, prompt, 5) != SRT_OK || srt_session_save_chat(s, path, msgs, 3) != SRT_OK;
        srt_session_destroy(s);
    }
    {   /* a chat's file, with the text its tokens stand for */
        srt_session *s = fz_session(SRT_KV_F16, 0.0f);
        srt_chat *c = NULL;
        srt_chat_desc cd;
        char path[1024];
        int32_t tok;
        int end = 0;
        memset(&cd, 0, sizeof cd);
        cd.template_name = "llama2";
        cd.max_tokens = 2;
        snprintf(path, sizeof path, "%s/f16-srtchat.state", dir);
        bad |= srt_chat_create(s, &cd, &c) != SRT_OK || srt_chat_send(c, "hi", NULL) != SRT_OK;
        while (!bad && srt_chat_next(c, &tok, &end) == SRT_OK && end == SRT_CHAT_GOING) {}
        bad |= end == SRT_CHAT_GOING || srt_chat_save(c, path) != SRT_OK;
        srt_chat_destroy(c);
        srt_session_destroy(s);
    }
    return bad;   /* the model stays: fz_model() keeps it for the process */
}
