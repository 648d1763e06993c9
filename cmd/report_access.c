// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report access: the regions of one snapshot (the last in the time range, the one
 * at --at or --snapshot-index), or of each in turn (--all-snapshots, a --snapshot-index
 * range), filtered by size, access rate and age, sorted by address, hotness or damo's
 * temperature; as a table, one line per region from a --format template (damo's keywords),
 * damo's boxes, the total size only, a histogram or per-byte percentiles of a metric, with
 * damo's snapshot head and tail templates and its --style presets.
 * One snapshot at a time is held, whatever the record's length. What is computed of the
 * regions (temperature, order, histograms, percentiles, totals, boxes' scales, the heatmap,
 * the templates' keywords) is libdamonctl's (damonctl_access_view_new(3)): this file chooses
 * the snapshots and renders.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quantile.h"
#include "report_boxes.h"
#include "report_pattern.h"
#include "report_snapheat.h"
#include "report_damos.h"
#include "report_templates.h"
#include "report_window.h"

#define MAX_PCTS 32
#define MAX_INDEX 32
#define HIST_MAX_GIVEN 64

enum sort_by { SORT_ADDRESS, SORT_HOT, SORT_COLD, SORT_SIZE, SORT_AGE, SORT_TEMPERATURE };
/* --box-scale-over's choices, in order */
enum scale_over { SCALE_SNAPSHOT, SCALE_RECORD };

/* report access's options (cli->opts) */
struct access_opts {
	struct rin_opts rin;	/* first: rin_parse and rin_open take them at cli->opts */
	bool have_at;
	uint64_t at_us;
	int sort;			/* enum sort_by: the index of --sort's choice */
	uint64_t top;
	struct pattern pat;
	double weights[3];		/* damo's temperature: size, access rate (%), age (us) */
	bool raw, total_only;
	const char *format;
	/* --style detailed's region template for a snapshot with probe hits, damo's (NULL:
	 * the style did not choose the template) */
	const char *format_probes;
	const char *snap_head, *snap_tail;	/* damo's --format_snapshot_head, _tail */
	const char *rec_head, *rec_tail;	/* damo's --format_record_head, _tail */
	int style;			/* -1, or enum style */
	/* --style detailed's: df-passed lines with them for a snapshot taken through ops filters */
	bool head_df, tail_df, region_df;
	bool cold_first;		/* --style cold: --sort temperature, coldest first */
	int hist;			/* -1, or enum metric (temperature, recency): the index
					 * of --histogram's choice */
	struct damonctl_access_hist_opts h;	/* its ranges (bins 0: not given) */
	const char *hranges;		/* --hist-ranges, parsed once the metric is known */
	double given[2 * HIST_MAX_GIVEN];	/* its pairs */
	int pct_of;			/* -1, or enum metric: --percentiles-of's choice */
	double pcts[MAX_PCTS];
	unsigned int nr_pcts;
	bool boxes;
	bool box_kw;			/* --format has <box> */
	bool multi;			/* a report per snapshot */
	bool all_series;		/* a report per series, in turn (damo's records) */
	bool dont_merge;		/* --dont-merge-regions */
	int scale_over;			/* -1, or enum scale_over: --box-scale-over's choice */
	unsigned int nr_index;		/* --snapshot-index ranges, in index[] */
	struct { uint64_t first, last; } index[MAX_INDEX];
	struct box_opts box;		/* --boxes' shape (--box-*, --color) */
	struct snapheat_opts heat;	/* <heatmap>'s (--snapshot-heatmap-*) */
	bool heat_given;		/* a --snapshot-heatmap-* option */
	struct tmpl_opts tmpl;		/* --min-chars-for, --format-append */
};

static const struct access_opts access_defaults = {
	.rin = RIN_OPTS_INIT, .pat = PATTERN_ANY, .weights = { 0, 100, 100 }, .hist = -1,
	.pct_of = -1, .style = -1, .scale_over = -1,
	.h = { .sz = sizeof(struct damonctl_access_hist_opts) }, .box = BOX_OPTS_INIT,
	.heat = SNAPHEAT_OPTS_INIT };

/* One run of the report: its options (check_options() completes them first) and what it
 * holds while it reads; with a report per snapshot (multi), the document's head at the
 * first, its input at the end */
struct access_run {
	struct cli *cli;
	const struct access_opts *o;
	const struct rin *in;
	struct json_stream js;
	bool js_begun;
	/* --all-series: the series' record figures, for the document's end (JSON) */
	json_object *records;
	bool head_given;	/* --format-record-head (or an append to it) */
	bool scan_each;		/* each series is read twice (scan) */
	uint64_t nr;
	bool scan;	/* a first pass: --box-scale-over record's range, the record's end */
	struct rec_fig fig, pre;	/* the record's snapshots reported; all of them (scan) */
	/* --box-scale-over record: the range of every snapshot reported, found by the scan */
	struct damonctl_access_range record_range;
	struct damos_seen seen;		/* <damos stats>: the stats read so far */
	/* a live snapshot's regions merged (damo's merged_regions()) */
	struct damonctl_rec_snapshot merged;
	struct damonctl_rec_region *merged_regions;
	size_t merged_cap;
	struct tmpl_joined joined;	/* the templates with what --format-append added */
	char *format_probes;		/* the other region template, joined (--style detailed) */
	/* --style detailed's region templates for a snapshot taken through ops filters */
	char *format_df, *format_probes_df;
};

/* damo's --style names, in enum style's order */
enum style { ST_DETAILED, ST_SIMPLE_BOXES, ST_TEMP_HIST, ST_RECENCY_HIST, ST_COLD_TAIL,
	     ST_RECENCY_PCT, ST_IDLE_PCT, ST_TEMP_PCT, ST_COLD, ST_HOT };
static const char *const style_names[] = {
	"detailed", "simple-boxes", "temperature-sz-hist", "recency-sz-hist", "cold-memory-tail",
	"recency-percentiles", "idle-time-percentiles", "temperature-percentiles", "cold", "hot",
};

/* damo's detailed style: its templates, <filters passed ...> added for a record that keeps
 * sz_filter_passed (damo's: when DAMOS filters were installed) */
#define DETAILED_HEAD "heatmap: <heatmap>\\nintervals: <snapshot intervals>"
#define DETAILED_REGION "<index> addr <start address> size <size> access <access hz> age <age>"
/* what damo's default templates add for a record whose scheme had ops filters */
#define DETAILED_REGION_DF " df-passed <filters passed bytes>"
#define DETAILED_HEAD_DF "\\n# damos filters (df): <filters passed type>\\ndf-pass: " \
	"<filters passed heatmap>"
#define DETAILED_REGION_PROBES "<index> <start address> <size>  <access hz> <age> <probe hits> "
#define DETAILED_TAIL "memory bw estimate: <estimated memory bandwidth>\\ntotal size: <total bytes>"
/* damo's, after the tail, of a scheme's own tried regions (--tried_regions_of) */
#define DETAILED_TAIL_STATS "\\nscheme stats\\n<damos stats>"
#define DETAILED_TAIL_DF "memory bw estimate: <estimated memory bandwidth>  df-passed: " \
	"<filters passed estimated memory bandwidth>\\ntotal size: <total bytes>  df-passed " \
	"<filters passed bytes>"

/* What --histogram and --percentiles-of measure, in their metavars' order, the library's
 * metrics: damo's temperature (size weight 0) and idle time, then a region's own attributes */
enum metric { M_TEMPERATURE = DAMONCTL_ACCESS_TEMPERATURE, M_RECENCY = DAMONCTL_ACCESS_IDLE_US,
	      M_ACCESS_RATE = DAMONCTL_ACCESS_RATE_BP, M_AGE = DAMONCTL_ACCESS_AGE_US,
	      M_SIZE = DAMONCTL_ACCESS_BYTES };

enum { O_AT = 300, O_SORT, O_TOP, O_WEIGHTS, O_RAW, O_TOTAL, O_FORMAT,
       O_HIST, O_BINS, O_PCT_OF, O_PCTS, O_BOXES, O_ALL, O_ALL_SERIES, O_DONT_MERGE, O_INDEX, O_HLOG, O_HCUM,
       O_HRANGES, O_SCALE_OVER, O_SNAP_HEAD, O_SNAP_TAIL, O_STYLE, O_REC_HEAD, O_REC_TAIL,
       O_HEAT_WIDTH, O_HEAT_STATIC, O_HEAT_COLORSET, O_MIN_CHARS, O_FMT_SET, O_FMT_APPEND };

#define TO(kind, member) OPT_TO(kind, struct access_opts, member)
static const struct opt access_opts[] = {
	RIN_OPTS,
	{ "at", O_AT, OV_TIME, "TIME", "the snapshot that ended at or after TIME since the record "
	  "began (default: the last one)" },
	{ "all-snapshots", O_ALL, OV_NONE, NULL, "a report of each snapshot in turn, each with its "
	  "time (as damo does)", TO(OD_FLAG, multi) },
	{ "all-series", O_ALL_SERIES, OV_NONE, NULL, "a report of each series (kdamond, context, "
	  "target, scheme) in turn, as damo reports each of its records (default: the first "
	  "series, or --kdamond's and --target's)", TO(OD_FLAG, all_series) },
	{ "dont-merge-regions", O_DONT_MERGE, OV_NONE, NULL, "live: keep adjacent regions of "
	  "the same access rate and age apart (by default one, as damo's live snapshots)",
	  TO(OD_FLAG, dont_merge) },
	{ "snapshot-index", O_INDEX, OV_STRING, "FIRST[,LAST]", "the snapshot numbered FIRST "
	  "(0: the first of the selection), or a report of each from FIRST to LAST; given more "
	  "than once, of each snapshot in any of them (damo's --snapshot_idx)" },
	/* the metavar's order is enum sort_by's */
	{ "sort", O_SORT, OV_STRING, "address|hot|cold|size|age|temperature", "the order of the "
	  "regions (default: address; temperature: damo's, hottest first)", TO(OD_CHOICE, sort) },
	{ "temperature-weights", O_WEIGHTS, OV_STRING, "SIZE,RATE,AGE", "damo's temperature: "
	  "SIZE x bytes + RATE x access % + AGE x age in us, negative for unaccessed regions "
	  "(default 0,100,100)" },
	{ "top", O_TOP, OV_INT, "N", "only the first N regions after sorting" },
	PATTERN_OPTS,
	{ "format", O_FORMAT, OV_STRING, "TEMPLATE", "one line per region, damo's keywords: "
	  "<index> <start address> <end address> <size> <access rate> <nr_accesses> <age> "
	  "<temperature> <box> (--boxes' box, shaped by --box-*) <access hz> <filters passed "
	  "bytes> <probe hits> (7.2's access probes)" },
	{ "format-region", O_FORMAT, OV_STRING, "TEMPLATE", "--format's other name (damo's "
	  "--format_region)" },
	{ "format-snapshot-head", O_SNAP_HEAD, OV_STRING, "TEMPLATE", "printed before each "
	  "snapshot's regions, damo's snapshot keywords: <total bytes> <duration> <start time> "
	  "<end time> <abs start time> <abs end time> <number of regions> <snapshot intervals> "
	  "<intervals tuning status> <estimated memory bandwidth> <filters passed bytes> "
	  "<filters passed estimated memory bandwidth> <positive access samples ratio> "
	  "<temperature-sz histogram> <recency-sz histogram> <temperature percentiles> "
	  "<recency percentiles> <region box colors> <damos stats> <filters passed type>; "
	  "\\n a new line" },
	{ "format-snapshot-tail", O_SNAP_TAIL, OV_STRING, "TEMPLATE", "printed after each "
	  "snapshot's regions, the keywords of --format-snapshot-head" },
	{ "format-record-head", O_REC_HEAD, OV_STRING, "TEMPLATE", "printed once before the "
	  "first snapshot reported, damo's record keywords: <kdamond index> <context index> "
	  "<scheme index> <target id> <abs start time> <duration> (of the snapshots reported) "
	  "<intervals> <intervals goal> <data source> <format strings>; \\n a new line" },
	{ "format-record-tail", O_REC_TAIL, OV_STRING, "TEMPLATE", "printed once after the last "
	  "snapshot reported, the keywords of --format-record-head" },
	{ "format-set", O_FMT_SET, OV_STRING, "AREA=TEMPLATE", "damo's --format set AREA "
	  "TEMPLATE: AREA's template, AREA one of record_head, snapshot_head, region, "
	  "snapshot_tail, record_tail (the --format-* option of that name)" },
	{ "format-append", O_FMT_APPEND, OV_STRING, "AREA=TEMPLATE", "damo's --format append "
	  "AREA TEMPLATE: TEMPLATE added at the end of AREA's template in force (--style's, "
	  "--style detailed's, damo's default, when no other option chooses the output); given "
	  "more than once, in the order given" },
	{ "snapshot-heatmap-width", O_HEAT_WIDTH, OV_INT, "N", "the columns of <heatmap> and "
	  "<filters passed heatmap> (default 80; damo's --snapshot_heatmap_width)" },
	{ "snapshot-heatmap-static", O_HEAT_STATIC, OV_NONE, NULL, "<heatmap>'s columns over "
	  "the whole address span, each gap between regions as dots of its width (default: over "
	  "the regions' total size, a gap wider than four columns as [...]; damo's "
	  "--snapshot_heatmap_static)" },
	{ "snapshot-heatmap-colorset", O_HEAT_COLORSET, OV_STRING, "gray|flame|emotion",
	  "<heatmap>'s colours with --color (default gray; damo's --snapshot_heatmap_colorset)" },
	{ "min-chars-for", O_MIN_CHARS, OV_STRING, "KEYWORD,N", "a keyword's text padded with "
	  "spaces to at least N characters, in every template (damo's --min_chars_for); "
	  "region, record and snapshot keywords (a multi-line one padded after its last line); "
	  "given more than once for more keywords" },
	{ "style", O_STYLE, OV_STRING, "NAME", "damo's output presets: detailed (heatmap and "
	  "intervals, each region, memory bandwidth estimate and total size), simple-boxes "
	  "(--boxes), cold and hot (--boxes sorted by temperature, coldest or hottest first), "
	  "temperature-sz-hist, recency-sz-hist or cold-memory-tail (--histogram), "
	  "temperature-percentiles, recency-percentiles or idle-time-percentiles "
	  "(--percentiles-of)" },
	{ "raw-number", O_RAW, OV_NONE, NULL, "numbers as numbers in the text: bytes, "
	  "microseconds, decimal addresses, access rates in percent without the sign (as damo)",
	  TO(OD_FLAG, raw) },
	{ "total-size", O_TOTAL, OV_NONE, NULL, "only the total size of the regions shown",
	  TO(OD_FLAG, total_only) },
	{ "histogram", O_HIST, OV_STRING, "temperature|recency", "the size of memory per range of "
	  "temperature (size weight 0) or of idle time, as damo's temperature-sz-hist and "
	  "recency-sz-hist styles", TO(OD_CHOICE, hist) },
	{ "bins", O_BINS, OV_INT, "N", "ranges of --histogram (default 10)" },
	{ "hist-logscale", O_HLOG, OV_NONE, NULL, "--histogram's ranges each twice as wide as "
	  "the one before, the first max((max - min) / 2^N, 1) for --bins N (damo's "
	  "--hist_logscale)", TO(OD_FLAG, h.logscale) },
	{ "hist-cumulate", O_HCUM, OV_NONE, NULL, "--histogram's ranges each from the smallest "
	  "value, a cumulative histogram (damo's --hist_cumulate)", TO(OD_FLAG, h.cumulate) },
	{ "hist-ranges", O_HRANGES, OV_STRING, "MIN,MAX[,MIN,MAX...]", "--histogram's ranges, "
	  "each [MIN, MAX): temperatures or idle times such as 1s (damo's --hist_ranges)",
	  TO(OD_STRING, hranges) },
	{ "percentiles-of", O_PCT_OF, OV_STRING, "temperature|recency|access-rate|age|size",
	  "per-byte percentiles of a metric over the regions shown, as damo's "
	  "temperature-percentiles and recency-percentiles styles", TO(OD_CHOICE, pct_of) },
	{ "percentiles", O_PCTS, OV_STRING, "LIST", "which percentiles --percentiles-of shows "
	  "(default damo's 0,1,25,50,75,99,100)" },
	{ "boxes", O_BOXES, OV_NONE, NULL, "each region as a box, damo's simple-boxes style: "
	  "its length the age (log scale), its digits the access rate (0-9)", TO(OD_FLAG, boxes) },
	BOX_OPTS,
	{ "box-scale-over", O_SCALE_OVER, OV_STRING, "snapshot|record", "with --boxes: the "
	  "smallest and largest values the boxes scale between are those of each snapshot's "
	  "regions shown (the default) or of every snapshot reported, as damo's (the input is "
	  "read twice)", TO(OD_CHOICE, scale_over) },
	{ 0 },
};
#undef TO

/* damo's template keywords, the library's sets: region (--format), snapshot */
#define KW_REGION DAMONCTL_ACCESS_KW_REGION
#define KW_SNAP DAMONCTL_ACCESS_KW_SNAPSHOT
#define NR_LINE_SNAP_KEYWORDS 13	/* the first snapshot ones, a line of text each */

static int check_format(struct cli *cli, const char *opt, const char *t)
{
	size_t len;
	long at = damonctl_access_template_check(KW_REGION, t, &len);

	if (at < 0)
		return 0;
	return usage_error(cli, "%s: unknown keyword '%.*s' (known: <index>, <start address>, "
			   "<end address>, <size>, <access rate>, <nr_accesses>, <age>, "
			   "<temperature>, <box>, <access hz>, <filters passed bytes>, "
			   "<probe hits>)", opt,
			   (int)len, t + at);
}

static int snap_check(struct cli *cli, const char *opt, const char *t)
{
	size_t len;
	long at = damonctl_access_template_check(KW_SNAP, t, &len);

	if (at < 0)
		return 0;
	return usage_error(cli, "%s: unknown keyword '%.*s' (see damonc-report-access(1) for the "
			   "snapshot keywords)", opt, (int)len, t + at);
}

/* --snapshot-index FIRST[,LAST], given once or more (damo's several --snapshot_idx): a range,
 * or more than one, is a report per snapshot */
static int parse_index(struct cli *cli, struct access_opts *ao, const char *arg)
{
	uint64_t first, last;
	const char *end;
	int r;

	if (ao->nr_index == MAX_INDEX)
		return usage_error(cli, "--snapshot-index '%s': at most %d of them", arg, MAX_INDEX);
	r = parse_uint_token(arg, ',', &first, &end);
	last = first;
	if (!r && *end) {
		r = parse_uint_token(end + 1, 0, &last, &end);
		ao->multi = true;
	}
	if (r || last < first)
		return usage_error(cli, "--snapshot-index '%s': expected FIRST or FIRST,LAST, "
				   "numbers from 0, FIRST <= LAST", arg);
	ao->index[ao->nr_index].first = first;
	ao->index[ao->nr_index++].last = last;
	ao->multi |= ao->nr_index > 1;
	return 0;
}

/* Where snapshot @idx stands against the --snapshot-index ranges: 0 in one, 1 after all of
 * them, -1 before one still to come */
static int index_place(const struct access_opts *ao, uint64_t idx)
{
	bool later = false;

	for (unsigned int i = 0; i < ao->nr_index; i++) {
		if (ao->index[i].first <= idx && idx <= ao->index[i].last)
			return 0;
		later |= idx < ao->index[i].first;
	}
	return later ? -1 : 1;
}

/* The smallest FIRST of --snapshot-index, for the message of a record too short */
static uint64_t index_first(const struct access_opts *ao)
{
	uint64_t f = UINT64_MAX;

	for (unsigned int i = 0; i < ao->nr_index; i++)
		f = ao->index[i].first < f ? ao->index[i].first : f;
	return f;
}

/* --min-chars-for KEYWORD,N: a keyword of a template that is one line of text */
static int parse_min_chars(struct cli *cli, struct access_opts *ao, const char *arg)
{
	const char *comma = strrchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : 0;
	int kw = comma ? damonctl_access_keyword_at(KW_REGION, arg) : -1;
	int skw = comma ? damonctl_access_keyword_at(KW_SNAP, arg) : -1;
	uint64_t n;
	const char *end;

	if (!comma || comma[1] < '0' || comma[1] > '9')
		return usage_error(cli, "--min-chars-for '%s': expected KEYWORD,N such as "
				   "'<size>,11'", arg);
	if (parse_uint_token(comma + 1, 0, &n, &end) || n > 100000)
		return usage_error(cli, "--min-chars-for '%s': N is a number of characters, "
				   "0 to 100000", arg);
	if (!(kw >= 0 && strlen(damonctl_access_keyword(KW_REGION, (unsigned int)kw)) == len) &&
	    !(skw >= 0 && strlen(damonctl_access_keyword(KW_SNAP, (unsigned int)skw)) == len) &&
	    !rec_keyword_known(arg, len))
		return usage_error(cli, "--min-chars-for '%s': '%.*s' is not a region, record or "
				   "snapshot keyword (see damonc-report-access(1))", arg,
				   (int)len, arg);
	if (min_chars_add(&ao->tmpl, arg, len, (unsigned int)n))
		return usage_error(cli, "--min-chars-for '%s': at most %d keywords", arg,
				   MIN_CHARS_MAX);
	return 0;
}

/* --snapshot-heatmap-*: the shape of <heatmap> */
static int heat_parse(struct cli *cli, struct access_opts *ao, int key, const char *arg)
{
	static const int colorsets[] = { 1, 2, 0 };	/* the metavar's, as box colour sets */
	uint64_t v;
	int r;

	ao->heat_given = true;
	if (key == O_HEAT_STATIC) {
		ao->heat.fixed = true;
		return 0;
	}
	if (key == O_HEAT_COLORSET) {
		r = opt_choice(cli, access_opts, O_HEAT_COLORSET, arg);
		if (r < 0)
			return EXIT_USAGE;
		ao->heat.colorset = colorsets[r];
		return 0;
	}
	if (parse_uint_opt(cli, "snapshot-heatmap-width", arg, 10000, &v))
		return EXIT_USAGE;
	if (!v)
		return usage_error(cli, "--snapshot-heatmap-width '%s': at least 1", arg);
	ao->heat.width = (unsigned int)v;
	return 0;
}

/* Whether a snapshot template draws a heatmap */
static bool heatmap_shown(const struct access_opts *ao)
{
	return (ao->snap_head && strstr(ao->snap_head, "heatmap>")) ||
	       (ao->snap_tail && strstr(ao->snap_tail, "heatmap>"));
}

/* --format-set and --format-append AREA=TEMPLATE, its keywords checked as the --format-*
 * option of AREA checks them */
static int format_edit(struct cli *cli, struct access_opts *ao, int key, const char *arg)
{
	const char *opt = key == O_FMT_SET ? "--format-set" : "--format-append", *t;
	int a = tmpl_area_parse(cli, opt, arg, &t), r;

	if (a < 0)
		return EXIT_USAGE;
	if (a == TA_REGION)
		r = check_format(cli, opt, t);
	else if (a == TA_SNAPSHOT_HEAD || a == TA_SNAPSHOT_TAIL)
		r = snap_check(cli, opt, t);
	else
		r = rec_template_check(cli, opt, t);
	if (r)
		return r;
	/* the options hold the arguments themselves, up to TMPL_APPEND_MAX */
	if (key == O_FMT_APPEND && tmpl_append(&ao->tmpl, a, t))
		return usage_error(cli, "%s '%s': at most %d of them", opt, arg, TMPL_APPEND_MAX);
	if (key == O_FMT_APPEND)
		return 0;
	switch (a) {
	case TA_RECORD_HEAD: ao->rec_head = t; break;
	case TA_SNAPSHOT_HEAD: ao->snap_head = t; break;
	case TA_REGION: ao->format = t; ao->box_kw = strstr(t, "<box>") != NULL; break;
	case TA_SNAPSHOT_TAIL: ao->snap_tail = t; break;
	case TA_RECORD_TAIL: ao->rec_tail = t; break;
	}
	return 0;
}

/* The record templates, the heatmap's shape, --min-chars-for: 0, an exit code, or -1 */
static int template_parse(struct cli *cli, int key, const char *arg)
{
	struct access_opts *ao = cli->opts;

	switch (key) {
	case O_FMT_SET:
	case O_FMT_APPEND:
		return format_edit(cli, ao, key, arg);
	case O_HEAT_WIDTH:
	case O_HEAT_STATIC:
	case O_HEAT_COLORSET:
		return heat_parse(cli, ao, key, arg);
	case O_MIN_CHARS:
		return parse_min_chars(cli, ao, arg);
	case O_REC_HEAD:
		ao->rec_head = arg;
		return rec_template_check(cli, "--format-record-head", arg);
	case O_REC_TAIL:
		ao->rec_tail = arg;
		return rec_template_check(cli, "--format-record-tail", arg);
	}
	return -1;
}

/* --temperature-weights SIZE,RATE,AGE */
static int parse_weights(struct cli *cli, struct access_opts *ao, const char *arg)
{
	const char *p = arg;
	char *end;

	for (int i = 0; i < 3; i++) {
		ao->weights[i] = strtod(p, &end);
		if (end == p || *end != (i < 2 ? ',' : '\0') || ao->weights[i] < 0)
			return usage_error(cli, "--temperature-weights '%s': expected three "
					   "weights SIZE,RATE,AGE, 0 or more", arg);
		p = end + 1;
	}
	return 0;
}

/* --style NAME: one of damo's presets (apply_style() sets what it stands for) */
static int parse_style(struct cli *cli, struct access_opts *ao, const char *arg)
{
	for (unsigned int i = 0; i < sizeof(style_names) / sizeof(style_names[0]); i++)
		if (!strcmp(arg, style_names[i]))
			return (ao->style = (int)i), 0;
	return usage_error(cli, "--style '%s': expected detailed, simple-boxes, "
			   "temperature-sz-hist, recency-sz-hist, cold-memory-tail, "
			   "recency-percentiles, idle-time-percentiles, "
			   "temperature-percentiles, cold or hot", arg);
}

/* What is shown of the regions, but for the table's flags and choices: 0, an exit code, or
 * -1 */
static int output_parse(struct cli *cli, struct access_opts *ao, int key, const char *arg)
{
	uint64_t v;
	int r;

	switch (key) {
	case O_FORMAT:
		ao->format = arg;
		ao->box_kw = strstr(arg, "<box>") != NULL;
		return check_format(cli, "--format", arg);
	case O_STYLE:
		return parse_style(cli, ao, arg);
	case O_SNAP_HEAD:
		ao->snap_head = arg;
		return snap_check(cli, "--format-snapshot-head", arg);
	case O_SNAP_TAIL:
		ao->snap_tail = arg;
		return snap_check(cli, "--format-snapshot-tail", arg);
	case O_BINS:
		if (parse_uint_opt(cli, "bins", arg, 1000, &v))
			return EXIT_USAGE;
		if (!v)
			return usage_error(cli, "--bins '%s': at least 1", arg);
		ao->h.bins = (unsigned int)v;
		return 0;
	case O_PCTS:
		r = qhist_parse_list(arg, ao->pcts, MAX_PCTS);
		if (r < 0)
			return usage_error(cli, "--percentiles '%s': expected up to %d numbers "
					   "from 0 to 100, comma-separated", arg, MAX_PCTS);
		ao->nr_pcts = (unsigned int)r;
		return 0;
	}
	return -1;
}

/* The options the table does not store (--top and --bins not either: their "at least 1" is
 * their own) */
static int access_parse(struct cli *cli, int key, const char *arg)
{
	struct access_opts *ao = cli->opts;
	int r = rin_parse(cli, key, arg);

	if (r < 0)
		r = template_parse(cli, key, arg);
	if (r < 0)
		r = pattern_parse(cli, &ao->pat, key, arg);
	if (r < 0)
		r = box_parse(cli, &ao->box, access_opts, key, arg);
	if (r < 0)
		r = output_parse(cli, ao, key, arg);
	if (r >= 0)
		return r;
	switch (key) {
	case O_AT:
		ao->have_at = true;
		return parse_time_opt(cli, "at", arg, &ao->at_us) ? EXIT_USAGE :
		       check_wait(cli, "at", arg, ao->at_us);
	case O_TOP:
		if (parse_uint_opt(cli, "top", arg, UINT32_MAX, &ao->top))
			return EXIT_USAGE;
		return ao->top ? 0 : usage_error(cli, "--top '%s': at least 1", arg);
	case O_WEIGHTS:
		return parse_weights(cli, ao, arg);
	case O_INDEX:
		return parse_index(cli, ao, arg);
	}
	return EXIT_USAGE;
}

struct kept {
	struct damonctl_rec_snapshot s;
	struct damonctl_rec_region *regions;
	size_t cap;
	uint8_t *hits;			/* its probe hits */
	size_t hits_cap;
	char *ops_filters;		/* the ops filters it was taken through */
	bool have;
};

static int keep(struct kept *k, const struct damonctl_rec_snapshot *s)
{
	if (s->nr_regions > k->cap) {
		void *p = realloc(k->regions, s->nr_regions * sizeof(*k->regions));

		if (!p)
			return -ENOMEM;
		k->regions = p;
		k->cap = s->nr_regions;
	}
	if (s->nr_regions)	/* a snapshot without regions has no array to copy */
		memcpy(k->regions, s->regions, s->nr_regions * sizeof(*k->regions));
	if (s->probe_hits && (size_t)s->nr_regions * s->nr_probes > k->hits_cap) {
		void *p = realloc(k->hits, (size_t)s->nr_regions * s->nr_probes);

		if (!p)
			return -ENOMEM;
		k->hits = p;
		k->hits_cap = (size_t)s->nr_regions * s->nr_probes;
	}
	if (s->probe_hits)
		memcpy(k->hits, s->probe_hits, (size_t)s->nr_regions * s->nr_probes);
	free(k->ops_filters);
	k->ops_filters = s->ops_filters ? strdup(s->ops_filters) : NULL;
	if (s->ops_filters && !k->ops_filters)
		return -ENOMEM;
	k->s = *s;
	k->s.ops_filters = k->ops_filters;
	k->s.regions = k->regions;
	k->s.probe_hits = s->probe_hits ? k->hits : NULL;
	k->have = true;
	return 0;
}

/* An access rate: "12.34%", or with --raw-number the percentage as damo's raw numbers
 * write it ("12.340000": printf's %f, no sign). */
static const char *rate_str(const struct access_opts *ao, uint64_t bp, char *buf, size_t size)
{
	snprintf(buf, size, ao->raw ? "%f" : "%.2f%%", (double)bp / 100);
	return buf;
}

static const char *size_str(const struct access_opts *ao, uint64_t v, char *buf, size_t size)
{
	if (!ao->raw)
		return fmt_size(v, buf, size);
	snprintf(buf, size, "%" PRIu64, v);
	return buf;
}

static const char *time_str(const struct access_opts *ao, uint64_t us, char *buf, size_t size)
{
	if (!ao->raw)
		return fmt_time(us, buf, size);
	snprintf(buf, size, "%" PRIu64, us);
	return buf;
}

static const char *addr_str(const struct access_opts *ao, uint64_t a, char *buf, size_t size)
{
	if (!ao->raw)
		return fmt_addr(a, buf, size);
	snprintf(buf, size, "%" PRIu64, a);
	return buf;
}

static struct damonctl_access_range box_range(const struct access_run *ar,
					      const struct damonctl_access_view *v);

static void print_probe_hits(FILE *o, const struct damonctl_access_region *r)
{
	for (uint32_t p = 0; p < r->nr_probes; p++)
		fprintf(o, "%s%u", p ? " " : "", (unsigned int)r->probe_hits[p]);
}

/* Region keyword @kw of row @i (<box> on scales @b; @has_fp: the record keeps
 * sz_filter_passed) to @o */
static void print_region_keyword(const struct access_opts *ao, FILE *o, int kw,
				 const struct damonctl_access_region *r, size_t i,
				 const struct damonctl_access_range *b, bool has_fp)
{
	char v[48];

	switch (kw) {
	case 0:
		fprintf(o, "%zu", i);
		break;
	case 1:
		fputs(addr_str(ao, r->start, v, sizeof(v)), o);
		break;
	case 2:
		fputs(addr_str(ao, r->end, v, sizeof(v)), o);
		break;
	case 3:
		fputs(size_str(ao, r->end - r->start, v, sizeof(v)), o);
		break;
	case 4:
		fputs(rate_str(ao, r->rate_bp, v, sizeof(v)), o);
		break;
	case 5:
		fprintf(o, "%" PRIu32, r->nr_accesses);
		break;
	case 6:
		fputs(time_str(ao, r->age_us, v, sizeof(v)), o);
		break;
	case 7:
		fprintf(o, "%.0f", r->temperature);
		break;
	case 8: {
		struct box x = box_of(&ao->box, b, r);

		box_print(o, &ao->box, &x, box_colored(&ao->box));
		break;
	}
	case 9:	/* damo's format_hz */
		fprintf(o, ao->raw ? "%f" : r->hz < 10 && r->hz ? "%.3f hz" : "%.0f hz", r->hz);
		break;
	case 10:
		fputs(has_fp ? size_str(ao, r->sz_filter_passed, v, sizeof(v)) : "N/A", o);
		break;
	case 11:	/* damo's: each probe's hits, a space between; nothing without probes */
		print_probe_hits(o, r);
		break;
	}
}

/* One line of template @fmt for row @i; its <box> on scales @b; --min-chars-for's padding */
static void print_formatted(const struct access_opts *ao, const char *fmt,
			    const struct damonctl_access_region *r, size_t i,
			    const struct damonctl_access_range *b, bool has_fp)
{
	for (const char *p = fmt; *p;) {
		int kw = *p == '<' ? damonctl_access_keyword_at(KW_REGION, p) : -1;
		const char *name;
		struct kw_out k;

		if (kw < 0) {
			putchar(*p++);
			continue;
		}
		name = damonctl_access_keyword(KW_REGION, (unsigned int)kw);
		print_region_keyword(ao, kw_out_open(&k, &ao->tmpl, name), kw, r, i, b, has_fp);
		kw_out_close(&k);
		p += strlen(name);
	}
	putchar('\n');
}

/* The snapshot, its intervals, and how much of it is shown */
static void print_title(const struct access_opts *ao, const struct rin *in,
			const struct damonctl_rec_snapshot *s, size_t n, uint64_t shown)
{
	char a[32], b[32], c[32], d[32];

	printf("%s, snapshot at %.3f s (sample %s, aggr %s): %u regions, %s; %zu shown, %s\n",
	       rin_series_name(in), rin_rel_s(in, s->end_ns),
	       fmt_time(s->sample_us, a, sizeof(a)), fmt_time(s->aggr_us, b, sizeof(b)),
	       s->nr_regions, size_str(ao, s->total_bytes, c, sizeof(c)), n,
	       size_str(ao, shown, d, sizeof(d)));
}

static void print_text(const struct access_run *ar, const struct damonctl_rec_snapshot *s,
		       const struct damonctl_access_view *v)
{
	const struct access_opts *ao = ar->o;
	size_t i, n = damonctl_access_view_count(v);
	uint64_t shown = damonctl_access_view_bytes(v);
	char a[32], b[32];

	if (ao->total_only) {
		printf("%s\n", size_str(ao, shown, a, sizeof(a)));
		return;
	}
	if (ao->format) {
		struct damonctl_access_range b = box_range(ar, v);
		/* damo's default template shows the probe hits of a record that has them, and
		 * the bytes the ops filters passed of one taken through them */
		bool df = ar->format_df && damonctl_access_filters_installed(s->ops_filters);
		const char *fmt = ao->format_probes && s->nr_probes ?
				  (df ? ar->format_probes_df : ao->format_probes) :
				  (df ? ar->format_df : ao->format);

		for (i = 0; i < n && *fmt; i++)	/* damo prints nothing for "" */
			print_formatted(ao, fmt, damonctl_access_view_region(v, i), i, &b,
					s->has_sz_filter_passed);
		return;
	}
	print_title(ao, ar->in, s, n, shown);
	if (!n)
		return;
	printf("%-18s %-18s %11s %8s %12s %11s%s\n", "start", "end", "size", "access",
	       "nr_accesses", "age", s->nr_probes ? "  probe hits" : "");
	for (i = 0; i < n; i++) {
		const struct damonctl_access_region *r = damonctl_access_view_region(v, i);
		char s1[32], s2[32], c[32];

		printf("%-18s %-18s %11s %8s %12" PRIu32 " %11s",
		       addr_str(ao, r->start, s1, sizeof(s1)), addr_str(ao, r->end, s2, sizeof(s2)),
		       ao->raw ? size_str(ao, r->end - r->start, a, sizeof(a)) :
		       fmt_size_col(r->end - r->start, a, sizeof(a)),
		       rate_str(ao, r->rate_bp, c, sizeof(c)), r->nr_accesses,
		       time_str(ao, r->age_us, b, sizeof(b)));
		if (r->nr_probes) {
			fputs("  ", stdout);
			print_probe_hits(stdout, r);
		}
		putchar('\n');
	}
}

/* Its name in the JSON, with the unit of the values */
static const char *metric_json_name(int m)
{
	static const char *const names[] = { "temperature", "idle_us", "access_rate_bp",
					     "age_us", "bytes" };

	return names[m];
}

/* A value of metric @m for people (or, --raw-number, programs) */
static const char *metric_str(const struct access_opts *ao, int m, double v, char *buf,
			      size_t size)
{
	switch (m) {
	case M_RECENCY:
	case M_AGE:
		return time_str(ao, (uint64_t)v, buf, size);
	case M_SIZE:
		return size_str(ao, (uint64_t)v, buf, size);
	case M_ACCESS_RATE:
		if (ao->raw)
			snprintf(buf, size, "%.0f", v);
		else
			snprintf(buf, size, "%.2f%%", v / 100);
		return buf;
	}
	snprintf(buf, size, "%.0f", v + 0.0);	/* + 0.0: an unaccessed region's -0 is 0 */
	return buf;
}

/* bin @i of h */
#define B(i) damonctl_access_hist_bin(h, i)
static void print_histogram(FILE *out, const struct access_opts *ao,
			    const struct damonctl_access_hist *h, int metric)
{
	unsigned int nb = damonctl_access_hist_count(h);
	uint64_t lo = UINT64_MAX, hi = 0, step;
	char range[96], x1[32], x2[32], sz[32];
	int wr = 0, ws = 0;
	unsigned int i;

	for (i = 0; i < nb; i++) {
		lo = B(i)->bytes < lo ? B(i)->bytes : lo;
		hi = B(i)->bytes > hi ? B(i)->bytes : hi;
	}
	step = (hi - lo) / 20 ? (hi - lo) / 20 : 1;
	for (i = 0; i < nb; i++) {
		int a = (int)strlen(metric_str(ao, metric, B(i)->lo, x1, sizeof(x1))) +
			(int)strlen(metric_str(ao, metric, B(i)->hi, x2, sizeof(x2)));
		int c = (int)strlen(size_str(ao, B(i)->bytes, sz, sizeof(sz)));

		wr = a + 4 > wr ? a + 4 : wr;
		ws = c > ws ? c : ws;
	}
	for (i = 0; i < nb; i++) {
		uint64_t dots = (B(i)->bytes - lo + step - 1) / step;

		snprintf(range, sizeof(range), "[%s, %s)",
			 metric_str(ao, metric, B(i)->lo, x1, sizeof(x1)),
			 metric_str(ao, metric, B(i)->hi, x2, sizeof(x2)));
		dots = dots > 20 ? 20 : dots;
		fprintf(out, "%-*s %*s |%.*s%*s|\n", wr, range, ws,
			size_str(ao, B(i)->bytes, sz, sizeof(sz)),
		       (int)dots, "********************", 20 - (int)dots, "");
	}
}
#undef B

static const char *const metric_titles[] = { "temperature", "idle time", "access rate", "age",
					      "size" };

/* damo's layout: the percentile, the value, a bar of up to 20 stars from the smallest value
 * shown to the largest */
static void print_percentiles(FILE *out, const struct access_opts *ao, const double *v,
			      int metric)
{
	double lo = v[0], hi = v[0], per_dot;
	int wp = 10, wv = (int)strlen(metric_titles[metric]);
	char buf[48];
	unsigned int k;

	for (k = 0; k < ao->nr_pcts; k++) {
		int l = (int)strlen(metric_str(ao, metric, v[k], buf, sizeof(buf)));

		wv = l > wv ? l : wv;
		lo = v[k] < lo ? v[k] : lo;
		hi = v[k] > hi ? v[k] : hi;
	}
	per_dot = hi > lo ? (hi - lo) / 20 : 1;
	if (metric == M_TEMPERATURE)
		fprintf(out, "%*s  %*s  (weights 0,%g,%g)\n", wp, "percentile", wv,
			metric_titles[0], ao->weights[1], ao->weights[2]);
	else
		fprintf(out, "%*s  %*s\n", wp, "percentile", wv, metric_titles[metric]);
	for (k = 0; k < ao->nr_pcts; k++) {
		int dots = (int)((v[k] - lo) / per_dot);

		dots = dots > 20 ? 20 : dots;
		fprintf(out, "%*g  %*s  |%.*s%*s|\n", wp, ao->pcts[k], wv,
			metric_str(ao, metric, v[k], buf, sizeof(buf)), dots,
			"********************", 20 - dots, "");
	}
}

/* --boxes: damo's region box (report_boxes.c), by default its simple-boxes style: a box per
 * region whose length is its age on a log2 scale (1 to 40 columns) and whose digits are its
 * access rate (0 to 9), both between the smallest and the largest of the regions shown */
static struct damonctl_access_range box_range(const struct access_run *ar,
					      const struct damonctl_access_view *v)
{
	struct damonctl_access_range b = DAMONCTL_ACCESS_RANGE_INIT;

	if (ar->o->scale_over == SCALE_RECORD && ar->record_range.have)
		return ar->record_range;
	damonctl_access_range_add(&b, v);
	return b;
}

/* A value of the boxes for people: bytes, access rate (bp), age (us) */
static const char *box_value_str(const struct access_opts *ao, enum box_value v, double x,
				 char *buf, size_t size)
{
	if (v == BV_SIZE)
		return size_str(ao, (uint64_t)x, buf, size);
	if (v == BV_AGE)
		return time_str(ao, (uint64_t)x, buf, size);
	snprintf(buf, size, "%.2f%%", x / 100);
	return buf;
}

static const char *const box_titles[] = { "size", "access rate", "age" };

/* What each dimension shows, over which range; the default's scales are damo's */
static void box_legend(const struct access_opts *ao, const struct damonctl_access_range *b,
		       bool color)
{
	enum box_value v = ao->box.value[BD_LENGTH];
	char s1[32], s2[32];

	printf("# length: %s, %s to %s in %u to %u columns (%s scale)\n", box_titles[v],
	       box_value_str(ao, v, b->min[box_metric(v)], s1, sizeof(s1)),
	       box_value_str(ao, v, b->max[box_metric(v)], s2, sizeof(s2)), ao->box.min[BD_LENGTH],
	       ao->box.max[BD_LENGTH], ao->box.log[BD_LENGTH] ? "log" : "linear");
	v = ao->box.value[BD_LEVEL];
	if (v == BV_NONE) {
		printf("# digits: none ('-')\n");
	} else {
		printf("# digits: %s, %s to %s as 0 to 9%s", box_titles[v],
		       box_value_str(ao, v, b->min[box_metric(v)], s1, sizeof(s1)),
		       box_value_str(ao, v, b->max[box_metric(v)], s2, sizeof(s2)),
		       ao->box.log[BD_LEVEL] ? " (log scale)" : "");
		if (color) {
			printf(", colours %s: ", box_colorset_name(&ao->box));
			box_color_samples(stdout, &ao->box);
		}
		putchar('\n');
	}
	v = ao->box.value[BD_HEIGHT];
	if (v != BV_NONE && ao->box.max[BD_HEIGHT] > 1)
		printf("# height: %s, %s to %s in %u to %u rows (%s scale)\n", box_titles[v],
		       box_value_str(ao, v, b->min[box_metric(v)], s1, sizeof(s1)),
		       box_value_str(ao, v, b->max[box_metric(v)], s2, sizeof(s2)),
		       ao->box.min[BD_HEIGHT], ao->box.max[BD_HEIGHT],
		       ao->box.log[BD_HEIGHT] ? "log" : "linear");
}

static void print_boxes(const struct access_run *ar, const struct damonctl_rec_snapshot *s,
			const struct damonctl_access_view *v)
{
	const struct access_opts *ao = ar->o;
	struct damonctl_access_range b = box_range(ar, v);
	size_t i, n = damonctl_access_view_count(v);
	bool color = box_colored(&ao->box);
	char s1[32], s2[32], s3[32];

	print_title(ao, ar->in, s, n, damonctl_access_view_bytes(v));
	for (i = 0; i < n; i++) {
		const struct damonctl_access_region *r = damonctl_access_view_region(v, i);
		struct box x = box_of(&ao->box, &b, r);

		box_print(stdout, &ao->box, &x, color);
		printf(" size %-11s access %8s age %s\n",
		       size_str(ao, r->end - r->start, s1, sizeof(s1)),
		       rate_str(ao, r->rate_bp, s3, sizeof(s3)),
		       time_str(ao, r->age_us, s2, sizeof(s2)));
	}
	if (n)
		box_legend(ao, &b, color);
}

/* The boxes' scales in the JSON: the simple-boxes keys, then what the options chose */
static json_object *boxes_json(const struct access_opts *ao, const struct damonctl_access_range *b)
{
	static const char *const dims[] = { "length", "digit", "height" };
	json_object *o = json_object_new_object(), *v = json_object_new_object();
	json_object *sc = json_object_new_object();
	/* the simple-boxes keys: the range of each value the boxes show by default */
	static const struct { const char *min, *max; enum damonctl_access_metric m; } keys[] = {
		{ "age_us_min", "age_us_max", DAMONCTL_ACCESS_AGE_US },
		{ "access_rate_bp_min", "access_rate_bp_max", DAMONCTL_ACCESS_RATE_BP },
		{ "bytes_min", "bytes_max", DAMONCTL_ACCESS_BYTES },
	};

	json_object_object_add(o, "columns", json_object_new_int((int)ao->box.max[BD_LENGTH]));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object_object_add(o, keys[i].min, json_object_new_uint64(
			(uint64_t)b->min[keys[i].m]));
		json_object_object_add(o, keys[i].max, json_object_new_uint64(
			(uint64_t)b->max[keys[i].m]));
	}
	json_object_object_add(o, "scale_over", json_object_new_string(
		ao->scale_over == SCALE_RECORD ? "record" : "snapshot"));
	for (int d = 0; d < BD_NR; d++) {
		json_object_object_add(v, dims[d], json_object_new_string(
			box_value_name(ao->box.value[d])));
		json_object_object_add(sc, dims[d], json_object_new_string(
			ao->box.log[d] ? "log" : "linear"));
	}
	json_object_object_add(o, "values", v);
	json_object_object_add(o, "scales", sc);
	json_object_object_add(o, "length_min", json_object_new_int((int)ao->box.min[BD_LENGTH]));
	json_object_object_add(o, "height_min", json_object_new_int((int)ao->box.min[BD_HEIGHT]));
	json_object_object_add(o, "height_max", json_object_new_int((int)ao->box.max[BD_HEIGHT]));
	json_object_object_add(o, "colorset", json_object_new_string(box_colorset_name(&ao->box)));
	json_object_object_add(o, "align", json_object_new_string(ao->box.left ? "left" : "right"));
	return o;
}

static json_object *snapshot_json(const struct rin *in, const struct damonctl_rec_snapshot *s)
{
	json_object *snap = json_object_new_object();

	json_object_object_add(snap, "time_us", json_object_new_uint64(
		s->end_ns > rin_base_ns(in) ? (s->end_ns - rin_base_ns(in)) / 1000 : 0));
	json_object_object_add(snap, "start_ns", json_object_new_uint64(s->start_ns));
	json_object_object_add(snap, "end_ns", json_object_new_uint64(s->end_ns));
	json_object_object_add(snap, "sample_us", json_object_new_uint64(s->sample_us));
	json_object_object_add(snap, "aggr_us", json_object_new_uint64(s->aggr_us));
	json_object_object_add(snap, "nr_regions", json_object_new_uint64(s->nr_regions));
	json_object_object_add(snap, "total_bytes", json_object_new_uint64(s->total_bytes));
	if (damonctl_access_filters_installed(s->ops_filters))	/* what it was taken through */
		json_object_object_add(snap, "ops_filters", json_tokener_parse(s->ops_filters));
	return snap;
}

/* The report of one snapshot, its buffers reused by the next */
struct one {
	struct damonctl_access_view *v;
	struct damonctl_access_hist *hist;
	double *pcts;
};

static json_object *region_json(const struct access_opts *ao,
				const struct damonctl_access_region *r,
				const struct damonctl_access_range *b, bool has_fp)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "start", json_object_new_uint64(r->start));
	json_object_object_add(o, "end", json_object_new_uint64(r->end));
	json_object_object_add(o, "size", json_object_new_uint64(r->end - r->start));
	json_object_object_add(o, "nr_accesses", json_object_new_uint64(r->nr_accesses));
	json_object_object_add(o, "access_rate_bp", json_object_new_uint64(r->rate_bp));
	json_object_object_add(o, "age_aggrs", json_object_new_uint64(r->age));
	json_object_object_add(o, "age_us", json_object_new_uint64(r->age_us));
	json_object_object_add(o, "temperature", json_object_new_double(r->temperature));
	if (has_fp)	/* the bytes the scheme's ops filters passed (6.14's sz_filter_passed) */
		json_object_object_add(o, "filters_passed_bytes",
				       json_object_new_uint64(r->sz_filter_passed));
	if (r->nr_probes) {	/* 7.2's probes: each one's hits, as damo's probe_hits */
		json_object *h = json_object_new_array();

		for (uint32_t p = 0; p < r->nr_probes; p++)
			json_object_array_add(h, json_object_new_int(r->probe_hits[p]));
		json_object_object_add(o, "probe_hits", h);
	}
	if (ao->boxes || ao->box_kw) {
		struct box x = box_of(&ao->box, b, r);

		json_object_object_add(o, "box_length", json_object_new_uint64(x.length));
		if (x.level >= 0)
			json_object_object_add(o, "box_level", json_object_new_int(x.level));
		json_object_object_add(o, "box_height", json_object_new_uint64(x.height));
	}
	return o;
}

