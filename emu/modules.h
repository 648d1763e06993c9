/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The DAMON modules of --modules DIR: enabling and disabling them, as Linux 6.1 does. */
#ifndef DAMON_EMU_MODULES_H
#define DAMON_EMU_MODULES_H

int emu_modules_start(void);
void emu_modules_stop(void);

#endif
