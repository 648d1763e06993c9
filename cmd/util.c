// SPDX-License-Identifier: GPL-2.0-or-later
/* Messages, option value parsing, JSON output and formatting shared by subcommands. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damonc.h"

static bool skipped(const char *name, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (!strcmp(name, *skip))
			return true;
	return false;
}

void opts_merge(struct opt *dst, size_t max, const char *const *skip,
		const struct opt *const *tables, size_t nr_tables)
{
	size_t t, n = 0;
	const struct opt *o;

	if (dst[0].name)
		return;
	for (t = 0; t < nr_tables; t++)
		for (o = tables[t]; o->name && n + 1 < max; o++)
			if (!skipped(o->name, skip))
				dst[n++] = *o;
	memset(&dst[n], 0, sizeof(*dst));
}

size_t safe_text(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!size)
		return 0;
	while (*p && o + 1 < size) {
		size_t n = damonctl_utf8_len((const char *)p, SIZE_MAX);
		char esc[8];

		if (n && (n > 1 || (*p >= 0x20 && *p != 0x7f))) {
			if (o + n >= size)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
			continue;
		}
		/* a control character or a byte that is not UTF-8: shown, not acted on */
		snprintf(esc, sizeof(esc), *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : "\\x%02x", *p);
		if (o + strlen(esc) >= size)
			break;
		memcpy(buf + o, esc, strlen(esc));
		o += strlen(esc);
		p++;
	}
	buf[o] = '\0';
	return o;
}

const char *safe_str(const char *s, char *buf, size_t size)
{
	safe_text(s ? s : "", buf, size);
	return buf;
}

/* Messages carry values from the command line, files and the tree: an escape sequence among
 * them is shown, not sent to the terminal. */
static void vput_safe(FILE *f, const char *fmt, va_list ap)
{
	char msg[4096], out[4096 * 4];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	safe_text(msg, out, sizeof(out));
	fputs(out, f);
}

static void put_safe(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_safe(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput_safe(f, fmt, ap);
	va_end(ap);
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
	put_safe(stderr, "damonc: %s: --%s '%s': expected ", cli->cmd_name, o->name, arg);
	for (i = 0; (name = opt_choice_name(o, i, &len)); i++)
		fprintf(stderr, "%s%.*s", !i ? "" : i + 1 < n ? ", " : " or ", (int)len, name);
	fputc('\n', stderr);
	return -1;
}

static int store_number(const struct cli *cli, const struct opt *o, const char *arg, void *p)
{
	uint64_t max = o->max ? o->max : o->dest == OD_INT ? INT32_MAX : UINT64_MAX, v;
	int r;

	switch (o->dest) {
	case OD_TIME:
		/* an .max on a time: a wait of damonc's own (check_wait()) */
		r = parse_time_opt(cli, o->name, arg, &v) ||
		    (o->max && check_wait(cli, o->name, arg, v));
		break;
	case OD_SIZE:
		r = parse_size_opt(cli, o->name, arg, &v);
		break;
	case OD_BP:
		r = o->value == OV_PERCENT ? parse_percent_opt(cli, o->name, arg, &v) :
		    parse_bp_opt(cli, o->name, arg, &v);
		break;
	default:
		r = parse_uint_opt(cli, o->name, arg, max, &v);
		break;
	}
	if (r)
		return EXIT_USAGE;
	if (o->positive && !v)
		return usage_error(cli, "--%s '%s': must be above 0", o->name, arg);
	if (o->dest == OD_INT)
		*(int *)p = (int)v;
	else
		*(uint64_t *)p = v;
	return 0;
}

int opt_store(const struct cli *cli, const struct opt *o, const char *arg)
{
	void *p = (char *)cli->opts + o->off;
	int i;

	switch (o->dest) {
	case OD_NONE:
		return EXIT_USAGE;
	case OD_FLAG:
		*(bool *)p = true;
		return 0;
	case OD_STRING:
		*(const char **)p = arg;
		return 0;
	case OD_PID:
		return parse_pid_opt(cli, o->name, arg, (int *)p);
	case OD_CHOICE:
		i = opt_choice(cli, o, o->key, arg);
		if (i < 0)
			return EXIT_USAGE;
		*(int *)p = i;
		return 0;
	default:
		return store_number(cli, o, arg, p);
	}
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	fputs("damonc: ", stderr);
	va_start(ap, fmt);
	vput_safe(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "damonc: %s: ", cli->cmd_name);
	va_start(ap, fmt);
	vput_safe(stderr, fmt, ap);
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
	case ELIBACC:	/* a library loaded on first use is not installed */
		return EXIT_UNSUPPORTED;
	default:
		return EXIT_FAIL;
	}
}

