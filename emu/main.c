// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-emu: a FUSE filesystem that behaves like /sys/kernel/mm/damon/admin of a chosen
 * kernel version. `damon-emu --kdamond-child FD` is the engine's kdamond process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "emu.h"
#include "faults.h"
#include "fs.h"
#include "layout.h"
#include "modules.h"
#include "refresh.h"
#include "state.h"
#include "wlog.h"

static struct fuse_session *mount_fs(const char *argv0)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	char opts[128];
	struct fuse_session *se;

	snprintf(opts, sizeof(opts), "fsname=damon-emu,subtype=damon-emu,default_permissions%s",
		 emu_opt.allow_other ? ",allow_other" : "");
	if (fuse_opt_add_arg(&args, argv0) || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, opts) || (emu_opt.debug && fuse_opt_add_arg(&args, "-d"))) {
		fuse_opt_free_args(&args);
		return NULL;
	}
	se = fuse_session_new(&args, &emu_fs_ops, sizeof(emu_fs_ops), NULL);
	fuse_opt_free_args(&args);
	if (!se)
		return NULL;
	if (fuse_session_mount(se, emu_opt.mountpoint)) {
		fuse_session_destroy(se);
		return NULL;
	}
	return se;
}

int main(int argc, char **argv)
{
	struct fuse_loop_config loop = { .clone_fd = 0, .max_idle_threads = 10 };
	struct fuse_session *se;
	int r;

	if (argc == 3 && !strcmp(argv[1], "--kdamond-child"))
		return emu_kdamond_child_main(atoi(argv[2]));

	r = emu_cli_parse(argc, argv);
	if (r)
		return r < 0 ? 0 : r;
	if (emu_opt.log_path && emu_wlog_open(emu_opt.log_path, emu_opt.log_pids)) {
		fprintf(stderr, "damon-emu: --log %s: %s\n", emu_opt.log_path, strerror(errno));
		return 1;
	}
	emu_faults_init(emu_opt.faults_path);
	emu_root = emu_layout_new_root();
	signal(SIGPIPE, SIG_IGN);
	/*
	 * A shell starts background jobs with SIGINT ignored, and libfuse only installs its
	 * handlers over default dispositions: make sure all three end the daemon cleanly.
	 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);

	se = mount_fs(argv[0]);
	if (!se) {
		fprintf(stderr, "damon-emu: cannot mount on %s\n", emu_opt.mountpoint);
		emu_node_free(emu_root);
		return 1;
	}
	if (fuse_set_signal_handlers(se) || fuse_daemonize(emu_opt.foreground) ||
	    emu_refresh_start() || emu_modules_start()) {
		fprintf(stderr, "damon-emu: cannot start serving %s\n", emu_opt.mountpoint);
		fuse_session_unmount(se);
		fuse_session_destroy(se);
		emu_node_free(emu_root);
		return 1;
	}
	r = fuse_session_loop_mt(se, &loop);
	/* the loop reports the signal that ended it: SIGTERM, SIGINT, SIGHUP are a clean end */
	if (r == SIGTERM || r == SIGINT || r == SIGHUP)
		r = 0;

	emu_refresh_stop();
	emu_modules_stop();
	/* no request is in flight any more: stop the kdamonds, then drop the tree */
	pthread_mutex_lock(&emu_sysfs_lock);
	pthread_mutex_lock(&emu_tree_lock);
	emu_state_stop_all();
	emu_node_free(emu_root);
	emu_root = NULL;
	pthread_mutex_unlock(&emu_tree_lock);
	pthread_mutex_unlock(&emu_sysfs_lock);

	fuse_remove_signal_handlers(se);
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	emu_faults_exit();
	emu_wlog_close();
	return r ? 1 : 0;
}
