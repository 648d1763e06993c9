#!/bin/bash
# End to end: damon-emu and its engine collapse the hot buffer of a real process.
#
# Mounts damon-emu (7.2 profile) with a scenario that hotcold writes for itself (hot 100%,
# cold 0%), stages a vaddr `collapse` scheme (sz >= 2 MiB, nr_accesses >= 1, age >= 3
# aggregations) by writing the emulated files with plain shell, turns it on, and checks that
# the hot buffer's AnonHugePages grows for real while the cold one's does not. Then the
# kdamond must stop by itself once hotcold is gone (state off, pid -1).
#
# Needs DAMON_EMU (built with its engine) and HOTCOLD, both set by meson; root
# (process_madvise(2) on another process needs CAP_SYS_NICE) and FUSE, or exits 77 (skip).
# Run through tests/ns-run.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${DAMON_EMU:?DAMON_EMU is not set}" "${HOTCOLD:?HOTCOLD is not set}"

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || skip "process_madvise on another process needs CAP_SYS_NICE"

work=$(mktemp -d "${TMPDIR:-/tmp}/e2e-collapse.XXXXXX")
scenario=$work/scenario
hc_pid=
own_emu_pid=

cleanup() {
	[ -n "$hc_pid" ] && kill -9 "$hc_pid" 2>/dev/null
	if [ -n "$own_emu_pid" ]; then
		fusermount3 -u "$ADMIN" 2>/dev/null || umount -l "$ADMIN" 2>/dev/null || true
		kill "$own_emu_pid" 2>/dev/null || true
		wait "$own_emu_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	# last: it exits 1 if the emulator reported errors
	if declare -F emu_cleanup >/dev/null; then
		emu_cleanup
	fi
}
trap cleanup EXIT

if [ -f "$here/../lib/emu.sh" ]; then
	# shellcheck source=../lib/emu.sh
	. "$here/../lib/emu.sh"
	trap cleanup EXIT	# emu_setup sets its own trap; ours calls emu_cleanup too
	emu_setup 7.2 --scenario "$scenario"
	trap cleanup EXIT
else
	# no shared helpers: a mount of our own
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	command -v fusermount3 >/dev/null || skip "no fusermount3"
	ADMIN=$work/admin
	mkdir -p "$ADMIN"
	"$DAMON_EMU" --foreground --profile 7.2 --scenario "$scenario" "$ADMIN" \
		2>"$work/damon-emu.err" &
	own_emu_pid=$!
	for _ in $(seq 100); do
		grep -qF " $ADMIN " /proc/self/mountinfo && break
		kill -0 "$own_emu_pid" 2>/dev/null || skip "damon-emu could not mount: $(cat "$work/damon-emu.err")"
		sleep 0.05
	done
	grep -qF " $ADMIN " /proc/self/mountinfo || fail "damon-emu did not mount"
fi

# Writes and reads of the emulated files, bounded: a hang names the file instead of eating
# the test's whole time budget.
wr() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	timeout 60 bash -c 'echo "$1" >"$2"' _ "$1" "$2" || fail "writing '$1' to ${2#"$ADMIN"/}"
}

rd() {
	timeout 60 cat "$1" || fail "reading ${1#"$ADMIN"/}"
}

