// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc features: what this kernel's DAMON supports, by name, detected from the tree
 * itself (files present or missing, avail_operations, module parameters), without writing
 * and without needing DAMON to be stopped.
 */
#include <string.h>

#include "color.h"
#include "damonc.h"

static const struct opt features_opts[] = { { 0 } };

static const struct { enum damonctl_kwset set; const char *name; } kwsets[] = {
	{ DAMONCTL_KW_OPERATIONS, "operations" },
	{ DAMONCTL_KW_ACTION, "action" },
	{ DAMONCTL_KW_FILTER_TYPE, "filter_type" },
	{ DAMONCTL_KW_GOAL_METRIC, "goal_metric" },
	{ DAMONCTL_KW_GOAL_TUNER, "goal_tuner" },
};

static const char *support_word(enum damonctl_support s)
{
	return s == DAMONCTL_YES ? "yes" : s == DAMONCTL_NO ? "no" : "unknown";
}

static json_object *support_json(enum damonctl_support s)
{
	return s == DAMONCTL_UNKNOWN ? NULL : json_object_new_boolean(s == DAMONCTL_YES);
}

static int print_json(const struct damonctl_features *f)
{
	json_object *doc = json_doc_new(), *feats = json_object_new_object(), *kws, *kernel;
	int vmin, vmax;
	unsigned int i, s;
	char buf[32];

	damonctl_features_version_range(f, &vmin, &vmax);
	kernel = json_object_new_object();
	snprintf(buf, sizeof(buf), "%d.%d", vmin / 1000, vmin % 1000);
	json_object_object_add(kernel, "min_version", json_object_new_string(buf));
	if (vmax) {
		snprintf(buf, sizeof(buf), "%d.%d", vmax / 1000, vmax % 1000);
		json_object_object_add(kernel, "max_version", json_object_new_string(buf));
	} else {
		json_object_object_add(kernel, "max_version", NULL);
	}
	json_object_object_add(doc, "kernel", kernel);
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "supported", support_json(damonctl_features_has(f, i)));
		json_object_object_add(o, "since", json_object_new_string(damonctl_feature_since(i)));
		json_object_object_add(o, "description",
				       json_object_new_string(damonctl_feature_description(i)));
		json_object_object_add(feats, damonctl_feature_name(i), o);
	}
	json_object_object_add(doc, "features", feats);
	kws = json_object_new_object();
	for (s = 0; s < sizeof(kwsets) / sizeof(kwsets[0]); s++) {
		json_object *o = json_object_new_object();
		const char *kw;

		for (i = 0; (kw = damonctl_keyword(kwsets[s].set, i)); i++)
			json_object_object_add(o, kw, support_json(
				damonctl_features_has_keyword(f, kwsets[s].set, kw)));
		json_object_object_add(kws, kwsets[s].name, o);
	}
	json_object_object_add(doc, "keywords", kws);
	return json_doc_print(doc);
}

static void print_text(const struct damonctl_features *f)
{
	char ver[64];
	unsigned int i, s;

	damonctl_features_describe_version(f, ver, sizeof(ver));
	printf("DAMON on this kernel looks like Linux %s (read from the sysfs tree and module "
	       "parameters)\n\n", ver);
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		enum damonctl_support s = damonctl_features_has(f, i);

		printf("  %s%-8s%s %-20s %s (%s)\n",
		       color_start(s == DAMONCTL_YES ? CR_GOOD : s == DAMONCTL_NO ? CR_WARN : CR_DIM),
		       support_word(s), color_end(), damonctl_feature_name(i),
		       damonctl_feature_description(i), damonctl_feature_since(i));
	}
	printf("\n");
	for (s = 0; s < sizeof(kwsets) / sizeof(kwsets[0]); s++) {
		const char *kw;
		bool any_unknown = false;

		printf("  %-12s", kwsets[s].name);
		for (i = 0; (kw = damonctl_keyword(kwsets[s].set, i)); i++) {
			enum damonctl_support sup = damonctl_features_has_keyword(f, kwsets[s].set, kw);

			if (sup == DAMONCTL_YES)
				printf(" %s", kw);
			else if (sup == DAMONCTL_UNKNOWN)
				any_unknown = true;
		}
		if (any_unknown) {
			printf("  (unknown:");
			for (i = 0; (kw = damonctl_keyword(kwsets[s].set, i)); i++)
				if (damonctl_features_has_keyword(f, kwsets[s].set, kw) ==
				    DAMONCTL_UNKNOWN)
					printf(" %s", kw);
			printf(")");
		}
		printf("\n");
	}
	if (damonctl_features_has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) == DAMONCTL_UNKNOWN)
		printf("\nUnknown features can only be seen by writing a keyword; 'damonc start' "
		       "checks them on its own kdamond before starting.\n");
}

static int features_run(struct cli *cli, int argc, char **argv)
{
	struct damonctl_features *f;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	r = damonctl_features_detect(cli->ctx, &f);
	if (r)
		return lib_error(cli, r, "detecting DAMON features");
	if (cli->json)
		r = print_json(f);
	else
		print_text(f);
	damonctl_features_free(f);
	return r ? EXIT_FAIL : EXIT_OK;
}

const struct cmd cmd_features = {
	.name = "features",
	.summary = "show what this kernel's DAMON supports, detected from the tree itself",
	.usage = "[--json]",
	.opts = features_opts,
	.run = features_run,
};
