// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * YAML configurations, as damo takes them beside JSON (PyYAML's safe_load): one document is
 * turned into JSON text for damonctl_tree_from_json(). Plain scalars take YAML 1.1's core
 * types as PyYAML resolves them (null, booleans including yes/no/on/off, integers, floats);
 * quoted ones stay strings. Aliases are followed; mapping keys must be scalars. libyaml is
 * loaded on the first YAML parse (dlib.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include <json-c/json.h>

#include "dlib.h"
#include "internal.h"

/* Nodes a document may turn into, aliases followed (each use of an anchor counts again): far
 * above the largest configuration damonc takes (DAMONCTL_MAX_TARGETS... in a few kdamonds),
 * far below what nested aliases of a few hundred bytes would make (billions). */
#define YAML_NODE_BUDGET 200000u

#define YAML_FNS(X, t) X(t, yaml_parser_initialize) X(t, yaml_parser_set_input_string) \
	X(t, yaml_parser_load) X(t, yaml_parser_delete) X(t, yaml_document_get_node) \
	X(t, yaml_document_get_root_node) X(t, yaml_document_delete)
DLIB_DEFINE(yaml, DAMONCTL_SONAME_YAML, YAML_FNS)

struct conv {
	yaml_document_t *doc;
	char *why;
	size_t size;
	unsigned int depth;
	unsigned int nodes;	/* converted so far, aliases counted each time */
};

static int fail(struct conv *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct conv *c, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int off = 0;

	if (!c->why || !c->size)
		return -EINVAL;
	if (n)
		off = snprintf(c->why, c->size, "line %lu: ", (unsigned long)n->start_mark.line + 1);
	if (off < 0 || (size_t)off >= c->size)
		off = 0;
	va_start(ap, fmt);
	vsnprintf(c->why + off, c->size - (size_t)off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @s is one or more characters of @set (and nothing else). */
static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* What YAML 1.1 (PyYAML) resolves as an integer: decimal (with '_'), 0x, 0o or leading-0
 * octal, 0b binary, base 60 (1:30), after an optional sign. */
static bool yaml11_int(const char *s)
{
	const char *p = s + (*s == '-' || *s == '+');

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b'))
		return all_of(p + 2, p[1] == 'x' ? "0123456789abcdefABCDEF_" :
				     p[1] == 'o' ? "01234567_" : "01_");
	return *p >= '0' && *p <= '9' && all_of(p, "0123456789_:") && p[strlen(p) - 1] != ':';
}

/* What it resolves as a float: [-+] digits '.' digits [e[-+]digits], a digit somewhere. */
static bool yaml11_float(const char *s)
{
	const char *p = s + (*s == '-' || *s == '+');
	size_t n = strspn(p, "0123456789_"), m;

	if (p[n] != '.')
		return false;
	m = strspn(p + n + 1, "0123456789_");
	if (!strpbrk(s, "0123456789"))
		return false;
	p += n + 1 + m;
	if (*p == 'e' || *p == 'E')
		return (p[1] == '-' || p[1] == '+') && all_of(p + 2, "0123456789");
	return !*p;
}

/* An integer as damonc's one grammar takes it (decimal or 0x, an optional sign): what
 * PyYAML would read otherwise (octal 010 or 0o10, binary 0b1, 1_000, base 60 1:30) is
 * refused rather than read another way; beyond 64 bits it is out of range, as in JSON. */
static int plain_int(struct conv *c, const yaml_node_t *n, const char *s, json_object **out)
{
	const char *p = s + (*s == '-' || *s == '+');
	uint64_t u;
	int64_t i;
	int r;

	if ((p[0] == '0' && p[1] && p[1] != 'x') || strchr(p, ':'))
		return fail(c, n, "'%s': damonc takes integers in decimal or 0x hexadecimal (YAML "
			    "1.1 would read this as octal, binary or base 60)", s);
	if (strchr(p, '_'))
		return fail(c, n, "'%s': underscores are not taken in numbers", s);
	if (*s == '-') {
		r = dctl_parse_integer(s, &i);
		*out = r ? NULL : json_object_new_int64(i);
	} else {
		r = dctl_parse_unsigned(p, &u);
		*out = r ? NULL : json_object_new_uint64(u);
	}
	if (r == -ERANGE)
		return fail(c, n, "the integer %s is out of range (integers go from -2^63 to "
			    "2^64-1)", s);
	return r ? fail(c, n, "'%s' is not an integer", s) : 0;
}

/* A plain scalar as YAML 1.1's core schema (PyYAML) resolves it. */
static int plain(struct conv *c, const yaml_node_t *n, const char *s, json_object **out)
{
	static const char *const yes[] = { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
					   "on", "On", "ON" };
	static const char *const no[] = { "n", "N", "no", "No", "NO", "false", "False", "FALSE",
					  "off", "Off", "OFF" };
	unsigned int i;

	*out = NULL;
	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL"))
		return 0;
	/* PyYAML takes y/n as strings: only the longer words are booleans */
	for (i = 2; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(s, yes[i]))
			return (*out = json_object_new_boolean(1)), 0;
	for (i = 2; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcmp(s, no[i]))
			return (*out = json_object_new_boolean(0)), 0;
	if (yaml11_int(s))
		return plain_int(c, n, s, out);
	if (yaml11_float(s))
		return (*out = json_object_new_double(strtod(s, NULL))), 0;
	*out = json_object_new_string(s);
	return 0;
}

static int convert(struct conv *c, yaml_node_t *n, json_object **out);

static int convert_mapping(struct conv *c, yaml_node_t *n, json_object **out)
{
	json_object *obj = json_object_new_object();
	int r = 0;

	*out = obj;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     !r && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml.yaml_document_get_node(c->doc, p->key);
		json_object *v = NULL;
		const char *key;

		if (!k || k->type != YAML_SCALAR_NODE)
			return fail(c, k ? k : n, "a mapping key that is not a scalar");
		key = (const char *)k->data.scalar.value;
		/* PyYAML keeps the last of two equal keys silently */
		if (json_object_object_get_ex(obj, key, NULL))
			return fail(c, k, "the key '%.64s' is given twice in one mapping", key);
		r = convert(c, yaml.yaml_document_get_node(c->doc, p->value), &v);
		if (!r)
			json_object_object_add(obj, key, v);
	}
	return r;
}

static int convert(struct conv *c, yaml_node_t *n, json_object **out)
{
	int r = 0;

	*out = NULL;
	if (!n)
		return fail(c, NULL, "a node the document does not have");
	if (++c->nodes > YAML_NODE_BUDGET)
		return fail(c, n, "more than %u nodes, aliases followed (nested aliases that "
			    "multiply?)", YAML_NODE_BUDGET);
	if (++c->depth > 64) {
		c->depth--;
		return fail(c, n, "nested more than 64 levels deep (an alias loop?)");
	}
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)n->data.scalar.value;

		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			r = plain(c, n, v, out);
		else
			*out = json_object_new_string(v);
		break;
	}
	case YAML_SEQUENCE_NODE: {
		json_object *arr = json_object_new_array();

		*out = arr;
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     !r && it < n->data.sequence.items.top; it++) {
			json_object *v = NULL;

			r = convert(c, yaml.yaml_document_get_node(c->doc, *it), &v);
			if (!r)
				json_object_array_add(arr, v);
		}
		break;
	}
	case YAML_MAPPING_NODE:
		r = convert_mapping(c, n, out);
		break;
	default:
		break;
	}
	c->depth--;
	if (r) {
		json_object_put(*out);
		*out = NULL;
	}
	return r;
}

