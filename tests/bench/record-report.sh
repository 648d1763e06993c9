#!/bin/bash
# Benchmark: report time and peak memory per report type on generated records of 1000
# snapshots x 500 regions (with a footprint each) and 100 times longer, against baselines
# measured in the same run (reading the file with cat; loading damo's JSON of the short
# record with python's json and zlib, a lower bound of what damo does); the peak RSS of the
# reports whose --series --json prints a row per snapshot (and of report access
# --all-snapshots --json, a report per snapshot), on both records, against the same report
# without --series (no rows; report access of the last snapshot), and of report holistic: it
# must not grow with the record; and record's CPU per
# snapshot against the raw cost of reading the same tried_regions files (damon-emu, 500+
# regions).
#
# Env (set by meson): GEN_RECORD, DAMONC, MEASURE, RAW_TRIED, DAMON_EMU, HOTCOLD, EMU_SH.
# BENCH_LONG=N sets the long record's snapshots (default 100000). Prints a table; run it
# with 'tests/ns-run meson test -C BUILD --benchmark --verbose'.
set -euo pipefail

long=${BENCH_LONG:-100000}
W=$(mktemp -d "${TMPDIR:-/tmp}/damonc-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

cost() { # LABEL COMMAND...: one table row from measure's line
	local label=$1 line
	shift
	line=$("$MEASURE" "$@" 2>&1 >/dev/null | grep '^wall_s=' | tail -n1)
	[[ $line =~ wall_s=([0-9.]+)\ cpu_s=([0-9.]+)\ maxrss_kib=([0-9]+)\ status=([0-9]+) ]] ||
		{ echo "bench: $label: no measurement ($line)" >&2; exit 1; }
	[ "${BASH_REMATCH[4]}" = 0 ] || { echo "bench: $label failed" >&2; exit 1; }
	printf '%-44s %9.3f s %9.3f s %9.1f MiB\n' "$label" "${BASH_REMATCH[1]}" \
		"${BASH_REMATCH[2]}" "$(echo "${BASH_REMATCH[3]} / 1024" | bc -l)"
	LAST_CPU=${BASH_REMATCH[2]}
	LAST_RSS=${BASH_REMATCH[3]}
}

# peak RSS (KiB) of the streamed reports and of their baselines, by "report@snapshots"
declare -A rss
streamed=(nr-regions wss footprints)

for n in 1000 "$long"; do
	rec=$W/rec-$n
	"$GEN_RECORD" --snapshots "$n" --regions 500 --footprints >"$rec"
	echo
	echo "== record of $n snapshots x 500 regions: $(($(stat -c %s "$rec") / 1024)) KiB" \
		"($(echo "$(stat -c %s "$rec") / $n / 500" | bc -l | cut -c1-4) bytes a region)"
	printf '%-44s %11s %11s %13s\n' "what" "wall" "cpu" "peak RSS"
	cost "baseline: cat FILE >/dev/null" cat "$rec"
	cost "report access" "$DAMONC" report access -i "$rec"
	cost "report access --sort hot --top 10" "$DAMONC" report access -i "$rec" --sort hot \
		--top 10
	cost "report access --json" "$DAMONC" --json report access -i "$rec"
	rss[access-base@$n]=$LAST_RSS
	cost "report access --all-snapshots --top 10" "$DAMONC" report access -i "$rec" \
		--all-snapshots --top 10
	cost "report access --all-snapshots --json" "$DAMONC" --json report access -i "$rec" \
		--all-snapshots
	rss[access@$n]=$LAST_RSS
	cost "report access --percentiles-of recency" "$DAMONC" report access -i "$rec" \
		--percentiles-of recency
	cost "report access --boxes" "$DAMONC" report access -i "$rec" --boxes
	# two passes (damo's scale), stdin spooled to a temporary file: memory stays bounded
	# shellcheck disable=SC2016 # expanded by that sh
	cost "report access --boxes --box-scale-over record" sh -c '"$1" --json report access \
		-i - --all-snapshots --boxes --box-scale-over record <"$2"' sh "$DAMONC" "$rec"
	# damo's detailed style with a record head that needs the end first: two passes too
	# shellcheck disable=SC2016 # expanded by that sh
	cost "report access --style detailed, head <duration>" sh -c '"$1" report access \
		-i - --all-snapshots --style detailed --format-record-head "<duration>" <"$2"' sh \
		"$DAMONC" "$rec"
	# each series in turn (damo's records): a pass to count them, one a series, from stdin
	# spooled; a record of two targets
	"$GEN_RECORD" --snapshots "$n" --regions 500 --targets 2 >"$W/rec2-$n"
	# shellcheck disable=SC2016 # expanded by that sh
	cost "report access --all-series (2) --json" sh -c '"$1" --json report access -i - \
		--all-series --all-snapshots <"$2"' sh "$DAMONC" "$W/rec2-$n"
	rss[series@$n]=$LAST_RSS
	rm -f "$W/rec2-$n"
	cost "report heatmap (text)" "$DAMONC" report heatmap -i "$rec"
	cost "report heatmap --format raw" "$DAMONC" report heatmap -i "$rec" --format raw
	cost "report heatmap -o PNG (200x100 cells)" "$DAMONC" report heatmap -i "$rec" \
		-o "$W/h.png"
	cost "report heatmap -o SVG" "$DAMONC" report heatmap -i "$rec" -o "$W/h.svg"
	cost "report wss" "$DAMONC" report wss -i "$rec"
	cost "report wss --window 60s --json" "$DAMONC" --json report wss -i "$rec" --window 60s
	cost "report schemes" "$DAMONC" report schemes -i "$rec"
	cost "report info" "$DAMONC" report info -i "$rec"
	cost "report holistic (3 passes)" "$DAMONC" report holistic -i "$rec"
	rss[holistic@$n]=$LAST_RSS
	# the library's damonctl_hugepage_rec, one item at a time, and the CLI's median
	cost "report hugepage -i --json" "$DAMONC" --json report hugepage -i "$rec"
	rss[hugepage@$n]=$LAST_RSS
	cost "report holistic --json" "$DAMONC" --json report holistic -i "$rec"
	# shellcheck disable=SC2016 # expanded by that sh
	cost "report holistic -i - (stdin, spooled)" sh -c '"$1" report holistic -i - <"$2"' sh \
		"$DAMONC" "$rec"
	cost "report info --json" "$DAMONC" --json report info -i "$rec"
	cost "report nr-regions" "$DAMONC" report nr-regions -i "$rec"
	cost "report nr-regions --series" "$DAMONC" report nr-regions -i "$rec" --series
	cost "report times --access-rate 50%, (one region)" "$DAMONC" report times -i "$rec" \
		--access-rate 50%, --address-range 0x7f0000000000-0x7f0000100000
	cost "report times --age 1s, --json" "$DAMONC" --json report times -i "$rec" --age 1s,
	# report times' scan plus perf's command line (an empty profile: --dry-run runs no perf)
	: >"$W/profile"
	cost "report profile --access-rate 50%, --dry-run" "$DAMONC" report profile -i "$rec" \
		--profile "$W/profile" --access-rate 50%, \
		--address-range 0x7f0000000000-0x7f0000100000 --dry-run
	cost "report profile --age 1s, --json --dry-run" "$DAMONC" --json report profile \
		-i "$rec" --profile "$W/profile" --age 1s, --dry-run
	for r in "${streamed[@]}"; do
		cost "report $r --json (no rows)" "$DAMONC" --json report "$r" -i "$rec"
		rss[$r-base@$n]=$LAST_RSS
		cost "report $r --series --json" "$DAMONC" --json report "$r" -i "$rec" --series
		rss[$r@$n]=$LAST_RSS
	done
	cost "record -i --time-range (the middle half)" "$DAMONC" record -i "$rec" \
		--time-range "$((n / 4))s,$((3 * n / 4))s" -o "$W/subset"
	cost "record -i --address-range (a fifth)" "$DAMONC" record -i "$rec" \
		--address-range 0x7f0000000000-0x7f0006400000 -o "$W/subset"
	cost "record -i --aggregate 10s (10 snapshots each)" "$DAMONC" record -i "$rec" \
		--aggregate 10s -o "$W/subset"
	rm -f "$W/subset"
	# shellcheck disable=SC2016 # expanded by that sh
	cost "report access -i - (stdin)" sh -c '"$1" report access -i - <"$2"' sh "$DAMONC" "$rec"
	# shellcheck disable=SC2016
	cost "report heatmap -i - (stdin, spooled)" sh -c '"$1" report heatmap -i - <"$2"' sh \
		"$DAMONC" "$rec"
	if [ "$n" = 1000 ]; then
		"$GEN_RECORD" --snapshots "$n" --regions 500 --format damo-zlib >"$W/damo"
		echo "   damo's zlib JSON of the same: $(($(stat -c %s "$W/damo") / 1024)) KiB"
		if command -v python3 >/dev/null; then
			cost "baseline: python json.loads(zlib) of damo's" python3 -c \
				'import json,sys,zlib; json.loads(zlib.decompress(open(sys.argv[1],"rb").read()))' \
				"$W/damo"
		fi
		cost "report wss -i damo's zlib JSON" "$DAMONC" report wss -i "$W/damo"
		cost "report info -i damo's zlib JSON" "$DAMONC" report info -i "$W/damo"
		cost "report nr-regions -i damo's zlib JSON" "$DAMONC" report nr-regions -i "$W/damo"
		cost "record -i damo's JSON -o damonc format" "$DAMONC" record -i "$W/damo" -o "$W/c"
	fi
	rm -f "$rec"
done

# The rows of --series --json stream: the peak RSS on the record 100 times longer is the
# short record's, as is its ratio to the same report without rows (bounded by design).
echo
echo "== peak RSS of --series --json, $long snapshots against 1000 (same run)"
printf '%-28s %11s %11s %11s %11s %11s\n' "report" "1000" "$long" "$long/1000" \
	"/base 1000" "/base $long"
for r in "${streamed[@]}"; do
	s=${rss[$r@1000]} l=${rss[$r@$long]} bs=${rss[$r-base@1000]} bl=${rss[$r-base@$long]}
	printf '%-28s %7.1f MiB %7.1f MiB %10.2fx %10.2fx %10.2fx\n' "$r --series --json" \
		"$(echo "$s / 1024" | bc -l)" "$(echo "$l / 1024" | bc -l)" "$(echo "$l / $s" | bc -l)" \
		"$(echo "$s / $bs" | bc -l)" "$(echo "$l / $bl" | bc -l)"
done
s=${rss[access@1000]} l=${rss[access@$long]} bs=${rss[access-base@1000]} bl=${rss[access-base@$long]}
printf '%-28s %7.1f MiB %7.1f MiB %10.2fx %10.2fx %10.2fx\n' "access --all-snapshots --json" \
	"$(echo "$s / 1024" | bc -l)" "$(echo "$l / 1024" | bc -l)" "$(echo "$l / $s" | bc -l)" \
	"$(echo "$s / $bs" | bc -l)" "$(echo "$l / $bl" | bc -l)"
s=${rss[series@1000]} l=${rss[series@$long]}
printf '%-28s %7.1f MiB %7.1f MiB %10.2fx %10.2fx %10.2fx\n' "access --all-series --json" \
	"$(echo "$s / 1024" | bc -l)" "$(echo "$l / 1024" | bc -l)" "$(echo "$l / $s" | bc -l)" \
	"$(echo "$s / $bs" | bc -l)" "$(echo "$l / $bl" | bc -l)"
echo "($long/1000: the growth with the record's length; /base: against the same report" \
	"without --series, whose memory is bounded by design; 1.00x is flat)"
printf '%-28s %7.1f MiB %7.1f MiB %10.2fx\n' "holistic (three passes)" \
	"$(echo "${rss[holistic@1000]} / 1024" | bc -l)" \
	"$(echo "${rss[holistic@$long]} / 1024" | bc -l)" \
	"$(echo "${rss[holistic@$long]} / ${rss[holistic@1000]}" | bc -l)"
printf '%-28s %7.1f MiB %7.1f MiB %10.2fx\n' "hugepage -i --json" \
	"$(echo "${rss[hugepage@1000]} / 1024" | bc -l)" \
	"$(echo "${rss[hugepage@$long]} / 1024" | bc -l)" \
	"$(echo "${rss[hugepage@$long]} / ${rss[hugepage@1000]}" | bc -l)"

# record's CPU per snapshot, against reading the same files raw
if [ -n "${DAMON_EMU:-}" ] && [ -n "${EMU_SH:-}" ] && [ -c /dev/fuse ]; then
	# shellcheck source=tests/lib/emu.sh
	. "$EMU_SH"
	emu_setup 7.2 --scenario "$W/scenario" --no-real-actions
	"$HOTCOLD" --hot 64M --cold 64M --scenario "$W/scenario" >"$W/hc" 2>/dev/null &
	hc=$!
	trap 'kill "$hc" 2>/dev/null; rm -rf "$W"; emu_cleanup' EXIT
	for _ in $(seq 1 100); do [ -s "$W/hc" ] && break; sleep 0.05; done
	# a stat scheme over every region: record reuses it, raw-tried reads its regions
	"$DAMONC" start --pid "$hc" --action stat --sample 1ms --aggr 20ms --nr-regions 500,1000 \
		>/dev/null
	sleep 1
	regions=$("$DAMONC" --json report access --count 1 | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["snapshot"]["nr_regions"])')
	snaps=100
	echo
	echo "== record CPU per snapshot, damon-emu (FUSE), $regions regions a snapshot"
	printf '%-44s %11s %11s %13s\n' "what" "wall" "cpu" "peak RSS"
	cost "raw: command + read the files x1" "$RAW_TRIED" "$ADMIN" 0 0 1
	raw1=$LAST_CPU
	cost "raw: command + read the files x$((snaps + 1))" "$RAW_TRIED" "$ADMIN" 0 0 $((snaps + 1))
	raw=$(echo "($LAST_CPU - $raw1) / $snaps * 1000" | bc -l)
	cost "damonc record --count 1" "$DAMONC" record -o "$W/r1" --count 1 --interval 1ms
	rec1=$LAST_CPU
	cost "damonc record --count $((snaps + 1))" "$DAMONC" record -o "$W/rn" \
		--count $((snaps + 1)) --interval 1ms
	recn=$(echo "($LAST_CPU - $rec1) / $snaps * 1000" | bc -l)
	cost "damonc record --count $((snaps + 1)) --no-compress" "$DAMONC" record -o "$W/rn" \
		--count $((snaps + 1)) --interval 1ms --no-compress
	printf 'per snapshot: raw %.3f ms CPU, damonc record %.3f ms CPU: %.2fx the raw cost\n' \
		"$raw" "$recn" "$(echo "$recn / $raw" | bc -l)"
else
	echo "(record cost skipped: no damon-emu or /dev/fuse)"
fi
