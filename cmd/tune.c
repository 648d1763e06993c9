// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc tune: change a running kdamond online. The new values are staged and then applied:
 * goal-only changes with commit_schemes_quota_goals (which re-reads just the goals; damo's
 * `tune --quota_goals_only` commits without staging the new values first), anything else
 * with commit. Afterwards it shows what changed, before -> after, read back from the tree.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "fallback.h"
#include "journal.h"
#include "spec.h"
#include "started.h"

struct tune_opts {
	struct spec_line sl;	/* one scheme: sl.sp[0] */
	int kdamond;	/* -1: the only damonc-started one */
	int scheme;	/* -1: the only scheme */
	bool dry_run;
	int scope_pid;		/* -1: not given (a goal keeps its scope; a new one: system) */
	bool no_fallback;
	int add[16], remove[16];	/* --add-target, --remove-target */
	unsigned int nr_add, nr_remove;
	bool add_scheme;	/* the scheme options make a new scheme */
	int remove_scheme;	/* -1: none */
};

enum { O_KDAMOND = 300, O_SCHEME, O_DRY_RUN, O_GOAL_SCOPE, O_NO_FALLBACK, O_ADD_TARGET,
       O_REMOVE_TARGET, O_ADD_SCHEME, O_REMOVE_SCHEME };

#define TO(kind, member) OPT_TO(kind, struct tune_opts, member)
static const struct opt tune_own_opts[] = {
	{ "kdamond", O_KDAMOND, OV_INT, "N",
	  "the kdamond to tune (default: the one damonc started)", TO(OD_INT, kdamond),
	  .max = 1u << 20 },
	{ "scheme", O_SCHEME, OV_INT, "S", "the scheme to tune (default: the only one)",
	  TO(OD_INT, scheme), .max = 1u << 20 },
	{ "dry-run", O_DRY_RUN, OV_NONE, NULL, "show the changes and the writes, make none",
	  TO(OD_FLAG, dry_run) },
	{ "goal-scope", O_GOAL_SCOPE, OV_STRING, "system|pid",
	  "a hugepage_mem_bp goal tuned in measures system-wide (default) or over the targets",
	  TO(OD_CHOICE, scope_pid) },
	{ "no-fallback", O_NO_FALLBACK, OV_NONE, NULL,
	  "fail (exit 3) rather than bring in the damonc agent for what the kernel lacks",
	  TO(OD_FLAG, no_fallback) },
	{ "add-target", O_ADD_TARGET, OV_PID, "PID",
	  "monitor process PID too, from now on (repeatable)" },
	{ "remove-target", O_REMOVE_TARGET, OV_PID, "PID",
	  "stop monitoring process PID (repeatable)" },
	{ "add-scheme", O_ADD_SCHEME, OV_NONE, NULL,
	  "the scheme options make a new scheme, added last (--action needed)",
	  TO(OD_FLAG, add_scheme) },
	{ "remove-scheme", O_REMOVE_SCHEME, OV_INT, "S",
	  "remove scheme S (the later ones move down a place)" },
	{ 0 },
};
#undef TO

static struct opt tune_opts_tbl[64];

static void tune_opts_init(void)
{
	const struct opt *tables[] = { tune_own_opts, spec_context_opts, spec_scheme_opts };
	/* a running context keeps its operations set and address unit (the unit scales every
	 * region it has) */
	static const char *const skip[] = { "ops", "addr-unit", NULL };

	opts_merge(tune_opts_tbl, 64, skip, tables, 3);
}

