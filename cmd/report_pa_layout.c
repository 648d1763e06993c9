// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damonc report pa-layout: the physical address layout (damo's report pa_layout), what a
 * paddr user picks --regions or --numa-node from: /proc/iomem's resources with the NUMA
 * node and state of their memory blocks, and the range `start --ops paddr` monitors when
 * given none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "damonc.h"

enum { O_NODE = 300 };

struct pa_opts {
	int node;	/* -1: every node */
};

static const struct opt pa_opts_tbl[] = {
	{ "node", O_NODE, OV_INT, "N", "only the ranges of NUMA node N",
	  OPT_TO(OD_INT, struct pa_opts, node) },
	{ 0 },
};

static json_object *range_json(uint64_t s, uint64_t e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "start", json_object_new_uint64(s));
	json_object_object_add(o, "end", json_object_new_uint64(e));
	json_object_object_add(o, "size", json_object_new_uint64(e - s));
	return o;
}

static int pa_run(struct cli *cli, int argc, char **argv)
{
	const struct pa_opts *po = cli->opts;
	json_object *doc = NULL, *arr = NULL;
	struct damonctl_pa_layout *l;
	uint64_t ds = 0, de = 0;
	char a[32], b[32], name[128], rg[24], rg2[24];
	size_t i, shown = 0;
	bool has_default;
	int r;

	if (argc)
		return usage_error(cli, "unexpected argument '%s'", argv[0]);
	r = damonctl_pa_layout_read(cli->ctx, &l);
	if (r == -EPERM) {
		usage_error(cli, "/proc/iomem hides the addresses from this user: run as root");
		return EXIT_FAIL;
	}
	if (r)
		return lib_error(cli, r, "reading the physical address layout");
	has_default = !damonctl_system_ram(cli->ctx, &ds, &de);
	damonctl_clear_error(cli->ctx);
	if (cli->json) {
		doc = json_doc_new();
		arr = json_object_new_array();
	} else {
		printf("%-18s %-18s %*s %5s %-8s %s\n", "start", "end", SIZE_COL, "size", "node",
		       "state", "resource");
	}
	for (i = 0; i < damonctl_pa_layout_nr(l); i++) {
		const char *state, *res;
		uint64_t s, e;
		int node;

		damonctl_pa_layout_range(l, i, &s, &e, &node, &state, &res);
		if (po->node >= 0 && node != po->node)
			continue;
		shown++;
		if (arr) {
			json_object *o = range_json(s, e);

			json_object_object_add(o, "node", node < 0 ? NULL :
					       json_object_new_int(node));
			json_object_object_add(o, "state", *state ?
					       json_object_new_string(state) : NULL);
			json_object_object_add(o, "resource", json_object_new_string(res));
			json_object_array_add(arr, o);
			continue;
		}
		snprintf(b, sizeof(b), "%d", node);
		printf("%s %s %*s %5s %-8s %s\n", fmt_addr(s, rg, sizeof(rg)),
		       fmt_addr(e, rg2, sizeof(rg2)), SIZE_COL, fmt_size_col(e - s, a, sizeof(a)),
		       node < 0 ? "-" : b, *state ? state : "-",
		       safe_str(res, name, sizeof(name)));
	}
	damonctl_pa_layout_free(l);
	if (doc) {
		json_object_object_add(doc, "ranges", arr);
		json_object_object_add(doc, "default_range", has_default ? range_json(ds, de) : NULL);
		return json_doc_print(doc) ? EXIT_FAIL : EXIT_OK;
	}
	if (po->node >= 0 && !shown)
		printf("no range is on node %d\n", po->node);
	if (has_default)
		printf("start --ops paddr monitors, without --regions: %s"
		       " (%s, the largest System RAM range)\n", fmt_range(ds, de, rg, sizeof(rg)),
		       fmt_size(de - ds, a, sizeof(a)));
	return EXIT_OK;
}

const struct cmd cmd_report_pa_layout = {
	.name = "pa-layout",
	.summary = "the physical address layout: System RAM and other ranges, NUMA nodes",
	.usage = "[--node N] [--json]",
	.opts = pa_opts_tbl,
	.run = pa_run,
	.opts_size = sizeof(struct pa_opts),
	.opts_init = &(const struct pa_opts){ .node = -1 },
};
