#!/bin/bash
# Hostile input, as a table: each case has its exit code, a fragment of its message, and
# must leave the tree, the emulator's write log and damonc's run directory as they were; no
# crash (sanitizer reports fail the case), no hang (each case is bounded), no raw control
# character in the message, and no unbounded memory (an address-space limit, outside ASan).
#
#   bad-input.sh PROFILE
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_setup "$PROFILE"
# damonc itself: the cases of output to /dev/full and of trees that are not DAMON's bypass
# tests/lib/damonc-checked (its tee would take the output; a schema describes DAMON's trees)
DR=${DAMONC_REAL:-$D}

sleep 600 &
target=$!
dead=$(sh -c 'echo $$')
trap 'kill $target 2>/dev/null || true; emu_cleanup' EXIT
IN=$SYSROOT/in
mkdir -p "$IN"

# someone's stopped kdamond: a refusal must not touch it either (its files also show which
# kernel this is: no feature needs probing by writes)
foreign_kdamond
# a cgroup hierarchy under the sysroot, so that memcg paths can be looked up
mkdir -p "$SYSROOT/sys/fs/cgroup/present"
: >"$SYSROOT/sys/fs/cgroup/cgroup.controllers"

# A tree that is not DAMON's: a FIFO where `state` should be, binary bytes in another
FAKE=$SYSROOT/fake
FA=$FAKE/sys/kernel/mm/damon/admin/kdamonds
mkdir -p "$FA/0/contexts" "$FAKE/run"
ln -s /proc "$FAKE/proc"
echo 1 >"$FA/nr_kdamonds"
echo 0 >"$FA/0/contexts/nr_contexts"
echo -1 >"$FA/0/pid"
mkfifo "$FA/0/state"
NOTREE=$SYSROOT/notree	# a DAMON directory without nr_kdamonds
mkdir -p "$NOTREE/sys/kernel/mm/damon/admin/kdamonds" "$NOTREE/run"
ln -s /proc "$NOTREE/proc"
EMPTY=$SYSROOT/empty	# a DAMON tree without kdamonds
mkdir -p "$EMPTY/sys/kernel/mm/damon/admin/kdamonds" "$EMPTY/run"
echo 0 >"$EMPTY/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
ln -s /proc "$EMPTY/proc"

cfg() {	# cfg NAME CONTENT: a file in $IN holding CONTENT exactly (printf %b escapes)
	printf '%b' "$2" >"$IN/$1"
	echo "$IN/$1"
}
tree_cfg() {	# damonc's schema with one kdamond whose context is $1
	cfg "$2" "{\"format_version\": 1, \"kdamonds\": [{\"contexts\": [$1]}]}"
}
big=$IN/big.json
{ printf '['; head -c 5000000 /dev/zero | tr '\0' '0' | sed 's/0/0,/g'; printf '0]'; } >"$big"
mkdir -p "$IN/dir"
"${GEN_RECORD:?GEN_RECORD is not set}" --snapshots 3 --regions 4 >"$IN/rec"

limit_memory=true
if ldd "$DR" 2>/dev/null | grep -q libasan || [ -n "${ASAN_OPTIONS:-}" ]; then
	limit_memory=false	# ASan reserves terabytes of address space
fi

snapshot() {
	emu_dump
	echo "--- log"
	grep -c '^W' "$EMU_LOG" || true
	echo "--- run"
	(cd "$SYSROOT/run" && find . -path ./damon-emu.log -prune -o -printf '%P %s\n' | LC_ALL=C sort)
	echo "--- fake"
	(cd "$SYSROOT" && find fake notree empty -printf '%P %y %s\n' | LC_ALL=C sort)
}
before=$(snapshot)

