# shellcheck shell=bash
# Shared by the damonc-on-emulator tests: damon-emu helpers (tests/lib/emu.sh) plus checks.
# Set by meson: DAMONC (the damonc binary), DAMON_EMU, HOTCOLD (tests/workloads/hotcold).
# shellcheck source=../lib/emu.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/emu.sh"

# shellcheck disable=SC2034 # used by the tests that source this
D=${DAMONC:?DAMONC is not set}

fail() {
	echo "FAIL: $*" >&2
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

# wait_until SECONDS CMD...: poll CMD every 0.2s until it succeeds; fail on timeout.
wait_until() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 5; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	fail "timed out after ${limit}s waiting for: $*"
}

# anon_huge_kb PID START: AnonHugePages (kB) of the mapping of PID that starts at START.
anon_huge_kb() {
	awk -v start="${2#0x}" '
		/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); cur = (r[1] == start) }
		cur && /^AnonHugePages:/ { print $2; exit }
	' "/proc/$1/smaps"
}

# emu_with_scenario PROFILE [options]: emu_setup with an access scenario file ($SCENARIO)
# that damon-emu re-reads whenever it changes.
emu_with_scenario() {
	local profile=$1
	shift
	SCENARIO=$(mktemp "${TMPDIR:-/tmp}/damonc-scenario.XXXXXX")
	emu_setup "$profile" --scenario "$SCENARIO" "$@"
	trap 'emu_cleanup; rm -f "$SCENARIO"; kill "${HC_PID:-}" 2>/dev/null || true' EXIT
}

# start_hotcold [ARGS...]: run the workload, which writes its access scenario (hot buffer
# accessed at every sample, cold never) to $SCENARIO; sets HC_PID, HOT, COLD.
start_hotcold() {
	local line
	"${HOTCOLD:?HOTCOLD is not set}" --scenario "$SCENARIO" "$@" >"$SYSROOT/hotcold.out" &
	HC_PID=$!
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
