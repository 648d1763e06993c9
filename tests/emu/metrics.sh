#!/bin/bash
# damonc metrics on a profile of the emulator, with what that kernel can run (a collapse
# scheme with a huge-page goal from 6.2 on, the agent doing what the kernel lacks; a pageout
# scheme on 6.1):
# - `promtool check metrics` passes on the Prometheus text output (before anything runs,
#   and while it runs), the strict OpenMetrics parser of python3-prometheus-client on
#   --format openmetrics;
# - the values agree with `damonc status --json` (tests/lib/metrics-compare.py);
# - it only reads, and --refresh asks damonc's own kdamond for stats only where the kernel
#   does not refresh them itself (6.1: no refresh_ms);
# - -o writes atomically (a reader never sees half a file), readable by node_exporter's user;
# - bad input says what is wrong and exits 2.
# Skipped without promtool (Debian: prometheus) or python3-prometheus-client.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
COMPARE=$(dirname "$0")/../lib/metrics-compare.py
command -v promtool >/dev/null ||
	emu_skip "promtool is not installed (Debian package prometheus; scripts/install-deps check)"
/usr/bin/python3 -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	emu_skip "no OpenMetrics parser (Debian package python3-prometheus-client)"

emu_with_scenario "$PROFILE"
W=$SYSROOT/work
mkdir -p "$W"

promtool_ok() { # FILE
	local out
	out=$(promtool check metrics <"$1" 2>&1) || fail "promtool check metrics: $out"
	[ -z "$out" ] || fail "promtool check metrics has remarks: $out"
}

openmetrics_ok() { # FILE
	/usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
print(len(families), "families,", sum(len(f.samples) for f in families), "samples")' "$1" ||
		fail "the OpenMetrics output does not parse: $(tail -n 5 "$1")"
}

# Nothing running yet: valid, and says so.
expect_rc 0 "$D" metrics
printf '%s\n' "$OUT" >"$W/idle.prom"
promtool_ok "$W/idle.prom"
grep -qx 'damonc_damon_available 1' "$W/idle.prom" || fail "DAMON not seen: $OUT"
grep -qx 'damonc_kdamonds 0' "$W/idle.prom" || fail "kdamonds: $OUT"
grep -qx 'damonc_agent_running 0' "$W/idle.prom" || fail "agent: $OUT"
! grep -q '^damonc_kdamond_' "$W/idle.prom" || fail "series of a kdamond that is not there"

start_hotcold --hot 16M --cold 16M
if emu_profile_since "$PROFILE" 6.2; then
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 3000 --goal-scope pid
else
	expect_rc 0 "$D" start --action pageout --pid "$HC_PID" --quota-size 4MiB --min-age 1s
fi
# the agent's rounds, or nothing when no agent has a part in the kdamond
status_rounds() {
	"$D" --json status | /usr/bin/python3 -c '
import json, sys
a = json.load(sys.stdin)["kdamonds"][0].get("agent")
print(a["rounds"] if a else "")'
}
agent=$(status_rounds)
if [ -n "$agent" ]; then
	served() { [ "$(status_rounds)" -ge 2 ]; }
	for ((i = 0; i < 300; i++)); do
		served && break
		sleep 0.2
	done
	served || { agent_log >&2; fail "the agent did not serve 2 rounds within 60 s"; }
fi

# While it runs: every format, and the values of status --json.
"$D" --json status >"$W/before.json"
expect_rc 0 "$D" metrics
printf '%s\n' "$OUT" >"$W/run.prom"
"$D" --json status >"$W/after.json"
promtool_ok "$W/run.prom"
/usr/bin/python3 "$COMPARE" "$W/before.json" "$W/run.prom" "$W/after.json"
grep -q '^damonc_kdamond_cpu_seconds_total{kdamond="0"} ' "$W/run.prom" ||
	fail "no CPU time of the kdamond: $(grep kdamond "$W/run.prom")"
grep -q "^damonc_target_hugepage_ratio{kdamond=\"0\",context=\"0\",target=\"0\",pid=\"$HC_PID\"} " \
	"$W/run.prom" || fail "no huge-page ratio of the target: $(grep target "$W/run.prom")"
if [ -n "$agent" ]; then
	grep -q '^damonc_goal_current_value{.*metric="hugepage_mem_bp"} ' "$W/run.prom" ||
		fail "the goal's current value is missing: $(grep goal "$W/run.prom")"
	grep -qx 'damonc_agent_running 1' "$W/run.prom" || fail "the agent is not seen running"
