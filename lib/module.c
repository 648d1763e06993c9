// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The DAMON modules (damon_reclaim, damon_lru_sort, damon_stat): their parameters under
 * <sysroot>/sys/module/<module>/parameters, read into a name -> value list, converted from
 * what people type (5s, 1GiB, 50%) into what each parameter takes, and written.
 *
 * A running module reads its parameters again only when told: after the writes, commit_inputs
 * gets Y when the module has that file and is enabled (docs/damon-abi.md section 7). Every
 * write of a set is checked before the first one is made, so a bad name writes nothing.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "internal.h"

static const char *const modules[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };

enum pkind { P_TEXT, P_NUM, P_BOOL, P_TIME_US, P_TIME_MS, P_SIZE, P_PERMIL, P_BP, P_RO };

/* What each known parameter holds (docs/damon-abi.md section 7). A parameter missing here
 * is written as given, if the module has it; P_RO ones are the module's results. */
static const struct {
	const char *name;
	enum pkind kind;
} params[] = {
	{ "enabled", P_BOOL },
	{ "commit_inputs", P_BOOL },
	{ "min_age", P_TIME_US },
	{ "cold_min_age", P_TIME_US },
	{ "hot_thres_access_freq", P_PERMIL },
	{ "quota_ms", P_TIME_MS },
	{ "quota_sz", P_SIZE },
	{ "quota_reset_interval_ms", P_TIME_MS },
	{ "quota_mem_pressure_us", P_TIME_US },
	{ "quota_autotune_feedback", P_NUM },
	{ "wmarks_interval", P_TIME_US },
	{ "wmarks_high", P_PERMIL },
	{ "wmarks_mid", P_PERMIL },
	{ "wmarks_low", P_PERMIL },
	{ "sample_interval", P_TIME_US },
	{ "aggr_interval", P_TIME_US },
	{ "min_nr_regions", P_NUM },
	{ "max_nr_regions", P_NUM },
	{ "monitor_region_start", P_NUM },
	{ "monitor_region_end", P_NUM },
	{ "skip_anon", P_BOOL },
	{ "addr_unit", P_NUM },
	{ "autotune_monitoring_intervals", P_BOOL },
	{ "active_mem_bp", P_BP },
	{ "filter_young_pages", P_BOOL },
	{ "kdamond_pid", P_RO },
	{ "aggr_interval_us", P_RO },
	{ "estimated_memory_bandwidth", P_RO },
	{ "memory_idle_ms_percentiles", P_RO },
};

static const char *const ro_prefixes[] = { "nr_", "bytes_" };

struct damonctl_module_params {
	size_t nr;
	struct {
		char *name;
		char *value;
	} *p;
};

DAMONCTL_API const char *damonctl_module_name(unsigned int i)
{
	return i < ARRAY_SIZE(modules) ? modules[i] : NULL;
}

/* "damon_reclaim", or "reclaim" for it; NULL when no module is called so. */
DAMONCTL_API const char *damonctl_module_lookup(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(modules); i++)
		if (!strcmp(name, modules[i]) || !strcmp(name, modules[i] + strlen("damon_")))
			return modules[i];
	return NULL;
}

static int params_dir(struct damonctl_ctx *ctx, const char *module, const char *param,
		      char *path, size_t size)
{
	char rel[256];
	int r;

	if (!damonctl_module_lookup(module) || strncmp(module, "damon_", 6))
		return -EINVAL;
	if (!dctl_fmt(rel, sizeof(rel), "module/%s/parameters%s%s", module, param ? "/" : "",
		      param ? param : ""))
		return -ENAMETOOLONG;
	r = damonctl_path(ctx, DAMONCTL_BASE_SYS, rel, path, size);
	return r < 0 ? r : 0;
}

static int kind_of(const char *param)
{
	for (size_t i = 0; i < ARRAY_SIZE(params); i++)
		if (!strcmp(param, params[i].name))
			return (int)params[i].kind;
	for (size_t i = 0; i < ARRAY_SIZE(ro_prefixes); i++)
		if (!strncmp(param, ro_prefixes[i], strlen(ro_prefixes[i])))
			return P_RO;
	return P_TEXT;
}

