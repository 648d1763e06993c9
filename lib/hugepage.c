// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Huge pages, in one place: the huge-page ratio that the hugepage_mem_bp goal metric measures
 * (system-wide as the kernel defines it, or over a set of processes), where a process's huge
 * pages are, and which of its 2 MiB-aligned pages are hot and still small (a collapse plan),
 * collapsed from user space within time and byte budgets.
 *
 * The unit of a plan is the huge page: MADV_COLLAPSE makes whole, aligned 2 MiB pages
 * inside one mapping and nothing else, so a budget counted in regions (DAMON's unit, which
 * rarely starts on a 2 MiB boundary) overshoots or stalls; counted in huge pages it is exact.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pagemap_scan.h"

#define HPAGE DAMONCTL_HUGEPAGE_SIZE
#define ALIGN_DOWN(x) ((x) & ~(HPAGE - 1))
#define ALIGN_UP(x) ALIGN_DOWN((x) + HPAGE - 1)

/* ---- the ratio ---- */

DAMONCTL_API uint64_t damonctl_proc_mem_huge(const struct damonctl_proc_mem *m)
{
	/* PMD-mapped memory of every kind, as the system-wide metric counts all three */
	return m->anon_huge + m->shmem_huge + m->file_huge;
}

DAMONCTL_API uint64_t damonctl_hugepage_bp(uint64_t huge, uint64_t used)
{
	/* the kernel metric's convention: nothing used counts as reached */
	if (!used)
		return 10000;
	return (uint64_t)((unsigned __int128)huge * 10000 / used);
}

DAMONCTL_API uint64_t damonctl_hugepage_bytes_to_goal(uint64_t huge, uint64_t used,
						      uint64_t target_bp)
{
	unsigned __int128 want = (unsigned __int128)used * target_bp;
	unsigned __int128 have = (unsigned __int128)huge * 10000;

	return want > have ? (uint64_t)((want - have + 9999) / 10000) : 0;
}

DAMONCTL_API int damonctl_hugepage_measure(struct damonctl_ctx *ctx, const int *pids,
					   unsigned int nr, uint64_t *huge, uint64_t *used)
{
	uint64_t h = 0, u = 0;
	unsigned int i;
	int r;

	if (!pids || !nr) {
		struct damonctl_meminfo m = DAMONCTL_MEMINFO_INIT;

		r = damonctl_meminfo_read(ctx, &m);
		if (r)
			return r;
		*huge = damonctl_meminfo_huge(&m);
		*used = damonctl_meminfo_used(&m);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		struct damonctl_proc_mem pm;

		if (pids[i] <= 0)
			continue;	/* a target that exited */
		r = damonctl_proc_mem_read(ctx, pids[i], &pm);
		if (r == -ESRCH)
			continue;	/* exited: it holds no memory any more */
		if (r)
			return r;
		h += damonctl_proc_mem_huge(&pm);
		u += pm.rss;
	}
	*huge = h;
	*used = u;
	return 0;
}

/* ---- where a process's huge pages are ---- */

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1)
#define KPF_COMPOUND_HEAD 15
#define KPF_THP 22

int dctl_open_pid_file(struct damonctl_ctx *ctx, int pid, const char *name)
{
	char rel[64], path[PATH_MAX];
	int fd;

	snprintf(rel, sizeof(rel), "%d/%s", pid, name);
	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	return fd;
}

/* PAGEMAP_SCAN: the PMD-mapped ranges, reported by the kernel directly. -ENOTTY before 6.7. */
static int huge_scan(int fd, uint64_t start, uint64_t end, damonctl_range_fn fn, void *data)
{
	/* zeroed: valgrind does not know that PAGEMAP_SCAN fills it */
	struct page_region vec[128] = { { 0 } };

	while (start < end) {
		struct pm_scan_arg arg = {
			.size = sizeof(arg),
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)vec,
			.vec_len = ARRAY_SIZE(vec),
			.category_mask = PAGE_IS_HUGE,
			.return_mask = PAGE_IS_HUGE,
		};
		long n = ioctl(fd, PAGEMAP_SCAN, &arg), i;

		if (n < 0)
			return -errno;
		for (i = 0; i < n; i++) {
			int r = fn(data, vec[i].start, vec[i].end);

			if (r)
				return r;
		}
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	return 0;
}

/* Before 6.7: an aligned 2 MiB page is huge when its first page is the head of a THP whose
 * frame is 2 MiB-aligned and its last page the 512th frame after it (root only: frames). */
