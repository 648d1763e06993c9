#!/bin/bash
# The agent survives what happens around it, says so, and leaves nothing behind:
#   agent-survival.sh CASE PROFILE
#   target-exit    the target process exits: the kdamond stops by itself, the agent notices
#                  at once (process events), ends and exits
#   raw-off        someone writes 'off' to the kdamond's state behind the agent's back
#   stop-kdamond   damonc stop --kdamond 0
#   refusal        the kernel keeps refusing the agent's command (fault injection): after
#                  three refusals in a row it gives up and stops the kdamond
#   refusal-once   one refusal: the agent says so, retries and goes on serving
#   sigterm        SIGTERM: the agent stops what it serves and exits
#   leave-running  start --foreground --leave-running, then SIGTERM: the kdamond goes on,
#                  and a new `damonc agent` serves it again
#   no-connector   an agent without the process events connector (run in a user namespace,
#                  where the kernel does not serve it) says so, checks the targets at every
#                  round instead, and still notices the target's exit
#   persist        `damonc agent --persist` (as the systemd unit runs it) serves what start
#                  starts, waits when nothing is left, serves the next start, and on SIGTERM
#                  stops it
#   killed-grant   kill -9 of the agent: diagnose says nobody serves the kdamond; on 7.2 the
#                  collapse it allowed the kernel stays open (the kernel goes on) until the
#                  next damonc command that changes DAMON (here a record) closes it
# On 6.12 the agent collapses in user space (its command: update_schemes_tried_regions);
# on 7.2 it feeds a hugepage_mem_bp goal (commit_schemes_quota_goals).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
CASE=${1:?case}
PROFILE=${2:?profile}
emu_with_scenario "$PROFILE"
start_hotcold --hot 16M --cold 16M

if [ "$PROFILE" = 6.12 ]; then
	# no goal: the agent collapses the hot regions at every round
	start_args=(--action collapse --pid "$HC_PID")
	agent_cmd=update_schemes_tried_regions
	serving_re="serving kdamond 0 .*collapse of target 0"
else
	# a goal that is never met: the agent feeds it at every round
	start_args=(--action collapse --pid "$HC_PID" --goal-bp 10000 --goal-scope pid)
	agent_cmd=commit_schemes_quota_goals
	serving_re="feeding hugepage_mem_bp"
fi

file_has() { [ -f "$1" ] && grep -qE -- "$2" "$1"; }
# A damonc this test runs itself (an agent, start --foreground) must not outlive a failure.
own_pids=()
trap 'kill "${own_pids[@]}" 2>/dev/null || true; kill "${HC_ALL[@]}" 2>/dev/null || true; rm -f "$SCENARIO"; emu_cleanup' EXIT

