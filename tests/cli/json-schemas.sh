#!/bin/bash
# The JSON contract (docs/schema): every schema is a valid JSON Schema, every command that
# prints JSON has one, a document that drifts is caught (a key the schema does not know, a
# number as a string), and the reports' documents on generated records follow theirs (each
# variant: --window, --series, a damo record, stdin). The emu and record tests check the
# rest of the commands as they run them (tests/lib/damonc-checked).
#   json-schemas.sh DAMONC GEN_RECORD   (environment: damonc_test_env of tests/meson.build)
set -euo pipefail
damonc=$1 gen=$2
checked=${DAMONC:?DAMONC (tests/lib/damonc-checked) is not set}
if [ -z "${DAMONC_JSON_VALIDATE:-}" ]; then
	echo "SKIP: python3-jsonschema is missing (scripts/install-deps check installs it)"
	exit 77
fi
validate() { "$DAMONC_JSON_PYTHON" "$DAMONC_JSON_VALIDATE" "$DAMONC_SCHEMA_DIR" "$@"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-schemas.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

validate commands "$damonc" || bad "the schemas, or the commands that have none"

# drift is caught: an unknown key, a wrong type, a missing key, text instead of JSON
"$gen" --snapshots 6 --regions 30 >"$work/rec"
"$damonc" --json report wss -i "$work/rec" >"$work/wss.json"
validate run --json report wss <"$work/wss.json" || bad "report wss --json does not conform"
for mutation in 'd["bogus"] = 1' 'd["snapshots"] = str(d["snapshots"])' 'del d["mean"]' \
	'd["input"]["bogus"] = 1' 'd["percentiles"][0]["wss"] = -1'; do
	"$DAMONC_JSON_PYTHON" -c "import json, sys; d = json.load(sys.stdin); $mutation; print(json.dumps(d))" \
		<"$work/wss.json" >"$work/bad.json"
	if validate run --json report wss <"$work/bad.json" 2>/dev/null; then
		bad "a document with $mutation passes"
	fi
done
if echo "not json" | validate run --json report wss 2>/dev/null; then
	bad "text passes as JSON"
fi

# monitor's JSON Lines (the emu test damonc-monitor-* checks what damonc prints): a line holds
# the chosen report's own document, and a document of another report than the line names fails
"$damonc" --json report heatmap -i "$work/rec" --bins 4x5 >"$work/heatmap.json"
monitor_line() { # REPORT DOCUMENT [PYTHON-MUTATION]
	"$DAMONC_JSON_PYTHON" -c "import json, sys
d = {'format_version': 1, 'round': 1, 'snapshots': 6, 'report': sys.argv[1],
     'window': {'start_ns': 1, 'end_ns': 3000000001, 'start_s': 0.0, 'end_s': 3.0},
     'data': json.load(open(sys.argv[2]))}
${3:-pass}
print(json.dumps(d))" "$1" "$2"
}
{ monitor_line heatmap "$work/heatmap.json"; monitor_line wss "$work/wss.json"; } >"$work/monitor.jsonl"
validate run --json monitor --kdamond 0 <"$work/monitor.jsonl" ||
	bad "monitor's lines do not conform"
for mutation in 'd["report"] = "wss"' 'd["data"]["bogus"] = 1' 'del d["window"]["end_ns"]' \
	'd["round"] = 0'; do
	monitor_line heatmap "$work/heatmap.json" "$mutation" >"$work/bad.jsonl"
	if validate run --json monitor --kdamond 0 <"$work/bad.jsonl" 2>/dev/null; then
		bad "a monitor line with $mutation passes"
	fi
done

# the reports, through the checking wrapper (exit 97 when a document does not conform)
"$gen" --snapshots 6 --regions 30 --format damo-json >"$work/rec.damo"
"$gen" --snapshots 2 --regions 30 --filter-passed >"$work/rec.fp"
run() {
	local rc=0
	"$checked" "$@" >/dev/null || rc=$?
	[ "$rc" = 0 ] || bad "'damonc $*' exited $rc"
}
run --json report access -i "$work/rec.fp" --format-snapshot-head '<filters passed bytes>'
# a damo record of a scheme's tried regions, its damos_stats with each snapshot
python3 -c '
import json
st = {"nr_tried": "3", "sz_tried": "4096", "nr_applied": "1", "sz_applied": "4096",
      "sz_ops_filter_passed": "0", "qt_exceeds": "0", "nr_snapshots": "1"}
print(json.dumps([{"kdamond_idx": 0, "context_idx": 0, "scheme_idx": 2, "target_id": 0,
    "intervals": {"sample_us": "5000", "aggr_us": "100000", "ops_update_us": "1000000"},
    "snapshots": [{"start_time": "1000", "end_time": "100001000", "total_bytes": "4096",
        "damos_stats": st, "regions": [{"start": "0", "end": "4096",
        "nr_accesses": {"samples": 1, "percent": None},
        "age": {"usec": None, "aggr_intervals": "1"}}]}]}]))' >"$work/rec.tried"
run --json report access -i "$work/rec.tried" --all-snapshots
run --json report access -i "$work/rec.tried"
for in in "$work/rec" "$work/rec.damo"; do
	run --json report access -i "$in"
	run --json report access -i "$in" --at 2s --sort hot --top 3
	run --json report heatmap -i "$in" --bins 4x5
	run --json report wss -i "$in" --window 2s
	run --json report wss -i "$in" --series --min-access-rate 50%
	run --json report schemes -i "$in"
	run --json report schemes -i "$in" --window 2s
	run --json report access -i "$in" --address-range 0-1
	run --json report access -i "$in" --histogram temperature --sort temperature
	run --json report access -i "$in" --histogram recency --hist-logscale --hist-cumulate
	run --json report access -i "$in" --histogram recency --hist-ranges 0,1s,1s,1m
	run --json report access -i "$in" --percentiles-of temperature
	run --json report access -i "$in" --percentiles-of size --size 1GiB,
	run --json report access -i "$in" --boxes --top 5
	run --json report access -i "$in" --boxes --all-snapshots --box-scale-over record
	run --json report access -i "$in" --all-snapshots --format-snapshot-tail '<total bytes>'
	run --json report access -i "$in" --all-snapshots --boxes --box-values size,none,age --top 3
	run --json report access -i "$in" --snapshot-index 1,2 --percentiles-of age
	run --json report access -i "$in" --all-series --top 2
	run --json report access -i "$in" --all-series --all-snapshots --histogram recency
	run --json report access -i "$in" --all-snapshots --style detailed --format-record-head \
		'<duration>' --snapshot-heatmap-width 20 --min-chars-for '<size>,11'
	run --json report info -i "$in"
	run --json report holistic -i "$in"
	run --json report holistic -i "$in" --last 2s --bins 4x3
	run --json report nr-regions -i "$in"
	run --json report nr-regions -i "$in" --series --percentiles 50
	run --json report times -i "$in" --access-rate 50%,
	run --json report times -i "$in" --size 1GiB,
done
"$gen" --snapshots 6 --regions 30 --targets 2 --vary 3 --slow-from 3 --config 77 >"$work/rec.shape"
run --json report info -i "$work/rec.shape"
run --json report info -i "$work/rec.shape" --time-range 100s,
run --json report nr-regions -i "$work/rec.shape" --series --target 1
"$gen" --snapshots 6 --targets 2 --config 77 --footprints >"$work/rec.fp"
run --json report footprints -i "$work/rec.fp"
run --json report footprints -i "$work/rec.fp" --series --target 1 --percentiles 50
"$damonc" record -i "$work/rec.fp" --time-range 2s, --address-range 0-1 -o "$work/rec.sub"
run --json report info -i "$work/rec.sub"
run --json report footprints -i "$work/rec.sub" --series
run --json=pretty report wss -i - <"$work/rec"
run --json=pretty report times -i - --age 1s, <"$work/rec"
run --json report wss -i "$work/rec" --time-range 100s,
[ $fail = 0 ] && echo "ok: the schemas are valid, complete, strict, and the reports follow them"
exit $fail
