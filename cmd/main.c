// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc: the command table and the option parsing every subcommand shares. Commands are
 * matched exactly (no prefix abbreviations), options come from each command's table, and the
 * hidden --list-cmds/--list-opts print those tables for the shell completions, so the
 * completions cannot drift from the code.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "config.h"
#include "damonc.h"
#include "journal.h"
#include "session.h"
#include "started.h"
#include "suggest.h"

extern const struct cmd cmd_status, cmd_features, cmd_diagnose, cmd_trace, cmd_start, cmd_stop,
	cmd_tune, cmd_report, cmd_agent, cmd_record, cmd_monitor, cmd_metrics, cmd_shell, cmd_module;

const struct cmd *const damonc_cmds[] = {
	&cmd_status,
	&cmd_features,
	&cmd_diagnose,
	&cmd_trace,
	&cmd_start,
	&cmd_stop,
	&cmd_tune,
	&cmd_report,
	&cmd_agent,
	&cmd_record,
	&cmd_monitor,
	&cmd_metrics,
	&cmd_shell,
	&cmd_module,
	NULL,
};

struct session damonc_session;

enum { OPT_SYSROOT = 1000, OPT_JSON, OPT_VERBOSE, OPT_HELP, OPT_BATCH, OPT_FORCE, OPT_ATOMIC,
       OPT_DRY_RUN, OPT_COLOR };

/* Accepted by every command, before or after its name. */
static const struct opt global_opts[] = {
	{ "sysroot", OPT_SYSROOT, OV_DIR, "DIR",
	  "use DIR as the root for /sys and /proc (default: $DAMONC_SYSROOT or /)" },
	{ "json", OPT_JSON, OV_OPTIONAL, "pretty|compact", "print one JSON document instead of "
	  "text: pretty (indented) or compact (one line); default: pretty on a terminal, "
	  "compact otherwise" },
	{ "verbose", 'v', OV_NONE, NULL, "log every sysfs write to stderr" },
	{ "color", OPT_COLOR, OV_FORMAT, "auto|always|never", "colour the text for a terminal: "
	  "auto (default: on a terminal, unless $NO_COLOR is set), always or never" },
	{ "help", 'h', OV_NONE, NULL, "show this help" },
	{ "version", 'V', OV_NONE, NULL, "print damonc's version" },
	{ 0 },
};

/* Accepted before any command only: they say how damonc runs, not what a command does. */
static const struct opt top_opts[] = {
	{ "batch", OPT_BATCH, OV_FILE, "FILE",
	  "run the commands of FILE (- for stdin), one a line, as the shell runs them; stop at "
	  "the first that fails (see damonc-shell(1))" },
	{ "force", OPT_FORCE, OV_NONE, NULL, "with --batch: go on after a line that fails" },
	{ "atomic", OPT_ATOMIC, OV_NONE, NULL,
	  "with --batch: check every line first, and if a line fails, put the DAMON tree and "
	  "damonc's record of its kdamonds back as they were before the first" },
	{ "dry-run", OPT_DRY_RUN, OV_NONE, NULL,
	  "with --batch: print the writes of each start and tune line, make none" },
	{ 0 },
};

/* An option's short form: its key when that is a character, and -p for --pid, as perf,
 * numastat and bpftrace take a process (0: none). */
int opt_short(const struct opt *o)
{
	if (o->key > ' ' && o->key < 256)
		return o->key;
	return o->value == OV_PID && !strcmp(o->name, "pid") ? 'p' : 0;
}

/* " (did you mean 'NAME'?)" for the closest of @table's commands to @typed, or "". */
static const char *cmd_hint(const struct cmd *const *table, const char *typed, char *buf,
			    size_t size)
{
	struct suggest sg;
	unsigned int i;

	suggest_init(&sg, typed);
	for (i = 0; table && table[i]; i++)
		suggest_add(&sg, table[i]->name);
	if (table == damonc_cmds)
		suggest_add(&sg, "help");
	if (!suggest_best(&sg))
		return "";
	snprintf(buf, size, "; did you mean '%s'?", suggest_best(&sg));
	return buf;
}

/* The same for an option "--typed[=VALUE]" among @opts (then @more; either may be NULL). */
static const char *opt_hint(const struct opt *opts, const struct opt *more, const char *typed,
			    char *buf, size_t size)
{
	char word[64];
	struct suggest sg;
	const struct opt *o;
	int pass;

	if (strncmp(typed, "--", 2))
		return "";
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(typed + 2, "="), typed + 2);
	suggest_init(&sg, word);
	for (pass = 0; pass < 2; pass++)
		for (o = pass ? more : opts; o && o->name; o++)
			suggest_add(&sg, o->name);
	if (!suggest_best(&sg))
		return "";
	snprintf(buf, size, "; did you mean '--%s'?", suggest_best(&sg));
	return buf;
}

