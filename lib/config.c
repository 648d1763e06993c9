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
#include "json_internal.h"

/* Keys of damonc's status and dry-run documents that say what one system has, not what to
 * configure: of the document, then of each kdamond. */
static const char *const doc_facts[] = { "writes", "fallbacks", "modules_enabled" };
static const char *const kdamond_facts[] = { "index", "started_by_damonc", "agent", "cpu",
					     "damonc_leftover", "stopped_by_damonc",
					     "stats_current", "notes" };

/* @root without those keys. */
static void drop_facts(json_object *root)
{
	json_object *arr;
	size_t i, j;

	if (!json_object_is_type(root, json_type_object))
		return;		/* dctl_tree_from_root() names what it is */
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
	json_object *root;
	char *json = NULL;
	const char *doc = text;
	int r;

	if (why && size)
		why[0] = '\0';
	if (is_yaml(name, text)) {
		bool parsed;

		r = dctl_yaml_to_json(text, strlen(text), &json, why, size, &parsed);
		if (r) {
			if (why && size && !parsed) {
				char *reason = strdup(why);

				if (r == -ELIBACC)
					snprintf(why, size, "YAML needs libyaml, which could not be "
						 "loaded: %s", reason ? reason : "");
				else
					snprintf(why, size, "not JSON, nor YAML: %s",
						 reason ? reason : "");
				free(reason);
			}
			return r;
		}
		doc = json;
	}
	/* one parse: the facts dropped from it, the tree read from what is left */
	root = dctl_json_parse(doc, strlen(doc), why, size);
	free(json);
	if (!root)
		return -EINVAL;
	drop_facts(root);
	r = dctl_tree_from_root(root, out, why, size);
	json_object_put(root);
	if (!r && damonctl_tree_nr_kdamonds(*out) > DAMONCTL_MAX_KDAMONDS) {
		if (why && size)
			snprintf(why, size, "%u kdamonds: a configuration holds at most %d (each is "
				 "a kernel thread)", damonctl_tree_nr_kdamonds(*out),
				 DAMONCTL_MAX_KDAMONDS);
		damonctl_tree_free(*out);
		*out = NULL;
		r = -EINVAL;
	}
	return r;
}
