// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's record JSON, read and written for interoperability. damo writes a list of
 * records, one per kdamond/context/target/scheme, each with its intervals and a list of
 * snapshots (start_time and end_time in ns, regions with nr_accesses {samples, percent},
 * age {usec, aggr_intervals} and 7.2's probe_hits), numbers as strings (damo's "raw"
 * formatting), the whole document zlib-compressed by default (damo's record writer; see
 * damonitor/damo, src/_damo_records.py and src/_damon.py).
 *
 * Reading: streamed, one snapshot object at a time (see below); snapshots come out in the
 * document's order, damo's records one after another.
 * Writing: streamed, one pass over the input per series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "internal.h"
#include "ops_filters.h"
#include "record_internal.h"
#include "zlib_dl.h"

/* ---- reading ---- */

/*
 * damo's document is one JSON value, but its shape is known: a list of records, each an
 * object whose "snapshots" list comes after the record's other keys. The scanner walks the
 * text (inflating it as it goes) and hands json-c one snapshot object at a time, so memory
 * stays at one snapshot, as for damonc's own records.
 */
/*
 * A damo number: a JSON number or a string of digits (damo's raw format), maybe "max", with
 * damo's thousands separators. @u gets it exactly when it is a whole number (addresses do
 * not fit a double), @d approximately.
 */
static int jnum2(json_object *o, double *d, uint64_t *u)
{
	const char *s;
	char buf[64], *end;
	size_t i, n = 0;

	if (!o)
		return -ENOENT;
	switch (json_object_get_type(o)) {
	case json_type_int:
		if (json_object_get_int64(o) < 0)
			return -ERANGE;
		/* json-c keeps what int64 cannot hold as uint64 */
		*u = json_object_get_uint64(o);
		*d = (double)*u;
		return 0;
	case json_type_double:
		*d = json_object_get_double(o);
		*u = *d <= 0 ? 0 : *d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)*d;
		return 0;
	case json_type_string:
		s = json_object_get_string(o);
		if (!strcmp(s, "max")) {
			*d = 18446744073709551615.0;
			*u = UINT64_MAX;
			return 0;
		}
		for (i = 0; s[i] && n + 1 < sizeof(buf); i++)
			if (s[i] != ',')
				buf[n++] = s[i];
		buf[n] = '\0';
		if (!n || buf[0] == '-')
			return -EINVAL;
		if (strspn(buf, "0123456789") == n) {
			errno = 0;
			*u = strtoull(buf, &end, 10);
			if (errno)
				return -ERANGE;
			*d = (double)*u;
			return 0;
		}
		*d = strtod(buf, &end);
		if (*end)
			return -EINVAL;
		*u = *d <= 0 ? 0 : *d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)*d;
		return 0;
	case json_type_null:
		return -ENOENT;
	default:
		return -EINVAL;
	}
}

static int jnum(json_object *o, double *out)
{
	uint64_t u;

	return jnum2(o, out, &u);
}

static int jget(json_object *o, const char *key, double *out)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return -ENOENT;
	return jnum(v, out);
}

static int jget_u64(json_object *o, const char *key, uint64_t *out)
{
	json_object *v = NULL;
	double d;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return -ENOENT;
	return jnum2(v, &d, out);
}

static uint64_t to_u64(double d)
{
	if (d <= 0)
		return 0;
	if (d >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)d;
}

enum damo_state { DS_TOP, DS_RECORDS, DS_RECORD, DS_SNAPSHOTS, DS_DONE };

struct damo_series {
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t sample_us, aggr_us, update_us;
};

struct damo_src {
	int fd;
	off_t start;			/* where the document begins, for rewinding */
	bool zlib;
	z_stream zs;
	bool zs_init, in_eof, z_end;
	unsigned char zin[65536];
	char *buf;			/* text window: buf[pos..len) not consumed yet */
	size_t len, pos, cap;
	char *prefix;			/* bytes the reader peeked before handing us the fd */
	size_t prefix_len, prefix_pos;
	enum damo_state state;
	struct damo_series cur;
	char *cur_filters;		/* the record's scheme_filters, its ops-layer ones */
	struct damonctl_rec_region *regions;
	size_t rcap;
	uint8_t *hits;			/* the last snapshot's probe hits */
	size_t hcap;
	bool has_stats;			/* the last snapshot's damos_stats, in stats */
	struct damonctl_rec_stats stats;
};

