// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: libdamonctl's hand-written reader of tracefs's binary ring buffer
 * (damonctl_trace_raw_parse_page(), lib/trace_raw.c) against libtraceevent's, what perf,
 * trace-cmd and libtracefs decode trace_pipe_raw with (kbuffer for the pages, tep for the
 * damon_aggregated record's fields, each field looked up once: its fastest use). Both read
 * the same pages: damon_aggregated records laid out as Linux 7.2 writes them (its format
 * and header_page files, tests/unit/trace-raw-formats.h), with a time extend now and then,
 * as ring_buffer.c writes them. The two must decode the same
 * records, times included (a checksum over every field): else this fails. In rounds that
 * alternate the two readers, it prints each one's records per CPU second (the median
 * round) and the hand reader's CPU per record against libtraceevent's.
 *   trace-reader [PAGES [ROUNDS]]    (default 4096 pages, 9 rounds)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "damonctl/damonctl.h"
#include "trace-raw-formats.h"

#define PAGE 4096
#define HDR 16
#define RECORD 48		/* damon_aggregated on 7.2: its fields end at offset 48 */
#define MAX_ROUNDS 99

struct sum {
	uint64_t n, x;
};

static void mix(struct sum *s, uint64_t v)
{
	s->x = (s->x ^ v) * 0x100000001b3ull;
}

static void add_record(struct sum *s, uint64_t ts, uint64_t id, uint64_t nr, uint64_t start,
		       uint64_t end, uint64_t na, uint64_t age)
{
	s->n++;
	mix(s, ts);
	mix(s, id);
	mix(s, nr);
	mix(s, start);
	mix(s, end);
	mix(s, na);
	mix(s, age);
}

static void put32(unsigned char *p, size_t *used, uint32_t v)
{
	memcpy(p + HDR + *used, &v, 4);
	*used += 4;
}

/* One page as the kernel fills it: records 1 us apart, a time extend before every 16th (a
 * delta over 27 bits). */
static void fill_page(unsigned char *p, unsigned int page_no, uint64_t *seq)
{
	uint64_t ts = 1000000000ull + (uint64_t)page_no * 100000000ull, commit;
	size_t used = 0;
	unsigned int k = 0;

	memset(p, 0, PAGE);
	memcpy(p, &ts, 8);
	while (used + 8 + 4 + RECORD <= PAGE - HDR - 4) {
		unsigned char r[RECORD];
		uint64_t id = *seq % 3, start = 0x7f0000000000ull + *seq * 4096 * 512;
		uint64_t end = start + 4096 * (1 + *seq % 512);
		uint32_t nr = 1000, na = (uint32_t)(*seq % 21), age = (uint32_t)(*seq % 97);

		if (k % 16 == 15) {
			uint64_t delta = (1ull << 28) + k;

			put32(p, &used, 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
			put32(p, &used, (uint32_t)(delta >> 27));
		}
		record72(r, 1403, id, nr, start, end, na, age);
		put32(p, &used, (RECORD / 4) | 1000u << 5);
		memcpy(p + HDR + used, r, RECORD);
		used += RECORD;
		(*seq)++;
		k++;
	}
	commit = used;		/* the readers stop there: what trace_pipe_raw hands out */
	memcpy(p + 8, &commit, 8);
}

static int hand_one(void *arg, const struct damonctl_trace_region *reg)
{
	add_record(arg, reg->ts_ns, reg->target_id, reg->nr_regions, reg->start, reg->end,
		   reg->nr_accesses, reg->age);
	return 0;
}

static int read_hand(const struct damonctl_trace_raw *r, unsigned char *pages, unsigned int n,
		     struct sum *s)
{
	unsigned int i;
	bool missed;

	for (i = 0; i < n; i++)
		if (damonctl_trace_raw_parse_page(r, pages + (size_t)i * PAGE, PAGE, hand_one, s,
						  &missed))
			return -1;
	return 0;
}

struct tep_reader {
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct tep_event *ev;
	struct tep_format_field *f[6];	/* target_id nr_regions start end nr_accesses age */
};

static int tep_reader_init(struct tep_reader *t)
{
	static const char *const names[6] = { "target_id", "nr_regions", "start", "end",
					      "nr_accesses", "age" };
	char *hp = strdup(header_page);
	unsigned int i;

	t->tep = tep_alloc();
	t->kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!hp || !t->tep || !t->kbuf)
		return -1;
	tep_set_long_size(t->tep, 8);
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_header_page(t->tep, hp, strlen(hp), 8) ||
	    tep_parse_event(t->tep, format_72, strlen(format_72), "damon")) {
		free(hp);
		return -1;
	}
	free(hp);
	t->ev = tep_find_event(t->tep, 1403);
	if (!t->ev)
		return -1;
	for (i = 0; i < 6; i++)
		if (!(t->f[i] = tep_find_field(t->ev, names[i])))
			return -1;
	return 0;
}

