// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DAMON tree for people and for programs. Both renderings come from the same model
 * (libdamonctl's tree): the JSON is the library's schema plus what damonc adds (whether it
 * started a kdamond), and the text shows the same values in units people read.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "status.h"

#define SG(s, a) damonctl_scheme_get(s, DAMONCTL_SCHEME_##a)
#define SH(s, a) damonctl_scheme_has(s, DAMONCTL_SCHEME_##a)
#define CG(c, a) damonctl_context_get(c, DAMONCTL_CONTEXT_##a)
/* A string from the tree, shown safely (no escape sequence reaches the terminal). */
#define SAFE(s) safe_str((s), (char[1024]){ 0 }, 1024)

static void print_range_size(FILE *out, uint64_t lo, uint64_t hi)
{
	char a[32], b[32];

	fprintf(out, "%s..%s", fmt_size(lo, a, sizeof(a)), fmt_size(hi, b, sizeof(b)));
}

static void print_pattern(FILE *out, const struct damonctl_scheme *s, uint64_t sample_us,
			  uint64_t aggr_us)
{
	uint64_t amin = SG(s, NR_ACCESSES_MIN), amax = SG(s, NR_ACCESSES_MAX);
	uint64_t gmin = SG(s, AGE_MIN), gmax = SG(s, AGE_MAX);
	char a[32], b[32];

	fprintf(out, "      access pattern: size ");
	print_range_size(out, SG(s, SZ_MIN), SG(s, SZ_MAX));
	fprintf(out, ", accesses %" PRIu64 "..", amin);
	if (amax >= UINT32_MAX)
		fprintf(out, "max");
	else
		fprintf(out, "%" PRIu64, amax);
	fprintf(out, " per aggregation (%s..", fmt_bp(damonctl_nr_accesses_to_rate_bp(
		amin, sample_us, aggr_us), a, sizeof(a)));
	fprintf(out, "%s)", amax >= UINT32_MAX ? "max" :
		fmt_bp(damonctl_nr_accesses_to_rate_bp(amax, sample_us, aggr_us), b, sizeof(b)));
	fprintf(out, ", age %" PRIu64 "..", gmin);
	if (gmax >= UINT32_MAX)
		fprintf(out, "max");
	else
		fprintf(out, "%" PRIu64, gmax);
	fprintf(out, " aggregations (%s..", fmt_time(gmin * aggr_us, a, sizeof(a)));
	fprintf(out, "%s)\n", gmax >= UINT32_MAX ? "max" : fmt_time(gmax * aggr_us, b, sizeof(b)));
}

static void print_quota(FILE *out, const struct damonctl_scheme *s)
{
	uint64_t ms = SG(s, QUOTA_MS), bytes = SG(s, QUOTA_BYTES);
	unsigned int i, nr = damonctl_scheme_nr_goals(s);
	char a[32], b[32];
	struct damonctl_goal *g;

	fprintf(out, "      quota: ");
	if (!ms && !bytes && !nr) {
		fprintf(out, "none");
	} else {
		if (ms)
			fprintf(out, "%s of work", fmt_time(ms * 1000, a, sizeof(a)));
		if (ms && bytes)
			fprintf(out, ", ");
		if (bytes)
			fprintf(out, "%s", fmt_size(bytes, a, sizeof(a)));
		if (!ms && !bytes)
			fprintf(out, "goals only");
		fprintf(out, " per %s", fmt_time(SG(s, QUOTA_RESET_INTERVAL_MS) * 1000, b,
						  sizeof(b)));
	}
	if (SG(s, WEIGHT_SZ_PERMIL) || SG(s, WEIGHT_NR_ACCESSES_PERMIL) || SG(s, WEIGHT_AGE_PERMIL))
		fprintf(out, "; weights: size %" PRIu64 ", accesses %" PRIu64 ", age %" PRIu64,
			SG(s, WEIGHT_SZ_PERMIL), SG(s, WEIGHT_NR_ACCESSES_PERMIL),
			SG(s, WEIGHT_AGE_PERMIL));
	if (SH(s, QUOTA_EFFECTIVE_BYTES))
		fprintf(out, "; effective %s", fmt_size(SG(s, QUOTA_EFFECTIVE_BYTES), a, sizeof(a)));
	if (SH(s, QUOTA_FAIL_CHARGE_DENOM) && SG(s, QUOTA_FAIL_CHARGE_DENOM))
		fprintf(out, "; failures charged %" PRIu64 "/%" PRIu64,
			SG(s, QUOTA_FAIL_CHARGE_NUM), SG(s, QUOTA_FAIL_CHARGE_DENOM));
	fprintf(out, "\n");
	damonctl_for_each_goal(s, g, i) {
		const char *metric = damonctl_goal_has(g, DAMONCTL_GOAL_METRIC) ?
			damonctl_goal_get_str(g, DAMONCTL_GOAL_METRIC) : "user_input";
		uint64_t tv = damonctl_goal_get(g, DAMONCTL_GOAL_TARGET_VALUE);
		uint64_t cv = damonctl_goal_get(g, DAMONCTL_GOAL_CURRENT_VALUE);
		size_t n = strlen(metric);
		bool bp = n > 3 && !strcmp(metric + n - 3, "_bp");

		fprintf(out, "      goal %u: %s target %" PRIu64, i, SAFE(metric), tv);
		if (bp)
			fprintf(out, " (%s)", fmt_bp(tv, a, sizeof(a)));
		if (!strcmp(metric, "user_input"))
			fprintf(out, ", current %" PRIu64, cv);
		if (damonctl_goal_has(g, DAMONCTL_GOAL_NID) && strncmp(metric, "node_", 5) == 0)
			fprintf(out, ", node %" PRId64, damonctl_goal_get_int(g, DAMONCTL_GOAL_NID));
		if (damonctl_goal_has(g, DAMONCTL_GOAL_PATH) &&
		    *damonctl_goal_get_str(g, DAMONCTL_GOAL_PATH))
			fprintf(out, ", memcg %s", SAFE(damonctl_goal_get_str(g, DAMONCTL_GOAL_PATH)));
		fprintf(out, "\n");
	}
	if (nr && SH(s, QUOTA_GOAL_TUNER))
		fprintf(out, "      goal tuner: %s\n",
			SAFE(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_QUOTA_GOAL_TUNER)));
}

