#!/bin/bash
# damonc report holistic on a generated record whose shape is known from gen-record's
# parameters: the heatmaps' cells, the working set and footprint percentiles are computed
# here in python from those parameters and compared with the JSON and the text; the summary
# is report info's; --last, stdin, damo's format, bad input (exit 2, the option named); and,
# when perf can record here, --profile's rows against perf report's table parsed in python.
#   report-holistic.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2
here=$(dirname "$0")
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-holistic.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# S snapshots of T targets; target t of snapshot i has R + i % V + t regions of 1 MiB, the
# (i % R)-th hot (20 accesses: all samples); intervals double from snapshot K on; footprints
S=20 R=10 T=2 V=5 K=10 P=4242
"$gen" --snapshots $S --regions $R --targets $T --vary $V --slow-from $K --config $P \
	--footprints >"$work/rec"

# shellcheck source=tests/record/expect.sh
. "$here/expect.sh"

"$damonc" --json report holistic -i "$work/rec" >"$work/h.json"
"$damonc" --json report info -i "$work/rec" >"$work/info.json"
expect "report holistic" "$work/h.json" '
info = json.load(open(work + "/info.json"))
del info["format_version"], info["input"]
check("info is report info", d["info"], info)
check("snapshots", d["info"]["snapshots"], S * T)
check("last_us", d["last_us"], None)
check("maps", [(m["series"]["target"], m["address_range"], m["snapshots"]) for m in d["heatmaps"]],
      [(t, {"start": BASE, "end": BASE + (R + V - 1 + t) * MiB}, S) for t in range(T)])
for m in d["heatmaps"]:
    t = m["series"]["target"]
    check(f"target {t} cells", m["access_rate_bp"], heat(t, range(S), 60, 10))
band = max(R // 10, 1)
check("wss", (d["wss"]["series"], d["wss"]["snapshots"], d["wss"]["mean"]), (None, S, T * band * MiB))
check("wss percentiles", [(p["percentile"], p["wss"]) for p in d["wss"]["percentiles"]],
      [(p, T * band * MiB) for p in (0, 25, 50, 75, 100)])
got = {(m["metric"], m["target"]): [p["value"] for p in m["percentiles"]] for m in d["footprints"]["metrics"]}
want = {("used", None): [(1 << 30) + i * 16 * MiB for i in range(S)]}
for t in range(T):
    want[("rss", t)] = [(10 + i % V + t) * MiB for i in range(S)]
    want[("vsz", t)] = [(100 + t) * MiB for i in range(S)]
for k, v in want.items():
    check(f"footprint {k}", got.get(k), [pct(v, p) for p in (0, 25, 50, 75, 100)])
check("samples", d["footprints"]["samples"], S)
check("hotspots", d["hotspots"], None)
'
# the last 5 s of each series: the snapshots that ended from 14.1 s to 19.1 s; 4x3 cells
"$damonc" --json report holistic -i - --last 5s --bins 4x3 <"$work/rec" >"$work/last.json"
expect "report holistic --last 5s --bins 4x3" "$work/last.json" '
check("last_us", d["last_us"], 5000000)
check("input", d["input"]["name"], "stdin")
check("snapshots", [m["snapshots"] for m in d["heatmaps"]], [S - 14] * T)
check("columns", [len(m["access_rate_bp"]) for m in d["heatmaps"]], [4] * T)
# rows of 8 MiB (4 MiB would need 4 for 14 and 15 MiB)
check("rows", [len(m["access_rate_bp"][0]) for m in d["heatmaps"]], [2] * T)
check("first bin", [m["time_bins_us"][0] for m in d["heatmaps"]], [14100000] * T)
'

text=$("$damonc" report holistic -i "$work/rec")
for want in "Record" "Heatmaps" "Working set size and memory footprints" \
	"$((S * T)) snapshots in $T series" \
	"# kdamond 0 target 1, address range 1 of 1: $((R + V)) MiB" \
	"kdamond 0 target 0 0x00007f0000000000-0x00007f0000e00000: access rate over time (x: 0.100 s to 19.100 s, $S columns)"; do
	grep -qF -- "$want" <<<"$text" || bad "the text lacks '$want'"
done
grep -qE '^wss \(all targets\) +2.00 MiB +2.00 MiB +2.00 MiB +2.00 MiB +2.00 MiB$' <<<"$text" ||
	bad "the text's wss row: $text"
grep -qE "^target 1 \(pid $((P + 1))\) rss +11.00 MiB +12.00 MiB +13.00 MiB +14.00 MiB +15.00 MiB$" <<<"$text" ||
	bad "the text's rss row of target 1"
# rows of 2 MiB (1 MiB ones would be more than 10): 7 for target 0's 14 MiB, 8 for 1's 15
[ "$(grep -c '^0x[0-9a-f]* |' <<<"$text")" = 15 ] || bad "not 7 and 8 rows in the heatmaps"
if grep -E '^0x[0-9a-f]* \|' <<<"$text" | awk 'length($0) > 80 { f = 1 } END { exit !f }'; then
	bad "a heatmap row is wider than 80 columns"
fi
grep -q "Hotspot" <<<"$text" && bad "hotspot functions without --profile"

# damo's format, and one target
"$gen" --snapshots 6 --regions 30 --targets 2 --format damo-json >"$work/rec.damo"
n=$("$damonc" --json report holistic -i "$work/rec.damo" --target 1 |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["heatmaps"]), d["wss"]["snapshots"], d["heatmaps"][0]["series"]["target"])')
[ "$n" = "1 6 1" ] || bad "damo's record --target 1: maps, wss snapshots, target: $n"
# damo's records hold one target after the other: the working set still sums both targets'
# snapshots of one time (30 regions: 3 hot MiB each)
n=$("$damonc" --json report holistic -i "$work/rec.damo" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["heatmaps"]), d["wss"]["snapshots"], {p["wss"] for p in d["wss"]["percentiles"]})')
[ "$n" = "2 6 {$((6 << 20))}" ] || bad "damo's record: maps, wss snapshots, wss values: $n"

