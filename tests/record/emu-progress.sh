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
if grep -q $'\r' "$WORK/file.err" || [ "$(wc -l <"$WORK/file.err")" != 1 ]; then
	fail "progress into a file: $(od -c "$WORK/file.err" | head)"
fi
echo "ok: progress on a terminal only"