static void print_filters(FILE *out, const struct damonctl_scheme *s)
{
	static const struct { enum damonctl_filter_dir dir; const char *name; } dirs[] = {
		{ DAMONCTL_FILTERS_CORE, "core" },
		{ DAMONCTL_FILTERS_OPS, "ops" },
		{ DAMONCTL_FILTERS_LEGACY, "filters" },
	};
	unsigned int d, i;

	for (d = 0; d < 3; d++) {
		struct damonctl_filter *f;

		damonctl_for_each_filter(s, dirs[d].dir, f, i) {
			const char *type = damonctl_filter_get_str(f, DAMONCTL_FILTER_TYPE);
			bool allow = damonctl_filter_get(f, DAMONCTL_FILTER_ALLOW);
			bool matching = damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING);
			char a[48], b[32];

			fprintf(out, "      filter %s %u: %s %s%s", dirs[d].name, i,
				allow ? "allow" : "reject", matching ? "" : "non-", SAFE(type));
			if (!strcmp(type, "memcg"))
				fprintf(out, " %s",
					SAFE(damonctl_filter_get_str(f, DAMONCTL_FILTER_MEMCG_PATH)));
			else if (!strcmp(type, "addr"))
				fprintf(out, " %s", fmt_range(
					damonctl_filter_get(f, DAMONCTL_FILTER_ADDR_START),
					damonctl_filter_get(f, DAMONCTL_FILTER_ADDR_END), a,
					sizeof(a)));
			else if (!strcmp(type, "target"))
				fprintf(out, " %" PRIu64, damonctl_filter_get(f, DAMONCTL_FILTER_TARGET_IDX));
			else if (!strcmp(type, "hugepage_size"))
				fprintf(out, " %s..%s",
					fmt_size(damonctl_filter_get(f, DAMONCTL_FILTER_MIN), a, sizeof(a)),
					fmt_size(damonctl_filter_get(f, DAMONCTL_FILTER_MAX), b, sizeof(b)));
			fprintf(out, "\n");
		}
	}
}

