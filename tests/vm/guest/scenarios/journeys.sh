#!/bin/sh
# journeys: tests/journeys on a real kernel, the parts that touch it, in the order a person
# types the commands (issue 29: commands that agree with each other):
#   1. a fresh tree: the dry run of a collapse start with a huge-page goal exits as the
#      start then does, and what it said it would write is what the tree holds after the
#      start (the values the agent does not move: not quotas, filters, current values);
#   2. the kdamond the agent serves, read with monitor and record --kdamond (each exits 0;
#      the kdamond runs on; the agent logs no refusal), a target added with tune (a kernel
#      thread refused as start refuses it), stopped: status says damonc stopped it and the
#      metrics give started_by_damonc 0 (the DamoncKdamondStopped alert is quiet);
#   3. a kdamond another tool started with raw writes (refresh_ms 0 where the kernel has it),
#      over damonc's stopped one (an nr_kdamonds rewrite): status says whose and how old its
#      figures are, --refresh makes them current, stop leaves it running, a start is refused
#      while it runs (its dry run too), and once it is off damonc adds a kdamond of its own
#      rather than overwriting it.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_collapse() { # --dry-run or nothing
	damonc start --pid "$HC_PID" --action collapse --goal-bp 3000 --goal-scope pid \
		--sample 50ms --aggr 1s --min-size 2MiB --access-rate 5%,100% --min-age 2s "$@"
}
# shellcheck disable=SC2317
dc_monitor() { damonc monitor --kdamond 0 --report wss --count 1 --delay 8s --no-clear; }
# shellcheck disable=SC2317
dc_record() { damonc record --kdamond 0 --count 2 -o /tmp/r.rec; }
# shellcheck disable=SC2317
dc_report() { damonc report wss -i /tmp/r.rec; }
# shellcheck disable=SC2317
dc_tune_add() { damonc tune --add-target "$1"; }
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# shellcheck disable=SC2317
dc_status() { damonc status "$@"; }
# shellcheck disable=SC2317
dc_metrics() { damonc metrics; }
# shellcheck disable=SC2317
dc_start_stat() { damonc start --pid "$HC_PID" --action stat "$@"; }
dc_agent_log() { cat /run/damonc/agent.log 2>/dev/null; }
# -------------------------------------------------------------------------------------------

require_damonc_command start
require_damonc_command monitor
damon_stat_set N
start_hotcold --hot 16M --cold 16M || finish
v=$(kver)

# --- 1. the dry run is the start's plan ------------------------------------------------------
check "a fresh tree: no kdamond" test "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 0
dc_collapse --dry-run >/tmp/dry 2>/tmp/dry.err
rc_dry=$?
note "\$ damonc start --dry-run (collapse, goal) -> exit $rc_dry"
sed 's/^/#   dry: /' /tmp/dry /tmp/dry.err >>"$VM_OUT"
check "the dry run wrote nothing that stays: still no kdamond" \
	test "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 0
dc_collapse >/tmp/out 2>/tmp/err
rc=$?
note "\$ damonc start (collapse, goal) -> exit $rc; $(cat /tmp/out /tmp/err)"
check "the dry run's exit status is the start's ($rc_dry, $rc)" test "$rc_dry" = "$rc"
if [ "$v" -lt 6002 ]; then
	check "6.1: no tried regions, so no collapse: refused (exit 3)" test "$rc" = 3
	dc_start_stat --min-age 1s >/tmp/out 2>&1 || fail "damonc start --action stat: $(cat /tmp/out)"
	served=false
else
	check "the start started (exit $rc)" test "$rc" = 0
	# what the dry run listed, the values nobody moves since (the agent feeds goals, grants
	# ranges with filters and quotas), reads back from the kernel's files
	sed -n 's/^  \(kdamonds[^ ]*\) <= \(.*\)$/\1 \2/p' /tmp/dry |
		grep -vE '^[^ ]*(/(state|current_value|bytes) |filters/|/nr_)' >/tmp/planned
	_bad=0
	while read -r _p _val; do
		_got=$(cat "$ADMIN/$_p" 2>/dev/null)
		[ "$_got" = "$_val" ] || { note "planned $_p <= $_val, the kernel has '$_got'"; _bad=1; }
	done </tmp/planned
	check "the start wrote what its dry run listed ($(wc -l </tmp/planned) values)" test "$_bad" = 0
	served=true
