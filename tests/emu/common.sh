# shellcheck shell=bash
# Shared by the damonc-on-emulator tests: damon-emu helpers (tests/lib/emu.sh) plus checks.
# Set by meson: DAMONC (the damonc binary), DAMON_EMU, HOTCOLD (tests/workloads/hotcold).
# shellcheck source=../lib/emu.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/emu.sh"

# shellcheck disable=SC2034 # used by the tests that source this
D=${DAMONC:?DAMONC is not set}
# damon-emu's log names each write's writer: a command's writes are told from the agent's
# (tests/lib/start-writes compares a start's with its dry run's)
export EMU_LOG_PIDS=1

fail() {
	echo "FAIL: $*" >&2
	# what the agent did, if one ran: the first thing to read when a goal is not kept
	if [ -n "${SYSROOT:-}" ] && [ -n "${AGENT_LOG_REL:-}" ] && [ -s "$SYSROOT/$AGENT_LOG_REL" ]; then
		echo "the agent's log:" >&2
		tail -n 40 "$SYSROOT/$AGENT_LOG_REL" | sed 's/^/  /' >&2
	fi
	exit 1
}

# expect_rc WANT CMD...: run CMD, its stdout in $OUT and stderr in $ERR; fail unless it
# exits WANT.
expect_rc() {
	local want=$1 rc=0 errf
	shift
	errf=$(mktemp)
	OUT=$("$@" 2>"$errf") || rc=$?
	ERR=$(cat "$errf")
	rm -f "$errf"
	if [ "$rc" != "$want" ]; then
		echo "stdout: $OUT" >&2
		echo "stderr: $ERR" >&2
		fail "'$*' exited $rc, expected $want"
	fi
}

# wait_until SECONDS CMD...: poll CMD until it succeeds; fail after SECONDS of a fair share
# of the CPUs (fair_wait in tests/lib/emu.sh: longer in wall time on a loaded machine).
wait_until() {
	local limit=$1
	shift
	fair_wait $((limit * 1000)) "$@" && return 0
	fail "timed out after ${limit}s (of a fair share of the CPUs) waiting for: $*"
}

# foreign_kdamond: kdamond 0 stopped, someone else's, with a configuration of its own
# (a paddr context with one pageout scheme): what a damonc command must leave alone.
foreign_kdamond() {
	local a=$ADMIN/kdamonds
	echo 1 >"$a/nr_kdamonds"
	echo 1 >"$a/0/contexts/nr_contexts"
	echo paddr >"$a/0/contexts/0/operations"
	echo 1 >"$a/0/contexts/0/schemes/nr_schemes"
	echo pageout >"$a/0/contexts/0/schemes/0/action"
	echo 4096 >"$a/0/contexts/0/schemes/0/access_pattern/sz/min"
}

# kdamond_state K: kdamonds/K/state (sysfs_read), or "unreadable".
kdamond_state() {
	sysfs_read "$ADMIN/kdamonds/$1/state" 2>/dev/null || echo "unreadable"
}

# anon_huge_kb PID START: AnonHugePages (kB) of the mapping of PID that starts at START.
anon_huge_kb() {
	awk -v start="${2#0x}" '
		/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); cur = (r[1] == start) }
		cur && /^AnonHugePages:/ { print $2; exit }
	' "/proc/$1/smaps"
}

# emu_with_target PROFILE: emu_setup, and a process for schemes to target ($target), both
# gone at exit.
emu_with_target() {
	emu_setup "$1"
	sleep 600 &
	target=$!
	trap 'kill $target 2>/dev/null || true; emu_cleanup' EXIT
}

# emu_with_scenario PROFILE [options]: emu_setup with an access scenario file ($SCENARIO)
# that damon-emu re-reads whenever it changes.
emu_with_scenario() {
	local profile=$1
	shift
	SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-scenario.XXXXXX")
	emu_setup "$profile" --scenario "$SCENARIO" "$@"
	HC_ALL=()
	# every workload started, not only the last: one left running would hold meson's
	# output open and turn a failure into a timeout
	trap 'kill "${HC_ALL[@]}" 2>/dev/null || true; rm -f "$SCENARIO"; emu_cleanup' EXIT
}