static int tune_parse(struct cli *cli, int key, const char *arg)
{
	struct tune_opts *tu = cli->opts;
	uint64_t v;
	int r;

	switch (key) {
	case O_REMOVE_SCHEME:
		if (tu->remove_scheme >= 0)
			return usage_error(cli, "--remove-scheme: one scheme per tune");
		if (parse_uint_opt(cli, "remove-scheme", arg, 1u << 20, &v))
			return EXIT_USAGE;
		tu->remove_scheme = (int)v;
		return 0;
	case O_ADD_TARGET:
	case O_REMOVE_TARGET: {
		bool add = key == O_ADD_TARGET;
		int *list = add ? tu->add : tu->remove;
		unsigned int *nr = add ? &tu->nr_add : &tu->nr_remove;
		const char *name = add ? "add-target" : "remove-target";

		if (*nr >= 16)
			return usage_error(cli, "--%s: at most 16", name);
		if (parse_uint_opt(cli, name, arg, INT32_MAX, &v))
			return EXIT_USAGE;
		if (!v)
			return usage_error(cli, "--%s '%s': expected a process id", name, arg);
		list[(*nr)++] = (int)v;
		return 0;
	}
	}
	r = spec_line_parse(cli, &tu->sl, key, arg);
	return r == 1 ? 0 : r ? r : EXIT_USAGE;
}

struct change {
	char path[256];
	char before[64], after[64];
};

struct changes {
	struct change c[128];
	unsigned int nr;
};

static int collect(void *data, const char *path, const char *old, const char *new)
{
	struct changes *ch = data;

	if (ch->nr < 128) {
		struct change *c = &ch->c[ch->nr++];

		snprintf(c->path, sizeof(c->path), "%s", path);
		snprintf(c->before, sizeof(c->before), "%s", old ? old : "-");
		snprintf(c->after, sizeof(c->after), "%s", new ? new : "-");
	}
	return 0;
}

/* Pick the kdamond: given, or the only running one damonc started. */
static int pick_kdamond(struct cli *cli, const struct damonctl_tree *t,
			const struct started *started)
{
	struct tune_opts *tu = cli->opts;
	struct damonctl_kdamond *k;
	unsigned int i, n = 0, last = 0;

	if (tu->kdamond >= 0) {
		if ((unsigned int)tu->kdamond < damonctl_tree_nr_kdamonds(t))
			return tu->kdamond;
		usage_error(cli, "--kdamond %d: there are %u kdamonds", tu->kdamond,
			    damonctl_tree_nr_kdamonds(t));
		return -1;
	}
	damonctl_for_each_kdamond(t, k, i) {
		if (started_owns(started, k) &&
		    !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on")) {
			n++;
			last = i;
		}
	}
	if (n == 1)
		return (int)last;
	if (!n) {
		usage_error(cli, "no running kdamond started by damonc: name one with --kdamond N");
		return -1;
	}
	fprintf(stderr, "damonc: tune: damonc runs %u kdamonds; choose one with --kdamond:", n);
	damonctl_for_each_kdamond(t, k, i)
		if (started_owns(started, k) &&
		    !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on"))
			fprintf(stderr, " %u", i);
	fprintf(stderr, "\n");
	return -1;
}

static bool has_native_goal(const struct damonctl_scheme *s)
{
	struct damonctl_goal *g;
	unsigned int i;

	damonctl_for_each_goal(s, g, i)
		if (!strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC), "hugepage_mem_bp"))
			return true;
	return false;
}

/* Goals the agent stands in for: --goal-bp moves their target in the plan (libdamonctl's
 * damonctl_fallbacks_set_goal), not the metric. */
static bool retarget_fallbacks(const struct tune_opts *tu, struct started_entry *e,
			       unsigned int scheme, struct damonctl_context *c, struct spec *sp)
{
	struct damonctl_fallbacks *l;
	bool changed = false;
	unsigned int g;

	if (!e || !e->fbs.nr || !(l = fallback_to_lib(&e->fbs)))
		return false;
	for (g = 0; g < sp->nr_goals; g++) {
		if (strcmp(sp->goals[g].metric, "hugepage_mem_bp"))
			continue;
		changed |= damonctl_fallbacks_set_goal(l, c, scheme, sp->goals[g].target,
						       tu->scope_pid) > 0;
		if (changed && !has_native_goal(damonctl_context_scheme(c, scheme))) {
			/* consumed: the kernel has no hugepage_mem_bp goal to set */
			memmove(&sp->goals[g], &sp->goals[g + 1],
				(sp->nr_goals - g - 1) * sizeof(sp->goals[0]));
			sp->nr_goals--;
			g--;
		}
	}
	if (changed)
		fallback_from_lib(l, &e->fbs);
	damonctl_fallbacks_free(l);
	return changed;
}