int oom_error(const struct cli *cli)
{
	fprintf(stderr, "damonc: %s: out of memory\n", cli->cmd_name);
	return EXIT_FAIL;
}

int lib_error(const struct cli *cli, int err, const char *what, ...)
{
	char sentence[1024];
	va_list ap;

	damonctl_strerror(cli->ctx, err, sentence, sizeof(sentence));
	fprintf(stderr, "damonc: %s: ", cli->cmd_name);
	va_start(ap, what);
	vput_safe(stderr, what, ap);
	va_end(ap);
	put_safe(stderr, ": %s", sentence);
	fputc('\n', stderr);
	return exit_code_for(err);
}

int value_error(const struct cli *cli, const char *opt, const char *arg, int err, uint64_t max,
		const char *expect)
{
	if (err == -EDOM)
		return usage_error(cli, "--%s '%s': at most %llu", opt, arg, (unsigned long long)max);
	if (err == -ERANGE)
		return usage_error(cli, "--%s '%s': the value is too large", opt, arg);
	if (arg[0] == '0' && arg[1] >= '0' && arg[1] <= '9')
		return usage_error(cli, "--%s '%s': a number with a leading 0 (damonc takes decimal "
				   "or 0x hexadecimal, never octal)", opt, arg);
	return usage_error(cli, "--%s '%s': expected %s", opt, arg, expect);
}

void time_unit_warn(const struct cli *cli, const char *opt, const char *arg)
{
	const char *p = arg;

	p += strspn(p, "0123456789");
	if (*p == '.')
		p += 1 + strspn(p + 1, "0123456789");
	if (p == arg || *p || strspn(arg, "0.") == strlen(arg))
		return;	/* a unit, "max", or 0 (the same in every unit) */
	fprintf(stderr, "damonc: %s: warning: --%s '", cli->cmd_name, opt);
	put_safe(stderr, "%s", arg);
	fprintf(stderr, "': a time without a unit is microseconds, as damo reads it; write '");
	put_safe(stderr, "%s", arg);
	fprintf(stderr, "us' to mean that, or '");
	put_safe(stderr, "%s", arg);
	fprintf(stderr, "s' or '");
	put_safe(stderr, "%s", arg);
	fprintf(stderr, "ms'\n");
}

int parse_time_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *us)
{
	int r = damonctl_parse_time_us(arg, us);

	if (r)
		return value_error(cli, opt, arg, r, 0, "a time such as 5s, 100ms or 250us");
	time_unit_warn(cli, opt, arg);
	return 0;
}

int check_wait(const struct cli *cli, const char *opt, const char *arg, uint64_t us)
{
	if (us <= DAMONCTL_WAIT_MAX_US)
		return 0;
	return usage_error(cli, "--%s '%s': at most 366 days (a longer wait is none, and would "
			   "overflow in nanoseconds)", opt, arg);
}

int parse_size_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bytes)
{
	int r = damonctl_parse_size(arg, bytes);

	return r ? value_error(cli, opt, arg, r, 0, "a size such as 4096, 2MiB or 1G") : 0;
}

int parse_percent_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp)
{
	int r = damonctl_parse_percent_bp(arg, bp);

	if (!r && *bp > 10000)
		return usage_error(cli, "--%s '%s': a percentage cannot exceed 100%%", opt, arg);
	return r ? value_error(cli, opt, arg, r, 0, "a percentage such as 5% or 12.5%") : 0;
}

int parse_bp_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t *bp)
{
	int r = damonctl_parse_bp(arg, bp);

	return r ? value_error(cli, opt, arg, r, 0, "basis points such as 500 (or 5%)") : 0;
}

int parse_uint_opt(const struct cli *cli, const char *opt, const char *arg, uint64_t max,
		   uint64_t *v)
{
	int r = damonctl_parse_u64(arg, v);

	/* "max" reads as the largest value: refused where there is a limit (--bins max asked
	 * for 96 GB, --target max read as -1) */
	if (!r && *v > max)
		r = -EDOM;
	return r ? value_error(cli, opt, arg, r, max, "a non-negative integer") : 0;
}

int parse_pid_opt(const struct cli *cli, const char *opt, const char *arg, int *pid)
{
	uint64_t v;

	/* damonc's one grammar (damonctl_parse_u64(3)), "max" aside */
	if (!strcmp(arg, "max") || damonctl_parse_u64(arg, &v) || !v || v > 0x3fffffff)
		return usage_error(cli, "--%s '%s': expected a process id", opt, arg);
	*pid = (int)v;
	return 0;
}

int parse_uint_token(const char *s, char stop, uint64_t *v, const char **end)
{
	const char *e = stop ? strchr(s, stop) : NULL;
	size_t n = e ? (size_t)(e - s) : strlen(s);
	char buf[32];

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*end = s + n;
	return strcmp(buf, "max") ? damonctl_parse_u64(buf, v) : -EINVAL;
}

