// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record format through the public API: round trips (compressed or not), records cut at
 * every length and damaged at every byte (whole chunks before the damage are read, nothing
 * after it), damo's JSON in its variants, and tried_regions read from a fake sysfs tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "damonctl/damonctl.h"

#define NSNAP 6

static struct damonctl_rec_region regs[NSNAP][40];
static uint8_t hits[NSNAP][40 * 2];

/* The ops filters snapshots were taken through, as a capture (and damo's scheme_filters
 * read back) write them */
#define F_ANON "[{\"type\":\"anon\",\"matching\":true,\"allow\":true}]"
#define F_TWO "[{\"type\":\"memcg\",\"matching\":false,\"allow\":false,\"memcg_path\":\"/a/b\"}," \
	"{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true,\"min\":2097152,\"max\":2097152}]"
static const char *const filters_of[NSNAP] = { NULL, F_ANON, F_TWO, F_ANON, F_ANON, NULL };

static void make_snapshot(unsigned int i, struct damonctl_rec_snapshot *s)
{
	unsigned int j, n = 5 + i * 7;
	uint64_t a = 0x7f0000000000ull;

	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	for (j = 0; j < n; j++) {
		/* gaps, a jump back (a second target's regions), huge values */
		if (j == n / 2)
			a = 0x1000;
		else if (j % 3 == 0)
			a += 4096 * j;
		regs[i][j].start = a;
		regs[i][j].end = a + 4096 * (j + 1);
		regs[i][j].nr_accesses = j * 3 + i;
		regs[i][j].age = j == 1 ? UINT32_MAX : j * 11;
		regs[i][j].sz_filter_passed = i % 2 ? 512 * j : 0;
		a = regs[i][j].end;
	}
	if (i == NSNAP - 1) {
		n = 1;
		regs[i][0].start = UINT64_MAX - 8192;
		regs[i][0].end = UINT64_MAX;
	}
	s->kdamond = i % 2;
	s->context = 0;
	s->target = i == 3 ? -1 : (int32_t)i;
	s->scheme = i == 2 ? 5 : -1;
	s->start_ns = 1000000000ull * i;
	s->end_ns = s->start_ns + 100000000ull;
	s->sample_us = 5000;
	s->aggr_us = 100000;
	s->update_us = 1000000;
	s->total_bytes = 12345 + i;
	s->has_sz_filter_passed = i % 2;
	s->nr_regions = i == 4 ? 0 : n;
	s->regions = regs[i];
	/* 7.2's probes: none, one or two (snapshot 4 has no regions, so no hits) */
	s->nr_probes = i % 3;
	for (j = 0; j < n * s->nr_probes; j++)
		hits[i][j] = j == 1 ? 255 : (uint8_t)(j * 7 + i);
	s->probe_hits = s->nr_probes ? hits[i] : NULL;
	/* the ops filters: none, one, two (snapshot 4 has them without regions) */
	s->ops_filters = filters_of[i];
}

