// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The memory footprints a record kept beside its snapshots (damonctl_footprints_new(3)),
 * damo's `report footprints`: each target's virtual size, RSS, share of a CPU and number of
 * mappings, the system's used memory and its huge pages, and the kdamond's share of a CPU,
 * as a histogram per metric, and the last sample's figures. CPU shares come from the CPU
 * times of two footprints in a row; mappings are recorded when they change and carried
 * forward. Memory does not grow with the record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

#define MAX_TARGETS 64
#define MAX_METRICS (4 + 4 * MAX_TARGETS)

struct metric {
	const char *name;
	int target;			/* -1: the system's */
	int pid;
	enum damonctl_footprint_unit unit;
	struct damonctl_qhist *h;
};

/* A CPU time at a time, for the share of a CPU until the next one. */
struct cpu_prev {
	int pid;			/* 0: none yet */
	uint64_t ns, cpu_us;
};

struct damonctl_footprints {
	int32_t only_target;		/* -1: every target */
	uint64_t n, first_ns, last_ns;
	struct metric m[MAX_METRICS];
	unsigned int nr;
	struct cpu_prev cpu[MAX_TARGETS], kd_cpu;
	int64_t nr_vmas[MAX_TARGETS];	/* the last recorded count (-1: none yet) */
	int vmas_pid[MAX_TARGETS];
	/* the last sample */
	struct damonctl_footprint_sample last;
	struct damonctl_footprint_target *tg;
	unsigned int tg_cap;
};

struct damonctl_footprints *damonctl_footprints_new(int32_t target)
{
	struct damonctl_footprints *f = calloc(1, sizeof(*f));

	if (f)
		f->only_target = target;
	return f;
}

void damonctl_footprints_free(struct damonctl_footprints *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		damonctl_qhist_free(f->m[i].h);
	free(f->tg);
	free(f);
}

static int add(struct damonctl_footprints *f, const char *name, int target, int pid,
	       enum damonctl_footprint_unit unit, uint64_t v)
{
	struct metric *m;
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		if (f->m[i].target == target && !strcmp(f->m[i].name, name))
			break;
	if (i == f->nr) {
		if (f->nr == MAX_METRICS)
			return -ENOMEM;
		m = &f->m[f->nr];
		*m = (struct metric){ name, target, pid, unit, damonctl_qhist_new() };
		if (!m->h)
			return -ENOMEM;
		f->nr++;
	}
	damonctl_qhist_add(f->m[i].h, v);
	return 0;
}

static uint64_t get_u64(json_object *o, const char *key, bool *ok)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		*ok = false;
		return 0;
	}
	return json_object_get_uint64(v);
}

/* The share of a CPU (bp) used since @p's time, by the same @pid: -1 when unknown (the
 * first sample, a new process, or no time between them). @p becomes this sample. */
static int64_t cpu_share(struct cpu_prev *p, int pid, uint64_t ns, uint64_t cpu_us)
{
	int64_t bp = -1;

	if (p->pid == pid && ns > p->ns && cpu_us >= p->cpu_us)
		bp = (int64_t)((cpu_us - p->cpu_us) * 10000000u / (ns - p->ns));
	p->pid = pid;
	p->ns = ns;
	p->cpu_us = cpu_us;
	return bp;
}

/* A target's mapping count: the recorded one, else the last one of the same process. */
static int64_t vma_count(struct damonctl_footprints *f, json_object *t, uint64_t target,
			 int pid)
{
	json_object *v;

	if (json_object_object_get_ex(t, "vmas", &v) && json_object_is_type(v, json_type_array)) {
		f->nr_vmas[target] = (int64_t)json_object_array_length(v);
		f->vmas_pid[target] = pid;
	} else if (f->vmas_pid[target] != pid) {
		f->nr_vmas[target] = -1;
	}
	return f->nr_vmas[target];
}

