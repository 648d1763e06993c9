/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the libFuzzer targets share: the input as a NUL-terminated string. */
#ifndef DAMONC_FUZZ_H
#define DAMONC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
