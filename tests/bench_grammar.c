/* bench_grammar.c - a micro-benchmark of constrained decoding's mask (sparsert.h section 11): the
   time to find the tokens a grammar allows next, per token of a text, over a model's vocabulary
   (a vocab-only pack is enough). Not a test (./build.sh builds it; test_grammar runs it once):

     build/bench-grammar VOCAB.srt [--grammar FILE] [--text FILE] [--reps 5] [--alone]

   The text (default: a JSON tool call with string arguments) is read as generation would draw
   it: at each step the longest allowed token that the text goes on with. At each step the mask is
   found three ways, and the median pass over --reps passes is reported per token:
   - walk: one walk of the vocabulary's byte trie (srt__gm_allowed);
   - cached: through the cache of the matcher's last states (srt__gm_allowed_cached, what a
     session uses when it samples), cold at the start of each pass; the same masks as the walk, or
     exit status 1;
   - alone (--alone): each token walked alone (srt__gm_token), the way without a trie. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_text =
    "{\"name\": \"book_flight\", \"arguments\": {\"from\": \"Paris\", \"to\": \"San Francisco\", \"date\": \"2026-12-24\", "
    "\"passengers\": 2, \"note\": \"Window seats if possible, please; we travel with a small dog and would like to board early.\", "
    "\"flexible\": true}}";

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 && (b = (char *)malloc((size_t)n + 1)) != NULL) {
        if (fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
        else b[n] = 0;
    }
    fclose(f);
    return b;
}
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* The longest token that mask allows and text[0..n) begins with; -1 if none. */
static int32_t longest(const srt__gtrie *t, const unsigned char *mask, const char *text, size_t n) {
    int32_t node = 0, best = -1, k, c;
    size_t i;
    for (i = 0; i < n; i++) {
        for (c = t->child[node]; c >= 0 && t->byte[c] != (unsigned char)text[i]; c = t->sib[c]) {}
        if (c < 0) break;
        node = c;
        for (k = t->tok[node]; k >= 0; k = t->next_tok[k]) if (mask[k]) best = k;
    }
    return best;
}

int main(int argc, char **argv) {
    const char *vocab = NULL, *gpath = NULL, *tpath = NULL;
    char *gbnf = NULL, *text = NULL;
    int reps = 5, alone = 0, a, r, steps = 0, bad = 0;
    double walk[101], cached[101], lone[101], t0, build_ms;
    uint64_t hits = 0, walks = 0;
    srt_model *m = NULL;
    srt_model_desc md;
    srt__grammar *g = NULL;
    srt__gtrie tr;
    unsigned char *al;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--alone")) alone = 1;
        else if (a + 1 < argc && !strcmp(argv[a], "--grammar")) gpath = argv[++a];
        else if (a + 1 < argc && !strcmp(argv[a], "--text")) tpath = argv[++a];
        else if (a + 1 < argc && !strcmp(argv[a], "--reps")) reps = atoi(argv[++a]);
        else if (argv[a][0] != '-' && !vocab) vocab = argv[a];
        else vocab = NULL, a = argc;
    }
    if (!vocab || reps < 1 || reps > 101) {
        fprintf(stderr, "usage: bench-grammar VOCAB.srt [--grammar FILE] [--text FILE] [--reps 5] [--alone]\n");
        return 2;
    }
    if ((gpath && !(gbnf = read_file(gpath))) || (tpath && !(text = read_file(tpath)))) { fprintf(stderr, "bench-grammar: cannot read %s\n", gbnf ? tpath : gpath); return 1; }
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    if (srt_model_load(vocab, &md, &m) != SRT_OK || srt__grammar_parse(gbnf ? gbnf : SRT_GRAMMAR_JSON, &g) != SRT_OK) {
        fprintf(stderr, "bench-grammar: %s\n", srt_last_error());
        return 1;
    }
    t0 = srt_time_ms();
    if (!srt__gtrie_build(&tr, &m->vocab) || !(al = (unsigned char *)malloc((size_t)m->vocab.n))) { fprintf(stderr, "bench-grammar: out of memory\n"); return 1; }
    build_ms = srt_time_ms() - t0;
    if (!text) text = (char *)default_text;
    for (r = 0; r < reps; r++) {
        srt__gmatch gm;
        srt__gcache gc;
        size_t at = 0, n = strlen(text);
        int step = 0;
        memset(&gc, 0, sizeof gc);
        walk[r] = cached[r] = lone[r] = 0;
        if (!srt__gm_init(&gm, g)) { fprintf(stderr, "bench-grammar: %s\n", srt_last_error()); return 1; }
        for (;;) {
            const unsigned char *ca;
            int na, nc = -1, k;
            int32_t tok;
            t0 = srt_time_ms();
            na = srt__gm_allowed(&gm, &tr, &m->vocab, al);
            walk[r] += srt_time_ms() - t0;
            t0 = srt_time_ms();
            ca = srt__gm_allowed_cached(&gc, &gm, &tr, &m->vocab, &nc);
            cached[r] += srt_time_ms() - t0;
            if (na < 0 || !ca) { fprintf(stderr, "bench-grammar: %s\n", srt_last_error()); return 1; }
            if (nc != na || memcmp(ca, al, (size_t)m->vocab.n) != 0) bad++;
            if (alone) {
                t0 = srt_time_ms();
                for (k = 0; k < m->vocab.n; k++) srt__gm_token(&gm, &m->vocab, k, 0);
                lone[r] += srt_time_ms() - t0;
            }
            step++;
            if (at == n) break;
            if ((tok = longest(&tr, al, text + at, n - at)) < 0 || !srt__gm_token(&gm, &m->vocab, tok, 1)) {
                fprintf(stderr, "bench-grammar: no allowed token goes on with the text at byte %zu\n", at);
                return 1;
            }
            at += m->vocab.text_len[tok];
        }
        if (!srt__gm_complete(&gm)) { fprintf(stderr, "bench-grammar: the grammar does not take the whole text\n"); return 1; }
        steps = step;
        hits = gc.hits; walks = gc.walks;
        srt__gcache_free(&gc);
        srt__gm_free(&gm);
    }
    qsort(walk, (size_t)reps, sizeof(double), cmp_double);
    qsort(cached, (size_t)reps, sizeof(double), cmp_double);
    qsort(lone, (size_t)reps, sizeof(double), cmp_double);
    printf("vocabulary %d tokens, trie %d nodes built in %.1f ms; %zu bytes of text in %d steps (the last: the end)\n",
           m->vocab.n, tr.n, build_ms, strlen(text), steps);
    printf("walk   %.3f ms a token\n", walk[reps / 2] / steps);
    printf("cached %.3f ms a token (%d of %d steps from the cache, %d walks), %.1fx the walk's speed; same masks: %s\n",
           cached[reps / 2] / steps, (int)hits, steps, (int)walks, walk[reps / 2] / (cached[reps / 2] > 0 ? cached[reps / 2] : 1e-9), bad ? "no" : "yes");
    if (alone) printf("alone  %.3f ms a token (each token walked alone)\n", lone[reps / 2] / steps);
    free(al);
    if (text != default_text) free(text);
    free(gbnf);
    srt__gtrie_free(&tr);
    srt__grammar_free(g);
    srt_model_free(m);
    return bad ? 1 : 0;
}
