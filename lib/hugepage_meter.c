// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A huge-page meter: the ratio damonctl_hugepage_measure() defines, kept for a set of
 * processes (or the system) and read as often as a caller likes, at a cost that does not
 * grow with their memory while nothing changes.
 *
 * What a read costs. The used memory is the kernel's own counter (/proc/PID/statm's
 * resident pages: the RSS smaps_rollup would walk to, without the walk), read again unless
 * the last read was less than SAME_READ_MS ago. The huge memory has
 * no counter per process: it takes a walk of the page tables (PAGEMAP_SCAN, 6.7+, about a
 * tenth of smaps_rollup's cost; smaps_rollup before). A scan is made only when something
 * could have changed it:
 *   - the THP counters moved: those of the targets' memory cgroups (cgroup v2's memory.stat:
 *     anon_thp, file_thp, shmem_thp, thp_* events) where every target has one, or else the
 *     system's THP events (/proc/vmstat: a collapse by khugepaged or MADV_COLLAPSE, a split,
 *     a swap-out, a migration; and a huge page faulted in or freed, but only if a target
 *     faulted since: other processes' faults are most of a busy host's THP events). Every
 *     way a huge page comes or goes moves one of them, except an unmap, which
 *   - takes a target's RSS down by a huge page or more;
 *   - the caller says it changed huge pages itself (damonctl_hugepage_meter_invalidate()),
 *     or asks for a fresh figure (DAMONCTL_HMETER_FRESH);
 *   - the targets changed;
 *   - and, whatever the counters say, at least every minute (or every 2000 scans' cost, when
 *     a scan takes longer than 30 ms): what no counter tells (a target's memory charged to
 *     a cgroup it left) is still seen.
 * A scan that the counters ask for waits until 2000 times its last cost has passed since
 * the last one, so that a host whose THP counters never rest (other processes' collapses)
 * costs at most a 2000th of a CPU in scans (half of an agent's 0.1% budget).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pagemap_scan.h"

#define HPAGE DAMONCTL_HUGEPAGE_SIZE
#define VERIFY_MS 60000		/* a scan at least this often, whatever the counters say */
#define SAME_READ_MS 100	/* reads this close answer alike (a round's many reads) */
#define COST_FACTOR 2000	/* scans at most 1/COST_FACTOR of a CPU, when not asked for */
#define MAX_PIDS 1024


/* The THP counters that cover the targets, hashed: those a fault moves (the system's only:
 * a cgroup's are the targets' own), and the others. */
struct signature {
	uint64_t change, fault;
};

struct meter_pid {
	int pid;
	int statm_fd, pagemap_fd;	/* -1: not open yet; open fds follow the process, not
					 * whoever takes its pid after it exits */
	bool gone;
	uint64_t huge, anon_huge;	/* at the last scan, */
	uint64_t (*ranges)[2];		/* ... where (PAGEMAP_SCAN only), */
	size_t nr_ranges, cap_ranges;
	bool have_ranges;		/* ... if known */
	uint64_t rss;			/* now, and at the last scan */
	uint64_t rss_at_scan;
	char cgroup[PATH_MAX];		/* its cgroup v2 path at the last scan, "" when none */
};

struct damonctl_hugepage_meter {
	struct damonctl_ctx *ctx;
	struct meter_pid *p;
	unsigned int nr;
	bool system;			/* no pids: the system-wide ratio (meminfo) */
	bool valid;			/* a scan was made for these targets */
	bool stale;			/* the caller changed huge pages, or the targets moved */
	bool smaps;			/* no PAGEMAP_SCAN here: smaps_rollup */
	struct signature sig;		/* the THP counters at the last scan */
	uint64_t faults;		/* the targets' page faults then (vmstat only) */
	uint64_t scan_ms, cost_us;	/* when the last scan was, and its CPU time */
	uint64_t huge, used;		/* the last figures, */
	uint64_t read_ms;		/* ... read then */
	uint64_t scan_end;		/* the end of user space PAGEMAP_SCAN takes here */
	struct damonctl_hugepage_meter_stats st;
	char buf[16384];		/* the counters' text */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- the objects ---- */

static void free_pid(struct meter_pid *p)
{
	free(p->ranges);
	p->ranges = NULL;
	p->nr_ranges = p->cap_ranges = 0;
	p->have_ranges = false;
}

static void close_pid(struct meter_pid *p)
{
	if (p->statm_fd >= 0)
		close(p->statm_fd);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	p->statm_fd = p->pagemap_fd = -1;
}

/* Forget @p: it exited, and holds no memory any more. */
static void pid_gone(struct meter_pid *p)
{
	close_pid(p);
	p->gone = true;
	p->huge = p->anon_huge = p->rss = 0;
}

DAMONCTL_API int damonctl_hugepage_meter_new(struct damonctl_ctx *ctx,
					     struct damonctl_hugepage_meter **out)
{
	struct damonctl_hugepage_meter *m;

	if (!ctx || !out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->ctx = ctx;
	m->system = true;
	m->st.sz = sizeof(m->st);
	*out = m;
	return 0;
}

DAMONCTL_API void damonctl_hugepage_meter_free(struct damonctl_hugepage_meter *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++) {
		close_pid(&m->p[i]);
		free_pid(&m->p[i]);
	}
	free(m->p);
	free(m);
}

static bool same_pids(const struct damonctl_hugepage_meter *m, const int *pids, unsigned int nr)
{
	unsigned int i;

	if (nr != m->nr || m->system != !nr)
		return false;
	for (i = 0; i < nr; i++)
		if (m->p[i].pid != pids[i])
			return false;
	return true;
}

DAMONCTL_API int damonctl_hugepage_meter_set_pids(struct damonctl_hugepage_meter *m,
						  const int *pids, unsigned int nr)
{
	struct meter_pid *p = NULL;
	unsigned int i, j;

	if (!m || nr > MAX_PIDS || (nr && !pids))
		return -EINVAL;
	if (same_pids(m, pids, nr))
		return 0;
	if (nr && !(p = calloc(nr, sizeof(*p))))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		p[i].pid = pids[i];
		p[i].statm_fd = p[i].pagemap_fd = -1;
		p[i].gone = pids[i] <= 0;	/* a target that exited */
		/* a pid kept keeps its files: they follow its process */
		for (j = 0; j < m->nr; j++) {
			if (m->p[j].pid == pids[i] && m->p[j].pid > 0) {
				p[i] = m->p[j];
				m->p[j].statm_fd = m->p[j].pagemap_fd = -1;
				m->p[j].ranges = NULL;
				m->p[j].nr_ranges = m->p[j].cap_ranges = 0;
				break;
			}
		}
	}
	for (j = 0; j < m->nr; j++) {
		close_pid(&m->p[j]);
		free_pid(&m->p[j]);
	}
	free(m->p);
	m->p = p;
	m->nr = nr;
	m->system = !nr;
	m->valid = false;
	return 0;
}

DAMONCTL_API void damonctl_hugepage_meter_invalidate(struct damonctl_hugepage_meter *m)
{
	if (m)
		m->stale = true;
}

DAMONCTL_API int damonctl_hugepage_meter_pid(const struct damonctl_hugepage_meter *m,
					     unsigned int i, struct damonctl_hugepage_meter_pid *out)
{
	struct damonctl_hugepage_meter_pid v = { .sz = sizeof(v) };
	size_t n;

	if (!m || !out || out->sz < sizeof(out->sz) || i >= m->nr)
		return -EINVAL;
	v.pid = m->p[i].pid;
	v.exists = !m->p[i].gone && m->valid;
	if (v.exists) {
		v.rss = m->p[i].rss;
		v.huge = m->p[i].huge < v.rss ? m->p[i].huge : v.rss;
		v.anon_huge = m->p[i].anon_huge < v.huge ? m->p[i].anon_huge : v.huge;
	}
	n = out->sz < sizeof(v) ? out->sz : sizeof(v);
	memcpy((char *)out + sizeof(out->sz), (const char *)&v + sizeof(v.sz), n - sizeof(v.sz));
	return 0;
}

DAMONCTL_API int damonctl_hugepage_meter_stats(const struct damonctl_hugepage_meter *m,
					       struct damonctl_hugepage_meter_stats *st)
{
	size_t n;

	if (!m || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	n = st->sz < sizeof(m->st) ? st->sz : sizeof(m->st);
	memcpy((char *)st + sizeof(st->sz), (const char *)&m->st + sizeof(st->sz),
	       n - sizeof(st->sz));
	return 0;
}

/* ---- files ---- */

/* The whole of a small file (up to @size - 1 bytes) read from its start. */
static int pread_text(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int read_file(struct damonctl_ctx *ctx, enum damonctl_base base, const char *rel,
		     char *buf, size_t size)
{
	char path[PATH_MAX];
	int fd, r;

	if (damonctl_path(ctx, base, rel, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dctl_open_file(AT_FDCWD, path, O_RDONLY);
	if (fd < 0)
		return fd;
	r = pread_text(fd, buf, size);
	close(fd);
	return r;
}

/* ---- the cheap part: RSS and the THP counters ---- */

/* @p's resident memory now (statm's second field); a process that ended is gone. */
static int read_rss(struct damonctl_hugepage_meter *m, struct meter_pid *p)
{
	static long page;
	unsigned long long size, resident;
	char buf[128];
	int r;

	if (p->gone)
		return 0;
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	if (p->statm_fd < 0) {
		p->statm_fd = dctl_open_pid_file(m->ctx, p->pid, "statm");
		if (p->statm_fd < 0) {
			r = p->statm_fd;
			p->statm_fd = -1;
			if (r != -ESRCH)
				return r;
			pid_gone(p);
			return 0;
		}
	}
	r = pread_text(p->statm_fd, buf, sizeof(buf));
	if (r == -ESRCH || (!r && sscanf(buf, "%llu %llu", &size, &resident) != 2)) {
		/* it exited (an exited task's statm reads as empty or fails) */
		pid_gone(p);
		return 0;
	}
	if (r)
		return r;
	p->rss = (uint64_t)resident * (uint64_t)page;
	return 0;
}

/* FNV-1a over the lines of @text that @keep chooses */
static uint64_t hash_lines(uint64_t h, const char *text, bool (*keep)(const char *line))
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (keep(line))
			for (size_t i = 0; i < len; i++)
				h = (h ^ (unsigned char)line[i]) * UINT64_C(0x100000001b3);
		line += len + (end != NULL);
	}
	return h;
}

static bool starts_with_word(const char *l, const char *const *words)
{
	for (; *words; words++) {
		size_t n = strlen(*words);

		if (!strncmp(l, *words, n) && l[n] == ' ')
			return true;
	}
	return false;
}

/* /proc/vmstat's THP events that change a process's PMD mappings without it faulting (not
 * the failures, fallbacks and khugepaged's scans that changed nothing) */
static bool vmstat_change(const char *l)
{
	static const char *const w[] = {
		"thp_collapse_alloc", "thp_split_page", "thp_deferred_split_page",
		"thp_underused_split_page", "thp_split_pmd", "thp_split_pud",
		"thp_migration_success", "thp_migration_split", "thp_swpout", NULL,
	};

	return starts_with_word(l, w);
}

/* ... and those a process's own faults or frees move: its faults, and the system's counts
 * of PMD-mapped memory (an unmap takes a huge page away without an event; what the process
 * faults in meanwhile may hide it from its RSS, not from its fault count) */
static bool vmstat_fault(const char *l)
{
	static const char *const w[] = {
		"thp_fault_alloc", "thp_file_alloc", "thp_file_mapped",
		"nr_anon_transparent_hugepages", "nr_shmem_pmdmapped", "nr_file_pmdmapped", NULL,
	};

	return starts_with_word(l, w);
}

/* a cgroup's memory.stat: anon_thp, file_thp, shmem_thp and the thp_ events */
static bool memstat_thp(const char *l)
{
	const char *sp = strchr(l, ' ');

	return !strncmp(l, "thp_", 4) ||
	       (sp && sp - l >= 4 && !strncmp(sp - 4, "_thp", 4));
}

/* The cgroup v2 path of @p ("" when it has none, or the hierarchy is not v2 here). */
static void read_cgroup(struct damonctl_hugepage_meter *m, struct meter_pid *p)
{
	char rel[64], buf[PATH_MAX + 64], *path;
	size_t n;

	p->cgroup[0] = '\0';
	snprintf(rel, sizeof(rel), "%d/cgroup", p->pid);
	if (read_file(m->ctx, DAMONCTL_BASE_PROC, rel, buf, sizeof(buf)))
		return;
	/* the v2 line is "0::/path"; on a v1-only machine memory is elsewhere */
	path = strstr(buf, "0::/");
	if (!path || (path != buf && path[-1] != '\n'))
		return;
	path += 3;
	n = strcspn(path, "\n");
	if (n >= sizeof(p->cgroup))
		return; /* longer than a path can be: read as no cgroup */
	memcpy(p->cgroup, path, n);
	p->cgroup[n] = '\0';
}

/* The hashes of the THP counters that cover every target. */
static int signature(struct damonctl_hugepage_meter *m, struct signature *sig)
{
	char *buf = m->buf;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	unsigned int i, j;
	int r;

	for (i = 0; i < m->nr; i++) {
		char rel[PATH_MAX + 32];

		if (m->p[i].gone)
			continue;
		if (!m->p[i].cgroup[0])
			break;
		for (j = 0; j < i; j++)
			if (!strcmp(m->p[j].cgroup, m->p[i].cgroup))
				break;
		if (j < i)
			continue;	/* counted already */
		snprintf(rel, sizeof(rel), "fs/cgroup%s/memory.stat",
			 strcmp(m->p[i].cgroup, "/") ? m->p[i].cgroup : "");
		if (read_file(m->ctx, DAMONCTL_BASE_SYS, rel, buf, sizeof(m->buf)))
			break;
		h = hash_lines(h, buf, memstat_thp);
	}
	if (i == m->nr && m->nr) {
		m->st.source = DAMONCTL_HMETER_CGROUP;
		sig->change = h;
		sig->fault = 0;
		return 0;
	}
	m->st.source = DAMONCTL_HMETER_VMSTAT;
	r = read_file(m->ctx, DAMONCTL_BASE_PROC, "vmstat", buf, sizeof(m->buf));
	if (r)
		return r;
	sig->change = hash_lines(UINT64_C(0xcbf29ce484222325), buf, vmstat_change);
	sig->fault = hash_lines(UINT64_C(0xcbf29ce484222325), buf, vmstat_fault);
	return 0;
}

/* The targets' page faults so far (minor and major, /proc/PID/stat), summed. */
static uint64_t target_faults(struct damonctl_hugepage_meter *m)
{
	unsigned long long minflt, majflt;
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < m->nr; i++) {
		char rel[64], buf[1024], *p;

		snprintf(rel, sizeof(rel), "%d/stat", m->p[i].pid);
		if (m->p[i].gone || read_file(m->ctx, DAMONCTL_BASE_PROC, rel, buf, sizeof(buf)))
			continue;
		/* after the command's ")": state ppid pgrp session tty tpgid flags minflt
		 * cminflt majflt */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &minflt,
				&majflt) == 2)
			n += minflt + majflt;
	}
	return n;
}

/* ---- the scan ---- */

/* [@start, @end) after @p's huge ranges (merged with the last when adjacent) */
static int add_range(struct meter_pid *p, uint64_t start, uint64_t end)
{
	if (p->nr_ranges && p->ranges[p->nr_ranges - 1][1] == start) {
		p->ranges[p->nr_ranges - 1][1] = end;
		return 0;
	}
	if (p->nr_ranges == p->cap_ranges) {
		size_t cap = p->cap_ranges ? 2 * p->cap_ranges : 64;
		void *n = realloc(p->ranges, cap * sizeof(*p->ranges));

		if (!n)
			return -ENOMEM;
		p->ranges = n;
		p->cap_ranges = cap;
	}
	p->ranges[p->nr_ranges][0] = start;
	p->ranges[p->nr_ranges++][1] = end;
	return 0;
}

/* One PAGEMAP_SCAN pass over [0, @end) of @p's pagemap: the bytes present, huge and not the
 * huge zero page (smaps counts none of it), and of them those anonymous (not of a file or
 * shmem: PAGE_IS_FILE); where they are, in @p's ranges. */
static int scan_range(struct meter_pid *p, uint64_t end, uint64_t *huge, uint64_t *anon)
{
	struct page_region vec[256];
	uint64_t start = 0, h = 0, a = 0;
	int fd = p->pagemap_fd, r;

	/* zeroed: valgrind does not know that PAGEMAP_SCAN fills it */
	memset(vec, 0, sizeof(vec));
	while (start < end) {
		struct pm_scan_arg arg = {
			.size = sizeof(arg),
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)vec,
			.vec_len = ARRAY_SIZE(vec),
			.category_inverted = PAGE_IS_PFNZERO,
			.category_mask = PAGE_IS_PRESENT | PAGE_IS_HUGE | PAGE_IS_PFNZERO,
			.return_mask = PAGE_IS_HUGE | PAGE_IS_FILE,
		};
		long n = ioctl(fd, PAGEMAP_SCAN, &arg), i;

		if (n < 0)
			return -errno;
		for (i = 0; i < n; i++) {
			h += vec[i].end - vec[i].start;
			if (!(vec[i].categories & PAGE_IS_FILE))
				a += vec[i].end - vec[i].start;
			r = add_range(p, vec[i].start, vec[i].end);
			if (r)
				return r;
		}
		if (arg.walk_end <= start || (size_t)n < ARRAY_SIZE(vec))
			break;
		start = arg.walk_end;
	}
	*huge = h;
	*anon = a;
	return 0;
}

