/* fail_alloc.h - the implementation with an SRT_MALLOC / SRT_REALLOC that fails at one chosen
   allocation, and each_allocation, which runs a case out of memory at each of its allocations in
   turn (test_oom, test_grammar). Include it instead of sparsert.h's implementation and testing.h. */
#ifndef SRT_FAIL_ALLOC_H
#define SRT_FAIL_ALLOC_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static long srt_test_allocs, srt_test_fail_at;   /* allocation srt_test_fail_at (counted from 1 by srt_test_allocs) fails; 0: none does */
static size_t srt_test_fail_from;                 /* and (not 0) every request of this many bytes or more */
static int srt_test_fails(size_t n) { return ++srt_test_allocs == srt_test_fail_at || (srt_test_fail_from && n >= srt_test_fail_from); }
static void *srt_test_malloc(size_t n) { return srt_test_fails(n) ? NULL : malloc(n); }
static void *srt_test_realloc(void *p, size_t n) { return srt_test_fails(n) ? NULL : realloc(p, n); }
#define SRT_MALLOC(n) srt_test_malloc(n)
#define SRT_REALLOC(p, n) srt_test_realloc(p, n)
#define SRT_FREE(p) free(p)
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "tests/testing.h"

/* FNV-1a over bytes, to compare what two runs gave (h 0: a new hash). */
static uint64_t hash(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    if (!h) h = 1469598103934665603ull;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* One run of a case: its status, and in *h a hash of what it gave (when SRT_OK). */
typedef srt_status (*oom_case)(void *ctx, uint64_t *h);

/* Runs c once, then once per allocation it made with that allocation failing: each run must give
   the first run's status and hash, or SRT_ERR_OUT_OF_MEMORY saying "out of memory". want: the
   status of the run where nothing fails. Every allocation when there are at most max_runs, else
   max_runs spread over them (the first half, then evenly). */
static void each_allocation(const char *what, oom_case c, void *ctx, srt_status want, long max_runs) {
    uint64_t h0 = 0, h;
    srt_status st0, st;
    long total, k, step, runs = 0, ooms = 0, bad = 0;
    srt_test_allocs = 0; srt_test_fail_at = 0;
    st0 = c(ctx, &h0);
    total = srt_test_allocs;
    step = total <= max_runs ? 1 : (total - max_runs / 2) / (max_runs / 2) + 1;
    for (k = 1; k <= total; k += k < max_runs / 2 ? 1 : step) {
        h = 0;
        srt_test_allocs = 0; srt_test_fail_at = k;
        st = c(ctx, &h);
        srt_test_fail_at = 0;
        runs++;
        if (st == SRT_ERR_OUT_OF_MEMORY && strstr(srt_last_error(), "out of memory")) ooms++;
        else if (st != st0 || (st == SRT_OK && h != h0)) {
            if (bad++ < 3) printf("# %s: allocation %ld of %ld failing: status %d (%s)\n", what, k, total, (int)st, srt_last_error());
        }
    }
    CHECK(st0 == want && !bad && (ooms > 0 || !total),
          "%s: out of memory at %ld of its %ld allocations: %ld runs out of memory, %ld other answers (first run: %s)",
          what, runs, total, ooms, bad, srt_status_str(st0));
}
#endif
