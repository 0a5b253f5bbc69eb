/* test_pool.c - topology detection on fake machines (sysfs trees and CPUID tables written here),
   core policies, and the pool: every item once, bit-exact results for any thread count and
   schedule, a slowed worker, nested calls, several callers, shutdown, pinning. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#include "testing.h"
#include "tiny_model.h"
#include <stdlib.h>
#include <sys/stat.h>
#ifdef _WIN32
#  include <direct.h>
#  define srt_test_mkdir(p) _mkdir(p)
#else
#  define srt_test_mkdir(p) mkdir(p, 0755)
#endif

#define ROOT "build/tmp/topo"

/* ---------------------------------------------------------------- fake sysfs */
static void mkdirs(const char *path) {   /* mkdir -p of the directory part of path */
    char buf[512];
    size_t i;
    snprintf(buf, sizeof buf, "%s", path);
    for (i = 1; buf[i]; i++)
        if (buf[i] == '/') { buf[i] = 0; srt_test_mkdir(buf); buf[i] = '/'; }
}
static void wfile(const char *machine, const char *text, const char *fmt, ...) {
    char rel[256], path[512];
    FILE *f;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/%s%s", ROOT, machine, rel);
    mkdirs(path);
    f = fopen(path, "wb");
    if (!f) { printf("FAIL - cannot write %s\n", path); return; }
    fprintf(f, "%s\n", text);
    fclose(f);
}
/* One logical CPU: its hardware-thread siblings, max kHz (0 = no cpufreq), capacity (0 = none),
   L2 and L3 sharing lists ("" = none). */
static void wcpu(const char *m, int cpu, const char *siblings, long khz, long cap, const char *l2, const char *l3) {
    char num[32];
    wfile(m, siblings, "/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
    wfile(m, "0", "/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    if (khz) { snprintf(num, sizeof num, "%ld", khz); wfile(m, num, "/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu); }
    if (cap) { snprintf(num, sizeof num, "%ld", cap); wfile(m, num, "/devices/system/cpu/cpu%d/cpu_capacity", cpu); }
    wfile(m, "1", "/devices/system/cpu/cpu%d/cache/index0/level", cpu);
    snprintf(num, sizeof num, "%d", cpu);
    wfile(m, num, "/devices/system/cpu/cpu%d/cache/index0/shared_cpu_list", cpu);
    if (*l2) { wfile(m, "2", "/devices/system/cpu/cpu%d/cache/index2/level", cpu); wfile(m, l2, "/devices/system/cpu/cpu%d/cache/index2/shared_cpu_list", cpu); }
    if (*l3) { wfile(m, "3", "/devices/system/cpu/cpu%d/cache/index3/level", cpu); wfile(m, l3, "/devices/system/cpu/cpu%d/cache/index3/shared_cpu_list", cpu); }
}

/* Raptor Lake i9-13900K style: 8 P-cores with SMT (cpus 0-15, siblings 2k,2k+1) and 16 E-cores in
   4-core L2 modules (16-31), one L3. with_pmu: also /sys/devices/cpu_core|cpu_atom. */
