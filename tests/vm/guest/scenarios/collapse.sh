#!/bin/sh
# collapse: `damonc start --action collapse` on the hotcold workload (64 MiB hot, 64 MiB cold,
# each its own VMA, THP in madvise mode so nothing is huge unless collapsed).
#   7.2 and newer: the hot buffer's AnonHugePages grows, the cold one's stays 0.
#   older kernels: damonc refuses with exit 3 (the kernel lacks the action) and changes
#   nothing. (A user-space fallback is planned; when it lands, it is tested here instead.)
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# Regions of at least 2 MiB, accessed in at least one sample per aggregation (5% of the
# default 20 samples), for at least 1 s: what made real 7.2.13 collapse a hot buffer.
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start_collapse() {
	damonc start --pid "$1" --ops vaddr --action collapse --min-size 2MiB --access-rate 5%,100% --min-age 1s
}
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# -------------------------------------------------------------------------------------------

require_damonc_command start
require_damonc_command stop
start_hotcold --hot 64M --cold 64M || finish
hot0=$(vma_thp_kb "$HC_PID" "$HOT") cold0=$(vma_thp_kb "$HC_PID" "$COLD")
check "before: no huge pages in either buffer (hot ${hot0:-?} kB, cold ${cold0:-?} kB)" \
	test "$hot0" = 0 -a "$cold0" = 0

if [ "$(kver)" -lt 7002 ]; then
	snapshot_tree before
	expect_rc 3 "damonc start --action collapse on $(uname -r): the kernel lacks the action" \
		dc_start_collapse "$HC_PID"
	check "the error names the collapse action" grep -qi collapse /tmp/err
	check_tree_unchanged before "refused collapse"
	finish
fi

expect_rc 0 "damonc start --action collapse --pid $HC_PID" dc_start_collapse "$HC_PID"
k=$(tr -d ' \n' </tmp/out)
kd=$ADMIN/kdamonds/$k
check "kdamond $k runs with action collapse" \
	test "$(cat "$kd/state" 2>/dev/null)" = on -a "$(cat "$kd/contexts/0/schemes/0/action" 2>/dev/null)" = collapse

# Watch both buffers for up to 60 s; the cold one must stay at 0 all along.
hot=0 cold=0 cold_max=0 t=0
while [ $t -lt 60 ]; do
	sleep 2
	t=$((t + 2))
	hot=$(vma_thp_kb "$HC_PID" "$HOT") cold=$(vma_thp_kb "$HC_PID" "$COLD")
	[ "$cold" -le "$cold_max" ] || cold_max=$cold
	note "t=${t}s AnonHugePages hot=${hot} kB cold=${cold} kB"
	[ "$hot" -lt 32768 ] || break
done
check "the hot buffer became huge: $hot kB of 65536 after ${t}s (at least 32768)" test "$hot" -ge 32768
check "the cold buffer stayed small: at most $cold_max kB huge" test "$cold_max" = 0
echo update_schemes_stats >"$kd/state"
applied=$(cat "$kd/contexts/0/schemes/0/stats/sz_applied")
check "the kernel's stats show the collapse applied (sz_applied $applied)" test "$applied" -gt 0
expect_rc 0 "damonc stop" dc_stop
check "kdamond $k is off" test "$(cat "$kd/state")" = off
finish
