#!/bin/bash
# Concurrent readers and writers (nr_* rewrites removing the files others read, state
# commands, reads of every file) for a few seconds: no deadlock, no crash, the daemon still
# answers and unmounts. Meant for the ASan/UBSan and valgrind runs as much as for gcc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 7.2
k=$ADMIN/kdamonds/0
echo 1 >"$ADMIN/kdamonds/nr_kdamonds"
echo 1 >"$k/contexts/nr_contexts"

end=$((SECONDS + 4))
rewriter() {
	while [ $SECONDS -lt $end ]; do
		echo 3 >"$k/contexts/0/schemes/nr_schemes" 2>/dev/null || true
		echo 2 >"$k/contexts/0/schemes/0/filters/nr_filters" 2>/dev/null || true
		echo 1 >"$k/contexts/nr_contexts" 2>/dev/null || true
	done
}
reader() {
	while [ $SECONDS -lt $end ]; do
		find "$ADMIN" -type f -exec cat {} + >/dev/null 2>&1 || true
	done
}
writer() {
	while [ $SECONDS -lt $end ]; do
		echo paddr >"$k/contexts/0/operations" 2>/dev/null || true
		echo update_schemes_stats >"$k/state" 2>/dev/null || true
		echo "/x" >"$k/contexts/0/schemes/1/filters/0/memcg_path" 2>/dev/null || true
		cat "$k/state" "$k/pid" >/dev/null 2>&1 || true
	done
}
pids=()
rewriter & pids+=($!)
rewriter & pids+=($!)
reader & pids+=($!)
reader & pids+=($!)
writer & pids+=($!)
for p in "${pids[@]}"; do
	wait "$p"
done
kill -0 "$EMU_PID"
emu_expect <<'SCRIPT'
R kdamonds/nr_kdamonds = 1|
R kdamonds/0/state = off|
W kdamonds/nr_kdamonds 0
SCRIPT
echo "ok: concurrent access"
