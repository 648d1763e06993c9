// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A capture's snapshot filters (struct damonctl_capture_opts' snapshot_filters, lib/capture.c):
 * which model schemes are taken, on which kernels (the kernel-tree captures of 6.12, 6.18
 * and 7.2, and 6.14 and 6.15-6.17 made from them by a file added or removed), where their
 * copies go in the capture schemes and in which order, and damonctl_capture_open's refusals,
 * which come before anything is written.
 */
#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "capture_internal.h"
#include "ops_filters.h"

#define SCHEME0 "kdamonds/0/contexts/0/schemes/0/"

static struct damonctl_filter *add(struct damonctl_scheme *s, enum damonctl_filter_dir dir,
				   const char *type, bool matching, bool allow)
{
	struct damonctl_filter *f = damonctl_scheme_add_filter(s, dir);

	assert_non_null(f);
	assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, type), 0);
	assert_int_equal(damonctl_filter_set(f, DAMONCTL_FILTER_MATCHING, matching), 0);
	assert_int_equal(damonctl_filter_set(f, DAMONCTL_FILTER_ALLOW, allow), 0);
	return f;
}

/* A model scheme to hold filters (a context's, as a caller's would be). */
static struct damonctl_scheme *model(struct damonctl_tree **t)
{
	struct damonctl_kdamond *k;
	struct damonctl_context *c;
	struct damonctl_scheme *s;

	*t = damonctl_tree_new();
	assert_non_null(*t);
	k = damonctl_tree_add_kdamond(*t);
	c = k ? damonctl_kdamond_add_context(k) : NULL;
	s = c ? damonctl_context_add_scheme(c) : NULL;
	assert_non_null(s);
	return s;
}

/* Kernels: "6.12" (no allow), "6.14" (the 6.12 tree with allow files), "6.17" (6.18's
 * without addr_unit), "6.18", "7.2"; the kdamond running, its context's operations @ops. */
static void kernel(struct sysroot *s, const char *version, const char *ops)
{
	static const char *const on[] = { "kdamonds/0/state", "on\n", "kdamonds/0/pid", "4242\n",
		NULL };
	const char *tree = !strcmp(version, "7.2") ? "7.2-defaults.txt" :
			   !strcmp(version, "6.18") || !strcmp(version, "6.17") ?
			   "6.18-layout.txt" : "6.12-defaults.txt";
	char *p;

	sysroot_setup(s, tree, NULL, on);
	if (!strcmp(version, "6.14")) {
		p = admin_path(s, SCHEME0 "filters/0/allow");
		write_file(p, "N\n");
		free(p);
	}
	if (!strcmp(version, "6.17")) {
		p = admin_path(s, "kdamonds/0/contexts/0/addr_unit");
		assert_int_equal(unlink(p), 0);
		free(p);
	}
	p = admin_path(s, "kdamonds/0/contexts/0/operations");
	write_file(p, ops);
	free(p);
}

static struct damonctl_features *features_of(struct sysroot *s)
{
	struct damonctl_features *f;

	assert_int_equal(damonctl_features_detect(s->ctx, &f), 0);
	return f;
}

/* Which model schemes are snapshot filters: none, filters of the operations layer's types
 * in ops_filters and filters/, and not the core layer's anywhere. */
static void counted(void **state)
{
	struct damonctl_tree *t;
	struct damonctl_scheme *s = model(&t);

	(void)state;
	assert_int_equal(dctl_capture_filters_count(NULL), 0);
	assert_int_equal(dctl_capture_filters_count(s), 0);
	add(s, DAMONCTL_FILTERS_OPS, "anon", true, true);
	assert_int_equal(dctl_capture_filters_count(s), 1);
	add(s, DAMONCTL_FILTERS_LEGACY, "memcg", true, false);
	assert_int_equal(dctl_capture_filters_count(s), 2);
	/* a target filter in filters/, an addr one in ops_filters, anything in core_filters */
	add(s, DAMONCTL_FILTERS_LEGACY, "target", false, false);
	assert_int_equal(dctl_capture_filters_count(s), -EINVAL);
	assert_int_equal(damonctl_scheme_remove_filter(s, DAMONCTL_FILTERS_LEGACY, 1), 0);
	add(s, DAMONCTL_FILTERS_OPS, "addr", true, true);
	assert_int_equal(dctl_capture_filters_count(s), -EINVAL);
	assert_int_equal(damonctl_scheme_remove_filter(s, DAMONCTL_FILTERS_OPS, 1), 0);
	assert_int_equal(dctl_capture_filters_count(s), 2);
	add(s, DAMONCTL_FILTERS_CORE, "target", false, false);
	assert_int_equal(dctl_capture_filters_count(s), -EINVAL);
	damonctl_tree_free(t);
}

