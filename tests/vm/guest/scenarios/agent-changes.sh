#!/bin/sh
# agent-changes: a held huge-page goal (`damonc start --action collapse --goal-bp 2000
# --goal-scope pid` on 64 MiB hot and 64 MiB cold) against what the agent's count, kept
# between walks of the page tables while no THP counter moves, could miss (issue 28). Once the
# goal is met, the workload itself (hotcold's change signals):
#   split      splits every huge page of the hot buffer (a partial MADV_DONTNEED);
#   refault    frees the hot buffer and faults it back in, small;
#   collapse   collapses a quarter of its cold buffer itself (MADV_COLLAPSE);
#   khugepaged asks for huge pages on the cold buffer (MADV_HUGEPAGE), which khugepaged
#              collapses (scanning every 100 ms here: this guest's own settings);
# after each the ratio the agent holds (`damonc --json status`) agrees with smaps_rollup
# within one huge page, and the goal is met (again). The agent's CPU per minute while it
# holds is a DATA line.
#   7.2 and newer: the kernel collapses within the agent's budget; 6.2 to 7.1: the agent
#   collapses; older (no tried_regions): skipped.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions: no collapse budget"

GOAL=2000
KHP=/sys/kernel/mm/transparent_hugepage/khugepaged
proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' "/proc/$1/smaps_rollup"
}
page_bp() { awk '/^Rss:/ { printf "%d\n", 2048 * 10000 / $2 }' "/proc/$1/smaps_rollup"; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_ms() { awk '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) * 10 }' "/proc/$1/stat"; }
# the agent's ratio and whether it says its goal is met: "BP met|unmet"
agent_bp() {
	damonc --json status 2>/dev/null | tr -d ' \n' |
		sed -n 's/.*"measured_bp":\([0-9]*\).*"goal_met":\(true\|false\).*/\1 \2/p' |
		sed 's/ true$/ met/; s/ false$/ unmet/'
}
# Up to 300 s (TCG): the agent agrees with smaps within a huge page, and its goal is met.
settled() { # what happened
	_what=$1 _t=0
	while [ $_t -lt 300 ]; do
		# shellcheck disable=SC2046 # two words
		set -- $(agent_bp) x x
		_a=$1 _m=$2 _s=$(proc_bp "$HC_PID") _p=$(page_bp "$HC_PID")
		if [ "$_m" = met ] && [ "$_a" -ge 0 ] 2>/dev/null &&
			[ $((_a > _s ? _a - _s : _s - _a)) -le "$_p" ] && [ "$_s" -ge $((GOAL - _p)) ]; then
			break
		fi
		sleep 2
		_t=$((_t + 2))
	done
	check "$_what: the agent holds ${_a:-?} bp ($_m), smaps says $_s bp (a huge page is $_p bp)" \
		sh -c "[ '$_m' = met ] && [ $((_a > _s ? _a - _s : _s - _a)) -le $_p ]"
}
done_seen() { # change name: hotcold says it did it (up to 60 s)
	_t=0
	while [ $_t -lt 600 ] && ! grep -q "^done $1" /tmp/hotcold.out; do
		sleep 0.1
		_t=$((_t + 1))
	done
	check "hotcold did '$1'" grep -q "^done $1" /tmp/hotcold.out
}

start_hotcold --hot 64M --cold 64M || finish
expect_rc 0 "damonc start --action collapse --goal-bp $GOAL --goal-scope pid" \
	damonc start --pid "$HC_PID" --action collapse --sample 50ms --aggr 1s --min-age 2s \
	--goal-bp $GOAL --goal-scope pid
settled "the goal at first"
agent=$(cat /run/damonc/agent.pid)
c0=$(cpu_ms "$agent") t0=$(ms)
sleep 60
c1=$(cpu_ms "$agent") t1=$(ms)
held="hold kernel=$(uname -r) agent_cpu_ms_per_min_held=$(((c1 - c0) * 60000 / (t1 - t0)))"
held="$held bp=$(proc_bp "$HC_PID")"
note "figures: $held"
data "$held"

for change in split:34 refault:36; do
	name=${change%%:*}
	b=$(proc_bp "$HC_PID")
	kill -"${change#*:}" "$HC_PID"
	done_seen "$name"
	a=$(proc_bp "$HC_PID")
	check "'$name' took the ratio down ($b bp, then $a bp)" test "$a" -lt $((b - $(page_bp "$HC_PID")))
	settled "after $name"
done

b=$(proc_bp "$HC_PID")
kill -35 "$HC_PID"	# SIGRTMIN+1: MADV_COLLAPSE on a quarter of the cold buffer
done_seen collapse
settled "after the workload's own collapse ($b bp before)"

# khugepaged, made quick in this guest: the cold buffer grows huge behind the agent's back
echo 100 >"$KHP/scan_sleep_millisecs"
echo 4096 >"$KHP/pages_to_scan"
b=$(proc_bp "$HC_PID")
kill -37 "$HC_PID"	# SIGRTMIN+3: MADV_HUGEPAGE on the cold buffer
done_seen hint
_t=0
while [ $_t -lt 300 ] && [ "$(proc_bp "$HC_PID")" -le $((b + 2 * $(page_bp "$HC_PID"))) ]; do
	sleep 2
	_t=$((_t + 2))
done
note "khugepaged: $(cat "$KHP/pages_collapsed") pages collapsed"
check "khugepaged made huge pages ($b bp, then $(proc_bp "$HC_PID") bp)" \
	test "$(proc_bp "$HC_PID")" -gt $((b + 2 * $(page_bp "$HC_PID")))
settled "after khugepaged"
echo 10000 >"$KHP/scan_sleep_millisecs"

damonc --json status >/tmp/out 2>&1
damonc status >>/tmp/out 2>&1
sed 's/^/#   /' /tmp/out >>"$VM_OUT"
sed 's/^/# agent: /' /run/damonc/agent.log >>"$VM_OUT" 2>/dev/null || true
expect_rc 0 "damonc stop" damonc stop
kill "$HC_PID"
finish
