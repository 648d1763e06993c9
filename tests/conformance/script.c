// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsing of conformance scripts (grammar in README.md). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

#define MAX_TOK 16

struct tokens {
	char *t[MAX_TOK];
	bool quoted[MAX_TOK];
	int n;
};

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fputs("damon-conform: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = xmalloc(strlen(s) + 1);

	strcpy(d, s);
	return d;
}

static void tokens_free(struct tokens *tk)
{
	for (int i = 0; i < tk->n; i++)
		free(tk->t[i]);
	tk->n = 0;
}

/*
 * Split a line into words. '...' is literal; "..." takes \n \t \\ \" \$ escapes. Outside
 * single quotes $NAME is kept for expansion at run time; a literal '$' becomes "$$".
 */
static int tokenize(const char *s, struct tokens *tk, char *err, size_t errsize)
{
	tk->n = 0;
	for (;;) {
		char *out, *o;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			return 0;
		if (tk->n == MAX_TOK) {
			snprintf(err, errsize, "too many words");
			return -1;
		}
		out = o = xmalloc(2 * strlen(s) + 1);
		tk->quoted[tk->n] = false;
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'') {
				tk->quoted[tk->n] = true;
				for (s++; *s && *s != '\''; s++) {
					if (*s == '$')
						*o++ = '$';
					*o++ = *s;
				}
				if (*s != '\'') {
					snprintf(err, errsize, "unterminated '");
					free(out);
					return -1;
				}
				s++;
			} else if (*s == '"') {
				tk->quoted[tk->n] = true;
				for (s++; *s && *s != '"'; s++) {
					if (*s != '\\') {
						*o++ = *s;
						continue;
					}
					switch (*++s) {
					case 'n': *o++ = '\n'; break;
					case 't': *o++ = '\t'; break;
					case '\\': *o++ = '\\'; break;
					case '"': *o++ = '"'; break;
					case '$': *o++ = '$'; *o++ = '$'; break;
					default:
						snprintf(err, errsize, "bad escape in \"...\"");
						free(out);
						return -1;
					}
				}
				if (*s != '"') {
					snprintf(err, errsize, "unterminated \"");
					free(out);
					return -1;
				}
				s++;
			} else {
				*o++ = *s++;
			}
		}
		*o = '\0';
		tk->t[tk->n++] = out;
	}
}

static bool is_arrow(const struct tokens *tk, int i)
{
	return i < tk->n && !tk->quoted[i] && !strcmp(tk->t[i], "=>");
}

static int parse_op(const char *s, enum cmp_op *op)
{
	static const struct {
		const char *s;
		enum cmp_op op;
	} ops[] = {
		{ "=", OP_EQ }, { "!=", OP_NE }, { ">", OP_GT }, { ">=", OP_GE },
		{ "<", OP_LT }, { "<=", OP_LE }, { "~", OP_HAS },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!strcmp(s, ops[i].s)) {
			*op = ops[i].op;
			return 0;
		}
	}
	return -1;
}

static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *out < 0)
		return -1;
	if (!strcmp(end, "ms"))
		*out /= 1000;
	else if (*end && strcmp(end, "s"))
		return -1;
	return 0;
}

/* "R PATH OP VALUE" or "R PATH => ERR" starting at token @i. */
static int parse_read(struct tokens *tk, int i, struct step *st, char *err, size_t errsize)
{
	if (tk->n < i + 3) {
		snprintf(err, errsize, "R needs PATH OP VALUE or PATH => ERRNO");
		return -1;
	}
	st->kind = ST_READ;
	st->path = xstrdup(tk->t[i + 1]);
	if (is_arrow(tk, i + 2)) {
		st->op = OP_ERR;
		st->err = errno_parse(tk->t[i + 3 < tk->n ? i + 3 : i + 2]);
		if (tk->n != i + 4 || st->err <= 0) {
			snprintf(err, errsize, "R PATH => needs one errno name");
			return -1;
		}
		return i + 4;
	}
	if (parse_op(tk->t[i + 2], &st->op) || tk->n < i + 4) {
		snprintf(err, errsize, "R: bad operator '%s' or missing value", tk->t[i + 2]);
		return -1;
	}
	st->value = xstrdup(tk->t[i + 3]);
	return i + 4;
}

/* "[PATH VALUE] [=> ERR]" for W and mod-write. */
static int parse_write(struct tokens *tk, struct step *st, enum step_kind kind, char *err,
		       size_t errsize)
{
	st->kind = kind;
	if (tk->n != 3 && !(tk->n == 5 && is_arrow(tk, 3))) {
		snprintf(err, errsize, "%s needs PATH VALUE [=> ERRNO]", tk->t[0]);
		return -1;
	}
	st->path = xstrdup(tk->t[1]);
	st->value = xstrdup(tk->t[2]);
	if (tk->n == 5) {
		st->err = errno_parse(tk->t[4]);
		if (st->err <= 0 && strcmp(tk->t[4], "ok")) {
			snprintf(err, errsize, "unknown errno '%s'", tk->t[4]);
			return -1;
		}
		if (st->err < 0)
			st->err = 0;
	}
	return 0;
}

