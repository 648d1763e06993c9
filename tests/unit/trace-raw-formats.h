/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tracefs says of damon_aggregated and of its ring buffer pages on Linux 7.2: the
 * layouts the unit test and the fuzz target of lib/trace_raw.c decode pages with. */
#ifndef DAMONC_TRACE_RAW_FORMATS_H
#define DAMONC_TRACE_RAW_FORMATS_H

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

#endif
