#!/bin/bash
# The fleet route end to end, with the real components on 127.0.0.1: the damonc agent keeps
# a textfile fresh (--metrics-textfile) while it serves a collapse scheme with a huge-page
# goal; prometheus-node-exporter's textfile collector exposes it; its /metrics holds damonc's
# series with the values `damonc status --json` gives; a prometheus server scraping it every
# second answers queries for the huge-page ratio and the goal, and sees the goal met. When
# the agent stops (SIGTERM), its last textfile says so.
# Everything waits by progress, bounded. Skipped without prometheus-node-exporter or
# prometheus (scripts/install-deps check installs them).
#   metrics-prometheus.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
COMPARE=$(dirname "$0")/../lib/metrics-compare.py
GOAL=3000
for b in prometheus-node-exporter prometheus; do
	command -v "$b" >/dev/null ||
		emu_skip "$b is not installed (Debian package $b; scripts/install-deps check)"
done

EXPORTER_PID='' PROMETHEUS_PID='' AGENT_PID=''
cleanup() {
	local p
	for p in "$PROMETHEUS_PID" "$EXPORTER_PID" "$AGENT_PID" "${HC_PID:-}"; do
		[ -z "$p" ] || kill "$p" 2>/dev/null || true
	done
	for p in "$PROMETHEUS_PID" "$EXPORTER_PID" "$AGENT_PID"; do
		[ -z "$p" ] || wait "$p" 2>/dev/null || true
	done
	rm -f "${SCENARIO:-}"
	emu_cleanup
}
emu_with_scenario "$PROFILE"
trap cleanup EXIT
W=$SYSROOT/work
TEXTDIR=$W/textfile
mkdir -p "$TEXTDIR" "$W/tsdb"

# A port of 127.0.0.1 nobody listens on now (a server that loses a race for it is started
# again on another).
free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

http_get() { # URL: the body, or nothing when it does not answer
	curl -sf --max-time 5 "$1" 2>/dev/null || true
}

