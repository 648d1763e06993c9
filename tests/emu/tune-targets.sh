#!/bin/bash
# damonc tune --add-target / --remove-target: processes join and leave a running kdamond
# online. Where the kernel has obsolete_target (6.19) the one removed is marked, the commit
# drops it, and the files are staged without it afterwards; before, the targets after it move
# down a place. Either way the files and the running kdamond (its regions, read through
# tried regions) agree, and damonc's record names the new targets.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
sleep 600 &
t2=$!
sleep 600 &
t3=$!
trap 'kill $target $t2 $t3 2>/dev/null || true; emu_cleanup' EXIT
ctx=$ADMIN/kdamonds/0/contexts/0

pids() { # the targets' pids as the files list them
	local n i out=""
	n=$(cat "$ctx/targets/nr_targets")
	for ((i = 0; i < n; i++)); do out+="$(cat "$ctx/targets/$i/pid_target") "; done
	echo "${out% }"
}
recorded() { # the targets damonc's record names
	python3 -c 'import json, sys
print(" ".join(str(p) for p in json.load(open(sys.argv[1]))["kdamonds"][0]["targets"]))' \
		"$SYSROOT/run/damonc/kdamonds.json"
}

# tried_at TARGET: a tried region (the stat scheme tries every region of every target)
# starts where target TARGET's first region does in the files: the kernel keeps a target's
# first region starting at the span start damonc wrote. (Whether a region is in a process's
# mappings says nothing: regions are spans over mappings and gaps, and spans overlap.)
tried_at() {
	local want
	want=$(cat "$ctx/targets/$1/regions/0/start")
	echo update_schemes_tried_regions >"$ADMIN/kdamonds/0/state"
	grep -qx "$want" "$ctx"/schemes/0/tried_regions/[0-9]*/start
}

expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 50ms
: >"$EMU_LOG"
expect_rc 0 "$D" tune --add-target "$t2" --add-target "$t3"
grep -q "kdamond 0: commit" <<<"$OUT" || fail "add: $OUT"
[ "$(pids)" = "$target $t2 $t3" ] || fail "after adding: the files list $(pids)"
[ "$(recorded)" = "$target $t2 $t3" ] || fail "after adding: damonc's record: $(recorded)"
# a target added gets its regions at once (the mappings less the two largest gaps), not
# at the next update interval
[ "$(cat "$ctx/targets/1/regions/nr_regions")" -ge 1 ] || fail "target added without regions"
start=$(cat "$ctx/targets/1/regions/0/start")
python3 -c 'import sys
starts = {int(l.split("-")[0], 16) for l in open("/proc/%s/maps" % sys.argv[1])}
sys.exit(int(sys.argv[2]) not in starts)' "$t2" "$start" ||
	fail "region 0 of the target added starts at $start, where no mapping of $t2 does"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"
# and it monitors the target added (the stat scheme's tried regions cover every region of
# every target)
wait_until 30 tried_at 1

# remove the middle one
: >"$EMU_LOG"
expect_rc 0 "$D" tune --remove-target "$t2" --json
[ "$(json_get 'j["committed"]')" = commit ] || fail "remove --json: $OUT"
[ "$(pids)" = "$target $t3" ] || fail "after removing $t2: the files list $(pids)"
[ "$(recorded)" = "$target $t3" ] || fail "after removing $t2: damonc's record: $(recorded)"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"
if [ -e "$ctx/targets/0/obsolete_target" ]; then
	grep -q "obsolete_target 'Y'" "$EMU_LOG" || fail "not marked obsolete: $(cat "$EMU_LOG")"
	for f in "$ctx"/targets/*/obsolete_target; do
		[ "$(cat "$f")" = N ] || fail "$f still says $(cat "$f")"
	done
else
	grep -q "obsolete_target" "$EMU_LOG" && fail "obsolete_target written on $PROFILE"
fi
# a later commit keeps both (the kernel pairs the files' targets with its own by index)
expect_rc 0 "$D" tune --min-size 8KiB
[ "$(pids)" = "$target $t3" ] || fail "after a later tune: $(pids)"
expect_rc 0 "$D" status --json
[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = True ] || fail "status: $OUT"
# the running kdamond monitors $t3, now target 1
wait_until 30 tried_at 1

# bad input: exit 2, nothing written
: >"$EMU_LOG"
expect_rc 2 "$D" tune --remove-target "$t2"
grep -q -- "--remove-target: process $t2 is not a target of kdamond 0" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --add-target "$t3"
grep -q -- "--add-target: process $t3 is a target already" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --add-target 999999999
grep -q -- "--add-target: process 999999999 does not exist" <<<"$ERR" || fail "$ERR"
# a kernel thread has no user memory: refused as start refuses it (kthreadd is pid 2)
expect_rc 2 "$D" tune --add-target 2
grep -q -- "--add-target: process 2 is a kernel thread" <<<"$ERR" || fail "kernel thread: $ERR"
expect_rc 2 "$D" start --pid 2 --action stat --dry-run
grep -q "process 2 is a kernel thread" <<<"$ERR" || fail "start, kernel thread: $ERR"
expect_rc 2 "$D" tune --add-target abc
grep -q -- "--add-target" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" tune --remove-target "$target" --remove-target "$t3"
grep -q "would have no target left" <<<"$ERR" || fail "$ERR"
! grep -q '^W' "$EMU_LOG" || fail "bad input wrote: $(grep '^W' "$EMU_LOG")"

# a target that exited: a commit naming it would be refused (7.3) or stop the kdamond (6.1,
# 6.12), so tune says so and changes nothing; --remove-target takes it out
kill "$t3"
wait "$t3" 2>/dev/null || true
before=$(cat "$ctx/schemes/0/access_pattern/sz/min")
expect_rc 1 "$D" tune --min-size 4KiB
grep -q "target process $t3 has exited" <<<"$ERR" || fail "tune with an exited target: $ERR"
[ "$(cat "$ctx/schemes/0/access_pattern/sz/min")" = "$before" ] ||
	fail "a refused tune left its value staged"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"
expect_rc 0 "$D" tune --remove-target "$t3"
[ "$(pids)" = "$target" ] || fail "after removing the exited $t3: $(pids)"
sleep 600 &
t3=$!
expect_rc 0 "$D" tune --add-target "$t3"

# the first one goes; then one comes back
expect_rc 0 "$D" tune --remove-target "$target"
[ "$(pids)" = "$t3" ] || fail "after removing the first: $(pids)"
expect_rc 0 "$D" tune --add-target "$target"
[ "$(pids)" = "$t3 $target" ] || fail "after adding back: $(pids)"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "the kdamond stopped"
expect_rc 0 "$D" stop
echo "ok: tune targets on profile $PROFILE"
