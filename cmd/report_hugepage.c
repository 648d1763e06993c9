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
#include <math.h>
#include <string.h>
#include <time.h>

#include "agent_stats.h"
#include "chart_out.h"
#include "agent_view.h"
#include "hugepage_record.h"
#include "scheme_view.h"
#include "started.h"

#define MAX_PIDS 16
#define TOP_VMAS 5

struct hp_opts {
	int pids[MAX_PIDS];
	unsigned int nr_pids;
	bool regions;
	bool refresh;
	uint64_t watch_us;
	uint64_t count;
	const char *input;
	uint64_t khp_trace_us;
	int format;		/* HP_TEXT, HP_PNG, HP_SVG */
	bool format_set;
	const char *output;
};

enum { O_PID = 300, O_REGIONS, O_WATCH, O_COUNT, O_REFRESH, O_KHP_TRACE, O_FORMAT };
enum { HP_TEXT, HP_PNG, HP_SVG };	/* --format's choices, in order */

#define TO(kind, member) OPT_TO(kind, struct hp_opts, member)
static const struct opt hp_opts_tbl[] = {
	{ "pid", O_PID, OV_PID, "PID", "also report process PID (repeatable)" },
	{ "regions", O_REGIONS, OV_NONE, NULL,
	  "with --pid: the mappings with the most and the least huge-page coverage",
	  TO(OD_FLAG, regions) },
	{ "watch", O_WATCH, OV_TIME, "INTERVAL", "print a time series every INTERVAL" },
	{ "count", O_COUNT, OV_INT, "N", "with --watch: stop after N samples" },
	{ "refresh", O_REFRESH, OV_NONE, NULL,
	  "ask damonc's own running kdamonds to update their stats first", TO(OD_FLAG, refresh) },
	{ "input", 'i', OV_FILE, "FILE", "report from a record (damonc record) instead",
	  TO(OD_STRING, input) },
	{ "khugepaged-trace", O_KHP_TRACE, OV_TIME, "TIME",
	  "count what khugepaged's scans find for TIME (its trace event, in an instance of "
	  "damonc's own)" },
	{ "format", O_FORMAT, OV_FORMAT, "text|png|svg", "text (default), or a chart: with "
	  "--watch, of the ratios and the goals over time, drawn when the samples end; with -i, "
	  "of the record's accessed memory in whole huge pages and the system's huge pages" },
	{ "output", 'o', OV_FILE, "FILE", "write the chart to FILE (needed for png on a terminal)",
	  TO(OD_STRING, output) },
	{ 0 },
};
#undef TO

static int hp_parse(struct cli *cli, int key, const char *arg)
{
	struct hp_opts *ro = cli->opts;
	switch (key) {
	case O_PID:
		if (ro->nr_pids >= MAX_PIDS)
			return usage_error(cli, "--pid: at most %d processes", MAX_PIDS);
		return parse_pid_opt(cli, "pid", arg, &ro->pids[ro->nr_pids++]);
	case O_WATCH:
		if (parse_time_opt(cli, "watch", arg, &ro->watch_us))
			return EXIT_USAGE;
		if (ro->watch_us < 10000)
			return usage_error(cli, "--watch '%s': at least 10ms", arg);
		return check_wait(cli, "watch", arg, ro->watch_us);
	case O_COUNT:
		if (parse_uint_opt(cli, "count", arg, UINT32_MAX, &ro->count))
			return EXIT_USAGE;
		return ro->count ? 0 : usage_error(cli, "--count '%s': at least 1", arg);
	case O_FORMAT:
		ro->format = opt_choice(cli, hp_opts_tbl, O_FORMAT, arg);
		ro->format_set = true;
		return ro->format < 0 ? EXIT_USAGE : 0;
	case O_KHP_TRACE:
		if (parse_time_opt(cli, "khugepaged-trace", arg, &ro->khp_trace_us))
			return EXIT_USAGE;
		if (!ro->khp_trace_us || ro->khp_trace_us > 3600ull * 1000000)
			return usage_error(cli, "--khugepaged-trace '%s': from 1us to 1h", arg);
		return 0;
	}
	return EXIT_USAGE;
}

/* ---- the data model: gathered once, rendered as text or JSON ---- */

struct proc_report {
	int pid;
	bool gone;
	struct damonctl_hugepage_proc *hp;	/* the library's figures (NULL: gone, or --watch) */
	struct damonctl_proc_mem mem;		/* its memory figures (--watch: the meter's) */
	uint64_t bp;
};

