// SPDX-License-Identifier: GPL-2.0-or-later
/* Tree nodes: allocation, lookup and typed access. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "tree.h"
#include "util.h"

pthread_mutex_t emu_tree_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t emu_sysfs_lock = PTHREAD_MUTEX_INITIALIZER;
struct emu_node *emu_root;

/*
 * Inode numbers: the kernel keeps using the number of a file it has open or cached, so a
 * number is never given to another node; a removed node's number resolves to nothing.
 */
static struct emu_node **ino_hash;
static size_t ino_buckets, ino_count;
static uint64_t next_ino = 1;

static size_t ino_slot(uint64_t ino, size_t buckets)
{
	return (size_t)((ino * 0x9e3779b97f4a7c15ull) >> 20) & (buckets - 1);
}

static void ino_insert(struct emu_node *n)
{
	if (ino_count >= 2 * ino_buckets) {
		size_t nb = ino_buckets ? ino_buckets * 4 : 1024;
		struct emu_node **nh = emu_xcalloc(nb, sizeof(*nh));

		for (size_t i = 0; i < ino_buckets; i++) {
			while (ino_hash[i]) {
				struct emu_node *m = ino_hash[i];
				size_t s = ino_slot(m->ino, nb);

				ino_hash[i] = m->hnext;
				m->hnext = nh[s];
				nh[s] = m;
			}
		}
		free(ino_hash);
		ino_hash = nh;
		ino_buckets = nb;
	}
	n->ino = next_ino++;
	n->hnext = ino_hash[ino_slot(n->ino, ino_buckets)];
	ino_hash[ino_slot(n->ino, ino_buckets)] = n;
	ino_count++;
}

static void ino_remove(struct emu_node *n)
{
	struct emu_node **pp = &ino_hash[ino_slot(n->ino, ino_buckets)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == n) {
			*pp = n->hnext;
			if (!--ino_count) {
				free(ino_hash);
				ino_hash = NULL;
				ino_buckets = 0;
			}
			return;
		}
	}
}

struct emu_node *emu_node_by_ino(uint64_t ino)
{
	struct emu_node *n;

	if (!ino_buckets)
		return NULL;
	for (n = ino_hash[ino_slot(ino, ino_buckets)]; n; n = n->hnext) {
		if (n->ino == ino)
			return n;
	}
	return NULL;
}

static struct emu_node *node_new(struct emu_node *parent, const char *name)
{
	struct emu_node *n = emu_xcalloc(1, sizeof(*n));

	ino_insert(n);
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->parent = parent;
	if (parent) {
		if (parent->nkids == parent->cap) {
			parent->cap = parent->cap ? parent->cap * 2 : 8;
			parent->kids = emu_xrealloc(parent->kids,
						    parent->cap * sizeof(*parent->kids));
		}
		parent->kids[parent->nkids++] = n;
	}
	return n;
}

struct emu_node *emu_node_new_dir(struct emu_node *parent, const char *name, enum emu_dkind dk)
{
	struct emu_node *n = node_new(parent, name);

	n->dir = true;
	n->dk = dk;
	return n;
}

struct emu_node *emu_node_new_file(struct emu_node *parent, const struct emu_fdef *fd)
{
	struct emu_node *n = node_new(parent, fd->name);

	n->fd = fd;
	return n;
}

static void node_destroy(struct emu_node *n)
{
	ino_remove(n);
	for (int i = 0; i < n->nkids; i++)
		node_destroy(n->kids[i]);
	if (n->kd)
		emu_kd_free(n->kd);
	free(n->kids);
	free(n->str);
	free(n);
}

static void unlink_from_parent(struct emu_node *n)
{
	struct emu_node *p = n->parent;

	if (!p)
		return;
	for (int i = 0; i < p->nkids; i++) {
		if (p->kids[i] == n) {
			memmove(&p->kids[i], &p->kids[i + 1],
				(p->nkids - i - 1) * sizeof(*p->kids));
			p->nkids--;
			break;
		}
	}
}

void emu_node_free(struct emu_node *n)
{
	unlink_from_parent(n);
	node_destroy(n);
}

bool emu_node_is_numbered(const struct emu_node *n)
{
	const char *s = n->name;

	if (!n->dir || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

void emu_node_free_numbered(struct emu_node *dir)
{
	int i = 0;

	while (i < dir->nkids) {
		struct emu_node *k = dir->kids[i];

		if (emu_node_is_numbered(k)) {
			memmove(&dir->kids[i], &dir->kids[i + 1],
				(dir->nkids - i - 1) * sizeof(*dir->kids));
			dir->nkids--;
			node_destroy(k);
		} else {
			i++;
		}
	}
}

int emu_node_count_numbered(const struct emu_node *dir)
{
	int n = 0;

	for (int i = 0; i < dir->nkids; i++)
		n += emu_node_is_numbered(dir->kids[i]);
	return n;
}

struct emu_node *emu_node_child(struct emu_node *dir, const char *name)
{
	if (!dir || !dir->dir)
		return NULL;
	for (int i = 0; i < dir->nkids; i++) {
		if (!strcmp(dir->kids[i]->name, name))
			return dir->kids[i];
	}
	return NULL;
}

struct emu_node *emu_node_nth(struct emu_node *dir, int idx)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", idx);
	return emu_node_child(dir, name);
}

struct emu_node *emu_node_at(struct emu_node *from, const char *path)
{
	char comp[64];
	struct emu_node *n = from;

	while (n && *path) {
		size_t len = strcspn(path, "/");

		if (len == 0) {
			path++;
			continue;
		}
		if (len >= sizeof(comp))
			return NULL;
		memcpy(comp, path, len);
		comp[len] = '\0';
		n = emu_node_child(n, comp);
		path += len;
	}
	return n;
}

void emu_node_path(const struct emu_node *n, char *buf, size_t size)
{
	const struct emu_node *chain[64];
	int depth = 0;
	size_t off = 0;

	for (; n && n->parent && depth < 64; n = n->parent)
		chain[depth++] = n;
	buf[0] = '\0';
	while (depth-- > 0 && off < size) {
		int w = snprintf(buf + off, size - off, "%s%s", off ? "/" : "",
				 chain[depth]->name);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

struct emu_node *emu_node_up(struct emu_node *n, enum emu_dkind dk)
{
	for (; n; n = n->parent) {
		if (n->dir && n->dk == dk)
			return n;
	}
	return NULL;
}

static struct emu_node *file_at(struct emu_node *dir, const char *path)
{
	struct emu_node *n = emu_node_at(dir, path);

	return n && !n->dir ? n : NULL;
}

uint64_t emu_get_u(struct emu_node *dir, const char *path, uint64_t dflt)
{
	struct emu_node *n = file_at(dir, path);

	return n ? n->v.u : dflt;
}

int64_t emu_get_i(struct emu_node *dir, const char *path, int64_t dflt)
{
	struct emu_node *n = file_at(dir, path);

	return n ? n->v.i : dflt;
}

bool emu_get_b(struct emu_node *dir, const char *path, bool dflt)
{
	struct emu_node *n = file_at(dir, path);

	return n ? n->v.b : dflt;
}

int emu_get_kw(struct emu_node *dir, const char *path, int dflt)
{
	struct emu_node *n = file_at(dir, path);

	return n ? n->v.kw : dflt;
}

const char *emu_get_str(struct emu_node *dir, const char *path)
{
	struct emu_node *n = file_at(dir, path);

	return n ? n->str : NULL;
}

void emu_set_u(struct emu_node *dir, const char *path, uint64_t v)
{
	struct emu_node *n = file_at(dir, path);

	if (n)
		n->v.u = v;
}
