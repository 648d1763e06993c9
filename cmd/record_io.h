/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening a record file or stdin for reading, and saying what a cut-short record lost. */
#ifndef DAMONC_RECORD_IO_H
#define DAMONC_RECORD_IO_H

#include "damonc.h"

struct record_in {
	const char *name;		/* the path, or "stdin" */
	int fd;
	struct damonctl_rec_reader *r;
};

/* An exit code. With @rewind, a pipe is first copied to an unlinked temporary file so that
 * the reader can make several passes (memory stays bounded either way). */
int record_in_open(struct cli *cli, const char *path, bool rewind, struct record_in *in);
/* A warning on stderr when the record was cut short or damaged; returns EXIT_OK. */
int record_in_report_loss(struct cli *cli, struct record_in *in);
/* {"complete", "corrupt", "bytes_lost", "snapshots"} for --json documents. */
json_object *record_in_status_json(struct record_in *in);
void record_in_close(struct record_in *in);
/* Write one item read from a record or a capture (INFO and END: nothing); 0 or -errno. */
int record_write_item(struct damonctl_rec_writer *w, const struct damonctl_rec_item *it);

#endif
