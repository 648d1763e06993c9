#!/bin/bash
# Several schemes from one command line: each --action begins a scheme, the scheme options
# after it are that scheme's (those before the first --action the first scheme's), context
# options are the kdamond's. Checked in the dry run (text and JSON), in the tree the start
# writes, in `status --json` and with `tune --scheme`; bad input (a scheme option given twice
# for one scheme, too many schemes, two schemes that need the agent) exits 2 and changes
# nothing.
#
#   multi-scheme.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

# expect_file I PATH VALUE: scheme I's file PATH holds VALUE in $TREE (one emu_dump: a read
# of each file through FUSE is slow on a loaded machine)
expect_file() {
	local line
	line=$(grep -F " kdamonds/0/contexts/0/schemes/$1/$2 = " <<<"$TREE") ||
		fail "scheme $1 has no $2"
	[ "${line#* = }" = "$3|" ] || fail "scheme $1: $2 is '${line#* = }', expected '$3'"
}

# --- bad input: exit 2, the option named, nothing written ---------------------------------
before=$(emu_dump)
writes=$(grep -c '^W' "$EMU_LOG" || true)
# expect_bad FRAGMENT ARGS...: `start --pid T ARGS` exits 2 saying FRAGMENT, writes nothing
expect_bad() {
	local frag=$1
	shift
	expect_rc 2 "$D" start --pid "$target" "$@"
	grep -qF -- "$frag" <<<"$ERR" || fail "'start $*': the message lacks '$frag': $ERR"
	[ "$(grep -c '^W' "$EMU_LOG" || true)" = "$writes" ] || fail "'start $*' wrote"
	[ "$(emu_dump)" = "$before" ] || fail "'start $*' changed the tree"
}
expect_bad "--min-size '8KiB': given twice for one scheme" \
	--action pageout --min-size 4KiB --min-size 8KiB
# before the first --action is the first scheme's too
expect_bad "--min-size '8KiB': given twice for one scheme" \
	--min-size 4KiB --action pageout --min-size 8KiB
expect_bad "--quota-size '2MiB': given twice for scheme 1 (the one begun by --action stat)" \
	--action pageout --quota-size 1MiB --action stat --quota-size 1MiB --quota-size 2MiB
expect_bad "--wmarks 'none': given twice for scheme 2" \
	--action pageout --action stat --action collapse --wmarks none --wmarks none
eight=()
for _ in 1 2 3 4 5 6 7 8; do eight+=(--action stat); done
expect_bad "at most 8 schemes on one command line" "${eight[@]}" --action pageout
expect_bad "which action?" --min-size 4KiB
# the agent serves one scheme per kdamond (no released kernel has hugepage_mem_bp: each
# goal is the agent's to measure). Whether the kernel has it a fresh tree does not show: the
# start, and its dry run alike, probe before they can say so (writes undone, no state)
expect_rc 2 "$D" start --pid "$target" --dry-run --action collapse --goal-bp 500 \
	--action collapse --goal-bp 300
grep -qF "schemes 0 and 1 both need the damonc agent" <<<"$ERR" || fail "two agent schemes: $ERR"
! grep -q "^W kdamonds/[0-9]*/state " "$EMU_LOG" || fail "two agent schemes: a state written"
[ "$(emu_dump)" = "$before" ] || fail "two agent schemes: the tree changed"
writes=$(grep -c '^W' "$EMU_LOG" || true)
expect_rc 2 "$D" tune --scheme 0 --action stat --action pageout
grep -qF "changes one scheme, and --action was given twice" <<<"$ERR" || fail "tune: $ERR"
# repeatable options stay repeatable for one scheme
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action stat --filter allow:anon \
	--filter reject:young --goal-bp 300 --goal some_mem_psi_us=1ms --action pageout
# filters and goals of each scheme
[ "$(json_get '[(len(s["ops_filters"]), len(s["quotas"]["goals"]))
		for s in j["kdamonds"][0]["contexts"][0]["schemes"]]')" = "[(2, 2), (0, 0)]" ] ||
	fail "two filters and goals for scheme 0, none for scheme 1: $OUT"
# one scheme that needs the agent beside others is fine
expect_rc 0 "$D" start --dry-run --json --pid "$target" --action pageout \
	--action collapse --goal-bp 500
[ "$(json_get 'sorted({f["scheme"] for f in j["fallbacks"] if f["kind"] == "hugepage_mem_bp"})')" \
	= "[1]" ] || fail "the agent's goal is not scheme 1's: $OUT"
# a dry run writes what its start would probe (a fresh tree), never a state, and leaves the
# tree as it was
! grep -q "^W kdamonds/[0-9]*/state " "$EMU_LOG" || fail "a dry run wrote a state"
[ "$(emu_dump)" = "$before" ] || fail "the dry runs changed the tree"

