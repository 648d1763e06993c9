#!/bin/bash
# Benchmark: huge-page budgets on real kernels under qemu (tests/vm), printed as the tables of
# docs/benchmarks.md.
#   1. goal tracking, every path (the guest scenario bench-goal-paths): a goal over the
#      target process and a system-wide one, time to within 10%, the ratio while it holds
#      for 2 minutes, huge pages added meanwhile, the agent's CPU time per minute held;
#   2. huge pages over time (bench-hugepage-time): damonc's budget (collapse with a goal),
#      DAMON's hugepage action with khugepaged, and THP=always, through a phase change;
#   3. the agent's CPU while it holds a goal, by the target's size (bench-agent-cost), in a
#      guest of BENCH_VM_MEM (default 8G) for BENCH_VM_SIZES (default "512M 6G").
# Env (set by meson): VM_RUN, VM_PREPARE, DAMONC, HOTCOLD_STATIC; BENCH_SLOTS (default:
# trixie trixie-backports sid), BENCH_HOLD (seconds a goal is held, default 120),
# BENCH_PARTS (default "goal time cost").
# Runs alone: TCG needs the CPU (run it on an otherwise idle machine).
set -euo pipefail
read -ra slots <<<"${BENCH_SLOTS:-trixie trixie-backports sid}"
state=$(mktemp -d "${TMPDIR:-/tmp}/damonc-bench-vm.XXXXXX")
figures=$state/figures
trap 'rm -rf "$state"' EXIT

"$VM_PREPARE" "$state" "${slots[@]}" >&2 || { echo "bench: no kernels (prepare failed)" >&2; exit 1; }
read -ra parts <<<"${BENCH_PARTS:-goal time cost}"
declare -A scenario_of=([goal]=bench-goal-paths [time]=bench-hugepage-time [cost]=bench-agent-cost)
for slot in "${slots[@]}"; do
	for part in "${parts[@]}"; do
		scenario=${scenario_of[$part]}
		extra=(--env "HOLD=${BENCH_HOLD:-120}")
		[ "$part" != cost ] || extra=(--mem "${BENCH_VM_MEM:-8G}" --env HC_WAIT=36000
			--env "SIZES=${BENCH_VM_SIZES:-512M 6G}" --env "HOLD=${BENCH_HOLD:-60}")
		"$VM_RUN" --state "$state" --slot "$slot" --scenario "$scenario" --timeout 7200 \
			--bin "$DAMONC" --bin "$HOTCOLD_STATIC" --figures "$figures" "${extra[@]}" >&2 ||
			echo "bench: $scenario on $slot did not pass (its figures are kept)" >&2
	done
done

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
# the figures' lines of one kind (none when that part was not run: BENCH_PARTS)
figures_of() { grep "$1" "$figures" || true; }

echo "## Goal tracking (a 128 MiB hot and a 64 MiB cold buffer; 50 ms / 1 s intervals)"
echo
echo "| kernel | scope | goal | time to ±10% | settled | while held (2 min) | huge pages added while held | agent CPU per minute held | cold buffer huge |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
figures_of '^goal ' | while read -r line; do
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
	figures_of "^time mode=$mode " | while read -r line; do
		printf '| %s | %s | %s | %s | %s%% | %s | %s |\n' "$(field kernel "$line")" \
			"$(field t "$line")" "$(($(field rss_kb "$line") / 1024))" \
			"$(($(field huge_kb "$line") / 1024))" \
			"$(echo "$(field bp "$line") / 100" | bc -l | cut -c1-5)" \
			"$(($(field first_kb "$line") / 1024))" "$(($(field second_kb "$line") / 1024))"
	done
done

echo
echo "## The agent's CPU while it holds a goal (goal 2000 bp, pid scope; 50 ms / 1 s intervals)"
echo
echo "| kernel | RSS | time to goal | agent CPU per minute held | settled |"
echo "| --- | --- | --- | --- | --- |"
figures_of '^agent-cost ' | while read -r line; do
	printf '| %s | %s MiB | %s s | %s ms | %s bp |\n' "$(field kernel "$line")" \
		"$(($(field rss_kb "$line") / 1024))" \
		"$(echo "$(field time_to_goal_ms "$line") / 1000" | bc -l | cut -c1-6)" \
		"$(field agent_cpu_ms_per_min_held "$line")" "$(field settled_bp "$line")"
done
