/* test_oom.c - running out of memory, one allocation at a time.

   Each case is run once with nothing failing (its answer: a status and a hash of what it gave),
   then once for each allocation k it made, with allocation k failing (SRT_MALLOC / SRT_REALLOC
   return NULL there; the ones after it succeed). Every run must end with the first run's answer,
   or with SRT_ERR_OUT_OF_MEMORY saying "out of memory": never another answer, a crash,
   or (under ASan) a leak. The cases: loading a packed model and decoding (stories260K in f32, q4,
   q2, sb-q8, s4x1 and tcsl; Llama 3's 128k vocabulary), tokenizing (SentencePiece and byte-level
   BPE), a session (prompt and draws, with a grammar, a Q8 or a sparse KV cache, saved and loaded
   state), srt_generate (speculative, with a lazy grammar), a chat's turns regenerated, undone and
   reset, draft checks and truncation under a grammar, a chat with tools and a tool grammar
   (saved and loaded), writing a .srt file, and rendering and parsing tool calls. The answer of
   the run where nothing fails is checked too; and a copy of the model that cannot be allocated
   (SRT_LOAD_AUTO maps the file instead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fail_alloc.h"   /* the implementation, with an SRT_MALLOC that fails where a case says; each_allocation */

#define TMP "build/tmp/"

/* ---- the cases */
static srt_model *load_model_as(const char *path, srt_load load, srt_status *st) {
    srt_model_desc md;
    srt_model *m = NULL;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    md.load = load;
    *st = srt_model_load(path, &md, &m);
    return m;
}
static srt_model *load_model(const char *path, srt_status *st) { return load_model_as(path, SRT_LOAD_AUTO, st); }
/* A copy of the file that cannot be allocated: AUTO maps the file instead, COPY fails. */
static void test_copy_fails(const char *path) {
    srt_status st_auto, st_copy;
    srt_model *a, *c;
    srt_test_fail_from = 1 << 20;   /* (the file is 1.2 MB; nothing else is that large) */
    a = load_model_as(path, SRT_LOAD_AUTO, &st_auto);
    c = load_model_as(path, SRT_LOAD_COPY, &st_copy);
    srt_test_fail_from = 0;
    CHECK(st_auto == SRT_OK && a && a->info.load == SRT_LOAD_MMAP && st_copy == SRT_ERR_OUT_OF_MEMORY && !c && strstr(srt_last_error(), "cannot allocate"),
          "the model's copy cannot be allocated: SRT_LOAD_AUTO maps the file (%s, %s), SRT_LOAD_COPY fails (%s)", srt_status_str(st_auto),
          a && a->info.load == SRT_LOAD_MMAP ? "mapped" : "not mapped", srt_last_error());
    srt_model_free(a);
    srt_model_free(c);
}
/* Loading a model; with weights, greedy draws after a prompt. */
static srt_status case_load(void *ctx, uint64_t *h) {
    srt_status st;
    srt_model *m = load_model((const char *)ctx, &st);
    if (st == SRT_OK) {
        srt_model_info info;
        int i, n = srt_vocab_size(m);
        srt_model_get_info(m, &info);
        *h = hash(0, &info.n_layer, sizeof info.n_layer);
        *h = hash(*h, &n, sizeof n);
        for (i = 0; i < n; i += 7) { const char *p = srt_token_piece(m, i); *h = hash(*h, p, strlen(p)); }
        if (info.n_layer > 0) {
            srt_session *s = NULL;
            int32_t tok;
            if ((st = srt_session_create(m, NULL, &s)) == SRT_OK) st = srt_session_prompt(s, "Once upon a time", 1);
            for (i = 0; i < 4 && st == SRT_OK; i++) if ((st = srt_session_next(s, &tok)) == SRT_OK) *h = hash(*h, &tok, sizeof tok);
            srt_session_destroy(s);
        }
    }
    srt_model_free(m);
    return st;
}

