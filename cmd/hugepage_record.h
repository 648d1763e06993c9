/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damonc report hugepage -i: what a record says about huge pages (hugepage_record.c). */
#ifndef DAMONC_HUGEPAGE_RECORD_H
#define DAMONC_HUGEPAGE_RECORD_H

#include "damonc.h"

/* An exit code. */
int hugepage_record_report(struct cli *cli, const char *path);

#endif