/* A record in a memory file: returns its fd, rewound. */
static int make_record(bool compress, bool end, size_t *len)
{
	struct damonctl_rec_writer *w;
	struct damonctl_rec_snapshot s;
	struct damonctl_rec_stats st = { .sz = sizeof(st), .time_ns = 42, .kdamond = 1, .scheme = 3,
					  .has = 0x5, .v = { 7, 0, 9 }, .action = "pageout" };
	int fd = memfd_create("rec", 0);
	unsigned int i;

	assert_true(fd >= 0);
	assert_int_equal(damonctl_rec_writer_new(fd, compress ? DAMONCTL_REC_COMPRESS : 0,
						 "{\"t\":1}", &w), 0);
	assert_int_equal(damonctl_rec_write_config(w, 77, "{\"kdamonds\":[]}"), 0);
	for (i = 0; i < NSNAP; i++) {
		make_snapshot(i, &s);
		assert_int_equal(damonctl_rec_write_snapshot(w, &s), 0);
		if (i == 1)
			assert_int_equal(damonctl_rec_write_stats(w, &st), 0);
		if (i == 2)
			assert_int_equal(damonctl_rec_write_footprint(w, 99, "{\"system\":{}}"), 0);
	}
	*len = (size_t)damonctl_rec_writer_bytes(w);
	assert_int_equal(damonctl_rec_writer_finish(w, end ? DAMONCTL_REC_END_SIGNAL : -1), 0);
	if (end)
		*len = (size_t)lseek(fd, 0, SEEK_CUR);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* @got is snapshot @i, its probe hits too unless @probes is false, its ops filters unless
 * @filters is (a reader that knew nothing of them) */
static void check_snapshot_as(unsigned int i, const struct damonctl_rec_snapshot *got,
			      bool probes, bool filters)
{
	struct damonctl_rec_snapshot want;
	unsigned int j;

	make_snapshot(i, &want);
	assert_int_equal(got->kdamond, want.kdamond);
	assert_int_equal(got->target, want.target);
	assert_int_equal(got->scheme, want.scheme);
	assert_true(got->start_ns == want.start_ns && got->end_ns == want.end_ns);
	assert_true(got->sample_us == want.sample_us && got->aggr_us == want.aggr_us &&
		    got->update_us == want.update_us && got->total_bytes == want.total_bytes);
	assert_int_equal(got->has_sz_filter_passed, want.has_sz_filter_passed);
	assert_int_equal(got->nr_regions, want.nr_regions);
	if (!probes || !want.nr_regions) {
		assert_int_equal(got->nr_probes, 0);
		assert_null(got->probe_hits);
	} else {
		assert_int_equal(got->nr_probes, want.nr_probes);
		if (want.nr_probes)
			assert_memory_equal(got->probe_hits, want.probe_hits,
					    (size_t)want.nr_regions * want.nr_probes);
	}
	if (filters && want.ops_filters)
		assert_string_equal(got->ops_filters, want.ops_filters);
	else
		assert_null(got->ops_filters);
	for (j = 0; j < want.nr_regions; j++) {
		assert_true(got->regions[j].start == want.regions[j].start);
		assert_true(got->regions[j].end == want.regions[j].end);
		assert_int_equal(got->regions[j].nr_accesses, want.regions[j].nr_accesses);
		assert_int_equal(got->regions[j].age, want.regions[j].age);
		assert_true(got->regions[j].sz_filter_passed ==
			    (want.has_sz_filter_passed ? want.regions[j].sz_filter_passed : 0));
	}
}

static void check_snapshot_probes(unsigned int i, const struct damonctl_rec_snapshot *got,
				  bool probes)
{
	check_snapshot_as(i, got, probes, true);
}

static void check_snapshot(unsigned int i, const struct damonctl_rec_snapshot *got)
{
	check_snapshot_as(i, got, true, true);
}

/* Read everything; returns the number of snapshots, checking each against make_snapshot. */
static unsigned int read_all(int fd, struct damonctl_rec_status *st, int *end_reason)
{
	struct damonctl_rec_reader *r;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	unsigned int n = 0;
	char why[256];
	int ret;

	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	*end_reason = -1;
	while ((ret = damonctl_rec_next(r, &it)) == 1) {
		switch (it.type) {
		case DAMONCTL_REC_INFO:
			assert_string_equal(it.json, "{\"t\":1}");
			break;
		case DAMONCTL_REC_CONFIG:
			assert_true(it.time_ns == 77);
			assert_string_equal(it.json, "{\"kdamonds\":[]}");
			break;
		case DAMONCTL_REC_SNAPSHOT:
			check_snapshot(n++, it.snapshot);
			break;
		case DAMONCTL_REC_STATS:
			assert_int_equal(n, 2);
			assert_int_equal(it.stats->scheme, 3);
			assert_int_equal(it.stats->has, 0x5);
			assert_true(it.stats->v[0] == 7 && it.stats->v[2] == 9);
			assert_string_equal(it.stats->action, "pageout");
			break;
		case DAMONCTL_REC_FOOTPRINT:
			assert_int_equal(n, 3);
			assert_true(it.time_ns == 99);
			assert_string_equal(it.json, "{\"system\":{}}");
			break;
		case DAMONCTL_REC_END:
			*end_reason = (int)it.end->reason;
			assert_true(it.end->nr_snapshots == NSNAP);
			break;
		}
	}
	assert_int_equal(ret, 0);
	damonctl_rec_status(r, st);
	damonctl_rec_reader_free(r);
	return n;
}

static void test_roundtrip(void **state)
{
	struct damonctl_rec_status st;
	int c, reason;
	size_t len;

	(void)state;
	for (c = 0; c < 2; c++) {
		int fd = make_record(c, true, &len);

		assert_int_equal(read_all(fd, &st, &reason), NSNAP);
		assert_true(st.complete && !st.corrupt && st.bytes_lost == 0);
		assert_true(st.bytes_ok == len);
		assert_int_equal(reason, DAMONCTL_REC_END_SIGNAL);
		close(fd);
	}
}

static void test_compression_pays(void **state)
{
	size_t plain, packed;
	int a = make_record(false, true, &plain), b = make_record(true, true, &packed);

	(void)state;
	assert_true(packed < plain);
	close(a);
	close(b);
}

/* Cut at every length: never an error, whole chunks read, the rest counted as lost. */
static void test_truncated(void **state)
{
	struct damonctl_rec_status st;
	unsigned int prev = 0, n;
	size_t len, cut;
	char *buf;
	int fd = make_record(true, true, &len), reason;

	(void)state;
	buf = malloc(len);
	assert_true(pread(fd, buf, len, 0) == (ssize_t)len);
	close(fd);
	for (cut = 16; cut < len; cut++) {
		fd = memfd_create("cut", 0);
		assert_true(write(fd, buf, cut) == (ssize_t)cut);
		lseek(fd, 0, SEEK_SET);
		n = read_all(fd, &st, &reason);
		assert_false(st.complete);
		assert_false(st.corrupt);
		assert_true(st.bytes_ok + st.bytes_lost == cut);
		assert_true(n >= prev);
		prev = n;
		close(fd);
	}
	assert_int_equal(prev, NSNAP);
	free(buf);
}

/* A changed byte anywhere after the file header stops the reading at that chunk. */
static void test_damaged(void **state)
{
	struct damonctl_rec_status st, clean;
	size_t len, pos;
	char *buf;
	int fd = make_record(false, true, &len), reason;

	(void)state;
	buf = malloc(len);
	assert_true(pread(fd, buf, len, 0) == (ssize_t)len);
	close(fd);
	for (pos = 16; pos < len; pos++) {
		fd = memfd_create("bad", 0);
		buf[pos] ^= 0x21;
		assert_true(write(fd, buf, len) == (ssize_t)len);
		buf[pos] ^= 0x21;
		lseek(fd, 0, SEEK_SET);
		read_all(fd, &st, &reason);	/* checks every snapshot it returns */
		assert_true(st.corrupt);
		assert_false(st.complete);
		assert_true(st.bytes_ok <= pos);
		assert_true(st.bytes_ok + st.bytes_lost == len);
		close(fd);
	}
	fd = memfd_create("ok", 0);
	assert_true(write(fd, buf, len) == (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	read_all(fd, &clean, &reason);
	assert_true(clean.complete);
	close(fd);
	free(buf);
}

static int reader_on(const char *data, size_t len, struct damonctl_rec_reader **r, char *why)
{
	int fd = memfd_create("in", 0), ret;

	assert_true(write(fd, data, len) == (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	ret = damonctl_rec_reader_new(fd, r, why, 256);
	return ret ? ret : fd;
}

static void test_not_records(void **state)
{
	struct damonctl_rec_reader *r;
	char why[256], hdr[16];
	uLong crc;

	(void)state;
	assert_int_equal(reader_on("", 0, &r, why), -EBADMSG);
	assert_int_equal(reader_on("hello world", 11, &r, why), -EBADMSG);
	assert_non_null(strstr(why, "not a record"));
	assert_int_equal(reader_on("{\"a\": 1}", 8, &r, why), -EBADMSG);
	/* a version from the future */
	memcpy(hdr, "\x89" "DAMREC\n", 8);
	hdr[8] = 9;
	hdr[9] = hdr[10] = hdr[11] = 0;
	crc = crc32(0, (const Bytef *)hdr, 12);
	memcpy(hdr + 12, &crc, 4);	/* little-endian hosts only, as the tests run */
	assert_int_equal(reader_on(hdr, 16, &r, why), -EBADMSG);
	assert_non_null(strstr(why, "version 9"));
}

static const char damo_doc[] =
	"[{\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \"5000\","
	" \"aggr_us\": 100000, \"ops_update_us\": \"1,000,000\"}, \"scheme_idx\": null,"
	" \"target_id\": 0, \"scheme_filters\": [], \"snapshots\": ["
	"  {\"start_time\": \"1000\", \"end_time\": \"2000\", \"regions\": ["
	"    {\"start\": \"4096\", \"end\": \"8192\", \"nr_accesses\": {\"samples\": 4,"
	"     \"percent\": null}, \"age\": {\"usec\": null, \"aggr_intervals\": \"3\"},"
	"     \"sz_filter_passed\": \"0\"},"
	"    {\"start\": 8192, \"end\": 16384, \"nr_accesses\": {\"samples\": null,"
	"     \"percent\": 50}, \"age\": {\"usec\": 500000, \"aggr_intervals\": null}}],"
	"   \"total_bytes\": null},"
	"  {\"start_time\": \"5000\", \"end_time\": \"6000\", \"regions\": [{\"start\": 0,"
	"   \"end\": 0, \"nr_accesses\": {\"samples\": -1, \"percent\": null}, \"age\":"
	"   {\"usec\": null, \"aggr_intervals\": -1}}], \"total_bytes\": null}]},"
	" {\"kdamond_idx\": 1, \"context_idx\": 0, \"intervals\": null, \"scheme_idx\": 2,"
	"  \"target_id\": null, \"snapshots\": [{\"end_time\": 1500, \"regions\": []}]}]";

static void test_damo_import(void **state)
{
	struct damonctl_rec_reader *r;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_status st;
	char why[256];
	int fd = reader_on(damo_doc, sizeof(damo_doc) - 1, &r, why);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.type, DAMONCTL_REC_INFO);
	/* the document's order: damo's records one after another */
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->kdamond, 0);
	assert_true(it.snapshot->start_ns == 1000 && it.snapshot->end_ns == 2000);
	assert_true(it.snapshot->update_us == 1000000);
	assert_int_equal(it.snapshot->nr_regions, 2);
	assert_true(it.snapshot->total_bytes == 12288);
	assert_int_equal(it.snapshot->regions[0].nr_accesses, 4);
	assert_int_equal(it.snapshot->regions[0].age, 3);
	assert_int_equal(it.snapshot->regions[1].nr_accesses, 10);	/* 50% of 20 */
	assert_int_equal(it.snapshot->regions[1].age, 5);		/* 500 ms / 100 ms */
	/* damo's fake snapshot is skipped; then kdamond 1's record, without intervals */
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->kdamond, 1);
	assert_int_equal(it.snapshot->scheme, 2);
	assert_int_equal(it.snapshot->target, -1);
	assert_int_equal(it.snapshot->nr_regions, 0);
	assert_int_equal(damonctl_rec_next(r, &it), 0);
	damonctl_rec_status(r, &st);
	assert_int_equal(st.format, DAMONCTL_REC_FMT_DAMO_JSON);
	assert_true(st.complete && st.nr_snapshots == 2);
	damonctl_rec_reader_free(r);
	close(fd);
}

/* damo 7.2's probe_hits: numbers, one per probe; a shorter list's missing ones are 0, and
 * a record of damo's before probes has none. */
static const char damo_probes_doc[] =
	"[{\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \"5000\","
	" \"aggr_us\": \"100000\", \"ops_update_us\": \"1000000\"}, \"scheme_idx\": null,"
	" \"target_id\": 0, \"snapshots\": ["
	"  {\"start_time\": \"1000\", \"end_time\": \"2000\", \"regions\": ["
	"   {\"start\": \"0\", \"end\": \"4096\", \"nr_accesses\": {\"samples\": 3},"
	"    \"age\": {\"aggr_intervals\": 1}, \"probe_hits\": [14, 0]},"
	"   {\"start\": \"4096\", \"end\": \"8192\", \"nr_accesses\": {\"samples\": 0},"
	"    \"age\": {\"aggr_intervals\": 2}, \"probe_hits\": [255]}]},"
	"  {\"start_time\": \"2000\", \"end_time\": \"3000\", \"regions\": ["
	"   {\"start\": \"0\", \"end\": \"4096\", \"nr_accesses\": {\"samples\": 1},"
	"    \"age\": {\"aggr_intervals\": 1}, \"probe_hits\": []}]}]}]";

static void test_damo_probe_hits(void **state)
{
	struct damonctl_rec_reader *r;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	static const uint8_t want[] = { 14, 0, 255, 0 };
	char why[256];
	int fd = reader_on(damo_probes_doc, sizeof(damo_probes_doc) - 1, &r, why);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(damonctl_rec_next(r, &it), 1);	/* INFO */
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->nr_regions, 2);
	assert_int_equal(it.snapshot->nr_probes, 2);
	assert_memory_equal(it.snapshot->probe_hits, want, sizeof(want));
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->nr_regions, 1);
	assert_int_equal(it.snapshot->nr_probes, 0);
	assert_null(it.snapshot->probe_hits);
	assert_int_equal(damonctl_rec_next(r, &it), 0);
	damonctl_rec_reader_free(r);
	close(fd);
}

