#!/bin/bash
# Benchmark: what a damonc command costs as a whole process, start-up included, against the
# floor: a C program (floor.c) that makes only the opens and reads of files the command
# made (the same reads, of the same sizes), as strace saw them (opens-of), with nothing
# loaded but the C library. Run in
# alternating pairs (pairs.c), BENCH_RUNS of each, medians; CPU is user + system time of
# that process alone. Commands: --version, status --json, features --json, report hugepage
# --json; on the host's own DAMON tree (read only: run under tests/ns-run, as meson's test
# setup does) when it has one, and on a damon-emu tree. Prints a markdown table, the
# libraries each command loaded (from the same trace) and the machine's load before and
# after. Needs strace (scripts/install-deps check); SKIP without it.
# Env (set by meson): DAMONC, PAIRS, FLOOR, OPENS_OF, DAMON_EMU, EMU_SH; BENCH_RUNS
# (default 300).
set -euo pipefail
runs=${BENCH_RUNS:-300}
command -v strace >/dev/null || { echo "SKIP: no strace (scripts/install-deps check)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-startup.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

commands=("--version" "status --json" "features --json" "report hugepage --json")

# The shared objects a trace shows opened (the loader's, and dlopen's), by name.
libraries() {
	sed -nE 's|.*openat\([^"]*"([^"]*\.so[.0-9]*)", .*\) = [0-9].*|\1|p' "$1" |
		sed 's|.*/||' | sort -u
}

ms() { printf '%.2f' "$(echo "$1 / 1000" | bc -l)"; }
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

row() { # TREE_LABEL COMMAND DAMONC_ARGS...
	local tree=$1 cmd=$2 line libs floor_args
	shift 2
	# shellcheck disable=SC2086 # the command's words
	strace -f -y -qq -e trace=openat,read,getdents64 -o "$work/trace" "$DAMONC" "$@" $cmd \
		>/dev/null
	mapfile -t floor_args < <(python3 "$OPENS_OF" "$work/trace")
	libs=$(libraries "$work/trace")
	# shellcheck disable=SC2086
	line=$("$PAIRS" "$runs" "$FLOOR" "${floor_args[@]}" -- "$DAMONC" "$@" $cmd)
	[[ $line =~ a_cpu_us=([0-9]+)\ a_wall_us=([0-9]+)\ b_cpu_us=([0-9]+)\ b_wall_us=([0-9]+) ]] ||
		{ echo "bench: $cmd: no measurement ($line)" >&2; exit 1; }
	local fc=${BASH_REMATCH[1]} fw=${BASH_REMATCH[2]} dc=${BASH_REMATCH[3]}
	local dw=${BASH_REMATCH[4]}
	# shellcheck disable=SC2016 # markdown's backquotes
	printf '| `damonc %s` | %s | %d | %s | %s | %sx | %s | %s | %sx |\n' "$cmd" "$tree" \
		"$(wc -l <<<"$libs")" "$(ms "$dc")" "$(ms "$fc")" "$(ratio "$dc" "$fc")" \
		"$(ms "$dw")" "$(ms "$fw")" "$(ratio "$dw" "$fw")"
	grep -qF "damonc $cmd:" "$work/libs" ||
		echo "damonc $cmd: $(tr '\n' ' ' <<<"$libs")" >>"$work/libs"
}

header() {
	echo "| command | tree | shared objects | damonc CPU | floor CPU | CPU ratio | damonc wall" \
		"| floor wall | wall ratio |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
}

echo "damonc: $DAMONC ($("$DAMONC" --version)); $runs runs of each, alternating; medians, ms"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo
header
: >"$work/libs"
if [ -r /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds ]; then
	for c in "${commands[@]}"; do
		row host "$c"
	done
fi
if [ -n "${DAMON_EMU:-}" ]; then
	# shellcheck source=../lib/emu.sh
	source "$EMU_SH"
	trap 'emu_cleanup; cleanup' EXIT
	emu_setup 7.2
	# a kdamond as damonc starts one: a context, a target, two schemes with a goal and a
	# filter each
	A=$ADMIN/kdamonds
	echo 1 >"$A/nr_kdamonds"
	echo 1 >"$A/0/contexts/nr_contexts"
	echo 1 >"$A/0/contexts/0/targets/nr_targets"
	echo 2 >"$A/0/contexts/0/schemes/nr_schemes"
	for s in 0 1; do
		echo 1 >"$A/0/contexts/0/schemes/$s/quotas/goals/nr_goals"
		echo 1 >"$A/0/contexts/0/schemes/$s/ops_filters/nr_filters"
	done
	for c in "${commands[@]}"; do
		row "damon-emu 7.2" "$c" --sysroot "$SYSROOT"
	done
fi
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "shared objects loaded (the floor's: libc.so.6 alone):"
cat "$work/libs"
