// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc start: build a kdamond from options (or a JSON config, damonc's or damo's), check
 * it against what this kernel has, stage it, turn it on, and remember it as damonc's.
 *
 * Safety: the tree is read first and kept; if anything fails after the first write, the
 * tree is put back as it was. Another user's kdamond is never stopped or lost: damonc adds a
 * kdamond of its own (re-staging the others' configuration, which the kernel recreates on
 * any nr_kdamonds write) or reuses a stopped one it started earlier.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "fallback.h"
#include "journal.h"
#include "spec.h"
#include "start.h"
#include "started.h"
#include "status.h"



/* set while start_handoff_run starts a kdamond for another command (start.h) */
static struct start_handoff *handoff;

enum { O_PID = 300, O_REGIONS, O_DRY_RUN, O_FOREGROUND, O_GOAL_SCOPE, O_NO_FALLBACK,
       O_FOLLOW_CHILDREN, O_LEAVE_RUNNING, O_PROBE, O_NUMA_NODE };

const struct opt start_target_opts[] = {
	{ "pid", O_PID, OV_PID, "PID", "monitor process PID (repeatable)" },
	{ "regions", O_REGIONS, OV_REGION, "START-END[,START-END...]",
	  "monitor these address ranges (paddr: physical; vaddr: of the last --pid)" },
	{ "numa-node", O_NUMA_NODE, OV_INT, "N[,N...]",
	  "monitor the System RAM of NUMA node N (paddr; see 'damonc report pa-layout')" },
	{ 0 },
};

#define TO(kind, member) OPT_TO(kind, struct start_opts, member)
static const struct opt start_own_opts[] = {
	{ "config", 'c', OV_FILE, "FILE",
	  "start the kdamonds of a JSON config (damonc's or damo's; '-' reads stdin)",
	  TO(OD_STRING, config) },
	{ "dry-run", O_DRY_RUN, OV_NONE, NULL,
	  "print the configuration and the sysfs writes, and write nothing", TO(OD_FLAG, dry_run) },
	{ "foreground", O_FOREGROUND, OV_NONE, NULL,
	  "serve user-space fallbacks from this process instead of a background agent",
	  TO(OD_FLAG, foreground) },
	{ "goal-scope", O_GOAL_SCOPE, OV_STRING, "system|pid",
	  "measure an emulated hugepage_mem_bp goal system-wide (default) or over the targets",
	  TO(OD_CHOICE, scope_pid) },
	{ "no-fallback", O_NO_FALLBACK, OV_NONE, NULL,
	  "fail (exit 3) rather than emulate in user space what the kernel lacks",
	  TO(OD_FLAG, no_fallback) },
	{ "follow-children", O_FOLLOW_CHILDREN, OV_NONE, NULL,
	  "the damonc agent adds new children of the targets as targets, online",
	  TO(OD_FLAG, follow_children) },
	{ "leave-running", O_LEAVE_RUNNING, OV_NONE, NULL,
	  "with --foreground: on SIGTERM/SIGINT, leave the kdamond running",
	  TO(OD_FLAG, leave_running) },
	{ "probe", O_PROBE, OV_STRING, "FILTER[;FILTER...]|all",
	  "an access probe (7.2) counting accesses to what its filters pass: allow|reject:"
	  "[!]anon or allow|reject:[!]memcg:PATH (repeatable, at most 4)" },
	{ 0 },
};
#undef TO

static struct opt start_opts_tbl[64];

/* The command's options: its own, then the context's and the scheme's (spec.c). */
static void start_opts_init(void)
{
	const struct opt *tables[] = { start_target_opts, start_own_opts, spec_context_opts,
				       spec_scheme_opts };

	opts_merge(start_opts_tbl, 64, NULL, tables, 4);
}

