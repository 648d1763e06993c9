#!/bin/bash
# damonc --batch on the emulator: a failing line stops the batch with its line number and
# status (--force goes on); a bad line is exit 2 with its number; --atomic checks every line
# first and, when a line fails, leaves the tree and damonc's record of its kdamonds exactly
# as they were (compared as dumps of the tree and `status --json`); --dry-run writes nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
b=$SYSROOT/batch
started=$SYSROOT/run/damonc/kdamonds.json

# snapshot NAME: the tree, damonc's view of it and its record, to compare after a batch;
# while a kdamond runs, its results (stats, tried regions) move on by themselves: left out
snapshot() {
	if [ "$(sysfs_read "$ADMIN/kdamonds/0/state" 2>/dev/null)" = on ]; then
		emu_dump | grep -v -e '/stats/' -e 'tried_regions' >"$SYSROOT/$1.tree"
		"$D" status --json=compact | python3 -c 'import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("stats", "tried_regions", "cpu")}
    return [strip(x) for x in v] if isinstance(v, list) else v
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True))' >"$SYSROOT/$1.status"
	else
		emu_dump >"$SYSROOT/$1.tree"
		"$D" status --json=compact >"$SYSROOT/$1.status"
	fi
	cat "$started" >"$SYSROOT/$1.started" 2>/dev/null || echo none >"$SYSROOT/$1.started"
}
same_as() { # NAME WHAT
	snapshot now
	local f
	for f in tree status started; do
		diff -u "$SYSROOT/$1.$f" "$SYSROOT/now.$f" >&2 || fail "$2: the $f differs"
	done
}

# --atomic, nothing running before: the last line fails, nothing of the batch is left
cat >"$b" <<B
# three lines; the last fails when it runs (there is no kdamond 3)
start --pid $target --action stat --quota-size 1GiB
tune --min-size 8KiB    # a comment
tune --kdamond 3 --min-size 4KiB
B
snapshot before
expect_rc 2 "$D" --atomic --batch "$b"
grep -q "started kdamond 0" <<<"$OUT" || fail "atomic: line 2 did not run: $OUT"
grep -q "batch: line 4: tune --kdamond 3 --min-size 4KiB: exit status 2" <<<"$ERR" ||
	fail "atomic: the failing line: $ERR"
same_as before "--atomic after a failing last line"

# --atomic, a kdamond of damonc's running: tune and stop are undone (it runs again, the
# configuration as before, damonc's record naming its new pid)
expect_rc 0 "$D" start --pid "$target" --action stat --quota-size 1GiB
# the configuration: the writable files (read-only ones are the kdamond's results, which
# change as it runs: stats, effective_bytes, tried regions, pid)
emu_dump | grep -v -e '^F 400 ' -e '/stats/' -e '/pid =' -e 'tried_regions' >"$SYSROOT/running.config"
expect_rc 2 "$D" --atomic --batch - <<<$'tune --min-size 16KiB\nstop\nstatus --kdamond 7'
grep -q "kdamond 0: stopped" <<<"$OUT" || fail "atomic: stop did not run: $OUT"
emu_dump | grep -v -e '^F 400 ' -e '/stats/' -e '/pid =' -e 'tried_regions' >"$SYSROOT/now.config"
diff -u "$SYSROOT/running.config" "$SYSROOT/now.config" >&2 ||
	fail "atomic: the running kdamond's configuration was not put back"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "atomic: the stopped kdamond is not on again"
expect_rc 0 "$D" status --json
[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = True ] ||
	fail "atomic: damonc's record does not name the restarted kdamond: $(cat "$started")"
[ "$(json_get 'j["kdamonds"][0]["pid"]')" = "$(sysfs_read "$ADMIN/kdamonds/0/pid")" ] ||
	fail "atomic: status --json pid"

# a bad line (a bad option value, an unknown command): exit 2 with its number; with
# --atomic nothing runs, not even the lines before it
snapshot before
printf 'tune --min-size 32KiB\nstatus\ntune --min-size lots\n' >"$b"
expect_rc 2 "$D" --atomic --batch "$b"
grep -q "damonc: tune: --min-size 'lots'" <<<"$ERR" || fail "bad value: $ERR"
grep -q "batch: line 3: " <<<"$ERR" || fail "bad value, the line number: $ERR"
grep -q "nothing was run" <<<"$ERR" || fail "bad value: $ERR"
same_as before "--atomic with a bad line"
printf 'status\nfrobnicate --now\ntune --min-size 32KiB\n' >"$b"
expect_rc 2 "$D" --batch "$b"
grep -q "damonc: unknown command 'frobnicate'" <<<"$ERR" || fail "unknown command: $ERR"
grep -q "batch: line 2: frobnicate --now: exit status 2" <<<"$ERR" || fail "line number: $ERR"
same_as before "a batch stopped at an unknown command"
printf "status\nstart --label 'open\n" >"$b"
expect_rc 2 "$D" --batch "$b"
grep -q "batch: line 2: a single quote is not closed" <<<"$ERR" || fail "open quote: $ERR"

# --dry-run: the writes of start and tune, nothing written
: >"$EMU_LOG"
printf 'tune --min-size 64KiB\nstop\nstart --pid %s --action pageout\n' "$target" >"$b"
expect_rc 0 "$D" --dry-run --batch "$b"
grep -q "access_pattern/sz/min <= 65536" <<<"$OUT" || fail "dry run: tune's writes: $OUT"
grep -q "line 2: stop: not run in a dry run" <<<"$OUT" || fail "dry run: stop: $OUT"
grep -q "action <= pageout" <<<"$OUT" || fail "dry run: start's writes: $OUT"
! grep -q '^W' "$EMU_LOG" || fail "a dry run wrote: $(grep '^W' "$EMU_LOG")"

# without --force the batch stops at the first failing line; with it, it goes on, and
# exits with the first failure's status
printf 'tune --kdamond 5 --min-size 4KiB\ntune --min-size 12KiB\n' >"$b"
expect_rc 2 "$D" --batch "$b"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" != 12288 ] ||
	fail "the line after a failing one ran"
expect_rc 2 "$D" --force --batch "$b"
grep -q "batch: line 1: " <<<"$ERR" || fail "--force: $ERR"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" = 12288 ] ||
	fail "--force did not go on"

# options that only make sense with --batch
expect_rc 2 "$D" --atomic status
grep -q "only with --batch" <<<"$ERR" || fail "--atomic alone: $ERR"
expect_rc 0 "$D" stop
echo "ok: damonc --batch on profile $PROFILE"
