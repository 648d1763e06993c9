// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damo's record templates of report access (record_formatters of damo_report_access.py):
 * printed once before the first and once after the last snapshot reported, their keywords
 * the series and the time and intervals of the snapshots reported. A value damonc's record
 * has not is shown as damo shows a missing one: None for a record of no target or no scheme,
 * "unknown" for the data source (damo's for every record but DAMON_STAT's), N/A for the
 * intervals goal (a record keeps the intervals in force, not the goal that tuned them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_templates.h"

/* damo's record keywords: the library's set, in its order */
enum { RK_KDAMOND, RK_CONTEXT, RK_SCHEME, RK_TARGET, RK_START, RK_DURATION, RK_INTERVALS,
       RK_GOAL, RK_SOURCE, RK_STRINGS };

static int rec_keyword_at(const char *p)
{
	return damonctl_access_keyword_at(DAMONCTL_ACCESS_KW_RECORD, p);
}

static const char *rec_keyword(int kw)
{
	return damonctl_access_keyword(DAMONCTL_ACCESS_KW_RECORD, (unsigned int)kw);
}

bool rec_keyword_known(const char *keyword, size_t len)
{
	int kw = rec_keyword_at(keyword);

	return kw >= 0 && strlen(rec_keyword(kw)) == len;
}

void rec_fig_add(struct rec_fig *f, const struct damonctl_rec_snapshot *s)
{
	if (!f->nr++) {
		f->kdamond = s->kdamond;
		f->context = s->context;
		f->target = s->target;
		f->scheme = s->scheme;
		f->start_ns = s->start_ns;
		f->sample_us = s->sample_us;
		f->aggr_us = s->aggr_us;
	}
	f->end_ns = s->end_ns;
}

int rec_template_check(const struct cli *cli, const char *opt, const char *t)
{
	char known[256] = "";
	size_t len;
	long at = damonctl_access_template_check(DAMONCTL_ACCESS_KW_RECORD, t, &len);

	if (at < 0)
		return 0;
	for (int i = 0; rec_keyword(i); i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 i ? ", " : "", rec_keyword(i));
	return usage_error(cli, "%s: unknown keyword '%.*s' (known: %s)", opt, (int)len, t + at,
			   known);
}

bool rec_template_needs_end(const char *t)
{
	return t && strstr(t, "<duration>");
}

static const char *time_of(uint64_t us, bool raw, char *buf, size_t size)
{
	if (!raw)
		return fmt_time(us, buf, size);
	snprintf(buf, size, "%" PRIu64, us);
	return buf;
}

static void print_strings(FILE *out, const struct rec_templates *a)
{
	fprintf(out, "record head: \"%s\"\nsnapshot head: \"%s\"\nregion: \"%s\"\n"
		"snapshot tail: \"%s\"\nrecord tail: \"%s\"",
		a->record_head ? a->record_head : "", a->snapshot_head ? a->snapshot_head : "",
		a->region ? a->region : "", a->snapshot_tail ? a->snapshot_tail : "",
		a->record_tail ? a->record_tail : "");
}

static void print_keyword(FILE *out, int kw, const struct rec_fig *f, bool raw,
			  const struct rec_templates *all)
{
	char a[48], b[48];

	switch (kw) {
	case RK_KDAMOND: fprintf(out, "%" PRIu32, f->kdamond); break;
	case RK_CONTEXT: fprintf(out, "%" PRIu32, f->context); break;
	case RK_SCHEME:
	case RK_TARGET: {
		int32_t v = kw == RK_SCHEME ? f->scheme : f->target;

		if (v >= 0)
			fprintf(out, "%" PRId32, v);
		else
			fputs("None", out);	/* damo's, for a record of none */
		break;
	}
	case RK_START: fputs(time_of(f->start_ns / 1000, raw, a, sizeof(a)), out); break;
	case RK_DURATION:
		fputs(time_of((f->end_ns - f->start_ns) / 1000, raw, a, sizeof(a)), out);
		break;
	case RK_INTERVALS:
		fprintf(out, "sample %s, aggr %s", time_of(f->sample_us, raw, a, sizeof(a)),
			time_of(f->aggr_us, raw, b, sizeof(b)));
		break;
	case RK_GOAL: fputs("N/A", out); break;
	case RK_SOURCE: fputs("unknown", out); break;
	case RK_STRINGS: print_strings(out, all); break;
	}
}

void rec_template_print(FILE *out, const char *t, const struct rec_fig *f, bool raw,
			const struct rec_templates *all, const struct tmpl_opts *o)
{
	if (!t || !*t)
		return;
	for (const char *p = t; *p;) {
		int kw = *p == '<' ? rec_keyword_at(p) : -1;

		if (kw >= 0) {
			struct kw_out k;

			print_keyword(out == stdout ? kw_out_open(&k, o, rec_keyword(kw)) : out, kw,
				      f, raw, all);
			if (out == stdout)
				kw_out_close(&k);
			p += strlen(rec_keyword(kw));
		} else if (p[0] == '\\' && p[1] == 'n') {
			fputc('\n', out);
			p += 2;
		} else {
			fputc(*p++, out);
		}
	}
	fputc('\n', out);
}

json_object *rec_fig_json(const struct rec_fig *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "nr_snapshots", json_object_new_uint64(f->nr));
	json_object_object_add(o, "start_ns", json_object_new_uint64(f->start_ns));
	json_object_object_add(o, "end_ns", json_object_new_uint64(f->end_ns));
	json_object_object_add(o, "duration_ns", json_object_new_uint64(f->end_ns - f->start_ns));
	json_object_object_add(o, "sample_us", json_object_new_uint64(f->sample_us));
	json_object_object_add(o, "aggr_us", json_object_new_uint64(f->aggr_us));
	return o;
}

