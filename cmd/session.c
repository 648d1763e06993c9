// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lines of the shell and of a batch (damonc --batch FILE|-): each runs as `damonc WORDS` in a
 * forked child, so it gets exactly the command line's semantics, output and exit status (the
 * commands keep their options in statics that a fresh process starts clean), and a Ctrl-C
 * ends the line, not the session. A batch stops at the first line that fails (--force: goes
 * on); --atomic checks every line first and, when one fails, puts the DAMON tree and damonc's
 * record of its kdamonds back as they were (through libdamonctl, like every write);
 * --dry-run runs each start and tune line with --dry-run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "damonc.h"
#include "session.h"
#include "started.h"
#include "words.h"

void session_add_global(struct session *s, char *arg)
{
	if (s->nr_global < (int)(sizeof(s->global) / sizeof(s->global[0])))
		s->global[s->nr_global++] = arg;
}

volatile sig_atomic_t session_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	session_sigint = 1;
}

void session_catch_sigint(void)
{
	struct sigaction sa = { .sa_handler = on_sigint };	/* no SA_RESTART */

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

int session_run(const struct session *s, char **words, int n, bool check_only, int in)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_quit;
	char **argv = calloc((size_t)(n + s->nr_global + 2), sizeof(*argv));
	int i, argc = 0, status = 0;
	pid_t pid;

	if (!argv) {
		warnx_("out of memory");
		return EXIT_FAIL;
	}
	argv[argc++] = "damonc";
	for (i = 0; i < s->nr_global; i++)
		argv[argc++] = s->global[i];
	for (i = 0; i < n; i++)
		argv[argc++] = words[i];
	fflush(stdout);
	fflush(stderr);
	/* Ctrl-C and Ctrl-\ go to the line that runs (the terminal's foreground group holds
	 * both processes): the session notes a Ctrl-C (session_sigint) and waits for the line
	 * to end; one that comes before the child has its default action back is raised again
	 * in the child, never lost */
	session_catch_sigint();
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (session_sigint)
			raise(SIGINT);
		if (in >= 0 && in != STDIN_FILENO)
			dup2(in, STDIN_FILENO);
		if (check_only) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null >= 0)
				dup2(null, STDOUT_FILENO);
		}
		/* a line of its own: none of the session's modes (--batch, --atomic, ...) */
		damonc_session = (struct session){ .in_line = true, .check_only = check_only };
		exit(damonc_main(argc, argv));
	}
	if (pid < 0) {
		warnx_("cannot run a line: %s", strerror(errno));
		status = -1;
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGQUIT, &old_quit, NULL);
	free(argv);
	if (status == -1)
		return EXIT_FAIL;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The command word of a line: the first that is no global option (nor --sysroot's value). */
static const char *line_command(char *const *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(v[i], "--sysroot"))
			i++;
		else if (v[i][0] != '-')
			return v[i];
	}
	return "";
}

/* "tune --kdamond 0 ..." for messages. */
static void print_line(FILE *f, char *const *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", v[i]);
}

/* ---- --atomic: what is put back when a line fails ---- */

struct snapshot {
	struct damonctl_ctx *ctx;
	struct damonctl_tree *tree;
	char *started;		/* the record of damonc's kdamonds, NULL when there is none */
	char started_path[4096];
};

static void snapshot_free(struct snapshot *snap)
{
	damonctl_tree_free(snap->tree);
	free(snap->started);
	damonctl_free(snap->ctx);
	memset(snap, 0, sizeof(*snap));
}

static int snapshot_take(struct snapshot *snap, const struct session *s)
{
	int r;

	memset(snap, 0, sizeof(*snap));
	r = damonctl_new(&snap->ctx);
	if (!r && s->sysroot)
		r = damonctl_set_sysroot(snap->ctx, s->sysroot);
	if (!r)
		r = damonctl_path(snap->ctx, DAMONCTL_BASE_RUN, "kdamonds.json", snap->started_path,
				  sizeof(snap->started_path)) < 0 ? -ENAMETOOLONG : 0;
	if (!r)
		r = damonctl_tree_read_flags(snap->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &snap->tree);
	if (!r) {
		r = read_all(snap->started_path, &snap->started);
		if (r == -ENOENT)
			r = 0;
	}
	if (r) {
		char why[512] = "out of memory";

		if (snap->ctx)
			damonctl_strerror(snap->ctx, r, why, sizeof(why));
		warnx_("batch: --atomic: cannot read the state to put back: %s", why);
		snapshot_free(snap);
	}
	return r;
}

static bool is_on(const struct damonctl_kdamond *k)
{
	const char *state = damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE);

	return state && !strcmp(state, "on");
}

/*
 * Put the tree back as it was: kdamonds that run now and ran before get their old
 * configuration committed online, those that run now only are turned off, every staged file
 * is put back (damonctl_tree_restore), and those that ran before only are turned on again
 * (with a new pid, which damonc's record then names). The first error is returned, the
 * rest is still tried.
 */
