// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc module: the DAMON modules (damon_reclaim, damon_lru_sort, damon_stat) through their
 * parameters: list them, show one, enable, disable, set parameters. A module and a kdamond
 * of the sysfs interface exclude each other, and so do two modules: enable refuses while
 * either runs (--force tries anyway, and the kernel may refuse with EBUSY).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "damonc.h"

enum { O_DRY_RUN = 300, O_FORCE };

struct module_opts {
	bool dry_run, force;
};

static const struct opt module_opts_tbl[] = {
	{ "dry-run", O_DRY_RUN, OV_NONE, NULL, "show the writes, make none",
	  OPT_TO(OD_FLAG, struct module_opts, dry_run) },
	{ "force", O_FORCE, OV_NONE, NULL,
	  "enable even while a kdamond of the sysfs interface or another module runs",
	  OPT_TO(OD_FLAG, struct module_opts, force) },
	{ 0 },
};

#define MAX_KDAMONDS 64
/* how long enable and disable wait for the module to start or stop its kdamond */
#define MODULE_SETTLE_MS 3000

/* The sysfs interface's running kdamonds: their indexes and pids (none without the
 * interface). */
static unsigned int running_kdamonds(struct cli *cli, unsigned int *idx, int *pids)
{
	char buf[32];
	unsigned int nr = 0, n, i;

	if (damonctl_read(cli->ctx, "kdamonds/nr_kdamonds", buf, sizeof(buf)))
		return 0;
	n = (unsigned int)strtoul(buf, NULL, 10);
	for (i = 0; i < n && nr < MAX_KDAMONDS; i++) {
		int pid = -1;

		if (damonctl_kdamond_is_running(cli->ctx, i, &pid) == 1) {
			idx[nr] = i;
			pids[nr++] = pid;
		}
	}
	return nr;
}

/* A value as JSON: Y/N as booleans, integers as numbers, the rest as strings. */
static json_object *value_json(const char *v)
{
	char *end;

	if (!strcmp(v, "Y") || !strcmp(v, "N"))
		return json_object_new_boolean(v[0] == 'Y');
	if (*v && (*v == '-' || (*v >= '0' && *v <= '9'))) {
		errno = 0;
		if (*v == '-') {
			long long s = strtoll(v, &end, 10);

			if (!*end && end != v && !errno)
				return json_object_new_int64(s);
		} else {
			unsigned long long u = strtoull(v, &end, 10);

			if (!*end && end != v && !errno)
				return json_object_new_uint64(u);
		}
	}
	return json_object_new_string(v);
}

static int list_modules(struct cli *cli)
{
	unsigned int idx[MAX_KDAMONDS], nr_run, i, k;
	int pids[MAX_KDAMONDS];
	json_object *doc = NULL, *arr = NULL, *run = NULL;
	const char *name;
	char b1[64], b2[64];

	nr_run = running_kdamonds(cli, idx, pids);
	if (cli->json) {
		doc = json_doc_new();
		arr = json_object_new_array();
		run = json_object_new_array();
	} else {
		printf("%-16s %-9s %s\n", "module", "state", "kdamond");
	}
	for (i = 0; (name = damonctl_module_name(i)); i++) {
		struct damonctl_module_params *mp = NULL;
		const char *pid;
		bool present = damonctl_module_present(cli->ctx, name);
		int r = present ? damonctl_module_read(cli->ctx, name, &mp) : 0;

		if (r) {
			if (doc)
				json_object_put(doc);
			json_object_put(arr);
			json_object_put(run);
			return lib_error(cli, r, "reading the parameters of %s", name);
		}
		pid = damonctl_module_param_get(mp, "kdamond_pid");
		if (cli->json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(name));
			json_object_object_add(o, "present", json_object_new_boolean(present));
			json_object_object_add(o, "enabled", present ?
				json_object_new_boolean(damonctl_module_params_enabled(mp, NULL)) : NULL);
			json_object_object_add(o, "kdamond_pid", pid && strcmp(pid, "-1") ?
					       value_json(pid) : NULL);
			json_object_array_add(arr, o);
		} else {
			printf("%-16s %-9s %s\n", name,
			       !present ? "absent" : damonctl_module_params_enabled(mp, NULL) ? "enabled" : "disabled",
			       pid && strcmp(pid, "-1") ? safe_str(pid, b1, sizeof(b1)) : "-");
		}
		damonctl_module_params_free(mp);
	}
	if (cli->json) {
		for (k = 0; k < nr_run; k++) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "index", json_object_new_int64(idx[k]));
			json_object_object_add(o, "pid", json_object_new_int64(pids[k]));
			json_object_array_add(run, o);
		}
		json_object_object_add(doc, "modules", arr);
		json_object_object_add(doc, "running_kdamonds", run);
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	for (k = 0; k < nr_run; k++) {
		snprintf(b2, sizeof(b2), "%d", pids[k]);
		printf("\nkdamond %u of the sysfs interface is running (pid %s): no module can be "
		       "enabled while it runs\n", idx[k], b2);
	}
	return EXIT_OK;
}

