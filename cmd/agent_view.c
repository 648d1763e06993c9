// SPDX-License-Identifier: GPL-2.0-or-later
/* The agent's part of a kdamond, for `status` and `report hugepage` (see agent_view.h). */
#include <inttypes.h>
#include <string.h>

#include "color.h"
#include "agent.h"
#include "agent_stats.h"
#include "agent_view.h"
#include "fallback.h"

static bool alive(struct cli *cli, int pid)
{
	return damonctl_proc_alive(cli->ctx, pid) == 1;
}

enum agent_server agent_view_server(struct cli *cli, const struct started_entry *e, int *pid)
{
	*pid = 0;
	if (e->server_pid && alive(cli, e->server_pid)) {
		*pid = e->server_pid;
		return AGENT_FOREGROUND;
	}
	*pid = agent_running_pid(cli);
	return *pid ? AGENT_BACKGROUND : AGENT_NOBODY;
}

const char *agent_view_server_text(enum agent_server who, int pid, char *buf, size_t size)
{
	switch (who) {
	case AGENT_BACKGROUND:
		snprintf(buf, size, "the damonc agent (user space, pid %d)", pid);
		break;
	case AGENT_FOREGROUND:
		snprintf(buf, size, "damonc start --foreground (user space, pid %d)", pid);
		break;
	default:
		snprintf(buf, size, "nobody: the damonc agent is not running, so this part is "
			 "not done (run 'damonc agent')");
	}
	return buf;
}

const char *agent_view_server_key(enum agent_server who)
{
	return who == AGENT_BACKGROUND ? "agent" : who == AGENT_FOREGROUND ? "foreground" :
	       "none";
}

static const struct damonctl_fallback_scheme_stats *
scheme_stats(const struct damonctl_fallback_stats *st, unsigned int scheme)
{
	unsigned int i;

	for (i = 0; i < st->nr; i++)
		if (st->s[i].scheme == scheme)
			return &st->s[i];
	return NULL;
}

void agent_view_text(FILE *out, struct cli *cli, const struct started_entry *e)
{
	struct damonctl_fallback_stats st;
	enum agent_server who;
	char a[64], b[64], c[64], d[256];
	unsigned int i;
	int pid;

	if (!started_needs_agent(e))
		return;
	who = agent_view_server(cli, e, &pid);
	agent_stats_load(cli->ctx, e->kdamond, &st);
	fprintf(out, "  served in user space by %s:\n",
		agent_view_server_text(who, pid, d, sizeof(d)));
	if (e->follow_children)
		fprintf(out, "    following the targets' children (new ones become targets)\n");
	for (i = 0; i < e->fbs.nr; i++) {
		const struct damonctl_fallback *fb = &e->fbs.fb[i];
		const struct damonctl_fallback_scheme_stats *ss = scheme_stats(&st, fb->scheme);

		if (fb->kind == DAMONCTL_FALLBACK_HUGEPAGE_GOAL) {
			fprintf(out, "    scheme %u goal %u: hugepage_mem_bp %s (%s), which this kernel "
				"lacks, stands in as user_input fed by the agent every %s\n",
				fb->scheme, fb->goal, fmt_bp(fb->target_bp, a, sizeof(a)),
				fb->scope_pid ? "over the targets" : "system-wide",
				fmt_time(fb->reset_ms * 1000, b, sizeof(b)));
			continue;
		}
		if (fb->by_kernel) {
			fprintf(out, "    scheme %u: collapse by the kernel, paced in huge pages: the "
				"agent reads DAMON's regions (stat scheme %u) and lets the kernel "
				"collapse the hot pages of target %u (pid %d) the goal %s needs "
				"(%s), and no more (while it allows nothing, the scheme's size quota "
				"is %d B)\n", fb->scheme, fb->observer, fb->target,
				fb->target < e->nr_targets ? e->targets[fb->target] : -1,
				fmt_bp(fb->target_bp, a, sizeof(a)),
				fb->scope_pid ? "over the targets" : "system-wide",
				DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES);
			if (ss)
				fprintf(out, "      agent stats: allowed %s in %" PRIu64 " steps\n",
					fmt_size(ss->sz_tried, a, sizeof(a)), ss->nr_tried);
			continue;
		}
		fprintf(out, "    scheme %u: collapse, which this kernel lacks: the agent reads "
			"DAMON's regions (stat scheme %u) and collapses the hot pages of target %u "
			"(pid %d) with process_madvise\n", fb->scheme, fb->observer, fb->target,
			fb->target < e->nr_targets ? e->targets[fb->target] : -1);
		fprintf(out, "      quota (the agent's): ");
		if (!fb->quota_ms && !fb->quota_bytes)
			fprintf(out, "none");
		if (fb->quota_ms)
			fprintf(out, "%s", fmt_time(fb->quota_ms * 1000, a, sizeof(a)));
		if (fb->quota_bytes)
			fprintf(out, "%s%s", fb->quota_ms ? ", " : "",
				fmt_size(fb->quota_bytes, a, sizeof(a)));
		fprintf(out, " per %s", fmt_time(fb->reset_ms * 1000, b, sizeof(b)));
		if (fb->target_bp)
			fprintf(out, "; goal hugepage_mem_bp %s (%s)", fmt_bp(fb->target_bp, c,
				sizeof(c)), fb->scope_pid ? "over the targets" : "system-wide");
		fprintf(out, "\n");
		if (ss)
			fprintf(out, "      agent stats: tried %" PRIu64 " regions (%s), applied %" PRIu64
				" (%s), quota exceeded %" PRIu64 " times; newly huge %s; busy %s\n",
				ss->nr_tried, fmt_size(ss->sz_tried, a, sizeof(a)), ss->nr_applied,
				fmt_size(ss->sz_applied, b, sizeof(b)), ss->qt_exceeds,
				fmt_size(ss->sz_collapsed, c, sizeof(c)),
				fmt_time(ss->busy_us, d, sizeof(d)));
	}
	if (st.rounds && st.target_bp) {
		fprintf(out, "    measured by the agent: huge-page ratio %s, goal %s: %s (%" PRIu64
			" rounds", fmt_bp(st.measured_bp, a, sizeof(a)),
			fmt_bp(st.target_bp, b, sizeof(b)),
			color_str(st.goal_met ? CR_GOOD : CR_WARN, st.goal_met ? "met" : "not met",
				  c, sizeof(c)),
			st.rounds);
		if (st.feeds)
			fprintf(out, ", %" PRIu64 " values fed to the kernel", st.feeds);
		fprintf(out, ")\n");
	}
	agent_view_hot_text(out, &st, "    ");
}

