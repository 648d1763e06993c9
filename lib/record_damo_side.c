// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * damo's side files of a record (damonitor/damo src/_damo_records.py: `damo record` writes
 * FILE.mem_footprint and FILE.vmas beside FILE) as FOOTPRINT items (docs/record-format.md),
 * so that damonc's reports see in a damo record what they see in one of damonc's: memory
 * footprints, and the mappings the heatmap leaves the rest of out.
 *
 *   FILE.mem_footprint  [{"time": SECONDS, "footprints": [{"pid": PID, "footprint":
 *                       {"size": PAGES, "resident": PAGES, ...}}, {"pid": null, "footprint":
 *                       {"total": KIB, "free": KIB, "available": KIB, ...}}]}, ...]
 *   FILE.vmas           [{"time": SECONDS, "procvmas": [{"pid": PID, "vmas": [{"start": A,
 *                       "end": B, "name": NAME}, ...]}]}, ...]
 *
 * damo counts pages of 4 KiB (its "todo: get real page size"), and so does this. A
 * footprint's processes are the record's targets in the order damo walked them, the i-th
 * process target i; its mappings are those of the FILE.vmas entry nearest in time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "record_internal.h"

#define DAMO_PAGE 4096

static uint64_t u64_of(json_object *o, const char *key, bool *ok)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		*ok = false;
		return 0;
	}
	return json_object_get_uint64(v);
}

static uint64_t time_ns_of(json_object *entry)
{
	json_object *t;
	double s;

	if (!json_object_object_get_ex(entry, "time", &t))
		return 0;
	s = json_object_get_double(t);
	return s > 0 && s < 1.8e10 ? (uint64_t)llround(s * 1e9) : 0;
}

/* The mappings of process @pid in the FILE.vmas entry nearest to @ns, as FOOTPRINT's vmas;
 * NULL when it has none. */
static json_object *vmas_of(json_object *vmas, uint64_t ns, uint64_t pid)
{
	json_object *best = NULL, *procs, *arr, *out;
	uint64_t best_d = UINT64_MAX;
	size_t i, j;

	for (i = 0; vmas && i < json_object_array_length(vmas); i++) {
		json_object *e = json_object_array_get_idx(vmas, i);
		uint64_t t = time_ns_of(e), d = t > ns ? t - ns : ns - t;

		if (d < best_d) {
			best = e;
			best_d = d;
		}
	}
	if (!best || !json_object_object_get_ex(best, "procvmas", &procs) ||
	    !json_object_is_type(procs, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(procs); i++) {
		json_object *p = json_object_array_get_idx(procs, i);
		bool ok = true;

		if (u64_of(p, "pid", &ok) != pid || !ok || !json_object_object_get_ex(p, "vmas", &arr) ||
		    !json_object_is_type(arr, json_type_array))
			continue;
		out = json_object_new_array();
		for (j = 0; j < json_object_array_length(arr); j++) {
			json_object *v = json_object_array_get_idx(arr, j), *m, *name;
			uint64_t start = u64_of(v, "start", &ok), end = u64_of(v, "end", &ok);

			if (!ok)
				break;
			m = json_object_new_array();
			json_object_array_add(m, json_object_new_uint64(start));
			json_object_array_add(m, json_object_new_uint64(end));
			json_object_array_add(m, json_object_new_string(""));
			json_object_object_get_ex(v, "name", &name);
			json_object_array_add(m, json_object_new_string(
				json_object_is_type(name, json_type_string) ?
				json_object_get_string(name) : ""));
			json_object_array_add(out, m);
		}
		return out;
	}
	return NULL;
}

/* FOOTPRINT's document of one FILE.mem_footprint entry; NULL when it holds nothing. */
static json_object *footprint_of(json_object *entry, json_object *vmas, uint64_t ns)
{
	json_object *fps, *doc = json_object_new_object(), *targets = json_object_new_array();
	size_t i;
	int target = 0;

	json_object_object_get_ex(entry, "footprints", &fps);
	for (i = 0; json_object_is_type(fps, json_type_array) &&
		    i < json_object_array_length(fps); i++) {
		json_object *e = json_object_array_get_idx(fps, i), *pid, *fp, *o, *v;
		bool ok = true;

		if (!json_object_object_get_ex(e, "footprint", &fp) ||
		    !json_object_is_type(fp, json_type_object))
			continue;
		json_object_object_get_ex(e, "pid", &pid);
		o = json_object_new_object();
		if (!pid || json_object_is_type(pid, json_type_null)) {	/* the system's */
			json_object_object_add(o, "total", json_object_new_uint64(
				u64_of(fp, "total", &ok) * 1024));
			json_object_object_add(o, "free", json_object_new_uint64(
				u64_of(fp, "free", &ok) * 1024));
			json_object_object_add(o, "available", json_object_new_uint64(
				u64_of(fp, "available", &ok) * 1024));
			if (ok)
				json_object_object_add(doc, "system", o);
			else
				json_object_put(o);
			continue;
		}
		json_object_object_add(o, "target", json_object_new_int(target++));
		json_object_object_add(o, "pid", json_object_new_uint64(json_object_get_uint64(pid)));
		json_object_object_add(o, "vsz", json_object_new_uint64(
			u64_of(fp, "size", &ok) * DAMO_PAGE));
		json_object_object_add(o, "rss", json_object_new_uint64(
			u64_of(fp, "resident", &ok) * DAMO_PAGE));
		v = vmas_of(vmas, ns, json_object_get_uint64(pid));
		if (v)
			json_object_object_add(o, "vmas", v);
		if (ok)
			json_object_array_add(targets, o);
		else
			json_object_put(o);
	}
	json_object_object_add(doc, "targets", targets);
	return doc;
}

static int by_time(const void *a, const void *b)
{
	const struct damo_side_item *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

int dctl_damo_side_parse(const char *mem_footprint, const char *vmas_text,
			 struct damo_side **out)
{
	json_object *mem = json_tokener_parse(mem_footprint);
	json_object *vmas = vmas_text ? json_tokener_parse(vmas_text) : NULL;
	struct damo_side *s;
	size_t i, n;

	if (!json_object_is_type(mem, json_type_array) ||
	    (vmas && !json_object_is_type(vmas, json_type_array))) {
		json_object_put(mem);
		json_object_put(vmas);
		return -EINVAL;
	}
	n = json_object_array_length(mem);
	s = calloc(1, sizeof(*s));
	if (s)
		s->v = calloc(n ? n : 1, sizeof(*s->v));
	for (i = 0; s && s->v && i < n; i++) {
		json_object *e = json_object_array_get_idx(mem, i), *doc;
		uint64_t ns = time_ns_of(e);
		const char *text;

		if (!ns)
			continue;	/* damaged: left out, as a damaged FOOTPRINT is */
		doc = footprint_of(e, vmas, ns);
		text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
		s->v[s->n].time_ns = ns;
		s->v[s->n].json = text ? strdup(text) : NULL;
		json_object_put(doc);
		if (!s->v[s->n++].json)
			break;
	}
	json_object_put(mem);
	json_object_put(vmas);
	if (!s || !s->v || (s->n && !s->v[s->n - 1].json)) {
		dctl_damo_side_free(s);
		return -ENOMEM;
	}
	qsort(s->v, s->n, sizeof(*s->v), by_time);
	*out = s;
	return 0;
}

void dctl_damo_side_free(struct damo_side *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->v[i].json);
	free(s->v);
	free(s);
}
