/* SPDX-License-Identifier: GPL-2.0-or-later */
/* damon-emu's run-time options, set once by cli.c before the tree is mounted. */
#ifndef DAMON_EMU_H
#define DAMON_EMU_H

#include <stdbool.h>

#include "engine/engine.h"

struct emu_options {
	const char *mountpoint;
	unsigned int avail_ops;		/* bit (1 << enum emu_ops) per registered ops set */
	struct emu_engine_opts engine;
	const char *modules_dir;	/* NULL: no exclusive DAMON user can exist */
	const char *faults_path;
	const char *log_path;
	bool log_pids;		/* --log-pids */
	bool foreground;
	bool debug;
	bool allow_other;
};

extern struct emu_options emu_opt;

#endif
