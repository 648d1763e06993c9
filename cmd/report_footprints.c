// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report footprints: the memory footprint a record kept beside its snapshots (damo's
 * `report footprints`): each target's virtual size, RSS, share of a CPU and number of
 * mappings, the system's used memory and its huge pages, and the kdamond's share of a CPU,
 * as percentiles over the record or one line per sample. CPU shares come from the CPU times
 * of two footprints in a row; mappings are recorded when they change and carried forward.
 * Percentiles come from a fixed-size histogram per metric (damonctl_qhist), and --series --json
 * streams its samples (struct json_stream): memory does not grow with the record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_parts.h"

#define MAX_PCTS 32
#define MAX_TARGETS 64

static struct {
	double pcts[MAX_PCTS];
	unsigned int nr_pcts;
	bool series;
} fo;

enum { O_PCTS = 300, O_SERIES };

static const struct opt footprints_opts[] = {
	RIN_OPTS,
	{ "percentiles", O_PCTS, OV_STRING, "LIST", "which percentiles (default "
	  "0,25,50,75,90,99,100)" },
	{ "series", O_SERIES, OV_NONE, NULL, "every sample, in time order" },
	{ 0 },
};

static int footprints_parse(struct cli *cli, int key, const char *arg)
{
	int r = rin_parse(cli, key, arg), n;

	if (r >= 0)
		return r;
	switch (key) {
	case O_PCTS:
		n = qhist_parse_list(arg, fo.pcts, MAX_PCTS);
		if (n < 0)
			return usage_error(cli, "--percentiles '%s': expected up to %d numbers "
					   "from 0 to 100, comma-separated", arg, MAX_PCTS);
		fo.nr_pcts = (unsigned int)n;
		return 0;
	case O_SERIES:
		fo.series = true;
		return 0;
	}
	return EXIT_USAGE;
}

/* One metric over the record: a target's vsz, rss, cpu_bp or vmas, or the system's used,
 * huge, huge_bp, or the kdamond's kdamond_cpu_bp. */
enum unit { U_BYTES, U_BP, U_COUNT };
struct metric {
	const char *name;
	int target;			/* -1: the system's */
	int pid;
	enum unit unit;
	struct damonctl_qhist *h;
};

/* A CPU time at a time, for the share of a CPU until the next one. */
struct cpu_prev {
	int pid;			/* 0: none yet */
	uint64_t ns, cpu_us;
};

struct footprints {
	uint64_t n, first_ns, last_ns;
	struct metric *m[4 + 4 * MAX_TARGETS];
	struct cpu_prev cpu[MAX_TARGETS], kd_cpu;
	int64_t nr_vmas[MAX_TARGETS];	/* the last recorded count (-1: none yet) */
	int vmas_pid[MAX_TARGETS];
	unsigned int nr;
	/* --series --json: the samples stream under "footprints_series" as they are read; the
	 * head (format_version) is printed with the first, so that an input that fails before
	 * any prints nothing, and the summaries follow them */
	bool stream, begun;
	struct json_stream js;
	bool header;
};

static int rows_begin(struct footprints *f)
{
	f->begun = true;
	return json_stream_begin(&f->js, json_doc_new(), "footprints_series");
}

static struct metric *metric_of(struct footprints *f, const char *name, int target, int pid,
				enum unit unit)
{
	struct metric *m;
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		if (f->m[i]->target == target && !strcmp(f->m[i]->name, name))
			return f->m[i];
	if (f->nr == sizeof(f->m) / sizeof(f->m[0]) || !(m = malloc(sizeof(*m))))
		return NULL;
	m->h = damonctl_qhist_new();
	if (!m->h) {
		free(m);
		return NULL;
	}
	m->name = name;
	m->target = target;
	m->pid = pid;
	m->unit = unit;
	f->m[f->nr++] = m;
	return m;
}

static void metric_free(struct metric *m)
{
	damonctl_qhist_free(m->h);
	free(m);
}

static uint64_t get_u64(json_object *o, const char *key, bool *ok)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		*ok = false;
		return 0;
	}
	return json_object_get_uint64(v);
}

