/* test_hf.c - Hugging Face import (tools/srt_hf.h through srt_import.h) and srt-pack --random:
   config.json and tokenizer.json variants, malformed safetensors, the q/k rope permutation, the
   real SmolLM2 tokenizer.json, and the end-to-end check of issue 3: a random-weight folder in
   SmolLM2-135M's exact shape (sharded safetensors, BF16/F16/F32) and the same weights written as
   a llama.cpp-style GGUF (F16, q/k permuted) pack to models with equal logits.
   Temporary files live in build/tmp/hf and are removed at the end. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L   /* lstat */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#define SPARSERT_IMPLEMENTATION
#include "sparsert.h"
/* Allocation hf_fail_at (counted from 1 by hf_allocs) of the readers fails (test_out_of_memory); 0: none does. */
static long hf_allocs, hf_fail_at, hf_live;
static void *hf_malloc(size_t n) { void *p = ++hf_allocs == hf_fail_at ? NULL : malloc(n); hf_live += p != NULL; return p; }
static void *hf_calloc(size_t n, size_t sz) { void *p = ++hf_allocs == hf_fail_at ? NULL : calloc(n, sz); hf_live += p != NULL; return p; }
static void *hf_realloc(void *q, size_t n) { void *p = ++hf_allocs == hf_fail_at ? NULL : realloc(q, n); hf_live += p != NULL && !q; return p; }
static void hf_free(void *p) { hf_live -= p != NULL; free(p); }
#define SRTI_MALLOC(sz) hf_malloc(sz)
#define SRTI_CALLOC(n, sz) hf_calloc((n), (sz))
#define SRTI_FREE(p) hf_free(p)
#define SRTJ_MALLOC(sz) hf_malloc(sz)
#define SRTJ_REALLOC(p, sz) hf_realloc((p), (sz))
#define SRTJ_FREE(p) hf_free(p)
#define SRT_IMPORT_IMPLEMENTATION
#include "tools/srt_import.h"
#include "tests/testing.h"
#include <dirent.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <io.h>
#define HF_MKDIR(p) _mkdir(p)
#define HF_WRITABLE(p) _chmod((p), _S_IREAD | _S_IWRITE)
#define HF_LSTAT(p, st) stat((p), (st))   /* (no symbolic links to tell apart) */
#define HF_IS_LINK(st) 0
#else
#include <unistd.h>
#define HF_MKDIR(p) mkdir((p), 0755)
#define HF_WRITABLE(p) chmod((p), 0644)
#define HF_LSTAT(p, st) lstat((p), (st))
#define HF_IS_LINK(st) S_ISLNK((st)->st_mode)
#endif

#define TMP "build/tmp/hf"
#define SMOL SRT_SHARED "/models/smollm2-135m-instruct"

/* ---------------------------------------------------------------- helpers */
/* A file removed even where it is read-only (copied from ../shared: Windows refuses to delete a
   read-only file, as rm -f does not); 1 if done. */
static int remove_file(const char *path) {
    HF_WRITABLE(path);
    return remove(path) == 0;
}
/* rm -rf path, in C: the tests' folders were made with "rm -rf D && mkdir -p D" through system(),
   and under wine a test that started dozens of those lost its stdout part way (its later checks
   neither printed nor counted, its exit status 0). A symbolic link is removed itself, as rm -rf
   does: neither followed nor its target made writable. 1 when path is gone. */
static int remove_tree(const char *path) {
    struct stat st;
    if (HF_LSTAT(path, &st) != 0) return 1;
    if (HF_IS_LINK(&st)) return remove(path) == 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        char sub[1024];
        if (!d) return 0;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            if (!remove_tree(sub)) { closedir(d); return 0; }
        }
        closedir(d);
        return rmdir(path) == 0;
    }
    return remove_file(path);
}
/* An empty folder at path (its parent exists); 1 if made. */
static int fresh_dir(const char *path) { return remove_tree(path) && HF_MKDIR(path) == 0; }
static int write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f) return 0;
    ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}
static int write_text(const char *path, const char *s) { return write_file(path, s, strlen(s)); }
static void path_in(char *buf, size_t cap, const char *dir, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

/* max |a - b| over max |b| */
static double max_rel_diff(const float *a, const float *b, int n) {
    double md = 0, mx = 1e-30;
    int i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (d > md) md = d;
        if (fabs(b[i]) > mx) mx = fabs(b[i]);
    }
    return md / mx;
}

typedef struct sbuf { char *p; size_t n, cap; } sbuf;
static void sb_add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    int need;
    va_start(ap, fmt);
    need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)need + 1 > b->cap) {
        b->cap = (b->n + (size_t)need + 1) * 2;
        b->p = (char *)realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* Opens a folder with srti_open; returns the model or NULL with err filled. */
static srti_model *open_dir(const char *dir, char *err, size_t errlen) {
    srti_model *m = NULL;
    if (srti_open(dir, NULL, &m, err, errlen) != 0) return NULL;
    return m;
}
/* The folder fails to open with `want` in the message. */
static void refuse(const char *dir, const char *want, const char *what) {
    char err[1024];
    srti_model *m = open_dir(dir, err, sizeof err);
    CHECK(!m && strstr(err, want) != NULL, "refuses %s: %s", what, m ? "(opened)" : err);
    srti_close(m);
}
/* The folder opens, but srti_check_llama (what srt-pack runs before packing) refuses it. */
static void refuse_check(const char *dir, const char *want, const char *what) {
    char err[1024];
    srti_model *m = open_dir(dir, err, sizeof err);
    const int refused = m && srti_check_llama(m, err, sizeof err) != 0;
    CHECK(refused && strstr(err, want) != NULL, "the check refuses %s: %s", what, m ? (refused ? err : "(passed)") : err);
    srti_close(m);
}

/* dir's config.json replaced by the tiny Llama's with the keys `extra`; the folder is refused naming want */
static void tiny_config(char *buf, size_t cap, const char *arch, const char *extra);
static void refuse_tiny_config(const char *dir, const char *extra, const char *want, const char *what) {
    char cfg[2048], p[512];
    tiny_config(cfg, sizeof cfg, "LlamaForCausalLM", extra);
    snprintf(p, sizeof p, "%s/config.json", dir);
    write_text(p, cfg);
    refuse(dir, want, what);
}

/* ---------------------------------------------------------------- safetensors writer */
typedef struct st_tensor {
    const char *name, *dtype;
    int nd;             /* 1 .. 4 */
    uint64_t shape[4];
    const void *data;   /* bytes */
} st_tensor;
static uint64_t st_dsize(const char *dt) { return !strcmp(dt, "F32") || !strcmp(dt, "I32") ? 4 : !strcmp(dt, "I8") || !strcmp(dt, "U8") || !strcmp(dt, "F8_E4M3") ? 1 : 2; }
static uint64_t st_bytes(const st_tensor *t) {
    uint64_t n = st_dsize(t->dtype);
    int d;
    for (d = 0; d < t->nd; d++) n *= t->shape[d];
    return n;
}
/* Header JSON (offsets in list order), padded with spaces to a multiple of 8 as the Python library does. */
static void st_header(sbuf *h, const st_tensor *t, int n) {
    uint64_t off = 0;
    int i;
    sb_add(h, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < n; i++) {
        uint64_t b = st_bytes(&t[i]);
        int d;
        sb_add(h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%llu", t[i].name, t[i].dtype, (unsigned long long)t[i].shape[0]);
        for (d = 1; d < t[i].nd; d++) sb_add(h, ",%llu", (unsigned long long)t[i].shape[d]);
        sb_add(h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + b));
        off += b;
    }
    sb_add(h, "}");
    while (h->n % 8) sb_add(h, " ");
}
static int write_safetensors_raw(const char *path, const char *header, size_t hlen, const void *data, size_t dlen) {
    FILE *f = fopen(path, "wb");
    unsigned char l8[8];
    int i, ok;
    if (!f) return 0;
    for (i = 0; i < 8; i++) l8[i] = (unsigned char)((uint64_t)hlen >> (8 * i));
    ok = fwrite(l8, 1, 8, f) == 8 && fwrite(header, 1, hlen, f) == hlen && (dlen == 0 || fwrite(data, 1, dlen, f) == dlen);
    return fclose(f) == 0 && ok;
}
static int st_raw(const char *path, const char *header, const void *data, size_t dlen) {
    return write_safetensors_raw(path, header, strlen(header), data, dlen);
}
static int write_safetensors(const char *path, const st_tensor *t, int n) {
    sbuf h = {NULL, 0, 0};
    FILE *f;
    int i, ok;
    st_header(&h, t, n);
    ok = write_safetensors_raw(path, h.p, h.n, NULL, 0);
    free(h.p);
    if (!ok || !(f = fopen(path, "ab"))) return 0;
    for (i = 0; i < n && ok; i++) ok = fwrite(t[i].data, 1, (size_t)st_bytes(&t[i]), f) == st_bytes(&t[i]);
    return fclose(f) == 0 && ok;
}

/* ---------------------------------------------------------------- a tiny model folder */
/* hidden 8, 2 heads of 4, 1 kv head, 1 layer, FFN 16, vocab 16 */
#define TE 8
#define TF 16
#define TV 16
static float tq[TE * TE], tk[4 * TE], tv[4 * TE], to[TE * TE], tg[TF * TE], tu[TF * TE], td[TE * TF], temb[TV * TE], tn1[TE], tn2[TE], tnf[TE];
static float tqb[TE], tkb[4], tvb[4], tqn[4], tkn[4];

static const char *tiny_tokenizer =
    "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":0,\"content\":\"<|endoftext|>\",\"special\":true}],"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
    "\"decoder\":{\"type\":\"ByteLevel\"},"
    "\"model\":{\"type\":\"BPE\",\"byte_fallback\":false,\"vocab\":{\"<|endoftext|>\":0,\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,"
    "\"g\":7,\"h\":8,\"\\u0120\":9,\"ab\":10,\"cd\":11,\"abcd\":12,\"\\u0120a\":13,\"ef\":14,\"gh\":15},"
    "\"merges\":[\"a b\",\"c d\",\"ab cd\",\"\\u0120 a\",\"e f\",\"g h\"]}}";

static void tiny_config(char *buf, size_t cap, const char *arch, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"%s\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0,"
             "\"max_position_embeddings\":64,\"vocab_size\":16,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\"%s}", arch, extra);
}

static int tiny_tensors(st_tensor *t, int bias, int qk_norm) {
    int n = 0, i;
    for (i = 0; i < TE * TE; i++) { tq[i] = (float)(i / TE) * 100.0f + (float)(i % TE); to[i] = 0.01f * (float)(i % 7); }
    for (i = 0; i < 4 * TE; i++) { tk[i] = (float)(i / TE) * 100.0f + (float)(i % TE); tv[i] = 0.02f * (float)(i % 5); }
    for (i = 0; i < TF * TE; i++) { tg[i] = 0.01f * (float)(i % 9); tu[i] = 0.01f * (float)(i % 11); td[i] = 0.01f * (float)(i % 13); }
    for (i = 0; i < TV * TE; i++) temb[i] = 0.05f * (float)((i * 7) % 17) - 0.4f;
    for (i = 0; i < TE; i++) { tn1[i] = tn2[i] = tnf[i] = 1.0f; tqb[i] = (float)i; }
    for (i = 0; i < 4; i++) { tkb[i] = (float)i; tvb[i] = 0.5f; tqn[i] = 1.0f + 0.25f * (float)i; tkn[i] = 2.0f - 0.25f * (float)i; }
#define T(nm, a, b, d) t[n].name = nm; t[n].dtype = "F32"; t[n].nd = (b) ? 2 : 1; t[n].shape[0] = a; t[n].shape[1] = b; t[n].data = d; n++;
    T("model.embed_tokens.weight", TV, TE, temb)
    T("model.layers.0.input_layernorm.weight", TE, 0, tn1)
    T("model.layers.0.self_attn.q_proj.weight", TE, TE, tq)
    T("model.layers.0.self_attn.k_proj.weight", 4, TE, tk)
    T("model.layers.0.self_attn.v_proj.weight", 4, TE, tv)
    T("model.layers.0.self_attn.o_proj.weight", TE, TE, to)
    T("model.layers.0.post_attention_layernorm.weight", TE, 0, tn2)
    T("model.layers.0.mlp.gate_proj.weight", TF, TE, tg)
    T("model.layers.0.mlp.up_proj.weight", TF, TE, tu)
    T("model.layers.0.mlp.down_proj.weight", TE, TF, td)
    T("model.norm.weight", TE, 0, tnf)
    if (bias) {
        T("model.layers.0.self_attn.q_proj.bias", TE, 0, tqb)
        T("model.layers.0.self_attn.k_proj.bias", 4, 0, tkb)
        T("model.layers.0.self_attn.v_proj.bias", 4, 0, tvb)
    }
    if (qk_norm) {   /* Qwen3: one RMSNorm weight per head dimension (head_dim 4) */
        T("model.layers.0.self_attn.q_norm.weight", 4, 0, tqn)
        T("model.layers.0.self_attn.k_norm.weight", 4, 0, tkn)
    }
#undef T
    return n;
}

/* The files of a folder: config.json, the tiny tokenizer.json, model.safetensors of t[0..n). */
static void write_folder(const char *dir, const char *config, const st_tensor *t, int n) {
    char p[512];
    path_in(p, sizeof p, dir, "config.json"); write_text(p, config);
    path_in(p, sizeof p, dir, "tokenizer.json"); write_text(p, tiny_tokenizer);
    path_in(p, sizeof p, dir, "model.safetensors"); write_safetensors(p, t, n);
}
/* A folder: config (arch), tokenizer.json, model.safetensors from tiny_tensors(). */
static void make_tiny(const char *dir, const char *arch, const char *extra_config) {
    char cfg[1024];
    st_tensor t[20];
    int n = tiny_tensors(t, !strcmp(arch, "Qwen2ForCausalLM"), !strcmp(arch, "Qwen3ForCausalLM"));
    if (!fresh_dir(dir)) return;
    tiny_config(cfg, sizeof cfg, arch, extra_config ? extra_config : "");
    write_folder(dir, cfg, t, n);
}

/* The tokens that end generation: config.json's eos_token_id list and generation_config.json's join
   the vocabulary's eog ids (eos itself and ids it lacks left out), reach the packed file and end
   generation there; a malformed list is refused. */
static void test_eog_lists(void) {
    char err[1024], dir[] = TMP "/eog", p[512];
    srti_model *m;
    srt_model *sm = NULL;
    int ok;
    make_tiny(dir, "LlamaForCausalLM", ",\"eos_token_id\":[0,14]");
    path_in(p, sizeof p, dir, "generation_config.json");
    write_text(p, "{\"bos_token_id\":0,\"eos_token_id\":[0,12,99],\"do_sample\":true}");
    m = open_dir(dir, err, sizeof err);
    ok = m && m->vocab.eos == 0 && m->vocab.n_eog == 2 && m->vocab.eog[0] == 14 && m->vocab.eog[1] == 12;
    CHECK(ok, "eos_token_id lists: config.json's [0, 14] and generation_config.json's [0, 12, 99] give eos 0 and the other tokens 14, 12 "
          "(99: not in the vocabulary) (%s)", m ? "ok" : err);
    srti_close(m);
    ok = system("build/srt-pack -q " TMP "/eog " TMP "/eog.srt") == 0 && srt_model_load(TMP "/eog.srt", NULL, &sm) == SRT_OK;
    CHECK(ok && srt_token_is_eog(sm, 0) && srt_token_is_eog(sm, 12) && srt_token_is_eog(sm, 14) && !srt_token_is_eog(sm, 13),
          "packed, tokens 0, 12 and 14 end generation, 13 does not (%s)", ok ? "ok" : srt_last_error());
    srt_model_free(sm);
    remove(TMP "/eog.srt");
    write_text(p, "{\"eos_token_id\":[0,\"</s>\"]}");
    refuse(dir, "generation_config.json: \"eos_token_id\" must hold token ids", "a generation_config.json eos_token_id that is not ids");
    if (!remove_tree(dir)) CHECK(0, "clean up");
}

static int mx_pack_eval(const char *dir, const char *opts, const char *out, float *logits, srt_model_info *info, char *arch, char *why, size_t cap);
/* FP8 checkpoints: the tiny Llama's matrices as F8_E4M3 with their scales, the norms and embedding
   F32, against the same folder holding the decoded values in F32: every tensor reads the same (q / k
   permuted after decoding) and both pack to the same logits, for quant_method fp8 (Qwen's and
   DeepSeek's *-FP8: weight_scale_inv per 4 x 4 block here, F32 and BF16) and compressed-tensors'
   float-quantized FP8 (RedHat's: a weight_scale per row, BF16 [rows, 1]; per tensor, F32 []; an
   input_scale ignored); a missing or misshapen scale, a NaN, no quantization_config, another
   quant_method or FP8 form refused. */
static float e4m3_value(unsigned code) {   /* float8_e4m3fn, written here from its definition */
    const int e = (int)(code >> 3) & 15, m = (int)code & 7;
    const float v = e ? ldexpf(1.0f + (float)m / 8.0f, e - 7) : ldexpf((float)m / 8.0f, -6);
    return code & 0x80 ? -v : v;
}
static unsigned char e4m3_code(float v) {   /* the nearest (NaN, 0x7f, left out) */
    unsigned c, best = 0;
    for (c = 1; c < 0x7f; c++)
        if (fabsf(e4m3_value(c) - fabsf(v)) < fabsf(e4m3_value(best) - fabsf(v))) best = c;
    return (unsigned char)(v < 0 ? best | 0x80 : best);
}
/* w [rows x cols] to FP8 codes and a scale (amax / 448) per block of br x bc (0: the whole
   dimension), each scale rounded to BF16 if bf16; w replaced by the decoded values */
static void fp8_quantize(float *w, int rows, int cols, int br, int bc, int bf16, unsigned char *codes, float *scales) {
    const int R = br ? br : rows, C = bc ? bc : cols, nc = (cols + C - 1) / C;
    int i, j, r, c;
    for (i = 0; i < (rows + R - 1) / R; i++)
        for (j = 0; j < nc; j++) {
            float amax = 0, sc;
            for (r = i * R; r < rows && r < i * R + R; r++)
                for (c = j * C; c < cols && c < j * C + C; c++) amax = fabsf(w[r * cols + c]) > amax ? fabsf(w[r * cols + c]) : amax;
            sc = amax > 0 ? amax / 448.0f : 1.0f;
            if (bf16) { uint32_t u; memcpy(&u, &sc, 4); u &= 0xffff0000u; memcpy(&sc, &u, 4); }
            scales[i * nc + j] = sc;
            for (r = i * R; r < rows && r < i * R + R; r++)
                for (c = j * C; c < cols && c < j * C + C; c++) {
                    codes[r * cols + c] = e4m3_code(w[r * cols + c] / sc);
                    w[r * cols + c] = e4m3_value(codes[r * cols + c]) * sc;
                }
        }
}
static const char *const fp8_mats[7] = {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
                                        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.gate_proj.weight", "model.layers.0.mlp.up_proj.weight",
                                        "model.layers.0.mlp.down_proj.weight"};
static unsigned char fp8_codes[7][TF * TE];
static float fp8_scales[7][64];
static uint16_t fp8_scales16[7][64];
static char fp8_names[7][96];
static float fp8_input_scale = 0.5f;
/* Writes the FP8 folder dira (config keys qc; scales per br x bc blocks, named suffix, scale_nd
   dimensions, BF16 for v_proj or all when bf16 is 2) and its F32 twin dirb; f: the FP8 folder's tensors */
static int fp8_folders(const char *dira, const char *dirb, const char *qc, int br, int bc, const char *suffix, int scale_nd, int bf16, st_tensor *f) {
    st_tensor t[40];
    char cfg[1024];
    int n = tiny_tensors(t, 0, 0), nf = 0, i, k;
    for (i = 0; i < n; i++) {   /* the matrices quantized (their floats now the decoded values), each with its scales */
        f[nf++] = t[i];
        for (k = 0; k < 7 && strcmp(t[i].name, fp8_mats[k]) != 0; k++) {}
        if (k == 7) continue;
        {
            const int rows = (int)t[i].shape[0], cols = (int)t[i].shape[1], R = br ? br : rows, C = bc ? bc : cols, half = bf16 == 2 || (bf16 && k == 2);
            uint64_t j;
            fp8_quantize((float *)t[i].data, rows, cols, br, bc, half, fp8_codes[k], fp8_scales[k]);
            f[nf - 1].dtype = "F8_E4M3"; f[nf - 1].data = fp8_codes[k];
            snprintf(fp8_names[k], sizeof fp8_names[k], "%s%s", fp8_mats[k], suffix);
            f[nf].name = fp8_names[k]; f[nf].dtype = half ? "BF16" : "F32"; f[nf].nd = scale_nd;
            f[nf].shape[0] = (uint64_t)((rows + R - 1) / R); f[nf].shape[1] = (uint64_t)((cols + C - 1) / C); f[nf].data = fp8_scales[k];
            if (half) {
                for (j = 0; j < f[nf].shape[0] * f[nf].shape[1]; j++) { uint32_t u; memcpy(&u, &fp8_scales[k][j], 4); fp8_scales16[k][j] = (uint16_t)(u >> 16); }
                f[nf].data = fp8_scales16[k];
            }
            nf++;
        }
    }
    if (strstr(qc, "compressed-tensors")) {   /* a static input scale, which the runtime has no use for */
        f[nf].name = "model.layers.0.self_attn.q_proj.input_scale"; f[nf].dtype = "F32"; f[nf].nd = 1; f[nf].shape[0] = 1; f[nf].data = &fp8_input_scale;
        nf++;
    }
    if (!fresh_dir(dira) || !fresh_dir(dirb)) return 0;
    tiny_config(cfg, sizeof cfg, "LlamaForCausalLM", qc);
    write_folder(dira, cfg, f, nf);
    tiny_config(cfg, sizeof cfg, "LlamaForCausalLM", "");
    write_folder(dirb, cfg, t, n);
    return nf;
}
static void test_fp8(void) {
    static const struct { const char *what, *qc, *suffix; int br, bc, nd, bf16; } forms[3] = {
        {"quant_method fp8, 4 x 4 blocks (F32 and BF16 scales)",
         ",\"quantization_config\":{\"quant_method\":\"fp8\",\"fmt\":\"e4m3\",\"activation_scheme\":\"dynamic\",\"weight_block_size\":[4,4]}",
         "_scale_inv", 4, 4, 2, 1},
        {"compressed-tensors FP8 per row (BF16 [rows, 1] scales, an input_scale)",
         ",\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"float-quantized\",\"config_groups\":{\"group_0\":{\"targets\":[\"Linear\"],"
         "\"weights\":{\"num_bits\":8,\"type\":\"float\",\"strategy\":\"channel\",\"symmetric\":true,\"dynamic\":false},\"input_activations\":{\"num_bits\":8,"
         "\"type\":\"float\",\"strategy\":\"tensor\",\"dynamic\":false}}},\"ignore\":[\"lm_head\"]}", "_scale", 1, 0, 2, 2},
        {"compressed-tensors FP8 per tensor (an F32 [] scale)",
         ",\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"float-quantized\",\"config_groups\":{\"group_0\":{"
         "\"weights\":{\"num_bits\":8,\"type\":\"float\",\"strategy\":\"tensor\"}}}}", "_scale", 0, 0, 0, 0},
    };
    char err[1024], p[512], dira[] = TMP "/fp8", dirb[] = TMP "/fp8ref", why[256] = "", arch[16];
    st_tensor f[40];
    int nf = 0, i, k, v, ok, same;
    float la[TV], lb[TV], va[TF * TE], vb[TF * TE];
    srt_model_info info;
    srti_model *ma, *mb;
    double d = 1;
    for (v = 0; v < 3; v++) {
        nf = fp8_folders(dira, dirb, forms[v].qc, forms[v].br, forms[v].bc, forms[v].suffix, forms[v].nd, forms[v].bf16, f);
        ma = open_dir(dira, err, sizeof err);
        mb = open_dir(dirb, why, sizeof why);
        ok = nf && ma && mb && ma->n_tensors == mb->n_tensors;
        same = 1;
        for (i = 0; ok && i < (int)ma->n_tensors; i++) {
            const int j = srti_find(mb, ma->tensors[i].name);
            const uint64_t nv = srti_tensor_nvalues(&ma->tensors[i]);
            uint64_t q;
            ok = j >= 0 && nv == srti_tensor_nvalues(&mb->tensors[j]) && srti_read_f32(ma, (uint32_t)i, va, err, sizeof err) == 0 &&
                 srti_read_f32(mb, (uint32_t)j, vb, err, sizeof err) == 0;
            for (q = 0; ok && q < nv; q++)
                if (va[q] != vb[q]) { same = 0; snprintf(err, sizeof err, "%s[%llu]: %g != %g", ma->tensors[i].name, (unsigned long long)q, (double)va[q], (double)vb[q]); }
        }
        CHECK(ok && same && srti_check_llama(ma, why, sizeof why) == 0, "FP8 folder, %s: every tensor reads as the F32 folder of the decoded values, "
              "q / k permuted after decoding (%s)", forms[v].what, ok && same ? "ok" : err);
        srti_close(ma); srti_close(mb);
        ok = mx_pack_eval(dira, "--weights f32", TMP "/fp8.srt", la, &info, arch, why, sizeof why) &&
             mx_pack_eval(dirb, "--weights f32", TMP "/fp8ref.srt", lb, &info, arch, why, sizeof why);
        if (ok) d = max_rel_diff(la, lb, TV);
        CHECK(ok && d == 0, "FP8 folder, %s: it and its F32 twin pack (f32) to the same logits (%.2g) (%s)", forms[v].what, d, ok ? "ok" : why);
        remove(TMP "/fp8.srt"); remove(TMP "/fp8ref.srt");
    }
    /* refusals (quant_method fp8) */
    nf = fp8_folders(dira, dirb, forms[0].qc, 4, 4, "_scale_inv", 2, 1, f);
    path_in(p, sizeof p, dira, "model.safetensors");
    for (i = 0; i < nf && strcmp(f[i].name, fp8_names[4]) != 0; i++) {}
    { st_tensor g[40]; int ng = 0, j; for (j = 0; j < nf; j++) if (j != i) g[ng++] = f[j]; write_safetensors(p, g, ng); }
    refuse(dira, "tensor 'blk.0.ffn_gate.weight' has FP8 values but no scales (weight_scale_inv / weight_scale)", "an FP8 weight without its scales");
    f[i].shape[0] += 1;
    write_safetensors(p, f, nf);
    refuse(dira, "FP8 scales of 5 rows (40 bytes) do not match [16, 8] in blocks of 4 x 4", "scales of the wrong shape");
    f[i].shape[0] -= 1;
    fp8_codes[4][5] = 0x7f;
    write_safetensors(p, f, nf);
    ma = open_dir(dira, err, sizeof err);
    k = ma ? srti_find(ma, "blk.0.ffn_gate.weight") : -1;
    ok = k >= 0 && srti_read_f32(ma, (uint32_t)k, va, err, sizeof err) != 0 && strstr(err, "FP8 NaN at [0, 5]");
    CHECK(ok, "an FP8 NaN is refused when read: %s", err);
    srti_close(ma);
    fp8_codes[4][5] = 0;
    write_safetensors(p, f, nf);
    refuse_tiny_config(dira, "", "is FP8, but config.json has no quantization_config of FP8 weights", "FP8 tensors without the quantization_config");
    refuse_tiny_config(dira, ",\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4}", "quantization_config.quant_method \"gptq\" is not supported",
                       "a GPTQ checkpoint");
    refuse_tiny_config(dira, ",\"quantization_config\":{\"quant_method\":\"fp8\",\"fmt\":\"e5m2\"}", "quantization_config.fmt \"e5m2\" is not supported", "FP8 E5M2");
    refuse_tiny_config(dira, ",\"quantization_config\":{\"quant_method\":\"fp8\",\"weight_block_size\":[0,128]}", "weight_block_size must be [rows, columns]",
                       "a block size of 0");
    refuse_tiny_config(dira, ",\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"pack-quantized\",\"config_groups\":{\"group_0\":"
                       "{\"weights\":{\"num_bits\":4,\"type\":\"int\",\"strategy\":\"group\"}}}}", "compressed-tensors quantization is supported as format float-quantized",
                       "compressed-tensors int4 (pack-quantized)");
    refuse_tiny_config(dira, ",\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"float-quantized\",\"config_groups\":{\"group_0\":"
                       "{\"weights\":{\"num_bits\":8,\"type\":\"float\",\"strategy\":\"group\"}}}}", "compressed-tensors weights.strategy \"group\" is not supported",
                       "compressed-tensors FP8 per group");
    if (!remove_tree(dira) || !remove_tree(dirb)) CHECK(0, "clean up");
}

static void test_tiny_llama(void) {
    char err[1024], dir[] = TMP "/tiny";
    srti_model *m;
    float q[TE * TE], k[4 * TE];
    int i, qi, ki, ok;
    static const int order[8] = {0, 2, 1, 3, 4, 6, 5, 7};   /* per head of 4: GGUF row 2j+s = HF row 2s+j */
    make_tiny(dir, "LlamaForCausalLM", NULL);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Llama folder opens (%s)", m ? "ok" : err);
    if (!m) return;
    CHECK(!strcmp(m->hp.arch, "llama") && m->hp.n_embd == 8 && m->hp.n_head == 2 && m->hp.n_head_kv == 1 && m->hp.head_dim == 4 &&
          m->hp.n_layer == 1 && m->hp.n_ff == 16 && m->hp.n_vocab == 16 && m->hp.rope_neox == 0 && m->hp.tied_output == 1 &&
          m->hp.n_ctx == 64 && fabsf(m->hp.norm_eps - 1e-5f) < 1e-12f && !strcmp(m->hp.rope_scaling, "none"),
          "tiny Llama hyper-parameters");
    CHECK(m->n_tensors == 11 && srti_check_llama(m, err, sizeof err) == 0, "11 tensors with GGUF names and shapes (%s)", err);
    qi = srti_find(m, "blk.0.attn_q.weight");
    ki = srti_find(m, "blk.0.attn_k.weight");
    CHECK(qi >= 0 && ki >= 0 && m->tensors[qi].ne[0] == 8 && m->tensors[qi].ne[1] == 8 && m->tensors[ki].ne[1] == 4 &&
          m->tensors[qi].permute_heads == 2 && m->tensors[ki].permute_heads == 1, "q/k marked for permutation over 2 and 1 heads");
    ok = qi >= 0 && ki >= 0 && srti_read_f32(m, (uint32_t)qi, q, err, sizeof err) == 0 && srti_read_f32(m, (uint32_t)ki, k, err, sizeof err) == 0;
    for (i = 0; ok && i < TE * TE; i++) ok = q[i] == tq[order[i / TE] * TE + i % TE];
    for (i = 0; ok && i < 4 * TE; i++) ok = k[i] == tk[order[i / TE] * TE + i % TE];
    CHECK(ok, "q_proj/k_proj rows come out in llama.cpp's permuted order (0 2 1 3 | 4 6 5 7)");
    ki = srti_find(m, "blk.0.attn_v.weight");
    ok = ki >= 0 && srti_read_f32(m, (uint32_t)ki, k, err, sizeof err) == 0 && memcmp(k, tv, sizeof tv) == 0;
    CHECK(ok, "v_proj is read unchanged");
    CHECK(!strcmp(m->vocab.model, "gpt2") && !strcmp(m->vocab.pre, "gpt-2") && m->vocab.n_tokens == 16 && m->vocab.n_merges == 6 &&
          m->vocab.types[0] == SRTI_TOKEN_CONTROL && m->vocab.types[1] == SRTI_TOKEN_NORMAL && !strcmp(m->vocab.tokens[9], "\xc4\xa0"),
          "tiny byte-level vocabulary: gpt2 / gpt-2, 16 tokens, 6 merges, control token 0");
    srti_close(m);

    make_tiny(dir, "Qwen2ForCausalLM", NULL);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && !strcmp(m->hp.arch, "qwen2") && m->hp.rope_neox == 1 && m->n_tensors == 14 && srti_find(m, "blk.0.attn_q.bias") >= 0 &&
          srti_check_llama(m, err, sizeof err) == 0, "tiny Qwen2 folder: qwen2, NeoX rope, q/k/v biases (%s)", m ? err : err);
    if (m) {
        qi = srti_find(m, "blk.0.attn_q.weight");
        ok = qi >= 0 && m->tensors[qi].permute_heads == 0 && srti_read_f32(m, (uint32_t)qi, q, err, sizeof err) == 0 && memcmp(q, tq, sizeof tq) == 0;
        CHECK(ok, "Qwen2 q_proj is not permuted (NeoX order kept)");
    }
    srti_close(m);

    make_tiny(dir, "Qwen3ForCausalLM", NULL);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && !strcmp(m->hp.arch, "qwen3") && m->hp.rope_neox == 1 && m->n_tensors == 13 && srti_find(m, "blk.0.attn_q.bias") < 0 &&
          srti_check_llama(m, err, sizeof err) == 0, "tiny Qwen3 folder: qwen3, NeoX rope, no biases, q/k norms (%s)", err);
    if (m) {
        float nv[4];
        qi = srti_find(m, "blk.0.attn_q_norm.weight");
        ki = srti_find(m, "blk.0.attn_k_norm.weight");
        ok = qi >= 0 && ki >= 0 && m->tensors[qi].ne[0] == 4 && m->tensors[qi].ne[1] == 1 && srti_read_f32(m, (uint32_t)qi, nv, err, sizeof err) == 0 &&
             memcmp(nv, tqn, sizeof tqn) == 0 && srti_read_f32(m, (uint32_t)ki, nv, err, sizeof err) == 0 && memcmp(nv, tkn, sizeof tkn) == 0;
        CHECK(ok, "Qwen3 q_norm / k_norm become blk.0.attn_q_norm / attn_k_norm.weight [head_dim], values unchanged");
        qi = srti_find(m, "blk.0.attn_q.weight");
        CHECK(qi >= 0 && m->tensors[qi].permute_heads == 0, "Qwen3 q_proj is not permuted (NeoX order kept)");
    }
    srti_close(m);
    {   /* packed, it loads as qwen3 with the norms, NeoX rope, and runs */
        srt_model *sm = NULL;
        srt_session *ss = NULL;
        srt_model_desc md;
        srt_model_info info;
        uint32_t neox = 0;
        int32_t prompt[3] = {1, 2, 3};
        memset(&md, 0, sizeof md);
        memset(&info, 0, sizeof info);
        md.n_threads = 1;
        ok = system("build/srt-pack -q " TMP "/tiny " TMP "/tiny_qwen3.srt") == 0 && srt_model_load(TMP "/tiny_qwen3.srt", &md, &sm) == SRT_OK;
        if (ok) srt_model_get_info(sm, &info);
        ok = ok && info.architecture && !strcmp(info.architecture, "qwen3") && info.head_dim == 4 && srt_model_meta_u32(sm, "qwen3.rope.neox", &neox) &&
             neox == 1 && srt_session_create(sm, NULL, &ss) == SRT_OK && srt_session_feed(ss, prompt, 3) == SRT_OK && srt_session_logits(ss);
        CHECK(ok, "srt-pack packs the Qwen3 folder; it loads as qwen3 (rope.neox 1) and evaluates a prompt (%s)", ok ? "ok" : srt_last_error());
        srt_session_destroy(ss);
        srt_model_free(sm);
    }
    {   /* a Qwen3 checkpoint without its q/k norms is refused by the check */
        char p[512];
        st_tensor t[20];
        int n = tiny_tensors(t, 0, 0);
        path_in(p, sizeof p, dir, "model.safetensors");
        write_safetensors(p, t, n);
        m = open_dir(dir, err, sizeof err);
        ok = m && srti_check_llama(m, err, sizeof err) != 0 && strstr(err, "attn_q_norm") != NULL;
        CHECK(ok, "a Qwen3 folder without q_norm is refused: %s", err);
        srti_close(m);
    }

    make_tiny(dir, "MistralForCausalLM", ",\"sliding_window\":null");
    m = open_dir(dir, err, sizeof err);
    CHECK(m && !strcmp(m->hp.arch, "llama") && m->tensors[srti_find(m, "blk.0.attn_q.weight")].permute_heads == 2, "Mistral maps to llama, permuted");
    srti_close(m);
}

