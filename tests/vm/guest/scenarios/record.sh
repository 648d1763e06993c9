#!/bin/sh
# record: `damonc record` then `damonc report` on a real kernel, through the damon_aggregated
# trace event (reads only: the DAMON tree must not change) and through tried_regions.
# hotcold touches its hot buffer all the time and its cold one once: the hottest region of
# 1 MiB or more (its stack page is as hot) must lie in the hot buffer, no region of the cold
# buffer may be hot, and the median working set (regions accessed at all in an aggregation)
# must be about the hot buffer. A recording killed with SIGKILL must stay readable, and a
# clean one must leave the kdamond's schemes as they were, and hold a memory footprint (the
# target's RSS covers what hotcold wrote) with each snapshot. record --pid and record --
# COMMAND start a kdamond of their own and remove it (the tree as before). Kernels before 6.2 have no
# tried_regions: record must say so (exit 3) when no trace event stands in.
# shellcheck source=tests/vm/guest/lib.sh disable=SC1091 # lib.sh comes with branch vm
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_start() { damonc start --pid "$HC_PID" --action stat --access-rate 0%,0% --sample 5ms \
	--aggr 100ms --nr-regions 10,200; }
# shellcheck disable=SC2317
dc_record() { damonc record --method tried-regions -o /tmp/rec --duration 8s --interval 500ms; }
# shellcheck disable=SC2317
# the binary ring buffer's reader, without its fallback to the text, which may hide it failing
dc_record_trace() { DAMONC_TRACE_READER=raw damonc record --method trace -o /tmp/rect \
	--kdamond "$1" --duration 6s --interval 200ms; }
# shellcheck disable=SC2317
dc_record_trace_text() { DAMONC_TRACE_READER=text damonc record --method trace -o /tmp/rectt \
	--kdamond "$1" --duration 3s --interval 200ms; }
# shellcheck disable=SC2317
dc_trace() { damonc --json trace --kdamond "$1" --count 40 -o /tmp/trace.txt >/tmp/trace.jsonl; }
# shellcheck disable=SC2317
dc_trace_saved() { damonc --json trace -i /tmp/trace.txt >/tmp/trace-saved.jsonl; }
# shellcheck disable=SC2317
dc_hottest_trace() { damonc --json=pretty report access -i /tmp/rect --sort hot --top 1 --size 1MiB,; }
# shellcheck disable=SC2317
dc_hottest() { damonc --json=pretty report access -i /tmp/rec --sort hot --top 1 --size 1MiB,; }
# shellcheck disable=SC2317
dc_cold_hot() { damonc --json=pretty report access -i /tmp/rec --address-range "$COLD" \
	--access-rate 50%,; }
# shellcheck disable=SC2317
dc_wss() { damonc --json=pretty report wss -i /tmp/rec --time-range 4s,; }
# shellcheck disable=SC2317
dc_footprints() { damonc --json=pretty report footprints -i /tmp/rec --percentiles 0; }
# shellcheck disable=SC2317
dc_heatmap() { damonc report heatmap -i /tmp/rec --bins 40x10; }
# shellcheck disable=SC2317
dc_schemes_count() { damonc --json=pretty status | grep -c '"action"'; }
# shellcheck disable=SC2317
dc_report_cut() { damonc --json=pretty report wss -i /tmp/k9; }
# run in the background only: exec, so that $! is damonc's own pid (kill -9 reaches it)
dc_record_k9() { exec damonc record --method tried-regions -o /tmp/k9 --interval 200ms; }
# shellcheck disable=SC2317
dc_stop() { damonc stop; }
# shellcheck disable=SC2317
dc_record_pid() { damonc record --pid "$HC_PID" --sample 5ms --aggr 100ms --count 3 \
	--interval 500ms -o /tmp/rpid; }
# shellcheck disable=SC2317
dc_record_cmd() { damonc record --sample 5ms --aggr 100ms --interval 300ms -o /tmp/rcmd -- \
	sh -c 'sleep 3; exit 5'; }
# shellcheck disable=SC2317
dc_monitor() { damonc --json monitor --pid "$HC_PID" --sample 5ms --aggr 100ms --delay 3s \
	--count 2 --report wss; }