static const struct cmd *find_in(const struct cmd *const *table, const char *name)
{
	unsigned int i;

	for (i = 0; table && table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

/* "report" or "report hugepage" (one argument with a space, or two arguments). */
const struct cmd *damonc_find_cmd(const char *name)
{
	char first[64];
	const char *space = strchr(name, ' ');
	const struct cmd *c;

	if (!space)
		return find_in(damonc_cmds, name);
	snprintf(first, sizeof(first), "%.*s", (int)(space - name), name);
	c = find_in(damonc_cmds, first);
	return c ? find_in(c->subcmds, space + 1) : NULL;
}

enum { HELP_WIDTH = 80, HELP_INDENT = 31 };	/* "  " + a 28-column option + " " */

/* @text from column @col (the cursor is there), wrapped at HELP_WIDTH, continued at column
 * @indent; ends the line. */
static void print_wrapped(FILE *f, const char *text, int col, int indent)
{
	while (*text) {
		int n = (int)strcspn(text, " ");

		if (col > indent && col + 1 + n > HELP_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", n, text);
		col += n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/* An option and its help: the help starts in its column, or on the next line when the
 * option (with its value) is too long to leave a gap, as GNU tools do. */
static void print_opts(FILE *f, const struct opt *o)
{
	for (; o && o->name; o++) {
		char left[128];
		int n;

		const char *sep = o->value == OV_OPTIONAL ? "[=" : o->metavar ? " " : "";
		const char *end = o->value == OV_OPTIONAL ? "]" : "";

		if (opt_short(o))
			n = snprintf(left, sizeof(left), "  -%c, --%s%s%s%s", opt_short(o), o->name,
				     sep, o->metavar ? o->metavar : "", end);
		else
			n = snprintf(left, sizeof(left), "      --%s%s%s%s", o->name, sep,
				     o->metavar ? o->metavar : "", end);
		if (n > HELP_INDENT - 2)
			fprintf(f, "%s\n%*s", left, HELP_INDENT, "");
		else
			fprintf(f, "%-*s", HELP_INDENT, left);
		print_wrapped(f, o->help, HELP_INDENT, HELP_INDENT);
	}
}

/* The width of @s up to @n bytes as a terminal shows it (UTF-8: a character a column). */
static int columns(const char *s, size_t n)
{
	int w = 0;
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Words [@p, @e) of a synopsis placed from *@col: on this line after a space when they fit
 * (@first: no space), else on a new one at @indent. */
static void place(FILE *f, const char *p, const char *e, bool first, int *col, int indent)
{
	int w = columns(p, (size_t)(e - p));

	if (*col > indent && *col + 1 + w > HELP_WIDTH) {
		fprintf(f, "\n%*s", indent, "");
		*col = indent;
	} else if (!first) {
		fputc(' ', f);
		(*col)++;
	}
	fprintf(f, "%.*s", (int)(e - p), p);
	*col += w;
}

/* A form of a synopsis (its lines joined) from column @col, wrapped at HELP_WIDTH between
 * its elements (not inside brackets or parentheses unless an element is wider than a line
 * by itself), continued at column @indent. */
static void print_synopsis_form(FILE *f, const char *form, int col, int indent)
{
	const char *p = form;

	while (*p) {
		const char *e = p, *w;
		int depth = 0;

		/* one element: up to a space outside brackets */
		for (; *e && (depth > 0 || *e != ' '); e++)
			depth += (*e == '[' || *e == '(') - (*e == ']' || *e == ')');
		if (columns(p, (size_t)(e - p)) <= HELP_WIDTH - indent) {
			place(f, p, e, p == form, &col, indent);
		} else {	/* too wide for any line: by words */
			for (w = p; w < e; w += strspn(w, " ")) {
				const char *we = w + strcspn(w, " ");

				place(f, w, we < e ? we : e, w == form, &col, indent);
				w = we < e ? we : e;
			}
		}
		p = e + strspn(e, " ");
	}
	fputc('\n', f);
}

/* "Usage: damonc NAME SYNOPSIS": each form of the synopsis (a line, or one starting with
 * "damonc", and the lines that continue it) wrapped, continued 14 columns in. */
static void print_synopsis(FILE *f, const char *name, const char *syn, size_t len)
{
	char form[2048];
	size_t n = 0;
	int col = fprintf(f, "Usage: damonc %s ", name);

	while (len) {
		size_t line = strcspn(syn, "\n"), lead = strspn(syn, " ");

		if (line > len)
			line = len;
		if (lead > line)
			lead = line;
		if (n && !strncmp(syn + lead, "damonc ", 7)) {	/* a new form: the last out */
			form[n] = '\0';
			print_synopsis_form(f, form, col, 14);
			col = fprintf(f, "%*s", (int)lead, "");
			n = 0;
		}
		n += (size_t)snprintf(form + n, sizeof(form) - n, "%s%.*s", n ? " " : "",
				      (int)(line - lead), syn + lead);
		if (n >= sizeof(form))
			n = sizeof(form) - 1;
		syn += line;
		len -= line;
		if (len) {
			syn++;
			len--;
		}
	}
	form[n] = '\0';
	print_synopsis_form(f, form, col, 14);
}

static void main_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "Usage: damonc [--sysroot DIR] [--json[=pretty|compact]] [-v] COMMAND [OPTIONS]\n"
		   "       damonc [--sysroot DIR] [--force] [--atomic] [--dry-run] --batch FILE|-\n\n"
		   "Drive the Linux kernel's DAMON: monitor memory access and manage memory\n"
		   "(huge pages, reclaim, tiering) from what it finds.\n\nCommands:\n");
	for (i = 0; damonc_cmds[i]; i++) {
		fprintf(f, "  %-10s ", damonc_cmds[i]->name);
		print_wrapped(f, damonc_cmds[i]->summary, 13, 13);
	}
	fprintf(f, "\nGlobal options:\n");
	print_opts(f, global_opts);
	print_opts(f, top_opts);
	fprintf(f, "\n'damonc COMMAND --help' describes a command. Exit codes: 0 success, 1 failure,\n"
		   "2 bad usage or input, 3 the kernel lacks a needed feature, 4 DAMON is busy.\n");
}

/* The synopsis, the summary, then the longer text the command's usage carries after a blank
 * line (what it does in detail), then its subcommands or options. */
static void cmd_usage(const char *name, const struct cmd *c, FILE *f)
{
	const char *more = strstr(c->usage, "\n\n");
	unsigned int i;

	print_synopsis(f, name, c->usage, more ? (size_t)(more - c->usage) : strlen(c->usage));
	fputc('\n', f);
	print_wrapped(f, c->summary, 0, 0);
	if (more)
		fprintf(f, "%s%s", more + 1, more[strlen(more) - 1] == '\n' ? "" : "\n");
	if (c->subcmds) {
		fprintf(f, "\nCommands:\n");
		for (i = 0; c->subcmds[i]; i++) {
			fprintf(f, "  %-10s ", c->subcmds[i]->name);
			print_wrapped(f, c->subcmds[i]->summary, 13, 13);
		}
		return;
	}
	if (cmd_opts(c) && cmd_opts(c)->name) {
		fprintf(f, "\nOptions:\n");
		print_opts(f, cmd_opts(c));
	}
	fprintf(f, "\nGlobal options:\n");
	print_opts(f, global_opts);
}

/* "a, b or c" */
static void list_names(FILE *f, const struct cmd *const *table)
{
	unsigned int i;

	for (i = 0; table[i]; i++)
		fprintf(f, "%s%s", i ? (table[i + 1] ? ", " : " or ") : "", table[i]->name);
}

/* damonc help [COMMAND [SUBCOMMAND]]: the usage of what is named, as COMMAND --help prints
 * it; an unknown name is an error, as it is on the command line. */
static int help(int argc, char **argv)
{
	const struct cmd *c, *sub;
	char name[64];

	if (!argc) {
		main_usage(stdout);
		return EXIT_OK;
	}
	c = find_in(damonc_cmds, argv[0]);
	if (!c) {
		fprintf(stderr, "damonc: help: unknown command '%s'%s (see 'damonc --help')\n",
			argv[0], cmd_hint(damonc_cmds, argv[0], name, sizeof(name)));
		return EXIT_USAGE;
	}
	if (argc == 1) {
		cmd_usage(c->name, c, stdout);
		return EXIT_OK;
	}
	sub = find_in(c->subcmds, argv[1]);
	if (!sub || argc > 2) {
		fprintf(stderr, "damonc: help: %s '%s%s%s' (see 'damonc help %s')\n",
			sub ? "too many words after" : "unknown command", c->name, " ",
			sub ? sub->name : argv[1], c->name);
		return EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "%s %s", c->name, sub->name);
	cmd_usage(name, sub, stdout);
	return EXIT_OK;
}

static const char *value_kind(const struct opt *o)
{
	static const char *const names[] = {
		[OV_NONE] = "flag", [OV_STRING] = "string", [OV_FILE] = "file", [OV_DIR] = "dir",
		[OV_PID] = "pid", [OV_INT] = "int", [OV_TIME] = "time", [OV_SIZE] = "size",
		[OV_PERCENT] = "percent", [OV_BP] = "bp", [OV_ACTION] = "action",
		[OV_OPS] = "ops", [OV_METRIC] = "metric", [OV_TUNER] = "tuner",
		[OV_FILTER] = "filter", [OV_RANGE] = "range", [OV_GOAL] = "goal",
		[OV_REGION] = "region", [OV_FORMAT] = "format", [OV_OPTIONAL] = "optional",
	};

	/* a kdamond's index: the completions offer the tree's own (--list-values) */
	if (o->value == OV_INT && !strcmp(o->name, "kdamond"))
		return "kdamond";
	return names[o->value];
}

/* For completions: "--name kind description" per line (-x too), global options included. */
static void list_opts(const struct cmd *c)
{
	const struct opt *o;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (o = pass ? global_opts : c ? cmd_opts(c) : top_opts; o && o->name; o++) {
			printf("--%s %s %s\n", o->name, value_kind(o), o->help);
			if (opt_short(o))
				printf("-%c %s %s\n", opt_short(o), value_kind(o), o->help);
		}
	}
}

const struct opt *cmd_opts(const struct cmd *c)
{
	if (c->init)
		c->init();
	return c->opts;
}

const struct opt *damonc_opt_at(const struct cmd *c, unsigned int i)
{
	const struct opt *own = c ? cmd_opts(c) : NULL;
	unsigned int n = 0;

	for (; own && own[n].name; n++)
		if (n == i)
			return &own[n];
	i -= n;
	for (n = 0; global_opts[n].name; n++)
		if (n == i)
			return &global_opts[n];
	return NULL;
}

const struct opt *damonc_find_opt(const struct cmd *c, const char *arg)
{
	const struct opt *o;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (o = pass ? global_opts : cmd_opts(c); o && o->name; o++)
			if ((arg[0] == '-' && arg[1] == '-' && !strcmp(arg + 2, o->name)) ||
			    (arg[0] == '-' && arg[1] && arg[1] == opt_short(o) && !arg[2]))
				return o;
	return NULL;
}

void damonc_opt_values(const struct opt *o, void (*fn)(void *data, const char *value, size_t len),
		       void *data)
{
	static const struct { enum opt_value kind; enum damonctl_kwset set; } sets[] = {
		{ OV_ACTION, DAMONCTL_KW_ACTION }, { OV_OPS, DAMONCTL_KW_OPERATIONS },
		{ OV_METRIC, DAMONCTL_KW_GOAL_METRIC }, { OV_GOAL, DAMONCTL_KW_GOAL_METRIC },
		{ OV_TUNER, DAMONCTL_KW_GOAL_TUNER }, { OV_FILTER, DAMONCTL_KW_FILTER_TYPE },
	};
	const char *choice;
	unsigned int i, j;
	char buf[128];

	for (i = 0; (choice = opt_choice_name(o, i, NULL)); i++) {
		size_t n;

		opt_choice_name(o, i, &n);
		fn(data, choice, n);
	}
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		const char *kw;

		if (sets[i].kind != o->value)
			continue;
		for (j = 0; (kw = damonctl_keyword(sets[i].set, j)); j++) {
			if (o->value == OV_FILTER) {
				fn(data, buf, (size_t)snprintf(buf, sizeof(buf), "allow:%s", kw));
				fn(data, buf, (size_t)snprintf(buf, sizeof(buf), "reject:%s", kw));
			} else if (o->value == OV_GOAL) {
				fn(data, buf, (size_t)snprintf(buf, sizeof(buf), "%s=", kw));
			} else {
				fn(data, kw, strlen(kw));
			}
		}
	}
}

void damonc_kdamond_values(struct damonctl_ctx *ctx, void (*fn)(void *data, const char *value,
								   size_t len), void *data)
{
	unsigned long n, i;
	char buf[32];

	if (damonctl_read(ctx, "kdamonds/nr_kdamonds", buf, sizeof(buf)))
		return;
	n = strtoul(buf, NULL, 10);
	for (i = 0; i < n && i < 4096; i++)
		fn(data, buf, (size_t)snprintf(buf, sizeof(buf), "%lu", i));
}

static void print_value(void *data, const char *value, size_t len)
{
	(void)data;
	printf("%.*s\n", (int)len, value);
}

/* A context on the sysroot given before (--sysroot, else $DAMONC_SYSROOT), for the live
 * values of completions: NULL when there is none. */
static struct damonctl_ctx *values_ctx(const struct cli *cli)
{
	struct damonctl_ctx *ctx;

	if (damonctl_new(&ctx))
		return NULL;
	if (cli->sysroot && damonctl_set_sysroot(ctx, cli->sysroot)) {
		damonctl_free(ctx);
		return NULL;
	}
	return ctx;
}

/* For completions: the values option @optname of command @cmdname takes, one a line: its
 * choices, the kernel keywords of its kind, or the tree's kdamonds (nothing for values
 * people type). */
static int list_values(const struct cli *cli, const char *cmdname, const char *optname)
{
	const struct cmd *c = damonc_find_cmd(cmdname), top = { .name = "", .opts = top_opts };
	const struct opt *o;
	struct damonctl_ctx *ctx;

	if (!*cmdname)
		c = &top;	/* before any command: damonc's own and the global options */
	o = c ? damonc_find_opt(c, optname) : NULL;
	if (!o) {
		fprintf(stderr, "damonc: no option '%s' for '%s'\n", optname, cmdname);
		return EXIT_USAGE;
	}
	if (!strcmp(value_kind(o), "kdamond")) {
		ctx = values_ctx(cli);
		if (ctx)
			damonc_kdamond_values(ctx, print_value, NULL);
		damonctl_free(ctx);
		return EXIT_OK;
	}
	damonc_opt_values(o, print_value, NULL);
	return EXIT_OK;
}

/* For completions: the DAMON modules this kernel (or the sysroot) has, by the short names
 * 'damonc module' takes, and with @name (one of them) its parameters 'set' can write. */
static int list_modules(const struct cli *cli, const char *name)
{
	struct damonctl_module_params *mp;
	struct damonctl_ctx *ctx = values_ctx(cli);
	const char *m;
	unsigned int i;
	size_t k;

	for (i = 0; ctx && !name && (m = damonctl_module_name(i)); i++)
		if (damonctl_module_present(ctx, m))
			printf("%s\n", m + strlen("damon_"));
	m = name ? damonctl_module_lookup(name) : NULL;
	if (ctx && m && !damonctl_module_read(ctx, m, &mp)) {
		for (k = 0; k < damonctl_module_params_nr(mp); k++) {
			const char *p = damonctl_module_param_name(mp, k);

			if (damonctl_module_param_writable(p) && strcmp(p, "enabled") &&
			    strcmp(p, "commit_inputs"))
				printf("%s=\n", p);
		}
		damonctl_module_params_free(mp);
	}
	damonctl_free(ctx);
	return EXIT_OK;
}

static int build_getopt(const struct cmd *c, struct option **lopts, char **sopts)
{
	const struct opt *o;
	size_t n = 0, i = 0, s = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (o = pass ? global_opts : cmd_opts(c); o && o->name; o++)
			n++;
	*lopts = calloc(n + 1, sizeof(**lopts));
	*sopts = calloc(3 * n + 3, 1);
	if (!*lopts || !*sopts)
		return -ENOMEM;
	(*sopts)[s++] = '+';	/* stop at the first positional argument */
	(*sopts)[s++] = ':';	/* report a missing value as ':' */
	for (pass = 0; pass < 2; pass++) {
		for (o = pass ? global_opts : cmd_opts(c); o && o->name; o++) {
			(*lopts)[i].name = o->name;
			(*lopts)[i].has_arg = o->value == OV_NONE ? no_argument :
					      o->value == OV_OPTIONAL ? optional_argument :
					      required_argument;
			(*lopts)[i].val = o->key;
			i++;
			if (opt_short(o)) {
				(*sopts)[s++] = (char)opt_short(o);
				if (o->value != OV_NONE)
					(*sopts)[s++] = ':';
				if (o->value == OV_OPTIONAL)
					(*sopts)[s++] = ':';
			}
		}
	}
	return 0;
}

static void log_to_stderr(void *data, enum damonctl_log_level level, const char *msg)
{
	(void)data;
	fprintf(stderr, "damonc: %s%s\n", level <= DAMONCTL_LOG_WARN ? "warning: " : "", msg);
}

/* The key of the option of @c (or a global one) whose short form @key is (-p for --pid's
 * own key), or @key. */
static int key_of_short(const struct cmd *c, int key)
{
	const struct opt *o;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (o = pass ? global_opts : cmd_opts(c); o && o->name; o++)
			if (opt_short(o) == key)
				return o->key;
	return key;
}

static int set_color(const struct cli *cli, const char *arg)
{
	int r = opt_choice(cli, global_opts, OPT_COLOR, arg);

	if (r < 0)
		return EXIT_USAGE;
	color_set((enum color_when)r);
	return 0;
}

static int unknown_option(const struct cli *cli, const struct cmd *c, const char *arg)
{
	char hint[96];

	return usage_error(cli, "unknown option '%s'%s (see 'damonc %s --help')", arg,
			   opt_hint(cmd_opts(c), global_opts, arg, hint, sizeof(hint)),
			   cli->cmd_name);
}

static const struct opt *opt_of(const struct cmd *c, int key)
{
	const struct opt *o;

	for (o = cmd_opts(c); o && o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* The command's options for its run, from its defaults; freed at exit. */
static int opts_begin(struct cli *cli, const struct cmd *c)
{
	if (!c->opts_size)
		return 0;
	cli->opts = malloc(c->opts_size);
	if (!cli->opts)
		return -ENOMEM;
	memcpy(cli->opts, c->opts_init, c->opts_size);
	return 0;
}

static int run_cmd(struct cli *cli, const struct cmd *c, int argc, char **argv)
{
	const struct opt *o;
	struct option *lopts;
	char *sopts;
	int r = EXIT_OK, key;

	cli->cmd = c;
	if (!cli->cmd_name[0])
		snprintf(cli->cmd_name, sizeof(cli->cmd_name), "%s", c->name);
	if (build_getopt(c, &lopts, &sopts) || opts_begin(cli, c)) {
		free(lopts);
		free(sopts);
		warnx_("out of memory");
		return EXIT_FAIL;
	}
	optind = 1;
	opterr = 0;
	while ((key = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (key > ' ' && key < 256)
			key = key_of_short(c, key);
		switch (key) {
		case OPT_SYSROOT:
			cli->sysroot = optarg;
			break;
		case OPT_JSON:
			cli->json = true;
			if (json_set_style(optarg))
				r = usage_error(cli, "--json=%s: expected --json, --json=pretty or "
						"--json=compact", optarg);
			break;
		case 'v':
			cli->verbose++;
			break;
		case OPT_COLOR:
			r = set_color(cli, optarg);
			break;
		case 'h':
			cmd_usage(cli->cmd_name, c, stdout);
			r = -1;
			break;
		case 'V':
			printf("damonc %s\n", DAMONC_VERSION);
			r = -1;
			break;
		case ':':
			r = usage_error(cli, "option '%s' needs a value", argv[optind - 1]);
			break;
		case '?':
			r = unknown_option(cli, c, argv[optind - 1]);
			break;
		default:
			o = opt_of(c, key);
			r = o && o->dest ? opt_store(cli, o, optarg) :
			    c->parse ? c->parse(cli, key, optarg) : EXIT_USAGE;
			break;
		}
		if (r)
			break;
	}
	free(lopts);
	free(sopts);
	if (r == -1)
		return EXIT_OK;
	if (r)
		return r;
	if (cli->sysroot) {
		int e = damonctl_set_sysroot(cli->ctx, cli->sysroot);

		if (e)
			return usage_error(cli, "--sysroot '%s': %s", cli->sysroot, strerror(-e));
	}
	if (damonc_session.in_line && c == &cmd_shell)
		return usage_error(cli, "not inside a batch or another shell");
	if (damonc_session.check_only)
		return EXIT_OK;	/* a batch's line checked before any runs */
	if (damonc_session.staging && session_stages(c->name)) {
		static char started_path[4096];
		char path[4096];
		int e;

		snprintf(path, sizeof(path), "%s/tree.json", damonc_session.staging);
		e = damonctl_set_staging(cli->ctx, path);
		if (e)
			return lib_error(cli, e, "staging the batch");
		snprintf(started_path, sizeof(started_path), "%s/kdamonds.json",
			 damonc_session.staging);
		started_use_file(started_path);
		cli->staging = true;
	}
	damonctl_set_log(cli->ctx, log_to_stderr, NULL,
			 cli->verbose ? DAMONCTL_LOG_DEBUG : DAMONCTL_LOG_WARN);
	journal_attach(cli);
	return c->run(cli, argc - optind, argv + optind);
}

/* A result that could not be written is a failure, said once, whatever the command thought:
 * `damonc features >/dev/full` must not exit 0. A reader that went away (EPIPE) is not an
 * error worth a message. */
static int finish_output(const struct cli *cli, int r)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout))
		err = errno ? errno : output_errno ? output_errno : EIO;
	if (!err && fclose(stdout) == EOF && errno != EBADF)
		err = errno;
	if (!err || err == EPIPE)
		return r;
	fprintf(stderr, "damonc: %s: writing the output: %s\n", cli->cmd_name, strerror(err));
	return r ? r : EXIT_FAIL;
}

/* Options of damonc itself (--batch and its modes) before the command: 1 when @arg was one,
 * 0 when not, or an exit code (as -code). */
static int top_opt(int argc, char **argv, int *i)
{
	struct session *s = &damonc_session;
	const char *arg = argv[*i];

	if (!strcmp(arg, "--batch") || !strncmp(arg, "--batch=", 8)) {
		if (!arg[7] && *i + 1 >= argc) {
			fprintf(stderr, "damonc: option '--batch' needs a value (a file, or - for "
				"stdin)\n");
			return -EXIT_USAGE;
		}
		s->batch = arg[7] ? arg + 8 : argv[++*i];
	} else if (!strcmp(arg, "--force")) {
		s->force = true;
	} else if (!strcmp(arg, "--atomic")) {
		s->atomic = true;
	} else if (!strcmp(arg, "--dry-run")) {
		s->dry_run = true;
	} else {
		return 0;
	}
	if (s->in_line) {
		fprintf(stderr, "damonc: %s: not inside a batch or the shell\n", arg);
		return -EXIT_USAGE;
	}
	return 1;
}

/* --list-cmds and --describe-cmds: the commands and subcommands, one a line, with their
 * summaries after a tab for the latter. */
static void list_cmds(bool summaries)
{
	unsigned int r;

	for (r = 0; damonc_cmds[r]; r++) {
		const struct cmd *const *sub = damonc_cmds[r]->subcmds;

		if (summaries)
			printf("%s\t%s\n", damonc_cmds[r]->name, damonc_cmds[r]->summary);
		else
			printf("%s\n", damonc_cmds[r]->name);
		for (; sub && *sub; sub++) {
			if (summaries)
				printf("%s %s\t%s\n", damonc_cmds[r]->name, (*sub)->name,
				       (*sub)->summary);
			else
				printf("%s %s\n", damonc_cmds[r]->name, (*sub)->name);
		}
	}
}

/* One global option at argv[*i] (moving *i past its value): false when it was taken and the
 * options go on, true when damonc ends here with *code (an answer such as --version, or a
 * usage error). */
static bool global_opt(struct cli *cli, int argc, char **argv, int *i, int *code)
{
	const char *arg = argv[*i];
	const struct cmd *c;

	*code = EXIT_OK;
	if (!strcmp(arg, "--json") || !strncmp(arg, "--json=", 7)) {
		cli->json = true;
		if (json_set_style(arg[6] ? arg + 7 : NULL)) {
			fprintf(stderr, "damonc: %s: expected --json, --json=pretty or "
				"--json=compact\n", arg);
			*code = EXIT_USAGE;
			return true;
		}
	} else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
		cli->verbose++;
	} else if (!strcmp(arg, "--sysroot") && *i + 1 < argc) {
		cli->sysroot = argv[++*i];
	} else if (!strcmp(arg, "--sysroot")) {
		fprintf(stderr, "damonc: option '--sysroot' needs a value (a directory)\n");
		*code = EXIT_USAGE;
		return true;
	} else if (!strncmp(arg, "--sysroot=", 10)) {
		cli->sysroot = arg + 10;
	} else if (!strcmp(arg, "--color") || !strncmp(arg, "--color=", 8)) {
		if (!arg[7] && *i + 1 >= argc) {
			fprintf(stderr, "damonc: option '--color' needs a value (auto, always or "
				"never)\n");
			*code = EXIT_USAGE;
			return true;
		}
		*code = set_color(cli, arg[7] ? arg + 8 : argv[++*i]);
		if (*code)
			return true;
	} else if (!strcmp(arg, "--version") || !strcmp(arg, "-V")) {
		printf("damonc %s\n", DAMONC_VERSION);
		return true;
	} else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		main_usage(stdout);
		return true;
	} else if (!strcmp(arg, "--list-cmds") || !strcmp(arg, "--describe-cmds")) {
		list_cmds(!strcmp(arg, "--describe-cmds"));
		return true;
	} else if (!strcmp(arg, "--list-values") && *i + 2 < argc) {
		*code = list_values(cli, argv[*i + 1], argv[*i + 2]);
		return true;
	} else if (!strcmp(arg, "--list-modules")) {
		*code = list_modules(cli, *i + 1 < argc ? argv[*i + 1] : NULL);
		return true;
	} else if (!strcmp(arg, "--list-opts") && *i + 1 < argc && !argv[*i + 1][0]) {
		/* before any command: the global options and those of damonc itself */
		list_opts(NULL);
		return true;
	} else if (!strcmp(arg, "--list-opts") && *i + 1 < argc) {
		c = damonc_find_cmd(argv[*i + 1]);
		if (!c) {
			fprintf(stderr, "damonc: unknown command '%s'\n", argv[*i + 1]);
			*code = EXIT_USAGE;
			return true;
		}
		list_opts(c);
		return true;
	} else {
		char hint[96];

		fprintf(stderr, "damonc: unknown option '%s'%s (see 'damonc --help')\n", arg,
			opt_hint(global_opts, top_opts, arg, hint, sizeof(hint)));
		*code = EXIT_USAGE;
		return true;
	}
	return false;
}

