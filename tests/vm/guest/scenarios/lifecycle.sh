#!/bin/sh
# lifecycle: damonc start (vaddr, on the hotcold workload), status, tune (an online commit),
# stop, with the kernel's own sysfs files read directly after each step; then a kdamond that
# damonc did not start must survive `damonc stop`.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start() { damonc --json=pretty start --pid "$1" --ops vaddr --action stat; }
# The index of the kdamond `damonc --json=pretty start` started ({"started": [{"index": N, ...}]}).
dc_started_index() { sed -n 's/.*"index": *\([0-9][0-9]*\).*/\1/p' /tmp/out | head -n 1; }
# shellcheck disable=SC2317
dc_start_probes() { damonc --json=pretty start --pid "$1" --action stat --probe allow:anon --probe all; }
# shellcheck disable=SC2317
dc_status() { damonc status; }
# shellcheck disable=SC2317
dc_status_regions() { damonc status --regions; }
# shellcheck disable=SC2317
dc_status_json() { damonc --json=pretty status; }
# shellcheck disable=SC2317
dc_tune() { damonc tune --action "$1" --min-age "$2"; }
# shellcheck disable=SC2317
dc_tune_targets() { damonc tune "$@"; }
dc_tune_has_targets() { damonc tune --help 2>&1 | grep -q -- --add-target; }
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# shellcheck disable=SC2317
dc_batch() { damonc --batch /tmp/batch; }
# shellcheck disable=SC2317
dc_batch_atomic() { damonc --atomic --batch /tmp/batch; }
# -------------------------------------------------------------------------------------------

require_damonc_command start
require_damonc_command tune
require_damonc_command stop
start_hotcold --hot 16M --cold 16M || finish

# --- start -------------------------------------------------------------------------------
expect_rc 0 "damonc start --pid $HC_PID --action stat" dc_start "$HC_PID"
k=$(dc_started_index)
if [ -z "$k" ]; then
	fail "damonc --json=pretty start named no kdamond index"
	finish
fi
kd=$ADMIN/kdamonds/$k
ctx=$kd/contexts/0
check "kdamond $k: state is on" test "$(rd_locked "$kd/state")" = on
kpid=$(rd_locked "$kd/pid")
check "kdamond $k: pid $kpid is a live kernel thread" test "$kpid" -gt 0 -a -d "/proc/$kpid"
check "kdamond $k: operations vaddr" test "$(cat "$ctx/operations")" = vaddr
check "kdamond $k: one target, the workload ($HC_PID)" \
	test "$(cat "$ctx/targets/nr_targets")" = 1 -a "$(cat "$ctx/targets/0/pid_target")" = "$HC_PID"
check "kdamond $k: one scheme, action stat" \
	test "$(cat "$ctx/schemes/nr_schemes")" = 1 -a "$(cat "$ctx/schemes/0/action")" = stat

# --- status ------------------------------------------------------------------------------
sleep 3
expect_rc 0 "damonc status" dc_status
check "damonc status names the workload's pid $HC_PID" grep -q "$HC_PID" /tmp/out
check "damonc status shows the kdamond's CPU use" \
	grep -qE "^  cpu: .+ over .+ running \([0-9]+\.[0-9]{2}% of a CPU\)$" /tmp/out
# the kernel thread's own utime + stime (USER_HZ ticks), read around the status
ticks_before=$(awk '{ print $14 + $15 }' "/proc/$kpid/stat")
expect_rc 0 "damonc --json=pretty status" dc_status_json
ticks_after=$(awk '{ print $14 + $15 }' "/proc/$kpid/stat")
check "damonc --json=pretty status carries format_version" grep -q '"format_version"' /tmp/out
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_us=$(sed -n 's/.*"time_us": *\([0-9][0-9]*\).*/\1/p' /tmp/out | head -n 1)
note "kdamond $k CPU: ${cpu_us:-?} us; /proc/$kpid/stat: $ticks_before..$ticks_after ticks"
check "status --json: the kdamond's CPU time is its thread's (${cpu_us:-none} us)" \
	test -n "$cpu_us" -a "${cpu_us:-0}" -ge $((ticks_before * 1000000 / hz)) -a \
	"${cpu_us:-0}" -le $((ticks_after * 1000000 / hz))
# The kernel's own numbers, refreshed by the kernel on this command.
check "the kernel updates the scheme's stats" update_stats "$kd"
check "the kernel tries the scheme on the workload's regions" wait_tried_above "$kd" "$ctx/schemes/0" 0
note "stats: nr_tried=$(cat "$ctx/schemes/0/stats/nr_tried") sz_tried=$(cat "$ctx/schemes/0/stats/sz_tried")"

