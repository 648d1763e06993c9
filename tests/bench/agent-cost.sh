#!/bin/bash
# Benchmark: what the damonc agent costs while it holds a huge-page goal, by the size of the
# memory it manages and by the number of targets and regions (issue 28). damon-emu stands in
# for DAMON (its scenario names the workload's hot buffer); the agent's measurements, its
# collapses and the workload's page tables are this machine's own.
#
# For each profile and size: hotcold --hot S/2 --cold S/2 (every page written once before
# the start, the hot half written over and over, a pass every 100 ms: damon-emu's scenario
# says what is hot, and 64 workloads spinning would starve the machine), `damonc start --action collapse --pid P
# --goal-bp GOAL --goal-scope pid`; the time until the process is within 10% of the goal;
# then, after SETTLE_S seconds, the agent's CPU time (sum_exec_runtime from
# /proc/PID/schedstat) and the tree writes (damon-emu's --log) over HOLD_S seconds, scaled
# to a minute, and the ratio at its end against an independent smaps_rollup measurement.
# The baselines, measured in the same run on the same process: one read of its
# /proc/PID/smaps_rollup (the walk of every page table that round 2's agent did several
# times a second) and one of /proc/PID/statm (the kernel's counters).
#
# Then the scale beyond memory (profile 7.2 unless BENCH_SCALE_PROFILE): one kdamond over
# TARGETS processes (64 MiB each) with one goal over them; a forking server followed
# (--follow-children: a child a second, each living 8 s); one process under DAMON's most
# regions (--nr-regions 10000,10000); `status --json` and `record` of a tree with 8
# kdamonds of 8 schemes each.
#
# BASELINE_DAMONC (a damonc built from an earlier commit, e.g. the one before issue 28's
# change): each size's row is measured with it first, then with DAMONC, one after the other.
# Env (set by meson): DAMONC, DAMON_EMU, HOTCOLD, EMU_SH, MEASURE. Knobs: BENCH_PROFILES
# (default "6.12 7.2 next"), BENCH_SIZES (default "512M 4G 16G"), GOAL (2000), HOLD_S (60),
# SETTLE_S (10), TARGETS (64), BENCH_PARTS (default "sizes targets children regions tree").
# Run through tests/ns-run (it mounts the emulator): meson test --benchmark agent-cost.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
source "${EMU_SH:?}"
read -ra profiles <<<"${BENCH_PROFILES:-6.12 7.2 next}"
read -ra sizes <<<"${BENCH_SIZES:-512M 4G 16G}"
read -ra parts <<<"${BENCH_PARTS:-sizes targets children regions tree}"
goal=${GOAL:-2000}
hold_s=${HOLD_S:-60}
settle_s=${SETTLE_S:-10}
nr_targets=${TARGETS:-64}
scale_profile=${BENCH_SCALE_PROFILE:-7.2}
D=$DAMONC
HC_PIDS=()
SCENARIO=

