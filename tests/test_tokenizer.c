/* test_tokenizer.c - the tokenizers against llama.cpp's test vectors (../shared/tokenizer) and
   against their own rules. Every ggml-vocab-*.gguf there is packed with `srt-pack --vocab-only` and
   must load with its pre-tokenizer recognised; where .inp/.out vectors exist, every text must give
   exactly the expected ids (no BOS, special-token text as plain text). Then: round trips (also of
   invalid UTF-8), special tokens, the word splits of pre-tokenizers without vectors, refusal of
   unknown pre-tokenizers, and the generated Unicode table against Debian's unicode-data.
   Needs build/srt-pack and build/gen-unicode. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"

#include <stdlib.h>

static const char *const all_vocabs[] = {"llama-spm", "phi-3", "baichuan", "gpt-2", "llama-bpe", "deepseek-llm", "deepseek-coder",
                                         "falcon", "starcoder", "refact", "mpt", "gpt-neox"};
#define N_VOCABS ((int)(sizeof all_vocabs / sizeof all_vocabs[0]))
static srt_model *models[N_VOCABS];

/* the texts of a .inp file: NUL-separated in place */
typedef struct texts { char *buf; char *p[256]; size_t len[256]; int n; } texts;
static int read_texts(const char *path, texts *t) {
    static const char sep[] = "\n__ggml_vocab_test__\n";
    char *p, *end;
    memset(t, 0, sizeof *t);
    if (!(t->buf = srt_test_read_file(path, NULL))) return 0;
    for (p = t->buf; (end = strstr(p, sep)) && t->n < 256; p = end + sizeof sep - 1) {
        t->p[t->n] = p; t->len[t->n] = (size_t)(end - p); t->n++;
        *end = 0;
    }
    return 1;
}

static int is_spm(const srt_model *m) {
    const char *model = "";
    return srt_model_meta_str(m, "tokenizer.ggml.model", &model) && strcmp(model, "llama") == 0;
}

/* tokenize (no BOS) and put the tokens' bytes back together; 1 if that gives text exactly (for
   SentencePiece, after the dummy-prefix space) */
static int round_trip(const srt_model *m, const char *text, size_t len, int *n_tokens) {
    int32_t *ids = (int32_t *)malloc((len + 8) * 2 * sizeof(int32_t));
    char *out = NULL;
    int n = 0, i, ok = 0;
    size_t w = 0;
    if (!ids) return 0;
    if (srt_tokenize(m, text, len, SRT_TOKENIZE_NO_BOS, ids, (int)(len + 8) * 2, &n) == SRT_OK) {
        for (i = 0; i < n; i++) w += (size_t)srt_token_bytes(m, ids[i], NULL, 0);
        if ((out = (char *)malloc(w + 1)) != NULL) {
            size_t o = 0, skip;
            for (i = 0; i < n; i++) o += (size_t)srt_token_bytes(m, ids[i], out + o, (int)(w - o));
            skip = is_spm(m) && len > 0 && w > 0 && out[0] == ' ' ? 1 : 0;
            ok = w - skip == len && memcmp(out + skip, text, len) == 0;
        }
    }
    if (n_tokens) *n_tokens = n;
    free(ids); free(out);
    return ok;
}

