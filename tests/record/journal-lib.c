// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libdamonctl's journal through its public header only, on damon-emu (emu-journal-lib.sh):
 *
 *   journal-lib SYSROOT STATE_DIR kill       a commit of kdamond 0 (quota_sz of scheme 0 set
 *                                            to 4242) under a journal, the process killed
 *                                            (SIGKILL) at its first sysfs write
 *   journal-lib SYSROOT STATE_DIR commit     the same commit, left to end: prints "commit R
 *                                            FILES" (its return, and the journal files left)
 *   journal-lib SYSROOT STATE_DIR recover    prints, per leftover, "leftover STATE COMMAND
 *                                            KIND KDAMONDS... kept=JSON", then undoes each
 *                                            record: "undo R", and removes it: "removed R"
 *   journal-lib SYSROOT STATE_DIR keep       damonctl_journal_keep's refusals: "keep R" each
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <damonctl/damonctl.h>

static void die_on_write(void *data, enum damonctl_log_level level, const char *msg)
{
	(void)data;
	if (level == DAMONCTL_LOG_DEBUG && !strncmp(msg, "write ", 6))
		raise(SIGKILL);
}

static unsigned int journal_files(const char *dir)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, "journal-", 8);
	if (d)
		closedir(d);
	return n;
}

static int commit(struct damonctl_ctx *ctx, const char *state, bool die)
{
	struct damonctl_journal_opts o = DAMONCTL_JOURNAL_OPTS_INIT;
	struct damonctl_kdamond *have = NULL, *want;
	struct damonctl_journal *j;
	int r;

	o.state_dir = state;
	o.command = "journal-lib";
	if ((r = damonctl_journal_open(ctx, &o, &j)) ||
	    (r = damonctl_journal_keep(j, "note", "{\"why\": \"a test\"}")) ||
	    (r = damonctl_kdamond_read(ctx, 0, &have)))
		return r;
	want = damonctl_kdamond_dup(have);
	if (!want)
		return -ENOMEM;
	r = damonctl_scheme_set(damonctl_context_scheme(damonctl_kdamond_context(want, 0), 0),
				DAMONCTL_SCHEME_QUOTA_BYTES, 4242);
	if (die)
		damonctl_set_log(ctx, die_on_write, NULL, DAMONCTL_LOG_DEBUG);
	if (!r)
		r = damonctl_kdamond_commit(ctx, want, have, DAMONCTL_COMMIT_F_FULL, NULL);
	damonctl_journal_close(j);
	damonctl_kdamond_free(want);
	damonctl_kdamond_free(have);
	return r;
}

static void recover(struct damonctl_ctx *ctx, const char *state)
{
	struct damonctl_leftovers *l;
	char what[512];
	unsigned int i, k;
	int r = damonctl_leftovers_read(state, &l);

	if (r) {
		printf("read %d\n", r);
		return;
	}
	for (i = 0; i < damonctl_leftovers_count(l); i++) {
		const char *kept = damonctl_leftover_kept(l, i, "note");

		printf("leftover %d %s %s", (int)damonctl_leftover_state(l, i),
		       damonctl_leftover_command(l, i), damonctl_leftover_kind(l, i));
		for (k = 0; k < damonctl_leftover_nr_kdamonds(l, i); k++)
			printf(" %u", damonctl_leftover_kdamond(l, i, k));
		printf(" kept=%s\n", kept ? kept : "none");
		printf("undo %d\n", damonctl_leftover_undo(ctx, l, i, what, sizeof(what)));
		printf("removed %d\n", damonctl_leftover_remove(l, i));
	}
	damonctl_leftovers_free(l);
}

static void keep(struct damonctl_ctx *ctx, const char *state)
{
	struct damonctl_journal_opts o = DAMONCTL_JOURNAL_OPTS_INIT, bad = { 0 };
	struct damonctl_journal *j;

	printf("open %d\n", damonctl_journal_open(ctx, &bad, &j));
	o.state_dir = state;
	if (damonctl_journal_open(ctx, &o, &j))
		return;
	printf("keep %d\n", damonctl_journal_keep(j, "record", "1"));
	printf("keep %d\n", damonctl_journal_keep(j, "x", "{not json"));
	printf("keep %d\n", damonctl_journal_keep(j, "x", "[1, 2]"));
	damonctl_journal_close(j);
}

int main(int argc, char **argv)
{
	struct damonctl_ctx *ctx;
	int r;

	if (argc != 4 || damonctl_new(&ctx) || damonctl_set_sysroot(ctx, argv[1]))
		return 2;
	if (!strcmp(argv[3], "kill") || !strcmp(argv[3], "commit")) {
		r = commit(ctx, argv[2], !strcmp(argv[3], "kill"));
		printf("commit %d %u\n", r, journal_files(argv[2]));
	} else if (!strcmp(argv[3], "recover")) {
		recover(ctx, argv[2]);
	} else if (!strcmp(argv[3], "keep")) {
		keep(ctx, argv[2]);
	}
	damonctl_free(ctx);
	return 0;
}