json_object *json_doc_new(void)
{
	json_object *doc = json_object_new_object();

	if (doc)
		json_object_object_add(doc, "format_version",
				       json_object_new_int(DAMONC_JSON_FORMAT_VERSION));
	return doc;
}

/* JSON output must be UTF-8: a string read from a tree or a file that is not (binary bytes in
 * a sysfs file, a path in another encoding) is shown with its bad bytes as \xHH. */
static void json_make_utf8(json_object *o)
{
	size_t i, n;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			(void)key;
			json_make_utf8(val);
		}
		break;
	}
	case json_type_array:
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			json_make_utf8(json_object_array_get_idx(o, i));
		break;
	case json_type_string: {
		const char *s = json_object_get_string(o);
		const unsigned char *p;
		char *fixed;
		size_t len = strlen(s), size, n;

		for (p = (const unsigned char *)s; *p; p += n)
			if (!(n = damonctl_utf8_len((const char *)p, SIZE_MAX)))
				break;
		if (!*p)
			break;
		size = len * 4 + 1;
		fixed = malloc(size);
		if (!fixed)
			break;
		/* only the bad bytes change: control characters are JSON-escaped anyway */
		for (i = 0, p = (const unsigned char *)s; *p;) {
			size_t k = damonctl_utf8_len((const char *)p, SIZE_MAX);

			if (k) {
				memcpy(fixed + i, p, k);
				i += k;
				p += k;
			} else {
				i += (size_t)snprintf(fixed + i, size - i, "\\x%02x", *p++);
			}
		}
		fixed[i] = '\0';
		json_object_set_string(o, fixed);
		free(fixed);
		break;
	}
	default:
		break;
	}
}

int output_errno;