/* On which kernels: allow and sz_filter_passed (6.14); vaddr's stat filters (6.18); the
 * types the kernel has (hugepage_size 6.15). */
static void supported(void **state)
{
	static const struct {
		const char *kernel, *ops;
		bool huge;
		int want;
	} cases[] = {
		{ "6.12", "paddr\n", false, -EOPNOTSUPP },
		{ "6.14", "paddr\n", false, 0 },
		{ "6.14", "paddr\n", true, -EOPNOTSUPP },
		{ "6.14", "vaddr\n", false, -EOPNOTSUPP },
		{ "6.17", "paddr\n", true, 0 },
		{ "6.17", "vaddr\n", false, -EOPNOTSUPP },
		{ "6.17", "fvaddr\n", false, -EOPNOTSUPP },
		{ "6.18", "vaddr\n", true, 0 },
		{ "7.2", "fvaddr\n", true, 0 },
		{ "7.2", "paddr\n", true, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct damonctl_tree *t;
		struct damonctl_scheme *s = model(&t);
		struct damonctl_features *f;
		struct sysroot sr;
		char ops[16];

		kernel(&sr, cases[i].kernel, cases[i].ops);
		f = features_of(&sr);
		add(s, DAMONCTL_FILTERS_OPS, "anon", true, true);
		if (cases[i].huge)
			add(s, DAMONCTL_FILTERS_LEGACY, "hugepage_size", true, true);
		snprintf(ops, sizeof(ops), "%.*s", (int)strcspn(cases[i].ops, "\n"), cases[i].ops);
		if (dctl_capture_filters_supported(s, f, ops) != cases[i].want)
			fail_msg("%s %s%s: not %d", cases[i].kernel, ops,
				 cases[i].huge ? " hugepage_size" : "", cases[i].want);
		damonctl_features_free(f);
		damonctl_tree_free(t);
		sysroot_teardown(&sr);
	}
}

static void expect_filter(const struct damonctl_filter *f, const char *type, bool matching,
			  bool allow)
{
	assert_non_null(f);
	assert_string_equal(damonctl_filter_get_str(f, DAMONCTL_FILTER_TYPE), type);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_MATCHING), matching);
	assert_int_equal(damonctl_filter_get(f, DAMONCTL_FILTER_ALLOW), allow);
}

/* Where the copies go: after each capture scheme's target filter, which rejects the other
 * targets (a core filter that allowed would let its memory skip them), in the directory the
 * kernel has; in the kernel's order (ops_filters, then filters/), with the files of their
 * types; and the snapshots' JSON of them. */
