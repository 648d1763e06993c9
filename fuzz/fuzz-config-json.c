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
	struct damonctl_tree *t;
	char why[512], *doc = fuzz_string(data, size);

	damonctl_json_check((const char *)data, size, why, sizeof(why));
	if (!damonctl_tree_from_json(doc, &t, why, sizeof(why)))
		fuzz_tree_round_trip(t);
	if (!damonctl_config_parse("fuzz.yaml", doc, &t, why, sizeof(why)))
		damonctl_tree_free(t);
	if (!damonctl_config_parse(NULL, doc, &t, why, sizeof(why)))
		damonctl_tree_free(t);
	free(doc);
	return 0;
}
