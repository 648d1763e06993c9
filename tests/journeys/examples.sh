#!/bin/bash
# A journey: the README's and the man pages' examples, run as written, in the order a person
# reading them would type them. Each is taken from its document (a markdown code block, a
# man page's .EX block: an example changed there is what runs here), and run in a shell where
# `damonc` and `damon-emu` are the ones built. Only what no test can have is filled in, and
# said: the processes the examples name (the workload is a copy of hotcold called mariadbd,
# so that `pidof mariadbd` finds it, and 1234 or 4242 are its pid; a sleeper called mysqld
# for `pgrep -n mysqld`, another for 4321), the README's /tmp/root (a directory of the
# test's), the Prometheus textfile's directory, `pidof` and `pgrep` of those names (this
# test's own: the journey may run on several profiles at once), and waits longer than a test
# may take (`sleep 60`, `--count 360`, `--duration 60s` or `10s`). Commands that run until interrupted
# (--watch without --count, monitor) get SIGTERM after a few seconds, and must have printed
# before.
#   examples.sh PROFILE
set -euo pipefail
# shellcheck source=../emu/common.sh
source "$(dirname "$0")/../emu/common.sh"
PROFILE=${1:?profile}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
emu_with_scenario "$PROFILE"
W=$SYSROOT/work
mkdir -p "$W/bin"
cp "$HOTCOLD" "$W/bin/mariadbd"
cp "$(command -v sleep)" "$W/bin/mysqld"
"$W/bin/mariadbd" --scenario "$SCENARIO" --hot 16M --cold 16M >"$W/mariadbd.out" &
DB=$!
HC_ALL+=("$DB")
"$W/bin/mysqld" 600 &
MY=$!
HC_ALL+=("$MY")
sleep 600 &
OTHER=$!
HC_ALL+=("$OTHER")
wait_until 10 test -s "$W/mariadbd.out"
export PATH=$W/bin:$PATH
cd "$W"
printf '#!/bin/sh\nexit 0\n' >my-benchmark
chmod +x my-benchmark

# damonc and damon-emu as the examples spell them: the ones built; and pidof and pgrep find
# this test's processes only (the journey may run beside itself on other profiles)
damonc() { "$D" "$@"; }
damon-emu() { "$DAMON_EMU" "$@"; }
pidof() { if [ "$*" = mariadbd ]; then echo "$DB"; else command pidof "$@"; fi; }
pgrep() { if [ "$*" = "-n mysqld" ]; then echo "$MY"; else command pgrep "$@"; fi; }

# examples FILE: the shell lines of FILE's examples, one a line (continuations joined): a
# markdown file's ```sh blocks, a man page's .EX blocks (roff escapes undone); prompts and
# what is no command (a shell session's "damonc>" lines, PromQL, an ExecStart=) left out
examples() {
	case $1 in
	*.md) awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' "$1" ;;
	*) awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0 } on' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" ;;
	esac | sed -e :a -e '/\\$/N; s/\\\n *//; ta' | grep -E '^(damonc|mkdir|damon-emu|awk|fusermount3) '
}
# the example of FILE that matches REGEX (grep -E), the first, with what no test can have
# filled in as the head of this file says
example() {
	local line
	line=$(examples "$TOP/$1" | grep -E -m1 -- "$2") || fail "no example in $1 matches '$2'"
	sed -e "s/\\b\\(1234\\|4242\\)\\b/$DB/g" -e "s/\\b4321\\b/$OTHER/g" \
		-e "s|/tmp/root|$W/root|g" -e "s|/var/lib/prometheus/node-exporter|$W|g" \
		-e 's/sleep 60/sleep 1/' -e 's/--count 360/--count 2/' \
		-e 's/--duration [0-9]*0s/--duration 3s/' <<<"$line"
}
# run FILE REGEX [WANT]: that example exits WANT (default 0)
run() {
	local cmd rc=0
	cmd=$(example "$1" "$2")
	echo "\$ $cmd    # $1" >&2
	eval "$cmd" >"$W/out" 2>"$W/err" || rc=$?
	OUT=$(cat "$W/out") ERR=$(cat "$W/err")
	[ "$rc" = "${3:-0}" ] || fail "$1: '$cmd' exited $rc: $OUT $ERR"
}
# the processes under PID, its children first
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
# run_for SECONDS FILE REGEX: an example that runs until interrupted: its damonc gets SIGTERM
# (what reads its output, jq, then sees the end of it and prints what it has)
run_for() {
	local cmd p q
	cmd=$(example "$2" "$3")
	echo "\$ $cmd    # $2, $1 s" >&2
	( eval "$cmd" ) >"$W/out" 2>"$W/err" &
	p=$!
	sleep "$1"
	for q in $(descendants "$p"); do
		[ "$(cat "/proc/$q/comm" 2>/dev/null)" != damonc ] || kill -TERM "$q" 2>/dev/null || true
	done
	if ! fair_wait 10000 sh -c "! kill -0 $p 2>/dev/null"; then
		for q in $(descendants "$p") "$p"; do
			kill -TERM "$q" 2>/dev/null || true
		done
	fi
	wait "$p" 2>/dev/null || true
	OUT=$(cat "$W/out")
	[ -n "$OUT" ] || fail "$2: '$cmd' printed nothing in $1 s: $(cat "$W/err")"
}

