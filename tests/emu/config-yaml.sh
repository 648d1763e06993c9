#!/bin/bash
# damonc start -c takes damo's YAML configurations as damo does (damo 3.3's own output of
# `damo args damon --format yaml`, tests/fixtures/damo): the tree it starts is the one the
# same configuration in damo's JSON starts, from a file or from stdin; a document that is
# neither JSON nor YAML exits 2 naming the line, and writes nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
F=$(dirname "$0")/../fixtures/damo
W=$(mktemp -d "${TMPDIR:-/tmp}/damonc-yaml.XXXXXX")
# the configuration's memcg filter names /workloads/a: a cgroup hierarchy that has it
mkdir -p "$W/cgroup/workloads/a"
echo 0 >"$W/cgroup/workloads/a/memory.current"
emu_setup "$PROFILE" --cgroup-root "$W/cgroup"
sleep 600 &
target=$!
trap 'kill $target 2>/dev/null || true; rm -rf "$W"; emu_cleanup' EXIT
# the fixtures monitor pid 4242: this test's target instead
sed "s/pid: 4242/pid: $target/" "$F/damo-output-vaddr-pageout.yaml" >"$W/c.yaml"
sed "s/\"pid\": 4242/\"pid\": $target/" "$F/damo-output-vaddr-pageout.json" >"$W/c.json"
if ! grep -q "pid: $target" "$W/c.yaml" || ! grep -q "\"pid\": $target" "$W/c.json"; then
	fail "the fixtures do not name pid 4242"
fi
# the configuration of the kdamond that runs (a stop leaves the last one staged, and the next
# start adds another)
config() {
	local k
	for k in "$ADMIN"/kdamonds/[0-9]*; do
		[ "$(sysfs_read "$k/state")" = on ] && break
	done
	k=${k##*/}
	emu_dump | grep "kdamonds/$k/" | sed "s#kdamonds/$k/#kdamonds/K/#" |
		grep -v -e '/tried_regions/' -e '/stats/' -e effective -e '/pid ' -e '/state '
}

expect_rc 0 "$D" start -c "$W/c.json"
from_json=$(config)
expect_rc 0 "$D" stop
expect_rc 0 "$D" start -c "$W/c.yaml"
[ "$(config)" = "$from_json" ] ||
	fail "damo's YAML and damo's JSON started different trees: $(diff <(echo "$from_json") <(config) || true)"
grep -q 'contexts/0/monitoring_attrs/intervals/aggr_us = 200000|' <<<"$from_json" ||
	fail "the tree is not the configuration's: $from_json"
expect_rc 0 "$D" stop
expect_rc 0 "$D" start -c - <"$W/c.yaml"
[ "$(config)" = "$from_json" ] || fail "YAML from stdin started another tree"
expect_rc 0 "$D" stop

# neither JSON nor YAML: exit 2, the line named, nothing written
before=$(emu_dump)
: >"$EMU_LOG"
printf 'kdamonds:\n- contexts: [\n' >"$W/bad.yaml"
expect_rc 2 "$D" start -c "$W/bad.yaml"
grep -q "c $W/bad.yaml: not JSON, nor YAML: line 3" <<<"$ERR" || fail "bad YAML: $ERR"
# by content when the name does not say (stdin): not '{', so YAML
expect_rc 2 "$D" start -c - <"$W/bad.yaml"
grep -q "c -: not JSON, nor YAML: line 3" <<<"$ERR" || fail "bad YAML on stdin: $ERR"
# a .json file is JSON whatever it begins with: the strict reader's sentence
printf '# a comment\n{"kdamonds": []}\n' >"$W/hash.json"
expect_rc 2 "$D" start -c "$W/hash.json"
grep -q "line 1, column 1" <<<"$ERR" || fail "a .json file read as YAML: $ERR"
printf '{"kdamonds": [' >"$W/bad.json"
expect_rc 2 "$D" start -c "$W/bad.json"
! grep -q '^W' "$EMU_LOG" || fail "a refused config wrote: $(grep '^W' "$EMU_LOG")"
[ "$(emu_dump)" = "$before" ] || fail "a refused config changed the tree"
echo "ok: damo's YAML config on profile $PROFILE"