typedef struct { srt_model *m; const char *text; } tok_ctx;
static srt_status case_tokenize(void *ctx, uint64_t *h) {
    const tok_ctx *t = (const tok_ctx *)ctx;
    int32_t ids[512];
    int n = 0;
    srt_status st = srt_tokenize(t->m, t->text, strlen(t->text), 1, ids, 512, &n);
    if (st == SRT_OK) *h = hash(0, ids, (size_t)n * sizeof *ids);
    return st;
}

/* A session: a prompt, draws (greedy, or sampled under a grammar), its state saved and loaded into
   a second session, which draws on. */
typedef struct { srt_model *m; const char *grammar; float temp; srt_kv_type kv; float kv_sparsity; } sess_ctx;
static srt_status case_session(void *ctx, uint64_t *h) {
    const sess_ctx *c = (const sess_ctx *)ctx;
    srt_session_desc sd;
    srt_session *s = NULL, *s2 = NULL;
    srt_status st;
    unsigned char *state = NULL;
    size_t size = 0;
    int32_t tok;
    int i;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 96;
    sd.sampler.temperature = c->temp; sd.sampler.seed = 7;
    sd.kv_type = c->kv; sd.kv_sparsity_k = sd.kv_sparsity_v = c->kv_sparsity;
    if ((st = srt_session_create(c->m, &sd, &s)) != SRT_OK) return st;
    if (c->grammar && (st = srt_session_set_grammar(s, c->grammar)) != SRT_OK) goto done;
    if ((st = srt_session_prompt(s, "Once upon a time", 1)) != SRT_OK) goto done;
    for (i = 0; i < 6; i++) { if ((st = srt_session_next(s, &tok)) != SRT_OK) goto done; *h = hash(*h, &tok, sizeof tok); }
    if ((st = srt_session_state_save(s, NULL, 0, &size)) != SRT_OK) goto done;
    if (!(state = (unsigned char *)malloc(size))) { st = SRT_ERR_IO; goto done; }   /* (the test's own memory: not counted) */
    if ((st = srt_session_state_save(s, state, size, &size)) != SRT_OK) goto done;
    if ((st = srt_session_create(c->m, &sd, &s2)) != SRT_OK) goto done;
    if ((st = srt_session_state_load(s2, state, size)) != SRT_OK) goto done;
    for (i = 0; i < 4; i++) { if ((st = srt_session_next(s2, &tok)) != SRT_OK) goto done; *h = hash(*h, &tok, sizeof tok); }
done:
    free(state);
    srt_session_destroy(s2);
    srt_session_destroy(s);
    return st;
}

/* srt_generate with speculative decoding: prompt lookup, then a draft session (the same model),
   and a lazy grammar set on the session. */
static int gen_text(const char *text, int len, int32_t token, void *user) { *(uint64_t *)user = hash(*(uint64_t *)user, text, (size_t)len); (void)token; return 0; }
static srt_status case_generate(void *ctx, uint64_t *h) {
    static const char *const triggers[1] = {"Lily"};
    srt_model *m = (srt_model *)ctx;
    srt_session_desc sd;
    srt_session *s = NULL, *d = NULL;
    srt_generate_desc g;
    srt_generate_result r;
    srt_status st;
    int round;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 128;
    if ((st = srt_session_create(m, &sd, &s)) != SRT_OK) return st;
    if ((st = srt_session_create(m, &sd, &d)) != SRT_OK) goto done;
    if ((st = srt_session_set_grammar_lazy(s, "root ::= \"Lily\" [a-z ]+ \".\"", triggers, 1)) != SRT_OK) goto done;
    for (round = 0; round < 2; round++) {
        memset(&g, 0, sizeof g);
        g.prompt = round ? " Then" : "Once upon a time, there was a little girl. Once upon a time";
        g.max_tokens = 12; g.draft_max = 4; g.draft = round ? d : NULL;
        g.on_text = gen_text; g.user = h;
        if ((st = srt_generate(s, &g, &r)) != SRT_OK) goto done;
        *h = hash(*h, &r.n_generated, sizeof r.n_generated);
    }
done:
    srt_session_destroy(d);
    srt_session_destroy(s);
    return st;
}

