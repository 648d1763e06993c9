#!/bin/bash
# damonc record given targets starts its own kdamond, records it, and removes it: by --pid
# for a few snapshots (on a bare tree, and reusing a stopped kdamond of damonc's), by
# '-- COMMAND' until the command exits, ended by SIGINT, and killed with -9 (the next
# `damonc stop` removes what it left). Each time the tree is as before. Bad input exits 2
# and writes nothing.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
RUN=$SYSROOT/run/damonc
# the configuration (results change by themselves), and what damonc keeps of it
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
run_state() {
	(cd "$RUN" && for f in *; do [ "$f" = lock ] || { echo "== $f"; cat "$f"; }; done) \
		2>/dev/null || true
}
same_as_before() { # WHAT: the tree and the run directory are as in $before/$before_run
	[ "$(config)" = "$before" ] ||
		fail "$1: the tree changed: $(diff <(echo "$before") <(config) || true)"
	[ "$(run_state)" = "$before_run" ] ||
		fail "$1: damonc's run directory changed: $(diff <(echo "$before_run") <(run_state) || true)"
}
snapshots() { "$DAMONC" --json report wss -i "$1" 2>/dev/null | py 'd["snapshots"]' 2>/dev/null || echo 0; }
has_snapshots() { [ "$(snapshots "$1")" -ge "$2" ]; }
# the hottest region of record $1 is in [$2, $3) (its middle: the regions' edges are
# approximate), accessed at most samples
hot_in() {
	local start end rate mid
	"$DAMONC" --json report access -i "$1" --sort hot --top 1 >"$1.hot" ||
		fail "report access -i $1"
	start=$(py 'd["regions"][0]["start"]' <"$1.hot")
	end=$(py 'd["regions"][0]["end"]' <"$1.hot")
	rate=$(py 'd["regions"][0]["access_rate_bp"]' <"$1.hot")
	mid=$(((start + end) / 2))
	{ [ "$mid" -ge "$2" ] && [ "$mid" -lt "$3" ]; } ||
		fail "$1: the hottest region $start-$end is not in the hot buffer $2-$3"
	[ "$rate" -ge 5000 ] || fail "$1: the hottest region is accessed in $rate bp of samples"
}
RARGS=(--sample 5ms --aggr 50ms --interval 100ms)

# 1. --pid on a bare tree: a kdamond is added, recorded, and removed
before=$(emu_dump)
before_run=$(run_state)
"$DAMONC" record --pid "$HC_PID" "${RARGS[@]}" --count 4 -o "$WORK/pid" 2>"$WORK/pid.err" ||
	fail "record --pid: $(cat "$WORK/pid.err")"
grep -q '4 snapshots of kdamond 0' "$WORK/pid.err" || fail "no summary: $(cat "$WORK/pid.err")"
[ "$(emu_dump)" = "$before" ] || fail "record --pid left the tree changed: $(diff <(echo "$before") <(emu_dump) || true)"
[ "$(run_state)" = "$before_run" ] || fail "record --pid left $(run_state)"
[ "$(snapshots "$WORK/pid")" = 4 ] || fail "the record holds $(snapshots "$WORK/pid") snapshots"
[ "$("$DAMONC" --json report wss -i "$WORK/pid" | py 'd["input"]["end_reason"]')" = count ] ||
	fail "end reason of --count"
hot_in "$WORK/pid" "$HOT_START" "$HOT_END"
# a footprint per snapshot: hotcold's 16 MiB written are resident, the system's figures are there
"$DAMONC" --json report footprints -i "$WORK/pid" >"$WORK/pid.fp" || fail "report footprints"
fp=$(py '(d["samples"], sorted((m["metric"], m["pid"]) for m in d["metrics"] if m["target"] is not None))' <"$WORK/pid.fp")
[ "$fp" = "(4, [('cpu_bp', $HC_PID), ('rss', $HC_PID), ('vmas', $HC_PID), ('vsz', $HC_PID)])" ] ||
	fail "footprints of record --pid: $fp"
# hotcold's CPU share between footprints (3 of them: the first has no time before it), its
# mappings as /proc lists them, the kdamond's CPU share
n_maps=$(wc -l <"/proc/$HC_PID/maps")
got=$(py '[(m["metric"], m["samples"], m["min"], m["max"]) for m in d["metrics"] if m["metric"] in ("cpu_bp", "vmas", "kdamond_cpu_bp")]' <"$WORK/pid.fp")
ok=$(py '(lambda m: m["cpu_bp"]["samples"] == 3 and m["cpu_bp"]["max"] > 0 and m["vmas"]["samples"] == 4 and m["vmas"]["min"] == m["vmas"]["max"] == '"$n_maps"' and m["kdamond_cpu_bp"]["samples"] == 3)({x["metric"]: x for x in d["metrics"]})' <"$WORK/pid.fp" || true)
[ "$ok" = True ] ||
	fail "cpu, mappings ($n_maps in /proc) and kdamond cpu of record --pid: $got"
py '[m["min"] for m in d["metrics"] if m["metric"] == "rss"][0] >= 16 << 20 and [m["min"] for m in d["metrics"] if m["metric"] == "used"][0] > 0 or sys.exit(1)' <"$WORK/pid.fp" >/dev/null ||
	fail "footprints of record --pid: $(cat "$WORK/pid.fp")"

# from here on, kdamond 0 is a stopped one of damonc's: record reuses it and puts it back
rec_start --pid "$HC_PID" --action stat --min-size 8KiB --aggr 100ms
"$DAMONC" stop >/dev/null
before=$(config)
before_run=$(run_state)
[ -n "$before_run" ] || fail "no entry of damonc's stopped kdamond"