# --- tune (online commit) -------------------------------------------------------------------
aggr=$(cat "$ctx/monitoring_attrs/intervals/aggr_us")
expect_rc 0 "damonc tune --action willneed --min-age 2s" dc_tune willneed 2s
check "after tune: action is willneed" test "$(cat "$ctx/schemes/0/action")" = willneed
age=$(cat "$ctx/schemes/0/access_pattern/age/min")
check "after tune: age/min is 2 s in aggregation intervals (2000000/$aggr = $((2000000 / aggr))), got $age" \
	test "$age" = $((2000000 / aggr))
check "after tune: the same kdamond still runs (pid $kpid): an online commit, not a restart" \
	test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
sleep 2
check "the kernel updates the scheme's stats" update_stats "$kd"
check "the kdamond keeps working after the commit (nr_tried $(cat "$ctx/schemes/0/stats/nr_tried"))" \
	test "$(cat "$ctx/schemes/0/stats/nr_tried")" -gt 0

# --- tune: processes join and leave online ------------------------------------------------
# pids CTX: the targets' pids as the files list them
pids() {
	_n=$(cat "$1/targets/nr_targets") _i=0 _out=""
	while [ "$_i" -lt "$_n" ]; do
		_out="$_out$(cat "$1/targets/$_i/pid_target") "
		_i=$((_i + 1))
	done
	echo "${_out% }"
}
# tried_at TARGET: a region the kernel tried the scheme on (every region of every target
# with age >= 2 s) starts where target TARGET's first region does in the files. The kernel
# keeps a target's first region starting there (the span start that damonc wrote); another
# target's region starting at the very same address is not to be expected. (Whether a
# region is in a process's mappings says nothing: the regions are spans over mappings and
# gaps, and two processes' spans overlap.) 6.2+: tried_regions.
# shellcheck disable=SC2317 # called through check
tried_at() {
	_want=$(cat "$ctx/targets/$1/regions/0/start")
	echo update_schemes_tried_regions 2>/dev/null >"$kd/state" || return 2
	grep -qx "$_want" "$ctx"/schemes/0/tried_regions/[0-9]*/start
}
# wait_tried_at TARGET: the regions are tried once they are 2 s old. Bounded by the
# kdamond's progress, not the clock: each update that succeeds waited for the kdamond to pass
# an apply interval, and 40 of them outlast 2 s of its time however slow a loaded TCG guest
# makes it (wait_by_progress in lib.sh)
# shellcheck disable=SC2317 # called through check
wait_tried_at() { wait_by_progress tried_at "$1"; }
if dc_tune_has_targets; then
	s2=$(spawn_sleeper)
	s3=$(spawn_sleeper)
	expect_rc 0 "damonc tune --add-target $s2 --add-target $s3" \
		dc_tune_targets --add-target "$s2" --add-target "$s3"
	check "after --add-target: the targets are $HC_PID $s2 $s3 ($(pids "$ctx"))" \
		test "$(pids "$ctx")" = "$HC_PID $s2 $s3"
	check "after --add-target: the same kdamond runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
	check "a target added has its regions at once ($(cat "$ctx/targets/1/regions/nr_regions"))" \
		test "$(cat "$ctx/targets/1/regions/nr_regions")" -ge 1
	if [ -e "$ctx/schemes/0/tried_regions" ]; then
		check "the kernel monitors the target added ($s2): a tried region starts at its first" \
			wait_tried_at 1
	fi
	expect_rc 0 "damonc tune --remove-target $s2 (the middle one)" \
		dc_tune_targets --remove-target "$s2"
	check "after --remove-target: the targets are $HC_PID $s3 ($(pids "$ctx"))" \
		test "$(pids "$ctx")" = "$HC_PID $s3"
	check "after --remove-target: the same kdamond runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
	if [ -e "$ctx/targets/0/obsolete_target" ]; then
		check "no target is left marked obsolete" \
			sh -c "! grep -qx Y $ctx/targets/*/obsolete_target"
	fi
	if [ -e "$ctx/schemes/0/tried_regions" ]; then
		check "the kernel monitors $s3, which took the removed one's place" wait_tried_at 1
	fi
	expect_rc 0 "damonc tune --min-size 8KiB (a later commit keeps both targets)" \
		dc_tune_targets --min-size 8KiB
	check "after a later commit: the targets are $HC_PID $s3 ($(pids "$ctx"))" \
		test "$(pids "$ctx")" = "$HC_PID $s3"
	# a target that exits: a commit naming it is refused by 7.3 and stops the kdamond on
	# 6.1 and 6.12, so tune refuses it first; --remove-target takes it out
	kill "$s2" "$s3" 2>/dev/null
	wait "$s3" 2>/dev/null
	expect_rc 1 "damonc tune --min-size 4KiB with target $s3 exited" \
		dc_tune_targets --min-size 4KiB
	check "tune says target $s3 has exited" grep -q "target process $s3 has exited" /tmp/err
	check "the kdamond still runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
	expect_rc 0 "damonc tune --remove-target $s3 (exited)" dc_tune_targets --remove-target "$s3"
	check "after removing the exited $s3: the target is $HC_PID ($(pids "$ctx"))" \
		test "$(pids "$ctx")" = "$HC_PID"
	check "the kdamond still runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
