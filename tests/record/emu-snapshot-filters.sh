#!/bin/bash
# Snapshots through DAMOS filters (damo's --snapshot_damos_filter) with libdamonctl's capture
# (snapshot-filters-lib.c) on damon-emu: two processes, each with anonymous buffers and the
# file-backed mappings of its program and libraries, monitored by one vaddr kdamond with a
# scheme of its own; the capture's schemes (one per target: a target filter rejecting the
# other, then the filters) give each region's sz_filter_passed, which must be what the
# emulator's pages say (its rules, emu/engine/filters.h: present pages, from
# /proc/PID/pagemap, of anonymous mappings, from /proc/PID/maps), on 7.2 (ops_filters, an
# allow filter and a reject one) and 6.18 (a model's filters/ entry, matching N); every
# snapshot names its filters, written to a record and read back; close leaves the kdamond as
# it was. On 6.12 (no allow, no sz_filter_passed) the capture is refused and writes nothing.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"
LIB=${SNAPSHOT_FILTERS_LIB:?SNAPSHOT_FILTERS_LIB is not set}
HC2_PID=

cleanup() {
	local pid
	for pid in $HC_PID $HC2_PID; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	HC_PID=
	rm -rf "$WORK"
	emu_cleanup	# last: it exits 1 if the emulator reported errors
}
trap cleanup EXIT

# the workloads: hotcold's own (8 MiB + 8 MiB, with the emulator's scenario), and another
# (4 MiB + 4 MiB) without a scenario: accesses do not matter to these filters
HOT_SIZE=8M COLD_SIZE=8M rec_workload
"$HOTCOLD" --hot 4M --cold 4M >"$WORK/hc2.out" 2>"$WORK/hc2.err" &
HC2_PID=$!
fair_wait 10000 test -s "$WORK/hc2.out" || fail "the second hotcold did not start"

config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }

