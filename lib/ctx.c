// SPDX-License-Identifier: LGPL-2.1-or-later
/* The library context: the sysroot every path is built from, logging and the last error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "internal.h"

DAMONCTL_API int damonctl_new(struct damonctl_ctx **out)
{
	struct damonctl_ctx *ctx = calloc(1, sizeof(*ctx));
	const char *env = getenv("DAMONC_SYSROOT");
	int r;

	if (!ctx)
		return -ENOMEM;
	r = damonctl_set_sysroot(ctx, env && *env ? env : "/");
	if (r) {
		free(ctx);
		return r;
	}
	ctx->log_level = DAMONCTL_LOG_WARN;
	*out = ctx;
	return 0;
}

DAMONCTL_API void damonctl_free(struct damonctl_ctx *ctx)
{
	if (ctx)
		free(ctx->staging);
	free(ctx);
}

DAMONCTL_API int damonctl_set_sysroot(struct damonctl_ctx *ctx, const char *dir)
{
	size_t n;

	if (!dir || !*dir)
		return -EINVAL;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')	/* "/x/" and "/x" are the same root */
		n--;
	if (n >= sizeof(ctx->sysroot))
		return -ENAMETOOLONG;
	memcpy(ctx->sysroot, dir, n);
	ctx->sysroot[n] = '\0';
	return 0;
}

DAMONCTL_API const char *damonctl_get_sysroot(const struct damonctl_ctx *ctx)
{
	return ctx->sysroot;
}

static const char *const bases[] = {
	[DAMONCTL_BASE_ADMIN] = "sys/kernel/mm/damon/admin",
	[DAMONCTL_BASE_PROC] = "proc",
	[DAMONCTL_BASE_SYS] = "sys",
	[DAMONCTL_BASE_TRACEFS] = "sys/kernel/tracing",
};

DAMONCTL_API int damonctl_path(const struct damonctl_ctx *ctx, enum damonctl_base base,
			       const char *rel, char *buf, size_t size)
{
	const char *root = strcmp(ctx->sysroot, "/") ? ctx->sysroot : "";
	int n;

	if ((unsigned int)base >= ARRAY_SIZE(bases) || !bases[base])
		return -EINVAL;
	if (rel && *rel)
		n = snprintf(buf, size, "%s/%s/%s", root, bases[base], rel);
	else
		n = snprintf(buf, size, "%s/%s", root, bases[base]);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return n;
}

DAMONCTL_API void damonctl_set_log(struct damonctl_ctx *ctx, damonctl_log_fn fn, void *data,
				   enum damonctl_log_level max_level)
{
	ctx->log_fn = fn;
	ctx->log_data = data;
	ctx->log_level = max_level;
}

void dctl_log(const struct damonctl_ctx *ctx, enum damonctl_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!ctx->log_fn || level > ctx->log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->log_fn(ctx->log_data, level, msg);
}

void dctl_set_error(struct damonctl_ctx *ctx, int err, bool write, const char *path,
		    const char *value)
{
	ctx->have_err = true;
	ctx->err.err = err;
	ctx->err.write = write;
	snprintf(ctx->err.path, sizeof(ctx->err.path), "%s", path ? path : "");
	snprintf(ctx->err.value, sizeof(ctx->err.value), "%s", value ? value : "");
}

DAMONCTL_API bool damonctl_last_error(const struct damonctl_ctx *ctx, struct damonctl_error *e)
{
	if (!ctx->have_err)
		return false;
	e->err = ctx->err.err;
	e->write = ctx->err.write;
	e->path = ctx->err.path;
	e->value = ctx->err.value;
	return true;
}

DAMONCTL_API void damonctl_clear_error(struct damonctl_ctx *ctx)
{
	ctx->have_err = false;
}

/* The error that made a transaction undo is the one to tell, not one the undo meets. */
void dctl_keep_error(struct damonctl_ctx *ctx, struct dctl_kept_error *k)
{
	struct damonctl_error e;

	k->kept = damonctl_last_error(ctx, &e);
	if (!k->kept)
		return;
	k->err = e.err;
	k->write = e.write;
	snprintf(k->path, sizeof(k->path), "%s", e.path);
	snprintf(k->value, sizeof(k->value), "%s", e.value);
}

void dctl_put_back_error(struct damonctl_ctx *ctx, const struct dctl_kept_error *k)
{
	damonctl_clear_error(ctx);
	if (k->kept)
		dctl_set_error(ctx, k->err, k->write, k->path, k->value);
}

bool dctl_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

DAMONCTL_API const char *damonctl_version(void)
{
	return DAMONCTL_VERSION_STRING;
}