/* @unit: the context's address unit (paddr, 6.18): region addresses are in units of it */
static void print_stats(FILE *out, const struct damonctl_scheme *s, bool all_regions,
			uint64_t unit)
{
	char a[32], b[32], rg[48];
	struct damonctl_tried_region *r;
	unsigned int i;

	fprintf(out, "      stats: tried %" PRIu64 " regions (%s), applied %" PRIu64 " (%s), "
		"quota exceeded %" PRIu64 " times", SG(s, STAT_NR_TRIED),
		fmt_size(SG(s, STAT_SZ_TRIED), a, sizeof(a)), SG(s, STAT_NR_APPLIED),
		fmt_size(SG(s, STAT_SZ_APPLIED), b, sizeof(b)), SG(s, STAT_QT_EXCEEDS));
	if (SH(s, STAT_SZ_OPS_FILTER_PASSED))
		fprintf(out, ", passed ops filters %s",
			fmt_size(SG(s, STAT_SZ_OPS_FILTER_PASSED), a, sizeof(a)));
	if (SH(s, STAT_NR_SNAPSHOTS))
		fprintf(out, ", snapshots %" PRIu64, SG(s, STAT_NR_SNAPSHOTS));
	if (SH(s, MAX_NR_SNAPSHOTS) && SG(s, MAX_NR_SNAPSHOTS))
		fprintf(out, " of %" PRIu64, SG(s, MAX_NR_SNAPSHOTS));
	fprintf(out, "\n");
	if (!damonctl_scheme_nr_tried_regions(s) && !SG(s, TRIED_TOTAL_BYTES))
		return;
	fprintf(out, "      tried regions: %u", damonctl_scheme_nr_tried_regions(s));
	if (SH(s, TRIED_TOTAL_BYTES))
		fprintf(out, " (%s)", fmt_size(SG(s, TRIED_TOTAL_BYTES), a, sizeof(a)));
	fprintf(out, "\n");
	if (!all_regions)
		return;
	damonctl_for_each_tried_region(s, r, i) {
		uint64_t start = damonctl_tried_region_get(r, DAMONCTL_TRIED_START);
		uint64_t end = damonctl_tried_region_get(r, DAMONCTL_TRIED_END);

		unsigned int p;

		fprintf(out, "        %u: %s (%s) accesses %" PRIu64
			" age %" PRIu64, i, fmt_range(start, end, rg, sizeof(rg)),
			fmt_size((end - start) * unit, a, sizeof(a)),
			damonctl_tried_region_get(r, DAMONCTL_TRIED_NR_ACCESSES),
			damonctl_tried_region_get(r, DAMONCTL_TRIED_AGE));
		for (p = 0; p < damonctl_tried_region_nr_probes(r); p++)
			fprintf(out, "%s%" PRIu64, p ? "," : " probe hits ",
				damonctl_tried_region_probe_hits(r, p));
		fprintf(out, "\n");
	}
}

static void print_scheme(FILE *out, const struct damonctl_scheme *s, unsigned int i,
			 uint64_t sample_us, uint64_t aggr_us, int regions, uint64_t unit)
{
	char a[32], b[32], c[32];

	fprintf(out, "    scheme %u: %s", i, SAFE(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION)));
	if (SH(s, TARGET_NID) && damonctl_scheme_get_int(s, DAMONCTL_SCHEME_TARGET_NID) >= 0)
		fprintf(out, " to node %" PRId64, damonctl_scheme_get_int(s, DAMONCTL_SCHEME_TARGET_NID));
	if (SH(s, APPLY_INTERVAL_US) && SG(s, APPLY_INTERVAL_US))
		fprintf(out, ", applied every %s", fmt_time(SG(s, APPLY_INTERVAL_US), a, sizeof(a)));
	fprintf(out, "\n");
	print_pattern(out, s, sample_us, aggr_us);
	print_quota(out, s);
	if (strcmp(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC), "none"))
		fprintf(out, "      watermarks: %s every %s, high %" PRIu64 ", mid %" PRIu64
			", low %" PRIu64 " permil\n",
			SAFE(damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC)),
			fmt_time(SG(s, WMARKS_INTERVAL_US), c, sizeof(c)), SG(s, WMARKS_HIGH),
			SG(s, WMARKS_MID), SG(s, WMARKS_LOW));
	print_filters(out, s);
	(void)b;
	if (regions != REGIONS_NO_RESULTS)
		print_stats(out, s, regions == REGIONS_ALL, unit);
}

