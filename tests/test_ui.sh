#!/usr/bin/env bash
# test_ui.sh - the SDL chat window (build/srt-chat-sdl) under Xvfb, driven by tests/ui/chat.script
# on stories260K. Checks the script log (the reply equals srt-chat's greedy output, copy/paste,
# resize, scroll, cancel, new chat, tokens/s) and the pixels of the screenshots (text drawn in the
# reply bubbles and the status line). Leaves the final screenshot at build/ui-test.png.
# Then conversation files (tests/ui/chatfile-*.script, continued text and a chatml chat): --chat
# FILE saved after each reply, opened again (bubbles, context, the next reply reads only its message
# and equals srt-chat's after /load of the same file), /save and /load (refused while generating),
# srt-chat's /save opened in the window, and files that cannot be opened (damaged, another model's,
# no conversation file): a note, and FILE's bytes unchanged. --draft 4 (tests/ui/draft.script and the
# chat's script): the replies of plain decoding, continued text in fewer evaluations. --tools
# (tests/ui/tools.script): a loaded reply's calls, /tool results sent as one turn. --grammar
# (tests/ui/grammar.script): each reply in the grammar, as srt-chat's; --json-schema the same;
# --tool-grammar (the tools' conversation again).
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
check "reply 1 stats: $N tokens, tokens/s > 0, one evaluation a token" $(grep -q "^stats: reply=1 tokens=$N tok/s=[0-9]*[1-9][0-9]*\.[0-9] stop=limit .* passes=$N$" "$L"; echo $?) "$(grep '^stats: reply=1 ' "$L")"
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

# --draft: speculative decoding by prompt lookup gives the plain replies, continued text in fewer
# evaluations (stories260K repeats itself), and in a chat the replies of the chat above
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --temp 0 -n $N --draft 4 --scale 1 --size 700x500 \
    --script tests/ui/draft.script --script-log "$T/draft.log" >"$T/draft-app.log" 2>&1
D=$T/draft.log
touch "$D"
passes=$(sed -n 's/^stats: reply=1 .* passes=\([0-9]*\)$/\1/p' "$D")
check "--draft 4: the reply and its Retry are srt-chat's greedy output, in fewer evaluations (${passes:-?} for $N tokens)" \
    $(grep -qxF "reply 1: $expected" "$D" && grep -qxF "reply 2: $expected" "$D" && grep -q "^stats: reply=1 tokens=$N .* stop=limit " "$D" && \
      [ -n "$passes" ] && [ "$passes" -lt $N ]; echo $?) "$(grep '^reply\|^stats' "$D" | cut -c1-100 | tr '\n' ' '; tail -2 "$T/draft-app.log")"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --template chatml --system "Tell stories." --temp 0 -n 20 --draft 4 --scale 1 --size 700x500 \
    --script tests/ui/chat-template.script --script-log "$T/chat-draft.log" >"$T/chat-draft-app.log" 2>&1
same=1
for r in 1 2 3 4; do
    a=$(sed -n "s/^reply $r: //p" "$C"); d=$(sed -n "s/^reply $r: //p" "$T/chat-draft.log")
    [ -n "$a" ] && [ "$a" = "$d" ] || same=0
done
check "--draft 4 in a chat: the four replies of the chat without it" $([ $same = 1 ]; echo $?) \
    "$(grep '^reply' "$T/chat-draft.log" | cut -c1-80 | tr '\n' ' '; tail -2 "$T/chat-draft-app.log")"
# --draft-model: the model itself proposes (the same vocabulary; every greedy proposal is right), so the
# replies are the plain ones in far fewer evaluations; a draft model that cannot be loaded is said so in the window
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --temp 0 -n $N --draft-model "$T/stories.srt" --scale 1 --size 700x500 \
    --script tests/ui/draft.script --script-log "$T/draft-model.log" >"$T/draft-model-app.log" 2>&1
passes=$(sed -n 's/^stats: reply=1 .* passes=\([0-9]*\)$/\1/p' "$T/draft-model.log")
check "--draft-model: the reply and its Retry are srt-chat's greedy output, in far fewer evaluations (${passes:-?} for $N tokens)" \
    $(grep -qxF "reply 1: $expected" "$T/draft-model.log" && grep -qxF "reply 2: $expected" "$T/draft-model.log" && \
      [ -n "$passes" ] && [ "$passes" -lt $((N / 3)) ]; echo $?) "$(grep '^reply\|^stats' "$T/draft-model.log" | cut -c1-100 | tr '\n' ' '; tail -2 "$T/draft-model-app.log")"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" \
    "$APP" --model "$T/stories.srt" --temp 0 -n 20 --draft-model "$T/missing.srt" --scale 1 --size 700x500 \
    --script tests/ui/draft.script --script-log "$T/draft-missing.log" >"$T/draft-missing-app.log" 2>&1
