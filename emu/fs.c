// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FUSE glue with sysfs behaviour: files report size 4096; the content is produced at a
 * read at offset 0 and kept for the rest of that read sequence; every write(2) is one
 * store of at most PAGE_SIZE bytes, whatever the file position; the tree cannot be changed
 * by mkdir/unlink. No kernel caching: the tree changes under the reader's feet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attr.h"
#include "faults.h"
#include "fs.h"
#include "resolve.h"
#include "tree.h"
#include "wlog.h"

struct handle {
	char *buf;
	size_t len;
	bool valid;
};

static struct timespec mount_time;

static const char *rel(const char *path)
{
	return path[0] == '/' ? path + 1 : path;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	clock_gettime(CLOCK_REALTIME, &mount_time);
	return NULL;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct emu_node *n;
	int err = 0;

	(void)fi;
	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_at(emu_root, rel(path));
	if (!n) {
		err = -ENOENT;
	} else if (n->dir) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | n->fd->mode;
		st->st_nlink = 1;
		st->st_size = (off_t)emu_page_size();
	}
	pthread_mutex_unlock(&emu_tree_lock);
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_blksize = (blksize_t)emu_page_size();
	st->st_atim = st->st_mtim = st->st_ctim = mount_time;
	return err;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct emu_node *n;
	int err = 0;

	(void)off;
	(void)fi;
	(void)flags;
	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_at(emu_root, rel(path));
	if (!n) {
		err = -ENOENT;
	} else if (!n->dir) {
		err = -ENOTDIR;
	} else {
		filler(buf, ".", NULL, 0, 0);
		filler(buf, "..", NULL, 0, 0);
		for (int i = 0; i < n->nkids; i++)
			filler(buf, n->kids[i]->name, NULL, 0, 0);
	}
	pthread_mutex_unlock(&emu_tree_lock);
	return err;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	struct emu_node *n;
	int err = 0;
	bool want_write = (fi->flags & O_ACCMODE) != O_RDONLY;

	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_at(emu_root, rel(path));
	if (!n)
		err = -ENOENT;
	else if (n->dir)
		err = -EISDIR;
	/* kernfs refuses write opens of files without a store method, even to root */
	else if (want_write && !(n->fd->mode & 0200))
		err = -EACCES;
	pthread_mutex_unlock(&emu_tree_lock);
	if (err)
		return err;
	fi->fh = (uint64_t)(uintptr_t)calloc(1, sizeof(struct handle));
	if (!fi->fh)
		return -ENOMEM;
	fi->direct_io = 1;
	return 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;

	(void)path;
	if (h) {
		free(h->buf);
		free(h);
	}
	return 0;
}

/* The file went away (an nr_* write) while open: kernfs answers ENODEV. */
static int gone(int err)
{
	return err == -ENOENT ? -ENODEV : err;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	size_t n;

	if (off == 0 || !h->valid) {
		int err;

		free(h->buf);
		h->buf = NULL;
		h->valid = false;
		err = emu_attr_read(rel(path), &h->buf, &h->len);
		if (err)
			return gone(err);
		h->valid = true;
	}
	if ((size_t)off >= h->len)
		return 0;
	n = h->len - (size_t)off;
	if (n > size)
		n = size;
	memcpy(buf, h->buf + off, n);
	return (int)n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	size_t n = size < emu_page_size() ? size : emu_page_size();
	char *copy;
	int fault, err;

	(void)off;
	(void)fi;
	if (!n)
		return 0;
	copy = malloc(n + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, n);
	copy[n] = '\0';
	fault = emu_faults_check(rel(path), copy);
	err = fault ? -fault : gone(emu_attr_write(rel(path), copy));
	emu_wlog_write(rel(path), buf, n, -err, fault != 0);
	free(copy);
	return err ? err : (int)n;
}

/* O_TRUNC and touch(1) work on sysfs files and change nothing. */
static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct stat st;

	(void)size;
	return fs_getattr(path, &st, fi);
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct stat st;

	(void)tv;
	return fs_getattr(path, &st, fi);
}

static int fs_eperm_path(const char *path)
{
	(void)path;
	return -EPERM;
}

static int fs_mkdir(const char *path, mode_t mode)
{
	(void)mode;
	return fs_eperm_path(path);
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)path;
	(void)mode;
	(void)fi;
	return -EACCES;
}

static int fs_rename(const char *from, const char *to, unsigned int flags)
{
	(void)to;
	(void)flags;
	return fs_eperm_path(from);
}

static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	(void)mode;
	(void)fi;
	return fs_eperm_path(path);
}

static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	(void)uid;
	(void)gid;
	(void)fi;
	return fs_eperm_path(path);
}

const struct fuse_operations emu_fs_ops = {
	.init = fs_init,
	.getattr = fs_getattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.release = fs_release,
	.read = fs_read,
	.write = fs_write,
	.truncate = fs_truncate,
	.utimens = fs_utimens,
	.mkdir = fs_mkdir,
	.rmdir = fs_eperm_path,
	.unlink = fs_eperm_path,
	.create = fs_create,
	.rename = fs_rename,
	.chmod = fs_chmod,
	.chown = fs_chown,
};