fi
expect_rc 0 "$D" metrics --format openmetrics
printf '%s\n' "$OUT" >"$W/run.om"
[ "$(tail -n 1 "$W/run.om")" = "# EOF" ] || fail "OpenMetrics output without # EOF"
openmetrics_ok "$W/run.om"
expect_rc 0 "$D" --json metrics
/usr/bin/python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
assert j["format_version"] == 1, "no format_version"
pid = [f for f in j["metrics"] if f["name"] == "damonc_kdamond_pid"][0]
assert pid["type"] == "gauge" and len(pid["samples"]) == 1, pid
assert pid["samples"][0]["labels"] == {"kdamond": "0"}, pid' <<<"$OUT" || fail "metrics --json: $OUT"

# Reads only; --refresh writes update commands to damonc's own kdamond where the kernel
# does not refresh its stats by itself (without an agent writing too, that can be told).
if [ -z "$agent" ]; then
	n=$(wc -l <"$EMU_LOG")
	expect_rc 0 "$D" metrics
	[ "$(wc -l <"$EMU_LOG")" = "$n" ] || fail "metrics wrote: $(tail -n +"$((n + 1))" "$EMU_LOG")"
	expect_rc 0 "$D" metrics --refresh
	if [ -e "$ADMIN/kdamonds/0/refresh_ms" ]; then
		[ "$(wc -l <"$EMU_LOG")" = "$n" ] ||
			fail "--refresh wrote to a kdamond the kernel refreshes: $(tail -n +"$((n + 1))" "$EMU_LOG")"
	else
		tail -n +"$((n + 1))" "$EMU_LOG" | grep -q update_schemes_stats ||
			fail "--refresh did not ask for stats: $(tail -n +"$((n + 1))" "$EMU_LOG")"
	fi
fi

# -o: atomic (a reader running meanwhile sees only whole files), world-readable, no
# temporary file left.
F=$W/textfile/damonc.prom
mkdir -p "$W/textfile"
umask 077
expect_rc 0 "$D" metrics -o "$F"
umask 022
[ "$(stat -c %a "$F")" = 644 ] || fail "mode $(stat -c %a "$F"): node_exporter's user cannot read it"
promtool_ok "$F"
for _ in $(seq 1 5); do "$D" metrics -o "$F"; done &
writer=$!
reads=0
while kill -0 "$writer" 2>/dev/null; do
	content=$(cat "$F")
	[ "${content%%$'\n'*}" = "# HELP damonc_damon_available 1 when the kernel has the DAMON sysfs interface, else 0" ] ||
		fail "a reader saw a partial file (start): ${content:0:200}"
	grep -q '^damonc_vmstat_thp_swpout_fallback_total ' <<<"$content" ||
		fail "a reader saw a partial file (end): ${content: -200}"
	reads=$((reads + 1))
done
wait "$writer" || fail "a metrics -o failed"
[ "$(find "$W/textfile" -type f | wc -l)" = 1 ] || fail "left behind: $(ls -a "$W/textfile")"
echo "$reads whole reads while it was rewritten 5 times"

# Bad input: exit 2, saying what.
expect_rc 2 "$D" metrics --format xml
grep -q -- "--format 'xml'" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" metrics -o "$W/missing/damonc.prom"
grep -q "does not exist" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" metrics extra
expect_rc 2 "$D" agent --metrics-textfile "$W/textfile/damonc.txt"
grep -q "must end in .prom" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" agent --metrics-textfile "$W/missing/damonc.prom"
expect_rc 2 "$D" agent --metrics-textfile "$W/damonc.prom" --metrics-interval 500ms
grep -q -- "--metrics-interval: at least 1s" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" agent --metrics-textfile "$W/damonc.prom" --metrics-interval 0
grep -q -- "--metrics-interval '0': must be above 0" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" agent --metrics-interval 5s
grep -q -- "--metrics-interval: only with --metrics-textfile" <<<"$ERR" || fail "$ERR"

expect_rc 0 "$D" stop
"$D" metrics >"$W/stopped.prom"
promtool_ok "$W/stopped.prom"
grep -qx 'damonc_kdamond_running{kdamond="0"} 0' "$W/stopped.prom" ||
	fail "stopped kdamond: $(grep kdamond_running "$W/stopped.prom")"
echo "ok: $PROFILE"
