/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON helpers shared inside libdamonctl (json.c, damo.c). */
#ifndef DAMONCTL_JSON_INTERNAL_H
#define DAMONCTL_JSON_INTERNAL_H

#include <json-c/json.h>

#include "internal.h"

json_object *dctl_obj_to_json(const struct dobj *o, unsigned int flags);
json_object *dctl_tree_to_json_object(const struct dobj *t, unsigned int flags);

/* A tree written by dctl_tree_to_json_object(t, 0) read back as it was: results (state,
 * pid, stats) too, and only the files and lists the JSON holds present (staging.c). */
int dctl_tree_from_json_exact(json_object *root, struct dobj **out);
/* damonctl_tree_from_json() of a document already parsed (@root stays the caller's). */
int dctl_tree_from_root(json_object *root, struct damonctl_tree **out, char *why, size_t size);

/* Strict JSON (json_check.c): damonctl_json_check(), then json-c. NULL with a sentence in
 * @why when @doc is not one well-formed JSON document; @doc[len] must be readable (the NUL
 * of a string). */
json_object *dctl_json_parse(const char *doc, size_t len, char *why, size_t size);
/* A JSON state file of the library (a journal, a note, a staged model) as
 * dctl_state_read() reads it, parsed strictly: NULL with *err -errno, or -EBADMSG. */
json_object *dctl_json_state_file(const char *path, int *err);
/* "an object", "an array", "a string", "a number", "true or false", "null": for messages. */
const char *dctl_json_kind(json_object *v);

/* Undo records of transactions (undo.c): begin before the first write (a negative return:
 * the hook refused, write nothing), an event at each point, the end (@clean: done, or
 * undone without error). Without a hook on the context all of it does nothing. */
struct dctl_txn {
	struct damonctl_ctx *ctx;
	json_object *rec;
};
int dctl_txn_begin_start(struct dctl_txn *t, struct damonctl_ctx *ctx,
			 const struct damonctl_tree *have, const unsigned int *idx, unsigned int nr);
int dctl_txn_begin_commit(struct dctl_txn *t, struct damonctl_ctx *ctx,
			  const struct damonctl_kdamond *have, const char *cmd);
void dctl_txn_event(struct dctl_txn *t, enum damonctl_txn_event ev);
void dctl_txn_end(struct dctl_txn *t, bool clean);

/* damo's kdamonds JSON (damo.c). */
bool dctl_json_is_damo(json_object *root);
int dctl_damo_from_json(json_object *root, struct dobj **tree, char *why, size_t size);

#endif