/* ---------------------------------------------------------------- Phi-3 */
/* A Phi3ForCausalLM folder holds q, k, v as one qkv_proj and gate, up as one gate_up_proj; with
   LongRoPE its config carries the factor lists. The import splits them into the usual tensors
   (values unchanged, NeoX order kept), makes the factor lists rope_factors_long/short.weight and
   the attention factor sqrt(1 + ln(max / original) / ln(original)); srt-pack packs it and the
   runtime loads it as phi3. Bad splits and factor lists are refused. */
static void make_phi3(const char *dir, const char *extra, int qkv_rows) {
    static float qkv[(TE + 8) * TE], gu[2 * TF * TE];
    char cfg[2048];
    st_tensor t[20];
    int n = tiny_tensors(t, 0, 0), i, k = 0;
    memcpy(qkv, tq, sizeof tq); memcpy(qkv + TE * TE, tk, sizeof tk); memcpy(qkv + TE * TE + 4 * TE, tv, sizeof tv);
    memcpy(gu, tg, sizeof tg); memcpy(gu + TF * TE, tu, sizeof tu);
    for (i = 0; i < n; i++) {   /* q/k/v and gate/up replaced by the fused pair */
        if (strstr(t[i].name, "q_proj")) { t[k] = t[i]; t[k].name = "model.layers.0.self_attn.qkv_proj.weight"; t[k].shape[0] = (uint64_t)qkv_rows; t[k++].data = qkv; }
        else if (strstr(t[i].name, "gate_proj")) { t[k] = t[i]; t[k].name = "model.layers.0.mlp.gate_up_proj.weight"; t[k].shape[0] = 2 * TF; t[k++].data = gu; }
        else if (!strstr(t[i].name, "k_proj") && !strstr(t[i].name, "v_proj") && !strstr(t[i].name, "up_proj")) t[k++] = t[i];
    }
    if (!fresh_dir(dir)) return;
    tiny_config(cfg, sizeof cfg, "Phi3ForCausalLM", extra);
    write_folder(dir, cfg, t, k);
}
static void test_tiny_phi3(void) {
    char err[1024], dir[] = TMP "/phi3";
    static const char *longrope = ",\"original_max_position_embeddings\":16,\"sliding_window\":47,\"partial_rotary_factor\":0.5,"
        "\"rope_scaling\":{\"type\":\"longrope\",\"long_factor\":[4.0],\"short_factor\":[1.25]}";
    srti_model *m;
    float v[TF * TE];
    int ok;
    make_phi3(dir, "", TE + 8);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && !strcmp(m->hp.arch, "phi3") && m->hp.rope_neox == 1 && m->hp.rope_dim == 4 && !strcmp(m->hp.rope_scaling, "none") &&
          m->n_tensors == 11 && srti_check_llama(m, err, sizeof err) == 0, "tiny Phi-3 folder: phi3, NeoX rope, 11 tensors once split (%s)", m ? err : err);
    if (m) {
        static const struct { const char *name; const float *want; size_t n; } parts[] = {
            {"blk.0.attn_q.weight", tq, TE * TE}, {"blk.0.attn_k.weight", tk, 4 * TE}, {"blk.0.attn_v.weight", tv, 4 * TE},
            {"blk.0.ffn_gate.weight", tg, TF * TE}, {"blk.0.ffn_up.weight", tu, TF * TE}};
        size_t j;
        for (j = 0, ok = 1; j < sizeof parts / sizeof parts[0] && ok; j++) {
            int ti = srti_find(m, parts[j].name);
            ok = ti >= 0 && srti_tensor_nvalues(&m->tensors[ti]) == parts[j].n && m->tensors[ti].permute_heads == 0 &&
                 srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) == 0 && memcmp(v, parts[j].want, parts[j].n * sizeof(float)) == 0;
        }
        CHECK(ok && srti_find(m, "blk.0.attn_qkv.weight") < 0, "qkv_proj splits into attn_q/k/v and gate_up_proj into ffn_gate, ffn_up (gate first), values unchanged, not permuted");
    }
    srti_close(m);

    make_phi3(dir, longrope, TE + 8);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Phi-3 folder with LongRoPE opens (%s)", m ? "ok" : err);
    if (m) {
        int lo = srti_find(m, "rope_factors_long.weight"), sh = srti_find(m, "rope_factors_short.weight");
        const float want_af = (float)sqrt(1.0 + log(64.0 / 16.0) / log(16.0));
        ok = lo >= 0 && sh >= 0 && m->tensors[lo].ne[0] == 1 && m->tensors[sh].ne[0] == 1 && srti_read_f32(m, (uint32_t)lo, v, err, sizeof err) == 0 &&
             v[0] == 4.0f && srti_read_f32(m, (uint32_t)sh, v, err, sizeof err) == 0 && v[0] == 1.25f;
        CHECK(ok && !strcmp(m->hp.rope_scaling, "longrope") && m->hp.rope_orig_ctx == 16 && m->hp.rope_dim == 2 && m->hp.sliding_window == 47 &&
              fabsf(m->hp.rope_attn_factor - want_af) < 1e-6f && srti_check_llama(m, err, sizeof err) == 0,
              "LongRoPE: factor tensors [1] from the lists, original context 16, rope_dim 2 (partial 0.5), attention factor %.6f = %.6f (%s)",
              (double)m->hp.rope_attn_factor, (double)want_af, err);
    }
    srti_close(m);
    {   /* packed: phi3 with its factors and attention factor; it loads and evaluates a prompt */
        srt_model *sm = NULL;
        srt_session *ss = NULL;
        srt_model_desc md;
        float af = 0;
        const char *st = NULL;
        uint32_t sw = 0;
        int32_t prompt[3] = {1, 2, 3};
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        ok = system("build/srt-pack -q " TMP "/phi3 " TMP "/tiny_phi3.srt") == 0 && srt_model_load(TMP "/tiny_phi3.srt", &md, &sm) == SRT_OK;
        ok = ok && srt_model_meta_f32(sm, "phi3.rope.scaling.attn_factor", &af) && af > 1.0f && srt_model_meta_str(sm, "phi3.rope.scaling.type", &st) &&
             !strcmp(st, "longrope") && srt_model_meta_u32(sm, "phi3.attention.sliding_window", &sw) && sw == 47 &&
             srt_session_create(sm, NULL, &ss) == SRT_OK && srt_session_feed(ss, prompt, 3) == SRT_OK && srt_session_logits(ss);
        CHECK(ok, "srt-pack packs the Phi-3 folder (longrope, attn_factor %.4f, sliding_window %u recorded); it loads and evaluates a prompt (%s)",
              (double)af, (unsigned)sw, ok ? "ok" : srt_last_error());
        srt_session_destroy(ss);
        srt_model_free(sm);
    }
    make_phi3(dir, "", TE + 4);
    refuse(dir, "cannot be split into q, k and v", "a qkv_proj of 12 rows (q 8 + k 4 + v 4 = 16 expected)");
    make_phi3(dir, ",\"original_max_position_embeddings\":16,\"rope_scaling\":{\"type\":\"longrope\",\"long_factor\":[1.5],\"short_factor\":[1.0,1.25]}", TE + 8);
    refuse(dir, "long_factor must be an array of 2", "a long_factor list of 1 number for 2 pairs");
    make_phi3(dir, ",\"original_max_position_embeddings\":16,\"rope_scaling\":{\"type\":\"su\",\"long_factor\":[1.5,2],\"short_factor\":[1.0,-1]}", TE + 8);
    refuse(dir, "short_factor[1] must be a positive number", "a negative factor (type su, LongRoPE's first name)");
    make_phi3(dir, ",\"rope_scaling\":{\"type\":\"longrope\",\"long_factor\":[1.5,2,3,4],\"short_factor\":[1,1,1,1]}", TE + 8);
    refuse(dir, "needs original_max_position_embeddings", "LongRoPE without original_max_position_embeddings");
    make_phi3(dir, ",\"partial_rotary_factor\":0.1", TE + 8);
    refuse(dir, "partial_rotary_factor", "a partial_rotary_factor leaving no whole pair");
}

/* ---------------------------------------------------------------- Gemma 2 / Gemma 3 */
/* Tiny Gemma folders: hidden 8, 2 heads of head_dim 6 (not hidden / heads), 1 kv head, FFN 16,
   vocabulary 268 (a Gemma-style SentencePiece tokenizer.json); Gemma 2 with 3 layers, Gemma 3
   with 7 (q_norm / k_norm, a full-attention layer at 5). Norms of layer 1 are BF16 and of layer 2
   F16 (the +1 of the F16 ones is rounded to F16, as llama.cpp's converter does), the rest F32.
   The import maps every tensor, adds 1 to exactly the norms, and records the attention metadata;
   malformed checkpoints are refused naming what is wrong (a missing or misshapen tensor by
   srti_check_llama, as srt-pack runs it); a packed Gemma 3 folder loads and runs. */
#define GE 8
#define GHD 6
#define GF 16
#define GV 268
#define GVM 272   /* the multimodal folders' vocab_size: <image_soft_token> (268) inside it */
typedef struct gm_tensor {
    char hf[128], gg[80];
    const char *dtype;
    uint64_t rows, cols;      /* cols 0: 1-D */
    int norm;
    float *f;                 /* the values as stored (F32, or the BF16 / F16 values as floats) */
    uint16_t *h;              /* BF16 / F16 bits */
} gm_tensor;
static gm_tensor gm[128];
static int gm_n;
static int gm_vocab = GV;   /* rows of the embedding gm_tensors makes */
static float gm_pool[16384];
static uint16_t gm_pool16[512];
static size_t gm_used, gm_used16;
/* F16 norm values chosen for the rounding of w + 1 to F16 (spacing 2^-10 above 1): 0.0001 -> 1,
   0.5 -> 1.5, -0.25 -> 0.75, 1.5 x 2^-11 -> 1 + 2^-10, 2^-11 -> 1 (a tie, to even), 0 -> 1, 1 -> 2, -2 -> -1 */
static const uint16_t gm_f16_bits[GE] = {0x068E, 0x3800, 0xB400, 0x1200, 0x1000, 0x0000, 0x3C00, 0xC000};
static const float gm_f16_plus1[GE] = {1.0f, 1.5f, 0.75f, 1.0009765625f, 1.0f, 1.0f, 2.0f, -1.0f};
static float gm_f16_value(uint16_t h) {   /* normal halves and zero only (all the table holds) */
    int e = (h >> 10) & 31;
    float v = e ? ldexpf(1.0f + (float)(h & 1023) / 1024.0f, e - 15) : 0.0f;
    return h & 0x8000 ? -v : v;
}
static void gm_add(const char *hf, const char *gg, uint64_t rows, uint64_t cols, int norm, const char *dtype) {
    gm_tensor *t = &gm[gm_n++];
    uint64_t n = rows * (cols ? cols : 1), i;
    snprintf(t->hf, sizeof t->hf, "%s", hf);
    snprintf(t->gg, sizeof t->gg, "%s", gg);
    t->dtype = dtype; t->rows = rows; t->cols = cols; t->norm = norm;
    t->f = gm_pool + gm_used; gm_used += n;
    t->h = NULL;
    if (strcmp(dtype, "F32") != 0) { t->h = gm_pool16 + gm_used16; gm_used16 += n; }
    for (i = 0; i < n; i++) {
        float x = srt_test_frand() * (norm ? 0.5f : 0.1f);
        if (!strcmp(dtype, "BF16")) {   /* x cut to BF16: its top 16 bits */
            uint32_t u;
            memcpy(&u, &x, 4);
            t->h[i] = (uint16_t)(u >> 16);
            u = (uint32_t)t->h[i] << 16;
            memcpy(&t->f[i], &u, 4);
        } else if (!strcmp(dtype, "F16")) {
            t->h[i] = gm_f16_bits[i % GE];
            t->f[i] = gm_f16_value(t->h[i]);
        } else t->f[i] = x;
    }
}
/* The tensor list of a Gemma folder with `layers` layers; gemma3: q_norm / k_norm. */
static void gm_tensors(int layers, int gemma3) {
    static const struct { const char *hf, *gg; int shape, norm; } per[] = {   /* shape: 0 [E], 1 q [12, E], 2 kv [6, E], 3 o [E, 12], 4 [F, E], 5 [E, F], 6 [head_dim] */
        {"input_layernorm.weight", "attn_norm.weight", 0, 1}, {"self_attn.q_proj.weight", "attn_q.weight", 1, 0},
        {"self_attn.k_proj.weight", "attn_k.weight", 2, 0}, {"self_attn.v_proj.weight", "attn_v.weight", 2, 0},
        {"self_attn.o_proj.weight", "attn_output.weight", 3, 0}, {"post_attention_layernorm.weight", "post_attention_norm.weight", 0, 1},
        {"pre_feedforward_layernorm.weight", "ffn_norm.weight", 0, 1}, {"mlp.gate_proj.weight", "ffn_gate.weight", 4, 0},
        {"mlp.up_proj.weight", "ffn_up.weight", 4, 0}, {"mlp.down_proj.weight", "ffn_down.weight", 5, 0},
        {"post_feedforward_layernorm.weight", "post_ffw_norm.weight", 0, 1},
        {"self_attn.q_norm.weight", "attn_q_norm.weight", 6, 1}, {"self_attn.k_norm.weight", "attn_k_norm.weight", 6, 1},
    };
    static const uint64_t shape[7][2] = {{GE, 0}, {2 * GHD, GE}, {GHD, GE}, {GE, 2 * GHD}, {GF, GE}, {GE, GF}, {GHD, 0}};
    char hf[80], gg[80];
    int l, k;
    gm_n = 0; gm_used = gm_used16 = 0;
    srt_test_rng = 2026;
    gm_add("model.embed_tokens.weight", "token_embd.weight", (uint64_t)gm_vocab, GE, 0, "F32");
    for (l = 0; l < layers; l++)
        for (k = 0; k < (gemma3 ? 13 : 11); k++) {
            const char *dt = !per[k].norm ? "F32" : l == 1 ? "BF16" : l == 2 && per[k].shape == 0 ? "F16" : "F32";
            snprintf(hf, sizeof hf, "model.layers.%d.%s", l, per[k].hf);
            snprintf(gg, sizeof gg, "blk.%d.%s", l, per[k].gg);
            gm_add(hf, gg, shape[per[k].shape][0], shape[per[k].shape][1], per[k].norm, dt);
        }
    gm_add("model.norm.weight", "output_norm.weight", GE, 0, 1, "F32");
}
/* Writes the folder from gm[] less the tensor named `drop` (NULL: none). */
static void gm_write(const char *dir, const char *config, const char *drop, int image_token) {
    char p[512];
    st_tensor t[128];
    sbuf tok = {NULL, 0, 0};
    int i, n = 0;
    if (!fresh_dir(dir)) return;
    for (i = 0; i < gm_n; i++) {
        if (drop && !strcmp(gm[i].hf, drop)) continue;
        t[n].name = gm[i].hf; t[n].dtype = gm[i].dtype; t[n].nd = gm[i].cols ? 2 : 1;
        t[n].shape[0] = gm[i].rows; t[n].shape[1] = gm[i].cols;
        t[n].data = gm[i].h ? (const void *)gm[i].h : (const void *)gm[i].f;
        n++;
    }
    path_in(p, sizeof p, dir, "model.safetensors"); write_safetensors(p, t, n);
    path_in(p, sizeof p, dir, "config.json"); write_text(p, config);
    /* Gemma's tokenizer.json: BPE with byte fallback, spaces replaced by U+2581 (no dummy prefix) */
    sb_add(&tok, "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":0,\"content\":\"<pad>\",\"special\":true},{\"id\":1,\"content\":\"<eos>\",\"special\":true},"
                 "{\"id\":2,\"content\":\"<bos>\",\"special\":true},{\"id\":3,\"content\":\"<unk>\",\"special\":true},"
                 "{\"id\":4,\"content\":\"<start_of_turn>\",\"special\":true},{\"id\":5,\"content\":\"<end_of_turn>\",\"special\":true},"
                 "{\"id\":6,\"content\":\"<unused0>\",\"special\":false}%s],"
                 "\"normalizer\":{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"},\"pre_tokenizer\":null,"
                 "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<bos>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]},"
                 "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\xe2\x96\x81\"},\"content\":\" \"},"
                 "{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"}]},"
                 "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":\"<unk>\",\"fuse_unk\":true,\"byte_fallback\":true,\"vocab\":{"
                 "\"<pad>\":0,\"<eos>\":1,\"<bos>\":2,\"<unk>\":3,\"<start_of_turn>\":4,\"<end_of_turn>\":5,\"<unused0>\":6",
           image_token ? ",{\"id\":268,\"content\":\"<image_soft_token>\",\"special\":true}" : "");
    for (i = 0; i < 256; i++) sb_add(&tok, ",\"<0x%02X>\":%d", i, 7 + i);
    sb_add(&tok, ",\"\xe2\x96\x81\":263,\"a\":264,\"b\":265,\"\xe2\x96\x81" "a\":266,\"ab\":267},\"merges\":[\"\xe2\x96\x81 a\",\"a b\"]}}");
    path_in(p, sizeof p, dir, "tokenizer.json"); write_text(p, tok.p);
    free(tok.p);
    path_in(p, sizeof p, dir, "tokenizer_config.json");
    write_text(p, "{\"bos_token\":\"<bos>\",\"eos_token\":\"<eos>\",\"pad_token\":\"<pad>\",\"unk_token\":\"<unk>\",\"add_bos_token\":true,\"add_eos_token\":false}");
}
/* config.json of a tiny Gemma; `extra` keys replace the defaults of the same name. */
static void gm_config(char *buf, size_t cap, int gemma3, int layers, const char *extra) {
    static const char *const g2[] = {"\"hidden_act\":\"gelu_pytorch_tanh\"", "\"hidden_activation\":\"gelu_pytorch_tanh\"", "\"rope_theta\":10000.0",
        "\"sliding_window\":4096", "\"attn_logit_softcapping\":50.0", "\"final_logit_softcapping\":30.0", "\"query_pre_attn_scalar\":144",
        "\"cache_implementation\":\"hybrid\"", NULL};
    static const char *const g3[] = {"\"hidden_activation\":\"gelu_pytorch_tanh\"", "\"rope_theta\":1000000.0", "\"rope_local_base_freq\":10000.0",
        "\"sliding_window\":512", "\"attn_logit_softcapping\":null", "\"final_logit_softcapping\":null", "\"query_pre_attn_scalar\":24", NULL};
    const char *const *d;
    sbuf defaults = {NULL, 0, 0};
    sb_add(&defaults, "%s", "");
    for (d = gemma3 ? g3 : g2; *d; d++) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(strchr(*d + 1, '"') - *d + 1), *d);
        if (!strstr(extra, key)) sb_add(&defaults, ",%s", *d);
    }
    snprintf(buf, cap, "{\"architectures\":[\"%s\"],\"model_type\":\"%s\",\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":%d,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":6,\"rms_norm_eps\":1e-06,\"max_position_embeddings\":8192,"
             "\"vocab_size\":268,\"bos_token_id\":2,\"eos_token_id\":1,\"pad_token_id\":0,\"attention_bias\":false%s%s}",
             gemma3 ? "Gemma3ForCausalLM" : "Gemma2ForCausalLM", gemma3 ? "gemma3_text" : "gemma2", layers,
             defaults.p, extra);
    free(defaults.p);
}
/* Every tensor of gm[] is in m under its GGUF name, in its shape, with its values, plus 1 on the
   norms; those of no GGUF name ("": a vision tower's, a tied lm_head) are not there (m has exactly
   the others). */
static int gm_check_values(srti_model *m, char *why, size_t cap) {
    static float v[GVM * GE];
    char err[256];
    int i, expect = 0;
    uint64_t j;
    for (i = 0; i < gm_n; i++) expect += gm[i].gg[0] != 0;
    if (m->n_tensors != (uint32_t)expect) { snprintf(why, cap, "%u tensors, %d expected", (unsigned)m->n_tensors, expect); return 0; }
    for (i = 0; i < gm_n; i++) {
        int ti = gm[i].gg[0] ? srti_find(m, gm[i].gg) : 0;
        uint64_t n = gm[i].rows * (gm[i].cols ? gm[i].cols : 1);
        if (!gm[i].gg[0]) continue;
        if (ti < 0) { snprintf(why, cap, "%s (from %s) missing", gm[i].gg, gm[i].hf); return 0; }
        if (m->tensors[ti].ne[0] != (gm[i].cols ? gm[i].cols : gm[i].rows) || m->tensors[ti].ne[1] != (gm[i].cols ? gm[i].rows : 1)) {
            snprintf(why, cap, "%s has shape [%llu, %llu]", gm[i].gg, (unsigned long long)m->tensors[ti].ne[0], (unsigned long long)m->tensors[ti].ne[1]);
            return 0;
        }
        if (srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) != 0) { snprintf(why, cap, "%s: %.200s", gm[i].gg, err); return 0; }
        for (j = 0; j < n; j++) {
            const float want = !gm[i].norm ? gm[i].f[j] : !strcmp(gm[i].dtype, "F16") ? gm_f16_plus1[j % GE] : gm[i].f[j] + 1.0f;
            if (memcmp(&v[j], &want, 4) != 0) {
                snprintf(why, cap, "%s[%llu] = %.9g, expected %.9g (%s %s)", gm[i].gg, (unsigned long long)j, (double)v[j], (double)want,
                         gm[i].dtype, gm[i].norm ? "norm: w + 1" : "unchanged");
                return 0;
            }
        }
    }
    return 1;
}

static void test_gemma(void) {
    char err[1024], dir[] = TMP "/gemma", cfg[4096], why[512];
    srti_model *m;
    int ok;
    /* Gemma 2 */
    gm_tensors(3, 0);
    gm_config(cfg, sizeof cfg, 0, 3, "");
    gm_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Gemma 2 folder opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "gemma2") && m->hp.n_embd == 8 && m->hp.n_head == 2 && m->hp.n_head_kv == 1 && m->hp.head_dim == 6 &&
              m->hp.rope_dim == 6 && m->hp.n_layer == 3 && m->hp.n_ff == 16 && m->hp.n_vocab == GV && m->hp.n_ctx == 8192 &&
              m->hp.rope_neox == 1 && m->hp.tied_output == 1 && m->hp.rope_theta == 10000.0f && m->hp.norm_eps == 1e-6f &&
              m->hp.sliding_window == 4096 && !strcmp(m->hp.rope_scaling, "none"),
              "Gemma 2 hyper-parameters: gemma2, head_dim 6 (not 8 / 2), NeoX rope, tied (by default), eps 1e-6, sliding_window 4096");
        CHECK(m->hp.swa_pattern == 2 && m->hp.attn_softcap == 50.0f && m->hp.final_softcap == 30.0f && m->hp.attn_scale == (float)(1.0 / 12.0) &&
              m->hp.rope_theta_swa == 0.0f,
              "Gemma 2 metadata: sliding_window_pattern 2, soft-capping 50 / 30, attention.scale 144^-0.5, no rope.freq_base_swa");
        ok = gm_check_values(m, why, sizeof why);
        CHECK(ok, "Gemma 2: all 35 tensors mapped (post_attention_layernorm -> post_attention_norm, pre/post_feedforward_layernorm -> "
              "ffn_norm / post_ffw_norm), not permuted; exactly the norms get +1 (F32, BF16 in F32, F16 rounded to F16) (%s)", ok ? "ok" : why);
        CHECK(!strcmp(m->vocab.model, "llama") && m->vocab.pre[0] == 0 && m->vocab.add_space_prefix == 0 && m->vocab.n_tokens == GV &&
              m->vocab.bos == 2 && m->vocab.eos == 1 && m->vocab.unk == 3 && m->vocab.pad == 0 && m->vocab.add_bos == 1 && m->vocab.add_eos == 0 &&
              m->vocab.types[0] == SRTI_TOKEN_CONTROL && m->vocab.types[5] == SRTI_TOKEN_CONTROL && m->vocab.types[6] == SRTI_TOKEN_CONTROL &&
              m->vocab.types[7] == SRTI_TOKEN_BYTE && m->vocab.types[263] == SRTI_TOKEN_NORMAL && m->vocab.scores && m->vocab.scores[267] == -1.0f,
              "Gemma tokenizer: \"llama\" (SentencePiece style) with add_space_prefix 0 (Replace normalizer, no Prepend), <bos> 2 <eos> 1 <unk> 3 <pad> 0, "
              "control <end_of_turn> and <unused0>, byte tokens");
    }
    srti_close(m);
    gm_write(dir, cfg, "model.layers.1.post_feedforward_layernorm.weight", 0);
    refuse_check(dir, "tensor 'blk.1.post_ffw_norm.weight' is missing", "a Gemma 2 folder without layer 1's post_feedforward_layernorm");
    gm_add("model.layers.0.self_attn.q_norm.weight", "blk.0.attn_q_norm.weight", GHD, 0, 1, "F32");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "has no place in a gemma2 model", "a q_norm in a Gemma 2 folder (Gemma 3 only)");
    gm_tensors(3, 0);
    gm_config(cfg, sizeof cfg, 0, 3, ",\"hidden_activation\":\"relu\"");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "hidden_activation \"relu\" is not supported", "hidden_activation relu");
    gm_config(cfg, sizeof cfg, 0, 3, ",\"tie_word_embeddings\":false");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "lm_head.weight is missing", "tie_word_embeddings false without lm_head");
    gm_add("lm_head.weight", "output.weight", GV, GE, 0, "F32");
    gm_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    ok = m && m->hp.tied_output == 0 && gm_check_values(m, why, sizeof why);
    CHECK(ok, "untied Gemma 2: lm_head.weight becomes output.weight (%s)", m ? (ok ? "ok" : why) : err);
    srti_close(m);

    /* Gemma 3: q/k norms, 5 sliding layers then a global one, local rope base, linear scaling */
    gm_tensors(7, 1);
    gm_config(cfg, sizeof cfg, 1, 7, ",\"sliding_window_pattern\":6,\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"linear\"},\"layer_types\":"
              "[\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 1);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Gemma 3 folder opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "gemma3") && m->hp.head_dim == 6 && m->hp.n_layer == 7 && m->hp.rope_neox == 1 && m->hp.tied_output == 1 &&
              m->hp.rope_theta == 1000000.0f && m->hp.sliding_window == 512 && !strcmp(m->hp.rope_scaling, "linear") && m->hp.rope_scale_factor == 8.0f,
              "Gemma 3 hyper-parameters: gemma3, rope theta 1e6, sliding_window 512, linear rope scaling 8");
        CHECK(m->hp.swa_pattern == 6 && m->hp.rope_theta_swa == 10000.0f && m->hp.attn_scale == (float)(1.0 / sqrt(24.0)) &&
              m->hp.attn_softcap == 0.0f && m->hp.final_softcap == 0.0f,
              "Gemma 3 metadata: sliding_window_pattern 6 (agrees with layer_types), rope.freq_base_swa 10000, attention.scale 24^-0.5, no soft-capping (null)");
        ok = gm_check_values(m, why, sizeof why);
        CHECK(ok, "Gemma 3: all 93 tensors mapped, q_norm / k_norm [head_dim] among the norms that get +1 (%s)", ok ? "ok" : why);
        CHECK(m->vocab.n_tokens == GV && m->vocab.add_space_prefix == 0, "Gemma 3: an added token past vocab_size (<image_soft_token>) is left out, as llama.cpp does");
    }
    srti_close(m);
    {   /* packed, it loads as gemma3 with the keys the runtime reads, and runs past its window */
        srt_model *sm = NULL;
        srt_session *ss = NULL;
        srt_model_desc md;
        srt_model_info info;
        uint32_t pat = 0, win = 0, asp = 1;
        float scale = 0, base = 0, factor = 0;
        const char *type = "";
        int32_t prompt[600];
        int i;
        for (i = 0; i < 600; i++) prompt[i] = 2 + i % (GV - 2);
        memset(&md, 0, sizeof md);
        memset(&info, 0, sizeof info);
        md.n_threads = 1;
        ok = system("build/srt-pack -q " TMP "/gemma " TMP "/gemma3.srt") == 0 && srt_model_load(TMP "/gemma3.srt", &md, &sm) == SRT_OK;
        if (ok) srt_model_get_info(sm, &info);
        ok = ok && info.architecture && !strcmp(info.architecture, "gemma3") && info.head_dim == 6 &&
             srt_model_meta_u32(sm, "gemma3.attention.sliding_window", &win) && win == 512 &&
             srt_model_meta_u32(sm, "gemma3.attention.sliding_window_pattern", &pat) && pat == 6 &&
             srt_model_meta_f32(sm, "gemma3.attention.scale", &scale) && scale == (float)(1.0 / sqrt(24.0)) &&
             srt_model_meta_f32(sm, "gemma3.rope.freq_base_swa", &base) && base == 10000.0f &&
             srt_model_meta_str(sm, "gemma3.rope.scaling.type", &type) && !strcmp(type, "linear") &&
             srt_model_meta_f32(sm, "gemma3.rope.scaling.factor", &factor) && factor == 8.0f &&
             srt_model_meta_u32(sm, "tokenizer.ggml.add_space_prefix", &asp) && asp == 0 && !srt_model_meta_f32(sm, "gemma3.attn_logit_softcapping", &scale);
        CHECK(ok, "srt-pack packs the Gemma 3 folder: gemma3, window 512, pattern 6, scale 24^-0.5, sliding rope base 1e4, linear 8, no soft caps, "
              "add_space_prefix 0 (%s)", ok ? "ok" : srt_last_error());
        if (ok) {
            srt_session_desc sd;
            memset(&sd, 0, sizeof sd);
            sd.n_ctx = 700;
            sd.n_batch = 64;
            ok = srt_session_create(sm, &sd, &ss) == SRT_OK && srt_session_feed(ss, prompt, 600) == SRT_OK && srt_session_logits(ss);
            CHECK(ok, "it evaluates 600 tokens (past the 512-position window) (%s)", ok ? "ok" : srt_last_error());
        }
        srt_session_destroy(ss);
        srt_model_free(sm);
        remove(TMP "/gemma3.srt");
    }
    gm_config(cfg, sizeof cfg, 1, 7, ",\"query_pre_attn_scalar\":null,\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"full_attention\","
              "\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.swa_pattern == 3 && m->hp.attn_scale == (float)(1.0 / sqrt(6.0)) &&
          !strcmp(m->hp.rope_scaling, "none"), "Gemma 3: the pattern comes from layer_types (3), query_pre_attn_scalar defaults to head_dim (%s)", m ? "ok" : err);
    srti_close(m);
    gm_config(cfg, sizeof cfg, 1, 7, ",\"layer_types\":[\"sliding_attention\",\"full_attention\",\"sliding_attention\","
              "\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "layer_types is not a sliding-window pattern", "layer_types that repeat no pattern");
    gm_config(cfg, sizeof cfg, 1, 7, ",\"layer_types\":[\"sliding_attention\",\"full_attention\",7,\"sliding_attention\",\"sliding_attention\","
              "\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "layer_types[2] must be", "layer_types with a number after the first full-attention layer");
    gm_config(cfg, sizeof cfg, 1, 7, ",\"sliding_window_pattern\":6,\"layer_types\":[\"sliding_attention\",\"full_attention\",\"sliding_attention\","
              "\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "sliding_window_pattern says 6", "layer_types of pattern 2 beside sliding_window_pattern 6");
    gm_config(cfg, sizeof cfg, 1, 7, ",\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"yarn\"}");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "rope_scaling type \"yarn\" is not supported", "yarn rope scaling for Gemma");
    gm_config(cfg, sizeof cfg, 1, 7, "");
    gm[gm_n - 2].rows = 4;   /* layer 6's k_norm: 4 values for head_dim 6 */
    gm_write(dir, cfg, NULL, 0);
    refuse_check(dir, "tensor 'blk.6.attn_k_norm.weight' has shape [4, 1, 1, 1], expected [6, 1]", "a k_norm of the wrong size");
    gm_tensors(7, 1);

    /* random Gemma 3 */
    gm_config(cfg, sizeof cfg, 1, 7, ",\"sliding_window_pattern\":6");
    path_in(why, sizeof why, TMP, "gemma_random.json");
    write_text(why, cfg);
    ok = srti_open_random(why, 5, &m, err, sizeof err) == 0;
    CHECK(ok, "random Gemma 3 from config.json (%s)", ok ? "ok" : err);
    if (m) {
        static float v[GVM * GE];   /* the largest tensor: the embedding */
        int i;
        ok = !strcmp(m->hp.arch, "gemma3") && m->hp.head_dim == 6 && m->hp.tied_output == 1 && m->n_tensors == 2 + 7 * 13 &&
             m->hp.swa_pattern == 6 && m->hp.rope_theta_swa == 10000.0f;
        for (i = 0; ok && i < gm_n; i++) {
            int ti = srti_find(m, gm[i].gg);
            ok = ti >= 0 && m->tensors[ti].ne[0] == (gm[i].cols ? gm[i].cols : gm[i].rows) && m->tensors[ti].ne[1] == (gm[i].cols ? gm[i].rows : 1) &&
                 srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) == 0 && (v[0] == 1.0f) == (gm[i].norm != 0);
        }
        CHECK(ok, "random Gemma 3: 93 tensors named and shaped as a checkpoint's import, norms 1 (w = 0), metadata");
    }
    srti_close(m);
    if (!remove_tree(TMP "/gemma")) CHECK(0, "clean up");
}

/* Gemma 1 (GemmaForCausalLM, model_type "gemma"): the tiny Gemma's shape with 2 layers and Llama's
   two norms a layer, where post_attention_layernorm is the FFN's input norm (ffn_norm, not Gemma
   2's post_attention_norm); layer 1's norms BF16. Every tensor mapped with the norms +1, the
   attention scale head_dim^-1/2 and none of Gemma 2's keys; a Gemma 2 norm in a Gemma 1 folder is
   refused; packed, it loads as "gemma" and runs. */
