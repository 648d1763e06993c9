#!/bin/bash
# One way of writing each kind of value in the text reports (damonc-report(1)): an address
# is 0x and 16 hexadecimal digits, a range START-END; a size in a column has two decimals
# past bytes ("10.00 MiB", never "10 MiB" under "10.50 MiB"); CPU and ratios in percent,
# never in basis points; a table's values end where its header's names end (holistic's and
# footprints' percentiles), headers in lower case (module's too). In JSON, THP's and
# khugepaged's numbers are numbers; 'agent --json' is refused, not ignored.
#   output-format.sh DAMONC GEN_RECORD
set -euo pipefail
damonc=$1 gen=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-output.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$gen" --snapshots 20 --regions 10 --targets 2 --vary 3 --config 4242 --footprints \
	>"$work/rec"
declare -A out
for r in "access" "access --all-snapshots" "heatmap" "holistic" "info" "footprints" \
	"wss" "nr-regions" "times" "access --sort hot --top 3"; do
	read -ra words <<<"$r"
	out[$r]=$("$damonc" report "${words[@]}" -i "$work/rec") || bad "report $r failed"
done

# addresses: every 0x... is 0x and 16 digits; ranges START-END, no "[a, b)"
for r in "${!out[@]}"; do
	odd=$(grep -oE '0x[0-9a-f]+' <<<"${out[$r]}" | grep -vxE '0x[0-9a-f]{16}' || true)
	[ -z "$odd" ] || bad "report $r writes addresses otherwise: $(head -3 <<<"$odd")"
	! grep -qE '\[0x[0-9a-f]+, 0x' <<<"${out[$r]}" || bad "report $r writes a range as [a, b)"
done
grep -qE '0x[0-9a-f]{16}-0x[0-9a-f]{16}' <<<"${out[holistic]}" ||
	bad "holistic's heatmaps name no START-END range"

# sizes in a column (table rows: no "what: value" prose): two decimals past bytes
for r in access footprints holistic wss; do
	odd=$(grep -v ': ' <<<"${out[$r]}" | grep -oE '(^| )[0-9]+ (KiB|MiB|GiB|TiB)' || true)
	[ -z "$odd" ] || bad "report $r has a size without decimals in a column: $odd"
done

# CPU and the huge-page share in percent, never in basis points
! grep -qE '[0-9] bp\b' <<<"${out[footprints]}" || bad "footprints in basis points: ${out[footprints]}"
grep -qE '^kdamond .*CPU( +[0-9]+\.[0-9]{2}%)+$' <<<"${out[footprints]}" ||
	bad "footprints' kdamond CPU is not in percent: ${out[footprints]}"

# a table's columns: every row's values end where the header's names end
aligned() { # NAME TEXT HEADER_REGEX
	local header ends row
	header=$(grep -E "$3" <<<"$2" | head -1)
	[ -n "$header" ] || { bad "$1: no header"; return; }
	ends=$(awk '{ s = $0; e = ""; for (i = 1; i <= length(s); i++)
		if (substr(s, i, 1) != " " && (i == length(s) || substr(s, i + 1, 1) == " "))
			e = e " " i; print e }' <<<"$header" | awk '{ $1 = ""; print }')
	while IFS= read -r row; do
		for e in $ends; do
			[ "${row:e-1:1}" != " " ] && [ "${row:e:1}" = "" ] || [ "${row:e:1}" = " " ] ||
				{ bad "$1: a value does not end under its header at column $e: '$row'"; break; }
		done
	done < <(sed -n "/$3/,/^\$/p" <<<"$2" | tail -n +2 | grep -E '[0-9]')
}
aligned "holistic's distributions" "${out[holistic]}" '^percentile +p0'
aligned "footprints" "${out[footprints]}" '^what +p0'

# module's header is lower case, as the other tables' are
mods=$work/root/sys/module/damon_reclaim/parameters
mkdir -p "$mods" "$work/root/sys/kernel/mm/damon/admin/kdamonds"
echo N >"$mods/enabled"
echo 0 >"$work/root/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
head=$("$damonc" --sysroot "$work/root" module | head -1)
[ "$head" = "$(tr '[:upper:]' '[:lower:]' <<<"$head")" ] || bad "module's header is not lower case: $head"

# THP's and khugepaged's numbers as JSON numbers, the modes as strings
thp=$work/root/sys/kernel/mm/transparent_hugepage
mkdir -p "$thp/khugepaged" "$work/root/proc"
echo 'always [madvise] never' >"$thp/enabled"
for f in pages_to_scan:4096 scan_sleep_millisecs:10000 max_ptes_none:511 full_scans:7 \
	pages_collapsed:3 defrag:1; do
	echo "${f#*:}" >"$thp/khugepaged/${f%%:*}"
done
printf 'MemTotal: 1000 kB\nMemFree: 500 kB\nMemAvailable: 600 kB\nAnonHugePages: 0 kB\n' \
	>"$work/root/proc/meminfo"
: >"$work/root/proc/vmstat"
"$damonc" --sysroot "$work/root" --json report hugepage >"$work/hp.json" ||
	bad "report hugepage --json failed"
python3 - "$work/hp.json" <<'EOF' || bad "THP's values in JSON"
import json, sys
thp = json.load(open(sys.argv[1]))["system"]["thp"]
want = {"enabled": "madvise", "khugepaged_pages_to_scan": 4096,
        "khugepaged_scan_sleep_millisecs": 10000, "khugepaged_max_ptes_none": 511,
        "khugepaged_full_scans": 7, "khugepaged_pages_collapsed": 3, "khugepaged_defrag": 1}
for k, v in want.items():
    if thp.get(k) != v or type(thp.get(k)) is not type(v):
        sys.exit("thp[%s] is %r, expected %r" % (k, thp.get(k), v))
EOF

# agent --json: refused, saying where the agent's state is
rc=0
err=$("$damonc" --sysroot "$work/root" agent --json 2>&1) || rc=$?
if [ "$rc" != 2 ] || [[ $err != *"damonc status --json"* ]]; then
	bad "agent --json exited $rc: $err"
fi

[ $fail = 0 ] && echo "ok: one format for addresses, sizes in columns, CPU; aligned tables"
exit $fail
