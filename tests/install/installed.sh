#!/bin/bash
# What 'meson install' puts where, into a scratch DESTDIR: the programs, the library with its
# header and pkg-config file, every man page (damon-emu(1) and the libdamonctl(3) pages and
# their links included), the completions, the JSON Schemas, and the systemd unit under the
# prefix (systemd's directory for it, or -Dsystemdsystemunitdir), not in /lib whatever the
# prefix. Then libdamonctl(3)'s EXAMPLE, taken from the page, is built against the
# installed library through pkg-config and run; the installed damonc draws with its
# installed picture plugin, and without it runs status and refuses a picture (exit 3).
#   installed.sh BUILD_DIR SOURCE_DIR PREFIX LIBDIR MANDIR UNITDIR_OPTION CC...
set -euo pipefail
build=$1 src=$2 prefix=$3 libdir=$4 mandir=$5 unitdir_opt=$6
shift 6
cc=("$@")
dest=$(mktemp -d "${TMPDIR:-/tmp}/damonc-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >"$dest.log" 2>&1 ||
	{ cat "$dest.log"; rm -f "$dest.log"; echo "FAIL: meson install"; exit 1; }
rm -f "$dest.log"
root=$dest$prefix
for f in bin/damonc include/damonctl/damonctl.h "$libdir/libdamonctl.so.0" \
	"$libdir/pkgconfig/libdamonctl.pc" share/bash-completion/completions/damonc \
	share/zsh/vendor-completions/_damonc share/fish/vendor_completions.d/damonc.fish; do
	[ -e "$root/$f" ] || bad "not installed: $prefix/$f"
done
[ ! -x "$build/emu/damon-emu" ] || [ -e "$root/bin/damon-emu" ] || bad "damon-emu not installed"
# every man page built, and damon-emu(1) with the emulator
for page in "$build"/man/*.[0-9]; do
	p=$(basename "$page")
	[ -e "$root/$mandir/man${p##*.}/$p" ] || bad "man page not installed: $p"
done
[ ! -x "$build/emu/damon-emu" ] || [ -e "$root/$mandir/man1/damon-emu.1" ] ||
	bad "damon-emu.1 not installed"
for s in "$src"/docs/schema/*.schema.json; do
	[ -e "$root/share/damonc/schema/$(basename "$s")" ] || bad "schema not installed: $s"
done
unit=$(cd "$dest" && find . -name damonc-agent.service | sed 's|^\.||')
if [ -n "$unitdir_opt" ]; then
	[ "$unit" = "$unitdir_opt/damonc-agent.service" ] || bad "the unit is at $unit, not in $unitdir_opt"
else
	[[ $unit == "$prefix"/*/systemd/system/damonc-agent.service ]] ||
		bad "the unit is at '$unit', outside the prefix $prefix"
fi
grep -q "^ExecStart=$prefix/bin/damonc agent" "$dest$unit" || bad "the unit does not run $prefix/bin/damonc"

# the EXAMPLE of libdamonctl(3), built against the installed library
awk '/^\.SH EXAMPLE/ { s = 1 } s && /^\.EX/ { on = 1; next } on && /^\.EE/ { exit } on' \
	"$src/man/libdamonctl.3.in" |
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e "s/\\\\(aq/'/g" -e 's/\\&//g' >"$dest/example.c"
grep -q 'int main' "$dest/example.c" || bad "no EXAMPLE program in libdamonctl(3)"
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_PATH=$root/$libdir/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words
if ! "${cc[@]}" -std=c11 -Wall -Wextra -Werror -o "$dest/example" "$dest/example.c" \
	$(pkg-config --cflags --libs libdamonctl) 2>"$dest/cc.err"; then
	cat "$dest/cc.err"
	bad "the EXAMPLE does not build against the installed library"
else
	mkdir -p "$dest/sysroot/sys/kernel/mm/damon/admin/kdamonds"
	echo 0 >"$dest/sysroot/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
	mkdir -p "$dest/sysroot/proc"
	printf 'MemTotal: 4000 kB\nMemFree: 1000 kB\n' >"$dest/sysroot/proc/meminfo"
	out=$(DAMONC_SYSROOT=$dest/sysroot LD_LIBRARY_PATH=$root/$libdir "$dest/example" $$) ||
		bad "the EXAMPLE failed: $out"
	for want in "memory used: 3072000 bytes" "kdamonds/nr_kdamonds <= 1" "kdamonds/0/contexts/0/targets/0/pid_target <= $$" \
		"kdamonds/0/contexts/0/schemes/0/action <= pageout"; do
		grep -qxF "$want" <<<"$out" || bad "the EXAMPLE does not print '$want': $out"
	done
	# ldd's output taken whole: grep -q leaving early would SIGPIPE ldd, a failure under
	# pipefail
	linked=$(LD_LIBRARY_PATH=$root/$libdir ldd "$dest/example")
	grep -q "$root/$libdir/libdamonctl.so.0" <<<"$linked" ||
		bad "the EXAMPLE is not linked with the installed library: $linked"
fi
LD_LIBRARY_PATH=$root/$libdir "$root/bin/damonc" --version >/dev/null || bad "installed damonc does not run"

# the picture plugin in the package's own directory, found from the installed program's (a
# PNG drawn), and without it the rest runs while a picture exits 3
plugin=$root/$libdir/damonc/picture.so
[ -f "$plugin" ] || bad "not installed: $prefix/$libdir/damonc/picture.so"
[ -f "$root/$libdir/damonc/lineedit.so" ] || bad "not installed: $prefix/$libdir/damonc/lineedit.so"
installed_damonc() { LD_LIBRARY_PATH=$root/$libdir "$root/bin/damonc" "$@"; }
"$build/tests/gen-record" --snapshots 3 --regions 5 >"$dest/in.rec"
installed_damonc report wss -i "$dest/in.rec" -o "$dest/wss.png" ||
	bad "the installed damonc does not draw with its installed picture plugin"
[ "$(head -c 4 "$dest/wss.png" 2>/dev/null | tail -c 3)" = PNG ] || bad "no PNG drawn: $dest/wss.png"
rm -f "$plugin"
mkdir -p "$dest/sysroot/sys/kernel/mm/damon/admin/kdamonds"
echo 0 >"$dest/sysroot/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds"
installed_damonc --sysroot "$dest/sysroot" status --json >/dev/null ||
	bad "the installed damonc's status fails without the picture plugin"
rc=0
installed_damonc report wss -i "$dest/in.rec" -o "$dest/wss2.png" 2>"$dest/err" || rc=$?
if [ "$rc" != 3 ] || ! grep -q "picture plugin, which is not installed" "$dest/err"; then
	bad "a picture without the plugin: exit $rc, $(cat "$dest/err")"
fi
[ $fail = 0 ] && echo "ok: installed under $prefix as documented; the EXAMPLE builds and runs"
exit $fail
