// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's kdamonds JSON ({"kdamonds": [...]}, what `damo args damon` prints and `damo start
 * --kdamonds` reads) into the model, read the way damo itself reads it: the from_kvpairs()
 * methods of src/_damon.py, the text_to_*() helpers of src/_damo_fmt_str.py, and the
 * conversions src/_damon_sysfs.py does before writing files.
 *
 * damo key                                 model (sysfs file)               read as
 *   refresh_ms                              refresh_ms                       time, bare = ms
 *   ops, addr_unit, pause                   operations, addr_unit, pause     -, size, bool
 *   targets[].pid, obsolete, regions[]      pid_target, obsolete_target, regions (sizes)
 *   intervals.sample_us, aggr_us            monitoring_attrs/intervals/{sample,aggr}_us
 *   intervals.ops_update_us                 monitoring_attrs/intervals/update_us
 *   intervals.intervals_goal.{access_bp, aggrs, min_sample_us, max_sample_us}
 *                                           .../intervals_goal/ (same names; bp, count, time)
 *   nr_regions.{min,max}                    monitoring_attrs/nr_regions/{min,max}
 *   probes[].filters[].filter_type, matching, allow, path
 *                                           monitoring_attrs/probes/N/filters/M/{type,
 *                                           matching,allow,path}; path of memcg ones only
 *   schemes[].action, target_nid, apply_interval_us, dests[].{id,weight}: same names
 *   access_pattern.sz_bytes.{min,max}       access_pattern/sz/{min,max}      size
 *   access_pattern.nr_accesses.{min,max}    access_pattern/nr_accesses/{min,max}: "N %" (bare
 *                                           numbers too) to samples with the context's
 *                                           intervals, or "N samples" as is
 *   access_pattern.age.{min,max}            access_pattern/age/{min,max}: a time to
 *                                           aggregation intervals, or "N aggr_intervals"
 *   quotas.time_ms, sz_bytes, reset_interval_ms   quotas/{ms,bytes,reset_interval_ms}
 *   quotas.weights.{sz,nr_accesses,age}_permil    quotas/weights/ (same)  "N %", bare permil
 *   quotas.goal_tuner, fail_charge_num, fail_charge_denom   quotas/ (same names)
 *   quotas.goals[].metric, nid, target_value, current_value, memcg_path
 *                                           goals/N/{target_metric,nid,...,path}; the
 *                                           target in the metric's unit (_us time, _bp bp)
 *   watermarks.metric, interval_us, {high,mid,low}_permil   watermarks/{metric,...,low}
 *   filters[].filter_type, matching, allow (or filter_pass), memcg_path,
 *     address_range.{start,end}, damon_target_idx, hugepage_size[min, max]
 *                                           filters/N/{type,...,addr_start,addr_end,min,max}
 *   stats.max_nr_snapshots                  stats/max_nr_snapshots
 *
 * Filters go to the legacy filters/ directory, which every kernel with filters has and which
 * the kernel splits into core and ops filters by type, as damo does. What damo omits takes
 * damo's defaults, not the kernel's: a scheme without access_pattern matches every region,
 * quotas without reset_interval_ms reset every "max" ms, intervals default to 5 ms, 100 ms
 * and 1 s. Results (state, pid, stats counters, effective_sz_bytes) are checked and ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_internal.h"

#define WHERE 512

struct derr {
	char *buf;
	size_t size;
};

static int dfail(struct derr *e, int err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int dfail(struct derr *e, int err, const char *where, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (e->buf && e->size) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		snprintf(e->buf, e->size, "%s: %s", *where ? where : "damo document", msg);
	}
	return err;
}

static void at_key(char *out, const char *where, const char *key)
{
	dctl_fmt(out, WHERE, "%s%s%s", where, *where ? "." : "", key);
}

static void at_idx(char *out, const char *where, size_t i)
{
	dctl_fmt(out, WHERE, "%s[%zu]", where, i);
}

/* @key of @o when present and not null (damo's None means "not set"). */
static bool get(json_object *o, const char *key, json_object **v)
{
	return json_object_object_get_ex(o, key, v) && *v;
}

static int check_keys(json_object *o, const char *const *keys, const char *what,
		      const char *where, struct derr *e)
{
	json_object_object_foreach(o, key, val) {
		unsigned int i;
		char w[WHERE];

		(void)val;
		for (i = 0; keys[i] && strcmp(keys[i], key); i++)
			;
		if (!keys[i]) {
			at_key(w, where, key);
			return dfail(e, -EINVAL, w, "unknown key in damo's %s", what);
		}
	}
	return 0;
}

static int want_type(json_object *v, enum json_type t, const char *what, const char *where,
		     struct derr *e)
{
	if (json_object_is_type(v, t))
		return 0;
	return dfail(e, -EINVAL, where, "expected %s, not %s", what,
		     v ? json_type_to_name(json_object_get_type(v)) : "null");
}

/* An object member, checked to be of type @t when present. */
static int member(json_object *o, const char *key, enum json_type t, const char *what,
		  const char *where, struct derr *e, json_object **v)
{
	char w[WHERE];

	if (!get(o, key, v)) {
		*v = NULL;
		return 0;
	}
	at_key(w, where, key);
	return want_type(*v, t, what, w, e);
}

/* ---- values, as damo's text_to_*() read them ---- */

enum vkind { VK_TIME_US, VK_TIME_MS, VK_SIZE, VK_COUNT, VK_BP, VK_PERMIL, VK_PERCENT_BP };

static const char *const vkind_what[] = {
	[VK_TIME_US] = "a time such as \"5 ms\"",
	[VK_TIME_MS] = "a time such as \"1 s\"",
	[VK_SIZE] = "a size such as \"4 KiB\"",
	[VK_COUNT] = "a number",
	[VK_BP] = "a ratio such as \"5 %\"",
	[VK_PERMIL] = "a ratio such as \"50 %\"",
	[VK_PERCENT_BP] = "a percentage such as \"5 %\"",
};

static int parse_text(enum vkind k, const char *s, uint64_t *v)
{
	uint64_t us;
	int r;

	switch (k) {
	case VK_TIME_US:
		return dctl_parse_time(s, DCTL_U_DAMO, 1, v);
	case VK_TIME_MS:
		/* text_to_ms(): bare numbers are ms; the float result is cut when written */
		r = dctl_parse_time(s, DCTL_U_DAMO, 1000, &us);
		if (!r)
			*v = us == DAMONCTL_MAX ? DAMONCTL_MAX : us / 1000;
		return r;
	case VK_SIZE:
		return dctl_parse_size(s, DCTL_U_DAMO, v);
	case VK_COUNT:
		return dctl_parse_count(s, DCTL_U_DAMO, v);
	case VK_BP:
		return dctl_parse_ratio(s, DCTL_U_DAMO, 10000, 1, v);
	case VK_PERMIL:
		return dctl_parse_ratio(s, DCTL_U_DAMO, 1000, 1, v);
	case VK_PERCENT_BP:
		return dctl_parse_ratio(s, DCTL_U_DAMO, 10000, 100, v);
	}
	return -EINVAL;
}

/* A JSON number in exponent form ("1e+16", as Python prints large floats). */
static int parse_double(enum vkind k, double d, uint64_t *v)
{
	if (k == VK_PERCENT_BP)
		d *= 100;
	if (!(d >= 0) || d >= 18446744073709551616.0)
		return -ERANGE;
	*v = (uint64_t)d;
	return 0;
}

/* A string in damo's forms, or a JSON number counting the bare unit. */
static int rd_num(json_object *v, enum vkind k, const char *where, struct derr *e, uint64_t *out)
{
	enum json_type t = json_object_get_type(v);
	const char *s;
	int r;

	if (t != json_type_string && t != json_type_int && t != json_type_double)
		return dfail(e, -EINVAL, where, "expected %s, not %s", vkind_what[k],
			     json_type_to_name(t));
	/* json-c keeps the text of numbers it parsed: "0.29" stays exact */
	s = json_object_get_string(v);
	r = parse_text(k, s, out);
	if (r == -EINVAL && t == json_type_double)
		r = parse_double(k, json_object_get_double(v), out);
	if (r == -ERANGE)
		return dfail(e, -ERANGE, where, "'%s' is out of range", s);
	if (r)
		return dfail(e, -EINVAL, where, "cannot read '%s' as %s", s, vkind_what[k]);
	return 0;
}

/* A member read with rd_num(); absent or null leaves *out alone and returns 1. */
static int num_member(json_object *o, const char *key, enum vkind k, const char *where,
		      struct derr *e, uint64_t *out)
{
	json_object *v;
	char w[WHERE];

	if (!get(o, key, &v))
		return 1;
	at_key(w, where, key);
	return rd_num(v, k, w, e, out);
}

/* text_to_bool(): a boolean, or y/yes/true/n/no/false in any case. */
static int rd_bool(json_object *v, const char *where, struct derr *e, bool *b)
{
	static const char *const yes[] = { "y", "yes", "true" }, *const no[] = { "n", "no", "false" };
	unsigned int i;

	if (json_object_is_type(v, json_type_boolean)) {
		*b = json_object_get_boolean(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_string)) {
		for (i = 0; i < ARRAY_SIZE(yes); i++) {
			if (!strcasecmp(json_object_get_string(v), yes[i])) {
				*b = true;
				return 0;
			}
			if (!strcasecmp(json_object_get_string(v), no[i])) {
				*b = false;
				return 0;
			}
		}
	}
	return dfail(e, -EINVAL, where, "expected true or false, not %s",
		     json_object_get_string(v));
}

/* pids and node ids: a JSON integer or a decimal string, int-sized. */
static int rd_int(json_object *v, const char *where, struct derr *e, int64_t *out)
{
	int64_t i;

	if (json_object_is_type(v, json_type_int)) {
		i = json_object_get_int64(v);
	} else if (!json_object_is_type(v, json_type_string) ||
		   dctl_parse_integer(json_object_get_string(v), &i)) {
		return dfail(e, -EINVAL, where, "expected an integer, not %s",
			     v ? json_object_get_string(v) : "null");
	}
	if (i < INT32_MIN || i > INT32_MAX)
		return dfail(e, -ERANGE, where, "%s is out of range",
			     json_object_get_string(v));
	*out = i;
	return 0;
}

/* ---- model setters ---- */

static int set_num(struct dobj *o, unsigned int a, uint64_t v, const char *where,
		   struct derr *e)
{
	if (dobj_attr(o, a)->type == V_U32 && v > UINT32_MAX) {
		if (v != DAMONCTL_MAX)
			return dfail(e, -ERANGE, where, "%llu does not fit the kernel's %s",
				     (unsigned long long)v, dobj_attr(o, a)->file);
		v = UINT32_MAX;		/* "max" of a 32-bit file is its largest value */
	}
	o->v[a].u = v;
	return 0;
}

/* Read member @key of @j with rd_num() into attribute @a, if present. */
static int num_attr(json_object *j, const char *key, enum vkind k, struct dobj *o,
		    unsigned int a, const char *where, struct derr *e)
{
	char w[WHERE];
	uint64_t v;
	int r = num_member(j, key, k, where, e, &v);

	if (r)
		return r < 0 ? r : 0;
	at_key(w, where, key);
	return set_num(o, a, v, w, e);
}

static int bool_attr(json_object *j, const char *key, struct dobj *o, unsigned int a,
		     const char *where, struct derr *e)
{
	json_object *v;
	char w[WHERE];
	bool b;
	int r;

	if (!get(j, key, &v))
		return 0;
	at_key(w, where, key);
	r = rd_bool(v, w, e, &b);
	if (!r)
		o->v[a].u = b;
	return r;
}

static int int_attr(json_object *j, const char *key, struct dobj *o, unsigned int a,
		    const char *where, struct derr *e)
{
	json_object *v;
	char w[WHERE];
	int64_t i = 0;
	int r;

	if (!get(j, key, &v))
		return 0;
	at_key(w, where, key);
	r = rd_int(v, w, e, &i);
	if (!r)
		o->v[a].i = i;
	return r;
}

static int str_attr(json_object *j, const char *key, const char *what, struct dobj *o,
		    unsigned int a, const char *where, struct derr *e)
{
	json_object *v;
	char w[WHERE];
	int r;

	char text[256];
	size_t n;

	r = member(j, key, json_type_string, what, where, e, &v);
	if (r || !v)
		return r;
	at_key(w, where, key);
	/* damo passes some sysfs files on as read, newline and all ("goal_tuner": "temporal\n"
	 * in `damo report damon`): the keyword is what comes before */
	n = (size_t)json_object_get_string_len(v);
	if (n >= sizeof(text))
		return dfail(e, -EINVAL, w, "%zu characters are not %s", n, what);
	memcpy(text, json_object_get_string(v), n + 1);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\t'))
		text[--n] = '\0';
	r = dobj_set_str(o, a, text);
	if (r == -EINVAL)
		return dfail(e, r, w, "'%s' is not %s", json_object_get_string(v), what);
	return r;
}

/* ---- the objects ---- */

static int read_region_range(json_object *j, const char *where, struct derr *e,
			     uint64_t *start, uint64_t *end)
{
	static const char *const keys[] = { "start", "end", NULL };
	int r;

	r = want_type(j, json_type_object, "an object with start and end", where, e);
	if (!r)
		r = check_keys(j, keys, "address range", where, e);
	if (!r)
		r = num_member(j, "start", VK_SIZE, where, e, start);
	if (r >= 0)
		r = num_member(j, "end", VK_SIZE, where, e, end);
	return r < 0 ? r : 0;
}

static int read_target(json_object *j, struct dobj *t, const char *where, struct derr *e)
{
	static const char *const keys[] = { "pid", "obsolete", "regions", NULL };
	json_object *regions = NULL;
	size_t i;
	int r;

	r = check_keys(j, keys, "target", where, e);
	if (!r)
		r = int_attr(j, "pid", t, DAMONCTL_TARGET_PID, where, e);
	if (!r)
		r = bool_attr(j, "obsolete", t, DAMONCTL_TARGET_OBSOLETE, where, e);
	if (!r)
		r = member(j, "regions", json_type_array, "an array", where, e, &regions);
	for (i = 0; !r && regions && i < json_object_array_length(regions); i++) {
		char w[WHERE], w2[WHERE];
		struct dobj *reg;

		at_key(w2, where, "regions");
		at_idx(w, w2, i);
		reg = dobj_add(t, L_TARGET_REGIONS);
		if (!reg)
			return -ENOMEM;
		r = read_region_range(json_object_array_get_idx(regions, i), w, e,
				      &reg->v[A_REGION_START].u, &reg->v[A_REGION_END].u);
	}
	return r;
}

static int read_intervals(json_object *j, struct dobj *c, const char *where, struct derr *e)
{
	static const char *const keys[] = { "sample_us", "aggr_us", "ops_update_us",
					     "intervals_goal", NULL };
	static const char *const gkeys[] = { "access_bp", "aggrs", "min_sample_us",
					      "max_sample_us", NULL };
	json_object *g;
	char w[WHERE];
	int r;

	r = check_keys(j, keys, "intervals", where, e);
	if (!r)
		r = num_attr(j, "sample_us", VK_TIME_US, c, DAMONCTL_CONTEXT_SAMPLE_US, where, e);
	if (!r)
		r = num_attr(j, "aggr_us", VK_TIME_US, c, DAMONCTL_CONTEXT_AGGR_US, where, e);
	if (!r)
		r = num_attr(j, "ops_update_us", VK_TIME_US, c, DAMONCTL_CONTEXT_UPDATE_US, where,
			     e);
	if (!r)
		r = member(j, "intervals_goal", json_type_object, "an object", where, e, &g);
	if (r || !g)
		return r;
	at_key(w, where, "intervals_goal");
	r = check_keys(g, gkeys, "intervals goal", w, e);
	if (!r)
		r = num_attr(g, "access_bp", VK_BP, c, DAMONCTL_CONTEXT_GOAL_ACCESS_BP, w, e);
	if (!r)
		r = num_attr(g, "aggrs", VK_COUNT, c, DAMONCTL_CONTEXT_GOAL_AGGRS, w, e);
	if (!r)
		r = num_attr(g, "min_sample_us", VK_TIME_US, c,
			     DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US, w, e);
	if (!r)
		r = num_attr(g, "max_sample_us", VK_TIME_US, c,
			     DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US, w, e);
	return r;
}

/* One bound of access_pattern.nr_accesses or .age: a value in damo's default unit, or
 * "<n> <unit>" in the kernel's own (samples, aggr_intervals). */
struct bound {
	uint64_t v;
	bool raw;	/* in the kernel's unit already */
};

static int read_bound(json_object *j, const char *key, enum vkind k, const char *raw_unit,
		      const char *where, struct derr *e, struct bound *b)
{
	json_object *v;
	enum json_type t;
	char w[WHERE];
	const char *s, *sp;
	int r;

	if (!get(j, key, &v))
		return 1;
	at_key(w, where, key);
	b->raw = false;
	t = json_object_get_type(v);
	if (t != json_type_string && t != json_type_int && t != json_type_double)
		return rd_num(v, k, w, e, &b->v);	/* says what was expected */
	s = json_object_get_string(v);
	r = parse_text(k, s, &b->v);
	if (r == -EINVAL && t == json_type_double)
		r = parse_double(k, json_object_get_double(v), &b->v);
	if (r == -ERANGE && k == VK_PERCENT_BP) {
		/* damo's "max" access rate is ulong_max percent, printed in full */
		b->v = DAMONCTL_MAX;
		return 0;
	}
	if (r != -EINVAL || t != json_type_string)
		return r ? dfail(e, r, w, r == -ERANGE ? "'%s' is out of range" :
				 "cannot read '%s'", s) : 0;
	/* text_to_nr_unit(): exactly "<number> <unit>" */
	sp = strrchr(s, ' ');
	if (sp && !strcmp(sp + 1, raw_unit)) {
		char num[64];

		dctl_fmt(num, sizeof(num), "%.*s", (int)(sp - s), s);
		r = dctl_parse_count(num, DCTL_U_DAMO, &b->v);
		b->raw = true;
		if (!r)
			return 0;
	}
	return dfail(e, r == -ERANGE ? -ERANGE : -EINVAL, w, "cannot read '%s' as %s or as "
		     "\"<number> %s\"", s, vkind_what[k], raw_unit);
}

/* Both bounds, which damo requires in one unit. */
static int read_range(json_object *ap, const char *key, enum vkind k, const char *raw_unit,
		      const char *where, struct derr *e, struct bound *lo, struct bound *hi)
{
	static const char *const keys[] = { "min", "max", NULL };
	json_object *j;
	char w[WHERE];
	int r, r2;

	r = member(ap, key, json_type_object, "an object with min and max", where, e, &j);
	if (r || !j)
		return r;
	at_key(w, where, key);
	r = check_keys(j, keys, "range", w, e);
	if (r)
		return r;
	r = read_bound(j, "min", k, raw_unit, w, e, lo);
	if (r < 0)
		return r;
	r2 = read_bound(j, "max", k, raw_unit, w, e, hi);
	if (r2 < 0)
		return r2;
	if (!r && !r2 && lo->raw != hi->raw)
		return dfail(e, -EINVAL, w, "min and max must be in the same unit (both in %s or "
			     "both in %s)", raw_unit, k == VK_PERCENT_BP ? "percent" : "time");
	return 0;
}

static int read_access_pattern(json_object *ap, struct dobj *s, uint64_t sample_us,
			       uint64_t aggr_us, const char *where, struct derr *e)
{
	static const char *const keys[] = { "sz_bytes", "nr_accesses", "age", NULL };
	/* damo's DamosAccessPattern() defaults: every region */
	struct bound sz[2] = { { 0, true }, { DAMONCTL_MAX, true } };
	struct bound nr[2] = { { 0, true }, { DAMONCTL_MAX, true } };
	struct bound age[2] = { { 0, true }, { DAMONCTL_MAX, true } };
	char w[WHERE];
	unsigned int i;
	int r;

	r = check_keys(ap, keys, "access pattern", where, e);
	if (!r)
		r = read_range(ap, "sz_bytes", VK_SIZE, "B", where, e, &sz[0], &sz[1]);
	if (!r)
		r = read_range(ap, "nr_accesses", VK_PERCENT_BP, "samples", where, e, &nr[0],
			       &nr[1]);
	if (!r)
		r = read_range(ap, "age", VK_TIME_US, "aggr_intervals", where, e, &age[0],
			       &age[1]);
	if (r)
		return r;
	for (i = 0; i < 2; i++) {
		uint64_t n = nr[i].v, a = age[i].v;

		if (!nr[i].raw && n != DAMONCTL_MAX) {
			/* DamonNrAccesses.add_unset_unit(): int(percent * aggr / sample / 100) */
			if (!sample_us) {
				at_key(w, where, "nr_accesses");
				return dfail(e, -EINVAL, w, "an access rate in percent needs a "
					     "non-zero sampling interval");
			}
			n = damonctl_rate_bp_to_nr_accesses(n, sample_us, aggr_us, false);
		}
		if (!age[i].raw && a != DAMONCTL_MAX) {
			/* DamonAge.add_unset_unit(): int(usec / aggr), cut like damo */
			if (!aggr_us) {
				at_key(w, where, "age");
				return dfail(e, -EINVAL, w, "an age in time needs a non-zero "
					     "aggregation interval");
			}
			a /= aggr_us;
		}
		s->v[DAMONCTL_SCHEME_SZ_MIN + i].u = sz[i].v;
		s->v[DAMONCTL_SCHEME_NR_ACCESSES_MIN + i].u = n;
		s->v[DAMONCTL_SCHEME_AGE_MIN + i].u = a;
	}
	return 0;
}

/* Read array member @key of @j, each item an object, into list @l of @o. */
static int read_list(json_object *j, const char *key, struct dobj *o, unsigned int l,
		     int (*fn)(json_object *, struct dobj *, const char *, struct derr *),
		     const char *where, struct derr *e)
{
	json_object *arr = NULL;
	char w[WHERE], wl[WHERE];
	size_t i;
	int r;

	r = member(j, key, json_type_array, "an array", where, e, &arr);
	at_key(wl, where, key);
	for (i = 0; !r && arr && i < json_object_array_length(arr); i++) {
		json_object *item = json_object_array_get_idx(arr, i);
		struct dobj *c;

		at_idx(w, wl, i);
		r = want_type(item, json_type_object, "an object", w, e);
		if (r)
			break;
		c = dobj_add(o, l);
		if (!c)
			return -ENOMEM;
		r = fn(item, c, w, e);
	}
	return r;
}

static int read_goal(json_object *j, struct dobj *g, const char *where, struct derr *e)
{
	static const char *const keys[] = { "metric", "nid", "target_value", "current_value",
					     "memcg_path", "target_value_bp", "current_value_bp",
					     NULL };
	const char *metric;
	enum vkind k = VK_COUNT;
	size_t n;
	int r;

	r = check_keys(j, keys, "quota goal", where, e);
	if (!r && json_object_object_get_ex(j, "target_value_bp", NULL)) {
		/* damo's old naming: a user_input goal (DamosQuotaGoal.from_kvpairs()) */
		r = num_attr(j, "target_value_bp", VK_COUNT, g, DAMONCTL_GOAL_TARGET_VALUE,
			     where, e);
		if (!r)
			r = num_attr(j, "current_value_bp", VK_COUNT, g,
				     DAMONCTL_GOAL_CURRENT_VALUE, where, e);
		return r;
	}
	if (!r)
		r = str_attr(j, "metric", "a quota goal metric", g, DAMONCTL_GOAL_METRIC, where,
			     e);
	if (r)
		return r;
	/* the target's unit follows the metric (DamosQuotaGoal.__init__()) */
	metric = damonctl_goal_get_str((struct damonctl_goal *)g, DAMONCTL_GOAL_METRIC);
	n = strlen(metric);
	if (n > 3 && !strcmp(metric + n - 3, "_us"))
		k = VK_TIME_US;
	else if (n > 3 && !strcmp(metric + n - 3, "_bp"))
		k = VK_BP;
	r = int_attr(j, "nid", g, DAMONCTL_GOAL_NID, where, e);
	if (!r)
		r = num_attr(j, "target_value", k, g, DAMONCTL_GOAL_TARGET_VALUE, where, e);
	if (!r)
		r = num_attr(j, "current_value", VK_COUNT, g, DAMONCTL_GOAL_CURRENT_VALUE, where,
			     e);
	if (!r)
		r = str_attr(j, "memcg_path", "a cgroup path", g, DAMONCTL_GOAL_PATH, where, e);
	return r;
}

static int read_quotas(json_object *j, struct dobj *s, const char *where, struct derr *e)
{
	static const char *const keys[] = { "time_ms", "sz_bytes", "reset_interval_ms", "goals",
					     "effective_sz_bytes", "weights", "goal_tuner",
					     "fail_charge_num", "fail_charge_denom", NULL };
	static const char *const wkeys[] = { "sz_permil", "nr_accesses_permil", "age_permil",
					      NULL };
	json_object *weights = NULL;
	char w[WHERE];
	uint64_t ignored;
	int r;

	r = check_keys(j, keys, "quotas", where, e);
	if (!r)
		r = num_attr(j, "time_ms", VK_TIME_MS, s, DAMONCTL_SCHEME_QUOTA_MS, where, e);
	if (!r)
		r = num_attr(j, "sz_bytes", VK_SIZE, s, DAMONCTL_SCHEME_QUOTA_BYTES, where, e);
	if (!r)
		r = num_attr(j, "reset_interval_ms", VK_TIME_MS, s,
			     DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS, where, e);
	if (!r)		/* a result: checked, not kept */
		r = num_member(j, "effective_sz_bytes", VK_SIZE, where, e, &ignored);
	if (r > 0)
		r = 0;
	if (!r)
		r = str_attr(j, "goal_tuner", "a goal tuner (consist or temporal)", s,
			     DAMONCTL_SCHEME_QUOTA_GOAL_TUNER, where, e);
	if (!r)
		r = num_attr(j, "fail_charge_num", VK_COUNT, s,
			     DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_NUM, where, e);
	if (!r)
		r = num_attr(j, "fail_charge_denom", VK_COUNT, s,
			     DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_DENOM, where, e);
	if (!r)
		r = member(j, "weights", json_type_object, "an object", where, e, &weights);
	if (!r && weights) {
		at_key(w, where, "weights");
		r = check_keys(weights, wkeys, "quota weights", w, e);
		if (!r)
			r = num_attr(weights, "sz_permil", VK_PERMIL, s,
				     DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL, w, e);
		if (!r)
			r = num_attr(weights, "nr_accesses_permil", VK_PERMIL, s,
				     DAMONCTL_SCHEME_WEIGHT_NR_ACCESSES_PERMIL, w, e);
		if (!r)
			r = num_attr(weights, "age_permil", VK_PERMIL, s,
				     DAMONCTL_SCHEME_WEIGHT_AGE_PERMIL, w, e);
	}
	if (!r)
		r = read_list(j, "goals", s, L_SCHEME_GOALS, read_goal, where, e);
	return r;
}

static int read_watermarks(json_object *j, struct dobj *s, const char *where, struct derr *e)
{
	static const char *const keys[] = { "metric", "interval_us", "high_permil", "mid_permil",
					     "low_permil", NULL };
	int r;

	r = check_keys(j, keys, "watermarks", where, e);
	if (!r)
		r = str_attr(j, "metric", "a watermark metric (none or free_mem_rate)", s,
			     DAMONCTL_SCHEME_WMARKS_METRIC, where, e);
	if (!r)
		r = num_attr(j, "interval_us", VK_TIME_US, s, DAMONCTL_SCHEME_WMARKS_INTERVAL_US,
			     where, e);
	if (!r)
		r = num_attr(j, "high_permil", VK_PERMIL, s, DAMONCTL_SCHEME_WMARKS_HIGH, where,
			     e);
	if (!r)
		r = num_attr(j, "mid_permil", VK_PERMIL, s, DAMONCTL_SCHEME_WMARKS_MID, where, e);
	if (!r)
		r = num_attr(j, "low_permil", VK_PERMIL, s, DAMONCTL_SCHEME_WMARKS_LOW, where, e);
	return r;
}

static int read_filter(json_object *j, struct dobj *f, const char *where, struct derr *e)
{
	static const char *const keys[] = { "filter_type", "matching", "allow", "filter_pass",
					     "memcg_path", "address_range", "damon_target_idx",
					     "hugepage_size", NULL };
	json_object *v, *range = NULL, *hp = NULL, *path = NULL;
	const char *type;
	char w[WHERE];
	int r;

	r = check_keys(j, keys, "filter", where, e);
	if (r)
		return r;
	/* DamosFilter.from_kvpairs() needs these two */
	if (!get(j, "filter_type", &v) || !get(j, "matching", &v))
		return dfail(e, -EINVAL, where, "a damo filter needs filter_type and matching");
	r = str_attr(j, "filter_type", "a filter type", f, DAMONCTL_FILTER_TYPE, where, e);
	if (!r)
		r = bool_attr(j, "matching", f, DAMONCTL_FILTER_MATCHING, where, e);
	if (!r)		/* "filter_pass" is damo's earlier name of "allow" */
		r = bool_attr(j, json_object_object_get_ex(j, "allow", NULL) ? "allow" :
			      "filter_pass", f, DAMONCTL_FILTER_ALLOW, where, e);
	if (!r)
		r = member(j, "memcg_path", json_type_string, "a cgroup path", where, e, &path);
	if (!r)
		r = member(j, "address_range", json_type_object, "an object with start and end",
			   where, e, &range);
	if (!r)
		r = member(j, "hugepage_size", json_type_array, "[min, max] sizes", where, e, &hp);
	if (r)
		return r;
	type = damonctl_filter_get_str((struct damonctl_filter *)f, DAMONCTL_FILTER_TYPE);
	/* only the argument of the filter's own type counts, as in damo */
	if (!strcmp(type, "memcg") && path)
		r = dobj_set_str(f, DAMONCTL_FILTER_MEMCG_PATH, json_object_get_string(path));
	if (!strcmp(type, "addr")) {
		at_key(w, where, "address_range");
		if (!range)
			return dfail(e, -EINVAL, w, "an addr filter needs an address range");
		r = read_region_range(range, w, e, &f->v[DAMONCTL_FILTER_ADDR_START].u,
				      &f->v[DAMONCTL_FILTER_ADDR_END].u);
	}
	if (!r && !strcmp(type, "target"))
		r = num_attr(j, "damon_target_idx", VK_COUNT, f, DAMONCTL_FILTER_TARGET_IDX,
			     where, e);
	if (!r && hp) {
		/* written to min and max whenever given (write_filter_dir()) */
		at_key(w, where, "hugepage_size");
		if (json_object_array_length(hp) != 2)
			return dfail(e, -EINVAL, w, "expected [min, max]");
		r = rd_num(json_object_array_get_idx(hp, 0), VK_SIZE, w, e,
			   &f->v[DAMONCTL_FILTER_MIN].u);
		if (!r)
			r = rd_num(json_object_array_get_idx(hp, 1), VK_SIZE, w, e,
				   &f->v[DAMONCTL_FILTER_MAX].u);
	}
	return r;
}

static int read_stats(json_object *j, struct dobj *s, const char *where, struct derr *e)
{
	static const char *const keys[] = { "nr_tried", "sz_tried", "nr_applied", "sz_applied",
					     "sz_ops_filter_passed", "qt_exceeds", "nr_snapshots",
					     "max_nr_snapshots", NULL };
	static const struct { const char *key; enum vkind k; } results[] = {
		{ "nr_tried", VK_COUNT }, { "sz_tried", VK_SIZE }, { "nr_applied", VK_COUNT },
		{ "sz_applied", VK_SIZE }, { "sz_ops_filter_passed", VK_SIZE },
		{ "qt_exceeds", VK_COUNT }, { "nr_snapshots", VK_COUNT },
	};
	uint64_t ignored;
	unsigned int i;
	int r;

	r = check_keys(j, keys, "scheme stats", where, e);
	for (i = 0; !r && i < ARRAY_SIZE(results); i++)
		if ((r = num_member(j, results[i].key, results[i].k, where, e, &ignored)) > 0)
			r = 0;
	if (!r)
		r = num_attr(j, "max_nr_snapshots", VK_COUNT, s, DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS,
			     where, e);
	return r;
}

static int read_dest(json_object *j, struct dobj *d, const char *where, struct derr *e)
{
	static const char *const keys[] = { "id", "weight", NULL };
	int r = check_keys(j, keys, "migration destination", where, e);

	if (!r)
		r = num_attr(j, "id", VK_COUNT, d, DAMONCTL_DEST_ID, where, e);
	if (!r)
		r = num_attr(j, "weight", VK_COUNT, d, DAMONCTL_DEST_WEIGHT, where, e);
	return r;
}

static int read_scheme(json_object *j, struct dobj *s, const char *where, struct derr *e)
{
	static const char *const keys[] = { "action", "dests", "target_nid", "access_pattern",
					     "apply_interval_us", "quotas", "watermarks",
					     "filters", "stats", NULL };
	const struct dobj *c = s->parent;
	json_object *v;
	char w[WHERE];
	int r;

	/* damo's Damos() defaults where they differ from the kernel's */
	s->v[DAMONCTL_SCHEME_SZ_MAX].u = DAMONCTL_MAX;
	s->v[DAMONCTL_SCHEME_NR_ACCESSES_MAX].u = DAMONCTL_MAX;
	s->v[DAMONCTL_SCHEME_AGE_MAX].u = DAMONCTL_MAX;
	s->v[DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS].u = DAMONCTL_MAX;

	r = check_keys(j, keys, "scheme", where, e);
	if (!r)
		r = str_attr(j, "action", "a DAMOS action", s, DAMONCTL_SCHEME_ACTION, where, e);
	if (!r)
		r = int_attr(j, "target_nid", s, DAMONCTL_SCHEME_TARGET_NID, where, e);
	if (!r)
		r = num_attr(j, "apply_interval_us", VK_TIME_US, s,
			     DAMONCTL_SCHEME_APPLY_INTERVAL_US, where, e);
	if (!r)
		r = read_list(j, "dests", s, L_SCHEME_DESTS, read_dest, where, e);
	if (!r)
		r = read_list(j, "filters", s, L_SCHEME_FILTERS, read_filter, where, e);
	if (!r && !(r = member(j, "access_pattern", json_type_object, "an object", where, e,
			       &v)) && v) {
		at_key(w, where, "access_pattern");
		r = read_access_pattern(v, s, c->v[DAMONCTL_CONTEXT_SAMPLE_US].u,
					c->v[DAMONCTL_CONTEXT_AGGR_US].u, w, e);
	}
	if (!r && !(r = member(j, "quotas", json_type_object, "an object", where, e, &v)) &&
	    v) {
		at_key(w, where, "quotas");
		r = read_quotas(v, s, w, e);
	}
	if (!r && !(r = member(j, "watermarks", json_type_object, "an object", where, e,
			       &v)) && v) {
		at_key(w, where, "watermarks");
		r = read_watermarks(v, s, w, e);
	}
	if (!r && !(r = member(j, "stats", json_type_object, "an object", where, e, &v)) && v) {
		at_key(w, where, "stats");
		r = read_stats(v, s, w, e);
	}
	return r;
}

/* DamonFilter.from_kvpairs() of a probe (not DamosFilter: other keys, fewer types) */
static int read_probe_filter(json_object *j, struct dobj *f, const char *where,
			     struct derr *e)
{
	static const char *const keys[] = { "filter_type", "matching", "allow", "path", NULL };
	json_object *v, *path = NULL;
	int r;

	r = check_keys(j, keys, "probe filter", where, e);
	if (r)
		return r;
	if (!get(j, "filter_type", &v) || !get(j, "matching", &v))
		return dfail(e, -EINVAL, where, "a damo probe filter needs filter_type and "
			     "matching");
	r = str_attr(j, "filter_type", "a probe filter type (anon or memcg)", f,
		     DAMONCTL_PROBE_FILTER_TYPE, where, e);
	if (!r)
		r = bool_attr(j, "matching", f, DAMONCTL_PROBE_FILTER_MATCHING, where, e);
	if (!r)
		r = bool_attr(j, "allow", f, DAMONCTL_PROBE_FILTER_ALLOW, where, e);
	if (!r)
		r = member(j, "path", json_type_string, "a cgroup path", where, e, &path);
	/* damo writes the path of memcg filters only */
	if (!r && path && !strcmp(f->v[DAMONCTL_PROBE_FILTER_TYPE].s, "memcg"))
		r = dobj_set_str(f, DAMONCTL_PROBE_FILTER_PATH, json_object_get_string(path));
	return r;
}

static int read_probe(json_object *j, struct dobj *p, const char *where, struct derr *e)
{
	static const char *const keys[] = { "filters", NULL };
	int r = check_keys(j, keys, "probe", where, e);

	if (!r)
		r = read_list(j, "filters", p, L_PROBE_FILTERS, read_probe_filter, where, e);
	return r;
}

/* Parts of damo's context that only damon/next kernels have: accepted at their defaults. */
static int read_devel_parts(json_object *j, const char *where, struct derr *e)
{
	static const char *const sc_keys[] = { "primitives_enabled", "sample_filters", NULL };
	static const char *const pe_keys[] = { "page_table", "page_fault", NULL };
	static const char *const oa_keys[] = { "use_reports", "write_only", "cpus", "tids",
					       NULL };
	json_object *v, *x;
	char w[WHERE], w2[WHERE];
	bool b;
	int r;

	r = member(j, "sample_control", json_type_object, "an object", where, e, &v);
	if (!r && v) {
		json_object *pe = NULL;

		at_key(w, where, "sample_control");
		r = check_keys(v, sc_keys, "sample control", w, e);
		at_key(w2, w, "primitives_enabled");
		if (!r)
			r = member(v, "primitives_enabled", json_type_object, "an object", w, e,
				   &pe);
		if (!r && pe)
			r = check_keys(pe, pe_keys, "sampling primitives", w2, e);
		/* the defaults: page table sampling on, page fault sampling off */
		if (!r && pe && get(pe, "page_table", &x) && !(r = rd_bool(x, w2, e, &b)) && !b)
			r = -EOPNOTSUPP;
		if (!r && pe && get(pe, "page_fault", &x) && !(r = rd_bool(x, w2, e, &b)) && b)
			r = -EOPNOTSUPP;
		at_key(w2, w, "sample_filters");
		if (!r)
			r = member(v, "sample_filters", json_type_array, "an array", w, e, &x);
		if (!r && x && json_object_array_length(x))
			r = -EOPNOTSUPP;
		if (r == -EOPNOTSUPP)
			return dfail(e, r, w, "sampling control exists only in DAMON development "
				     "trees; libdamonctl supports it at its defaults only");
	}
	if (!r)
		r = member(j, "ops_attrs", json_type_object, "an object", where, e, &v);
	if (!r && v) {
		at_key(w, where, "ops_attrs");
		r = check_keys(v, oa_keys, "operations attributes", w, e);
		if (!r && get(v, "use_reports", &x) && !(r = rd_bool(x, w, e, &b)) && b)
			r = -EOPNOTSUPP;
		if (!r && get(v, "write_only", &x) && !(r = rd_bool(x, w, e, &b)) && b)
			r = -EOPNOTSUPP;
		if (!r && get(v, "cpus", &x) && (!json_object_is_type(x, json_type_string) ||
						  strcmp(json_object_get_string(x), "all")))
			r = -EOPNOTSUPP;
		if (!r && get(v, "tids", &x) && (!json_object_is_type(x, json_type_string) ||
						  *json_object_get_string(x)))
			r = -EOPNOTSUPP;
		if (r == -EOPNOTSUPP)
			return dfail(e, r, w, "operations attributes exist only in DAMON "
				     "development trees; libdamonctl supports them at their "
				     "defaults only");
	}
	return r;
}

static int read_context(json_object *j, struct dobj *c, const char *where, struct derr *e)
{
	static const char *const keys[] = { "ops", "addr_unit", "targets", "intervals",
					     "nr_regions", "probes", "sample_control", "ops_attrs",
					     "pause", "schemes", NULL };
	static const char *const rkeys[] = { "min", "max", NULL };
	json_object *v;
	char w[WHERE];
	int r;

	/* damo's DamonCtx() and DamonIntervals() defaults */
	r = dobj_set_str(c, DAMONCTL_CONTEXT_OPERATIONS, "paddr");
	c->v[DAMONCTL_CONTEXT_UPDATE_US].u = 1000000;

	if (!r)
		r = check_keys(j, keys, "context", where, e);
	if (!r)
		r = str_attr(j, "ops", "an operations set (vaddr, fvaddr or paddr)", c,
			     DAMONCTL_CONTEXT_OPERATIONS, where, e);
	if (!r)
		r = num_attr(j, "addr_unit", VK_SIZE, c, DAMONCTL_CONTEXT_ADDR_UNIT, where, e);
	if (!r)
		r = bool_attr(j, "pause", c, DAMONCTL_CONTEXT_PAUSE, where, e);
	if (!r)
		r = read_devel_parts(j, where, e);
	if (!r)
		r = read_list(j, "probes", c, L_CONTEXT_PROBES, read_probe, where, e);
	if (!r && !(r = member(j, "intervals", json_type_object, "an object", where, e, &v)) &&
	    v) {
		at_key(w, where, "intervals");
		r = read_intervals(v, c, w, e);
	}
	if (!r && !(r = member(j, "nr_regions", json_type_object, "an object", where, e,
			       &v)) && v) {
		at_key(w, where, "nr_regions");
		r = check_keys(v, rkeys, "nr_regions range", w, e);
		if (!r)
			r = num_attr(v, "min", VK_COUNT, c, DAMONCTL_CONTEXT_MIN_NR_REGIONS, w, e);
		if (!r)
			r = num_attr(v, "max", VK_COUNT, c, DAMONCTL_CONTEXT_MAX_NR_REGIONS, w, e);
	}
	if (!r)
		r = read_list(j, "targets", c, L_CONTEXT_TARGETS, read_target, where, e);
	/* after the intervals: access rates and ages are converted with them */
	if (!r)
		r = read_list(j, "schemes", c, L_CONTEXT_SCHEMES, read_scheme, where, e);
	return r;
}

static int read_kdamond(json_object *j, struct dobj *k, const char *where, struct derr *e)
{
	static const char *const keys[] = { "state", "pid", "refresh_ms", "contexts", NULL };
	json_object *v;
	char w[WHERE];
	int r;

	r = check_keys(j, keys, "kdamond", where, e);
	/* state and pid describe a kdamond that ran: results, not configuration */
	if (!r)
		r = member(j, "state", json_type_string, "\"on\" or \"off\"", where, e, &v);
	if (!r && get(j, "pid", &v) && !json_object_is_type(v, json_type_string) &&
	    !json_object_is_type(v, json_type_int)) {
		at_key(w, where, "pid");
		r = want_type(v, json_type_int, "a process id", w, e);
	}
	if (!r)
		r = num_attr(j, "refresh_ms", VK_TIME_MS, k, DAMONCTL_KDAMOND_REFRESH_MS, where,
			     e);
	if (!r)
		r = read_list(j, "contexts", k, L_KDAMOND_CONTEXTS, read_context, where, e);
	return r;
}

int dctl_damo_from_json(json_object *root, struct dobj **tree, char *why, size_t size)
{
	static const char *const keys[] = { "kdamonds", NULL };
	struct derr e = { why, size };
	json_object *wrap = NULL;
	struct dobj *t;
	int r;

	/* damo's report of the running kdamonds: their list alone, as damo start takes it */
	if (json_object_is_type(root, json_type_array)) {
		wrap = json_object_new_object();
		if (!wrap)
			return -ENOMEM;
		json_object_object_add(wrap, "kdamonds", json_object_get(root));
		root = wrap;
	}
	r = check_keys(root, keys, "document (it holds only \"kdamonds\")", "", &e);
	if (r) {
		json_object_put(wrap);
		return r;
	}
	t = dobj_new(K_TREE);
	if (!t) {
		json_object_put(wrap);
		return -ENOMEM;
	}
	r = read_list(root, "kdamonds", t, L_TREE_KDAMONDS, read_kdamond, "", &e);
	json_object_put(wrap);
	if (r) {
		dobj_free(t);
		return r;
	}
	*tree = t;
	return 0;
}

/* ---- telling damo's documents from damonc's ---- */

/* +1 when @o has a key only damo uses, -1 for one only damonc uses, else 0. */
static int vote(json_object *o, const char *const *damo, const char *const *damonc)
{
	unsigned int i;

	if (!json_object_is_type(o, json_type_object))
		return 0;
	for (i = 0; damo[i]; i++)
		if (json_object_object_get_ex(o, damo[i], NULL))
			return 1;
	for (i = 0; damonc[i]; i++)
		if (json_object_object_get_ex(o, damonc[i], NULL))
			return -1;
	return 0;
}

static int vote_items(json_object *o, const char *key,
		      int (*fn)(json_object *item))
{
	json_object *arr;
	size_t i;
	int v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &arr) || !json_object_is_type(arr, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(arr); i++)
		if ((v = fn(json_object_array_get_idx(arr, i))))
			return v;
	return 0;
}

static int vote_scheme(json_object *s)
{
	static const char *const damo_ap[] = { "sz_bytes", NULL }, *const damonc_ap[] = { "sz", NULL };
	static const char *const damo_q[] = { "time_ms", "sz_bytes", NULL };
	static const char *const damonc_q[] = { "ms", "bytes", NULL };
	static const char *const damo_w[] = { "high_permil", NULL };
	static const char *const damonc_w[] = { "high", NULL };
	json_object *v;
	int r = 0;

	if (json_object_object_get_ex(s, "access_pattern", &v))
		r = vote(v, damo_ap, damonc_ap);
	if (!r && json_object_object_get_ex(s, "quotas", &v))
		r = vote(v, damo_q, damonc_q);
	if (!r && json_object_object_get_ex(s, "watermarks", &v))
		r = vote(v, damo_w, damonc_w);
	return r;
}

static int vote_target(json_object *t)
{
	static const char *const damo[] = { "pid", "obsolete", NULL };
	static const char *const damonc[] = { "pid_target", "obsolete_target", NULL };

	return vote(t, damo, damonc);
}

static int vote_context(json_object *c)
{
	static const char *const damo[] = { "ops", "intervals", "nr_regions", "probes",
					     "sample_control", "ops_attrs", NULL };
	static const char *const damonc[] = { "operations", "avail_operations",
					       "monitoring_attrs", NULL };
	int r = vote(c, damo, damonc);

	if (!r)
		r = vote_items(c, "targets", vote_target);
	if (!r)
		r = vote_items(c, "schemes", vote_scheme);
	return r;
}

static int vote_kdamond(json_object *k)
{
	return vote_items(k, "contexts", vote_context);
}

/* A list of damo's kdamonds: objects with damo's keys of a kdamond only, contexts in one */
static bool is_kdamond_list(json_object *arr)
{
	static const char *const keys[] = { "state", "pid", "refresh_ms", "contexts" };
	bool contexts = false;
	size_t i, k;

	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *item = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(item, json_type_object))
			return false;
		json_object_object_foreach(item, key, val) {
			bool known = false;

			(void)val;
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				known |= !strcmp(key, keys[k]);
			if (!known)
				return false;
			contexts |= !strcmp(key, "contexts");
		}
	}
	return contexts;
}

/*
 * Both documents have "kdamonds" at the top, and damonc's format_version is optional, so
 * the names inside decide. A document with nothing telling (no contexts) means the same in
 * both and is read as damonc's.
 */
bool dctl_json_is_damo(json_object *root)
{
	/* `damo report damon --format json` prints the list of kdamonds itself; damonc's
	 * documents are objects */
	if (json_object_is_type(root, json_type_array))
		return is_kdamond_list(root);
	if (!json_object_object_get_ex(root, "kdamonds", NULL) ||
	    json_object_object_get_ex(root, "format_version", NULL))
		return false;
	return vote_items(root, "kdamonds", vote_kdamond) > 0;
}
