// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen-record: write a synthetic record with known content, for tests and benchmarks.
 *
 *   gen-record [--snapshots N] [--regions R] [--format damonc|damo-json|damo-zlib]
 *              [--no-compress] [--no-end] [--targets T] [--vary V] [--slow-from K]
 *              [--config PID] [--footprints] [--filter-passed] [--action NAME] > FILE
 *
 * One kdamond, one target: R equal regions of 1 MiB from 0x7f0000000000, one snapshot per
 * second (aggr 100 ms, sample 5 ms: nr_accesses up to 20). A hot band of R/10 regions
 * (nr_accesses 20) starts at region 0 and moves up by one region every snapshot, wrapping;
 * every other region has nr_accesses 0. Ages count aggregations since a region's rate last
 * changed. Each snapshot is followed by the stats of one `pageout` scheme (--action names
 * another) whose nr_tried grows by R and sz_tried by R MiB, nr_applied by 1 and sz_applied
 * by 4 KiB per snapshot. --no-end leaves the END chunk out (a
 * recording that was killed); damo formats go through the library's exporter.
 *
 * For the reports on a record's shape: --targets T writes each snapshot for targets 0..T-1,
 * target t with t more regions (cold, after the others); --vary V gives snapshot i
 * (i % V) more regions still; --slow-from K doubles the sampling and aggregation intervals
 * from snapshot K on; --config PID writes the kdamond's configuration first (vaddr, target
 * t monitoring pid PID + t).
 *
 * --footprints writes a FOOTPRINT after each snapshot's stats: the system's total 8 GiB, free
 * 7 GiB - i * 16 MiB (available the same), huge (i % 4) * 2 MiB; the kdamond (pid 99) with
 * i * 20 ms of CPU time; target t (pid PID + t, or 1000 + t without --config) vsz 100 + t MiB,
 * rss 10 + i % V + t MiB, i * (100 + 50 t) ms of CPU time, and, in every fifth (i % 5 == 0),
 * 3 + (i / 5) % 8 + t mappings of 1 MiB from 0x400000.
 *
 * --filter-passed gives each region a sz_filter_passed (the bytes DAMOS filters passed): half
 * of a hot region, a quarter of a cold one; the snapshots were taken through one ops filter,
 * allowing anonymous memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "damonctl/damonctl.h"