static void test_gemma1(void) {
    static const struct { const char *hf, *gg; uint64_t rows, cols; int norm; } per[] = {
        {"input_layernorm.weight", "attn_norm.weight", GE, 0, 1}, {"self_attn.q_proj.weight", "attn_q.weight", 2 * GHD, GE, 0},
        {"self_attn.k_proj.weight", "attn_k.weight", GHD, GE, 0}, {"self_attn.v_proj.weight", "attn_v.weight", GHD, GE, 0},
        {"self_attn.o_proj.weight", "attn_output.weight", GE, 2 * GHD, 0}, {"post_attention_layernorm.weight", "ffn_norm.weight", GE, 0, 1},
        {"mlp.gate_proj.weight", "ffn_gate.weight", GF, GE, 0}, {"mlp.up_proj.weight", "ffn_up.weight", GF, GE, 0},
        {"mlp.down_proj.weight", "ffn_down.weight", GE, GF, 0},
    };
    static const char *cfg = "{\"architectures\":[\"GemmaForCausalLM\"],\"model_type\":\"gemma\",\"hidden_size\":8,\"intermediate_size\":16,"
        "\"num_hidden_layers\":2,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":6,\"hidden_act\":\"gelu\",\"rms_norm_eps\":1e-06,"
        "\"max_position_embeddings\":8192,\"rope_theta\":10000.0,\"rope_scaling\":null,\"vocab_size\":268,\"bos_token_id\":2,\"eos_token_id\":1,"
        "\"pad_token_id\":0,\"attention_bias\":false}";
    char err[1024], dir[] = TMP "/gemma1", hf[80], gg[80], why[512];
    srti_model *m;
    size_t k;
    int l, ok;
    gm_n = 0; gm_used = gm_used16 = 0;
    srt_test_rng = 2027;
    gm_add("model.embed_tokens.weight", "token_embd.weight", GV, GE, 0, "F32");
    for (l = 0; l < 2; l++)
        for (k = 0; k < sizeof per / sizeof per[0]; k++) {
            snprintf(hf, sizeof hf, "model.layers.%d.%s", l, per[k].hf);
            snprintf(gg, sizeof gg, "blk.%d.%s", l, per[k].gg);
            gm_add(hf, gg, per[k].rows, per[k].cols, per[k].norm, per[k].norm && l == 1 ? "BF16" : "F32");
        }
    gm_add("model.norm.weight", "output_norm.weight", GE, 0, 1, "F32");
    gm_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Gemma 1 folder opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "gemma") && m->hp.head_dim == 6 && m->hp.n_layer == 2 && m->hp.rope_neox == 1 && m->hp.tied_output == 1 &&
              m->hp.attn_scale == (float)(1.0 / sqrt(6.0)) && m->hp.attn_softcap == 0.0f && m->hp.final_softcap == 0.0f &&
              m->hp.sliding_window == 0 && m->hp.swa_pattern == 0 && m->hp.rope_theta_swa == 0.0f,
              "Gemma 1 hyper-parameters: gemma, head_dim 6, NeoX rope, tied, attention scale 6^-0.5, no soft caps or window (hidden_act gelu taken)");
        ok = gm_check_values(m, why, sizeof why);
        CHECK(ok, "Gemma 1: all 21 tensors mapped, post_attention_layernorm -> ffn_norm (Llama's place), norms +1 (%s)", ok ? "ok" : why);
    }
    srti_close(m);
    {   /* packed: loads as gemma with its scale and no window, runs */
        srt_model *sm = NULL;
        srt_model_desc md;
        srt_model_info info;
        float lg[TV], scale = 0;
        uint32_t win = 0;
        char arch[16];
        memset(&info, 0, sizeof info);
        ok = mx_pack_eval(TMP "/gemma1", "", TMP "/gemma1.srt", lg, &info, arch, why, sizeof why) && !strcmp(arch, "gemma") && info.n_swa_layers == 0;
        memset(&md, 0, sizeof md);
        ok = ok && srt_model_load(TMP "/gemma1.srt", &md, &sm) == SRT_OK && srt_model_meta_f32(sm, "gemma.attention.scale", &scale) &&
             scale == (float)(1.0 / sqrt(6.0)) && !srt_model_meta_u32(sm, "gemma.attention.sliding_window", &win);
        srt_model_free(sm);
        CHECK(ok, "srt-pack packs the Gemma 1 folder: it loads as gemma (scale 6^-0.5, no window) and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
        remove(TMP "/gemma1.srt");
    }
    gm_add("model.layers.1.pre_feedforward_layernorm.weight", "", GE, 0, 1, "F32");
    gm_write(dir, cfg, NULL, 0);
    refuse(dir, "has no place in a gemma model", "a pre_feedforward_layernorm (Gemma 2's) in a Gemma 1 folder");
    if (!remove_tree(TMP "/gemma1")) CHECK(0, "clean up");
}

/* Gemma3ForConditionalGeneration: the tiny Gemma 3 of test_gemma as a multimodal checkpoint. Its
   text_config states the shape (as the real ones state what differs from the defaults) and leaves
   the rest out, so those come from transformers' Gemma3TextConfig defaults; the text tensors are
   under language_model.model. or model.language_model., beside a few vision_tower /
   multi_modal_projector tensors (which must be left out); vocab_size 272 holds <image_soft_token>
   (268). Packed, the runtime loads and runs it. srti_open_random makes the text model of such
   a config, also of gemma-3-4b-it's and gemma-3-27b-it's text_config (defaults at full size). */
/* `text_extra` keys replace text_config's stated ones of the same name. */
static void gm_mm_config(char *buf, size_t cap, const char *top_extra, const char *text_extra) {
    static const char *const stated[] = {"\"model_type\":\"gemma3_text\"", "\"hidden_size\":8", "\"intermediate_size\":16", "\"num_hidden_layers\":7",
        "\"num_attention_heads\":2", "\"num_key_value_heads\":1", "\"head_dim\":6", "\"vocab_size\":272", NULL};
    const char *const *d;
    sbuf text = {NULL, 0, 0};
    for (d = stated; *d; d++) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(strchr(*d + 1, '"') - *d + 1), *d);
        if (!strstr(text_extra, key)) sb_add(&text, "%s%s", text.n ? "," : "", *d);
    }
    snprintf(buf, cap, "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"boi_token_index\":255999,\"eoi_token_index\":256000,"
             "\"image_token_index\":268,\"initializer_range\":0.02,\"mm_tokens_per_image\":256,\"model_type\":\"gemma3\",%s"
             "\"text_config\":{%s%s},\"torch_dtype\":\"bfloat16\","
             "\"vision_config\":{\"hidden_size\":4,\"image_size\":28,\"intermediate_size\":8,\"model_type\":\"siglip_vision_model\","
             "\"num_attention_heads\":1,\"num_hidden_layers\":1,\"patch_size\":14,\"vision_use_head\":false}}",
             top_extra, text.p, text_extra);
    free(text.p);
}
/* gm[] as a multimodal checkpoint: "model.X" -> text_prefix + X, and vision tensors (no GGUF name)
   under vision_prefix ("" or "model."). */
static void gm_mm_tensors(const char *text_prefix, const char *vision_prefix) {
    static const struct { const char *name, *dtype; uint64_t rows, cols; } vis[] = {
        {"vision_tower.vision_model.embeddings.patch_embedding.weight", "F32", 4, 12},
        {"vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight", "BF16", 4, 4},   /* a text layer's name after the prefix */
        {"vision_tower.vision_model.post_layernorm.weight", "F32", 4, 0},
        {"multi_modal_projector.mm_input_projection_weight", "BF16", 4, GE},
        {"multi_modal_projector.mm_soft_emb_norm.weight", "F32", 4, 0},
    };
    char name[128];
    int i;
    gm_vocab = GVM;
    gm_tensors(7, 1);
    gm_vocab = GV;
    for (i = 0; i < gm_n; i++) {
        snprintf(name, sizeof name, "%s%s", text_prefix, gm[i].hf + 6);   /* past "model." */
        snprintf(gm[i].hf, sizeof gm[i].hf, "%s", name);
    }
    for (i = 0; i < (int)(sizeof vis / sizeof vis[0]); i++) {
        snprintf(name, sizeof name, "%s%s", vision_prefix, vis[i].name);
        gm_add(name, "", vis[i].rows, vis[i].cols, 0, vis[i].dtype);
    }
}
/* srt-pack packs the folder, the runtime loads it (checked by the caller), and evaluates n tokens. */
static srt_model *gm_pack_load(const char *dir, const char *out) {
    char cmd[600];
    srt_model_desc md;
    srt_model *sm = NULL;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    snprintf(cmd, sizeof cmd, "build/srt-pack -q %s %s", dir, out);
    if (system(cmd) != 0 || srt_model_load(out, &md, &sm) != SRT_OK) return NULL;
    return sm;
}
static int gm_feed(srt_model *sm, int n) {
    srt_session *ss = NULL;
    srt_session_desc sd;
    int32_t prompt[256];
    int i, ok;
    for (i = 0; i < n && i < 256; i++) prompt[i] = i % 9 == 4 ? 268 : 2 + i % (GVM - 2);   /* <image_soft_token> among them */
    memset(&sd, 0, sizeof sd);
    sd.n_ctx = 256;
    sd.n_batch = 16;
    ok = srt_session_create(sm, &sd, &ss) == SRT_OK && srt_session_feed(ss, prompt, n) == SRT_OK && srt_session_logits(ss);
    srt_session_destroy(ss);
    return ok;
}

static void test_gemma_mm(void) {
    char err[1024], dir[] = TMP "/gemma_mm", cfg[4096], why[512], p[512];
    srti_model *m;
    srt_model *sm;
    int ok;
    /* transformers < 4.52 names; text_config leaves out everything but the shape and rope_scaling */
    gm_mm_tensors("language_model.model.", "");
    gm_mm_config(cfg, sizeof cfg, "\"eos_token_id\":[1,106],", ",\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"linear\"}");
    gm_write(dir, cfg, NULL, 1);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Gemma3ForConditionalGeneration folder (language_model.model.*) opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "gemma3") && m->hp.n_embd == GE && m->hp.n_ff == GF && m->hp.n_layer == 7 && m->hp.n_head == 2 &&
              m->hp.n_head_kv == 1 && m->hp.head_dim == GHD && m->hp.rope_dim == GHD && m->hp.n_vocab == GVM && m->hp.rope_neox == 1 &&
              m->hp.tied_output == 1 && !strcmp(m->hp.rope_scaling, "linear") && m->hp.rope_scale_factor == 8.0f,
              "multimodal Gemma 3: gemma3 of text_config's shape (vocab_size 272, head_dim 6), tied, linear rope scaling 8");
        CHECK(m->hp.rope_theta == 1000000.0f && m->hp.rope_theta_swa == 10000.0f && m->hp.attn_scale == 0.0625f && m->hp.norm_eps == 1e-6f &&
              m->hp.swa_pattern == 6 && m->hp.sliding_window == 4096 && m->hp.n_ctx == 131072 && m->hp.attn_softcap == 0.0f && m->hp.final_softcap == 0.0f,
              "text_config's absent fields take Gemma3TextConfig's defaults: rope_theta 1e6, rope_local_base_freq 1e4, query_pre_attn_scalar 256 "
              "(scale 1/16, not head_dim's), rms_norm_eps 1e-6, sliding_window_pattern 6, sliding_window 4096, max_position_embeddings 131072, "
              "no soft caps (%g %g %g %g %u %u %u)", (double)m->hp.rope_theta, (double)m->hp.rope_theta_swa, (double)m->hp.attn_scale,
              (double)m->hp.norm_eps, (unsigned)m->hp.swa_pattern, (unsigned)m->hp.sliding_window, (unsigned)m->hp.n_ctx);
        ok = gm_check_values(m, why, sizeof why);
        CHECK(ok, "multimodal Gemma 3: the 93 text tensors under language_model.model. mapped as Gemma3ForCausalLM's (norms + 1), "
              "the 5 vision_tower / multi_modal_projector ones left out (%s)", ok ? "ok" : why);
        CHECK(m->vocab.n_tokens == GVM && !strcmp(m->vocab.tokens[268], "<image_soft_token>") && m->vocab.types[268] == SRTI_TOKEN_CONTROL &&
              !strcmp(m->vocab.tokens[269], "[PAD269]") && m->vocab.types[269] == SRTI_TOKEN_UNUSED && m->vocab.types[GVM - 1] == SRTI_TOKEN_UNUSED &&
              m->vocab.bos == 2 && m->vocab.eos == 1 && m->vocab.add_space_prefix == 0,
              "multimodal Gemma 3 vocabulary: text_config's vocab_size 272 holds <image_soft_token> (268, kept, control), 269..271 unused padding");
    }
    srti_close(m);
    sm = gm_pack_load(dir, TMP "/gemma_mm.srt");
    CHECK(sm != NULL, "srt-pack packs the multimodal Gemma 3 folder and the runtime loads it (%s)", sm ? "ok" : srt_last_error());
    if (sm) {
        srt_model_info info;
        uint32_t pat = 0, win = 0;
        float scale = 0, base = 0, factor = 0;
        const char *piece;
        int32_t ids[4];
        int n = 0;
        memset(&info, 0, sizeof info);
        srt_model_get_info(sm, &info);
        piece = srt_token_piece(sm, 268);
        ok = info.architecture && !strcmp(info.architecture, "gemma3") && info.n_vocab == GVM && info.n_layer == 7 && info.head_dim == GHD &&
             info.n_ctx_train == 131072 && srt_model_meta_u32(sm, "gemma3.attention.sliding_window", &win) && win == 4096 &&
             srt_model_meta_u32(sm, "gemma3.attention.sliding_window_pattern", &pat) && pat == 6 &&
             srt_model_meta_f32(sm, "gemma3.attention.scale", &scale) && scale == 0.0625f &&
             srt_model_meta_f32(sm, "gemma3.rope.freq_base_swa", &base) && base == 10000.0f &&
             srt_model_meta_f32(sm, "gemma3.rope.scaling.factor", &factor) && factor == 8.0f;
        CHECK(ok, "packed: gemma3, 272 tokens, 7 layers, context 131072, window 4096, pattern 6, scale 1/16, sliding rope base 1e4, linear 8");
        ok = piece && !strcmp(piece, "<image_soft_token>") &&
             srt_tokenize(sm, "<image_soft_token>", 18, SRT_TOKENIZE_PARSE_SPECIAL | SRT_TOKENIZE_NO_BOS, ids, 4, &n) == SRT_OK && n == 1 && ids[0] == 268;
        CHECK(ok, "packed: <image_soft_token> is token 268, a control token the tokenizer parses as one (%d tokens)", n);
        ok = gm_feed(sm, 24);
        CHECK(ok, "the packed multimodal Gemma 3 evaluates 24 tokens (%s)", ok ? "ok" : srt_last_error());
        srt_model_free(sm);
    }
    remove(TMP "/gemma_mm.srt");

    /* transformers >= 4.52 names (model.language_model., model.vision_tower., a top-level lm_head
       that tying drops); stated values win over the defaults; token ids from config.json when
       tokenizer_config.json names none: the top level's eos [5, 1] over text_config's 1 */
    gm_mm_tensors("model.language_model.", "model.");
    gm_add("lm_head.weight", "", GVM, GE, 0, "F32");
    gm_mm_config(cfg, sizeof cfg, "\"eos_token_id\":[5,1],", ",\"bos_token_id\":2,\"eos_token_id\":1,\"sliding_window\":16,\"query_pre_attn_scalar\":24,"
                 "\"rope_theta\":500000.0,\"rope_local_base_freq\":20000.0,\"rms_norm_eps\":1e-05,\"max_position_embeddings\":4096,"
                 "\"hidden_activation\":\"gelu_pytorch_tanh\",\"layer_types\":[\"sliding_attention\",\"sliding_attention\",\"full_attention\","
                 "\"sliding_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]");
    gm_write(dir, cfg, NULL, 1);
    path_in(p, sizeof p, dir, "tokenizer_config.json");
    write_text(p, "{\"add_bos_token\":true,\"add_eos_token\":false}");
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Gemma3ForConditionalGeneration folder (model.language_model.*) opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(m->hp.sliding_window == 16 && m->hp.swa_pattern == 3 && m->hp.attn_scale == (float)(1.0 / sqrt(24.0)) && m->hp.rope_theta == 500000.0f &&
              m->hp.rope_theta_swa == 20000.0f && m->hp.norm_eps == 1e-5f && m->hp.n_ctx == 4096 && !strcmp(m->hp.rope_scaling, "none"),
              "text_config's stated values win: window 16, pattern 3 from layer_types, scale 24^-0.5, rope 5e5 / 2e4, eps 1e-5, context 4096");
        snprintf(why, sizeof why, "tied_output %d", (int)m->hp.tied_output);
        ok = m->hp.tied_output == 1 && gm_check_values(m, why, sizeof why);
        CHECK(ok, "model.language_model.* mapped, model.vision_tower.* / model.multi_modal_projector.* left out, the tied lm_head.weight dropped (%s)",
              ok ? "ok" : why);
        CHECK(m->vocab.bos == 2 && m->vocab.eos == 5, "token ids from config.json: bos 2 from text_config, eos 5 from the top level's [5, 1] (%d %d)",
              (int)m->vocab.bos, (int)m->vocab.eos);
    }
    srti_close(m);
    sm = gm_pack_load(dir, TMP "/gemma_mm.srt");
    ok = sm && gm_feed(sm, 40);
    CHECK(ok, "packed and loaded, it evaluates 40 tokens past its 16-position window (%s)", ok ? "ok" : srt_last_error());
    srt_model_free(sm);
    remove(TMP "/gemma_mm.srt");

    /* untied by the top level: language_model.lm_head.weight is the output */
    gm_mm_tensors("language_model.model.", "");
    gm_mm_config(cfg, sizeof cfg, "\"tie_word_embeddings\":false,", "");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "lm_head.weight is missing", "an untied multimodal Gemma 3 without its lm_head");
    gm_add("language_model.lm_head.weight", "output.weight", GVM, GE, 0, "F32");
    gm_write(dir, cfg, NULL, 1);
    m = open_dir(dir, err, sizeof err);
    snprintf(why, sizeof why, "tied_output %d", m ? (int)m->hp.tied_output : -1);
    ok = m && m->hp.tied_output == 0 && gm_check_values(m, why, sizeof why);
    CHECK(ok, "untied multimodal Gemma 3 (tie_word_embeddings false at the top level): language_model.lm_head.weight becomes output.weight (%s)",
          m ? (ok ? "ok" : why) : err);
    srti_close(m);

    /* refused */
    gm_mm_tensors("language_model.model.", "");
    gm_write(dir, "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"model_type\":\"gemma3\",\"vision_config\":{\"hidden_size\":4}}", NULL, 1);
    refuse(dir, "Gemma3ForConditionalGeneration without a \"text_config\" object", "a multimodal Gemma 3 config without text_config");
    gm_write(dir, "{\"model_type\":\"gemma3\",\"text_config\":null}", NULL, 1);
    refuse(dir, "gemma3 without a \"text_config\" object", "model_type gemma3 with a null text_config");
    gm_mm_config(cfg, sizeof cfg, "", ",\"model_type\":\"llama\"");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "text_config.model_type \"llama\" is not gemma3_text", "a text_config of another model type");
    gm_mm_config(cfg, sizeof cfg, "", ",\"num_key_value_heads\":null");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "text_config: num_attention_heads 2 is not a multiple of num_key_value_heads 4",
           "text_config without num_key_value_heads (default 4) for 2 heads");
    gm_mm_config(cfg, sizeof cfg, "", ",\"hidden_size\":-8");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "config.json: text_config: \"hidden_size\" = -8 is out of range", "a text_config field out of range, named as text_config's");
    gm_mm_config(cfg, sizeof cfg, "", "");
    gm_add("model.audio_tower.conv.weight", "", 4, 4, 0, "F32");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "tensor 'model.audio_tower.conv.weight' has no place in a gemma3 model", "an unknown tensor beside the vision tower");
    gm_mm_tensors("language_model.model.", "");
    gm_add("model.layers.0.input_layernorm.weight", "", GE, 0, 1, "F32");
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "tensor 'model.layers.0.input_layernorm.weight' has no place", "a text-only tensor name in a multimodal checkpoint");
    gm_mm_tensors("language_model.model.", "");
    gm_write(dir, cfg, "language_model.model.layers.3.mlp.up_proj.weight", 1);
    refuse_check(dir, "tensor 'blk.3.ffn_up.weight' is missing", "a multimodal folder without a text tensor");
    gm_mm_tensors("language_model.model.", "");
    gm[0].hf[0] = 'L';   /* Language_model.model.embed_tokens.weight */
    gm_write(dir, cfg, NULL, 1);
    refuse(dir, "tensor 'Language_model.model.embed_tokens.weight' has no place", "a misspelt prefix");

    /* Gemma3ForCausalLM takes the same defaults: its config without query_pre_attn_scalar,
       sliding_window, max_position_embeddings and num_key_value_heads (2 heads of 4: the default 4 KV heads) */
    gm_tensors(7, 1);
    gm_config(cfg, sizeof cfg, 1, 7, ",\"num_attention_heads\":4");
    {
        static const char *const cut[] = {",\"query_pre_attn_scalar\":24", ",\"sliding_window\":512", ",\"max_position_embeddings\":8192",
                                          ",\"num_key_value_heads\":1", ",\"num_attention_heads\":2", NULL};
        const char *const *c;
        for (c = cut; *c; c++) {
            char *at = strstr(cfg, *c);
            if (at) memmove(at, at + strlen(*c), strlen(at + strlen(*c)) + 1);
            else CHECK(0, "gm_config writes %s", *c);
        }
    }
    {   /* q [24, E], k / v [24, E], o [E, 24] for 4 heads and 4 KV heads of 6 (their values run on into
           the next tensors' in gm_pool: only the shapes count here) */
        int i;
        for (i = 0; i < gm_n; i++)
            if (strstr(gm[i].gg, "attn_q.weight") || strstr(gm[i].gg, "attn_k.weight") || strstr(gm[i].gg, "attn_v.weight")) gm[i].rows = 4 * GHD;
            else if (strstr(gm[i].gg, "attn_output.weight")) gm[i].cols = 4 * GHD;
    }
    gm_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.attn_scale == 0.0625f && m->hp.sliding_window == 4096 && m->hp.n_ctx == 131072 && m->hp.n_head == 4 && m->hp.n_head_kv == 4,
          "Gemma3ForCausalLM shares the defaults: query_pre_attn_scalar 256 (scale 1/16), sliding_window 4096, max_position_embeddings 131072, "
          "4 KV heads (%s)", m ? "opened" : err);
    srti_close(m);

    /* random: the text model of a multimodal config */
    gm_mm_tensors("language_model.model.", "");
    gm_mm_config(cfg, sizeof cfg, "", "");
    path_in(p, sizeof p, TMP, "gemma_mm_random.json");
    write_text(p, cfg);
    m = NULL;
    ok = srti_open_random(p, 7, &m, err, sizeof err) == 0;
    CHECK(ok, "random Gemma 3 from a Gemma3ForConditionalGeneration config.json (%s)", ok ? "ok" : err);
    if (m) {
        int i;
        ok = !strcmp(m->hp.arch, "gemma3") && m->hp.head_dim == GHD && m->hp.n_vocab == GVM && m->hp.tied_output == 1 &&
             m->n_tensors == 2 + 7 * 13 && m->hp.swa_pattern == 6 && m->hp.attn_scale == 0.0625f;
        for (i = 0; ok && i < gm_n; i++) {
            int ti = gm[i].gg[0] ? srti_find(m, gm[i].gg) : 0;
            ok = !gm[i].gg[0] || (ti >= 0 && m->tensors[ti].ne[0] == (gm[i].cols ? gm[i].cols : gm[i].rows) &&
                                  m->tensors[ti].ne[1] == (gm[i].cols ? gm[i].rows : 1));
        }
        CHECK(ok, "random multimodal Gemma 3: the 93 text tensors of text_config's shape, no vision tensor, defaults (scale 1/16)");
    }
    srti_close(m);
    {   /* the published shapes: text_config as gemma-3-4b-it and gemma-3-27b-it state it, the rest defaults */
        static const struct { const char *text; uint32_t embd, ff, layers, heads, kv, hd; double qpas; const char *what; } big[] = {
            {"{\"hidden_size\":2560,\"intermediate_size\":10240,\"model_type\":\"gemma3_text\",\"num_hidden_layers\":34,"
             "\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"linear\"},\"sliding_window\":1024}",
             2560, 10240, 34, 8, 4, 256, 256.0, "gemma-3-4b-it: 8 heads, 4 KV heads, head_dim 256, vocab 262208, scale 1/16 from the defaults"},
            {"{\"head_dim\":128,\"hidden_size\":5376,\"intermediate_size\":21504,\"model_type\":\"gemma3_text\",\"num_attention_heads\":32,"
             "\"num_hidden_layers\":62,\"num_key_value_heads\":16,\"query_pre_attn_scalar\":168,\"rope_scaling\":{\"factor\":8.0,\"rope_type\":\"linear\"},"
             "\"sliding_window\":1024}",
             5376, 21504, 62, 32, 16, 128, 168.0, "gemma-3-27b-it: its heads, query_pre_attn_scalar 168, vocab 262208 from the default"},
        };
        int b;
        for (b = 0; b < 2; b++) {
            snprintf(cfg, sizeof cfg, "{\"architectures\":[\"Gemma3ForConditionalGeneration\"],\"boi_token_index\":255999,\"eoi_token_index\":256000,"
                     "\"eos_token_id\":[1,106],\"image_token_index\":262144,\"initializer_range\":0.02,\"mm_tokens_per_image\":256,\"model_type\":\"gemma3\","
                     "\"text_config\":%s,\"torch_dtype\":\"bfloat16\",\"transformers_version\":\"4.50.0.dev0\",\"vision_config\":{\"hidden_size\":1152,"
                     "\"image_size\":896,\"intermediate_size\":4304,\"model_type\":\"siglip_vision_model\",\"num_attention_heads\":16,"
                     "\"num_hidden_layers\":27,\"patch_size\":14,\"vision_use_head\":false}}", big[b].text);
            write_text(p, cfg);
            m = NULL;
            ok = srti_open_random(p, 1, &m, err, sizeof err) == 0;
            if (ok) {
                int te = srti_find(m, "token_embd.weight"), tq = srti_find(m, "blk.0.attn_q.weight"), tk = srti_find(m, "blk.0.attn_k.weight");
                ok = m->hp.n_embd == big[b].embd && m->hp.n_ff == big[b].ff && m->hp.n_layer == big[b].layers && m->hp.n_head == big[b].heads &&
                     m->hp.n_head_kv == big[b].kv && m->hp.head_dim == big[b].hd && m->hp.n_vocab == 262208 && m->vocab.n_tokens == 262208 &&
                     m->hp.attn_scale == (float)(1.0 / sqrt(big[b].qpas)) && m->hp.sliding_window == 1024 && m->hp.swa_pattern == 6 && m->hp.n_ctx == 131072 &&
                     m->hp.rope_theta == 1000000.0f && m->hp.rope_theta_swa == 10000.0f && m->hp.rope_scale_factor == 8.0f && m->hp.tied_output == 1 &&
                     m->n_tensors == 2 + big[b].layers * 13 && te >= 0 && m->tensors[te].ne[0] == big[b].embd && m->tensors[te].ne[1] == 262208 &&
                     tq >= 0 && m->tensors[tq].ne[1] == (uint64_t)big[b].heads * big[b].hd && tk >= 0 && m->tensors[tk].ne[1] == (uint64_t)big[b].kv * big[b].hd;
                if (!ok) snprintf(err, sizeof err, "%u x %u heads / %u kv, vocab %u, scale %g, %u tensors", (unsigned)m->hp.n_head, (unsigned)m->hp.head_dim,
                                  (unsigned)m->hp.n_head_kv, (unsigned)m->hp.n_vocab, (double)m->hp.attn_scale, (unsigned)m->n_tensors);
            }
            CHECK(ok, "random %s (%s)", big[b].what, ok ? "ok" : err);
            srti_close(m);
        }
    }
    remove(p);
    if (!remove_tree(TMP "/gemma_mm")) CHECK(0, "clean up");
}

/* ---------------------------------------------------------------- mixtures of experts */
/* Tiny Qwen3MoeForCausalLM and MixtralForCausalLM folders: hidden 8, 2 heads of 4, 1 kv head,
   2 layers of 4 experts of width 6 (2 used), a separate lm_head, the tiny byte-level tokenizer;
   the experts' down_proj BF16, the rest F32. Every tensor is in the import under its GGUF name
   with its values (Mixtral's q/k rows permuted as Llama's, Qwen3-MoE's in NeoX order), the expert
   settings in srti_hparams; broken folders and configs are refused naming what is wrong;
   srt-pack packs both (f16, q4: the router stays f32) and srt-pack --random makes a qwen3moe.
   Packed, they load and evaluate to finite logits; with 4 identical experts and renormalized
   weights each equals the dense model of that one FFN (Qwen3ForCausalLM, LlamaForCausalLM),
   which shows the router, the experts' roles and the weighting arrive where the runtime reads
   them; without renormalization (norm_topk_prob false) it does not. */
#define MXE 8    /* hidden */
#define MXF 6    /* an expert's width */
#define MXN 4    /* experts */
#define MXL 2    /* layers */
typedef struct mx_tensor {
    char hf[96], gg[64];
    const char *dtype;
    uint64_t rows, cols;      /* cols 0: 1-D */
    uint32_t permute;         /* heads the GGUF rows are permuted over (Mixtral's q, k) */
    int layer, expert, part;  /* expert X's part 0 gate, 1 up, 2 down; expert -2: the router; -1: neither */
    float *f;                 /* the values (BF16 ones as floats) */
    uint16_t *h;              /* BF16 bits */
} mx_tensor;
static mx_tensor mx[128];
static int mx_n;
static float mx_pool[8192];
static uint16_t mx_pool16[2048];
static size_t mx_used, mx_used16;
static void mx_add(const char *hf, const char *gg, uint64_t rows, uint64_t cols, int norm, uint32_t permute, int layer, int expert, int part, const mx_tensor *same) {
    mx_tensor *t = &mx[mx_n++];
    uint64_t n = rows * (cols ? cols : 1), i;
    snprintf(t->hf, sizeof t->hf, "%s", hf);
    snprintf(t->gg, sizeof t->gg, "%s", gg);
    t->dtype = part == 2 ? "BF16" : "F32";
    t->rows = rows; t->cols = cols; t->permute = permute;
    t->layer = layer; t->expert = expert; t->part = part;
    t->f = mx_pool + mx_used; mx_used += n;
    t->h = NULL;
    if (part == 2) { t->h = mx_pool16 + mx_used16; mx_used16 += n; }
    for (i = 0; i < n; i++) {
        float x = same ? same->f[i] : norm ? 1.0f + 0.25f * srt_test_frand() : 0.4f * srt_test_frand();
        if (t->h) {   /* cut to BF16 */
            uint32_t u;
            memcpy(&u, &x, 4);
            t->h[i] = (uint16_t)(u >> 16);
            u = (uint32_t)t->h[i] << 16;
            memcpy(&x, &u, 4);
        }
        t->f[i] = x;
    }
}
/* mx[] for a Mixtral (1) or Qwen3-MoE (0) checkpoint; same_experts: experts 1..3 copies of expert 0 */
static void mx_tensors(int mixtral, int same_experts) {
    static const char *const qwen_part[3] = {"gate_proj", "up_proj", "down_proj"}, *const mix_part[3] = {"w1", "w3", "w2"}, *const gg_part[3] = {"gate", "up", "down"};
    char hf[96], gg[64];
    int l, x, k, first = 0;
    mx_n = 0; mx_used = mx_used16 = 0;
    srt_test_rng = 4242;
    mx_add("model.embed_tokens.weight", "token_embd.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
    for (l = 0; l < MXL; l++) {
#define MXT(h, g, r, c, norm, perm, ex) snprintf(hf, sizeof hf, "model.layers.%d.%s", l, h); snprintf(gg, sizeof gg, "blk.%d.%s", l, g); \
                                   mx_add(hf, gg, r, c, norm, perm, l, ex, -1, NULL);
        MXT("input_layernorm.weight", "attn_norm.weight", MXE, 0, 1, 0, -1)
        MXT("self_attn.q_proj.weight", "attn_q.weight", MXE, MXE, 0, mixtral ? 2u : 0u, -1)
        MXT("self_attn.k_proj.weight", "attn_k.weight", 4, MXE, 0, mixtral ? 1u : 0u, -1)
        MXT("self_attn.v_proj.weight", "attn_v.weight", 4, MXE, 0, 0, -1)
        MXT("self_attn.o_proj.weight", "attn_output.weight", MXE, MXE, 0, 0, -1)
        if (!mixtral) {
            MXT("self_attn.q_norm.weight", "attn_q_norm.weight", 4, 0, 1, 0, -1)
            MXT("self_attn.k_norm.weight", "attn_k_norm.weight", 4, 0, 1, 0, -1)
        }
        MXT("post_attention_layernorm.weight", "ffn_norm.weight", MXE, 0, 1, 0, -1)
        MXT(mixtral ? "block_sparse_moe.gate.weight" : "mlp.gate.weight", "ffn_gate_inp.weight", MXN, MXE, 0, 0, -2)
#undef MXT
        for (x = 0; x < MXN; x++)
            for (k = 0; k < 3; k++) {
                if (x == 0 && k == 0) first = mx_n;
                snprintf(hf, sizeof hf, mixtral ? "model.layers.%d.block_sparse_moe.experts.%d.%s.weight" : "model.layers.%d.mlp.experts.%d.%s.weight",
                         l, x, mixtral ? mix_part[k] : qwen_part[k]);
                snprintf(gg, sizeof gg, "blk.%d.ffn_%s.%d.weight", l, gg_part[k], x);
                mx_add(hf, gg, k == 2 ? MXE : MXF, k == 2 ? MXF : MXE, 0, 0, l, x, k, same_experts && x ? &mx[first + k] : NULL);
            }
    }
    mx_add("model.norm.weight", "output_norm.weight", MXE, 0, 1, 0, -1, -1, -1, NULL);
    mx_add("lm_head.weight", "output.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
}
/* Writes the folder from mx[] less the tensor named `drop` (NULL: none); dense: the dense twin
   (no router, expert 0 as mlp.gate_proj / up_proj / down_proj). */
static void mx_write(const char *dir, const char *config, const char *drop, int dense) {
    static const char *const dense_part[3] = {"gate_proj", "up_proj", "down_proj"};
    static char names[128][96];
    st_tensor t[128];
    int i, n = 0;
    if (!fresh_dir(dir)) return;
    for (i = 0; i < mx_n; i++) {
        if (drop && !strcmp(mx[i].hf, drop)) continue;
        if (dense && (mx[i].expert == -2 || mx[i].expert > 0)) continue;
        snprintf(names[n], sizeof names[n], "%.95s", mx[i].hf);
        if (dense && mx[i].expert == 0) snprintf(names[n], sizeof names[n], "model.layers.%d.mlp.%s.weight", mx[i].layer, dense_part[mx[i].part]);
        t[n].name = names[n]; t[n].dtype = mx[i].dtype; t[n].nd = mx[i].cols ? 2 : 1;
        t[n].shape[0] = mx[i].rows; t[n].shape[1] = mx[i].cols;
        t[n].data = mx[i].h ? (const void *)mx[i].h : (const void *)mx[i].f;
        n++;
    }
    write_folder(dir, config, t, n);
}
/* config.json of the tiny folders; `extra` keys replace the stated ones of the same name. dense:
   the twin's class (LlamaForCausalLM / Qwen3ForCausalLM), without the expert keys. */
static void mx_config(char *buf, size_t cap, int mixtral, int dense, const char *extra) {
    static const char *const qwen[] = {"\"num_experts\":4", "\"num_experts_per_tok\":2", "\"moe_intermediate_size\":6", "\"norm_topk_prob\":true",
                                       "\"decoder_sparse_step\":1", "\"mlp_only_layers\":[]", "\"use_sliding_window\":false", "\"sliding_window\":null", NULL};
    static const char *const mix[] = {"\"num_local_experts\":4", "\"num_experts_per_tok\":2", "\"sliding_window\":null", "\"router_jitter_noise\":0.0",
                                      "\"rope_theta\":10000.0", NULL};
    const char *const *d;
    char width[48];
    sbuf stated = {NULL, 0, 0};
    snprintf(width, sizeof width, "\"intermediate_size\":%d", mixtral || dense ? MXF : 16);   /* Qwen3-MoE's: the (absent) dense layers' */
    sb_add(&stated, "%s", "");
    for (d = mixtral ? mix : qwen; *d; d++) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(strchr(*d + 1, '"') - *d + 2), *d);   /* "name": */
        if (!strstr(extra, key) && (!dense || !strcmp(key, "\"rope_theta\":"))) sb_add(&stated, ",%s", *d);
    }
    snprintf(buf, cap, "{\"architectures\":[\"%s\"],\"hidden_size\":8%s%s,\"num_hidden_layers\":2,\"num_attention_heads\":2,"
             "\"num_key_value_heads\":1,\"head_dim\":4,\"rms_norm_eps\":1e-06,\"max_position_embeddings\":64,\"vocab_size\":16,"
             "\"tie_word_embeddings\":false,\"hidden_act\":\"silu\"%s%s}",
             dense ? (mixtral ? "LlamaForCausalLM" : "Qwen3ForCausalLM") : mixtral ? "MixtralForCausalLM" : "Qwen3MoeForCausalLM",
             strstr(extra, "\"intermediate_size\":") ? "" : ",", strstr(extra, "\"intermediate_size\":") ? "" : width, stated.p, extra);
    free(stated.p);
}
/* The MoE folder of mx[] with config `extra` (as mx_config's) is refused when opened, with `want`. */
static void mx_refuse_config(const char *dir, int mixtral, const char *extra, const char *want, const char *what) {
    char cfg[2048];
    mx_config(cfg, sizeof cfg, mixtral, 0, extra);
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, want, what);
}
/* Every tensor of mx[] is in m under its GGUF name, shape and values (rows permuted where marked),
   and m has no others. */
