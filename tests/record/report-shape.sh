#!/bin/bash
# damonc report info, nr-regions, footprints, access and times on generated records whose shape is known from
# gen-record's parameters: every figure is computed here from those parameters (nearest-rank
# percentiles in python) and compared with the reports' JSON and text; damo's formats, stdin,
# a cut record, the selection options, and bad input (exit 2, the option or file named).
#   report-shape.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2
here=$(dirname "$0")
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-shape.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# S snapshots of T targets; target t of snapshot i has R + i % V + t regions of 1 MiB; the
# intervals double from snapshot K on; the configuration names pids P, P+1, ...
S=20 R=10 T=2 V=5 K=10 P=4242
"$gen" --snapshots $S --regions $R --targets $T --vary $V --slow-from $K --config $P \
	>"$work/rec"

# the figures of report nr-regions' JSON that do not depend on where the time begins
py_pick() {
	python3 -c 'import json,sys; d=json.load(sys.stdin); print([(s["snapshots"], s["min"], s["max"], s["percentiles"]) for s in d["series"]])'
}
py_get() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
# expect: a JSON document against what python computes from S R T V K P (expect.sh)
# shellcheck source=tests/record/expect.sh
. "$here/expect.sh"

"$damonc" --json report info -i "$work/rec" >"$work/info.json"
expect "report info" "$work/info.json" '
check("snapshots", d["snapshots"], S * T)
check("start_ns", d["start_ns"], 1700000000000000000)
check("duration_us", d["duration_us"], (S - 1) * 1000000 + 100000)
check("format", d["input"]["format"], "damonc")
check("complete", d["input"]["complete"], True)
check("recorder", d["recording"]["recorder"], "gen-record")
check("has_config", d["has_config"], True)
check("series", [s["series"]["target"] for s in d["series"]], list(range(T)))
for t, s in enumerate(d["series"]):
    c = counts(t)
    check(f"{t} pid", s["pid"], P + t)
    check(f"{t} operations", s["operations"], "vaddr")
    check(f"{t} snapshots", s["snapshots"], S)
    check(f"{t} span", (s["start_us"], s["first_us"], s["last_us"], s["duration_us"]),
          (0, 100000, (S - 1) * 1000000 + 100000, (S - 1) * 1000000 + 100000))
    check(f"{t} regions", s["regions"], {"min": min(c), "mean": sum(c) / S, "max": max(c)})
    check(f"{t} bytes", s["total_bytes"], {"min": min(c) << 20, "max": max(c) << 20})
    iv = s["intervals"]
    check(f"{t} sample", iv["sample_us"], {"first": 5000, "last": 10000, "min": 5000, "max": 10000})
    check(f"{t} aggr", iv["aggr_us"], {"first": 100000, "last": 200000, "min": 100000, "max": 200000})
    check(f"{t} update", iv["update_us"], {"first": 1000000, "last": 1000000, "min": 1000000, "max": 1000000})
    check(f"{t} changes", iv["changes"], 1)
check("stats", d["scheme_stats"], {"items": S, "schemes": [
    {"kdamond": 0, "scheme": 0, "action": "pageout", "stats": S}]})
'
text=$("$damonc" report info -i "$work/rec")
for want in "input: $work/rec (damonc format)" "$((S * T)) snapshots in $T series" \
	"kdamond 0 target 1 (pid $((P + 1)), vaddr): $S snapshots from 0.100 s to $((S - 1)).100 s" \
	"intervals: sample 5 ms to 10 ms (first 5 ms), aggregation 100 ms to 200 ms (first 100 ms), update 1 s; changed 1 time" \
	"regions per snapshot: min $((R + 1)), mean $((R + 1 + (V - 1) / 2)).0, max $((R + V))" \
	"scheme stats: $S" "kdamond 0 scheme 0 (pageout): $S"; do
	grep -qF -- "$want" <<<"$text" || bad "report info's text lacks '$want': $text"
done

"$damonc" --json report nr-regions -i "$work/rec" --percentiles 0,10,50,90,100 --series \
	>"$work/nr.json"
expect "report nr-regions" "$work/nr.json" '
check("series", len(d["series"]), T)
for t, s in enumerate(d["series"]):
    c = counts(t)
    check(f"{t} key", s["series"], {"kdamond": 0, "context": 0, "target": t, "scheme": None})
    check(f"{t} n", (s["snapshots"], s["min"], s["max"], s["mean"]), (S, min(c), max(c), sum(c) / S))
    check(f"{t} span", (s["first_us"], s["last_us"]), (100000, (S - 1) * 1000000 + 100000))
    check(f"{t} percentiles", [(p["percentile"], p["nr_regions"]) for p in s["percentiles"]],
          [(p, pct(c, p)) for p in (0, 10, 50, 90, 100)])
check("rows", [(r["time_us"], r["series"]["target"], r["nr_regions"]) for r in d["nr_regions_series"]],
      [(i * 1000000 + 100000, t, R + i % V + t) for i in range(S) for t in range(T)])
'
# the selection: one target, a time range (snapshots that ended from 5 s to 9 s: 5..8)
"$damonc" --json report nr-regions -i "$work/rec" --target 1 --time-range 5s,9s \
	>"$work/sel.json"
expect "report nr-regions --target 1 --time-range 5s,9s" "$work/sel.json" '
check("series", [s["series"]["target"] for s in d["series"]], [1])
c = counts(1, range(5, 9))
check("n", (d["series"][0]["snapshots"], d["series"][0]["min"], d["series"][0]["max"]), (4, min(c), max(c)))
'
text=$("$damonc" report nr-regions -i "$work/rec" --series --target 0)
[ "$(grep -c ' kdamond 0 target 0 ' <<<"$text")" = "$S" ] ||
	bad "nr-regions --series --target 0 does not print $S rows: $text"
grep -qE "^ +8\.100 s kdamond 0 target 0 +$((R + 8 % V))$" <<<"$text" ||
	bad "nr-regions --series: no row for the snapshot at 8.1 s: $text"
text=$("$damonc" report nr-regions -i "$work/rec" --percentiles 50)
if ! grep -qF "kdamond 0 target 1: regions per snapshot over $S snapshots, 0.100 s to" \
	<<<"$text" || ! grep -qE "^  p50 +$((R + 1 + 2))$" <<<"$text"; then
	bad "nr-regions' text: $text"
fi

# a subset saved as a new record: target 1, snapshots that ended from 5 s to 9 s (5..8),
# memory in [BASE + 2 MiB, BASE + 5.5 MiB): regions 2, 3, 4 whole and half of 5
base=$((0x7f0000000000)) mib=$((1 << 20))
"$damonc" record -i "$work/rec" --target 1 --time-range 5s,9s \
	--address-range $((base + 2 * mib))-$((base + 11 * mib / 2)) -o "$work/sub" ||
	bad "record -i --target --time-range --address-range failed"
"$damonc" --json report info -i "$work/sub" >"$work/sub.json"
expect "report info of a subset" "$work/sub.json" '
check("series", [(s["series"]["target"], s["snapshots"]) for s in d["series"]], [(1, 4)])
check("regions", (d["series"][0]["regions"]["min"], d["series"][0]["regions"]["max"]), (4, 4))
check("bytes", (d["series"][0]["total_bytes"]["min"], d["series"][0]["total_bytes"]["max"]), (7 << 19, 7 << 19))
check("stats", d["scheme_stats"]["items"], 4)
check("subset", d["recording"]["subset"], {"from_us": 5000000, "to_us": 9000000, "address_start": 0x7f0000000000 + (2 << 20), "address_end": 0x7f0000000000 + (11 << 19), "kdamond": None, "target": 1, "aggregate_us": None})
check("complete", (d["input"]["complete"], d["input"]["end_reason"]), (True, "converted"))
'
"$damonc" --json report access -i "$work/sub" >"$work/sub.access.json"
expect "report access of a subset" "$work/sub.access.json" '
check("regions", [(r["start"] - 0x7f0000000000, r["end"] - 0x7f0000000000) for r in d["regions"]], [(2 << 20, 3 << 20), (3 << 20, 4 << 20), (4 << 20, 5 << 20), (5 << 20, 11 << 19)])
'
# the same selection read from the whole record says the same (times are the subset's own)
a=$("$damonc" --json report nr-regions -i "$work/rec" --target 1 --time-range 5s,9s \
	--address-range $((base + 2 * mib))-$((base + 11 * mib / 2)) | py_pick)
b=$("$damonc" --json report nr-regions -i "$work/sub" | py_pick)
[ "$a" = "$b" ] || bad "nr-regions of the subset ($b) differs from the selection ($a)"
# through pipes: stdin in, stdout out
"$damonc" record -i - --target 0 -o - <"$work/rec" | "$damonc" report info -i - |
	grep -qF "$S snapshots in 1 series" || bad "record -i - --target 0 -o - | report info -i -"

# re-aggregated: 5 s windows of 5 snapshots each (a snapshot ends 100 ms into its second);
# every MiB's accesses summed over the snapshots that held it, its age the newest one's in
# the window's aggregations, alike neighbours joined; read back through damo's JSON
"$damonc" record -i "$work/rec" --aggregate 5s -o "$work/agg" || bad "record -i --aggregate 5s failed"
"$damonc" record -i "$work/agg" --format damo-json -o "$work/agg.json" ||
	bad "record -i (aggregated) --format damo-json failed"