static void make_raptor(const char *m, int with_pmu) {
    char sib[32], l2[32];
    int c;
    wfile(m, "0-31", "/devices/system/cpu/online");
    wfile(m, "0-31", "/devices/system/node/node0/cpulist");
    for (c = 0; c < 16; c++) {
        snprintf(sib, sizeof sib, "%d-%d", c & ~1, (c & ~1) + 1);
        wcpu(m, c, sib, c < 4 ? 5800000 : 5400000, 0, sib, "0-31");
    }
    for (c = 16; c < 32; c++) {
        snprintf(sib, sizeof sib, "%d", c);
        snprintf(l2, sizeof l2, "%d-%d", c & ~3, (c & ~3) + 3);
        wcpu(m, c, sib, 4300000, 0, l2, "0-31");
    }
    if (with_pmu) { wfile(m, "0-15", "/devices/cpu_core/cpus"); wfile(m, "16-31", "/devices/cpu_atom/cpus"); }
}
/* Fake CPUID of that part: hybrid bit, leaf 0x1A = Core on 0-15, Atom on 16-31. */
static int raptor_cpuid(void *user, int cpu, uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    (void)user; (void)sub;
    r[0] = r[1] = r[2] = r[3] = 0;
    if (leaf == 0) { r[0] = 0x20; return 1; }
    if (leaf == 7) { r[3] = 1u << 15; return 1; }
    if (leaf == 0x1a) { r[0] = (cpu < 16 ? 0x40u : 0x20u) << 24 | 1; return 1; }
    return 1;
}
/* A plain (non-hybrid) part: CPUID has leaf 0x1A but no hybrid bit. */
static int plain_cpuid(void *user, int cpu, uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    (void)user; (void)sub; (void)cpu;
    r[0] = r[1] = r[2] = r[3] = 0;
    if (leaf == 0) r[0] = 0x20;
    return 1;
}
/* Lunar Lake: 4 P-cores (0-3, shared L3) and 4 low-power E-cores (4-7, own L2, no L3). */
static void make_lunar(const char *m) {
    int c;
    char s[32];
    wfile(m, "0-7", "/devices/system/cpu/online");
    for (c = 0; c < 8; c++) {
        snprintf(s, sizeof s, "%d", c);
        if (c < 4) wcpu(m, c, s, 5100000, 0, s, "0-3");
        else wcpu(m, c, s, 3700000, 0, "4-7", "");
    }
    wfile(m, "0-3", "/devices/cpu_core/cpus");
    wfile(m, "4-7", "/devices/cpu_atom/cpus");
}
/* Meteor Lake H: 6 P-cores with SMT (0-11), 8 E-cores (12-19) on the L3, 2 LP E-cores (20-21) off it. */
static void make_meteor(const char *m) {
    int c;
    char s[32];
    wfile(m, "0-21", "/devices/system/cpu/online");
    for (c = 0; c < 22; c++) {
        if (c < 12) { snprintf(s, sizeof s, "%d-%d", c & ~1, (c & ~1) + 1); wcpu(m, c, s, 4800000, 0, s, "0-19"); }
        else if (c < 20) { snprintf(s, sizeof s, "%d", c); wcpu(m, c, s, 3800000, 0, c < 16 ? "12-15" : "16-19", "0-19"); }
        else { snprintf(s, sizeof s, "%d", c); wcpu(m, c, s, 2500000, 0, "20-21", ""); }
    }
    wfile(m, "0-11", "/devices/cpu_core/cpus");
    wfile(m, "12-21", "/devices/cpu_atom/cpus");
}
/* A phone: 3 little (0-2), 4 mid (3-6), 1 prime (7); capacity and frequency both given. */
static void make_phone(const char *m, int with_capacity) {
    int c;
    char s[32];
    wfile(m, "0-7", "/devices/system/cpu/online");
    for (c = 0; c < 8; c++) {
        snprintf(s, sizeof s, "%d", c);
        wcpu(m, c, s, c < 3 ? 2016000 : c < 7 ? 2803200 : 3187200, with_capacity ? (c < 3 ? 325 : c < 7 ? 870 : 1024) : 0, c < 3 ? "0-2" : s, "0-7");
    }
}
/* Desktop, 8 cores / 16 threads, siblings k and k+8, two favoured cores 4% faster. */
static void make_desktop(const char *m) {
    int c;
    char s[16];
    wfile(m, "0-15", "/devices/system/cpu/online");
    for (c = 0; c < 16; c++) {
        snprintf(s, sizeof s, "%d,%d", c % 8, c % 8 + 8);
        wcpu(m, c, s, (c % 8) < 2 ? 4900000 : 4700000, 0, s, "0-15");
    }
}
/* 2-vCPU VM: just the CPU list and trivial topology. */
static void make_vm(const char *m) {
    wfile(m, "0-1", "/devices/system/cpu/online");
    wfile(m, "0", "/devices/system/cpu/cpu0/topology/thread_siblings_list");
    wfile(m, "1", "/devices/system/cpu/cpu1/topology/thread_siblings_list");
}

