#!/bin/bash
# kill -9 anywhere: a damonc command killed at any write of its sequence leaves nothing that
# the next damonc command cannot recognise as its own and clean up. The emulator kills the
# writer at its k-th write (fault rule kill=before: the write does not happen; kill=after:
# it does, and the writer dies before it learns so), for every k the command makes; then
# `damonc status` must run, and name what was left on a kdamond whose files it changed;
# `damonc stop` (or, for tune and record, the next tune) must clean it up, and the tree and
# the run directory must be as they would be had the command failed, or finished.
#
#   kill9.sh CASE PROFILE
#   start        start next to someone's stopped kdamond (its configuration must survive)
#   start-probe  start on a bare tree, where the features are probed on a temporary kdamond
#   tune         an online commit of a running kdamond
#   stop         stopping it
#   record       a tried-regions capture (capture scheme installed, snapshots, removed)
#   agent        the damonc agent serving a collapse (6.12) or goal (7.2) fallback
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
# commands killed in the middle and what the next one undoes: no dry run first
# (tests/lib/damonc-checked compares a start with its dry run, which leftovers set apart)
export DAMONC_START_CHECK=0
CASE=${1:?case}
PROFILE=${2:?profile}
emu_setup "$PROFILE"

sleep 600 &
target=$!
own=()
trap 'kill $target "${own[@]}" 2>/dev/null || true; emu_cleanup' EXIT
A=$ADMIN/kdamonds
RUN=$SYSROOT/run/damonc

set_faults() {	# a new file each time: the emulator reloads on change, counts from then
	echo "$1" >"$EMU_FAULTS.new"
	mv "$EMU_FAULTS.new" "$EMU_FAULTS"
}
writes() { grep -c '^W' "$EMU_LOG" || true; }
# The configuration: results (stats, tried regions, pids of running kdamonds) change by
# themselves and are not what a killed command can leave wrong.
config_dump() {
	emu_dump | grep -vE '/(stats|tried_regions)/|/effective_bytes = |^F [0-7]+ kdamonds/[0-9]+/pid = '
}
# What damonc keeps for itself, less the lock file (which stays, empty, by design).
run_state() {
	[ -d "$RUN" ] || return 0
	(cd "$RUN" && find . -type f ! -name lock ! -name agent.log -printf '%P\n' | LC_ALL=C sort)
}
no_leftover_files() {
	local left
	left=$(run_state | grep -E '^(journal-|capture-)' || true)
	[ -z "$left" ] || fail "$1: left in $RUN: $left"
}
started_entries() {
	if [ -f "$RUN/kdamonds.json" ]; then grep -c '"kdamond":' "$RUN/kdamonds.json"; else echo 0; fi
}

fresh() {	# a new tree, no damonc state
	emu_reset
	rm -rf "$RUN"
	: >"$EMU_LOG"
}

# run_killed K WHEN CMD...: run damonc CMD with its K-th write killed (before|after it);
# the kill must have happened. Output in $SYSROOT/killed.{out,err}.
run_killed() {
	local k=$1 when=$2 rc=0
	shift 2
	set_faults "nth=$k kill=$when"
	"$D" "$@" >"$SYSROOT/killed.out" 2>"$SYSROOT/killed.err" || rc=$?
	set_faults ""
	[ "$rc" = 137 ] || { cat "$SYSROOT/killed.err" >&2; fail "$*: write $k not killed (exit $rc)"; }
}

# status runs, and says what is left when the killed command left a journal on a kdamond
check_status() {
	expect_rc 0 "$D" status
	if run_state | grep -q '^journal-' && [ "$(config_dump)" != "$1" ]; then
		grep -q "leftover: 'damonc $2' (pid [0-9]*) was killed" <<<"$OUT" ||
			fail "$2 killed at write $k ($when): status does not name the leftover: $OUT"
	fi
	expect_rc 0 "$D" --json status
	grep -q '"format_version"' <<<"$OUT" || fail "status --json: $OUT"
}

sweep() {	# sweep TOTAL BODY: BODY K WHEN for K in 1..TOTAL, before and after
	local total=$1 body=$2 when
	for ((k = 1; k <= total; k++)); do
		for when in before after; do
			"$body" "$k" "$when"
			kill -0 "$target" 2>/dev/null || fail "$CASE killed at write $k ($when): the target process is gone"
		done
	done
}