static int read_module(struct cli *cli, const char *arg, const char **name,
		       struct damonctl_module_params **mp)
{
	char b[128];
	int r;

	*name = damonctl_module_lookup(arg);
	if (!*name)
		return usage_error(cli, "unknown module '%s': expected reclaim, lru_sort or stat",
				   safe_str(arg, b, sizeof(b)));
	if (!damonctl_module_present(cli->ctx, *name))
		return usage_error(cli, "%s: this kernel lacks the module (not built in, or not "
				   "loaded: no %s/sys/module/%s/parameters)", *name,
				   strcmp(damonctl_get_sysroot(cli->ctx), "/") ?
				   damonctl_get_sysroot(cli->ctx) : "", *name);
	r = damonctl_module_read(cli->ctx, *name, mp);
	if (r)
		return lib_error(cli, r, "reading the parameters of %s", *name);
	return 0;
}

static int show_module(struct cli *cli, const char *name, const struct damonctl_module_params *mp)
{
	size_t i, n = damonctl_module_params_nr(mp), w = 0;
	char b1[64], b2[512];

	if (cli->json) {
		json_object *doc = json_doc_new(), *p = json_object_new_object();

		json_object_object_add(doc, "module", json_object_new_string(name));
		json_object_object_add(doc, "enabled", json_object_new_boolean(damonctl_module_params_enabled(mp, NULL)));
		for (i = 0; i < n; i++)
			json_object_object_add(p, damonctl_module_param_name(mp, i),
					       value_json(damonctl_module_param_value(mp, i)));
		json_object_object_add(doc, "parameters", p);
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	for (i = 0; i < n; i++)
		if (strlen(damonctl_module_param_name(mp, i)) > w)
			w = strlen(damonctl_module_param_name(mp, i));
	printf("%s: %s\n", name, damonctl_module_params_enabled(mp, NULL) ? "enabled" : "disabled");
	for (i = 0; i < n; i++) {
		const char *pn = damonctl_module_param_name(mp, i);
		char human[64];

		if (damonctl_module_param_format(pn, damonctl_module_param_value(mp, i), human,
						 sizeof(human)))
			human[0] = '\0';
		printf("  %-*s  %s%s%s%s%s\n", (int)w, safe_str(pn, b1, sizeof(b1)),
		       safe_str(damonctl_module_param_value(mp, i), b2, sizeof(b2)),
		       *human ? "  (" : "", human, *human ? ")" : "",
		       damonctl_module_param_writable(pn) ? "" : "  (read-only)");
	}
	return EXIT_OK;
}

struct writes {
	struct cli *cli;
	json_object *arr;
};

static void on_write(void *data, const char *module, const char *param, const char *value)
{
	struct writes *w = data;
	struct module_opts *mo = w->cli->opts;
	char b[256];

	if (w->arr) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "parameter", json_object_new_string(param));
		json_object_object_add(o, "value", json_object_new_string(value));
		json_object_array_add(w->arr, o);
		return;
	}
	printf("%s sys/module/%s/parameters/%s <= %s\n", mo->dry_run ? "would write" : "write",
	       module, param, safe_str(value, b, sizeof(b)));
}

