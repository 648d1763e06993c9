// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>

#include "layout.h"
#include "results.h"

static struct emu_node *scheme(struct emu_node *ctx, int i)
{
	return emu_node_nth(emu_node_at(ctx, "schemes"), i);
}

void emu_results_stats(struct emu_node *ctx, int n, const struct emu_scheme_stats *st)
{
	for (int i = 0; i < n; i++) {
		struct emu_node *s = emu_node_at(scheme(ctx, i), "stats");

		if (!s)
			break;	/* the user shrank nr_schemes: copy what fits */
		emu_set_u(s, "nr_tried", st[i].nr_tried);
		emu_set_u(s, "sz_tried", st[i].sz_tried);
		emu_set_u(s, "nr_applied", st[i].nr_applied);
		emu_set_u(s, "sz_applied", st[i].sz_applied);
		emu_set_u(s, "sz_ops_filter_passed", st[i].sz_ops_filter_passed);
		emu_set_u(s, "qt_exceeds", st[i].qt_exceeds);
		emu_set_u(s, "nr_snapshots", st[i].nr_snapshots);
	}
}

void emu_results_quotas(struct emu_node *ctx, int n, const uint64_t *bytes)
{
	for (int i = 0; i < n; i++) {
		struct emu_node *q = emu_node_at(scheme(ctx, i), "quotas");

		if (!q)
			break;
		emu_set_u(q, "effective_bytes", bytes[i]);
	}
}

void emu_results_intervals(struct emu_node *ctx, uint64_t sample_us, uint64_t aggr_us)
{
	struct emu_node *iv = emu_node_at(ctx, "monitoring_attrs/intervals");

	emu_set_u(iv, "sample_us", sample_us);
	emu_set_u(iv, "aggr_us", aggr_us);
}

void emu_results_clear_tried(struct emu_node *ctx)
{
	struct emu_node *ss = emu_node_at(ctx, "schemes");

	for (int i = 0; ss && i < ss->nkids; i++) {
		struct emu_node *tr;

		if (!emu_node_is_numbered(ss->kids[i]))
			continue;
		tr = emu_node_child(ss->kids[i], "tried_regions");
		if (!tr)
			continue;
		emu_node_free_numbered(tr);
		emu_set_u(tr, "total_bytes", 0);
	}
}

static void add_region(struct emu_node *tr, int idx, const struct emu_tried_region *r,
		       int nr_probes)
{
	char name[16];
	struct emu_node *d, *probes;

	snprintf(name, sizeof(name), "%d", idx);
	d = emu_node_new_dir(tr, name, DK_TREGION);
	emu_node_new_file(d, &emu_fd_tr_start)->v.u = r->start;
	emu_node_new_file(d, &emu_fd_tr_end)->v.u = r->end;
	emu_node_new_file(d, &emu_fd_tr_nr_accesses)->v.u = r->nr_accesses;
	emu_node_new_file(d, &emu_fd_tr_age)->v.u = r->age;
	if (emu_since(EMU_V(6, 14)))
		emu_node_new_file(d, &emu_fd_tr_sz_filter_passed)->v.u = r->sz_filter_passed;
	if (!emu_since(EMU_V(7, 2)))
		return;
	/* present even with no probe configured */
	probes = emu_node_new_dir(d, "probes", DK_TRPROBES);
	for (int p = 0; p < nr_probes && p < EMU_MAX_PROBES; p++) {
		struct emu_node *pd;

		snprintf(name, sizeof(name), "%d", p);
		pd = emu_node_new_dir(probes, name, DK_TRPROBE);
		emu_node_new_file(pd, &emu_fd_tr_hits)->v.u = r->probe_hits[p];
	}
}

void emu_results_tried(struct emu_node *ctx, int n, struct emu_tried_region **regions,
		       const size_t *nr, const uint64_t *total, bool bytes_only, int nr_probes)
{
	for (int i = 0; i < n; i++) {
		struct emu_node *tr = emu_node_at(scheme(ctx, i), "tried_regions");
		int base;

		if (!tr)
			break;
		emu_set_u(tr, "total_bytes", emu_get_u(tr, "total_bytes", 0) + total[i]);
		if (bytes_only)
			continue;
		base = emu_node_count_numbered(tr);
		for (size_t j = 0; j < nr[i]; j++)
			add_region(tr, base + (int)j, &regions[i][j], nr_probes);
	}
}
