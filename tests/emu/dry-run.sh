#!/bin/bash
# start --dry-run is the start's plan: the same checks and exit status, and the same writes.
# What no directory shows (a fresh tree) the dry run probes as the start does, on a
# temporary kdamond removed again, and lists those writes too; it starts nothing, and its
# JSON is a configuration that start -c - takes back. A dry run while a kdamond runs is
# refused as the start is (exit 4).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
CMP=$(dirname "$0")/../lib/start-writes

# dry_then_start ARGS...: the dry run (JSON) and then the start, each in the background for
# its pid; their writes compared in damon-emu's log, and their exit statuses
dry_then_start() {
	local dry real rc_dry=0 rc_real=0
	"${DAMONC_REAL:-$D}" start --dry-run --json "$@" >"$SYSROOT/dry.json" 2>/dev/null &
	dry=$!
	wait "$dry" || rc_dry=$?
	"${DAMONC_REAL:-$D}" start "$@" >/dev/null 2>&1 &
	real=$!
	wait "$real" || rc_real=$?
	[ "$rc_dry" = "$rc_real" ] || fail "start $*: the dry run exited $rc_dry, the start $rc_real"
	"$CMP" "$EMU_LOG" "$dry" "$SYSROOT/dry.json" "$real" || fail "start $*: writes differ"
}

before=$(emu_dump)
expect_rc 0 "$D" start --dry-run --pid "$target" --action stat --min-size 2MiB
grep -q "^  kdamonds/nr_kdamonds <= 1" <<<"$OUT" || fail "dry run output: $OUT"
# a fresh tree shows no kdamond directory: the operations sets are probed
grep -q "^  probe: kdamonds/nr_kdamonds <= 1" <<<"$OUT" || fail "dry run's probe: $OUT"
grep -q "dry run: nothing was started; the probe's writes" <<<"$OUT" || fail "dry run: $OUT"
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action stat --min-size 2MiB
config=$OUT
[ "$(json_get 'j["format_version"]')" = 1 ] || fail "no format_version"
[ "$(json_get 'j["writes"][-1]["value"]')" = on ] || fail "the last write is not on"
[ "$(json_get 'j["writes"][0].get("probe")')" = True ] || fail "the probe's writes not flagged"
[ "$(json_get 'j["kdamonds"][0]["contexts"][0]["schemes"][0]["access_pattern"]["sz"]["min"]')" \
	= 2097152 ] || fail "sz min in JSON"
[ "$(emu_dump)" = "$before" ] || fail "the tree changed"
# what the dry runs wrote is their probes' and nothing else: the state files never
! grep -q "^W kdamonds/[0-9]*/state " "$EMU_LOG" || fail "a dry run wrote a state"

# A huge-page goal: the dry run lists the writes the real start makes (no released kernel
# has hugepage_mem_bp: a user_input goal the agent feeds, an observer, the budget's filter)
expect_rc 0 "$D" start --dry-run --pid "$target" --action collapse --goal-bp 500
grep -q "goals/0/target_value <= 500" <<<"$OUT" || fail "dry run goal: $OUT"
grep -q "goal 0: user_input target 500" <<<"$OUT" || fail "dry run goal metric: $OUT"
! grep -q "^  kdamonds.*<= hugepage_mem_bp" <<<"$OUT" || fail "the dry run writes a metric start would not: $OUT"
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action collapse --goal-bp 500
[ "$(json_get 'len(j["fallbacks"])')" = 2 ] || fail "dry run fallbacks: $OUT"
[ "$(emu_dump)" = "$before" ] || fail "the tree changed"

# the dry run and the start: the same exit status and the same writes, probe included
dry_then_start --pid "$target" --action stat --min-size 2MiB
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the start did not start"
# now a kdamond runs: the dry run is refused as the start is
expect_rc 4 "$D" start --dry-run --pid "$target" --action pageout
grep -q "kdamond 0 is running" <<<"$ERR" || fail "busy dry run: $ERR"
dry_then_start --pid "$target" --action pageout
expect_rc 0 "$D" stop

# kdamond 0 is damonc's and stopped: the start stages over it, no probe
dry_then_start --pid "$target" --action collapse --goal-bp 500
expect_rc 0 "$D" stop
expect_rc 0 "$D" start -c - <<<"$config"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "start -c - did not start"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" = 2097152 ] ||
	fail "start -c - lost the size"
expect_rc 0 "$D" stop
echo "ok: dry run on profile $PROFILE"
