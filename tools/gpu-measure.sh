#!/bin/bash
# tools/gpu-measure.sh [STAGE...]: the CUDA backend's checks and issue 7's measurements on a machine
# with an NVIDIA GPU (README, Benchmarks, GPU), stage by stage, from the repository root:
#   test     ./build.sh cuda: builds build/test-cuda, build/srt-bench-cuda, build/srt-chat-cuda and srt-pack,
#            runs test-cuda (its stories260K checks read ../shared)
#   chat     build/srt-chat-cuda on stories260K writes what build/srt-chat writes (greedy and sampled, F16
#            and Q8 KV caches); build/srt-ppl-cuda gives srt-ppl's NLL over tests/data/eval.txt
#   kernels  gpu-membw; gpu-gemm: TCSL SpMM vs cuBLAS f16 at 60-90% sparsity (and per split-K target), q4/q8/f16
#            (q4/q8 again with the tiled GEMM alone, SRT_CUDA_MMA_MIN=0); gpu-gemv: all
#            formats on the Llama-3.2-1B shapes, q4 and tcsl on the Llama-3-8B ones
#   models   the random Llama-3-8B-shaped models, q4 and 70%-sparse tcsl (srt-pack --random, every physical core)
#   e2e      their decode on the GPU; the q4 one's prompt in one batch of 128 (with and without the tensor-core
#            GEMM) and at 8192 tokens of context with F16 and Q8 KV caches; the q4 one's speculative decoding (spec)
#   ab       this build against another: $GPU_BENCH_B (a build/srt-bench-cuda of the other commit, e.g. from
#            git worktree add /tmp/b REV && (cd /tmp/b && ./build.sh cuda) && cp /tmp/b/build/srt-bench-cuda build/b/)
#            and this one, the q4 8B model's decode (made first if missing) three times in turn:
#            DIR/ab-b.jsonl, DIR/ab-this.jsonl and a line per run ($GPU_AB_TOKENS tokens, default 128; $GPU_AB_ARGS more options). Not in
#            the default run
# No STAGE: all five but ab in that order. Each stage's output goes to DIR/STAGE.log and the result lines to
# DIR/gpu.jsonl, DIR = $GPU_OUT, else $OUT (a device run's folder that comes back), else build/gpu;
# the models go to $GPU_MODELS (default build/tmp). Stops at the first stage that fails (exit 1).
# A dry run without a GPU: GPU_BENCH=build/srt-bench-cuda-emu GPU_CHAT=build/srt-chat-cuda-emu GPU_PPL=build/srt-ppl-cuda-emu
# GPU_CONFIG=a-small-config.json ... chat models e2e
# A device run gets the checkout but not ../shared beside it: copy what the tests read into shared/
# inside the checkout first (ignored by git; it travels), e.g.
#   mkdir -p shared/models && cp -r ../shared/models/stories260K shared/models/ && cp -r ../shared/golden shared/
# and this script links it as ../shared.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
if [ ! -e ../shared ] && [ -d shared/models ]; then
    ln -s "$PWD/shared" ../shared || { echo "gpu-measure.sh: cannot link shared/ as ../shared" >&2; exit 2; }
fi
DIR=${GPU_OUT:-${OUT:-build/gpu}}
MODELS=${GPU_MODELS:-build/tmp}
B=${GPU_BENCH:-build/srt-bench-cuda}
CHAT=${GPU_CHAT:-build/srt-chat-cuda}
PPL=${GPU_PPL:-build/srt-ppl-cuda}
CONFIG=${GPU_CONFIG:-tests/data/llama3-8b-config.json}
mkdir -p "$DIR" "$MODELS" || exit 2

# stage NAME COMMAND...: runs the command with its output in DIR/NAME.log (and on stdout), timed
stage() {
    local name=$1 t0=$SECONDS rc; shift
    echo "== $name: $*"
    "$@" 2>&1 | tee -a "$DIR/$name.log"
    rc=$?
    echo "== $name: exit $rc after $((SECONDS - t0)) s"
    return $rc
}
bench() { "$B" "$@" --json | tee -a "$DIR/gpu.jsonl"; }