static int detect(const char *m, int (*cpuid)(void *, int, uint32_t, uint32_t, uint32_t[4]), srt_topology *t) {
    char root[256];
    srt_topology_probe pr;
    memset(&pr, 0, sizeof pr);
    snprintf(root, sizeof root, "%s/%s", ROOT, m);
    pr.sysfs_root = root; pr.fake = 1; pr.cpuid = cpuid;
    return srt_topology_detect(&pr, t) == SRT_OK;
}
/* select() as a "0,2,4" string */
static const char *sel(const srt_topology *t, srt_cores policy) {
    static char buf[1024];
    int cpus[SRT_MAX_CPUS], n = srt_cores_select(t, policy, NULL, cpus, SRT_MAX_CPUS), i;
    size_t len = 0;
    buf[0] = 0;
    for (i = 0; i < n; i++) len += (size_t)snprintf(buf + len, sizeof buf - len, i ? ",%d" : "%d", cpus[i]);
    return buf;
}
static int counts(const srt_topology *t, int cpus, int cores, int p, int e, int hybrid) {
    int ok = t->n_cpus == cpus && t->n_cores == cores && t->n_perf_cores == p && t->n_eff_cores == e && t->hybrid == hybrid;
    if (!ok) printf("# got cpus %d cores %d P %d E %d hybrid %d (%s)\n", t->n_cpus, t->n_cores, t->n_perf_cores, t->n_eff_cores, t->hybrid, t->source);
    return ok;
}
#define SEL_IS(t, pol, want) (strcmp(sel(t, pol), want) == 0 || (printf("# %s: got %s\n", #pol, sel(t, pol)), 0))

static void test_topology(void) {
    static srt_topology t;
    int cpus[8], i, ok;
#ifndef _WIN32
    if (system("rm -rf " ROOT) != 0) printf("# could not clear " ROOT "\n");
#endif
    make_raptor("raptor", 1); make_raptor("raptor_cpuid", 0); make_lunar("lunar"); make_meteor("meteor");
    make_phone("phone", 1); make_phone("phone_freq", 0); make_desktop("desktop"); make_vm("vm");

    CHECK(srt_parse_cpu_list("0-3,8,10-11\n", cpus, 8) == 7 && cpus[4] == 8 && cpus[6] == 11, "cpu list \"0-3,8,10-11\"");
    CHECK(srt_parse_cpu_list("3-1", cpus, 8) == -1 && srt_parse_cpu_list("1,,2", cpus, 8) == -1 && srt_parse_cpu_list("x", cpus, 8) == -1, "malformed cpu lists are refused");

    CHECK(detect("raptor", NULL, &t) && counts(&t, 32, 24, 8, 16, 1) && strcmp(t.source, "cpu_core/cpu_atom") == 0,
          "Raptor Lake 8P+16E (SMT) from cpu_core/cpu_atom: 32 cpus, 24 cores");
    CHECK(t.cpu[1].core == t.cpu[0].core && t.cpu[1].smt == 1 && t.cpu[16].type == SRT_CORE_EFFICIENCY && t.cpu[15].type == SRT_CORE_PERFORMANCE && t.cpu[20].llc == 0 && t.cpu[0].max_khz == 5800000,
          "Raptor Lake: SMT siblings share a core, types, LLC, max frequency");
    CHECK(SEL_IS(&t, SRT_CORES_AUTO, "0,2,4,6,8,10,12,14,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"), "Raptor Lake auto: one thread per physical core, P first, then E");
    CHECK(SEL_IS(&t, SRT_CORES_PERFORMANCE, "0,2,4,6,8,10,12,14"), "Raptor Lake performance: the 8 P-cores");
    CHECK(SEL_IS(&t, SRT_CORES_ALL, "0,2,4,6,8,10,12,14,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,1,3,5,7,9,11,13,15"), "Raptor Lake all: 32, SMT siblings last");
    CHECK(detect("raptor_cpuid", raptor_cpuid, &t) && counts(&t, 32, 24, 8, 16, 1) && strcmp(t.source, "cpuid") == 0 && SEL_IS(&t, SRT_CORES_PERFORMANCE, "0,2,4,6,8,10,12,14"),
          "Raptor Lake without PMU lists: types from fake CPUID leaf 0x1A");
    CHECK(detect("raptor_cpuid", plain_cpuid, &t) && counts(&t, 32, 24, 24, 0, 0) && strcmp(t.source, "uniform (cpuid)") == 0,
          "the same tree with a CPUID without the hybrid bit: not hybrid, frequency groups ignored");

    CHECK(detect("lunar", NULL, &t) && counts(&t, 8, 8, 4, 4, 1) && SEL_IS(&t, SRT_CORES_AUTO, "0,1,2,3,4,5,6,7") && SEL_IS(&t, SRT_CORES_PERFORMANCE, "0,1,2,3"),
          "Lunar Lake 4P+4E: the only E-cores are used by auto although they have no L3");
    CHECK(detect("meteor", NULL, &t) && counts(&t, 22, 16, 6, 10, 1) && SEL_IS(&t, SRT_CORES_AUTO, "0,2,4,6,8,10,12,13,14,15,16,17,18,19")
          && SEL_IS(&t, SRT_CORES_ALL, "0,2,4,6,8,10,12,13,14,15,16,17,18,19,20,21,1,3,5,7,9,11"),
          "Meteor Lake 6P+8E+2LPE: auto leaves out the low-power island off the L3");
    CHECK(detect("phone", NULL, &t) && counts(&t, 8, 8, 5, 3, 1) && strcmp(t.source, "cpu_capacity") == 0 && SEL_IS(&t, SRT_CORES_AUTO, "3,4,5,6,7,0,1,2")
          && SEL_IS(&t, SRT_CORES_PERFORMANCE, "3,4,5,6,7"), "big.LITTLE phone 1+4+3 from cpu_capacity");
    CHECK(detect("phone_freq", NULL, &t) && counts(&t, 8, 8, 5, 3, 1) && strcmp(t.source, "cpufreq") == 0 && t.cpu[0].type == SRT_CORE_EFFICIENCY,
          "big.LITTLE phone from cpuinfo_max_freq groups");
    CHECK(detect("desktop", NULL, &t) && counts(&t, 16, 8, 8, 0, 0) && SEL_IS(&t, SRT_CORES_AUTO, "0,1,2,3,4,5,6,7") && SEL_IS(&t, SRT_CORES_PERFORMANCE, "0,1,2,3,4,5,6,7")
          && t.cpu[8].core == t.cpu[0].core && t.cpu[8].smt == 1, "plain desktop 8C/16T: favoured-core turbo is not big.LITTLE; one thread per core");
    CHECK(detect("vm", NULL, &t) && counts(&t, 2, 2, 2, 0, 0) && SEL_IS(&t, SRT_CORES_AUTO, "0,1") && t.cpu[0].llc == -1, "2-vCPU VM");
    ok = srt_cores_select(&t, SRT_CORES_LIST, "1", cpus, 8) == 1 && cpus[0] == 1 && srt_cores_select(&t, SRT_CORES_LIST, "2", cpus, 8) == -1
         && srt_cores_select(&t, SRT_CORES_LIST, "1,1", cpus, 8) == -1 && srt_cores_select(&t, SRT_CORES_LIST, "", cpus, 8) == -1;
    CHECK(ok, "explicit CPU lists: absent, repeated and empty are refused");
    {
        srt_topology_probe pr;
        memset(&pr, 0, sizeof pr);
        pr.sysfs_root = ROOT "/nothing"; pr.fake = 1;
        CHECK(srt_topology_detect(&pr, &t) != SRT_OK, "a fake root without a CPU list is an error");
    }
    ok = srt_topology_detect(NULL, &t) == SRT_OK;
    CHECK(ok && t.n_cpus >= 1 && t.n_cores >= 1 && t.n_perf_cores + t.n_eff_cores == t.n_cores, "the running machine: %d cpus, %d cores (%s)", t.n_cpus, t.n_cores, t.source);
    for (i = 0, ok = 1; i < t.n_cpus; i++) if (t.cpu[i].core < 0 || t.cpu[i].core >= t.n_cores) ok = 0;
    CHECK(ok, "the running machine: core numbers are dense");
}