static void print_probes(FILE *out, const struct damonctl_context *c)
{
	struct damonctl_probe *p;
	struct damonctl_probe_filter *f;
	unsigned int i, j;

	damonctl_for_each_probe(c, p, i) {
		fprintf(out, "    probe %u:", i);
		if (!damonctl_probe_nr_filters(p))
			fprintf(out, " all memory");
		damonctl_for_each_probe_filter(p, f, j) {
			const char *type = damonctl_probe_filter_get_str(f, DAMONCTL_PROBE_FILTER_TYPE);

			fprintf(out, "%s %s %s%s", j ? ";" : "",
				damonctl_probe_filter_get(f, DAMONCTL_PROBE_FILTER_ALLOW) ?
				"allow" : "reject",
				damonctl_probe_filter_get(f, DAMONCTL_PROBE_FILTER_MATCHING) ?
				"" : "non-", SAFE(type));
			if (!strcmp(type, "memcg"))
				fprintf(out, " %s", SAFE(damonctl_probe_filter_get_str(
					f, DAMONCTL_PROBE_FILTER_PATH)));
		}
		if (damonctl_probe_has(p, DAMONCTL_PROBE_WEIGHT) &&
		    damonctl_probe_get(p, DAMONCTL_PROBE_WEIGHT))
			fprintf(out, ", weight %" PRIu64, damonctl_probe_get(p, DAMONCTL_PROBE_WEIGHT));
		fprintf(out, "\n");
	}
}

/* "intervals: ..." of a context, and whether DAMON tunes them (@current: its files are
 * current, or they hold what was set and DAMON's tuning is not shown) */
static void print_intervals(FILE *out, const struct damonctl_context *c, int current)
{
	char a[32], b[32], d[32];
	bool tuned = damonctl_context_has(c, DAMONCTL_CONTEXT_GOAL_AGGRS) && CG(c, GOAL_AGGRS);

	fprintf(out, "\n    intervals: sample %s, aggregate %s, update %s; regions %" PRIu64
		"..%" PRIu64 "%s\n", fmt_time(CG(c, SAMPLE_US), a, sizeof(a)),
		fmt_time(CG(c, AGGR_US), b, sizeof(b)), fmt_time(CG(c, UPDATE_US), d, sizeof(d)),
		CG(c, MIN_NR_REGIONS), CG(c, MAX_NR_REGIONS),
		!tuned || current < 0 ? "" : current ? " (as DAMON tuned them)" :
		" (as set: DAMON tunes them, and 'damonc status --refresh' shows where to)");
	if (tuned)
		fprintf(out, "    intervals goal: %s of samples accessed over %" PRIu64
			" aggregations, sampling %s..%s\n", fmt_bp(CG(c, GOAL_ACCESS_BP), a, sizeof(a)),
			CG(c, GOAL_AGGRS), fmt_time(CG(c, GOAL_MIN_SAMPLE_US), b, sizeof(b)),
			fmt_time(CG(c, GOAL_MAX_SAMPLE_US), d, sizeof(d)));
}

/* @current: the kdamond runs and its files are current (1), not (0), or it is off or a
 * configuration (-1) */
