#!/bin/sh
# hugepage-goal: a huge-page budget (`damonc start --action collapse --goal-bp N
# --goal-scope pid`) holds within 10% of the goal on a process that is not kind to it: a
# 128 MiB hot buffer and a 64 MiB cold one written once before the start, adjacent (one
# mapping: a region of DAMON's can hold both hot and cold pages).
#   7.2 and newer: the kernel collapses exactly the hot huge pages the agent allows it (addr
#     filters); hugepage_mem_bp (queued for 7.4) is fed as a user_input goal.
#   6.2 to 7.1: the agent collapses them itself with process_madvise.
#   older: no tried_regions, no budget: skipped.
# Phases, each with its figures as DATA lines:
#   band    goal 2000 bp: time to within 10%, the ratio held for HOLD s (min, max), the cold
#           buffer's huge pages (none), the agent's CPU time while it holds;
#   tune    tune --goal-bp 3000 online: within 10% of it, held;
#   two     two processes, a budget each: tune --goal-bp moves both (and both fed goals);
#   later   start without a goal (nothing can collapse yet: --min-age 120s), then
#           tune --goal-bp 2000 --min-age 2s: the order a user takes; within 10%, held;
#   phase   the hot set moves (hotcold's SIGUSR2): the budget stays spent in memory gone cold,
#           which report hugepage shows (bytes, how long idle); tune --goal-bp 3000 then
#           collapses the newly hot buffer only.
# In the band phase, `damonc metrics` between two `damonc --json status` (DATA m0, m1, m2),
# which the host checks (tests/vm/check-metrics).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

HOLD=${HOLD:-20}

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# Sampling every 50 ms (aggregating every 1 s), as the collapse scenario does: DAMON's
# intervals run on wall-clock time, and a TCG guest's hot loop needs longer than 5 ms a pass.
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start() { # pid, goal in bp (0: none), extra options...
	_p=$1 _g=$2
	shift 2
	if [ "$_g" = 0 ]; then
		damonc start --pid "$_p" --action collapse --sample 50ms --aggr 1s "$@"
	else
		damonc start --pid "$_p" --action collapse --sample 50ms --aggr 1s --min-age 2s \
			--goal-bp "$_g" --goal-scope pid "$@"
	fi
}
# shellcheck disable=SC2317
dc_tune() { damonc tune "$@"; }
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# shellcheck disable=SC2317
dc_status() { damonc status; }
# shellcheck disable=SC2317
dc_report() { damonc report hugepage --pid "$1"; }
# shellcheck disable=SC2317
dc_report_khp() { damonc report hugepage --khugepaged-trace 2s; }
# shellcheck disable=SC2317
dc_status_json() { damonc --json status; }
# shellcheck disable=SC2317
dc_metrics() { damonc metrics; }
dc_agent_pid() { cat /run/damonc/agent.pid 2>/dev/null; }
# The figures, for people (a comment) and for the host's benchmarks (a DATA line).
figures() {
	note "figures: $*"
	data "$*"
}
dc_agent_log() { cat /run/damonc/agent.log 2>/dev/null; }
# -------------------------------------------------------------------------------------------

require_damonc_command agent
[ "$(kver)" -ge 6002 ] || skip_scenario "$(uname -r) has no tried_regions: no collapse budget"

# (AnonHugePages + ShmemPmdMapped + FilePmdMapped) / Rss in bp, as a pid-scope goal measures.
proc_bp() {
	awk '/^Rss:/ { rss = $2 } /^(AnonHugePages|ShmemPmdMapped|FilePmdMapped):/ { h += $2 }
		END { if (rss) printf "%d\n", h * 10000 / rss; else print 10000 }' "/proc/$1/smaps_rollup"
}
huge_kb() { awk '/^AnonHugePages:/ { print $2 }' "/proc/$1/smaps_rollup"; }
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_ms() { # pid: utime + stime in ms (USER_HZ 100)
	awk '{ sub(/.*\) /, ""); split($0, f, " "); print (f[12] + f[13]) * 10 }' "/proc/$1/stat"
}
# Wait (up to 300 s: TCG is slow, and MADV_COLLAPSE copies memory) until the process is within
# 10% of goal $1; sets T_GOAL (ms from $T0) and BP.
wait_band() {
	_lo=$(($1 * 9 / 10))
	_t=0
	BP=$(proc_bp "$HC_PID")
	while [ "$BP" -lt "$_lo" ] && [ $_t -lt 300 ]; do
		sleep 1
		_t=$((_t + 1))
		BP=$(proc_bp "$HC_PID")
	done
	T_GOAL=$(($(ms) - T0))
	check "within 10% of $1 bp: $BP bp after $T_GOAL ms" test "$BP" -ge "$_lo"
}
# Once it has settled, sample the ratio every 2 s for HOLD s: it stays within 10% of goal $1
# and nothing more becomes huge (no collapse once met, no oscillation). Sets LO, HI.
hold_band() {
	_lo=$(($1 * 9 / 10)) _hi=$(($1 * 11 / 10))
	# the band is entered on the way to the nearest page: settled is when the agent's
	# latest word is "goal met" for this goal (at most 120 s, a busy TCG guest is slow)
	_pct=$(printf '%d.%02d%%' $(($1 / 100)) $(($1 % 100)))
	_t=0
	while [ $_t -lt 120 ] && ! dc_agent_log | grep -E "goal met|may collapse|below goal|collapsed" |
		tail -n 1 | grep -q "goal met (.*goal $_pct"; do
		sleep 2
		_t=$((_t + 2))
	done
	# and the kernel may still be collapsing what the last step allowed: then nothing
	# changed for 4 s (for at most 60 s)
	_t=0 _h0=$(huge_kb "$HC_PID")
	while [ $_t -lt 60 ]; do
		sleep 4
		_t=$((_t + 4))
		_h=$(huge_kb "$HC_PID")
		[ "$_h" = "$_h0" ] && break
		_h0=$_h
	done
	LO=$(proc_bp "$HC_PID") HI=$LO
	_t=0
	while [ $_t -lt "$HOLD" ]; do
		sleep 2
		_t=$((_t + 2))
		_b=$(proc_bp "$HC_PID")
		[ "$_b" -lt "$LO" ] && LO=$_b
		[ "$_b" -gt "$HI" ] && HI=$_b
	done
	_h1=$(huge_kb "$HC_PID")
	check "held within 10% of $1 bp for $HOLD s ($LO..$HI bp)" \
		sh -c "[ $LO -ge $_lo ] && [ $HI -le $_hi ]"
	check "nothing more became huge while it held ($_h0 kB, then $_h1 kB)" test "$_h1" = "$_h0"
}