static int snapshot_restore(struct snapshot *snap)
{
	struct damonctl_ctx *ctx = snap->ctx;
	const struct damonctl_kdamond *k, *was;
	struct damonctl_tree *now;
	unsigned int i, nr_was = damonctl_tree_nr_kdamonds(snap->tree), restarted[64];
	unsigned int nr_restarted = 0;
	int r, first = 0;

	r = damonctl_tree_read_flags(ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &now);
	if (r)
		return r;
	damonctl_for_each_kdamond(now, k, i) {
		was = i < nr_was ? damonctl_tree_kdamond(snap->tree, i) : NULL;
		if (!is_on(k))
			continue;
		if (was && is_on(was))
			r = damonctl_kdamond_commit(ctx, was, k, 0, NULL);
		else
			r = damonctl_kdamond_cmd(ctx, i, DAMONCTL_CMD_OFF);
		if (r && !first)
			first = r;
	}
	r = damonctl_tree_restore(ctx, snap->tree);
	if (r && !first)
		first = r;
	damonctl_for_each_kdamond(snap->tree, was, i) {
		k = i < damonctl_tree_nr_kdamonds(now) ? damonctl_tree_kdamond(now, i) : NULL;
		if (!is_on(was) || (k && is_on(k)))
			continue;
		r = damonctl_kdamond_cmd(ctx, i, DAMONCTL_CMD_ON);
		if (r && !first)
			first = r;
		if (!r && nr_restarted < sizeof(restarted) / sizeof(restarted[0]))
			restarted[nr_restarted++] = i;
	}
	damonctl_tree_free(now);

	/* damonc's record as it was, with the new pid of a kdamond turned on again */
	if (snap->started)
		r = write_file_atomic(snap->started_path, snap->started, strlen(snap->started), 0);
	else
		r = unlink(snap->started_path) && errno != ENOENT ? -errno : 0;
	if (r && !first)
		first = r;
	if (nr_restarted) {
		struct started st;
		int lock = started_lock(ctx);

		r = started_load(ctx, &st);
		for (i = 0; !r && i < nr_restarted; i++) {
			struct started_entry *e = started_find(&st, restarted[i]);
			int pid;

			if (e && damonctl_kdamond_is_running(ctx, restarted[i], &pid) == 1)
				e->pid = pid;
		}
		if (!r)
			r = started_save(ctx, &st);
		started_free(&st);
		started_unlock(lock);
		if (r && !first)
			first = r;
	}
	return first;
}

/* ---- the lines ---- */

/* What a dry run does with a command's line. */
enum dry { DRY_FLAG, DRY_AS_IS, DRY_SKIP };

static enum dry dry_for(const char *cmd)
{
	static const char *const with_flag[] = { "start", "tune" };
	static const char *const reading[] = { "status", "features", "report", "metrics", "help" };
	unsigned int i;

	for (i = 0; i < sizeof(with_flag) / sizeof(with_flag[0]); i++)
		if (!strcmp(cmd, with_flag[i]))
			return DRY_FLAG;
	for (i = 0; i < sizeof(reading) / sizeof(reading[0]); i++)
		if (!strcmp(cmd, reading[i]))
			return DRY_AS_IS;
	return DRY_SKIP;	/* stop, agent, record: they act, and have no dry run */
}

/* Run line @no (@w) of a batch; its status. */
static int run_line(const struct session *s, unsigned int no, struct words *w, int in)
{
	const char *cmd = line_command(w->v, w->n);
	char **v;
	int i, r, at = -1;

	if (!s->dry_run)
		return session_run(s, w->v, w->n, false, in);
	switch (dry_for(cmd)) {
	case DRY_AS_IS:
		return session_run(s, w->v, w->n, false, in);
	case DRY_SKIP:
		printf("line %u: %s: not run in a dry run\n", no, cmd);
		return EXIT_OK;
	case DRY_FLAG:
		break;
	}
	/* --dry-run right after the command word, before anything it passes on */
	v = calloc((size_t)w->n + 2, sizeof(*v));
	if (!v)
		return EXIT_FAIL;
	for (i = 0; i < w->n; i++) {
		v[i + (at >= 0)] = w->v[i];
		if (at < 0 && w->v[i] == cmd) {
			at = i + 1;
			v[at] = "--dry-run";
		}
	}
	printf("line %u: ", no);
	print_line(stdout, w->v, w->n);
	putchar('\n');
	r = session_run(s, v, w->n + 1, false, in);
	free(v);
	return r;
}

struct batch {
	struct words *lines;
	unsigned int *no;
	unsigned int nr;
};

static void batch_free(struct batch *b)
{
	unsigned int i;

	for (i = 0; i < b->nr; i++)
		words_free(&b->lines[i]);
	free(b->lines);
	free(b->no);
}

/* Read line @no of @in into @w (empty lines and comments give no words); 1 at the end, 0, or
 * an exit code as -code. */
static int read_line(FILE *in, unsigned int no, struct words *w)
{
	static char *buf;
	static size_t cap;
	const char *why = "";
	int r;

	if (getline(&buf, &cap, in) < 0) {
		free(buf);
		buf = NULL;
		cap = 0;
		return 1;
	}
	r = words_split(buf, false, w, &why);
	if (r == -ENOMEM) {
		warnx_("batch: out of memory");
		return -EXIT_FAIL;
	}
	if (r) {
		warnx_("batch: line %u: %s", no, why);
		return -EXIT_USAGE;
	}
	return 0;
}