# --- README: Using damonc --------------------------------------------------------------------
run README.md '^damonc status'
run README.md '^damonc features'
run README.md '^damonc start --action collapse'
grep -q "started kdamond 0" <<<"$OUT" || fail "README start: $OUT"
run_for 8 README.md '^damonc report hugepage .*--watch'
grep -q "pid $DB: " <<<"$OUT" || fail "README report hugepage: $OUT"
run README.md '^damonc tune --goal-bp'
run README.md '^damonc stop'
grep -q "kdamond 0: stopped" <<<"$OUT" || fail "README stop: $OUT"
run README.md '^damonc record .*report holistic'
run_for 8 README.md '^damonc monitor'

# --- README: try a configuration on the emulator (a fresh tree, no module parameters) --------
# The recipe's own scenario makes the process's memory accessed: the heatmap has hot cells and
# the goal (over the target) is reachable, and met, as the README says. The recipe's damon-emu
# keeps no log of its writes, which the start's check against its dry run reads
# (tests/lib/damonc-checked): not checked here
export DAMONC_START_CHECK=0
run README.md '^mkdir -p /tmp/root'
run README.md '^awk .*/tmp/root/scenario'
grep -q "^pid=$DB addr=0x" "$W/root/scenario" || fail "README scenario: $(cat "$W/root/scenario")"
run README.md '^damon-emu --profile'
wait_until 10 test -e "$W/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
run README.md '^damonc --sysroot /tmp/root start .*--dry-run'
grep -q "dry run: nothing was started" <<<"$OUT" || fail "README emulator dry run: $OUT"
run README.md '^damonc --sysroot /tmp/root record '
run README.md '^damonc report heatmap -i try.rec'
grep -qE '^0x[0-9a-f]+ \|[^|]*[-:=+*#%@][^|]*\|$' <<<"$OUT" ||
	fail "README emulator heatmap: no cell accessed: $OUT"
run README.md '^damonc --sysroot /tmp/root start .*--goal-scope pid$'
grep -q "started kdamond" <<<"$OUT" || fail "README emulator start: $OUT"
readme_goal_met() {
	run README.md '^damonc --sysroot /tmp/root status'
	grep -q "hot memory: " <<<"$OUT" && grep -q "goal 5.00%: met" <<<"$OUT"
}
wait_until 60 readme_goal_met
if grep -q "not reachable" <<<"$OUT"; then fail "README emulator status: $OUT"; fi
run README.md '^damonc --sysroot /tmp/root stop'
grep -q "stopped" <<<"$OUT" || fail "README emulator stop: $OUT"
run README.md '^fusermount3 -u /tmp/root/'
! mountpoint -q "$W/root/sys/kernel/mm/damon/admin" || fail "README: the emulator is still mounted"
unset DAMONC_START_CHECK

