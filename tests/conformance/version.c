// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel versions and the [conditions] of script lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* "6.12", "6.12.117+deb13-amd64", "7.3.4", "next" */
int kver_parse(const char *s, struct kver *out)
{
	char *end;
	long major, minor;

	/* the newest release (damon-emu's `next` profile builds on it) */
	if (!strcmp(s, "next")) {
		out->v = 703;
		out->next = true;
		return 0;
	}
	major = strtol(s, &end, 10);
	if (end == s || *end != '.' || major < 1 || major > 99)
		return -1;
	s = end + 1;
	minor = strtol(s, &end, 10);
	if (end == s || minor < 0 || minor > 99)
		return -1;
	out->v = (int)(major * 100 + minor);
	out->next = false;
	return 0;
}

static int one_cond(const char *c, const struct kver *k)
{
	struct kver want;
	const char *ops[] = { ">=", "<=", "==", "!=", ">", "<" };
	size_t i;

	if (!strcmp(c, "next"))
		return k->next;
	if (!strcmp(c, "!next"))
		return !k->next;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t l = strlen(ops[i]);

		if (strncmp(c, ops[i], l))
			continue;
		if (kver_parse(c + l, &want) || want.next)
			return -1;
		switch (i) {
		case 0: return k->v >= want.v;
		case 1: return k->v <= want.v;
		case 2: return k->v == want.v;
		case 3: return k->v != want.v;
		case 4: return k->v > want.v;
		default: return k->v < want.v;
		}
	}
	return -1;
}

/* Comma-separated conditions, all of which must hold. */
int kver_cond(const char *conds, const struct kver *k)
{
	char buf[256];
	char *save = NULL;
	int ok = 1;

	if (!conds || !*conds)
		return 1;
	snprintf(buf, sizeof(buf), "%s", conds);
	for (char *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		int r = one_cond(c, k);

		if (r < 0)
			return -1;
		ok &= r;
	}
	return ok;
}
