#!/bin/bash
# Helpers for tests that run against damon-emu. Source it, then:
#
#   emu_setup PROFILE [damon-emu options...]
#       Make a temporary sysroot, mount damon-emu on $SYSROOT/sys/kernel/mm/damon/admin
#       and export SYSROOT, ADMIN, DAMONC_SYSROOT (= $SYSROOT), EMU_LOG (the --log file;
#       with EMU_LOG_PIDS=1 each line ends with the writer's pid=N: --log-pids),
#       EMU_FAULTS (a --faults file, empty at first) and EMU_MODULES ($SYSROOT/sys/module,
#       passed as --modules; damon_reclaim, damon_lru_sort and, on 6.17+ profiles,
#       damon_stat have parameters/enabled = N). $SYSROOT/proc is a symlink to /proc and
#       $SYSROOT/run exists. Everything is undone on EXIT by emu_cleanup (unmount, kill,
#       rm); a test that has set its own EXIT trap before keeps it, and must call
#       emu_cleanup from it, except in a subshell, where emu_setup always sets its own.
#       emu_cleanup exits 1 when the daemon reported sanitizer errors, or when damonc
#       printed JSON that does not follow its schema (DAMONC_JSON_SPOOL, see
#       tests/lib/damonc-checked): call it last in a trap, after killing the test's own background processes (one left holding meson's
#       output pipe makes the test hang until its timeout).
#   emu_dump            Print the tree as "D mode path" / "F mode path = value|" lines
#                       (paths relative to $ADMIN, sorted, "|" for each newline); with
#                       $DAMON_CONFORM set, its `dump` does it in one process (a shell
#                       loop forks twice per file: half a minute per dump on a busy machine).
#   fair_wait MS CMD... Run CMD every 100 ms until it succeeds (0) or MS milliseconds of a
#                       fair share of the CPUs have passed (1); see below.
#   emu_reset           Remount: a fresh tree, same profile and options, log and faults
#                       files kept.
#   emu_expect          Run the damon-conform script read from stdin against the emulator
#                       (needs $DAMON_CONFORM; the tree is left as the script leaves it);
#                       returns damon-conform's status. See tests/conformance/README.md.
#
# The binary is $DAMON_EMU (set by meson for every build: gcc, clang, ASan).
# Tests that cannot run (no /dev/fuse, no fusermount3, mount refused) exit 77, saying why.

EMU_PID=
EMU_PROFILE=
EMU_ARGS=()
EMU_NCPU=$(nproc 2>/dev/null || echo 1)