/* The library's objects, and the schemes as damonc sees them (its agent, its kdamonds). */
struct hp_report {
	struct damonctl_thp *thp;
	struct damonctl_meminfo mem;
	uint64_t used, huge, bp;
	unsigned int nr_procs;
	struct proc_report procs[MAX_PIDS];
	unsigned int nr_schemes;
	struct scheme_view schemes[64];
	struct damonctl_khugepaged_scans *khp;	/* with --khugepaged-trace */
	const struct hp_opts *ro;		/* what was asked: --regions, the trace's time */
	bool schemes_unreadable;		/* DAMON's files are root's (said once) */
	/* --watch: the processes' figures, kept between samples (their page tables walked
	 * only when something changed them, damonctl_hugepage_meter_new(3)) */
	struct damonctl_hugepage_meter *meter;
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static uint64_t proc_bp(const struct proc_report *p)
{
	return p->bp;
}

static const struct damonctl_proc_mem *proc_mem(const struct proc_report *p)
{
	return &p->mem;
}

/* Free what the last gather read; @rep is then empty but for its meter. */
static void hp_report_clear(struct hp_report *rep)
{
	struct damonctl_hugepage_meter *meter = rep->meter;
	unsigned int i;

	damonctl_thp_free(rep->thp);
	for (i = 0; i < rep->nr_procs; i++)
		damonctl_hugepage_proc_free(rep->procs[i].hp);
	damonctl_khugepaged_scans_free(rep->khp);
	memset(rep, 0, sizeof(*rep));
	rep->meter = meter;
}

/* The processes' figures: each read whole (smaps_rollup, and its mappings with --regions),
 * or from the meter (--watch). */
static int gather_procs(struct cli *cli, struct hp_report *rep)
{
	const struct hp_opts *ro = cli->opts;
	struct damonctl_hugepage_meter_pid mp = { .sz = sizeof(mp) };
	uint64_t huge, used;
	unsigned int i;
	int r;

	if (rep->meter) {
		r = damonctl_hugepage_meter_set_pids(rep->meter, ro->pids, ro->nr_pids);
		if (!r)
			r = damonctl_hugepage_meter_read(rep->meter, 0, &huge, &used);
		if (r)
			return lib_error(cli, r, "reading the processes' memory");
	}
	for (i = 0; i < ro->nr_pids; i++) {
		struct proc_report *p = &rep->procs[rep->nr_procs++];

		p->pid = ro->pids[i];
		if (rep->meter) {
			damonctl_hugepage_meter_pid(rep->meter, i, &mp);
			p->gone = !mp.exists;
			/* the meter does not tell shmem from file huge pages: their sum */
			p->mem = (struct damonctl_proc_mem){ .rss = mp.rss, .anon_huge = mp.anon_huge,
							     .file_huge = mp.huge - mp.anon_huge };
			p->bp = damonctl_hugepage_bp(mp.huge, mp.rss);
			continue;
		}
		r = damonctl_hugepage_proc_read(cli->ctx, p->pid, ro->regions ? TOP_VMAS : 0, &p->hp);
		if (r == -ESRCH) {
			p->gone = true;
			continue;
		}
		if (r)
			return lib_error(cli, r, "reading process %d", p->pid);
		p->mem = *damonctl_hugepage_proc_mem(p->hp);
		p->bp = damonctl_hugepage_proc_bp(p->hp);
	}
	return 0;
}

/* 0, or -errno; -ENOENT: no DAMON here (the memory part still stands). */
static int gather_schemes(struct cli *cli, struct hp_report *rep, const struct started *started)
{
	struct damonctl_tree *t;
	struct damonctl_kdamond *k;
	unsigned int i;
	int r;

	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);
	if (r)
		return r;
	damonctl_for_each_kdamond(t, k, i) {
		struct damonctl_context *c = damonctl_kdamond_context(k, 0);
		struct started_entry *e = started_owns(started, k) ?
			started_find((struct started *)started, i) : NULL;
		struct damonctl_fallback_stats ast = { 0 };
		struct damonctl_scheme *s;
		unsigned int si;

		if (!c)
			continue;
		if (e && e->fbs.nr)
			agent_stats_load(cli->ctx, i, &ast);
		damonctl_for_each_scheme(c, s, si) {
			if (scheme_view_is_hugepage(e, s, si) && rep->nr_schemes < 64)
				scheme_view_read(cli, e, e && e->fbs.nr ? &ast : NULL, i, s, si,
						 &rep->schemes[rep->nr_schemes++]);
		}
	}
	damonctl_tree_free(t);
	return 0;
}

static int gather(struct cli *cli, struct hp_report *rep, bool with_schemes)
{
	const struct hp_opts *ro = cli->opts;
	bool unreadable = rep->schemes_unreadable;
	struct started started;
	int r;

	hp_report_clear(rep);
	rep->schemes_unreadable = unreadable;
	rep->ro = ro;
	rep->mem = (struct damonctl_meminfo)DAMONCTL_MEMINFO_INIT;
	r = damonctl_meminfo_read(cli->ctx, &rep->mem);
	if (r)
		return lib_error(cli, r, "reading /proc/meminfo");
	rep->used = damonctl_meminfo_used(&rep->mem);
	rep->huge = damonctl_meminfo_huge(&rep->mem);
	rep->bp = damonctl_meminfo_hugepage_bp(&rep->mem);
	r = damonctl_thp_read(cli->ctx, &rep->thp);
	if (r)
		return lib_error(cli, r, "reading the THP settings");
	r = gather_procs(cli, rep);
	if (r)
		return r;
	damonctl_clear_error(cli->ctx);
	if (!with_schemes)
		return 0;
	if (started_load(cli->ctx, &started))
		memset(&started, 0, sizeof(started));
	if (ro->refresh)
		started_refresh_stats(cli->ctx, &started, false);
	r = gather_schemes(cli, rep, &started);
	started_free(&started);
	/* not root: what memory and the processes one may read say stands, DAMON's part not */
	if ((r == -EACCES || r == -EPERM) && !rep->schemes_unreadable)
		warnx_("note: DAMON's sysfs files need root (CAP_SYS_ADMIN): its schemes are not "
		       "shown, what the memory and the processes say is");
	rep->schemes_unreadable = r == -EACCES || r == -EPERM;
	if (r && r != -ENOENT && !rep->schemes_unreadable)
		return lib_error(cli, r, "reading the DAMON tree");
	damonctl_clear_error(cli->ctx);
	return 0;
}

/* ---- rendering ---- */

