// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Writing damonc's binary record format (docs/record-format.md). Every item is encoded into
 * one buffer and handed to the kernel in one write(), so a recorder killed at any moment
 * leaves whole chunks and at most one partial chunk at the end, which readers detect by its
 * length and checksum.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "ops_filters.h"
#include "record_internal.h"
#include "zlib_dl.h"

struct damonctl_rec_writer {
	int fd;
	unsigned int flags;
	uint64_t bytes;
	uint64_t nr_snapshots;
	uint8_t *buf;		/* chunk header + raw payload */
	size_t cap;
	uint8_t *zbuf;		/* chunk header + compressed payload */
	size_t zcap;
	uint8_t *held;		/* chunks that go out with the next one, in its write() */
	size_t held_len, held_cap;
	z_stream zs;
	bool zs_init;
};

static const char *const end_reasons[] = {
	[DAMONCTL_REC_END_DURATION] = "duration",
	[DAMONCTL_REC_END_SIGNAL] = "signal",
	[DAMONCTL_REC_END_TARGET_EXITED] = "target_exited",
	[DAMONCTL_REC_END_KDAMOND_STOPPED] = "kdamond_stopped",
	[DAMONCTL_REC_END_COUNT] = "count",
	[DAMONCTL_REC_END_CONVERTED] = "converted",
	[DAMONCTL_REC_END_OUTPUT_CLOSED] = "output_closed",
	[DAMONCTL_REC_END_ERROR] = "error",
};

DAMONCTL_API const char *damonctl_rec_end_reason_name(enum damonctl_rec_end_reason r)
{
	if ((unsigned int)r >= ARRAY_SIZE(end_reasons) || !end_reasons[r])
		return "unknown";
	return end_reasons[r];
}

static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;
	size_t n = *cap ? *cap : 4096;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

static int write_all(struct damonctl_rec_writer *w, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		w->bytes += (uint64_t)n;
	}
	return 0;
}

static void fill_header(uint8_t *h, unsigned int type, unsigned int flags, size_t stored,
			size_t raw)
{
	h[0] = (uint8_t)type;
	h[1] = (uint8_t)flags;
	put_le16(h + 2, 0);
	put_le32(h + 4, (uint32_t)stored);
	put_le32(h + 8, (uint32_t)raw);
}

static uint32_t chunk_crc(const uint8_t *h, const uint8_t *payload, size_t len)
{
	uLong crc = zlib_fn.crc32(0, h, 12);

	return (uint32_t)zlib_fn.crc32(crc, payload, (uInt)len);
}

/* Emit the chunk whose raw payload is in w->buf + REC_CHUNK_HDR; with @hold, keep it to go
 * out in the next chunk's write(), so that an item of two chunks is whole or not at all. */
static int emit_chunk(struct damonctl_rec_writer *w, unsigned int type, size_t len,
		      bool compress, bool hold)
{
	uint8_t *out = w->buf;
	size_t stored = len;
	unsigned int flags = 0;

	if (len > REC_MAX_CHUNK)
		return -EFBIG;
	if (compress && len > 64) {
		size_t bound = zlib_fn.compressBound((uLong)len);
		int zr;

		if (reserve(&w->zbuf, &w->zcap, REC_CHUNK_HDR + bound))
			return -ENOMEM;
		if (!w->zs_init) {
			if (zlib_deflate_init(&w->zs, 1) != Z_OK)
				return -ENOMEM;
			w->zs_init = true;
		} else {
			zlib_fn.deflateReset(&w->zs);
		}
		w->zs.next_in = w->buf + REC_CHUNK_HDR;
		w->zs.avail_in = (uInt)len;
		w->zs.next_out = w->zbuf + REC_CHUNK_HDR;
		w->zs.avail_out = (uInt)bound;
		zr = zlib_fn.deflate(&w->zs, Z_FINISH);
		if (zr != Z_STREAM_END)
			return -EIO;
		/* keep the raw payload when compression does not pay */
		if (w->zs.total_out < len) {
			stored = w->zs.total_out;
			flags |= REC_CHUNK_ZLIB;
			out = w->zbuf;
		}
	}
	fill_header(out, type, flags, stored, len);
	put_le32(out + 12, chunk_crc(out, out + REC_CHUNK_HDR, stored));
	if (!hold && !w->held_len)
		return write_all(w, out, REC_CHUNK_HDR + stored);
	if (reserve(&w->held, &w->held_cap, w->held_len + REC_CHUNK_HDR + stored))
		return -ENOMEM;
	memcpy(w->held + w->held_len, out, REC_CHUNK_HDR + stored);
	w->held_len += REC_CHUNK_HDR + stored;
	if (hold)
		return 0;
	len = w->held_len;
	w->held_len = 0;
	return write_all(w, w->held, len);
}

