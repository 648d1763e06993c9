#!/bin/bash
# damonc record on a terminal shows its progress on stderr (elapsed time, snapshots, bytes),
# one line redrawn per snapshot and cleared for the summary; into a file or a pipe it does
# not (the summary alone).
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || { echo "SKIP: no script(1) to give damonc a terminal"; exit 77; }

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_start --pid "$HC_PID" --action stat --sample 5ms --aggr 50ms

# script(1) runs it on a pseudo-terminal: stdout and stderr both go to the terminal
script -qec "'$DAMONC' record -o '$WORK/tty.rec' --count 3 --interval 100ms" /dev/null \
	>"$WORK/tty.out" || fail "record on a terminal failed: $(cat "$WORK/tty.out")"
out=$(tr -d '\n' <"$WORK/tty.out")
for n in 0 1 2 3; do
	s=snapshots
	[ $n = 1 ] && s=snapshot
	[[ $out =~ $'\r'"damonc: record: "[0-9]+\.[0-9]" s, $n $s, "[0-9.]+" "(B|KiB|MiB) ]] ||
		fail "no progress line for $n $s: $(od -c "$WORK/tty.out" | head -20)"
done
[[ $out == *$'\r\e[K'"damonc: record: 3 snapshots of kdamond 0"* ]] ||
	fail "the summary does not replace the progress line: $(od -c "$WORK/tty.out" | tail -20)"

"$DAMONC" record -o "$WORK/file.rec" --count 2 --interval 100ms 2>"$WORK/file.err" ||
	fail "record failed: $(cat "$WORK/file.err")"
# the summary alone (and a warning, should a busy machine have made it miss a snapshot)
if grep -q $'\r' "$WORK/file.err" || ! head -n1 "$WORK/file.err" | grep -q '^damonc: record: 2 snapshots' ||
	grep -v -e '^damonc: record: 2 snapshots' -e '^damonc: record: warning: missed' "$WORK/file.err"; then
	fail "progress into a file: $(od -c "$WORK/file.err" | head)"
fi

# an interval it cannot keep (1 ms: a snapshot of the emulator's files takes longer) is said,
# with the reason, on stderr and in the JSON summary
"$DAMONC" --json record -o "$WORK/fast.rec" --count 5 --interval 1ms >"$WORK/fast.json" \
	2>"$WORK/fast.err" || fail "record --interval 1ms failed: $(cat "$WORK/fast.err")"
grep -qE '^damonc: record: warning: missed [0-9]+ of [0-9]+ snapshots due every 1 ms: taking one takes [0-9.]+ ms, about the interval or more' \
	"$WORK/fast.err" || fail "no warning of the snapshots missed at 1 ms: $(cat "$WORK/fast.err")"
pace=$(py '(d["pace"]["interval_us"], d["pace"]["taken"], d["pace"]["missed"] > 0, d["pace"]["mean_work_us"] >= 1000)' <"$WORK/fast.json")
[ "$pace" = "(1000, 5, True, True)" ] || fail "the JSON summary's pace: $(cat "$WORK/fast.json")"
echo "ok: progress on a terminal only; a missed interval is said"
