/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Splitting a line into words as a POSIX shell does, for `damonc shell` and `damonc --batch`:
 * blanks separate words; '...' keeps everything literally; "..." keeps everything but a
 * backslash before " \ $ ` or a newline; a backslash outside quotes keeps the next character;
 * a # that begins a word comments out the rest of the line. No expansion of any kind ($VAR,
 * globs, ~): a batch means the same wherever it runs.
 */
#ifndef DAMONC_WORDS_H
#define DAMONC_WORDS_H

#include <stdbool.h>
#include <stddef.h>

struct words {
	char **v;	/* NULL-terminated */
	int n;
	bool open;	/* (partial) the last word is still open: no blank after it yet */
};

/*
 * Split @line. Returns 0, -EINVAL with *@why saying what is wrong (an unterminated quote, a
 * backslash at the end) or -ENOMEM. With @partial (completion: the line up to the cursor),
 * an open quote or a final backslash is no error, and @w->open says whether the cursor is
 * inside the last word. @w is left empty on failure.
 */
int words_split(const char *line, bool partial, struct words *w, const char **why);
void words_free(struct words *w);

#endif