static int emit(struct damonctl_rec_writer *w, unsigned int type, size_t len, bool compress)
{
	return emit_chunk(w, type, len, compress, false);
}

/* The head of a chunk that belongs to snapshot @s (PROBE_HITS, OPS_FILTERS): its series,
 * end time and number of regions, 28 bytes at @h. */
static void put_snapshot_key(uint8_t *h, const struct damonctl_rec_snapshot *s)
{
	put_le32(h, s->kdamond);
	put_le32(h + 4, s->context);
	put_le32(h + 8, (uint32_t)s->target);
	put_le32(h + 12, (uint32_t)s->scheme);
	put_le64(h + 16, s->end_ns);
	put_le32(h + 24, s->nr_regions);
}

/* A snapshot's probe hits, the PROBE_HITS chunk held for its SNAPSHOT's write(). */
static int emit_probe_hits(struct damonctl_rec_writer *w, const struct damonctl_rec_snapshot *s)
{
	size_t n = (size_t)s->nr_regions * s->nr_probes;
	uint8_t *h;

	if (reserve(&w->buf, &w->cap, REC_CHUNK_HDR + REC_PROBES_HDR + n))
		return -ENOMEM;
	h = w->buf + REC_CHUNK_HDR;
	put_snapshot_key(h, s);
	put_le32(h + 28, s->nr_probes);
	memcpy(h + REC_PROBES_HDR, s->probe_hits, n);
	return emit_chunk(w, REC_CHUNK_PROBE_HITS, REC_PROBES_HDR + n,
			  w->flags & DAMONCTL_REC_COMPRESS, true);
}

/* The operations-layer filters a snapshot was taken through, the OPS_FILTERS chunk held
 * for its SNAPSHOT's write(). */
