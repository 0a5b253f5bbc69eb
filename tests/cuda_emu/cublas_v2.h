/* tests/cuda_emu/cublas_v2.h - cublasGemmEx for the CUDA emulator (tests/cuda_emu/cuda_runtime.h):
   column-major C = alpha op(A) op(B) + beta C with f32, f16 or bf16 inputs and f32 output, summed in
   double and rounded once (so within cuBLAS's error of the exact product, not bit for bit). The
   argument checks are cuBLAS's: sizes >= 0 and leading dimensions at least the rows stored. */
#ifndef SRT_CUDA_EMU_CUBLAS_H
#define SRT_CUDA_EMU_CUBLAS_H
#include "cuda_runtime.h"

typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14 } cudaDataType_t;
typedef enum { CUBLAS_COMPUTE_32F = 68 } cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
struct cublasContext { cudaStream_t stream; };
typedef cublasContext *cublasHandle_t;

static inline cublasStatus_t cublasCreate(cublasHandle_t *h) { *h = new cublasContext(); (*h)->stream = nullptr; return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasDestroy(cublasHandle_t h) { delete h; return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) { h->stream = s; return CUBLAS_STATUS_SUCCESS; }
static inline cublasStatus_t cublasGetVersion(cublasHandle_t, int *v) { *v = 130000; return CUBLAS_STATUS_SUCCESS; }
static inline const char *cublasGetStatusString(cublasStatus_t s) {
    return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : s == CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE" : "CUBLAS_STATUS_NOT_SUPPORTED";
}
static inline double srt_emu_blas_at(const void *p, cudaDataType_t t, size_t i) {
    if (t == CUDA_R_32F) return ((const float *)p)[i];
    const unsigned short h = ((const unsigned short *)p)[i];
    return t == CUDA_R_16F ? __half2float(__ushort_as_half(h)) : __uint_as_float((unsigned)h << 16);
}
static inline cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType_t at, int lda, const void *B, cudaDataType_t bt,
                                          int ldb, const void *beta, void *C, cudaDataType_t ct, int ldc, cublasComputeType_t comp,
                                          cublasGemmAlgo_t) {
    if (m < 0 || n < 0 || k < 0 || lda < (ta == CUBLAS_OP_N ? m : k) || lda < 1 || ldb < (tb == CUBLAS_OP_N ? k : n) || ldb < 1 ||
        ldc < m || ldc < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (ct != CUDA_R_32F || comp != CUBLAS_COMPUTE_32F || at != bt) return CUBLAS_STATUS_NOT_SUPPORTED;
    const float al = *(const float *)alpha, be = *(const float *)beta;
    srt_emu::enqueue(h->stream, [=]() {
        float *c = (float *)C;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0.0;
                for (int l = 0; l < k; l++)
                    s += srt_emu_blas_at(A, at, ta == CUBLAS_OP_N ? (size_t)i + (size_t)l * (size_t)lda : (size_t)l + (size_t)i * (size_t)lda) *
                         srt_emu_blas_at(B, bt, tb == CUBLAS_OP_N ? (size_t)l + (size_t)j * (size_t)ldb : (size_t)j + (size_t)l * (size_t)ldb);
                float &out = c[(size_t)i + (size_t)j * (size_t)ldc];
                out = (float)((double)al * s + (be != 0.0f ? (double)be * (double)out : 0.0));
            }
    });
    return CUBLAS_STATUS_SUCCESS;
}
#endif
