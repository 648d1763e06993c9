// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running a script: every step prints one transcript line in the style of the behaviour
 * logs (tests/fixtures/kernel-trees/behaviour-*.txt); each unmet expectation is printed
 * again at the end as a diff of expected against got.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "conform.h"

struct var {
	char name[32];
	char value[128];
};

struct runner {
	const struct script *s;
	const struct run_opts *o;
	struct var vars[64];
	int nvars;
	char **diffs;
	int ndiffs;
	int steps, skipped;
};

static void set_var(struct runner *r, const char *name, const char *value)
{
	int i;

	for (i = 0; i < r->nvars; i++) {
		if (!strcmp(r->vars[i].name, name))
			break;
	}
	if (i == r->nvars) {
		if (r->nvars == 64)
			return;
		r->nvars++;
	}
	snprintf(r->vars[i].name, sizeof(r->vars[i].name), "%s", name);
	snprintf(r->vars[i].value, sizeof(r->vars[i].value), "%s", value);
}

static const char *get_var(struct runner *r, const char *name)
{
	for (int i = 0; i < r->nvars; i++) {
		if (!strcmp(r->vars[i].name, name))
			return r->vars[i].value;
	}
	return NULL;
}

/* "$$" is a '$', "$NAME" the variable; an unknown variable expands to nothing. */
static char *expand(struct runner *r, const char *t)
{
	size_t cap = strlen(t) + 1;
	char *out, *o;

	for (const char *p = t; *p; p++)
		cap += *p == '$' ? 128 : 0;
	out = o = malloc(cap);
	if (!out)
		exit(2);
	while (*t) {
		char name[32];
		size_t n = 0;
		const char *v;

		if (*t != '$') {
			*o++ = *t++;
			continue;
		}
		if (t[1] == '$') {
			*o++ = '$';
			t += 2;
			continue;
		}
		for (t++; (isalnum((unsigned char)*t) || *t == '_') && n < sizeof(name) - 1; t++)
			name[n++] = *t;
		name[n] = '\0';
		v = get_var(r, name);
		if (v) {
			strcpy(o, v);
			o += strlen(v);
		}
	}
	*o = '\0';
	return out;
}

/* Expand @rel into @shown and make it absolute under @base into @buf. */
static void full_path(struct runner *r, const char *base, const char *rel, char *buf,
		      size_t size, char *shown, size_t shown_size)
{
	char *e = expand(r, rel);

	if (e[0] == '/')
		snprintf(buf, size, "%s", e);
	else
		snprintf(buf, size, "%s/%s", base, e);
	snprintf(shown, shown_size, "%s", e);
	free(e);
}

/* Newlines shown as '|', as in the logs. */
static char *display(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (!d)
		exit(2);
	for (size_t i = 0; i < len; i++)
		d[i] = s[i] == '\n' ? '|' : s[i];
	d[len] = '\0';
	return d;
}

static void quote(const char *v, char *buf, size_t size)
{
	size_t o = 0;

	for (; *v && o + 5 < size; v++) {
		if (*v == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *v;
		}
	}
	buf[o] = '\0';
}

static void add_diff(struct runner *r, const struct step *st, const char *expected,
		     const char *got)
{
	char *d;
	size_t n = strlen(st->text) + strlen(expected) + strlen(got) + 64;

	d = malloc(n);
	if (!d)
		exit(2);
	snprintf(d, n, "@@ %s:%d: %s\n-%s\n+%s\n", r->s->file, st->line, st->text, expected,
		 got);
	r->diffs = realloc(r->diffs, (r->ndiffs + 1) * sizeof(*r->diffs));
	if (!r->diffs)
		exit(2);
	r->diffs[r->ndiffs++] = d;
}

static const char *op_str(enum cmp_op op)
{
	static const char *const s[] = { "=", "!=", ">", ">=", "<", "<=", "~", "=>" };

	return s[op];
}

/* Numeric comparison, signed when either side is negative. */
static int num_cmp(const char *a, const char *b, bool *ok)
{
	char *ea, *eb;

	*ok = true;
	if (a[0] == '-' || b[0] == '-') {
		long long x = strtoll(a, &ea, 0), y = strtoll(b, &eb, 0);

		*ok = ea != a && eb != b && (!*ea || *ea == '|') && !*eb;
		return x < y ? -1 : x > y;
	} else {
		unsigned long long x = strtoull(a, &ea, 0), y = strtoull(b, &eb, 0);

		*ok = ea != a && eb != b && (!*ea || *ea == '|') && !*eb;
		return x < y ? -1 : x > y;
	}
}