static int mx_check_values(srti_model *m, char *why, size_t cap) {
    float v[TV * MXE];
    char err[256];
    int i;
    uint64_t r, c;
    if (m->n_tensors != (uint32_t)mx_n) { snprintf(why, cap, "%u tensors, %d expected", (unsigned)m->n_tensors, mx_n); return 0; }
    for (i = 0; i < mx_n; i++) {
        const int ti = srti_find(m, mx[i].gg);
        const uint64_t cols = mx[i].cols ? mx[i].cols : mx[i].rows, rows = mx[i].cols ? mx[i].rows : 1;
        if (ti < 0) { snprintf(why, cap, "%s (from %s) missing", mx[i].gg, mx[i].hf); return 0; }
        if (m->tensors[ti].ne[0] != cols || m->tensors[ti].ne[1] != rows || m->tensors[ti].permute_heads != mx[i].permute) {
            snprintf(why, cap, "%s has shape [%llu, %llu], permuted over %u heads", mx[i].gg, (unsigned long long)m->tensors[ti].ne[0],
                     (unsigned long long)m->tensors[ti].ne[1], (unsigned)m->tensors[ti].permute_heads);
            return 0;
        }
        if (srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) != 0) { snprintf(why, cap, "%s: %.200s", mx[i].gg, err); return 0; }
        for (r = 0; r < rows; r++) {
            uint64_t src = r;
            if (mx[i].permute) {   /* GGUF row 2j+s of a head of d rows = HF row s*d/2 + j */
                const uint64_t d = rows / mx[i].permute, h = r / d, j = (r % d) / 2, s = r % 2;
                src = h * d + s * (d / 2) + j;
            }
            for (c = 0; c < cols; c++)
                if (memcmp(&v[r * cols + c], &mx[i].f[src * cols + c], 4) != 0) {
                    snprintf(why, cap, "%s[%llu][%llu] = %.9g, expected %.9g (HF row %llu)", mx[i].gg, (unsigned long long)r, (unsigned long long)c,
                             (double)v[r * cols + c], (double)mx[i].f[src * cols + c], (unsigned long long)src);
                    return 0;
                }
        }
    }
    return 1;
}
/* The stored format of tensor `name` in an .srt file; -1 if absent. */
static int srt_file_format(const char *path, const char *name) {
    uint32_t format;
    uint64_t rows, cols;
    return srt_dir_entry(path, name, &format, &rows, &cols, NULL) ? (int)format : -1;
}
/* Packs dir with srt-pack (`opts`), loads it and evaluates 5 tokens; the last logits into `logits`
   (TV), the model's info into *info (its architecture copied to arch[16]: the model is freed); 1 if
   all went well and they are finite. */
static int mx_pack_eval(const char *dir, const char *opts, const char *out, float *logits, srt_model_info *info, char *arch, char *why, size_t cap) {
    char cmd[1024];
    srt_model_desc md;
    srt_model *sm = NULL;
    srt_session *ss = NULL;
    const float *lg = NULL;
    int32_t prompt[5] = {1, 5, 9, 3, 12};
    int ok, i;
    memset(&md, 0, sizeof md);
    md.n_threads = 1;
    snprintf(cmd, sizeof cmd, "build/srt-pack -q %s %s %s", opts, dir, out);
    if (system(cmd) != 0) { snprintf(why, cap, "%.300s failed", cmd); return 0; }
    ok = srt_model_load(out, &md, &sm) == SRT_OK;
    if (ok) srt_model_get_info(sm, info);
    ok = ok && srt_session_create(sm, NULL, &ss) == SRT_OK && srt_session_feed(ss, prompt, 5) == SRT_OK && (lg = srt_session_logits(ss)) != NULL;
    if (!ok) snprintf(why, cap, "%s", srt_last_error());
    for (i = 0; ok && i < TV; i++) {
        logits[i] = lg[i];
        if (!isfinite(lg[i])) { ok = 0; snprintf(why, cap, "logit %d is %g", i, (double)lg[i]); }
    }
    snprintf(arch, 16, "%s", ok && info->architecture ? info->architecture : "");
    info->architecture = info->name = info->backend = NULL;   /* the model's strings */
    srt_session_destroy(ss);
    srt_model_free(sm);
    return ok;
}

/* SmolLM3ForCausalLM: a tiny Llama-shaped folder of 4 layers (hidden 8, 2 heads of 4, 1 kv head,
   FFN 6): q/k rows permuted as Llama's, the NoPE step from no_rope_layer_interval with
   no_rope_layers as its pattern; other patterns and sliding windows refused; packed, it loads as
   smollm3 with the step and runs. */
static void sm_tensors(void) {
    char hf[96], gg[64];
    int l;
    mx_n = 0; mx_used = mx_used16 = 0;
    srt_test_rng = 4444;
    mx_add("model.embed_tokens.weight", "token_embd.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
    for (l = 0; l < 4; l++) {
#define SMT(h, g, r, c, norm, perm) snprintf(hf, sizeof hf, "model.layers.%d.%s", l, h); snprintf(gg, sizeof gg, "blk.%d.%s", l, g); \
                                    mx_add(hf, gg, r, c, norm, perm, l, -1, -1, NULL);
        SMT("input_layernorm.weight", "attn_norm.weight", MXE, 0, 1, 0)
        SMT("self_attn.q_proj.weight", "attn_q.weight", MXE, MXE, 0, 2u)
        SMT("self_attn.k_proj.weight", "attn_k.weight", 4, MXE, 0, 1u)
        SMT("self_attn.v_proj.weight", "attn_v.weight", 4, MXE, 0, 0)
        SMT("self_attn.o_proj.weight", "attn_output.weight", MXE, MXE, 0, 0)
        SMT("post_attention_layernorm.weight", "ffn_norm.weight", MXE, 0, 1, 0)
        SMT("mlp.gate_proj.weight", "ffn_gate.weight", MXF, MXE, 0, 0)
        SMT("mlp.up_proj.weight", "ffn_up.weight", MXF, MXE, 0, 0)
        SMT("mlp.down_proj.weight", "ffn_down.weight", MXE, MXF, 0, 0)
#undef SMT
    }
    mx_add("model.norm.weight", "output_norm.weight", MXE, 0, 1, 0, -1, -1, -1, NULL);
}
static void sm_config(char *buf, size_t cap, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"SmolLM3ForCausalLM\"],\"model_type\":\"smollm3\",\"hidden_size\":8,\"intermediate_size\":6,"
             "\"num_hidden_layers\":4,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-06,\"max_position_embeddings\":64,"
             "\"vocab_size\":16,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"sliding_window\":null%s}", extra);
}
static void test_smollm3(void) {
    char err[1024], dir[] = TMP "/smollm3", cfg[2048], why[512], arch[16];
    srti_model *m;
    int ok;
    sm_tensors();
    sm_config(cfg, sizeof cfg, ",\"no_rope_layer_interval\":4,\"no_rope_layers\":[1,1,1,0],\"use_sliding_window\":false");
    mx_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny SmolLM3 folder opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "smollm3") && m->hp.nope_step == 4 && m->hp.rope_neox == 0 && m->hp.rope_theta == 2e6f && m->hp.tied_output == 1,
              "SmolLM3 hyper-parameters: smollm3, NoPE step 4, adjacent-pair RoPE (q/k permuted), SmolLM3Config's rope_theta 2e6 when absent, tied");
        ok = mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
        CHECK(ok, "SmolLM3: all %d tensors mapped, q/k rows permuted as Llama's; srti_check_llama passes (%s)", mx_n, ok ? "ok" : why);
    }
    srti_close(m);
    {
        float lg[TV];
        srt_model_info info;
        srt_model *sm = NULL;
        srt_model_desc md;
        uint32_t step = 0;
        memset(&info, 0, sizeof info);
        ok = mx_pack_eval(dir, "", TMP "/smollm3.srt", lg, &info, arch, why, sizeof why) && !strcmp(arch, "smollm3");
        memset(&md, 0, sizeof md);
        ok = ok && srt_model_load(TMP "/smollm3.srt", &md, &sm) == SRT_OK && srt_model_meta_u32(sm, "smollm3.no_rope_layer_step", &step) && step == 4;
        srt_model_free(sm);
        CHECK(ok, "srt-pack packs the SmolLM3 folder: it loads as smollm3 with no_rope_layer_step 4 and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
        remove(TMP "/smollm3.srt");
    }
    sm_config(cfg, sizeof cfg, ",\"no_rope_layer_interval\":2,\"no_rope_layers\":[1,0,1,0]");
    mx_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.nope_step == 2, "SmolLM3 with no_rope_layer_interval 2: NoPE step 2 (%s)", m ? "ok" : err);
    srti_close(m);
    sm_config(cfg, sizeof cfg, ",\"no_rope_layers\":[1,1,0,1]");
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, "no_rope_layers[2] must be 1: only the pattern of no_rope_layer_interval 4", "no_rope_layers that are not the interval's pattern");
    sm_config(cfg, sizeof cfg, ",\"no_rope_layers\":[1,1,1]");
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, "no_rope_layers must be a list of 4 entries", "no_rope_layers of 3 entries for 4 layers");
    sm_config(cfg, sizeof cfg, ",\"use_sliding_window\":true");
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, "use_sliding_window true is not supported", "a SmolLM3 with sliding windows");
    if (!remove_tree(TMP "/smollm3")) CHECK(0, "clean up");
}

/* srt-pack packs the folder dir into out; the result loads as `arch` with minicpm.logit_scale's
   (or granite's) value `want` and evaluates 5 tokens to finite logits. */
static int pack_with_logit_scale(const char *dir, const char *out, const char *arch, float want, char *why, size_t cap) {
    float lg[TV], ls = 0;
    char key[64], got[16];
    srt_model_info info;
    srt_model *sm = NULL;
    srt_model_desc md;
    int ok;
    memset(&info, 0, sizeof info);
    memset(&md, 0, sizeof md);
    snprintf(key, sizeof key, "%s.logit_scale", arch);
    ok = mx_pack_eval(dir, "", out, lg, &info, got, why, cap) && !strcmp(got, arch) && srt_model_load(out, &md, &sm) == SRT_OK &&
         srt_model_meta_f32(sm, key, &ls) && ls == want;
    srt_model_free(sm);
    remove(out);
    return ok;
}

/* Writes the folder's config.json: base (a printf format with one %s) with extra in its place. */
static void write_config(const char *dir, const char *base, const char *extra) {
    char cfg[2048];
    snprintf(cfg, sizeof cfg, base, extra);
    mx_write(dir, cfg, NULL, 0);
}

/* GraniteForCausalLM: the SmolLM3 folder's tensors (Llama's, q/k permuted) with Granite's four
   multipliers read into the hyper-parameters (and transformers' 1.0 when absent); packed, the
   keys are there and it runs; a multiplier of 0 is refused. */
static void test_granite(void) {
    char err[1024], dir[] = TMP "/granite", why[512];
    const char *base = "{\"architectures\":[\"GraniteForCausalLM\"],\"model_type\":\"granite\",\"hidden_size\":8,\"intermediate_size\":6,"
                       "\"num_hidden_layers\":4,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-05,\"max_position_embeddings\":64,"
                       "\"vocab_size\":16,\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"rope_theta\":10000.0%s}";
    srti_model *m;
    int ok;
    sm_tensors();
    write_config(dir, base, ",\"embedding_multiplier\":12.0,\"attention_multiplier\":0.015625,\"residual_multiplier\":0.22,\"logits_scaling\":8.0");
    m = open_dir(dir, err, sizeof err);
    ok = m && !strcmp(m->hp.arch, "granite") && m->hp.embd_scale == 12.0f && m->hp.attn_scale == 0.015625f && m->hp.residual_scale == 0.22f &&
         m->hp.logit_scale == 8.0f && m->hp.rope_neox == 0 && mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
    CHECK(ok, "tiny Granite folder: granite, the multipliers (12, 1/64, 0.22, 8), q/k permuted as Llama's, every tensor in place (%s)", m ? (ok ? "ok" : why) : err);
    srti_close(m);
    ok = pack_with_logit_scale(dir, TMP "/granite.srt", "granite", 8.0f, why, sizeof why);
    CHECK(ok, "srt-pack packs the Granite folder: it loads as granite with logit_scale 8 and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
    write_config(dir, base, "");
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.embd_scale == 1.0f && m->hp.attn_scale == 1.0f && m->hp.residual_scale == 1.0f && m->hp.logit_scale == 1.0f,
          "Granite without multipliers: transformers' GraniteConfig defaults, 1.0 each (the attention scale too, not 1/sqrt(head_dim)) (%s)", m ? "ok" : err);
    srti_close(m);
    write_config(dir, base, ",\"logits_scaling\":0");
    refuse(dir, "\"logits_scaling\" must be a positive number", "a Granite logits_scaling of 0");
    if (!remove_tree(TMP "/granite")) CHECK(0, "clean up");
}

/* MiniCPMForCausalLM: SmolLM3's tiny Llama folder with MiniCPM-2B's scale_emb 12, scale_depth 1.4
   and dim_model_base 2 (hidden 8: logits / 4) over its 4 layers: Granite's multipliers 12, 1.4 / 2,
   4 as llama.cpp's converter derives them, no attention multiplier; q/k permuted; packed, it runs;
   a config without one of the three keys is refused. */
static void test_minicpm(void) {
    char err[1024], dir[] = TMP "/minicpm", why[512];
    const char *base = "{\"architectures\":[\"MiniCPMForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":6,\"num_hidden_layers\":4,"
                       "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-05,\"max_position_embeddings\":64,\"vocab_size\":16,"
                       "\"tie_word_embeddings\":true,\"hidden_act\":\"silu\",\"rope_theta\":10000.0,\"scale_emb\":12,\"dim_model_base\":2%s}";
    srti_model *m;
    int ok;
    sm_tensors();
    write_config(dir, base, ",\"scale_depth\":1.4");
    m = open_dir(dir, err, sizeof err);
    ok = m && !strcmp(m->hp.arch, "minicpm") && m->hp.embd_scale == 12.0f && m->hp.attn_scale == 0.0f && fabsf(m->hp.residual_scale - 0.7f) < 1e-6f &&
         m->hp.logit_scale == 4.0f && m->hp.rope_neox == 0 && mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
    CHECK(ok, "tiny MiniCPM folder: minicpm, embedding 12, residual 1.4 / sqrt(4), logits / (8 / 2), no attention multiplier, q/k permuted, every "
          "tensor in place (%s)", m ? (ok ? "ok" : why) : err);
    srti_close(m);
    ok = pack_with_logit_scale(dir, TMP "/minicpm.srt", "minicpm", 4.0f, why, sizeof why);
    CHECK(ok, "srt-pack packs the MiniCPM folder: it loads as minicpm with logit_scale 4 and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
    write_config(dir, base, "");
    refuse(dir, "MiniCPM needs \"scale_depth\"", "a MiniCPM config without scale_depth");
    if (!remove_tree(TMP "/minicpm")) CHECK(0, "clean up");
}

/* GraniteMoeSharedForCausalLM (and GraniteMoeForCausalLM): a tiny folder of hidden 8, 2 heads of 4,
   1 kv head, 2 layers of 4 experts of width 6 (2 used) stored as transformers does, 3-D:
   block_sparse_moe.input_linear [4, 12, 8] (each expert's gate rows, then its up rows),
   output_linear [4, 8, 6], router.layer [4, 8], and a shared expert of width 10 whose
   shared_mlp.input_linear [20, 8] holds its gate rows, then its up rows; tied embeddings, Granite's
   multipliers. Every split tensor holds its slice's values; packed, it runs; with identical
   experts it equals its dense twin: a GraniteForCausalLM whose FFN of width 16 is expert 0's
   gate / up rows followed by the shared expert's, and whose down is both side by side (the sum of
   two SwiGLU FFNs is one of their concatenated width), which shows gate and up arrive in their
   roles and the shared expert is added ungated; broken folders and configs are refused. */
#define GRX 4    /* experts */
#define GRF 6    /* an expert's width */
#define GRS 10   /* the shared expert's width */
typedef struct grm_model {
    float emb[TV * MXE], fnorm[MXE];
    float an[MXL][MXE], fn[MXL][MXE], q[MXL][MXE * MXE], k[MXL][4 * MXE], v[MXL][4 * MXE], o[MXL][MXE * MXE];
    float router[MXL][GRX * MXE], in[MXL][GRX * 2 * GRF * MXE], out[MXL][GRX * MXE * GRF];
    float sin[MXL][2 * GRS * MXE], sout[MXL][MXE * GRS];
    /* the dense twin's FFN (GRF + GRS wide): gate, up [16 x 8], down [8 x 16] */
    float dg[MXL][(GRF + GRS) * MXE], du[MXL][(GRF + GRS) * MXE], dd[MXL][MXE * (GRF + GRS)];
} grm_model;
static grm_model grm;
static void grm_fill(int same_experts) {
    int l, i, x, r;
#define GRMR(a, norm) for (i = 0; i < (int)(sizeof(a) / sizeof(float)); i++) (a)[i] = (norm) ? 1.0f + 0.25f * srt_test_frand() : 0.4f * srt_test_frand();
    srt_test_rng = 4545;
    GRMR(grm.emb, 0) GRMR(grm.fnorm, 1)
    for (l = 0; l < MXL; l++) {
        GRMR(grm.an[l], 1) GRMR(grm.fn[l], 1) GRMR(grm.q[l], 0) GRMR(grm.k[l], 0) GRMR(grm.v[l], 0) GRMR(grm.o[l], 0)
        GRMR(grm.router[l], 0) GRMR(grm.in[l], 0) GRMR(grm.out[l], 0) GRMR(grm.sin[l], 0) GRMR(grm.sout[l], 0)
        for (x = 1; same_experts && x < GRX; x++) {
            memcpy(grm.in[l] + x * 2 * GRF * MXE, grm.in[l], sizeof(float) * 2 * GRF * MXE);
            memcpy(grm.out[l] + x * MXE * GRF, grm.out[l], sizeof(float) * MXE * GRF);
        }
        for (r = 0; r < GRF + GRS; r++)   /* the twin: expert 0's rows, then the shared expert's */
            for (i = 0; i < MXE; i++) {
                grm.dg[l][r * MXE + i] = r < GRF ? grm.in[l][r * MXE + i] : grm.sin[l][(r - GRF) * MXE + i];
                grm.du[l][r * MXE + i] = r < GRF ? grm.in[l][(GRF + r) * MXE + i] : grm.sin[l][(GRS + r - GRF) * MXE + i];
            }
        for (r = 0; r < MXE; r++)
            for (i = 0; i < GRF + GRS; i++) grm.dd[l][r * (GRF + GRS) + i] = i < GRF ? grm.out[l][r * GRF + i] : grm.sout[l][r * GRS + i - GRF];
    }
#undef GRMR
}
/* Writes the folder of grm less the tensor named `drop`; shared: with the shared expert; dense: the twin. */
static void grm_write(const char *dir, const char *config, int shared, const char *drop, int dense) {
    static char names[64][96];
    st_tensor t[64];
    int n = 0, l;
#define GRMT(nm, d, a, b, c, values) do { \
        snprintf(names[n], sizeof names[n], "%s", nm); \
        if (!drop || strcmp(names[n], drop) != 0) { \
            t[n].name = names[n]; t[n].dtype = "F32"; t[n].nd = d; t[n].shape[0] = a; t[n].shape[1] = b; t[n].shape[2] = c; t[n].data = values; n++; \
        } \
    } while (0)
#define GRML(s, d, a, b, c, values) do { char nm_[96]; snprintf(nm_, sizeof nm_, "model.layers.%d.%s", l, s); GRMT(nm_, d, a, b, c, values); } while (0)
    if (!fresh_dir(dir)) return;
    GRMT("model.embed_tokens.weight", 2, TV, MXE, 0, grm.emb);
    GRMT("model.norm.weight", 1, MXE, 0, 0, grm.fnorm);
    for (l = 0; l < MXL; l++) {
        GRML("input_layernorm.weight", 1, MXE, 0, 0, grm.an[l]);
        GRML("post_attention_layernorm.weight", 1, MXE, 0, 0, grm.fn[l]);
        GRML("self_attn.q_proj.weight", 2, MXE, MXE, 0, grm.q[l]);
        GRML("self_attn.k_proj.weight", 2, 4, MXE, 0, grm.k[l]);
        GRML("self_attn.v_proj.weight", 2, 4, MXE, 0, grm.v[l]);
        GRML("self_attn.o_proj.weight", 2, MXE, MXE, 0, grm.o[l]);
        if (dense) {
            GRML("mlp.gate_proj.weight", 2, GRF + GRS, MXE, 0, grm.dg[l]);
            GRML("mlp.up_proj.weight", 2, GRF + GRS, MXE, 0, grm.du[l]);
            GRML("mlp.down_proj.weight", 2, MXE, GRF + GRS, 0, grm.dd[l]);
            continue;
        }
        GRML("block_sparse_moe.router.layer.weight", 2, GRX, MXE, 0, grm.router[l]);
        GRML("block_sparse_moe.input_linear.weight", 3, GRX, 2 * GRF, MXE, grm.in[l]);
        GRML("block_sparse_moe.output_linear.weight", 3, GRX, MXE, GRF, grm.out[l]);
        if (shared) {
            GRML("shared_mlp.input_linear.weight", 2, 2 * GRS, MXE, 0, grm.sin[l]);
            GRML("shared_mlp.output_linear.weight", 2, MXE, GRS, 0, grm.sout[l]);
        }
    }
#undef GRML
#undef GRMT
    write_folder(dir, config, t, n);
}
/* config.json: the class, the FFN width and `extra` keys after Granite's multipliers */
static void grm_config(char *buf, size_t cap, const char *cls, int ff, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"%s\"],\"hidden_size\":8,\"intermediate_size\":%d,\"num_hidden_layers\":2,\"num_attention_heads\":2,"
             "\"num_key_value_heads\":1,\"rms_norm_eps\":1e-06,\"max_position_embeddings\":64,\"vocab_size\":16,\"tie_word_embeddings\":true,"
             "\"hidden_act\":\"silu\",\"rope_theta\":10000.0,\"embedding_multiplier\":2.0,\"attention_multiplier\":0.125,\"residual_multiplier\":0.5,"
             "\"logits_scaling\":4.0%s}", cls, ff, extra);
}
#define GRM_EXPERTS ",\"num_local_experts\":4,\"num_experts_per_tok\":2,\"position_embedding_type\":\"rope\""
/* m's tensor `name` holds rows .. rows + n of the row-major [?, cols] array `src`, starting at row `from` */
static int grm_slice(srti_model *m, const char *name, const float *src, int from, int rows, int cols, char *why, size_t cap) {
    float v[(GRF + GRS) * 2 * MXE];
    char err[256];
    const int ti = srti_find(m, name);
    if (ti < 0) { snprintf(why, cap, "%s missing", name); return 0; }
    if (m->tensors[ti].ne[0] != (uint64_t)cols || m->tensors[ti].ne[1] != (uint64_t)rows || m->tensors[ti].ne[2] != 1) {
        snprintf(why, cap, "%s is [%llu, %llu, %llu]", name, (unsigned long long)m->tensors[ti].ne[0], (unsigned long long)m->tensors[ti].ne[1],
                 (unsigned long long)m->tensors[ti].ne[2]);
        return 0;
    }
    if (srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) != 0) { snprintf(why, cap, "%s: %.200s", name, err); return 0; }
    if (memcmp(v, src + (size_t)from * (size_t)cols, sizeof(float) * (size_t)rows * (size_t)cols) != 0) { snprintf(why, cap, "%s: values differ", name); return 0; }
    return 1;
}
static void test_granitemoe(void) {
    char err[1024], dir[] = TMP "/granitemoe", cfg[2048], why[512] = "", p[512], arch[16], nm[64];
    srti_model *m;
    int ok, l, x;
    grm_fill(0);
    grm_config(cfg, sizeof cfg, "GraniteMoeSharedForCausalLM", GRF, GRM_EXPERTS ",\"shared_intermediate_size\":10");
    grm_write(dir, cfg, 1, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && !strcmp(m->hp.arch, "granitemoe") && m->hp.n_expert == GRX && m->hp.n_expert_used == 2 && m->hp.n_ff_exp == GRF && m->hp.n_ff_shexp == GRS &&
              m->hp.expert_weights_norm == 1 && m->hp.rope_neox == 0 && m->hp.embd_scale == 2.0f && m->hp.attn_scale == 0.125f &&
              m->hp.residual_scale == 0.5f && m->hp.logit_scale == 4.0f && m->hp.tied_output == 1,
          "tiny GraniteMoeShared folder: granitemoe, 4 experts of width 6, 2 used, renormalized, shared expert of width 10, the multipliers, "
          "adjacent-pair rope (%s)", m ? "ok" : err);
    if (m) {
        ok = m->n_tensors == 2 + MXL * (6 + 1 + 3 * GRX + 3);
        for (l = 0; ok && l < MXL; l++) {
            for (x = 0; ok && x < GRX; x++) {
                snprintf(nm, sizeof nm, "blk.%d.ffn_gate.%d.weight", l, x); ok = grm_slice(m, nm, grm.in[l], x * 2 * GRF, GRF, MXE, why, sizeof why);
                snprintf(nm, sizeof nm, "blk.%d.ffn_up.%d.weight", l, x); ok = ok && grm_slice(m, nm, grm.in[l], x * 2 * GRF + GRF, GRF, MXE, why, sizeof why);
                snprintf(nm, sizeof nm, "blk.%d.ffn_down.%d.weight", l, x); ok = ok && grm_slice(m, nm, grm.out[l], x * MXE, MXE, GRF, why, sizeof why);
            }
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.weight", l); ok = ok && grm_slice(m, nm, grm.router[l], 0, GRX, MXE, why, sizeof why);
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate_shexp.weight", l); ok = ok && grm_slice(m, nm, grm.sin[l], 0, GRS, MXE, why, sizeof why);
            snprintf(nm, sizeof nm, "blk.%d.ffn_up_shexp.weight", l); ok = ok && grm_slice(m, nm, grm.sin[l], GRS, GRS, MXE, why, sizeof why);
            snprintf(nm, sizeof nm, "blk.%d.ffn_down_shexp.weight", l); ok = ok && grm_slice(m, nm, grm.sout[l], 0, MXE, GRS, why, sizeof why);
            snprintf(nm, sizeof nm, "blk.%d.attn_q.weight", l);
            ok = ok && m->tensors[srti_find(m, nm)].permute_heads == 2;
        }
        ok = ok && srti_check_llama(m, why, sizeof why) == 0;
        CHECK(ok, "GraniteMoeShared: input_linear split into ffn_gate.X / ffn_up.X (each expert's first 6 rows, then its next 6), output_linear into ffn_down.X, "
              "router.layer -> ffn_gate_inp, shared_mlp into ffn_gate_shexp / ffn_up_shexp / ffn_down_shexp, values equal, q/k permuted; %u tensors; "
              "srti_check_llama passes (%s)", (unsigned)m->n_tensors, ok ? "ok" : why);
    }
    srti_close(m);
    {
        float lg[TV];
        srt_model_info info;
        memset(&info, 0, sizeof info);
        ok = mx_pack_eval(dir, "", TMP "/granitemoe.srt", lg, &info, arch, why, sizeof why);
        CHECK(ok && !strcmp(arch, "granitemoe") && info.n_expert == GRX && info.n_ff == GRF &&
              srt_file_format(TMP "/granitemoe.srt", "blk.1.ffn_down_shexp.weight") == SRT_F16 &&
              srt_file_format(TMP "/granitemoe.srt", "blk.1.ffn_gate_inp_shexp.weight") == -1,
              "srt-pack packs the GraniteMoeShared folder (the shared expert f16, no gate for it); it loads and evaluates 5 tokens to finite logits (%s)",
              ok ? "ok" : why);
        remove(TMP "/granitemoe.srt");
    }
    {   /* identical experts, weights renormalized, plus the shared expert: the dense Granite of both FFNs side by side */
        float lm[TV], ld[TV];
        srt_model_info info;
        double d = 1;
        grm_fill(1);
        grm_write(dir, cfg, 1, NULL, 0);
        ok = mx_pack_eval(dir, "--weights f32", TMP "/granitemoe.srt", lm, &info, arch, why, sizeof why);
        grm_config(cfg, sizeof cfg, "GraniteForCausalLM", GRF + GRS, "");
        grm_write(dir, cfg, 0, NULL, 1);
        ok = ok && mx_pack_eval(dir, "--weights f32", TMP "/dense.srt", ld, &info, arch, why, sizeof why) && info.n_expert == 0 && !strcmp(arch, "granite");
        if (ok) d = max_rel_diff(lm, ld, TV);
        CHECK(ok && d < 1e-5, "GraniteMoeShared with 4 identical experts equals its dense twin (GraniteForCausalLM of width 16: expert 0 and the shared "
              "expert side by side): logits within %.2g (%s)", d, ok ? "ok" : why);
        grm_config(cfg, sizeof cfg, "GraniteMoeForCausalLM", GRF, GRM_EXPERTS);   /* without the shared expert: another model */
        grm_write(dir, cfg, 0, NULL, 0);
        ok = mx_pack_eval(dir, "--weights f32", TMP "/granitemoe.srt", lm, &info, arch, why, sizeof why);
        if (ok) d = max_rel_diff(lm, ld, TV);
        CHECK(ok && d > 1e-3, "GraniteMoeForCausalLM (no shared_intermediate_size): no shared expert, and the logits differ from the twin's by %.2g (%s)",
              d, ok ? "ok" : why);
        remove(TMP "/granitemoe.srt");
        remove(TMP "/dense.srt");
        grm_fill(0);
    }
    /* refusals, each naming what is wrong */
    grm_config(cfg, sizeof cfg, "GraniteMoeSharedForCausalLM", GRF, GRM_EXPERTS ",\"shared_intermediate_size\":10");
    grm_write(dir, cfg, 1, "model.layers.1.block_sparse_moe.input_linear.weight", 0);
    refuse_check(dir, "tensor 'blk.1.ffn_gate.0.weight' is missing", "a Granite MoE folder without layer 1's input_linear");
    grm_write(dir, cfg, 1, "model.layers.0.shared_mlp.output_linear.weight", 0);
    refuse_check(dir, "tensor 'blk.0.ffn_down_shexp.weight' is missing", "a GraniteMoeShared folder without layer 0's shared output_linear");
    grm_config(cfg, sizeof cfg, "GraniteMoeSharedForCausalLM", GRF, ",\"num_local_experts\":3,\"num_experts_per_tok\":2,\"shared_intermediate_size\":10");
    grm_write(dir, cfg, 1, NULL, 0);
    refuse(dir, "cannot be split into 3 experts", "4 experts' tensors under num_local_experts 3");
    grm_config(cfg, sizeof cfg, "GraniteMoeSharedForCausalLM", GRF, GRM_EXPERTS ",\"shared_intermediate_size\":12");
    grm_write(dir, cfg, 1, NULL, 0);
    refuse(dir, "cannot be split into gate and up (2-D, 24 rows expected)", "a shared input_linear of 20 rows under shared_intermediate_size 12");
    grm_config(cfg, sizeof cfg, "GraniteMoeForCausalLM", GRF, GRM_EXPERTS);
    grm_write(dir, cfg, 1, NULL, 0);
    refuse(dir, "'model.layers.0.shared_mlp.input_linear.weight' has no place in a granitemoe model", "shared_mlp tensors without shared_intermediate_size");
    grm_config(cfg, sizeof cfg, "GraniteMoeForCausalLM", GRF, ",\"num_local_experts\":4,\"position_embedding_type\":\"nope\"");
    grm_write(dir, cfg, 0, NULL, 0);
    refuse(dir, "position_embedding_type \"nope\" is not supported", "a Granite MoE without RoPE");
    grm_config(cfg, sizeof cfg, "GraniteForCausalLM", GRF, "");
    grm_write(dir, cfg, 0, NULL, 0);
    refuse(dir, "'model.layers.0.block_sparse_moe.router.layer.weight' has no place in a granite model", "Granite MoE tensors under a dense Granite config");
    path_in(p, sizeof p, TMP, "granitemoe_random.json");
    write_text(p, "{\"architectures\":[\"GraniteMoeSharedForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                  "\"num_attention_heads\":2,\"vocab_size\":300,\"shared_intermediate_size\":24}");
    m = NULL;
    ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && !strcmp(m->hp.arch, "granitemoe") && m->hp.n_expert == 8 && m->hp.n_expert_used == 2 &&
         m->hp.n_ff_exp == 16 && m->hp.n_ff_shexp == 24 && m->hp.expert_weights_norm == 1 && m->hp.logit_scale == 1.0f &&
         m->n_tensors == 3 + 6 + 1 + 3 * 8 + 3 && srti_find(m, "blk.0.ffn_gate_inp_shexp.weight") < 0 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random GraniteMoeShared: GraniteMoeConfig's defaults (8 experts, 2 used, width intermediate_size, renormalized, multipliers 1), "
          "the shared expert of 24 without a gate, checked (%s)", ok ? "ok" : err);
    srti_close(m);
    remove(p);
    if (!remove_tree(TMP "/granitemoe")) CHECK(0, "clean up");
}