else
	note "not tested: tune --add-target/--remove-target ('damonc tune --help' lists none)"
fi
# schemes join and leave online; after a removal the later ones sit a place lower
if damonc tune --help 2>&1 | grep -q -- --add-scheme; then
	expect_rc 0 "damonc tune --add-scheme --action stat --min-size 8KiB" \
		dc_tune_targets --add-scheme --action stat --min-size 8KiB
	expect_rc 0 "damonc tune --add-scheme --action stat --min-size 16KiB" \
		dc_tune_targets --add-scheme --action stat --min-size 16KiB
	check "after two --add-scheme: three schemes" test "$(cat "$ctx/schemes/nr_schemes")" = 3
	expect_rc 0 "damonc tune --remove-scheme 1" dc_tune_targets --remove-scheme 1
	check "after --remove-scheme 1: two schemes, the last (sz/min 16384) in slot 1" \
		test "$(cat "$ctx/schemes/nr_schemes")" = 2 -a \
		"$(cat "$ctx/schemes/1/access_pattern/sz/min")" = 16384
	check "after the scheme changes: the same kdamond runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
	update_stats "$kd"
	_t0=$(cat "$ctx/schemes/1/stats/nr_tried")
	check "the kernel runs the scheme in slot 1 (nr_tried from $_t0)" \
		wait_tried_above "$kd" "$ctx/schemes/1" "$_t0"
	expect_rc 0 "damonc tune --remove-scheme 1" dc_tune_targets --remove-scheme 1
else
	note "not tested: tune --add-scheme/--remove-scheme ('damonc tune --help' lists none)"
fi
# --pause (7.2): the kdamond stays, its scheme is tried no more until --resume
if ! damonc tune --help 2>&1 | grep -q -- --pause; then
	note "not tested: tune --pause ('damonc tune --help' lists none)"
elif [ -e "$ctx/pause" ]; then
	expect_rc 0 "damonc tune --pause" dc_tune_targets --pause
	check "after --pause: the pause file says Y" test "$(cat "$ctx/pause")" = Y
	check "after --pause: the same kdamond runs (pid $kpid)" \
		test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
	sleep 1
	update_stats "$kd"
	_p0=$(cat "$ctx/schemes/0/stats/nr_tried")
	sleep 2
	update_stats "$kd"
	check "paused: the scheme is tried no more (nr_tried $_p0 -> $(cat "$ctx/schemes/0/stats/nr_tried"))" \
		test "$(cat "$ctx/schemes/0/stats/nr_tried")" = "$_p0"
	expect_rc 0 "damonc tune --resume" dc_tune_targets --resume
	check "resumed: the scheme is tried again (nr_tried from $_p0)" \
		wait_tried_above "$kd" "$ctx/schemes/0" "$_p0"
else
	expect_rc 3 "damonc tune --pause on $(uname -r) (no pause file)" dc_tune_targets --pause
	check "the error names the missing feature" grep -q "pause" /tmp/err
fi

# --- stop --------------------------------------------------------------------------------
expect_rc 0 "damonc stop" dc_stop
check "after stop: kdamond $k is off" test "$(rd_locked "$kd/state")" = off
check "after stop: kdamond $k has no pid" test "$(rd_locked "$kd/pid")" = -1
check "after stop: the workload still runs" kill -0 "$HC_PID"

# --- damonc --batch: one session of lines; --atomic stages them and commits them as one ----
sch=$ctx/schemes/0
action0=$(cat "$sch/action") quota0=$(cat "$sch/quotas/bytes")
printf 'start --pid %s --action stat --quota-size 1GiB\ntune --min-size 8KiB\ntune --kdamond 9 --min-size 4KiB\n' \
	"$HC_PID" >/tmp/batch
expect_rc 2 "damonc --atomic --batch: start, tune, then a line that fails" dc_batch_atomic
check "--atomic: the failing line is named (line 3)" grep -q "batch: line 3: " /tmp/err
check "--atomic: the kdamond the batch staged to start stays off" test "$(rd_locked "$kd/state")" = off
check "--atomic: the scheme is as before (action $action0, quota $quota0)" \
	test "$(cat "$sch/action")" = "$action0" -a "$(cat "$sch/quotas/bytes")" = "$quota0"

