#!/bin/bash
# libdamonctl's journal through its public header alone (journal-lib.c) on damon-emu: a
# commit killed at its first sysfs write leaves one journal in the state directory, which
# damonctl_leftovers_read() finds with its command, kind, kdamond and kept value, and
# damonctl_leftover_undo() carries out: the kdamond's configuration is as before the commit,
# and no journal is left. A commit that ends leaves none. damonctl_journal_keep() refuses
# the journal's own keys and what is not JSON.
set -euo pipefail
# shellcheck source=tests/lib/emu.sh
. "$EMU_SH"
# shellcheck source=tests/record/lib.sh
. "$(dirname "$0")/lib.sh"
JOURNAL_LIB=${JOURNAL_LIB:?JOURNAL_LIB is not set}

rec_setup "${EMU_PROFILE_UNDER_TEST:-7.2}" --scenario "$WORK/scenario" --no-real-actions
HOT_SIZE=8M COLD_SIZE=8M rec_workload
rec_start --pid "$HC_PID" --action pageout --access-rate 0%,0% --min-age 1s
config() { emu_dump | grep -v -e '/tried_regions/' -e '/stats/' -e effective; }
before=$(config)
state=$WORK/state
quota=$SYSROOT/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/quotas/bytes

# 1. killed at its first write: the kernel's tree may be half written, the journal says how
"$JOURNAL_LIB" "$SYSROOT" "$state" kill >"$WORK/kill" 2>&1 && fail "the commit was not killed"
[ ! -s "$WORK/kill" ] || fail "the killed commit printed: $(cat "$WORK/kill")"
n=$(find "$state" -name 'journal-*.json' | wc -l)
[ "$n" = 1 ] || fail "$n journals after the kill, expected 1: $(ls -la "$state")"

# 2. found and carried out
"$JOURNAL_LIB" "$SYSROOT" "$state" recover >"$WORK/recover"
want='leftover 0 journal-lib commit 0 kept={"why":"a test"}
undo 0
removed 0'
[ "$(cat "$WORK/recover")" = "$want" ] ||
	fail "recover: $(cat "$WORK/recover"), expected $want"
[ "$(config)" = "$before" ] || fail "the configuration after the undo: $(diff <(echo "$before") <(config))"
[ -z "$(find "$state" -name 'journal-*.json')" ] || fail "a journal is left: $(ls "$state")"
"$JOURNAL_LIB" "$SYSROOT" "$state" recover >"$WORK/again"
[ ! -s "$WORK/again" ] || fail "a second recovery found: $(cat "$WORK/again")"

# 3. a commit that ends: done, and nothing left
"$JOURNAL_LIB" "$SYSROOT" "$state" commit >"$WORK/commit"
[ "$(cat "$WORK/commit")" = "commit 0 0" ] || fail "commit: $(cat "$WORK/commit")"
[ "$(cat "$quota")" = 4242 ] || fail "the commit did not set quotas/bytes: $(cat "$quota")"

# 4. keep's refusals
"$JOURNAL_LIB" "$SYSROOT" "$state" keep >"$WORK/keep"
want=$(python3 -c 'import errno; e = -errno.EINVAL; print("open %d\nkeep %d\nkeep %d\nkeep 0" % (e, e, e))')
[ "$(cat "$WORK/keep")" = "$want" ] || fail "keep: $(cat "$WORK/keep"), expected $want"
echo "ok: a killed commit's journal found, undone and removed; an ended one leaves none"