static const char *vma_name(const struct damonctl_vma *v)
{
	return *v->name ? v->name : "[anon]";
}

/* The mappings of one end of the coverage ranking, the label on the first line only. */
static void print_vmas(const char *label, const struct proc_report *p, bool most)
{
	const struct damonctl_vma *v;
	char a[32], b[32], rg[48];
	size_t j;

	for (j = 0; (v = damonctl_hugepage_proc_vma(p->hp, most, j)); j++)
		printf("  %-*s %s %.63s: %s huge of %s (%.1f%%)\n",
		       (int)strlen(label), j ? "" : label,
		       fmt_range(v->start, v->end, rg, sizeof(rg)), vma_name(v),
		       fmt_size(v->anon_huge, a, sizeof(a)), fmt_size(v->rss, b, sizeof(b)),
		       pct(v->anon_huge, v->rss));
}

/* The THP settings of one kind (@modes: THP's, or khugepaged's), " name=value" each. */
static void print_thp_settings(const struct damonctl_thp *t, bool modes)
{
	enum damonctl_thp_kind kind;
	const char *name, *v;
	size_t i;

	for (i = 0; (name = damonctl_thp_setting_name(i, &kind)); i++)
		if ((kind == DAMONCTL_THP_MODE) == modes && (v = damonctl_thp_setting(t, i)))
			printf(" %s=%s", strrchr(name, '/') ? strrchr(name, '/') + 1 : name, v);
}

static void print_system_text(const struct hp_report *rep)
{
	const struct hp_opts *ro = rep->ro;
	struct damonctl_thp_made made = { .sz = sizeof(made) };
	char a[32], b[32], c[32];
	size_t i;

	printf("System\n");
	printf("  huge pages %s of %s used memory: %s (%" PRIu64 " bp, as hugepage_mem_bp)\n",
	       fmt_size(rep->huge, a, sizeof(a)), fmt_size(rep->used, b, sizeof(b)),
	       fmt_bp(rep->bp, c, sizeof(c)), rep->bp);
	printf("    anon %s, shmem %s, file %s\n", fmt_size(rep->mem.anon_huge, a, sizeof(a)),
	       fmt_size(rep->mem.shmem_huge, b, sizeof(b)),
	       fmt_size(rep->mem.file_huge, c, sizeof(c)));
	printf("  THP:");
	print_thp_settings(rep->thp, true);
	printf("\n  khugepaged:");
	print_thp_settings(rep->thp, false);
	printf("\n  vmstat:");
	for (i = 0; i < damonctl_thp_nr_vmstat(); i++)
		printf(" %s=%" PRIu64, damonctl_thp_vmstat_name(i), damonctl_thp_vmstat(rep->thp, i));
	printf("\n");
	damonctl_thp_made(rep->thp, &made);
	printf("  huge pages made since boot: %" PRIu64 " at page faults, %" PRIu64
	       " by khugepaged, %" PRIu64 " by MADV_COLLAPSE (DAMON's collapse action, "
	       "damonc's agent, others)\n", made.fault, made.khugepaged, made.madv_collapse);
	if (rep->khp) {
		const char *st;
		uint64_t n;

		printf("  khugepaged's scans in %s: %" PRIu64 " PMD ranges",
		       fmt_time(ro->khp_trace_us, a, sizeof(a)),
		       damonctl_khugepaged_scans_total(rep->khp));
		for (i = 0; (st = damonctl_khugepaged_scans_status(rep->khp, i, &n)); i++)
			printf("%s %s %" PRIu64, i ? "," : ":", st, n);
		printf("\n");
	}
}

