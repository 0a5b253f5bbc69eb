#!/usr/bin/env bash
# test_bench.sh - smoke test of build/srt-bench: every mode on tiny sizes with --json; each result
# line must have the documented keys and positive numbers. Prints one ok/FAIL line per check.
cd "$(dirname "$0")/.."
B=build
T=$B/test_bench
BENCH=$B/srt-bench
mkdir -p "$T"
rm -rf "$T"/*
if [ ! -x "$BENCH" ]; then echo "FAIL - srt-bench did not build"; exit 0; fi

# check NAME FILE MODE MIN_LINES KEY... : the lines of FILE whose "mode" is MODE (at least MIN_LINES
# of them) each have every KEY; keys after "+" must be numbers > 0.
check() {
    local name=$1 file=$2 mode=$3 min=$4; shift 4
    local out
    out=$(awk -v mode="$mode" -v min="$min" -v keys="$*" '
        BEGIN { nk = split(keys, k, " ") }
        index($0, "{\"mode\":\"" mode "\",") == 1 {
            lines++; positive = 0
            for (i = 1; i <= nk; i++) {
                if (k[i] == "+") { positive = 1; continue }
                at = index($0, "\"" k[i] "\":")
                if (!at) { bad["missing:" k[i]] = 1; nbad++; continue }
                if (!positive) continue
                v = substr($0, at + length(k[i]) + 3)
                match(v, /^[-0-9.eE+]+/)
                if (RSTART != 1 || substr(v, 1, RLENGTH) + 0 <= 0) { bad[k[i] "=" substr(v, 1, 12)] = 1; nbad++ }
            }
        }
        END {
            if (lines < min) { printf "%d \"%s\" lines, expected >= %d", lines, mode, min; exit }
            for (b in bad) printf " %s", b
            if (!nbad) printf "ok %d", lines
        }' "$file")
    case $out in
        "ok "*) echo "ok - $name (${out#ok } lines)" ;;
        *) echo "FAIL - $name: $out"; sed 's/^/    /' "$file" | head -3 ;;
    esac
}
# run NAME OUT ARGS... : srt-bench exits 0
run() {
    local name=$1 out=$2; shift 2
    if "$BENCH" "$@" >"$out" 2>"$out.err"; then echo "ok - $name runs"; else echo "FAIL - $name: exit status $?"; sed 's/^/    /' "$out.err" | head -5; fi
}
COMMON="--mb 4 --passes 2 --threads-list 1,2"

run membw "$T/membw.json" membw $COMMON --json
check "membw fields" "$T/membw.json" membw 2 mode format threads isa + gbs gbs_best threads

# every format, per-row and 32 groups, odd shapes, every ISA level this CPU has
run gemv "$T/gemv.json" gemv --format f16,bf16,q8,q4,q2,tq,q1 --group 32,row --shape 40x100*3,17x64 \
    --set-mb 0.25 --seconds 0 $COMMON --json
check "gemv fields" "$T/gemv.json" gemv 24 mode format group threads isa m k n gbs gflops roofline_fraction + m k n us gbs gflops bw_gbs roofline_fraction
check "gemv summary fields" "$T/gemv.json" gemv-summary 12 mode format threads isa + matrices gbs gflops roofline_fraction
check "gemv measures bandwidth first" "$T/gemv.json" membw 2 mode threads + gbs
if grep -q '"mode":"gemv","format":"q1","group":128,"per_row":1,.*"m":40,"k":100,' "$T/gemv.json"; then echo "ok - gemv: the per-row group of K = 100 is 128"; else echo "FAIL - gemv: no per-row q1 line with group 128"; fi

# a level the CPU lacks is skipped, not lowered under its own name (AVX-VNNI on Zen 4 ran as avx2 rows labelled avxvnni)
run "gemv every level" "$T/gemv-levels.json" gemv --format q4 --shape 32x64 --set-mb 0.1 --seconds 0 --bw 10 --threads 1 \
    --isa portable,avx2,avxvnni,avx512,amx --json
if grep -q "not available on this CPU; using" "$T/gemv-levels.json.err"; then echo "FAIL - gemv --isa: a level was lowered"; sed 's/^/    /' "$T/gemv-levels.json.err" | head -3
elif [ "$(grep -c '"mode":"gemv",' "$T/gemv-levels.json")" -ne $((5 - $(grep -c "is not available on this CPU (best: [a-z0-9]*); skipped" "$T/gemv-levels.json.err"))) ]; then
    echo "FAIL - gemv --isa: rows and skipped levels do not add up to 5"; sed 's/^/    /' "$T/gemv-levels.json.err" | head -3
else echo "ok - gemv --isa: every level ran or was skipped, none lowered ($(grep -c 'skipped' "$T/gemv-levels.json.err") skipped)"; fi

run gemm "$T/gemm.json" gemm --format q8,q4 --shape 33x64 --n 3 --set-mb 0.1 --seconds 0 --bw 10 --threads-list 1,2 --isa portable --json
check "gemm fields" "$T/gemm.json" gemm 4 mode format threads isa m k n gbs gflops roofline_fraction + n gflops
if grep -q '"mode":"membw"' "$T/gemm.json"; then echo "FAIL - gemm measured bandwidth despite --bw"; else echo "ok - gemm: --bw skips the measurement"; fi
if grep -q '"n":3,' "$T/gemm.json" && grep -q '"bw_gbs":10,' "$T/gemm.json"; then echo "ok - gemm: --n and --bw used"; else echo "FAIL - gemm: --n or --bw ignored"; fi

# quantization speed (what srt-pack spends): fp4 keeps MXFP4 blocks exactly, q4 does not; a float source is exact in neither
run quantize "$T/quant.json" quantize --format fp4,q4 --shape 64x256 --source mxfp4,float --runs 2 --threads-list 1,2 --json
check "quantize fields" "$T/quant.json" quantize 8 mode format group m k source threads rms_rel_error exact_fraction + mvalues_per_s group m k threads
if grep -q '"format":"fp4",.*"source":"mxfp4",.*"rms_rel_error":0,"exact_fraction":1.0000}' "$T/quant.json" && \
   ! grep -q '"format":"q4",.*"source":"mxfp4",.*"exact_fraction":1.0000}' "$T/quant.json" && ! grep -q '"source":"float",.*"rms_rel_error":0,' "$T/quant.json"; then
    echo "ok - quantize: fp4 keeps the MXFP4 source exactly, q4 and the float source are not exact"
else echo "FAIL - quantize: exactness"; sed 's/^/    /' "$T/quant.json" | head -8; fi
"$BENCH" quantize --source int8 >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then echo "ok - quantize: an unknown --source refused"; else echo "FAIL - quantize --source int8: exit status $rc"; fi
run make-model "$T/make.txt" make-model "$T/tiny.srt" --embd 64 --ff 96 --layers 2 --heads 4 --kv-heads 2 --vocab 320 --format q4 --group 32
run e2e "$T/e2e.json" e2e "$T/tiny.srt" --prompt-tokens 5 --tokens 4 --runs 2 $COMMON --json
check "e2e fields" "$T/e2e.json" e2e 2 mode format threads isa model + weight_bytes_per_token prefill_tok_s decode_tok_s ttft_ms peak_rss_mb bandwidth_gbs roofline_fraction
if grep -q '"format":"q4"' "$T/e2e.json"; then echo "ok - e2e: format from the tensor directory"; else echo "FAIL - e2e: format is not q4"; fi
# weight bytes per token: all weights when the output matrix is the embedding; one embedding row
# instead of the whole matrix with a separate output.weight
wbytes() { sed -n 's/.*"weight_bytes":\([0-9]*\),"weight_bytes_per_token":\([0-9]*\),.*/\1 \2/p' "$1" | head -1; }
run "make-model --untied" "$T/make2.txt" make-model "$T/untied.srt" --embd 64 --ff 96 --layers 2 --heads 4 --kv-heads 2 --vocab 320 --untied --format q8
run "e2e untied" "$T/e2e2.json" e2e "$T/untied.srt" --prompt-tokens 3 --tokens 2 --runs 1 --bw 10 --threads 1 --json
read -r all per <<<"$(wbytes "$T/e2e.json")"
if [ -n "$all" ] && [ "$all" = "$per" ]; then echo "ok - tied: weight_bytes_per_token = weight_bytes"; else echo "FAIL - tied: $all vs $per"; fi
read -r all per <<<"$(wbytes "$T/e2e2.json")"
# q8 group 64, 320 x 64 embedding: 20 tiles x 64 x 16 bytes of codes + 20 tiles x 16 x 2 bytes of scales
expect=$(( ${all:-0} - (20 * 64 * 16 + 20 * 16 * 2) + (20 * 64 * 16 + 20 * 16 * 2) / 320 ))
if [ -n "$all" ] && [ "$per" = "$expect" ]; then echo "ok - untied: weight_bytes_per_token leaves out the embedding but one row"; else echo "FAIL - untied: $per, expected $expect (all $all)"; fi
# a mixture of experts: a token reads K of the 4 experts (the same seed: the same weights, K aside)
for k in 4 2 1; do
    run "make-model qwen3moe K=$k" "$T/make-moe$k.txt" make-model "$T/moe$k.srt" --arch qwen3moe --embd 64 --ff 32 --layers 2 --heads 4 --kv-heads 2 --vocab 320 --experts 4 --experts-used $k --format q8
    run "e2e qwen3moe K=$k" "$T/e2e-moe$k.json" e2e "$T/moe$k.srt" --prompt-tokens 5 --tokens 3 --runs 1 --bw 10 --threads 1 --json