check "--draft-model that cannot be loaded: the window says so" $(grep -q "Cannot load the draft model missing.srt" "$T/draft-missing.log" "$T/draft-missing-app.log"; echo $?) \
    "$(grep -h 'model:\|Cannot' "$T/draft-missing.log" "$T/draft-missing-app.log" | head -3 | tr '\n' ' ')"
"$APP" --draft 17 >"$T/draft-bad.txt" 2>&1; rc=$?
check "--draft 17 is refused (exit status $rc)" $([ $rc = 2 ] && grep -q -- '--draft takes 0..16' "$T/draft-bad.txt"; echo $?) "$(cat "$T/draft-bad.txt")"

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
# --- conversation files (--chat FILE, /save, /load), in srt-chat's format both ways
esc() { perl -0777 -pe 's/\n\z//; s/\\/\\\\/g; s/\n/\\n/g'; }   # text as the log writes it
bubble() { perl -pe 's/^(?: |\\n)+//'; }                        # a reply as its bubble shows it
app() {   # app LOG SCRIPT ARGS...: the window on SCRIPT; the exit status and the log's errors are checked
    local log=$1 script=$2; shift 2
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    timeout 600 xvfb-run -a -s "-screen 0 1280x1024x24" "$APP" --temp 0 --scale 1 --size 700x500 "$@" \
        --script "$script" --script-log "$log" >"$log.app" 2>&1
    local rc=$?
    touch "$log"
    check "window ran $(basename "$script") ($*)" $([ $rc -eq 0 ] && ! grep -q '^error:' "$log"; echo $?) \
        "exit status $rc; $(grep '^error:' "$log" | head -1; tail -2 "$log.app" | tr '\n' ' ')"
}
reply() { sed -n "s/^reply $2: //p" "$1"; }
saved_after_each() {   # saved_after_each LOG FILE: each reply (finished or stopped) is followed by a save to FILE
    awk -v f="file: saved to $2: " '/^stats: reply=/ { want = 1; n++; next }
        want && /^file: / { if (index($0, f) != 1) bad = 1; want = 0 } END { exit bad || want || n == 0 }' "$1"
}
prompt_tokens() { sed -n "s/^stats: reply=$2 .* prompt_tokens=\([0-9]*\) .*/\1/p" "$1"; }
context() { sed -n "s/^stats: reply=$2 .* context=\([0-9]*\)\/.*/\1/p" "$1"; }
CHATML=(--template chatml --system "Tell stories." -n 20)
rm -f "$T"/*.chat "$T"/*.chat.tmp "$T"/*.txt.err

# a reasoning model's chat (--template olmo3: its prompt opens the <think> block, so all of
# stories260K's reply is reasoning): shown dim above an empty answer, as srt-chat prints it on stderr
# after "(reasoning) "; the conversation file opened again shows them apart the same way
"$B/srt-chat" -m "$T/stories.srt" --template olmo3 --chat -p "$PROMPT" -n 20 --temp 0 >/dev/null 2>"$T/think-srt.txt.err"
want=$(perl -0777 -ne 'print $1 if /\(reasoning\) (.*?)\n\[prompt:/s' "$T/think-srt.txt.err" | esc)
app "$T/think.log" tests/ui/reasoning.script --model "$T/stories.srt" --template olmo3 -n 20 --chat "$T/think.chat"
check "reasoning: the reply's reasoning shown apart, as srt-chat's (its answer empty)" \
    $([ -n "$want" ] && grep -qxF "reasoning 1: $want" "$T/think.log" && grep -qx 'reply 1: ' "$T/think.log" && \
      grep -qxF "message 2 reasoning: $want" "$T/think.log" && grep -qx 'message 2 model: ' "$T/think.log"; echo $?) \
    "want '$(printf '%s' "$want" | cut -c1-60)'; $(grep -e '^reasoning' -e '^reply' "$T/think.log" | cut -c1-80 | tr '\n' ' ')"
app "$T/think2.log" tests/ui/reasoning-resume.script --model "$T/stories.srt" --template olmo3 -n 20 --chat "$T/think.chat"
check "reasoning: the conversation opened again keeps the reasoning apart from the answer" \
    $([ -n "$want" ] && grep -qxF "message 2 reasoning: $want" "$T/think2.log" && grep -qx 'message 2 model: ' "$T/think2.log"; echo $?) \
    "$(grep '^message' "$T/think2.log" | cut -c1-80 | tr '\n' ' ')"

# continued text (no template): the file is the session state alone, as srt-chat's /save writes it there
app "$T/text1.log" tests/ui/chatfile-new.script --model "$T/stories.srt" -n $N --chat "$T/text.chat"
A=$T/text1.log
check "text: a missing --chat FILE starts a new chat, saved after each reply" \
    $(grep -qxF "file: new $T/text.chat" "$A" && [ "$(grep -c "^file: saved to $T/text.chat: [1-9][0-9]* tokens$" "$A")" = 2 ] && \
      grep -qxF "file: saved to $T/saved.chat: $(context "$A" 1) tokens" "$A" && grep -qxF "flash: Saved to $T/saved.chat: $(context "$A" 1) tokens" "$A"; echo $?) "$(grep '^file:' "$A" | tr '\n' ' ')"
cp "$T/text.chat" "$T/text-srt.chat"
app "$T/text2.log" tests/ui/chatfile-resume.script --model "$T/stories.srt" -n $N --chat "$T/text.chat"
B2=$T/text2.log
ctxA=$(context "$A" 2)
shown=$(printf '%s%s%s%s' "$PROMPT" "$(reply "$A" 1)" "The cat sat" "$(reply "$A" 2)")
check "text: reopened, the whole text in one bubble, the context as it was ($ctxA tokens)" \
    $([ -n "$ctxA" ] && grep -qxF "file: loaded $T/text.chat: $ctxA tokens" "$B2" && grep -qxF "message 1 model: $shown" "$B2" && \
      [ "$(grep -c '^message ' "$B2")" -ge 2 ] && grep -q "^status: Ready .* context $ctxA/512 " "$B2"; echo $?) \
    "$(grep -e '^file: loaded' -e '^status:' "$B2" | head -2 | tr '\n' ' '); $(grep '^message 1 ' "$B2" | head -1 | cut -c1-80)"
printf '/load %s\nLily went to the park.\n' "$T/text-srt.chat" | "$B/srt-chat" -m "$T/stories.srt" -n $N --temp 0 >"$T/text-srt.txt" 2>"$T/text-srt.txt.err"
want=$(perl -0777 -pe 's/^Lily went to the park\.//' "$T/text-srt.txt" | esc)
p_srt=$(sed -n 's/^\(> \)*\[prompt: \([0-9]*\) tokens.*/\2/p' "$T/text-srt.txt.err" | head -1)
check "text: the next message continues it as srt-chat's /load of the same file does ($(prompt_tokens "$B2" 1) tokens read, srt-chat ${p_srt:-?})" \
    $([ -n "$want" ] && [ "$(reply "$B2" 1)" = "$want" ] && [ -n "$p_srt" ] && [ "$(prompt_tokens "$B2" 1)" = "$p_srt" ] && \
      [ "$(context "$B2" 1)" -gt "$ctxA" ]; echo $?) "window '$(reply "$B2" 1 | cut -c1-60)' srt-chat '$(printf '%s' "$want" | cut -c1-60)'"