static void installed(void **state)
{
	static const char want_json[] =
		"[{\"type\":\"young\",\"matching\":false,\"allow\":false},"
		"{\"type\":\"memcg\",\"matching\":true,\"allow\":true,\"memcg_path\":\"/a\"},"
		"{\"type\":\"anon\",\"matching\":true,\"allow\":true}]";
	static const char want_huge[] =
		"[{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true,\"min\":2097152,"
		"\"max\":4194304}]";
	const char *kernels[] = { "6.14", "7.2" };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		bool split = k == 1;	/* 6.15+: core_filters and ops_filters */
		enum damonctl_filter_dir core = split ? DAMONCTL_FILTERS_CORE : DAMONCTL_FILTERS_LEGACY;
		enum damonctl_filter_dir ops = split ? DAMONCTL_FILTERS_OPS : DAMONCTL_FILTERS_LEGACY;
		struct damonctl_tree *t, *mt;
		struct damonctl_scheme *m = model(&mt);
		struct damonctl_features *f;
		struct damonctl_context *c;
		struct sysroot sr;
		unsigned int i, first;
		char *json;

		kernel(&sr, kernels[k], "vaddr\n");
		f = features_of(&sr);
		/* in filters/ (kernel order: after ops_filters) and in ops_filters */
		add(m, DAMONCTL_FILTERS_LEGACY, "anon", true, true);
		add(m, DAMONCTL_FILTERS_OPS, "young", false, false);
		assert_int_equal(damonctl_filter_set_str(add(m, DAMONCTL_FILTERS_OPS, "memcg",
							     true, true),
							 DAMONCTL_FILTER_MEMCG_PATH, "/a"), 0);
		assert_int_equal(damonctl_tree_read(sr.ctx, &t), 0);
		c = damonctl_kdamond_context(damonctl_tree_kdamond(t, 0), 0);
		/* the capture's scheme has a filter of each directory, of the default type (anon,
		 * which core_filters do not take): only the capture schemes stay */
		assert_int_equal(damonctl_context_remove_scheme(c, 0), 0);
		first = damonctl_context_nr_schemes(c);
		assert_int_equal(damonctl_context_nr_targets(c), 2);
		assert_int_equal(dctl_capture_add_filtered_schemes(c, f, m), 2);
		for (i = 0; i < 2; i++) {
			struct damonctl_scheme *s = damonctl_context_scheme(c, first + i);
			struct damonctl_filter *tf = damonctl_scheme_filter(s, core, 0);

			assert_true(damonctl_capture_pattern_all(s, 4));
			expect_filter(tf, "target", false, false);
			assert_int_equal(damonctl_filter_get(tf, DAMONCTL_FILTER_TARGET_IDX), i);
			assert_int_equal(damonctl_scheme_nr_filters(s, core), split ? 1 : 4);
			assert_int_equal(damonctl_scheme_nr_filters(s, ops), split ? 3 : 4);
			expect_filter(damonctl_scheme_filter(s, ops, split ? 0 : 1), "young", false,
				      false);
			expect_filter(damonctl_scheme_filter(s, ops, split ? 1 : 2), "memcg", true,
				      true);
			assert_string_equal(damonctl_filter_get_str(damonctl_scheme_filter(s, ops,
							split ? 1 : 2), DAMONCTL_FILTER_MEMCG_PATH), "/a");
			expect_filter(damonctl_scheme_filter(s, ops, split ? 2 : 3), "anon", true,
				      true);
			if (split)
				assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_LEGACY),
						 0);
			json = dctl_ops_filters_of_scheme(s);
			assert_non_null(json);
			assert_string_equal(json, want_json);
			free(json);
		}
		/* the kdamond with them checks clean on this kernel */
		{
			char why[256];

			/* the captures' targets have an empty region [0, 0), which `on` refuses */
			for (i = 0; i < damonctl_context_nr_targets(c); i++)
				damonctl_target_clear_regions(damonctl_context_target(c, i));
			if (damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), f, why, sizeof(why)))
				fail_msg("%s: %s", kernels[k], why);
		}
		damonctl_tree_free(t);

		/* one target: no target filter; hugepage_size's range (7.2) */
		if (split) {
			struct damonctl_scheme *m2 = model(&t), *s;
			struct damonctl_tree *t2;
			struct damonctl_filter *h = add(m2, DAMONCTL_FILTERS_OPS, "hugepage_size",
							true, true);

			assert_int_equal(damonctl_filter_set(h, DAMONCTL_FILTER_MIN, 2 << 20), 0);
			assert_int_equal(damonctl_filter_set(h, DAMONCTL_FILTER_MAX, 4 << 20), 0);
			assert_int_equal(damonctl_tree_read(sr.ctx, &t2), 0);
			c = damonctl_kdamond_context(damonctl_tree_kdamond(t2, 0), 0);
			assert_int_equal(damonctl_context_remove_target(c, 1), 0);
			first = damonctl_context_nr_schemes(c);
			assert_int_equal(dctl_capture_add_filtered_schemes(c, f, m2), 1);
			s = damonctl_context_scheme(c, first);
			assert_int_equal(damonctl_scheme_nr_filters(s, DAMONCTL_FILTERS_CORE), 0);
			json = dctl_ops_filters_of_scheme(s);
			assert_string_equal(json, want_huge);
			free(json);
			damonctl_tree_free(t2);
			damonctl_tree_free(t);
		}
		damonctl_features_free(f);
		damonctl_tree_free(mt);
		sysroot_teardown(&sr);
	}
}

/* Every file under the sysroot and its content, to tell that nothing was written. */
static char *dumped;
static size_t dumped_len;

