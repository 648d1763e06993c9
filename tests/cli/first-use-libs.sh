#!/bin/bash
# The libraries libdamonctl loads on first use (lib/dlib.h): a YAML configuration loads
# libyaml and a record zlib, while status and the like load neither (nor libnl-3); and
# where they are not installed (each replaced by an empty file, in a mount namespace of this
# test's own) status runs as ever, while a YAML configuration and a record are refused with
# exit status 3 and a sentence that names the library.
#   first-use-libs.sh DAMONC GEN_RECORD SOURCE_DIR
set -euo pipefail
damonc=$1 gen=$2 src=$3
# shellcheck source=../lib/loaded.sh
source "$(dirname "$0")/../lib/loaded.sh"
loaded_setup "$gen"
yaml=$src/tests/fixtures/damo/damo-output-vaddr-pageout.yaml
for args in "--version" "status" "status --json" "features --json"; do
	# shellcheck disable=SC2086 # the command's words
	extra=$(loaded "$damonc" --sysroot "$root" $args | grep -E 'yaml|libnl|libz' || true)
	[ -z "$extra" ] || bad "damonc $args loads $(tr '\n' ' ' <<<"$extra")"
done
# (whole outputs taken: grep -q leaving early would fail the pipe under pipefail)
yaml_libs=$(loaded "$damonc" --sysroot "$root" start -c "$yaml" --dry-run)
grep -q 'libyaml' <<<"$yaml_libs" || bad "a YAML configuration does not load libyaml"
rec_libs=$(loaded "$damonc" report wss -i "$work/in.rec")
grep -q 'libz\.' <<<"$rec_libs" || bad "reading a record does not load zlib"

# without them: each library's file, as the loader finds it, replaced by an empty one
path_of() { # SONAME: its file, as ldconfig's cache names it
	local cache
	cache=$(ldconfig -p)
	sed -nE "s/^\t$1 \(.*\) => (.*)/\1/p" <<<"$cache" | head -n 1
}
libyaml=$(path_of "$(grep -o 'libyaml[^/]*$' <<<"$yaml_libs" | head -n 1)")
libz=$(path_of "$(grep -o 'libz\.[^/]*$' <<<"$rec_libs" | head -n 1)")
if [ -z "$libyaml" ] || [ -z "$libz" ]; then
	echo "SKIP: ldconfig does not name libyaml and zlib"
	exit 77
fi
cat >"$work/without.sh" <<EOS
set -u
mount --bind /dev/null "\$(realpath '$libyaml')" && mount --bind /dev/null "\$(realpath '$libz')" ||
	exit 77
'$damonc' --sysroot '$root' status --json >'$work/status.out' 2>&1; echo "status \$?"
'$damonc' --sysroot '$root' start -c '$yaml' --dry-run >/dev/null 2>'$work/yaml.err'
echo "yaml \$?"
'$damonc' report wss -i '$work/in.rec' >/dev/null 2>'$work/rec.err'; echo "record \$?"
EOS
rc=0
out=$(unshare -m --propagation private bash "$work/without.sh") || rc=$?
[ "$rc" != 77 ] || { echo "SKIP: no private mount namespace here (root needed)"; exit 77; }
grep -qx "status 0" <<<"$out" || bad "status without libyaml and zlib: $out, $(cat "$work/status.out")"
grep -qx "yaml 3" <<<"$out" || bad "a YAML configuration without libyaml: $out"
grep -q "YAML needs libyaml, which could not be loaded: .*libyaml" "$work/yaml.err" ||
	bad "no sentence naming libyaml: $(cat "$work/yaml.err")"
grep -qx "record 3" <<<"$out" || bad "a record without zlib: $out"
grep -q "records need zlib, which could not be loaded: .*libz" "$work/rec.err" ||
	bad "no sentence naming zlib: $(cat "$work/rec.err")"
[ $fail = 0 ] && echo "ok: libyaml and zlib are loaded when first needed; without them status runs and they exit 3 saying why"
exit $fail