/* damonc -> damo (plain and zlib) -> the same snapshots. */
static void test_damo_export(void **state)
{
	int z;

	(void)state;
	for (z = 0; z < 2; z++) {
		struct damonctl_rec_reader *r, *back;
		struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
		struct damonctl_rec_status st;
		size_t len;
		char why[256];
		int fd = make_record(true, true, &len), out = memfd_create("damo", 0), n = 0;

		assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
		assert_int_equal(damonctl_rec_export_damo(r, out, z), 0);
		lseek(out, 0, SEEK_SET);
		assert_int_equal(damonctl_rec_reader_new(out, &back, why, sizeof(why)), 0);
		damonctl_rec_status(back, &st);
		assert_int_equal(st.format, z ? DAMONCTL_REC_FMT_DAMO_ZLIB :
				 DAMONCTL_REC_FMT_DAMO_JSON);
		while (damonctl_rec_next(back, &it) == 1) {
			struct damonctl_rec_snapshot want;
			unsigned int j;

			if (it.type != DAMONCTL_REC_SNAPSHOT)
				continue;
			/* damo sorts by time: ours are in time order already */
			make_snapshot((unsigned int)n++, &want);
			assert_int_equal(it.snapshot->nr_regions, want.nr_regions);
			assert_int_equal(it.snapshot->kdamond, want.kdamond);
			assert_int_equal(it.snapshot->target, want.target);
			for (j = 0; j < want.nr_regions; j++) {
				assert_true(it.snapshot->regions[j].start == want.regions[j].start);
				assert_true(it.snapshot->regions[j].end == want.regions[j].end);
				assert_int_equal(it.snapshot->regions[j].age, want.regions[j].age);
			}
			/* the record's scheme_filters, damo's DamosFilter kvpairs, and back */
			if (want.ops_filters)
				assert_string_equal(it.snapshot->ops_filters, want.ops_filters);
			else
				assert_null(it.snapshot->ops_filters);
			/* damo's probe_hits lists, one number per probe */
			assert_int_equal(it.snapshot->nr_probes,
					 want.nr_regions ? want.nr_probes : 0);
			if (want.nr_regions && want.nr_probes)
				assert_memory_equal(it.snapshot->probe_hits, want.probe_hits,
						    (size_t)want.nr_regions * want.nr_probes);
		}
		assert_int_equal(n, NSNAP);
		damonctl_rec_reader_free(back);
		damonctl_rec_reader_free(r);
		close(out);
		close(fd);
	}
}

