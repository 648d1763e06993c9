/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdamonctl internals: the context, the generic object model and the ABI schema tables. */
#ifndef DAMONCTL_INTERNAL_H
#define DAMONCTL_INTERNAL_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "damonctl/damonctl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- context ---- */
struct dctl_writes;
struct damonctl_ctx {
	char sysroot[PATH_MAX];
	damonctl_log_fn log_fn;
	void *log_data;
	enum damonctl_log_level log_level;
	damonctl_txn_fn txn_fn;
	void *txn_data;
	char *staging;		/* damonctl_set_staging(): the model's file, or NULL */
	struct dctl_writes *wrec;	/* a transaction's writes, recorded as made (wrec.c) */
	/* the last failed access */
	bool have_err;
	struct {
		int err;
		bool write;
		char path[PATH_MAX];
		char value[256];
	} err;
};

/*
 * The writes a transaction makes, in order (wrec.c): recorded as they are made, whether the
 * kernel took them or not, while a list is installed in the context; a dry run lists the
 * same from its plan. @flags: DAMONCTL_WRITE_* (the public header).
 */
struct dctl_writes {
	struct dctl_write {
		char *path, *value;	/* path relative to the admin directory */
		unsigned int flags;
	} *w;
	size_t nr, cap;
	unsigned int flags;	/* given to the writes recorded from now on */
	int err;		/* the first failure to record one (-ENOMEM) */
};
int dctl_writes_add(struct dctl_writes *l, const char *path, const char *value,
		    unsigned int flags);
void dctl_writes_clear(struct dctl_writes *l);
/* A write made through @ctx, recorded in its list if one is installed. */
void dctl_wrec_note(struct damonctl_ctx *ctx, const char *path, const char *value);

void dctl_log(const struct damonctl_ctx *ctx, enum damonctl_log_level level, const char *fmt,
	      ...) __attribute__((format(printf, 3, 4)));
void dctl_set_error(struct damonctl_ctx *ctx, int err, bool write, const char *path,
		    const char *value);
/* The exclusive DAMON module that holds DAMON ("DAMON_STAT", "DAMON_RECLAIM" or
 * "DAMON_LRU_SORT": its 'enabled' is Y, and no sysfs kdamond can start), or NULL; with its
 * module directory's name in *@module when @module is not NULL. */
const char *dctl_exclusive_holder(const struct damonctl_ctx *ctx, const char **module);
/* 1: process @pid is a user-space process that runs; 0: it is none, *@what says what it is
 * ("does not exist", "has exited", "is a kernel thread, ..."); or -errno. */
int dctl_user_process(struct damonctl_ctx *ctx, int64_t pid, const char **what);
/* The memcg paths of @s's filters, as damonctl_kdamond_check_system() checks them: 0,
 * -EINVAL (not starting with '/'), -ENOENT (no such cgroup where the hierarchy is there;
 * the last error then has the directory looked up as path and the filter's as value). */
int dctl_check_filters_memcg(struct damonctl_ctx *ctx, const struct damonctl_scheme *s);
/* Files a caller's state directory keeps (state_file.c): @text and a newline to @path in
 * @dir (made with its parents as needed) through a temporary file and rename(2), so that a
 * reader sees all or nothing; 0 or -errno. */
int dctl_state_write(const char *dir, const char *path, const char *text);
/* A file of a state directory read whole: what stands at @path itself (no symbolic link
 * followed, -ELOOP), a regular file (-ENODEV, -EISDIR: never a FIFO or device waited on), at
 * most @max bytes (-EFBIG), no NUL (-EILSEQ); *out malloc'd, NUL-terminated. */
int dctl_state_read(const char *path, size_t max, char **out);
/* The most a state file of the library holds (a journal, a staged model, a note). */
#define DCTL_STATE_MAX (16u << 20)

/* The error that made a transaction undo, kept while the undo meets others. */
struct dctl_kept_error {
	bool kept, write;
	int err;
	char path[PATH_MAX], value[256];
};
void dctl_keep_error(struct damonctl_ctx *ctx, struct dctl_kept_error *k);
void dctl_put_back_error(struct damonctl_ctx *ctx, const struct dctl_kept_error *k);

