// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filters and goals given as text (lib/spec.c): what parses sets on the model's objects, and
 * a refusal names a part of the text as it was given.
 */
#include <stdio.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

static void named(const char *s, const struct damonctl_parse_error *e)
{
	if (!strstr(s, e->text)) {
		fprintf(stderr, "'%s' refused naming '%s', which it does not hold\n", s, e->text);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damonctl_tree *t = damonctl_tree_new();
	struct damonctl_context *c = t ? damonctl_kdamond_add_context(damonctl_tree_add_kdamond(t))
				       : NULL;
	struct damonctl_scheme *sc = c ? damonctl_context_add_scheme(c) : NULL;
	struct damonctl_probe *p = c ? damonctl_context_add_probe(c) : NULL;
	struct damonctl_filter_spec f = DAMONCTL_FILTER_SPEC_INIT;
	struct damonctl_goal_spec g = DAMONCTL_GOAL_SPEC_INIT;
	struct damonctl_parse_error e = DAMONCTL_PARSE_ERROR_INIT;
	char *s = fuzz_string(data, size);

	if (!sc || !p)
		abort();
	if (damonctl_filter_spec_parse(s, DAMONCTL_KW_FILTER_TYPE, &f, &e))
		named(s, &e);
	else if (damonctl_filter_set_spec(damonctl_scheme_add_filter(sc, DAMONCTL_FILTERS_LEGACY),
					  &f))
		abort();	/* every filter type parsed is one a filter takes */
	if (damonctl_filter_spec_parse(s, DAMONCTL_KW_PROBE_FILTER_TYPE, &f, &e))
		named(s, &e);
	else if (damonctl_probe_filter_set_spec(damonctl_probe_add_filter(p), &f))
		abort();
	if (damonctl_goal_spec_parse(s, &g, &e))
		named(s, &e);
	else if (damonctl_goal_set_spec(damonctl_scheme_add_goal(sc), &g))
		abort();
	damonctl_tree_free(t);
	free(s);
	return 0;
}
