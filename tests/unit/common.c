// SPDX-License-Identifier: LGPL-2.1-or-later
/* Shared helpers of the unit tests. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

const char *fixtures_dir = "tests/fixtures";

void unit_init(int argc, char **argv)
{
	if (argc > 1)
		fixtures_dir = argv[1];
	/* the library reads $DAMONC_SYSROOT in damonctl_new(): tests set their own roots */
	unsetenv("DAMONC_SYSROOT");
}

char *tmpdir_new(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	assert_true(asprintf(&dir, "%s/damonc-unit.XXXXXX", base) > 0);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tmpdir_remove(char *dir)
{
	if (!dir)
		return;
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
}

/* mkdir -p: the parents only when the directory itself cannot be made */
static void mkdirs(const char *path)
{
	char parent[PATH_MAX], *slash;

	if (!mkdir(path, 0755) || errno == EEXIST)
		return;
	assert_int_equal(errno, ENOENT);
	assert_true(dctl_fmt(parent, sizeof(parent), "%s", path));
	slash = strrchr(parent, '/');
	assert_true(slash && slash != parent);
	*slash = '\0';
	mkdirs(parent);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void write_mode(const char *path, const char *content, unsigned int mode)
{
	char dir[PATH_MAX], *slash;
	size_t len = strlen(content);
	int fd;

	assert_true(dctl_fmt(dir, sizeof(dir), "%s", path));
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdirs(dir);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

void write_file(const char *path, const char *content)
{
	write_mode(path, content, 0600);
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

char *fixture_text(const char *rel)
{
	char path[PATH_MAX];
	char *s;

	assert_true(dctl_fmt(path, sizeof(path), "%s/%s", fixtures_dir, rel));
	s = slurp(path);
	if (!s)
		fail_msg("cannot read fixture %s", path);
	return s;
}

/* ---- kernel-tree captures ---- */

static void add_entry(struct ftree *t, const char *path, const char *value, bool dir,
		      unsigned int mode)
{
	struct fentry *e;

	t->e = realloc(t->e, (t->n + 1) * sizeof(*t->e));
	assert_non_null(t->e);
	e = &t->e[t->n++];
	e->path = strdup(path);
	e->value = value ? strdup(value) : NULL;
	e->dir = dir;
	e->mode = mode;
	assert_non_null(e->path);
}

void ftree_load(const char *name, struct ftree *t)
{
	char rel[PATH_MAX], *text, *line, *save = NULL;

	memset(t, 0, sizeof(*t));
	assert_true(dctl_fmt(rel, sizeof(rel), "kernel-trees/%s", name));
	text = fixture_text(rel);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind, path[PATH_MAX], *eq, *p;
		unsigned int mode;
		int off = 0;

		if (line[0] != 'F' && line[0] != 'D')
			continue;	/* comments */
		if (sscanf(line, "%c %o %n", &kind, &mode, &off) != 2 || !off)
			fail_msg("bad capture line in %s: %s", name, line);
		eq = strstr(line + off, " = ");
		if (eq)
			*eq = '\0';
		assert_true(dctl_fmt(path, sizeof(path), "%s", line + off));
		/* the admin directory itself is listed with its absolute path */
		if (path[0] == '/')
			continue;
		if (eq)
			for (p = eq + 3; *p; p++)
				if (*p == '|')
					*p = '\n';
		add_entry(t, path, eq ? eq + 3 : NULL, kind == 'D', mode);
	}
	free(text);
}

void ftree_free(struct ftree *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->e[i].path);
		free(t->e[i].value);
	}
	free(t->e);
	memset(t, 0, sizeof(*t));
}

const struct fentry *ftree_find(const struct ftree *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].path, path))
			return &t->e[i];
	return NULL;
}

/* Numbered directories right under @dir, as directory entries or parents of files. */
static unsigned int count_children(const struct ftree *t, const char *dir)
{
	unsigned int seen[256] = { 0 }, n = 0;
	size_t i, len = strlen(dir);

	for (i = 0; i < t->n; i++) {
		const char *p = t->e[i].path;
		char *end;
		unsigned long idx;

		if (strncmp(p, dir, len) || p[len] != '/' || !isdigit((unsigned char)p[len + 1]))
			continue;
		idx = strtoul(p + len + 1, &end, 10);
		if ((*end && *end != '/') || idx >= ARRAY_SIZE(seen))
			continue;
		if (!seen[idx]++)
			n++;
	}
	return n;
}

/*
 * The defaults of docs/damon-abi.md section 2, as a kernel reads them back (one value and a
 * newline), by the end of the path: longer, more specific entries first.
 */
