/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tracefs says of damon_aggregated and of its ring buffer pages on Linux 7.2: the
 * layouts the unit test, the fuzz target and the trace-reader benchmark of lib/trace_raw.c
 * decode pages with, and its record. */
#ifndef DAMONC_TRACE_RAW_FORMATS_H
#define DAMONC_TRACE_RAW_FORMATS_H

#include <stdint.h>
#include <string.h>

/* As Linux 7.2 prints events/damon/damon_aggregated/format. */
static const char format_72[] =
	"name: damon_aggregated\n"
	"ID: 1403\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long target_id;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_regions;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long start;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long end;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_accesses;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int age;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"target_id=%lu nr_regions=%u %lu-%lu: %u %u\", REC->target_id, "
	"REC->nr_regions, REC->start, REC->end, REC->nr_accesses, REC->age\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/* A damon_aggregated record laid out as format_72 says (its common_pid: 174). */
static inline void record72(unsigned char r[48], uint16_t type, uint64_t id, uint32_t nr,
			    uint64_t start, uint64_t end, uint32_t na, uint32_t age)
{
	int32_t pid = 174;

	memset(r, 0, 48);
	memcpy(r, &type, 2);
	memcpy(r + 4, &pid, 4);
	memcpy(r + 8, &id, 8);
	memcpy(r + 16, &nr, 4);
	memcpy(r + 24, &start, 8);
	memcpy(r + 32, &end, 8);
	memcpy(r + 40, &na, 4);
	memcpy(r + 44, &age, 4);
}

#endif