case $CASE in
start | start-probe)
	if [ "$CASE" = start ]; then
		prepare() { fresh; foreign_kdamond; }
		args=(start --pid "$target" --action stat --min-size 8KiB --quota-size 1MiB
		      --quota-reset 1s --goal user_input=100)
	else
		prepare() { fresh; }
		# a keyword-only feature nothing shows on a bare tree: probed on a temporary kdamond
		args=(start --pid "$target" --action stat --goal hugepage_mem_bp=500 --no-fallback)
	fi
	prepare
	before=$(config_dump)
	: >"$EMU_LOG"
	rc=0
	"$D" "${args[@]}" >/dev/null 2>"$SYSROOT/err" || rc=$?
	total=$(writes)
	# the next start works, and stop leaves its kdamond stopped and damonc's
	if [ "$rc" = 0 ]; then
		expect_rc 0 "$D" stop
		expect_rc 0 "$D" "${args[@]}"
		grep -q "started kdamond 1 " <<<"$OUT" || fail "the second start did not reuse kdamond 1: $OUT"
		expect_rc 0 "$D" stop
	fi
	prepare
	[ "$total" -ge 3 ] || fail "only $total writes"
	# the probe's start refuses (no hugepage_mem_bp on released kernels) after its writes
	if [ "$CASE" = start ]; then expect=0; else expect=3; fi
	[ "$rc" = "$expect" ] || fail "${args[*]}: exit $rc, expected $expect: $(cat "$SYSROOT/err")"
	# each round leaves the tree as prepare made it (that is what it checks): no reset
	one() {
		local k=$1 when=$2 now
		run_killed "$k" "$when" "${args[@]}"
		check_status "$before" start
		expect_rc 0 "$D" stop
		now=$(config_dump)
		[ "$now" = "$before" ] || {
			diff <(echo "$before") <(echo "$now") >&2 || true
			fail "start killed at write $k of $total ($when): stop did not put the tree back"
		}
		no_leftover_files "start killed at write $k ($when), then stop"
		[ "$(started_entries)" = 0 ] || fail "start killed at write $k ($when): an entry of a kdamond that is gone stays"
	}
	sweep "$total" one
	;;
tune)
	sargs=(start --pid "$target" --action stat --min-size 8KiB --quota-size 1MiB --quota-reset 1s
	       --goal user_input=100 --refresh 0)
	targs=(tune --min-size 16KiB --quota-size 2MiB --goal user_input=200)
	fresh
	expect_rc 0 "$D" "${sargs[@]}"
	expect_rc 0 "$D" stop
	orig=$(config_dump)
	fresh
	expect_rc 0 "$D" "${sargs[@]}"
	: >"$EMU_LOG"
	expect_rc 0 "$D" "${targs[@]}"
	total=$(writes)
	expect_rc 0 "$D" stop
	new=$(config_dump)
	fresh
	# each round starts kdamond 0 again (start reuses it) and stops it: no reset
	one() {
		local k=$1 when=$2 now
		expect_rc 0 "$D" "${sargs[@]}"
		pid=$(sysfs_read "$A/0/pid")
		run_killed "$k" "$when" "${targs[@]}"
		check_status "$orig" tune
		# the next tune undoes the leftover first, then finds its own change to make
		expect_rc 0 "$D" tune --quota-size 3MiB
		[ "$(sysfs_read "$A/0/pid")" = "$pid" ] || fail "tune killed at write $k ($when): the kdamond was restarted or stopped"
		expect_rc 0 "$D" stop
		now=$(config_dump)
		now=${now//quotas\/bytes = 3145728/quotas\/bytes = X}
		if [ "$now" != "${orig//quotas\/bytes = 1048576/quotas\/bytes = X}" ] &&
			[ "$now" != "${new//quotas\/bytes = 2097152/quotas\/bytes = X}" ]; then
			diff <(echo "$orig") <(echo "$now") >&2 || true
			fail "tune killed at write $k of $total ($when): neither undone nor finished"
		fi
		no_leftover_files "tune killed at write $k ($when)"
	}
	sweep "$total" one
	;;
stop)
	fresh
	expect_rc 0 "$D" start --pid "$target" --action stat
	: >"$EMU_LOG"
	expect_rc 0 "$D" stop
	total=$(writes)
	one() {
		local k=$1 when=$2
		expect_rc 0 "$D" start --pid "$target" --action stat
		run_killed "$k" "$when" stop
		expect_rc 0 "$D" status
		expect_rc 0 "$D" stop
		[ "$(kdamond_state 0)" = off ] || fail "stop killed at write $k ($when): kdamond 0 still runs after the next stop"
		no_leftover_files "stop killed at write $k ($when)"
		# still damonc's: the next start reuses it
		expect_rc 0 "$D" start --pid "$target" --action stat
		grep -q "started kdamond 0 " <<<"$OUT" || fail "stop killed at write $k ($when): the next start did not reuse kdamond 0: $OUT"
		expect_rc 0 "$D" stop
	}
	sweep "$total" one
	;;
