/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Colour in text reports: the global --color=auto|always|never, and $NO_COLOR
 * (no-color.org: set and not empty) for auto. Colour marks what a reader looks for first (a
 * state, a finding's level, a goal met or not, a heatmap's heat); a pipe or a file gets
 * the same text without escape sequences.
 */
#ifndef DAMONC_COLOR_H
#define DAMONC_COLOR_H

#include <stdbool.h>
#include <stdio.h>

enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };	/* --color's metavar order */

/* What a coloured span says. */
enum color_role {
	CR_GOOD,	/* green: running, met, nothing wrong */
	CR_WARN,	/* yellow: a warning, not met yet */
	CR_BAD,		/* red: an error, a failure */
	CR_HEAD,	/* bold: a heading */
	CR_DIM,		/* grey: secondary text */
};

/* --color's value for this process (as stdout is the process's). */
void color_set(enum color_when when);
/* Whether standard output is coloured: always, never, or auto: a terminal without NO_COLOR. */
bool color_on(void);
/* @s in @role's colour when colour is on (else as is) into @buf; returns @buf. */
const char *color_str(enum color_role role, const char *s, char *buf, size_t size);
/* The escape sequences that start @role's colour and end it ("" when colour is off). */
const char *color_start(enum color_role role);
const char *color_end(void);
/* The same for text going to @f: none unless @f is standard output. */
const char *color_start_in(FILE *f, enum color_role role);
const char *color_end_in(FILE *f);
/* A text heatmap's heat colours (256-colour background and a legible foreground) for its
 * levels 0 (no access) to 8 (every sample); nothing for another level. */
void color_heat(FILE *f, int level);

#endif
