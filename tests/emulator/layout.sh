#!/bin/bash
# A fresh emulator tree, populated the way the fixture's kernel tree was, must print exactly
# like the fixture (tests/fixtures/kernel-trees/):
#   layout.sh PROFILE FIXTURE
# FIXTURE is one of 6.1-layout.txt (names, modes, values), 6.12-defaults.txt and
# 7.2-defaults.txt (files with values), 6.18-layout.txt (names and modes).
# Also checks that emu_dump_sh (tests/lib/emu.sh) prints like `damon-conform dump`.
set -euo pipefail
profile=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"

emu_setup "$profile"
w() { printf '%s' "$2" >"$ADMIN/$1"; }
k=kdamonds/0
c=$k/contexts/0
s=$c/schemes/0
name=$(basename "$fixture")

w kdamonds/nr_kdamonds 1
w $k/contexts/nr_contexts 1
case $name in
6.18-layout.txt)
	# "one kdamond with one paddr context, one scheme, two ops_filters, one target, one region"
	w $c/operations paddr
	w $c/schemes/nr_schemes 1
	w $s/ops_filters/nr_filters 2
	w $c/targets/nr_targets 1
	w $c/targets/0/regions/nr_regions 1
	;;
*)
	case $name in
	6.1-*) pids=(53 54) ;;
	6.12-*) pids=(165 166) ;;
	7.2-*) pids=(141 142) ;;
	*) echo "unknown fixture $name"; exit 1 ;;
	esac
	# the order of the behaviour logs
	w $c/operations vaddr
	w $c/targets/nr_targets 2
	w $c/targets/0/pid_target "${pids[0]}"
	w $c/targets/1/pid_target "${pids[1]}"
	w $c/schemes/nr_schemes 1
	w $c/targets/0/regions/nr_regions 1
	for d in filters core_filters ops_filters quotas/goals dests; do
		f=$s/$d/nr_filters
		[ "$d" = quotas/goals ] && f=$s/$d/nr_goals
		[ "$d" = dests ] && f=$s/$d/nr_dests
		[ -e "$ADMIN/$f" ] && w "$f" 1
	done
	;;
esac

got=$SYSROOT/run/got.txt
want=$SYSROOT/run/want.txt
"$DAMON_CONFORM" dump --root "$ADMIN" |
	sed "1s|^D \\([0-7]*\\) .*|D \\1 /sys/kernel/mm/damon/admin|" >"$got"
case $name in
6.1-layout.txt)
	cp "$fixture" "$want"
	;;
6.18-layout.txt)
	grep -v '^#' "$fixture" >"$want"
	sed -i 's/ = .*//' "$got"
	;;
*)
	grep '^F' "$fixture" >"$want"
	grep '^F' "$got" >"$got.f" && mv "$got.f" "$got"
	;;
esac
if ! diff -u "$want" "$got"; then
	echo "FAIL: profile $profile does not print like $name"
	exit 1
fi
echo "ok: profile $profile prints like $name ($(wc -l <"$want") lines)"

# the shell helper must agree with the runner
if ! diff -u <("$DAMON_CONFORM" dump --root "$ADMIN" | tail -n +2) <(emu_dump_sh); then
	echo "FAIL: emu_dump_sh and damon-conform dump differ"
	exit 1
fi
echo "ok: emu_dump_sh prints like damon-conform dump"