# shellcheck disable=SC2317
dc_info() { damonc --json=pretty report info -i "$1"; }
# shellcheck disable=SC2317
dc_record_unit() { damonc record --ops paddr --addr-unit 4096 --sample 5ms --aggr 100ms \
	--count 2 --interval 300ms -o /tmp/runit; }
# shellcheck disable=SC2317
dc_record_node() { damonc record --numa-node 0 --sample 5ms --aggr 100ms --count 2 \
	--interval 300ms -o /tmp/rnode; }
# shellcheck disable=SC2317
dc_pa_layout() { damonc --json=pretty report pa-layout --node 0; }
# shellcheck disable=SC2317
dc_diagnose() { damonc --json=pretty diagnose; }
# shellcheck disable=SC2317
dc_snap_filter() { damonc report access --snapshot-damos-filter "$1" --count 2 --interval 500ms \
	--raw-number --format-snapshot-head '<filters passed type>' \
	--format '<size> <filters passed bytes>'; }
# shellcheck disable=SC2317
dc_of_scheme() { damonc report access --tried-regions-of 0 --count 2 --interval 500ms \
	--raw-number --format-record-head 'scheme <scheme index>' --format '<nr_accesses>'; }
# shellcheck disable=SC2317
dc_record_short() { damonc record --method tried-regions -o /tmp/rec2 --count 2 \
	--interval 200ms; }
# -------------------------------------------------------------------------------------------

require_damonc_command record
damon_stat_set N
start_hotcold --hot 32M --cold 32M || finish
# Under TCG, QEMU's software TLB keeps serving translations whose accessed bit DAMON cleared,
# so hotcold can go unseen for a while (a real CPU's small TLB empties by itself), and how
# often it passes over its buffer depends on the emulation's speed: the checks below ask
# where the access is, not how much of it there is.
expect_rc 0 "start a kdamond on hotcold" dc_start
expect_rc 0 "diagnose: nothing wrong with a healthy kdamond" dc_diagnose
check "diagnose counts it running" grep -q '"running": 1' /tmp/out

# the index of the kdamond that runs (the one dc_start started)
running_kdamond() {
	for d in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
		if [ "$(cat "$d/state" 2>/dev/null)" = on ]; then
			basename "$d"
			break
		fi
	done
}
num() { sed -n "s/.*\"$1\": \\([0-9]*\\).*/\\1/p" /tmp/out | head -n1; }
hex() { printf '%d' "$1"; }
hs=$(hex "${HOT%-*}") he=$(hex "${HOT#*-}")
# shellcheck disable=SC2317 # called through expect_rc
in_hot() { # start end: at least 90% of [start, end) is in the hot buffer
	_lo=$(($1 > hs ? $1 : hs)) _hi=$(($2 < he ? $2 : he))
	[ $((_hi - _lo)) -ge $((($2 - $1) * 9 / 10)) ]
}

