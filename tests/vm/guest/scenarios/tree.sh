#!/bin/sh
# tree: populate the fresh admin tree as the fixtures were captured, and send back a dump of
# every file (reads only after the populating writes). The host compares the dump with the
# fixture and with damon-emu's tree for this kernel's profile (tests/vm/check-tree).
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

check "the DAMON admin directory exists" test -d "$ADMIN"
[ -d "$ADMIN" ] || finish
p0=$(spawn_sleeper)
p1=$(spawn_sleeper)
data "PIDS $p0 $p1"

sh /vm/populate.sh "$ADMIN" "$p0" "$p1" >/tmp/populate.out 2>&1
rc=$?
sed 's/^/# /' /tmp/populate.out >>"$VM_OUT"
check "populate the tree as the fixtures were (exit $rc)" test "$rc" = 0

dump_tree "$ADMIN" >/tmp/dump
check "the dump has files" test -s /tmp/dump
while IFS= read -r line; do data "TREE $line"; done </tmp/dump
finish
