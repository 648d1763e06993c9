#!/bin/bash
# The Debian packages: dpkg-buildpackage builds damonc, damonc-pictures, libdamonctl0,
# libdamonctl-dev and damon-emu from a copy of the source tree; damonc depends on no
# picture library; lintian finds no error and no warning; the five install together with
# dpkg -i (the programs run, the library is found by pkg-config and a client builds with
# its flags and no other -dev package, the units, the manual and docs/ are in place,
# pictures are drawn and, once damonc-pictures is removed, refused with exit status 3,
# nothing is started) and are removed again with dpkg --purge, leaving nothing behind. Whatever happens, what this test installed is
# removed when it ends; it refuses to touch packages the system already had.
# SKIP unless root with dpkg-dev, debhelper and lintian (scripts/install-deps check), and the
# build dependencies (dpkg-checkbuilddeps).
#   debian-package.sh SOURCE_DIR GEN_RECORD
set -euo pipefail
src=$1 gen=$(realpath "$2")
pkgs=(damonc damonc-pictures libdamonctl0 libdamonctl-dev damon-emu)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: dpkg -i needs root"
for t in dpkg-buildpackage dpkg-checkbuilddeps dh lintian; do
	command -v "$t" >/dev/null || skip "no $t (dpkg-dev, debhelper, lintian)"
done
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in "${pkgs[@]}"; do
	! installed "$p" || skip "$p is installed already: this test installs and removes its own"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/damonc-deb.XXXXXX")