# The trace event, on a kdamond damonc does not know it started: no write to DAMON at all.
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
if [ -d /sys/kernel/tracing/events/damon/damon_aggregated ]; then
	kd=$(running_kdamond)
	mv /run/damonc/kdamonds.json /tmp/kdamonds.json
	quiet_tree() { dump_tree "$ADMIN" | grep -v -e /stats/ -e effective_bytes -e /tried_regions/; }
	quiet_tree >/tmp/tree.trace-before
	for attempt in 1 2 3 4; do
		expect_rc 0 "record through the trace event (attempt $attempt)" dc_record_trace "$kd"
		expect_rc 0 "the hottest region of the trace record" dc_hottest_trace
		[ "$(num access_rate_bp)" -gt 0 ] 2>/dev/null && break
		note "the kernel saw no access to the buffers during attempt $attempt (TCG): again"
	done
	start=$(num start) end=$(num end)
	data "HOTTEST_TRACE $start $end $(num access_rate_bp)"
	check "trace: the hottest region [$start, $end) is at least 90% in the hot buffer" \
		in_hot "${start:-0}" "${end:-0}"
	expect_rc 0 "record through the trace event, read as trace_pipe's text" \
		dc_record_trace_text "$kd"
	expect_rc 0 "report info of the text reader's record" dc_info /tmp/rectt
	check "trace (text): $(num snapshots) snapshots" test "$(num snapshots)" -gt 0 2>/dev/null
	# damonc trace: the kdamond's own events, live, then read back from the saved lines
	kpid=$(cat "$ADMIN/kdamonds/$kd/pid")
	expect_rc 0 "damonc trace: 40 events of kdamond $kd" dc_trace "$kd"
	check "damonc trace: $(wc -l </tmp/trace.jsonl) events, 40 asked for" \
		test "$(wc -l </tmp/trace.jsonl)" -eq 40
	check "damonc trace: every event is kdamond $kd's (pid $kpid)" \
		test -z "$(grep -v "\"pid\":$kpid," /tmp/trace.jsonl)"
	# shellcheck disable=SC2016 # awk's own variables
	check "damonc trace: damon_aggregated regions, each START < END" awk -v n=0 '
		/"event":"damon_aggregated"/ {
			match($0, /"start":[0-9]+/); s = substr($0, RSTART + 8, RLENGTH - 8) + 0
			match($0, /"end":[0-9]+/); e = substr($0, RSTART + 6, RLENGTH - 6) + 0
			if (s >= e) exit 1; n++ }
		END { exit n == 0 }' /tmp/trace.jsonl
	data "TRACE_EVENTS $(sed 's/.*"event":"\([a-z_]*\)".*/\1/' /tmp/trace.jsonl | sort | uniq -c | tr -s ' \n' ' ')"
	expect_rc 0 "damonc trace -i: the saved lines" dc_trace_saved
	check "damonc trace -i: the saved lines give the live events" \
		cmp -s /tmp/trace.jsonl /tmp/trace-saved.jsonl
	quiet_tree >/tmp/tree.trace-after
	check "trace: the DAMON tree did not change" cmp -s /tmp/tree.trace-before /tmp/tree.trace-after
	check "trace: the tracing instance is gone" test -z "$(ls /sys/kernel/tracing/instances)"
	mv /tmp/kdamonds.json /run/damonc/kdamonds.json
else
	note "no damon_aggregated trace event on $(uname -r): trace capture not tried"
fi

if [ "$(kver)" -lt 6002 ]; then
	expect_rc 3 "record on $(uname -r): no tried_regions before 6.2" dc_record
	finish
fi

schemes_before=$(dc_schemes_count)
# A record in which the kernel saw no access to the buffers (TCG, above) says nothing about
# where the hot memory is: record again (at most four times), visibly.
for attempt in 1 2 3 4; do
	expect_rc 0 "record 8 s of hotcold (attempt $attempt)" dc_record
	expect_rc 0 "the hottest region" dc_hottest
	[ "$(num access_rate_bp)" -gt 0 ] 2>/dev/null && break
	note "the kernel saw no access to the buffers during attempt $attempt (TCG): again"
done
schemes_after=$(dc_schemes_count)
check "the capture scheme is gone ($schemes_before schemes before, $schemes_after after)" \
	test "$schemes_before" = "$schemes_after"

start=$(num start) end=$(num end) rate=$(num access_rate_bp)
data "HOTTEST $start $end $rate"
# a real kernel's region boundaries are pages, not the buffer's: they may run a few pages
# into the guard area or the other buffer
check "the hottest region [$start, $end) is at least 90% in the hot buffer [$hs, $he)" \
	in_hot "${start:-0}" "${end:-0}"
check "the hottest region is accessed ($rate bp of the samples)" test "${rate:-0}" -gt 0

expect_rc 0 "hot regions in the cold buffer" dc_cold_hot
cold_hot=$(num shown_bytes)
check "at most 2 MiB of the cold buffer is in hot regions (${cold_hot:-?} bytes: boundaries)" \
	test -n "$cold_hot" -a "${cold_hot:-0}" -le 2097152

