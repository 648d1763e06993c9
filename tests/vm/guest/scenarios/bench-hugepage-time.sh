#!/bin/sh
# bench-hugepage-time (a benchmark, run by tests/bench/hugepage-vm.sh, not by `make check`):
# the "huge pages over time" table of DAMON's hugepage work, on one workload (hotcold: a
# 128 MiB hot and a 64 MiB cold buffer, written once before the start; after PHASE s the
# buffers swap roles), three ways:
#   goal     THP madvise, `damonc start --action collapse --goal-bp 2000 --goal-scope pid`;
#   hugepage THP madvise, `damonc start --action hugepage` (MADV_HUGEPAGE on hot regions;
#            khugepaged does the collapsing, at its own pace);
#   always   THP always, no DAMON.
# Every STEP s: a DATA line "time mode=M t=S rss_kb= huge_kb= bp= first_kb= second_kb="
# (the huge kB of the first hot and the first cold buffer, whichever is hot now).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

PHASE=${PHASE:-60}
SPAN=${SPAN:-120}
STEP=${STEP:-4}
THP=/sys/kernel/mm/transparent_hugepage/enabled

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions"

rss_kb() { awk '/^Rss:/ { print $2 }' "/proc/$1/smaps_rollup"; }
huge_kb() {
	awk '/^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 } END { print h + 0 }' \
		"/proc/$1/smaps_rollup"
}

run_mode() { # mode, damonc start arguments (none: no DAMON)...
	_mode=$1
	shift
	start_hotcold --hot 128M --cold 64M || return
	[ $# -gt 0 ] && damonc start --pid "$HC_PID" --sample 50ms --aggr 1s "$@" >/tmp/out 2>&1
	note "$_mode: $(head -n 1 /tmp/out 2>/dev/null)"
	_t=0
	while [ $_t -le "$SPAN" ]; do
		[ $_t = "$PHASE" ] && kill -USR2 "$HC_PID"
		hc_huge
		_r=$(rss_kb "$HC_PID") _h=$(huge_kb "$HC_PID")
		data "time mode=$_mode kernel=$(uname -r) t=$_t rss_kb=$_r huge_kb=$_h bp=$((_h * 10000 / _r))" \
			"first_kb=$BUF_A second_kb=$BUF_B"
		sleep "$STEP"
		_t=$((_t + STEP))
	done
	[ $# -gt 0 ] && damonc stop >/dev/null 2>&1
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null
	pass "$_mode sampled for $SPAN s"
}

echo madvise >"$THP"
run_mode goal --action collapse --min-age 2s --goal-bp 2000 --goal-scope pid
run_mode hugepage --action hugepage --min-age 2s
echo always >"$THP"
run_mode always
echo madvise >"$THP"
note "khugepaged: $(cat /sys/kernel/mm/transparent_hugepage/khugepaged/pages_collapsed) pages collapsed, $(cat /sys/kernel/mm/transparent_hugepage/khugepaged/full_scans) full scans"
finish