static int read_tep(struct tep_reader *t, unsigned char *pages, unsigned int n, struct sum *s)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		unsigned long long ts;
		void *data;

		if (kbuffer_load_subbuffer(t->kbuf, pages + (size_t)i * PAGE))
			return -1;
		for (data = kbuffer_read_event(t->kbuf, &ts); data;
		     data = kbuffer_next_event(t->kbuf, &ts)) {
			struct tep_record rec = { .ts = ts, .data = data };
			unsigned long long v[6];

			if (tep_data_type(t->tep, &rec) != t->ev->id)
				continue;
			for (j = 0; j < 6; j++)
				if (tep_read_number_field(t->f[j], data, &v[j]))
					return -1;
			add_record(s, ts, v[0], v[1], v[2], v[3], v[4], v[5]);
		}
	}
	return 0;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned int npages = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 10) : 4096;
	unsigned int rounds = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 9, i;
	double hand[MAX_ROUNDS], tep[MAX_ROUNDS], ratio[MAX_ROUNDS];
	struct damonctl_trace_raw *raw = NULL;
	struct tep_reader t = { 0 };
	unsigned char *pages;
	uint64_t seq = 0;

	if (!npages || !rounds || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: trace-reader [PAGES [ROUNDS <= %d]]\n", MAX_ROUNDS);
		return 2;
	}
	pages = malloc((size_t)npages * PAGE);
	if (!pages || damonctl_trace_raw_new(&raw) ||
	    damonctl_trace_raw_set_format(raw, format_72) ||
	    damonctl_trace_raw_set_header_page(raw, header_page) || tep_reader_init(&t)) {
		fprintf(stderr, "trace-reader: cannot set up the two readers\n");
		return 1;
	}
	for (i = 0; i < npages; i++)
		fill_page(pages + (size_t)i * PAGE, i, &seq);
	for (i = 0; i < rounds; i++) {
		struct sum a = { 0, 0xcbf29ce484222325ull }, b = a;
		double t0 = cpu_s(), t1, t2;

		if (read_hand(raw, pages, npages, &a))
			return fprintf(stderr, "trace-reader: the hand reader refused a page\n"), 1;
		t1 = cpu_s();
		if (read_tep(&t, pages, npages, &b))
			return fprintf(stderr, "trace-reader: libtraceevent refused a page\n"), 1;
		t2 = cpu_s();
		if (a.n != seq || b.n != seq || a.x != b.x) {
			fprintf(stderr, "trace-reader: the readers disagree: %llu and %llu records of "
				"%llu, checksums %llx and %llx\n", (unsigned long long)a.n,
				(unsigned long long)b.n, (unsigned long long)seq,
				(unsigned long long)a.x, (unsigned long long)b.x);
			return 1;
		}
		hand[i] = t1 - t0;
		tep[i] = t2 - t1;
		ratio[i] = hand[i] / tep[i];
	}
	qsort(hand, rounds, sizeof(double), by_value);
	qsort(tep, rounds, sizeof(double), by_value);
	qsort(ratio, rounds, sizeof(double), by_value);
	printf("damon_aggregated records: %llu in %u pages of %d bytes, %u rounds (median)\n",
	       (unsigned long long)seq, npages, PAGE, rounds);
	printf("| reader | records per CPU second | CPU ns per record |\n| --- | --- | --- |\n");
	printf("| hand-written (libdamonctl) | %.0f | %.1f |\n", (double)seq / hand[rounds / 2],
	       hand[rounds / 2] * 1e9 / (double)seq);
	printf("| libtraceevent %s (kbuffer + tep) | %.0f | %.1f |\n", LIBTRACEEVENT_VERSION,
	       (double)seq / tep[rounds / 2], tep[rounds / 2] * 1e9 / (double)seq);
	printf("hand-written against libtraceevent, CPU per record (median of the rounds' "
	       "ratios): %.2f\n", ratio[rounds / 2]);
	kbuffer_free(t.kbuf);
	tep_free(t.tep);
	damonctl_trace_raw_free(raw);
	free(pages);
	return 0;
}
