#!/bin/bash
# damonc tune --goal-bp on a collapse scheme of several processes that the damonc agent
# serves: the plan has a collapse budget per target (a per-target copy of the scheme for
# each process after the first), and every one of them moves to the new goal, as `tune`
# says and `report hugepage` and the agent's record show (before, only the first target's
# budget moved and the others kept aiming at the old goal).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
sleep 600 &
t2=$!
trap 'kill $target $t2 2>/dev/null || true; "$D" stop >/dev/null 2>&1 || true; emu_cleanup' EXIT

# the goals of the plan's collapse budgets, as damonc's record of the kdamond keeps them
budget_goals() {
	python3 -c 'import json, sys
fbs = json.load(open(sys.argv[1]))["kdamonds"][0]["fallbacks"]
print(" ".join(str(f["target_bp"]) for f in fbs if f["kind"] == "collapse"))' \
		"$SYSROOT/run/damonc/kdamonds.json"
}
# the target values of the kernel's user_input goals (7.2: fed by the agent), per scheme
kernel_goals() {
	local g out=""
	for g in "$ADMIN"/kdamonds/0/contexts/0/schemes/*/quotas/goals/*/; do
		[ "$(cat "$g/target_metric")" = user_input ] && out+="$(cat "$g/target_value") "
	done
	echo "${out% }"
}
# the hugepage_mem_bp goals `report hugepage --json` shows for the collapse schemes
report_goals() {
	expect_rc 0 "$D" report hugepage --json
	json_get '" ".join(str(g["target_value"]) for s in j["schemes"] if s["action"] == "collapse"
		for g in s["goals"] if g["metric"] == "hugepage_mem_bp")'
}

expect_rc 0 "$D" start --action collapse --pid "$target" --pid "$t2" --goal-bp 3000
[ "$(budget_goals)" = "3000 3000" ] || fail "after start: budgets aim at $(budget_goals)"
[ "$(report_goals)" = "3000 3000" ] || fail "after start: report hugepage shows $(report_goals)"

before=$(kernel_goals)
expect_rc 0 "$D" tune --goal-bp 800
[ "$(grep -c "collapse goal 800 bp" <<<"$OUT")" = 2 ] ||
	fail "tune does not say both budgets moved: $OUT"
if grep -q "goal 3000 bp" <<<"$OUT"; then fail "tune says a goal still aims at 3000: $OUT"; fi
# where the kernel tunes to a user_input goal the agent feeds (7.2), every copy's moved
[ "$(kernel_goals)" = "${before//3000/800}" ] ||
	fail "the kernel's user_input goals: $(kernel_goals) (before: $before)"
[ "$(budget_goals)" = "800 800" ] || fail "after tune: budgets aim at $(budget_goals)"
[ "$(report_goals)" = "800 800" ] || fail "after tune: report hugepage shows $(report_goals)"

# the same through --json
expect_rc 0 "$D" tune --goal-bp 1200 --json
[ "$(budget_goals)" = "1200 1200" ] || fail "after tune --json: budgets aim at $(budget_goals)"
expect_rc 0 "$D" stop
echo "ok: tune --goal-bp moves every target's collapse budget on profile $PROFILE"