static void print_text(const struct hp_report *rep)
{
	const struct hp_opts *ro = rep->ro;
	char a[32], b[32], c[32];
	unsigned int i, j;

	print_system_text(rep);
	for (i = 0; i < rep->nr_procs; i++) {
		const struct proc_report *p = &rep->procs[i];

		if (p->gone) {
			printf("\nProcess %d: gone\n", p->pid);
			continue;
		}
		printf("\nProcess %d\n  rss %s, huge %s: %.2f%%\n", p->pid,
		       fmt_size(proc_mem(p)->rss, a, sizeof(a)),
		       fmt_size(damonctl_proc_mem_huge(proc_mem(p)), b, sizeof(b)),
		       (double)proc_bp(p) / 100);
		if (ro->regions) {
			print_vmas("most: ", p, true);
			print_vmas("least: ", p, false);
		}
	}
	for (i = 0; i < rep->nr_schemes; i++) {
		const struct scheme_view *s = &rep->schemes[i];
		char who[256];

		if (s->v.served)
			agent_view_server_text(s->server, s->server_pid, who, sizeof(who));
		printf("\nkdamond %u scheme %u: %s, %s%s%s\n", s->kdamond, s->v.scheme, s->v.action,
		       s->v.program_collapses ? "served by " : s->v.program_paces ?
		       "applied by the kernel within a budget in huge pages kept by " : s->v.served ?
		       "applied by the kernel, its goal fed by " : "served by the kernel",
		       s->v.served ? who : "", s->ours ? "" : ", not started by damonc");
		for (j = 0; j < s->v.nr_goals; j++)
			printf("  goal %s: target %" PRIu64 ", current %" PRIu64 "%s\n",
			       s->v.goals[j].metric, s->v.goals[j].target, s->v.goals[j].current,
			       s->v.goals[j].fed ? " (measured by the agent)" :
			       !strcmp(s->v.goals[j].metric, "user_input") ? "" :
			       " (the kernel measures it; sysfs shows no current value)");
		if (*s->v.tuner && s->v.nr_goals)
			printf("  tuner: %s\n", s->v.tuner);
		if (s->v.has_effective)
			printf("  effective quota: %s\n", fmt_size(s->v.effective_bytes, a, sizeof(a)));
		if (s->v.program_collapses) {
			printf("  agent collapsed: %" PRIu64 " regions, %s\n", s->v.program.nr_applied,
			       fmt_size(s->v.program.sz_applied, a, sizeof(a)));
			printf("  agent stats: tried %" PRIu64 " regions (%s), applied %" PRIu64
			       " (%s), quota exceeded %" PRIu64 "; newly huge %s\n",
			       s->v.program.nr_tried, fmt_size(s->v.program.sz_tried, a, sizeof(a)),
			       s->v.program.nr_applied, fmt_size(s->v.program.sz_applied, b, sizeof(b)),
			       s->v.program.qt_exceeds, fmt_size(s->v.program.sz_collapsed, c, sizeof(c)));
			printf("  the kernel's stats below are its stat stand-in's, which finds the "
			       "regions and applies nothing:\n");
		}
		printf("  kernel stats: tried %" PRIu64 " regions (%s), applied %" PRIu64
		       " (%s), quota exceeded %" PRIu64 "\n", s->v.nr_tried,
		       fmt_size(s->v.sz_tried, a, sizeof(a)), s->v.nr_applied,
		       fmt_size(s->v.sz_applied, b, sizeof(b)), s->v.qt_exceeds);
		if (s->v.program_paces)
			printf("  allowed by the agent so far: %s in %" PRIu64 " steps\n",
			       fmt_size(s->v.program.sz_tried, a, sizeof(a)), s->v.program.nr_tried);
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
		json_object_object_add(o, "rss", json_object_new_uint64(proc_mem(p)->rss));
		json_object_object_add(o, "anon_huge", json_object_new_uint64(
			proc_mem(p)->anon_huge));
		json_object_object_add(o, "huge", json_object_new_uint64(
			damonctl_proc_mem_huge(proc_mem(p))));
		json_object_object_add(o, "hugepage_bp", json_object_new_uint64(proc_bp(p)));
	}
	return o;
}

/* The system's ratio and what it is made of, as the report and each --watch sample have it:
 * {"memory": {"used", "huge"}, "hugepage_bp"} (the report adds more to both). */
static json_object *system_ratio_json(const struct hp_report *rep)
{
	json_object *sys = json_object_new_object(), *mem = json_object_new_object();

	json_object_object_add(mem, "used", json_object_new_uint64(rep->used));
	json_object_object_add(mem, "huge", json_object_new_uint64(rep->huge));
	json_object_object_add(sys, "memory", mem);
	json_object_object_add(sys, "hugepage_bp", json_object_new_uint64(rep->bp));
	return sys;
}

/* The system part: the ratio, memory, who made the huge pages, khugepaged's scans (when
 * traced), the THP settings and the THP vmstat counters, in that key order. */
/* khugepaged's scans: {duration_us, scans, by_status: {status: count}}. */
static json_object *khugepaged_json(const struct damonctl_khugepaged_scans *khp,
				    uint64_t duration_us)
{
	json_object *k = json_object_new_object(), *by = json_object_new_object();
	const char *st;
	uint64_t n;
	size_t i;

	json_object_object_add(k, "duration_us", json_object_new_uint64(duration_us));
	json_object_object_add(k, "scans", json_object_new_uint64(
		damonctl_khugepaged_scans_total(khp)));
	for (i = 0; (st = damonctl_khugepaged_scans_status(khp, i, &n)); i++)
		json_object_object_add(by, st, json_object_new_uint64(n));
	json_object_object_add(k, "by_status", by);
	return k;
}

/* The THP settings, keyed by file name, khugepaged's with "khugepaged_" before theirs:
 * modes as selected ("madvise"), numbers (settings, times in ms, counters) as JSON
 * numbers (one that is not a number is left out, as a file the kernel lacks). */
static json_object *thp_json(const struct damonctl_thp *t)
{
	json_object *thp = json_object_new_object();
	enum damonctl_thp_kind kind;
	const char *name, *v;
	uint64_t n;
	size_t i;

	for (i = 0; (name = damonctl_thp_setting_name(i, &kind)); i++) {
		char key[64], *slash;

		if (!(v = damonctl_thp_setting(t, i)))
			continue;
		snprintf(key, sizeof(key), "%s", name);
		if ((slash = strchr(key, '/')))
			*slash = '_';
		if (kind == DAMONCTL_THP_MODE)
			json_object_object_add(thp, key, json_object_new_string(v));
		else if (!damonctl_parse_u64(v, &n) && strcmp(v, "max"))
			json_object_object_add(thp, key, json_object_new_uint64(n));
	}
	return thp;
}

/* The system part: the ratio, memory, who made the huge pages, khugepaged's scans (when
 * traced), the THP settings and the THP vmstat counters, in that key order. */