/* PMD-mapped bytes of @p, hugetlb's among them: PAGEMAP_SCAN, -ENOTTY before 6.7. The end of
 * user space is the largest of the architectures' that the kernel takes (-EFAULT past it). */
static int scan_pagemap(struct damonctl_hugepage_meter *m, struct meter_pid *p, uint64_t *huge,
			uint64_t *anon)
{
	static const unsigned int bits[] = { 56, 52, 48, 47, 39 };
	unsigned int i;
	int r;

	if (p->pagemap_fd < 0) {
		p->pagemap_fd = dctl_open_pid_file(m->ctx, p->pid, "pagemap");
		if (p->pagemap_fd < 0) {
			r = p->pagemap_fd;
			p->pagemap_fd = -1;
			return r;
		}
	}
	p->nr_ranges = 0;
	if (m->scan_end)
		return scan_range(p, m->scan_end, huge, anon);
	for (i = 0, r = -EFAULT; i < ARRAY_SIZE(bits) && r == -EFAULT; i++) {
		uint64_t end = (UINT64_C(1) << bits[i]) - (uint64_t)sysconf(_SC_PAGESIZE);

		p->nr_ranges = 0;
		r = scan_range(p, end, huge, anon);
		if (!r)
			m->scan_end = end;
	}
	return r;
}

