#!/bin/bash
# Benchmark: `damonc record --method trace` reading damon_aggregated as trace_pipe's text
# and as the binary ring buffer (trace_pipe_raw), on real kernels under qemu (tests/vm), the
# guest scenario bench-trace-read: one kdamond of 1000 regions (5 ms / 100 ms intervals),
# the two readers in turns on it. Printed per kernel and reader: events (regions) per
# second recorded, damonc's CPU time (user+sys) per snapshot and events per CPU second,
# and raw's CPU per snapshot against text's, measured in the same boot.
# Env (set by meson): VM_RUN, VM_PREPARE, DAMONC, HOTCOLD_STATIC; BENCH_SLOTS (default: the
# four kernels: 6.1 trixie trixie-backports sid).
# Runs alone: TCG needs the CPU (run it on an otherwise idle machine).
set -euo pipefail
read -ra slots <<<"${BENCH_SLOTS:-6.1 trixie trixie-backports sid}"
state=$(mktemp -d "${TMPDIR:-/tmp}/damonc-bench-trace.XXXXXX")
figures=$state/figures
trap 'rm -rf "$state"' EXIT

"$VM_PREPARE" "$state" "${slots[@]}" >&2 || { echo "bench: no kernels (prepare failed)" >&2; exit 1; }
for slot in "${slots[@]}"; do
	"$VM_RUN" --state "$state" --slot "$slot" --scenario bench-trace-read --timeout 900 \
		--bin "$DAMONC" --bin "$HOTCOLD_STATIC" --figures "$figures" >&2 ||
		echo "bench: bench-trace-read on $slot did not pass (its figures are kept)" >&2
done
[ -s "$figures" ] || { echo "bench: no figures" >&2; exit 1; }

echo "## damon_aggregated: trace_pipe text vs trace_pipe_raw (1000 regions, 100 ms aggregation)"
echo
echo "| kernel | reader | snapshots | regions/snapshot | events/s | CPU ms/snapshot | events per CPU s |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
awk '
function f(name,   i) { for (i = 2; i <= NF; i++) if (index($i, name "=") == 1)
	return substr($i, length(name) + 2) }
$1 == "trace" {
	k = f("kernel"); r = f("reader"); key = k " " r
	if (!(key in snaps)) order[n++] = key
	snaps[key] += f("snapshots"); cpu[key] += f("cpu_ms"); wall[key] += f("wall_ms")
	ev[key] += f("snapshots") * f("regions_mean")
}
END {
	for (i = 0; i < n; i++) {
		key = order[i]; split(key, p, " ")
		printf "| %s | %s | %d | %.0f | %.0f | %.2f | %.0f |\n", p[1], p[2], snaps[key],
			snaps[key] ? ev[key] / snaps[key] : 0, wall[key] ? ev[key] * 1000 / wall[key] : 0,
			snaps[key] ? cpu[key] / snaps[key] : 0, cpu[key] ? ev[key] * 1000 / cpu[key] : 0
	}
	print ""
	print "raw against text, CPU per snapshot:"
	for (i = 0; i < n; i++) {
		key = order[i]; split(key, p, " ")
		t = p[1] " text"
		if (p[2] == "raw" && snaps[key] && snaps[t] && cpu[t])
			printf "- %s: %.2f\n", p[1], (cpu[key] / snaps[key]) / (cpu[t] / snaps[t])
	}
}' "$figures"
