// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * DAMOS filters, access probes' filters and quota goals given as text, as damonc's --filter,
 * --probe and --goal take them: "allow|reject:[!]TYPE[:ARG]" and
 * "METRIC=VALUE[,nid=N][,path=P]". What the text carries is the kernel's knowledge: which
 * filter types take which argument (a cgroup path, an address range, a size range, a target
 * index), in which unit a goal metric is measured, and where a filter of a type goes on a
 * kernel. A refusal names the part that is wrong; the sentences are the caller's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ops_filters.h"

static char *split2(char *s, char sep)
{
	char *p = strchr(s, sep);

	if (!p)
		return NULL;
	*p = '\0';
	return p + 1;
}

static int refuse(struct damonctl_parse_error *e, enum damonctl_parse_part part, int err,
		  const char *text)
{
	if (e && e->sz >= sizeof(*e)) {
		e->part = part;
		e->err = err;
		snprintf(e->text, sizeof(e->text), "%s", text);
	}
	return err;
}

/* "lo-hi", each read by @parse (the unit parsers); lo above hi is -EDOM. */
static int parse_range(const char *text, int (*parse)(const char *, uint64_t *), uint64_t *lo,
		       uint64_t *hi, struct damonctl_parse_error *e)
{
	char buf[256], *second;
	int r;

	snprintf(buf, sizeof(buf), "%s", text);
	second = split2(buf, '-');
	if (!second)
		return refuse(e, DAMONCTL_PARSE_RANGE, -EINVAL, text);
	r = parse(buf, lo);
	if (r)
		return refuse(e, DAMONCTL_PARSE_START, r, buf);
	r = parse(second, hi);
	if (r)
		return refuse(e, DAMONCTL_PARSE_END, r, second);
	return *lo > *hi ? refuse(e, DAMONCTL_PARSE_RANGE, -EDOM, text) : 0;
}

DAMONCTL_API int damonctl_filter_spec_parse(const char *text, enum damonctl_kwset set,
					    struct damonctl_filter_spec *f,
					    struct damonctl_parse_error *e)
{
	char buf[512], *type, *rest;
	enum damonctl_feature feat;
	uint64_t v;
	int r;

	if (f->sz < sizeof(*f))
		return -EINVAL;
	memset((char *)f + sizeof(f->sz), 0, sizeof(*f) - sizeof(f->sz));
	snprintf(buf, sizeof(buf), "%s", text);
	type = split2(buf, ':');
	if (!type || (strcmp(buf, "allow") && strcmp(buf, "reject")))
		return refuse(e, DAMONCTL_PARSE_FORM, -EINVAL, text);
	f->allow = !strcmp(buf, "allow");
	f->matching = true;
	if (*type == '!') {
		f->matching = false;
		type++;
	}
	rest = split2(type, ':');
	if (damonctl_keyword_feature(set, type, &feat))
		return refuse(e, DAMONCTL_PARSE_KEYWORD, -ENOENT, type);
	snprintf(f->type, sizeof(f->type), "%s", type);
	if (!strcmp(type, "memcg")) {
		if (!rest || !*rest)
			return refuse(e, DAMONCTL_PARSE_ARG, -ENODATA, type);
		snprintf(f->memcg, sizeof(f->memcg), "%s", rest);
	} else if (!strcmp(type, "addr") || !strcmp(type, "hugepage_size")) {
		if (!rest)
			return refuse(e, DAMONCTL_PARSE_ARG, -ENODATA, type);
		r = parse_range(rest, strcmp(type, "addr") ? damonctl_parse_size :
				damonctl_parse_u64, &f->lo, &f->hi, e);
		if (r)
			return r;
	} else if (!strcmp(type, "target")) {
		if (!rest)
			return refuse(e, DAMONCTL_PARSE_ARG, -ENODATA, type);
		r = damonctl_parse_u64(rest, &v);
		/* "max" is the largest index */
		if (!r && v > UINT32_MAX && v != DAMONCTL_MAX)
			r = -EDOM;
		if (r)
			return refuse(e, DAMONCTL_PARSE_VALUE, r, rest);
		f->target_idx = (unsigned int)v;
	} else if (rest) {
		return refuse(e, DAMONCTL_PARSE_ARG, -EINVAL, type);
	}
	return 0;
}

DAMONCTL_API int damonctl_goal_spec_parse(const char *text, struct damonctl_goal_spec *g,
					  struct damonctl_parse_error *e)
{
	char buf[512], *val, *rest, *opt, *end;
	enum damonctl_feature feat;
	size_t n;
	long nid;
	int r;

