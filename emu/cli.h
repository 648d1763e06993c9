/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Command line of damon-emu (see man/damon-emu.1). */
#ifndef DAMON_EMU_CLI_H
#define DAMON_EMU_CLI_H

/* Fill emu_opt and select the profile. Returns -1 to exit 0 (--help/--version), 0 to go
 * on, or 2 (usage error, message printed). */
int emu_cli_parse(int argc, char **argv);

#endif
