/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the damonc agent does for a kdamond: the plan of user-space fallbacks is
 * libdamonctl's (damonctl_fallback_plan(3), whose rules the header's "User-space fallbacks"
 * section states). damonc keeps each started kdamond's plan by value in its started entry
 * (started.h), copied and edited in place by the agent and `tune`; these wrappers carry it
 * to and from the library's object.
 */
#ifndef DAMONC_FALLBACK_H
#define DAMONC_FALLBACK_H

#include "damonc.h"

#define MAX_FALLBACKS 160	/* the library's most */

struct fallbacks {
	unsigned int nr;
	struct damonctl_fallback fb[MAX_FALLBACKS];
};

/* @fbs as the library's object (NULL: out of memory), and back (replaced). */
struct damonctl_fallbacks *fallback_to_lib(const struct fallbacks *fbs);
void fallback_from_lib(const struct damonctl_fallbacks *l, struct fallbacks *fbs);
/* damonctl_fallback_plan() on @out: 0, or -errno with @why. */
int fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
		  const struct damonctl_features *f, bool scope_pid, struct fallbacks *out,
		  char *why, size_t size);
/* damonctl_fallbacks_retarget() on @fbs (changed only on success). */
int fallback_retarget(struct fallbacks *fbs, struct damonctl_context *c,
		      const struct damonctl_features *f, const unsigned int *old_index,
		      unsigned int nr_live, unsigned int child, unsigned int nowhere);
void fallback_refresh(struct fallbacks *fbs, const struct damonctl_kdamond *k);
bool fallback_agents_scheme(const struct fallbacks *fbs, unsigned int si);
int fallback_check_one_scheme(const struct fallbacks *fbs, char *why, size_t size);
/* "hugepage_mem_bp goal fed by the agent; collapse by process_madvise" */
void fallback_describe(const struct fallbacks *fbs, char *buf, size_t size);
json_object *fallback_to_json(const struct fallbacks *fbs);
/* @arr NULL: no plan. */
int fallback_from_json(json_object *arr, struct fallbacks *fbs);

#endif