/* Enabling while DAMON is held: another module enabled or a sysfs kdamond running. */
static int check_exclusive(struct cli *cli, const char *name, bool *held)
{
	struct module_opts *mo = cli->opts;
	unsigned int idx[MAX_KDAMONDS], nr, i;
	int pids[MAX_KDAMONDS];
	const char *other;

	nr = running_kdamonds(cli, idx, pids);
	if (nr) {
		warnx_("%s: %s and the sysfs interface exclude each other, and kdamond %u "
		       "(pid %d) is running%s", cli->cmd_name, name, idx[0], pids[0],
		       mo->force ? "; enabling anyway (--force)" :
		       ": stop it first, or use --force to try anyway");
		if (!mo->force)
			return EXIT_BUSY;
		*held = true;
	}
	for (i = 0; (other = damonctl_module_name(i)); i++) {
		if (!strcmp(other, name) || damonctl_module_enabled(cli->ctx, other, NULL) != 1)
			continue;
		warnx_("%s: %s is enabled and holds DAMON exclusively%s", cli->cmd_name,
		       other, mo->force ? "; enabling anyway (--force)" :
		       ": disable it first, or use --force to try anyway");
		if (!mo->force)
			return EXIT_BUSY;
		*held = true;
	}
	return 0;
}

/* After enable or disable: did the module do it? An exit code, and its kdamond's pid. */
static int settle(struct cli *cli, const char *name, bool enable, bool held, int *pid)
{
	int r = damonctl_module_settle(cli->ctx, name, enable, MODULE_SETTLE_MS, pid);

	if (r == -ECANCELED) {
		warnx_("%s: the kernel turned %s back %s%s", cli->cmd_name, name,
		       enable ? "off: it could not start DAMON" : "on",
		       enable ? (held ? " while something else holds it (above)" :
				 " (a bad parameter? see the kernel log)") : "");
		return enable && held ? EXIT_BUSY : EXIT_FAIL;
	}
	if (r == -ETIMEDOUT) {
		warnx_("%s: %s reads %s, but its kdamond has not %s within %d s", cli->cmd_name,
		       name, enable ? "enabled" : "disabled", enable ? "started" : "stopped",
		       MODULE_SETTLE_MS / 1000);
		return EXIT_FAIL;
	}
	if (r)
		return lib_error(cli, r, "reading back %s's state", name);
	return EXIT_OK;
}

/* @enable: 1 or 0 when the writes enable or disable the module (its state is confirmed and
 * reported), -1 otherwise; @held: something held DAMON when enabling (--force). */
static int do_writes(struct cli *cli, const char *name, const char *const *names,
		     const char *const *values, size_t n, int enable, bool held)
{
	struct module_opts *mo = cli->opts;
	struct writes w = { cli, NULL };
	json_object *doc = NULL;
	int r, pid = -1;

	if (cli->json) {
		doc = json_doc_new();
		w.arr = json_object_new_array();
	}
	r = damonctl_module_write(cli->ctx, name, names, values, n,
				  mo->dry_run ? DAMONCTL_MODULE_DRY_RUN : 0, on_write, &w);
	if (r) {
		json_object_put(doc);
		json_object_put(w.arr);
		return lib_error(cli, r, "writing the parameters of %s", name);
	}
	if (enable >= 0 && !mo->dry_run) {
		r = settle(cli, name, enable, held, &pid);
		if (r) {
			json_object_put(doc);
			json_object_put(w.arr);
			return r;
		}
		if (!doc && enable && pid > 0)
			printf("%s runs: its kdamond's pid is %d\n", name, pid);
	}
	if (!doc)
		return EXIT_OK;
	json_object_object_add(doc, "module", json_object_new_string(name));
	json_object_object_add(doc, "dry_run", json_object_new_boolean(mo->dry_run));
	json_object_object_add(doc, "writes", w.arr);
	if (enable >= 0)
		json_object_object_add(doc, "kdamond_pid", pid > 0 ? json_object_new_int(pid) : NULL);
	return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
}

#define MAX_SETS 64

