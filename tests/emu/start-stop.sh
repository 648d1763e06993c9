#!/bin/bash
# damonc start/status/stop on a vaddr target: the tree holds what was asked, a real process
# named kdamond.N runs, status says damonc started it, stop stops only that.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

t_start=$(date +%s%N)
expect_rc 0 "$D" start --pid "$target" --action pageout --min-size 4KiB --access-rate 0%,0% \
	--min-age 2s --quota-size 64MiB
[[ $OUT =~ started\ kdamond\ 0\ \(pid\ ([0-9]+)\) ]] || fail "unexpected output: $OUT"
kpid=${BASH_REMATCH[1]}
k=$ADMIN/kdamonds/0
[ "$(sysfs_read "$k/state")" = on ] || fail "state is not on"
[ "$(sysfs_read "$k/pid")" = "$kpid" ] || fail "pid file $(sysfs_read "$k/pid") != $kpid"
[ "$(cat "/proc/$kpid/comm")" = kdamond.0 ] || fail "pid $kpid is $(cat "/proc/$kpid/comm")"
s=$k/contexts/0/schemes/0
[ "$(cat "$s/action")" = pageout ] || fail "action $(cat "$s/action")"
[ "$(cat "$s/access_pattern/sz/min")" = 4096 ] || fail "sz/min"
[ "$(cat "$s/access_pattern/nr_accesses/max")" = 0 ] || fail "nr_accesses/max"
# 2s at the default 100ms aggregation interval
[ "$(cat "$s/access_pattern/age/min")" = 20 ] || fail "age/min $(cat "$s/access_pattern/age/min")"
[ "$(cat "$s/quotas/bytes")" = 67108864 ] || fail "quotas/bytes"
[ "$(cat "$k/contexts/0/targets/0/pid_target")" = "$target" ] || fail "pid_target"

expect_rc 0 "$D" status
grep -q "kdamond 0: on, pid $kpid" <<<"$OUT" || fail "status: $OUT"
grep -q "started by damonc" <<<"$OUT" || fail "status does not say damonc started it"
expect_rc 0 "$D" status --json
[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = True ] || fail "json started_by_damonc"
[ "$(json_get 'j["kdamonds"][0]["pid"]')" = "$kpid" ] || fail "json pid"
# its CPU: the thread's /proc stat (read before and after the status), over a life no
# longer than since the start (ticks and /proc/uptime's hundredths: 50 ms of rounding)
ticks() { awk '{ print $14 + $15 }' "/proc/$kpid/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks)
expect_rc 0 "$D" --json status
after=$(ticks)
lived_us=$((($(date +%s%N) - t_start) / 1000))
cpu=$(json_get 'j["kdamonds"][0]["cpu"]["time_us"]')
run=$(json_get 'j["kdamonds"][0]["cpu"]["run_time_us"]')
pct=$(json_get 'j["kdamonds"][0]["cpu"]["usage_percent"]')
{ [ "$cpu" -ge $((before * 1000000 / hz)) ] && [ "$cpu" -le $((after * 1000000 / hz)) ]; } ||
	fail "cpu time_us $cpu, not between $before and $after ticks of /proc/$kpid/stat"
{ [ "$run" -gt 0 ] && [ "$run" -le $((lived_us + 50000)) ]; } ||
	fail "cpu run_time_us $run, the kdamond has existed for at most $lived_us us"
python3 -c "import sys; sys.exit(abs($cpu * 100 / $run - $pct) > 0.011)" ||
	fail "usage_percent $pct is not $cpu us over $run us"
expect_rc 0 "$D" status
grep -qE "^  cpu: .+ over .+ running \([0-9]+\.[0-9]{2}% of a CPU\)$" <<<"$OUT" ||
	fail "status shows no CPU line for the running kdamond: $OUT"

# a second start adds nothing while ours runs: the kernel cannot add a kdamond then
expect_rc 4 "$D" start --pid "$target" --action stat
grep -q "stop it first with 'damonc stop'" <<<"$ERR" || fail "busy message: $ERR"

expect_rc 0 "$D" stop
grep -q "kdamond 0: stopped" <<<"$OUT" || fail "stop: $OUT"
[ "$(sysfs_read "$k/state")" = off ] || fail "still on after stop"
expect_rc 0 "$D" --json status
[ "$(json_get '"cpu" in j["kdamonds"][0]')" = False ] || fail "a stopped kdamond has a CPU: $OUT"
# stopped on purpose: not "started by damonc" any more (the DamoncKdamondStopped alert
# fires for a kdamond damonc started that is off), yet damonc's for its next start
[ "$(json_get '(j["kdamonds"][0]["started_by_damonc"], j["kdamonds"][0].get("stopped_by_damonc"))')" \
	= "(False, True)" ] || fail "status --json after stop: $OUT"
expect_rc 0 "$D" status
grep -q "stopped with 'damonc stop'" <<<"$OUT" || fail "status after stop: $OUT"
expect_rc 0 "$D" metrics
grep -qx 'damonc_kdamond_started_by_damonc{kdamond="0"} 0' <<<"$OUT" ||
	fail "metrics after stop: $(grep started_by <<<"$OUT")"
expect_rc 0 "$D" stop
grep -q "no kdamond started by damonc is running" <<<"$ERR" || fail "second stop: $ERR"

# start again: damonc's own stopped kdamond is reused, not a second one added
expect_rc 0 "$D" start --pid "$target" --action stat
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 1 ] || fail "a second kdamond was added"
expect_rc 0 "$D" stop

