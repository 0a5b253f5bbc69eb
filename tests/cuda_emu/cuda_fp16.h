/* tests/cuda_emu/cuda_fp16.h - __half is in the emulator's cuda_runtime.h */
#include "cuda_runtime.h"
