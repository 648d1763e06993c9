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
	struct damonctl_tree *t, *again;
	char why[512], *doc = fuzz_string(data, size), *json = NULL, *out, *out2;

	if (!damonctl_yaml_to_json(doc, strlen(doc), &json, why, sizeof(why))) {
		if (damonctl_json_check(json, strlen(json), why, sizeof(why))) {
			fprintf(stderr, "the YAML reader's JSON is not strict JSON: %s\n%s\n", why,
				json);
			abort();
		}
		free(json);
	}
	if (!damonctl_config_parse("fuzz.yaml", doc, &t, why, sizeof(why))) {
		out = damonctl_tree_to_json(t, DAMONCTL_JSON_CONFIG);
		if (!out || damonctl_config_parse("back.json", out, &again, why, sizeof(why))) {
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
	free(doc);
	return 0;
}
