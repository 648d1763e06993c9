#!/bin/bash
# damonc help: `damonc help CMD [SUB]` prints what `damonc CMD [SUB] --help` prints, for every
# command of the command table; an unknown name is an error (exit 2). In every --help, every
# line fits in 80 columns, an option and its description never run into each other (two
# spaces at least, or the description on the next line), the summary comes right after the
# synopsis (before any longer text), and a synopsis that lists an option's values lists them
# all. --version and -V answer before and after a command; -p is --pid wherever --pid is; a
# mistyped command or option gets the nearest one suggested; a time without a unit is
# warned about (microseconds, damo's reading) and taken.
#   help.sh DAMONC
set -euo pipefail
damonc=$1
fail=0

bad() { echo "FAIL: $*"; fail=1; }

check_layout() { # NAME HELP_TEXT
	local line
	while IFS= read -r line; do
		[ "$(wc -L <<<"$line")" -le 80 ] || bad "'$1 --help': longer than 80 columns: $line"
	done <<<"$2"
	while IFS= read -r line; do
		case $line in
		'  -'* | '      --'*) ;;
		*) continue ;;
		esac
		# the option, one value word, then two spaces and the description, or nothing
		[[ $line =~ ^\ \ (-[^\ ],\ |\ \ \ \ )--[^\ ]+(\ [^\ ]+)?(\ \ +[^\ ].*)?$ ]] ||
			bad "'$1 --help': the option runs into its description: $line"
	done <<<"$2"
}

# The synopsis (up to the first blank line), then the summary --describe-cmds gives, as the
# next paragraph; an option shown with values (--report a|b) shows those of its table.
check_synopsis() { # CMD HELP_TEXT
	local summary para opt vals want help v synopsis
	synopsis=$(sed -n '1,/^$/p' <<<"$2")
	summary=$("$damonc" --describe-cmds | awk -F'\t' -v c="$1" '$1 == c { print $2 }')
	para=$(awk 'NR > 1 && prev == "" && !done { p = 1 } p && $0 == "" { done = 1; p = 0 }
		p { printf "%s ", $0 } { prev = $0 }' <<<"$2")
	[ "${para% }" = "$summary" ] ||
		bad "'$1 --help': the summary is not right after the synopsis: ${para:0:60}"
	# each value of an option shown with values is shown, or is its default
	while read -r opt vals; do
		want=$("$damonc" --list-values "$1" "$opt" 2>/dev/null) || continue
		help=$("$damonc" --list-opts "$1" | awk -v o="$opt" '$1 == o { $1 = $2 = ""; print }')
		for v in $want; do
			grep -qE -- "(^|[^a-z-])$opt [a-z0-9_|-]*\b$v\b" <<<"$synopsis" ||
				grep -qF -- "$v (default" <<<"$help" ||
				bad "'$1 --help': the synopsis shows $opt $vals, without '$v'"
		done
	done < <(grep -oE -- '--[a-z-]+ [a-z0-9_-]+(\|[a-z0-9_-]+)+' <<<"$synopsis" | sort -u)
}

while read -r cmd; do
	read -ra words <<<"$cmd"
	want=$("$damonc" "${words[@]}" --help) || bad "'damonc $cmd --help' failed"
	got=$("$damonc" help "${words[@]}") || bad "'damonc help $cmd' failed"
	[ "$want" = "$got" ] || bad "'damonc help $cmd' differs from 'damonc $cmd --help'"
	check_layout "$cmd" "$want"
	check_synopsis "$cmd" "$want"
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
# --version and -V, before a command and after one
version=$("$damonc" --version)
[[ $version == "damonc "* ]] || bad "--version says: $version"
for args in "-V" "status --version" "status -V" "report --version" "report wss -V"; do
	# shellcheck disable=SC2086 # words on purpose
	got=$("$damonc" $args) || bad "'damonc $args' failed"
	[ "$got" = "$version" ] || bad "'damonc $args' says: $got"
done

# -p PID is --pid, in the help and in parsing (a pid that is no process fails alike)
while read -r cmd; do
	read -ra words <<<"$cmd"
	"$damonc" --list-opts "$cmd" | grep -q '^--pid pid ' || continue
	"$damonc" --list-opts "$cmd" | grep -q '^-p pid ' || bad "'$cmd': --pid without -p"
	grep -q -- '-p, --pid PID' <<<"$("$damonc" "${words[@]}" --help)" ||
		bad "'$cmd --help' does not show -p, --pid"
done < <("$damonc" --list-cmds)
rc=0
err=$("$damonc" --sysroot /nonexistent start -p 0 --action stat --dry-run 2>&1) || rc=$?
if [ "$rc" != 2 ] || [[ $err != *"--pid '0'"* ]]; then bad "'start -p 0' exited $rc: $err"; fi

# did you mean
suggests() { # WANTED ARGS...
	local want=$1 err rc=0
	shift
	err=$("$damonc" "$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != 2 ] || [[ $err != *"did you mean '$want'?"* ]]; then
		bad "'damonc $*' exited $rc and suggests no '$want': $err"
	fi
}
suggests status stauts
suggests status stat
suggests heatmap report heatmp
suggests --refresh status --refrsh
suggests --json --jsno
suggests --duration record --duraton=5s
suggests status help staus
rc=0
err=$("$damonc" frobnicate 2>&1) || rc=$?
[[ $err != *"did you mean"* ]] || bad "'damonc frobnicate' suggests: $err"

# a time without a unit: microseconds, with a warning naming the option; with a unit, none
err=$("$damonc" --sysroot /nonexistent start --pid 1 --action stat --min-age 1 2>&1) || true
[[ $err == *"--min-age '1': a time without a unit is microseconds"* ]] ||
	bad "'--min-age 1' gives no warning: $err"
err=$("$damonc" --sysroot /nonexistent start --pid 1 --action stat --min-age 1s 2>&1) || true
[[ $err != *"without a unit"* ]] || bad "'--min-age 1s' warns: $err"
err=$("$damonc" --sysroot /nonexistent start --pid 1 --action stat --min-age 0 2>&1) || true
[[ $err != *"without a unit"* ]] || bad "'--min-age 0' warns: $err"

[ $fail = 0 ] && echo "ok: help for every command; options clear of their descriptions"
exit $fail
