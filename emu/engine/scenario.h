/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The access scenario: which memory the emulated kdamond finds accessed, and how often.
 * The format is described at the top of scenario.c.
 */
#ifndef DAMON_EMU_SCENARIO_H
#define DAMON_EMU_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCN_RATE_FULL 1000000u	/* rates are in parts per million of samples */
#define SCN_FOREVER UINT64_MAX

struct scn_rule {
	bool any_pid;
	pid_t pid;
	uint64_t start, end;		/* half-open, bytes */
	uint32_t rate;			/* ppm */
	uint64_t from_us, to_us;	/* since the kdamond started; to_us exclusive */
	int line;
};

struct scenario {
	char *path;			/* NULL: no file, nothing is ever accessed */
	struct scn_rule *rules;
	size_t nr_rules;
	char *text;			/* what the rules were parsed from */
	uint64_t next_check_us;
	char *bad_text;			/* last text that failed to parse (reported once) */
};

/*
 * Parses @text into a rule array. On error returns -EINVAL and writes a message naming the
 * line into @err (if not NULL).
 */
int scn_parse(const char *text, struct scn_rule **rules, size_t *nr_rules, char *err,
	      size_t err_size);

struct scenario *scn_new(const char *path);
void scn_free(struct scenario *s);
/* Re-reads the file if @now_us is past the next check time and the content changed. */
void scn_refresh(struct scenario *s, uint64_t now_us);
/* Replaces the rules directly (tests). Returns 0 or -EINVAL. */
int scn_set_text(struct scenario *s, const char *text);

/*
 * Access rate (ppm) of the byte at @addr of target @pid (@pid < 0: a target without a pid,
 * i.e. paddr, which only "any" rules match) at @t_us after the start. The last matching rule
 * wins; 0 if none matches.
 */
uint32_t scn_rate(const struct scenario *s, pid_t pid, uint64_t addr, uint64_t t_us);

/*
 * The end of the run of addresses from @addr on (up to @end) that have the same rate as
 * @addr; lets callers walk a range in pieces of constant rate.
 */
uint64_t scn_same_rate_end(const struct scenario *s, pid_t pid, uint64_t addr, uint64_t end,
			   uint64_t t_us);

#endif
