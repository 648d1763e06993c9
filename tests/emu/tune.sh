#!/bin/bash
# damonc tune: goal-only changes are staged and applied with commit_schemes_quota_goals,
# anything else with commit; the new values are read back from the tree.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
s=$ADMIN/kdamonds/0/contexts/0/schemes/0

expect_rc 0 "$D" start --pid "$target" --action stat --goal user_input=100 --quota-size 1GiB
: >"$EMU_LOG"
expect_rc 0 "$D" tune --goal user_input=250
grep -q "commit_schemes_quota_goals" <<<"$OUT" || fail "tune output: $OUT"
grep -q "target_value: 100 -> 250" <<<"$OUT" || fail "tune did not show the change: $OUT"
[ "$(cat "$s/quotas/goals/0/target_value")" = 250 ] || fail "target_value not staged"
# staged first, then the goal-only commit (damo commits without staging)
grep -n "target_value\|state" "$EMU_LOG" | head -n 2 | tr '\n' ' ' >"$SYSROOT/order"
grep -q "target_value.*state 'commit_schemes_quota_goals'" "$SYSROOT/order" ||
	fail "not staged then committed: $(cat "$SYSROOT/order")"
grep -q "state 'commit'" "$EMU_LOG" && fail "a goal-only change used a full commit"

# --dry-run, as text and as JSON: the writes and the command, nothing written
: >"$EMU_LOG"
expect_rc 0 "$D" tune --dry-run --json --min-size 8KiB
[ "$(json_get 'j["dry_run"] and j["writes"][-1]["value"]')" = commit ] || fail "dry run: $OUT"
[ "$(json_get 'j["writes"][0]["path"].endswith("access_pattern/sz/min")')" = True ] ||
	fail "dry run writes: $OUT"
expect_rc 0 "$D" tune --dry-run --min-size 8KiB
grep -q "dry run: nothing was written" <<<"$OUT" || fail "dry run: $OUT"
! grep -q '^W' "$EMU_LOG" || fail "a dry run wrote: $(cat "$EMU_LOG")"

: >"$EMU_LOG"
expect_rc 0 "$D" tune --min-size 8KiB --action pageout --json
[ "$(json_get 'j["committed"]')" = commit ] || fail "tune --json: $OUT"
[ "$(json_get 'len(j["changes"])')" = 2 ] || fail "tune --json changes: $OUT"
[ "$(cat "$s/action")" = pageout ] || fail "action not staged"
grep -q "state 'commit'" "$EMU_LOG" || fail "no commit written"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"

# nothing changes: nothing is written
: >"$EMU_LOG"
expect_rc 0 "$D" tune --action pageout
grep -q "nothing changes" <<<"$OUT" || fail "no-op tune: $OUT"
[ "$(grep -c '^W' "$EMU_LOG" || true)" = 0 ] || fail "a no-op tune wrote"

expect_rc 2 "$D" tune --scheme 3 --min-size 1MiB
grep -q "has 1 schemes" <<<"$ERR" || fail "bad --scheme: $ERR"
expect_rc 0 "$D" stop
echo "ok: tune on profile $PROFILE"
