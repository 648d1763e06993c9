// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The operations-layer DAMOS filters a snapshot was taken through (struct
 * damonctl_rec_snapshot's ops_filters): a JSON array of filters in damonctl-tree's shape,
 * made from a model scheme (a capture's snapshot filters) or from damo's scheme_filters,
 * written back as damo's scheme_filters, and shown as damo's <filters passed type> does
 * (DamosFilter.to_str of damonitor/damo's src/_damon.py: "allow anon", "reject none memcg
 * /x", "allow hugepage_size [2.000 MiB, 2.000 MiB]", joined by ", ").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"
#include "ops_filters.h"

/* The core layer's types; every other one is the operations set's (sysfs-schemes.c puts
 * them in ops_filters). */
bool dctl_filter_type_is_core(const char *type)
{
	return !strcmp(type, "addr") || !strcmp(type, "target");
}

static bool is_ops_filter(json_object *f)
{
	json_object *t;

	return json_object_is_type(f, json_type_object) &&
	       json_object_object_get_ex(f, "type", &t) && json_object_is_type(t, json_type_string) &&
	       !dctl_filter_type_is_core(json_object_get_string(t));
}

/* The document as an array whose elements are filter objects with a type; NULL if not. */
static json_object *parse_array(const char *json)
{
	json_object *a = json ? json_tokener_parse(json) : NULL;
	size_t i;

	if (!a)
		return NULL;
	if (!json_object_is_type(a, json_type_array))
		goto bad;
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *f = json_object_array_get_idx(a, i), *t;

		if (!json_object_is_type(f, json_type_object) ||
		    !json_object_object_get_ex(f, "type", &t) ||
		    !json_object_is_type(t, json_type_string))
			goto bad;
	}
	return a;
bad:
	json_object_put(a);
	return NULL;
}

int dctl_ops_filters_check(const char *json)
{
	json_object *a = parse_array(json);
	int r;

	if (!a)
		return -EINVAL;
	r = json_object_array_length(a) ? 0 : 1;
	json_object_put(a);
	return r;
}

static char *to_text(json_object *a)
{
	const char *s = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *dup = s ? strdup(s) : NULL;

	if (!dup)
		errno = ENOMEM;
	return dup;
}

/* A filter object of damonctl-tree's shape: the files its type uses. */
static json_object *filter_object(const char *type, bool matching, bool allow,
				  const char *memcg_path, bool has_range, uint64_t min,
				  uint64_t max)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "matching", json_object_new_boolean(matching));
	json_object_object_add(o, "allow", json_object_new_boolean(allow));
	if (!strcmp(type, "memcg"))
		json_object_object_add(o, "memcg_path",
				       json_object_new_string(memcg_path ? memcg_path : ""));
	if (!strcmp(type, "hugepage_size") && has_range) {
		json_object_object_add(o, "min", json_object_new_uint64(min));
		json_object_object_add(o, "max", json_object_new_uint64(max));
	}
	return o;
}

char *dctl_ops_filters_of_scheme(const struct damonctl_scheme *s)
{
	static const enum damonctl_filter_dir dirs[] = { DAMONCTL_FILTERS_OPS,
							 DAMONCTL_FILTERS_LEGACY };
	json_object *a = json_object_new_array();
	unsigned int d, i;
	char *text = NULL;

	if (!a) {
		errno = ENOMEM;
		return NULL;
	}
	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		for (i = 0; i < damonctl_scheme_nr_filters(s, dirs[d]); i++) {
			const struct damonctl_filter *f = damonctl_scheme_filter(s, dirs[d], i);
			const char *type = damonctl_filter_get_str(f, DAMONCTL_FILTER_TYPE);
			json_object *o;

			if (dctl_filter_type_is_core(type))
				continue;
			o = filter_object(type, damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING),
					  damonctl_filter_get(f, DAMONCTL_FILTER_ALLOW),
					  damonctl_filter_get_str(f, DAMONCTL_FILTER_MEMCG_PATH),
					  true, damonctl_filter_get(f, DAMONCTL_FILTER_MIN),
					  damonctl_filter_get(f, DAMONCTL_FILTER_MAX));
			if (!o || json_object_array_add(a, o)) {
				json_object_put(o);
				errno = ENOMEM;
				goto out;
			}
		}
	}
	if (!json_object_array_length(a)) {
		errno = 0;	/* none: NULL, and no error */
		goto out;
	}
	text = to_text(a);
out:
	json_object_put(a);
	return text;
}

/* ---- damo's DamosFilter ---- */

