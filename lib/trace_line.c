// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One line of DAMON trace output as tracefs's trace_pipe, `trace-cmd report` or `perf script`
 * print it:
 *
 *   kdamond.0-174   [001] .....  123.456789: damon_aggregated: target_id=0 nr_regions=11 4096-8192: 0 3
 *   kdamond.0  174 [001] 123.456789: damon:damon_aggregated: target_id=0 ...
 *
 * The fields are the event's TP_printk: "key=value" words (a value followed by bare words is
 * a list, as probe_hits=14 00), and a region as "START-END: NR_ACCESSES AGE". What the line
 * says is kept; no file access.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

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
static int parse_task(char **w, unsigned int n, struct damonctl_trace_event *t)
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

static struct tline_field *add_field(struct damonctl_trace_event *t, const char *key, size_t n)
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

static void set_number(struct damonctl_trace_event *t, const char *key, uint64_t v)
{
	struct tline_field *f = add_field(t, key, strlen(key));

	if (f) {
		f->v[0] = v;
		f->n = 1;
	}
}

/* The words after the event's name. */
static void parse_fields(char **w, unsigned int n, struct damonctl_trace_event *t)
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

int damonctl_trace_event_parse(struct damonctl_trace_event *t, const char *line)
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

int damonctl_trace_event_new(struct damonctl_trace_event **out)
{
	struct damonctl_trace_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	ev->cpu = -1;
	*out = ev;
	return 0;
}

void damonctl_trace_event_free(struct damonctl_trace_event *ev)
{
	free(ev);
}

const char *damonctl_trace_event_name(const struct damonctl_trace_event *ev)
{
	return ev->event;
}

const char *damonctl_trace_event_task(const struct damonctl_trace_event *ev)
{
	return ev->task;
}

int damonctl_trace_event_pid(const struct damonctl_trace_event *ev)
{
	return ev->pid;
}

int damonctl_trace_event_cpu(const struct damonctl_trace_event *ev)
{
	return ev->cpu;
}

uint64_t damonctl_trace_event_ts_ns(const struct damonctl_trace_event *ev)
{
	return ev->ts_ns;
}

unsigned int damonctl_trace_event_nr_fields(const struct damonctl_trace_event *ev)
{
	return ev->nr;
}

int damonctl_trace_event_field_index(const struct damonctl_trace_event *ev, const char *key)
{
	for (unsigned int i = 0; i < ev->nr; i++)
		if (!strcmp(ev->f[i].key, key))
			return (int)i;
	return -ENOENT;
}

static const struct tline_field *field(const struct damonctl_trace_event *ev, unsigned int i)
{
	return i < ev->nr ? &ev->f[i] : NULL;
}

const char *damonctl_trace_event_field_key(const struct damonctl_trace_event *ev, unsigned int i)
{
	const struct tline_field *f = field(ev, i);

	return f ? f->key : NULL;
}

unsigned int damonctl_trace_event_field_nr_values(const struct damonctl_trace_event *ev,
						  unsigned int i)
{
	const struct tline_field *f = field(ev, i);

	return f && !f->text ? f->n : 0;
}

uint64_t damonctl_trace_event_field_u64(const struct damonctl_trace_event *ev, unsigned int i,
					unsigned int j)
{
	const struct tline_field *f = field(ev, i);

	return f && !f->text && j < f->n ? f->v[j] : 0;
}

bool damonctl_trace_event_field_is_list(const struct damonctl_trace_event *ev, unsigned int i)
{
	const struct tline_field *f = field(ev, i);

	return f && f->list;
}

const char *damonctl_trace_event_field_text(const struct damonctl_trace_event *ev,
					    unsigned int i)
{
	const struct tline_field *f = field(ev, i);

	return f && f->text ? f->str : NULL;
}
