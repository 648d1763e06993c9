/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What damonc learned of this kernel's features by probing (a start's probe, features
 * --probe), kept in <run>/features.json with the boot it holds for: a kernel's features do
 * not change until it boots again, and what no directory shows (a fresh tree, keyword-only
 * features) is then known to `features` and to the next start, which need not probe again.
 */
#ifndef DAMONC_KNOWN_FEATURES_H
#define DAMONC_KNOWN_FEATURES_H

#include "damonc.h"

/* Keep what @f knows (after a probe). Best effort: a failure is said as a note. */
void known_features_save(struct damonctl_ctx *ctx, const struct damonctl_features *f);
/* What was kept for this boot, as JSON for damonctl_features_learn() (malloc'd), or NULL. */
char *known_features_load(struct damonctl_ctx *ctx);

#endif
