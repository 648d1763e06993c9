// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A batch's lines as damonc --batch reads them (cmd/lines.c over cmd/words.c): whatever the
 * bytes, no line longer than LINE_MAX_BYTES and none holding a NUL byte is taken (a NUL
 * would have cut the line: "start ... \0 --dry-run" really started), no word holds a NUL or
 * is longer than its line, and no line that names --sysroot before "--" is taken (a batch's
 * lines act on its own tree).
 */
#include <errno.h>
#include <stdio.h>

#include "fuzz.h"
#include "lines.h"

static void check_words(const char *line, size_t len, const struct words *w)
{
	int i;

	for (i = 0; i < w->n; i++) {
		if (strlen(w->v[i]) > len) {
			fprintf(stderr, "a word longer than its line: '%s'\n", line);
			abort();
		}
		if (!strcmp(w->v[i], "--"))
			break;
		if (!strcmp(w->v[i], "--sysroot") || !strncmp(w->v[i], "--sysroot=", 10)) {
			fprintf(stderr, "a line naming --sysroot was taken: '%s'\n", line);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in = fmemopen((void *)data, size, "r");
	char *buf = NULL;
	size_t cap = 0;
	long n;

	if (!in)
		return 0;
	/* a small bound here, so that the fuzzer reaches it */
	while ((n = lines_read(in, 256, &buf, &cap)) > 0) {
		struct words w;
		const char *why = "";

		if ((size_t)n > 256 || memchr(buf, '\0', (size_t)n)) {
			fprintf(stderr, "a line of %ld bytes, or with a NUL, was taken\n", n);
			abort();
		}
		if (!lines_words(buf, &w, &why)) {
			check_words(buf, (size_t)n, &w);
			words_free(&w);
		} else if (!*why) {
			fprintf(stderr, "a refusal without a reason: '%s'\n", buf);
			abort();
		}
	}
	if (n != 0 && n != -EFBIG && n != -EILSEQ) {
		fprintf(stderr, "lines_read: %ld\n", n);
		abort();
	}
	free(buf);
	fclose(in);
	return 0;
}
