#!/bin/bash
# A journey: a kdamond's targets changed by everyone who changes them, in a person's order:
# started with --follow-children on a process, its child taken in by the agent, a process
# added with `tune --add-target` (a kernel thread refused, as start refuses it), one removed,
# stopped, started again a few times. After each step every command that says what the
# targets are says the same: the kernel's files, `status --json`, `metrics`, and damonc's
# own record (run/damonc/kdamonds.json). A start after `damonc stop` takes damonc's own
# stopped kdamond 0 again, never one more per start/stop cycle (issue 32 item 7).
# On 6.1 (no tried regions: no collapse, no agent's budgets) the kdamond is a stat one.
#   targets.sh PROFILE
set -euo pipefail
# shellcheck source=../emu/common.sh
source "$(dirname "$0")/../emu/common.sh"
PROFILE=${1:?profile}
emu_with_scenario "$PROFILE"
kd=$ADMIN/kdamonds/0/contexts/0
action=collapse
[ "$PROFILE" != 6.1 ] || action=stat

mkfifo "$SYSROOT/go"
# the parent forks one child when told, and outlives it (as tests/emu/agent-follow.sh)
# shellcheck disable=SC2016 # expanded by the inner bash
bash -c 'exec 3<>"$1"; read -r _ <&3; sleep 300 & echo $! >"$2"; wait; read -r _ <&3' _ \
	"$SYSROOT/go" "$SYSROOT/child.pid" >/dev/null 2>&1 &
parent=$!
HC_ALL+=("$parent")
sleep 300 &
third=$!
HC_ALL+=("$third")

# agree PID...: the targets of kdamond 0, in order, as the kernel's files, status, metrics
# and damonc's record say them
agree() {
	local want="$*" files="" i n
	n=$(cat "$kd/targets/nr_targets")
	for ((i = 0; i < n; i++)); do
		files+="${files:+ }$(cat "$kd/targets/$i/pid_target")"
	done
	[ "$files" = "$want" ] || fail "the kernel's files have targets '$files', not '$want'"
	expect_rc 0 "$D" --json status
	[ "$(json_get '" ".join(str(t["pid_target"]) for t in j["kdamonds"][0]["contexts"][0]
		["targets"] if not t.get("obsolete_target"))')" = "$want" ] ||
		fail "status --json: targets other than '$want': $OUT"
	expect_rc 0 "$D" metrics
	grep -qx "damonc_context_targets{kdamond=\"0\",context=\"0\"} $#" <<<"$OUT" ||
		fail "metrics: $(grep '^damonc_context_targets' <<<"$OUT"), not $#"
	OUT=$(cat "$SYSROOT/run/damonc/kdamonds.json")
	[ "$(json_get '" ".join(str(p) for p in j["kdamonds"][0]["targets"])')" = "$want" ] ||
		fail "damonc's record: targets other than '$want': $OUT"
}

expect_rc 0 "$D" start --action "$action" --pid "$parent" --follow-children --min-age 100ms
wait_logged 10 "following the targets' children"
agree "$parent"

# the child: a target once the agent sees it fork
echo go >"$SYSROOT/go"
wait_until 10 test -s "$SYSROOT/child.pid"
child=$(cat "$SYSROOT/child.pid")
wait_logged 10 "kdamond 0: pid $child, a child of target $parent, is a target now"
agree "$parent" "$child"

# a kernel thread: tune refuses it as start (and its dry run) does, in the same words
expect_rc 2 "$D" tune --add-target 2
tune_err=$ERR
grep -q "process 2 is a kernel thread" <<<"$tune_err" || fail "tune --add-target 2: $tune_err"
expect_rc 2 "$D" start --dry-run --action stat --pid 2
grep -q "process 2 is a kernel thread" <<<"$ERR" || fail "start --pid 2: $ERR"
agree "$parent" "$child"

# a process added by hand, then the child removed by hand: the agent goes on from there
expect_rc 0 "$D" tune --add-target "$third"
wait_logged 10 "kdamond 0: its targets changed \(damonc tune\)"
agree "$parent" "$child" "$third"
expect_rc 0 "$D" tune --remove-target "$child"
agree "$parent" "$third"
[ "$(kdamond_state 0)" = on ] || fail "kdamond 0 stopped on the way"

# stopped and started again, three times: damonc's own stopped kdamond 0 each time
expect_rc 0 "$D" stop
expect_rc 0 "$D" status
grep -q "stopped with 'damonc stop'" <<<"$OUT" || fail "status after stop: $OUT"
for round in 1 2 3; do
	expect_rc 0 "$D" start --action "$action" --pid "$parent" --min-age 100ms
	grep -q "started kdamond 0 " <<<"$OUT" || fail "start, round $round: $OUT"
	[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 1 ] ||
		fail "round $round: nr_kdamonds $(cat "$ADMIN/kdamonds/nr_kdamonds"): a kdamond added"
	agree "$parent"
	expect_rc 0 "$D" stop
done
echo "ok: targets changed by start, the agent and tune, and started again, agree on $PROFILE"
