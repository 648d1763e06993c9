#!/bin/bash
# Every command's --json document, in each of its forms, against its JSON Schema
# (docs/schema): status (no kdamond, running, --regions, --kdamond, served by the agent),
# features, start and start --dry-run, tune (a change, nothing to change, --dry-run), stop
# (something, nothing), record's summary, report access of a live capture per snapshot,
# report hugepage (plain, --regions, served by the agent, --watch lines), metrics. $D checks
# each one as it runs (tests/lib/damonc-checked); this test also makes sure that the check
# saw them all.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
[ -n "${DAMONC_JSON_SPOOL:-}${DAMONC_JSON_VALIDATE:-}" ] ||
	emu_skip "python3-jsonschema is missing: damonc's JSON is not checked"
emu_with_target "$PROFILE"
n=0
json() { # ARGS: damonc --json ARGS, which must succeed
	expect_rc 0 "$D" --json "$@"
	n=$((n + 1))
}

json status
json features
json report hugepage --pid "$target"
json report hugepage --pid "$target" --regions
json report hugepage --pid "$target" --watch 100ms --count 2
json metrics
json start --dry-run --pid "$target" --action pageout --min-age 1s --quota-size 4MiB
filter=()
emu_profile_since "$PROFILE" 6.3 && filter=(--filter reject:anon)
json start --pid "$target" --action pageout --min-age 1s --quota-size 4MiB "${filter[@]}"
json status
json status --regions --kdamond 0
json tune --quota-size 8MiB
json tune --quota-size 8MiB
json tune --dry-run --quota-size 16MiB
# recording needs tried regions (6.2)
emu_profile_since "$PROFILE" 6.2 && json record -o "$SYSROOT/rec" --count 2 --interval 100ms
# a live capture reported snapshot by snapshot (damo's report access --repeat)
if emu_profile_since "$PROFILE" 6.2; then
	json report access --all-snapshots --count 2 --interval 100ms --top 3
	[ "$(json_get 'len(j["snapshots"])')" = 2 ] || fail "report access --all-snapshots --count 2: $OUT"
fi
json stop
json stop
if [ "$PROFILE" = 6.12 ]; then
	# a kernel without collapse: the agent serves it, and status says so
	json start --pid "$target" --action collapse --goal-bp 500
	agent_serves() {
		expect_rc 0 "$D" --json status
		[ "$(json_get '"agent" in j["kdamonds"][0]')" = True ]
	}
	wait_until 20 agent_serves
	json status
	json report hugepage --pid "$target"
	json metrics
	json stop
fi

checked=$("$DAMONC_JSON_PYTHON" "$DAMONC_JSON_VALIDATE" "$DAMONC_SCHEMA_DIR" spool \
	"$DAMONC_JSON_SPOOL") || fail "documents do not follow their schemas (above)"
[[ $checked =~ ([0-9]+)\ documents ]] || fail "the check said: $checked"
[ "${BASH_REMATCH[1]}" -ge $n ] || fail "$n documents printed, ${BASH_REMATCH[1]} checked"
rm -f "$DAMONC_JSON_SPOOL"/*	# checked: emu_cleanup need not again
echo "ok: $n documents follow their schemas ($PROFILE)"