void agent_view_hot_text(FILE *out, const struct damonctl_fallback_stats *st, const char *indent)
{
	char a[64], b[64], c[64];

	if (!st->observed)
		return;
	if (st->unreachable)
		fprintf(out, "%sgoal not reachable: hot memory is %s (%s); with all of it huge "
			"the ratio would be %s\n", indent, fmt_size(st->hot_bytes, a, sizeof(a)),
			fmt_bp(st->hot_bp, b, sizeof(b)), fmt_bp(st->reachable_bp, c, sizeof(c)));
	else
		fprintf(out, "%shot memory: %s (%s), %s of it huge\n", indent,
			fmt_size(st->hot_bytes, a, sizeof(a)), fmt_bp(st->hot_bp, b, sizeof(b)),
			fmt_size(st->hot_huge_bytes, c, sizeof(c)));
	if (st->cold_huge_bytes)
		fprintf(out, "%shuge pages gone cold: %s in regions not accessed for up to %s\n",
			indent, fmt_size(st->cold_huge_bytes, a, sizeof(a)),
			fmt_time(st->cold_huge_idle_us, b, sizeof(b)));
	agent_view_coverage_text(out, st, indent);
}

/* "83.4%", or what an undefined coverage is */
static const char *fmt_coverage(const struct damonctl_hugepage_coverage *c, char *buf,
				size_t size)
{
	uint64_t bp;

	if (damonctl_hugepage_coverage_bp(c, &bp))
		return "undefined (DAMON saw no access)";
	return fmt_bp(bp, buf, size);
}

void agent_view_coverage_text(FILE *out, const struct damonctl_fallback_stats *st,
			      const char *indent)
{
	char a[64], b[64];
	unsigned int i;

	if (!st->observed)
		return;
	if (!st->coverage_known) {
		fprintf(out, "%saccess coverage: unknown (where the huge pages are takes "
			"PAGEMAP_SCAN, Linux 6.7)\n", indent);
		return;
	}
	fprintf(out, "%saccess coverage: %s of the accesses DAMON saw fall in huge pages (%s of "
		"the monitored memory is huge)\n", indent,
		fmt_coverage(&st->coverage, a, sizeof(a)),
		fmt_size(st->coverage.huge_bytes, b, sizeof(b)));
	for (i = 0; st->nr_coverage > 1 && i < st->nr_coverage; i++)
		fprintf(out, "%s  pid %d: %s\n", indent, st->tc[i].pid,
			fmt_coverage(&st->tc[i].c, a, sizeof(a)));
}