int min_chars_add(struct tmpl_opts *o, const char *keyword, size_t len, unsigned int n)
{
	for (unsigned int i = 0; i < o->nr_min_chars; i++)
		if (strlen(o->min_chars[i].kw) == len && !strncmp(o->min_chars[i].kw, keyword, len))
			return (o->min_chars[i].n = n), 0;	/* the last one given */
	if (o->nr_min_chars == MIN_CHARS_MAX || len >= sizeof(o->min_chars[0].kw))
		return -ENOSPC;
	memcpy(o->min_chars[o->nr_min_chars].kw, keyword, len);
	o->min_chars[o->nr_min_chars].kw[len] = '\0';
	o->min_chars[o->nr_min_chars++].n = n;
	return 0;
}

FILE *kw_out_open(struct kw_out *k, const struct tmpl_opts *o, const char *kw)
{
	*k = (struct kw_out){ .f = stdout };
	for (unsigned int i = 0; i < o->nr_min_chars; i++)
		if (!strcmp(kw, o->min_chars[i].kw))
			k->min = o->min_chars[i].n;
	if (k->min)
		k->f = open_memstream(&k->buf, &k->len);
	if (!k->f)
		k->f = stdout;	/* out of memory: the text unpadded */
	return k->f;
}

/* damo counts characters (python's len()): UTF-8 continuation bytes are not counted */
static size_t nr_chars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

void kw_out_close(struct kw_out *k)
{
	bool nl;
	size_t n;

	if (k->f == stdout)
		return;
	fclose(k->f);
	/* damo's multi-line texts have no new line at their end: the padding goes before ours */
	nl = k->len && k->buf[k->len - 1] == '\n';
	fwrite(k->buf, 1, k->len - nl, stdout);
	for (n = nr_chars(k->buf, k->len - nl); n < k->min; n++)
		putchar(' ');
	if (nl)
		putchar('\n');
	free(k->buf);
}

/* --format-set and --format-append */
static const char *const area_names[NR_TMPL_AREAS] = {
	"record_head", "snapshot_head", "region", "snapshot_tail", "record_tail",
};

int tmpl_area_parse(const struct cli *cli, const char *opt, const char *arg, const char **text)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;

	for (int a = 0; eq && a < NR_TMPL_AREAS; a++) {
		bool same = strlen(area_names[a]) == len;

		for (size_t i = 0; same && i < len; i++)	/* damo's '_' or a '-' */
			same = arg[i] == area_names[a][i] ||
			       (arg[i] == '-' && area_names[a][i] == '_');
		if (same) {
			*text = eq + 1;
			return a;
		}
	}
	usage_error(cli, "%s '%s': expected AREA=TEMPLATE, AREA one of record_head, "
		    "snapshot_head, region, snapshot_tail, record_tail", opt, arg);
	return -1;
}

int tmpl_append(struct tmpl_opts *o, enum tmpl_area a, const char *text)
{
	if (o->nr_appended == TMPL_APPEND_MAX)
		return -ENOSPC;
	o->appended[o->nr_appended].area = a;
	o->appended[o->nr_appended++].text = text;
	return 0;
}

bool tmpl_appended_to(const struct tmpl_opts *o, enum tmpl_area a)
{
	for (unsigned int i = 0; i < o->nr_appended; i++)
		if (o->appended[i].area == a)
			return true;
	return false;
}

bool tmpl_any_appended(const struct tmpl_opts *o)
{
	return o->nr_appended > 0;
}

const char *tmpl_joined(struct tmpl_joined *j, const struct tmpl_opts *o, enum tmpl_area a,
			const char *base, const char *extra)
{
	size_t len = 1;
	unsigned int i;
	char *p;

	if (!base && !tmpl_appended_to(o, a))
		return extra;
	len += base ? strlen(base) : 0;
	len += extra ? strlen(extra) : 0;
	for (i = 0; i < o->nr_appended; i++)
		len += o->appended[i].area == a ? strlen(o->appended[i].text) : 0;
	p = malloc(len);
	if (!p)
		return base;	/* out of memory: the template without what was added */
	*p = '\0';
	if (base)
		strcat(p, base);
	if (extra)
		strcat(p, extra);
	for (i = 0; i < o->nr_appended; i++)
		if (o->appended[i].area == a)
			strcat(p, o->appended[i].text);
	free(j->s[a]);
	j->s[a] = p;
	return p;
}

void tmpl_joined_free(struct tmpl_joined *j)
{
	for (int a = 0; a < NR_TMPL_AREAS; a++) {
		free(j->s[a]);
		j->s[a] = NULL;
	}
}