/* damo's documents cut anywhere: the snapshots before the cut, never an error or a crash. */
static void test_damo_cut(void **state)
{
	int z;

	(void)state;
	for (z = 0; z < 2; z++) {
		struct damonctl_rec_reader *r;
		size_t len, dlen, cut;
		char why[256], *doc;
		int fd = make_record(false, true, &len), out = memfd_create("damo", 0);
		unsigned int prev = 0;

		assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
		assert_int_equal(damonctl_rec_export_damo(r, out, z), 0);
		damonctl_rec_reader_free(r);
		close(fd);
		dlen = (size_t)lseek(out, 0, SEEK_END);
		doc = malloc(dlen);
		assert_true(pread(out, doc, dlen, 0) == (ssize_t)dlen);
		close(out);
		for (cut = 2; cut <= dlen; cut += z ? 7 : 13) {
			struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
			struct damonctl_rec_status st;
			unsigned int n = 0;
			int ret;

			fd = memfd_create("cut", 0);
			assert_true(write(fd, doc, cut) == (ssize_t)cut);
			lseek(fd, 0, SEEK_SET);
			if (damonctl_rec_reader_new(fd, &r, why, sizeof(why))) {
				close(fd);	/* too short to tell the format */
				continue;
			}
			while ((ret = damonctl_rec_next(r, &it)) == 1)
				n += it.type == DAMONCTL_REC_SNAPSHOT;
			assert_int_equal(ret, 0);
			damonctl_rec_status(r, &st);
			assert_true(st.complete != st.corrupt);
			assert_true(n <= NSNAP);
			assert_true(cut < dlen - 2 || n == NSNAP);
			assert_true(n >= prev);	/* whole snapshots, more as the cut moves */
			prev = n;
			damonctl_rec_reader_free(r);
			close(fd);
		}
		free(doc);
	}
}

