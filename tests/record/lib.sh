#!/bin/bash
# Helpers of the record tests against damon-emu. Source after tests/lib/emu.sh.
#   rec_setup PROFILE [damon-emu options]
#                  emu_setup, and an EXIT trap that also ends the workload and removes WORK
#   rec_workload   start hotcold (HOT_SIZE, COLD_SIZE) with an emulator scenario; sets HC_PID,
#                  HOT_START, HOT_END, COLD_START, COLD_END (decimal)
#   rec_start ARGS damonc start ARGS, again (at most 3 times) when it exits 4 (DAMON busy: the
#                  emulator's sysfs lock is a trylock, and a loaded machine makes it contend)
#   py EXPR        evaluate a python expression on the JSON document read from stdin (as "d")
# Needs DAMONC, HOTCOLD, EMU_SH from meson; WORK is a scratch directory removed at exit.

WORK=$(mktemp -d "${TMPDIR:-/tmp}/damonc-rec.XXXXXX")
HC_PID=

rec_cleanup() {
	if [ -n "$HC_PID" ]; then
		kill "$HC_PID" 2>/dev/null || true
		wait "$HC_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
	emu_cleanup	# last: it exits 1 if the emulator reported errors
}
trap 'rm -rf "$WORK"' EXIT

rec_setup() {
	emu_setup "$@"
	# emu_setup sets its own EXIT trap: ours must come after it
	trap rec_cleanup EXIT
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

rec_workload() {
	local line _
	"$HOTCOLD" --hot "${HOT_SIZE:-32M}" --cold "${COLD_SIZE:-32M}" \
		--scenario "$WORK/scenario" >"$WORK/hotcold.out" 2>"$WORK/hotcold.err" &
	HC_PID=$!
	# the shell may not have created the file yet: not an error under set -e
	fair_wait 10000 test -s "$WORK/hotcold.out" || true
	line=$(head -n1 "$WORK/hotcold.out" 2>/dev/null || true)
	[ -n "$line" ] || fail "hotcold did not report its buffers"
	[[ $line =~ hot=0x([0-9a-f]+)-0x([0-9a-f]+)\ cold=0x([0-9a-f]+)-0x([0-9a-f]+) ]] ||
		fail "unexpected hotcold output: $line"
	# shellcheck disable=SC2034 # for the tests that source this file
	HOT_START=$((16#${BASH_REMATCH[1]}))
	# shellcheck disable=SC2034
	HOT_END=$((16#${BASH_REMATCH[2]}))
	# shellcheck disable=SC2034
	COLD_START=$((16#${BASH_REMATCH[3]}))
	# shellcheck disable=SC2034
	COLD_END=$((16#${BASH_REMATCH[4]}))
}

rec_start() {
	local try rc
	for try in 1 2 3; do
		rc=0
		"$DAMONC" start "$@" >/dev/null || rc=$?
		[ "$rc" = 4 ] || break
		echo "note: damonc start: DAMON busy (try $try)" >&2
		sleep 0.5
	done
	[ "$rc" = 0 ] || fail "damonc start $* exited $rc"
}

# python3 reads the document; the expression sees it as d and prints its value.
py() {
	python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}