cleanup() {
	[ ${#HC_PIDS[@]} = 0 ] || kill "${HC_PIDS[@]}" 2>/dev/null || true
	[ -z "$SCENARIO" ] || rm -f "$SCENARIO"
	emu_cleanup
}
trap cleanup EXIT

# CPU time of PID so far, in microseconds (scheduler's runtime: no tick granularity)
cpu_us() {
	local ns
	read -r ns _ <"/proc/$1/schedstat" 2>/dev/null || { echo 0; return; }
	echo $((ns / 1000))
}
agent_pid() { cat "$SYSROOT/run/damonc/agent.pid" 2>/dev/null || true; }
smaps_kb() { awk -v f="$2:" '$1 == f { s += $2 } END { print s + 0 }' "/proc/$1/smaps_rollup"; }
# (AnonHugePages + ShmemPmdMapped + FilePmdMapped) / Rss over PIDS, in basis points
ratio_bp() {
	local p h=0 u=0
	for p in "$@"; do
		h=$((h + $(smaps_kb "$p" AnonHugePages) + $(smaps_kb "$p" ShmemPmdMapped) +
			$(smaps_kb "$p" FilePmdMapped)))
		u=$((u + $(smaps_kb "$p" Rss)))
	done
	echo $((u ? h * 10000 / u : 10000))
}
writes() { wc -l <"$EMU_LOG"; }
# one read of FILE of PID, in microseconds (the median of 5; bash's builtin read, no fork)
read_us() {
	local i t0 t1 all=() x
	for i in 1 2 3 4 5; do
		t0=${EPOCHREALTIME/[.,]/}
		read -r -d '' x <"/proc/$1/$2" || true
		t1=${EPOCHREALTIME/[.,]/}
		all+=($((t1 - t0)))
	done
	: "$x"
	printf '%s\n' "${all[@]}" | sort -n | sed -n 3p
}

start_workloads() { # N SIZE-EACH: N hotcold processes, hot and cold halves of SIZE-EACH
	local n=$1 half=$2 i out
	HC_PIDS=()
	for ((i = 0; i < n; i++)); do
		out=$SYSROOT/hc-$i.out
		# the scenario file holds one process's hot buffer: with several, the emulator is
		# told every process's through one file each, joined
		"$HOTCOLD" --hot "$half" --cold "$half" --pause-us 100000 --scenario "$SCENARIO.$i" \
			>"$out" &
		HC_PIDS+=($!)
	done
	for ((i = 0; i < n; i++)); do
		fair_wait 600000 test -s "$SYSROOT/hc-$i.out" || { echo "hotcold $i did not start"; exit 1; }
	done
	cat "$SCENARIO".[0-9]* >"$SCENARIO.tmp" && mv "$SCENARIO.tmp" "$SCENARIO"
}

reached() { [ "$(ratio_bp "$@")" -ge $((goal * 9 / 10)) ]; }

# hold PIDS...: time to goal, then the agent's cost while it holds it; prints a row's cells
hold() {
	local t0=$1 a c0 c1 w0 w1 bp t_goal
	shift
	fair_wait 600000 reached "$@" || { echo "goal not reached"; tail "$SYSROOT/run/damonc/agent.log"; exit 1; }
	t_goal=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
	sleep "$settle_s"
	a=$(agent_pid)
	c0=$(cpu_us "$a")
	w0=$(writes)
	sleep "$hold_s"
	c1=$(cpu_us "$a")
	w1=$(writes)
	bp=$(ratio_bp "$@")
	# the agent's log, for a row that needs explaining
	if [ -n "${BENCH_LOGS:-}" ]; then
		mkdir -p "$BENCH_LOGS"
		cp "$SYSROOT/run/damonc/agent.log" "$BENCH_LOGS/agent-$EMU_PROFILE-$t_goal.log"
	fi
	printf '%d ms | %d ms | %.3f%% | %d | %d bp' "$t_goal" \
		$(((c1 - c0) * 60 / hold_s / 1000)) "$(echo "($c1 - $c0) / ($hold_s * 10000)" | bc -l)" \
		$(((w1 - w0) * 60 / hold_s)) "$bp"
}

part_sizes() {
	local p s half t0 rss
	echo "### Agent CPU while a met goal is held, by memory size (goal $goal bp, pid scope)"
	echo
	echo "| damonc | profile | RSS | time to goal | agent CPU per minute held | share of a CPU |" \
		"tree writes per minute | ratio at the end | one smaps_rollup read | one statm read |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for p in "${profiles[@]}"; do
		for s in "${sizes[@]}"; do
			[ -z "${BASELINE_DAMONC:-}" ] || size_row before "$BASELINE_DAMONC" "$p" "$s"
			size_row "${BASELINE_DAMONC:+after}" "$DAMONC" "$p" "$s"
		done
	done
	echo
}

size_row() { # label damonc profile size
	local label=$1 D=$2 p=$3 s=$4 half rss t0
	half=$(($(numfmt --from=iec "$s") / 2))
	SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-bench-scenario.XXXXXX")
	emu_setup "$p" --scenario "$SCENARIO"
	start_workloads 1 "$half"
	rss=$(smaps_kb "${HC_PIDS[0]}" Rss)
	t0=${EPOCHREALTIME/[.,]/}
	"$D" start --action collapse --pid "${HC_PIDS[0]}" --goal-bp "$goal" --goal-scope pid \
		>/dev/null
	printf '| %s | %s | %d MiB | %s | %d us | %d us |\n' "${label:-this}" "$p" $((rss / 1024)) \
		"$(hold "$t0" "${HC_PIDS[0]}")" "$(read_us "${HC_PIDS[0]}" smaps_rollup)" \
		"$(read_us "${HC_PIDS[0]}" statm)"
	"$D" stop >/dev/null
	cleanup
	HC_PIDS=()
	SCENARIO=
}

part_targets() {
	local t0 args=() p
	echo "### One kdamond over $nr_targets processes (64 MiB each), one goal over them ($scale_profile)"
	echo
	SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-bench-scenario.XXXXXX")
	emu_setup "$scale_profile" --scenario "$SCENARIO"
	start_workloads "$nr_targets" 32M
	for p in "${HC_PIDS[@]}"; do args+=(--pid "$p"); done
	t0=${EPOCHREALTIME/[.,]/}
	"$D" start --action collapse "${args[@]}" --goal-bp "$goal" --goal-scope pid >/dev/null
	echo "| targets | time to goal | agent CPU per minute held | share of a CPU | tree writes per minute | ratio at the end |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '| %d | %s |\n' "$nr_targets" "$(hold "$t0" "${HC_PIDS[@]}")"
	"$D" stop >/dev/null
	cleanup
	HC_PIDS=()
	SCENARIO=
	echo
}

# a forking server: its children come and go, each a target while it lives
part_children() {
	local t0 c0 c1 w0 w1 a joined left
	echo "### A forking server followed (--follow-children: a 16 MiB child a second, each living 8 s; $scale_profile)"
	echo
	emu_setup "$scale_profile"
	bash -c 'while :; do "$0" --hot 8M --cold 8M --pause-us 100000 --duration 8 >/dev/null & sleep 1; done' \
		"$HOTCOLD" &
	HC_PIDS=($!)
	"$D" start --action collapse --pid "${HC_PIDS[0]}" --follow-children >/dev/null
	fair_wait 60000 test -s "$SYSROOT/run/damonc/agent.pid"
	sleep "$settle_s"
	a=$(agent_pid)
	c0=$(cpu_us "$a")
	w0=$(writes)
	joined=$(grep -c "is a target now" "$SYSROOT/run/damonc/agent.log" || true)
	sleep "$hold_s"
	c1=$(cpu_us "$a")
	w1=$(writes)
	left=$(grep -c "is a target now" "$SYSROOT/run/damonc/agent.log" || true)
	echo "| children followed per minute | agent CPU per minute | share of a CPU | tree writes per minute |"
	echo "| --- | --- | --- | --- |"
	printf '| %d | %d ms | %.3f%% | %d |\n' $(((left - joined) * 60 / hold_s)) \
		$(((c1 - c0) * 60 / hold_s / 1000)) "$(echo "($c1 - $c0) / ($hold_s * 10000)" | bc -l)" \
		$(((w1 - w0) * 60 / hold_s))
	"$D" stop >/dev/null
	pkill -P "${HC_PIDS[0]}" 2>/dev/null || true
	cleanup
	HC_PIDS=()
	echo
}

part_regions() {
	local t0
	echo "### One 4 GiB process under DAMON's most regions (--nr-regions 10000,10000; $scale_profile)"
	echo
	SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-bench-scenario.XXXXXX")
	emu_setup "$scale_profile" --scenario "$SCENARIO"
	start_workloads 1 $((2 << 30))
	t0=${EPOCHREALTIME/[.,]/}
	"$D" start --action collapse --pid "${HC_PIDS[0]}" --nr-regions 10000,10000 \
		--goal-bp "$goal" --goal-scope pid >/dev/null
	echo "| regions | time to goal | agent CPU per minute held | share of a CPU | tree writes per minute | ratio at the end |"
	echo "| --- | --- | --- | --- | --- | --- |"
	printf '| 10000 | %s |\n' "$(hold "$t0" "${HC_PIDS[0]}")"
	"$D" stop >/dev/null
	cleanup
	HC_PIDS=()
	SCENARIO=
	echo
}

# median wall time of N runs of a command, in ms (measure's line for each run)
median_ms() {
	local n=$1 i all=()
	shift
	for ((i = 0; i < n; i++)); do
		[[ $("$MEASURE" "$@" 2>&1 >/dev/null | grep '^wall_s=' | tail -n1) =~ wall_s=([0-9.]+) ]] ||
			{ echo "bench: no measurement of $*" >&2; exit 1; }
		all+=("${BASH_REMATCH[1]}")
	done
	printf '%s\n' "${all[@]}" | sort -n | sed -n "$((n / 2 + 1))p" | awk '{ printf "%.2f ms", $1 * 1000 }'
}

part_tree() {
	local k j args files rec
	echo "### A tree of 8 kdamonds of 8 schemes each ($scale_profile)"
	echo
	emu_setup "$scale_profile"
	sleep 600 &
	HC_PIDS=($!)
	for ((k = 0; k < 8; k++)); do
		args=()
		for ((j = 0; j < 8; j++)); do
			args+=(--action stat --min-age "$((j + 1))s")
		done
		"$D" start --pid "${HC_PIDS[0]}" "${args[@]}" >/dev/null ||
			{ echo "start of kdamond $k failed"; exit 1; }
	done
	files=$(find "$ADMIN" -type f | wc -l)
	rec=$SYSROOT/run/bench.rec
	echo "| command | median of 20 runs | the floor: one read of the same $files files (raw-tree) |"
	echo "| --- | --- | --- |"
	printf '| status --json | %s | %s |\n' "$(median_ms 20 "$D" --json status)" \
		"$(median_ms 20 "$RAW_TREE" "$ADMIN" 1)"
	printf '| status --json --refresh | %s | |\n' "$(median_ms 20 "$D" --json status --refresh)"
	printf '| record --kdamond 0 --count 5 | %s | |\n' \
		"$(median_ms 5 "$D" record --kdamond 0 --count 5 --interval 100ms -o "$rec")"
	"$D" stop >/dev/null
	cleanup
	HC_PIDS=()
	echo
}

echo "agent-cost: $(nproc) CPUs, $(uname -r), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled);" \
	"load at the start: $(cut -d' ' -f1-3 /proc/loadavg); hold ${hold_s} s after ${settle_s} s"
echo
for part in "${parts[@]}"; do
	"part_$part"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