/* The writes a tune would make, and the command after them (@cmd NULL: none). */
static int print_dry_run(struct cli *cli, int ki, const struct damonctl_plan *plan,
			 const char *cmd)
{
	json_object *doc = cli->json ? json_doc_new() : NULL, *writes = NULL;
	char state[64];
	size_t w;

	snprintf(state, sizeof(state), "kdamonds/%d/state", ki);
	if (doc) {
		writes = json_object_new_array();
		json_object_object_add(doc, "kdamond", json_object_new_int(ki));
		json_object_object_add(doc, "dry_run", json_object_new_boolean(true));
	}
	for (w = 0; w <= damonctl_plan_nr_writes(plan); w++) {
		const char *path = state, *value = cmd;

		if (w < damonctl_plan_nr_writes(plan))
			damonctl_plan_write(plan, w, &path, &value);
		else if (!cmd)
			break;
		if (doc) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "path", json_object_new_string(path));
			json_object_object_add(o, "value", json_object_new_string(value));
			json_object_array_add(writes, o);
		} else {
			printf("  %s <= %s\n", path, value);
		}
	}
	if (doc) {
		json_object_object_add(doc, "writes", writes);
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	printf("dry run: nothing was written\n");
	return EXIT_OK;
}

/* The scheme the options change: the one given, or the only one that is the user's (the
 * agent's observers and per-target copies left out). */
static int pick_scheme(struct cli *cli, const struct damonctl_context *c, int ki,
		       const struct started_entry *entry, unsigned int *si)
{
	struct tune_opts *tu = cli->opts;
	unsigned int nr = damonctl_context_nr_schemes(c), i, n = 0;

	if (tu->scheme >= 0) {
		if ((unsigned int)tu->scheme < nr) {
			*si = (unsigned int)tu->scheme;
			return 0;
		}
		return usage_error(cli, "--scheme %d: kdamond %d has %u schemes", tu->scheme, ki,
				   nr);
	}
	for (i = 0; i < nr; i++) {
		if (entry && fallback_agents_scheme(&entry->fbs, i))
			continue;
		*si = i;
		n++;
	}
	if (n == 1)
		return 0;
	return usage_error(cli, "kdamond %d has %u schemes: choose one with --scheme (0 to %u)",
			   ki, n, nr ? nr - 1 : 0);
}

/* Apply the scheme options to the chosen scheme, and to the agent's per-target copies of
 * it, which follow their original. */
static int tune_scheme(struct cli *cli, struct damonctl_context *c, int ki,
		       struct started_entry *entry, const struct damonctl_features *f,
		       bool *fb_changed)
{
	struct tune_opts *tu = cli->opts;
	uint64_t sample = damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US);
	uint64_t aggr = damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US);
	struct spec *sp = &tu->sl.sp[0];
	unsigned int si = 0, i;
	int r = pick_scheme(cli, c, ki, entry, &si);

	if (r)
		return r;
	*fb_changed = retarget_fallbacks(tu, entry, si, c, sp);
	r = spec_apply_scheme(cli, sp, damonctl_context_scheme(c, si), sample, aggr, f, false);
	for (i = 0; !r && entry && i < entry->fbs.nr; i++) {
		const struct damonctl_fallback *fb = &entry->fbs.fb[i];

		if (fb->kind == DAMONCTL_FALLBACK_COLLAPSE && fb->tmpl == si && fb->scheme != si)
			r = spec_apply_scheme(cli, sp, damonctl_context_scheme(c, fb->scheme),
					      sample, aggr, f, false);
	}
	if (!r && entry)
		fallback_refresh(&entry->fbs, damonctl_context_kdamond(c));
	return r;
}

