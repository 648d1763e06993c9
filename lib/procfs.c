// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Memory figures from procfs and sysfs under the sysroot: what huge-page reports and the
 * hugepage_mem_bp goal are measured from. The ratio is computed exactly as the kernel's
 * hugepage_mem_bp metric (queued for 7.4) defines it, so user space and kernel agree.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static FILE *open_under(struct damonctl_ctx *ctx, enum damonctl_base base, const char *rel)
{
	char path[PATH_MAX];
	FILE *f;
	int fd;

	if (damonctl_path(ctx, base, rel, path, sizeof(path)) < 0) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	f = fd < 0 ? NULL : fdopen(fd, "re");
	if (!f) {
		int err = fd < 0 ? fd : -errno;

		if (fd >= 0)
			close(fd);
		dctl_set_error(ctx, err, false, path, "");
		errno = -err;
	}
	return f;
}

struct kb_field {
	const char *name;
	uint64_t *dst;
};

/* "Name:   1234 kB" -> bytes, into the field of that name, if any. */
static void kb_line(const char *line, const struct kb_field *fields, size_t n)
{
	unsigned long long v;
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(fields[i].name);
		if (strncmp(line, fields[i].name, len) || line[len] != ':')
			continue;
		if (sscanf(line + len + 1, "%llu", &v) == 1)
			*fields[i].dst = (uint64_t)v * 1024;
		return;
	}
}

/* the struct as 0.4, the first release with sz, had it: what every caller's sz covers */
#define MEMINFO_MIN_SZ DCTL_SZ_TO(struct damonctl_meminfo, file_huge)

static bool meminfo_ok(const struct damonctl_meminfo *m)
{
	return m && m->sz >= MEMINFO_MIN_SZ;
}

DAMONCTL_API int damonctl_meminfo_read_v0_4(struct damonctl_ctx *ctx, struct damonctl_meminfo *m)
{
	struct damonctl_meminfo tmp = DAMONCTL_MEMINFO_INIT;
	const struct kb_field fields[] = {
		{ "MemTotal", &tmp.total }, { "MemFree", &tmp.free },
		{ "MemAvailable", &tmp.available }, { "AnonPages", &tmp.anon },
		{ "AnonHugePages", &tmp.anon_huge }, { "ShmemHugePages", &tmp.shmem_huge },
		{ "FileHugePages", &tmp.file_huge },
	};
	char line[256];
	FILE *f;

	if (!meminfo_ok(m))
		return -EINVAL;
	f = open_under(ctx, DAMONCTL_BASE_PROC, "meminfo");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		kb_line(line, fields, ARRAY_SIZE(fields));
	fclose(f);
	if (!tmp.total)
		return -EBADMSG;
	dctl_fill_sized(m, &tmp, sizeof(tmp));
	return 0;
}
DCTL_DEFAULT_VERSION(damonctl_meminfo_read_v0_4, damonctl_meminfo_read, LIBDAMONCTL_0.4)

DAMONCTL_API uint64_t damonctl_meminfo_used_v0_4(const struct damonctl_meminfo *m)
{
	if (!meminfo_ok(m))
		return 0;
	return m->total > m->free ? m->total - m->free : 0;
}
DCTL_DEFAULT_VERSION(damonctl_meminfo_used_v0_4, damonctl_meminfo_used, LIBDAMONCTL_0.4)

DAMONCTL_API uint64_t damonctl_meminfo_huge_v0_4(const struct damonctl_meminfo *m)
{
	if (!meminfo_ok(m))
		return 0;
	return m->anon_huge + m->shmem_huge + m->file_huge;
}
DCTL_DEFAULT_VERSION(damonctl_meminfo_huge_v0_4, damonctl_meminfo_huge, LIBDAMONCTL_0.4)

DAMONCTL_API uint64_t damonctl_meminfo_hugepage_bp_v0_4(const struct damonctl_meminfo *m)
{
	uint64_t used = damonctl_meminfo_used_v0_4(m);

	if (!meminfo_ok(m))
		return 0;
	/* the kernel: 10000 when free >= total; the sum is in pages there, bytes here,
	 * which gives the same ratio */
	if (!used)
		return 10000;
	return (uint64_t)((unsigned __int128)damonctl_meminfo_huge_v0_4(m) * 10000 / used);
}
DCTL_DEFAULT_VERSION(damonctl_meminfo_hugepage_bp_v0_4, damonctl_meminfo_hugepage_bp,
		     LIBDAMONCTL_0.4)

