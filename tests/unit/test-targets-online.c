// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/targets_online.c: processes joining and leaving a running context, on the 7.2 capture
 * (obsolete_target) and the 6.12 one (none), with children of this test as the processes
 * (the sysroot's proc is the system's). Expectations from the public header: a live target
 * leaving is marked where the kernel can, else removed with the later ones moving down and
 * given their own regions; target filters follow the targets they name.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

struct online {
	struct sysroot s;
	struct damonctl_tree *t;
	struct damonctl_features *f;
	struct damonctl_context *c;
	int kids[3];
};

static int sleeper(void)
{
	int pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		/* a failed assertion leaves teardown out: go with the test */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	return pid;
}

static void reap(int pid)
{
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* Capture @capture with its two targets as kids[0] and kids[1]; kids[2] not a target. */
static void setup(struct online *o, const char *capture)
{
	char path[4096];
	unsigned int i;

	memset(o, 0, sizeof(*o));
	sysroot_setup(&o->s, capture, NULL, NULL);
	snprintf(path, sizeof(path), "%s/proc", o->s.dir);
	assert_int_equal(symlink("/proc", path), 0);
	assert_int_equal(damonctl_tree_read(o->s.ctx, &o->t), 0);
	assert_int_equal(damonctl_features_detect(o->s.ctx, &o->f), 0);
	o->c = damonctl_kdamond_context(damonctl_tree_kdamond(o->t, 0), 0);
	assert_int_equal(damonctl_context_nr_targets(o->c), 2);
	for (i = 0; i < 3; i++)
		o->kids[i] = sleeper();
	for (i = 0; i < 2; i++)
		damonctl_target_set_int(damonctl_context_target(o->c, i), DAMONCTL_TARGET_PID,
					o->kids[i]);
}

static void teardown(struct online *o)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (o->kids[i] > 0)
			reap(o->kids[i]);
	damonctl_features_free(o->f);
	damonctl_tree_free(o->t);
	sysroot_teardown(&o->s);
}

static int pid_at(const struct online *o, unsigned int i)
{
	return (int)damonctl_target_get_int(damonctl_context_target(o->c, i), DAMONCTL_TARGET_PID);
}

/* A target filter on scheme 0 naming target @idx (the capture's filter made one). */
static struct damonctl_filter *target_filter(struct online *o, enum damonctl_filter_dir dir,
					     unsigned int idx)
{
	struct damonctl_scheme *s = damonctl_context_scheme(o->c, 0);
	struct damonctl_filter *fl = damonctl_scheme_add_filter(s, dir);

	assert_non_null(fl);
	assert_int_equal(damonctl_filter_set_str(fl, DAMONCTL_FILTER_TYPE, "target"), 0);
	assert_int_equal(damonctl_filter_set(fl, DAMONCTL_FILTER_TARGET_IDX, idx), 0);
	return fl;
}

static void add_and_find(void **state)
{
	struct online o;
	int dead;

	(void)state;
	setup(&o, "7.2-defaults.txt");
	assert_int_equal(damonctl_context_find_pid(o.c, o.kids[0]), 0);
	assert_int_equal(damonctl_context_find_pid(o.c, o.kids[1]), 1);
	assert_int_equal(damonctl_context_find_pid(o.c, o.kids[2]), -ENOENT);
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, o.kids[2]), 2);
	assert_int_equal(pid_at(&o, 2), o.kids[2]);
	/* seeded with its mappings: not left to the next update interval */
	assert_true(damonctl_target_nr_regions(damonctl_context_target(o.c, 2)) >= 1);
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, o.kids[2]), -EEXIST);
	dead = sleeper();
	reap(dead);
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, dead), -ESRCH);
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, 0), -EINVAL);
	assert_int_equal(damonctl_context_nr_targets(o.c), 3);
	assert_int_equal(damonctl_context_nr_live_targets(o.c), 3);
	damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_OPERATIONS, "paddr");
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, getpid()), -EOPNOTSUPP);
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, o.kids[0], NULL),
			 -EOPNOTSUPP);
	teardown(&o);
}

