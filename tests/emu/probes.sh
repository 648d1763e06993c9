#!/bin/bash
# --probe (7.2 access probes): start writes each probe's filters, status shows the probes
# and, with --regions, each tried region's hits (JSON probe_hits, numbers); a fifth probe or
# a bad filter exits 2 and a kernel without probes exits 3, both writing nothing.
#
#   probes.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
W=$(mktemp -d "${TMPDIR:-/tmp}/damonc-probes.XXXXXX")
# the memcg probe filter names /workload.slice: a cgroup hierarchy that has it
mkdir -p "$W/cgroup/workload.slice"
echo 0 >"$W/cgroup/workload.slice/memory.current"
emu_setup "$PROFILE" --cgroup-root "$W/cgroup"
sleep 600 &
target=$!
trap 'kill $target 2>/dev/null || true; rm -rf "$W"; emu_cleanup' EXIT
# someone's stopped kdamond: its directories tell which kernel this is, so that no feature
# needs probing by writes, and a refusal must leave it alone
foreign_kdamond

# refused WANT FRAGMENT ARGS...: start exits WANT naming FRAGMENT, and writes nothing
refused() {
	local want=$1 frag=$2 before
	shift 2
	before=$(emu_dump)
	: >"$EMU_LOG"
	expect_rc "$want" "$D" start --pid "$target" --action stat "$@"
	grep -qF -- "$frag" <<<"$ERR" || fail "start $*: no '$frag' in: $ERR"
	! grep -q '^W' "$EMU_LOG" || fail "start $* wrote: $(grep '^W' "$EMU_LOG" | head -n 3)"
	[ "$(emu_dump)" = "$before" ] || fail "start $* changed the tree"
}

if ! emu_profile_since "$PROFILE" 7.2; then
	refused 3 "needs access probes, which arrived in Linux 7.2" --probe allow:anon
	echo "ok: probes refused on profile $PROFILE: $ERR"
	exit 0
fi

refused 2 "--probe 'allow:young': unknown type 'young' (anon or memcg)" --probe allow:young
refused 2 "--probe 'anon': expected allow:TYPE or reject:TYPE" --probe anon
refused 2 "--probe 'allow:anon;allow:memcg': memcg needs a path" --probe 'allow:anon;allow:memcg'
refused 2 "--probe 'allow:anon': at most 4 probes" --probe allow:anon --probe allow:anon \
	--probe allow:anon --probe allow:anon --probe allow:anon
refused 2 "-c takes the whole configuration" -c /dev/null --probe allow:anon

expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 20ms \
	--probe allow:anon --probe 'reject:!memcg:/workload.slice;allow:anon' --probe all
k=$ADMIN/kdamonds/1
[ "$(kdamond_state 1)" = on ] || fail "kdamond 1 is $(kdamond_state 1)"
pr=$k/contexts/0/monitoring_attrs/probes
want="nr_probes=3
0/filters/nr_filters=1 0/filters/0/type=anon 0/filters/0/matching=Y 0/filters/0/allow=Y
1/filters/nr_filters=2 1/filters/0/type=memcg 1/filters/0/matching=N 1/filters/0/allow=N
1/filters/0/path=/workload.slice 1/filters/1/type=anon 1/filters/1/matching=Y
1/filters/1/allow=Y 2/filters/nr_filters=0"
for f in $want; do
	[ "$(cat "$pr/${f%%=*}")" = "${f#*=}" ] || fail "$pr/${f%%=*} holds $(cat "$pr/${f%%=*}"), not ${f#*=}"
done

expect_rc 0 "$D" status --kdamond 1
grep -qF "probe 0: allow anon" <<<"$OUT" || fail "status: $OUT"
grep -qF "probe 1: reject non-memcg /workload.slice; allow anon" <<<"$OUT" || fail "status: $OUT"
grep -qF "probe 2: all memory" <<<"$OUT" || fail "status: $OUT"
expect_rc 0 "$D" status --json --kdamond 1
jq -e '.kdamonds[0].contexts[0].monitoring_attrs.probes | length == 3 and
	.[1].filters[0].path == "/workload.slice" and .[1].filters[0].matching == false and
	.[2].filters == []' <<<"$OUT" >/dev/null || fail "status --json: $OUT"

# the kernel fills the tried regions on command; every region has one hit count per probe
sch=$k/contexts/0/schemes/0
tried() { echo update_schemes_tried_regions >"$k/state" 2>/dev/null && [ -d "$sch/tried_regions/0" ]; }
wait_until 20 tried
expect_rc 0 "$D" status --regions --json --kdamond 1
jq -e '[.kdamonds[0].contexts[0].schemes[0].tried_regions.regions[]] |
	length > 0 and all(.probe_hits | length == 3 and all(type == "number")) and
	all(has("probes") | not)' <<<"$OUT" >/dev/null || fail "status --regions --json: $OUT"
expect_rc 0 "$D" status --regions --kdamond 1
grep -qE "^        0: 0x[0-9a-f]+-0x[0-9a-f]+ .* probe hits [0-9]+,[0-9]+,[0-9]+$" <<<"$OUT" ||
	fail "status --regions: $OUT"
expect_rc 0 "$D" stop
echo "ok: probes on profile $PROFILE"