static int emit_ops_filters(struct damonctl_rec_writer *w, const struct damonctl_rec_snapshot *s,
			    const char *json)
{
	size_t n = strlen(json);
	uint8_t *h;

	if (reserve(&w->buf, &w->cap, REC_CHUNK_HDR + REC_FILTERS_HDR + n))
		return -ENOMEM;
	h = w->buf + REC_CHUNK_HDR;
	put_snapshot_key(h, s);
	memcpy(h + REC_FILTERS_HDR, json, n);
	return emit_chunk(w, REC_CHUNK_OPS_FILTERS, REC_FILTERS_HDR + n,
			  w->flags & DAMONCTL_REC_COMPRESS, true);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int write_text(struct damonctl_rec_writer *w, unsigned int type, uint64_t time_ns,
		      bool with_time, const char *text)
{
	size_t len = strlen(text), off = with_time ? 8 : 0;

	if (reserve(&w->buf, &w->cap, REC_CHUNK_HDR + off + len))
		return -ENOMEM;
	if (with_time)
		put_le64(w->buf + REC_CHUNK_HDR, time_ns);
	memcpy(w->buf + REC_CHUNK_HDR + off, text, len);
	return emit(w, type, off + len, false);
}

DAMONCTL_API int damonctl_rec_writer_new(int fd, unsigned int flags, const char *info_json,
					 struct damonctl_rec_writer **out)
{
	struct damonctl_rec_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[REC_FILE_HDR];
	int r;

	if (!w)
		return -ENOMEM;
	r = zlib_load(NULL, 0);
	if (r) {
		free(w);
		return r;
	}
	w->fd = fd;
	w->flags = flags;
	memcpy(hdr, REC_MAGIC, REC_MAGIC_LEN);
	put_le16(hdr + 8, DAMONCTL_RECORD_FORMAT_VERSION);
	put_le16(hdr + 10, 0);
	put_le32(hdr + 12, (uint32_t)zlib_fn.crc32(0, hdr, 12));
	r = write_all(w, hdr, sizeof(hdr));
	if (!r)
		r = write_text(w, REC_CHUNK_INFO, 0, false, info_json ? info_json : "{}");
	if (r) {
		damonctl_rec_writer_finish(w, -1);
		return r;
	}
	*out = w;
	return 0;
}

DAMONCTL_API int damonctl_rec_write_config(struct damonctl_rec_writer *w, uint64_t time_ns,
					   const char *json)
{
	return write_text(w, REC_CHUNK_CONFIG, time_ns, true, json);
}

DAMONCTL_API int damonctl_rec_write_footprint(struct damonctl_rec_writer *w, uint64_t time_ns,
					      const char *json)
{
	return write_text(w, REC_CHUNK_FOOTPRINT, time_ns, true, json);
}

DAMONCTL_API int damonctl_rec_write_snapshot_v0_4(struct damonctl_rec_writer *w,
						  const struct damonctl_rec_snapshot *snap)
{
	struct damonctl_rec_snapshot full, *s = &full;
	const char *filters;
	uint8_t *p, *h;
	uint64_t prev_end = 0;
	uint32_t i;
	size_t len;
	int r;

	r = rec_snapshot_in(snap, &full);
	if (r)
		return r;
	filters = rec_snapshot_filters(snap);
	if (filters) {
		r = dctl_ops_filters_check(filters);
		if (r < 0)
			return r;
		if (r)
			filters = NULL;	/* "[]": none */
		else if (strlen(filters) > REC_MAX_CHUNK - REC_FILTERS_HDR)
			return -E2BIG;
	}
	if (s->nr_regions && !s->regions)
		return -EINVAL;
	if (s->nr_probes && s->nr_regions && !s->probe_hits)
		return -EINVAL;
	if (s->nr_probes > REC_MAX_PROBES ||
	    (size_t)s->nr_regions * s->nr_probes > REC_MAX_CHUNK - REC_PROBES_HDR)
		return -E2BIG;
	for (i = 0; i < s->nr_regions; i++)
		if (s->regions[i].end < s->regions[i].start)
			return -EINVAL;
	/* the filters and the hits first: a reader has them when the snapshot comes; the
	 * hits right before it, where a reader that knows them but not the filters looks */
	if (filters) {
		r = emit_ops_filters(w, s, filters);
		if (r)
			return r;
	}
	if (s->nr_probes && s->nr_regions) {
		r = emit_probe_hits(w, s);
		if (r) {
			w->held_len = 0;	/* the filters go with it */
			return r;
		}
	}
	/* five varints of at most 10 bytes per region */
	if (reserve(&w->buf, &w->cap, REC_CHUNK_HDR + REC_SNAP_HDR + (size_t)s->nr_regions * 50)) {
		w->held_len = 0;	/* the hits go with it */
		return -ENOMEM;
	}
	h = w->buf + REC_CHUNK_HDR;
	put_le32(h, s->kdamond);
	put_le32(h + 4, s->context);
	put_le32(h + 8, (uint32_t)s->target);
	put_le32(h + 12, (uint32_t)s->scheme);
	put_le64(h + 16, s->start_ns);
	put_le64(h + 24, s->end_ns);
	put_le64(h + 32, s->sample_us);
	put_le64(h + 40, s->aggr_us);
	put_le64(h + 48, s->update_us);
	put_le64(h + 56, s->total_bytes);
	put_le32(h + 64, s->nr_regions);
	put_le32(h + 68, s->has_sz_filter_passed ? REC_SNAP_SZ_FILTER : 0);
	p = h + REC_SNAP_HDR;
	for (i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *rg = &s->regions[i];

		/* regions follow each other: the gap is usually 0, one byte */
		p = put_varint(p, zigzag((int64_t)(rg->start - prev_end)));
		p = put_varint(p, rg->end - rg->start);
		p = put_varint(p, rg->nr_accesses);
		p = put_varint(p, rg->age);
		if (s->has_sz_filter_passed)
			p = put_varint(p, rg->sz_filter_passed);
		prev_end = rg->end;
	}
	len = (size_t)(p - h);
	r = emit(w, REC_CHUNK_SNAPSHOT, len, w->flags & DAMONCTL_REC_COMPRESS);
	if (!r)
		w->nr_snapshots++;
	w->held_len = 0;	/* written with it, or not at all */
	return r;
}
DCTL_DEFAULT_VERSION(damonctl_rec_write_snapshot_v0_4, damonctl_rec_write_snapshot,
		     LIBDAMONCTL_0.4)

DAMONCTL_API int damonctl_rec_write_stats_v0_4(struct damonctl_rec_writer *w,
					       const struct damonctl_rec_stats *stats)
{
	struct damonctl_rec_stats full, *st = &full;
	size_t alen, len;
	uint8_t *h;
	int i;

	i = rec_stats_in(stats, &full);
	if (i)
		return i;
	alen = strnlen(st->action, sizeof(st->action) - 1);
	len = REC_STATS_FIXED + 8 * REC_STATS_NR + 1 + alen;
	if (reserve(&w->buf, &w->cap, REC_CHUNK_HDR + len))
		return -ENOMEM;
	h = w->buf + REC_CHUNK_HDR;
	put_le64(h, st->time_ns);
	put_le32(h + 8, st->kdamond);
	put_le32(h + 12, st->context);
	put_le32(h + 16, st->scheme);
	put_le32(h + 20, st->has);
	for (i = 0; i < REC_STATS_NR; i++)
		put_le64(h + REC_STATS_FIXED + 8 * i, st->v[i]);
	h[REC_STATS_FIXED + 8 * REC_STATS_NR] = (uint8_t)alen;
	memcpy(h + REC_STATS_FIXED + 8 * REC_STATS_NR + 1, st->action, alen);
	return emit(w, REC_CHUNK_STATS, len, false);
}
DCTL_DEFAULT_VERSION(damonctl_rec_write_stats_v0_4, damonctl_rec_write_stats, LIBDAMONCTL_0.4)

DAMONCTL_API uint64_t damonctl_rec_writer_bytes(const struct damonctl_rec_writer *w)
{
	return w->bytes;
}

DAMONCTL_API int damonctl_rec_writer_finish(struct damonctl_rec_writer *w, int reason)
{
	int r = 0;

	if (!w)
		return 0;
	if (reason >= 0 && !reserve(&w->buf, &w->cap, REC_CHUNK_HDR + 20)) {
		uint8_t *h = w->buf + REC_CHUNK_HDR;

		put_le64(h, now_ns());
		put_le64(h + 8, w->nr_snapshots);
		put_le32(h + 16, (uint32_t)reason);
		r = emit(w, REC_CHUNK_END, 20, false);
	} else if (reason >= 0) {
		r = -ENOMEM;
	}
	if (w->zs_init)
		zlib_fn.deflateEnd(&w->zs);
	free(w->buf);
	free(w->zbuf);
	free(w->held);
	free(w);
	return r;
}