n=0
# case_ EXIT FRAGMENT [<IN] [>OUT] ARGS...: run damonc ARGS (stdin from IN, stdout to OUT)
case_() {
	local want=$1 frag=$2 rc=0 in=/dev/null out=$SYSROOT/out after
	shift 2
	while [[ ${1:-} = \<* || ${1:-} = \>* ]]; do
		[[ $1 = \<* ]] && in=${1#<} || out=${1#>}
		shift
	done
	n=$((n + 1))
	(
		if $limit_memory; then ulimit -v 2000000; fi
		if [[ " $* " = *" @SELF@ "* ]]; then
			# damonc given its own pid: it takes this subshell's place
			exec "$DR" "${@/#@SELF@/$BASHPID}" <"$in" >"$out" 2>"$SYSROOT/err"
		fi
		exec timeout -k 5 60 "$DR" "$@" <"$in" >"$out" 2>"$SYSROOT/err"
	) || rc=$?
	case $rc in
	124 | 137) fail "case $n '$*': hung (killed after 60s)" ;;
	esac
	[ "$rc" -lt 128 ] || fail "case $n '$*': crashed (exit $rc): $(cat "$SYSROOT/err")"
	[ "$rc" = "$want" ] || fail "case $n '$*': exit $rc, expected $want: $(cat "$SYSROOT/err")"
	grep -qF -- "$frag" "$SYSROOT/err" || fail "case $n '$*': message '$(cat "$SYSROOT/err")' lacks '$frag'"
	if grep -qE 'Sanitizer|runtime error' "$SYSROOT/err"; then
		fail "case $n '$*': $(cat "$SYSROOT/err")"
	fi
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$SYSROOT/err"; then
		fail "case $n '$*': a raw control character in the message: $(od -c "$SYSROOT/err" | head)"
	fi
	after=$(snapshot)
	if [ "$after" != "$before" ]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		fail "case $n '$*': something changed"
	fi
}

# 1 status --kdamond beyond the tree (a use after free)
case_ 2 "--kdamond 3: there is 1 kdamond" status --kdamond 3
case_ 2 "--kdamond 1: there is 1 kdamond" status --kdamond 1 --json
case_ 2 "--kdamond 7: there is 1 kdamond" status --kdamond 7 --regions
case_ 2 "--kdamond 0: there are 0 kdamonds" --sysroot "$EMPTY" status --kdamond 0
case_ 2 "--kdamond 0: there are 0 kdamonds" --sysroot "$EMPTY" status --kdamond 0 --json
# 2 configs whose top is not an object (json-c aborted)
case_ 2 "found an array" start -c "$(cfg list.json '[]')"
case_ 2 "found a number" start -c "$(cfg num.json '42')"
case_ 2 "found a string" start -c "$(cfg str.json '"x"')"
case_ 2 "found an array" start -c "$(cfg schemes.json '[{"action": "stat"}]')"
# 3 endless and huge inputs
case_ 2 "-c '/dev/zero': not a regular file" start -c /dev/zero
case_ 2 "-c '/dev/urandom': not a regular file" start -c /dev/urandom
case_ 2 "larger than 4 MiB" start -c "$big"
case_ 2 "-c 'standard input': larger than 4 MiB" "</dev/zero" start -c -
case_ 2 "-c '$IN/dir': is a directory" start -c "$IN/dir"
mkfifo "$IN/fifo"
before=$(snapshot)
case_ 2 "-c '$IN/fifo': not a regular file" start -c "$IN/fifo"
# 4 a watch that never ends
case_ 2 "--count '0': at least 1" report hugepage --watch 1s --count 0
case_ 2 "--count '0': at least 1" record --count 0
# 5 a FIFO where `state` should be: said, not waited on (exit 1: not DAMON's tree)
case_ 1 "not a regular file" --sysroot "$FAKE" status
case_ 1 "not a regular file" --sysroot "$FAKE" status --json
case_ 1 "not a regular file" --sysroot "$FAKE" features
case_ 1 "not a regular file" --sysroot "$FAKE" stop --all
case_ 1 "not a regular file" --sysroot "$FAKE" report hugepage
# 8 a command that cannot run: refused before anything is written
case_ 2 "cannot run '/nonexistent/cmd': No such file" start --action stat -- /nonexistent/cmd
case_ 2 "cannot run 'no-such-command-damonc': No such file" start --action stat -- no-such-command-damonc
case_ 2 "cannot run '$IN/dir': Is a directory" start --action stat -- "$IN/dir"
case_ 2 "cannot run '$IN/list.json': Permission denied" start --action stat -- "$IN/list.json"
# 10 output that cannot be written: exit 1, said
case_ 1 "writing the output: No space left on device" ">/dev/full" features
case_ 1 "writing the output: No space left on device" ">/dev/full" status
case_ 1 "writing the output: No space left on device" ">/dev/full" --json status
case_ 1 "writing the output: No space left on device" ">/dev/full" report hugepage
case_ 1 "writing the output: No space left on device" ">/dev/full" \
	start --pid "$target" --action stat --dry-run
