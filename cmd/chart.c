// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Charts with cairo (see chart.h): damonc's picture plugin, picture.so (see plugin.h), so
 * that only the commands that draw load cairo and what it pulls in (fontconfig, freetype,
 * pixman, libpng, X11's libraries).
 *
 * Why cairo rather than the PNG writer damonc had: a picture a person can read alone needs
 * text (a title, axis labels, a colour scale's legend), and text in a PNG needs a font
 * rasteriser, which a hand-made writer does not have. cairo draws text, lines and areas,
 * anti-aliased, and renders the very same drawing to a PNG or an SVG surface, so both
 * formats show one picture from one code path. It is packaged everywhere (Debian:
 * libcairo2), and its text API with fontconfig's default sans-serif font is enough for
 * labels.
 *
 * Every chart is laid out first (text measured on a 1x1 scratch surface), then drawn:
 * the canvas is as large as its labels need, so nothing falls outside it.
 *
 * In an SVG, text is SVG text: cairo's SVG surface writes each glyph as an outline, which
 * a browser can neither search nor copy, nor a screen reader read. The drawing is the same;
 * its text is kept aside as it is shown (svg_text) and written as <text> elements, in the
 * same font, size, colour and place, into the document cairo wrote without them.
 */
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <stdio.h>
#include <fontconfig/fontconfig.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "config.h"

#define FONT "sans-serif"
#define TITLE_PX 16.0
#define TEXT_PX 12.0
#define MAX_TICKS 16

/* inferno-like stops: dark (cold) to bright yellow (hot) */
static const uint8_t stops[][3] = {
	{ 0, 0, 4 }, { 87, 16, 110 }, { 188, 55, 84 }, { 249, 142, 9 }, { 252, 255, 164 },
};

/* The heat colour of @v in [0, 1] (dark: cold, bright yellow: hot); v < 0: no data. */
static void heat_rgb(double v, uint8_t rgb[3])
{
	const unsigned int n = sizeof(stops) / sizeof(stops[0]) - 1;
	unsigned int i, c;
	double x, f;

	if (v < 0) {
		rgb[0] = rgb[1] = rgb[2] = 160;	/* no data: mid grey, unlike any heat */
		return;
	}
	if (v > 1)
		v = 1;
	x = v * n;
	i = (unsigned int)x;
	if (i >= n)
		i = n - 1;
	f = x - i;
	for (c = 0; c < 3; c++)
		rgb[c] = (uint8_t)(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f + 0.5);
}

/* ---- drawing helpers ---------------------------------------------------------------- */

static void colour(cairo_t *cr, unsigned int hex)
{
	cairo_set_source_rgb(cr, (hex >> 16 & 255) / 255.0, (hex >> 8 & 255) / 255.0,
			     (hex & 255) / 255.0);
}

static void font(cairo_t *cr, double px, bool bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, px);
}

static double text_width(cairo_t *cr, double px, bool bold, const char *s)
{
	cairo_text_extents_t te;

	font(cr, px, bold);
	cairo_text_extents(cr, s, &te);
	return te.x_advance;
}

/* An SVG's text while it is drawn: <text> elements, written after cairo's drawing. */
static FILE *svg_text;

/* @s with XML's five characters escaped. */
static void xml_put(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* @s as an SVG <text> at (@x, @y) in user space, anchored by @align, turned by @deg; in
 * the source colour of @cr. */
static void svg_text_add(cairo_t *cr, double x, double y, double align, double px, bool bold,
			 double deg, const char *s)
{
	double r = 0, g = 0, b = 0, a = 1;

	cairo_user_to_device(cr, &x, &y);
	cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);
	fprintf(svg_text, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"%s\" font-size=\"%g\""
		"%s text-anchor=\"%s\" fill=\"#%02x%02x%02x\"", x, y, FONT, px,
		bold ? " font-weight=\"bold\"" : "",
		align == 0 ? "start" : align == 1 ? "end" : "middle", (unsigned int)(r * 255 + 0.5),
		(unsigned int)(g * 255 + 0.5), (unsigned int)(b * 255 + 0.5));
	if (deg)
		fprintf(svg_text, " transform=\"rotate(%g %.2f %.2f)\"", deg, x, y);
	fputs(">", svg_text);
	xml_put(svg_text, s);
	fputs("</text>\n", svg_text);
}

/* @s with its baseline at @y; @align: 0 from x, 0.5 centred on x, 1 ending at x. */
static void text(cairo_t *cr, double x, double y, double align, double px, bool bold,
		 const char *s)
{
	double w = text_width(cr, px, bold, s);

	if (svg_text) {
		svg_text_add(cr, x, y, align, px, bold, 0, s);
		return;
	}
	cairo_move_to(cr, x - align * w, y);
	cairo_show_text(cr, s);
}

/* @s centred on (x, y), turned to read bottom up (a y axis title). */
static void text_up(cairo_t *cr, double x, double y, double px, const char *s)
{
	if (svg_text) {
		text_width(cr, px, false, s);
		svg_text_add(cr, x, y, 0.5, px, false, -90, s);
		return;
	}
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -M_PI / 2);
	text(cr, 0, 0, 0.5, px, false, s);
	cairo_restore(cr);
}

