/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damonc report hugepage -i: what a record says about huge pages (hugepage_record.c). */
#ifndef DAMONC_HUGEPAGE_RECORD_H
#define DAMONC_HUGEPAGE_RECORD_H

#include "damonc.h"

#include "chart.h"

/* An exit code. With @fmt >= 0 (enum chart_format), a chart to @output (NULL, "-":
 * stdout) instead of the text: over the record's time, the accessed memory whole 2 MiB
 * pages could hold and the system's huge pages the footprints saw. */
int hugepage_record_report(struct cli *cli, const char *path, int fmt, const char *output);

#endif