static int huge_kpageflags(struct damonctl_ctx *ctx, int fd, uint64_t start, uint64_t end,
			   damonctl_range_fn fn, void *data)
{
	char path[PATH_MAX];
	uint64_t a;
	int kfd, r = 0;

	if (damonctl_path(ctx, DAMONCTL_BASE_PROC, "kpageflags", path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	kfd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	if (kfd < 0)
		return kfd;
	for (a = ALIGN_UP(start); a + HPAGE <= end && !r; a += HPAGE) {
		uint64_t first, last, flags;

		if (pread(fd, &first, 8, (off_t)(a / 4096 * 8)) != 8 ||
		    pread(fd, &last, 8, (off_t)((a + HPAGE - 4096) / 4096 * 8)) != 8) {
			r = -errno ? -errno : -EIO;
			break;
		}
		if (!(first & PM_PRESENT) || !(last & PM_PRESENT) || !(first & PM_PFN_MASK))
			continue;	/* not present, or frames hidden (not root) */
		if ((first & PM_PFN_MASK) % 512 || (last & PM_PFN_MASK) != (first & PM_PFN_MASK) + 511)
			continue;
		if (pread(kfd, &flags, 8, (off_t)((first & PM_PFN_MASK) * 8)) != 8)
			continue;
		if ((flags >> KPF_THP & 1) && (flags >> KPF_COMPOUND_HEAD & 1))
			r = fn(data, a, a + HPAGE);
	}
	close(kfd);
	return r;
}

DAMONCTL_API int damonctl_proc_huge_ranges(struct damonctl_ctx *ctx, int pid, uint64_t start,
					   uint64_t end, damonctl_range_fn fn, void *data)
{
	int fd = dctl_open_pid_file(ctx, pid, "pagemap"), r;

	if (fd < 0)
		return fd;
	r = huge_scan(fd, start, end, fn, data);
	if (r == -ENOTTY || r == -EINVAL)
		r = huge_kpageflags(ctx, fd, start, end, fn, data);
	close(fd);
	/* a process that exits under us */
	if (r == -ESRCH || (r && damonctl_proc_alive(ctx, pid) == 0))
		r = -ESRCH;
	return r;
}

/* ---- mappings, cheaply (/proc/PID/maps: no page-table walk, unlike smaps) ---- */

struct ranges {
	uint64_t (*r)[2];
	size_t nr, cap;
};

/* Append [start, end); with @merge, one that begins where the last ends extends it. */
static int ranges_append(struct ranges *rs, uint64_t start, uint64_t end, bool merge)
{
	if (merge && rs->nr && rs->r[rs->nr - 1][1] == start) {
		rs->r[rs->nr - 1][1] = end;
		return 0;
	}
	if (rs->nr == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		void *p = realloc(rs->r, cap * sizeof(*rs->r));

		if (!p)
			return -ENOMEM;
		rs->r = p;
		rs->cap = cap;
	}
	rs->r[rs->nr][0] = start;
	rs->r[rs->nr][1] = end;
	rs->nr++;
	return 0;
}

static int huge_range_fn(void *data, uint64_t start, uint64_t end)
{
	return ranges_append(data, start, end, true);
}

/* Whether [a, a + 2 MiB) lies inside one of the sorted, disjoint ranges @rs. */
static bool ranges_cover(const struct ranges *rs, uint64_t a)
{
	size_t lo = 0, hi = rs->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (rs->r[mid][1] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rs->nr && rs->r[lo][0] <= a && a + HPAGE <= rs->r[lo][1];
}

/* The mappings of @pid that can hold huge pages, each on its own (a huge page cannot
 * straddle two mappings, even adjacent ones). */
static int read_maps(struct damonctl_ctx *ctx, int pid, struct ranges *rs)
{
	char line[4352];
	FILE *f;
	int fd = dctl_open_pid_file(ctx, pid, "maps"), r = 0;

	if (fd < 0)
		return fd;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -errno;
	}
	while (!r && fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &s, &e, perms) != 3)
			continue;
		/* inaccessible (guard) mappings and special ones cannot hold huge pages */
		if (!strncmp(perms, "---", 3) || strstr(line, "[vsyscall]") || strstr(line, "[vvar"))
			continue;
		r = ranges_append(rs, s, e, false);
	}
	fclose(f);
	return r;
}

/* ---- the collapse plan ---- */

