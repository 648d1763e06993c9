// SPDX-License-Identifier: GPL-2.0-or-later
/* show/store of every file kind; see tree.h for the locking rules. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "emu.h"
#include "kstrto.h"
#include "layout.h"
#include "state.h"
#include "util.h"

static bool show_needs_lock(const struct emu_node *n)
{
	return n->fd->type == VT_STR || n->fd->special == FS_PID || n->fd->special == FS_STATE;
}

static int show(struct emu_node *n, char **out, size_t *len)
{
	const struct emu_fdef *fd = n->fd;
	char *s = NULL;
	int r = -1;

	switch (fd->special) {
	case FS_NR:
		r = asprintf(&s, "%d\n", emu_node_count_numbered(n->parent));
		break;
	case FS_PID:
		r = asprintf(&s, "%d\n", (int)emu_kd_pid(n->parent->kd));
		break;
	case FS_STATE:
		r = asprintf(&s, "%s\n", emu_kd_running(n->parent->kd) ? "on" : "off");
		break;
	case FS_AVAIL_OPS:
		r = asprintf(&s, "%s%s%s",
			     emu_opt.avail_ops & (1u << EMU_OPS_VADDR) ? "vaddr\n" : "",
			     emu_opt.avail_ops & (1u << EMU_OPS_FVADDR) ? "fvaddr\n" : "",
			     emu_opt.avail_ops & (1u << EMU_OPS_PADDR) ? "paddr\n" : "");
		break;
	default:
		switch (fd->type) {
		case VT_UL:
		case VT_UINT:
			r = asprintf(&s, "%" PRIu64 "\n", n->v.u);
			break;
		case VT_INT:
			r = asprintf(&s, "%" PRId64 "\n", n->v.i);
			break;
		case VT_BOOL:
			r = asprintf(&s, "%c\n", n->v.b ? 'Y' : 'N');
			break;
		case VT_KW: {
			const char *name = emu_kw_name(fd->kw, n->v.kw);

			if (!name)
				return -EINVAL;
			r = asprintf(&s, "%s\n", name);
			break;
		}
		case VT_STR:
			r = asprintf(&s, "%s\n", n->str ? n->str : "");
			break;
		case VT_SPECIAL:
			return -EIO;
		}
	}
	if (r < 0)
		return -ENOMEM;
	*out = s;
	*len = (size_t)r;
	return 0;
}

int emu_attr_read(uint64_t ino, char **out, size_t *len)
{
	struct emu_node *n;
	bool locked = false;
	int err;

	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (n && !n->dir && show_needs_lock(n)) {
		pthread_mutex_unlock(&emu_tree_lock);
		if (pthread_mutex_trylock(&emu_sysfs_lock))
			return -EBUSY;
		locked = true;
		pthread_mutex_lock(&emu_tree_lock);
		n = emu_node_by_ino(ino);
	}
	if (!n)
		err = -ENODEV;
	else if (n->dir)
		err = -EISDIR;
	else
		err = show(n, out, len);
	pthread_mutex_unlock(&emu_tree_lock);
	if (locked)
		pthread_mutex_unlock(&emu_sysfs_lock);
	return err;
}

static int parse_error(const struct emu_fdef *fd, int err)
{
	return fd->einval_all ? -EINVAL : err;
}

/* Typed stores that need no lock beyond the tree's. */
static int store_plain(struct emu_node *n, const char *buf)
{
	const struct emu_fdef *fd = n->fd;
	uint64_t u;
	unsigned int ui;
	int i, err, kw;
	bool b;

	switch (fd->type) {
	case VT_UL:
		err = emu_kstrtoull(buf, 0, &u);
		if (err)
			return parse_error(fd, err);
		if (fd->special == FS_NONZERO && !u)
			return -EINVAL;
		n->v.u = u;
		return 0;
	case VT_UINT:
		err = emu_kstrtouint(buf, 0, &ui);
		if (err)
			return parse_error(fd, err);
		n->v.u = ui;
		return 0;
	case VT_INT:
		err = emu_kstrtoint(buf, 0, &i);
		if (err)
			return parse_error(fd, err);
		n->v.i = i;
		return 0;
	case VT_BOOL:
		err = emu_kstrtobool(buf, &b);
		if (err)
			return err;
		n->v.b = b;
		return 0;
	case VT_KW:
		kw = emu_kw_parse(fd->kw, buf);
		if (kw < 0)
			return -EINVAL;
		if (fd->special == FS_FILTER_TYPE) {
			/* core_filters takes addr/target only, ops_filters everything else */
			const char *dir = n->parent->parent->name;
			bool core = kw == EMU_FILTER_ADDR || kw == EMU_FILTER_TARGET;

			if ((!strcmp(dir, "core_filters") && !core) ||
			    (!strcmp(dir, "ops_filters") && core))
				return -EINVAL;
		}
		n->v.kw = kw;
		return 0;
	default:
		return -EIO;
	}
}

