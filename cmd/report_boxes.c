// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The boxes of 'report access --boxes', as damo's region box draws them (its ColoredBox,
 * rescale() and _damo_ascii_color): only the scales are the snapshot's regions shown, not
 * every snapshot of the record, so that a report holds one snapshot at a time.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "color.h"
#include "report_boxes.h"

static const char *const value_names[] = { "size", "access-rate", "age", "none" };
static const char *const colorset_names[] = { "emotion", "gray", "flame" };

/* damo's colour sets: 256-colour background and foreground of levels 0 to 9 */
static const unsigned char colorsets[][2][10] = {
	{ { 232, 234, 20, 21, 26, 2, 3, 1, 1, 1 },
	  { 239, 235, 237, 239, 243, 245, 247, 249, 251, 255 } },
	{ { 232, 232, 232, 232, 232, 232, 232, 232, 232, 232 },
	  { 237, 239, 241, 243, 245, 247, 249, 251, 253, 255 } },
	{ { 232, 1, 1, 2, 3, 3, 20, 21, 26, 27 },
	  { 239, 235, 237, 239, 243, 245, 247, 249, 251, 255 } },
};

const char *box_value_name(enum box_value v)
{
	return value_names[v];
}

const char *box_colorset_name(const struct box_opts *o)
{
	return colorset_names[o->colorset];
}

static int name_index(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], s, len))
			return i;
	return -1;
}

/* "A,B,C", each one of @names, into @out */
static int parse_three(const char *arg, const char *const *names, int n, int *out)
{
	const char *p = arg;

	for (int i = 0; i < BD_NR; i++) {
		size_t len = strcspn(p, ",");

		out[i] = name_index(names, n, p, len);
		if (out[i] < 0 || (p[len] != ',') != (i == BD_NR - 1))
			return -1;
		p += len + 1;
	}
	return 0;
}

/* "MIN,MAX" with 0 < MIN <= MAX <= @limit */
static int parse_min_max_uint(const char *arg, unsigned int limit, unsigned int *lo,
			      unsigned int *hi)
{
	const char *end;
	uint64_t a, b;

	if (parse_uint_token(arg, ',', &a, &end) || *end != ',' ||
	    parse_uint_token(end + 1, 0, &b, &end) || !a || a > b || b > limit)
		return -1;
	*lo = (unsigned int)a;
	*hi = (unsigned int)b;
	return 0;
}

int box_parse(struct cli *cli, struct box_opts *o, const struct opt *table, int key,
	      const char *arg)
{
	int v[BD_NR], r;

	if (key < 560 || key > 565)
		return -1;
	o->given = true;
	switch (key) {
	case 560:
		if (parse_three(arg, value_names, 4, v) || v[BD_LENGTH] == BV_NONE)
			return usage_error(cli, "--box-values '%s': expected LENGTH,DIGIT,HEIGHT, "
					   "each size, access-rate, age or none (the length not "
					   "none)", arg);
		for (int i = 0; i < BD_NR; i++)
			o->value[i] = (enum box_value)v[i];
		return 0;
	case 561: {
		static const char *const scales[] = { "linear", "log" };

		if (parse_three(arg, scales, 2, v))
			return usage_error(cli, "--box-scales '%s': expected LENGTH,DIGIT,HEIGHT, "
					   "each linear or log", arg);
		for (int i = 0; i < BD_NR; i++)
			o->log[i] = v[i];
		return 0;
	}
	case 562:
	case 563: {
		int d = key == 562 ? BD_LENGTH : BD_HEIGHT;
		unsigned int limit = key == 562 ? 200 : 20;

		if (parse_min_max_uint(arg, limit, &o->min[d], &o->max[d]))
			return usage_error(cli, "--%s '%s': expected MIN,MAX, 1 <= MIN <= MAX <= %u",
					   key == 562 ? "box-length" : "box-height", arg, limit);
		return 0;
	}
	}
	r = opt_choice(cli, table, key, arg);
	if (r < 0)
		return EXIT_USAGE;
	if (key == 564)
		o->colorset = r;
	else
		o->left = r;
	return 0;
}

bool box_colored(const struct box_opts *o)
{
	(void)o;
	return color_on();
}

enum damonctl_access_metric box_metric(enum box_value v)
{
	static const enum damonctl_access_metric m[] = {
		DAMONCTL_ACCESS_BYTES, DAMONCTL_ACCESS_RATE_BP, DAMONCTL_ACCESS_AGE_US };

	return m[v];
}

/* Dimension @d of region @g's box: damo's rescale() of the value it shows */
static int rescale(const struct box_opts *o, const struct damonctl_access_range *r,
		   const struct damonctl_access_region *g, int d)
{
	enum box_value v = o->value[d];
	double x[] = { (double)(g->end - g->start), (double)g->rate_bp, (double)g->age_us };

	if (v == BV_NONE)
		return d == BD_LEVEL ? -1 : 1;
	return damonctl_access_rescale(r, box_metric(v), x[v], o->log[d], o->min[d],
				       o->max[d]);
}

struct box box_of(const struct box_opts *o, const struct damonctl_access_range *r,
		  const struct damonctl_access_region *g)
{
	return (struct box){ (unsigned int)rescale(o, r, g, BD_LENGTH),
			     (unsigned int)rescale(o, r, g, BD_HEIGHT),
			     rescale(o, r, g, BD_LEVEL) };
}

void box_color_start_of(FILE *f, int colorset, int level)
{
	fprintf(f, "\033[48;5;%dm\033[38;5;%dm", colorsets[colorset][0][level],
		colorsets[colorset][1][level]);
}

static void print_row(FILE *f, const struct box_opts *o, const struct box *b, bool color)
{
	unsigned int pad = o->max[BD_LENGTH] - b->length;

	if (!o->left)
		fprintf(f, "%*s", (int)pad, "");
	fputc('|', f);
	if (color && b->level >= 0)
		box_color_start_of(f, o->colorset, b->level);
	for (unsigned int i = 0; i < b->length; i++)
		fputc(b->level >= 0 ? '0' + b->level : '-', f);
	if (color && b->level >= 0)
		fputs("\033[0m", f);
	fputc('|', f);
	if (o->left)
		fprintf(f, "%*s", (int)pad, "");
}

void box_print(FILE *f, const struct box_opts *o, const struct box *b, bool color)
{
	for (unsigned int i = 1; i < b->height; i++) {
		print_row(f, o, b, color);
		fputc('\n', f);
	}
	print_row(f, o, b, color);
}

void box_color_samples(FILE *f, const struct box_opts *o)
{
	for (int level = 0; level < 10; level++) {
		box_color_start_of(f, o->colorset, level);
		fprintf(f, "%d", level);
	}
	fputs("\033[0m", f);
}
