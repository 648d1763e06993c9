// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-conform run SCRIPT... --root ADMIN_DIR [--kernel VERSION] [--modules DIR] [-v] [--keep]
 * damon-conform dump --root ADMIN_DIR
 * damon-conform check SCRIPT...
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "conform.h"

static void usage(FILE *f)
{
	fputs("usage: damon-conform run SCRIPT... --root ADMIN_DIR [--kernel VERSION]\n"
	      "                         [--modules DIR] [--verbose] [--keep]\n"
	      "       damon-conform dump --root ADMIN_DIR\n"
	      "       damon-conform check SCRIPT...\n"
	      "VERSION is like 6.12, 6.12.117+deb13-amd64 or next (default: uname -r).\n"
	      "run exits 0 iff every expectation held, 1 on mismatches, 2 on errors.\n", f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "modules", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "keep", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct run_opts o = { .modules = "/sys/module" };
	const char *kernel = NULL, *cmd;
	struct utsname u;
	int c, ret = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	/* options and scripts follow the subcommand, in any order */
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "r:k:m:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o.root = optarg; break;
		case 'k': kernel = optarg; break;
		case 'm': o.modules = optarg; break;
		case 'v': o.verbose = true; break;
		case 'K': o.keep = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!strcmp(cmd, "dump")) {
		int err;

		if (!o.root || optind != argc) {
			usage(stderr);
			return 2;
		}
		err = dump_tree(o.root);
		if (err) {
			fprintf(stderr, "damon-conform: %s: %s\n", o.root, strerror(err));
			return 2;
		}
		return 0;
	}
	if (strcmp(cmd, "run") && strcmp(cmd, "check")) {
		usage(stderr);
		return 2;
	}
	if (optind == argc || (!strcmp(cmd, "run") && !o.root)) {
		usage(stderr);
		return 2;
	}
	if (!kernel && !uname(&u))
		kernel = u.release;
	if (!strcmp(cmd, "run") && (!kernel || kver_parse(kernel, &o.kernel))) {
		fprintf(stderr, "damon-conform: --kernel: cannot parse '%s'\n",
			kernel ? kernel : "");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct script s;
		int r;

		if (script_load(argv[i], &s))
			return 2;
		r = strcmp(cmd, "run") ? 0 : script_run(&s, &o);
		script_free(&s);
		if (r > ret)
			ret = r;
	}
	if (!strcmp(cmd, "check"))
		printf("%d script(s) parsed\n", argc - optind);
	return ret;
}