record)
	sargs=(start --pid "$target" --action pageout --min-size 8KiB --refresh 0)
	rargs=(record --method tried-regions --count 2 --interval 10ms -o "$SYSROOT/rec")
	fresh
	expect_rc 0 "$D" "${sargs[@]}"
	expect_rc 0 "$D" stop
	orig=$(config_dump)
	fresh
	expect_rc 0 "$D" "${sargs[@]}"
	: >"$EMU_LOG"
	expect_rc 0 "$D" "${rargs[@]}"
	total=$(writes)
	expect_rc 0 "$D" stop
	one() {
		local k=$1 when=$2
		expect_rc 0 "$D" "${sargs[@]}"
		run_killed "$k" "$when" "${rargs[@]}"
		expect_rc 0 "$D" status
		if [ -e "$RUN/capture-0.json" ] && grep -q 'scheme 1: stat' <<<"$OUT"; then
			# its journal (killed while staging) or its capture note names it
			grep -qE "leftover: (the capture scheme of )?'damonc record' \(pid [0-9]+\)(, which)? was killed" <<<"$OUT" ||
				fail "record killed at write $k ($when): status does not name the capture scheme: $OUT"
		fi
		# a tune of the kdamond's own scheme works (two schemes would need --scheme)
		expect_rc 0 "$D" tune --min-size 8KiB
		expect_rc 0 "$D" stop
		[ "$(config_dump)" = "$orig" ] || {
			diff <(echo "$orig") <(config_dump) >&2 || true
			fail "record killed at write $k of $total ($when): the capture scheme stays"
		}
		no_leftover_files "record killed at write $k ($when)"
	}
	sweep "$total" one
	;;
agent)
	# the agent's own writes, at every round: killed at each of its first ones
	emu_reset
	if [ "$PROFILE" = 6.12 ]; then
		sargs=(start --action collapse --pid "$target")
	else
		sargs=(start --action collapse --pid "$target" --goal-bp 10000 --goal-scope pid)
	fi
	total=8
	proc_gone() { ! kill -0 "$1" 2>/dev/null; }
	fresh
	one() {
		local k=$1 when=$2 pid
		: >"$EMU_LOG"
		expect_rc 0 "$D" "${sargs[@]}"
		# from here on, the writes counted are the agent's
		set_faults "nth=$k kill=$when"
		wait_until 60 grep -qE ' killed( |$)' "$EMU_LOG"
		set_faults ""
		pid=$(agent_pid)
		[ -z "$pid" ] || fair_wait 10000 proc_gone "$pid" ||
			fail "agent killed at its write $k ($when): still runs"
		expect_rc 0 "$D" status
		grep -q "served in user space by nobody: the damonc agent is not running" <<<"$OUT" ||
			fail "agent killed at its write $k ($when): status does not say so: $OUT"
		expect_rc 0 "$D" stop
		no_leftover_files "agent killed at its write $k ($when)"
		assert_nothing_left off
	}
	sweep "$total" one
	;;
*)
	fail "unknown case $CASE"
	;;
esac
echo "ok: $CASE killed at each of its $total writes, before and after, on $PROFILE"
