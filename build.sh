#!/usr/bin/env bash
# build.sh - no build system: plain cc invocations.
#   ./build.sh          build everything into build/
#   ./build.sh test     build, then run every test; last line "N passed, N failed"
#   ./build.sh test asan   the same, built with AddressSanitizer + UndefinedBehaviorSanitizer
#                          (any report fails the run; rerun ./build.sh afterwards for normal builds)
#   ./build.sh tsan     test_pool (pool, topology, two sessions on two threads) under ThreadSanitizer
# Environment: CC (default cc), CXX (default c++), CFLAGS (extra flags).
set -u
cd "$(dirname "$0")"
CC=${CC:-cc}
CXX=${CXX:-c++}
OPT="-O2 -g"
WARN="-Wall -Wextra -pedantic -Wno-unused-function"
LIBS="-lm -pthread"
B=build
mkdir -p "$B"
if [ "${2:-}" = asan ]; then
    OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
elif [ -n "${2:-}" ]; then
    echo "usage: ./build.sh [test [asan] | tsan]" >&2; exit 2
fi

fail=0
note() { printf '%s\n' "$*" >&2; }
# cc_prog OUT SRC... : one program from one or more C files
cc_prog() {
    local out=$1; shift
    if ! $CC -std=c99 $OPT $WARN -I. ${CFLAGS:-} -o "$B/$out" "$@" $LIBS; then
        note "build failed: $out"; fail=1
    fi
}

build_all() {
    cc_prog srt-pack tools/srt-pack.c
    cc_prog srt-tokenize tools/srt-tokenize.c
    cc_prog srt-chat demo/srt-chat.c
    cc_prog srt-bench tools/srt-bench.c
    cc_prog srt-ppl tools/srt-ppl.c
    cc_prog gen-unicode tools/gen-unicode.c
    cc_prog fuzz_json tests/fuzz_json.c
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        cc_prog "$(basename "$t" .c)" "$t"
    done
}

# Runs one test program; its "ok -"/"FAIL -" lines are counted.
PASSED=0; FAILED=0
run_test() {
    local name=$1; shift
    local log="$B/$name.log"
    "$@" >"$log" 2>&1
    local rc=$?
    local p f
    p=$(grep -c '^ok - ' "$log"); f=$(grep -c '^FAIL - ' "$log")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL - $name exited with status $rc" >>"$log"; fi
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    grep '^FAIL - ' "$log" | sed "s/^/[$name] /"
    printf '%-28s %4d passed, %d failed\n' "$name" "$p" "$f"
}

run_tests() {
    for t in tests/test_*.c; do
        [ -e "$t" ] || continue
        local name; name=$(basename "$t" .c)
        if [ -x "$B/$name" ]; then run_test "$name" "$B/$name"
        else echo "FAIL - $name did not build"; FAILED=$((FAILED + 1)); fi
    done
    [ -x tests/test_bench.sh ] && run_test test_bench tests/test_bench.sh
    # fuzz targets: their seed corpus plus deterministic mutations (libFuzzer builds: see the files)
    if [ -x "$B/fuzz_json" ]; then run_test fuzz_json "$B/fuzz_json" tests/fuzz/json/*
    else echo "FAIL - fuzz_json did not build"; FAILED=$((FAILED + 1)); fi
    [ -x tests/compile.sh ] && run_test compile tests/compile.sh
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ] && [ "$fail" -eq 0 ]
}

# ThreadSanitizer build of the threading test into build/tsan/; a race report counts as a failure.
run_tsan() {
    mkdir -p "$B/tsan"
    if ! ${TSAN_CC:-clang} -std=c99 -O1 -g -fsanitize=thread $WARN -I. -Itests -o "$B/tsan/test_pool" tests/test_pool.c $LIBS; then
        echo "0 passed, 1 failed"; return 1
    fi
    run_test tsan_test_pool env TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$B/tsan/test_pool"
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
}

case "${1:-all}" in
    all)  build_all; exit $fail ;;
    test) build_all; run_tests; exit $? ;;
    tsan) run_tsan; exit $? ;;
    *)    note "usage: ./build.sh [test [asan] | tsan]"; exit 2 ;;
esac