/* A staging context (staging.c) reads and changes its model instead of the kernel. */
int dctl_staged_tree(struct damonctl_ctx *ctx, struct damonctl_tree **out);
int dctl_staged_base(struct damonctl_ctx *ctx, struct damonctl_tree **out);
int dctl_staged_kdamond(struct damonctl_ctx *ctx, unsigned int index,
			struct damonctl_kdamond **out);
int dctl_staged_is_running(struct damonctl_ctx *ctx, unsigned int index, int *pid);
int dctl_staged_kdamond_stage(struct damonctl_ctx *ctx, const struct damonctl_kdamond *want);
int dctl_staged_tree_stage(struct damonctl_ctx *ctx, const struct damonctl_tree *want);
int dctl_staged_tree_start(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
			   const unsigned int *idx, unsigned int nr);
int dctl_staged_cmd(struct damonctl_ctx *ctx, unsigned int index, enum damonctl_cmd cmd);

/* ---- the schema: one table row per sysfs file or child list ---- */
enum dkind {
	K_TREE, K_KDAMOND, K_CONTEXT, K_TARGET, K_REGION, K_SCHEME, K_GOAL, K_FILTER, K_DEST,
	K_TRIED, K_PROBE, K_PROBE_FILTER, K_TRIED_PROBE, NR_KINDS
};

enum vtype {
	V_U64,		/* kstrtoul */
	V_U32,		/* kstrtouint */
	V_INT,		/* kstrtoint */
	V_BOOL,		/* Y/N */
	V_KW,		/* keyword of attr_desc.kwset */
	V_STR,		/* free string, stored verbatim */
	V_LINES,	/* read-only list, one item per line */
};

#define A_RO		(1u << 0)	/* read-only file */
#define A_RESULT	(1u << 1)	/* filled by the kernel (stats, state): not config */

#define FEAT_NONE (-1)

struct attr_desc {
	const char *file;	/* relative to the object's directory; also its JSON path */
	enum vtype type;
	int kwset;		/* enum damonctl_kwset, for V_KW */
	uint64_t def;		/* default number (two's complement for V_INT) */
	const char *defs;	/* default string for V_KW/V_STR/V_LINES */
	int feature;		/* enum damonctl_feature that added the file, or FEAT_NONE */
	unsigned int flags;
};

struct list_desc {
	const char *dir;	/* children live in <dir>/0 .. <dir>/N-1 */
	const char *nr_file;	/* relative to the object's directory; NULL: enumerate */
	const char *json;	/* JSON path of the array */
	enum dkind child;
	int feature;
	unsigned int flags;	/* A_RO: filled by the kernel only */
};

struct kind_desc {
	const char *name;	/* for messages: "scheme" */
	const struct attr_desc *attrs;
	unsigned int nr_attrs;
	const struct list_desc *lists;
	unsigned int nr_lists;
};

extern const struct kind_desc dctl_kinds[NR_KINDS];

/* List indexes per kind, in table order. */
enum { L_TREE_KDAMONDS };
enum { L_KDAMOND_CONTEXTS };
enum { L_CONTEXT_TARGETS, L_CONTEXT_SCHEMES, L_CONTEXT_PROBES };
enum { L_TARGET_REGIONS };
enum { L_SCHEME_GOALS, L_SCHEME_FILTERS, L_SCHEME_CORE_FILTERS, L_SCHEME_OPS_FILTERS,
       L_SCHEME_DESTS, L_SCHEME_TRIED };
enum { A_REGION_START, A_REGION_END };
enum { L_PROBE_FILTERS };
enum { L_TRIED_PROBES };
enum { A_TRIED_PROBE_HITS };

/* ---- keywords ---- */
struct keyword {
	const char *name;
	int feature;		/* FEAT_NONE: every kernel damonc supports (6.1+) */
};
const struct keyword *dctl_keywords(enum damonctl_kwset set, unsigned int *nr);
const struct keyword *dctl_keyword_find(enum damonctl_kwset set, const char *name);

/* ---- objects ---- */
union dval {
	uint64_t u;
	int64_t i;
	char *s;
};

struct dlist {
	struct dobj **items;
	unsigned int nr, cap;
};

struct dobj {
	enum dkind kind;
	struct dobj *parent;
	unsigned int index;	/* position in the parent's list */
	uint64_t has;		/* attribute bits present (read from a kernel, or all) */
	uint32_t lists_has;	/* list directories present */
	union dval *v;
	struct dlist *lists;
};