/* hugetlb pages of @p, which PAGEMAP_SCAN reports as huge and smaps does not count */
static uint64_t hugetlb_bytes(struct damonctl_hugepage_meter *m, const struct meter_pid *p)
{
	char rel[64], buf[4096], *l;
	unsigned long long kb = 0;

	snprintf(rel, sizeof(rel), "%d/status", p->pid);
	if (read_file(m->ctx, DAMONCTL_BASE_PROC, rel, buf, sizeof(buf)))
		return 0;
	l = strstr(buf, "\nHugetlbPages:");
	if (l)
		sscanf(l + 14, "%llu", &kb);
	return (uint64_t)kb * 1024;
}

static int scan_pid(struct damonctl_hugepage_meter *m, struct meter_pid *p)
{
	struct damonctl_proc_mem pm;
	uint64_t huge = 0, anon = 0, tlb;
	int r = -ENOTTY;

	if (p->gone)
		return 0;
	p->have_ranges = false;
	if (!m->smaps) {
		r = scan_pagemap(m, p, &huge, &anon);
		if (r == -ENOTTY || r == -EINVAL)
			m->smaps = true;	/* before 6.7 */
	}
	if (m->smaps) {
		r = damonctl_proc_mem_read(m->ctx, p->pid, &pm);
		huge = damonctl_proc_mem_huge(&pm);
		anon = pm.anon_huge;
	} else if (!r && (tlb = hugetlb_bytes(m, p))) {
		/* hugetlb pages are file pages to PAGEMAP_SCAN */
		huge = huge > tlb ? huge - tlb : 0;
	}
	if (r == -ESRCH || (r && damonctl_proc_alive(m->ctx, p->pid) == 0)) {
		pid_gone(p);
		return 0;
	}
	if (r)
		return r;
	p->huge = huge;
	p->anon_huge = anon;
	p->have_ranges = !m->smaps;
	return read_rss(m, p);
}

