#!/bin/sh
# agent-goal: `damonc start --action collapse --pid P --goal-bp 3000 --goal-scope pid` on the
# hotcold workload (64 MiB hot, 64 MiB cold, THP in madvise mode): the process reaches 30%
# huge pages within a bounded time and collapsing stops after it; the cold buffer stays
# small. Reports the figures (DATA lines): time to the goal, overshoot, bytes collapsed, the
# agent's CPU time.
#   7.2 and newer: the kernel collapses; hugepage_mem_bp (queued for 7.4) is a user_input goal
#     fed by damonc's agent, and the kernel's temporal tuner stops the scheme.
#   6.2 to 7.1: the agent collapses in user space (stat scheme, tried_regions,
#     process_madvise) and stops at the goal itself.
#   older: no fallback (no tried_regions): skipped.
# Then `damonc metrics` (checked on the host by check-metrics), and the agent's survival: the
# target exits, the kdamond stops by itself, the agent ends, no pid or stats file is left.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# Sampling every 50 ms (aggregating every 1 s), as the collapse scenario does: DAMON's
# intervals run on wall-clock time, and a TCG guest's hot loop needs longer than 5 ms a pass.
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start_goal() { # pid, goal in bp
	damonc start --pid "$1" --action collapse --sample 50ms --aggr 1s --min-age 2s \
		--goal-bp "$2" --goal-scope pid
}
# shellcheck disable=SC2317
dc_status() { damonc status; }
# shellcheck disable=SC2317
dc_report() { damonc report hugepage --pid "$1"; }
# shellcheck disable=SC2317
dc_status_json() { damonc --json status; }
# shellcheck disable=SC2317
dc_metrics() { damonc metrics; }
dc_agent_pid() { cat /run/damonc/agent.pid 2>/dev/null; }
dc_agent_log() { cat /run/damonc/agent.log 2>/dev/null; }
# -------------------------------------------------------------------------------------------

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions: no collapse fallback"
GOAL=3000

# (AnonHugePages + ShmemPmdMapped + FilePmdMapped) / Rss in bp, as the agent measures it.
proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' "/proc/$1/smaps_rollup"
}
huge_kb() { awk '/^AnonHugePages:/ { print $2 }' "/proc/$1/smaps_rollup"; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_ms() { # pid: utime + stime in ms (USER_HZ 100)
	awk '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) * 10 }' "/proc/$1/stat"
}

start_hotcold --hot 64M --cold 64M || finish
t0=$(ms)
expect_rc 0 "damonc start --action collapse --goal-bp $GOAL --goal-scope pid" \
	dc_start_goal "$HC_PID" "$GOAL"
check "start says what the agent serves" grep -q "served in user space by the damonc agent" /tmp/out
agent=$(dc_agent_pid)
check "the agent runs (pid ${agent:-none})" test -n "$agent"

# TCG is slow and MADV_COLLAPSE copies memory: up to 300 s to the goal.
t=0 bp=0
while [ $t -lt 300 ]; do
	bp=$(proc_bp "$HC_PID")
	[ "$bp" -ge $GOAL ] && break
	sleep 1
	t=$((t + 1))
done
t_goal=$(($(ms) - t0))
check "the process reached the goal: $bp bp after ${t_goal} ms" test "$bp" -ge $GOAL
huge_goal=$(huge_kb "$HC_PID")
sleep 10
huge_settled=$(huge_kb "$HC_PID")
sleep 10
huge_later=$(huge_kb "$HC_PID")
bp=$(proc_bp "$HC_PID")
check "collapsing stopped after the goal ($huge_settled kB, then $huge_later kB)" \
	test "$huge_later" = "$huge_settled"
# shellcheck disable=SC2153 # COLD is set by start_hotcold
cold=$(vma_thp_kb "$HC_PID" "$COLD")
check "the cold buffer stayed small ($cold kB huge)" test "$cold" -le 2048
cpu=$(cpu_ms "$agent")
figures="kernel=$(uname -r) goal_bp=$GOAL time_to_goal_ms=$t_goal huge_at_goal_kb=$huge_goal"
figures="$figures settled_bp=$bp overshoot_bp=$((bp - GOAL)) huge_kb=$huge_later agent_cpu_ms=$cpu"
note "figures: $figures"
data "figures $figures"
expect_rc 0 "damonc status" dc_status
check "status says the damonc agent serves part of it" \
	grep -q "served in user space by the damonc agent (user space, pid $agent)" /tmp/out
expect_rc 0 "damonc report hugepage" dc_report "$HC_PID"
if [ "$(kver)" -ge 7002 ]; then
	check "report says the kernel collapses and the agent feeds the goal" \
		grep -q "collapse, applied by the kernel, its goal fed by the damonc agent" /tmp/out
else
	check "report says the agent collapses" grep -q "collapse, served by the damonc agent" /tmp/out
fi
# damonc metrics on this kernel, between two status --json: the host checks them
# (tests/vm/check-metrics: promtool check metrics, the values against status --json).
if damonc metrics --help >/dev/null 2>&1; then
	dc_status_json >/tmp/m0 && dc_metrics >/tmp/m1 && dc_status_json >/tmp/m2
	check "damonc metrics, between two damonc --json status" test $? = 0
	for f in m0 m1 m2; do sed "s/^/DATA $f /" "/tmp/$f" >>"$VM_OUT"; done
fi
dc_agent_log | sed 's/^/# agent: /' >>"$VM_OUT"

# The target exits: the kdamond stops by itself, the agent says so and exits.
kill "$HC_PID"
t=0
while [ -e "/proc/$agent" ] && [ $t -lt 30 ]; do
	sleep 1
	t=$((t + 1))
done
check "the agent exited after its target did (${t}s)" test ! -e "/proc/$agent"
dc_agent_log >/tmp/agent.log
check "the agent logged the target's exit" grep -q "target pid $HC_PID exited" /tmp/agent.log
check "the agent logged the kdamond's end" \
	grep -q "no longer served (it stopped by itself: its targets exited)" /tmp/agent.log
check "no pid or stats file is left" sh -c '! ls /run/damonc/agent.pid /run/damonc/agent-*.json 2>/dev/null'
check "no kdamond runs" sh -c '! grep -qx on '"$ADMIN"'/kdamonds/*/state'
finish