# AnonHugePages, in bytes, of the mappings of pid $1 inside [$2, $3)
anon_huge() {
	local pid=$1 lo=$2 hi=$3 in=0 total=0 line
	while IFS= read -r line; do
		if [[ $line =~ ^([0-9a-f]+)-([0-9a-f]+)\  ]]; then
			in=0
			if (( 16#${BASH_REMATCH[1]} >= lo && 16#${BASH_REMATCH[2]} <= hi )); then
				in=1
			fi
		elif [[ $line =~ ^AnonHugePages:\ +([0-9]+)\ kB ]] && ((in)); then
			total=$((total + BASH_REMATCH[1] * 1024))
		fi
	done <"/proc/$pid/smaps"
	echo "$total"
}

"$HOTCOLD" --hot 64M --cold 64M --scenario "$scenario" >"$work/hotcold.out" &
hc_pid=$!
for _ in $(seq 200); do
	[ -s "$work/hotcold.out" ] && break
	sleep 0.05
done
read -r hot cold <"$work/hotcold.out" || fail "hotcold printed nothing"
hot=${hot#hot=}
cold=${cold#cold=}
hot_lo=$((${hot%-*})) hot_hi=$((${hot#*-}))
cold_lo=$((${cold%-*})) cold_hi=$((${cold#*-}))
hot_sz=$((hot_hi - hot_lo))
echo "hotcold pid $hc_pid: hot $hot, cold $cold"
[ "$(anon_huge "$hc_pid" "$hot_lo" "$hot_hi")" = 0 ] || skip "THP already made the buffer huge"

kd=$ADMIN/kdamonds
ctx=$kd/0/contexts/0
s=$ctx/schemes/0
wr 1 "$kd/nr_kdamonds"
wr 1 "$kd/0/contexts/nr_contexts"
wr vaddr "$ctx/operations"
wr 1 "$ctx/targets/nr_targets"
wr "$hc_pid" "$ctx/targets/0/pid_target"
wr 1 "$ctx/schemes/nr_schemes"
wr collapse "$s/action"
wr $((2 << 20)) "$s/access_pattern/sz/min"
wr 18446744073709551615 "$s/access_pattern/sz/max"
wr 1 "$s/access_pattern/nr_accesses/min"
wr 4294967295 "$s/access_pattern/nr_accesses/max"
wr 3 "$s/access_pattern/age/min"
wr 4294967295 "$s/access_pattern/age/max"
start=$(date +%s%N)
wr on "$kd/0/state"

[ "$(rd "$kd/0/state")" = on ] || fail "state is not on"
kpid=$(rd "$kd/0/pid")
[ "$kpid" -gt 0 ] || fail "pid is $kpid"
[ "$(cat "/proc/$kpid/comm")" = kdamond.0 ] || fail "the kdamond is named $(cat "/proc/$kpid/comm")"

# generous: a loaded 2-CPU machine running sanitized builds has needed 25 s
# Three quarters, not all: MADV_COLLAPSE makes only whole aligned huge pages, so a 2 MiB page
# that straddles two regions stays small while the region boundaries stay put (a real 7.2
# made 58 of 64 MiB huge; the emulator has been seen stopping at 56).
huge=0
deadline=$((SECONDS + 150))
while ((SECONDS < deadline)); do
	huge=$(anon_huge "$hc_pid" "$hot_lo" "$hot_hi")
	((huge * 4 >= hot_sz * 3)) && break
	sleep 0.1
done
took=$((($(date +%s%N) - start) / 1000000))
cold_huge=$(anon_huge "$hc_pid" "$cold_lo" "$cold_hi")
echo "hot buffer: $huge of $hot_sz bytes huge after ${took} ms; cold buffer: $cold_huge bytes huge"
if ((huge * 4 < hot_sz * 3)); then
	wr update_schemes_stats "$kd/0/state"
	fail "the hot buffer did not become huge (state $(rd "$kd/0/state"), nr_tried" \
		"$(rd "$s/stats/nr_tried"), nr_applied $(rd "$s/stats/nr_applied"))"
fi
[ "$cold_huge" = 0 ] || fail "the cold buffer became huge"

wr update_schemes_stats "$kd/0/state"
tried=$(rd "$s/stats/nr_tried")
echo "stats: nr_tried $tried nr_applied $(rd "$s/stats/nr_applied")" \
	"sz_applied $(rd "$s/stats/sz_applied")"
[ "$tried" -gt 0 ] || fail "stats/nr_tried is $tried"
# a walk shows what one apply interval tried; with age >= 3 and the age reset by each
# collapse, some intervals try nothing, so give it a few
for _ in $(seq 30); do
	wr update_schemes_tried_regions "$kd/0/state"
	[ -d "$s/tried_regions/0" ] && break
done
[ -d "$s/tried_regions/0" ] || fail "no tried region in 30 walks"
echo "tried region 0: $(rd "$s/tried_regions/0/start")-$(rd "$s/tried_regions/0/end")" \
	"nr_accesses $(rd "$s/tried_regions/0/nr_accesses") age $(rd "$s/tried_regions/0/age")"

# the last target gone, the kdamond stops by itself
kill -9 "$hc_pid"
wait "$hc_pid" 2>/dev/null || true
hc_pid=
for _ in $(seq 100); do
	[ "$(rd "$kd/0/state")" = off ] && break
	sleep 0.1
done
[ "$(rd "$kd/0/state")" = off ] || fail "the kdamond did not stop after its target exited"
[ "$(rd "$kd/0/pid")" = -1 ] || fail "pid is $(rd "$kd/0/pid") after the stop"
echo ok
