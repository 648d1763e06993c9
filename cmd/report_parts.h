/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record reports' computations, callable item by item, for the reports that compose
 * them (report holistic): each keeps its state in bounded memory as its own report does,
 * and prints the same text and builds the same JSON members.
 */
#ifndef DAMONC_REPORT_PARTS_H
#define DAMONC_REPORT_PARTS_H

#include <stdio.h>

#include "quantile.h"
#include "report_input.h"

/* report info: the text and the JSON members (but format_version) of a damonctl_rec_info fed
 * every item of every series (rin_all_series()). */
void info_print_text(const struct damonctl_rec_info *n, const struct rin *in);
void info_fill_json(const struct damonctl_rec_info *n, const struct rin *in, json_object *doc);

/* report heatmap: the text and the JSON members of a gridded, fed damonctl_heatmap. */
void hm_print_text(const struct rin *in, const struct damonctl_heatmap *h, const char *name,
		   FILE *f);
/* Adds the grid's members (time_bins_us ... access_rate_bp) to @doc. */
void hm_fill_json(const struct rin *in, const struct damonctl_heatmap *h, json_object *doc);

/* report wss: [{"percentile", "wss"}] */
json_object *wss_pcts_json(const struct damonctl_qhist *h, const double *pcts,
			   unsigned int nr);

/* report footprints: what the text calls metric @m ("target 0 (pid 42) rss", "system used"),
 * and the members (samples, first_us, last_us, metrics) of a damonctl_footprints fed
 * FOOTPRINT items, added to @doc. */
const char *fp_label(const struct damonctl_footprint_metric *m, char *buf, size_t size);
void fp_fill_json(const struct damonctl_footprints *f, const struct rin *in,
		  const double *pcts, unsigned int nr, json_object *doc);

#endif
