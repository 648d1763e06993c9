// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The binary form of tracefs's ring buffer (per_cpu/cpuN/trace_pipe_raw), decoded without
 * libtraceevent: the page header's layout from events/header_page, the damon_aggregated
 * record's from its events/.../format (its fields changed over kernel versions), and the
 * event headers (type_len:5, time_delta:27) as kernel/trace/ring_buffer.c writes them:
 * data, padding (discarded events, the unused end of a page), time extends and absolute
 * time stamps. Pure functions on buffers: no file access.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

/*
 * Format files describe each field as
 *	field:unsigned long target_id;	offset:8;	size:8;	signed:0;
 * (header_page: "field: u64 timestamp;"). @f is called with the name and its place.
 */
static void each_field(const char *text, void (*f)(void *, const char *, struct traw_field),
		       void *arg)
{
	const char *p = text;

	while ((p = strstr(p, "field:"))) {
		const char *semi = strchr(p, ';'), *name, *o, *s, *eol = strchr(p, '\n');
		char nm[64];
		size_t n;

		if (!eol)
			eol = p + strlen(p);
		if (!semi || semi > eol) {
			p = eol;
			continue;
		}
		name = semi;
		while (name > p && name[-1] != ' ' && name[-1] != '\t' && name[-1] != ':')
			name--;
		n = (size_t)(semi - name);
		o = strstr(semi, "offset:");
		s = strstr(semi, "size:");
		if (n && n < sizeof(nm) && o && s && o < eol && s < eol) {
			struct traw_field fld = { (uint32_t)strtoul(o + 7, NULL, 10),
						  (uint32_t)strtoul(s + 5, NULL, 10) };

			memcpy(nm, name, n);
			nm[n] = '\0';
			f(arg, nm, fld);
		}
		p = eol;
	}
}

static void format_field(void *arg, const char *name, struct traw_field fld)
{
	struct traw_format *f = arg;
	static const struct {
		const char *name;
		size_t off;
	} known[] = {
		{ "common_type", offsetof(struct traw_format, type) },
		{ "target_id", offsetof(struct traw_format, target_id) },
		{ "nr_regions", offsetof(struct traw_format, nr_regions) },
		{ "start", offsetof(struct traw_format, start) },
		{ "end", offsetof(struct traw_format, end) },
		{ "nr_accesses", offsetof(struct traw_format, nr_accesses) },
		{ "age", offsetof(struct traw_format, age) },
	};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name))
			memcpy((char *)f + known[i].off, &fld, sizeof(fld));
}

static bool int_field(struct traw_field f)
{
	return f.size == 1 || f.size == 2 || f.size == 4 || f.size == 8;
}

static int parse_format(const char *text, struct traw_format *f)
{
	const char *id = strstr(text, "\nID:");
	const struct traw_field *need[] = { &f->type, &f->target_id, &f->nr_regions, &f->start,
					    &f->end, &f->nr_accesses };

	memset(f, 0, sizeof(*f));
	if (!strncmp(text, "ID:", 3))
		id = text - 1;
	if (!id)
		return -EINVAL;
	f->id = (uint32_t)strtoul(id + 4, NULL, 10);
	each_field(text, format_field, f);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!int_field(*need[i]))
			return -EINVAL;
		if (need[i]->off + need[i]->size > f->min_size)
			f->min_size = need[i]->off + need[i]->size;
	}
	if (f->age.size && !int_field(f->age))
		return -EINVAL;
	if (f->age.off + f->age.size > f->min_size)
		f->min_size = f->age.off + f->age.size;
	return 0;
}

static void header_field(void *arg, const char *name, struct traw_field fld)
{
	struct traw_layout *l = arg;

	if (!strcmp(name, "timestamp"))
		l->timestamp = fld;
	else if (!strcmp(name, "commit"))
		l->commit = fld;
	else if (!strcmp(name, "data"))
		l->data = fld;
}

static int parse_header_page(const char *text, struct traw_layout *l)
{
	memset(l, 0, sizeof(*l));
	each_field(text, header_field, l);
	if (l->timestamp.size != 8 || (l->commit.size != 4 && l->commit.size != 8) ||
	    !l->data.size || l->data.off < l->commit.off + l->commit.size)
		return -EINVAL;
	l->page_size = (size_t)l->data.off + l->data.size;
	return 0;
}

/* Records are in the kernel's (this machine's) byte order. */
static uint64_t rd(const unsigned char *p, uint32_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/* struct ring_buffer_event { u32 type_len:5, time_delta:27; u32 array[]; } */
static void event_header(uint32_t w, uint32_t *type_len, uint32_t *delta)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	*type_len = w >> 27;
	*delta = w & ((1u << 27) - 1);
#else
	*type_len = w & 31;
	*delta = w >> 5;
#endif
}

