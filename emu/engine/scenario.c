// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Access scenario files.
 *
 * A real kdamond learns accesses from page-table Accessed bits; the emulated one asks the
 * scenario file given at mount time. At every sampling interval the kdamond picks one random
 * address in each region (as the kernel does) and draws "accessed" with the probability the
 * scenario gives for that address at that moment.
 *
 * FORMAT (UTF-8/ASCII text, one item per line):
 *
 *   # comment                       '#' starts a comment, anywhere on a line
 *   phase [from=T] [to=T]           rules that follow apply only from T until (not
 *                                   including) T; a new "phase" line replaces the previous
 *                                   one, "phase" alone means "always" again
 *   [pid=PID|any] addr=RANGE rate=RATE [from=T] [to=T]
 *                                   an access rule
 *
 *   PID    decimal pid of a monitoring target; "any" (the default when pid= is left out)
 *          matches every target, and is the only kind that matches paddr memory.
 *   RANGE  START-END, the half-open byte range [START, END); numbers in decimal or 0x hex.
 *          For vaddr/fvaddr these are virtual addresses of the target; for paddr, physical
 *          addresses in bytes (region address x addr_unit). "all" means the whole range.
 *   RATE   the share of samples that find the memory accessed: 0% to 100%, at most four
 *          decimals ("12.5%"); the '%' may be left out. rate=100% makes every sample of the
 *          range see an access, so nr_accesses reaches aggr_us/sample_us.
 *   T      time since the kdamond started: a number (decimals allowed) with an optional unit
 *          us, ms, s (the default) or m. from= defaults to 0, to= to forever. from=/to= on a
 *          rule override the ones of its phase.
 *
 * Where rules overlap, the later line wins, so a file can give a background rate first and
 * hot spots after it. Memory that no rule covers is never accessed, and neither is memory a
 * vaddr target has not mapped or has mapped PROT_NONE (a sample there finds nothing, as on a
 * real kernel). A file that does not exist means no rule.
 *
 * Example (the file `hotcold --scenario` writes):
 *
 *   pid=4242 addr=0x7f0000000000-0x7f0004000000 rate=100%
 *   pid=4242 addr=0x7f0004200000-0x7f0008200000 rate=0%
 *
 * The file is re-read (if its content changed) at most every 20 ms, so a test can start a
 * workload, learn its addresses and only then write the scenario. A file that fails to parse
 * is reported once on stderr and the previous rules stay in force. The kdamond process opens
 * the path as given, from the daemon's working directory (which is / once damon-emu has
 * gone to the background): use an absolute path.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

#define SCN_CHECK_INTERVAL_US 20000u
#define SCN_MAX_FILE (4u << 20)

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
	char buf[32], *e;
	size_t n = (size_t)(end - s);

	if (!n || n >= sizeof(buf) || *s == '-' || *s == '+')
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtoull(buf, &e, 0);
	if (errno || *e)
		return -EINVAL;
	return 0;
}

/* "12.5%" -> 125000 ppm. */
static int parse_rate(const char *s, uint32_t *out)
{
	uint64_t whole = 0, frac = 0;
	int nfrac = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		whole = whole * 10 + (uint64_t)(*s++ - '0');
		if (whole > 100)
			return -EINVAL;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		while (isdigit((unsigned char)*s)) {
			if (++nfrac > 4)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(*s++ - '0');
		}
	}
	if (*s == '%')
		s++;
	if (*s)
		return -EINVAL;
	for (; nfrac < 4; nfrac++)
		frac *= 10;
	whole = whole * 10000 + frac;	/* in 1/10000 of a percent = ppm */
	if (whole > SCN_RATE_FULL)
		return -EINVAL;
	*out = (uint32_t)whole;
	return 0;
}

