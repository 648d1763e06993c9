#!/bin/bash
# Benchmark: what a huge-page budget buys, on this machine's CPU. This host's kernel has no
# vaddr DAMON, so damon-emu stands in for DAMON (a scenario naming the workload's hot set;
# its collapse action is real: process_madvise(MADV_COLLAPSE) on the workload), while the
# TLB, the page tables and the collapsed huge pages are this machine's own.
# The workload (hotcold --random): random 8-byte reads of a 1 GiB hot buffer, and a 1 GiB
# cold buffer of which one page in 64 was written once. For each way:
#   none       no collapse;
#   goal N     damonc start --action collapse --goal-bp N --goal-scope pid, measured once
#              the process is within 10% of N;
#   thp-all    MADV_HUGEPAGE on both buffers before they are written (what THP "always"
#              would do to this process; the machine's THP settings are left alone);
# the reads per second over MEASURE_S seconds, the RSS (memory) and the huge memory.
# Baseline: `none`, measured in the same run. Run through tests/ns-run (the emulator).
# Env (set by meson): DAMONC, DAMON_EMU, HOTCOLD, EMU_SH. BENCH_GOALS (default 1000 3000
# 6000), MEASURE_S (default 10), BENCH_HOT, BENCH_COLD (default 1G each).
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
source "${EMU_SH:?}"
read -ra goals <<<"${BENCH_GOALS:-1000 3000 6000}"
measure_s=${MEASURE_S:-10}
hot=${BENCH_HOT:-1G} cold=${BENCH_COLD:-1G}

SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-bench-scenario.XXXXXX")
emu_setup 7.2 --scenario "$SCENARIO"
HC_PID=
trap 'kill "$HC_PID" 2>/dev/null || true; rm -f "$SCENARIO"; emu_cleanup' EXIT
D=$DAMONC

proc() { # field of /proc/PID/smaps_rollup in kB
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/smaps_rollup"
}
report() { # print hotcold's next SIGUSR1 line
	local n i
	n=$(grep -c '^huge ' "$out" || true)
	kill -USR1 "$HC_PID"
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c '^huge ' "$out" || true)" != "$n" ] && break
		sleep 0.1
	done
	grep '^huge ' "$out" | tail -n 1
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

base_rate=
run() { # label, hotcold extra args (as one word), goal (0: none)
	local label=$1 extra=$2 goal=$3 a b rate rss huge bp i
	out=$(mktemp)
	# shellcheck disable=SC2086 # extra is a list of options
	"$HOTCOLD" --hot "$hot" --cold "$cold" --random --sparse-cold 64 --scenario "$SCENARIO" \
		$extra >"$out" &
	HC_PID=$!
	for ((i = 0; i < 600; i++)); do grep -q '^hot=' "$out" && break; sleep 0.1; done
	if [ "$goal" != 0 ]; then
		"$D" start --action collapse --pid "$HC_PID" --goal-bp "$goal" --goal-scope pid \
			>/dev/null
		for ((i = 0; i < 600; i++)); do
			bp=$(($(proc "$HC_PID" AnonHugePages) * 10000 / $(proc "$HC_PID" Rss)))
			[ "$bp" -ge $((goal * 9 / 10)) ] && break
			sleep 0.5
		done
		sleep 2
	else
		sleep 3
	fi
	a=$(report)
	sleep "$measure_s"
	b=$(report)
	rate=$(echo "($(field reads "$b") - $(field reads "$a")) * 1000000000 / \
		($(field ns "$b") - $(field ns "$a"))" | bc)
	rss=$(proc "$HC_PID" Rss)
	huge=$(proc "$HC_PID" AnonHugePages)
	[ -n "$base_rate" ] || base_rate=$rate
	printf '| %-10s | %7d MiB | %7d MiB | %6.2f%% | %12d | %5.2fx |\n' "$label" \
		$((rss / 1024)) $((huge / 1024)) "$(echo "$huge * 100 / $rss" | bc -l)" "$rate" \
		"$(echo "$rate / $base_rate" | bc -l)"
	[ "$goal" = 0 ] || "$D" stop >/dev/null
	kill "$HC_PID"
	wait "$HC_PID" 2>/dev/null || true
	HC_PID=
	rm -f "$out"
}

echo "hot $hot read at random, cold $cold (1 page in 64 written); $(nproc) CPUs;" \
	"$(uname -r); THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo
echo "| way        |         RSS |        huge |   ratio |      reads/s | vs none |"
echo "| ---------- | ----------- | ----------- | ------- | ------------ | ------- |"
run none "" 0
for g in "${goals[@]}"; do
	run "goal $g" "" "$g"
done
run thp-all --thp-all 0