#define BASE 0x7f0000000000ull
#define RSZ (1ull << 20)
#define T0 1700000000000000000ull

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "snapshots", required_argument, NULL, 's' },
		{ "regions", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-compress", no_argument, NULL, 'n' },
		{ "no-end", no_argument, NULL, 'e' },
		{ "targets", required_argument, NULL, 't' },
		{ "vary", required_argument, NULL, 'v' },
		{ "slow-from", required_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "footprints", no_argument, NULL, 'p' },
		{ "filter-passed", no_argument, NULL, 'F' },
		{ "action", required_argument, NULL, 'a' },
		{ 0 },
	};
	uint64_t nsnap = 10, nreg = 100, i, j, t, ntgt = 1, vary = 1, slow_from = UINT64_MAX, nmax;
	long long pid = -1;
	const char *format = "damonc", *action = "pageout";
	bool compress = true, end = true, footprints = false, fpassed = false;
	struct damonctl_rec_writer *w;
	struct damonctl_rec_region *regs;
	uint32_t *prev;
	int c, out = STDOUT_FILENO, r;
	char tmpl[] = "/tmp/gen-record.XXXXXX";

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			nsnap = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			nreg = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			format = optarg;
			break;
		case 'n':
			compress = false;
			break;
		case 'e':
			end = false;
			break;
		case 't':
			ntgt = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			vary = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			slow_from = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			pid = strtoll(optarg, NULL, 0);
			break;
		case 'p':
			footprints = true;
			break;
		case 'F':
			fpassed = true;
			break;
		case 'a':
			action = optarg;
			break;
		default:
			fprintf(stderr, "usage: gen-record [--snapshots N] [--regions R] "
				"[--format damonc|damo-json|damo-zlib] [--no-compress] [--no-end] "
				"[--targets T] [--vary V] [--slow-from K] [--config PID] [--footprints] "
				"[--filter-passed] [--action NAME]\n");
			return 2;
		}
	}
	if (!ntgt || ntgt > 1000 || !vary || vary > 1000000) {
		fprintf(stderr, "gen-record: bad --targets or --vary\n");
		return 2;
	}
	if (!nreg || nreg > 1000000 || (strcmp(format, "damonc") && strcmp(format, "damo-json") &&
					strcmp(format, "damo-zlib"))) {
		fprintf(stderr, "gen-record: bad --regions or --format\n");
		return 2;
	}
	if (strcmp(format, "damonc")) {
		out = mkstemp(tmpl);
		if (out < 0)
			return 1;
		unlink(tmpl);
	}
	nmax = nreg + (vary - 1) + (ntgt - 1);
	regs = calloc(nmax, sizeof(*regs));
	prev = calloc(nmax, sizeof(*prev));
	if (!regs || !prev)
		return 1;
	r = damonctl_rec_writer_new(out, compress ? DAMONCTL_REC_COMPRESS : 0,
				    "{\"recorder\":\"gen-record\"}", &w);
	if (!r && pid >= 0) {
		char cfg[64 + 32 * 1000];
		int n = snprintf(cfg, sizeof(cfg), "{\"format_version\":1,\"kdamonds\":[{\"contexts\":"
				 "[{\"operations\":\"vaddr\",\"targets\":[");

		for (t = 0; t < ntgt; t++)
			n += snprintf(cfg + n, sizeof(cfg) - (size_t)n, "%s{\"pid_target\":%lld}",
				      t ? "," : "", pid + (long long)t);
		snprintf(cfg + n, sizeof(cfg) - (size_t)n, "]}]}]}");
		r = damonctl_rec_write_config(w, T0, cfg);
	}
	for (i = 0; !r && i < nsnap; i++) {
		struct damonctl_rec_snapshot s = {
			.sz = sizeof(s), .kdamond = 0, .context = 0, .target = 0, .scheme = -1,
			.start_ns = T0 + i * 1000000000ull, .end_ns = T0 + i * 1000000000ull +
			100000000ull, .sample_us = 5000, .aggr_us = 100000, .update_us = 1000000,
			.regions = regs, .has_sz_filter_passed = fpassed,
			.ops_filters = fpassed ? "[{\"type\":\"anon\",\"matching\":true,"
						 "\"allow\":true}]" : NULL,
		};
		struct damonctl_rec_stats st = {
			.sz = sizeof(st), .time_ns = s.end_ns, .scheme = 0,
			.has = (1u << DAMONCTL_REC_NR_APPLIED) | (1u << DAMONCTL_REC_SZ_APPLIED) |
			       (1u << DAMONCTL_REC_NR_TRIED) | (1u << DAMONCTL_REC_SZ_TRIED),
		};
		uint64_t band = nreg / 10 ? nreg / 10 : 1, hot0 = i % nreg;

		if (i >= slow_from) {
			s.sample_us *= 2;
			s.aggr_us *= 2;
		}
		for (j = 0; j < nmax; j++) {
			bool hot = j < nreg && (j + nreg - hot0) % nreg < band;
			uint32_t na = hot ? 20 : 0;

			regs[j].start = BASE + j * RSZ;
			regs[j].end = regs[j].start + RSZ;
			/* a new rate resets the age; one snapshot is 10 aggregations */
			regs[j].age = i && prev[j] == na ? regs[j].age + 10 : 0;
			regs[j].nr_accesses = na;
			regs[j].sz_filter_passed = fpassed ? (hot ? RSZ / 2 : RSZ / 4) : 0;
			prev[j] = na;
		}
		for (t = 0; !r && t < ntgt; t++) {
			s.target = (int32_t)t;
			s.nr_regions = (uint32_t)(nreg + i % vary + t);
			s.total_bytes = s.nr_regions * RSZ;
			r = damonctl_rec_write_snapshot(w, &s);
		}
		snprintf(st.action, sizeof(st.action), "%s", action);
		st.v[DAMONCTL_REC_NR_TRIED] = (i + 1) * nreg;
		st.v[DAMONCTL_REC_SZ_TRIED] = (i + 1) * nreg * RSZ;
		st.v[DAMONCTL_REC_NR_APPLIED] = i + 1;
		st.v[DAMONCTL_REC_SZ_APPLIED] = (i + 1) * 4096;
		if (!r)
			r = damonctl_rec_write_stats(w, &st);
		if (!r && footprints) {
			char fp[128 + 96 * 1000];
			uint64_t free_ = ((uint64_t)7 << 30) - i * ((uint64_t)16 << 20);
			int n = snprintf(fp, sizeof(fp), "{\"system\":{\"total\":%llu,\"free\":%" PRIu64
					 ",\"available\":%" PRIu64 ",\"huge\":%" PRIu64 "},\"kdamond\":"
					 "{\"pid\":99,\"cpu_us\":%" PRIu64 "},\"targets\":[",
					 8ull << 30, free_, free_, (uint64_t)(i % 4) * (2u << 20),
					 i * 20000);

			for (t = 0; t < ntgt; t++) {
				n += snprintf(fp + n, sizeof(fp) - (size_t)n, "%s{\"target\":%" PRIu64
					      ",\"pid\":%lld,\"vsz\":%" PRIu64 ",\"rss\":%" PRIu64
					      ",\"cpu_us\":%" PRIu64,
					      t ? "," : "", t, (pid >= 0 ? pid : 1000) + (long long)t,
					      (uint64_t)((100 + t) * RSZ), (uint64_t)((10 + i % vary + t) * RSZ),
					      i * (100000 + 50000 * t));
				if (i % 5 == 0) {
					n += snprintf(fp + n, sizeof(fp) - (size_t)n, ",\"vmas\":[");
					for (j = 0; j < 3 + (i / 5) % 8 + t; j++)
						n += snprintf(fp + n, sizeof(fp) - (size_t)n,
							      "%s[%" PRIu64 ",%" PRIu64 ",\"rw-p\",\"\"]",
							      j ? "," : "", (uint64_t)(0x400000 + j * RSZ),
							      (uint64_t)(0x400000 + (j + 1) * RSZ));
					n += snprintf(fp + n, sizeof(fp) - (size_t)n, "]");
				}
				n += snprintf(fp + n, sizeof(fp) - (size_t)n, "}");
			}
			snprintf(fp + n, sizeof(fp) - (size_t)n, "]}");
			r = damonctl_rec_write_footprint(w, s.end_ns, fp);
		}
	}
	if (!r)
		r = damonctl_rec_writer_finish(w, end ? DAMONCTL_REC_END_COUNT : -1);
	if (r) {
		fprintf(stderr, "gen-record: %s\n", strerror(-r));
		return 1;
	}
	if (out != STDOUT_FILENO) {
		struct damonctl_rec_reader *rd;
		char why[256];

		lseek(out, 0, SEEK_SET);
		r = damonctl_rec_reader_new(out, &rd, why, sizeof(why));
		if (!r)
			r = damonctl_rec_export_damo(rd, STDOUT_FILENO, !strcmp(format, "damo-zlib"));
		damonctl_rec_reader_free(rd);
		if (r) {
			fprintf(stderr, "gen-record: exporting: %s\n", strerror(-r));
			return 1;
		}
	}
	free(regs);
	free(prev);
	return 0;
}
