#!/usr/bin/env bash
# compile.sh - the public header (and the implementation) compiles warning-free as C99 with gcc
# and clang, as C++17 with g++, and for Windows with mingw-w64; so do the tools. Prints one ok/FAIL line each.
cd "$(dirname "$0")/.."
mkdir -p build/compile
src=build/compile/impl.c
printf '#define SPARSERT_IMPLEMENTATION\n#include "sparsert.h"\n#include "sparsert.h"\nint main(void) { return srt_version()[0] == 0; }\n' > $src
cp $src build/compile/impl.cpp
# an app file that only includes the header (no implementation), plus one with SRT_STATIC
printf '#include "sparsert.h"\nint use(void);\nint use(void) { return (int)SRT_OK; }\n' > build/compile/api.c
FLAGS="-Wall -Wextra -pedantic -Werror -Wno-unused-function -I."
# the library itself as an app builds it: no function unused on any platform, and optimized
# (g++ -O2 is where GCC 12's AVX-512 headers warned; sparsert_x86.h silences that)
CORE="-Wall -Wextra -pedantic -Werror -I."
# try NAME COMPILER ARGS...: one compile in the background, as many at a time as there are CPUs;
# its ok/FAIL line goes to build/compile/try-N.txt, printed in order at the end
JOBS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
n=0
try() {
    local name=$1; shift
    n=$((n + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null || true; done
    {
        if ! command -v "$1" >/dev/null 2>&1; then echo "FAIL - $name: compiler $1 not installed"
        elif out=$("$@" 2>&1); then echo "ok - $name"
        else echo "FAIL - $name"; printf '%s\n' "$out" | head -20; fi
    } > "build/compile/try-$n.txt" &
}
try "gcc -std=c99 -O2"        gcc   -std=c99 -O2 $CORE -c $src -o build/compile/gcc.o
try "clang -std=c99"          clang -std=c99   $CORE -c $src -o build/compile/clang.o
try "g++ -std=c++17 -O2"      g++   -std=c++17 -O2 $CORE -c build/compile/impl.cpp -o build/compile/gxx.o
try "clang++ -std=c++17"      clang++ -std=c++17 $CORE -c build/compile/impl.cpp -o build/compile/clangxx.o
try "header only, gcc -std=c99" gcc -std=c99   $CORE -c build/compile/api.c -o build/compile/api.o
try "SRT_STATIC, gcc -std=c99"  gcc -std=c99   $FLAGS -DSRT_STATIC -c $src -o build/compile/static.o
try "mingw-w64 -std=c99"      x86_64-w64-mingw32-gcc -std=c99 $CORE -c $src -o build/compile/mingw.o
try "mingw-w64 link (srt-chat.exe)" x86_64-w64-mingw32-gcc -std=c99 -O2 $FLAGS -o build/compile/srt-chat.exe demo/srt-chat.c
try "mingw-w64 link (srt-bench.exe)" x86_64-w64-mingw32-gcc -std=c99 -O2 $FLAGS -o build/compile/srt-bench.exe tools/srt-bench.c
try "tools and demo, clang -std=c99" clang -std=c99 $FLAGS -fsyntax-only tools/srt-tokenize.c demo/srt-chat.c tools/srt-bench.c
# srt-pack carries tools/srt_import.h, srt_hf.h and srt_json.h
try "srt-pack, g++ -std=c++17"  g++ -std=c++17 $FLAGS -x c++ -fsyntax-only tools/srt-pack.c
try "mingw-w64 link (srt-pack.exe)" x86_64-w64-mingw32-gcc -std=c99 -O2 $FLAGS -o build/compile/srt-pack.exe tools/srt-pack.c
# README's C examples ("Embedding"): the program as printed, and the chat calls inside a function
# that has the model and the session (C99; -Wall, as an app would build them)
awk '/^```c$/ { n++; keep = 1; next } /^```/ { keep = 0 } keep && n == 1' README.md > build/compile/readme_app.c
{ printf '#include "sparsert.h"\n#include <stdio.h>\nvoid chat_example(srt_model *model, srt_session *session);\nvoid chat_example(srt_model *model, srt_session *session) {\n'
  awk '/^```c$/ { n++; keep = 1; next } /^```/ { keep = 0 } keep && n == 2' README.md; printf '}\n'; } > build/compile/readme_chat.c
try "README's embedding example, gcc -std=c99" gcc -std=c99 -Wall -Werror -I. -o build/compile/readme_app build/compile/readme_app.c -lm -pthread
try "README's chat example, gcc -std=c99" gcc -std=c99 -Wall -Wextra -pedantic -Werror -I. -c build/compile/readme_chat.c -o build/compile/readme_chat.o
wait
for i in $(seq 1 "$n"); do cat "build/compile/try-$i.txt"; done