static int set_params(struct cli *cli, const char *name, const struct damonctl_module_params *mp,
		      int argc, char **argv)
{
	static char vals[MAX_SETS][64], keys[MAX_SETS][64];
	const char *names[MAX_SETS], *values[MAX_SETS];
	char b1[128], b2[128];
	int i, r;

	if (!argc)
		return usage_error(cli, "set: expected PARAM=VALUE...");
	if (argc > MAX_SETS)
		return usage_error(cli, "set: at most %d parameters at once", MAX_SETS);
	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t len = eq ? (size_t)(eq - argv[i]) : 0;

		if (!eq || !len || len >= sizeof(keys[i]))
			return usage_error(cli, "set: '%s': expected PARAM=VALUE",
					   safe_str(argv[i], b1, sizeof(b1)));
		memcpy(keys[i], argv[i], len);
		keys[i][len] = '\0';
		safe_str(keys[i], b1, sizeof(b1));
		safe_str(eq + 1, b2, sizeof(b2));
		if (!damonctl_module_param_get(mp, keys[i]))
			return usage_error(cli, "set: %s has no parameter '%s' (see 'damonc module "
					   "%s')", name, b1, name);
		if (!strcmp(keys[i], "enabled") || !strcmp(keys[i], "commit_inputs"))
			return usage_error(cli, "set: %s: use 'damonc module %s enable' or "
					   "'disable'%s", b1, name, keys[i][0] == 'c' ?
					   " (set commits by itself when the module runs)" : "");
		r = damonctl_module_param_convert(keys[i], eq + 1, vals[i], sizeof(vals[i]));
		if (r == -EACCES)
			return usage_error(cli, "set: %s of %s is a result the module reports, not a "
					   "setting", b1, name);
		if (r)
			return usage_error(cli, "set: %s=%s: not a valid value for %s", b1, b2, b1);
		names[i] = keys[i];
		values[i] = vals[i];
	}
	return do_writes(cli, name, names, values, (size_t)argc, -1, false);
}

static int module_run(struct cli *cli, int argc, char **argv)
{
	struct module_opts *mo = cli->opts;
	struct damonctl_module_params *mp = NULL;
	const char *name, *on[] = { "enabled" }, *yes[] = { "Y" }, *no[] = { "N" };
	char b[128];
	int r;

	/* damonc's options end at the first word; these may come after the words too */
	for (int i = 0, j = 0, n = argc; i < n; i++) {
		if (!strcmp(argv[i], "--dry-run"))
			mo->dry_run = true;
		else if (!strcmp(argv[i], "--force"))
			mo->force = true;
		else if (!strcmp(argv[i], "--json") || !strncmp(argv[i], "--json=", 7)) {
			if (json_set_style(argv[i][6] ? argv[i] + 7 : NULL))
				return usage_error(cli, "%s: expected --json, --json=pretty or "
						   "--json=compact", safe_str(argv[i], b, sizeof(b)));
			cli->json = true;
		}
		else
			argv[j++] = argv[i];
		if (i == n - 1)
			argc = j;
	}
	if (!argc)
		return list_modules(cli);
	r = read_module(cli, argv[0], &name, &mp);
	if (r)
		return r;
	if (argc == 1) {
		r = show_module(cli, name, mp);
	} else if (!strcmp(argv[1], "enable") || !strcmp(argv[1], "disable")) {
		bool enable = argv[1][0] == 'e', held = false;

		if (argc > 2)
			r = usage_error(cli, "unexpected argument '%s'",
					safe_str(argv[2], b, sizeof(b)));
		else if (!enable || !(r = check_exclusive(cli, name, &held)))
			r = do_writes(cli, name, on, enable ? yes : no, 1, enable, held);
	} else if (!strcmp(argv[1], "set")) {
		r = set_params(cli, name, mp, argc - 2, argv + 2);
	} else {
		r = usage_error(cli, "unknown action '%s': expected enable, disable or set",
				safe_str(argv[1], b, sizeof(b)));
	}
	damonctl_module_params_free(mp);
	return r;
}

const struct cmd cmd_module = {
	.name = "module",
	.summary = "show, enable, disable and set the DAMON modules (reclaim, lru_sort, stat)",
	.usage = "[NAME [enable|disable|set PARAM=VALUE...]] [--dry-run] [--force] [--json]",
	.opts = module_opts_tbl,
	.run = module_run,
	.opts_size = sizeof(struct module_opts),
	.opts_init = &(const struct module_opts){ 0 },
};
