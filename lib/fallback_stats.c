// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fallback server's counters as JSON: the file a serving program keeps for its readers
 * (damonc's run/damonc/agent-N.json, read by status, report hugepage and metrics).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t u64_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static void hot_from(json_object *hot, struct damonctl_fallback_stats *st)
{
	st->observed = true;
	st->hot_bytes = u64_of(hot, "bytes");
	st->hot_huge_bytes = u64_of(hot, "huge_bytes");
	st->hot_bp = u64_of(hot, "bp");
	st->reachable_bp = u64_of(hot, "reachable_bp");
	st->unreachable = u64_of(hot, "unreachable") != 0;
	st->cold_huge_bytes = u64_of(hot, "cold_huge_bytes");
	st->cold_huge_idle_us = u64_of(hot, "cold_huge_idle_us");
}

static double double_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

static void one_coverage_from(json_object *o, struct damonctl_hugepage_coverage *c)
{
	c->sz = sizeof(*c);
	c->bytes = u64_of(o, "bytes");
	c->huge_bytes = u64_of(o, "huge_bytes");
	c->accessed = double_of(o, "accessed");
	c->accessed_huge = double_of(o, "accessed_huge");
}

static void coverage_from(json_object *cov, struct damonctl_fallback_stats *st)
{
	json_object *arr;
	size_t i;

	st->coverage_known = true;
	one_coverage_from(cov, &st->coverage);
	if (!json_object_object_get_ex(cov, "targets", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(arr) &&
		    st->nr_coverage < DAMONCTL_FALLBACK_STATS_MAX_TARGETS; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct damonctl_fallback_target_coverage *t = &st->tc[st->nr_coverage++];

		t->pid = (int)u64_of(o, "pid");
		one_coverage_from(o, &t->c);
	}
}

static void schemes_from(json_object *arr, struct damonctl_fallback_stats *st)
{
	size_t i;

	for (i = 0; i < json_object_array_length(arr) &&
		    st->nr < DAMONCTL_FALLBACK_STATS_MAX_SCHEMES; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct damonctl_fallback_scheme_stats *s = &st->s[st->nr++];

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

DAMONCTL_API int damonctl_fallback_stats_from_json(const char *doc,
						   struct damonctl_fallback_stats *st)
{
	struct damonctl_fallback_stats n = { .sz = sizeof(n) };
	json_object *root = doc ? json_tokener_parse(doc) : NULL, *arr;
	size_t sz;

	if (!st || st->sz < sizeof(st->sz) || !root ||
	    !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return -EBADMSG;
	}
	n.kdamond = (unsigned int)u64_of(root, "kdamond");
	n.updated = (long long)u64_of(root, "updated");
	n.kdamond_pid = (int)u64_of(root, "kdamond_pid");
	n.measured_bp = u64_of(root, "measured_bp");
	n.feeds = u64_of(root, "feeds");
	n.target_bp = u64_of(root, "target_bp");
	n.goal_met = u64_of(root, "goal_met") != 0;
	n.rounds = u64_of(root, "rounds");
	n.agent_pid = (int)u64_of(root, "agent_pid");
	n.since = (long long)u64_of(root, "since");
	if (json_object_object_get_ex(root, "hot", &arr))
		hot_from(arr, &n);
	if (json_object_object_get_ex(root, "coverage", &arr) &&
	    json_object_is_type(arr, json_type_object))
		coverage_from(arr, &n);
	if (json_object_object_get_ex(root, "schemes", &arr) &&
	    json_object_is_type(arr, json_type_array))
		schemes_from(arr, &n);
	json_object_put(root);
	sz = st->sz < sizeof(n) ? st->sz : sizeof(n);
	memcpy((char *)st + sizeof(st->sz), (char *)&n + sizeof(n.sz), sz - sizeof(n.sz));
	return 0;
}

static json_object *hot_json(const struct damonctl_fallback_stats *st)
{
	json_object *hot = json_object_new_object();

	json_object_object_add(hot, "bytes", json_object_new_uint64(st->hot_bytes));
	json_object_object_add(hot, "huge_bytes", json_object_new_uint64(st->hot_huge_bytes));
	json_object_object_add(hot, "bp", json_object_new_uint64(st->hot_bp));
	json_object_object_add(hot, "reachable_bp", json_object_new_uint64(st->reachable_bp));
	json_object_object_add(hot, "unreachable", json_object_new_boolean(st->unreachable));
	json_object_object_add(hot, "cold_huge_bytes", json_object_new_uint64(st->cold_huge_bytes));
	json_object_object_add(hot, "cold_huge_idle_us",
			       json_object_new_uint64(st->cold_huge_idle_us));
	return hot;
}

static json_object *one_coverage_json(const struct damonctl_hugepage_coverage *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "bytes", json_object_new_uint64(c->bytes));
	json_object_object_add(o, "huge_bytes", json_object_new_uint64(c->huge_bytes));
	json_object_object_add(o, "accessed", json_object_new_double(c->accessed));
	json_object_object_add(o, "accessed_huge", json_object_new_double(c->accessed_huge));
	return o;
}

static json_object *coverage_json(const struct damonctl_fallback_stats *st)
{
	json_object *o = one_coverage_json(&st->coverage), *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < st->nr_coverage && i < DAMONCTL_FALLBACK_STATS_MAX_TARGETS; i++) {
		json_object *t = one_coverage_json(&st->tc[i].c);

		json_object_object_add(t, "pid", json_object_new_int(st->tc[i].pid));
		json_object_array_add(arr, t);
	}
	json_object_object_add(o, "targets", arr);
	return o;
}

static json_object *scheme_json(const struct damonctl_fallback_scheme_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "scheme", json_object_new_int((int)s->scheme));
	json_object_object_add(o, "nr_tried", json_object_new_uint64(s->nr_tried));
	json_object_object_add(o, "sz_tried", json_object_new_uint64(s->sz_tried));
	json_object_object_add(o, "nr_applied", json_object_new_uint64(s->nr_applied));
	json_object_object_add(o, "sz_applied", json_object_new_uint64(s->sz_applied));
	json_object_object_add(o, "qt_exceeds", json_object_new_uint64(s->qt_exceeds));
	json_object_object_add(o, "sz_collapsed", json_object_new_uint64(s->sz_collapsed));
	json_object_object_add(o, "busy_us", json_object_new_uint64(s->busy_us));
	return o;
}

DAMONCTL_API char *damonctl_fallback_stats_to_json(const struct damonctl_fallback_stats *st)
{
	json_object *root, *arr;
	unsigned int i;
	char *text;

	if (!st || st->sz < sizeof(*st)) {
		errno = EINVAL;
		return NULL;
	}
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "format_version", json_object_new_int(1));
	json_object_object_add(root, "kdamond", json_object_new_int((int)st->kdamond));
	json_object_object_add(root, "updated", json_object_new_int64(st->updated));
	json_object_object_add(root, "kdamond_pid", json_object_new_int(st->kdamond_pid));
	json_object_object_add(root, "measured_bp", json_object_new_uint64(st->measured_bp));
	json_object_object_add(root, "feeds", json_object_new_uint64(st->feeds));
	json_object_object_add(root, "target_bp", json_object_new_uint64(st->target_bp));
	json_object_object_add(root, "goal_met", json_object_new_boolean(st->goal_met));
	json_object_object_add(root, "rounds", json_object_new_uint64(st->rounds));
	json_object_object_add(root, "agent_pid", json_object_new_int(st->agent_pid));
	json_object_object_add(root, "since", json_object_new_int64(st->since));
	if (st->observed)
		json_object_object_add(root, "hot", hot_json(st));
	if (st->coverage_known)
		json_object_object_add(root, "coverage", coverage_json(st));
	for (i = 0; i < st->nr && i < DAMONCTL_FALLBACK_STATS_MAX_SCHEMES; i++)
		json_object_array_add(arr, scheme_json(&st->s[i]));
	json_object_object_add(root, "schemes", arr);
	text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	if (!text)
		errno = ENOMEM;
	return text;
}
