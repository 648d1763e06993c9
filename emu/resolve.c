// SPDX-License-Identifier: GPL-2.0-or-later
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu.h"
#include "resolve.h"

/* find_get_pid() finds any task id of the namespace, threads and zombies included. */
bool emu_pid_exists(int pid)
{
	char path[PATH_MAX];
	struct stat st;
	const char *proc = emu_opt.engine.proc_root ? emu_opt.engine.proc_root : "/proc";

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "%s/%d", proc, pid);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The kernel walks the memcgs and compares each cgroup_path() ("/" for the root, "/a/b"
 * below) with sysfs_streq(), so one trailing newline is allowed and nothing else is
 * normalised. A directory below the root is a memcg when it has the memory controller's
 * files (cgroup v2 memory.current, v1 memory.usage_in_bytes).
 */
bool emu_memcg_exists(const char *path)
{
	char p[PATH_MAX], full[PATH_MAX + 64];
	size_t len;
	struct stat st;
	const char *root = emu_opt.engine.cgroup_root;

	if (!path)
		return false;
	len = strlen(path);
	if (len >= sizeof(p))
		return false;
	memcpy(p, path, len + 1);
	if (len && p[len - 1] == '\n')
		p[--len] = '\0';
	if (p[0] != '/')
		return false;
	if (!strcmp(p, "/"))
		return true;
	/* cgroup_path() never ends in '/', has no empty, "." or ".." components */
	if (p[len - 1] == '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../") ||
	    !strcmp(p + len - 2, "/.") || (len >= 3 && !strcmp(p + len - 3, "/..")))
		return false;
	snprintf(full, sizeof(full), "%s%s/memory.current", root, p);
	if (stat(full, &st) == 0)
		return true;
	snprintf(full, sizeof(full), "%s%s/memory.usage_in_bytes", root, p);
	return stat(full, &st) == 0;
}

static bool module_enabled(const char *module)
{
	char path[PATH_MAX], buf[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/parameters/enabled", emu_opt.modules_dir, module);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] == 'Y';
}

bool emu_exclusive_user_running(void)
{
	static const char *const modules[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };

	if (!emu_opt.modules_dir)
		return false;
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		if (module_enabled(modules[i]))
			return true;
	}
	return false;
}

unsigned long emu_page_size(void)
{
	long sz = sysconf(_SC_PAGESIZE);

	return sz > 0 ? (unsigned long)sz : 4096;
}
