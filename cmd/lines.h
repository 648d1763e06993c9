/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lines of a file a user gives damonc to read line by line (a batch, a saved trace): the file
 * a regular one or standard input, each line bounded, a NUL byte refused rather than taken
 * for the end of the line (a line cut there could lose its --dry-run).
 */
#ifndef DAMONC_LINES_H
#define DAMONC_LINES_H

#include <stddef.h>
#include <stdio.h>

#include "words.h"

/* The longest line a batch or a saved trace may have: far above any command line of damonc
 * or trace event, far below what would hold memory (a file of zeros, /dev/zero as stdin). */
#define LINE_MAX_BYTES (64u << 10)

/* @path ("-": standard input, whatever it is but a directory) opened for reading, as a
 * regular file: a FIFO or a device named would block or never end (-ENODEV), a directory
 * -EISDIR; -errno of open(2). */
int lines_open(const char *path, FILE **out);
/* The next line of @in into *buf (malloc'd, grown as needed, with its '\n' if it had one):
 * its length, 0 at the end, -EFBIG when it is longer than @max bytes, its newline included
 * (the rest of the file is not read), -EILSEQ when it holds a NUL byte, -ENOMEM, or -errno of the read. */
long lines_read(FILE *in, size_t max, char **buf, size_t *cap);
/* A line of a batch or of the shell split into @w as the shell splits it (words_split()),
 * and refused (-EINVAL with *why) when it names --sysroot anywhere before "--": the tree a
 * line acts on is the batch's or the shell's own, never one a line picks. -ENOMEM. */
int lines_words(const char *line, struct words *w, const char **why);

#endif