#define TOOLS "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather in a city\", " \
              "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\", \"minimum\": 1}}, " \
              "\"required\": [\"city\"]}}}]"
/* A chat with tools and the tool grammar: a user message, a reply, a tool's result, a reply; saved,
   loaded into a new chat, which goes on. */
static srt_status case_chat(void *ctx, uint64_t *h) {
    srt_session_desc sd;
    srt_chat_desc cd;
    srt_session *s = NULL;
    srt_chat *c = NULL;
    srt_chat_turn turn;
    srt_chat_message tool = {"tool", "{\"temperature\": 21}"};
    srt_status st;
    int32_t tok;
    int i, end = 0, round;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 1024;   /* (the tools take 560 tokens of stories260K's vocabulary) */
    memset(&cd, 0, sizeof cd);
    cd.system_prompt = "You are helpful."; cd.max_tokens = 8;
    cd.tools = TOOLS; cd.tool_grammar = 1;
    if ((st = srt_session_create((srt_model *)ctx, &sd, &s)) != SRT_OK) return st;
    if ((st = srt_chat_create(s, &cd, &c)) != SRT_OK) goto done;
    for (round = 0; round < 2; round++) {
        st = round ? srt_chat_send_messages(c, &tool, 1, &turn) : srt_chat_send(c, "What is the weather in Paris?", &turn);
        if (st != SRT_OK) goto done;
        for (i = 0, end = SRT_CHAT_GOING; i < 8 && end == SRT_CHAT_GOING; i++) {
            if ((st = srt_chat_next(c, &tok, &end)) != SRT_OK) goto done;
            *h = hash(*h, &tok, sizeof tok);
        }
    }
    if ((st = srt_chat_save(c, TMP "oom_chat.bin")) != SRT_OK) goto done;   /* and back, into a new chat */
    srt_chat_destroy(c); c = NULL;
    srt_session_reset(s);
    if ((st = srt_chat_create(s, &cd, &c)) != SRT_OK || (st = srt_chat_load(c, TMP "oom_chat.bin")) != SRT_OK) goto done;
    {
        int n = 0;
        const srt_chat_message *msgs = srt_chat_messages(c, &n);
        for (i = 0; i < n; i++) { *h = hash(*h, msgs[i].role, strlen(msgs[i].role)); *h = hash(*h, msgs[i].content, strlen(msgs[i].content)); }
        if ((st = srt_chat_send(c, "Thanks.", &turn)) == SRT_OK && (st = srt_chat_next(c, &tok, &end)) == SRT_OK) *h = hash(*h, &tok, sizeof tok);
    }
done:
    srt_chat_destroy(c);
    srt_session_destroy(s);
    return st;
}

/* A chat's turns taken back and drawn again (srt_chat_regenerate, srt_chat_undo, srt_chat_reset),
   and a session's draft checks and truncation under a grammar. */
