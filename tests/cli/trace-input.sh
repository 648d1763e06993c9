#!/bin/bash
# damonc trace -i: a saved trace (trace_pipe, trace-cmd report and perf script lines, with
# headers and lost-event notes among them) read back: every event line, and only those, comes
# out with the fields an independent reading (python, below) finds in it; --event, --no-event,
# --count, --raw and -o pick and keep the same lines; bad input exits 2 naming the option;
# live, without tracefs, exit 3. The live reading of a kernel's events runs under qemu
# (tests/vm/guest/scenarios/record.sh).
#   trace-input.sh   (environment: damonc_test_env of tests/meson.build)
set -euo pipefail
damonc=${DAMONC:?DAMONC is not set}
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cat >"$work/in" <<'LINES'
# tracer: nop
#
# entries-in-buffer/entries-written: 9/9   #P:2
       kdamond.0-174     [001] .....  1394.412830: damon_aggregated: target_id=0 nr_regions=3 4096-8192: 0 3
       kdamond.0-174     [001] .....  1394.412831: damon_aggregated: target_id=0 nr_regions=3 8192-12288: 5 1
           <...>-174     [000] .....  1394.412832: damon_aggregated: target_id=0 nr_regions=3 12288-1048576: 20 7
CPU:1 [LOST 12 EVENTS]
kdamond.1-180 [000] 1395.000001: damon_aggregated:     target_id=1 nr_regions=1 65536-131072: 1 2
kdamond.0  174 [004] 1396.251360: damon:damos_before_apply: ctx_idx=0 scheme_idx=1 target_idx=0 nr_regions=11 1234-5678: 10 45
kdamond.0-174 [005] 1397.778382: damon_region_aggregated: target_id=0 nr_regions=1 8360624128-8371830784: 0 974 probe_hits=14 00 ff
kdamond.0-174 [005] 1397.778383: damos_stat_after_apply_interval: ctx_idx=0 scheme_idx=0 nr_tried=3 sz_tried=12288 nr_applied=1 sz_applied=4096 sz_ops_filter_passed=0 qt_exceeds=0 nr_snapshots=9
kdamond.0-174 [005] 1397.778384: damos_esz: ctx_idx=0 scheme_idx=0 esz=2097152
kdamond.0 174 1398.5: damon:damon_monitor_intervals_tune: sample_us=5000
LINES

# the reference: each event line's task, pid, cpu, time, event and fields, read with
# regular expressions of the three printers' layouts
cat >"$work/ref.py" <<'PY'
import json, re, sys
events = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else None
count = int(sys.argv[2]) if len(sys.argv) > 2 else None
head = re.compile(r"^\s*(?:(?P<t1>.+?)-(?P<p1>\d+)|(?P<t2>\S+)\s+(?P<p2>\d+))\s+"
                  r"(?:\[(?P<cpu>\d+)\]\s+)?(?:[.\w]{4,5}\s+)?(?P<s>\d+)\.(?P<f>\d+):\s+"
                  r"(?:\w+:)?(?P<ev>\w+):\s*(?P<rest>.*)$")
idx = {}
out = []
for line in open(0):
    m = head.match(line.rstrip("\n"))
    if not m:
        continue
    ev = m["ev"]
    if events and ev not in events:
        continue
    rest, fields = m["rest"], {}
    reg = re.search(r"(\d+)-(\d+): (\d+)(?: (\d+))?", rest)
    for k, v in re.findall(r"(\w+)=(\S*)", rest):
        fields[k] = int(v) if k != "probe_hits" else None
    if "probe_hits" in fields:
        fields["probe_hits"] = [int(h, 16) for h in rest.split("probe_hits=")[1].split()]
    if reg:
        keys = list(fields)
        at = keys.index("nr_regions") + 1 if "nr_regions" in keys else len(keys)
        items = list(fields.items())
        r = [("start", int(reg[1])), ("end", int(reg[2])), ("nr_accesses", int(reg[3]))]
        if reg[4] is not None:
            r.append(("age", int(reg[4])))
        fields = dict(items[:at] + r + items[at:])
    ri = None
    if "aggregated" in ev and reg:
        n = fields["nr_regions"]
        ri = idx.get(ev, 0) % n
        idx[ev] = (ri + 1) % n
    out.append({"format_version": 1,
                "ts_ns": int(m["s"]) * 10**9 + int(m["f"].ljust(9, "0")),
                "task": (m["t1"] or m["t2"]).strip(), "pid": int(m["p1"] or m["p2"]),
                "cpu": int(m["cpu"]) if m["cpu"] else None, "event": ev,
                "region_index": ri, "fields": fields})
    if count and len(out) == count:
        break