/* Raw bytes of the document: the peeked prefix first, then the fd. */
static ssize_t raw_read(struct damo_src *s, void *dst, size_t n)
{
	if (s->prefix_pos < s->prefix_len) {
		size_t k = s->prefix_len - s->prefix_pos < n ? s->prefix_len - s->prefix_pos : n;

		memcpy(dst, s->prefix + s->prefix_pos, k);
		s->prefix_pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t k = read(s->fd, dst, n);

		if (k < 0 && errno == EINTR)
			continue;
		return k < 0 ? -errno : k;
	}
}

/* Append more text to the window; 0 at the end of the document, -errno. */
static ssize_t more(struct damo_src *s)
{
	if (s->pos > 0 && s->pos == s->len)
		s->pos = s->len = 0;
	if (s->cap - s->len < 65536) {
		size_t ncap = s->cap ? s->cap * 2 : 262144;
		char *p;

		/* keep the window small: move what is left to the front first */
		if (s->pos) {
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->len -= s->pos;
			s->pos = 0;
		}
		if (s->cap - s->len < 65536) {
			p = realloc(s->buf, ncap + 1);
			if (!p)
				return -ENOMEM;
			s->buf = p;
			s->cap = ncap;
		}
	}
	if (!s->zlib) {
		ssize_t k = raw_read(s, s->buf + s->len, s->cap - s->len);

		if (k > 0)
			s->len += (size_t)k;
		return k;
	}
	while (!s->z_end) {
		int zr;

		if (!s->zs.avail_in && !s->in_eof) {
			ssize_t k = raw_read(s, s->zin, sizeof(s->zin));

			if (k < 0)
				return k;
			if (!k)
				s->in_eof = true;
			s->zs.next_in = s->zin;
			s->zs.avail_in = (uInt)k;
		}
		s->zs.next_out = (Bytef *)s->buf + s->len;
		s->zs.avail_out = (uInt)(s->cap - s->len);
		zr = zlib_fn.inflate(&s->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			s->z_end = true;
		else if (zr != Z_OK && !(zr == Z_BUF_ERROR && !s->in_eof))
			return -EBADMSG;
		if ((size_t)((char *)s->zs.next_out - s->buf) > s->len) {
			ssize_t k = (char *)s->zs.next_out - (s->buf + s->len);

			s->len += (size_t)k;
			return k;
		}
		if (s->in_eof && !s->zs.avail_in && !s->z_end)
			return -EBADMSG;	/* the stream ends early */
	}
	return 0;
}

/* The next character that is not white space (not consumed); -1 at the end. */
static int peek(struct damo_src *s)
{
	for (;;) {
		while (s->pos < s->len && strchr(" \t\r\n", s->buf[s->pos]))
			s->pos++;
		if (s->pos < s->len)
			return (unsigned char)s->buf[s->pos];
		if (more(s) <= 0)
			return -1;
	}
}

/* The extent of the JSON value at pos: strings, nesting and scalars. 0 and *n, or -errno. */
static int value_extent(struct damo_src *s, size_t *n)
{
	size_t i = s->pos;
	int depth = 0;
	bool str = false, esc = false;

	for (;;) {
		for (; i < s->len; i++) {
			char c = s->buf[i];

			if (str) {
				if (esc)
					esc = false;
				else if (c == '\\')
					esc = true;
				else if (c == '"') {
					str = false;
					if (!depth) {
						*n = i + 1 - s->pos;
						return 0;
					}
				}
				continue;
			}
			if (c == '"') {
				str = true;
			} else if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				if (!depth) {	/* the end of a scalar */
					*n = i - s->pos;
					return *n ? 0 : -EBADMSG;
				}
				if (!--depth) {
					*n = i + 1 - s->pos;
					return 0;
				}
			} else if (!depth && (c == ',' || strchr(" \t\r\n", c)) && i > s->pos) {
				*n = i - s->pos;
				return 0;
			}
		}
		{
			size_t off = i - s->pos;
			ssize_t k = more(s);	/* may move the window */

			if (k < 0)
				return (int)k;
			if (!k) {
				if (!depth && !str && off) {
					*n = off;
					return 0;
				}
				return -EBADMSG;
			}
			i = s->pos + off;
		}
	}
}