static int add(struct footprints *f, const char *name, int target, int pid, enum unit unit,
	       uint64_t v)
{
	struct metric *m = metric_of(f, name, target, pid, unit);

	if (!m)
		return -ENOMEM;
	damonctl_qhist_add(m->h, v);
	return 0;
}

static const char *value_text(const struct metric *m, uint64_t v, char *buf, size_t size)
{
	if (m->unit == U_BP) {
		snprintf(buf, size, "%" PRIu64 " bp", v);
		return buf;
	}
	if (m->unit == U_COUNT) {
		snprintf(buf, size, "%" PRIu64, v);
		return buf;
	}
	return fmt_size(v, buf, size);
}

/* The share of a CPU (bp) used since @p's time, by the same @pid: -1 when unknown (the
 * first sample, a new process, or no time between them). @p becomes this sample. */
static int64_t cpu_share(struct cpu_prev *p, int pid, uint64_t ns, uint64_t cpu_us)
{
	int64_t bp = -1;

	if (p->pid == pid && ns > p->ns && cpu_us >= p->cpu_us)
		bp = (int64_t)((cpu_us - p->cpu_us) * 10000000u / (ns - p->ns));
	p->pid = pid;
	p->ns = ns;
	p->cpu_us = cpu_us;
	return bp;
}

/* A target's mapping count: the recorded one, else the last one of the same process. */
static int64_t vma_count(struct footprints *f, json_object *t, uint64_t target, int pid)
{
	json_object *v;

	if (json_object_object_get_ex(t, "vmas", &v) && json_object_is_type(v, json_type_array)) {
		f->nr_vmas[target] = (int64_t)json_object_array_length(v);
		f->vmas_pid[target] = pid;
	} else if (f->vmas_pid[target] != pid) {
		f->nr_vmas[target] = -1;
	}
	return f->nr_vmas[target];
}

/* The kdamond's CPU share since the footprint before (*@bp, -1: unknown) into its metric. */
static int take_kdamond(struct footprints *f, json_object *doc, uint64_t ns, int64_t *bp)
{
	json_object *k;
	bool ok = true;
	uint64_t pid, cpu;

	if (!json_object_object_get_ex(doc, "kdamond", &k) ||
	    !json_object_is_type(k, json_type_object))
		return 0;
	pid = get_u64(k, "pid", &ok);
	cpu = get_u64(k, "cpu_us", &ok);
	if (ok)
		*bp = cpu_share(&f->kd_cpu, (int)pid, ns, cpu);
	return *bp >= 0 ? add(f, "kdamond_cpu_bp", -1, (int)pid, U_BP, (uint64_t)*bp) : 0;
}

/* The system's figures of a footprint: false when it has none (or not all of them). */
static bool system_figures(json_object *doc, uint64_t *used, uint64_t *huge, uint64_t *bp)
{
	struct damonctl_meminfo m = { 0 };
	json_object *sys;
	bool ok = true;

	if (!json_object_object_get_ex(doc, "system", &sys) ||
	    !json_object_is_type(sys, json_type_object))
		return false;
	/* the record keeps MemTotal and MemFree: "used" as the library defines it */
	m.total = get_u64(sys, "total", &ok);
	m.free = get_u64(sys, "free", &ok);
	*huge = get_u64(sys, "huge", &ok);
	*used = damonctl_meminfo_used(&m);
	*bp = damonctl_hugepage_bp(*huge, *used);
	return ok;
}

/* A --series line's start: the JSON row (returned) with the system's and the kdamond's
 * figures, or in text the time and the system's figures (the header before the first). */
static json_object *series_row_start(struct footprints *f, const struct rin *in,
				     uint64_t time_ns, bool have_sys, uint64_t used,
				     uint64_t huge, int64_t kd_bp)
{
	json_object *row;
	char a[32], b[32];

	if (f->stream) {
		row = json_object_new_object();
		json_object_object_add(row, "time_us", json_object_new_uint64(
			time_ns > rin_base_ns(in) ? (time_ns - rin_base_ns(in)) / 1000 : 0));
		json_object_object_add(row, "used", have_sys ? json_object_new_uint64(used) : NULL);
		json_object_object_add(row, "huge", have_sys ? json_object_new_uint64(huge) : NULL);
		json_object_object_add(row, "kdamond_cpu_bp",
				       kd_bp >= 0 ? json_object_new_int64(kd_bp) : NULL);
		return row;
	}
	if (!f->header)
		printf("%11s %10s %10s  %s\n", "time", "used", "huge", "targets (rss/vsz)");
	f->header = true;
	printf("%9.3f s %10s %10s ", rin_rel_s(in, time_ns),
	       have_sys ? fmt_size(used, a, sizeof(a)) : "-",
	       have_sys ? fmt_size(huge, b, sizeof(b)) : "-");
	return NULL;
}

