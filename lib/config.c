// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A configuration as `damo start` and `damonc start -c` take it: damonc's JSON or damo's
 * kdamonds JSON, either of them written in YAML too, and damonc's own status and dry-run
 * documents fed back (their facts about one system dropped, see damonctl-json(5)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "internal.h"

/* Keys of damonc's status and dry-run documents that say what one system has, not what to
 * configure: of the document, then of each kdamond. */
static const char *const doc_facts[] = { "writes", "fallbacks", "modules_enabled" };
static const char *const kdamond_facts[] = { "index", "started_by_damonc", "agent", "cpu",
					     "damonc_leftover" };

/* @doc without those keys, malloc'd; NULL (errno set) when it is not a JSON object, which
 * damonctl_tree_from_json() then names. */
static char *drop_facts(const char *doc)
{
	json_object *root, *arr;
	size_t i, j;
	char *s;

	if (damonctl_json_check(doc, strlen(doc), NULL, 0)) {
		errno = EINVAL;
		return NULL;
	}
	root = json_tokener_parse(doc);
	if (!json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(doc_facts); i++)
		json_object_object_del(root, doc_facts[i]);
	if (json_object_object_get_ex(root, "kdamonds", &arr) &&
	    json_object_is_type(arr, json_type_array)) {
		for (i = 0; i < json_object_array_length(arr); i++) {
			json_object *k = json_object_array_get_idx(arr, i);

			for (j = 0; json_object_is_type(k, json_type_object) &&
				    j < ARRAY_SIZE(kdamond_facts); j++)
				json_object_object_del(k, kdamond_facts[j]);
		}
	}
	s = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return s;
}

/* Is the configuration YAML (as damo takes it)? By its name (.json, .yaml, .yml), else by
 * its first character: JSON begins with '{' (or, wrongly, a comment or '['). */
static bool is_yaml(const char *name, const char *text)
{
	const char *dot = name ? strrchr(name, '.') : NULL;

	if (dot && !strcmp(dot, ".json"))
		return false;
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
		return true;
	text += strspn(text, " \t\r\n");
	return !strchr("{[/", *text);
}

DAMONCTL_API int damonctl_config_parse(const char *name, const char *text,
				       struct damonctl_tree **out, char *why, size_t size)
{
	char *json = NULL, *plain;
	const char *doc = text;
	int r;

	if (why && size)
		why[0] = '\0';
	if (is_yaml(name, text)) {
		r = damonctl_yaml_to_json(text, strlen(text), &json, why, size);
		if (r) {
			if (why && size) {
				char *reason = strdup(why);

				snprintf(why, size, "not JSON, nor YAML: %s", reason ? reason : "");
				free(reason);
			}
			return r;
		}
		doc = json;
	}
	plain = drop_facts(doc);
	r = damonctl_tree_from_json(plain ? plain : doc, out, why, size);
	free(plain);
	free(json);
	return r;
}