static srt_status case_turns(void *ctx, uint64_t *h) {
    srt_model *m = (srt_model *)ctx;
    srt_session_desc sd;
    srt_chat_desc cd;
    srt_session *s = NULL, *s2 = NULL;
    srt_chat *c = NULL;
    srt_chat_turn turn;
    srt_status st;
    int32_t tok, out[8], draft[4] = {1, 2, 3, 4};
    int i, end, n_out = 0;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 256;
    memset(&cd, 0, sizeof cd);
    cd.system_prompt = "Be brief."; cd.max_tokens = 4;
    if ((st = srt_session_create(m, &sd, &s)) != SRT_OK) return st;
    if ((st = srt_chat_create(s, &cd, &c)) != SRT_OK) goto done;
    if ((st = srt_chat_send(c, "Tell me a story.", &turn)) != SRT_OK) goto done;
    for (i = 0, end = SRT_CHAT_GOING; i < 3 && end == SRT_CHAT_GOING; i++) { if ((st = srt_chat_next(c, &tok, &end)) != SRT_OK) goto done; *h = hash(*h, &tok, sizeof tok); }
    if ((st = srt_chat_regenerate(c)) != SRT_OK) goto done;
    for (i = 0, end = SRT_CHAT_GOING; i < 3 && end == SRT_CHAT_GOING; i++) { if ((st = srt_chat_next(c, &tok, &end)) != SRT_OK) goto done; *h = hash(*h, &tok, sizeof tok); }
    if ((st = srt_chat_undo(c)) != SRT_OK || (st = srt_chat_send(c, "Another one.", &turn)) != SRT_OK) goto done;
    if ((st = srt_chat_next(c, &tok, &end)) != SRT_OK) goto done;
    *h = hash(*h, &tok, sizeof tok);
    srt_chat_reset(c);
    if ((st = srt_chat_send(c, "Once more.", &turn)) != SRT_OK || (st = srt_chat_next(c, &tok, &end)) != SRT_OK) goto done;
    *h = hash(*h, &tok, sizeof tok);
    if ((st = srt_session_create(m, &sd, &s2)) != SRT_OK) goto done;   /* drafts and truncation under a grammar */
    if ((st = srt_session_set_grammar(s2, "root ::= [A-Za-z ,.]+")) != SRT_OK || (st = srt_session_prompt(s2, "Once upon a time", 1)) != SRT_OK) goto done;
    if ((st = srt_session_next_draft(s2, draft, 4, out, &n_out)) != SRT_OK) goto done;
    *h = hash(*h, out, (size_t)n_out * sizeof *out);
    if ((st = srt_session_truncate(s2, srt_session_pos(s2) - 1)) != SRT_OK || (st = srt_session_next(s2, &tok)) != SRT_OK) goto done;
    *h = hash(*h, &tok, sizeof tok);
done:
    srt_chat_destroy(c);
    srt_session_destroy(s2);
    srt_session_destroy(s);
    return st;
}

/* Writing a .srt file (metadata of each type; tensors in dense, low-bit and sparse formats, 70% of
   the weights zero in 4x1 blocks): the file's bytes; after a failure neither the file nor its
   temporary is left. */
static srt_status case_writer(void *ctx, uint64_t *h) {
    static const srt_format formats[] = {SRT_F32, SRT_F16, SRT_Q8, SRT_Q4, SRT_Q2, SRT_TQ, SRT_SB_Q8, SRT_S4X1, SRT_TCSL};
    static const uint32_t u[3] = {1, 2, 3};
    static const char *const strs[3] = {"a", "", "\xc3\xa9"};
    const float *w = (const float *)ctx;
    srt_writer *wr = NULL;
    srt_status st;
    size_t i;
    FILE *f;
    if ((st = srt_writer_open(TMP "oom_written.srt", &wr)) != SRT_OK) return st;
    if ((st = srt_writer_meta_u32(wr, "general.u32", 7)) != SRT_OK || (st = srt_writer_meta_str(wr, "general.name", "oom")) != SRT_OK ||
        (st = srt_writer_meta_f32(wr, "general.f32", 0.5f)) != SRT_OK || (st = srt_writer_meta_arr(wr, "general.arr", SRT_META_ARR_U32, u, 3)) != SRT_OK ||
        (st = srt_writer_meta_arr(wr, "general.strs", SRT_META_ARR_STR, strs, 3)) != SRT_OK) { srt_writer_abort(wr); goto gone; }
    for (i = 0; i < sizeof formats / sizeof *formats; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d.weight", (int)i);
        if ((st = srt_writer_add_tensor(wr, name, formats[i], 0, 128, 128, w)) != SRT_OK) { srt_writer_abort(wr); goto gone; }
    }
    if ((st = srt_writer_finish(wr)) != SRT_OK) goto gone;
    if (!(f = fopen(TMP "oom_written.srt", "rb"))) return SRT_ERR_IO;
    {
        unsigned char b[4096];
        size_t n;
        while ((n = fread(b, 1, sizeof b, f)) > 0) *h = hash(*h, b, n);
    }
    fclose(f);
    remove(TMP "oom_written.srt");
    return SRT_OK;
gone:   /* nothing left behind */
    if ((f = fopen(TMP "oom_written.srt", "rb")) != NULL || (f = fopen(TMP "oom_written.srt.tmp", "rb")) != NULL) { fclose(f); return SRT_ERR_IO; }
    return st;
}

