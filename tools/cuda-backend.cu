/* srt-bench-cuda: the CUDA backend for build/srt-bench-cuda (tools/srt-bench.c compiled with
   -DSRT_BENCH_CUDA, the core in it as usual; this file by nvcc with the flags of test-cuda). */
#define SPARSERT_CUDA
#include "sparsert_cuda.h"
