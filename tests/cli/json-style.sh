#!/bin/bash
# --json's style: pretty on a terminal, compact (one line) in a pipe, and either on request
# (--json=pretty, --json=compact, before or after the command); a bad style is exit 2.
# Slashes are not escaped ("/tmp/x", not "\/tmp\/x").
#   json-style.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-json.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$gen" --snapshots 5 --regions 20 >"$work/rec"
lines() { grep -c . <<<"$1"; }

out=$("$damonc" --json report wss -i "$work/rec")
[ "$(lines "$out")" = 1 ] || bad "--json into a pipe is not one line: $out"
[[ $out == *'"name":"'"$work"/rec'"'* ]] || bad "the record's path is not written as is: $out"
[[ $out != *'\/'* ]] || bad "slashes are escaped: $out"
for style in "--json=compact report wss" "report wss --json=compact"; do
	# shellcheck disable=SC2086 # words on purpose
	[ "$("$damonc" $style -i "$work/rec")" = "$out" ] || bad "$style differs from --json in a pipe"
done
pretty=$("$damonc" report wss -i "$work/rec" --json=pretty)
[ "$(lines "$pretty")" -gt 10 ] || bad "--json=pretty is not indented: $pretty"
python3 -c 'import json, sys; assert json.loads(sys.argv[1]) == json.loads(sys.argv[2])' \
	"$out" "$pretty" || bad "pretty and compact differ in content"

# a terminal: pretty by default (script(1) gives the command a pseudo-terminal)
if command -v script >/dev/null; then
	tty_out=$(script -qec "'$damonc' --json report wss -i '$work/rec'" /dev/null | tr -d '\r')
	[ "$(lines "$tty_out")" -gt 10 ] || bad "--json on a terminal is not pretty: $tty_out"
	tty_out=$(script -qec "'$damonc' --json=compact report wss -i '$work/rec'" /dev/null |
		tr -d '\r')
	[ "$(lines "$tty_out")" = 1 ] || bad "--json=compact on a terminal is not one line"
else
	echo "note: no script(1): the terminal default is not checked"
fi

for arg in --json=yaml --json=; do
	rc=0
	err=$("$damonc" "$arg" report wss -i "$work/rec" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || bad "$arg exited $rc, expected 2"
	[[ $err == "damonc: "*"expected --json, --json=pretty or --json=compact"* ]] ||
		bad "$arg: $err"
	rc=0
	err=$("$damonc" report wss -i "$work/rec" "$arg" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || bad "report wss $arg exited $rc, expected 2"
done
[ $fail = 0 ] && echo "ok: --json is pretty on a terminal, compact in a pipe, either on request"
exit $fail
