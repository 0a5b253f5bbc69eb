#!/usr/bin/env bash
# build.sh - no build system: plain cc invocations.
#   ./build.sh          build everything into build/
#   ./build.sh test     build, then run every test; last line "N passed, N failed"
#   ./build.sh test asan   the same, built with AddressSanitizer + UndefinedBehaviorSanitizer
#                          (any report fails the run; rerun ./build.sh afterwards for normal builds)
#   ./build.sh test wine   tools and tests cross-built for Windows (mingw-w64) into build/win/, run under wine
#   ./build.sh test arm    the same for aarch64 Linux (the portable kernels) into build/arm/, under qemu-aarch64
#                          (after wine or arm: the names of the tests to run, e.g. test_core fuzz_json; default all)
#   ./build.sh test tsan   every test built by clang with ThreadSanitizer (any report fails the run;
#                          compile.sh, test_ui, test_sycl and test_cuda are skipped); ./build.sh tsan is the same
#                          (both, like asan and valgrind, leave build/ to be rebuilt by ./build.sh)
#   ./build.sh test valgrind   plain -O1 -g build, then test_golden and the other tests that are cheap
#                          enough under valgrind memcheck (errors or definite/indirect leaks fail;
#                          kernels forced to avx2: valgrind has no AVX-512/AMX); ./build.sh valgrind too
#   ./build.sh test-ui  the SDL chat window under Xvfb (tests/test_ui.sh); screenshot: build/ui-test.png
#   ./build.sh sycl     the SYCL backend test (build/test-sycl, tests/test_sycl.cpp + sparsert_sycl.h), then runs it
#   ./build.sh cuda     the CUDA backend test (build/test-cuda, tests/test_cuda.cu + sparsert_cuda.h by nvcc), then runs it;
#                       also build/srt-bench-cuda (srt-bench with the gpu-* modes and e2e --backend cuda) and
#                       build/srt-ppl-cuda, build/srt-chat-cuda and build/srt-chat-sdl-cuda (srt-ppl, srt-chat and
#                       the window with --backend cuda)
#                       (without a CUDA device it runs its no-device checks and prints "skipped: GPU checks ...")
#   ./build.sh cuda-emu the same test on the CPU (build/test-cuda-emu: tests/test_cuda.cu by c++ against
#                       tests/cuda_emu, a CPU stand-in for the CUDA runtime; no nvcc or GPU needed), then runs it;
#                       also build/srt-bench-cuda-emu, srt-ppl-cuda-emu, srt-chat-cuda-emu and srt-chat-sdl-cuda-emu. ./build.sh and ./build.sh test build and run it too
#                       (not under asan, tsan, valgrind or cross builds); ./build.sh cuda-emu asan: under
#                       ASan + UBSan (device memory is heap memory: an out-of-bounds kernel access is a report)
#   ./build.sh fuzz SECONDS [TARGET...]   libFuzzer campaigns (clang, ASan+UBSan), each target for SECONDS:
#                       targets json srt gguf hf llama2c tokenizer chat state (default all, one after another);
#                       corpora and findings in build/fuzz/; non-zero exit on any finding (see run_fuzz)
# SYCL: SYCL_CXX (a SYCL compiler command), else icpx -fsycl, else acpp on PATH (ACPP_TARGETS, default omp);
# ./build.sh and ./build.sh test build and run test-sycl when one is found and say "skipped" when not.
# CUDA: NVCC (the nvcc command), else nvcc on PATH, else /usr/local/cuda/bin/nvcc; cuBLAS from the
# lib64 folder beside nvcc's bin (rpath set). ./build.sh and ./build.sh test build and run test-cuda
# (and build build/srt-bench-cuda) when nvcc is found (not under asan, tsan, valgrind or cross builds) and say "skipped" when not.
# Environment: CC (default cc), CXX (default c++), CFLAGS (extra flags), STB_INCLUDE (folder of the
# stb headers, default /usr/include/stb as Debian's libstb-dev installs them).
# build/srt-chat-sdl (demo/srt-chat-sdl.c) is built when SDL2 (pkg-config sdl2 or sdl2-config) and
# the stb headers are there, and skipped with a message otherwise; `test` runs test_ui when it was
# built and xvfb-run exists (under asan too, with the leak check off for the window: see test_ui.sh).
set -u
cd "$(dirname "$0")"
CC=${CC:-cc}
CXX=${CXX:-c++}
OPT="-O2 -g"
WARN="-Wall -Wextra -pedantic -Wno-unused-function"
LIBS="-lm -pthread"
B=build
mkdir -p "$B"
case "${1:-}" in tsan|valgrind) set -- test "$1" ;; esac   # the short spellings
SANITIZE=${2:-}
CROSS=""   # wine or arm for ./build.sh test wine|arm; EXE: the programs' file suffix
EXE=""
if [ "${1:-}" = fuzz ]; then :   # its own arguments: see run_fuzz
elif [ "${2:-}" = asan ]; then
    # -g1: line tables, all a report's stack needs; -g's variable locations made the build 1.45x longer
    OPT="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
