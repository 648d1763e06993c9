// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report hugepage: where huge pages are and what DAMON does about them.
 *
 * - the system: THP and khugepaged settings and counters, huge page memory, used memory,
 *   and their ratio in basis points exactly as the kernel's hugepage_mem_bp defines it;
 * - processes (--pid): RSS, AnonHugePages, their ratio, and with --regions the mappings
 *   with the most and the least huge-page coverage;
 * - every collapse/hugepage scheme: goals, tuner, effective quota, stats, and whether the
 *   kernel or the damonc agent serves it;
 * - --watch: a time series (a table, or one JSON object per line with --json).
 *
 * Reads only: kernel stats are as fresh as refresh_ms (set on damonc's kdamonds) makes
 * them, unless --refresh asks damonc's own kdamonds to update them.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_stats.h"
#include "agent_view.h"
#include "fallback.h"
#include "hugepage_record.h"
#include "started.h"

#define MAX_PIDS 16
#define TOP_VMAS 5

static struct {
	int pids[MAX_PIDS];
	unsigned int nr_pids;
	bool regions;
	bool refresh;
	uint64_t watch_us;
	uint64_t count;
	const char *input;
} ro;

enum { O_PID = 300, O_REGIONS, O_WATCH, O_COUNT, O_REFRESH };

static const struct opt hp_opts[] = {
	{ "pid", O_PID, OV_PID, "PID", "also report process PID (repeatable)" },
	{ "regions", O_REGIONS, OV_NONE, NULL,
	  "with --pid: the mappings with the most and the least huge-page coverage" },
	{ "watch", O_WATCH, OV_TIME, "INTERVAL", "print a time series every INTERVAL" },
	{ "count", O_COUNT, OV_INT, "N", "with --watch: stop after N samples" },
	{ "refresh", O_REFRESH, OV_NONE, NULL,
	  "ask damonc's own running kdamonds to update their stats first" },
	{ "input", 'i', OV_FILE, "FILE", "report from a record (damonc record) instead" },
	{ 0 },
};

static int hp_parse(struct cli *cli, int key, const char *arg)
{
	switch (key) {
	case O_PID:
		if (ro.nr_pids >= MAX_PIDS)
			return usage_error(cli, "--pid: at most %d processes", MAX_PIDS);
		return parse_pid_opt(cli, "pid", arg, &ro.pids[ro.nr_pids++]);
	case O_REGIONS:
		ro.regions = true;
		return 0;
	case O_WATCH:
		if (parse_time_opt(cli, "watch", arg, &ro.watch_us))
			return EXIT_USAGE;
		if (ro.watch_us < 10000)
			return usage_error(cli, "--watch '%s': at least 10ms", arg);
		return 0;
	case O_COUNT:
		if (parse_uint_opt(cli, "count", arg, UINT32_MAX, &ro.count))
			return EXIT_USAGE;
		return ro.count ? 0 : usage_error(cli, "--count '%s': at least 1", arg);
	case O_REFRESH:
		ro.refresh = true;
		return 0;
	case 'i':
		ro.input = arg;
		return 0;
	}
	return EXIT_USAGE;
}

/* ---- the data model: gathered once, rendered as text or JSON ---- */

static const char *const thp_files[] = {
	"kernel/mm/transparent_hugepage/enabled",
	"kernel/mm/transparent_hugepage/defrag",
	"kernel/mm/transparent_hugepage/shmem_enabled",
	"kernel/mm/transparent_hugepage/khugepaged/defrag",
	"kernel/mm/transparent_hugepage/khugepaged/pages_to_scan",
	"kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs",
	"kernel/mm/transparent_hugepage/khugepaged/max_ptes_none",
	"kernel/mm/transparent_hugepage/khugepaged/pages_collapsed",
	"kernel/mm/transparent_hugepage/khugepaged/full_scans",
};

static const char *const vmstat_names[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_file_alloc", "thp_split_page",
	"thp_split_page_failed", "thp_deferred_split_page", "thp_split_pmd",
	"thp_zero_page_alloc", "thp_swpout", "thp_swpout_fallback",
};
#define NR_VMSTAT (sizeof(vmstat_names) / sizeof(vmstat_names[0]))
#define NR_THP (sizeof(thp_files) / sizeof(thp_files[0]))

struct vma_cov {
	uint64_t start, end, rss, anon_huge;
	char name[64];
};

struct proc_report {
	int pid;
	bool gone;
	struct damonctl_proc_mem mem;
	struct vma_cov most[TOP_VMAS], least[TOP_VMAS];
	unsigned int nr_most, nr_least;
};

struct scheme_report {
	unsigned int kdamond, scheme;
	char action[24];
	bool ours;
	bool agent;			/* the agent collapses or feeds the goal */
	char tuner[16];
	unsigned int nr_goals;
	struct { char metric[32]; uint64_t target, current; bool fed; } goals[8];
	bool has_effective;
	uint64_t effective_bytes;
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	bool agent_collapses;		/* the agent, not the kernel, collapses */
	bool agent_paces;		/* the kernel collapses what the agent allows it */
	struct agent_stats hot;		/* the agent's last look at hot and cold memory */
	uint64_t agent_nr_applied, agent_sz_applied;
	uint64_t agent_nr_tried, agent_sz_tried, agent_qt_exceeds, agent_sz_collapsed;
	enum agent_server server;	/* who serves the agent's part now */
	int server_pid;
};

struct hp_report {
	char thp[NR_THP][64];
	bool thp_has[NR_THP];
	uint64_t vmstat[NR_VMSTAT];
	struct damonctl_meminfo mem;
	uint64_t used, huge, bp;
	unsigned int nr_procs;
	struct proc_report procs[MAX_PIDS];
	unsigned int nr_schemes;
	struct scheme_report schemes[64];
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* A process's huge pages over its RSS, in basis points: what a pid-scope goal measures. */
static uint64_t proc_bp(const struct proc_report *p)
{
	return damonctl_hugepage_bp(damonctl_proc_mem_huge(&p->mem), p->mem.rss);
}

struct vma_ctx {
	struct proc_report *p;
};

static void insert_top(struct vma_cov *arr, unsigned int *nr, const struct vma_cov *v,
		       bool most)
{
	unsigned int i, pos = *nr;
	double cv = pct(v->anon_huge, v->rss);

	for (i = 0; i < *nr; i++) {
		double ci = pct(arr[i].anon_huge, arr[i].rss);

		if (most ? cv > ci : cv < ci) {
			pos = i;
			break;
		}
	}
	if (pos >= TOP_VMAS)
		return;
	if (*nr < TOP_VMAS)
		(*nr)++;
	memmove(&arr[pos + 1], &arr[pos], (*nr - pos - 1) * sizeof(*arr));
	arr[pos] = *v;
}

static int on_vma(void *data, const struct damonctl_vma *v)
{
	struct vma_ctx *vc = data;
	struct vma_cov c;

	/* only mappings that could hold a huge page and hold memory */
	if (v->end - v->start < (2u << 20) || !v->rss)
		return 0;
	c.start = v->start;
	c.end = v->end;
	c.rss = v->rss;
	c.anon_huge = v->anon_huge;
	snprintf(c.name, sizeof(c.name), "%s", *v->name ? v->name : "[anon]");
	insert_top(vc->p->most, &vc->p->nr_most, &c, true);
	insert_top(vc->p->least, &vc->p->nr_least, &c, false);
	return 0;
}

/* 0, or -errno; -ENOENT: no DAMON here (the memory part still stands). */
static int gather_schemes(struct cli *cli, struct hp_report *rep, const struct started *started)
{
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	unsigned int i;
	int r;

	r = damonctl_tree_read(cli->ctx, &t);
	if (r)
		return r;
	damonctl_for_each_kdamond(t, k, i) {
		struct damonctl_context *c = damonctl_kdamond_context(k, 0);
		struct started_entry *e = started_owns(started, k) ?
			started_find((struct started *)started, i) : NULL;
		struct agent_stats ast = { 0 };
		struct damonctl_scheme *s;
		unsigned int si;

		if (!c)
			continue;
		if (e && e->fbs.nr)
			agent_stats_load(cli->ctx, i, &ast);
		damonctl_for_each_scheme(c, s, si) {
			const char *action = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);
			struct scheme_report *sr;
			struct damonctl_goal *g;
			unsigned int gi, f;
			bool hp = !strcmp(action, "collapse") || !strcmp(action, "hugepage");

			for (f = 0; e && f < e->fbs.nr; f++)
				if (e->fbs.fb[f].scheme == si)
					hp = true;
			damonctl_for_each_goal(s, g, gi)
				if (!strcmp(damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC),
					    "hugepage_mem_bp"))
					hp = true;
			if (!hp || rep->nr_schemes >= 64)
				continue;
			sr = &rep->schemes[rep->nr_schemes++];
			memset(sr, 0, sizeof(*sr));
			sr->kdamond = i;
			sr->scheme = si;
			sr->ours = e != NULL;
			if (e && started_needs_agent(e))
				sr->server = agent_view_server(cli, e, &sr->server_pid);
			snprintf(sr->action, sizeof(sr->action), "%s", action);
			if (damonctl_scheme_has(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER))
				snprintf(sr->tuner, sizeof(sr->tuner), "%s", damonctl_scheme_get_str(
					s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER));
			damonctl_for_each_goal(s, g, gi) {
				if (sr->nr_goals >= 8)
					break;
				snprintf(sr->goals[sr->nr_goals].metric, 32, "%s",
					 damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC));
				sr->goals[sr->nr_goals].target =
					damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE);
				sr->goals[sr->nr_goals].current =
					damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE);
				for (f = 0; e && f < e->fbs.nr; f++)
					if (e->fbs.fb[f].kind == FB_HUGEPAGE_GOAL &&
					    e->fbs.fb[f].scheme == si && e->fbs.fb[f].goal == gi) {
						/* the agent's stand-in: show what it stands for */
						snprintf(sr->goals[sr->nr_goals].metric, 32,
							 "hugepage_mem_bp");
						sr->goals[sr->nr_goals].fed = true;
						sr->agent = true;
					}
				sr->nr_goals++;
			}
			for (f = 0; e && f < e->fbs.nr; f++) {
				const struct fallback *fb = &e->fbs.fb[f];

				if (fb->kind != FB_COLLAPSE || fb->scheme != si)
					continue;
				sr->agent = true;
				sr->hot = ast;
				for (unsigned int a = 0; a < ast.nr; a++) {
					if (ast.s[a].scheme != si)
						continue;
					sr->agent_nr_applied = ast.s[a].nr_applied;
					sr->agent_sz_applied = ast.s[a].sz_applied;
					sr->agent_nr_tried = ast.s[a].nr_tried;
					sr->agent_sz_tried = ast.s[a].sz_tried;
					sr->agent_qt_exceeds = ast.s[a].qt_exceeds;
					sr->agent_sz_collapsed = ast.s[a].sz_collapsed;
				}
				if (fb->by_kernel) {
					sr->agent_paces = true;
					continue;
				}
				sr->agent_collapses = true;
				snprintf(sr->action, sizeof(sr->action), "collapse");
				if (fb->target_bp && sr->nr_goals < 8) {
					snprintf(sr->goals[sr->nr_goals].metric, 32, "hugepage_mem_bp");
					sr->goals[sr->nr_goals].target = fb->target_bp;
					sr->goals[sr->nr_goals].current = ast.measured_bp;
					sr->goals[sr->nr_goals].fed = true;
					sr->nr_goals++;
				}
			}
			sr->has_effective = damonctl_scheme_has(s,
						DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
			sr->effective_bytes = damonctl_scheme_get(s,
						DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES);
			sr->nr_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_TRIED);
			sr->sz_tried = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_TRIED);
			sr->nr_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_NR_APPLIED);
			sr->sz_applied = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_SZ_APPLIED);
			sr->qt_exceeds = damonctl_scheme_get(s, DAMONCTL_SCHEME_STAT_QT_EXCEEDS);
		}
	}
	damonctl_tree_free(t);
	return 0;
}