struct chunk {
	uint64_t addr;
	uint32_t nr_accesses, age;	/* of the region it was seen in */
	uint16_t seen;			/* observations in a row it was hot */
	uint16_t failed;		/* collapses that failed; skipped for as many rounds */
	bool huge;
	bool across;			/* lies across regions: the kernel collapses per region */
};

struct damonctl_hugepage_plan {
	unsigned int confirm;
	struct chunk *hot;		/* this observation's hot chunks, by address */
	size_t nr_hot, cap_hot;
	size_t *cand;			/* indexes into hot: collapsible, hottest first */
	size_t nr_cand;
	uint64_t v[DAMONCTL_HPLAN_NR_VALUES];
	bool observed;
};

DAMONCTL_API int damonctl_hugepage_plan_new(unsigned int confirm,
					    struct damonctl_hugepage_plan **out)
{
	struct damonctl_hugepage_plan *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->confirm = confirm ? confirm : 1;
	*out = p;
	return 0;
}

DAMONCTL_API void damonctl_hugepage_plan_free(struct damonctl_hugepage_plan *p)
{
	if (!p)
		return;
	free(p->hot);
	free(p->cand);
	free(p);
}

struct pattern {
	uint64_t sz_min, sz_max, nr_min, nr_max, age_min, age_max;
};

/* Accessed as the pattern asks: hot memory, whether or not its region is steady yet. */
static bool accessed(const struct pattern *pt, const struct damonctl_rec_region *r)
{
	return r->nr_accesses >= pt->nr_min && r->nr_accesses <= pt->nr_max;
}

/*
 * DAMON's region boundaries say little about the memory: a quota cuts a region where the
 * quota ends (and a scheme later in the list sees the pieces), splits fall anywhere. Adjacent
 * regions alike for the plan (both accessed as the pattern asks, or both not accessed at
 * all) make one run: a huge page across a boundary counts, taking the least count and age of
 * the regions under it, and the pattern's size applies to the run, not to a piece of it.
 */
static bool alike(const struct pattern *pt, const struct damonctl_rec_region *a,
		  const struct damonctl_rec_region *b)
{
	if (a->end != b->start)
		return false;
	if (accessed(pt, a))
		return accessed(pt, b);
	return !accessed(pt, b) && !a->nr_accesses && !b->nr_accesses;
}

static int by_addr(const void *a, const void *b)
{
	const struct damonctl_rec_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int hotter_first(const void *a, const void *b, void *arg)
{
	const struct chunk *hot = arg;
	const struct chunk *x = &hot[*(const size_t *)a], *y = &hot[*(const size_t *)b];

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses > y->nr_accesses ? -1 : 1;
	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The previous observation's record of chunk @addr (both arrays sorted by address). */
static const struct chunk *prev_chunk(const struct chunk *prev, size_t nr, size_t *cursor,
				      uint64_t addr)
{
	while (*cursor < nr && prev[*cursor].addr < addr)
		(*cursor)++;
	return *cursor < nr && prev[*cursor].addr == addr ? &prev[*cursor] : NULL;
}

DAMONCTL_API void damonctl_scheme_pattern(const struct damonctl_scheme *s,
					  uint64_t pattern[DAMONCTL_PAT_NR])
{
	pattern[DAMONCTL_PAT_SZ_MIN] = damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MIN);
	pattern[DAMONCTL_PAT_SZ_MAX] = damonctl_scheme_get(s, DAMONCTL_SCHEME_SZ_MAX);
	pattern[DAMONCTL_PAT_NR_ACCESSES_MIN] = damonctl_scheme_get(s,
		DAMONCTL_SCHEME_NR_ACCESSES_MIN);
	pattern[DAMONCTL_PAT_NR_ACCESSES_MAX] = damonctl_scheme_get(s,
		DAMONCTL_SCHEME_NR_ACCESSES_MAX);
	pattern[DAMONCTL_PAT_AGE_MIN] = damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MIN);
	pattern[DAMONCTL_PAT_AGE_MAX] = damonctl_scheme_get(s, DAMONCTL_SCHEME_AGE_MAX);
}

/* What an observation gathers, page by page, before it replaces the plan's. */
struct observation {
	struct pattern pt;
	struct ranges maps, huge;	/* where the mappings are, and the huge pages in them */
	const struct chunk *prev;	/* the previous observation's hot chunks, by address */
	size_t nr_prev, cursor;
	struct chunk *hot;		/* this one's */
	size_t nr_hot, cap;
	unsigned int confirm;
	uint64_t v[DAMONCTL_HPLAN_NR_VALUES];
};

