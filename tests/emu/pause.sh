#!/bin/bash
# --pause and --resume (7.2: a paused context monitors and applies nothing but takes online
# commits): tune pauses a running kdamond and resumes it, start can start one paused; a
# kernel without the pause file says so (exit 3) and nothing is written.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
k=$ADMIN/kdamonds/0
sch=$k/contexts/0/schemes/0
tried() { echo update_schemes_stats >"$k/state"; cat "$sch/stats/nr_tried"; }
grows() { local a; a=$(tried); sleep 0.5; [ "$(tried)" -gt "$a" ]; }

expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 20ms
pid=$(sysfs_read "$k/pid")
if [ ! -e "$k/contexts/0/pause" ]; then
	: >"$EMU_LOG"
	expect_rc 3 "$D" tune --pause
	grep -q "pause.*7.2" <<<"$ERR" || fail "no word of the missing feature: $ERR"
	why=$ERR
	! grep -q '^W' "$EMU_LOG" || fail "a refused --pause wrote: $(grep '^W' "$EMU_LOG")"
	expect_rc 0 "$D" stop
	echo "ok: pause refused on profile $PROFILE: $why"
	exit 0
fi
wait_until 20 grows
expect_rc 0 "$D" tune --pause
grep -q "pause: N -> Y" <<<"$OUT" || fail "tune --pause: $OUT"
[ "$(cat "$k/contexts/0/pause")" = Y ] || fail "the pause file says $(cat "$k/contexts/0/pause")"
{ [ "$(sysfs_read "$k/state")" = on ] && [ "$(sysfs_read "$k/pid")" = "$pid" ]; } || fail "the kdamond restarted"
# paused: the scheme is tried no more (a commit in between may finish the round it was in)
a=$(tried)
sleep 1
b=$(tried)
sleep 1
[ "$(tried)" = "$b" ] || fail "a paused kdamond went on trying its scheme ($a, $b, $(tried))"
expect_rc 0 "$D" status
grep -qi "paused" <<<"$OUT" || fail "status does not say it is paused: $OUT"
expect_rc 0 "$D" tune --resume
[ "$(cat "$k/contexts/0/pause")" = N ] || fail "--resume: the pause file says Y"
wait_until 20 grows
expect_rc 2 "$D" tune --pause --resume
grep -q -- "--pause and --resume: one of them" <<<"$ERR" || fail "$ERR"
expect_rc 0 "$D" stop
# started paused: it runs, and does nothing until resumed
expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 20ms --pause
[ "$(cat "$k/contexts/0/pause")" = Y ] || fail "start --pause"
b=$(tried)
sleep 1
[ "$(tried)" = "$b" ] || fail "a kdamond started paused tried its scheme"
expect_rc 0 "$D" tune --resume
wait_until 20 grows
expect_rc 0 "$D" stop
echo "ok: pause on profile $PROFILE"
