/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The binary record format (docs/record-format.md), shared by the writer and the reader:
 * a 16-byte file header, then chunks of a 16-byte header and a payload, all little-endian.
 */
#ifndef DAMONCTL_RECORD_INTERNAL_H
#define DAMONCTL_RECORD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define REC_MAGIC "\x89" "DAMREC\n"
#define REC_MAGIC_LEN 8
#define REC_FILE_HDR 16
#define REC_CHUNK_HDR 16
/* Nothing damonc writes comes near this: a larger length means a damaged header. */
#define REC_MAX_CHUNK (256u << 20)

enum rec_chunk_type {
	REC_CHUNK_INFO = 1,
	REC_CHUNK_CONFIG = 2,
	REC_CHUNK_SNAPSHOT = 3,
	REC_CHUNK_STATS = 4,
	REC_CHUNK_END = 5,
	REC_CHUNK_FOOTPRINT = 6,
	REC_CHUNK_PROBE_HITS = 7,
	REC_CHUNK_OPS_FILTERS = 8,
};

#define REC_CHUNK_ZLIB (1u << 0)	/* the payload is a zlib stream */

#define REC_SNAP_HDR 72			/* fixed part of a SNAPSHOT payload */
#define REC_SNAP_SZ_FILTER (1u << 0)	/* regions carry sz_filter_passed */
#define REC_PROBES_HDR 32		/* fixed part of a PROBE_HITS payload */
/* a u8 count of probes would do (the kernel allows 4): a larger one is a damaged chunk */
#define REC_MAX_PROBES 255
#define REC_FILTERS_HDR 28		/* fixed part of an OPS_FILTERS payload */
#define REC_STATS_FIXED 24		/* time, kdamond, context, scheme, has */
#define REC_STATS_NR 8			/* u64 values after the fixed part */

/* The least sz of each structure of records: as 0.4, the first release with sz, had it. */
#define REC_ITEM_MIN_SZ DCTL_SZ_TO(struct damonctl_rec_item, end)
#define REC_SNAP_MIN_SZ DCTL_SZ_TO(struct damonctl_rec_snapshot, regions)
#define REC_STATS_MIN_SZ (offsetof(struct damonctl_rec_stats, v) + 8 * REC_STATS_NR)

/* A caller's snapshot for a writer, as the library's struct: what its sz does not cover is
 * absent (0). -EINVAL for a sz too small. */
static inline int rec_snapshot_in(const struct damonctl_rec_snapshot *s,
				  struct damonctl_rec_snapshot *out)
{
	if (!s || s->sz < REC_SNAP_MIN_SZ)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, s, s->sz < sizeof(*out) ? s->sz : sizeof(*out));
	out->sz = sizeof(*out);
	return 0;
}

/* A caller's snapshot's probe hits, if its sz has them: NULL and *@np 0 without. */
static inline const uint8_t *rec_snapshot_hits(const struct damonctl_rec_snapshot *s,
					       uint32_t *np)
{
	*np = 0;
	if (s->sz < DCTL_SZ_TO(struct damonctl_rec_snapshot, probe_hits) || !s->probe_hits ||
	    !s->nr_probes)
		return NULL;
	*np = s->nr_probes;
	return s->probe_hits;
}

/* A caller's snapshot's ops filters, if its sz has them: NULL without. */
static inline const char *rec_snapshot_filters(const struct damonctl_rec_snapshot *s)
{
	if (s->sz < DCTL_SZ_TO(struct damonctl_rec_snapshot, ops_filters))
		return NULL;
	return s->ops_filters;
}

/* The same for stats: the values past the caller's sz are absent (their has bits clear). */
static inline int rec_stats_in(const struct damonctl_rec_stats *st, struct damonctl_rec_stats *out)
{
	size_t nv;

	if (!st || st->sz < REC_STATS_MIN_SZ)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out, st, st->sz < sizeof(*out) ? st->sz : sizeof(*out));
	out->sz = sizeof(*out);
	nv = (st->sz - offsetof(struct damonctl_rec_stats, v)) / sizeof(uint64_t);
	if (nv < 32)
		out->has &= (1u << nv) - 1;
	return 0;
}

/* An item into the caller's @item, as much as its sz covers (checked by the caller). */
static inline void rec_item_out(struct damonctl_rec_item *item, const struct damonctl_rec_item *it)
{
	dctl_fill_sized(item, it, sizeof(*it));
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* LEB128, at most 10 bytes. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* NULL when the varint runs past @end or is longer than 10 bytes. */
static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	unsigned int shift = 0;

	while (p < end && shift < 64) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
		shift += 7;
	}
	return NULL;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* damo's record JSON (lib/record_damo.c), streamed from @fd; @prefix holds the bytes the
 * caller already read from it to tell the format. -EBADMSG when it is not damo's shape. */
struct damo_src;
int dctl_damo_src_open(int fd, const char *prefix, size_t prefix_len, bool zlib,
		       struct damo_src **out);
/* 1 and the snapshot (@snap filled, sz too), 0 at the end, -EBADMSG for a damaged
 * document. The regions live until the next call. */
int dctl_damo_src_next(struct damo_src *s, struct damonctl_rec_snapshot *snap);
/* The damos_stats of the snapshot dctl_damo_src_next() just returned, a tried-regions
 * scheme's (damo's --tried_regions_of): true once, with them in @out; false without. */
bool dctl_damo_src_stats(struct damo_src *s, struct damonctl_rec_stats *out);
int dctl_damo_src_rewind(struct damo_src *s);
void dctl_damo_src_free(struct damo_src *s);

/* damo's side files of a record (FILE.mem_footprint, FILE.vmas) as FOOTPRINT items, in
 * time order (record_damo_side.c). */
struct damo_side_item {
	uint64_t time_ns;
	char *json;		/* FOOTPRINT's document */
};
struct damo_side {
	struct damo_side_item *v;
	size_t n, next;		/* next: the first not yet read */
};
/* @vmas_text may be NULL. 0, -EINVAL (not damo's documents), -ENOMEM. */
int dctl_damo_side_parse(const char *mem_footprint, const char *vmas_text,
			 struct damo_side **out);
void dctl_damo_side_free(struct damo_side *s);

#endif