/* ---------------------------------------------------------------- every vocab, its vectors, round trips */
static srt_model *pack_and_load(const char *name) {
    char cmd[512], srt[256];
    srt_model *m = NULL;
    srt_model_desc md;
    srt_status st;
    snprintf(srt, sizeof srt, "build/tmp/vocab-%s.srt", name);
    snprintf(cmd, sizeof cmd, "build/srt-pack -q --vocab-only " SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf %s", name, srt);
    if (system(cmd) != 0) { CHECK(0, "%s: srt-pack --vocab-only", name); return NULL; }
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    st = srt_model_load(srt, &md, &m);
    {
        const char *model = "?", *pre = "";
        int kind_ok = 0;
        if (st == SRT_OK) {
            srt_model_meta_str(m, "tokenizer.ggml.model", &model);
            srt_model_meta_str(m, "tokenizer.ggml.pre", &pre);
            kind_ok = m->vocab.kind == SRT__TOK_SPM || (m->vocab.kind == SRT__TOK_BPE && srt__pre_find(pre) == m->vocab.pre);
        }
        CHECK(st == SRT_OK && kind_ok, "%s: loads; tokenizer '%s', pre-tokenizer '%s' recognised%s", name, model, pre[0] ? pre : "(none)",
              st == SRT_OK ? "" : srt_last_error());
    }
    return st == SRT_OK ? m : NULL;
}

static void check_vectors(const char *name, srt_model *m) {
    char path[256];
    texts t;
    char *out, *o;
    int i, n_pass = 0, n_round_ok = 0;
    snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf.inp", name);
    if (!read_texts(path, &t)) return;   /* no vectors for this vocab */
    snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf.out", name);
    out = srt_test_read_file(path, NULL);
    if (!out) { CHECK(0, "%s: %s readable", name, path); free(t.buf); return; }
    for (i = 0, o = out; i < t.n; i++) {
        int32_t want[4096], got[4096];
        int n_want = 0, n_got = 0, k, ok;
        char *eol = strchr(o, '\n');
        if (!eol) break;
        *eol = 0;
        for (; *o && n_want < 4096;) { char *e; long v = strtol(o, &e, 10); if (e == o) break; want[n_want++] = (int32_t)v; o = e; }
        o = eol + 1;
        ok = srt_tokenize(m, t.p[i], t.len[i], SRT_TOKENIZE_NO_BOS, got, 4096, &n_got) == SRT_OK && n_got == n_want &&
             memcmp(got, want, (size_t)n_got * sizeof(int32_t)) == 0;
        if (ok) n_pass++;
        else {
            printf("# %s text %d (%d bytes): want", name, i + 1, (int)t.len[i]);
            for (k = 0; k < n_want; k++) printf(" %d", want[k]);
            printf("\n#   got");
            for (k = 0; k < n_got; k++) printf(" %d", got[k]);
            printf("\n");
        }
        /* the streaming detokenizer gives the text back (all these texts are valid UTF-8) */
        {
            char *dec = (char *)malloc(t.len[i] * 8 + 64);
            int w = 0;
            srt_utf8_stream st;
            memset(&st, 0, sizeof st);
            for (k = 0; k < n_got; k++)
                w += srt_utf8_stream_token(&st, m, got[k], is_spm(m) ? SRT_STREAM_STRIP_LEADING_SPACE : 0, dec + w, (int)(t.len[i] * 8 + 64) - w);
            w += srt_utf8_stream_flush(&st, dec + w, 3);
            if ((size_t)w == t.len[i] && memcmp(dec, t.p[i], t.len[i]) == 0) n_round_ok++;
            else printf("# %s text %d: streamed back as '%.*s'\n", name, i + 1, w, dec);
            free(dec);
        }
    }
    CHECK(t.n > 10 && n_pass == t.n, "%s: %d/%d test vectors tokenize exactly as llama.cpp", name, n_pass, t.n);
    CHECK(n_round_ok == t.n, "%s: streamed detokenize(tokenize(text)) == text for %d/%d vectors", name, n_round_ok, t.n);
    free(t.buf); free(out);
}

/* Can the vocab give back this byte on its own: it has a token whose text is just that byte. Byte-level
   vocabs may lack the bytes that never occur in valid UTF-8 (or, like Falcon's, a few more). */
static int byte_ok(const srt_model *m, unsigned char b) {
    int32_t t = m->vocab.byte_token[b];
    return t >= 0 && m->vocab.text_len[t] == 1 && (unsigned char)m->vocab.text[t][0] == b;
}
static int representable(const srt_model *m, const char *s, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) if (!byte_ok(m, (unsigned char)s[i])) return 0;
    return 1;
}