/* The kdamond's CPU share since the footprint before (into the sample) and its metric. */
static int take_kdamond(struct damonctl_footprints *f, json_object *doc, uint64_t ns)
{
	int64_t *bp = &f->last.kdamond_cpu_bp;
	json_object *k;
	bool ok = true;
	uint64_t pid, cpu;

	if (!json_object_object_get_ex(doc, "kdamond", &k) ||
	    !json_object_is_type(k, json_type_object))
		return 0;
	pid = get_u64(k, "pid", &ok);
	cpu = get_u64(k, "cpu_us", &ok);
	if (ok)
		*bp = cpu_share(&f->kd_cpu, (int)pid, ns, cpu);
	return *bp >= 0 ? add(f, "kdamond_cpu_bp", -1, (int)pid, DAMONCTL_FOOTPRINT_BP,
			      (uint64_t)*bp) : 0;
}

/* The system's figures of a footprint into the sample: false when it has none (or not all
 * of them); the huge pages may be unknown (damo's side files have none). */
static bool system_figures(json_object *doc, struct damonctl_footprint_sample *s,
			   uint64_t *bp)
{
	struct damonctl_meminfo m = DAMONCTL_MEMINFO_INIT;
	json_object *sys;
	bool ok = true;

	if (!json_object_object_get_ex(doc, "system", &sys) ||
	    !json_object_is_type(sys, json_type_object))
		return false;
	/* the record keeps MemTotal and MemFree: "used" as the library defines it */
	m.total = get_u64(sys, "total", &ok);
	m.free = get_u64(sys, "free", &ok);
	s->has_huge = true;
	s->huge = get_u64(sys, "huge", &s->has_huge);
	s->used = damonctl_meminfo_used(&m);
	*bp = damonctl_hugepage_bp(s->huge, s->used);
	return ok;
}

/* One target of a footprint: its figures into the histograms and the sample's targets. 0,
 * or -ENOMEM. */
static int take_target(struct damonctl_footprints *f, json_object *t, uint64_t time_ns)
{
	struct damonctl_footprint_target x = { .sz = sizeof(x), .cpu_bp = -1 };
	uint64_t target, pid, cpu;
	bool ok = true, have_cpu = true;

	target = get_u64(t, "target", &ok);
	pid = get_u64(t, "pid", &ok);
	x.vsz = get_u64(t, "vsz", &ok);
	x.rss = get_u64(t, "rss", &ok);
	if (!ok || target >= MAX_TARGETS ||
	    (f->only_target >= 0 && target != (uint64_t)f->only_target))
		return 0;
	x.target = (int)target;
	x.pid = (int)pid;
	cpu = get_u64(t, "cpu_us", &have_cpu);
	if (have_cpu)
		x.cpu_bp = cpu_share(&f->cpu[target], x.pid, time_ns, cpu);
	x.vmas = vma_count(f, t, target, x.pid);
	if (add(f, "vsz", x.target, x.pid, DAMONCTL_FOOTPRINT_BYTES, x.vsz) ||
	    add(f, "rss", x.target, x.pid, DAMONCTL_FOOTPRINT_BYTES, x.rss) ||
	    (x.cpu_bp >= 0 && add(f, "cpu_bp", x.target, x.pid, DAMONCTL_FOOTPRINT_BP,
				  (uint64_t)x.cpu_bp)) ||
	    (x.vmas >= 0 && add(f, "vmas", x.target, x.pid, DAMONCTL_FOOTPRINT_COUNT,
				(uint64_t)x.vmas)))
		return -ENOMEM;
	if (f->last.nr_targets == f->tg_cap) {
		unsigned int cap = f->tg_cap ? f->tg_cap * 2 : 4;
		void *p = realloc(f->tg, cap * sizeof(*f->tg));

		if (!p)
			return -ENOMEM;
		f->tg = p;
		f->tg_cap = cap;
	}
	f->tg[f->last.nr_targets++] = x;
	return 0;
}

