#!/bin/bash
# damonc's --snapshot-damos-filter (damo's --snapshot_damos_filter) on damon-emu: a live
# report access, a record and monitor through operations-layer DAMOS filters; and
# --tried-regions-of (damo's --tried_regions_of), the regions a scheme of the kdamond tried. hotcold's
# buffers are anonymous and every page of them written, so the regions inside them pass whole
# through allow:anon and not at all through reject:anon; each snapshot names its filters (the
# JSON's ops_filters, damo's <filters passed type>, --style detailed's df-passed lines), a
# record keeps them, and the kdamond's configuration is as before after each. Bad filters and
# options exit 2 and write nothing; 6.12 (no allow, no sz_filter_passed) exits 3, writing
# nothing.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
writes() { wc -l <"$EMU_LOG"; }

HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_setup 7.2 --scenario "$WORK/scenario" --no-real-actions
rec_start --pid "$HC_PID" --action stat --min-age 1s --sample 5ms --aggr 50ms
before=$(config)

# in_buffers JSON: each region inside hotcold's buffers as "passed/size", the others' sum
in_buffers() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bufs = [(int(sys.argv[2]), int(sys.argv[3])), (int(sys.argv[4]), int(sys.argv[5]))]
inside = [r for r in d["regions"] if any(s <= r["start"] and r["end"] <= e for s, e in bufs)]
if not inside:
    sys.exit("no region lies inside the buffers: %s" % d["regions"])
print(json.dumps(d["snapshot"].get("ops_filters")))
print(" ".join(sorted({"whole" if r["filters_passed_bytes"] == r["size"] else
                       "none" if r["filters_passed_bytes"] == 0 else "part"
                       for r in inside})))' "$1" "$HOT_START" "$HOT_END" "$COLD_START" "$COLD_END"
}

# live_allow: a live report through allow:anon, two snapshots in, its last in allow.json;
# false until a region lies inside the buffers (the regions settle on their edges after
# some aggregations, which a busy machine gives the emulator later)
live_allow() {
	"$DAMONC" --json report access --snapshot-damos-filter allow:anon --count 2 \
		--interval 300ms --all-snapshots >"$WORK/all.json" ||
		fail "report access --snapshot-damos-filter allow:anon: $(cat "$WORK/all.json")"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); json.dump(d["snapshots"][-1] |
		{"series": d["series"]}, open(sys.argv[2], "w"))' "$WORK/all.json" "$WORK/allow.json"
	in_buffers "$WORK/allow.json" >/dev/null 2>&1
}
fair_wait 30000 live_allow || in_buffers "$WORK/allow.json" >/dev/null ||
	fail "allow:anon: no region inside the buffers"
