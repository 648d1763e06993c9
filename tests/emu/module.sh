#!/bin/bash
# damonc module on the emulator's module directory ($SYSROOT/sys/module, damon-emu --modules):
# list, show (text, --json), set with units, enable/disable and commit_inputs, --dry-run
# writing nothing, bad input exiting 2 with nothing written, and the refusal to enable a
# module while a kdamond of the sysfs interface (or another module) holds DAMON. Every
# damonc runs with --sysroot: the namespace of tests/ns-run does not protect /sys/module.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
case $SYSROOT in
/tmp/* | "${TMPDIR:-/tmp}"/*) ;;
*) fail "the sysroot '$SYSROOT' is not a temporary directory" ;;
esac
M() { "$D" --sysroot "$SYSROOT" module "$@"; }
R=$EMU_MODULES/damon_reclaim/parameters
L=$EMU_MODULES/damon_lru_sort/parameters

# damon_reclaim's parameters as a 7.2 kernel has them, with their defaults (docs/damon-abi.md
# section 7), damon_stat's results, and a kdamond_pid of -1 while off
while read -r p v; do echo "$v" >"$R/$p"; done <<'EOF'
enabled N
commit_inputs N
min_age 120000000
quota_ms 10
quota_sz 134217728
quota_reset_interval_ms 1000
quota_mem_pressure_us 0
quota_autotune_feedback 0
wmarks_interval 5000000
wmarks_high 500
wmarks_mid 400
wmarks_low 200
sample_interval 5000
aggr_interval 100000
min_nr_regions 10
max_nr_regions 1000
monitor_region_start 0
monitor_region_end 0
skip_anon N
addr_unit 1
autotune_monitoring_intervals N
kdamond_pid -1
nr_reclaim_tried_regions 0
bytes_reclaim_tried_regions 0
nr_reclaimed_regions 0
bytes_reclaimed_regions 0
nr_quota_exceeds 0
EOF
chmod 0444 "$R/kdamond_pid" "$R"/nr_* "$R"/bytes_*
echo 0 >"$L/quota_ms"
S=$EMU_MODULES/damon_stat/parameters
if [ -d "$S" ]; then
	echo 0 >"$S/estimated_memory_bandwidth"
	echo "0,1,2" >"$S/memory_idle_ms_percentiles"
fi
snap() { grep -r . "$EMU_MODULES" | sort; }

# the list: every module, enabled or not
expect_rc 0 M
grep -Eq '^damon_reclaim +disabled +-$' <<<"$OUT" || fail "list: $OUT"
grep -Eq '^damon_lru_sort +disabled' <<<"$OUT" || fail "list: $OUT"
expect_rc 0 M --json
[ "$(json_get '[m["name"] for m in j["modules"] if m["present"]][:2]')" = \
	"['damon_reclaim', 'damon_lru_sort']" ] || fail "list --json: $OUT"
[ "$(json_get 'j["modules"][0]["enabled"]')" = False ] || fail "list --json enabled: $OUT"

# one module: aligned text, JSON with numbers as numbers and Y/N as booleans
expect_rc 0 M reclaim
grep -q '^damon_reclaim: disabled$' <<<"$OUT" || fail "show: $OUT"
grep -Eq '^  min_age +120000000  \(2 min\)$' <<<"$OUT" || fail "show: $OUT"
grep -Eq '^  quota_sz +134217728  \(128 MiB\)$' <<<"$OUT" || fail "show: $OUT"
[ "$(awk 'NR > 1 { match($0, /^  [a-z_]+ +/); print RLENGTH }' <<<"$OUT" | sort -u | wc -l)" = 1 ] ||
	fail "show: the values are not aligned: $OUT"
grep -Eq '^  kdamond_pid +-1  \(read-only\)$' <<<"$OUT" || fail "show read-only: $OUT"
expect_rc 0 M damon_reclaim --json
[ "$(json_get 'j["parameters"]["min_age"]')" = 120000000 ] || fail "show --json: $OUT"
[ "$(json_get 'j["parameters"]["kdamond_pid"]')" = -1 ] || fail "show --json pid: $OUT"
[ "$(json_get 'j["parameters"]["skip_anon"]')" = False ] || fail "show --json bool: $OUT"
[ "$(json_get 'j["enabled"]')" = False ] || fail "show --json enabled: $OUT"

# --dry-run: the writes said, none made
before=$(snap)
expect_rc 0 M reclaim set min_age=5s quota_sz=1GiB --dry-run
grep -q "would write sys/module/damon_reclaim/parameters/quota_sz <= 1073741824" <<<"$OUT" ||
	fail "dry run: $OUT"
expect_rc 0 M --dry-run --json reclaim enable
[ "$(json_get 'j["dry_run"], j["writes"]')" = \
	"(True, [{'parameter': 'enabled', 'value': 'Y'}])" ] || fail "dry run --json: $OUT"
[ "$(snap)" = "$before" ] || fail "a dry run wrote"

# bad input: exit 2, the value named, nothing written
expect_rc 2 M bogus
grep -q "unknown module 'bogus'" <<<"$ERR" || fail "unknown module: $ERR"
expect_rc 2 M reclaim set min_age=5s bogus_param=1
grep -q "no parameter 'bogus_param'" <<<"$ERR" || fail "unknown parameter: $ERR"
expect_rc 2 M reclaim set quota_ms=20ms min_age=soon
grep -q "min_age=soon" <<<"$ERR" || fail "bad value: $ERR"
expect_rc 2 M reclaim set quota_ms=1500us
grep -q "quota_ms=1500us" <<<"$ERR" || fail "not a whole ms: $ERR"
expect_rc 2 M reclaim set kdamond_pid=1
grep -q "not a setting" <<<"$ERR" || fail "read-only: $ERR"
expect_rc 2 M reclaim set enabled=Y
grep -q "enable" <<<"$ERR" || fail "enabled through set: $ERR"
expect_rc 2 M reclaim set quota_ms
expect_rc 2 M reclaim frobnicate
mv "$EMU_MODULES/damon_lru_sort" "$SYSROOT/run/lru_sort.away"
expect_rc 2 M lru_sort
grep -q "lacks the module" <<<"$ERR" || fail "absent module: $ERR"
expect_rc 0 M --json
[ "$(json_get '[m["present"] for m in j["modules"]][1]')" = False ] || fail "absent: $OUT"
mv "$SYSROOT/run/lru_sort.away" "$EMU_MODULES/damon_lru_sort"
[ "$(snap)" = "$before" ] || fail "bad input wrote"

# set with units, on a disabled module: no commit_inputs
expect_rc 0 M reclaim set min_age=5s quota_sz=1GiB quota_ms=20ms wmarks_high=60% skip_anon=yes \
	monitor_region_end=0x100000
[ "$(cat "$R/min_age") $(cat "$R/quota_sz") $(cat "$R/quota_ms") $(cat "$R/wmarks_high")" = \
	"5000000 1073741824 20 600" ] || fail "set with units: $(grep -r . "$R")"
[ "$(cat "$R/skip_anon") $(cat "$R/monitor_region_end")" = "Y 1048576" ] ||
	fail "set bool, hex: $(grep -r . "$R")"
[ "$(cat "$R/commit_inputs")" = N ] || fail "commit_inputs written for a disabled module"

# enable, then set on the enabled module: commit_inputs=Y after the values
expect_rc 0 M reclaim enable
[ "$(cat "$R/enabled")" = Y ] || fail "enable"
# enable waits for the module's kdamond and names it
kpid=$(cat "$R/kdamond_pid")
if [ "$kpid" -le 0 ] || ! grep -q "damon_reclaim runs: its kdamond's pid is $kpid" <<<"$OUT"; then
	fail "enable does not name the module's kdamond: $OUT ($kpid)"
fi
# status says that the module holds DAMON, and how to free it
expect_rc 0 "$D" --sysroot "$SYSROOT" status
grep -q "module damon_reclaim is enabled (its kdamond: pid $kpid): it holds DAMON exclusively, so no kdamond of the sysfs interface can start ('damonc module reclaim disable' frees it)" <<<"$OUT" ||
	fail "status does not name the module holding DAMON: $OUT"
expect_rc 0 "$D" --sysroot "$SYSROOT" --json status
[ "$(json_get '[(m["name"], m["kdamond_pid"]) for m in j["modules_enabled"]]')" = "[('damon_reclaim', $kpid)]" ] ||
	fail "status --json modules_enabled: $OUT"
expect_rc 0 M reclaim set aggr_interval=200ms
grep -q "parameters/aggr_interval <= 200000" <<<"$OUT" || fail "set output: $OUT"
[ "$(tail -n 1 <<<"$OUT")" = "write sys/module/damon_reclaim/parameters/commit_inputs <= Y" ] ||
	fail "no commit_inputs after a set of an enabled module: $OUT"
[ "$(cat "$R/aggr_interval") $(cat "$R/commit_inputs")" = "200000 Y" ] || fail "commit"
expect_rc 0 M
grep -Eq '^damon_reclaim +enabled' <<<"$OUT" || fail "list enabled: $OUT"
# a module holds DAMON: enabling another is refused
echo N >"$R/commit_inputs"
before=$(snap)
expect_rc 4 M lru_sort enable
grep -q "damon_reclaim is enabled and holds DAMON" <<<"$ERR" || fail "module conflict: $ERR"
[ "$(snap)" = "$before" ] || fail "the refused enable wrote"
expect_rc 0 M reclaim disable
[ "$(cat "$R/enabled") $(cat "$R/commit_inputs")" = "N N" ] || fail "disable"
expect_rc 0 "$D" --sysroot "$SYSROOT" --json status
[ "$(json_get 'j["modules_enabled"]')" = "[]" ] || fail "status --json after disable: $OUT"

# a kdamond of the sysfs interface runs: enable is refused (exit 4) unless --force
expect_rc 0 "$D" --sysroot "$SYSROOT" start --pid "$target" --action stat
expect_rc 0 M
grep -q "kdamond 0 of the sysfs interface is running" <<<"$OUT" || fail "list kdamond: $OUT"
expect_rc 0 M --json
[ "$(json_get 'j["running_kdamonds"][0]["index"]')" = 0 ] || fail "list kdamond json: $OUT"
before=$(snap)
expect_rc 4 M reclaim enable
grep -q "exclude each other, and kdamond 0" <<<"$ERR" || fail "kdamond conflict: $ERR"
grep -q -- "--force" <<<"$ERR" || fail "kdamond conflict hint: $ERR"
[ "$(snap)" = "$before" ] || fail "the refused enable wrote"
# --force writes; the module's work then finds DAMON held and turns enabled back (as Linux
# 6.1 does; later kernels refuse the write): damonc reads it back and says so (exit 4)
expect_rc 4 M reclaim enable --force
grep -q "the kernel turned damon_reclaim back off: it could not start DAMON while something else holds it" <<<"$ERR" ||
	fail "enable --force, turned back: $ERR"
[ "$(cat "$R/enabled") $(cat "$R/kdamond_pid")" = "N -1" ] || fail "enable --force: $(grep -r . "$R")"
expect_rc 0 "$D" --sysroot "$SYSROOT" stop
echo "ok: damonc module on profile $PROFILE"