/* every vocab, all texts of every .inp file, plus invalid UTF-8 and random bytes */
static void check_round_trips(const char *name, const srt_model *m, const texts *all, int n_sets) {
    static const char *const bad[] = {"ok \xff\xfe \xe2\x82 \xc3\x28 end", "\x80", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80 surrogate",
                                      "\xc0\xaf overlong", "\xf5\x80\x80\x80 beyond", "\xf8\x88\x80\x80\x80", "a\0b", "\xef\xbf\xbd real U+FFFD"};
    static const size_t bad_len[] = {0, 1, 1, 2, 3, 0, 0, 0, 5, 3, 0};
    int s, i, b, n_ok = 0, n_all = 0, n_bad = 0, n_bad_ok = 0, n_rand = 0, n_rand_ok = 0, n_tok, lacking = 0, lacking_valid = 0;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    char buf[64];
    for (s = 0; s < n_sets; s++)
        for (i = 0; i < all[s].n; i++) { n_all++; n_ok += round_trip(m, all[s].p[i], all[s].len[i], NULL); }
    CHECK(n_ok == n_all, "%s: detokenize(tokenize(text)) == text for %d/%d texts of all the .inp files", name, n_ok, n_all);
    for (b = 0; b < 256; b++)
        if (!byte_ok(m, (unsigned char)b)) { lacking++; if (b < 0x80 || (b >= 0xC2 && b <= 0xF4)) lacking_valid++; }
    if (lacking) printf("# %s: %d bytes have no token of their own (%d of them can occur in valid UTF-8)\n", name, lacking, lacking_valid);
    for (i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        size_t len = bad_len[i] ? bad_len[i] : strlen(bad[i]);
        int ok = round_trip(m, bad[i], len, &n_tok);
        if (!representable(m, bad[i], len)) { CHECK(n_tok > 0, "%s: invalid UTF-8 case %d tokenizes (%d tokens; some bytes not representable)", name, i, n_tok); continue; }
        n_bad++;
        if (ok && n_tok > 0) n_bad_ok++;
        else printf("# %s: invalid UTF-8 case %d does not come back\n", name, i);
    }
    CHECK(n_bad_ok == n_bad, "%s: invalid UTF-8 tokenizes and comes back byte for byte (%d/%d cases the vocab can represent)", name, n_bad_ok, n_bad);
    for (i = 0; i < 300; i++) {   /* random bytes, biased towards UTF-8 lead and continuation bytes */
        int k, len = (int)(i % 40) + 1;
        for (k = 0; k < len; k++) {
            uint32_t r;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            r = (uint32_t)(rng >> 33);
            buf[k] = (char)(r % 4 == 0 ? ' ' + r / 4 % 95 : r % 4 == 1 ? 0x80 + r / 4 % 64 : r % 4 == 2 ? 0xC0 + r / 4 % 64 : r / 4 % 256);
        }
        if (!representable(m, buf, (size_t)len)) { round_trip(m, buf, (size_t)len, NULL); continue; }   /* must still not crash */
        n_rand++;
        n_rand_ok += round_trip(m, buf, (size_t)len, NULL);
    }
    CHECK(n_rand > 30 && n_rand_ok == n_rand, "%s: strings of random bytes come back byte for byte (%d/%d the vocab can represent)", name, n_rand_ok, n_rand);
}

/* ---------------------------------------------------------------- special tokens */
static srt_model *find_model(const char *name) {
    int i;
    for (i = 0; i < N_VOCABS; i++) if (strcmp(all_vocabs[i], name) == 0) return models[i];
    return NULL;
}
static int32_t piece_id(const srt_model *m, const char *piece) { return srt__vocab_find(&m->vocab, piece, (uint32_t)strlen(piece)); }
static int tok(const srt_model *m, const char *text, int flags, int32_t *ids, int cap) {
    int n = -1;
    if (srt_tokenize(m, text, strlen(text), flags, ids, cap, &n) != SRT_OK) return -1;
    return n;
}
static int contains(const int32_t *ids, int n, int32_t id) { int i; for (i = 0; i < n; i++) if (ids[i] == id) return 1; return 0; }

