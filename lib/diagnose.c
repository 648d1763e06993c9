// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What looks wrong with DAMON, read only (damo's diagnose, with the reasons spelled out):
 * the answers to "why does my scheme do nothing?" that the tree and the system can give
 * without a write. Each check says what it saw and what follows from it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct diag {
	damonctl_finding_fn fn;
	void *data;
	int serious;	/* warnings and errors */
};

__attribute__((format(printf, 6, 7)))
static void say(struct diag *d, enum damonctl_finding level, const char *code, int kdamond,
		int scheme, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (level != DAMONCTL_FINDING_INFO)
		d->serious++;
	if (d->fn)
		d->fn(d->data, level, code, kdamond, scheme, msg);
}

DAMONCTL_API bool damonctl_scheme_thp_blocked(const struct damonctl_scheme *s,
					      const char *thp_enabled)
{
	const char *action = s ? damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION) : NULL;

	/* MADV_HUGEPAGE only marks a range for the THP modes to act on; MADV_COLLAPSE (the
	 * collapse action, damonc's agent) is independent of the sysfs THP settings
	 * (madvise(2), Documentation/admin-guide/mm/transhuge.rst) */
	return action && thp_enabled && !strcmp(action, "hugepage") &&
	       !strcmp(thp_enabled, "never");
}

static void check_scheme(struct diag *d, struct damonctl_ctx *ctx,
			 const struct damonctl_scheme *s, int k, int si, const char *thp,
			 const struct damonctl_meminfo *mi, bool has_mi)
{
	const char *action = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_ACTION);
	const char *metric = damonctl_scheme_get_str(s, DAMONCTL_SCHEME_WMARKS_METRIC);

	(void)ctx;
	if (damonctl_scheme_thp_blocked(s, thp))
		say(d, DAMONCTL_FINDING_WARNING, "thp_never", k, si,
		    "kdamond %d, scheme %d asks for huge pages (%s: MADV_HUGEPAGE), but "
		    "transparent_hugepage/enabled is 'never': none will be made", k, si, action);
	else if (action && !strcmp(action, "collapse") && thp && !strcmp(thp, "never"))
		say(d, DAMONCTL_FINDING_INFO, "thp_never_collapse", k, si,
		    "kdamond %d, scheme %d collapses (MADV_COLLAPSE), which does not depend on "
		    "transparent_hugepage/enabled: huge pages are made although it is 'never'",
		    k, si);
	if (metric && !strcmp(metric, "free_mem_rate") && has_mi && mi->total) {
		uint64_t rate = mi->free * 1000 / mi->total;
		uint64_t high = damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_HIGH);
		uint64_t low = damonctl_scheme_get(s, DAMONCTL_SCHEME_WMARKS_LOW);

		/* DAMON turns a scheme off above high and below low (between them it keeps
		 * its state): only those two are sure */
		if (rate > high || rate < low)
			say(d, DAMONCTL_FINDING_INFO, "wmarks_inactive", k, si,
			    "kdamond %d, scheme %d is inactive: free memory is %llu permil, %s its "
			    "watermarks (low %llu, high %llu)", k, si, (unsigned long long)rate,
			    rate > high ? "above" : "below", (unsigned long long)low,
			    (unsigned long long)high);
	}
}

static void check_kdamond(struct diag *d, struct damonctl_ctx *ctx,
			  const struct damonctl_kdamond *kd, int k, const char *thp,
			  const struct damonctl_meminfo *mi, bool has_mi)
{
	const char *state = damonctl_kdamond_get_str(kd, DAMONCTL_KDAMOND_STATE);
	int64_t pid = damonctl_kdamond_get_int(kd, DAMONCTL_KDAMOND_PID);
	struct damonctl_context *c;
	struct damonctl_target *t;
	struct damonctl_scheme *s;
	unsigned int ci, ti, si;

	if (!state || strcmp(state, "on"))
		return;
	if (pid <= 0 || damonctl_proc_alive(ctx, (int)pid) != 1) {
		say(d, DAMONCTL_FINDING_ERROR, "kdamond_no_thread", k, -1,
		    "kdamond %d says 'on' but its thread (pid %lld) is gone", k, (long long)pid);
		return;
	}
	damonctl_for_each_context(kd, c, ci) {
		const char *ops = damonctl_context_get_str(c, DAMONCTL_CONTEXT_OPERATIONS);

		if (ops && strcmp(ops, "paddr"))
			damonctl_for_each_target(c, t, ti) {
				int64_t tp = damonctl_target_get_int(t, DAMONCTL_TARGET_PID);

				if (damonctl_target_has(t, DAMONCTL_TARGET_OBSOLETE) &&
				    damonctl_target_get(t, DAMONCTL_TARGET_OBSOLETE))
					continue;
				if (tp > 0 && damonctl_proc_alive(ctx, (int)tp) == 0)
					say(d, DAMONCTL_FINDING_WARNING, "target_gone", k, -1,
					    "kdamond %d, target %u: process %lld has exited; DAMON "
					    "monitors nothing there", k, ti, (long long)tp);
			}
		damonctl_for_each_scheme(c, s, si)
			check_scheme(d, ctx, s, k, (int)si, thp, mi, has_mi);
	}
}

DAMONCTL_API int damonctl_diagnose(struct damonctl_ctx *ctx, const struct damonctl_tree *t,
				   damonctl_finding_fn fn, void *data)
{
	struct diag d = { .fn = fn, .data = data };
	struct damonctl_kdamond *kd;
	struct damonctl_meminfo mi = DAMONCTL_MEMINFO_INIT;
	char thp[32];
	const char *m;
	bool has_thp, has_mi;
	unsigned int i;

	if (!ctx || !t)
		return -EINVAL;
	has_thp = !damonctl_sys_read_setting(ctx, "kernel/mm/transparent_hugepage/enabled", thp,
					     sizeof(thp));
	has_mi = !damonctl_meminfo_read(ctx, &mi);
	damonctl_clear_error(ctx);
	damonctl_for_each_kdamond(t, kd, i)
		check_kdamond(&d, ctx, kd, (int)i, has_thp ? thp : NULL, &mi, has_mi);
	for (i = 0; (m = damonctl_module_name(i)); i++)
		if (damonctl_module_enabled(ctx, m, NULL) == 1)
			say(&d, DAMONCTL_FINDING_INFO, "module_holds_damon", -1, -1,
			    "%s is enabled: it holds DAMON, so a kdamond of the sysfs interface "
			    "cannot start (EBUSY) while it runs", m);
	damonctl_clear_error(ctx);
	return d.serious;
}
