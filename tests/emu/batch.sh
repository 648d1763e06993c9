#!/bin/bash
# damonc --batch on the emulator: a failing line stops the batch with its line number and
# status (--force goes on); a bad line is exit 2 with its number; --atomic stages its start,
# tune and stop lines into one model and commits it at its end, once per kdamond: a line
# that fails leaves the tree and damonc's record of its kdamonds exactly as they were (no
# write at all: the emulator's log), and a commit that fails puts them back (compared as
# dumps of the tree and `status --json`); --dry-run writes nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
b=$SYSROOT/batch
started=$SYSROOT/run/damonc/kdamonds.json

# snapshot NAME: the tree, damonc's view of it and its record, to compare after a batch;
# while a kdamond runs, its results (stats, tried regions, the effective quota) move on by
# themselves: left out
snapshot() {
	if [ "$(sysfs_read "$ADMIN/kdamonds/0/state" 2>/dev/null)" = on ]; then
		emu_dump | grep -v -e '/stats/' -e 'tried_regions' -e '/effective_bytes = ' \
			>"$SYSROOT/$1.tree"
		"$D" status --json=compact | python3 -c 'import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("stats", "tried_regions", "cpu", "effective_bytes")}
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

writes() { grep -c '^W' "$EMU_LOG" || true; }
state_writes() { grep -c "^W kdamonds/[0-9]*/state '$1' ok" "$EMU_LOG" || true; }

# --atomic, nothing running before: the last line fails while the batch stages, and nothing
# of it reaches the kernel
cat >"$b" <<B
# three lines; the last fails when it runs (there is no kdamond 3)
start --pid $target --action stat --quota-size 1GiB
tune --min-size 8KiB    # a comment
tune --kdamond 3 --min-size 4KiB
B
snapshot before
: >"$EMU_LOG"
expect_rc 2 "$D" --atomic --batch "$b"
grep -q "kdamond 0: start staged" <<<"$OUT" || fail "atomic: line 2 was not staged: $OUT"
grep -q "kdamond 0: commit staged" <<<"$OUT" || fail "atomic: line 3 was not staged: $OUT"
grep -q "batch: line 4: tune --kdamond 3 --min-size 4KiB: exit status 2" <<<"$ERR" ||
	fail "atomic: the failing line: $ERR"
grep -q "nothing of the batch was committed" <<<"$ERR" || fail "atomic: $ERR"
[ "$(writes)" = 0 ] || fail "atomic: a batch that failed while staging wrote: $(grep '^W' "$EMU_LOG")"
same_as before "--atomic after a failing last line"

# --atomic that succeeds: start and tune staged into one model, turned on once with the
# tuned size (no commit), damonc's record naming the kdamond's pid
sed -i '$d' "$b"
: >"$EMU_LOG"
expect_rc 0 "$D" --atomic --batch "$b"
grep -q "batch: kdamond 0: on (pid [1-9]" <<<"$OUT" || fail "atomic: the commit's summary: $OUT"
[ "$(sysfs_read "$ADMIN/kdamonds/0/state")" = on ] || fail "atomic: kdamond 0 is not on"
[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" = 8192 ] ||
	fail "atomic: the tune line's size is not what started"
if [ "$(state_writes on)" != 1 ] || [ "$(state_writes commit)" != 0 ]; then
	fail "atomic: start then tune: $(grep '^W.*/state ' "$EMU_LOG")"
fi
expect_rc 0 "$D" status --json
[ "$(json_get 'j["kdamonds"][0]["started_by_damonc"]')" = True ] ||
	fail "atomic: damonc's record does not name the started kdamond: $(cat "$started")"
[ "$(json_get 'j["kdamonds"][0]["pid"]')" = "$(sysfs_read "$ADMIN/kdamonds/0/pid")" ] ||
	fail "atomic: status --json pid"
pid0=$(sysfs_read "$ADMIN/kdamonds/0/pid")

# two tune lines on a running kdamond: one commit, with both changes
: >"$EMU_LOG"
expect_rc 0 "$D" --atomic --batch - <<<$'tune --min-size 16KiB\ntune --quota-size 2GiB\nstatus'
[ "$(state_writes commit)" = 1 ] || fail "atomic: two tunes: $(grep '^W.*/state ' "$EMU_LOG")"
if [ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/min")" != 16384 ] ||
	[ "$(cat "$ADMIN/kdamonds/0/contexts/0/schemes/0/quotas/bytes")" != 2147483648 ]; then
	fail "atomic: the two tunes were not both committed"
fi
grep -q "batch: kdamond 0: commit" <<<"$OUT" || fail "atomic: the commit's summary: $OUT"
# with --json, the lines' documents and then the batch's own (damonc-batch.schema.json)
expect_rc 0 "$D" --json=compact --atomic --batch - <<<'tune --min-size 20KiB'
python3 -c 'import json, sys
line, batch = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert line["staged"] is True and line["committed"] == "commit", line
assert batch["batch"] == {"dry_run": False, "kdamonds": [{"index": 0, "change": "commit",
                                                         "pid": int(sys.argv[1])}]}, batch
' "$pid0" <<<"$OUT" || fail "atomic --json: $OUT"
expect_rc 0 "$D" --json=compact --atomic --dry-run --batch - <<<'stop'
python3 -c 'import json, sys
batch = json.loads(sys.stdin.read().splitlines()[-1])["batch"]
assert batch["dry_run"] is True and batch["kdamonds"] == [{"index": 0, "change": "off"}], batch
' <<<"$OUT" || fail "atomic --json --dry-run: $OUT"

# --atomic with the kdamond running: tune and stop staged, then a line fails: the kdamond
# runs on untouched (the same pid: it was never stopped), nothing written
: >"$EMU_LOG"
snapshot before
expect_rc 2 "$D" --atomic --batch - <<<$'tune --min-size 32KiB\nstop\nstatus --kdamond 7'
grep -q "kdamond 0: stop staged" <<<"$OUT" || fail "atomic: stop was not staged: $OUT"
[ "$(writes)" = 0 ] || fail "atomic: wrote: $(grep '^W' "$EMU_LOG")"
[ "$(sysfs_read "$ADMIN/kdamonds/0/pid")" = "$pid0" ] || fail "atomic: kdamond 0 was restarted"
same_as before "--atomic: tune, stop, then a failing line"

# the commit fails (the kernel refuses the tune's commit): what it did is put back, the
# error names the write
printf 'path=kdamonds/0/state value=commit errno=EINVAL\n' >"$EMU_FAULTS.new"
mv "$EMU_FAULTS.new" "$EMU_FAULTS"
expect_rc 1 "$D" --atomic --batch - <<<$'tune --min-size 64KiB\ntune --quota-size 4GiB'
: >"$EMU_FAULTS"
grep -q "committing the batch (nothing of it is left)" <<<"$ERR" || fail "commit failure: $ERR"
grep -q "state" <<<"$ERR" || fail "commit failure: the failed write is not named: $ERR"
same_as before "--atomic whose commit failed"

# a command that acts but cannot be staged: refused before anything runs
expect_rc 2 "$D" --atomic --batch - <<<$'tune --min-size 8KiB\nrecord -o /dev/null'
grep -q "line 2: record: an --atomic batch holds start, tune and stop" <<<"$ERR" ||
	fail "atomic: record line: $ERR"
same_as before "--atomic with a record line"

# --atomic --dry-run: the lines staged, the commit's writes printed, nothing written
: >"$EMU_LOG"
expect_rc 0 "$D" --atomic --dry-run --batch - <<<$'tune --min-size 24KiB\nstop'
grep -q "contexts/0/schemes/0/access_pattern/sz/min <= 24576" <<<"$OUT" ||
	fail "atomic dry run: the writes: $OUT"
grep -q "kdamond 0: off" <<<"$OUT" || fail "atomic dry run: the stop: $OUT"
[ "$(writes)" = 0 ] || fail "atomic dry run wrote: $(grep '^W' "$EMU_LOG")"
same_as before "--atomic --dry-run"

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

# --dry-run: the writes of tune, nothing written; each line's dry run is the line's real
# run on the tree as it is, so the start, with kdamond 0 still running (the stop is not run),
# is refused as the start would be (exit 4). --atomic --dry-run stages them in order.
: >"$EMU_LOG"
printf 'tune --min-size 64KiB\nstop\nstart --pid %s --action pageout\n' "$target" >"$b"
expect_rc 4 "$D" --dry-run --batch "$b"
grep -q "access_pattern/sz/min <= 65536" <<<"$OUT" || fail "dry run: tune's writes: $OUT"
grep -q "line 2: stop: not run in a dry run" <<<"$OUT" || fail "dry run: stop: $OUT"
grep -q "batch: line 3: start .*: exit status 4" <<<"$ERR" || fail "dry run: start: $ERR"
expect_rc 0 "$D" --atomic --dry-run --batch "$b"
grep -q "action <= pageout" <<<"$OUT" || fail "atomic dry run: start's writes: $OUT"
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