/* Parse the value at pos with json-c and consume it. */
static int take(struct damo_src *s, json_object **out)
{
	json_tokener *tok;
	size_t n = 0;
	int r;

	if (peek(s) < 0)
		return -EBADMSG;
	r = value_extent(s, &n);
	if (r)
		return r;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	{
		/* a NUL inside the length tells json-c the value ends there (a number would
		 * otherwise wait for more digits) */
		char saved = s->buf[s->pos + n];

		s->buf[s->pos + n] = '\0';
		*out = json_tokener_parse_ex(tok, s->buf + s->pos, (int)n + 1);
		s->buf[s->pos + n] = saved;
	}
	r = json_tokener_get_error(tok) == json_tokener_success ? 0 : -EBADMSG;
	json_tokener_free(tok);
	if (r && *out) {
		json_object_put(*out);
		*out = NULL;
	}
	s->pos += n;
	return r;
}

static int expect(struct damo_src *s, char c)
{
	if (peek(s) != c)
		return -EBADMSG;
	s->pos++;
	return 0;
}

/* After a list element: ',' (more) or @close (consumed: 1). */
static int separator(struct damo_src *s, char close)
{
	int c = peek(s);

	if (c == ',') {
		s->pos++;
		return 0;
	}
	if (c == close) {
		s->pos++;
		return 1;
	}
	return -EBADMSG;
}

static int index_of(json_object *v, int32_t dflt, int32_t *out)
{
	double d;
	int r = jnum(v, &d);

	if (r == -ENOENT) {
		*out = dflt;
		return 0;
	}
	if (r)
		return r;
	/* perf-based damo records carry kernel pointers as target ids: not an index */
	*out = d >= 0 && d < 2147483647.0 ? (int32_t)d : -1;
	return 0;
}

static int record_key(struct damo_src *s, const char *key, json_object *v)
{
	struct damo_series *se = &s->cur;
	int32_t i;
	double d;

	if (!strcmp(key, "kdamond_idx") || !strcmp(key, "context_idx")) {
		if (index_of(v, 0, &i))
			return -EBADMSG;
		*(key[0] == 'k' ? &se->kdamond : &se->context) = i < 0 ? 0 : (uint32_t)i;
	} else if (!strcmp(key, "scheme_idx")) {
		return index_of(v, -1, &se->scheme) ? -EBADMSG : 0;
	} else if (!strcmp(key, "target_id")) {
		return index_of(v, -1, &se->target) ? -EBADMSG : 0;
	} else if (!strcmp(key, "scheme_filters")) {
		int err;

		/* damo writes them before the snapshots, which carry them */
		free(s->cur_filters);
		s->cur_filters = dctl_ops_filters_from_damo(v, &err);
		/* a list that is not damo's: no filters known, the snapshots still read */
		return err == -ENOMEM ? err : 0;
	} else if (!strcmp(key, "intervals") && v) {
		if (!jget(v, "sample_us", &d))
			se->sample_us = to_u64(d);
		if (!jget(v, "aggr_us", &d))
			se->aggr_us = to_u64(d);
		if (!jget(v, "ops_update_us", &d))
			se->update_us = to_u64(d);
	}
	return 0;
}

static void reset(struct damo_src *s)
{
	free(s->cur_filters);
	s->cur_filters = NULL;
	s->state = DS_TOP;
	s->len = s->pos = 0;
	s->prefix_pos = 0;
	s->in_eof = s->z_end = false;
	if (s->zlib) {
		zlib_fn.inflateReset(&s->zs);
		s->zs.avail_in = 0;
	}
}

