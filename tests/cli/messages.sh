#!/bin/bash
# Every diagnostic has one form, "damonc: <what failed>: <why>" (style.md): the command's
# own errors are "damonc: CMD: ...", never "damonc CMD: ...". Checked at run time for every
# command in the command table (an unknown option, an unexpected argument) and in the
# sources, for messages that are hard to provoke.
#   messages.sh DAMONC SOURCE_ROOT
set -euo pipefail
damonc=$1 src=$2
fail=0

check() { # WANT_PREFIX ARGS...
	local want=$1 err rc=0
	shift
	err=$("$damonc" "$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" = 0 ]; then
		echo "FAIL: 'damonc $*' succeeded"
		fail=1
	elif [[ $err != "$want"* ]]; then
		echo "FAIL: 'damonc $*' says: $err (expected it to begin with '$want')"
		fail=1
	fi
}

while read -r cmd; do
	read -ra words <<<"$cmd"
	if "$damonc" --list-cmds | grep -q "^$cmd "; then
		check "damonc: $cmd: " "${words[@]}" --no-such-option
		check "damonc: $cmd: unknown command" "${words[@]}" frob
		continue
	fi
	check "damonc: $cmd: unknown option '--no-such-option'" "${words[@]}" --no-such-option
done < <("$damonc" --list-cmds)
check "damonc: unknown command 'frob'" frob
check "damonc: unknown option '--frob'" --frob
check "damonc: status: --kdamond 'x'" status --kdamond x
# "max" is the largest value: refused (exit 2, before any input is read) where an option has
# a limit; it had asked --bins for 96 GB and read --target max as -1
for args in "report access --bins" "report access --top" "report access --target" \
	"report access --snapshot-heatmap-width" "report heatmap --cell" "report holistic --top" \
	"report access --kdamond" "stop --kdamond"; do
	read -ra words <<<"$args"
	rc=0
	err=$("$damonc" "${words[@]}" max -i /nonexistent 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 2 ] || [[ $err != *"${words[-1]} 'max': at most "* ]]; then
		echo "FAIL: 'damonc $args max' exited $rc: $err"
		fail=1
	fi
done

# The sources: a message literal that names its command before the colon is the old form.
if grep -nE '"damonc (%s|[a-z]+( [a-z]+)?): ' "$src"/cmd/*.c; then
	echo "FAIL: the messages above are not 'damonc: CMD: ...'"
	fail=1
fi
# Running out of memory is no bad input: it is said by oom_error() (exit 1), never by
# usage_error() (exit 2, "nothing changed, fix the input"), which it had been in 35 places.
if grep -nE 'usage_error\([^,]+, "out of memory' "$src"/cmd/*.c; then
	echo "FAIL: out of memory said as bad input (exit 2) above: oom_error() exits 1"
	fail=1
fi
[ $fail = 0 ] && echo "ok: every message reads 'damonc: <what failed>: <why>'"
exit $fail
