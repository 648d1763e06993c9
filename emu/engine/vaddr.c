// SPDX-License-Identifier: GPL-2.0-or-later
/* Target processes and their mappings, read from /proc like any user-space tool would. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"
#include "vaddr.h"

void va_open_target(struct mon_target *t)
{
	long fd = t->pid > 0 ? syscall(SYS_pidfd_open, t->pid, 0) : -1;

	t->pidfd = fd >= 0 ? (int)fd : -1;
	/* before Linux 5.3 (or under valgrind) there is no pidfd: fall back to the pid */
	t->no_pidfd = fd < 0 && errno == ENOSYS && !kill(t->pid, 0);
}

void va_close_target(struct mon_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	t->no_pidfd = false;
}

/* Without a pidfd: the pid exists and is not a zombie (it could be reused, though). */
static bool pid_alive(pid_t pid)
{
	char path[64], buf[256], *paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno != EPERM)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

bool va_target_valid(const struct mon_target *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	if (t->no_pidfd)
		return pid_alive(t->pid);
	if (t->pidfd < 0)
		return false;
	/* a pidfd becomes readable when its process exits */
	return poll(&p, 1, 0) == 0;
}

static bool is_anon_name(const char *name)
{
	return !*name || !strncmp(name, "[heap]", 6) || !strncmp(name, "[stack]", 7) ||
	       !strncmp(name, "[anon:", 6);
}

int va_read_vmas(const char *proc_root, pid_t pid, struct mon_vma **vmas, size_t *n)
{
	char path[PATH_MAX + 64], line[PATH_MAX + 128];
	struct mon_vma *arr = NULL;
	size_t nr = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, inode;
		char perms[8], name[PATH_MAX] = "";
		int off = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %" SCNu64 "%n", &start, &end,
			   perms, &inode, &off) < 4)
			continue;
		sscanf(line + off, " %4095[^\n]", name);
		/* the vsyscall page is a gate area, not a mapping of the address space */
		if (!strcmp(name, "[vsyscall]"))
			continue;
		if (nr == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct mon_vma *na = realloc(arr, ncap * sizeof(*na));

			if (!na) {
				free(arr);
				fclose(f);
				return -ENOMEM;
			}
			arr = na;
			cap = ncap;
		}
		arr[nr++] = (struct mon_vma){
			.start = start,
			.end = end,
			.accessible = strncmp(perms, "---", 3) != 0,
			.anon = inode == 0 && is_anon_name(name),
		};
	}
	fclose(f);
	*vmas = arr;
	*n = nr;
	return 0;
}

void va_refresh_vmas(struct mon_ctx *c, struct mon_target *t, uint64_t max_age_us)
{
	struct mon_vma *vmas;
	size_t n;

	if (t->vmas_read_us && c->now_us - t->vmas_read_us < max_age_us)
		return;
	t->vmas_read_us = c->now_us ? c->now_us : 1;
	if (va_read_vmas(c->proc_root, t->pid, &vmas, &n))
		n = 0, vmas = NULL;	/* gone: nothing is mapped any more */
	free(t->vmas);
	t->vmas = vmas;
	t->nr_vmas = n;
}

int va_three_regions(const struct mon_vma *vmas, size_t n, uint64_t align,
		     struct mon_range out[3])
{
	struct mon_range first = { 0, 0 }, second = { 0, 0 };

	if (!n)
		return -EINVAL;
	for (size_t i = 1; i < n; i++) {
		uint64_t gap = vmas[i].start - vmas[i - 1].end;

		if (gap > first.end - first.start) {
			second = first;
			first = (struct mon_range){ vmas[i - 1].end, vmas[i].start };
		} else if (gap > second.end - second.start) {
			second = (struct mon_range){ vmas[i - 1].end, vmas[i].start };
		}
	}
	if (first.end == first.start || second.end == second.start)
		return -EINVAL;
	if (first.start > second.start) {
		struct mon_range tmp = first;

		first = second;
		second = tmp;
	}
	out[0] = (struct mon_range){ emu_align_up(vmas[0].start, align),
				     emu_align_up(first.start, align) };
	out[1] = (struct mon_range){ emu_align_up(first.end, align),
				     emu_align_up(second.start, align) };
	out[2] = (struct mon_range){ emu_align_up(second.end, align),
				     emu_align_up(vmas[n - 1].end, align) };
	return 0;
}

static void fit_to_mappings(struct mon_ctx *c, struct mon_target *t)
{
	struct mon_range three[3];

	va_refresh_vmas(c, t, 0);
	if (va_three_regions(t->vmas, t->nr_vmas, c->page_size, three))
		return;
	reg_set_ranges(t, three, 3, c->page_size);
}

void va_init(struct mon_ctx *c)
{
	if (c->ops != EMU_OPS_VADDR)
		return;
	for (int i = 0; i < c->nr_targets; i++) {
		/* the user may have set the regions as they want */
		if (!c->targets[i].nr)
			fit_to_mappings(c, &c->targets[i]);
	}
}

void va_update(struct mon_ctx *c)
{
	if (c->ops != EMU_OPS_VADDR)
		return;
	for (int i = 0; i < c->nr_targets; i++)
		fit_to_mappings(c, &c->targets[i]);
}

const struct mon_vma *va_vma_at(const struct mon_target *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < t->vmas[mid].start)
			hi = mid;
		else if (addr >= t->vmas[mid].end)
			lo = mid + 1;
		else
			return &t->vmas[mid];
	}
	return NULL;
}

bool va_addr_accessible(const struct mon_target *t, uint64_t addr)
{
	const struct mon_vma *v = va_vma_at(t, addr);

	return v && v->accessible;
}

bool va_range_mapped(const struct mon_target *t, uint64_t start, uint64_t end)
{
	while (start < end) {
		const struct mon_vma *v = va_vma_at(t, start);

		if (!v)
			return false;
		start = v->end;
	}
	return true;
}

const char *va_target_memcg(struct mon_ctx *c, struct mon_target *t)
{
	char path[PATH_MAX + 64], line[PATH_MAX];
	FILE *f;

	if (t->memcg_read)
		return t->memcg ? t->memcg : "/";
	t->memcg_read = true;
	snprintf(path, sizeof(path), "%s/%d/cgroup", c->proc_root, (int)t->pid);
	f = fopen(path, "re");
	if (!f)
		return "/";
	while (fgets(line, sizeof(line), f)) {
		/* cgroup v2: "0::/some/path" */
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			t->memcg = strdup(line + 3);
			break;
		}
	}
	fclose(f);
	return t->memcg ? t->memcg : "/";
}
