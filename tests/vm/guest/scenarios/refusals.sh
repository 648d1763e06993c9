#!/bin/sh
# refusals: bad input and kernel refusals. Each must give a clear error (on stderr, naming what
# was wrong), the documented exit code (2 bad input, 3 feature missing, 4 DAMON busy), and
# leave the DAMON tree exactly as it was (a dump before and after).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start() { damonc start --pid "$1" --ops vaddr --action stat; }
# shellcheck disable=SC2317
dc_start_action() { damonc start --pid "$1" --ops vaddr --action "$2"; }
# shellcheck disable=SC2317
dc_start_rate() { damonc start --pid "$1" --ops vaddr --action stat --access-rate "$2"; }
# shellcheck disable=SC2317
dc_start_size() { damonc start --pid "$1" --ops vaddr --action stat --min-size "$2"; }
# shellcheck disable=SC2317
dc_start_goal() { damonc start --pid "$1" --ops vaddr --action pageout --goal-bp "$2"; }
# shellcheck disable=SC2317
dc_start_regions() { damonc start --pid "$1" --ops vaddr --action stat --regions "$2,$3"; }
dc_start_has_regions() { damonc start --help 2>&1 | grep -q -- --regions; }
# -------------------------------------------------------------------------------------------

require_damonc_command start
start_hotcold --hot 8M --cold 8M || finish
v=$(kver)

# refuse WANT_RC DESCRIPTION STDERR_PATTERN COMMAND...: the exit code, an error on stderr that
# matches the pattern (case-insensitive, extended regex), and an unchanged tree.
refuse() {
	_rc=$1 _d=$2 _pat=$3
	shift 3
	snapshot_tree before
	expect_rc "$_rc" "$_d" "$@"
	check "$_d: the error names the problem (/$_pat/)" grep -qiE "$_pat" /tmp/err
	check_tree_unchanged before "$_d"
}

# A pid that surely is dead: a child that has exited and been reaped.
sleep 0 &
dead=$!
wait "$dead"

refuse 2 "start on a dead pid ($dead)" "$dead|pid" dc_start "$dead"
refuse 2 "start with an unknown action" "bogus|action" dc_start_action "$HC_PID" bogus
refuse 2 "start with an access rate whose minimum exceeds its maximum" "access-rate|80" \
	dc_start_rate "$HC_PID" 80%,20%
refuse 2 "start with a size that is not a size" "min-size|lots" dc_start_size "$HC_PID" lots
if dc_start_has_regions; then
	refuse 2 "start with overlapping regions" "overlap|region" \
		dc_start_regions "$HC_PID" 0x100000-0x300000 0x200000-0x400000
else
	note "not tested: overlapping regions ('damonc start --help' lists no --regions option yet)"
fi

# Quota goals appeared in 6.8: older kernels lack what --goal-bp needs.
if [ "$v" -lt 6008 ]; then
	refuse 3 "start with --goal-bp on $(uname -r) (no quota goals)" "goal" dc_start_goal "$HC_PID" 5000
fi

# DAMON_STAT (7.x) holds DAMON exclusively while enabled: damonc must say DAMON is busy.
if [ -e "$STAT_ENABLED" ]; then
	damon_stat_set Y
	check "DAMON_STAT is enabled" test "$(cat "$STAT_ENABLED")" = Y
	refuse 4 "start while DAMON_STAT holds DAMON" "damon_stat|busy" dc_start "$HC_PID"
	damon_stat_set N
else
	note "not tested here: DAMON_STAT (this kernel has no damon_stat module)"
fi

# A kdamond that another tool started by raw sysfs writes: DAMON is busy for damonc (a write
# to nr_kdamonds would fail with EBUSY while it runs).
{
	echo 1 >"$ADMIN/kdamonds/nr_kdamonds" &&
		echo 1 >"$ADMIN/kdamonds/0/contexts/nr_contexts" &&
		echo vaddr >"$ADMIN/kdamonds/0/contexts/0/operations" &&
		echo 1 >"$ADMIN/kdamonds/0/contexts/0/targets/nr_targets" &&
		echo "$HC_PID" >"$ADMIN/kdamonds/0/contexts/0/targets/0/pid_target" &&
		echo on >"$ADMIN/kdamonds/0/state"
} 2>>"$VM_OUT"
check "a kdamond started by raw sysfs writes runs" test "$(cat "$ADMIN/kdamonds/0/state")" = on
refuse 4 "start while another tool's kdamond runs" "busy|running|kdamond" dc_start "$HC_PID"
echo off >"$ADMIN/kdamonds/0/state"
finish