static void check_special(void) {
    int32_t a[256], b[256];
    int na, nb;
    srt_model *m;
    if ((m = find_model("llama-bpe")) != NULL) {
        int32_t bot = piece_id(m, "<|begin_of_text|>"), eot = piece_id(m, "<|eot_id|>");
        const char *text = "<|begin_of_text|>Hi there<|eot_id|>";
        na = tok(m, text, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, a, 256);
        nb = tok(m, "Hi there", SRT_TOKENIZE_NO_BOS, b, 256);
        CHECK(bot == 128000 && eot == 128009 && na == nb + 2 && a[0] == bot && a[na - 1] == eot && memcmp(a + 1, b, (size_t)nb * sizeof(int32_t)) == 0,
              "llama-bpe: PARSE_SPECIAL turns <|begin_of_text|> and <|eot_id|> into their ids, the text between as usual");
        na = tok(m, text, SRT_TOKENIZE_NO_BOS, a, 256);
        CHECK(na > 4 && !contains(a, na, bot) && !contains(a, na, eot) && round_trip(m, text, strlen(text), NULL),
              "llama-bpe: without PARSE_SPECIAL control-token text is plain text (%d tokens) and comes back", na);
        na = tok(m, "<|eot_id|><|eot_id|>x<|eot_id", SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, a, 256);
        CHECK(na >= 3 && a[0] == eot && a[1] == eot && !contains(a + 2, na - 2, eot), "llama-bpe: adjacent special tokens; a truncated one stays text");
        na = tok(m, "Hello", 0, a, 256);
        CHECK(na == 2 && a[0] == 128000, "llama-bpe: flags 0 adds BOS (the llama3 family's default)");
        na = tok(m, "", SRT_TOKENIZE_NO_BOS, a, 256);
        CHECK(na == 0, "llama-bpe: empty text, no tokens");
    }
    if ((m = find_model("gpt-2")) != NULL) {
        na = tok(m, "Hello", 0, a, 256);
        CHECK(na == 1, "gpt-2: flags 0 adds no BOS (the vocab does not ask for one)");
        na = tok(m, "a<|endoftext|>b", SRT_TOKENIZE_PARSE_SPECIAL, a, 256);
        CHECK(na == 3 && a[1] == 50256, "gpt-2: <|endoftext|> with PARSE_SPECIAL");
    }
    if ((m = find_model("llama-spm")) != NULL) {
        na = tok(m, "<s>Hi</s>", SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, a, 256);
        nb = tok(m, "Hi", SRT_TOKENIZE_NO_BOS, b, 256);
        CHECK(na == nb + 2 && a[0] == 1 && a[na - 1] == 2 && memcmp(a + 1, b, (size_t)nb * sizeof(int32_t)) == 0,
              "llama-spm: <s> and </s> with PARSE_SPECIAL; the text after a special token gets the dummy-prefix space");
        na = tok(m, "<s>Hi</s>", SRT_TOKENIZE_NO_BOS, a, 256);
        CHECK(na > 4 && !contains(a, na, 1) && !contains(a, na, 2), "llama-spm: without PARSE_SPECIAL <s> is text");
    }
    if ((m = find_model("phi-3")) != NULL) {   /* llama.cpp's Phi-3 rule: special tokens swallow the white space after them */
        int32_t user = piece_id(m, "<|user|>");
        na = tok(m, "<|user|>\n  Hi", SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, a, 256);
        nb = tok(m, "Hi", SRT_TOKENIZE_NO_BOS, b, 256);
        CHECK(user > 0 && na == nb + 1 && a[0] == user && memcmp(a + 1, b, (size_t)nb * sizeof(int32_t)) == 0,
              "phi-3: <|user|> strips the white space after it (rstrip)");
    }
    if ((m = find_model("deepseek-llm")) != NULL) {   /* user-defined tokens: always, as Hugging Face's added tokens */
        int32_t o = piece_id(m, "\xc3\xb8");
        na = tok(m, "s\xc3\xb8n", SRT_TOKENIZE_NO_BOS, a, 256);
        nb = tok(m, "s\xc3\xb8n", SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, b, 256);
        CHECK(o >= 100000 && m->vocab.type[o] == SRT__TT_USER && na == 3 && a[1] == o && nb == 3 && b[1] == o,
              "deepseek-llm: the user-defined token '\xc3\xb8' is recognised with and without PARSE_SPECIAL");
    }
    if ((m = find_model("mpt")) != NULL) {
        int32_t five = piece_id(m, "     ");
        na = tok(m, "a     b", SRT_TOKENIZE_NO_BOS, a, 256);
        CHECK(five > 0 && m->vocab.type[five] == SRT__TT_USER && na == 3 && a[1] == five, "mpt: a run of five spaces is its user-defined token");
    }
}

