// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Strict JSON (RFC 8259) before json-c sees a document. json-c is lenient: it takes comments,
 * single quotes, NaN, trailing bytes after the document and integers beyond 64 bits (which it
 * clamps), and its error messages name the states of its own parser ("continue"). Every
 * document the library reads passes here first, so what is accepted is JSON, and what is
 * refused is said with a line, a column and what was found.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

#define MAX_DEPTH 64

struct jscan {
	const unsigned char *s;
	size_t len, pos;
	char *why;
	size_t size;
};

static bool at_end(const struct jscan *j)
{
	return j->pos >= j->len;
}

static void where(const struct jscan *j, size_t pos, unsigned int *line, unsigned int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < pos && i < j->len; i++) {
		if (j->s[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if ((j->s[i] & 0xc0) != 0x80) {	/* count characters, not bytes */
			(*col)++;
		}
	}
}

static int fail_at(struct jscan *j, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_at(struct jscan *j, size_t pos, const char *fmt, ...)
{
	unsigned int line, col;
	va_list ap;
	int n;

	if (!j->why || !j->size)
		return -EINVAL;
	where(j, pos, &line, &col);
	n = snprintf(j->why, j->size, "line %u, column %u: ", line, col);
	if (n < 0 || (size_t)n >= j->size)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(j->why + n, j->size - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* What is at @pos, for a message: 'x', a byte as \xHH, or the end. */
static const char *found(const struct jscan *j, size_t pos, char *buf, size_t size)
{
	unsigned char c;

	if (pos >= j->len)
		return "the end of the document";
	c = j->s[pos];
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else if (c == ' ')
		snprintf(buf, size, "a blank");
	else if (c == '\n' || c == '\r' || c == '\t')
		snprintf(buf, size, "a line break or tab");
	else
		snprintf(buf, size, "the byte \\x%02x", c);
	return buf;
}

static void skip_blanks(struct jscan *j)
{
	while (!at_end(j) && strchr(" \t\r\n", j->s[j->pos]) && j->s[j->pos])
		j->pos++;
}

DAMONCTL_API size_t damonctl_utf8_len(const char *s, size_t avail)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char c = p[0];
	size_t n, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int hex4(const unsigned char *p, unsigned int *v)
{
	unsigned int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		unsigned char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return -1;
	}
	return 0;
}

static int scan_string(struct jscan *j)
{
	size_t start = j->pos;
	char buf[32];

	j->pos++;	/* the opening quote */
	for (;;) {
		unsigned char c;
		size_t n;

		if (at_end(j))
			return fail_at(j, start, "the string that starts here does not end");
		c = j->s[j->pos];
		if (c == '"') {
			j->pos++;
			return 0;
		}
		if (c < 0x20)
			return fail_at(j, j->pos, "%s inside a string (write it as an escape such "
				       "as \\n or \\u0001)", found(j, j->pos, buf, sizeof(buf)));
		if (c == '\\') {
			unsigned int u, lo;

			if (j->pos + 1 >= j->len)
				return fail_at(j, start, "the string that starts here does not end");
			c = j->s[j->pos + 1];
			if (strchr("\"\\/bfnrt", c) && c) {
				j->pos += 2;
				continue;
			}
			if (c != 'u')
				return fail_at(j, j->pos, "'\\%c' is not a JSON escape", c >= 0x21 &&
					       c < 0x7f ? c : '?');
			if (j->pos + 6 > j->len || hex4(j->s + j->pos + 2, &u))
				return fail_at(j, j->pos, "'\\u' needs four hex digits");
			if (u >= 0xdc00 && u <= 0xdfff)
				return fail_at(j, j->pos, "a lone low surrogate (\\u%04x)", u);
			if (u >= 0xd800 && u <= 0xdbff) {
				if (j->pos + 12 > j->len || j->s[j->pos + 6] != '\\' ||
				    j->s[j->pos + 7] != 'u' || hex4(j->s + j->pos + 8, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff)
					return fail_at(j, j->pos, "a high surrogate (\\u%04x) without "
						       "its low half", u);
				j->pos += 6;
			}
			if (!u)
				return fail_at(j, j->pos, "'\\u0000' (a NUL character) cannot be "
					       "kept in a string");
			j->pos += 6;
			continue;
		}
		n = damonctl_utf8_len((const char *)j->s + j->pos, j->len - j->pos);
		if (!n)
			return fail_at(j, j->pos, "%s is not UTF-8 text",
				       found(j, j->pos, buf, sizeof(buf)));
		j->pos += n;
	}
}

/* Integers must fit 64 bits (json-c would clamp them silently); fractions and exponents are
 * left to json-c as doubles, unless they overflow. */
static int scan_number(struct jscan *j)
{
	size_t start = j->pos, digits_at, nd = 0;
	bool neg = false, frac = false;
	char buf[32];

	if (j->s[j->pos] == '-') {
		neg = true;
		j->pos++;
	}
	digits_at = j->pos;
	if (at_end(j) || j->s[j->pos] < '0' || j->s[j->pos] > '9')
		return fail_at(j, j->pos, "expected a digit after '-', found %s",
			       found(j, j->pos, buf, sizeof(buf)));
	if (j->s[j->pos] == '0' && j->pos + 1 < j->len && j->s[j->pos + 1] >= '0' &&
	    j->s[j->pos + 1] <= '9')
		return fail_at(j, start, "numbers do not start with 0 (octal is not JSON)");
	while (!at_end(j) && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
		j->pos++;
		nd++;
	}
	if (!at_end(j) && j->s[j->pos] == '.') {
		frac = true;
		j->pos++;
		if (at_end(j) || j->s[j->pos] < '0' || j->s[j->pos] > '9')
			return fail_at(j, j->pos, "expected a digit after '.'");
		while (!at_end(j) && j->s[j->pos] >= '0' && j->s[j->pos] <= '9')
			j->pos++;
	}
	if (!at_end(j) && (j->s[j->pos] == 'e' || j->s[j->pos] == 'E')) {
		size_t e = ++j->pos, ed = 0;

		frac = true;
		if (!at_end(j) && (j->s[j->pos] == '+' || j->s[j->pos] == '-'))
			j->pos++;
		while (!at_end(j) && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
			j->pos++;
			ed++;
		}
		if (!ed)
			return fail_at(j, e, "expected the digits of an exponent");
	}
	if (frac) {
		char num[80];
		double d;

		/* a double that overflows would become inf, which JSON cannot write back */
		if (j->pos - start >= sizeof(num))
			return fail_at(j, start, "a number of more than %zu characters",
				       sizeof(num) - 1);
		memcpy(num, j->s + start, j->pos - start);
		num[j->pos - start] = '\0';
		d = strtod(num, NULL);
		if (isinf(d))
			return fail_at(j, start, "the number %s is out of range", num);
	}
	if (!frac) {
		/* compare against 9223372036854775808 (negative) or 18446744073709551615 */
		const char *lim = neg ? "9223372036854775808" : "18446744073709551615";
		size_t ll = strlen(lim);

		if (nd > ll || (nd == ll && memcmp(j->s + digits_at, lim, ll) > 0))
			return fail_at(j, start, "the integer %.*s is out of range (integers go "
				       "from -2^63 to 2^64-1)", (int)(nd + neg > 40 ? 40 : nd + neg),
				       (const char *)j->s + start);
	}
	return 0;
}

static int scan_value(struct jscan *j, unsigned int depth);

/* ---- duplicate member names: json-c keeps the last one silently ---- */

struct member {
	char *name;		/* decoded, NUL-terminated (a name holds no NUL: \u0000 is refused) */
	size_t pos;		/* where its opening quote is */
};

struct members {
	struct member *v;
	size_t nr, cap;
};

/* The UTF-8 of code point @cp at @out: its length. */
static size_t put_utf8(unsigned int cp, char *out)
{
	if (cp < 0x80)
		return (size_t)(out[0] = (char)cp, 1);
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The string scan_string() accepted between @start (its quote) and @end (past its closing
 * one), decoded as json-c decodes it: malloc'd, or NULL. */
static char *decode_string(const unsigned char *s, size_t start, size_t end)
{
	char *out = malloc(end - start), *o = out;	/* never longer than its escapes */
	size_t i = start + 1;

	if (!out)
		return NULL;
	while (i < end - 1) {
		unsigned int cp, lo;

		if (s[i] != '\\') {
			*o++ = (char)s[i++];
			continue;
		}
		if (s[i + 1] != 'u') {
			const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";

			*o++ = to[strchr(from, s[i + 1]) - from];
			i += 2;
			continue;
		}
		hex4(s + i + 2, &cp);
		i += 6;
		if (cp >= 0xd800 && cp <= 0xdbff) {	/* its low half follows (checked) */
			hex4(s + i + 2, &lo);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			i += 6;
		}
		o += put_utf8(cp, o);
	}
	*o = '\0';
	return out;
}

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int members_add(struct jscan *j, struct members *m, size_t start, size_t end)
{
	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct member *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return fail_at(j, start, "out of memory");
		m->v = v;
		m->cap = cap;
	}
	m->v[m->nr].name = decode_string(j->s, start, end);
	if (!m->v[m->nr].name)
		return fail_at(j, start, "out of memory");
	m->v[m->nr++].pos = start;
	return 0;
}

/* No name twice in one object: sorted, a name equal to the one before is the later one
 * given again (in the document's order). */
static int members_check(struct jscan *j, struct members *m)
{
	char shown[65];
	size_t i, k;

	if (m->nr < 2)
		return 0;	/* (an empty object has no array to sort: qsort of NULL) */
	qsort(m->v, m->nr, sizeof(*m->v), member_cmp);
	for (i = 1; i < m->nr; i++) {
		if (strcmp(m->v[i].name, m->v[i - 1].name))
			continue;
		/* named as it reads, control characters shown as '?' */
		for (k = 0; m->v[i].name[k] && k < sizeof(shown) - 1; k++)
			shown[k] = (unsigned char)m->v[i].name[k] < 0x20 ||
				   m->v[i].name[k] == 0x7f ? '?' : m->v[i].name[k];
		shown[k] = '\0';
		return fail_at(j, m->v[i].pos, "the member \"%s\" is given twice in one object "
			       "(a JSON reader would keep the last one silently)", shown);
	}
	return 0;
}

static void members_free(struct members *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->v[i].name);
	free(m->v);
}

static int scan_word(struct jscan *j)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, n, end;
	char buf[32];

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		n = strlen(words[i]);
		if (j->len - j->pos >= n && !memcmp(j->s + j->pos, words[i], n)) {
			end = j->pos + n;
			if (end < j->len && ((j->s[end] >= 'a' && j->s[end] <= 'z') ||
					     (j->s[end] >= 'A' && j->s[end] <= 'Z') ||
					     (j->s[end] >= '0' && j->s[end] <= '9') || j->s[end] == '_'))
				break;
			j->pos = end;
			return 0;
		}
	}
	/* say the whole word: NaN, Infinity, True, undefined... */
	for (end = j->pos; end < j->len && end - j->pos < 24 &&
	     ((j->s[end] >= 'a' && j->s[end] <= 'z') || (j->s[end] >= 'A' && j->s[end] <= 'Z') ||
	      (j->s[end] >= '0' && j->s[end] <= '9') || j->s[end] == '_'); end++)
		;
	if (end > j->pos)
		return fail_at(j, j->pos, "'%.*s' is not a JSON value (values are strings in "
			       "double quotes, numbers, true, false, null, objects and arrays)",
			       (int)(end - j->pos), (const char *)j->s + j->pos);
	return fail_at(j, j->pos, "expected a value, found %s", found(j, j->pos, buf, sizeof(buf)));
}

static int unexpected(struct jscan *j, const char *expected)
{
	char buf[32];

	if (at_end(j))
		return fail_at(j, j->pos, "the document ends early (expected %s)", expected);
	if (j->s[j->pos] == '\'')
		return fail_at(j, j->pos, "single quotes are not JSON: strings and names take "
			       "double quotes");
	if (j->s[j->pos] == '/' || j->s[j->pos] == '#')
		return fail_at(j, j->pos, "comments are not JSON");
	return fail_at(j, j->pos, "expected %s, found %s", expected,
		       found(j, j->pos, buf, sizeof(buf)));
}

static int scan_members(struct jscan *j, unsigned int depth, bool object, struct members *m);

static int scan_container(struct jscan *j, unsigned int depth)
{
	struct members m = { 0 };
	bool object = j->s[j->pos] == '{';
	int r = scan_members(j, depth, object, &m);

	if (!r && object)
		r = members_check(j, &m);
	members_free(&m);
	return r;
}

/* The members of an object (their names into @m) or the elements of an array. */
static int scan_members(struct jscan *j, unsigned int depth, bool object, struct members *m)
{
	char close = object ? '}' : ']';
	size_t open = j->pos, name;
	int r;

	if (depth >= MAX_DEPTH)
		return fail_at(j, j->pos, "objects and arrays are nested more than %d deep",
			       MAX_DEPTH);
	j->pos++;
	skip_blanks(j);
	if (!at_end(j) && j->s[j->pos] == close) {
		j->pos++;
		return 0;
	}
	for (;;) {
		skip_blanks(j);
		if (object) {
			if (at_end(j) || j->s[j->pos] != '"')
				return unexpected(j, "a member name in double quotes");
			name = j->pos;
			r = scan_string(j);
			if (!r)
				r = members_add(j, m, name, j->pos);
			if (r)
				return r;
			skip_blanks(j);
			if (at_end(j) || j->s[j->pos] != ':')
				return unexpected(j, "':' after the member name");
			j->pos++;
			skip_blanks(j);
		}
		r = scan_value(j, depth + 1);
		if (r)
			return r;
		skip_blanks(j);
		if (at_end(j)) {
			return fail_at(j, open, "the %s that starts here does not end",
				       object ? "object" : "array");
		}
		if (j->s[j->pos] == close) {
			j->pos++;
			return 0;
		}
		if (j->s[j->pos] != ',')
			return unexpected(j, object ? "',' or '}' after a member" :
					  "',' or ']' after an element");
		j->pos++;
		skip_blanks(j);
		if (!at_end(j) && j->s[j->pos] == close)
			return fail_at(j, j->pos, "a comma before '%c' is not JSON", close);
	}
}

static int scan_value(struct jscan *j, unsigned int depth)
{
	unsigned char c;

	skip_blanks(j);
	if (at_end(j))
		return unexpected(j, "a value");
	c = j->s[j->pos];
	if (c == '{' || c == '[')
		return scan_container(j, depth);
	if (c == '"')
		return scan_string(j);
	if (c == '-' || (c >= '0' && c <= '9'))
		return scan_number(j);
	if (c == '\'' || c == '/' || c == '#')
		return unexpected(j, "a value");
	return scan_word(j);
}

DAMONCTL_API int damonctl_json_check(const char *doc, size_t len, char *why, size_t size)
{
	struct jscan j = { (const unsigned char *)doc, len, 0, why, size };
	int r;

	if (why && size)
		why[0] = '\0';
	if (!doc)
		return -EINVAL;
	if (len >= 3 && !memcmp(doc, "\xef\xbb\xbf", 3))
		return fail_at(&j, 0, "a byte-order mark is not JSON (save the file as UTF-8 "
			       "without BOM)");
	skip_blanks(&j);
	if (at_end(&j))
		return fail_at(&j, j.pos, "the document is empty");
	r = scan_value(&j, 0);
	if (r)
		return r;
	skip_blanks(&j);
	if (!at_end(&j)) {
		char buf[32];

		return fail_at(&j, j.pos, "%s after the end of the document (one JSON document "
			       "is allowed, and nothing after it)", found(&j, j.pos, buf, sizeof(buf)));
	}
	return 0;
}

json_object *dctl_json_parse(const char *doc, size_t len, char *why, size_t size)
{
	struct json_tokener *tok;
	json_object *root;

	if (damonctl_json_check(doc, len, why, size))
		return NULL;
	tok = json_tokener_new_ex(MAX_DEPTH + 1);
	if (!tok) {
		if (why && size)
			snprintf(why, size, "out of memory");
		return NULL;
	}
	/* the length includes the NUL after the document: a number at the very end is done */
	root = json_tokener_parse_ex(tok, doc, (int)len + (doc[len] == '\0'));
	if (!root && json_tokener_get_error(tok) == json_tokener_success) {
		if (why && size)
			snprintf(why, size, "the document is null");
	} else if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(root);
		root = NULL;
		if (why && size)
			snprintf(why, size, "JSON that could not be read (%s)",
				 json_tokener_error_desc(json_tokener_get_error(tok)));
	}
	json_tokener_free(tok);
	return root;
}

json_object *dctl_json_state_file(const char *path, int *err)
{
	json_object *root;
	char *doc;
	int r = dctl_state_read(path, DCTL_STATE_MAX, &doc);

	if (r) {
		*err = r;
		return NULL;
	}
	root = dctl_json_parse(doc, strlen(doc), NULL, 0);
	free(doc);
	*err = root ? 0 : -EBADMSG;
	return root;
}

const char *dctl_json_kind(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	case json_type_int:
	case json_type_double:
		return "a number";
	case json_type_boolean:
		return "true or false";
	default:
		return "null";
	}
}
