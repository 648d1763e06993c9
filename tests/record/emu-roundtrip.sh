#!/bin/bash
# Record a known scenario on damon-emu, then check that every report puts the hot buffer
# where it is: hotcold's hot buffer is accessed at every sample, its cold one never.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
rec_workload
rec_start --pid "$HC_PID" --action pageout --access-rate 0%,0% --min-age 500ms \
	--sample 5ms --aggr 100ms --nr-regions 10,200
before=$(emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e ' = *$' | grep -v effective)

"$DAMONC" record -o "$WORK/rec" --duration 5s --interval 250ms 2>"$WORK/record.err" ||
	fail "record failed: $(cat "$WORK/record.err")"
grep -q 'snapshots of kdamond 0' "$WORK/record.err" || fail "no summary: $(cat "$WORK/record.err")"

# the kdamond is as it was: the capture scheme is gone, the pageout scheme untouched
after=$(emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e ' = *$' | grep -v effective)
[ "$before" = "$after" ] || fail "the kdamond's config changed: $(diff <(echo "$before") <(echo "$after"))"

# access: the hottest region is the hot buffer's: it starts in it and at least 9/10 of it
# lies in it (DAMON's regions are ranges with one access rate; one merged across an edge
# while the emulator was slow, under ASan, may reach a few pages past it: 36 KiB was seen)
"$DAMONC" --json report access -i "$WORK/rec" --sort hot --top 1 >"$WORK/hot.json"
start=$(py 'd["regions"][0]["start"]' <"$WORK/hot.json")
end=$(py 'd["regions"][0]["end"]' <"$WORK/hot.json")
rate=$(py 'd["regions"][0]["access_rate_bp"]' <"$WORK/hot.json")
inside_end=$((end < HOT_END ? end : HOT_END))
if [ "$start" -lt "$HOT_START" ] || [ "$start" -ge "$HOT_END" ] ||
	[ $(((inside_end - start) * 10)) -lt $(((end - start) * 9)) ]; then
	fail "hottest region $start-$end is not in the hot buffer $HOT_START-$HOT_END"
fi
[ "$rate" -ge 9000 ] || fail "the hottest region is accessed in $rate bp of the samples"
[ "$(py 'd["input"]["complete"]' <"$WORK/hot.json")" = True ] || fail "record not complete"

# every region of the cold buffer is cold, and the filters agree: what the address range
# keeps of an accessed region is only the edge of one that reaches beyond the cold buffer
# (DAMON's regions are ranges with one access rate; one may straddle the two buffers)
"$DAMONC" --json report access -i "$WORK/rec" --address-range "$COLD_START-$COLD_END" \
	--access-rate 1%, >"$WORK/cold.json"
"$DAMONC" --json report access -i "$WORK/rec" --access-rate 1%, >"$WORK/accessed.json"
inside=$(python3 - "$WORK/cold.json" "$WORK/accessed.json" "$COLD_START" "$COLD_END" <<'PY'
import json, sys
clipped = json.load(open(sys.argv[1]))["regions"]
whole = json.load(open(sys.argv[2]))["regions"]
lo, hi = int(sys.argv[3]), int(sys.argv[4])
print(sum(1 for c in clipped
          if not any(w["start"] <= c["start"] and c["end"] <= w["end"] and
                     (w["start"] < lo or w["end"] > hi) for w in whole)))
PY
)
[ "$inside" = 0 ] ||
	fail "accessed regions inside the cold buffer ($COLD_START-$COLD_END): $(cat "$WORK/cold.json")"

# heatmap: the hot buffer's cells are hot in the second half of the record, the cold's cold
"$DAMONC" --json report heatmap -i "$WORK/rec" --bins 10x4 --time-range 2500ms, \
	--address-range "$HOT_START-$HOT_END" >"$WORK/hm-hot.json"
"$DAMONC" --json report heatmap -i "$WORK/rec" --bins 10x4 --time-range 2500ms, \
	--address-range "$COLD_START-$COLD_END" >"$WORK/hm-cold.json"
