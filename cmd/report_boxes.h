/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The boxes of 'report access --boxes' (damo's region box): a box per region whose length,
 * digit (and colour) and height each show one of its size, access rate and age, rescaled
 * between the smallest and largest of the regions shown, on a linear or log2 scale; the
 * digits coloured with damo's colour sets on a terminal.
 */
#ifndef DAMONC_REPORT_BOXES_H
#define DAMONC_REPORT_BOXES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "damonc.h"

/* What a dimension shows: the metavars' order */
enum box_value { BV_SIZE, BV_ACCESS_RATE, BV_AGE, BV_NONE };
/* The dimensions, in --box-values' order */
enum { BD_LENGTH, BD_LEVEL, BD_HEIGHT, BD_NR };

/* Option keys 560..569 are the boxes' */
#define BOX_OPTS \
	{ "box-values", 560, OV_STRING, "LENGTH,DIGIT,HEIGHT", "with --boxes: what the length, " \
	  "the digit (and colour) and the height show, each size, access-rate, age or none " \
	  "(default age,access-rate,size)" }, \
	{ "box-scales", 561, OV_STRING, "LENGTH,DIGIT,HEIGHT", "with --boxes: linear or log " \
	  "(log2) for each (default log,linear,log)" }, \
	{ "box-length", 562, OV_STRING, "MIN,MAX", "with --boxes: the columns of the shortest " \
	  "and longest box (default 1,40)" }, \
	{ "box-height", 563, OV_STRING, "MIN,MAX", "with --boxes: the rows of the lowest and " \
	  "highest box (default 1,1)" }, \
	{ "box-colorset", 564, OV_STRING, "emotion|gray|flame", "with --boxes: damo's colour " \
	  "set of the digits (default emotion)" }, \
	{ "box-align", 565, OV_STRING, "right|left", "with --boxes: where the boxes align " \
	  "(default right)" }

struct box_opts {
	enum box_value value[BD_NR];
	bool log[BD_NR];
	unsigned int min[BD_NR], max[BD_NR];	/* columns, digits (0-9), rows */
	int colorset;
	bool left;
	bool given;	/* a --box-* option was given */
};
/* damo's simple-boxes style */
#define BOX_OPTS_INIT { .value = { BV_AGE, BV_ACCESS_RATE, BV_SIZE }, \
			.log = { true, false, true }, .min = { 1, 0, 1 }, .max = { 40, 9, 1 } }

/* 0, an exit code, or -1 when @key is not a box option; into @o (the report's own). */
int box_parse(struct cli *cli, struct box_opts *o, const struct opt *table, int key,
	      const char *arg);
/* Whether the digits are coloured: the global --color (color_on()). */
bool box_colored(const struct box_opts *o);

/* The metric of the access view each enum box_value is */
enum damonctl_access_metric box_metric(enum box_value v);

struct box {
	unsigned int length, height;
	int level;	/* 0 to 9, -1 when the digits show nothing ('-') */
};
/* Region @g's box on the scales of range @r */
struct box box_of(const struct box_opts *o, const struct damonctl_access_range *r,
		  const struct damonctl_access_region *g);
/* The box's rows but the last, then the last without a newline, aligned to the longest */
void box_print(FILE *f, const struct box_opts *o, const struct box *b, bool color);
/* The escape that starts level @level (0-9) of damo's colour set @colorset (the index of
 * --box-colorset's choices: emotion, gray, flame) */
void box_color_start_of(FILE *f, int colorset, int level);
/* damo's colour samples: each level's digit in its colours */
void box_color_samples(FILE *f, const struct box_opts *o);
/* Its names in the JSON and the text */
const char *box_value_name(enum box_value v);
const char *box_colorset_name(const struct box_opts *o);

#endif