static void snap_json_add(json_object *snap, const struct damonctl_rec_snapshot *s);

/* The members of one snapshot's report into @doc */
static void add_members(json_object *doc, const struct access_run *ar,
			const struct damonctl_rec_snapshot *s, const struct one *r)
{
	const struct access_opts *ao = ar->o;
	json_object *arr = json_object_new_array(), *snap = snapshot_json(ar->in, s);
	struct damonctl_access_range bs = box_range(ar, r->v);
	size_t i, n = damonctl_access_view_count(r->v);

	const struct damonctl_rec_stats *st = damos_seen_of(&ar->seen, s);
	/* the regions' filter-passed bytes mean something where ops filters were installed */
	bool fp = s->has_sz_filter_passed && damonctl_access_filters_installed(s->ops_filters);

	if (ao->snap_head || ao->snap_tail)
		snap_json_add(snap, s);
	if (st)	/* a tried-regions scheme's snapshot */
		json_object_object_add(snap, "damos_stats", damos_stats_json(st));
	json_object_object_add(doc, "snapshot", snap);
	for (i = 0; i < n; i++)
		json_object_array_add(arr, region_json(ao, damonctl_access_view_region(r->v, i),
						       &bs, fp));
	json_object_object_add(doc, "regions", arr);
	json_object_object_add(doc, "shown_bytes",
			       json_object_new_uint64(damonctl_access_view_bytes(r->v)));
	if (r->hist) {
		json_object *h = json_object_new_object(), *ba = json_object_new_array();

		json_object_object_add(h, "metric", json_object_new_string(
			ao->hist == M_RECENCY ? "idle_us" : "temperature"));
		json_object_object_add(h, "ranges", json_object_new_string(
			ao->h.nr_ranges ? "given" : ao->h.logscale ? "logscale" : "linear"));
		json_object_object_add(h, "cumulative", json_object_new_boolean(ao->h.cumulate));
		for (i = 0; i < damonctl_access_hist_count(r->hist); i++) {
			const struct damonctl_access_bin *b = damonctl_access_hist_bin(r->hist,
										      (unsigned int)i);
			json_object *o = json_object_new_object();

			json_object_object_add(o, "min", json_object_new_double(b->lo));
			json_object_object_add(o, "max", json_object_new_double(b->hi));
			json_object_object_add(o, "bytes", json_object_new_uint64(b->bytes));
			json_object_array_add(ba, o);
		}
		json_object_object_add(h, "bins", ba);
		json_object_object_add(doc, "histogram", h);
	}
	if (r->pcts) {
		json_object *p = json_object_new_object(), *pa = json_object_new_array();

		json_object_object_add(p, "metric", json_object_new_string(
			metric_json_name(ao->pct_of)));
		for (i = 0; n && i < ao->nr_pcts; i++) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "percentile",
					       json_object_new_double(ao->pcts[i]));
			json_object_object_add(o, "value", ao->pct_of == M_TEMPERATURE ?
					       json_object_new_double(r->pcts[i]) :
					       json_object_new_uint64((uint64_t)r->pcts[i]));
			json_object_array_add(pa, o);
		}
		json_object_object_add(p, "values", pa);
		json_object_object_add(doc, "percentiles", p);
	}
	if ((ao->boxes || ao->box_kw) && n)
		json_object_object_add(doc, "boxes", boxes_json(ao, &bs));
}