done
read -r all4 per4 <<<"$(wbytes "$T/e2e-moe4.json")"; read -r all2 per2 <<<"$(wbytes "$T/e2e-moe2.json")"; read -r all1 per1 <<<"$(wbytes "$T/e2e-moe1.json")"
if [ -n "$all4" ] && [ "$per4" = "$all4" ] && [ "$all2" = "$all4" ] && [ "$all1" = "$all4" ] && [ "$per1" -lt "$per2" ] && \
   [ $(( (all4 - per2) )) = $(( 2 * (per2 - per1) )) ]; then
    echo "ok - qwen3moe: weight_bytes_per_token counts K of the experts ($per4, $per2, $per1 for K = 4, 2, 1)"
else echo "FAIL - qwen3moe: weight_bytes_per_token $per4, $per2, $per1 for K = 4, 2, 1 (all $all4 $all2 $all1)"; fi
# a sparse model: the layers pruned to --sparsity, the embedding q4; format = the one with the most bytes
for sp in 0.3 0.7; do
    run "make-model sb-q4 $sp" "$T/make-sb$sp.txt" make-model "$T/sb$sp.srt" --embd 64 --ff 96 --layers 2 --heads 4 --kv-heads 2 --vocab 320 --format sb-q4 --group 32 --sparsity $sp
    run "e2e sb-q4 $sp" "$T/e2e-sb$sp.json" e2e "$T/sb$sp.srt" --prompt-tokens 3 --tokens 2 --runs 1 --bw 10 --threads 1 --json