/* Ask damonc's own running kdamonds for fresh stats (never anyone else's). */
static void refresh_ours(struct cli *cli, const struct started *started)
{
	unsigned int i;

	for (i = 0; i < started->nr; i++) {
		int pid = -1;

		if (damonctl_kdamond_is_running(cli->ctx, started->e[i].kdamond, &pid) != 1 ||
		    pid != started->e[i].pid)
			continue;
		damonctl_kdamond_cmd(cli->ctx, started->e[i].kdamond,
				     DAMONCTL_CMD_UPDATE_SCHEMES_STATS);
		damonctl_kdamond_cmd(cli->ctx, started->e[i].kdamond,
				     DAMONCTL_CMD_UPDATE_SCHEMES_EFFECTIVE_QUOTAS);
	}
	damonctl_clear_error(cli->ctx);
}

static int gather(struct cli *cli, struct hp_report *rep, bool with_schemes)
{
	struct started started;
	unsigned int i;
	int r;

	memset(rep, 0, sizeof(*rep));
	r = damonctl_meminfo_read(cli->ctx, &rep->mem);
	if (r)
		return lib_error(cli, r, "reading /proc/meminfo");
	rep->used = damonctl_meminfo_used(&rep->mem);
	rep->huge = damonctl_meminfo_huge(&rep->mem);
	rep->bp = damonctl_meminfo_hugepage_bp(&rep->mem);
	for (i = 0; i < NR_THP; i++)
		rep->thp_has[i] = !damonctl_sys_read(cli->ctx, thp_files[i], rep->thp[i],
						     sizeof(rep->thp[i]));
	damonctl_vmstat_read(cli->ctx, vmstat_names, rep->vmstat, NR_VMSTAT);
	for (i = 0; i < ro.nr_pids; i++) {
		struct proc_report *p = &rep->procs[rep->nr_procs++];
		struct vma_ctx vc = { p };

		p->pid = ro.pids[i];
		r = damonctl_proc_mem_read(cli->ctx, p->pid, &p->mem);
		if (r == -ESRCH) {
			p->gone = true;
			continue;
		}
		if (r)
			return lib_error(cli, r, "reading process %d", p->pid);
		if (ro.regions)
			damonctl_proc_vmas(cli->ctx, p->pid, on_vma, &vc);
	}
	damonctl_clear_error(cli->ctx);
	if (!with_schemes)
		return 0;
	if (started_load(cli->ctx, &started))
		memset(&started, 0, sizeof(started));
	if (ro.refresh)
		refresh_ours(cli, &started);
	r = gather_schemes(cli, rep, &started);
	started_free(&started);
	if (r && r != -ENOENT)
		return lib_error(cli, r, "reading the DAMON tree");
	damonctl_clear_error(cli->ctx);
	return 0;
}