/* The options before the command, damonc's own and the global ones: false with *cmd_at at
 * the command, or true when damonc ends here with *code. */
static bool front_opts(struct cli *cli, int argc, char **argv, int *cmd_at, int *code)
{
	struct session *s = &damonc_session;
	int i, r;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		int g = i;

		r = top_opt(argc, argv, &i);
		if (r < 0) {
			*code = -r;
			return true;
		}
		if (r)
			continue;
		if (global_opt(cli, argc, argv, &i, code))
			return true;
		/* the shell's and the batch's lines run with the same global options */
		for (; g <= i; g++)
			session_add_global(s, argv[g]);
	}
	*cmd_at = i;
	return false;
}

/* A command with subcommands (@parent at argv[*cmd_at]): its --help, or the subcommand
 * named next into *c (with *cmd_at on it and cli->cmd_name set); true when damonc ends here
 * with *code. */
static bool pick_subcmd(struct cli *cli, const struct cmd *parent, const struct cmd **c,
			int argc, char **argv, int *cmd_at, int *code)
{
	*code = EXIT_USAGE;
	if (*cmd_at + 1 < argc && (!strcmp(argv[*cmd_at + 1], "--help") ||
				   !strcmp(argv[*cmd_at + 1], "-h"))) {
		cmd_usage(parent->name, parent, stdout);
		*code = EXIT_OK;
		return true;
	}
	if (*cmd_at + 1 >= argc) {
		fprintf(stderr, "damonc: %s: which one? ", parent->name);
		list_names(stderr, parent->subcmds);
		fprintf(stderr, " (see 'damonc %s --help')\n", parent->name);
		return true;
	}
	if (!strcmp(argv[*cmd_at + 1], "--version") || !strcmp(argv[*cmd_at + 1], "-V")) {
		printf("damonc %s\n", DAMONC_VERSION);
		*code = EXIT_OK;
		return true;
	}
	if (argv[*cmd_at + 1][0] == '-') {
		fprintf(stderr, "damonc: %s: unknown option '%s' (see 'damonc %s --help')\n",
			parent->name, argv[*cmd_at + 1], parent->name);
		return true;
	}
	*c = find_in(parent->subcmds, argv[++*cmd_at]);
	if (!*c) {
		char hint[96];

		fprintf(stderr, "damonc: %s: unknown command '%s'%s (see 'damonc %s --help')\n",
			parent->name, argv[*cmd_at],
			cmd_hint(parent->subcmds, argv[*cmd_at], hint, sizeof(hint)), parent->name);
		return true;
	}
	snprintf(cli->cmd_name, sizeof(cli->cmd_name), "%s %s", parent->name, (*c)->name);
	return false;
}

