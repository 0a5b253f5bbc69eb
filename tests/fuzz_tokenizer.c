/* fuzz_tokenizer.c - fuzz target for the tokenizers: encode and decode of arbitrary bytes.

   Real vocabularies are loaded once, from $SRT_FUZZ_VOCABS (default build/fuzz/tokenizer-vocab),
   where --seeds packs them (build/srt-pack --vocab-only of ../shared/tokenizer/ggml-vocab-*.gguf:
   SentencePiece and byte-level BPE with several pre-tokenizers). Input: byte 0 picks the vocab
   (mod the count) and the flags (ADD_BOS, NO_SPACE_PREFIX, PARSE_SPECIAL); the rest is the text.
   Checks: srt_tokenize succeeds (asking again with the size it reports when the buffer was short),
   every id is in range, the streaming detokenizer takes every token; without BOS and special
   parsing, when every byte of the text has a token of its own, decoding gives the text back byte
   for byte (SentencePiece: after its dummy-prefix space, and only when no user-defined token was
   matched: llama.cpp puts a dummy prefix after those too; and a literal U+2581 comes back as a space),
   as srt_tokenize documents.
   Seeds (--seeds DIR): the test strings of the .inp files beside those vocabs. */
#define FZ_NAME "fuzz_tokenizer"
#define FZ_PER_SEED 100
#define FZ_DICT {"<s>", "</s>", "<|endoftext|>", "<|begin_of_text|>", "<|eot_id|>", "<unk>", " ", "  ", "\n", "\r\n", "\t", \
                 "\xe2\x96\x81", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\xa0\x80", "\xc0\xaf", "\xef\xbf\xbd", \
                 "'s", "'ll", "123", "4567", "\xe4\xb8\xad\xe6\x96\x87", "\xd9\x85\xd8\xb1", NULL}
#include "fuzz_common.h"
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

static const char *const fz_vocabs[] = {"llama-spm", "llama-bpe", "gpt-2", "phi-3", "gpt-neox", "deepseek-coder", "falcon"};
#define FZ_N_VOCABS 7
static srt_model *fz_models[FZ_N_VOCABS];
static int fz_n_models = -1;

static void fz_quiet(srt_log_level level, const char *msg, void *user) { (void)level; (void)msg; (void)user; }
static const char *fz_vocab_dir(void) { const char *d = getenv("SRT_FUZZ_VOCABS"); return d && d[0] ? d : "build/fuzz/tokenizer-vocab"; }

static void fz_load_vocabs(void) {
    int i;
    srt_model_desc md;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    srt_set_log(fz_quiet, NULL);
    fz_n_models = 0;
    for (i = 0; i < FZ_N_VOCABS; i++) {
        char path[1024];
        srt_model *m = NULL;
        snprintf(path, sizeof path, "%s/%s.srt", fz_vocab_dir(), fz_vocabs[i]);
        if (srt_model_load(path, &md, &m) == SRT_OK) fz_models[fz_n_models++] = m;
    }
    if (!fz_n_models) { fprintf(stderr, "%s: no vocabulary in %s (run `build/fuzz_tokenizer --seeds DIR` first)\n", FZ_NAME, fz_vocab_dir()); abort(); }
}