int dctl_hugepage_meter_ranges(const struct damonctl_hugepage_meter *m, int pid,
			       const uint64_t (**r)[2], size_t *nr)
{
	unsigned int i;

	for (i = 0; m && i < m->nr; i++) {
		const struct meter_pid *p = &m->p[i];

		if (p->pid != pid || p->gone || !p->have_ranges || !m->valid)
			continue;
		*r = (const uint64_t (*)[2])p->ranges;
		*nr = p->nr_ranges;
		return 0;
	}
	return -ENOENT;
}

static int scan(struct damonctl_hugepage_meter *m)
{
	uint64_t t0 = cpu_us(), faults;
	struct signature sig;
	unsigned int i;
	int r;

	/* the cgroups, then their counters, then the pages: what moves the counters during
	 * the scan makes the next read scan again */
	for (i = 0; i < m->nr; i++)
		if (!m->p[i].gone)
			read_cgroup(m, &m->p[i]);
	r = signature(m, &sig);
	faults = r || m->st.source != DAMONCTL_HMETER_VMSTAT ? 0 : target_faults(m);
	for (i = 0; !r && i < m->nr; i++)
		r = scan_pid(m, &m->p[i]);
	if (r)
		return r;
	for (i = 0; i < m->nr; i++)
		m->p[i].rss_at_scan = m->p[i].rss;
	m->sig = sig;
	m->faults = faults;
	m->valid = true;
	m->stale = false;
	m->scan_ms = now_ms();
	m->cost_us = cpu_us() - t0;
	m->st.scans++;
	m->st.scan_us_last = m->cost_us;
	m->st.scan_us_total += m->cost_us;
	m->st.method = m->smaps ? DAMONCTL_HMETER_SMAPS : DAMONCTL_HMETER_PAGEMAP_SCAN;
	return 0;
}

