#!/bin/bash
# Helpers for the tests of what a damonc run loads (tests/cli/plugins.sh, first-use-libs.sh).
# Source it, then:
#   loaded_setup GEN_RECORD   make $work (removed on exit), $root (a DAMON tree with no
#                             kdamond, as a kernel without DAMON users shows it) and
#                             $work/in.rec (a small record); set fail=0 and bad()
#   loaded CMD...             the shared objects CMD loads, one a line (the dynamic loader's
#                             own account, dlopen included), whether CMD succeeds or not

loaded_setup() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-loaded.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	fail=0
	root=$work/sysroot
	mkdir -p "$root/sys/kernel/mm/damon/admin/kdamonds"
	echo 0 >"$root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
	"$1" --snapshots 5 --regions 10 >"$work/in.rec"
}

# shellcheck disable=SC2034 # fail is the sourcing test's
bad() { echo "FAIL: $*"; fail=1; }

loaded() {
	{ LD_DEBUG=files "$@" 2>&1 >/dev/null || true; } | sed -nE 's/.*file=([^ ]+).*/\1/p' |
		sort -u
}