static json_object *coverage_figures_json(const struct damonctl_hugepage_coverage *c)
{
	json_object *o = json_object_new_object();
	uint64_t bp;

	json_object_object_add(o, "bp", damonctl_hugepage_coverage_bp(c, &bp) ? NULL :
			       json_object_new_uint64(bp));
	json_object_object_add(o, "bytes", json_object_new_uint64(c->bytes));
	json_object_object_add(o, "huge_bytes", json_object_new_uint64(c->huge_bytes));
	json_object_object_add(o, "accessed", json_object_new_double(c->accessed));
	json_object_object_add(o, "accessed_huge", json_object_new_double(c->accessed_huge));
	return o;
}

json_object *agent_view_coverage_json(const struct damonctl_fallback_stats *st)
{
	json_object *o, *arr;
	unsigned int i;

	if (!st->coverage_known)
		return NULL;
	o = coverage_figures_json(&st->coverage);
	arr = json_object_new_array();
	for (i = 0; i < st->nr_coverage; i++) {
		json_object *t = coverage_figures_json(&st->tc[i].c);

		json_object_object_add(t, "pid", json_object_new_int(st->tc[i].pid));
		json_object_array_add(arr, t);
	}
	json_object_object_add(o, "targets", arr);
	return o;
}

json_object *agent_view_hot_json(const struct damonctl_fallback_stats *st)
{
	json_object *hot;

	if (!st->observed)
		return NULL;
	hot = json_object_new_object();
	json_object_object_add(hot, "bytes", json_object_new_uint64(st->hot_bytes));
	json_object_object_add(hot, "huge_bytes", json_object_new_uint64(st->hot_huge_bytes));
	json_object_object_add(hot, "bp", json_object_new_uint64(st->hot_bp));
	json_object_object_add(hot, "reachable_bp", json_object_new_uint64(st->reachable_bp));
	json_object_object_add(hot, "goal_reachable", json_object_new_boolean(!st->unreachable));
	json_object_object_add(hot, "cold_huge_bytes", json_object_new_uint64(st->cold_huge_bytes));
	json_object_object_add(hot, "cold_huge_idle_us",
			       json_object_new_uint64(st->cold_huge_idle_us));
	json_object_object_add(hot, "access_coverage", agent_view_coverage_json(st));
	return hot;
}

json_object *agent_view_json(struct cli *cli, const struct started_entry *e)
{
	json_object *o, *arr;
	struct damonctl_fallback_stats st;
	enum agent_server who;
	unsigned int i;
	int pid;

	if (!started_needs_agent(e))
		return NULL;
	who = agent_view_server(cli, e, &pid);
	agent_stats_load(cli->ctx, e->kdamond, &st);
	o = json_object_new_object();
	json_object_object_add(o, "served_by", json_object_new_string(agent_view_server_key(who)));
	json_object_object_add(o, "pid", pid ? json_object_new_int(pid) : NULL);
	json_object_object_add(o, "follow_children", json_object_new_boolean(e->follow_children));
	json_object_object_add(o, "fallbacks", fallback_to_json(&e->fbs));
	json_object_object_add(o, "measured_bp", st.rounds ? json_object_new_uint64(st.measured_bp)
							   : NULL);
	json_object_object_add(o, "target_bp", st.target_bp ? json_object_new_uint64(st.target_bp)
							    : NULL);
	json_object_object_add(o, "goal_met", st.target_bp && st.rounds ?
			       json_object_new_boolean(st.goal_met) : NULL);
	json_object_object_add(o, "rounds", json_object_new_uint64(st.rounds));
	json_object_object_add(o, "feeds", json_object_new_uint64(st.feeds));
	arr = json_object_new_array();
	for (i = 0; i < st.nr; i++) {
		json_object *s = json_object_new_object();

		json_object_object_add(s, "scheme", json_object_new_int((int)st.s[i].scheme));
		json_object_object_add(s, "nr_tried", json_object_new_uint64(st.s[i].nr_tried));
		json_object_object_add(s, "sz_tried", json_object_new_uint64(st.s[i].sz_tried));
		json_object_object_add(s, "nr_applied", json_object_new_uint64(st.s[i].nr_applied));
		json_object_object_add(s, "sz_applied", json_object_new_uint64(st.s[i].sz_applied));
		json_object_object_add(s, "qt_exceeds", json_object_new_uint64(st.s[i].qt_exceeds));
		json_object_object_add(s, "sz_collapsed",
				       json_object_new_uint64(st.s[i].sz_collapsed));
		json_object_object_add(s, "busy_us", json_object_new_uint64(st.s[i].busy_us));
		json_object_array_add(arr, s);
	}
	json_object_object_add(o, "stats", arr);
	json_object_object_add(o, "hot", agent_view_hot_json(&st));
	return o;
}