elif [ "${1:-}" = test ] && { [ "${2:-}" = wine ] || [ "${2:-}" = arm ]; }; then
    # cross builds: CC and the emulator EMU per target; SRT_SHARED as seen from build/win or build/arm
    # (the folder the tests run in, see run_cross_tests)
    CROSS=$2; SANITIZE=""; CROSS_DIR=build/${CROSS/wine/win}; B=$CROSS_DIR/bin; mkdir -p "$B"
    OPT="-O2 -g1"   # line tables only: no debugger runs under the emulators
    if [ "$CROSS" = wine ]; then
        CC=${WINE_CC:-x86_64-w64-mingw32-gcc}; EMU=${WINE:-wine}; EXE=.exe
        LIBS="tests/wine_started.c -lm"   # the witness of a start that the wrapper scripts look for
        pkgs="gcc-mingw-w64-x86-64 wine64"; export WINEDEBUG=${WINEDEBUG:--all}
        export WINEPREFIX=${WINEPREFIX:-$PWD/$CROSS_DIR/wineprefix}   # made on first use (seconds)
    else
        CC=${ARM_CC:-aarch64-linux-gnu-gcc}; EMU="${QEMU:-qemu-aarch64} -L ${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}"
        pkgs="gcc-aarch64-linux-gnu qemu-user"
    fi
    for tool in $CC ${EMU%% *}; do
        command -v "$tool" >/dev/null 2>&1 && continue
        echo "cannot run ./build.sh test $CROSS: $tool not found (Debian: apt-get install $pkgs)" >&2; exit 1
    done
    CFLAGS="${CFLAGS:-} -DSRT_SHARED=\"../../../shared\""
elif [ "${2:-}" = tsan ] && [ "${1:-}" = test ]; then
    # the tools the tests run (srt-pack, srt-chat) are TSan builds too; a report exits 66
    CC=${TSAN_CC:-clang}
    OPT="-O1 -g -fsanitize=thread"
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
    export SRT_TEST_SLOW=tsan     # tests that are far too slow under TSan do less (see each test)
elif [ "${2:-}" = valgrind ] && [ "${1:-}" = test ]; then
    command -v valgrind >/dev/null 2>&1 || { echo "valgrind not found (Debian: apt-get install valgrind)" >&2; exit 2; }
    OPT="-O1 -g"
    export SRT_TEST_SLOW=valgrind
elif [ -n "${2:-}" ]; then
    echo "usage: ./build.sh [test [asan | tsan | valgrind | wine | arm] | test-ui [asan] | tsan | valgrind | sycl | cuda | cuda-emu [asan] | fuzz SECONDS [TARGET...]]" >&2; exit 2
fi

fail=0
note() { printf '%s\n' "$*" >&2; }
# The implementation is compiled once per run, into $B/sparsert.o: a program is compiled with
# -DSPARSERT_IMPLEMENTATION_DONE (its own SPARSERT_IMPLEMENTATION then declares only) and linked with
# it. A copy of the implementation was ~12 of the ~14 s each program took to compile, and 40
# programs had one. OWN_IMPL: the programs that use internals (srt__* functions, the fields of
# srt_model) and so compile their own copy.
OWN_IMPL=" bench-attn bench-grammar fuzz_srt fuzz_state fuzz_grammar fuzz_tokenizer test_core test_grammar test_kernels test_kernels_vnni test_kv test_oom test_sparse test_sparse_vnni test_spec test_state test_tokenizer "
CORE=$B/sparsert.o CORE_PID="" CORE_READY=0
core_start() {   # in the background; a failure leaves $B/.failed and no $CORE
    rm -f "$CORE"
    printf '#define SPARSERT_IMPLEMENTATION\n#include "sparsert.h"\n' > "$B/sparsert.c"
    { $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -c -o "$CORE" "$B/sparsert.c" || { note "build failed: sparsert.o"; : > "$B/.failed"; }; } &
    CORE_PID=$!
}
core_wait() {    # starts it if nobody did; 1 when it did not build
    [ "$CORE_READY" = 0 ] || return $((CORE_READY - 1))   # 1: built, 2: failed
    [ -n "$CORE_PID" ] || core_start
    wait "$CORE_PID"; CORE_PID=""   # its status may be gone (a wait -n took it): the file tells
    if [ -f "$CORE" ]; then CORE_READY=1; else CORE_READY=2 fail=1; fi
    [ "$CORE_READY" = 1 ]
}
own_impl() { [[ "$OWN_IMPL" == *" $1 "* ]]; }
# cc_prog OUT SRC... : one program from one or more C files (a failure also leaves $B/.failed,
# for the copies that run in the background). Call core_wait first where it runs in the background.
cc_prog() {
    local out=$1; shift
    local linked="" core=""
    if ! own_impl "$out"; then
        core_wait || { note "build failed: $out (no sparsert.o)"; : > "$B/.failed"; return; }
        linked=-DSPARSERT_IMPLEMENTATION_DONE core=$CORE
    fi
    if ! $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} $linked -o "$B/$out$EXE" "$@" $core $LIBS; then
        note "build failed: $out"; fail=1; : > "$B/.failed"
    fi
}
# cc_bg OUT SRC... : cc_prog in the background, at most JOBS (default: the CPU count) at a time
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
cc_bg() {
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || true; done
    cc_prog "$@" &
}