/* ---- rendering ---- */

static const char *leaf(const char *path)
{
	const char *p = strrchr(path, '/');

	return p ? p + 1 : path;
}

/* The mappings of one end of the coverage ranking, the label on the first line only. */
static void print_vmas(const char *label, const struct vma_cov *v, unsigned int nr)
{
	char a[32], b[32];
	unsigned int j;

	for (j = 0; j < nr; j++)
		printf("  %-*s 0x%" PRIx64 "-0x%" PRIx64 " %s: %s huge of %s (%.1f%%)\n",
		       (int)strlen(label), j ? "" : label, v[j].start, v[j].end, v[j].name,
		       fmt_size(v[j].anon_huge, a, sizeof(a)), fmt_size(v[j].rss, b, sizeof(b)),
		       pct(v[j].anon_huge, v[j].rss));
}

static void print_text(const struct hp_report *rep)
{
	char a[32], b[32], c[32];
	unsigned int i, j;

	printf("System\n");
	printf("  huge pages %s of %s used memory: %s (%" PRIu64 " bp, as hugepage_mem_bp)\n",
	       fmt_size(rep->huge, a, sizeof(a)), fmt_size(rep->used, b, sizeof(b)),
	       fmt_bp(rep->bp, c, sizeof(c)), rep->bp);
	printf("    anon %s, shmem %s, file %s\n", fmt_size(rep->mem.anon_huge, a, sizeof(a)),
	       fmt_size(rep->mem.shmem_huge, b, sizeof(b)),
	       fmt_size(rep->mem.file_huge, c, sizeof(c)));
	printf("  THP:");
	for (i = 0; i < 3; i++)
		if (rep->thp_has[i])
			printf(" %s=%s", leaf(thp_files[i]), rep->thp[i]);
	printf("\n  khugepaged:");
	for (i = 3; i < NR_THP; i++)
		if (rep->thp_has[i])
			printf(" %s=%s", leaf(thp_files[i]), rep->thp[i]);
	printf("\n  vmstat:");
	for (i = 0; i < NR_VMSTAT; i++)
		printf(" %s=%" PRIu64, vmstat_names[i], rep->vmstat[i]);
	printf("\n");
	for (i = 0; i < rep->nr_procs; i++) {
		const struct proc_report *p = &rep->procs[i];

		if (p->gone) {
			printf("\nProcess %d: gone\n", p->pid);
			continue;
		}
		printf("\nProcess %d\n  rss %s, huge %s: %.2f%%\n", p->pid,
		       fmt_size(p->mem.rss, a, sizeof(a)),
		       fmt_size(damonctl_proc_mem_huge(&p->mem), b, sizeof(b)),
		       (double)proc_bp(p) / 100);
		if (ro.regions) {
			print_vmas("most: ", p->most, p->nr_most);
			print_vmas("least: ", p->least, p->nr_least);
		}
	}
	for (i = 0; i < rep->nr_schemes; i++) {
		const struct scheme_report *s = &rep->schemes[i];
		char who[256];

		if (s->agent)
			agent_view_server_text(s->server, s->server_pid, who, sizeof(who));
		printf("\nkdamond %u scheme %u: %s, %s%s%s\n", s->kdamond, s->scheme, s->action,
		       s->agent_collapses ? "served by " : s->agent_paces ?
		       "applied by the kernel within a budget in huge pages kept by " : s->agent ?
		       "applied by the kernel, its goal fed by " : "served by the kernel",
		       s->agent ? who : "", s->ours ? "" : ", not started by damonc");
		for (j = 0; j < s->nr_goals; j++)
			printf("  goal %s: target %" PRIu64 ", current %" PRIu64 "%s\n",
			       s->goals[j].metric, s->goals[j].target, s->goals[j].current,
			       s->goals[j].fed ? " (measured by the agent)" :
			       !strcmp(s->goals[j].metric, "user_input") ? "" :
			       " (the kernel measures it; sysfs shows no current value)");
		if (*s->tuner && s->nr_goals)
			printf("  tuner: %s\n", s->tuner);
		if (s->has_effective)
			printf("  effective quota: %s\n", fmt_size(s->effective_bytes, a, sizeof(a)));
		if (s->agent_collapses) {
			printf("  agent collapsed: %" PRIu64 " regions, %s\n", s->agent_nr_applied,
			       fmt_size(s->agent_sz_applied, a, sizeof(a)));
			printf("  agent stats: tried %" PRIu64 " regions (%s), applied %" PRIu64
			       " (%s), quota exceeded %" PRIu64 "; newly huge %s\n",
			       s->agent_nr_tried, fmt_size(s->agent_sz_tried, a, sizeof(a)),
			       s->agent_nr_applied, fmt_size(s->agent_sz_applied, b, sizeof(b)),
			       s->agent_qt_exceeds, fmt_size(s->agent_sz_collapsed, c, sizeof(c)));
			printf("  the kernel's stats below are its stat stand-in's, which finds the "
			       "regions and applies nothing:\n");
		}
		printf("  kernel stats: tried %" PRIu64 " regions (%s), applied %" PRIu64
		       " (%s), quota exceeded %" PRIu64 "\n", s->nr_tried,
		       fmt_size(s->sz_tried, a, sizeof(a)), s->nr_applied,
		       fmt_size(s->sz_applied, b, sizeof(b)), s->qt_exceeds);
		if (s->agent_paces)
			printf("  allowed by the agent so far: %s in %" PRIu64 " steps\n",
			       fmt_size(s->agent_sz_tried, a, sizeof(a)), s->agent_nr_tried);
		agent_view_hot_text(stdout, &s->hot, "  ");
	}
}