# --- band: goal 2000 bp --------------------------------------------------------------------
start_hotcold --hot 128M --cold 64M --adjacent || finish
T0=$(ms)
expect_rc 0 "damonc start --action collapse --goal-bp 2000 --goal-scope pid" \
	dc_start "$HC_PID" 2000
check "start says what the agent serves" grep -q "served in user space by the damonc agent" /tmp/out
agent=$(dc_agent_pid)
check "the agent runs (pid ${agent:-none})" test -n "$agent"
wait_band 2000
t_band=$T_GOAL
cpu0=$(cpu_ms "$agent") held0=$(ms)
hold_band 2000
cpu1=$(cpu_ms "$agent") held=$(($(ms) - held0))
hc_huge
check "the cold buffer stayed small ($BUF_B kB huge; hot $BUF_A kB)" test "$BUF_B" -le 2048
figures "band kernel=$(uname -r) goal_bp=2000 time_to_band_ms=$t_band min_bp=$LO max_bp=$HI" \
	"hot_kb=$BUF_A cold_kb=$BUF_B agent_cpu_ms_per_min_held=$(((cpu1 - cpu0) * 60000 / held))"
expect_rc 0 "damonc status" dc_status
check "status names the agent" grep -q "served in user space by the damonc agent" /tmp/out
check "status shows the hot memory" grep -q "hot memory: " /tmp/out
expect_rc 0 "damonc report hugepage" dc_report "$HC_PID"
if [ "$(kver)" -ge 7002 ]; then
	check "report says the kernel collapses within the agent's budget" \
		grep -q "collapse, applied by the kernel within a budget in huge pages kept by the damonc" /tmp/out
else
	check "report says the agent collapses" grep -q "collapse, served by the damonc agent" /tmp/out
fi

check "report says who made the huge pages" grep -q "huge pages made since boot: " /tmp/out
if [ -e /sys/kernel/tracing/events/huge_memory/mm_khugepaged_scan_pmd ]; then
	expect_rc 0 "damonc report hugepage --khugepaged-trace 2s" dc_report_khp
	check "report counts khugepaged's scans" grep -q "khugepaged's scans in 2 s: " /tmp/out
else
	expect_rc 2 "damonc report hugepage --khugepaged-trace 2s (no such event here)" dc_report_khp
fi
# damonc metrics on this kernel, between two status --json: the host checks them
# (tests/vm/check-metrics: promtool check metrics, the values against status --json).
if damonc metrics --help >/dev/null 2>&1; then
	dc_status_json >/tmp/m0 && dc_metrics >/tmp/m1 && dc_status_json >/tmp/m2
	check "damonc metrics, between two damonc --json status" test $? = 0
	for f in m0 m1 m2; do sed "s/^/DATA $f /" "/tmp/$f" >>"$VM_OUT"; done
fi

# --- tune: goal 3000 bp online -------------------------------------------------------------
T0=$(ms)
expect_rc 0 "damonc tune --goal-bp 3000" dc_tune --goal-bp 3000
wait_band 3000
hold_band 3000
hc_huge
check "the cold buffer stayed small after tune ($BUF_B kB huge)" test "$BUF_B" -le 2048
figures "tune kernel=$(uname -r) goal_bp=3000 time_to_band_ms=$T_GOAL min_bp=$LO max_bp=$HI" \
	"hot_kb=$BUF_A cold_kb=$BUF_B"
