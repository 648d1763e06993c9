#!/bin/bash
# damonc monitor: rounds of a report on the last --delay of monitoring. '-- COMMAND' for 3
# rounds: 3 JSON lines (the schema is checked by damonc-checked), contiguous windows of 1 s,
# each report computed from its window's snapshots alone (wss counts them) and showing the
# workload's hot buffer hot and its cold buffer cold (from the emulator's scenario, which
# hotcold writes); the tree and damonc's run directory as before. --kdamond N leaves the
# kdamond running as it was; SIGINT ends a monitor cleanly (the command ended too); bad
# input exits 2 naming the option and writes nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/damonc-monitor.XXXXXX")
trap 'kill "${HC_ALL[@]}" 2>/dev/null || true; rm -rf "$WORK" "$SCENARIO"; emu_cleanup' EXIT
RUN=$SYSROOT/run/damonc
# the configuration (results change by themselves), and what damonc keeps of it
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
run_state() {
	(cd "$RUN" && for f in *; do [ "$f" = lock ] || { echo "== $f"; cat "$f"; }; done) \
		2>/dev/null || true
}
same_as_before() { # WHAT
	[ "$(config)" = "$before" ] ||
		fail "$1: the tree changed: $(diff <(echo "$before") <(config) || true)"
	[ "$(run_state)" = "$before_run" ] ||
		fail "$1: damonc's run directory changed: $(diff <(echo "$before_run") <(run_state) || true)"
}
# the regions are refit to the workload's mappings every 100ms (the default is 60s)
MARGS=(--sample 5ms --aggr 50ms --update 100ms --no-clear)
# hotcold (the emulator's scenario makes it hot: it need not spin), exec'd by a shell that
# puts its line in a file (monitor's stdout is the report's)
hc_cmd() { echo "echo \$\$ >'$WORK/$1.pid'; exec '$HOTCOLD' --hot 8M --cold 8M --pause-us 50000 --scenario '$SCENARIO' >'$WORK/$1.out'"; }

# 1. '-- COMMAND', 3 rounds of wss; --pid with --regions (hot and cold buffers alone: the
# heatmap's rows are then finer than a buffer), 3 rounds of a heatmap
before=$(config)
before_run=$(run_state)
"$D" --json monitor --count 3 --delay 1s --report wss "${MARGS[@]}" \
	-- sh -c "$(hc_cmd wss)" >"$WORK/wss.jsonl" 2>"$WORK/wss.err" ||
	fail "monitor --report wss: $(cat "$WORK/wss.err")"
same_as_before "monitor -- hotcold"
! kill -0 "$(cat "$WORK/wss.pid")" 2>/dev/null || fail "monitor left its command running"
start_hotcold --hot 8M --cold 8M --pause-us 50000
# (no --update: an update refits the regions to the mappings, as the kernel does)
"$D" --json monitor --count 3 --delay 500ms --sample 5ms --aggr 50ms --pid "$HC_PID" \
	--regions "$HOT-$(printf '0x%x' $((COLD + (8 << 20))))" >"$WORK/heatmap.jsonl" \
	2>"$WORK/heatmap.err" || fail "monitor --pid: $(cat "$WORK/heatmap.err")"
same_as_before "monitor --pid"
# every round: its number, a window of 0.5 s after the one before, and about 10 snapshots in
# it (one a tenth of --delay, but at most one an aggregation: 50ms); the hot buffer is hot
# and the cold one cold
python3 - "$WORK/heatmap.jsonl" $((HOT)) $((HOT + (8 << 20))) $((COLD)) $((COLD + (8 << 20))) \
	<<'EOF' || fail "the heatmap rounds"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
hot, cold = (int(sys.argv[2]), int(sys.argv[3])), (int(sys.argv[4]), int(sys.argv[5]))
assert [l["round"] for l in lines] == [1, 2, 3], [l["round"] for l in lines]
for i, l in enumerate(lines):
    w = l["window"]
    assert w["end_ns"] - w["start_ns"] == 5 * 10**8, w
    assert i == 0 or w["start_ns"] == lines[i - 1]["window"]["end_ns"], w
    assert 1 <= l["snapshots"] <= 11, l["snapshots"]  # fewer on a loaded machine
    d = l["data"]
    # the report's time axis spans the window, not the run
    span = d["time_bins_us"][-1] - d["time_bins_us"][0] + d["time_bin_width_us"]
    assert span <= 0.55e6, span
    def rate(lo, hi):   # the mean access rate (bp) of the address bins inside [lo, hi)
        cells = [r[a] for r in d["access_rate_bp"] for a, b in enumerate(d["address_bins"])
                 if b["start"] >= lo and b["end"] <= hi and r[a] is not None]
        assert cells, (lo, hi, d["address_bins"])
        return sum(cells) / len(cells)
    assert rate(*hot) >= 8000 and rate(*cold) <= 500, (l["round"], rate(*hot), rate(*cold))
