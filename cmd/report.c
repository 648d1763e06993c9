// SPDX-License-Identifier: GPL-2.0-or-later
/* damonc report: the report subcommands, each in its own file. */
#include "damonc.h"

extern const struct cmd cmd_report_hugepage, cmd_report_access,
	cmd_report_heatmap, cmd_report_wss, cmd_report_schemes,
	cmd_report_info, cmd_report_nr_regions, cmd_report_footprints, cmd_report_times,
	cmd_report_pa_layout, cmd_report_holistic, cmd_report_profile;

static const struct cmd *const report_cmds[] = {
	&cmd_report_hugepage,
	&cmd_report_access,
	&cmd_report_heatmap,
	&cmd_report_wss,
	&cmd_report_schemes,
	&cmd_report_info,
	&cmd_report_nr_regions,
	&cmd_report_footprints,
	&cmd_report_times,
	&cmd_report_pa_layout,
	&cmd_report_holistic,
	&cmd_report_profile,
	NULL,
};

static int report_run(struct cli *cli, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return usage_error(cli, "which report? (see 'damonc report --help')");
}

const struct cmd cmd_report = {
	.name = "report",
	.summary = "reports of huge pages and the physical memory layout now, and of access "
		   "patterns over a record",
	.usage = "REPORT [OPTIONS]",
	.run = report_run,
	.subcmds = report_cmds,
};