dc_agent_log | sed 's/^/# agent: /' >>"$VM_OUT"
expect_rc 0 "damonc stop" dc_stop
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null

# --- two: a goal over two processes, moved online --------------------------------------------
# Each target has its own collapse budget (a per-target copy of the scheme); tune --goal-bp
# must move every one (and, where the kernel tunes to a user_input goal the agent feeds, each
# copy's goal), not only the first target's.
_a=$(spawn_sleeper) _b=$(spawn_sleeper)
expect_rc 0 "damonc start --action collapse --pid A --pid B --goal-bp 3000" \
	damonc start --action collapse --pid "$_a" --pid "$_b" --sample 50ms --aggr 1s \
	--goal-bp 3000 --goal-scope pid
expect_rc 0 "damonc tune --goal-bp 800 (two targets)" dc_tune --goal-bp 800
check "tune moved both targets' budgets" test "$(grep -c 'collapse goal 800 bp' /tmp/out)" = 2
check "no goal of tune's aims at 3000 any more" sh -c '! grep -q "goal 3000 bp" /tmp/out'
_ui=0
for _g in "$ADMIN"/kdamonds/*/contexts/0/schemes/*/quotas/goals/*; do
	[ "$(cat "$_g/target_metric" 2>/dev/null)" = user_input ] || continue
	_ui=$((_ui + 1))
	check "the kernel's user_input goal ${_g#"$ADMIN"/} aims at 800" \
		test "$(cat "$_g/target_value")" = 800
done
note "user_input goals the agent feeds here: $_ui"
expect_rc 0 "damonc stop" dc_stop
kill "$_a" "$_b"

# --- later: start without a goal, then tune one in ------------------------------------------
start_hotcold --hot 128M --cold 64M --adjacent || finish
expect_rc 0 "damonc start --action collapse (no goal, min age 120 s)" \
	dc_start "$HC_PID" 0 --min-age 120s
T0=$(ms)
expect_rc 0 "then damonc tune --goal-bp 2000 --goal-scope pid --min-age 2s" \
	dc_tune --goal-bp 2000 --goal-scope pid --min-age 2s
check "tune brings the agent in" test -n "$(dc_agent_pid)"
wait_band 2000
hold_band 2000
figures "later kernel=$(uname -r) goal_bp=2000 time_to_band_ms=$T_GOAL min_bp=$LO max_bp=$HI"
expect_rc 0 "damonc stop" dc_stop
kill "$HC_PID"
wait "$HC_PID" 2>/dev/null

# --- phase: the hot set moves ---------------------------------------------------------------
start_hotcold --hot 64M --cold 64M || finish
T0=$(ms)
expect_rc 0 "damonc start --action collapse --goal-bp 2000 (64 + 64 MiB)" dc_start "$HC_PID" 2000
wait_band 2000
sleep 3
hc_huge
a_before=$BUF_A
kill -USR2 "$HC_PID"
note "the buffers swapped roles: the first one is cold now"
# the first buffer's regions age as cold; the budget is spent there: report says so
_t=0
while [ $_t -lt 120 ]; do
	damonc report hugepage --pid "$HC_PID" >/tmp/rep 2>&1
	grep -q "huge pages gone cold: [0-9.]* MiB in regions not accessed for up to" /tmp/rep && break
	sleep 2
	_t=$((_t + 2))
done
sed 's/^/#   report: /' /tmp/rep >>"$VM_OUT"
check "report hugepage shows the huge pages gone cold" \
	grep -q "huge pages gone cold: [0-9.]* MiB in regions not accessed for up to" /tmp/rep
T0=$(ms)
expect_rc 0 "damonc tune --goal-bp 3000 after the phase change" dc_tune --goal-bp 3000
wait_band 3000
sleep 3
hc_huge
check "the new collapses went to the newly hot buffer ($BUF_B kB huge)" test "$BUF_B" -ge 8192
check "the buffer gone cold got no more ($a_before kB, then $BUF_A kB)" test "$BUF_A" -le "$a_before"
figures "phase kernel=$(uname -r) cold_kb=$BUF_A new_hot_kb=$BUF_B time_to_band_ms=$T_GOAL"
dc_agent_log | sed 's/^/# agent: /' >>"$VM_OUT"

# The target exits: the kdamond stops by itself, the agent ends and leaves nothing.
agent=$(dc_agent_pid)
kill "$HC_PID"
t=0
while [ -n "$agent" ] && [ -e "/proc/$agent" ] && [ $t -lt 30 ]; do
	sleep 1
	t=$((t + 1))
done
check "the agent exited after its target did (${t}s)" test ! -e "/proc/$agent"
check "no pid or stats file is left" sh -c '! ls /run/damonc/agent.pid /run/damonc/agent-*.json 2>/dev/null'
check "no kdamond runs" sh -c '! grep -qx on '"$ADMIN"'/kdamonds/*/state'
finish
