#!/bin/bash
# The record reports read ./damonc.rec (what 'damonc record' writes by default) when no -i
# and no live capture option is given, as perf report reads perf.data; without it they say
# what to do. A live option still means a live capture (here: a sysroot without DAMON,
# so the capture fails, and nothing of the host is touched).
#   default-record.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$(realpath "$1") gen=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-defrec.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty" "$work/here"
d() { "$damonc" --sysroot "$work/empty" "$@"; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cd "$work/here"
for r in wss schemes heatmap info nr-regions; do
	rc=0
	err=$(d report $r 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || bad "report $r without damonc.rec exited $rc, expected 2"
	[[ $err == *"no damonc.rec here: read a record with -i FILE"* ]] ||
		bad "report $r without damonc.rec says: $err"
done

"$gen" --snapshots 5 --regions 20 >damonc.rec
for r in access heatmap wss schemes info nr-regions; do
	want=$(d --json report $r -i damonc.rec)
	got=$(d --json report $r) || bad "report $r did not read damonc.rec"
	[ "$got" = "$want" ] || bad "report $r without -i differs from -i damonc.rec"
done
# a live option means live
rc=0
err=$(d report wss --duration 1s 2>&1 >/dev/null) || rc=$?
[ "$rc" != 0 ] || bad "report wss --duration 1s read damonc.rec"
[[ $err == *"DAMON sysfs"* ]] || bad "report wss --duration 1s: $err"
[ $fail = 0 ] && echo "ok: the reports read ./damonc.rec by default"
exit $fail
