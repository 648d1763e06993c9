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
sleep 0.5
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
