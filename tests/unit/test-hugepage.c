// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/hugepage.c: the huge-page ratio (system-wide and per process, on a fixture sysroot),
 * the arithmetic of goals, and collapse plans on this process's own memory (real huge pages
 * made with madvise(MADV_COLLAPSE), found again through pagemap).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HP DAMONCTL_HUGEPAGE_SIZE

static void test_ratio_arithmetic(void **state)
{
	(void)state;
	assert_int_equal(damonctl_hugepage_bp(0, 0), 10000);	/* the kernel's rule */
	assert_int_equal(damonctl_hugepage_bp(1, 3), 3333);	/* rounded down */
	assert_int_equal(damonctl_hugepage_bp(UINT64_MAX / 2, UINT64_MAX / 2), 10000);
	assert_int_equal(damonctl_hugepage_bytes_to_goal(0, 10000, 3000), 3000);
	assert_int_equal(damonctl_hugepage_bytes_to_goal(3000, 10000, 3000), 0);
	assert_int_equal(damonctl_hugepage_bytes_to_goal(2999, 10000, 3000), 1);
	assert_int_equal(damonctl_hugepage_bytes_to_goal(5000, 10000, 3000), 0);
	/* 128 MiB used, 30%: 38.4 MiB, 19.2 pages -> 19; nearest, not past by half a page */
	assert_int_equal(damonctl_hugepage_plan_pick(0, 128 << 20, 3000), 19);
	assert_int_equal(damonctl_hugepage_plan_pick(0, 128 << 20, 3100), 20);
	assert_int_equal(damonctl_hugepage_plan_pick(38 << 20, 128 << 20, 3000), 0);
	assert_int_equal(damonctl_hugepage_plan_pick(36 << 20, 128 << 20, 3000), 1);
	assert_int_equal(damonctl_hugepage_plan_pick(0, 128 << 20, 0), 0);
	assert_int_equal(damonctl_hugepage_plan_pick(64 << 20, 128 << 20, 3000), 0);
}

static void test_measure(void **state)
{
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_ctx *ctx;
	uint64_t huge, used;
	int pids[3] = { 41, -7, 43 };

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	write_file(path, "MemTotal:       1000000 kB\nMemFree:         600000 kB\n"
		   "AnonHugePages:    20480 kB\nShmemHugePages:    2048 kB\n"
		   "FileHugePages:     4096 kB\n");
	snprintf(path, sizeof(path), "%s/proc/41/smaps_rollup", dir);
	write_file(path, "Rss:              10240 kB\nAnonHugePages:     2048 kB\n"
		   "ShmemPmdMapped:    2048 kB\nFilePmdMapped:     1024 kB\n");
	snprintf(path, sizeof(path), "%s/proc/43/smaps_rollup", dir);
	write_file(path, "Rss:              10240 kB\nAnonHugePages:     4096 kB\n");
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);

	/* system-wide: all three kinds over MemTotal - MemFree */
	assert_int_equal(damonctl_hugepage_measure(ctx, NULL, 0, &huge, &used), 0);
	assert_int_equal(huge, (uint64_t)26624 << 10);
	assert_int_equal(used, (uint64_t)400000 << 10);
	assert_int_equal(damonctl_hugepage_bp(huge, used), 665);

	/* processes: every PMD-mapped kind over RSS; exited (-7) and missing (43 is there,
	 * 44 is not) are skipped */
	assert_int_equal(damonctl_hugepage_measure(ctx, pids, 3, &huge, &used), 0);
	assert_int_equal(huge, (uint64_t)(5120 + 4096) << 10);
	assert_int_equal(used, (uint64_t)20480 << 10);
	pids[2] = 44;
	assert_int_equal(damonctl_hugepage_measure(ctx, pids, 3, &huge, &used), 0);
	assert_int_equal(damonctl_hugepage_bp(huge, used), 5000);

	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* 16 MiB of this process's anonymous memory, 2 MiB-aligned, written once (the unaligned head
 * of the mapping stays mapped: a small leak for the test's life). */
static char *aligned_buffer(size_t size)
{
	char *raw = mmap(NULL, size + HP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0), *buf;

	assert_true(raw != MAP_FAILED);
	buf = (char *)(((uintptr_t)raw + HP - 1) & ~(uintptr_t)(HP - 1));
	memset(buf, 1, size);	/* small pages where THP is "madvise" or "never" */
	return buf;
}

struct found {
	uint64_t r[16][2];
	unsigned int n;
};

static int collect(void *data, uint64_t start, uint64_t end)
{
	struct found *f = data;

	if (f->n < 16) {
		f->r[f->n][0] = start;
		f->r[f->n][1] = end;
		f->n++;
	}
	return 0;
}