/* damo's text_to_bool(): a bool, or y/yes/true, n/no/false in any case. */
static int damo_bool(json_object *v, bool *out)
{
	const char *s;

	if (!v || json_object_is_type(v, json_type_null))
		return -ENOENT;
	if (json_object_is_type(v, json_type_boolean)) {
		*out = json_object_get_boolean(v);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	s = json_object_get_string(v);
	if (!strcasecmp(s, "y") || !strcasecmp(s, "yes") || !strcasecmp(s, "true"))
		*out = true;
	else if (!strcasecmp(s, "n") || !strcasecmp(s, "no") || !strcasecmp(s, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* damo's text_to_bytes(): a number, or text as damo writes sizes (thousands separators, a
 * unit of damo's, "min", "max"), read by the library's one size parser in damo's mode. */
static int damo_bytes(json_object *v, uint64_t *out)
{
	double d;
	int r;

	if (!v)
		return -ENOENT;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return -ERANGE;
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double)) {
		d = json_object_get_double(v);
		if (d < 0)
			return -ERANGE;
		*out = d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	r = dctl_parse_size(json_object_get_string(v), DCTL_U_DAMO, out);
	if (r == -ERANGE) {
		*out = UINT64_MAX;	/* damo's min(ulong_max, ...) */
		r = 0;
	}
	return r;
}

char *dctl_ops_filters_from_damo(json_object *scheme_filters, int *err)
{
	json_object *a;
	size_t i;
	char *text = NULL;

	*err = 0;
	if (!scheme_filters || json_object_is_type(scheme_filters, json_type_null))
		return NULL;
	if (!json_object_is_type(scheme_filters, json_type_array)) {
		*err = -EBADMSG;
		return NULL;
	}
	a = json_object_new_array();
	if (!a) {
		*err = -ENOMEM;
		return NULL;
	}
	for (i = 0; i < json_object_array_length(scheme_filters); i++) {
		json_object *kv = json_object_array_get_idx(scheme_filters, i), *t = NULL, *v;
		json_object *hs = NULL, *o;
		bool matching = false, allow = false, range = false;
		uint64_t min = 0, max = 0;
		const char *type, *memcg = "";

		if (!json_object_is_type(kv, json_type_object) ||
		    !json_object_object_get_ex(kv, "filter_type", &t) ||
		    !json_object_is_type(t, json_type_string))
			goto bad;
		type = json_object_get_string(t);
		if (dctl_filter_type_is_core(type))
			continue;	/* the core layer's: not what sz_filter_passed tells */
		if (!json_object_object_get_ex(kv, "matching", &v) || damo_bool(v, &matching))
			goto bad;
		/* allow was filter_pass before damo renamed it; absent: reject (damo's default) */
		v = NULL;
		if (!json_object_object_get_ex(kv, "allow", &v))
			json_object_object_get_ex(kv, "filter_pass", &v);
		if (v && damo_bool(v, &allow) == -EINVAL)
			goto bad;
		if (json_object_object_get_ex(kv, "memcg_path", &v) &&
		    json_object_is_type(v, json_type_string))
			memcg = json_object_get_string(v);
		if (json_object_object_get_ex(kv, "hugepage_size", &hs) &&
		    !json_object_is_type(hs, json_type_null)) {
			if (!json_object_is_type(hs, json_type_array) ||
			    json_object_array_length(hs) != 2 ||
			    damo_bytes(json_object_array_get_idx(hs, 0), &min) ||
			    damo_bytes(json_object_array_get_idx(hs, 1), &max))
				goto bad;
			range = true;
		}
		o = filter_object(type, matching, allow, memcg, range, min, max);
		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			*err = -ENOMEM;
			goto out;
		}
	}
	if (json_object_array_length(a)) {
		text = to_text(a);
		if (!text)
			*err = -ENOMEM;
	}
	goto out;
bad:
	*err = -EBADMSG;
out:
	json_object_put(a);
	return text;
}

/* A string as JSON text, for the writer of damo's document. */
static int put_json_string(char *buf, size_t size, const char *s)
{
	json_object *o = json_object_new_string(s);
	int n;

	if (!o)
		return -ENOMEM;
	n = snprintf(buf, size, "%s", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return n;
}

struct outbuf {
	char *buf;
	size_t size, len;	/* len: what the text needs, as snprintf */
};

static void __attribute__((format(printf, 2, 3))) out_printf(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static bool get_bool(json_object *f, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(f, key, &v) && json_object_get_boolean(v);
}

static bool get_u64(json_object *f, const char *key, uint64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(f, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static const char *get_str(json_object *f, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(f, key, &v) || !json_object_is_type(v, json_type_string))
		return "";
	return json_object_get_string(v);
}

int dctl_ops_filters_to_damo(const char *json, char *buf, size_t size)
{
	json_object *a = json ? parse_array(json) : NULL;
	struct outbuf o = { buf, size, 0 };
	size_t i, k = 0;

	if (json && !a)
		return -EINVAL;
	out_printf(&o, "[");
	for (i = 0; a && i < json_object_array_length(a); i++) {
		json_object *f = json_object_array_get_idx(a, i);
		const char *type = get_str(f, "type");
		char q[4200];
		uint64_t min, max;

		if (!is_ops_filter(f))
			continue;
		/* damo's DamosFilter.to_kvpairs(raw=True), keys in its order */
		if (put_json_string(q, sizeof(q), type) < 0)
			goto nomem;
		out_printf(&o, "%s{\"filter_type\": %s, \"matching\": %s, \"allow\": %s, ",
			   k++ ? ", " : "", q, get_bool(f, "matching") ? "true" : "false",
			   get_bool(f, "allow") ? "true" : "false");
		if (!strcmp(type, "memcg")) {
			if (put_json_string(q, sizeof(q), get_str(f, "memcg_path")) < 0)
				goto nomem;
			out_printf(&o, "\"memcg_path\": %s, ", q);
		} else {
			out_printf(&o, "\"memcg_path\": null, ");
		}
		out_printf(&o, "\"address_range\": null, \"damon_target_idx\": null, ");
		if (!strcmp(type, "hugepage_size") && get_u64(f, "min", &min) &&
		    get_u64(f, "max", &max))
			out_printf(&o, "\"hugepage_size\": [\"%" PRIu64 "\", \"%" PRIu64 "\"]}",
				   min, max);
		else
			out_printf(&o, "\"hugepage_size\": null}");
	}
	out_printf(&o, "]");
	json_object_put(a);
	return o.len > INT32_MAX ? -EOVERFLOW : (int)o.len;
nomem:
	json_object_put(a);
	return -ENOMEM;
}

/* damo's format_sz() (src/_damo_fmt_str.py) without raw numbers: "max" for ULONG_MAX, three
 * decimals of the largest binary unit the size is above, else bytes. */
static void damo_size(struct outbuf *o, uint64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = (double)v;
	int u;

	if (d == (double)UINT64_MAX) {
		out_printf(o, "max");
		return;
	}
	for (u = 5; u >= 0; u--) {
		double scale = (double)(UINT64_C(1) << (10 * (u + 1)));

		if (d > scale) {
			out_printf(o, "%.3f %s", d / scale, units[u]);
			return;
		}
	}
	out_printf(o, "%" PRIu64 " B", v);
}

DAMONCTL_API int damonctl_access_filters_text(const char *ops_filters, char *buf, size_t size)
{
	json_object *a = ops_filters ? parse_array(ops_filters) : NULL;
	struct outbuf o = { buf, size, 0 };
	size_t i, k = 0;

	if (size && buf)
		buf[0] = '\0';
	if (ops_filters && !a)
		return -EINVAL;
	for (i = 0; a && i < json_object_array_length(a); i++) {
		json_object *f = json_object_array_get_idx(a, i);
		const char *type = get_str(f, "type");
		uint64_t min, max;

		if (!is_ops_filter(f))
			continue;
		out_printf(&o, "%s%s%s %s", k++ ? ", " : "", get_bool(f, "allow") ? "allow" : "reject",
			   get_bool(f, "matching") ? "" : " none", type);
		if (!strcmp(type, "memcg")) {
			out_printf(&o, " %s", get_str(f, "memcg_path"));
		} else if (!strcmp(type, "hugepage_size") && get_u64(f, "min", &min) &&
			   get_u64(f, "max", &max)) {
			out_printf(&o, " [");
			damo_size(&o, min);
			out_printf(&o, ", ");
			damo_size(&o, max);
			out_printf(&o, "]");
		}
	}
	if (!k)
		out_printf(&o, "n/a");
	json_object_put(a);
	return o.len > INT32_MAX ? -EOVERFLOW : (int)o.len;
}

DAMONCTL_API bool damonctl_access_filters_installed(const char *ops_filters)
{
	json_object *a = ops_filters ? parse_array(ops_filters) : NULL;
	bool any = false;

	for (size_t i = 0; a && i < json_object_array_length(a) && !any; i++)
		any = is_ops_filter(json_object_array_get_idx(a, i));
	json_object_put(a);
	return any;
}
