# Host-side helpers for the real-kernel suite (sourced by tests/vm/prepare and tests/vm/run).
# shellcheck shell=bash disable=SC2034 # the variables are for the scripts that source this

# Meson's conventions: 77 is SKIP, anything else non-zero is FAIL.
readonly VM_SKIP=77

VM_CACHE=${DAMONC_VM_CACHE:-${HOME:-/root}/.cache/damonc/vm}

# The kernel matrix: slot, Debian suites to resolve it from, how to obtain it. The slot names
# are part of the meson test names (tests/vm/meson.build lists the same four).
VM_SLOTS=(6.1 trixie trixie-backports sid)

vm_log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
vm_die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
vm_skip() { printf 'SKIP: %s\n' "$*" >&2; exit "$VM_SKIP"; }

# Debian suites (and the archive each lives in) behind a slot.
vm_slot_sources() {
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	case $1 in
	6.1)
		printf 'deb [signed-by=%s] http://deb.debian.org/debian bookworm main\n' "$key"
		printf 'deb [signed-by=%s] http://deb.debian.org/debian-security bookworm-security main\n' "$key"
		;;
	trixie | trixie-backports | sid)
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$key" "$1"
		;;
	*) vm_die "unknown kernel slot '$1'" ;;
	esac
}

# A throwaway apt configuration per slot: its own sources, lists and cache under $VM_CACHE,
# so /etc/apt and the machine's package state are never touched.
vm_apt_dir() { printf '%s/apt/%s\n' "$VM_CACHE" "$1"; }

vm_apt_opts() {
	local d
	d=$(vm_apt_dir "$1")
	VM_APT_OPTS=(-q -o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/parts"
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache"
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o APT::Get::List-Cleanup=0 -o Acquire::Retries=2 -o Acquire::http::Timeout=30)
	# apt's sandbox user cannot write into root's cache directory.
	[ "$(id -u)" != 0 ] || VM_APT_OPTS+=(-o APT::Sandbox::User=root)
}

# apt output that means "the registry cannot be reached" (a SKIP), as opposed to anything else
# going wrong (a FAIL: bad signature, hash mismatch, missing package...).
vm_is_network_error() {
	grep -qiE 'Could not resolve|Temporary failure resolving|Could not connect|Connection failed|Network is unreachable|Connection timed out|No route to host|Unable to connect|Connection refused' "$1"
}

# bzImage header magic "HdrS" at 0x202: a download or a build that is not a kernel fails here.
vm_is_bzimage() {
	[ "$(od -An -c -j 514 -N 4 "$1" 2>/dev/null | tr -d ' ')" = HdrS ]
}
