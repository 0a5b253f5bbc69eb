/* fail_alloc.h - SRT_MALLOC / SRT_REALLOC that fail at one chosen allocation, for the tests that run
   out of memory at each allocation in turn (test_oom, test_grammar). Include before sparsert.h. */
#ifndef SRT_FAIL_ALLOC_H
#define SRT_FAIL_ALLOC_H
#include <stdlib.h>
static long srt_test_allocs, srt_test_fail_at;   /* allocation srt_test_fail_at (counted from 1 by srt_test_allocs) fails; 0: none does */
static size_t srt_test_fail_from;                 /* and (not 0) every request of this many bytes or more */
static int srt_test_fails(size_t n) { return ++srt_test_allocs == srt_test_fail_at || (srt_test_fail_from && n >= srt_test_fail_from); }
static void *srt_test_malloc(size_t n) { return srt_test_fails(n) ? NULL : malloc(n); }
static void *srt_test_realloc(void *p, size_t n) { return srt_test_fails(n) ? NULL : realloc(p, n); }
#define SRT_MALLOC(n) srt_test_malloc(n)
#define SRT_REALLOC(p, n) srt_test_realloc(p, n)
#define SRT_FREE(p) free(p)
#endif
