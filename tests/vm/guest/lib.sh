# Helpers for the guest's scenario scripts (busybox sh; sourced). A scenario records checks
# with pass/fail/check/expect_rc, data for the host with data(), and ends with finish, which
# writes the verdict. Everything recorded also goes to the console for people to read.
# shellcheck shell=sh

ADMIN=/sys/kernel/mm/damon/admin
STAT_ENABLED=/sys/module/damon_stat/parameters/enabled
vm_failed=0

rec() {
	printf '%s\n' "$*" >>"$VM_OUT"
	printf '%s\n' "$*"
}
note() { rec "# $*"; }
pass() { rec "ok - $*"; }
fail() {
	rec "not ok - $*"
	vm_failed=1
}
# A line the host reads back (dumps, numbers it checks itself).
data() { rec "DATA $*"; }

check() { # description, command...
	_desc=$1
	shift
	if "$@"; then pass "$_desc"; else fail "$_desc"; fi
}

# Run a command; record its exit code, stdout and stderr; it must exit with the expected code.
# The output stays in /tmp/out and /tmp/err for further checks.
expect_rc() { # expected code, description, command...
	_want=$1 _desc=$2
	shift 2
	"$@" >/tmp/out 2>/tmp/err
	_got=$?
	note "\$ $* -> exit $_got"
	sed 's/^/#   stdout: /' /tmp/out >>"$VM_OUT"
	sed 's/^/#   stderr: /' /tmp/err >>"$VM_OUT"
	cat /tmp/out /tmp/err
	if [ "$_got" = "$_want" ]; then
		pass "$_desc (exit $_got)"
	else
		fail "$_desc: exit $_got, expected $_want"
	fi
}

finish() {
	if [ "$vm_failed" = 0 ]; then rec "VERDICT PASS"; else rec "VERDICT FAIL"; fi
	exit 0
}
skip_scenario() {
	rec "VERDICT SKIP $*"
	exit 0
}

# One sysfs value with each newline shown as "|", as in the fixtures.
rd() { tr '\n' '|' <"$1" 2>&1; }

# Kernel version as MAJOR*1000+MINOR, from uname -r (e.g. 7.2.13+deb14-amd64 -> 7002).
kver() {
	uname -r | awk -F. '{ printf "%d\n", $1 * 1000 + $2 }'
}

# Every file under a DAMON admin directory as "F MODE path = value|", sorted by path: the
# format of tests/fixtures/kernel-trees/*-defaults.txt.
dump_tree() { # root
	(cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r p; do
		printf 'F %s %s = %s\n' "$(stat -c %a "$p")" "$p" "$(rd "$p")"
	done)
}

# DAMON_STAT (7.x Debian kernels) holds DAMON exclusively; the guest boots with it off.
damon_stat_set() { # Y|N
	[ -e "$STAT_ENABLED" ] || return 0
	printf '%s\n' "$1" >"$STAT_ENABLED"
}

# A background process to use as a DAMON target; it dies with the guest. Its output must not
# be the pipe of the $(...) that reads its pid, or that would wait for it to exit.
# A process to monitor, returned once it runs sleep: the forked shell's mappings are not
# the ones it keeps, and a loaded TCG guest can take long to exec (at most 30 s).
spawn_sleeper() {
	sleep 100000 >/dev/null 2>&1 &
	_p=$! _i=0
	while [ $_i -lt 300 ]; do
		case $(tr '\0' ' ' <"/proc/$_p/cmdline" 2>/dev/null) in "sleep "*) break ;; esac
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_p"
}

note "guest: kernel $(uname -r), init started at $(cut -d' ' -f1 /proc/uptime) s of uptime"
if [ -e "$STAT_ENABLED" ]; then note "damon_stat enabled=$(cat "$STAT_ENABLED")"; fi

# The damonc command line is being written against a contract: a scenario that needs a command
# damonc does not have yet is skipped, visibly, rather than failed or passed.
require_damonc_command() { # command
	damonc "$1" --help >/dev/null 2>&1 ||
		skip_scenario "damonc has no '$1' command yet ('damonc $1 --help' fails)"
}

# Start the hotcold workload (tests/workloads/hotcold.c) and wait for its
# "hot=0xS-0xE cold=0xS-0xE" line; sets HC_PID, HOT, COLD (0xSTART-0xEND each).
start_hotcold() { # hotcold arguments... (HC_WAIT: tenths of a second to wait, default 1200)
	hotcold-static "$@" </dev/null >/tmp/hotcold.out 2>&1 &
	HC_PID=$!
	_i=0
	# writing every page of both buffers takes a while under TCG on a busy host
	while [ $_i -lt "${HC_WAIT:-1200}" ] && ! grep -q '^hot=' /tmp/hotcold.out; do
		kill -0 "$HC_PID" 2>/dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
	_line=$(grep -m1 '^hot=' /tmp/hotcold.out) || {
		fail "hotcold did not print its buffers: $(cat /tmp/hotcold.out)"
		return 1
	}
	HOT=$(echo "$_line" | sed 's/^hot=\([^ ]*\) .*/\1/')
	COLD=$(echo "$_line" | sed 's/.* cold=\([^ ]*\)$/\1/')
	note "hotcold pid $HC_PID: hot $HOT, cold $COLD"
}