/* The regions of snapshot @s shown, sorted, and what is drawn of them; -ENOMEM */
static int build(const struct access_opts *ao, struct one *o,
		 const struct damonctl_rec_snapshot *s)
{
	int r = damonctl_access_view_build(o->v, s);

	damonctl_access_hist_free(o->hist);
	o->hist = NULL;
	if (!r && ao->hist >= 0)
		r = damonctl_access_histogram(o->v, (enum damonctl_access_metric)ao->hist, &ao->h,
					      &o->hist);
	if (!r && ao->pct_of >= 0 && !o->pcts &&
	    !(o->pcts = calloc(ao->nr_pcts, sizeof(*o->pcts))))
		r = -ENOMEM;
	if (!r && ao->pct_of >= 0)
		r = damonctl_access_percentiles(o->v, (enum damonctl_access_metric)ao->pct_of,
						false, ao->pcts, ao->nr_pcts, o->pcts);
	return r;
}

static void print_pct(const struct access_opts *ao, FILE *o, double v)
{
	fprintf(o, ao->raw ? "%g" : "%.2f%%", v);
}

/* A multi-line keyword: --histogram's or --percentiles-of's output of metric @m over the
 * regions shown, as if it had been asked for */
static void print_snap_block(FILE *out, const struct access_opts *ao, int kw,
			     const struct one *o)
{
	bool df = kw >= 21;
	int m;

	kw = kw >= 21 ? kw - 8 : kw;	/* the df-passed ones, as their whole-size ones */
	if (kw == 13 || kw == 14) {
		struct damonctl_access_hist_opts h = ao->h;
		struct damonctl_access_hist *b;

		m = kw == 13 ? M_TEMPERATURE : M_RECENCY;
		h.df_passed = df;
		if (!damonctl_access_histogram(o->v, (enum damonctl_access_metric)m, &h, &b))
			print_histogram(out, ao, b, m);
		damonctl_access_hist_free(b);
	} else {
		double v[MAX_PCTS];

		m = kw == 15 ? M_TEMPERATURE : M_RECENCY;
		if (damonctl_access_view_count(o->v) &&
		    !damonctl_access_percentiles(o->v, (enum damonctl_access_metric)m, df,
						 ao->pcts, ao->nr_pcts, v))
			print_percentiles(out, ao, v, m);
	}
}