/* One target of a footprint: its figures into the histograms and, with --series, into the
 * row's targets @rt (JSON) or the text line. 0, or -ENOMEM. */
static int take_target(struct footprints *f, json_object *t, uint64_t time_ns,
		       json_object *rt)
{
	uint64_t target, pid, vsz, rss, cpu;
	int64_t cpu_bp = -1, nr_vmas;
	bool ok = true, have_cpu = true;
	char a[32], b[32];
	int r = 0;

	target = get_u64(t, "target", &ok);
	pid = get_u64(t, "pid", &ok);
	vsz = get_u64(t, "vsz", &ok);
	rss = get_u64(t, "rss", &ok);
	if (!ok || target >= MAX_TARGETS ||
	    (rin_o.target >= 0 && target != (uint64_t)rin_o.target))
		return 0;
	cpu = get_u64(t, "cpu_us", &have_cpu);
	if (have_cpu)
		cpu_bp = cpu_share(&f->cpu[target], (int)pid, time_ns, cpu);
	nr_vmas = vma_count(f, t, target, (int)pid);
	if (add(f, "vsz", (int)target, (int)pid, U_BYTES, vsz) ||
	    add(f, "rss", (int)target, (int)pid, U_BYTES, rss) ||
	    (cpu_bp >= 0 && add(f, "cpu_bp", (int)target, (int)pid, U_BP, (uint64_t)cpu_bp)) ||
	    (nr_vmas >= 0 && add(f, "vmas", (int)target, (int)pid, U_COUNT, (uint64_t)nr_vmas)))
		r = -ENOMEM;
	if (rt) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "target", json_object_new_int((int)target));
		json_object_object_add(o, "pid", json_object_new_int((int)pid));
		json_object_object_add(o, "vsz", json_object_new_uint64(vsz));
		json_object_object_add(o, "rss", json_object_new_uint64(rss));
		json_object_object_add(o, "cpu_bp",
				       cpu_bp >= 0 ? json_object_new_int64(cpu_bp) : NULL);
		json_object_object_add(o, "vmas",
				       nr_vmas >= 0 ? json_object_new_int64(nr_vmas) : NULL);
		json_object_array_add(rt, o);
	} else if (fo.series) {
		printf(" %d: %s/%s", (int)target, fmt_size(rss, a, sizeof(a)),
		       fmt_size(vsz, b, sizeof(b)));
	}
	return r;
}

/* A --series line's end: the JSON row with its targets into the stream (begun before the
 * first), or the text line's newline. @r, or -EIO when the row could not be written. */
static int series_row_end(struct footprints *f, json_object *row, json_object *rt, int r)
{
	if (row) {
		json_object_object_add(row, "targets", rt);
		if (!r && !f->begun && rows_begin(f))
			r = -EIO;
		if (r)
			json_object_put(row);
		else if (json_stream_add(&f->js, row))
			r = -EIO;
	} else if (fo.series) {
		putchar('\n');
	}
	return r;
}

/* One FOOTPRINT item: its figures into the histograms, and a --series line; 0, -ENOMEM, or
 * -EIO when the line could not be written. */