/* ---------------------------------------------------------------- pre-tokenizer splits */
typedef struct words { char s[512]; size_t w; const char *text; } words;
static void add_word(void *user, size_t off, size_t len) {
    words *ws = (words *)user;
    if (ws->w && ws->w < sizeof ws->s - 1) ws->s[ws->w++] = '|';
    if (ws->w + len < sizeof ws->s) { memcpy(ws->s + ws->w, ws->text + off, len); ws->w += len; }
    ws->s[ws->w] = 0;
}
static const char *esc(const char *s, char *buf, size_t cap) {   /* \n \r \t written out, for one-line messages */
    size_t w = 0;
    for (; *s && w + 3 < cap; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t') { buf[w++] = '\\'; buf[w++] = *s == '\n' ? 'n' : *s == '\r' ? 'r' : 't'; }
        else buf[w++] = *s;
    }
    buf[w] = 0;
    return buf;
}
static void check_words(const char *pre, const char *text, const char *want) {
    srt__vocab v;
    words ws;
    char e1[256], e2[512], e3[512];
    memset(&v, 0, sizeof v);
    memset(&ws, 0, sizeof ws);
    v.pre = srt__pre_find(pre);
    ws.text = text;
    if (v.pre < 0) { CHECK(0, "pre-tokenizer '%s' is known", pre); return; }
    srt__bpe_run(&v, text, strlen(text), NULL, add_word, &ws);   /* the words alone, no BPE */
    CHECK(strcmp(ws.s, want) == 0, "%s splits '%s' into '%s'%s%s", pre, esc(text, e1, sizeof e1), esc(want, e2, sizeof e2),
          strcmp(ws.s, want) ? ", not " : "", strcmp(ws.s, want) ? esc(ws.s, e3, sizeof e3) : "");
}
static void check_pre_tokenizers(void) {
    check_words("gpt-2", "Hello world's  end\n\n x", "Hello| world|'s| | end|\n\n| x");
    check_words("gpt-2", "I'M 12345 ok!!", "I|'|M| 12345| ok|!!");
    check_words("llama-bpe", "I'M 12345 ok!!\n\nyes  ", "I|'M| |123|45| ok|!!\n\n|yes|  ");
    check_words("qwen2", "abc 2024年", "abc| |2|0|2|4|年");
    check_words("qwen35", "cafe\xcc\x81 x", "cafe\xcc\x81| x");   /* a combining mark stays in the word */
    check_words("qwen2", "cafe\xcc\x81 x", "cafe|\xcc\x81| x");
    check_words("tekken", "HelloWorld ABCdef ABCD x/y x!/\ny", "Hello|World| ABCdef| ABCD| x|/y| x|!/\n|y");
    check_words("tekken", "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82\xd0\x9c\xd0\xb8\xd1\x80 42", "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82|\xd0\x9c\xd0\xb8\xd1\x80| |4|2");
    check_words("gpt-4o", "HELLO's they'RE 12345", "HELLO's| they'RE| |123|45");
    check_words("default", "a+b=1000!", "a|+|b|=|100|0|!");
    check_words("falcon", "x`y 12345", "x|`|y| |123|45");
    check_words("starcoder", "x12 y", "x|1|2| y");
    check_words("deepseek-coder", "ab12\ncd, ef", "ab|1|2|\n|cd|,| ef");
    check_words("deepseek-llm", "Hi 世界!\r\n  ", "Hi| |世界|!|\r|\n|  ");
    check_words("bloom", "hello, world.", "hello|,| world|.");
    check_words("viking", "abc123 x", "abc|1|2|3| x");
    check_words("deepseek-v3", "Hello, world!~ 12345 日本語テスト x.y", "Hello|,| world|!~| |123|45| |日本語テスト| x|.y");
}