/* Whether the cached huge figure may be out of date: why a scan is wanted. */
static int changed(struct damonctl_hugepage_meter *m, bool *yes)
{
	struct signature sig;
	unsigned int i;
	int r;

	*yes = false;
	for (i = 0; i < m->nr; i++) {
		const struct meter_pid *p = &m->p[i];

		/* an unmap moves no counter but the RSS */
		if (!p->gone && p->rss + HPAGE <= p->rss_at_scan && p->huge)
			*yes = true;
		/* a target that exited held huge pages: its share is gone already */
	}
	if (*yes)
		return 0;
	r = signature(m, &sig);
	if (r)
		return r;
	*yes = sig.change != m->sig.change;
	/* huge pages faulted in somewhere: here only if a target faulted since the scan */
	if (!*yes && sig.fault != m->sig.fault)
		*yes = target_faults(m) != m->faults;
	return 0;
}

static void sum(struct damonctl_hugepage_meter *m)
{
	unsigned int i;

	m->huge = m->used = 0;
	for (i = 0; i < m->nr; i++) {
		if (m->p[i].gone)
			continue;
		m->huge += m->p[i].huge;
		m->used += m->p[i].rss;
	}
	/* a page unmapped since the scan may have been huge: never more huge than used */
	if (m->huge > m->used)
		m->huge = m->used;
}