/* A copy of @regions sorted by address (NULL when there are none). */
static int sorted_regions(const struct damonctl_rec_region *regions, size_t nr,
			  struct damonctl_rec_region **out)
{
	*out = NULL;
	if (!nr)
		return 0;
	*out = malloc(nr * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, regions, nr * sizeof(**out));
	qsort(*out, nr, sizeof(**out), by_addr);
	return 0;
}

/* The given huge ranges within [@lo, @hi) into @huge (a walk's work, done already). */
static int given_huge(const uint64_t (*given)[2], size_t nr_given, uint64_t lo, uint64_t hi,
		      struct ranges *huge)
{
	size_t i;
	int r = 0;

	for (i = 0; i < nr_given && !r; i++)
		if (given[i][1] > lo && given[i][0] < hi)
			r = ranges_append(huge, given[i][0] > lo ? given[i][0] : lo,
					  given[i][1] < hi ? given[i][1] : hi, true);
	return r;
}

/* The mappings of @pid and the huge pages in them, over the span of the sorted regions
 * (walked, or taken from @given). */
static int read_layout(struct damonctl_ctx *ctx, int pid, const struct damonctl_rec_region *rs,
		       size_t nr, struct ranges *maps, struct ranges *huge,
		       const uint64_t (*given)[2], size_t nr_given)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;
	int r;

	if (nr) {
		lo = rs[0].start;
		for (i = 0; i < nr; i++)
			hi = rs[i].end > hi ? rs[i].end : hi;
	}
	r = read_maps(ctx, pid, maps);
	/* where the mappings are: a region may reach past them (up to the gate area, which
	 * pagemap refuses with EFAULT) */
	if (!r && maps->nr) {
		if (lo < maps->r[0][0])
			lo = maps->r[0][0];
		if (hi > maps->r[maps->nr - 1][1])
			hi = maps->r[maps->nr - 1][1];
	}
	if (!r && nr && lo < hi)
		r = given ? given_huge(given, nr_given, lo, hi, huge) :
		    damonctl_proc_huge_ranges(ctx, pid, lo, hi, huge_range_fn, huge);
	return r;
}

/* Where the run of adjacent regions alike for the plan (see alike()) that @i begins ends. */
static size_t run_end_of(const struct pattern *pt, const struct damonctl_rec_region *rs,
			 size_t nr, size_t i)
{
	size_t end;

	for (end = i + 1; end < nr && alike(pt, &rs[end - 1], &rs[end]); end++)
		;
	return end;
}

/*
 * The huge page at @a as the regions under it say: the least count and age. @k is the first
 * region of the run that ends past @a (pages come in order, so it only moves on); *@cold
 * says whether none of them was accessed, *@nr_under how many there are.
 */
static struct damonctl_rec_region page_under(const struct damonctl_rec_region *rs, size_t *k,
					     size_t run_end, uint64_t a, bool *cold,
					     size_t *nr_under)
{
	struct damonctl_rec_region pg = { .start = a, .end = a + HPAGE,
					  .nr_accesses = UINT32_MAX, .age = UINT32_MAX };
	size_t j;

	*cold = true;
	while (rs[*k].end <= a)
		(*k)++;
	for (j = *k; j < run_end && rs[j].start < a + HPAGE; j++) {
		if (rs[j].nr_accesses < pg.nr_accesses)
			pg.nr_accesses = rs[j].nr_accesses;
		if (rs[j].age < pg.age)
			pg.age = rs[j].age;
		*cold = *cold && !rs[j].nr_accesses;
	}
	*nr_under = j - *k;
	return pg;
}

/* Page @pg, accessed as the pattern asks, into the observation's hot chunks: it carries the
 * previous observation's count on (one more if @is_hot) and its failed collapses. */
static int keep_hot(struct observation *o, const struct damonctl_rec_region *pg, bool h,
		    bool across, bool is_hot)
{
	const struct chunk *old;
	struct chunk *c;

	if (o->nr_hot == o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 256;
		void *np = realloc(o->hot, ncap * sizeof(*o->hot));

		if (!np)
			return -ENOMEM;
		o->hot = np;
		o->cap = ncap;
	}
	old = prev_chunk(o->prev, o->nr_prev, &o->cursor, pg->start);
	c = &o->hot[o->nr_hot++];
	c->addr = pg->start;
	c->nr_accesses = pg->nr_accesses;
	c->age = pg->age;
	c->huge = h;
	c->across = across;
	c->seen = old ? old->seen : 0;
	if (is_hot && c->seen < UINT16_MAX)
		c->seen++;
	c->failed = old && old->failed ? old->failed - 1 : 0;
	if (h)
		o->v[DAMONCTL_HPLAN_HOT_HUGE] += HPAGE;
	else if (c->seen >= o->confirm)
		o->v[DAMONCTL_HPLAN_HOT_SMALL] += HPAGE;
	else
		o->v[DAMONCTL_HPLAN_UNCONFIRMED] += HPAGE;
	return 0;
}