static json_object *system_json(const struct hp_report *rep)
{
	struct damonctl_thp_made made = { .sz = sizeof(made) };
	json_object *sys = system_ratio_json(rep), *mem;
	json_object *vm = json_object_new_object(), *mo = json_object_new_object();
	size_t i;

	for (i = 0; i < damonctl_thp_nr_vmstat(); i++)
		json_object_object_add(vm, damonctl_thp_vmstat_name(i),
				       json_object_new_uint64(damonctl_thp_vmstat(rep->thp, i)));
	json_object_object_get_ex(sys, "memory", &mem);
	json_object_object_add(mem, "total", json_object_new_uint64(rep->mem.total));
	json_object_object_add(mem, "free", json_object_new_uint64(rep->mem.free));
	json_object_object_add(mem, "anon_huge", json_object_new_uint64(rep->mem.anon_huge));
	json_object_object_add(mem, "shmem_huge", json_object_new_uint64(rep->mem.shmem_huge));
	json_object_object_add(mem, "file_huge", json_object_new_uint64(rep->mem.file_huge));
	damonctl_thp_made(rep->thp, &made);
	json_object_object_add(mo, "fault", json_object_new_uint64(made.fault));
	json_object_object_add(mo, "khugepaged", json_object_new_uint64(made.khugepaged));
	json_object_object_add(mo, "madv_collapse", json_object_new_uint64(made.madv_collapse));
	json_object_object_add(sys, "huge_pages_made", mo);
	if (rep->khp)
		json_object_object_add(sys, "khugepaged_scans",
				       khugepaged_json(rep->khp, rep->ro->khp_trace_us));
	json_object_object_add(sys, "thp", thp_json(rep->thp));
	json_object_object_add(sys, "vmstat", vm);
	return sys;
}

