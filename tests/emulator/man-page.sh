#!/bin/bash
# man/damon-emu.1 renders with man -l without a single warning.
set -euo pipefail
page=$1
out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
if [ -n "$out" ]; then
	echo "FAIL: warnings from man -l $page:"
	echo "$out"
	exit 1
fi
LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$page" | grep -q 'FAULT FILE'
echo "ok: $page renders cleanly"
