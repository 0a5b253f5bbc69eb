#!/usr/bin/env bash
# test_ui.sh - the SDL chat window (build/srt-chat-sdl) under Xvfb, driven by tests/ui/chat.script
# on stories260K. Checks the script log (the reply equals srt-chat's greedy output, copy/paste,
# resize, scroll, cancel, new chat, tokens/s) and the pixels of the screenshots (text drawn in the
# reply bubbles and the status line). Leaves the final screenshot at build/ui-test.png.
# Prints one ok/FAIL line per check.
cd "$(dirname "$0")/.."
B=build
T=$B/ui
APP=$B/srt-chat-sdl
INK=$B/ui-png-ink
M=../shared/models/stories260K
PROMPT="Once upon a time"
N=60
mkdir -p "$T"
rm -f "$T"/*.png "$T"/*.log "$B/ui-test.png"
[ -x "$APP" ] || { echo "FAIL - $APP did not build (it needs SDL2 and libstb-dev)"; exit 0; }
[ -x "$INK" ] || { echo "FAIL - $INK did not build"; exit 0; }
command -v xvfb-run >/dev/null 2>&1 || { echo "FAIL - xvfb-run is not installed (Debian: xvfb xauth)"; exit 0; }

if ! "$B/srt-pack" --tokenizer "$M/tok512.bin" "$M/stories260K.bin" "$T/stories.srt" >"$T/pack.log" 2>&1; then
    echo "FAIL - srt-pack stories260K"; sed 's/^/    /' "$T/pack.log" | tail -3; exit 0
fi
# what the reply must be: srt-chat's greedy continuation of the same prompt, escaped as the log writes it
"$B/srt-chat" -m "$T/stories.srt" -p "$PROMPT" -n $N --temp 0 >"$T/expected.txt" 2>/dev/null
expected=$(perl -0777 -pe 's/\n\z//; s/^\Q'"$PROMPT"'\E//; s/\\/\\\\/g; s/\n/\\n/g' "$T/expected.txt")
[ -n "$expected" ] || { echo "FAIL - srt-chat gave no continuation"; exit 0; }

# Every wait in the script has its own timeout; this one is the last resort.
# Under `./build.sh test asan` the window runs with ASan + UBSan but without the leak check: SDL
# dlopen()s libdbus (for the input method) and unloads it at exit, so the bytes libdbus keeps show
# up as leaks of an unknown module that no suppression can name.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 900 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --temp 0 -n $N --scale 1 --size 980x720 \
    --script tests/ui/chat.script --script-log "$T/ui.log" --screenshot "$B/ui-test.png" >"$T/app.log" 2>&1
rc=$?
L=$T/ui.log
touch "$L"

check() {   # check NAME CONDITION-EXIT-STATUS [DETAIL]
    if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "FAIL - $1${3:+: $3}"; fi
}
check "window ran the script (exit status $rc)" $([ $rc -eq 0 ] && ! grep -q '^error:' "$L"; echo $?) \
    "$(grep '^error:' "$L" | head -1; tail -3 "$T/app.log" | tr '\n' ' ')"
check "model loaded (continuation, status facts)" $(grep -q '^model: loaded stories.srt llama .* context=512 threads=[0-9]* (auto) continuation$' "$L"; echo $?) "$(grep '^model:' "$L")"
check "reply 1 is srt-chat's greedy output" $(grep -qxF "reply 1: $expected" "$L"; echo $?) "$(grep '^reply 1:' "$L" | cut -c1-100)"
check "reply 1 stats: $N tokens, tokens/s > 0" $(grep -q "^stats: reply=1 tokens=$N tok/s=[0-9]*[1-9][0-9]*\.[0-9] stop=limit" "$L"; echo $?) "$(grep '^stats: reply=1 ' "$L")"
check "copy (Ctrl+C) and paste (Ctrl+V) the reply" $(grep -qxF "input: $expected" "$L"; echo $?) "$(grep '^input:' "$L" | cut -c1-100)"
check "resize to 760x560" $(grep -qx 'window: 760x560 pixels=760x560' "$L" && "$INK" "$T/resized.png" | grep -qx 'size 760 560'; echo $?) "$(grep '^window:' "$L")"
# scroll lines: after PageUp (not at the bottom), wheel down (bottom), wheel up (not), PageDown x4 (bottom)
scroll=$(grep '^scroll:' "$L" | sed 's/.*at_bottom=//' | tr -d '\n')
check "scroll: PageUp, wheel down, wheel up, PageDown" $([ "$scroll" = 0101 ] && grep -q '^scroll: top=[0-9]* max=[1-9]' "$L"; echo $?) "$(grep '^scroll:' "$L" | tr '\n' ' ')"
for r in 4 5; do
    line=$(grep "^stats: reply=$r " "$L")
    tokens=$(printf '%s' "$line" | sed -n 's/.* tokens=\([0-9]*\) .*/\1/p')
    check "reply $r cancelled after a few tokens ($([ $r = 4 ] && echo Esc || echo Stop button))" \
        $(printf '%s' "$line" | grep -q 'stop=cancelled' && [ -n "$tokens" ] && [ "$tokens" -ge 3 ] && [ "$tokens" -lt $N ]; echo $?) "$line"