/*
 * --remove-target and --add-target on @kw, a copy of the running kdamond, by libdamonctl's
 * retarget transaction (damonctl_kdamond_retarget), the one the agent follows children with:
 * the processes checked as start checks its targets; where the kernel has obsolete_target
 * (6.19) a live target removed is marked, and the commit drops it; without, the targets after
 * it move down one place and take its slot (@moved: their monitoring starts over); the
 * agent's collapse budgets follow their targets. Targets added go last. @entry, damonc's
 * record of the kdamond, follows.
 */
static int tune_targets(struct cli *cli, struct damonctl_kdamond *kw,
			const struct damonctl_features *f, struct started_entry *entry, bool *moved)
{
	struct tune_opts *tu = cli->opts;
	struct damonctl_fallbacks *l = entry ? fallback_to_lib(&entry->fbs) : NULL;
	char why[1024];
	struct damonctl_retarget rt = { .sz = sizeof(rt), .add = tu->add, .nr_add = tu->nr_add,
					.remove = tu->remove, .nr_remove = tu->nr_remove,
					.fbs = l, .nowhere = STARTED_TARGET_NOWHERE, .why = why,
					.why_size = sizeof(why) };
	struct damonctl_context *c = damonctl_kdamond_context(kw, 0);
	unsigned int i, how = 0;
	int r = entry && !l ? -ENOMEM : damonctl_kdamond_retarget(cli->ctx, kw, f, &rt, &how);

	if (!r && l)
		fallback_from_lib(l, &entry->fbs);
	damonctl_fallbacks_free(l);
	if (r == -ENOMEM)
		return lib_error(cli, r, "changing the targets");
	if (r) {
		/* which option asked for it: a process added, or a target leaving */
		usage_error(cli, "%s: %s", r == -ENOENT || r == -EBUSY ? "--remove-target" :
			    "--add-target", why);
		return r == -EOPNOTSUPP && strstr(why, "Linux") ? EXIT_UNSUPPORTED : EXIT_USAGE;
	}
	*moved |= how & DAMONCTL_TARGETS_MOVED;
	if (entry) {
		entry->nr_targets = 0;
		for (i = 0; i < damonctl_context_nr_targets(c) &&
			    entry->nr_targets < STARTED_MAX_TARGETS; i++) {
			const struct damonctl_target *t = damonctl_context_target(c, i);

			if (!damonctl_target_get(t, DAMONCTL_TARGET_OBSOLETE))
				entry->targets[entry->nr_targets++] =
					(int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID);
		}
	}
	return 0;
}

/*
 * --remove-scheme: the kernel pairs the schemes it runs with the files' by index, so the
 * later ones move down a place, each into the slot before (whose stats and quota state the
 * kernel keeps). Refused where the agent or a recording names schemes by index.
 */
