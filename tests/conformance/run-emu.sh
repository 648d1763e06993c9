#!/bin/bash
# Run one conformance script against damon-emu with a given profile:
#   run-emu.sh PROFILE SCRIPT
# Needs DAMON_EMU and DAMON_CONFORM (set by meson). Skips (77) when FUSE is unavailable.
set -euo pipefail
profile=$1
script=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"

emu_setup "$profile"
"$DAMON_CONFORM" run "$script" --root "$ADMIN" --kernel "$profile" --modules "$EMU_MODULES"
