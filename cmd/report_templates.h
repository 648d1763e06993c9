/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damo's record templates of report access (--format-record-head, --format-record-tail) */
#ifndef DAMONC_REPORT_TEMPLATES_H
#define DAMONC_REPORT_TEMPLATES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "damonc.h"

/* The record damo's record keywords describe: the snapshots reported, of one series */
struct rec_fig {
	uint64_t nr;			/* snapshots seen */
	uint32_t kdamond, context;
	int32_t target, scheme;		/* -1: none */
	uint64_t start_ns, end_ns;	/* the first one's start, the last one's end */
	uint64_t sample_us, aggr_us;	/* the first one's intervals */
};

/* The templates in force, for <format strings> (NULL reads as "") */
struct rec_templates {
	const char *record_head, *snapshot_head, *region, *snapshot_tail, *record_tail;
};

void rec_fig_add(struct rec_fig *f, const struct damonctl_rec_snapshot *s);
/* 0, or EXIT_USAGE after naming @opt and the unknown keyword of @t */
int rec_template_check(const struct cli *cli, const char *opt, const char *t);
/* Whether @t shows what is known only after the last snapshot (<duration>) */
bool rec_template_needs_end(const char *t);
/* @t for record @f to @out, "\n" (two characters) a new line as damo's, a new line at the
 * end; nothing for an empty template (damo's) */
void rec_template_print(FILE *out, const char *t, const struct rec_fig *f, bool raw,
			const struct rec_templates *all);
/* The record's figures for the JSON document's "record" */
json_object *rec_fig_json(const struct rec_fig *f);

/* damo's --min_chars_for: a keyword's text padded with spaces to at least N characters.
 * min_chars_add: 0, or -ENOSPC when there are too many. */
#define MIN_CHARS_MAX 32
int min_chars_add(const char *keyword, size_t len, unsigned int n);
/* Whether @keyword (@len bytes, "<...>") is a record keyword */
bool rec_keyword_known(const char *keyword, size_t len);
/* Where keyword @kw's text goes: stdout, or a buffer when it has a minimum (then
 * kw_out_close() writes it padded to stdout) */
struct kw_out {
	FILE *f;
	char *buf;
	size_t len;
	unsigned int min;
};
FILE *kw_out_open(struct kw_out *k, const char *kw);
void kw_out_close(struct kw_out *k);

#endif
