/* fuzz_common.h - what the file-format fuzz targets (tests/fuzz_*.c) share: temporary files for
   loaders that take paths, inputs that hold several files, and the plain replay main().

   A target defines FZ_NAME (its name in the ok/FAIL lines), FZ_PER_SEED (deterministic mutations
   per seed in the plain build), FZ_DICT (a NULL-terminated list of byte strings the mutator
   inserts), includes this file first, then defines
       int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
       static int fz_make_seeds(const char *dir);  (writes generated seeds into dir; 0 = ok)
   Builds:
     libFuzzer  clang -g -O1 -fsanitize=fuzzer,address,undefined -DSRT_FUZZ_LIBFUZZER ... (./build.sh fuzz)
     AFL++      (checked with Debian's afl++ 4.04c; its -fsanitize=fuzzer links libAFLDriver.a, which
                calls LLVMFuzzerTestOneInput; AFL_USE_ASAN=1 adds ASan), after ./build.sh test or
                ./build.sh fuzz has made the seeds in build/fuzz/X:
                    AFL_USE_ASAN=1 afl-clang-fast -std=c99 -g -O1 -fsanitize=fuzzer -DSRT_FUZZ_LIBFUZZER -I. \
                        tests/fuzz_X.c -o build/fuzz_X_afl -lm -pthread
                    AFL_SKIP_CPUFREQ=1 afl-fuzz -i build/fuzz/X -o build/afl-X -- build/fuzz_X_afl
                For the targets that include sparsert.h (srt, tokenizer, chat) add -DSPARSERT_NO_X86 with
                AFL_USE_ASAN=1: clang 14's backend fails on the AVX intrinsics under AFL's pass + ASan
                ("Cannot emit physreg copy instruction"); the libFuzzer build has no such problem.
     plain      cc tests/fuzz_X.c (./build.sh): `fuzz_X SEED...` runs every seed and FZ_PER_SEED
                mutations of each (bit flips, interesting integers, dictionary words, deletions,
                duplications, truncations) through the target and prints one ok/FAIL line;
                `fuzz_X --seeds DIR` writes the generated seed corpus (from ../shared) into DIR.
                Environment: SRT_FUZZ_MUTATIONS (mutations per seed), SRT_FUZZ_SAVE=FILE (each input
                is written there before it runs: after a crash it holds the crashing one).
   Temporary files go to /dev/shm when it is there (else $TMPDIR or /tmp), named
   srt-fuzz-PID-*, and are removed by the target after each input. POSIX only. */
#ifndef SRT_FUZZ_COMMON_H
#define SRT_FUZZ_COMMON_H
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#  undef _POSIX_C_SOURCE
#  define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef _WIN32   /* mingw-w64 (./build.sh test wine builds the targets): mkdir takes no mode */
#  define fz_mkdir(path) mkdir(path)
#else
#  define fz_mkdir(path) mkdir(path, 0700)
#endif

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
static int fz_make_seeds(const char *dir);

/* ---------------------------------------------------------------- files */
static const char *fz_tmpdir(void) {
    static const char *dir;
    if (!dir) {
        struct stat st;
        const char *t = getenv("TMPDIR");
        if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) dir = "/dev/shm";
        else dir = t && t[0] ? t : "/tmp";
    }
    return dir;
}
/* A per-process temporary path: DIR/srt-fuzz-PID-name */
static void fz_tmp_path(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/srt-fuzz-%ld-%s", fz_tmpdir(), (long)getpid(), name);
}
static int fz_write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return 0;
    ok = fwrite(p, 1, n, f) == n;
    return (fclose(f) == 0) && ok;
}
static unsigned char *fz_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long len;
    *n = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = (unsigned char *)malloc((size_t)len + 1)) != NULL) {
        if (fread(p, 1, (size_t)len, f) != (size_t)len) { free(p); p = NULL; }
        else *n = (size_t)len;
    }
    fclose(f);
    return p;
}
static int fz_seed(const char *dir, const char *name, const void *p, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!fz_write_file(path, p, n)) { fprintf(stderr, "%s: cannot write %s\n", FZ_NAME, path); return 1; }
    return 0;
}

