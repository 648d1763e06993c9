#!/bin/bash
# diagnose: nothing wrong on a fresh tree and with a healthy kdamond (exit 0); then each
# check finds what it is for: a target process that exited (warning, exit 1), a collapse
# scheme under transparent_hugepage "never" (info: MADV_COLLAPSE makes huge pages anyway), a
# hugepage scheme there (warning, and start and status say so too), a scheme its free-memory
# watermarks keep off (info), a kdamond whose agent was killed (warning), a DAMON module that
# holds DAMON (info); not root, what needs no root; text and --json say the same, and
# diagnose writes nothing.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

expect_rc 0 "$D" diagnose
grep -q "nothing looks wrong" <<<"$OUT" || fail "a fresh tree: $OUT"
grep -q "0 kdamonds, 0 running" <<<"$OUT" || fail "a fresh tree: $OUT"

sleep 600 &
other=$!
expect_rc 0 "$D" start --pid "$target" --pid "$other" --action stat --sample 5ms --aggr 20ms
expect_rc 0 "$D" diagnose
grep -q "1 kdamond, 1 running" <<<"$OUT" || fail "a healthy kdamond: $OUT"
grep -q "nothing looks wrong" <<<"$OUT" || fail "a healthy kdamond: $OUT"

# a target exits: DAMON goes on with the other one, monitoring nothing of the first
kill "$other"
wait "$other" 2>/dev/null || true
: >"$EMU_LOG"
expect_rc 1 "$D" diagnose
grep -q "warning  kdamond 0, target 1: process $other has exited" <<<"$OUT" ||
	fail "no word of the exited target: $OUT"
expect_rc 1 "$D" --json diagnose
[ "$(json_get '[(f["level"], f["code"], f["kdamond"], f["scheme"]) for f in j["findings"]]')" = \
	"[('warning', 'target_gone', 0, None)]" ] || fail "--json: $OUT"
[ "$(json_get 'j["running"]')" = 1 ] || fail "--json running: $OUT"
! grep -q '^W' "$EMU_LOG" || fail "diagnose wrote: $(grep '^W' "$EMU_LOG")"
expect_rc 0 "$D" stop

# huge pages where THP is "never": MADV_COLLAPSE (the collapse action) does not depend on the
# THP modes (madvise(2), the kernel's transhuge.rst): said, not warned of; MADV_HUGEPAGE (the
# hugepage action) makes none then: a warning, which start and status say too; watermarks
# the free memory is below
mkdir -p "$SYSROOT/sys/kernel/mm/transparent_hugepage"
echo "always madvise [never]" >"$SYSROOT/sys/kernel/mm/transparent_hugepage/enabled"
expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 20ms \
	--action collapse --min-age 1s --wmarks free_mem_rate,1s,1000,1000,1000
! grep -q "transparent_hugepage" <<<"$ERR" || fail "start warns of THP 'never' for collapse: $ERR"
expect_rc 0 "$D" diagnose
grep -q "info     kdamond 0, scheme 1 collapses (MADV_COLLAPSE), which does not depend on transparent_hugepage/enabled" <<<"$OUT" ||
	fail "no word of collapse under THP 'never': $OUT"
! grep -q "none will be made" <<<"$OUT" || fail "collapse taken for blocked by 'never': $OUT"
grep -qE "info     kdamond 0, scheme 1 is inactive: free memory is [0-9]+ permil, below its watermarks \(low 1000, high 1000\)" <<<"$OUT" ||
	fail "no word of the watermarks: $OUT"
! grep -q "scheme 0" <<<"$OUT" || fail "scheme 0 has nothing wrong: $OUT"
expect_rc 0 "$D" stop
expect_rc 0 "$D" start --pid "$target" --action hugepage --min-age 1s
grep -q "note: kdamond 0, scheme 0 asks for huge pages (hugepage: MADV_HUGEPAGE), but transparent_hugepage/enabled is 'never'" <<<"$ERR" ||
	fail "start says nothing of hugepage under THP 'never': $ERR"
expect_rc 1 "$D" diagnose
grep -q "warning  kdamond 0, scheme 0 asks for huge pages (hugepage: MADV_HUGEPAGE), but transparent_hugepage/enabled is 'never': none will be made" <<<"$OUT" ||
	fail "no warning of hugepage under THP 'never': $OUT"
