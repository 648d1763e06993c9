#!/bin/bash
# damonc report hugepage -i on generated records whose shape is known from gen-record's
# parameters: the accessed memory whole 2 MiB pages could hold in each snapshot of the first
# series (computed here in python from the moving hot band) and the collapse scheme's
# recorded stats, in the JSON and the text; damo's format; bad input (exit 2, named).
#   report-hugepage-record.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2
here=$(dirname "$0")
command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-hprec.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# S snapshots of T targets, R regions of 1 MiB from a 2 MiB-aligned base, a hot band of R/10
# moving up one region a snapshot (wrapping): its whole 2 MiB pages change with its parity
S=53 R=40 T=2 V=1 K=$((1 << 30)) P=0
"$gen" --snapshots $S --regions $R --targets $T --action collapse >"$work/rec"
"$gen" --snapshots $S --regions $R --format damo-json >"$work/damo.json"

# shellcheck source=tests/record/expect.sh
. "$here/expect.sh"
hp_py='
def huge(i):
    """Target 0 of snapshot i: whole 2 MiB pages in each run of adjacent hot regions."""
    band = R // 10
    hot = sorted((i + k) % R for k in range(band))
    runs, total = [], 0
    for j in hot:
        if runs and runs[-1][1] == j:
            runs[-1][1] = j + 1
        else:
            runs.append([j, j + 1])
    for a, b in runs:
        lo, hi = -(-a * MiB // (2 * MiB)) * 2 * MiB, b * MiB // (2 * MiB) * 2 * MiB
        total += max(hi - lo, 0)
    return total
v = [huge(i) for i in range(S)]
hp = d["accessed_in_huge_pages"]
check("figures", (hp["snapshots"], hp["first"], hp["median"], hp["last"], hp["max"]),
      (S, v[0], pct(v, 50), v[-1], max(v)))
check("wraps: some snapshot holds two runs", sorted(set(v)), [2 * MiB, 4 * MiB])
'
"$damonc" --json report hugepage -i "$work/rec" >"$work/rec.json"
expect "report hugepage -i" "$work/rec.json" "$hp_py"'
# the collapse scheme: nr_applied grows by 1 and sz_applied by 4 KiB a snapshot
check("schemes", d["schemes"], [{"kdamond": 0, "scheme": 0, "action": "collapse",
                                 "nr_applied": S - 1, "sz_applied": (S - 1) * 4096}])
check("format_version", d["format_version"], 1)
'
"$damonc" --json report hugepage -i "$work/damo.json" >"$work/damo.out.json"
expect "report hugepage -i (damo's format)" "$work/damo.out.json" "$hp_py"'
check("schemes", d["schemes"], [])
'
# the text says the same figures
got=$("$damonc" report hugepage -i "$work/rec")
want=$(S=$S R=$R python3 -c '
import os
S, R = int(os.environ["S"]), int(os.environ["R"])
print(f"kdamond 0, {S} snapshots over {S - 1}.0 s")
print(f"kdamond 0 scheme 0 (collapse): applied to {S - 1} regions, {(S - 1) * 4} KiB, during the record")')
grep -qF "$(sed -n 1p <<<"$want")" <<<"$got" || bad "report hugepage -i's text: $got"
grep -qF "$(sed -n 2p <<<"$want")" <<<"$got" || bad "report hugepage -i's text (scheme): $got"

# bad input: exit 2, the option or file named, nothing read
case_() { # EXIT MESSAGE ARGS...
	local want=$1 msg=$2 rc=0 err
	shift 2
	err=$("$damonc" "$@" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$msg" <<<"$err"; then
		bad "damonc $*: exit $rc, $err (want exit $want and \"$msg\")"
	fi
}
case_ 2 "-i '$work/none': No such file or directory" report hugepage -i "$work/none"
case_ 2 "-i reads a record: --pid" report hugepage -i "$work/rec" --pid 1

expect_run
[ $fail = 0 ] && echo "ok: report hugepage -i agrees with the generated records"
exit $fail
