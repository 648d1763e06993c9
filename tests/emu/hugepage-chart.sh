#!/bin/bash
# damonc report hugepage --watch ... --format png|svg: the system's ratio, the process's and
# the goal of the collapse scheme over time, as a chart a person reads alone (three lines:
# tests/lib/picture-check), while the agent works towards the goal; and the same samples as
# JSON Lines (schema-checked by $D).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
check=$(dirname "$0")/../lib/picture-check
emu_with_scenario "$PROFILE"
start_hotcold --hot 32M --cold 32M
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 2000 --goal-scope pid

expect_rc 0 "$D" report hugepage --pid "$HC_PID" --watch 200ms --count 10 -o "$SYSROOT/hp.png"
expect_rc 0 "$D" report hugepage --pid "$HC_PID" --watch 200ms --count 10 --format svg \
	-o "$SYSROOT/hp.svg"
python3 "$check" series --lines 3 "$SYSROOT/hp.png" "$SYSROOT/hp.svg" ||
	fail "the chart does not show the system, the process and the goal"
# the same to stdout (not a terminal here)
expect_rc 0 "$D" report hugepage --watch 100ms --count 3 --format svg
[[ $OUT == *"<svg"* ]] || fail "--format svg without -o did not write the SVG to stdout"
# the samples as JSON Lines: the process's ratio in each
expect_rc 0 "$D" --json report hugepage --pid "$HC_PID" --watch 100ms --count 3
[ "$(grep -c '"hugepage_bp"' <<<"$OUT")" = 3 ] || fail "not 3 JSON lines: $OUT"
# a chart is of --watch's samples, not of one report, and has no JSON form
expect_rc 2 "$D" report hugepage --format png -o "$SYSROOT/x.png"
expect_rc 2 "$D" --json report hugepage --watch 100ms --count 2 -o "$SYSROOT/x.svg"
expect_rc 2 "$D" report hugepage --watch 100ms --count 2 -o "$SYSROOT/x.txt"
if [ -e "$SYSROOT/x.png" ] || [ -e "$SYSROOT/x.svg" ]; then fail "a refused chart left a file"; fi
expect_rc 0 "$D" stop
echo "ok: report hugepage draws its samples with the goal ($PROFILE)"