/* One list of a process's mappings (--regions): [{start, end, name, rss, anon_huge}]. */
static json_object *vma_list_json(const struct proc_report *p, bool most)
{
	json_object *arr = json_object_new_array();
	const struct damonctl_vma *v;
	size_t m;

	for (m = 0; (v = damonctl_hugepage_proc_vma(p->hp, most, m)); m++) {
		json_object *o = json_object_new_object();
		char name[64];

		snprintf(name, sizeof(name), "%s", vma_name(v));
		json_object_object_add(o, "start", json_object_new_uint64(v->start));
		json_object_object_add(o, "end", json_object_new_uint64(v->end));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "rss", json_object_new_uint64(v->rss));
		json_object_object_add(o, "anon_huge", json_object_new_uint64(v->anon_huge));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* A process as the report gives it: its figures and, with --regions, its most and least
 * huge mappings. */
static json_object *process_json(const struct proc_report *p, bool regions)
{
	json_object *o = proc_json(p);

	if (regions && !p->gone) {
		json_object_object_add(o, "most_huge", vma_list_json(p, true));
		json_object_object_add(o, "least_huge", vma_list_json(p, false));
	}
	return o;
}

/* A scheme's goals: [{metric, target_value, current_value, measured_by}]. */
static json_object *scheme_goals_json(const struct scheme_view *s)
{
	json_object *goals = json_object_new_array();
	unsigned int j;

	for (j = 0; j < s->v.nr_goals; j++) {
		json_object *g = json_object_new_object();

		json_object_object_add(g, "metric", json_object_new_string(s->v.goals[j].metric));
		json_object_object_add(g, "target_value",
				       json_object_new_uint64(s->v.goals[j].target));
		json_object_object_add(g, "current_value",
				       json_object_new_uint64(s->v.goals[j].current));
		json_object_object_add(g, "measured_by", json_object_new_string(
			s->v.goals[j].fed ? "agent" : "kernel"));
		json_object_array_add(goals, g);
	}
	return goals;
}

/* The kernel's stats of a scheme. */
static json_object *scheme_stats_json(const struct scheme_view *s)
{
	json_object *st = json_object_new_object();

	json_object_object_add(st, "nr_tried", json_object_new_uint64(s->v.nr_tried));
	json_object_object_add(st, "sz_tried", json_object_new_uint64(s->v.sz_tried));
	json_object_object_add(st, "nr_applied", json_object_new_uint64(s->v.nr_applied));
	json_object_object_add(st, "sz_applied", json_object_new_uint64(s->v.sz_applied));
	json_object_object_add(st, "qt_exceeds", json_object_new_uint64(s->v.qt_exceeds));
	return st;
}

/* What the agent says of a scheme it serves: who serves it, its pid and its own stats. */
static void scheme_agent_json(json_object *o, const struct scheme_view *s)
{
	json_object *ag = json_object_new_object();

	json_object_object_add(o, "agent_served_by", json_object_new_string(
		agent_view_server_key(s->server)));
	json_object_object_add(o, "agent_pid", s->server_pid ?
			       json_object_new_int(s->server_pid) : NULL);
	json_object_object_add(ag, "nr_tried", json_object_new_uint64(s->v.program.nr_tried));
	json_object_object_add(ag, "sz_tried", json_object_new_uint64(s->v.program.sz_tried));
	json_object_object_add(ag, "qt_exceeds", json_object_new_uint64(s->v.program.qt_exceeds));
	json_object_object_add(ag, "sz_collapsed",
			       json_object_new_uint64(s->v.program.sz_collapsed));
	json_object_object_add(ag, "nr_applied", json_object_new_uint64(s->v.program.nr_applied));
	json_object_object_add(ag, "sz_applied", json_object_new_uint64(s->v.program.sz_applied));
	json_object_object_add(o, "agent_stats", ag);
}

/* A hugepage scheme as the report gives it. */
static json_object *scheme_json(const struct scheme_view *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kdamond", json_object_new_int((int)s->kdamond));
	json_object_object_add(o, "scheme", json_object_new_int((int)s->v.scheme));
	json_object_object_add(o, "action", json_object_new_string(s->v.action));
	/* served_by: the agent has a part in it; applied_by: who carries out the action */
	json_object_object_add(o, "served_by", json_object_new_string(s->v.served ? "agent" :
								       "kernel"));
	json_object_object_add(o, "applied_by", json_object_new_string(
		s->v.program_collapses ? "agent" : "kernel"));
	json_object_object_add(o, "paced_by_agent", json_object_new_boolean(s->v.program_paces));
	json_object_object_add(o, "hot", agent_view_hot_json(&s->hot));
	json_object_object_add(o, "started_by_damonc", json_object_new_boolean(s->ours));
	json_object_object_add(o, "goals", scheme_goals_json(s));
	json_object_object_add(o, "goal_tuner", *s->v.tuner ?
			       json_object_new_string(s->v.tuner) : NULL);
	json_object_object_add(o, "effective_bytes", s->v.has_effective ?
			       json_object_new_uint64(s->v.effective_bytes) : NULL);
	json_object_object_add(o, "stats", scheme_stats_json(s));
	if (s->v.served)
		scheme_agent_json(o, s);
	return o;
}

static json_object *report_json(const struct hp_report *rep)
{
	json_object *doc = json_doc_new();
	json_object *procs = json_object_new_array();
	json_object *schemes = json_object_new_array();
	unsigned int i;

	json_object_object_add(doc, "system", system_json(rep));
	for (i = 0; i < rep->nr_procs; i++)
		json_object_array_add(procs, process_json(&rep->procs[i], rep->ro->regions));
	json_object_object_add(doc, "processes", procs);
	for (i = 0; i < rep->nr_schemes; i++)
		json_object_array_add(schemes, scheme_json(&rep->schemes[i]));
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
		sum += damonctl_fallback_view_collapsed(&rep->schemes[i].v);
	return sum;
}

/* --watch --format png|svg: the samples, drawn once they end. */
#define MAX_GOAL_LINES 8

struct hp_chart {
	size_t n, cap;
	double *x;			/* seconds since the first sample */
	double *sys;			/* the system's ratio, bp */
	double *proc[MAX_PIDS];		/* each process's, bp; NaN once it is gone */
	unsigned int nr_goals;
	struct { unsigned int kdamond, scheme; double *y; } goal[MAX_GOAL_LINES];
	time_t first, last;
};

static double *grow(double *a, size_t cap, size_t old)
{
	double *b = realloc(a, cap * sizeof(*b));
	size_t i;

	if (b)
		for (i = old; i < cap; i++)
			b[i] = NAN;
	return b;
}

/* The goal line of a scheme, made on its first sample (NaN before: no goal yet). */
static double *goal_line(struct hp_chart *c, const struct scheme_view *s)
{
	unsigned int i;

	for (i = 0; i < c->nr_goals; i++)
		if (c->goal[i].kdamond == s->kdamond && c->goal[i].scheme == s->v.scheme)
			return c->goal[i].y;
	if (c->nr_goals == MAX_GOAL_LINES)
		return NULL;
	c->goal[i].kdamond = s->kdamond;
	c->goal[i].scheme = s->v.scheme;
	c->goal[i].y = grow(NULL, c->cap, 0);
	if (c->goal[i].y)
		c->nr_goals++;
	return c->goal[i].y;
}

static int chart_add(struct hp_chart *c, double secs, const struct hp_report *rep)
{
	unsigned int i, j;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		bool ok = (c->x = grow(c->x, cap, c->cap)) && (c->sys = grow(c->sys, cap, c->cap));

		for (i = 0; ok && i < rep->nr_procs; i++)
			ok = (c->proc[i] = grow(c->proc[i], cap, c->cap)) != NULL;
		for (i = 0; ok && i < c->nr_goals; i++)
			ok = (c->goal[i].y = grow(c->goal[i].y, cap, c->cap)) != NULL;
		if (!ok)
			return -ENOMEM;
		c->cap = cap;
	}
	c->x[c->n] = secs;
	c->sys[c->n] = (double)rep->bp;
	for (i = 0; i < rep->nr_procs; i++)
		if (!rep->procs[i].gone)
			c->proc[i][c->n] = (double)proc_bp(&rep->procs[i]);
	for (i = 0; i < rep->nr_schemes; i++)
		for (j = 0; j < rep->schemes[i].v.nr_goals; j++) {
			const struct damonctl_fallback_view_goal *g = &rep->schemes[i].v.goals[j];
			double *y;

			if (strcmp(g->metric, "hugepage_mem_bp"))
				continue;
			y = goal_line(c, &rep->schemes[i]);
			if (y)
				y[c->n] = (double)g->target;
		}
	c->last = time(NULL);
	if (!c->n)
		c->first = c->last;
	c->n++;
	return 0;
}