check "text: /load refused while a reply is generating, then done; the second message gets its first reply again" \
    $(grep -qxF "input: /load $T/saved.chat" "$B2" && grep -q '^flash: Wait for the reply' "$B2" && \
      awk '/^stats: reply=2 /{s=NR} /^file: loaded .*saved.chat/{l=NR} END{exit !(s && l > s)}' "$B2" && \
      [ "$(reply "$B2" 3)" = "$(reply "$A" 2)" ] && [ "$(prompt_tokens "$B2" 3)" = "$(prompt_tokens "$A" 2)" ] && \
      [ "$(context "$B2" 3)" = "$(context "$A" 2)" ]; echo $?) "$(grep '^stats: reply=3' "$B2"; grep '^stats: reply=2' "$A")"
check "text: saved to FILE after each reply (a stopped one too), Retry and New chat (the session emptied)" \
    $(saved_after_each "$B2" "$T/text.chat" && [ "$(reply "$B2" 6)" = "$(reply "$B2" 5)" ] && \
      [ "$(grep '^file:' "$B2" | tail -1)" = "file: saved to $T/text.chat: 0 tokens" ]; echo $?) "$(grep -e '^file:' -e '^stats:' "$B2" | tail -4 | tr '\n' ' ')"
check "text: /undo is text to continue (as in srt-chat), not a command" \
    $(grep -q '^stats: reply=4 .* prompt_tokens=[1-9]' "$B2" && grep -q '^stats: reply=5 ' "$B2" && ! grep -q '^flash: .*taken back' "$B2"; echo $?) \
    "$(grep -e '^stats: reply=[45]' -e '^flash:' "$B2" | tail -3 | tr '\n' ' ')"

