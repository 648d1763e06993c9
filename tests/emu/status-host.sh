#!/bin/bash
# damonc status against the host's own, real DAMON tree (read-only here): what it shows
# equals the files, and it opens nothing under /sys/kernel/mm/damon for writing (strace of
# damonc itself, DAMONC_REAL, when $D is the JSON-checking wrapper).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
admin=/sys/kernel/mm/damon/admin
[ -r "$admin/kdamonds/nr_kdamonds" ] || { echo "SKIP: no DAMON sysfs on this host"; exit 77; }
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
unset DAMONC_SYSROOT

trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
rc=0
# LeakSanitizer cannot stop the world under ptrace: no leak check in the traced run
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=open,openat,openat2,creat,truncate -o "$trace" \
	"${DAMONC_REAL:-$D}" status --json >"$trace.out" || rc=$?
[ $rc = 0 ] || fail "damonc status exited $rc"
OUT=$(cat "$trace.out")
rm -f "$trace.out"
# The tree is read with openat() relative to the admin directory, so no path filter:
# status must not open anything at all for writing.
if grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|truncate\(' "$trace"; then
	fail "damonc status opened files for writing"
fi
grep -q '"/sys/kernel/mm/damon/admin", O_RDONLY' "$trace" || fail "strace saw no admin dir"
# at least nr_kdamonds, and more than ten files per kdamond the host has (a host may have none)
n=$(cat "$admin/kdamonds/nr_kdamonds")
reads=$(grep -cE 'openat\([0-9]+, "[^/]' "$trace" || true)
[ "$reads" -ge $((1 + 10 * n)) ] || fail "strace saw $reads DAMON reads for $n kdamonds"

flat=$(json_flatten)
# jv PATH: the value at PATH, written as python indexes: ['kdamonds'][0]['pid']
jv() { awk -v p="$1" '$1 == p { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }' <<<"$flat"; }
[ "$(json_get 'len(j["kdamonds"])')" = "$n" ] || fail "kdamond count"
for ((k = 0; k < n; k++)); do
	kd=$admin/kdamonds/$k
	[ "$(jv "['kdamonds'][$k]['state']")" = "$(sysfs_read "$kd/state")" ] || fail "state $k"
	[ "$(jv "['kdamonds'][$k]['pid']")" = "$(sysfs_read "$kd/pid")" ] || fail "pid $k"
	[ -d "$kd/contexts/0" ] || continue
	c=$kd/contexts/0
	[ "$(jv "['kdamonds'][$k]['contexts'][0]['operations']")" = "$(cat "$c/operations")" ] ||
		fail "operations $k"
	for f in sample_us aggr_us update_us; do
		[ "$(jv "['kdamonds'][$k]['contexts'][0]['monitoring_attrs']['intervals']['$f']")" \
			= "$(cat "$c/monitoring_attrs/intervals/$f")" ] || fail "$f of kdamond $k"
	done
	for ((s = 0; s < $(cat "$c/schemes/nr_schemes"); s++)); do
		sd=$c/schemes/$s
		js="['kdamonds'][$k]['contexts'][0]['schemes'][$s]"
		[ "$(jv "${js}['action']")" = "$(cat "$sd/action")" ] || fail "action $k/$s"
		for f in sz nr_accesses age; do
			for m in min max; do
				[ "$(jv "${js}['access_pattern']['$f']['$m']")" = \
					"$(cat "$sd/access_pattern/$f/$m")" ] || fail "$f/$m of $k/$s"
			done
		done
		for f in ms bytes reset_interval_ms; do
			[ "$(jv "${js}['quotas']['$f']")" = "$(cat "$sd/quotas/$f")" ] ||
				fail "quotas/$f of $k/$s"
		done
		for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
			# stats move only on command or refresh_ms; read both within a short while
			[ -n "$(jv "${js}['stats']['$f']")" ] || fail "stats/$f of $k/$s"
		done
	done
done
# its JSON as the other tests check it (strace above traced damonc itself, not the check)
expect_rc 0 "$D" status --json
# and the text for people names the same kdamond
expect_rc 0 "$D" status
if [ "$n" -gt 0 ]; then
	grep -q "kdamond 0: $(sysfs_read "$admin/kdamonds/0/state")" <<<"$OUT" ||
		fail "text status: $OUT"
else	# a host whose DAMON has no kdamond (nr_kdamonds 0) is shown as such
	grep -q "no kdamonds" <<<"$OUT" || fail "text status of an empty tree: $OUT"
fi
echo "ok: status matches the host's $n kdamond(s) and wrote nothing"
