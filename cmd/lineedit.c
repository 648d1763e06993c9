// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The shell's line editing with readline: damonc's plugin lineedit.so (see lineedit.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "config.h"
#include "lineedit.h"

static const struct lineedit_hooks *hooks;
static char history[4096];

static char **complete(const char *text, int start, int end)
{
	char *before = strndup(rl_line_buffer, (size_t)start);
	char **m = NULL;

	(void)end;
	rl_attempted_completion_over = 1;
	if (!before)
		return NULL;
	if (hooks->complete(before, text))
		m = rl_completion_matches(text, hooks->generate);
	else
		rl_attempted_completion_over = 0;
	free(before);
	return m;
}

static int key(FILE *in)
{
	int c = hooks->key(in);

	if (c != LINEEDIT_DROP)
		return c;
	rl_replace_line("", 0);
	return '\n';	/* accepts the now empty line */
}

static void start(const char *name, const struct lineedit_hooks *h, const char *file)
{
	hooks = h;
	snprintf(history, sizeof(history), "%s", file);
	if (history[0] && read_history(history) == ENOENT)
		write_history(history);	/* append_history needs the file */
	rl_readline_name = name;
	rl_attempted_completion_function = complete;
	rl_completer_quote_characters = "'\"";
	rl_catch_signals = 0;
	rl_getc_function = key;
}

static void remember(const char *line, int max)
{
	add_history(line);
	if (history[0] && append_history(1, history) == 0)
		history_truncate_file(history, max);
}

PLUGIN_EXPORT const struct lineedit_plugin damonc_lineedit_plugin = {
	.head = { .version = DAMONC_VERSION, .size = sizeof(struct lineedit_plugin) },
	.start = start,
	.read = readline,
	.remember = remember,
};
