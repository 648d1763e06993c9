#!/bin/bash
# budget-phases.sh CASE PROFILE: a huge-page budget in the orders and on the workloads users
# have, one CASE a test (each a few waits that fit meson's timeout):
#   later  `start --action collapse` without a goal, then `tune --goal-bp 2000`: the agent
#          comes in with tune (7.2: the kernel's collapse scheme gets its budget; 6.12: the
#          agent's collapse gets a goal) and the process settles within 10% of the goal; its
#          hot and cold buffers are adjacent (one mapping, both written before the start)
#          and the cold one gets no huge page;
#   phase  the hot set moves (hotcold's SIGUSR2 swaps its buffers): the budget stays spent in
#          memory gone cold, which status and report hugepage show (bytes, how long idle);
#          `tune --goal-bp 3000` then collapses the newly hot buffer only;
#   two    one goal over two processes (a budget per target): together they settle within
#          10% of it, not each.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
CASE=${1:?case: later, phase or two}
PROFILE=${2:?profile}
case $CASE in
later | phase | two) ;;
*) echo "budget-phases.sh: unknown case '$CASE' (later, phase, two)" >&2; exit 2 ;;
esac
emu_with_scenario "$PROFILE"

# step WHAT: where the case is, with the time, so a log cut short by a timeout still says it
step() { echo "[$(date +%T)] $CASE: $*"; }

# hc_huge: the huge kB of the buffers first printed as hot (BUF_A) and cold (BUF_B), as
# hotcold reports them on SIGUSR1
hc_huge() {
	local n l i
	n=$(grep -c '^huge ' "$SYSROOT/hotcold.out" || true)
	kill -USR1 "$HC_PID"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c '^huge ' "$SYSROOT/hotcold.out" || true)" != "$n" ] && break
		sleep 0.1
	done
	l=$(grep '^huge ' "$SYSROOT/hotcold.out" | tail -n 1)
	BUF_A=${l#* hot=}
	BUF_A=${BUF_A%% *}
	BUF_B=${l#* cold=}
	BUF_B=${BUF_B%% *}
}
in_band() { # goal: the process within 10% of it
	local bp
	bp=$(proc_bp "$HC_PID")
	[ "$bp" -ge $(($1 * 9 / 10)) ] && [ "$bp" -le $(($1 * 11 / 10)) ]
}
stable() { # goal: in the band, and no more huge pages 3 s later
	local h
	h=$(proc_huge_kb "$HC_PID")
	sleep 3
	in_band "$1" && [ "$(proc_huge_kb "$HC_PID")" = "$h" ]
}

# gone_cold: report hugepage tells huge pages in memory gone cold
gone_cold() {
	expect_rc 0 "$D" report hugepage --pid "$HC_PID"
	grep -qE "huge pages gone cold: [0-9.]+ MiB in regions not accessed for up to" <<<"$OUT"
}
# both_bp, both_in_band, both_stable: in_band and stable over the two processes of `two`
both_bp() {
	awk '/^Rss:/ { rss += $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { printf "%d\n", h * 10000 / rss }' "/proc/$first/smaps_rollup" \
		"/proc/$second/smaps_rollup"
}
both_in_band() { local b; b=$(both_bp); [ "$b" -ge 1800 ] && [ "$b" -le 2200 ]; }
both_stable() {
	local b
	b=$(both_bp)
	sleep 3
	both_in_band && [ "$(both_bp)" = "$b" ]
}

# stop_all PID...: damonc stop, the agent gone with it, the workloads ended
stop_all() {
	expect_rc 0 "$D" stop
	wait_agent_gone 10
	kill "$@"
	wait "$@" 2>/dev/null || true
}

# no goal at start (nothing is old enough to collapse), then one tuned in
later() {
	start_hotcold --hot 64M --cold 64M --adjacent
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --min-age 60s
	expect_rc 0 "$D" tune --goal-bp 2000 --goal-scope pid --min-age 1s
	wait_until 10 test -n "$(agent_pid)"
	step "goal tuned in, waiting for 2000 bp"
	wait_until 60 in_band 2000
	step "in band at $(proc_bp "$HC_PID") bp, waiting for it to hold"
	wait_until 30 stable 2000
	hc_huge
	[ "$BUF_B" -le 2048 ] || fail "later: the cold buffer has $BUF_B kB of huge pages"
	echo "later: $(proc_bp "$HC_PID") bp for a 2000 bp goal tuned in; hot $BUF_A kB, cold $BUF_B kB huge"
	stop_all "$HC_PID"
}

# the hot set moves
phase() {
	start_hotcold --hot 64M --cold 64M
	expect_rc 0 "$D" start --action collapse --pid "$HC_PID" --goal-bp 2000 --goal-scope pid
	step "started with the goal, waiting for 2000 bp"
	wait_until 60 in_band 2000
	step "in band at $(proc_bp "$HC_PID") bp, waiting for it to hold"
	wait_until 30 stable 2000
	hc_huge
	a_before=$BUF_A
	[ "$BUF_B" = 0 ] || fail "phase: the cold buffer has $BUF_B kB of huge pages before the change"
	kill -USR2 "$HC_PID"
	wait_until 10 grep -q '^switched' "$SYSROOT/hotcold.out"
	step "hot set moved, waiting for report hugepage to see huge pages gone cold"
	wait_until 60 gone_cold
	grep -E "huge pages gone cold" <<<"$OUT"
	expect_rc 0 "$D" --json status
	cold=$(json_get 'j["kdamonds"][0]["agent"]["hot"]["cold_huge_bytes"]')
	[ "$cold" -ge $((a_before * 1024 / 2)) ] ||
		fail "status --json: $cold bytes gone cold, the first buffer has $a_before kB huge"
	expect_rc 0 "$D" tune --goal-bp 3000
	step "tuned to 3000 bp, waiting for it"
	wait_until 60 in_band 3000
	step "in band at $(proc_bp "$HC_PID") bp, waiting for it to hold"
	wait_until 30 stable 3000
	hc_huge
	[ "$BUF_B" -ge 8192 ] || fail "phase: the newly hot buffer got $BUF_B kB of huge pages"
	[ "$BUF_A" -le "$a_before" ] || fail "phase: the buffer gone cold went from $a_before to $BUF_A kB"
	echo "phase: gone cold $((cold >> 20)) MiB; after tune --goal-bp 3000: $(proc_bp "$HC_PID") bp," \
		"new hot buffer $BUF_B kB huge, old $BUF_A kB"
	stop_all "$HC_PID"
}

# one goal over two processes
two() {
	start_hotcold --hot 32M --cold 32M
	first=$HC_PID
	start_hotcold --hot 32M --cold 32M
	second=$HC_PID
	expect_rc 0 "$D" start --action collapse --pid "$first" --pid "$second" --goal-bp 2000 \
		--goal-scope pid
	step "started with the goal over both, waiting for 2000 bp"
	wait_until 60 both_in_band
	step "in band at $(both_bp) bp, waiting for it to hold"
	wait_until 30 both_stable
	echo "two: $(both_bp) bp over both for a 2000 bp goal ($(proc_huge_kb "$first") and" \
		"$(proc_huge_kb "$second") kB huge)"
	stop_all "$first" "$second"
}

"$CASE"
assert_nothing_left off
echo "ok: $CASE $PROFILE"
