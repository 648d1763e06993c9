// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc metrics: everything `status`, `report hugepage` and the agent know, as Prometheus
 * metrics, for node_exporter's textfile collector (-o DIR/damonc.prom, or the agent's
 * --metrics-textfile) or anything that reads the exposition formats.
 *
 * The data come from the readers those commands use: the DAMON tree (libdamonctl), damonc's
 * record of what it started and the agent's stats (agent_view), each scheme as `report
 * hugepage` presents it (scheme_view: the agent's stand-ins shown as what they stand for),
 * the huge-page ratio as the kernel and the agent define it (damonctl_hugepage_measure), THP
 * settings and counters (thp). Labels stay bounded: kdamond, context, scheme, goal and metric indexes or keywords,
 * a target's index and pid (a target is one process), and keyword labels on _info series.
 * Reads only, unless --refresh asks damonc's own kdamonds for fresh stats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "agent.h"
#include "agent_stats.h"
#include "agent_view.h"
#include "exposition.h"
#include "metrics.h"
#include "scheme_view.h"
#include "started.h"

/* ---- the catalogue: every family damonc exports, in output order ---- */

enum {
	M_DAMON_AVAILABLE, M_KDAMONDS, M_AGENT_RUNNING,
	M_HUGEPAGE_BYTES, M_USED_BYTES, M_HUGEPAGE_RATIO, M_THP,
	M_KD_RUNNING, M_KD_PID, M_KD_CPU, M_KD_STARTED, M_KD_REFRESH,
	M_CTX, M_CTX_SAMPLE, M_CTX_AGGR, M_CTX_UPDATE, M_CTX_MIN_REGIONS, M_CTX_MAX_REGIONS,
	M_CTX_TARGETS, M_CTX_PAUSED,
	M_TGT_RSS, M_TGT_HUGE, M_TGT_RATIO,
	M_SCH, M_SCH_NR_TRIED, M_SCH_SZ_TRIED, M_SCH_NR_APPLIED, M_SCH_SZ_APPLIED,
	M_SCH_QT_EXCEEDS, M_SCH_FILTER_PASSED, M_SCH_SNAPSHOTS, M_SCH_COLLAPSED,
	M_SCH_QUOTA_BYTES, M_SCH_QUOTA_TIME, M_SCH_QUOTA_RESET, M_SCH_EFFECTIVE,
	M_GOAL_TARGET, M_GOAL_CURRENT, M_GOAL_MET,
	M_AG_SERVING, M_AG_ROUNDS, M_AG_FEEDS, M_AG_RATIO, M_AG_GOAL, M_AG_MET, M_AG_LAST,
	M_AG_NR_TRIED, M_AG_SZ_TRIED, M_AG_NR_APPLIED, M_AG_SZ_APPLIED, M_AG_QT_EXCEEDS,
	M_AG_NEWLY_HUGE, M_AG_BUSY,
	M_NR
};

static const struct {
	const char *name;
	enum expo_type type;
	const char *unit;
	const char *help;
} catalogue[M_NR] = {
	[M_DAMON_AVAILABLE] = { "damonc_damon_available", EXPO_GAUGE, NULL,
		"1 when the kernel has the DAMON sysfs interface, else 0" },
	[M_KDAMONDS] = { "damonc_kdamonds", EXPO_GAUGE, NULL, "kdamond directories" },
	[M_AGENT_RUNNING] = { "damonc_agent_running", EXPO_GAUGE, NULL,
		"1 while the background damonc agent runs, else 0" },
	[M_HUGEPAGE_BYTES] = { "damonc_hugepage_bytes", EXPO_GAUGE, "bytes",
		"huge page memory of the system: AnonHugePages, ShmemHugePages and "
		"FileHugePages, as hugepage_mem_bp counts it" },
	[M_USED_BYTES] = { "damonc_used_memory_bytes", EXPO_GAUGE, "bytes",
		"used memory of the system: MemTotal less MemFree, as hugepage_mem_bp counts it" },
	[M_HUGEPAGE_RATIO] = { "damonc_hugepage_ratio", EXPO_GAUGE, "ratio",
		"huge page memory over used memory of the system, 0 to 1 (hugepage_mem_bp / "
		"10000)" },
	[M_THP] = { "damonc_thp", EXPO_INFO, NULL,
		"the transparent huge page modes in force" },
	[M_KD_RUNNING] = { "damonc_kdamond_running", EXPO_GAUGE, NULL,
		"1 while the kdamond runs (state on), else 0" },
	[M_KD_PID] = { "damonc_kdamond_pid", EXPO_GAUGE, NULL,
		"the pid of the kdamond's thread, -1 when it does not run" },
	[M_KD_CPU] = { "damonc_kdamond_cpu_seconds", EXPO_COUNTER, "seconds",
		"CPU time the running kdamond's thread has used" },
	[M_KD_STARTED] = { "damonc_kdamond_started_by_damonc", EXPO_GAUGE, NULL,
		"1 when damonc started the kdamond (0 once 'damonc stop' stopped it)" },
	[M_KD_REFRESH] = { "damonc_kdamond_refresh_interval_seconds", EXPO_GAUGE, "seconds",
		"how often the kernel refreshes the kdamond's stats files (refresh_ms; 0: on "
		"command only)" },
	[M_CTX] = { "damonc_context", EXPO_INFO, NULL, "the context's operations set" },
	[M_CTX_SAMPLE] = { "damonc_context_sample_interval_seconds", EXPO_GAUGE, "seconds",
		"sampling interval" },
	[M_CTX_AGGR] = { "damonc_context_aggregation_interval_seconds", EXPO_GAUGE, "seconds",
		"aggregation interval" },
	[M_CTX_UPDATE] = { "damonc_context_update_interval_seconds", EXPO_GAUGE, "seconds",
		"interval of the operations' updates (of the monitored regions)" },
	[M_CTX_MIN_REGIONS] = { "damonc_context_min_regions", EXPO_GAUGE, NULL,
		"least number of monitoring regions (nr_regions/min)" },
	[M_CTX_MAX_REGIONS] = { "damonc_context_max_regions", EXPO_GAUGE, NULL,
		"most monitoring regions (nr_regions/max)" },
	[M_CTX_TARGETS] = { "damonc_context_targets", EXPO_GAUGE, NULL, "monitoring targets" },
	[M_CTX_PAUSED] = { "damonc_context_paused", EXPO_GAUGE, NULL,
		"1 when the context is paused, else 0" },
	[M_TGT_RSS] = { "damonc_target_rss_bytes", EXPO_GAUGE, "bytes",
		"resident memory of the target process" },
	[M_TGT_HUGE] = { "damonc_target_hugepage_bytes", EXPO_GAUGE, "bytes",
		"huge page memory of the target process: AnonHugePages, ShmemPmdMapped and "
		"FilePmdMapped" },
	[M_TGT_RATIO] = { "damonc_target_hugepage_ratio", EXPO_GAUGE, "ratio",
		"huge page memory over resident memory of the target process, 0 to 1 (what a "
		"hugepage_mem_bp goal over the targets measures)" },
	[M_SCH] = { "damonc_scheme", EXPO_INFO, NULL,
		"the scheme's action (collapse where damonc runs a stat stand-in for it) and who "
		"applies it (kernel or agent)" },
	[M_SCH_NR_TRIED] = { "damonc_scheme_tried_regions", EXPO_COUNTER, NULL,
		"regions the kernel tried to apply the action to (stats/nr_tried)" },
	[M_SCH_SZ_TRIED] = { "damonc_scheme_tried_bytes", EXPO_COUNTER, "bytes",
		"bytes the kernel tried to apply the action to (stats/sz_tried)" },
	[M_SCH_NR_APPLIED] = { "damonc_scheme_applied_regions", EXPO_COUNTER, NULL,
		"regions the kernel applied the action to (stats/nr_applied)" },
	[M_SCH_SZ_APPLIED] = { "damonc_scheme_applied_bytes", EXPO_COUNTER, "bytes",
		"bytes the kernel applied the action to (stats/sz_applied)" },
	[M_SCH_QT_EXCEEDS] = { "damonc_scheme_quota_exceeds", EXPO_COUNTER, NULL,
		"times the scheme's quota ran out (stats/qt_exceeds)" },
	[M_SCH_FILTER_PASSED] = { "damonc_scheme_ops_filter_passed_bytes", EXPO_COUNTER,
		"bytes", "bytes that passed the operations layer's filters "
		"(stats/sz_ops_filter_passed)" },
	[M_SCH_SNAPSHOTS] = { "damonc_scheme_snapshots", EXPO_COUNTER, NULL,
		"snapshots the scheme was applied to (stats/nr_snapshots)" },
	[M_SCH_COLLAPSED] = { "damonc_scheme_collapsed_bytes", EXPO_COUNTER, "bytes",
		"bytes the collapse scheme has collapsed, by the kernel or by the agent" },
	[M_SCH_QUOTA_BYTES] = { "damonc_scheme_quota_bytes", EXPO_GAUGE, "bytes",
		"size quota per reset interval (0: none)" },
	[M_SCH_QUOTA_TIME] = { "damonc_scheme_quota_time_seconds", EXPO_GAUGE, "seconds",
		"time quota per reset interval (0: none)" },
	[M_SCH_QUOTA_RESET] = { "damonc_scheme_quota_reset_interval_seconds", EXPO_GAUGE,
		"seconds", "the quotas' reset interval" },
	[M_SCH_EFFECTIVE] = { "damonc_scheme_effective_quota_bytes", EXPO_GAUGE, "bytes",
		"the size quota in force, as the kernel derives it from the quotas and goals "
		"(quotas/effective_bytes)" },
	[M_GOAL_TARGET] = { "damonc_goal_target_value", EXPO_GAUGE, NULL,
		"the goal's target in its metric's unit: basis points for the _bp metrics, "
		"microseconds for some_mem_psi_us" },
	[M_GOAL_CURRENT] = { "damonc_goal_current_value", EXPO_GAUGE, NULL,
		"the goal's current value in its metric's unit, where known: user_input, a value "
		"the agent feeds, hugepage_mem_bp measured as the kernel defines it" },
	[M_GOAL_MET] = { "damonc_goal_met", EXPO_GAUGE, NULL,
		"1 when the goal's current value has reached its target, 0 when not" },
	[M_AG_SERVING] = { "damonc_agent_serving", EXPO_GAUGE, NULL,
		"1 while the damonc agent or damonc start --foreground serves the kdamond's "
		"user-space part, 0 when nobody does" },
	[M_AG_ROUNDS] = { "damonc_agent_rounds", EXPO_COUNTER, NULL,
		"rounds the agent has served for the kdamond" },
	[M_AG_FEEDS] = { "damonc_agent_feeds", EXPO_COUNTER, NULL,
		"goal values the agent has fed to the kernel" },
	[M_AG_RATIO] = { "damonc_agent_measured_hugepage_ratio", EXPO_GAUGE, "ratio",
		"the huge page ratio the agent measured at its last round, 0 to 1" },
	[M_AG_GOAL] = { "damonc_agent_goal_hugepage_ratio", EXPO_GAUGE, "ratio",
		"the huge page goal the agent measures against, 0 to 1" },
	[M_AG_MET] = { "damonc_agent_goal_met", EXPO_GAUGE, NULL,
		"1 when the agent's last round found the goal met, else 0" },
	[M_AG_LAST] = { "damonc_agent_last_round_timestamp_seconds", EXPO_GAUGE, "seconds",
		"when the agent's last round for the kdamond ended (unix time)" },
	[M_AG_NR_TRIED] = { "damonc_agent_scheme_tried_regions", EXPO_COUNTER, NULL,
		"regions the agent tried to collapse" },
	[M_AG_SZ_TRIED] = { "damonc_agent_scheme_tried_bytes", EXPO_COUNTER, "bytes",
		"bytes the agent tried to collapse" },
	[M_AG_NR_APPLIED] = { "damonc_agent_scheme_applied_regions", EXPO_COUNTER, NULL,
		"regions the agent collapsed" },
	[M_AG_SZ_APPLIED] = { "damonc_agent_scheme_applied_bytes", EXPO_COUNTER, "bytes",
		"bytes the agent collapsed" },
	[M_AG_QT_EXCEEDS] = { "damonc_agent_scheme_quota_exceeds", EXPO_COUNTER, NULL,
		"times the quota the agent enforces ran out" },
	[M_AG_NEWLY_HUGE] = { "damonc_agent_scheme_newly_huge_bytes", EXPO_COUNTER, "bytes",
		"growth of the targets' huge page memory the agent's collapses brought" },
	[M_AG_BUSY] = { "damonc_agent_scheme_busy_seconds", EXPO_COUNTER, "seconds",
		"time the agent spent collapsing (process_madvise)" },
};

#define THP_MAX 16	/* room for the library's THP settings and vmstat counters */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct collect {
	struct cli *cli;
	struct expo *x;
	int id[M_NR];
	int khugepaged[THP_MAX];	/* family ids of khugepaged's settings */
	int vmstat[THP_MAX];
	uint64_t system_bp;		/* the system's hugepage_mem_bp, as the kernel measures */
	struct damonctl_hugepage_meter *meter;	/* every vaddr target's figures */
};

/* The help of each THP setting, in damonctl_thp_setting_name()'s order. */
static const char *const thp_help[] = {
	"THP mode for anonymous memory", "THP defragmentation mode at page faults",
	"THP mode for shmem and tmpfs",
	"whether khugepaged may reclaim and compact to allocate huge pages (1) or not (0)",
	"pages khugepaged scans per pass", "khugepaged's sleep between passes",
	"khugepaged's sleep after a failed huge page allocation",
	"unmapped small pages khugepaged allows in a range it collapses",
	"swapped-out small pages khugepaged allows in a range it collapses",
	"shared small pages khugepaged allows in a range it collapses",
	"huge pages khugepaged has collapsed", "full scans of the memory khugepaged has made",
};

static size_t nr_thp_settings(void)
{
	size_t n = damonctl_thp_nr_settings();

	return n < THP_MAX ? n : THP_MAX;
}

/* khugepaged's settings and the vmstat counters, after the THP modes */
static void add_thp_families(struct collect *c)
{
	size_t i;

	for (i = 0; i < nr_thp_settings(); i++) {
		enum damonctl_thp_kind kind;
		const char *path = damonctl_thp_setting_name(i, &kind), *f = strrchr(path, '/');
		bool ms = kind == DAMONCTL_THP_MILLISECONDS;
		char name[96], help[192];
		size_t n;

		if (kind == DAMONCTL_THP_MODE || !f++)
			continue;
		/* milliseconds are exported as seconds, the base unit */
		n = strlen(f);
		if (ms && n > 10 && !strcmp(f + n - 10, "_millisecs"))
			n -= 10;
		snprintf(name, sizeof(name), "damonc_khugepaged_%.*s%s", (int)n, f,
			 ms ? "_seconds" : "");
		snprintf(help, sizeof(help), "%s (%s)", i < ARRAY_SIZE(thp_help) ? thp_help[i] : f,
			 path);
		c->khugepaged[i] = expo_family(c->x, name, kind == DAMONCTL_THP_COUNTER ?
					       EXPO_COUNTER : EXPO_GAUGE, ms ? "seconds" : NULL,
					       help);
	}
	for (i = 0; i < damonctl_thp_nr_vmstat() && i < THP_MAX; i++) {
		const char *v = damonctl_thp_vmstat_name(i);
		char name[96], help[96];

		snprintf(name, sizeof(name), "damonc_vmstat_%s", v);
		snprintf(help, sizeof(help), "/proc/vmstat %s", v);
		c->vmstat[i] = expo_family(c->x, name, EXPO_COUNTER, NULL, help);
	}
}

static void add_families(struct collect *c)
{
	unsigned int i;

	for (i = 0; i < M_NR; i++) {
		c->id[i] = expo_family(c->x, catalogue[i].name, catalogue[i].type,
				       catalogue[i].unit, catalogue[i].help);
		if (i == M_THP)
			add_thp_families(c);
	}
}

static double ratio(uint64_t bp)
{
	return (double)bp / 10000;
}

/* ---- the system ---- */

static void collect_thp(struct collect *c, const struct damonctl_thp *thp)
{
	struct expo_labels ls = { 0 };
	size_t i;

	for (i = 0; i < nr_thp_settings(); i++) {
		enum damonctl_thp_kind kind;
		const char *name = damonctl_thp_setting_name(i, &kind);
		const char *v = damonctl_thp_setting(thp, i);
		unsigned long long n;
		char *end;

		if (!v)
			continue;	/* a file this kernel lacks */
		if (kind == DAMONCTL_THP_MODE) {
			expo_label(&ls, name, "%s", v);
			continue;
		}
		n = strtoull(v, &end, 10);
		if (end == v || *end)
			continue;
		if (kind == DAMONCTL_THP_MILLISECONDS)
			expo_f64(c->x, c->khugepaged[i], NULL, (double)n / 1000);
		else
			expo_u64(c->x, c->khugepaged[i], NULL, n);
	}
	if (ls.n)
		expo_u64(c->x, c->id[M_THP], &ls, 1);
	for (i = 0; i < damonctl_thp_nr_vmstat() && i < THP_MAX; i++)
		expo_u64(c->x, c->vmstat[i], NULL, damonctl_thp_vmstat(thp, i));
}

static void collect_system(struct collect *c)
{
	struct damonctl_ctx *ctx = c->cli->ctx;
	struct damonctl_thp *thp;
	uint64_t huge, used;

	if (!damonctl_hugepage_measure(ctx, NULL, 0, &huge, &used)) {
		c->system_bp = damonctl_hugepage_bp(huge, used);
		expo_u64(c->x, c->id[M_HUGEPAGE_BYTES], NULL, huge);
		expo_u64(c->x, c->id[M_USED_BYTES], NULL, used);
		expo_f64(c->x, c->id[M_HUGEPAGE_RATIO], NULL, ratio(c->system_bp));
	}
	damonctl_clear_error(ctx);
	if (!damonctl_thp_read(ctx, &thp)) {
		collect_thp(c, thp);
		damonctl_thp_free(thp);
	}
	expo_u64(c->x, c->id[M_AGENT_RUNNING], NULL, agent_running_pid(c->cli) ? 1 : 0);
}

/* ---- the agent's part of a kdamond ---- */

static void collect_agent(struct collect *c, const struct started_entry *e,
			  const struct damonctl_fallback_stats *st, const struct expo_labels *kl)
{
	enum agent_server who;
	unsigned int i;
	int pid;

	who = agent_view_server(c->cli, e, &pid);
	expo_u64(c->x, c->id[M_AG_SERVING], kl, who != AGENT_NOBODY);
	expo_u64(c->x, c->id[M_AG_ROUNDS], kl, st->rounds);
	expo_u64(c->x, c->id[M_AG_FEEDS], kl, st->feeds);
	if (st->rounds) {
		expo_f64(c->x, c->id[M_AG_RATIO], kl, ratio(st->measured_bp));
		expo_i64(c->x, c->id[M_AG_LAST], kl, st->updated);
	}
	if (st->target_bp) {
		expo_f64(c->x, c->id[M_AG_GOAL], kl, ratio(st->target_bp));
		if (st->rounds)
			expo_u64(c->x, c->id[M_AG_MET], kl, st->goal_met);
	}
	for (i = 0; i < st->nr; i++) {
		const struct damonctl_fallback_scheme_stats *s = &st->s[i];
		struct expo_labels ls = *kl;

		expo_label(&ls, "context", "0");	/* fallbacks are in context 0 */
		expo_label(&ls, "scheme", "%u", s->scheme);
		expo_u64(c->x, c->id[M_AG_NR_TRIED], &ls, s->nr_tried);
		expo_u64(c->x, c->id[M_AG_SZ_TRIED], &ls, s->sz_tried);
		expo_u64(c->x, c->id[M_AG_NR_APPLIED], &ls, s->nr_applied);
		expo_u64(c->x, c->id[M_AG_SZ_APPLIED], &ls, s->sz_applied);
		expo_u64(c->x, c->id[M_AG_QT_EXCEEDS], &ls, s->qt_exceeds);
		expo_u64(c->x, c->id[M_AG_NEWLY_HUGE], &ls, s->sz_collapsed);
		expo_f64(c->x, c->id[M_AG_BUSY], &ls, (double)s->busy_us / 1e6);
	}
}

/* ---- contexts, targets, schemes, goals ---- */

static bool is_paddr(const struct damonctl_context *ctx)
{
	return !strcmp(damonctl_context_get_str(ctx, DAMONCTL_CONTEXT_OPERATIONS), "paddr");
}

/* The pids of every process some context monitors, in the meter, read once for all. */
static void measure_targets(struct collect *c, const struct damonctl_tree *t)
{
	const struct damonctl_kdamond *k;
	const struct damonctl_context *ctx;
	const struct damonctl_target *tg;
	unsigned int i, j, n = 0, cap = 0;
	int *pids = NULL, *p = NULL;
	uint64_t huge, used;

	damonctl_for_each_kdamond(t, k, i) {
		damonctl_for_each_context(k, ctx, j) {
			unsigned int ti;

			if (is_paddr(ctx))
				continue;
			damonctl_for_each_target(ctx, tg, ti) {
				if (n == cap && !(p = realloc(pids, (cap = cap ? 2 * cap : 16) *
							     sizeof(*pids))))
					goto out;
				pids = p;
				pids[n++] = (int)damonctl_target_get_int(tg, DAMONCTL_TARGET_PID);
			}
		}
	}
	if (!damonctl_hugepage_meter_set_pids(c->meter, pids, n) && n)
		damonctl_hugepage_meter_read(c->meter, 0, &huge, &used);
out:
	free(pids);
	damonctl_clear_error(c->cli->ctx);
}

/* The meter's figures of @pid, as measure_targets() read them: false when it holds none. */
static bool target_figures(const struct collect *c, int pid,
			   struct damonctl_hugepage_meter_pid *mp)
{
	unsigned int i;

	mp->sz = sizeof(*mp);
	for (i = 0; !damonctl_hugepage_meter_pid(c->meter, i, mp); i++)
		if (mp->pid == pid)
			return mp->exists && mp->rss;
	return false;
}

static void collect_targets(struct collect *c, const struct damonctl_context *ctx,
			    const struct expo_labels *cl)
{
	struct damonctl_target *t;
	unsigned int i;

	if (is_paddr(ctx))
		return;		/* a physical address space is no process */
	damonctl_for_each_target(ctx, t, i) {
		int pid = (int)damonctl_target_get_int(t, DAMONCTL_TARGET_PID);
		struct damonctl_hugepage_meter_pid mp;
		struct expo_labels ls = *cl;

		/* a process that exited has no memory to show (and its pid may come back) */
		if (pid <= 0 || !target_figures(c, pid, &mp))
			continue;
		expo_label(&ls, "target", "%u", i);
		expo_label(&ls, "pid", "%d", pid);
		expo_u64(c->x, c->id[M_TGT_RSS], &ls, mp.rss);
		expo_u64(c->x, c->id[M_TGT_HUGE], &ls, mp.huge);
		expo_f64(c->x, c->id[M_TGT_RATIO], &ls, ratio(damonctl_hugepage_bp(mp.huge, mp.rss)));
	}
}

static void collect_goals(struct collect *c, const struct scheme_view *sv,
			  const struct expo_labels *sl)
{
	unsigned int g;

	for (g = 0; g < sv->v.nr_goals; g++) {
		const struct damonctl_fallback_view_goal *vg = &sv->v.goals[g];
		struct expo_labels ls = *sl;
		bool known = true;
		uint64_t cur = vg->current;

		expo_label(&ls, "goal", "%u", g);
		expo_label(&ls, "metric", "%s", vg->metric);
		expo_u64(c->x, c->id[M_GOAL_TARGET], &ls, vg->target);
		if (!vg->fed && !strcmp(vg->metric, "hugepage_mem_bp"))
			cur = c->system_bp;	/* the kernel's measure, which sysfs does not show */
		else if (!vg->fed && strcmp(vg->metric, "user_input"))
			known = false;		/* measured inside the kernel only */
		if (!known)
			continue;
		expo_u64(c->x, c->id[M_GOAL_CURRENT], &ls, cur);
		expo_u64(c->x, c->id[M_GOAL_MET], &ls, cur >= vg->target);
	}
}

#define SG(s, a) damonctl_scheme_get(s, DAMONCTL_SCHEME_##a)
#define SH(s, a) damonctl_scheme_has(s, DAMONCTL_SCHEME_##a)

static void collect_scheme(struct collect *c, const struct started_entry *e,
			   const struct damonctl_fallback_stats *ast, unsigned int k,
			   const struct damonctl_scheme *s, unsigned int si,
			   const struct expo_labels *cl)
{
	struct expo_labels ls = *cl, info;
	struct scheme_view *sv = malloc(sizeof(*sv));

	if (!sv)
		return;
	scheme_view_read(c->cli, e, ast, k, s, si, sv);
	expo_label(&ls, "scheme", "%u", si);
	info = ls;
	expo_label(&info, "action", "%s", sv->v.action);
	expo_label(&info, "applied_by", "%s", sv->v.program_collapses ? "agent" : "kernel");
	expo_u64(c->x, c->id[M_SCH], &info, 1);
	expo_u64(c->x, c->id[M_SCH_NR_TRIED], &ls, sv->v.nr_tried);
	expo_u64(c->x, c->id[M_SCH_SZ_TRIED], &ls, sv->v.sz_tried);
	expo_u64(c->x, c->id[M_SCH_NR_APPLIED], &ls, sv->v.nr_applied);
	expo_u64(c->x, c->id[M_SCH_SZ_APPLIED], &ls, sv->v.sz_applied);
	expo_u64(c->x, c->id[M_SCH_QT_EXCEEDS], &ls, sv->v.qt_exceeds);
	if (SH(s, STAT_SZ_OPS_FILTER_PASSED))
		expo_u64(c->x, c->id[M_SCH_FILTER_PASSED], &ls, SG(s, STAT_SZ_OPS_FILTER_PASSED));
	if (SH(s, STAT_NR_SNAPSHOTS))
		expo_u64(c->x, c->id[M_SCH_SNAPSHOTS], &ls, SG(s, STAT_NR_SNAPSHOTS));
	if (!strcmp(sv->v.action, "collapse"))
		expo_u64(c->x, c->id[M_SCH_COLLAPSED], &ls, damonctl_fallback_view_collapsed(&sv->v));
	expo_u64(c->x, c->id[M_SCH_QUOTA_BYTES], &ls, sv->v.quota_bytes);
	expo_f64(c->x, c->id[M_SCH_QUOTA_TIME], &ls, (double)sv->v.quota_ms / 1000);
	expo_f64(c->x, c->id[M_SCH_QUOTA_RESET], &ls, (double)sv->v.quota_reset_ms / 1000);
	if (sv->v.has_effective && !sv->v.program_collapses)	/* not its stand-in's */
		expo_u64(c->x, c->id[M_SCH_EFFECTIVE], &ls, sv->v.effective_bytes);
	collect_goals(c, sv, &ls);
	free(sv);
}

#define CG(c, a) damonctl_context_get(c, DAMONCTL_CONTEXT_##a)

static void collect_context(struct collect *c, const struct started_entry *e,
			    const struct damonctl_fallback_stats *ast, unsigned int k,
			    const struct damonctl_context *ctx, unsigned int ci,
			    const struct expo_labels *kl)
{
	struct expo_labels ls = *kl, info;
	struct damonctl_scheme *s;
	unsigned int si;

	expo_label(&ls, "context", "%u", ci);
	info = ls;
	expo_label(&info, "operations", "%s",
		   damonctl_context_get_str(ctx, DAMONCTL_CONTEXT_OPERATIONS));
	expo_u64(c->x, c->id[M_CTX], &info, 1);
	expo_f64(c->x, c->id[M_CTX_SAMPLE], &ls, (double)CG(ctx, SAMPLE_US) / 1e6);
	expo_f64(c->x, c->id[M_CTX_AGGR], &ls, (double)CG(ctx, AGGR_US) / 1e6);
	expo_f64(c->x, c->id[M_CTX_UPDATE], &ls, (double)CG(ctx, UPDATE_US) / 1e6);
	expo_u64(c->x, c->id[M_CTX_MIN_REGIONS], &ls, CG(ctx, MIN_NR_REGIONS));
	expo_u64(c->x, c->id[M_CTX_MAX_REGIONS], &ls, CG(ctx, MAX_NR_REGIONS));
	expo_u64(c->x, c->id[M_CTX_TARGETS], &ls, damonctl_context_nr_targets(ctx));
	if (damonctl_context_has(ctx, DAMONCTL_CONTEXT_PAUSE))
		expo_u64(c->x, c->id[M_CTX_PAUSED], &ls, CG(ctx, PAUSE));
	collect_targets(c, ctx, &ls);
	damonctl_for_each_scheme(ctx, s, si)
		/* damonc's fallbacks live in context 0 */
		collect_scheme(c, ci ? NULL : e, ci ? NULL : ast, k, s, si, &ls);
}

static void collect_kdamond(struct collect *c, const struct damonctl_kdamond *k,
			    unsigned int i, struct started *started)
{
	const char *state = damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE);
	int64_t pid = damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);
	struct started_entry *e = started_owns(started, k) ? started_find(started, i) : NULL;
	bool running = !strcmp(state, "on");
	struct expo_labels kl = { 0 };
	struct damonctl_fallback_stats *ast = NULL;
	struct damonctl_context *ctx;
	unsigned int ci;
	uint64_t us;

	expo_label(&kl, "kdamond", "%u", i);
	expo_u64(c->x, c->id[M_KD_RUNNING], &kl, running);
	if (damonctl_kdamond_has(k, DAMONCTL_KDAMOND_PID))
		expo_i64(c->x, c->id[M_KD_PID], &kl, pid);
	if (running && pid > 0 && !damonctl_proc_cpu_time(c->cli->ctx, (int)pid, &us))
		expo_f64(c->x, c->id[M_KD_CPU], &kl, (double)us / 1e6);
	damonctl_clear_error(c->cli->ctx);
	expo_u64(c->x, c->id[M_KD_STARTED], &kl, e && !e->stopped);
	if (damonctl_kdamond_has(k, DAMONCTL_KDAMOND_REFRESH_MS))
		expo_f64(c->x, c->id[M_KD_REFRESH], &kl,
			 (double)damonctl_kdamond_get(k, DAMONCTL_KDAMOND_REFRESH_MS) / 1000);
	if (e && started_needs_agent(e) && (ast = malloc(sizeof(*ast)))) {
		agent_stats_load(c->cli->ctx, i, ast);
		collect_agent(c, e, ast, &kl);
	}
	damonctl_for_each_context(k, ctx, ci)
		collect_context(c, e, ast, i, ctx, ci, &kl);
	free(ast);
}

/* Everything, into @x, the targets' huge pages through @meter: 0, or an exit code (the
 * error said). */
static int collect(struct cli *cli, bool refresh, struct expo *x,
		   struct damonctl_hugepage_meter *meter)
{
	struct collect c = { .cli = cli, .x = x, .meter = meter };
	struct damonctl_kdamond *k;
	struct damonctl_tree *t = NULL;
	struct started started;
	unsigned int i;
	int r;

	add_families(&c);
	if (started_load(cli->ctx, &started)) {
		warnx_("cannot read damonc's record of what it started; taking it as empty");
		memset(&started, 0, sizeof(started));
	}
	if (refresh)
		started_refresh_stats(cli->ctx, &started, true);
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &t);
	if (r && r != -ENOENT) {
		started_free(&started);
		return lib_error(cli, r, "reading the DAMON tree");
	}
	damonctl_clear_error(cli->ctx);
	expo_u64(x, c.id[M_DAMON_AVAILABLE], NULL, t != NULL);
	collect_system(&c);
	if (t) {
		measure_targets(&c, t);
		expo_u64(x, c.id[M_KDAMONDS], NULL, damonctl_tree_nr_kdamonds(t));
		damonctl_for_each_kdamond(t, k, i)
			collect_kdamond(&c, k, i, &started);
	}
	damonctl_tree_free(t);
	started_free(&started);
	return EXIT_OK;
}

/* The text of @fmt (or JSON) into a malloc'd buffer. */
static int render(struct cli *cli, const struct expo *x, bool json, enum expo_format fmt,
		  bool to_stdout, char **buf, size_t *len)
{
	FILE *f;
	int r = 0;

	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (!f)
		return lib_error(cli, -errno, "rendering the metrics");
	if (json) {
		json_object *doc = json_doc_new(), *arr = expo_to_json(x);

		if (!arr)
			r = -ENOMEM;
		json_object_object_add(doc, "metrics", arr);
		if (!r && fprintf(f, "%s\n", json_object_to_json_string_ext(doc,
				json_doc_flags(to_stdout))) < 0)
			r = -EIO;
		json_object_put(doc);
	} else {
		r = expo_write(x, fmt, f);
	}
	if (fclose(f) && !r)
		r = -EIO;
	if (r) {
		free(*buf);
		*buf = NULL;
		return lib_error(cli, r, "rendering the metrics");
	}
	return EXIT_OK;
}

/* Collect (the targets' huge pages through @meter), render and write to @path atomically
 * (mode 0644: node_exporter reads it as another user) or to stdout. @opt: the option naming
 * it; -o's file is on disk before the command says it is done, the agent's textfile is
 * rewritten every --metrics-interval instead. */
static int produce(struct cli *cli, bool refresh, bool json, enum expo_format fmt,
		   const char *path, const char *opt, struct damonctl_hugepage_meter *meter)
{
	struct expo *x = expo_new();
	size_t len;
	char *buf;
	int r;

	if (!x)
		return lib_error(cli, -ENOMEM, "collecting the metrics");
	r = collect(cli, refresh, x, meter);
	if (!r)
		r = render(cli, x, json, fmt, !path, &buf, &len);
	expo_free(x);
	if (r)
		return r;
	if (path) {
		bool sync = !strcmp(opt, "-o");
		int e = damonctl_file_write(path, buf, len, 0644 | (sync ? DAMONCTL_FILE_SYNC : 0));

		if (e)
			r = output_error(cli, opt, path, e);
	} else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		r = EXIT_FAIL;
	}
	free(buf);
	return r;
}

/* ---- the agent's textfile ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int metrics_textfile_option(struct cli *cli, const char *arg, struct metrics_textfile *mt)
{
	size_t n = strlen(arg);

	if (n < 5 || strcmp(arg + n - 5, ".prom"))
		return usage_error(cli, "--metrics-textfile '%s': the name must end in .prom "
				   "(node_exporter's textfile collector reads only those)", arg);
	if (output_check(cli, "--metrics-textfile", arg))
		return EXIT_USAGE;
	mt->path = arg;
	return 0;
}

void metrics_textfile_update(struct cli *cli, struct metrics_textfile *mt, bool now)
{
	uint64_t t = now_ms(), every = mt->interval_us ? mt->interval_us / 1000 :
				       METRICS_TEXTFILE_INTERVAL_US / 1000;

	/* after a failure (said in the agent's log), try again a minute later */
	if (!mt->path || (!now && mt->last_ms && t - mt->last_ms < (mt->failing ? 60000 : every)))
		return;
	mt->last_ms = t;
	if (!mt->meter && damonctl_hugepage_meter_new(cli->ctx, &mt->meter)) {
		mt->failing = true;
		return;
	}
	mt->failing = produce(cli, true, false, EXPO_PROMETHEUS, mt->path, "--metrics-textfile",
			      mt->meter) != 0;
}

void metrics_textfile_free(struct metrics_textfile *mt)
{
	damonctl_hugepage_meter_free(mt->meter);
	mt->meter = NULL;
}

/* ---- the command ---- */

struct metrics_opts {
	const char *output;
	bool refresh;
	int format;		/* enum expo_format: the index of --format's choice */
};

enum { O_OUTPUT = 'o', O_REFRESH = 600, O_FORMAT };

static const struct opt metrics_opts_tbl[] = {
	{ "output", O_OUTPUT, OV_FILE, "FILE",
	  "write to FILE atomically (e.g. node_exporter's textfile directory/damonc.prom)" },
	{ "format", O_FORMAT, OV_FORMAT, "prometheus|openmetrics",
	  "prometheus (text format 0.0.4, the default) or openmetrics",
	  OPT_TO(OD_CHOICE, struct metrics_opts, format) },
	{ "refresh", O_REFRESH, OV_NONE, NULL,
	  "ask damonc's own kdamonds for fresh stats first, where the kernel does not refresh "
	  "them itself (refresh_ms)", OPT_TO(OD_FLAG, struct metrics_opts, refresh) },
	{ 0 },
};

/* -o: the file's directory, and what stands at its name, checked as it is given (before
 * --refresh writes to the kdamonds); "-" is stdout */
static int metrics_parse(struct cli *cli, int key, const char *arg)
{
	struct metrics_opts *mo = cli->opts;

	if (key != O_OUTPUT)
		return EXIT_USAGE;
	mo->output = strcmp(arg, "-") ? arg : NULL;
	return output_check(cli, "-o", arg);
}

static int metrics_run(struct cli *cli, int argc, char **argv)
{
	const struct metrics_opts *mo = cli->opts;

	struct damonctl_hugepage_meter *meter;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	r = damonctl_hugepage_meter_new(cli->ctx, &meter);
	if (r)
		return lib_error(cli, r, "collecting the metrics");
	r = produce(cli, mo->refresh, cli->json, mo->format ? EXPO_OPENMETRICS : EXPO_PROMETHEUS,
		    mo->output, "-o", meter);
	damonctl_hugepage_meter_free(meter);
	return r;
}

const struct cmd cmd_metrics = {
	.name = "metrics",
	.summary = "everything damonc knows as Prometheus metrics (node_exporter's textfile)",
	.usage = "[-o FILE] [--format prometheus|openmetrics] [--refresh] [--json]",
	.opts = metrics_opts_tbl,
	.parse = metrics_parse,
	.run = metrics_run,
	.opts_size = sizeof(struct metrics_opts),
	.opts_init = &(const struct metrics_opts){ .format = EXPO_PROMETHEUS },
};