# start_hotcold [ARGS...]: run the workload, which writes its access scenario (hot buffer
# accessed at every sample, cold never) to $SCENARIO; sets HC_PID, HOT, COLD.
start_hotcold() {
	local line
	rm -f "$SYSROOT/hotcold.out"	# a second workload must not read the first one's line
	"${HOTCOLD:?HOTCOLD is not set}" --scenario "$SCENARIO" "$@" >"$SYSROOT/hotcold.out" &
	HC_PID=$!
	HC_ALL+=("$HC_PID")
	wait_until 10 test -s "$SYSROOT/hotcold.out"
	line=$(head -n 1 "$SYSROOT/hotcold.out")
	HOT=${line#hot=}
	HOT=${HOT%%-*}
	COLD=${line#*cold=}
	COLD=${COLD%%-*}
}

# json_flatten: the JSON in $OUT as "path value" lines (python's repr of the keys, e.g.
# ['kdamonds'][0]['pid'] 77), for many lookups at the cost of one interpreter start.
json_flatten() {
	python3 -c '
import json, sys
def walk(p, v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(p + "[" + repr(k) + "]", x)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(p + "[" + str(i) + "]", x)
    else:
        print(p, v)
walk("", json.loads(sys.stdin.read()))' <<<"$OUT"
}

# json_get FILTER: evaluate a Python expression on the JSON in $OUT (j is the document).
json_get() {
	python3 -c 'import json, sys; j = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' \
		"$1" <<<"$OUT"
}

# --- the damonc agent ----------------------------------------------------------------------
# AGENT_LOG: its log when `start` runs it in the background.
AGENT_LOG_REL=run/damonc/agent.log

agent_log() { cat "$SYSROOT/$AGENT_LOG_REL" 2>/dev/null || true; }

# agent_pid: the background agent's pid (from its pid file), or nothing.
agent_pid() { cat "$SYSROOT/run/damonc/agent.pid" 2>/dev/null || true; }

# agent_logged REGEX: the agent's log has a line matching REGEX (grep -E).
agent_logged() { agent_log | grep -qE -- "$1"; }

# wait_logged SECONDS REGEX: wait until the agent's log says REGEX.
wait_logged() {
	local limit=$1 re=$2
	fair_wait $((limit * 1000)) agent_logged "$re" && return 0
	agent_log >&2
	fail "timed out after ${limit}s (of a fair share of the CPUs) waiting for the agent to log: $re"
}

# proc_bp PID: (AnonHugePages + ShmemPmdMapped + FilePmdMapped) / Rss of PID in basis points,
# as the agent measures a per-process hugepage_mem_bp.
proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' \
		"/proc/$1/smaps_rollup"
}

# proc_huge_kb PID: AnonHugePages of PID in kB.
proc_huge_kb() { awk '/^AnonHugePages:/ { print $2 }' "/proc/$1/smaps_rollup"; }

# agent_cpu_ms PID: user + system CPU time of PID so far, in ms (from /proc/PID/stat).
agent_cpu_ms() {
	local hz stat
	hz=$(getconf CLK_TCK)
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	stat=${stat##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $stat
	echo $(((${12} + ${13}) * 1000 / hz))
}

# assert_nothing_left [KDAMOND_STATE]: no agent process, pid or stats file; the kdamond in
# that state (default off).
assert_nothing_left() {
	local want=${1:-off} f
	for f in "$SYSROOT"/run/damonc/agent.pid "$SYSROOT"/run/damonc/agent-*.json; do
		[ ! -e "$f" ] || fail "left behind: $f ($(cat "$f"))"
	done
	if pgrep -f -- "--sysroot $SYSROOT agent" >/dev/null; then
		pgrep -af -- "--sysroot $SYSROOT agent" >&2
		fail "a damonc agent still runs"
	fi
	[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = "$want" ] ||
		fail "kdamond 0 is $(sysfs_read "$ADMIN/kdamonds/0/state"), expected $want"
	# under ASan/UBSan the agent's reports (leaks at its exit too) land in its log
	if agent_logged "Sanitizer|runtime error"; then
		agent_log >&2
		fail "the agent's log has a sanitizer report"
	fi
}

# wait_agent_gone SECONDS: wait until no agent serves this sysroot.
no_agent() { ! pgrep -f -- "--sysroot $SYSROOT agent" >/dev/null; }
wait_agent_gone() { wait_until "$1" no_agent; }
