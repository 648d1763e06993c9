#!/bin/bash
# damonc tune --add-scheme / --remove-scheme: schemes join and leave a running kdamond online
# (one commit; the kdamond keeps running). The kernel pairs its schemes with the files' by
# index: after a removal the later schemes sit one place lower, in files and kernel alike.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
ctx=$ADMIN/kdamonds/0/contexts/0
actions() { # the schemes' actions as the files list them
	local n i out=""
	n=$(cat "$ctx/schemes/nr_schemes")
	for ((i = 0; i < n; i++)); do out+="$(cat "$ctx/schemes/$i/action") "; done
	echo "${out% }"
}
# applied S: the kernel applies scheme S (its nr_tried grows): it runs that slot
tried() { echo update_schemes_stats >"$ADMIN/kdamonds/0/state"; cat "$ctx/schemes/$1/stats/nr_tried"; }
grows() { local a; a=$(tried "$1"); sleep 0.3; [ "$(tried "$1")" -gt "$a" ]; }

expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 50ms
pid=$(sysfs_read "$ADMIN/kdamonds/0/pid")
expect_rc 0 "$D" tune --add-scheme --action pageout --min-age 5s --quota-size 1MiB
grep -q "kdamond 0: commit" <<<"$OUT" || fail "add: $OUT"
[ "$(actions)" = "stat pageout" ] || fail "after --add-scheme: $(actions)"
[ "$(cat "$ctx/schemes/1/quotas/bytes")" = 1048576 ] || fail "the new scheme's quota"
expect_rc 0 "$D" tune --add-scheme --action lru_prio --json
[ "$(json_get 'j["committed"]')" = commit ] || fail "add --json: $OUT"
[ "$(actions)" = "stat pageout lru_prio" ] || fail "after a second --add-scheme: $(actions)"
[ "$(sysfs_read "$ADMIN/kdamonds/0/pid")" = "$pid" ] || fail "the kdamond restarted"
wait_until 20 grows 2

# DAMON's sysfs lock, taken with a trylock by the nr_* files too, is held by a stats refresh
# now and then: an EBUSY there is waited out
echo "path=*/schemes/nr_schemes errno=EBUSY times=3" >"$EMU_FAULTS.new"
mv "$EMU_FAULTS.new" "$EMU_FAULTS"
expect_rc 0 "$D" tune --add-scheme --action stat
[ "$(actions)" = "stat pageout lru_prio stat" ] || fail "after a busy --add-scheme: $(actions)"
[ "$(grep -c "nr_schemes '4' EBUSY fault" "$EMU_LOG")" = 3 ] ||
	fail "not retried as the faults say: $(grep nr_schemes "$EMU_LOG")"
: >"$EMU_FAULTS"
expect_rc 0 "$D" tune --remove-scheme 3

# remove the middle one: lru_prio moves to slot 1, in the files and in the kernel
expect_rc 0 "$D" tune --remove-scheme 1
[ "$(actions)" = "stat lru_prio" ] || fail "after --remove-scheme 1: $(actions)"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"
[ "$(sysfs_read "$ADMIN/kdamonds/0/pid")" = "$pid" ] || fail "the kdamond restarted"
# the scheme options apply to one scheme: with several, --scheme names it
expect_rc 2 "$D" tune --min-size 8KiB
grep -q "choose one with --scheme" <<<"$ERR" || fail "$ERR"
expect_rc 0 "$D" tune --scheme 1 --min-size 8KiB
[ "$(cat "$ctx/schemes/1/access_pattern/sz/min")" = 8192 ] || fail "tune --scheme 1"
# replace one: remove and add in one commit
expect_rc 0 "$D" tune --remove-scheme 0 --add-scheme --action stat --min-size 16KiB
[ "$(actions)" = "lru_prio stat" ] || fail "after replacing: $(actions)"
[ "$(cat "$ctx/schemes/1/access_pattern/sz/min")" = 16384 ] || fail "the new scheme's min size"

# bad input: exit 2, nothing written
: >"$EMU_LOG"
expect_rc 2 "$D" tune --remove-scheme 5
grep -q -- "--remove-scheme 5: kdamond 0 has 2 schemes" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --add-scheme --min-age 1s
grep -q -- "--add-scheme: which action" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --add-scheme --scheme 0 --action stat
grep -q -- "--add-scheme makes a new scheme" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --remove-scheme 0 --min-age 1s
grep -q -- "--remove-scheme 0: the scheme options would apply to no scheme" <<<"$ERR" ||
	fail "$ERR"
expect_rc 2 "$D" tune --remove-scheme 0 --remove-scheme 1
grep -q -- "--remove-scheme: one scheme per tune" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --add-scheme --action bogus
! grep -q '^W' "$EMU_LOG" || fail "bad input wrote: $(grep '^W' "$EMU_LOG")"
[ "$(actions)" = "lru_prio stat" ] || fail "bad input changed the schemes: $(actions)"
expect_rc 0 "$D" stop
echo "ok: tune schemes on profile $PROFILE"