# start_server NAME LOG CMD...: run CMD (with @PORT@ replaced by a free port) until it
# answers on /metrics; sets PORT and SERVER_PID.
start_server() {
	local name=$1 log=$2 i
	shift 2
	for _ in 1 2 3; do
		PORT=$(free_port)
		"${@//@PORT@/$PORT}" >>"$log" 2>&1 &
		SERVER_PID=$!
		for ((i = 0; i < 150; i++)); do
			if ! kill -0 "$SERVER_PID" 2>/dev/null; then
				break	# e.g. the port was taken meanwhile: another one
			fi
			[ -z "$(http_get "http://127.0.0.1:$PORT/metrics")" ] || return 0
			sleep 0.2
		done
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	done
	cat "$log" >&2
	fail "$name did not answer on 127.0.0.1 within 30 s, 3 times"
}

# The agent as a service would run it, writing the textfile (every second here, not every
# 15 s, so that node_exporter shows the rounds soon).
"$D" agent --persist --metrics-textfile "$TEXTDIR/damonc.prom" --metrics-interval 1s \
	2>>"$W/agent.log" &
AGENT_PID=$!
agent_up() { [ "$(agent_pid)" = "$AGENT_PID" ] && [ -s "$TEXTDIR/damonc.prom" ]; }
wait_until 20 agent_up
grep -qx 'damonc_agent_running 1' "$TEXTDIR/damonc.prom" ||
	fail "the agent's textfile: $(cat "$TEXTDIR/damonc.prom")"

start_hotcold --hot 32M --cold 32M
expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp $GOAL --goal-scope pid
grep -q "served in user space by the damonc agent" <<<"$OUT" ||
	fail "start does not say the agent serves part of it: $OUT"
[ "$(agent_pid)" = "$AGENT_PID" ] || fail "another agent serves it: $(agent_pid)"

start_server prometheus-node-exporter "$W/node-exporter.log" \
	prometheus-node-exporter --web.listen-address=127.0.0.1:@PORT@ \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TEXTDIR"
EXPORTER_PID=$SERVER_PID EXPORTER_PORT=$PORT

# node_exporter's /metrics: damonc's series once the agent has served a few rounds, with
# the values of status --json (read before and after it, for the counters).
scraped_rounds() {
	http_get "http://127.0.0.1:$EXPORTER_PORT/metrics" |
		awk '$1 == "damonc_agent_rounds_total{kdamond=\"0\"}" { print $2 }'
}
rounds_seen() { [ "$(scraped_rounds)" -ge 3 ] 2>/dev/null; }
for ((i = 0; i < 300; i++)); do
	rounds_seen && break
	sleep 0.2
done
rounds_seen || { cat "$W/agent.log" >&2; fail "node_exporter showed no 3 rounds of the agent within 60 s"; }
# status before, then a textfile written after it (each write is a new file, renamed into
# place), scraped, then status again: counters lie between the two
inode=$(stat -c %i "$TEXTDIR/damonc.prom")
"$D" --json status >"$W/before.json"
rewritten() { [ "$(stat -c %i "$TEXTDIR/damonc.prom")" != "$inode" ]; }
wait_until 10 rewritten
http_get "http://127.0.0.1:$EXPORTER_PORT/metrics" >"$W/exporter.prom"
"$D" --json status >"$W/after.json"
grep -qE '^node_textfile_scrape_error 0$' "$W/exporter.prom" ||
	fail "node_exporter could not read the textfile: $(grep textfile "$W/exporter.prom")"
/usr/bin/python3 "$COMPARE" "$W/before.json" "$W/exporter.prom" "$W/after.json"

# Prometheus scraping node_exporter every second.
cat >"$W/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$EXPORTER_PORT']
EOF
start_server prometheus "$W/prometheus.log" \
	prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
	--web.listen-address=127.0.0.1:@PORT@ --log.level=warn
PROMETHEUS_PID=$SERVER_PID PROMETHEUS_PORT=$PORT

# query PROMQL: the value of the first series of an instant query, or nothing
query() {
	curl -sf --max-time 5 "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query" \
		--data-urlencode "query=$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
if r:
    print(r[0]["value"][1])' 2>/dev/null || true
}
goal_q='damonc_goal_target_value{kdamond="0",metric="hugepage_mem_bp"}'
ratio_q="damonc_target_hugepage_ratio{kdamond=\"0\",pid=\"$HC_PID\"}"
answered() { [ -n "$(query "$goal_q")" ] && [ -n "$(query "$ratio_q")" ]; }
t0=$(date +%s%N)
wait_until 60 answered
t_answer=$((($(date +%s%N) - t0) / 1000000))
[ "$(query "$goal_q")" = $GOAL ] || fail "Prometheus has the goal at $(query "$goal_q"), not $GOAL"
ratio=$(query "$ratio_q")
/usr/bin/python3 -c 'import sys; r = float(sys.argv[1]); sys.exit(not 0 <= r <= 1)' "$ratio" ||
	fail "huge-page ratio $ratio is no ratio"
# the agent (6.12) or the kernel fed by it (7.2) reaches the goal: Prometheus sees it met
met_q='damonc_goal_met{kdamond="0",metric="hugepage_mem_bp"}'
met() { [ "$(query "$met_q")" = 1 ]; }
wait_until 90 met
ratio=$(query "$ratio_q")
/usr/bin/python3 -c 'import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]) / 10000)' \
	"$ratio" $GOAL || fail "goal met at a ratio of $ratio, below $GOAL bp"
t_met=$((($(date +%s%N) - t0) / 1000000))

# Every query of contrib's Grafana dashboard runs on this Prometheus; those about what runs
# here have data.
/usr/bin/python3 - "$(dirname "$0")/../../contrib/grafana/damonc-dashboard.json" \
	"$PROMETHEUS_PORT" <<'PY' || fail "the dashboard's queries"
import json, sys, time, urllib.parse, urllib.request
dash = json.load(open(sys.argv[1]))
url = "http://127.0.0.1:%s/api/v1/query?query=" % sys.argv[2]
# the panels' series that must show something for a collapse scheme with a huge-page goal
want = {("Huge-page ratio vs goal", r) for r in "ABC"} | {
    ("Goals met", "A"), ("Bytes collapsed", "A"), ("Huge page memory", "A"),
    ("kdamond CPU", "A"), ("Running", "A"), ("Running", "B"),
    ("Agent rounds and goal values fed", "A")}


def check(last):
    """Every panel's queries: True when each wanted one has series. A rate() needs two
    samples in its window, which a loaded machine's scrapes may not have given yet: the
    window is 30 s (Grafana's $__rate_interval is at least four scrape intervals), and a
    miss is asked again at the next scrapes, saying what failed only the last time."""
    ok = True
    for p in dash["panels"]:
        for t in p.get("targets", []):
            expr = t["expr"].replace("$instance", ".*").replace("$__rate_interval", "30s")
            r = json.load(urllib.request.urlopen(url + urllib.parse.quote(expr), timeout=5))
            n = len(r["data"]["result"]) if r["status"] == "success" else -1
            if n < 0 or (n == 0 and (p["title"], t["refId"]) in want):
                ok = False
                if last:
                    print("FAIL: panel %r query %s: %s" % (p["title"], t["refId"], r),
                          file=sys.stderr)
            if last:
                print("panel %r %s: %d series" % (p["title"], t["refId"], n))
    return ok


for attempt in range(10):
    if check(False):
        break
    time.sleep(2)
sys.exit(not check(True))
PY

# The agent stopped: it stops what it serves and says so in its last textfile.
kill "$AGENT_PID"
wait "$AGENT_PID" || true
AGENT_PID=
grep -qx 'damonc_agent_running 0' "$TEXTDIR/damonc.prom" ||
	fail "the last textfile: $(grep agent_running "$TEXTDIR/damonc.prom")"
grep -qx 'damonc_kdamond_running{kdamond="0"} 0' "$TEXTDIR/damonc.prom" ||
	fail "the last textfile: $(grep kdamond_running "$TEXTDIR/damonc.prom")"
echo "figures ($PROFILE): Prometheus answered $t_answer ms after it started, saw the goal" \
	"met after $t_met ms (ratio $ratio)"
echo "ok: $PROFILE"
