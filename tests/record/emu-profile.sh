#!/bin/bash
# damonc record --profile runs perf record beside the record, on the record's clock, and
# damonc report profile hands report times' ranges to perf report --time. Checked against
# an independent reading of the record (its damo-json form, in python): every sample perf
# keeps for those ranges lies in the ranges python computes, and some of the profile lies
# outside them. Bad input exits 2 naming what is wrong, and changes nothing.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null; then
	echo "SKIP: no perf (scripts/install-deps check installs linux-perf)"
	exit 77
fi
probe=$(mktemp "${TMPDIR:-/tmp}/damonc-perf.XXXXXX")
if ! perf record -q -a -k CLOCK_REALTIME -o "$probe" -- true >/dev/null 2>&1; then
	rm -f "$probe" "$probe.old"
	echo "SKIP: perf record -a cannot profile here (perf_event_paranoid, or a container)"
	exit 77
fi
rm -f "$probe" "$probe.old"

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
RARGS=(--sample 5ms --aggr 50ms --interval 100ms)
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
before=$(config)

# 1. -- COMMAND with --profile: the profile is next to the record, perf ended as asked
"$DAMONC" record "${RARGS[@]}" --profile -o "$WORK/r" -- "$HOTCOLD" --hot 8M --cold 8M \
	--scenario "$WORK/scenario" --duration 1 >"$WORK/hc.out" 2>"$WORK/r.err" ||
	fail "record --profile -- hotcold: $(cat "$WORK/r.err")"
grep -q "profile '$WORK/r.profile' (perf ended as asked)" "$WORK/r.err" ||
	fail "no word of the profile: $(cat "$WORK/r.err")"
[ -s "$WORK/r.profile" ] || fail "no profile at $WORK/r.profile"
[ "$(config)" = "$before" ] || fail "record --profile left the tree changed"
"$DAMONC" --json report info -i "$WORK/r" >"$WORK/info.json" || fail "report info"

# 2. python's own ranges, from the record's damo-json form: consecutive snapshots with a
# region accessed in at least half of the samples (the first target's series)
"$DAMONC" record -i "$WORK/r" --format damo-json -o "$WORK/r.damo" || fail "record -i --format damo-json"
ranges_py() { # MIN_RATE_BP: "start_ns end_ns" lines
	python3 - "$WORK/r.damo" "$1" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))
rec = recs[0]
sample = int(rec["intervals"]["sample_us"])	# damo's numbers are strings
aggr = int(rec["intervals"]["aggr_us"])
out, cur = [], None
for s in rec["snapshots"]:
    hit = any(min(10000, int(r["nr_accesses"]["samples"]) * sample * 10000 // aggr) >=
              int(sys.argv[2]) for r in s["regions"])
    t = [int(s["start_time"]), int(s["end_time"])]
    if hit:
        cur = t if cur is None else [cur[0], t[1]]
    elif cur:
        out.append(cur); cur = None
if cur:
    out.append(cur)
for a, b in out:
    print(a, b)
PY
}
ranges_py 5000 >"$WORK/want"
[ -s "$WORK/want" ] || fail "python found no hot snapshot in the record"

# 3. report profile's ranges are python's, and perf keeps only samples inside them
"$DAMONC" --json report profile -i "$WORK/r" --access-rate 50%, --dry-run >"$WORK/dry.json" ||
	fail "report profile --dry-run --json"
py '"\n".join("%d %d" % (r["start_ns"], r["end_ns"]) for r in d["ranges"])' \
	<"$WORK/dry.json" >"$WORK/got"
diff "$WORK/want" "$WORK/got" >/dev/null ||
	fail "report profile's ranges differ from python's: $(diff "$WORK/want" "$WORK/got" || true)"
tspec=$(py 'd["command"][d["command"].index("--time") + 1]' <"$WORK/dry.json")
perf script -i "$WORK/r.profile" -F time --ns --time "$tspec" 2>/dev/null |
	tr -d ' :' >"$WORK/kept"
perf script -i "$WORK/r.profile" -F time --ns 2>/dev/null | tr -d ' :' >"$WORK/all"
python3 - "$WORK/want" "$WORK/kept" "$WORK/all" <<'PY' || fail "perf's samples and the ranges disagree"
import sys
want = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
def ns(t):
    s, f = t.split(".")
    return int(s) * 10**9 + int(f.ljust(9, "0"))
kept = [ns(l.strip()) for l in open(sys.argv[2]) if l.strip()]
every = [ns(l.strip()) for l in open(sys.argv[3]) if l.strip()]
inside = lambda t: any(a <= t <= b for a, b in want)
assert kept, "no sample in the ranges"
bad = [t for t in kept if not inside(t)]
assert not bad, "%d samples outside the ranges, e.g. %d" % (len(bad), bad[0])
assert any(not inside(t) for t in every), "the whole profile is inside: nothing was cut"
assert len([t for t in every if inside(t)]) == len(kept), "samples in the ranges were left out"
print("samples: %d kept of %d" % (len(kept), len(every)))
open(sys.argv[2] + ".n", "w").write("%d\n" % len(kept))
PY