/* A one-line snapshot keyword (@kw below NR_LINE_SNAP_KEYWORDS) to @o */
static void print_snap_line(FILE *o, const struct access_opts *ao, int kw, const struct rin *in,
			    const struct damonctl_rec_snapshot *s)
{
	struct damonctl_access_totals f = { .sz = sizeof(f) };
	uint64_t base = rin_base_ns(in);
	char a[48], b[48], c[48], d[48];

	damonctl_access_totals(s, &f);
	switch (kw) {
	case 0: fputs(size_str(ao, s->total_bytes, a, sizeof(a)), o); break;
	case 1: fputs(time_str(ao, (s->end_ns - s->start_ns) / 1000, a, sizeof(a)), o); break;
	case 2: fputs(time_str(ao, s->start_ns > base ? (s->start_ns - base) / 1000 : 0, a,
			       sizeof(a)), o); break;
	case 3: fputs(time_str(ao, s->end_ns > base ? (s->end_ns - base) / 1000 : 0, a, sizeof(a)),
		      o); break;
	case 4: fputs(time_str(ao, s->start_ns / 1000, a, sizeof(a)), o); break;
	case 5: fputs(time_str(ao, s->end_ns / 1000, a, sizeof(a)), o); break;
	case 6: fprintf(o, "%" PRIu32, s->nr_regions); break;
	case 7:
		fprintf(o, "sample %s aggr %s (max access hz %g)",
			time_str(ao, s->sample_us, a, sizeof(a)),
			time_str(ao, s->aggr_us, b, sizeof(b)), f.max_hz);
		break;
	case 8:
		print_pct(ao, o, f.max_observed > 0 ? f.observed * 100 / f.max_observed : 0);
		fprintf(o, " (%s / %s) %s %s", size_str(ao, (uint64_t)f.observed, a, sizeof(a)),
			size_str(ao, (uint64_t)f.max_observed, b, sizeof(b)),
			time_str(ao, s->sample_us, c, sizeof(c)),
			time_str(ao, s->aggr_us, d, sizeof(d)));
		break;
	case 9: fprintf(o, "%s per second", size_str(ao, (uint64_t)f.bw, a, sizeof(a))); break;
	case 10:
	case 11:
		if (!s->has_sz_filter_passed)
			fputs("N/A", o);	/* damo's word for a record without them */
		else if (kw == 10)
			fputs(size_str(ao, f.fp_bytes, a, sizeof(a)), o);
		else
			fprintf(o, "%s per second", size_str(ao, (uint64_t)f.fp_bw, a, sizeof(a)));
		break;
	case 12: print_pct(ao, o, f.samples_pct); break;
	}
}