static void print_context(FILE *out, const struct damonctl_context *c, unsigned int ci,
			  int regions, int current)
{
	uint64_t sample = CG(c, SAMPLE_US), aggr = CG(c, AGGR_US);
	uint64_t unit = damonctl_context_has(c, DAMONCTL_CONTEXT_ADDR_UNIT) &&
			CG(c, ADDR_UNIT) ? CG(c, ADDR_UNIT) : 1;
	const char *avail = damonctl_context_get_str(c, DAMONCTL_CONTEXT_AVAIL_OPERATIONS);
	struct damonctl_target *t;
	struct damonctl_scheme *s;
	char a[32], rg[48];
	unsigned int i, j;

	fprintf(out, "  context %u: %s", ci,
		SAFE(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS)));
	if (avail && *avail && damonctl_context_has(c, DAMONCTL_CONTEXT_AVAIL_OPERATIONS)) {
		char list[128], *p;

		snprintf(list, sizeof(list), "%s", avail);
		for (p = list; *p; p++)
			if (*p == '\n')
				*p = ',';
		fprintf(out, " (available: %s)", SAFE(list));
	}
	if (damonctl_context_has(c, DAMONCTL_CONTEXT_PAUSE) && CG(c, PAUSE))
		fprintf(out, ", paused");
	if (unit != 1)
		fprintf(out, ", addresses in units of %" PRIu64 " bytes", unit);
	print_intervals(out, c, current);
	print_probes(out, c);
	damonctl_for_each_target(c, t, i) {
		fprintf(out, "    target %u:", i);
		if (strcmp(damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS), "paddr"))
			fprintf(out, " pid %" PRId64, damonctl_target_get_int(t, DAMONCTL_TARGET_PID));
		if (damonctl_target_has(t, DAMONCTL_TARGET_OBSOLETE) &&
		    damonctl_target_get(t, DAMONCTL_TARGET_OBSOLETE))
			fprintf(out, " (obsolete)");
		for (j = 0; j < damonctl_target_nr_regions(t); j++) {
			uint64_t st, en;

			damonctl_target_region(t, j, &st, &en);
			fprintf(out, "%s %s (%s)", j ? "," : " regions",
				fmt_range(st, en, rg, sizeof(rg)),
				fmt_size((en - st) * unit, a, sizeof(a)));
		}
		fprintf(out, "\n");
	}
	damonctl_for_each_scheme(c, s, i)
		print_scheme(out, s, i, sample, aggr, regions, unit);
}

/* The pid of kdamond @k when it runs, else 0. */
static int running_pid(const struct damonctl_kdamond *k)
{
	const char *state = damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE);
	int64_t pid = damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID);

	return state && !strcmp(state, "on") && pid > 0 && pid <= INT32_MAX ? (int)pid : 0;
}

/* The share of a CPU @cpu_us over @run_us, in percent to two decimals (text and JSON). */
static double cpu_percent(uint64_t cpu_us, uint64_t run_us)
{
	return run_us ? (double)(cpu_us * 10000 / run_us) / 100 : 0;
}

/* A running kdamond's CPU: its thread's time, and the share of a CPU over its life. */
static void print_cpu(FILE *out, const struct damonctl_kdamond *k, const struct status_extra *x)
{
	uint64_t cpu, run;
	char a[32], b[32];
	int pid = running_pid(k);

	if (!pid || !x || !x->cpu || !x->cpu(pid, &cpu, &run, x->data))
		return;
	fprintf(out, "  cpu: %s over %s running (%.2f%% of a CPU)\n", fmt_time(cpu, a, sizeof(a)),
		fmt_time(run, b, sizeof(b)), cpu_percent(cpu, run));
}

/* What a person should know of kdamond @k's schemes, each a sentence to @fn: a hugepage
 * scheme where THP is "never" makes no huge page. */
static void kdamond_notes(const struct damonctl_kdamond *k, const struct status_extra *x,
			  void (*fn)(void *arg, const char *note), void *arg)
{
	struct damonctl_context *c;
	struct damonctl_scheme *s;
	unsigned int ci, si;
	char note[256];

	damonctl_for_each_context(k, c, ci)
		damonctl_for_each_scheme(c, s, si) {
			if (!x || !damonctl_scheme_thp_blocked(s, x->thp_enabled))
				continue;
			snprintf(note, sizeof(note), "scheme %u asks for huge pages (hugepage: "
				 "MADV_HUGEPAGE), but transparent_hugepage/enabled is 'never': "
				 "none will be made", si);
			fn(arg, note);
		}
}

static void note_text(void *arg, const char *note)
{
	fprintf(arg, "  note: %s\n", note);
}

static void note_json(void *arg, const char *note)
{
	json_object_array_add(arg, json_object_new_string(note));
}

bool status_stats_current(const struct damonctl_kdamond *k, const struct status_extra *x)
{
	return (x && x->refreshed) || (damonctl_kdamond_has(k, DAMONCTL_KDAMOND_REFRESH_MS) &&
				       damonctl_kdamond_get(k, DAMONCTL_KDAMOND_REFRESH_MS));
}

