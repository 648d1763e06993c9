// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hotcold: a test workload with one hot and one cold anonymous buffer.
 *
 *   hotcold [--hot SIZE] [--cold SIZE] [--scenario FILE] [--duration SECONDS]
 *           [--pause-us US] [--adjacent] [--random] [--sparse-cold N] [--thp-all]
 *           [--cold-rate PCT]
 *
 * Maps two anonymous buffers (64 MiB each by default), each 2 MiB-aligned and in a VMA of
 * its own: a PROT_NONE guard area separates them, so /proc/PID/smaps shows each buffer's
 * AnonHugePages on its own. With --adjacent there is no guard: the cold buffer follows the
 * hot one directly and the kernel merges them into one mapping (the hard case for access
 * monitoring: one region can hold hot and cold pages). Nothing is done about THP (no MADV_HUGEPAGE/NOHUGEPAGE): with the
 * system in "madvise" mode, the buffers stay in small pages unless someone collapses them
 * (MADV_COLLAPSE, e.g. a DAMOS collapse scheme).
 *
 * It writes every page of both buffers once, prints one line on stdout and flushes it:
 *
 *   hot=0xSTART-0xEND cold=0xSTART-0xEND
 *
 * (half-open ranges), then keeps writing one byte per page of the hot buffer, over and over,
 * until killed or for --duration seconds (decimals allowed), sleeping --pause-us
 * microseconds between passes (default 0: as fast as it can, so that a real kernel's DAMON
 * sees the hot pages accessed at every sampling interval).
 *
 * --scenario FILE writes a damon-emu access scenario for this process before the line above
 * is printed (atomically: a temporary file renamed over FILE): the hot buffer at 100%, the
 * cold one at 0%. --cold-rate PCT makes the cold buffer warm: written on PCT% of the passes
 * over the hot one (spread evenly), and at PCT% in the scenario (two hot sets at different
 * rates: which one a budget of huge pages goes to first).
 *
 * For benchmarks of what huge pages buy: --random reads 8 bytes at random places of the hot
 * buffer instead of writing each page in turn (TLB misses are what huge pages save), and
 * counts the reads; --sparse-cold N writes only one page in N of the cold buffer (memory a
 * huge page would bloat); --thp-all asks for huge pages on both buffers (MADV_HUGEPAGE
 * before they are written: what THP "always" would do to this process), leaving the
 * machine's settings alone.
 *
 * Signals, handled between two passes over the hot buffer:
 *   SIGUSR1  print "huge N hot=KB cold=KB reads=R ns=T": the N-th report of how much of each
 *            buffer is
 *            mapped huge (PMD-mapped, from the PAGEMAP_SCAN ioctl on its own pagemap; -1
 *            where the kernel has none), so that adjacent buffers can be told apart; "hot"
 *            and "cold" name the buffers as the first line did, whatever SIGUSR2 did since;
 *            R: the random reads so far (--random), T: CLOCK_MONOTONIC in ns; then
 *            "cold_from=KB": where the cold buffer's first huge page starts, in kB from its
 *            start (-1: none, or no PAGEMAP_SCAN);
 *   SIGUSR2  a phase change: the buffers swap roles (the cold one is written over and over
 *            and the hot one is left alone; the scenario is rewritten the same way), and
 *            "switched" is printed.
 * What a huge-page count kept from one measurement to the next could miss (each prints
 * "done NAME" once done):
 *   SIGRTMIN+0  split: MADV_DONTNEED on the first 4 KiB of every 2 MiB of the hot buffer,
 *               which splits each huge page there (the next pass faults the page back in,
 *               small);
 *   SIGRTMIN+1  collapse: MADV_COLLAPSE on the first quarter of the cold buffer (huge
 *               pages the workload makes itself);
 *   SIGRTMIN+2  refault: MADV_DONTNEED on the whole hot buffer (freed; the next pass
 *               faults it back in, small);
 *   SIGRTMIN+3  hint: MADV_HUGEPAGE on the cold buffer (khugepaged may collapse it);
 *   SIGRTMIN+4  grow: a new buffer as big as the cold one, written once (the process
 *               grows by cold memory).
 * Everything printed is flushed at once.
 *
 * SIZE is bytes, or a number with a K, M or G suffix (binary; "KiB", "MiB", "GiB" as well),
 * rounded up to 2 MiB. Exit status: 0 (killed by a signal otherwise), 2 for bad usage, 1 for
 * other errors. Links statically without trouble (libc only), for busybox initramfs guests.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HUGE_SZ (2ull << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hotcold [--hot SIZE] [--cold SIZE] [--scenario FILE] [--duration SECONDS]\n"
		"               [--pause-us US] [--adjacent] [--random] [--sparse-cold N]\n"
		"               [--thp-all] [--cold-rate PCT]\n"
		"Two anonymous buffers (64 MiB each by default), 2 MiB-aligned, in separate VMAs;\n"
		"touches the cold one once and the hot one continuously. Prints\n"
		"  hot=0xSTART-0xEND cold=0xSTART-0xEND\n"
		"once both are populated.\n"
		"  --hot SIZE, --cold SIZE  buffer sizes (K/M/G suffixes), rounded up to 2 MiB\n"
		"  --scenario FILE          write a damon-emu scenario: hot 100%%, cold 0%%\n"
		"  --duration SECONDS       exit after that long (default: run until killed)\n"
		"  --pause-us US            sleep between passes over the hot buffer (default 0)\n"
		"  --adjacent               no guard: one mapping holds both buffers\n"
		"  --random                 random 8-byte reads of the hot buffer, counted\n"
		"  --sparse-cold N          write only one page in N of the cold buffer\n"
		"  --thp-all                MADV_HUGEPAGE on both buffers before writing them\n"
		"  --cold-rate PCT          write the cold buffer on PCT%% of the passes (0-100)\n"
		"SIGUSR1 prints 'huge N hot=KB cold=KB'; SIGUSR2 swaps the buffers' roles.\n");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v, mult = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	default:
		break;
	}
	if (mult > 1 && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	if (*end || !v || v > (1ull << 40) / mult)
		return -1;
	v *= mult;
	*out = (v + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned int cold_rate;	/* --cold-rate: percent of passes that write the cold buffer */

static int write_scenario(const char *path, uintptr_t hot, uint64_t hot_sz, uintptr_t cold,
			  uint64_t cold_sz)
{
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	FILE *f;
	int err = 0;

	if (!tmp)
		return -1;
	snprintf(tmp, len, "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		free(tmp);
		return -1;
	}
	fprintf(f, "# damon-emu scenario written by hotcold (pid %d)\n", (int)getpid());
	fprintf(f, "pid=%d addr=0x%" PRIxPTR "-0x%" PRIxPTR " rate=100%%\n", (int)getpid(), hot,
		hot + (uintptr_t)hot_sz);
	fprintf(f, "pid=%d addr=0x%" PRIxPTR "-0x%" PRIxPTR " rate=%u%%\n", (int)getpid(), cold,
		cold + (uintptr_t)cold_sz, cold_rate);
	if (fclose(f) || rename(tmp, path))
		err = -1;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

static volatile sig_atomic_t got_usr1, got_usr2, got_change[5];
static volatile uint64_t sink;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else if (sig == SIGUSR2)
		got_usr2 = 1;
	else if (sig >= SIGRTMIN && sig < SIGRTMIN + 5)
		got_change[sig - SIGRTMIN] = 1;
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* What SIGRTMIN+@which asks (see the top of this file); its name, or NULL on failure. */
static const char *change(int which, uintptr_t hot, uint64_t hot_sz, uintptr_t cold,
			  uint64_t cold_sz, long page)
{
	uint64_t off;
	char *grown;

	switch (which) {
	case 0:
		for (off = 0; off < hot_sz; off += HUGE_SZ)
			if (madvise((void *)(hot + off), (size_t)page, MADV_DONTNEED))
				return NULL;
		return "split";
	case 1:
		/* pages that cannot become huge are no failure of the workload's */
		madvise((void *)cold, cold_sz / 4 / HUGE_SZ * HUGE_SZ, MADV_COLLAPSE);
		return "collapse";
	case 2:
		return madvise((void *)hot, hot_sz, MADV_DONTNEED) ? NULL : "refault";
	case 3:
		return madvise((void *)cold, cold_sz, MADV_HUGEPAGE) ? NULL : "hint";
	default:
		grown = mmap(NULL, cold_sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		if (grown == MAP_FAILED)
			return NULL;
		for (off = 0; off < cold_sz; off += (uint64_t)page)
			grown[off] = 1;
		return "grow";
	}
}

#ifndef PAGEMAP_SCAN
/* include/uapi/linux/fs.h (6.7), for older build hosts */
struct page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_HUGE (1 << 6)
#endif

/*
 * kB of [start, start + size) mapped huge, or -1 without PAGEMAP_SCAN (before 6.7); *from_kb
 * (if not NULL) gets the offset in kB of the first huge page in it (-1 if none).
 */
static long long huge_kb(uintptr_t start, uint64_t size, long long *from_kb)
{
	struct page_region vec[64];
	uint64_t pos = start, end = start + size;
	long long kb = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (from_kb)
		*from_kb = -1;
	if (fd < 0)
		return -1;
	while (pos < end) {
		struct pm_scan_arg arg = {
			.size = sizeof(arg), .start = pos, .end = end,
			.vec = (uint64_t)(uintptr_t)vec, .vec_len = 64,
			.category_mask = PAGE_IS_HUGE, .return_mask = PAGE_IS_HUGE,
		};
		long n = ioctl(fd, PAGEMAP_SCAN, &arg);

		if (n < 0) {
			kb = -1;
			break;
		}
		for (long i = 0; i < n; i++) {
			if (from_kb && *from_kb < 0)
				*from_kb = (long long)((vec[i].start - start) >> 10);
			kb += (long long)((vec[i].end - vec[i].start) >> 10);
		}
		if (arg.walk_end <= pos)
			break;
		pos = arg.walk_end;
	}
	close(fd);
	return kb;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hot", required_argument, NULL, 'h' },
		{ "cold", required_argument, NULL, 'c' },
		{ "scenario", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pause-us", required_argument, NULL, 'p' },
		{ "adjacent", no_argument, NULL, 'a' },
		{ "random", no_argument, NULL, 'r' },
		{ "sparse-cold", required_argument, NULL, 'S' },
		{ "thp-all", no_argument, NULL, 'T' },
		{ "cold-rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t hot_sz = 64ull << 20, cold_sz = 64ull << 20, span, pause_us = 0;
	const char *scenario = NULL;
	double duration = -1, start;
	bool adjacent = false, random_reads = false, thp_all = false;
	unsigned int reports = 0;
	uint64_t sparse = 1, reads = 0, rng = 88172645463325252ull, passes = 0;
	uintptr_t base, hot, cold, first, second;
	uint64_t first_sz, second_sz;
	long page = sysconf(_SC_PAGESIZE);
	char *map, *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
		case 'c':
			if (parse_size(optarg, opt == 'h' ? &hot_sz : &cold_sz)) {
				fprintf(stderr, "hotcold: bad size for --%s: '%s'\n",
					opt == 'h' ? "hot" : "cold", optarg);
				return 2;
			}
			break;
		case 's':
			scenario = optarg;
			break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || end == optarg || duration < 0) {
				fprintf(stderr, "hotcold: bad --duration: '%s'\n", optarg);
				return 2;
			}
			break;
		case 'p':
			pause_us = strtoull(optarg, &end, 10);
			if (*end || end == optarg || *optarg == '-') {
				fprintf(stderr, "hotcold: bad --pause-us: '%s'\n", optarg);
				return 2;
			}
			break;
		case 'a':
			adjacent = true;
			break;
		case 'r':
			random_reads = true;
			break;
		case 'T':
			thp_all = true;
			break;
		case 'S':
			sparse = strtoull(optarg, &end, 10);
			if (*end || end == optarg || !sparse || *optarg == '-') {
				fprintf(stderr, "hotcold: bad --sparse-cold: '%s'\n", optarg);
				return 2;
			}
			break;
		case 'R': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || *optarg == '-' || v > 100) {
				fprintf(stderr, "hotcold: bad --cold-rate: '%s' (0 to 100)\n", optarg);
				return 2;
			}
			cold_rate = (unsigned int)v;
			break;
		}
		case 'H':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hotcold: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	/*
	 * Reserve room for both buffers, a 2 MiB guard between them and slack for alignment, all
	 * PROT_NONE; then open up the two aligned buffers. The guard keeps them in separate VMAs.
	 */
	span = hot_sz + (adjacent ? 0 : HUGE_SZ) + cold_sz + HUGE_SZ;
	map = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		perror("hotcold: mmap");
		return 1;
	}
	base = ((uintptr_t)map + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1);
	hot = base;
	cold = hot + hot_sz + (adjacent ? 0 : HUGE_SZ);
	if (mprotect((void *)hot, hot_sz, PROT_READ | PROT_WRITE) ||
	    mprotect((void *)cold, cold_sz, PROT_READ | PROT_WRITE)) {
		perror("hotcold: mprotect");
		return 1;
	}
	/* trim the alignment slack so that only buffers and guard remain */
	if (base > (uintptr_t)map)
		munmap(map, base - (uintptr_t)map);
	if ((uintptr_t)map + span > cold + cold_sz)
		munmap((void *)(cold + cold_sz), (uintptr_t)map + span - (cold + cold_sz));

	if (thp_all && (madvise((void *)hot, hot_sz, MADV_HUGEPAGE) ||
			madvise((void *)cold, cold_sz, MADV_HUGEPAGE))) {
		perror("hotcold: madvise(MADV_HUGEPAGE)");
		return 1;
	}
	/* populate: writes, so that the pages are really allocated (reads map the zero page) */
	for (uint64_t off = 0; off < cold_sz; off += (uint64_t)page * sparse)
		((volatile char *)cold)[off] = 1;
	for (uint64_t off = 0; off < hot_sz; off += (uint64_t)page)
		((volatile char *)hot)[off] = 1;

	if (scenario && write_scenario(scenario, hot, hot_sz, cold, cold_sz)) {
		fprintf(stderr, "hotcold: cannot write %s: %s\n", scenario, strerror(errno));
		return 1;
	}
	first = hot;
	first_sz = hot_sz;
	second = cold;
	second_sz = cold_sz;
	/* before the line: whoever reads it may signal at once */
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	for (int i = 0; i < 5; i++)
		signal(SIGRTMIN + i, on_signal);
	printf("hot=0x%" PRIxPTR "-0x%" PRIxPTR " cold=0x%" PRIxPTR "-0x%" PRIxPTR "\n", hot,
	       hot + (uintptr_t)hot_sz, cold, cold + (uintptr_t)cold_sz);
	fflush(stdout);

	start = now_s();
	/* never 0: a pass of zeros would leave every hot page zero-filled, and the kernel's
	 * shrinker splits a huge page whose pages all are (thp_underused) */
	for (unsigned char v = 2;; v = v == UCHAR_MAX ? 1 : v + 1) {
		if (random_reads) {
			uint64_t sum = 0;

			/* a pass: as many reads as the buffer has pages, at random 8-byte words */
			for (uint64_t i = 0; i < hot_sz / (uint64_t)page; i++) {
				rng ^= rng << 13;
				rng ^= rng >> 7;
				rng ^= rng << 17;
				sum += ((volatile uint64_t *)hot)[rng % (hot_sz / 8)];
			}
			reads += hot_sz / (uint64_t)page;
			sink = sum;	/* the reads are kept */
		} else {
			for (uint64_t off = 0; off < hot_sz; off += (uint64_t)page)
				((volatile unsigned char *)hot)[off] = v;
		}
		/* the cold buffer on cold_rate% of the passes, evenly spread */
		passes++;
		if ((passes * cold_rate) / 100 != ((passes - 1) * cold_rate) / 100)
			for (uint64_t off = 0; off < cold_sz; off += (uint64_t)page * sparse)
				((volatile unsigned char *)cold)[off] = v;
		if (duration >= 0 && now_s() - start >= duration)
			break;
		if (got_usr1) {
			got_usr1 = 0;
			struct timespec ts;

			long long hot_kb = huge_kb(first, first_sz, NULL), cold_from;
			long long cold_kb = huge_kb(second, second_sz, &cold_from);

			clock_gettime(CLOCK_MONOTONIC, &ts);
			printf("huge %u hot=%lld cold=%lld reads=%" PRIu64 " ns=%lld cold_from=%lld\n",
			       ++reports, hot_kb, cold_kb, reads,
			       (long long)ts.tv_sec * 1000000000 + ts.tv_nsec, cold_from);
			fflush(stdout);
		}
		if (got_usr2) {
			uintptr_t a = hot;
			uint64_t a_sz = hot_sz;

			got_usr2 = 0;
			hot = cold;
			hot_sz = cold_sz;
			cold = a;
			cold_sz = a_sz;
			if (scenario && write_scenario(scenario, hot, hot_sz, cold, cold_sz)) {
				fprintf(stderr, "hotcold: cannot write %s: %s\n", scenario,
					strerror(errno));
				return 1;
			}
			printf("switched\n");
			fflush(stdout);
		}
		for (int i = 0; i < 5; i++) {
			const char *what;

			if (!got_change[i])
				continue;
			got_change[i] = 0;
			what = change(i, hot, hot_sz, cold, cold_sz, page);
			if (!what) {
				perror("hotcold: change");
				return 1;
			}
			printf("done %s\n", what);
			fflush(stdout);
		}
		if (pause_us)
			usleep((useconds_t)(pause_us > 1000000 ? 1000000 : pause_us));
	}
	return 0;
}