static int remove_scheme(struct cli *cli, int ki, struct damonctl_context *c,
			 const struct started_entry *entry)
{
	struct tune_opts *tu = cli->opts;
	unsigned int si = (unsigned int)tu->remove_scheme, i;
	char note[64], path[4096];

	if (si >= damonctl_context_nr_schemes(c))
		return usage_error(cli, "--remove-scheme %u: kdamond %d has %u schemes", si, ki,
				   damonctl_context_nr_schemes(c));
	for (i = 0; entry && i < entry->fbs.nr; i++) {
		const struct damonctl_fallback *fb = &entry->fbs.fb[i];

		if (fb->scheme >= si || (fb->kind == DAMONCTL_FALLBACK_COLLAPSE &&
					 fb->tmpl >= si)) {
			usage_error(cli, "--remove-scheme %u: the damonc agent serves scheme %u of "
				    "kdamond %d by its index%s; stop and start it with the schemes "
				    "wanted", si, fb->scheme, ki,
				    fb->scheme == si || fb->tmpl == si ? "" : ", which would move");
			return EXIT_UNSUPPORTED;
		}
		/* the stat scheme it reads regions of, added after the caller's */
		if (fb->kind == DAMONCTL_FALLBACK_COLLAPSE && fb->observer >= si) {
			usage_error(cli, "--remove-scheme %u: the damonc agent serves scheme %u of "
				    "kdamond %d through the regions of scheme %u (a stat scheme it "
				    "added), by its index, which would move; stop and start it with "
				    "the schemes wanted", si, fb->scheme, ki, fb->observer);
			return EXIT_UNSUPPORTED;
		}
	}
	/* a live recorder's note (those of dead ones went with recover_leftovers) */
	snprintf(note, sizeof(note), "capture-%d.json", ki);
	if (run_path(cli->ctx, note, path, sizeof(path)) >= 0 &&
	    !access(path, F_OK)) {
		warnx_("tune: --remove-scheme %u: damonc record is capturing kdamond %d through a "
		       "scheme of its own, found by index: try again once it ends", si, ki);
		return EXIT_BUSY;
	}
	return damonctl_context_remove_scheme(c, si) ?
	       lib_error(cli, -ENOMEM, "removing scheme %u", si) : 0;
}

/* --add-scheme: the scheme options given, on a new scheme with damonc's defaults. */
static int add_scheme(struct cli *cli, struct damonctl_context *c,
		      const struct damonctl_features *f)
{
	struct tune_opts *tu = cli->opts;
	struct damonctl_scheme *s;

	if (!tu->sl.sp[0].action)
		return usage_error(cli, "--add-scheme: which action? --action collapse, pageout, "
				   "stat, ...");
	s = damonctl_context_add_scheme(c);
	if (!s)
		return lib_error(cli, -ENOMEM, "adding a scheme");
	return spec_apply_scheme(cli, &tu->sl.sp[0], s,
				 damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US),
				 damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), f, true);
}

/* Requests that cannot be made, said before anything is read. 0 or an exit code. */
static int check_request(struct cli *cli, int argc, char **argv)
{
	struct tune_opts *tu = cli->opts;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (!spec_any_scheme(&tu->sl.sp[0]) && !spec_any_context(&tu->sl.sp[0]) && !tu->nr_add &&
	    !tu->nr_remove && !tu->add_scheme && tu->remove_scheme < 0)
		return usage_error(cli, "nothing to change: give at least one setting, e.g. "
				   "--goal-bp 800 (see 'damonc tune --help')");
	if (tu->add_scheme && tu->scheme >= 0)
		return usage_error(cli, "--add-scheme makes a new scheme: --scheme %d names an "
				   "existing one", tu->scheme);
	if (tu->remove_scheme >= 0 && !tu->add_scheme && spec_any_scheme(&tu->sl.sp[0]))
		return usage_error(cli, "--remove-scheme %d: the scheme options would apply to "
				   "no scheme (tune the others in another call, or give "
				   "--add-scheme for a new one)", tu->remove_scheme);
	return 0;
}

/* The options, applied to @kw (a copy of running kdamond @ki) and its context @c: context
 * settings, targets, a scheme removed, added or tuned. 0 or an exit code. */
static int apply_changes(struct cli *cli, int ki, struct damonctl_kdamond *kw,
			 struct damonctl_context *c, const struct damonctl_features *f,
			 struct started_entry *entry, bool *fb_changed, bool *moved)
{
	struct tune_opts *tu = cli->opts;
	int r = spec_apply_context(cli, &tu->sl.sp[0], c, f);