/* The chunks of a record in @buf: their offsets and types, up to @max; how many. */
static size_t chunks(const uint8_t *buf, size_t len, size_t *off, uint8_t *type, size_t max)
{
	size_t pos = 16, n = 0;

	while (pos + 16 <= len && n < max) {
		uint32_t stored = (uint32_t)buf[pos + 4] | (uint32_t)buf[pos + 5] << 8 |
				  (uint32_t)buf[pos + 6] << 16 | (uint32_t)buf[pos + 7] << 24;

		off[n] = pos;
		type[n++] = buf[pos];
		pos += 16 + stored;
	}
	off[n] = pos;
	return n;
}

/* A record's bytes, each chunk copied as @order lists them (indexes, -1 ends), in a file. */
static int rebuild(const uint8_t *buf, const size_t *off, const int *order)
{
	int fd = memfd_create("rebuilt", 0);

	assert_true(write(fd, buf, 16) == 16);
	for (; *order >= 0; order++) {
		size_t n = off[*order + 1] - off[*order];

		assert_true(write(fd, buf + off[*order], n) == (ssize_t)n);
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/*
 * Probe hits are chunks of their own before their snapshot: without them (what a reader
 * that does not know the type sees) every snapshot reads as before, without hits; and hits
 * before a snapshot of another series are nobody's.
 */
static void test_probe_hits_chunks(void **state)
{
	size_t len, off[64], n, i;
	uint8_t type[64], *buf;
	int order[64], k = 0, fd = make_record(true, true, &len), hits1 = -1, snap3 = -1;
	int nsnap = 0, nhits = 0;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_status st;
	struct damonctl_rec_reader *r;
	char why[256];

	(void)state;
	buf = malloc(len);
	assert_true(pread(fd, buf, len, 0) == (ssize_t)len);
	close(fd);
	n = chunks(buf, len, off, type, 63);
	for (i = 0; i < n; i++) {
		if (type[i] == 7) {
			/* right before its snapshot */
			assert_true(i + 1 < n && type[i + 1] == 3);
			nhits++;
			if (hits1 < 0)
				hits1 = (int)i;
			continue;
		}
		if (type[i] == 3 && nsnap++ == 3)
			snap3 = (int)i;
		order[k++] = (int)i;
	}
	order[k] = -1;
	/* snapshots 1, 2 and 5 have probes and regions */
	assert_int_equal(nhits, 3);
	fd = rebuild(buf, off, order);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			check_snapshot_probes((unsigned int)nsnap++, it.snapshot, false);
	assert_int_equal(nsnap, NSNAP);
	damonctl_rec_status(r, &st);
	assert_true(st.complete && !st.corrupt && st.bytes_lost == 0);
	damonctl_rec_reader_free(r);
	close(fd);

	/* snapshot 1's hits moved before snapshot 3 (another target): dropped there, and
	 * snapshot 1 has none without them */
	for (i = 0, k = 0; i < n; i++) {
		if ((int)i == hits1)
			continue;
		if ((int)i == snap3)
			order[k++] = hits1;
		order[k++] = (int)i;
	}
	order[k] = -1;
	fd = rebuild(buf, off, order);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		check_snapshot_probes((unsigned int)nsnap, it.snapshot, nsnap != 1 && nsnap != 3);
		nsnap++;
	}
	assert_int_equal(nsnap, NSNAP);
	damonctl_rec_reader_free(r);
	close(fd);
	free(buf);
}

/*
 * The ops filters are a chunk of their own before their snapshot (and before its probe
 * hits, which stay right before it): without them (what a reader that does not know the
 * type sees) every snapshot reads as before, without filters; filters before a snapshot of
 * another series are nobody's. The writer takes an array of filters only, "[]" as none.
 */
static void test_ops_filters_chunks(void **state)
{
	size_t len, off[64], n, i;
	uint8_t type[64], *buf;
	int order[64], k = 0, fd = make_record(true, true, &len), filters1 = -1, snap3 = -1;
	int nsnap = 0, nfilters = 0;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_snapshot s;
	struct damonctl_rec_writer *w;
	struct damonctl_rec_reader *r;
	struct damonctl_rec_status st;
	char why[256];

	(void)state;
	buf = malloc(len);
	assert_true(pread(fd, buf, len, 0) == (ssize_t)len);
	close(fd);
	n = chunks(buf, len, off, type, 63);
	for (i = 0; i < n; i++) {
		if (type[i] == 8) {
			/* right before its snapshot, or before its hits and then it */
			assert_true(i + 1 < n && (type[i + 1] == 3 ||
						  (type[i + 1] == 7 && i + 2 < n && type[i + 2] == 3)));
			if (filters1 < 0)
				filters1 = (int)i;
			nfilters++;
			continue;
		}
		if (type[i] == 3 && nsnap++ == 3)
			snap3 = (int)i;
		order[k++] = (int)i;
	}
	order[k] = -1;
	assert_int_equal(nfilters, 4);	/* snapshots 1 to 4 */
	fd = rebuild(buf, off, order);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			check_snapshot_as((unsigned int)nsnap++, it.snapshot, true, false);
	assert_int_equal(nsnap, NSNAP);
	damonctl_rec_status(r, &st);
	assert_true(st.complete && !st.corrupt && st.bytes_lost == 0);
	damonctl_rec_reader_free(r);
	close(fd);

	/* snapshot 1's filters moved before snapshot 3 (another target, whose own come
	 * after them): snapshot 1 has none, and 3 its own */
	for (i = 0, k = 0; i < n; i++) {
		if ((int)i == filters1)
			continue;
		if ((int)i == snap3 - 1)
			order[k++] = filters1;
		order[k++] = (int)i;
	}
	order[k] = -1;
	assert_int_equal(type[snap3 - 1], 8);
	fd = rebuild(buf, off, order);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		check_snapshot_as((unsigned int)nsnap, it.snapshot, true, nsnap != 1);
		nsnap++;
	}
	assert_int_equal(nsnap, NSNAP);
	damonctl_rec_reader_free(r);
	close(fd);
	/* and right before snapshot 3's SNAPSHOT chunk (after its own): not its own */
	for (i = 0, k = 0; i < n; i++) {
		if ((int)i == filters1)
			continue;
		if ((int)i == snap3)
			order[k++] = filters1;
		order[k++] = (int)i;
	}
	order[k] = -1;
	fd = rebuild(buf, off, order);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		check_snapshot_as((unsigned int)nsnap, it.snapshot, true,
				  nsnap != 1 && nsnap != 3);
		nsnap++;
	}
	assert_int_equal(nsnap, NSNAP);
	damonctl_rec_reader_free(r);
	close(fd);
	free(buf);

	/* what the writer takes */
	fd = memfd_create("filters", 0);
	assert_int_equal(damonctl_rec_writer_new(fd, 0, NULL, &w), 0);
	make_snapshot(0, &s);
	s.ops_filters = "{\"type\": \"anon\"}";
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), -EINVAL);
	s.ops_filters = "[{\"matching\": true}]";
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), -EINVAL);
	s.ops_filters = "[{\"type\": \"anon\"}";
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), -EINVAL);
	s.ops_filters = "[]";
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), 0);
	/* a snapshot of a caller built before ops_filters: its sz does not cover them */
	s.ops_filters = F_ANON;
	s.sz = offsetof(struct damonctl_rec_snapshot, ops_filters);
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), 0);
	assert_int_equal(damonctl_rec_writer_finish(w, DAMONCTL_REC_END_COUNT), 0);
	len = (size_t)lseek(fd, 0, SEEK_CUR);
	buf = malloc(len);
	assert_true(pread(fd, buf, len, 0) == (ssize_t)len);
	n = chunks(buf, len, off, type, 63);
	for (i = 0; i < n; i++)
		assert_int_not_equal(type[i], 8);
	free(buf);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	for (nsnap = 0; damonctl_rec_next(r, &it) == 1;)
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			assert_null(it.snapshot->ops_filters);
			nsnap++;
		}
	assert_int_equal(nsnap, 2);
	damonctl_rec_reader_free(r);
	close(fd);
}