/* ---------------------------------------------------------------- unknown pre-tokenizers, tiny vocabs */
static int write_tiny_vocab(const char *path, const char *pre) {
    static const char *const tokens[] = {"a", "b", "ab", "\xc4\xa0", "\xc4\xa0" "ab", "<|end|>"};   /* \xc4\xa0 = the space's character */
    static const int32_t types[] = {1, 1, 1, 1, 1, 3};
    static const char *const merges[] = {"a b", "\xc4\xa0 ab", "a c", "nospace", "ab ab"};
    srt_writer *w;
    if (srt_writer_open(path, &w) != SRT_OK) return 0;
    srt_writer_meta_str(w, "general.architecture", "llama");
    srt_writer_meta_str(w, "tokenizer.ggml.model", "gpt2");
    if (pre) srt_writer_meta_str(w, "tokenizer.ggml.pre", pre);
    srt_writer_meta_arr(w, "tokenizer.ggml.tokens", SRT_META_ARR_STR, tokens, 6);
    srt_writer_meta_arr(w, "tokenizer.ggml.token_type", SRT_META_ARR_I32, types, 6);
    srt_writer_meta_arr(w, "tokenizer.ggml.merges", SRT_META_ARR_STR, merges, 5);
    return srt_writer_finish(w) == SRT_OK;
}
static void check_unknown_pre(void) {
    srt_model *m = NULL;
    srt_model_desc md;
    int32_t ids[16];
    int n;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    CHECK(srt_tokenizer_supported("gpt2", "no-such-pre") == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "'no-such-pre'"),
          "srt_tokenizer_supported refuses an unknown pre-tokenizer: %s", srt_last_error());
    CHECK(srt_tokenizer_supported("gpt2", NULL) == SRT_OK && srt_tokenizer_supported("gpt2", "smollm") == SRT_OK &&
          srt_tokenizer_supported("llama", "default") == SRT_OK && srt_tokenizer_supported("bert", NULL) == SRT_ERR_UNSUPPORTED,
          "srt_tokenizer_supported: gpt2 without pre (= default), smollm, llama; refuses bert");
    /* load time */
    CHECK(write_tiny_vocab("build/tmp/tiny-bad-pre.srt", "gpt-9"), "tiny vocab with pre 'gpt-9' written");
    CHECK(srt_model_load("build/tmp/tiny-bad-pre.srt", &md, &m) == SRT_ERR_UNSUPPORTED && strstr(srt_last_error(), "gpt-9"),
          "a vocab with an unknown pre-tokenizer does not load: %s", srt_last_error());
    /* pack time: the gpt-2 GGUF with its pre renamed to an unknown "gpt-9" (same length) */
    {
        size_t len = 0, i;
        char *g = srt_test_read_file(SRT_SHARED "/tokenizer/ggml-vocab-gpt-2.gguf", &len);
        int patched = 0, rc;
        FILE *f;
        for (i = 0; g && i + 18 + 4 + 8 + 5 <= len; i++)
            if (memcmp(g + i, "tokenizer.ggml.pre", 18) == 0 && memcmp(g + i + 18 + 4 + 8, "gpt-2", 5) == 0) { g[i + 18 + 4 + 8 + 4] = '9'; patched = 1; break; }
        f = patched ? fopen("build/tmp/bad-pre.gguf", "wb") : NULL;
        if (f) { fwrite(g, 1, len, f); fclose(f); }
        remove("build/tmp/bad-pre.srt");
        rc = f ? system("build/srt-pack -q --vocab-only build/tmp/bad-pre.gguf build/tmp/bad-pre.srt 2>build/tmp/bad-pre.log") : -1;
        free(g);
        g = srt_test_read_file("build/tmp/bad-pre.log", NULL);
        f = fopen("build/tmp/bad-pre.srt", "rb");
        CHECK(patched && rc != 0 && !f && g && strstr(g, "gpt-9"), "srt-pack refuses a GGUF with an unknown pre-tokenizer: %s", g ? g : "");
        if (f) fclose(f);
        free(g);
    }
    /* a tiny vocab: ranked merges, a byte without a token, malformed merges skipped */
    CHECK(write_tiny_vocab("build/tmp/tiny.srt", "gpt-2"), "tiny vocab written");
    m = NULL;
    if (srt_model_load("build/tmp/tiny.srt", &md, &m) == SRT_OK) {
        n = tok(m, "abab", 0, ids, 16);
        CHECK(n == 2 && ids[0] == 2 && ids[1] == 2, "tiny: 'abab' -> ab ab (the merge 'ab ab' is not a token)");
        n = tok(m, "ba ab", 0, ids, 16);
        CHECK(n == 3 && ids[0] == 1 && ids[1] == 0 && ids[2] == 4, "tiny: 'ba ab' -> b a \xc4\xa0" "ab");
        n = tok(m, "acb", 0, ids, 16);
        CHECK(n == 2 && ids[0] == 0 && ids[1] == 1, "tiny: a byte without a token is dropped, as llama.cpp does");
        n = tok(m, "a<|end|>", SRT_TOKENIZE_PARSE_SPECIAL, ids, 16);
        CHECK(n == 2 && ids[1] == 5 && srt_token_bytes(m, 5, NULL, 0) == 0, "tiny: control token parsed; it renders as nothing");
        srt_model_free(m);
    } else CHECK(0, "tiny vocab loads: %s", srt_last_error());
}

