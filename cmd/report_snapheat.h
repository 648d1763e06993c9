/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damo's snapshot heatmap (<heatmap>, <filters passed heatmap> of report access) */
#ifndef DAMONC_REPORT_SNAPHEAT_H
#define DAMONC_REPORT_SNAPHEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "damonctl/damonctl.h"

#define SNAPHEAT_WIDTH 80	/* damo's --snapshot_heatmap_width default */

/* damo's --snapshot_heatmap_width, _static and _colorset */
struct snapheat_opts {
	unsigned int width;	/* columns over the regions' total size */
	bool fixed;		/* static: the columns over the whole address span, gaps as
				 * dots of their true width (never "[...]") */
	int colorset;		/* box_color_start_of()'s: 0 emotion, 1 gray, 2 flame */
};
#define SNAPHEAT_OPTS_INIT { SNAPHEAT_WIDTH, false, 1 }	/* damo's: 80, gray */

/* One row of digits 0-9 (@o's columns: each column's temperature between the
 * smallest and the largest column's), '.' or "[...]" for gaps between regions, then damo's
 * comment line; @weights damo's temperature weights (size, access rate %, age us);
 * @df_passed: only the regions that passed DAMOS filters (sz_filter_passed not 0). Without
 * a region: damo's "n/a (no region)". */
void snapheat_print(FILE *f, const struct snapheat_opts *o, const struct damonctl_rec_snapshot *s,
		    const double weights[3], bool df_passed, bool color, bool raw);

#endif