# a chat (chatml): the messages and the text the KV cache stands for are kept beside the state
app "$T/chat1.log" tests/ui/chatfile-new.script --model "$T/stories.srt" "${CHATML[@]}" --chat "$T/conv.chat"
A=$T/chat1.log
check "chat: a missing --chat FILE starts a new chat, saved after each reply; /save" \
    $(grep -qxF "file: new $T/conv.chat" "$A" && grep -qxF "file: saved to $T/conv.chat: 3 messages, $(context "$A" 1) tokens" "$A" && \
      grep -qxF "file: saved to $T/conv.chat: 5 messages, $(context "$A" 2) tokens" "$A" && \
      grep -qxF "file: saved to $T/saved.chat: 3 messages, $(context "$A" 1) tokens" "$A" && \
      grep -qxF "flash: Saved to $T/saved.chat: 3 messages, $(context "$A" 1) tokens" "$A"; echo $?) "$(grep '^file:' "$A" | tr '\n' ' ')"
cp "$T/conv.chat" "$T/conv-srt.chat"; cp "$T/conv.chat" "$T/conv-orig.chat"
app "$T/chat2.log" tests/ui/chatfile-resume.script --model "$T/stories.srt" "${CHATML[@]}" --chat "$T/conv.chat"
B2=$T/chat2.log
ctxA=$(context "$A" 2)
check "chat: reopened, the bubbles come back and the status line shows the context ($ctxA tokens)" \
    $([ -n "$ctxA" ] && grep -qxF "file: loaded $T/conv.chat: 5 messages, $ctxA tokens" "$B2" && \
      grep -qxF "message 1 user: $PROMPT" "$B2" && grep -qxF "message 2 model: $(reply "$A" 1 | bubble)" "$B2" && \
      grep -qxF "message 3 user: The cat sat" "$B2" && grep -qxF "message 4 model: $(reply "$A" 2 | bubble)" "$B2" && \
      ! grep -q '^message 5 ' <(sed '/^reply 1:/,$d' "$B2") && grep -q "^status: Ready .* context $ctxA/512 " "$B2"; echo $?) \
    "$(grep -e '^file: loaded' -e '^message' "$B2" | head -5 | cut -c1-70 | tr '\n' ' ')"
printf '/load %s\nLily went to the park.\n' "$T/conv-srt.chat" | "$B/srt-chat" -m "$T/stories.srt" "${CHATML[@]}" --temp 0 >"$T/chat-srt.txt" 2>"$T/chat-srt.txt.err"
want=$(esc <"$T/chat-srt.txt")
p_srt=$(sed -n 's/^\(> \)*\[prompt: \([0-9]*\) new tokens.*/\2/p' "$T/chat-srt.txt.err" | head -1)
p_win=$(prompt_tokens "$B2" 1)
check "chat: the next reply reads only its message ($p_win tokens, srt-chat ${p_srt:-?}) and equals srt-chat's after /load of the same file" \
    $([ -n "$want" ] && [ "$(reply "$B2" 1)" = "$want" ] && [ -n "$p_srt" ] && [ "$p_win" = "$p_srt" ] && [ "$p_win" -lt $((ctxA / 2)) ] && \
      [ "$(context "$B2" 1)" = $((ctxA + p_win + $(sed -n 's/^stats: reply=1 tokens=\([0-9]*\) .*/\1/p' "$B2"))) ] && \
      grep -qF "(loaded $T/conv-srt.chat: 5 messages, $ctxA tokens)" "$T/chat-srt.txt.err" && ! grep -q 'reading the conversation again' "$T/chat-srt.txt.err"; echo $?) \
    "window '$(reply "$B2" 1 | cut -c1-60)' $(grep '^stats: reply=1' "$B2"); srt-chat '$(printf '%s' "$want" | cut -c1-60)' $(grep '^\[' "$T/chat-srt.txt.err" | tr '\n' ' ')"
check "chat: /load refused while a reply is generating, then done: the bubbles of that file, its second message gets the same reply" \
    $(grep -qxF "input: /load $T/saved.chat" "$B2" && grep -q '^flash: Wait for the reply' "$B2" && \
      awk '/^stats: reply=2 /{s=NR} /^file: loaded .*saved.chat: 3 messages/{l=NR} END{exit !(s && l > s)}' "$B2" && \
      grep -q '^message 2 model: ' <(sed -n '/saved.chat: 3 messages/,/^reply 3:/p' "$B2") && \
      ! grep -q '^message 3 ' <(sed -n '/saved.chat: 3 messages/,/^reply 3:/p' "$B2") && \
      [ "$(reply "$B2" 3)" = "$(reply "$A" 2)" ] && [ "$(prompt_tokens "$B2" 3)" = "$(prompt_tokens "$A" 2)" ]; echo $?) \
    "$(grep '^stats: reply=3' "$B2"; grep '^stats: reply=2' "$A")"
