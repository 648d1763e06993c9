// SPDX-License-Identifier: GPL-2.0-or-later
/* One scheme as damonc presents it (see scheme_view.h). */
#include <string.h>

#include "fallback.h"
#include "scheme_view.h"

bool scheme_view_is_hugepage(const struct started_entry *e, const struct damonctl_scheme *s,
			     unsigned int si)
{
	struct damonctl_fallbacks *l = e && e->fbs.nr ? fallback_to_lib(&e->fbs) : NULL;
	bool r = damonctl_fallback_scheme_is_hugepage(s, si, l);

	damonctl_fallbacks_free(l);
	return r;
}

void scheme_view_read(struct cli *cli, const struct started_entry *e,
		      const struct damonctl_fallback_stats *ast, unsigned int kdamond,
		      const struct damonctl_scheme *s, unsigned int si, struct scheme_view *sv)
{
	struct damonctl_fallbacks *l = e && e->fbs.nr ? fallback_to_lib(&e->fbs) : NULL;

	memset(sv, 0, sizeof(*sv));
	sv->kdamond = kdamond;
	sv->ours = e != NULL;
	if (e && started_needs_agent(e))
		sv->server = agent_view_server(cli, e, &sv->server_pid);
	sv->v.sz = sizeof(sv->v);
	damonctl_fallback_view(s, si, l, ast, &sv->v);
	/* the agent's look at memory, where it collapses */
	if (ast && sv->v.program_collapses | sv->v.program_paces)
		sv->hot = *ast;
	damonctl_fallbacks_free(l);
}