DAMONCTL_API bool damonctl_module_param_writable(const char *param)
{
	return kind_of(param) != P_RO;
}

DAMONCTL_API bool damonctl_module_present(struct damonctl_ctx *ctx, const char *module)
{
	char path[PATH_MAX];

	return params_dir(ctx, module, NULL, path, sizeof(path)) == 0 && access(path, F_OK) == 0;
}

DAMONCTL_API void damonctl_module_params_free(struct damonctl_module_params *mp)
{
	if (!mp)
		return;
	for (size_t i = 0; i < mp->nr; i++) {
		free(mp->p[i].name);
		free(mp->p[i].value);
	}
	free(mp->p);
	free(mp);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

DAMONCTL_API int damonctl_module_read(struct damonctl_ctx *ctx, const char *module,
				      struct damonctl_module_params **out)
{
	struct damonctl_module_params *mp;
	char dir[PATH_MAX], buf[4096];
	struct dirent *de;
	DIR *d;
	int r;

	*out = NULL;
	r = params_dir(ctx, module, NULL, dir, sizeof(dir));
	if (r)
		return r;
	d = opendir(dir);
	if (!d) {
		r = -errno;
		dctl_set_error(ctx, r, false, dir, "");
		return r;
	}
	mp = calloc(1, sizeof(*mp));
	if (!mp) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		void *grown;

		if (de->d_name[0] == '.')
			continue;
		/* a parameter that cannot be read (write-only, gone) is left out */
		if (dctl_read_at(dirfd(d), de->d_name, buf, sizeof(buf)) < 0)
			continue;
		grown = realloc(mp->p, (mp->nr + 1) * sizeof(*mp->p));
		if (!grown) {
			r = -ENOMEM;
			break;
		}
		mp->p = grown;
		mp->p[mp->nr].name = strdup(de->d_name);
		mp->p[mp->nr].value = strdup(buf);
		mp->nr++;
		if (!mp->p[mp->nr - 1].name || !mp->p[mp->nr - 1].value) {
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	if (r) {
		damonctl_module_params_free(mp);
		return r;
	}
	/* the name is the first member: sort the pairs by it */
	qsort(mp->p, mp->nr, sizeof(*mp->p), by_name);
	*out = mp;
	return 0;
}

DAMONCTL_API size_t damonctl_module_params_nr(const struct damonctl_module_params *mp)
{
	return mp ? mp->nr : 0;
}

DAMONCTL_API const char *damonctl_module_param_name(const struct damonctl_module_params *mp,
						    size_t i)
{
	return mp && i < mp->nr ? mp->p[i].name : NULL;
}

DAMONCTL_API const char *damonctl_module_param_value(const struct damonctl_module_params *mp,
						     size_t i)
{
	return mp && i < mp->nr ? mp->p[i].value : NULL;
}

DAMONCTL_API const char *damonctl_module_param_get(const struct damonctl_module_params *mp,
						   const char *name)
{
	for (size_t i = 0; mp && i < mp->nr; i++)
		if (!strcmp(mp->p[i].name, name))
			return mp->p[i].value;
	return NULL;
}

DAMONCTL_API bool damonctl_module_params_enabled(const struct damonctl_module_params *mp,
						 int *kdamond_pid)
{
	const char *en = damonctl_module_param_get(mp, "enabled");
	const char *kp = damonctl_module_param_get(mp, "kdamond_pid");

	/* the kernel prints a bool parameter as Y or N */
	if (kdamond_pid)
		*kdamond_pid = kp ? atoi(kp) : -1;
	return en && en[0] == 'Y';
}

DAMONCTL_API int damonctl_module_enabled(struct damonctl_ctx *ctx, const char *module,
					 int *kdamond_pid)
{
	struct damonctl_module_params *mp;
	int r = damonctl_module_read(ctx, module, &mp);

	if (kdamond_pid)
		*kdamond_pid = -1;
	if (r)
		return r;
	r = damonctl_module_params_enabled(mp, kdamond_pid);
	damonctl_module_params_free(mp);
	return r;
}

/* kstrtobool's reading (docs/damon-abi.md section 1), words spelled out: 1 true, 0 false. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = { "Y", "y", "1", "yes", "true", "on" };
	static const char *const no[] = { "N", "n", "0", "no", "false", "off" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -EINVAL;
}

DAMONCTL_API int damonctl_module_param_convert(const char *param, const char *input,
					       char *out, size_t size)
{
	uint64_t v;
	int r;

	if (!input || !*input || strchr(input, '\n'))
		return -EINVAL;
	switch ((enum pkind)kind_of(param)) {
	case P_RO:
		return -EACCES;
	case P_TEXT:
		return dctl_fmt(out, size, "%s", input) ? 0 : -ERANGE;
	case P_BOOL:
		r = parse_bool(input);
		if (r < 0)
			return r;
		return dctl_fmt(out, size, "%s", r ? "Y" : "N") ? 0 : -ERANGE;
	case P_NUM:
		r = damonctl_parse_u64(input, &v);
		break;
	case P_TIME_US:
		r = damonctl_parse_time_us(input, &v);
		break;
	case P_TIME_MS:
		r = dctl_parse_time(input, 0, 1000, &v);
		if (!r && v != DAMONCTL_MAX) {
			if (v % 1000)
				return -EINVAL;	/* not a whole number of milliseconds */
			v /= 1000;
		}
		break;
	case P_SIZE:
		r = damonctl_parse_size(input, &v);
		break;
	case P_PERMIL:
		r = dctl_parse_ratio(input, 0, 1000, 1, &v);
		break;
	case P_BP:
		r = damonctl_parse_bp(input, &v);
		break;
	default:
		return -EINVAL;
	}
	if (r)
		return r;
	return dctl_fmt(out, size, "%llu", (unsigned long long)v) ? 0 : -ERANGE;
}