# 2. bad input: exit 2, nothing written (no output file, the tree and run directory as they were)
sleep 0 &
gone=$!
wait "$gone"
: >"$EMU_LOG"
bad() { # EXPECTED-MESSAGE ARGS...
	local msg=$1 rc=0
	shift
	rm -f "$WORK/bad"
	"$DAMONC" record -o "$WORK/bad" "$@" >/dev/null 2>"$WORK/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "record $*: exit $rc, not 2: $(cat "$WORK/bad.err")"
	grep -q -- "$msg" "$WORK/bad.err" || fail "record $*: $(cat "$WORK/bad.err")"
	[ ! -e "$WORK/bad" ] || fail "record $*: wrote its output"
}
bad "--kdamond records a running kdamond" --kdamond 0 --pid "$HC_PID"
bad "--pid $gone: no such process" --pid "$gone"
bad "cannot run '/nonexistent/cmd'" -- /nonexistent/cmd
bad "not both" --kdamond 0 -- true
bad "does not go with --ops paddr" --ops paddr --pid "$HC_PID"
bad "targets and monitoring options do not apply" -i "$WORK/pid" --pid "$HC_PID"
! grep -q '^W' "$EMU_LOG" || fail "bad input wrote to DAMON: $(grep '^W' "$EMU_LOG")"
same_as_before "bad input"

# 3. SIGINT: a clean end
"$DAMONC" record --pid "$HC_PID" "${RARGS[@]}" -o "$WORK/int" 2>"$WORK/int.err" &
rec=$!
fair_wait 30000 has_snapshots "$WORK/int" 2 || fail "no snapshots before SIGINT: $(cat "$WORK/int.err")"
kill -INT "$rec"
wait "$rec" || fail "record exited $? on SIGINT: $(cat "$WORK/int.err")"
[ "$("$DAMONC" --json report wss -i "$WORK/int" | py 'd["input"]["end_reason"]')" = signal ] ||
	fail "SIGINT: not ended by the signal"
same_as_before "SIGINT"

# 4. kill -9: what it started is damonc's, and the next stop removes it
"$DAMONC" record --pid "$HC_PID" "${RARGS[@]}" -o "$WORK/k9" 2>/dev/null &
rec=$!
fair_wait 30000 has_snapshots "$WORK/k9" 2 || fail "no snapshots before kill -9"
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
running0() { [ "$(sysfs_read "$ADMIN/kdamonds/0/state" 2>/dev/null)" = on ]; }
fair_wait 2000 running0 || fail "kill -9: the kdamond is not running, nothing was tested"
"$DAMONC" status >"$WORK/k9.status" 2>&1
grep -q "leftover: 'damonc record' (pid $rec) was killed" "$WORK/k9.status" ||
	fail "status does not name the leftover: $(cat "$WORK/k9.status")"
"$DAMONC" stop >"$WORK/k9.stop" 2>&1 || fail "stop after kill -9: $(cat "$WORK/k9.stop")"
grep -q "'damonc record' (pid $rec) was killed" "$WORK/k9.stop" ||
	fail "stop does not say what it undid: $(cat "$WORK/k9.stop")"
same_as_before "kill -9, then stop"

# 5. -- COMMAND: recorded until it exits; record's exit status is its own
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null || true
HC_PID=
"$DAMONC" record "${RARGS[@]}" -o "$WORK/cmd" -- "$HOTCOLD" --hot 8M --cold 8M \
	--scenario "$WORK/scenario" --duration 2 >"$WORK/cmd.out" 2>"$WORK/cmd.err" ||
	fail "record -- hotcold: $(cat "$WORK/cmd.err")"
grep -qE '\((target_exited|kdamond_stopped)\).*the command exited with status 0' "$WORK/cmd.err" ||
	fail "record -- hotcold: $(cat "$WORK/cmd.err")"
line=$(head -n1 "$WORK/cmd.out")
[[ $line =~ hot=0x([0-9a-f]+)-0x([0-9a-f]+) ]] || fail "hotcold printed: $line"
[ "$(snapshots "$WORK/cmd")" -ge 3 ] || fail "record -- hotcold: $(snapshots "$WORK/cmd") snapshots"
hot_in "$WORK/cmd" $((16#${BASH_REMATCH[1]})) $((16#${BASH_REMATCH[2]}))
same_as_before "-- COMMAND"
# a command that fails: record still succeeds, and says how the command ended
"$DAMONC" record "${RARGS[@]}" -o "$WORK/false" -- sh -c 'sleep 0.5; exit 3' \
	2>"$WORK/false.err" || fail "record -- false: $(cat "$WORK/false.err")"
grep -q 'the command exited with status 3' "$WORK/false.err" || fail "$(cat "$WORK/false.err")"
same_as_before "-- a failing command"

# 6. SIGINT during '-- COMMAND': the command is ended too
# a duration of this test's own: tests running beside it sleep too
naptime=617$$
"$DAMONC" record "${RARGS[@]}" -o "$WORK/cint" -- sleep "$naptime" 2>"$WORK/cint.err" &
rec=$!
fair_wait 30000 has_snapshots "$WORK/cint" 2 || fail "no snapshots of sleep: $(cat "$WORK/cint.err")"
kill -INT "$rec"
wait "$rec" || fail "record -- sleep exited $? on SIGINT: $(cat "$WORK/cint.err")"
! pgrep -f "sleep $naptime" >/dev/null || fail "the command outlived its record"
same_as_before "SIGINT with -- COMMAND"
echo ok