static int dump_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char *content = flag == FTW_F ? slurp(path) : NULL;
	size_t n = strlen(path) + (content ? strlen(content) : 0) + 4;

	(void)st;
	(void)ftw;
	dumped = realloc(dumped, dumped_len + n + 1);
	assert_non_null(dumped);
	dumped_len += (size_t)snprintf(dumped + dumped_len, n + 1, "%s=%s|", path,
				       content ? content : "");
	free(content);
	return 0;
}

static char *dump(const char *dir)
{
	char *out;

	dumped = NULL;
	dumped_len = 0;
	assert_int_equal(nftw(dir, dump_one, 16, FTW_PHYS), 0);
	out = dumped;
	dumped = NULL;
	return out;
}

/* damonctl_capture_open's refusals: each before anything is written, without a last
 * error; AUTO and trace; a caller's options too short to have snapshot filters. */
static void open_refusals(void **state)
{
	static const struct {
		const char *kernel, *ops;
		enum damonctl_capture_method method;
		const char *type, *memcg;
		enum damonctl_filter_dir dir;
		int want;
	} cases[] = {
		/* method trace: its events carry no sz_filter_passed */
		{ "7.2", "vaddr\n", DAMONCTL_CAPTURE_TRACE, "anon", NULL, DAMONCTL_FILTERS_OPS,
		  -EINVAL },
		/* a core layer's filter */
		{ "7.2", "vaddr\n", DAMONCTL_CAPTURE_AUTO, "addr", NULL, DAMONCTL_FILTERS_CORE,
		  -EINVAL },
		{ "7.2", "vaddr\n", DAMONCTL_CAPTURE_AUTO, "target", NULL, DAMONCTL_FILTERS_LEGACY,
		  -EINVAL },
		/* kernels */
		{ "6.12", "paddr\n", DAMONCTL_CAPTURE_AUTO, "anon", NULL, DAMONCTL_FILTERS_LEGACY,
		  -EOPNOTSUPP },
		{ "6.14", "vaddr\n", DAMONCTL_CAPTURE_TRIED_REGIONS, "anon", NULL,
		  DAMONCTL_FILTERS_LEGACY, -EOPNOTSUPP },
		{ "6.17", "vaddr\n", DAMONCTL_CAPTURE_AUTO, "anon", NULL, DAMONCTL_FILTERS_OPS,
		  -EOPNOTSUPP },
		{ "6.14", "paddr\n", DAMONCTL_CAPTURE_AUTO, "unmapped", NULL,
		  DAMONCTL_FILTERS_LEGACY, -EOPNOTSUPP },
		/* memcg paths, where the sysroot has a cgroup v2 hierarchy */
		{ "7.2", "paddr\n", DAMONCTL_CAPTURE_AUTO, "memcg", "/no/such", DAMONCTL_FILTERS_OPS,
		  -ENOENT },
		{ "7.2", "paddr\n", DAMONCTL_CAPTURE_AUTO, "memcg", "relative", DAMONCTL_FILTERS_OPS,
		  -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
		struct damonctl_capture *cap = NULL;
		struct damonctl_tree *t;
		struct damonctl_scheme *m = model(&t);
		struct damonctl_filter *f;
		struct damonctl_error e;
		struct sysroot sr;
		char *before, *after, *p;
		int r;

		kernel(&sr, cases[i].kernel, cases[i].ops);
		p = admin_path(&sr, "../../../../fs/cgroup/cgroup.controllers");
		write_file(p, "memory\n");
		free(p);
		f = add(m, cases[i].dir, cases[i].type, true, true);
		if (cases[i].memcg)
			assert_int_equal(damonctl_filter_set_str(f, DAMONCTL_FILTER_MEMCG_PATH,
								 cases[i].memcg), 0);
		o.method = cases[i].method;
		o.allow_foreign = true;
		o.snapshot_filters = m;
		before = dump(sr.dir);
		r = damonctl_capture_open(sr.ctx, 0, &o, &cap);
		after = dump(sr.dir);
		if (r != cases[i].want)
			fail_msg("case %zu (%s %s): %d, not %d", i, cases[i].kernel, cases[i].type, r,
				 cases[i].want);
		assert_null(cap);
		assert_string_equal(before, after);
		if (r == -ENOENT && cases[i].memcg) {
			/* the cgroup that is missing: the directory looked up, the filter's path */
			assert_true(damonctl_last_error(sr.ctx, &e));
			assert_string_equal(e.value, cases[i].memcg);
			assert_non_null(strstr(e.path, "/fs/cgroup/no/such"));
		} else {
			assert_false(damonctl_last_error(sr.ctx, &e));
		}
		free(before);
		free(after);
		damonctl_tree_free(t);
		sysroot_teardown(&sr);
	}
	/* an interval or a duration whose nanoseconds would overflow (a tiny interval after
	 * the wrap, a division by zero): refused before the tree is looked at */
	for (int i = 0; i < 3; i++) {
		struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
		struct damonctl_capture *cap = NULL;
		struct sysroot sr;
		char *before, *after;

		kernel(&sr, "7.2", "vaddr\n");
		o.allow_foreign = true;
		if (i == 0)
			o.interval_us = UINT64_C(9223372036854775808);
		else if (i == 1)
			o.interval_us = UINT64_C(18446744073709552);
		else
			o.duration_us = DAMONCTL_WAIT_MAX_US + 1;
		before = dump(sr.dir);
		assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -ERANGE);
		after = dump(sr.dir);
		assert_null(cap);
		assert_string_equal(before, after);
		free(before);
		free(after);
		sysroot_teardown(&sr);
	}
	/* filters that pass every check: the capture goes on to install its schemes after the
	 * kdamond's one (which these plain files cannot take: the kernel makes a scheme's
	 * directories), so the refusals above were the checks' */
	{
		struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
		struct damonctl_capture *cap = NULL;
		struct damonctl_tree *t;
		struct damonctl_scheme *m = model(&t);
		struct damonctl_error e;
		struct sysroot sr;
		char *p;
		int r;

		kernel(&sr, "7.2", "vaddr\n");
		p = admin_path(&sr, "../../../../fs/cgroup/cgroup.controllers");
		write_file(p, "memory\n");
		free(p);
		p = admin_path(&sr, "../../../../fs/cgroup/a/b/cgroup.procs");
		write_file(p, "");
		free(p);
		assert_int_equal(damonctl_filter_set_str(add(m, DAMONCTL_FILTERS_OPS, "memcg", true,
							     true),
							 DAMONCTL_FILTER_MEMCG_PATH, "/a/b"), 0);
		o.allow_foreign = true;
		o.snapshot_filters = m;
		r = damonctl_capture_open(sr.ctx, 0, &o, &cap);
		assert_true(r < 0);
		assert_true(damonctl_last_error(sr.ctx, &e));
		assert_true(e.write);
		assert_non_null(strstr(e.path, "kdamonds/0/contexts/0/schemes/1/"));
		damonctl_capture_close(cap);
		damonctl_tree_free(t);
		sysroot_teardown(&sr);
	}
	/* a caller built before snapshot_filters: its sz does not cover them, and a trace
	 * capture is asked for as before (refused here for want of tracefs, not -EINVAL) */
	{
		struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
		struct damonctl_capture *cap = NULL;
		struct damonctl_tree *t;
		struct damonctl_scheme *m = model(&t);
		struct sysroot sr;

		kernel(&sr, "7.2", "vaddr\n");
		add(m, DAMONCTL_FILTERS_LEGACY, "addr", true, true);
		o.sz = offsetof(struct damonctl_capture_opts, snapshot_filters);
		o.method = DAMONCTL_CAPTURE_TRACE;
		o.snapshot_filters = m;
		assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -EOPNOTSUPP);
		damonctl_tree_free(t);
		sysroot_teardown(&sr);
	}
}