static void line(cairo_t *cr, double x0, double y0, double x1, double y1)
{
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
}

/* Ticks at round steps (1, 2 or 5 times a power of ten) within [lo, hi], at most @max. */
static unsigned int nice_ticks(double lo, double hi, unsigned int max, double *out)
{
	double span = hi - lo, step, mag, t;
	unsigned int n = 0;

	if (!(span > 0) || max < 2) {
		out[0] = lo;
		return 1;
	}
	step = span / (max - 1);
	mag = pow(10, floor(log10(step)));
	step = step / mag <= 1 ? mag : step / mag <= 2 ? 2 * mag : step / mag <= 5 ? 5 * mag :
		10 * mag;
	for (t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && n < max; t += step)
		out[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	return n;
}

/* The unit time ticks read in, for a span of @s seconds: s, min or h. */
static double time_unit(double s, const char **name)
{
	if (s >= 3 * 3600) {
		*name = "h";
		return 3600;
	}
	if (s >= 600) {
		*name = "min";
		return 60;
	}
	*name = "s";
	return 1;
}

static void time_label(double v, double unit, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%g %s", v / unit, name);
}

/* The unit y ticks read in: bytes in KiB..TiB, basis points in percent. */
static double y_unit(enum chart_unit u, double max, const char **name)
{
	static const char *const bytes[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double base = 1;
	unsigned int k = 0;

	switch (u) {
	case CHART_Y_BYTES:
		while (k + 1 < sizeof(bytes) / sizeof(bytes[0]) && max >= base * 1024) {
			base *= 1024;
			k++;
		}
		*name = bytes[k];
		return base;
	case CHART_Y_BP:
		*name = "%";
		return 100;
	default:
		*name = "";
		return 1;
	}
}

static void y_label(double v, double unit, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%g%s%s", v / unit, *name && strcmp(name, "%") ? " " : "", name);
}

/* ---- surfaces --------------------------------------------------------------------------- */

static cairo_status_t write_to(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS :
						      CAIRO_STATUS_WRITE_ERROR;
}

/* An SVG as cairo writes it (the drawing), and its text (svg_text), both in memory until
 * the document is put together. */
static struct svg_doc {
	FILE *drawing;
	char *buf, *text;
	size_t len, text_len;
} svg;

static cairo_surface_t *surface_new(enum chart_format fmt, double w, double h)
{
	cairo_surface_t *s;

	if (fmt == CHART_PNG)
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	svg.drawing = open_memstream(&svg.buf, &svg.len);
	svg_text = open_memstream(&svg.text, &svg.text_len);
	if (!svg.drawing || !svg_text)
		return cairo_image_surface_create(CAIRO_FORMAT_INVALID, 0, 0);	/* an error */
	s = cairo_svg_surface_create_for_stream(write_to, svg.drawing, w, h);
	cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	return s;
}

/* The SVG cairo wrote, with the text before its end; 0 or -EIO. */
static int svg_write(FILE *f)
{
	const char *end = NULL, *p;

	if (fflush(svg.drawing) || fflush(svg_text))
		return -ENOMEM;
	for (p = svg.buf; p && (p = strstr(p, "</svg>")); p++)
		end = p;
	if (!end)
		return -EIO;
	if (fwrite(svg.buf, 1, (size_t)(end - svg.buf), f) != (size_t)(end - svg.buf) ||
	    fwrite(svg.text, 1, svg.text_len, f) != svg.text_len || fputs(end, f) == EOF)
		return -EIO;
	return 0;
}

static void svg_free(void)
{
	if (svg.drawing)
		fclose(svg.drawing);
	if (svg_text)
		fclose(svg_text);
	free(svg.buf);
	free(svg.text);
	svg = (struct svg_doc){ 0 };
	svg_text = NULL;
}

static int surface_finish(enum chart_format fmt, FILE *f, cairo_surface_t *s)
{
	cairo_status_t st = CAIRO_STATUS_SUCCESS;
	int r;

	if (fmt == CHART_PNG)
		st = cairo_surface_write_to_png_stream(s, write_to, f);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	r = st == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : st == CAIRO_STATUS_SUCCESS ? 0 : -EIO;
	if (fmt == CHART_SVG) {
		if (!r)
			r = svg_write(f);
		svg_free();
	}
	return r;
}

/* cairo's font caches and fontconfig's configuration live until the process ends; let them
 * go then, so that leak checkers (ASan, valgrind) see only damonc's own memory. */
static void release_fonts(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}

/* A scratch context to measure text with before the canvas size is known; the first one
 * arranges for the fonts to be released at exit. */
static cairo_t *measurer(void)
{
	static bool at_exit;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	cairo_t *cr = cairo_create(s);

	if (!at_exit)
		at_exit = !atexit(release_fonts);

	cairo_surface_destroy(s);	/* the context holds it */
	return cr;
}

/* The title and subtitle above the plot, on a white canvas. */
static void frame(cairo_t *cr, const char *title, const char *subtitle)
{
	colour(cr, 0xffffff);
	cairo_paint(cr);
	colour(cr, 0x000000);
	text(cr, 14, 24, 0, TITLE_PX, true, title);
	if (subtitle) {
		colour(cr, 0x404040);
		text(cr, 14, 44, 0, TEXT_PX, false, subtitle);
	}
}

/* The canvas must fit the title and subtitle: at least this wide. */
static double frame_width(cairo_t *m, const char *title, const char *subtitle)
{
	double a = text_width(m, TITLE_PX, true, title);
	double b = subtitle ? text_width(m, TEXT_PX, false, subtitle) : 0;

	return 28 + (a > b ? a : b);
}

/* The x axis: time ticks under the plot and its title. */
static void time_axis(cairo_t *cr, double px, double pw, double py, double ph, double t0,
		      double t1, bool grid, const char *label)
{
	double ticks[MAX_TICKS], unit;
	const char *uname;
	unsigned int n, i, max = (unsigned int)(pw / 70) + 1;
	char buf[32];

	unit = time_unit(t1, &uname);
	n = nice_ticks(t0 / unit, t1 / unit, max < MAX_TICKS ? max : MAX_TICKS, ticks);
	cairo_set_line_width(cr, 1);
	for (i = 0; i < n; i++) {
		double v = ticks[i] * unit;
		double x = t1 > t0 ? px + (v - t0) / (t1 - t0) * pw : px + pw / 2;

		if (grid) {
			colour(cr, 0xe0e0e0);
			line(cr, x, py, x, py + ph);
		}
		colour(cr, 0x000000);
		line(cr, x, py + ph, x, py + ph + 5);
		time_label(v, unit, uname, buf, sizeof(buf));
		text(cr, x, py + ph + 19, 0.5, TEXT_PX, false, buf);
	}
	text(cr, px + pw / 2, py + ph + 40, 0.5, TEXT_PX, false,
	     label ? label : "time since the record began");
}

/* ---- time series ------------------------------------------------------------------------ */

static const unsigned int palette[] = { 0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd };

/* How wide series @k is drawn: 2 px, and 4 px more for each solid series drawn after it
 * (up to three), so a line that another one covers (a system's ratio equal to its one
 * process's) still shows on both sides of it. */
static double series_width(const struct chart_ts *c, size_t k)
{
	unsigned int later = 0;
	size_t j;

	if (c->series[k].dashed)
		return 2;
	for (j = k + 1; j < c->nr_series; j++)
		later += !c->series[j].dashed;
	return 2 + 4 * (later < 3 ? later : 3);
}

/* Series @k of @c as a line (broken at NaN), its points marked when they are few (so one
 * or two are seen) unless it is dashed (a goal or a median). */
static void draw_series(cairo_t *cr, const struct chart_ts *c, size_t k, double px, double py,
			double pw, double ph, double t0, double t1, double ymax)
{
	double dash = 6;
	bool down = false;
	size_t j;

	colour(cr, palette[k % (sizeof(palette) / sizeof(palette[0]))]);
	cairo_set_line_width(cr, series_width(c, k));
	cairo_set_dash(cr, &dash, c->series[k].dashed ? 1 : 0, 0);
	for (j = 0; j < c->n; j++) {
		double v = c->series[k].y[j];
		double x = px + (c->x[j] - t0) / (t1 - t0) * pw, y = py + ph - v / ymax * ph;

		if (isnan(v)) {
			down = false;
			continue;
		}
		if (down)
			cairo_line_to(cr, x, y);
		else
			cairo_move_to(cr, x, y);
		down = true;
	}
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	for (j = 0; !c->series[k].dashed && c->n <= 60 && j < c->n; j++) {
		double v = c->series[k].y[j];

		if (isnan(v))
			continue;
		cairo_arc(cr, px + (c->x[j] - t0) / (t1 - t0) * pw, py + ph - v / ymax * ph, 3, 0,
			  2 * M_PI);
		cairo_fill(cr);
	}
}

/* Where a time series chart's parts go: the plot (px, py, pw, ph), the time span, the
 * y scale's top and ticks (in @unit, named @uname), and the picture's size. */
struct ts_layout {
	double px, py, pw, ph, w, h, t0, t1, ymax, unit, ticks[MAX_TICKS];
	const char *uname;
	unsigned int nt;
};

/* The y scale's top (a little above the largest value; basis points that reach 100% stop
 * there) and the time span (from the record's start when that is close). */
static void ts_ranges(const struct chart_ts *c, struct ts_layout *l)
{
	size_t k, j;

	l->ymax = 0;
	for (k = 0; k < c->nr_series; k++)
		for (j = 0; j < c->n; j++)
			if (!isnan(c->series[k].y[j]) && c->series[k].y[j] > l->ymax)
				l->ymax = c->series[k].y[j];
	l->ymax = l->ymax > 0 ? l->ymax * 1.08 : 1;
	if (c->y_unit == CHART_Y_BP && l->ymax > 10000 && l->ymax < 10000 * 1.08)
		l->ymax = 10000;
	l->t0 = c->x[0];
	l->t1 = c->x[c->n - 1];
	if (!(l->t1 > l->t0)) {
		l->t0 -= 0.5;
		l->t1 += 0.5;
	}
	if (l->t0 > 0 && l->t0 < (l->t1 - l->t0) * 0.2)
		l->t0 = 0;	/* from the record's start when that is close */
}

/* The ticks, and the room their labels, the legend and the title need. */
static void ts_layout(const struct chart_ts *c, struct ts_layout *l)
{
	double lw = 0, legend_w = 0;
	unsigned int i;
	cairo_t *cr;
	size_t k;
	char buf[64];

	l->pw = 760;
	l->ph = 330;
	ts_ranges(c, l);
	l->unit = y_unit(c->y_unit, l->ymax, &l->uname);
	l->nt = nice_ticks(0, l->ymax / l->unit, 8, l->ticks);
	cr = measurer();
	for (i = 0; i < l->nt; i++) {
		double tw;

		y_label(l->ticks[i] * l->unit, l->unit, l->uname, buf, sizeof(buf));
		tw = text_width(cr, TEXT_PX, false, buf);
		lw = tw > lw ? tw : lw;
	}
	for (k = 0; k < c->nr_series; k++)
		legend_w += 40 + text_width(cr, TEXT_PX, false, c->series[k].name);
	l->px = floor(14 + 18 + lw + 10);	/* whole pixels: crisp lines on the frame */
	l->py = 74;
	l->w = l->px + l->pw + 24;
	if (frame_width(cr, c->title, c->subtitle) > l->w)
		l->w = frame_width(cr, c->title, c->subtitle);
	if (legend_w + 28 > l->w)
		l->w = legend_w + 28;
	l->pw = floor(l->w - l->px - 24);
	l->h = l->py + l->ph + 52;
	cairo_destroy(cr);
}

/* The legend: a short line of each series' style, then its name. */
static void ts_legend(cairo_t *cr, const struct chart_ts *c)
{
	double x = 14;
	size_t k;

	for (k = 0; k < c->nr_series; k++) {
		double dash = 6;

		colour(cr, palette[k % (sizeof(palette) / sizeof(palette[0]))]);
		cairo_set_line_width(cr, 2.5);
		cairo_set_dash(cr, &dash, c->series[k].dashed ? 1 : 0, 0);
		line(cr, x, 60, x + 28, 60);
		cairo_set_dash(cr, NULL, 0, 0);
		colour(cr, 0x000000);
		text(cr, x + 34, 64, 0, TEXT_PX, false, c->series[k].name);
		x += 40 + text_width(cr, TEXT_PX, false, c->series[k].name);
	}
}

/* The y axis: grid, ticks, labels, title. */
static void ts_y_axis(cairo_t *cr, const struct chart_ts *c, const struct ts_layout *l)
{
	unsigned int i;
	char buf[64];

	cairo_set_line_width(cr, 1);
	for (i = 0; i < l->nt; i++) {
		double y = l->py + l->ph - l->ticks[i] * l->unit / l->ymax * l->ph;

		colour(cr, 0xe0e0e0);
		line(cr, l->px, y, l->px + l->pw, y);
		colour(cr, 0x000000);
		line(cr, l->px - 5, y, l->px, y);
		y_label(l->ticks[i] * l->unit, l->unit, l->uname, buf, sizeof(buf));
		text(cr, l->px - 8, y + 4, 1, TEXT_PX, false, buf);
	}
	text_up(cr, 14 + 9, l->py + l->ph / 2, TEXT_PX, c->y_label);
}

static int draw_time_series(FILE *f, enum chart_format fmt, const struct chart_ts *c)
{
	struct ts_layout l;
	cairo_surface_t *s;
	cairo_t *cr;
	size_t k, j;

	if (!c->n || !c->nr_series)
		return -EINVAL;
	ts_layout(c, &l);
	s = surface_new(fmt, ceil(l.w), ceil(l.h));
	cr = cairo_create(s);
	frame(cr, c->title, c->subtitle);
	ts_legend(cr, c);
	ts_y_axis(cr, c, &l);
	time_axis(cr, l.px, l.pw, l.py, l.ph, l.t0, l.t1, true, c->x_label);
	colour(cr, 0x000000);
	cairo_rectangle(cr, l.px - 0.5, l.py - 0.5, l.pw + 1, l.ph + 1);
	cairo_stroke(cr);
	/* the series, clipped to the plot: dashed ones (goals, medians) first, under the data */
	cairo_save(cr);
	cairo_rectangle(cr, l.px, l.py, l.pw, l.ph);
	cairo_clip(cr);
	for (j = 0; j < 2 * c->nr_series; j++) {
		k = j % c->nr_series;
		if (c->series[k].dashed != (j < c->nr_series))
			continue;
		draw_series(cr, c, k, l.px, l.py, l.pw, l.ph, l.t0, l.t1, l.ymax);
	}
	cairo_restore(cr);
	cairo_destroy(cr);
	return surface_finish(fmt, f, s);
}

/* ---- heatmap ---------------------------------------------------------------------------- */

/* Where a heatmap's parts go: the plot (px, py, pw, ph), the colour scale's x, the picture's
 * size, and the rows that get an address label. */
struct heat_layout {
	double px, py, pw, ph, w, h, scale_x;
	unsigned int nr_ylab, rows[MAX_TICKS];
};

/* Row boundaries of @h at multiples of @step bytes: their number, and the first @max of
 * them into @rows. */
static unsigned int rows_at(const struct chart_heatmap *h, uint64_t step, unsigned int *rows,
			    unsigned int max)
{
	unsigned int a, n = 0;

	for (a = 0; a <= h->na; a++)
		if (!(h->row_addr(h->data, a) % step)) {
			if (n < max)
				rows[n] = a;
			n++;
		}
	return n;
}

/* The rows labelled: those at multiples of the smallest power of two (of the rows' size at
 * least) that leaves no more than l->nr_ylab of them, so that labels read as round
 * addresses; evenly spread rows when fewer than two are that round. */
static void address_labels(const struct chart_heatmap *h, struct heat_layout *l)
{
	uint64_t w = UINT64_MAX, step;
	unsigned int a, n;

	for (a = 0; a < h->na; a++) {
		uint64_t d = h->row_addr(h->data, a + 1) - h->row_addr(h->data, a);

		w = d && d < w ? d : w;
	}
	for (step = w; step && step < (UINT64_C(1) << 62) &&
	     rows_at(h, step, l->rows, 0) > l->nr_ylab; step <<= 1)
		;
	n = step ? rows_at(h, step, l->rows, l->nr_ylab) : 0;
	if (n >= 2 && n <= l->nr_ylab) {
		l->nr_ylab = n;
		return;
	}
	for (a = 0; a < l->nr_ylab; a++)
		l->rows[a] = (unsigned int)((uint64_t)a * h->na / (l->nr_ylab - 1));
}

/* The plot's size (from --cell-px, within bounds), the address labels' rows and the room
 * their text, the scale and the title need. */
static void heatmap_layout(const struct chart_heatmap *h, struct heat_layout *l)
{
	double lw = 0;
	unsigned int i;
	cairo_t *cr;
	char buf[64];

	l->pw = 800;
	l->ph = 400;
	if (h->cell_px) {
		l->pw = (double)h->nt * h->cell_px;
		l->ph = (double)h->na * h->cell_px;
		/* cells stretch rather than leave a plot too small to read */
		l->pw = l->pw < 480 ? 480 : l->pw > 4000 ? 4000 : l->pw;
		l->ph = l->ph < 240 ? 240 : l->ph > 4000 ? 4000 : l->ph;
	}
	/* address labels far enough apart to read, at the roundest row boundaries */
	l->nr_ylab = (unsigned int)(l->ph / 36) + 1;
	if (l->nr_ylab > h->na + 1)
		l->nr_ylab = h->na + 1;
	if (l->nr_ylab > MAX_TICKS)
		l->nr_ylab = MAX_TICKS;
	if (l->nr_ylab < 2)
		l->nr_ylab = 2;
	address_labels(h, l);
	cr = measurer();
	for (i = 0; i < l->nr_ylab; i++) {
		double tw;

		snprintf(buf, sizeof(buf), "0x%016" PRIx64, h->row_addr(h->data, l->rows[i]));
		tw = text_width(cr, TEXT_PX, false, buf);
		lw = tw > lw ? tw : lw;
	}
	l->px = floor(14 + 18 + lw + 10);
	l->py = 74;
	l->scale_x = l->px + l->pw + 24;
	l->w = l->scale_x + 16 + 8 + text_width(cr, TEXT_PX, false, "100%") + 14;
	if (text_width(cr, TEXT_PX, false, "access rate") + l->scale_x + 14 > l->w)
		l->w = l->scale_x + text_width(cr, TEXT_PX, false, "access rate") + 14;
	if (frame_width(cr, h->title, h->subtitle) > l->w)
		l->w = frame_width(cr, h->title, h->subtitle);
	l->h = l->py + l->ph + 52;
	cairo_destroy(cr);
}

/* The cells: a row's runs of one colour as one rectangle, no seams between them. */
static void heatmap_cells(cairo_t *cr, const struct chart_heatmap *h,
			  const struct heat_layout *l)
{
	double cw = l->pw / h->nt, ch = l->ph / h->na;
	unsigned int t, a;

	cairo_save(cr);
	cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
	for (a = 0; a < h->na; a++) {
		double y0 = l->py + l->ph - (a + 1) * ch;

		for (t = 0; t < h->nt;) {
			uint8_t c[3], d[3];
			unsigned int u;

			heat_rgb(h->cell(h->data, t, a), c);
			for (u = t + 1; u < h->nt; u++) {
				heat_rgb(h->cell(h->data, u, a), d);
				if (memcmp(c, d, 3))
					break;
			}
			cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
			cairo_rectangle(cr, l->px + t * cw, y0, (u - t) * cw, ch);
			cairo_fill(cr);
			t = u;
		}
	}
	cairo_restore(cr);
}

/* The address axis: where it leaves a gap out, a dashed cyan line, seen on dark and on
 * bright cells, running on into the axis; the plot's frame; the labelled addresses. */
static void heatmap_address_axis(cairo_t *cr, const struct chart_heatmap *h,
				 const struct heat_layout *l)
{
	double ch = l->ph / h->na;
	unsigned int i;
	char buf[64];

	colour(cr, 0x00c0ff);
	cairo_set_line_width(cr, 1.5);
	for (i = 0; i < h->nr_gaps; i++) {
		double y = l->py + l->ph - h->gaps[i] * ch, dash = 5;

		cairo_set_dash(cr, &dash, 1, 0);
		line(cr, l->px - 8, y, l->px + l->pw, y);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	colour(cr, 0x000000);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, l->px - 0.5, l->py - 0.5, l->pw + 1, l->ph + 1);
	cairo_stroke(cr);
	for (i = 0; i < l->nr_ylab; i++) {
		double y = l->py + l->ph - l->rows[i] * ch;

		line(cr, l->px - 5, y, l->px, y);
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, h->row_addr(h->data, l->rows[i]));
		text(cr, l->px - 8, y + 4, 1, TEXT_PX, false, buf);
	}
	text_up(cr, 14 + 9, l->py + l->ph / 2, TEXT_PX,
		h->nr_gaps ? "address (gaps and unmapped memory left out)" : "address");
}

/* The colour scale: access rate from 0 (bottom) to 100% (top), and under it the swatch of
 * no data. */
static void heatmap_scale(cairo_t *cr, const struct heat_layout *l)
{
	double x = l->scale_x, py = l->py, ph = l->ph;
	unsigned int i;
	uint8_t c[3];
	char buf[64];

	for (i = 0; i < 100; i++) {
		heat_rgb((i + 0.5) / 100, c);
		cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
		cairo_rectangle(cr, x, py + ph - (i + 1) * ph / 100, 16, ph / 100 + 0.5);
		cairo_fill(cr);
	}
	colour(cr, 0x000000);
	cairo_rectangle(cr, x, py, 16, ph);
	cairo_stroke(cr);
	for (i = 0; i <= 4; i++) {
		double y = py + ph - i * ph / 4;

		line(cr, x + 16, y, x + 20, y);
		snprintf(buf, sizeof(buf), "%u%%", i * 25);
		text(cr, x + 23, y + 4, 0, TEXT_PX, false, buf);
	}
	text(cr, x, py - 8, 0, TEXT_PX, false, "access rate");
	heat_rgb(-1, c);
	cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
	cairo_rectangle(cr, x, py + ph + 12, 16, 10);
	cairo_fill(cr);
	colour(cr, 0x000000);
	text(cr, x, py + ph + 36, 0, TEXT_PX, false, "no data");
}

static int draw_heatmap(FILE *f, enum chart_format fmt, const struct chart_heatmap *h)
{
	struct heat_layout l;
	cairo_surface_t *s;
	cairo_t *cr;

	if (!h->nt || !h->na)
		return -EINVAL;
	heatmap_layout(h, &l);
	s = surface_new(fmt, ceil(l.w), ceil(l.h));
	cr = cairo_create(s);
	frame(cr, h->title, h->subtitle);
	heatmap_cells(cr, h, &l);
	heatmap_address_axis(cr, h, &l);
	time_axis(cr, l.px, l.pw, l.py, l.ph, h->t0_s, h->t1_s, false, NULL);
	heatmap_scale(cr, &l);
	cairo_destroy(cr);
	return surface_finish(fmt, f, s);
}

PLUGIN_EXPORT const struct chart_plugin damonc_chart_plugin = {
	.head = { .version = DAMONC_VERSION, .size = sizeof(struct chart_plugin) },
	.time_series = draw_time_series,
	.heatmap = draw_heatmap,
};
