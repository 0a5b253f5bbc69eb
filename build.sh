#!/usr/bin/env bash
# build.sh - no build system: plain cc invocations.
#   ./build.sh          build everything into build/
#   ./build.sh test     build, then run every test; last line "N passed, N failed"
#   ./build.sh test asan   the same, built with AddressSanitizer + UndefinedBehaviorSanitizer
#                          (any report fails the run; rerun ./build.sh afterwards for normal builds)
#   ./build.sh test tsan   every test built by clang with ThreadSanitizer (any report fails the run;
#                          compile.sh, test_ui and test_sycl are skipped); ./build.sh tsan is the same
#                          (both, like asan and valgrind, leave build/ to be rebuilt by ./build.sh)
#   ./build.sh test valgrind   plain -O1 -g build, then test_golden and the other tests that are cheap
#                          enough under valgrind memcheck (errors or definite/indirect leaks fail;
#                          kernels forced to avx2: valgrind has no AVX-512/AMX); ./build.sh valgrind too
#   ./build.sh test-ui  the SDL chat window under Xvfb (tests/test_ui.sh); screenshot: build/ui-test.png
#   ./build.sh sycl     the SYCL backend test (build/test-sycl, tests/test_sycl.cpp + sparsert_sycl.h), then runs it
# SYCL: SYCL_CXX (a SYCL compiler command), else icpx -fsycl, else acpp on PATH (ACPP_TARGETS, default omp);
# ./build.sh and ./build.sh test build and run test-sycl when one is found and say "skipped" when not.
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
if [ "${2:-}" = asan ]; then
    OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
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
    echo "usage: ./build.sh [test [asan|tsan|valgrind] | test-ui [asan] | tsan | valgrind | sycl]" >&2; exit 2
fi

fail=0
note() { printf '%s\n' "$*" >&2; }
# cc_prog OUT SRC... : one program from one or more C files (a failure also leaves $B/.failed,
# for the copies that run in the background)
cc_prog() {
    local out=$1; shift
    if ! $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -o "$B/$out" "$@" $LIBS; then
        note "build failed: $out"; fail=1; : > "$B/.failed"
    fi
}
# cc_bg OUT SRC... : cc_prog in the background, at most JOBS (default: the CPU count) at a time
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
cc_bg() {
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || true; done
    cc_prog "$@" &
}

# The SDL2 chat window and the PNG checker of its test. HAVE_SDL: 1 built, 0 skipped, 2 failed.
STB_INCLUDE=${STB_INCLUDE:-/usr/include/stb}
HAVE_SDL=0
build_sdl() {
    local sdl_cflags sdl_libs
    rm -f "$B/srt-chat-sdl" "$B/ui-png-ink"
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
    if ! $CC -std=c99 $OPT $WARN -I. -isystem "$STB_INCLUDE" $sdl_cflags ${CFLAGS:-} -o "$B/srt-chat-sdl" demo/srt-chat-sdl.c $sdl_libs $LIBS; then
        note "build failed: srt-chat-sdl"; fail=1; HAVE_SDL=2; return
    fi
    if ! $CC -std=c99 $OPT $WARN -isystem "$STB_INCLUDE" ${CFLAGS:-} -o "$B/ui-png-ink" tests/ui/png_ink.c $LIBS; then
        note "build failed: ui-png-ink"; fail=1; HAVE_SDL=2; return
    fi
    HAVE_SDL=1
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
    printf '#define SPARSERT_IMPLEMENTATION\n#include "sparsert.h"\n' > "$B/sycl-core.c"
    if ! $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -c -o "$B/sycl-core.o" "$B/sycl-core.c" ||
       ! $SYCL_CMD -I. -o "$B/test-sycl" tests/test_sycl.cpp "$B/sycl-core.o" $LIBS; then
        note "build failed: test-sycl ($SYCL_CMD)"; fail=1; HAVE_SYCL=2; return
    fi
    HAVE_SYCL=1
}
run_sycl_test() {
    if [ "$HAVE_SYCL" = 2 ]; then echo "FAIL - test-sycl did not build"; FAILED=$((FAILED + 1))
    elif [ "$HAVE_SYCL" = 1 ]; then run_test test_sycl "$B/test-sycl"
    else echo "skipped test_sycl: $SYCL_WHY"; fi
}