int dctl_damo_src_open(int fd, const char *prefix, size_t prefix_len, bool zlib,
		       struct damo_src **out)
{
	struct damo_src *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->fd = fd;
	s->zlib = zlib;
	s->start = lseek(fd, 0, SEEK_CUR);
	s->prefix = malloc(prefix_len ? prefix_len : 1);
	if (!s->prefix || (zlib && zlib_inflate_init(&s->zs) != Z_OK)) {
		free(s->prefix);
		free(s);
		return -ENOMEM;
	}
	s->zs_init = zlib;
	memcpy(s->prefix, prefix, prefix_len);
	s->prefix_len = prefix_len;
	reset(s);
	/* it must at least open like damo's document: a list of objects */
	if (peek(s) != '[') {
		dctl_damo_src_free(s);
		return -EBADMSG;
	}
	*out = s;
	return 0;
}

/* damo marks a lone snapshot's companion as fake: one 0-0 region with -1 samples. */
static bool is_fake(json_object *regions)
{
	json_object *r0, *na, *v;
	double st, e;

	if (json_object_array_length(regions) != 1)
		return false;
	r0 = json_object_array_get_idx(regions, 0);
	if (jget(r0, "start", &st) || jget(r0, "end", &e) || st != 0 || e != 0)
		return false;
	return json_object_object_get_ex(r0, "nr_accesses", &na) && na &&
	       json_object_object_get_ex(na, "samples", &v) && v &&
	       json_object_get_int64(v) == -1;
}

/* The regions' probe_hits (damo's DamonRegion.probe_hits: a list of numbers, [] without
 * probes) into s->hits, nr_probes the longest list's length: 0, -EBADMSG, -ENOMEM. */
static int take_probe_hits(struct damo_src *s, json_object *regions, size_t n,
			   struct damonctl_rec_snapshot *out)
{
	size_t i, p, np = 0;

	for (i = 0; i < n; i++) {
		json_object *h = NULL;

		json_object_object_get_ex(json_object_array_get_idx(regions, i), "probe_hits", &h);
		if (!h || json_object_is_type(h, json_type_null))
			continue;
		if (!json_object_is_type(h, json_type_array))
			return -EBADMSG;
		if (json_object_array_length(h) > np)
			np = json_object_array_length(h);
	}
	if (!np)
		return 0;
	if (np > 255)
		return -EBADMSG;
	if (n * np > s->hcap) {
		void *q = realloc(s->hits, n * np);

		if (!q)
			return -ENOMEM;
		s->hits = q;
		s->hcap = n * np;
	}
	memset(s->hits, 0, n * np);
	for (i = 0; i < n; i++) {
		json_object *h = NULL;

		json_object_object_get_ex(json_object_array_get_idx(regions, i), "probe_hits", &h);
		for (p = 0; h && json_object_is_type(h, json_type_array) &&
			    p < json_object_array_length(h); p++) {
			double d;

			if (jnum(json_object_array_get_idx(h, p), &d))
				return -EBADMSG;
			/* the kernel counts in a byte */
			s->hits[i * np + p] = d >= 255 ? 255 : (uint8_t)to_u64(d);
		}
	}
	out->nr_probes = (uint32_t)np;
	out->probe_hits = s->hits;
	return 0;
}

static int convert(struct damo_src *s, const struct damo_series *se, json_object *snap,
		   struct damonctl_rec_snapshot *out)
{

	json_object *regions;
	double d;
	size_t i, n;
	uint64_t total = 0;