do_test() { ./build.sh cuda; }
do_chat() {
    local S=../shared/models/stories260K args n=0
    [ -x "$CHAT" ] || { echo "$CHAT is missing: run the test stage first"; return 1; }
    build/srt-pack -q --tokenizer "$S/tok512.bin" "$S/stories260K.bin" "$MODELS/stories.srt" || return 1
    for args in "--temp 0" "--temp 0 --kv q8" "--temp 0.8 --seed 5"; do
        n=$((n + 1))
        build/srt-chat -m "$MODELS/stories.srt" -p "Once upon a time" -n 200 $args >"$DIR/chat$n-cpu.txt" 2>/dev/null || return 1
        "$CHAT" -m "$MODELS/stories.srt" -p "Once upon a time" -n 200 $args --backend cuda >"$DIR/chat$n-gpu.txt" 2>"$DIR/chat$n-gpu.err" ||
            { echo "FAIL - $CHAT $args:"; cat "$DIR/chat$n-gpu.err"; return 1; }
        if cmp -s "$DIR/chat$n-cpu.txt" "$DIR/chat$n-gpu.txt"; then echo "ok - $CHAT $args: the CPU's text ($(wc -c <"$DIR/chat$n-cpu.txt") bytes)"
        else echo "FAIL - $CHAT $args: not the CPU's text"; diff "$DIR/chat$n-cpu.txt" "$DIR/chat$n-gpu.txt" | head -5; return 1; fi
    done
    [ -x "$PPL" ] || { echo "$PPL is missing: run the test stage first"; return 1; }
    build/srt-ppl -m "$MODELS/stories.srt" --save-logits "$DIR/ppl-cpu.logp" --json tests/data/eval.txt >"$DIR/ppl-cpu.json" &&
        "$PPL" -m "$MODELS/stories.srt" --backend cuda --kl "$DIR/ppl-cpu.logp" --json tests/data/eval.txt >"$DIR/ppl-gpu.json" || return 1
    local nc ng
    nc=$(sed -n 's/.*"nll":\([0-9.]*\).*/\1/p' "$DIR/ppl-cpu.json"); ng=$(sed -n 's/.*"nll":\([0-9.]*\).*/\1/p' "$DIR/ppl-gpu.json")
    if [ -n "$nc" ] && [ "$nc" = "$ng" ]; then echo "ok - $PPL --backend cuda: the CPU's NLL ($nc) over tests/data/eval.txt"
    else echo "FAIL - $PPL --backend cuda: NLL ${ng:-?}, the CPU's ${nc:-?}"; cat "$DIR/ppl-gpu.json"; return 1; fi
}
do_kernels() {
    [ -x "$B" ] || { echo "$B is missing: run the test stage first"; return 1; }
    bench gpu-membw --mb 4096 --iters 50 &&
    bench gpu-gemm --format tcsl --sparsity 0.6,0.7,0.8,0.9 --n 8,16,32,64 &&
    bench gpu-gemm --format tcsl --sparsity 0.7,0.9 --n 8,64 --split-k 2,4,8,16 --iters 300 &&
    bench gpu-gemm --format q4,q8,f16 --n 8,16,32,64,128 &&
    # the same integer GEMMs with the tiled kernel alone (no tensor cores): these lines follow the ones above
    SRT_CUDA_MMA_MIN=0 bench gpu-gemm --format q4,q8 --n 8,16,32,64,128 &&
    bench gpu-gemv --format q8,q4,q2,tq,f16,tcsl --sparsity 0.7 &&
    bench gpu-gemv --format q4,tcsl --sparsity 0.7 --shape 4096x4096*2,1024x4096*2,14336x4096*2,4096x14336 &&
    grep -- '-summary"' "$DIR/gpu.jsonl"
}
do_ab() {
    local r b name out
    [ -x "$B" ] || { echo "$B is missing: run the test stage first"; return 1; }
    [ -n "${GPU_BENCH_B:-}" ] && [ -x "$GPU_BENCH_B" ] || { echo "GPU_BENCH_B (the other build's srt-bench-cuda) is missing: ${GPU_BENCH_B:-unset}"; return 1; }
    [ -s "$MODELS/llama3-8b-q4.srt" ] || build/srt-pack -q --no-verify --random "$CONFIG" --weights q4 "$MODELS/llama3-8b-q4.srt" || return 1
    : >"$DIR/ab-b.jsonl" && : >"$DIR/ab-this.jsonl" || return 1
    for r in 1 2 3; do
        for name in b this; do
            b=$B; [ $name = this ] || b=$GPU_BENCH_B
            out=$("$b" e2e "$MODELS/llama3-8b-q4.srt" --backend cuda --prompt-tokens 16 --tokens "${GPU_AB_TOKENS:-128}" --runs 2 ${GPU_AB_ARGS:-} --json) || return 1
            echo "$out" >>"$DIR/ab-$name.jsonl"
            echo "round $r, $name ($b): $(grep -o '"decode_tok_s":[0-9.]*' <<<"$out")"
        done
    done
}
do_models() {
    [ -x build/srt-pack ] || { echo "build/srt-pack is missing: run the test stage first"; return 1; }
    build/srt-pack -q --no-verify --random "$CONFIG" --weights q4 "$MODELS/llama3-8b-q4.srt" &&
    build/srt-pack -q --no-verify --random "$CONFIG" --weights f16 --sparsity 0.7 \
        --sparse-format tcsl "$MODELS/llama3-8b-tcsl70.srt" >/dev/null &&
    ls -l "$MODELS"/llama3-8b-*.srt
}
do_e2e() {
    local m
    for m in llama3-8b-q4 llama3-8b-tcsl70; do
        [ -s "$MODELS/$m.srt" ] || { echo "$MODELS/$m.srt is missing: run the models stage first"; return 1; }
        bench e2e "$MODELS/$m.srt" --backend cuda --prompt-tokens 128 --tokens 128 --runs 3 || return 1
    done
    # the q4 prompt in one batch of 128 (tensor-core GEMMs where the size rule picks them: all but k and v), then with the tiled GEMM alone
    bench e2e "$MODELS/llama3-8b-q4.srt" --backend cuda --prompt-tokens 128 --tokens 16 --runs 2 --batch 128 &&
        SRT_CUDA_MMA_MIN=0 bench e2e "$MODELS/llama3-8b-q4.srt" --backend cuda --prompt-tokens 128 --tokens 16 --runs 2 --batch 128 || return 1
    # a long context: the F16 KV cache against the Q8 one (attention reads 0.53 of the bytes); one
    # run each, as the prompt of 8192 tokens goes through the reference-order attention kernel
    for kv in f16 q8; do
        bench e2e "$MODELS/llama3-8b-q4.srt" --backend cuda --prompt-tokens 8192 --tokens 64 --runs 1 --kv $kv || return 1
    done
    # speculative decoding on the GPU (forward_rows): proposals all right (the ceiling) and all wrong (the floor)
    bench spec "$MODELS/llama3-8b-q4.srt" --backend cuda --n 1,2,4,8,16 --prompt-tokens 64 --tokens 64 --runs 3 || return 1
}

[ $# -gt 0 ] || set -- test chat kernels models e2e
for s in "$@"; do
    case $s in
        test|chat|kernels|models|e2e|ab) stage "$s" "do_$s" || exit 1 ;;
        *) echo "usage: tools/gpu-measure.sh [test|chat|kernels|models|e2e|ab]..." >&2; exit 2 ;;
    esac
done