# Waiting on a busy machine. A bound on a wait is counted in time of a fair share of the
# CPUs: the time each step takes (the check and a 100 ms pause; a check may take seconds of
# its own, as one that looks twice 3 s apart) counts in full while the machine is not
# oversubscribed, and as cores/load of it (the 1-minute load average) while other work keeps
# every core busy. Work we wait for (the emulated kdamond, the damonc agent, a mount) needs
# CPU: on a loaded machine it gets less, and the bound grows with that instead of failing; on
# an idle one a wait ends as soon as the work is done, as before. meson's timeout stays the
# last resort.
fair_wait() {
	local left=$1 load now last
	shift
	last=${EPOCHREALTIME/[.,]/}
	while :; do
		"$@" && return 0
		((left > 0)) || return 1
		sleep 0.1
		now=${EPOCHREALTIME/[.,]/}
		read -r load _ </proc/loadavg
		load=${load/./}
		load=$((10#$load))
		if ((load > EMU_NCPU * 100)); then
			left=$((left - (now - last) * EMU_NCPU / (10 * load)))
		else
			left=$((left - (now - last) / 1000))
		fi
		last=$now
	done
}

emu_skip() {
	echo "SKIP: $*"
	exit 77
}

emu_bin() {
	if [ -n "${DAMON_EMU:-}" ]; then
		printf '%s\n' "$DAMON_EMU"
	elif command -v damon-emu >/dev/null 2>&1; then
		command -v damon-emu
	else
		echo "emu.sh: DAMON_EMU is not set and damon-emu is not in PATH" >&2
		return 1
	fi
}

emu_mounted() {
	# field 5 of mountinfo is the mount point, octal-escaped like the kernel does
	local want=${ADMIN// /\\040}
	awk -v m="$want" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

emu_mounted_or_gone() { emu_mounted || ! kill -0 "$EMU_PID" 2>/dev/null; }

emu_start() {
	local bin
	bin=$(emu_bin) || exit 1
	local pids=()
	[ "${EMU_LOG_PIDS:-}" != 1 ] || pids=(--log-pids)
	"$bin" --foreground --profile "$EMU_PROFILE" --log "$EMU_LOG" "${pids[@]}" \
		--faults "$EMU_FAULTS" --modules "$EMU_MODULES" "${EMU_ARGS[@]}" "$ADMIN" \
		2>>"$SYSROOT/run/damon-emu.err" &
	EMU_PID=$!
	if ! fair_wait 10000 emu_mounted_or_gone; then
		echo "emu.sh: damon-emu did not mount $ADMIN within 10s" >&2
		exit 1
	fi
	emu_mounted && return 0
	EMU_PID=
	cat "$SYSROOT/run/damon-emu.err" >&2
	if grep -qiE 'permission|not permitted|fuse: device not found' "$SYSROOT/run/damon-emu.err"; then
		emu_skip "cannot mount a FUSE filesystem here"
	fi
	echo "emu.sh: damon-emu exited before mounting" >&2
	exit 1
}

emu_gone() { ! kill -0 "$EMU_PID" 2>/dev/null; }

emu_stop() {
	if emu_mounted; then
		fusermount3 -u "$ADMIN" 2>/dev/null || umount -l "$ADMIN" 2>/dev/null || true
	fi
	if [ -n "$EMU_PID" ]; then
		fair_wait 2000 emu_gone || kill "$EMU_PID" 2>/dev/null
		fair_wait 3000 emu_gone || true
		kill -9 "$EMU_PID" 2>/dev/null || true
		wait "$EMU_PID" 2>/dev/null || true
	fi
	EMU_PID=
}

emu_cleanup() {
	local bad=
	[ -n "${SYSROOT:-}" ] || return 0
	emu_stop
	# a sanitizer report from the daemon fails the test, whatever the test thought
	if grep -qE 'Sanitizer|runtime error:' "$SYSROOT/run/damon-emu.err" 2>/dev/null; then
		echo "FAIL: damon-emu reported errors:" >&2
		cat "$SYSROOT/run/damon-emu.err" >&2
		bad=1
	fi
	# the JSON damonc printed during the test, against its schemas (tests/lib/damonc-checked)
	if [ -n "${DAMONC_JSON_SPOOL:-}" ] && [ -d "$DAMONC_JSON_SPOOL" ]; then
		if ! "$DAMONC_JSON_PYTHON" "$DAMONC_JSON_VALIDATE" "$DAMONC_SCHEMA_DIR" spool \
			"$DAMONC_JSON_SPOOL" >/dev/null; then
			echo "FAIL: damonc printed JSON that does not follow its schema (docs/schema)" >&2
			bad=1
		fi
	fi
	unset DAMONC_JSON_SPOOL
	# never follow $SYSROOT/proc: it is a symlink to the real /proc
	rm -f "$SYSROOT/proc"
	rm -rf --one-file-system "$SYSROOT"
	SYSROOT=
	[ -z "$bad" ] || exit 1
}

# emu_profile_since PROFILE VERSION: the profile's kernel is VERSION or newer (`next` is
# newer than every release).
emu_profile_since() {
	[ "$1" = next ] && return 0
	[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]
}

emu_setup() {
	local profile=${1:?emu_setup PROFILE [options...]}
	shift
	[ -c /dev/fuse ] || emu_skip "no /dev/fuse"
	command -v fusermount3 >/dev/null 2>&1 || emu_skip "no fusermount3"
	EMU_PROFILE=$profile
	EMU_ARGS=("$@")
	SYSROOT=$(mktemp -d "${TMPDIR:-/tmp}/damon-emu.XXXXXX")
	# In a subshell bash's `trap -p` shows the parent's EXIT trap, which does not run there:
	# install ours whatever it says, or the daemon outlives the subshell (and keeps the
	# pipes of whoever waits for its output, e.g. meson, open).
	if [ "$BASH_SUBSHELL" -gt 0 ] || [ -z "$(trap -p EXIT)" ]; then
		trap emu_cleanup EXIT
	fi
	ADMIN=$SYSROOT/sys/kernel/mm/damon/admin
	EMU_LOG=$SYSROOT/run/damon-emu.log
	EMU_FAULTS=$SYSROOT/run/damon-emu.faults
	EMU_MODULES=$SYSROOT/sys/module
	mkdir -p "$ADMIN" "$SYSROOT/run" "$SYSROOT/sys/fs/cgroup"
	ln -s /proc "$SYSROOT/proc"
	local m
	for m in damon_reclaim damon_lru_sort damon_stat; do
		# DAMON_STAT appeared in 6.17 (profiles 6.18, 7.2, 7.3, next have it)
		[ "$m" = damon_stat ] && ! emu_profile_since "$profile" 6.17 && continue
		mkdir -p "$EMU_MODULES/$m/parameters"
		echo N >"$EMU_MODULES/$m/parameters/enabled"
	done
	# The parameters that tell a kernel's version without a write, as a real machine's
	# /sys/module has them (docs/damon-abi.md section 7): a parameter every version has,
	# and those that arrived with the profile's version or before.
	emu_module_params "$profile"
	: >"$EMU_FAULTS"
	: >"$EMU_LOG"
	export SYSROOT ADMIN EMU_LOG EMU_FAULTS EMU_MODULES
	export DAMONC_SYSROOT=$SYSROOT
	# damonc's JSON, kept for emu_cleanup to check (when the tests run it through
	# tests/lib/damonc-checked)
	if [ -n "${DAMONC_JSON_VALIDATE:-}" ]; then
		export DAMONC_JSON_SPOOL=$SYSROOT/run/json-spool
		mkdir -p "$DAMONC_JSON_SPOOL"
	fi
	emu_start
}

emu_module_params() { # profile
	local entry m p v
	for entry in damon_reclaim:quota_ms:5.16 damon_reclaim:skip_anon:6.3 \
		damon_reclaim:quota_mem_pressure_us:6.9 damon_reclaim:addr_unit:6.18 \
		damon_reclaim:autotune_monitoring_intervals:7.2 damon_lru_sort:quota_ms:6.0 \
		damon_lru_sort:active_mem_bp:7.0 damon_lru_sort:addr_unit:6.18 \
		damon_lru_sort:autotune_monitoring_intervals:7.2 \
		damon_stat:estimated_memory_bandwidth:6.17 damon_stat:aggr_interval_us:6.18 \
		damon_stat:kdamond_pid:7.2; do
		IFS=: read -r m p v <<<"$entry"
		if [ ! -d "$EMU_MODULES/$m/parameters" ] || ! emu_profile_since "$1" "$v"; then
			continue
		fi
		echo 0 >"$EMU_MODULES/$m/parameters/$p"
	done
}

emu_reset() {
	emu_stop
	emu_start
}

# One line per entry: "D 755 path" or "F 600 path = value|", sorted by path (C locale).
# sysfs_read FILE: a DAMON file that takes damon_sysfs_lock with a trylock (state, pid,
# memcg_path), read again while that fails with EBUSY: the kdamond's periodic refresh and a
# damonc command or agent writing state hold the lock for moments, and a read then says
# when it came, not what the file holds. Other errors are said at once; an EBUSY that
# lasts 500 tries (a lock held by a blocked write) is said too.
sysfs_read() {
	local v _
	for _ in $(seq 1 500); do
		if v=$(cat -- "$1" 2>&1); then
			printf '%s\n' "$v"
			return 0
		fi
		[[ $v == *"Device or resource busy"* ]] || break
		sleep 0.01
	done
	printf '%s\n' "$v" >&2
	return 1
}

emu_dump() {
	if [ -n "${DAMON_CONFORM:-}" ]; then
		"$DAMON_CONFORM" dump --root "$ADMIN" | tail -n +2
		return
	fi
	emu_dump_sh
}

# The same in shell alone (tests/emulator/layout.sh checks that both agree).
emu_dump_sh() {
	local root=$ADMIN p rel mode val
	while IFS= read -r -d '' p; do
		rel=${p#"$root"/}
		mode=$(stat -c %a "$p")
		if [ -d "$p" ]; then
			printf 'D %s %s\n' "$mode" "$rel"
		else
			val=$(cat "$p" 2>&1; echo x)
			val=${val%x}
			printf 'F %s %s = %s\n' "$mode" "$rel" "${val//$'\n'/|}"
		fi
	done < <(find "$root" -mindepth 1 -print0 | LC_ALL=C sort -z)
}

emu_expect() {
	local f
	f=$(mktemp "$SYSROOT/run/expect.XXXXXX")
	cat >"$f"
	"${DAMON_CONFORM:?DAMON_CONFORM is not set}" run "$f" --root "$ADMIN" \
		--kernel "$EMU_PROFILE" --modules "$EMU_MODULES" --keep
}
