#!/bin/bash
# damonc shell through a real pseudo-terminal (shell-pty.py says what it checks), then the
# same shell reading a pipe: no prompt, the lines run as a batch's do.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
export XDG_STATE_HOME=$SYSROOT/state

python3 "$(dirname "$0")/shell-pty.py" "$D" "$SYSROOT" "$target"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = off ] || fail "the kdamond the shell started still runs"
grep -qx "status --regions " "$XDG_STATE_HOME/damonc/history" || fail "no history file"

# a pipe: no prompt, no line editing; stops at the first failing line with its status
expect_rc 2 "$D" shell <<<$'features --json\nstatus --kdamond 5\nstatus'
grep -q '"format_version"' <<<"$OUT" || fail "shell from a pipe: $OUT"
! grep -q "damonc.*> " <<<"$OUT" || fail "a prompt without a terminal: $OUT"
grep -q "damonc: batch: line 2: status --kdamond 5: exit status 2" <<<"$ERR" ||
	fail "shell from a pipe, failing line: $ERR"
echo "ok: damonc shell on profile $PROFILE"
