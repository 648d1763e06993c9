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
grep -q "huge pages made since boot: [0-9]* at page faults, [0-9]* by khugepaged" <<<"$(
	"$D" report hugepage)" || fail "report hugepage does not say who made the huge pages"
[ "$(json_get 'sorted(j["system"]["huge_pages_made"])')" = \
	"['fault', 'khugepaged', 'madv_collapse']" ] || fail "huge_pages_made: $OUT"
# the emulator's sysroot has no tracefs: said, exit 2, naming the option
expect_rc 2 "$D" report hugepage --khugepaged-trace 1s
grep -q -- "--khugepaged-trace: this kernel's tracefs" <<<"$ERR" || fail "trace: $ERR"
# --regions: the hot buffer heads the mappings with the most coverage and ends the others
# (addresses as the reports write them: 0x and 16 digits)
hot16=$(printf '0x%016x' "$HOT")
expect_rc 0 "$D" report hugepage --pid "$HC_PID" --regions
grep -qE "^  most:  $hot16-0x[0-9a-f]+ \[anon\]: [0-9.]+ MiB huge of 64 MiB \([0-9.]+%\)$" \
	<<<"$OUT" || fail "--regions: the hot buffer does not come first: $OUT"
awk '/^  least:/ { on = 1 } on && !/^  (least: |       ) 0x/ { exit } on' <<<"$OUT" |
	tail -n 1 | grep -q "^          $hot16-" ||
	fail "--regions: the hot buffer does not come last of the least covered: $OUT"

# --watch: every sample has the process's own ratio (text) and figures (JSON Lines); a pid
# that has exited says so
sleep 0 &
gone=$!
wait "$gone"
expect_rc 0 "$D" report hugepage --pid "$HC_PID" --pid "$gone" --watch 100ms --count 3 --json
[ "$(grep -c . <<<"$OUT")" = 3 ] || fail "--watch --count 3 --json: $OUT"
python3 -c '
import json, sys
pid, gone = int(sys.argv[1]), int(sys.argv[2])
for line in sys.stdin:
    j = json.loads(line)
    assert j["format_version"] == 1 and isinstance(j["time"], (int, float)), j
    m = j["system"]["memory"]
    assert j["system"]["hugepage_bp"] == m["huge"] * 10000 // m["used"], j
    p, g = j["processes"]
    assert p["pid"] == pid and p["exists"] and p["anon_huge"] >= 32 << 20, p
    assert p["huge"] >= p["anon_huge"], p
    assert p["hugepage_bp"] == p["huge"] * 10000 // p["rss"], p
    assert g == {"pid": gone, "exists": False}, g
' "$HC_PID" "$gone" <<<"$OUT" || fail "--watch --json: $OUT"
expect_rc 0 "$D" report hugepage --pid "$HC_PID" --watch 100ms --count 2
[ "$(grep -cE "^ +[0-9.]+s .* pid $HC_PID: [0-9.]+ MiB huge of [0-9.]+ MiB \([0-9.]+%\)$" \
	<<<"$OUT")" = 2 ] || fail "--watch text: $OUT"

echo "ok: hot $(anon_huge_kb "$HC_PID" "$HOT") kB huge, cold $cold kB ($PROFILE)"
expect_rc 0 "$D" stop