/* Rendering a conversation with tools in each format that has them, and reading a reply's calls. */
static srt_status case_render(void *ctx, uint64_t *h) {
    static const char *const formats[] = {"chatml", "llama3", "harmony", "smollm3"};
    static const char *const replies[] = {
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
    };
    const srt_chat_message msgs[4] = {{"system", "Be brief."}, {"user", "Weather in Paris?"},
                                      {"assistant", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"},
                                      {"tool", "{\"temperature\": 21}"}};
    char buf[8192];
    size_t i, len = 0;
    srt_status st;
    (void)ctx;
    for (i = 0; i < 4; i++) {
        srt_chat_template t;
        srt_chat_tool_call calls[4];
        int n = 0, j;
        if ((st = srt_chat_template_from_text(NULL, NULL, NULL, &t)) != SRT_OK) return st;
        t.format = (srt_chat_format)srt_chat_format_from_name(formats[i]);
        t.tool_use = 1; t.tools = TOOLS;
        if ((st = srt_chat_render(&t, msgs, i == 2 ? 2 : 4, 1, buf, sizeof buf, &len)) != SRT_OK) return st;
        *h = hash(*h, buf, len);
        if ((st = srt_chat_tool_calls(&t, replies[i], calls, 4, &n)) != SRT_OK) return st;
        for (j = 0; j < n && j < 4; j++) { *h = hash(*h, calls[j].name, calls[j].name_len); *h = hash(*h, calls[j].arguments, calls[j].arguments_len); }
        *h = hash(*h, &n, sizeof n);
    }
    return SRT_OK;
}

static void quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }   /* (the warnings of every run) */
int main(void) {
    srt_status st;
    srt_model *m = NULL, *bpe = NULL;
    FILE *f;
    srt_set_log(quiet, NULL);
    if (system("mkdir -p build/tmp") != 0 || !(f = fopen(TMP "oom_tools.jinja", "wb"))) { printf("FAIL - cannot make build/tmp\n"); return 1; }
    fputs("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{# <tool_call> <tool_response> #}", f);   /* (recognised as Qwen's: tools) */
    fclose(f);
    if (system("build/srt-pack -q --weights f32 --chat-template " TMP "oom_tools.jinja " SRT_SHARED "/models/stories260K/stories260K.gguf " TMP "oom_stories.srt > " TMP "oom_pack.log 2>&1") != 0 ||
        system("build/srt-pack -q --vocab-only " SRT_SHARED "/tokenizer/ggml-vocab-llama-bpe.gguf " TMP "oom_llama-bpe.srt >> " TMP "oom_pack.log 2>&1") != 0) {
        CHECK(0, "stories260K and Llama 3's vocabulary packed (see " TMP "oom_pack.log)");
        return srt_test_finish();
    }
    each_allocation("srt_model_load, stories260K", case_load, (void *)(TMP "oom_stories.srt"), SRT_OK, 200);
    test_copy_fails(TMP "oom_stories.srt");
    {   /* the low-bit and sparse formats (their loads repack some of them) */
        static const char *const packs[][2] = {{"q4", "--weights q4"}, {"q2", "--weights q2"}, {"sb-q8", "--weights sb-q8 --sparsity 0.7"},
                                               {"s4x1", "--weights s4x1 --sparsity 0.5"}, {"tcsl", "--weights tcsl --sparsity 0.7"}};
        size_t i;
        for (i = 0; i < sizeof packs / sizeof *packs; i++) {
            char cmd[512], path[128], what[96];
            snprintf(path, sizeof path, TMP "oom_stories_%s.srt", packs[i][0]);
            snprintf(cmd, sizeof cmd, "build/srt-pack -q %s " SRT_SHARED "/models/stories260K/stories260K.gguf %s >> " TMP "oom_pack.log 2>&1", packs[i][1], path);
            snprintf(what, sizeof what, "srt_model_load, stories260K in %s", packs[i][0]);
            if (system(cmd) != 0) CHECK(0, "%s packed (see " TMP "oom_pack.log)", what);
            else each_allocation(what, case_load, path, SRT_OK, 200);
        }
    }
    each_allocation("srt_model_load, Llama 3's vocabulary", case_load, (void *)(TMP "oom_llama-bpe.srt"), SRT_OK, 200);
    m = load_model(TMP "oom_stories.srt", &st);
    bpe = load_model(TMP "oom_llama-bpe.srt", &st);
    if (!m || !bpe) { CHECK(0, "models loaded (%s)", srt_last_error()); srt_model_free(m); srt_model_free(bpe); return srt_test_finish(); }
    {
        tok_ctx t1 = {NULL, "Once upon a time, a little girl named Lily found a shiny \xe2\x82\xac coin."};
        tok_ctx t2 = {NULL, "Hello world! It's 2026: 12345 tokens, caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 and   spaces\n\n\tend."};
        t1.m = m; t2.m = bpe;
        each_allocation("srt_tokenize, SentencePiece (stories260K)", case_tokenize, &t1, SRT_OK, 200);
        each_allocation("srt_tokenize, byte-level BPE (Llama 3)", case_tokenize, &t2, SRT_OK, 200);
    }
    {
        sess_ctx greedy = {NULL, NULL, 0.0f, SRT_KV_F16, 0.0f}, json = {NULL, SRT_GRAMMAR_JSON, 0.8f, SRT_KV_F16, 0.0f};
        sess_ctx q8 = {NULL, NULL, 0.0f, SRT_KV_Q8, 0.0f}, sparse = {NULL, NULL, 0.0f, SRT_KV_F16, 0.5f};
        greedy.m = json.m = q8.m = sparse.m = m;
        each_allocation("a session: prompt, draws, state saved and loaded", case_session, &greedy, SRT_OK, 200);
        each_allocation("a session sampling under the JSON grammar", case_session, &json, SRT_OK, 200);
        each_allocation("a session with a Q8 KV cache", case_session, &q8, SRT_OK, 200);
        each_allocation("a session with a sparse KV cache (half of the prompt's K and V values kept)", case_session, &sparse, SRT_OK, 200);
    }
    each_allocation("srt_generate: speculative (prompt lookup, a draft session), a lazy grammar", case_generate, m, SRT_OK, 200);
    each_allocation("a chat's turns regenerated, undone and reset; drafts and truncation under a grammar", case_turns, m, SRT_OK, 200);
    each_allocation("a chat with tools and the tool grammar", case_chat, m, SRT_OK, 100);   /* (each run feeds 600 tokens: under ASan 60 ms) */
    {
        static float w[128 * 128];
        int r, c;
        srt_test_rng = 99;
        for (c = 0; c < 128; c++) for (r = 0; r < 128; r += 4) {
            const int zero = srt_test_frand() < 0.4f;   /* (uniform in [-1, 1): 70% of the blocks) */
            int k;
            for (k = 0; k < 4; k++) w[(r + k) * 128 + c] = zero ? 0.0f : srt_test_frand();
        }
        each_allocation("srt_writer: metadata and tensors in f32, f16, q8, q4, q2, tq, sb-q8, s4x1, tcsl", case_writer, w, SRT_OK, 200);
    }
    each_allocation("rendering tools and reading tool calls (chatml, llama3, harmony, smollm3)", case_render, NULL, SRT_OK, 200);
    srt_model_free(bpe);
    srt_model_free(m);
    return srt_test_finish();
}