case_ 1 "writing the output: No space left on device" ">/dev/full" report access -i "$IN/rec"
case_ 1 "writing the output: No space left on device" ">/dev/full" report wss -i "$IN/rec"
case_ 1 "writing the output: No space left on device" ">/dev/full" report access -i "$IN/rec" --json
# 9 a feature this kernel lacks, told from the files kdamond 0 shows: exit 3, nothing written
if [ "$PROFILE" = 6.12 ]; then
	case_ 3 "action 'collapse' needs the collapse action" \
		start --pid "$target" --action collapse --no-fallback
fi
# 12 not one strict JSON document
case_ 2 "'x' after the end of the document" start -c "$(cfg trail.json '{"kdamonds": []}xyz')"
case_ 2 "'{' after the end of the document" start -c "$(cfg two.json '{"kdamonds": []}\n{"kdamonds": []}')"
case_ 2 "line 1, column 1: comments are not JSON" start -c "$(cfg comment.json '// mine\n{"kdamonds": []}')"
case_ 2 "single quotes are not JSON" start -c "$(cfg quote.json "{'kdamonds': []}")"
case_ 2 "the document is null" start -c "$(cfg null.json 'null')"
case_ 2 "the document is empty" start -c "$(cfg empty.json '')"
case_ 2 "the document ends early" start -c "$(cfg cut.json '{"kdamonds": [{"contexts": [')"
case_ 2 "is not UTF-8 text" start -c "$(cfg latin1.json '{"kdamonds": [{"label": "caf\xe9"}]}')"
case_ 2 "holds NUL bytes" start -c "$(cfg nul.json '{"kdamonds": []}\0')"
case_ 2 "a byte-order mark is not JSON" start -c "$(cfg bom.json '\xef\xbb\xbf{"kdamonds": []}')"
case_ 2 "'NaN' is not a JSON value" start -c "$(tree_cfg '{"monitoring_attrs": {"intervals": {"sample_us": NaN}}}' nan.json)"
case_ 2 "nested more than 64 deep" start -c "$(cfg deep.json "$(printf '[%.0s' {1..70})")"
# 13 what the kernel would refuse at `on`, said before writing, naming the value
case_ 2 "process $dead does not exist" start -c "$(tree_cfg "{\"targets\": [{\"pid_target\": $dead}]}" dead.json)"
case_ 2 "process 2 is a kernel thread" start -c "$(tree_cfg '{"targets": [{"pid_target": 2}]}' kthread.json)"
case_ 2 "process 2 is a kernel thread" start --pid 2 --action stat
case_ 2 "a kdamond runs one context, not 0" start -c "$(cfg noctx.json '{"format_version": 1, "kdamonds": [{"contexts": []}]}')"
case_ 2 "memcg_path '/nonexistent' names no cgroup" start --pid "$target" --action stat --filter allow:memcg:/nonexistent
case_ 2 "memcg_path 'present' does not start with '/'" start --pid "$target" --action stat --filter allow:memcg:present
case_ 2 "memcg_path holds the control character \\x0a" start --pid "$target" --action stat --filter "allow:memcg:/present
x"
# 14 messages that name the value
case_ 2 "format_version: expected a number such as 1, found a string \"1\"" start -c "$(cfg fv.json '{"format_version": "1", "kdamonds": []}')"
case_ 2 "the integer 18446744073709551616 is out of range" start -c "$(tree_cfg '{"targets": [{"pid_target": 18446744073709551616}]}' bigpid.json)"
case_ 2 "pid_target: 18446744073709551615 is out of range" start -c "$(tree_cfg '{"targets": [{"pid_target": 18446744073709551615}]}' u64pid.json)"
case_ 2 "--min-age 'max': no region is ever that old" start --pid "$target" --action stat --min-age max
case_ 2 "--min-age 2 s exceeds --max-age 1 s" start --pid "$target" --action stat --min-age 2s --max-age 1s
case_ 2 "option '--sysroot' needs a value" --sysroot
case_ 2 "option '--sysroot' needs a value" status --sysroot
case_ 2 "-i '/tmp': is a directory" report access -i /tmp
case_ 2 "-i '/dev/zero': is a device" report access -i /dev/zero
case_ 2 "-i '$IN/none': No such file" report wss -i "$IN/none"
case_ 2 "--pid 99999999: no such process" report hugepage --pid 99999999
case_ 2 "--action 'x\\x1b[2J': unknown action" start --pid "$target" --action $'x\e[2J'
case_ 2 "expected a process id" start --pid 18446744073709551616 --action stat
# 15 and the rest
case_ 2 "--regions '': expected START-END" start --regions "" --action stat
case_ 2 "(four values)" start --pid "$target" --action stat --intervals-goal 4%,3,5ms,10s,7
case_ 2 "--goal-scope pid: it says where a hugepage_mem_bp goal is measured" start --pid "$target" --action stat --goal-scope pid
case_ 2 "that is this damonc process" start --pid @SELF@ --action stat
# earlier refusals, kept in the table
case_ 2 "--access-rate '120%'" start --pid "$target" --action stat --access-rate 120%
case_ 2 "--min-size '2XB'" start --pid "$target" --action stat --min-size 2XB
case_ 2 "--action 'explode'" start --pid "$target" --action explode
case_ 2 "--goal 'nosuch=1'" start --pid "$target" --action stat --goal nosuch=1
case_ 2 "--sample '5 parsecs'" start --pid "$target" --action stat --sample "5 parsecs"
case_ 2 "which action" start --pid "$target"
case_ 2 "--pid $dead: no such process" start --pid "$dead" --action stat
case_ 2 "overlap" start --ops paddr --regions 0x100000-0x300000,0x200000-0x400000 --action stat
case_ 2 "sampling interval" start --pid "$target" --action stat --sample 200ms --aggr 100ms
case_ 2 "unknown option '--frobnicate'" start --pid "$target" --action stat --frobnicate
case_ 2 "-c '/nonexistent.json': No such file" start -c /nonexistent.json
case_ 2 "bogus_key" start -c "$(tree_cfg '{"operations": "vaddr", "bogus_key": 1}' bogus.json)"
case_ 2 "-c takes the whole configuration" start -c "$IN/list.json" --action stat
case_ 2 "--dry-run does not launch commands" start --dry-run --action stat -- true
case_ 2 "nothing to change" tune
case_ 2 "--kdamond 9: there are 1 kdamonds" stop --kdamond 9
case_ 2 "unexpected argument 'now'" stop now
case_ 2 "unknown command 'strat'" strat
case_ 2 "unknown command 'bogus'" report bogus
case_ 2 "--interval '0': at least 1ms" record --interval 0
case_ 2 "--format 'bogus'" record --format bogus
case_ 2 "--watch '1ms': at least 10ms" report hugepage --watch 1ms
case_ 2 "--quota-time '1500us': whole milliseconds only" start --pid "$target" --action stat --quota-time 1500us
case_ 2 "--pid 'abc': expected a process id" start --pid abc --action stat