/* The whole huge pages of the run rs[@i] .. rs[@run_end - 1]. */
static int observe_run(struct observation *o, const struct damonctl_rec_region *rs, size_t i,
		       size_t run_end)
{
	const struct pattern *pt = &o->pt;
	uint64_t a, run_sz = rs[run_end - 1].end - rs[i].start;
	size_t k = i;
	bool warm = accessed(pt, &rs[i]);

	for (a = ALIGN_UP(rs[i].start); a + HPAGE <= rs[run_end - 1].end; a += HPAGE) {
		struct damonctl_rec_region pg;
		size_t nr_under;
		bool h, is_hot, cold;
		int r;

		pg = page_under(rs, &k, run_end, a, &cold, &nr_under);
		/* the pattern's size is that of the run: a region's is DAMON's doing */
		is_hot = warm && run_sz >= pt->sz_min && run_sz <= pt->sz_max &&
			 pg.age >= pt->age_min && pg.age <= pt->age_max;
		if (!ranges_cover(&o->maps, a))
			continue;	/* straddles mappings, or none: never huge */
		h = ranges_cover(&o->huge, a);
		if (cold && h) {
			o->v[DAMONCTL_HPLAN_COLD_HUGE] += HPAGE;
			if (pg.age > o->v[DAMONCTL_HPLAN_COLD_HUGE_MAX_AGE])
				o->v[DAMONCTL_HPLAN_COLD_HUGE_MAX_AGE] = pg.age;
			o->v[DAMONCTL_HPLAN_COLD_HUGE_AGE_SUM] += (uint64_t)pg.age * HPAGE;
		}
		/* a region that changed lately (DAMON resets its age, and splits and merges it)
		 * says nothing against its pages: they keep their count, without adding to it;
		 * only one not accessed as the pattern asks takes them out */
		if (!warm)
			continue;
		r = keep_hot(o, &pg, h, nr_under > 1, is_hot);
		if (r)
			return r;
	}
	return 0;
}

/* The plan takes the observation's hot chunks, and its candidates from them. */
static int plan_take(struct damonctl_hugepage_plan *p, struct observation *o)
{
	size_t i;

	free(p->cand);
	p->cand = NULL;
	p->nr_cand = 0;
	if (o->nr_hot) {
		p->cand = malloc(o->nr_hot * sizeof(*p->cand));
		if (!p->cand) {
			free(o->hot);
			return -ENOMEM;
		}
	}
	free(p->hot);
	p->hot = o->hot;
	p->nr_hot = o->nr_hot;
	p->cap_hot = o->cap;
	for (i = 0; i < p->nr_hot; i++)
		/* hot memory counts pages across regions; a collapse is applied to one region at
		 * a time, so only a page inside one can be collapsed */
		if (!p->hot[i].huge && p->hot[i].seen >= p->confirm && !p->hot[i].failed &&
		    !p->hot[i].across)
			p->cand[p->nr_cand++] = i;
	if (p->nr_cand)	/* no hot memory: no array at all, which qsort_r may not be given */
		qsort_r(p->cand, p->nr_cand, sizeof(*p->cand), hotter_first, p->hot);
	memcpy(p->v, o->v, sizeof(o->v));
	p->observed = true;
	return 0;
}

DAMONCTL_API int damonctl_hugepage_plan_observe(struct damonctl_ctx *ctx,
						struct damonctl_hugepage_plan *p, int pid,
						const struct damonctl_rec_region *regions,
						size_t nr,
						const uint64_t pattern[DAMONCTL_PAT_NR])
{
	return dctl_hugepage_plan_observe_huge(ctx, p, pid, regions, nr, pattern, NULL, 0);
}

