// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fault rules, one per line, words of key=value:
 *   path=GLOB    the write's path (relative to the mount point) matches GLOB (fnmatch(3),
 *                '*' also matches '/'); default: every path
 *   value=VALUE  what was written, less one trailing newline, equals VALUE (double quotes
 *                allow spaces and \n \t \\ \" escapes); default: any value
 *   nth=K        only the K-th matching write (from when the file was loaded) fails
 *   times=N      fail at most N times; default: no limit (1 with nth=)
 *   errno=E      the error: a name (EBUSY) or a number; required unless kill= is given
 *   kill=WHEN    SIGKILL the writing process: "before" the write (which then does not
 *                happen) or "after" it (the write is done; the process dies before it
 *                learns so): the kill -9 of a tool at an exact point of its write sequence
 * The first rule that matches a write decides. An unreadable or invalid file makes every
 * write fail with EIO (and says why on stderr) so that a typo cannot pass unnoticed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "faults.h"
#include "util.h"

struct rule {
	char *glob;
	char *value;
	long nth;		/* 0: every matching write */
	long times;		/* -1: unlimited */
	int err;
	long seen;		/* matching writes so far */
	long fired;
	int kill;		/* EMU_FAULT_KILL_* */
};

struct emu_fault_rules {
	struct rule *r;
	int n;
	bool broken;		/* the file did not parse: fail everything with EIO */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *file_path;
static struct emu_fault_rules *rules;
static struct stat loaded;
static bool have_loaded;

void emu_faults_free(struct emu_fault_rules *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < rs->n; i++) {
		free(rs->r[i].glob);
		free(rs->r[i].value);
	}
	free(rs->r);
	free(rs);
}

/* One word, possibly double-quoted with escapes; advances *p. NULL at end of line. */
static char *next_word(const char **p, bool *bad)
{
	const char *s = *p;
	char *out, *o;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#') {
		*p = s;
		return NULL;
	}
	out = o = emu_xcalloc(strlen(s) + 1, 1);
	while (*s && *s != ' ' && *s != '\t') {
		if (*s != '"') {
			*o++ = *s++;
			continue;
		}
		for (s++; *s && *s != '"'; s++) {
			if (*s != '\\') {
				*o++ = *s;
				continue;
			}
			s++;
			switch (*s) {
			case 'n': *o++ = '\n'; break;
			case 't': *o++ = '\t'; break;
			case '\\': *o++ = '\\'; break;
			case '"': *o++ = '"'; break;
			default: *bad = true; break;
			}
			if (!*s)
				break;
		}
		if (*s != '"')
			*bad = true;
		else
			s++;
	}
	*p = s;
	return out;
}

static bool parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && end != s && !*end && *v > 0;
}

static int parse_line(const char *line, struct rule *r, char *err, size_t errsize)
{
	const char *p = line;
	char *w;
	bool bad = false;
	bool any = false;

	memset(r, 0, sizeof(*r));
	r->times = -1;
	while ((w = next_word(&p, &bad))) {
		char *eq = strchr(w, '=');
		const char *val;

		any = true;
		if (!eq || bad) {
			snprintf(err, errsize, "'%s' is not key=value", w);
			free(w);
			return -1;
		}
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(w, "path") && !r->glob) {
			r->glob = emu_xstrdup(val);
		} else if (!strcmp(w, "value") && !r->value) {
			r->value = emu_xstrdup(val);
		} else if (!strcmp(w, "nth") && parse_long(val, &r->nth)) {
		} else if (!strcmp(w, "times") && parse_long(val, &r->times)) {
		} else if (!strcmp(w, "errno") && (r->err = emu_errno_parse(val)) > 0) {
		} else if (!strcmp(w, "kill") && !r->kill && (!strcmp(val, "before") ||
							     !strcmp(val, "after"))) {
			r->kill = !strcmp(val, "before") ? EMU_FAULT_KILL_BEFORE :
				  EMU_FAULT_KILL_AFTER;
		} else {
			snprintf(err, errsize, "bad or repeated '%s=%s'", w, val);
			free(w);
			return -1;
		}
		free(w);
	}
	if (!any)
		return 0;
	if (r->err <= 0 && r->kill == EMU_FAULT_KILL_BEFORE)
		r->err = EINTR;		/* what the dying writer would see, if it could */
	if (r->err <= 0 && !r->kill) {
		snprintf(err, errsize, "no errno= (or kill=)");
		return -1;
	}
	if (r->kill == EMU_FAULT_KILL_AFTER && r->err > 0) {
		snprintf(err, errsize, "kill=after makes the write succeed: no errno=");
		return -1;
	}
	if (r->nth && r->times < 0)
		r->times = 1;
	return 1;
}

