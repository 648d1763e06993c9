/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The refresh_ms updates (6.17+), served by one thread for all kdamonds. */
#ifndef DAMON_EMU_REFRESH_H
#define DAMON_EMU_REFRESH_H

int emu_refresh_start(void);
void emu_refresh_stop(void);

#endif