static int chart_draw(struct cli *cli, const struct hp_chart *c, const struct hp_report *rep)
{
	const struct hp_opts *ro = cli->opts;
	struct chart_series series[1 + MAX_PIDS + MAX_GOAL_LINES];
	char names[1 + MAX_PIDS + MAX_GOAL_LINES][64], title[160], subtitle[200];
	char t0[16], t1[16], every[32];
	struct chart_ts ts = {
		.title = title, .subtitle = subtitle, .y_unit = CHART_Y_BP, .x = c->x,
		.n = c->n, .series = series,
		.y_label = "huge page memory / used memory (a process: / RSS)",
		.x_label = "time since the first sample",
	};
	size_t len;
	unsigned int i;
	FILE *f;

	if (!c->n)
		return usage_error(cli, "no sample to draw"), EXIT_FAIL;
	series[ts.nr_series++] = (struct chart_series){ .name = "system", .y = c->sys };
	len = (size_t)snprintf(title, sizeof(title), "Huge pages: the system");
	for (i = 0; i < rep->nr_procs; i++) {
		snprintf(names[ts.nr_series], sizeof(names[0]), "pid %d", rep->procs[i].pid);
		series[ts.nr_series] = (struct chart_series){ .name = names[ts.nr_series],
							      .y = c->proc[i] };
		ts.nr_series++;
		if (len < sizeof(title))
			len += (size_t)snprintf(title + len, sizeof(title) - len, "%s pid %d",
						i + 1 < rep->nr_procs ? "," : " and",
						rep->procs[i].pid);
	}
	for (i = 0; i < c->nr_goals; i++) {
		snprintf(names[ts.nr_series], sizeof(names[0]),
			 "goal of kdamond %u scheme %u", c->goal[i].kdamond, c->goal[i].scheme);
		series[ts.nr_series] = (struct chart_series){ .name = names[ts.nr_series],
							      .y = c->goal[i].y, .dashed = true };
		ts.nr_series++;
	}
	strftime(t0, sizeof(t0), "%H:%M:%S", localtime(&c->first));
	strftime(t1, sizeof(t1), "%H:%M:%S", localtime(&c->last));
	snprintf(subtitle, sizeof(subtitle), "hugepage_mem_bp sampled every %s: %zu sample%s "
		 "from %s to %s", fmt_time(ro->watch_us, every, sizeof(every)), c->n,
		 c->n == 1 ? "" : "s", t0, t1);
	f = chart_open(cli, ro->output);
	if (!f)
		return EXIT_USAGE;
	return chart_close(cli, f, ro->output, chart_time_series(f, ro->format == HP_PNG ?
			   CHART_PNG : CHART_SVG, &ts), "the chart");
}

static void chart_free(struct hp_chart *c)
{
	unsigned int i;

	free(c->x);
	free(c->sys);
	for (i = 0; i < MAX_PIDS; i++)
		free(c->proc[i]);
	for (i = 0; i < c->nr_goals; i++)
		free(c->goal[i].y);
}

/* The kdamonds whose agent's last look told an access coverage: the first scheme of each
 * (their schemes share the kdamond's stats). */
static bool first_of_kdamond(const struct hp_report *rep, unsigned int i)
{
	unsigned int j;

	if (!rep->schemes[i].hot.coverage_known)
		return false;
	for (j = 0; j < i; j++)
		if (rep->schemes[j].kdamond == rep->schemes[i].kdamond)
			return false;
	return true;
}

static json_object *watch_coverage_json(const struct hp_report *rep)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < rep->nr_schemes; i++) {
		json_object *o;

		if (!first_of_kdamond(rep, i))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "kdamond",
				       json_object_new_int((int)rep->schemes[i].kdamond));
		json_object_object_add(o, "coverage",
				       agent_view_coverage_json(&rep->schemes[i].hot));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void watch_coverage_text(const struct hp_report *rep)
{
	unsigned int i;
	uint64_t bp;

	for (i = 0; i < rep->nr_schemes; i++) {
		if (!first_of_kdamond(rep, i))
			continue;
		if (damonctl_hugepage_coverage_bp(&rep->schemes[i].hot.coverage, &bp))
			printf("  kdamond %u access coverage: undefined", rep->schemes[i].kdamond);
		else
			printf("  kdamond %u access coverage: %.2f%%", rep->schemes[i].kdamond,
			       (double)bp / 100);
	}
}

