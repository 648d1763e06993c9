/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared helpers of the unit tests: temporary sysroots, kernel-tree fixtures, model walks. */
#ifndef DAMONC_UNIT_COMMON_H
#define DAMONC_UNIT_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "internal.h"

/* tests/fixtures, from argv[1]. */
extern const char *fixtures_dir;
/* Call first in main(): records argv[1]. */
void unit_init(int argc, char **argv);

/* A fresh empty directory (malloc'd path) and its removal. */
char *tmpdir_new(void);
void tmpdir_remove(char *dir);

/* Files, with parent directories created as needed. */
void write_file(const char *path, const char *content);
/* malloc'd content, or NULL if it cannot be read. */
char *slurp(const char *path);
char *fixture_text(const char *rel);

/* A kernel-tree capture (tests/fixtures/kernel-trees/<name>): entries relative to the admin
 * directory, "|" turned back into newlines. Layout captures have no values. */
struct fentry {
	char *path;
	char *value;		/* NULL: no value in the capture */
	bool dir;
	unsigned int mode;
};
struct ftree {
	struct fentry *e;
	size_t n;
};
void ftree_load(const char *name, struct ftree *t);
void ftree_free(struct ftree *t);
const struct fentry *ftree_find(const struct ftree *t, const char *path);

/*
 * Write the capture under <sysroot>/sys/kernel/mm/damon/admin. Files without a value get
 * the ABI's default (docs/damon-abi.md section 2), nr_* files the number of numbered
 * directories under them; @overrides is a NULL-terminated list of path, value pairs.
 */
void ftree_materialise(const struct ftree *t, const char *sysroot, const char *const *overrides);
/* The ABI default of a file, as used for layout captures. */
const char *abi_default(const char *path);
/* <sysroot>/sys/module/<module>/parameters/<name> for every MODULE line of a behaviour log. */
void modules_materialise(const char *behaviour, const char *sysroot);

/* A sysroot holding capture @name (and the modules of behaviour log @behaviour, if any). */
struct sysroot {
	char *dir;
	struct damonctl_ctx *ctx;
	struct ftree tree;
};
void sysroot_setup(struct sysroot *s, const char *name, const char *behaviour,
		   const char *const *overrides);
void sysroot_teardown(struct sysroot *s);
/* <sysroot>/sys/kernel/mm/damon/admin/<rel> */
char *admin_path(const struct sysroot *s, const char *rel);

/* The sysfs-relative path of object @o ("kdamonds/0/contexts/0"). */
void obj_path(const struct dobj *o, char *buf, size_t size);

/* Deep comparison of the writable values and list shapes of two models; on a difference,
 * fails the test naming the attribute. */
void assert_models_equal(const struct dobj *a, const struct dobj *b);

/* damonctl_tree_from_json() that must succeed. */
struct damonctl_tree *json_ok(const char *doc);
/* damonctl_tree_from_json() that must fail with @err; returns the sentence (static). */
const char *json_fails(const char *doc, int err);

#endif