DAMONCTL_API int damonctl_proc_mem_read(struct damonctl_ctx *ctx, int pid,
					struct damonctl_proc_mem *m)
{
	struct damonctl_proc_mem tmp = { 0 };
	const struct kb_field fields[] = {
		{ "Rss", &tmp.rss }, { "Anonymous", &tmp.anon },
		{ "AnonHugePages", &tmp.anon_huge }, { "ShmemPmdMapped", &tmp.shmem_huge },
		{ "FilePmdMapped", &tmp.file_huge },
	};
	char rel[64], line[256];
	FILE *f;

	snprintf(rel, sizeof(rel), "%d/smaps_rollup", pid);
	f = open_under(ctx, DAMONCTL_BASE_PROC, rel);
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		kb_line(line, fields, ARRAY_SIZE(fields));
	fclose(f);
	*m = tmp;
	return 0;
}

/* The mappings of /proc/PID/maps, or of smaps with their sizes (@smaps). */
static int read_mappings(struct damonctl_ctx *ctx, int pid, bool smaps, damonctl_vma_fn fn,
			 void *data)
{
	struct damonctl_vma v;
	const struct kb_field fields[] = {
		{ "Rss", &v.rss }, { "Anonymous", &v.anon }, { "AnonHugePages", &v.anon_huge },
	};
	char rel[64], line[4352];
	bool have = false;
	FILE *f;
	int r = 0;

	snprintf(rel, sizeof(rel), "%d/%s", pid, smaps ? "smaps" : "maps");
	f = open_under(ctx, DAMONCTL_BASE_PROC, rel);
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!r && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &s, &e, perms, &name_at) >= 3 &&
		    strchr(line, '-') && name_at > 0) {
			if (have)
				r = fn(data, &v);
			memset(&v, 0, sizeof(v));
			v.start = s;
			v.end = e;
			snprintf(v.perms, sizeof(v.perms), "%s", perms);
			snprintf(v.name, sizeof(v.name), "%s", line + name_at);
			v.name[strcspn(v.name, "\n")] = '\0';
			have = true;
			continue;
		}
		if (have && smaps)
			kb_line(line, fields, ARRAY_SIZE(fields));
	}
	if (!r && have)
		r = fn(data, &v);
	fclose(f);
	return r;
}

DAMONCTL_API int damonctl_proc_vmas(struct damonctl_ctx *ctx, int pid, damonctl_vma_fn fn,
				    void *data)
{
	return read_mappings(ctx, pid, true, fn, data);
}

DAMONCTL_API int damonctl_proc_maps(struct damonctl_ctx *ctx, int pid, damonctl_vma_fn fn,
				    void *data)
{
	return read_mappings(ctx, pid, false, fn, data);
}

DAMONCTL_API int damonctl_vmstat_read(struct damonctl_ctx *ctx, const char *const *names,
				      uint64_t *values, size_t n)
{
	char line[256], key[128];
	unsigned long long v;
	size_t i, found = 0;
	FILE *f = open_under(ctx, DAMONCTL_BASE_PROC, "vmstat");

	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		values[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %llu", key, &v) != 2)
			continue;
		for (i = 0; i < n; i++) {
			if (!strcmp(key, names[i])) {
				values[i] = v;
				found++;
			}
		}
	}
	fclose(f);
	return (int)found;
}

DAMONCTL_API int damonctl_sys_read(struct damonctl_ctx *ctx, const char *rel, char *buf,
				   size_t size)
{
	return dctl_read_under(ctx, DAMONCTL_BASE_SYS, rel, buf, size);
}

DAMONCTL_API int damonctl_sys_read_setting(struct damonctl_ctx *ctx, const char *rel, char *buf,
					   size_t size)
{
	int r = damonctl_sys_read(ctx, rel, buf, size);
	char *open, *close;

	if (r)
		return r;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (close) {
		*close = '\0';
		memmove(buf, open + 1, (size_t)(close - open));
	}
	return 0;
}

DAMONCTL_API int damonctl_system_ram(struct damonctl_ctx *ctx, uint64_t *start, uint64_t *end)
{
	unsigned long long s, e, bs = 0, be = 0;
	char line[256];
	FILE *f = open_under(ctx, DAMONCTL_BASE_PROC, "iomem");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* top-level lines only: nested resources are indented */
		if (line[0] == ' ' || !strstr(line, ": System RAM"))
			continue;
		if (sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		if (e + 1 - s > be - bs) {
			bs = s;
			be = e + 1;
		}
	}
	fclose(f);
	if (be <= bs)
		return -ENOENT;	/* also what unprivileged readers see: all zeros */
	if (bs == 0 && be == 1)
		return -EPERM;
	*start = bs;
	*end = be;
	return 0;
}