static int watch(struct cli *cli)
{
	const struct hp_opts *ro = cli->opts;
	struct sigaction sa = { .sa_handler = on_watch_signal };
	struct hp_report *rep = calloc(1, sizeof(*rep));
	struct timespec t0, now;
	uint64_t base = 0, n = 0;
	char a[32], b[32], c[32];
	struct hp_chart ch = { 0 };
	bool chart = ro->format != HP_TEXT;
	int r = 0;

	if (!rep)
		return oom_error(cli);
	r = damonctl_hugepage_meter_new(cli->ctx, &rep->meter);
	if (r) {
		free(rep);
		return lib_error(cli, r, "reading the processes' memory");
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!cli->json && !chart)
		printf("%10s %12s %12s %9s %14s\n", "time", "used", "huge", "ratio", "collapsed");
	while (!watch_stop && (!ro->count || n < ro->count)) {
		double secs;
		unsigned int i;

		r = gather(cli, rep, true);
		if (r)
			break;
		if (!n)
			base = collapsed_bytes(rep);
		clock_gettime(CLOCK_MONOTONIC, &now);
		secs = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (chart) {
			if (chart_add(&ch, secs, rep)) {
				oom_error(cli);
				r = EXIT_FAIL;
				break;
			}
		} else if (cli->json) {
			json_object *o = json_object_new_object(), *procs = json_object_new_array();

			json_object_object_add(o, "format_version",
					       json_object_new_int(DAMONC_JSON_FORMAT_VERSION));
			/* to the millisecond, not the 17 digits json-c prints for a double */
			snprintf(a, sizeof(a), "%.3f", secs);
			json_object_object_add(o, "time", json_object_new_double_s(strtod(a, NULL), a));
			json_object_object_add(o, "timestamp", json_object_new_int64(time(NULL)));
			/* the same shape as the single report's: .system.memory.used, ... */
			json_object_object_add(o, "system", system_ratio_json(rep));
			json_object_object_add(o, "collapsed", json_object_new_uint64(
				collapsed_bytes(rep) - base));
			for (i = 0; i < rep->nr_procs; i++)
				json_object_array_add(procs, proc_json(&rep->procs[i]));
			json_object_object_add(o, "processes", procs);
			json_object_object_add(o, "access_coverage", watch_coverage_json(rep));
			/* JSON Lines: one object per sample, flushed so pipes see it at once */
			if (json_line_print(o)) {
				r = EXIT_FAIL;
				break;
			}
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
					       fmt_size(damonctl_proc_mem_huge(proc_mem(p)), a,
							sizeof(a)),
					       fmt_size(proc_mem(p)->rss, b, sizeof(b)),
					       (double)proc_bp(p) / 100);
			}
			watch_coverage_text(rep);
			printf("\n");
		}
		if (fflush(stdout)) {
			r = EXIT_FAIL;	/* the reader went away */
			break;
		}
		n++;
		if (ro->count && n >= ro->count)
			break;
		{
			struct timespec ts = { (time_t)(ro->watch_us / 1000000),
					       (long)(ro->watch_us % 1000000) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	if (chart && !r)
		r = chart_draw(cli, &ch, rep);
	chart_free(&ch);
	hp_report_clear(rep);
	damonctl_hugepage_meter_free(rep->meter);
	free(rep);
	return r;
}

static int hp_run(struct cli *cli, int argc, char **argv)
{
	struct hp_opts *ro = cli->opts;
	struct hp_report *rep;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (ro->input && (ro->nr_pids || ro->watch_us || ro->refresh || ro->khp_trace_us))
		return usage_error(cli, "-i reads a record: --pid, --watch, --refresh and "
				   "--khugepaged-trace are for the running system");
	if (!ro->format_set && ro->output) {
		int fmt = chart_format_of_name(ro->output);

		ro->format = fmt == CHART_PNG ? HP_PNG : fmt == CHART_SVG ? HP_SVG : HP_TEXT;
	}
	if (ro->input && ro->format != HP_TEXT) {
		int e = cli->json ? usage_error(cli, "--json describes the record as text does; a "
						"chart has no JSON form") :
			chart_check_output(cli, ro->format == HP_PNG ? CHART_PNG : CHART_SVG,
					   ro->output);

		return e ? e : hugepage_record_report(cli, ro->input, ro->format == HP_PNG ?
						      CHART_PNG : CHART_SVG, ro->output);
	}
	if (ro->input && ro->output)
		return usage_error(cli, "-o is for the charts (png, svg); text goes to stdout");
	if (ro->input)
		return hugepage_record_report(cli, ro->input, -1, NULL);
	if (ro->regions && !ro->nr_pids)
		return usage_error(cli, "--regions needs --pid");
	if (ro->count && !ro->watch_us)
		return usage_error(cli, "--count goes with --watch");
	if (ro->khp_trace_us && ro->watch_us)
		return usage_error(cli, "--khugepaged-trace goes with a single report, not --watch");
	if (ro->format != HP_TEXT) {
		int e;

		if (!ro->watch_us || cli->json)
			return usage_error(cli, "--format %s draws the samples of --watch "
					   "INTERVAL, without --json", ro->format == HP_PNG ? "png" :
					   "svg");
		e = chart_check_output(cli, ro->format == HP_PNG ? CHART_PNG : CHART_SVG,
				       ro->output);
		if (e)
			return e;
	} else if (ro->output) {
		return usage_error(cli, "-o is for the charts (png, svg); text goes to stdout");
	}
	if (ro->watch_us)
		return watch(cli);	/* a process that ends meanwhile is shown as gone */
	for (unsigned int i = 0; i < ro->nr_pids; i++)
		if (damonctl_proc_alive(cli->ctx, ro->pids[i]) <= 0)
			return usage_error(cli, "--pid %d: no such process", ro->pids[i]);
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return oom_error(cli);
	r = gather(cli, rep, true);
	if (!r && ro->khp_trace_us) {
		int e = damonctl_khugepaged_scans_new(&rep->khp);

		if (!e)
			e = damonctl_khugepaged_trace(cli->ctx, "damonc-khugepaged", ro->khp_trace_us,
						      rep->khp);
		if (e) {
			hp_report_clear(rep);
			free(rep);
			return e == -ENOENT ?
			       usage_error(cli, "--khugepaged-trace: this kernel's tracefs (%s) has "
					   "no huge_memory/mm_khugepaged_scan_pmd event",
					   "sys/kernel/tracing") :
			       lib_error(cli, e, "tracing khugepaged's scans");
		}
	}
	if (!r) {
		if (cli->json)
			r = json_doc_print(report_json(rep)) ? EXIT_FAIL : EXIT_OK;
		else
			print_text(rep);
	}
	hp_report_clear(rep);
	free(rep);
	return r;
}

const struct cmd cmd_report_hugepage = {
	.name = "hugepage",
	.summary = "huge pages: system ratio (as hugepage_mem_bp), processes, collapse schemes",
	.usage = "[--pid PID [--regions]] [--watch INTERVAL [--count N]] [--refresh]\n"
		 "       [--khugepaged-trace TIME] [--json]\n"
		 "       damonc report hugepage --watch INTERVAL [--count N] [--pid PID]\n"
		 "              --format png|svg [-o FILE]\n"
		 "       damonc report hugepage -i FILE [--json | --format png|svg [-o FILE]]",
	.opts = hp_opts_tbl,
	.opts_size = sizeof(struct hp_opts),
	.opts_init = &(const struct hp_opts){ .format = HP_TEXT },
	.parse = hp_parse,
	.run = hp_run,
};
