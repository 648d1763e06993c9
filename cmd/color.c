// SPDX-License-Identifier: GPL-2.0-or-later
/* Colour in text reports (see color.h). */
#include <stdlib.h>
#include <unistd.h>

#include "color.h"

static enum color_when when = COLOR_AUTO;

void color_set(enum color_when w)
{
	when = w;
}

bool color_on(void)
{
	static int on = -1;
	const char *no;

	if (when != COLOR_AUTO)
		return when == COLOR_ALWAYS;
	if (on < 0) {
		no = getenv("NO_COLOR");
		on = isatty(STDOUT_FILENO) && !(no && *no);
	}
	return on;
}

const char *color_start(enum color_role role)
{
	static const char *const sgr[] = {
		[CR_GOOD] = "\033[32m", [CR_WARN] = "\033[33m", [CR_BAD] = "\033[1;31m",
		[CR_HEAD] = "\033[1m", [CR_DIM] = "\033[2m",
	};

	return color_on() ? sgr[role] : "";
}

const char *color_end(void)
{
	return color_on() ? "\033[0m" : "";
}

const char *color_start_in(FILE *f, enum color_role role)
{
	return f == stdout ? color_start(role) : "";
}

const char *color_end_in(FILE *f)
{
	return f == stdout ? color_end() : "";
}

const char *color_str(enum color_role role, const char *s, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", color_start(role), s, color_end());
	return buf;
}

void color_heat(FILE *f, int level)
{
	/* dark to bright as the pictures' scale reads (black, reds, orange, yellow): 0 is
	 * no access, and the character stays for a terminal without 256 colours */
	static const unsigned char bg[9] = { 233, 52, 88, 124, 160, 196, 202, 214, 226 };

	if (level < 0 || level > 8)
		return;
	fprintf(f, "\033[48;5;%dm\033[38;5;%dm", bg[level], level >= 6 ? 16 : 250);
}