/* A process's figures, as the report and each --watch sample give them. */
static json_object *proc_json(const struct proc_report *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "exists", json_object_new_boolean(!p->gone));
	if (!p->gone) {
		json_object_object_add(o, "rss", json_object_new_uint64(p->mem.rss));
		json_object_object_add(o, "anon_huge", json_object_new_uint64(p->mem.anon_huge));
		json_object_object_add(o, "huge", json_object_new_uint64(
			damonctl_proc_mem_huge(&p->mem)));
		json_object_object_add(o, "hugepage_bp", json_object_new_uint64(proc_bp(p)));
	}
	return o;
}

static json_object *report_json(const struct hp_report *rep)
{
	json_object *doc = json_doc_new(), *sys = json_object_new_object();
	json_object *thp = json_object_new_object(), *vm = json_object_new_object();
	json_object *mem = json_object_new_object(), *procs = json_object_new_array();
	json_object *schemes = json_object_new_array();
	unsigned int i, j;

	for (i = 0; i < NR_THP; i++) {
		char key[64];

		if (!rep->thp_has[i])
			continue;
		snprintf(key, sizeof(key), "%s%s", i >= 3 ? "khugepaged_" : "", leaf(thp_files[i]));
		json_object_object_add(thp, key, json_object_new_string(rep->thp[i]));
	}
	for (i = 0; i < NR_VMSTAT; i++)
		json_object_object_add(vm, vmstat_names[i], json_object_new_uint64(rep->vmstat[i]));
	json_object_object_add(mem, "total", json_object_new_uint64(rep->mem.total));
	json_object_object_add(mem, "free", json_object_new_uint64(rep->mem.free));
	json_object_object_add(mem, "used", json_object_new_uint64(rep->used));
	json_object_object_add(mem, "anon_huge", json_object_new_uint64(rep->mem.anon_huge));
	json_object_object_add(mem, "shmem_huge", json_object_new_uint64(rep->mem.shmem_huge));
	json_object_object_add(mem, "file_huge", json_object_new_uint64(rep->mem.file_huge));
	json_object_object_add(mem, "huge", json_object_new_uint64(rep->huge));
	json_object_object_add(sys, "memory", mem);
	json_object_object_add(sys, "hugepage_bp", json_object_new_uint64(rep->bp));
	json_object_object_add(sys, "thp", thp);
	json_object_object_add(sys, "vmstat", vm);
	json_object_object_add(doc, "system", sys);
	for (i = 0; i < rep->nr_procs; i++) {
		const struct proc_report *p = &rep->procs[i];
		json_object *o = proc_json(p);

		if (ro.regions && !p->gone) {
			const struct { const char *key; const struct vma_cov *v; unsigned int n; }
			lists[] = { { "most_huge", p->most, p->nr_most },
				    { "least_huge", p->least, p->nr_least } };

			for (j = 0; j < 2; j++) {
				json_object *arr = json_object_new_array();
				unsigned int m;

				for (m = 0; m < lists[j].n; m++) {
					json_object *v = json_object_new_object();

					json_object_object_add(v, "start",
						json_object_new_uint64(lists[j].v[m].start));
					json_object_object_add(v, "end",
						json_object_new_uint64(lists[j].v[m].end));
					json_object_object_add(v, "name",
						json_object_new_string(lists[j].v[m].name));
					json_object_object_add(v, "rss",
						json_object_new_uint64(lists[j].v[m].rss));
					json_object_object_add(v, "anon_huge",
						json_object_new_uint64(lists[j].v[m].anon_huge));
					json_object_array_add(arr, v);
				}
				json_object_object_add(o, lists[j].key, arr);
			}
		}
		json_object_array_add(procs, o);
	}
	json_object_object_add(doc, "processes", procs);
	for (i = 0; i < rep->nr_schemes; i++) {
		const struct scheme_report *s = &rep->schemes[i];
		json_object *o = json_object_new_object(), *goals = json_object_new_array();
		json_object *st = json_object_new_object();

		json_object_object_add(o, "kdamond", json_object_new_int((int)s->kdamond));
		json_object_object_add(o, "scheme", json_object_new_int((int)s->scheme));
		json_object_object_add(o, "action", json_object_new_string(s->action));
		/* served_by: the agent has a part in it; applied_by: who carries out the action */
		json_object_object_add(o, "served_by", json_object_new_string(s->agent ? "agent" :
									       "kernel"));
		json_object_object_add(o, "applied_by", json_object_new_string(
			s->agent_collapses ? "agent" : "kernel"));
		json_object_object_add(o, "paced_by_agent", json_object_new_boolean(s->agent_paces));
		json_object_object_add(o, "hot", agent_view_hot_json(&s->hot));
		json_object_object_add(o, "started_by_damonc", json_object_new_boolean(s->ours));
		for (j = 0; j < s->nr_goals; j++) {
			json_object *g = json_object_new_object();

			json_object_object_add(g, "metric", json_object_new_string(s->goals[j].metric));
			json_object_object_add(g, "target_value",
					       json_object_new_uint64(s->goals[j].target));
			json_object_object_add(g, "current_value",
					       json_object_new_uint64(s->goals[j].current));
			json_object_object_add(g, "measured_by", json_object_new_string(
				s->goals[j].fed ? "agent" : "kernel"));
			json_object_array_add(goals, g);
		}
		json_object_object_add(o, "goals", goals);
		json_object_object_add(o, "goal_tuner", *s->tuner ?
				       json_object_new_string(s->tuner) : NULL);
		json_object_object_add(o, "effective_bytes", s->has_effective ?
				       json_object_new_uint64(s->effective_bytes) : NULL);
		json_object_object_add(st, "nr_tried", json_object_new_uint64(s->nr_tried));
		json_object_object_add(st, "sz_tried", json_object_new_uint64(s->sz_tried));
		json_object_object_add(st, "nr_applied", json_object_new_uint64(s->nr_applied));
		json_object_object_add(st, "sz_applied", json_object_new_uint64(s->sz_applied));
		json_object_object_add(st, "qt_exceeds", json_object_new_uint64(s->qt_exceeds));
		json_object_object_add(o, "stats", st);
		if (s->agent) {
			json_object *ag = json_object_new_object();

			json_object_object_add(o, "agent_served_by", json_object_new_string(
				agent_view_server_key(s->server)));
			json_object_object_add(o, "agent_pid", s->server_pid ?
					       json_object_new_int(s->server_pid) : NULL);
			json_object_object_add(ag, "nr_tried",
					       json_object_new_uint64(s->agent_nr_tried));
			json_object_object_add(ag, "sz_tried",
					       json_object_new_uint64(s->agent_sz_tried));
			json_object_object_add(ag, "qt_exceeds",
					       json_object_new_uint64(s->agent_qt_exceeds));
			json_object_object_add(ag, "sz_collapsed",
					       json_object_new_uint64(s->agent_sz_collapsed));

			json_object_object_add(ag, "nr_applied",
					       json_object_new_uint64(s->agent_nr_applied));
			json_object_object_add(ag, "sz_applied",
					       json_object_new_uint64(s->agent_sz_applied));
			json_object_object_add(o, "agent_stats", ag);
		}
		json_object_array_add(schemes, o);
	}
	json_object_object_add(doc, "schemes", schemes);
	return doc;
}

