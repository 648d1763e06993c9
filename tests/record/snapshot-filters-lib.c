// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program of libdamonctl's, through its public header only: a live capture of kdamond 0
 * under SYSROOT (damon-emu, set up by emu-snapshot-filters.sh) through snapshot filters
 * (damo's --snapshot_damos_filter), written to a record and read back, printed as lines the
 * script checks against what the emulator's pages say:
 *
 *   refuse ERRNO LAST              a refused open: its -errno, whether a last error is set
 *   snap TARGET NR HAS_SFP         a snapshot: its target, regions, has_sz_filter_passed
 *   filters JSON                   its ops_filters ("-" for NULL)
 *   text TEXT                      damonctl_access_filters_text() of them, and
 *   installed 0|1                  damonctl_access_filters_installed()
 *   region START END SFP           one line per region: its sz_filter_passed
 *   end REASON CLOSE               the end reason's name, damonctl_capture_close's return
 *   readback TARGET JSON           each snapshot of the record written, read back
 *
 *   snapshot-filters-lib SYSROOT RECORD COUNT FILTER...
 *
 * FILTER is [allow|reject]:[!]TYPE (a filter of the model scheme's ops_filters, "!" for
 * matching N) or legacy:[allow|reject]:[!]TYPE (one of its filters/); COUNT 0 only opens
 * (a refusal is expected).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <damonctl/damonctl.h>

static int add_filter(struct damonctl_scheme *s, const char *arg)
{
	enum damonctl_filter_dir dir = DAMONCTL_FILTERS_OPS;
	struct damonctl_filter *f;
	bool allow, matching = true;

	if (!strncmp(arg, "legacy:", 7)) {
		dir = DAMONCTL_FILTERS_LEGACY;
		arg += 7;
	}
	if (!strncmp(arg, "allow:", 6))
		allow = true;
	else if (!strncmp(arg, "reject:", 7))
		allow = false;
	else
		return -EINVAL;
	arg = strchr(arg, ':') + 1;
	if (*arg == '!') {
		matching = false;
		arg++;
	}
	f = damonctl_scheme_add_filter(s, dir);
	if (!f || damonctl_filter_set_str(f, DAMONCTL_FILTER_TYPE, arg) ||
	    damonctl_filter_set(f, DAMONCTL_FILTER_MATCHING, matching) ||
	    damonctl_filter_set(f, DAMONCTL_FILTER_ALLOW, allow))
		return -EINVAL;
	return 0;
}

static void print_snapshot(const struct damonctl_rec_snapshot *s)
{
	char text[512];

	printf("snap %d %u %d\n", (int)s->target, (unsigned int)s->nr_regions,
	       s->has_sz_filter_passed);
	printf("filters %s\n", s->ops_filters ? s->ops_filters : "-");
	damonctl_access_filters_text(s->ops_filters, text, sizeof(text));
	printf("text %s\n", text);
	printf("installed %d\n", damonctl_access_filters_installed(s->ops_filters));
	for (uint32_t i = 0; i < s->nr_regions; i++)
		printf("region %llu %llu %llu\n", (unsigned long long)s->regions[i].start,
		       (unsigned long long)s->regions[i].end,
		       (unsigned long long)s->regions[i].sz_filter_passed);
}

static int read_back(const char *path)
{
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_reader *r;
	char why[256];
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0 || damonctl_rec_reader_new(fd, &r, why, sizeof(why)))
		return 1;
	while ((ret = damonctl_rec_next(r, &it)) == 1)
		if (it.type == DAMONCTL_REC_SNAPSHOT)
			printf("readback %d %s\n", (int)it.snapshot->target,
			       it.snapshot->ops_filters ? it.snapshot->ops_filters : "-");
	damonctl_rec_reader_free(r);
	close(fd);
	return ret < 0;
}

int main(int argc, char **argv)
{
	struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
	struct damonctl_rec_item it = DAMONCTL_REC_ITEM_INIT;
	struct damonctl_rec_writer *w = NULL;
	struct damonctl_capture *c = NULL;
	struct damonctl_kdamond *k;
	struct damonctl_context *mc;
	struct damonctl_scheme *m;
	struct damonctl_tree *t;
	struct damonctl_ctx *ctx;
	struct damonctl_error e;
	int r, fd, i;

	if (argc < 5)
		return 2;
	if (damonctl_new(&ctx) || damonctl_set_sysroot(ctx, argv[1]))
		return 1;
	/* the model scheme: a caller's, in a tree of its own */
	t = damonctl_tree_new();
	k = t ? damonctl_tree_add_kdamond(t) : NULL;
	mc = k ? damonctl_kdamond_add_context(k) : NULL;
	m = mc ? damonctl_context_add_scheme(mc) : NULL;
	if (!m)
		return 1;
	for (i = 4; i < argc; i++)
		if (add_filter(m, argv[i])) {
			fprintf(stderr, "snapshot-filters-lib: bad filter %s\n", argv[i]);
			return 2;
		}
	o.method = DAMONCTL_CAPTURE_AUTO;
	o.interval_us = 200000;
	o.count = strtoull(argv[3], NULL, 10);
	o.allow_foreign = true;
	o.no_footprints = true;
	o.snapshot_filters = m;
	r = damonctl_capture_open(ctx, 0, &o, &c);
	damonctl_tree_free(t);	/* read during open only */
	if (!o.count || r) {
		printf("refuse %d %d\n", r, damonctl_last_error(ctx, &e) ? 1 : 0);
		damonctl_capture_close(c);
		damonctl_free(ctx);
		return 0;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || damonctl_rec_writer_new(fd, 0, NULL, &w))
		return 1;
	while ((r = damonctl_capture_next(c, &it)) == 1) {
		if (it.type != DAMONCTL_REC_SNAPSHOT)
			continue;
		print_snapshot(it.snapshot);
		if (damonctl_rec_write_snapshot(w, it.snapshot))
			return 1;
	}
	if (r < 0)
		fprintf(stderr, "snapshot-filters-lib: next: %s\n", strerror(-r));
	printf("end %s ", damonctl_rec_end_reason_name(damonctl_capture_end_reason(c)));
	printf("%d\n", damonctl_capture_close(c));
	if (damonctl_rec_writer_finish(w, DAMONCTL_REC_END_COUNT))
		return 1;
	close(fd);
	damonctl_free(ctx);
	return r < 0 || read_back(argv[2]);
}
