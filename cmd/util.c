// SPDX-License-Identifier: GPL-2.0-or-later
/* Messages, option value parsing, JSON output and formatting shared by subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damonc.h"

void opts_merge(struct opt *dst, size_t max, const char *skip, const struct opt *const *tables,
		size_t nr_tables)
{
	size_t t, n = 0;
	const struct opt *o;

	for (t = 0; t < nr_tables; t++)
		for (o = tables[t]; o->name && n + 1 < max; o++)
			if (!skip || strcmp(o->name, skip))
				dst[n++] = *o;
	memset(&dst[n], 0, sizeof(*dst));
}

/* The metavar "a|b|c" lists the choices when it is made of lower-case words only. */
static bool has_choices(const struct opt *o)
{
	const char *p = o->metavar;

	if (!p || !strchr(p, '|'))
		return false;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("|-_+", *p)))
			return false;
	return true;
}

const char *opt_choice_name(const struct opt *o, unsigned int i, size_t *len)
{
	const char *p = o->metavar;

	if (!has_choices(o))
		return NULL;
	for (; i; i--) {
		p = strchr(p, '|');
		if (!p)
			return NULL;
		p++;
	}
	if (len)
		*len = strcspn(p, "|");
	return p;
}

static const struct opt *opt_by_key(const struct opt *table, int key)
{
	for (; table->name; table++)
		if (table->key == key)
			return table;
	return NULL;
}

int opt_choice(const struct cli *cli, const struct opt *table, int key, const char *arg)
{
	const struct opt *o = opt_by_key(table, key);
	const char *name;
	unsigned int i, n = 0;
	size_t len;

	for (i = 0; o && (name = opt_choice_name(o, i, &len)); i++, n++)
		if (strlen(arg) == len && !strncmp(arg, name, len))
			return (int)i;
	if (!o)
		return -1;
	fprintf(stderr, "damonc: %s: --%s '%s': expected ", cli->cmd_name, o->name, arg);
	for (i = 0; (name = opt_choice_name(o, i, &len)); i++)
		fprintf(stderr, "%s%.*s", !i ? "" : i + 1 < n ? ", " : " or ", (int)len, name);
	fputc('\n', stderr);
	return -1;
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fputs("damonc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "damonc: %s: ", cli->cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int exit_code_for(int err)
{
	switch (-err) {
	case 0:
		return EXIT_OK;
	case EOPNOTSUPP:
		return EXIT_UNSUPPORTED;
	case EBUSY:
		return EXIT_BUSY;
	default:
		return EXIT_FAIL;
	}
}

int lib_error(const struct cli *cli, int err, const char *what, ...)
{
	char sentence[1024];
	va_list ap;

	damonctl_strerror(cli->ctx, err, sentence, sizeof(sentence));
	fprintf(stderr, "damonc: %s: ", cli->cmd_name);
	va_start(ap, what);
	vfprintf(stderr, what, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", sentence);
	return exit_code_for(err);
}

static int bad_value(const struct cli *cli, const char *opt, const char *arg, int err,
		     const char *expect)
{
	if (err == -ERANGE)
		return usage_error(cli, "--%s '%s': the value is too large", opt, arg);
	return usage_error(cli, "--%s '%s': expected %s", opt, arg, expect);
}

int parse_time_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *us)
{
	int r = damonctl_parse_time_us(arg, us);

	return r ? bad_value(cli, opt, arg, r, "a time such as 5s, 100ms or 250us") : 0;
}

int parse_size_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bytes)
{
	int r = damonctl_parse_size(arg, bytes);

	return r ? bad_value(cli, opt, arg, r, "a size such as 4096, 2MiB or 1G") : 0;
}

int parse_percent_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp)
{
	int r = damonctl_parse_percent_bp(arg, bp);

	if (!r && *bp > 10000)
		return usage_error(cli, "--%s '%s': a percentage cannot exceed 100%%", opt, arg);
	return r ? bad_value(cli, opt, arg, r, "a percentage such as 5% or 12.5%") : 0;
}

int parse_bp_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp)
{
	int r = damonctl_parse_bp(arg, bp);

	return r ? bad_value(cli, opt, arg, r, "basis points such as 500 (or 5%)") : 0;
}

