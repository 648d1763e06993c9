#!/bin/sh
# conformance: the conformance suite shared with the emulator (tests/conformance/scripts,
# run by the static damon-conform), unchanged, on this real kernel: the same scripts and the
# same expected results as on damon-emu, the version-conditional lines selected by
# `uname -r`. One check per script (its RESULT line); the whole transcript is kept.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

set -- /vm/data/scripts/*.dcs
check "the conformance scripts are in the initramfs ($#)" test -f "$1"
damon-conform-static run "$@" --root "$ADMIN" >/tmp/conform.out 2>&1
rc=$?
sed 's/^/# /' /tmp/conform.out >>"$VM_OUT"
grep '^RESULT ' /tmp/conform.out | while IFS= read -r line; do
	case $line in
	*": ok ("*) echo "ok - conformance ${line#RESULT }" ;;
	*) echo "not ok - conformance ${line#RESULT }" ;;
	esac
done >/tmp/results
cat /tmp/results >>"$VM_OUT"
cat /tmp/results
grep -q '^not ok' /tmp/results && vm_failed=1
# A script that `require`s another kernel says "SKIP FILE: requires COND" instead of RESULT.
skipped=$(grep -c '^SKIP ' /tmp/conform.out)
check "damon-conform accounted for every script ($(grep -c . /tmp/results) results, $skipped not for this kernel, $# scripts)" \
	test $(($(grep -c . /tmp/results) + skipped)) = "$#"
check "damon-conform: every expectation held on $(uname -r) (exit $rc)" test "$rc" = 0
finish