build_all() {
    rm -f "$B/.failed"
    cc_bg srt-pack tools/srt-pack.c
    cc_bg srt-tokenize tools/srt-tokenize.c
    cc_bg srt-chat demo/srt-chat.c
    cc_bg srt-bench tools/srt-bench.c
    cc_bg srt-ppl tools/srt-ppl.c
    cc_bg gen-unicode tools/gen-unicode.c
    cc_bg fuzz_json tests/fuzz_json.c
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        cc_bg "$(basename "$t" .c)" "$t"
    done
    wait
    [ -e "$B/.failed" ] && fail=1
    build_sdl
    build_sycl "$@"
}

# Runs one test program; its "ok -"/"FAIL -" lines are counted.
PASSED=0; FAILED=0
run_test() {
    local name=$1; shift
    local log="$B/$name.log" t0=$SECONDS
    "$@" >"$log" 2>&1
    local rc=$?
    local p f
    p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^FAIL - ' "$log")
    # a sanitizer or valgrind report fails the test even where the program's own checks all passed
    if grep -q '^WARNING: ThreadSanitizer\|^==[0-9]*==ERROR: \(Address\|Leak\)Sanitizer\|ERROR SUMMARY: [1-9]' "$log"; then
        f=$((f + 1)); echo "FAIL - $name: sanitizer/valgrind report (see $log)" >>"$log"
    elif [ "$SANITIZE" = valgrind ] && [ "$rc" -eq 99 ]; then   # $VALGRIND's --error-exitcode
        f=$((f + 1)); echo "FAIL - $name: valgrind found errors or leaks (see $log)" >>"$log"
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL - $name exited with status $rc" >>"$log"; fi
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    grep '^FAIL - ' "$log" | sed "s/^/[$name] /"
    printf '%-28s %4d passed, %d failed  (%ds)\n' "$name" "$p" "$f" $((SECONDS - t0))
}

# Under valgrind: the tests that take at most a few minutes there (test_golden ~15, the rest < 1;
# test_sparse alone takes > 3, test_hf, test_import, test_prune and test_pool mostly run tools or
# threads that asan and tsan cover), with SRT_ISA=avx2 because valgrind cannot decode AVX-512,
# AVX-VNNI or AMX instructions (its CPUID hides them, so test_kernels checks portable and avx2).
VALGRIND_TESTS=${VALGRIND_TESTS:-"test_golden test_core test_limits test_tokenizer test_json test_chat test_kernels"}
VALGRIND="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --fair-sched=yes"
run_tests() {
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        local name; name=$(basename "$t" .c)
        if [ ! -x "$B/$name" ]; then echo "FAIL - $name did not build"; FAILED=$((FAILED + 1))
        elif [ "$SANITIZE" != valgrind ]; then run_test "$name" "$B/$name"
        elif [[ " $VALGRIND_TESTS " == *" $name "* ]]; then run_test "$name" env SRT_ISA=avx2 $VALGRIND "$B/$name"
        else echo "skipped $name: not in VALGRIND_TESTS"; fi
    done
    if [ "$SANITIZE" = valgrind ]; then
        echo "$PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]; return
    fi
    [ -x tests/test_bench.sh ] && run_test test_bench tests/test_bench.sh
    # fuzz targets: their seed corpus plus deterministic mutations (libFuzzer builds: see the files)
    if [ -x "$B/fuzz_json" ]; then run_test fuzz_json "$B/fuzz_json" tests/fuzz/json/*
    else echo "FAIL - fuzz_json did not build"; FAILED=$((FAILED + 1)); fi
    # compile.sh checks the compilers' diagnostics, which no sanitizer changes: once, in the plain run
    if [ -n "$SANITIZE" ]; then echo "skipped compile: not under $SANITIZE (the plain ./build.sh test runs it)"
    elif [ -x tests/compile.sh ]; then run_test compile tests/compile.sh; fi
    run_ui_test
    run_sycl_test
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]
}

case "${1:-all}" in
    all)  build_all "$@"; [ "$HAVE_SYCL" = 0 ] && note "skipping test-sycl: $SYCL_WHY"; exit $fail ;;
    test) build_all "$@"; run_tests; exit $? ;;
    sycl)
        cc_prog srt-pack tools/srt-pack.c
        build_sycl "$@"
        if [ "$HAVE_SYCL" = 0 ]; then echo "cannot build test-sycl: $SYCL_WHY" >&2; exit 1; fi
        run_sycl_test
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
    *)    note "usage: ./build.sh [test [asan|tsan|valgrind] | test-ui [asan] | tsan | valgrind | sycl]"; exit 2 ;;
esac