expect_rc 0 "working set size (any access) over the second half" dc_wss
p50=$(sed -n '/"percentile": 50/,/wss/s/.*"wss": \([0-9]*\).*/\1/p' /tmp/out | head -n1)
hot=$((he - hs))
data "WSS_P50 $p50 HOT $hot"
check "median working set $p50 is about the hot buffer ($hot)" \
	test -n "$p50" -a "$p50" -ge $((hot / 2)) -a "$p50" -le $((hot * 3 / 2))

expect_rc 0 "report info of the record" dc_info /tmp/rec
rec_snaps=$(num snapshots)
expect_rc 0 "memory footprints of the record" dc_footprints
samples=$(num samples)
rss_min=$(sed -n '/"metric": "rss"/,/"min"/s/.*"min": \([0-9]*\).*/\1/p' /tmp/out | head -n1)
data "FOOTPRINTS $samples RSS_MIN $rss_min"
# (how many a busy TCG guest takes in 8 s varies: one with each, and more than one)
check "a footprint with each snapshot ($samples footprints, ${rec_snaps:-?} snapshots)" \
	test "${samples:-0}" -ge 2 -a "${samples:-0}" = "${rec_snaps:-x}"
check "hotcold's RSS (${rss_min:-?} at least) holds the 64 MiB it wrote" \
	test "${rss_min:-0}" -ge 67108864
# its share of a CPU (its hot loop runs all the time), its mappings as /proc lists them now,
# and the kdamond's share (a kernel thread's /proc/PID/stat)
cpu_max=$(sed -n '/"metric": "cpu_bp"/,/"max"/s/.*"max": \([0-9]*\).*/\1/p' /tmp/out | head -n1)
vmas=$(sed -n '/"metric": "vmas"/,/"max"/s/.*"max": \([0-9]*\).*/\1/p' /tmp/out | head -n1)
kd_samples=$(sed -n '/"metric": "kdamond_cpu_bp"/,/"samples"/s/.*"samples": \([0-9]*\).*/\1/p' /tmp/out | head -n1)
n_maps=$(wc -l <"/proc/$HC_PID/maps")
data "FOOTPRINT_CPU_MAX_BP ${cpu_max:-none} VMAS ${vmas:-none} MAPS $n_maps KDAMOND_CPU_SAMPLES ${kd_samples:-none}"
# (one thread: at most a CPU, give or take the clock ticks the kernel counts it in; a TCG
# guest on a busy host was seen at 11199 bp, a tick or two over 500 ms)
check "hotcold's share of a CPU is recorded (${cpu_max:-none} bp at most)" \
	test "${cpu_max:-0}" -gt 0 -a "${cpu_max:-0}" -le 15000
check "its mappings are recorded (${vmas:-none}; /proc lists $n_maps)" test "${vmas:-0}" = "$n_maps"
check "the kdamond's CPU share is recorded (${kd_samples:-none} samples: each footprint's but the first)" \
	test "${kd_samples:-0}" = $((${samples:-0} - 1))

expect_rc 0 "a text heatmap" dc_heatmap

# snapshots through DAMOS filters (damo's --snapshot_damos_filter), 6.18 on (vaddr's stat
# action had no filters before): hotcold's 64 MiB of buffers are anonymous and wholly
# written, its program is static (little file-backed memory), so allow:anon passes about its
# anonymous RSS and reject:anon little. (Not region by region: the kernel counts a huge
# folio once, in the first region it meets, whole; and the first snapshot after the scheme
# is installed may have tried part of the regions: the last of two is reported.)
# passed: the regions' filter-passed bytes, after the first line (the filters' words)
passed() { awk 'NR > 1 { f += $2 } END { print f + 0 }' /tmp/out; }
rss_kb() { awk -v k="$1:" '$1 == k { print $2 + 0 }' "/proc/$HC_PID/status"; }
if [ "$(kver)" -ge 6018 ]; then
	expect_rc 0 "report access through allow:anon" dc_snap_filter allow:anon
	check "the filters are named: $(head -n 1 /tmp/out)" test "$(head -n 1 /tmp/out)" = "allow anon"
	allow=$(passed) anon=$(($(rss_kb RssAnon) * 1024)) file=$(($(rss_kb RssFile) * 1024))
	expect_rc 0 "report access through reject:anon" dc_snap_filter reject:anon
	check "the filters are named: $(head -n 1 /tmp/out)" test "$(head -n 1 /tmp/out)" = "reject anon"
	reject=$(passed)
	data "SNAP_FILTER allow_anon=$allow reject_anon=$reject rss_anon=$anon rss_file=$file"
	check "allow:anon passed at least 90% of the 64 MiB buffers ($allow)" \
		test "$allow" -ge $((64 * 1048576 * 9 / 10))
	check "allow:anon passed about the anonymous RSS ($allow, RssAnon $anon)" \
		test "$allow" -le $((anon + 8 * 1048576))
	check "reject:anon passed at most the file-backed RSS and 8 MiB ($reject, RssFile $file)" \
		test "$reject" -le $((file + 8 * 1048576))
	check "the snapshot filters left the kdamond's schemes ($(dc_schemes_count), $schemes_before before)" \
		test "$(dc_schemes_count)" = "$schemes_before"