/* ---------------------------------------------------------------- growing byte buffer */
typedef struct fz_buf { unsigned char *p; size_t n, cap; } fz_buf;
static void fz_put(fz_buf *b, const void *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        unsigned char *np = (unsigned char *)realloc(b->p, cap);
        if (!np) abort();
        b->p = np; b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void fz_puts(fz_buf *b, const char *s) { fz_put(b, s, strlen(s)); }
static void fz_u8(fz_buf *b, unsigned v) { unsigned char c = (unsigned char)v; fz_put(b, &c, 1); }
static void fz_u32(fz_buf *b, uint32_t v) { int i; for (i = 0; i < 4; i++) fz_u8(b, (v >> (8 * i)) & 255); }
static void fz_u64(fz_buf *b, uint64_t v) { int i; for (i = 0; i < 8; i++) fz_u8(b, (unsigned)((v >> (8 * i)) & 255)); }
static void fz_f32(fz_buf *b, float f) { uint32_t u; memcpy(&u, &f, 4); fz_u32(b, u); }

/* ---------------------------------------------------------------- inputs of several files
   An input is CONTENT0 followed by any number of "\n@@file NAME\n" CONTENT sections. CONTENT0
   belongs to the target's default file; NAME picks another (the target decides which names it
   accepts, so no input names a path outside its temporary folder). */
#define FZ_FILE_MARK "\n@@file "
typedef struct fz_part { char name[64]; const unsigned char *data; size_t n; } fz_part;
static const unsigned char *fz_find(const unsigned char *p, size_t n, const char *needle) {
    size_t k = strlen(needle), i;
    for (i = 0; i + k <= n; i++) if (p[i] == (unsigned char)needle[0] && memcmp(p + i, needle, k) == 0) return p + i;
    return NULL;
}
/* Splits data into at most cap parts; returns the count. Part 0 has the name "". */
static int fz_split_files(const unsigned char *data, size_t size, fz_part *parts, int cap) {
    const unsigned char *p = data, *end = data + size;
    int n = 0;
    const char *name = "";
    size_t name_len = 0;
    const size_t mk = strlen(FZ_FILE_MARK);
    while (n < cap) {
        const unsigned char *m = fz_find(p, (size_t)(end - p), FZ_FILE_MARK), *nl;
        const unsigned char *stop = m ? m : end;
        size_t k = name_len < sizeof parts[n].name ? name_len : sizeof parts[n].name - 1;
        memcpy(parts[n].name, name, k);
        parts[n].name[k] = 0;
        parts[n].data = p;
        parts[n].n = (size_t)(stop - p);
        n++;
        if (!m) break;
        name = (const char *)m + mk;
        nl = (const unsigned char *)memchr(name, '\n', (size_t)(end - (const unsigned char *)name));
        if (!nl) break;
        name_len = (size_t)(nl - (const unsigned char *)name);
        p = nl + 1;
    }
    return n;
}
static void fz_put_file(fz_buf *b, const char *name, const void *p, size_t n) {
    if (name) { fz_puts(b, FZ_FILE_MARK); fz_puts(b, name); fz_puts(b, "\n"); }
    fz_put(b, p, n);
}

/* ---------------------------------------------------------------- an opened checkpoint, used
   (targets that include tools/srt_import.h first): every field of the vocabulary is touched, every
   tensor of a supported type is read and dequantized (up to 16M values each), metadata looked up,
   srti_check_llama run. ASan sees any field that points to the wrong place. A target that
   wants it defines FZ_SRTI (this file then includes tools/srt_import.h with its implementation). */
#ifdef FZ_SRTI
#define SRT_IMPORT_IMPLEMENTATION
#include "tools/srt_import.h"
static void fz_use_srti(srti_model *m) {
    char err[512];
    uint32_t i;
    const char *s;
    int64_t iv;
    double dv;
    size_t sum = strlen(m->hp.arch) + strlen(m->hp.name) + strlen(m->vocab.model) + strlen(m->vocab.pre);
    for (i = 0; i < m->vocab.n_tokens; i++) {
        sum += strlen(m->vocab.tokens[i]);
        if (m->vocab.scores) sum += m->vocab.scores[i] > 0;
        if (m->vocab.types) sum += (size_t)m->vocab.types[i];
    }
    for (i = 0; i < m->vocab.n_merges; i++) sum += strlen(m->vocab.merges[i]);
    if (m->vocab.chat_template) sum += strlen(m->vocab.chat_template);
    srti_meta_str(m, "general.architecture", &s);
    srti_meta_int(m, "llama.block_count", &iv);
    srti_meta_float(m, "llama.rope.freq_base", &dv);
    srti_check_llama(m, err, sizeof err);
    for (i = 0; i < m->n_tensors; i++) {
        const srti_tensor *t = &m->tensors[i];
        uint64_t nv = srti_tensor_nvalues(t);
        float *v;
        sum += strlen(t->name);
        if (srti_find(m, t->name) < 0) { fprintf(stderr, "tensor %s not found by name\n", t->name); abort(); }
        if (!srti_type_supported(t->src_type) || nv == 0 || nv > ((uint64_t)1 << 24)) continue;
        v = (float *)malloc((size_t)nv * sizeof(float));
        if (!v) continue;
        if (srti_read_f32(m, i, v, err, sizeof err) == 0) sum += v[nv - 1] > 0;
        free(v);
    }
    if (sum == 1) fprintf(stderr, " ");   /* keeps the reads */
}
#endif

/* ---------------------------------------------------------------- the plain replay main */
#ifndef SRT_FUZZ_LIBFUZZER
static uint64_t fz_rng = 0x9E3779B97F4A7C15ull;
static uint32_t fz_rand(void) { fz_rng ^= fz_rng << 13; fz_rng ^= fz_rng >> 7; fz_rng ^= fz_rng << 17; return (uint32_t)(fz_rng >> 11); }

static const char *const fz_dict[] = FZ_DICT;
static size_t fz_mutate(unsigned char *buf, size_t n, size_t cap) {
    static const uint64_t interesting[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 1023, 1024,
                                           4096, 32767, 32768, 65535, 65536, 0x7fffffffull, 0x80000000ull, 0xffffffffull,
                                           0x100000000ull, 0x7fffffffffffffffull, 0xffffffffffffffffull};
    int edits = 1 + (int)(fz_rand() % 3), e, nd = 0;
    while (fz_dict[nd]) nd++;
    for (e = 0; e < edits; e++) {
        /* half of the edits land in the first 4 KiB, where the headers are */
        size_t span = (fz_rand() & 1) && n > 4096 ? 4096 : n;
        size_t at = span ? fz_rand() % span : 0, k;
        switch (fz_rand() % 8) {
            case 0: if (n) buf[at] ^= (unsigned char)(1u << (fz_rand() % 8)); break;
            case 1: if (n) buf[at] = (unsigned char)fz_rand(); break;
            case 2: {   /* an interesting little-endian integer of 1, 2, 4 or 8 bytes */
                uint64_t v = interesting[fz_rand() % (sizeof interesting / sizeof interesting[0])];
                size_t w = (size_t)1 << (fz_rand() % 4), i;
                if (fz_rand() & 1) v = (uint64_t)0 - v;
                for (i = 0; i < w && at + i < n; i++) buf[at + i] = (unsigned char)(v >> (8 * i));
                break;
            }
            case 3: k = n - at ? 1 + fz_rand() % (n - at) : 0; if (k > 16) k = 1 + fz_rand() % 16; memmove(buf + at, buf + at + k, n - at - k); n -= k; break;
            case 4: k = 1 + fz_rand() % 32; if (at + k > n) k = n - at; if (n + k <= cap) { memmove(buf + at + k, buf + at, n - at); n += k; } break;
            case 5: if (fz_rand() % 4 == 0) n = at; break;
            default:
                if (nd) {
                    const char *w = fz_dict[fz_rand() % (uint32_t)nd];
                    k = strlen(w);
                    if (fz_rand() & 1) { if (at + k <= n) memcpy(buf + at, w, k); }
                    else if (n + k <= cap) { memmove(buf + at + k, buf + at, n - at); memcpy(buf + at, w, k); n += k; }
                }
        }
    }
    return n;
}

int main(int argc, char **argv) {
    int i, per_seed = FZ_PER_SEED;
    long inputs = 0, seeds = 0;
    const char *env = getenv("SRT_FUZZ_MUTATIONS"), *save = getenv("SRT_FUZZ_SAVE");
    if (argc == 3 && !strcmp(argv[1], "--seeds")) {
        if (fz_make_seeds(argv[2]) != 0) { fprintf(stderr, "%s: could not make the seeds in %s\n", FZ_NAME, argv[2]); return 1; }
        return 0;
    }
    if (env) per_seed = atoi(env);
    for (i = 1; i < argc; i++) {
        unsigned char *seed, *buf;
        size_t len, n, cap;
        int m;
        seed = fz_read_file(argv[i], &len);
        if (!seed) { printf("FAIL - %s: cannot read %s\n", FZ_NAME, argv[i]); return 1; }
        cap = len * 2 + 256;
        buf = (unsigned char *)malloc(cap);
        if (!buf) return 1;
        LLVMFuzzerTestOneInput(seed, len);
        for (m = 0; m < per_seed; m++) {
            /* exact-size copies so that reading past the end is caught by ASan */
            unsigned char *exact;
            memcpy(buf, seed, len);
            n = fz_mutate(buf, len, cap);
            exact = (unsigned char *)malloc(n ? n : 1);
            if (!exact) return 1;
            memcpy(exact, buf, n);
            if (save) fz_write_file(save, exact, n);   /* the input that crashes is left there */
            LLVMFuzzerTestOneInput(exact, n);
            free(exact);
        }
        inputs += 1 + per_seed;
        seeds++;
        free(seed);
        free(buf);
    }
    printf("%s - %s: %ld inputs (%ld seeds + mutations) loaded or refused without a crash\n", seeds ? "ok" : "FAIL", FZ_NAME, inputs, seeds);
    return seeds > 0 ? 0 : 1;
}
#endif
#endif