EOF
# wss: the report read exactly the window's snapshots; from the second round the working set
# is the hot buffer (8 MiB, with the regions' edges)
python3 - "$WORK/wss.jsonl" <<'EOF' || fail "the wss rounds: $(cat "$WORK/wss.jsonl")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["round"] for l in lines] == [1, 2, 3]
for i, l in enumerate(lines):
    assert l["report"] == "wss" and l["data"]["snapshots"] == l["snapshots"], l
    assert l["data"]["input"]["name"] == "the window", l["data"]["input"]
    w = l["window"]
    assert w["end_ns"] - w["start_ns"] == 10**9, w
    assert i == 0 or w["start_ns"] == lines[i - 1]["window"]["end_ns"], w
    assert 1 <= l["snapshots"] <= 11, l["snapshots"]  # fewer on a loaded machine
for l in lines[1:]:
    med = [p["wss"] for p in l["data"]["percentiles"] if p["percentile"] == 50][0]
    assert 7 << 20 <= med <= 10 << 20, med
EOF

# holistic: each round the window's heatmap, its working set (the hot buffer from the second
# round) and the target's memory footprint (what hotcold wrote: 16 MiB and more)
"$D" --json monitor --count 2 --delay 1s --report holistic "${MARGS[@]}" \
	-- sh -c "$(hc_cmd holistic)" >"$WORK/holistic.jsonl" 2>"$WORK/holistic.err" ||
	fail "monitor --report holistic: $(cat "$WORK/holistic.err")"
same_as_before "monitor --report holistic"
python3 - "$WORK/holistic.jsonl" <<'EOF' || fail "the holistic rounds: $(cat "$WORK/holistic.jsonl")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["round"] for l in lines] == [1, 2], [l["round"] for l in lines]
for l in lines:
    d = l["data"]
    assert l["report"] == "holistic", l
    assert d["heatmaps"] and d["heatmaps"][0]["snapshots"] == l["snapshots"], d["heatmaps"]
    fp = d["footprints"]
    # the window's footprints only: taken within its second
    assert fp["samples"] >= 1 and fp["last_us"] - fp["first_us"] <= 10**6, fp
    rss = [m for m in fp["metrics"] if m["metric"] == "rss"]
    assert rss and rss[0]["max"] >= 16 << 20, [(m["metric"], m["max"]) for m in fp["metrics"]]
med = [p["wss"] for p in lines[1]["data"]["wss"]["percentiles"] if p["percentile"] == 50][0]
assert 7 << 20 <= med <= 10 << 20, med
EOF

# 2. text: a header a round, the report's own text, no screen clearing off a terminal, nothing
# of the command's
"$D" monitor --count 2 --delay 500ms --report access --sample 5ms --aggr 50ms --update 100ms \
	-- sh -c "echo from-the-command; $(hc_cmd text)" >"$WORK/text" 2>"$WORK/text.err" ||
	fail "monitor --report access: $(cat "$WORK/text.err")"
[ "$(grep -c '^round [12]: ' "$WORK/text")" = 2 ] || fail "text: $(cat "$WORK/text")"
[ "$(grep -c '^start  *end  *size  *access' "$WORK/text")" = 2 ] || fail "text: $(cat "$WORK/text")"
! grep -q $'\033' "$WORK/text" || fail "the screen was cleared off a terminal"
# the command's standard output goes to /dev/null, as damo's does: the output is the reports'
! grep -q from-the-command "$WORK/text" || fail "the command's output is in monitor's"
same_as_before "monitor --report access"

# on a terminal of 40 columns: the screen cleared before each round, the heatmap 40 wide (19
# time columns; 80 columns would have room for 59, and the window for 50 aggregations)
python3 - "$D" "$WORK/tty" --count 2 --delay 1s --sample 2ms --aggr 20ms \
	-- sh -c "$(hc_cmd tty)" <<'EOF' || fail "monitor on a terminal: $(cat -v "$WORK/tty")"
