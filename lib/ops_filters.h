/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operations-layer DAMOS filters of a snapshot (struct damonctl_rec_snapshot's
 * ops_filters, lib/ops_filters.c): a JSON array of filters in damonctl-tree's shape.
 */
#ifndef DCTL_OPS_FILTERS_H
#define DCTL_OPS_FILTERS_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include <damonctl/damonctl.h>

/* addr and target: the core layer's; every other type is the operations set's. */
bool dctl_filter_type_is_core(const char *type);
/* @json is an array of filter objects, each with a string "type": 0, or 1 when it is empty
 * (no filter: a snapshot says NULL then), -EINVAL when it is not such an array. */
int dctl_ops_filters_check(const char *json);
/* The operations-layer filters of @s in the kernel's order (ops_filters/, then those of
 * filters/), as a malloc'd array; NULL with errno 0 when there is none, or with errno
 * ENOMEM. */
char *dctl_ops_filters_of_scheme(const struct damonctl_scheme *s);
/* A damo record's scheme_filters (DamosFilter.to_kvpairs objects), its operations-layer
 * ones as a malloc'd array; NULL without any (or on an error: *@err -EBADMSG for a list
 * that is not damo's, -ENOMEM; else 0). */
char *dctl_ops_filters_from_damo(json_object *scheme_filters, int *err);
/* @json (NULL: none) as damo's scheme_filters list, into @buf as snprintf does: the length
 * it needs, -EINVAL for a document that is not an array of filters, -ENOMEM. */
int dctl_ops_filters_to_damo(const char *json, char *buf, size_t size);

#endif
