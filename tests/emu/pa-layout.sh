#!/bin/bash
# report pa-layout and start --numa-node, on this machine's own /proc/iomem and memory
# blocks (read only; the sysroot's sys/devices is the host's): the layout covers every
# top-level resource of /proc/iomem with its node, and start --numa-node N monitors node N's
# System RAM ranges in whole pages (worked out here independently, in Python); --addr-unit gives them in
# units; a node without memory, a node with --regions or --pid, and a bad number are exit 2
# with nothing written.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"
c=$ADMIN/kdamonds/0/contexts/0
ln -s /sys/devices "$SYSROOT/sys/devices"
[ -d /sys/devices/system/node/node0 ] || { echo "SKIP: this machine lists no NUMA node"; exit 77; }

# expected NODE: node NODE's System RAM ranges "start end" per line, adjacent ones merged
expected() {
	python3 - "$1" <<'EOF'
import os, re, sys
node = int(sys.argv[1])
bs = int(open("/sys/devices/system/memory/block_size_bytes").read(), 16)
d = "/sys/devices/system/node/node%d" % node
blocks = sorted(int(m.group(1)) for m in (re.fullmatch(r"memory(\d+)", n) for n in os.listdir(d)) if m)
ram = []
for line in open("/proc/iomem"):
    m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) : System RAM$", line.rstrip("\n"))
    if m:
        ram.append((int(m.group(1), 16), int(m.group(2), 16) + 1))
out = []
for b in blocks:
    bs_, be = b * bs, (b + 1) * bs
    for s, e in ram:
        lo, hi = max(s, bs_), min(e, be)
        if lo < hi:
            if out and out[-1][1] == lo:
                out[-1][1] = hi
            else:
                out.append([lo, hi])
page = os.sysconf("SC_PAGE_SIZE")
for s, e in sorted(out):
    s, e = -(-s // page) * page, e // page * page	# whole pages
    if s < e:
        print(s, e)
EOF
}

expect_rc 0 "$D" report pa-layout
grep -q "System RAM" <<<"$OUT" || fail "no System RAM in the layout: $OUT"
expect_rc 0 "$D" --json report pa-layout
top=$(grep -c '^[0-9a-f]' /proc/iomem)
n=$(json_get 'len(j["ranges"])')
[ "$n" -ge "$top" ] || fail "$n ranges for the $top top-level resources of /proc/iomem"
ram0=$(json_get 'sum(r["size"] for r in j["ranges"] if r["node"] == 0 and r["resource"] == "System RAM")')
want=$(expected 0 | awk '{ t += $2 - $1 } END { printf "%.0f", t }')
# (the layout's bytes, the expected whole pages)
{ [ "$ram0" -ge "$want" ] && [ "$ram0" -lt $((want + 2 * 4096 * $(expected 0 | wc -l))) ]; } ||
	fail "node 0 has $ram0 bytes of System RAM in the layout, $want in whole pages here"
expect_rc 0 "$D" --json report pa-layout --node 0
[ "$(json_get 'all(r["node"] == 0 for r in j["ranges"])')" = True ] || fail "--node 0: $OUT"

: >"$EMU_LOG"
expect_rc 2 "$D" start --numa-node 4095 --action stat
grep -q -- "--numa-node 4095: no System RAM on that node" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" start --numa-node 0 --regions 4096-8192 --action stat
grep -q -- "--numa-node and --regions" <<<"$ERR" || fail "$ERR"
expect_rc 2 "$D" start --numa-node 0 --pid "$target" --action stat
expect_rc 2 "$D" start --numa-node zero --action stat
grep -q -- "--numa-node 'zero'" <<<"$ERR" || fail "$ERR"
[ "$(cat "$ADMIN/kdamonds/nr_kdamonds")" = 0 ] || fail "a refused --numa-node left a kdamond"

# the regions DAMON got, "start end" per line
regions() {
	local i
	for ((i = 0; i < $(cat "$c/targets/0/regions/nr_regions"); i++)); do
		echo "$(cat "$c/targets/0/regions/$i/start") $(cat "$c/targets/0/regions/$i/end")"
	done
}
expect_rc 0 "$D" start --numa-node 0 --action stat --sample 5ms --aggr 20ms
[ "$(cat "$c/operations")" = paddr ] || fail "--numa-node monitors $(cat "$c/operations")"
[ "$(regions)" = "$(expected 0)" ] ||
	fail "start --numa-node 0 monitors $(regions | tr '\n' ' '), not node 0's System RAM $(expected 0 | tr '\n' ' ')"
expect_rc 0 "$D" stop
# (the profiles this runs on have addr_unit: 6.18 and later)
expect_rc 0 "$D" start --numa-node 0 --addr-unit 4096 --action stat --sample 5ms --aggr 20ms
[ "$(regions)" = "$(expected 0 | awk '{ printf "%.0f %.0f\n", int(($1 + 4095) / 4096), int($2 / 4096) }')" ] ||
	fail "--numa-node 0 --addr-unit 4096 monitors $(regions | tr '\n' ' ')"
expect_rc 0 "$D" stop
echo "ok: pa-layout and --numa-node on profile $PROFILE ($(expected 0 | wc -l) ranges on node 0)"