# The SDL2 chat window and the PNG checker of its test. HAVE_SDL: 1 built, 0 skipped, 2 failed;
# SDL_CFLAGS / SDL_LIBS for the window's CUDA builds (build_cuda, build_cuda_emu).
STB_INCLUDE=${STB_INCLUDE:-/usr/include/stb}
HAVE_SDL=0 SDL_CFLAGS= SDL_LIBS=
build_sdl() {
    local sdl_cflags sdl_libs
    rm -f "$B/srt-chat-sdl" "$B/ui-png-ink" "$B/ui-make-chat"
    if pkg-config --exists sdl2 2>/dev/null; then
        sdl_cflags=$(pkg-config --cflags sdl2); sdl_libs=$(pkg-config --libs sdl2)
    elif command -v sdl2-config >/dev/null 2>&1; then
        sdl_cflags=$(sdl2-config --cflags); sdl_libs=$(sdl2-config --libs)
    else
        note "skipping srt-chat-sdl: SDL2 not found (Debian: apt-get install libsdl2-dev)"; return
    fi
    if [ ! -f "$STB_INCLUDE/stb_truetype.h" ] || [ ! -f "$STB_INCLUDE/stb_image_write.h" ]; then
        note "skipping srt-chat-sdl: stb headers not found in $STB_INCLUDE (Debian: apt-get install libstb-dev)"; return
    fi
    sdl_cflags=$(printf '%s' "$sdl_cflags" | sed 's/-I/-isystem /g')   # no warnings from SDL's own headers
    if ! core_wait ||
       ! $CC -std=c99 $OPT $WARN -I. -isystem "$STB_INCLUDE" $sdl_cflags ${CFLAGS:-} -DSPARSERT_IMPLEMENTATION_DONE -o "$B/srt-chat-sdl" demo/srt-chat-sdl.c "$CORE" $sdl_libs $LIBS; then
        note "build failed: srt-chat-sdl"; fail=1; HAVE_SDL=2; return
    fi
    if ! $CC -std=c99 $OPT $WARN -isystem "$STB_INCLUDE" ${CFLAGS:-} -o "$B/ui-png-ink" tests/ui/png_ink.c $LIBS; then
        note "build failed: ui-png-ink"; fail=1; HAVE_SDL=2; return
    fi
    if ! $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -DSPARSERT_IMPLEMENTATION_DONE -o "$B/ui-make-chat" tests/ui/make_chat.c "$CORE" $LIBS; then
        note "build failed: ui-make-chat"; fail=1; HAVE_SDL=2; return
    fi
    HAVE_SDL=1 SDL_CFLAGS="-isystem $STB_INCLUDE $sdl_cflags" SDL_LIBS=$sdl_libs
}

# test_ui when it can run; a clear line when it cannot
run_ui_test() {
    if [ "$HAVE_SDL" = 2 ]; then
        echo "FAIL - srt-chat-sdl did not build"; FAILED=$((FAILED + 1))
    elif [ "$SANITIZE" = tsan ] || [ "$SANITIZE" = valgrind ]; then
        echo "skipped test_ui: not under $SANITIZE (SDL, Xvfb and Mesa are not instrumented; asan runs it)"
    elif [ "$HAVE_SDL" != 1 ]; then
        echo "skipped test_ui: srt-chat-sdl was not built (needs libsdl2-dev and libstb-dev)"
    elif ! command -v xvfb-run >/dev/null 2>&1; then
        echo "skipped test_ui: xvfb-run not found (Debian: apt-get install xvfb xauth)"
    else
        run_test test_ui tests/test_ui.sh
    fi
}

# The SYCL backend test: the C core compiled by CC, tests/test_sycl.cpp (with sparsert_sycl.h) by the
# SYCL compiler, linked by it. HAVE_SYCL: 1 built, 0 no compiler (or asan), 2 failed.
HAVE_SYCL=0
SYCL_WHY=""
find_sycl() {
    if [ -n "${SYCL_CXX:-}" ]; then SYCL_CMD="$SYCL_CXX -O2 -ffp-contract=off"
    elif command -v icpx >/dev/null 2>&1; then SYCL_CMD="icpx -fsycl -O2 -fp-model=precise -fsycl-fp32-prec-sqrt -ffp-contract=off"
    elif command -v acpp >/dev/null 2>&1; then SYCL_CMD="acpp --acpp-targets=${ACPP_TARGETS:-omp} -O2 -ffp-contract=off -Wno-pass-failed"
    else return 1; fi
}
build_sycl() {
    rm -f "$B/test-sycl"
    if [ -n "${2:-}" ]; then SYCL_WHY="not under ${2}"; return; fi
    if ! find_sycl; then SYCL_WHY="no SYCL compiler (set SYCL_CXX, or put icpx or acpp on PATH: see README, SYCL backend)"; return; fi
    if ! core_wait || ! $SYCL_CMD -I. -o "$B/test-sycl" tests/test_sycl.cpp "$CORE" $LIBS; then
        note "build failed: test-sycl ($SYCL_CMD)"; fail=1; HAVE_SYCL=2; return
    fi
    HAVE_SYCL=1
}
run_sycl_test() {
    if [ "$HAVE_SYCL" = 2 ]; then echo "FAIL - test-sycl did not build"; FAILED=$((FAILED + 1))
    elif [ "$HAVE_SYCL" = 1 ]; then run_test test_sycl "$B/test-sycl"
    else echo "skipped test_sycl: $SYCL_WHY"; fi
}

