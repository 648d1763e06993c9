#!/bin/bash
# A start that fails at any write leaves the tree exactly as it was: make the k-th write
# fail, for every k that start makes, and compare the whole tree before and after.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

# someone's stopped kdamond with a configuration of its own: it must survive too
foreign_kdamond
before=$(emu_dump)

args=(start --pid "$target" --action stat --min-size 8KiB --quota-size 1MiB --quota-reset 1s
	--goal user_input=100)
# How many writes does a successful start make? (probe writes included)
: >"$EMU_LOG"
expect_rc 0 "$D" "${args[@]}"
total=$(grep -c '^W' "$EMU_LOG")
[ "$total" -gt 5 ] || fail "only $total writes?"
expect_rc 0 "$D" stop --all
emu_reset
foreign_kdamond
[ "$(emu_dump)" = "$before" ] || fail "the reset tree differs"
rm -rf "$SYSROOT/run/damonc"

# A new file each time (rename): damon-emu reloads the rules when the file changes, and
# two same-sized writes within one coarse timestamp tick look unchanged.
set_faults() {
	echo "$1" >"$EMU_FAULTS.new"
	mv "$EMU_FAULTS.new" "$EMU_FAULTS"
}
for ((k = 1; k <= total; k++)); do
	set_faults "nth=$k errno=EIO"
	rc=0
	"$D" "${args[@]}" >/dev/null 2>"$SYSROOT/err" || rc=$?
	set_faults ""	# no faults while comparing
	[ "$rc" != 0 ] || fail "write $k of $total failed, yet start succeeded"
	grep -q "Input/output error" "$SYSROOT/err" || fail "write $k: $(cat "$SYSROOT/err")"
	after=$(emu_dump)
	if [ "$after" != "$before" ]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		cat "$SYSROOT/err" >&2
		fail "the tree changed when write $k of $total failed"
	fi
done
echo "ok: $total failure points, the tree was left as it was each time ($PROFILE)"