got=$(in_buffers "$WORK/allow.json")
[ "$got" = '[{"type": "anon", "matching": true, "allow": true}]
whole' ] || fail "allow:anon: $got"
[ "$(config)" = "$before" ] || fail "allow:anon: the configuration changed"

# the text: damo's detailed style says the filters, and each region's df-passed bytes
out=$("$DAMONC" report access --snapshot-damos-filter allow:anon --count 1 --style detailed)
grep -qx '# damos filters (df): allow anon' <<<"$out" || fail "detailed: $out"
grep -qE '^[0-9]+ addr .* df-passed ' <<<"$out" || fail "detailed region lines: $out"

# a record through reject:anon and memcg-less active: its snapshots name both, in order
"$DAMONC" record --snapshot-damos-filter reject:anon --snapshot-damos-filter 'allow:!active' \
	--count 2 --interval 300ms -o "$WORK/rec" >/dev/null ||
	fail "record --snapshot-damos-filter"
got=$("$DAMONC" report access -i "$WORK/rec" --total-size \
	--format-snapshot-head '<filters passed type>')
[ "$(head -n 1 <<<"$got")" = "reject anon, allow none active" ] || fail "the record: $got"
"$DAMONC" --json report access -i "$WORK/rec" >"$WORK/reject.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
f = d["snapshot"]["ops_filters"]
assert [x["type"] for x in f] == ["anon", "active"], f' "$WORK/reject.json" ||
	fail "the record's filters: $(cat "$WORK/reject.json")"
rej1() {
	"$DAMONC" record --snapshot-damos-filter reject:anon --count 1 -o "$WORK/rej1" >/dev/null
	"$DAMONC" --json report access -i "$WORK/rej1" >"$WORK/rej1.json"
	in_buffers "$WORK/rej1.json" >/dev/null 2>&1
}
fair_wait 30000 rej1 || in_buffers "$WORK/rej1.json" >/dev/null || fail "reject:anon: no region inside the buffers"
[ "$(in_buffers "$WORK/rej1.json" | tail -n 1)" = none ] ||
	fail "reject:anon passed part of the buffers: $(in_buffers "$WORK/rej1.json")"
[ "$(config)" = "$before" ] || fail "record: the configuration changed"

# monitor, a round through the filter (the window's record keeps them)
"$DAMONC" --json monitor --kdamond 0 --delay 300ms --count 1 --report access \
	--snapshot-damos-filter allow:anon >"$WORK/mon.json" || fail "monitor: $(cat "$WORK/mon.json")"
grep -q '"ops_filters":\[{"type":"anon"' "$WORK/mon.json" || fail "monitor: $(cat "$WORK/mon.json")"
[ "$(config)" = "$before" ] || fail "monitor: the configuration changed"

# damo's --tried_regions_of: what the kdamond's own scheme (0: stat, at least 1 s old)
# tried, with its stats and its filters (none), no capture scheme installed
"$DAMONC" --json report access --tried-regions-of 0 --count 3 --interval 300ms \
	>"$WORK/of.json" || fail "report access --tried-regions-of 0: $(cat "$WORK/of.json")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["series"]["scheme"] == 0, d["series"]
assert "damos_stats" in d["snapshot"], d["snapshot"]
assert "ops_filters" not in d["snapshot"], d["snapshot"]
# the scheme tries what is at least 1 s old: every region shown is
aggr = d["snapshot"]["aggr_us"]
assert all(r["age_us"] >= 1000000 for r in d["regions"]), d["regions"]' "$WORK/of.json" ||
	fail "--tried-regions-of 0: $(cat "$WORK/of.json")"
out=$("$DAMONC" report access --tried-regions-of 0 --count 2 --interval 300ms --style detailed)
if ! grep -qx 'scheme stats' <<<"$out" || ! grep -q '^tried ' <<<"$out"; then
	fail "--tried-regions-of --style detailed: $out"
fi
"$DAMONC" record --tried-regions-of 0 --count 2 --interval 300ms -o "$WORK/of.rec" >/dev/null ||
	fail "record --tried-regions-of 0"
got=$("$DAMONC" report access -i "$WORK/of.rec" --total-size --format-record-head \
	'scheme <scheme index>')
[ "$(head -n 1 <<<"$got")" = "scheme 0" ] || fail "the record of scheme 0's regions: $got"
[ "$(config)" = "$before" ] || fail "--tried-regions-of: the configuration changed"

# bad input: exit 2, nothing written
w=$(writes)
bad() { # WANT ARGS...
	local want=$1 rc=0 err
	shift
	err=$("$DAMONC" "$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 2 ] || [[ $err != *"$want"* ]]; then
		fail "damonc $*: exit $rc: $err"
	fi
}
# a cgroup hierarchy under the sysroot, so that memcg paths can be looked up
mkdir -p "$SYSROOT/sys/fs/cgroup/present"
: >"$SYSROOT/sys/fs/cgroup/cgroup.controllers"
bad "addr is a filter of DAMON's core" report access --snapshot-damos-filter \
	allow:addr:0-4096 --count 1
bad "target is a filter of DAMON's core" record --snapshot-damos-filter reject:target:0 --count 1
bad "unknown type 'bogus'" report access --snapshot-damos-filter allow:bogus --count 1
bad "a memcg path begins with '/'" report access --snapshot-damos-filter allow:memcg:db --count 1
bad "are for live captures" report access -i "$WORK/rec" --snapshot-damos-filter allow:anon
bad "do not apply" record -i "$WORK/rec" -o "$WORK/x" --snapshot-damos-filter allow:anon
bad "--method trace's events carry no" record --method trace --snapshot-damos-filter allow:anon \
	--count 1 -o "$WORK/x"
bad "no cgroup '/no/such/group'" report access --snapshot-damos-filter allow:memcg:/no/such/group \
	--count 1
# the missing one named, not the first memcg filter
bad "no cgroup '/absent'" report access --snapshot-damos-filter allow:memcg:/present \
	--snapshot-damos-filter reject:memcg:/absent --count 1
bad "kdamond 0 has 1 scheme" report access --tried-regions-of 1 --count 1
bad "--snapshot-damos-filter is for a capture scheme" report access --tried-regions-of 0 \
	--snapshot-damos-filter allow:anon --count 1
bad "--method trace takes none" record --tried-regions-of 0 --method trace --count 1 -o "$WORK/x"
bad "are for live captures" report access -i "$WORK/rec" --tried-regions-of 0
[ "$(writes)" = "$w" ] || fail "bad input wrote: $(tail -n +$((w + 1)) "$EMU_LOG")"
[ "$(config)" = "$before" ] || fail "bad input: the configuration changed"
"$DAMONC" stop >/dev/null
emu_cleanup

# 6.12: no allow, no sz_filter_passed: exit 3, nothing written
rec_setup 6.12 --scenario "$WORK/scenario" --no-real-actions
rec_start --pid "$HC_PID" --action stat --sample 5ms --aggr 50ms
w=$(writes)
rc=0
err=$("$DAMONC" report access --snapshot-damos-filter allow:anon --count 1 2>&1 >/dev/null) ||
	rc=$?
if [ "$rc" != 3 ] || [[ $err != *"cannot take snapshots through DAMOS filters"* ]]; then
	fail "6.12: exit $rc: $err"
fi
[ "$(writes)" = "$w" ] || fail "6.12: the refusal wrote: $(tail -n +$((w + 1)) "$EMU_LOG")"
echo ok
