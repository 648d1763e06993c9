// SPDX-License-Identifier: GPL-2.0-or-later
/* damonc's plans of user-space fallbacks, by value, on libdamonctl's (see fallback.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fallback.h"

struct damonctl_fallbacks *fallback_to_lib(const struct fallbacks *fbs)
{
	struct damonctl_fallbacks *l;
	unsigned int i;

	if (damonctl_fallbacks_new(&l))
		return NULL;
	for (i = 0; i < fbs->nr; i++) {
		struct damonctl_fallback fb = fbs->fb[i];

		fb.sz = sizeof(fb);
		if (damonctl_fallbacks_add(l, &fb)) {
			damonctl_fallbacks_free(l);
			return NULL;
		}
	}
	return l;
}

void fallback_from_lib(const struct damonctl_fallbacks *l, struct fallbacks *fbs)
{
	unsigned int i;

	memset(fbs, 0, sizeof(*fbs));
	for (i = 0; i < damonctl_fallbacks_count(l) && i < MAX_FALLBACKS; i++) {
		fbs->fb[i].sz = sizeof(fbs->fb[i]);
		if (!damonctl_fallbacks_get(l, i, &fbs->fb[i]))
			fbs->nr = i + 1;
	}
}

int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size)
{
	struct damonctl_fallbacks *l = fallback_to_lib(out);
	int r;

	if (!l) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = damonctl_fallback_plan(ctx, k, f, scope_pid, l, why, size);
	if (!r)
		fallback_from_lib(l, out);
	damonctl_fallbacks_free(l);
	return r;
}

int fallback_retarget(struct fallbacks *fbs, struct damonctl_context *c,
		      const struct damonctl_features *f, const unsigned int *old_index,
		      unsigned int nr_live, unsigned int child, unsigned int nowhere)
{
	struct damonctl_fallbacks *l = fallback_to_lib(fbs);
	int r;

	if (!l)
		return -ENOMEM;
	r = damonctl_fallbacks_retarget(l, c, f, old_index, nr_live, child, nowhere);
	if (!r)
		fallback_from_lib(l, fbs);
	damonctl_fallbacks_free(l);
	return r;
}

void fallback_refresh(struct fallbacks *fbs, const struct damonctl_kdamond *k)
{
	struct damonctl_fallbacks *l = fallback_to_lib(fbs);

	if (!l)
		return;
	damonctl_fallbacks_refresh(l, k);
	fallback_from_lib(l, fbs);
	damonctl_fallbacks_free(l);
}

bool fallback_agents_scheme(const struct fallbacks *fbs, unsigned int si)
{
	struct damonctl_fallbacks *l = fallback_to_lib(fbs);
	bool r = damonctl_fallbacks_agents_scheme(l, si);

	damonctl_fallbacks_free(l);
	return r;
}

int fallback_check_one_scheme(const struct fallbacks *fbs, char *why, size_t size)
{
	struct damonctl_fallbacks *l = fallback_to_lib(fbs);
	int r;

	if (!l) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r = damonctl_fallbacks_check_one_scheme(l, why, size);
	damonctl_fallbacks_free(l);
	return r;
}

void fallback_describe(const struct fallbacks *fbs, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < fbs->nr && n < size; i++) {
		const struct damonctl_fallback *fb = &fbs->fb[i];
		int w;

		if (fb->kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL)
			w = snprintf(buf + n, size - n, "%sscheme %u: hugepage_mem_bp goal %llu bp "
				     "fed by the agent (%s)", n ? "; " : "", fb->scheme,
				     (unsigned long long)fb->target_bp,
				     fb->scope_pid ? "target processes" : "system-wide");
		else if (fb->by_kernel)
			w = snprintf(buf + n, size - n, "%sscheme %u: collapse of target %u by the "
				     "kernel, paced by the agent in huge pages up to its "
				     "hugepage_mem_bp goal", n ? "; " : "", fb->scheme, fb->target);
		else
			w = snprintf(buf + n, size - n, "%sscheme %u: collapse of target %u by the "
				     "agent (process_madvise)%s", n ? "; " : "", fb->scheme,
				     fb->target, fb->target_bp ? " up to its hugepage_mem_bp goal" :
				     "");
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

json_object *fallback_to_json(const struct fallbacks *fbs)
{
	struct damonctl_fallbacks *l = fallback_to_lib(fbs);
	char *doc = l ? damonctl_fallbacks_to_json(l) : NULL;
	json_object *arr = doc ? json_tokener_parse(doc) : NULL;

	free(doc);
	damonctl_fallbacks_free(l);
	return arr ? arr : json_object_new_array();
}

int fallback_from_json(json_object *arr, struct fallbacks *fbs)
{
	struct damonctl_fallbacks *l;
	int r;

	memset(fbs, 0, sizeof(*fbs));
	if (!arr)
		return 0;
	r = damonctl_fallbacks_new(&l);
	if (r)
		return r;
	r = damonctl_fallbacks_from_json(json_object_to_json_string_ext(arr,
					 JSON_C_TO_STRING_PLAIN), l, NULL, 0);
	if (!r)
		fallback_from_lib(l, fbs);
	damonctl_fallbacks_free(l);
	return r;
}
