// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record readers: damonctl_rec_reader_new() and damonctl_rec_next() on any bytes,
 * detected as damonc's format, damo's JSON or damo's zlib JSON (one target, built twice
 * with different seeds: fuzz-record for damonc records, fuzz-damo-record for damo's). A
 * record that was read once reads the same after a rewind. Its snapshots re-aggregated
 * (damonctl_rec_merger_*, 1 s windows) keep every byte's accesses: the sum of size x
 * nr_accesses over all snapshots is the same before and after, and no merged region is
 * empty or overlaps the one before it in its target's run.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

static uint64_t digest(struct damonctl_rec_reader *r, size_t *n)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	uint64_t h = 0;
	int rc;

	*n = 0;
	while ((rc = damonctl_rec_next(r, &it)) == 1 && *n < 100000) {
		h = h * 31 + it.type;
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			uint32_t i;

			h = h * 31 + it.snapshot->nr_regions;
			for (i = 0; i < it.snapshot->nr_regions; i++)
				h = h * 31 + it.snapshot->regions[i].start +
				    it.snapshot->regions[i].nr_accesses;
		}
		(*n)++;
	}
	return h * 31 + (uint64_t)(rc < 0 ? -rc : 0);
}

typedef unsigned __int128 u128;

static u128 weight(const struct damonctl_rec_snapshot *s)
{
	u128 w = 0;

	for (uint32_t i = 0; i < s->nr_regions; i++)
		if (s->regions[i].end > s->regions[i].start)
			w += (u128)(s->regions[i].end - s->regions[i].start) *
			     s->regions[i].nr_accesses;
	return w;
}

/* Checks a merged snapshot; false when a count was clamped (the sums cannot compare). */
static bool merged_ok(const struct damonctl_rec_snapshot *s, u128 *w)
{
	bool exact = true;

	for (uint32_t i = 0; i < s->nr_regions; i++) {
		const struct damonctl_rec_region *g = &s->regions[i];

		if (g->end <= g->start)
			abort();	/* an empty merged region */
		if (g->nr_accesses == UINT32_MAX)
			exact = false;
	}
	*w += weight(s);
	return exact;
}

static void merge_all(struct damonctl_rec_reader *r)
{
	struct damonctl_rec_merger *m;
	const struct damonctl_rec_snapshot *out;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	u128 in = 0, got = 0;
	bool exact = true;
	size_t n = 0;
	int rc;

	if (damonctl_rec_merger_new(1000000, &m))
		abort();
	while ((rc = damonctl_rec_next(r, &it)) == 1 && n++ < 100000) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		in += weight(it.snapshot);
		rc = damonctl_rec_merger_add(m, it.snapshot, &out);
		if (rc < 0)
			break;
		if (rc == 1 && !merged_ok(out, &got))
			exact = false;
	}
	if (rc >= 0) {
		while ((rc = damonctl_rec_merger_flush(m, &out)) == 1)
			if (!merged_ok(out, &got))
				exact = false;
		if (exact && rc == 0 && in != got)
			abort();	/* accesses lost or invented */
	}
	damonctl_rec_merger_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damonctl_rec_reader *r;
	struct damonctl_rec_status st;
	char why[256];
	int fd = memfd_create("record", MFD_CLOEXEC);
	size_t n1, n2;
	uint64_t h1, h2;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET))
		abort();
	if (!damonctl_rec_reader_new(fd, &r, why, sizeof(why))) {
		h1 = digest(r, &n1);
		damonctl_rec_status(r, &st);
		if (!damonctl_rec_rewind(r)) {
			h2 = digest(r, &n2);
			if (h1 != h2 || n1 != n2)
				abort();	/* the same bytes read twice differ */
			if (!damonctl_rec_rewind(r))
				merge_all(r);
		}
		damonctl_rec_reader_free(r);
	}
	close(fd);
	return 0;
}
