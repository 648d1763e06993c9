#!/bin/bash
# damon_sysfs_lock: while update_schemes_tried_regions waits for an apply interval, the
# files that take the lock (state, pid, memcg_path, nr_*) answer EBUSY and the others still
# read and write; the walk then completes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 7.2
k=$ADMIN/kdamonds/0
c=$k/contexts/0
echo 1 >"$ADMIN/kdamonds/nr_kdamonds"
echo 1 >"$k/contexts/nr_contexts"
echo paddr >"$c/operations"
echo 1 >"$c/schemes/nr_schemes"
echo 1 >"$c/schemes/0/filters/nr_filters"
echo 3000000 >"$c/schemes/0/apply_interval_us"
echo on >"$k/state"

start=$(date +%s%N)
echo update_schemes_tried_regions >"$k/state" &
walker=$!
# Wait until the walker is inside its write(2) (syscall 1) rather than a fixed time from
# the fork, which a loaded machine can exceed (the checks below would then find the lock
# free). Not by polling a file that takes the lock: that could refuse the walker's write.
# The daemon takes the lock as soon as it reads the request; a walk then lasts up to one
# apply interval (3 s), plenty for the checks.
for _ in $(seq 1 200); do
	read -r nr _ <"/proc/$walker/syscall" 2>/dev/null && [ "$nr" = 1 ] && break
	sleep 0.05
done
sleep 0.2
emu_expect <<'SCRIPT'
R kdamonds/0/state => EBUSY
R kdamonds/0/pid => EBUSY
R kdamonds/0/contexts/0/schemes/0/filters/0/memcg_path => EBUSY
W kdamonds/0/contexts/0/schemes/0/filters/0/memcg_path /x => EBUSY
W kdamonds/nr_kdamonds 0 => EBUSY
W kdamonds/0/contexts/0/schemes/nr_schemes 1 => EBUSY
W kdamonds/0/state update_schemes_stats => EBUSY
R kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us = 5000|
W kdamonds/0/contexts/0/schemes/0/action pageout
R kdamonds/0/contexts/0/schemes/0/action = pageout|
SCRIPT
wait "$walker"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
echo "walk took ${elapsed_ms}ms"
emu_expect <<'SCRIPT'
R kdamonds/0/state = on|
W kdamonds/0/state off
SCRIPT
echo "ok: damon_sysfs_lock"
