#!/bin/bash
# An nr_* write of a count the kernel cannot allocate fails at once with ENOMEM, as the
# kernel's kmalloc_array() of the children's pointers does beyond KMALLOC_MAX_SIZE (a write
# of 10^7 used to make the emulator build ten million directories, until the OOM killer
# came); the old children are gone first, as in the kernel. Counts within it still work.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 7.2

c=kdamonds/0/contexts/0
emu_expect <<SCRIPT
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
W $c/targets/nr_targets 3
count $c/targets = 3
W $c/targets/nr_targets 10000000 => ENOMEM
count $c/targets = 0
R $c/targets/nr_targets = 0|
W $c/targets/nr_targets 524289 => ENOMEM
W $c/schemes/nr_schemes 10000000 => ENOMEM
W kdamonds/nr_kdamonds 2000000000 => ENOMEM
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
W $c/targets/nr_targets 1
W $c/targets/0/regions/nr_regions 10000000 => ENOMEM
W $c/targets/0/regions/nr_regions 2
count $c/targets/0/regions = 2
SCRIPT
# alive, and small: no millions of nodes were made
kill -0 "$EMU_PID"
rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$EMU_PID/status")
[ "$rss" -lt 200000 ] || { echo "FAIL: damon-emu holds $rss kB"; exit 1; }
echo "ok: nr_* writes beyond the kernel's allocation limit fail with ENOMEM (RSS $rss kB)"
