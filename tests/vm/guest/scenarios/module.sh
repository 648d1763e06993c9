#!/bin/sh
# module: `damonc module` on a real kernel's DAMON_RECLAIM (built into Debian's kernels):
# the list and the parameters as the kernel shows them; set with units, --dry-run writing
# nothing, a bad value or a result refused (exit 2, nothing written); enable and disable with
# the module's kdamond coming and going; and the exclusion the kernel enforces between a
# module and a kdamond of the sysfs interface, both ways: `module enable` refuses (exit 4)
# while a sysfs kdamond runs, with --force too (6.1 takes the write and turns it back later:
# damonc reads it back), and `damonc start` refuses (exit 4, naming the module, the DAMON
# tree as before) while the module runs.
# shellcheck source=tests/vm/guest/lib.sh disable=SC1091 # lib.sh comes with branch vm
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_list() { damonc --json=pretty module; }
# shellcheck disable=SC2317
dc_show() { damonc --json=pretty module reclaim; }
# shellcheck disable=SC2317
dc_set_dry() { damonc module reclaim set min_age=7s quota_sz=64MiB --dry-run; }
# shellcheck disable=SC2317
dc_set() { damonc module reclaim set min_age=7s quota_sz=64MiB wmarks_high=60%; }
# shellcheck disable=SC2317
dc_set_bad() { damonc module reclaim set min_age=7s quota_sz=soon; }
# shellcheck disable=SC2317
dc_set_result() { damonc module reclaim set nr_reclaimed_regions=1; }
# shellcheck disable=SC2317
dc_enable() { damonc module reclaim enable; }
# shellcheck disable=SC2317
dc_enable_force() { damonc module reclaim enable --force; }
# shellcheck disable=SC2317
dc_disable() { damonc module reclaim disable; }
# shellcheck disable=SC2317
dc_set_live() { damonc module reclaim set min_age=9s; }
# shellcheck disable=SC2317
dc_start() { damonc start --pid "$SL" --action stat; }
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# shellcheck disable=SC2317
dc_status() { damonc status; }
# -------------------------------------------------------------------------------------------

require_damonc_command module
P=/sys/module/damon_reclaim/parameters
[ -d "$P" ] || skip_scenario "no damon_reclaim in $(uname -r)"
damon_stat_set N
params() { for f in min_age quota_sz wmarks_high enabled; do printf '%s=%s ' "$f" "$(cat "$P/$f")"; done; }

expect_rc 0 "list the modules" dc_list
check "damon_reclaim is listed, disabled" \
	grep -q '"name": "damon_reclaim"' /tmp/out
check "the list says damon_reclaim is not enabled" \
	sh -c "tr -d '\n ' </tmp/out | grep -q '\"name\":\"damon_reclaim\",\"present\":true,\"enabled\":false'"
expect_rc 0 "show damon_reclaim's parameters" dc_show
check "min_age as the kernel shows it ($(cat "$P/min_age"))" \
	grep -q "\"min_age\": $(cat "$P/min_age")," /tmp/out

before=$(params)
expect_rc 0 "set --dry-run" dc_set_dry
check "--dry-run prints the writes" grep -q "min_age <= 7000000" /tmp/out
check "--dry-run writes nothing ($before)" test "$(params)" = "$before"
expect_rc 2 "a bad value" dc_set_bad
check "a bad value writes nothing, not even the good one before it" test "$(params)" = "$before"
expect_rc 2 "a result is not a parameter to set" dc_set_result
expect_rc 0 "set with units" dc_set
check "min_age=7s quota_sz=64MiB wmarks_high=60% as the kernel's units ($(params))" \
	test "$(cat "$P/min_age") $(cat "$P/quota_sz") $(cat "$P/wmarks_high")" = "7000000 67108864 600"

# a sysfs kdamond runs: the module cannot be enabled, and damonc says so before writing
SL=$(spawn_sleeper)
expect_rc 0 "start a kdamond of the sysfs interface" dc_start
expect_rc 4 "enable damon_reclaim while a sysfs kdamond runs" dc_enable
check "the refused enable wrote nothing" test "$(cat "$P/enabled")" = N
# --force writes: 6.1 takes the write and turns enabled back from its work item, later kernels
# refuse it with EBUSY; either way damonc says the module did not start (exit 4)
expect_rc 4 "enable --force while a sysfs kdamond runs" dc_enable_force
check "enable --force: the module is not enabled ($(cat "$P/enabled"), kdamond_pid $(cat "$P/kdamond_pid"))" \
	test "$(cat "$P/enabled")" = N
expect_rc 0 "stop the sysfs kdamond" dc_stop

# enabled: the module's kdamond runs, and a sysfs kdamond cannot start
expect_rc 0 "enable damon_reclaim" dc_enable
check "enabled reads Y" test "$(cat "$P/enabled")" = Y
kpid=$(cat "$P/kdamond_pid")
check "enable waited for the module's kdamond and names it ($kpid)" \
	grep -q "damon_reclaim runs: its kdamond's pid is $kpid" /tmp/out
data "RECLAIM_KDAMOND_PID $kpid"
check "the module's kdamond runs (pid $kpid)" test -d "/proc/$kpid"
expect_rc 0 "status while the module runs" dc_status
check "status says damon_reclaim holds DAMON" \
	grep -q "module damon_reclaim is enabled (its kdamond: pid $kpid): it holds DAMON exclusively" /tmp/out
expect_rc 0 "list the modules while it runs" dc_list
check "the list gives its kdamond's pid" grep -q "\"kdamond_pid\": $kpid" /tmp/out
expect_rc 0 "set a parameter of the running module" dc_set_live
check "min_age=9s is written and committed ($(cat "$P/min_age"))" test "$(cat "$P/min_age")" = 9000000
snapshot_tree before-start
expect_rc 4 "start while damon_reclaim holds DAMON" dc_start
check "start names the module" grep -q "damon_reclaim" /tmp/err
check_tree_unchanged before-start "the refused start left the DAMON tree as it was"
expect_rc 0 "disable damon_reclaim" dc_disable
check "enabled reads N" test "$(cat "$P/enabled")" = N
check "disable waited for the module's kdamond to stop" test "$(cat "$P/kdamond_pid")" = -1
expect_rc 0 "a sysfs kdamond starts again" dc_start
expect_rc 0 "and stops" dc_stop
kill "$SL" 2>/dev/null
finish
