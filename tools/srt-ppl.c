/* srt-ppl - perplexity of a model over a text file, and how far it is from a reference model.

     srt-ppl -m MODEL.srt [options] TEXT.txt

   The text is tokenized as srt_tokenize does by default (BOS when the model adds it) and evaluated
   in windows of --ctx tokens that start every --stride tokens; every token after the first is
   predicted exactly once, from the window that first reaches it (so it sees at least ctx - stride
   tokens of context, or all before it). Reported: the number of tokens, the mean negative
   log-likelihood in nats (NLL) and the perplexity exp(NLL).

   Options:
     -m, --model PATH    the model (.srt)
     --ctx N             window length (default: the model's training context, at most 4096)
     --stride N          window step, 1..ctx-1 (default ctx / 2)
     --kv f32|f16|q8     KV cache type (default f32: the weights' effect alone)
     --kv-sparsity K[,V] sparse KV cache (srt_session_desc.kv_sparsity_k / _v; F16 KV): every
                         evaluated position's K / V values pruned, the quality cost of it
     -t, --threads N     threads (default: one per performance core)
     --save-logits FILE  store this model's next-token log-probabilities at every predicted position
     --f16               store them as float16 (half the size; default float32)
     --kl FILE           compare with a stored reference over the same text: mean and max
                         KL(reference || this model) in nats and top-1 agreement; the windows
                         (ctx, stride) are the reference's
     --json              one JSON object on stdout instead of the text line
     --backend cpu|cuda  where the model runs (cuda: build/srt-ppl-cuda, this file with
                         -DSRT_PPL_CUDA + tools/cuda-backend.cu, built when nvcc is found); --device N
     -h, --help

   LOGITS FILE (little-endian)
     offset 0   char[8]  magic "SRTLOGP1"
            8   u32      version = 1
           12   u32      value type: 0 = float32, 1 = float16
           16   u32      n_vocab
           20   u32      n_tokens (the tokenized text, 2 .. 2^28)
           24   u32      n_rows = n_tokens - 1 (positions 1 .. n_tokens-1, in order)
           28   u32      ctx, 32 u32 stride (the windows that produced them)
           36   u32[3]   reserved, zero
           48   i32      token ids [n_tokens]
                then     n_rows x n_vocab log-probabilities (natural log; row r predicts token r + 1)
                last     u32 CRC-32 (IEEE, as zlib) of every byte before it
   A file that is truncated, extended, of another vocabulary or text, or whose values are not
   log-probabilities (non-finite, positive, not summing to 1) is refused with a message naming
   the place; exit status 1. */
#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
#ifdef SRT_PPL_CUDA
#  include "sparsert_cuda.h"   /* the declarations; the backend is tools/cuda-backend.cu (nvcc) */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOGP_MAGIC "SRTLOGP1"
#define LOGP_HEADER 48
#define LOGP_MAX_TOKENS (1u << 28)

static void usage(FILE *f) {
    fprintf(f,
        "usage: srt-ppl -m MODEL.srt [options] TEXT.txt\n"
        "  perplexity over TEXT in windows of --ctx tokens every --stride tokens\n"
        "options:\n"
        "  --ctx N             window length (default: the model's context, at most 4096)\n"
        "  --stride N          window step, 1..ctx-1 (default ctx/2)\n"
        "  --kv f32|f16|q8     KV cache type (default f32)\n"
        "  --kv-sparsity K[,V] prune this fraction of each head's K (and V) values (F16 KV cache)\n"
        "  -t, --threads N     threads (default: one per performance core)\n"
        "  --save-logits FILE  store the next-token log-probabilities (reference for --kl)\n"
        "  --f16               store them as float16 (default float32)\n"
        "  --kl FILE           mean/max KL divergence from a stored reference and top-1 agreement\n"
        "  --json              one JSON object on stdout\n"
        "  --backend cpu|cuda  where the model runs (cuda: build/srt-ppl-cuda); --device N (default 0)\n"
        "  -h, --help          this text\n");
}