/* The most children an nr_* write makes: the kernel's *_add_dirs() kmalloc_array() their
 * pointers (GFP_KERNEL | __GFP_NOWARN), and beyond KMALLOC_MAX_SIZE (4 MiB: 4 KiB pages,
 * MAX_PAGE_ORDER 10) that fails at once, -ENOMEM, instead of making millions of nodes. */
#define EMU_NR_MAX ((4 << 20) / 8)

/* nr_*: every write recreates all children with defaults, even for the same count. */
static int store_nr(struct emu_node *n, int nr)
{
	struct emu_node *dir = n->parent;

	if (n->fd->child == DK_KDAMOND && emu_kd_any_running())
		return -EBUSY;
	/* the old children go first, as the kernel's rm_dirs goes before its allocation */
	emu_node_free_numbered(dir);
	if (nr > EMU_NR_MAX)
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		emu_layout_add_numbered(dir, n->fd->child, i);
	return 0;
}

/* Re-find @ino after taking damon_sysfs_lock (the tree lock was dropped meanwhile). */
static struct emu_node *relock(uint64_t ino, int *err)
{
	struct emu_node *n;

	pthread_mutex_unlock(&emu_tree_lock);
	if (pthread_mutex_trylock(&emu_sysfs_lock)) {
		*err = -EBUSY;
		return NULL;
	}
	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (!n) {
		pthread_mutex_unlock(&emu_tree_lock);
		pthread_mutex_unlock(&emu_sysfs_lock);
		*err = -ENODEV;
		return NULL;
	}
	return n;
}

static void unlock_both(void)
{
	pthread_mutex_unlock(&emu_tree_lock);
	pthread_mutex_unlock(&emu_sysfs_lock);
}

int emu_attr_write(uint64_t ino, const char *buf)
{
	struct emu_node *n;
	int err, nr;

	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (!n || n->dir || !(n->fd->mode & 0200)) {
		err = !n ? -ENODEV : n->dir ? -EISDIR : -EACCES;
		pthread_mutex_unlock(&emu_tree_lock);
		return err;
	}
	switch (n->fd->special) {
	case FS_NR:
		/* parsed and range-checked before damon_sysfs_lock is tried */
		err = emu_kstrtoint(buf, 0, &nr);
		if (!err && (nr < 0 || (n->fd->max && nr > n->fd->max)))
			err = -EINVAL;
		if (err)
			break;
		n = relock(ino, &err);
		if (!n)
			return err;
		err = store_nr(n, nr);
		unlock_both();
		return err;
	case FS_STATE:
		n = relock(ino, &err);
		if (!n)
			return err;
		err = emu_state_store(n->parent, buf);
		unlock_both();
		return err;
	default:
		if (n->fd->type == VT_STR) {
			n = relock(ino, &err);
			if (!n)
				return err;
			free(n->str);
			n->str = emu_xstrdup(buf);
			unlock_both();
			return 0;
		}
		err = store_plain(n, buf);
		break;
	}
	pthread_mutex_unlock(&emu_tree_lock);
	return err;
}
