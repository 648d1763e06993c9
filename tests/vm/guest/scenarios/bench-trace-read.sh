#!/bin/sh
# bench-trace-read (a benchmark, run by tests/bench/trace-read.sh, not by `make check`):
# `damonc record --method trace` reading the damon_aggregated events as trace_pipe's text
# and as the binary ring buffer (per_cpu/cpuN/trace_pipe_raw), DAMONC_TRACE_READER=text|raw,
# in turns on the same kdamond (hotcold, vaddr, 1000 regions: --nr-regions 1000,1000).
# Each turn records SPAN s; damonc's user+sys time comes from the shell that waited for it
# (cutime and cstime of /proc/PID/stat, in clock ticks). One DATA line per turn:
# "trace reader=R kernel=K wall_ms= cpu_ms= snapshots= regions_mean=".
# shellcheck source=tests/vm/guest/lib.sh disable=SC1091
. /vm/lib.sh

SPAN=20
TURNS=2

# shellcheck disable=SC2317 # dc_* are called through expect_rc
# --- damonc use ----------------------------------------------------------------------------
dc_start() { damonc start --pid "$HC_PID" --action stat --access-rate 0%,0% --sample 5ms \
	--aggr 100ms --nr-regions 1000,1000; }
# in a shell of its own, which prints damonc's CPU time (as its waited-for children's)
dc_record() { # reader, kdamond
	DAMONC_TRACE_READER=$1 sh -c 'damonc record --method trace -o /tmp/rec --kdamond "$0" \
		--no-footprints --duration '"$SPAN"'s --interval 100ms >/tmp/rec.out 2>&1; rc=$?
		cut -d" " -f16,17 /proc/$$/stat; exit $rc' "$2"
}
dc_info() { damonc --json=pretty report info -i /tmp/rec; }
# -------------------------------------------------------------------------------------------

require_damonc_command record
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events/damon/damon_aggregated ] ||
	skip_scenario "no damon_aggregated trace event on $(uname -r)"
damon_stat_set N
start_hotcold --hot 64M --cold 192M || finish
expect_rc 0 "start a kdamond on hotcold with 1000 regions" dc_start
kd=$(for d in "$ADMIN"/kdamonds/[0-9]*; do
	[ "$(cat "$d/state")" = on ] && basename "$d"; done | head -n 1)
note "format: $(tr '\n\t' '  ' </sys/kernel/tracing/events/damon/damon_aggregated/format)"

turn=0
while [ $turn -lt $TURNS ]; do
	for reader in text raw; do
		rm -f /tmp/rec
		t0=$(cut -d' ' -f1 /proc/uptime)
		times=$(dc_record "$reader" "$kd")
		rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		sed 's/^/#   record: /' /tmp/rec.out >>"$VM_OUT"
		check "record through the $reader reader (exit $rc)" test "$rc" = 0
		dc_info >/tmp/info 2>&1
		snaps=$(sed -n 's/.*"snapshots": \([0-9]*\).*/\1/p' /tmp/info | head -n 1)
		mean=$(sed -n '/"regions"/,/}/s/.*"mean": \([0-9.]*\).*/\1/p' /tmp/info | head -n 1)
		# x86's USER_HZ: 100 ticks a second
		cpu_ms=$(echo "$times" | awk '{ print ($1 + $2) * 10 }')
		wall_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
		data "trace reader=$reader kernel=$(uname -r) wall_ms=$wall_ms cpu_ms=$cpu_ms" \
			"snapshots=${snaps:-0} regions_mean=${mean:-0}"
		check "the $reader reader recorded snapshots (${snaps:-0})" test "${snaps:-0}" -gt 0
	done
	turn=$((turn + 1))
done
finish