expect_rc 0 "$D" status
grep -q "note: scheme 0 asks for huge pages (hugepage: MADV_HUGEPAGE), but transparent_hugepage/enabled is 'never'" <<<"$OUT" ||
	fail "status says nothing of hugepage under THP 'never': $OUT"
expect_rc 0 "$D" --json status
[ "$(json_get 'len(j["kdamonds"][0]["notes"])')" = 1 ] || fail "status --json notes: $OUT"
echo "always [madvise] never" >"$SYSROOT/sys/kernel/mm/transparent_hugepage/enabled"
expect_rc 0 "$D" --json diagnose
[ "$(json_get '[f["code"] for f in j["findings"]]')" = "[]" ] ||
	fail "with THP on madvise: $OUT"
expect_rc 0 "$D" status
! grep -q "note: scheme" <<<"$OUT" || fail "status with THP on madvise: $OUT"
expect_rc 0 "$D" stop

# the agent that follows the targets' children killed: nobody does that part any more
expect_rc 0 "$D" start --pid "$target" --action stat --sample 5ms --aggr 20ms --follow-children
wait_until 20 test -s "$SYSROOT/run/damonc/agent.pid"
apid=$(agent_pid)
expect_rc 0 "$D" diagnose
kill -9 "$apid"
wait_until 20 sh -c "! kill -0 $apid 2>/dev/null"
expect_rc 1 "$D" diagnose
grep -q "warning  kdamond 0: damonc started it with a part done in user space (following children), but no damonc agent runs to do it" <<<"$OUT" ||
	fail "no word of the dead agent: $OUT"
expect_rc 1 "$D" --json diagnose
[ "$(json_get '[(f["level"], f["code"], f["kdamond"]) for f in j["findings"]]')" = \
	"[('warning', 'agent_not_running', 0)]" ] || fail "--json, the dead agent: $OUT"
expect_rc 0 "$D" stop
# not root: DAMON's files cannot be read (damon-emu lets no other user in), what needs no
# root is said all the same: diagnose's findings (exit 1: not everything was checked), report
# hugepage's system and processes; a start blames damonc's run directory, root's
chmod 755 "$SYSROOT"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
expect_rc 1 nobody "${DAMONC_REAL:-$D}" diagnose
grep -q "its kdamonds unknown" <<<"$OUT" || fail "diagnose as nobody: $OUT"
grep -q "warning  DAMON's sysfs files need root" <<<"$OUT" || fail "diagnose as nobody: $OUT"
expect_rc 1 nobody "${DAMONC_REAL:-$D}" --json diagnose
[ "$(json_get '(j["kdamonds"], [f["code"] for f in j["findings"]])')" = \
	"(None, ['damon_unreadable'])" ] || fail "diagnose --json as nobody: $OUT"
# (not through the function: $! would be its subshell's, root's)
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
mine=$!
trap 'kill "$target" "$mine" 2>/dev/null || true; emu_cleanup' EXIT
expect_rc 0 nobody "${DAMONC_REAL:-$D}" report hugepage --pid "$mine"
grep -q "^System" <<<"$OUT" || fail "report hugepage as nobody: $OUT"
grep -q "^Process $mine" <<<"$OUT" || fail "report hugepage as nobody: $OUT"
grep -q "note: DAMON's sysfs files need root" <<<"$ERR" || fail "report hugepage as nobody: $ERR"
kill "$mine"
rm -rf "$SYSROOT/run/damonc"
expect_rc 1 nobody "${DAMONC_REAL:-$D}" start --pid "$target" --action stat
grep -q "cannot lock damonc's run directory $SYSROOT/run/damonc: Permission denied" <<<"$ERR" ||
	fail "start as nobody: $ERR"
! grep -q "DAMON's sysfs files need root" <<<"$ERR" || fail "start as nobody blames DAMON: $ERR"
chmod 700 "$SYSROOT"

# a module that holds DAMON
echo Y >"$EMU_MODULES/damon_reclaim/parameters/enabled"
expect_rc 0 "$D" diagnose
grep -q "damon_reclaim is enabled: it holds DAMON" <<<"$OUT" || fail "no word of the module: $OUT"
echo N >"$EMU_MODULES/damon_reclaim/parameters/enabled"
echo "ok: diagnose on profile $PROFILE"