static int parse_regions(struct cli *cli, const char *arg)
{
	struct start_opts *so = cli->opts;
	char buf[4096], *tok, *rest = buf;

	if (!*arg || strlen(arg) >= sizeof(buf))
		return usage_error(cli, "--regions '%s': expected START-END[,START-END...]", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	/* every item, empty ones too: '--regions ,' named no region, and meant all RAM */
	while ((tok = strsep(&rest, ","))) {
		char *dash = strchr(tok, '-');
		uint64_t s, e;

		if (!*tok)
			return usage_error(cli, "--regions '%s': an empty region (expected "
					   "START-END[,START-END...])", arg);
		if (so->nr_regions >= START_MAX_REGIONS)
			return usage_error(cli, "--regions: at most %d regions", START_MAX_REGIONS);
		if (!dash)
			return usage_error(cli, "--regions '%s': expected START-END", tok);
		*dash = '\0';
		if ((damonctl_parse_u64(tok, &s) && damonctl_parse_size(tok, &s)) ||
		    (damonctl_parse_u64(dash + 1, &e) && damonctl_parse_size(dash + 1, &e)))
			return usage_error(cli, "--regions '%s-%s': expected addresses", tok,
					   dash + 1);
		if (s >= e)
			return usage_error(cli, "--regions '%s-%s': START must be below END", tok,
					   dash + 1);
		so->regions[so->nr_regions][0] = s;
		so->regions[so->nr_regions][1] = e;
		so->nr_regions++;
		so->user_regions = true;
	}
	return 0;
}

static int parse_nodes(struct cli *cli, const char *arg)
{
	struct start_opts *so = cli->opts;
	char buf[256], *tok, *rest = buf;
	uint64_t n;

	if (!*arg || strlen(arg) >= sizeof(buf))
		return usage_error(cli, "--numa-node '%s': expected N[,N...]", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	while ((tok = strsep(&rest, ","))) {
		if (damonctl_parse_u64(tok, &n) || n > INT32_MAX)
			return usage_error(cli, "--numa-node '%s': '%s' is not a node number", arg,
					   tok);
		if (so->nr_nodes >= START_MAX_NODES)
			return usage_error(cli, "--numa-node: at most %d nodes", START_MAX_NODES);
		so->nodes[so->nr_nodes++] = (int)n;
	}
	return 0;
}

/* The ranges damonc finds for a paddr target: --numa-node's System RAM, or without, the
 * largest System RAM range; in the context's address units. Found once per start. */
static int paddr_regions(struct cli *cli, const struct spec *sp)
{
	struct start_opts *so = cli->opts;
	struct damonctl_pa_layout *l = NULL;
	size_t nr;
	int r = so->nr_nodes ? damonctl_pa_layout_read(cli->ctx, &l) : 0;

	if (r)
		return lib_error(cli, r, "--numa-node: reading the physical address layout");
	r = damonctl_paddr_regions(cli->ctx, l, so->nodes, so->nr_nodes,
				   sp->has_addr_unit ? sp->addr_unit : 1, so->regions,
				   START_MAX_REGIONS, &nr);
	damonctl_pa_layout_free(l);
	if (r && !so->nr_nodes)
		return usage_error(cli, "paddr needs --regions: cannot read the System RAM ranges "
				   "of /proc/iomem (%s)", strerror(-r));
	if (r == -ENODEV) {
		usage_error(cli, "--numa-node: this kernel shows no memory blocks "
			    "(/sys/devices/system/memory needs CONFIG_MEMORY_HOTPLUG), so no node's "
			    "ranges");
		return EXIT_UNSUPPORTED;
	}
	if (r == -ENOENT)
		return usage_error(cli, "--numa-node %d: no System RAM on that node (see 'damonc "
				   "report pa-layout')", so->nodes[nr]);
	if (r)
		return usage_error(cli, "--numa-node: more than %d ranges", START_MAX_REGIONS);
	so->nr_regions = (unsigned int)nr;
	so->regions_found = true;
	return 0;
}

static int start_parse(struct cli *cli, int key, const char *arg)
{
	struct start_opts *so = cli->opts;
	int r;

	switch (key) {
	case O_PID:
		if (so->nr_pids >= START_MAX_PIDS)
			return usage_error(cli, "--pid: at most %d processes", START_MAX_PIDS);
		return parse_pid_opt(cli, "pid", arg, &so->pids[so->nr_pids++]);
	case O_REGIONS:
		return parse_regions(cli, arg);
	case O_NUMA_NODE:
		return parse_nodes(cli, arg);
	case O_PROBE:
		if (so->nr_probes >= DAMONCTL_MAX_PROBES)
			return usage_error(cli, "--probe '%s': at most %d probes (the kernel's "
					   "DAMON_MAX_PROBES)", arg, DAMONCTL_MAX_PROBES);
		return spec_parse_probe(cli, arg, &so->probes[so->nr_probes++]);
	}
	r = spec_line_parse(cli, &so->sl, key, arg);
	return r == 1 ? 0 : r ? r : EXIT_USAGE;
}

/* What a started kdamond is for: the config, or the actions ("collapse+pageout"). */
static void start_label(const struct start_opts *so, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	if (so->config) {
		snprintf(buf, size, "%s", so->config);
		return;
	}
	for (i = 0; i < so->sl.nr && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%s", i ? "+" : "", so->sl.sp[i].action);

		if (w < 0)
			break;
		n += (size_t)w;
	}
}

/* Whether @pid runs (a kernel thread does too: the checks before writing say what it is). */
static bool pid_alive(struct damonctl_ctx *ctx, int pid)
{
	return damonctl_proc_alive(ctx, pid) != 0;
}

/* Fill kdamond @k (fresh) from the options. */
static int build_from_options(struct cli *cli, struct damonctl_kdamond *k,
			      const struct damonctl_features *f)
{
	struct start_opts *so = cli->opts;
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct spec *sp = &so->sl.sp[0];
	struct damonctl_target *t;
	const char *ops;
	unsigned int i;
	int r;

	if (!c)
		return usage_error(cli, "out of memory");
	if (!sp->ops && !so->nr_pids && (so->nr_regions || so->nr_nodes))
		sp->ops = "paddr";	/* regions without a process are physical */
	r = spec_apply_context(cli, sp, c, f);
	for (i = 0; !r && i < so->nr_probes; i++)
		r = spec_apply_probe(cli, &so->probes[i], c);
	if (r)
		return r;
	ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);
	if (sp->has_addr_unit && strcmp(ops, "paddr"))
		return usage_error(cli, "--addr-unit: only --ops paddr has an address unit (%s "
				   "addresses are bytes)", ops);
	if (so->nr_nodes && strcmp(ops, "paddr"))
		return usage_error(cli, "--numa-node monitors physical memory (paddr), not %s", ops);
	if (strcmp(ops, "paddr")) {
		if (!so->nr_pids)
			return usage_error(cli, "%s monitoring needs --pid PID (or '-- COMMAND')",
					   ops);
		if (!strcmp(ops, "fvaddr") && !so->nr_regions)
			return usage_error(cli, "fvaddr needs --regions");
		for (i = 0; i < so->nr_pids; i++) {
			if (!pid_alive(cli->ctx, so->pids[i]))
				return usage_error(cli, "--pid %d: no such process", so->pids[i]);
			if (so->pids[i] == (int)getpid())
				return usage_error(cli, "--pid %d: that is this damonc process, which "
						   "ends as soon as the kdamond runs", so->pids[i]);
			t = damonctl_context_add_target(c);
			if (!t)
				return usage_error(cli, "out of memory");
			damonctl_target_set_int(t, DAMONCTL_TARGET_PID, so->pids[i]);
		}
	} else {
		if (so->nr_pids)
			return usage_error(cli, "--pid does not go with --ops paddr (physical memory)");
		if (so->nr_nodes && so->user_regions)
			return usage_error(cli, "--numa-node and --regions: one of them");
		if (!damonctl_context_add_target(c))
			return usage_error(cli, "out of memory");
		if (!so->regions_found && (so->nr_nodes || !so->nr_regions)) {
			r = paddr_regions(cli, sp);
			if (r)
				return r;
		}
	}
	t = damonctl_context_target(c, damonctl_context_nr_targets(c) - 1);
	for (i = 0; i < so->nr_regions; i++)
		damonctl_target_add_region(t, so->regions[i][0], so->regions[i][1]);
	if (!sp->action)
		return usage_error(cli, "which action? --action collapse, pageout, stat, ... "
				   "(see 'damonc start --help')");
	/* one scheme per --action, in the order given */
	for (i = 0; i < so->sl.nr; i++) {
		struct damonctl_scheme *s = damonctl_context_add_scheme(c);

		if (!s)
			return usage_error(cli, "out of memory");
		r = spec_apply_scheme(cli, &so->sl.sp[i], s,
				      damonctl_context_get(c, DAMONCTL_CONTEXT_SAMPLE_US),
				      damonctl_context_get(c, DAMONCTL_CONTEXT_AGGR_US), f, true);
		if (r)
			return r;
	}
	/* let `status` and `report` see fresh stats without writing to `state` */
	if (sp->has_refresh)
		damonctl_kdamond_set(k, DAMONCTL_KDAMOND_REFRESH_MS, sp->refresh_ms);
	else if (damonctl_features_has(f, DAMONCTL_FEAT_REFRESH_MS) == DAMONCTL_YES)
		damonctl_kdamond_set(k, DAMONCTL_KDAMOND_REFRESH_MS, 1000);
	return 0;
}

/* Append the kdamonds of a JSON or YAML config to @want; *nr tells how many. */
static int build_from_config(struct cli *cli, struct damonctl_tree *want, unsigned int *nr)
{
	struct start_opts *so = cli->opts;
	char why[512], *text;
	unsigned int i;
	int r;

	/* read once: stdin cannot be read twice, and a probe makes us build twice */
	if (!so->config_tree) {
		r = damonctl_file_read(so->config, DAMONC_MAX_INPUT, &text, NULL);
		if (r)
			return input_error(cli, "-c", so->config, r);
		r = damonctl_config_parse(so->config, text, &so->config_tree, why, sizeof(why));
		free(text);
		if (r) {
			usage_error(cli, "-c %s: %s", so->config, why);
			return r == -ELIBACC ? EXIT_UNSUPPORTED : EXIT_USAGE;
		}
	}
	*nr = damonctl_tree_nr_kdamonds(so->config_tree);
	for (i = 0; i < *nr; i++)
		if (!damonctl_tree_add_kdamond_copy(want, damonctl_tree_kdamond(so->config_tree, i)))
			return usage_error(cli, "out of memory");
	if (!*nr)
		return usage_error(cli, "-c %s: the config has no kdamond", so->config);
	return 0;
}

static int print_dry_run(struct cli *cli, const struct damonctl_tree *want,
			 const struct damonctl_plan *plan, const unsigned int *idx,
			 unsigned int nr, const struct fallbacks *fbs)
{
	char desc[1024];
	unsigned int k;
	size_t i;

	fallback_describe(fbs, desc, sizeof(desc));
	if (cli->json) {
		char *text = damonctl_tree_to_json(want, DAMONCTL_JSON_CONFIG);
		json_object *tree = text ? json_tokener_parse(text) : NULL, *kd;
		json_object *doc = json_doc_new(), *arr = json_object_new_array();
		json_object *writes = json_object_new_array();

		free(text);
		if (!tree || !json_object_object_get_ex(tree, "kdamonds", &kd)) {
			json_object_put(tree);
			json_object_put(doc);
			return EXIT_FAIL;
		}
		for (k = 0; k < nr; k++) {
			json_object *o = json_object_get(json_object_array_get_idx(kd, idx[k]));

			json_object_object_add(o, "index", json_object_new_int((int)idx[k]));
			json_object_array_add(arr, o);
		}
		json_object_put(tree);
		json_object_object_add(doc, "kdamonds", arr);
		for (i = 0; i < damonctl_plan_nr_writes(plan); i++) {
			const char *path, *value;
			json_object *w = json_object_new_object();

			damonctl_plan_write(plan, i, &path, &value);
			json_object_object_add(w, "path", json_object_new_string(path));
			json_object_object_add(w, "value", json_object_new_string(value));
			json_object_array_add(writes, w);
		}
		for (k = 0; k < nr; k++) {
			json_object *w = json_object_new_object();
			char path[64];

			snprintf(path, sizeof(path), "kdamonds/%u/state", idx[k]);
			json_object_object_add(w, "path", json_object_new_string(path));
			json_object_object_add(w, "value", json_object_new_string("on"));
			json_object_array_add(writes, w);
		}
		json_object_object_add(doc, "writes", writes);
		json_object_object_add(doc, "fallbacks", fallback_to_json(fbs));
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	for (k = 0; k < nr; k++)
		status_print_kdamond(stdout, damonctl_tree_kdamond(want, idx[k]), "would start",
				     REGIONS_NO_RESULTS, NULL);
	if (fbs->nr)
		printf("user-space fallbacks: %s\n", desc);
	printf("\nsysfs writes (relative to %s%s):\n",
	       strcmp(damonctl_get_sysroot(cli->ctx), "/") ? damonctl_get_sysroot(cli->ctx) : "",
	       "/sys/kernel/mm/damon/admin");
	for (i = 0; i < damonctl_plan_nr_writes(plan); i++) {
		const char *path, *value;

		damonctl_plan_write(plan, i, &path, &value);
		printf("  %s <= %s\n", path, value);
	}
	for (k = 0; k < nr; k++)
		printf("  kdamonds/%u/state <= on\n", idx[k]);
	printf("dry run: nothing was written\n");
	return EXIT_OK;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* Wait for the launched command, passing on SIGINT/SIGTERM; its exit status is ours. */
static int wait_child(int child)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int status = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			return EXIT_FAIL;
		if (got_signal)
			kill(child, got_signal);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Is a kdamond running (the kernel cannot add one then)? Says which, and returns it. */
static bool any_running(const struct damonctl_tree *have, const struct started *started,
			unsigned int *which, bool *ours)
{
	struct damonctl_kdamond *k;
	unsigned int i;

	damonctl_for_each_kdamond(have, k, i) {
		if (!strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on")) {
			*which = i;
			*ours = started_owns(started, k);
			return true;
		}
	}
	return false;
}

/* @want: a copy of @have with the new kdamonds, whose indexes go to @idx. */
static int build(struct cli *cli, const struct damonctl_tree *have, const struct started *started,
		 const struct damonctl_features *f, struct damonctl_tree **want, unsigned int *idx,
		 unsigned int *nr)
{
	struct start_opts *so = cli->opts;
	struct damonctl_kdamond *k = NULL, *old;
	unsigned int i;
	int r;

	*want = damonctl_tree_dup(have);
	if (!*want)
		return usage_error(cli, "out of memory");
	if (so->config) {
		unsigned int before = damonctl_tree_nr_kdamonds(*want);

		r = build_from_config(cli, *want, nr);
		if (!r && *nr > 16)
			r = usage_error(cli, "-c %s: at most 16 kdamonds", so->config);
		for (i = 0; i < *nr && !r; i++)
			idx[i] = before + i;
		return r;
	}
	*nr = 1;
	/* reuse a stopped kdamond of damonc's own rather than growing the tree */
	damonctl_for_each_kdamond(have, old, i) {
		if (!strcmp(damonctl_kdamond_get_str(old, DAMONCTL_KDAMOND_STATE), "off") &&
		    started_owns(started, old)) {
			k = damonctl_tree_replace_kdamond(*want, i);
			idx[0] = i;
			break;
		}
	}
	if (!k) {
		k = damonctl_tree_add_kdamond(*want);
		idx[0] = damonctl_tree_nr_kdamonds(*want) - 1;
	}
	if (!k)
		return usage_error(cli, "out of memory");
	r = build_from_options(cli, k, f);
	return r || !handoff ? r : handoff->amend(cli, k, f, handoff->data);
}

/* The launched command never ran, or the command that started them is done: stop and
 * remove the kdamonds started for it, and forget them (or put back @old, the entry of the
 * one kdamond reused). 0 or an exit code. */
static int undo_launch(struct cli *cli, const struct damonctl_tree *have, const unsigned int *idx,
		       unsigned int nr, const struct started_entry *old)
{
	struct started st;
	unsigned int i;
	int lock = started_lock(cli->ctx), r, e = 0;

	if (lock < 0)
		return lib_error(cli, lock, "locking damonc's run directory");
	if (!started_load(cli->ctx, &st)) {
		for (i = 0; i < nr; i++) {
			r = damonctl_kdamond_cmd(cli->ctx, idx[i], DAMONCTL_CMD_OFF);
			if (r && r != -EPERM)
				e = lib_error(cli, r, "stopping kdamond %u", idx[i]);
			started_remove(&st, idx[i]);
		}
		if (old)
			started_add(&st, old);
		started_save(cli->ctx, &st);
		started_free(&st);
	}
	r = damonctl_tree_restore(cli->ctx, have);
	if (r)
		e = lib_error(cli, r, "removing kdamond %u", idx[0]);
	started_unlock(lock);
	return e;
}

/* The tree as it is, the features it shows and damonc's record of its kdamonds (pruned of
 * those gone). An exit code. */
static int read_state(struct cli *cli, struct damonctl_tree **have,
		      struct damonctl_features **f, struct started *started)
{
	int r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, have);

	if (r)
		return lib_error(cli, r, "reading the DAMON tree");
	r = damonctl_features_from_tree(cli->ctx, *have, f);
	if (r)
		return lib_error(cli, r, "detecting features");
	r = started_load(cli->ctx, started);
	if (r)
		warnx_("ignoring damonc's record of started kdamonds: %s", strerror(-r));
	started_prune(cli->ctx, started, *have);
	return 0;
}

/* What a dry run cannot tell. */
static void dry_run_notes(const struct damonctl_features *f, const struct fallbacks *fbs,
			  bool busy, unsigned int busy_idx)
{
	if (damonctl_features_has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) == DAMONCTL_UNKNOWN &&
	    fbs->nr)
		warnx_("note: whether this kernel has the hugepage_mem_bp metric (queued for "
		       "7.4) cannot be told without writing; these writes assume it has not, as "
		       "no released kernel has it");
	if (busy)
		warnx_("note: this would fail now: kdamond %u is running", busy_idx);
}

/* Options that cannot go together, said before anything is read or written. */
static int check_combinations(struct cli *cli, int argc, char **argv)
{
	struct start_opts *so = cli->opts;
	unsigned int i, g;
	int r;

	if (so->config && (spec_any_scheme(&so->sl.sp[0]) || spec_any_context(&so->sl.sp[0]) ||
			  so->nr_pids || so->nr_regions || so->nr_probes))
		return usage_error(cli, "-c takes the whole configuration: do not combine it with "
				   "target, context or scheme options");
	if (argc && (so->config || so->nr_pids))
		return usage_error(cli, "a command to launch ('-- %s') replaces --pid and -c",
				   argv[0]);
	if (argc && so->dry_run)
		return usage_error(cli, "--dry-run does not launch commands");
	if (cli->staging && (argc || so->foreground))
		return usage_error(cli, "%s: an --atomic batch stages its start lines and starts "
				   "them at its end, and cannot %s", argc ? argv[0] : "--foreground",
				   argc ? "launch a command" : "serve one in the foreground");
	if (argc) {
		r = damonctl_launch_find(argv[0], so->prog, sizeof(so->prog));
		if (r)
			return usage_error(cli, "cannot run '%s': %s", argv[0], strerror(-r));
	}
	if (so->leave_running && !so->foreground)
		return usage_error(cli, "--leave-running goes with --foreground (for the background "
				   "agent: 'damonc agent --leave-running')");
	if (so->follow_children && so->config)
		return usage_error(cli, "--follow-children goes with --pid or a command, not -c");
	if (so->scope_pid >= 0) {
		bool hp_goal = false;

		for (i = 0; i < so->sl.nr; i++)
			for (g = 0; g < so->sl.sp[i].nr_goals; g++)
				hp_goal |= !strcmp(so->sl.sp[i].goals[g].metric, "hugepage_mem_bp");
		if (!hp_goal)
			return usage_error(cli, "--goal-scope %s: it says where a hugepage_mem_bp "
					   "goal is measured, and none was given (--goal-bp N)",
					   so->scope_pid ? "pid" : "system");
	}
	return 0;
}

/* What the kernel would refuse anyway is bad input, said before any write (a probe writes).
 * Missing features are decided later, once they are known. 0 or EXIT_USAGE. */
static int check_system(struct cli *cli, struct damonctl_tree *want, const unsigned int *idx,
			unsigned int nr)
{
	struct start_opts *so = cli->opts;
	char why[1024];
	unsigned int i;
	int r;

	for (i = 0; i < nr; i++) {
		struct damonctl_kdamond *k = damonctl_tree_kdamond(want, idx[i]);

		r = damonctl_kdamond_check(k, NULL, why, sizeof(why));
		if (!r)
			r = damonctl_kdamond_check_system(cli->ctx, k, why, sizeof(why));
		if (r) {
			if (so->config)
				usage_error(cli, "-c %s: %s", so->config, why);
			else
				usage_error(cli, "%s", why);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Features no directory shows (a fresh machine, or keyword-only ones such as
 * hugepage_mem_bp): probe on a temporary kdamond, which puts the tree back as it was, and
 * build again with what it found. An exit code. */
static int probe_and_rebuild(struct cli *cli, const struct damonctl_tree *have,
			     const struct started *started, struct damonctl_features *f,
			     struct damonctl_tree **want, unsigned int *idx, unsigned int *nr)
{
	bool unknown = false;
	unsigned int i;
	int r;

	for (i = 0; i < *nr; i++)
		unknown |= damonctl_kdamond_uses_unknown(damonctl_tree_kdamond(*want, idx[i]), f);
	if (!unknown)
		return 0;
	r = damonctl_features_probe_fresh(cli->ctx, f);
	if (r)
		return lib_error(cli, r, "detecting features on a temporary kdamond");
	damonctl_tree_free(*want);
	*want = NULL;
	return build(cli, have, started, f, want, idx, nr);
}

/* Plan what the agent does (a goal the kernel cannot measure, a collapse budget kept in huge
 * pages), then check against this kernel, before writing anything. An exit code. */
static int plan_fallbacks(struct cli *cli, struct damonctl_tree *want,
			  const struct damonctl_features *f, const unsigned int *idx,
			  unsigned int nr, struct fallbacks *fbs)
{
	struct start_opts *so = cli->opts;
	char why[1024];
	unsigned int i;
	int r;

	for (i = 0; i < nr; i++) {
		struct damonctl_kdamond *k = damonctl_tree_kdamond(want, idx[i]);
		struct fallbacks one = { 0 };

		r = 0;
		if (!so->no_fallback) {
			r = fallback_plan(cli->ctx, k, f, so->scope_pid > 0, &one, why, sizeof(why));
			if (!r && nr > 1 && one.nr) {
				r = -EINVAL;
				snprintf(why, sizeof(why), "the damonc agent serves one kdamond per "
					 "start; split the config");
			}
			if (!r)
				r = fallback_check_one_scheme(&one, why, sizeof(why));
			if (!r && one.nr)
				*fbs = one;
		}
		if (!r)
			r = damonctl_kdamond_check(k, f, why, sizeof(why));
		if (r) {
			usage_error(cli, "%s", why);
			return r == -EOPNOTSUPP ? EXIT_UNSUPPORTED : EXIT_USAGE;
		}
	}
	return 0;
}

/* The notes before a start: a running kdamond refuses it (EXIT_BUSY); others' stopped
 * kdamonds lose their last results when one is added. */
static int check_busy(const struct damonctl_tree *have, const struct started *started,
		      const unsigned int *idx, bool busy, unsigned int busy_idx, bool busy_ours)
{
	struct damonctl_kdamond *old;
	unsigned int i;

	if (busy) {
		warnx_("start: kdamond %u is running (%s), and the kernel cannot add a kdamond while "
		       "any runs; stop it first%s", busy_idx,
		       busy_ours ? "started by damonc" : "not started by damonc",
		       busy_ours ? " with 'damonc stop'" :
		       ", if it is yours, with 'damonc stop --kdamond N'");
		return EXIT_BUSY;
	}
	if (idx[0] == damonctl_tree_nr_kdamonds(have))
		damonctl_for_each_kdamond(have, old, i)
			if (!started_owns(started, old))
				warnx_("note: kdamond %u (not started by damonc, off) keeps its "
				       "configuration, but the kernel drops its last results when "
				       "a kdamond is added", i);
	return 0;
}

/* Remember what we started, by index and the kdamond's pid. */
static void record_started(struct cli *cli, struct started *started, const unsigned int *idx,
			   unsigned int nr, const struct fallbacks *fbs, int child)
{
	struct start_opts *so = cli->opts;
	unsigned int i, t;
	int r;

	for (i = 0; i < nr; i++) {
		struct started_entry e = { .kdamond = idx[i], .since = (long long)time(NULL) };

		damonctl_kdamond_is_running(cli->ctx, idx[i], &e.pid);
		if (handoff)
			snprintf(e.label, sizeof(e.label), "%s", handoff->label);
		else
			start_label(so, e.label, sizeof(e.label));
		for (t = 0; t < so->nr_pids && t < STARTED_MAX_TARGETS; t++)
			e.targets[e.nr_targets++] = so->pids[t];
		e.fbs = *fbs;
		e.follow_children = so->follow_children;
		if (so->foreground || child)
			e.server_pid = (int)getpid();	/* the background agent leaves it alone */
		if (handoff && started_find(started, idx[i])) {
			handoff->had_entry = true;
			handoff->old = *started_find(started, idx[i]);
		}
		started_add(started, &e);
	}
	r = started_save(cli->ctx, started);
	if (r)
		warnx_("cannot record the started kdamonds (%s): 'damonc stop' will need "
		       "--kdamond N", strerror(-r));
}

/* For start_handoff_run: the kdamond, the tree before and the launched command are the
 * caller's now, the undo record held until start_handoff_undo. */
static void hand_off(unsigned int kdamond, struct damonctl_tree **have, int *child, int *lock)
{
	handoff->kdamond = kdamond;
	handoff->have = *have;
	handoff->child = *child;
	*have = NULL;
	*child = 0;
	started_unlock(*lock);
	*lock = -1;
}

/* What was started, for people or as one JSON document. */
static void print_started(struct cli *cli, struct started *started, const unsigned int *idx,
			  unsigned int nr, const struct fallbacks *fbs)
{
	struct start_opts *so = cli->opts;
	char why[1024];
	unsigned int i;

	if (cli->json) {
		json_object *doc = json_doc_new(), *arr = json_object_new_array();

		for (i = 0; i < nr; i++) {
			json_object *o = json_object_new_object();
			struct started_entry *e = started_find(started, idx[i]);

			json_object_object_add(o, "index", json_object_new_int((int)idx[i]));
			json_object_object_add(o, "pid", json_object_new_int(e ? e->pid : -1));
			if (cli->staging)
				json_object_object_add(o, "staged", json_object_new_boolean(true));
			json_object_array_add(arr, o);
		}
		json_object_object_add(doc, "started", arr);
		json_object_object_add(doc, "fallbacks", fallback_to_json(fbs));
		json_doc_print(doc);
	} else {
		for (i = 0; i < nr; i++) {
			struct started_entry *e = started_find(started, idx[i]);

			if (cli->staging)
				printf("kdamond %u: start staged (the batch starts it at its end)\n",
				       idx[i]);
			else
				printf("started kdamond %u (pid %d)\n", idx[i], e ? e->pid : -1);
		}
		if (fbs->nr) {
			fallback_describe(fbs, why, sizeof(why));
			printf("served in user space by the damonc agent: %s\n", why);
		}
		if (so->follow_children)
			printf("the damonc agent adds the targets' new children as targets\n");
	}
	fflush(stdout);
}

/* After the start: serve the fallbacks here (--foreground, a launched command) or make sure
 * the background agent does; wait for a launched command. An exit code. */
static int serve_and_wait(struct cli *cli, const unsigned int *idx, const struct fallbacks *fbs,
			  int *child)
{
	struct start_opts *so = cli->opts;
	int r, ret = EXIT_OK;

	if ((fbs->nr || so->follow_children) && (so->foreground || *child)) {
		/* this process serves the fallbacks until the kdamond stops */
		r = agent_serve_foreground(cli, idx[0], so->leave_running);
		if (r && !*child)
			ret = r;
	} else if ((fbs->nr || so->follow_children) && !cli->staging) {
		r = agent_ensure_running(cli);
		if (r)
			warnx_("the fallbacks need 'damonc agent' running, and it could not be "
			       "started (%s)", strerror(-r));
	}
	if (*child) {
		ret = wait_child(*child);
		*child = 0;
	}
	return ret;
}

/* One start's state, from its first read to its last close (start_state_free). */
struct start_state {
	struct damonctl_tree *have, *want;	/* the tree as read, and as it is to be */
	struct damonctl_features *f;
	struct damonctl_plan *plan;		/* the writes from have to want */
	struct started started;
	struct fallbacks fbs;
	unsigned int idx[16], nr;		/* the kdamonds it starts */
	unsigned int busy_idx;			/* a running kdamond (busy), and whether damonc's */
	bool busy, busy_ours;
	struct damonctl_launch *launch;		/* '-- COMMAND', held until released */
	int child;				/* its pid once released */
	int lock;				/* damonc's run directory, when not a dry run */
};

/* Everything before the first write: the tree read, the command launched (it waits), the
 * kdamonds built and checked, the fallbacks and the writes planned. An exit code. */
static int start_prepare(struct cli *cli, struct start_state *st, int argc, char **argv)
{
	struct start_opts *so = cli->opts;
	int r;

	r = read_state(cli, &st->have, &st->f, &st->started);
	if (r)
		return r;
	st->busy = any_running(st->have, &st->started, &st->busy_idx, &st->busy_ours);
	if (argc) {
		/* the pid must exist for the checks; the command waits for the kdamond */
		r = damonctl_launch_new(so->prog, argv, &st->launch);
		if (r)
			return usage_error(cli, "fork: %s", strerror(-r)), EXIT_FAIL;
		so->pids[so->nr_pids++] = damonctl_launch_pid(st->launch);
	}
	r = build(cli, st->have, &st->started, st->f, &st->want, st->idx, &st->nr);
	if (!r)
		r = check_system(cli, st->want, st->idx, st->nr);
	/* never in a dry run: probing writes */
	if (!r && !st->busy && !so->dry_run && !cli->staging)
		r = probe_and_rebuild(cli, st->have, &st->started, st->f, &st->want, st->idx,
				      &st->nr);
	if (!r)
		r = plan_fallbacks(cli, st->want, st->f, st->idx, st->nr, &st->fbs);
	if (r)
		return r;
	r = damonctl_tree_plan(cli->ctx, st->want, st->have, &st->plan);
	if (r)
		return lib_error(cli, r, "planning the sysfs writes");
	return 0;
}

/* The start itself: the launched command released, the kdamonds started (on any failure the
 * tree is put back as it was) and recorded as damonc's, then served. An exit code. */
static int start_apply(struct cli *cli, struct start_state *st, char **argv)
{
	int r;

	r = check_busy(st->have, &st->started, st->idx, st->busy, st->busy_idx, st->busy_ours);
	if (r)
		return r;
	/* a kdamond of damonc's reused for another command: its entry comes back if that
	 * command is killed and the start undone */
	if (handoff && started_find(&st->started, st->idx[0]))
		journal_keep("started_before", started_entry_to_json(started_find(&st->started,
									     st->idx[0])));
	/* everything checked: the launched command runs (execs) first, as damo's does; DAMON
	 * takes a process's address space when it starts, and would keep our fork's */
	if (st->launch) {
		r = damonctl_launch_release(st->launch);
		if (r && r != -ESRCH)
			return usage_error(cli, "cannot run '%s': %s", argv[0], strerror(-r));
		if (r)
			warnx_("cannot release the launched command");
		st->child = damonctl_launch_pid(st->launch);
	}
	/* stages, starts, and on any failure puts the tree back as it was */
	r = damonctl_tree_start(cli->ctx, st->want, st->have, st->idx, st->nr);
	if (r)
		return lib_error(cli, r, st->nr == 1 ? "starting kdamond %u" :
				 "starting the kdamonds", st->idx[0]);
	record_started(cli, &st->started, st->idx, st->nr, &st->fbs, st->child);
	if (handoff) {
		hand_off(st->idx[0], &st->have, &st->child, &st->lock);
		return EXIT_OK;
	}
	journal_release(cli);
	started_unlock(st->lock);
	st->lock = -1;
	print_started(cli, &st->started, st->idx, st->nr, &st->fbs);
	return serve_and_wait(cli, st->idx, &st->fbs, &st->child);
}

/* What a start still holds when it ends, let go; a launched command whose start failed is
 * killed. */
static void start_state_free(struct cli *cli, struct start_state *st)
{
	struct start_opts *so = cli->opts;

	if (st->lock >= 0)
		journal_release(cli);
	started_unlock(st->lock);
	if (st->child) {
		kill(st->child, SIGKILL);
		waitpid(st->child, NULL, 0);
	}
	damonctl_launch_free(st->launch);
	damonctl_plan_free(st->plan);
	started_free(&st->started);
	damonctl_features_free(st->f);
	damonctl_tree_free(st->want);
	damonctl_tree_free(st->have);
	damonctl_tree_free(so->config_tree);
	so->config_tree = NULL;
}

static int start_run(struct cli *cli, int argc, char **argv)
{
	struct start_opts *so = cli->opts;
	struct start_state st = { .nr = 1, .lock = -1 };
	int r;

	r = check_combinations(cli, argc, argv);
	if (r)
		return r;
	/* another damonc start could pick the same new kdamond: one at a time; and what a
	 * killed damonc left goes first (a half-built kdamond, a capture scheme) */
	if (!so->dry_run) {
		st.lock = started_lock(cli->ctx);
		if (st.lock < 0)
			return lib_error(cli, st.lock, "locking damonc's run directory");
		recover_leftovers(cli);
		/* until the kdamonds it starts are recorded as damonc's, its undo record stays:
		 * killed in between, the next command rolls the start back */
		journal_hold();
	}
	r = start_prepare(cli, &st, argc, argv);
	if (!r && so->dry_run) {
		r = print_dry_run(cli, st.want, st.plan, st.idx, st.nr, &st.fbs);
		dry_run_notes(st.f, &st.fbs, st.busy, st.busy_idx);
	} else if (!r) {
		r = start_apply(cli, &st, argv);
	}
	start_state_free(cli, &st);
	return r;
}

int start_handoff_run(struct cli *cli, int argc, char **argv, struct start_handoff *h)
{
	struct start_opts *so = cli->opts;
	int r;

	h->have = NULL;
	h->had_entry = false;
	h->child = 0;
	/* the action the options must have; the caller's amend makes the schemes */
	if (!so->sl.nr)
		so->sl.nr = 1;
	if (!so->sl.sp[0].action)
		so->sl.sp[0].action = "stat";
	handoff = h;
	r = start_run(cli, argc, argv);
	handoff = NULL;
	return r;
}

int start_handoff_undo(struct cli *cli, struct start_handoff *h)
{
	int e;

	if (!h->have)
		return EXIT_OK;
	e = undo_launch(cli, h->have, &h->kdamond, 1, h->had_entry ? &h->old : NULL);
	/* undone: the undo record goes; not: it stays for the next command to finish */
	if (!e)
		journal_release(cli);
	damonctl_tree_free(h->have);
	h->have = NULL;
	return e;
}

const struct cmd cmd_start = {
	.name = "start",
	.summary = "start a kdamond with schemes (collapse hot memory, reclaim cold, ...)",
	.usage = "(--pid PID ... | --regions R | -c FILE | -- COMMAND ARGS) --action ACTION "
		 "[OPTIONS] [--action ACTION [OPTIONS]]...",
	.opts = start_opts_tbl,
	.init = start_opts_init,
	.parse = start_parse,
	.run = start_run,
	.opts_size = sizeof(struct start_opts),
	.opts_init = &(const struct start_opts)START_OPTS_INIT,
};
