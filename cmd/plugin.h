/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damonc's plugins: the parts only some commands need, kept out of the program so that the
 * others do not load their libraries (the pictures: cairo and all it pulls in; the shell's
 * line editing: readline). Each is a shared module exporting one table, which begins with
 * a struct plugin_head. They are installed in the package's own directory, found from the
 * program's directory (so a copy of the installed tree elsewhere finds its own), and for
 * the damonc of a build tree in that build's cmd directory.
 */
#ifndef DAMONC_PLUGIN_H
#define DAMONC_PLUGIN_H

#include <stddef.h>

struct plugin_head {
	const char *version;	/* damonc's version the plugin was built with */
	size_t size;		/* the size of its table */
};

/* The plugins' exported tables: only they are visible outside a plugin. */
#define PLUGIN_EXPORT __attribute__((visibility("default")))

/* Plugin @name's ("picture") table @symbol, of @size bytes, loaded once: NULL with the
 * reason in @why ("PATH: cannot open shared object file: ...", or a plugin of another
 * damonc). */
const void *plugin_load(const char *name, const char *symbol, size_t size, char *why,
			size_t why_size);

#endif
