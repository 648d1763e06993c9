// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The writes a transaction makes, recorded as they are made. A start lists them (its probes
 * included), and its dry run lists what its plan would write: the two lists are the same, so
 * a dry run shows what the start does, write for write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int dctl_writes_add(struct dctl_writes *l, const char *path, const char *value,
		    unsigned int flags)
{
	struct dctl_write *w;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		w = realloc(l->w, cap * sizeof(*w));
		if (!w)
			return l->err = -ENOMEM;
		l->w = w;
		l->cap = cap;
	}
	w = &l->w[l->nr];
	w->path = strdup(path);
	w->value = strdup(value);
	w->flags = flags;
	if (!w->path || !w->value) {
		free(w->path);
		free(w->value);
		return l->err = -ENOMEM;
	}
	l->nr++;
	return 0;
}

void dctl_writes_clear(struct dctl_writes *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->w[i].path);
		free(l->w[i].value);
	}
	free(l->w);
	memset(l, 0, sizeof(*l));
}

void dctl_wrec_note(struct damonctl_ctx *ctx, const char *path, const char *value)
{
	if (ctx->wrec)
		dctl_writes_add(ctx->wrec, path, value, ctx->wrec->flags);
}