	if (!json_object_is_type(snap, json_type_object) ||
	    !json_object_object_get_ex(snap, "regions", &regions) ||
	    !json_object_is_type(regions, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(regions);
	if (n > UINT32_MAX)
		return -EBADMSG;
	if (n > s->rcap) {
		void *p = realloc(s->regions, n * sizeof(*s->regions));

		if (!p)
			return -ENOMEM;
		s->regions = p;
		s->rcap = n;
	}
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	if (jget_u64(snap, "end_time", &out->end_ns))
		return -EBADMSG;
	/* damo leaves the first one unset */
	if (jget_u64(snap, "start_time", &out->start_ns))
		out->start_ns = out->end_ns - se->aggr_us * 1000;
	out->kdamond = se->kdamond;
	out->context = se->context;
	out->target = se->target;
	out->scheme = se->scheme;
	out->sample_us = se->sample_us;
	out->aggr_us = se->aggr_us;
	out->update_us = se->update_us;
	out->ops_filters = s->cur_filters;
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(regions, i), *na = NULL, *age = NULL;
		struct damonctl_rec_region *rg = &s->regions[i];

		memset(rg, 0, sizeof(*rg));
		if (jget_u64(r, "start", &rg->start) || jget_u64(r, "end", &rg->end) ||
		    rg->end < rg->start)
			return -EBADMSG;
		total += rg->end - rg->start;
		json_object_object_get_ex(r, "nr_accesses", &na);
		if (na && json_object_is_type(na, json_type_object)) {
			if (!jget(na, "samples", &d))
				rg->nr_accesses = (uint32_t)to_u64(d);
			else if (!jget(na, "percent", &d) && se->sample_us)
				rg->nr_accesses = (uint32_t)to_u64(d / 100 * (double)se->aggr_us /
								   (double)se->sample_us);
		} else if (!jnum(na, &d)) {
			rg->nr_accesses = (uint32_t)to_u64(d);
		}
		json_object_object_get_ex(r, "age", &age);
		if (age && json_object_is_type(age, json_type_object)) {
			if (!jget(age, "aggr_intervals", &d))
				rg->age = (uint32_t)to_u64(d);
			else if (!jget(age, "usec", &d) && se->aggr_us)
				rg->age = (uint32_t)to_u64(d / (double)se->aggr_us);
		} else if (!jnum(age, &d)) {
			rg->age = (uint32_t)to_u64(d);
		}
		if (!jget_u64(r, "sz_filter_passed", &rg->sz_filter_passed) &&
		    rg->sz_filter_passed)
			out->has_sz_filter_passed = true;
	}
	if (jget_u64(snap, "total_bytes", &out->total_bytes))
		out->total_bytes = total;
	out->nr_regions = (uint32_t)n;
	out->regions = s->regions;
	return take_probe_hits(s, regions, n, out);
}

/* A tried-regions scheme's snapshot's damos_stats (damo's DamosStats.to_kvpairs: numbers,
 * or their text), as a STATS item at the snapshot's start: damo keeps no time for them, and
 * a reader that times the record from its first item still times it from the snapshot */
static void take_stats(struct damo_src *s, json_object *snap,
		       const struct damonctl_rec_snapshot *out)
{
	static const char *const keys[] = {
		"nr_tried", "sz_tried", "nr_applied", "sz_applied", "sz_ops_filter_passed",
		"qt_exceeds", "nr_snapshots",	/* in enum damonctl_rec_stat's order */
	};
	json_object *st = NULL;

	s->has_stats = false;
	if (out->scheme < 0 || !json_object_object_get_ex(snap, "damos_stats", &st) ||
	    !json_object_is_type(st, json_type_object))
		return;
	memset(&s->stats, 0, sizeof(s->stats));
	s->stats.sz = sizeof(s->stats);
	s->stats.time_ns = out->start_ns;
	s->stats.kdamond = out->kdamond;
	s->stats.context = out->context;
	s->stats.scheme = (uint32_t)out->scheme;
	for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!jget_u64(st, keys[i], &s->stats.v[i]))
			s->stats.has |= 1u << i;
	s->has_stats = s->stats.has != 0;
}

bool dctl_damo_src_stats(struct damo_src *s, struct damonctl_rec_stats *out)
{
	if (!s->has_stats)
		return false;
	*out = s->stats;
	s->has_stats = false;
	return true;
}

/* After a value of a record: the record goes on (DS_RECORD), or it ends and the list of
 * records goes on (DS_RECORDS) or ends (DS_DONE). */