/*
 * damo's scheme_filters (DamosFilter.to_kvpairs, raw or not, and before allow was named
 * so, filter_pass): the operations layer's kept in order, the core layer's (addr, target)
 * left out; and written back as damo writes them.
 */
static const char damo_filters_doc[] =
	"[{\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \"5000\","
	" \"aggr_us\": \"100000\", \"ops_update_us\": \"1000000\"}, \"scheme_idx\": null,"
	" \"target_id\": 0, \"scheme_filters\": ["
	"  {\"filter_type\": \"addr\", \"matching\": false, \"allow\": false, \"memcg_path\": null,"
	"   \"address_range\": {\"start\": \"0\", \"end\": \"4096\"}, \"damon_target_idx\": null,"
	"   \"hugepage_size\": null},"
	"  {\"filter_type\": \"anon\", \"matching\": \"Y\", \"allow\": \"yes\", \"memcg_path\": \"\","
	"   \"address_range\": null, \"damon_target_idx\": null, \"hugepage_size\": null},"
	"  {\"filter_type\": \"memcg\", \"matching\": false, \"filter_pass\": false,"
	"   \"memcg_path\": \"/sys/fs/x\", \"address_range\": null, \"damon_target_idx\": null},"
	"  {\"filter_type\": \"hugepage_size\", \"matching\": true, \"allow\": true,"
	"   \"memcg_path\": null, \"address_range\": null, \"damon_target_idx\": null,"
	"   \"hugepage_size\": [\"2.000 MiB\", \"1,073,741,824\"]},"
	"  {\"filter_type\": \"target\", \"matching\": true, \"allow\": false, \"memcg_path\": null,"
	"   \"address_range\": null, \"damon_target_idx\": \"0\", \"hugepage_size\": null}],"
	" \"snapshots\": ["
	"  {\"start_time\": \"1000\", \"end_time\": \"2000\", \"regions\": ["
	"   {\"start\": \"0\", \"end\": \"4096\", \"nr_accesses\": {\"samples\": 3},"
	"    \"age\": {\"aggr_intervals\": 1}, \"sz_filter_passed\": \"4096\"}]}]},"
	" {\"kdamond_idx\": 0, \"context_idx\": 0, \"intervals\": {\"sample_us\": \"5000\","
	" \"aggr_us\": \"100000\", \"ops_update_us\": \"1000000\"}, \"scheme_idx\": null,"
	" \"target_id\": 1, \"scheme_filters\": [{\"filter_type\": \"target\", \"matching\": true,"
	"  \"allow\": false, \"damon_target_idx\": 0}], \"snapshots\": ["
	"  {\"start_time\": \"1000\", \"end_time\": \"2000\", \"regions\": ["
	"   {\"start\": \"0\", \"end\": \"4096\", \"nr_accesses\": {\"samples\": 3},"
	"    \"age\": {\"aggr_intervals\": 1}}]}]}]";

