// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Did you mean" (see suggest.h): the optimal string alignment distance (edits, and two
 * neighbours swapped, each count one). A name is within reach at 1 edit for words of up to
 * 4 letters, 2 for longer ones, or when the word is the start of the name ("stat" for
 * "status"); the nearest wins, the first of equals.
 */
#include <string.h>

#include "suggest.h"

#define MAX_WORD 64

static unsigned int min3(unsigned int a, unsigned int b, unsigned int c)
{
	unsigned int m = a < b ? a : b;

	return m < c ? m : c;
}

static unsigned int distance(const char *a, const char *b)
{
	static unsigned int d[MAX_WORD + 1][MAX_WORD + 1];
	size_t n = strlen(a), m = strlen(b), i, j;

	if (n > MAX_WORD || m > MAX_WORD)
		return ~0u;
	for (i = 0; i <= n; i++)
		d[i][0] = (unsigned int)i;
	for (j = 0; j <= m; j++)
		d[0][j] = (unsigned int)j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[n][m];
}

void suggest_init(struct suggest *s, const char *typed)
{
	s->typed = typed;
	s->best = NULL;
	s->dist = ~0u;
}

void suggest_add(struct suggest *s, const char *name)
{
	size_t len = strlen(s->typed);
	unsigned int reach = len <= 4 ? 1 : 2, d;

	if (!len)
		return;
	d = distance(s->typed, name);
	if (d > reach && len >= 3 && !strncmp(name, s->typed, len))
		d = reach;	/* a name's beginning */
	if (d <= reach && d < s->dist) {
		s->best = name;
		s->dist = d;
	}
}

const char *suggest_best(const struct suggest *s)
{
	return s->best;
}
