// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FUSE glue with sysfs behaviour: files report size PAGE_SIZE; the content is produced at a
 * read at offset 0 and kept for the rest of that read sequence; every write(2) is one store
 * of at most PAGE_SIZE bytes, whatever the file position; a file removed while open
 * answers ENODEV; nothing can be created, removed or renamed. Nothing is cached by the
 * kernel: the tree changes under the reader's feet.
 *
 * The low-level API is used for two things the high-level one cannot do: inode numbers
 * that follow nodes (not paths), and FOPEN_PARALLEL_DIRECT_WRITES, without which the kernel
 * would queue a second write to `state` behind a blocked one instead of letting it meet
 * damon_sysfs_lock and fail with EBUSY.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
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

/*
 * An open file (its content, taken at a read at offset 0) or directory (its listing, taken
 * at opendir so that offsets stay stable). All of them are linked, so that those still open
 * when the session ends are freed: the kernel sends RELEASE after close(2) without waiting
 * for it, and an unmount that comes first drops it.
 */
struct open_file {
	struct open_file *prev, *next;
	char *buf;
	size_t len;
	bool valid;
};

static struct open_file open_files = { &open_files, &open_files, NULL, 0, false };
static pthread_mutex_t open_files_lock = PTHREAD_MUTEX_INITIALIZER;

static struct open_file *open_file_new(void)
{
	struct open_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	pthread_mutex_lock(&open_files_lock);
	f->next = open_files.next;
	f->prev = &open_files;
	open_files.next->prev = f;
	open_files.next = f;
	pthread_mutex_unlock(&open_files_lock);
	return f;
}

static void open_file_free(struct open_file *f)
{
	pthread_mutex_lock(&open_files_lock);
	f->prev->next = f->next;
	f->next->prev = f->prev;
	pthread_mutex_unlock(&open_files_lock);
	free(f->buf);
	free(f);
}

/*
 * Reply with a private copy: once the kernel has the reply, the opener may close the file
 * and another thread free the handle's buffer while fuse_reply_buf() is still returning.
 */
static void reply_copy(fuse_req_t req, const char *data, size_t len)
{
	char *copy = len ? malloc(len) : NULL;

	if (len && !copy) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (len)
		memcpy(copy, data, len);
	fuse_reply_buf(req, copy, len);
	free(copy);
}

static struct timespec mount_time;

static void fill_stat(const struct emu_node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	if (n->dir) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | n->fd->mode;
		st->st_nlink = 1;
		st->st_size = (off_t)emu_page_size();
	}
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_blksize = (blksize_t)emu_page_size();
	st->st_atim = st->st_mtim = st->st_ctim = mount_time;
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* O_TRUNC comes as a size change that sysfs ignores */
	conn->want &= ~FUSE_CAP_ATOMIC_O_TRUNC;
	clock_gettime(CLOCK_REALTIME, &mount_time);
}

/* The session ends (no request is in flight any more): free what was never released. */
static void fs_destroy(void *userdata)
{
	(void)userdata;
	while (open_files.next != &open_files)
		open_file_free(open_files.next);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	struct emu_node *p, *n;

	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&emu_tree_lock);
	p = emu_node_by_ino(parent);
	n = p ? emu_node_child(p, name) : NULL;
	if (n) {
		e.ino = n->ino;
		e.generation = 1;
		fill_stat(n, &e.attr);
	}
	pthread_mutex_unlock(&emu_tree_lock);
	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct emu_node *n;
	struct stat st;

	(void)fi;
	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (n)
		fill_stat(n, &st);
	pthread_mutex_unlock(&emu_tree_lock);
	if (!n)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, 0);
}

