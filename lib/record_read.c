// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading records one item at a time: damonc's chunks are read through a buffer that holds
 * one chunk, so memory stays bounded by the largest snapshot whatever the record's length.
 * A record cut short (a crash, kill -9, a full disk) ends at its last whole chunk: the
 * status says how many bytes followed it and whether a checksum failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ops_filters.h"
#include "record_internal.h"
#include "zlib_dl.h"

struct damonctl_rec_reader {
	int fd;
	off_t start;			/* where the record begins in @fd */
	struct damonctl_rec_status st;
	bool done;
	/* damonc's format */
	uint8_t *in;
	size_t in_len, in_pos, in_cap;
	bool eof;
	uint8_t *payload;		/* inflated payload, NUL-terminated */
	size_t pcap;
	struct damonctl_rec_region *regions;
	size_t rcap;
	/* the PROBE_HITS chunk just read, for the SNAPSHOT after it */
	bool hits_pending;
	struct damonctl_rec_snapshot hits_of;	/* its series, end, regions and probes */
	uint8_t *hits;
	size_t hits_cap;
	/* the OPS_FILTERS chunk just read (maybe a PROBE_HITS chunk since), for that SNAPSHOT */
	bool filters_pending;
	struct damonctl_rec_snapshot filters_of;	/* its series, end and regions */
	char *filters;
	size_t filters_cap;
	/* what the last item points to */
	struct damonctl_rec_snapshot snap;
	struct damonctl_rec_stats stats;
	struct damonctl_rec_end end;
	z_stream zs;
	bool zs_init;
	/* damo's formats */
	struct damo_src *damo;
	bool damo_info_sent;
	bool damo_held;			/* held: snap, read but not returned yet */
	bool damo_stats_sent;		/* its damos_stats came before it */
	struct damo_side *side;		/* footprints from damo's side files */
};

static int reserve(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/* Make @n bytes available from in_pos (fewer at EOF). Returns the bytes available. */
static ssize_t fill(struct damonctl_rec_reader *r, size_t n)
{
	if (r->in_len - r->in_pos >= n || r->eof)
		return (ssize_t)(r->in_len - r->in_pos);
	if (r->in_pos) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	if (reserve((void **)&r->in, &r->in_cap, n < 65536 ? 65536 : n, 1))
		return -ENOMEM;
	while (r->in_len < n) {
		ssize_t got = read(r->fd, r->in + r->in_len, r->in_cap - r->in_len);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!got) {
			r->eof = true;
			break;
		}
		r->in_len += (size_t)got;
	}
	return (ssize_t)(r->in_len - r->in_pos);
}

