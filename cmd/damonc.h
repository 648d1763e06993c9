/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damonc: the command table, option tables, exit codes and helpers shared by subcommands. */
#ifndef DAMONC_H
#define DAMONC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "damonctl/damonctl.h"

/* Exit codes, documented in damonc(1). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* the operation failed: kernel refusal, I/O */
	EXIT_USAGE = 2,		/* bad usage or invalid input; nothing was changed */
	EXIT_UNSUPPORTED = 3,	/* the kernel lacks a feature the request needs, or a
				 * part of damonc it needs is not installed */
	EXIT_BUSY = 4,		/* DAMON is busy: another kdamond or DAMON module holds it */
};

/* What an option's value is, for parsing help and for shell completion. */
enum opt_value {
	OV_NONE,	/* a flag */
	OV_STRING,
	OV_FILE,
	OV_DIR,
	OV_PID,
	OV_INT,
	OV_TIME,	/* 5s, 100ms */
	OV_SIZE,	/* 2MiB */
	OV_PERCENT,	/* 80% */
	OV_BP,		/* 500 (basis points) */
	OV_ACTION,	/* keywords of the sets below */
	OV_OPS,
	OV_METRIC,
	OV_TUNER,
	OV_FILTER,
	OV_RANGE,	/* MIN,MAX */
	OV_GOAL,	/* METRIC=VALUE[,nid=N][,path=P] */
	OV_REGION,	/* START-END */
	OV_FORMAT,
	OV_OPTIONAL,	/* --name, or --name=VALUE with VALUE one of the metavar's "a|b" */
};

/* Where parsing puts an option's value: a member, of the C type named here, of the
 * command's options (struct cmd's opts_size bytes, at cli->opts during its run). OD_NONE:
 * the command's parse function takes the option. */
enum opt_dest {
	OD_NONE,
	OD_FLAG,	/* bool, set */
	OD_STRING,	/* const char *: the argument (argv outlives the run) */
	OD_INT,		/* int, 0 to max (0: INT32_MAX) */
	OD_U64,		/* uint64_t, 0 to max (0: no limit) */
	OD_TIME,	/* uint64_t microseconds */
	OD_SIZE,	/* uint64_t bytes */
	OD_BP,		/* uint64_t basis points: OV_BP 500, OV_PERCENT 5% */
	OD_PID,		/* int, a process id */
	OD_CHOICE,	/* int: the argument's index among the metavar's "a|b|c" */
};

struct opt {
	const char *name;	/* long option, without dashes */
	int key;		/* short option character, or a unique value >= 256 */
	enum opt_value value;
	const char *metavar;
	const char *help;
	enum opt_dest dest;
	size_t off;		/* of the member in the command's options */
	uint64_t max;		/* OD_INT, OD_U64: the largest value; OD_TIME: a wait (check_wait) */
	bool positive;		/* OD_INT, OD_U64, OD_TIME, OD_SIZE: 0 is refused */
};

/* An option table entry's destination: OPT_TO(OD_FLAG, struct tune_opts, dry_run). */
#define OPT_TO(kind, type, member) .dest = (kind), .off = offsetof(type, member)

struct cli;

struct cmd {
	const char *name;
	const char *summary;
	const char *usage;	/* after "damonc NAME " */
	const struct opt *opts;	/* terminated by { NULL } */
	/* Parse one option (key, optarg); return 0 or an exit code. */
	int (*parse)(struct cli *cli, int key, const char *arg);
	/* Run with the positional arguments left after options. */
	int (*run)(struct cli *cli, int argc, char **argv);
	const struct cmd *const *subcmds;	/* "damonc report hugepage": NULL-terminated */
	/* The command's options, which its option table's OPT_TO entries fill: a copy of
	 * @opts_init (@opts_size bytes) at cli->opts for the run; none when 0. */
	size_t opts_size;
	const void *opts_init;
	/* Fills @opts (a table merged from others) before its first use, rather than at
	 * every start of damonc whatever the command; NULL when @opts is a table as is. */
	void (*init)(void);
};

struct cli {
	struct damonctl_ctx *ctx;
	const struct cmd *cmd;
	char cmd_name[64];	/* "status", "report hugepage": for messages */
	bool json;
	int verbose;
	const char *sysroot;
	bool staging;	/* a line of an --atomic batch: start, tune and stop change its model */
	void *opts;	/* the command's options (struct cmd's opts_size), or NULL */
};

