#!/bin/bash
# --modules: an enabled DAMON_RECLAIM, DAMON_LRU_SORT or DAMON_STAT holds DAMON
# exclusively and `on` fails with EBUSY, after every other check.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 6.12
emu_expect <<SCRIPT
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
W kdamonds/0/contexts/0/operations paddr
mod-write damon_reclaim/parameters/enabled Y
W kdamonds/0/state on => EBUSY
# a failed damon_start() leaves no context: off is EINVAL
W kdamonds/0/state off => EINVAL
# validation comes first
W kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min 2
W kdamonds/0/state on => EINVAL
W kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min 10
mod-write damon_reclaim/parameters/enabled N
mod-write damon_lru_sort/parameters/enabled Y
W kdamonds/0/state on => EBUSY
mod-write damon_lru_sort/parameters/enabled N
W kdamonds/0/state on => ok
SCRIPT
echo "ok: exclusive modules"
