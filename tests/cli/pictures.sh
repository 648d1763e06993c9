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
# what the pictures are not for
for args in "report wss -i $work/long.rec --format png" "report wss -i $work/long.rec -o x.png --json" \
	"report wss -i $work/long.rec -o x.svg --window 1s" "report wss -i $work/long.rec -o x.txt"; do
	rc=0
	# shellcheck disable=SC2086 # words on purpose
	script -qec "'$damonc' $args" /dev/null >/dev/null 2>&1 </dev/null || rc=$?
	[ "$rc" = 2 ] || bad "'damonc $args' exited $rc, expected 2"
done
[ $fail = 0 ] && echo "ok: the heatmap and the working-set chart read alone, in PNG and SVG"
exit $fail
