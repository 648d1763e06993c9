// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * YAML configurations, as damo takes them beside JSON (PyYAML's safe_load): one document is
 * turned into JSON text for damonctl_tree_from_json(). Plain scalars take YAML 1.1's core
 * types as PyYAML resolves them (null, booleans including yes/no/on/off, integers, floats);
 * quoted ones stay strings. Aliases are followed; mapping keys must be scalars. libyaml is
 * loaded on the first YAML parse (dlib.h).
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include <json-c/json.h>

#include "dlib.h"
#include "internal.h"

#define YAML_FNS(X, t) X(t, yaml_parser_initialize) X(t, yaml_parser_set_input_string) \
	X(t, yaml_parser_load) X(t, yaml_parser_delete) X(t, yaml_document_get_node) \
	X(t, yaml_document_get_root_node) X(t, yaml_document_delete)
DLIB_DEFINE(yaml, DAMONCTL_SONAME_YAML, YAML_FNS)

struct conv {
	yaml_document_t *doc;
	char *why;
	size_t size;
	unsigned int depth;
};

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

static bool matches(const char *s, const char *re)
{
	regex_t rx;
	bool m;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return false;
	m = !regexec(&rx, s, 0, NULL, 0);
	regfree(&rx);
	return m;
}

/* A plain scalar as YAML 1.1's core schema (PyYAML) resolves it. */
static json_object *plain(const char *s)
{
	static const char *const yes[] = { "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
					   "on", "On", "ON" };
	static const char *const no[] = { "n", "N", "no", "No", "NO", "false", "False", "FALSE",
					  "off", "Off", "OFF" };
	unsigned int i;

	if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	    !strcmp(s, "NULL"))
		return NULL;
	/* PyYAML takes y/n as strings: only the longer words are booleans */
	for (i = 2; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!strcmp(s, yes[i]))
			return json_object_new_boolean(1);
	for (i = 2; i < sizeof(no) / sizeof(no[0]); i++)
		if (!strcmp(s, no[i]))
			return json_object_new_boolean(0);
	if (matches(s, "^[-+]?(0|[1-9][0-9_]*)$")) {
		char digits[64];
		size_t n = 0;

		for (const char *p = s; *p && n < sizeof(digits) - 1; p++)
			if (*p != '_' && *p != '+')
				digits[n++] = *p;
		digits[n] = '\0';
		if (digits[0] == '-')
			return json_object_new_int64(strtoll(digits, NULL, 10));
		return json_object_new_uint64(strtoull(digits, NULL, 10));
	}
	if (matches(s, "^0x[0-9a-fA-F_]+$"))
		return json_object_new_uint64(strtoull(s, NULL, 16));
	if (matches(s, "^[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+][0-9]+)?$") &&
	    strcmp(s, ".") && matches(s, "[0-9]"))
		return json_object_new_double(strtod(s, NULL));
	return json_object_new_string(s);
}

static int convert(struct conv *c, yaml_node_t *n, json_object **out)
{
	int r = 0;

	if (!n)
		return fail(c, NULL, "a node the document does not have");
	if (++c->depth > 64) {
		c->depth--;
		return fail(c, n, "nested more than 64 levels deep (an alias loop?)");
	}
	switch (n->type) {
	case YAML_SCALAR_NODE: {
		const char *v = (const char *)n->data.scalar.value;

		*out = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? plain(v) :
		       json_object_new_string(v);
		break;
	}
	case YAML_SEQUENCE_NODE: {
		json_object *arr = json_object_new_array();

		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     !r && it < n->data.sequence.items.top; it++) {
			json_object *v = NULL;

			r = convert(c, yaml.yaml_document_get_node(c->doc, *it), &v);
			if (!r)
				json_object_array_add(arr, v);
		}
		*out = arr;
		break;
	}
	case YAML_MAPPING_NODE: {
		json_object *obj = json_object_new_object();

		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     !r && p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml.yaml_document_get_node(c->doc, p->key);
			json_object *v = NULL;

			if (!k || k->type != YAML_SCALAR_NODE) {
				r = fail(c, k ? k : n, "a mapping key that is not a scalar");
				break;
			}
			r = convert(c, yaml.yaml_document_get_node(c->doc, p->value), &v);
			if (!r)
				json_object_object_add(obj, (const char *)k->data.scalar.value, v);
		}
		*out = obj;
		break;
	}
	default:
		*out = NULL;
		break;
	}
	c->depth--;
	if (r) {
		json_object_put(*out);
		*out = NULL;
	}
	return r;
}

DAMONCTL_API int damonctl_yaml_to_json(const char *text, size_t len, char **json, char *why,
				       size_t size)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct conv c = { &doc, why, size, 0 };
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