/* The rest of the input is lost: count it. */
static int give_up(struct damonctl_rec_reader *r, bool corrupt)
{
	uint64_t lost = r->in_len - r->in_pos;
	char buf[65536];
	ssize_t n;

	while (!r->eof && (n = read(r->fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		lost += (uint64_t)n;
	}
	r->in_pos = r->in_len;
	r->st.bytes_lost = lost;
	r->st.corrupt = corrupt;
	r->done = true;
	return 0;
}

static int check_file_header(const uint8_t *h, char *why, size_t size)
{
	uint16_t version = get_le16(h + 8);

	if (get_le32(h + 12) != (uint32_t)zlib_fn.crc32(0, h, 12)) {
		snprintf(why, size, "the record's file header is damaged (checksum mismatch)");
		return -EBADMSG;
	}
	if (version > DAMONCTL_RECORD_FORMAT_VERSION) {
		snprintf(why, size, "record format version %u is newer than this damonc reads (%u)",
			 version, DAMONCTL_RECORD_FORMAT_VERSION);
		return -EBADMSG;
	}
	return 0;
}

static int open_damo(struct damonctl_rec_reader *r, bool zlib, char *why, size_t size)
{
	int ret = dctl_damo_src_open(r->fd, (const char *)r->in + r->in_pos,
				     r->in_len - r->in_pos, zlib, &r->damo);

	if (ret) {
		snprintf(why, size, "not a record damonc or damo can read: %s",
			 zlib ? "zlib data that is not damo's compressed JSON record" :
			 "JSON that is not damo's record (a list of records with snapshots)");
		return ret;
	}
	r->st.format = zlib ? DAMONCTL_REC_FMT_DAMO_ZLIB : DAMONCTL_REC_FMT_DAMO_JSON;
	free(r->in);
	r->in = NULL;
	r->in_len = r->in_cap = r->in_pos = 0;
	return 0;
}

DAMONCTL_API int damonctl_rec_reader_new(int fd, struct damonctl_rec_reader **out, char *why,
					 size_t size)
{
	struct damonctl_rec_reader *r = calloc(1, sizeof(*r));
	ssize_t n;
	size_t i;
	int ret;

	if (!r)
		return -ENOMEM;
	ret = zlib_load(why, size);
	if (ret) {
		free(r);
		return ret;
	}
	r->fd = fd;
	r->start = lseek(fd, 0, SEEK_CUR);
	n = fill(r, REC_FILE_HDR);
	if (n < 0) {
		ret = (int)n;
		snprintf(why, size, "%s", strerror(-ret));
		goto fail;
	}
	if (n >= REC_MAGIC_LEN && !memcmp(r->in, REC_MAGIC, REC_MAGIC_LEN)) {
		if (n < REC_FILE_HDR) {
			snprintf(why, size, "the record ends inside its file header");
			ret = -EBADMSG;
			goto fail;
		}
		ret = check_file_header(r->in, why, size);
		if (ret)
			goto fail;
		r->in_pos = REC_FILE_HDR;
		r->st.bytes_ok = REC_FILE_HDR;
		r->st.format = DAMONCTL_REC_FMT_DAMONC;
		*out = r;
		return 0;
	}
	if (n >= 2 && r->in[0] == 0x78 && ((r->in[0] << 8) | r->in[1]) % 31 == 0) {
		ret = open_damo(r, true, why, size);
		if (ret)
			goto fail;
		*out = r;
		return 0;
	}
	for (i = 0; i < (size_t)n && strchr(" \t\r\n", r->in[i]); i++)
		;
	if (i < (size_t)n && r->in[i] == '[') {
		ret = open_damo(r, false, why, size);
		if (ret)
			goto fail;
		*out = r;
		return 0;
	}
	snprintf(why, size, n ? "not a record: neither damonc's record format nor damo's record "
				"JSON (plain or zlib-compressed)" : "empty input: not a record");
	ret = -EBADMSG;
fail:
	damonctl_rec_reader_free(r);
	return ret;
}

static int inflate_payload(struct damonctl_rec_reader *r, const uint8_t *src, size_t stored,
			   size_t raw)
{
	int zr;

	if (!r->zs_init) {
		if (zlib_inflate_init(&r->zs) != Z_OK)
			return -ENOMEM;
		r->zs_init = true;
	} else {
		zlib_fn.inflateReset(&r->zs);
	}
	r->zs.next_in = (Bytef *)src;
	r->zs.avail_in = (uInt)stored;
	r->zs.next_out = r->payload;
	r->zs.avail_out = (uInt)raw;
	zr = zlib_fn.inflate(&r->zs, Z_FINISH);
	if (zr != Z_STREAM_END || r->zs.total_out != raw)
		return -EBADMSG;
	return 0;
}

static int parse_snapshot(struct damonctl_rec_reader *r, const uint8_t *p, size_t len,
			  struct damonctl_rec_snapshot *s)
{
	const uint8_t *end = p + len, *q;
	uint64_t prev_end = 0, v;
	uint32_t i, flags;

	if (len < REC_SNAP_HDR)
		return -EBADMSG;
	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	s->kdamond = get_le32(p);
	s->context = get_le32(p + 4);
	s->target = (int32_t)get_le32(p + 8);
	s->scheme = (int32_t)get_le32(p + 12);
	s->start_ns = get_le64(p + 16);
	s->end_ns = get_le64(p + 24);
	s->sample_us = get_le64(p + 32);
	s->aggr_us = get_le64(p + 40);
	s->update_us = get_le64(p + 48);
	s->total_bytes = get_le64(p + 56);
	s->nr_regions = get_le32(p + 64);
	flags = get_le32(p + 68);
	s->has_sz_filter_passed = flags & REC_SNAP_SZ_FILTER;
	/* every region takes at least four bytes: a bogus count cannot make us allocate */
	if ((uint64_t)s->nr_regions * 4 > len - REC_SNAP_HDR)
		return -EBADMSG;
	if (reserve((void **)&r->regions, &r->rcap, s->nr_regions ? s->nr_regions : 1,
		    sizeof(*r->regions)))
		return -ENOMEM;
	q = p + REC_SNAP_HDR;
	for (i = 0; i < s->nr_regions; i++) {
		struct damonctl_rec_region *rg = &r->regions[i];

		if (!(q = get_varint(q, end, &v)))
			return -EBADMSG;
		rg->start = prev_end + (uint64_t)unzigzag(v);
		if (!(q = get_varint(q, end, &v)))
			return -EBADMSG;
		rg->end = rg->start + v;
		if (!(q = get_varint(q, end, &v)))
			return -EBADMSG;
		rg->nr_accesses = (uint32_t)v;
		if (!(q = get_varint(q, end, &v)))
			return -EBADMSG;
		rg->age = (uint32_t)v;
		rg->sz_filter_passed = 0;
		if (s->has_sz_filter_passed) {
			if (!(q = get_varint(q, end, &v)))
				return -EBADMSG;
			rg->sz_filter_passed = v;
		}
		prev_end = rg->end;
	}
	s->regions = r->regions;
	return 0;
}

/* The head of a chunk that belongs to a snapshot (PROBE_HITS, OPS_FILTERS) into @k, zeroed
 * but for its series, end time and number of regions (28 bytes at @p). */
static void get_snapshot_key(struct damonctl_rec_snapshot *k, const uint8_t *p)
{
	memset(k, 0, sizeof(*k));
	k->kdamond = get_le32(p);
	k->context = get_le32(p + 4);
	k->target = (int32_t)get_le32(p + 8);
	k->scheme = (int32_t)get_le32(p + 12);
	k->end_ns = get_le64(p + 16);
	k->nr_regions = get_le32(p + 24);
}

/* A PROBE_HITS payload into r->hits and r->hits_of. */
static int parse_probe_hits(struct damonctl_rec_reader *r, const uint8_t *p, size_t len)
{
	struct damonctl_rec_snapshot *k = &r->hits_of;
	size_t n;

	if (len < REC_PROBES_HDR)
		return -EBADMSG;
	get_snapshot_key(k, p);
	k->nr_probes = get_le32(p + 28);
	n = (size_t)k->nr_regions * k->nr_probes;
	if (k->nr_probes > REC_MAX_PROBES || n != len - REC_PROBES_HDR)
		return -EBADMSG;
	if (reserve((void **)&r->hits, &r->hits_cap, n ? n : 1, 1))
		return -ENOMEM;
	memcpy(r->hits, p + REC_PROBES_HDR, n);
	return 0;
}

/* The hits read just before @s are its own: the same series, time and regions. */
static void attach_probe_hits(struct damonctl_rec_reader *r, struct damonctl_rec_snapshot *s)
{
	const struct damonctl_rec_snapshot *k = &r->hits_of;

	if (k->kdamond != s->kdamond || k->context != s->context || k->target != s->target ||
	    k->scheme != s->scheme || k->end_ns != s->end_ns || k->nr_regions != s->nr_regions ||
	    !k->nr_probes)
		return;
	s->nr_probes = k->nr_probes;
	s->probe_hits = r->hits;
}

/* An OPS_FILTERS payload into r->filters and r->filters_of: 1, 0 for filters that are no
 * array of filters (dropped), -EBADMSG. */
static int parse_ops_filters(struct damonctl_rec_reader *r, const uint8_t *p, size_t len)
{
	struct damonctl_rec_snapshot *k = &r->filters_of;
	size_t n;

	if (len < REC_FILTERS_HDR)
		return -EBADMSG;
	get_snapshot_key(k, p);
	n = len - REC_FILTERS_HDR;
	if (reserve((void **)&r->filters, &r->filters_cap, n + 1, 1))
		return -ENOMEM;
	memcpy(r->filters, p + REC_FILTERS_HDR, n);
	r->filters[n] = '\0';
	return dctl_ops_filters_check(r->filters) == 0;
}

/* The filters read just before @s (a PROBE_HITS chunk between) are its own: the same
 * series, time and regions. */
static void attach_ops_filters(struct damonctl_rec_reader *r, struct damonctl_rec_snapshot *s)
{
	const struct damonctl_rec_snapshot *k = &r->filters_of;

	if (k->kdamond != s->kdamond || k->context != s->context || k->target != s->target ||
	    k->scheme != s->scheme || k->end_ns != s->end_ns || k->nr_regions != s->nr_regions)
		return;
	s->ops_filters = r->filters;
}

static int parse_stats(const uint8_t *p, size_t len, struct damonctl_rec_stats *st)
{
	size_t alen;
	int i;

	if (len < REC_STATS_FIXED + 8 * REC_STATS_NR + 1)
		return -EBADMSG;
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	st->time_ns = get_le64(p);
	st->kdamond = get_le32(p + 8);
	st->context = get_le32(p + 12);
	st->scheme = get_le32(p + 16);
	st->has = get_le32(p + 20);
	for (i = 0; i < REC_STATS_NR; i++)
		st->v[i] = get_le64(p + REC_STATS_FIXED + 8 * i);
	alen = p[REC_STATS_FIXED + 8 * REC_STATS_NR];
	if (alen >= sizeof(st->action) || REC_STATS_FIXED + 8 * REC_STATS_NR + 1 + alen > len)
		return -EBADMSG;
	memcpy(st->action, p + REC_STATS_FIXED + 8 * REC_STATS_NR + 1, alen);
	return 0;
}

/* The next whole chunk, checked, at r->in + r->in_pos: 1 with its header's fields, 0 at the
 * end of the input at a chunk boundary, or what give_up() returns (or -errno). */
static int read_chunk(struct damonctl_rec_reader *r, unsigned int *type, unsigned int *flags,
		      size_t *stored, size_t *raw)
{
	uint8_t *h;
	ssize_t n;

	n = fill(r, REC_CHUNK_HDR);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		r->done = true;	/* ends at a chunk boundary */
		return 0;
	}
	if (n < REC_CHUNK_HDR)
		return give_up(r, false);
	h = r->in + r->in_pos;
	*type = h[0];
	*flags = h[1];
	*stored = get_le32(h + 4);
	*raw = get_le32(h + 8);
	if (*stored > REC_MAX_CHUNK || *raw > REC_MAX_CHUNK ||
	    (!(*flags & REC_CHUNK_ZLIB) && *stored != *raw))
		return give_up(r, true);
	n = fill(r, REC_CHUNK_HDR + *stored);
	if (n < 0)
		return (int)n;
	if ((size_t)n < REC_CHUNK_HDR + *stored)
		return give_up(r, false);
	h = r->in + r->in_pos;
	if (get_le32(h + 12) != (uint32_t)zlib_fn.crc32(zlib_fn.crc32(0, h, 12), h + REC_CHUNK_HDR,
						  (uInt)*stored))
		return give_up(r, true);
	return 1;
}

/* The item of a chunk of @type whose payload (@raw bytes) is in r->payload: 1, 0 for a type
 * of a later version (to skip) or one that is not an item, or -EBADMSG. */
static int decode_item(struct damonctl_rec_reader *r, unsigned int type, size_t raw,
		       struct damonctl_rec_item *item)
{
	/* probe hits belong to the SNAPSHOT right after them, or to none; ops filters to the
	 * SNAPSHOT after them and the hits (if any) */
	bool hits = r->hits_pending, filters = r->filters_pending;
	int ret;

	r->hits_pending = false;
	if (type != REC_CHUNK_PROBE_HITS)
		r->filters_pending = false;
	memset(item, 0, sizeof(*item));
	item->sz = sizeof(*item);
	switch (type) {
	case REC_CHUNK_INFO:
		item->type = DAMONCTL_REC_INFO;
		item->json = (const char *)r->payload;
		return 1;
	case REC_CHUNK_CONFIG:
	case REC_CHUNK_FOOTPRINT:
		if (raw < 8)
			return -EBADMSG;
		item->type = type == REC_CHUNK_CONFIG ? DAMONCTL_REC_CONFIG :
			     DAMONCTL_REC_FOOTPRINT;
		item->time_ns = get_le64(r->payload);
		item->json = (const char *)r->payload + 8;
		return 1;
	case REC_CHUNK_SNAPSHOT:
		item->type = DAMONCTL_REC_SNAPSHOT;
		ret = parse_snapshot(r, r->payload, raw, &r->snap);
		if (!ret && hits)
			attach_probe_hits(r, &r->snap);
		if (!ret && filters)
			attach_ops_filters(r, &r->snap);
		item->snapshot = &r->snap;
		return ret ? ret : 1;
	case REC_CHUNK_PROBE_HITS:
		ret = parse_probe_hits(r, r->payload, raw);
		r->hits_pending = !ret;
		return ret;
	case REC_CHUNK_OPS_FILTERS:
		ret = parse_ops_filters(r, r->payload, raw);
		r->filters_pending = ret == 1;
		return ret < 0 ? ret : 0;
	case REC_CHUNK_STATS:
		item->type = DAMONCTL_REC_STATS;
		ret = parse_stats(r->payload, raw, &r->stats);
		item->stats = &r->stats;
		return ret ? ret : 1;
	case REC_CHUNK_END:
		if (raw < 20)
			return -EBADMSG;
		item->type = DAMONCTL_REC_END;
		r->end = (struct damonctl_rec_end){
			.sz = sizeof(r->end), .time_ns = get_le64(r->payload),
			.nr_snapshots = get_le64(r->payload + 8),
			.reason = (enum damonctl_rec_end_reason)get_le32(r->payload + 16) };
		item->end = &r->end;
		return 1;
	}
	return 0;
}

static int next_damonc(struct damonctl_rec_reader *r, struct damonctl_rec_item *item)
{
	for (;;) {
		unsigned int type = 0, flags = 0;
		size_t stored = 0, raw = 0;
		uint8_t *h;
		int ret;

		if (r->done)
			return 0;
		ret = read_chunk(r, &type, &flags, &stored, &raw);
		if (ret <= 0)
			return ret;
		h = r->in + r->in_pos;
		/* a reserved flag set: a later version's encoding, skipped like an unknown type */
		if (flags & ~REC_CHUNK_ZLIB) {
			r->in_pos += REC_CHUNK_HDR + stored;
			r->st.bytes_ok += REC_CHUNK_HDR + stored;
			continue;
		}
		if (reserve((void **)&r->payload, &r->pcap, raw + 1, 1))
			return -ENOMEM;
		if (flags & REC_CHUNK_ZLIB) {
			if (inflate_payload(r, h + REC_CHUNK_HDR, stored, raw))
				return give_up(r, true);
		} else {
			memcpy(r->payload, h + REC_CHUNK_HDR, raw);
		}
		r->payload[raw] = '\0';
		r->in_pos += REC_CHUNK_HDR + stored;
		ret = decode_item(r, type, raw, item);
		if (ret < 0) {
			/* a checksummed chunk that does not parse: written by a broken writer */
			r->in_pos -= REC_CHUNK_HDR + stored;
			return give_up(r, true);
		}
		r->st.bytes_ok += REC_CHUNK_HDR + stored;
		if (!ret)	/* a chunk type from a later version: skip it */
			continue;
		if (type == REC_CHUNK_SNAPSHOT)
			r->st.nr_snapshots++;
		if (type == REC_CHUNK_END) {
			r->st.complete = true;
			r->done = true;
		}
		return 1;
	}
}

/* The side files' next footprint when it was taken before @before_ns (UINT64_MAX: any). */
static bool side_next(struct damonctl_rec_reader *r, uint64_t before_ns,
		      struct damonctl_rec_item *item)
{
	const struct damo_side_item *f;

	if (!r->side || r->side->next >= r->side->n)
		return false;
	f = &r->side->v[r->side->next];
	if (f->time_ns >= before_ns)
		return false;
	r->side->next++;
	item->type = DAMONCTL_REC_FOOTPRINT;
	item->time_ns = f->time_ns;
	item->json = f->json;
	return true;
}

/* A damo record's items: INFO, then for each snapshot the side files' footprints taken
 * before it ended, its damos_stats (a report knows them when the snapshot comes) and the
 * snapshot; the footprints after the last at the end. */
static int next_damo(struct damonctl_rec_reader *r, struct damonctl_rec_item *item)
{
	int ret;

	memset(item, 0, sizeof(*item));
	item->sz = sizeof(*item);
	if (!r->damo_info_sent) {
		r->damo_info_sent = true;
		item->type = DAMONCTL_REC_INFO;
		item->json = r->st.format == DAMONCTL_REC_FMT_DAMO_ZLIB ?
			"{\"source\":\"damo\",\"format\":\"json_compressed\"}" :
			"{\"source\":\"damo\",\"format\":\"json\"}";
		return 1;
	}
	if (!r->damo_held) {
		if (r->done)
			return side_next(r, UINT64_MAX, item);
		ret = dctl_damo_src_next(r->damo, &r->snap);
		if (ret == -EBADMSG) {
			/* a cut or damaged document: what came before it stands */
			r->st.corrupt = true;
			ret = 0;
		}
		if (ret == 0) {
			r->st.complete = !r->st.corrupt;
			r->done = true;
			return side_next(r, UINT64_MAX, item);
		}
		if (ret < 0)
			return ret;
		r->damo_held = true;
		r->damo_stats_sent = false;
	}
	/* the snapshot's regions live until the next src call: none is made while held */
	if (side_next(r, r->snap.end_ns, item))
		return 1;
	if (!r->damo_stats_sent) {
		r->damo_stats_sent = true;
		if (dctl_damo_src_stats(r->damo, &r->stats)) {
			item->type = DAMONCTL_REC_STATS;
			item->stats = &r->stats;
			return 1;
		}
	}
	r->damo_held = false;
	item->type = DAMONCTL_REC_SNAPSHOT;
	item->snapshot = &r->snap;
	r->st.nr_snapshots++;
	return 1;
}

DAMONCTL_API int damonctl_rec_reader_damo_footprints(struct damonctl_rec_reader *r,
						      const char *mem_footprint,
						      const char *vmas)
{
	struct damo_side *s;
	int ret;

	if (!r || !mem_footprint || !r->damo)
		return -EINVAL;
	ret = dctl_damo_side_parse(mem_footprint, vmas, &s);
	if (ret)
		return ret;
	dctl_damo_side_free(r->side);
	r->side = s;
	return 0;
}

DAMONCTL_API int damonctl_rec_next_v0_4(struct damonctl_rec_reader *r,
					struct damonctl_rec_item *item)
{
	struct damonctl_rec_item it;
	int ret;

	if (!r || !item || item->sz < REC_ITEM_MIN_SZ)
		return -EINVAL;
	ret = r->st.format == DAMONCTL_REC_FMT_DAMONC ? next_damonc(r, &it) : next_damo(r, &it);
	if (ret == 1)
		rec_item_out(item, &it);
	return ret;
}
DCTL_DEFAULT_VERSION(damonctl_rec_next_v0_4, damonctl_rec_next, LIBDAMONCTL_0.4)

DAMONCTL_API int damonctl_rec_rewind(struct damonctl_rec_reader *r)
{
	if (r->damo) {
		int ret = dctl_damo_src_rewind(r->damo);

		if (ret)
			return ret;
		r->damo_info_sent = false;
		r->damo_held = false;
		r->done = false;
		if (r->side)
			r->side->next = 0;
		r->st.nr_snapshots = 0;
		r->st.complete = r->st.corrupt = false;
		return 0;
	}
	if (r->start < 0 || lseek(r->fd, r->start + REC_FILE_HDR, SEEK_SET) < 0)
		return -ESPIPE;
	r->in_len = r->in_pos = 0;
	r->eof = false;
	r->done = false;
	r->hits_pending = false;
	r->filters_pending = false;
	r->st.bytes_ok = REC_FILE_HDR;
	r->st.bytes_lost = 0;
	r->st.complete = false;
	r->st.corrupt = false;
	r->st.nr_snapshots = 0;
	return 0;
}

DAMONCTL_API void damonctl_rec_status(const struct damonctl_rec_reader *r,
				      struct damonctl_rec_status *st)
{
	*st = r->st;
}

DAMONCTL_API void damonctl_rec_reader_free(struct damonctl_rec_reader *r)
{
	if (!r)
		return;
	if (r->zs_init)
		zlib_fn.inflateEnd(&r->zs);
	if (r->damo)
		dctl_damo_src_free(r->damo);
	dctl_damo_side_free(r->side);
	free(r->in);
	free(r->payload);
	free(r->regions);
	free(r->hits);
	free(r->filters);
	free(r);
}