/* Olmo2ForCausalLM and OlmoeForCausalLM: tiny folders of hidden 8, 2 heads of 4, 1 kv head, 2
   layers. OLMo 2: no input norms, post_attention_layernorm and post_feedforward_layernorm (the
   outputs' norms), q_norm over both heads (8 values) and k_norm over the kv head (4), an FFN of 6.
   OLMoE: Llama's norms, those q/k norms and 4 experts of intermediate_size 6 (2 used), router
   mlp.gate. Every tensor in place with its values, q/k in NeoX order (not permuted); packed, they
   run; broken folders and configs are refused; random ones take the config classes' defaults. */
static void ol_tensors(int moe, int exaone4) {
    static const char *const part[3] = {"gate_proj", "up_proj", "down_proj"}, *const gg_part[3] = {"gate", "up", "down"};
    char hf[96], gg[64];
    int l, x, k;
    mx_n = 0; mx_used = mx_used16 = 0;
    srt_test_rng = moe ? 4747 : exaone4 ? 4848 : 4646;
    mx_add("model.embed_tokens.weight", "token_embd.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
    for (l = 0; l < MXL; l++) {
#define OLT(h, g, r, c, norm, ex, pt) snprintf(hf, sizeof hf, "model.layers.%d.%s", l, h); snprintf(gg, sizeof gg, "blk.%d.%s", l, g); \
                                       mx_add(hf, gg, r, c, norm, 0, l, ex, pt, NULL);
        if (moe) { OLT("input_layernorm.weight", "attn_norm.weight", MXE, 0, 1, -1, -1) }
        OLT("self_attn.q_proj.weight", "attn_q.weight", MXE, MXE, 0, -1, -1)
        OLT("self_attn.k_proj.weight", "attn_k.weight", 4, MXE, 0, -1, -1)
        OLT("self_attn.v_proj.weight", "attn_v.weight", 4, MXE, 0, -1, -1)
        OLT("self_attn.o_proj.weight", "attn_output.weight", MXE, MXE, 0, -1, -1)
        OLT("self_attn.q_norm.weight", "attn_q_norm.weight", exaone4 ? 4 : MXE, 0, 1, -1, -1)   /* (EXAONE 4: per head) */
        OLT("self_attn.k_norm.weight", "attn_k_norm.weight", 4, 0, 1, -1, -1)
        if (moe) {
            OLT("post_attention_layernorm.weight", "ffn_norm.weight", MXE, 0, 1, -1, -1)
            OLT("mlp.gate.weight", "ffn_gate_inp.weight", MXN, MXE, 0, -2, -1)
            for (x = 0; x < MXN; x++)
                for (k = 0; k < 3; k++) {
                    snprintf(hf, sizeof hf, "model.layers.%d.mlp.experts.%d.%s.weight", l, x, part[k]);
                    snprintf(gg, sizeof gg, "blk.%d.ffn_%s.%d.weight", l, gg_part[k], x);
                    mx_add(hf, gg, k == 2 ? MXE : MXF, k == 2 ? MXF : MXE, 0, 0, l, x, k, NULL);
                }
        } else {
            OLT("post_attention_layernorm.weight", "post_attention_norm.weight", MXE, 0, 1, -1, -1)
            OLT("mlp.gate_proj.weight", "ffn_gate.weight", MXF, MXE, 0, -1, -1)
            OLT("mlp.up_proj.weight", "ffn_up.weight", MXF, MXE, 0, -1, -1)
            OLT("mlp.down_proj.weight", "ffn_down.weight", MXE, MXF, 0, -1, 2)
            OLT("post_feedforward_layernorm.weight", "post_ffw_norm.weight", MXE, 0, 1, -1, -1)
        }
#undef OLT
    }
    mx_add("model.norm.weight", "output_norm.weight", MXE, 0, 1, 0, -1, -1, -1, NULL);
    mx_add("lm_head.weight", "output.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
}
static void ol_config(char *buf, size_t cap, int moe, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"%s\"],\"hidden_size\":8,\"intermediate_size\":6,\"num_hidden_layers\":2,\"num_attention_heads\":2,"
             "\"num_key_value_heads\":1,\"max_position_embeddings\":64,\"vocab_size\":16,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\","
             "\"rope_theta\":500000.0,\"attention_bias\":false%s%s}", moe == 3 ? "Olmo3ForCausalLM" : moe == 2 ? "Exaone4ForCausalLM" : moe ? "OlmoeForCausalLM" : "Olmo2ForCausalLM",
             moe == 1 ? ",\"num_experts\":4,\"num_experts_per_tok\":2" : "", extra);
}
static void test_olmo(void) {
    char err[1024], dir[] = TMP "/olmo", cfg[2048], why[512], p[512], arch[16];
    srti_model *m;
    int ok, moe;
    for (moe = 0; moe < 2; moe++) {
        const char *what = moe ? "OLMoE" : "OLMo 2", *a = moe ? "olmoe" : "olmo2";
        ol_tensors(moe, 0);
        ol_config(cfg, sizeof cfg, moe, "");
        mx_write(dir, cfg, NULL, 0);
        m = open_dir(dir, err, sizeof err);
        CHECK(m && !strcmp(m->hp.arch, a) && m->hp.rope_neox == 1 && m->hp.norm_eps == 1e-5f && m->hp.rope_theta == 5e5f &&
                  m->hp.n_expert == (moe ? MXN : 0) && (!moe || (m->hp.n_expert_used == 2 && m->hp.n_ff_exp == MXF && m->hp.expert_weights_norm == 0)),
              "tiny %s folder: %s, NeoX rope, rms_norm_eps 1e-5 by default%s (%s)", what, a,
              moe ? ", 4 experts of intermediate_size 6, 2 used, not renormalized (norm_topk_prob's default)" : "", m ? "ok" : err);
        if (m) {
            ok = mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
            CHECK(ok, "%s: all %d tensors mapped with their values (%s), q/k not permuted; srti_check_llama passes (%s)", what, mx_n,
                  moe ? "q_norm of 8 values, router and experts" : "post_attention_layernorm -> post_attention_norm, post_feedforward_layernorm -> "
                  "post_ffw_norm, q_norm of 8 values, no input norms", ok ? "ok" : why);
        }
        srti_close(m);
        {
            float lg[TV];
            srt_model_info info;
            memset(&info, 0, sizeof info);
            ok = mx_pack_eval(dir, "--weights q8", TMP "/olmo.srt", lg, &info, arch, why, sizeof why);
            CHECK(ok && !strcmp(arch, a) && info.n_expert == (moe ? MXN : 0), "srt-pack --weights q8 packs the %s folder; it loads and evaluates 5 tokens "
                  "to finite logits (%s)", what, ok ? "ok" : why);
            remove(TMP "/olmo.srt");
        }
    }
    ol_tensors(0, 0);
    ol_config(cfg, sizeof cfg, 0, "");
    mx_write(dir, cfg, "model.layers.1.self_attn.k_norm.weight", 0);
    refuse_check(dir, "tensor 'blk.1.attn_k_norm.weight' is missing", "an OLMo 2 folder without layer 1's k_norm");
    mx_n--;   /* (lm_head.weight last: write it as layer 0's input norm, which OLMo 2 has no place for) */
    snprintf(mx[mx_n].hf, sizeof mx[mx_n].hf, "model.layers.0.input_layernorm.weight");
    mx[mx_n].rows = MXE; mx[mx_n].cols = 0;
    mx_n++;
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, "'model.layers.0.input_layernorm.weight' has no place in a olmo2 model", "an OLMo 2 folder with an input norm");
    {   /* OLMo 3: OLMo 2's tensors, layer 0 sliding over 4 positions, YaRN (factor 8) as OLMo-3-7B's config has it */
        static const char *yarn = ",\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":8.0,\"original_max_position_embeddings\":16,"
                                  "\"attention_factor\":1.2079441541679836,\"beta_fast\":32,\"beta_slow\":1%s}";
        char extra[512], rs[256];
        float lg[TV];
        srt_model_info info;
        ol_tensors(0, 0);
        snprintf(rs, sizeof rs, yarn, "");
        snprintf(extra, sizeof extra, ",\"sliding_window\":4,\"layer_types\":[\"sliding_attention\",\"full_attention\"]%s", rs);
        ol_config(cfg, sizeof cfg, 3, extra);
        mx_write(dir, cfg, NULL, 0);
        m = open_dir(dir, err, sizeof err);
        ok = m && !strcmp(m->hp.arch, "olmo2") && m->hp.sliding_window == 4 && m->hp.swa_pattern == 2 && !strcmp(m->hp.rope_scaling, "yarn") &&
             m->hp.rope_scale_factor == 8.0f && m->hp.rope_orig_ctx == 16 && m->hp.yarn_attn_factor == 1.2079441541679836f && m->hp.yarn_beta_fast == 32.0f &&
             m->hp.yarn_beta_slow == 1.0f && mx_check_values(m, why, sizeof why);
        CHECK(ok, "tiny OLMo 3 folder: olmo2 with window 4 over layer 0 (layer_types), yarn factor 8 from 16 positions, attention factor 1.2079, "
              "betas 32 / 1; every tensor in place (%s)", ok ? "ok" : m ? why : err);
        srti_close(m);
        memset(&info, 0, sizeof info);
        ok = mx_pack_eval(dir, "", TMP "/olmo.srt", lg, &info, arch, why, sizeof why);
        CHECK(ok && !strcmp(arch, "olmo2") && info.n_swa_layers == 1 && info.swa_window == 4, "the OLMo 3 folder packs; it loads with 1 sliding layer and "
              "evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
        remove(TMP "/olmo.srt");
        snprintf(extra, sizeof extra, ",\"sliding_window\":null%s", rs);
        ol_config(cfg, sizeof cfg, 3, extra);
        mx_write(dir, cfg, NULL, 0);
        m = open_dir(dir, err, sizeof err);
        CHECK(m && m->hp.sliding_window == 0 && m->hp.swa_pattern == 0, "an OLMo 3 folder with sliding_window null: no windows (%s)", m ? "ok" : err);
        srti_close(m);
        snprintf(rs, sizeof rs, yarn, ",\"truncate\":false");
        ol_config(cfg, sizeof cfg, 3, rs);
        mx_write(dir, cfg, NULL, 0);
        m = open_dir(dir, err, sizeof err);
        ok = m && m->hp.yarn_exact == 1;
        srti_close(m);
        if (ok) {   /* packed: the file says so (the tiny heads' rounding moves no pair: test_arch checks the rotation) */
            srt_model *sm = NULL;
            uint32_t v = 1;
            ok = mx_pack_eval(dir, "", TMP "/olmo.srt", lg, &info, arch, why, sizeof why) && srt_model_load(TMP "/olmo.srt", NULL, &sm) == SRT_OK &&
                 srt_model_meta_u32(sm, "olmo2.rope.scaling.yarn_truncate", &v) && v == 0;
            srt_model_free(sm);
            remove(TMP "/olmo.srt");
        }
        CHECK(ok, "yarn with truncate false (gpt-oss's) is read as the unrounded ramp and packed as rope.scaling.yarn_truncate 0 (%s)", ok ? "ok" : err);
        snprintf(rs, sizeof rs, yarn, ",\"mscale\":0.707,\"mscale_all_dim\":0.707");
        ol_config(cfg, sizeof cfg, 3, rs);
        mx_write(dir, cfg, NULL, 0);
        refuse(dir, "rope_scaling.mscale is not supported", "yarn with DeepSeek's mscale");
    }
    ol_tensors(1, 0);
    ol_config(cfg, sizeof cfg, 1, ",\"clip_qkv\":8.0");
    mx_write(dir, cfg, NULL, 0);
    refuse(dir, "clip_qkv is not supported", "an OLMoE with clip_qkv");
    path_in(p, sizeof p, TMP, "olmo_random.json");
    write_text(p, "{\"architectures\":[\"OlmoeForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                  "\"num_attention_heads\":2,\"vocab_size\":300}");
    m = NULL;
    ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && m->hp.n_expert == 64 && m->hp.n_expert_used == 8 && m->hp.n_ff_exp == 16 &&
         m->hp.expert_weights_norm == 0 && m->n_tensors == 3 + 6 + 2 + 1 + 3 * 64 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random OLMoE: OlmoeConfig's defaults (64 experts, 8 used, intermediate_size wide, not renormalized), q/k norms of all heads; checked (%s)",
          ok ? "ok" : err);
    srti_close(m);
    write_text(p, "{\"architectures\":[\"Olmo2ForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                  "\"num_attention_heads\":2,\"vocab_size\":300}");
    m = NULL;
    ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && m->n_tensors == 3 + 4 + 2 + 2 + 3 && srti_find(m, "blk.0.attn_norm.weight") < 0 &&
         srti_find(m, "blk.0.post_ffw_norm.weight") >= 0 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random OLMo 2: output norms, no input norms, q/k norms of all heads; checked (%s)", ok ? "ok" : err);
    srti_close(m);
    remove(p);
    if (!remove_tree(TMP "/olmo")) CHECK(0, "clean up");
}

/* Exaone4ForCausalLM: OLMo 2's tiny folder with per-head q_norm / k_norm (4 values). The hybrid
   attention's settings as transformers' Exaone4Config takes them: sliding_window (absent: 4096;
   null: none), sliding_window_pattern as a number or "LLLG", layer_types; the full-attention
   layers then have no RoPE. Every tensor in place; packed, the runtime reports the sliding layers
   and evaluates; settings that follow no pattern, or a window with no sliding layer, are refused;
   a random folder takes Exaone4Config's defaults. */
static void test_exaone4(void) {
    static const struct { const char *extra; uint32_t window, pattern; int swa_layers; const char *want, *what; } c[] = {
        {",\"sliding_window\":4,\"layer_types\":[\"sliding_attention\",\"full_attention\"]", 4, 2, 1, NULL, "window 4, layer_types sliding, full"},
        {",\"sliding_window\":4,\"sliding_window_pattern\":\"LG\"", 4, 2, 1, NULL, "window 4, sliding_window_pattern \"LG\""},
        {",\"sliding_window\":6,\"sliding_window_pattern\":2,\"layer_types\":[\"sliding_attention\",\"full_attention\"]", 6, 2, 1, NULL,
         "window 6, sliding_window_pattern 2 and layer_types agreeing"},
        {",\"sliding_window\":null,\"layer_types\":[\"full_attention\",\"full_attention\"]", 0, 0, 0, NULL,
         "sliding_window null (the 1.2B): no windows, every layer rotates"},
        {"", 4096, 4, 2, NULL, "no sliding_window: Exaone4Config's 4096, pattern 4 (both layers slide)"},
        {",\"sliding_window\":4,\"layer_types\":[\"full_attention\",\"full_attention\"]", 0, 0, 0, "but no layer slides",
         "a window with only full-attention layers"},
        {",\"sliding_window\":4,\"sliding_window_pattern\":\"LGL\"", 0, 0, 0, "is not P - 1 'L's and a 'G'", "sliding_window_pattern \"LGL\""},
        {",\"sliding_window\":4,\"sliding_window_pattern\":3,\"layer_types\":[\"sliding_attention\",\"full_attention\"]", 0, 0, 0,
         "sliding_window_pattern says 3", "layer_types repeating every 2 layers with sliding_window_pattern 3"},
    };
    char err[1024], dir[] = TMP "/exaone4", cfg[2048], why[512], p[512], arch[16];
    srti_model *m;
    size_t i;
    int ok;
    ol_tensors(0, 1);
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        ol_config(cfg, sizeof cfg, 2, c[i].extra);
        mx_write(dir, cfg, NULL, 0);
        if (c[i].want) { refuse(dir, c[i].want, c[i].what); continue; }
        m = open_dir(dir, err, sizeof err);
        ok = m && !strcmp(m->hp.arch, "exaone4") && m->hp.rope_neox == 1 && m->hp.norm_eps == 1e-5f && m->hp.sliding_window == c[i].window &&
             m->hp.swa_pattern == c[i].pattern;
        CHECK(ok, "EXAONE 4 folder, %s: exaone4, NeoX rope, rms_norm_eps 1e-5 by default, window %u, pattern %u (%s)", c[i].what,
              m ? m->hp.sliding_window : 0, m ? m->hp.swa_pattern : 0, m ? "ok" : err);
        if (m && i == 0) {
            ok = mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
            CHECK(ok, "EXAONE 4: all %d tensors mapped with their values (post_attention_layernorm -> post_attention_norm, post_feedforward_layernorm -> "
                  "post_ffw_norm, per-head q_norm / k_norm of 4 values, no input norms), q/k not permuted; srti_check_llama passes (%s)", mx_n, ok ? "ok" : why);
        }
        srti_close(m);
        {
            float lg[TV];
            srt_model_info info;
            memset(&info, 0, sizeof info);
            ok = mx_pack_eval(dir, "", TMP "/exaone4.srt", lg, &info, arch, why, sizeof why);
            CHECK(ok && !strcmp(arch, "exaone4") && info.n_swa_layers == c[i].swa_layers && info.swa_window == (int)c[i].window,
                  "EXAONE 4, %s: packed, it loads with %d sliding layers of window %d and evaluates 5 tokens to finite logits (%s)", c[i].what,
                  info.n_swa_layers, info.swa_window, ok ? "ok" : why);
            remove(TMP "/exaone4.srt");
        }
    }
    path_in(p, sizeof p, TMP, "exaone4_random.json");
    write_text(p, "{\"architectures\":[\"Exaone4ForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":8,"
                  "\"num_attention_heads\":2,\"vocab_size\":300}");
    m = NULL;
    ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && m->hp.sliding_window == 4096 && m->hp.swa_pattern == 4 && m->hp.rope_theta == 10000.0f &&
         m->hp.norm_eps == 1e-5f && srti_find(m, "blk.0.attn_norm.weight") < 0 && srti_find(m, "blk.7.post_ffw_norm.weight") >= 0 &&
         srti_find(m, "blk.0.attn_q_norm.weight") >= 0 && m->tensors[srti_find(m, "blk.0.attn_q_norm.weight")].ne[0] == 4 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random EXAONE 4: Exaone4Config's defaults (window 4096, pattern 4, rope_theta 1e4, eps 1e-5), output norms only, per-head q/k norms; "
          "checked (%s)", ok ? "ok" : err);
    srti_close(m);
    remove(p);
    if (!remove_tree(dir)) CHECK(0, "clean up");
}

/* ExaoneForCausalLM (EXAONE 3.0 / 3.5): the dense Llama twin of the tiny Mixtral folder written
   under EXAONE's names (transformer.wte / ln_f, transformer.h.N.ln_1, attn.attention.*_proj,
   ln_2, mlp.c_fc_0 / c_fc_1 / c_proj) with its config keys (num_layers, layer_norm_epsilon,
   activation_function). It opens as exaone with NeoX rope and q/k rows as stored; packed, its
   logits are the Llama twin's (whose q/k rows are permuted for adjacent-pair rope: the same
   function, summed in another order). */
static void ex3_write(const char *dir, const char *config, const char *drop) {
    static const char *const dense_part[3] = {"mlp.c_fc_0", "mlp.c_fc_1", "mlp.c_proj"};
    static const struct { const char *ll, *ex; } part[] = {
        {"input_layernorm", "ln_1"}, {"post_attention_layernorm", "ln_2"}, {"self_attn.q_proj", "attn.attention.q_proj"},
        {"self_attn.k_proj", "attn.attention.k_proj"}, {"self_attn.v_proj", "attn.attention.v_proj"}, {"self_attn.o_proj", "attn.attention.out_proj"},
    };
    static char names[128][96];
    st_tensor t[128];
    int i, n = 0;
    size_t k;
    if (!fresh_dir(dir)) return;
    for (i = 0; i < mx_n; i++) {
        if (mx[i].expert == -2 || mx[i].expert > 0) continue;   /* the dense twin: expert 0 as the FFN */
        if (!strcmp(mx[i].hf, "model.embed_tokens.weight")) snprintf(names[n], sizeof names[n], "transformer.wte.weight");
        else if (!strcmp(mx[i].hf, "model.norm.weight")) snprintf(names[n], sizeof names[n], "transformer.ln_f.weight");
        else if (!strcmp(mx[i].hf, "lm_head.weight")) snprintf(names[n], sizeof names[n], "lm_head.weight");
        else if (mx[i].expert == 0) snprintf(names[n], sizeof names[n], "transformer.h.%d.%s.weight", mx[i].layer, dense_part[mx[i].part]);
        else
            for (k = 0; k < sizeof part / sizeof part[0]; k++) {
                char ll[96];
                snprintf(ll, sizeof ll, "model.layers.%d.%s.weight", mx[i].layer, part[k].ll);
                if (!strcmp(mx[i].hf, ll)) snprintf(names[n], sizeof names[n], "transformer.h.%d.%s.weight", mx[i].layer, part[k].ex);
            }
        if (drop && !strcmp(names[n], drop)) continue;
        t[n].name = names[n]; t[n].dtype = mx[i].dtype; t[n].nd = mx[i].cols ? 2 : 1;
        t[n].shape[0] = mx[i].rows; t[n].shape[1] = mx[i].cols;
        t[n].data = mx[i].h ? (const void *)mx[i].h : (const void *)mx[i].f;
        n++;
    }
    write_folder(dir, config, t, n);
}
static void ex3_config(char *buf, size_t cap, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"ExaoneForCausalLM\"],\"model_type\":\"exaone\",\"hidden_size\":8,\"intermediate_size\":6,\"num_layers\":2,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":4,\"max_position_embeddings\":64,\"vocab_size\":16,"
             "\"tie_word_embeddings\":false,\"rope_theta\":10000.0%s}", extra);
}
static void test_exaone3(void) {
    char err[1024], dir[] = TMP "/exaone3", twin[] = TMP "/exaone3_llama", cfg[2048], why[512], arch[2][16];
    float lg[2][TV];
    srt_model_info info[2];
    srti_model *m;
    int ok;
    mx_tensors(1, 0);
    ex3_config(cfg, sizeof cfg, ",\"layer_norm_epsilon\":1e-06,\"activation_function\":\"silu\"");
    ex3_write(dir, cfg, NULL);
    m = open_dir(dir, err, sizeof err);
    ok = m && !strcmp(m->hp.arch, "exaone") && m->hp.rope_neox == 1 && m->hp.n_layer == 2 && m->hp.norm_eps == 1e-6f && m->n_tensors == 21 &&
         srti_find(m, "blk.1.ffn_up.weight") >= 0 && srti_find(m, "blk.0.attn_output.weight") >= 0 && srti_find(m, "output_norm.weight") >= 0 &&
         m->tensors[srti_find(m, "blk.0.attn_q.weight")].permute_heads == 0 && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "EXAONE 3.5 folder: exaone, NeoX rope, num_layers 2, layer_norm_epsilon 1e-6, its 21 tensors under Llama's GGUF names, q/k not permuted; "
          "srti_check_llama passes (%s)", ok ? "ok" : err);
    srti_close(m);
    memset(info, 0, sizeof info);
    ok = mx_pack_eval(dir, "", TMP "/exaone3.srt", lg[0], &info[0], arch[0], why, sizeof why);
    mx_config(cfg, sizeof cfg, 1, 1, "");
    mx_write(twin, cfg, NULL, 1);
    ok = ok && mx_pack_eval(twin, "", TMP "/exaone3_llama.srt", lg[1], &info[1], arch[1], why, sizeof why);
    CHECK(ok && !strcmp(arch[0], "exaone") && !strcmp(arch[1], "llama") && max_rel_diff(lg[0], lg[1], TV) < 1e-5,
          "EXAONE 3.5 packed: an exaone model whose logits are its Llama twin's (max rel diff %.2g) (%s)", ok ? max_rel_diff(lg[0], lg[1], TV) : -1.0,
          ok ? "ok" : why);
    remove(TMP "/exaone3.srt");
    remove(TMP "/exaone3_llama.srt");
    ex3_config(cfg, sizeof cfg, "");
    ex3_write(dir, cfg, NULL);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.norm_eps == 1e-5f, "EXAONE 3.5 without layer_norm_epsilon: ExaoneConfig's 1e-5 (%s)", m ? "ok" : err);
    srti_close(m);
    ex3_config(cfg, sizeof cfg, ",\"activation_function\":\"gelu\"");
    ex3_write(dir, cfg, NULL);
    refuse(dir, "activation_function \"gelu\" is not supported", "an EXAONE folder with activation_function gelu");
    ex3_config(cfg, sizeof cfg, ",\"num_hidden_layers\":2");
    {   /* num_layers is the key, not num_hidden_layers */
        char *p = strstr(cfg, "\"num_layers\":2,");
        if (p) memmove(p, p + 15, strlen(p + 15) + 1);
    }
    ex3_write(dir, cfg, NULL);
    refuse(dir, "num_layers", "an EXAONE folder with num_hidden_layers in place of num_layers");
    ex3_config(cfg, sizeof cfg, "");
    ex3_write(dir, cfg, "transformer.h.1.mlp.c_fc_1.weight");
    refuse_check(dir, "ffn_up", "an EXAONE folder without a layer's mlp.c_fc_1");
    ex3_config(cfg, sizeof cfg, "");
    mx_write(dir, cfg, NULL, 1);   /* Llama's names */
    refuse(dir, "has no place in a exaone model", "an ExaoneForCausalLM folder with Llama's tensor names");
    {   /* a random model from EXAONE 3.5's config keys */
        char p[512];
        path_in(p, sizeof p, TMP, "exaone3_random.json");
        write_text(p, "{\"architectures\":[\"ExaoneForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_layers\":3,"
                      "\"num_attention_heads\":2,\"vocab_size\":300}");
        m = NULL;
        ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && !strcmp(m->hp.arch, "exaone") && m->hp.n_layer == 3 && m->hp.rope_neox == 1 &&
             m->hp.norm_eps == 1e-5f && srti_find(m, "blk.2.ffn_gate.weight") >= 0 && srti_check_llama(m, err, sizeof err) == 0;
        CHECK(ok, "random EXAONE 3.5: num_layers 3, NeoX rope, eps 1e-5, Llama's tensors; checked (%s)", ok ? "ok" : err);
        srti_close(m);
        remove(p);
    }
    if (!remove_tree(dir) || !remove_tree(twin)) CHECK(0, "clean up");
}

/* Qwen2MoeForCausalLM: the tiny MoE folder as Qwen2 (QKV biases, no q/k norms) with a shared expert
   of width 10 (mlp.shared_expert.*_proj, its down BF16) and its gate mlp.shared_expert_gate [1, 8]:
   every tensor mapped with its values (the gate to the vector ffn_gate_inp_shexp), the settings
   read (norm_topk_prob false kept: no renormalization); packed (the gate f32) it runs; a folder
   without a shared expert matrix, or whose shared expert is narrower than the config says, is
   refused naming the tensor; a random one takes Qwen2MoeConfig's defaults. */
#define MXS 10   /* the shared expert's width */
static void qm_tensors(void) {
    static const char *const part[3] = {"gate_proj", "up_proj", "down_proj"}, *const gg_part[3] = {"gate", "up", "down"};
    char hf[96], gg[64];
    int l, x, k;
    mx_n = 0; mx_used = mx_used16 = 0;
    srt_test_rng = 4343;
    mx_add("model.embed_tokens.weight", "token_embd.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
    for (l = 0; l < MXL; l++) {
#define QMT(h, g, r, c, norm, ex, pt) snprintf(hf, sizeof hf, "model.layers.%d.%s", l, h); snprintf(gg, sizeof gg, "blk.%d.%s", l, g); \
                                       mx_add(hf, gg, r, c, norm, 0, l, ex, pt, NULL);
        QMT("input_layernorm.weight", "attn_norm.weight", MXE, 0, 1, -1, -1)
        QMT("self_attn.q_proj.weight", "attn_q.weight", MXE, MXE, 0, -1, -1)
        QMT("self_attn.q_proj.bias", "attn_q.bias", MXE, 0, 0, -1, -1)
        QMT("self_attn.k_proj.weight", "attn_k.weight", 4, MXE, 0, -1, -1)
        QMT("self_attn.k_proj.bias", "attn_k.bias", 4, 0, 0, -1, -1)
        QMT("self_attn.v_proj.weight", "attn_v.weight", 4, MXE, 0, -1, -1)
        QMT("self_attn.v_proj.bias", "attn_v.bias", 4, 0, 0, -1, -1)
        QMT("self_attn.o_proj.weight", "attn_output.weight", MXE, MXE, 0, -1, -1)
        QMT("post_attention_layernorm.weight", "ffn_norm.weight", MXE, 0, 1, -1, -1)
        QMT("mlp.gate.weight", "ffn_gate_inp.weight", MXN, MXE, 0, -2, -1)
        QMT("mlp.shared_expert_gate.weight", "ffn_gate_inp_shexp.weight", 1, MXE, 0, -1, -1)
        QMT("mlp.shared_expert.gate_proj.weight", "ffn_gate_shexp.weight", MXS, MXE, 0, -1, -1)
        QMT("mlp.shared_expert.up_proj.weight", "ffn_up_shexp.weight", MXS, MXE, 0, -1, -1)
        QMT("mlp.shared_expert.down_proj.weight", "ffn_down_shexp.weight", MXE, MXS, 0, -1, 2)
#undef QMT
        for (x = 0; x < MXN; x++)
            for (k = 0; k < 3; k++) {
                snprintf(hf, sizeof hf, "model.layers.%d.mlp.experts.%d.%s.weight", l, x, part[k]);
                snprintf(gg, sizeof gg, "blk.%d.ffn_%s.%d.weight", l, gg_part[k], x);
                mx_add(hf, gg, k == 2 ? MXE : MXF, k == 2 ? MXF : MXE, 0, 0, l, x, k, NULL);
            }
    }
    mx_add("model.norm.weight", "output_norm.weight", MXE, 0, 1, 0, -1, -1, -1, NULL);
    mx_add("lm_head.weight", "output.weight", TV, MXE, 0, 0, -1, -1, -1, NULL);
}
static void qm_config(char *buf, size_t cap, int shared_width) {
    snprintf(buf, cap, "{\"architectures\":[\"Qwen2MoeForCausalLM\"],\"model_type\":\"qwen2_moe\",\"hidden_size\":8,\"intermediate_size\":16,"
             "\"num_hidden_layers\":2,\"num_attention_heads\":2,\"num_key_value_heads\":1,\"rms_norm_eps\":1e-06,\"max_position_embeddings\":64,"
             "\"vocab_size\":16,\"tie_word_embeddings\":false,\"hidden_act\":\"silu\",\"num_experts\":4,\"num_experts_per_tok\":2,"
             "\"moe_intermediate_size\":6,\"shared_expert_intermediate_size\":%d,\"norm_topk_prob\":false,\"decoder_sparse_step\":1,"
             "\"mlp_only_layers\":[],\"use_sliding_window\":false,\"rope_theta\":1000000.0}", shared_width);
}
static void test_qwen2moe(void) {
    char err[1024], dir[] = TMP "/qwen2moe", cfg[2048], why[512], p[512], arch[16];
    srti_model *m;
    int ok;
    qm_tensors();
    qm_config(cfg, sizeof cfg, MXS);
    mx_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m != NULL, "tiny Qwen2-MoE folder opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(!strcmp(m->hp.arch, "qwen2moe") && m->hp.n_expert == MXN && m->hp.n_expert_used == 2 && m->hp.n_ff_exp == MXF && m->hp.n_ff_shexp == MXS &&
              m->hp.expert_weights_norm == 0 && m->hp.rope_neox == 1 && m->hp.rope_theta == 1e6f && m->hp.tied_output == 0,
              "Qwen2-MoE hyper-parameters: qwen2moe, 4 experts of width 6, 2 used, shared expert of width 10, not renormalized, NeoX rope");
        ok = mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
        CHECK(ok, "Qwen2-MoE: all %d tensors mapped (shared_expert.*_proj -> ffn_*_shexp, shared_expert_gate [1, 8] -> ffn_gate_inp_shexp), "
              "values equal, QKV biases; srti_check_llama passes (%s)", mx_n, ok ? "ok" : why);
    }
    srti_close(m);
    {
        float lg[TV];
        srt_model_info info;
        memset(&info, 0, sizeof info);
        ok = mx_pack_eval(dir, "", TMP "/qwen2moe.srt", lg, &info, arch, why, sizeof why);
        CHECK(ok && !strcmp(arch, "qwen2moe") && info.n_expert == MXN && info.n_ff == MXF &&
              srt_file_format(TMP "/qwen2moe.srt", "blk.1.ffn_gate_inp_shexp.weight") == SRT_F32 &&
              srt_file_format(TMP "/qwen2moe.srt", "blk.1.ffn_down_shexp.weight") == SRT_F16,
              "srt-pack packs the Qwen2-MoE folder (the shared gate f32, the shared expert f16); it loads and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
        remove(TMP "/qwen2moe.srt");
    }
    mx_write(dir, cfg, "model.layers.1.mlp.shared_expert.up_proj.weight", 0);
    refuse_check(dir, "tensor 'blk.1.ffn_up_shexp.weight' is missing", "a Qwen2-MoE folder without layer 1's shared expert up_proj");
    qm_config(cfg, sizeof cfg, 12);
    mx_write(dir, cfg, NULL, 0);
    refuse_check(dir, "tensor 'blk.0.ffn_gate_shexp.weight' has shape [8, 10, 1, 1], expected [8, 12]", "a shared expert narrower than shared_expert_intermediate_size");
    path_in(p, sizeof p, TMP, "qwen2moe_random.json");
    write_text(p, "{\"architectures\":[\"Qwen2MoeForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                  "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"vocab_size\":300}");
    m = NULL;
    ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && m->hp.n_expert == 60 && m->hp.n_expert_used == 4 && m->hp.n_ff_exp == 1408 &&
         m->hp.n_ff_shexp == 5632 && m->hp.expert_weights_norm == 0 && m->hp.n_ctx == 32768 && m->n_tensors == 3 + 6 + 3 + 1 + 3 * 60 + 4 &&
         srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random Qwen2-MoE: Qwen2MoeConfig's defaults (60 experts, 4 used, width 1408, shared 5632, not renormalized, 32768 positions); "
          "biases, router, experts and the shared expert, checked (%s)", ok ? "ok" : err);
    srti_close(m);
    remove(p);
    if (!remove_tree(TMP "/qwen2moe")) CHECK(0, "clean up");
}