struct dobj *dobj_new(enum dkind kind);
void dobj_free(struct dobj *o);
struct dobj *dobj_dup(const struct dobj *o, struct dobj *parent);
struct dobj *dobj_add(struct dobj *o, unsigned int list);
/* Append @child (made by dobj_new/dobj_dup) to list @list of @o, which owns it then. */
int dobj_append(struct dobj *o, unsigned int list, struct dobj *child);
int dobj_remove(struct dobj *o, unsigned int list, unsigned int i);
void dobj_clear_list(struct dobj *o, unsigned int list);
struct dobj *dobj_child(const struct dobj *o, unsigned int list, unsigned int i);
unsigned int dobj_nr(const struct dobj *o, unsigned int list);
bool dobj_is_default(const struct dobj *o, unsigned int attr);
bool dobj_val_equal(const struct dobj *a, const struct dobj *b, unsigned int attr);
int dobj_set_str(struct dobj *o, unsigned int attr, const char *s);
/* Parse a sysfs value into attribute @attr (used by the reader and by JSON strings). */
int dobj_parse(struct dobj *o, unsigned int attr, const char *text);
/* Format attribute @attr as it is written to sysfs. */
int dobj_format(const struct dobj *o, unsigned int attr, char *buf, size_t size);

static inline const struct attr_desc *dobj_attr(const struct dobj *o, unsigned int a)
{
	return &dctl_kinds[o->kind].attrs[a];
}

#define DOBJ(p) ((struct dobj *)(p))
#define CDOBJ(p) ((const struct dobj *)(p))

/* ---- sysfs I/O ---- */
/* Open a directory relative to @dirfd (AT_FDCWD for absolute paths). */
int dctl_open_dir(int dirfd, const char *path);
/* Pause before the @tries-th retry of a write or read that got EBUSY: 2 ms, then 20 ms,
 * then 120 ms (the 40 retries of a read wait about 3 s in all). */
void dctl_busy_wait(int tries);
/* Read a small file, strip one trailing newline. -errno. Retries briefly on EBUSY. */
/* open(2) of a regular file (O_CLOEXEC added); -errno, @not_regular for a FIFO, socket or
 * device (refused without blocking), -EISDIR for a directory. */
int dctl_open_regular(int dirfd, const char *file, int flags, int not_regular);
/* dctl_open_regular() saying -ENXIO for what is not a regular file. */
int dctl_open_file(int dirfd, const char *file, int flags);
int dctl_read_at(int dirfd, const char *file, char *buf, size_t size);
int dctl_write_at(int dirfd, const char *file, const char *value);
/* The numbered entries of <dirfd>/<dir> ("." for dirfd itself), sorted; -errno. */
int dctl_list_indexes(int dirfd, const char *dir, unsigned int **out, size_t *nr);
/* Read <sysroot>/<base>/<rel>, trailing newline stripped, recording a failure. */
int dctl_read_under(struct damonctl_ctx *ctx, enum damonctl_base base, const char *rel,
		    char *buf, size_t size);
/* Admin-relative helpers with error recording. */
int dctl_admin_open(struct damonctl_ctx *ctx, const char *rel);
int dctl_admin_write(struct damonctl_ctx *ctx, const char *rel, const char *value);

/* damonctl_tried_regions_read(), and with @ph the regions' probe hits (7.2), region by
 * region, @ph->nr_probes a region (0: the context has no probes); @ph->hits grows as
 * @regions does (record_sysfs.c). */
#define DCTL_MAX_PROBE_HITS 255
struct dctl_probe_hits {
	uint8_t *hits;
	size_t cap;
	unsigned int nr_probes;
};
int dctl_tried_regions_read(struct damonctl_ctx *ctx, unsigned int kdamond, unsigned int context,
			    unsigned int scheme, struct damonctl_rec_region **regions,
			    size_t *cap, uint64_t *total_bytes, bool *has_sz_filter_passed,
			    struct dctl_probe_hits *ph);

/* ---- features ---- */
/* What was seen: per feature, a file (or keyword) present and/or missing. */
struct dctl_evidence {
	bool present[DAMONCTL_NR_FEATURES];
	bool absent[DAMONCTL_NR_FEATURES];
	int vmin, vmax;			/* version floor/ceiling; vmax 0: none */
	bool ops_known;
	bool ops[3];			/* vaddr, fvaddr, paddr */
};

