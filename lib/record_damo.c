// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's record JSON, read and written for interoperability. damo writes a list of
 * records, one per kdamond/context/target/scheme, each with its intervals and a list of
 * snapshots (start_time and end_time in ns, regions with nr_accesses {samples, percent} and
 * age {usec, aggr_intervals}), numbers as strings (damo's "raw" formatting), the whole
 * document zlib-compressed by default (damo's record writer; see damonitor/damo,
 * src/_damo_records.py and src/_damon.py).
 *
 * Reading: the document is parsed whole (it is one JSON value); snapshots come out merged
 * across damo's records in time order, as damonc's own records have them.
 * Writing: streamed, one pass over the input per series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <json-c/json.h>

#include "internal.h"
#include "record_internal.h"

/* ---- reading ---- */

struct damo_series {
	json_object *snapshots;
	size_t nr, next;
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t sample_us, aggr_us, update_us;
};

struct damo_src {
	json_object *root;
	struct damo_series *series;
	size_t nr_series;
	struct damonctl_rec_region *regions;
	size_t rcap;
};

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

static int index_or(json_object *rec, const char *key, int32_t dflt, int32_t *out)
{
	double d;
	int r = jget(rec, key, &d);

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

int dctl_damo_src_open(const char *data, size_t len, bool zlib, struct damo_src **out)
{
	struct damo_src *s = calloc(1, sizeof(*s));
	char *text = NULL;
	size_t i;

	if (!s)
		return -ENOMEM;
	if (zlib) {
		z_stream zs = { 0 };
		size_t cap = len * 8 + 4096, tlen = 0;
		int zr;

		text = malloc(cap);
		if (!text || inflateInit(&zs) != Z_OK)
			goto nomem;
		zs.next_in = (Bytef *)data;
		zs.avail_in = (uInt)len;
		do {
			if (cap - tlen < 65536) {
				char *p = realloc(text, cap *= 2);

				if (!p) {
					inflateEnd(&zs);
					goto nomem;
				}
				text = p;
			}
			zs.next_out = (Bytef *)text + tlen;
			zs.avail_out = (uInt)(cap - tlen - 1);
			zr = inflate(&zs, Z_NO_FLUSH);
			tlen = zs.total_out;
		} while (zr == Z_OK);
		inflateEnd(&zs);
		if (zr != Z_STREAM_END)
			goto bad;
		text[tlen] = '\0';
		data = text;
		len = tlen;
	}
	{
		json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);

		if (!tok)
			goto nomem;
		s->root = json_tokener_parse_ex(tok, data, (int)len);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(s->root);
			s->root = NULL;
		}
		json_tokener_free(tok);
	}
	free(text);
	text = NULL;
	if (!s->root || !json_object_is_type(s->root, json_type_array))
		goto bad;
	s->nr_series = json_object_array_length(s->root);
	s->series = calloc(s->nr_series ? s->nr_series : 1, sizeof(*s->series));
	if (!s->series)
		goto nomem;
	for (i = 0; i < s->nr_series; i++) {
		json_object *rec = json_object_array_get_idx(s->root, i), *iv = NULL;
		struct damo_series *se = &s->series[i];
		int32_t kd, cx;
		double d;

		if (!json_object_is_type(rec, json_type_object) ||
		    !json_object_object_get_ex(rec, "snapshots", &se->snapshots) ||
		    !json_object_is_type(se->snapshots, json_type_array))
			goto bad;
		se->nr = json_object_array_length(se->snapshots);
		if (index_or(rec, "kdamond_idx", 0, &kd) || index_or(rec, "context_idx", 0, &cx) ||
		    index_or(rec, "scheme_idx", -1, &se->scheme) ||
		    index_or(rec, "target_id", -1, &se->target))
			goto bad;
		se->kdamond = kd < 0 ? 0 : (uint32_t)kd;
		se->context = cx < 0 ? 0 : (uint32_t)cx;
		if (json_object_object_get_ex(rec, "intervals", &iv) && iv) {
			if (!jget(iv, "sample_us", &d))
				se->sample_us = to_u64(d);
			if (!jget(iv, "aggr_us", &d))
				se->aggr_us = to_u64(d);
			if (!jget(iv, "ops_update_us", &d))
				se->update_us = to_u64(d);
		}
	}
	*out = s;
	return 0;
nomem:
	free(text);
	dctl_damo_src_free(s);
	return -ENOMEM;
bad:
	free(text);
	dctl_damo_src_free(s);
	return -EBADMSG;
}

static int snapshot_time(json_object *snap, const char *key, double *out)
{
	return jget(snap, key, out);
}

/* damo marks a lone snapshot's companion as fake: one 0-0 region with -1 samples. */
static bool is_fake(json_object *regions)
{
	json_object *r0, *na, *v;
	double s, e;

	if (json_object_array_length(regions) != 1)
		return false;
	r0 = json_object_array_get_idx(regions, 0);
	if (jget(r0, "start", &s) || jget(r0, "end", &e) || s != 0 || e != 0)
		return false;
	return json_object_object_get_ex(r0, "nr_accesses", &na) && na &&
	       json_object_object_get_ex(na, "samples", &v) && v &&
	       json_object_get_int64(v) == -1;
}