/* The status a failed line leaves: its own, after saying which line it was. */
static int line_failed(unsigned int no, const struct words *w, int status)
{
	fprintf(stderr, "damonc: batch: line %u: ", no);
	print_line(stderr, w->v, w->n);
	if (status > 128)
		fprintf(stderr, ": ended by signal %d\n", status - 128);
	else
		fprintf(stderr, ": exit status %d\n", status);
	return status;
}

/* A line's status, or that of a Ctrl-C when one came while it ran (a --watch stopped by it
 * exits 0, but a batch that was interrupted did not finish). */
static int interrupted(int status)
{
	return !status && session_sigint ? 128 + SIGINT : status;
}

/* One line at a time as it comes (a pipe may be fed as results arrive). */
static int batch_stream(const struct session *s, FILE *in, int child_in)
{
	struct words w;
	unsigned int no;
	int r, status = EXIT_OK;

	for (no = 1;; no++) {
		r = read_line(in, no, &w);
		if (r == 1)
			break;
		if (r < 0) {
			if (!s->force || r != -EXIT_USAGE)
				return -r;
			status = status ? status : -r;
			continue;
		}
		if (w.n) {
			r = interrupted(run_line(s, no, &w, child_in));
			if (r) {
				line_failed(no, &w, r);
				status = status ? status : r;
			}
		}
		words_free(&w);
		if ((status && !s->force) || session_sigint)
			break;
	}
	return status;
}

/* --atomic: every line read and checked first, the state saved, then the lines run. */
static int batch_atomic(const struct session *s, FILE *in, int child_in)
{
	struct batch b = { 0 };
	struct snapshot snap;
	unsigned int no, i;
	int r, status = EXIT_OK;

	for (no = 1;; no++) {
		struct words w;

		r = read_line(in, no, &w);
		if (r == 1)
			break;
		if (r < 0) {
			batch_free(&b);
			fprintf(stderr, "damonc: batch: nothing was run\n");
			return -r;
		}
		if (!w.n) {
			words_free(&w);
			continue;
		}
		if (!(b.nr % 16)) {
			struct words *l = realloc(b.lines, (b.nr + 16) * sizeof(*l));
			unsigned int *n = l ? realloc(b.no, (b.nr + 16) * sizeof(*n)) : NULL;

			if (l)
				b.lines = l;
			if (n)
				b.no = n;
			if (!l || !n) {
				words_free(&w);
				batch_free(&b);
				warnx_("batch: out of memory");
				return EXIT_FAIL;
			}
		}
		b.lines[b.nr] = w;
		b.no[b.nr++] = no;
	}
	for (i = 0; i < b.nr; i++) {
		r = session_run(s, b.lines[i].v, b.lines[i].n, true, child_in);
		if (r) {
			line_failed(b.no[i], &b.lines[i], r);
			fprintf(stderr, "damonc: batch: nothing was run\n");
			batch_free(&b);
			return r;
		}
	}
	if (!s->dry_run && snapshot_take(&snap, s)) {
		batch_free(&b);
		return EXIT_FAIL;
	}
	for (i = 0; i < b.nr && !status; i++) {
		r = interrupted(run_line(s, b.no[i], &b.lines[i], child_in));
		if (r)
			status = line_failed(b.no[i], &b.lines[i], r);
	}
	if (status && !s->dry_run) {
		fprintf(stderr, "damonc: batch: --atomic: putting back the DAMON tree and damonc's "
			"kdamonds as they were before line %u\n", b.no[0]);
		r = snapshot_restore(&snap);
		if (r) {
			char why[512];

			damonctl_strerror(snap.ctx, r, why, sizeof(why));
			warnx_("batch: --atomic: could not put everything back: %s", why);
		}
	}
	if (!s->dry_run)
		snapshot_free(&snap);
	batch_free(&b);
	return status;
}

int session_batch(const struct session *s, FILE *in)
{
	/* the lines never read the batch: stdin may be the batch itself */
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC), r;

	/* Unbuffered: the file offset the children share stays at the end of the line read,
	 * since exit() in a child moves it back to where that child's copy of @in stood
	 * (read ahead by a buffer, the batch would be read again from there). */
	setvbuf(in, NULL, _IONBF, 0);
	/* a Ctrl-C ends the line that runs and then the batch (--atomic: after its rollback) */
	session_sigint = 0;
	session_catch_sigint();
	if (s->atomic)
		r = batch_atomic(s, in, null);
	else
		r = batch_stream(s, in, null);
	if (null >= 0)
		close(null);
	return r;
}

int batch_main(struct session *s)
{
	FILE *in = strcmp(s->batch, "-") ? fopen(s->batch, "re") : stdin;
	int r;

	if (!in) {
		warnx_("--batch '%s': %s", s->batch, strerror(errno));
		return EXIT_USAGE;
	}
	r = session_batch(s, in);
	if (in != stdin)
		fclose(in);
	return r;
}