# AnonHugePages (kB) of the VMA that starts where a buffer (0xSTART-0xEND) starts.
vma_thp_kb() { # pid, buffer
	_s=${2%%-*}
	awk -v s="${_s#0x}" '
		/^[0-9a-f]+-[0-9a-f]+ / { split($1, r, "-"); inside = (r[1] == s) }
		inside && /^AnonHugePages:/ { print $2; found = 1; exit }
		END { if (!found) exit 1 }' "/proc/$1/smaps"
}

# Dumps of the whole admin tree, to prove that a refused request changed nothing.
snapshot_tree() { dump_tree "$ADMIN" >"/tmp/tree.$1"; }
check_tree_unchanged() { # snapshot name, description
	dump_tree "$ADMIN" >/tmp/tree.now
	if cmp -s "/tmp/tree.$1" /tmp/tree.now; then
		pass "$2: the DAMON tree is unchanged"
	else
		fail "$2: the DAMON tree changed"
		diff "/tmp/tree.$1" /tmp/tree.now | sed 's/^/#   /' >>"$VM_OUT"
	fi
}

# Ask a running kdamond to refresh its schemes' stats. The write fails with EBUSY while another
# writer (damonc's agent walking tried_regions) holds DAMON's sysfs lock: retry a while.
update_stats() { # kdamond directory
	_i=0
	while [ $_i -lt 20 ]; do
		echo update_schemes_stats 2>/dev/null >"$1/state" && return 0
		sleep 0.5
		_i=$((_i + 1))
	done
	return 1
}

# wait_tried_above KDAMOND_DIR SCHEME_DIR N: until the scheme's stats/nr_tried exceeds N.
# Bounded by the kdamond's progress, not the clock: each stats update that succeeds waited
# for the kdamond to pass a round, and 40 of them half a second apart give it 20 s of its
# own time however slow a loaded TCG guest makes it (updates refused while the sysfs lock is
# busy do not count; at most 200 tries in all).
wait_tried_above() { wait_by_progress tried_above "$@"; }
# shellcheck disable=SC2317 # called through wait_by_progress
tried_above() {
	echo update_schemes_stats 2>/dev/null >"$1/state" || return 2
	[ "$(cat "$2/stats/nr_tried")" -gt "$3" ]
}

# wait_by_progress FUNC ARGS...: until FUNC ARGS returns 0, calling it half a second apart;
# 1 means the kdamond made progress (its update succeeded) and the answer is still no, 2 that
# the update was refused (the sysfs lock was busy). At most 40 of progress, 200 calls in all.
wait_by_progress() {
	_i=0 _n=0
	while [ "$_i" -lt 40 ] && [ "$_n" -lt 200 ]; do
		_n=$((_n + 1))
		"$@"
		case $? in
		0) return 0 ;;
		1) _i=$((_i + 1)) ;;
		esac
		sleep 0.5
	done
	return 1
}

# Read a file that takes DAMON's sysfs lock (kdamonds/N/state and pid, with trylock): EBUSY
# while another writer (damonc's agent) holds it, so retry a while. Prints the value.
rd_locked() { # file
	_i=0
	while [ $_i -lt 20 ]; do
		cat "$1" 2>/dev/null && return 0
		sleep 0.5
		_i=$((_i + 1))
	done
	cat "$1"
}

# The huge kB of each buffer as hotcold reports them on SIGUSR1: sets BUF_A, BUF_B (the
# buffers its first line named hot and cold, whatever SIGUSR2 did since).
hc_huge() {
	_n=$(grep -c '^huge ' /tmp/hotcold.out)
	kill -USR1 "$HC_PID"
	_i=0
	while [ "$(grep -c '^huge ' /tmp/hotcold.out)" = "$_n" ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_l=$(grep '^huge ' /tmp/hotcold.out | tail -n 1)
	# shellcheck disable=SC2034 # for the scenarios
	BUF_A=$(echo "$_l" | sed 's/.* hot=\([-0-9]*\) .*/\1/')
	# shellcheck disable=SC2034
	BUF_B=$(echo "$_l" | sed 's/.* cold=\([-0-9]*\) .*/\1/')
	# shellcheck disable=SC2034 # where buffer B's first huge page starts (kB; -1: none)
	BUF_B_FROM=$(echo "$_l" | sed -n 's/.* cold_from=\([-0-9]*\).*/\1/p')
}
