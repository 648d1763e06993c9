#!/bin/bash
# The system-wide huge-page goal where the kernel collapses: on 7.2 (no hugepage_mem_bp)
# damonc installs a user_input goal and the agent feeds it with the system's ratio (the
# three *HugePages of /proc/meminfo over MemTotal - MemFree, as the kernel's metric); on
# `next` the kernel measures hugepage_mem_bp itself. Either way the agent keeps the budget in
# huge pages: a goal far above what the process's hot memory can reach has the hot buffer
# collapsed and is said to be unreachable ("goal not reachable: hot memory is ..."), and a
# goal the system meets already lets the kernel collapse nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
start_hotcold --hot 64M --cold 64M
goal=$ADMIN/kdamonds/0/contexts/0/schemes/0/quotas/goals/0

# A goal no system reaches: the kernel collapses the hot buffer, and no more.
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 10000
if [ "$PROFILE" = next ]; then
	[ "$(cat "$goal/target_metric")" = hugepage_mem_bp ] || fail "the goal is not the kernel's"
else
	grep -q "hugepage_mem_bp goal 10000 bp fed by the agent (system-wide)" <<<"$OUT" ||
		fail "start: $OUT"
	[ "$(cat "$goal/target_metric")" = user_input ] || fail "the goal is not user_input"
	wait_logged 10 "feeding hugepage_mem_bp \(system-wide\) to its user_input goal 0"
fi
hot_grew() { [ "$(anon_huge_kb "$HC_PID" "$HOT")" -ge 32768 ]; }
wait_until 60 hot_grew
wait_logged 30 "goal not reachable: hot memory is [0-9.]+ MiB \([0-9.]+%\)"
if [ "$PROFILE" != next ]; then
	# what it feeds is the system's ratio as report hugepage computes it. The agent feeds
	# when it changes, while collapsing may still go on (slowly under sanitizers), so
	# compare until the two agree within 1 percentage point, for at most 20 s.
	close=
	for _ in $(seq 20); do
		fed=$(cat "$goal/current_value")
		expect_rc 0 "$D" --json report hugepage
		sys=$(json_get 'j["system"]["hugepage_bp"]')
		if [ $((fed - sys)) -le 100 ] && [ $((sys - fed)) -le 100 ]; then
			close=1
			break
		fi
		sleep 1
	done
	[ -n "$close" ] || fail "the agent fed $fed bp, the system's ratio is $sys bp (for 20 s)"
fi
# the agent logs first and saves its figures, which reports read, at the end of its round
said_unreachable() {
	expect_rc 0 "$D" --json report hugepage
	[ "$(json_get 'j["schemes"][0]["hot"]["goal_reachable"]')" = False ]
}
fair_wait 10000 said_unreachable ||
	fail "report --json does not say the goal is unreachable: $OUT"
expect_rc 0 "$D" report hugepage
grep -q "goal not reachable: hot memory is" <<<"$OUT" || fail "report: $OUT"
expect_rc 0 "$D" status
grep -q "goal not reachable: hot memory is" <<<"$OUT" || fail "status: $OUT"
if [ "$PROFILE" != next ]; then
	grep -q "hugepage_mem_bp 100.00% (system-wide), which this kernel lacks, stands in as" \
		<<<"$OUT" || fail "status: $OUT"
fi
expect_rc 0 "$D" stop
wait_agent_gone 10
assert_nothing_left off
echo "system ${sys:-?} bp; hot buffer $(anon_huge_kb "$HC_PID" "$HOT") kB huge"

# A goal the system meets already (1 bp): the kernel may collapse nothing.
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null || true
start_hotcold --hot 64M --cold 64M
expect_rc 0 "$D" --json report hugepage
sys=$(json_get 'j["system"]["hugepage_bp"]')
if [ "$sys" -lt 1 ]; then
	echo "note: this system has no huge pages at all (0 bp): the met-goal half is not run"
else
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 1
	wait_logged 10 "goal met \(.*, goal 0\.01%, system-wide\): the kernel collapses nothing"
	sleep 5
	if [ "$(anon_huge_kb "$HC_PID" "$HOT")" != 0 ]; then
		"$D" status >&2 || true
		agent_log >&2
		fail "the kernel collapsed $(anon_huge_kb "$HC_PID" "$HOT") kB though the goal was met"
	fi
	expect_rc 0 "$D" stop
	wait_agent_gone 10
	assert_nothing_left off
fi
echo "ok: $PROFILE"