	if (r)
		return r;
	if (tu->sl.sp[0].has_refresh)
		damonctl_kdamond_set(kw, DAMONCTL_KDAMOND_REFRESH_MS, tu->sl.sp[0].refresh_ms);
	if (tu->nr_add || tu->nr_remove) {
		r = tune_targets(cli, kw, f, entry, moved);
		if (r)
			return r;
		*fb_changed |= entry != NULL;	/* damonc's record names the targets */
	}
	if (tu->remove_scheme >= 0) {
		r = remove_scheme(cli, ki, c, entry);
		if (r)
			return r;
	}
	if (tu->add_scheme)
		return add_scheme(cli, c, f);
	if (spec_any_scheme(&tu->sl.sp[0]))
		return tune_scheme(cli, c, ki, entry, f, fb_changed);
	return 0;
}

/* What this kernel cannot do alone (a hugepage_mem_bp goal tuned in, say) gets the agent, as
 * `start` would have planned it. 0 or an exit code. */
static int plan_agent(struct cli *cli, int ki, struct damonctl_kdamond *kw,
		      const struct damonctl_features *f, struct started_entry *entry,
		      bool *fb_changed, bool *agent_added)
{
	struct tune_opts *tu = cli->opts;
	struct fallbacks fbs = entry ? entry->fbs : (struct fallbacks){ 0 };
	unsigned int before = fbs.nr;
	char why[1024];
	int r;

	r = fallback_plan(cli->ctx, kw, f, tu->scope_pid == 1, &fbs, why, sizeof(why));
	if (!r)
		r = fallback_check_one_scheme(&fbs, why, sizeof(why));
	if (!r && fbs.nr > before && !entry) {
		r = -EOPNOTSUPP;
		snprintf(why, sizeof(why), "kdamond %d was not started by damonc, and what it is "
			 "asked needs the damonc agent, which serves damonc's kdamonds only: %s",
			 ki, fbs.fb[before].kind == DAMONCTL_FALLBACK_COLLAPSE ?
			 "a collapse budget kept in huge pages" :
			 "a hugepage_mem_bp goal fed as user_input");
	}
	if (r) {
		usage_error(cli, "%s", why);
		return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_USAGE;
	}
	if (fbs.nr > before) {
		entry->fbs = fbs;
		*fb_changed = *agent_added = true;
	}
	return 0;
}

static void print_unchanged(struct cli *cli, int ki)
{
	if (cli->json) {
		json_object *doc = json_doc_new();

		json_object_object_add(doc, "kdamond", json_object_new_int(ki));
		json_object_object_add(doc, "changes", json_object_new_array());
		json_doc_print(doc);
	} else {
		printf("kdamond %d: nothing changes\n", ki);
	}
}

/* What the kernel has now that it had not (@ch, read back), how it was committed, and the
 * agent's goals when they changed (@agent: damonc's record of the kdamond, else NULL). */
static void print_result(struct cli *cli, int ki, const struct changes *ch,
			 enum damonctl_cmd cmd, bool moved, const struct started_entry *agent)
{
	unsigned int i;

	if (cli->json) {
		json_object *doc = json_doc_new(), *arr = json_object_new_array();

		json_object_object_add(doc, "kdamond", json_object_new_int(ki));
		json_object_object_add(doc, "committed", json_object_new_string(
			ch->nr ? damonctl_cmd_name(cmd) : "none"));
		if (cli->staging)
			json_object_object_add(doc, "staged", json_object_new_boolean(true));
		for (i = 0; i < ch->nr; i++) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "path", json_object_new_string(ch->c[i].path));
			json_object_object_add(o, "before", json_object_new_string(ch->c[i].before));
			json_object_object_add(o, "after", json_object_new_string(ch->c[i].after));
			json_object_array_add(arr, o);
		}
		json_object_object_add(doc, "changes", arr);
		json_doc_print(doc);
		return;
	}
	printf("kdamond %d: %s%s\n", ki, ch->nr ? damonctl_cmd_name(cmd) : "agent goal updated",
	       cli->staging ? " staged (the batch commits it at its end)" : "");
	for (i = 0; i < ch->nr; i++)
		printf("  %s: %s -> %s\n", ch->c[i].path, ch->c[i].before, ch->c[i].after);
	if (moved)
		printf("  note: this kernel has no obsolete_target (6.19): the targets after the one "
		       "removed moved down a place, and their monitoring starts over\n");
	for (i = 0; agent && i < agent->fbs.nr; i++)
		printf("  agent: %s goal %llu bp\n", agent->fbs.fb[i].kind == DAMONCTL_FALLBACK_COLLAPSE ?
		       "collapse" : "hugepage_mem_bp",
		       (unsigned long long)agent->fbs.fb[i].target_bp);
}

