#!/bin/bash
# The agent holds a huge-page goal without walking the target's page tables every round
# (issue 28): it keeps the last walk's count while no THP counter moves. What such a count
# could miss, done by the workload itself (hotcold's change signals) once the goal is met:
#   split     a partial MADV_DONTNEED splits every huge page of the hot buffer;
#   refault   the hot buffer freed whole and faulted back in, small;
#   grow      the process grows by as much cold memory as it had;
#   collapse  the workload collapses a quarter of its cold buffer itself (MADV_COLLAPSE);
# after each: the ratio the agent holds (`status --json`) agrees with an independent
# smaps_rollup measurement within one huge page, and the goal is met again (the last one
# leaves the process above it: collapsing only adds huge pages).
#   agent-changes.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
GOAL=2000
emu_with_scenario "$PROFILE"
start_hotcold --hot 64M --cold 64M

expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp $GOAL --goal-scope pid
wait_logged 60 "goal met \(.*, goal 20\.00%"

# the ratio the agent holds, and "met" when it says its goal is met (status --json)
agent_bp() {
	"$D" --json status | python3 -c 'import json, sys
a = json.load(sys.stdin)["kdamonds"][0].get("agent") or {}
print(a.get("measured_bp", -1), "met" if a.get("goal_met") else "unmet")'
}
# one huge page of the process, in basis points of its RSS
page_bp() { awk '/^Rss:/ { printf "%d\n", 2048 * 10000 / $2 }' "/proc/$HC_PID/smaps_rollup"; }
# the agent's ratio within a huge page of smaps', and the goal met (or passed, collapsing
# being all it does)
settled() {
	local a s p met
	read -r a met < <(agent_bp)
	s=$(proc_bp "$HC_PID")
	p=$(page_bp)
	LAST="agent $a bp ($met), smaps $s bp (a huge page is $p bp)"
	[ "$a" -ge 0 ] && [ "$met" = met ] && [ $((a > s ? a - s : s - a)) -le "$p" ] &&
		[ "$s" -ge $((GOAL - p)) ]
}
# what the agent says when it acts on a drop: "below goal ... again" once it had called the
# goal met, or only its collapses when the change came before it did (a round after the
# last collapse): either way at least one line more (its own collapses on 6.12, what it
# lets the kernel collapse on 7.2)
below_said() {
	agent_log | grep -cE "below goal 20\.00% again|: collapsed [0-9]+ huge pages|: the kernel may collapse [0-9]+ MiB" || true
}
# change NAME SIGNAL up|down: the workload makes the change, which takes the ratio up or
# down (by more than a huge page: checked at once, the agent needs a few rounds to act);
# down, the agent says so; then it settles again
change() {
	local name=$1 sig=$2 way=$3 before after said
	before=$(proc_bp "$HC_PID")
	said=$(below_said)
	kill "-$sig" "$HC_PID"
	done_seen() { grep -q "^done $name" "$SYSROOT/hotcold.out"; }
	wait_until 30 done_seen
	after=$(proc_bp "$HC_PID")
	if [ "$way" = down ]; then
		[ "$after" -lt $((before - $(page_bp))) ] ||
			fail "'$name' took the ratio from $before bp to $after bp only"
		more_said() { [ "$(below_said)" -gt "$said" ]; }
		wait_until 30 more_said
	else
		[ "$after" -gt $((before + $(page_bp))) ] ||
			fail "'$name' took the ratio from $before bp to $after bp only"
	fi
	if ! fair_wait 60000 settled; then
		fail "after '$name' ($before bp before it, $after bp just after): not settled: $LAST"
	fi
	echo "after $name: $before bp before, $after bp just after; settled: $LAST"
}

change split RTMIN down
change refault RTMIN+2 down
change grow RTMIN+4 down
change collapse RTMIN+1 up
# the goal passed by the workload's own huge pages: the agent says so and collapses nothing
wait_logged 30 "goal met"
huge=$(proc_huge_kb "$HC_PID")
sleep 3
[ "$(proc_huge_kb "$HC_PID")" -le $((huge + 2048)) ] ||
	fail "collapsing went on above the goal: $huge kB, then $(proc_huge_kb "$HC_PID") kB"

expect_rc 0 "$D" stop
wait_agent_gone 10
assert_nothing_left off
echo "ok: $PROFILE"
