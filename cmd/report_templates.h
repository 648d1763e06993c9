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

/* damo's --format ACTION AREA TEMPLATE as --format-set and --format-append AREA=TEMPLATE:
 * the areas, damo's record_head ... record_tail (also with '-') */
enum tmpl_area { TA_RECORD_HEAD, TA_SNAPSHOT_HEAD, TA_REGION, TA_SNAPSHOT_TAIL, TA_RECORD_TAIL,
		 NR_TMPL_AREAS };

#define MIN_CHARS_MAX 32
#define TMPL_APPEND_MAX 64
/* report access's options of every template: damo's --min_chars_for (the keywords with their
 * '<' and '>', and their minimums, in the order given) and what --format-append added (the
 * arguments' text, in the order given) */
struct tmpl_opts {
	struct {
		char kw[64];
		unsigned int n;
	} min_chars[MIN_CHARS_MAX];
	unsigned int nr_min_chars;
	struct {
		enum tmpl_area area;
		const char *text;
	} appended[TMPL_APPEND_MAX];
	unsigned int nr_appended;
};

void rec_fig_add(struct rec_fig *f, const struct damonctl_rec_snapshot *s);
/* 0, or EXIT_USAGE after naming @opt and the unknown keyword of @t */
int rec_template_check(const struct cli *cli, const char *opt, const char *t);
/* Whether @t shows what is known only after the last snapshot (<duration>) */
bool rec_template_needs_end(const char *t);
/* @t for record @f to @out, "\n" (two characters) a new line as damo's, a new line at the
 * end; nothing for an empty template (damo's); on stdout the keywords padded as @o says */
void rec_template_print(FILE *out, const char *t, const struct rec_fig *f, bool raw,
			const struct rec_templates *all, const struct tmpl_opts *o);
/* The record's figures for the JSON document's "record" */
json_object *rec_fig_json(const struct rec_fig *f);

/* damo's --min_chars_for: a keyword's text padded with spaces to at least N characters.
 * min_chars_add: 0, or -ENOSPC when there are too many. */
int min_chars_add(struct tmpl_opts *o, const char *keyword, size_t len, unsigned int n);
/* Whether @keyword (@len bytes, "<...>") is a record keyword */
bool rec_keyword_known(const char *keyword, size_t len);
/* Where keyword @kw's text goes: stdout, or a buffer when @o gives it a minimum (then
 * kw_out_close() writes it padded to stdout: a multi-line one as damo pads it, spaces after
 * its last line, its new lines counted, before the new line that ends it) */
struct kw_out {
	FILE *f;
	char *buf;
	size_t len;
	unsigned int min;
};
FILE *kw_out_open(struct kw_out *k, const struct tmpl_opts *o, const char *kw);
void kw_out_close(struct kw_out *k);

/* The area @arg's AREA= names and its template in *@text, or -1 after naming @opt */
int tmpl_area_parse(const struct cli *cli, const char *opt, const char *arg, const char **text);
/* @text (the argument's: it outlives the run) added at the end of area @a's template after
 * the defaults (damo's append); given more than once, in the order given. 0, or -ENOSPC
 * after TMPL_APPEND_MAX of them. */
int tmpl_append(struct tmpl_opts *o, enum tmpl_area a, const char *text);
bool tmpl_appended_to(const struct tmpl_opts *o, enum tmpl_area a);
bool tmpl_any_appended(const struct tmpl_opts *o);
/* A run's templates joined with what was appended: one an area, freed by
 * tmpl_joined_free() at the end of the run */
struct tmpl_joined {
	char *s[NR_TMPL_AREAS];
};
/* @base (NULL: none), then @extra (NULL: none), then what @o appended to area @a; NULL when
 * @base is NULL and nothing else is. Valid until the next call for @a with @j. */
const char *tmpl_joined(struct tmpl_joined *j, const struct tmpl_opts *o, enum tmpl_area a,
			const char *base, const char *extra);
void tmpl_joined_free(struct tmpl_joined *j);

#endif
