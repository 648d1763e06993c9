// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The config JSON reader: damonctl_tree_from_json() (damonc's schema and damo's kdamonds
 * JSON, with their unit strings) behind the strict JSON check. What it accepts must write
 * back out and read again to the same document. The same text as a configuration
 * (damonctl_config_parse(): YAML too, damonc's own documents) must not crash either.
 */
#include <stdio.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damonctl_tree *t, *again;
	char why[512], *doc = fuzz_string(data, size), *out, *out2;

	damonctl_json_check((const char *)data, size, why, sizeof(why));
	if (!damonctl_tree_from_json(doc, &t, why, sizeof(why))) {
		out = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG);
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
	if (!damonctl_config_parse("fuzz.yaml", doc, &t, why, sizeof(why)))
		damonctl_tree_free(t);
	if (!damonctl_config_parse(NULL, doc, &t, why, sizeof(why)))
		damonctl_tree_free(t);
	free(doc);
	return 0;
}