/* ---- --watch ---- */

static volatile sig_atomic_t watch_stop;

static void on_watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

static uint64_t collapsed_bytes(const struct hp_report *rep)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < rep->nr_schemes; i++)
		if (!strcmp(rep->schemes[i].action, "collapse"))
			sum += rep->schemes[i].agent_collapses ? rep->schemes[i].agent_sz_applied :
				rep->schemes[i].sz_applied;
	return sum;
}

static int watch(struct cli *cli)
{
	struct sigaction sa = { .sa_handler = on_watch_signal };
	struct hp_report *rep = malloc(sizeof(*rep));
	struct timespec t0, now;
	uint64_t base = 0, n = 0;
	char a[32], b[32], c[32];
	int r = 0;

	if (!rep)
		return usage_error(cli, "out of memory");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!cli->json)
		printf("%10s %12s %12s %9s %14s\n", "time", "used", "huge", "ratio", "collapsed");
	while (!watch_stop && (!ro.count || n < ro.count)) {
		double secs;
		unsigned int i;

		r = gather(cli, rep, true);
		if (r)
			break;
		if (!n)
			base = collapsed_bytes(rep);
		clock_gettime(CLOCK_MONOTONIC, &now);
		secs = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (cli->json) {
			json_object *o = json_object_new_object(), *procs = json_object_new_array();

			json_object_object_add(o, "format_version",
					       json_object_new_int(DAMONC_JSON_FORMAT_VERSION));
			/* to the millisecond, not the 17 digits json-c prints for a double */
			snprintf(a, sizeof(a), "%.3f", secs);
			json_object_object_add(o, "time", json_object_new_double_s(strtod(a, NULL), a));
			json_object_object_add(o, "timestamp", json_object_new_int64(time(NULL)));
			json_object_object_add(o, "used", json_object_new_uint64(rep->used));
			json_object_object_add(o, "huge", json_object_new_uint64(rep->huge));
			json_object_object_add(o, "hugepage_bp", json_object_new_uint64(rep->bp));
			json_object_object_add(o, "collapsed", json_object_new_uint64(
				collapsed_bytes(rep) - base));
			for (i = 0; i < rep->nr_procs; i++)
				json_object_array_add(procs, proc_json(&rep->procs[i]));
			json_object_object_add(o, "processes", procs);
			/* JSON Lines: one object per sample, flushed so pipes see it at once */
			printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
			json_object_put(o);
		} else {
			printf("%9.1fs %12s %12s %8.2f%% %14s", secs, fmt_size(rep->used, a, sizeof(a)),
			       fmt_size(rep->huge, b, sizeof(b)), (double)rep->bp / 100,
			       fmt_size(collapsed_bytes(rep) - base, c, sizeof(c)));
			for (i = 0; i < rep->nr_procs; i++) {
				const struct proc_report *p = &rep->procs[i];

				if (p->gone)
					printf("  pid %d: gone", p->pid);
				else
					printf("  pid %d: %s huge of %s (%.2f%%)", p->pid,
					       fmt_size(damonctl_proc_mem_huge(&p->mem), a,
							sizeof(a)),
					       fmt_size(p->mem.rss, b, sizeof(b)),
					       (double)proc_bp(p) / 100);
			}
			printf("\n");
		}
		if (fflush(stdout)) {
			r = EXIT_FAIL;	/* the reader went away */
			break;
		}
		n++;
		if (ro.count && n >= ro.count)
			break;
		{
			struct timespec ts = { (time_t)(ro.watch_us / 1000000),
					       (long)(ro.watch_us % 1000000) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	free(rep);
	return r;
}

static int hp_run(struct cli *cli, int argc, char **argv)
{
	struct hp_report *rep;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (ro.input && (ro.nr_pids || ro.watch_us || ro.refresh))
		return usage_error(cli, "-i reads a record: --pid, --watch and --refresh are for "
				   "the running system");
	if (ro.input)
		return hugepage_record_report(cli, ro.input);
	if (ro.regions && !ro.nr_pids)
		return usage_error(cli, "--regions needs --pid");
	if (ro.count && !ro.watch_us)
		return usage_error(cli, "--count goes with --watch");
	if (ro.watch_us)
		return watch(cli);	/* a process that ends meanwhile is shown as gone */
	for (unsigned int i = 0; i < ro.nr_pids; i++)
		if (damonctl_proc_alive(cli->ctx, ro.pids[i]) <= 0)
			return usage_error(cli, "--pid %d: no such process", ro.pids[i]);
	rep = malloc(sizeof(*rep));
	if (!rep)
		return usage_error(cli, "out of memory");
	r = gather(cli, rep, true);
	if (!r) {
		if (cli->json)
			r = json_doc_print(report_json(rep)) ? EXIT_FAIL : EXIT_OK;
		else
			print_text(rep);
	}
	free(rep);
	return r;
}

const struct cmd cmd_report_hugepage = {
	.name = "hugepage",
	.summary = "huge pages: system ratio (as hugepage_mem_bp), processes, collapse schemes",
	.usage = "[--pid PID [--regions]] [--watch INTERVAL [--count N]] [--refresh] [--json]\n"
		 "       damonc report hugepage -i FILE [--json]",
	.opts = hp_opts,
	.parse = hp_parse,
	.run = hp_run,
};