int damonc_main(int argc, char **argv)
{
	struct session *s = &damonc_session;
	struct cli cli = { 0 };
	const struct cmd *c;
	int r, cmd_at = 0;

	if (front_opts(&cli, argc, argv, &cmd_at, &r))
		return r;
	s->sysroot = cli.sysroot;
	s->json = cli.json;
	if (s->batch) {
		if (cmd_at < argc) {
			fprintf(stderr, "damonc: --batch runs the commands of its file, not '%s'\n",
				argv[cmd_at]);
			return EXIT_USAGE;
		}
		return batch_main(s);
	}
	if (s->force || s->atomic || s->dry_run) {
		fprintf(stderr, "damonc: %s: only with --batch (see damonc-shell(1))\n",
			s->force ? "--force" : s->atomic ? "--atomic" : "--dry-run");
		return EXIT_USAGE;
	}
	if (cmd_at >= argc) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[cmd_at], "help"))
		return help(argc - cmd_at - 1, argv + cmd_at + 1);
	c = damonc_find_cmd(argv[cmd_at]);
	if (!c) {
		char hint[96];

		fprintf(stderr, "damonc: unknown command '%s'%s (see 'damonc --help')\n",
			argv[cmd_at], cmd_hint(damonc_cmds, argv[cmd_at], hint, sizeof(hint)));
		return EXIT_USAGE;
	}
	if (c->subcmds && pick_subcmd(&cli, c, &c, argc, argv, &cmd_at, &r))
		return r;
	r = damonctl_new(&cli.ctx);
	if (r) {
		fprintf(stderr, "damonc: %s\n", strerror(-r));
		return EXIT_FAIL;
	}
	r = run_cmd(&cli, c, argc - cmd_at, argv + cmd_at);
	free(cli.opts);
	damonctl_free(cli.ctx);
	return finish_output(&cli, r);
}
