// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening records for reading (see record_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record_io.h"

static int spool(int in, int *out)
{
	const char *dir = getenv("TMPDIR");
	char buf[1 << 16];
	int fd;

	fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (!n)
			break;
		while (w < n) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				int e = -errno;

				close(fd);
				return e;
			}
			w += k;
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*out = fd;
	return 0;
}

/* damo's side files of a damo record at @path (damo record's @path.mem_footprint and
 * @path.vmas), read into its reader when they are there: an exit code (a side file there
 * but unreadable is a warning, and the record is read without it). */
static int damo_side_files(struct cli *cli, const char *path, struct record_in *in)
{
	/* the side files grow with the record, as the record does */
	const size_t max = (size_t)256 << 20;
	char mem_path[4096], vmas_path[4096], *mem = NULL, *vmas = NULL;
	struct damonctl_rec_status st;
	int r;

	damonctl_rec_status(in->r, &st);
	if (st.format == DAMONCTL_REC_FMT_DAMONC || !strcmp(path, "-"))
		return EXIT_OK;
	snprintf(mem_path, sizeof(mem_path), "%s.mem_footprint", path);
	snprintf(vmas_path, sizeof(vmas_path), "%s.vmas", path);
	r = damonctl_file_read(mem_path, max, &mem, NULL);
	if (r == -ENOENT)
		return EXIT_OK;
	if (!r && damonctl_file_read(vmas_path, max, &vmas, NULL))
		vmas = NULL;	/* footprints without mappings */
	if (!r)
		r = damonctl_rec_reader_damo_footprints(in->r, mem, vmas);
	if (r == -ENOMEM) {
		free(mem);
		free(vmas);
		return oom_error(cli);
	}
	if (r)
		fprintf(stderr, "damonc: %s: warning: %s: %s; the record is read without it\n",
			cli->cmd_name, mem_path, r == -EINVAL ? "not damo's footprints" :
			strerror(-r));
	free(mem);
	free(vmas);
	return EXIT_OK;
}

int record_in_open(struct cli *cli, const char *path, bool rewind, struct record_in *in)
{
	char why[256];
	int r;

	memset(in, 0, sizeof(*in));
	in->name = strcmp(path, "-") ? path : "stdin";
	if (!strcmp(path, "-")) {
		in->fd = STDIN_FILENO;
		if (rewind && lseek(STDIN_FILENO, 0, SEEK_CUR) < 0) {
			r = spool(STDIN_FILENO, &in->fd);
			if (r)
				return usage_error(cli, "-i -: copying stdin to a temporary file: %s",
						   strerror(-r)), EXIT_FAIL;
		}
	} else {
		struct stat st;

		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0)
			return usage_error(cli, "-i '%s': %s", path, strerror(errno));
		/* a record is a file or a stream (a FIFO from 'damonc record -o'); a directory
		 * or a device is a mistake in the command line */
		if (!fstat(in->fd, &st) && (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) ||
					    S_ISBLK(st.st_mode))) {
			close(in->fd);
			in->fd = -1;
			return usage_error(cli, "-i '%s': %s", path, S_ISDIR(st.st_mode) ?
					   "is a directory" : "is a device, not a record");
		}
		/* a FIFO read more than once: its copy is */
		if (rewind && lseek(in->fd, 0, SEEK_CUR) < 0) {
			int fd = in->fd;

			r = spool(fd, &in->fd);
			close(fd);
			if (r) {
				in->fd = -1;
				return usage_error(cli, "-i '%s': copying it to a temporary file: %s",
						   path, strerror(-r)), EXIT_FAIL;
			}
		}
	}
	r = damonctl_rec_reader_new(in->fd, &in->r, why, sizeof(why));
	if (r) {
		if (in->fd != STDIN_FILENO)
			close(in->fd);
		in->fd = -1;
		if (r == -EBADMSG)
			return usage_error(cli, "-i '%s': %s", path, why);
		if (r == -ELIBACC)
			return usage_error(cli, "-i '%s': records need zlib, which could not be "
					   "loaded: %s", path, why), EXIT_UNSUPPORTED;
		return usage_error(cli, "-i '%s': %s", path, strerror(-r)), EXIT_FAIL;
	}
	r = damo_side_files(cli, path, in);
	if (r)
		record_in_close(in);
	return r;
}

int record_in_report_loss(struct cli *cli, struct record_in *in)
{
	struct damonctl_rec_status st;

	damonctl_rec_status(in->r, &st);
	if (st.corrupt && st.format != DAMONCTL_REC_FMT_DAMONC)
		fprintf(stderr, "damonc: %s: warning: damo's document %s is cut short or damaged "
			"after %" PRIu64 " snapshots; those were read\n", cli->cmd_name, in->name,
			st.nr_snapshots);
	else if (st.corrupt)
		fprintf(stderr, "damonc: %s: warning: %s is damaged after byte %" PRIu64 ": %" PRIu64
			" bytes were skipped; %" PRIu64 " snapshots were read before it\n",
			cli->cmd_name, in->name, st.bytes_ok, st.bytes_lost, st.nr_snapshots);
	else if (!st.complete)
		fprintf(stderr, "damonc: %s: warning: %s was cut short (no end marker: recording "
			"was interrupted); %" PRIu64 " snapshots read, %" PRIu64 " bytes after the "
			"last whole chunk were lost\n", cli->cmd_name, in->name, st.nr_snapshots,
			st.bytes_lost);
	return EXIT_OK;
}

json_object *record_in_status_json(struct record_in *in)
{
	static const char *const fmts[] = { "damonc", "damo-json", "damo-zlib" };
	json_object *o = json_object_new_object();
	struct damonctl_rec_status st;

	damonctl_rec_status(in->r, &st);
	json_object_object_add(o, "name", json_object_new_string(in->name));
	json_object_object_add(o, "format", json_object_new_string(fmts[st.format]));
	json_object_object_add(o, "complete", json_object_new_boolean(st.complete));
	json_object_object_add(o, "corrupt", json_object_new_boolean(st.corrupt));
	json_object_object_add(o, "bytes_lost", json_object_new_uint64(st.bytes_lost));
	return o;
}

void record_in_close(struct record_in *in)
{
	damonctl_rec_reader_free(in->r);
	in->r = NULL;
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}

int record_write_item(struct damonctl_rec_writer *w, const struct damonctl_rec_item *it)
{
	switch (it->type) {
	case DAMONCTL_REC_CONFIG:
		return damonctl_rec_write_config(w, it->time_ns, it->json);
	case DAMONCTL_REC_FOOTPRINT:
		return damonctl_rec_write_footprint(w, it->time_ns, it->json);
	case DAMONCTL_REC_SNAPSHOT:
		return damonctl_rec_write_snapshot(w, it->snapshot);
	case DAMONCTL_REC_STATS:
		return damonctl_rec_write_stats(w, it->stats);
	case DAMONCTL_REC_INFO:
	case DAMONCTL_REC_END:
		break;
	}
	return 0;
}