void status_print_kdamond(FILE *out, const struct damonctl_kdamond *k, const char *note,
			  int regions, const struct status_extra *x)
{
	struct damonctl_context *c;
	unsigned int i;
	const char *state = damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE);
	int current = regions == REGIONS_NO_RESULTS || strcmp(state, "on") ? -1 :
		      status_stats_current(k, x);

	if (regions == REGIONS_NO_RESULTS)
		fprintf(out, "kdamond %u", damonctl_kdamond_index(k));
	else
		fprintf(out, "kdamond %u: %s%s%s", damonctl_kdamond_index(k),
			color_start_in(out, !strcmp(SAFE(state), "on") ? CR_GOOD : CR_DIM),
			SAFE(state), color_end_in(out));
	if (!strcmp(state, "on"))
		fprintf(out, ", pid %" PRId64, damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID));
	if (damonctl_kdamond_has(k, DAMONCTL_KDAMOND_REFRESH_MS) &&
	    damonctl_kdamond_get(k, DAMONCTL_KDAMOND_REFRESH_MS))
		fprintf(out, ", stats refreshed every %" PRIu64 " ms",
			damonctl_kdamond_get(k, DAMONCTL_KDAMOND_REFRESH_MS));
	if (note)
		fprintf(out, " (%s)", note);
	/* a kdamond damo started (refresh_ms 0), or any before 6.17: 0 snapshots, say, is no
	 * figure of today's */
	if (!current)
		fprintf(out, "\n  stats and tuned intervals as of their last update: the kernel does "
			"not refresh them (refresh_ms 0), 'damonc status --refresh' asks it");
	fprintf(out, "\n");
	print_cpu(out, k, x);
	if (!damonctl_kdamond_nr_contexts(k))
		fprintf(out, "  no context\n");
	damonctl_for_each_context(k, c, i)
		print_context(out, c, i, regions, current);
	if (regions != REGIONS_NO_RESULTS)
		kdamond_notes(k, x, note_text, out);
}

int status_print_text(FILE *out, const struct damonctl_tree *t, const struct started *started,
		      int only, bool all_regions, const struct status_extra *x)
{
	struct damonctl_kdamond *k;
	unsigned int i;

	if (!damonctl_tree_nr_kdamonds(t))
		fprintf(out, "no kdamonds\n");
	damonctl_for_each_kdamond(t, k, i) {
		if (only >= 0 && (int)i != only)
			continue;
		status_print_kdamond(out, k, started && started_by_damonc(started, k) ?
				     "started by damonc" : started && started_owns(started, k) ?
				     "stopped with 'damonc stop'; its next start reuses it" :
				     "not started by damonc",
				     all_regions ? REGIONS_ALL : REGIONS_COUNT, x);
		if (x && x->leftover && x->leftover(i, x->data))
			fprintf(out, "  leftover: %s\n", x->leftover(i, x->data));
		if (x && x->text && started && started_owns(started, k))
			x->text(out, i, x->data);
	}
	for (i = 0; x && x->module; i++) {
		int pid;
		const char *name = x->module(i, &pid, x->data);
		char p[32] = "";

		if (!name)
			break;
		if (pid > 0)
			snprintf(p, sizeof(p), " (its kdamond: pid %d)", pid);
		fprintf(out, "module %s is enabled%s: it holds DAMON exclusively, so no kdamond of "
			"the sysfs interface can start ('damonc module %s disable' frees it)\n",
			name, p, name + 6);
	}
	return output_flush(out);
}

/* Each tried region's probes/N/hits as damo shows them: one array of numbers, probe_hits. */
static void flatten_probe_hits(json_object *kdamond)
{
	json_object *ctxs, *schemes, *tried, *regions, *probes;
	size_t c, s, r, p;

	if (!json_object_object_get_ex(kdamond, "contexts", &ctxs))
		return;
	for (c = 0; c < json_object_array_length(ctxs); c++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(ctxs, c), "schemes",
					       &schemes))
			continue;
		for (s = 0; s < json_object_array_length(schemes); s++) {
			if (!json_object_object_get_ex(json_object_array_get_idx(schemes, s),
						       "tried_regions", &tried) ||
			    !json_object_object_get_ex(tried, "regions", &regions))
				continue;
			for (r = 0; r < json_object_array_length(regions); r++) {
				json_object *reg = json_object_array_get_idx(regions, r), *hits;

				if (!json_object_object_get_ex(reg, "probes", &probes))
					continue;
				hits = json_object_new_array();
				for (p = 0; p < json_object_array_length(probes); p++) {
					json_object *h;

					json_object_object_get_ex(json_object_array_get_idx(probes, p),
								  "hits", &h);
					json_object_array_add(hits, json_object_get(h));
				}
				json_object_object_del(reg, "probes");
				json_object_object_add(reg, "probe_hits", hits);
			}
		}
	}
}