# The CUDA backend test: the C core compiled by CC, tests/test_cuda.cu (with sparsert_cuda.h) by nvcc,
# linked by nvcc with cuBLAS. HAVE_CUDA: 1 built, 0 no nvcc (or asan/tsan/valgrind), 2 failed.
HAVE_CUDA=0
CUDA_WHY=""
find_nvcc() {
    if [ -n "${NVCC:-}" ]; then NVCC_CMD=$NVCC
    elif command -v nvcc >/dev/null 2>&1; then NVCC_CMD=nvcc
    elif [ -x /usr/local/cuda/bin/nvcc ]; then NVCC_CMD=/usr/local/cuda/bin/nvcc
    else return 1; fi
    local bin; bin=$(command -v "${NVCC_CMD%% *}") || return 1
    CUDA_LIB=$(cd "$(dirname "$bin")/.." && pwd)/lib64
    [ -d "$CUDA_LIB" ] || CUDA_LIB=$(cd "$(dirname "$bin")/.." && pwd)/lib
}
# nvcc_prog OUT FILES... : one program by nvcc with the CUDA flags (-fmad=false: no a*b+c contraction,
# the reference-order kernels are bit-exact; sm_80 and sm_90 SASS), cuBLAS and the rpath to it
NVCC_FLAGS="-std=c++17 -O2 -fmad=false -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -Xcompiler -Wall,-Wextra -I."
nvcc_prog() {
    local out=$1; shift
    $NVCC_CMD $NVCC_FLAGS -o "$B/$out" "$@" -L"$CUDA_LIB" -lcublas -Xlinker -rpath,"$CUDA_LIB" -lm -lpthread
}
build_cuda() {
    local bench
    rm -f "$B/test-cuda" "$B/srt-bench-cuda" "$B/srt-chat-cuda" "$B/srt-chat-sdl-cuda" "$B/srt-ppl-cuda"
    if [ -n "${2:-}" ]; then CUDA_WHY="not under ${2}"; return; fi
    if ! find_nvcc; then CUDA_WHY="no nvcc (set NVCC, or put nvcc on PATH: see README, CUDA backend)"; return; fi
    core_wait || { note "build failed: test-cuda (no sparsert.o)"; HAVE_CUDA=2; return; }
    # beside test-cuda, the tools with the backend (tools/cuda-backend.cu, compiled once):
    # build/srt-bench-cuda (tools/srt-bench.c with -DSRT_BENCH_CUDA), build/srt-ppl-cuda (-DSRT_PPL_CUDA),
    # build/srt-chat-cuda and, with SDL, build/srt-chat-sdl-cuda (demo/srt-chat.c, demo/srt-chat-sdl.c with -DSRT_CHAT_CUDA),
    # each with sparsert.o
    local cc="$CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -DSPARSERT_IMPLEMENTATION_DONE"
    { $cc -DSRT_BENCH_CUDA -c -o "$B/srt-bench-cuda.o" tools/srt-bench.c &&
      $cc -DSRT_PPL_CUDA -c -o "$B/srt-ppl-cuda.o" tools/srt-ppl.c &&
      $cc -DSRT_CHAT_CUDA -c -o "$B/srt-chat-cuda.o" demo/srt-chat.c &&
      $NVCC_CMD $NVCC_FLAGS -c -o "$B/cuda-backend.o" tools/cuda-backend.cu &&
      nvcc_prog srt-bench-cuda "$B/cuda-backend.o" "$B/srt-bench-cuda.o" "$CORE" &&
      nvcc_prog srt-ppl-cuda "$B/cuda-backend.o" "$B/srt-ppl-cuda.o" "$CORE" &&
      nvcc_prog srt-chat-cuda "$B/cuda-backend.o" "$B/srt-chat-cuda.o" "$CORE" &&
      { [ "$HAVE_SDL" != 1 ] ||
        { $cc $SDL_CFLAGS -DSRT_CHAT_CUDA -c -o "$B/srt-chat-sdl-cuda.o" demo/srt-chat-sdl.c &&
          nvcc_prog srt-chat-sdl-cuda "$B/cuda-backend.o" "$B/srt-chat-sdl-cuda.o" "$CORE" $SDL_LIBS; }; }; } &
    bench=$!
    HAVE_CUDA=1
    if ! nvcc_prog test-cuda tests/test_cuda.cu "$CORE"; then
        note "build failed: test-cuda ($NVCC_CMD)"; fail=1; HAVE_CUDA=2
    fi
    if ! wait "$bench"; then note "build failed: srt-bench-cuda / srt-ppl-cuda / srt-chat-cuda / srt-chat-sdl-cuda ($NVCC_CMD)"; fail=1; fi
}
run_cuda_test() {
    if [ "$HAVE_CUDA" = 2 ]; then echo "FAIL - test-cuda did not build"; FAILED=$((FAILED + 1))
    elif [ "$HAVE_CUDA" = 1 ]; then
        run_test test_cuda "$B/test-cuda"
        grep '^skipped:' "$B/test_cuda.log" | sed 's/^/[test_cuda] /'   # no device: say so in the summary
    else echo "skipped test_cuda: $CUDA_WHY"; fi
}

