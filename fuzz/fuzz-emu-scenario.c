// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-emu's scenario parser (emu/engine/scenario.c): rules and phases, addresses, rates,
 * times. Parsed rules are then queried, as the emulated kdamond does at every sample.
 */
#include "fuzz.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[256];
	struct scn_rule *rules = NULL;
	size_t nr = 0;
	struct scenario *s;

	if (!scn_parse(text, &rules, &nr, err, sizeof(err))) {
		s = scn_new(NULL);
		if (s && !scn_set_text(s, text)) {
			size_t i;

			for (i = 0; i < nr && i < 64; i++) {
				scn_rate(s, rules[i].pid, rules[i].start, rules[i].from_us);
				scn_same_rate_end(s, rules[i].pid, rules[i].start, rules[i].end,
						  rules[i].from_us);
			}
			scn_rate(s, -1, 0, 0);
		}
		scn_free(s);
	}
	free(rules);
	free(text);
	return 0;
}