/* ---------------------------------------------------------------- CRC-32 and little-endian bytes */
static uint32_t crc_table[256];
static void crc_init(void) {
    uint32_t i, k, c;
    for (i = 0; i < 256; i++) {
        for (c = i, k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}
static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n) {   /* crc starts at 0 */
    crc = ~crc;
    while (n--) crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
static void put_u32(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24); }
static uint32_t get_u32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* A logits file being written or read: the stream and the running CRC. */
typedef struct logp_file {
    FILE *f;
    const char *path;
    uint32_t crc;
    int f16;
    unsigned char *row;      /* n_vocab values as stored */
} logp_file;

static int logp_write(logp_file *lf, const void *p, size_t n) {
    lf->crc = crc_update(lf->crc, (const unsigned char *)p, n);
    return fwrite(p, 1, n, lf->f) == n ? 0 : -1;
}
static int logp_read(logp_file *lf, void *p, size_t n) {
    if (fread(p, 1, n, lf->f) != n) return -1;
    lf->crc = crc_update(lf->crc, (const unsigned char *)p, n);
    return 0;
}

/* ---------------------------------------------------------------- JSON */
static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* Reads a whole file (NUL-terminated); NULL with a message. */
static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;
    if (!f) { fprintf(stderr, "srt-ppl: cannot open %s\n", path); return NULL; }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 || n > (1L << 30) ||
        !(b = (char *)malloc((size_t)n + 1)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "srt-ppl: cannot read %s (at most 1 GiB)\n", path);
        free(b); fclose(f);
        return NULL;
    }
    fclose(f);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

