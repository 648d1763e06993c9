#!/bin/bash
# 7.2's access probes through the record stack on damon-emu: a paddr kdamond with a probe
# that passes every sample and one that passes anonymous memory (which the emulator's
# physical memory is not), recorded; each region's hits are then the samples of an
# aggregation and 0 (aggr 20 ms / sample 5 ms: 4), in report access's <probe hits>, its
# table, --style detailed (damo's line for a record with probe hits) and its JSON; a subset
# (record -i --time-range) and damo's record JSON, there and back, keep them; re-aggregated
# (record -i --aggregate), they add up over the snapshots merged; a live report has them.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

PROFILE=${EMU_PROFILE_UNDER_TEST:-7.2}
rec_setup "$PROFILE" --no-real-actions
emu_profile_since "$PROFILE" 7.2 || fail "profile $PROFILE has no access probes"
rec_start --ops paddr --action stat --sample 5ms --aggr 20ms --probe all --probe allow:anon
"$DAMONC" record -o "$WORK/rec" --count 4 --interval 200ms 2>"$WORK/record.err" ||
	fail "record failed: $(cat "$WORK/record.err")"

# every_hits FILE WANT: each region of each report in the JSON document FILE has
# probe_hits WANT (a python expression of the snapshot s: a list)
every_hits() {
	python3 - "$1" "$2" <<'PY' || fail "$1: $(head -c 2000 "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
reports = d.get("snapshots", [d])
assert reports and all(r["regions"] for r in reports), "no regions"
for r in reports:
    s = r["snapshot"]
    want = eval(sys.argv[2])
    for g in r["regions"]:
        assert g.get("probe_hits") == want, "region %s: %s, not %s" % (g["start"], g.get("probe_hits"), want)
PY
}

# the template keyword, as damo prints it: the hits of each probe, a space between
"$DAMONC" report access -i "$WORK/rec" --all-snapshots --format '<index>|<probe hits>|' \
	>"$WORK/fmt"
[ -s "$WORK/fmt" ] || fail "report access --format printed nothing"
bad=$(grep -v '^[0-9]*|4 0|$' "$WORK/fmt" | grep -v '^$' || true)
[ -z "$bad" ] || fail "<probe hits>: $bad"
"$DAMONC" --json report access -i "$WORK/rec" --all-snapshots >"$WORK/all.json"
every_hits "$WORK/all.json" '[4, 0]'
[ "$(py 'len(d["snapshots"])' <"$WORK/all.json")" = 4 ] || fail "not 4 snapshots: $(cat "$WORK/all.json")"
# damonc's table and damo's detailed style (its line for a record with probe hits)
"$DAMONC" report access -i "$WORK/rec" >"$WORK/table"
grep -q 'nr_accesses.*age  probe hits$' "$WORK/table" || fail "no probe hits column: $(cat "$WORK/table")"
grep -qE '^0x[0-9a-f]+ +0x[0-9a-f]+ .*  4 0$' "$WORK/table" || fail "the table: $(cat "$WORK/table")"
"$DAMONC" report access -i "$WORK/rec" --style detailed >"$WORK/detailed"
grep -qE '^0 0x[0-9a-f]+ [0-9.]+ [KMGT]?i?B  [0-9.]+ hz [0-9.]+ [a-z]+ 4 0 $' "$WORK/detailed" ||
	fail "--style detailed: $(cat "$WORK/detailed")"
"$DAMONC" report access -i "$WORK/rec" --format-append 'region=|end' >"$WORK/appended"
grep -qE '^0 0x[0-9a-f]+ .* 4 0 \|end$' "$WORK/appended" ||
	fail "--format-append region: $(cat "$WORK/appended")"

# a subset keeps them
"$DAMONC" record -i "$WORK/rec" --time-range 0,10s -o "$WORK/sub" 2>/dev/null
"$DAMONC" --json report access -i "$WORK/sub" --all-snapshots >"$WORK/sub.json"
every_hits "$WORK/sub.json" '[4, 0]'
# damo's record JSON: each region's probe_hits, and back
"$DAMONC" record -i "$WORK/rec" --format damo-json -o "$WORK/rec.damo"
python3 - "$WORK/rec.damo" <<'PY' || fail "damo JSON: $(head -c 2000 "$WORK/rec.damo")"
import json, sys
d = json.load(open(sys.argv[1]))
regions = [g for rec in d for s in rec["snapshots"] for g in s["regions"]]
assert regions and all(g["probe_hits"] == [4, 0] for g in regions)
PY
"$DAMONC" record -i "$WORK/rec.damo" -o "$WORK/back" 2>/dev/null
"$DAMONC" --json report access -i "$WORK/back" --all-snapshots >"$WORK/back.json"
every_hits "$WORK/back.json" '[4, 0]'
# merged into longer aggregations: each merged snapshot's hits add up, 4 for each 20 ms
# aggregation it holds (every region of paddr's range is in every snapshot)
"$DAMONC" record -i "$WORK/rec" --aggregate 1s -o "$WORK/agg" 2>/dev/null
"$DAMONC" --json report access -i "$WORK/agg" --all-snapshots >"$WORK/agg.json"
every_hits "$WORK/agg.json" '[4 * s["aggr_us"] // 20000, 0]'
py 'any(r["snapshot"]["aggr_us"] > 20000 for r in d["snapshots"])' <"$WORK/agg.json" |
	grep -qx True || fail "--aggregate merged nothing: $(cat "$WORK/agg.json")"

# a live report, straight from the kdamond
"$DAMONC" --json report access --count 1 >"$WORK/live.json"
every_hits "$WORK/live.json" '[4, 0]'
echo ok