after=$(sed -n '/^flash: Last exchange taken back$/,/^reply 4:/p' "$B2")
check "chat: /undo takes the last exchange back (bubbles, context, FILE) and the same message gets the same reply" \
    $([ -n "$after" ] && printf '%s\n' "$after" | grep -q '^message 2 model: ' && ! printf '%s\n' "$after" | grep -q '^message 3 ' && \
      printf '%s\n' "$after" | grep -q "^status: Ready .* context $(context "$A" 1)/512 " && \
      printf '%s\n' "$after" | grep -qxF "file: saved to $T/conv.chat: 3 messages, $(context "$A" 1) tokens" && \
      [ "$(reply "$B2" 4)" = "$(reply "$B2" 3)" ] && [ "$(prompt_tokens "$B2" 4)" = "$(prompt_tokens "$B2" 3)" ] && \
      [ "$(context "$B2" 4)" = "$(context "$B2" 3)" ]; echo $?) "$(printf '%s\n' "$after" | cut -c1-80 | tr '\n' ' '; grep '^stats: reply=[34]' "$B2")"
check "chat: saved to FILE after each reply (a stopped one too), Retry and New chat (the system message kept)" \
    $(saved_after_each "$B2" "$T/conv.chat" && [ "$(reply "$B2" 5)" = "$(reply "$B2" 4)" ] && \
      grep -qxF "file: saved to $T/conv.chat: 9 messages, $(context "$B2" 2) tokens" "$B2" && \
      grep '^file:' "$B2" | tail -1 | grep -q "^file: saved to $T/conv.chat: 1 messages, "; echo $?) \
    "$(grep -e '^file:' -e '^stats:' "$B2" | tail -4 | tr '\n' ' ')"
# what New chat saves holds nothing of the conversation before it: the tokens the system message
# begins with stay, fewer than the first turn's
kept=$(grep '^file:' "$B2" | tail -1 | sed -n 's/.*: 1 messages, \([0-9]*\) tokens$/\1/p')
check "chat: the FILE saved after New chat keeps only the system message's tokens ($kept of the first turn's $(prompt_tokens "$A" 1))" \
    $([ -n "$kept" ] && [ "$kept" -gt 0 ] && [ "$kept" -lt "$(prompt_tokens "$A" 1)" ]; echo $?)

# srt-chat's /save opens in the window
printf '%s\n/save %s\n' "$PROMPT" "$T/srt.chat" | "$B/srt-chat" -m "$T/stories.srt" "${CHATML[@]}" --temp 0 >"$T/srt1.txt" 2>/dev/null
printf '/load %s\nThe cat sat\n' "$T/srt.chat" | "$B/srt-chat" -m "$T/stories.srt" "${CHATML[@]}" --temp 0 >"$T/srt2.txt" 2>/dev/null
app "$T/chat3.log" tests/ui/chatfile-open.script --model "$T/stories.srt" "${CHATML[@]}" --chat "$T/srt.chat"
C=$T/chat3.log
check "chat: srt-chat's /save opens in the window and goes on as srt-chat's /load does" \
    $([ -s "$T/srt2.txt" ] && grep -q "^file: loaded $T/srt.chat: 3 messages, [1-9]" "$C" && grep -qxF "message 1 user: $PROMPT" "$C" && \
      grep -qxF "message 2 model: $(esc <"$T/srt1.txt" | bubble)" "$C" && [ "$(reply "$C" 1)" = "$(esc <"$T/srt2.txt")" ]; echo $?) \
    "$(grep '^file:' "$C" | head -1) window '$(reply "$C" 1 | cut -c1-50)' srt-chat '$(esc <"$T/srt2.txt" | cut -c1-50)'"
check "chat: /load of a file that is no conversation: a note, the chat stays" \
    $(grep -q '^note: Cannot open the conversation: tests/ui/chat.script: ' "$C" && grep -q '^message 4 model: ' "$C" && grep -q '^message 5 note: Cannot open the conversation: tests/ui/chat.script' "$C"; echo $?) \
    "$(grep -e '^note:' -e '^message' "$C" | cut -c1-70 | tr '\n' ' ')"

