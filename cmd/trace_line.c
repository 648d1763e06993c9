// SPDX-License-Identifier: GPL-2.0-or-later
/* One line of DAMON trace output (see trace_line.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_line.h"

#define MAX_WORDS 256

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "123.456789:" -> ns */
static bool parse_ts(const char *w, uint64_t *ns)
{
	const char *dot = strchr(w, '.');
	size_t len = strlen(w), frac;
	uint64_t v = 0;

	if (!dot || len < 4 || w[len - 1] != ':' || !all_digits(w, (size_t)(dot - w)))
		return false;
	frac = len - 1 - (size_t)(dot - w) - 1;
	if (!all_digits(dot + 1, frac) || frac > 9 || dot - w > 11)
		return false;
	v = strtoull(w, NULL, 10) * 1000000000ull;
	for (size_t i = 0, scale = 100000000; i < 9; i++, scale /= 10)
		if (i < frac)
			v += (uint64_t)(dot[1 + i] - '0') * scale;
	*ns = v;
	return true;
}

static void copy(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "kdamond.0-174" (one word), "kdamond.0 174" (perf script: two); a task name may hold
 * spaces and dashes, the pid is after the last dash. */
static int parse_task(char **w, unsigned int n, struct tline *t)
{
	char joined[128] = "";
	char *dash;

	if (n == 2 && all_digits(w[1], strlen(w[1]))) {
		copy(t->task, sizeof(t->task), w[0], strlen(w[0]));
		t->pid = atoi(w[1]);
		return 0;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (i)
			strncat(joined, " ", sizeof(joined) - strlen(joined) - 1);
		strncat(joined, w[i], sizeof(joined) - strlen(joined) - 1);
	}
	dash = strrchr(joined, '-');
	if (!dash || !all_digits(dash + 1, strlen(dash + 1)))
		return -EINVAL;
	copy(t->task, sizeof(t->task), joined, (size_t)(dash - joined));
	t->pid = atoi(dash + 1);
	return 0;
}

static struct tline_field *add_field(struct tline *t, const char *key, size_t n)
{
	struct tline_field *f;

	if (t->nr == TLINE_MAX_FIELDS)
		return NULL;
	f = &t->f[t->nr++];
	memset(f, 0, sizeof(*f));
	copy(f->key, sizeof(f->key), key, n);
	return f;
}

/* A number of the field: probe_hits are printed in hex, everything else in decimal. */
static bool number(const struct tline_field *f, const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoull(s, &end, strcmp(f->key, "probe_hits") ? 10 : 16);
	return !errno && !*end;
}

static void set_number(struct tline *t, const char *key, uint64_t v)
{
	struct tline_field *f = add_field(t, key, strlen(key));

	if (f) {
		f->v[0] = v;
		f->n = 1;
	}
}

/* The words after the event's name. */
static void parse_fields(char **w, unsigned int n, struct tline *t)
{
	struct tline_field *last = NULL;
	unsigned int region = 0;	/* numbers still due after "START-END:" */
	const char *names[] = { "nr_accesses", "age" };

	for (unsigned int i = 0; i < n; i++) {
		char *eq = strchr(w[i], '='), *dash = strchr(w[i], '-');
		unsigned long long a, b;
		uint64_t v;
		int used = 0;

		if (eq && eq != w[i]) {
			last = add_field(t, w[i], (size_t)(eq - w[i]));
			region = 0;
			if (!last || !eq[1])
				continue;	/* "probe_hits=": an empty list */
			if (number(last, eq + 1, &last->v[0])) {
				last->n = 1;
			} else {
				last->text = true;
				copy(last->str, sizeof(last->str), eq + 1, strlen(eq + 1));
			}
		} else if (dash && sscanf(w[i], "%llu-%llu%n", &a, &b, &used) == 2 &&
			   (!w[i][used] || !strcmp(w[i] + used, ":"))) {
			set_number(t, "start", a);
			set_number(t, "end", b);
			region = 2;
			last = NULL;
		} else if (region && last == NULL && all_digits(w[i], strlen(w[i]))) {
			set_number(t, names[2 - region], strtoull(w[i], NULL, 10));
			region--;
		} else if (last && !last->text && last->n < TLINE_MAX_LIST &&
			   number(last, w[i], &v)) {
			last->v[last->n++] = v;
			last->list = true;
		}
	}
}

int tline_parse(const char *line, struct tline *t)
{
	char buf[4096], *w[MAX_WORDS], *save = NULL, *p;
	unsigned int n = 0, i, cpu_at;

	memset(t, 0, sizeof(*t));
	t->cpu = -1;
	copy(buf, sizeof(buf), line, strlen(line));
	for (p = strtok_r(buf, " \t\r\n", &save); p && n < MAX_WORDS;
	     p = strtok_r(NULL, " \t\r\n", &save))
		w[n++] = p;
	/* "SECONDS.FRACTION:" followed by "EVENT:", after at least the task */
	for (i = 1; i + 1 < n; i++) {
		size_t el = strlen(w[i + 1]);

		if (el > 1 && w[i + 1][el - 1] == ':' && parse_ts(w[i], &t->ts_ns))
			break;
	}
	if (i + 1 >= n)
		return -EINVAL;
	for (cpu_at = 0; cpu_at < i; cpu_at++) {
		size_t l = strlen(w[cpu_at]);

		if (l > 2 && w[cpu_at][0] == '[' && w[cpu_at][l - 1] == ']' &&
		    all_digits(w[cpu_at] + 1, l - 2)) {
			t->cpu = atoi(w[cpu_at] + 1);
			break;
		}
	}
	if (parse_task(w, cpu_at < i ? cpu_at : i, t))
		return -EINVAL;
	w[i + 1][strlen(w[i + 1]) - 1] = '\0';
	p = strrchr(w[i + 1], ':');	/* perf's "damon:damon_aggregated" */
	p = p ? p + 1 : w[i + 1];
	if (!*p)
		return -EINVAL;
	copy(t->event, sizeof(t->event), p, strlen(p));
	parse_fields(w + i + 2, n - i - 2, t);
	return 0;
}

const struct tline_field *tline_field(const struct tline *t, const char *key)
{
	for (unsigned int i = 0; i < t->nr; i++)
		if (!strcmp(t->f[i].key, key))
			return &t->f[i];
	return NULL;
}
