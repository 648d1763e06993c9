// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model to and from damonc's JSON schema (damonctl-json(5)). The schema is the sysfs
 * tree itself: a directory is an object, a file is a key with its value (numbers as JSON
 * numbers in the ABI's units, booleans as booleans, keywords as strings), and a list of
 * numbered directories is an array. So every kernel file has exactly one JSON name, the
 * file's own, and nothing needs a mapping table. On input, numbers may also be written with
 * units ("5ms", "2MiB", "max", "5%"), as people write them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "internal.h"
#include "json_internal.h"

/* ---- output ---- */

/* The object at @path (a/b/c -> parent of c) inside @root, created as needed. */
static json_object *nested_parent(json_object *root, const char *path, const char **leaf)
{
	char comp[128];
	const char *p = path, *slash;
	json_object *cur = root;

	while ((slash = strchr(p, '/'))) {
		json_object *next;
		size_t n = (size_t)(slash - p);

		if (n >= sizeof(comp))
			return NULL;
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (!json_object_object_get_ex(cur, comp, &next)) {
			next = json_object_new_object();
			if (!next || json_object_object_add(cur, comp, next)) {
				json_object_put(next);
				return NULL;
			}
		}
		cur = next;
		p = slash + 1;
	}
	*leaf = p;
	return cur;
}

static json_object *attr_to_json(const struct dobj *o, unsigned int a)
{
	const struct attr_desc *d = dobj_attr(o, a);
	const char *s;

	switch (d->type) {
	case V_U64:
	case V_U32:
		return json_object_new_uint64(o->v[a].u);
	case V_INT:
		return json_object_new_int64(o->v[a].i);
	case V_BOOL:
		return json_object_new_boolean(o->v[a].u != 0);
	case V_LINES: {
		json_object *arr = json_object_new_array();
		char *copy, *tok, *save;

		s = o->v[a].s ? o->v[a].s : d->defs;
		copy = strdup(s);
		if (!arr || !copy) {
			json_object_put(arr);
			free(copy);
			return NULL;
		}
		for (tok = strtok_r(copy, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
			json_object_array_add(arr, json_object_new_string(tok));
		free(copy);
		return arr;
	}
	default:
		s = o->v[a].s ? o->v[a].s : d->defs;
		return json_object_new_string(s);
	}
}

json_object *dctl_obj_to_json(const struct dobj *o, unsigned int flags)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	json_object *j = json_object_new_object();
	unsigned int a, l, i;

	if (!j)
		return NULL;
	for (a = 0; a < kd->nr_attrs; a++) {
		const char *leaf;
		json_object *parent, *v;

		if (!(o->has >> a & 1))
			continue;
		if ((flags & DAMONCTL_JSON_CONFIG) && (kd->attrs[a].flags & A_RESULT))
			continue;
		parent = nested_parent(j, kd->attrs[a].file, &leaf);
		v = attr_to_json(o, a);
		if (!parent || !v || json_object_object_add(parent, leaf, v))
			goto fail;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		const char *leaf;
		json_object *parent, *arr;

		if (!(o->lists_has >> l & 1))
			continue;
		if ((flags & DAMONCTL_JSON_CONFIG) && (kd->lists[l].flags & A_RO))
			continue;
		parent = nested_parent(j, kd->lists[l].json, &leaf);
		arr = json_object_new_array();
		if (!parent || !arr || json_object_object_add(parent, leaf, arr)) {
			json_object_put(arr);
			goto fail;
		}
		for (i = 0; i < o->lists[l].nr; i++) {
			json_object *c = dctl_obj_to_json(o->lists[l].items[i], flags);

			if (!c || json_object_array_add(arr, c)) {
				json_object_put(c);
				goto fail;
			}
		}
	}
	return j;
fail:
	json_object_put(j);
	return NULL;
}

json_object *dctl_tree_to_json_object(const struct dobj *t, unsigned int flags)
{
	json_object *j = dctl_obj_to_json(t, flags), *doc;

	if (!j)
		return NULL;
	doc = json_object_new_object();
	if (!doc) {
		json_object_put(j);
		return NULL;
	}
	/* format_version first, then the tree's own keys */
	json_object_object_add(doc, "format_version",
			       json_object_new_int(DAMONCTL_JSON_FORMAT_VERSION));
	json_object_object_foreach(j, key, val) {
		json_object_object_add(doc, key, json_object_get(val));
	}
	json_object_put(j);
	return doc;
}

DAMONCTL_API char *damonctl_tree_to_json(const struct damonctl_tree *t, unsigned int flags)
{
	json_object *doc = dctl_tree_to_json_object(CDOBJ(t), flags);
	char *s;

	if (!doc) {
		errno = ENOMEM;
		return NULL;
	}
	/* paths (memcg_path, goal paths) read as written: "/a/b", not "\/a\/b" */
	s = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_NOSLASHESCAPE |
						   ((flags & DAMONCTL_JSON_PRETTY) ?
						    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
						    JSON_C_TO_STRING_PLAIN)));
	json_object_put(doc);
	if (!s)
		errno = ENOMEM;
	return s;
}

