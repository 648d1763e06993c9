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
#include "known_features.h"
#include "spec.h"
#include "start.h"
#include "started.h"
#include "status.h"



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
		return oom_error(cli);
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
				return oom_error(cli);
			damonctl_target_set_int(t, DAMONCTL_TARGET_PID, so->pids[i]);
		}
	} else {
		if (so->nr_pids)
			return usage_error(cli, "--pid does not go with --ops paddr (physical memory)");
		if (so->nr_nodes && so->user_regions)
			return usage_error(cli, "--numa-node and --regions: one of them");
		if (!damonctl_context_add_target(c))
			return oom_error(cli);
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
			return oom_error(cli);
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

/* -c's kdamonds, read once (stdin cannot be read twice). An exit code. */
static int read_config(struct cli *cli)
{
	struct start_opts *so = cli->opts;
	char why[512], *text;
	int r;

	if (so->config_tree)
		return 0;
	r = damonctl_file_read(so->config, DAMONC_MAX_INPUT, &text, NULL);
	if (r)
		return input_error(cli, "-c", so->config, r);
	r = damonctl_config_parse(so->config, text, &so->config_tree, why, sizeof(why));
	free(text);
	if (r) {
		usage_error(cli, "-c %s: %s", so->config, why);
		return r == -ELIBACC ? EXIT_UNSUPPORTED : EXIT_USAGE;
	}
	if (!damonctl_tree_nr_kdamonds(so->config_tree))
		return usage_error(cli, "-c %s: the config has no kdamond", so->config);
	if (damonctl_tree_nr_kdamonds(so->config_tree) > 16)
		return usage_error(cli, "-c %s: at most 16 kdamonds", so->config);
	return 0;
}

/* One start as the CLI makes it: what the library's callbacks need, and what they found. */
struct start_call {
	struct cli *cli;
	struct start_handoff *h;	/* record, monitor: the caller's part, or NULL */
	struct damonctl_start *st;
	struct started started;		/* damonc's record, pruned of what is not damonc's */
	struct damonctl_launch *launch;	/* '-- COMMAND', held until released */
	int child;			/* its pid once released */
	char **argv;
	int exit;			/* a callback's exit code */
	bool ready;			/* everything checked: the start writes from here */
	int lock;			/* damonc's run directory */
};

static void print_writes(const struct damonctl_start *st)
{
	const char *path, *value;
	unsigned int flags;
	size_t i;

	for (i = 0; i < damonctl_start_nr_writes(st); i++) {
		damonctl_start_write(st, i, &path, &value, &flags);
		printf("  %s%s <= %s\n", flags & DAMONCTL_WRITE_PROBE ? "probe: " : "", path,
		       value);
	}
}

static json_object *writes_to_json(const struct damonctl_start *st)
{
	json_object *writes = json_object_new_array();
	const char *path, *value;
	unsigned int flags;
	size_t i;

	for (i = 0; i < damonctl_start_nr_writes(st); i++) {
		json_object *w = json_object_new_object();

		damonctl_start_write(st, i, &path, &value, &flags);
		json_object_object_add(w, "path", json_object_new_string(path));
		json_object_object_add(w, "value", json_object_new_string(value));
		if (flags & DAMONCTL_WRITE_PROBE)
			json_object_object_add(w, "probe", json_object_new_boolean(true));
		json_object_array_add(writes, w);
	}
	return writes;
}

/* The kdamonds a dry run would start, with their indexes, as damonctl-json(5) has them. */
static json_object *kdamonds_to_json(const struct damonctl_start *st)
{
	char *text = damonctl_tree_to_json(damonctl_start_tree(st, true), DAMONCTL_JSON_CONFIG);
	json_object *tree = text ? json_tokener_parse(text) : NULL, *kd, *arr = NULL;
	unsigned int k, idx;

	free(text);
	if (tree && json_object_object_get_ex(tree, "kdamonds", &kd)) {
		arr = json_object_new_array();
		for (k = 0; k < damonctl_start_nr_kdamonds(st); k++) {
			idx = damonctl_start_kdamond(st, k);
			json_object *o = json_object_get(json_object_array_get_idx(kd, idx));

			json_object_object_add(o, "index", json_object_new_int((int)idx));
			json_object_array_add(arr, o);
		}
	}
	json_object_put(tree);
	return arr;
}

static int print_dry_run(struct cli *cli, const struct damonctl_start *st,
			 const struct fallbacks *fbs)
{
	const struct damonctl_tree *want = damonctl_start_tree(st, true);
	char desc[1024];
	unsigned int k;

	if (cli->json) {
		json_object *doc = json_doc_new(), *arr = kdamonds_to_json(st);

		if (!arr) {
			json_object_put(doc);
			return EXIT_FAIL;
		}
		json_object_object_add(doc, "kdamonds", arr);
		json_object_object_add(doc, "writes", writes_to_json(st));
		json_object_object_add(doc, "fallbacks", fallback_to_json(fbs));
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	for (k = 0; k < damonctl_start_nr_kdamonds(st); k++)
		status_print_kdamond(stdout, damonctl_tree_kdamond(want, damonctl_start_kdamond(st, k)),
				     "would start", REGIONS_NO_RESULTS, NULL);
	fallback_describe(fbs, desc, sizeof(desc));
	if (fbs->nr)
		printf("user-space fallbacks: %s\n", desc);
	printf("\nsysfs writes (relative to %s%s):\n",
	       strcmp(damonctl_get_sysroot(cli->ctx), "/") ? damonctl_get_sysroot(cli->ctx) : "",
	       "/sys/kernel/mm/damon/admin");
	print_writes(st);
	if (damonctl_start_probed(st))
		printf("dry run: nothing was started; the probe's writes (to a temporary kdamond, "
		       "removed again) were made, as the start makes them\n");
	else
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

/* The library's build callback: the kdamond from the options (a config's is copied as it
 * is), then the caller's schemes (record, monitor). */
static int build_cb(void *data, struct damonctl_kdamond *k, unsigned int i,
		    const struct damonctl_features *f)
{
	struct start_call *sc = data;
	struct start_opts *so = sc->cli->opts;
	int r = 0;

	(void)i;
	if (!so->config)
		r = build_from_options(sc->cli, k, f);
	if (!r && sc->h)
		r = sc->h->amend(sc->cli, k, f, sc->h->data);
	sc->exit = r;
	return r ? -ECANCELED : 0;
}

/* The library's ready callback: everything is checked; a reused kdamond's entry is kept
 * for an undo (record, monitor), and the launched command runs (execs) first, as damo's
 * does: DAMON takes a process's address space when it starts, and would keep our fork's. */
static int ready_cb(void *data, const struct damonctl_start *st)
{
	struct start_call *sc = data;
	struct started_entry *old = started_find(&sc->started, damonctl_start_kdamond(st, 0));
	int r;

	sc->ready = true;
	if (sc->h && old)
		journal_keep("started_before", started_entry_to_json(old));
	if (!sc->launch)
		return 0;
	r = damonctl_launch_release(sc->launch);
	if (r && r != -ESRCH) {
		sc->exit = usage_error(sc->cli, "cannot run '%s': %s", sc->argv[0], strerror(-r));
		return -ECANCELED;
	}
	if (r)
		warnx_("cannot release the launched command");
	sc->child = damonctl_launch_pid(sc->launch);
	return 0;
}

/* The stopped kdamonds that are damonc's own: a start stages over them before adding. */
static unsigned int own_stopped(const struct damonctl_tree *have, const struct started *started,
				unsigned int *idx, unsigned int max)
{
	struct damonctl_kdamond *k;
	unsigned int i, n = 0;

	damonctl_for_each_kdamond(have, k, i)
		if (n < max && strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on") &&
		    started_owns(started, k))
			idx[n++] = i;
	return n;
}

/* The launched command never ran, or the command that started them is done: stop and
 * remove the kdamonds started for it, and forget them (or put back @old, the entry of the
 * one kdamond reused). 0 or an exit code. */
static int undo_launch(struct cli *cli, const struct damonctl_tree *have, const unsigned int *idx,
		       unsigned int nr, const struct started_entry *old)
{
	struct started st;
	unsigned int i;
	int lock = started_lock(cli->ctx), r, off, e = 0;

	if (lock < 0)
		return started_lock_error(cli, lock);
	/* loaded before the restore writes nr_kdamonds: damonc's kdamonds are known by the
	 * directories they have now */
	r = started_load(cli->ctx, &st);
	for (i = 0; i < nr; i++) {
		off = damonctl_kdamond_cmd(cli->ctx, idx[i], DAMONCTL_CMD_OFF);

		if (off && off != -EPERM)
			e = lib_error(cli, off, "stopping kdamond %u", idx[i]);
		started_remove(&st, idx[i]);
	}
	if (old)
		started_add(&st, old);
	off = damonctl_tree_restore(cli->ctx, have);
	if (off)
		e = lib_error(cli, off, "removing kdamond %u", idx[0]);
	if (!r) {
		started_rebind(cli->ctx, &st);
		started_save(cli->ctx, &st);
	}
	started_free(&st);
	started_unlock(lock);
	return e;
}

/* damonc's record of its kdamonds, pruned of those not damonc's any more. */
static void load_started(struct cli *cli, struct started *started)
{
	struct damonctl_tree *t;
	int r = started_load(cli->ctx, started);

	if (r)
		warnx_("ignoring damonc's record of started kdamonds: %s", strerror(-r));
	if (!damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t)) {
		started_prune(cli->ctx, started, t);
		damonctl_tree_free(t);
	}
	damonctl_clear_error(cli->ctx);
}

/* What a dry run cannot tell. */
static void dry_run_notes(const struct damonctl_features *f, const struct fallbacks *fbs)
{
	if (damonctl_features_has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) == DAMONCTL_UNKNOWN &&
	    fbs->nr)
		warnx_("note: whether this kernel has the hugepage_mem_bp metric (queued for "
		       "7.4) cannot be told without writing; these writes assume it has not, as "
		       "no released kernel has it");
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

/* A hugepage scheme (MADV_HUGEPAGE) where transparent_hugepage is "never": it starts, and
 * makes no huge page; said (a collapse scheme does not depend on the THP modes). */
static void note_thp(struct damonctl_ctx *ctx, const struct damonctl_start *st)
{
	const struct damonctl_tree *want = damonctl_start_tree(st, true);
	struct damonctl_context *c;
	struct damonctl_scheme *s;
	unsigned int i, ci, si;
	char thp[32];

	if (damonctl_sys_read_setting(ctx, "kernel/mm/transparent_hugepage/enabled", thp,
				      sizeof(thp))) {
		damonctl_clear_error(ctx);
		return;
	}
	for (i = 0; i < damonctl_start_nr_kdamonds(st); i++) {
		unsigned int k = damonctl_start_kdamond(st, i);

		damonctl_for_each_context(damonctl_tree_kdamond(want, k), c, ci)
			damonctl_for_each_scheme(c, s, si)
				if (damonctl_scheme_thp_blocked(s, thp))
					warnx_("note: kdamond %u, scheme %u asks for huge pages "
					       "(hugepage: MADV_HUGEPAGE), but "
					       "transparent_hugepage/enabled is 'never': none will be "
					       "made (madvise or always lets them be; the collapse "
					       "action does not depend on it)", k, si);
	}
}

/* The start's own kdamonds added beside others' stopped ones: those lose their last
 * results (the kernel recreates every kdamond directory). */
static void note_others(const struct damonctl_start *st, const struct started *started)
{
	const struct damonctl_tree *have = damonctl_start_tree(st, false);
	struct damonctl_kdamond *old;
	unsigned int i;

	if (!damonctl_start_adds(st))
		return;
	damonctl_for_each_kdamond(have, old, i)
		if (!started_owns(started, old))
			warnx_("note: kdamond %u (not started by damonc, off) keeps its "
			       "configuration, but the kernel drops its last results when a "
			       "kdamond is added", i);
}

/* The library's refusal or failure, said; an exit code. */
static int start_error(struct start_call *sc, int r)
{
	struct cli *cli = sc->cli;
	struct start_opts *so = cli->opts;
	const struct damonctl_start *st = sc->st;
	const char *why = damonctl_start_why(st);
	int busy = damonctl_start_busy_kdamond(st);
	bool ours;

	switch (damonctl_start_outcome(st)) {
	case DAMONCTL_START_BAD_INPUT:
	case DAMONCTL_START_UNSUPPORTED:
		if (so->config)
			usage_error(cli, "-c %s: %s", so->config, why);
		else
			usage_error(cli, "%s", why);
		return damonctl_start_outcome(st) == DAMONCTL_START_UNSUPPORTED ?
		       EXIT_UNSUPPORTED : EXIT_USAGE;
	case DAMONCTL_START_BUSY:
		if (busy < 0) {
			warnx_("start: %s", why);
			return EXIT_BUSY;
		}
		ours = busy >= 0 && started_owns(&sc->started, damonctl_tree_kdamond(
			damonctl_start_tree(st, false), (unsigned int)busy));
		warnx_("start: kdamond %d is running (%s), and the kernel cannot add a kdamond "
		       "while any runs; stop it first%s", busy,
		       ours ? "started by damonc" : "not started by damonc",
		       ours ? " with 'damonc stop'" :
		       ", if it is yours, with 'damonc stop --kdamond N'");
		return EXIT_BUSY;
	default:
		break;
	}
	if (r == -ECANCELED && sc->exit)
		return sc->exit;
	if (sc->ready)
		return lib_error(cli, r, damonctl_start_nr_kdamonds(st) == 1 ? "starting kdamond %u" :
				 "starting the kdamonds", damonctl_start_kdamond(st, 0));
	return lib_error(cli, r, damonctl_start_probed(st) ?
			 "detecting features on a temporary kdamond" : "reading the DAMON tree");
}

/* Remember what we started, by index and the kdamond's pid. */
static void record_started(struct start_call *sc, const struct fallbacks *fbs)
{
	struct cli *cli = sc->cli;
	struct start_opts *so = cli->opts;
	unsigned int i, t;
	int r;

	for (i = 0; i < damonctl_start_nr_kdamonds(sc->st); i++) {
		unsigned int idx = damonctl_start_kdamond(sc->st, i);
		struct started_entry e = { .kdamond = idx, .since = (long long)time(NULL) };

		damonctl_kdamond_is_running(cli->ctx, idx, &e.pid);
		if (sc->h)
			snprintf(e.label, sizeof(e.label), "%s", sc->h->label);
		else
			start_label(so, e.label, sizeof(e.label));
		for (t = 0; t < so->nr_pids && t < STARTED_MAX_TARGETS; t++)
			e.targets[e.nr_targets++] = so->pids[t];
		e.fbs = *fbs;
		e.follow_children = so->follow_children;
		if (so->foreground || sc->child)
			e.server_pid = (int)getpid();	/* the background agent leaves it alone */
		if (sc->h && started_find(&sc->started, idx)) {
			sc->h->had_entry = true;
			sc->h->old = *started_find(&sc->started, idx);
		}
		started_add(&sc->started, &e);
	}
	/* the start may have written nr_kdamonds (a kdamond added, a probe): every kdamond
	 * directory is new, damonc's stopped ones included */
	started_rebind(cli->ctx, &sc->started);
	r = started_save(cli->ctx, &sc->started);
	if (r)
		warnx_("cannot record the started kdamonds (%s): 'damonc stop' will need "
		       "--kdamond N", strerror(-r));
}

/* What was started, for people or as one JSON document. */
static void print_started(struct start_call *sc, const struct fallbacks *fbs)
{
	struct cli *cli = sc->cli;
	struct start_opts *so = cli->opts;
	unsigned int i, nr = damonctl_start_nr_kdamonds(sc->st);
	char why[1024];

	if (cli->json) {
		json_object *doc = json_doc_new(), *arr = json_object_new_array();

		for (i = 0; i < nr; i++) {
			unsigned int idx = damonctl_start_kdamond(sc->st, i);
			struct started_entry *e = started_find(&sc->started, idx);
			json_object *o = json_object_new_object();

			json_object_object_add(o, "index", json_object_new_int((int)idx));
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
			unsigned int idx = damonctl_start_kdamond(sc->st, i);
			struct started_entry *e = started_find(&sc->started, idx);

			if (cli->staging)
				printf("kdamond %u: start staged (the batch starts it at its end)\n",
				       idx);
			else
				printf("started kdamond %u (pid %d)\n", idx, e ? e->pid : -1);
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
static int serve_and_wait(struct start_call *sc, const struct fallbacks *fbs)
{
	struct cli *cli = sc->cli;
	struct start_opts *so = cli->opts;
	int r, ret = EXIT_OK;

	if ((fbs->nr || so->follow_children) && (so->foreground || sc->child)) {
		/* this process serves the fallbacks until the kdamond stops */
		r = agent_serve_foreground(cli, damonctl_start_kdamond(sc->st, 0),
					   so->leave_running);
		if (r && !sc->child)
			ret = r;
	} else if ((fbs->nr || so->follow_children) && !cli->staging) {
		r = agent_ensure_running(cli);
		if (r)
			warnx_("the fallbacks need 'damonc agent' running, and it could not be "
			       "started (%s)", strerror(-r));
	}
	if (sc->child) {
		ret = wait_child(sc->child);
		sc->child = 0;
	}
	return ret;
}

/* The library's start of the options (or -c's config), dry or not. An exit code. */
static int run_transaction(struct start_call *sc)
{
	struct cli *cli = sc->cli;
	struct start_opts *so = cli->opts;
	struct damonctl_start_opts o = DAMONCTL_START_OPTS_INIT;
	struct damonctl_tree *t;
	unsigned int reuse[16];
	char *known;
	int r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);

	if (r)
		return lib_error(cli, r, "reading the DAMON tree");
	o.nr_reuse = own_stopped(t, &sc->started, reuse, 16);
	damonctl_tree_free(t);
	o.reuse = reuse;
	o.flags = (so->dry_run ? DAMONCTL_START_DRY_RUN : 0) |
		  (so->no_fallback ? DAMONCTL_START_NO_FALLBACK : 0) |
		  (so->scope_pid > 0 ? DAMONCTL_START_SCOPE_PID : 0);
	o.kdamonds = so->config ? so->config_tree : NULL;
	o.build = build_cb;
	o.ready = ready_cb;
	o.data = sc;
	/* what an earlier probe found this boot: the start need not probe again */
	known = known_features_load(cli->ctx);
	o.known_features = known;
	r = damonctl_start_new(cli->ctx, &o, &sc->st);
	if (r) {
		free(known);
		return lib_error(cli, r, "starting");
	}
	r = damonctl_start(sc->st);
	free(known);
	/* a start's probe is kept for the next (its dry run writes nothing else; record and
	 * monitor leave damonc's run directory as they found it) */
	if (damonctl_start_probed(sc->st) && !so->dry_run && !sc->h &&
	    damonctl_start_features(sc->st))
		known_features_save(cli->ctx, damonctl_start_features(sc->st));
	return r ? start_error(sc, r) : 0;
}

/* The start itself, through the library; then recorded as damonc's, said, and served (or
 * handed to the caller: record, monitor). An exit code. */
static int start_do(struct cli *cli, int argc, char **argv, struct start_handoff *h)
{
	struct start_opts *so = cli->opts;
	struct start_call sc = { .cli = cli, .h = h, .argv = argv, .lock = -1 };
	struct fallbacks fbs = { 0 };
	int r;

	r = check_combinations(cli, argc, argv);
	if (r)
		return r;
	/* another damonc start could pick the same new kdamond: one at a time (a dry run too,
	 * which may probe); and what a killed damonc left goes first */
	sc.lock = started_lock(cli->ctx);
	if (sc.lock < 0)	/* the dry run too: it says what the start would do, and exit */
		return started_lock_error(cli, sc.lock);
	if (!so->dry_run) {
		recover_leftovers(cli);
		/* until the kdamonds it starts are recorded as damonc's, its undo record stays:
		 * killed in between, the next command rolls the start back */
		journal_hold();
	}
	load_started(cli, &sc.started);
	r = so->config ? read_config(cli) : 0;
	if (!r && argc) {
		/* the pid must exist for the checks; the command waits for the kdamond */
		r = damonctl_launch_new(so->prog, argv, &sc.launch);
		if (r) {
			usage_error(cli, "fork: %s", strerror(-r));
			r = EXIT_FAIL;
		} else {
			so->pids[so->nr_pids++] = damonctl_launch_pid(sc.launch);
		}
	}
	if (!r)
		r = run_transaction(&sc);
	if (!r) {
		const struct damonctl_fallbacks *l = damonctl_start_fallbacks(sc.st, 0);

		if (l)
			fallback_from_lib(l, &fbs);
		note_others(sc.st, &sc.started);
		note_thp(cli->ctx, sc.st);
	}
	if (!r && so->dry_run) {
		r = print_dry_run(cli, sc.st, &fbs);
		dry_run_notes(damonctl_start_features(sc.st), &fbs);
	} else if (!r) {
		record_started(&sc, &fbs);
		if (h) {
			h->kdamond = damonctl_start_kdamond(sc.st, 0);
			h->have = damonctl_tree_dup(damonctl_start_tree(sc.st, false));
			h->child = sc.child;
			sc.child = 0;
		} else {
			journal_release(cli);
			started_unlock(sc.lock);
			sc.lock = -1;
			print_started(&sc, &fbs);
			r = serve_and_wait(&sc, &fbs);
		}
	}
	/* what a start still holds when it ends, let go; a launched command whose start
	 * failed is killed */
	if (sc.lock >= 0 && (!h || r))
		journal_release(cli);	/* a handoff's stays until start_handoff_undo */
	started_unlock(sc.lock);
	if (sc.child) {
		kill(sc.child, SIGKILL);
		waitpid(sc.child, NULL, 0);
	}
	damonctl_launch_free(sc.launch);
	damonctl_start_free(sc.st);
	started_free(&sc.started);
	damonctl_tree_free(so->config_tree);
	so->config_tree = NULL;
	return r;
}

static int start_run(struct cli *cli, int argc, char **argv)
{
	return start_do(cli, argc, argv, NULL);
}

int start_handoff_run(struct cli *cli, int argc, char **argv, struct start_handoff *h)
{
	struct start_opts *so = cli->opts;

	h->have = NULL;
	h->had_entry = false;
	h->child = 0;
	/* the action the options must have; the caller's amend makes the schemes */
	if (!so->sl.nr)
		so->sl.nr = 1;
	if (!so->sl.sp[0].action)
		so->sl.sp[0].action = "stat";
	return start_do(cli, argc, argv, h);
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
