#!/bin/bash
# --faults: rules by path/value/count and by rank, re-read on change, broken files fail
# loudly, nothing changes when a write is failed, and the log says which failures were
# injected.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 7.2

echo 'path=kdamonds/nr_kdamonds value=1 errno=ENOMEM times=1' >"$EMU_FAULTS"
emu_expect <<'SCRIPT'
W kdamonds/nr_kdamonds 1 => ENOMEM
R kdamonds/nr_kdamonds = 0|
W kdamonds/nr_kdamonds 2
W kdamonds/nr_kdamonds 1
R kdamonds/nr_kdamonds = 1|
SCRIPT

# a new file restarts the counts: the 2nd write from now fails
printf '# rank\nnth=2 errno=EBUSY\n' >"$EMU_FAULTS"
emu_expect <<'SCRIPT'
W kdamonds/0/contexts/nr_contexts 1
W kdamonds/0/contexts/0/operations paddr => EBUSY
R kdamonds/0/contexts/0/operations = vaddr|
W kdamonds/0/contexts/0/operations paddr
R kdamonds/0/contexts/0/operations = paddr|
SCRIPT

# the k-th write to one file, by glob ('*' crosses '/')
printf 'path=*/state nth=2 errno=EIO\npath=*nr_schemes value=3 errno=E2BIG\n' >"$EMU_FAULTS"
emu_expect <<'SCRIPT'
W kdamonds/0/state bogus => EINVAL
W kdamonds/0/state bogus => EIO
W kdamonds/0/state bogus => EINVAL
W kdamonds/0/contexts/0/schemes/nr_schemes 3 => E2BIG
W kdamonds/0/contexts/0/schemes/nr_schemes "3\n" => E2BIG
W kdamonds/0/contexts/0/schemes/nr_schemes 2
count kdamonds/0/contexts/0/schemes = 2
SCRIPT

# a broken file fails every write with EIO until it is fixed or removed
echo 'errno=' >"$EMU_FAULTS"
emu_expect <<'SCRIPT'
W kdamonds/0/contexts/0/operations vaddr => EIO
R kdamonds/0/contexts/0/operations = paddr|
SCRIPT
grep -q "fault file .*line 1" "$SYSROOT/run/damon-emu.err"
rm "$EMU_FAULTS"
emu_expect <<'SCRIPT'
W kdamonds/0/contexts/0/operations vaddr
SCRIPT

grep -Fx "W kdamonds/nr_kdamonds '1' ENOMEM fault" "$EMU_LOG"
grep -Fx "W kdamonds/0/state 'bogus' EIO fault" "$EMU_LOG"
grep -Fx "W kdamonds/0/state 'bogus' EINVAL" "$EMU_LOG"
echo "ok: fault injection"