# The CUDA backend on the CPU: tests/test_cuda.cu and tools/cuda-backend.cu compiled by CXX against
# tests/cuda_emu (a CPU stand-in for the CUDA runtime and cuBLAS), with sparsert_cuda.h's kernel launches
# rewritten into calls (k<<<grid, block, smem, stream>>>(args) -> srt_emu::launch(k, grid, block, smem,
# stream)(args)) in build/cuda-emu/. Needs neither nvcc nor a GPU, so the GPU checks of test_cuda run
# everywhere: build/test-cuda-emu, build/srt-bench-cuda-emu, build/srt-chat-cuda-emu. HAVE_CUDA_EMU: 1 built, 0 skipped, 2 failed.
HAVE_CUDA_EMU=0
CUDA_EMU_WHY=""
build_cuda_emu() {
    local E=$B/cuda-emu bench flags
    rm -f "$B/test-cuda-emu" "$B/srt-bench-cuda-emu" "$B/srt-ppl-cuda-emu" "$B/srt-chat-cuda-emu" "$B/srt-chat-sdl-cuda-emu"
    # ASan only when asked for alone (./build.sh cuda-emu asan: ~7 minutes, too long for every CI run)
    if [ -n "${2:-}" ] && ! [ "$1 $2" = "cuda-emu asan" ]; then
        CUDA_EMU_WHY="not under ${2} (./build.sh test runs it; ./build.sh cuda-emu asan under ASan)"; return
    fi
    case $($CXX -dumpmachine 2>/dev/null) in
        x86_64*) ;;
        *) CUDA_EMU_WHY="its fibers are written for x86-64 ($CXX builds for $($CXX -dumpmachine 2>/dev/null || echo '?'))"; return ;;
    esac
    mkdir -p "$E"
    sed -E 's/([A-Za-z_][A-Za-z_0-9]*(<[A-Za-z_0-9, ]+>)?)<<<(([^>]|>[^>]|>>[^>])*)>>>/srt_emu::launch(\1, \3)/g' sparsert_cuda.h > "$E/sparsert_cuda.h"
    if grep -n '<<<' "$E/sparsert_cuda.h" >&2; then   # a launch the rewrite does not understand
        note "build failed: test-cuda-emu (kernel launches above not rewritten; keep each <<<...>>> on one line)"; fail=1; HAVE_CUDA_EMU=2; return
    fi
    core_wait || { note "build failed: test-cuda-emu (no sparsert.o)"; HAVE_CUDA_EMU=2; return; }
    # SRT__CU_NORM_WIN=128: RMSNorm's shared-memory window (4096 floats on a GPU) at its smallest,
    # so that the test's models of width 256 take the window-crossing path too
    flags="-std=c++17 $OPT -ffp-contract=off $WARN -Wno-unknown-pragmas -DSRT_CUDA_EMULATOR -DSRT__CU_NORM_WIN=128 -I$E -Itests/cuda_emu -I."
    local cc="$CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -DSPARSERT_IMPLEMENTATION_DONE"
    { $cc -DSRT_BENCH_CUDA -c -o "$E/srt-bench.o" tools/srt-bench.c &&
      $cc -DSRT_PPL_CUDA -c -o "$E/srt-ppl.o" tools/srt-ppl.c &&
      $cc -DSRT_CHAT_CUDA -c -o "$E/srt-chat.o" demo/srt-chat.c &&
      $CXX $flags -c -o "$E/cuda-backend.o" -x c++ tools/cuda-backend.cu &&
      $CXX $flags -o "$B/srt-bench-cuda-emu" "$E/cuda-backend.o" "$E/srt-bench.o" "$CORE" $LIBS &&
      $CXX $flags -o "$B/srt-ppl-cuda-emu" "$E/cuda-backend.o" "$E/srt-ppl.o" "$CORE" $LIBS &&
      $CXX $flags -o "$B/srt-chat-cuda-emu" "$E/cuda-backend.o" "$E/srt-chat.o" "$CORE" $LIBS &&
      { [ "$HAVE_SDL" != 1 ] ||
        { $cc $SDL_CFLAGS -DSRT_CHAT_CUDA -c -o "$E/srt-chat-sdl.o" demo/srt-chat-sdl.c &&
          $CXX $flags -o "$B/srt-chat-sdl-cuda-emu" "$E/cuda-backend.o" "$E/srt-chat-sdl.o" "$CORE" $SDL_LIBS $LIBS; }; }; } &
    bench=$!
    HAVE_CUDA_EMU=1
    if ! $CXX $flags -o "$B/test-cuda-emu" -x c++ tests/test_cuda.cu -x none "$CORE" $LIBS; then
        note "build failed: test-cuda-emu ($CXX)"; fail=1; HAVE_CUDA_EMU=2
    fi
    if ! wait "$bench"; then note "build failed: srt-bench-cuda-emu / srt-ppl-cuda-emu / srt-chat-cuda-emu / srt-chat-sdl-cuda-emu ($CXX)"; fail=1; fi
}
run_cuda_emu_test() {
    if [ "$HAVE_CUDA_EMU" = 2 ]; then echo "FAIL - test-cuda-emu did not build"; FAILED=$((FAILED + 1))
    elif [ "$HAVE_CUDA_EMU" = 1 ] && [ "$BG_NAME" = test_cuda_emu ]; then run_test_wait   # started by run_tests
    elif [ "$HAVE_CUDA_EMU" = 1 ]; then run_test test_cuda_emu "$B/test-cuda-emu"
    else echo "skipped test_cuda_emu: $CUDA_EMU_WHY"; fi
}

# wanted NAME: whether build_all builds test or fuzz target NAME. A cross run named tests
# (./build.sh test wine test_core ...) builds those alone (and the tools), and runs no fuzz target
# but fuzz_json (to keep the cross runs short).
CROSS_ONLY=""
[ -n "$CROSS" ] && CROSS_ONLY="${*:3}"
wanted() {
    if [ -z "$CROSS" ]; then return 0; fi
    if [ -z "$CROSS_ONLY" ]; then [ "${1#fuzz_}" = "$1" ] || [ "$1" = fuzz_json ]; return; fi
    [[ " $CROSS_ONLY " == *" $1 "* ]]
}
build_all() {
    local t name p progs=()
    rm -f "$B/.failed"
    progs=(srt-pack:tools/srt-pack.c srt-tokenize:tools/srt-tokenize.c srt-chat:demo/srt-chat.c
           srt-bench:tools/srt-bench.c srt-ppl:tools/srt-ppl.c gen-unicode:tools/gen-unicode.c)
    # micro-benchmarks (README: Q8 KV cache, constrained decoding), not under sanitizers (their times mean nothing)
    [ -n "$CROSS" ] || [ -n "$SANITIZE" ] || progs+=(bench-attn:tests/bench_attn.c bench-grammar:tests/bench_grammar.c)
    for t in $FUZZ_TARGETS; do wanted "fuzz_$t" && progs+=("fuzz_$t:tests/fuzz_$t.c"); done
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        name=$(basename "$t" .c)
        wanted "$name" && progs+=("$name:$t")
    done
    # sparsert.o beside the programs with their own copy (the long compiles), then the rest
    core_start
    for p in "${progs[@]}"; do own_impl "${p%%:*}" && cc_bg "${p%%:*}" "${p#*:}"; done
    core_wait
    for p in "${progs[@]}"; do own_impl "${p%%:*}" || cc_bg "${p%%:*}" "${p#*:}"; done
    wait
    [ -e "$B/.failed" ] && fail=1
    [ -n "$CROSS" ] && return   # cross builds: the tools and the C tests only
    build_sdl
    build_sycl "$@"
    build_cuda "$@"
    build_cuda_emu "$@"
}