/* The command table (main.c). */
extern const struct cmd *const damonc_cmds[];
/* @c's options (c->opts, filled by c->init first). */
const struct opt *cmd_opts(const struct cmd *c);
/* main() itself, run again in the child that runs a line of the shell or of a batch. */
int damonc_main(int argc, char **argv);
/* "status" or "report hugepage"; NULL when there is no such command. */
const struct cmd *damonc_find_cmd(const char *name);
/* Option "--name" or "-x" of @c (its own or a global one), or NULL. */
const struct opt *damonc_find_opt(const struct cmd *c, const char *arg);
/* Option @o's short form ("-p" for --pid: 'p'), or 0 when it has none. */
int opt_short(const struct opt *o);
/* The @i-th option of @c, global ones after its own (@c NULL: the global ones only). */
const struct opt *damonc_opt_at(const struct cmd *c, unsigned int i);
/* The kdamonds of @ctx's tree by index ("0", "1", ...), for completing --kdamond. */
void damonc_kdamond_values(struct damonctl_ctx *ctx, void (*fn)(void *data, const char *value,
								   size_t len), void *data);
/* The values option @o takes, as --list-values prints them: its choices or keywords. */
void damonc_opt_values(const struct opt *o, void (*fn)(void *data, const char *value,
							 size_t len), void *data);


/* Concatenate NULL-name-terminated option tables into @dst (room for @max entries, the
 * terminator included), leaving out the options named in the NULL-terminated @skip (or none
 * when NULL); nothing when @dst is filled already (a struct cmd's init, called again). */
void opts_merge(struct opt *dst, size_t max, const char *const *skip,
		const struct opt *const *tables, size_t nr_tables);

/* @s with control characters and bytes that are not UTF-8 written as \n, \t, \xHH (a value
 * from a file, the command line or the tree is shown, never acted on by a terminal), cut to
 * fit @size; returns the length. */
size_t safe_text(const char *s, char *buf, size_t size);
/* The same, returning @buf (NULL @s reads as ""), for printf arguments. */
const char *safe_str(const char *s, char *buf, size_t size);

/* Options whose metavar lists their values ("text|raw|png|svg"): that list is the one
 * parsing, help and completion use. opt_choice_name: the i-th choice (@len: its length) or
 * NULL; opt_choice: the index of @arg among the choices of option @key of @table, or -1
 * after saying what was expected. */
const char *opt_choice_name(const struct opt *o, unsigned int i, size_t *len);
int opt_choice(const struct cli *cli, const struct opt *table, int key, const char *arg);
/* Put @arg where option @o's entry says (o->dest, not OD_NONE) in cli->opts: 0, or
 * EXIT_USAGE after saying what was wrong with it. */
int opt_store(const struct cli *cli, const struct opt *o, const char *arg);

/* Messages. All go to stderr; stdout carries only results. Values in them are shown through
 * safe_text(). */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "damonc CMD: <msg>" and return EXIT_USAGE. */
int usage_error(const struct cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "damonc CMD: out of memory": no fault of the input, so exit 1 (EXIT_FAIL), returned. */
int oom_error(const struct cli *cli);
/* Report a library error: "damonc CMD: WHAT: <sentence>"; returns the exit code for @err. */
int lib_error(const struct cli *cli, int err, const char *what, ...)
	__attribute__((format(printf, 3, 4)));
int exit_code_for(int err);

/* Option value parsing with errors naming the option (return 0 or EXIT_USAGE). */
/* "--OPT 'ARG': " and why @arg is not a value: too large for its unit (-ERANGE), above @max
 * (-EDOM), or not "expected @expect"; EXIT_USAGE. */
int value_error(const struct cli *cli, const char *opt, const char *arg, int err, uint64_t max,
		const char *expect);
/* An interval or duration damonc waits (record's, monitor's, trace's, the reports'): at
 * most DAMONCTL_WAIT_MAX_US (a year), "max" included; 0 or the exit code after saying so. */
int check_wait(const struct cli *cli, const char *opt, const char *arg, uint64_t us);
int parse_time_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *us);
/* A time typed without a unit ("1") is microseconds, damo's and the library's reading; a
 * warning says so, and how to write it (0 and "max" need no unit). */
void time_unit_warn(const struct cli *cli, const char *opt, const char *arg);
int parse_size_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bytes);
int parse_percent_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp);
int parse_bp_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp);
int parse_uint_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t max,
		   uint64_t *v);
