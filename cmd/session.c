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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "damonc.h"
#include "journal.h"
#include "lines.h"
#include "session.h"
#include "started.h"
#include "words.h"

void session_add_global(struct session *s, char *arg)
{
	if (s->nr_global < (int)(sizeof(s->global) / sizeof(s->global[0])))
		s->global[s->nr_global++] = arg;
}

volatile sig_atomic_t session_sigint;
static volatile sig_atomic_t line_pid;	/* the line that runs, or 0 */

/* A signal sent to the session alone (kill: SI_USER) goes to the line that runs too; one
 * from the terminal (SI_KERNEL: Ctrl-C, Ctrl-\, a hangup) reached the line already. */
static void pass_on(int sig, const siginfo_t *si)
{
	if (line_pid > 0 && si && si->si_code != SI_KERNEL)
		kill((pid_t)line_pid, sig);
}

static void on_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	session_sigint = 1;
	pass_on(sig, si);
}

void session_catch_sigint(void)
{
	/* no SA_RESTART */
	struct sigaction sa = { .sa_sigaction = on_sigint, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

/* Signals that would end a batch other than a Ctrl-C (session_sigint): noted, passed on to
 * the line that runs, and the batch ends after it, its staging directory removed, and dies
 * of the signal. The line's child takes their default actions back. */
static const int ending_signals[] = { SIGHUP, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
				      SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };
volatile sig_atomic_t session_ended;

static void on_ending(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	session_ended = sig;
	pass_on(sig, si);
}

static void catch_ending(void)
{
	/* no SA_RESTART */
	struct sigaction sa = { .sa_sigaction = on_ending, .sa_flags = SA_SIGINFO };
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		sigaction(ending_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a reader gone: the writes that fail say so */
}

static void default_signals(void)
{
	unsigned int i;

	signal(SIGINT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	for (i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		signal(ending_signals[i], SIG_DFL);
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
		default_signals();
		/* the line's output is judged by its own writes: the session's streams may carry
		 * an error of theirs (a prompt's write to the terminal cut short by a Ctrl-C,
		 * no SA_RESTART), which a line would report as its own failure */
		clearerr(stdout);
		clearerr(stderr);
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
		damonc_session = (struct session){ .in_line = true, .check_only = check_only,
						   .staging = s->staging };
		exit(damonc_main(argc, argv));
	}
	if (pid < 0) {
		warnx_("cannot run a line: %s", strerror(errno));
		status = -1;
	}
	line_pid = pid;
	/* one that came before the line's pid was known (the child raises one from before its
	 * fork itself) */
	if (pid > 0 && session_ended)
		kill(pid, (int)session_ended);
	else if (pid > 0 && session_sigint)
		kill(pid, SIGINT);
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	line_pid = 0;
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

/* The commands an --atomic batch keeps in memory, each run twice (checked, staged) */
#define ATOMIC_MAX_LINES 10000u

struct batch {
	struct words *lines;
	unsigned int *no;
	unsigned int nr;
};

/* Line @no (@w, taken) kept in @b, unless empty: 0, or an exit code after saying why. */
static int batch_keep(struct batch *b, struct words *w, unsigned int no)
{
	if (!w->n) {
		words_free(w);
		return 0;
	}
	if (b->nr == ATOMIC_MAX_LINES) {
		words_free(w);
		warnx_("batch: line %u: an --atomic batch holds at most %u commands (each is "
		       "checked, then staged, before the commit)", no, ATOMIC_MAX_LINES);
		return EXIT_USAGE;
	}
	if (!(b->nr % 16)) {
		struct words *l = realloc(b->lines, (b->nr + 16) * sizeof(*l));
		unsigned int *n = l ? realloc(b->no, (b->nr + 16) * sizeof(*n)) : NULL;

		if (l)
			b->lines = l;
		if (n)
			b->no = n;
		if (!l || !n) {
			words_free(w);
			warnx_("batch: out of memory");
			return EXIT_FAIL;
		}
	}
	b->lines[b->nr] = *w;
	b->no[b->nr++] = no;
	return 0;
}

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
	long n = lines_read(in, LINE_MAX_BYTES, &buf, &cap);
	int r;

	memset(w, 0, sizeof(*w));
	if (n <= 0) {
		free(buf);
		buf = NULL;
		cap = 0;
	}
	switch (n) {
	case 0:
		return 1;
	case -ENOMEM:
		warnx_("batch: out of memory");
		return -EXIT_FAIL;
	case -EFBIG:
		warnx_("batch: line %u: longer than %u KiB, more than any damonc command line",
		       no, LINE_MAX_BYTES >> 10);
		return -EXIT_USAGE;
	case -EILSEQ:
		warnx_("batch: line %u: holds a NUL byte (text has none; the line would end "
		       "there)", no);
		return -EXIT_USAGE;
	default:
		if (n < 0) {
			warnx_("batch: reading line %u: %s", no, strerror((int)-n));
			return -EXIT_FAIL;
		}
	}
	r = lines_words(buf, w, &why);
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
		if ((status && !s->force) || session_sigint || session_ended)
			break;
	}
	return status;
}

/* ---- --atomic: the lines staged into one model, committed once ---- */

bool session_stages(const char *cmd)
{
	return !strcmp(cmd, "start") || !strcmp(cmd, "tune") || !strcmp(cmd, "stop");
}

/* The model's directory: the staged tree (libdamonctl's staging file) and damonc's record of
 * its kdamonds as the lines leave it. */
struct staging {
	char dir[4096], tree[4200], started[4200];
};

/* Directory @name of @dirfd and the files in it, when it is a staging directory of ours
 * (0700, this user's: what mkdtemp made); nothing is followed. */
static void staging_remove_at(int at, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

static void staging_remove(struct staging *st)
{
	if (!st->dir[0])
		return;
	staging_remove_at(AT_FDCWD, st->dir);
	st->dir[0] = '\0';
}

/* The staging directories that batches killed by SIGKILL left in @tmp (no handler runs
 * then): damonc-batch-PID-STARTTIME-XXXXXX whose process is gone. */
static void staging_reap(const char *tmp)
{
	struct dirent *de;
	DIR *d = opendir(tmp);

	while (d && (de = readdir(d))) {
		unsigned long long start;
		int pid;

		if (sscanf(de->d_name, "damonc-batch-%d-%llu-", &pid, &start) == 2 &&
		    pid > 0 && !damonctl_proc_same(pid, start))
			staging_remove_at(dirfd(d), de->d_name);
	}
	if (d)
		closedir(d);
}

static int staging_make(struct staging *st, struct damonctl_ctx *ctx)
{
	const char *tmp = getenv("TMPDIR");
	struct started rec;
	int r;

	tmp = tmp && *tmp ? tmp : "/tmp";
	staging_reap(tmp);
	snprintf(st->dir, sizeof(st->dir), "%s/damonc-batch-%d-%llu-XXXXXX", tmp, (int)getpid(),
		 damonctl_proc_start_time((int)getpid()));
	if (!mkdtemp(st->dir)) {
		r = -errno;
		st->dir[0] = '\0';
		return r;
	}
	snprintf(st->tree, sizeof(st->tree), "%s/tree.json", st->dir);
	snprintf(st->started, sizeof(st->started), "%s/kdamonds.json", st->dir);
	r = damonctl_staging_begin(ctx, st->tree);
	if (!r)
		r = started_load(ctx, &rec);
	if (!r) {
		started_use_file(st->started);
		r = started_save(ctx, &rec);
		started_use_file(NULL);
		started_free(&rec);
	}
	if (r)
		staging_remove(st);
	return r;
}

static bool is_on(const struct damonctl_kdamond *k)
{
	return k && !strcmp(damonctl_kdamond_get_str(k, DAMONCTL_KDAMOND_STATE), "on");
}

static struct damonctl_kdamond *kdamond_at(const struct damonctl_tree *t, unsigned int i)
{
	return i < damonctl_tree_nr_kdamonds(t) ? damonctl_tree_kdamond(t, i) : NULL;
}

static int any_diff(void *data, const char *path, const char *old, const char *new)
{
	(void)data;
	(void)path;
	(void)old;
	(void)new;
	return 1;
}

/* What the commit does (did) to kdamond @i: "on", "off", "commit" or NULL (nothing). */
static const char *kdamond_change(const struct damonctl_tree *before,
				  const struct damonctl_tree *after, unsigned int i)
{
	const struct damonctl_kdamond *b = kdamond_at(before, i), *a = kdamond_at(after, i);

	if (is_on(a) != is_on(b))
		return is_on(a) ? "on" : "off";
	if (!b || (a && damonctl_kdamond_diff(b, a, 0, any_diff, NULL)))
		return is_on(a) ? "commit" : "staged";
	return NULL;
}

/* What the commit does (did) to each kdamond, as JSON: index, change, pid when running. */
static json_object *changes_json(const struct damonctl_tree *before,
				 const struct damonctl_tree *after)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < damonctl_tree_nr_kdamonds(after) || i < damonctl_tree_nr_kdamonds(before);
	     i++) {
		const char *what = kdamond_change(before, after, i);
		const struct damonctl_kdamond *k = kdamond_at(after, i);
		json_object *o;

		if (!what)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_int((int)i));
		json_object_object_add(o, "change", json_object_new_string(what));
		if (is_on(k))
			json_object_object_add(o, "pid", json_object_new_int64(
				damonctl_kdamond_get_int(k, DAMONCTL_KDAMOND_PID)));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* --dry-run: the writes the commit would make, then what each kdamond would do. */
static int print_commit_plan(struct cli *cli, const struct staging *st)
{
	struct damonctl_tree *now = NULL, *staged = NULL;
	struct damonctl_plan *plan = NULL;
	unsigned int i, n;
	size_t w;
	int r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &now);

	if (!r)
		r = damonctl_staging_read(st->tree, &staged);
	if (!r)
		r = damonctl_tree_plan(cli->ctx, staged, now, &plan);
	if (r) {
		r = lib_error(cli, r, "--atomic: planning the commit");
		goto out;
	}
	if (cli->json) {
		json_object *doc = json_doc_new(), *b = json_object_new_object();
		json_object *ws = json_object_new_array();

		json_object_object_add(doc, "batch", b);
		json_object_object_add(b, "dry_run", json_object_new_boolean(true));
		for (w = 0; w < damonctl_plan_nr_writes(plan); w++) {
			json_object *o = json_object_new_object();
			const char *path, *value;

			damonctl_plan_write(plan, w, &path, &value);
			json_object_object_add(o, "path", json_object_new_string(path));
			json_object_object_add(o, "value", json_object_new_string(value));
			json_object_array_add(ws, o);
		}
		json_object_object_add(b, "writes", ws);
		json_object_object_add(b, "kdamonds", changes_json(now, staged));
		json_doc_print(doc);
		goto out;
	}
	printf("batch: the commit would write:\n");
	for (w = 0; w < damonctl_plan_nr_writes(plan); w++) {
		const char *path, *value;

		damonctl_plan_write(plan, w, &path, &value);
		printf("  %s <= %s\n", path, value);
	}
	n = damonctl_tree_nr_kdamonds(staged);
	for (i = 0; i < n || i < damonctl_tree_nr_kdamonds(now); i++) {
		const char *what = kdamond_change(now, staged, i);

		if (what)
			printf("  kdamond %u: %s\n", i, what);
	}
out:
	damonctl_plan_free(plan);
	damonctl_tree_free(staged);
	damonctl_tree_free(now);
	return r;
}

/* A commit that failed turned the kdamonds that ran before on again, with new pids: damonc's
 * record follows those it named. */
static void record_follows(struct cli *cli, const struct damonctl_tree *before)
{
	struct started rec;
	unsigned int i;

	if (started_load(cli->ctx, &rec))
		return;
	for (i = 0; i < rec.nr; i++) {
		const struct damonctl_kdamond *b = kdamond_at(before, rec.e[i].kdamond);
		int pid;

		if (is_on(b) && damonctl_kdamond_get_int(b, DAMONCTL_KDAMOND_PID) == rec.e[i].pid &&
		    damonctl_kdamond_is_running(cli->ctx, rec.e[i].kdamond, &pid) == 1)
			rec.e[i].pid = pid;
	}
	started_save(cli->ctx, &rec);
	started_free(&rec);
}

/* Commit the staged model; damonc's record becomes the staged one, with the pids of the
 * kdamonds that run now. */
static int commit_staged(struct cli *cli, const struct staging *st)
{
	struct damonctl_tree *before = NULL, *after = NULL;
	struct started rec = { 0 };
	bool agent = false;
	unsigned int i;
	int r, lock = started_lock(cli->ctx), ret = EXIT_OK;

	if (lock < 0)
		return started_lock_error(cli, lock);
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &before);
	if (!r)
		r = damonctl_staging_commit(cli->ctx, st->tree);
	if (r == -ESTALE) {
		warnx_("batch: --atomic: another program added or removed kdamonds while the batch "
		       "was staged, so its kdamond indexes may name others now: nothing of the "
		       "batch was committed");
		ret = EXIT_BUSY;
		goto out;
	}
	if (r) {
		ret = lib_error(cli, r, "--atomic: committing the batch (nothing of it is left)");
		if (before)
			record_follows(cli, before);
		goto out;
	}
	started_use_file(st->started);
	r = started_load(cli->ctx, &rec);
	started_use_file(NULL);
	for (i = 0; !r && i < rec.nr; i++) {
		int pid;

		if (damonctl_kdamond_is_running(cli->ctx, rec.e[i].kdamond, &pid) == 1)
			rec.e[i].pid = pid;
		agent |= rec.e[i].fbs.nr || rec.e[i].follow_children;
	}
	/* the commit may have written nr_kdamonds: every kdamond directory is new */
	started_rebind(cli->ctx, &rec);
	if (!r)
		r = started_save(cli->ctx, &rec);
	if (r)
		warnx_("batch: cannot record the started kdamonds (%s): 'damonc stop' will need "
		       "--kdamond N", strerror(-r));
	r = damonctl_tree_read_flags(cli->ctx, DAMONCTL_READ_NO_TRIED_REGIONS, &after);
	if (!r && cli->json) {
		json_object *doc = json_doc_new(), *b = json_object_new_object();

		json_object_object_add(doc, "batch", b);
		json_object_object_add(b, "dry_run", json_object_new_boolean(false));
		json_object_object_add(b, "kdamonds", changes_json(before, after));
		json_doc_print(doc);
	}
	for (i = 0; !r && !cli->json && (i < damonctl_tree_nr_kdamonds(after) ||
			   i < damonctl_tree_nr_kdamonds(before)); i++) {
		const char *what = kdamond_change(before, after, i);

		if (!what)
			continue;
		printf("batch: kdamond %u: %s", i, what);
		if (!strcmp(what, "on"))
			printf(" (pid %lld)", (long long)damonctl_kdamond_get_int(
				damonctl_tree_kdamond(after, i), DAMONCTL_KDAMOND_PID));
		putchar('\n');
	}
	started_unlock(lock);
	lock = -1;
	if (agent) {
		r = agent_ensure_running(cli);
		if (r)
			warnx_("batch: what the batch started needs the damonc agent, and it could "
			       "not be started (%s)", strerror(-r));
	}
out:
	started_free(&rec);
	started_unlock(lock);
	damonctl_tree_free(after);
	damonctl_tree_free(before);
	return ret;
}

/* --atomic: every line read and checked first; then run, start, tune and stop staged into
 * one model (lines that read see the kernel as it is); then the model committed, once per
 * kdamond, or with --dry-run its writes printed. */
static int batch_atomic(const struct session *s, FILE *in, int child_in)
{
	struct batch b = { 0 };
	struct session staged = *s;
	struct staging st = { 0 };
	struct cli cli = { .cmd_name = "batch", .sysroot = s->sysroot, .json = s->json };
	unsigned int no, i;
	int r, status = EXIT_OK;

	for (no = 1;; no++) {
		struct words w;

		r = read_line(in, no, &w);
		if (r == 1)
			break;
		r = r < 0 ? -r : batch_keep(&b, &w, no);
		if (r) {
			batch_free(&b);
			fprintf(stderr, "damonc: batch: nothing was run\n");
			return r;
		}
	}
	for (i = 0; i < b.nr && !status && !session_ended; i++) {
		const char *cmd = line_command(b.lines[i].v, b.lines[i].n);

		status = session_run(s, b.lines[i].v, b.lines[i].n, true, child_in);
		if (status) {
			line_failed(b.no[i], &b.lines[i], status);
		} else if (!session_stages(cmd) && dry_for(cmd) != DRY_AS_IS) {
			warnx_("batch: line %u: %s: an --atomic batch holds start, tune and stop "
			       "lines, which it commits as one, and lines that only read (status, "
			       "features, report, metrics, help)", b.no[i], cmd);
			status = EXIT_USAGE;
		}
	}
	if (status) {
		fprintf(stderr, "damonc: batch: nothing was run\n");
		batch_free(&b);
		return status;
	}

	r = damonctl_new(&cli.ctx);
	if (!r && s->sysroot)
		r = damonctl_set_sysroot(cli.ctx, s->sysroot);
	if (!r) {
		journal_attach(&cli);
		/* what a killed damonc left goes first: the model starts from a clean tree */
		if (!s->dry_run)
			recover_leftovers(&cli);
		r = staging_make(&st, cli.ctx);
	}
	if (r) {
		status = cli.ctx ? lib_error(&cli, r, "--atomic: saving the tree to stage on") :
			 EXIT_FAIL;
		goto out;
	}
	staged.staging = st.dir;
	for (i = 0; i < b.nr && !status && !session_ended; i++) {
		r = interrupted(session_run(&staged, b.lines[i].v, b.lines[i].n, false, child_in));
		if (r)
			status = line_failed(b.no[i], &b.lines[i], r);
	}
	if (!status && session_ended)
		status = 128 + (int)session_ended;
	if (status)
		fprintf(stderr, "damonc: batch: --atomic: nothing of the batch was committed\n");
	else if (s->dry_run)
		status = print_commit_plan(&cli, &st);
	else
		status = commit_staged(&cli, &st);
out:
	staging_remove(&st);
	damonctl_free(cli.ctx);
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
	session_ended = 0;
	session_catch_sigint();
	catch_ending();
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
	FILE *in = NULL;
	int r = lines_open(s->batch, &in);

	if (r) {
		const char *name = strcmp(s->batch, "-") ? s->batch : "standard input";

		if (r == -ENODEV)
			warnx_("--batch '%s': not a regular file (a FIFO, socket or device would "
			       "block or never end; use '-' for standard input)", name);
		else if (r == -EISDIR)
			warnx_("--batch '%s': is a directory", name);
		else
			warnx_("--batch '%s': %s", name, strerror(-r));
		return EXIT_USAGE;
	}
	r = session_batch(s, in);
	if (in != stdin)
		fclose(in);
	if (session_ended) {
		/* cleaned up: now end as the signal meant (128 + N to the shell) */
		fflush(stdout);
		signal((int)session_ended, SIG_DFL);
		raise((int)session_ended);
	}
	return r;
}
