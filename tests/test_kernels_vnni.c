/* test_kernels again, the AVX-VNNI kernels run through their EVEX twins (SRT_TEST_AVXVNNI_EVEX in
   sparsert_x86.h), so that they run where AVX-VNNI does not (AMD Zen 4, qemu, valgrind). Skipped
   without AVX-512 VNNI. */
#define SRT_TEST_AVXVNNI_EVEX
#include "test_kernels.c"