/* Stages, commits, and puts the staged files back if anything fails; where targets were
 * marked obsolete, the library stages the files without them after the commit. 0 or an exit
 * code. */
static int commit(struct cli *cli, int ki, const struct damonctl_kdamond *kw,
		  const struct damonctl_kdamond *kh)
{
	enum damonctl_commit_how how = DAMONCTL_COMMIT_NOTHING;
	int r = damonctl_kdamond_commit(cli->ctx, kw, kh, 0, &how);

	if (r && how == DAMONCTL_COMMIT_ALL)
		return lib_error(cli, r, "kdamond %d dropped the targets removed, but staging its "
				 "files without them (a later commit would drop the targets now in "
				 "their places)", ki);
	if (r)
		return lib_error(cli, r, "tuning kdamond %d", ki);
	return 0;
}

/* One tune: what it read, the copy it changes, and what it found. */
struct tuning {
	struct damonctl_tree *have, *want;
	struct damonctl_kdamond *kw, *kh;
	struct damonctl_features *f;
	struct started started;
	struct started_entry *entry;	/* damonc's record of the kdamond, or NULL */
	struct changes ch;
	int ki, lock;
	bool fb_changed, agent_added, moved;
};

static void tuning_free(struct tuning *t)
{
	started_unlock(t->lock);
	started_free(&t->started);
	damonctl_features_free(t->f);
	damonctl_tree_free(t->want);
	damonctl_tree_free(t->have);
}

/* The tree, damonc's record of it, the running kdamond chosen and a copy of it to change
 * (under damonc's lock, unless a dry run). 0 or an exit code. */
static int tuning_read(struct cli *cli, struct tuning *t)
{
	struct tune_opts *tu = cli->opts;
	int r;

	t->lock = tu->dry_run ? -1 : started_lock(cli->ctx);
	if (t->lock >= 0)
		recover_leftovers(cli);	/* what a killed damonc left goes first */
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t->have);
	if (r)
		return lib_error(cli, r, "reading the DAMON tree");
	started_load(cli->ctx, &t->started);
	t->ki = pick_kdamond(cli, t->have, &t->started);
	if (t->ki < 0)
		return EXIT_USAGE;
	t->kh = damonctl_tree_kdamond(t->have, (unsigned int)t->ki);
	if (strcmp(damonctl_kdamond_get_str(t->kh, DAMONCTL_KDAMOND_STATE), "on"))
		return usage_error(cli, "kdamond %d is not running: nothing to tune online", t->ki);
	r = damonctl_features_from_tree(cli->ctx, t->have, &t->f);
	if (r)
		return lib_error(cli, r, "detecting features");
	t->want = damonctl_tree_dup(t->have);
	t->kw = t->want ? damonctl_tree_kdamond(t->want, (unsigned int)t->ki) : NULL;
	if (!t->kw || !damonctl_kdamond_context(t->kw, 0))
		return usage_error(cli, "kdamond %d has no context", t->ki);
	t->entry = started_owns(&t->started, t->kh) ?
		   started_find(&t->started, (unsigned int)t->ki) : NULL;
	return 0;
}

/* The options applied to the copy, the agent planned for what the kernel cannot do, the
 * result checked against this kernel. 0 or an exit code. */
