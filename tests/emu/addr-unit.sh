#!/bin/bash
# --addr-unit (6.18: paddr counts addresses in units of addr_unit bytes): start writes the
# unit and the System RAM range in units, status gives sizes in bytes, a record holds bytes;
# a unit DAMON would refuse, one given to vaddr and one on a kernel without addr_unit are
# refused before anything is written (exit 2, exit 3), and tune leaves a running unit alone.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
k=$ADMIN/kdamonds/0
c=$k/contexts/0

# no_write WHAT: the emulator logged no write since the log was emptied
no_write() { ! grep -q '^W' "$EMU_LOG" || fail "$1 wrote: $(grep '^W' "$EMU_LOG")"; }

: >"$EMU_LOG"
expect_rc 2 "$D" start --pid "$target" --addr-unit 4096 --action stat
grep -q -- "--addr-unit: only --ops paddr" <<<"$ERR" || fail "vaddr with a unit: $ERR"
expect_rc 2 "$D" start --ops paddr --addr-unit 0 --action stat
grep -q -- "--addr-unit '0'" <<<"$ERR" || fail "a unit of 0: $ERR"
expect_rc 2 "$D" start --ops paddr --addr-unit lots --action stat
grep -q -- "--addr-unit.*lots" <<<"$ERR" || fail "a unit that is no size: $ERR"
no_write "a refused --addr-unit"

# as_before WHAT: no kdamond is left (on an empty tree, start makes one for a moment to
# see which files the kernel has)
as_before() { [ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 0 ] || fail "$1 left a kdamond"; }
case $PROFILE in 6.1 | 6.1[0-7]) unit=false ;; *) unit=true ;; esac
if ! $unit; then
	expect_rc 3 "$D" start --ops paddr --addr-unit 4096 --action stat
	grep -q "addr_unit.*6.18" <<<"$ERR" || fail "no word of the missing feature: $ERR"
	as_before "--addr-unit without addr_unit"
	echo "ok: --addr-unit refused on profile $PROFILE"
	exit 0
fi

# a page over the unit must be a power of 2 (the smallest region): 3 bytes is refused
expect_rc 2 "$D" start --ops paddr --addr-unit 3 --action stat
grep -q "addr_unit 3" <<<"$ERR" || fail "a unit of 3: $ERR"
as_before "--addr-unit 3"

# the biggest System RAM range, in bytes (what start monitors by default)
lo=0 hi=0
while IFS= read -r line; do
	[[ $line == [0-9a-f]*" : System RAM" ]] || continue	# top level only, as start
	range=${line%% *}
	a=$((16#${range%-*})) b=$((16#${range#*-} + 1))
	[ $((b - a)) -gt $((hi - lo)) ] && lo=$a hi=$b
done </proc/iomem
expect_rc 0 "$D" start --ops paddr --addr-unit 4096 --action stat --sample 5ms --aggr 20ms
[ "$(cat "$c/addr_unit")" = 4096 ] || fail "addr_unit reads $(cat "$c/addr_unit")"
s=$(cat "$c/targets/0/regions/0/start") e=$(cat "$c/targets/0/regions/0/end")
{ [ "$s" = $(((lo + 4095) / 4096)) ] && [ "$e" = $((hi / 4096)) ]; } ||
	fail "the region [$s, $e) is not System RAM [$lo, $hi) in pages"
expect_rc 0 "$D" status
grep -q "addresses in units of 4096 bytes" <<<"$OUT" || fail "status: no unit: $OUT"
gib=$(((e - s) * 4096 >> 30))
grep -qE "target 0: regions 0x[0-9a-f]+-0x[0-9a-f]+ \\(${gib}(\\.[0-9]+)? GiB\\)" <<<"$OUT" ||
	fail "status does not size the region in bytes (about $gib GiB): $OUT"
expect_rc 0 "$D" --json status
[ "$(json_get 'j["kdamonds"][0]["contexts"][0]["addr_unit"]')" = 4096 ] || fail "status --json: $OUT"
# a running context keeps its unit: tune has no --addr-unit
expect_rc 2 "$D" tune --addr-unit 1
expect_rc 0 "$D" stop

# a record: DAMON's regions in pages, the record's in bytes
rec=$SYSROOT/au.rec
expect_rc 0 "$D" record --ops paddr --addr-unit 4096 --sample 5ms --aggr 20ms --count 2 \
	--interval 100ms -o "$rec"
expect_rc 0 "$D" --json report access -i "$rec" --sort address
first=$(json_get 'j["regions"][0]["start"]')
total=$(json_get 'j["snapshot"]["total_bytes"]')
{ [ "$first" -ge "$lo" ] && [ "$first" -lt $((lo + 4096)) ]; } ||
	fail "the record's first region starts at $first, not at System RAM's $lo (bytes)"
[ "$total" = $((e * 4096 - s * 4096)) ] || fail "the record monitored $total bytes, not $(((e - s) * 4096))"
echo "ok: --addr-unit on profile $PROFILE"