else
	expect_rc 3 "--snapshot-damos-filter on $(uname -r): vaddr's stat filters came in 6.18" \
		dc_snap_filter allow:anon
fi
# damo's --tried_regions_of: the regions dc_start's own scheme (stat, access rate 0%) tried,
# with no capture scheme of ours: each of them unaccessed
expect_rc 0 "report access --tried-regions-of 0" dc_of_scheme
check "the regions are scheme 0's: $(head -n 1 /tmp/out)" test "$(head -n 1 /tmp/out)" = "scheme 0"
data "OF_SCHEME_REGIONS $(($(wc -l </tmp/out) - 1))"
check "scheme 0 tried regions (hotcold's cold buffer is never accessed)" \
	test "$(wc -l </tmp/out)" -ge 2
# shellcheck disable=SC2016 # awk's own fields
check "every region scheme 0 tried is unaccessed, as its pattern asks" \
	awk 'NR > 1 && $1 != 0 { exit 1 }' /tmp/out
check "--tried-regions-of installed nothing ($(dc_schemes_count), $schemes_before before)" \
	test "$(dc_schemes_count)" = "$schemes_before"

# kill -9 in the middle: whatever was written is readable
dc_record_k9 >/dev/null 2>&1 &
rec=$!
# killed once it has written two snapshots (a busy TCG guest takes a few seconds or many)
t=0
while [ $t -lt 120 ]; do
	sleep 1
	t=$((t + 1))
	dc_info /tmp/k9 >/tmp/k9.info 2>/dev/null || continue
	[ "$(sed -n 's/.*"snapshots": \([0-9]*\).*/\1/p' /tmp/k9.info | head -n1)" -ge 2 ] 2>/dev/null &&
		break
done
kill -9 "$rec"
wait "$rec" 2>/dev/null
expect_rc 0 "a report on the record killed with SIGKILL" dc_report_cut
snaps=$(num snapshots)
check "the killed record has snapshots ($snaps)" test "${snaps:-0}" -ge 2
check "the killed record is reported incomplete" grep -q '"complete": false' /tmp/out
# its capture scheme is still there; the next record removes it, saying so
schemes_k9=$(dc_schemes_count)
check "the killed record left its capture scheme ($schemes_k9 schemes, $schemes_before before)" \
	test "$schemes_k9" -gt "$schemes_before"
expect_rc 0 "a record after the killed one" dc_record_short
check "it says it removed the killed record's capture scheme" \
	grep -q "removed the capture scheme that record (pid $rec) left installed" /tmp/err
schemes_after=$(dc_schemes_count)
check "the kdamond has its own schemes only ($schemes_after, $schemes_before before)" \
	test "$schemes_after" = "$schemes_before"
check "no capture note is left" test ! -e /run/damonc/capture-"$(running_kdamond)".json