static void test_damo_filters(void **state)
{
	static const char want[] =
		"[{\"type\":\"anon\",\"matching\":true,\"allow\":true},"
		"{\"type\":\"memcg\",\"matching\":false,\"allow\":false,\"memcg_path\":\"/sys/fs/x\"},"
		"{\"type\":\"hugepage_size\",\"matching\":true,\"allow\":true,\"min\":2097152,"
		"\"max\":1073741824}]";
	static const char want_damo[] =
		"\"scheme_filters\": [{\"filter_type\": \"anon\", \"matching\": true, \"allow\": true, "
		"\"memcg_path\": null, \"address_range\": null, \"damon_target_idx\": null, "
		"\"hugepage_size\": null}, {\"filter_type\": \"memcg\", \"matching\": false, "
		"\"allow\": false, \"memcg_path\": \"/sys/fs/x\", \"address_range\": null, "
		"\"damon_target_idx\": null, \"hugepage_size\": null}, {\"filter_type\": "
		"\"hugepage_size\", \"matching\": true, \"allow\": true, \"memcg_path\": null, "
		"\"address_range\": null, \"damon_target_idx\": null, \"hugepage_size\": "
		"[\"2097152\", \"1073741824\"]}],";
	struct damonctl_rec_reader *r, *back;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	char why[256], *doc;
	int fd = reader_on(damo_filters_doc, sizeof(damo_filters_doc) - 1, &r, why), out, z;
	size_t dlen;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(damonctl_rec_next(r, &it), 1);	/* INFO */
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->target, 0);
	assert_string_equal(it.snapshot->ops_filters, want);
	assert_true(it.snapshot->has_sz_filter_passed);
	/* a record of core filters alone: none of the operations layer */
	assert_int_equal(damonctl_rec_next(r, &it), 1);
	assert_int_equal(it.snapshot->target, 1);
	assert_null(it.snapshot->ops_filters);
	assert_int_equal(damonctl_rec_next(r, &it), 0);
	/* damo's JSON out (plain, then zlib): the operations layer's filters, as damo's
	 * to_kvpairs(raw) */
	for (z = 0; z < 2; z++) {
		out = memfd_create("damo", 0);
		assert_int_equal(damonctl_rec_export_damo(r, out, z), 0);
		if (!z) {
			dlen = (size_t)lseek(out, 0, SEEK_END);
			doc = calloc(1, dlen + 1);
			assert_true(pread(out, doc, dlen, 0) == (ssize_t)dlen);
			assert_non_null(strstr(doc, want_damo));
			assert_non_null(strstr(doc, "\"scheme_filters\": [],"));
			free(doc);
		}
		/* and read back */
		lseek(out, 0, SEEK_SET);
		assert_int_equal(damonctl_rec_reader_new(out, &back, why, sizeof(why)), 0);
		assert_int_equal(damonctl_rec_next(back, &it), 1);
		assert_int_equal(damonctl_rec_next(back, &it), 1);
		assert_string_equal(it.snapshot->ops_filters, want);
		assert_int_equal(damonctl_rec_next(back, &it), 1);
		assert_null(it.snapshot->ops_filters);
		damonctl_rec_reader_free(back);
		close(out);
	}
	damonctl_rec_reader_free(r);
	close(fd);
}

/* Structures that say their size: a size below the first one with sz is refused, a later
 * build's longer item is filled as far as this library knows, the rest left alone. */
static void test_struct_sizes(void **state)
{
	struct damonctl_rec_stats st = DAMONCTL_REC_STATS_INIT;
	struct { struct damonctl_rec_item it; uint64_t later; } big;
	struct damonctl_rec_item small = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_snapshot s;
	struct damonctl_rec_writer *w;
	struct damonctl_rec_reader *r;
	int fd = memfd_create("sz", 0);
	char why[256];

	(void)state;
	assert_int_equal(damonctl_rec_writer_new(fd, 0, NULL, &w), 0);
	make_snapshot(1, &s);
	s.sz = offsetof(struct damonctl_rec_snapshot, regions);
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), -EINVAL);
	st.sz = offsetof(struct damonctl_rec_stats, v) + 7 * sizeof(uint64_t);
	assert_int_equal(damonctl_rec_write_stats(w, &st), -EINVAL);
	make_snapshot(1, &s);
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), 0);
	assert_int_equal(damonctl_rec_writer_finish(w, DAMONCTL_REC_END_COUNT), 0);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(damonctl_rec_reader_new(fd, &r, why, sizeof(why)), 0);
	small.sz = offsetof(struct damonctl_rec_item, end);
	assert_int_equal(damonctl_rec_next(r, &small), -EINVAL);
	memset(&big, 0, sizeof(big));
	big.it.sz = sizeof(big);
	big.later = 7;
	assert_int_equal(damonctl_rec_next(r, &big.it), 1);
	assert_int_equal(big.it.type, DAMONCTL_REC_INFO);
	assert_int_equal(damonctl_rec_next(r, &big.it), 1);
	assert_int_equal(big.it.type, DAMONCTL_REC_SNAPSHOT);
	assert_int_equal(big.it.sz, sizeof(big));
	assert_int_equal(big.later, 7);
	assert_int_equal(big.it.snapshot->sz, sizeof(struct damonctl_rec_snapshot));
	check_snapshot(1, big.it.snapshot);
	assert_null(big.it.stats);
	assert_null(big.it.end);
	assert_int_equal(damonctl_rec_next(r, &big.it), 1);
	assert_int_equal(big.it.type, DAMONCTL_REC_END);
	assert_null(big.it.snapshot);
	assert_int_equal(big.it.end->sz, sizeof(struct damonctl_rec_end));
	assert_int_equal(big.it.end->nr_snapshots, 1);
	damonctl_rec_reader_free(r);
	close(fd);
}

