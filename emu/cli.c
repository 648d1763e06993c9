// SPDX-License-Identifier: GPL-2.0-or-later
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli.h"
#include "emu.h"
#include "kstrto.h"
#include "profile.h"

struct emu_options emu_opt = {
	.avail_ops = (1u << EMU_OPS_VADDR) | (1u << EMU_OPS_FVADDR) | (1u << EMU_OPS_PADDR),
	/* the engine reads goal memcgs where the tree validated them */
	.engine = { .proc_root = "/proc", .real_actions = true, .cgroup_root = "/sys/fs/cgroup" },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: damon-emu [options] MOUNTPOINT\n"
"Emulate /sys/kernel/mm/damon/admin of a given kernel on MOUNTPOINT (FUSE).\n"
"\n"
"  -p, --profile NAME     kernel to emulate: %s (default 7.2)\n"
"      --avail-ops LIST   registered operations sets, comma-separated\n"
"                         (default vaddr,fvaddr,paddr)\n"
"      --scenario FILE    access scenario for the engine\n"
"      --proc DIR         procfs the engine and pid lookups use (default /proc)\n"
"      --no-real-actions  do not carry out DAMOS actions on target processes\n"
"      --modules DIR      /sys/module-like directory: an enabled damon_reclaim,\n"
"                         damon_lru_sort or damon_stat makes `on` fail with EBUSY\n"
"      --cgroup-root DIR  cgroup hierarchy memcg paths are looked up in\n"
"                         (default /sys/fs/cgroup)\n"
"      --faults FILE      fault injection rules (see damon-emu(1))\n"
"      --log FILE         append one line per write: path, value, result\n"
"      --log-pids         end each --log line with the writer's pid\n"
"  -f, --foreground       stay in the foreground\n"
"  -d, --debug            FUSE debug output (implies --foreground)\n"
"      --allow-other      let other users in (FUSE allow_other)\n"
"  -h, --help             this help\n"
"  -V, --version          version\n",
		emu_profile_names());
}

static int parse_ops(const char *list)
{
	char *copy = strdup(list), *save = NULL;
	unsigned int mask = 0;
	int err = 0;

	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		/* the name tables know every ops set; only registration is chosen here */
		int ops = emu_kw_parse(&emu_kw_ops, w);

		if (ops < 0) {
			fprintf(stderr, "damon-emu: --avail-ops: unknown operations set '%s'\n", w);
			err = -1;
			break;
		}
		mask |= 1u << ops;
	}
	free(copy);
	if (!err)
		emu_opt.avail_ops = mask;
	return err;
}

int emu_cli_parse(int argc, char **argv)
{
	enum { O_AVAIL = 256, O_SCENARIO, O_PROC, O_NO_REAL, O_MODULES, O_CGROUP, O_FAULTS,
	       O_LOG, O_LOG_PIDS, O_ALLOW_OTHER };
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "avail-ops", required_argument, NULL, O_AVAIL },
		{ "scenario", required_argument, NULL, O_SCENARIO },
		{ "proc", required_argument, NULL, O_PROC },
		{ "no-real-actions", no_argument, NULL, O_NO_REAL },
		{ "modules", required_argument, NULL, O_MODULES },
		{ "cgroup-root", required_argument, NULL, O_CGROUP },
		{ "faults", required_argument, NULL, O_FAULTS },
		{ "log", required_argument, NULL, O_LOG },
		{ "log-pids", no_argument, NULL, O_LOG_PIDS },
		{ "foreground", no_argument, NULL, 'f' },
		{ "debug", no_argument, NULL, 'd' },
		{ "allow-other", no_argument, NULL, O_ALLOW_OTHER },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *profile = "7.2";
	int c;

	while ((c = getopt_long(argc, argv, "p:fdhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			profile = optarg;
			break;
		case O_AVAIL:
			if (parse_ops(optarg))
				return 2;
			break;
		case O_SCENARIO:
			emu_opt.engine.scenario_path = optarg;
			break;
		case O_PROC:
			emu_opt.engine.proc_root = optarg;
			break;
		case O_NO_REAL:
			emu_opt.engine.real_actions = false;
			break;
		case O_MODULES:
			emu_opt.modules_dir = optarg;
			break;
		case O_CGROUP:
			emu_opt.engine.cgroup_root = optarg;
			break;
		case O_FAULTS:
			emu_opt.faults_path = optarg;
			break;
		case O_LOG:
			emu_opt.log_path = optarg;
			break;
		case O_LOG_PIDS:
			emu_opt.log_pids = true;
			break;
		case 'f':
			emu_opt.foreground = true;
			break;
		case 'd':
			emu_opt.debug = true;
			emu_opt.foreground = true;
			break;
		case O_ALLOW_OTHER:
			emu_opt.allow_other = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
			printf("damon-emu %s\nprofiles: %s\n", DAMONC_VERSION, emu_profile_names());
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (emu_profile_select(profile)) {
		fprintf(stderr, "damon-emu: --profile: unknown profile '%s' (known: %s)\n",
			profile, emu_profile_names());
		return 2;
	}
	emu_opt.engine.hugepage_metric = emu_prof.next;
	if (optind != argc - 1) {
		fprintf(stderr, "damon-emu: %s\n", optind >= argc ? "missing MOUNTPOINT" :
			"only one MOUNTPOINT is accepted");
		usage(stderr);
		return 2;
	}
	emu_opt.mountpoint = argv[optind];
	return 0;
}