/* damo's --tried_regions_of (of_scheme): the refusals come before anything is written; a
 * scheme that exists is captured as it is, nothing installed, its snapshots its own, with
 * its ops filters (ops_filters, then filters/'s), its STATS among the items */
static void own_scheme(void **state)
{
	struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_capture *cap = NULL;
	struct damonctl_tree *t;
	struct damonctl_scheme *m = model(&t);
	struct damonctl_error e;
	struct sysroot sr;
	char *before, *after, *p;
	bool snap = false, stats = false;

	(void)state;
	kernel(&sr, "7.2", "vaddr\n");
	before = dump(sr.dir);
	o.allow_foreign = true;
	o.of_scheme = true;
	o.scheme = 1;		/* the kdamond has one */
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -ENOENT);
	o.scheme = 0;
	o.method = DAMONCTL_CAPTURE_TRACE;
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -EINVAL);
	o.method = DAMONCTL_CAPTURE_AUTO;
	add(m, DAMONCTL_FILTERS_OPS, "anon", true, true);
	o.snapshot_filters = m;
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -EINVAL);
	o.allow_foreign = false;
	o.snapshot_filters = NULL;
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), -EPERM);
	assert_null(cap);
	after = dump(sr.dir);
	assert_string_equal(before, after);
	assert_false(damonctl_last_error(sr.ctx, &e));
	free(after);
	/* scheme 0 with an ops filter and one of filters/: both, in the kernel's order */
	p = admin_path(&sr, SCHEME0 "ops_filters/nr_filters");
	write_file(p, "1\n");
	free(p);
	p = admin_path(&sr, SCHEME0 "ops_filters/0/type");
	write_file(p, "young\n");
	free(p);
	p = admin_path(&sr, SCHEME0 "ops_filters/0/matching");
	write_file(p, "Y\n");
	free(p);
	p = admin_path(&sr, SCHEME0 "ops_filters/0/allow");
	write_file(p, "N\n");
	free(p);
	p = admin_path(&sr, SCHEME0 "filters/0/type");
	write_file(p, "anon\n");
	free(p);
	before = (free(before), dump(sr.dir));
	o.allow_foreign = true;
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), 0);
	assert_int_equal(damonctl_capture_get_method(cap), DAMONCTL_CAPTURE_TRIED_REGIONS);
	/* nothing installed: the tree is as it was but for the commands' state file */
	after = dump(sr.dir);
	assert_string_equal(before, after);
	free(after);
	damonctl_capture_close(cap);
	/* its clear_schemes_tried_regions command took the place of "on" in these files */
	p = admin_path(&sr, "kdamonds/0/state");
	write_file(p, "on\n");
	free(p);
	/* targets alive (this process, through the sysroot's /proc), and a region the scheme
	 * tried */
	{
		char proc[4096];

		snprintf(proc, sizeof(proc), "%s/proc", sr.dir);
		assert_int_equal(symlink("/proc", proc), 0);
	}
	for (unsigned int i = 0; i < 2; i++) {
		char rel[96], pid[16];

		snprintf(rel, sizeof(rel), "kdamonds/0/contexts/0/targets/%u/pid_target", i);
		snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		p = admin_path(&sr, rel);
		write_file(p, pid);
		free(p);
	}
	{
		static const char *const region[][2] = { { "start", "4096\n" }, { "end", "8192\n" },
			{ "nr_accesses", "0\n" }, { "age", "3\n" }, { "sz_filter_passed", "0\n" } };

		for (size_t i = 0; i < sizeof(region) / sizeof(region[0]); i++) {
			char rel[96];

			snprintf(rel, sizeof(rel), SCHEME0 "tried_regions/0/%s", region[i][0]);
			p = admin_path(&sr, rel);
			write_file(p, region[i][1]);
			free(p);
		}
		p = admin_path(&sr, SCHEME0 "tried_regions/total_bytes");
		write_file(p, "4096\n");
		free(p);
	}
	o.count = 1;
	assert_int_equal(damonctl_capture_open(sr.ctx, 0, &o, &cap), 0);
	/* a tick: scheme 0's snapshot of the region, its stats */
	while (damonctl_capture_next(cap, &it) == 1) {
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			snap = true;
			assert_int_equal(it.snapshot->scheme, 0);
			assert_string_equal(it.snapshot->ops_filters,
				"[{\"type\":\"young\",\"matching\":true,\"allow\":false},"
				"{\"type\":\"anon\",\"matching\":false,\"allow\":false}]");
		}
		stats |= it.type == DAMONCTL_REC_STATS && it.stats->scheme == 0;
	}
	assert_int_equal(damonctl_capture_close(cap), 0);
	assert_true(snap);
	assert_true(stats);
	free(before);
	damonctl_tree_free(t);
	sysroot_teardown(&sr);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counted),
		cmocka_unit_test(supported),
		cmocka_unit_test(installed),
		cmocka_unit_test(open_refusals),
		cmocka_unit_test(own_scheme),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