struct damonctl_features {
	struct dctl_evidence ev;	/* kept, so probes can add to it */
	int vmin, vmax;
	enum damonctl_support has[DAMONCTL_NR_FEATURES];
	bool ops_known;			/* avail_operations was read */
};
int dctl_feature_version(enum damonctl_feature feat);
bool dctl_feature_queued(enum damonctl_feature feat);

/* ---- units (units.c) ---- */
/* Forms other tools print; the public parsers use none of them. */
#define DCTL_U_GROUPING		(1u << 0)	/* "1,000": digits grouped by threes */
#define DCTL_U_TRUNCATE		(1u << 1)	/* fractions of a base unit are cut, not refused */
#define DCTL_U_MINMAX		(1u << 2)	/* "min" is 0, "max" is DAMONCTL_MAX everywhere */
#define DCTL_U_SI_BINARY	(1u << 3)	/* KB, MB, ... are KiB, MiB, ... */
#define DCTL_U_COMPOUND		(1u << 4)	/* times as sums: "1 m 30 s" */
/* What damo's _damo_fmt_str.text_to_*() read. */
#define DCTL_U_DAMO (DCTL_U_GROUPING | DCTL_U_TRUNCATE | DCTL_U_MINMAX | DCTL_U_SI_BINARY | \
		     DCTL_U_COMPOUND)
/* A time in us; a bare number counts @bare_mul us (1000 for files in ms). */
int dctl_parse_time(const char *s, unsigned int flags, uint64_t bare_mul, uint64_t *us);
int dctl_parse_size(const char *s, unsigned int flags, uint64_t *bytes);
/* A ratio in 1/@denom (10000: bp, 1000: permil) from "5%", "500bp" or a bare number counting
 * @bare_mul of them. */
int dctl_parse_ratio(const char *s, unsigned int flags, uint64_t denom, uint64_t bare_mul,
		     uint64_t *v);
/* A plain decimal count, "max". */
int dctl_parse_count(const char *s, unsigned int flags, uint64_t *v);

/* ---- small helpers ---- */
/* snprintf that reports truncation: false (and a truncated @buf) when @size was too small. */
bool dctl_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int dctl_kstrtou64(const char *s, uint64_t *v);	/* base 0, optional one '\n' */
/* What people and configurations write (units.c): damonc's one integer grammar, "0",
 * decimal without a leading 0 or 0x hexadecimal, nothing else around it (no octal, sign,
 * blank or underscore; dctl_parse_integer() takes a leading '-'); -EINVAL, -ERANGE. The
 * kstrto readers above read what the kernel writes. */
int dctl_parse_unsigned(const char *s, uint64_t *v);
/* damonctl_yaml_to_json(), *parsed saying whether @text was YAML at all (a refusal of what it
 * holds, such as an octal number, is not "not YAML"). */
int dctl_yaml_to_json(const char *text, size_t len, char **json, char *why, size_t size,
		      bool *parsed);
int dctl_parse_integer(const char *s, int64_t *v);
int dctl_kstrtos64(const char *s, int64_t *v);

/* ---- structures that grow, and symbol versions ---- */
/*
 * A structure the caller allocates has `size_t sz` first (libbpf's way): the library reads
 * and fills only what sz covers. DCTL_SZ_TO is the least a sz must cover: the structure up
 * to the end of @member, as the first release with sz had it.
 */
#define DCTL_SZ_TO(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
/* The library's @src (@full bytes, sz first) into the caller's @dst, as much of it as @dst's
 * sz says its build knows; @dst's sz is kept. */
static inline void dctl_fill_sized(void *dst, const void *src, size_t full)
{
	size_t sz = *(const size_t *)dst;

	memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
	       (sz < full ? sz : full) - sizeof(size_t));
}
/*
 * A function whose structures changed in release @node keeps its old version for binaries
 * built before (compat.c converts), and the new one becomes the default: the @internal
 * names are the library's own (local in libdamonctl.map), @api the exported one.
 */
#define DCTL_COMPAT_VERSION(internal, api, node) \
	__asm__(".symver " #internal "," #api "@" #node);
#define DCTL_DEFAULT_VERSION(internal, api, node) \
	__asm__(".symver " #internal "," #api "@@" #node);

#endif
