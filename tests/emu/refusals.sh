#!/bin/bash
# Bad input and kernel refusals: a clear error naming the option or cause, the documented
# exit code, and not a single write to the tree.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_setup "$PROFILE"

sleep 600 &
target=$!
dead=$(sh -c 'echo $$')	# a pid that just exited
trap 'kill $target 2>/dev/null || true; emu_cleanup' EXIT

before=$(emu_dump)
writes() { grep -c '^W' "$EMU_LOG" || true; }
unchanged() {
	[ "$(emu_dump)" = "$before" ] || fail "the tree changed after: $*"
	[ "$(writes)" = 0 ] || { cat "$EMU_LOG" >&2; fail "writes were made by: $*"; }
}

bad() {	# bad EXPECTED_TEXT ARGS...: exit 2, message contains the text, nothing written
	local text=$1
	shift
	expect_rc 2 "$D" "$@"
	grep -qF -- "$text" <<<"$ERR" || fail "'$*': message '$ERR' lacks '$text'"
	unchanged "$@"
}

bad "--access-rate '120%'" start --pid "$target" --action stat --access-rate 120%
bad "--min-size '2XB'" start --pid "$target" --action stat --min-size 2XB
bad "--action 'explode'" start --pid "$target" --action explode
bad "--goal 'nosuch=1'" start --pid "$target" --action stat --goal nosuch=1
bad "--sample '5 parsecs'" start --pid "$target" --action stat --sample "5 parsecs"
bad "which action" start --pid "$target"
bad "--pid $dead: no such process" start --pid "$dead" --action stat
bad "overlap" start --ops paddr --regions 0x100000-0x300000,0x200000-0x400000 --action stat
bad "sampling interval" start --pid "$target" --action stat --sample 200ms --aggr 100ms
bad "unknown option '--frobnicate'" start --pid "$target" --action stat --frobnicate
bad "-c '/nonexistent.json': No such file" start -c /nonexistent.json
echo '{"format_version": 1, "kdamonds": [{"contexts": [{"operations": "vaddr", "bogus_key": 1}]}]}' >"$SYSROOT/bad.json"
bad "bogus_key" start -c "$SYSROOT/bad.json"
bad "nothing to change" tune
bad "unknown command 'strat'" strat

case $PROFILE in
6.1 | 6.6 | 6.12)
	# the kernel lacks collapse: without fallbacks, exit 3 and say which version has it
	expect_rc 3 "$D" start --pid "$target" --action collapse --no-fallback
	grep -q "arrived in Linux 7.2" <<<"$ERR" || fail "collapse message: $ERR"
	;;
esac

# DAMON_STAT holds DAMON (Debian's 7.x kernels start it at boot): exit 4, and say so
if [ -d "$EMU_MODULES/damon_stat" ]; then
	: >"$EMU_LOG"
	echo Y >"$EMU_MODULES/damon_stat/parameters/enabled"
	expect_rc 4 "$D" start --pid "$target" --action stat
	grep -q "DAMON_STAT holds DAMON" <<<"$ERR" || fail "DAMON_STAT message: $ERR"
	[ "$(emu_dump)" = "$before" ] || fail "the tree changed after the DAMON_STAT refusal"
	# refused before any write, and so by its dry run too (issue 29: the dry run is the plan)
	! grep -q "^W" "$EMU_LOG" || fail "DAMON_STAT refusal wrote: $(grep "^W" "$EMU_LOG")"
	expect_rc 4 "$D" start --dry-run --pid "$target" --action stat
	grep -q "DAMON_STAT holds DAMON" <<<"$ERR" || fail "DAMON_STAT dry run: $ERR"
	echo N >"$EMU_MODULES/damon_stat/parameters/enabled"
fi

# someone else's running kdamond: start refuses (exit 4), stop leaves it alone
A=$ADMIN/kdamonds
echo 1 >"$A/nr_kdamonds"
echo 1 >"$A/0/contexts/nr_contexts"
echo 1 >"$A/0/contexts/0/targets/nr_targets"
echo "$target" >"$A/0/contexts/0/targets/0/pid_target"
echo on >"$A/0/state"
before=$(emu_dump)
: >"$EMU_LOG"
expect_rc 4 "$D" start --pid "$target" --action stat
grep -q "kdamond 0 is running (not started by damonc)" <<<"$ERR" || fail "busy: $ERR"
expect_rc 0 "$D" stop
[ "$(sysfs_read "$A/0/state")" = on ] || fail "damonc stop stopped a kdamond it did not start"
expect_rc 2 "$D" tune --goal-bp 500
grep -q "no running kdamond started by damonc" <<<"$ERR" || fail "tune: $ERR"
unchanged "start/stop/tune next to a foreign kdamond"
expect_rc 0 "$D" stop --kdamond 0
[ "$(sysfs_read "$A/0/state")" = off ] || fail "stop --kdamond 0 did not stop it"
echo "ok: refusals on profile $PROFILE"