# 16 numbers: one grammar for options, JSON and YAML (decimal or 0x), never octal, no key
# twice
case_ 2 "--kdamond '010': a number with a leading 0 (damonc takes decimal or 0x hexadecimal, never octal)" stop --kdamond 010
case_ 2 "--target-nid '010': a number with a leading 0" start --pid "$target" --action migrate_hot --target-nid 010
case_ 2 "--pid '0x': expected a process id" start --pid 0x --action stat
yaml_pid() { cfg "$1" "kdamonds:\n  - contexts:\n      - targets:\n          - pid_target: $2\n"; }
case_ 2 "line 4: '010': damonc takes integers in decimal or 0x hexadecimal" start -c "$(yaml_pid oct.yaml 010)"
case_ 2 "'0x1_000': underscores are not taken in numbers" start -c "$(yaml_pid us.yaml 0x1_000)"
case_ 2 "the integer 18446744073709551616 is out of range" start -c "$(yaml_pid big.yaml 18446744073709551616)"
case_ 2 "pid_target: expected an integer (decimal or 0x, never octal), not '010'" start -c "$(tree_cfg '{"targets": [{"pid_target": "010"}]}' octs.json)"
case_ 2 "the member \"pid_target\" is given twice in one object" start -c "$(tree_cfg "{\"targets\": [{\"pid_target\": $target, \"pid_target\": 1}]}" dup.json)"
case_ 2 "the key 'pid_target' is given twice in one mapping" start -c "$(cfg dup.yaml "kdamonds:\n  - contexts:\n      - targets:\n          - pid_target: $target\n            pid_target: 1\n")"
# 17 bounds: a YAML node budget (aliases counted), a context's targets, regions, filters,
# a configuration's kdamonds, waits that cannot overflow, an empty region list
{
	printf 'a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n'
	prev=a
	for l in b c d e f g h i; do
		printf '%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n' "$l" "$l" \
			"$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev"
		prev=$l
	done
	printf 'kdamonds: [*i]\n'
} >"$IN/bomb.yaml"
case_ 2 "more than 200000 nodes, aliases followed" start -c "$IN/bomb.yaml"
many() { # many NAME CONTEXT-MEMBER-JSON
	python3 -c 'import json, sys; print(json.dumps({"format_version": 1, "kdamonds": [{"contexts": [json.loads(sys.argv[1])]}]}))' "$2" >"$IN/$1"
	echo "$IN/$1"
}
case_ 2 "1025 targets; damonc takes at most 1024 in a context" start -c "$(many targets.json "{\"targets\": [$(printf "{\"pid_target\": $target}, %.0s" {1..1024}){\"pid_target\": $target}]}")"
python3 -c 'import json, sys
regions = [{"start": 2**32 + 8192 * i, "end": 2**32 + 8192 * i + 4096} for i in range(4097)]
ctx = {"operations": "paddr", "targets": [{"regions": regions}]}
print(json.dumps({"format_version": 1, "kdamonds": [{"contexts": [ctx]}]}))' >"$IN/regions.json"
case_ 2 "4097 initial regions; damonc takes at most 4096 in a context" start -c "$IN/regions.json"
case_ 2 "257 DAMOS filters; damonc takes at most 256 in a context" start -c "$(many filters.json "{\"targets\": [{\"pid_target\": $target}], \"schemes\": [{\"action\": \"stat\", \"filters\": [$(printf '{"type": "anon", "matching": true}, %.0s' {1..256}){\"type\": \"anon\", \"matching\": true}]}]}")"
case_ 2 "65 kdamonds: a configuration holds at most 64" start -c "$(cfg kd.json "{\"format_version\": 1, \"kdamonds\": [$(printf '{"contexts": []}, %.0s' {1..64}){\"contexts\": []}]}")"
case_ 2 "--interval '9223372036854775808': at most 366 days" record --kdamond 0 --count 1 --interval 9223372036854775808
case_ 2 "--interval '18446744073709552us': at most 366 days" record --kdamond 0 --count 1 --interval 18446744073709552us
case_ 2 "--duration 'max': expected a time above 0" record --kdamond 0 --duration max
case_ 2 "--delay '400d': at most 366 days" monitor --delay 400d
case_ 2 "--regions ',': an empty region" start --ops paddr --regions , --action stat

# a PNG to a terminal (script(1) gives damonc one)
if command -v script >/dev/null; then
	rc=0
	script -qec "$D report heatmap --format png -i $IN/none" /dev/null >"$SYSROOT/tty" || rc=$?
	[ "$rc" = 2 ] || fail "heatmap --format png to a terminal: exit $rc: $(cat "$SYSROOT/tty")"
	grep -q -- "--format png: name a file with -o (not a terminal)" "$SYSROOT/tty" ||
		fail "heatmap --format png to a terminal: $(cat "$SYSROOT/tty")"
	n=$((n + 1))
fi

# 11 a tree without nr_kdamonds, and one whose values are not text: status still answers,
# in valid UTF-8 JSON, with the bad bytes shown
expect_rc 0 "$DR" --sysroot "$NOTREE" --json status
[ "$(json_get 'len(j["kdamonds"])')" = 0 ] || fail "status --json without nr_kdamonds: $OUT"
rm "$FA/0/state"
printf 'o\033[31mn\xff\n' >"$FA/0/state"
expect_rc 0 "$DR" --sysroot "$FAKE" status
grep -qF 'kdamond 0: o\x1b[31mn\xff' <<<"$OUT" || fail "status shows the state raw: $(od -c <<<"$OUT" | head -3)"
"$DR" --sysroot "$FAKE" --json status | python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
assert d["kdamonds"][0]["state"] == "o\x1b[31mn\\xff", d["kdamonds"][0]["state"]' ||
	fail "status --json is not valid UTF-8 JSON with the bad byte shown"
echo "ok: $n bad inputs refused with their exit code and message, nothing changed ($PROFILE)"
