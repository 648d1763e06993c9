/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault injection (--faults FILE): make chosen writes fail with a chosen errno. The file
 * is re-read whenever it changes, which also restarts every rule's count. Format: see
 * man/damon-emu.1, FAULT FILE.
 */
#ifndef DAMON_EMU_FAULTS_H
#define DAMON_EMU_FAULTS_H

#include <stddef.h>

/* What a kill= rule asks for the writing process. */
enum { EMU_FAULT_KILL_BEFORE = 1, EMU_FAULT_KILL_AFTER = 2 };

void emu_faults_init(const char *path);
/* The errno (positive) a write of @value to @path must fail with, or 0; *@kill (optional)
 * says whether to SIGKILL the writer before or after the write (0: no). */
int emu_faults_check(const char *path, const char *value, int *kill);
void emu_faults_exit(void);

/* Parse the rules in @text; on error returns -1 and puts a message in @err. For tests. */
struct emu_fault_rules;
struct emu_fault_rules *emu_faults_parse(const char *text, char *err, size_t errsize);
int emu_faults_match(struct emu_fault_rules *rules, const char *path, const char *value,
		     int *kill);
void emu_faults_free(struct emu_fault_rules *rules);

#endif