if [ "$CASE" = leave-running ]; then
	"$D" start --foreground --leave-running "${start_args[@]}" >"$SYSROOT/fg.out" \
		2>"$SYSROOT/fg.err" &
	fg=$!
	own_pids+=("$fg")
	wait_until 10 file_has "$SYSROOT/fg.err" "$serving_re"
	kill -TERM "$fg"
	rc=0
	wait "$fg" || rc=$?
	grep -q "Terminated received: leaving the kdamonds running" "$SYSROOT/fg.err" ||
		fail "no word of leaving it running: $(cat "$SYSROOT/fg.err")"
	[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond was stopped"
	expect_rc 0 "$D" status
	grep -q "served in user space by nobody: the damonc agent is not running" <<<"$OUT" ||
		fail "status does not say that nobody serves it now: $OUT"
	# a new agent takes it over
	"$D" agent 2>"$SYSROOT/agent2.err" &
	ag=$!
	own_pids+=("$ag")
	wait_until 10 file_has "$SYSROOT/agent2.err" "serving kdamond 0"
	expect_rc 0 "$D" status
	grep -q "served in user space by the damonc agent (user space, pid $ag)" <<<"$OUT" ||
		fail "status: $OUT"
	kill -TERM "$ag"
	wait "$ag" || true
	grep -q "no longer served (stopped on a signal)" "$SYSROOT/agent2.err" ||
		fail "agent: $(cat "$SYSROOT/agent2.err")"
	assert_nothing_left off
	echo "ok: $CASE $PROFILE (start --foreground exited $rc)"
	exit 0
fi

served_times() { [ "$(grep -c "serving kdamond 0 " "$SYSROOT/agent.err")" = "$1" ]; }

if [ "$CASE" = no-connector ]; then
	command -v unshare >/dev/null || emu_skip "no unshare"
	unshare --user --map-root-user true 2>/dev/null || emu_skip "no user namespaces here"
	unshare --user --map-root-user "$D" agent --persist 2>"$SYSROOT/agent.err" &
	ag=$!
	own_pids+=("$ag")
	# the user namespace may not read the target's smaps: measure system-wide
	[ "$PROFILE" = 6.12 ] || start_args=(--action collapse --pid "$HC_PID" --goal-bp 10000)
	wait_until 10 file_has "$SYSROOT/agent.err" "process events connector unavailable \(.*\): checking the target processes at every round instead"
	expect_rc 0 "$D" start "${start_args[@]}"
	wait_until 10 file_has "$SYSROOT/agent.err" "$serving_re"
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null || true
	wait_until 5 file_has "$SYSROOT/agent.err" "kdamond 0: target pid $HC_PID is gone"
	wait_until 10 file_has "$SYSROOT/agent.err" "no longer served \(it stopped by itself: its targets exited\)"
	kill -TERM "$ag"
	wait "$ag" || true
	assert_nothing_left off
	echo "ok: $CASE $PROFILE"
	exit 0
fi

if [ "$CASE" = killed-grant ]; then
	quota() { cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/quotas/bytes"; }
	grant_open() { [ "$(quota)" != 1 ]; }
	expect_rc 0 "$D" start "${start_args[@]}"
	wait_logged 10 "$serving_re"
	pid=$(agent_pid)
	[ "$PROFILE" = 6.12 ] || wait_until 20 grant_open
	kill -9 "$pid"
	wait_until 10 sh -c "! kill -0 $pid 2>/dev/null"
	expect_rc 1 "$D" diagnose
	grep -q "kdamond 0: damonc started it with a part done in user space (fallbacks for what the kernel lacks), but no damonc agent runs to do it" <<<"$OUT" ||
		fail "diagnose: $OUT"
	if [ "$PROFILE" != 6.12 ]; then
		grant_open || fail "the grant was closed without anyone closing it"
		expect_rc 0 "$D" record --count 1 --interval 100ms -o "$SYSROOT/r.rec"
		# killed between staging a change and its commit, the agent leaves a journal: its
		# undo puts the files back to what the kernel runs (the grant as last committed),
		# and what is still open then is closed; either way one of the two is said
		grep -qE "note: kdamond 0: the damonc agent that served it is gone, and the collapse it allowed the kernel is closed again|note: 'damonc agent' \(pid $pid\) was killed in the middle of a change" <<<"$ERR" ||
			fail "record did not close the grant: $ERR"
		[ "$(quota)" = 1 ] || fail "the grant is still open: quota $(quota)"
	fi
	expect_rc 0 "$D" stop
	assert_nothing_left off
	echo "ok: $CASE $PROFILE"
	exit 0
fi

if [ "$CASE" = persist ]; then
	"$D" agent --persist 2>"$SYSROOT/agent.err" &
	ag=$!
	own_pids+=("$ag")
	wait_until 10 file_has "$SYSROOT/agent.err" "following the target processes"
	for round in 1 2; do
		expect_rc 0 "$D" start "${start_args[@]}"
		wait_until 10 served_times $round
		[ "$(agent_pid)" = "$ag" ] || fail "start ran another agent: $(agent_pid), not $ag"
		if [ $round = 1 ]; then
			expect_rc 0 "$D" stop
			wait_until 10 file_has "$SYSROOT/agent.err" "waiting for damonc to start more"
			kill -0 "$ag" || fail "the agent exited"
		fi
	done
	kill -TERM "$ag"
	wait "$ag" || true
	grep -q "no longer served (stopped on a signal)" "$SYSROOT/agent.err" ||
		fail "agent: $(cat "$SYSROOT/agent.err")"
	assert_nothing_left off
	echo "ok: $CASE $PROFILE"
	exit 0
fi

case $CASE in
refusal) echo "path=kdamonds/0/state value=$agent_cmd errno=EINVAL" >"$EMU_FAULTS" ;;
refusal-once) echo "path=kdamonds/0/state value=$agent_cmd errno=EINVAL nth=2" >"$EMU_FAULTS" ;;
esac

expect_rc 0 "$D" start "${start_args[@]}"
wait_logged 10 "$serving_re"
pid=$(agent_pid)
[ -n "$pid" ] || fail "no agent pid file"

case $CASE in
target-exit)
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null || true
	wait_logged 5 "target pid $HC_PID exited \(signal 15\)"
	wait_logged 10 "no longer served \(it stopped by itself: its targets exited\)"
	wait_logged 5 "nothing left to serve: exiting"
	;;
raw-off)
	echo off >"$ADMIN/kdamonds/0/state"
	wait_logged 10 "no longer served \(it was stopped behind the agent's back: its state is off\)"
	wait_logged 5 "nothing left to serve: exiting"
	;;
stop-kdamond)
	expect_rc 0 "$D" stop --kdamond 0
	wait_logged 10 "no longer served \(stopped with 'damonc stop'\)"
	wait_logged 5 "nothing left to serve: exiting"
	;;
refusal)
	wait_logged 20 "the kernel refused $agent_cmd: .*Invalid argument.*\(1 of 3 refusals in a row"
	wait_logged 20 "refused $agent_cmd: .*giving up after 3 refusals in a row, and stopping it"
	wait_logged 5 "no longer served \(the kernel kept refusing\)"
	wait_logged 5 "nothing left to serve: exiting"
	;;
refusal-once)
	wait_logged 20 "the kernel refused $agent_cmd: .*\(1 of 3 refusals in a row: retrying next round\)"
	wait_logged 10 "the kernel accepts the agent's commands again"
	kill -0 "$pid" || fail "the agent exited after one refusal"
	[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped after one refusal"
	expect_rc 0 "$D" stop
	wait_logged 10 "no longer served \(stopped with 'damonc stop'\)"
	;;
sigterm)
	kill -TERM "$pid"
	wait_logged 10 "Terminated received: stopping the kdamonds the agent serves"
	wait_logged 5 "kdamond 0: no longer served \(stopped on a signal\)"
	;;
*) fail "unknown case $CASE" ;;
esac
wait_agent_gone 10
assert_nothing_left off
agent_log | sed 's/^/# /'
echo "ok: $CASE $PROFILE"