# Runs one test program; its "ok -"/"FAIL -" lines are counted.
PASSED=0; FAILED=0
# Under qemu (arm) a run is stopped after ARM_TEST_LIMIT s (the longest, test_golden, takes ~300)
# and started once more, said aloud: qemu-user once deadlocked the child of a fork (system()) in
# test_state in CI, and CI waited for it. timeout signals the whole process group, the child too.
ARM_TEST_LIMIT=${ARM_TEST_LIMIT:-600}
run_test() {
    local name=$1 t0=$SECONDS rc; shift
    if [ "$CROSS" = arm ]; then
        timeout -k 10 "$ARM_TEST_LIMIT" "$@" >"$B/$name.log" 2>&1; rc=$?
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "[$name] still running after $ARM_TEST_LIMIT s under qemu (a deadlocked fork?); its output's end:"
            tail -n 5 "$B/$name.log" | sed "s/^/[$name]   /"
            echo "[$name] starting it once more"
            timeout -k 10 "$ARM_TEST_LIMIT" "$@" >"$B/$name.log" 2>&1; rc=$?
        fi
    else "$@" >"$B/$name.log" 2>&1; rc=$?; fi
    test_result "$name" "$rc" "$t0" "$@"
}
# run_test_bg NAME CMD... / run_test_wait: the same for one test run beside the others (its summary
# line when waited for)
BG_NAME="" BG_PID="" BG_T0=0
run_test_bg() {
    BG_NAME=$1 BG_T0=$SECONDS; shift
    rm -f "$B/$BG_NAME.rc"
    { "$@" >"$B/$BG_NAME.log" 2>&1; echo $? >"$B/$BG_NAME.rc"; } &
    BG_PID=$!
}
run_test_wait() {
    wait "$BG_PID"
    test_result "$BG_NAME" "$(cat "$B/$BG_NAME.rc" 2>/dev/null || echo 1)" "$BG_T0"
}
# test_result NAME STATUS T0 [CMD...]: counts the log's "ok -"/"FAIL -" lines (CMD: to start again under wine)
test_result() {
    local name=$1 rc=$2 t0=$3; shift 3
    local log="$B/$name.log" p f
    p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^FAIL - ' "$log")
    # wine once failed a start in CI (a test that needs nothing exited 1 before its first check, and
    # 40 local runs of it were clean): a program that checked nothing gets one more start, said aloud
    if [ "$CROSS" = wine ] && [ "$rc" -ne 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "[$name] exited with status $rc before its first check; its output:"; tail -n 20 "$log" | sed "s/^/[$name]   /"
        echo "[$name] starting it once more (wine start failure?)"
        "$@" >"$log" 2>&1; rc=$?
        p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^FAIL - ' "$log")
    fi
    # a sanitizer or valgrind report fails the test even where the program's own checks all passed
    if grep -q '^WARNING: ThreadSanitizer\|^==[0-9]*==ERROR: \(Address\|Leak\)Sanitizer\|ERROR SUMMARY: [1-9]' "$log"; then
        f=$((f + 1)); echo "FAIL - $name: sanitizer/valgrind report (see $log)" >>"$log"
    elif [ "$SANITIZE" = valgrind ] && [ "$rc" -eq 99 ]; then   # $VALGRIND's --error-exitcode
        f=$((f + 1)); echo "FAIL - $name: valgrind found errors or leaks (see $log)" >>"$log"
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then   # show why: the log is not kept by CI
        f=1; tail -n 20 "$log" | sed "s/^/[$name]   /"; echo "FAIL - $name exited with status $rc" >>"$log"
    elif [ "${name#test_}" != "$name" ] && [ -f "tests/$name.c" ] && ! grep -q "^$p checks passed, $f failed"$'\r'"\?\$" "$log"; then   # (\r: Windows' line ends)
        # a C test (not a fuzz target) ends with its own count (tests/testing.h): without it, or with other numbers, some of
        # its output was lost (under wine test_hf once lost its stdout part way and exited 0)
        echo "FAIL - $name: its output was cut short (no \"$p checks passed, $f failed\" at its end)" >>"$log"; f=$((f + 1)); fi
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    grep '^FAIL - ' "$log" | sed "s/^/[$name] /"
    printf '%-28s %4d passed, %d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0))
}

# Under valgrind: the tests that take at most a few minutes there (test_golden ~15, the rest < 1;
# test_sparse alone takes > 3, test_hf, test_import, test_prune and test_pool mostly run tools or
# threads that asan and tsan cover), with SRT_ISA=avx2 because valgrind cannot decode AVX-512,
# AVX-VNNI or AMX instructions (its CPUID hides them, so test_kernels checks portable and avx2).
VALGRIND_TESTS=${VALGRIND_TESTS:-"test_golden test_core test_arch test_limits test_tokenizer test_json test_chat test_kernels"}
VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --fair-sched=yes"
run_tests() {
    # The run's longest test starts first and runs beside the others (one core each; its files in
    # build/tmp are its own; its summary comes last): test_cuda_emu (~100 s on the emulator) where
    # it was built, else under ASan test_sparse (~75 s there)
    if [ "$HAVE_CUDA_EMU" = 1 ]; then run_test_bg test_cuda_emu "$B/test-cuda-emu"
    elif [ "$SANITIZE" = asan ] && [ -x "$B/test_sparse" ]; then run_test_bg test_sparse "$B/test_sparse"; fi
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        local name; name=$(basename "$t" .c)
        if [ "$name" = "$BG_NAME" ]; then continue
        elif [ ! -x "$B/$name" ]; then echo "FAIL - $name did not build"; FAILED=$((FAILED + 1))
        elif [ "$SANITIZE" != valgrind ]; then run_test "$name" "$B/$name"
        elif [[ " $VALGRIND_TESTS " == *" $name "* ]]; then run_test "$name" env SRT_ISA=avx2 $VALGRIND "$B/$name"
        else echo "skipped $name: not in VALGRIND_TESTS"; fi
    done
    if [ "$SANITIZE" = valgrind ]; then
        echo "$PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]; return
    fi
    [ -x tests/test_bench.sh ] && run_test test_bench tests/test_bench.sh
    # fuzz targets: their seed corpus (committed + generated) plus deterministic mutations
    # (libFuzzer builds: ./build.sh fuzz, and the files)
    local t
    for t in $FUZZ_TARGETS; do
        if [ ! -x "$B/fuzz_$t" ]; then echo "FAIL - fuzz_$t did not build"; FAILED=$((FAILED + 1))
        elif ! fuzz_seeds "$t"; then echo "FAIL - fuzz_$t: could not make its seeds"; FAILED=$((FAILED + 1))
        else run_test "fuzz_$t" "$B/fuzz_$t" $(fuzz_inputs "$t"); fi
    done
    # compile.sh checks the compilers' diagnostics, which no sanitizer changes: once, in the plain run
    if [ -n "$SANITIZE" ]; then echo "skipped compile: not under $SANITIZE (the plain ./build.sh test runs it)"
    elif [ -x tests/compile.sh ]; then run_test compile tests/compile.sh; fi
    run_ui_test
    run_sycl_test
    run_cuda_test
    run_cuda_emu_test
    [ "$BG_NAME" = test_sparse ] && run_test_wait
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]
}