static int parse_step(struct tokens *tk, struct step *st, char *err, size_t errsize)
{
	const char *w = tk->t[0];

	if (!strcmp(w, "W"))
		return parse_write(tk, st, ST_WRITE, err, errsize);
	if (!strcmp(w, "mod-write"))
		return parse_write(tk, st, ST_MODWRITE, err, errsize);
	if (!strcmp(w, "R")) {
		if (parse_read(tk, 0, st, err, errsize) != tk->n) {
			if (!*err)
				snprintf(err, errsize, "trailing words after R");
			return -1;
		}
		return 0;
	}
	if ((!strcmp(w, "exists") || !strcmp(w, "absent")) && tk->n == 2) {
		st->kind = w[0] == 'e' ? ST_EXISTS : ST_ABSENT;
		st->path = xstrdup(tk->t[1]);
		return 0;
	}
	if (!strcmp(w, "count") && tk->n == 4 && !parse_op(tk->t[2], &st->op)) {
		st->kind = ST_COUNT;
		st->path = xstrdup(tk->t[1]);
		st->value = xstrdup(tk->t[3]);
		return 0;
	}
	if (!strcmp(w, "spawn") && tk->n >= 3) {
		st->kind = ST_SPAWN;
		st->name = xstrdup(tk->t[1]);
		st->what = xstrdup(tk->t[2]);
		if (!strcmp(tk->t[2], "sleep") && tk->n == 3)
			return 0;
		if (!strcmp(tk->t[2], "touch") && tk->n == 4 && !parse_size(tk->t[3], &st->size))
			return 0;
		snprintf(err, errsize, "spawn NAME sleep | spawn NAME touch SIZE");
		return -1;
	}
	if (!strcmp(w, "kill") && tk->n == 2) {
		st->kind = ST_KILL;
		st->name = xstrdup(tk->t[1]);
		return 0;
	}
	if (!strcmp(w, "sleep") && tk->n == 2 && !parse_seconds(tk->t[1], &st->timeout)) {
		st->kind = ST_SLEEP;
		return 0;
	}
	if (!strcmp(w, "save") && tk->n == 3) {
		st->kind = ST_SAVE;
		st->name = xstrdup(tk->t[1]);
		st->path = xstrdup(tk->t[2]);
		return 0;
	}
	if (!strcmp(w, "set") && tk->n == 3) {
		st->kind = ST_SET;
		st->name = xstrdup(tk->t[1]);
		st->value = xstrdup(tk->t[2]);
		return 0;
	}
	if (!strcmp(w, "reset") && tk->n == 1) {
		st->kind = ST_RESET;
		return 0;
	}
	if (!strcmp(w, "wait-until") && tk->n >= 2 && !strcmp(tk->t[1], "R")) {
		int next;

		st->kind = ST_WAIT;
		st->timeout = 10;
		st->inner = xmalloc(sizeof(*st->inner));
		next = parse_read(tk, 1, st->inner, err, errsize);
		if (next < 0)
			return -1;
		if (next == tk->n)
			return 0;
		if (next + 2 == tk->n && !strcmp(tk->t[next], "within") &&
		    !parse_seconds(tk->t[next + 1], &st->timeout))
			return 0;
		snprintf(err, errsize, "wait-until R ... [within SECONDS]");
		return -1;
	}
	snprintf(err, errsize, "unknown or malformed step '%s'", w);
	return -1;
}

static void step_free(struct step *st)
{
	free(st->conds);
	free(st->path);
	free(st->value);
	free(st->name);
	free(st->what);
	free(st->text);
	if (st->inner) {
		step_free(st->inner);
		free(st->inner);
	}
}

void script_free(struct script *s)
{
	for (int i = 0; i < s->n; i++)
		step_free(&s->steps[i]);
	free(s->steps);
	free(s->require);
	s->steps = NULL;
	s->n = 0;
}

static int parse_line(struct script *s, char *line, int lineno, char *err, size_t errsize)
{
	struct tokens tk;
	struct step st;
	char *text = xstrdup(line), *p = line, *conds = NULL;
	int ret = -1;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		char *close = strchr(p, ']');

		if (!close) {
			snprintf(err, errsize, "unterminated [condition]");
			goto out;
		}
		*close = '\0';
		conds = p + 1;
		p = close + 1;
	}
	if (tokenize(p, &tk, err, errsize))
		goto out;
	if (!tk.n) {
		if (conds)
			snprintf(err, errsize, "condition without a step");
		else
			ret = 0;
		goto out;
	}
	if (!strcmp(tk.t[0], "require")) {
		if (conds || tk.n != 2 || s->require) {
			snprintf(err, errsize, "require CONDITIONS (once, unconditional)");
		} else {
			s->require = xstrdup(tk.t[1]);
			ret = 0;
		}
		tokens_free(&tk);
		goto out;
	}
	memset(&st, 0, sizeof(st));
	st.line = lineno;
	st.conds = xstrdup(conds ? conds : "");
	st.text = text;
	text = NULL;
	if (parse_step(&tk, &st, err, errsize)) {
		step_free(&st);
		tokens_free(&tk);
		goto out;
	}
	tokens_free(&tk);
	s->steps = realloc(s->steps, (s->n + 1) * sizeof(*s->steps));
	if (!s->steps) {
		fputs("damon-conform: out of memory\n", stderr);
		exit(2);
	}
	s->steps[s->n++] = st;
	ret = 0;
out:
	free(text);
	return ret;
}

int script_load(const char *file, struct script *s)
{
	FILE *f = fopen(file, "r");
	char line[4096], err[200];
	int lineno = 0;
	struct kver any = { 600, false };

	memset(s, 0, sizeof(*s));
	s->file = file;
	if (!f) {
		fprintf(stderr, "damon-conform: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		err[0] = '\0';
		if (parse_line(s, line, lineno, err, sizeof(err)) ||
		    (s->n && s->steps[s->n - 1].line == lineno &&
		     kver_cond(s->steps[s->n - 1].conds, &any) < 0) ||
		    (s->require && kver_cond(s->require, &any) < 0)) {
			fprintf(stderr, "damon-conform: %s:%d: %s\n", file, lineno,
				*err ? err : "bad condition");
			fclose(f);
			script_free(s);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
