// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Metric families and their renderings (see exposition.h). The two text formats differ in
 * how a family is declared: Prometheus 0.0.4 declares the sample name ("x_total counter",
 * "x_info gauge"), OpenMetrics the family name ("x counter", "x info", with a UNIT line),
 * and OpenMetrics ends with "# EOF".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exposition.h"

enum value_kind { V_U64, V_I64, V_F64 };

struct sample {
	struct expo_labels labels;
	enum value_kind kind;
	union {
		uint64_t u;
		int64_t i;
		double d;
	} v;
};

struct family {
	char *name, *help;
	const char *unit;
	enum expo_type type;
	struct sample *s;
	size_t nr, cap;
};

struct expo {
	struct family *f;
	size_t nr, cap;
	bool nomem;
};

struct expo *expo_new(void)
{
	return calloc(1, sizeof(struct expo));
}

void expo_free(struct expo *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nr; i++) {
		free(x->f[i].name);
		free(x->f[i].help);
		free(x->f[i].s);
	}
	free(x->f);
	free(x);
}

int expo_family(struct expo *x, const char *name, enum expo_type type, const char *unit,
		const char *help)
{
	struct family *f;

	if (x->nr == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;
		struct family *n = realloc(x->f, cap * sizeof(*n));

		if (!n) {
			x->nomem = true;
			return -ENOMEM;
		}
		x->f = n;
		x->cap = cap;
	}
	f = &x->f[x->nr];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->help = strdup(help);
	if (!f->name || !f->help) {
		free(f->name);
		free(f->help);
		x->nomem = true;
		return -ENOMEM;
	}
	f->unit = unit;
	f->type = type;
	return (int)x->nr++;
}

void expo_label(struct expo_labels *ls, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ls->n >= EXPO_MAX_LABELS)
		return;
	ls->l[ls->n].name = name;
	va_start(ap, fmt);
	vsnprintf(ls->l[ls->n].value, sizeof(ls->l[ls->n].value), fmt, ap);
	va_end(ap);
	ls->n++;
}

static struct sample *add(struct expo *x, int family, const struct expo_labels *ls)
{
	struct family *f;
	struct sample *s;

	if (family < 0 || (size_t)family >= x->nr)
		return NULL;	/* the family could not be added: nomem is set */
	f = &x->f[family];
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct sample *n = realloc(f->s, cap * sizeof(*n));

		if (!n) {
			x->nomem = true;
			return NULL;
		}
		f->s = n;
		f->cap = cap;
	}
	s = &f->s[f->nr++];
	memset(s, 0, sizeof(*s));
	if (ls)
		s->labels = *ls;
	return s;
}

void expo_u64(struct expo *x, int family, const struct expo_labels *ls, uint64_t v)
{
	struct sample *s = add(x, family, ls);

	if (s) {
		s->kind = V_U64;
		s->v.u = v;
	}
}

void expo_i64(struct expo *x, int family, const struct expo_labels *ls, int64_t v)
{
	struct sample *s = add(x, family, ls);

	if (s) {
		s->kind = V_I64;
		s->v.i = v;
	}
}

void expo_f64(struct expo *x, int family, const struct expo_labels *ls, double v)
{
	struct sample *s = add(x, family, ls);

	if (s) {
		s->kind = V_F64;
		s->v.d = v;
	}
}

/* ---- text ---- */

/* Label values: backslash, double quote and newline escaped (both formats); HELP text:
 * backslash and newline (Prometheus), and double quote too (OpenMetrics). */
static void put_escaped(FILE *out, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && quote)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

static const char *suffix(const struct family *f)
{
	return f->type == EXPO_COUNTER ? "_total" : f->type == EXPO_INFO ? "_info" : "";
}