# two starts at once: one starts, the other sees it running (exit 4); neither loses the
# other's record, and the tree holds the winner's configuration
sleep 600 &
target2=$!
trap 'kill $target $target2 2>/dev/null || true; emu_cleanup' EXIT
for round in $(seq 1 20); do
	rc1=0 rc2=0
	# racing on purpose: no dry run first (tests/lib/damonc-checked)
	DAMONC_START_CHECK=0 "$D" start --pid "$target" --action stat >/dev/null 2>&1 & p1=$!
	DAMONC_START_CHECK=0 "$D" start --pid "$target2" --action pageout >/dev/null 2>&1 & p2=$!
	wait "$p1" || rc1=$?
	wait "$p2" || rc2=$?
	[ "$rc1$rc2" = 04 ] || [ "$rc1$rc2" = 40 ] ||
		fail "round $round: concurrent starts exited $rc1 and $rc2, expected 0 and 4"
	if [ "$rc1" = 0 ]; then win=$target act=stat; else win=$target2 act=pageout; fi
	[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 1 ] || fail "round $round: a second kdamond"
	[ "$(cat "$k/contexts/0/targets/0/pid_target")" = "$win" ] ||
		fail "round $round: the running kdamond monitors another start's target"
	[ "$(cat "$k/contexts/0/schemes/0/action")" = "$act" ] ||
		fail "round $round: the running kdamond has another start's scheme"
	expect_rc 0 "$D" --json status
	[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = True ] ||
		fail "round $round: the winner is not recorded as damonc's"
	expect_rc 0 "$D" stop
done
# start -- COMMAND (damo start's form): the command runs (execs) first, then its kdamond starts
# on it: DAMON monitors the program's own address space (its first region starts at the
# program's first mapping), not the fork's it was before exec; start waits for the command and
# exits with its status; the kdamond stops with its target
expect_rc 7 "$D" start --action stat -- sh -c "
	echo \$\$ >'$SYSROOT/cmd.pid'
	i=0
	while [ \"\$(cat '$k/state')\" != on ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done
	cat '$k/contexts/0/targets/0/pid_target' >'$SYSROOT/cmd.seen'
	echo update_schemes_tried_regions >'$k/state'
	cat '$k/contexts/0/schemes/0/tried_regions/0/start' >'$SYSROOT/cmd.first'
	head -n 1 /proc/\$\$/maps >'$SYSROOT/cmd.maps'
	exit 7"
[ "$(cat "$SYSROOT/cmd.seen")" = "$(cat "$SYSROOT/cmd.pid")" ] ||
	fail "start -- COMMAND: the kdamond monitors '$(cat "$SYSROOT/cmd.seen")', not the command"
first_map=$((16#$(cut -d- -f1 "$SYSROOT/cmd.maps")))
if [ -d "$k/contexts/0/schemes/0/tried_regions" ]; then	# 6.2 and later
	[ "$(cat "$SYSROOT/cmd.first")" = "$first_map" ] ||
		fail "start -- COMMAND: the first region starts at $(cat "$SYSROOT/cmd.first")," \
			"the program's first mapping at $first_map ($(cat "$SYSROOT/cmd.maps"))"
fi
stopped() { [ "$(sysfs_read "$k/state")" = off ]; }
wait_until 10 stopped

# Whose a kdamond is goes by identity, never by index: damonc's stopped kdamond 0, then
# another program rewrites nr_kdamonds (every kdamond directory made anew) and leaves a
# stopped kdamond 0 of its own: it is not damonc's, and the next start adds kdamond 1 and
# leaves its configuration as it is.
expect_rc 0 "$D" start --pid "$target" --action stat
expect_rc 0 "$D" stop
foreign_kdamond
expect_rc 0 "$D" --json status
[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = False ] ||
	fail "another program's kdamond 0 is taken for damonc's"
expect_rc 0 "$D" start --pid "$target" --action stat
grep -q "started kdamond 1 " <<<"$OUT" || fail "the start took another program's kdamond: $OUT"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/operations")" = paddr ] ||
	fail "another program's stopped kdamond 0 was overwritten"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/action")" = pageout ] ||
	fail "another program's stopped kdamond 0 was overwritten"
expect_rc 0 "$D" stop
# start -c reuses damonc's own stopped kdamond: start and stop three times, one kdamond
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action stat
config=$OUT
for _ in 1 2 3; do
	expect_rc 0 "$D" start -c - <<<"$config"
	grep -q "started kdamond 1 " <<<"$OUT" || fail "start -c did not reuse kdamond 1: $OUT"
	expect_rc 0 "$D" stop
done
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 2 ] || fail "start -c / stop cycles grew the tree"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/operations")" = paddr ] ||
	fail "another program's kdamond 0 was overwritten"
echo "ok: start/status/stop on profile $PROFILE"