/* The figures of @doc, a FOOTPRINT item's, at @ns. */
static int take(struct damonctl_footprints *f, json_object *doc, uint64_t ns)
{
	json_object *tgts;
	uint64_t bp = 0;
	size_t i, n;
	int r = 0;

	f->last = (struct damonctl_footprint_sample){ .sz = sizeof(f->last), .time_ns = ns,
						      .kdamond_cpu_bp = -1 };
	f->last.has_system = system_figures(doc, &f->last, &bp);
	if (!f->n)
		f->first_ns = ns;
	f->last_ns = ns;
	f->n++;
	if (f->last.has_system &&
	    (add(f, "used", -1, 0, DAMONCTL_FOOTPRINT_BYTES, f->last.used) ||
	     (f->last.has_huge &&
	      (add(f, "huge", -1, 0, DAMONCTL_FOOTPRINT_BYTES, f->last.huge) ||
	       add(f, "huge_bp", -1, 0, DAMONCTL_FOOTPRINT_BP, bp)))))
		r = -ENOMEM;
	if (!r && take_kdamond(f, doc, ns))
		r = -ENOMEM;
	n = json_object_object_get_ex(doc, "targets", &tgts) &&
	    json_object_is_type(tgts, json_type_array) ? json_object_array_length(tgts) : 0;
	for (i = 0; !r && i < n; i++)
		r = take_target(f, json_object_array_get_idx(tgts, i), ns);
	return r;
}

int damonctl_footprints_feed(struct damonctl_footprints *f, const struct damonctl_rec_item *it)
{
	json_object *doc;
	int r;

	if (it->type != DAMONCTL_REC_FOOTPRINT)
		return 0;
	doc = json_tokener_parse(it->json);
	if (!doc)
		return 0;	/* a damaged footprint is no figure; the rest of the record is */
	r = take(f, doc, it->time_ns);
	json_object_put(doc);
	return r ? r : 1;
}

uint64_t damonctl_footprints_samples(const struct damonctl_footprints *f, uint64_t *first_ns,
				     uint64_t *last_ns)
{
	if (first_ns)
		*first_ns = f->first_ns;
	if (last_ns)
		*last_ns = f->last_ns;
	return f->n;
}

/* Copies what both sizes hold of an extensible struct (first member size_t sz). */
static int sized_copy(void *dst, const void *src, size_t full, size_t min)
{
	size_t sz = *(const size_t *)dst;

	if (sz < min)
		return -EINVAL;
	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       (sz < full ? sz : full) - sizeof(size_t));
	return 0;
}

int damonctl_footprints_sample(const struct damonctl_footprints *f,
			       struct damonctl_footprint_sample *s)
{
	if (!f->n)
		return -ENOENT;
	return sized_copy(s, &f->last, sizeof(f->last),
			  offsetof(struct damonctl_footprint_sample, nr_targets) +
			  sizeof(s->nr_targets));
}

int damonctl_footprints_sample_target(const struct damonctl_footprints *f, unsigned int i,
				      struct damonctl_footprint_target *t)
{
	if (!f->n || i >= f->last.nr_targets)
		return -ERANGE;
	return sized_copy(t, &f->tg[i], sizeof(f->tg[i]),
			  offsetof(struct damonctl_footprint_target, vmas) + sizeof(t->vmas));
}

unsigned int damonctl_footprints_nr_metrics(const struct damonctl_footprints *f)
{
	return f->nr;
}

int damonctl_footprints_metric(const struct damonctl_footprints *f, unsigned int i,
			       struct damonctl_footprint_metric *m)
{
	struct damonctl_footprint_metric v;

	if (i >= f->nr)
		return -ERANGE;
	v = (struct damonctl_footprint_metric){ .sz = sizeof(v), .name = f->m[i].name,
		.target = f->m[i].target, .pid = f->m[i].pid, .unit = f->m[i].unit,
		.values = f->m[i].h };
	return sized_copy(m, &v, sizeof(v), offsetof(struct damonctl_footprint_metric, values) +
			  sizeof(m->values));
}
