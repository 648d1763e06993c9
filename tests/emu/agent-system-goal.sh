#!/bin/bash
# The system-wide huge-page goal on a kernel with the collapse action but no hugepage_mem_bp
# (7.2): damonc installs a user_input goal and the agent feeds it with the system's ratio
# (the three *HugePages of /proc/meminfo over MemTotal - MemFree, as the kernel's metric);
# the kernel's tuner collapses while the goal is missed and stops once it is met.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
start_hotcold --hot 64M --cold 64M
goal=$ADMIN/kdamonds/0/contexts/0/schemes/0/quotas/goals/0

# A goal no system reaches: the kernel collapses the hot buffer, fed the system's ratio.
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 10000
grep -q "hugepage_mem_bp goal 10000 bp fed by the agent (system-wide)" <<<"$OUT" ||
	fail "start: $OUT"
[ "$(cat "$goal/target_metric")" = user_input ] || fail "the goal is not user_input"
wait_logged 10 "feeding hugepage_mem_bp \(system-wide\) to its user_input goal 0"
hot_grew() { [ "$(anon_huge_kb "$HC_PID" "$HOT")" -ge 32768 ]; }
wait_until 60 hot_grew
# what it feeds is the system's ratio as report hugepage computes it. The agent feeds once a
# second while collapsing may still go on (slowly under sanitizers), so compare until the
# two agree within 1 percentage point, for at most 20 s.
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
expect_rc 0 "$D" status
grep -q "hugepage_mem_bp 100.00% (system-wide), which this kernel lacks, stands in as user_input" \
	<<<"$OUT" || fail "status: $OUT"
expect_rc 0 "$D" stop
wait_agent_gone 10
assert_nothing_left off
echo "fed $fed bp, system $sys bp; hot buffer $(anon_huge_kb "$HC_PID" "$HOT") kB huge"

# A goal the system meets already (1 bp) : the kernel's tuner never lets it collapse.
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null || true
start_hotcold --hot 64M --cold 64M
expect_rc 0 "$D" --json report hugepage
sys=$(json_get 'j["system"]["hugepage_bp"]')
if [ "$sys" -lt 1 ]; then
	echo "note: this system has no huge pages at all (0 bp): the met-goal half is not run"
else
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 1
	wait_logged 10 "goal met \(.* >= 0\.01%, system-wide\): the kernel's tuner stops the scheme"
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
