#!/bin/bash
# tune's online commit (libdamonctl's commit transaction), full and goals only: a failure at
# any write, the commit command included, leaves the staged files as the running kdamond
# has them, so a later commit cannot apply half of this one.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

set_faults() {
	echo "$1" >"$EMU_FAULTS.new"
	mv "$EMU_FAULTS.new" "$EMU_FAULTS"
}
args=(start --pid "$target" --action stat --min-size 8KiB --quota-size 1MiB --quota-reset 1s
	--goal user_input=100)
# tune: the library's commit transaction undoes its staging. The kernel refreshes results
# (refresh_ms): compare what is staged and whether it runs, not the stats.
config_dump() { emu_dump | grep -vE '/(stats|tried_regions)/|/effective_bytes = '; }
expect_rc 0 "$D" "${args[@]}"
running=$(config_dump)
for targs in "--min-size 16KiB --quota-size 2MiB" "--goal user_input=200"; do
	read -ra ta <<<"$targs"
	: >"$EMU_LOG"
	expect_rc 0 "$D" tune --dry-run "${ta[@]}"
	n=$(grep -c ' <= ' <<<"$OUT")
	[ "$n" -ge 2 ] || fail "tune ${ta[*]}: only $n writes planned: $OUT"
	for ((k = 1; k <= n; k++)); do
		set_faults "nth=$k errno=EIO"
		rc=0
		"$D" tune "${ta[@]}" >/dev/null 2>"$SYSROOT/err" || rc=$?
		set_faults ""
		[ "$rc" != 0 ] || fail "tune ${ta[*]}: write $k of $n failed, yet tune succeeded"
		after=$(config_dump)
		if [ "$after" != "$running" ]; then
			diff <(echo "$running") <(echo "$after") >&2 || true
			cat "$SYSROOT/err" >&2
			fail "tune ${ta[*]}: the tree changed when write $k of $n failed"
		fi
	done
	echo "ok: tune ${ta[*]}: $n failure points, staged files put back each time"
done
expect_rc 0 "$D" stop
