/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* JSON helpers shared inside libdamonctl (json.c, damo.c). */
#ifndef DAMONCTL_JSON_INTERNAL_H
#define DAMONCTL_JSON_INTERNAL_H

#include <json-c/json.h>

#include "internal.h"

json_object *dctl_obj_to_json(const struct dobj *o, unsigned int flags);
json_object *dctl_tree_to_json_object(const struct dobj *t, unsigned int flags);

/* damo's kdamonds JSON (damo.c). */
bool dctl_json_is_damo(json_object *root);
int dctl_damo_from_json(json_object *root, struct dobj **tree, char *why, size_t size);

#endif