# a FILE that cannot be opened is said so and never written: damaged (one byte flipped), another model's
cp "$T/conv-orig.chat" "$T/bad.chat"
perl -0777 -pi -e 'my $k = int(length($_) / 2); substr($_, $k, 1) = chr(ord(substr($_, $k, 1)) ^ 0x55)' "$T/bad.chat"
cp "$T/bad.chat" "$T/bad-orig.chat"
app "$T/chat4.log" tests/ui/chatfile-open.script --model "$T/stories.srt" "${CHATML[@]}" --chat "$T/bad.chat"
C=$T/chat4.log
check "chat: a damaged FILE: the error in the window, the chat starts empty, FILE not written" \
    $(grep -q "^note: Cannot open the conversation: $T/bad.chat: .*checksum.* This chat starts empty and is not saved to $T/bad.chat: that file stays as it is" "$C" && \
      ! grep -q "^message [0-9]* \(user\|model\)" <(sed '/^reply 1:/,$d' "$C") && [ -n "$(reply "$C" 1)" ] && \
      ! grep -q "^file: saved to $T/bad.chat" "$C" && cmp -s "$T/bad.chat" "$T/bad-orig.chat"; echo $?) "$(grep -e '^note:' -e '^file:' "$C" | head -2 | tr '\n' ' ')"
# ... until /save FILE overwrites it: from then on each reply is saved there again, and srt-chat opens it
cp "$T/bad-orig.chat" "$T/bad2.chat"
app "$T/chat6.log" tests/ui/chatfile-resave.script --model "$T/stories.srt" "${CHATML[@]}" --chat "$T/bad2.chat"
C=$T/chat6.log
printf '/load %s\n' "$T/bad2.chat" | "$B/srt-chat" -m "$T/stories.srt" "${CHATML[@]}" --temp 0 -t 1 >/dev/null 2>"$T/bad2-load.txt"
check "chat: /save FILE overwrites the FILE that could not be opened, and the saves go on there" \
    $(grep -q "^note: Cannot open the conversation: $T/bad2.chat: " "$C" && \
      [ "$(sed -n '/^reply 1:/,/^reply 2:/p' "$C" | grep -c "^file: saved to $T/bad2.chat: ")" = 1 ] && \
      sed -n '/^reply 2:/,$p' "$C" | grep -q "^file: saved to $T/bad2.chat: 5 messages, " && \
      grep -q "(loaded $T/bad2.chat: 5 messages, " "$T/bad2-load.txt"; echo $?) \
    "$(grep -e '^note:' -e '^file:' "$C" | cut -c1-80 | tr '\n' ' '; head -2 "$T/bad2-load.txt")"
if "$B/srt-pack" --weights q8 --tokenizer "$M/tok512.bin" "$M/stories260K.bin" "$T/stories-q8.srt" >"$T/pack-q8.log" 2>&1; then
    app "$T/chat5.log" tests/ui/chatfile-open.script --model "$T/stories-q8.srt" "${CHATML[@]}" --chat "$T/conv-orig.chat"
    C=$T/chat5.log
    check "chat: another model's FILE: the error in the window, FILE not written" \
        $(grep -q "^note: Cannot open the conversation: $T/conv-orig.chat: .*another model.* that file stays as it is" "$C" && \
          [ -n "$(reply "$C" 1)" ] && ! grep -q "^file: saved to $T/conv-orig.chat" "$C" && cmp -s "$T/conv-orig.chat" "$T/conv-srt.chat"; echo $?) \
        "$(grep -e '^note:' -e '^file:' "$C" | head -2 | tr '\n' ' ')"
else
    echo "FAIL - srt-pack --weights q8 stories260K"; sed 's/^/    /' "$T/pack-q8.log" | tail -3
fi

# the first turn of a chat is tokenized as srt-chat tokenizes it (the dummy-prefix space at the
# start, as llama.cpp gives it): the window's first reply above is srt-chat's
printf '%s\n' "$PROMPT" | "$B/srt-chat" -m "$T/stories.srt" "${CHATML[@]}" --temp 0 -t 1 >"$T/first.txt" 2>/dev/null
check "chat: the first reply equals srt-chat's for the same system message and message" \
    $([ -s "$T/first.txt" ] && [ "$(reply "$T/chat.log" 1)" = "$(esc <"$T/first.txt")" ]; echo $?) \
    "window '$(reply "$T/chat.log" 1 | cut -c1-50)' srt-chat '$(esc <"$T/first.txt" | cut -c1-50)'"

