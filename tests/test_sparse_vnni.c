/* test_sparse's kernel checks again, the AVX-VNNI kernels run through their EVEX twins
   (SRT_TEST_AVXVNNI_EVEX in sparsert_x86.h): this machine, qemu and valgrind lack AVX-VNNI.
   Skipped without AVX-512 VNNI. */
#define SRT_TEST_AVXVNNI_EVEX
#include "test_sparse.c"