/* 7.2: a live target is marked, an exited one removed with the later ones moved down. */
static void remove_72(void **state)
{
	struct damonctl_filter *fl;
	struct online o;
	unsigned int how = 99;

	(void)state;
	setup(&o, "7.2-defaults.txt");
	assert_int_equal(damonctl_context_add_pid(o.s.ctx, o.c, o.kids[2]), 2);
	/* a filter naming target 1 keeps its scheme to it: that one cannot go */
	fl = target_filter(&o, DAMONCTL_FILTERS_CORE, 1);
	assert_int_equal(damonctl_context_target_filter_scheme(o.c, 1), 0);
	assert_int_equal(damonctl_context_target_filter_scheme(o.c, 2), -ENOENT);
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, o.kids[1], &how), -EBUSY);
	assert_int_equal(how, 0);
	assert_int_equal(damonctl_context_nr_live_targets(o.c), 3);
	/* it names target 2 now; target 0 leaves alive: marked, the filter follows kids[2],
	 * which is target 1 once the commit drops target 0 */
	damonctl_filter_set(fl, DAMONCTL_FILTER_TARGET_IDX, 2);
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, o.kids[0], &how), 0);
	assert_int_equal(how, DAMONCTL_TARGET_MARKED);
	assert_int_equal(damonctl_context_nr_targets(o.c), 3);
	assert_int_equal(damonctl_context_nr_live_targets(o.c), 2);
	assert_int_equal(damonctl_target_get(damonctl_context_target(o.c, 0),
					     DAMONCTL_TARGET_OBSOLETE), 1);
	assert_int_equal(damonctl_context_find_pid(o.c, o.kids[0]), -ENOENT);
	assert_int_equal(damonctl_filter_get(fl, DAMONCTL_FILTER_TARGET_IDX), 1);
	assert_int_equal(damonctl_context_drop_obsolete(o.c), 1);
	assert_int_equal(damonctl_context_nr_targets(o.c), 2);
	assert_int_equal(pid_at(&o, 0), o.kids[1]);
	assert_int_equal(pid_at(&o, 1), o.kids[2]);
	/* kids[1] exits: the kernel could not resolve it, so it is removed and kids[2] moves
	 * into its place with regions of its own */
	reap(o.kids[1]);
	o.kids[1] = 0;
	damonctl_target_seed_regions(o.s.ctx, damonctl_context_target(o.c, 1), getpid());
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, pid_at(&o, 0), &how), 0);
	assert_int_equal(how, DAMONCTL_TARGETS_MOVED);
	assert_int_equal(damonctl_context_nr_targets(o.c), 1);
	assert_int_equal(pid_at(&o, 0), o.kids[2]);
	assert_int_equal(damonctl_filter_get(fl, DAMONCTL_FILTER_TARGET_IDX), 0);
	{
		struct damonctl_target *t = damonctl_context_target(o.c, 0);
		uint64_t want[3][2], st, en;
		int n = damonctl_proc_init_regions(o.s.ctx, o.kids[2], want);

		assert_true(n >= 1);
		assert_int_equal(damonctl_target_nr_regions(t), n);
		assert_int_equal(damonctl_target_region(t, 0, &st, &en), 0);
		assert_int_equal(st, want[0][0]);
	}
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, 424242, &how), -ENOENT);
	assert_int_equal(damonctl_context_drop_obsolete(o.c), 0);
	teardown(&o);
}

/* 6.12 has no obsolete_target: a live target is removed too. */
static void remove_612(void **state)
{
	struct online o;
	unsigned int how;

	(void)state;
	setup(&o, "6.12-defaults.txt");
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, o.kids[0], &how), 0);
	assert_int_equal(how, DAMONCTL_TARGETS_MOVED);
	assert_int_equal(damonctl_context_nr_targets(o.c), 1);
	assert_int_equal(pid_at(&o, 0), o.kids[1]);
	/* the last one goes without moving anything */
	assert_int_equal(damonctl_context_remove_pid(o.s.ctx, o.c, o.f, o.kids[1], &how), 0);
	assert_int_equal(how, 0);
	assert_int_equal(damonctl_context_nr_live_targets(o.c), 0);
	teardown(&o);
}

/* damonctl_kdamond_retarget(): what it refuses, with a sentence and nothing changed in the
 * plan; exited targets dropped when asked; a collapse budget following its target. */
static void retarget(void **state)
{
	struct damonctl_kdamond *k;
	struct damonctl_fallbacks *fbs;
	struct damonctl_fallback fb = { .sz = sizeof(fb) };
	char why[512];
	struct damonctl_retarget rt = { .sz = sizeof(rt), .why = why, .why_size = sizeof(why),
					.nowhere = 17 };
	struct online o;
	unsigned int how;
	int pid, dead;

	(void)state;
	setup(&o, "6.12-defaults.txt");
	k = damonctl_tree_kdamond(o.t, 0);
	/* a kernel thread (kthreadd), as start refuses it */
	pid = 2;
	rt.add = &pid;
	rt.nr_add = 1;
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), -EINVAL);
	assert_non_null(strstr(why, "kernel thread"));
	pid = o.kids[0];
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), -EEXIST);
	dead = sleeper();
	reap(dead);
	pid = dead;
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), -ESRCH);
	rt.nr_add = 0;
	rt.remove = &pid;
	rt.nr_remove = 1;
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), -ENOENT);
	assert_non_null(strstr(why, "not a target"));
	assert_int_equal(damonctl_context_nr_targets(o.c), 2);

	/* a collapse budget per target: kids[1] exits, kids[2] joins and takes its budget */
	assert_int_equal(damonctl_fallbacks_new(&fbs), 0);
	fb.kind = DAMONCTL_FALLBACK_COLLAPSE;
	fb.scheme = fb.observer = fb.tmpl = 0;
	fb.target = 1;
	assert_int_equal(damonctl_fallbacks_add(fbs, &fb), 0);
	damonctl_scheme_keep_target(damonctl_context_scheme(o.c, 0), o.f, 1);
	reap(o.kids[1]);
	o.kids[1] = 0;
	pid = o.kids[2];
	rt.add = &pid;
	rt.nr_add = 1;
	rt.nr_remove = 0;
	rt.fbs = fbs;
	rt.flags = DAMONCTL_RETARGET_DROP_EXITED;
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), 0);
	assert_int_equal(damonctl_context_nr_targets(o.c), 2);
	assert_int_equal(pid_at(&o, 0), o.kids[0]);
	assert_int_equal(pid_at(&o, 1), o.kids[2]);
	assert_int_equal(damonctl_fallbacks_count(fbs), 1);
	assert_int_equal(damonctl_fallbacks_get(fbs, 0, &fb), 0);
	assert_int_equal(fb.target, 1);	/* the gone target's budget, now kids[2]'s */
	damonctl_fallbacks_free(fbs);
	/* physical memory has no processes */
	damonctl_context_set_str(o.c, DAMONCTL_CONTEXT_OPERATIONS, "paddr");
	rt.fbs = NULL;
	assert_int_equal(damonctl_kdamond_retarget(o.s.ctx, k, o.f, &rt, &how), -EOPNOTSUPP);
	teardown(&o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_and_find),
		cmocka_unit_test(remove_72),
		cmocka_unit_test(remove_612),
		cmocka_unit_test(retarget),
	};

	unit_init(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
