/* test_tokenizer.c - llama.cpp's tokenizer test vectors (../shared/tokenizer) for the
   SentencePiece vocabularies: each vocab is packed with `srt-pack --vocab-only`, every text of
   the .inp file is tokenized (no BOS, special-token text as plain text) and compared with the
   .out ids; then detokenize(tokenize(text)) == text. Needs build/srt-pack. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"

#include <stdlib.h>


static void check_vocab(const char *name) {
    static const char sep[] = "\n__ggml_vocab_test__\n";
    char cmd[512], path[256], srt[256];
    char *inp, *out, *p, *o;
    srt_model *m;
    srt_model_desc md;
    int n_texts = 0, n_pass = 0, n_round = 0, n_round_ok = 0;
    snprintf(srt, sizeof srt, "build/tmp/vocab-%s.srt", name);
    snprintf(cmd, sizeof cmd, "build/srt-pack -q --vocab-only " SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf %s", name, srt);
    if (system(cmd) != 0) { CHECK(0, "%s: srt-pack --vocab-only", name); return; }
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (srt_model_load(srt, &md, &m) != SRT_OK) { CHECK(0, "%s: load: %s", name, srt_last_error()); return; }
    snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf.inp", name);
    inp = srt_test_read_file(path, NULL);
    snprintf(path, sizeof path, SRT_SHARED "/tokenizer/ggml-vocab-%s.gguf.out", name);
    out = srt_test_read_file(path, NULL);
    if (!inp || !out) { CHECK(0, "%s: test vectors readable", name); free(inp); free(out); srt_model_free(m); return; }
    for (p = inp, o = out; *p || *o;) {
        char *end = strstr(p, sep), *eol;
        int32_t want[4096], got[4096];
        int n_want = 0, n_got = 0, ok, i;
        size_t len;
        if (!end) break;
        len = (size_t)(end - p);
        eol = strchr(o, '\n');
        if (!eol) break;
        *eol = 0;
        for (; *o;) { char *e; long v = strtol(o, &e, 10); if (e == o) break; want[n_want++] = (int32_t)v; o = e; }
        o = eol + 1;
        ok = srt_tokenize(m, p, len, SRT_TOKENIZE_NO_BOS, got, 4096, &n_got) == SRT_OK && n_got == n_want &&
             memcmp(got, want, (size_t)n_got * sizeof(int32_t)) == 0;
        n_texts++;
        if (ok) n_pass++;
        else {
            printf("# %s text %d (%d bytes): want", name, n_texts, (int)len);
            for (i = 0; i < n_want; i++) printf(" %d", want[i]);
            printf("\n#   got");
            for (i = 0; i < n_got; i++) printf(" %d", got[i]);
            printf("\n");
        }
        /* round trip, for texts that are valid UTF-8 (all of these are) */
        {
            char *dec = (char *)malloc(len * 8 + 64);
            int w = 0;
            srt_utf8_stream st;
            memset(&st, 0, sizeof st);
            for (i = 0; i < n_got; i++) w += srt_utf8_stream_token(&st, m, got[i], SRT_STREAM_STRIP_LEADING_SPACE, dec + w, (int)(len * 8 + 64) - w);
            w += srt_utf8_stream_flush(&st, dec + w, 3);
            n_round++;
            if ((size_t)w == len && memcmp(dec, p, len) == 0) n_round_ok++;
            else printf("# %s text %d: round trip gave '%.*s'\n", name, n_texts, w, dec);
            free(dec);
        }
        p = end + sizeof sep - 1;
    }
    CHECK(n_texts > 10 && n_pass == n_texts, "%s: %d/%d test vectors tokenize exactly as llama.cpp", name, n_pass, n_texts);
    CHECK(n_round_ok == n_round, "%s: detokenize(tokenize(text)) == text for %d/%d texts", name, n_round_ok, n_round);
    /* invalid UTF-8 never crashes and comes back with U+FFFD in place of the bad bytes */
    {
        static const char bad[] = "ok \xff\xfe \xe2\x82 \xc3\x28 end";
        int32_t ids[64];
        int n = 0;
        CHECK(srt_tokenize(m, bad, sizeof bad - 1, SRT_TOKENIZE_NO_BOS, ids, 64, &n) == SRT_OK && n > 0, "%s: invalid UTF-8 tokenizes through byte tokens", name);
    }
    free(inp); free(out);
    srt_model_free(m);
}

int main(void) {
    if (system("mkdir -p build/tmp") != 0) return 1;
    check_vocab("llama-spm");
    check_vocab("phi-3");
    return srt_test_finish();
}