import fcntl, os, pty, re, struct, subprocess, sys, termios
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 40, 0, 0))
p = subprocess.Popen([sys.argv[1], "monitor"] + sys.argv[3:], stdout=slave)
os.close(slave)
out = b""
while True:
    try:
        b = os.read(master, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
open(sys.argv[2], "wb").write(out)
assert p.wait() == 0
text = out.decode().replace("\r\n", "\n")
assert text.count("\033[H\033[2J") == 2, text
# what the terminal shows: the heat's colours take no column
rows = [re.sub("\033\\[[0-9;]*m", "", l) for l in text.split("\n") if l.startswith("0x")]
assert rows and all(len(l) <= 40 for l in rows), rows
EOF
same_as_before "monitor on a terminal"

# 3. --kdamond N: a running kdamond of damonc's, left running as it was (a new hotcold: the
# scenario is the last workload's)
start_hotcold --hot 8M --cold 8M --pause-us 50000
expect_rc 0 "$D" start --pid "$HC_PID" --action stat --min-size 8KiB --sample 5ms --aggr 50ms \
	--update 100ms
before=$(config)
before_run=$(run_state)
"$D" --json monitor --kdamond 0 --count 2 --delay 500ms --report access >"$WORK/kd.jsonl" \
	2>"$WORK/kd.err" || fail "monitor --kdamond 0: $(cat "$WORK/kd.err")"
[ "$(kdamond_state 0)" = on ] || fail "monitor --kdamond 0 stopped it"
same_as_before "monitor --kdamond 0"
python3 - "$WORK/kd.jsonl" "$((HOT))" <<'EOF' || fail "monitor --kdamond 0: $(cat "$WORK/kd.jsonl")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["round"] for l in lines] == [1, 2]
# a round of a loaded machine may see no snapshot (data null): the last that saw one
seen = [l for l in lines if l["data"]]
assert seen, lines
top = max(seen[-1]["data"]["regions"], key=lambda r: r["access_rate_bp"])
assert top["start"] <= int(sys.argv[2]) + (8 << 20) and top["end"] > int(sys.argv[2]), top
EOF

# 4. SIGINT: the monitor ends at once, its command ended, the tree as before (kdamond 0
# stopped: the kernel adds no kdamond while one runs)
"$D" stop >/dev/null
before=$(config)
before_run=$(run_state)
"$D" monitor --delay 200ms "${MARGS[@]}" -- sh -c "$(hc_cmd int)" >"$WORK/int" 2>"$WORK/int.err" &
mon=$!
rounds() { local n; n=$(grep -c '^round [0-9]*: ' "$WORK/int" 2>/dev/null) || true; [ "${n:-0}" -ge "$1" ]; }
fair_wait 20000 rounds 2 || fail "no rounds before SIGINT: $(cat "$WORK/int" "$WORK/int.err")"
kill -INT "$mon"
wait "$mon" || fail "monitor exited $? on SIGINT: $(cat "$WORK/int.err")"
! kill -0 "$(cat "$WORK/int.pid")" 2>/dev/null || fail "SIGINT: the command still runs"
same_as_before "SIGINT"

# 5. bad input: exit 2 naming the option, nothing written
: >"$EMU_LOG"
bad() { # EXPECTED-MESSAGE ARGS...
	local msg=$1
	shift
	expect_rc 2 "$D" monitor "$@"
	grep -q -- "$msg" <<<"$ERR" || fail "monitor $*: $ERR"
}
bad "no target" --count 1
bad "\-\-delay 'soon'" --delay soon --pid "$HC_PID"
bad "\-\-delay '0'" --delay 0 --pid "$HC_PID"
bad "\-\-report" --report bogus --pid "$HC_PID"
bad "\-\-count '-1'" --count -1 --pid "$HC_PID"
bad "\-\-kdamond 0: no such kdamond is running" --kdamond 0
bad "\-\-kdamond 7: no such kdamond is running" --kdamond 7
bad "not both" --kdamond 0 --pid "$HC_PID"
! grep -q '^W' "$EMU_LOG" || fail "bad input wrote to DAMON: $(grep '^W' "$EMU_LOG")"
same_as_before "bad input"
echo "ok: monitor's rounds, cleanup, --kdamond, SIGINT and bad input"