# --- damonc(1) and damonc-status(1): a collapse started and looked at ---------------------------
run man/damonc.1.in '^damonc start --action collapse'
run man/damonc-status.1.in '^damonc status$'
run man/damonc-status.1.in '^damonc status --json \| jq'
[ "$OUT" = 0 ] || fail "damonc-status(1): the running kdamond's index: $OUT"
run man/damonc.1.in '^damonc tune --goal-bp 800'
# --- damonc-report-hugepage(1), damonc-metrics(1) ------------------------------------------------
run man/damonc-report-hugepage.1.in '^damonc report hugepage .*--regions'
run_for 8 man/damonc-report-hugepage.1.in '^damonc report hugepage --watch 5s --json'
grep -qE '^[0-9]+$' <<<"$OUT" || fail "damonc-report-hugepage(1): jq printed $OUT"
run man/damonc-report-hugepage.1.in '^damonc report hugepage .*-o hugepages.svg'
grep -q "<svg" hugepages.svg || fail "damonc-report-hugepage(1): no SVG"
run man/damonc-metrics.1.in '^damonc metrics \| grep'
run man/damonc-metrics.1.in '^damonc metrics --refresh -o'
grep -q "^damonc_kdamond_running" "$W/damonc.prom" ||
	fail "damonc-metrics(1): $(cat "$W/damonc.prom")"
run man/damonc-metrics.1.in '^damonc --json metrics \| jq'
run man/damonc.1.in '^damonc stop'

# --- damonc-start(1) and damonc-tune(1) -----------------------------------------------------------
run man/damonc-start.1.in '^damonc start --action collapse'
"$D" stop >/dev/null
run man/damonc-start.1.in '^damonc start --action pageout'
"$D" stop >/dev/null
run man/damonc-start.1.in '^damonc start --dry-run --json'
run man/damonc-start.1.in '^damonc start -c config.json'
"$D" stop >/dev/null
run man/damonc-start.1.in '^damonc start --action stat -- ./my-benchmark'
# two schemes, then tuned one by one
run man/damonc-start.1.in '^damonc start --pid 1234 --action collapse .*--action pageout'
run man/damonc-tune.1.in '^damonc tune --scheme 1 '
run man/damonc-tune.1.in '^damonc tune --add-scheme'
if emu_profile_since "$PROFILE" 7.2; then
	run man/damonc-tune.1.in '^damonc tune --remove-scheme 1'
else
	# no collapse action: the agent reads the regions of a stat scheme after these, by index
	run man/damonc-tune.1.in '^damonc tune --remove-scheme 1' 3
	grep -q "through the regions of scheme 2" <<<"$ERR" || fail "--remove-scheme 1: $ERR"
fi
if emu_profile_since "$PROFILE" 7.2; then
	run man/damonc-tune.1.in '^damonc tune --pause'
else
	# --pause is refused, and --resume (the line's status) finds nothing paused
	run man/damonc-tune.1.in '^damonc tune --pause'
	grep -q "pause needs pausing a context" <<<"$ERR" || fail "--pause before 7.2: $ERR"
fi
"$D" stop >/dev/null
# targets: the example's 4321 is a target of its kdamond, mysqld joins
"$D" start --pid "$DB" --pid "$OTHER" --action stat >/dev/null
run man/damonc-tune.1.in '^damonc tune --add-target'
grep -q "commit" <<<"$OUT" || fail "damonc-tune(1) --add-target: $OUT"
"$D" stop >/dev/null
run man/damonc-tune.1.in '^damonc start --action collapse --pid 1234 && damonc tune'
"$D" stop >/dev/null
echo "ok: the README's and the man pages' examples ran as written on $PROFILE"
