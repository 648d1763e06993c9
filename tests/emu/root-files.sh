#!/bin/bash
# The files damonc keeps as root, on the emulator: its run directory is made 0700, one found
# 0755 (older damonc) is tightened, one that is a link or another user's is refused with a
# sentence and nothing is written to the tree; agent.pid and agent.log planted as links are
# not followed; journals that are FIFOs, device nodes or links to one do not hang `stop`;
# `record -o` refused (a link, a FIFO, a device) writes nothing to the tree, and a record
# whose stdout fills says so; metrics --refresh -o refused writes nothing either; an
# --atomic batch ended by a signal leaves no staging directory (SIGTERM, SIGHUP, SIGINT
# during a line; SIGKILL: the next batch removes it), commits nothing, and dies of the
# signal. Every planted thing and victim is the test's own (mknod in its directory).
#   root-files.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
RUN=$SYSROOT/run/damonc
V=$SYSROOT/victims
mkdir -p "$V"
printf 'secret\n' >"$V/file"
chmod 600 "$V/file"
export TMPDIR=$SYSROOT/tmp	# where --atomic stages
mkdir -p "$TMPDIR"
can_mknod=true
mknod "$V/probe" c 1 3 2>/dev/null && rm "$V/probe" || can_mknod=false
victims() { find "$V" -printf '%P %y %m %s\n' | LC_ALL=C sort; cat "$V/file"; }
writes() { grep -c '^W' "$EMU_LOG" || true; }
n=0

# the run directory: made 0700
expect_rc 0 "$D" start --pid "$target" --action stat
[ "$(stat -c %a "$RUN")" = 700 ] || fail "run/damonc is $(stat -c %a "$RUN"), not 700"
expect_rc 0 "$D" stop
rm -rf "$RUN"
mkdir -m 755 "$RUN"
expect_rc 0 "$D" start --pid "$target" --action stat
[ "$(stat -c %a "$RUN")" = 700 ] || fail "run/damonc found 0755 was not tightened"
expect_rc 0 "$D" stop
n=$((n + 2))

# refused_run WHAT: start refused with a sentence naming WHAT, nothing written to the tree
refused_run() {
	local before
	before=$(victims)
	: >"$EMU_LOG"
	expect_rc 1 "$D" start --pid "$target" --action stat
	grep -qF "$1" <<<"$ERR" || fail "run/damonc ($1): $ERR"
	[ "$(writes)" = 0 ] || fail "run/damonc ($1): the tree was written: $(grep '^W' "$EMU_LOG")"
	[ "$before" = "$(victims)" ] || fail "run/damonc ($1): the victims changed"
	n=$((n + 1))
}
rm -rf "$RUN"
mkdir -m 777 "$V/dir"
ln -s "$V/dir" "$RUN"
refused_run "run/damonc is a symbolic link: damonc keeps its state only in a directory of its own user's"
[ -z "$(ls -A "$V/dir")" ] || fail "something was written through the linked run directory"
rm "$RUN"
mkdir -m 700 "$RUN"
chown 65534:65534 "$RUN"
refused_run "run/damonc belongs to another user"
rm -rf "$RUN"

# agent.pid and agent.log planted as links: not followed
mkdir -m 700 "$RUN"
ln -s "$V/file" "$RUN/agent.pid"
before=$(victims)
expect_rc 1 "$D" agent
[ "$before" = "$(victims)" ] || fail "agent.pid: the victim changed"
rm "$RUN/agent.pid"
ln -s "$V/file" "$RUN/agent.log"
expect_rc 0 "$D" start --pid "$target" --action stat --follow-children
wait_until 20 test -s "$RUN/agent.pid"
expect_rc 0 "$D" stop
wait_agent_gone 20
[ "$before" = "$(victims)" ] || fail "agent.log: the victim was appended to: $(cat "$V/file")"
[ -L "$RUN/agent.log" ] || fail "agent.log: the link was replaced"
rm "$RUN/agent.log"
n=$((n + 2))

# journals that would hang a reader: a FIFO, a device node, a link to either; bounded by
# expect_rc's own timeout wrapper below (a hang fails the case)
mkfifo "$RUN/journal-999990.json"
ln -s "$RUN/journal-999990.json" "$RUN/journal-999991.json"
if $can_mknod; then
	mknod "$RUN/journal-999992.json" c 1 5	# a /dev/zero of our own
	ln -s "$RUN/journal-999992.json" "$RUN/journal-999993.json"
fi
expect_rc 0 timeout -k 5 30 "$D" start --pid "$target" --action stat
grep -qF "journal-999990.json is no journal damonc can read (a regular file of JSON): removed" <<<"$ERR" ||
	fail "the FIFO journal: $ERR"
