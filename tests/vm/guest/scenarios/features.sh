#!/bin/sh
# features: `damonc features` on a real kernel, on the fresh tree and on a populated one (the
# fixtures' tree): the version range it infers must contain the real kernel version, and
# features whose first release is known must be detected as this kernel has them. "unknown"
# is an honest answer where reading cannot tell: on the fresh tree (no kdamond directories to
# look at) and for keywords that only a write would reveal; a wrong yes or no never is.
# shellcheck source=tests/vm/guest/lib.sh
. /vm/lib.sh

# --- damonc use (the only place this scenario spells damonc's command line) ---------------
# shellcheck disable=SC2317 # dc_* are called through expect_rc
dc_features() { damonc features; }
# shellcheck disable=SC2317
dc_features_json() { damonc --json=pretty features; }
# -------------------------------------------------------------------------------------------

v=$(kver)
vmaj=$((v / 1000)) vmin=$((v % 1000))

# Answer of `damonc features` (text) for one feature: yes, no or unknown.
feature() { awk -v n="$1" '$2 == n { print $1; exit }' /tmp/features; }

expect_feature() { # name, first version as MAJOR*1000+MINOR ("never": not released), [unknown-ok]
	if [ "$2" = never ] || [ "$v" -lt "$2" ]; then want=no; else want=yes; fi
	got=$(feature "$1")
	if [ "$got" = unknown ] && [ "${3:-}" = unknown-ok ]; then
		note "$1: damonc says 'unknown' (cannot be read here); this kernel: '$want'"
		return
	fi
	check "$1: damonc says '${got:-nothing}', this kernel $(uname -r) should be '$want'" test "$got" = "$want"
}

# The inferred range: min_version <= this kernel <= max_version (null max: open).
check_version_range() {
	min=$(sed -n 's/.*"min_version": *"\([0-9.]*\)".*/\1/p' /tmp/features.json)
	max=$(sed -n 's/.*"max_version": *"\([0-9.]*\)".*/\1/p' /tmp/features.json)
	note "damonc infers Linux ${min:-?} to ${max:-newest}; the kernel is $vmaj.$vmin"
	lo=$(echo "$min" | awk -F. '{ printf "%d", $1 * 1000 + $2 }')
	check "inferred minimum version ${min:-none} <= $vmaj.$vmin" test -n "$min" -a "$lo" -le "$v"
	if [ -n "$max" ]; then
		hi=$(echo "$max" | awk -F. '{ printf "%d", $1 * 1000 + $2 }')
		check "inferred maximum version $max >= $vmaj.$vmin" test "$hi" -ge "$v"
	fi
}

run_features() { # label, [unknown-ok] for features that reading cannot tell here
	u=${2:-}
	expect_rc 0 "damonc features ($1)" dc_features
	cp /tmp/out /tmp/features
	expect_rc 0 "damonc --json=pretty features ($1)" dc_features_json
	cp /tmp/out /tmp/features.json
	check_version_range
	expect_feature sysfs 5018 "$u"
	expect_feature ops_vaddr 5018 "$u"
	expect_feature ops_paddr 5018 "$u"
	expect_feature tried_regions 6002 "$u"
	expect_feature filters 6003 "$u"
	expect_feature quota_goals 6008 "$u"
	expect_feature core_ops_filters 6015 "$u"
	expect_feature action_collapse 7002 "$u"
	expect_feature hugepage_mem_bp never unknown-ok # a goal metric keyword: only a write tells
}

run_features "fresh tree" unknown-ok
p0=$(spawn_sleeper)
p1=$(spawn_sleeper)
sh /vm/populate.sh "$ADMIN" "$p0" "$p1" >/dev/null 2>&1
check "populate the tree as the fixtures were" test $? = 0
run_features "populated tree"
finish