static void test_closed_pipe(void **state)
{
	struct damonctl_rec_writer *w;
	struct damonctl_rec_snapshot s;
	int p[2];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(damonctl_rec_writer_new(p[1], 0, NULL, &w), 0);
	close(p[0]);
	make_snapshot(2, &s);
	assert_int_equal(damonctl_rec_write_snapshot(w, &s), -EPIPE);
	damonctl_rec_writer_finish(w, -1);
	close(p[1]);
}

static void put(const char *dir, const char *rel, const char *value)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", value);
	fclose(f);
}

static void test_tried_regions_read(void **state)
{
	char root[] = "/tmp/damonc-tried.XXXXXX", cmd[4200];
	const char *tr = "sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/1/tried_regions";
	struct damonctl_rec_region *regions = NULL;
	struct damonctl_ctx *ctx;
	size_t cap = 0;
	uint64_t total = 0;
	bool has_sz = true;
	char rel[256];
	int i;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* 12 regions listed out of order (10 before 2), no total_bytes: the 6.2 layout */
	for (i = 0; i < 12; i++) {
		char v[32];

		snprintf(rel, sizeof(rel), "%s/%d/start", tr, i);
		snprintf(v, sizeof(v), "%d", 4096 * i);
		put(root, rel, v);
		snprintf(rel, sizeof(rel), "%s/%d/end", tr, i);
		snprintf(v, sizeof(v), "%d", 4096 * (i + 1));
		put(root, rel, v);
		snprintf(rel, sizeof(rel), "%s/%d/nr_accesses", tr, i);
		snprintf(v, sizeof(v), "%d", i);
		put(root, rel, v);
		snprintf(rel, sizeof(rel), "%s/%d/age", tr, i);
		put(root, rel, "7");
	}
	assert_int_equal(damonctl_new(&ctx), 0);
	assert_int_equal(damonctl_set_sysroot(ctx, root), 0);
	assert_int_equal(damonctl_tried_regions_read(ctx, 0, 0, 1, &regions, &cap, &total,
						     &has_sz), 12);
	assert_false(has_sz);
	assert_true(total == 12 * 4096);
	for (i = 0; i < 12; i++) {
		assert_true(regions[i].start == 4096u * (unsigned int)i);
		assert_int_equal(regions[i].nr_accesses, i);
		assert_int_equal(regions[i].age, 7);
	}
	/* 6.6: total_bytes; 6.14: sz_filter_passed */
	snprintf(rel, sizeof(rel), "%s/total_bytes", tr);
	put(root, rel, "999");
	for (i = 0; i < 12; i++) {
		snprintf(rel, sizeof(rel), "%s/%d/sz_filter_passed", tr, i);
		put(root, rel, "512");
	}
	assert_int_equal(damonctl_tried_regions_read(ctx, 0, 0, 1, &regions, &cap, &total,
						     &has_sz), 12);
	assert_true(has_sz && total == 999 && regions[11].sz_filter_passed == 512);
	/* no has_sz_filter_passed: the file is not read */
	assert_int_equal(damonctl_tried_regions_read(ctx, 0, 0, 1, &regions, &cap, &total,
						     NULL), 12);
	assert_true(regions[11].sz_filter_passed == 0 && regions[11].age == 7);
	/* a damaged value names its file */
	snprintf(rel, sizeof(rel), "%s/3/age", tr);
	put(root, rel, "x");
	assert_int_equal(damonctl_tried_regions_read(ctx, 0, 0, 1, &regions, &cap, &total,
						     &has_sz), -EBADMSG);
	{
		struct damonctl_error e;

		assert_true(damonctl_last_error(ctx, &e));
		assert_non_null(strstr(e.path, "tried_regions/3/age"));
	}
	assert_int_equal(damonctl_tried_regions_read(ctx, 0, 0, 7, &regions, &cap, &total,
						     &has_sz), -ENOENT);
	free(regions);
	damonctl_free(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_compression_pays),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_not_records),
		cmocka_unit_test(test_damo_import),
		cmocka_unit_test(test_damo_export),
		cmocka_unit_test(test_damo_probe_hits),
		cmocka_unit_test(test_damo_cut),
		cmocka_unit_test(test_struct_sizes),
		cmocka_unit_test(test_probe_hits_chunks),
		cmocka_unit_test(test_ops_filters_chunks),
		cmocka_unit_test(test_damo_filters),
		cmocka_unit_test(test_closed_pipe),
		cmocka_unit_test(test_tried_regions_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
