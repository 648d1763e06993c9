// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record readers: damonctl_rec_reader_new() and damonctl_rec_next() on any bytes,
 * detected as damonc's format, damo's JSON or damo's zlib JSON (one target, built twice
 * with different seeds: fuzz-record for damonc records, fuzz-damo-record for damo's). A
 * record that was read once reads the same after a rewind.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "damonctl/damonctl.h"
#include "fuzz.h"

static uint64_t digest(struct damonctl_rec_reader *r, size_t *n)
{
	struct damonctl_rec_item it;
	uint64_t h = 0;
	int rc;

	*n = 0;
	while ((rc = damonctl_rec_next(r, &it)) == 1 && *n < 100000) {
		h = h * 31 + it.type;
		if (it.type == DAMONCTL_REC_SNAPSHOT) {
			uint32_t i;

			h = h * 31 + it.snapshot.nr_regions;
			for (i = 0; i < it.snapshot.nr_regions; i++)
				h = h * 31 + it.snapshot.regions[i].start +
				    it.snapshot.regions[i].nr_accesses;
		}
		(*n)++;
	}
	return h * 31 + (uint64_t)(rc < 0 ? -rc : 0);
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
		}
		damonctl_rec_reader_free(r);
	}
	close(fd);
	return 0;
}
