// SPDX-License-Identifier: GPL-2.0-or-later
/* The agent's own counters per kdamond and scheme, shared with status and report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_stats.h"

static int stats_path(struct damonctl_ctx *ctx, unsigned int k, char *buf, size_t size)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "agent-%u.json", k);
	return damonctl_path(ctx, DAMONCTL_BASE_RUN, rel, buf, size);
}

static uint64_t u64_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

int agent_stats_load(struct damonctl_ctx *ctx, unsigned int kdamond, struct agent_stats *st)
{
	char path[4096];
	json_object *root, *arr;
	size_t i;
	int r;

	memset(st, 0, sizeof(*st));
	st->kdamond = kdamond;
	r = stats_path(ctx, kdamond, path, sizeof(path));
	if (r < 0)
		return r;
	r = read_json_file(path, &root);
	if (r || !root)
		return r;
	st->updated = (long long)u64_of(root, "updated");
	st->kdamond_pid = (int)u64_of(root, "kdamond_pid");
	st->measured_bp = u64_of(root, "measured_bp");
	st->feeds = u64_of(root, "feeds");
	st->target_bp = u64_of(root, "target_bp");
	st->goal_met = u64_of(root, "goal_met") != 0;
	st->rounds = u64_of(root, "rounds");
	st->agent_pid = (int)u64_of(root, "agent_pid");
	st->since = (long long)u64_of(root, "since");
	if (json_object_object_get_ex(root, "hot", &arr)) {
		st->observed = true;
		st->hot_bytes = u64_of(arr, "bytes");
		st->hot_huge_bytes = u64_of(arr, "huge_bytes");
		st->hot_bp = u64_of(arr, "bp");
		st->reachable_bp = u64_of(arr, "reachable_bp");
		st->unreachable = u64_of(arr, "unreachable") != 0;
		st->cold_huge_bytes = u64_of(arr, "cold_huge_bytes");
		st->cold_huge_idle_us = u64_of(arr, "cold_huge_idle_us");
	}
	if (json_object_object_get_ex(root, "schemes", &arr) &&
	    json_object_is_type(arr, json_type_array)) {
		for (i = 0; i < json_object_array_length(arr) && st->nr < AGENT_MAX_SCHEMES; i++) {
			json_object *o = json_object_array_get_idx(arr, i);
			struct agent_scheme_stats *s = &st->s[st->nr++];

			s->scheme = (unsigned int)u64_of(o, "scheme");
			s->nr_tried = u64_of(o, "nr_tried");
			s->sz_tried = u64_of(o, "sz_tried");
			s->nr_applied = u64_of(o, "nr_applied");
			s->sz_applied = u64_of(o, "sz_applied");
			s->qt_exceeds = u64_of(o, "qt_exceeds");
			s->sz_collapsed = u64_of(o, "sz_collapsed");
			s->busy_us = u64_of(o, "busy_us");
		}
	}
	json_object_put(root);
	return 0;
}

int agent_stats_save(struct damonctl_ctx *ctx, unsigned int kdamond, const struct agent_stats *st)
{
	char path[4096];
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	unsigned int i;
	int r;

	json_object_object_add(root, "format_version", json_object_new_int(1));
	json_object_object_add(root, "kdamond", json_object_new_int((int)kdamond));
	json_object_object_add(root, "updated", json_object_new_int64(st->updated));
	json_object_object_add(root, "kdamond_pid", json_object_new_int(st->kdamond_pid));
	json_object_object_add(root, "measured_bp", json_object_new_uint64(st->measured_bp));
	json_object_object_add(root, "feeds", json_object_new_uint64(st->feeds));
	json_object_object_add(root, "target_bp", json_object_new_uint64(st->target_bp));
	json_object_object_add(root, "goal_met", json_object_new_boolean(st->goal_met));
	json_object_object_add(root, "rounds", json_object_new_uint64(st->rounds));
	json_object_object_add(root, "agent_pid", json_object_new_int(st->agent_pid));
	json_object_object_add(root, "since", json_object_new_int64(st->since));
	if (st->observed) {
		json_object *hot = json_object_new_object();

		json_object_object_add(hot, "bytes", json_object_new_uint64(st->hot_bytes));
		json_object_object_add(hot, "huge_bytes", json_object_new_uint64(st->hot_huge_bytes));
		json_object_object_add(hot, "bp", json_object_new_uint64(st->hot_bp));
		json_object_object_add(hot, "reachable_bp", json_object_new_uint64(st->reachable_bp));
		json_object_object_add(hot, "unreachable", json_object_new_boolean(st->unreachable));
		json_object_object_add(hot, "cold_huge_bytes",
				       json_object_new_uint64(st->cold_huge_bytes));
		json_object_object_add(hot, "cold_huge_idle_us",
				       json_object_new_uint64(st->cold_huge_idle_us));
		json_object_object_add(root, "hot", hot);
	}
	for (i = 0; i < st->nr; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "scheme", json_object_new_int((int)st->s[i].scheme));
		json_object_object_add(o, "nr_tried", json_object_new_uint64(st->s[i].nr_tried));
		json_object_object_add(o, "sz_tried", json_object_new_uint64(st->s[i].sz_tried));
		json_object_object_add(o, "nr_applied", json_object_new_uint64(st->s[i].nr_applied));
		json_object_object_add(o, "sz_applied", json_object_new_uint64(st->s[i].sz_applied));
		json_object_object_add(o, "qt_exceeds", json_object_new_uint64(st->s[i].qt_exceeds));
		json_object_object_add(o, "sz_collapsed",
				       json_object_new_uint64(st->s[i].sz_collapsed));
		json_object_object_add(o, "busy_us", json_object_new_uint64(st->s[i].busy_us));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "schemes", arr);
	if (stats_path(ctx, kdamond, path, sizeof(path)) < 0) {
		json_object_put(root);
		return -ENAMETOOLONG;
	}
	r = write_json_file(path, root);
	json_object_put(root);
	return r;
}

int agent_stats_remove(struct damonctl_ctx *ctx, unsigned int kdamond)
{
	char path[4096];
	int r = stats_path(ctx, kdamond, path, sizeof(path));

	if (r < 0)
		return r;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}