static int record(const struct traw_format *f, const unsigned char *d, uint32_t len,
		  uint64_t ts, damonctl_trace_region_fn cb, void *arg)
{
	struct damonctl_trace_region ev = { .size = sizeof(ev) };

	if (len < f->min_size || rd(d + f->type.off, f->type.size) != f->id)
		return 0;	/* not ours: the instance has no other event enabled */
	ev.ts_ns = ts;
	ev.target_id = rd(d + f->target_id.off, f->target_id.size);
	ev.nr_regions = (uint32_t)rd(d + f->nr_regions.off, f->nr_regions.size);
	ev.start = rd(d + f->start.off, f->start.size);
	ev.end = rd(d + f->end.off, f->end.size);
	ev.nr_accesses = (uint32_t)rd(d + f->nr_accesses.off, f->nr_accesses.size);
	ev.age = f->age.size ? (uint32_t)rd(d + f->age.off, f->age.size) : 0;
	return cb(arg, &ev);
}

static int parse_page(const struct traw_layout *l, const struct traw_format *f,
		      const unsigned char *page, size_t len, damonctl_trace_region_fn cb,
		      void *arg, bool *missed)
{
	uint64_t ts, commit;
	const unsigned char *data = page + l->data.off;
	size_t size, p = 0;

	*missed = false;
	if (len < l->data.off)
		return -EINVAL;
	ts = rd(page + l->timestamp.off, 8);
	commit = rd(page + l->commit.off, l->commit.size);
	*missed = (commit & TRAW_MISSED_EVENTS) != 0;
	size = commit & TRAW_COMMIT_MASK;
	if (size > len - l->data.off)
		return -EINVAL;
	while (p + 4 <= size) {
		uint32_t type_len, delta, a0 = 0;
		int r = 0;

		event_header((uint32_t)rd(data + p, 4), &type_len, &delta);
		if (p + 8 <= size)
			a0 = (uint32_t)rd(data + p + 4, 4);
		switch (type_len) {
		case TRAW_PADDING:
			if (!delta)
				return 0;	/* the rest of the page is unused */
			/*
			 * a discarded event: array[0] is its length; the writer took the next
			 * event's delta from it, so it counts (as in libtraceevent's kbuffer)
			 */
			if (p + 8 > size || a0 < 4)
				return -EINVAL;
			ts += delta;
			p += 4 + (size_t)a0;
			continue;
		case TRAW_TIME_EXTEND:
			if (p + 8 > size)
				return -EINVAL;
			ts += delta | (uint64_t)a0 << 27;
			p += 8;
			continue;
		case TRAW_TIME_STAMP: {
			/* only the low 59 bits are stored: the rest comes from the page's time */
			const uint64_t msb = ~0ull << 59;
			uint64_t abs = delta | (uint64_t)a0 << 27;

			if (p + 8 > size)
				return -EINVAL;
			if (ts & msb) {
				abs |= ts & msb;
				if (abs < ts)
					abs += 1ull << 59;
			}
			ts = abs;
			p += 8;
			continue;
		}
		case 0:
			/* a long record: array[0] is its length (itself included), data after */
			if (p + 8 > size || a0 < 4 || p + 4 + a0 > size)
				return -EINVAL;
			ts += delta;
			r = record(f, data + p + 8, a0 - 4, ts, cb, arg);
			p += 4 + (size_t)a0;
			break;
		default:
			if (p + 4 + type_len * 4 > size)
				return -EINVAL;
			ts += delta;
			r = record(f, data + p + 4, type_len * 4, ts, cb, arg);
			p += 4 + type_len * 4;
			break;
		}
		if (r)
			return r;
	}
	return 0;
}

int damonctl_trace_raw_new(struct damonctl_trace_raw **out)
{
	struct damonctl_trace_raw *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	*out = r;
	return 0;
}

void damonctl_trace_raw_free(struct damonctl_trace_raw *r)
{
	free(r);
}

int damonctl_trace_raw_set_format(struct damonctl_trace_raw *r, const char *text)
{
	struct traw_format f;
	int ret = parse_format(text, &f);

	if (!ret) {
		r->fmt = f;
		r->has_fmt = true;
	}
	return ret;
}

int damonctl_trace_raw_set_header_page(struct damonctl_trace_raw *r, const char *text)
{
	struct traw_layout l;
	int ret = parse_header_page(text, &l);

	if (!ret) {
		r->lay = l;
		r->has_lay = true;
	}
	return ret;
}

size_t damonctl_trace_raw_page_size(const struct damonctl_trace_raw *r)
{
	return r->has_lay ? r->lay.page_size : 0;
}

int damonctl_trace_raw_parse_page(const struct damonctl_trace_raw *r, const unsigned char *page,
				  size_t len, damonctl_trace_region_fn fn, void *arg, bool *missed)
{
	*missed = false;
	if (!r->has_fmt || !r->has_lay)
		return -EINVAL;
	return parse_page(&r->lay, &r->fmt, page, len, fn, arg, missed);
}
