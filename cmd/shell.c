// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc shell: damonc's commands at a readline prompt. Each line runs as a batch line does
 * (session.c: `damonc WORDS` in a child); completion comes from the command table (the
 * same one --list-cmds, --list-opts and --list-values print for the shells' completions),
 * with kdamond indexes and pids read live; history is kept in the XDG state directory.
 * Readline is the lineedit plugin's (lineedit.h), which only the shell at a terminal
 * loads. Without a terminal on stdin the shell reads its lines as a batch does, with no
 * prompt and no plugin.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "damonc.h"
#include "lineedit.h"
#include "lines.h"
#include "session.h"
#include "started.h"
#include "words.h"

enum { HISTORY_MAX = 1000 };

static const struct opt shell_opts[] = {
	{ 0 },
};

/* The words the shell itself understands; every other first word is a damonc command. */
static const char *const builtins[] = { "help", "every", "watch", "exit", "quit", NULL };

/* ---- the session's state: one per process, as readline's is ---- */
static struct damonctl_ctx *shell_ctx;	/* reads for the prompt and completion only */

/* ---- completion ---- */

struct matches {
	char **v;
	size_t nr, cap;
};

static struct matches cands;	/* what the generator offers, set before each completion */

static void cand_add_len(const char *s, size_t len)
{
	char *dup;

	if (cands.nr == cands.cap) {
		size_t cap = cands.cap ? cands.cap * 2 : 32;
		char **v = realloc(cands.v, cap * sizeof(*v));

		if (!v)
			return;
		cands.v = v;
		cands.cap = cap;
	}
	dup = strndup(s, len);
	if (dup)
		cands.v[cands.nr++] = dup;
}

static void cand_add(const char *s)
{
	cand_add_len(s, strlen(s));
}

static void cand_value(void *data, const char *value, size_t len)
{
	(void)data;
	cand_add_len(value, len);
}

static void cands_clear(void)
{
	size_t i;

	for (i = 0; i < cands.nr; i++)
		free(cands.v[i]);
	cands.nr = 0;
}

static char *generate(const char *text, int state)
{
	static size_t i, len;

	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (i < cands.nr) {
		const char *c = cands.v[i++];

		if (!strncmp(c, text, len))
			return strdup(c);
	}
	return NULL;
}

/* Live values: the kdamonds of the tree, the processes of the sysroot's /proc. */
static void cand_kdamonds(void)
{
	if (shell_ctx)
		damonc_kdamond_values(shell_ctx, cand_value, NULL);
}

static void cand_pids(void)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	if (!shell_ctx || damonctl_path(shell_ctx, DAMONCTL_BASE_PROC, "", path, sizeof(path)) < 0)
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			cand_add(de->d_name);
	closedir(d);
}

static void cand_cmds(const struct cmd *const *table)
{
	for (; table && *table; table++)
		cand_add((*table)->name);
}

static void cand_opts(const struct cmd *c)
{
	const struct opt *o;
	unsigned int i;
	char buf[128];

	for (i = 0; (o = damonc_opt_at(c, i)); i++) {
		snprintf(buf, sizeof(buf), "--%s", o->name);
		cand_add(buf);
	}
}

static bool takes_value(const struct opt *o)
{
	return o && o->value != OV_NONE && o->value != OV_OPTIONAL;
}

/*
 * Fill cands for the word being typed after @v[0..@n): readline then filters by prefix.
 * Returns false when file names fit (readline's own completion).
 */
static bool complete_after(char **v, int n, const char *text)
{
	const struct cmd *cmd = NULL, *sub = NULL, *c;
	const struct opt *prev = NULL;
	int i = 0, words = 0;

	if (n && !strcmp(v[0], "damonc"))
		i++;
	if (i < n && !strcmp(v[i], "every"))
		i += 2;		/* every INTERVAL COMMAND */
	else if (i < n && !strcmp(v[i], "watch"))
		i++;
	if (i > n)
		return true;	/* the interval: nothing to offer */
	if (i < n && !strcmp(v[i], "help")) {
		if (n - i == 1)
			cand_cmds(damonc_cmds);
		else if (n - i == 2 && (c = damonc_find_cmd(v[i + 1])))
			cand_cmds(c->subcmds);
		return true;
	}
	for (; i < n; i++) {
		c = sub ? sub : cmd;
		prev = NULL;
		if (v[i][0] == '-') {
			prev = damonc_find_opt(c ? c : &(const struct cmd){ .name = "" }, v[i]);
			if (takes_value(prev) && !strchr(v[i], '=') && i + 1 < n) {
				i++;
				prev = NULL;
			}
			continue;
		}
		if (!cmd)
			cmd = damonc_find_cmd(v[i]);
		else if (cmd->subcmds && !sub) {
			char name[128];

			snprintf(name, sizeof(name), "%s %s", cmd->name, v[i]);
			sub = damonc_find_cmd(name);
		}
		words++;
	}
	c = sub ? sub : cmd;
	if (takes_value(prev)) {
		switch (prev->value) {
		case OV_FILE:
		case OV_DIR:
			return false;
		case OV_PID:
			cand_pids();
			return true;
		default:
			if (!strcmp(prev->name, "kdamond"))
				cand_kdamonds();
			else
				damonc_opt_values(prev, cand_value, NULL);
			return true;
		}
	}
	if (text[0] == '-') {
		cand_opts(c);
		return true;
	}
	if (!words) {
		cand_cmds(damonc_cmds);
		for (i = 0; builtins[i]; i++)
			cand_add(builtins[i]);
	} else if (cmd && cmd->subcmds && !sub && words == 1) {
		cand_cmds(cmd->subcmds);
	}
	return true;
}

