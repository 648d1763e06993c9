/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics for Prometheus: metric families, each with its samples (labels and a value), built
 * once and rendered as the Prometheus text format 0.0.4 (what node_exporter's textfile
 * collector, promtool and every scraper read), as OpenMetrics 1.0 text, or as JSON.
 *
 * A family is named without the suffix its type adds to its samples: a counter "x_bytes"
 * has the samples "x_bytes_total", an info family "x" the samples "x_info" (value 1).
 */
#ifndef DAMONC_EXPOSITION_H
#define DAMONC_EXPOSITION_H

#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

enum expo_type { EXPO_GAUGE, EXPO_COUNTER, EXPO_INFO };
enum expo_format { EXPO_PROMETHEUS, EXPO_OPENMETRICS };

#define EXPO_MAX_LABELS 6

struct expo_labels {
	unsigned int n;
	struct {
		const char *name;	/* a literal: label names are fixed */
		char value[64];
	} l[EXPO_MAX_LABELS];
};

struct expo;

struct expo *expo_new(void);
void expo_free(struct expo *x);
/*
 * Add a family and return its id (>= 0), or -ENOMEM. @unit: "bytes", "seconds", "ratio" or
 * NULL; the name ends with it. @help: one line.
 */
int expo_family(struct expo *x, const char *name, enum expo_type type, const char *unit,
		const char *help);
/* Append a label to @ls (at most EXPO_MAX_LABELS). */
void expo_label(struct expo_labels *ls, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add a sample to family @family (@ls may be NULL: no labels). Out of memory is remembered
 * and reported by the renderers. */
void expo_u64(struct expo *x, int family, const struct expo_labels *ls, uint64_t v);
void expo_i64(struct expo *x, int family, const struct expo_labels *ls, int64_t v);
void expo_f64(struct expo *x, int family, const struct expo_labels *ls, double v);

/* The families that have samples, in the order they were added; 0 or -errno. */
int expo_write(const struct expo *x, enum expo_format fmt, FILE *out);
/* Every family, samples or not: [{"name", "type", "unit", "help", "samples": [{"labels",
 * "value"}]}], names as the Prometheus text format writes the samples. NULL if out of
 * memory. */
json_object *expo_to_json(const struct expo *x);

#endif
