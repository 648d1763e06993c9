// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a huge-page report gathers (lib/thp.c, hugepage_proc.c, hugepage_khugepaged.c,
 * hugepage_record.c) on small hand-made inputs whose answers are worked out in the comments.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define KiB UINT64_C(1024)
#define MiB (KiB * KiB)

static struct damonctl_ctx *ctx_at(const char *dir)
{
	struct damonctl_ctx *ctx;

	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	return ctx;
}

static void put(const char *dir, const char *rel, const char *content)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	write_file(path, content);
}

static size_t setting_index(const char *name)
{
	const char *n;
	size_t i;

	for (i = 0; (n = damonctl_thp_setting_name(i, NULL)); i++)
		if (!strcmp(n, name))
			return i;
	fail_msg("no THP setting %s", name);
	return 0;
}

static uint64_t vmstat_of(const struct damonctl_thp *t, const char *name)
{
	size_t i;

	for (i = 0; i < damonctl_thp_nr_vmstat(); i++)
		if (!strcmp(damonctl_thp_vmstat_name(i), name))
			return damonctl_thp_vmstat(t, i);
	fail_msg("no vmstat %s", name);
	return 0;
}

/* The selected mode alone, a file the kernel lacks left out, and who made the huge pages:
 * 10 collapses in all, 3 of them khugepaged's, so 7 by MADV_COLLAPSE. */
