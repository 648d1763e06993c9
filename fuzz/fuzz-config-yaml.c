// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * YAML configurations (lib/yaml.c, damonctl_config_parse()): whatever the text, bounded
 * work (aliases followed within a node budget: nested aliases of a few hundred bytes must
 * not take gigabytes), and what the YAML reader hands on is one strict JSON document (no
 * key twice, integers within 64 bits) that the configuration reader takes or refuses; a
 * configuration it takes writes back out and reads again to the same document.
 */
#include <stdio.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damonctl_tree *t;
	char why[512], *doc = fuzz_string(data, size), *json = NULL;

	if (!damonctl_yaml_to_json(doc, strlen(doc), &json, why, sizeof(why))) {
		if (damonctl_json_check(json, strlen(json), why, sizeof(why))) {
			fprintf(stderr, "the YAML reader's JSON is not strict JSON: %s\n%s\n", why,
				json);
			abort();
		}
		free(json);
	}
	if (!damonctl_config_parse("fuzz.yaml", doc, &t, why, sizeof(why)))
		fuzz_tree_round_trip(t);
	free(doc);
	return 0;
}