for o in out:
    print(json.dumps(o))
PY
compare() { # what, reference arguments..., -- damonc arguments...
	local what=$1 ref=()
	shift
	while [ "$1" != -- ]; do ref+=("$1"); shift; done
	shift
	python3 "$work/ref.py" "${ref[@]}" <"$work/in" >"$work/want"
	"$damonc" --json trace -i "$work/in" "$@" >"$work/got" || { bad "$what: exit $?"; return; }
	python3 - "$work/want" "$work/got" <<'PY' || bad "$what: not what the lines say"
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
got = [json.loads(l) for l in open(sys.argv[2])]
if want != got or not want:
    print("want", *want, "got", *got, sep="\n")
    sys.exit(1)
PY
}
compare "every event" -- 
compare "--event" damon_aggregated,damos_esz -- --event damos_esz,damon_aggregated
compare "--no-event" damon_region_aggregated,damos_stat_after_apply_interval,damos_esz,damon_monitor_intervals_tune,damos_before_apply \
	-- --no-event damon_aggregated
compare "--count" "" 2 -- --count 2
"$damonc" --json trace -i "$work/in" >"$work/file.jsonl"
"$damonc" --json trace -i - <"$work/in" >"$work/stdin.jsonl"
cmp -s "$work/file.jsonl" "$work/stdin.jsonl" || bad "stdin and a file give different events"

# the text: one line an event, a region with its size, sizes beside their numbers
"$damonc" trace -i "$work/in" --event damon_aggregated,damos_stat_after_apply_interval >"$work/text"
[ "$(wc -l <"$work/text")" = 5 ] || bad "text: $(wc -l <"$work/text") lines for 5 events"
grep -qx '1394.412832 <...>-174 damon_aggregated target_id=0 nr_regions=3 region=2 12288-1048576 (1012 KiB) nr_accesses=20 age=7' "$work/text" ||
	bad "text: the third region of the snapshot"
grep -q 'sz_tried=12288 (12 KiB)' "$work/text" || bad "text: a size with its human form"

# --raw and -o keep the lines themselves, only the events asked for
"$damonc" trace -i "$work/in" --raw --event damos_esz,damon_monitor_intervals_tune -o "$work/saved" >"$work/raw"
grep -E 'damos_esz|damon_monitor_intervals_tune' "$work/in" >"$work/raw.want"
cmp -s "$work/raw" "$work/raw.want" || bad "--raw is not the lines"
cmp -s "$work/saved" "$work/raw.want" || bad "-o did not save the lines"
"$damonc" --json trace -i "$work/saved" | wc -l | grep -qx 2 || bad "a saved trace does not read back"

# bad input: exit 2 naming the option
expect_usage() { # what, pattern, arguments...
	local what=$1 pat=$2 rc=0
	shift 2
	"$damonc" "$@" >/dev/null 2>"$work/err" || rc=$?
	[ "$rc" = 2 ] || bad "$what: exit $rc, not 2"
	grep -q -- "$pat" "$work/err" || bad "$what: the message does not say $pat: $(cat "$work/err")"
}
expect_usage "an unknown event" "--event 'damon_agregated'" trace -i "$work/in" --event damon_agregated
expect_usage "an unknown --no-event" "--no-event 'x'" trace -i "$work/in" --no-event x
expect_usage "--count 0" "--count" trace -i "$work/in" --count 0
expect_usage "--duration 0" "--duration" trace -i "$work/in" --duration 0
expect_usage "--raw with --json" "--raw" --json trace -i "$work/in" --raw
expect_usage "--kdamond with -i" "--kdamond" trace -i "$work/in" --kdamond 0
expect_usage "a missing input" "$work/nothing" trace -i "$work/nothing"
expect_usage "every event taken away" "--no-event" trace -i "$work/in" --no-event \
	damon_aggregated,damon_region_aggregated,damos_before_apply,damon_monitor_intervals_tune,damos_esz,damos_stat_after_apply_interval
expect_usage "an argument" "unexpected argument" trace -i "$work/in" extra

# live without tracefs: the kernel (here, the root) lacks what it needs
mkdir -p "$work/root/sys/kernel/mm/damon/admin/kdamonds"
echo 0 >"$work/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
rc=0
"$damonc" --sysroot "$work/root" trace --count 1 >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 3 ] || bad "live without tracefs: exit $rc, not 3"
grep -q "tracefs" "$work/err" || bad "live without tracefs: $(cat "$work/err")"
exit $fail
