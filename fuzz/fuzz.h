/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the libFuzzer targets share: the input as a NUL-terminated string. */
#ifndef DAMONC_FUZZ_H
#define DAMONC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef DAMONCTL_DAMONCTL_H
#include <stdio.h>

/* A configuration read (@t, freed here) writes back out and reads again to the same
 * document; its first kdamond is checked. */
static inline void fuzz_tree_round_trip(struct damonctl_tree *t)
{
	struct damonctl_tree *again;
	char why[512], *out = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG), *out2;

	if (!out || damonctl_tree_from_json(out, &again, why, sizeof(why))) {
		fprintf(stderr, "its own output does not read back: %s\n%s\n", why, out);
		abort();
	}
	out2 = damonctl_tree_to_json(again, DAMONCTL_JSON_CONFIG);
	if (!out2 || strcmp(out, out2)) {
		fprintf(stderr, "not the same after a round trip:\n%s\n%s\n", out, out2);
		abort();
	}
	if (damonctl_tree_kdamond(t, 0))
		damonctl_kdamond_check(damonctl_tree_kdamond(t, 0), NULL, why, sizeof(why));
	free(out);
	free(out2);
	damonctl_tree_free(again);
	damonctl_tree_free(t);
}
#endif

/* A malloc'd copy of @data with a NUL after it (and none before, for parsers of C strings:
 * the input is cut at its first NUL). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