static int after_value(struct damo_src *s)
{
	int r = separator(s, '}');

	if (r < 0)
		return r;
	s->state = DS_RECORD;
	if (r) {
		r = separator(s, ']');
		if (r < 0)
			return r;
		s->state = r ? DS_DONE : DS_RECORDS;
	}
	return 0;
}

static int ds_top(struct damo_src *s)
{
	if (expect(s, '['))
		return -EBADMSG;
	s->state = DS_RECORDS;
	if (peek(s) == ']') {
		s->pos++;
		s->state = DS_DONE;
	}
	return 0;
}

static int ds_records(struct damo_src *s)
{
	int r;

	if (expect(s, '{'))
		return -EBADMSG;
	memset(&s->cur, 0, sizeof(s->cur));
	s->cur.target = s->cur.scheme = -1;
	free(s->cur_filters);
	s->cur_filters = NULL;
	s->state = DS_RECORD;
	if (peek(s) == '}') {	/* an empty record */
		s->pos++;
		r = separator(s, ']');
		if (r < 0)
			return r;
		s->state = r ? DS_DONE : DS_RECORDS;
	}
	return 0;
}

/* A key of a record: its value kept (record_key), or the start of its snapshots. */
static int ds_record(struct damo_src *s)
{
	json_object *v;
	char key[64];
	int r;

	if (take(s, &v))
		return -EBADMSG;
	if (!json_object_is_type(v, json_type_string)) {
		json_object_put(v);
		return -EBADMSG;
	}
	snprintf(key, sizeof(key), "%s", json_object_get_string(v));
	json_object_put(v);
	if (expect(s, ':'))
		return -EBADMSG;
	if (!strcmp(key, "snapshots")) {
		if (expect(s, '['))
			return -EBADMSG;
		s->state = DS_SNAPSHOTS;
		if (peek(s) != ']')
			return 0;
		s->pos++;
		return after_value(s);
	}
	if (take(s, &v))
		return -EBADMSG;
	r = record_key(s, key, v);
	json_object_put(v);
	return r ? r : after_value(s);
}

/* A snapshot of the list: 1 with @snap, 0 for one to skip (damo's placeholder), -errno. */
static int ds_snapshot(struct damo_src *s, struct damonctl_rec_snapshot *snap)
{
	json_object *v, *regions;
	bool fake;
	int r;

	if (take(s, &v))
		return -EBADMSG;
	r = separator(s, ']');
	if (r > 0)	/* after the list: the record goes on or ends */
		r = after_value(s);
	if (r < 0) {
		json_object_put(v);
		return r;
	}
	fake = json_object_object_get_ex(v, "regions", &regions) &&
	       json_object_is_type(regions, json_type_array) && is_fake(regions);
	r = fake ? 0 : convert(s, &s->cur, v, snap);
	if (!r && !fake)
		take_stats(s, v, snap);
	json_object_put(v);
	if (r)
		return r;
	return fake ? 0 : 1;
}

int dctl_damo_src_next(struct damo_src *s, struct damonctl_rec_snapshot *snap)
{
	int r = 0;

	for (;;) {
		switch (s->state) {
		case DS_TOP:
			r = ds_top(s);
			break;
		case DS_RECORDS:
			r = ds_records(s);
			break;
		case DS_RECORD:
			r = ds_record(s);
			break;
		case DS_SNAPSHOTS:
			r = ds_snapshot(s, snap);
			break;
		case DS_DONE:
			return 0;
		}
		if (r)
			return r;
	}
}

int dctl_damo_src_rewind(struct damo_src *s)
{
	if (s->start < 0 || lseek(s->fd, s->start, SEEK_SET) < 0)
		return -ESPIPE;
	reset(s);
	s->has_stats = false;
	return 0;
}

void dctl_damo_src_free(struct damo_src *s)
{
	if (!s)
		return;
	if (s->zs_init)
		zlib_fn.inflateEnd(&s->zs);
	free(s->buf);
	free(s->prefix);
	free(s->regions);
	free(s->hits);
	free(s->cur_filters);
	free(s);
}

/* ---- writing ---- */

struct jw {
	int fd;
	bool zlib;
	z_stream zs;
	char buf[65536];
	size_t len;
	int err;
};