/* ---- input ---- */

struct jerr {
	char *buf;
	size_t size;
	/* a staged tree read back (staging.c): results too, and only the files and lists
	 * written out are present, as in the tree that was written */
	bool exact;
};

static int jfail(struct jerr *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int jfail(struct jerr *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (e->buf && e->size) {
		va_start(ap, fmt);
		vsnprintf(e->buf, e->size, fmt, ap);
		va_end(ap);
	}
	return err;
}

enum unit_class { UC_NUMBER, UC_TIME_US, UC_TIME_MS, UC_SIZE, UC_BP };

/* How a human-written string for a numeric file is read. */
static enum unit_class unit_of(const struct dobj *o, unsigned int a)
{
	const char *f = dobj_attr(o, a)->file;
	size_t n = strlen(f);

	if (n > 3 && !strcmp(f + n - 3, "_us"))
		return UC_TIME_US;
	if ((n > 3 && !strcmp(f + n - 3, "_ms")) || !strcmp(f, "quotas/ms"))
		return UC_TIME_MS;
	if (n > 3 && !strcmp(f + n - 3, "_bp"))
		return UC_BP;
	switch (o->kind) {
	case K_SCHEME:
		if (a == DAMONCTL_SCHEME_SZ_MIN || a == DAMONCTL_SCHEME_SZ_MAX ||
		    a == DAMONCTL_SCHEME_QUOTA_BYTES)
			return UC_SIZE;
		break;
	case K_FILTER:
		if (a == DAMONCTL_FILTER_ADDR_START || a == DAMONCTL_FILTER_ADDR_END ||
		    a == DAMONCTL_FILTER_MIN || a == DAMONCTL_FILTER_MAX)
			return UC_SIZE;
		break;
	case K_REGION:
		return UC_SIZE;
	case K_CONTEXT:
		if (a == DAMONCTL_CONTEXT_ADDR_UNIT)
			return UC_SIZE;
		break;
	case K_GOAL:
		if (a == DAMONCTL_GOAL_TARGET_VALUE || a == DAMONCTL_GOAL_CURRENT_VALUE)
			return UC_BP;	/* "5%" reads as 500; plain numbers stay as they are */
		break;
	default:
		break;
	}
	return UC_NUMBER;
}

static int parse_human(enum unit_class uc, const char *s, uint64_t *v)
{
	uint64_t us;
	int r;

	switch (uc) {
	case UC_TIME_US:
		return damonctl_parse_time_us(s, v);
	case UC_TIME_MS:
		r = damonctl_parse_time_us(s, &us);
		if (r)
			return r;
		if (us == DAMONCTL_MAX) {
			*v = us;
			return 0;
		}
		if (us % 1000)
			return -EINVAL;
		*v = us / 1000;
		return 0;
	case UC_SIZE:
		return damonctl_parse_size(s, v);
	case UC_BP:
		return damonctl_parse_bp(s, v);
	default:
		return damonctl_parse_u64(s, v);
	}
}

/* A newline-separated list (avail_operations) from its array of strings. */
static int lines_from_json(struct dobj *o, unsigned int a, json_object *arr)
{
	size_t i, n = json_object_array_length(arr), len = 1;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(json_object_get_string(json_object_array_get_idx(arr, i))) + 1;
	s = calloc(1, len);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		strcat(s, json_object_get_string(json_object_array_get_idx(arr, i)));
		if (i + 1 < n)
			strcat(s, "\n");
	}
	free(o->v[a].s);
	o->v[a].s = s;
	return 0;
}

static int attr_from_json(struct dobj *o, unsigned int a, json_object *v, const char *where,
			  struct jerr *e)
{
	const struct attr_desc *d = dobj_attr(o, a);
	enum json_type t = json_object_get_type(v);
	uint64_t u;
	int r;