/* A snapshot keyword of more than one line, or drawn (@kw from NR_LINE_SNAP_KEYWORDS) to
 * @out; false when it ended with a new line */
static bool print_snap_other(FILE *out, const struct access_run *ar, int kw,
			     const struct damonctl_rec_snapshot *s, const struct one *o)
{
	const struct access_opts *ao = ar->o;

	switch (kw) {
	case 17: box_color_samples(out, &ao->box); break;
	case 25: {	/* <filters passed type>: damo's words for the ops filters, or n/a */
		char buf[1024];

		if (damonctl_access_filters_text(s->ops_filters, buf, sizeof(buf)) < 0)
			snprintf(buf, sizeof(buf), "n/a");
		fputs(buf, out);
		break;
	}
	case 18: damos_stats_print(out, damos_seen_of(&ar->seen, s), ao->raw); break;
	case 19:
	case 20:
		if (kw == 20 && !s->has_sz_filter_passed) {
			fputs("N/A", out);
			break;
		}
		fflush(out);
		snapheat_print(out, &ao->heat, s, ao->weights, kw == 20, box_colored(&ao->box),
			       ao->raw);
		break;
	default:
		if (kw >= 21 && !s->has_sz_filter_passed) {
			fputs("N/A", out);
			break;
		}
		print_snap_block(out, ao, kw, o);
		return false;
	}
	return true;
}