	if (g->sz < sizeof(*g))
		return -EINVAL;
	memset((char *)g + sizeof(g->sz), 0, sizeof(*g) - sizeof(g->sz));
	snprintf(buf, sizeof(buf), "%s", text);
	rest = split2(buf, ',');
	val = split2(buf, '=');
	if (!val || !*buf)
		return refuse(e, DAMONCTL_PARSE_FORM, -EINVAL, text);
	if (damonctl_keyword_feature(DAMONCTL_KW_GOAL_METRIC, buf, &feat))
		return refuse(e, DAMONCTL_PARSE_KEYWORD, -ENOENT, buf);
	snprintf(g->metric, sizeof(g->metric), "%.*s", (int)sizeof(g->metric) - 1, buf);
	/* the metric's unit: pressure is time, *_bp basis points, the others plain numbers */
	n = strlen(buf);
	if (!strcmp(buf, "some_mem_psi_us"))
		r = damonctl_parse_time_us(val, &g->target);
	else if (n > 3 && !strcmp(buf + n - 3, "_bp"))
		r = damonctl_parse_bp(val, &g->target);
	else
		r = damonctl_parse_u64(val, &g->target);
	if (r)
		return refuse(e, DAMONCTL_PARSE_VALUE, r, val);
	while (rest && *rest) {
		opt = rest;
		rest = split2(opt, ',');
		if (!strncmp(opt, "nid=", 4)) {
			nid = strtol(opt + 4, &end, 10);
			if (*end || end == opt + 4 || nid < 0 || nid > 4096)
				return refuse(e, DAMONCTL_PARSE_NID, -EINVAL, opt + 4);
			g->has_nid = true;
			g->nid = (int)nid;
		} else if (!strncmp(opt, "path=", 5)) {
			snprintf(g->path, sizeof(g->path), "%s", opt + 5);
		} else {
			return refuse(e, DAMONCTL_PARSE_OPTION, -EINVAL, opt);
		}
	}
	return 0;
}

DAMONCTL_API enum damonctl_filter_dir damonctl_filter_dir_for(const char *type,
							      const struct damonctl_features *f)
{
	if (damonctl_features_has(f, DAMONCTL_FEAT_CORE_OPS_FILTERS) != DAMONCTL_YES)
		return DAMONCTL_FILTERS_LEGACY;
	if (dctl_filter_type_is_core(type))
		return DAMONCTL_FILTERS_CORE;
	return DAMONCTL_FILTERS_OPS;
}

DAMONCTL_API int damonctl_filter_set_spec(struct damonctl_filter *flt,
					  const struct damonctl_filter_spec *f)
{
	int r = damonctl_filter_set_str(flt, DAMONCTL_FILTER_TYPE, f->type);

	if (!r)
		r = damonctl_filter_set(flt, DAMONCTL_FILTER_MATCHING, f->matching);
	if (!r)
		r = damonctl_filter_set(flt, DAMONCTL_FILTER_ALLOW, f->allow);
	if (!r && !strcmp(f->type, "memcg"))
		r = damonctl_filter_set_str(flt, DAMONCTL_FILTER_MEMCG_PATH, f->memcg);
	if (!r && !strcmp(f->type, "addr")) {
		r = damonctl_filter_set(flt, DAMONCTL_FILTER_ADDR_START, f->lo);
		if (!r)
			r = damonctl_filter_set(flt, DAMONCTL_FILTER_ADDR_END, f->hi);
	}
	if (!r && !strcmp(f->type, "hugepage_size")) {
		r = damonctl_filter_set(flt, DAMONCTL_FILTER_MIN, f->lo);
		if (!r)
			r = damonctl_filter_set(flt, DAMONCTL_FILTER_MAX, f->hi);
	}
	if (!r && !strcmp(f->type, "target"))
		r = damonctl_filter_set(flt, DAMONCTL_FILTER_TARGET_IDX, f->target_idx);
	return r;
}

DAMONCTL_API int damonctl_probe_filter_set_spec(struct damonctl_probe_filter *pf,
						const struct damonctl_filter_spec *f)
{
	int r = damonctl_probe_filter_set_str(pf, DAMONCTL_PROBE_FILTER_TYPE, f->type);

	if (!r)
		r = damonctl_probe_filter_set(pf, DAMONCTL_PROBE_FILTER_MATCHING, f->matching);
	if (!r)
		r = damonctl_probe_filter_set(pf, DAMONCTL_PROBE_FILTER_ALLOW, f->allow);
	if (!r && !strcmp(f->type, "memcg"))
		r = damonctl_probe_filter_set_str(pf, DAMONCTL_PROBE_FILTER_PATH, f->memcg);
	return r;
}

DAMONCTL_API int damonctl_goal_set_spec(struct damonctl_goal *goal,
					const struct damonctl_goal_spec *g)
{
	int r = damonctl_goal_set_str(goal, DAMONCTL_GOAL_METRIC, g->metric);

	if (!r)
		r = damonctl_goal_set(goal, DAMONCTL_GOAL_TARGET_VALUE, g->target);
	if (!r && g->has_nid)
		r = damonctl_goal_set_int(goal, DAMONCTL_GOAL_NID, g->nid);
	if (!r && *g->path)
		r = damonctl_goal_set_str(goal, DAMONCTL_GOAL_PATH, g->path);
	return r;
}