/* ---------------------------------------------------------------- pool */
typedef struct hits_job { int32_t *hits; int32_t max_thread; } hits_job;
static void count_hits(void *user, int64_t begin, int64_t end, int thread) {
    hits_job *j = (hits_job *)user;
    int64_t k;
    for (k = begin; k < end; k++) j->hits[k]++;
    __atomic_fetch_or(&j->max_thread, 1 << thread, __ATOMIC_RELAXED);
}
static int every_item_once(srt_pool *p, int use_static) {
    static int32_t hits[20011];
    hits_job j;
    int round, ok = 1;
    int64_t k;
    j.hits = hits; j.max_thread = 0;
    for (round = 0; round < 200; round++) {
        int64_t n = 1 + (round * 7919) % 20011;
        memset(hits, 0, sizeof hits);
        if (use_static) srt_pool_parallel_for_static(p, n, count_hits, &j);
        else srt_pool_parallel_for(p, n, round % 3 == 0 ? 0 : 1 + round % 37, count_hits, &j);
        for (k = 0; k < n; k++) if (hits[k] != 1) ok = 0;
    }
    return ok && j.max_thread < (1 << srt_pool_threads(p));
}

/* y = W x, each row in a fixed order: must equal the serial result bit for bit. */
typedef struct gemv_job { const float *w, *x; float *y; int cols; } gemv_job;
static void gemv_rows(void *user, int64_t begin, int64_t end, int thread) {
    gemv_job *j = (gemv_job *)user;
    int64_t r;
    int c;
    (void)thread;
    for (r = begin; r < end; r++) {
        float s = 0.0f;
        for (c = 0; c < j->cols; c++) s += j->w[r * j->cols + c] * j->x[c];
        j->y[r] = s;
    }
}
/* Reduction with a fixed chunk: partial sums per chunk, combined in chunk order. */
typedef struct sum_job { const float *v; double *partial; int64_t chunk; } sum_job;
static void sum_chunks(void *user, int64_t begin, int64_t end, int thread) {
    sum_job *j = (sum_job *)user;
    float s = 0.0f;
    int64_t k;
    (void)thread;
    for (k = begin; k < end; k++) s += j->v[k] * j->v[k];
    j->partial[begin / j->chunk] = s;
}

