// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc features: what this kernel's DAMON supports, by name, detected from the tree
 * itself (files present or missing, avail_operations, module parameters), without writing
 * and without needing DAMON to be stopped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "damonc.h"
#include "journal.h"
#include "known_features.h"
#include "started.h"

struct features_opts {
	bool probe;
};

static const struct opt features_opts[] = {
	{ "probe", 256, OV_NONE, NULL, "probe what no directory shows on a temporary kdamond, "
	  "removed again (writes; not while a kdamond runs), and keep it for this boot",
	  OPT_TO(OD_FLAG, struct features_opts, probe) },
	{ 0 },
};

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

/* Which features a probe told (the tree alone did not), for the output. */
struct told {
	bool probed[DAMONCTL_NR_FEATURES];
	bool any;
};

static int print_json(const struct damonctl_features *f, const struct told *t)
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
		if (t->probed[i])
			json_object_object_add(o, "probed", json_object_new_boolean(true));
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

static void print_text(const struct damonctl_features *f, const struct told *t)
{
	char ver[64];
	unsigned int i, s;

	damonctl_features_describe_version(f, ver, sizeof(ver));
	printf("DAMON on this kernel looks like Linux %s (read from the sysfs tree and module "
	       "parameters%s)\n\n", ver, t->any ? ", and a probe this boot: marked *" : "");
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		enum damonctl_support s = damonctl_features_has(f, i);
		char word[16];

		snprintf(word, sizeof(word), "%s%s", support_word(s), t->probed[i] ? "*" : "");
		printf("  %s%-8s%s %-20s %s (%s)\n",
		       color_start(s == DAMONCTL_YES ? CR_GOOD : s == DAMONCTL_NO ? CR_WARN : CR_DIM),
		       word, color_end(), damonctl_feature_name(i),
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
	if (damonctl_features_incomplete(f) ||
	    damonctl_features_has(f, DAMONCTL_FEAT_HUGEPAGE_MEM_BP) == DAMONCTL_UNKNOWN)
		printf("\nWhat is unknown no kdamond directory shows, or only a keyword write can "
		       "tell: 'damonc features --probe' probes it now on a temporary kdamond "
		       "(removed again), and 'damonc start' does before it needs it; either is "
		       "kept for this boot.\n");
}

/* --probe: what no directory shows, probed on a temporary kdamond (the tree put back), as a
 * start would, under damonc's lock and journal; kept for this boot. An exit code. */
static int probe(struct cli *cli, struct damonctl_features *f)
{
	int lock = started_lock(cli->ctx), r;

	if (lock < 0)
		return started_lock_error(cli, lock);
	recover_leftovers(cli);
	r = damonctl_features_probe_fresh(cli->ctx, f);
	if (!r)
		known_features_save(cli->ctx, f);
	journal_release(cli);
	started_unlock(lock);
	if (r == -EBUSY) {
		warnx_("features: --probe: a kdamond is running, and the kernel cannot add the "
		       "temporary one while any runs (what the running one's directories show "
		       "is said)");
		return EXIT_BUSY;
	}
	return r ? lib_error(cli, r, "probing on a temporary kdamond") : 0;
}

static int features_run(struct cli *cli, int argc, char **argv)
{
	struct features_opts *fo = cli->opts;
	struct damonctl_features *f;
	struct told t = { .any = false };
	char *known;
	unsigned int i;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	r = damonctl_features_detect(cli->ctx, &f);
	if (r)
		return lib_error(cli, r, "detecting DAMON features");
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++)
		t.probed[i] = damonctl_features_has(f, i) == DAMONCTL_UNKNOWN;
	/* what a start's probe, or an earlier --probe, found this boot */
	known = known_features_load(cli->ctx);
	if (known)
		damonctl_features_learn(f, known);
	free(known);
	r = fo->probe ? probe(cli, f) : 0;
	for (i = 0; i < DAMONCTL_NR_FEATURES; i++) {
		t.probed[i] &= damonctl_features_has(f, i) != DAMONCTL_UNKNOWN;
		t.any |= t.probed[i];
	}
	if (r && r != EXIT_BUSY) {
		damonctl_features_free(f);
		return r;
	}
	if (cli->json && print_json(f, &t))
		r = EXIT_FAIL;
	else if (!cli->json)
		print_text(f, &t);
	damonctl_features_free(f);
	return r;
}

const struct cmd cmd_features = {
	.name = "features",
	.summary = "show what this kernel's DAMON supports, detected from the tree itself",
	.usage = "[--probe] [--json]",
	.opts = features_opts,
	.run = features_run,
	.opts_size = sizeof(struct features_opts),
	.opts_init = &(const struct features_opts){ .probe = false },
};