static int take(struct footprints *f, const struct rin *in, const struct damonctl_rec_item *it)
{
	json_object *doc = json_tokener_parse(it->json), *tgts, *row = NULL, *rt = NULL;
	uint64_t used = 0, huge = 0, bp = 0;
	int64_t kd_bp = -1;
	bool have_sys;
	size_t i, n;
	int r = 0;

	if (!doc)
		return 0;	/* a damaged footprint is no figure; the rest of the record is */
	have_sys = system_figures(doc, &used, &huge, &bp);
	if (!f->n)
		f->first_ns = it->time_ns;
	f->last_ns = it->time_ns;
	f->n++;
	if (have_sys && (add(f, "used", -1, 0, U_BYTES, used) ||
			 add(f, "huge", -1, 0, U_BYTES, huge) || add(f, "huge_bp", -1, 0, U_BP, bp)))
		r = -ENOMEM;
	if (!r && take_kdamond(f, doc, it->time_ns, &kd_bp))
		r = -ENOMEM;
	if (fo.series) {
		row = series_row_start(f, in, it->time_ns, have_sys, used, huge, kd_bp);
		rt = row ? json_object_new_array() : NULL;
	}
	n = json_object_object_get_ex(doc, "targets", &tgts) &&
	    json_object_is_type(tgts, json_type_array) ? json_object_array_length(tgts) : 0;
	for (i = 0; !r && i < n; i++)
		r = take_target(f, json_object_array_get_idx(tgts, i), it->time_ns, rt);
	r = series_row_end(f, row, rt, r);
	json_object_put(doc);
	return r;
}

static const char *metric_label(const struct metric *m, char *buf, size_t size)
{
	static const struct { const char *name, *label; } sys[] = {
		{ "used", "system used" }, { "huge", "system huge pages" },
		{ "huge_bp", "system huge/used" },
	};
	unsigned int i;

	if (m->target >= 0) {
		const char *what = !strcmp(m->name, "cpu_bp") ? "CPU" :
				   !strcmp(m->name, "vmas") ? "mappings" : m->name;

		snprintf(buf, size, "target %d (pid %d) %s", m->target, m->pid, what);
		return buf;
	}
	if (!strcmp(m->name, "kdamond_cpu_bp")) {
		snprintf(buf, size, "kdamond (pid %d) CPU", m->pid);
		return buf;
	}
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (!strcmp(m->name, sys[i].name))
			return sys[i].label;
	return m->name;
}

static void print_text(const struct footprints *f, const struct rin *in)
{
	char label[64], v[32], p[16];
	unsigned int i, j;

	printf("footprints: %" PRIu64 " sample%s, %.3f s to %.3f s\n", f->n, f->n == 1 ? "" : "s",
	       rin_rel_s(in, f->first_ns), rin_rel_s(in, f->last_ns));
	printf("%-32s", "what");
	for (j = 0; j < fo.nr_pcts; j++) {
		snprintf(p, sizeof(p), "p%g", fo.pcts[j]);
		printf(" %10s", p);
	}
	putchar('\n');
	for (i = 0; i < f->nr; i++) {
		const struct metric *m = f->m[i];

		printf("%-32s", metric_label(m, label, sizeof(label)));
		for (j = 0; j < fo.nr_pcts; j++)
			printf(" %10s", value_text(m, damonctl_qhist_percentile(m->h, fo.pcts[j]),
						   v, sizeof(v)));
		putchar('\n');
	}
}

static json_object *metric_json(const struct metric *m, const double *pcts, unsigned int nr)
{
	static const char *const units[] = { "bytes", "bp", "count" };
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	unsigned int i;

	json_object_object_add(o, "metric", json_object_new_string(m->name));
	json_object_object_add(o, "unit", json_object_new_string(units[m->unit]));
	json_object_object_add(o, "target", m->target >= 0 ? json_object_new_int(m->target) : NULL);
	json_object_object_add(o, "pid", m->target >= 0 || m->pid ? json_object_new_int(m->pid) :
				       NULL);
	json_object_object_add(o, "samples", json_object_new_uint64(damonctl_qhist_count(m->h)));
	json_object_object_add(o, "min", json_object_new_uint64(damonctl_qhist_min(m->h)));
	json_object_object_add(o, "max", json_object_new_uint64(damonctl_qhist_max(m->h)));
	json_object_object_add(o, "mean", json_object_new_double(damonctl_qhist_mean(m->h)));
	for (i = 0; i < nr; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "percentile", json_object_new_double(pcts[i]));
		json_object_object_add(p, "value", json_object_new_uint64(
			damonctl_qhist_percentile(m->h, pcts[i])));
		json_object_array_add(arr, p);
	}
	json_object_object_add(o, "percentiles", arr);
	return o;
}