static bool complete(const char *before, const char *text)
{
	struct words w;
	const char *why;
	bool r;

	cands_clear();
	if (words_split(before, true, &w, &why))
		return true;	/* nothing to offer */
	if (w.open && w.n) {
		/* the cursor's word opened with a quote readline took apart */
		free(w.v[--w.n]);
		w.v[w.n] = NULL;
	}
	r = complete_after(w.v, w.n, text);
	words_free(&w);
	return r;
}

/* ---- the prompt ---- */

static void build_prompt(char *buf, size_t size, const struct session *s, int last)
{
	struct started st = { 0 };
	size_t n = (size_t)snprintf(buf, size, "damonc");
	const char *sep = " (", *root = s->sysroot ? s->sysroot : getenv("DAMONC_SYSROOT");

	if (root && root[0] && strcmp(root, "/")) {
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%ssysroot %s", sep, root);
		sep = ", ";
	}
	if (shell_ctx && !started_load(shell_ctx, &st) && st.nr) {
		int pid, on = damonctl_kdamond_is_running(shell_ctx, st.e[0].kdamond, &pid);

		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%skdamond %u %s", sep,
				      st.e[0].kdamond, on == 1 ? "on" : on == 0 ? "off" : "gone");
		if (st.nr > 1)
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, " +%u", st.nr - 1);
		sep = ", ";
	}
	started_free(&st);
	if (sep[0] == ',')
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, ")");
	if (last)
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, " [%d]", last);
	snprintf(buf + n, n < size ? size - n : 0, "> ");
}

/* ---- Ctrl-C at the prompt and between repeats ---- */

/* readline's input: a Ctrl-C drops the line typed so far and gives a new prompt, as shells
 * do. SIGINT stays blocked but while ppoll waits, so one that comes while readline handles
 * the previous key is seen here, not left until a key that may never come. */
static int getc_or_interrupt(FILE *in)
{
	sigset_t intr, old;

	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	for (;;) {
		struct pollfd p = { .fd = fileno(in), .events = POLLIN };
		unsigned char c;
		ssize_t n;
		int r;

		sigprocmask(SIG_BLOCK, &intr, &old);
		r = session_sigint ? 0 : ppoll(&p, 1, NULL, &old);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (session_sigint)
			return LINEEDIT_DROP;
		if (r < 0 && errno != EINTR)
			return EOF;
		if (r <= 0)
			continue;
		n = read(fileno(in), &c, 1);
		if (n == 1)
			return c;
		if (!n || errno != EINTR)
			return EOF;
	}
}

/* ---- every, watch ---- */

/* every INTERVAL CMD... / watch CMD...: run CMD again every INTERVAL until Ctrl-C or until
 * it fails; the status of its last run. */
static int repeat(const struct session *s, const char *what, const char *interval, char **v,
		  int n)
{
	uint64_t us;
	int status;

	if (damonctl_parse_time_us(interval, &us) || !us) {
		warnx_("shell: %s: '%s': expected an interval such as 2s or 500ms", what, interval);
		return EXIT_USAGE;
	}
	if (!n) {
		warnx_("shell: %s: which command? (e.g. '%s report hugepage')", what, what);
		return EXIT_USAGE;
	}
	session_sigint = 0;
	for (;;) {
		struct timespec ts = { .tv_sec = (time_t)(us / 1000000),
				       .tv_nsec = (long)(us % 1000000) * 1000 };
		char when[64];
		time_t now = time(NULL);
		int i;

		if (isatty(STDOUT_FILENO))
			fputs("\033[H\033[2J", stdout);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		printf("Every %s: ", interval);
		for (i = 0; i < n; i++)
			printf("%s%s", i ? " " : "", v[i]);
		printf("    %s (Ctrl-C stops)\n\n", when);
		status = session_run(s, v, n, false, -1);
		if (status || session_sigint)	/* a report stopped by Ctrl-C exits 0 */
			return status;
		while (!session_sigint && nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (session_sigint)
			return status;
	}
}

/* ---- the loop ---- */

static void history_path(char *buf, size_t size)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state && state[0] == '/')
		snprintf(buf, size, "%s/damonc/history", state);
	else if (home && home[0])
		snprintf(buf, size, "%s/.local/state/damonc/history", home);
	else
		buf[0] = '\0';
}

/* Whether readline may write @path (it opens it by name, following links): a regular file
 * of ours, or none yet, in a directory of ours that no one else may write. root's shell
 * under sudo may have a HOME another user owns: then no history is kept, and that is said. */