static void test_moe(void) {
    char err[1024], dir[] = TMP "/moe", cfg[2048], why[512], p[512], arch[16];
    srti_model *m;
    int ok, mixtral;
    for (mixtral = 0; mixtral < 2; mixtral++) {
        const char *what = mixtral ? "Mixtral" : "Qwen3-MoE";
        mx_tensors(mixtral, 0);
        mx_config(cfg, sizeof cfg, mixtral, 0, "");
        mx_write(dir, cfg, NULL, 0);
        m = open_dir(dir, err, sizeof err);
        CHECK(m != NULL, "tiny %s folder opens (%s)", what, m ? "ok" : err);
        if (!m) continue;
        CHECK(!strcmp(m->hp.arch, mixtral ? "llama" : "qwen3moe") && m->hp.n_embd == MXE && m->hp.n_layer == MXL && m->hp.n_head == 2 &&
              m->hp.n_head_kv == 1 && m->hp.head_dim == 4 && m->hp.n_ff == (mixtral ? MXF : 16) && m->hp.n_expert == MXN && m->hp.n_expert_used == 2 &&
              m->hp.n_ff_exp == MXF && m->hp.expert_weights_norm == 1 && m->hp.rope_neox == !mixtral && m->hp.tied_output == 0 && m->hp.n_vocab == TV &&
              m->hp.rope_theta == 10000.0f && m->hp.sliding_window == 0,
              "%s hyper-parameters: %s, 4 experts, 2 used, expert width 6 (%s), weights renormalized, %s rope", what, mixtral ? "llama" : "qwen3moe",
              mixtral ? "intermediate_size" : "moe_intermediate_size; intermediate_size 16 kept as n_ff", mixtral ? "Llama" : "NeoX");
        ok = mx_check_values(m, why, sizeof why) && srti_check_llama(m, why, sizeof why) == 0;
        CHECK(ok, "%s: all %d tensors mapped (router -> ffn_gate_inp, expert X's %s -> ffn_gate.X / ffn_up.X / ffn_down.X), values equal%s; "
              "srti_check_llama passes (%s)", what, mx_n, mixtral ? "w1 / w3 / w2" : "gate_proj / up_proj / down_proj",
              mixtral ? ", q/k rows permuted as Llama's" : ", q/k in NeoX order", ok ? "ok" : why);
        srti_close(m);

        {   /* srt-pack: default f16, and q4 with the routers f32; both load and evaluate */
            float lg[TV];
            srt_model_info info;
            uint32_t ec = 0, eu = 0, ef = 0, en = 9;
            char key[64];
            srt_model *sm = NULL;
            srt_model_desc md;
            memset(&info, 0, sizeof info);
            ok = mx_pack_eval(dir, "", TMP "/moe.srt", lg, &info, arch, why, sizeof why);
            CHECK(ok && !strcmp(arch, mixtral ? "llama" : "qwen3moe") && info.n_expert == MXN && info.n_expert_used == 2 && info.n_ff == MXF,
                  "srt-pack packs the %s folder (f16); it loads with 4 experts, 2 used, width 6, and evaluates 5 tokens to finite logits (%s)", what, ok ? "ok" : why);
            memset(&md, 0, sizeof md);
            md.n_threads = 1;
            if (ok && srt_model_load(TMP "/moe.srt", &md, &sm) == SRT_OK) {
                const char *a = mixtral ? "llama" : "qwen3moe";
                snprintf(key, sizeof key, "%s.expert_count", a); srt_model_meta_u32(sm, key, &ec);
                snprintf(key, sizeof key, "%s.expert_used_count", a); srt_model_meta_u32(sm, key, &eu);
                snprintf(key, sizeof key, "%s.expert_feed_forward_length", a); srt_model_meta_u32(sm, key, &ef);
                snprintf(key, sizeof key, "%s.expert_weights_norm", a); srt_model_meta_u32(sm, key, &en);
            }
            srt_model_free(sm);
            CHECK(ec == MXN && eu == 2 && ef == MXF && en == 1, "%s metadata: expert_count 4, expert_used_count 2, expert_feed_forward_length 6, "
                  "expert_weights_norm 1", what);
            CHECK(srt_file_format(TMP "/moe.srt", "blk.1.ffn_gate_inp.weight") == SRT_F32 && srt_file_format(TMP "/moe.srt", "blk.1.ffn_up.3.weight") == SRT_F16,
                  "%s f16: routers f32, experts f16", what);
            ok = mx_pack_eval(dir, "--weights q4", TMP "/moe_q4.srt", lg, &info, arch, why, sizeof why);
            CHECK(ok && srt_file_format(TMP "/moe_q4.srt", "blk.0.ffn_gate_inp.weight") == SRT_F32 &&
                  srt_file_format(TMP "/moe_q4.srt", "blk.1.ffn_gate_inp.weight") == SRT_F32 && srt_file_format(TMP "/moe_q4.srt", "blk.0.ffn_down.2.weight") == SRT_Q4,
                  "srt-pack --weights q4 packs the %s folder: routers stay f32, experts q4; it evaluates to finite logits (%s)", what, ok ? "ok" : why);
            remove(TMP "/moe.srt");
            remove(TMP "/moe_q4.srt");
        }
        {   /* identical experts, weights renormalized: the dense model of that FFN */
            float lm[TV], ld[TV];
            srt_model_info info;
            double d = 1;
            int ok2;
            mx_tensors(mixtral, 1);
            mx_config(cfg, sizeof cfg, mixtral, 0, "");
            mx_write(dir, cfg, NULL, 0);
            ok = mx_pack_eval(dir, "--weights f32", TMP "/moe.srt", lm, &info, arch, why, sizeof why);
            mx_config(cfg, sizeof cfg, mixtral, 1, "");
            mx_write(dir, cfg, NULL, 1);
            ok = ok && mx_pack_eval(dir, "--weights f32", TMP "/dense.srt", ld, &info, arch, why, sizeof why) && info.n_expert == 0;
            if (ok) d = max_rel_diff(lm, ld, TV);
            CHECK(ok && d < 1e-5, "%s with 4 identical experts equals its dense twin (%s of one FFN): logits within %.2g (%s)", what,
                  mixtral ? "LlamaForCausalLM" : "Qwen3ForCausalLM", d, ok ? "ok" : why);
            if (!mixtral) {   /* norm_topk_prob false: the 2 picked probabilities (summing to < 1) as they are */
                mx_config(cfg, sizeof cfg, 0, 0, ",\"norm_topk_prob\":false");
                mx_write(dir, cfg, NULL, 0);
                m = open_dir(dir, err, sizeof err);
                ok2 = m && m->hp.expert_weights_norm == 0;
                srti_close(m);
                ok = ok2 && mx_pack_eval(dir, "--weights f32", TMP "/moe.srt", lm, &info, arch, why, sizeof why);
                if (ok) d = max_rel_diff(lm, ld, TV);
                CHECK(ok && d > 1e-3, "Qwen3-MoE with norm_topk_prob false: expert_weights_norm 0, and the identical experts no longer add up to the dense "
                      "model (logits differ by %.2g) (%s)", d, ok ? "ok" : why);
            }
            remove(TMP "/moe.srt");
            remove(TMP "/dense.srt");
        }

        /* refusals, each naming what is wrong */
        mx_tensors(mixtral, 0);
        mx_config(cfg, sizeof cfg, mixtral, 0, "");
        snprintf(p, sizeof p, mixtral ? "model.layers.1.block_sparse_moe.experts.3.w3.weight" : "model.layers.1.mlp.experts.3.up_proj.weight");
        mx_write(dir, cfg, p, 0);
        refuse_check(dir, "tensor 'blk.1.ffn_up.3.weight' is missing", mixtral ? "a Mixtral folder without layer 1's expert 3 w3" :
                     "a Qwen3-MoE folder without layer 1's expert 3 up_proj");
        snprintf(p, sizeof p, mixtral ? "model.layers.0.block_sparse_moe.gate.weight" : "model.layers.0.mlp.gate.weight");
        mx_write(dir, cfg, p, 0);
        refuse_check(dir, "tensor 'blk.0.ffn_gate_inp.weight' is missing", mixtral ? "a Mixtral folder without layer 0's router" :
                     "a Qwen3-MoE folder without layer 0's router");
        mx_refuse_config(dir, mixtral, ",\"num_experts_per_tok\":5", "\"num_experts_per_tok\" = 5 is out of range (1..4)", "5 experts per token of 4");
        mx_refuse_config(dir, mixtral, ",\"num_experts_per_tok\":0", "\"num_experts_per_tok\" = 0 is out of range (1..4)", "0 experts per token");
        mx_refuse_config(dir, mixtral, mixtral ? ",\"num_local_experts\":4097" : ",\"num_experts\":4097", mixtral ? "\"num_local_experts\" = 4097 is out of range (1..4096)" : "\"num_experts\" = 4097 is out of range (1..4096)", "4097 experts");
        mx_refuse_config(dir, mixtral, mixtral ? ",\"num_experts\":8" : ",\"num_local_experts\":8", "disagree", "num_experts and num_local_experts that differ");
        mx_config(cfg, sizeof cfg, mixtral, 0, mixtral ? ",\"intermediate_size\":7" : ",\"moe_intermediate_size\":7");
        mx_write(dir, cfg, NULL, 0);
        refuse_check(dir, "tensor 'blk.0.ffn_gate.0.weight' has shape [8, 6, 1, 1], expected [8, 7]", "experts narrower than the config's width");
        mx_add(mixtral ? "model.layers.1.block_sparse_moe.experts.4.w1.weight" : "model.layers.1.mlp.experts.4.gate_proj.weight", "", MXF, MXE, 0, 0, 1, 4, 0, NULL);
        mx_config(cfg, sizeof cfg, mixtral, 0, "");
        mx_write(dir, cfg, NULL, 0);
        refuse(dir, mixtral ? "'model.layers.1.block_sparse_moe.experts.4.w1.weight' has no place in a llama model" :
               "'model.layers.1.mlp.experts.4.gate_proj.weight' has no place in a qwen3moe model", "a fifth expert of 4");
        mx_n--;
        mx_add("model.layers.0.mlp.gate_proj.weight", "", MXF, MXE, 0, 0, 0, -1, -1, NULL);
        mx_write(dir, cfg, NULL, 0);
        refuse(dir, mixtral ? "'model.layers.0.mlp.gate_proj.weight' has no place in a llama model" :
               "'model.layers.0.mlp.gate_proj.weight' has no place in a qwen3moe model", "a dense FFN's gate_proj beside the experts");
        mx_n--;
    }
    /* Qwen3-MoE only: layers with a dense FFN */
    mx_tensors(0, 0);
    mx_refuse_config(dir, 0, ",\"decoder_sparse_step\":2", "decoder_sparse_step 2 leaves layers with a dense FFN", "decoder_sparse_step 2");
    mx_refuse_config(dir, 0, ",\"mlp_only_layers\":[0]", "mlp_only_layers is not empty", "mlp_only_layers [0]");
    mx_refuse_config(dir, 0, ",\"mlp_only_layers\":1", "mlp_only_layers must be a list", "mlp_only_layers 1 (not a list)");
    mx_refuse_config(dir, 0, ",\"moe_intermediate_size\":0", "\"moe_intermediate_size\" = 0 is out of range", "moe_intermediate_size 0");
    mx_refuse_config(dir, 0, ",\"norm_topk_prob\":1", "\"norm_topk_prob\" must be true or false", "norm_topk_prob 1 (not a bool)");
    /* Mixtral only: a sliding_window is ignored as Mistral's (neither recorded nor applied) */
    mx_tensors(1, 0);
    mx_config(cfg, sizeof cfg, 1, 0, ",\"sliding_window\":4096");
    mx_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    CHECK(m && m->hp.sliding_window == 0 && srti_check_llama(m, err, sizeof err) == 0, "Mixtral's sliding_window 4096 is ignored as Mistral's (%s)", m ? "ok" : err);
    srti_close(m);

    /* random models: transformers' defaults for what the config leaves out; srt-pack --random */
    {
        static const struct { const char *cfg, *what; uint32_t experts, used, width, ctx; int norm; float theta, eps; } rnd[] = {
            {"{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":4,\"vocab_size\":300}",
             "Qwen3MoeConfig's: 128 experts, 8 used, width 768, norm_topk_prob false, 32768 positions", 128, 8, 768, 32768, 0, 10000.0f, 1e-6f},
            {"{\"architectures\":[\"MixtralForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
             "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"vocab_size\":300}",
             "MixtralConfig's: 8 experts, 2 used, width intermediate_size, rope theta 1e6, eps 1e-5, 131072 positions", 8, 2, 16, 131072, 1, 1e6f, 1e-5f},
        };
        int r;
        path_in(p, sizeof p, TMP, "moe_random.json");
        for (r = 0; r < 2; r++) {
            write_text(p, rnd[r].cfg);
            m = NULL;
            ok = srti_open_random(p, 3, &m, err, sizeof err) == 0;
            ok = ok && m->hp.n_expert == rnd[r].experts && m->hp.n_expert_used == rnd[r].used && (m->hp.n_ff_exp ? m->hp.n_ff_exp : m->hp.n_ff) == rnd[r].width &&
                 m->hp.expert_weights_norm == rnd[r].norm && m->hp.n_ctx == rnd[r].ctx && m->hp.rope_theta == rnd[r].theta && m->hp.norm_eps == rnd[r].eps &&
                 m->n_tensors == 3 + 6 + (r ? 0 : 2) + 1 + 3 * rnd[r].experts && srti_check_llama(m, err, sizeof err) == 0;
            CHECK(ok, "random %s: defaults %s; the router and every expert, checked (%s)", r ? "Mixtral" : "Qwen3-MoE", rnd[r].what, ok ? "ok" : err);
            srti_close(m);
        }
        for (r = 0; r < 2; r++) {   /* the other class's spelling of the expert count (transformers' attribute_map) */
            write_text(p, r ? "{\"architectures\":[\"MixtralForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                              "\"num_attention_heads\":2,\"vocab_size\":300,\"num_experts\":16,\"num_experts_per_tok\":3}"
                            : "{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                              "\"num_attention_heads\":2,\"vocab_size\":300,\"num_local_experts\":16,\"num_experts_per_tok\":3}");
            m = NULL;
            ok = srti_open_random(p, 3, &m, err, sizeof err) == 0 && m->hp.n_expert == 16 && m->hp.n_expert_used == 3;
            CHECK(ok, "%s: %s 16 gives 16 experts (%s)", r ? "Mixtral" : "Qwen3-MoE", r ? "num_experts" : "num_local_experts", ok ? "ok" : err);
            srti_close(m);
        }
        write_text(p, "{\"architectures\":[\"Qwen3MoeForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":300,"
                   "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"head_dim\":4,\"vocab_size\":300,\"num_experts\":4096,\"num_experts_per_tok\":8}");
        m = NULL;
        ok = srti_open_random(p, 3, &m, err, sizeof err) != 0 && strstr(err, "more than the 262144 tensors a random model may have") != NULL;
        CHECK(ok, "a random model of 300 layers of 4096 experts is refused: %s", m ? "(opened)" : err);
        srti_close(m);
        mx_config(cfg, sizeof cfg, 0, 0, "");
        write_text(p, cfg);
        {
            float lg[TV];
            srt_model_info info;
            memset(&info, 0, sizeof info);
            ok = mx_pack_eval(p, "--random", TMP "/moe_random.srt", lg, &info, arch, why, sizeof why);
            CHECK(ok && !strcmp(arch, "qwen3moe") && info.n_expert == MXN && info.n_expert_used == 2 && info.n_ff == MXF &&
                  srt_file_format(TMP "/moe_random.srt", "blk.1.ffn_gate_inp.weight") == SRT_F32,
                  "srt-pack --random on a tiny Qwen3-MoE config: qwen3moe, 4 experts, 2 used, f32 routers; it evaluates to finite logits (%s)", ok ? "ok" : why);
        }
        remove(TMP "/moe_random.srt");
        remove(p);
    }
    if (!remove_tree(TMP "/moe")) CHECK(0, "clean up");
}

/* ---------------------------------------------------------------- malformed folders */
static void test_malformed(void) {
    char dir[] = TMP "/bad", p[512], cfg[1024];
    st_tensor t[20];
    int n;
    unsigned char junk[64];
    memset(junk, 0, sizeof junk);
    refuse("/config.json", "neither config.json nor tokenizer.json", "a config.json in the root folder (no such file here; its folder's name, \"/\", once overflowed)");

    make_tiny(dir, "LlamaForCausalLM", NULL);
    n = tiny_tensors(t, 0, 0);
    path_in(p, sizeof p, dir, "model.safetensors");
    /* header length beyond the file */
    { unsigned char b[16] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, '{', '}'}; write_file(p, b, 10); }
    refuse(dir, "header length 65535 does not fit in the file", "a header length beyond the file");
    write_file(p, junk, 5);
    refuse(dir, "too small for a safetensors file", "a 5-byte safetensors file");
    st_raw(p, "[1,2,3] ", NULL, 0);
    refuse(dir, "does not start with '{'", "a header that is not an object");
    st_raw(p, "{\"a\":1,}", NULL, 0);
    refuse(dir, "header: JSON error at byte 7", "a header with a JSON syntax error");
    st_raw(p, "{\"x\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,2]}}", junk, 2);
    refuse(dir, "unknown dtype \"Q4\"", "an unknown dtype");
    st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"I8\",\"shape\":[8],\"data_offsets\":[0,8]}}", junk, 8);
    refuse(dir, "has dtype I8; only F32, F16 and BF16", "an integer weight");
    st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[0,16]}}", junk, 16);
    refuse(dir, "hold 16 bytes, but 8 F32 values need 32", "offsets that do not match the shape");
    st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[0,32]}}", junk, 16);
    refuse(dir, "data_offsets must be 0 <= begin <= end <= 16", "offsets beyond the data");
    st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[8]}}", junk, 32);
    refuse(dir, "needs \"dtype\", \"shape\" and \"data_offsets\"", "a tensor without data_offsets");
    st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[-8],\"data_offsets\":[0,32]}}", junk, 32);
    refuse(dir, "shape entry 0 is not a sane dimension", "a negative dimension");
    {   /* overlapping tensors, a gap, trailing bytes */
        const char *ov = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},\"b\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}";
        const char *gap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}";
        unsigned char d[64];
        memset(d, 0, sizeof d);
        write_safetensors_raw(p, ov, strlen(ov), d, 24);
        refuse(dir, "overlaps at offset 8", "overlapping data_offsets");
        write_safetensors_raw(p, gap, strlen(gap), d, 24);
        refuse(dir, "has a gap at offset 16", "a gap between tensors");
        st_raw(p, "{\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[0,32]}}", d, 40);
        refuse(dir, "the tensors end at data offset 32, but the file has 40 data bytes", "trailing data");
    }
    {   /* a duplicate tensor name in the header is a JSON duplicate key */
        const char *dup = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}";
        write_safetensors_raw(p, dup, strlen(dup), junk, 8);
        refuse(dir, "duplicate key \"a\"", "a tensor named twice");
    }
    t[0].name = "model.embed_tokens.bias";
    write_safetensors(p, t, n);
    refuse(dir, "tensor 'model.embed_tokens.bias' has no place in a llama model", "an unknown tensor name");
    t[0].name = "model.layers.5.input_layernorm.weight";
    write_safetensors(p, t, n);
    refuse(dir, "has no place", "a layer beyond num_hidden_layers");
    t[0].name = "model.embed_tokens.weight";
    t[2].shape[0] = 6;   /* q_proj rows 6 with 2 heads: heads of 3 rows cannot be permuted */
    write_safetensors(p, t, n);
    refuse(dir, "6 rows do not split into 2 heads of even size", "a q_proj whose rows do not split into heads");
    t[2].shape[0] = 8;

    /* sharded: bad index entries */
    path_in(p, sizeof p, dir, "model.safetensors");
    if (remove(p) != 0) return;
    {
        char err[1024];
        srti_model *m = open_dir(dir, err, sizeof err);
        CHECK(m && m->n_tensors == 0 && m->vocab.n_tokens == 16, "a folder without weights opens as a vocabulary (%s)", m ? "ok" : err);
        srti_close(m);
    }
    path_in(p, sizeof p, dir, "model.safetensors.index.json");
    write_text(p, "{\"weight_map\":{\"model.norm.weight\":\"../model.safetensors\"}}");
    refuse(dir, "a plain *.safetensors file name is required", "a shard path outside the folder");
    write_text(p, "{\"weight_map\":{\"model.norm.weight\":\"model-00001-of-00002.safetensors\"}}");
    refuse(dir, "model-00001-of-00002.safetensors: cannot open the file", "a missing shard");
    write_text(p, "{\"weight_map\":{}}");
    refuse(dir, "\"weight_map\" must be a non-empty object", "an empty weight map");
    {
        char s1[512];
        path_in(s1, sizeof s1, dir, "model-00001-of-00002.safetensors");
        write_safetensors(s1, t, n);
        write_text(p, "{\"weight_map\":{\"model.norm.weight\":\"model-00001-of-00002.safetensors\",\"lm_head.weight\":\"model-00001-of-00002.safetensors\"}}");
        refuse(dir, "the index lists tensor 'lm_head.weight' in model-00001-of-00002.safetensors, which does not hold it", "an index entry missing from its shard");
        write_text(p, "{\"weight_map\":{\"model.norm.weight\":\"model-00002-of-00002.safetensors\",\"model.embed_tokens.weight\":\"model-00001-of-00002.safetensors\"}}");
        path_in(s1, sizeof s1, dir, "model-00002-of-00002.safetensors");
        write_safetensors(s1, t + 10, 1);
        refuse(dir, "tensor 'model.norm.weight' is here, but the index puts it in model-00002-of-00002.safetensors", "a tensor in the wrong shard");
    }
    {
        static const char *const gone[3] = {"model.safetensors.index.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
        int k;
        for (k = 0; k < 3; k++) { path_in(p, sizeof p, dir, gone[k]); if (remove(p) != 0) return; }
        path_in(p, sizeof p, dir, "pytorch_model.bin");
        if (!write_text(p, "")) return;
    }
    refuse(dir, "only safetensors are read", "PyTorch pickle weights");

    /* config.json problems */
    make_tiny(dir, "LlamaForCausalLM", NULL);
    path_in(p, sizeof p, dir, "config.json");
    tiny_config(cfg, sizeof cfg, "GPT2LMHeadModel", "");
    write_text(p, cfg);
    refuse(dir, "architecture \"GPT2LMHeadModel\" is not supported", "an unsupported architecture with weights");
    refuse_tiny_config(dir, ",\"mlp_bias\":true", "mlp_bias is not supported", "mlp_bias");
    write_text(p, "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_act\":\"gelu\",\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,\"num_attention_heads\":2}");
    refuse(dir, "hidden_act \"gelu\" is not supported", "a gelu model");
    write_text(p, "{\"architectures\":[\"LlamaForCausalLM\"],\"intermediate_size\":16,\"num_hidden_layers\":1,\"num_attention_heads\":2}");
    refuse(dir, "\"hidden_size\" is missing", "a config without hidden_size");
    write_text(p, "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":8.5,\"intermediate_size\":16,\"num_hidden_layers\":1,\"num_attention_heads\":2}");
    refuse(dir, "\"hidden_size\" must be an integer (it is a fraction", "a fractional hidden_size");
    write_text(p, "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,\"num_attention_heads\":2,\"num_key_value_heads\":3}");
    refuse(dir, "num_attention_heads 2 is not a multiple of num_key_value_heads 3", "heads that do not group");
    write_text(p, "{\"architectures\":[\"LlamaForCausalLM\"], \"hidden_size\":8,");
    refuse(dir, "config.json: JSON error at byte 55", "a truncated config.json");
    tiny_config(cfg, sizeof cfg, "LlamaForCausalLM", "");
    write_text(p, cfg);
    path_in(p, sizeof p, dir, "tokenizer.json");
    write_text(p, "{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}");
    refuse(dir, "tokenizer model \"Unigram\" is not supported", "a Unigram tokenizer");
    write_text(p, "{\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\w+\"},\"behavior\":\"Isolated\"},\"decoder\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}");
    refuse(dir, "unknown pre-tokenizer (Split(\\w+)|)", "an unknown pre-tokenizer");
    write_text(p, "{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":0},\"merges\":[]}}");
    refuse(dir, "id 0 is used by \"a\" and \"b\"", "two tokens with one id");
    write_text(p, "{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[\"ab\"]}}");
    refuse(dir, "merge 0 \"ab\" is not \"a b\"", "a merge without a space");
    write_text(p, "{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"z\":99},\"merges\":[]}}");
    refuse(dir, "token id 99 is outside config.json's vocab_size 16", "a token id beyond vocab_size");
    remove_tree(dir);
}

/* ---------------------------------------------------------------- tokenizer.json variants */
static srti_model *tok_folder(const char *tokenizer, const char *tok_config, const char *jinja, int vocab_size, char *err, size_t errlen) {
    char dir[] = TMP "/tok", p[512], cfg[300];
    if (!fresh_dir(dir)) return NULL;
    path_in(p, sizeof p, dir, "tokenizer.json"); write_text(p, tokenizer);
    if (tok_config) { path_in(p, sizeof p, dir, "tokenizer_config.json"); write_text(p, tok_config); }
    if (jinja) { path_in(p, sizeof p, dir, "chat_template.jinja"); write_text(p, jinja); }
    if (vocab_size) {
        snprintf(cfg, sizeof cfg, "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":8,\"intermediate_size\":16,\"num_hidden_layers\":1,"
                 "\"num_attention_heads\":2,\"vocab_size\":%d,\"bos_token_id\":1,\"eos_token_id\":[2,3]}", vocab_size);
        path_in(p, sizeof p, dir, "config.json"); write_text(p, cfg);
    }
    return open_dir(dir, err, errlen);
}

static void test_tokenizers(void) {
    char err[1024];
    srti_model *m;
    const char *llama3_pre = "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":"
        "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
        "\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":false}]}";
    const char *qwen2_pre = "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":"
        "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
        "\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":false}]}";
    const char *coder_pre = "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":\"[\\r\\n]\"},\"behavior\":\"Isolated\",\"invert\":false},"
        "{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\s?\\\\p{L}+\"},\"behavior\":\"Isolated\",\"invert\":false},"
        "{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\s?\\\\p{P}+\"},\"behavior\":\"Isolated\",\"invert\":false},"
        "{\"type\":\"Split\",\"pattern\":{\"Regex\":\"[\xe4\xb8\x80-\xe9\xbe\xa5\xe0\xa0\x80-\xe4\xb8\x80\xea\xb0\x80-\xed\x9f\xbf]+\"},\"behavior\":\"Isolated\",\"invert\":false},"
        "{\"type\":\"Digits\",\"individual_digits\":true},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":false}]}";
    const char *falcon_pre = "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Punctuation\",\"behavior\":\"Contiguous\"},"
        "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},{\"type\":\"Digits\",\"individual_digits\":false},"
        "{\"type\":\"Split\",\"pattern\":{\"Regex\":\"[0-9][0-9][0-9]\"},\"behavior\":\"Isolated\",\"invert\":false}]}";
    const char *pres[4], *names[4];
    char tok[4096];
    int k;
    pres[0] = llama3_pre; names[0] = "llama-bpe";
    pres[1] = qwen2_pre; names[1] = "qwen2";
    pres[2] = coder_pre; names[2] = "deepseek-coder";
    pres[3] = falcon_pre; names[3] = "falcon";
    for (k = 0; k < 4; k++) {
        snprintf(tok, sizeof tok, "{\"pre_tokenizer\":%s,\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},\"merges\":[[\"a\",\"b\"]]}}", pres[k]);
        m = tok_folder(tok, NULL, NULL, 0, err, sizeof err);
        CHECK(m && !strcmp(m->vocab.model, "gpt2") && !strcmp(m->vocab.pre, names[k]), "pre-tokenizer -> tokenizer.ggml.pre \"%s\" (%s)", names[k], m ? m->vocab.pre : err);
        srti_close(m);
    }

    /* merges as pairs (a space inside a piece becomes U+0120), added tokens, PAD fill, special ids */
    m = tok_folder("{\"added_tokens\":[{\"id\":4,\"content\":\"<|im_start|>\",\"special\":false},{\"id\":5,\"content\":\"hello\xe2\x96\x81world\",\"special\":false},"
                   "{\"id\":1,\"content\":\"<s>\",\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}],"
                   "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"use_regex\":true},\"post_processor\":{\"type\":\"TemplateProcessing\","
                   "\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]},"
                   "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a b\":0,\"c\":3,\"a bc\":6},\"merges\":[[\"a b\",\"c\"]]}}",
                   "{\"chat_template\":[{\"name\":\"tool_use\",\"template\":\"T\"},{\"name\":\"default\",\"template\":\"{{ messages }}\"}],"
                   "\"bos_token\":{\"content\":\"<s>\",\"lstrip\":false},\"eos_token\":\"</s>\"}", NULL, 10, err, sizeof err);
    CHECK(m != NULL, "tokenizer with added tokens opens (%s)", m ? "ok" : err);
    if (m) {
        CHECK(m->vocab.n_merges == 1 && !strcmp(m->vocab.merges[0], "a\xc4\xa0" "b c"), "[\"a b\", \"c\"] becomes \"a\\u0120b c\" (%s)", m->vocab.n_merges ? m->vocab.merges[0] : "-");
        CHECK(m->vocab.n_tokens == 10 && m->vocab.types[4] == SRTI_TOKEN_CONTROL && m->vocab.types[5] == SRTI_TOKEN_USER_DEFINED &&
              !strcmp(m->vocab.tokens[5], "hello world") && m->vocab.types[1] == SRTI_TOKEN_CONTROL && m->vocab.types[6] == SRTI_TOKEN_NORMAL,
              "types: <|...|> looks special (control), other added tokens user-defined with U+2581 as space");
        CHECK(!strcmp(m->vocab.tokens[7], "[PAD7]") && m->vocab.types[9] == SRTI_TOKEN_UNUSED, "ids up to config vocab_size 10 filled with unused [PADn]");
        CHECK(m->vocab.bos == 1 && m->vocab.eos == 2 && m->vocab.add_bos == 1 && m->vocab.add_eos == 0,
              "bos/eos from tokenizer_config (object and string), add_bos from the TemplateProcessing post-processor");
        CHECK(m->vocab.chat_template && !strcmp(m->vocab.chat_template, "{{ messages }}"), "the \"default\" chat template of a list is taken");
    }
    srti_close(m);
    m = tok_folder("{\"pre_tokenizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"c\":2,\"d\":3},\"merges\":[]}}",
                   "{\"add_bos_token\":false}", "{% for m in messages %}{{ m.content }}{% endfor %}", 4, err, sizeof err);
    CHECK(m && m->vocab.bos == 1 && m->vocab.eos == 2 && m->vocab.add_bos == 0 && m->vocab.chat_template &&
          !strncmp(m->vocab.chat_template, "{% for m", 8), "ids from config.json (eos list: first), chat_template.jinja, add_bos_token false (%s)", m ? "ok" : err);
    srti_close(m);

    /* SentencePiece style (Llama 2 / Mistral tokenizer.json): llama model, byte tokens, scores */
    {
        sbuf t = {NULL, 0, 0};
        int i;
        sb_add(&t, "{\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\xe2\x96\x81\"},"
                   "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\xe2\x96\x81\"}]},\"pre_tokenizer\":null,"
                   "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"ByteFallback\"}]},"
                   "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"unk_token\":\"<unk>\",\"vocab\":{\"<unk>\":0,\"<s>\":1,\"</s>\":2");
        for (i = 0; i < 256; i++) sb_add(&t, ",\"<0x%02X>\":%d", i, 3 + i);
        sb_add(&t, ",\"\xe2\x96\x81\":259,\"a\":260,\"b\":261,\"\xe2\x96\x81" "a\":262,\"\xe2\x96\x81" "ab\":263,\"ba\":264},"
                   "\"merges\":[\"\xe2\x96\x81 a\",\"\xe2\x96\x81" "a b\"]},\"added_tokens\":[{\"id\":1,\"content\":\"<s>\",\"special\":true},{\"id\":2,\"content\":\"</s>\",\"special\":true}]}");
        m = tok_folder(t.p, "{\"bos_token\":\"<s>\",\"eos_token\":\"</s>\",\"add_bos_token\":true}", NULL, 265, err, sizeof err);
        free(t.p);
        CHECK(m && !strcmp(m->vocab.model, "llama") && m->vocab.pre[0] == 0 && m->vocab.n_merges == 0 && m->vocab.scores,
              "byte_fallback BPE becomes a \"llama\" vocabulary with scores, no merges (%s)", m ? m->vocab.model : err);
        if (m && m->vocab.scores) {
            CHECK(m->vocab.types[0] == SRTI_TOKEN_UNKNOWN && m->vocab.unk == 0 && m->vocab.types[3] == SRTI_TOKEN_BYTE && m->vocab.types[258] == SRTI_TOKEN_BYTE &&
                  m->vocab.types[1] == SRTI_TOKEN_CONTROL && m->vocab.types[260] == SRTI_TOKEN_NORMAL, "types: unknown, byte <0xNN>, control, normal");
            CHECK(m->vocab.scores[262] == 0.0f && m->vocab.scores[263] == -1.0f && m->vocab.scores[264] < -1e8f && m->vocab.scores[260] == 0.0f,
                  "scores: minus the merge rank; a piece no merge makes is never preferred");
            CHECK(m->vocab.add_space_prefix == 1 && m->vocab.add_bos == 1 && m->vocab.bos == 1, "Prepend(\\u2581) normalizer: add_space_prefix 1");
        }
        srti_close(m);
    }
    m = tok_folder("{\"pre_tokenizer\":{\"type\":\"Whitespace\"},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]}}", NULL, NULL, 0, err, sizeof err);
    CHECK(!m && strstr(err, "cannot tell the tokenizer family"), "refuses a BPE that is neither byte-level nor SentencePiece style: %s", err);
    srti_close(m);
    if (!remove_tree(TMP "/tok")) CHECK(0, "clean up");
}

/* Tokenizing with SmolLM2's own tokenizer.json (packed --vocab-only): its declared rules are GPT-2
   byte-level BPE after a Digits(individual) split, so words keep their leading space (" world"),
   digits come one by one, and every llama.cpp test text of the gpt-2 family round-trips. */
