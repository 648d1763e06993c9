/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shell's line editing: readline, as damonc's plugin lineedit.so (lineedit.c, see
 * plugin.h), so that only `damonc shell` at a terminal loads readline and its terminal
 * library. The shell (shell.c) gives it hooks; it keeps readline's state and the history.
 */
#ifndef DAMONC_LINEEDIT_H
#define DAMONC_LINEEDIT_H

#include <stdbool.h>
#include <stdio.h>

#include "plugin.h"

/* What the shell gives the line editor. */
struct lineedit_hooks {
	/* Gather the candidates for the word @text being typed after @before (the line up
	 * to that word); false when file names fit instead (readline's own completion). */
	bool (*complete)(const char *before, const char *text);
	/* Readline's generator over what complete() gathered: from @state 0 on, one
	 * malloc'ed candidate starting with @text per call, then NULL. */
	char *(*generate)(const char *text, int state);
	/* The next key read from @in, EOF, or LINEEDIT_DROP: the line typed so far is
	 * dropped and an empty one accepted (a Ctrl-C). */
	int (*key)(FILE *in);
};
#define LINEEDIT_DROP (-2)

/* The plugin's table (its symbol LINEEDIT_PLUGIN_SYMBOL). */
struct lineedit_plugin {
	struct plugin_head head;
	/* Set the editor up as program @name's, with @hooks, and the history from the file
	 * @history (made when missing; "" for none). */
	void (*start)(const char *name, const struct lineedit_hooks *hooks, const char *history);
	/* The line typed after @prompt (malloc'ed), or NULL at the end of the input. */
	char *(*read)(const char *prompt);
	/* Keep @line in the history and its file, the file trimmed to @max lines. */
	void (*remember)(const char *line, int max);
};
#define LINEEDIT_PLUGIN_SYMBOL "damonc_lineedit_plugin"

#endif