done
read -r all3 _ <<<"$(wbytes "$T/e2e-sb0.3.json")"; read -r all7 _ <<<"$(wbytes "$T/e2e-sb0.7.json")"
if grep -q '"format":"sb-q4"' "$T/e2e-sb0.7.json" && [ -n "$all3" ] && [ -n "$all7" ] && [ "$all7" -lt "$all3" ]; then
    echo "ok - make-model sb-q4 --sparsity: format sb-q4 (the embedding q4 is the largest tensor), $all7 bytes at 0.7 < $all3 at 0.3"
else echo "FAIL - make-model sb-q4 --sparsity: $(grep -o '"format":"[^"]*"' "$T/e2e-sb0.7.json"), $all7 bytes at 0.7, $all3 at 0.3"; fi
if "$BENCH" make-model "$T/moe5.srt" --arch qwen3moe --experts 4 --experts-used 5 >/dev/null 2>&1 || [ -e "$T/moe5.srt" ]; then
    echo "FAIL - make-model: --experts-used 5 of 4 accepted"
else echo "ok - make-model refuses --experts-used 5 of 4"; fi
# KV bytes read by the middle decode step (2 layers x 2 KV heads, head size 16: rows of 32 bytes):
# dense, 5 prompt + 3 positions x K and V; pruned 0.3 / 0.5: the prompt's rows are 2 bitmap bytes +
# 11 (K) and 8 (V) values
kvbytes() { sed -n 's/.*"kv_bytes_per_token":\([0-9]*\),.*/\1/p' "$1" | head -1; }
# speculative decoding: every kind per k, the tokens of plain decoding; all-right proposals take fewer evaluations
run spec "$T/spec.json" spec "$T/tiny.srt" --prompt-tokens 5 --tokens 12 --runs 1 --n 1,3 --threads 1 --json
check "spec fields" "$T/spec.json" spec 8 mode format threads isa model k proposals evaluations kept_fraction same_tokens + tokens decode_tok_s speedup same_tokens
if grep -q '"k":3,"proposals":"right","tokens":12,"evaluations":3,' "$T/spec.json"; then echo "ok - spec: 3 right proposals a time, 12 tokens in 3 evaluations"
else echo "FAIL - spec: right proposals, k 3"; grep right "$T/spec.json"; fi
run "e2e sparse KV" "$T/e2e3.json" e2e "$T/tiny.srt" --prompt-tokens 5 --tokens 4 --runs 1 --bw 10 --threads 1 --kv-sparsity 0.3,0.5 --json
check "e2e sparse KV fields" "$T/e2e3.json" e2e 1 mode kv_sparsity_k kv_sparsity_v kv_bytes_per_token + decode_tok_s
if [ "$(kvbytes "$T/e2e.json")" = 2048 ] && [ "$(kvbytes "$T/e2e3.json")" = 1608 ]; then echo "ok - kv_bytes_per_token: 2048 dense, 1608 at 0.3/0.5"
else echo "FAIL - kv_bytes_per_token: $(kvbytes "$T/e2e.json") dense, $(kvbytes "$T/e2e3.json") sparse (expected 2048, 1608)"; fi
run "e2e Q8 KV" "$T/e2e4.json" e2e "$T/tiny.srt" --prompt-tokens 5 --tokens 4 --runs 1 --bw 10 --threads 1 --kv q8 --json
check "e2e Q8 KV fields" "$T/e2e4.json" e2e 1 mode kv kv_bytes_per_token + decode_tok_s
if grep -q '"kv":"q8"' "$T/e2e4.json" && grep -q '"kv":"f16"' "$T/e2e.json" && [ "$(kvbytes "$T/e2e4.json")" = 1152 ]; then echo "ok - e2e --kv q8: kv q8, kv_bytes_per_token 1152 (16 + 2 bytes a row)"
else echo "FAIL - e2e --kv q8: $(kvbytes "$T/e2e4.json") KV bytes per token (expected 1152)"; cat "$T/e2e4.json"; fi
for args in "--kv q4" "--kv q8 --kv-sparsity 0.5"; do
    # shellcheck disable=SC2086
    "$BENCH" e2e "$T/tiny.srt" $args --prompt-tokens 2 --tokens 1 --runs 1 --bw 10 --threads 1 >"$T/kvbad.txt" 2>&1; rc=$?
    if [ $rc -ne 0 ] && grep -q "kv\|KV" "$T/kvbad.txt"; then echo "ok - e2e $args is refused: $(head -1 "$T/kvbad.txt")"; else echo "FAIL - e2e $args: rc $rc"; cat "$T/kvbad.txt"; fi
done
"$BENCH" e2e "$T/tiny.srt" --kv-sparsity 0.01 --prompt-tokens 2 --tokens 1 --runs 1 --bw 10 --threads 1 >"$T/kvbad.txt" 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "at least" "$T/kvbad.txt"; then echo "ok - e2e: a KV sparsity below the break-even is refused"; else echo "FAIL - e2e --kv-sparsity 0.01: rc $rc"; cat "$T/kvbad.txt"; fi
run "e2e --state" "$T/e2e5.json" e2e "$T/tiny.srt" --prompt-tokens 5 --tokens 4 --runs 2 --bw 10 --threads 1 --state --json
check "e2e --state fields" "$T/e2e5.json" e2e 1 mode + state_bytes state_save_ms state_load_ms prefill_ms state_load_speedup decode_tok_s
# 72 header + 5 tokens x 4 + 320 logits x 4 + 2 layers x 2 KV heads x 5 positions x 32-byte f16 rows x (K, V) + 4 CRC
if grep -q '"state_bytes":2656,' "$T/e2e5.json"; then echo "ok - e2e --state: the prompt's state is 2656 bytes"
else echo "FAIL - e2e --state: state_bytes is not 2656"; cat "$T/e2e5.json"; fi
run decode "$T/decode.json" decode "$T/tiny.srt" --tokens 4 --bw 10 --threads 1 --json
check "decode = e2e with one prompt token" "$T/decode.json" e2e 1 mode + prompt_tokens decode_tok_s

# the table output and option errors
run "membw table" "$T/membw.txt" membw --mb 4 --passes 1 --threads 1
if head -1 "$T/membw.txt" | grep -q 'mode.*threads.*gbs'; then echo "ok - table header"; else echo "FAIL - table header"; cat "$T/membw.txt"; fi
"$BENCH" gemv --format q9 >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then echo "ok - unknown format refused"; else echo "FAIL - unknown format: exit status $rc"; fi
"$BENCH" gemv --shape 10x >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then echo "ok - bad shape refused"; else echo "FAIL - bad shape: exit status $rc"; fi

# the GPU modes (issue 7), without a GPU: the plain build refuses them (exit 2, what to use instead);
# build/srt-bench-cuda (built when nvcc is found) exits 1 with the device error, no crash
for args in "gpu-membw" "gpu-gemm --format tcsl" "e2e $T/tiny.srt --backend cuda"; do
    "$BENCH" $args >"$T/nocuda.txt" 2>&1; rc=$?
    if [ $rc -eq 2 ] && grep -q "built without CUDA: use build/srt-bench-cuda" "$T/nocuda.txt"; then echo "ok - srt-bench $args: refused without CUDA"
    else echo "FAIL - srt-bench $args: rc $rc"; sed 's/^/    /' "$T/nocuda.txt" | head -3; fi
done
"$BENCH" gpu-gemm --split-k 65 >"$T/splitk.txt" 2>&1; rc=$?
if [ $rc -eq 2 ] && grep -q "bad value for --split-k" "$T/splitk.txt"; then echo "ok - gpu-gemm: --split-k 65 refused"; else echo "FAIL - gpu-gemm --split-k 65: exit status $rc"; fi
"$BENCH" gemm --n 8,16 >/dev/null 2>&1; rc=$?
if [ $rc -eq 2 ]; then echo "ok - gemm: one --n only"; else echo "FAIL - gemm --n 8,16: exit status $rc"; fi
run "gemv sparsity list" "$T/gemv-sp.json" gemv --format sb-q8 --sparsity 0.5,0.7 --shape 32x128 --set-mb 0.1 --seconds 0 --bw 10 --threads 1 --isa portable --json
if grep -q '"sparsity":0.50' "$T/gemv-sp.json" && grep -q '"sparsity":0.70' "$T/gemv-sp.json"; then echo "ok - gemv: one line per --sparsity value"
else echo "FAIL - gemv --sparsity 0.5,0.7"; sed 's/^/    /' "$T/gemv-sp.json" | head -3; fi
# gpu_checks BENCH LABEL: tiny runs of every GPU mode, each line with its keys and positive numbers
gpu_checks() {
    local bench=$1 label=$2
    "$bench" gpu-membw --mb 64 --iters 5 --json >"$T/gpu-membw.json" 2>&1 || echo "FAIL - $label gpu-membw"
    check "$label gpu-membw fields" "$T/gpu-membw.json" gpu-membw 1 mode format threads isa device + gbs
    "$bench" gpu-gemm --format q4,f16 --shape 256x512 --n 8,16 --iters 5 --mb 64 --json >"$T/gpu-gemm.json" 2>&1 || echo "FAIL - $label gpu-gemm"
    check "$label gpu-gemm fields" "$T/gpu-gemm.json" gpu-gemm 4 mode format m k n + ms gbs tflops roofline_fraction
    "$bench" gpu-gemm --format tcsl --shape 256x512 --n 8,32 --sparsity 0.6,0.9 --iters 5 --mb 64 --json >"$T/gpu-tcsl.json" 2>&1 || echo "FAIL - $label gpu-gemm tcsl"
    check "$label gpu-gemm tcsl against cuBLAS f16" "$T/gpu-tcsl.json" gpu-gemm 4 mode format sparsity m k n + ms tflops cublas_ms cublas_tflops speedup
    # --split-k: each tcsl line once per srt_cuda_set_split_k value, a summary per value and n; other
    # formats once, without split_k
    "$bench" gpu-gemm --format tcsl,q4 --shape 256x512,128x512 --n 8 --sparsity 0.7 --split-k 0,8 --iters 3 --mb 64 --json >"$T/gpu-splitk.json" 2>&1 || echo "FAIL - $label gpu-gemm --split-k"
    grep '"format":"tcsl"' "$T/gpu-splitk.json" >"$T/gpu-splitk-tcsl.json"
    check "$label gpu-gemm --split-k lines" "$T/gpu-splitk-tcsl.json" gpu-gemm 4 mode format sparsity split_k m k n + ms speedup
    check "$label gpu-gemm --split-k summaries" "$T/gpu-splitk-tcsl.json" gpu-gemm-summary 2 mode format split_k n + ms speedup
    if [ "$(grep -c '"split_k":0,' "$T/gpu-splitk.json")" = 3 ] && [ "$(grep -c '"split_k":8,' "$T/gpu-splitk.json")" = 3 ] &&
       [ "$(grep '"format":"q4"' "$T/gpu-splitk.json" | grep -c '"mode":"gpu-gemm"')" = 2 ] && ! grep '"format":"q4"' "$T/gpu-splitk.json" | grep -q split_k; then
        echo "ok - $label gpu-gemm --split-k 0,8: 2 tcsl lines and a summary each, q4 once"
    else echo "FAIL - $label gpu-gemm --split-k 0,8"; sed 's/^/    /' "$T/gpu-splitk.json" | head -8; fi
    "$bench" gpu-gemm --format tcsl --n 1,2,3,4,5 --split-k 1,2,3,4 >"$T/gpu-splitk-many.txt" 2>&1; rc=$?
    if [ $rc -eq 2 ] && grep -q "at most 16 --n x --split-k values" "$T/gpu-splitk-many.txt"; then echo "ok - $label gpu-gemm: 5 --n x 4 --split-k values refused"
    else echo "FAIL - $label gpu-gemm with 20 --n x --split-k values: exit status $rc"; fi
    "$bench" gpu-gemv --format q8,q4,q2,tq,f16,tcsl --shape 64x256*2,128x256 --sparsity 0.7 --iters 3 --mb 64 --json >"$T/gpu-gemv.json" 2>&1 || echo "FAIL - $label gpu-gemv"
    check "$label gpu-gemv fields (every format)" "$T/gpu-gemv.json" gpu-gemv 12 mode format m k n + ms gbs roofline_fraction
    check "$label gpu-gemv summaries" "$T/gpu-gemv.json" gpu-gemv-summary 6 mode format n matrices + ms gbs roofline_fraction
    "$bench" e2e "$T/tiny.srt" --backend cuda --prompt-tokens 5 --tokens 4 --runs 1 --mb 64 --json >"$T/gpu-e2e.json" 2>&1 || echo "FAIL - $label e2e --backend cuda"
    check "$label e2e --backend cuda fields" "$T/gpu-e2e.json" e2e 1 mode backend + prefill_tok_s decode_tok_s bandwidth_gbs roofline_fraction kernels_per_token cuda_graph
    # tiny.srt is q4 with 2 layers (heads of 16): 11 launches per layer (the 4 GEMVs, the 2 norms
    # writing the codes of q/k/v's and gate/up's, the quantizations before wo and down, RoPE, the
    # scores and the values) + embedding, final norm, quantization, output
    if grep -q '"kernels_per_token":26,"cuda_graph":1' "$T/gpu-e2e.json"; then echo "ok - $label e2e: 26 kernels per decode token, replayed from a CUDA graph"
    else echo "FAIL - $label e2e: kernels_per_token is not 26, or the decode step did not replay its CUDA graph"; fi
    # a Q8 KV cache: its store is in the RoPE launch too; heads of 16 take the one-launch attention
    "$bench" e2e "$T/tiny.srt" --backend cuda --kv q8 --prompt-tokens 5 --tokens 4 --runs 1 --mb 64 --json >"$T/gpu-e2e-q8.json" 2>&1 || echo "FAIL - $label e2e --backend cuda --kv q8"
    if grep -q '"kv":"q8",' "$T/gpu-e2e-q8.json" && grep -q '"kernels_per_token":24,' "$T/gpu-e2e-q8.json"; then echo "ok - $label e2e --kv q8: 24 kernels per decode token"
    else echo "FAIL - $label e2e --kv q8"; sed 's/^/    /' "$T/gpu-e2e-q8.json" | head -3; fi
    # speculative decoding on the GPU (forward_rows): plain decoding's tokens, right proposals in fewer evaluations
    "$bench" spec "$T/tiny.srt" --backend cuda --prompt-tokens 5 --tokens 12 --runs 1 --n 3 --json >"$T/gpu-spec.json" 2>&1 || echo "FAIL - $label spec --backend cuda"
    check "$label spec --backend cuda fields" "$T/gpu-spec.json" spec 4 mode backend k proposals same_tokens + decode_tok_s speedup same_tokens
    if grep -q '"isa":"cuda",.*"k":3,"proposals":"right","tokens":12,"evaluations":3,' "$T/gpu-spec.json"; then echo "ok - $label spec: 12 tokens in 3 evaluations with right proposals"
    else echo "FAIL - $label spec --backend cuda: right proposals, k 3"; sed 's/^/    /' "$T/gpu-spec.json" | head -3; fi
}
# a flag (--json, --untied, ...) does not take the next option as its value; a stray argument is refused
run "gemv --json before --shape" "$T/gemv-order.json" gemv --json --shape 24x64 --format q8 --set-mb 0.1 --seconds 0 --bw 10 --threads 1 --isa portable
if grep -q '"m":24,' "$T/gemv-order.json"; then echo "ok - gemv: --shape after --json is used"
else echo "FAIL - gemv --json --shape 24x64: other shapes ran"; sed 's/^/    /' "$T/gemv-order.json" | head -3; fi
"$BENCH" gemv --shape 24x64 stray >/dev/null 2>"$T/stray.txt"; rc=$?
if [ $rc -eq 2 ] && grep -q "gemv takes no file argument (got 'stray')" "$T/stray.txt"; then echo "ok - gemv: a stray argument is refused"
else echo "FAIL - gemv with a stray argument: exit status $rc"; sed 's/^/    /' "$T/stray.txt" | head -3; fi
CUDA_BENCH=$B/srt-bench-cuda
if [ -x "$CUDA_BENCH" ] && ! "$CUDA_BENCH" gpu-membw --mb 64 --iters 2 >"$T/gpu-probe.txt" 2>&1; then
    for args in "gpu-membw" "gpu-gemm --format tcsl" "gpu-gemv --format q4 --shape 64x64" "e2e $T/tiny.srt --backend cuda --tokens 2"; do
        "$CUDA_BENCH" $args >"$T/gpu.txt" 2>&1; rc=$?
        if [ $rc -eq 1 ] && grep -q "no usable CUDA device: .*CUDA device" "$T/gpu.txt"; then echo "ok - srt-bench-cuda $args: exit 1 and the device error"
        else echo "FAIL - srt-bench-cuda $args without a device: rc $rc"; sed 's/^/    /' "$T/gpu.txt" | head -3; fi
    done
elif [ -x "$CUDA_BENCH" ]; then
    gpu_checks "$CUDA_BENCH" srt-bench-cuda
else
    echo "skipped: srt-bench-cuda checks (build/srt-bench-cuda not built: no nvcc)"
fi
# tools/gpu-measure.sh: its models stage with a small Llama-3-shaped config (the 8B one in miniature),
# its refusals; the other stages need a GPU (their commands are the ones gpu_checks runs)
if [ -x tools/gpu-measure.sh ]; then
    rm -rf "$T/gm"
    sed 's/"hidden_size": 4096/"hidden_size": 128/; s/"intermediate_size": 14336/"intermediate_size": 256/; s/"num_hidden_layers": 32/"num_hidden_layers": 2/;
         s/"num_attention_heads": 32/"num_attention_heads": 4/; s/"num_key_value_heads": 8/"num_key_value_heads": 2/; s/"vocab_size": 128256/"vocab_size": 512/' \
        tests/data/llama3-8b-config.json >"$T/small-config.json"
    GPU_OUT=$T/gm GPU_MODELS=$T/gm GPU_CONFIG=$T/small-config.json tools/gpu-measure.sh models >"$T/gm.txt" 2>&1; rc=$?
    if [ $rc -eq 0 ] && [ -s "$T/gm/llama3-8b-q4.srt" ] && [ -s "$T/gm/llama3-8b-tcsl70.srt" ] && grep -q "== models: exit 0" "$T/gm.txt"; then
        echo "ok - gpu-measure.sh models: both models packed"
    else echo "FAIL - gpu-measure.sh models: exit $rc"; sed 's/^/    /' "$T/gm.txt" | tail -5; fi
    GPU_OUT=$T/gm tools/gpu-measure.sh bogus >/dev/null 2>&1; rc1=$?
    GPU_OUT=$T/gm GPU_BENCH=$T/none tools/gpu-measure.sh kernels >"$T/gm2.txt" 2>&1; rc2=$?
    GPU_OUT=$T/gm GPU_CHAT=$T/none tools/gpu-measure.sh chat >"$T/gm3.txt" 2>&1; rc3=$?
    if [ $rc1 -eq 2 ] && [ $rc2 -eq 1 ] && [ $rc3 -eq 1 ] && grep -q "missing: run the test stage first" "$T/gm2.txt" && grep -q "none is missing: run the test stage first" "$T/gm3.txt"; then
        echo "ok - gpu-measure.sh: an unknown stage and a missing srt-bench-cuda or srt-chat-cuda are refused"
    else echo "FAIL - gpu-measure.sh refusals: exit $rc1, $rc2 and $rc3"; fi
    # the ab stage: refused without the other build; on the emulator (both builds this one), three rounds in turn
    GPU_OUT=$T/gm GPU_MODELS=$T/gm GPU_BENCH=$B/srt-bench tools/gpu-measure.sh ab >"$T/gm4.txt" 2>&1; rc4=$?
    if [ $rc4 -eq 1 ] && grep -q "GPU_BENCH_B (the other build's srt-bench-cuda) is missing: unset" "$T/gm4.txt"; then
        echo "ok - gpu-measure.sh ab: refused without GPU_BENCH_B"
    else echo "FAIL - gpu-measure.sh ab without GPU_BENCH_B: exit $rc4"; fi
    if [ -x "$B/srt-bench-cuda-emu" ] && [ -s "$T/gm/llama3-8b-q4.srt" ]; then
        GPU_OUT=$T/gm GPU_MODELS=$T/gm GPU_BENCH=$B/srt-bench-cuda-emu GPU_BENCH_B=$B/srt-bench-cuda-emu GPU_AB_TOKENS=2 GPU_AB_ARGS="--bw 10" \
            tools/gpu-measure.sh ab >"$T/gm5.txt" 2>&1; rc5=$?
        if [ $rc5 -eq 0 ] && [ "$(grep -c '"decode_tok_s"' "$T/gm/ab-b.jsonl")" = 3 ] && [ "$(grep -c '"decode_tok_s"' "$T/gm/ab-this.jsonl")" = 3 ] &&
           [ "$(grep -c '^round [123], \(b\|this\) .*"decode_tok_s":[0-9]' "$T/gm5.txt")" = 6 ]; then
            echo "ok - gpu-measure.sh ab: three rounds of the two builds in turn (emulator)"
        else echo "FAIL - gpu-measure.sh ab on the emulator: exit $rc5"; sed 's/^/    /' "$T/gm5.txt" | tail -5; fi
    else echo "skipped: gpu-measure.sh ab on the emulator (srt-bench-cuda-emu not built)"; fi
else echo "skipped: gpu-measure.sh checks (no tools/ here: a cross run)"; fi
# the same modes on the CUDA emulator (tests/cuda_emu; the numbers mean nothing, the code paths run)
if [ -x "$B/srt-bench-cuda-emu" ]; then gpu_checks "$B/srt-bench-cuda-emu" srt-bench-cuda-emu
else echo "skipped: srt-bench-cuda-emu checks (not built)"; fi
