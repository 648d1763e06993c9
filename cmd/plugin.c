// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading damonc's plugins (see plugin.h). The directory is found from /proc/self/exe,
 * never from the environment: a plugin runs with damonc's privileges, so it is taken only
 * from where damonc itself was installed (DAMONC_PLUGIN_RELDIR from the program's
 * directory), or, when the program is the one in this build's tree, from that build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "plugin.h"
#include "plugin_dirs.h"

/* The directory damonc's plugins are in: 0, or -errno. */
static int plugin_dir(char *buf, size_t size)
{
	char exe[PATH_MAX], *slash, *build;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	bool in_build;

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	/* /proc/self/exe has no symbolic links left: compare with the build's real path */
	build = realpath(DAMONC_BUILD_PLUGIN_DIR, NULL);
	in_build = build && !strcmp(build, exe);
	free(build);
	if ((size_t)snprintf(buf, size, "%s%s%s", exe, in_build ? "" : "/",
			     in_build ? "" : DAMONC_PLUGIN_RELDIR) >= size)
		return -ENAMETOOLONG;
	return 0;
}

const void *plugin_load(const char *name, const char *symbol, size_t size, char *why,
			size_t why_size)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	const struct plugin_head *head;
	void *h;
	int r = plugin_dir(dir, sizeof(dir));

	if (r) {
		snprintf(why, why_size, "damonc's own directory (/proc/self/exe): %s",
			 strerror(-r));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, why_size, "%s", dlerror());
		return NULL;
	}
	head = dlsym(h, symbol);
	if (!head || strcmp(head->version, DAMONC_VERSION) || head->size != size) {
		snprintf(why, why_size, "%s is not damonc %s's plugin (%s)", path, DAMONC_VERSION,
			 head ? head->version : "no table");
		dlclose(h);
		return NULL;
	}
	return head;	/* the handle stays open for the process's life */
}