/* One snapshot keyword's text, padded as --min-chars-for asks; false when it ended with a
 * new line */
static bool print_snap_keyword(const struct access_run *ar, int kw,
			       const struct damonctl_rec_snapshot *s, const struct one *o)
{
	struct kw_out k;
	FILE *out = kw_out_open(&k, &ar->o->tmpl,
				damonctl_access_keyword(KW_SNAP, (unsigned int)kw));
	bool open = true;

	if (kw < NR_LINE_SNAP_KEYWORDS)
		print_snap_line(out, ar->o, kw, ar->in, s);
	else
		open = print_snap_other(out, ar, kw, s, o);
	kw_out_close(&k);
	return open;
}

/* --format-snapshot-head or -tail @t for snapshot @s; "\n" (two characters) is a new line,
 * as damo's; a new line at the end unless a block ended it */
static void print_snap_template(const struct access_run *ar, const char *t,
				const struct damonctl_rec_snapshot *s, const struct one *o)
{
	bool open = true;

	if (!*t)
		return;	/* damo prints nothing for an empty template */
	for (const char *p = t; *p;) {
		int kw = *p == '<' ? damonctl_access_keyword_at(KW_SNAP, p) : -1;

		if (kw >= 0) {
			open = print_snap_keyword(ar, kw, s, o);
			p += strlen(damonctl_access_keyword(KW_SNAP, (unsigned int)kw));
		} else if (p[0] == '\\' && p[1] == 'n') {
			putchar('\n');
			open = false;
			p += 2;
		} else {
			putchar(*p++);
			open = true;
		}
	}
	if (open)
		putchar('\n');
}

/* The figures of the snapshot keywords the JSON has no member for yet */
static void snap_json_add(json_object *snap, const struct damonctl_rec_snapshot *s)
{
	struct damonctl_access_totals f = { .sz = sizeof(f) };

	damonctl_access_totals(s, &f);
	json_object_object_add(snap, "mem_bw_bytes_per_s", json_object_new_uint64((uint64_t)f.bw));
	json_object_object_add(snap, "max_access_hz", json_object_new_double(f.max_hz));
	json_object_object_add(snap, "observed_bytes", json_object_new_uint64((uint64_t)f.observed));
	json_object_object_add(snap, "max_observed_bytes",
			       json_object_new_uint64((uint64_t)f.max_observed));
	if (s->has_sz_filter_passed) {
		json_object_object_add(snap, "filters_passed_bytes", json_object_new_uint64(f.fp_bytes));
		json_object_object_add(snap, "filters_passed_mem_bw_bytes_per_s",
				       json_object_new_uint64((uint64_t)f.fp_bw));
	}
}

static void print_one_body(const struct access_run *ar, const struct damonctl_rec_snapshot *s,
			   const struct one *o);

/* One snapshot's report for people; @nr: how many came before (a blank line between) */
static void print_one(struct access_run *ar, const struct damonctl_rec_snapshot *s,
		      const struct one *o, uint64_t nr)
{
	const struct access_opts *ao = ar->o;
	/* damo's: df-passed lines for a snapshot taken through ops filters */
	bool df = damonctl_access_filters_installed(s->ops_filters);
	const char *t;

	if (nr && !ao->total_only)
		putchar('\n');
	/* --style detailed: the filters and a df-passed heatmap line; then what --format-append
	 * adds */
	t = tmpl_joined(&ar->joined, &ao->tmpl, TA_SNAPSHOT_HEAD, ao->snap_head,
			ao->snap_head && ao->head_df && df ? DETAILED_HEAD_DF : NULL);
	if (t)
		print_snap_template(ar, t, s, o);
	print_one_body(ar, s, o);
	t = tmpl_joined(&ar->joined, &ao->tmpl, TA_SNAPSHOT_TAIL,
			ao->tail_df && df ? DETAILED_TAIL_DF : ao->snap_tail,
			ao->tail_df && ao->rin.cap.of_scheme ? DETAILED_TAIL_STATS : NULL);
	if (t)
		print_snap_template(ar, t, s, o);
}

/* As damo's histogram and percentile styles, for a snapshot taken through ops filters: the
 * filters, and the same distribution of the bytes they passed first (temperature and
 * recency: the metrics damo has df-passed ones of) */
static void print_df_block(const struct access_run *ar, const struct damonctl_rec_snapshot *s,
			   const struct one *o)
{
	const struct access_opts *ao = ar->o;
	int m = o->hist ? ao->hist : ao->pct_of;
	char buf[1024];

	if (!damonctl_access_filters_installed(s->ops_filters) ||
	    (m != M_TEMPERATURE && m != M_RECENCY) ||
	    damonctl_access_filters_text(s->ops_filters, buf, sizeof(buf)) < 0)
		return;
	printf("# damos filters (df): %s\ndf-passed:\n", buf);
	/* the df-passed keywords: histograms 21 and 22, percentiles 23 and 24 */
	print_snap_block(stdout, ao, (o->hist ? 21 : 23) + (m == M_RECENCY), o);
	printf("\nall:\n");
}

