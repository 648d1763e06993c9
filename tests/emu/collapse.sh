#!/bin/bash
# damonc start --action collapse on the hot/cold workload: the hot buffer becomes huge for
# real (MADV_COLLAPSE, by the kernel action or by the agent where the profile lacks it),
# the cold one does not.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
start_hotcold --hot 64M --cold 64M

[ "$(anon_huge_kb "$HC_PID" "$HOT")" = 0 ] || fail "the hot buffer is huge already"
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --min-age 500ms
hot_grew() { [ "$(anon_huge_kb "$HC_PID" "$HOT")" -ge 32768 ]; }
wait_until 60 hot_grew
# shellcheck disable=SC2153 # COLD is set by start_hotcold
cold=$(anon_huge_kb "$HC_PID" "$COLD")
[ "$cold" = 0 ] || fail "the cold buffer has $cold kB of huge pages"
expect_rc 0 "$D" report hugepage --pid "$HC_PID" --json
[ "$(json_get 'j["processes"][0]["anon_huge"] >= 32 << 20')" = True ] ||
	fail "report hugepage does not see the huge pages: $OUT"
[ "$(json_get 'j["schemes"][0]["action"]')" = collapse ] || fail "report: $OUT"
echo "ok: hot $(anon_huge_kb "$HC_PID" "$HOT") kB huge, cold $cold kB ($PROFILE)"
expect_rc 0 "$D" stop
