#!/bin/bash
# libdamonctl's fallback server through its public header alone (fallback-server.c) on
# damon-emu 7.2: a collapse scheme with a hugepage_mem_bp goal of 30% over its target (the
# hot/cold workload, 32 MiB hot, 32 MiB cold) is planned, started and served by the program
# with no damonc agent. The goal is fed (as user_input), the kernel may collapse what the
# server grants, and the process settles at the huge page nearest 30%, measured here from
# /proc/PID/smaps_rollup; the value the kernel was fed last is that ratio.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
FALLBACK_SERVER=${FALLBACK_SERVER:?FALLBACK_SERVER is not set}
GOAL=3000
emu_with_scenario 7.2
start_hotcold --hot 32M --cold 32M
[ "$(proc_huge_kb "$HC_PID")" = 0 ] || fail "the workload is huge already"

cat >"$SYSROOT/config.json" <<JSON
{"kdamonds": [{"contexts": [{"operations": "vaddr",
  "monitoring_attrs": {"intervals": {"sample_us": 5000, "aggr_us": 100000,
                                     "update_us": 1000000}},
  "targets": [{"pid_target": $HC_PID}],
  "schemes": [{"action": "collapse",
    "access_pattern": {"sz": {"min": 2097152, "max": 18446744073709551615},
                       "nr_accesses": {"min": 1, "max": 4294967295},
                       "age": {"min": 5, "max": 4294967295}},
    "quotas": {"ms": 100, "reset_interval_ms": 200,
               "goals": [{"target_metric": "hugepage_mem_bp", "target_value": $GOAL}]}}]}]}]}
JSON
# bounded by rounds (0.2 s each), not by time: it ends 3 rounds after the goal is met
"$FALLBACK_SERVER" "$SYSROOT" "$SYSROOT/config.json" 150 >"$SYSROOT/out" 2>"$SYSROOT/err" ||
	fail "fallback-server: $(cat "$SYSROOT/err")"
no_agent || fail "a damonc agent runs"
fed=$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/quotas/goals/0/current_value")
python3 - "$SYSROOT/out" "$HC_PID" "$GOAL" "$fed" <<'PY' || fail "$(cat "$SYSROOT/out")"
import sys
out, pid, goal, fed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lines = [l.split() for l in open(out)]
def need(ok, why):
    if not ok:
        sys.exit("fallback server: " + why)
# the kernel's definition over a process: PMD-mapped memory over its RSS, in basis points
kb = {}
for l in open("/proc/%d/smaps_rollup" % pid):
    f = l.split()
    if len(f) >= 2 and f[0].endswith(":"):
        kb[f[0][:-1]] = int(f[1])
huge = kb.get("AnonHugePages", 0) + kb.get("ShmemPmdMapped", 0) + kb.get("FilePmdMapped", 0)
bp = huge * 10000 // kb["Rss"]
page_bp = 2048 * 10000 // kb["Rss"]
FEEDING, GOAL_MET, GRANTED = 0, 1, 6
kinds = [int(l[1]) for l in lines if l[0] == "event"]
need(lines[0] == ["plan", "2"], "plan: %s, expected a goal fed and a budget" % lines[0])
need(kinds.count(FEEDING) == 1, "the first feed said %d times" % kinds.count(FEEDING))
need(GRANTED in kinds, "the kernel was never allowed anything")
need(GOAL_MET in kinds, "the goal was never met")
stats = [l for l in lines if l[0] == "stats"][0]
need(stats[4] == "1", "the goal is not met at the end: %s" % stats)
# the nearest huge page: within half a page of the goal, and the value fed is the ratio
need(abs(bp - goal) <= page_bp // 2 + 1, "settled at %d bp, goal %d" % (bp, goal))
need(abs(fed - bp) <= 1 and int(stats[3]) == fed, "fed %d, measured %s, ratio %d" %
     (fed, stats[3], bp))
tried = [l for l in lines if l[0] == "scheme" and l[1] == "0"]
need(tried and int(tried[0][3]) >= huge * 1024, "granted less than became huge: %s" % tried)
PY
echo ok