/* The unsigned integer at @s up to the first @stop (0: the end), in damonc's one grammar
 * (damonctl_parse_u64(3) without "max"): 0 with *end at @stop or the end, or -EINVAL,
 * -ERANGE. For the numbers of "A,B" and "AxB" values. */
int parse_uint_token(const char *s, char stop, uint64_t *v, const char **end);
int parse_pid_opt(const struct cli *cli, const char *opt, const char *arg, int *pid);

/* JSON output: one document on stdout, with format_version. Pretty on a terminal and compact
 * otherwise, unless --json=pretty or --json=compact said which; slashes are not escaped. */
#define DAMONC_JSON_FORMAT_VERSION 1
json_object *json_doc_new(void);
/* fflush(@f), keeping the errno of the first failure in output_errno for main's message:
 * 0, or -1 when the output failed (now or earlier). */
int output_flush(FILE *f);
extern int output_errno;
int json_doc_print(json_object *doc);	/* prints and frees */
/* A document with an array too long to hold (one element per snapshot or so):
 * json_stream_begin() prints @head's members and opens array @key, json_stream_add() prints
 * one element, json_stream_end() closes it and prints @tail's members (what is known only at
 * the end) after it. Each frees the objects it is given; 0 or -EIO. */
struct json_stream {
	bool pretty;
	size_t n;
};
int json_stream_begin(struct json_stream *s, json_object *head, const char *key);
int json_stream_add(struct json_stream *s, json_object *elem);
int json_stream_end(struct json_stream *s, json_object *tail);
/* json-c's flags for a document in that style, going to stdout or (!@to_stdout) a file. */
int json_doc_flags(bool to_stdout);
/* One line of JSON Lines (--watch): always compact, flushed; prints and frees. */
int json_line_print(json_object *line);
/* --json's value: NULL (the default), "pretty" or "compact"; -EINVAL for anything else.
 * The style is the process's, as stdout is. */
int json_set_style(const char *arg);
/* The --json option that sets the current style again: "--json", "--json=pretty", ... */
const char *json_style_opt(void);
/* json-c's flags for damonc's state files and other text damonc writes: no slash escaping. */
#define DAMONC_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Human formatting into a caller's buffer; return it for use in printf. */
const char *fmt_time(uint64_t us, char *buf, size_t size);
const char *fmt_size(uint64_t bytes, char *buf, size_t size);
const char *fmt_bp(uint64_t bp, char *buf, size_t size);
/* A size in a column: always two decimals past bytes ("24.00 MiB", never "24 MiB" above
 * "23.50 MiB"), at most SIZE_COL columns wide. */
#define SIZE_COL 11
const char *fmt_size_col(uint64_t bytes, char *buf, size_t size);
/* An address as every report writes it: 0x and 16 hexadecimal digits (ranges as
 * START-END, half-open), so that addresses align in a column and compare digit by digit. */
const char *fmt_addr(uint64_t addr, char *buf, size_t size);
const char *fmt_range(uint64_t start, uint64_t end, char *buf, size_t size);

/* Inputs (config files, stdin) are bounded: a generous limit, far above any real config. */
#define DAMONC_MAX_INPUT (4u << 20)
/* (read with damonctl_file_read(3); files damonc keeps are written with damonctl_file_write) */
/* Say why @path (given to option @opt, e.g. "-c") could not be read; the exit code: 2 for
 * what the user named wrongly, 1 for I/O errors. */
int input_error(const struct cli *cli, const char *opt, const char *path, int err);
/* Say why @path (given to option @opt, e.g. "-o") cannot be written (damonctl_file_write(3)
 * and damonctl_file_open(3)'s refusals: a symbolic link, a device, FIFO or socket, a
 * directory); the exit code: 2 for what the user named wrongly, 1 for I/O errors. */
int output_error(const struct cli *cli, const char *opt, const char *path, int err);
/* Before anything is done: @path ("-" is stdout) can be written, in a directory that exists,
 * at a name that is nothing yet or a regular file; 0, or the exit code after saying why. */
int output_check(const struct cli *cli, const char *opt, const char *path);
/* Parse a JSON file of damonc's own state: 0 with *root NULL when it does not exist,
 * -EBADMSG when it is not one strict JSON object. */
int read_json_file(const char *path, json_object **root);
/* Write it atomically (aside, then renamed), 0600, its directory a state directory
 * (damonctl_make_state_dir(3)). */
int write_json_file(const char *path, json_object *root);

#endif