static void print_one_body(const struct access_run *ar, const struct damonctl_rec_snapshot *s,
			   const struct one *o)
{
	const struct access_opts *ao = ar->o;
	size_t n = damonctl_access_view_count(o->v);

	if (o->hist || o->pcts) {
		if (ao->multi)	/* which snapshot each is */
			print_title(ao, ar->in, s, n, damonctl_access_view_bytes(o->v));
		if (n)
			print_df_block(ar, s, o);
		if (!n)
			printf("no region in the snapshot matches\n");
		else if (o->hist)
			print_histogram(stdout, ao, o->hist, ao->hist);
		else
			print_percentiles(stdout, ao, o->pcts, ao->pct_of);
	} else if (ao->boxes) {
		print_boxes(ar, s, o->v);
	} else {
		print_text(ar, s, o->v);
	}
}

/* --format-record-head or -tail @t of record @f */
static void print_record(struct access_run *ar, const char *t, const struct rec_fig *f)
{
	const struct access_opts *ao = ar->o;
	/* the snapshot templates with what --format-append added */
	struct rec_templates all = {
		ao->rec_head,
		tmpl_joined(&ar->joined, &ao->tmpl, TA_SNAPSHOT_HEAD, ao->snap_head, NULL),
		ao->format,
		tmpl_joined(&ar->joined, &ao->tmpl, TA_SNAPSHOT_TAIL, ao->snap_tail, NULL),
		ao->rec_tail };

	rec_template_print(stdout, t, f, ao->raw, &all, &ao->tmpl);
}

/* The stream of snapshots' reports begun: with --all-series, one over every series */
static int stream_begin(struct access_run *ar)
{
	json_object *head;

	if (ar->js_begun)
		return 0;
	ar->js_begun = true;
	head = json_doc_new();
	if (!ar->o->all_series)
		json_object_object_add(head, "series", rin_series_json(ar->in));
	return json_stream_begin(&ar->js, head, "snapshots");
}

static int report_each(struct access_run *ar, const struct damonctl_rec_snapshot *s,
		       struct one *o)
{
	json_object *e;

	if (build(ar->o, o, s))
		return oom_error(ar->cli);
	if (ar->scan) {
		rec_fig_add(&ar->pre, s);
		damonctl_access_range_add(&ar->record_range, o->v);
		ar->nr++;	/* a snapshot was chosen */
		return 0;
	}
	rec_fig_add(&ar->fig, s);
	if (!ar->cli->json) {
		if (!ar->nr)
			print_record(ar, ar->o->rec_head, ar->pre.nr ? &ar->pre : &ar->fig);
		print_one(ar, s, o, ar->nr++);
		return output_flush(stdout) ? EXIT_FAIL : 0;
	}
	ar->nr++;
	if (stream_begin(ar))
		return EXIT_FAIL;
	e = json_object_new_object();
	if (ar->o->all_series)	/* which series each is */
		json_object_object_add(e, "series", rin_series_json(ar->in));
	add_members(e, ar, s, o);
	return json_stream_add(&ar->js, e) ? EXIT_FAIL : 0;
}

/* --style: the options its preset is (given ones kept) */
static void apply_style(struct access_opts *ao)
{
	switch (ao->style) {
	case ST_DETAILED: {
		bool several = ao->multi || ao->nr_index > 1 ||
			       (ao->nr_index && ao->index[0].first != ao->index[0].last);

		if (!ao->format) {
			ao->format = DETAILED_REGION;
			ao->format_probes = DETAILED_REGION_PROBES;
			ao->region_df = true;
		}
		if (!ao->snap_head) {
			ao->snap_head = several ? "snapshot time: [<start time>, <end time>] "
				       "(<duration>)\\n" DETAILED_HEAD : DETAILED_HEAD;
			ao->head_df = true;
		}
		if (!ao->snap_tail) {
			ao->snap_tail = DETAILED_TAIL;
			ao->tail_df = true;
		}
		if (!ao->rec_tail)
			ao->rec_tail = "record DAMON intervals: <intervals>";
		break;
	}
	case ST_SIMPLE_BOXES:
		ao->boxes = true;
		break;
	case ST_COLD:
	case ST_HOT:
		ao->boxes = true;
		ao->sort = SORT_TEMPERATURE;
		ao->cold_first = ao->style == ST_COLD;
		break;
	case ST_TEMP_HIST:
		ao->hist = M_TEMPERATURE;
		break;
	case ST_RECENCY_HIST:
	case ST_COLD_TAIL:
		ao->hist = M_RECENCY;
		break;
	case ST_RECENCY_PCT:
	case ST_IDLE_PCT:
		ao->pct_of = M_RECENCY;
		break;
	case ST_TEMP_PCT:
		ao->pct_of = M_TEMPERATURE;
		break;
	}
}

static int check_options(struct access_run *ar)
{
	struct cli *cli = ar->cli;
	struct access_opts *ao = cli->opts;
	const struct tmpl_opts *to = &ao->tmpl;
	int r;

	if (ao->style >= 0 && (ao->format || ao->total_only || ao->hist >= 0 || ao->pct_of >= 0 ||
			      ao->boxes))
		return usage_error(cli, "--style chooses the output: --format, --total-size, "
				   "--histogram, --percentiles-of and --boxes choose it too "
				   "(choose one)");
	/* --format-append adds to damo's default, --style detailed, unless the output is chosen */
	if (tmpl_any_appended(to) && ao->style < 0 && !ao->format && !ao->total_only &&
	    ao->hist < 0 && ao->pct_of < 0 && !ao->boxes)
		ao->style = ST_DETAILED;
	apply_style(ao);
	if (tmpl_appended_to(to, TA_REGION) && !ao->format)
		return usage_error(cli, "--format-append region: the regions are shown without a "
				   "template (--total-size, --histogram, --percentiles-of or "
				   "--boxes): give --format to add to");
	/* tmpl_joined() keeps one joined template an area: the others are copies */
	if (ao->region_df) {
		ar->format_df = strdup(tmpl_joined(&ar->joined, to, TA_REGION,
						   DETAILED_REGION DETAILED_REGION_DF, NULL));
		ar->format_probes_df = strdup(tmpl_joined(&ar->joined, to, TA_REGION,
							  DETAILED_REGION_PROBES DETAILED_REGION_DF,
							  NULL));
		if (!ar->format_df || !ar->format_probes_df)
			return oom_error(cli);
	}
	if (ao->format_probes && tmpl_appended_to(to, TA_REGION)) {
		ar->format_probes = strdup(tmpl_joined(&ar->joined, to, TA_REGION,
						       ao->format_probes, NULL));
		ao->format_probes = ar->format_probes ? ar->format_probes : ao->format_probes;
	}
	ao->format = tmpl_joined(&ar->joined, to, TA_REGION, ao->format, NULL);
	ao->box_kw = ao->format && strstr(ao->format, "<box>");
	ar->head_given = ao->rec_head || tmpl_appended_to(to, TA_RECORD_HEAD);
	ao->rec_head = tmpl_joined(&ar->joined, to, TA_RECORD_HEAD, ao->rec_head, NULL);
	ao->rec_tail = tmpl_joined(&ar->joined, to, TA_RECORD_TAIL, ao->rec_tail, NULL);
	/* each shows the regions its own way */
	if (!!ao->format + ao->total_only + (ao->hist >= 0) + (ao->pct_of >= 0) + ao->boxes > 1)
		return usage_error(cli, "--format, --total-size, --histogram, --percentiles-of and "
				   "--boxes are different outputs: choose one");
	if (ao->nr_pcts && ao->pct_of < 0)
		return usage_error(cli, "--percentiles: of which metric? (--percentiles-of)");
	if ((ao->h.bins || ao->h.logscale || ao->h.cumulate || ao->hranges) && ao->hist < 0)
		return usage_error(cli, "--bins, --hist-logscale, --hist-cumulate and --hist-ranges: "
				   "the ranges of which histogram? (--histogram)");
	if (ao->hranges && (ao->h.bins || ao->h.logscale || ao->h.cumulate))
		return usage_error(cli, "--hist-ranges gives the ranges: --bins, --hist-logscale "
				   "and --hist-cumulate make them (choose)");
	if (ao->hranges) {
		r = damonctl_access_parse_ranges(ao->hranges, ao->hist == M_RECENCY, ao->given,
						 HIST_MAX_GIVEN);
		if (r < 0)
			return usage_error(cli, "--hist-ranges '%s': expected up to %d pairs MIN,MAX "
					   "of %s, MIN < MAX, comma-separated", ao->hranges,
					   HIST_MAX_GIVEN, ao->hist == M_RECENCY ?
					   "times such as 1s or 500ms" : "temperatures");
		ao->h.ranges = ao->given;
		ao->h.nr_ranges = (unsigned int)r;
	}
	if ((ao->box.given || ao->scale_over >= 0) && !ao->boxes && !ao->box_kw)
		return usage_error(cli, "--box-values, --box-scales, --box-length, --box-height, "
				   "--box-colorset, --box-align and --box-scale-over shape --boxes (or --format's <box>): "
				   "add it");
	if (ao->heat_given && !heatmap_shown(ao))
		return usage_error(cli, "--snapshot-heatmap-width, --snapshot-heatmap-static and "
				   "--snapshot-heatmap-colorset shape <heatmap> of "
				   "--format-snapshot-head or -tail (or --style detailed): add it");
	if (ao->have_at && (ao->multi || ao->nr_index))
		return usage_error(cli, "--at, --all-snapshots and --snapshot-index choose "
				   "snapshots differently: choose one");
	if (ao->multi && !ao->nr_index)	/* --all-snapshots */
		ao->index[ao->nr_index++].last = UINT64_MAX;
	if (!ao->h.bins)
		ao->h.bins = 10;
	if (!ao->nr_pcts) {
		static const double damo[] = { 0, 1, 25, 50, 75, 99, 100 };

		memcpy(ao->pcts, damo, sizeof(damo));
		ao->nr_pcts = sizeof(damo) / sizeof(damo[0]);
	}
	return 0;
}

/* A live snapshot as damo shows one: adjacent regions of the same nr_accesses and age are
 * one (its merged_regions()), but those with filter-passed bytes (damo's can_merge()) and
 * those with probe hits (a merged region would have one region's); a record's as it is
 * (damo merges only the snapshots it takes). NULL: out of memory. */
static const struct damonctl_rec_snapshot *merged(struct access_run *ar,
						  const struct damonctl_rec_snapshot *s)
{
	struct damonctl_rec_region *m;
	uint32_t i, n = 0;

	if (ar->o->dont_merge || !rin_live(ar->in) || s->probe_hits || !s->nr_regions)
		return s;
	if (s->nr_regions > ar->merged_cap) {
		m = realloc(ar->merged_regions, s->nr_regions * sizeof(*m));
		if (!m)
			return NULL;
		ar->merged_regions = m;
		ar->merged_cap = s->nr_regions;
	}
	m = ar->merged_regions;
	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *r = &s->regions[i];

		if (n && m[n - 1].end == r->start && m[n - 1].nr_accesses == r->nr_accesses &&
		    m[n - 1].age == r->age && !m[n - 1].sz_filter_passed && !r->sz_filter_passed)
			m[n - 1].end = r->end;
		else
			m[n++] = *r;
	}
	ar->merged = *s;
	ar->merged.regions = m;
	ar->merged.nr_regions = n;
	return &ar->merged;
}