static void test_plan_own_memory(void **state)
{
	size_t size = 16 << 20;
	char *buf = aligned_buffer(size);
	uint64_t b = (uintptr_t)buf;
	struct damonctl_hugepage_plan *p;
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_kdamond *k = damonctl_tree_add_kdamond(t);
	struct damonctl_context *c = damonctl_kdamond_add_context(k);
	struct damonctl_scheme *s = damonctl_context_add_scheme(c);
	struct damonctl_rec_region regs[3];
	uint64_t pat[DAMONCTL_PAT_NR];
	struct damonctl_ctx *ctx;
	struct found f = { 0 };
	int pidfd;

	(void)state;
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_proc_huge_ranges(ctx, getpid(), b, b + size, collect, &f), 0);
	if (f.n || madvise(buf + 2 * HP, HP, MADV_COLLAPSE)) {
		/* THP "always" made huge pages at the first touch, or there is no THP here:
		 * the layout below cannot be set up */
		damonctl_free(ctx);
		damonctl_tree_free(t);
		munmap(buf, size);
		/* no THP here (CONFIG_TRANSPARENT_HUGEPAGE=n, or "never"): nothing to find */
		skip();
	}

	/* pagemap finds exactly the huge page made */
	assert_int_equal(damonctl_proc_huge_ranges(ctx, getpid(), b, b + size, collect, &f), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.r[0][0], b + 2 * HP);
	assert_int_equal(f.r[0][1], b + 3 * HP);

	/* hot: regions with at least 5 accesses and age 2..max */
	damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MIN, 0);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_SZ_MAX, UINT64_MAX);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MIN, 5);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_NR_ACCESSES_MAX, UINT32_MAX);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MIN, 2);
	damonctl_scheme_set(s, DAMONCTL_SCHEME_AGE_MAX, UINT32_MAX);
	damonctl_scheme_pattern(s, pat);
	assert_int_equal(pat[DAMONCTL_PAT_NR_ACCESSES_MIN], 5);
	assert_int_equal(pat[DAMONCTL_PAT_AGE_MAX], UINT32_MAX);
	/* [b+1M, b+9M): hot, 20 accesses (holds whole pages 1..3, page 2 huge);
	 * [b+9M, b+12M): hot, 10 accesses (holds page 5; page 4 lies across both regions: it
	 * counts as hot memory with the lesser count, 10, but is no candidate, since a collapse
	 * is applied to one region at a time);
	 * [b+12M, b+16M): cold for 30 aggregations */
	regs[0] = (struct damonctl_rec_region){ b + (1 << 20), b + (9 << 20), 20, 4, 0 };
	regs[1] = (struct damonctl_rec_region){ b + (9 << 20), b + (12 << 20), 10, 4, 0 };
	regs[2] = (struct damonctl_rec_region){ b + (12 << 20), b + (16 << 20), 0, 30, 0 };
	assert_int_equal(damonctl_hugepage_plan_new(2, &p), 0);
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	/* hot once: nothing confirmed yet */
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 0);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_HOT_HUGE), HP);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_UNCONFIRMED), 4 * HP);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_COLD_HUGE), 0);

	/* a look where the regions are young (DAMON reset their age): no count either way */
	regs[0].age = regs[1].age = 0;
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 0);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_UNCONFIRMED), 4 * HP);
	regs[0].age = regs[1].age = 4;

	/* twice: pages 1 and 3 (20 accesses) before page 5 (10), page 2 is huge already, page 4
	 * hot but across regions */
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 3);
	assert_int_equal(damonctl_hugepage_plan_candidate(p, 0), b + HP);
	assert_int_equal(damonctl_hugepage_plan_candidate(p, 1), b + 3 * HP);
	assert_int_equal(damonctl_hugepage_plan_candidate(p, 2), b + 5 * HP);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_HOT_SMALL), 4 * HP);

	/* a page hot once, then in a cold region, is no candidate: the count starts over (page
	 * 4, across a cold and a hot region, is neither) */
	regs[0].nr_accesses = 0;
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 1);
	assert_int_equal(damonctl_hugepage_plan_candidate(p, 0), b + 5 * HP);
	/* the huge page now sits in a cold region: budget gone cold, with its age */
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_COLD_HUGE), HP);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_COLD_HUGE_MAX_AGE), 4);
	/* no region at all (a target DAMON has found nothing in yet): nothing hot, nothing
	 * to collapse, and no sort of an array there is none of (UBSan caught that) */
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 0, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 0);
	assert_int_equal(damonctl_hugepage_plan_get(p, DAMONCTL_HPLAN_HOT_SMALL), 0);
	regs[0].nr_accesses = 20;
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_observe(ctx, p, getpid(), regs, 3, pat), 0);
	assert_int_equal(damonctl_hugepage_plan_nr_candidates(p), 3);

	/* hot memory DAMON shows in pieces smaller than the pattern's minimum size (a quota
	 * cuts regions where it ends, and a later scheme sees the pieces): the run of them is
	 * what the size applies to, and pages across the cuts count as hot memory (though no
	 * collapse can take them until DAMON merges the pieces) */
	{
		struct damonctl_hugepage_plan *p2;
		struct damonctl_rec_region cut[7];
		uint64_t pat2[DAMONCTL_PAT_NR];
		unsigned int k;

		memcpy(pat2, pat, sizeof(pat2));
		pat2[DAMONCTL_PAT_SZ_MIN] = 2 * HP;
		for (k = 0; k < 6; k++)	/* [b+1M, b+10M) in pieces of 1.5 MiB */
			cut[k] = (struct damonctl_rec_region){ b + (1 << 20) + k * (3 << 19),
							       b + (1 << 20) + (k + 1) * (3 << 19),
							       20, 4, 0 };
		cut[6] = (struct damonctl_rec_region){ b + (10 << 20), b + (16 << 20), 0, 30, 0 };
		assert_int_equal(damonctl_hugepage_plan_new(1, &p2), 0);
		assert_int_equal(damonctl_hugepage_plan_observe(ctx, p2, getpid(), cut, 7, pat2), 0);
		/* pages 1, 3 and 4 ([2M, 10M) but the huge page 2), each across two pieces */
		assert_int_equal(damonctl_hugepage_plan_get(p2, DAMONCTL_HPLAN_HOT_HUGE), HP);
		assert_int_equal(damonctl_hugepage_plan_get(p2, DAMONCTL_HPLAN_HOT_SMALL), 3 * HP);
		assert_int_equal(damonctl_hugepage_plan_nr_candidates(p2), 0);
		damonctl_hugepage_plan_free(p2);
		/* a run short of the minimum size is not hot, in one piece or several */
		pat2[DAMONCTL_PAT_SZ_MIN] = 10 * HP;
		assert_int_equal(damonctl_hugepage_plan_new(1, &p2), 0);
		assert_int_equal(damonctl_hugepage_plan_observe(ctx, p2, getpid(), cut, 7, pat2), 0);
		assert_int_equal(damonctl_hugepage_plan_nr_candidates(p2), 0);
		assert_int_equal(damonctl_hugepage_plan_get(p2, DAMONCTL_HPLAN_UNCONFIRMED), 3 * HP);
		damonctl_hugepage_plan_free(p2);
	}

	/* collapsing from user space: the first two only */
	pidfd = damonctl_pidfd_open(getpid());
	if (pidfd == -ENOSYS)
		goto out;	/* no pidfd_open(2) (valgrind, for one, does not know it) */
	assert_true(pidfd >= 0);
	{
		struct damonctl_collapse_result res = { .sz = sizeof(res) };
		int r = damonctl_hugepage_plan_collapse(p, pidfd, 2, 0, &res);

		if (r == -EPERM || r == -ENOSYS) {
			close(pidfd);
			goto out;	/* process_madvise(MADV_COLLAPSE) needs CAP_SYS_ADMIN */
		}
		assert_int_equal(r, 0);
		assert_int_equal(res.pages_tried, 2);
		assert_int_equal(res.pages_collapsed + res.pages_failed, 2);
		f.n = 0;
		assert_int_equal(damonctl_proc_huge_ranges(ctx, getpid(), b, b + size, collect,
							   &f), 0);
		/* pages 1..3 huge now (one range), unless the kernel could not (then failed) */
		if (!res.pages_failed) {
			assert_int_equal(f.n, 1);
			assert_int_equal(f.r[0][0], b + HP);
			assert_int_equal(f.r[0][1], b + 4 * HP);
		}
	}
	close(pidfd);
	/* a process that is not there */
	assert_int_equal(damonctl_proc_huge_ranges(ctx, 0x7ffffff0, 0, HP, collect, &f), -ESRCH);
out:
	damonctl_hugepage_plan_free(p);
	damonctl_tree_free(t);
	damonctl_free(ctx);
	munmap(buf, size);
}

static void test_result_size(void **state)
{
	struct damonctl_hugepage_plan *p;
	struct damonctl_collapse_result res = { .sz = 0 };

	(void)state;
	assert_int_equal(damonctl_hugepage_plan_new(1, &p), 0);
	/* a caller that does not say how big its struct is */
	assert_int_equal(damonctl_hugepage_plan_collapse(p, -1, 1, 0, &res), -EINVAL);
	/* an empty plan does nothing */
	res.sz = sizeof(res);
	assert_int_equal(damonctl_hugepage_plan_collapse(p, -1, 1, 0, &res), 0);
	assert_int_equal(res.pages_tried, 0);
	damonctl_hugepage_plan_free(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_arithmetic),
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_plan_own_memory),
		cmocka_unit_test(test_result_size),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
