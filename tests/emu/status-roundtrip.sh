#!/bin/bash
# damonc-start(1) promises that 'damonc status --json' can be fed back with 'start -c':
# status adds damonc's own facts to the tree (index, started_by_damonc, and agent while the
# damonc agent serves a kdamond), which start must not take for configuration. Checked
# while the agent runs, as a dry run and for real after a stop.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
PROFILE=${1:?profile}
emu_with_target "$PROFILE"

# a goal the kernel cannot measure on this profile: the agent feeds it
expect_rc 0 "$D" start --action collapse --pid "$target" --goal-bp 500 --min-age 1s
has_agent() {
	expect_rc 0 "$D" --json status
	[ "$(json_get '"agent" in j["kdamonds"][0]')" = True ]
}
wait_until 20 has_agent
status=$OUT
echo "$status" >"$SYSROOT/status.json"

# the dry run is the start's plan: refused while kdamond 0 runs, as the start is
expect_rc 4 "$D" start -c - --dry-run <"$SYSROOT/status.json"
grep -q "kdamond 0 is running" <<<"$ERR" || fail "dry run: $ERR"

expect_rc 0 "$D" stop
expect_rc 0 "$D" --json start -c "$SYSROOT/status.json" --dry-run
dry=$OUT
expect_rc 0 "$D" start -c "$SYSROOT/status.json"
expect_rc 0 "$D" --json status
# the configuration came back: the same tree, less what the kernel measures
python3 - "$status" "$OUT" <<'PY' || fail "start -c of a status document started another configuration"
import json, sys
RESULTS = {"state", "pid", "stats", "tried_regions", "current_value", "effective_bytes",
           "avail_operations", "agent", "index", "started_by_damonc", "cpu"}
def config(v):
    if isinstance(v, dict):
        return {k: config(x) for k, x in v.items() if k not in RESULTS}
    if isinstance(v, list):
        return [config(x) for x in v]
    return v
a, b = (config(json.loads(s)["kdamonds"][0]) for s in sys.argv[1:3])
# the agent's 1-byte size quota while it allows the collapse scheme nothing stands for the
# user's (none here), whichever the agent had set when each status was read
for k in (a, b):
    for c in k["contexts"]:
        for sc in c["schemes"]:
            if sc["quotas"]["bytes"] == 1:
                sc["quotas"]["bytes"] = 0
assert a == b, (a, b)
PY
[ -n "$dry" ] || fail "the dry run printed nothing"
expect_rc 0 "$D" stop
echo "ok: status --json feeds start -c while the agent runs ($PROFILE)"