# --tools: stories260K packed with a ChatML template that has Qwen's tool blocks (srt-pack
# --chat-template); a conversation whose last reply calls two tools (tests/ui/make_chat.c) opened
# in the window: the calls listed as notes, /tool gives both results (sent as one turn, one bubble),
# the reply equals srt-chat's after the same /load and /tool lines, and a /tool with no call left is refused
printf '%s' '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{# <tool_call> <tool_response> #}' >"$T/tools.jinja"
printf '%s' '[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]' >"$T/tools.json"
if "$B/srt-pack" -q --tokenizer "$M/tok512.bin" --chat-template "$T/tools.jinja" "$M/stories260K.bin" "$T/tools.srt" >"$T/pack-tools.log" 2>&1 &&
   "$B/ui-make-chat" "$T/tools.srt" "$T/calls.chat" user "Weather in Paris?" assistant \
       'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "now", "arguments": {}}\n</tool_call>'; then
    app "$T/tools.log" tests/ui/tools.script --model "$T/tools.srt" --tools "$T/tools.json" -n 8 -c 1024
    TL=$T/tools.log
    check "--tools: a loaded reply's two calls listed as notes" \
        $(grep -qxF 'note: Tool call: get_weather {"city": "Paris"}' "$TL" && grep -qxF 'note: Tool call: now {}' "$TL" &&
          grep -qxF 'note: Answer with /tool RESULT, one per call, in order' "$TL"; echo $?) "$(grep '^note:' "$TL" | head -3 | tr '\n' ' ')"
    check "--tools: /tool keeps the first result, the second sends both as one bubble; then no call is left" \
        $(grep -qxF 'flash: Result 1 of 2 kept: /tool the next one' "$TL" && grep -qF 'user: Tool results:\n18 C\n12:00' "$TL" &&
          grep -qxF 'flash: The last reply calls no tool' "$TL"; echo $?) "$(grep -e '^flash:' -e '^message' "$TL" | cut -c1-80 | tr '\n' ' ')"
    printf '/load %s\n/tool 18 C\n/tool 12:00\n' "$T/calls.chat" | "$B/srt-chat" -m "$T/tools.srt" --tools "$T/tools.json" -n 8 -c 1024 --temp 0 -t 1 >"$T/tools-srt.txt" 2>/dev/null
    check "--tools: the answer to the results is srt-chat's" \
        $(w=$(reply "$TL" 1); [ -n "$w" ] && [ "$w" = "$(esc <"$T/tools-srt.txt")" ]; echo $?) "window '$(reply "$TL" 1 | cut -c1-50)' srt-chat '$(esc <"$T/tools-srt.txt" | cut -c1-50)'"
    # --tool-grammar: the calls would be constrained; this answer makes none, so it is the same
    app "$T/tools-tg.log" tests/ui/tools.script --model "$T/tools.srt" --tools "$T/tools.json" --tool-grammar -n 8 -c 1024
    printf '/load %s\n/tool 18 C\n/tool 12:00\n' "$T/calls.chat" | "$B/srt-chat" -m "$T/tools.srt" --tools "$T/tools.json" --tool-grammar -n 8 -c 1024 --temp 0 -t 1 >"$T/tools-tg-srt.txt" 2>/dev/null
    check "--tools --tool-grammar: the answer (no call) is the one without it, in the window and in srt-chat" \
        $(w=$(reply "$T/tools-tg.log" 1); [ -n "$w" ] && [ "$w" = "$(reply "$TL" 1)" ] && cmp -s "$T/tools-tg-srt.txt" "$T/tools-srt.txt"; echo $?) \
        "window '$(reply "$T/tools-tg.log" 1 | cut -c1-50)' srt-chat '$(esc <"$T/tools-tg-srt.txt" | cut -c1-50)'"
    "$APP" --model "$T/tools.srt" --tool-grammar >"$T/tg-refused.txt" 2>&1; rc=$?
    check "--tool-grammar without --tools is refused" $([ $rc -eq 2 ] && grep -q 'needs --tools' "$T/tg-refused.txt"; echo $?) "exit $rc: $(head -1 "$T/tg-refused.txt")"
else
    echo "FAIL - --tools: srt-pack --chat-template or ui-make-chat"; tail -3 "$T/pack-tools.log"
fi

# --grammar (tests/ui/grammar.script): each reply of a chat is in the grammar from its start, and is
# srt-chat's with the same grammar; a grammar that does not parse is refused before the window opens
printf '%s\n' 'root ::= ("Yes" | "No") ", " [a-z ]{1,30} "."' >"$T/yn.gbnf"
app "$T/grammar.log" tests/ui/grammar.script --model "$T/stories.srt" --template chatml --grammar "$T/yn.gbnf"
printf 'Is the sky blue?\nWas the dog happy?\n' | "$B/srt-chat" -m "$T/stories.srt" --template chatml --grammar "$T/yn.gbnf" --temp 0 -t 1 >"$T/grammar-srt.txt" 2>/dev/null
G=$T/grammar.log
check "--grammar: both replies are in the grammar and are srt-chat's" \
    $(r1=$(reply "$G" 1); r2=$(reply "$G" 2); [ -n "$r1" ] && [ -n "$r2" ] && \
      printf '%s\n' "$r1" "$r2" | grep -Eqvx '(Yes|No), [a-z ]{1,30}\.' ; [ $? -eq 1 ] && \
      [ "$(printf '%s\n%s' "$r1" "$r2")" = "$(cat "$T/grammar-srt.txt")" ]; echo $?) \
    "window '$(reply "$G" 1)' / '$(reply "$G" 2)' srt-chat '$(tr '\n' '/' <"$T/grammar-srt.txt")'"