static bool compare(enum cmp_op op, const char *got, const char *want)
{
	bool ok;
	int c;

	switch (op) {
	case OP_EQ:
		return !strcmp(got, want);
	case OP_NE:
		return strcmp(got, want) != 0;
	case OP_HAS:
		return strstr(got, want) != NULL;
	default:
		break;
	}
	c = num_cmp(got, want, &ok);
	if (!ok)
		return false;
	switch (op) {
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	default: return false;
	}
}

/* A read step; fills @line with what happened. */
static bool do_read(struct runner *r, const struct step *st, char *line, size_t size,
		    char *expect, size_t esize)
{
	char path[PATH_MAX], rel[PATH_MAX], *val, *want = NULL;
	size_t len;
	int err;
	bool ok;

	full_path(r, r->o->root, st->path, path, sizeof(path), rel, sizeof(rel));
	err = sys_read(path, &val, &len);
	if (st->op == OP_ERR) {
		snprintf(expect, esize, "R %s => %s", rel, errno_name(st->err));
	} else {
		want = expand(r, st->value);
		snprintf(expect, esize, "R %s %s %s", rel, op_str(st->op), want);
	}
	if (err) {
		snprintf(line, size, "R %s => %s", rel, errno_name(err));
		ok = st->op == OP_ERR && err == st->err;
	} else {
		char *d = display(val, len);

		snprintf(line, size, "R %s = %s", rel, d);
		ok = st->op != OP_ERR && compare(st->op, d, want);
		/* equal expectations print like the logs; others keep their operator */
		if (ok && st->op != OP_EQ)
			snprintf(line, size, "R %s = %s  (%s %s)", rel, d, op_str(st->op), want);
		free(d);
		free(val);
	}
	free(want);
	return ok;
}

static bool do_write(struct runner *r, const struct step *st, const char *base, char *line,
		     size_t size, char *expect, size_t esize)
{
	char path[PATH_MAX], rel[PATH_MAX], q[512];
	char *val = expand(r, st->value);
	int err;

	full_path(r, base, st->path, path, sizeof(path), rel, sizeof(rel));
	err = sys_write(path, val, strlen(val));
	quote(val, q, sizeof(q));
	if (err)
		snprintf(line, size, "W FAIL %s <= '%s': %s", rel, q, strerror(err));
	else
		snprintf(line, size, "W ok   %s <= '%s'", rel, q);
	if (st->err)
		snprintf(expect, esize, "W FAIL %s <= '%s': %s", rel, q, strerror(st->err));
	else
		snprintf(expect, esize, "W ok   %s <= '%s'", rel, q);
	free(val);
	return err == st->err;
}

static int count_numbered(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		const char *c = e->d_name;

		if (!*c)
			continue;
		while (*c >= '0' && *c <= '9')
			c++;
		n += !*c;
	}
	closedir(d);
	return n;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Stop every kdamond and remove them: a clean tree for the next script. */
static int reset_tree(struct runner *r, char *line, size_t size)
{
	char path[PATH_MAX], *val;
	size_t len;
	int n, err;

	snprintf(path, sizeof(path), "%s/kdamonds", r->o->root);
	n = count_numbered(path);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/kdamonds/%d/state", r->o->root, i);
		if (sys_read(path, &val, &len))
			continue;
		if (!strcmp(val, "on\n"))
			sys_write(path, "off", 3);
		free(val);
	}
	snprintf(path, sizeof(path), "%s/kdamonds/nr_kdamonds", r->o->root);
	err = sys_write(path, "0", 1);
	if (err)
		snprintf(line, size, "reset: nr_kdamonds <= 0: %s", strerror(err));
	else
		snprintf(line, size, "reset");
	return err;
}

