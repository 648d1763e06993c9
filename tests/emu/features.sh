#!/bin/bash
# damonc features on each profile, from the tree alone, once kdamond directories exist.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_setup "$PROFILE"
A=$ADMIN/kdamonds
# a tree like one a user left behind: one kdamond, context, scheme, target (no writes by damonc)
echo 1 >"$A/nr_kdamonds"
echo 1 >"$A/0/contexts/nr_contexts"
echo 1 >"$A/0/contexts/0/schemes/nr_schemes"
echo 1 >"$A/0/contexts/0/targets/nr_targets"
[ -e "$A/0/contexts/0/schemes/0/quotas/goals/nr_goals" ] &&
	echo 1 >"$A/0/contexts/0/schemes/0/quotas/goals/nr_goals"
: >"$EMU_LOG"
expect_rc 0 "$D" features --json
[ "$(grep -c '^W' "$EMU_LOG" || true)" = 0 ] || fail "features wrote"
has() { json_get "j['features']['$1']['supported']"; }
case $PROFILE in
6.1) want="tried_regions=False filters=False quota_goals=False action_collapse=False" ;;
6.12) want="tried_regions=True quota_goals=True goal_metrics=True action_collapse=False goal_tuner=False" ;;
6.18) want="addr_unit=True obsolete_target=False action_collapse=False" ;;
7.2 | 7.3) want="action_collapse=True goal_tuner=True pause=True hugepage_mem_bp=None" ;;
next) want="action_collapse=True goal_tuner=True hugepage_mem_bp=None" ;;
esac
for pair in $want; do
	got=$(has "${pair%=*}")
	[ "$got" = "${pair#*=}" ] || fail "$PROFILE: ${pair%=*} is $got, expected ${pair#*=}"
done

# A fresh tree that no module parameter dates (the README's emulator recipe): little is
# known; --probe tells the rest on a temporary kdamond (the tree as it was), kept for this
# boot, so that the next features says it (marked *) and a start need not probe again
emu_reset
rm -rf "$EMU_MODULES" "$SYSROOT/run/damonc"
before=$(emu_dump)
expect_rc 0 "$D" features --json
[ "$(json_get 'sum(v["supported"] is None for v in j["features"].values())')" -gt 10 ] ||
	fail "a fresh tree: $OUT"
expect_rc 0 "$D" features
grep -q "'damonc features --probe' probes it now" <<<"$OUT" || fail "features, the hint: $OUT"
expect_rc 0 "$D" features --probe
[ "$(emu_dump)" = "$before" ] || fail "--probe left the tree changed"
expect_rc 0 "$D" features --json
[ "$(json_get '[k for k, v in j["features"].items() if v["supported"] is None]')" = "[]" ] ||
	fail "unknown after --probe: $OUT"
[ "$(json_get 'j["features"]["ops_vaddr"].get("probed")')" = True ] || fail "not marked probed: $OUT"
expect_rc 0 "$D" features
grep -qE "^  (yes|no)\* +ops_vaddr " <<<"$OUT" || fail "not marked * in the text: $OUT"
sleep 600 &
t=$!
expect_rc 0 "$D" start --dry-run --pid "$t" --action stat
! grep -q "probe:" <<<"$OUT" || fail "a start probes again after --probe: $OUT"
kill "$t"
echo "ok: features of profile $PROFILE: $want"
