/* cuda-backend.cu: the CUDA backend's translation unit for the programs built with it
   (build/srt-bench-cuda: tools/srt-bench.c with -DSRT_BENCH_CUDA; build/srt-chat-cuda:
   demo/srt-chat.c with -DSRT_CHAT_CUDA; the core is in those as usual). Compiled once by nvcc
   with the flags of test-cuda (and by c++ against tests/cuda_emu for the -emu builds). */
#define SPARSERT_CUDA
#include "sparsert_cuda.h"