static int piece_is(srt_model *m, int32_t id, const char *s) {   /* the token's text is s */
    char b[64];
    int l = srt_token_bytes(m, id, b, (int)sizeof b);
    return l == (int)strlen(s) && memcmp(b, s, (size_t)l) == 0;
}
static void test_smollm2_tokenize(void) {
    srt_model *m = NULL;
    srt_model_desc md;
    int32_t ids[4096];
    int n = 0, ok = 1, texts = 0;
    char *inp, *t;
    memset(&md, 0, sizeof md);
    if (system("build/srt-pack -q --vocab-only " SMOL " build/tmp/smol_vocab.srt > build/tmp/smol_vocab.log 2>&1") != 0 ||
        srt_model_load("build/tmp/smol_vocab.srt", &md, &m) != SRT_OK) { CHECK(0, "SmolLM2 vocab packs and loads: %s", srt_last_error()); return; }
    srt_tokenize(m, "Hello world", 11, SRT_TOKENIZE_NO_BOS, ids, 4096, &n);
    CHECK(n == 2 && piece_is(m, ids[0], "Hello") && piece_is(m, ids[1], " world"), "SmolLM2: 'Hello world' is 'Hello' + ' world' (%d tokens)", n);
    srt_tokenize(m, "year 2024!", 10, SRT_TOKENIZE_NO_BOS, ids, 4096, &n);
    {
        int i, digits = 0;
        for (i = 0; i + 3 < n; i++)
            if (piece_is(m, ids[i], "2") && piece_is(m, ids[i + 1], "0") && piece_is(m, ids[i + 2], "2") && piece_is(m, ids[i + 3], "4")) digits = 1;
        CHECK(digits, "SmolLM2: digits are split one by one ('year 2024!' -> %d tokens)", n);
    }
    srt_tokenize(m, "<|im_start|>user", 16, SRT_TOKENIZE_NO_BOS | SRT_TOKENIZE_PARSE_SPECIAL, ids, 4096, &n);
    CHECK(n == 2 && ids[0] == 1 && piece_is(m, ids[1], "user"), "SmolLM2: <|im_start|> is token 1 when special tokens are parsed");
    inp = srt_test_read_file(SRT_SHARED "/tokenizer/ggml-vocab-gpt-2.gguf.inp", NULL);
    for (t = inp; t && *t; texts++) {
        char *sep = strstr(t, "\n__ggml_vocab_test__\n"), out[16384];
        size_t len = sep ? (size_t)(sep - t) : strlen(t), o = 0;
        int i;
        srt_tokenize(m, t, len, SRT_TOKENIZE_NO_BOS, ids, 4096, &n);
        for (i = 0; i < n; i++) {
            int l = srt_token_bytes(m, ids[i], out + o, (int)(sizeof out - o));
            if (l > 0) o += (size_t)l;
        }
        if (o != len || memcmp(out, t, len) != 0) ok = 0;
        if (!sep) break;
        t = sep + 21;
    }
    CHECK(inp && ok && texts > 30, "SmolLM2: all %d gpt-2 test texts round-trip through its tokenizer", texts);
    free(inp);
    srt_model_free(m);
    remove("build/tmp/smol_vocab.srt");
}

static void test_smollm2_tokenizer(void) {
    char err[1024];
    srti_model *m = open_dir(SMOL, err, sizeof err);
    int k, ok = 1;
    CHECK(m != NULL, "SmolLM2-135M-Instruct folder (config + tokenizer, no weights) opens (%s)", m ? "ok" : err);
    if (!m) return;
    CHECK(m->n_tensors == 0 && !strcmp(m->hp.arch, "llama") && m->hp.n_embd == 576 && m->hp.n_layer == 30 && m->hp.n_head == 9 &&
          m->hp.n_head_kv == 3 && m->hp.head_dim == 64 && m->hp.n_ff == 1536 && m->hp.n_ctx == 8192 && m->hp.rope_theta == 100000.0f,
          "SmolLM2 config: 576 wide, 30 layers, 9/3 heads of 64, FFN 1536, context 8192, rope theta 100000");
    CHECK(m->vocab.n_tokens == 49152 && m->vocab.n_merges == 48900, "SmolLM2 tokenizer: 49152 tokens, 48900 merges");
    CHECK(!strcmp(m->vocab.model, "gpt2") && !strcmp(m->vocab.pre, "smollm"), "SmolLM2 tokenizer: gpt2 with pre-tokenizer \"smollm\" (%s/%s)", m->vocab.model, m->vocab.pre);
    for (k = 0; k < 17; k++) ok = ok && m->vocab.types[k] == SRTI_TOKEN_CONTROL;
    for (k = 17; k < 49152; k++) ok = ok && m->vocab.types[k] == SRTI_TOKEN_NORMAL;
    CHECK(ok && !strcmp(m->vocab.tokens[1], "<|im_start|>") && !strcmp(m->vocab.tokens[2], "<|im_end|>") && !strcmp(m->vocab.tokens[16], "<empty_output>"),
          "SmolLM2 special tokens 0..16 are control tokens (<|endoftext|>, <|im_start|>, <|im_end|>, ..., <empty_output>), the rest normal");
    CHECK(m->vocab.bos == 1 && m->vocab.eos == 2 && m->vocab.pad == 2 && !strcmp(m->vocab.merges[0], "\xc4\xa0 t") &&
          !strcmp(m->vocab.tokens[100], "t"), "SmolLM2 bos <|im_start|>, eos/pad <|im_end|> (config.json ids), first merge \"\\u0120 t\"");
    srti_close(m);
    test_smollm2_tokenize();
}

/* A random model of class cls (hidden 64, FFN 64, 2 layers, 4 heads of 16, 2 kv heads, vocab 300) and the config keys `keys`;
   NULL with the error in err. */
static srti_model *random_open(const char *cls, const char *keys, char *err, size_t cap) {
    char cfg[1024];
    srti_model *m = NULL;
    snprintf(cfg, sizeof cfg, "{\"architectures\":[\"%s\"],\"hidden_size\":64,\"intermediate_size\":64,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
             "\"num_key_value_heads\":2,\"head_dim\":16,\"vocab_size\":300%s}", cls, keys);
    write_text(TMP "/random.json", cfg);
    if (srti_open_random(TMP "/random.json", 1, &m, err, cap) != 0) m = NULL;
    remove(TMP "/random.json");
    return m;
}
/* transformers 5's rope_parameters (random models of those configs: only the settings matter) */
static void test_rope_parameters(void) {
    char err[1024];
    srti_model *m;
    m = random_open("LlamaForCausalLM", ",\"rope_parameters\":{\"rope_theta\":500000.0,\"rope_type\":\"llama3\",\"factor\":32.0,\"low_freq_factor\":1.0,"
                  "\"high_freq_factor\":4.0,\"original_max_position_embeddings\":8192}", err, sizeof err);
    CHECK(m && m->hp.rope_theta == 500000.0f && !strcmp(m->hp.rope_scaling, "llama3") && m->hp.rope_scale_factor == 32.0f && m->hp.rope_orig_ctx == 8192 &&
          m->hp.rope_high_freq_factor == 4.0f, "rope_parameters (transformers 5): a Llama 3.2's base 5e5 and llama3 scaling (32 over 8192) read from it (%s)",
          m ? "ok" : err);
    srti_close(m);
    m = random_open("Qwen3ForCausalLM", ",\"rope_theta\":null,\"rope_parameters\":{\"rope_theta\":1000000,\"rope_type\":\"default\"}", err, sizeof err);
    CHECK(m && m->hp.rope_theta == 1e6f && !strcmp(m->hp.rope_scaling, "none"), "rope_parameters' base 1e6 with rope_theta null and rope_type default: "
          "no scaling (%s)", m ? "ok" : err);
    srti_close(m);
    m = random_open("Phi3ForCausalLM", ",\"rope_parameters\":{\"rope_theta\":10000.0,\"rope_type\":\"default\",\"partial_rotary_factor\":0.5}", err, sizeof err);
    CHECK(m && m->hp.rope_dim == 8, "rope_parameters' partial_rotary_factor 0.5: 8 of 16 dimensions rotate (%s)", m ? "ok" : err);
    srti_close(m);
    m = random_open("Gemma3ForCausalLM", ",\"rope_parameters\":{\"full_attention\":{\"rope_type\":\"linear\",\"factor\":8.0,\"rope_theta\":1000000.0},"
                  "\"sliding_attention\":{\"rope_type\":\"default\",\"rope_theta\":20000.0}}", err, sizeof err);
    CHECK(m && m->hp.rope_theta == 1e6f && m->hp.rope_theta_swa == 20000.0f && !strcmp(m->hp.rope_scaling, "linear") && m->hp.rope_scale_factor == 8.0f,
          "Gemma 3's rope_parameters per layer type: the full layers' base 1e6 and linear 8, the sliding layers' base 2e4 (%s)", m ? "ok" : err);
    srti_close(m);
    m = random_open("GptOssForCausalLM", ",\"rope_parameters\":{\"rope_theta\":150000,\"rope_type\":\"yarn\",\"factor\":16.0,\"beta_fast\":32.0,\"beta_slow\":1.0,"
                  "\"truncate\":false,\"original_max_position_embeddings\":4096}", err, sizeof err);
    CHECK(m && m->hp.rope_theta == 150000.0f && !strcmp(m->hp.rope_scaling, "yarn") && m->hp.rope_scale_factor == 16.0f && m->hp.yarn_exact == 1,
          "gpt-oss's rope_parameters: yarn 16 unrounded, not the config class's default 32 (%s)", m ? "ok" : err);
    srti_close(m);
    m = random_open("LlamaForCausalLM", ",\"rope_parameters\":{\"full_attention\":{\"rope_theta\":10000.0},\"sliding_attention\":{\"rope_theta\":100.0}}",
                  err, sizeof err);
    CHECK(!m && strstr(err, "rope_parameters per layer type is supported for Gemma 3 only"), "refuses rope_parameters per layer type for a Llama: %s", err);
    srti_close(m);
    m = random_open("Gemma3ForCausalLM", ",\"rope_parameters\":{\"sliding_attention\":{\"rope_type\":\"linear\",\"factor\":2.0,\"rope_theta\":100.0}}",
                  err, sizeof err);
    CHECK(!m && strstr(err, "sliding_attention.rope_type must be \"default\""), "refuses scaled sliding layers: %s", err);
    srti_close(m);
    m = random_open("LlamaForCausalLM", ",\"rope_parameters\":[10000]", err, sizeof err);
    CHECK(!m && strstr(err, "rope_parameters must be an object"), "refuses rope_parameters that is no object: %s", err);
    srti_close(m);
}

/* ---------------------------------------------------------------- random models */
static void test_random(void) {
    char err[1024], p[512], cmd[1024];
    srti_model *m;
    const char *l32 = "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":2048,\"intermediate_size\":8192,\"num_hidden_layers\":16,"
        "\"num_attention_heads\":32,\"num_key_value_heads\":8,\"head_dim\":64,\"max_position_embeddings\":131072,\"rms_norm_eps\":1e-05,"
        "\"rope_theta\":500000.0,\"rope_scaling\":{\"factor\":32.0,\"high_freq_factor\":4.0,\"low_freq_factor\":1.0,"
        "\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"},\"tie_word_embeddings\":true,\"vocab_size\":128256,"
        "\"bos_token_id\":128000,\"eos_token_id\":[128001,128008,128009],\"torch_dtype\":\"bfloat16\"}";
    float *a, *b;
    int i, ki;
    double sum = 0, sq = 0;
    if (!fresh_dir(TMP "/rnd") || !fresh_dir(TMP "/rnd2")) return;
    write_text(TMP "/rnd/llama32.json", l32);
    CHECK(srti_open_random(TMP "/rnd/llama32.json", 42, &m, err, sizeof err) == 0, "random Llama-3.2-1B shape opens (%s)", err);
    if (!m) return;
    CHECK(m->hp.n_embd == 2048 && m->hp.n_ff == 8192 && m->hp.n_layer == 16 && m->hp.n_head == 32 && m->hp.n_head_kv == 8 &&
          m->hp.head_dim == 64 && m->hp.n_vocab == 128256 && m->hp.n_ctx == 131072 && m->hp.rope_theta == 500000.0f &&
          !strcmp(m->hp.rope_scaling, "llama3") && m->hp.rope_scale_factor == 32.0f && m->hp.rope_low_freq_factor == 1.0f &&
          m->hp.rope_high_freq_factor == 4.0f && m->hp.rope_orig_ctx == 8192 && m->hp.tied_output == 1,
          "Llama-3.2-1B config: shape, rope theta 500000, llama3 rope scaling (32, 1, 4, 8192), tied embeddings");
    CHECK(m->n_tensors == 146 && srti_check_llama(m, err, sizeof err) == 0 && m->vocab.n_tokens == 128256 &&
          !strcmp(m->vocab.model, "llama") && m->vocab.types[3] == SRTI_TOKEN_BYTE && m->vocab.types[300] == SRTI_TOKEN_UNUSED,
          "146 tensors of the right shapes, placeholder vocabulary of 128256 tokens (%s)", err);
    ki = srti_find(m, "blk.3.attn_k.weight");
    a = (float *)malloc(512 * 2048 * sizeof(float));
    b = (float *)malloc(512 * 2048 * sizeof(float));
    if (a && b && ki >= 0 && srti_read_f32(m, (uint32_t)ki, a, err, sizeof err) == 0 && srti_read_f32(m, (uint32_t)ki, b, err, sizeof err) == 0) {
        for (i = 0; i < 512 * 2048; i++) { sum += a[i]; sq += (double)a[i] * a[i]; }
        sum /= 512 * 2048;
        sq = sqrt(sq / (512 * 2048) - sum * sum);
        CHECK(fabs(sum) < 1e-4 && fabs(sq - 0.02) < 2e-4 && memcmp(a, b, 512 * 2048 * sizeof(float)) == 0,
              "random weights: mean %.2e, std %.5f (N(0, 0.02)), the same on a second read", sum, sq);
        ki = srti_find(m, "blk.3.ffn_norm.weight");
        CHECK(ki >= 0 && srti_read_f32(m, (uint32_t)ki, a, err, sizeof err) == 0 && a[0] == 1.0f && a[2047] == 1.0f, "norm weights are 1");
    } else CHECK(0, "read a random tensor (%s)", err);
    srti_close(m);
    CHECK(srti_open_random(TMP "/rnd/llama32.json", 43, &m, err, sizeof err) == 0 && (ki = srti_find(m, "blk.3.attn_k.weight")) >= 0 &&
          srti_read_f32(m, (uint32_t)ki, b, err, sizeof err) == 0 && memcmp(a, b, 4096) != 0, "another seed gives other weights");
    srti_close(m);
    free(a); free(b);

    /* srt-pack --random on a small Qwen2 shape with a tokenizer beside it; deterministic */
    write_text(TMP "/rnd/config.json", "{\"architectures\":[\"Qwen2ForCausalLM\"],\"hidden_size\":64,\"intermediate_size\":96,\"num_hidden_layers\":2,"
               "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"vocab_size\":300,\"max_position_embeddings\":128,\"tie_word_embeddings\":false}");
    snprintf(cmd, sizeof cmd, "build/srt-pack -q --random %s/rnd/config.json --seed 9 %s/rnd/a.srt && build/srt-pack -q --random %s/rnd/config.json --seed 9 %s/rnd/b.srt"
             " && cmp -s %s/rnd/a.srt %s/rnd/b.srt && build/srt-pack -q --random %s/rnd/config.json --seed 10 %s/rnd/c.srt && ! cmp -s %s/rnd/a.srt %s/rnd/c.srt",
             TMP, TMP, TMP, TMP, TMP, TMP, TMP, TMP, TMP, TMP);
    CHECK(system(cmd) == 0, "srt-pack --random: same seed, same file; another seed, another file");
    /* tensors of more than one random stream (65536 values), generated and quantized on 1 and 3 threads */
    write_text(TMP "/rnd2/config.json", "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":256,\"intermediate_size\":384,\"num_hidden_layers\":1,"
               "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"vocab_size\":300,\"max_position_embeddings\":128}");
    snprintf(cmd, sizeof cmd, "for f in q4 'f16 --sparsity 0.7 --sparse-format tcsl' 'q8 --sparsity 0.6 --sparse-format s4x1'; do"
             " build/srt-pack -q -t 1 --random %s/rnd2/config.json --weights $f %s/rnd2/a.srt > /dev/null &&"
             " build/srt-pack -q -t 3 --random %s/rnd2/config.json --weights $f %s/rnd2/b.srt > /dev/null && cmp -s %s/rnd2/a.srt %s/rnd2/b.srt || exit 1; done",
             TMP, TMP, TMP, TMP, TMP, TMP);
    CHECK(system(cmd) == 0, "srt-pack --random -t 1 and -t 3 write the same file (q4, tcsl 70%%, s4x1 60%%)");
    {   /* --weights FMT:G (--tensor's form): one message saying where the group goes, nothing written */
        char *log;
        int ok;
        snprintf(cmd, sizeof cmd, "build/srt-pack -q --random %s/rnd2/config.json --weights q4:abc %s/rnd2/c.srt 2> %s/rnd2/err.txt", TMP, TMP, TMP);
        ok = system(cmd) != 0;
        path_in(p, sizeof p, TMP, "rnd2/err.txt");
        log = srt_test_read_file(p, NULL);
        path_in(p, sizeof p, TMP, "rnd2/c.srt");
        ok = ok && log && !strncmp(log, "srt-pack: --weights q4:abc: give the group with --group (FMT:G is --tensor's form)", 82) &&
             strchr(log, '\n') && !strchr(strchr(log, '\n') + 1, '\n');   /* (one line: \r\n under wine) */
        CHECK(ok && !fopen(p, "rb"), "srt-pack --weights q4:abc: refused in one line, nothing written (%s)", log ? log : "no log");
        free(log);
    }
    {
        srt_model *sm = NULL;
        srt_session *s = NULL;
        srt_model_desc md;
        srt_model_info info;
        int32_t tok = 0, start[2] = {1, 100};
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        path_in(p, sizeof p, TMP, "rnd/a.srt");
        CHECK(srt_model_load(p, &md, &sm) == SRT_OK, "the random Qwen2 model loads (%s)", srt_last_error());
        if (sm) {
            srt_model_get_info(sm, &info);
            CHECK(!strcmp(info.architecture, "qwen2") && info.n_embd == 64 && info.n_layer == 2 && info.n_vocab == 300, "random model info");
            CHECK(srt_session_create(sm, NULL, &s) == SRT_OK && srt_session_feed(s, start, 2) == SRT_OK && srt_session_next(s, &tok) == SRT_OK &&
                  tok >= 0 && tok < 300 && srt_session_next(s, &tok) == SRT_OK, "and generates");
            srt_session_destroy(s);
            srt_model_free(sm);
        }
    }
    {   /* a tokenizer.json beside the config is the random model's vocabulary */
        srt_model *sm = NULL;
        srt_model_desc md;
        const char *pre = NULL;
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        write_text(TMP "/rnd/config.json", "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":32,\"intermediate_size\":64,\"num_hidden_layers\":1,"
                   "\"num_attention_heads\":2,\"vocab_size\":49152,\"tie_word_embeddings\":true,\"bos_token_id\":1,\"eos_token_id\":2}");
        CHECK(system("cp " SMOL "/tokenizer.json " TMP "/rnd/tokenizer.json && build/srt-pack -q --random " TMP "/rnd/config.json " TMP "/rnd/t.srt") == 0 &&
              srt_model_load(TMP "/rnd/t.srt", &md, &sm) == SRT_OK && srt_vocab_size(sm) == 49152 && srt_model_meta_str(sm, "tokenizer.ggml.pre", &pre) &&
              !strcmp(pre, "smollm") && !strcmp(srt_token_piece(sm, 2), "<|im_end|>"), "srt-pack --random takes the tokenizer.json beside the config");
        srt_model_free(sm);
        if (!remove_file(TMP "/rnd/tokenizer.json")) CHECK(0, "clean up");
    }
    {   /* llama3 rope scaling from config.json reaches the packed file */
        srt_model *sm = NULL;
        srt_model_desc md;
        const char *type = NULL;
        float factor = 0, low = 0, high = 0, theta = 0;
        uint32_t orig = 0;
        write_text(TMP "/rnd/config.json", "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":64,\"intermediate_size\":96,\"num_hidden_layers\":1,"
                   "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"vocab_size\":300,\"rope_theta\":500000.0,\"tie_word_embeddings\":true,"
                   "\"rope_scaling\":{\"factor\":32.0,\"high_freq_factor\":4.0,\"low_freq_factor\":1.0,\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"}}");
        memset(&md, 0, sizeof md);
        md.n_threads = 1;
        CHECK(system("build/srt-pack -q --random " TMP "/rnd/config.json " TMP "/rnd/l3.srt") == 0 && srt_model_load(TMP "/rnd/l3.srt", &md, &sm) == SRT_OK &&
              srt_model_meta_str(sm, "llama.rope.scaling.type", &type) && !strcmp(type, "llama3") && srt_model_meta_f32(sm, "llama.rope.scaling.factor", &factor) &&
              factor == 32.0f && srt_model_meta_f32(sm, "llama.rope.scaling.low_freq_factor", &low) && low == 1.0f &&
              srt_model_meta_f32(sm, "llama.rope.scaling.high_freq_factor", &high) && high == 4.0f && srt_model_meta_f32(sm, "llama.rope.freq_base", &theta) &&
              theta == 500000.0f && srt_model_meta_u32(sm, "llama.rope.scaling.original_context_length", &orig) && orig == 8192,
              "config.json's llama3 rope scaling and rope theta reach the packed model");
        srt_model_free(sm);
    }
    if (!remove_tree(TMP "/rnd")) CHECK(0, "clean up");
}

/* ---------------------------------------------------------------- SmolLM2 shape: HF folder vs GGUF */
/* GGUF v3 writer, just what this test needs */
static void gg_str(FILE *f, const char *s) { uint64_t n = strlen(s); fwrite(&n, 8, 1, f); fwrite(s, 1, (size_t)n, f); }
static void gg_key(FILE *f, const char *k, uint32_t type) { gg_str(f, k); fwrite(&type, 4, 1, f); }
static void gg_u32(FILE *f, const char *k, uint32_t v) { gg_key(f, k, 4); fwrite(&v, 4, 1, f); }
static void gg_f32(FILE *f, const char *k, float v) { gg_key(f, k, 6); fwrite(&v, 4, 1, f); }
static void gg_s(FILE *f, const char *k, const char *v) { gg_key(f, k, 8); gg_str(f, v); }
static void gg_arr_str(FILE *f, const char *k, char **v, uint64_t n) {
    uint32_t et = 8;
    uint64_t i;
    gg_key(f, k, 9); fwrite(&et, 4, 1, f); fwrite(&n, 8, 1, f);
    for (i = 0; i < n; i++) gg_str(f, v[i]);
}
static void gg_arr_i32(FILE *f, const char *k, const int32_t *v, uint64_t n) {
    uint32_t et = 5;
    gg_key(f, k, 9); fwrite(&et, 4, 1, f); fwrite(&n, 8, 1, f); fwrite(v, 4, (size_t)n, f);
}

typedef struct big_tensor {
    char hf[96], gg[96];
    int nd;
    uint64_t rows, cols;           /* 1-D: rows = n, cols = 1 */
    const char *st_dtype;          /* safetensors dtype */
    int shard;
    uint32_t permute;              /* heads (GGUF side) */
    uint64_t st_off, gg_off;
} big_tensor;

static uint64_t big_rng;
static float big_uniform(void) {   /* uniform in [-0.035, 0.035): standard deviation ~0.02 */
    big_rng = big_rng * 6364136223846793005ull + 1442695040888963407ull;
    return ((float)(big_rng >> 40) / 16777216.0f - 0.5f) * 0.07f;
}

/* Values representable exactly in the source dtype and in F16, so that both packs hold the same numbers. */
static void big_values(const big_tensor *t, int index, float *v) {
    uint64_t n = t->rows * t->cols, i;
    big_rng = 0x1234567ull + (uint64_t)index * 0x9E3779B97F4A7C15ull;
    for (i = 0; i < n; i++) {
        float x = big_uniform();
        if (!strcmp(t->st_dtype, "F32")) x = srt_f16_to_f32(srt_f32_to_f16(1.0f + 4.0f * x));   /* norms around 1 */
        else if (!strcmp(t->st_dtype, "F16")) x = srt_f16_to_f32(srt_f32_to_f16(x));
        else { x = srt_bf16_to_f32(srt_f32_to_bf16(x)); if (fabsf(x) < 6.2e-5f) x = 0.0f; }   /* bf16, in F16's normal range */
        v[i] = x;
    }
}