int dctl_hugepage_plan_observe_huge(struct damonctl_ctx *ctx, struct damonctl_hugepage_plan *p,
				    int pid, const struct damonctl_rec_region *regions, size_t nr,
				    const uint64_t pattern[DAMONCTL_PAT_NR],
				    const uint64_t (*huge)[2], size_t nr_huge)
{
	struct observation o = {
		.pt = {
			.sz_min = pattern[DAMONCTL_PAT_SZ_MIN],
			.sz_max = pattern[DAMONCTL_PAT_SZ_MAX],
			.nr_min = pattern[DAMONCTL_PAT_NR_ACCESSES_MIN],
			.nr_max = pattern[DAMONCTL_PAT_NR_ACCESSES_MAX],
			.age_min = pattern[DAMONCTL_PAT_AGE_MIN],
			.age_max = pattern[DAMONCTL_PAT_AGE_MAX],
		},
		.prev = p->hot,
		.nr_prev = p->nr_hot,
		.confirm = p->confirm,
	};
	struct damonctl_rec_region *rs;
	size_t i, run_end;
	int r = sorted_regions(regions, nr, &rs);

	if (r)
		return r;
	r = read_layout(ctx, pid, rs, nr, &o.maps, &o.huge, huge, nr_huge);
	for (i = 0; i < nr && !r; i = run_end) {
		run_end = run_end_of(&o.pt, rs, nr, i);
		r = observe_run(&o, rs, i, run_end);
	}
	free(rs);
	free(o.maps.r);
	free(o.huge.r);
	if (r) {
		free(o.hot);
		return r;
	}
	return plan_take(p, &o);
}

DAMONCTL_API uint64_t damonctl_hugepage_plan_get(const struct damonctl_hugepage_plan *p,
						 enum damonctl_hplan_value what)
{
	return (unsigned int)what < DAMONCTL_HPLAN_NR_VALUES ? p->v[what] : 0;
}

DAMONCTL_API size_t damonctl_hugepage_plan_nr_candidates(const struct damonctl_hugepage_plan *p)
{
	return p->nr_cand;
}

DAMONCTL_API uint64_t damonctl_hugepage_plan_candidate(const struct damonctl_hugepage_plan *p,
						       size_t i)
{
	return i < p->nr_cand ? p->hot[p->cand[i]].addr : 0;
}

DAMONCTL_API size_t damonctl_hugepage_plan_pick(uint64_t huge, uint64_t used, uint64_t target_bp)
{
	unsigned __int128 want = (unsigned __int128)used * target_bp, have =
		(unsigned __int128)huge * 10000, step = (unsigned __int128)HPAGE * 10000;

	/* the number of huge pages that brings the ratio nearest the goal, never past it by
	 * more than half a huge page */
	if (!target_bp || want <= have)
		return 0;
	return (size_t)((want - have + step / 2) / step);
}

static struct chunk *find_chunk(struct damonctl_hugepage_plan *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_hot;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->hot[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr_hot && p->hot[lo].addr == addr ? &p->hot[lo] : NULL;
}

DAMONCTL_API void damonctl_hugepage_plan_failed(struct damonctl_hugepage_plan *p, uint64_t addr)
{
	struct chunk *c = find_chunk(p, addr);

	/* left alone for a few observations: whatever kept it small may pass */
	if (c)
		c->failed = 3;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

DAMONCTL_API int damonctl_hugepage_plan_collapse(struct damonctl_hugepage_plan *p, int pidfd,
						 size_t max_pages, uint64_t max_us,
						 struct damonctl_collapse_result *res)
{
	struct damonctl_collapse_result out = { .sz = sizeof(out) };
	size_t i;
	int r = 0;

	if (!res || res->sz < offsetof(struct damonctl_collapse_result, busy_us))
		return -EINVAL;

	for (i = 0; i < p->nr_cand && out.pages_tried < max_pages; i++) {
		uint64_t addr = p->hot[p->cand[i]].addr, done, t;

		if (max_us && out.busy_us >= max_us) {
			out.out_of_time = true;
			break;
		}
		t = mono_us();
		r = damonctl_collapse_range(pidfd, addr, addr + HPAGE, &done);
		out.busy_us += mono_us() - t;
		out.pages_tried++;
		if (r == -ESRCH || r == -EPERM || r == -ENOSYS || r == -EBADF)
			break;	/* nothing else would fare better */
		if (r) {
			out.pages_failed++;
			damonctl_hugepage_plan_failed(p, addr);
			r = 0;
			continue;
		}
		out.pages_collapsed++;
		p->hot[p->cand[i]].huge = true;
	}
	memcpy((char *)res + sizeof(res->sz), (char *)&out + sizeof(out.sz),
	       (res->sz < sizeof(out) ? res->sz : sizeof(out)) - sizeof(out.sz));
	return r;
}