static void jw_out(struct jw *w, const void *p, size_t n)
{
	const char *c = p;

	while (n && !w->err) {
		ssize_t k = write(w->fd, c, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

static void jw_flush(struct jw *w, bool finish)
{
	unsigned char out[65536];

	if (!w->zlib) {
		jw_out(w, w->buf, w->len);
		w->len = 0;
		return;
	}
	w->zs.next_in = (Bytef *)w->buf;
	w->zs.avail_in = (uInt)w->len;
	do {
		int zr;

		w->zs.next_out = out;
		w->zs.avail_out = sizeof(out);
		zr = zlib_fn.deflate(&w->zs, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR) {
			w->err = -EIO;
			return;
		}
		jw_out(w, out, sizeof(out) - w->zs.avail_out);
	} while (w->zs.avail_out == 0 || (finish && w->zs.avail_in));
	w->len = 0;
}

static void __attribute__((format(printf, 2, 3))) jw_printf(struct jw *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sizeof(w->buf) - w->len < 1024)
		jw_flush(w, false);
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->len, sizeof(w->buf) - w->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(w->buf) - w->len)
		w->err = -EOVERFLOW;
	else
		w->len += (size_t)n;
}

/* Text of any length (a jw_printf holds less than its buffer). */
static void jw_puts(struct jw *w, const char *t)
{
	size_t n = strlen(t);

	while (n && !w->err) {
		size_t k;

		if (w->len == sizeof(w->buf))
			jw_flush(w, false);
		k = sizeof(w->buf) - w->len < n ? sizeof(w->buf) - w->len : n;
		memcpy(w->buf + w->len, t, k);
		w->len += k;
		t += k;
		n -= k;
	}
}

/* One of damo's records: a series, and the ops filters its snapshots were taken through
 * (damo keeps them per record: snapshots of other filters make a record of their own). */
struct series_key {
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t sample_us, aggr_us, update_us;
	char *filters;
};

static bool same_series(const struct series_key *k, const struct damonctl_rec_snapshot *s)
{
	return k->kdamond == s->kdamond && k->context == s->context && k->target == s->target &&
	       k->scheme == s->scheme &&
	       (k->filters && s->ops_filters ? !strcmp(k->filters, s->ops_filters) :
		k->filters == s->ops_filters);
}

static void write_index(struct jw *w, const char *key, int64_t v, bool last)
{
	if (v < 0)
		jw_printf(w, "        \"%s\": null%s\n", key, last ? "" : ",");
	else
		jw_printf(w, "        \"%s\": %" PRId64 "%s\n", key, v, last ? "" : ",");
}

static int write_series(struct damonctl_rec_reader *r, struct jw *w,
			const struct series_key *k, bool first)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	bool first_snap = true;
	int ret;

	jw_printf(w, "%s    {\n", first ? "" : ",\n");
	write_index(w, "kdamond_idx", k->kdamond, false);
	write_index(w, "context_idx", k->context, false);
	jw_printf(w, "        \"intervals\": {\"sample_us\": \"%" PRIu64 "\", \"aggr_us\": \"%"
		  PRIu64 "\", \"ops_update_us\": \"%" PRIu64 "\", \"intervals_goal\": "
		  "{\"access_bp\": \"0.000000\", \"aggrs\": \"0\", \"min_sample_us\": \"0\", "
		  "\"max_sample_us\": \"0\"}},\n", k->sample_us, k->aggr_us, k->update_us);
	write_index(w, "scheme_idx", k->scheme, false);
	write_index(w, "target_id", k->target, false);
	ret = dctl_ops_filters_to_damo(k->filters, NULL, 0);
	if (ret < 0)
		return ret;
	{
		char *list = malloc((size_t)ret + 1);

		if (!list)
			return -ENOMEM;
		dctl_ops_filters_to_damo(k->filters, list, (size_t)ret + 1);
		jw_printf(w, "        \"scheme_filters\": ");
		jw_puts(w, list);
		free(list);
	}
	jw_printf(w, ",\n        \"snapshots\": [");
	ret = damonctl_rec_rewind(r);
	if (ret)
		return ret;
	while ((ret = damonctl_rec_next(r, &it)) == 1 && !w->err) {
		const struct damonctl_rec_snapshot *s = it.snapshot;
		uint32_t i;

		if (it.type != DAMONCTL_REC_SNAPSHOT || !same_series(k, s))
			continue;
		jw_printf(w, "%s\n            {\"start_time\": \"%" PRIu64 "\", \"end_time\": \"%"
			  PRIu64 "\", \"regions\": [", first_snap ? "" : ",", s->start_ns, s->end_ns);
		for (i = 0; i < s->nr_regions; i++) {
			const struct damonctl_rec_region *rg = &s->regions[i];

			jw_printf(w, "%s{\"start\": \"%" PRIu64 "\", \"end\": \"%" PRIu64 "\", "
				  "\"nr_accesses\": {\"samples\": %" PRIu32 ", \"percent\": null}, "
				  "\"age\": {\"usec\": null, \"aggr_intervals\": \"%" PRIu32 "\"}, "
				  "\"probe_hits\": [", i ? ", " : "",
				  rg->start, rg->end, rg->nr_accesses, rg->age);
			/* damo writes the list as numbers, [] without probes */
			for (uint32_t p = 0; s->probe_hits && p < s->nr_probes; p++) {
				unsigned int h = s->probe_hits[(size_t)i * s->nr_probes + p];

				jw_printf(w, "%s%u", p ? ", " : "", h);
			}
			jw_printf(w, "], \"sz_filter_passed\": \"%" PRIu64 "\"}",
				  rg->sz_filter_passed);
		}
		jw_printf(w, "], \"total_bytes\": \"%" PRIu64 "\"}", s->total_bytes);
		first_snap = false;
	}
	if (ret < 0)
		return ret;
	jw_printf(w, "\n        ]\n    }");
	return w->err;
}

