#!/bin/bash
# The record and report man pages render without a warning and name every option the
# commands accept (the option tables are the truth: --list-opts prints them).
set -euo pipefail
src=$(dirname "$0")/../..
fail=0
for page in damonc-record.1 damonc-report.1; do
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$src/man/$page" 2>&1 >/dev/null)
	if [ -n "$out" ]; then
		echo "FAIL: warnings from man -l $page:"
		echo "$out"
		fail=1
	fi
done
text() { LC_ALL=C.UTF-8 MANWIDTH=200 man -E ascii -l "$src/man/$1" 2>/dev/null; }
record=$(text damonc-record.1)
report=$(text damonc-report.1)
check() { # PAGE-TEXT COMMAND
	local opt
	while read -r opt _; do
		[[ $opt == --* ]] || continue
		case $opt in --sysroot|--verbose|--help) continue ;; esac
		grep -qF -- "$opt" <<<"$1" || { echo "FAIL: $2: $opt is not in the man page"; fail=1; }
	done < <("$DAMONC" --list-opts "$2")
}
check "$record" record
for r in access heatmap wss schemes; do
	check "$report" "report $r"
done
[ "$fail" = 0 ] && echo ok
exit "$fail"
