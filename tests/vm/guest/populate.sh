#!/bin/sh
# Populate a fresh DAMON admin tree the way tests/fixtures/kernel-trees/*-defaults.txt were
# captured: 1 to nr_kdamonds, nr_contexts, nr_schemes, targets/0/regions/nr_regions, each
# nr_filters, goals/nr_goals and nr_dests (where the kernel has them), operations vaddr, and 2
# targets with the given pids. Runs in the guest (busybox sh, real sysfs) and on the host
# (the emulator's mount), so that both trees are built by the same writes.
#
#   populate.sh ADMIN_DIR PID0 PID1
# Prints one "W ok" line per write; exits non-zero at the first write that fails.
set -eu
root=$1 pid0=$2 pid1=$3
ctx=kdamonds/0/contexts/0

w() { # path under root, value
	if ! printf '%s\n' "$2" >"$root/$1"; then
		echo "W FAIL $1 <= '$2'"
		exit 1
	fi
	echo "W ok   $1 <= '$2'"
}

w kdamonds/nr_kdamonds 1
w kdamonds/0/contexts/nr_contexts 1
w $ctx/operations vaddr
w $ctx/targets/nr_targets 2
w $ctx/targets/0/pid_target "$pid0"
w $ctx/targets/1/pid_target "$pid1"
w $ctx/schemes/nr_schemes 1
w $ctx/targets/0/regions/nr_regions 1
for f in filters core_filters ops_filters; do
	[ ! -e "$root/$ctx/schemes/0/$f/nr_filters" ] || w "$ctx/schemes/0/$f/nr_filters" 1
done
[ ! -e "$root/$ctx/schemes/0/quotas/goals/nr_goals" ] || w $ctx/schemes/0/quotas/goals/nr_goals 1
[ ! -e "$root/$ctx/schemes/0/dests/nr_dests" ] || w $ctx/schemes/0/dests/nr_dests 1
