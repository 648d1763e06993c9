// SPDX-License-Identifier: GPL-2.0-or-later
/* Splitting a line into words as a shell does (see words.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int push(struct words *w, const char *word, size_t len)
{
	char **v = realloc(w->v, (size_t)(w->n + 2) * sizeof(*v));
	char *s;

	if (!v)
		return -ENOMEM;
	w->v = v;
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, word, len);
	s[len] = '\0';
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return 0;
}

void words_free(struct words *w)
{
	int i;

	for (i = 0; w->v && i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
	w->open = false;
}

int words_split(const char *line, bool partial, struct words *w, const char **why)
{
	size_t len = strlen(line), n = 0;
	char *buf = malloc(len + 1);	/* a word is never longer than the line */
	const char *p = line;
	bool in_word = false;
	int r = 0;

	memset(w, 0, sizeof(*w));
	if (!buf)
		return -ENOMEM;
	while (*p && !r) {
		if (!in_word && is_blank(*p)) {
			p++;
			continue;
		}
		if (!in_word && *p == '#')
			break;
		if (in_word && is_blank(*p)) {
			r = push(w, buf, n);
			n = 0;
			in_word = false;
			p++;
			continue;
		}
		in_word = true;
		if (*p == '\\') {
			if (!p[1]) {
				if (!partial) {
					*why = "a backslash ends the line";
					r = -EINVAL;
				}
				p++;
				continue;
			}
			buf[n++] = p[1];
			p += 2;
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end && !partial) {
				*why = "a single quote is not closed";
				r = -EINVAL;
				break;
			}
			if (!end)
				end = p + strlen(p);
			memcpy(buf + n, p + 1, (size_t)(end - p - 1));
			n += (size_t)(end - p - 1);
			p = *end ? end + 1 : end;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
					p++;
				buf[n++] = *p;
			}
			if (!*p && !partial) {
				*why = "a double quote is not closed";
				r = -EINVAL;
				break;
			}
			if (*p)
				p++;
		} else {
			buf[n++] = *p++;
		}
	}
	if (!r && in_word) {
		r = push(w, buf, n);
		w->open = true;
	}
	free(buf);
	if (r)
		words_free(w);
	else if (!w->v && !(w->v = calloc(1, sizeof(*w->v))))
		r = -ENOMEM;
	return r;
}
