// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Goal and watermark metrics. The emulated machine has a single NUMA node, node 0, whose
 * memory is the whole system's (<proc_root>/meminfo); other node ids are invalid, which the
 * kernel answers with 0 (used) or 10000 (free). Memory cgroup usage comes from the cgroup v2
 * memory.stat of the goal's path under the cgroup root (/sys/fs/cgroup by default).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"
#include "schemes.h"
#include "util.h"

int metrics_read_meminfo(const char *proc_root, struct emu_meminfo *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal:", offsetof(struct emu_meminfo, total) },
		{ "MemFree:", offsetof(struct emu_meminfo, free) },
		{ "Active:", offsetof(struct emu_meminfo, active) },
		{ "Inactive:", offsetof(struct emu_meminfo, inactive) },
		{ "AnonHugePages:", offsetof(struct emu_meminfo, anon_huge) },
		{ "ShmemHugePages:", offsetof(struct emu_meminfo, shmem_huge) },
		{ "FileHugePages:", offsetof(struct emu_meminfo, file_huge) },
	};
	char path[PATH_MAX + 64], line[256];
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i].key);
			uint64_t kb;

			if (!strncmp(line, keys[i].key, n) &&
			    sscanf(line + n, "%" SCNu64, &kb) == 1)
				*(uint64_t *)((char *)m + keys[i].off) = kb * 1024;
		}
	}
	fclose(f);
	return 0;
}

uint64_t metrics_psi_some_total_us(const char *proc_root)
{
	char path[PATH_MAX + 64], line[256];
	uint64_t total = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pressure/memory", proc_root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *t = strstr(line, "total=");

		if (!strncmp(line, "some ", 5) && t)
			sscanf(t + 6, "%" SCNu64, &total);
	}
	fclose(f);
	return total;
}

uint64_t metrics_hugepage_mem_bp(const struct emu_meminfo *m)
{
	uint64_t huge = m->anon_huge + m->shmem_huge + m->file_huge;

	if (m->free >= m->total)
		return 10000;
	return emu_mult_frac(huge, 10000, m->total - m->free);
}

/* memory.stat LRU pages of a cgroup (what the kernel sums from the memcg's lruvec). */
static int memcg_lru_bytes(const char *root, const char *path, uint64_t *bytes)
{
	static const char *const keys[] = { "active_anon ", "inactive_anon ", "active_file ",
					    "inactive_file " };
	char file[PATH_MAX + 600], line[256], clean[512];
	FILE *f;
	size_t n;

	/* sysfs keeps a trailing newline of the written path */
	snprintf(clean, sizeof(clean), "%s", path);
	n = strcspn(clean, "\n");
	clean[n] = '\0';
	if (!*clean)
		return -ENOENT;
	snprintf(file, sizeof(file), "%s/%s/memory.stat", root,
		 clean[0] == '/' ? clean + 1 : clean);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	*bytes = 0;
	while (fgets(line, sizeof(line), f)) {
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			uint64_t v;

			if (!strncmp(line, keys[i], strlen(keys[i])) &&
			    sscanf(line + strlen(keys[i]), "%" SCNu64, &v) == 1)
				*bytes += v;
		}
	}
	fclose(f);
	return 0;
}

/* node_eligible_mem_bp: share of the scheme-eligible memory on the node (one node here). */
static uint64_t node_eligible_bp(struct mon_ctx *c, struct mon_scheme *s, int nid)
{
	uint64_t total = 0;

	if (c->ops != EMU_OPS_PADDR || nid != 0)
		return 0;
	for (int i = 0; i < c->nr_targets; i++)
		for (size_t k = 0; k < c->targets[i].nr; k++)
			if (schemes_pattern_match(c, &c->targets[i].regions[k], s))
				total += mon_region_sz(&c->targets[i].regions[k]);
	/* every eligible byte is on the only node */
	return total ? 10000 : 0;
}

void metrics_update_goal(struct mon_ctx *c, struct mon_scheme *s, int gi)
{
	struct emu_goal *g = &s->p.goals[gi];
	struct emu_meminfo m;
	bool have_mem = !metrics_read_meminfo(c->proc_root, &m) && m.total;
	uint64_t now, lru;

	switch (g->metric) {
	case EMU_METRIC_USER_INPUT:
		break;		/* set by the user through commit_schemes_quota_goals */
	case EMU_METRIC_SOME_MEM_PSI_US:
		now = metrics_psi_some_total_us(c->proc_root);
		g->current_value = now - s->goal_last_psi[gi];
		s->goal_last_psi[gi] = now;
		break;
	case EMU_METRIC_NODE_MEM_USED_BP:
	case EMU_METRIC_NODE_MEM_FREE_BP:
		if (g->nid != 0 || !have_mem) {
			g->current_value = g->metric == EMU_METRIC_NODE_MEM_USED_BP ? 0 : 10000;
			break;
		}
		g->current_value = emu_mult_frac(g->metric == EMU_METRIC_NODE_MEM_USED_BP ?
						 m.total - m.free : m.free, 10000, m.total);
		break;
	case EMU_METRIC_NODE_MEMCG_USED_BP:
	case EMU_METRIC_NODE_MEMCG_FREE_BP:
		if (g->nid != 0 || !have_mem || memcg_lru_bytes(c->cgroup_root, g->path, &lru)) {
			g->current_value = g->metric == EMU_METRIC_NODE_MEMCG_USED_BP ? 0 : 10000;
			break;
		}
		if (lru > m.total)
			lru = m.total;
		g->current_value = emu_mult_frac(g->metric == EMU_METRIC_NODE_MEMCG_USED_BP ?
						 lru : m.total - lru, 10000, m.total);
		break;
	case EMU_METRIC_ACTIVE_MEM_BP:
	case EMU_METRIC_INACTIVE_MEM_BP:
		g->current_value = have_mem ? emu_mult_frac(g->metric == EMU_METRIC_ACTIVE_MEM_BP ?
							    m.active : m.inactive, 10000,
							    m.active + m.inactive) : 0;
		break;
	case EMU_METRIC_NODE_ELIGIBLE_MEM_BP:
		g->current_value = node_eligible_bp(c, s, g->nid);
		break;
	case EMU_METRIC_HUGEPAGE_MEM_BP:
		g->current_value = have_mem && c->hugepage_metric ? metrics_hugepage_mem_bp(&m) : 0;
		break;
	}
}

int metrics_wmark_value(struct mon_ctx *c, enum emu_wmark_metric metric, uint64_t *value)
{
	struct emu_meminfo m;

	if (metric != EMU_WMARK_FREE_MEM_RATE)
		return -EINVAL;
	if (metrics_read_meminfo(c->proc_root, &m) || !m.total)
		return -EINVAL;
	*value = m.free * 1000 / m.total;
	return 0;
}
