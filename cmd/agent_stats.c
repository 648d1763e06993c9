// SPDX-License-Identifier: GPL-2.0-or-later
/* The agent's own counters per kdamond and scheme, shared with status and report: the file
 * under run/damonc; the document is libdamonctl's (damonctl_fallback_stats_to_json). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_stats.h"
#include "started.h"

static int stats_path(struct damonctl_ctx *ctx, unsigned int k, char *buf, size_t size)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "agent-%u.json", k);
	return run_path(ctx, rel, buf, size);
}

int agent_stats_load(struct damonctl_ctx *ctx, unsigned int kdamond,
		     struct damonctl_fallback_stats *st)
{
	char path[4096], *doc;
	size_t len;
	int r;

	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	st->kdamond = kdamond;
	r = stats_path(ctx, kdamond, path, sizeof(path));
	if (r < 0)
		return r;
	r = damonctl_file_read(path, DAMONC_MAX_INPUT, &doc, &len);
	if (r)
		return r == -ENOENT ? 0 : r;
	r = damonctl_json_check(doc, len, NULL, 0) ? -EBADMSG :
	    damonctl_fallback_stats_from_json(doc, st);
	free(doc);
	st->kdamond = kdamond;
	return r;
}

int agent_stats_save(struct damonctl_ctx *ctx, unsigned int kdamond,
		     const struct damonctl_fallback_stats *st)
{
	struct damonctl_fallback_stats c = *st;
	char path[4096], *text;
	json_object *root;
	int r;

	c.sz = sizeof(c);
	c.kdamond = kdamond;
	text = damonctl_fallback_stats_to_json(&c);
	if (!text)
		return -errno;
	root = json_tokener_parse(text);
	free(text);
	if (!root)
		return -ENOMEM;
	r = stats_path(ctx, kdamond, path, sizeof(path)) < 0 ? -ENAMETOOLONG :
	    write_json_file(path, root);
	json_object_put(root);
	return r;
}

int agent_stats_remove(struct damonctl_ctx *ctx, unsigned int kdamond)
{
	char path[4096];
	int r = stats_path(ctx, kdamond, path, sizeof(path));

	if (r < 0)
		return r;
	return unlink(path) && errno != ENOENT ? -errno : 0;
}