static bool history_safe(const char *dir, const char *path)
{
	struct stat st;

	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return false;
	if (lstat(path, &st))
		return errno == ENOENT;
	return S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1;
}

/* The history file's path in @path, or "" (none kept) after saying why: its directory
 * made, and the file created here, never through a link (the line editor opens it by name,
 * and would create it following one). */
static void history_open(char *path)
{
	char dir[4096], *slash;
	int fd;

	if (!path[0])
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (damonctl_make_dirs(dir)) {
		path[0] = '\0';
		return;
	}
	if (!history_safe(dir, path)) {
		warnx_("shell: %s is not a file of this user's alone: no history is kept", path);
		path[0] = '\0';
		return;
	}
	fd = damonctl_file_open(path, O_WRONLY | O_CREAT, 0600);
	if (fd >= 0)
		close(fd);
}

/* One line typed at the prompt; the status it leaves, or -1 to leave the shell (@code). */
static int run_typed(const struct session *s, const char *line, int *code, int last)
{
	struct words w;
	const char *why = "";
	char **v;
	int n, r;

	r = lines_words(line, &w, &why);
	if (r) {
		warnx_("shell: %s", r == -ENOMEM ? "out of memory" : why);
		return EXIT_USAGE;
	}
	v = w.v;
	n = w.n;
	if (n && !strcmp(v[0], "damonc")) {
		v++;
		n--;
	}
	if (!n) {
		r = last;
	} else if (!strcmp(v[0], "exit") || !strcmp(v[0], "quit")) {
		*code = n > 1 ? atoi(v[1]) : last;
		r = -1;
	} else if (!strcmp(v[0], "every")) {
		r = n < 2 ? (warnx_("shell: every: which interval? (e.g. 'every 2s status')"),
			     EXIT_USAGE) : repeat(s, "every", v[1], v + 2, n - 2);
	} else if (!strcmp(v[0], "watch")) {
		r = repeat(s, "watch", "2s", v + 1, n - 1);
	} else {
		r = session_run(s, v, n, false, -1);
	}
	if (r == 128 + SIGINT)
		putchar('\n');
	words_free(&w);
	return r;
}

static int shell_loop(struct session *s, const struct lineedit_plugin *le)
{
	static const struct lineedit_hooks hooks = {
		.complete = complete,
		.generate = generate,
		.key = getc_or_interrupt,
	};
	char hist[4096], prompt[4600];
	int last = 0, code = 0, r;

	history_path(hist, sizeof(hist));
	history_open(hist);
	le->start("damonc", &hooks, hist);
	session_catch_sigint();
	/* Ctrl-\ quits the line that runs, never the shell (as an interactive sh ignores it);
	 * each line's child takes its default action back */
	signal(SIGQUIT, SIG_IGN);
	for (;;) {
		char *line;

		build_prompt(prompt, sizeof(prompt), s, last);
		session_sigint = 0;
		line = le->read(prompt);
		/* a write of the prompt or the echo cut short by a Ctrl-C (EINTR) loses no
		 * result: the shell's exit status must not turn into "writing the output" */
		clearerr(stdout);
		if (!line) {
			putchar('\n');
			code = last;
			break;
		}
		if (session_sigint) {
			free(line);
			continue;
		}
		if (line[strspn(line, " \t")])
			le->remember(line, HISTORY_MAX);
		r = run_typed(s, line, &code, last);
		free(line);
		if (r < 0)
			break;
		last = r;
	}
	cands_clear();
	free(cands.v);
	return code;
}

static int shell_run(struct cli *cli, int argc, char **argv)
{
	struct session *s = &damonc_session;
	static char sysroot_opt[4200];
	const struct lineedit_plugin *le;
	char why[4200];
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	/* global options given after `shell` hold for its lines too (given before, they are
	 * there already; twice is the same) */
	if (cli->sysroot && s->sysroot != cli->sysroot) {
		snprintf(sysroot_opt, sizeof(sysroot_opt), "--sysroot=%s", cli->sysroot);
		session_add_global(s, sysroot_opt);
		s->sysroot = cli->sysroot;
	}
	if (cli->json)
		session_add_global(s, (char *)json_style_opt());
	if (cli->verbose)
		session_add_global(s, "-v");
	if (!isatty(STDIN_FILENO))
		return session_batch(s, stdin);
	le = plugin_load("lineedit", LINEEDIT_PLUGIN_SYMBOL, sizeof(*le), why, sizeof(why));
	if (!le) {
		usage_error(cli, "line editing is damonc's lineedit plugin, which is not installed: "
			    "%s (lines from a file or a pipe are read without it)", why);
		return EXIT_UNSUPPORTED;
	}
	shell_ctx = cli->ctx;
	r = shell_loop(s, le);
	shell_ctx = NULL;
	return r;
}

const struct cmd cmd_shell = {
	.name = "shell",
	.summary = "run damonc commands at a prompt, with completion and history",
	.usage = "[--sysroot DIR]",
	.opts = shell_opts,
	.run = shell_run,
};
