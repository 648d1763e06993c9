#!/bin/bash
# libdamonctl's live capture through its public header alone (capture-lib.c) on damon-emu:
# refusals are the documented errnos and write nothing; a capture yields CONFIG first, then
# --count's snapshots, whose regions cover the workload's buffers (hot ones accessed, cold
# ones not, as hotcold tells), the kernel's scheme stats, a guard note in the state
# directory while it runs; a SIGINT handler calling damonctl_capture_request_end ends it;
# and close leaves the kdamond's configuration as it was and no note behind. The same capture
# through a program built against 0.3's items (CAPTURE_LIB_OLD: the capture's 0.3 symbol
# version) gives the same.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"
CAPTURE_LIB=${CAPTURE_LIB:?CAPTURE_LIB is not set}
CAPTURE_LIB_OLD=${CAPTURE_LIB_OLD:?CAPTURE_LIB_OLD is not set}

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_start --pid "$HC_PID" --action pageout --access-rate 0%,0% --min-age 1s \
	--sample 5ms --aggr 50ms
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
before=$(config)
state=$WORK/state

# 1. refusals: tried-regions without allow_foreign, trace without the event (the emulator
# has no tracefs); neither sets a last error, and nothing is written
writes=$(wc -l <"$EMU_LOG")
"$CAPTURE_LIB" "$SYSROOT" "$state" refuse >"$WORK/refuse" || fail "refuse: $(cat "$WORK/refuse")"
want=$(python3 -c 'import errno; print("refuse 1 -%d 0\nrefuse 2 -%d 0" % (errno.EPERM, errno.EOPNOTSUPP))')
[ "$(grep '^refuse' "$WORK/refuse")" = "$want" ] ||
	fail "refusals: $(cat "$WORK/refuse"), expected $want"
[ "$(wc -l <"$EMU_LOG")" = "$writes" ] ||
	fail "a refusal wrote: $(tail -n +$((writes + 1)) "$EMU_LOG")"

# 2. --count 3, checked in python against hotcold's buffers, by today's program and 0.3's
for prog in "$CAPTURE_LIB" "$CAPTURE_LIB_OLD"; do
"$prog" "$SYSROOT" "$state" count >"$WORK/count" 2>"$WORK/count.err" ||
	fail "capture ($prog): $(cat "$WORK/count.err")"
python3 - "$WORK/count" "$HOT_START" "$HOT_END" "$COLD_START" "$COLD_END" "$prog" <<'PY' ||
import sys
lines = [l.split() for l in open(sys.argv[1])]
hot, cold = (int(sys.argv[2]), int(sys.argv[3])), (int(sys.argv[4]), int(sys.argv[5]))
# 0.3's program checks the items' conversion: what DAMON saw of the accesses in its first
# aggregations (a split region keeps its parent's count for a while) is the first pass's
old = sys.argv[6].endswith("-old")
def need(ok, why):
    if not ok:
        sys.exit("capture: " + why)
need(lines[0] == ["method", "tried-regions"], "AUTO without tracefs is not tried-regions")
items = [l for l in lines if l[0] in ("item", "snap")]
need(items[0] == ["item", "config"], "the first item is not CONFIG")
snaps, cur = [], None
for l in lines:
    if l[0] == "snap":
        cur = {"target": int(l[1]), "nr": int(l[2]), "regions": []}
        snaps.append(cur)
    elif l[0] == "region":
        cur["regions"].append(tuple(map(int, l[1:])))
need(len(snaps) == 3, "%d snapshots, expected 3" % len(snaps))
# scheme 0 is the kdamond's pageout; its stats files give nr_tried to qt_exceeds at least
need(any(l[:4] == ["item", "stats", "0", "pageout"] and int(l[4]) & 0x3f == 0x3f
         for l in lines), "no STATS of the kdamond's pageout scheme")
inside = lambda r, b: b[0] <= r[0] and r[1] <= b[1]
nr_hot = 0
for s in snaps:
    rs = s["regions"]
    need(s["target"] == 0 and s["nr"] == len(rs) and rs, "snapshot %s" % s)
    need(all(a[1] <= b[0] for a, b in zip(rs, rs[1:])), "regions overlap or are unsorted")
    for b in (hot, cold):
        covered = sum(min(r[1], b[1]) - max(r[0], b[0]) for r in rs
                      if r[0] < b[1] and b[0] < r[1])
        need(covered == b[1] - b[0], "a buffer is not covered by the regions")
    need(all(r[2] == 0 for r in rs if inside(r, cold)) or old, "a cold region was accessed")
    # a region mostly of the hot buffer: in the first aggregations DAMON may not have split
    # regions at its very edges yet (a page or two of a neighbour in it), more so on a
    # loaded machine
    nr_hot += sum(1 for r in rs if r[2] > 0 and
                  2 * (min(r[1], hot[1]) - max(r[0], hot[0])) > r[1] - r[0])
need(nr_hot > 0 or old, "no hot region was seen accessed")
need(["note", "1"] in lines, "no guard note while capturing")
need(lines[-1] == ["end", "count", "0"], "the end: %s" % lines[-1])
PY
	fail "$prog: $(cat "$WORK/count")"
[ ! -e "$state/capture-0.json" ] || fail "the note outlived close"
[ "$(config)" = "$before" ] || fail "the config changed: $(diff <(echo "$before") <(config))"
done

# 3. a SIGINT handler ends it after the first snapshot
"$CAPTURE_LIB" "$SYSROOT" "$state" signal >"$WORK/sig" 2>"$WORK/sig.err" ||
	fail "capture (signal): $(cat "$WORK/sig.err")"
[ "$(grep -c '^snap' "$WORK/sig")" = 1 ] || fail "signal: $(grep '^snap' "$WORK/sig")"
[ "$(tail -n 1 "$WORK/sig")" = "end signal 0" ] || fail "signal: $(tail -n 1 "$WORK/sig")"
[ "$(config)" = "$before" ] || fail "the config changed: $(diff <(echo "$before") <(config))"
echo ok
