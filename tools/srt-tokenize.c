/* srt-tokenize - prints the token ids of a text, separated by single spaces.
   srt-tokenize -m MODEL.srt [--bos] [--no-bos] [--special] [--pieces] (--file F | TEXT)
   srt-tokenize -m MODEL.srt --bench F [--seconds S]
   No BOS by default (like llama.cpp's test vectors); --bos adds it. --special turns the texts of
   control tokens ("<|eot_id|>") into those tokens. --pieces prints one "id 'piece'" line per token
   instead. --bench tokenizes file F over and over on one thread for about S seconds (default 2)
   and prints the speed in MB/s (a benchmark, not a test). */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *read_all(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (n + 65536 + 1 > cap) {
            char *nb = (char *)realloc(buf, cap = (n + 65536 + 1) * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got == 0) break;
    }
    if (f != stdin) fclose(f);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

/* Tokenizes text repeatedly for about `seconds` of processor time; prints MB/s. */
static int bench(const srt_model *model, const char *text, size_t len, int flags, double seconds) {
    clock_t t0 = clock(), t1;
    double elapsed;
    int runs = 0, n = 0;
    int32_t *ids;
    if (srt_tokenize(model, text, len, flags, NULL, 0, &n) != SRT_OK && n == 0) { fprintf(stderr, "srt-tokenize: %s\n", srt_last_error()); return 1; }
    if (!(ids = (int32_t *)malloc(((size_t)n + 1) * sizeof *ids))) return 1;
    do {
        if (srt_tokenize(model, text, len, flags, ids, n, &n) != SRT_OK) { fprintf(stderr, "srt-tokenize: %s\n", srt_last_error()); free(ids); return 1; }
        runs++;
        t1 = clock();
    } while ((double)(t1 - t0) < seconds * CLOCKS_PER_SEC);
    elapsed = (double)(t1 - t0) / CLOCKS_PER_SEC;
    printf("%llu bytes -> %d tokens (%.2f bytes/token), %d runs in %.2f s: %.2f MB/s, %.0f tokens/s\n",
           (unsigned long long)len, n, n ? (double)len / n : 0.0, runs, elapsed,
           (double)len * runs / elapsed / 1e6, (double)n * runs / elapsed);
    free(ids);
    return 0;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *file = NULL, *text = NULL, *bench_file = NULL;
    int flags = SRT_TOKENIZE_NO_BOS, pieces = 0, special = 0, i, n = 0;
    double seconds = 2.0;
    char *buf = NULL;
    size_t len = 0;
    srt_model *model;
    srt_model_desc md;
    srt_status st;
    int32_t *ids;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) model_path = argv[++i];
        else if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!strcmp(argv[i], "--bos")) flags = SRT_TOKENIZE_ADD_BOS;
        else if (!strcmp(argv[i], "--no-bos")) flags = SRT_TOKENIZE_NO_BOS;
        else if (!strcmp(argv[i], "--pieces")) pieces = 1;
        else if (!strcmp(argv[i], "--special")) special = 1;
        else if (!strcmp(argv[i], "--bench") && i + 1 < argc) bench_file = argv[++i];
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: srt-tokenize -m MODEL.srt [--bos] [--special] [--pieces] (--file F | TEXT)\n"
                   "       srt-tokenize -m MODEL.srt --bench F [--seconds S]\n");
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "srt-tokenize: unknown option '%s'\n", argv[i]); return 2; }
        else text = argv[i];
    }
    if (!model_path || (!file && !text && !bench_file)) {
        fprintf(stderr, "usage: srt-tokenize -m MODEL.srt [--bos] [--special] [--pieces] (--file F | TEXT)\n"
                        "       srt-tokenize -m MODEL.srt --bench F [--seconds S]\n");
        return 2;
    }
    if (special) flags |= SRT_TOKENIZE_PARSE_SPECIAL;
    if (bench_file) file = bench_file;
    if (file) {
        if (!(buf = read_all(file, &len))) { fprintf(stderr, "srt-tokenize: cannot read %s\n", file); return 1; }
        text = buf;
    } else len = strlen(text);
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if ((st = srt_model_load(model_path, &md, &model)) != SRT_OK) {
        fprintf(stderr, "srt-tokenize: %s: %s\n", srt_status_str(st), srt_last_error());
        free(buf);
        return 1;
    }
    if (bench_file) {
        int rc = bench(model, text, len, flags, seconds);
        free(buf); srt_model_free(model);
        return rc;
    }
    srt_tokenize(model, text, len, flags, NULL, 0, &n);
    ids = (int32_t *)malloc(((size_t)n + 1) * sizeof *ids);
    if (!ids || (st = srt_tokenize(model, text, len, flags, ids, n, &n)) != SRT_OK) {
        fprintf(stderr, "srt-tokenize: %s: %s\n", srt_status_str(ids ? st : SRT_ERR_OUT_OF_MEMORY), srt_last_error());
        free(ids); free(buf); srt_model_free(model);
        return 1;
    }
    for (i = 0; i < n; i++) {
        if (pieces) printf("%6d '%s'\n", ids[i], srt_token_piece(model, ids[i]));
        else printf(i ? " %d" : "%d", ids[i]);
    }
    if (!pieces) printf("\n");
    free(ids); free(buf);
    srt_model_free(model);
    return 0;
}
