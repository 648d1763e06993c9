#!/bin/bash
# The reports' pictures can be read alone: the heatmap (a title with the target and span,
# address and time labels, a colour scale, cold and hot cells) and the working-set chart
# (a title, labelled axes, the series), at a sensible size whether the record is short or
# long, and the SVG is the same picture as the PNG (tests/lib/picture-check).
#   pictures.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2 check=$(dirname "$0")/../lib/picture-check
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-pictures.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$gen" --snapshots 3 --regions 10 >"$work/short.rec"
"$gen" --snapshots 40 --regions 50 --format damo-json >"$work/long.rec"
for rec in short long; do
	in=$work/$rec.rec
	"$damonc" report heatmap -i "$in" -o "$work/$rec-hm.png" || bad "heatmap png ($rec)"
	"$damonc" report heatmap -i "$in" -o "$work/$rec-hm.svg" || bad "heatmap svg ($rec)"
	python3 "$check" heatmap "$work/$rec-hm.png" "$work/$rec-hm.svg" ||
		bad "the heatmap of the $rec record"
	"$damonc" report wss -i "$in" -o "$work/$rec-wss.png" || bad "wss png ($rec)"
	"$damonc" report wss -i "$in" --format svg >"$work/$rec-wss.svg" || bad "wss svg ($rec)"
	python3 "$check" series "$work/$rec-wss.png" "$work/$rec-wss.svg" ||
		bad "the working-set chart of the $rec record"
done
# --cell sets the cells' size, within readable bounds
"$damonc" report heatmap -i "$work/long.rec" --bins 40x50 --cell 12 -o "$work/cell.png"
python3 "$check" heatmap "$work/cell.png" || bad "--cell 12"
# report access --boxes' digits in damo's colour sets (its _damo_ascii_color: 256-colour
# background and foreground per level): on a terminal or with --color always; not with
# --color never, in a pipe, or under NO_COLOR (unless --color always)
"$gen" --snapshots 8 --regions 10 >"$work/boxes.rec"
boxes() { "$damonc" report access -i "$work/boxes.rec" --boxes --sort hot "$@"; }
boxes --json >"$work/boxes.json"
for set in emotion gray flame; do
	want=$(python3 -c 'import json, sys
sets = {"gray": [[232] * 10, [237, 239, 241, 243, 245, 247, 249, 251, 253, 255]],
        "flame": [[232, 1, 1, 2, 3, 3, 20, 21, 26, 27],
                  [239, 235, 237, 239, 243, 245, 247, 249, 251, 255]],
        "emotion": [[232, 234, 20, 21, 26, 2, 3, 1, 1, 1],
                    [239, 235, 237, 239, 243, 245, 247, 249, 251, 255]]}
bg, fg = sets[sys.argv[2]]
for r in json.load(open(sys.argv[1]))["regions"]:
    n, lv = r["box_length"], r["box_level"]
    print(" " * (40 - n) + "|\x1b[48;5;%dm\x1b[38;5;%dm" % (bg[lv], fg[lv]) + str(lv) * n + "\x1b[0m|")' \
		"$work/boxes.json" $set)
	got=$(boxes --box-colorset $set --color always | grep -aoE '^ *\|[^|]*\|')
	[ "$got" = "$want" ] || bad "--boxes --box-colorset $set --color always: $(diff <(echo "$want") <(echo "$got") | cat -v)"
	# a terminal: script's pty, its CRs dropped
	got=$(script -qec "'$damonc' report access -i '$work/boxes.rec' --boxes --sort hot --box-colorset $set" \
		/dev/null </dev/null | tr -d '\r' | grep -aoE '^ *\|[^|]*\|')
	[ "$got" = "$want" ] || bad "--boxes --box-colorset $set on a terminal is not coloured as damo's"
done
plain=$(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["regions"]:
    print(" " * (40 - r["box_length"]) + "|" + str(r["box_level"]) * r["box_length"] + "|")' "$work/boxes.json")
[ "$(boxes | grep -aoE '^ *\|[^|]*\|')" = "$plain" ] || bad "--boxes in a pipe is coloured"
[ "$(boxes --color never | grep -aoE '^ *\|[^|]*\|')" = "$plain" ] || bad "--boxes --color never is coloured"
got=$(NO_COLOR=1 script -qec "'$damonc' report access -i '$work/boxes.rec' --boxes --sort hot" \
	/dev/null </dev/null | tr -d '\r' | grep -aoE '^ *\|[^|]*\|')
[ "$got" = "$plain" ] || bad "--boxes under NO_COLOR is coloured on a terminal"
NO_COLOR=1 boxes --color always | grep -q $'\x1b\[48;5;' || bad "--color always does not override NO_COLOR"
# the legend shows the colour set's samples when coloured
boxes --color always --box-colorset gray | grep -qF "$(printf '# digits: access rate, 0.00%% to 100.00%% as 0 to 9, colours gray: \e[48;5;232m\e[38;5;237m0')" ||
	bad "--boxes --color always: no colour samples in the legend"
# what the pictures are not for
for args in "report wss -i $work/long.rec --format png" "report wss -i $work/long.rec -o x.png --json" \
	"report wss -i $work/long.rec -o x.svg --window 1s" "report wss -i $work/long.rec -o x.txt"; do
	rc=0
	# shellcheck disable=SC2086 # words on purpose
	script -qec "'$damonc' $args" /dev/null >/dev/null 2>&1 </dev/null || rc=$?
	[ "$rc" = 2 ] || bad "'damonc $args' exited $rc, expected 2"
done
[ $fail = 0 ] && echo "ok: the heatmap and the working-set chart read alone, in PNG and SVG; the boxes' colours"
exit $fail
