// SPDX-License-Identifier: LGPL-2.1-or-later
/* What differs between two models, file by file, for "before -> after" reports. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int diff_obj(const struct dobj *a, const struct dobj *b, const char *rel,
		    unsigned int flags, damonctl_diff_fn fn, void *data)
{
	const struct dobj *o = a ? a : b;
	const struct kind_desc *kd = &dctl_kinds[o->kind];
	char path[PATH_MAX], va[PATH_MAX], vb[PATH_MAX];
	unsigned int at, l, i;
	int r;

	for (at = 0; at < kd->nr_attrs; at++) {
		const struct attr_desc *d = &kd->attrs[at];
		bool ha = a && (a->has >> at & 1), hb = b && (b->has >> at & 1);

		if ((d->flags & A_RESULT) && !(flags & DAMONCTL_DIFF_RESULTS))
			continue;
		if (!ha && !hb)
			continue;
		if (ha && hb && dobj_val_equal(a, b, at))
			continue;
		if (ha && dobj_format(a, at, va, sizeof(va)) < 0)
			return -ENAMETOOLONG;
		if (hb && dobj_format(b, at, vb, sizeof(vb)) < 0)
			return -ENAMETOOLONG;
		if (!dctl_fmt(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "", d->file))
			return -ENAMETOOLONG;
		r = fn(data, path, ha ? va : NULL, hb ? vb : NULL);
		if (r)
			return r;
	}
	for (l = 0; l < kd->nr_lists; l++) {
		const struct list_desc *ld = &kd->lists[l];
		unsigned int na = dobj_nr(a, l), nb = dobj_nr(b, l), n = na > nb ? na : nb;

		if ((ld->flags & A_RO) && !(flags & DAMONCTL_DIFF_RESULTS))
			continue;
		if (na != nb) {
			snprintf(va, sizeof(va), "%u", na);
			snprintf(vb, sizeof(vb), "%u", nb);
			if (!dctl_fmt(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "",
				      ld->nr_file ? ld->nr_file : ld->dir))
				return -ENAMETOOLONG;
			r = fn(data, path, va, vb);
			if (r)
				return r;
		}
		for (i = 0; i < n; i++) {
			if (!dctl_fmt(path, sizeof(path), "%s%s%s/%u", rel, *rel ? "/" : "",
				      ld->dir, i))
				return -ENAMETOOLONG;
			r = diff_obj(dobj_child(a, l, i), dobj_child(b, l, i), path, flags, fn,
				     data);
			if (r)
				return r;
		}
	}
	return 0;
}

DAMONCTL_API int damonctl_kdamond_diff(const struct damonctl_kdamond *a,
				       const struct damonctl_kdamond *b, unsigned int flags,
				       damonctl_diff_fn fn, void *data)
{
	if (!a || !b)
		return -EINVAL;
	return diff_obj(CDOBJ(a), CDOBJ(b), "", flags, fn, data);
}