# ./build.sh test wine|arm. The tests expect the repository root as their folder (build/srt-pack,
# build/tmp, tests/...); build/$CROSS stands in for it: build -> ., tests -> ../../tests, sparsert.h,
# and a wrapper script per program in bin/ that starts it under the emulator, so that the tests'
# shell commands ("build/srt-pack ...") run the cross-built tools as well.
run_cross_tests() {
    local root=$CROSS_DIR only=" $* " p name t
    ln -sfn . "$root/build"; ln -sfn ../../tests "$root/tests"; ln -sfn ../../sparsert.h "$root/sparsert.h"
    for p in "$B"/*"$EXE"; do
        name=$(basename "$p" "$EXE")
        if [ "$CROSS" = wine ]; then   # once more when wine did not start it (tests/wine_started.c)
            cat > "$root/$name" <<EOF
#!/bin/sh
w=.srt-started-\$\$; rm -f "\$w"
SRT_WINE_STARTED=\$w $EMU "\$(dirname "\$0")/bin/$name$EXE" "\$@"; rc=\$?
if [ \$rc -ne 0 ] && [ ! -e "\$w" ]; then
    echo "[\$0] wine did not start it (status \$rc): once more" >&2
    SRT_WINE_STARTED=\$w $EMU "\$(dirname "\$0")/bin/$name$EXE" "\$@"; rc=\$?
fi
rm -f "\$w"; exit \$rc
EOF
        else printf '#!/bin/sh\nexec %s "$(dirname "$0")/bin/%s" "$@"\n' "$EMU" "$name$EXE" > "$root/$name"; fi
        chmod +x "$root/$name"
    done
    cd "$root" || return 1
    B=.
    # one wineserver for the whole run (it stays 30 s after the last program): wine's own stops and
    # starts between the programs failed starts ("wine client error: ... Connection reset by peer").
    # Started before anything else: `wineserver -p30` beside a running server (wineboot's, which
    # exits with its last program) does nothing, and that was how CI kept getting the failures.
    if [ "$CROSS" = wine ]; then
        mkdir -p "$WINEPREFIX"
        ${WINESERVER:-wineserver} -k >/dev/null 2>&1; ${WINESERVER:-wineserver} -w >/dev/null 2>&1
        ${WINESERVER:-wineserver} -p30 || true
        [ -f "$WINEPREFIX/system.reg" ] || $EMU wineboot -i >/dev/null 2>&1
    fi
    for name in "$@"; do   # names given that are no test
        [ -e "tests/$name.c" ] || [ "$name" = test_bench ] || [ "$name" = fuzz_json ] && continue
        echo "FAIL - no test $name"; FAILED=$((FAILED + 1))
    done
    for t in tests/test_*.c test_bench fuzz_json; do
        name=$(basename "$t" .c)
        [ "$only" = "  " ] || [ "${only/ $name /}" != "$only" ] || continue
        if [ "$name" = test_bench ]; then run_test test_bench tests/test_bench.sh
        elif [ ! -x "bin/$name$EXE" ]; then echo "FAIL - $name did not build"; FAILED=$((FAILED + 1))
        elif [ "$name" = fuzz_json ]; then run_test fuzz_json ./fuzz_json tests/fuzz/json/*
        else run_test "$name" "./$name"; fi
    done
    echo "skipped compile, test_ui, test_sycl, test_cuda: host builds only (./build.sh test)"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]
}

# Fuzz targets (tests/fuzz_TARGET.c; tests/fuzz_common.h says how to build them for AFL++).
# Seeds: tests/fuzz/TARGET/ (small, committed) + build/fuzz/TARGET/ (generated from ../shared by
# `build/fuzz_TARGET --seeds DIR`).
FUZZ_TARGETS="json srt gguf hf llama2c tokenizer chat tools grammar state"
fuzz_seeds() {
    rm -rf "$B/fuzz/$1"; mkdir -p "$B/fuzz/$1"
    "$B/fuzz_$1" --seeds "$B/fuzz/$1"
}
fuzz_inputs() { ls -d "tests/fuzz/$1"/* "$B/fuzz/$1"/* 2>/dev/null; }
# ./build.sh fuzz SECONDS [TARGET...]: builds build/fuzz/fuzz_TARGET_lf (clang -fsanitize=fuzzer,address,undefined),
# makes the seeds, runs each target for SECONDS into build/fuzz/TARGET-corpus (kept between runs);
# crashes, leaks, timeouts, OOMs and sanitizer reports land in build/fuzz/TARGET-findings/ and fail.
# Reproduce one: build/fuzz/fuzz_TARGET_lf FILE. Environment: FUZZ_CC (default clang).
run_fuzz() {
    local secs=${1:-} t targets rc execs found max_len committed status=0
    if ! [ "$secs" -gt 0 ] 2>/dev/null; then note "usage: ./build.sh fuzz SECONDS [TARGET...] (targets: $FUZZ_TARGETS)"; return 2; fi
    shift; targets=${*:-$FUZZ_TARGETS}
    for t in $targets; do [ -f "tests/fuzz_$t.c" ] || { note "unknown fuzz target $t (targets: $FUZZ_TARGETS)"; return 2; }; done
    mkdir -p "$B/fuzz"
    cc_prog srt-pack tools/srt-pack.c
    for t in $targets; do
        cc_prog "fuzz_$t" "tests/fuzz_$t.c"
        if ! ${FUZZ_CC:-clang} -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DSRT_FUZZ_LIBFUZZER \
                $WARN -I. -o "$B/fuzz/fuzz_${t}_lf" "tests/fuzz_$t.c" $LIBS || ! fuzz_seeds "$t"; then
            echo "FAIL - fuzz $t: build or seeds failed"; status=1; continue
        fi
        case $t in tokenizer|chat) max_len=4096 ;; json) max_len=65536 ;; *) max_len=131072 ;; esac
        rm -rf "$B/fuzz/$t-findings"; mkdir -p "$B/fuzz/$t-corpus" "$B/fuzz/$t-findings"
        committed=; [ -d "tests/fuzz/$t" ] && committed="tests/fuzz/$t"   # state has generated seeds only
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
            "$B/fuzz/fuzz_${t}_lf" -max_total_time="$secs" -max_len=$max_len -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
            -print_final_stats=1 -artifact_prefix="$B/fuzz/$t-findings/" "$B/fuzz/$t-corpus" $committed "$B/fuzz/$t" >"$B/fuzz/$t.log" 2>&1
        rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/fuzz/$t.log" | tail -1)
        found=$(ls "$B/fuzz/$t-findings" | wc -l)
        if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
            echo "ok - fuzz $t: ${execs:-?} executions in ${secs} s, nothing found (corpus $(ls "$B/fuzz/$t-corpus" | wc -l) inputs)"
        else
            echo "FAIL - fuzz $t: ${execs:-?} executions, exit $rc, findings: $(ls "$B/fuzz/$t-findings" | tr '\n' ' ')(log $B/fuzz/$t.log)"
            grep -m3 -E '^==[0-9]+==ERROR|runtime error|^SUMMARY' "$B/fuzz/$t.log" | sed 's/^/    /'
            status=1
        fi
    done
    return $status
}

case "${1:-all}" in
    all)  build_all "$@"; [ "$HAVE_SYCL" = 0 ] && note "skipping test-sycl: $SYCL_WHY"; [ "$HAVE_CUDA" = 0 ] && note "skipping test-cuda: $CUDA_WHY"; exit $fail ;;
    test)
        build_all "$@"
        if [ -n "$CROSS" ]; then run_cross_tests "${@:3}"; else run_tests; fi
        exit $? ;;
    sycl|cuda|cuda-emu)   # one GPU backend's test alone: HAVE_SYCL/HAVE_CUDA, build_sycl/run_sycl_test, ...
        cc_prog srt-pack tools/srt-pack.c
        name=${1//-/_}
        "build_$name" "$@"
        have=HAVE_${name^^}; why=${name^^}_WHY
        if [ "${!have}" = 0 ]; then echo "cannot build test-$1: ${!why}" >&2; exit 1; fi
        "run_${name}_test"
        echo "$PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]; exit $? ;;
    test-ui)
        cc_prog srt-pack tools/srt-pack.c
        cc_prog srt-chat demo/srt-chat.c
        build_sdl
        if [ "$HAVE_SDL" != 1 ] || ! command -v xvfb-run >/dev/null 2>&1; then
            run_ui_test; echo "cannot run the UI test: install libsdl2-dev libstb-dev xvfb xauth" >&2; exit 1
        fi
        run_ui_test
        echo "$PASSED passed, $FAILED failed (screenshot: $B/ui-test.png)"
        [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]; exit $? ;;
    fuzz) shift; run_fuzz "$@"; exit $? ;;
    *)    note "usage: ./build.sh [test [asan | tsan | valgrind | wine | arm] | test-ui [asan] | tsan | valgrind | sycl | cuda | cuda-emu [asan] | fuzz SECONDS [TARGET...]]"; exit 2 ;;
esac
