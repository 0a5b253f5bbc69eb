/* testing.h - the smallest test harness that works: every check prints one line,
   "ok - what" or "FAIL - what (file:line): detail", and build.sh counts them.
   A test program exits non-zero if any check failed. */
#ifndef SRT_TESTING_H
#define SRT_TESTING_H
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <stdint.h>

static int srt_test_failed_count;
static int srt_test_passed_count;

/* CHECK(cond, "name fmt", ...): one test item (its format checked like printf's where the
   compiler can: arguments in the wrong order crash the test instead of failing it). */
#if defined(__MINGW32__)
__attribute__((format(gnu_printf, 4, 5)))
#elif defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void srt_test_check(int ok, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (ok) { srt_test_passed_count++; printf("ok - "); }
    else { srt_test_failed_count++; printf("FAIL - "); }
    vprintf(fmt, ap);
    if (!ok) printf(" (%s:%d)", file, line);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}
#define CHECK(cond, ...) srt_test_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
/* Deterministic test data: uniform in [-1, 1) (a 64-bit LCG; seed it by assigning srt_test_rng). */
static uint64_t srt_test_rng = 12345;
static float srt_test_frand(void) {
    srt_test_rng = srt_test_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((srt_test_rng >> 40) / 8388608.0) - 1.0f;
}
/* How far a bf16 product on AMX tiles may be from the reference (sparsert_x86.h, AMX bf16): x in
   two bf16 parts is within 2^-17 of x, and the f32 sums run in another order; 2^-14 of sum |w x|
   (w before rounding to bf16: 2^-9 of it at most) bounds both with room. */
static double srt_test_amx_bf16_tol(const float *w, const float *x, int K) {
    double s = 0;
    int k;
    for (k = 0; k < K; k++) s += (w[k] < 0 ? -w[k] : w[k]) * (double)(x[k] < 0 ? -x[k] : x[k]);
    return s / 16384.0 + 1e-30;
}
/* Call at the end of main(). The count goes to stdout with the checks: under wine, a nested wine
   program that starts the desktop process (explorer.exe, which fails without a display) has left
   its parent's stderr writing nowhere (test_kv, after a srt-bench make-model: every check passed,
   the count on stderr was lost, and build.sh took the run for one cut short). */
static int srt_test_finish(void) {
    printf("%d checks passed, %d failed\n", srt_test_passed_count, srt_test_failed_count);
    fflush(stdout);
    return srt_test_failed_count ? 1 : 0;
}
/* Whole file, NUL-terminated (the NUL is not counted in *n); NULL if unreadable. Caller frees. */
#include <stdlib.h>
static char *srt_test_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    char *b = NULL, *nb;
    size_t cap = 0, len = 0, got;
    if (!f) return NULL;
    do {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65537) * 2;
            if (!(nb = (char *)realloc(b, cap))) { free(b); fclose(f); return NULL; }
            b = nb;
        }
        got = fread(b + len, 1, 65536, f);
        len += got;
    } while (got > 0);
    fclose(f);
    b[len] = 0;
    if (n) *n = len;
    return b;
}
#ifdef SPARSERT_H   /* (test_json has no sparsert.h) */
/* The kernel levels a test checks: those this CPU has; under test_*_vnni.c (SRT_TEST_AVXVNNI_EVEX)
   the portable reference and AVX-VNNI alone. */
static int srt_test_level_checked(int isa) {
#ifdef SRT_TEST_AVXVNNI_EVEX
    if (isa != SRT_ISA_PORTABLE && isa != SRT_ISA_AVXVNNI) return 0;
#endif
    return srt_isa_supported((srt_isa)isa);
}
/* The .srt file's directory (formats/SRT.md) in d[0..n): the entry of tensor `name` from its format
   field on (format, group, rows, cols, n_parts, the parts), NULL if absent or not an .srt;
   *n_tensors (optional) the tensor count. */
#define SRT_TEST_LE32(q) ((uint32_t)(q)[0] | (uint32_t)(q)[1] << 8 | (uint32_t)(q)[2] << 16 | (uint32_t)(q)[3] << 24)
#define SRT_TEST_LE64(q) ((uint64_t)SRT_TEST_LE32(q) | (uint64_t)SRT_TEST_LE32((q) + 4) << 32)
static const unsigned char *srt_dir_find(const unsigned char *d, size_t n, const char *name, uint32_t *n_tensors) {
    size_t p;
    uint32_t i, nt;
    if (!d || n < 128 || memcmp(d, "SRTM", 4)) return NULL;
    p = (size_t)SRT_TEST_LE64(d + 32);
    nt = SRT_TEST_LE32(d + 52);
    if (n_tensors) *n_tensors = nt;
    for (i = 0; i < nt && p + 4 <= n; i++) {
        uint32_t len = SRT_TEST_LE32(d + p);
        const unsigned char *e = d + p + 4 + len;
        if (p + 4 + len + 32 > n) break;
        if (len == strlen(name) && !memcmp(d + p + 4, name, len)) return e;
        p += 4 + len + 28 + (size_t)SRT_TEST_LE32(e + 24) * 24;
    }
    return NULL;
}
/* The directory entry of one tensor: format, rows, cols; 0 if absent. */
static int srt_dir_entry(const char *path, const char *name, uint32_t *format, uint64_t *rows, uint64_t *cols, uint32_t *n_tensors) {
    size_t n;
    unsigned char *d = (unsigned char *)srt_test_read_file(path, &n);
    const unsigned char *e = srt_dir_find(d, n, name, n_tensors);
    if (e) { *format = SRT_TEST_LE32(e); *rows = SRT_TEST_LE64(e + 8); *cols = SRT_TEST_LE64(e + 16); }
    free(d);
    return e != NULL;
}
/* Tensor `name` dequantized into out (rows x cols floats) through its parts as the directory gives
   them; 0 if absent or unreadable. */
