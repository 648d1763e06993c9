#!/bin/bash
# --avail-ops: what avail_operations shows; other ops sets fail at `on` with EINVAL.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 6.18 --avail-ops paddr
emu_expect <<'SCRIPT'
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
R kdamonds/0/contexts/0/avail_operations = paddr|
# the name tables still know every set: the write is fine, `on` is not
W kdamonds/0/contexts/0/operations fvaddr
R kdamonds/0/contexts/0/operations = fvaddr|
spawn t sleep
W kdamonds/0/contexts/0/targets/nr_targets 1
W kdamonds/0/contexts/0/targets/0/pid_target $t
W kdamonds/0/state on => EINVAL
# the ops check comes first: a broken scheme (ENOMEM) is not reached
W kdamonds/0/contexts/0/schemes/nr_schemes 1
W kdamonds/0/contexts/0/schemes/0/ops_filters/nr_filters 1
W kdamonds/0/contexts/0/schemes/0/ops_filters/0/type memcg
W kdamonds/0/state on => EINVAL
W kdamonds/0/contexts/0/operations paddr
W kdamonds/0/contexts/0/targets/nr_targets 0
W kdamonds/0/state on => ENOMEM
R kdamonds/0/state = off|
SCRIPT
emu_cleanup
emu_setup 6.18 --avail-ops fvaddr,vaddr
emu_expect <<'SCRIPT'
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
R kdamonds/0/contexts/0/avail_operations = vaddr|fvaddr|
SCRIPT
echo "ok: --avail-ops"
