#!/bin/bash
# How a recording ends: kill -9 leaves a record readable up to its last whole chunk (and a
# cut or damaged chunk is reported, not misread); SIGTERM and SIGINT end it cleanly and put
# the kdamond back as it was; the target's exit ends it by itself.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_start --pid "$HC_PID" --action stat --access-rate 50%,100% --sample 5ms \
	--aggr 50ms
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
# The configuration equals "$before": state and pid take DAMON's sysfs lock, a trylock that a
# stats refresh (refresh_ms) holds now and then, so a read may fail once: read up to 5 times.
config_is_before() {
	local _
	for _ in 1 2 3 4 5; do
		[ "$(config)" = "$before" ] && return 0
		sleep 0.2
	done
	return 1
}

snapshots() { # FILE: snapshots a report reads from it (0 when none yet)
	"$DAMONC" --json report wss -i "$1" 2>/dev/null | py 'd["snapshots"]' 2>/dev/null || echo 0
}
has_snapshots() { [ "$(snapshots "$1")" -ge "$2" ]; }
wait_snapshots() { # FILE N: its record's messages are FILE.err when there are any
	fair_wait 30000 has_snapshots "$1" "$2" ||
		fail "$1 never reached $2 snapshots: $(cat "$1.err" 2>/dev/null)"
}

# kill -9 in the middle of a recording
before=$(config)
"$DAMONC" record -o "$WORK/k9" --interval 50ms --no-compress 2>/dev/null &
rec=$!
wait_snapshots "$WORK/k9" 4
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
n=$(snapshots "$WORK/k9")
[ "$n" -ge 4 ] || fail "after kill -9, $n snapshots are readable"
"$DAMONC" --json report access -i "$WORK/k9" >"$WORK/k9.json" 2>"$WORK/k9.err" ||
	fail "report after kill -9: $(cat "$WORK/k9.err")"
[ "$(py 'd["input"]["complete"]' <"$WORK/k9.json")" = False ] || fail "k9 looks complete"
"$DAMONC" report wss -i "$WORK/k9" 2>&1 >/dev/null | grep -q 'cut short' ||
	fail "no warning about the cut"
# kill -9 left the capture scheme behind, and a note of it: the next recording removes it
# (saying so) before it installs its own, and leaves the kdamond as it was before both
[ "$(config)" != "$before" ] || fail "kill -9 left no capture scheme: nothing was tested"
ls "$SYSROOT/run/damonc/capture-0.json" >/dev/null || fail "no note of the capture scheme"
"$DAMONC" record -o "$WORK/after-k9" --count 2 --interval 50ms 2>"$WORK/after-k9.err" ||
	fail "recording after a kill -9: $(cat "$WORK/after-k9.err")"
grep -q "removed the capture scheme that record (pid $rec) left installed" \
	"$WORK/after-k9.err" || fail "no word of the leftover: $(cat "$WORK/after-k9.err")"
config_is_before ||
	fail "after kill -9 and a clean record: $(diff <(echo "$before") <(config))"
[ ! -e "$SYSROOT/run/damonc/capture-0.json" ] || fail "the note outlived a clean record"
[ "$("$DAMONC" --json report wss -i "$WORK/after-k9" | py 'd["snapshots"]')" -ge 2 ] ||
	fail "the record after kill -9 has no snapshots"

# a record cut inside a chunk: the whole chunks are read, the rest is counted as lost
size=$(stat -c %s "$WORK/k9")
head -c $((size - 7)) "$WORK/k9" >"$WORK/cut"
"$DAMONC" --json report wss -i "$WORK/cut" >"$WORK/cut.json" 2>/dev/null
lost=$(py 'd["input"]["bytes_lost"]' <"$WORK/cut.json")
[ "$lost" -gt 0 ] || fail "a cut chunk lost $lost bytes"
[ "$(py 'd["snapshots"]' <"$WORK/cut.json")" -lt "$n" ] || true
# a damaged byte is caught by the checksum, not read as data
cp "$WORK/k9" "$WORK/bad"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek($size // 2); b=f.read(1); f.seek($size // 2); f.write(bytes([b[0] ^ 0x5a]))" "$WORK/bad"
"$DAMONC" --json report wss -i "$WORK/bad" >"$WORK/bad.json" 2>/dev/null
[ "$(py 'd["input"]["corrupt"]' <"$WORK/bad.json")" = True ] || fail "damage not detected"
[ "$(py 'd["snapshots"]' <"$WORK/bad.json")" -lt "$n" ] || fail "damaged chunk was read"

# SIGTERM and SIGINT: a clean end, and the kdamond as it was before any capture scheme
emu_reset_kdamond() {
	"$DAMONC" stop >/dev/null
	rec_start --pid "$HC_PID" --action stat --access-rate 50%,100% --sample 5ms \
		--aggr 50ms
}
emu_reset_kdamond
before=$(config)
for sig in TERM INT; do
	"$DAMONC" record -o "$WORK/$sig" --interval 50ms 2>"$WORK/$sig.err" &
	rec=$!
	wait_snapshots "$WORK/$sig" 2
	kill -"$sig" "$rec" || fail "record ended before SIG$sig: $(cat "$WORK/$sig.err")"
	wait "$rec" || fail "record exited $? on SIG$sig: $(cat "$WORK/$sig.err")"
	"$DAMONC" --json report wss -i "$WORK/$sig" >"$WORK/$sig.json"
	[ "$(py 'd["input"]["end_reason"]' <"$WORK/$sig.json")" = signal ] ||
		fail "SIG$sig: $(cat "$WORK/$sig.json")"
	config_is_before ||
		fail "SIG$sig: the kdamond's config changed: $(diff <(echo "$before") <(config))"
done

# the target exits: the recording ends by itself
"$DAMONC" record -o "$WORK/exit" --interval 50ms 2>"$WORK/exit.err" &
rec=$!
wait_snapshots "$WORK/exit" 2
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null || true
HC_PID=
rec_gone() { ! kill -0 "$rec" 2>/dev/null; }
fair_wait 10000 rec_gone || fail "record still runs after its target exited"
wait "$rec" || fail "record exited $? when the target exited: $(cat "$WORK/exit.err")"
reason=$("$DAMONC" --json report wss -i "$WORK/exit" | py 'd["input"]["end_reason"]')
case $reason in target_exited|kdamond_stopped) ;; *) fail "end reason $reason" ;; esac
echo ok