static int parse_int(const char *v, long lo, long hi, long *out) {
    char *end;
    long x;
    if (!v || !*v) return -1;
    x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* Opens a reference file and checks its header against the model and the text's tokens. */
static int ref_open(logp_file *lf, const char *path, int n_vocab, const int32_t *ids, int n_ids, long *ctx, long *stride) {
    unsigned char h[LOGP_HEADER], b[4];
    uint32_t version, type, nv, nt, nr, c, s, i;
    uint64_t expect, elt;
    long size;
    memset(lf, 0, sizeof *lf);
    lf->path = path;
    if (!(lf->f = fopen(path, "rb"))) { fprintf(stderr, "srt-ppl: --kl %s: cannot open it\n", path); return -1; }
    if (fseek(lf->f, 0, SEEK_END) != 0 || (size = ftell(lf->f)) < 0 || fseek(lf->f, 0, SEEK_SET) != 0) { fprintf(stderr, "srt-ppl: --kl %s: cannot read it\n", path); return -1; }
    if (size < LOGP_HEADER || logp_read(lf, h, LOGP_HEADER) != 0) { fprintf(stderr, "srt-ppl: --kl %s: %ld bytes, shorter than the %d-byte header\n", path, size, LOGP_HEADER); return -1; }
    if (memcmp(h, LOGP_MAGIC, 8) != 0) { fprintf(stderr, "srt-ppl: --kl %s: not a logits file of srt-ppl --save-logits (bad magic)\n", path); return -1; }
    version = get_u32(h + 8); type = get_u32(h + 12); nv = get_u32(h + 16); nt = get_u32(h + 20); nr = get_u32(h + 24);
    c = get_u32(h + 28); s = get_u32(h + 32);
    if (version != 1) { fprintf(stderr, "srt-ppl: --kl %s: version %u is not supported (1)\n", path, (unsigned)version); return -1; }
    if (type > 1) { fprintf(stderr, "srt-ppl: --kl %s: unknown value type %u (0 float32, 1 float16)\n", path, (unsigned)type); return -1; }
    if (get_u32(h + 36) || get_u32(h + 40) || get_u32(h + 44)) { fprintf(stderr, "srt-ppl: --kl %s: reserved header bytes are not zero\n", path); return -1; }
    if (nv != (uint32_t)n_vocab) { fprintf(stderr, "srt-ppl: --kl %s: vocabulary of %u tokens, the model has %d\n", path, (unsigned)nv, n_vocab); return -1; }
    if (nt < 2 || nt > LOGP_MAX_TOKENS || nr != nt - 1) { fprintf(stderr, "srt-ppl: --kl %s: bad counts: %u tokens, %u rows\n", path, (unsigned)nt, (unsigned)nr); return -1; }
    if (c < 2 || c > (1u << 22) || s < 1 || s >= c) { fprintf(stderr, "srt-ppl: --kl %s: bad window: ctx %u, stride %u\n", path, (unsigned)c, (unsigned)s); return -1; }
    elt = type ? 2 : 4;
    expect = LOGP_HEADER + 4ull * nt + (uint64_t)nr * nv * elt + 4;
    if ((uint64_t)size != expect) { fprintf(stderr, "srt-ppl: --kl %s: %ld bytes, expected %llu (truncated or extended)\n", path, size, (unsigned long long)expect); return -1; }
    if (nt != (uint32_t)n_ids) { fprintf(stderr, "srt-ppl: --kl %s: made from a text of %u tokens, this one has %d\n", path, (unsigned)nt, n_ids); return -1; }
    for (i = 0; i < nt; i++) {
        if (logp_read(lf, b, 4) != 0) { fprintf(stderr, "srt-ppl: --kl %s: read error in the token ids\n", path); return -1; }
        if ((int32_t)get_u32(b) != ids[i]) {
            fprintf(stderr, "srt-ppl: --kl %s: token %u is %d there, %d in this text: not the same text or tokenizer\n", path, (unsigned)i, (int32_t)get_u32(b), ids[i]);
            return -1;
        }
    }
    lf->f16 = (int)type;
    if (!(lf->row = (unsigned char *)malloc((size_t)nv * (size_t)elt))) { fprintf(stderr, "srt-ppl: out of memory\n"); return -1; }
    *ctx = (long)c; *stride = (long)s;
    return 0;
}

/* The next reference row as log-probabilities; checks that they are. */
static int ref_row(logp_file *lf, int n_vocab, long pos, double *lp) {
    double sum = 0.0;
    int v;
    if (logp_read(lf, lf->row, (size_t)n_vocab * (lf->f16 ? 2 : 4)) != 0) { fprintf(stderr, "srt-ppl: --kl %s: read error at position %ld\n", lf->path, pos); return -1; }
    for (v = 0; v < n_vocab; v++) {
        if (lf->f16) lp[v] = srt_f16_to_f32((uint16_t)(lf->row[2 * v] | lf->row[2 * v + 1] << 8));
        else { uint32_t u = get_u32(lf->row + 4 * v); float x; memcpy(&x, &u, 4); lp[v] = x; }
        if (!(lp[v] - lp[v] == 0.0) || lp[v] > 1e-3) { fprintf(stderr, "srt-ppl: --kl %s: position %ld, token %d: %g is not a log-probability\n", lf->path, pos, v, lp[v]); return -1; }
        sum += exp(lp[v]);
    }
    if (fabs(sum - 1.0) > 0.02) { fprintf(stderr, "srt-ppl: --kl %s: position %ld: probabilities sum to %g\n", lf->path, pos, sum); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *text_path = NULL, *save_path = NULL, *kl_path = NULL;
    long ctx = 0, stride = 0, threads = 0, ref_ctx = 0, ref_stride = 0, device = 0;
    int use_cuda = 0;
    srt_backend *backend = NULL;
    srt_kv_type kv = SRT_KV_F32;
    int json = 0, f16 = 0, i, rc = 1, n_ids = 0, n_vocab;
    float kv_sparsity[2] = {0.0f, 0.0f};
    srt_model *m = NULL;
    srt_session *s = NULL;
    srt_model_desc md;
    srt_session_desc sd;
    srt_model_info info;
    srt_status st;
    char *text = NULL;
    size_t text_len = 0;
    int32_t *ids = NULL;
    double *lp = NULL, *lref = NULL, nll = 0.0, kl_sum = 0.0, kl_max = 0.0;
    long n_scored = 0, top1 = 0, kl_max_pos = -1, begin, prev_end = 1, n_windows = 0;
    logp_file save, ref;
    char save_tmp[4200];

    memset(&save, 0, sizeof save); memset(&ref, 0, sizeof ref);
    crc_init();
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--f16")) f16 = 1;
        else if (!strcmp(a, "-m") || !strcmp(a, "--model")) { if (!v) goto missing; model_path = v; i++; }
        else if (!strcmp(a, "--save-logits")) { if (!v) goto missing; save_path = v; i++; }
        else if (!strcmp(a, "--kl")) { if (!v) goto missing; kl_path = v; i++; }
        else if (!strcmp(a, "--ctx")) { if (parse_int(v, 2, 1 << 22, &ctx)) { fprintf(stderr, "srt-ppl: --ctx needs a number from 2 to %d\n", 1 << 22); return 1; } i++; }
        else if (!strcmp(a, "--stride")) { if (parse_int(v, 1, 1 << 22, &stride)) { fprintf(stderr, "srt-ppl: --stride needs a positive number\n"); return 1; } i++; }
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads")) { if (parse_int(v, 1, 256, &threads)) { fprintf(stderr, "srt-ppl: -t needs a number from 1 to 256\n"); return 1; } i++; }
        else if (!strcmp(a, "--backend")) {
            if (!v || (strcmp(v, "cpu") && strcmp(v, "cuda"))) { fprintf(stderr, "srt-ppl: --backend needs cpu or cuda\n"); return 1; }
            use_cuda = !strcmp(v, "cuda");
            i++;
        }
        else if (!strcmp(a, "--device")) { if (parse_int(v, 0, 1 << 16, &device)) { fprintf(stderr, "srt-ppl: --device needs a number\n"); return 1; } i++; }
        else if (!strcmp(a, "--kv-sparsity")) {
            char *end = NULL;
            if (v) {
                const char *comma = strchr(v, ',');
                kv_sparsity[0] = strtof(v, &end);
                kv_sparsity[1] = comma ? strtof(comma + 1, &end) : kv_sparsity[0];
            }
            if (!v || *end || end == v) { fprintf(stderr, "srt-ppl: --kv-sparsity needs K or K,V (fractions, e.g. 0.3,0.5)\n"); return 1; }
            kv = SRT_KV_F16;
            i++;
        }
        else if (!strcmp(a, "--kv")) {
            if (v && !strcmp(v, "f16")) kv = SRT_KV_F16;
            else if (v && !strcmp(v, "f32")) kv = SRT_KV_F32;
            else if (v && !strcmp(v, "q8")) kv = SRT_KV_Q8;
            else { fprintf(stderr, "srt-ppl: --kv needs f32, f16 or q8\n"); return 1; }
            i++;
        } else if (a[0] == '-' && a[1]) { fprintf(stderr, "srt-ppl: unknown option '%s'\n", a); usage(stderr); return 1; }
        else if (!text_path) text_path = a;
        else { fprintf(stderr, "srt-ppl: unexpected argument '%s'\n", a); usage(stderr); return 1; }
        continue;
    missing:
        fprintf(stderr, "srt-ppl: %s needs a value\n", a);
        return 1;
    }
    if (!model_path || !text_path) { usage(stderr); return 1; }
    if (save_path && kl_path && !strcmp(save_path, kl_path)) { fprintf(stderr, "srt-ppl: --save-logits and --kl name the same file\n"); return 1; }
    if (f16 && !save_path) { fprintf(stderr, "srt-ppl: --f16 applies to --save-logits\n"); return 1; }

    if (use_cuda) {
#ifdef SRT_PPL_CUDA
        if (!(backend = srt_cuda_backend((int)device))) { fprintf(stderr, "srt-ppl: out of memory\n"); return 1; }
#else
        fprintf(stderr, "srt-ppl: this srt-ppl was built without CUDA: use build/srt-ppl-cuda (./build.sh cuda)\n");
        return 1;
#endif
    }
    memset(&md, 0, sizeof md);
    md.n_threads = (int)threads;
    md.backend = backend;
    if ((st = srt_model_load(model_path, &md, &m)) != SRT_OK) {
        fprintf(stderr, "srt-ppl: %s: %s (%s)\n", model_path, srt_last_error(), srt_status_str(st));
        srt_backend_free(backend);
        return 1;
    }
    srt_model_get_info(m, &info);
    n_vocab = srt_vocab_size(m);
    if (!(text = read_text(text_path, &text_len))) goto done;
    srt_tokenize(m, text, text_len, 0, NULL, 0, &n_ids);
    if (n_ids < 2 || (uint32_t)n_ids > LOGP_MAX_TOKENS || !(ids = (int32_t *)malloc((size_t)n_ids * sizeof(int32_t))) ||
        (st = srt_tokenize(m, text, text_len, 0, ids, n_ids, &n_ids)) != SRT_OK) {
        fprintf(stderr, "srt-ppl: %s: %d tokens (%s); perplexity needs 2 to %u\n", text_path, n_ids, n_ids > 0 ? srt_last_error() : "", LOGP_MAX_TOKENS);
        goto done;
    }
    if (kl_path) {
        if (ref_open(&ref, kl_path, n_vocab, ids, n_ids, &ref_ctx, &ref_stride) != 0) goto done;
        if ((ctx && ctx != ref_ctx) || (stride && stride != ref_stride)) {
            fprintf(stderr, "srt-ppl: --kl %s was made with --ctx %ld --stride %ld; leave them out or give the same\n", kl_path, ref_ctx, ref_stride);
            goto done;
        }
        ctx = ref_ctx; stride = ref_stride;
    }
    if (!ctx) ctx = info.n_ctx_train > 0 && info.n_ctx_train < 4096 ? info.n_ctx_train : 4096;
    if (!stride) stride = ctx / 2;
    if (stride >= ctx) { fprintf(stderr, "srt-ppl: --stride %ld must be below --ctx %ld\n", stride, ctx); goto done; }
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = (int)ctx;
    sd.kv_type = kv;
    sd.kv_sparsity_k = kv_sparsity[0];
    sd.kv_sparsity_v = kv_sparsity[1];
    if ((st = srt_session_create(m, &sd, &s)) != SRT_OK) { fprintf(stderr, "srt-ppl: session: %s (%s)\n", srt_last_error(), srt_status_str(st)); goto done; }
    lp = (double *)malloc((size_t)n_vocab * sizeof(double));
    lref = (double *)malloc((size_t)n_vocab * sizeof(double));
    if (!lp || !lref) { fprintf(stderr, "srt-ppl: out of memory\n"); goto done; }

    if (save_path) {
        unsigned char h[LOGP_HEADER];
        int32_t t;
        if (snprintf(save_tmp, sizeof save_tmp, "%s.tmp", save_path) >= (int)sizeof save_tmp) { fprintf(stderr, "srt-ppl: path too long\n"); goto done; }
        save.path = save_path;
        save.f16 = f16;
        if (!(save.f = fopen(save_tmp, "wb")) || !(save.row = (unsigned char *)malloc((size_t)n_vocab * 4))) {
            fprintf(stderr, "srt-ppl: cannot create %s\n", save_tmp); goto done;
        }
        memset(h, 0, sizeof h);
        memcpy(h, LOGP_MAGIC, 8);
        put_u32(h + 8, 1); put_u32(h + 12, (uint32_t)f16); put_u32(h + 16, (uint32_t)n_vocab); put_u32(h + 20, (uint32_t)n_ids);
        put_u32(h + 24, (uint32_t)n_ids - 1); put_u32(h + 28, (uint32_t)ctx); put_u32(h + 32, (uint32_t)stride);
        if (logp_write(&save, h, sizeof h) != 0) goto write_error;
        for (t = 0; t < n_ids; t++) { unsigned char b[4]; put_u32(b, (uint32_t)ids[t]); if (logp_write(&save, b, 4) != 0) goto write_error; }
    }

    /* windows [begin, begin + ctx) every stride tokens; position t (>= 1) is scored by the first
       window that holds it and t - 1: the logits after feeding ids[begin..t-1] */
    for (begin = 0;; begin += stride) {
        long end = begin + ctx < n_ids ? begin + ctx : n_ids, first = begin + 1 > prev_end ? begin + 1 : prev_end, t;
        srt_session_reset(s);
        n_windows++;
        if (first - 1 - begin > 0 && (st = srt_session_feed(s, ids + begin, (int)(first - 1 - begin))) != SRT_OK) goto eval_error;
        for (t = first; t < end; t++) {
            const float *lg;
            double mx = -1e300, z = 0.0, lse;
            int v, am = 0;
            if ((st = srt_session_feed(s, ids + t - 1, 1)) != SRT_OK) goto eval_error;
            if (!(lg = srt_session_logits(s))) { fprintf(stderr, "srt-ppl: no logits at position %ld\n", t); goto done; }
            for (v = 0; v < n_vocab; v++) if (lg[v] > mx) { mx = lg[v]; am = v; }
            for (v = 0; v < n_vocab; v++) z += exp((double)lg[v] - mx);
            lse = mx + log(z);
            for (v = 0; v < n_vocab; v++) lp[v] = (double)lg[v] - lse;
            nll -= lp[ids[t]];
            n_scored++;
            if (save.f) {
                size_t elt = f16 ? 2 : 4;
                for (v = 0; v < n_vocab; v++) {
                    if (f16) { uint16_t hv = srt_f32_to_f16((float)lp[v]); save.row[2 * v] = (unsigned char)hv; save.row[2 * v + 1] = (unsigned char)(hv >> 8); }
                    else { float x = (float)lp[v]; uint32_t u; memcpy(&u, &x, 4); put_u32(save.row + 4 * v, u); }
                }
                if (logp_write(&save, save.row, (size_t)n_vocab * elt) != 0) goto write_error;
            }
            if (ref.f) {
                double k = 0.0;
                int ar = 0;
                if (ref_row(&ref, n_vocab, t, lref) != 0) goto done;
                for (v = 0; v < n_vocab; v++) {
                    k += exp(lref[v]) * (lref[v] - lp[v]);
                    if (lref[v] > lref[ar]) ar = v;
                }
                kl_sum += k;
                if (kl_max_pos < 0 || k > kl_max) { kl_max = k; kl_max_pos = t; }
                top1 += ar == am;
            }
        }
        prev_end = end;
        if (end == n_ids) break;
    }
    if (ref.f) {
        unsigned char b[4], extra;
        uint32_t want = ref.crc;
        if (fread(b, 1, 4, ref.f) != 4 || fread(&extra, 1, 1, ref.f) != 0) { fprintf(stderr, "srt-ppl: --kl %s: bad file end\n", kl_path); goto done; }
        if (get_u32(b) != want) { fprintf(stderr, "srt-ppl: --kl %s: checksum mismatch (the file is damaged)\n", kl_path); goto done; }
    }
    if (save.f) {
        unsigned char b[4];
        put_u32(b, save.crc);
        if (fwrite(b, 1, 4, save.f) != 4) goto write_error;
        if (fclose(save.f) != 0) { save.f = NULL; goto write_error; }
        save.f = NULL;
        remove(save_path);
        if (rename(save_tmp, save_path) != 0) { fprintf(stderr, "srt-ppl: cannot rename %s to %s\n", save_tmp, save_path); remove(save_tmp); goto done; }
    }

    {
        double mean = nll / (double)n_scored;
        if (json) {
            printf("{\"model\":"); json_str(stdout, model_path);
            printf(",\"text\":"); json_str(stdout, text_path);
            printf(",\"tokens\":%d,\"scored\":%ld,\"ctx\":%ld,\"stride\":%ld,\"windows\":%ld,\"nll\":%.6f,\"ppl\":%.6f",
                   n_ids, n_scored, ctx, stride, n_windows, mean, exp(mean));
            if (ref.f) {
                printf(",\"reference\":"); json_str(stdout, kl_path);
                printf(",\"kl_mean\":%.8f,\"kl_max\":%.8f,\"kl_max_pos\":%ld,\"top1\":%.6f", kl_sum / (double)n_scored, kl_max, kl_max_pos, (double)top1 / (double)n_scored);
            }
            printf("}\n");
        } else {
            printf("%s: %s: %d tokens, %ld predicted (ctx %ld, stride %ld, %ld windows): mean NLL %.5f nats, PPL %.4f\n",
                   model_path, text_path, n_ids, n_scored, ctx, stride, n_windows, mean, exp(mean));
            if (ref.f)
                printf("KL(%s || this model): mean %.6f nats, max %.6f (position %ld); top-1 agreement %.2f%%\n",
                       kl_path, kl_sum / (double)n_scored, kl_max, kl_max_pos, 100.0 * (double)top1 / (double)n_scored);
        }
    }
    rc = 0;
    goto done;
eval_error:
    fprintf(stderr, "srt-ppl: evaluation: %s (%s)\n", srt_last_error(), srt_status_str(st));
    goto done;
write_error:
    fprintf(stderr, "srt-ppl: cannot write %s\n", save_tmp);
done:
    if (save.f) { fclose(save.f); remove(save_tmp); }
    if (ref.f) fclose(ref.f);
    free(save.row); free(ref.row);
    free(lp); free(lref); free(ids); free(text);
    srt_session_destroy(s);
    srt_model_free(m);
    srt_backend_free(backend);   /* after the model */
    return rc;
}
