#!/bin/bash
# A file kept open across an nr_* write that removed it answers ENODEV, as kernfs does;
# a new open finds the new file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 6.6
echo 1 >"$ADMIN/kdamonds/nr_kdamonds"
echo 1 >"$ADMIN/kdamonds/0/contexts/nr_contexts"
exec 3>"$ADMIN/kdamonds/0/contexts/0/operations"
echo paddr >&3
grep -qx paddr "$ADMIN/kdamonds/0/contexts/0/operations"
echo 1 >"$ADMIN/kdamonds/0/contexts/nr_contexts"
if out=$( { echo paddr >&3; } 2>&1 ); then
	echo "FAIL: write to a removed file succeeded"
	exit 1
fi
grep -q 'No such device' <<<"$out"
exec 3>&-
grep -qx vaddr "$ADMIN/kdamonds/0/contexts/0/operations"
echo "ok: ENODEV on removed files"