DAMONCTL_API int damonctl_module_param_format(const char *param, const char *value, char *out,
					      size_t size)
{
	uint64_t v;

	if (!size)
		return -ERANGE;
	out[0] = '\0';
	if (!value || dctl_kstrtou64(value, &v))
		return -EINVAL;
	switch ((enum pkind)kind_of(param)) {
	case P_TIME_US:
		return damonctl_fmt_time_us(v, out, size) < 0 ? -ERANGE : 0;
	case P_TIME_MS:
		if (v > DAMONCTL_MAX / 1000)
			return -ERANGE;
		return damonctl_fmt_time_us(v * 1000, out, size) < 0 ? -ERANGE : 0;
	case P_SIZE:
		return damonctl_fmt_size(v, out, size) < 0 ? -ERANGE : 0;
	case P_PERMIL:
		if (v > DAMONCTL_MAX / 10)
			return -ERANGE;
		return damonctl_fmt_bp(v * 10, out, size) < 0 ? -ERANGE : 0;
	case P_BP:
		return damonctl_fmt_bp(v, out, size) < 0 ? -ERANGE : 0;
	default:
		return -ENOENT;
	}
}

static int check_param(struct damonctl_ctx *ctx, const char *module, const char *param)
{
	char path[PATH_MAX];
	int r;

	if (!*param || strchr(param, '/') || param[0] == '.')
		return -EINVAL;
	r = params_dir(ctx, module, param, path, sizeof(path));
	if (r)
		return r;
	if (access(path, F_OK)) {
		r = -errno;
		dctl_set_error(ctx, r, true, path, "");
		return r;
	}
	return damonctl_module_param_writable(param) ? 0 : -EACCES;
}

/* As sysfs takes a value, in one write; O_TRUNC for a directory of plain files standing in
 * for /sys/module (damon-emu --modules), where a shorter value would keep the old one's tail.
 * sysfs ignores it. */
