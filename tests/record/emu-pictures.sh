#!/bin/bash
# The heatmap of a process's record as a person reads it: the rows are aligned blocks of a
# power of two of bytes (so their labels, in text and in pictures, are round addresses), no
# row lies wholly in memory the process never mapped (DAMON's first region reaches over the
# space between the program and its mmap area: drawn, it took most of the picture as "0%
# accessed"), the hot buffer's rows are hot; the SVG's text is text (<text>, searchable),
# its address labels those of the rows; and report hugepage -i draws the record's huge
# pages (PNG and SVG).
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"
CHECK=$(dirname "$0")/../lib/picture-check

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=16M COLD_SIZE=16M rec_workload
"$DAMONC" record --pid "$HC_PID" --sample 5ms --aggr 50ms --interval 100ms --count 6 \
	-o "$WORK/rec" 2>"$WORK/rec.err" || fail "record: $(cat "$WORK/rec.err")"
cp "/proc/$HC_PID/maps" "$WORK/maps"

"$DAMONC" --json report heatmap -i "$WORK/rec" >"$WORK/hm.json" || fail "report heatmap --json"
python3 - "$WORK/hm.json" "$WORK/maps" "$HOT_START" "$HOT_END" <<'EOF' || fail "the heatmap's rows"
import json, sys
d = json.load(open(sys.argv[1]))
maps = [tuple(int(x, 16) for x in l.split()[0].split("-")) for l in open(sys.argv[2])]
hot = (int(sys.argv[3]), int(sys.argv[4]))
rows = d["address_bins"]
w = rows[0]["end"] - rows[0]["start"]
assert w & (w - 1) == 0, "rows of %d bytes: not a power of two" % w
for r in rows:
    assert r["start"] % w == 0 and r["end"] - r["start"] <= w, "row %r is not aligned" % r
    assert any(a < r["end"] and r["start"] < b for a, b in maps), \
        "row 0x%x-0x%x is wholly unmapped" % (r["start"], r["end"])
spans = sum(s["end"] - s["start"] for s in d["address_spans"])
axis = len(rows) * w
mapped = sum(b - a for a, b in maps)
assert axis < spans, "the axis (%d) leaves no unmapped space of the regions' (%d) out" % (axis, spans)
# every row wholly in the hot buffer is hot in the last column
last = d["access_rate_bp"][-1]
for i, r in enumerate(rows):
    if hot[0] <= r["start"] and r["end"] <= hot[1]:
        assert last[i] is not None and last[i] >= 5000, "hot row 0x%x at %r bp" % (r["start"], last[i])
print("rows of %d KiB, %d of them: %d MiB of the regions' %d MiB (mapped %d MiB)" %
      (w >> 10, len(rows), axis >> 20, spans >> 20, mapped >> 20))
EOF

# the text's row labels are the rows' starts, each a multiple of the rows' size
"$DAMONC" report heatmap -i "$WORK/rec" >"$WORK/hm.txt" || fail "report heatmap"
w=$(py 'd["address_bins"][0]["end"] - d["address_bins"][0]["start"]' <"$WORK/hm.json")
while read -r label _; do
	(( label % w == 0 )) || fail "the text labels a row $label, not a multiple of $w"
done < <(grep -oE '^0x[0-9a-f]{16} ' "$WORK/hm.txt")

# the pictures: readable alone; the SVG's words are text, its address labels round
"$DAMONC" report heatmap -i "$WORK/rec" -o "$WORK/hm.png" || fail "heatmap png"
"$DAMONC" report heatmap -i "$WORK/rec" -o "$WORK/hm.svg" || fail "heatmap svg"
python3 "$CHECK" heatmap "$WORK/hm.png" "$WORK/hm.svg" || fail "the heatmap pictures"
python3 - "$WORK/hm.svg" "$w" <<'EOF' || fail "the SVG's text"
import sys, xml.etree.ElementTree as ET
texts = [e.text for e in ET.parse(sys.argv[1]).getroot().iter() if e.tag.endswith("}text")]
assert any(t and t.startswith("Memory access heatmap") for t in texts), "no title as text"
labels = [int(t, 16) for t in texts if t and t.startswith("0x")]
assert len(labels) >= 2, "%d address labels" % len(labels)
assert all(a % int(sys.argv[2]) == 0 for a in labels), "labels %s" % [hex(a) for a in labels]
EOF

# report hugepage -i: the record's huge pages drawn
"$DAMONC" report hugepage -i "$WORK/rec" -o "$WORK/hp.png" || fail "report hugepage -i -o png"
"$DAMONC" report hugepage -i "$WORK/rec" --format svg >"$WORK/hp.svg" ||
	fail "report hugepage -i --format svg"
python3 "$CHECK" series --lines 2 "$WORK/hp.png" "$WORK/hp.svg" || fail "the huge-page chart"
rc=0
"$DAMONC" --json report hugepage -i "$WORK/rec" -o "$WORK/x.png" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "report hugepage -i --json -o x.png exited $rc"
echo "ok: aligned rows without unmapped memory; searchable SVG text; the record's huge pages drawn"
