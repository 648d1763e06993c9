#!/bin/bash
# damon-emu's command line: help, version, and usage errors (exit 2, naming the problem).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
bin=$(emu_bin)

"$bin" --help | grep -q -- '--profile NAME'
"$bin" --version | grep -q '^damon-emu '
"$bin" --version | grep -q '^profiles: 6.1, 6.6, 6.12, 6.18, 7.2, 7.3, next$'

expect_usage() {
	local out rc=0
	out=$("$bin" "$@" 2>&1) || rc=$?
	if [ "$rc" != 2 ] || ! grep -q -- "$1" <<<"$out"; then
		echo "FAIL: damon-emu $* exited $rc: $out"
		exit 1
	fi
}
expect_usage --profile 5.15 /nonexistent
expect_usage --avail-ops vaddr,bogus /nonexistent
expect_usage --bogus-option /nonexistent
out=$("$bin" 2>&1) && exit 1
grep -q 'missing MOUNTPOINT' <<<"$out"
out=$("$bin" /a /b 2>&1) && exit 1
grep -q 'only one MOUNTPOINT' <<<"$out"
echo "ok: command line"