static int fz_byte_ok(const srt_model *m, unsigned char b) {
    int32_t t = m->vocab.byte_token[b];
    return t >= 0 && m->vocab.text_len[t] == 1 && (unsigned char)m->vocab.text[t][0] == b;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    const srt_model *m;
    const char *text = (const char *)data + 1;
    size_t len = size ? size - 1 : 0, i, w = 0, o = 0;
    int flags = 0, sel, cap, n = 0, k, nv, spm, representable = 1;
    int32_t *ids;
    char *out;
    srt_status st;
    const char *model = "";
    if (fz_n_models < 0) fz_load_vocabs();
    if (size == 0) return 0;
    sel = data[0];
    m = fz_models[sel % fz_n_models];
    sel /= fz_n_models;
    if (sel & 1) flags |= SRT_TOKENIZE_ADD_BOS; else flags |= SRT_TOKENIZE_NO_BOS;
    if (sel & 2) flags |= SRT_TOKENIZE_NO_SPACE_PREFIX;
    if (sel & 4) flags |= SRT_TOKENIZE_PARSE_SPECIAL;
    nv = srt_vocab_size(m);
    spm = srt_model_meta_str(m, "tokenizer.ggml.model", &model) && !strcmp(model, "llama");
    cap = (sel & 8) ? 1 : (int)len + 4;   /* sometimes too small on purpose */
    ids = (int32_t *)malloc((size_t)cap * sizeof(int32_t));
    if (!ids) abort();
    st = srt_tokenize(m, text, len, flags, ids, cap, &n);
    if (st == SRT_ERR_INVALID_ARG && n > cap) {
        free(ids);
        cap = n;
        ids = (int32_t *)malloc((size_t)cap * sizeof(int32_t));
        if (!ids) abort();
        st = srt_tokenize(m, text, len, flags, ids, cap, &n);
    }
    if (st != SRT_OK || n < 0 || n > cap) { fprintf(stderr, "srt_tokenize: %s, %d tokens (cap %d): %s\n", srt_status_str(st), n, cap, srt_last_error()); abort(); }
    for (k = 0; k < n; k++) {
        if (ids[k] < 0 || ids[k] >= nv) { fprintf(stderr, "token %d: id %d out of range (vocab %d)\n", k, ids[k], nv); abort(); }
        w += (size_t)srt_token_bytes(m, ids[k], NULL, 0);
    }
    out = (char *)malloc(w * 6 + 64);
    if (!out) abort();
    for (k = 0; k < n; k++) o += (size_t)srt_token_bytes(m, ids[k], out + o, (int)(w - o));
    if (o != w) { fprintf(stderr, "token bytes: %zu then %zu\n", w, o); abort(); }
    for (i = 0; i < len; i++) if (!fz_byte_ok(m, (unsigned char)text[i])) representable = 0;
    /* SentencePiece, as llama.cpp: the text after a user-defined token (type 4, e.g. phi-3's "</s>")
       gets the dummy-prefix space again, so such texts do not come back exactly */
    for (k = 0; spm && k < n; k++) if (m->vocab.type && m->vocab.type[ids[k]] == 4) representable = 0;
    /* and a literal U+2581 in the text is SentencePiece's space: it decodes as ' ' */
    if (spm && fz_find(data + 1, len, "\xe2\x96\x81")) representable = 0;
    if (representable && !(flags & (SRT_TOKENIZE_ADD_BOS | SRT_TOKENIZE_PARSE_SPECIAL))) {
        size_t skip = spm && w == len + 1 && out[0] == ' ' ? 1 : 0;
        if (w - skip != len || memcmp(out + skip, text, len) != 0) {
            fprintf(stderr, "round trip differs (vocab %s, flags %d): %zu bytes in, %zu out\n", model, flags, len, w);
            abort();
        }
    }
    {   /* the streaming detokenizer: never more than it says, never fails with room enough */
        srt_utf8_stream us;
        char *so;
        int total = 0;
        memset(&us, 0, sizeof us);
        so = (char *)malloc(w * 6 + 64 * (size_t)n + 64);
        if (!so) abort();
        for (k = 0; k < n; k++) {
            int room = 6 * srt_token_bytes(m, ids[k], NULL, 0) + 16, r = srt_utf8_stream_token(&us, m, ids[k], SRT_STREAM_STRIP_LEADING_SPACE, so + total, room);
            if (r < 0 || r > room) { fprintf(stderr, "stream token %d: %d (room %d)\n", ids[k], r, room); abort(); }
            total += r;
        }
        k = srt_utf8_stream_flush(&us, so + total, 16);
        if (k < 0 || k > 16) { fprintf(stderr, "stream flush: %d\n", k); abort(); }
        free(so);
    }
    free(out);
    free(ids);
    return 0;
}

/* ---------------------------------------------------------------- seeds */
static int fz_newer(const char *a, const char *b) {   /* a exists and is not older than b */
    struct stat sa, sb;
    if (stat(a, &sa) != 0) return 0;
    if (stat(b, &sb) != 0) return 1;
    return sa.st_mtime >= sb.st_mtime;
}

static int fz_make_seeds(const char *dir) {
    static const char sep[] = "\n__ggml_vocab_test__\n";
    static const char *const inp[] = {"llama-bpe", "llama-spm", "falcon", NULL};
    const char *vdir = fz_vocab_dir();
    char cmd[2048], path[1024], name[64];
    int i, count = 0;
    snprintf(cmd, sizeof cmd, "mkdir -p %s", vdir);
    if (system(cmd) != 0) return 1;
    for (i = 0; i < FZ_N_VOCABS; i++) {   /* packed again when a source of srt-pack is newer (not on every rebuild) */
        snprintf(path, sizeof path, "%s/%s.srt", vdir, fz_vocabs[i]);
        if (fz_newer(path, "sparsert.h") && fz_newer(path, "tools/srt-pack.c") && fz_newer(path, "tools/srt_import.h") &&
            fz_newer(path, "tools/srt_hf.h")) continue;
        snprintf(cmd, sizeof cmd, "build/srt-pack -q --vocab-only ../shared/tokenizer/ggml-vocab-%s.gguf %s 2>/dev/null", fz_vocabs[i], path);
        if (system(cmd) != 0) { fprintf(stderr, "%s: %s failed\n", FZ_NAME, cmd); return 1; }
    }
    for (i = 0; inp[i]; i++) {
        size_t n;
        char *p, *q, *end;
        snprintf(path, sizeof path, "../shared/tokenizer/ggml-vocab-%s.gguf.inp", inp[i]);
        p = (char *)fz_read_file(path, &n);
        if (!p) continue;
        p[n] = 0;
        for (q = p; (end = strstr(q, sep)) != NULL; q = end + sizeof sep - 1) {
            fz_buf b = {NULL, 0, 0};
            int rc;
            fz_u8(&b, (unsigned)(count * 5 + i) & 0xf7);   /* cycle through vocabs and flags, never the short buffer */
            fz_put(&b, q, (size_t)(end - q));
            snprintf(name, sizeof name, "inp-%s-%d", inp[i], count);
            rc = fz_seed(dir, name, b.p, b.n);
            free(b.p);
            count++;
            if (rc) { free(p); return 1; }
        }
        free(p);
    }
    return 0;
}
