// SPDX-License-Identifier: LGPL-2.1-or-later
/* damo's kdamonds JSON: being written (see the damo interop work); refuses for now. */
#include <errno.h>
#include <stdio.h>

#include "json_internal.h"

bool dctl_json_is_damo(json_object *root)
{
	json_object *k;

	return json_object_object_get_ex(root, "kdamonds", &k) &&
	       !json_object_object_get_ex(root, "format_version", NULL);
}

int dctl_damo_from_json(json_object *root, struct dobj **tree, char *why, size_t size)
{
	(void)root;
	(void)tree;
	snprintf(why, size, "damo's JSON format is not supported yet");
	return -EOPNOTSUPP;
}