int parse_uint_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t max,
		   uint64_t *v)
{
	int r = damonctl_parse_u64(arg, v);

	if (!r && *v > max && *v != DAMONCTL_MAX)
		return usage_error(cli, "--%s '%s': at most %llu", opt, arg,
				   (unsigned long long)max);
	return r ? bad_value(cli, opt, arg, r, "a non-negative integer") : 0;
}

int parse_pid_opt(const struct cli *cli, const char *opt, const char *arg, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v <= 0 || v > 0x3fffffff)
		return usage_error(cli, "--%s '%s': expected a process id", opt, arg);
	*pid = (int)v;
	return 0;
}

json_object *json_doc_new(void)
{
	json_object *doc = json_object_new_object();

	if (doc)
		json_object_object_add(doc, "format_version",
				       json_object_new_int(DAMONC_JSON_FORMAT_VERSION));
	return doc;
}

static enum { JSON_AUTO, JSON_PRETTY, JSON_COMPACT } json_style;

int json_set_style(const char *arg)
{
	if (!arg)
		json_style = JSON_AUTO;
	else if (!strcmp(arg, "pretty"))
		json_style = JSON_PRETTY;
	else if (!strcmp(arg, "compact"))
		json_style = JSON_COMPACT;
	else
		return -EINVAL;
	return 0;
}

const char *json_style_opt(void)
{
	return json_style == JSON_PRETTY ? "--json=pretty" :
	       json_style == JSON_COMPACT ? "--json=compact" : "--json";
}

static int json_print(json_object *doc, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE, r = 0;

	if (!doc)
		return -ENOMEM;
	flags |= pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			  JSON_C_TO_STRING_PLAIN;
	if (puts(json_object_to_json_string_ext(doc, flags)) < 0)
		r = -EIO;
	json_object_put(doc);
	if (fflush(stdout))
		r = -EIO;
	return r;
}

static bool json_pretty(bool to_stdout)
{
	/* as systemd and iproute2 do: people read a terminal, programs read pipes and files */
	return json_style == JSON_PRETTY ||
	       (json_style == JSON_AUTO && to_stdout && isatty(STDOUT_FILENO));
}

int json_doc_flags(bool to_stdout)
{
	return JSON_C_TO_STRING_NOSLASHESCAPE | (json_pretty(to_stdout) ?
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
}

int json_doc_print(json_object *doc)
{
	return json_print(doc, json_pretty(true));
}

int json_line_print(json_object *line)
{
	return json_print(line, false);
}

const char *fmt_time(uint64_t us, char *buf, size_t size)
{
	if (damonctl_fmt_time_us(us, buf, size) < 0)
		snprintf(buf, size, "?");
	return buf;
}

const char *fmt_size(uint64_t bytes, char *buf, size_t size)
{
	if (damonctl_fmt_size(bytes, buf, size) < 0)
		snprintf(buf, size, "?");
	return buf;
}

const char *fmt_bp(uint64_t bp, char *buf, size_t size)
{
	if (damonctl_fmt_bp(bp, buf, size) < 0)
		snprintf(buf, size, "?");
	return buf;
}

int read_all(const char *path, char **out)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	size_t len = 0, cap = 0;
	char *buf = NULL;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				if (fd != STDIN_FILENO)
					close(fd);
				return -ENOMEM;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			if (fd != STDIN_FILENO)
				close(fd);
			return -err;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	if (fd != STDIN_FILENO)
		close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int read_json_file(const char *path, json_object **root)
{
	char *doc;
	int r = read_all(path, &doc);

	*root = NULL;
	if (r == -ENOENT)
		return 0;
	if (r)
		return r;
	*root = json_tokener_parse(doc);
	free(doc);
	return *root ? 0 : -EBADMSG;
}

int make_dirs(const char *path)
{
	char tmp[4096], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	char tmp[4200];
	int r = 0, fd;

	/* written aside in the same directory and renamed: a reader never sees half a file */
	if (snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (mode && fchmod(fd, mode))
		r = -errno;
	while (!r && len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		data += n;
		len -= (size_t)n;
	}
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

int write_json_file(const char *path, json_object *root)
{
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	char dir[4096], *slash, *buf;
	size_t len = strlen(text);
	int r;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		r = make_dirs(dir);
		if (r)
			return r;
	}
	buf = malloc(len + 2);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	memcpy(buf + len, "\n", 2);
	r = write_file_atomic(path, buf, len + 1, 0);
	free(buf);
	return r;
}