static const struct { const char *suffix, *value; } abi_defaults[] = {
	{ "monitoring_attrs/nr_regions/min", "10\n" },
	{ "monitoring_attrs/nr_regions/max", "1000\n" },
	{ "intervals/sample_us", "5000\n" },
	{ "intervals/aggr_us", "100000\n" },
	{ "intervals/update_us", "60000000\n" },
	{ "state", "off\n" }, { "pid", "-1\n" }, { "refresh_ms", "0\n" },
	/* registered operations sets in the kernel's order; hosts differ (see overrides) */
	{ "avail_operations", "vaddr\nfvaddr\npaddr\n" },
	{ "operations", "vaddr\n" }, { "addr_unit", "1\n" }, { "pause", "N\n" },
	{ "access_bp", "0\n" }, { "aggrs", "0\n" }, { "min_sample_us", "0\n" },
	{ "max_sample_us", "0\n" },
	{ "pid_target", "0\n" }, { "obsolete_target", "N\n" }, { "start", "0\n" }, { "end", "0\n" },
	{ "action", "stat\n" }, { "apply_interval_us", "0\n" }, { "target_nid", "-1\n" },
	{ "min", "0\n" }, { "max", "0\n" },
	{ "ms", "0\n" }, { "bytes", "0\n" }, { "reset_interval_ms", "0\n" },
	{ "effective_bytes", "0\n" }, { "goal_tuner", "consist\n" },
	{ "fail_charge_num", "0\n" }, { "fail_charge_denom", "0\n" },
	{ "sz_permil", "0\n" }, { "nr_accesses_permil", "0\n" }, { "age_permil", "0\n" },
	{ "target_metric", "user_input\n" }, { "target_value", "0\n" }, { "current_value", "0\n" },
	{ "nid", "0\n" }, { "path", "\n" },
	{ "watermarks/metric", "none\n" }, { "interval_us", "0\n" }, { "high", "0\n" },
	{ "mid", "0\n" }, { "low", "0\n" },
	{ "type", "anon\n" }, { "matching", "N\n" }, { "allow", "N\n" }, { "memcg_path", "\n" },
	{ "addr_start", "0\n" }, { "addr_end", "0\n" }, { "damon_target_idx", "0\n" },
	{ "id", "0\n" }, { "weight", "0\n" },
	{ "nr_tried", "0\n" }, { "sz_tried", "0\n" }, { "nr_applied", "0\n" },
	{ "sz_applied", "0\n" }, { "sz_ops_filter_passed", "0\n" }, { "qt_exceeds", "0\n" },
	{ "nr_snapshots", "0\n" }, { "max_nr_snapshots", "0\n" }, { "total_bytes", "0\n" },
};

const char *abi_default(const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < ARRAY_SIZE(abi_defaults); i++) {
		size_t m = strlen(abi_defaults[i].suffix);

		if (n >= m && !strcmp(path + n - m, abi_defaults[i].suffix) &&
		    (n == m || path[n - m - 1] == '/'))
			return abi_defaults[i].value;
	}
	return NULL;
}

void ftree_materialise(const struct ftree *t, const char *sysroot, const char *const *overrides)
{
	char admin[PATH_MAX], path[PATH_MAX];
	size_t i;

	assert_true(dctl_fmt(admin, sizeof(admin), "%s/sys/kernel/mm/damon/admin", sysroot));
	mkdirs(admin);
	for (i = 0; i < t->n; i++) {
		const struct fentry *e = &t->e[i];
		const char *value = e->value, *base = strrchr(e->path, '/');
		char nr[32];
		unsigned int k;

		assert_true(dctl_fmt(path, sizeof(path), "%s/%s", admin, e->path));
		if (e->dir) {
			mkdirs(path);
			continue;
		}
		for (k = 0; overrides && overrides[k]; k += 2)
			if (!strcmp(overrides[k], e->path))
				value = overrides[k + 1];
		base = base ? base + 1 : e->path;
		if (!value && !strncmp(base, "nr_", 3)) {
			char dir[PATH_MAX];

			/* nr_X counts the numbered directories beside it */
			assert_true(dctl_fmt(dir, sizeof(dir), "%.*s", (int)(base - e->path - 1),
					     e->path));
			snprintf(nr, sizeof(nr), "%u\n", count_children(t, dir));
			value = nr;
		}
		if (!value)
			value = abi_default(e->path);
		if (!value)
			fail_msg("no ABI default for %s: add it to abi_defaults", e->path);
		write_mode(path, value, e->mode);
	}
}