# bad input: exit 2, the option or file named
for args in "--bins 0x5" "--bins 60" "--last 0" "--top 0" "--profile $work/none" \
	"--profile $work" "--profile $work/rec" "--perf $work/none --profile $work/rec"; do
	rc=0
	# shellcheck disable=SC2086 # words on purpose
	err=$("$damonc" report holistic -i "$work/rec" $args 2>&1 >/dev/null) || rc=$?
	opt=${args%% *}
	[ "$rc" = 2 ] || bad "report holistic $args: exit $rc, not 2"
	grep -qF -- "${opt}" <<<"$err" || bad "report holistic $args: '$err' does not name $opt"
done
rc=0
err=$(PATH=/nonexistent "$damonc" report holistic -i "$work/rec" --profile "$work/rec" 2>&1) || rc=$?
{ [ "$rc" = 1 ] && grep -q "perf, which is not installed" <<<"$err"; } ||
	bad "no perf in PATH: exit $rc, '$err'"

# --profile: the rows are perf report's (parsed here), the first --top of them
# shellcheck disable=SC2016 # expanded by that sh
spin='i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done'
if ! command -v perf >/dev/null; then
	echo "perf is missing: --profile not tested"
elif ! perf record -q -o "$work/perf.data" -- sh -c "$spin" >/dev/null 2>&1; then
	echo "perf cannot record here: --profile not tested"
else
	perf report -i "$work/perf.data" --stdio >"$work/perf.txt" 2>/dev/null
	"$damonc" --json report holistic -i "$work/rec" --profile "$work/perf.data" --top 7 \
		>"$work/prof.json"
	expect "report holistic --profile" "$work/prof.json" '
import re
rows = []
for line in open(work + "/perf.txt"):
    m = re.match(r"^\s*([\d.]+)%\s+(\S.*?)\s{2,}(\S.*?)\s{2,}\[(.)\]\s+(.*?)\s*$", line)
    if m and not line.lstrip().startswith("#"):
        rows.append({"overhead_percent": float(m[1]), "command": m[2], "shared_object": m[3],
                     "symbol": m[5], "where": m[4]})
check("some rows", len(rows) > 0, True)
check("profile", (d["hotspots"]["profile"], d["hotspots"]["perf"]), (work + "/perf.data", "perf"))
check("rows", d["hotspots"]["rows"], rows[:7])
'
	text=$("$damonc" report holistic -i "$work/rec" --profile "$work/perf.data" --top 3)
	[ "$(sed -n '/^Hotspot functions/,$p' <<<"$text" | grep -c '%  ')" = 3 ] ||
		bad "--top 3: not 3 rows of hotspot functions"
fi

expect_run
[ "$fail" = 0 ] && echo "ok: report holistic agrees with the generated record"
exit "$fail"