static int tuning_change(struct cli *cli, struct tuning *t)
{
	struct tune_opts *tu = cli->opts;
	struct damonctl_context *c = damonctl_kdamond_context(t->kw, 0);
	char why[1024];
	int r = apply_changes(cli, t->ki, t->kw, c, t->f, t->entry, &t->fb_changed, &t->moved);

	if (!r && !tu->no_fallback)
		r = plan_agent(cli, t->ki, t->kw, t->f, t->entry, &t->fb_changed, &t->agent_added);
	if (r)
		return r;
	r = damonctl_kdamond_check(t->kw, t->f, why, sizeof(why));
	if (r) {
		usage_error(cli, "%s", why);
		return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_USAGE;
	}
	damonctl_kdamond_diff(t->kh, t->kw, 0, collect, &t->ch);
	return 0;
}

/* After the commit: damonc's record of the goals, the agent where the change needs it, and
 * what changed as read back from the kernel. An exit code. */
static int tuning_finish(struct cli *cli, struct tuning *t, enum damonctl_cmd cmd)
{
	struct damonctl_tree *after = NULL;
	int r;

	if (t->fb_changed) {
		r = started_save(cli->ctx, &t->started);
		if (r)
			warnx_("cannot record the new goal for the agent: %s", strerror(-r));
	}
	if (t->agent_added && !cli->staging &&
	    !(t->entry->server_pid && t->entry->server_pid != (int)getpid())) {
		started_unlock(t->lock);
		t->lock = -1;
		r = agent_ensure_running(cli);
		if (r)
			warnx_("what this change needs is the damonc agent's, and it could not be "
			       "started (%s)", strerror(-r));
	}
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &after);
	if (r)
		return lib_error(cli, r, "reading the tree back");
	t->ch.nr = 0;
	damonctl_kdamond_diff(t->kh, damonctl_tree_kdamond(after, (unsigned int)t->ki), 0, collect,
			      &t->ch);
	print_result(cli, t->ki, &t->ch, cmd, t->moved, t->fb_changed ? t->entry : NULL);
	damonctl_tree_free(after);
	return EXIT_OK;
}

static int tune_run(struct cli *cli, int argc, char **argv)
{
	struct tune_opts *tu = cli->opts;
	struct tuning t = { .lock = -1 };
	struct damonctl_plan *plan = NULL;
	enum damonctl_commit_how how;
	enum damonctl_cmd cmd;
	int r;

	r = check_request(cli, argc, argv);
	if (!r)
		r = tuning_read(cli, &t);
	if (!r)
		r = tuning_change(cli, &t);
	if (r)
		goto out;
	if (!t.ch.nr && !t.fb_changed) {
		print_unchanged(cli, t.ki);
		goto out;
	}
	r = damonctl_kdamond_commit_plan(cli->ctx, t.kw, t.kh, 0, &plan, &how);
	if (r) {
		r = lib_error(cli, r, "planning the sysfs writes");
		goto out;
	}
	cmd = how == DAMONCTL_COMMIT_GOALS ? DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS :
	      DAMONCTL_CMD_COMMIT;
	if (tu->dry_run)
		r = print_dry_run(cli, t.ki, plan, t.ch.nr ? damonctl_cmd_name(cmd) : NULL);
	else if (t.ch.nr)
		r = commit(cli, t.ki, t.kw, t.kh);
	if (!r && !tu->dry_run)
		r = tuning_finish(cli, &t, cmd);
out:
	damonctl_plan_free(plan);
	tuning_free(&t);
	return r;
}

const struct cmd cmd_tune = {
	.name = "tune",
	.summary = "change a running kdamond online (goals, quotas, pattern, action, filters, "
		   "schemes, targets)",
	.usage = "[--kdamond N] [--scheme S] SETTINGS...",
	.opts = tune_opts_tbl,
	.init = tune_opts_init,
	.opts_size = sizeof(struct tune_opts),
	.opts_init = &(const struct tune_opts){ .sl = { .max = 1 }, .kdamond = -1, .scheme = -1,
						 .scope_pid = -1, .remove_scheme = -1 },
	.parse = tune_parse,
	.run = tune_run,
};
