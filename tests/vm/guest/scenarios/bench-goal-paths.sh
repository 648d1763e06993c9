#!/bin/sh
# bench-goal-paths (a benchmark, run by tests/bench/hugepage-vm.sh, not by `make check`): how
# a huge-page goal is tracked on this kernel's path, for a goal over the target process and
# for a system-wide one, each held for HOLD s (2 minutes by default) once met:
#   DATA goal scope=pid|system kernel= goal_bp= time_to_band_ms= settled_bp= min_bp= max_bp=
#        huge_growth_kb= agent_cpu_ms_per_min= cold_kb=
# On a process with a 128 MiB hot and a 64 MiB cold buffer (written once before the start).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

HOLD=${HOLD:-120}

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions: no collapse budget"

ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_ms() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) * 10 }' "/proc/$1/stat"; }
proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' "/proc/$1/smaps_rollup"
}
sys_bp() {
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
		/^(AnonHugePages|ShmemHugePages|FileHugePages):/ { h += $2 }
		END { printf "%d\n", h * 10000 / (t - f) }' /proc/meminfo
}
huge_kb() { awk '/^AnonHugePages:/ { print $2 }' "/proc/$1/smaps_rollup"; }

track() { # scope (pid|system), goal
	_scope=$1 _goal=$2
	start_hotcold --hot 128M --cold 64M || return
	_t0=$(ms)
	damonc start --pid "$HC_PID" --action collapse --sample 50ms --aggr 1s --min-age 2s \
		--goal-bp "$_goal" --goal-scope "$_scope" >/tmp/out 2>&1 ||
		{ fail "start ($_scope): $(cat /tmp/out)"; return; }
	_agent=$(cat /run/damonc/agent.pid 2>/dev/null)
	_lo=$((_goal * 9 / 10)) _hi=$((_goal * 11 / 10)) _t=0
	if [ "$_scope" = pid ]; then _bp=$(proc_bp "$HC_PID"); else _bp=$(sys_bp); fi
	while [ "$_bp" -lt "$_lo" ] && [ $_t -lt 300 ]; do
		sleep 1
		_t=$((_t + 1))
		if [ "$_scope" = pid ]; then _bp=$(proc_bp "$HC_PID"); else _bp=$(sys_bp); fi
	done
	_tg=$(($(ms) - _t0))
	sleep 3
	_h0=$(huge_kb "$HC_PID") _c0=$(cpu_ms "$_agent") _min=$_bp _max=$_bp _t=0
	while [ $_t -lt "$HOLD" ]; do
		sleep 5
		_t=$((_t + 5))
		if [ "$_scope" = pid ]; then _bp=$(proc_bp "$HC_PID"); else _bp=$(sys_bp); fi
		[ "$_bp" -lt "$_min" ] && _min=$_bp
		[ "$_bp" -gt "$_max" ] && _max=$_bp
	done
	_h1=$(huge_kb "$HC_PID") _c1=$(cpu_ms "$_agent")
	_cold=$(vma_thp_kb "$HC_PID" "$COLD")
	data "goal scope=$_scope kernel=$(uname -r) goal_bp=$_goal time_to_band_ms=$_tg" \
		"settled_bp=$_bp min_bp=$_min max_bp=$_max huge_growth_kb=$((_h1 - _h0))" \
		"agent_cpu_ms_per_min=$(((_c1 - _c0) * 60 / HOLD)) cold_kb=$_cold"
	check "$_scope goal $_goal held within 10% for $HOLD s ($_min..$_max bp)" \
		sh -c "[ $_min -ge $_lo ] && [ $_max -le $_hi ]"
	damonc stop >/dev/null 2>&1
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null
}

track pid 3000
# system-wide: the guest's ratio now, plus what a third of the hot buffer would add
base=$(sys_bp)
used_kb=$(awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } END { print t - f }' /proc/meminfo)
track system $((base + 43690 * 10000 / (used_kb + 196608)))
finish