expect_rc 0 "damonc start --pid $HC_PID --action stat" dc_start "$HC_PID"
szmin=$(cat "$sch/access_pattern/sz/min") kpid=$(rd_locked "$kd/pid")
printf 'tune --min-size 16KiB\nstop\nstatus --kdamond 7\n' >/tmp/batch
expect_rc 2 "damonc --atomic --batch: tune, stop, then a line that fails" dc_batch_atomic
check "--atomic: the staged stop never reached the kernel (pid $kpid)" \
	test "$(rd_locked "$kd/state")" = on -a "$(rd_locked "$kd/pid")" = "$kpid"
check "--atomic: the staged size never reached the kernel (sz/min $szmin)" \
	test "$(cat "$sch/access_pattern/sz/min")" = "$szmin"
printf 'tune --min-size 16KiB\ntune --quota-size 2GiB\n' >/tmp/batch
expect_rc 0 "damonc --atomic --batch: two tunes, committed as one" dc_batch_atomic
check "--atomic: both tunes committed to the running kdamond (pid $kpid)" \
	test "$(cat "$sch/access_pattern/sz/min")" = 16384 -a \
	"$(cat "$sch/quotas/bytes")" = 2147483648 -a "$(rd_locked "$kd/pid")" = "$kpid"
expect_rc 0 "damonc --json=pretty status" dc_status_json
check "--atomic: damonc's record names the kdamond (pid $(rd_locked "$kd/pid"))" \
	grep -q '"started_by_damonc": *true' /tmp/out
expect_rc 0 "damonc stop" dc_stop

printf 'start --pid %s --action stat\ntune --min-age 1s\nstatus\nstop\n' "$HC_PID" >/tmp/batch
expect_rc 0 "damonc --batch: start, tune, status, stop" dc_batch
check "--batch: status ran inside the batch, on the running kdamond" grep -q "kdamond $k: on" /tmp/out
check "--batch: the batch's stop stopped it" test "$(rd_locked "$kd/state")" = off

# --- start --probe (7.2 access probes): the kernel takes them; its tried regions count hits ---
if [ -d "$ctx/monitoring_attrs/probes" ]; then
	expect_rc 0 "damonc start --probe allow:anon --probe all" dc_start_probes "$HC_PID"
	pk=$ADMIN/kdamonds/$(dc_started_index)
	pr=$pk/contexts/0/monitoring_attrs/probes
	check "two probes in the files" test "$(cat "$pr/nr_probes")" = 2
	check "probe 0: one filter, anon, allowed" test "$(cat "$pr/0/filters/nr_filters")" = 1 -a \
		"$(cat "$pr/0/filters/0/type")" = anon -a "$(cat "$pr/0/filters/0/allow")" = Y
	check "probe 1: no filter" test "$(cat "$pr/1/filters/nr_filters")" = 0
	sleep 2
	check "the kernel fills the tried regions" \
		sh -c "echo update_schemes_tried_regions >$pk/state"
	expect_rc 0 "damonc status --regions" dc_status_regions
	check "status --regions: each tried region's hits of the two probes" \
		grep -qE " probe hits [0-9]+,[0-9]+$" /tmp/out
	expect_rc 0 "damonc stop" dc_stop
else
	expect_rc 3 "damonc start --probe on $(uname -r) (no probes directory)" dc_start_probes "$HC_PID"
	check "the error names access probes" grep -q "access probes" /tmp/err
	check "nothing runs after the refused start" test "$(rd_locked "$kd/state")" = off
fi

# --- a kdamond damonc did not start ----------------------------------------------------------
# Started by raw sysfs writes, as another tool would; `damonc stop` must leave it alone.
{
	echo 1 >"$ADMIN/kdamonds/nr_kdamonds" &&
		echo 1 >"$ADMIN/kdamonds/0/contexts/nr_contexts" &&
		echo vaddr >"$ADMIN/kdamonds/0/contexts/0/operations" &&
		echo 1 >"$ADMIN/kdamonds/0/contexts/0/targets/nr_targets" &&
		echo "$HC_PID" >"$ADMIN/kdamonds/0/contexts/0/targets/0/pid_target" &&
		echo on >"$ADMIN/kdamonds/0/state"
} 2>>"$VM_OUT"
check "a kdamond started by raw sysfs writes runs" test "$(rd_locked "$ADMIN/kdamonds/0/state")" = on
other=$(rd_locked "$ADMIN/kdamonds/0/pid")
dc_stop >/tmp/out 2>/tmp/err
note "damonc stop with only a foreign kdamond running: exit $?; $(cat /tmp/out /tmp/err)"
check "damonc stop left the kdamond it did not start running (pid $other)" \
	test "$(rd_locked "$ADMIN/kdamonds/0/state")" = on -a "$(rd_locked "$ADMIN/kdamonds/0/pid")" = "$other"
echo off >"$ADMIN/kdamonds/0/state"
finish
