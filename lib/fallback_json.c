// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plan of user-space fallbacks as JSON (damonctl_fallback_plan(3)): the array damonc
 * stores with each kdamond it started (run/damonc/started.json), read back by every later
 * process, so its keys and their order stay as damonc 0.2 wrote them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

static const char *const pattern_keys[DAMONCTL_PAT_NR] = {
	"sz_min", "sz_max", "nr_accesses_min", "nr_accesses_max", "age_min", "age_max",
};

static json_object *entry_to_json(const struct damonctl_fallback *fb)
{
	json_object *o = json_object_new_object();
	bool collapse = fb->kind == DAMONCTL_FALLBACK_COLLAPSE;
	unsigned int j;

	json_object_object_add(o, "kind", json_object_new_string(collapse ? "collapse" :
								 "hugepage_mem_bp"));
	json_object_object_add(o, "scheme", json_object_new_int((int)fb->scheme));
	if (!collapse) {
		json_object_object_add(o, "goal", json_object_new_int((int)fb->goal));
	} else {
		json_object *hot = json_object_new_object();

		json_object_object_add(o, "target", json_object_new_int((int)fb->target));
		json_object_object_add(o, "observer", json_object_new_int((int)fb->observer));
		json_object_object_add(o, "template", json_object_new_int((int)fb->tmpl));
		json_object_object_add(o, "collapsed_by", json_object_new_string(
			fb->by_kernel ? "kernel" : "agent"));
		for (j = 0; j < DAMONCTL_PAT_NR; j++)
			json_object_object_add(hot, pattern_keys[j],
					       json_object_new_uint64(fb->pattern[j]));
		json_object_object_add(o, "hot", hot);
	}
	json_object_object_add(o, "target_bp", json_object_new_uint64(fb->target_bp));
	json_object_object_add(o, "scope", json_object_new_string(fb->scope_pid ? "pid" :
								  "system"));
	if (collapse && !fb->by_kernel)
		json_object_object_add(o, "quota_ms", json_object_new_uint64(fb->quota_ms));
	if (collapse)
		json_object_object_add(o, "quota_bytes", json_object_new_uint64(fb->quota_bytes));
	json_object_object_add(o, "reset_ms", json_object_new_uint64(fb->reset_ms));
	return o;
}

DAMONCTL_API char *damonctl_fallbacks_to_json(const struct damonctl_fallbacks *fbs)
{
	json_object *arr = json_object_new_array();
	struct damonctl_fallback fb = { .sz = sizeof(fb) };
	unsigned int i;
	char *doc;

	if (!arr) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < damonctl_fallbacks_count(fbs); i++) {
		damonctl_fallbacks_get(fbs, i, &fb);
		json_object_array_add(arr, entry_to_json(&fb));
	}
	doc = strdup(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
	json_object_put(arr);
	if (!doc)
		errno = ENOMEM;
	return doc;
}

static uint64_t get_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static bool is_str(json_object *o, const char *key, const char *want)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) &&
	       !strcmp(json_object_get_string(v), want);
}

/* Entry @o; keys missing take the defaults damonc 0.2 read them with. */
static int entry_from_json(json_object *o, struct damonctl_fallback *fb)
{
	json_object *v, *hot;
	unsigned int j;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "kind", &v))
		return -EBADMSG;
	memset(fb, 0, sizeof(*fb));
	fb->sz = sizeof(*fb);
	fb->kind = is_str(o, "kind", "collapse") ? DAMONCTL_FALLBACK_COLLAPSE :
		   DAMONCTL_FALLBACK_HUGEPAGE_GOAL;
	fb->scheme = (unsigned int)get_u64(o, "scheme");
	fb->goal = (unsigned int)get_u64(o, "goal");
	fb->target = (unsigned int)get_u64(o, "target");
	fb->observer = json_object_object_get_ex(o, "observer", &v) ?
		       (unsigned int)json_object_get_uint64(v) : fb->scheme;
	fb->tmpl = json_object_object_get_ex(o, "template", &v) ?
		   (unsigned int)json_object_get_uint64(v) : fb->scheme;
	fb->by_kernel = is_str(o, "collapsed_by", "kernel");
	if (json_object_object_get_ex(o, "hot", &hot))
		for (j = 0; j < DAMONCTL_PAT_NR; j++)
			fb->pattern[j] = get_u64(hot, pattern_keys[j]);
	fb->target_bp = get_u64(o, "target_bp");
	fb->scope_pid = is_str(o, "scope", "pid");
	fb->quota_ms = get_u64(o, "quota_ms");
	fb->quota_bytes = get_u64(o, "quota_bytes");
	fb->reset_ms = get_u64(o, "reset_ms");
	return 0;
}

DAMONCTL_API int damonctl_fallbacks_from_json(const char *doc, struct damonctl_fallbacks *fbs,
					      char *why, size_t size)
{
	struct damonctl_fallbacks *work = NULL;
	struct damonctl_fallback fb;
	json_object *arr;
	size_t i, n;
	int r;

	if (!doc || !fbs)
		return -EINVAL;
	arr = dctl_json_parse(doc, strlen(doc), why, size);
	if (!arr)
		return -EBADMSG;
	r = json_object_is_type(arr, json_type_array) ? damonctl_fallbacks_new(&work) : -EBADMSG;
	n = r ? 0 : json_object_array_length(arr);
	/* entries past the most a plan holds are left out, as damonc 0.2 did */
	for (i = 0; !r && i < n; i++) {
		r = entry_from_json(json_object_array_get_idx(arr, i), &fb);
		if (r && why && size)
			snprintf(why, size, "fallback %zu: not an object with a \"kind\"", i);
		if (!r && damonctl_fallbacks_add(work, &fb) == -ENOSPC)
			break;
	}
	if (r == -EBADMSG && !work && why && size)
		snprintf(why, size, "the fallbacks are %s, not an array", dctl_json_kind(arr));
	if (!r) {
		/* the caller's plan replaced only now: untouched on failure */
		while (damonctl_fallbacks_count(fbs))
			damonctl_fallbacks_remove(fbs, 0);
		fb.sz = sizeof(fb);
		for (i = 0; i < damonctl_fallbacks_count(work); i++)
			if (!damonctl_fallbacks_get(work, (unsigned int)i, &fb))
				damonctl_fallbacks_add(fbs, &fb);
	}
	damonctl_fallbacks_free(work);
	json_object_put(arr);
	return r;
}
