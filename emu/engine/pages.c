// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Present pages of a range through the PAGEMAP_SCAN ioctl of /proc/PID/pagemap (Linux 6.7+),
 * which also says which pages are huge; on older kernels, through the pagemap entries
 * themselves, which tell presence but not THP mapping (every folio is then taken as 4 KiB).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pages.h"
#include "util.h"
#include "vaddr.h"

#ifndef PAGEMAP_SCAN
/* From include/uapi/linux/fs.h (6.7); the host headers may predate it. */
struct page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_HUGE (1 << 6)
#endif

#define PM_ENTRY_PRESENT (1ull << 63)

struct walk_ctx {
	struct mon_target *t;
	void (*fn)(const struct page_run *run, void *arg);
	void *arg;
};

/* Cuts a run at mapping boundaries so that each piece has one anon value. */
static void emit(struct walk_ctx *w, uint64_t start, uint64_t end, bool huge)
{
	while (start < end) {
		const struct mon_vma *v = va_vma_at(w->t, start);
		struct page_run run = { .start = start, .end = end, .huge = huge };

		if (v && v->end < end)
			run.end = v->end;
		run.anon = v && v->anon;
		w->fn(&run, w->arg);
		start = run.end;
	}
}

static int walk_scan(int fd, struct walk_ctx *w, uint64_t start, uint64_t end)
{
	struct page_region vec[256];

	while (start < end) {
		struct pm_scan_arg arg = {
			.size = sizeof(arg),
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)vec,
			.vec_len = sizeof(vec) / sizeof(vec[0]),
			.category_mask = PAGE_IS_PRESENT,
			.return_mask = PAGE_IS_PRESENT | PAGE_IS_HUGE,
		};
		long n = ioctl(fd, PAGEMAP_SCAN, &arg);

		if (n < 0)
			return -errno;
		for (long i = 0; i < n; i++)
			emit(w, vec[i].start, vec[i].end, vec[i].categories & PAGE_IS_HUGE);
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	return 0;
}

static int walk_entries(int fd, struct walk_ctx *w, uint64_t start, uint64_t end,
			uint64_t page)
{
	uint64_t run_start = 0, buf[512];
	bool in_run = false;

	for (uint64_t addr = start; addr < end;) {
		size_t n = (size_t)emu_min((end - addr + page - 1) / page, 512);
		ssize_t got = pread(fd, buf, n * sizeof(buf[0]),
				    (off_t)(addr / page * sizeof(buf[0])));

		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		n = (size_t)got / sizeof(buf[0]);
		for (size_t i = 0; i < n; i++, addr += page) {
			bool present = buf[i] & PM_ENTRY_PRESENT;

			if (present && !in_run) {
				run_start = addr;
				in_run = true;
			} else if (!present && in_run) {
				emit(w, run_start, addr, false);
				in_run = false;
			}
		}
	}
	if (in_run)
		emit(w, run_start, end, false);
	return 0;
}

int pages_walk_present(struct mon_ctx *c, struct mon_target *t, uint64_t start, uint64_t end,
		       void (*fn)(const struct page_run *run, void *arg), void *arg)
{
	struct walk_ctx w = { .t = t, .fn = fn, .arg = arg };
	char path[PATH_MAX + 64];
	int fd, err;

	start = emu_align_down(start, c->page_size);
	end = emu_align_up(end, c->page_size);
	snprintf(path, sizeof(path), "%s/%d/pagemap", c->proc_root, (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = walk_scan(fd, &w, start, end);
	if (err == -ENOTTY || err == -EINVAL || err == -EOPNOTSUPP)
		err = walk_entries(fd, &w, start, end, c->page_size);
	close(fd);
	return err;
}