static int write_value(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = dctl_open_file(AT_FDCWD, path, O_WRONLY | O_TRUNC), err = 0;
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int write_param(struct damonctl_ctx *ctx, const char *module, const char *param,
		       const char *value, unsigned int flags, damonctl_module_write_fn fn,
		       void *data)
{
	char path[PATH_MAX];
	int r = params_dir(ctx, module, param, path, sizeof(path));

	if (r)
		return r;
	if (fn)
		fn(data, module, param, value);
	if (flags & DAMONCTL_MODULE_DRY_RUN)
		return 0;
	r = write_value(path, value);
	dctl_log(ctx, DAMONCTL_LOG_DEBUG, "write %s <= '%s': %s", path, value,
		 r ? strerror(-r) : "ok");
	if (r)
		dctl_set_error(ctx, r, true, path, value);
	return r;
}

DAMONCTL_API int damonctl_module_write(struct damonctl_ctx *ctx, const char *module,
				       const char *const *names, const char *const *values,
				       size_t n, unsigned int flags, damonctl_module_write_fn fn,
				       void *data)
{
	char path[PATH_MAX], buf[16];
	bool enabled, touches_enabled = false;
	int r;

	if (!damonctl_module_lookup(module) || strncmp(module, "damon_", 6))
		return -EINVAL;
	if (!damonctl_module_present(ctx, module))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		r = check_param(ctx, module, names[i]);
		if (r)
			return r;
		if (!values[i] || strchr(values[i], '\n'))
			return -EINVAL;
		if (!strcmp(names[i], "enabled") || !strcmp(names[i], "commit_inputs"))
			touches_enabled = true;
	}
	r = params_dir(ctx, module, "enabled", path, sizeof(path));
	if (r)
		return r;
	enabled = dctl_read_at(AT_FDCWD, path, buf, sizeof(buf)) >= 0 && buf[0] == 'Y';
	for (size_t i = 0; i < n; i++) {
		r = write_param(ctx, module, names[i], values[i], flags, fn, data);
		if (r)
			return r;
	}
	/* a running module takes new inputs only when told (not needed when it was off: it
	 * reads them all at enable) */
	if (n && enabled && !touches_enabled &&
	    params_dir(ctx, module, "commit_inputs", path, sizeof(path)) == 0 &&
	    access(path, F_OK) == 0)
		return write_param(ctx, module, "commit_inputs", "Y", flags, fn, data);
	return 0;
}

/* "Y"/"N" of enabled: 1, 0, or -errno. */
static int read_enabled(struct damonctl_ctx *ctx, const char *module)
{
	char path[PATH_MAX], buf[16];
	int r = params_dir(ctx, module, "enabled", path, sizeof(path));

	if (r)
		return r;
	r = dctl_read_at(AT_FDCWD, path, buf, sizeof(buf));
	return r < 0 ? r : buf[0] == 'Y';
}

DAMONCTL_API int damonctl_module_settle(struct damonctl_ctx *ctx, const char *module,
					bool enable, unsigned int timeout_ms, int *pid)
{
	char path[PATH_MAX], buf[32];
	bool has_pid;
	unsigned int waited = 0, same = 0;
	int r;

	r = params_dir(ctx, module, "kdamond_pid", path, sizeof(path));
	if (r)
		return r;
	has_pid = access(path, F_OK) == 0;
	*pid = -1;
	for (;;) {
		r = read_enabled(ctx, module);
		if (r < 0)
			return r;
		if (r != enable)
			return -ECANCELED;	/* the kernel's work turned it back */
		if (has_pid) {
			long long v;

			if (dctl_read_at(AT_FDCWD, path, buf, sizeof(buf)) >= 0 &&
			    sscanf(buf, "%lld", &v) == 1) {
				if (enable && v > 0) {
					*pid = (int)v;
					return 0;
				}
				if (!enable && v <= 0)
					return 0;
			}
		} else if (++same >= 10) {
			return 0;	/* no pid to wait for: enabled held for 100 ms */
		}
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(10000);
		waited += 10;
	}
}