static void free_keys(struct series_key *keys, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(keys[i].filters);
	free(keys);
}

DAMONCTL_API int damonctl_rec_export_damo(struct damonctl_rec_reader *r, int fd, bool zlib)
{
	struct series_key *keys = NULL;
	size_t nr = 0, cap = 0, i;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct jw *w;
	int ret;

	ret = damonctl_rec_rewind(r);
	if (ret)
		return ret;
	/* pass 1: which series there are, with their first intervals */
	while ((ret = damonctl_rec_next(r, &it)) == 1) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		for (i = 0; i < nr && !same_series(&keys[i], it.snapshot); i++)
			;
		if (i < nr)
			continue;
		if (nr == cap) {
			void *p = realloc(keys, (cap = cap ? cap * 2 : 8) * sizeof(*keys));

			if (!p) {
				free_keys(keys, nr);
				return -ENOMEM;
			}
			keys = p;
		}
		keys[nr] = (struct series_key){
			it.snapshot->kdamond, it.snapshot->context, it.snapshot->target,
			it.snapshot->scheme, it.snapshot->sample_us, it.snapshot->aggr_us,
			it.snapshot->update_us, NULL };
		if (it.snapshot->ops_filters) {
			keys[nr].filters = strdup(it.snapshot->ops_filters);
			if (!keys[nr].filters) {
				ret = -ENOMEM;
				break;
			}
		}
		nr++;
	}
	if (ret < 0) {
		free_keys(keys, nr);
		return ret;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		free_keys(keys, nr);
		return -ENOMEM;
	}
	w->fd = fd;
	w->zlib = zlib;
	if (zlib && zlib_deflate_init(&w->zs, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(w);
		free_keys(keys, nr);
		return -ENOMEM;
	}
	jw_printf(w, "[\n");
	for (i = 0; i < nr && !ret; i++)
		ret = write_series(r, w, &keys[i], i == 0);
	jw_printf(w, "\n]\n");
	if (!ret)
		jw_flush(w, true);
	if (!ret)
		ret = w->err;
	if (zlib)
		zlib_fn.deflateEnd(&w->zs);
	free(w);
	free_keys(keys, nr);
	return ret;
}
