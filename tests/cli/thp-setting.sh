#!/bin/bash
# report hugepage gives the THP settings as the selected value ("madvise"), not the raw file
# ("always [madvise] never"), in text and JSON. The check walks the JSON document for the
# keys, so that it holds whatever object the settings live in.
#   thp-setting.sh DAMONC
set -euo pipefail
damonc=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/damonc-thp.XXXXXX")
trap 'rm -f "$root/proc"; rm -rf "$root"' EXIT
thp=$root/sys/kernel/mm/transparent_hugepage
mkdir -p "$thp/khugepaged"
ln -s /proc "$root/proc"
echo "always [madvise] never" >"$thp/enabled"
echo "always defer defer+madvise madvise [never]" >"$thp/defrag"
echo 511 >"$thp/khugepaged/max_ptes_none"

text=$("$damonc" --sysroot "$root" report hugepage)
grep -q "enabled=madvise defrag=never" <<<"$text" || { echo "FAIL: text: $text"; exit 1; }
"$damonc" --sysroot "$root" --json report hugepage | python3 -c '
import json, sys
found = {}
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("enabled", "defrag") and isinstance(x, str):
                found[k] = x
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(json.load(sys.stdin))
assert found == {"enabled": "madvise", "defrag": "never"}, found
' || { echo "FAIL: JSON settings are not the selected values"; exit 1; }
echo "ok: THP settings are the selected values"