int status_print_json(const struct damonctl_tree *t, const struct started *started, int only,
		      const struct status_extra *x)
{
	char *text = damonctl_tree_to_json(t, 0);
	json_object *doc, *arr, *out_arr;
	size_t i, n;

	if (!text)
		return -1;
	doc = json_tokener_parse(text);
	free(text);
	if (!doc)
		return -1;
	/* a tree without nr_kdamonds (not DAMON's, or not yet populated) has no kdamond */
	if (!json_object_object_get_ex(doc, "kdamonds", &arr)) {
		arr = json_object_new_array();
		json_object_object_add(doc, "kdamonds", arr);
	}
	/* the library's document, plus damonc's own facts per kdamond */
	n = json_object_array_length(arr);
	out_arr = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *k = json_object_array_get_idx(arr, i);

		if (only >= 0 && (int)i != only)
			continue;
		json_object_object_add(k, "index", json_object_new_int((int)i));
		flatten_probe_hits(k);
		if (!strcmp(damonctl_kdamond_get_str(damonctl_tree_kdamond(t, (unsigned int)i),
						     DAMONCTL_KDAMOND_STATE), "on"))
			json_object_object_add(k, "stats_current", json_object_new_boolean(
				status_stats_current(damonctl_tree_kdamond(t, (unsigned int)i), x)));
		json_object_object_add(k, "started_by_damonc", json_object_new_boolean(
			started && started_by_damonc(started, damonctl_tree_kdamond(t,
										 (unsigned int)i))));
		{
			json_object *notes = json_object_new_array();

			kdamond_notes(damonctl_tree_kdamond(t, (unsigned int)i), x, note_json,
				      notes);
			if (json_object_array_length(notes))
				json_object_object_add(k, "notes", notes);
			else
				json_object_put(notes);
		}
		if (started && started_owns(started, damonctl_tree_kdamond(t, (unsigned int)i)) &&
		    !started_by_damonc(started, damonctl_tree_kdamond(t, (unsigned int)i)))
			json_object_object_add(k, "stopped_by_damonc", json_object_new_boolean(true));
		if (x && x->cpu) {
			const struct damonctl_kdamond *kd = damonctl_tree_kdamond(t,
									  (unsigned int)i);
			uint64_t cpu, run;
			int pid = running_pid(kd);

			if (pid && x->cpu(pid, &cpu, &run, x->data)) {
				json_object *c = json_object_new_object();

				json_object_object_add(c, "time_us", json_object_new_uint64(cpu));
				json_object_object_add(c, "run_time_us", json_object_new_uint64(run));
				json_object_object_add(c, "usage_percent", json_object_new_double(
					cpu_percent(cpu, run)));
				json_object_object_add(k, "cpu", c);
			}
		}
		if (x && x->leftover && x->leftover((unsigned int)i, x->data))
			json_object_object_add(k, "damonc_leftover", json_object_new_string(
				x->leftover((unsigned int)i, x->data)));
		if (x && x->json && started &&
		    started_owns(started, damonctl_tree_kdamond(t, (unsigned int)i))) {
			json_object *a = x->json((unsigned int)i, x->data);

			if (a)
				json_object_object_add(k, "agent", a);
		}
		json_object_array_add(out_arr, json_object_get(k));
	}
	json_object_object_add(doc, "kdamonds", out_arr);
	if (x && x->module) {
		json_object *mods = json_object_new_array();
		const char *name;
		int pid;

		for (i = 0; (name = x->module((unsigned int)i, &pid, x->data)); i++) {
			json_object *m = json_object_new_object();

			json_object_object_add(m, "name", json_object_new_string(name));
			json_object_object_add(m, "kdamond_pid", pid > 0 ?
					       json_object_new_int(pid) : NULL);
			json_object_array_add(mods, m);
		}
		json_object_object_add(doc, "modules_enabled", mods);
	}
	return json_doc_print(doc) ? -1 : 0;
}
