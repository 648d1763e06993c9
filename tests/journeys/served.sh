#!/bin/bash
# A journey: a kdamond the damonc agent serves, started, then read as a person reads it
# (monitor and record --kdamond 0, a few times each), stopped, its status and its metrics:
#   - reading commands never disturb it: each exits 0, the kdamond runs on, and the agent
#     says at most that the tree changed under its read, never a refusal that stops it;
#   - after `damonc stop`, status says damonc stopped it and the metrics give
#     started_by_damonc 0, so the DamoncKdamondStopped alert (running 0 and started 1) is
#     quiet;
#   - a textfile for node_exporter asked once the agent runs (`agent --metrics-textfile`) is
#     kept fresh beside it, and its agent serves once the other exits.
# On 6.1 (no tried regions: no agent, nothing to capture) a collapse start is refused with
# exit 3 naming the feature, and so are monitor and record of the stat kdamond started instead.
#   served.sh PROFILE
set -euo pipefail
# shellcheck source=../emu/common.sh
source "$(dirname "$0")/../emu/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
start_hotcold --hot 32M --cold 32M

if [ "$PROFILE" = 6.1 ]; then
	expect_rc 3 "$D" start --action collapse --pid "$HC_PID" --goal-bp 3000
	grep -q "tried_regions" <<<"$ERR" || fail "6.1 collapse: $ERR"
	expect_rc 0 "$D" start --action stat --pid "$HC_PID" --min-age 1s
	served=false
else
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 3000 --goal-scope pid
	grep -q "served in user space by the damonc agent" <<<"$OUT" || fail "start: $OUT"
	wait_logged 10 "serving kdamond 0"
	served=true
fi

# a textfile for node_exporter, asked once the agent runs: kept fresh beside the agent that
# serves (one agent a sysroot), which it replaces once that one exits (--persist: it stays)
PROM=$SYSROOT/damonc.prom
# (rewritten every 5 s here, the default being 15 s: the waits below allow two of them)
"${DAMONC_REAL:-$D}" agent --metrics-textfile "$PROM" --metrics-interval 5s --persist \
	>"$SYSROOT/agent2.log" 2>&1 &
AGENT2=$!
HC_ALL+=("$AGENT2")
has_metric() { grep -q '^damonc_kdamond_running{kdamond="0"} 1$' "$PROM" 2>/dev/null; }
wait_until 20 has_metric
if $served; then
	grep -q "keeping $PROM fresh beside it" "$SYSROOT/agent2.log" ||
		fail "the second agent: $(cat "$SYSROOT/agent2.log")"
fi

# read it, as often as a person looks: every reading command exits 0 (6.1 has no tried
# regions to read, and the emulator no trace events: monitor and record both say so, exit 3)
if [ "$PROFILE" = 6.1 ]; then
	expect_rc 3 "$D" monitor --kdamond 0 --report wss --count 1 --delay 1s --no-clear
	grep -q "no tried_regions" <<<"$ERR" || fail "monitor on 6.1: $ERR"
	expect_rc 3 "$D" record --kdamond 0 --count 2 -o "$SYSROOT/r.rec"
	grep -q "no tried_regions" <<<"$ERR" || fail "record on 6.1: $ERR"
fi
for round in 1 2 3; do
	[ "$PROFILE" != 6.1 ] || break
	expect_rc 0 "$D" monitor --kdamond 0 --report wss --count 1 --delay 1s --no-clear
	grep -q "working set" <<<"$OUT" || fail "monitor, round $round: $OUT"
	expect_rc 0 "$D" record --kdamond 0 --count 2 -o "$SYSROOT/r$round.rec"
	expect_rc 0 "$D" report wss -i "$SYSROOT/r$round.rec"
done
[ "$(kdamond_state 0)" = on ] || fail "the kdamond stopped while it was read"
if $served; then
	! agent_logged "refusal|giving up" || fail "a reading command made the agent refuse"
	expect_rc 0 "$D" --json status
	[ "$(json_get '"agent" in j["kdamonds"][0]')" = True ] || fail "not served any more"
fi
expect_rc 0 "$D" status
grep -q "kdamond 0: on.*(started by damonc)" <<<"$OUT" || fail "status: $OUT"

# stop it: damonc says it stopped it, and the alert's expression is false
expect_rc 0 "$D" stop
grep -q "kdamond 0: stopped" <<<"$OUT" || fail "stop: $OUT"
expect_rc 0 "$D" status
grep -q "stopped with 'damonc stop'" <<<"$OUT" || fail "status after stop: $OUT"
expect_rc 0 "$D" metrics
metric() { sed -n "s/^$1{kdamond=\"0\"} //p" <<<"$OUT"; }
[ "$(metric damonc_kdamond_running)" = 0 ] ||
	fail "metrics: running $(metric damonc_kdamond_running)"
[ "$(metric damonc_kdamond_started_by_damonc)" = 0 ] ||
	fail "metrics: started_by_damonc $(metric damonc_kdamond_started_by_damonc) after" \
		"stop: the alert fires"
if $served; then
	wait_logged 10 "no longer served \(stopped with 'damonc stop'\)"
	# the background agent exits; the one with the textfile takes its place and stays
	took_over() { grep -q "started (sysroot" "$SYSROOT/agent2.log"; }
	wait_until 20 took_over
fi
stopped_metric() { grep -q '^damonc_kdamond_started_by_damonc{kdamond="0"} 0$' "$PROM"; }
wait_until 20 stopped_metric
kill -TERM "$AGENT2"
wait "$AGENT2" || fail "the textfile agent exited $? on SIGTERM"
echo "ok: a served kdamond read, stopped and quiet on $PROFILE"