ours=
cleanup() {
	# remove what this test installed, whatever happened
	if [ -n "$ours" ]; then
		dpkg_locked --purge "${pkgs[@]}" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# dpkg ARGS, again while another dpkg holds its lock (a loaded CI machine), for up to 2 min
dpkg_locked() {
	local out
	for _ in $(seq 1 60); do
		if out=$(dpkg "$@" 2>&1); then
			echo "$out"
			return 0
		fi
		grep -qi 'lock' <<<"$out" || { echo "$out"; return 1; }
		sleep 2
	done
	echo "$out"
	return 1
}

mkdir "$work/src"
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work/src" -xf -
cd "$work/src"
unmet=$(dpkg-checkbuilddeps 2>&1) || skip "build dependencies missing: ${unmet#*: }"
dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log"; fail "dpkg-buildpackage"; }
cd "$work"
debs=()
for p in "${pkgs[@]}"; do
	f=("$p"_*.deb)
	[ -e "${f[0]}" ] || fail "no $p package built: $(ls)"
	debs+=("$work/${f[0]}")
done
# a server's damonc: no picture library among its package's dependencies (they are
# damonc-pictures')
deps=$(dpkg-deb -f "${debs[0]}" Depends)
! grep -qiE 'cairo|fontconfig|libx11|libxcb|pixman|freetype' <<<"$deps" ||
	fail "damonc depends on picture libraries: $deps"
grep -qiE 'cairo' <<<"$(dpkg-deb -f "${debs[1]}" Depends)" ||
	fail "damonc-pictures does not depend on cairo: $(dpkg-deb -f "${debs[1]}" Depends)"
# libdamonctl-dev pulls no other -dev package: its header includes only the C library's
# (json-c, libyaml, libnl and zlib are the library's business, not a client's)
devdeps=$(dpkg-deb -f "${debs[3]}" Depends)
! grep -qE -- '-dev\b' <<<"$devdeps" || fail "libdamonctl-dev depends on -dev packages: $devdeps"
if ! lintian --fail-on error,warning --no-tag-display-limit ./*.changes >"$work/lintian.log" 2>&1
then
	grep -v 'running with root privileges' "$work/lintian.log"
	fail "lintian reports errors or warnings (above)"
fi

ours=1
dpkg_locked -i "${debs[@]}" >"$work/install.log" || { cat "$work/install.log"; fail "dpkg -i"; }
for p in "${pkgs[@]}"; do
	installed "$p" || fail "$p is not installed after dpkg -i"
done
[ "$(/usr/bin/damonc --version)" = "damonc $(dpkg-query -W -f='${Version}' damonc)" ] ||
	fail "the installed damonc: $(/usr/bin/damonc --version)"
/usr/bin/damonc --list-cmds | grep -qx status || fail "the installed damonc does not list its commands"
/usr/bin/damon-emu --help >/dev/null 2>&1 || fail "the installed damon-emu does not run"
[ "$(pkg-config --modversion libdamonctl)" = "$(dpkg-query -W -f='${Version}' libdamonctl-dev)" ] ||
	fail "pkg-config does not find the installed libdamonctl"
# the .pc adds no include path the header does not use (none at all for /usr), and a client
# builds with what it says, with no other -dev package installed for it
[ -z "$(pkg-config --cflags libdamonctl | tr -d ' ')" ] ||
	fail "pkg-config --cflags libdamonctl: $(pkg-config --cflags libdamonctl)"
printf '#include <damonctl/damonctl.h>\n#include <stdio.h>\nint main(void) { puts(damonctl_version()); return 0; }\n' >"$work/client.c"
# shellcheck disable=SC2046 # pkg-config's words are the flags
cc -Wall -Werror -o "$work/client" "$work/client.c" $(pkg-config --cflags --libs libdamonctl) ||
	fail "a client does not build with pkg-config's flags"
"$work/client" >/dev/null || fail "a client built against the installed libdamonctl does not run"
for f in /lib/systemd/system/damonc-agent.service /lib/systemd/system/damonc-metrics.service; do
	[ -f "$f" ] || fail "no $f"
done
# docs/ is shipped: the benchmarks, damo parity, the kernel ABI, the record format
for f in benchmarks damo-parity damon-abi record-format robustness; do
	compgen -G "/usr/share/doc/damonc/$f.md*" >/dev/null || fail "no /usr/share/doc/damonc/$f.md"
done
[ -f /usr/share/man/man3/damonctl_tree_free.3.gz ] || fail "no libdamonctl(3) page links"
[ -f /usr/share/damonc/schema/damonc-status.schema.json ] || fail "no JSON Schemas"
# the picture plugin, found from /usr/bin; and without its package, a picture exits 3
"$gen" --snapshots 3 --regions 5 >"$work/in.rec"
/usr/bin/damonc report wss -i "$work/in.rec" -o "$work/wss.svg" ||
	fail "the installed damonc does not draw with damonc-pictures"
grep -q '<svg' "$work/wss.svg" || fail "no SVG drawn by the installed damonc"
dpkg_locked --purge damonc-pictures >"$work/remove.log" ||
	{ cat "$work/remove.log"; fail "dpkg --purge damonc-pictures"; }
/usr/bin/damonc report wss -i "$work/in.rec" >/dev/null ||
	fail "the installed damonc's text report fails without damonc-pictures"
rc=0
/usr/bin/damonc report wss -i "$work/in.rec" -o "$work/wss2.svg" 2>"$work/err" || rc=$?
if [ "$rc" != 3 ] || ! grep -q 'damonc-pictures package' "$work/err"; then
	fail "a picture without damonc-pictures: exit $rc, $(cat "$work/err")"
fi
# the installed binary running (other tests of the suite run their own damonc beside this)
for exe in /proc/[0-9]*/exe; do
	[ "$(readlink "$exe" 2>/dev/null)" != /usr/bin/damonc ] ||
		fail "installing started a damonc process: $(tr '\0' ' ' <"${exe%/exe}/cmdline")"
done

dpkg_locked --purge "${pkgs[@]}" >"$work/remove.log" || { cat "$work/remove.log"; fail "dpkg --purge"; }
ours=
for p in "${pkgs[@]}"; do
	! installed "$p" || fail "$p is still installed after dpkg --purge"
done
for f in /usr/bin/damonc /usr/bin/damon-emu /lib/systemd/system/damonc-agent.service \
	/usr/include/damonctl /usr/share/damonc "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/damonc"; do
	[ ! -e "$f" ] || fail "left behind: $f"
done
echo "ok: 5 packages built, lintian clean, installed and removed"