static void test_thp(void **state)
{
	char *dir = tmpdir_new();
	struct damonctl_ctx *ctx;
	struct damonctl_thp *t;
	struct damonctl_thp_made made = { .sz = sizeof(made) };
	enum damonctl_thp_kind kind;

	(void)state;
	put(dir, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put(dir, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_collapsed", "3\n");
	put(dir, "sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs", "10000\n");
	put(dir, "proc/vmstat", "nr_free_pages 5\nthp_fault_alloc 42\nthp_collapse_alloc 10\n"
	    "thp_split_pmd 6\n");
	ctx = ctx_at(dir);
	assert_int_equal(damonctl_thp_read(ctx, &t), 0);
	assert_string_equal(damonctl_thp_setting(t, setting_index("enabled")), "madvise");
	assert_null(damonctl_thp_setting(t, setting_index("defrag")));
	assert_string_equal(damonctl_thp_setting(t, setting_index("khugepaged/scan_sleep_millisecs")),
			    "10000");
	damonctl_thp_setting_name(setting_index("khugepaged/scan_sleep_millisecs"), &kind);
	assert_int_equal(kind, DAMONCTL_THP_MILLISECONDS);
	assert_null(damonctl_thp_setting_name(damonctl_thp_nr_settings(), NULL));
	assert_int_equal(vmstat_of(t, "thp_split_pmd"), 6);
	assert_int_equal(vmstat_of(t, "thp_swpout"), 0);
	assert_int_equal(damonctl_thp_made(t, &made), 0);
	assert_int_equal(made.fault, 42);
	assert_int_equal(made.khugepaged, 3);
	assert_int_equal(made.madv_collapse, 7);
	/* a caller built before madv_collapse existed gets the fields it has room for */
	made = (struct damonctl_thp_made){ .sz = offsetof(struct damonctl_thp_made, madv_collapse),
					   .madv_collapse = 99 };
	assert_int_equal(damonctl_thp_made(t, &made), 0);
	assert_int_equal(made.khugepaged, 3);
	assert_int_equal(made.madv_collapse, 99);
	made.sz = 0;
	assert_int_equal(damonctl_thp_made(t, &made), -EINVAL);
	damonctl_thp_free(t);
	/* khugepaged counts more than thp_collapse_alloc (a counter reset): none by madvise */
	put(dir, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_collapsed", "12\n");
	assert_int_equal(damonctl_thp_read(ctx, &t), 0);
	made.sz = sizeof(made);
	assert_int_equal(damonctl_thp_made(t, &made), 0);
	assert_int_equal(made.madv_collapse, 0);
	damonctl_thp_free(t);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

#define MAPPING(range, name, rss_kb, huge_kb) \
	range " rw-p 00000000 00:00 0   " name "\nRss:  " rss_kb " kB\nAnonHugePages: " huge_kb \
	" kB\n"

/*
 * Mappings (coverage = AnonHugePages / Rss):
 *   A 2-6 MiB      50%       B 6-7 MiB: under 2 MiB, left out   C 8-12 MiB: no Rss, left out
 *   D 16-20 MiB   100%       E 32-36 MiB  0%                    F 48-52 MiB 50% (ties A)
 * The most covered: D, A, F; the least: E, A, F (a tie after its equals, in file order).
 * The process: Rss 10 MiB, huge 2 MiB anon + 2 MiB shmem = 4 MiB: 4000 bp.
 */
static void test_proc(void **state)
{
	static const uint64_t most[] = { 16 * MiB, 2 * MiB, 48 * MiB };
	static const uint64_t least[] = { 32 * MiB, 2 * MiB, 48 * MiB };
	char *dir = tmpdir_new();
	struct damonctl_hugepage_proc *p;
	struct damonctl_ctx *ctx;
	size_t i;

	(void)state;
	put(dir, "proc/7/smaps_rollup", "00400000-ffffffff ---p 00000000 00:00 0  [rollup]\n"
	    "Rss: 10240 kB\nAnonHugePages: 2048 kB\nShmemPmdMapped: 2048 kB\n");
	put(dir, "proc/7/smaps",
	    MAPPING("200000-600000", "/bin/a", "4096", "2048")
	    MAPPING("600000-700000", "", "1024", "0")
	    MAPPING("800000-c00000", "", "0", "0")
	    MAPPING("1000000-1400000", "[heap]", "4096", "4096")
	    MAPPING("2000000-2400000", "", "2048", "0")
	    MAPPING("3000000-3400000", "/bin/f", "4096", "2048"));
	ctx = ctx_at(dir);
	assert_int_equal(damonctl_hugepage_proc_read(ctx, 7, 3, &p), 0);
	assert_int_equal(damonctl_hugepage_proc_mem(p)->rss, 10 * MiB);
	assert_int_equal(damonctl_hugepage_proc_bp(p), 4000);
	assert_int_equal(damonctl_hugepage_proc_nr_vmas(p, true), 3);
	assert_int_equal(damonctl_hugepage_proc_nr_vmas(p, false), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(damonctl_hugepage_proc_vma(p, true, i)->start, most[i]);
		assert_int_equal(damonctl_hugepage_proc_vma(p, false, i)->start, least[i]);
	}
	assert_string_equal(damonctl_hugepage_proc_vma(p, true, 0)->name, "[heap]");
	assert_int_equal(damonctl_hugepage_proc_vma(p, true, 0)->anon_huge, 4 * MiB);
	assert_null(damonctl_hugepage_proc_vma(p, true, 3));
	damonctl_hugepage_proc_free(p);
	/* two of each: F, the third, is cut */
	assert_int_equal(damonctl_hugepage_proc_read(ctx, 7, 2, &p), 0);
	assert_int_equal(damonctl_hugepage_proc_vma(p, true, 1)->start, 2 * MiB);
	assert_int_equal(damonctl_hugepage_proc_vma(p, false, 1)->start, 2 * MiB);
	assert_null(damonctl_hugepage_proc_vma(p, false, 2));
	damonctl_hugepage_proc_free(p);
	/* no ranking asked: none read */
	assert_int_equal(damonctl_hugepage_proc_read(ctx, 7, 0, &p), 0);
	assert_int_equal(damonctl_hugepage_proc_nr_vmas(p, true), 0);
	damonctl_hugepage_proc_free(p);
	assert_int_equal(damonctl_hugepage_proc_read(ctx, 8, 3, &p), -ESRCH);
	assert_int_equal(damonctl_hugepage_proc_read(ctx, 7, 65, &p), -EINVAL);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

#define SCAN(status) "khugepaged-42 [001] ..... 10.5: mm_khugepaged_scan_pmd: mm=0x1, " \
	"scan_pfn=0x2, writable=1, referenced=0, none_or_zero=0, status=" status ", unmapped=0"

/* Two no_referenced_page and one succeeded, in the order first seen; other lines not. */
static void test_khugepaged_lines(void **state)
{
	struct damonctl_khugepaged_scans *s;
	uint64_t n = 0;

	(void)state;
	assert_int_equal(damonctl_khugepaged_scans_new(&s), 0);
	assert_int_equal(damonctl_khugepaged_scans_add_line(s, SCAN("no_referenced_page")), 1);
	assert_int_equal(damonctl_khugepaged_scans_add_line(s, SCAN("succeeded")), 1);
	assert_int_equal(damonctl_khugepaged_scans_add_line(s, SCAN("no_referenced_page")), 1);
	assert_int_equal(damonctl_khugepaged_scans_add_line(s, "x-1 [000] 1.0: "
			 "mm_khugepaged_scan_file: mm=0x1, status=succeeded"), 0);
	assert_int_equal(damonctl_khugepaged_scans_add_line(s, "mm_khugepaged_scan_pmd: mm=0x1"),
			 0);
	assert_int_equal(damonctl_khugepaged_scans_total(s), 3);
	assert_int_equal(damonctl_khugepaged_scans_nr_status(s), 2);
	assert_string_equal(damonctl_khugepaged_scans_status(s, 0, &n), "no_referenced_page");
	assert_int_equal(n, 2);
	assert_string_equal(damonctl_khugepaged_scans_status(s, 1, &n), "succeeded");
	assert_int_equal(n, 1);
	assert_null(damonctl_khugepaged_scans_status(s, 2, &n));
	damonctl_khugepaged_scans_free(s);
}

/* An item of one snapshot (stats), its struct this file's until the next call: each is
 * fed at once */
static struct damonctl_rec_item snap(int32_t target, uint64_t end_s,
				     const struct damonctl_rec_region *r, uint32_t n)
{
	static struct damonctl_rec_snapshot s;

	s = (struct damonctl_rec_snapshot){ .sz = sizeof(s), .target = target, .scheme = -1,
					    .end_ns = end_s * 1000000000, .regions = r,
					    .nr_regions = n };
	return (struct damonctl_rec_item){ .sz = sizeof(struct damonctl_rec_item),
					   .type = DAMONCTL_REC_SNAPSHOT, .snapshot = &s };
}

static struct damonctl_rec_item stats(uint32_t scheme, const char *action, uint64_t nr_tried,
				      uint64_t sz_tried, uint64_t nr_applied, uint64_t sz_applied)
{
	static struct damonctl_rec_stats st;

	st = (struct damonctl_rec_stats){ .sz = sizeof(st), .scheme = scheme };
	snprintf(st.action, sizeof(st.action), "%s", action);
	st.v[DAMONCTL_REC_NR_TRIED] = nr_tried;
	st.v[DAMONCTL_REC_SZ_TRIED] = sz_tried;
	st.v[DAMONCTL_REC_NR_APPLIED] = nr_applied;
	st.v[DAMONCTL_REC_SZ_APPLIED] = sz_applied;
	return (struct damonctl_rec_item){ .sz = sizeof(struct damonctl_rec_item),
					   .type = DAMONCTL_REC_STATS, .stats = &st };
}

/*
 * Target 0's snapshots (target 1's are another series, left out):
 *   at 1 s: accessed [0, 1M) [1M, 3M) adjacent: one span, 2 MiB-aligned [0, 2M); idle
 *           [3M, 4M); accessed [4M, 8M+1): [4M, 8M): 2 + 4 = 6 MiB
 *   at 3 s: accessed [1M, 5M): [2M, 4M): 2 MiB
 *   at 4 s: nothing accessed: 0
 * first 6 MiB, last 0, max 6 MiB over 3 s. The collapse scheme 1 went from (1, 10, 2, 20)
 * to (5, 50, 4, 40): tried 4 regions, 40 bytes, applied 2, 20 bytes; pageout is no concern.
 */
static void test_record(void **state)
{
	static const struct damonctl_rec_region r1[] = {
		{ 0, 1 * MiB, 1, 0, 0 }, { 1 * MiB, 3 * MiB, 1, 0, 0 }, { 3 * MiB, 4 * MiB, 0, 0, 0 },
		{ 4 * MiB, 8 * MiB + 1, 2, 0, 0 },
	};
	static const struct damonctl_rec_region r2[] = { { 1 * MiB, 5 * MiB, 1, 0, 0 } };
	static const struct damonctl_rec_region r3[] = { { 0, 64 * MiB, 0, 0, 0 } };
	struct damonctl_hugepage_rec_series se = { .sz = sizeof(se) };
	struct damonctl_hugepage_rec_scheme sc = { .sz = sizeof(sc) };
	struct damonctl_hugepage_rec *h;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	uint64_t bytes = 1;

	(void)state;
	assert_int_equal(damonctl_hugepage_rec_new(&h), 0);
	it = snap(0, 1, r1, 4);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, &bytes), 1);
	assert_int_equal(bytes, 6 * MiB);
	it = snap(1, 2, r2, 1);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, &bytes), 0);
	it = stats(1, "collapse", 1, 10, 2, 20);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, NULL), 0);
	it = stats(0, "pageout", 1, 1, 1, 1);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, NULL), 0);
	it = snap(0, 3, r2, 1);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, &bytes), 1);
	assert_int_equal(bytes, 2 * MiB);
	it = stats(1, "collapse", 5, 50, 4, 40);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, NULL), 0);
	it = snap(0, 4, r3, 1);
	assert_int_equal(damonctl_hugepage_rec_add(h, &it, NULL), 1);
	assert_int_equal(damonctl_hugepage_rec_get_series(h, &se), 0);
	assert_int_equal(se.snapshots, 3);
	assert_int_equal(se.first, 6 * MiB);
	assert_int_equal(se.last, 0);
	assert_int_equal(se.max, 6 * MiB);
	assert_int_equal(se.last_ns - se.first_ns, UINT64_C(3000000000));
	assert_int_equal(damonctl_hugepage_rec_nr_schemes(h), 1);
	assert_int_equal(damonctl_hugepage_rec_get_scheme(h, 0, &sc), 0);
	assert_int_equal(sc.scheme, 1);
	assert_string_equal(sc.action, "collapse");
	assert_int_equal(sc.nr_tried, 4);
	assert_int_equal(sc.sz_tried, 40);
	assert_int_equal(sc.nr_applied, 2);
	assert_int_equal(sc.sz_applied, 20);
	assert_int_equal(damonctl_hugepage_rec_get_scheme(h, 1, &sc), -ENOENT);
	/* an older caller's shorter struct: what it has room for, no more */
	se = (struct damonctl_hugepage_rec_series){
		.sz = offsetof(struct damonctl_hugepage_rec_series, first), .first = 7 };
	assert_int_equal(damonctl_hugepage_rec_get_series(h, &se), 0);
	assert_int_equal(se.snapshots, 3);
	assert_int_equal(se.first, 7);
	damonctl_hugepage_rec_free(h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thp),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_khugepaged_lines),
		cmocka_unit_test(test_record),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
