#!/bin/bash
# A damonc systemd unit (the agent's, the metrics') is hardened: 'systemd-analyze security'
# rates it OK or better (an exposure below 5.0 of 10), offline, on the unit as built. SKIP
# without systemd-analyze or its --offline mode (systemd 250).
#   unit-security.sh UNIT_FILE
set -euo pipefail
unit=$1
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-unit.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$unit" "$work/"
if ! out=$(cd "$work" && systemd-analyze security --offline=yes --no-pager \
	"./$(basename "$unit")" 2>&1); then
	if grep -qi "unrecognized option\|unknown option" <<<"$out"; then
		echo "SKIP: systemd-analyze has no --offline ($(systemd-analyze --version | head -n 1))"
		exit 77
	fi
fi
line=$(grep "Overall exposure level" <<<"$out") || { echo "$out"; echo "FAIL: no rating"; exit 1; }
[[ $line =~ :\ ([0-9]+\.[0-9])\ ([A-Z]+) ]] || { echo "FAIL: cannot read: $line"; exit 1; }
level=${BASH_REMATCH[1]} name=${BASH_REMATCH[2]}
case $name in
OK | SAFE | PERFECT) echo "ok: $(basename "$unit") rated $level $name" ;;
*)
	grep '✗' <<<"$out" || true
	echo "FAIL: $(basename "$unit") rated $level $name (OK or better wanted)"
	exit 1
	;;
esac
