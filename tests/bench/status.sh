#!/bin/bash
# Benchmark: `damonc status --json` against the raw cost of reading the same files (raw-tree,
# measured in the same run), on the host's real DAMON tree (read-only) and on a larger
# damon-emu tree (4 kdamonds x 8 schemes with goals and filters).
# Env (set by meson): DAMONC, MEASURE, RAW_TREE, DAMON_EMU, EMU_SH.
set -euo pipefail
runs=${BENCH_RUNS:-200}

cost() { # LABEL COMMAND...: prints cpu and wall per run, sets LAST_WALL
	local label=$1 line
	shift
	line=$("$MEASURE" "$@" 2>&1 >/dev/null | grep '^wall_s=' | tail -n1)
	[[ $line =~ wall_s=([0-9.]+)\ cpu_s=([0-9.]+)\ maxrss_kib=([0-9]+)\ status=([0-9]+) ]] ||
		{ echo "bench: $label: no measurement ($line)" >&2; exit 1; }
	[ "${BASH_REMATCH[4]}" = 0 ] || { echo "bench: $label failed" >&2; exit 1; }
	LAST_WALL=${BASH_REMATCH[1]}
	printf '%-46s %8.3f ms/run %8.1f MiB\n' "$label" \
		"$(echo "${BASH_REMATCH[1]} * 1000 / $runs" | bc -l)" \
		"$(echo "${BASH_REMATCH[3]} / 1024" | bc -l)"
}

loop() { # N COMMAND...: run COMMAND N times (one process per run, as a user would)
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
}
export -f loop

bench_tree() { # LABEL ADMIN_DIR SYSROOT
	local label=$1 admin=$2 root=$3 raw
	echo
	echo "== $label: $("$RAW_TREE" "$admin" 1)"
	cost "baseline: read every file (raw-tree), $runs times" "$RAW_TREE" "$admin" "$runs"
	raw=$LAST_WALL
	cost "damonc status --json, $runs runs" bash -c \
		"loop $runs '$DAMONC' --sysroot '$root' --json status"
	echo "ratio damonc/raw: $(echo "$LAST_WALL / $raw" | bc -l | cut -c1-5)" \
		"(damonc pays process start-up and JSON; raw-tree reads in one process)"
	cost "damonc status (text), $runs runs" bash -c "loop $runs '$DAMONC' --sysroot '$root' status"
}

if [ -r /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds ]; then
	bench_tree "the host's real DAMON tree (read-only)" /sys/kernel/mm/damon/admin /
fi

if [ -n "${DAMON_EMU:-}" ]; then
	# shellcheck source=../lib/emu.sh
	source "$EMU_SH"
	emu_setup 7.2
	A=$ADMIN/kdamonds
	echo 4 >"$A/nr_kdamonds"
	for k in 0 1 2 3; do
		echo 1 >"$A/$k/contexts/nr_contexts"
		echo 1 >"$A/$k/contexts/0/targets/nr_targets"
		echo 8 >"$A/$k/contexts/0/schemes/nr_schemes"
		for s in 0 1 2 3 4 5 6 7; do
			echo 2 >"$A/$k/contexts/0/schemes/$s/quotas/goals/nr_goals"
			echo 2 >"$A/$k/contexts/0/schemes/$s/ops_filters/nr_filters"
		done
	done
	bench_tree "damon-emu 7.2, 4 kdamonds x 8 schemes" "$ADMIN" "$SYSROOT"
fi
