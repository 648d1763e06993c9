#!/bin/bash
# --log: one line per write (state commands included, reads not), in order, with the
# value C-escaped and the result.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
emu_setup 6.12

echo 1 >"$ADMIN/kdamonds/nr_kdamonds"
echo -1 >"$ADMIN/kdamonds/nr_kdamonds" 2>/dev/null && exit 1
cat "$ADMIN/kdamonds/0/state" >/dev/null
printf "it's\ta\x01" >"$ADMIN/kdamonds/0/state" 2>/dev/null && exit 1
echo off >"$ADMIN/kdamonds/0/state" 2>/dev/null && exit 1
cat >"$SYSROOT/run/want" <<'WANT'
W kdamonds/nr_kdamonds '1\n' ok
W kdamonds/nr_kdamonds '-1\n' EINVAL
W kdamonds/0/state 'it\'s\ta\x01' EINVAL
W kdamonds/0/state 'off\n' EINVAL
WANT
diff -u "$SYSROOT/run/want" "$EMU_LOG"

# --log-pids: each line ends with its writer's pid (a subshell's, to tell it from ours)
emu_cleanup
EMU_LOG_PIDS=1 emu_setup 6.12
(echo 1 >"$ADMIN/kdamonds/nr_kdamonds"; echo "$BASHPID" >"$SYSROOT/run/writer")
grep -qxF "W kdamonds/nr_kdamonds '1\\n' ok pid=$(cat "$SYSROOT/run/writer")" "$EMU_LOG" ||
	{ echo "FAIL: --log-pids: $(cat "$EMU_LOG")"; exit 1; }
echo "ok: --log lines"