int dctl_yaml_to_json(const char *text, size_t len, char **json, char *why, size_t size,
		      bool *parsed)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct conv c = { &doc, why, size, 0, 0 };
	json_object *root = NULL;
	const char *s;
	int r;

	if (why && size)
		why[0] = '\0';
	if (dlib_load(&yaml_lib)) {
		if (why && size)
			snprintf(why, size, "%s", yaml_lib.why);
		return -ELIBACC;
	}
	if (!yaml.yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml.yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	*parsed = false;
	if (!yaml.yaml_parser_load(&parser, &doc)) {
		if (why && size)
			snprintf(why, size, "line %lu, column %lu: %s%s%s",
				 (unsigned long)parser.problem_mark.line + 1,
				 (unsigned long)parser.problem_mark.column + 1,
				 parser.problem ? parser.problem : "not YAML",
				 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml.yaml_parser_delete(&parser);
		return -EINVAL;
	}
	*parsed = true;
	if (!yaml.yaml_document_get_root_node(&doc)) {
		r = fail(&c, NULL, "an empty document");
	} else {
		r = convert(&c, yaml.yaml_document_get_root_node(&doc), &root);
	}
	yaml.yaml_document_delete(&doc);
	yaml.yaml_parser_delete(&parser);
	if (r)
		return r;
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	*json = s ? strdup(s) : NULL;
	json_object_put(root);
	return *json ? 0 : -ENOMEM;
}

DAMONCTL_API int damonctl_yaml_to_json(const char *text, size_t len, char **json, char *why,
				       size_t size)
{
	bool parsed;

	return dctl_yaml_to_json(text, len, json, why, size, &parsed);
}
