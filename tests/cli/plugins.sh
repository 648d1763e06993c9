#!/bin/bash
# damonc's plugins (cmd/plugin.h): a command that draws no picture loads none of the
# picture libraries (nor the plugin), one that draws loads the plugin; none but the shell at
# a terminal loads readline. Where the plugins are not installed (a copy of damonc with
# nothing beside it), the other commands run as ever while a picture is refused before any
# work, with exit status 3 and a sentence that names the plugin, writing no file; the shell
# at a terminal likewise, and reading a pipe it needs no plugin.
#   plugins.sh DAMONC GEN_RECORD LIBDAMONCTL
set -euo pipefail
damonc=$1 gen=$2 lib=$3
# shellcheck source=../lib/loaded.sh
source "$(dirname "$0")/../lib/loaded.sh"
loaded_setup "$gen"

picture_libs='cairo|fontconfig|freetype|pixman|png|X11|xcb|Xrender|Xext|Xau|Xdmcp|expat|brotli|libbsd|libmd|picture\.so'
unneeded="$picture_libs|readline|tinfo|lineedit\.so|yaml|libnl"
for args in "--version" "status" "status --json" "features --json" "report wss -i $work/in.rec" \
	"report heatmap -i $work/in.rec --json"; do
	# shellcheck disable=SC2086 # the command's words
	libs=$(loaded "$damonc" --sysroot "$root" $args)
	extra=$(grep -E "$unneeded" <<<"$libs" || true)
	[ -z "$extra" ] || bad "damonc $args loads $(tr '\n' ' ' <<<"$extra")"
done
libs=$(loaded "$damonc" report wss -i "$work/in.rec" -o "$work/wss.svg")
grep -q '/picture\.so$' <<<"$libs" || bad "report wss -o wss.svg does not load the picture plugin"
grep -q 'cairo' <<<"$libs" || bad "report wss -o wss.svg does not load cairo"

# a damonc with no plugin beside it (its library from the build)
mkdir "$work/bin"
cp "$damonc" "$work/bin/damonc"
alone() { LD_LIBRARY_PATH=$(dirname "$lib") "$work/bin/damonc" "$@"; }
for args in "--version" "status" "status --json" "features --json" "report wss -i $work/in.rec" \
	"report info -i $work/in.rec --json" "report heatmap -i $work/in.rec"; do
	# shellcheck disable=SC2086 # the command's words
	alone --sysroot "$root" $args >"$work/out" 2>"$work/err" ||
		bad "without the picture plugin, damonc $args fails: $(cat "$work/err")"
	[ -s "$work/out" ] || bad "without the picture plugin, damonc $args prints nothing"
done
for args in "report wss -i $work/in.rec -o $work/x.png" \
	"report wss -i $work/in.rec --format svg" \
	"report heatmap -i $work/in.rec -o $work/x.svg" \
	"report hugepage --watch 1s --count 2 -o $work/x.png"; do
	rc=0
	# shellcheck disable=SC2086 # the command's words
	alone --sysroot "$root" $args >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" = 3 ] || bad "without the picture plugin, damonc $args exited $rc, expected 3"
	grep -qE "^damonc: report [a-z]+: pictures \(PNG, SVG\) are drawn by damonc's picture plugin, which is not installed: $work/bin/.*/picture\.so: .*No such file" \
		"$work/err" || bad "damonc $args: no sentence naming the missing plugin: $(cat "$work/err")"
	[ ! -s "$work/out" ] || bad "damonc $args printed to stdout without its plugin"
done
for f in "$work/x.png" "$work/x.svg"; do
	[ ! -e "$f" ] || bad "$f was made without the plugin"
done
# the shell: lines from a pipe need no plugin; at a terminal, exit 3 saying why
out=$(echo "status --json" | alone --sysroot "$root" shell 2>&1) ||
	bad "without plugins, the shell reading a pipe fails: $out"
grep -q '"kdamonds"' <<<"$out" || bad "without plugins, the shell reading a pipe ran nothing: $out"
rc=0
out=$(LD_LIBRARY_PATH=$(dirname "$lib") script -qec "'$work/bin/damonc' --sysroot '$root' shell" \
	/dev/null </dev/null 2>&1) || rc=$?
[ "$rc" = 3 ] || bad "without the lineedit plugin, the shell at a terminal exited $rc, expected 3"
grep -q "line editing is damonc's lineedit plugin, which is not installed: .*lineedit\.so" \
	<<<"$out" || bad "the shell at a terminal: no sentence naming the missing plugin: $out"
[ $fail = 0 ] && echo "ok: only the pictures load the picture plugin, only the shell readline; without them the rest runs, pictures and the shell exit 3"
exit $fail
