#!/bin/bash
# A budget of huge pages goes to the hottest memory first (issue 30): two hot buffers, one
# accessed at every sample (100%) and one at 20% of them, the 100% one at the higher address
# (a budget spent in address order would go to the other); damonc start --action collapse
# with a goal that fits one buffer and a pattern both pass (5% and no minimum age: the 20%
# one flickers below 10%, where DAMON resets its age). The 100% buffer gets the huge pages
# and the 20% one none; the access coverage the agent measured (report hugepage,
# status, metrics) is above the memory's share of huge pages, as it must when the budget
# covers the hottest accesses.
#   6.12: the agent collapses (process_madvise); 7.2: the kernel collapses what the agent
#   allows it, hottest first.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
GOAL=4000
emu_with_scenario "$PROFILE"
start_hotcold --hot 32M --cold 32M --cold-rate 20
# the buffers swap roles: the one at the higher address ($COLD) is now the 100% one
kill -USR2 "$HC_PID"
swapped() { grep -q '^switched' "$SYSROOT/hotcold.out"; }
wait_until 10 swapped
warm=$HOT hottest=$COLD
[ "$(proc_huge_kb "$HC_PID")" = 0 ] || fail "the workload is huge already"

expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --access-rate 5% --min-age 0 \
	--goal-bp $GOAL --goal-scope pid
reached() { [ "$(proc_bp "$HC_PID")" -ge $((GOAL * 9 / 10)) ]; }
wait_until 60 reached
# a few more rounds: whatever more it does must not go to the warm buffer either
sleep 3
hot_kb=$(anon_huge_kb "$HC_PID" "$hottest")
warm_kb=$(anon_huge_kb "$HC_PID" "$warm")
echo "huge pages: $hot_kb kB in the 100% buffer, $warm_kb kB in the 20% one"
[ "$hot_kb" -ge $((32768 / 2)) ] || fail "the 100% buffer has only $hot_kb kB of huge pages"
[ "$warm_kb" = 0 ] ||
	fail "the 20% buffer got $warm_kb kB of huge pages before the 100% one was full"

# The coverage the agent measures at its next look: the 100% buffer's accesses are 5/6 of
# all, so with most of it huge the coverage is well above the process's ratio of memory
# (about 40%), which a budget spent on the warm buffer could not reach.
coverage_bp() {
	expect_rc 0 "$D" --json report hugepage --pid "$HC_PID"
	# none before the agent's first look with the huge ranges known
	cov=$(json_get '((j["schemes"][0]["hot"] or {}).get("access_coverage") or {}).get("bp")')
	# and both buffers hot to DAMON in the same look (the 20% one is hot in most looks,
	# not all: its regions' counts vary from one aggregation to the next)
	hot=$(json_get '(j["schemes"][0]["hot"] or {}).get("bytes", 0)')
	[ "$cov" != None ] && [ "$cov" -ge 5000 ] && [ "$hot" -ge $((48 << 20)) ]
}
wait_until 90 coverage_bp
ratio=$(proc_bp "$HC_PID")
# both buffers were hot to the agent (else the order would not have been put to the test)
[ "$hot" -ge $((48 << 20)) ] || fail "only $hot bytes hot: the 20% buffer was not a candidate"
echo "access coverage $cov bp, memory ratio $ratio bp"
[ "$cov" -gt "$ratio" ] || fail "coverage $cov bp is not above the memory ratio $ratio bp"
pid=$(json_get 'j["schemes"][0]["hot"]["access_coverage"]["targets"][0]["pid"]')
[ "$pid" = "$HC_PID" ] || fail "the coverage's target is $pid, not $HC_PID: $OUT"

expect_rc 0 "$D" report hugepage
grep -q "access coverage: [0-9.]*% of the accesses DAMON saw fall in huge pages" <<<"$OUT" ||
	fail "report hugepage does not show the coverage: $OUT"
expect_rc 0 "$D" status
grep -q "access coverage: [0-9.]*% of the accesses" <<<"$OUT" ||
	fail "status does not show the coverage: $OUT"
expect_rc 0 "$D" --json status
[ "$(json_get 'j["kdamonds"][0]["agent"]["hot"]["access_coverage"]["bp"]')" -ge 5000 ] ||
	fail "status --json: $OUT"
expect_rc 0 "$D" --json report hugepage --watch 100ms --count 1
[ "$(json_get 'j["access_coverage"][0]["kdamond"]')" = 0 ] || fail "--watch --json: $OUT"
[ "$(json_get 'j["access_coverage"][0]["coverage"]["bp"]')" -ge 5000 ] ||
	fail "--watch --json: $OUT"
expect_rc 0 "$D" report hugepage --watch 100ms --count 1
grep -q "kdamond 0 access coverage: [0-9.]*%" <<<"$OUT" || fail "--watch: $OUT"
expect_rc 0 "$D" metrics
grep -qE "^damonc_agent_hugepage_access_coverage_ratio\{kdamond=\"0\"\} 0\.[5-9]" <<<"$OUT" ||
	fail "metrics: $(grep coverage <<<"$OUT")"
grep -qE "^damonc_agent_target_hugepage_access_coverage_ratio\{kdamond=\"0\",pid=\"$HC_PID\"\}" \
	<<<"$OUT" || fail "metrics: $(grep coverage <<<"$OUT")"

expect_rc 0 "$D" stop
echo "ok: hottest first on $PROFILE: $hot_kb kB huge in the 100% buffer, none in the 20% one;" \
	"coverage $cov bp at a memory ratio of $ratio bp"
