#!/bin/bash
# start --follow-children: a child the target forks after the start becomes a target of its
# kdamond, online (every pid staged, then committed: the kdamond keeps running), with a stat
# scheme and an observer of its own where the agent collapses in user space (6.12); its exit
# leaves the
# kdamond serving the parent; the parent's exit ends everything.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"

mkfifo "$SYSROOT/go"
# the parent forks one child when told, and outlives it (bash's read is a builtin: no fork
# but that one); neither holds the test's output, which a child left behind by a failure
# would keep open past the end of the test
# shellcheck disable=SC2016 # expanded by the inner bash
bash -c 'exec 3<>"$1"; read -r _ <&3; sleep 300 & echo $! >"$2"; wait; read -r _ <&3' _ "$SYSROOT/go" \
	"$SYSROOT/child.pid" >/dev/null 2>&1 &
HC_PID=$!
HC_ALL+=("$HC_PID")	# cleaned up by emu_with_scenario's trap
parent=$HC_PID
kd=$ADMIN/kdamonds/0/contexts/0

expect_rc 0 "$D" start --action collapse --pid "$parent" --follow-children --min-age 100ms
wait_logged 10 "serving kdamond 0 .*following the targets' children"
echo go >"$SYSROOT/go"
wait_until 10 test -s "$SYSROOT/child.pid"
child=$(cat "$SYSROOT/child.pid")
wait_logged 10 "kdamond 0: pid $child, a child of target $parent, is a target now"
[ "$(kdamond_state 0)" = on ] || fail "the kdamond stopped on the commit"
[ "$(cat "$kd/targets/nr_targets")" = 2 ] || fail "nr_targets: $(cat "$kd/targets/nr_targets")"
[ "$(cat "$kd/targets/0/pid_target")" = "$parent" ] || fail "target 0 is not the parent"
[ "$(cat "$kd/targets/1/pid_target")" = "$child" ] || fail "target 1 is not the child"
[ "$(cat "$kd/targets/1/regions/nr_regions")" -ge 1 ] || fail "the child has no regions"
if [ "$PROFILE" = 6.12 ]; then
	# per target, a stat scheme with the collapse pattern and an observer, each keeping its
	# own target's regions: 0 and 1 for the parent, 2 and 3 (copies) for the child
	[ "$(cat "$kd/schemes/nr_schemes")" = 4 ] || fail "nr_schemes: $(cat "$kd/schemes/nr_schemes")"
	for s in 0 1 2 3; do
		f=$kd/schemes/$s/filters/0
		if [ "$(cat "$f/type")" != target ] || [ "$(cat "$f/damon_target_idx")" != $((s / 2)) ]; then
			fail "scheme $s has no target filter for target $((s / 2))"
		fi
	done
fi
expect_rc 0 "$D" --json status
[ "$(json_get 'j["kdamonds"][0]["agent"]["follow_children"]')" = True ] || fail "status: $OUT"
OUT=$(cat "$SYSROOT/run/damonc/kdamonds.json")
[ "$(json_get 'j["kdamonds"][0]["targets"]')" = "[$parent, $child]" ] ||
	fail "the record does not have both targets: $OUT"

# `tune --add-target` takes a process in as the agent takes a child, by the same retarget
# transaction: a kernel thread is refused as start refuses it; the new target gets a budget
# of its own where collapse is emulated (schemes 4 and 5 for target 2); the agent follows
sleep 300 &
third=$!
HC_ALL+=("$third")
expect_rc 2 "$D" tune --add-target 2
grep -q "process 2 is a kernel thread" <<<"$ERR" || fail "tune --add-target 2: $ERR"
expect_rc 0 "$D" tune --add-target "$third"
[ "$(kdamond_state 0)" = on ] || fail "the kdamond stopped on tune's commit"
[ "$(cat "$kd/targets/nr_targets")" = 3 ] || fail "tune: nr_targets $(cat "$kd/targets/nr_targets")"
[ "$(cat "$kd/targets/2/pid_target")" = "$third" ] || fail "target 2 is not the one tune added"
if [ "$PROFILE" = 6.12 ]; then
	[ "$(cat "$kd/schemes/nr_schemes")" = 6 ] || fail "tune: nr_schemes $(cat "$kd/schemes/nr_schemes")"
	for s in 4 5; do
		[ "$(cat "$kd/schemes/$s/filters/0/damon_target_idx")" = 2 ] ||
			fail "tune: scheme $s does not keep to target 2"
	done
fi
wait_logged 10 "kdamond 0: its targets changed \(damonc tune\)"
expect_rc 0 "$D" tune --remove-target "$third"
[ "$(cat "$kd/targets/0/pid_target")" = "$parent" ] ||
	fail "tune --remove-target: target 0 is $(cat "$kd/targets/0/pid_target")"
kill "$third"

kill "$child"
wait_logged 5 "kdamond 0: target pid $child exited \(signal 15\)"
sleep 1
[ "$(kdamond_state 0)" = on ] || fail "the kdamond stopped with one target left"
kill "$parent"
wait "$parent" 2>/dev/null || true
wait_logged 10 "no longer served \(it stopped by itself: its targets exited\)"
wait_agent_gone 10
assert_nothing_left off
agent_log | sed 's/^/# /'
echo "ok: $PROFILE"
