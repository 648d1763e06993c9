// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program of libdamonctl's, through its public header only: a live capture of kdamond 0
 * under SYSROOT (damon-emu, set up by emu-capture-lib.sh), printed as lines the script
 * checks against the workload and the emulator:
 *
 *   refuse METHOD ERRNO LAST     a refused open: its -errno and whether a last error is set
 *   method NAME                  what DAMONCTL_CAPTURE_AUTO takes here
 *   item config|footprint        the items, in order
 *   item stats SCHEME ACTION HAS a scheme's stats: its index, action and which were read
 *   snap TARGET NR TOTAL         a snapshot: its target, regions and their total bytes
 *   region START END NR_ACCESSES one line per region of each snapshot
 *   note 0|1                     whether the guard note was in STATE_DIR while capturing
 *   end REASON CLOSE             the end reason's name, and damonctl_capture_close's return
 *
 *   capture-lib SYSROOT STATE_DIR MODE      MODE: refuse (the refusals only), count (3
 *                                           snapshots) or signal (SIGINT after the first)
 *
 * Built with DAMONCTL_OLD_ABI, it is a program of 0.3's: its items are 0.3's struct, taken
 * through damonctl_capture_next's 0.3 version (tests/unit/old-abi.h), and print the same.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sigaction, built alone as a library user would */
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <damonctl/damonctl.h>

#ifdef DAMONCTL_OLD_ABI
#include "old-abi.h"
typedef struct old_rec_item item_t;
typedef struct old_rec_snapshot snapshot_t;
#define ITEM_INIT { 0 }
#define SNAPSHOT_OF(it) (&(it)->snapshot)
#define STATS_OF(it) (&(it)->stats)
#define capture_next old_capture_next
#else
typedef struct damonctl_rec_item item_t;
typedef struct damonctl_rec_snapshot snapshot_t;
#define ITEM_INIT DAMONCTL_REC_ITEM_INIT
#define SNAPSHOT_OF(it) ((it)->snapshot)
#define STATS_OF(it) ((it)->stats)
#define capture_next damonctl_capture_next
#endif

static struct damonctl_capture *volatile cap;

static void on_sigint(int sig)
{
	(void)sig;
	damonctl_capture_request_end(cap, DAMONCTL_REC_END_SIGNAL);
}

static void refuse(struct damonctl_ctx *ctx, enum damonctl_capture_method m, bool allow)
{
	struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
	struct damonctl_capture *c = NULL;
	struct damonctl_error e;
	int r;

	o.method = m;
	o.allow_foreign = allow;
	r = damonctl_capture_open(ctx, 0, &o, &c);
	printf("refuse %d %d %d\n", (int)m, r, damonctl_last_error(ctx, &e) ? 1 : 0);
	damonctl_capture_close(c);
}

static void print_item(const item_t *it)
{
	const snapshot_t *s = SNAPSHOT_OF(it);

	switch (it->type) {
	case DAMONCTL_REC_CONFIG:
		printf("item config\n");
		break;
	case DAMONCTL_REC_FOOTPRINT:
		printf("item footprint\n");
		break;
	case DAMONCTL_REC_STATS:
		printf("item stats %u %s %u\n", (unsigned int)STATS_OF(it)->scheme,
		       STATS_OF(it)->action, (unsigned int)STATS_OF(it)->has);
		break;
	case DAMONCTL_REC_SNAPSHOT:
		printf("snap %d %u %llu\n", (int)s->target, (unsigned int)s->nr_regions,
		       (unsigned long long)s->total_bytes);
		for (uint32_t i = 0; i < s->nr_regions; i++)
			printf("region %llu %llu %u\n", (unsigned long long)s->regions[i].start,
			       (unsigned long long)s->regions[i].end,
			       (unsigned int)s->regions[i].nr_accesses);
		break;
	default:
		printf("item other\n");
	}
}

int main(int argc, char **argv)
{
	struct damonctl_capture_opts o = DAMONCTL_CAPTURE_OPTS_INIT;
	struct sigaction sa = { .sa_handler = on_sigint };
	struct damonctl_capture *c;
	item_t it = ITEM_INIT;
	struct damonctl_ctx *ctx;
	char note[4096];
	bool sig;
	int r, noted = 0;

	if (argc != 4)
		return 2;
	sig = !strcmp(argv[3], "signal");
	if (damonctl_new(&ctx) || damonctl_set_sysroot(ctx, argv[1]))
		return 1;
	if (!strcmp(argv[3], "refuse")) {
		refuse(ctx, DAMONCTL_CAPTURE_TRIED_REGIONS, false);
		refuse(ctx, DAMONCTL_CAPTURE_TRACE, true);
		damonctl_free(ctx);
		return 0;
	}
	printf("method %s\n", damonctl_capture_method_for(ctx, DAMONCTL_CAPTURE_AUTO) ==
	       DAMONCTL_CAPTURE_TRACE ? "trace" : "tried-regions");
	o.method = DAMONCTL_CAPTURE_AUTO;
	o.interval_us = 100000;
	o.count = sig ? 0 : 3;
	o.allow_foreign = true;
	o.state_dir = argv[2];
	r = damonctl_capture_open(ctx, 0, &o, &c);
	if (r) {
		char why[512];

		damonctl_strerror(ctx, r, why, sizeof(why));
		fprintf(stderr, "capture-lib: open: %s\n", why);
		return 1;
	}
	cap = c;
	sigaction(SIGINT, &sa, NULL);
	snprintf(note, sizeof(note), "%s/capture-0.json", argv[2]);
	while ((r = capture_next(c, &it)) == 1) {
		print_item(&it);
		noted |= access(note, F_OK) == 0;
		if (sig && it.type == DAMONCTL_REC_SNAPSHOT)
			raise(SIGINT);
	}
	if (r < 0)
		fprintf(stderr, "capture-lib: next: %s\n", strerror(-r));
	printf("note %d\n", noted);
	printf("end %s ", damonctl_rec_end_reason_name(damonctl_capture_end_reason(c)));
	cap = NULL;
	printf("%d\n", damonctl_capture_close(c));
	damonctl_free(ctx);
	return r < 0;
}