expect_rc 0 timeout -k 5 30 "$D" stop
expect_rc 0 timeout -k 5 30 "$D" status
[ -z "$(find "$RUN" -name 'journal-99999*')" ] || fail "journals left: $(ls "$RUN")"
n=$((n + 1))

# record -o refused: nothing written to the tree, no capture scheme left
expect_rc 0 "$D" start --pid "$target" --action stat
plant() {
	rm -rf "${SYSROOT:?}/out.rec"
	case $1 in
	link) ln -s "$V/file" "$SYSROOT/out.rec" ;;
	fifo) mkfifo "$SYSROOT/out.rec" ;;
	device) mknod "$SYSROOT/out.rec" c 1 7 ;;
	esac
}
kinds=(link fifo)
$can_mknod && kinds+=(device)
for k in "${kinds[@]}"; do
	plant "$k"
	before=$(emu_dump)
	: >"$EMU_LOG"
	expect_rc 2 timeout -k 5 30 "$D" record --count 2 --interval 100ms -o "$SYSROOT/out.rec"
	grep -qF -- "-o '$SYSROOT/out.rec': " <<<"$ERR" || fail "record -o $k: $ERR"
	[ "$(writes)" = 0 ] || fail "record -o $k: the tree was written: $(grep '^W' "$EMU_LOG" | head -3)"
	expect_rc 2 timeout -k 5 30 "$D" record --pid "$target" --count 2 --interval 100ms -o "$SYSROOT/out.rec"
	[ "$(writes)" = 0 ] || fail "record --pid -o $k: the tree was written"
	expect_rc 2 "$D" metrics --refresh -o "$SYSROOT/out.rec"
	[ "$(writes)" = 0 ] || fail "metrics --refresh -o $k: the tree was written"
	n=$((n + 3))
done
rm -f "$SYSROOT/out.rec"
[ "$(cat "$V/file")" = secret ] || fail "record or metrics wrote the victim"
# a record whose stdout fills (a /dev/full of our own): said, exit 1, the capture undone
if $can_mknod; then
	mknod "$SYSROOT/full" c 1 7
	config=$(emu_dump | grep -vE '/(stats|tried_regions)/|/effective_bytes = ')
	rc=0
	"$D" record --count 3 --interval 100ms -o - >"$SYSROOT/full" 2>"$SYSROOT/err" || rc=$?
	[ "$rc" = 1 ] || fail "record -o - to a full device: exit $rc: $(cat "$SYSROOT/err")"
	grep -q "No space left on device" "$SYSROOT/err" || fail "record to a full device: $(cat "$SYSROOT/err")"
	[ "$config" = "$(emu_dump | grep -vE '/(stats|tried_regions)/|/effective_bytes = ')" ] ||
		fail "record to a full device left the capture scheme"
	rm "$SYSROOT/full"
	n=$((n + 1))
fi
expect_rc 0 "$D" stop

# --atomic batches ended by a signal while a line runs: no staging directory left, nothing
# committed; the batch dies of the signal
stagings() { find "$TMPDIR" -maxdepth 1 -name 'damonc-batch-*' | wc -l; }
one_staging() { [ "$(stagings)" = 1 ]; }
for sig in TERM HUP INT KILL; do
	printf 'start --pid %s --action stat\nreport hugepage --watch 100ms\n' "$target" >"$SYSROOT/b"
	before=$(emu_dump)
	"$D" --atomic --batch "$SYSROOT/b" >/dev/null 2>&1 &
	bpid=$!
	wait_until 20 one_staging
	# the watch runs: its line is a child of the batch
	wait_until 20 pgrep -P "$bpid" >/dev/null
	kill -s "$sig" "$bpid"
	rc=0
	wait "$bpid" || rc=$?
	if [ "$sig" = KILL ]; then
		pkill -KILL -f -- "--sysroot $SYSROOT report hugepage" 2>/dev/null || true
		[ "$(stagings)" = 1 ] || fail "SIGKILL: $(stagings) staging directories"
		# the next batch removes what the killed one left
		expect_rc 0 "$D" --atomic --batch - <<<"status"
	else
		[ "$rc" = $((128 + $(kill -l "$sig"))) ] || fail "SIG$sig: the batch exited $rc"
	fi
	[ "$(stagings)" = 0 ] || fail "SIG$sig: left $(find "$TMPDIR" -name 'damonc-batch-*')"
	[ "$before" = "$(emu_dump)" ] || fail "SIG$sig: the batch committed something"
	n=$((n + 1))
done
echo "ok: $n cases of files damonc keeps as root ($PROFILE)"