static bool run_step(struct runner *r, const struct step *st)
{
	char line[8192], expect[8192], path[PATH_MAX], rel[PATH_MAX];
	struct stat sb;
	bool ok = true;

	expect[0] = '\0';
	switch (st->kind) {
	case ST_WRITE:
		ok = do_write(r, st, r->o->root, line, sizeof(line), expect, sizeof(expect));
		break;
	case ST_MODWRITE:
		ok = do_write(r, st, r->o->modules, line, sizeof(line), expect, sizeof(expect));
		line[0] = 'M';
		expect[0] = 'M';
		break;
	case ST_READ:
		ok = do_read(r, st, line, sizeof(line), expect, sizeof(expect));
		break;
	case ST_EXISTS:
	case ST_ABSENT: {
		bool there;

		full_path(r, r->o->root, st->path, path, sizeof(path), rel, sizeof(rel));
		there = !lstat(path, &sb);
		snprintf(line, sizeof(line), "%s %s", there ? "exists" : "absent", rel);
		snprintf(expect, sizeof(expect), "%s %s",
			 st->kind == ST_EXISTS ? "exists" : "absent", rel);
		ok = there == (st->kind == ST_EXISTS);
		break;
	}
	case ST_COUNT: {
		char got[16];

		full_path(r, r->o->root, st->path, path, sizeof(path), rel, sizeof(rel));
		snprintf(got, sizeof(got), "%d", count_numbered(path));
		snprintf(line, sizeof(line), "count %s = %s", rel, got);
		snprintf(expect, sizeof(expect), "count %s %s %s", rel, op_str(st->op),
			 st->value);
		ok = compare(st->op, got, st->value);
		break;
	}
	case ST_SPAWN: {
		pid_t pid = proc_spawn(st->what, st->size);
		char v[32];

		snprintf(v, sizeof(v), "%d", (int)pid);
		set_var(r, st->name, v);
		snprintf(line, sizeof(line), "spawn %s (%s) = %d", st->name, st->what, (int)pid);
		snprintf(expect, sizeof(expect), "spawn %s", st->name);
		ok = pid > 0;
		break;
	}
	case ST_KILL: {
		const char *v = get_var(r, st->name);

		ok = v && !proc_kill((pid_t)atoi(v));
		snprintf(line, sizeof(line), "kill %s%s", st->name, ok ? "" : ": no such child");
		snprintf(expect, sizeof(expect), "kill %s", st->name);
		break;
	}
	case ST_WAIT: {
		double start = now_s();

		for (;;) {
			ok = do_read(r, st->inner, line, sizeof(line), expect, sizeof(expect));
			if (ok || now_s() - start >= st->timeout)
				break;
			sleep_s(0.05);
		}
		{
			char tmp[8192];

			snprintf(tmp, sizeof(tmp), "%s  (waited %.2fs)", line, now_s() - start);
			snprintf(line, sizeof(line), "%s", tmp);
			snprintf(tmp, sizeof(tmp), "%s  (within %gs)", expect, st->timeout);
			snprintf(expect, sizeof(expect), "%s", tmp);
		}
		break;
	}
	case ST_SLEEP:
		sleep_s(st->timeout);
		snprintf(line, sizeof(line), "sleep %gs", st->timeout);
		break;
	case ST_SAVE: {
		char *val;
		size_t len;
		int err;

		full_path(r, r->o->root, st->path, path, sizeof(path), rel, sizeof(rel));
		err = sys_read(path, &val, &len);
		if (err) {
			snprintf(line, sizeof(line), "save %s: R %s => %s", st->name, rel,
				 errno_name(err));
			snprintf(expect, sizeof(expect), "save %s <= %s", st->name, rel);
			ok = false;
			break;
		}
		if (len && val[len - 1] == '\n')
			val[--len] = '\0';
		set_var(r, st->name, val);
		snprintf(line, sizeof(line), "save %s = %s", st->name, val);
		free(val);
		break;
	}
	case ST_RESET:
		ok = !reset_tree(r, line, sizeof(line));
		snprintf(expect, sizeof(expect), "reset");
		break;
	case ST_SET: {
		char *v = expand(r, st->value);

		set_var(r, st->name, v);
		free(v);
		/* definitions are not part of the transcript */
		return true;
	}
	}
	printf("%s%s\n", line, ok ? "" : "    <-- MISMATCH");
	if (!ok)
		add_diff(r, st, expect, line);
	return ok;
}

int script_run(const struct script *s, const struct run_opts *o)
{
	struct runner r = { .s = s, .o = o };
	char line[512];
	int c = kver_cond(s->require, &o->kernel);

	printf("=== %s (kernel %d.%d%s)\n", s->file, o->kernel.v / 100, o->kernel.v % 100,
	       o->kernel.next ? " next" : "");
	if (c <= 0) {
		printf("SKIP %s: requires %s\n", s->file, s->require);
		return 0;
	}
	for (int i = 0; i < s->n; i++) {
		const struct step *st = &s->steps[i];

		if (kver_cond(st->conds, &o->kernel) <= 0) {
			r.skipped++;
			if (o->verbose)
				printf("- line %d not for this kernel: [%s]\n", st->line, st->conds);
			continue;
		}
		r.steps++;
		run_step(&r, st);
		fflush(stdout);
	}
	proc_kill_all();
	if (!o->keep && reset_tree(&r, line, sizeof(line)))
		printf("warning: %s\n", line);
	if (r.ndiffs) {
		printf("--- expected\n+++ got\n");
		for (int i = 0; i < r.ndiffs; i++) {
			fputs(r.diffs[i], stdout);
			free(r.diffs[i]);
		}
	}
	free(r.diffs);
	printf("RESULT %s: %s (%d steps, %d mismatches, %d not for this kernel)\n", s->file,
	       r.ndiffs ? "FAIL" : "ok", r.steps, r.ndiffs, r.skipped);
	return r.ndiffs ? 1 : 0;
}