mean='(lambda v: sum(v)/len(v))([c for row in d["access_rate_bp"] for c in row if c is not None])'
hot=$(py "int($mean)" <"$WORK/hm-hot.json")
cold=$(py "int($mean)" <"$WORK/hm-cold.json")
[ "$hot" -ge 8000 ] || fail "heatmap: the hot buffer averages $hot bp"
[ "$cold" -le 500 ] || fail "heatmap: the cold buffer averages $cold bp"
"$DAMONC" report heatmap -i "$WORK/rec" -o "$WORK/hm.png"
[ "$(head -c 8 "$WORK/hm.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	fail "not a PNG"
"$DAMONC" report heatmap -i "$WORK/rec" -o "$WORK/hm.svg"
grep -q '<svg' "$WORK/hm.svg" || fail "not an SVG"

# wss: at the end, the working set is the hot buffer, within the regions' granularity
hot_size=$((HOT_END - HOT_START))
"$DAMONC" --json report wss -i "$WORK/rec" --time-range 2500ms, --min-access-rate 50% \
	>"$WORK/wss.json"
p50=$(py 'd["percentiles"][2]["wss"]' <"$WORK/wss.json")
if [ "$p50" -lt $((hot_size * 8 / 10)) ] || [ "$p50" -gt $((hot_size * 12 / 10)) ]; then
	fail "median working set $p50, the hot buffer is $hot_size"
fi

# schemes: the pageout scheme's stats were recorded and it tried regions
"$DAMONC" --json report schemes -i "$WORK/rec" >"$WORK/schemes.json"
[ "$(py 'd["schemes"][0]["action"]' <"$WORK/schemes.json")" = pageout ] ||
	fail "no pageout scheme in $(cat "$WORK/schemes.json")"
[ "$(py 'd["schemes"][0]["totals"]["nr_tried"]' <"$WORK/schemes.json")" -gt 0 ] ||
	fail "the pageout scheme tried nothing: $(cat "$WORK/schemes.json")"

# info: the recorded target is hotcold (pid and operations from the recorded configuration),
# sampled every 5 ms, and nr-regions stays within --nr-regions 10,200
"$DAMONC" --json report info -i "$WORK/rec" >"$WORK/info.json"
[ "$(py '(d["has_config"], d["recording"]["method"] is not None, len(d["series"]))' \
	<"$WORK/info.json")" = "(True, True, 1)" ] || fail "report info: $(cat "$WORK/info.json")"
[ "$(py 'd["series"][0]["pid"], d["series"][0]["operations"]' <"$WORK/info.json")" = \
	"$HC_PID vaddr" ] || fail "report info: not pid $HC_PID, vaddr: $(cat "$WORK/info.json")"
[ "$(py 'd["series"][0]["intervals"]["sample_us"]["max"]' <"$WORK/info.json")" = 5000 ] ||
	fail "report info: intervals: $(cat "$WORK/info.json")"
"$DAMONC" --json report nr-regions -i "$WORK/rec" >"$WORK/nr.json"
py '(lambda s: s["min"] >= 1 and s["max"] <= 200 and s["snapshots"] > 0)(d["series"][0])' \
	<"$WORK/nr.json" | grep -qx True || fail "report nr-regions: $(cat "$WORK/nr.json")"

# damo's format, there and back: the same regions
"$DAMONC" record -i "$WORK/rec" --format damo-zlib -o "$WORK/rec.damo"
"$DAMONC" record -i "$WORK/rec.damo" -o "$WORK/rec.back"
"$DAMONC" --json report access -i "$WORK/rec" | py 'd["regions"]' >"$WORK/a1"
"$DAMONC" --json report access -i "$WORK/rec.back" | py 'd["regions"]' >"$WORK/a2"
cmp -s "$WORK/a1" "$WORK/a2" || fail "the damo round trip changed the regions"

# live input: report straight from the kdamond, and through a pipe
"$DAMONC" --json report access --count 1 --sort hot --top 1 >"$WORK/live.json"
start=$(py 'd["regions"][0]["start"]' <"$WORK/live.json")
if [ "$start" -lt "$HOT_START" ] || [ "$start" -ge "$HOT_END" ]; then
	fail "live: the hottest region starts at $start, outside the hot buffer"
fi
# damo's live snapshots merge adjacent regions of one access rate and age: the same bytes in
# fewer regions, no two neighbours alike; --dont-merge-regions keeps the kernel's. The two
# are different snapshots, whose kernel region counts may differ (splits and merges every
# aggregation): a merged one with more regions than the kept one is tried again (exit 3), as
# long as the emulator makes progress
merged_check() {
	local rc=0
	"$DAMONC" --json report access --count 1 >"$WORK/merged.json"
	"$DAMONC" --json report access --count 1 --dont-merge-regions >"$WORK/kept.json"
	python3 -c '
import json, sys
m, k = (json.load(open(f)) for f in sys.argv[1:3])
rm, rk = m["regions"], k["regions"]
alike = [(a["start"], b["start"]) for a, b in zip(rm, rm[1:]) if a["end"] == b["start"] and
         a["nr_accesses"] == b["nr_accesses"] and a["age_aggrs"] == b["age_aggrs"]]
assert not alike, "merged neighbours alike: %s" % alike
# each merged one is what it covers
assert sum(r["size"] for r in rm) == m["snapshot"]["total_bytes"], m["snapshot"]
if len(rm) > len(rk):
    sys.exit(3)' "$WORK/merged.json" "$WORK/kept.json" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "merged live regions"
	[ "$rc" = 0 ]
}
fair_wait 30000 merged_check || fail "merged live regions: more regions than the kernel's"
"$DAMONC" record -o - --count 3 --interval 100ms 2>/dev/null |
	"$DAMONC" --json report wss -i - --min-access-rate 50% >"$WORK/pipe.json"
[ "$(py 'd["snapshots"]' <"$WORK/pipe.json")" = 3 ] || fail "pipe: $(cat "$WORK/pipe.json")"
"$DAMONC" record -o - --count 2 --interval 100ms 2>/dev/null |
	"$DAMONC" report heatmap -i - >/dev/null || fail "heatmap from a pipe"
echo "ok"