int output_flush(FILE *f)
{
	if (fflush(f) == EOF) {
		if (!output_errno)
			output_errno = errno;
		return -1;
	}
	return ferror(f) ? -1 : 0;
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
	json_make_utf8(doc);
	flags |= pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			  JSON_C_TO_STRING_PLAIN;
	if (puts(json_object_to_json_string_ext(doc, flags)) < 0) {
		if (!output_errno)
			output_errno = errno;
		r = -EIO;
	}
	json_object_put(doc);
	if (output_flush(stdout))
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

/* @text with each line after the first indented by @indent spaces (pretty output only) */
static int print_indented(const char *text, int indent)
{
	for (const char *p = text; *p; p++)
		if (putchar(*p) == EOF || (*p == '\n' && printf("%*s", indent, "") < 0))
			return -1;
	return 0;
}

static int stream_status(int printed)
{
	if (printed < 0 && !output_errno)
		output_errno = errno;
	return printed < 0 || ferror(stdout) ? -EIO : 0;
}

int json_stream_begin(struct json_stream *s, json_object *head, const char *key)
{
	const char *text;
	size_t len;
	int r;

	s->pretty = json_pretty(true);
	s->n = 0;
	if (!head)
		return -ENOMEM;
	json_make_utf8(head);
	text = json_object_to_json_string_ext(head, json_doc_flags(true));
	/* the closing brace (and, pretty, the newline before it) comes after the array */
	len = strlen(text);
	while (len && text[len - 1] != '}')
		len--;
	if (len)
		len--;
	while (s->pretty && len && text[len - 1] == '\n')
		len--;
	r = printf(s->pretty ? "%.*s,\n  \"%s\": [" : "%.*s,\"%s\":[", (int)len, text, key);
	json_object_put(head);
	return stream_status(r);
}

int json_stream_add(struct json_stream *s, json_object *elem)
{
	int r;

	json_make_utf8(elem);
	r = printf(s->pretty ? "%s\n    " : "%s", s->n++ ? "," : "");
	if (r >= 0)
		r = print_indented(json_object_to_json_string_ext(elem, json_doc_flags(true)),
				   s->pretty ? 4 : 0);
	json_object_put(elem);
	return stream_status(r);
}

int json_stream_end(struct json_stream *s, json_object *tail)
{
	const char *text;
	int r;

	if (!tail)
		return -ENOMEM;
	json_make_utf8(tail);
	/* @tail's members (at least one) without its opening brace close the document */
	text = json_object_to_json_string_ext(tail, json_doc_flags(true));
	r = printf(s->pretty && s->n ? "\n  ],%s\n" : "],%s\n", text + 1);
	json_object_put(tail);
	if (stream_status(r))
		return -EIO;
	return output_flush(stdout) ? -EIO : 0;
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

const char *fmt_size_col(uint64_t bytes, char *buf, size_t size)
{
	const char *space;

	fmt_size(bytes, buf, size);
	space = strchr(buf, ' ');
	/* a whole number of KiB..EiB: the decimals a fraction would have */
	if (space && !memchr(buf, '.', (size_t)(space - buf)) && strcmp(space, " B")) {
		char unit[8];

		snprintf(unit, sizeof(unit), "%s", space);
		snprintf(buf + (space - buf), size - (size_t)(space - buf), ".00%s", unit);
	}
	return buf;
}

const char *fmt_addr(uint64_t addr, char *buf, size_t size)
{
	snprintf(buf, size, "0x%016" PRIx64, addr);
	return buf;
}

const char *fmt_range(uint64_t start, uint64_t end, char *buf, size_t size)
{
	snprintf(buf, size, "0x%016" PRIx64 "-0x%016" PRIx64, start, end);
	return buf;
}

const char *fmt_bp(uint64_t bp, char *buf, size_t size)
{
	if (damonctl_fmt_bp(bp, buf, size) < 0)
		snprintf(buf, size, "?");
	return buf;
}

int input_error(const struct cli *cli, const char *opt, const char *path, int err)
{
	const char *name = strcmp(path, "-") ? path : "standard input";

	switch (-err) {
	case EISDIR:
		return usage_error(cli, "%s '%s': is a directory", opt, name);
	case ENODEV:
		return usage_error(cli, "%s '%s': not a regular file (a FIFO, socket or device "
				   "would block or never end; use '-' for standard input)", opt,
				   name);
	case EFBIG:
		return usage_error(cli, "%s '%s': larger than %u MiB, more than any configuration "
				   "needs", opt, name, DAMONC_MAX_INPUT >> 20);
	case EILSEQ:
		return usage_error(cli, "%s '%s': holds NUL bytes, so it is not a text file", opt,
				   name);
	case ENOENT:
	case EACCES:
	case ENOTDIR:
	case ENAMETOOLONG:
	case ELOOP:
		return usage_error(cli, "%s '%s': %s", opt, name, strerror(-err));
	default:
		usage_error(cli, "%s '%s': %s", opt, name, strerror(-err));
		return EXIT_FAIL;
	}
}

int output_error(const struct cli *cli, const char *opt, const char *path, int err)
{
	switch (-err) {
	case ELOOP:
		return usage_error(cli, "%s '%s': a symbolic link: damonc writes no file through "
				   "one (in a directory others can write, it may point anywhere); "
				   "name the file itself, or '-' for standard output", opt, path);
	case ENODEV:
		return usage_error(cli, "%s '%s': not a regular file: a device, FIFO or socket is "
				   "never written to or replaced (use '-' for standard output)", opt,
				   path);
	case EISDIR:
		return usage_error(cli, "%s '%s': is a directory", opt, path);
	case ENOENT:
	case ENOTDIR:
	case EACCES:
	case EPERM:
	case EROFS:
	case ENAMETOOLONG:
		return usage_error(cli, "%s '%s': %s", opt, path, strerror(-err));
	default:
		usage_error(cli, "writing '%s': %s", path, strerror(-err));
		return EXIT_FAIL;
	}
}

int output_check(const struct cli *cli, const char *opt, const char *path)
{
	char dir[4096], *slash;
	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (!*path || (slash && !slash[1]))
		return usage_error(cli, "%s '%s': a file name is needed", opt, path);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return usage_error(cli, "%s '%s': directory '%s' does not exist", opt, path, dir);
	if (lstat(path, &st))
		return 0;
	if (S_ISLNK(st.st_mode))
		return output_error(cli, opt, path, -ELOOP);
	if (S_ISDIR(st.st_mode))
		return output_error(cli, opt, path, -EISDIR);
	return S_ISREG(st.st_mode) ? 0 : output_error(cli, opt, path, -ENODEV);
}

int read_json_file(const char *path, json_object **root)
{
	char *doc;
	size_t len;
	int r = damonctl_file_read(path, DAMONC_MAX_INPUT, &doc, &len);

	*root = NULL;
	if (r == -ENOENT)
		return 0;
	if (r)
		return r;
	if (damonctl_json_check(doc, len, NULL, 0)) {
		free(doc);
		return -EBADMSG;
	}
	*root = json_tokener_parse(doc);
	free(doc);
	return *root && json_object_is_type(*root, json_type_object) ? 0 :
	       (json_object_put(*root), *root = NULL, -EBADMSG);
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
		r = damonctl_make_state_dir(dir);
		if (r)
			return r;
	}
	buf = malloc(len + 2);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	memcpy(buf + len, "\n", 2);
	r = damonctl_file_write(path, buf, len + 1, 0600);
	free(buf);
	return r;
}
