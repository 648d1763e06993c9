// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damo's snapshot heatmap (heatmap_str() of damo_report_access.py) as the library computes
 * it (damonctl_access_heatmap_new()): a digit per column, a gap between regions as dots, or
 * "[...]" when wider than four columns (unless --snapshot-heatmap-static).
 */
#include <inttypes.h>

#include "damonc.h"
#include "report_boxes.h"
#include "report_snapheat.h"

/* The cells of the library's heatmap as digits, dots or "[...]" */
static void print_cells(FILE *f, const struct snapheat_opts *o,
			const struct damonctl_access_heatmap *h, bool color)
{
	size_t n = damonctl_access_heatmap_count(h);

	for (size_t i = 0; i < n; i++) {
		double gap = 0;
		int level = damonctl_access_heatmap_cell(h, i, &gap);

		if (level >= 0 && color) {
			box_color_start_of(f, o->colorset, level);
			fprintf(f, "%d\033[0m", level);
		} else if (level >= 0) {
			fprintf(f, "%d", level);
		} else if (gap > 4 && !o->fixed) {
			fputs("[...]", f);
		} else {
			for (int k = 0; k < (int)gap; k++)
				fputc('.', f);
		}
	}
}

void snapheat_print(FILE *f, const struct snapheat_opts *o, const struct damonctl_rec_snapshot *s,
		    const double weights[3], bool df_passed, bool color, bool raw)
{
	struct damonctl_access_heatmap_opts ho = {
		sizeof(ho), { weights[0], weights[1], weights[2] }, o->width, o->fixed, df_passed };
	struct damonctl_access_heatmap *h;
	double min, max, unit;
	char a[32];

	if (damonctl_access_heatmap_new(s, &ho, &h)) {
		fputs("n/a (out of memory)", f);
		return;
	}
	if (!damonctl_access_heatmap_count(h)) {
		fputs("n/a (no region)", f);
		damonctl_access_heatmap_free(h);
		return;
	}
	print_cells(f, o, h, color);
	damonctl_access_heatmap_scale(h, &min, &max, &unit);
	damonctl_access_heatmap_free(h);
	if (raw)
		snprintf(a, sizeof(a), "%.0f", unit);
	else
		fmt_size((uint64_t)unit, a, sizeof(a));
	fprintf(f, "\n# min/max temperatures: %.0f, %.0f, column size: %s", min + 0.0,
		max + 0.0, a);
}