static void test_smollm2_shape(void) {
    const char *dir = TMP "/smol";
    char p[512], err[1024], cmd[1024];
    char *cfg_text = NULL, *tok_text = NULL;
    size_t cfg_n = 0, tok_n = 0;
    srtj_doc *tdoc = NULL;
    big_tensor *t = NULL;
    int nt = 0, L = 30, l, i, ok = 1;
    const uint64_t E = 576, F = 1536, V = 49152, HD = 64, NH = 9, NKV = 3;
    uint64_t shard_size[2] = {0, 0}, gg_data = 0;
    FILE *st[2] = {NULL, NULL}, *gg = NULL;
    float *buf = NULL;
    uint16_t *half = NULL;
    char **tokens = NULL, **merges = NULL;
    int32_t *types = NULL;
    uint32_t n_merges = 0;
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    static const char *chat_template =
        "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are a helpful AI "
        "assistant named SmolLM, trained by Hugging Face<|im_end|>\\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\\n' + "
        "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

    if (!fresh_dir(dir)) { CHECK(0, "make %s", dir); return; }
    cfg_text = srt_test_read_file(SMOL "/config.json", &cfg_n);
    tok_text = srt_test_read_file(SMOL "/tokenizer.json", &tok_n);
    if (!cfg_text || !tok_text) { CHECK(0, "read SmolLM2 config.json and tokenizer.json"); goto done; }
    path_in(p, sizeof p, dir, "config.json"); ok = write_file(p, cfg_text, cfg_n);
    path_in(p, sizeof p, dir, "tokenizer.json"); ok = ok && write_file(p, tok_text, tok_n);
    {
        sbuf tc = {NULL, 0, 0};
        const char *c;
        sb_add(&tc, "{\"add_prefix_space\":false,\"bos_token\":\"<|im_start|>\",\"eos_token\":\"<|im_end|>\",\"pad_token\":\"<|im_end|>\",\"chat_template\":\"");
        for (c = chat_template; *c; c++) sb_add(&tc, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
        sb_add(&tc, "\"}");
        path_in(p, sizeof p, dir, "tokenizer_config.json");
        ok = ok && write_text(p, tc.p);
        free(tc.p);
    }

    /* the tensor list: HF names and dtypes, GGUF names; shard 0 = embedding + layers 0..14 */
    t = (big_tensor *)calloc((size_t)L * 9 + 2, sizeof *t);
    if (!t) goto done;
#define ADD(H, G, R, C, DT, SH, PERM) do { big_tensor *b_ = &t[nt++]; snprintf(b_->hf, sizeof b_->hf, "%s", H); snprintf(b_->gg, sizeof b_->gg, "%s", G); \
        b_->rows = R; b_->cols = C; b_->nd = (C) > 1 ? 2 : 1; b_->st_dtype = DT; b_->shard = SH; b_->permute = PERM; } while (0)
    ADD("model.embed_tokens.weight", "token_embd.weight", V, E, "F16", 0, 0);
    for (l = 0; l < L; l++) {
        char h[96], g[96];
        int sh = l < 15 ? 0 : 1;
#define LAYER(hs, gs, R, C, DT, PERM) snprintf(h, sizeof h, "model.layers.%d." hs, l); snprintf(g, sizeof g, "blk.%d." gs, l); ADD(h, g, R, C, DT, sh, PERM);
        LAYER("input_layernorm.weight", "attn_norm.weight", E, 1, "F32", 0)
        LAYER("self_attn.q_proj.weight", "attn_q.weight", NH * HD, E, "BF16", (uint32_t)NH)
        LAYER("self_attn.k_proj.weight", "attn_k.weight", NKV * HD, E, "BF16", (uint32_t)NKV)
        LAYER("self_attn.v_proj.weight", "attn_v.weight", NKV * HD, E, "BF16", 0)
        LAYER("self_attn.o_proj.weight", "attn_output.weight", E, NH * HD, "BF16", 0)
        LAYER("post_attention_layernorm.weight", "ffn_norm.weight", E, 1, "F32", 0)
        LAYER("mlp.gate_proj.weight", "ffn_gate.weight", F, E, "BF16", 0)
        LAYER("mlp.up_proj.weight", "ffn_up.weight", F, E, "BF16", 0)
        LAYER("mlp.down_proj.weight", "ffn_down.weight", E, F, "BF16", 0)
#undef LAYER
    }
    ADD("model.norm.weight", "output_norm.weight", E, 1, "F32", 1, 0);
#undef ADD
    for (i = 0; i < nt; i++) {
        uint64_t n = t[i].rows * t[i].cols;
        t[i].st_off = shard_size[t[i].shard];
        shard_size[t[i].shard] += n * st_dsize(t[i].st_dtype);
        t[i].gg_off = gg_data;
        gg_data += (n * (t[i].nd == 2 ? 2 : 4) + 31) / 32 * 32;
    }

    /* safetensors headers, the index */
    {
        sbuf idx = {NULL, 0, 0};
        int s;
        sb_add(&idx, "{\"metadata\":{\"total_size\":%llu},\"weight_map\":{", (unsigned long long)(shard_size[0] + shard_size[1]));
        for (s = 0; s < 2; s++) {
            sbuf h = {NULL, 0, 0};
            unsigned char l8[8];
            int k;
            sb_add(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
            for (i = 0; i < nt; i++) {
                if (t[i].shard != s) continue;
                sb_add(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[%llu", t[i].hf, t[i].st_dtype, (unsigned long long)t[i].rows);
                if (t[i].nd == 2) sb_add(&h, ",%llu", (unsigned long long)t[i].cols);
                sb_add(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)t[i].st_off,
                       (unsigned long long)(t[i].st_off + t[i].rows * t[i].cols * st_dsize(t[i].st_dtype)));
                sb_add(&idx, "%s\"%s\":\"model-0000%d-of-00002.safetensors\"", idx.p[idx.n - 1] == '{' ? "" : ",", t[i].hf, s + 1);
            }
            sb_add(&h, "}");
            while (h.n % 8) sb_add(&h, " ");
            snprintf(p, sizeof p, "%s/model-0000%d-of-00002.safetensors", dir, s + 1);
            st[s] = fopen(p, "wb");
            for (k = 0; k < 8; k++) l8[k] = (unsigned char)((uint64_t)h.n >> (8 * k));
            ok = ok && st[s] && fwrite(l8, 1, 8, st[s]) == 8 && fwrite(h.p, 1, h.n, st[s]) == h.n;
            free(h.p);
        }
        sb_add(&idx, "}}");
        path_in(p, sizeof p, dir, "model.safetensors.index.json");
        ok = ok && write_text(p, idx.p);
        free(idx.p);
    }

    /* GGUF header: llama.cpp conventions (tokenizer from tokenizer.json, as its converter reads it) */
    if (srtj_parse(tok_text, tok_n, NULL, &tdoc, err, sizeof err) != 0) { CHECK(0, "parse tokenizer.json: %s", err); goto done; }
    {
        const srtj_value *root = srtj_root(tdoc), *e;
        tokens = (char **)calloc((size_t)V, sizeof(char *));
        types = (int32_t *)calloc((size_t)V, sizeof(int32_t));
        merges = (char **)calloc(srtj_get(srtj_get(root, "model"), "merges")->n, sizeof(char *));
        for (e = srtj_first(srtj_get(srtj_get(root, "model"), "vocab")); e; e = e->next) { tokens[e->i] = (char *)e->key; types[e->i] = 1; }
        for (e = srtj_first(srtj_get(root, "added_tokens")); e; e = e->next) {
            int64_t id = srtj_get(e, "id")->i;
            int special = srtj_is(srtj_get(e, "special"), SRTJ_TRUE);
            tokens[id] = (char *)srtj_string(srtj_get(e, "content"));
            types[id] = special ? 3 : 4;
        }
        for (e = srtj_first(srtj_get(srtj_get(root, "model"), "merges")); e; e = e->next) merges[n_merges++] = (char *)e->str;
    }
    snprintf(p, sizeof p, "%s.gguf", dir);
    gg = fopen(p, "wb");
    if (!gg) { CHECK(0, "create %s", p); goto done; }
    {
        uint32_t ver = 3;
        uint64_t ntens = (uint64_t)nt, nkv = 24, pos;
        static const unsigned char zero[32] = {0};
        fwrite("GGUF", 1, 4, gg); fwrite(&ver, 4, 1, gg); fwrite(&ntens, 8, 1, gg); fwrite(&nkv, 8, 1, gg);
        gg_s(gg, "general.architecture", "llama"); gg_s(gg, "general.name", "SmolLM2 135M random");
        gg_u32(gg, "llama.context_length", 8192); gg_u32(gg, "llama.embedding_length", 576); gg_u32(gg, "llama.feed_forward_length", 1536);
        gg_u32(gg, "llama.block_count", 30); gg_u32(gg, "llama.attention.head_count", 9); gg_u32(gg, "llama.attention.head_count_kv", 3);
        gg_f32(gg, "llama.rope.freq_base", 100000.0f); gg_f32(gg, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
        gg_u32(gg, "llama.rope.dimension_count", 64); gg_u32(gg, "llama.vocab_size", 49152); gg_u32(gg, "general.file_type", 1);
        gg_s(gg, "tokenizer.ggml.model", "gpt2"); gg_s(gg, "tokenizer.ggml.pre", "smollm");
        gg_arr_str(gg, "tokenizer.ggml.tokens", tokens, V); gg_arr_i32(gg, "tokenizer.ggml.token_type", types, V);
        gg_arr_str(gg, "tokenizer.ggml.merges", merges, n_merges);
        gg_u32(gg, "tokenizer.ggml.bos_token_id", 1); gg_u32(gg, "tokenizer.ggml.eos_token_id", 2);
        gg_u32(gg, "tokenizer.ggml.padding_token_id", 2); gg_s(gg, "tokenizer.chat_template", chat_template);
        gg_u32(gg, "general.quantization_version", 2); gg_u32(gg, "general.alignment", 32);
        for (i = 0; i < nt; i++) {
            uint32_t nd = (uint32_t)t[i].nd, type = t[i].nd == 2 ? 1 : 0;
            uint64_t ne0 = t[i].nd == 2 ? t[i].cols : t[i].rows, ne1 = t[i].rows;
            gg_str(gg, t[i].gg); fwrite(&nd, 4, 1, gg); fwrite(&ne0, 8, 1, gg);
            if (nd == 2) fwrite(&ne1, 8, 1, gg);
            fwrite(&type, 4, 1, gg); fwrite(&t[i].gg_off, 8, 1, gg);
        }
        pos = (uint64_t)ftell(gg);
        fwrite(zero, 1, (size_t)((32 - pos % 32) % 32), gg);
    }

    /* the data: one tensor at a time into both files */
    buf = (float *)malloc((size_t)(V * E) * sizeof(float));
    half = (uint16_t *)malloc((size_t)(V * E) * sizeof(uint16_t));
    if (!buf || !half) goto done;
    for (i = 0; i < nt && ok; i++) {
        uint64_t n = t[i].rows * t[i].cols, k;
        FILE *f = st[t[i].shard];
        static const unsigned char zero[32] = {0};
        big_values(&t[i], i, buf);
        if (!strcmp(t[i].st_dtype, "F32")) ok = fwrite(buf, 4, (size_t)n, f) == n;
        else {
            for (k = 0; k < n; k++) half[k] = !strcmp(t[i].st_dtype, "F16") ? srt_f32_to_f16(buf[k]) : srt_f32_to_bf16(buf[k]);
            ok = fwrite(half, 2, (size_t)n, f) == n;
        }
        if (t[i].nd == 1) ok = ok && fwrite(buf, 4, (size_t)n, gg) == n;
        else {
            uint64_t d = t[i].permute ? t[i].rows / t[i].permute : 0, r, c;
            for (r = 0; r < t[i].rows; r++) {
                uint64_t src = r;   /* llama.cpp's permute: within a head, GGUF row 2j+s = HF row s*d/2 + j */
                if (d) { uint64_t h = r / d, w = r % d; src = h * d + (w % 2) * (d / 2) + w / 2; }
                for (c = 0; c < t[i].cols; c++) half[r * t[i].cols + c] = srt_f32_to_f16(buf[src * t[i].cols + c]);
            }
            ok = ok && fwrite(half, 2, (size_t)n, gg) == n;
        }
        ok = ok && fwrite(zero, 1, (size_t)((32 - (n * (t[i].nd == 2 ? 2 : 4)) % 32) % 32), gg) == (n * (t[i].nd == 2 ? 2 : 4) % 32 ? 32 - (n * (t[i].nd == 2 ? 2 : 4)) % 32 : 0);
    }
    ok = (fclose(st[0]) == 0) & (fclose(st[1]) == 0) & (fclose(gg) == 0) & ok;
    st[0] = st[1] = NULL;
    gg = NULL;
    CHECK(ok, "wrote a SmolLM2-135M-shaped folder (2 shards, F16/BF16/F32) and the same weights as GGUF F16 (%.1f s)", (double)clock() / CLOCKS_PER_SEC - t0);
    free(buf); buf = NULL;
    free(half); half = NULL;
    if (!ok) goto done;

    snprintf(cmd, sizeof cmd, "build/srt-pack -q %s %s/hf.srt && build/srt-pack -q %s.gguf %s/gguf.srt", dir, dir, dir, dir);
    CHECK(system(cmd) == 0, "srt-pack packs the folder and the GGUF (both verified by loading)");
    {
        srt_model *mh = NULL, *mg = NULL;
        srt_session *sh = NULL, *sg = NULL;
        srt_model_desc md;
        srt_model_info ih, ig;
        const char *s1, *s2;
        const float *lh, *lg;
        static const int32_t prompt[8] = {1, 9690, 198, 2683, 359, 253, 5356, 5646};
        double worst = 0;
        int32_t gh[4], ggen[4], same_tokens = 1;
        uint32_t u1 = 0, u2 = 0;
        memset(&md, 0, sizeof md);
        md.n_threads = 2;
        snprintf(p, sizeof p, "%s/hf.srt", dir);
        if (srt_model_load(p, &md, &mh) != SRT_OK) CHECK(0, "load %s: %s", p, srt_last_error());
        snprintf(p, sizeof p, "%s/gguf.srt", dir);
        if (srt_model_load(p, &md, &mg) != SRT_OK) CHECK(0, "load %s: %s", p, srt_last_error());
        if (mh && mg) {
            srt_model_get_info(mh, &ih);
            srt_model_get_info(mg, &ig);
            CHECK(ih.n_vocab == 49152 && ih.n_embd == 576 && ih.n_layer == 30 && ih.n_head == 9 && ih.n_head_kv == 3 && ih.head_dim == 64 &&
                  ih.n_ff == 1536 && ih.n_ctx_train == 8192 && ih.weight_bytes == ig.weight_bytes && ih.bos == 1 && ih.eos == 2 && ig.eos == 2,
                  "both packs: SmolLM2-135M shape, same weight bytes, bos 1, eos 2");
            for (i = 0; i < 49152 && same_tokens; i++) {
                char b1[64], b2[64];
                same_tokens = !strcmp(srt_token_piece(mh, i), srt_token_piece(mg, i)) &&
                              srt_token_bytes(mh, i, b1, sizeof b1) == srt_token_bytes(mg, i, b2, sizeof b2);
            }
            CHECK(same_tokens, "the folder's vocabulary equals the llama.cpp-style GGUF's (pieces and token types)");
            CHECK(srt_model_meta_str(mh, "tokenizer.ggml.pre", &s1) && srt_model_meta_str(mg, "tokenizer.ggml.pre", &s2) && !strcmp(s1, s2) &&
                  srt_model_meta_str(mh, "tokenizer.chat_template", &s1) && srt_model_meta_str(mg, "tokenizer.chat_template", &s2) && !strcmp(s1, s2) &&
                  srt_model_meta_u32(mh, "llama.rope.neox", &u1) && srt_model_meta_u32(mg, "llama.rope.neox", &u2) && u1 == 0 && u2 == 0,
                  "same pre-tokenizer, chat template (from tokenizer_config.json), adjacent-pair rope in both");
            if (srt_session_create(mh, NULL, &sh) == SRT_OK && srt_session_create(mg, NULL, &sg) == SRT_OK) {
                for (i = 0; i < 8; i++) {
                    double d;
                    if (srt_session_feed(sh, &prompt[i], 1) != SRT_OK || srt_session_feed(sg, &prompt[i], 1) != SRT_OK) break;
                    lh = srt_session_logits(sh);
                    lg = srt_session_logits(sg);
                    if (!lh || !lg) break;
                    d = max_rel_diff(lh, lg, 49152);
                    if (d > worst) worst = d;
                }
                CHECK(i == 8 && worst <= 1e-3, "logits at 8 positions agree: max |diff| / max |logit| = %.2e (limit 1e-3)", worst);
                for (i = 0; i < 4; i++) {
                    if (srt_session_next(sh, &gh[i]) != SRT_OK || srt_session_next(sg, &ggen[i]) != SRT_OK) break;
                }
                CHECK(i == 4 && !memcmp(gh, ggen, sizeof gh) && gh[0] >= 0 && gh[0] < 49152,
                      "the folder's model generates (greedy: %d %d %d %d), as the GGUF's", gh[0], gh[1], gh[2], gh[3]);
            } else CHECK(0, "sessions: %s", srt_last_error());
        }
        srt_session_destroy(sh);
        srt_session_destroy(sg);
        srt_model_free(mh);
        srt_model_free(mg);
    }
done:
    if (st[0]) fclose(st[0]);
    if (st[1]) fclose(st[1]);
    if (gg) fclose(gg);
    free(buf); free(half); free(t); free(tokens); free(types); free(merges);
    srtj_free(tdoc);
    free(cfg_text); free(tok_text);
    snprintf(cmd, sizeof cmd, "%s.gguf", dir);
    if (!remove_tree(dir) || !remove_tree(cmd)) CHECK(0, "clean up %s", dir);
    printf("# SmolLM2-shape check: %.1f s of CPU\n", (double)clock() / CLOCKS_PER_SEC - t0);
}

/* remove_tree removes a symbolic link, not what it points to: a folder holding links to a folder
   and to a read-only file goes, and both targets stay as they were (the file read-only). */
static void test_remove_tree(void) {
#ifndef _WIN32
    struct stat st;
    int ok = fresh_dir(TMP "/keep") && write_text(TMP "/keep/f.txt", "x") && chmod(TMP "/keep/f.txt", 0444) == 0 && fresh_dir(TMP "/links") &&
             symlink("../keep", TMP "/links/dir") == 0 && symlink("../keep/f.txt", TMP "/links/file") == 0;
    ok = ok && remove_tree(TMP "/links") && stat(TMP "/links", &st) != 0 && stat(TMP "/keep/f.txt", &st) == 0 && (st.st_mode & 0777) == 0444;
    CHECK(ok, "remove_tree removes symbolic links to a folder and to a read-only file, not their targets (the file still read-only)");
    if (!remove_tree(TMP "/keep")) CHECK(0, "clean up");
#endif
}

/* GptOssForCausalLM: a tiny folder of hidden 32, 4 heads of 8, 2 kv heads, 2 layers (layer 0
   sliding over 4 positions), 4 experts of width 32 (2 used), as openai/gpt-oss-20b stores them:
   each layer's experts as MXFP4 pairs (gate_up_proj_blocks / _scales: U8 [4, 64, 1, 16] and
   [4, 64, 1], gate and up interleaved by rows; down_proj's [4, 32, 1, 16] / [4, 32, 1]), their
   biases ([4, 64] BF16, interleaved too; [4, 32]), the router with its bias, the sinks and every
   attention bias; and the same weights as a fine-tune saves them, the experts dequantized and
   transposed (gate_up_proj [4, 32 in, 64 out], down_proj [4, 32, 32]). Every expert matrix and bias
   equals the hand decode; both forms pack to the same logits; fp4 keeps the MXFP4 values; broken
   pairs and unsupported settings are refused; a random one has gpt-oss's tensors. */
#define OSE 32
#define OSF 32
#define OSX 4
#define OSL 2
#define OSKV 16   /* 2 kv heads of 8 */
typedef struct {
    float emb[TV * OSE], out[TV * OSE], fnorm[OSE];
    float an[OSL][OSE], fn[OSL][OSE], q[OSL][OSE * OSE], k[OSL][OSKV * OSE], v[OSL][OSKV * OSE], o[OSL][OSE * OSE];
    float qb[OSL][OSE], kb[OSL][OSKV], vb[OSL][OSKV], ob[OSL][OSE], sinks[OSL][4], router[OSL][OSX * OSE], rb[OSL][OSX], db[OSL][OSX * OSE];
    uint16_t gub16[OSL][OSX * 2 * OSF];                                  /* gate_up_proj_bias, BF16 */
    float gub[OSL][OSX * 2 * OSF];                                       /* its values */
    unsigned char gu_blk[OSL][OSX * 2 * OSF * OSE / 2], gu_sc[OSL][OSX * 2 * OSF * OSE / 32];
    unsigned char d_blk[OSL][OSX * OSE * OSF / 2], d_sc[OSL][OSX * OSE * OSF / 32];
    float gu[OSL][OSX * 2 * OSF * OSE], d[OSL][OSX * OSE * OSF];        /* decoded: [expert][out row][in] */
    float gu_t[OSL][OSX * OSE * 2 * OSF], d_t[OSL][OSX * OSF * OSE];    /* dense and transposed: [expert][in][out] */
} os_model;
static os_model os;
/* MXFP4 as transformers decodes it: FP4 (E2M1) value of the nibble times 2^(scale - 127); value 2j
   of a block in byte j's low nibble, 2j + 1 in its high one */
static float os_fp4(unsigned nib, unsigned scale) {
    static const float v[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
    return ldexpf(v[nib & 15], (int)scale - 127);
}
static void os_mxfp4(unsigned char *blk, unsigned char *sc, float *val, float *val_t, int rows, int cols) {
    int x, r, c;
    for (x = 0; x < OSX; x++)
        for (r = 0; r < rows; r++) {
            const int row = x * rows + r;
            for (c = 0; c < cols / 32; c++) sc[row * (cols / 32) + c] = (unsigned char)(120 + (srt_test_rng = srt_test_rng * 6364136223846793005ull + 1, srt_test_rng >> 61));
            for (c = 0; c < cols / 2; c++) blk[row * (cols / 2) + c] = (unsigned char)((srt_test_rng = srt_test_rng * 6364136223846793005ull + 1442695040888963407ull) >> 56);
            for (c = 0; c < cols; c++) {
                const unsigned char b = blk[row * (cols / 2) + c / 2];
                val[row * cols + c] = os_fp4(c % 2 ? b >> 4 : b & 15u, sc[row * (cols / 32) + c / 32]);
                val_t[(x * cols + c) * rows + r] = val[row * cols + c];
            }
        }
}
static void os_fill(void) {
    int l, i;
#define OSR(a, norm) for (i = 0; i < (int)(sizeof(a) / sizeof(float)); i++) (a)[i] = (norm) ? 1.0f + 0.25f * srt_test_frand() : 0.3f * srt_test_frand();
    srt_test_rng = 5151;
    OSR(os.emb, 0) OSR(os.out, 0) OSR(os.fnorm, 1)
    for (l = 0; l < OSL; l++) {
        OSR(os.an[l], 1) OSR(os.fn[l], 1) OSR(os.q[l], 0) OSR(os.k[l], 0) OSR(os.v[l], 0) OSR(os.o[l], 0)
        OSR(os.qb[l], 0) OSR(os.kb[l], 0) OSR(os.vb[l], 0) OSR(os.ob[l], 0) OSR(os.sinks[l], 0) OSR(os.router[l], 0) OSR(os.rb[l], 0) OSR(os.db[l], 0)
        for (i = 0; i < OSX * 2 * OSF; i++) {   /* a BF16 bias: the float's top half */
            float f = 0.3f * srt_test_frand();
            uint32_t bits;
            memcpy(&bits, &f, 4);
            os.gub16[l][i] = (uint16_t)(bits >> 16);
            bits &= 0xffff0000u;
            memcpy(&os.gub[l][i], &bits, 4);
        }
        os_mxfp4(os.gu_blk[l], os.gu_sc[l], os.gu[l], os.gu_t[l], 2 * OSF, OSE);
        os_mxfp4(os.d_blk[l], os.d_sc[l], os.d[l], os.d_t[l], OSE, OSF);
    }
#undef OSR
}
/* The folder less the tensor `drop` (any name containing it); dense: the experts dequantized and transposed */
static void os_write(const char *dir, const char *config, const char *drop, int dense) {
    static char names[64][96];
    st_tensor t[64];
    int n = 0, l;
#define OST(nm, dt, d0, a, b, c, e, values) do { \
        snprintf(names[n], sizeof names[n], "%s", nm); \
        if (!drop || !strstr(names[n], drop)) { \
            t[n].name = names[n]; t[n].dtype = dt; t[n].nd = d0; t[n].shape[0] = a; t[n].shape[1] = b; t[n].shape[2] = c; t[n].shape[3] = e; \
            t[n].data = values; n++; \
        } \
    } while (0)
#define OSLT(s, dt, d0, a, b, c, e, values) do { char nm_[96]; snprintf(nm_, sizeof nm_, "model.layers.%d.%s", l, s); OST(nm_, dt, d0, a, b, c, e, values); } while (0)
    if (!fresh_dir(dir)) return;
    OST("model.embed_tokens.weight", "F32", 2, TV, OSE, 0, 0, os.emb);
    OST("model.norm.weight", "F32", 1, OSE, 0, 0, 0, os.fnorm);
    OST("lm_head.weight", "F32", 2, TV, OSE, 0, 0, os.out);
    for (l = 0; l < OSL; l++) {
        OSLT("input_layernorm.weight", "F32", 1, OSE, 0, 0, 0, os.an[l]);
        OSLT("post_attention_layernorm.weight", "F32", 1, OSE, 0, 0, 0, os.fn[l]);
        OSLT("self_attn.q_proj.weight", "F32", 2, OSE, OSE, 0, 0, os.q[l]);
        OSLT("self_attn.k_proj.weight", "F32", 2, OSKV, OSE, 0, 0, os.k[l]);
        OSLT("self_attn.v_proj.weight", "F32", 2, OSKV, OSE, 0, 0, os.v[l]);
        OSLT("self_attn.o_proj.weight", "F32", 2, OSE, OSE, 0, 0, os.o[l]);
        OSLT("self_attn.q_proj.bias", "F32", 1, OSE, 0, 0, 0, os.qb[l]);
        OSLT("self_attn.k_proj.bias", "F32", 1, OSKV, 0, 0, 0, os.kb[l]);
        OSLT("self_attn.v_proj.bias", "F32", 1, OSKV, 0, 0, 0, os.vb[l]);
        OSLT("self_attn.o_proj.bias", "F32", 1, OSE, 0, 0, 0, os.ob[l]);
        OSLT("self_attn.sinks", "F32", 1, 4, 0, 0, 0, os.sinks[l]);
        OSLT("mlp.router.weight", "F32", 2, OSX, OSE, 0, 0, os.router[l]);
        OSLT("mlp.router.bias", "F32", 1, OSX, 0, 0, 0, os.rb[l]);
        OSLT("mlp.experts.gate_up_proj_bias", "BF16", 2, OSX, 2 * OSF, 0, 0, os.gub16[l]);
        OSLT("mlp.experts.down_proj_bias", "F32", 2, OSX, OSE, 0, 0, os.db[l]);
        if (dense) {
            OSLT("mlp.experts.gate_up_proj", "F32", 3, OSX, OSE, 2 * OSF, 0, os.gu_t[l]);
            OSLT("mlp.experts.down_proj", "F32", 3, OSX, OSF, OSE, 0, os.d_t[l]);
        } else {
            OSLT("mlp.experts.gate_up_proj_blocks", "U8", 4, OSX, 2 * OSF, OSE / 32, 16, os.gu_blk[l]);
            OSLT("mlp.experts.gate_up_proj_scales", "U8", 3, OSX, 2 * OSF, OSE / 32, 0, os.gu_sc[l]);
            OSLT("mlp.experts.down_proj_blocks", "U8", 4, OSX, OSE, OSF / 32, 16, os.d_blk[l]);
            OSLT("mlp.experts.down_proj_scales", "U8", 3, OSX, OSE, OSF / 32, 0, os.d_sc[l]);
        }
    }
#undef OSLT
#undef OST
    write_folder(dir, config, t, n);
}
/* config.json as openai/gpt-oss-20b's (its shape cut down), with num_local_experts `experts` and swiglu_limit `limit` */
static void os_config(char *buf, size_t cap, int experts, const char *limit, const char *extra) {
    snprintf(buf, cap, "{\"architectures\":[\"GptOssForCausalLM\"],\"model_type\":\"gpt_oss\",\"hidden_size\":32,\"intermediate_size\":32,"
             "\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,\"head_dim\":8,\"num_local_experts\":%d,\"num_experts_per_tok\":2,"
             "\"experts_per_token\":2,\"sliding_window\":4,\"layer_types\":[\"sliding_attention\",\"full_attention\"],\"vocab_size\":16,"
             "\"tie_word_embeddings\":false,\"hidden_act\":\"silu\",\"rms_norm_eps\":1e-05,\"rope_theta\":150000,\"max_position_embeddings\":64,"
             "\"swiglu_limit\":%s,\"attention_bias\":true,\"quantization_config\":{\"quant_method\":\"mxfp4\",\"modules_to_not_convert\":"
             "[\"model.layers.*.self_attn\",\"model.layers.*.mlp.router\",\"model.embed_tokens\",\"lm_head\"]}%s}", experts, limit, extra);
}
/* tensor `name` of m: [cols, rows] (a vector: rows 0) holding `n` rows of src (rows `step` apart from row `from`; a vector's values) */
static int os_rows(srti_model *m, const char *name, const float *src, int from, int step, int rows, int cols, char *why, size_t cap) {
    float v[2 * OSF * OSE];
    char err[256];
    const int ti = srti_find(m, name), n = rows ? rows : cols;
    int r;
    if (ti < 0) { snprintf(why, cap, "%s missing", name); return 0; }
    if (m->tensors[ti].ne[0] != (uint64_t)cols || m->tensors[ti].ne[1] != (uint64_t)(rows ? rows : 1) || m->tensors[ti].n_dims != (rows ? 2u : 1u)) {
        snprintf(why, cap, "%s is [%llu, %llu]", name, (unsigned long long)m->tensors[ti].ne[0], (unsigned long long)m->tensors[ti].ne[1]);
        return 0;
    }
    if (srti_read_f32(m, (uint32_t)ti, v, err, sizeof err) != 0) { snprintf(why, cap, "%s: %.200s", name, err); return 0; }
    for (r = 0; r < n; r++) {
        const int w = rows ? cols : 1;
        int c;
        for (c = 0; c < w; c++)
            if (v[r * w + c] != src[(from + r * step) * w + c]) {   /* (the sign of a zero aside: MXFP4's -0 reads as 0) */
                snprintf(why, cap, "%s[%d][%d] = %g, expected %g", name, r, c, (double)v[r * w + c], (double)src[(from + r * step) * w + c]);
                return 0;
            }
    }
    return 1;
}
static int os_check_values(srti_model *m, char *why, size_t cap) {
    char nm[64];
    int l, x, ok = 1;
    for (l = 0; ok && l < OSL; l++) {
        for (x = 0; ok && x < OSX; x++) {
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate.%d.weight", l, x); ok = os_rows(m, nm, os.gu[l], x * 2 * OSF, 2, OSF, OSE, why, cap);
            snprintf(nm, sizeof nm, "blk.%d.ffn_up.%d.weight", l, x); ok = ok && os_rows(m, nm, os.gu[l], x * 2 * OSF + 1, 2, OSF, OSE, why, cap);
            snprintf(nm, sizeof nm, "blk.%d.ffn_down.%d.weight", l, x); ok = ok && os_rows(m, nm, os.d[l], x * OSE, 1, OSE, OSF, why, cap);
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate.%d.bias", l, x); ok = ok && os_rows(m, nm, os.gub[l], x * 2 * OSF, 2, 0, OSF, why, cap);
            snprintf(nm, sizeof nm, "blk.%d.ffn_up.%d.bias", l, x); ok = ok && os_rows(m, nm, os.gub[l], x * 2 * OSF + 1, 2, 0, OSF, why, cap);
            snprintf(nm, sizeof nm, "blk.%d.ffn_down.%d.bias", l, x); ok = ok && os_rows(m, nm, os.db[l], x * OSE, 1, 0, OSE, why, cap);
        }
        snprintf(nm, sizeof nm, "blk.%d.attn_sinks.weight", l); ok = ok && os_rows(m, nm, os.sinks[l], 0, 1, 0, 4, why, cap);
        snprintf(nm, sizeof nm, "blk.%d.attn_output.bias", l); ok = ok && os_rows(m, nm, os.ob[l], 0, 1, 0, OSE, why, cap);
        snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.bias", l); ok = ok && os_rows(m, nm, os.rb[l], 0, 1, 0, OSX, why, cap);
        snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.weight", l); ok = ok && os_rows(m, nm, os.router[l], 0, 1, OSX, OSE, why, cap);
        snprintf(nm, sizeof nm, "blk.%d.attn_q.weight", l); ok = ok && os_rows(m, nm, os.q[l], 0, 1, OSE, OSE, why, cap);   /* (not permuted: NeoX) */
        snprintf(nm, sizeof nm, "blk.%d.ffn_norm.weight", l); ok = ok && os_rows(m, nm, os.fn[l], 0, 1, 0, OSE, why, cap);
    }
    return ok && srti_check_llama(m, why, cap) == 0;
}
static void test_gptoss(void) {
    char err[1024], dir[] = TMP "/gptoss", cfg[2048], why[512] = "", arch[16], p[512];
    float lq[TV], ld[TV], l4[TV];
    srt_model_info info;
    srti_model *m;
    int ok;
    double d = 1;
    os_fill();
    os_config(cfg, sizeof cfg, OSX, "7.0", "");
    os_write(dir, cfg, NULL, 0);
    m = open_dir(dir, err, sizeof err);
    ok = m && !strcmp(m->hp.arch, "gpt-oss") && m->hp.n_expert == OSX && m->hp.n_expert_used == 2 && m->hp.n_ff_exp == OSF && m->hp.expert_weights_norm == 1 &&
         m->hp.sliding_window == 4 && m->hp.swa_pattern == 2 && m->hp.rope_neox == 1 && m->hp.head_dim == 8 && m->hp.rope_theta == 150000.0f &&
         !strcmp(m->hp.rope_scaling, "yarn") && m->hp.rope_scale_factor == 32.0f && m->hp.rope_orig_ctx == 4096 && m->hp.yarn_exact == 1 && m->hp.norm_eps == 1e-5f;
    CHECK(ok, "tiny GptOssForCausalLM folder (MXFP4 experts): gpt-oss, 4 experts of 32, 2 used, softmax over the picked, window 4 on the even layers, NeoX, "
          "GptOssConfig's YaRN when rope_scaling is absent (32 over 4096, unrounded) (%s)", m ? "ok" : err);
    ok = m && os_check_values(m, why, sizeof why);
    CHECK(ok, "MXFP4 pairs decoded as transformers does (low nibble first, 2^(scale - 127)); gate_up_proj's rows and its BF16 bias's values split "
          "even (gate) / odd (up) per expert; down_proj, the sinks, the router and output biases in place; srti_check_llama passes (%s)", ok ? "ok" : m ? why : err);
    srti_close(m);
    memset(&info, 0, sizeof info);
    ok = mx_pack_eval(dir, "--weights f32", TMP "/oss_q.srt", lq, &info, arch, why, sizeof why);
    CHECK(ok && !strcmp(arch, "gpt-oss") && info.n_expert == OSX && info.n_swa_layers == 1 && info.swa_window == 4,
          "the MXFP4 folder packs (f32); it loads as gpt-oss with 1 sliding layer and evaluates 5 tokens to finite logits (%s)", ok ? "ok" : why);
    ok = mx_pack_eval(dir, "", TMP "/oss_4.srt", l4, &info, arch, why, sizeof why);
    ok = ok && srt_file_format(TMP "/oss_4.srt", "blk.1.ffn_up.3.weight") == SRT_FP4 && srt_file_format(TMP "/oss_4.srt", "blk.0.attn_q.weight") == SRT_F16;
    CHECK(ok, "srt-pack's defaults keep the MXFP4 experts as fp4, the other matrices f16 (%s)", ok ? "ok" : why);
    {   /* the packed fp4 matrices hold the MXFP4 values */
        static float v[OSE * OSF];
        uint32_t fmt = 99;
        int i, exact = 1;
        ok = ok && srt_read_tensor(TMP "/oss_4.srt", "blk.1.ffn_up.3.weight", v, &fmt) && fmt == SRT_FP4;
        for (i = 0; ok && i < OSF * OSE; i++) exact &= v[i] == os.gu[1][(3 * 2 * OSF + 1 + 2 * (i / OSE)) * OSE + i % OSE];
        ok = ok && srt_read_tensor(TMP "/oss_4.srt", "blk.0.ffn_down.1.weight", v, &fmt) && fmt == SRT_FP4;
        for (i = 0; ok && i < OSF * OSE; i++) exact &= v[i] == os.d[0][OSE * OSF + i];
        CHECK(ok && exact, "the packed fp4 experts (layer 1's up of expert 3, layer 0's down of expert 1) hold the MXFP4 values exactly");
    }
    d = max_rel_diff(l4, lq, TV);
    CHECK(d < 0.05, "the default pack's logits are near the f32 pack's (%.2g: f16 matrices, 8-bit activations in the fp4 kernels)", d);
    os_write(dir, cfg, NULL, 1);
    m = open_dir(dir, err, sizeof err);
    ok = m && os_check_values(m, why, sizeof why);
    CHECK(ok, "the dequantized folder (gate_up_proj [4, 32, 64] and down_proj [4, 32, 32], [expert, in, out]): each expert's matrices read "
          "transposed, gate and up the even and odd columns, equal to the MXFP4 folder's (%s)", ok ? "ok" : m ? why : err);
    srti_close(m);
    ok = mx_pack_eval(dir, "--weights f32", TMP "/oss_d.srt", ld, &info, arch, why, sizeof why);
    if (ok) d = max_rel_diff(ld, lq, TV);
    CHECK(ok && d == 0, "both folders pack (f32) to the same logits (max relative difference %.2g) (%s)", d, ok ? "ok" : why);
    remove(TMP "/oss_q.srt"); remove(TMP "/oss_4.srt"); remove(TMP "/oss_d.srt");
    /* refusals */
    os_write(dir, cfg, "layers.1.mlp.experts.down_proj_scales", 0);
    refuse(dir, "tensor 'blk.1.ffn_down_exps.weight' has MXFP4 blocks but no scales", "an MXFP4 pair without its scales");
    os_write(dir, cfg, "layers.0.mlp.experts.gate_up_proj_blocks", 0);
    refuse(dir, "tensor 'blk.0.ffn_gate_up_exps.weight' has MXFP4 scales but no blocks", "an MXFP4 pair without its blocks");
    os_write(dir, cfg, "layers.0.self_attn.sinks", 0);
    refuse_check(dir, "tensor 'blk.0.attn_sinks.weight' is missing", "a gpt-oss folder without layer 0's sinks");
    os_write(dir, cfg, "layers.1.mlp.experts.gate_up_proj_bias", 0);
    refuse_check(dir, "tensor 'blk.1.ffn_gate.0.bias' is missing", "a gpt-oss folder without layer 1's expert biases");
    os_config(cfg, sizeof cfg, OSX, "6.0", "");
    os_write(dir, cfg, NULL, 0);
    refuse(dir, "swiglu_limit 6 is not supported", "another swiglu_limit");
    os_config(cfg, sizeof cfg, 3, "7.0", "");
    os_write(dir, cfg, NULL, 0);
    refuse(dir, "cannot be split into 3 experts", "4 experts' tensors under num_local_experts 3");
    {   /* a pair whose halves disagree: scales of another row count */
        static unsigned char sc[OSX * 2 * OSF];
        st_tensor t[2] = {{"model.layers.0.mlp.experts.down_proj_blocks", "U8", 4, {OSX, OSE, 1, 16}, NULL},
                          {"model.layers.0.mlp.experts.down_proj_scales", "U8", 3, {OSX, 2 * OSE, 1, 0}, sc}};
        t[0].data = os.d_blk[0];
        os_config(cfg, sizeof cfg, OSX, "7.0", "");
        os_write(dir, cfg, NULL, 0);
        path_in(p, sizeof p, dir, "model.safetensors");
        write_safetensors(p, t, 2);
        refuse(dir, "does not match its MXFP4 blocks: 4 experts of 32 rows of 1 blocks", "scales of 64 rows for blocks of 32");
        t[1].nd = 4; t[1].shape[1] = OSE; t[1].shape[3] = 2;
        write_safetensors(p, t, 2);
        refuse(dir, "must be U8 [experts, rows, blocks] (MXFP4 scales)", "4-D scales");
        t[0].dtype = "I8"; t[1].nd = 3;
        write_safetensors(p, t, 2);
        refuse(dir, "must be U8 [experts, rows, blocks, 16] (MXFP4 blocks)", "I8 blocks");
    }
    m = random_open("GptOssForCausalLM", "", err, sizeof err);
    ok = m && !strcmp(m->hp.arch, "gpt-oss") && m->hp.n_expert == 128 && m->hp.n_expert_used == 4 &&
         m->hp.sliding_window == 128 && m->hp.swa_pattern == 2 && m->n_tensors == 3 + 2 * (6 + 3 + 2 + 2 + 6 * 128) && srti_check_llama(m, err, sizeof err) == 0;
    CHECK(ok, "random GptOssForCausalLM: GptOssConfig's defaults (128 experts, 4 used, window 128 on the even layers), every gpt-oss tensor, checked (%s)",
          ok ? "ok" : err);
    srti_close(m);
    if (!remove_tree(dir)) CHECK(0, "clean up");
}

/* Out of memory at each allocation of opening a folder in turn (one failing per run): every run
   opens it as the run where nothing fails does (tensors, vocabulary, merges, hyper-parameters) or
   fails saying "out of memory", and leaves nothing allocated. Every allocation when there are at
   most 200, else 200 spread over them (the first 100, then evenly). */
static uint64_t hf_hash(const srti_model *m) {
    uint64_t h = 1469598103934665603ull;
    uint32_t i;
    size_t k;
#define HF_HASH(ptr, len) do { const unsigned char *hp_ = (const unsigned char *)(ptr); size_t hn_ = (len); for (k = 0; k < hn_; k++) h = (h ^ hp_[k]) * 1099511628211ull; } while (0)
    HF_HASH(&m->hp.n_layer, sizeof m->hp.n_layer); HF_HASH(m->hp.arch, strlen(m->hp.arch)); HF_HASH(&m->n_tensors, sizeof m->n_tensors);
    for (i = 0; i < m->n_tensors; i++) { HF_HASH(m->tensors[i].name, strlen(m->tensors[i].name)); HF_HASH(m->tensors[i].ne, sizeof m->tensors[i].ne); }
    HF_HASH(&m->vocab.n_tokens, sizeof m->vocab.n_tokens); HF_HASH(&m->vocab.n_merges, sizeof m->vocab.n_merges);
    for (i = 0; i < m->vocab.n_tokens; i++) { HF_HASH(m->vocab.tokens[i], strlen(m->vocab.tokens[i])); HF_HASH(&m->vocab.types[i], sizeof *m->vocab.types); }
    for (i = 0; i < m->vocab.n_merges; i++) HF_HASH(m->vocab.merges[i], strlen(m->vocab.merges[i]));
#undef HF_HASH
    return h;
}
static void test_out_of_memory(void) {
    char tiny[] = TMP "/oom-tiny";
    const char *dirs[2];
    int i;
    make_tiny(tiny, "LlamaForCausalLM", NULL);
    dirs[0] = tiny; dirs[1] = SMOL;
    for (i = 0; i < 2; i++) {
        srti_model *m;
        char err[1024];
        long total, k, step, runs = 0, ooms = 0, bad = 0, live0 = hf_live;
        uint64_t h0;
        hf_allocs = 0; hf_fail_at = 0;
        if (!(m = open_dir(dirs[i], err, sizeof err))) { CHECK(0, "out of memory: %s opens (%s)", dirs[i], err); continue; }
        total = hf_allocs;
        h0 = hf_hash(m);
        srti_close(m);
        step = total <= 200 ? 1 : (total - 100) / 100 + 1;
        for (k = 1; k <= total; k += k < 100 ? 1 : step) {
            err[0] = 0;
            hf_allocs = 0; hf_fail_at = k;
            m = open_dir(dirs[i], err, sizeof err);
            hf_fail_at = 0;
            runs++;
            if (!m && strstr(err, "out of memory")) ooms++;
            else if (!m || hf_hash(m) != h0) { if (bad++ < 3) printf("# %s: allocation %ld of %ld failing: %s\n", dirs[i], k, total, m ? "another model" : err); }
            srti_close(m);
        }
        CHECK(!bad && ooms > 0 && hf_live == live0, "out of memory at %ld of the %ld allocations of opening %s: %ld out of memory, %ld other answers, %ld left allocated",
              runs, total, dirs[i], ooms, bad, hf_live - live0);
    }
}

int main(void) {
    HF_MKDIR("build"); HF_MKDIR("build/tmp");   /* (they may exist) */
    if (!fresh_dir(TMP)) { printf("FAIL - cannot make " TMP "\n"); return 1; }
    test_remove_tree();
    test_tiny_llama();
    test_eog_lists();
    test_fp8();
    test_tiny_phi3();
    test_gemma();
    test_gemma1();
    test_gemma_mm();
    test_moe();
    test_qwen2moe();
    test_smollm3();
    test_granite();
    test_granitemoe();
    test_olmo();
    test_exaone4();
    test_exaone3();
    test_minicpm();
    test_gptoss();
    test_malformed();
    test_tokenizers();
    test_smollm2_tokenizer();
    test_random();
    test_rope_parameters();
    test_smollm2_shape();
    test_out_of_memory();
    if (!remove_tree(TMP)) CHECK(0, "remove " TMP);
    return srt_test_finish();
}
