/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DAMOS filters. Core filters (addr, target) work on regions, exactly as in the kernel.
 * Operations-layer filters work on pages; the emulator evaluates them on what user space can
 * see of the pages:
 *   anon            the page's mapping is anonymous (/proc/PID/maps); paddr memory is not anon
 *   hugepage_size   the folio size: 2 MiB where pagemap says the page is PMD-mapped, else 4 KiB
 *   memcg           the target process's cgroup v2 path (/proc/PID/cgroup) stands for the
 *                   memcg of its pages; paddr memory belongs to no memcg
 *   young           a share of the pages equal to the scenario's access rate is young
 *   active          cannot be seen from user space: no page is active
 *   unmapped        vaddr pages are mapped by definition; paddr memory is taken as mapped
 */
#ifndef DAMON_EMU_FILTERS_H
#define DAMON_EMU_FILTERS_H

#include "ctx.h"

struct page_props {
	bool anon, active, young, unmapped;
	uint64_t folio_sz;
	const char *memcg;	/* NULL: no memcg */
};

static inline bool filter_is_core(enum emu_filter_type type)
{
	return type == EMU_FILTER_ADDR || type == EMU_FILTER_TARGET;
}

bool filters_has_ops(const struct mon_scheme *s);
/* damos_set_filters_default_reject() */
void filters_set_default_reject(struct mon_scheme *s);
/*
 * damos_core_filter_out(): whether the core filters reject region @ri of target @ti; may
 * split the region (addr filters cut it at their boundaries).
 */
bool filters_core_out(struct mon_ctx *c, int ti, size_t ri, struct mon_scheme *s);
/* Whether the operations-layer filters let a page with @pp through. */
bool filters_ops_pass(const struct mon_scheme *s, const struct page_props *pp);

/*
 * A monitoring probe (7.2) counts a sample when its filters let the sampled page through:
 * the first matching filter decides; with none matching, the opposite of the last filter's
 * allow; with no filter, every sample counts.
 */
bool filters_probe_pass(const struct emu_probe *p, const struct page_props *pp);

/*
 * Bytes of [start, end) of target @t that pass the ops filters. vaddr counts present pages
 * only (what the kernel's page walk sees); paddr counts every page. Young pages are the
 * scenario's share of each piece. @reject_young adds paddr pageout's implicit filter that
 * rejects young pages unless the user gave a young filter.
 */
uint64_t filters_passed_bytes(struct mon_ctx *c, struct mon_target *t, uint64_t start,
			      uint64_t end, const struct mon_scheme *s, bool reject_young);

#endif