static int read_system(struct damonctl_hugepage_meter *m)
{
	struct damonctl_meminfo mi = DAMONCTL_MEMINFO_INIT;
	int r = damonctl_meminfo_read(m->ctx, &mi);

	if (r)
		return r;
	m->huge = damonctl_meminfo_huge(&mi);
	m->used = damonctl_meminfo_used(&mi);
	m->st.method = DAMONCTL_HMETER_MEMINFO;
	return 0;
}

DAMONCTL_API int damonctl_hugepage_meter_read(struct damonctl_hugepage_meter *m,
					      unsigned int flags, uint64_t *huge, uint64_t *used)
{
	uint64_t now, wait_ms;
	bool want = false;
	unsigned int i;
	int r = 0;

	if (!m || !huge || !used || (flags & ~DAMONCTL_HMETER_FRESH))
		return -EINVAL;
	m->st.reads++;
	if (m->system) {
		r = read_system(m);
		goto out;
	}
	now = now_ms();
	/* a caller's reads of one moment (an agent's round asks for each target's budget)
	 * cost one read of the counters: O(targets), not O(targets^2) */
	if (m->valid && !m->stale && !(flags & DAMONCTL_HMETER_FRESH) && m->read_ms &&
	    now - m->read_ms < SAME_READ_MS) {
		m->st.cached++;
		goto out;
	}
	for (i = 0; i < m->nr && !r; i++)
		r = read_rss(m, &m->p[i]);
	if (r)
		return r;
	m->read_ms = now;
	/* the minimum of scans the counters ask for; past VERIFY_MS one is made anyway */
	wait_ms = m->cost_us * COST_FACTOR / 1000;
	if (!m->valid || m->stale || (flags & DAMONCTL_HMETER_FRESH) ||
	    now - m->scan_ms >= (wait_ms > VERIFY_MS ? wait_ms : VERIFY_MS)) {
		want = true;
	} else if (now - m->scan_ms >= wait_ms) {
		r = changed(m, &want);
		if (r)
			return r;
	}
	if (want) {
		r = scan(m);
		if (r)
			return r;
	} else {
		m->st.cached++;
	}
	sum(m);
out:
	if (!r) {
		*huge = m->huge;
		*used = m->used;
	}
	return r;
}
