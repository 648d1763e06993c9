#!/bin/bash
# The mount's own life: emu_reset gives a fresh tree; SIGTERM and SIGINT unmount cleanly
# and stop the kdamonds; fusermount3 -u ends the daemon; an unmount while readers open and
# close files loses nothing (the kernel may drop RELEASEs still queued: the daemon frees
# what stays open; the ASan build reports any leak through emu_cleanup).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 7.2

echo 2 >"$ADMIN/kdamonds/nr_kdamonds"
emu_reset
grep -qx 0 "$ADMIN/kdamonds/nr_kdamonds"

for sig in TERM INT; do
	echo 1 >"$ADMIN/kdamonds/nr_kdamonds"
	echo 1 >"$ADMIN/kdamonds/0/contexts/nr_contexts"
	echo paddr >"$ADMIN/kdamonds/0/contexts/0/operations"
	echo on >"$ADMIN/kdamonds/0/state"
	kdpid=$(cat "$ADMIN/kdamonds/0/pid")
	grep -qx kdamond.0 "/proc/$kdpid/comm"

	pid=$EMU_PID
	kill -s "$sig" "$pid"
	if ! fair_wait 5000 emu_gone; then
		echo "FAIL: damon-emu still runs 5s (of a fair share of the CPUs) after SIG$sig"
		exit 1
	fi
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { echo "FAIL: damon-emu exited $rc on SIG$sig"; exit 1; }
	if emu_mounted; then
		echo "FAIL: still mounted after SIG$sig"
		exit 1
	fi
	if grep -qx kdamond.0 "/proc/$kdpid/comm" 2>/dev/null; then
		echo "FAIL: kdamond $kdpid survived the unmount"
		exit 1
	fi
	EMU_PID=
	emu_start
done

for _ in $(seq 1 15); do
	readers=()
	for _ in 1 2; do
		( while cat "$ADMIN/kdamonds/nr_kdamonds" >/dev/null 2>&1; do :; done ) &
		readers+=($!)
	done
	sleep 0.2
	emu_reset
	kill "${readers[@]}" 2>/dev/null || true
	wait "${readers[@]}" 2>/dev/null || true
done

fusermount3 -u "$ADMIN"
fair_wait 5000 emu_gone || { echo "FAIL: damon-emu survived fusermount3 -u"; exit 1; }
echo "ok: reset, signals, unmount"