void modules_materialise(const char *behaviour, const char *sysroot)
{
	char rel[PATH_MAX], *text, *line, *save = NULL;

	assert_true(dctl_fmt(rel, sizeof(rel), "kernel-trees/%s", behaviour));
	text = fixture_text(rel);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char module[PATH_MAX], *params, *tok, *save2 = NULL;

		if (strncmp(line, "MODULE /sys/module/", 19))
			continue;
		params = strstr(line, " params:");
		assert_non_null(params);
		assert_true(dctl_fmt(module, sizeof(module), "%.*s", (int)(params - line - 19),
				     line + 19));
		for (tok = strtok_r(params + 8, " ", &save2); tok;
		     tok = strtok_r(NULL, " ", &save2)) {
			char path[PATH_MAX];

			assert_true(dctl_fmt(path, sizeof(path), "%s/sys/module/%s/parameters/%s",
					     sysroot, module, tok));
			write_file(path, "");
		}
	}
	free(text);
}

void sysroot_setup(struct sysroot *s, const char *name, const char *behaviour,
		   const char *const *overrides)
{
	memset(s, 0, sizeof(*s));
	s->dir = tmpdir_new();
	assert_int_equal(damonctl_new(&s->ctx), 0);
	assert_int_equal(damonctl_set_sysroot(s->ctx, s->dir), 0);
	if (name) {
		ftree_load(name, &s->tree);
		ftree_materialise(&s->tree, s->dir, overrides);
	}
	if (behaviour)
		modules_materialise(behaviour, s->dir);
}

void sysroot_teardown(struct sysroot *s)
{
	damonctl_free(s->ctx);
	ftree_free(&s->tree);
	tmpdir_remove(s->dir);
	memset(s, 0, sizeof(*s));
}

char *admin_path(const struct sysroot *s, const char *rel)
{
	char *p;

	assert_true(asprintf(&p, "%s/sys/kernel/mm/damon/admin/%s", s->dir, rel) > 0);
	return p;
}

/* ---- models ---- */

void obj_path(const struct dobj *o, char *buf, size_t size)
{
	const struct dobj *p = o->parent;
	char parent[PATH_MAX];
	unsigned int l;

	if (!p) {
		buf[0] = '\0';
		return;
	}
	obj_path(p, parent, sizeof(parent));
	for (l = 0; l < dctl_kinds[p->kind].nr_lists; l++) {
		if (o->index < p->lists[l].nr && p->lists[l].items[o->index] == o) {
			dctl_fmt(buf, size, "%s%s%s/%u", parent, *parent ? "/" : "",
				 dctl_kinds[p->kind].lists[l].dir, o->index);
			return;
		}
	}
	fail_msg("object not in its parent's lists");
}

void assert_models_equal(const struct dobj *a, const struct dobj *b)
{
	const struct kind_desc *kd = &dctl_kinds[a->kind];
	char where[PATH_MAX];
	unsigned int i, l;

	obj_path(a, where, sizeof(where));
	assert_int_equal(a->kind, b->kind);
	for (i = 0; i < kd->nr_attrs; i++) {
		char va[256], vb[256];

		if (kd->attrs[i].flags & A_RO || dobj_val_equal(a, b, i))
			continue;
		dobj_format(a, i, va, sizeof(va));
		dobj_format(b, i, vb, sizeof(vb));
		fail_msg("%s/%s: '%s' != '%s'", where, kd->attrs[i].file, va, vb);
	}
	for (l = 0; l < kd->nr_lists; l++) {
		if (kd->lists[l].flags & A_RO)
			continue;
		if (a->lists[l].nr != b->lists[l].nr)
			fail_msg("%s/%s: %u != %u entries", where, kd->lists[l].dir,
				 a->lists[l].nr, b->lists[l].nr);
		for (i = 0; i < a->lists[l].nr; i++)
			assert_models_equal(a->lists[l].items[i], b->lists[l].items[i]);
	}
}

struct damonctl_tree *json_ok(const char *doc)
{
	struct damonctl_tree *t = NULL;
	char why[512] = "";
	int r = damonctl_tree_from_json(doc, &t, why, sizeof(why));

	if (r)
		fail_msg("damonctl_tree_from_json: %d (%s)", r, why);
	assert_non_null(t);
	return t;
}

const char *json_fails(const char *doc, int err)
{
	static char why[512];
	struct damonctl_tree *t = NULL;
	int r;

	why[0] = '\0';
	r = damonctl_tree_from_json(doc, &t, why, sizeof(why));
	if (r != err)
		fail_msg("expected %d, got %d (%s)", err, r, why);
	assert_null(t);
	assert_true(why[0] != '\0');
	return why;
}
