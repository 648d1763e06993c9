#!/bin/bash
# A journey: kdamonds another tool started, their tree written as damo writes it (damo 3.3's
# own writes, replayed: two kdamonds, refresh_ms 0, the first with an intervals goal), then
# looked at as a person looks:
#   - status says whose they are, and that their stats and tuned intervals are as of their
#     last update (the kernel does not refresh them: no "0 snapshots" taken for a figure);
#   - status --refresh asks the kernel: the stats and intervals are current (and the
#     intervals DAMON tuned, said so);
#   - a record of one (--allow-foreign) reports;
#   - damonc stop leaves both running, as they were; start is refused while they run, as
#     its dry run says; named with --kdamond they stop, and damo's own report of them
#     (`damo report damon --format json`) starts again with start -c.
#   foreign.sh PROFILE
set -euo pipefail
# shellcheck source=../emu/common.sh
source "$(dirname "$0")/../emu/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
FIX=$(dirname "$0")/../fixtures/damo

# damo_replay LOG: damo's writes, each to a file this kernel has (damo writes no other)
damo_replay() {
	local path value
	while read -r _ path value _; do
		value=${value#\'}
		value=${value%\'}
		value=${value//@TARGET@/$target}
		[ -e "$ADMIN/$path" ] || continue
		printf '%s' "$value" >"$ADMIN/$path"
	done <"$1"
}
damo_replay "$FIX/damo-start-2-kdamonds.log"
[ "$(kdamond_state 0)$(kdamond_state 1)" = onon ] || fail "damo's kdamonds do not run"
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective -e /state -e \
	intervals/sample_us -e intervals/aggr_us; }
before=$(config)
tuning=false
emu_profile_since "$PROFILE" 6.15 && tuning=true

# read: whose they are, and how old their figures are
expect_rc 0 "$D" status
[ "$(grep -c "not started by damonc" <<<"$OUT")" = 2 ] || fail "status: $OUT"
[ "$(grep -c "as of their last update: the kernel does not refresh them" <<<"$OUT")" = 2 ] ||
	fail "status does not say the stats are old: $OUT"
! $tuning || grep -q "(as set: DAMON tunes them" <<<"$OUT" || fail "status: intervals: $OUT"
expect_rc 0 "$D" --json status
[ "$(json_get '[k["stats_current"] for k in j["kdamonds"]]')" = "[False, False]" ] ||
	fail "status --json: stats_current: $OUT"

# refreshed: the kernel asked, the figures current, the tuned intervals said so
expect_rc 0 "$D" status --refresh
! grep -q "as of their last update" <<<"$OUT" || fail "status --refresh: $OUT"
! $tuning || grep -q "(as DAMON tuned them)" <<<"$OUT" || fail "status --refresh: intervals: $OUT"
expect_rc 0 "$D" --json status --refresh
[ "$(json_get '[k["stats_current"] for k in j["kdamonds"]]')" = "[True, True]" ] ||
	fail "status --refresh --json: $OUT"

# reported: a record of kdamond 0, written to only as the person agreed (--allow-foreign)
if [ "$PROFILE" = 6.1 ]; then
	expect_rc 3 "$D" record --kdamond 0 --allow-foreign --count 1 -o "$SYSROOT/f.rec"
else
	expect_rc 2 "$D" record --kdamond 0 --count 1 -o "$SYSROOT/f.rec"
	grep -q "not started by damonc" <<<"$ERR" || fail "record without --allow-foreign: $ERR"
	expect_rc 0 "$D" record --kdamond 0 --allow-foreign --count 2 -o "$SYSROOT/f.rec"
	expect_rc 0 "$D" report wss -i "$SYSROOT/f.rec"
fi

# left alone: stop stops nothing of theirs; a start is refused while they run, its dry run
# alike
expect_rc 0 "$D" stop
grep -q "no kdamond started by damonc is running" <<<"$ERR" || fail "stop: $ERR"
[ "$(kdamond_state 0)$(kdamond_state 1)" = onon ] || fail "stop stopped another tool's kdamond"
[ "$(config)" = "$before" ] ||
	fail "their configuration changed: $(diff <(echo "$before") <(config) || true)"
expect_rc 4 "$D" start --pid "$target" --action stat --dry-run
expect_rc 4 "$D" start --pid "$target" --action stat
grep -q "kdamond 0 is running (not started by damonc)" <<<"$ERR" || fail "busy start: $ERR"

# named, they stop; damo's report of them starts again (7.2 and next: its goal tuner)
expect_rc 0 "$D" stop --kdamond 0 --kdamond 1
grep -q "kdamond 1: stopped (not started by damonc)" <<<"$OUT" || fail "stop --kdamond: $OUT"
if emu_profile_since "$PROFILE" 7.1; then
	sed "s/\"pid\": 26763/\"pid\": $target/" "$FIX/damo-report-damon-7.2.json" >"$SYSROOT/r.json"
	expect_rc 0 "$D" start -c "$SYSROOT/r.json"
	grep -q "started kdamond 2 " <<<"$OUT" || fail "start -c of damo's report: $OUT"
	grep -q "note: kdamond 0 (not started by damonc, off) keeps its configuration" <<<"$ERR" ||
		fail "start -c: the note on damo's stopped kdamonds: $ERR"
	[ "$(cat "$ADMIN/kdamonds/2/contexts/0/schemes/0/quotas/goal_tuner")" = temporal ] ||
		fail "damo's goal tuner lost"
	expect_rc 0 "$D" stop
fi
echo "ok: another tool's kdamonds read, refreshed, reported and left alone on $PROFILE"