typedef struct nest_job { srt_pool *p; int32_t *hits; int32_t bad; } nest_job;
static void nested_outer(void *user, int64_t begin, int64_t end, int thread) {
    nest_job *j = (nest_job *)user;
    int64_t k;
    hits_job inner;
    inner.max_thread = 0;
    for (k = begin; k < end; k++) {
        inner.hits = j->hits + k * 10;
        srt_pool_parallel_for(j->p, 10, 1, count_hits, &inner);   /* must run inline */
    }
    if (inner.max_thread != 0 && inner.max_thread != (1 << thread)) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

#ifndef _WIN32
#include <pthread.h>
typedef struct caller_arg { srt_pool *p; int ok; float *y; const float *w, *x, *ref; } caller_arg;
static void *caller_main(void *arg) {
    caller_arg *a = (caller_arg *)arg;
    gemv_job j;
    int r;
    j.w = a->w; j.x = a->x; j.y = a->y; j.cols = 61;
    a->ok = 1;
    for (r = 0; r < 300; r++) {
        memset(a->y, 0, 997 * sizeof(float));
        srt_pool_parallel_for(a->p, 997, 7, gemv_rows, &j);
        if (memcmp(a->y, a->ref, 997 * sizeof(float)) != 0) a->ok = 0;
    }
    return NULL;
}
#endif

static void test_pool(void) {
    enum { ROWS = 997, COLS = 61, NV = 100003, CH = 1000 };
    static float w[ROWS * COLS], x[COLS], ref[ROWS], y[ROWS], v[NV];
    static double partial[NV / CH + 1];
    static int32_t nest_hits[64 * 10];
    double ref_sum = 0.0;
    srt_pool *p;
    srt_pool_desc pd;
    gemv_job gj;
    sum_job sj;
    int i, threads[] = {1, 2, 3, 4, 8}, ti, ok;
    uint32_t seed = 12345;
    for (i = 0; i < ROWS * COLS; i++) { seed = seed * 1664525u + 1013904223u; w[i] = (float)(seed >> 8) / 16777216.0f - 0.5f; }
    for (i = 0; i < COLS; i++) x[i] = (float)i * 0.01f - 0.3f;
    for (i = 0; i < NV; i++) { seed = seed * 1664525u + 1013904223u; v[i] = (float)(seed >> 8) / 16777216.0f; }
    gj.w = w; gj.x = x; gj.y = ref; gj.cols = COLS;
    gemv_rows(&gj, 0, ROWS, 0);
    sj.v = v; sj.partial = partial; sj.chunk = CH;
    for (i = 0; i * CH < NV; i++) sum_chunks(&sj, (int64_t)i * CH, (int64_t)(i + 1) * CH < NV ? (int64_t)(i + 1) * CH : NV, 0);
    for (i = 0; i * CH < NV; i++) ref_sum += partial[i];

    for (ti = 0; ti < 5; ti++) {
        int slowed;
        for (slowed = 0; slowed < 2; slowed++) {
            double s = 0.0;
            memset(&pd, 0, sizeof pd);
            pd.n_threads = threads[ti];
            if (slowed) { pd.slow_thread = threads[ti] - 1; pd.slow_factor = 2.0f; }
            if (srt_pool_create(&pd, &p) != SRT_OK) { CHECK(0, "pool of %d starts: %s", threads[ti], srt_last_error()); continue; }
            ok = srt_pool_threads(p) == threads[ti];
            ok = ok && every_item_once(p, 0) && every_item_once(p, 1);
            CHECK(ok, "%d thread(s)%s: dynamic and static parallel-fors visit every item once, indices in range", threads[ti], slowed ? " (one slowed)" : "");
            gj.y = y;
            memset(y, 0, sizeof y);
            srt_pool_parallel_for(p, ROWS, 5, gemv_rows, &gj);
            ok = memcmp(y, ref, sizeof y) == 0;
            memset(y, 0, sizeof y);
            srt_pool_parallel_for(p, ROWS, 0, gemv_rows, &gj);
            ok = ok && memcmp(y, ref, sizeof y) == 0;
            memset(y, 0, sizeof y);
            srt_pool_parallel_for_static(p, ROWS, gemv_rows, &gj);
            ok = ok && memcmp(y, ref, sizeof y) == 0;
            memset(partial, 0, sizeof partial);
            srt_pool_parallel_for(p, NV, CH, sum_chunks, &sj);
            for (i = 0; i * CH < NV; i++) s += partial[i];
            CHECK(ok && memcmp(&s, &ref_sum, sizeof s) == 0, "%d thread(s)%s: GEMV (dynamic, auto chunk, static) and an ordered reduction equal the serial result bit for bit",
                  threads[ti], slowed ? " (one slowed)" : "");
            srt_pool_destroy(p);
        }
    }

    /* nested calls run inline on the calling thread */
    memset(&pd, 0, sizeof pd);
    pd.n_threads = 3;
    CHECK(srt_pool_create(&pd, &p) == SRT_OK, "a 3-thread pool starts");
    {
        nest_job nj;
        nj.p = p; nj.hits = nest_hits; nj.bad = 0;
        srt_pool_parallel_for(p, 64, 1, nested_outer, &nj);
        for (i = 0, ok = !nj.bad; i < 640; i++) if (nest_hits[i] != 1) ok = 0;
        CHECK(ok, "a parallel-for inside a parallel-for runs inline with the caller's thread index");
    }
#ifndef _WIN32
    {   /* several callers (sessions) share one pool */
        static float y1[ROWS], y2[ROWS], y3[ROWS];
        caller_arg a[3];
        pthread_t th[3];
        float *ys[3];
        ys[0] = y1; ys[1] = y2; ys[2] = y3;
        for (i = 0; i < 3; i++) { a[i].p = p; a[i].w = w; a[i].x = x; a[i].ref = ref; a[i].y = ys[i]; pthread_create(&th[i], NULL, caller_main, &a[i]); }
        for (i = 0; i < 3; i++) pthread_join(th[i], NULL);
        CHECK(a[0].ok && a[1].ok && a[2].ok, "three threads share one pool: 900 regions, all exact");
    }
#endif
    srt_pool_destroy(p);

    for (i = 0, ok = 1; i < 200; i++) {   /* shut down right after start, and after one region */
        memset(&pd, 0, sizeof pd);
        pd.n_threads = 2 + i % 4;
        if (srt_pool_create(&pd, &p) != SRT_OK) { ok = 0; break; }
        if (i & 1) { gj.y = y; srt_pool_parallel_for(p, ROWS, 3, gemv_rows, &gj); }
        srt_pool_destroy(p);
    }
    CHECK(ok, "200 pools created and destroyed (some before their workers ran)");

    /* policies and pinning */
    memset(&pd, 0, sizeof pd);
    ok = srt_pool_create(&pd, &p) == SRT_OK;
    CHECK(ok && srt_pool_threads(p) >= 1, "default pool: %d threads (auto policy)", ok ? srt_pool_threads(p) : 0);
    srt_pool_destroy(p);
    {
        static srt_topology t;
        int pinned = 0, cpu;
        detect("raptor", NULL, &t);
        memset(&pd, 0, sizeof pd);
        pd.topology = &t;
        ok = srt_pool_create(&pd, &p) == SRT_OK && srt_pool_threads(p) == 24 && srt_pool_thread_cpu(p, 8, &pinned) == 16 && !pinned;
        srt_pool_destroy(p);
        pd.cores = SRT_CORES_PERFORMANCE; pd.pin = -1;
        ok = ok && srt_pool_create(&pd, &p) == SRT_OK && srt_pool_threads(p) == 8 && srt_pool_thread_cpu(p, 7, NULL) == 14;
        srt_pool_destroy(p);
        CHECK(ok, "pools on the fake Raptor Lake: auto = 24 threads (thread 8 on E-core 16), performance = 8");
        memset(&pd, 0, sizeof pd);
        pd.cores = SRT_CORES_LIST; pd.cpu_list = "0-1";
        ok = srt_pool_create(&pd, &p) == SRT_OK && srt_pool_threads(p) == 2;
        if (ok) {
            gj.y = y;
            srt_pool_parallel_for(p, ROWS, 1, gemv_rows, &gj);   /* the worker has surely started */
            cpu = srt_pool_thread_cpu(p, 1, &pinned);
#if defined(__linux__) || defined(_WIN32)
            ok = cpu == 1 && pinned;
#else
            ok = cpu == 1;
#endif
            srt_pool_destroy(p);
        }
        CHECK(ok, "cpu list \"0-1\": 2 threads, the worker pinned to CPU 1");
        pd.cpu_list = "0,9999";
        CHECK(srt_pool_create(&pd, &p) == SRT_ERR_INVALID_ARG, "a CPU list naming an absent CPU is refused");
        pd.cores = (srt_cores)9;
        CHECK(srt_pool_create(&pd, &p) == SRT_ERR_INVALID_ARG, "an unknown policy is refused");
    }
}

/* ---------------------------------------------------------------- two sessions, two threads */
typedef struct gen_arg { srt_model *m; const char *prompt; int32_t out[24]; int ok; } gen_arg;
static void generate(gen_arg *a) {
    srt_session *s;
    srt_session_desc sd;
    int k;
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 64; sd.n_batch = 4;
    a->ok = srt_session_create(a->m, &sd, &s) == SRT_OK && srt_session_prompt(s, a->prompt, 0) == SRT_OK;
    for (k = 0; a->ok && k < 24; k++) a->ok = srt_session_next(s, &a->out[k]) == SRT_OK;
    if (a->ok) srt_session_destroy(s);
}
#ifdef _WIN32
static DWORD WINAPI generate_main(LPVOID arg) { generate((gen_arg *)arg); return 0; }
#else
static void *generate_main(void *arg) { generate((gen_arg *)arg); return NULL; }
#endif
static void test_two_sessions(void) {
    const char *path = "build/tmp/pool_model.srt";
    srt_model *m1, *m3;
    srt_model_desc md;
    gen_arg ref[2], run[2];
    int i, ok;
    if (!write_tiny_model(path, SRT_Q8, NULL, NULL, 1)) { CHECK(0, "write a small model: %s", srt_last_error()); return; }
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    ok = srt_model_load(path, &md, &m1) == SRT_OK;
    md.n_threads = 3;
    ok = ok && srt_model_load(path, &md, &m3) == SRT_OK;
    if (!ok) { CHECK(0, "load the small model: %s", srt_last_error()); return; }
    for (i = 0; i < 2; i++) { ref[i].m = m1; ref[i].prompt = i ? "abc def" : "hello"; generate(&ref[i]); run[i] = ref[i]; run[i].m = m3; }
#ifndef _WIN32
    {
        pthread_t th[2];
        for (i = 0; i < 2; i++) pthread_create(&th[i], NULL, generate_main, &run[i]);
        for (i = 0; i < 2; i++) pthread_join(th[i], NULL);
    }
#else
    {
        HANDLE th[2];
        for (i = 0; i < 2; i++) th[i] = CreateThread(NULL, 0, generate_main, &run[i], 0, NULL);
        for (i = 0; i < 2; i++) if (th[i]) { WaitForSingleObject(th[i], INFINITE); CloseHandle(th[i]); }
    }
#endif
    CHECK(ref[0].ok && ref[1].ok && run[0].ok && run[1].ok && !memcmp(ref[0].out, run[0].out, sizeof ref[0].out) && !memcmp(ref[1].out, run[1].out, sizeof ref[1].out),
          "two sessions generating at once from two threads on one 3-thread model equal 1-thread runs");
    srt_model_free(m1);
    srt_model_free(m3);
}

int main(void) {
    test_topology();
    test_pool();
    test_two_sessions();
    return srt_test_finish();
}
