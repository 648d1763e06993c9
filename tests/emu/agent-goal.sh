#!/bin/bash
# damonc start --action collapse --pid P --goal-bp 3000 --goal-scope pid on the hot/cold
# workload (64 MiB hot, 64 MiB cold): the process reaches 30% huge pages within a bounded
# time, then collapsing stops (AnonHugePages stops growing), and the cold buffer stays small.
#   6.12: no collapse action, no hugepage_mem_bp: the agent collapses (stat scheme, tried
#         regions, process_madvise) and stops at the goal itself.
#   7.2:  the kernel collapses; hugepage_mem_bp is fed as a user_input goal by the agent
#         and the kernel's temporal tuner stops the scheme.
# Prints the figures: time to the goal, overshoot, bytes collapsed, the agent's CPU time.
#   agent-goal.sh PROFILE [START_OPTIONS...], e.g. --quota-size 4MiB: a size quota smaller
#   than what the goal needs, which each quota interval must take further (not the same
#   first bytes again).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
shift
GOAL=3000
emu_with_scenario "$PROFILE"
start_hotcold --hot 64M --cold 64M

[ "$(proc_huge_kb "$HC_PID")" = 0 ] || fail "the workload is huge already"
t0=$(date +%s%N)
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp $GOAL --goal-scope pid "$@"
grep -q "served in user space by the damonc agent" <<<"$OUT" ||
	fail "start does not say that the agent serves part of it: $OUT"
reached() { [ "$(proc_bp "$HC_PID")" -ge $GOAL ]; }
wait_until 60 reached
t_goal=$((($(date +%s%N) - t0) / 1000000))
huge_at_goal=$(proc_huge_kb "$HC_PID")

# After the goal: give the agent (and the kernel's tuner) a few rounds; nothing more may
# become huge once it has settled.
sleep 3
huge_settled=$(proc_huge_kb "$HC_PID")
sleep 5
huge_later=$(proc_huge_kb "$HC_PID")
[ "$huge_later" = "$huge_settled" ] ||
	fail "collapsing went on after the goal: $huge_settled kB, then $huge_later kB"
bp=$(proc_bp "$HC_PID")
overshoot=$((bp - GOAL))
case $PROFILE in
6.12)
	# the agent measures between 2 MiB chunks: at most a few huge pages over (128 MiB RSS:
	# 2 MiB is 156 bp)
	[ $overshoot -le 500 ] || fail "overshoot $overshoot bp (ratio $bp bp)"
	wait_logged 5 "goal met \(.* >= 30\.00%"
	agent_logged "collapsed [0-9]+ regions .* of pid $HC_PID in [0-9]+ ms; ratio" ||
		fail "the agent's log does not say what it collapsed: $(agent_log)"
	;;
*)
	# the kernel collapses whole regions per quota interval: at most the hot buffer
	[ "$bp" -le 5200 ] || fail "ratio $bp bp: more than the hot buffer became huge"
	wait_logged 5 "feeding hugepage_mem_bp \(over its targets\)"
	;;
esac
# shellcheck disable=SC2153 # COLD is set by start_hotcold
cold=$(anon_huge_kb "$HC_PID" "$COLD")
[ "$cold" -le 2048 ] || fail "the cold buffer has $cold kB of huge pages"

# status and report hugepage tell the agent's part from the kernel's
expect_rc 0 "$D" status
grep -q "served in user space by the damonc agent (user space, pid $(agent_pid))" <<<"$OUT" ||
	fail "status does not say what the agent serves: $OUT"
expect_rc 0 "$D" --json status
[ "$(json_get 'j["kdamonds"][0]["agent"]["served_by"]')" = agent ] || fail "status --json: $OUT"
expect_rc 0 "$D" --json report hugepage --pid "$HC_PID"
[ "$(json_get 'j["schemes"][0]["served_by"]')" = agent ] || fail "report --json: $OUT"
[ "$(json_get 'j["schemes"][0]["goals"][0]["measured_by"]')" = agent ] || fail "report: $OUT"
if [ "$PROFILE" = 6.12 ]; then by=agent; else by=kernel; fi
[ "$(json_get 'j["schemes"][0]["applied_by"]')" = $by ] || fail "report: applied_by: $OUT"
if [ "$PROFILE" = 6.12 ]; then
	collapsed=$(json_get 'j["schemes"][0]["agent_stats"]["sz_collapsed"]')
	applied=$(json_get 'j["schemes"][0]["agent_stats"]["sz_applied"]')
	[ "$collapsed" -ge $((huge_later * 1024 - 2097152)) ] ||
		fail "the agent accounts $collapsed bytes collapsed, the process has $huge_later kB"
else
	expect_rc 0 "$D" --json status --refresh
	applied=$(json_get 'j["kdamonds"][0]["contexts"][0]["schemes"][0]["stats"]["sz_applied"]')
	collapsed=$((huge_later * 1024))
fi
expect_rc 0 "$D" report hugepage --pid "$HC_PID"
if [ $by = agent ]; then
	grep -q "collapse, served by the damonc agent" <<<"$OUT" || fail "report: $OUT"
	grep -q "stat stand-in" <<<"$OUT" || fail "report does not explain the kernel stats: $OUT"
else
	grep -q "collapse, applied by the kernel, its goal fed by the damonc agent" <<<"$OUT" ||
		fail "report does not say the kernel collapses: $OUT"
	! grep -q "stand-in" <<<"$OUT" || fail "report calls the kernel's collapse a stand-in: $OUT"
fi
pid=$(agent_pid)
cpu=$(agent_cpu_ms "$pid")
echo "figures ($PROFILE${1:+ $*}): goal $GOAL bp reached in ${t_goal} ms ($((huge_at_goal / 1024)) MiB" \
	"huge); settled at $bp bp (overshoot $overshoot bp, $((huge_later / 1024)) MiB huge);" \
	"collapsed $((collapsed / 1048576)) MiB (applied $((applied / 1048576)) MiB);" \
	"agent CPU ${cpu} ms"
agent_log | sed 's/^/# /'

if [ "$PROFILE" = 6.12 ]; then
	# a higher goal online (damonc tune): the agent collapses again, up to it
	expect_rc 0 "$D" tune --goal-bp 4000
	reached4000() { [ "$(proc_bp "$HC_PID")" -ge 4000 ]; }
	wait_until 60 reached4000
	wait_logged 10 "ratio .* < goal 40\.00% again: collapsing again"
	wait_logged 10 "goal met \(.* >= 40\.00%"
	bp=$(proc_bp "$HC_PID")
	[ "$bp" -le 4500 ] || fail "overshoot after tune: $bp bp"
	echo "after tune --goal-bp 4000: $bp bp"
fi

expect_rc 0 "$D" stop
wait_agent_gone 10
wait_logged 5 "no longer served \(stopped with 'damonc stop'\)"
assert_nothing_left off
echo "ok: $PROFILE"