static void put_value(FILE *out, const struct sample *s)
{
	switch (s->kind) {
	case V_U64:
		fprintf(out, "%" PRIu64, s->v.u);
		break;
	case V_I64:
		fprintf(out, "%" PRId64, s->v.i);
		break;
	case V_F64:
		if (isnan(s->v.d))
			fputs("NaN", out);
		else if (isinf(s->v.d))
			fputs(s->v.d > 0 ? "+Inf" : "-Inf", out);
		else
			fprintf(out, "%.10g", s->v.d);
		break;
	}
}

static void put_family(FILE *out, const struct family *f, enum expo_format fmt)
{
	static const char *const types[][2] = {
		[EXPO_GAUGE] = { "gauge", "gauge" },
		[EXPO_COUNTER] = { "counter", "counter" },
		[EXPO_INFO] = { "gauge", "info" },
	};
	bool om = fmt == EXPO_OPENMETRICS;
	const char *decl = om ? "" : suffix(f);
	size_t i, j;

	fprintf(out, "# HELP %s%s ", f->name, decl);
	put_escaped(out, f->help, om);
	fprintf(out, "\n# TYPE %s%s %s\n", f->name, decl, types[f->type][om]);
	if (om && f->unit && f->type != EXPO_INFO)
		fprintf(out, "# UNIT %s %s\n", f->name, f->unit);
	for (i = 0; i < f->nr; i++) {
		const struct sample *s = &f->s[i];

		fprintf(out, "%s%s", f->name, suffix(f));
		for (j = 0; j < s->labels.n; j++) {
			fprintf(out, "%s%s=\"", j ? "," : "{", s->labels.l[j].name);
			put_escaped(out, s->labels.l[j].value, true);
			fputc('"', out);
		}
		fputs(s->labels.n ? "} " : " ", out);
		put_value(out, s);
		fputc('\n', out);
	}
}

int expo_write(const struct expo *x, enum expo_format fmt, FILE *out)
{
	size_t i;

	if (x->nomem)
		return -ENOMEM;
	for (i = 0; i < x->nr; i++)
		if (x->f[i].nr)
			put_family(out, &x->f[i], fmt);
	if (fmt == EXPO_OPENMETRICS)
		fputs("# EOF\n", out);
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ---- */

static json_object *value_json(const struct sample *s)
{
	char text[32];

	switch (s->kind) {
	case V_U64:
		return json_object_new_uint64(s->v.u);
	case V_I64:
		return json_object_new_int64(s->v.i);
	default:
		if (!isfinite(s->v.d))
			return NULL;	/* JSON has no NaN or infinity */
		/* as the text formats write it, not the 17 digits json-c would */
		snprintf(text, sizeof(text), "%.10g", s->v.d);
		return json_object_new_double_s(s->v.d, text);
	}
}

json_object *expo_to_json(const struct expo *x)
{
	static const char *const types[] = {
		[EXPO_GAUGE] = "gauge", [EXPO_COUNTER] = "counter", [EXPO_INFO] = "info",
	};
	json_object *arr;
	size_t i, j, k;

	if (x->nomem)
		return NULL;
	arr = json_object_new_array();
	for (i = 0; i < x->nr; i++) {
		const struct family *f = &x->f[i];
		json_object *o = json_object_new_object(), *samples = json_object_new_array();
		char name[256];

		snprintf(name, sizeof(name), "%s%s", f->name, suffix(f));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "type", json_object_new_string(types[f->type]));
		json_object_object_add(o, "unit", f->unit ? json_object_new_string(f->unit) : NULL);
		json_object_object_add(o, "help", json_object_new_string(f->help));
		for (j = 0; j < f->nr; j++) {
			json_object *s = json_object_new_object(), *labels = json_object_new_object();

			for (k = 0; k < f->s[j].labels.n; k++)
				json_object_object_add(labels, f->s[j].labels.l[k].name,
						       json_object_new_string(f->s[j].labels.l[k].value));
			json_object_object_add(s, "labels", labels);
			json_object_object_add(s, "value", value_json(&f->s[j]));
			json_object_array_add(samples, s);
		}
		json_object_object_add(o, "samples", samples);
		json_object_array_add(arr, o);
	}
	return arr;
}