static int convert(struct damo_src *s, struct damo_series *se, json_object *snap,
		   struct damonctl_rec_snapshot *out)
{
	json_object *regions;
	double d;
	size_t i, n;
	uint64_t total = 0;

	if (!json_object_object_get_ex(snap, "regions", &regions) ||
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
		if (!jget_u64(r, "sz_filter_passed", &rg->sz_filter_passed)) {
			if (rg->sz_filter_passed)
				out->has_sz_filter_passed = true;
		}
	}
	if (jget_u64(snap, "total_bytes", &out->total_bytes))
		out->total_bytes = total;
	out->nr_regions = (uint32_t)n;
	out->regions = s->regions;
	return 0;
}

int dctl_damo_src_next(struct damo_src *s, struct damonctl_rec_snapshot *snap)
{
	for (;;) {
		struct damo_series *best = NULL;
		json_object *js, *regions;
		double best_t = 0;
		size_t i;

		/* the earliest next snapshot across damo's records */
		for (i = 0; i < s->nr_series; i++) {
			struct damo_series *se = &s->series[i];
			double t;

			if (se->next >= se->nr)
				continue;
			if (snapshot_time(json_object_array_get_idx(se->snapshots, se->next),
					  "end_time", &t))
				return -EBADMSG;
			if (!best || t < best_t) {
				best = se;
				best_t = t;
			}
		}
		if (!best)
			return 0;
		js = json_object_array_get_idx(best->snapshots, best->next++);
		if (json_object_object_get_ex(js, "regions", &regions) &&
		    json_object_is_type(regions, json_type_array) && is_fake(regions))
			continue;
		{
			int r = convert(s, best, js, snap);

			return r ? r : 1;
		}
	}
}

void dctl_damo_src_rewind(struct damo_src *s)
{
	size_t i;

	for (i = 0; i < s->nr_series; i++)
		s->series[i].next = 0;
}

void dctl_damo_src_free(struct damo_src *s)
{
	if (!s)
		return;
	json_object_put(s->root);
	free(s->series);
	free(s->regions);
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
		zr = deflate(&w->zs, finish ? Z_FINISH : Z_NO_FLUSH);
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

struct series_key {
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t sample_us, aggr_us, update_us;
};

static bool same_series(const struct series_key *k, const struct damonctl_rec_snapshot *s)
{
	return k->kdamond == s->kdamond && k->context == s->context && k->target == s->target &&
	       k->scheme == s->scheme;
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
	struct damonctl_rec_item it;
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
	jw_printf(w, "        \"scheme_filters\": [],\n        \"snapshots\": [");
	ret = damonctl_rec_rewind(r);
	if (ret)
		return ret;
	while ((ret = damonctl_rec_next(r, &it)) == 1 && !w->err) {
		const struct damonctl_rec_snapshot *s = &it.snapshot;
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
				  "\"sz_filter_passed\": \"%" PRIu64 "\"}", i ? ", " : "",
				  rg->start, rg->end, rg->nr_accesses, rg->age, rg->sz_filter_passed);
		}
		jw_printf(w, "], \"total_bytes\": \"%" PRIu64 "\"}", s->total_bytes);
		first_snap = false;
	}
	if (ret < 0)
		return ret;
	jw_printf(w, "\n        ]\n    }");
	return w->err;
}

DAMONCTL_API int damonctl_rec_export_damo(struct damonctl_rec_reader *r, int fd, bool zlib)
{
	struct series_key *keys = NULL;
	size_t nr = 0, cap = 0, i;
	struct damonctl_rec_item it;
	struct jw *w;
	int ret;

	ret = damonctl_rec_rewind(r);
	if (ret)
		return ret;
	/* pass 1: which series there are, with their first intervals */
	while ((ret = damonctl_rec_next(r, &it)) == 1) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		for (i = 0; i < nr && !same_series(&keys[i], &it.snapshot); i++)
			;
		if (i < nr)
			continue;
		if (nr == cap) {
			void *p = realloc(keys, (cap = cap ? cap * 2 : 8) * sizeof(*keys));

			if (!p) {
				free(keys);
				return -ENOMEM;
			}
			keys = p;
		}
		keys[nr++] = (struct series_key){
			it.snapshot.kdamond, it.snapshot.context, it.snapshot.target,
			it.snapshot.scheme, it.snapshot.sample_us, it.snapshot.aggr_us,
			it.snapshot.update_us };
	}
	if (ret < 0) {
		free(keys);
		return ret;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		free(keys);
		return -ENOMEM;
	}
	w->fd = fd;
	w->zlib = zlib;
	if (zlib && deflateInit(&w->zs, Z_DEFAULT_COMPRESSION) != Z_OK) {
		free(w);
		free(keys);
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
		deflateEnd(&w->zs);
	free(w);
	free(keys);
	return ret;
}