# check OUT FILTERS_JSON TEXT PASS: every snapshot of the capture's output OUT names
# FILTERS_JSON (and TEXT), is read back from the record with them, and each of its regions'
# sz_filter_passed is the bytes of the emulator's present pages in it that are of anonymous
# mappings (PASS anon) or not (PASS file)
check() {
	python3 - "$1" "$2" "$3" "$4" "$HC_PID" "$HC2_PID" "$HOT_START" "$HOT_END" \
		"$COLD_START" "$COLD_END" <<'PY' || fail "$1: $(head -c 3000 "$1")"
import os, struct, sys
out, want_json, want_text, want = sys.argv[1:5]
pids = [int(sys.argv[5]), int(sys.argv[6])]
bufs = [(int(sys.argv[7]), int(sys.argv[8])), (int(sys.argv[9]), int(sys.argv[10]))]
page = os.sysconf("SC_PAGE_SIZE")

def need(ok, why):
    if not ok:
        sys.exit("snapshot filters: " + why)

def vmas(pid):
    """damon-emu's view (emu/engine/vaddr.c): anonymous is no inode and no name, [heap],
    [stack] or [anon:...]; the vsyscall page is no mapping"""
    for line in open("/proc/%d/maps" % pid):
        f = line.split(None, 5)
        start, end = (int(x, 16) for x in f[0].split("-"))
        name = f[5].strip() if len(f) > 5 else ""
        if name == "[vsyscall]":
            continue
        anon = int(f[4]) == 0 and (name == "" or name.startswith(("[heap]", "[stack]", "[anon:")))
        yield start, end, anon

def present(pm, start, end):
    pm.seek(start // page * 8)
    data = pm.read((end - start) // page * 8)
    return sum(page for (e,) in struct.iter_unpack("<Q", data) if e >> 63)

def expected(pid, start, end):
    total = 0
    with open("/proc/%d/pagemap" % pid, "rb") as pm:
        for vs, ve, anon in vmas(pid):
            s, e = max(vs, start), min(ve, end)
            if s < e and anon == (want == "anon"):
                total += present(pm, s, e)
    return total

lines = [l.rstrip("\n").split(" ", 1) for l in open(out)]
snaps, cur, readback = [], None, []
for key, rest in lines:
    if key == "snap":
        t, nr, has = map(int, rest.split())
        cur = {"target": t, "nr": nr, "has": has, "regions": []}
        snaps.append(cur)
    elif key in ("filters", "text", "installed"):
        cur[key] = rest
    elif key == "region":
        cur["regions"].append(tuple(map(int, rest.split())))
    elif key == "readback":
        readback.append(rest)
    elif key == "end":
        need(rest == "count 0", "the end: %s" % rest)
need(len(snaps) == 4 and sorted(s["target"] for s in snaps) == [0, 0, 1, 1],
     "two snapshots of each target expected: %s" % [(s["target"], s["nr"]) for s in snaps])
need(readback == ["%d %s" % (s["target"], want_json) for s in snaps],
     "read back from the record: %s" % readback)
bad = []
for s in snaps:
    need(s["filters"] == want_json, "filters %s, not %s" % (s["filters"], want_json))
    need(s["text"] == want_text, "text '%s', not '%s'" % (s["text"], want_text))
    need(s["installed"] == "1" and s["has"] == 1 and s["regions"], "snapshot %s" % s)
    pid = pids[s["target"]]
    for start, end, sfp in s["regions"]:
        want_sfp = expected(pid, start, end)
        if sfp != want_sfp:
            bad.append("target %d [%#x, %#x): %d, the pages say %d" %
                       (s["target"], start, end, sfp, want_sfp))
    passed = sum(sfp for _, _, sfp in s["regions"])
    need(passed > 0, "nothing passed in a snapshot of target %d" % s["target"])
    # the workloads' buffers are anonymous, every page written (the first aggregations'
    # regions need not follow their edges yet)
    if want == "anon":
        least = sum(b[1] - b[0] for b in bufs) if s["target"] == 0 else 8 << 20
        need(passed >= least, "target %d: %d bytes passed, less than its buffers' %d" %
             (s["target"], passed, least))
need(not bad, "\n".join(bad))
PY
}

# capture PROFILE OUT FILTER...: on a fresh emulator of PROFILE, the workloads in one vaddr
# kdamond with a stat scheme of its own, a capture of two ticks through FILTER...; then the
# kdamond's configuration is as it was
capture() {
	local profile=$1 out=$2 before
	shift 2
	emu_setup "$profile" --scenario "$WORK/scenario" --no-real-actions
	rec_start --pid "$HC_PID" --pid "$HC2_PID" --action stat --min-age 1s \
		--sample 5ms --aggr 50ms
	before=$(config)
	"$LIB" "$SYSROOT" "$WORK/rec" 2 "$@" >"$out" 2>"$out.err" ||
		fail "capture on $profile ($*): $(cat "$out.err") $(cat "$out")"
	[ "$(config)" = "$before" ] ||
		fail "$profile: the configuration changed: $(diff <(echo "$before") <(config))"
	emu_cleanup
}

# 7.2: ops_filters, behind core_filters' target filter
capture 7.2 "$WORK/allow" allow:anon
check "$WORK/allow" '[{"type":"anon","matching":true,"allow":true}]' "allow anon" anon
capture 7.2 "$WORK/reject" reject:anon
check "$WORK/reject" '[{"type":"anon","matching":true,"allow":false}]' "reject anon" file
# 6.18 (vaddr's stat filters): a filter of the model's filters/, reject what is not anon
capture 6.18 "$WORK/none" legacy:reject:!anon
check "$WORK/none" '[{"type":"anon","matching":false,"allow":false}]' "reject none anon" anon

# 6.12: refused before anything is written, without a last error
emu_setup 6.12 --scenario "$WORK/scenario" --no-real-actions
rec_start --pid "$HC_PID" --action stat --sample 5ms --aggr 50ms
writes=$(wc -l <"$EMU_LOG")
"$LIB" "$SYSROOT" "$WORK/rec" 0 allow:anon >"$WORK/refuse" ||
	fail "refuse: $(cat "$WORK/refuse")"
want=$(python3 -c 'import errno; print("refuse -%d 0" % errno.EOPNOTSUPP)')
[ "$(cat "$WORK/refuse")" = "$want" ] || fail "6.12: $(cat "$WORK/refuse"), expected $want"
[ "$(wc -l <"$EMU_LOG")" = "$writes" ] ||
	fail "the refusal wrote: $(tail -n +$((writes + 1)) "$EMU_LOG")"
echo ok
