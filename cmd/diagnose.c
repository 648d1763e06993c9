// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc diagnose: what looks wrong with DAMON (damo's diagnose), read only. The checks are
 * the library's (damonctl_diagnose); this prints them with what they were run on: damonc's
 * and the kernel's versions, the kdamonds. Exit 0 when nothing is wrong, 1 when something
 * is (a warning or an error), so that a script can ask.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "color.h"
#include "agent_view.h"
#include "damonc.h"
#include "started.h"

static const char *const level_names[] = { "info", "warning", "error" };

struct out {
	json_object *arr;	/* --json */
	unsigned int nr;
};

static json_object *index_json(int i)
{
	return i < 0 ? NULL : json_object_new_int(i);
}

static void finding(void *data, enum damonctl_finding level, const char *code, int kdamond,
		    int scheme, const char *message)
{
	struct out *o = data;
	char safe[512];

	o->nr++;
	if (o->arr) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "level", json_object_new_string(level_names[level]));
		json_object_object_add(f, "code", json_object_new_string(code));
		json_object_object_add(f, "kdamond", index_json(kdamond));
		json_object_object_add(f, "scheme", index_json(scheme));
		json_object_object_add(f, "message", json_object_new_string(message));
		json_object_array_add(o->arr, f);
		return;
	}
	{
		static const enum color_role roles[] = {
			[DAMONCTL_FINDING_INFO] = CR_DIM, [DAMONCTL_FINDING_WARNING] = CR_WARN,
			[DAMONCTL_FINDING_ERROR] = CR_BAD,
		};

		printf("  %s%-7s%s  %s\n", color_start(roles[level]), level_names[level],
		       color_end(), safe_str(message, safe, sizeof(safe)));
	}
}

/* damonc's own: a running kdamond it started whose user-space part (fallbacks, following
 * children) nobody serves, because the agent died (kill -9, OOM) or was never started. */
static int agent_findings(struct cli *cli, const struct damonctl_tree *t, struct out *o)
{
	struct started st;
	unsigned int i;
	int serious = 0;

	if (started_load(cli->ctx, &st))
		return 0;
	for (i = 0; i < st.nr; i++) {
		const struct started_entry *e = &st.e[i];
		const struct damonctl_kdamond *k = e->kdamond < damonctl_tree_nr_kdamonds(t) ?
			damonctl_tree_kdamond(t, e->kdamond) : NULL;
		const char *state = k ? damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE) : "";
		char msg[256];
		int pid;

		if (e->foreign || !started_needs_agent(e) || strcmp(state ? state : "", "on") ||
		    agent_view_server(cli, e, &pid) != AGENT_NOBODY)
			continue;
		snprintf(msg, sizeof(msg), "kdamond %u: damonc started it with a part done in user "
			 "space (%s), but no damonc agent runs to do it: run 'damonc agent' (or "
			 "start damonc-agent.service)", e->kdamond,
			 e->fbs.nr ? "fallbacks for what the kernel lacks" : "following children");
		finding(o, DAMONCTL_FINDING_WARNING, "agent_not_running", (int)e->kdamond, -1, msg);
		serious = 1;
	}
	started_free(&st);
	return serious;
}

static int diagnose_run(struct cli *cli, int argc, char **argv)
{
	struct out o = { .arr = cli->json ? json_object_new_array() : NULL };
	struct damonctl_features *f = NULL;
	struct damonctl_kdamond *k;
	struct damonctl_tree *t;
	unsigned int i, running = 0;
	struct utsname u;
	char version[64] = "unknown";
	bool unreadable;
	int serious, r;

	if (argc) {
		json_object_put(o.arr);
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	}
	r = damonctl_tree_read(cli->ctx, &t);
	/* not root: DAMON's kdamonds cannot be read, what needs no root can be said */
	unreadable = r == -EACCES || r == -EPERM;
	if (unreadable)
		t = damonctl_tree_new();
	if ((r && !unreadable) || !t) {
		json_object_put(o.arr);
		return lib_error(cli, t ? r : -ENOMEM, "reading the DAMON tree");
	}
	damonctl_clear_error(cli->ctx);
	if (!damonctl_features_detect(cli->ctx, &f))
		damonctl_features_describe_version(f, version, sizeof(version));
	damonctl_features_free(f);
	damonctl_clear_error(cli->ctx);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	damonctl_for_each_kdamond(t, k, i) {
		const char *state = damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE);

		running += state && !strcmp(state, "on");
	}
	if (!o.arr && unreadable)
		printf("damonc %s on Linux %s; its kdamonds unknown\n", damonctl_version(),
		       u.release);
	else if (!o.arr)
		printf("damonc %s on Linux %s (DAMON looks like Linux %s); %u kdamond%s, %u "
		       "running\n", damonctl_version(), u.release, version,
		       damonctl_tree_nr_kdamonds(t), damonctl_tree_nr_kdamonds(t) == 1 ? "" : "s",
		       running);
	if (unreadable)
		finding(&o, DAMONCTL_FINDING_WARNING, "damon_unreadable", -1, -1,
			"DAMON's sysfs files need root (CAP_SYS_ADMIN): its kdamonds were not "
			"checked; what needs no root was (the DAMON modules)");
	serious = damonctl_diagnose(cli->ctx, t, finding, &o);
	if (serious < 0) {
		damonctl_tree_free(t);
		json_object_put(o.arr);
		return lib_error(cli, serious, "diagnosing DAMON");
	}
	serious += unreadable;
	serious |= agent_findings(cli, t, &o);
	if (o.arr) {
		json_object *doc = json_doc_new();

		json_object_object_add(doc, "damonc_version",
				       json_object_new_string(damonctl_version()));
		json_object_object_add(doc, "kernel_release", json_object_new_string(u.release));
		json_object_object_add(doc, "damon_version", json_object_new_string(version));
		json_object_object_add(doc, "kdamonds", unreadable ? NULL :
				       json_object_new_int((int)damonctl_tree_nr_kdamonds(t)));
		json_object_object_add(doc, "running", unreadable ? NULL :
				       json_object_new_int((int)running));
		json_object_object_add(doc, "findings", o.arr);
		if (json_doc_print(doc))
			serious = -1;
	} else if (!o.nr) {
		printf("  %snothing looks wrong%s\n", color_start(CR_GOOD), color_end());
	}
	damonctl_tree_free(t);
	return serious ? EXIT_FAIL : EXIT_OK;
}

const struct cmd cmd_diagnose = {
	.name = "diagnose",
	.summary = "what looks wrong with DAMON, read only (exit 1 when anything does)",
	.usage = "[--json]",
	.run = diagnose_run,
};