/* The snapshots chosen: each of --all-snapshots or a --snapshot-index range reported as it
 * is read, else the one of --snapshot-index, --at or the last kept; 0 or an exit code */
static int read_snapshots(struct access_run *ar, struct rin *in, struct kept *k, struct one *o)
{
	const struct access_opts *ao = ar->o;
	const struct rin_opts *ri = &ao->rin;
	struct cli *cli = ar->cli;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	uint64_t idx = 0;
	int r, e = 0;

	damos_seen_reset(&ar->seen);
	while (!e && (r = rin_next(in, &it)) == 1) {
		if (it.type == DAMONCTL_REC_STATS)
			damos_seen_add(&ar->seen, it.stats);
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		it.snapshot = merged(ar, it.snapshot);
		if (!it.snapshot)
			return oom_error(cli);
		if (ao->nr_index) {
			int place = index_place(ao, idx);

			if (place > 0)
				break;
			idx++;
			if (place < 0)
				continue;
		}
		if (ao->multi) {
			e = report_each(ar, it.snapshot, o);
			continue;
		}
		if (ao->have_at && k->have && rin_rel_s(in, k->s.end_ns) * 1e6 >= (double)ao->at_us)
			break;	/* the first snapshot at or after --at is kept */
		if (keep(k, it.snapshot))
			return oom_error(cli);
		if (ao->nr_index)
			break;
	}
	if (e)
		return e;
	if (r < 0)
		return -r;
	if (ao->nr_index && !k->have && !ar->nr)
		return usage_error(cli, "--snapshot-index %" PRIu64 ": %s has %" PRIu64
				   " snapshot%s%s", index_first(ao), ri->input ? ri->input :
				   "the capture", idx, idx == 1 ? "" : "s",
				   ri->have_time || ri->target >= 0 || ri->cap.kdamond >= 0 ?
				   " in the selection" : "");
	if (!k->have && !ar->nr)
		return (usage_error(cli, "no snapshot in %s%s", ri->input ? ri->input :
				    "the capture", ri->have_time || ri->target >= 0 ||
				    ri->cap.kdamond >= 0 ? " matches the selection" : ""),
			EXIT_FAIL);
	return 0;
}

/* The report of the one snapshot kept, its record's head and tail around it */
static int report_kept(struct access_run *ar, const struct damonctl_rec_snapshot *s,
		       struct one *o)
{
	struct rec_fig f = { 0 };

	if (build(ar->o, o, s))
		return oom_error(ar->cli);
	rec_fig_add(&f, s);
	if (ar->cli->json && ar->o->all_series) {	/* a snapshot of the series' stream */
		json_object *e = json_object_new_object(), *rec = json_object_new_object();

		if (stream_begin(ar))
			return EXIT_FAIL;
		json_object_object_add(e, "series", rin_series_json(ar->in));
		add_members(e, ar, s, o);
		json_object_object_add(rec, "series", rin_series_json(ar->in));
		json_object_object_add(rec, "record", rec_fig_json(&f));
		json_object_array_add(ar->records, rec);
		return json_stream_add(&ar->js, e) ? EXIT_FAIL : EXIT_OK;
	}
	if (ar->cli->json) {
		json_object *doc = json_doc_new();

		json_object_object_add(doc, "input", rin_input_json(ar->in));
		json_object_object_add(doc, "series", rin_series_json(ar->in));
		add_members(doc, ar, s, o);
		json_object_object_add(doc, "record", rec_fig_json(&f));
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	print_record(ar, ar->o->rec_head, &f);
	print_one(ar, s, o, 0);
	print_record(ar, ar->o->rec_tail, &f);
	return 0;
}

/* The library's view of the options: the pattern, the weights, the order, --top */
static int view_new(const struct access_opts *ao, struct damonctl_access_view **v)
{
	struct damonctl_access_opts o = ao->pat.a;

	memcpy(o.weights, ao->weights, sizeof(o.weights));
	/* enum sort_by is the library's keys' order */
	o.keys[0] = ao->sort == SORT_TEMPERATURE && ao->cold_first ? DAMONCTL_ACCESS_BY_COLDEST :
		    (enum damonctl_access_key)ao->sort;
	o.nr_keys = 1;
	o.top = ao->top;
	return damonctl_access_view_new(&o, v);
}

/* One series' report (the input's only one, or the one rin_choose_series() chose): its
 * snapshots read (twice with a scan) and shown, its record's head and tail around them */
static int report_series(struct access_run *ar, struct rin *in, struct kept *k, struct one *o)
{
	const struct access_opts *ao = ar->o;
	int e;

	ar->scan = ar->scan_each;
	ar->nr = 0;
	ar->fig = ar->pre = (struct rec_fig){ 0 };
	ar->record_range = (struct damonctl_access_range)DAMONCTL_ACCESS_RANGE_INIT;
	k->have = false;
	e = read_snapshots(ar, in, k, o);
	if (!e && ar->scan) {	/* the range found, the boxes drawn in a second pass */
		ar->scan = false;
		ar->nr = 0;
		ar->fig = (struct rec_fig){ 0 };
		e = rin_rewind(in);
		if (!e)
			e = read_snapshots(ar, in, k, o);
	}
	if (e)
		return e;
	if (ao->multi && ar->cli->json && ao->all_series) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "series", rin_series_json(in));
		json_object_object_add(r, "record", rec_fig_json(&ar->fig));
		json_object_array_add(ar->records, r);
	} else if (ao->multi && ar->cli->json) {
		json_object *tail = json_object_new_object();

		json_object_object_add(tail, "record", rec_fig_json(&ar->fig));
		json_object_object_add(tail, "input", rin_input_json(in));
		if (json_stream_end(&ar->js, tail))
			return EXIT_FAIL;
	} else if (ao->multi) {
		print_record(ar, ao->rec_tail, &ar->fig);
	} else {
		return report_kept(ar, &k->s, o);
	}
	return 0;
}

/* damo's record head where it reports several records (and no --format_record_head) */
#define RECORDS_HEAD "kdamond <kdamond index> / context <context index> / scheme " \
	"<scheme index> / target id <target id> / recorded for <duration> from <abs start time>"

/* Whether each series is read twice: a first pass (scan) for what the report of several
 * snapshots needs before their first (the record's scale, a head that says its end). */
static bool needs_scan(const struct access_opts *ao)
{
	return ao->multi && (ao->scale_over == SCALE_RECORD || rec_template_needs_end(ao->rec_head));
}

/* --all-series: each series in turn (one pass over the input to count them, one or two
 * each), one JSON document over all: their snapshots' reports, then their records */
static int report_all_series(struct access_run *ar, struct rin *in, struct kept *k,
			     struct one *o)
{
	struct access_opts *ao = ar->cli->opts;
	unsigned int n, i;
	int e = rin_count_series(in, &n);

	if (!e && n > 1 && !ar->head_given)
		ao->rec_head = tmpl_joined(&ar->joined, &ao->tmpl, TA_RECORD_HEAD, RECORDS_HEAD,
					   NULL);
	ar->scan_each = needs_scan(ao);
	ar->records = json_object_new_array();
	for (i = 0; !e && i < (n ? n : 1); i++) {
		if (i) {
			rin_choose_series(in, i);
			e = rin_rewind(in);
		}
		if (!e)
			e = report_series(ar, in, k, o);
	}
	if (!e && ar->cli->json) {
		json_object *tail = json_object_new_object();

		if (stream_begin(ar))
			return EXIT_FAIL;
		json_object_object_add(tail, "records", ar->records);
		ar->records = NULL;
		json_object_object_add(tail, "input", rin_input_json(in));
		if (json_stream_end(&ar->js, tail))
			e = EXIT_FAIL;
	}
	return e;
}

static int access_run(struct cli *cli, int argc, char **argv)
{
	struct access_run ar = { .cli = cli, .o = cli->opts,
				 .record_range = DAMONCTL_ACCESS_RANGE_INIT };
	const struct access_opts *ao = ar.o;
	struct kept k = { 0 };
	struct one o = { 0 };
	struct rin *in = NULL;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	e = check_options(&ar);
	if (!e && view_new(ao, &o.v))
		e = oom_error(cli);
	ar.scan_each = needs_scan(ao);
	if (!e)
		e = rin_open(cli, ar.scan_each || ao->all_series, 1, &in);
	if (e)
		goto out;
	ar.in = in;
	e = ao->all_series ? report_all_series(&ar, in, &k, &o) : report_series(&ar, in, &k, &o);
out:
	json_object_put(ar.records);
	free(o.pcts);
	damonctl_access_hist_free(o.hist);
	damonctl_access_view_free(o.v);
	free(k.regions);
	free(k.hits);
	free(k.ops_filters);
	r = rin_close(in);
	tmpl_joined_free(&ar.joined);
	free(ar.format_probes);
	free(ar.format_df);
	free(ar.format_probes_df);
	free(ar.merged_regions);
	return e ? e : r;
}

int report_access_of(struct cli *cli, const char *input)
{
	struct access_opts ao = access_defaults;

	ao.rin.input = input;
	return report_window_run(cli, &ao, access_run);
}

const struct cmd cmd_report_access = {
	.name = "access",
	.summary = "the regions of a snapshot: address, size, access rate, age; hottest/coldest",
	.usage = "[-i FILE|-] [--at TIME | --all-snapshots | --snapshot-index FIRST[,LAST]...]\n"
		 "       [--sort address|hot|cold|size|age|temperature]\n"
		 "       [--top N] [--size MIN,MAX] [--access-rate MIN,MAX] [--age MIN,MAX]\n"
		 "       [--format TEMPLATE | --total-size | --boxes |\n"
		 "        --histogram temperature|recency [--bins N] [--hist-logscale]\n"
		 "          [--hist-cumulate] [--hist-ranges MIN,MAX[,MIN,MAX...]] |\n"
		 "        --percentiles-of temperature|recency|access-rate|age|size [--percentiles LIST]]\n"
		 "       [--box-values L,D,H] [--box-scales L,D,H] [--box-length MIN,MAX]\n"
		 "       [--box-height MIN,MAX] [--box-colorset emotion|gray|flame]\n"
		 "       [--box-align right|left] [--box-scale-over snapshot|record]\n"
		 "       [--format-snapshot-head TEMPLATE] [--format-snapshot-tail TEMPLATE]\n"
		 "       [--format-record-head TEMPLATE] [--format-record-tail TEMPLATE]\n"
		 "       [--format-set AREA=TEMPLATE]... [--format-append AREA=TEMPLATE]...\n"
		 "       [--snapshot-heatmap-width N] [--snapshot-heatmap-static]\n"
		 "       [--snapshot-heatmap-colorset gray|flame|emotion] [--min-chars-for KEYWORD,N]...\n"
		 "       [--color auto|always|never]\n"
		 "       [--all-series] [--dont-merge-regions] [--raw-number] [--json]",
	.opts = access_opts,
	.parse = access_parse,
	.run = access_run,
	.opts_size = sizeof(struct access_opts),
	.opts_init = &access_defaults,
};