	switch (d->type) {
	case V_BOOL:
		if (t == json_type_boolean) {
			o->v[a].u = json_object_get_boolean(v);
			return 0;
		}
		if (t == json_type_string && !dobj_parse(o, a, json_object_get_string(v)))
			return 0;
		if (t == json_type_int && (json_object_get_int64(v) == 0 ||
					   json_object_get_int64(v) == 1)) {
			o->v[a].u = (uint64_t)json_object_get_int64(v);
			return 0;
		}
		return jfail(e, -EINVAL, "%s: expected true or false", where);
	case V_KW:
	case V_STR:
		if (t != json_type_string)
			return jfail(e, -EINVAL, "%s: expected a string", where);
		r = dobj_set_str(o, a, json_object_get_string(v));
		if (r == -EINVAL)
			return jfail(e, r, "%s: unknown keyword '%s'", where,
				     json_object_get_string(v));
		return r;
	case V_LINES:
		if (e->exact && t == json_type_array)
			return lines_from_json(o, a, v);
		return 0;	/* read-only lists (avail_operations) are output only */
	case V_INT:
		if (t == json_type_int) {
			int64_t i = json_object_get_int64(v);

			/* the number as written (int64 clamps what is above INT64_MAX) */
			if (i < INT32_MIN || i > INT32_MAX)
				return jfail(e, -ERANGE, "%s: %s is out of range (%d to %d)", where,
					     json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
					     INT32_MIN, INT32_MAX);
			o->v[a].i = i;
			return 0;
		}
		if (t == json_type_string) {
			int64_t i;

			/* damonc's one grammar, not the kernel's base 0 ("010" is no 8) */
			r = dctl_parse_integer(json_object_get_string(v), &i);
			if (!r && (i < INT32_MIN || i > INT32_MAX))
				r = -ERANGE;
			if (r == -ERANGE)
				return jfail(e, r, "%s: %s is out of range (%d to %d)", where,
					     json_object_get_string(v), INT32_MIN, INT32_MAX);
			if (!r) {
				o->v[a].i = i;
				return 0;
			}
		}
		if (t == json_type_string)
			return jfail(e, -EINVAL, "%s: expected an integer (decimal or 0x, never "
				     "octal), not '%s'", where, json_object_get_string(v));
		return jfail(e, -EINVAL, "%s: expected an integer", where);
	case V_U64:
	case V_U32:
		if (t == json_type_int) {
			/* json-c keeps integers above INT64_MAX as unsigned */
			if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) <= INT64_MAX)
				return jfail(e, -ERANGE, "%s: negative values are not allowed",
					     where);
			u = json_object_get_uint64(v);
		} else if (t == json_type_string) {
			r = parse_human(unit_of(o, a), json_object_get_string(v), &u);
			if (r)
				return jfail(e, r, "%s: cannot read '%s'", where,
					     json_object_get_string(v));
		} else {
			return jfail(e, -EINVAL, "%s: expected a number", where);
		}
		if (d->type == V_U32 && u > UINT32_MAX && u != DAMONCTL_MAX)
			return jfail(e, -ERANGE, "%s: %llu is out of range", where,
				     (unsigned long long)u);
		if (d->type == V_U32 && u == DAMONCTL_MAX)
			u = UINT32_MAX;
		o->v[a].u = u;
		return 0;
	}
	return -EINVAL;
}

static int obj_from_json(struct dobj *o, json_object *j, const char *prefix, const char *where,
			 struct jerr *e);

static int list_from_json(struct dobj *o, unsigned int l, json_object *arr, const char *where,
			  struct jerr *e)
{
	size_t i, n;

	if (!json_object_is_type(arr, json_type_array))
		return jfail(e, -EINVAL, "%s: expected an array", where);
	dobj_clear_list(o, l);
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		json_object *item = json_object_array_get_idx(arr, i);
		char w[512];
		struct dobj *c;
		int r;

		dctl_fmt(w, sizeof(w), "%s[%zu]", where, i);
		if (!json_object_is_type(item, json_type_object))
			return jfail(e, -EINVAL, "%s: expected an object", w);
		c = dobj_add(o, l);
		if (!c)
			return -ENOMEM;
		if (e->exact)
			c->has = c->lists_has = 0;
		r = obj_from_json(c, item, "", w, e);
		if (r)
			return r;
	}
	return 0;
}

/* Walk the JSON object @j found at @prefix ("" or "quotas/") inside object @o. */
static int obj_from_json(struct dobj *o, json_object *j, const char *prefix, const char *where,
			 struct jerr *e)
{
	const struct kind_desc *kd = &dctl_kinds[o->kind];