expect "record -i --aggregate 5s" "$work/agg.json" '
band, nmax, MiB, BASE = max(R // 10, 1), R + V - 1 + T - 1, 1 << 20, 0x7f0000000000
ages, prev, snaps = [0] * nmax, [None] * nmax, []
for i in range(S):
    nrs = []
    for j in range(nmax):
        na = 20 if j < R and (j + R - i % R) % R < band else 0
        ages[j] = ages[j] + 10 if i and prev[j] == na else 0
        prev[j] = na
        nrs.append(na)
    snaps.append((nrs, list(ages), 200000 if i >= K else 100000))
check("records", [(r["target_id"], len(r["snapshots"])) for r in d], [(t, S // 5) for t in range(T)])
for rec in d:
    t = rec["target_id"]
    for w, sn in enumerate(rec["snapshots"]):
        idx = range(5 * w, 5 * w + 5)
        aggr = sum(snaps[i][2] for i in idx)
        units = []
        for j in range(max(R + i % V + t for i in idx)):
            held = [i for i in idx if j < R + i % V + t]
            units.append((sum(snaps[i][0][j] for i in held),
                          snaps[held[-1]][1][j] * snaps[held[-1]][2]))
        want = []
        for j, u in enumerate(units):
            if want and want[-1][3] == u:
                want[-1][1] += MiB
            else:
                want.append([BASE + j * MiB, BASE + (j + 1) * MiB, u[0], u])
        want = [(a, b, n, u[1] // aggr) for a, b, n, u in want]
        got = [(int(r["start"]), int(r["end"]), r["nr_accesses"]["samples"],
                int(r["age"]["aggr_intervals"])) for r in sn["regions"]]
        check(f"target {t} window {w}", got, want)
        check(f"target {t} window {w} time", (int(sn["start_time"]), int(sn["end_time"])),
              (1700000000000000000 + 5 * w * 10**9, 1700000000000000000 + (5 * w + 4) * 10**9 + 10**8))
'
"$damonc" --json report info -i "$work/agg" >"$work/agg.info.json"
expect "report info of an aggregated record" "$work/agg.info.json" '
check("snapshots", d["snapshots"], T * S // 5)
check("aggregate_us", d["recording"]["subset"]["aggregate_us"], 5000000)
check("stats", d["scheme_stats"]["items"], S)
'
"$damonc" report info -i "$work/agg" >"$work/agg.info.txt"
grep -qF "aggregated to 5.000 s windows" "$work/agg.info.txt" ||
	bad "report info does not say the record was aggregated"
# all of the input, in longer windows: not "a subset of" it
grep -q ", aggregated from " "$work/agg.info.txt" ||
	bad "report info of an aggregated record: $(cat "$work/agg.info.txt")"

# footprints: the system's used memory and huge pages, each target's vsz and rss (gen-record
# --footprints gives the figures; nearest-rank percentiles computed here)
"$gen" --snapshots $S --targets $T --vary $V --config $P --footprints >"$work/fp"
"$damonc" --json report footprints -i "$work/fp" --series >"$work/fp.json"
expect "report footprints" "$work/fp.json" '
MiB = 1 << 20
used = [(1 << 30) + i * 16 * MiB for i in range(S)]
huge = [(i % 4) * 2 * MiB for i in range(S)]
want = {("used", None): used, ("huge", None): huge,
        ("huge_bp", None): [h * 10000 // u for h, u in zip(huge, used)]}
for t in range(T):
    want[("vsz", t)] = [(100 + t) * MiB] * S
    want[("rss", t)] = [(10 + i % V + t) * MiB for i in range(S)]
    # i * (100 + 50 t) ms of CPU time a second apart: from the second sample on
    want[("cpu_bp", t)] = [1000 + 500 * t] * (S - 1)
    # mappings recorded every fifth sample, carried forward
    want[("vmas", t)] = [3 + (i // 5) % 8 + t for i in range(S)]
want[("kdamond_cpu_bp", None)] = [200] * (S - 1)
pids = {"kdamond_cpu_bp": 99}
check("samples", (d["samples"], d["first_us"], d["last_us"]), (S, 100000, (S - 1) * 1000000 + 100000))
check("metrics", sorted((m["metric"], m["target"] if m["target"] is not None else -1) for m in d["metrics"]),
      sorted((k[0], k[1] if k[1] is not None else -1) for k in want))
for m in d["metrics"]:
    v = want[(m["metric"], m["target"])]
    check(m["metric"] + str(m["target"]), (m["samples"], m["min"], m["max"], m["pid"]),
          (len(v), min(v), max(v), pids.get(m["metric"]) if m["target"] is None else P + m["target"]))
    check(m["metric"] + str(m["target"]) + " percentiles",
          [(p["percentile"], p["value"]) for p in m["percentiles"]],
          [(p, pct(v, p)) for p in (0, 25, 50, 75, 90, 99, 100)])
check("rows", [(r["time_us"], r["used"], r["kdamond_cpu_bp"], [(x["target"], x["rss"], x["cpu_bp"], x["vmas"]) for x in r["targets"]]) for r in d["footprints_series"]],
      [(i * 1000000 + 100000, used[i], 200 if i else None,
        [(t, (10 + i % V + t) * MiB, 1000 + 500 * t if i else None, 3 + (i // 5) % 8 + t) for t in range(T)]) for i in range(S)])
'
"$damonc" --json report footprints -i "$work/fp" --target 1 --time-range 5s,9s >"$work/fp1.json"
expect "report footprints --target 1 --time-range 5s,9s" "$work/fp1.json" '
check("samples", d["samples"], 4)
check("targets", sorted({m["target"] for m in d["metrics"] if m["target"] is not None}), [1])
check("rss", [m["max"] for m in d["metrics"] if m["metric"] == "rss"], [max((10 + i % V + 1) << 20 for i in range(5, 9))])
'
text=$("$damonc" report footprints -i "$work/fp" --percentiles 50)
grep -qE "^target 1 \(pid $((P + 1))\) rss +$((10 + 2 + 1)).00 MiB$" <<<"$text" ||
	bad "report footprints' text: $text"
# a subset keeps the footprints of its time range; --no-footprints drops them
"$damonc" record -i "$work/fp" --time-range 5s,9s -o "$work/fp-sub"
[ "$("$damonc" --json report footprints -i "$work/fp-sub" | py_get samples)" = 4 ] ||
	bad "the subset does not hold the 4 footprints of its time range"
"$damonc" record -i "$work/fp" --no-footprints -o "$work/fp-none"

# report access as damo's users know it: --sort temperature (its weights), --format with
# damo's keywords, --raw-number, --total-size, all from the same rows as the JSON
"$damonc" --json report access -i "$work/rec" --target 0 --sort temperature \
	--temperature-weights 1,100,200 >"$work/temp.json"
expect "report access --sort temperature" "$work/temp.json" '
def temp(r):
    t = r["size"] * 1 + r["access_rate_bp"] / 100 * 100 + r["age_us"] * 200
    return t if r["access_rate_bp"] else -t
rows = d["regions"]
check("temperatures", [r["temperature"] for r in rows], [temp(r) for r in rows])
check("order", [r["temperature"] for r in rows], sorted((temp(r) for r in rows), reverse=True))
check("hot first", rows[0]["access_rate_bp"] > 0 and rows[-1]["access_rate_bp"] == 0, True)
'
fmt=$("$damonc" report access -i "$work/rec" --target 0 --sort temperature \
	--temperature-weights 1,100,200 --raw-number \
	--format '<index>: <start address>-<end address> <size> <access rate> <nr_accesses> <age> <temperature>')
want=$(python3 -c 'import json,sys
for i, r in enumerate(json.load(open(sys.argv[1]))["regions"]):
    print("%d: %d-%d %d %f %d %d %.0f" % (i, r["start"], r["end"], r["size"],
          r["access_rate_bp"] / 100, r["nr_accesses"], r["age_us"], r["temperature"]))' "$work/temp.json")
[ "$fmt" = "$want" ] || bad "report access --format --raw-number: $(diff <(echo "$want") <(echo "$fmt"))"
total=$("$damonc" report access -i "$work/rec" --target 0 --access-rate 1%, --total-size --raw-number)
[ "$total" = "$(python3 -c 'import json,sys; print(sum(r["size"] for r in json.load(open(sys.argv[1]))["regions"] if r["access_rate_bp"]))' "$work/temp.json")" ] ||
	bad "report access --total-size: $total"
# damo's recency-sz-hist: every region's bytes in the bin of its idle time
"$damonc" --json report access -i "$work/rec" --target 0 --histogram recency --bins 4 >"$work/hist.json"
expect "report access --histogram recency" "$work/hist.json" '
rows, bins, aggr = d["regions"], d["histogram"]["bins"], d["snapshot"]["aggr_us"]
idle = [0 if r["access_rate_bp"] else r["age_us"] + aggr for r in rows]
w = max(math.ceil((max(idle) + 1 - min(idle)) / 4), 1)
check("ranges", [(b["min"], b["max"]) for b in bins], [(min(idle) + w * i, min(idle) + w * (i + 1)) for i in range(4)])
check("bytes", [b["bytes"] for b in bins], [sum(r["size"] for r, x in zip(rows, idle) if b["min"] <= x < b["max"]) for b in bins])
'
[ "$("$damonc" report access -i "$work/rec" --target 0 --histogram temperature | grep -c '|$')" = 10 ] ||
	bad "report access --histogram temperature does not print 10 bars"
# damo's --hist_logscale (doubling ranges from max((max - min) / 2^bins, 1) until one passes
# the largest), --hist_cumulate (each from the smallest) and --hist_ranges (the user's)
hist_expect() { # WHAT JSON_FILE PYTHON_RANGES(vals)
	expect "$1" "$2" '
rows, bins, aggr = d["regions"], d["histogram"]["bins"], d["snapshot"]["aggr_us"]
def temp(r):
    return r["access_rate_bp"] / 100 * 100 + r["age_us"] * 100 if r["access_rate_bp"] else -r["age_us"] * 100
vals = [temp(r) for r in rows] if d["histogram"]["metric"] == "temperature" else [0 if r["access_rate_bp"] else r["age_us"] + aggr for r in rows]
lo, hi = min(vals), max(vals)
'"$3"'
check("ranges", [(b["min"], b["max"]) for b in bins], want)
check("bytes", [b["bytes"] for b in bins], [sum(r["size"] for r, x in zip(rows, vals) if a <= x < b) for a, b in want])
total, h = sum(r["size"] for r in rows), d["histogram"]
check("every byte once", h["cumulative"] or h["ranges"] == "given" or sum(b["bytes"] for b in bins) == total, True)
check("every byte in the last", not h["cumulative"] or bins[-1]["bytes"] == total, True)
'
}
"$damonc" --json report access -i "$work/rec" --target 0 --histogram recency --hist-logscale \
	--bins 4 >"$work/hist.json"
hist_expect "report access --hist-logscale" "$work/hist.json" '
w, want = max(int((hi - lo) / 2 ** 4), 1), []
while not want or want[-1][1] <= hi:
    s = want[-1][1] if want else lo
    want.append((s, s + w))
    w *= 2
check("kind", (d["histogram"]["ranges"], d["histogram"]["cumulative"]), ("logscale", False))'
"$damonc" --json report access -i "$work/rec" --target 0 --histogram temperature --hist-cumulate \
	--bins 3 >"$work/hist.json"
hist_expect "report access --hist-cumulate" "$work/hist.json" '
w = max(math.ceil((hi + 1 - lo) / 3), 1)
want = [(lo, lo + w * (i + 1)) for i in range(3)]
check("kind", (d["histogram"]["ranges"], d["histogram"]["cumulative"]), ("linear", True))
check("cumulated", [b["bytes"] for b in bins] == sorted(b["bytes"] for b in bins), True)'
"$damonc" --json report access -i "$work/rec" --target 0 --histogram recency \
	--hist-ranges 0,1s,500ms,2m >"$work/hist.json"
hist_expect "report access --hist-ranges" "$work/hist.json" '
want = [(0, 1e6), (5e5, 1.2e8)]
check("kind", d["histogram"]["ranges"], "given")'
[ "$("$damonc" report access -i "$work/rec" --target 0 --histogram recency \
	--hist-ranges 0,1s,1s,2m | sed -n 's/ .*//p' | tr '\n' ' ')" = "[0 [1 " ] ||
	bad "report access --hist-ranges: the text's ranges are not the two given"
# damo's per-byte percentiles (temperature-percentiles, recency-percentiles, and the regions'
# own attributes): the metric of the region holding the byte at p% of the total, regions in
# the metric's order, computed here from the JSON's rows
for m in temperature recency access-rate age size; do
	"$damonc" --json report access -i "$work/rec" --target 1 --percentiles-of $m \
		--percentiles 0,1,10,50,90,100 --temperature-weights 0,100,200 >"$work/pct.json"
	expect "report access --percentiles-of $m" "$work/pct.json" '
m, rows, aggr = "'$m'", d["regions"], d["snapshot"]["aggr_us"]
def metric(r):
    if m == "temperature":
        t = r["access_rate_bp"] / 100 * 100 + r["age_us"] * 200
        return t if r["access_rate_bp"] else -t
    if m == "recency":
        return 0 if r["access_rate_bp"] else r["age_us"] + aggr
    return {"access-rate": r["access_rate_bp"], "age": r["age_us"], "size": r["size"]}[m]
by = sorted(rows, key=metric)
total = sum(r["size"] for r in rows)
def at(p):
    cum = 0
    for r in by:
        cum += r["size"]
        if cum * 100 >= p * total:
            return metric(r)
check("metric", d["percentiles"]["metric"], {"temperature": "temperature", "recency": "idle_us",
      "access-rate": "access_rate_bp", "age": "age_us", "size": "bytes"}[m])
check("values", [(v["percentile"], v["value"]) for v in d["percentiles"]["values"]],
      [(p, at(p)) for p in (0, 1, 10, 50, 90, 100)])
'
done
text=$("$damonc" report access -i "$work/rec" --target 1 --percentiles-of age --raw-number)
want=$("$damonc" --json report access -i "$work/rec" --target 1 --percentiles-of age | python3 -c '
import json, sys
for v in json.load(sys.stdin)["percentiles"]["values"]:
    print("%g %d" % (v["percentile"], v["value"]))')
[ "$(awk 'NR > 1 { print $1, $2 }' <<<"$text")" = "$want" ] ||
	bad "report access --percentiles-of age's text: $text (want $want)"
# damo's simple-boxes: the length the age on a log2 scale (1 to 40 columns), the digit the
# access rate (0 to 9), both between the extremes of the regions shown; the text draws them
"$damonc" --json report access -i "$work/rec" --target 1 --boxes --sort hot >"$work/boxes.json"
expect "report access --boxes" "$work/boxes.json" '
rows, b = d["regions"], d["boxes"]
lg = lambda v: math.log2(v) if v > 0 else 0
def rescale(v, lo, hi, to_lo, to_hi):
    return int((v - lo) * ((to_hi - to_lo) / (hi - lo) if hi > lo else 1) + to_lo)
ages, rates = [r["age_us"] for r in rows], [r["access_rate_bp"] for r in rows]
check("scale", {k: b[k] for k in ("columns", "age_us_min", "age_us_max", "access_rate_bp_min",
      "access_rate_bp_max")}, {"columns": 40, "age_us_min": min(ages), "age_us_max": max(ages),
      "access_rate_bp_min": min(rates), "access_rate_bp_max": max(rates)})
check("lengths", [r["box_length"] for r in rows],
      [rescale(lg(a), lg(min(ages)), lg(max(ages)), 1, 40) for a in ages])
check("levels", [r["box_level"] for r in rows], [rescale(x, min(rates), max(rates), 0, 9) for x in rates])
check("both ends", (min(r["box_length"] for r in rows), max(r["box_length"] for r in rows),
      rows[0]["box_level"], rows[-1]["box_level"]), (1, 40, 9, 0))
'
got=$("$damonc" report access -i "$work/rec" --target 1 --boxes --sort hot | grep -oE '^ *\|[0-9]+\|')
want=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["regions"]:
    print(" " * (40 - r["box_length"]) + "|" + str(r["box_level"]) * r["box_length"] + "|")' "$work/boxes.json")
[ "$got" = "$want" ] || bad "report access --boxes' boxes: $(diff <(echo "$want") <(echo "$got"))"
[ "$("$damonc" report access -i "$work/rec" --target 0 --total-size)" = "$((R + (S - 1) % V)) MiB" ] ||
	bad "report access --total-size: $("$damonc" report access -i "$work/rec" --target 0 --total-size)"

# every snapshot (damo's default; --all-snapshots, --snapshot-index FIRST,LAST): each one's
# regions simulated here from gen-record's parameters, the hottest four of each
sim_py='
MiB, base = 1 << 20, 0x7f0000000000
def simulate(t):
    nmax, band = R + V - 1 + T - 1, max(R // 10, 1)
    prev, age, out = [0] * nmax, [0] * nmax, []
    for i in range(S):
        aggr = 200000 if i >= K else 100000
        for j in range(nmax):
            na = 20 if j < R and (j + R - i % R) % R < band else 0
            age[j] = age[j] + 10 if i and prev[j] == na else 0
            prev[j] = na
        rows = [(base + j * MiB, base + (j + 1) * MiB, 10000 if prev[j] else 0, age[j] * aggr)
                for j in range(R + i % V + t)]
        out.append((i, aggr, rows))
    return out
def hot4(rows):
    return sorted(rows, key=lambda r: (-r[2], -r[3], r[0]))[:4]
def report(i, aggr, rows):
    top = hot4(rows)
    return {"time_us": i * 1000000 + 100000, "aggr_us": aggr, "nr_regions": len(rows),
            "total_bytes": len(rows) * MiB, "shown_bytes": sum(e - s for s, e, _, _ in top),
            "regions": [(s, e, r, a) for s, e, r, a in top]}
def got(o):
    return {"time_us": o["snapshot"]["time_us"], "aggr_us": o["snapshot"]["aggr_us"],
            "nr_regions": o["snapshot"]["nr_regions"],
            "total_bytes": o["snapshot"]["total_bytes"], "shown_bytes": o["shown_bytes"],
            "regions": [(r["start"], r["end"], r["access_rate_bp"], r["age_us"])
                        for r in o["regions"]]}
'
"$damonc" --json report access -i "$work/rec" --target 1 --all-snapshots --sort hot --top 4 \
	>"$work/all.json"
expect "report access --all-snapshots" "$work/all.json" "$sim_py"'
want = [report(*s) for s in simulate(1)]
check("count", len(d["snapshots"]), S)
for i, o in enumerate(d["snapshots"]):
    check(f"snapshot {i}", got(o), want[i])
check("series", d["series"]["target"], 1)
check("input", d["input"]["complete"], True)
'
"$damonc" --json report access -i "$work/rec" --target 0 --snapshot-index 3,7 --sort hot --top 4 \
	>"$work/idx.json"
expect "report access --snapshot-index 3,7" "$work/idx.json" "$sim_py"'
check("snapshots 3 to 7", [got(o) for o in d["snapshots"]], [report(*s) for s in simulate(0)[3:8]])
'
"$damonc" --json report access -i "$work/rec" --target 0 --snapshot-index 12 --sort hot --top 4 \
	>"$work/idx1.json"
expect "report access --snapshot-index 12" "$work/idx1.json" "$sim_py"'
check("snapshot 12", got(d), report(*simulate(0)[12]))
'
# every series in turn (damo's records): the snapshots of target 0, then of target 1, each
# naming its series, then each series' record; from stdin too (spooled: a pass per series)
"$damonc" --json report access -i "$work/rec" --all-series --all-snapshots --sort hot --top 4 \
	>"$work/series.json"
"$damonc" --json report access -i - --all-series --all-snapshots --sort hot --top 4 \
	<"$work/rec" >"$work/series-stdin.json"
for f in series series-stdin; do
	expect "report access --all-series ($f)" "$work/$f.json" "$sim_py"'
want = [(t, report(*s)) for t in range(T) for s in simulate(t)]
check("snapshots", [(o["series"]["target"], got(o)) for o in d["snapshots"]], want)
check("records", [(r["series"]["target"], r["record"]["nr_snapshots"]) for r in d["records"]],
      [(t, S) for t in range(T)])
check("no series at the top", "series" in d, False)
'
done
# the text: damo's head of several records before each series (no --format-record-head);
# --target keeps one series, whose report has no head (damo's for one record)
got=$("$damonc" report access -i "$work/rec" --all-series --total-size)
want=$(for ((t = 0; t < T; t++)); do
	echo "kdamond 0 / context 0 / scheme None / target id $t / recorded for 100 ms from X"
	echo "$((R + (S - 1) % V + t)) MiB"
done)
[ "$(sed -E 's/ from .*/ from X/' <<<"$got")" = "$want" ] ||
	bad "report access --all-series --total-size: $(diff <(echo "$want") <(echo "$got"))"
got=$("$damonc" report access -i "$work/rec" --all-series --target 1 --total-size)
[ "$got" = "$((R + (S - 1) % V + 1)) MiB" ] || bad "report access --all-series --target 1: $got"
got=$("$damonc" report access -i "$work/rec" --all-series --total-size \
	--format-record-head 'target <target id>')
[ "$got" = "$(printf 'target 0\n%s MiB\ntarget 1\n%s MiB' $((R + (S - 1) % V)) \
	$((R + (S - 1) % V + 1)))" ] || bad "report access --all-series with a record head: $got"

# several ranges, as damo's several --snapshot_idx: each snapshot in any of them once, in the
# record's order (given out of order and overlapping; 99 is past the record's end)
"$damonc" --json report access -i "$work/rec" --target 0 --snapshot-index 15,17 \
	--snapshot-index 2 --snapshot-index 16,18 --snapshot-index 99 --sort hot --top 4 \
	>"$work/idx2.json"
expect "report access --snapshot-index (several)" "$work/idx2.json" "$sim_py"'
check("snapshots 2, 15 to 18", [got(o) for o in d["snapshots"]], [report(*s) for s in simulate(0) if s[0] == 2 or 15 <= s[0] <= 18])
'
# the text: a title per snapshot, with its time, the regions' lines under each
text=$("$damonc" report access -i "$work/rec" --target 1 --all-snapshots --sort hot --top 4)
want=$(python3 -c 'import json,sys
for o in json.load(open(sys.argv[1]))["snapshots"]:
    print("%.3f s" % (o["snapshot"]["time_us"] / 1e6), len(o["regions"]))' "$work/all.json")
got=$(awk '/snapshot at/ { if (t) print t, n; t = $7 " " $8; sub(/^at /, "", t); n = 0; next }
	/^0x/ { n++ } END { print t, n }' <<<"$text" | sed 's/ (sample//')
[ "$got" = "$want" ] || bad "report access --all-snapshots' text: $(diff <(echo "$want") <(echo "$got"))"
got=$("$damonc" report access -i "$work/rec" --target 0 --snapshot-index 0,4 --total-size --raw-number)
want=$(S=$S R=$R V=$V python3 -c 'import os
R, V = int(os.environ["R"]), int(os.environ["V"])
for i in range(5): print((R + i % V) << 20)')
[ "$got" = "$want" ] || bad "report access --snapshot-index 0,4 --total-size: $got (want $want)"

# the boxes' values, scales and sizes (damo's --region_box_*): age for the length on a
# linear scale, the access rate (in percent, damo's unit) for the digit on a log2 scale, the
# age for the height on a log2 scale; left-aligned, each row of a box drawn
# shellcheck disable=SC2054 # the commas are the options' values
box_opts=(--boxes --box-values age,access-rate,age --box-scales linear,log,log --box-length 5,30
	--box-height 2,4 --box-align left --sort hot --color never)
"$damonc" --json report access -i "$work/rec" --target 0 --at 7s "${box_opts[@]}" >"$work/box2.json"
expect "report access --box-*" "$work/box2.json" '
rows, b = d["regions"], d["boxes"]
lg = lambda v: math.log2(v) if v > 0 else 0
def rescale(v, lo, hi, to_lo, to_hi, log):
    if log:
        v, lo, hi = lg(v), lg(lo), lg(hi)
    return int((v - lo) * ((to_hi - to_lo) / (hi - lo) if hi > lo else 1) + to_lo)
ages, rates = [r["age_us"] for r in rows], [r["access_rate_bp"] / 100 for r in rows]
check("lengths", [r["box_length"] for r in rows],
      [rescale(a, min(ages), max(ages), 5, 30, False) for a in ages])
check("levels", [r["box_level"] for r in rows],
      [rescale(x, min(rates), max(rates), 0, 9, True) for x in rates])
check("heights", [r["box_height"] for r in rows],
      [rescale(a, min(ages), max(ages), 2, 4, True) for a in ages])
check("ends", (min(r["box_length"] for r in rows), max(r["box_length"] for r in rows),
      min(r["box_height"] for r in rows), max(r["box_height"] for r in rows)), (5, 30, 2, 4))
check("scales", (b["values"], b["scales"], b["columns"], b["length_min"], b["height_min"],
      b["height_max"], b["align"]), ({"length": "age", "digit": "access-rate", "height": "age"},
      {"length": "linear", "digit": "log", "height": "log"}, 30, 5, 2, 4, "left"))
'
# --box-scale-over record (damo's scale): every snapshot's boxes between the smallest and
# largest of all the snapshots reported, simulated here (stdin: spooled to be read twice)
"$damonc" --json report access -i - --target 0 --snapshot-index 2,4 --snapshot-index 11,12 \
	--top 4 "${box_opts[@]}" --box-scale-over record <"$work/rec" >"$work/box3.json"
"$damonc" --json report access -i "$work/rec" --target 0 --snapshot-index 2,4 \
	--snapshot-index 11,12 --top 4 "${box_opts[@]}" >"$work/box4.json"
export BOX4=$work/box4.json
expect "report access --box-scale-over record" "$work/box3.json" "$sim_py"'
lg = lambda v: math.log2(v) if v > 0 else 0
def rescale(v, lo, hi, to_lo, to_hi, log):
    if log:
        v, lo, hi = lg(v), lg(lo), lg(hi)
    return int((v - lo) * ((to_hi - to_lo) / (hi - lo) if hi > lo else 1) + to_lo)
snaps = [report(*s) for s in simulate(0) if 2 <= s[0] <= 4 or 11 <= s[0] <= 12]
rows = [r for s in snaps for r in s["regions"]]
ages, rates = [r[3] for r in rows], [r[2] / 100 for r in rows]
check("snapshots", [got(o) for o in d["snapshots"]], snaps)
for i, o in enumerate(d["snapshots"]):
    b = o["boxes"]
    check(f"{i}: range", (b["age_us_min"], b["age_us_max"], b["access_rate_bp_min"], b["access_rate_bp_max"], b["scale_over"]),
          (min(ages), max(ages), min(r[2] for r in rows), max(r[2] for r in rows), "record"))
    check(f"{i}: lengths", [r["box_length"] for r in o["regions"]],
          [rescale(r["age_us"], min(ages), max(ages), 5, 30, False) for r in o["regions"]])
    check(f"{i}: levels", [r["box_level"] for r in o["regions"]],
          [rescale(r["access_rate_bp"] / 100, min(rates), max(rates), 0, 9, True) for r in o["regions"]])
check("ranges differ per snapshot without it", len({(o["boxes"]["age_us_max"]) for o in json.load(open(os.environ["BOX4"]))["snapshots"]}) > 1, True)
'
text=$("$damonc" report access -i "$work/rec" --target 0 --at 7s "${box_opts[@]}")
got=$(grep -oE '^\|[0-9]+\|' <<<"$text")
want=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["regions"]:
    for _ in range(r["box_height"]):
        print("|" + str(r["box_level"]) * r["box_length"] + "|")' "$work/box2.json")
[ "$got" = "$want" ] || bad "report access --box-*'s boxes: $(diff <(echo "$want") <(echo "$got"))"
# the words after the last row of each box, in one column past the longest box
[ "$(awk '/ size / { print index($0, " size ") }' <<<"$text" | sort -u)" = 33 ] ||
	bad "report access --box-align left: the words are not in one column: $text"
# --format's <box> is --boxes' box (damo's region keyword)
got=$("$damonc" report access -i "$work/rec" --target 1 --sort hot --format '<box>')
want=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["regions"]:
    print(" " * (40 - r["box_length"]) + "|" + str(r["box_level"]) * r["box_length"] + "|")' "$work/boxes.json")
[ "$got" = "$want" ] || bad "report access --format '<box>': $(diff <(echo "$want") <(echo "$got"))"
# a digit showing nothing is drawn with '-', as damo's
"$damonc" report access -i "$work/rec" --target 0 --boxes --box-values size,none,none |
	grep -qE '^ {39}\|-\| size' || bad "report access --box-values size,none,none does not draw '|-|'"

# report times: gen-record's regions simulated here (the hot band, the ages, the intervals
# doubling from K), the matching snapshots grouped into runs; compared with the JSON ranges
times_check() { # WHAT TARGET ADDR_LO ADDR_HI RATE_MIN RATE_MAX AGE_MIN_US BYTES_MIN [OPTIONS...]
	local what=$1 t=$2 lo=$3 hi=$4 rmin=$5 rmax=$6 amin=$7 bmin=$8
	shift 8
	"$damonc" --json report times -i "$work/rec" --target "$t" "$@" >"$work/times.json"
	expect "report times $what" "$work/times.json" '
t, lo, hi, rmin, rmax, amin, bmin = '"$t, $lo, $hi, $rmin, $rmax, $amin, $bmin"'
MiB, base = 1 << 20, 0x7f0000000000
nmax = R + V - 1 + T - 1
prev, age, matched = [0] * nmax, [0] * nmax, []
for i in range(S):
    aggr, band = (200000 if i >= K else 100000), max(R // 10, 1)
    for j in range(nmax):
        na = 20 if j < R and (j + R - i % R) % R < band else 0
        age[j] = age[j] + 10 if i and prev[j] == na else 0
        prev[j] = na
    b = 0
    for j in range(R + i % V + t):
        s, e = max(base + j * MiB, lo), min(base + (j + 1) * MiB, hi)
        rate = 10000 if prev[j] else 0
        if s < e and rmin <= rate <= rmax and age[j] * aggr >= amin:
            b += e - s
    matched.append(b if b and b >= bmin else 0)
want, i = [], 0
while i < S:
    if not matched[i]:
        i += 1
        continue
    j = i
    while j < S and matched[j]:
        j += 1
    run = matched[i:j]
    want.append({"start_us": i * 1000000, "end_us": (j - 1) * 1000000 + 100000,
                 "snapshots": j - i, "min_bytes": min(run), "max_bytes": max(run)})
    i = j
check("ranges", d["ranges"], want)
check("series", d["series"]["target"], t)
check("some", len(want) > 0, True)
'
}
times_check "hot in [2 MiB, 4.5 MiB)" 0 $((base + 2 * mib)) $((base + 9 * mib / 2)) 5000 10000 0 0 \
	--access-rate 50%, --address-range $((base + 2 * mib))-$((base + 9 * mib / 2))
times_check "cold for 3 s, 8 MiB of it" 1 0 $((1 << 62)) 0 0 3000000 $((8 * mib)) \
	--access-rate 0%,0% --age 3s, --snapshot-size 8MiB,
times_check "of every region" 0 0 $((1 << 62)) 0 10000 0 0
# the text: one line per range, the JSON's
"$damonc" --json report times -i "$work/rec" --access-rate 50%, --address-range \
	$((base + 2 * mib))-$((base + 4 * mib)) >"$work/times.json"
text=$("$damonc" report times -i "$work/rec" --access-rate 50%, --address-range \
	$((base + 2 * mib))-$((base + 4 * mib)))
want=$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["ranges"]:
    print("%9.3f s to %9.3f s" % (r["start_us"] / 1e6, r["end_us"] / 1e6), r["snapshots"])' "$work/times.json")
got=$(sed -E 's/^( *[0-9.]+ s to +[0-9.]+ s) .*  ([0-9]+) snapshots?, .*/\1 \2/' <<<"$text")
if [ -z "$want" ] || [ "$got" != "$want" ]; then bad "report times' text: $text (want $want)"; fi
[ "$("$damonc" report times -i "$work/rec" --size 2MiB,)" = "no snapshot has regions of the pattern" ] ||
	bad "report times with no match: $("$damonc" report times -i "$work/rec" --size 2MiB,)"

# damo's formats (no configuration: pid and operations unknown), stdin, a cut record
for fmt in damo-json damo-zlib; do
	"$gen" --snapshots $S --regions $R --targets $T --vary $V --format $fmt >"$work/$fmt"
	"$damonc" --json report info -i - <"$work/$fmt" >"$work/$fmt.json"
	expect "report info of $fmt" "$work/$fmt.json" '
check("format", d["input"]["format"], "'$fmt'")
check("snapshots", d["snapshots"], S * T)
check("recorder", d["recording"]["recorder"], "damo")
check("pid", [s["pid"] for s in d["series"]], [None] * T)
check("regions", [s["regions"]["max"] for s in d["series"]], [R + V - 1 + t for t in range(T)])
'
	"$damonc" --json report nr-regions -i "$work/$fmt" >"$work/$fmt.nr.json"
	expect "report nr-regions of $fmt" "$work/$fmt.nr.json" '
check("p50", [s["percentiles"][2]["nr_regions"] for s in d["series"]], [pct(counts(t), 50) for t in range(T)])
'
done
"$gen" --snapshots 3 --regions $R --no-end >"$work/cut"
"$damonc" --json report info -i "$work/cut" 2>/dev/null >"$work/cut.json"
expect "report info of a cut record" "$work/cut.json" '
check("complete", d["input"]["complete"], False)
check("snapshots", d["snapshots"], 3)
'
"$damonc" report info -i "$work/cut" 2>/dev/null | grep -qF "(damonc format, cut short)" ||
	bad "report info does not say a record was cut short"

# bad input: exit 2 and a sentence naming what was wrong
case_() { # RC MESSAGE ARGS...
	local want_rc=$1 want=$2 err rc=0
	shift 2
	err=$("$damonc" "$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = "$want_rc" ] || bad "'damonc $*' exited $rc, not $want_rc ($err)"
	[[ $err == *"$want"* ]] || bad "'damonc $*' says '$err', not '$want'"
}
for r in info nr-regions times; do
	case_ 2 "report $r: -i '$work/none': No such file" report $r -i "$work/none"
	case_ 2 "report $r: -i '/etc/hostname': not a record" report $r -i /etc/hostname
	case_ 2 "report $r: unknown option '--frob'" report $r -i "$work/rec" --frob
	case_ 2 "report $r: unexpected argument 'extra'" report $r -i "$work/rec" extra
	case_ 2 "--target 'x'" report $r -i "$work/rec" --target x
	case_ 2 "--time-range '9s,5s': START is after END" report $r -i "$work/rec" --time-range 9s,5s
done
case_ 2 "-o '$work/rec' is the record -i reads" record -i "$work/rec" --target 0 -o "$work/rec"
case_ 2 "they need -i FILE" record --time-range 1s,2s -o "$work/x"
case_ 2 "--format damo-json converts a whole record" record -i "$work/rec" --target 0 \
	--format damo-json -o "$work/x"
case_ 2 "--address-range '5-1'" record -i "$work/rec" --address-range 5-1 -o "$work/x"
case_ 2 "--aggregate '0': at least 1ms" record -i "$work/rec" --aggregate 0 -o "$work/x"
case_ 2 "--aggregate 'soon'" record -i "$work/rec" --aggregate soon -o "$work/x"
case_ 2 "--aggregate work on a record: they need -i FILE" record --aggregate 5s -o "$work/x"
case_ 2 "--format damo-json converts a whole record" record -i "$work/rec" --aggregate 5s \
	--format damo-json -o "$work/x"
[ ! -e "$work/x" ] || bad "a refused record -i wrote its output"
"$damonc" report info -i "$work/rec" | grep -qF "$((S * T)) snapshots" || bad "-o = -i harmed the record"
case_ 1 "no footprint in $work/fp-none" report footprints -i "$work/fp-none"
case_ 2 "--percentiles 'x'" report footprints -i "$work/fp" --percentiles x
case_ 2 "report footprints: unexpected argument 'rss'" report footprints -i "$work/fp" rss
case_ 2 "--format: unknown keyword '<start>'" report access -i "$work/rec" --format '<start>'
case_ 2 "--temperature-weights '1,2'" report access -i "$work/rec" --temperature-weights 1,2
case_ 2 "--sort 'warm'" report access -i "$work/rec" --sort warm
case_ 2 "--histogram 'age'" report access -i "$work/rec" --histogram age
case_ 2 "--bins '0'" report access -i "$work/rec" --histogram recency --bins 0
case_ 2 "--percentiles-of 'warm'" report access -i "$work/rec" --percentiles-of warm
case_ 2 "--percentiles '101'" report access -i "$work/rec" --percentiles-of age --percentiles 101
case_ 2 "--percentiles: of which metric?" report access -i "$work/rec" --percentiles 50
case_ 2 "--bins, --hist-logscale, --hist-cumulate and --hist-ranges: the ranges of which histogram?" report access -i "$work/rec" --bins 5
case_ 2 "the ranges of which histogram?" report access -i "$work/rec" --hist-logscale
case_ 2 "--hist-ranges '0,1s,2'" report access -i "$work/rec" --histogram recency --hist-ranges 0,1s,2
case_ 2 "--hist-ranges '5,1'" report access -i "$work/rec" --histogram temperature --hist-ranges 5,1
case_ 2 "--hist-ranges '1s,2s'" report access -i "$work/rec" --histogram temperature --hist-ranges 1s,2s
case_ 2 "--hist-ranges gives the ranges" report access -i "$work/rec" --histogram recency --hist-ranges 0,1s --hist-cumulate
case_ 2 "different outputs: choose one" report access -i "$work/rec" --boxes --histogram recency
case_ 2 "different outputs: choose one" report access -i "$work/rec" --percentiles-of age --total-size
case_ 2 "--snapshot-index 99: $work/rec has $S snapshots" report access -i "$work/rec" --target 0 \
	--snapshot-index 99
case_ 2 "--snapshot-index '-1'" report access -i "$work/rec" --snapshot-index -1
case_ 2 "--snapshot-index '5,2'" report access -i "$work/rec" --snapshot-index 5,2
case_ 2 "--snapshot-index '1,x'" report access -i "$work/rec" --snapshot-index 1,x
case_ 2 "--snapshot-index 30: $work/rec has $S snapshots" report access -i "$work/rec" \
	--target 0 --snapshot-index 40,50 --snapshot-index 30
case_ 2 "choose snapshots differently" report access -i "$work/rec" --at 2s --all-snapshots
case_ 2 "--box-colorset 'red': expected emotion, gray or flame" report access -i "$work/rec" \
	--boxes --box-colorset red
case_ 2 "--box-scales 'log,log'" report access -i "$work/rec" --boxes --box-scales log,log
case_ 2 "--box-scale-over 'all'" report access -i "$work/rec" --boxes --box-scale-over all
case_ 2 "--box-scale-over shape --boxes" report access -i "$work/rec" --all-snapshots \
	--box-scale-over record
case_ 2 "--box-scales 'log,linear,cubic'" report access -i "$work/rec" --boxes \
	--box-scales log,linear,cubic
case_ 2 "--box-values 'none,age,size'" report access -i "$work/rec" --boxes --box-values none,age,size
case_ 2 "--box-length '0,10'" report access -i "$work/rec" --boxes --box-length 0,10
case_ 2 "--box-height '3,2'" report access -i "$work/rec" --boxes --box-height 3,2
case_ 2 "--color 'yes'" report access -i "$work/rec" --boxes --color yes
case_ 2 "shape --boxes (or --format's <box>): add it" report access -i "$work/rec" --box-align left
case_ 2 "--percentiles '101'" report nr-regions -i "$work/rec" --percentiles 101
case_ 2 "--percentiles ''" report nr-regions -i "$work/rec" --percentiles ''
case_ 2 "--percentiles '50,x'" report nr-regions -i "$work/rec" --percentiles 50,x
case_ 1 "no snapshot in $work/rec matches" report nr-regions -i "$work/rec" --target 7
case_ 1 "no snapshot in $work/rec matches" report times -i "$work/rec" --target 7
case_ 2 "--snapshot-size '1G': expected MIN,MAX" report times -i "$work/rec" --snapshot-size 1G
case_ 2 "--snapshot-size 'x,': expected sizes" report times -i "$work/rec" --snapshot-size x,
case_ 2 "--age '5s,1s': MIN is above MAX" report times -i "$work/rec" --age 5s,1s
case_ 2 "--access-rate '0%,200%': at most 100%" report times -i "$work/rec" --access-rate 0%,200%
case_ 2 "--size '1x,'" report times -i "$work/rec" --size 1x,
[ "$("$damonc" report info -i "$work/rec" --target 7 | sed -n 3p)" = "no snapshot" ] ||
	bad "report info does not say that no snapshot matched"

# damo's snapshot keywords (--format-snapshot-head and -tail): every figure computed here from
# gen-record's shape: N 1 MiB regions, the one hot region of the last snapshot with 20 of 20
# samples, sample 5 ms, aggr 100 ms; with --filter-passed half of a hot region and a quarter of
# a cold one passed DAMOS filters
"$gen" --snapshots 3 --regions 10 --filter-passed >"$work/fp.rec"
"$gen" --snapshots 3 --regions 10 >"$work/nofp.rec"
head='tb <total bytes> n <number of regions> [<start time>, <end time>] (<duration>)\nintervals: <snapshot intervals>\ntuning <intervals tuning status> pos <positive access samples ratio> <damos stats>'
tail='bw <estimated memory bandwidth> fp <filters passed bytes> fpbw <filters passed estimated memory bandwidth>'
for rec in fp nofp; do
	got=$("$damonc" report access -i "$work/$rec.rec" --raw-number --format '<index>' \
		--format-snapshot-head "$head" --format-snapshot-tail "$tail")
	want=$(FP=$rec python3 -c '
import os
MiB = 1 << 20
n, sample, aggr = 10, 5000, 100000
start, end = 2000000, 2100000          # us since the record began (the third snapshot)
sizes = [MiB] * n
acc = [20 if i == 2 else 0 for i in range(n)]   # the band of snapshot 2 is region 2
ratio = aggr // sample
obs = sum(s * a for s, a in zip(sizes, acc))
maxobs = sum(s * ratio for s in sizes)
bw = obs / (aggr / 1e6)
fp = os.environ["FP"] == "fp"
fpb = sum(s // 2 if a else s // 4 for s, a in zip(sizes, acc))
fpbw = sum((s // 2 if a else s // 4) * a for s, a in zip(sizes, acc)) / (aggr / 1e6)
print(f"tb {sum(sizes)} n {n} [{start}, {end}] ({end - start})")
print(f"intervals: sample {sample} aggr {aggr} (max access hz {ratio / (aggr / 1e6):g})")
print(f"tuning {obs * 100 / maxobs:g} ({obs} / {maxobs}) {sample} {aggr} pos {sum(acc) * 100 / (ratio * n):g} none")
for i in range(n):
    print(i)
fps = str(fpb) if fp else "N/A"
fpbws = str(int(fpbw)) + " per second" if fp else "N/A"
print(f"bw {int(bw)} per second fp {fps} fpbw {fpbws}")
')
	[ "$got" = "$want" ] ||
		bad "report access --format-snapshot-head/-tail ($rec): $(diff <(echo "$want") <(echo "$got"))"
done
"$damonc" --json report access -i "$work/fp.rec" --format-snapshot-tail '<total bytes>' >"$work/fp.json"
expect "report access --format-snapshot-tail's JSON" "$work/fp.json" '
MiB = 1 << 20
s = d["snapshot"]
check("mem_bw_bytes_per_s", s["mem_bw_bytes_per_s"], 20 * MiB * 10)
check("max_access_hz", s["max_access_hz"], 200)
check("observed_bytes", s["observed_bytes"], 20 * MiB)
check("max_observed_bytes", s["max_observed_bytes"], 10 * 20 * MiB)
check("filters_passed_bytes", s["filters_passed_bytes"], MiB // 2 + 9 * MiB // 4)
check("filters_passed_mem_bw_bytes_per_s", s["filters_passed_mem_bw_bytes_per_s"], MiB // 2 * 20 * 10)
'
"$damonc" --json report access -i "$work/nofp.rec" --format-snapshot-tail '<total bytes>' \
	| python3 -c 'import json,sys; sys.exit("filters_passed_bytes" in json.load(sys.stdin)["snapshot"])' ||
	bad "report access: filters_passed_bytes in the JSON of a record without them"
# the blocks are the lines of --histogram and --percentiles-of
[ "$("$damonc" report access -i "$work/rec" --target 0 --format-snapshot-tail '<temperature-sz histogram>' | tail -n 10)" = \
  "$("$damonc" report access -i "$work/rec" --target 0 --histogram temperature | tail -n 10)" ] ||
	bad "report access <temperature-sz histogram> is not --histogram temperature's"
[ "$("$damonc" report access -i "$work/rec" --target 1 --format-snapshot-head '<recency percentiles>' | head -n 8)" = \
  "$("$damonc" report access -i "$work/rec" --target 1 --percentiles-of recency | tail -n 8)" ] ||
	bad "report access <recency percentiles> is not --percentiles-of recency's"
# <heatmap>: damo's heatmap_str() (80 columns over the regions' total size, each the
# size-weighted damo temperature of what is in it, as a digit between the coolest and the
# hottest column) in python, on target 1 of the last snapshot of $work/rec
heat_py='
import math, os
S, R, T, V, K = (int(os.environ[k]) for k in "S R T V K".split())
MiB = 1 << 20
i, t = S - 1, 1
sample, aggr = (10000, 200000) if i >= K else (5000, 100000)
n = R + i % V + t
band = max(R // 10, 1)
regions = []
for j in range(n):
    hot = j < R and (j + R - i % R) % R < band
    # ages: a region unchanged since it last changed rate counts 10 aggregations a snapshot
    regions.append([j * MiB, (j + 1) * MiB, 20 if hot else 0])
ages = [0] * n
prev = [None] * n
for k in range(S):
    for j in range(n):
        hot = j < R and (j + R - k % R) % R < band
        na = 20 if hot else 0
        ages[j] = ages[j] + 10 if k and prev[j] == na else 0
        prev[j] = na
def temp(r, a, b, age):
    pct = r[2] * 100 / (aggr / sample)
    score = (b - a) * 0 + pct * 100 + age * aggr * 100
    return score if pct > 0 else -score
total = sum(r[1] - r[0] for r in regions)
unit = total / 80
cols = []
start = regions[0][0]
while start < regions[-1][1]:
    end = start + unit
    heat = sum(temp(r, max(r[0], start), min(r[1], end), ages[j]) * (min(r[1], end) - max(r[0], start))
               for j, r in enumerate(regions) if r[1] > start and r[0] < end)
    cols.append(heat / (end - start))
    start = end
lo, hi = min(cols), max(cols)
u = (hi - lo) / 9 or hi / 9 or 1
print("".join(str(int((c - lo) / u)) for c in cols))
print(f"# min/max temperatures: {lo:.0f}, {hi:.0f}, column size: {unit:.0f}")
'
got=$("$damonc" report access -i "$work/rec" --target 1 --raw-number --total-size \
	--format-snapshot-head '<heatmap>' | head -n 2)
want=$(S=$S R=$R T=$T V=$V K=$K python3 -c "$heat_py")
[ "$got" = "$want" ] || bad "report access <heatmap>: $(diff <(echo "$want") <(echo "$got"))"
# --style detailed: damo's templates, the df-passed lines with a record taken through ops
# filters (gen-record's: allow anon), their words as damo's <filters passed type>
got=$("$damonc" report access -i "$work/fp.rec" --raw-number --style detailed)
if [ "$(sed -n 3p <<<"$got")" != "intervals: sample 5000 aggr 100000 (max access hz 200)" ] ||
   [ "$(sed -n 4p <<<"$got")" != "# damos filters (df): allow anon" ] ||
   [ "$(sed -n 5p <<<"$got" | cut -c1-9)" != "df-pass: " ] ||
   [ "$(sed -n 7p <<<"$got")" != "0 addr $((0x7f0000000000)) size $((1 << 20)) access 0.000000 age 1000000 df-passed $((1 << 18))" ] ||
   [ "$(tail -n 3 <<<"$got")" != "memory bw estimate: 209715200 per second  df-passed: 104857600 per second
total size: 10485760  df-passed 2883584
record DAMON intervals: sample 5000, aggr 100000" ]; then
	bad "report access --style detailed: $got"
fi
[ "$("$damonc" report access -i "$work/nofp.rec" --style detailed | grep -c 'df-pass')" = 0 ] ||
	bad "report access --style detailed: df-passed lines for a record without them"
got=$("$damonc" report access -i "$work/nofp.rec" --total-size \
	--format-snapshot-head '[<filters passed type>]')
[ "$(head -n 1 <<<"$got")" = "[n/a]" ] || bad "<filters passed type> without filters: $got"
# the histogram and percentile styles: the filters, the df-passed distribution, then all of it
got=$("$damonc" report access -i "$work/fp.rec" --raw-number --style temperature-sz-hist)
if [ "$(head -n 2 <<<"$got")" != "# damos filters (df): allow anon
df-passed:" ] || [ "$(grep -c '^all:$' <<<"$got")" != 1 ]; then
	bad "report access --style temperature-sz-hist of a record through filters: $got"
fi
for st in cold hot; do
	"$damonc" --json report access -i "$work/rec" --target 1 --style $st >"$work/style.json"
	expect "report access --style $st" "$work/style.json" "
t = [r['temperature'] for r in d['regions']]
check('order', t, sorted(t, reverse='$st' == 'hot'))
check('boxes', 'boxes' in d, True)
"
done
# the region keywords <access hz> (20 samples in 100 ms) and <filters passed bytes>
[ "$("$damonc" report access -i "$work/fp.rec" --raw-number --format '<access hz> <filters passed bytes>' | sed -n 2,3p)" = \
  "0.000000 $((1 << 18))
200.000000 $((1 << 19))" ] || bad "report access <access hz> <filters passed bytes>"
[ "$("$damonc" report access -i "$work/nofp.rec" --format '<filters passed bytes>' | sort -u)" = "N/A" ] ||
	bad "report access <filters passed bytes> of a record without them is not N/A"
case_ 2 "--style 'warm': expected detailed" report access -i "$work/rec" --style warm
case_ 2 "--style chooses the output" report access -i "$work/rec" --style hot --boxes
case_ 2 "--format-snapshot-head: unknown keyword '<heat map>'" report access -i "$work/rec" \
	--format-snapshot-head 'x <heat map>'
case_ 2 "--format-snapshot-tail: unknown keyword '<size>'" report access -i "$work/rec" \
	--format-snapshot-tail '<size>'

# damo's record templates: printed once around the snapshots reported, their keywords the
# series' and those of the first and last snapshot (gen-record: snapshot i from i s after
# 1700000000 s for 100 ms, sample 5 ms, aggr 100 ms, doubled from snapshot K on (the first
# one's are shown); target t of $work/rec)
rhead='k <kdamond index> c <context index> s <scheme index> t <target id> at <abs start time> for <duration>\nint <intervals> goal <intervals goal> src <data source>'
rtail='end <duration>\n<format strings>'
rec_py='
import os
first, last, t, n = (int(os.environ[k]) for k in ("FIRST", "LAST", "TGT", "N"))
start_us = 1700000000 * 10**6 + first * 10**6
dur = (last - first) * 10**6 + 100000
sample, aggr = (10000, 200000) if first >= int(os.environ.get("K", 99)) else (5000, 100000)
print(f"k 0 c 0 s None t {t} at {start_us} for {dur}")
print(f"int sample {sample}, aggr {aggr} goal N/A src unknown")
print("\n\n".join(["0"] * n))
print(f"end {dur}")
for name, v in (("record head", os.environ["RH"]), ("snapshot head", ""), ("region", "<index>"),
                ("snapshot tail", ""), ("record tail", os.environ["RT"])):
    print(f"{name}: \"{v}\"")
'
for sel in "0 19 20 all" "0 2 3 0,2" "1 1 1 1" "4 7 4 4,7"; do
	read -r first last n idx <<<"$sel"
	if [ "$idx" = all ]; then opt=(--all-snapshots); else opt=(--snapshot-index "$idx"); fi
	got=$("$damonc" report access -i "$work/rec" --target 1 --raw-number --top 1 \
		--format '<index>' "${opt[@]}" --format-record-head "$rhead" \
		--format-record-tail "$rtail" < <(:) | grep -v '^$' || true)
	want=$(FIRST=$first LAST=$last TGT=1 N=$n K=$K RH=$rhead RT=$rtail python3 -c "$rec_py" |
		grep -v '^$')
	[ "$got" = "$want" ] ||
		bad "report access --format-record-head/-tail ($sel): $(diff <(echo "$want") <(echo "$got"))"
done
# the head's <duration> is known before the last snapshot: stdin is read twice, spooled
[ "$("$damonc" report access -i - --target 0 --all-snapshots --total-size --raw-number \
	--format-record-head '<duration>' <"$work/rec" | head -n 1)" = "$(((S - 1) * 1000000 + 100000))" ] ||
	bad "report access --format-record-head '<duration>' from stdin"
# --json: the record object, of the snapshots reported
"$damonc" --json report access -i "$work/rec" --target 1 --all-snapshots --total-size >"$work/recfig.json"
expect "report access --all-snapshots' record" "$work/recfig.json" '
r = d["record"]
check("nr_snapshots", r["nr_snapshots"], S)
check("start_ns", r["start_ns"], 1700000000 * 10**9)
check("duration_ns", r["duration_ns"], (S - 1) * 10**9 + 10**8)
check("end_ns", r["end_ns"], r["start_ns"] + r["duration_ns"])
check("intervals", (r["sample_us"], r["aggr_us"]), (5000, 100000))
'
"$damonc" --json report access -i "$work/rec" --target 0 --snapshot-index 12 >"$work/recfig.json"
expect "report access --snapshot-index's record" "$work/recfig.json" '
r = d["record"]
check("record", (r["nr_snapshots"], r["start_ns"], r["duration_ns"], r["sample_us"], r["aggr_us"]),
      (1, 1700000000 * 10**9 + 12 * 10**9, 10**8, 10000, 200000))
'
# --min-chars-for: the keyword's text padded to N characters, in each template
got=$("$damonc" report access -i "$work/nofp.rec" --raw-number --top 2 --format '[<index>][<size>]' \
	--format-snapshot-tail '[<number of regions>]' --format-record-head '[<kdamond index>]' \
	--min-chars-for '<index>,3' --min-chars-for '<size>,9' --min-chars-for '<size>,12' \
	--min-chars-for '<number of regions>,1' --min-chars-for '<kdamond index>,4')
want=$(python3 -c '
print("[" + "0".ljust(4) + "]")
for i in range(2):
    print("[" + str(i).ljust(3) + "][" + str(1 << 20).ljust(12) + "]")
print("[10]")')
[ "$got" = "$want" ] || bad "report access --min-chars-for: $(diff <(echo "$want") <(echo "$got"))"
# --min-chars-for on multi-line keywords (damo's apply_min_chars): spaces after the block's
# last line until the block, its new lines counted, has N characters
for kw in '<temperature percentiles>' '<recency-sz histogram>' '<region box colors>'; do
	plain=$("$damonc" report access -i "$work/nofp.rec" --format '' --format-snapshot-head "[$kw]")
	n=2000	# more than any of them has: each padded
	got=$("$damonc" report access -i "$work/nofp.rec" --format '' \
		--format-snapshot-head "[$kw]" --min-chars-for "$kw,$n")
	want=$(N=$n PLAIN=$plain python3 -c '
import os, re
n, s = int(os.environ["N"]), os.environ["PLAIN"]
# the block: from after "[" to the last new line before "]" (or to "]" on one line)
head, rest = s[:1], s[1:]
end = rest.index("]")
block = rest[:end]
nl = block.endswith("\n")
text = block[:-1] if nl else block
text += " " * max(n - len(text), 0)
print(head + text + ("\n" if nl else "") + rest[end:])')
	[ "$got" = "$want" ] || bad "report access --min-chars-for '$kw,$n': $(diff <(echo "$want") <(echo "$got") | head -5)"
done
# <temperature>: damo's temperature_of() (weights 0,100,100) of each region's printed age and
# access rate; an unaccessed region of age 0 is 0, not -0
got=$("$damonc" report access -i "$work/nofp.rec" --all-snapshots --raw-number \
	--format '<age> <access rate> <temperature>' | grep -v '^$' | python3 -c '
import sys
n = 0
for line in sys.stdin:
    age, rate, temp = line.split()   # raw: us, the access rate in percent (damo: %f)
    score = float(rate) * 100 + int(age) * 100
    want = "%d" % (score if float(rate) > 0 else -score)
    n += 1
    if temp != want:
        print(f"{line.strip()}: want {want}")
print("" if n == 30 else f"{n} regions, not 30")')
[ -z "$got" ] || bad "report access <temperature>: $got"
# damo's --format set|append AREA TEMPLATE: set is the --format-* option of AREA; append adds
# after the template in force, damo's default (--style detailed's) when nothing else chooses
got=$("$damonc" report access -i "$work/nofp.rec" --raw-number --top 2 \
	--format-set 'region=[<index>]' --format-append 'region=<size>' \
	--format-append 'region=|' --format-set 'snapshot_head=n <number of regions>' \
	--format-append 'snapshot-tail=tb <total bytes>' --format-append 'record_head=k' \
	--format-append 'record_head=<kdamond index>')
want=$(python3 -c '
print("k0")
print("n 10")
for i in range(2):
    print(f"[{i}]{1 << 20}|")
print(f"tb {10 << 20}")')
[ "$got" = "$want" ] || bad "report access --format-set/--format-append: $(diff <(echo "$want") <(echo "$got"))"
# an empty template prints nothing (damo's); <format strings> shows what was appended
got=$("$damonc" report access -i "$work/nofp.rec" --format '' --format-append 'snapshot_head=H' \
	--format-snapshot-tail '<number of regions>' --format-append 'snapshot_tail=!' \
	--format-record-tail '<format strings>')
want=$(printf '%s\n' H '10!' 'record head: ""' 'snapshot head: "H"' 'region: ""' \
	'snapshot tail: "<number of regions>!"' 'record tail: "<format strings>"')
[ "$got" = "$want" ] || bad "report access --format '' with <format strings>: $(diff <(echo "$want") <(echo "$got"))"
# --format-append keeps its arguments, in the order given: up to 64 of them
app=()
for i in $(seq 64); do app+=(--format-append "region=$((i % 10))"); done
got=$("$damonc" report access -i "$work/nofp.rec" --top 1 --format '' "${app[@]}")
want=$(for i in $(seq 64); do printf %d $((i % 10)); done)
[ "$got" = "$want" ] || bad "report access with 64 --format-append: '$got', not '$want'"
case_ 2 "--format-append 'region=x': at most 64 of them" report access -i "$work/nofp.rec" \
	--format '' "${app[@]}" --format-append region=x
for rec in fp nofp; do
	plain=$("$damonc" report access -i "$work/$rec.rec" --style detailed --all-snapshots)
	got=$("$damonc" report access -i "$work/$rec.rec" --all-snapshots \
		--format-append 'region= T' --format-append 'snapshot_head=|H' \
		--format-append 'snapshot_tail=|X' --format-append 'record_tail= !')
	want=$(PLAIN=$plain python3 -c '
import os, re
lines = os.environ["PLAIN"].split("\n")
out = []
for i, l in enumerate(lines):
    if re.match(r"\d+ addr ", l):
        l += " T"
    # the head ends before the first region line, the tail at "total size"
    elif i + 1 < len(lines) and re.match(r"0 addr ", lines[i + 1]):
        l += "|H"
    elif l.startswith("total size"):
        l += "|X"
    elif l.startswith("record DAMON intervals"):
        l += " !"
    out.append(l)
print("\n".join(out))')
	[ "$got" = "$want" ] || bad "report access --format-append on damo's default ($rec): $(diff <(echo "$want") <(echo "$got") | head -6)"
done
# damo's <damos stats>: a damo JSON record of scheme 1's tried regions (damo's report access
# --tried_regions_of), each snapshot with its damos_stats; the stats of the snapshot reported,
# as damo's DamosStats.to_str() prints them (raw), and the JSON's damos_stats
python3 -c '
import json
MiB = 1 << 20
snaps = []
for i in range(3):
    st = {"nr_tried": str(10 + i), "sz_tried": str((i + 1) * MiB), "nr_applied": str(i),
          "sz_applied": str(i * 4096), "sz_ops_filter_passed": str(i * 512),
          "qt_exceeds": str(7 * i), "nr_snapshots": str(i + 1), "max_nr_snapshots": "0"}
    snaps.append({"start_time": str(1700000000000000000 + i * 10**9),
                  "end_time": str(1700000000100000000 + i * 10**9), "total_bytes": str(2 * MiB),
                  "damos_stats": st, "regions": [
                      {"start": str(k * MiB), "end": str((k + 1) * MiB),
                       "nr_accesses": {"samples": k, "percent": None},
                       "age": {"usec": None, "aggr_intervals": "1"}} for k in range(2)]})
rec = [{"kdamond_idx": 0, "context_idx": 0, "intervals": {"sample_us": "5000",
        "aggr_us": "100000", "ops_update_us": "1000000"}, "scheme_idx": 1, "target_id": 0,
        "scheme_filters": [], "snapshots": snaps}]
print(json.dumps(rec))' >"$work/tried.json"
damos_py='
import os
i = int(os.environ["I"])
MiB = 1 << 20
print("[" + "\n".join([f"tried {10 + i} times ({(i + 1) * MiB})",
                       f"applied {i} times ({i * 4096})", f"{i * 512} passed filters",
                       f"quota exceeded {7 * i} times", f"{i * 512}",
                       f"tried {i + 1} snapshots (max N/A)"]) + "]")'
for sel in "--snapshot-index 0:0" "--at 1.05s:1" "--snapshot-index 2:2" ":2"; do
	read -r -a sopt <<<"${sel%:*}"
	i=${sel#*:}
	got=$("$damonc" report access -i "$work/tried.json" "${sopt[@]}" --raw-number --format '' \
		--format-snapshot-tail '[<damos stats>]')
	want=$(I=$i python3 -c "$damos_py")
	[ "$got" = "$want" ] || bad "report access <damos stats> ($sel): $(diff <(echo "$want") <(echo "$got"))"
done
got=$("$damonc" report access -i "$work/tried.json" --all-snapshots --raw-number --format '' \
	--format-snapshot-head '' --format-snapshot-tail '<damos stats>' | grep -c 'passed filters')
[ "$got" = 3 ] || bad "report access --all-snapshots <damos stats>: $got of 3"
[ "$("$damonc" report access -i "$work/nofp.rec" --format '' --format-snapshot-tail '<damos stats>')" = none ] ||
	bad "report access <damos stats> of damonc's capture: not damo's none"
"$damonc" --json report access -i "$work/tried.json" --all-snapshots --total-size >"$work/tried.out"
expect "report access --json damos_stats" "$work/tried.out" '
MiB = 1 << 20
for i, e in enumerate(d["snapshots"]):
    check(f"damos_stats {i}", e["snapshot"]["damos_stats"],
          {"scheme": 1, "nr_tried": 10 + i, "sz_tried": (i + 1) * MiB, "nr_applied": i,
           "sz_applied": i * 4096, "sz_ops_filter_passed": i * 512, "qt_exceeds": 7 * i,
           "nr_snapshots": i + 1})
'
# --snapshot-heatmap-width and -static: damo's heatmap_str(), HeatPixel and heatmap_dots()
# ported to python, on a damo JSON record whose regions have gaps (sizes in MiB: 4 hot,
# 2 cold at age 3, a gap of 34, 2 half-accessed at age 1, a gap of 1, 4 cold)
python3 -c '
import json
MiB = 1 << 20
regs = [(0, 4, 20, 0), (4, 6, 0, 3), (40, 42, 10, 1), (43, 47, 0, 0)]
base = 0x7f0000000000
rec = [{"kdamond_idx": 0, "context_idx": 0, "intervals": {"sample_us": "5000",
        "aggr_us": "100000", "ops_update_us": "1000000"}, "scheme_idx": None, "target_id": 0,
        "scheme_filters": [], "snapshots": [{"start_time": "1700000000000000000",
        "end_time": "1700000000100000000", "total_bytes": str(12 * MiB), "regions": [
        {"start": str(base + a * MiB), "end": str(base + b * MiB),
         "nr_accesses": {"samples": n, "percent": None},
         "age": {"usec": None, "aggr_intervals": str(g)}} for a, b, n, g in regs]}]}]
print(json.dumps(rec))' >"$work/gaps.json"
gaps_py='
import math, os, sys
MiB = 1 << 20
base = 0x7f0000000000
width, static = int(os.environ["W"]), os.environ["ST"] == "1"
regs = [(base + a * MiB, base + b * MiB, n * 100 / 20, g * 100000)
        for a, b, n, g in [(0, 4, 20, 0), (4, 6, 0, 3), (40, 42, 10, 1), (43, 47, 0, 0)]]
def temp(r, a, b):   # temperature_of() with weights 0,100,100 of r cut to [a, b)
    score = r[2] * 100 + r[3] * 100
    return score if r[2] > 0 else -score
total = regs[-1][1] - regs[0][0] if static else sum(r[1] - r[0] for r in regs)
unit = total / width
pixels, lo, hi = [], None, None
start = regs[0][0]
while start < regs[-1][1]:
    end = start + unit
    inside = [r for r in regs if r[1] > start and r[0] < end]
    if not inside:
        nxt = next((r for r in regs if r[0] > end), None)
        if nxt is None:
            break
        start2 = nxt[0] // unit * unit
        pixels.append(("void", start, start2))
        start = start2
        continue
    heat = sum(temp(r, max(r[0], start), min(r[1], end)) * (min(r[1], end) - max(r[0], start))
               for r in inside)
    t = heat / (end - start)
    pixels.append(("heat", t, None))
    lo = t if lo is None or t < lo else lo
    hi = t if hi is None or t > hi else hi
    start = end
u = (hi - lo) / 9 or hi / 9 or 1
dots = []
for kind, a, b in pixels:
    if kind == "void":
        nr = (b - a) / unit
        dots.append("[...]" if not static and nr > 4 else "." * int(nr))
    else:
        dots.append(str(int((a - lo) / u)))
print("".join(dots))
print(f"# min/max temperatures: {lo:.0f}, {hi:.0f}, column size: {unit:.0f}")
'
for ws in "80 0" "24 0" "7 0" "80 1" "47 1" "10 1"; do
	read -r w st <<<"$ws"
	opt=(--snapshot-heatmap-width "$w")
	[ "$st" = 1 ] && opt+=(--snapshot-heatmap-static)
	got=$("$damonc" report access -i "$work/gaps.json" --raw-number --total-size \
		--format-snapshot-head '<heatmap>' "${opt[@]}" | head -n 2)
	want=$(W=$w ST=$st python3 -c "$gaps_py")
	[ "$got" = "$want" ] ||
		bad "report access <heatmap> width $w static $st: $(diff <(echo "$want") <(echo "$got"))"
done
# --snapshot-heatmap-colorset: damo's colours of each level (_damo_ascii_color's colorsets)
for cs in gray flame emotion; do
	got=$("$damonc" report access -i "$work/gaps.json" --total-size --color always \
		--format-snapshot-head '<heatmap>' --snapshot-heatmap-colorset $cs | head -n 1)
	want=$(CS=$cs PLAIN=$(W=80 ST=0 python3 -c "$gaps_py" | head -n 1) python3 -c '
import os
sets = {"gray": [[232] * 10, [237, 239, 241, 243, 245, 247, 249, 251, 253, 255]],
        "flame": [[232, 1, 1, 2, 3, 3, 20, 21, 26, 27, 27], [239, 235, 237, 239, 243, 245, 247, 249, 251, 255]],
        "emotion": [[232, 234, 20, 21, 26, 2, 3, 1, 1, 1], [239, 235, 237, 239, 243, 245, 247, 249, 251, 255]]}
bg, fg = sets[os.environ["CS"]]
out, s = "", os.environ["PLAIN"]
i = 0
while i < len(s):
    if s[i].isdigit():
        lv = int(s[i])
        out += f"\x1b[48;5;{bg[lv]}m\x1b[38;5;{fg[lv]}m{lv}\x1b[0m"
    else:
        out += s[i]
    i += 1
print(out)')
	[ "$got" = "$want" ] || bad "report access --snapshot-heatmap-colorset $cs"
done
case_ 2 "--format-record-head: unknown keyword '<size>'" report access -i "$work/rec" \
	--format-record-head 'x <size>'
case_ 2 "--format-record-tail: unknown keyword '<heatmap>'" report access -i "$work/rec" \
	--format-record-tail '<heatmap>'
case_ 2 "--snapshot-heatmap-width '0': at least 1" report access -i "$work/rec" \
	--format-snapshot-head '<heatmap>' --snapshot-heatmap-width 0
case_ 2 "--snapshot-heatmap-width 'x'" report access -i "$work/rec" \
	--format-snapshot-head '<heatmap>' --snapshot-heatmap-width x
case_ 2 "--snapshot-heatmap-colorset 'red': expected gray, flame or emotion" report access \
	-i "$work/rec" --format-snapshot-head '<heatmap>' --snapshot-heatmap-colorset red
case_ 2 "shape <heatmap>" report access -i "$work/rec" --snapshot-heatmap-static
case_ 2 "--min-chars-for '<size>': expected KEYWORD,N" report access -i "$work/rec" \
	--min-chars-for '<size>'
case_ 2 "--min-chars-for '<size>,-1': expected KEYWORD,N" report access -i "$work/rec" \
	--min-chars-for '<size>,-1'
case_ 2 "--min-chars-for '<nope>,3': '<nope>' is not a region, record or snapshot keyword" \
	report access -i "$work/rec" --min-chars-for '<nope>,3'
case_ 2 "--format-append 'head=x': expected AREA=TEMPLATE, AREA one of record_head" \
	report access -i "$work/rec" --format-append 'head=x'
case_ 2 "--format-set 'region': expected AREA=TEMPLATE" report access -i "$work/rec" \
	--format-set region
case_ 2 "--format-set: unknown keyword '<heatmap>'" report access -i "$work/rec" \
	--format-set 'region=<heatmap>'
case_ 2 "--format-append: unknown keyword '<size>'" report access -i "$work/rec" \
	--format-append 'record_tail=<size>'
case_ 2 "--format-append region: the regions are shown without a template" report access \
	-i "$work/rec" --boxes --format-append 'region= x'
case_ 2 "--min-chars-for '<size>,100001': N is a number of characters, 0 to 100000" \
	report access -i "$work/rec" --min-chars-for '<size>,100001'

expect_run
[ $fail = 0 ] && echo "ok: the reports agree with the generated records"
exit $fail