# 4. the rows: perf report's table for the ranges, parsed
"$DAMONC" --json report profile -i "$WORK/r" --access-rate 50%, >"$WORK/rows.json" ||
	fail "report profile --json"
# the rows count the samples perf script kept, each with its share of them
py 'sum(r["samples"] for r in d["rows"])' <"$WORK/rows.json" | grep -qx "$(cat "$WORK/kept.n")" ||
	fail "rows: $(head -c 600 "$WORK/rows.json")"
py 'all(abs(r["overhead_percent"] - 100 * r["samples"] / '"$(cat "$WORK/kept.n")"') <= 0.01
	for r in d["rows"])' <"$WORK/rows.json" | grep -qx True ||
	fail "the rows' overhead is not their share of the samples"
"$DAMONC" report profile -i "$WORK/r" --access-rate 50%, -- --stdio >"$WORK/text" ||
	fail "report profile -- --stdio"
grep -q "time slices:" "$WORK/text" || fail "perf report did not take the ranges: $(head "$WORK/text")"

# 5. a running kdamond, --json: the summary says where the profile is and how perf ended;
# SIGINT to a '-- COMMAND' record: perf is stopped too, the profile is whole
rec_workload
rec_start --pid "$HC_PID" --action stat --sample 5ms --aggr 50ms
"$DAMONC" --json record --profile="$WORK/p2" --count 2 --interval 100ms -o "$WORK/r2" \
	>"$WORK/r2.json" 2>"$WORK/r2.err" || fail "record --profile=FILE: $(cat "$WORK/r2.err")"
py '(d["profile"]["file"], d["profile"]["complete"], d["profile"]["perf_status"])' \
	<"$WORK/r2.json" | grep -qxF "('$WORK/p2', True, 130)" || fail "summary: $(cat "$WORK/r2.json")"
[ -s "$WORK/p2" ] || fail "no profile at --profile=$WORK/p2"
"$DAMONC" stop >/dev/null || fail "damonc stop"
before=$(config)
"$DAMONC" record "${RARGS[@]}" --profile -o "$WORK/r3" -- sleep "617$$" 2>"$WORK/r3.err" &
rec=$!
fair_wait 30000 test -s "$WORK/r3" || fail "no record: $(cat "$WORK/r3.err")"
kill -INT "$rec"
wait "$rec" || fail "record --profile -- sleep exited $? on SIGINT: $(cat "$WORK/r3.err")"
grep -q "(perf ended as asked)" "$WORK/r3.err" || fail "SIGINT: $(cat "$WORK/r3.err")"
! pgrep -f "perf record .*$WORK/r3.profile" >/dev/null || fail "perf outlived its record"
perf script -i "$WORK/r3.profile" -F time >/dev/null 2>&1 || fail "the profile is not readable"
[ "$(config)" = "$before" ] || fail "record --profile (SIGINT) left the tree changed"

# 6. no snapshot of the pattern: said, exit 1
rc=0
"$DAMONC" report profile -i "$WORK/r" --size 1TiB, 2>"$WORK/none.err" || rc=$?
{ [ "$rc" = 1 ] && grep -q "no time to profile" "$WORK/none.err"; } ||
	fail "no match: exit $rc, $(cat "$WORK/none.err")"

# 7. bad input: exit 2 naming it, the tree unchanged
bad() { # MESSAGE ARGS...
	local msg=$1 rc=0
	shift
	"$DAMONC" "$@" >/dev/null 2>"$WORK/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "damonc $*: exit $rc, $(cat "$WORK/bad.err")"
	grep -q -- "$msg" "$WORK/bad.err" || fail "damonc $*: $(cat "$WORK/bad.err")"
}
bad "name the profile's file" record --profile -o - -- true
bad "-i converts a record" record --profile -i "$WORK/r" -o "$WORK/x"
bad "is for --profile" record --perf perf -o "$WORK/x" -- true
bad "--perf '/nonexistent/perf': cannot run it" record --profile --perf /nonexistent/perf \
	"${RARGS[@]}" -o "$WORK/x" -- true
# a perf that runs but does not enable its events (exits at once): an error, before the start
rc=0
"$DAMONC" record --profile --perf false "${RARGS[@]}" -o "$WORK/x" --ops paddr \
	2>"$WORK/false.err" || rc=$?
[ "$rc" = 1 ] || fail "record --perf false: exit $rc, $(cat "$WORK/false.err")"
grep -q "did not start profiling (it exited with status 1" "$WORK/false.err" ||
	fail "record --perf false: $(cat "$WORK/false.err")"
[ "$(config)" = "$before" ] || fail "a failed record --profile changed the tree"
bad "--profile '$WORK/nope'" report profile -i "$WORK/r" --profile "$WORK/nope"
bad "$WORK/nope" report profile -i "$WORK/nope" --profile "$WORK/r.profile"
bad "name the profile with --profile" report profile -i - <"$WORK/r"
bad "--perf '/nonexistent/perf': cannot run it" report profile -i "$WORK/r" --perf /nonexistent/perf
echo ok
