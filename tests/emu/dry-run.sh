#!/bin/bash
# start --dry-run prints the configuration and the writes and makes none; its JSON is a
# configuration that start -c - takes back.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

before=$(emu_dump)
expect_rc 0 "$D" start --dry-run --pid "$target" --action stat --min-size 2MiB
grep -q "kdamonds/nr_kdamonds <= 1" <<<"$OUT" || fail "dry run output: $OUT"
grep -q "dry run: nothing was written" <<<"$OUT" || fail "dry run output: $OUT"
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action stat --min-size 2MiB
config=$OUT
[ "$(json_get 'j["format_version"]')" = 1 ] || fail "no format_version"
[ "$(json_get 'j["writes"][-1]["value"]')" = on ] || fail "the last write is not on"
[ "$(json_get 'j["kdamonds"][0]["contexts"][0]["schemes"][0]["access_pattern"]["sz"]["min"]')" \
	= 2097152 ] || fail "sz min in JSON"
[ "$(grep -c '^W' "$EMU_LOG" || true)" = 0 ] || fail "the dry runs wrote"
[ "$(emu_dump)" = "$before" ] || fail "the tree changed"

# A huge-page goal: the dry run lists the writes the real start makes (no released kernel
# has hugepage_mem_bp: a user_input goal the agent feeds, an observer, the budget's filter)
expect_rc 0 "$D" start --dry-run --pid "$target" --action collapse --goal-bp 500
grep -q "goals/0/target_value <= 500" <<<"$OUT" || fail "dry run goal: $OUT"
grep -q "goal 0: user_input target 500" <<<"$OUT" || fail "dry run goal metric: $OUT"
! grep -q "<= hugepage_mem_bp" <<<"$OUT" || fail "the dry run writes a metric start would not: $OUT"
grep -q "cannot be told without writing" <<<"$ERR" || fail "dry run note: $ERR"
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action collapse --goal-bp 500
[ "$(json_get 'len(j["fallbacks"])')" = 2 ] || fail "dry run fallbacks: $OUT"
[ "$(grep -c '^W' "$EMU_LOG" || true)" = 0 ] || fail "the dry runs wrote"

expect_rc 0 "$D" start -c - <<<"$config"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "start -c - did not start"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" = 2097152 ] ||
	fail "start -c - lost the size"
expect_rc 0 "$D" stop
echo "ok: dry run on profile $PROFILE"
