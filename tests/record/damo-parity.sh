#!/bin/bash
# What damo users compare: on damo's own test record (tests/fixtures/damo: damo's
# tests/report/damon.data.json_compressed and the outputs damo's test suite expects of it),
# report wss and report nr-regions give damo's percentiles exactly, 1 to 100, with
# --exclude-snapshots 20 (damo's default) and damo's mean; without it every snapshot counts.
# damo's side files of a record (FILE.mem_footprint, FILE.vmas, as damo's _damo_records.py
# writes them) are read: footprints in report footprints, mappings in the heatmap's axis.
# --raw-number writes access rates in percent as damo does (%f).
#   damo-parity.sh DAMONC GEN_RECORD FIXTURES
set -euo pipefail
damonc=$1 gen=$2 fix=$3/damo
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-damo.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

rec=$fix/report-damon.data.json_compressed
pcts=$(seq -s, 1 100)
# "PERCENTILE VALUE" lines of damo's expected output (comments and bars left out)
damo_lines() { awk '!/^#/ { print $1, $2 }' "$1"; }
damo_mean() { awk -F'\t' '/^# avr:/ { print $2 }' "$1"; }

"$damonc" --json report wss -i "$rec" --exclude-snapshots 20 --percentiles "$pcts" \
	>"$work/wss.json" || bad "report wss of damo's record"
got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for p in d["percentiles"]:
    print("%g %d" % (p["percentile"], p["wss"]))
print("mean", int(d["mean"]))' "$work/wss.json")
want=$(damo_lines "$fix/report-wss.expected"; echo "mean $(damo_mean "$fix/report-wss.expected")")
[ "$got" = "$want" ] || bad "report wss differs from damo's: $(diff <(echo "$want") <(echo "$got") | head -8)"

"$damonc" --json report nr-regions -i "$rec" --exclude-snapshots 20 --percentiles "$pcts" \
	>"$work/nr.json" || bad "report nr-regions of damo's record"
got=$(python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["series"][0]
for p in s["percentiles"]:
    print("%g %d" % (p["percentile"], p["nr_regions"]))
print("mean", int(s["mean"]))' "$work/nr.json")
want=$(damo_lines "$fix/report-nr_regions.expected"
	echo "mean $(damo_mean "$fix/report-nr_regions.expected")")
[ "$got" = "$want" ] ||
	bad "report nr-regions differs from damo's: $(diff <(echo "$want") <(echo "$got") | head -8)"

# without --exclude-snapshots, every snapshot: 543 of them, not 523
n=$("$damonc" --json report wss -i "$rec" | python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshots"])')
[ "$n" = 543 ] || bad "report wss counts $n snapshots of 543"
n=$("$damonc" --json report wss -i "$rec" --exclude-snapshots 20 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["snapshots"])')
[ "$n" = 523 ] || bad "--exclude-snapshots 20 leaves $n snapshots of 543"

# damo's side files: a record of one target (10 regions of 1 MiB from 0x7f0000000000), its
# footprints (pid 4242: 100 MiB, 10 MiB then more resident; the system: 8 GiB, 4 GiB free)
# and mappings (4 MiB at the start, 2 MiB 8 MiB in: the rest of the regions is unmapped)
"$gen" --snapshots 5 --regions 10 --format damo-json >"$work/d.json"
python3 - "$work/d.json" <<'EOF'
import json, sys
mem, vmas, base = [], [], 0x7f0000000000
for i in range(5):
    t = 1700000000.1 + i + 0.05
    mem.append({"time": t, "footprints": [
        {"pid": 4242, "footprint": {"size": 25600, "resident": 2560 + i * 256, "shared": 0,
                                    "trs": 0, "lrs": 0, "drs": 0, "dt": 0}},
        {"pid": None, "footprint": {"total": 8 << 20, "free": 4 << 20, "available": 5 << 20,
                                    "buffers": 0, "cached": 0}}]})
    vmas.append({"time": t, "procvmas": [{"pid": 4242, "vmas": [
        {"start": base, "end": base + (4 << 20), "name": "[heap]"},
        {"start": base + (8 << 20), "end": base + (10 << 20), "name": "libc.so.6"}]}]})
json.dump(mem, open(sys.argv[1] + ".mem_footprint", "w"), indent=4)
json.dump(vmas, open(sys.argv[1] + ".vmas", "w"), indent=4)
EOF
"$damonc" --json report footprints -i "$work/d.json" >"$work/fp.json" || bad "report footprints"
got=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
m = {(x["metric"], x["pid"]): (x["min"], x["max"]) for x in d["metrics"]}
print(d["samples"], m.get(("rss", 4242)), m.get(("vsz", 4242)), m.get(("used", None)))' "$work/fp.json")
[ "$got" = "5 (10485760, 14680064) (104857600, 104857600) (4294967296, 4294967296)" ] ||
	bad "damo's footprints read as: $got"
rows=$("$damonc" --json report heatmap -i "$work/d.json" |
	python3 -c 'import json,sys; print(sum(r["end"] - r["start"] for r in json.load(sys.stdin)["address_bins"]) >> 20)')
[ "$rows" = 6 ] || bad "the heatmap of damo's record with its mappings covers $rows MiB, not 6"

# --raw-number: the access rate in percent, as damo prints it (its format_percent(): %f)
got=$("$damonc" report access -i "$work/d.json" --raw-number --format '<access rate>' | sort -u | head -3)
grep -qxE '[0-9]+\.[0-9]{6}' <<<"$got" || bad "--raw-number's access rate: $got"

[ $fail = 0 ] && echo "ok: damo's percentiles, side files and raw numbers"
exit $fail