	json_object_object_foreach(j, key, val) {
		char path[256], w[512];
		unsigned int a, l;
		bool found = false, is_dir = false;
		int r;

		if (!dctl_fmt(path, sizeof(path), "%s%s", prefix, key))
			return jfail(e, -EINVAL, "%s%s: key too long", where, key);
		dctl_fmt(w, sizeof(w), "%s%s%s", where, *where ? "." : "", key);
		if (o->kind == K_TREE && !strcmp(key, "format_version"))
			continue;
		for (a = 0; a < kd->nr_attrs; a++) {
			if (!strcmp(kd->attrs[a].file, path)) {
				if ((kd->attrs[a].flags & A_RO) && !e->exact)
					found = true;	/* results are output only: ignore */
				else if ((r = attr_from_json(o, a, val, w, e)))
					return r;
				o->has |= UINT64_C(1) << a;
				found = true;
				break;
			}
		}
		for (l = 0; !found && l < kd->nr_lists; l++) {
			if (!strcmp(kd->lists[l].json, path)) {
				if (!(kd->lists[l].flags & A_RO) &&
				    (r = list_from_json(o, l, val, w, e)))
					return r;
				o->lists_has |= 1u << l;
				found = true;
			}
		}
		if (found)
			continue;
		/* an intermediate directory? some attribute or list must live below it */
		{
			size_t n = strlen(path);

			for (a = 0; a < kd->nr_attrs && !is_dir; a++)
				is_dir = !strncmp(kd->attrs[a].file, path, n) &&
					 kd->attrs[a].file[n] == '/';
			for (l = 0; l < kd->nr_lists && !is_dir; l++)
				is_dir = !strncmp(kd->lists[l].json, path, n) &&
					 kd->lists[l].json[n] == '/';
		}
		if (!is_dir)
			return jfail(e, -EINVAL, "%s: unknown key for a %s", w, kd->name);
		if (!json_object_is_type(val, json_type_object))
			return jfail(e, -EINVAL, "%s: expected an object", w);
		dctl_fmt(path, sizeof(path), "%s%s/", prefix, key);
		r = obj_from_json(o, val, path, w, e);
		if (r)
			return r;
	}
	return 0;
}

/* The tree of JSON object @root (exact: only what it holds present, see struct jerr). */
static int tree_from_object(json_object *root, struct jerr *e, struct dobj **out)
{
	struct dobj *t = dobj_new(K_TREE);
	int r;

	if (!t)
		return -ENOMEM;
	if (e->exact)
		t->has = t->lists_has = 0;
	r = obj_from_json(t, root, "", "", e);
	if (r) {
		dobj_free(t);
		return r;
	}
	*out = t;
	return 0;
}

int dctl_tree_from_root(json_object *root, struct damonctl_tree **out, char *why, size_t size)
{
	struct jerr e = { why, size, false };
	json_object *fv;
	struct dobj *t;
	int r;

	/* damo's kdamonds: {"kdamonds": [...]} (damo args damon), or the list itself (damo
	 * report damon) */
	if (!json_object_is_type(root, json_type_object) &&
	    !(json_object_is_type(root, json_type_array) && dctl_json_is_damo(root)))
		return jfail(&e, -EINVAL, "expected a JSON object at the top, {\"kdamonds\": "
			     "[...]} (damonc's schema) or damo's kdamonds JSON; found %s",
			     dctl_json_kind(root));
	if (json_object_is_type(root, json_type_array) ||
	    (!json_object_object_get_ex(root, "format_version", &fv) && dctl_json_is_damo(root))) {
		r = dctl_damo_from_json(root, &t, why, size);
		if (!r)
			*out = (struct damonctl_tree *)t;
		return r;
	}
	if (fv && !json_object_is_type(fv, json_type_int))
		return jfail(&e, -EINVAL, "format_version: expected a number such as %d, "
			     "found %s %s", DAMONCTL_JSON_FORMAT_VERSION, dctl_json_kind(fv),
			     json_object_to_json_string_ext(fv, JSON_C_TO_STRING_PLAIN));
	if (fv && (json_object_get_int64(fv) > DAMONCTL_JSON_FORMAT_VERSION ||
		   json_object_get_int64(fv) < 1))
		return jfail(&e, -EINVAL, "format_version %s is not supported (this damonc "
			     "reads up to %d)", json_object_to_json_string_ext(fv, JSON_C_TO_STRING_PLAIN),
			     DAMONCTL_JSON_FORMAT_VERSION);
	r = tree_from_object(root, &e, &t);
	if (!r)
		*out = (struct damonctl_tree *)t;
	return r;
}

DAMONCTL_API int damonctl_tree_from_json(const char *doc, struct damonctl_tree **out, char *why,
					 size_t size)
{
	json_object *root;
	int r;

	if (why && size)
		why[0] = '\0';
	root = dctl_json_parse(doc, strlen(doc), why, size);
	if (!root)
		return -EINVAL;
	r = dctl_tree_from_root(root, out, why, size);
	json_object_put(root);
	return r;
}

int dctl_tree_from_json_exact(json_object *root, struct dobj **out)
{
	struct jerr e = { NULL, 0, true };

	if (!json_object_is_type(root, json_type_object))
		return -EINVAL;
	return tree_from_object(root, &e, out);
}