done
check "new chat: reply 6 equals reply 1" $(grep -qxF "reply 6: $expected" "$L"; echo $?) "$(grep '^reply 6:' "$L" | cut -c1-100)"

# a chat (chatml, a system message): after a new chat the same message gets the same reply, and its
# prompt is not read again (the tokens it begins with stay in the KV cache)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --template chatml --system "Tell stories." --temp 0 -n 20 --scale 1 --size 700x500 \
    --script tests/ui/chat-template.script --script-log "$T/chat.log" >"$T/chat-app.log" 2>&1
C=$T/chat.log
touch "$C"
r1=$(grep '^reply 1:' "$C" | cut -d: -f2-); r2=$(grep '^reply 2:' "$C" | cut -d: -f2-)
p1=$(sed -n 's/^stats: reply=1 .* prompt_tokens=\([0-9]*\) .*/\1/p' "$C"); p2=$(sed -n 's/^stats: reply=2 .* prompt_tokens=\([0-9]*\) .*/\1/p' "$C")
check "chat: after a new chat the same message gets the same reply" $([ -n "$r1" ] && [ "$r1" = "$r2" ]; echo $?) "$(grep '^reply' "$C" | cut -c1-80 | tr '\n' ' '; tail -2 "$T/chat-app.log")"
check "chat: the new chat's prompt comes from the KV cache ($p1 tokens, then ${p2:-?})" $([ "${p1:-0}" -gt 20 ] && [ "$p2" = 0 ]; echo $?)
r3=$(grep '^reply 3:' "$C" | cut -d: -f2-); r4=$(grep '^reply 4:' "$C" | cut -d: -f2-)
ctx2=$(sed -n 's/^stats: reply=2 .* context=\([0-9]*\)\/.*/\1/p' "$C"); ctx4=$(sed -n 's/^stats: reply=4 .* context=\([0-9]*\)\/.*/\1/p' "$C")
check "chat: Retry (Ctrl+R, the button) gives the greedy reply again from the same prompt, the KV cache as long as before" \
    $([ -n "$r3" ] && [ "$r3" = "$r2" ] && [ "$r4" = "$r2" ] && [ -n "$ctx2" ] && [ "$ctx2" = "$ctx4" ] && \
      grep -q '^stats: reply=3 .* prompt_tokens=0 ' "$C" && grep -q '^stats: reply=4 .* prompt_tokens=0 ' "$C"; echo $?) \
    "$(grep '^stats: reply=[34]' "$C" | tr '\n' ' ')"

# the final screenshot: size, status line with tokens/s, text in the bubbles
shot=$B/ui-test.png
check "screenshot written" $([ -s "$shot" ] && "$INK" "$shot" | grep -qx 'size 760 560'; echo $?) "$("$INK" "$shot" 2>&1 | head -1)"
status=$(grep '^status:' "$L" | tail -1)
check "status line shows tokens/s and context" $(printf '%s' "$status" | grep -q 'Ready .* context [1-9][0-9]*/512 .* [0-9]*[1-9][0-9]*\.[0-9] tok/s .* threads (auto)'; echo $?) "$status"
# ink: at least 2% of the reply bubble and 5% of the status text box differ from their backgrounds
ink_ok() {  # ink_ok PERCENT X Y W H
    local pct=$1; shift
    "$INK" "$shot" "$@" | awk -v pct="$pct" '/^ink/ { exit !($2 * 100 >= pct * $4) } END { if (NR < 2) exit 1 }'
}
rect=$(awk '/^rect status/ { r = $3 " " $4 " " $5 " " $6 } END { print r }' "$L")
check "status line text drawn" $([ -n "$rect" ] && ink_ok 5 $rect; echo $?) "rect '$rect': $("$INK" "$shot" $rect 2>&1 | tail -1)"
rect=$(awk '/^rect message [0-9]+ model/ { r = $5 " " $6 " " $7 " " $8 } END { print r }' "$L")
check "reply text drawn in its bubble" $([ -n "$rect" ] && ink_ok 2 $rect; echo $?) "rect '$rect': $("$INK" "$shot" $rect 2>&1 | tail -1)"
rect=$(awk '/^rect message [0-9]+ user/ { r = $5 " " $6 " " $7 " " $8 } END { print r }' "$L")
check "prompt text drawn in its bubble" $([ -n "$rect" ] && ink_ok 2 $rect; echo $?) "rect '$rect': $("$INK" "$shot" $rect 2>&1 | tail -1)"
exit 0