fi
kd=$ADMIN/kdamonds/0
check "kdamond 0 runs" test "$(rd_locked "$kd/state")" = on

# --- 2. read, tuned, stopped --------------------------------------------------------------
if [ "$v" -ge 6002 ]; then
	# (under TCG a snapshot of the served kdamond can take 2-5 s: a round of 8 s, and either
	# round may still have none)
	: >/tmp/monitored
	for _r in 1 2; do
		expect_rc 0 "damonc monitor --kdamond 0, round $_r" dc_monitor
		cat /tmp/out >>/tmp/monitored
		expect_rc 0 "damonc record --kdamond 0, round $_r" dc_record
		expect_rc 0 "damonc report wss of the record" dc_report
	done
	check "monitor showed the working set" grep -q "working set" /tmp/monitored
	check "kdamond 0 runs on after being read" test "$(rd_locked "$kd/state")" = on
fi
if $served; then
	check "the agent refused nothing while it was read" \
		sh -c '! grep -qE "refusal|giving up" /run/damonc/agent.log'
	expect_rc 2 "damonc tune --add-target 2 (a kernel thread)" dc_tune_add 2
	check "the refusal says kernel thread" grep -q "kernel thread" /tmp/err
	s2=$(spawn_sleeper)
	expect_rc 0 "damonc tune --add-target $s2" dc_tune_add "$s2"
	check "two targets now" test "$(cat "$kd/contexts/0/targets/nr_targets")" = 2
	check "kdamond 0 runs on after tune" test "$(rd_locked "$kd/state")" = on
fi
expect_rc 0 "damonc stop" dc_stop
check "kdamond 0 is off" test "$(rd_locked "$kd/state")" = off
expect_rc 0 "damonc status" dc_status
check "status says damonc stopped it" grep -q "stopped with 'damonc stop'" /tmp/out
expect_rc 0 "damonc metrics" dc_metrics
check "metrics: started_by_damonc 0 after stop (the alert is quiet)" \
	grep -qx 'damonc_kdamond_started_by_damonc{kdamond="0"} 0' /tmp/out
dc_agent_log | sed 's/^/# agent: /' >>"$VM_OUT"

# --- 3. another tool's kdamond ---------------------------------------------------------------
{
	echo 1 >"$ADMIN/kdamonds/nr_kdamonds" &&
		echo 1 >"$kd/contexts/nr_contexts" &&
		echo vaddr >"$kd/contexts/0/operations" &&
		echo 1 >"$kd/contexts/0/targets/nr_targets" &&
		echo "$HC_PID" >"$kd/contexts/0/targets/0/pid_target" &&
		echo 1 >"$kd/contexts/0/schemes/nr_schemes" &&
		echo stat >"$kd/contexts/0/schemes/0/action" &&
		{ [ ! -e "$kd/refresh_ms" ] || echo 0 >"$kd/refresh_ms"; } &&
		echo on >"$kd/state"
} 2>>"$VM_OUT"
check "another tool's kdamond runs" test "$(rd_locked "$kd/state")" = on
other=$(rd_locked "$kd/pid")
expect_rc 0 "damonc status" dc_status
check "status: not started by damonc" grep -q "kdamond 0: on.*(not started by damonc)" /tmp/out
check "status: its figures are as of their last update" grep -q "as of their last update" /tmp/out
expect_rc 0 "damonc status --refresh" dc_status --refresh
check "status --refresh: current" sh -c '! grep -q "as of their last update" /tmp/out'
dc_stop >/tmp/out 2>/tmp/err
check "damonc stop leaves it running (pid $other)" \
	test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$other"
expect_rc 4 "damonc start --dry-run while it runs" dc_start_stat --dry-run
expect_rc 4 "damonc start while it runs" dc_start_stat
echo off >"$kd/state"
expect_rc 0 "damonc start with another tool's stopped kdamond 0" dc_start_stat
check "damonc added kdamond 1, not taking kdamond 0" grep -q "started kdamond 1 " /tmp/out
check "kdamond 0 still has the other tool's scheme (stat on pid $HC_PID)" \
	test "$(cat "$kd/contexts/0/schemes/0/action")" = stat -a \
	"$(cat "$kd/contexts/0/targets/0/pid_target")" = "$HC_PID"
expect_rc 0 "damonc stop" dc_stop
finish
