/* fuzz_llama2c.c - fuzz target for the llama2.c reader (tools/srt_import.h: v0 and v1 checkpoints
   with a tokenizer.bin).

   Input: the checkpoint, then optionally "\n@@file tokenizer.bin\n" and the tokenizer (the format
   of tests/fuzz_common.h; without it the checkpoint is opened with no tokenizer). Both go to
   temporary files, srti_open reads them, and a checkpoint that opens is used through fz_use_srti.
   Seeds (--seeds DIR): tiny v0 (shared and separate classifier) and v1 checkpoints with a tiny
   tokenizer, one with vocab 512 and ../shared/models/stories260K/tok512.bin. */
#define FZ_NAME "fuzz_llama2c"
#define FZ_PER_SEED 500
#define FZ_DICT {"24ka", "\x01\0\0\0", "\n@@file tokenizer.bin\n", "<0x0A>", "\xff\xff\xff\xff", "\0\0\0\x80", "\0\0\0\0", NULL}
#define FZ_SRTI
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    char path[512], tpath[512], err[512];
    fz_part parts[4];
    int n = fz_split_files(data, size, parts, 4), i, have_tok = 0;
    srti_model *m = NULL;
    fz_tmp_path(path, sizeof path, "model.bin");
    fz_tmp_path(tpath, sizeof tpath, "tokenizer.bin");
    if (!fz_write_file(path, parts[0].data, parts[0].n)) abort();
    for (i = 1; i < n; i++)
        if (!strcmp(parts[i].name, "tokenizer.bin")) { if (!fz_write_file(tpath, parts[i].data, parts[i].n)) abort(); have_tok = 1; break; }
    if (srti_open(path, have_tok ? tpath : NULL, &m, err, sizeof err) == 0) {
        if (have_tok && m->vocab.n_tokens != m->hp.n_vocab) { fprintf(stderr, "vocab %u tokens, model %u\n", m->vocab.n_tokens, m->hp.n_vocab); abort(); }
        fz_use_srti(m);
        srti_close(m);
    } else if (m || !err[0]) { fprintf(stderr, "failed open: model %p, message '%s'\n", (void *)m, err); abort(); }
    unlink(path);
    if (have_tok) unlink(tpath);
    return 0;
}

/* ---------------------------------------------------------------- seeds */
static uint32_t l_rng = 7;
static float l_rand(void) { l_rng = l_rng * 1664525u + 1013904223u; return (float)(l_rng >> 8) / 8388608.0f - 1.0f; }

/* dim 8, hidden 16, 1 layer, 2 heads, 1 kv head, seq_len 16 */
static void l_checkpoint(fz_buf *b, int v1, int vocab, int shared) {
    const uint64_t D = 8, H = 16, L = 1, hs = 4, KV = 4, S = 16, V = (uint64_t)vocab;
    uint64_t nf = L * (D + D * D + 2 * D * KV + D * D + D + 3 * D * H) + D + V * D + (shared ? 0 : V * D) + (v1 ? 0 : S * (hs / 2) * 2), i;
    int32_t hdr[7];
    hdr[0] = (int32_t)D; hdr[1] = (int32_t)H; hdr[2] = (int32_t)L; hdr[3] = 2; hdr[4] = 1; hdr[5] = shared || v1 ? vocab : -vocab; hdr[6] = (int32_t)S;
    if (v1) { fz_u32(b, 0x616b3432u); fz_u32(b, 1); }   /* "ak42" as a little-endian u32 */
    for (i = 0; i < 7; i++) fz_u32(b, (uint32_t)hdr[i]);
    if (v1) { fz_u8(b, (unsigned)shared); while (b->n < 256) fz_u8(b, 0); }
    for (i = 0; i < nf; i++) fz_f32(b, l_rand());
}
/* <unk> <s> </s>, <0x00>.., then short pieces with spaces */
static void l_tokenizer(fz_buf *b, int vocab) {
    int i;
    fz_u32(b, 8);
    for (i = 0; i < vocab; i++) {
        char s[16];
        if (i < 3) snprintf(s, sizeof s, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
        else if (i < 3 + 10) snprintf(s, sizeof s, "<0x%02X>", i - 3 + 0x0A);
        else snprintf(s, sizeof s, "%s%c%c", i % 3 ? " " : "", 'a' + i % 26, 'a' + (i / 26) % 26);
        fz_f32(b, (float)-i);
        fz_u32(b, (uint32_t)strlen(s));
        fz_puts(b, s);
    }
}

static int fz_make_seeds(const char *dir) {
    static const struct { const char *name; int v1, vocab, shared, tok; } seeds[] = {
        {"v0-shared.bin", 0, 32, 1, 1}, {"v0-separate.bin", 0, 32, 0, 1}, {"v1.bin", 1, 32, 1, 1},
        {"v1-separate-notok.bin", 1, 32, 0, 0}, {"v0-no-tokenizer.bin", 0, 32, 1, 0}, {"v0-tok512.bin", 0, 512, 1, 2}};
    /* a header of a negative vocabulary size (-32: v0's mark of a separate output matrix) with a
       tokenizer cut off after its max_token_length */
    static const unsigned char bad[54] = {8, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0xe0, 0xff, 0xff, 0xff, 16, 0, 0, 0,
                                          '\n', '@', '@', 'f', 'i', 'l', 'e', ' ', 't', 'o', 'k', 'e', 'n', 'i', 'z', 'e', 'r', '.', 'b', 'i', 'n', '\n',
                                          8, 0, 0, 0};
    size_t i;
    if (fz_seed(dir, "bad-header.bin", bad, sizeof bad)) return 1;
    for (i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        fz_buf b = {NULL, 0, 0};
        int rc;
        l_checkpoint(&b, seeds[i].v1, seeds[i].vocab, seeds[i].shared);
        if (seeds[i].tok == 1) {
            fz_buf t = {NULL, 0, 0};
            l_tokenizer(&t, seeds[i].vocab);
            fz_put_file(&b, "tokenizer.bin", t.p, t.n);
            free(t.p);
        } else if (seeds[i].tok == 2) {
            size_t n;
            unsigned char *p = fz_read_file("../shared/models/stories260K/tok512.bin", &n);
            if (!p) { free(b.p); continue; }
            fz_put_file(&b, "tokenizer.bin", p, n);
            free(p);
        }
        rc = fz_seed(dir, seeds[i].name, b.p, b.n);
        free(b.p);
        if (rc) return 1;
    }
    return 0;
}