# --json-schema: the replies are JSON that the schema describes, the same as srt-chat's
printf '%s' '{"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}, "why": {"type": "string"}}, "required": ["answer"]}' >"$T/answer.json"
app "$T/schema.log" tests/ui/grammar.script --model "$T/stories.srt" --template chatml --json-schema "$T/answer.json" -n 30
printf 'Is the sky blue?\nWas the dog happy?\n' | "$B/srt-chat" -m "$T/stories.srt" --template chatml --json-schema "$T/answer.json" -n 30 --temp 0 -t 1 >"$T/schema-srt.txt" 2>/dev/null
check "--json-schema: both replies are srt-chat's, each opening with the required member" \
    $(r1=$(reply "$T/schema.log" 1); r2=$(reply "$T/schema.log" 2); [ -n "$r1" ] && [ -n "$r2" ] && \
      printf '%s\n' "$r1" "$r2" | grep -Eqv '^\{ ?"answer" ?: ?"(yes|no)"'; [ $? -eq 1 ] && \
      [ "$(printf '%s\n%s' "$r1" "$r2")" = "$(cat "$T/schema-srt.txt")" ]; echo $?) \
    "window '$(reply "$T/schema.log" 1 | cut -c1-40)' / '$(reply "$T/schema.log" 2 | cut -c1-40)' srt-chat '$(tr '\n' '/' <"$T/schema-srt.txt" | cut -c1-80)'"
printf '%s\n' 'root ::= ("Yes" | "No"' >"$T/bad.gbnf"
"$APP" --model "$T/stories.srt" --grammar "$T/bad.gbnf" >"$T/badgrammar.txt" 2>&1; rc=$?
check "--grammar: a grammar that does not parse is refused with its line and column" \
    $([ $rc -eq 2 ] && grep -q 'bad.gbnf: malformed file: grammar, line 1 column 10: unclosed parenthesis' "$T/badgrammar.txt"; echo $?) "exit $rc: $(head -1 "$T/badgrammar.txt")"

# the model on the GPU: the plain build refuses --backend cuda; build/srt-chat-sdl-cuda-emu (the
# window with the CUDA backend running on the CPU emulator of tests/cuda_emu) gives the CPU's
# replies, with F16 and Q8 KV caches, and its status line names the device
"$APP" --backend cuda --model "$T/stories.srt" >"$T/nocuda.txt" 2>&1; rc=$?
check "the window without CUDA refuses --backend cuda and names the build that has it" \
    $([ $rc -eq 2 ] && grep -q 'built without CUDA: use build/srt-chat-sdl-cuda' "$T/nocuda.txt"; echo $?) "exit $rc: $(head -1 "$T/nocuda.txt")"
EMU=$B/srt-chat-sdl-cuda-emu
if [ -x "$EMU" ]; then
    for kv in f16 q8; do
        "$B/srt-chat" -m "$T/stories.srt" -p "$PROMPT" -n $N --temp 0 --kv $kv >"$T/expected-$kv.txt" 2>/dev/null
        want=$(perl -0777 -pe 's/\n\z//; s/^\Q'"$PROMPT"'\E//; s/\\/\\\\/g; s/\n/\\n/g' "$T/expected-$kv.txt")
        APP=$EMU app "$T/gpu-$kv.log" tests/ui/gpu.script --model "$T/stories.srt" -n $N --backend cuda --kv $kv
        check "cuda (emulator), $kv KV: the reply is srt-chat's on the CPU; the status line names the device" \
            $([ -n "$want" ] && grep -qxF "reply 1: $want" "$T/gpu-$kv.log" && grep -q '^status: Ready .*|  cuda: ' "$T/gpu-$kv.log"; echo $?) \
            "$(grep -e '^reply 1:' -e '^status:' "$T/gpu-$kv.log" | cut -c1-100 | tr '\n' ' ')"
    done
else
    echo "skipped: the window on the CUDA emulator ($EMU not built)"
fi
exit 0