/* Size and time changes (O_TRUNC, touch) are accepted and change nothing, as on sysfs. */
static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	(void)attr;
	if (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fs_getattr(req, ino, fi);
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *l = open_file_new();
	struct emu_node *n;
	size_t cap = 0;
	int err = 0;

	if (!l) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (!n) {
		err = ENOENT;
	} else if (!n->dir) {
		err = ENOTDIR;
	} else {
		for (int i = -2; i < n->nkids && !err; i++) {
			const struct emu_node *k = i == -2 ? n : i == -1 ? (n->parent ? n->parent : n) :
						   n->kids[i];
			const char *name = i == -2 ? "." : i == -1 ? ".." : k->name;
			struct stat st;
			size_t need;

			memset(&st, 0, sizeof(st));
			st.st_ino = k->ino;
			st.st_mode = k->dir ? S_IFDIR : S_IFREG;
			need = fuse_add_direntry(req, NULL, 0, name, NULL, 0);
			if (l->len + need > cap) {
				char *nb;

				cap = cap ? cap * 2 + need : 4096 + need;
				nb = realloc(l->buf, cap);
				if (!nb) {
					err = ENOMEM;
					break;
				}
				l->buf = nb;
			}
			fuse_add_direntry(req, l->buf + l->len, cap - l->len, name, &st,
					  (off_t)(l->len + need));
			l->len += need;
		}
	}
	pthread_mutex_unlock(&emu_tree_lock);
	if (err) {
		open_file_free(l);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)l;
	fuse_reply_open(req, fi);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct open_file *l = (struct open_file *)(uintptr_t)fi->fh;
	size_t start = (size_t)off, end;

	(void)ino;
	if (start >= l->len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	/* whole entries only: walk them to the last one that fits */
	end = start;
	while (end < l->len) {
		const struct fuse_dirent *d = (const struct fuse_dirent *)(l->buf + end);
		size_t next = (size_t)d->off;

		if (next - start > size)
			break;
		end = next;
	}
	reply_copy(req, l->buf + start, end - start);
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *l = (struct open_file *)(uintptr_t)fi->fh;

	(void)ino;
	open_file_free(l);
	fuse_reply_err(req, 0);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct fuse_open_out out;
	struct emu_node *n;
	struct open_file *h;
	int err = 0;
	bool want_write = (fi->flags & O_ACCMODE) != O_RDONLY;

	pthread_mutex_lock(&emu_tree_lock);
	n = emu_node_by_ino(ino);
	if (!n)
		err = ENOENT;
	else if (n->dir)
		err = EISDIR;
	/* kernfs refuses write opens of files without a store method, even to root */
	else if (want_write && !(n->fd->mode & 0200))
		err = EACCES;
	pthread_mutex_unlock(&emu_tree_lock);
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	h = open_file_new();
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* fuse_reply_open() cannot ask for parallel writes with libfuse 3.14: reply raw */
	memset(&out, 0, sizeof(out));
	out.fh = (uint64_t)(uintptr_t)h;
	out.open_flags = FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES;
	if (fuse_reply_buf(req, (const char *)&out, sizeof(out)))
		open_file_free(h);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *h = (struct open_file *)(uintptr_t)fi->fh;

	(void)ino;
	if (h)
		open_file_free(h);
	fuse_reply_err(req, 0);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct open_file *h = (struct open_file *)(uintptr_t)fi->fh;
	size_t n;

	if (off == 0 || !h->valid) {
		int err;

		free(h->buf);
		h->buf = NULL;
		h->valid = false;
		err = emu_attr_read(ino, &h->buf, &h->len);
		if (err) {
			fuse_reply_err(req, -err);
			return;
		}
		h->valid = true;
	}
	if ((size_t)off >= h->len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	n = h->len - (size_t)off;
	if (n > size)
		n = size;
	reply_copy(req, h->buf + off, n);
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	size_t n = size < emu_page_size() ? size : emu_page_size();
	char path[512], *copy;
	struct emu_node *node;
	int fault, err, kill_writer;

	(void)off;
	(void)fi;
	if (!n) {
		fuse_reply_write(req, 0);
		return;
	}
	pthread_mutex_lock(&emu_tree_lock);
	node = emu_node_by_ino(ino);
	if (node)
		emu_node_path(node, path, sizeof(path));
	pthread_mutex_unlock(&emu_tree_lock);
	if (!node) {
		fuse_reply_err(req, ENODEV);
		return;
	}
	copy = malloc(n + 1);
	if (!copy) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	memcpy(copy, buf, n);
	copy[n] = '\0';
	fault = emu_faults_check(path, copy, &kill_writer);
	err = fault ? -fault : emu_attr_write(ino, copy);
	emu_wlog_write(path, buf, n, -err, kill_writer ? "killed" : fault ? "fault" : NULL,
		       (int)fuse_req_ctx(req)->pid);
	free(copy);
	/* the writer waits for our reply in the kernel; it dies as soon as it gets it */
	if (kill_writer && fuse_req_ctx(req)->pid > 0)
		kill(fuse_req_ctx(req)->pid, SIGKILL);
	if (err)
		fuse_reply_err(req, -err);
	else
		fuse_reply_write(req, n);
}

static void fs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	(void)parent;
	(void)name;
	(void)mode;
	fuse_reply_err(req, EPERM);
}

static void fs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		     dev_t rdev)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)rdev;
	fuse_reply_err(req, EACCES);
}

static void fs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	fuse_reply_err(req, EACCES);
}

static void fs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	fuse_reply_err(req, EPERM);
}

static void fs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	(void)parent;
	(void)name;
	(void)newparent;
	(void)newname;
	(void)flags;
	fuse_reply_err(req, EPERM);
}

static void fs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link;
	(void)parent;
	(void)name;
	fuse_reply_err(req, EPERM);
}

static void fs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EPERM);
}

const struct fuse_lowlevel_ops emu_fs_ops = {
	.init = fs_init,
	.destroy = fs_destroy,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.open = fs_open,
	.release = fs_release,
	.read = fs_read,
	.write = fs_write,
	.mkdir = fs_mkdir,
	.mknod = fs_mknod,
	.create = fs_create,
	.unlink = fs_unlink,
	.rmdir = fs_unlink,
	.rename = fs_rename,
	.symlink = fs_symlink,
	.link = fs_link,
};