/* ---------------------------------------------------------------- the generated Unicode table */
static void check_unicode(void) {
    FILE *f = fopen("/usr/share/unicode/UnicodeData.txt", "rb");
    CHECK(srt__uc_class('A') == SRT__UC_UPPER && srt__uc_class('z') == SRT__UC_LOWER && srt__uc_class('7') == SRT__UC_NUMBER &&
          srt__uc_class(' ') == SRT__UC_SPACE && srt__uc_class('\n') == SRT__UC_SPACE && srt__uc_class('~') == SRT__UC_SYMBOL &&
          srt__uc_class('!') == SRT__UC_PUNCT && srt__uc_class(0x1F) == SRT__UC_OTHER && srt__uc_class(0xE9) == SRT__UC_LOWER &&
          srt__uc_class(0x4E2D) == SRT__UC_LETTER && srt__uc_class(0x01C5) == SRT__UC_UPPER && srt__uc_class(0x0301) == SRT__UC_MARK &&
          srt__uc_class(0x0663) == SRT__UC_NUMBER && srt__uc_class(0x00B2) == SRT__UC_NUMBER && srt__uc_class(0x3000) == SRT__UC_SPACE &&
          srt__uc_class(0x0085) == SRT__UC_SPACE && srt__uc_class(0x200B) == SRT__UC_OTHER && srt__uc_class(0x1F600) == SRT__UC_SYMBOL &&
          srt__uc_class(0x20000) == SRT__UC_LETTER && srt__uc_class(0x10FFFF) == SRT__UC_OTHER && srt__uc_class(0x110000) == SRT__UC_OTHER,
          "Unicode classes of sample code points");
    if (f) {
        fclose(f);
        CHECK(system("build/gen-unicode --check sparsert.h") == 0, "regenerating the Unicode table from /usr/share/unicode gives the block in sparsert.h");
    } else printf("# skipped: no /usr/share/unicode/UnicodeData.txt (apt-get install unicode-data) to regenerate the Unicode table from\n");
}

/* The tokens that end generation (srt_token_is_eog): EOS in every vocabulary that has one; Llama 3's
   <|eot_id|> and Phi-3's <|end|> besides; nothing else of SentencePiece Llama's; never a normal token. */
static void check_eog(void) {
    int i;
    for (i = 0; i < N_VOCABS; i++) {
        const srt_model *m = models[i];
        int t, n = 0, ok = 1;
        if (!m) continue;
        for (t = 0; t < srt_vocab_size(m); t++)
            if (srt_token_is_eog(m, t)) { n++; ok = ok && (t == m->vocab.eos || m->vocab.type[t] == SRT__TT_CONTROL); }
        ok = ok && (m->vocab.eos < 0 || srt_token_is_eog(m, m->vocab.eos)) && !srt_token_is_eog(m, -1) && !srt_token_is_eog(m, srt_vocab_size(m));
        if (!strcmp(all_vocabs[i], "llama-bpe")) {
            int32_t eot = -1, eot_text = -1;
            srt_tokenize(m, "<|eot_id|>", 10, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, &eot, 1, &t);
            srt_tokenize(m, "<|end_of_text|>", 15, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, &eot_text, 1, &t);
            ok = ok && srt_token_is_eog(m, eot) && srt_token_is_eog(m, eot_text) && n >= 2;
        }
        if (!strcmp(all_vocabs[i], "phi-3")) {
            int32_t end = -1;
            srt_tokenize(m, "<|end|>", 7, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, &end, 1, &t);
            ok = ok && srt_token_is_eog(m, end) && n >= 2;
        }
        if (!strcmp(all_vocabs[i], "llama-spm")) ok = ok && n == 1;
        CHECK(ok, "%s: %d token(s) end generation: EOS and end-of-turn control tokens only", all_vocabs[i], n);
    }
}

int main(void) {
    texts sets[16];
    int i, n_sets = 0;
    if (system("mkdir -p build/tmp") != 0) return 1;
    for (i = 0; i < N_VOCABS; i++) {
        char path[256];
        if ((models[i] = pack_and_load(all_vocabs[i])) != NULL) check_vectors(all_vocabs[i], models[i]);
        snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf.inp", all_vocabs[i]);
        if (n_sets < 16 && read_texts(path, &sets[n_sets])) n_sets++;
    }
    for (i = 0; i < N_VOCABS; i++) if (models[i]) check_round_trips(all_vocabs[i], models[i], sets, n_sets);
    check_special();
    check_eog();
    check_pre_tokenizers();
    check_unknown_pre();
    check_unicode();
    for (i = 0; i < N_VOCABS; i++) srt_model_free(models[i]);
    for (i = 0; i < n_sets; i++) free(sets[i].buf);
    return srt_test_finish();
}