struct emu_fault_rules *emu_faults_parse(const char *text, char *err, size_t errsize)
{
	struct emu_fault_rules *rs = emu_xcalloc(1, sizeof(*rs));
	int lineno = 0;

	while (*text) {
		size_t len = strcspn(text, "\n");
		char *line = emu_xcalloc(len + 1, 1);
		struct rule r;
		char msg[160];
		int got;

		memcpy(line, text, len);
		text += len + (text[len] == '\n');
		lineno++;
		got = parse_line(line, &r, msg, sizeof(msg));
		free(line);
		if (got < 0) {
			snprintf(err, errsize, "line %d: %s", lineno, msg);
			free(r.glob);
			free(r.value);
			emu_faults_free(rs);
			return NULL;
		}
		if (got) {
			rs->r = emu_xrealloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
			rs->r[rs->n++] = r;
		}
	}
	return rs;
}

static bool value_matches(const char *want, const char *value)
{
	size_t len = strlen(value);

	if (len && value[len - 1] == '\n')
		len--;
	return strlen(want) == len && !strncmp(want, value, len);
}

int emu_faults_match(struct emu_fault_rules *rs, const char *path, const char *value, int *kill)
{
	if (kill)
		*kill = 0;
	if (!rs)
		return 0;
	if (rs->broken)
		return EIO;
	for (int i = 0; i < rs->n; i++) {
		struct rule *r = &rs->r[i];

		if (r->glob && fnmatch(r->glob, path, 0))
			continue;
		if (r->value && !value_matches(r->value, value))
			continue;
		r->seen++;
		if (r->nth && r->seen != r->nth)
			continue;
		if (r->times >= 0 && r->fired >= r->times)
			continue;
		r->fired++;
		if (kill)
			*kill = r->kill;
		return r->kill == EMU_FAULT_KILL_AFTER ? 0 : r->err;
	}
	return 0;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = emu_xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Reload when the file changed (or appeared/disappeared). Caller holds the lock. */
static void refresh(void)
{
	struct stat st;
	char *text, err[200];

	if (stat(file_path, &st)) {
		/* no file, no faults */
		emu_faults_free(rules);
		rules = NULL;
		have_loaded = false;
		return;
	}
	if (have_loaded && same_file(&st, &loaded))
		return;
	emu_faults_free(rules);
	rules = NULL;
	loaded = st;
	have_loaded = true;
	text = slurp(file_path);
	if (text)
		rules = emu_faults_parse(text, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "cannot read: %s", strerror(errno));
	if (!rules) {
		fprintf(stderr, "damon-emu: fault file %s: %s; every write fails with EIO\n",
			file_path, err);
		rules = emu_xcalloc(1, sizeof(*rules));
		rules->broken = true;
	}
	free(text);
}

void emu_faults_init(const char *path)
{
	file_path = path;
}

int emu_faults_check(const char *path, const char *value, int *kill)
{
	int err;

	if (kill)
		*kill = 0;
	if (!file_path)
		return 0;
	pthread_mutex_lock(&lock);
	refresh();
	err = emu_faults_match(rules, path, value, kill);
	pthread_mutex_unlock(&lock);
	return err;
}

void emu_faults_exit(void)
{
	pthread_mutex_lock(&lock);
	emu_faults_free(rules);
	rules = NULL;
	have_loaded = false;
	pthread_mutex_unlock(&lock);
}