# record starting its own kdamond: for --pid, and for a command it launches, then removing it
expect_rc 0 "stop the kdamond" dc_stop
# the configuration: a kdamond started again has fresh stats
config_tree() { dump_tree "$ADMIN" | grep -v -e /stats/ -e effective_bytes -e /tried_regions/; }
# config_as_before WHAT: the configuration is as it was before the records
config_as_before() {
	config_tree >/tmp/config.now
	check "$1 removed its kdamond: the configuration is as before" \
		cmp -s /tmp/config.before /tmp/config.now
}
config_tree >/tmp/config.before
expect_rc 0 "record --pid: a kdamond of its own, three snapshots" dc_record_pid
check "record --pid says it recorded 3 snapshots" grep -q "3 snapshots of kdamond" /tmp/err
config_as_before "record --pid"
expect_rc 0 "report info of record --pid" dc_info /tmp/rpid
check "the record holds 3 snapshots" grep -q '"snapshots": 3,' /tmp/out
expect_rc 0 "record -- COMMAND: recorded until it exits" dc_record_cmd
check "record says how the command ended" grep -q "the command exited with status 5" /tmp/err
config_as_before "record -- COMMAND"
expect_rc 0 "report info of record -- COMMAND" dc_info /tmp/rcmd
n=$(sed -n 's/^  "snapshots": \([0-9]*\),$/\1/p' /tmp/out)
data "RECORD_CMD_SNAPSHOTS $n"
check "the command's record has snapshots ($n)" test "${n:-0}" -ge 2
# monitor: record and report in a loop on a kdamond of its own, removed at the end
expect_rc 0 "monitor --pid: two rounds of wss" dc_monitor
check "monitor printed two rounds" test "$(grep -c '"round":' /tmp/out)" -eq 2
check "monitor's rounds saw snapshots" test "$(grep -c '"snapshots":[1-9]' /tmp/out)" -eq 2
data "MONITOR_WSS_P50 $(sed -n 's/.*"percentile":50\(\.0\)*,"wss":\([0-9]*\).*/\2/p' /tmp/out | tr '\n' ' ')"
config_as_before "monitor --pid"

# the System RAM of /proc/iomem: its biggest range ($ram) and all of it ($ram_all)
ram=0 ram_all=0
sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM$/\1 \2/p' /proc/iomem >/tmp/ram
while read -r lo hi; do
	sz=$((0x$hi - 0x$lo + 1))
	ram_all=$((ram_all + sz))
	[ "$sz" -gt "$ram" ] && ram=$sz
done </tmp/ram
total_max() { sed -n '/"total_bytes"/,/"max"/s/.*"max": \([0-9]*\).*/\1/p' /tmp/out | head -n1; }

# the physical address layout and --numa-node on the kernel's memory blocks: the guest has
# one node, whose System RAM is all of it (more than the biggest range start takes)
expect_rc 0 "the physical address layout of node 0" dc_pa_layout
check "report pa-layout gives node 0 System RAM" grep -q '"resource": "System RAM"' /tmp/out
expect_rc 0 "record --numa-node 0" dc_record_node
config_as_before "record --numa-node"
expect_rc 0 "report info of the --numa-node record" dc_info /tmp/rnode
mon=$(total_max)
data "NUMA_NODE0_MONITORED ${mon:-none} RAM_ALL $ram_all BIGGEST $ram"
check "--numa-node 0 monitored the guest's System RAM (${mon:-none}; all $ram_all, biggest range $ram)" \
	test "${mon:-0}" -gt "$ram" -a "${mon:-0}" -le "$ram_all"

# --addr-unit (6.18): DAMON counts paddr addresses in pages; the record holds bytes, so it
# monitored about the biggest System RAM range, not 1/4096 of it
if [ "$(kver)" -ge 6018 ]; then
	expect_rc 0 "record --ops paddr --addr-unit 4096" dc_record_unit
	config_as_before "record --addr-unit"
	expect_rc 0 "report info of the --addr-unit record" dc_info /tmp/runit
	mon=$(total_max)
	data "ADDR_UNIT_MONITORED ${mon:-none} RAM $ram"
	check "the --addr-unit record monitored the System RAM in bytes (${mon:-none} of $ram)" \
		test "${mon:-0}" -ge $((ram / 2)) -a "${mon:-0}" -le "$ram"
else
	expect_rc 3 "--addr-unit on $(uname -r): no addr_unit before 6.18" dc_record_unit
	config_as_before "a refused --addr-unit"
fi
finish
