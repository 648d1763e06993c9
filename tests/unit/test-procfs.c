// SPDX-License-Identifier: LGPL-2.1-or-later
/* What libdamonctl reads of a process from procfs (a temporary sysroot's proc/). */
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static struct damonctl_ctx *ctx_with_maps(char *dir, int pid, const char *smaps)
{
	struct damonctl_ctx *ctx;
	char path[4096];

	snprintf(path, sizeof(path), "%s/proc/%d/smaps", dir, pid);
	write_file(path, smaps);
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	return ctx;
}

#define VMA(range, name) range " rw-p 00000000 00:00 0   " name "\nRss:  4 kB\n"

/* A target's regions replaced by a process's; cleared when the process is gone. */
static void test_seed_regions(void **state)
{
	char *dir = tmpdir_new();
	struct damonctl_ctx *ctx = ctx_with_maps(dir, 9, VMA("1000-2000", "") VMA("5000-6000", ""));
	struct damonctl_tree *tree = damonctl_tree_new();
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_target *t;
	uint64_t st, en;

	(void)state;
	assert_non_null(k = damonctl_tree_add_kdamond(tree));
	assert_non_null(c = damonctl_kdamond_add_context(k));
	assert_non_null(t = damonctl_context_add_target(c));
	assert_int_equal(damonctl_target_add_region(t, 0x100000, 0x200000), 0);
	assert_int_equal(damonctl_target_seed_regions(ctx, t, 9), 2);
	assert_int_equal(damonctl_target_nr_regions(t), 2);
	assert_int_equal(damonctl_target_region(t, 0, &st, &en), 0);
	assert_int_equal(st, 0x1000);
	assert_int_equal(en, 0x2000);
	assert_int_equal(damonctl_target_region(t, 1, &st, &en), 0);
	assert_int_equal(st, 0x5000);
	assert_int_equal(en, 0x6000);
	assert_int_equal(damonctl_target_seed_regions(ctx, t, 12), -ESRCH);
	assert_int_equal(damonctl_target_nr_regions(t), 0);
	damonctl_tree_free(tree);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* /proc/meminfo into a struct that says its size: what that size covers is filled, the rest
 * left alone, and a size smaller than the first one with sz is refused. */
static void test_meminfo_sz(void **state)
{
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_meminfo m = DAMONCTL_MEMINFO_INIT, part;
	struct damonctl_ctx *ctx;

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	write_file(path, "MemTotal: 1000 kB\nMemFree: 200 kB\nMemAvailable: 500 kB\n"
		   "AnonPages: 300 kB\nAnonHugePages: 40 kB\nShmemHugePages: 20 kB\n"
		   "FileHugePages: 20 kB\n");
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_meminfo_read(ctx, &m), 0);
	assert_int_equal(m.sz, sizeof(m));
	assert_int_equal(m.total, 1000 * 1024);
	assert_int_equal(m.file_huge, 20 * 1024);
	assert_int_equal(damonctl_meminfo_used(&m), 800 * 1024);
	assert_int_equal(damonctl_meminfo_huge(&m), 80 * 1024);
	assert_int_equal(damonctl_meminfo_hugepage_bp(&m), 1000);
	/* a later build's longer struct: what this library knows is filled, the rest kept */
	{
		struct { struct damonctl_meminfo m; uint64_t later; } big;

		memset(&big, 0, sizeof(big));
		big.m.sz = sizeof(big);
		big.later = 7;
		assert_int_equal(damonctl_meminfo_read(ctx, &big.m), 0);
		assert_int_equal(big.m.sz, sizeof(big));
		assert_int_equal(big.m.anon, 300 * 1024);
		assert_int_equal(big.later, 7);
	}
	/* shorter than the first struct with sz: not a struct of ours */
	memset(&part, 0xa5, sizeof(part));
	part.sz = offsetof(struct damonctl_meminfo, file_huge);
	assert_int_equal(damonctl_meminfo_read(ctx, &part), -EINVAL);
	assert_int_equal(part.total, 0xa5a5a5a5a5a5a5a5ull);	/* untouched */
	assert_int_equal(damonctl_meminfo_used(&part), 0);
	assert_int_equal(damonctl_meminfo_hugepage_bp(&part), 0);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* The mappings less the two largest gaps, in address order (damon_va_three_regions). */
static void test_init_regions(void **state)
{
	char *dir = tmpdir_new();
	struct damonctl_ctx *ctx = ctx_with_maps(dir, 7,
		VMA("1000-3000", "/bin/x")
		VMA("3000-4000", "[heap]")			/* no gap */
		VMA("10000-11000", "")				/* gap 0xc000 */
		VMA("20000-21000", "")				/* gap 0xf000 */
		VMA("7f0000000-7f0002000", "[stack]")		/* the largest gap */
		VMA("ffffffffff600000-ffffffffff601000", "[vsyscall]"));
	uint64_t r[3][2];

	(void)state;
	assert_int_equal(damonctl_proc_init_regions(ctx, 7, r), 3);
	assert_int_equal(r[0][0], 0x1000);
	assert_int_equal(r[0][1], 0x11000);	/* the smaller gap comes first in address */
	assert_int_equal(r[1][0], 0x20000);
	assert_int_equal(r[1][1], 0x21000);
	assert_int_equal(r[2][0], 0x7f0000000ULL);
	assert_int_equal(r[2][1], 0x7f0002000ULL);	/* [vsyscall] is left out */
	assert_int_equal(damonctl_proc_init_regions(ctx, 8, r), -ESRCH);
	damonctl_free(ctx);
	tmpdir_remove(dir);

	/* one gap: two regions; no gap: one; no mapping: none */
	dir = tmpdir_new();
	ctx = ctx_with_maps(dir, 9, VMA("1000-2000", "") VMA("5000-6000", ""));
	assert_int_equal(damonctl_proc_init_regions(ctx, 9, r), 2);
	assert_int_equal(r[0][1], 0x2000);
	assert_int_equal(r[1][0], 0x5000);
	damonctl_free(ctx);
	ctx = ctx_with_maps(dir, 10, VMA("1000-2000", "") VMA("2000-6000", ""));
	assert_int_equal(damonctl_proc_init_regions(ctx, 10, r), 1);
	assert_int_equal(r[0][0], 0x1000);
	assert_int_equal(r[0][1], 0x6000);
	damonctl_free(ctx);
	ctx = ctx_with_maps(dir, 11, "");
	assert_int_equal(damonctl_proc_init_regions(ctx, 11, r), 0);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

struct seen {
	unsigned int n;
	struct damonctl_vma v[4];
};

static int collect_vma(void *data, const struct damonctl_vma *v)
{
	struct seen *s = data;

	if (s->n < 4)
		s->v[s->n] = *v;
	s->n++;
	return 0;
}

/* maps and smaps give the same mappings (range, perms, name); only smaps has sizes. */
static void test_maps(void **state)
{
	char *dir = tmpdir_new(), path[4096];
	const char *maps = "1000-3000 r-xp 00000000 08:01 42   /bin/x\n"
			   "7f0000000-7f0002000 rw-p 00000000 00:00 0 \n";
	struct damonctl_ctx *ctx = ctx_with_maps(dir, 7,
		"1000-3000 r-xp 00000000 08:01 42   /bin/x\nRss:  8 kB\nAnonymous:  0 kB\n"
		"7f0000000-7f0002000 rw-p 00000000 00:00 0 \nRss:  8 kB\nAnonymous:  8 kB\n");
	struct seen a = { 0 }, b = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/7/maps", dir);
	write_file(path, maps);
	assert_int_equal(damonctl_proc_maps(ctx, 7, collect_vma, &a), 0);
	assert_int_equal(damonctl_proc_vmas(ctx, 7, collect_vma, &b), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(b.n, 2);
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(a.v[i].start == b.v[i].start && a.v[i].end == b.v[i].end);
		assert_string_equal(a.v[i].perms, b.v[i].perms);
		assert_string_equal(a.v[i].name, b.v[i].name);
		assert_int_equal(a.v[i].rss, 0);
		assert_int_equal(b.v[i].rss, 8192);
	}
	assert_string_equal(a.v[0].name, "/bin/x");
	assert_string_equal(a.v[1].name, "");
	assert_int_equal(a.v[1].start, 0x7f0000000ULL);
	assert_int_equal(damonctl_proc_maps(ctx, 8, collect_vma, &a), -ESRCH);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* statm's first two fields, in pages, as bytes; a zombie's zeros and a missing process are
 * -ESRCH, text that is no statm -EBADMSG */
static void test_statm(void **state)
{
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_ctx *ctx;
	uint64_t vsz = 1, rss = 1, page = (uint64_t)sysconf(_SC_PAGESIZE);

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/5/statm", dir);
	write_file(path, "5229 1286 1030 1 0 224 0\n");
	snprintf(path, sizeof(path), "%s/proc/6/statm", dir);
	write_file(path, "0 0 0 0 0 0 0\n");
	snprintf(path, sizeof(path), "%s/proc/7/statm", dir);
	write_file(path, "garbage\n");
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_proc_statm(ctx, 5, &vsz, &rss), 0);
	assert_true(vsz == 5229 * page && rss == 1286 * page);
	assert_int_equal(damonctl_proc_statm(ctx, 6, &vsz, &rss), -ESRCH);
	assert_int_equal(damonctl_proc_statm(ctx, 7, &vsz, &rss), -EBADMSG);
	assert_int_equal(damonctl_proc_statm(ctx, 8, &vsz, &rss), -ESRCH);
	assert_int_equal(damonctl_proc_statm(ctx, 0, &vsz, &rss), -ESRCH);
	assert_true(vsz == 5229 * page && rss == 1286 * page);	/* untouched on failure */
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* The physical address layout: /proc/iomem's top-level resources cut at the memory blocks'
 * nodes and states; a node's System RAM. Blocks of 128 MiB: 0 and 1 on node 0, 2 on node 1,
 * 32 on node 1 and offline. */
static void test_pa_layout(void **state)
{
	static const struct {
		uint64_t s, e;
		int node;
		const char *state, *res;
	} want[] = {
		{ 0x0, 0x1000, 0, "online", "Reserved" },
		{ 0x1000, 0xa0000, 0, "online", "System RAM" },
		{ 0xa0000, 0x100000, 0, "online", "Reserved" },
		{ 0x100000, 0x10000000, 0, "online", "System RAM" },
		{ 0x10000000, 0x18000000, 1, "online", "System RAM" },
		{ 0xf0000000, 0xf1000000, -1, "", "PCI Bus 0000:00" },
		{ 0x100000000, 0x108000000, 1, "offline", "System RAM" },
	};
	static const char *const blocks[][2] = {
		{ "node0/memory0", "online" }, { "node0/memory1", "online" },
		{ "node1/memory2", "online" }, { "node1/memory32", "offline" },
		{ "node1/memory_failure", "" },
	};
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_pa_layout *l;
	struct damonctl_ctx *ctx;
	uint64_t ranges[2][2], s, e;
	const char *st, *res;
	size_t i, nr;
	int node;

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/iomem", dir);
	write_file(path, "00000000-00000fff : Reserved\n"
		   "00001000-0009ffff : System RAM\n"
		   "  00001000-00001fff : nested, not top-level\n"
		   "000a0000-000fffff : Reserved\n"
		   "00100000-17ffffff : System RAM\n"
		   "f0000000-f0ffffff : PCI Bus 0000:00\n"
		   "100000000-107ffffff : System RAM\n");
	snprintf(path, sizeof(path), "%s/sys/devices/system/memory/block_size_bytes", dir);
	write_file(path, "8000000\n");
	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/node/%s/state", dir,
			 blocks[i][0]);
		write_file(path, blocks[i][1]);
	}
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_pa_layout_read(ctx, &l), 0);
	assert_int_equal(damonctl_pa_layout_nr(l), sizeof(want) / sizeof(want[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(damonctl_pa_layout_range(l, i, &s, &e, &node, &st, &res), 0);
		assert_true(s == want[i].s && e == want[i].e);
		assert_int_equal(node, want[i].node);
		assert_string_equal(st, want[i].state);
		assert_string_equal(res, want[i].res);
	}
	assert_int_equal(damonctl_pa_layout_range(l, i, NULL, NULL, NULL, NULL, NULL), -ERANGE);
	/* node 0: two ranges (Reserved between them); node 1: the online and offline blocks */
	assert_int_equal(damonctl_node_ram(l, 0, ranges, 2, &nr), 0);
	assert_int_equal(nr, 2);
	assert_true(ranges[0][0] == 0x1000 && ranges[0][1] == 0xa0000);
	assert_true(ranges[1][0] == 0x100000 && ranges[1][1] == 0x10000000);
	assert_int_equal(damonctl_node_ram(l, 1, ranges, 2, &nr), 0);
	assert_true(ranges[0][0] == 0x10000000 && ranges[0][1] == 0x18000000);
	assert_true(ranges[1][0] == 0x100000000 && ranges[1][1] == 0x108000000);
	assert_int_equal(damonctl_node_ram(l, 0, ranges, 1, &nr), -E2BIG);
	assert_int_equal(nr, 2);
	assert_int_equal(damonctl_node_ram(l, 2, ranges, 2, &nr), -ENOENT);
	damonctl_pa_layout_free(l);

	/* no memory blocks (no CONFIG_MEMORY_HOTPLUG): ranges without a node */
	snprintf(path, sizeof(path), "%s/sys/devices/system/memory/block_size_bytes", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(damonctl_pa_layout_read(ctx, &l), 0);
	assert_int_equal(damonctl_pa_layout_range(l, 1, NULL, NULL, &node, &st, NULL), 0);
	assert_int_equal(node, -1);
	assert_string_equal(st, "");
	assert_int_equal(damonctl_node_ram(l, 0, ranges, 2, &nr), -ENODEV);
	damonctl_pa_layout_free(l);

	/* what a user without CAP_SYS_ADMIN reads */
	snprintf(path, sizeof(path), "%s/proc/iomem", dir);
	write_file(path, "00000000-00000000 : Reserved\n00000000-00000000 : System RAM\n");
	assert_int_equal(damonctl_pa_layout_read(ctx, &l), -EPERM);
	assert_null(l);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* The regions of a paddr target: nodes' System RAM merged across nodes, in address order and
 * whole pages, in address units; the largest System RAM range without nodes. Blocks of
 * 128 MiB: 0 on node 0, 1 on node 1, 2 on node 0. */
static void test_paddr_regions(void **state)
{
	static const char *const blocks[] = { "node0/memory0", "node1/memory1", "node0/memory2" };
	char *dir = tmpdir_new(), path[4096];
	struct damonctl_pa_layout *l;
	struct damonctl_ctx *ctx;
	uint64_t r[4][2];
	size_t i, nr = 99;
	int nodes[] = { 1, 0, 7 };

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/iomem", dir);
	write_file(path, "00000000-00000fff : Reserved\n"
		   "00001000-0009fbff : System RAM\n"
		   "000a0000-000fffff : Reserved\n"
		   "00100000-17ffffff : System RAM\n");
	snprintf(path, sizeof(path), "%s/sys/devices/system/memory/block_size_bytes", dir);
	write_file(path, "8000000\n");
	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/node/%s/state", dir, blocks[i]);
		write_file(path, "online");
	}
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, dir), 0);
	assert_int_equal(damonctl_pa_layout_read(ctx, &l), 0);
	/* nodes 1 and 0, in that order: one range, the nodes' adjacent ones merged; the
	 * first range loses the part of a page that is not RAM */
	assert_int_equal(damonctl_paddr_regions(ctx, l, nodes, 2, 1, r, 4, &nr), 0);
	assert_int_equal(nr, 2);
	assert_true(r[0][0] == 0x1000 && r[0][1] == 0x9f000);
	assert_true(r[1][0] == 0x100000 && r[1][1] == 0x18000000);
	/* in units of 64 KiB: the whole units inside */
	assert_int_equal(damonctl_paddr_regions(ctx, l, nodes + 1, 1, 0x10000, r, 4, &nr), 0);
	assert_int_equal(nr, 3);
	assert_true(r[0][0] == 1 && r[0][1] == 9);
	assert_true(r[1][0] == 0x10 && r[1][1] == 0x800);
	assert_true(r[2][0] == 0x1000 && r[2][1] == 0x1800);
	/* node 7 has none: which one is said */
	assert_int_equal(damonctl_paddr_regions(ctx, l, nodes, 3, 1, r, 4, &nr), -ENOENT);
	assert_int_equal(nr, 2);
	nr = 99;
	assert_int_equal(damonctl_paddr_regions(ctx, l, nodes + 1, 1, 1, r, 2, &nr), -E2BIG);
	assert_int_equal(nr, 99);	/* untouched */
	/* no nodes: the largest System RAM range, in units too */
	assert_int_equal(damonctl_paddr_regions(ctx, NULL, NULL, 0, 1, r, 1, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(r[0][0] == 0x100000 && r[0][1] == 0x18000000);
	assert_int_equal(damonctl_paddr_regions(ctx, NULL, NULL, 0, 0x300000, r, 1, &nr), 0);
	assert_true(r[0][0] == 1 && r[0][1] == 0x80);
	assert_int_equal(damonctl_paddr_regions(ctx, NULL, NULL, 0, 1, r, 0, &nr), -E2BIG);
	damonctl_pa_layout_free(l);
	/* no memory blocks: no node is known */
	snprintf(path, sizeof(path), "%s/sys/devices/system/memory/block_size_bytes", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(damonctl_pa_layout_read(ctx, &l), 0);
	assert_int_equal(damonctl_paddr_regions(ctx, l, nodes, 1, 1, r, 4, &nr), -ENODEV);
	damonctl_pa_layout_free(l);
	damonctl_free(ctx);
	tmpdir_remove(dir);
}

/* A process's identity is its pid and start time: this process is itself, and not one that
 * started at another time; a zombie child and a reaped one are gone. */
static void test_start_time(void **state)
{
	unsigned long long me = damonctl_proc_start_time((int)getpid());
	siginfo_t si;
	pid_t child;

	(void)state;
	assert_true(me > 0);
	assert_true(damonctl_proc_same((int)getpid(), me));
	assert_true(damonctl_proc_same((int)getpid(), 0));
	assert_false(damonctl_proc_same((int)getpid(), me + 1));
	assert_false(damonctl_proc_same(0, 0));
	assert_false(damonctl_proc_same(-1, 0));
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	/* the child exits at once; until it is reaped it is a zombie, which counts as gone */
	assert_int_equal(waitid(P_PID, (id_t)child, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(damonctl_proc_start_time((int)child), 0);
	assert_false(damonctl_proc_same((int)child, 0));
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(damonctl_proc_start_time((int)child), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo_sz),
		cmocka_unit_test(test_init_regions),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_seed_regions),
		cmocka_unit_test(test_statm),
		cmocka_unit_test(test_pa_layout),
		cmocka_unit_test(test_paddr_regions),
		cmocka_unit_test(test_start_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
