// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "chart_out.h"

/* the picture plugin, once chart_check_output() has loaded it */
static const struct chart_plugin *plugin;

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

int chart_format_of_name(const char *path)
{
	if (path && ends_with(path, ".png"))
		return CHART_PNG;
	if (path && ends_with(path, ".svg"))
		return CHART_SVG;
	return -1;
}

static bool to_stdout(const char *output)
{
	return !output || !strcmp(output, "-");
}

int chart_check_output(struct cli *cli, enum chart_format fmt, const char *output)
{
	char why[4200];

	if (fmt == CHART_PNG && to_stdout(output) && isatty(STDOUT_FILENO))
		return usage_error(cli, "--format png: name a file with -o (not a terminal)");
	if (!to_stdout(output) && output_check(cli, "-o", output))
		return EXIT_USAGE;
	if (!plugin)
		plugin = plugin_load("picture", CHART_PLUGIN_SYMBOL, sizeof(*plugin), why,
				     sizeof(why));
	if (!plugin) {
		usage_error(cli, "pictures (PNG, SVG) are drawn by damonc's picture plugin, which "
			    "is not installed: %s (on Debian: the damonc-pictures package)", why);
		return EXIT_UNSUPPORTED;
	}
	return EXIT_OK;
}

int chart_time_series(FILE *f, enum chart_format fmt, const struct chart_ts *c)
{
	return plugin ? plugin->time_series(f, fmt, c) : -ELIBACC;
}

int chart_heatmap(FILE *f, enum chart_format fmt, const struct chart_heatmap *h)
{
	return plugin ? plugin->heatmap(f, fmt, h) : -ELIBACC;
}

FILE *chart_open(struct cli *cli, const char *output)
{
	FILE *f;
	int fd;

	if (to_stdout(output))
		return stdout;
	/* never through a link, into a device or a FIFO (damonctl_file_open(3)) */
	fd = damonctl_file_open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "we");
	if (!f) {
		output_error(cli, "-o", output, fd < 0 ? fd : -errno);
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int chart_close(struct cli *cli, FILE *f, const char *output, int draw, const char *what)
{
	/* a picture asked for is on disk before the command is done with it */
	int e = f != stdout && (fflush(f) || fsync(fileno(f))) ? errno : 0;

	if ((f == stdout ? fflush(f) : fclose(f)) && !e)
		e = errno;

	if (draw) {
		usage_error(cli, "drawing %s: %s", what, strerror(-draw));
		return EXIT_FAIL;
	}
	if (e) {
		usage_error(cli, "writing %s to %s: %s", what,
			    to_stdout(output) ? "stdout" : output, strerror(e));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
