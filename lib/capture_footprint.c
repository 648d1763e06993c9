// SPDX-License-Identifier: LGPL-2.1-or-later
/* The FOOTPRINT items of a live capture (see capture_internal.h). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

/* A process's mappings as FOOTPRINT's "vmas" ([start, end, perms, name] each, when @arr is
 * given), and their FNV-1a hash, by which a footprint keeps only those that changed. */
struct vma_list {
	json_object *arr;
	uint64_t hash;
};

static void fnv(uint64_t *h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
}

static int add_vma(void *data, const struct damonctl_vma *v)
{
	struct vma_list *l = data;
	json_object *e;

	fnv(&l->hash, &v->start, sizeof(v->start));
	fnv(&l->hash, &v->end, sizeof(v->end));
	fnv(&l->hash, v->perms, strlen(v->perms) + 1);
	fnv(&l->hash, v->name, strlen(v->name) + 1);
	if (!l->arr)
		return 0;
	e = json_object_new_array();
	json_object_array_add(e, json_object_new_uint64(v->start));
	json_object_array_add(e, json_object_new_uint64(v->end));
	json_object_array_add(e, json_object_new_string(v->perms));
	json_object_array_add(e, json_object_new_string(v->name));
	json_object_array_add(l->arr, e);
	return 0;
}

/* Target @i's footprint: its sizes, CPU time, and its mappings when they changed since its
 * last footprint; NULL when it has exited. */
static json_object *target_footprint(struct damonctl_capture *c, unsigned int i)
{
	struct vma_list l = { NULL, 0xcbf29ce484222325ull };
	uint64_t vsz, rss, cpu_us;
	json_object *t;

	if (damonctl_proc_statm(c->ctx, c->pids[i], &vsz, &rss))
		return NULL;
	t = json_object_new_object();
	json_object_object_add(t, "target", json_object_new_int((int)i));
	json_object_object_add(t, "pid", json_object_new_int(c->pids[i]));
	json_object_object_add(t, "vsz", json_object_new_uint64(vsz));
	json_object_object_add(t, "rss", json_object_new_uint64(rss));
	if (!damonctl_proc_cpu_time(c->ctx, c->pids[i], &cpu_us))
		json_object_object_add(t, "cpu_us", json_object_new_uint64(cpu_us));
	/* hashed first, and only mappings that changed (rarely, after the first) read again
	 * into JSON: most ticks build nothing */
	if (damonctl_proc_maps(c->ctx, c->pids[i], add_vma, &l) || l.hash == c->vma_hash[i])
		return t;
	l.arr = json_object_new_array();
	l.hash = 0xcbf29ce484222325ull;
	if (!damonctl_proc_maps(c->ctx, c->pids[i], add_vma, &l)) {
		c->vma_hash[i] = l.hash;
		json_object_object_add(t, "vmas", l.arr);
	} else {
		json_object_put(l.arr);
	}
	return t;
}

/* The memory footprint now, as the FOOTPRINT item docs/record-format.md describes: the
 * system's, the kdamond's CPU time, and each monitored process's (those that exited are
 * left out). Nothing when it cannot be read: a footprint is an extra, never a reason to
 * stop recording. Its time is when it is read, not when the tick began: reading the
 * regions before it may take a while, and CPU shares divide by the time between two. */
void dctl_capture_take_footprint(struct damonctl_capture *c)
{
	uint64_t now = dctl_capture_now_ns(), cpu_us;
	struct damonctl_meminfo m = DAMONCTL_MEMINFO_INIT;
	json_object *o, *sys, *arr;
	unsigned int i;
	const char *s;

	if (c->o.no_footprints || damonctl_meminfo_read(c->ctx, &m)) {
		damonctl_clear_error(c->ctx);
		return;
	}
	o = json_object_new_object();
	sys = json_object_new_object();
	json_object_object_add(sys, "total", json_object_new_uint64(m.total));
	json_object_object_add(sys, "free", json_object_new_uint64(m.free));
	json_object_object_add(sys, "available", json_object_new_uint64(m.available));
	json_object_object_add(sys, "huge", json_object_new_uint64(damonctl_meminfo_huge(&m)));
	json_object_object_add(o, "system", sys);
	if (c->kdamond_pid > 0 &&
	    !damonctl_proc_cpu_time(c->ctx, c->kdamond_pid, &cpu_us)) {
		json_object *k = json_object_new_object();

		json_object_object_add(k, "pid", json_object_new_int(c->kdamond_pid));
		json_object_object_add(k, "cpu_us", json_object_new_uint64(cpu_us));
		json_object_object_add(o, "kdamond", k);
	}
	arr = json_object_new_array();
	for (i = 0; c->vaddr && i < c->nr_pids; i++) {
		json_object *t = target_footprint(c, i);

		if (t)
			json_object_array_add(arr, t);
	}
	damonctl_clear_error(c->ctx);
	json_object_object_add(o, "targets", arr);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	free(c->footprint_json);
	c->footprint_json = s ? strdup(s) : NULL;
	json_object_put(o);
	if (!c->footprint_json)
		return;
	memset(&c->pending[c->nr_pending], 0, sizeof(c->pending[0]));
	c->pending[c->nr_pending].type = DAMONCTL_REC_FOOTPRINT;
	c->pending[c->nr_pending].time_ns = now;
	c->pending[c->nr_pending].json = c->footprint_json;
	c->nr_pending++;
}
