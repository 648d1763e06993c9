// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transparent huge pages, read only: the THP modes and khugepaged's settings and counters
 * under <sysroot>/sys/kernel/mm/transparent_hugepage, the THP counters of /proc/vmstat, and
 * from both who made the huge pages there are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define THP_DIR "kernel/mm/transparent_hugepage/"
#define NR_SETTINGS (sizeof(settings) / sizeof(settings[0]))
#define NR_VMSTAT (sizeof(vmstat_names) / sizeof(vmstat_names[0]))

/* Names under THP_DIR; the modes first, then khugepaged's. */
static const struct {
	const char *name;
	enum damonctl_thp_kind kind;
} settings[] = {
	{ "enabled", DAMONCTL_THP_MODE },
	{ "defrag", DAMONCTL_THP_MODE },
	{ "shmem_enabled", DAMONCTL_THP_MODE },
	{ "khugepaged/defrag", DAMONCTL_THP_NUMBER },
	{ "khugepaged/pages_to_scan", DAMONCTL_THP_NUMBER },
	{ "khugepaged/scan_sleep_millisecs", DAMONCTL_THP_MILLISECONDS },
	{ "khugepaged/alloc_sleep_millisecs", DAMONCTL_THP_MILLISECONDS },
	{ "khugepaged/max_ptes_none", DAMONCTL_THP_NUMBER },
	{ "khugepaged/max_ptes_swap", DAMONCTL_THP_NUMBER },
	{ "khugepaged/max_ptes_shared", DAMONCTL_THP_NUMBER },
	{ "khugepaged/pages_collapsed", DAMONCTL_THP_COUNTER },
	{ "khugepaged/full_scans", DAMONCTL_THP_COUNTER },
};

static const char *const vmstat_names[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_file_alloc", "thp_split_page",
	"thp_split_page_failed", "thp_deferred_split_page", "thp_split_pmd",
	"thp_zero_page_alloc", "thp_swpout", "thp_swpout_fallback",
};

struct damonctl_thp {
	char value[NR_SETTINGS][64];
	bool has[NR_SETTINGS];		/* files this kernel lacks are left out */
	uint64_t vmstat[NR_VMSTAT];
};

DAMONCTL_API size_t damonctl_thp_nr_settings(void)
{
	return NR_SETTINGS;
}

DAMONCTL_API const char *damonctl_thp_setting_name(size_t i, enum damonctl_thp_kind *kind)
{
	if (i >= NR_SETTINGS)
		return NULL;
	if (kind)
		*kind = settings[i].kind;
	return settings[i].name;
}

DAMONCTL_API size_t damonctl_thp_nr_vmstat(void)
{
	return NR_VMSTAT;
}

DAMONCTL_API const char *damonctl_thp_vmstat_name(size_t i)
{
	return i < NR_VMSTAT ? vmstat_names[i] : NULL;
}

DAMONCTL_API int damonctl_thp_read(struct damonctl_ctx *ctx, struct damonctl_thp **out)
{
	struct damonctl_thp *t;
	size_t i;

	if (!ctx || !out)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < NR_SETTINGS; i++) {
		char rel[96];

		snprintf(rel, sizeof(rel), THP_DIR "%s", settings[i].name);
		t->has[i] = !damonctl_sys_read_setting(ctx, rel, t->value[i],
						       sizeof(t->value[i]));
	}
	damonctl_vmstat_read(ctx, vmstat_names, t->vmstat, NR_VMSTAT);
	damonctl_clear_error(ctx);	/* what is missing is left out, not an error */
	*out = t;
	return 0;
}

DAMONCTL_API void damonctl_thp_free(struct damonctl_thp *t)
{
	free(t);
}

DAMONCTL_API const char *damonctl_thp_setting(const struct damonctl_thp *t, size_t i)
{
	return i < NR_SETTINGS && t->has[i] ? t->value[i] : NULL;
}

DAMONCTL_API uint64_t damonctl_thp_vmstat(const struct damonctl_thp *t, size_t i)
{
	return i < NR_VMSTAT ? t->vmstat[i] : 0;
}

/* The value of the setting or counter called @name; 0 when absent. */
static uint64_t number_of(const struct damonctl_thp *t, const char *name)
{
	size_t i;

	for (i = 0; i < NR_SETTINGS; i++)
		if (t->has[i] && !strcmp(settings[i].name, name))
			return strtoull(t->value[i], NULL, 10);
	for (i = 0; i < NR_VMSTAT; i++)
		if (!strcmp(vmstat_names[i], name))
			return t->vmstat[i];
	return 0;
}

/* thp_collapse_alloc counts khugepaged's collapses and MADV_COLLAPSE's together; khugepaged
 * counts its own in pages_collapsed: the difference is MADV_COLLAPSE's. */
DAMONCTL_API int damonctl_thp_made(const struct damonctl_thp *t, struct damonctl_thp_made *m)
{
	struct damonctl_thp_made v = { .sz = sizeof(v) };
	uint64_t all;
	size_t sz;

	if (!t || !m || m->sz < sizeof(size_t))
		return -EINVAL;
	v.fault = number_of(t, "thp_fault_alloc");
	v.khugepaged = number_of(t, "khugepaged/pages_collapsed");
	all = number_of(t, "thp_collapse_alloc");
	v.madv_collapse = all > v.khugepaged ? all - v.khugepaged : 0;
	sz = m->sz;
	memcpy(m, &v, sz < sizeof(v) ? sz : sizeof(v));
	m->sz = sz;
	return 0;
}
