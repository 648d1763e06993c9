#!/bin/bash
# damonc help: `damonc help CMD [SUB]` prints what `damonc CMD [SUB] --help` prints, for every
# command of the command table; an unknown name is an error (exit 2). In every --help, an
# option and its description never run into each other (two spaces at least, or the
# description on the next line) and option lines fit in 80 columns.
#   help.sh DAMONC
set -euo pipefail
damonc=$1
fail=0

bad() { echo "FAIL: $*"; fail=1; }

check_layout() { # NAME HELP_TEXT
	local line
	while IFS= read -r line; do
		case $line in
		'  -'* | '      --'*) ;;
		*) continue ;;
		esac
		[ ${#line} -le 80 ] || bad "'$1 --help': longer than 80 columns: $line"
		# the option, one value word, then two spaces and the description, or nothing
		[[ $line =~ ^\ \ (-[^\ ],\ |\ \ \ \ )--[^\ ]+(\ [^\ ]+)?(\ \ +[^\ ].*)?$ ]] ||
			bad "'$1 --help': the option runs into its description: $line"
	done <<<"$2"
}

while read -r cmd; do
	read -ra words <<<"$cmd"
	want=$("$damonc" "${words[@]}" --help) || bad "'damonc $cmd --help' failed"
	got=$("$damonc" help "${words[@]}") || bad "'damonc help $cmd' failed"
	[ "$want" = "$got" ] || bad "'damonc help $cmd' differs from 'damonc $cmd --help'"
	check_layout "$cmd" "$want"
done < <("$damonc" --list-cmds)
check_layout damonc "$("$damonc" --help)"
[ "$("$damonc" help)" = "$("$damonc" --help)" ] || bad "'damonc help' differs from --help"

for words in "frob" "report frob" "status frob"; do
	rc=0
	# shellcheck disable=SC2086 # words on purpose
	err=$("$damonc" help $words 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || bad "'damonc help $words' exited $rc, expected 2"
	grep -q "unknown command\|too many words" <<<"$err" || bad "'damonc help $words' says: $err"
done
[ $fail = 0 ] && echo "ok: help for every command; options clear of their descriptions"
exit $fail
