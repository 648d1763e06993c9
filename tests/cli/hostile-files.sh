#!/bin/bash
# What a root program does with the files around it, without a kernel: every file damonc
# writes refuses a planted symbolic link, a FIFO, a device node and a directory at its name,
# with a sentence and exit 2, and leaves what stands there as it was (no victim file written
# or made readable, no device replaced, no FIFO waited on, no temporary file left); '-' is
# stdout; input a line reader takes (trace -i, --batch) is a regular file or stdin, in lines
# of at most 64 KiB without NUL; a record's words reach the terminal without their control
# characters. Everything happens in the test's own directory: the device node is one made
# here with mknod (tests/ns-run keeps /dev and /etc read-only besides).
#   hostile-files.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen_record=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=1; }

# the planted things, each at a name damonc is asked to write, and their victims
victim=$work/victim
printf 'secret\n' >"$victim"
chmod 600 "$victim"
state() { # what the planted things and the victim are: type, mode, size, device numbers
	stat -c '%n %F %a %s %t:%T' "$work"/* | LC_ALL=C sort
}
mkdir "$work/dir"
plant() { # plant NAME KIND: a link to the victim, a FIFO, a device node, a directory
	rm -rf "${work:?}/$1"
	case $2 in
	link) ln -s "$victim" "$work/$1" ;;
	fifo) mkfifo "$work/$1" ;;
	device) mknod "$work/$1" c 1 7 ;;	# a /dev/full of our own
	dir) mkdir "$work/$1" ;;
	esac
}
kinds=(link fifo dir)
if mknod "$work/probe" c 1 3 2>/dev/null; then
	rm "$work/probe"
	kinds+=(device)
else
	echo "no device node can be made here: its cases are skipped"
fi
"$gen_record" --snapshots 3 --regions 3 --config 123 --action $'st\e[31mat\a' >"$work/in.rec"

# refused WANT FRAGMENT ARGS...: damonc exits WANT at once, saying FRAGMENT; nothing of
# the planted things or the victim changed, no temporary file left
refused() {
	local want=$1 frag=$2 rc=0 before after err
	shift 2
	n=$((n + 1))
	before=$(state)
	err=$(timeout -k 5 30 "$damonc" "$@" 2>&1 >/dev/null </dev/null) || rc=$?
	after=$(state)
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		bad "case $n 'damonc $*': hung"
	fi
	[ "$rc" = "$want" ] || bad "case $n 'damonc $*': exit $rc, expected $want: $err"
	grep -qF -- "$frag" <<<"$err" || bad "case $n 'damonc $*': '$err' lacks '$frag'"
	[ "$before" = "$after" ] || bad "case $n 'damonc $*': changed: $(diff <(echo "$before") <(echo "$after"))"
	[ "$(cat "$victim")" = secret ] || bad "case $n 'damonc $*': the victim was written"
}

sentence() {
	case $1 in
	link) echo "a symbolic link: damonc writes no file through one" ;;
	fifo | device) echo "not a regular file: a device, FIFO or socket is never written to or replaced" ;;
	dir) echo "is a directory" ;;
	esac
}
for k in "${kinds[@]}"; do
	s=$(sentence "$k")
	plant out.prom "$k"
	refused 2 "-o '$work/out.prom': $s" metrics -o "$work/out.prom"
	refused 2 "--metrics-textfile '$work/out.prom': $s" agent --metrics-textfile "$work/out.prom"
	plant out.rec "$k"
	refused 2 "-o '$work/out.rec': $s" record -i "$work/in.rec" -o "$work/out.rec"
	refused 2 "-o '$work/out.rec': $s" record -i "$work/in.rec" -o "$work/out.rec" --format damo-json
	refused 2 "--profile '$work/out.rec': $s" record --profile="$work/out.rec" -o "$work/o2.rec" --kdamond 0
	plant out.svg "$k"
	refused 2 "-o '$work/out.svg': $s" report heatmap -i "$work/in.rec" --format svg -o "$work/out.svg"
	refused 2 "-o '$work/out.svg': $s" report wss -i "$work/in.rec" --format svg -o "$work/out.svg"
	plant out.txt "$k"
	[ "$k" = link ] || [ "$k" = dir ] ||
		refused 2 "-o '$work/out.txt': $s" trace -i "$work/in.rec" -o "$work/out.txt"
	rm -rf "${work:?}"/out.*
done
[ "$(stat -c %a "$victim")" = 600 ] || bad "the victim's mode changed"
# trace -o to a planted link is refused the same (its input is read first: a real trace)
printf 'kdamond.0-1 [000] 1.000001: damon_aggregated: target_id=0 nr_regions=1 4096-8192: 0 1\n' >"$work/trace.txt"
plant out.txt link
refused 2 "-o '$work/out.txt': a symbolic link" trace -i "$work/trace.txt" -o "$work/out.txt"
rm -f "$work/out.txt"

# a new record is 0600 (it holds the address layout of the processes it monitored), an
# existing file keeps its mode; nothing is left beside it; '-' is stdout
n=$((n + 1))
"$damonc" record -i "$work/in.rec" -o "$work/copy.rec" >/dev/null 2>&1 || bad "record -i -o a new file"
[ "$(stat -c %a "$work/copy.rec")" = 600 ] ||
	bad "copy.rec has mode $(stat -c %a "$work/copy.rec")"
"$damonc" record -i "$work/in.rec" -o - >"$work/stdout.rec" 2>/dev/null || bad "record -o -"
cmp -s "$work/copy.rec" "$work/stdout.rec" || true	# each says when it was written
[ -s "$work/stdout.rec" ] || bad "record -o - wrote nothing to stdout"
for f in "$work"/.[!.]*; do
	[ ! -e "$f" ] || bad "a temporary file is left: $f"
done

# input read line by line: a regular file or stdin, bounded lines, no NUL
for k in fifo dir device; do
	[[ " ${kinds[*]} " = *" $k "* ]] || continue
	plant in.txt "$k"
	if [ "$k" = dir ]; then s="is a directory"; else s="not a regular file (a FIFO, socket or device would block or never end"; fi
	refused 2 "-i '$work/in.txt': $s" trace -i "$work/in.txt"
	refused 2 "--batch '$work/in.txt': $s" --batch "$work/in.txt"
done
rm -rf "${work:?}/in.txt"
head -c 100000 /dev/zero | tr '\0' 'x' >"$work/long.txt"
refused 2 "line 1 is longer than 64 KiB: not a trace" trace -i "$work/long.txt"
refused 2 "batch: line 1: longer than 64 KiB" --batch "$work/long.txt"
printf 'status\0 --dry-run\n' >"$work/nul.txt"
refused 2 "line 1 holds a NUL byte: not a trace" trace -i "$work/nul.txt"
refused 2 "batch: line 1: holds a NUL byte" --batch "$work/nul.txt"
# a sparse file of 2 GB: refused at its first line, not read whole
truncate -s 2G "$work/sparse"
refused 2 "batch: line 1: longer than 64 KiB" --batch "$work/sparse"
refused 2 "not a trace" trace -i "$work/sparse"
n=$((n + 1))
rc=0
err=$("$damonc" --batch - <"$work/nul.txt" 2>&1) || rc=$?
if [ "$rc" != 2 ] || ! grep -qF "batch: line 1: holds a NUL byte" <<<"$err"; then
	bad "--batch - with a NUL in a line: exit $rc: $err"
fi
rm -f "$work/sparse"
# a line's own --sysroot: the batch's tree applies, never one a line picks
printf 'status --sysroot %s\n' "$work" >"$work/b.txt"
refused 2 "batch: line 1: --sysroot: a line acts on the tree of its batch or shell" --batch "$work/b.txt"
printf -- '--sysroot=%s status\n' "$work" >"$work/b.txt"
refused 2 "--sysroot: a line acts on the tree of its batch or shell" --batch "$work/b.txt"
# an --atomic batch keeps every command before it runs one: at most 10000
for _ in $(seq 10001); do echo status; done >"$work/b.txt"
refused 2 "batch: line 10001: an --atomic batch holds at most 10000 commands" --atomic --batch "$work/b.txt"
rm -f "$work/b.txt" "$work/long.txt" "$work/nul.txt"

# a record's words (a scheme's action here) reach the terminal without control characters
for r in info schemes holistic; do
	n=$((n + 1))
	out=$("$damonc" report "$r" -i "$work/in.rec" 2>&1) || bad "report $r: exit $?"
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$out" &&
		bad "report $r: a raw control character: $(od -c <<<"$out" | grep -m1 '033\|\\a')"
	grep -qF 'st\x1b[31mat\x07' <<<"$out" || bad "report $r does not show the action: $out"
done

[ "$fail" = 0 ] && echo "ok: $n hostile files and inputs refused, nothing around them changed"
exit "$fail"