static int srt_read_tensor(const char *path, const char *name, float *out, uint32_t *format) {
    size_t n;
    unsigned char *d = (unsigned char *)srt_test_read_file(path, &n);
    const unsigned char *e = srt_dir_find(d, n, name, NULL);
    const void *pp[4] = {NULL, NULL, NULL, NULL};
    uint32_t j, parts = e ? SRT_TEST_LE32(e + 24) : 0;
    int ok = e && parts <= 4;
    for (j = 0; ok && j < parts; j++) {
        uint64_t off = SRT_TEST_LE64(e + 28 + 24 * j + 4), size = SRT_TEST_LE64(e + 28 + 24 * j + 12);
        if (off > n || size > n - off) ok = 0;
        else pp[j] = d + off;
    }
    if (ok) {
        *format = SRT_TEST_LE32(e);
        ok = srt_dequantize((srt_format)*format, SRT_TEST_LE32(e + 4), pp, SRT_TEST_LE64(e + 8), SRT_TEST_LE64(e + 16), out) == SRT_OK;
    }
    free(d);
    return ok;
}
#endif
/* The integers of a text file (token ids separated by anything else), at most cap; -1 if unreadable. */
static int srt_test_read_ids(const char *path, int32_t *ids, int cap) {
    char *t = srt_test_read_file(path, NULL), *p;
    int n = 0;
    if (!t) return -1;
    for (p = t; *p && n < cap;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) { p++; continue; }
        ids[n++] = (int32_t)v;
        p = end;
    }
    free(t);
    return n;
}
/* Shell commands. The tests run their tools with system() and sh syntax ("build/srt-pack ... > log",
   pipes, mkdir -p). On Windows system() would hand them to cmd.exe, so there they go to a POSIX sh
   instead: under wine the Linux /bin/sh (wine starts Linux programs but cannot wait for them, so the
   script leaves its exit status in a file that is polled), on Windows itself the sh on PATH (MSYS2,
   Git for Windows). The command is written to a script file in the current folder first, so no
   quoting is lost on the way. WIFEXITED/WEXITSTATUS read the returned status on both. */
#ifdef _WIN32
#include <windows.h>
#include <process.h>
static int srt_test_system(const char *cmd) {
    static int seq;
    char script[80], status[80], tmp[96];
    int wine = GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != NULL;
    int rc = -1, i;
    FILE *f;
    if (!cmd) return 1;
    fflush(NULL);
    sprintf(script, ".srt-test-sh-%lu-%d", (unsigned long)GetCurrentProcessId(), seq++);
    sprintf(status, "%s.status", script);
    sprintf(tmp, "%s.tmp", status);
    if (!(f = fopen(script, "wb"))) return -1;
    if (wine) fprintf(f, "(\n%s\n)\necho $? > %s && mv %s %s\n", cmd, tmp, tmp, status);
    else fprintf(f, "%s\n", cmd);
    fclose(f);
    if (!wine) rc = (int)_spawnlp(_P_WAIT, "sh", "sh", script, (char *)NULL);
    else if (_spawnl(_P_NOWAIT, "/bin/sh", "sh", script, (char *)NULL) != -1 ||
             _spawnl(_P_NOWAIT, "/bin/sh", "sh", script, (char *)NULL) != -1) {   /* a failed start: once more */
        for (i = 0; i < 100 * 3600 && !(f = fopen(status, "rb")); i++) Sleep(10);   /* at most an hour */
        if (f) { if (fscanf(f, "%d", &rc) != 1) rc = -1; fclose(f); }
        remove(status);
    }
    remove(script);
    return rc;
}
#define system srt_test_system
#ifndef WIFEXITED
#define WIFEXITED(st) ((st) != -1)
#define WEXITSTATUS(st) (st)
#endif
#endif
/* ../shared lives beside the repository; tests run from the repository root. */
#ifndef SRT_SHARED
#define SRT_SHARED "../shared"
#endif
#endif