# --- two schemes: collapse the hot, page out the cold ---------------------------------------
# shellcheck disable=SC2054 # the commas are inside values (MIN%,MAX%)
two=(--pid "$target" --aggr 200ms --action collapse --access-rate 50% --min-age 2s
     --quota-time 50ms --action pageout --access-rate 0,0 --min-age 10s --quota-size 64MiB
     --apply-interval 1s --sample 10ms)
expect_rc 0 "$D" start --dry-run "${two[@]}"
for w in "schemes/nr_schemes <= 2" "schemes/0/action <= collapse" "schemes/1/action <= pageout" \
	 "schemes/0/quotas/ms <= 50" "schemes/1/quotas/bytes <= 67108864" \
	 "schemes/1/apply_interval_us <= 1000000" "monitoring_attrs/intervals/sample_us <= 10000" \
	 "kdamonds/0/state <= on"; do
	grep -qF "$w" <<<"$OUT" || fail "dry run lacks '$w': $OUT"
done
grep -qF "schemes/0/apply_interval_us" <<<"$OUT" && fail "scheme 0 took scheme 1's apply interval"
expect_rc 0 "$D" start --dry-run --json "${two[@]}"
[ "$(json_get '([s["action"] for s in j["kdamonds"][0]["contexts"][0]["schemes"]],
		[w["value"] for w in j["writes"] if w["path"].endswith("/action")])')" = \
	"(['collapse', 'pageout'], ['collapse', 'pageout'])" ] || fail "dry run JSON: $OUT"
[ "$(emu_dump)" = "$before" ] || fail "the dry runs changed the tree"

expect_rc 0 "$D" start "${two[@]}"
TREE=$(emu_dump)
grep -qF " kdamonds/0/state = on|" <<<"$TREE" || fail "not started"
grep -qF " kdamonds/0/contexts/0/schemes/nr_schemes = 2|" <<<"$TREE" || fail "not 2 schemes"
# ages count aggregations of 200 ms; 50% of 20 samples is 10 accesses
expect_file 0 action collapse
expect_file 0 access_pattern/nr_accesses/min 10
expect_file 0 access_pattern/age/min 10
expect_file 0 quotas/ms 50
expect_file 0 quotas/bytes 0
expect_file 0 apply_interval_us 0
expect_file 1 action pageout
expect_file 1 access_pattern/nr_accesses/max 0
expect_file 1 access_pattern/age/min 50
expect_file 1 quotas/ms 0
expect_file 1 quotas/bytes 67108864
expect_file 1 apply_interval_us 1000000
grep -qF " kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us = 10000|" <<<"$TREE" ||
	fail "--sample after the second --action is the context's"
expect_rc 0 "$D" status --json
[ "$(json_get '[(s["action"], s["quotas"]["bytes"])
		for s in j["kdamonds"][0]["contexts"][0]["schemes"]]')" = \
	"[('collapse', 0), ('pageout', 67108864)]" ] || fail "status --json schemes: $OUT"
# tune changes the scheme --scheme names, and only that one
expect_rc 2 "$D" tune --quota-size 32MiB
grep -qF "choose one with --scheme" <<<"$ERR" || fail "tune without --scheme: $ERR"
expect_rc 0 "$D" tune --scheme 1 --quota-size 32MiB
TREE=$(emu_dump)
expect_file 1 quotas/bytes 33554432
expect_file 0 quotas/bytes 0
expect_rc 0 "$D" stop

# --- three schemes, filters and watermarks of their own ----------------------------------------
expect_rc 0 "$D" start --pid "$target" --min-size 8KiB --action pageout --access-rate 0,0 \
	--filter reject:young --action stat --wmarks free_mem_rate,1s,900,500,100 \
	--action collapse --max-size 1GiB --quota-time 20ms --quota-reset 500ms
TREE=$(emu_dump)
grep -qF " kdamonds/0/contexts/0/schemes/nr_schemes = 3|" <<<"$TREE" || fail "not 3 schemes"
expect_file 0 action pageout
expect_file 0 access_pattern/sz/min 8192
expect_file 0 ops_filters/nr_filters 1
expect_file 0 ops_filters/0/type young
expect_file 0 watermarks/metric none
expect_file 1 action stat
expect_file 1 access_pattern/sz/min 0
expect_file 1 ops_filters/nr_filters 0
expect_file 1 watermarks/metric free_mem_rate
expect_file 1 watermarks/high 900
expect_file 2 action collapse
expect_file 2 access_pattern/sz/min 2097152
expect_file 2 access_pattern/sz/max 1073741824
expect_file 2 quotas/ms 20
expect_file 2 quotas/reset_interval_ms 500
expect_file 2 watermarks/metric none
expect_rc 0 "$D" status --json
[ "$(json_get '[(s["action"], s["quotas"]["reset_interval_ms"])
		for s in j["kdamonds"][0]["contexts"][0]["schemes"]]')" = \
	"[('pageout', 0), ('stat', 0), ('collapse', 500)]" ] || fail "status --json schemes: $OUT"
expect_rc 0 "$D" stop
echo "ok: several schemes on profile $PROFILE"
