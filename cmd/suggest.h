/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Did you mean": of the names a mistyped word could have been (commands, options), the
 * closest, when it is close enough to be what was meant (as git and systemctl suggest).
 */
#ifndef DAMONC_SUGGEST_H
#define DAMONC_SUGGEST_H

struct suggest {
	const char *typed;
	const char *best;	/* NULL: nothing close yet */
	unsigned int dist;
};

void suggest_init(struct suggest *s, const char *typed);
/* Consider @name (kept by pointer: it must outlive the suggestion). */
void suggest_add(struct suggest *s, const char *name);
/* The closest name within reach, or NULL. */
const char *suggest_best(const struct suggest *s);

#endif
