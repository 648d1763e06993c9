#!/bin/bash
# A kdamond damonc did not start is not written to without --allow-foreign; with it, the
# capture scheme is installed and the kdamond's configuration is committed back at the end.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_start --pid "$HC_PID" --action pageout --access-rate 0%,0% --min-age 1s \
	--sample 5ms --aggr 50ms
# forget that damonc started it: now it is someone else's
rm -f "$SYSROOT/run/damonc/kdamonds.json"
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
before=$(config)
writes=$(wc -l <"$EMU_LOG")

set +e
"$DAMONC" record -o "$WORK/r" --kdamond 0 --count 2 2>"$WORK/err"
code=$?
"$DAMONC" report access --kdamond 0 2>>"$WORK/err" >/dev/null
code2=$?
set -e
if [ "$code" != 2 ] || [ "$code2" != 2 ]; then
	fail "exit codes $code and $code2, expected 2"
fi
grep -q -- '--allow-foreign' "$WORK/err" || fail "the refusal does not name the option"
[ "$(wc -l <"$EMU_LOG")" = "$writes" ] || fail "something was written: $(tail -n +$((writes + 1)) "$EMU_LOG")"
[ ! -s "$WORK/r" ] || fail "a record was written"

"$DAMONC" record -o "$WORK/r" --kdamond 0 --count 3 --interval 100ms --allow-foreign \
	2>"$WORK/err" || fail "record --allow-foreign: $(cat "$WORK/err")"
[ "$("$DAMONC" --json report wss -i "$WORK/r" | py 'd["snapshots"]')" = 3 ] ||
	fail "expected 3 snapshots"
[ "$(config)" = "$before" ] || fail "the config changed: $(diff <(echo "$before") <(config))"
grep -q 'nr_schemes.*2' "$EMU_LOG" || fail "no capture scheme was installed"
echo ok
