#!/bin/bash
# memcg paths are looked up like the kernel's cgroup_path() + sysfs_streq(): exact, one
# trailing newline allowed, "/" is the root; others must be memcgs (memory.current).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/emu.sh
. "$here/../lib/emu.sh"
cg=$(mktemp -d)
trap 'rm -rf "$cg"; emu_cleanup' EXIT
mkdir -p "$cg/a/b" "$cg/nomem"
touch "$cg/a/memory.current" "$cg/a/b/memory.current"
emu_setup 7.2 --cgroup-root "$cg"
f=kdamonds/0/contexts/0/schemes/0/ops_filters/0
emu_expect <<SCRIPT
W kdamonds/nr_kdamonds 1
W kdamonds/0/contexts/nr_contexts 1
W kdamonds/0/contexts/0/operations paddr
W kdamonds/0/contexts/0/schemes/nr_schemes 1
W kdamonds/0/contexts/0/schemes/0/ops_filters/nr_filters 1
W $f/type memcg
W kdamonds/0/state on => ENOMEM
W $f/memcg_path /a/b/
W kdamonds/0/state on => ENOMEM
W $f/memcg_path a/b
W kdamonds/0/state on => ENOMEM
W $f/memcg_path //a/b
W kdamonds/0/state on => ENOMEM
W $f/memcg_path /a/./b
W kdamonds/0/state on => ENOMEM
W $f/memcg_path /nomem
W kdamonds/0/state on => ENOMEM
W $f/memcg_path "/a/b\n\n"
W kdamonds/0/state on => ENOMEM
W $f/memcg_path "/a/b\n"
W kdamonds/0/state on => ok
W kdamonds/0/state off => ok
W $f/memcg_path /
W kdamonds/0/state on => ok
W kdamonds/0/state off => ok
# probe filters (7.2) return EINVAL, not ENOMEM
W kdamonds/0/contexts/0/monitoring_attrs/probes/nr_probes 1
W kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/nr_filters 1
W kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/type memcg
W kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/path /a
W kdamonds/0/state on => ok
W kdamonds/0/state off => ok
W kdamonds/0/contexts/0/monitoring_attrs/probes/0/filters/0/path /nomem
W kdamonds/0/state on => EINVAL
SCRIPT
echo "ok: memcg paths"
