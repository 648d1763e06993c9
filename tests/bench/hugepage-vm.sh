#!/bin/bash
# Benchmark: huge-page budgets on real kernels under qemu (tests/vm), printed as the tables of
# docs/benchmarks.md.
#   1. goal tracking, every path (the guest scenario bench-goal-paths): a goal over the
#      target process and a system-wide one, time to within 10%, the ratio while it holds
#      for 2 minutes, huge pages added meanwhile, the agent's CPU time per minute held;
#   2. huge pages over time (bench-hugepage-time): damonc's budget (collapse with a goal),
#      DAMON's hugepage action with khugepaged, and THP=always, through a phase change.
# Env (set by meson): VM_RUN, VM_PREPARE, DAMONC, HOTCOLD_STATIC; BENCH_SLOTS (default:
# trixie trixie-backports sid), BENCH_HOLD (seconds a goal is held, default 120).
# Runs alone: TCG needs the CPU (run it on an otherwise idle machine).
set -euo pipefail
read -ra slots <<<"${BENCH_SLOTS:-trixie trixie-backports sid}"
state=$(mktemp -d "${TMPDIR:-/tmp}/damonc-bench-vm.XXXXXX")
figures=$state/figures
trap 'rm -rf "$state"' EXIT

"$VM_PREPARE" "$state" "${slots[@]}" >&2 || { echo "bench: no kernels (prepare failed)" >&2; exit 1; }
for slot in "${slots[@]}"; do
	for scenario in bench-goal-paths bench-hugepage-time; do
		HOLD=${BENCH_HOLD:-120} "$VM_RUN" --state "$state" --slot "$slot" --scenario "$scenario" \
			--timeout 1800 --bin "$DAMONC" --bin "$HOTCOLD_STATIC" --figures "$figures" >&2 ||
			echo "bench: $scenario on $slot did not pass (its figures are kept)" >&2
	done
done

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

echo "## Goal tracking (a 128 MiB hot and a 64 MiB cold buffer; 50 ms / 1 s intervals)"
echo
echo "| kernel | scope | goal | time to ±10% | settled | while held (2 min) | huge pages added while held | agent CPU per minute held | cold buffer huge |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
grep '^goal ' "$figures" | while read -r line; do
	printf '| %s | %s | %s bp | %s s | %s bp | %s..%s bp | %s kB | %s ms | %s kB |\n' \
		"$(field kernel "$line")" "$(field scope "$line")" "$(field goal_bp "$line")" \
		"$(echo "$(field time_to_band_ms "$line") / 1000" | bc -l | cut -c1-5)" \
		"$(field settled_bp "$line")" "$(field min_bp "$line")" "$(field max_bp "$line")" \
		"$(field huge_growth_kb "$line")" "$(field agent_cpu_ms_per_min "$line")" \
		"$(field cold_kb "$line")"
done
echo
echo "## Huge pages over time (the buffers swap roles at 60 s)"
for mode in goal hugepage always; do
	echo
	echo "### $mode"
	echo
	echo "| kernel | s | RSS MiB | huge MiB | ratio | first buffer huge MiB | second buffer huge MiB |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	grep "^time mode=$mode " "$figures" | while read -r line; do
		printf '| %s | %s | %s | %s | %s%% | %s | %s |\n' "$(field kernel "$line")" \
			"$(field t "$line")" "$(($(field rss_kb "$line") / 1024))" \
			"$(($(field huge_kb "$line") / 1024))" \
			"$(echo "$(field bp "$line") / 100" | bc -l | cut -c1-5)" \
			"$(($(field first_kb "$line") / 1024))" "$(($(field second_kb "$line") / 1024))"
	done
done