/* "1.5s", "200ms", "30" (seconds) -> microseconds. */
static int parse_time(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t us;
	} units[] = { { "us", 1 }, { "ms", 1000 }, { "s", 1000000 }, { "m", 60000000 },
		      { "", 1000000 } };
	uint64_t whole = 0, frac = 0, div = 1;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		if (whole > UINT64_MAX / 10 / 60000000)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*s++ - '0');
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		while (isdigit((unsigned char)*s)) {
			if (div < 1000000) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				div *= 10;
			}
			s++;
		}
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(s, units[i].unit)) {
			*out = whole * units[i].us + frac * units[i].us / div;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *dash;

	if (!strcmp(s, "all")) {
		*start = 0;
		*end = UINT64_MAX;
		return 0;
	}
	dash = strchr(s, '-');
	if (!dash || parse_u64(s, dash, start) || parse_u64(dash + 1, dash + strlen(dash), end))
		return -EINVAL;
	return *start < *end ? 0 : -EINVAL;
}

static void set_err(char *err, size_t size, int line, const char *fmt, const char *what)
{
	if (err && size)
		snprintf(err, size, *what ? "line %d: %s'%s'" : "line %d: %s%s", line, fmt, what);
}

/* Splits @line (modified in place) into whitespace-separated words. */
static int split_words(char *line, char **words, int max)
{
	int n = 0;

	for (char *p = line; *p;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (n == max)
			return -E2BIG;
		words[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static int parse_line(char *line, int lineno, struct scn_rule *phase, struct scn_rule *rule,
		      bool *is_rule, char *err, size_t err_size)
{
	char *words[8];
	int n = split_words(line, words, 8), first = 0;
	bool is_phase, have_addr = false, have_rate = false;
	struct scn_rule r;

	*is_rule = false;
	if (n < 0) {
		set_err(err, err_size, lineno, "too many words", "");
		return -EINVAL;
	}
	if (!n)
		return 0;
	is_phase = !strcmp(words[0], "phase");
	if (is_phase) {
		first = 1;
		phase->from_us = 0;
		phase->to_us = SCN_FOREVER;
	}
	r = (struct scn_rule){ .any_pid = true, .from_us = phase->from_us, .to_us = phase->to_us,
			       .line = lineno };
	for (int i = first; i < n; i++) {
		char *eq = strchr(words[i], '=');
		const char *key = words[i], *val;
		int bad;

		if (!eq) {
			set_err(err, err_size, lineno, "expected key=value, got ", words[i]);
			return -EINVAL;
		}
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(key, "from")) {
			bad = parse_time(val, is_phase ? &phase->from_us : &r.from_us);
		} else if (!strcmp(key, "to")) {
			bad = parse_time(val, is_phase ? &phase->to_us : &r.to_us);
		} else if (is_phase) {
			bad = 1;
		} else if (!strcmp(key, "pid")) {
			uint64_t pid = 0;

			r.any_pid = !strcmp(val, "any");
			bad = 0;
			if (!r.any_pid) {
				bad = parse_u64(val, val + strlen(val), &pid) || !pid ||
				      pid > 0x7fffffff;
				r.pid = (pid_t)pid;
			}
		} else if (!strcmp(key, "addr")) {
			bad = parse_range(val, &r.start, &r.end);
			have_addr = true;
		} else if (!strcmp(key, "rate")) {
			bad = parse_rate(val, &r.rate);
			have_rate = true;
		} else {
			set_err(err, err_size, lineno, "unknown key ", key);
			return -EINVAL;
		}
		if (bad) {
			*eq = '=';
			set_err(err, err_size, lineno, "bad value in ", words[i]);
			return -EINVAL;
		}
	}
	if (is_phase) {
		if (phase->from_us >= phase->to_us) {
			set_err(err, err_size, lineno, "phase ends before it starts", "");
			return -EINVAL;
		}
		return 0;
	}
	if (!have_addr || !have_rate) {
		set_err(err, err_size, lineno, "a rule needs addr= and rate=", "");
		return -EINVAL;
	}
	if (r.from_us >= r.to_us) {
		set_err(err, err_size, lineno, "rule ends before it starts", "");
		return -EINVAL;
	}
	*rule = r;
	*is_rule = true;
	return 0;
}

int scn_parse(const char *text, struct scn_rule **rules, size_t *nr_rules, char *err,
	      size_t err_size)
{
	struct scn_rule phase = { .from_us = 0, .to_us = SCN_FOREVER }, *arr = NULL;
	size_t nr = 0, cap = 0;
	int lineno = 0, ret = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, len), *hash;
		struct scn_rule r;
		bool is_rule;

		lineno++;
		if (!line) {
			ret = -ENOMEM;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		ret = parse_line(line, lineno, &phase, &r, &is_rule, err, err_size);
		free(line);
		if (ret)
			break;
		if (is_rule) {
			if (nr == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct scn_rule *n = realloc(arr, ncap * sizeof(*n));

				if (!n) {
					ret = -ENOMEM;
					break;
				}
				arr = n;
				cap = ncap;
			}
			arr[nr++] = r;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	if (ret) {
		free(arr);
		return ret;
	}
	*rules = arr;
	*nr_rules = nr;
	return 0;
}

struct scenario *scn_new(const char *path)
{
	struct scenario *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (path && *path) {
		s->path = strdup(path);
		if (!s->path) {
			free(s);
			return NULL;
		}
	}
	return s;
}

void scn_free(struct scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->rules);
	free(s->text);
	free(s->bad_text);
	free(s);
}

static bool same_text(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int apply_text(struct scenario *s, char *text)
{
	struct scn_rule *rules;
	size_t nr;
	char err[160];

	if (same_text(s->text, text) || same_text(s->bad_text, text)) {
		free(text);
		return 0;
	}
	if (scn_parse(text, &rules, &nr, err, sizeof(err))) {
		fprintf(stderr, "damon-emu: scenario %s: %s; keeping the previous rules\n",
			s->path ? s->path : "(text)", err);
		free(s->bad_text);
		s->bad_text = text;
		return -EINVAL;
	}
	free(s->rules);
	free(s->text);
	free(s->bad_text);
	s->bad_text = NULL;
	s->rules = rules;
	s->nr_rules = nr;
	s->text = text;
	return 0;
}

int scn_set_text(struct scenario *s, const char *text)
{
	char *copy = strdup(text);

	return copy ? apply_text(s, copy) : -ENOMEM;
}

static char *read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return errno == ENOENT ? strdup("") : NULL;
	buf = malloc(cap);
	while (buf) {
		ssize_t n;

		if (len + 1 == cap) {
			char *nb = cap < SCN_MAX_FILE ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

void scn_refresh(struct scenario *s, uint64_t now_us)
{
	char *text;

	if (!s || !s->path || now_us < s->next_check_us)
		return;
	s->next_check_us = now_us + SCN_CHECK_INTERVAL_US;
	text = read_file(s->path);
	if (text)
		apply_text(s, text);
}

static bool rule_applies(const struct scn_rule *r, pid_t pid, uint64_t t_us)
{
	if (!r->any_pid && (pid < 0 || r->pid != pid))
		return false;
	return r->from_us <= t_us && t_us < r->to_us;
}

uint32_t scn_rate(const struct scenario *s, pid_t pid, uint64_t addr, uint64_t t_us)
{
	if (!s)
		return 0;
	for (size_t i = s->nr_rules; i-- > 0;) {
		const struct scn_rule *r = &s->rules[i];

		if (rule_applies(r, pid, t_us) && r->start <= addr && addr < r->end)
			return r->rate;
	}
	return 0;
}

uint64_t scn_same_rate_end(const struct scenario *s, pid_t pid, uint64_t addr, uint64_t end,
			   uint64_t t_us)
{
	uint64_t next = end;

	if (!s)
		return end;
	for (size_t i = 0; i < s->nr_rules; i++) {
		const struct scn_rule *r = &s->rules[i];

		if (!rule_applies(r, pid, t_us))
			continue;
		if (r->start > addr && r->start < next)
			next = r->start;
		if (r->end > addr && r->end < next)
			next = r->end;
	}
	return next;
}
