// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program of libdamonctl's, through its public header only: it starts the kdamond of
 * CONFIG (a damonc JSON tree) under SYSROOT (damon-emu, set up by fallback-server.sh) with
 * the plan of user-space fallbacks this kernel needs, and serves that plan with a fallback
 * server, round after round, until its goal has been met for 3 rounds or ROUNDS rounds
 * passed. It prints lines the script checks against the workload and the emulator:
 *
 *   plan NR                           the plan's entries
 *   event KIND SCHEME BP TARGET_BP BYTES   each event (KIND: its number in the enum)
 *   stats ROUNDS FEEDS MEASURED_BP GOAL_MET
 *   scheme SCHEME NR_TRIED SZ_TRIED   the kernel-stats-like counters per scheme
 *
 *   fallback-server SYSROOT CONFIG ROUNDS
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* nanosleep, built alone as a library user would */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <damonctl/damonctl.h>

static unsigned int met_rounds;

static void on_event(const struct damonctl_fallback_event *ev, void *arg)
{
	(void)arg;
	printf("event %d %u %llu %llu %llu\n", (int)ev->kind, ev->scheme,
	       (unsigned long long)ev->bp, (unsigned long long)ev->target_bp,
	       (unsigned long long)ev->bytes);
	fflush(stdout);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	if (!f || !buf || fread(buf, 1, (1 << 16) - 1, f) == 0) {
		fprintf(stderr, "%s: cannot read\n", path);
		exit(1);
	}
	fclose(f);
	return buf;
}

static _Noreturn void die(const char *what, int r)
{
	fprintf(stderr, "%s: %s\n", what, strerror(-r));
	exit(1);
}

/* Start the config's kdamond 0 with its plan; its target pids to @pids. */
static struct damonctl_fallbacks *start(struct damonctl_ctx *ctx, const char *config, int *pids,
					unsigned int *nr)
{
	struct damonctl_tree *have, *want;
	struct damonctl_features *f;
	struct damonctl_fallbacks *fbs;
	struct damonctl_context *c;
	unsigned int idx = 0, i;
	char why[512] = "";
	int r;

	r = damonctl_tree_from_json(config, &want, why, sizeof(why));
	if (r) {
		fprintf(stderr, "config: %s\n", why);
		exit(1);
	}
	if ((r = damonctl_tree_read(ctx, &have)) || (r = damonctl_features_detect(ctx, &f)) ||
	    (r = damonctl_fallbacks_new(&fbs)))
		die("reading the tree", r);
	r = damonctl_fallback_plan(ctx, damonctl_tree_kdamond(want, 0), f, true, fbs, why,
				   sizeof(why));
	if (r) {
		fprintf(stderr, "plan: %s\n", why);
		exit(1);
	}
	r = damonctl_tree_start(ctx, want, have, &idx, 1);
	if (r)
		die("start", r);
	c = damonctl_kdamond_context(damonctl_tree_kdamond(want, 0), 0);
	*nr = damonctl_context_nr_targets(c);
	for (i = 0; i < *nr; i++) {
		pids[i] = (int)damonctl_target_get_int(damonctl_context_target(c, i),
						      DAMONCTL_TARGET_PID);
	}
	damonctl_features_free(f);
	damonctl_tree_free(want);
	damonctl_tree_free(have);
	return fbs;
}

int main(int argc, char **argv)
{
	struct damonctl_fallback_server_opts o = { .sz = sizeof(o), .on_event = on_event };
	struct damonctl_fallback_stats st = { .sz = sizeof(st) };
	struct damonctl_fallback_server *srv;
	struct damonctl_fallbacks *fbs;
	char *config;
	struct damonctl_ctx *ctx;
	unsigned int nr = 0, rounds, i;
	int pids[16], r;

	if (argc != 4) {
		fprintf(stderr, "usage: fallback-server SYSROOT CONFIG ROUNDS\n");
		return 2;
	}
	rounds = (unsigned int)atoi(argv[3]);
	if ((r = damonctl_new(&ctx)) || (r = damonctl_set_sysroot(ctx, argv[1])))
		die("context", r);
	config = slurp(argv[2]);
	fbs = start(ctx, config, pids, &nr);
	free(config);
	printf("plan %u\n", damonctl_fallbacks_count(fbs));
	r = damonctl_fallback_server_new(ctx, 0, fbs, pids, nr, &o, &srv);
	if (r)
		die("server", r);
	for (i = 0; i < rounds && met_rounds < 3; i++) {
		uint64_t ms = damonctl_fallback_server_interval_ms(srv);
		struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

		r = damonctl_fallback_server_round(srv);
		if (r)
			fprintf(stderr, "round: step %d: %s\n",
				(int)damonctl_fallback_server_failed_step(srv), strerror(-r));
		damonctl_fallback_server_stats(srv, &st);
		met_rounds = st.goal_met ? met_rounds + 1 : 0;
		nanosleep(&ts, NULL);
	}
	printf("stats %llu %llu %llu %d\n", (unsigned long long)st.rounds,
	       (unsigned long long)st.feeds, (unsigned long long)st.measured_bp, st.goal_met);
	for (i = 0; i < st.nr; i++)
		printf("scheme %u %llu %llu\n", st.s[i].scheme, (unsigned long long)st.s[i].nr_tried,
		       (unsigned long long)st.s[i].sz_tried);
	damonctl_fallback_server_free(srv);
	damonctl_fallbacks_free(fbs);
	damonctl_free(ctx);
	return 0;
}
