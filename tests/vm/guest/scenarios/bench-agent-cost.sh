#!/bin/sh
# bench-agent-cost: what the damonc agent costs while it holds a huge-page goal, by the size
# of the target's memory, on a real kernel (the benchmark tests/bench/hugepage-vm boots it
# with --mem big enough for its SIZES). For each size: hotcold --hot S/2 --cold S/2 (a pass
# over the hot buffer every 100 ms), `damonc start --action collapse --goal-bp 2000
# --goal-scope pid`, and once the agent says the goal is met, its CPU time over HOLD s:
#   DATA agent-cost kernel=... rss_kb=... time_to_goal_ms=... agent_cpu_ms_per_min_held=...
#        settled_bp=...
# Env (tests/vm/run --env): SIZES (default "512M 2G"), HOLD (seconds, default 60).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions: no collapse budget"
SIZES=${SIZES:-512M 2G}
HOLD=${HOLD:-60}

proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' "/proc/$1/smaps_rollup"
}
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_ms() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) * 10 }' "/proc/$1/stat"; }
half_of() { # SIZE (M or G): half of it, in MiB, as hotcold takes it
	case $1 in
	*G) echo "$((${1%G} * 512))M" ;;
	*M) echo "$((${1%M} / 2))M" ;;
	esac
}

for size in $SIZES; do
	h=$(half_of "$size")
	start_hotcold --hot "$h" --cold "$h" --pause-us 100000 || finish
	rss=$(awk '/^Rss:/ { print $2 }' "/proc/$HC_PID/smaps_rollup")
	t0=$(ms)
	expect_rc 0 "damonc start --action collapse --goal-bp 2000 ($size)" \
		damonc start --pid "$HC_PID" --action collapse --sample 50ms --aggr 1s --min-age 2s \
		--goal-bp 2000 --goal-scope pid
	_t=0
	while [ $_t -lt 1800 ] && ! grep -q "goal met" /run/damonc/agent.log 2>/dev/null; do
		sleep 2
		_t=$((_t + 2))
	done
	t_goal=$(($(ms) - t0))
	check "the goal is met ($size, $(proc_bp "$HC_PID") bp after $t_goal ms)" \
		grep -q "goal met" /run/damonc/agent.log
	sleep 10
	agent=$(cat /run/damonc/agent.pid)
	c0=$(cpu_ms "$agent") s0=$(ms)
	sleep "$HOLD"
	c1=$(cpu_ms "$agent") s1=$(ms)
	data "agent-cost kernel=$(uname -r) rss_kb=$rss time_to_goal_ms=$t_goal" \
		"agent_cpu_ms_per_min_held=$(((c1 - c0) * 60000 / (s1 - s0))) settled_bp=$(proc_bp "$HC_PID")"
	note "agent-cost $size: $(((c1 - c0) * 60000 / (s1 - s0))) ms per minute held"
	expect_rc 0 "damonc stop" damonc stop
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null
	rm -f /run/damonc/agent.log
done
finish