struct footprints *fp_new(void)
{
	return calloc(1, sizeof(struct footprints));
}

int fp_feed(struct footprints *f, const struct rin *in, const struct damonctl_rec_item *it)
{
	return it->type == DAMONCTL_REC_FOOTPRINT ? take(f, in, it) : 0;
}

uint64_t fp_samples(const struct footprints *f)
{
	return f->n;
}

const struct damonctl_qhist *fp_metric(const struct footprints *f, unsigned int i,
				       const char **name, int *target, int *pid)
{
	if (i >= f->nr)
		return NULL;
	*name = f->m[i]->name;
	*target = f->m[i]->target;
	*pid = f->m[i]->pid;
	return f->m[i]->h;
}

void fp_fill_json(const struct footprints *f, const struct rin *in, const double *pcts,
		  unsigned int nr, json_object *doc)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		json_object_array_add(arr, metric_json(f->m[i], pcts, nr));
	json_object_object_add(doc, "samples", json_object_new_uint64(f->n));
	json_object_object_add(doc, "first_us", f->n ? json_object_new_uint64(
		(f->first_ns - rin_base_ns(in)) / 1000) : NULL);
	json_object_object_add(doc, "last_us", f->n ? json_object_new_uint64(
		(f->last_ns - rin_base_ns(in)) / 1000) : NULL);
	json_object_object_add(doc, "metrics", arr);
}

const char *fp_label(const struct footprints *f, unsigned int i, char *buf, size_t size)
{
	return metric_label(f->m[i], buf, size);
}

void fp_free(struct footprints *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++)
		metric_free(f->m[i]);
	free(f);
}

static int footprints_run(struct cli *cli, int argc, char **argv)
{
	struct footprints f = { 0 };
	struct damonctl_rec_item it;
	struct rin *in = NULL;
	unsigned int i;
	int r, e;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	if (!fo.nr_pcts)
		fo.nr_pcts = qhist_default_list(fo.pcts);
	e = rin_open(cli, false, 0, &in);
	if (e)
		return e;
	rin_all_series(in);
	f.stream = cli->json && fo.series;
	while ((r = rin_next(in, &it)) == 1) {
		if (it.type != DAMONCTL_REC_FOOTPRINT)
			continue;
		r = take(&f, in, &it);
		if (r) {
			/* main says why the output failed */
			e = r == -EIO ? EXIT_FAIL : (usage_error(cli, "out of memory"), EXIT_FAIL);
			goto out;
		}
	}
	if (r < 0) {
		e = -r;
		goto out;
	}
	if (cli->json) {
		json_object *doc = f.stream ? json_object_new_object() : json_doc_new();

		fp_fill_json(&f, in, fo.pcts, fo.nr_pcts, doc);
		/* after the samples: input says whether the record was read whole */
		json_object_object_add(doc, "input", rin_input_json(in));
		if (!f.stream)
			e = json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
		else if (!f.begun && rows_begin(&f))
			e = (json_object_put(doc), EXIT_FAIL);
		else
			e = json_stream_end(&f.js, doc) ? EXIT_FAIL : EXIT_OK;
		goto out;
	}
	if (!f.n) {
		e = (usage_error(cli, "no footprint in %s%s (recorded with --no-footprints, by "
				 "damo, or before damonc 0.2?)", rin_input_name(in),
				 rin_o.have_time ? " in the time range" : ""), EXIT_FAIL);
		goto out;
	}
	if (!fo.series)
		print_text(&f, in);
out:
	for (i = 0; i < f.nr; i++)
		metric_free(f.m[i]);
	r = rin_close(in);
	return e ? e : r;
}

const struct cmd cmd_report_footprints = {
	.name = "footprints",
	.summary = "memory footprints over a record: each target's size, RSS, CPU and "
		   "mappings, the system's used memory and huge pages, the kdamond's CPU",
	.usage = "[-i FILE|-] [--percentiles LIST] [--series] [--target N]\n"
		 "       [--time-range START,END] [--json]",
	.opts = footprints_opts,
	.parse = footprints_parse,
	.run = footprints_run,
};
