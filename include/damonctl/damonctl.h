/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdamonctl: model and drive the Linux kernel's DAMON sysfs interface
 * (/sys/kernel/mm/damon/admin) on every kernel from 6.1 on.
 *
 * Conventions
 * - Every function returning int returns 0 (or a documented non-negative value) on success
 *   and a negative errno on failure. Functions returning a pointer return NULL and set errno.
 *   Out-parameters are left untouched on failure. The library never prints; details of the
 *   last failed sysfs access (file, value, errno) are kept in the context, see
 *   damonctl_last_error() and damonctl_strerror().
 * - Time is in microseconds and sizes in bytes, as in the kernel ABI; the unit helpers at
 *   the end turn "5s", "2MiB" and "80%" into those and back.
 * - The model is a tree of opaque objects mirroring the sysfs tree: a tree holds kdamonds,
 *   a kdamond contexts, a context targets, schemes and access probes, a probe its filters,
 *   a scheme goals, filters, dests and tried regions. Attributes are addressed by per-object enums; new kernel files become
 *   new enum values, so the API grows without breaking callers.
 */
#ifndef DAMONCTL_DAMONCTL_H
#define DAMONCTL_DAMONCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAMONCTL_API __attribute__((visibility("default")))

/* ------------------------------------------------------------------------------------------
 * Context: owns the sysroot and the last error. Not thread-safe; use one per thread.
 */
struct damonctl_ctx;

/* The library's version, "MAJOR.MINOR.PATCH" (its symbols are versioned LIBDAMONCTL_M.m). */
DAMONCTL_API const char *damonctl_version(void);

/* The sysroot defaults to $DAMONC_SYSROOT when set, else "/". */
DAMONCTL_API int damonctl_new(struct damonctl_ctx **ctx);
DAMONCTL_API void damonctl_free(struct damonctl_ctx *ctx);
DAMONCTL_API int damonctl_set_sysroot(struct damonctl_ctx *ctx, const char *dir);
DAMONCTL_API const char *damonctl_get_sysroot(const struct damonctl_ctx *ctx);

/* Where a path lives; damonctl_path() builds "<sysroot>/<base>/<rel>". */
enum damonctl_base {
	DAMONCTL_BASE_ADMIN,	/* sys/kernel/mm/damon/admin */
	DAMONCTL_BASE_PROC,	/* proc */
	DAMONCTL_BASE_SYS,	/* sys */
	/* 3 was run/damonc, damonc's state: the library keeps files only where its caller
	 * says (a capture's or a journal's state_dir) */
	DAMONCTL_BASE_TRACEFS = 4,	/* sys/kernel/tracing */
};
/* Returns the length written, -ENAMETOOLONG if @size is too small. */
DAMONCTL_API int damonctl_path(const struct damonctl_ctx *ctx, enum damonctl_base base,
			       const char *rel, char *buf, size_t size);

enum damonctl_log_level { DAMONCTL_LOG_ERR, DAMONCTL_LOG_WARN, DAMONCTL_LOG_INFO,
			  DAMONCTL_LOG_DEBUG };
typedef void (*damonctl_log_fn)(void *data, enum damonctl_log_level level, const char *msg);
/* Receives e.g. every sysfs write at DEBUG level. */
DAMONCTL_API void damonctl_set_log(struct damonctl_ctx *ctx, damonctl_log_fn fn, void *data,
				   enum damonctl_log_level max_level);

/* The last failed sysfs or procfs access. */
struct damonctl_error {
	int err;		/* negative errno */
	bool write;		/* a write (else a read) */
	const char *path;	/* relative to the admin dir when under it, else absolute */
	const char *value;	/* the value written, "" for reads */
};
/* Returns false when no access has failed since the last damonctl_clear_error(). */
DAMONCTL_API bool damonctl_last_error(const struct damonctl_ctx *ctx, struct damonctl_error *e);
DAMONCTL_API void damonctl_clear_error(struct damonctl_ctx *ctx);
/*
 * One sentence a person can act on for @err, using the last failed access for context,
 * e.g. "the kernel refused to start kdamond 0 (kdamonds/0/state: on): a target pid does not
 * exist or regions overlap (Invalid argument)". Returns the length, as snprintf.
 */
DAMONCTL_API int damonctl_strerror(const struct damonctl_ctx *ctx, int err, char *buf,
				   size_t size);

/* ------------------------------------------------------------------------------------------
 * Versions and features, detected from the tree itself.
 */

/* A kernel version as major * 1000 + minor, e.g. 6012 for 6.12. */
#define DAMONCTL_VERSION(major, minor) ((major) * 1000 + (minor))

enum damonctl_feature {
	DAMONCTL_FEAT_SYSFS,			/* 5.18 */
	DAMONCTL_FEAT_OPS_VADDR,		/* avail_operations lists vaddr */
	DAMONCTL_FEAT_OPS_FVADDR,
	DAMONCTL_FEAT_OPS_PADDR,
	DAMONCTL_FEAT_TRIED_REGIONS,		/* 6.2 */
	DAMONCTL_FEAT_FILTERS,			/* 6.3 filters/, types anon and memcg */
	DAMONCTL_FEAT_TRIED_BYTES,		/* 6.6 tried_regions/total_bytes */
	DAMONCTL_FEAT_FILTER_ADDR_TARGET,	/* 6.6 filter types addr and target */
	DAMONCTL_FEAT_APPLY_INTERVAL,		/* 6.7 */
	DAMONCTL_FEAT_QUOTA_GOALS,		/* 6.8 */
	DAMONCTL_FEAT_GOAL_METRICS,		/* 6.9 target_metric, some_mem_psi_us */
	DAMONCTL_FEAT_EFFECTIVE_QUOTA,		/* 6.9 */
	DAMONCTL_FEAT_FILTER_YOUNG,		/* 6.10 */
	DAMONCTL_FEAT_TARGET_NID,		/* 6.11 target_nid, migrate_hot/cold */
	DAMONCTL_FEAT_FILTER_ALLOW,		/* 6.14 allow, sz_ops_filter_passed */
	DAMONCTL_FEAT_CORE_OPS_FILTERS,		/* 6.15 core_filters/ops_filters, more types */
	DAMONCTL_FEAT_INTERVALS_GOAL,		/* 6.15 */
	DAMONCTL_FEAT_GOAL_NID,			/* 6.16 node_mem_{used,free}_bp */
	DAMONCTL_FEAT_REFRESH_MS,		/* 6.17 */
	DAMONCTL_FEAT_DESTS,			/* 6.17 */
	DAMONCTL_FEAT_ADDR_UNIT,		/* 6.18 */
	DAMONCTL_FEAT_OBSOLETE_TARGET,		/* 6.19 */
	DAMONCTL_FEAT_GOAL_PATH,		/* 6.19 node_memcg_{used,free}_bp */
	DAMONCTL_FEAT_SNAPSHOTS,		/* 7.0 nr/max_nr_snapshots, active/inactive_mem_bp */
	DAMONCTL_FEAT_GOAL_TUNER,		/* 7.1 */
	DAMONCTL_FEAT_PAUSE,			/* 7.2 */
	DAMONCTL_FEAT_PROBES,			/* 7.2 */
	DAMONCTL_FEAT_FAIL_CHARGE,		/* 7.2 */
	DAMONCTL_FEAT_ACTION_COLLAPSE,		/* 7.2 node_eligible_mem_bp too */
	DAMONCTL_FEAT_HUGEPAGE_MEM_BP,		/* queued for 7.4: keyword only */
	DAMONCTL_FEAT_PROBE_WEIGHT,		/* queued for 7.3: monitoring_attrs/probes/N/weight */
	DAMONCTL_NR_FEATURES
};

enum damonctl_support { DAMONCTL_NO, DAMONCTL_YES, DAMONCTL_UNKNOWN };

struct damonctl_features;
struct damonctl_tree;

/*
 * Detect what this kernel's DAMON supports by reading the admin tree (which files exist in
 * whatever kdamond directories exist, avail_operations) and the DAMON modules' parameters.
 * Never writes. -ENOENT when the kernel has no DAMON sysfs interface. Features that only a
 * keyword write can reveal (hugepage_mem_bp), or that no existing directory shows, come out
 * DAMONCTL_UNKNOWN; damonctl_features_probe() resolves them.
 */
DAMONCTL_API int damonctl_features_detect(struct damonctl_ctx *ctx,
					  struct damonctl_features **out);
/* The same from a tree the caller has already read (saves reading it twice). */
DAMONCTL_API int damonctl_features_from_tree(struct damonctl_ctx *ctx,
					     const struct damonctl_tree *t,
					     struct damonctl_features **out);
/*
 * Resolve unknown features by writing to the staging files of kdamond @kdamond, which must
 * be off, have one context and one scheme (and a goal for hugepage_mem_bp): keywords are
 * written and the original values written back. damonc calls it on a kdamond it has just
 * created; nothing takes effect until `on`.
 */
DAMONCTL_API int damonctl_features_probe(struct damonctl_ctx *ctx,
					 struct damonctl_features *f, unsigned int kdamond);
/*
 * The documented fallback when no kdamond directory shows what the kernel has (e.g. a fresh
 * machine, nr_kdamonds 0): add a kdamond with one context, scheme, goal and filter, read and
 * probe it as above, and put the tree back exactly as it was. -EBUSY while any kdamond runs
 * (the kernel cannot add one then; but a running kdamond's directories answer already).
 */
DAMONCTL_API int damonctl_features_probe_fresh(struct damonctl_ctx *ctx,
					       struct damonctl_features *f);
/*
 * What @f knows for sure, as a malloc'd JSON object {"name": true|false, ...} (unknown
 * features left out), to keep what a probe found (a kernel's features do not change until it
 * boots again); NULL with errno ENOMEM. damonctl_features_learn() takes such a document into
 * @f for the features it leaves unknown (what the tree shows wins): how many it took, or
 * -EINVAL (not such a document).
 */
DAMONCTL_API char *damonctl_features_to_json(const struct damonctl_features *f);
DAMONCTL_API int damonctl_features_learn(struct damonctl_features *f, const char *json);
/* Whether some released feature is still unknown (then a probe would tell more). */
DAMONCTL_API bool damonctl_features_incomplete(const struct damonctl_features *f);
DAMONCTL_API void damonctl_features_free(struct damonctl_features *f);
DAMONCTL_API enum damonctl_support damonctl_features_has(const struct damonctl_features *f,
							 enum damonctl_feature feat);
/* Lowest and highest kernel versions consistent with what was seen; max is 0 if unbounded. */
DAMONCTL_API void damonctl_features_version_range(const struct damonctl_features *f,
						  int *min, int *max);
/* "6.18", "7.2 or later", "6.9 to 6.10": the kernel versions consistent with what was seen. */
DAMONCTL_API int damonctl_features_describe_version(const struct damonctl_features *f,
						     char *buf, size_t size);
/* "action_collapse" etc. and the version that brought it ("7.2", "queued for 7.4"). */
DAMONCTL_API const char *damonctl_feature_name(enum damonctl_feature feat);
DAMONCTL_API const char *damonctl_feature_since(enum damonctl_feature feat);
DAMONCTL_API const char *damonctl_feature_description(enum damonctl_feature feat);

/* ------------------------------------------------------------------------------------------
 * Keywords (operations, actions, filter types, goal metrics, tuners, watermark metrics).
 */
enum damonctl_kwset {
	DAMONCTL_KW_OPERATIONS, DAMONCTL_KW_ACTION, DAMONCTL_KW_FILTER_TYPE,
	DAMONCTL_KW_GOAL_METRIC, DAMONCTL_KW_GOAL_TUNER, DAMONCTL_KW_WMARK_METRIC,
	DAMONCTL_KW_STATE,
	DAMONCTL_KW_PROBE_FILTER_TYPE,	/* anon, memcg (7.2) */
};
/* The @i-th keyword of @set (kernel order), or NULL past the end. */
DAMONCTL_API const char *damonctl_keyword(enum damonctl_kwset set, unsigned int i);
/* The feature a keyword needs; -ENOENT if @name is not a keyword of @set. */
DAMONCTL_API int damonctl_keyword_feature(enum damonctl_kwset set, const char *name,
					  enum damonctl_feature *feat);
/* Whether this kernel accepts the keyword. */
DAMONCTL_API enum damonctl_support damonctl_features_has_keyword(
	const struct damonctl_features *f, enum damonctl_kwset set, const char *name);

/* ------------------------------------------------------------------------------------------
 * The model.
 */
struct damonctl_tree;
struct damonctl_kdamond;
struct damonctl_context;
struct damonctl_target;
struct damonctl_scheme;
struct damonctl_goal;
struct damonctl_filter;
struct damonctl_dest;
struct damonctl_tried_region;
struct damonctl_probe;
struct damonctl_probe_filter;

enum damonctl_kdamond_attr {
	DAMONCTL_KDAMOND_STATE,		/* str, read-only: "on" or "off" */
	DAMONCTL_KDAMOND_PID,		/* int, read-only: -1 when not running */
	DAMONCTL_KDAMOND_REFRESH_MS,
	DAMONCTL_KDAMOND_NR_ATTRS
};

enum damonctl_context_attr {
	DAMONCTL_CONTEXT_OPERATIONS,	/* str keyword */
	DAMONCTL_CONTEXT_AVAIL_OPERATIONS, /* str, read-only, newline-separated */
	DAMONCTL_CONTEXT_ADDR_UNIT,
	DAMONCTL_CONTEXT_PAUSE,		/* bool */
	DAMONCTL_CONTEXT_SAMPLE_US,
	DAMONCTL_CONTEXT_AGGR_US,
	DAMONCTL_CONTEXT_UPDATE_US,
	DAMONCTL_CONTEXT_GOAL_ACCESS_BP,
	DAMONCTL_CONTEXT_GOAL_AGGRS,
	DAMONCTL_CONTEXT_GOAL_MIN_SAMPLE_US,
	DAMONCTL_CONTEXT_GOAL_MAX_SAMPLE_US,
	DAMONCTL_CONTEXT_MIN_NR_REGIONS,
	DAMONCTL_CONTEXT_MAX_NR_REGIONS,
	DAMONCTL_CONTEXT_NR_ATTRS
};

enum damonctl_target_attr {
	DAMONCTL_TARGET_PID,		/* int */
	DAMONCTL_TARGET_OBSOLETE,	/* bool */
	DAMONCTL_TARGET_NR_ATTRS
};

enum damonctl_scheme_attr {
	DAMONCTL_SCHEME_ACTION,		/* str keyword */
	DAMONCTL_SCHEME_APPLY_INTERVAL_US,
	DAMONCTL_SCHEME_TARGET_NID,	/* int */
	DAMONCTL_SCHEME_SZ_MIN,
	DAMONCTL_SCHEME_SZ_MAX,
	DAMONCTL_SCHEME_NR_ACCESSES_MIN,	/* samples per aggregation interval */
	DAMONCTL_SCHEME_NR_ACCESSES_MAX,
	DAMONCTL_SCHEME_AGE_MIN,		/* aggregation intervals */
	DAMONCTL_SCHEME_AGE_MAX,
	DAMONCTL_SCHEME_QUOTA_MS,
	DAMONCTL_SCHEME_QUOTA_BYTES,
	DAMONCTL_SCHEME_QUOTA_RESET_INTERVAL_MS,
	DAMONCTL_SCHEME_QUOTA_EFFECTIVE_BYTES,	/* read-only */
	DAMONCTL_SCHEME_QUOTA_GOAL_TUNER,	/* str keyword */
	DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_NUM,
	DAMONCTL_SCHEME_QUOTA_FAIL_CHARGE_DENOM,
	DAMONCTL_SCHEME_WEIGHT_SZ_PERMIL,
	DAMONCTL_SCHEME_WEIGHT_NR_ACCESSES_PERMIL,
	DAMONCTL_SCHEME_WEIGHT_AGE_PERMIL,
	DAMONCTL_SCHEME_WMARKS_METRIC,		/* str keyword */
	DAMONCTL_SCHEME_WMARKS_INTERVAL_US,
	DAMONCTL_SCHEME_WMARKS_HIGH,
	DAMONCTL_SCHEME_WMARKS_MID,
	DAMONCTL_SCHEME_WMARKS_LOW,
	DAMONCTL_SCHEME_STAT_NR_TRIED,		/* read-only stats */
	DAMONCTL_SCHEME_STAT_SZ_TRIED,
	DAMONCTL_SCHEME_STAT_NR_APPLIED,
	DAMONCTL_SCHEME_STAT_SZ_APPLIED,
	DAMONCTL_SCHEME_STAT_SZ_OPS_FILTER_PASSED,
	DAMONCTL_SCHEME_STAT_QT_EXCEEDS,
	DAMONCTL_SCHEME_STAT_NR_SNAPSHOTS,
	DAMONCTL_SCHEME_MAX_NR_SNAPSHOTS,
	DAMONCTL_SCHEME_TRIED_TOTAL_BYTES,	/* read-only */
	DAMONCTL_SCHEME_NR_ATTRS
};

enum damonctl_goal_attr {
	DAMONCTL_GOAL_METRIC,		/* str keyword */
	DAMONCTL_GOAL_TARGET_VALUE,
	DAMONCTL_GOAL_CURRENT_VALUE,
	DAMONCTL_GOAL_NID,		/* int */
	DAMONCTL_GOAL_PATH,		/* str */
	DAMONCTL_GOAL_NR_ATTRS
};

enum damonctl_filter_attr {
	DAMONCTL_FILTER_TYPE,		/* str keyword */
	DAMONCTL_FILTER_MATCHING,	/* bool */
	DAMONCTL_FILTER_ALLOW,		/* bool */
	DAMONCTL_FILTER_MEMCG_PATH,	/* str */
	DAMONCTL_FILTER_ADDR_START,
	DAMONCTL_FILTER_ADDR_END,
	DAMONCTL_FILTER_TARGET_IDX,
	DAMONCTL_FILTER_MIN,
	DAMONCTL_FILTER_MAX,
	DAMONCTL_FILTER_NR_ATTRS
};

enum damonctl_dest_attr { DAMONCTL_DEST_ID, DAMONCTL_DEST_WEIGHT, DAMONCTL_DEST_NR_ATTRS };

enum damonctl_tried_region_attr {
	DAMONCTL_TRIED_START, DAMONCTL_TRIED_END, DAMONCTL_TRIED_NR_ACCESSES, DAMONCTL_TRIED_AGE,
	DAMONCTL_TRIED_SZ_FILTER_PASSED, DAMONCTL_TRIED_NR_ATTRS
};

/* An access probe (7.2, monitoring_attrs/probes/N): the kernel counts, per region, the
 * sampled accesses to the memory its filters pass (see the tried regions' probe hits). */
enum damonctl_probe_attr {
	DAMONCTL_PROBE_WEIGHT,		/* queued for 7.3 */
	DAMONCTL_PROBE_NR_ATTRS
};
/* The kernel takes at most this many probes per context (DAMON_MAX_PROBES). */
#define DAMONCTL_MAX_PROBES 4
/* What one context may hold, where the kernel's own limits stop being practical (a nr_*
 * file takes up to 524288 entries, one kmalloc'd array of pointers, but DAMON monitors at
 * most max_nr_regions regions per context, 1000 by default, each target keeping at least
 * one; every filter is tried on every region at each apply interval; and each of these is
 * a directory of files every command reads): damonctl_kdamond_check() refuses more. */
#define DAMONCTL_MAX_TARGETS 1024	/* targets of a context */
#define DAMONCTL_MAX_REGIONS 4096	/* initial regions, all its targets' together */
#define DAMONCTL_MAX_SCHEMES 256	/* schemes of a context */
#define DAMONCTL_MAX_FILTERS 256	/* DAMOS filters, all its schemes' lists together */
#define DAMONCTL_MAX_GOALS 256		/* quota goals, all its schemes' together */
/* The kdamonds a configuration may hold (damonctl_config_parse()): each is a kernel thread. */
#define DAMONCTL_MAX_KDAMONDS 64

/* A probe's filter: its own files, not a scheme filter's. */
enum damonctl_probe_filter_attr {
	DAMONCTL_PROBE_FILTER_TYPE,	/* str keyword of DAMONCTL_KW_PROBE_FILTER_TYPE */
	DAMONCTL_PROBE_FILTER_MATCHING,	/* bool */
	DAMONCTL_PROBE_FILTER_ALLOW,	/* bool */
	DAMONCTL_PROBE_FILTER_PATH,	/* str: the memcg path of a memcg filter */
	DAMONCTL_PROBE_FILTER_NR_ATTRS
};

/* Which directory of a scheme a filter lives in. */
enum damonctl_filter_dir {
	DAMONCTL_FILTERS_LEGACY,	/* filters/ (6.3) */
	DAMONCTL_FILTERS_CORE,		/* core_filters/ (6.15): addr, target */
	DAMONCTL_FILTERS_OPS,		/* ops_filters/ (6.15): the other types */
};

/*
 * Attribute access. Numbers (including bools, 0 or 1) go through _get()/_set(), signed ones
 * (pids, nids) through _get_int()/_set_int(), keywords and strings through _get_str()/
 * _set_str(). Using the wrong kind, or setting a read-only attribute, gives -EINVAL;
 * keywords are checked against every keyword any kernel knows (-EINVAL otherwise).
 * damonctl_*_has() tells whether the attribute was present when the object was read from
 * a kernel (objects built by the caller have every attribute).
 */
#define DAMONCTL_DECLARE_ATTRS(obj)								\
	DAMONCTL_API uint64_t damonctl_##obj##_get(const struct damonctl_##obj *o,		\
						 enum damonctl_##obj##_attr a);			\
	DAMONCTL_API int64_t damonctl_##obj##_get_int(const struct damonctl_##obj *o,	\
						    enum damonctl_##obj##_attr a);		\
	DAMONCTL_API const char *damonctl_##obj##_get_str(const struct damonctl_##obj *o,	\
							enum damonctl_##obj##_attr a);		\
	DAMONCTL_API int damonctl_##obj##_set(struct damonctl_##obj *o,			\
					    enum damonctl_##obj##_attr a, uint64_t v);	\
	DAMONCTL_API int damonctl_##obj##_set_int(struct damonctl_##obj *o,		\
						enum damonctl_##obj##_attr a, int64_t v);	\
	DAMONCTL_API int damonctl_##obj##_set_str(struct damonctl_##obj *o,		\
						enum damonctl_##obj##_attr a, const char *v);	\
	DAMONCTL_API bool damonctl_##obj##_has(const struct damonctl_##obj *o,		\
					     enum damonctl_##obj##_attr a);			\
	DAMONCTL_API const char *damonctl_##obj##_attr_name(enum damonctl_##obj##_attr a)

DAMONCTL_DECLARE_ATTRS(kdamond);
DAMONCTL_DECLARE_ATTRS(context);
DAMONCTL_DECLARE_ATTRS(target);
DAMONCTL_DECLARE_ATTRS(scheme);
DAMONCTL_DECLARE_ATTRS(goal);
DAMONCTL_DECLARE_ATTRS(filter);
DAMONCTL_DECLARE_ATTRS(dest);
DAMONCTL_DECLARE_ATTRS(tried_region);
DAMONCTL_DECLARE_ATTRS(probe);
DAMONCTL_DECLARE_ATTRS(probe_filter);

/*
 * Filters and goals given as text, as damonc's --filter, --probe and --goal take them:
 * "allow|reject:[!]TYPE[:ARG]" (ARG: memcg's cgroup path, addr's START-END, hugepage_size's
 * MIN-MAX, target's index) and "METRIC=VALUE[,nid=N][,path=P]" (VALUE in the metric's unit:
 * some_mem_psi_us a time, *_bp basis points, the others plain numbers). Set @sz
 * (the _INIT macros); fields may be added at the end.
 */
struct damonctl_filter_spec {
	size_t sz;
	bool allow, matching;
	char type[24];
	char memcg[256];		/* memcg: the cgroup path */
	uint64_t lo, hi;		/* addr: [lo, hi); hugepage_size: [lo, hi] bytes */
	unsigned int target_idx;	/* target */
};
#define DAMONCTL_FILTER_SPEC_INIT { .sz = sizeof(struct damonctl_filter_spec) }
struct damonctl_goal_spec {
	size_t sz;
	char metric[32];
	uint64_t target;
	bool has_nid;
	int nid;
	char path[256];			/* "": none given */
};
#define DAMONCTL_GOAL_SPEC_INIT { .sz = sizeof(struct damonctl_goal_spec) }
/* The part of a text that a parser refused. */
enum damonctl_parse_part {
	DAMONCTL_PARSE_FORM,		/* the text is not of the syntax's form */
	DAMONCTL_PARSE_KEYWORD,		/* a filter type or goal metric not of its set (-ENOENT) */
	DAMONCTL_PARSE_VALUE,		/* a goal's value, a target filter's index */
	DAMONCTL_PARSE_NID,		/* a goal's nid=N */
	DAMONCTL_PARSE_OPTION,		/* a goal's part that is neither nid= nor path= */
	DAMONCTL_PARSE_ARG,		/* a type's argument missing (-ENODATA), or one given to a
					 * type that takes none (-EINVAL) */
	DAMONCTL_PARSE_RANGE,		/* START-END without '-' (-EINVAL), START above END (-EDOM) */
	DAMONCTL_PARSE_START,		/* START (MIN) */
	DAMONCTL_PARSE_END,		/* END (MAX) */
};
/* Set @sz (DAMONCTL_PARSE_ERROR_INIT). @err: -EINVAL (not of its kind), -ERANGE (too large
 * for its unit), -EDOM (beyond its bound), -ENOENT, -ENODATA; @text: the part as given. */
struct damonctl_parse_error {
	size_t sz;
	enum damonctl_parse_part part;
	int err;
	char text[256];
};
#define DAMONCTL_PARSE_ERROR_INIT { .sz = sizeof(struct damonctl_parse_error) }
/* A filter of the types of @set (DAMONCTL_KW_FILTER_TYPE or _PROBE_FILTER_TYPE) into @f;
 * on failure the negative errno, and @e (may be NULL) says where. */
DAMONCTL_API int damonctl_filter_spec_parse(const char *text, enum damonctl_kwset set,
					    struct damonctl_filter_spec *f,
					    struct damonctl_parse_error *e);
DAMONCTL_API int damonctl_goal_spec_parse(const char *text, struct damonctl_goal_spec *g,
					  struct damonctl_parse_error *e);
/* Where a filter of @type goes on this kernel: filters/ before 6.15, else core_filters/
 * for addr and target, ops_filters/ for the others. */
DAMONCTL_API enum damonctl_filter_dir damonctl_filter_dir_for(const char *type,
							      const struct damonctl_features *f);
/* The spec's attributes set on a filter, a probe's filter, a goal (the first error). */
DAMONCTL_API int damonctl_filter_set_spec(struct damonctl_filter *flt,
					  const struct damonctl_filter_spec *f);
DAMONCTL_API int damonctl_probe_filter_set_spec(struct damonctl_probe_filter *pf,
						const struct damonctl_filter_spec *f);
DAMONCTL_API int damonctl_goal_set_spec(struct damonctl_goal *goal,
					const struct damonctl_goal_spec *g);

/* Trees. */
DAMONCTL_API struct damonctl_tree *damonctl_tree_new(void);
DAMONCTL_API void damonctl_tree_free(struct damonctl_tree *t);
DAMONCTL_API struct damonctl_tree *damonctl_tree_dup(const struct damonctl_tree *t);
DAMONCTL_API unsigned int damonctl_tree_nr_kdamonds(const struct damonctl_tree *t);
DAMONCTL_API struct damonctl_kdamond *damonctl_tree_kdamond(const struct damonctl_tree *t,
							    unsigned int i);
DAMONCTL_API struct damonctl_kdamond *damonctl_tree_add_kdamond(struct damonctl_tree *t);
DAMONCTL_API int damonctl_tree_remove_kdamond(struct damonctl_tree *t, unsigned int i);
/* Append a deep copy of @k (from any tree). */
DAMONCTL_API struct damonctl_kdamond *damonctl_tree_add_kdamond_copy(
	struct damonctl_tree *t, const struct damonctl_kdamond *k);
/* Replace the @i-th kdamond by a new default one, which is returned. */
DAMONCTL_API struct damonctl_kdamond *damonctl_tree_replace_kdamond(struct damonctl_tree *t,
								    unsigned int i);

/* Children. _add_ returns a new default object (NULL with errno ENOMEM on failure); the
 * index of an object is its position in its parent's list. */
DAMONCTL_API unsigned int damonctl_kdamond_index(const struct damonctl_kdamond *k);
DAMONCTL_API unsigned int damonctl_kdamond_nr_contexts(const struct damonctl_kdamond *k);
DAMONCTL_API struct damonctl_context *damonctl_kdamond_context(const struct damonctl_kdamond *k,
							       unsigned int i);
DAMONCTL_API struct damonctl_context *damonctl_kdamond_add_context(struct damonctl_kdamond *k);

DAMONCTL_API unsigned int damonctl_context_nr_targets(const struct damonctl_context *c);
DAMONCTL_API struct damonctl_target *damonctl_context_target(const struct damonctl_context *c,
							     unsigned int i);
DAMONCTL_API struct damonctl_target *damonctl_context_add_target(struct damonctl_context *c);
DAMONCTL_API int damonctl_context_remove_target(struct damonctl_context *c, unsigned int i);
DAMONCTL_API unsigned int damonctl_context_nr_schemes(const struct damonctl_context *c);
DAMONCTL_API struct damonctl_scheme *damonctl_context_scheme(const struct damonctl_context *c,
							     unsigned int i);
DAMONCTL_API struct damonctl_scheme *damonctl_context_add_scheme(struct damonctl_context *c);
DAMONCTL_API int damonctl_context_remove_scheme(struct damonctl_context *c, unsigned int i);
DAMONCTL_API unsigned int damonctl_context_nr_probes(const struct damonctl_context *c);
DAMONCTL_API struct damonctl_probe *damonctl_context_probe(const struct damonctl_context *c,
							   unsigned int i);
DAMONCTL_API struct damonctl_probe *damonctl_context_add_probe(struct damonctl_context *c);
DAMONCTL_API int damonctl_context_remove_probe(struct damonctl_context *c, unsigned int i);
DAMONCTL_API unsigned int damonctl_probe_nr_filters(const struct damonctl_probe *p);
DAMONCTL_API struct damonctl_probe_filter *damonctl_probe_filter(const struct damonctl_probe *p,
								 unsigned int i);
DAMONCTL_API struct damonctl_probe_filter *damonctl_probe_add_filter(struct damonctl_probe *p);
DAMONCTL_API int damonctl_probe_remove_filter(struct damonctl_probe *p, unsigned int i);
/* Append a deep copy of scheme @s (goals, filters and dests included). */
DAMONCTL_API struct damonctl_scheme *damonctl_context_add_scheme_copy(
	struct damonctl_context *c, const struct damonctl_scheme *s);

/* Monitoring regions of a target, [start, end). */
DAMONCTL_API unsigned int damonctl_target_nr_regions(const struct damonctl_target *t);
DAMONCTL_API int damonctl_target_region(const struct damonctl_target *t, unsigned int i,
					uint64_t *start, uint64_t *end);
DAMONCTL_API int damonctl_target_add_region(struct damonctl_target *t, uint64_t start,
					    uint64_t end);
DAMONCTL_API void damonctl_target_clear_regions(struct damonctl_target *t);

DAMONCTL_API unsigned int damonctl_scheme_nr_goals(const struct damonctl_scheme *s);
DAMONCTL_API struct damonctl_goal *damonctl_scheme_goal(const struct damonctl_scheme *s,
							unsigned int i);
DAMONCTL_API struct damonctl_goal *damonctl_scheme_add_goal(struct damonctl_scheme *s);
DAMONCTL_API int damonctl_scheme_remove_goal(struct damonctl_scheme *s, unsigned int i);
DAMONCTL_API unsigned int damonctl_scheme_nr_filters(const struct damonctl_scheme *s,
						     enum damonctl_filter_dir dir);
DAMONCTL_API struct damonctl_filter *damonctl_scheme_filter(const struct damonctl_scheme *s,
							    enum damonctl_filter_dir dir,
							    unsigned int i);
DAMONCTL_API struct damonctl_filter *damonctl_scheme_add_filter(struct damonctl_scheme *s,
								enum damonctl_filter_dir dir);
DAMONCTL_API int damonctl_scheme_remove_filter(struct damonctl_scheme *s,
					       enum damonctl_filter_dir dir, unsigned int i);
DAMONCTL_API unsigned int damonctl_scheme_nr_dests(const struct damonctl_scheme *s);
DAMONCTL_API struct damonctl_dest *damonctl_scheme_dest(const struct damonctl_scheme *s,
							unsigned int i);
DAMONCTL_API struct damonctl_dest *damonctl_scheme_add_dest(struct damonctl_scheme *s);
DAMONCTL_API int damonctl_scheme_remove_dest(struct damonctl_scheme *s, unsigned int i);
DAMONCTL_API unsigned int damonctl_scheme_nr_tried_regions(const struct damonctl_scheme *s);
DAMONCTL_API struct damonctl_tried_region *damonctl_scheme_tried_region(
	const struct damonctl_scheme *s, unsigned int i);
/* A tried region's hits of each probe of its context (7.2: probes/N/hits), in probe order;
 * 0 past the last. */
DAMONCTL_API unsigned int damonctl_tried_region_nr_probes(const struct damonctl_tried_region *r);
DAMONCTL_API uint64_t damonctl_tried_region_probe_hits(const struct damonctl_tried_region *r,
						       unsigned int i);

#define damonctl_for_each_kdamond(t, k, i)						\
	for ((i) = 0; (i) < damonctl_tree_nr_kdamonds(t) &&				\
		      ((k) = damonctl_tree_kdamond(t, i)); (i)++)
#define damonctl_for_each_context(k, c, i)						\
	for ((i) = 0; (i) < damonctl_kdamond_nr_contexts(k) &&				\
		      ((c) = damonctl_kdamond_context(k, i)); (i)++)
#define damonctl_for_each_target(c, t, i)						\
	for ((i) = 0; (i) < damonctl_context_nr_targets(c) &&				\
		      ((t) = damonctl_context_target(c, i)); (i)++)
#define damonctl_for_each_scheme(c, s, i)						\
	for ((i) = 0; (i) < damonctl_context_nr_schemes(c) &&				\
		      ((s) = damonctl_context_scheme(c, i)); (i)++)
#define damonctl_for_each_goal(s, g, i)							\
	for ((i) = 0; (i) < damonctl_scheme_nr_goals(s) &&				\
		      ((g) = damonctl_scheme_goal(s, i)); (i)++)
#define damonctl_for_each_filter(s, dir, f, i)						\
	for ((i) = 0; (i) < damonctl_scheme_nr_filters(s, dir) &&			\
		      ((f) = damonctl_scheme_filter(s, dir, i)); (i)++)
#define damonctl_for_each_probe(c, p, i)						\
	for ((i) = 0; (i) < damonctl_context_nr_probes(c) &&				\
		      ((p) = damonctl_context_probe(c, i)); (i)++)
#define damonctl_for_each_probe_filter(p, f, i)						\
	for ((i) = 0; (i) < damonctl_probe_nr_filters(p) &&				\
		      ((f) = damonctl_probe_filter(p, i)); (i)++)
#define damonctl_for_each_tried_region(s, r, i)						\
	for ((i) = 0; (i) < damonctl_scheme_nr_tried_regions(s) &&			\
		      ((r) = damonctl_scheme_tried_region(s, i)); (i)++)

/* Parents, for callers that hold only a child. */
DAMONCTL_API struct damonctl_kdamond *damonctl_context_kdamond(const struct damonctl_context *c);
DAMONCTL_API struct damonctl_context *damonctl_scheme_context(const struct damonctl_scheme *s);
DAMONCTL_API unsigned int damonctl_context_index(const struct damonctl_context *c);
DAMONCTL_API unsigned int damonctl_scheme_index(const struct damonctl_scheme *s);

/* ------------------------------------------------------------------------------------------
 * Reading and writing the kernel's tree.
 */

/* Load the whole admin tree. Files this kernel lacks are left out (see _has()). */
DAMONCTL_API int damonctl_tree_read(struct damonctl_ctx *ctx, struct damonctl_tree **out);
/* What damonctl_tree_read_flags() may leave out. */
enum damonctl_read_flag {
	/* the schemes' tried regions (thousands of directories where a scheme matches much;
	 * total_bytes is still read): for callers that look at settings and stats only */
	DAMONCTL_READ_NO_TRIED_REGIONS = 1u << 0,
};
/* damonctl_tree_read(), leaving out what @flags (DAMONCTL_READ_*) say; -EINVAL for an
 * unknown flag. */
DAMONCTL_API int damonctl_tree_read_flags(struct damonctl_ctx *ctx, unsigned int flags,
					  struct damonctl_tree **out);
/* Load one kdamond only (e.g. after a command refreshed its files). */
DAMONCTL_API int damonctl_kdamond_read(struct damonctl_ctx *ctx, unsigned int index,
				       struct damonctl_kdamond **out);
DAMONCTL_API void damonctl_kdamond_free(struct damonctl_kdamond *k);
/* A deep copy of @k with its index, detached like one damonctl_kdamond_read() gives (to
 * change and commit against the original); NULL with errno ENOMEM. */
DAMONCTL_API struct damonctl_kdamond *damonctl_kdamond_dup(const struct damonctl_kdamond *k);

/*
 * Check that every non-default value of @t can be expressed on a kernel with @f. Returns 0,
 * or -EOPNOTSUPP (or -EINVAL for a value the kernel would refuse at `on`) with a sentence
 * naming the object, the value and the kernel version that brought it in @why.
 */
DAMONCTL_API int damonctl_tree_check(const struct damonctl_tree *t,
				     const struct damonctl_features *f, char *why, size_t size);
/* The same for one kdamond (e.g. the one about to be started). */
DAMONCTL_API int damonctl_kdamond_check(const struct damonctl_kdamond *k,
					const struct damonctl_features *f, char *why, size_t size);
/*
 * What the kernel would refuse at `on` or `commit` that depends on this machine rather than
 * on the model, checked before writing: a vaddr/fvaddr target process that does not exist,
 * has exited or is a kernel thread (no user memory to monitor); a memcg path (filter, probe
 * filter or goal) that does not start with '/' or names no cgroup in <sysroot>/sys/fs/cgroup
 * (looked up only where that directory is a cgroup hierarchy). 0, or -ESRCH / -ENOENT / -EINVAL with a
 * sentence naming the target or filter and the value in @why.
 */
DAMONCTL_API int damonctl_kdamond_check_system(struct damonctl_ctx *ctx,
					       const struct damonctl_kdamond *k, char *why,
					       size_t size);
/* Whether @k needs a feature @f does not know about (then a probe would tell). */
DAMONCTL_API bool damonctl_kdamond_uses_unknown(const struct damonctl_kdamond *k,
						const struct damonctl_features *f);

/*
 * Make the staged sysfs files equal @want, given that they hold @have now (as read by
 * damonctl_tree_read()). Only differences are written; a list whose length differs is
 * recreated (the kernel recreates every child on any nr_* write). Directories the kernel
 * lacks must only hold default values in @want. Nothing is started or committed. On
 * failure, damonctl_last_error() names the file and value.
 */
DAMONCTL_API int damonctl_tree_stage(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				     const struct damonctl_tree *have);
/* The same for one kdamond, @have being its current state (NULL: freshly created). */
DAMONCTL_API int damonctl_kdamond_stage(struct damonctl_ctx *ctx,
					const struct damonctl_kdamond *want,
					const struct damonctl_kdamond *have);
/* Put the tree back as @saved (read earlier): undoes a failed start. */
DAMONCTL_API int damonctl_tree_restore(struct damonctl_ctx *ctx,
				       const struct damonctl_tree *saved);

/*
 * Staging, planned without I/O: the ordered writes damonctl_*_stage() would make, which can
 * be shown (a dry run) and then applied. Paths are relative to the admin directory.
 */
struct damonctl_plan;
DAMONCTL_API int damonctl_tree_plan(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				    const struct damonctl_tree *have, struct damonctl_plan **out);
DAMONCTL_API int damonctl_kdamond_plan(struct damonctl_ctx *ctx,
				       const struct damonctl_kdamond *want,
				       const struct damonctl_kdamond *have,
				       struct damonctl_plan **out);
DAMONCTL_API size_t damonctl_plan_nr_writes(const struct damonctl_plan *p);
DAMONCTL_API int damonctl_plan_write(const struct damonctl_plan *p, size_t i,
				     const char **path, const char **value);
DAMONCTL_API int damonctl_plan_apply(struct damonctl_ctx *ctx, const struct damonctl_plan *p);
DAMONCTL_API void damonctl_plan_free(struct damonctl_plan *p);

/*
 * Call @fn for every file whose value differs between @a and @b (path relative to the
 * kdamond directory; old or new NULL when absent on that side). Results (stats, state) are
 * skipped unless DAMONCTL_DIFF_RESULTS. A non-zero return from @fn stops the walk.
 */
#define DAMONCTL_DIFF_RESULTS (1u << 0)
typedef int (*damonctl_diff_fn)(void *data, const char *path, const char *old_value,
				const char *new_value);
DAMONCTL_API int damonctl_kdamond_diff(const struct damonctl_kdamond *a,
				       const struct damonctl_kdamond *b, unsigned int flags,
				       damonctl_diff_fn fn, void *data);

enum damonctl_cmd {
	DAMONCTL_CMD_ON, DAMONCTL_CMD_OFF, DAMONCTL_CMD_COMMIT,
	DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS, DAMONCTL_CMD_UPDATE_SCHEMES_STATS,
	DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS, DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_BYTES,
	DAMONCTL_CMD_CLEAR_SCHEMES_TRIED_REGIONS, DAMONCTL_CMD_UPDATE_SCHEMES_EFFECTIVE_QUOTAS,
	DAMONCTL_CMD_UPDATE_TUNED_INTERVALS,
};
DAMONCTL_API const char *damonctl_cmd_name(enum damonctl_cmd cmd);
/* Write a command to kdamonds/<index>/state. A command other than `on` that finds DAMON's
 * sysfs lock busy (-EBUSY: another writer, e.g. a tried-regions update) is tried again for
 * up to a second. */
DAMONCTL_API int damonctl_kdamond_cmd(struct damonctl_ctx *ctx, unsigned int index,
				      enum damonctl_cmd cmd);
/* Fresh scheme stats of a running kdamond: update_schemes_stats, then, after it and where
 * the kernel has effective quotas (6.9; @f says so, or with @f NULL they are tried and a
 * refusal ignored), update_schemes_effective_quotas. The first error (-EINVAL: it is off). */
DAMONCTL_API int damonctl_kdamond_refresh_stats(struct damonctl_ctx *ctx, unsigned int index,
					       const struct damonctl_features *f);
/* Read kdamonds/<index>/state and pid: 1 when running, 0 when not, or -errno. */
DAMONCTL_API int damonctl_kdamond_is_running(struct damonctl_ctx *ctx, unsigned int index,
					     int *pid);
/*
 * Who a kdamond is, beyond its index, which another program may have given to a kdamond of
 * its own meanwhile: a running one is its kernel thread (pid and start time); a stopped one
 * its directory, which the kernel makes anew on every nr_kdamonds write (a new inode), so a
 * program that wrote nr_kdamonds itself takes its kdamonds' identities again afterwards.
 */
struct damonctl_kdamond_id {
	size_t sz;			/* sizeof(struct damonctl_kdamond_id), set by the caller */
	int pid;			/* the kernel thread, -1 when off */
	unsigned long long pid_start;	/* its start time (damonctl_proc_start_time), 0: off or
					 * unknown */
	uint64_t dir_ino;		/* kdamonds/<index>'s inode; 0 unknown (a staging
					 * context) */
};
/* Kdamond @index's identity into @id (fields up to id->sz): 0, -ENOENT (no such kdamond),
 * -EINVAL (a bad sz), or a read's -errno. */
DAMONCTL_API int damonctl_kdamond_identify(struct damonctl_ctx *ctx, unsigned int index,
					   struct damonctl_kdamond_id *id);
/* Whether @now (identified later) is the kdamond @was was: the same thread while it runs,
 * the same directory while it is off (a kdamond started or stopped in between counts as
 * the same only by a directory both have). */
DAMONCTL_API bool damonctl_kdamond_id_same(const struct damonctl_kdamond_id *was,
					   const struct damonctl_kdamond_id *now);
/* Write one value to a file relative to the admin dir (for what the model does not cover). */
DAMONCTL_API int damonctl_write(struct damonctl_ctx *ctx, const char *rel, const char *value);
/* Read one file relative to the admin dir, trailing newline stripped. */
DAMONCTL_API int damonctl_read(struct damonctl_ctx *ctx, const char *rel, char *buf,
			       size_t size);

/* ------------------------------------------------------------------------------------------
 * Transactions: each makes the kernel run a model, or leaves the tree as it was.
 *
 * A transaction undoes itself when a write fails, but a process killed in the middle of one
 * cannot. So each (damonctl_tree_start, damonctl_kdamond_commit,
 * damonctl_features_probe_fresh) first hands a hook its undo record, a JSON document to keep
 * where it outlives the process, before its first write; again when it passes a point that
 * changes how it is undone; and says when it is over. A record left by a process that died
 * is carried out with damonctl_txn_undo(). The record is an object with, among others,
 * "kind" ("start" or "commit") and "kdamonds" (the indexes it writes to), which callers may
 * read to tell people what a leftover is.
 */
enum damonctl_txn_event {
	DAMONCTL_TXN_BEGIN,	/* before the first write: keep @record */
	DAMONCTL_TXN_APPLY,	/* before `on` or `commit`: keep @record (from here, a commit is
				 * finished rather than undone) */
	DAMONCTL_TXN_UNDO,	/* the transaction failed and is being undone: keep @record */
	DAMONCTL_TXN_DONE,	/* over, done or undone: drop the record (@record is NULL) */
	DAMONCTL_TXN_STUCK,	/* over, but undoing it failed: keep the record for later */
};
/* A negative return from BEGIN fails the transaction before any write (a record that cannot
 * be kept); from the other events it is ignored. */
typedef int (*damonctl_txn_fn)(void *data, enum damonctl_txn_event event, const char *record);
/* Set (or, with NULL, remove) the hook of @ctx. */
DAMONCTL_API void damonctl_set_txn_hook(struct damonctl_ctx *ctx, damonctl_txn_fn fn,
					void *data);
/*
 * Carry out @record, left by a process killed in its transaction: a start is rolled back (the
 * kdamonds it added are turned off and removed, those it reused are staged back, the others'
 * configuration is restaged as it was); a commit is staged back, or, when it was killed at
 * its `commit`, committed again. When the tree shows that someone rewrote it since, nothing is
 * done. 0 (the record can go, @what says what was done, or is empty), -EBUSY (a kdamond runs
 * that makes the undo impossible now: keep the record), -EINVAL (not a record), or a
 * sysfs error.
 */
DAMONCTL_API int damonctl_txn_undo(struct damonctl_ctx *ctx, const char *record, char *what,
				   size_t size);

/*
 * A journal is a transaction hook that keeps each undo record in a file of a state directory
 * the caller names, <state_dir>/journal-<pid>.json (written aside, then renamed), from
 * before the transaction's first write until it is over; a record whose undo failed
 * (DAMONCTL_TXN_STUCK) is set aside in journal-<pid>-<n>.json. The journals of processes
 * that died are read back with damonctl_leftovers_read() and carried out with
 * damonctl_leftover_undo(). See damonctl_journal_open(3).
 */
struct damonctl_journal_opts {
	size_t sz;		/* sizeof(struct damonctl_journal_opts) */
	const char *state_dir;	/* where the journal goes (made when missing); required */
	const char *command;	/* what the process is, kept for whoever finds the journal */
};
#define DAMONCTL_JOURNAL_OPTS_INIT { .sz = sizeof(struct damonctl_journal_opts) }
struct damonctl_journal;
/* Open a journal and install it as @ctx's transaction hook (replacing any). The options are
 * copied. 0, or -EINVAL (no state_dir, bad sz), -ENOMEM. A record that cannot be written
 * fails its transaction before any write, the file named by damonctl_last_error(). */
DAMONCTL_API int damonctl_journal_open(struct damonctl_ctx *ctx,
				       const struct damonctl_journal_opts *opts,
				       struct damonctl_journal **out);
/* Keep the journal past the end of the transactions until damonctl_journal_release(): a
 * program that records what it started elsewhere holds it until then, so that a kill in
 * between rolls the start back. */
DAMONCTL_API void damonctl_journal_hold(struct damonctl_journal *j);
/* Keep @json (one JSON value, copied) under @key in the journal from its next write on, for
 * whoever carries it out (damonctl_leftover_kept()). 0, -EINVAL (not JSON, a reserved key),
 * -ENOMEM. */
DAMONCTL_API int damonctl_journal_keep(struct damonctl_journal *j, const char *key,
				       const char *json);
/* End a hold: the kept values are dropped and the file removed, unless a transaction is in
 * progress. */
DAMONCTL_API void damonctl_journal_release(struct damonctl_journal *j);
/* Remove the hook from its context and free @j (NULL allowed); the file stays if held or a
 * transaction is in progress. */
DAMONCTL_API void damonctl_journal_close(struct damonctl_journal *j);

/* The journals in a state directory that no live process owns: left by processes that died
 * in a transaction (or were set aside as stuck). */
enum damonctl_leftover_state {
	DAMONCTL_LEFTOVER_RECORD,	/* an undo record to carry out */
	DAMONCTL_LEFTOVER_UNREADABLE,	/* the file does not parse */
	DAMONCTL_LEFTOVER_NO_RECORD,	/* it parses but holds no undo record */
};
struct damonctl_leftovers;
/* Read them (a missing directory has none). 0 or -ENOMEM. */
DAMONCTL_API int damonctl_leftovers_read(const char *state_dir, struct damonctl_leftovers **out);
DAMONCTL_API void damonctl_leftovers_free(struct damonctl_leftovers *l);
DAMONCTL_API unsigned int damonctl_leftovers_count(const struct damonctl_leftovers *l);
DAMONCTL_API enum damonctl_leftover_state
damonctl_leftover_state(const struct damonctl_leftovers *l, unsigned int i);
/* The journal's file. */
DAMONCTL_API const char *damonctl_leftover_path(const struct damonctl_leftovers *l,
						unsigned int i);
/* What its process was (the journal's command, "?" when none) and its pid. */
DAMONCTL_API const char *damonctl_leftover_command(const struct damonctl_leftovers *l,
						   unsigned int i);
DAMONCTL_API int damonctl_leftover_pid(const struct damonctl_leftovers *l, unsigned int i);
/* The record's "kind" ("start" or "commit"; "" when unknown) and its kdamonds. */
DAMONCTL_API const char *damonctl_leftover_kind(const struct damonctl_leftovers *l,
						unsigned int i);
DAMONCTL_API unsigned int damonctl_leftover_nr_kdamonds(const struct damonctl_leftovers *l,
							unsigned int i);
DAMONCTL_API unsigned int damonctl_leftover_kdamond(const struct damonctl_leftovers *l,
						    unsigned int i, unsigned int k);
/* The value damonctl_journal_keep() kept under @key, as JSON text, or NULL. */
DAMONCTL_API const char *damonctl_leftover_kept(const struct damonctl_leftovers *l,
						unsigned int i, const char *key);
/* Carry out its record (damonctl_txn_undo(): 0, -EBUSY, -EINVAL, a sysfs error). The
 * file is not removed: damonctl_leftover_remove() does that once the caller is done. */
DAMONCTL_API int damonctl_leftover_undo(struct damonctl_ctx *ctx,
					const struct damonctl_leftovers *l, unsigned int i,
					char *what, size_t size);
/* Remove its file: 0 or -errno. */
DAMONCTL_API int damonctl_leftover_remove(const struct damonctl_leftovers *l, unsigned int i);

/*
 * Start kdamonds @idx[0..@nr) of @want, a copy of @have (the tree as read) with new or
 * reused kdamonds: stage the differences and turn them on. On any failure the ones this call
 * started are turned off and the tree is put back as @have; damonctl_last_error() names the
 * write that failed first.
 */
DAMONCTL_API int damonctl_tree_start(struct damonctl_ctx *ctx, const struct damonctl_tree *want,
				     const struct damonctl_tree *have, const unsigned int *idx,
				     unsigned int nr);

/*
 * The start transaction, from the tree as it is to kdamonds running, in one call that every
 * program starting kdamonds makes the same way (damonctl_start(3)): read the tree and what it
 * shows of the kernel's features; build the kdamonds; check them (bad input, missing
 * features, the processes and cgroups they name); refuse while a kdamond runs (the kernel
 * cannot add one then); probe on a temporary kdamond what no directory shows, and build again
 * with what it found; plan the user-space fallbacks; plan the writes; stage and turn on, and
 * on any failure put the tree back as it was. A dry run goes the same way up to the start's
 * own writes, so that its outcome and its list of writes (the probe's included, which it
 * makes and undoes) are the start's.
 */
struct damonctl_start;
struct damonctl_fallbacks;
#define DAMONCTL_START_DRY_RUN		(1u << 0)	/* stop before the start's own writes */
#define DAMONCTL_START_NO_FALLBACK	(1u << 1)	/* no user-space fallback: refuse */
#define DAMONCTL_START_SCOPE_PID	(1u << 2)	/* emulated hugepage_mem_bp over the targets */
struct damonctl_start_opts {
	size_t sz;		/* sizeof(struct damonctl_start_opts) */
	unsigned int flags;	/* DAMONCTL_START_* */
	/* the kdamonds to start as they are (a configuration, copied), or NULL: @nr_kdamonds
	 * fresh ones for @build to fill */
	const struct damonctl_tree *kdamonds;
	unsigned int nr_kdamonds;
	/* called for each kdamond of the start (@i-th), placed at its index in the tree to be,
	 * with the features known: fill or amend it. Called again after a probe. 0, or a
	 * negative errno that ends the start before any write and is returned as is. */
	int (*build)(void *data, struct damonctl_kdamond *k, unsigned int i,
		     const struct damonctl_features *f);
	/* called once everything is checked and planned, just before the start's first write
	 * (never in a dry run); a nonzero return ends the start, writing nothing, returned */
	int (*ready)(void *data, const struct damonctl_start *st);
	void *data;
	/* stopped kdamonds that are the caller's own: the start stages over them, in this
	 * order, before it adds any (a kdamond running or not in the tree is skipped) */
	const unsigned int *reuse;
	unsigned int nr_reuse;
	/* what an earlier probe of this kernel found (damonctl_features_to_json, kept by the
	 * caller for this boot), learned before deciding to probe; NULL: nothing */
	const char *known_features;
};
#define DAMONCTL_START_OPTS_INIT { .sz = sizeof(struct damonctl_start_opts), .nr_kdamonds = 1 }
/* How a start ended (damonctl_start_outcome). */
enum damonctl_start_outcome {
	DAMONCTL_START_NOT_RUN,		/* damonctl_start() not called yet */
	DAMONCTL_START_STARTED,		/* running */
	DAMONCTL_START_PLANNED,		/* a dry run: checked and planned */
	DAMONCTL_START_BAD_INPUT,	/* refused before the start's writes: why says */
	DAMONCTL_START_UNSUPPORTED,	/* this kernel lacks a feature: why says */
	DAMONCTL_START_BUSY,		/* a kdamond runs (damonctl_start_busy_kdamond) */
	DAMONCTL_START_FAILED,		/* an access failed (damonctl_last_error), or a
					 * callback ended it; the tree is as it was */
};
/* A start with options @opts (copied; an unknown tail must be zero). 0, -EINVAL, -ENOMEM. */
DAMONCTL_API int damonctl_start_new(struct damonctl_ctx *ctx,
				    const struct damonctl_start_opts *opts,
				    struct damonctl_start **out);
DAMONCTL_API void damonctl_start_free(struct damonctl_start *st);
/* The transaction (once). 0 when started or planned; else -errno, and the outcome says why:
 * -EINVAL, -ESRCH, -ENOENT (bad input), -EOPNOTSUPP (unsupported), -EBUSY (busy), the error
 * of a callback, or an access's. */
DAMONCTL_API int damonctl_start(struct damonctl_start *st);
DAMONCTL_API enum damonctl_start_outcome damonctl_start_outcome(const struct damonctl_start *st);
/* The sentence of a refusal ("" when none). */
DAMONCTL_API const char *damonctl_start_why(const struct damonctl_start *st);
/* The running kdamond that made it busy, or -1. */
DAMONCTL_API int damonctl_start_busy_kdamond(const struct damonctl_start *st);
/* The kdamonds it starts (or would): how many, and the index of the @i-th. */
DAMONCTL_API unsigned int damonctl_start_nr_kdamonds(const struct damonctl_start *st);
DAMONCTL_API unsigned int damonctl_start_kdamond(const struct damonctl_start *st,
						 unsigned int i);
/* Whether it adds kdamonds (the kernel then recreates every kdamond directory, and drops the
 * last results of the stopped ones). */
DAMONCTL_API bool damonctl_start_adds(const struct damonctl_start *st);
/* The tree as read before it (@after false), or as it is to be (NULL before it got that
 * far). */
DAMONCTL_API const struct damonctl_tree *damonctl_start_tree(const struct damonctl_start *st,
							     bool after);
DAMONCTL_API const struct damonctl_features *
damonctl_start_features(const struct damonctl_start *st);
/* The user-space fallbacks planned for the @i-th kdamond (NULL: none). */
DAMONCTL_API const struct damonctl_fallbacks *
damonctl_start_fallbacks(const struct damonctl_start *st, unsigned int i);
/* Whether it probed on a temporary kdamond. */
DAMONCTL_API bool damonctl_start_probed(const struct damonctl_start *st);
/* Its writes, in order: made (a start: every write tried, whether the kernel took it or
 * not, an undo's included) or, in a dry run, the probe's made and the rest planned, each
 * `on` last. Paths are relative to the admin directory. */
#define DAMONCTL_WRITE_PROBE	(1u << 0)	/* a probe's, undone by the probe itself */
DAMONCTL_API size_t damonctl_start_nr_writes(const struct damonctl_start *st);
DAMONCTL_API int damonctl_start_write(const struct damonctl_start *st, size_t i,
				      const char **path, const char **value, unsigned int *flags);

/* What a commit does (or did). */
enum damonctl_commit_how {
	DAMONCTL_COMMIT_NOTHING,	/* @want equals @have: no write */
	DAMONCTL_COMMIT_STAGED,		/* the kdamond is off: staged for its next `on` */
	DAMONCTL_COMMIT_GOALS,		/* staged, then commit_schemes_quota_goals */
	DAMONCTL_COMMIT_ALL,		/* staged, then commit */
};
#define DAMONCTL_COMMIT_F_FULL (1u << 0)	/* `commit` even when only goals changed */
/*
 * Apply @want, a changed copy of kdamond @have (as read), online: stage the differences,
 * then commit_schemes_quota_goals when only quota goals differ (it re-reads nothing else),
 * else commit, after checking that every target reads back its pid (the kernel stops a
 * kdamond committed with a target it cannot find). On any failure the staged files are put
 * back to @have, so a later commit cannot apply half of this one. @how (optional) says what
 * was done. Targets of @want marked obsolete are dropped by the commit; the files are then
 * staged without them (or a later commit would drop the targets that took their places):
 * should that fail, the commit stands, *@how says DAMONCTL_COMMIT_ALL, and the error is
 * returned.
 */
DAMONCTL_API int damonctl_kdamond_commit(struct damonctl_ctx *ctx,
					 const struct damonctl_kdamond *want,
					 const struct damonctl_kdamond *have, unsigned int flags,
					 enum damonctl_commit_how *how);
/* The same, planned without I/O: the writes and what would follow them (a dry run). */
DAMONCTL_API int damonctl_kdamond_commit_plan(struct damonctl_ctx *ctx,
					      const struct damonctl_kdamond *want,
					      const struct damonctl_kdamond *have,
					      unsigned int flags, struct damonctl_plan **plan,
					      enum damonctl_commit_how *how);

/*
 * Keep scheme @s to target @target of its context: a `target` filter rejecting the others
 * (core_filters from 6.15, filters/ before), reused if the scheme has one. Tried regions do
 * not say whose they are, so a scheme per target is how a program tells them apart.
 * -EOPNOTSUPP before 6.6.
 */
DAMONCTL_API int damonctl_scheme_keep_target(struct damonctl_scheme *s,
					     const struct damonctl_features *f,
					     unsigned int target);
/*
 * Let scheme @s act only on the address ranges [@starts[i], @ends[i]): `addr` allow filters
 * appended after its other filters (replacing the allow filters an earlier call appended);
 * @nr 0 lets it act on nothing. After an allow filter, what no filter matches is rejected.
 * -EOPNOTSUPP before 6.14 (allow filters).
 */
DAMONCTL_API int damonctl_scheme_allow_ranges(struct damonctl_scheme *s,
					      const struct damonctl_features *f,
					      const uint64_t *starts, const uint64_t *ends,
					      unsigned int nr);

/*
 * Processes joining and leaving a running context (vaddr or fvaddr), on @c, a copy of it
 * that damonctl_kdamond_commit() then applies (damonctl_tree_start(3)). Targets marked
 * obsolete are on their way out and count as no process's.
 */
/* The index of process @pid's target, or -ENOENT. */
DAMONCTL_API int damonctl_context_find_pid(const struct damonctl_context *c, int pid);
/* The targets not marked obsolete. */
DAMONCTL_API unsigned int damonctl_context_nr_live_targets(const struct damonctl_context *c);
/* The first scheme with a target filter naming target @target, or -ENOENT. */
DAMONCTL_API int damonctl_context_target_filter_scheme(const struct damonctl_context *c,
						       unsigned int target);
/* Process @pid as a new last target, with its regions (damonctl_target_seed_regions): its
 * index, or -EEXIST (a target already), -ESRCH (no such process), -EOPNOTSUPP (physical
 * memory), -EINVAL, -ENOMEM. */
DAMONCTL_API int damonctl_context_add_pid(struct damonctl_ctx *ctx, struct damonctl_context *c,
					  int pid);
#define DAMONCTL_TARGET_MARKED	(1u << 0)	/* marked obsolete (6.19): the commit drops it */
#define DAMONCTL_TARGETS_MOVED	(1u << 1)	/* removed: the later targets moved down a place
						 * and their monitoring starts over */
/* Process @pid's target out: marked obsolete where the kernel has obsolete_target and the
 * process runs, else removed; target filters naming later targets follow them. What was done
 * in *@how. -ENOENT (no such target), -EBUSY (a target filter names it:
 * damonctl_context_target_filter_scheme), -EOPNOTSUPP (physical memory). */
DAMONCTL_API int damonctl_context_remove_pid(struct damonctl_ctx *ctx, struct damonctl_context *c,
					     const struct damonctl_features *f, int pid,
					     unsigned int *how);
/* The targets marked obsolete removed from @c: how many. */
DAMONCTL_API int damonctl_context_drop_obsolete(struct damonctl_context *c);

/*
 * Processes joining and leaving running kdamond @k (a copy of it, context 0, vaddr or
 * fvaddr) as one change, the same whoever asks (a person, a child followed): each process
 * added checked as a start checks its targets (one that runs, not a kernel thread, not a
 * target yet), each removed one a target, targets whose processes exited dropped too with
 * DAMONCTL_RETARGET_DROP_EXITED, and the collapse budgets of @fbs following their targets
 * (damonctl_fallbacks_retarget; budgets left over keep to target @nowhere). Without budgets a
 * target leaving is marked obsolete where the kernel can (6.19), else removed with the later
 * ones moving down; with them the targets that stay keep their order. The targets as they
 * are then are checked again (damonctl_kdamond_check_system). The caller commits @k
 * (damonctl_kdamond_commit) and @fbs with it. See damonctl_tree_start(3).
 */
#define DAMONCTL_RETARGET_DROP_EXITED	(1u << 0)
struct damonctl_retarget {
	size_t sz;			/* sizeof(struct damonctl_retarget) */
	const int *add;			/* processes to add, as the last targets */
	unsigned int nr_add;		/* at most 64 each */
	const int *remove;		/* processes whose targets leave */
	unsigned int nr_remove;
	unsigned int flags;		/* DAMONCTL_RETARGET_* */
	struct damonctl_fallbacks *fbs;	/* the kdamond's plan, changed with it (NULL: none) */
	unsigned int nowhere;		/* a target index no target will have */
	char *why;			/* a sentence when refused (NULL: none wanted) */
	size_t why_size;
};
/* 0 (*@how: DAMONCTL_TARGET_MARKED, DAMONCTL_TARGETS_MOVED), or with a sentence in why:
 * -EINVAL (not a process, a kernel thread), -EEXIST (a target already, or named twice),
 * -ESRCH (no such process, or it exited), -ENOENT (not a target; no target would be left),
 * -EBUSY (a target filter names a target leaving), -EOPNOTSUPP (physical memory; budgets
 * without target filters), -ENOSPC. @k may be half changed then; @fbs is untouched. */
DAMONCTL_API int damonctl_kdamond_retarget(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
					   const struct damonctl_features *f,
					   const struct damonctl_retarget *rt, unsigned int *how);

/* ------------------------------------------------------------------------------------------
 * Staging: transactions made on a model in a file, committed to the kernel later as one.
 *
 * A context given a staging file writes nothing under DAMON (a write is -EROFS): its reads
 * (damonctl_tree_read*, damonctl_kdamond_read, damonctl_kdamond_is_running) give the staged
 * tree, and its transactions change that tree: damonctl_tree_start() turns kdamonds on in it
 * (pid 0: no kernel thread yet), damonctl_kdamond_commit() and the _stage() calls replace
 * configurations, damonctl_kdamond_cmd() `off` turns one off. The file holds the whole model
 * (results, state, which files the kernel has), so programs that run one after another (a
 * batch's lines) add to it in turn, each seeing what those before it did.
 */
/* Write the tree as it is now to @path, a new staging file. */
DAMONCTL_API int damonctl_staging_begin(struct damonctl_ctx *ctx, const char *path);
/* Make @ctx a staging context on @path (NULL: back to the kernel). */
DAMONCTL_API int damonctl_set_staging(struct damonctl_ctx *ctx, const char *path);
/* The staged tree of @path (for a dry run: damonctl_tree_plan() against the kernel's). */
DAMONCTL_API int damonctl_staging_read(const char *path, struct damonctl_tree **out);
/*
 * Make the kernel run the staged tree of @path, with @ctx not staging: kdamonds it turned off
 * go off, those running in both get one commit (damonctl_kdamond_commit), then the rest is
 * staged and the kdamonds it turned on are turned on (damonctl_tree_start). -ESTALE, with no
 * write, when the tree changed since damonctl_staging_begin() (a goal's current_value aside);
 * on any failure the tree is put back as it was, kdamonds that ran turned on again (with new
 * pids), and damonctl_last_error() names the write that failed first.
 */
DAMONCTL_API int damonctl_staging_commit(struct damonctl_ctx *ctx, const char *path);

/* ------------------------------------------------------------------------------------------
 * JSON: damonc's own schema (docs in damonctl-json(5)) and damo's kdamonds JSON.
 */
enum damonctl_json_flags {
	DAMONCTL_JSON_CONFIG = 1 << 0,	/* only what can be written: no stats, state or pid */
	DAMONCTL_JSON_PRETTY = 1 << 1,
};
/* A malloc'd, NUL-terminated document {"format_version": 1, "kdamonds": [...]}. */
DAMONCTL_API char *damonctl_tree_to_json(const struct damonctl_tree *t, unsigned int flags);
/*
 * Parse damonc's schema or damo's (`damo args damon` output, with its human-unit strings),
 * detected from the content. -EINVAL with a sentence naming the offending key in @why.
 */
DAMONCTL_API int damonctl_tree_from_json(const char *doc, struct damonctl_tree **out,
					 char *why, size_t size);
/*
 * A YAML document (damo takes its configurations in YAML as well as JSON) as JSON text for
 * damonctl_tree_from_json(): *json is malloc'd. Plain scalars take YAML 1.1's types as damo's
 * PyYAML resolves them (null, true/false/yes/no/on/off, integers, floats), quoted ones stay
 * strings; integers are damonc's one grammar (decimal or 0x, within 64 bits): what PyYAML
 * would read another way (010 as octal, 0b1, 1:30, 1_000) is refused. A key given twice in a
 * mapping is refused, and a document that turns into more than 200000 nodes with its aliases
 * followed. -EINVAL with the line and the problem in @why.
 */
DAMONCTL_API int damonctl_yaml_to_json(const char *text, size_t len, char **json, char *why,
				       size_t size);
/*
 * A configuration as damo's and damonc's start take it, from a file named @name (NULL: not
 * from a file): damonc's schema or damo's, in JSON or YAML, told by the name's extension
 * (.json, .yaml, .yml), else by the text (JSON begins with '{'); damonc's status and dry-run
 * documents fed back lose their facts about one system (damonctl-json(5)). At most
 * DAMONCTL_MAX_KDAMONDS kdamonds. -EINVAL with the reason in @why ("not JSON, nor YAML:
 * line 2: ..." for a document that is neither).
 */
DAMONCTL_API int damonctl_config_parse(const char *name, const char *text,
				       struct damonctl_tree **out, char *why, size_t size);
#define DAMONCTL_JSON_FORMAT_VERSION 1
/*
 * Whether the @len bytes of @doc are exactly one strict JSON document (RFC 8259): UTF-8, no
 * comments, no single quotes, no NaN, nothing but blanks after it, integers within
 * [-2^63, 2^64-1], at most 64 levels of nesting. 0, or -EINVAL with "line L, column C: what
 * was found" in @why. Every JSON reader of the library applies it; callers that parse JSON
 * themselves (a program's own state files) can too.
 */
DAMONCTL_API int damonctl_json_check(const char *doc, size_t len, char *why, size_t size);
/* The length of the well-formed UTF-8 sequence at @s (1 to 4; an ASCII byte, NUL too, is 1),
 * reading at most @avail bytes (SIZE_MAX for a NUL-terminated string), or 0 where there is
 * none (a stray byte, an overlong form, a surrogate, beyond U+10FFFF): what
 * damonctl_json_check() accepts in a string, for text read from the tree or /proc that a
 * program prints or writes as JSON. */
DAMONCTL_API size_t damonctl_utf8_len(const char *s, size_t avail);

/* ------------------------------------------------------------------------------------------
 * Files a program is given (read whole, never waited on) and files it keeps (written whole
 * or not at all).
 */
/* The text of file @path, or of standard input for "-" (whatever it is): a directory is
 * -EISDIR, anything else that is not a regular file (a FIFO, socket or device, which would
 * block or never end) -ENODEV, before anything is read; -EFBIG above @max bytes, -EILSEQ when
 * it holds a NUL byte. *out is malloc'd and NUL-terminated, its length in *len (may be NULL). */
DAMONCTL_API int damonctl_file_read(const char *path, size_t max, char **out, size_t *len);
/* damonctl_file_write()'s @mode, beside the permission bits: the file and the directory's
 * rename fsync'ed before it returns (a file a crash must not lose, or leave empty). */
#define DAMONCTL_FILE_SYNC 0x10000u
/* @len bytes of @data as file @path, whole or not at all, or to standard output for "-":
 * written to a new file of its own beside @path (created O_EXCL under a random name, never
 * one planted there) and renamed over @path. What stands at @path must be a regular file or
 * nothing: a symbolic link is not followed (-ELOOP), a directory -EISDIR, and a device, FIFO
 * or socket is never replaced (-ENODEV). @mode: its permissions (0: 0600), with
 * DAMONCTL_FILE_SYNC. */
DAMONCTL_API int damonctl_file_write(const char *path, const void *data, size_t len,
				     unsigned int mode);
/* Directory @dir and its parents, as needed (0755 less the umask); 0 when they exist. */
DAMONCTL_API int damonctl_make_dirs(const char *dir);
/* File @path opened in place, for a file kept open (a log, a lock, a record written as it
 * comes): @flags O_RDONLY, O_WRONLY or O_RDWR with O_APPEND, O_CREAT, O_EXCL, O_TRUNC (else
 * -EINVAL). The same refusals as damonctl_file_write(), before anything is opened: only a
 * regular file is opened, and one created is created O_EXCL with @mode (0: 0600, less the
 * umask). O_TRUNC truncates once the file is known to be one. The descriptor (close-on-exec,
 * blocking) or -errno. */
DAMONCTL_API int damonctl_file_open(const char *path, int flags, unsigned int mode);
/* Directory @dir as a program's own state directory (damonc's run/damonc): made 0700 with
 * its parents as needed (0755), or found as a directory of the caller's effective user that
 * no one else may enter (one found 0755, as older programs made it, is made 0700). A symbolic
 * link there is -ELOOP, another owner's directory -EPERM, a file -ENOTDIR. */
DAMONCTL_API int damonctl_make_state_dir(const char *dir);

/* ------------------------------------------------------------------------------------------
 * Memory figures from procfs and sysfs (under the sysroot), in bytes.
 */
/* Set @sz (DAMONCTL_MEMINFO_INIT): fields may be added at the end, and the library fills
 * and reads only those @sz covers. */
struct damonctl_meminfo {
	size_t sz;
	uint64_t total, free, available, anon;
	uint64_t anon_huge, shmem_huge, file_huge;	/* AnonHugePages, ShmemHugePages, ... */
};
#define DAMONCTL_MEMINFO_INIT { .sz = sizeof(struct damonctl_meminfo) }
/* -EINVAL when @m->sz is smaller than the first struct with sz had it. */
DAMONCTL_API int damonctl_meminfo_read(struct damonctl_ctx *ctx, struct damonctl_meminfo *m);
/* Used memory (MemTotal - MemFree) and huge page memory (the three *HugePages); 0 for a
 * @m->sz too small. */
DAMONCTL_API uint64_t damonctl_meminfo_used(const struct damonctl_meminfo *m);
DAMONCTL_API uint64_t damonctl_meminfo_huge(const struct damonctl_meminfo *m);
/* Huge page memory / used memory in basis points, as the kernel's hugepage_mem_bp goal
 * metric defines it (10000 when nothing is used). */
DAMONCTL_API uint64_t damonctl_meminfo_hugepage_bp(const struct damonctl_meminfo *m);

/* A process's memory from /proc/PID/smaps_rollup; -ESRCH when it does not exist. */
struct damonctl_proc_mem {
	uint64_t rss, anon, anon_huge, shmem_huge, file_huge;
};
DAMONCTL_API int damonctl_proc_mem_read(struct damonctl_ctx *ctx, int pid,
					struct damonctl_proc_mem *m);

/* A process's mappings from /proc/PID/smaps, one call per mapping. */
struct damonctl_vma {
	uint64_t start, end, rss, anon, anon_huge;
	char perms[8];
	char name[256];
};
typedef int (*damonctl_vma_fn)(void *data, const struct damonctl_vma *vma);
DAMONCTL_API int damonctl_proc_vmas(struct damonctl_ctx *ctx, int pid, damonctl_vma_fn fn,
				    void *data);
/* The same from /proc/PID/maps: no page-table walk, so rss, anon and anon_huge are 0. */
DAMONCTL_API int damonctl_proc_maps(struct damonctl_ctx *ctx, int pid, damonctl_vma_fn fn,
				    void *data);

/* The regions DAMON's vaddr operations start monitoring process @pid with (its mappings,
 * less the two largest gaps between them): up to three [start, end) ranges into @regions;
 * returns how many (0: it maps nothing), or -errno (-ESRCH when it does not exist). A target
 * added to a running kdamond needs them written, or it is monitored only from the next
 * update interval on. */
DAMONCTL_API int damonctl_proc_init_regions(struct damonctl_ctx *ctx, int pid,
					    uint64_t regions[3][2]);
/* Target @t's regions replaced by those of process @pid (damonctl_proc_init_regions): how
 * many, or -errno (its regions are cleared then too). */
DAMONCTL_API int damonctl_target_seed_regions(struct damonctl_ctx *ctx,
					      struct damonctl_target *t, int pid);

/* Whether process @pid runs: 1, or 0 when it does not exist or has exited (a zombie). */
DAMONCTL_API int damonctl_proc_alive(struct damonctl_ctx *ctx, int pid);
/* The start time of process @pid (field 22 of the running system's /proc/PID/stat, clock
 * ticks since boot; 1 if that reads 0), or 0 when it is gone or a zombie. With the pid it
 * names one process: a later one given the same pid starts later. For notes a program
 * leaves about itself, so it reads the system's /proc, not the context's sysroot. */
DAMONCTL_API unsigned long long damonctl_proc_start_time(int pid);
/* Whether process @pid runs and, when @start_time is not 0, is the one that started then. */
DAMONCTL_API bool damonctl_proc_same(int pid, unsigned long long start_time);
/* Virtual and resident size of a process in bytes (/proc/PID/statm: cheap, no page-table
 * walk); -ESRCH when it has exited (a zombie too) or does not exist. */
DAMONCTL_API int damonctl_proc_statm(struct damonctl_ctx *ctx, int pid, uint64_t *vsz,
				     uint64_t *rss);
/* The children of process @pid's main thread (/proc/PID/task/PID/children): up to @max into
 * @pids; returns how many it has, or -errno (-ESRCH when it does not exist). */
DAMONCTL_API int damonctl_proc_children(struct damonctl_ctx *ctx, int pid, int *pids,
					size_t max);
/* The command line of @pid, its arguments separated by NULs: the length, or -errno. */
DAMONCTL_API int damonctl_proc_cmdline(struct damonctl_ctx *ctx, int pid, char *buf,
				       size_t size);
/* The CPU time process or kernel thread @pid has used so far, user and system, in
 * microseconds (/proc/PID/stat; a kdamond's is its thread's): 0, or -errno (-ESRCH when it
 * does not exist). */
DAMONCTL_API int damonctl_proc_cpu_time(struct damonctl_ctx *ctx, int pid, uint64_t *us);
/* Both figures of process or kernel thread @pid from one read of /proc/PID/stat: the CPU
 * time it has used (as damonctl_proc_cpu_time()) and how long it has run since it started
 * (its starttime against /proc/uptime), in microseconds; their ratio is the share of a CPU
 * it has used on average. 0, or -errno (-ESRCH when it does not exist). */
DAMONCTL_API int damonctl_proc_times(struct damonctl_ctx *ctx, int pid, uint64_t *cpu_us,
				     uint64_t *run_us);

/* Counters of /proc/vmstat by name (0 when absent); returns how many were found. */
DAMONCTL_API int damonctl_vmstat_read(struct damonctl_ctx *ctx, const char *const *names,
				      uint64_t *values, size_t n);
/* One file under <sysroot>/sys, trailing newline stripped. */
DAMONCTL_API int damonctl_sys_read(struct damonctl_ctx *ctx, const char *rel, char *buf,
				   size_t size);
/* A setting under <sysroot>/sys as damonctl_sys_read() reads it, except that a file listing
 * its choices with the selected one in brackets ("always [madvise] never", as the THP
 * files do) gives the selected one alone ("madvise"). */
DAMONCTL_API int damonctl_sys_read_setting(struct damonctl_ctx *ctx, const char *rel, char *buf,
					   size_t size);
/* The largest System RAM range of /proc/iomem, [start, end); -EPERM if hidden (not root). */
DAMONCTL_API int damonctl_system_ram(struct damonctl_ctx *ctx, uint64_t *start, uint64_t *end);

/* The physical address layout (damo's pa_layout): /proc/iomem's top-level resources, each
 * cut where the memory blocks under <sysroot>/sys/devices/system/node/node<N>/memory<M>
 * change node or state; ascending. -EPERM when /proc/iomem hides the addresses (not root).
 * Without memory block directories (no CONFIG_MEMORY_HOTPLUG) every range has node -1. */
struct damonctl_pa_layout;
DAMONCTL_API int damonctl_pa_layout_read(struct damonctl_ctx *ctx,
					 struct damonctl_pa_layout **out);
DAMONCTL_API size_t damonctl_pa_layout_nr(const struct damonctl_pa_layout *l);
/* Range @i: [start, end), its NUMA node (-1: no memory block covers it), the block's state
 * ("online", "offline"; "" without a block) and the resource's name ("System RAM", ...).
 * Any out-pointer may be NULL; -ERANGE past the end. */
DAMONCTL_API int damonctl_pa_layout_range(const struct damonctl_pa_layout *l, size_t i,
					  uint64_t *start, uint64_t *end, int *node,
					  const char **state, const char **resource);
DAMONCTL_API void damonctl_pa_layout_free(struct damonctl_pa_layout *l);
/* NUMA node @node's System RAM, adjacent ranges merged: the first @cap into @ranges, how
 * many there are in *nr. -E2BIG when more than @cap, -ENOENT when the node has none,
 * -ENODEV when the layout knows no node at all (no memory block directories). */
DAMONCTL_API int damonctl_node_ram(const struct damonctl_pa_layout *l, int node,
				   uint64_t (*ranges)[2], size_t cap, size_t *nr);
/* The regions of a paddr target that names no ranges of its own: without @nodes, the largest
 * System RAM range (damonctl_system_ram() of @ctx); else the System RAM of the @nr_nodes NUMA
 * nodes in layout @l (damonctl_node_ram()) in address order, overlapping and adjacent ranges
 * merged, cut to whole pages (DAMON widens a region to pages, taking in what is not RAM). In
 * units of @addr_unit bytes (0 or 1: bytes), the whole units inside each range. The first
 * @cap into @ranges (scratch on failure), how many in *nr. The errors of those functions;
 * with -ENOENT from a node, *nr is its index in @nodes. */
DAMONCTL_API int damonctl_paddr_regions(struct damonctl_ctx *ctx,
					const struct damonctl_pa_layout *l, const int *nodes,
					size_t nr_nodes, uint64_t addr_unit,
					uint64_t (*ranges)[2], size_t cap, size_t *nr);

/* What looks wrong with DAMON (damo's diagnose), read only: a kdamond that says "on" without
 * a thread, a target process that exited, a hugepage scheme under transparent_hugepage
 * "never" (a collapse scheme there is only said: it makes huge pages all the same), a scheme
 * its free-memory watermarks turn off now, a DAMON module holding DAMON.
 * @fn gets each finding: its level, a code naming the check ("kdamond_no_thread",
 * "target_gone", "thp_never", "thp_never_collapse", "wmarks_inactive",
 * "module_holds_damon"), the kdamond and
 * scheme it is about (-1: none) and a sentence. Returns how many are warnings or errors. */
enum damonctl_finding {
	DAMONCTL_FINDING_INFO,		/* worth knowing; not wrong in itself */
	DAMONCTL_FINDING_WARNING,	/* something will not do what it was set up for */
	DAMONCTL_FINDING_ERROR,		/* DAMON is in a state it should not be */
};
typedef void (*damonctl_finding_fn)(void *data, enum damonctl_finding level, const char *code,
				    int kdamond, int scheme, const char *message);
/* Whether scheme @s asks for huge pages in a way that transparent_hugepage/enabled
 * @thp_enabled (its selected mode, "never"...; NULL: unknown) stops: the hugepage action
 * (MADV_HUGEPAGE) under "never". The collapse action (MADV_COLLAPSE) does not depend on the
 * THP settings. */
DAMONCTL_API bool damonctl_scheme_thp_blocked(const struct damonctl_scheme *s,
					      const char *thp_enabled);
DAMONCTL_API int damonctl_diagnose(struct damonctl_ctx *ctx, const struct damonctl_tree *t,
				   damonctl_finding_fn fn, void *data);

/* ------------------------------------------------------------------------------------------
 * The DAMON modules (damon_reclaim, damon_lru_sort, damon_stat): their parameters under
 * <sysroot>/sys/module/<module>/parameters. A module and a kdamond of the sysfs interface
 * exclude each other (the kernel answers EBUSY to the second).
 */
/* The i-th module the library knows ("damon_reclaim", ...), NULL past the last. */
DAMONCTL_API const char *damonctl_module_name(unsigned int i);
/* The module called @name ("damon_reclaim", or "reclaim" for short), NULL when none is. */
DAMONCTL_API const char *damonctl_module_lookup(const char *name);
/* Whether the kernel has the module (built in or loaded): its parameters directory exists. */
DAMONCTL_API bool damonctl_module_present(struct damonctl_ctx *ctx, const char *module);

struct damonctl_module_params;
/* Every readable parameter of @module (full name), sorted by name, values without their
 * newline. -EINVAL: not a module name; -ENOENT: the kernel lacks it. */
DAMONCTL_API int damonctl_module_read(struct damonctl_ctx *ctx, const char *module,
				      struct damonctl_module_params **out);
DAMONCTL_API void damonctl_module_params_free(struct damonctl_module_params *mp);
DAMONCTL_API size_t damonctl_module_params_nr(const struct damonctl_module_params *mp);
DAMONCTL_API const char *damonctl_module_param_name(const struct damonctl_module_params *mp,
						    size_t i);
DAMONCTL_API const char *damonctl_module_param_value(const struct damonctl_module_params *mp,
						     size_t i);
/* The value of parameter @name, NULL when the module has none. */
DAMONCTL_API const char *damonctl_module_param_get(const struct damonctl_module_params *mp,
						   const char *name);
/* Whether the module is enabled (it then holds DAMON), and its kdamond's pid into
 * @kdamond_pid (NULL: not wanted; -1 when it shows none). */
DAMONCTL_API bool damonctl_module_params_enabled(const struct damonctl_module_params *mp,
						 int *kdamond_pid);
/* The same read from the kernel: 1 enabled, 0 not, or damonctl_module_read()'s -errno. */
DAMONCTL_API int damonctl_module_enabled(struct damonctl_ctx *ctx, const char *module,
					 int *kdamond_pid);
/* False for the modules' results (kdamond_pid, nr_*, bytes_*, damon_stat's figures). */
DAMONCTL_API bool damonctl_module_param_writable(const char *param);
/* What to write to @param for @input as people type it: "5s" for a time in us or ms, "1GiB"
 * for quota_sz, "50%" for a permil or bp, yes/no/on/off/true/false/1/0 for a boolean (Y or
 * N); a bare number is the parameter's own unit. -EINVAL: bad value; -EACCES: a result,
 * not writable; -ERANGE: @out too small. A parameter the library does not know is copied. */
DAMONCTL_API int damonctl_module_param_convert(const char *param, const char *input,
					       char *out, size_t size);
/* @value of @param as people read it when it is a time, size or ratio ("5 s", "1.00 GiB",
 * "60.00%"); -ENOENT for other parameters and -EINVAL for a value that is not a number
 * (@out is "" then). */
DAMONCTL_API int damonctl_module_param_format(const char *param, const char *value, char *out,
					      size_t size);

#define DAMONCTL_MODULE_DRY_RUN	(1u << 0)	/* say what would be written, write nothing */
/* Called for each write, before it is made (or instead of it, with DAMONCTL_MODULE_DRY_RUN). */
typedef void (*damonctl_module_write_fn)(void *data, const char *module, const char *param,
					 const char *value);
/* Write @n values (as the kernel takes them: see damonctl_module_param_convert) to @module's
 * parameters in order; then, when the module is enabled, has commit_inputs and neither
 * enabled nor commit_inputs was among them, commit_inputs=Y so that it applies them. Every
 * name is checked before the first write: -ENOENT (module or parameter missing), -EACCES
 * (a result) and -EINVAL write nothing. Enabling is the write enabled=Y. */
DAMONCTL_API int damonctl_module_write(struct damonctl_ctx *ctx, const char *module,
				       const char *const *names, const char *const *values,
				       size_t n, unsigned int flags, damonctl_module_write_fn fn,
				       void *data);
/* After enabled=Y (@enable) or N: wait, at most @timeout_ms, until the module did it. Linux
 * 6.1 accepts the write and starts or stops DAMON later, in a work item, turning enabled back
 * when that fails (DAMON held by a sysfs kdamond or another module, a bad parameter); later
 * kernels refuse the write itself. 0: done, *pid its kdamond's pid (-1: off, or the module
 * shows none); -ECANCELED: enabled reads the old value again, the kernel undid the write;
 * -ETIMEDOUT: enabled reads as written, but its kdamond did not come (or go) in time. */
DAMONCTL_API int damonctl_module_settle(struct damonctl_ctx *ctx, const char *module,
					bool enable, unsigned int timeout_ms, int *pid);

/*
 * Collapse a process's memory into huge pages from user space (process_madvise with
 * MADV_COLLAPSE; needs CAP_SYS_ADMIN): the whole 2 MiB-aligned huge pages of [start, end).
 * *collapsed is the number of bytes the kernel advised. -ERANGE: no whole huge page inside;
 * -EAGAIN, -ENOMEM, -EINVAL: the kernel could not collapse some of it (as the kernel action
 * would fail). damonctl_pidfd_open() gives the pidfd, so a recycled pid is never acted on.
 */
DAMONCTL_API int damonctl_pidfd_open(int pid);
DAMONCTL_API int damonctl_collapse_range(int pidfd, uint64_t start, uint64_t end,
					 uint64_t *collapsed);

/* ------------------------------------------------------------------------------------------
 * Huge pages: one definition of the huge-page ratio, where a process's huge pages are, and
 * which of its pages are hot and still small (a collapse plan, counted in huge pages).
 */
#define DAMONCTL_HUGEPAGE_SIZE (UINT64_C(2) << 20)
struct damonctl_rec_region;	/* a region DAMON found: see Records below */

/*
 * The ratio the hugepage_mem_bp goal metric measures, as bytes: with @pids NULL or @nr 0,
 * system-wide as the kernel defines it ((AnonHugePages + ShmemHugePages + FileHugePages) /
 * (MemTotal - MemFree), /proc/meminfo); otherwise over those processes, their PMD-mapped
 * memory (AnonHugePages + ShmemPmdMapped + FilePmdMapped of smaps_rollup) over their RSS.
 * Pids <= 0 and processes that exited are skipped (they hold no memory).
 */
DAMONCTL_API int damonctl_hugepage_measure(struct damonctl_ctx *ctx, const int *pids,
					   unsigned int nr, uint64_t *huge, uint64_t *used);
/* @huge / @used in basis points, rounded down; 10000 when nothing is used (the kernel's). */
DAMONCTL_API uint64_t damonctl_hugepage_bp(uint64_t huge, uint64_t used);
/* Bytes that must still become huge for the ratio to reach @target_bp (0: reached). */
DAMONCTL_API uint64_t damonctl_hugepage_bytes_to_goal(uint64_t huge, uint64_t used,
						      uint64_t target_bp);
/* How many more huge pages bring the ratio nearest @target_bp without passing it by more
 * than half a huge page (0 when it is reached or nearer than that). */
DAMONCTL_API size_t damonctl_hugepage_plan_pick(uint64_t huge, uint64_t used,
						uint64_t target_bp);
/* A process's PMD-mapped memory, of every kind (what the ratio counts as huge). */
DAMONCTL_API uint64_t damonctl_proc_mem_huge(const struct damonctl_proc_mem *m);

/* Called with [start, end) ranges; a non-zero return stops the walk and is returned. */
typedef int (*damonctl_range_fn)(void *data, uint64_t start, uint64_t end);
/*
 * The PMD-mapped (huge) ranges of process @pid within [@start, @end), in address order:
 * from the PAGEMAP_SCAN ioctl (Linux 6.7), else from /proc/PID/pagemap and /proc/kpageflags
 * (root). -ESRCH when the process does not exist.
 */
DAMONCTL_API int damonctl_proc_huge_ranges(struct damonctl_ctx *ctx, int pid, uint64_t start,
					   uint64_t end, damonctl_range_fn fn, void *data);

/*
 * A huge-page meter: the ratio of damonctl_hugepage_measure() (system-wide with no pids, or
 * over a set of processes) for a caller that reads it again and again (an agent holding a
 * goal, a report that watches), at a cost that does not grow with the processes' memory
 * while nothing changes: their RSS from the kernel's counters (statm) at every read (reads
 * less than 100 ms apart answer alike), their
 * huge memory from a walk of their page tables (PAGEMAP_SCAN, smaps_rollup before 6.7) only
 * when the THP counters that cover them moved (their cgroup v2 memory.stat, else
 * /proc/vmstat), an RSS fell by a huge page, the caller changed huge pages
 * (damonctl_hugepage_meter_invalidate()) or asks for it (DAMONCTL_HMETER_FRESH), and at
 * least every minute; a walk the counters ask for waits 2000 times the last walk's CPU time
 * since the last. A pid that exits counts for nothing from then on (its files follow its
 * process, not a later one given its pid). See damonctl_hugepage_meter_new(3).
 */
struct damonctl_hugepage_meter;
enum damonctl_hmeter_flag {
	DAMONCTL_HMETER_FRESH = 1 << 0,	/* walk the page tables now */
};
enum damonctl_hmeter_method {
	DAMONCTL_HMETER_NONE,		/* not read yet */
	DAMONCTL_HMETER_MEMINFO,	/* system-wide: /proc/meminfo */
	DAMONCTL_HMETER_PAGEMAP_SCAN,	/* PAGEMAP_SCAN (6.7) and statm */
	DAMONCTL_HMETER_SMAPS,		/* smaps_rollup and statm */
};
enum damonctl_hmeter_source {
	DAMONCTL_HMETER_SOURCE_NONE,	/* not read yet, or system-wide */
	DAMONCTL_HMETER_VMSTAT,		/* the system's THP counters */
	DAMONCTL_HMETER_CGROUP,		/* the targets' memory cgroups' */
};
struct damonctl_hugepage_meter_stats {
	size_t sz;			/* sizeof(struct damonctl_hugepage_meter_stats) */
	uint64_t reads;			/* damonctl_hugepage_meter_read() calls */
	uint64_t scans;			/* those that walked the page tables */
	uint64_t cached;		/* those answered with the last walk's huge memory */
	uint64_t scan_us_last;		/* CPU time of the last walk */
	uint64_t scan_us_total;		/* ... and of all of them */
	enum damonctl_hmeter_method method;
	enum damonctl_hmeter_source source;
};
DAMONCTL_API int damonctl_hugepage_meter_new(struct damonctl_ctx *ctx,
					     struct damonctl_hugepage_meter **out);
DAMONCTL_API void damonctl_hugepage_meter_free(struct damonctl_hugepage_meter *m);
/* The processes measured (none: system-wide); pids <= 0 are targets that exited. */
DAMONCTL_API int damonctl_hugepage_meter_set_pids(struct damonctl_hugepage_meter *m,
						  const int *pids, unsigned int nr);
/* @huge and @used, as damonctl_hugepage_measure() gives them; @flags: damonctl_hmeter_flag. */
DAMONCTL_API int damonctl_hugepage_meter_read(struct damonctl_hugepage_meter *m,
					      unsigned int flags, uint64_t *huge, uint64_t *used);
/* Process @i of the pids set, as the last read found it (@exists false: it exited, or no read
 * yet); -EINVAL past the last. */
struct damonctl_hugepage_meter_pid {
	size_t sz;			/* sizeof(struct damonctl_hugepage_meter_pid) */
	int pid;
	bool exists;
	uint64_t rss;			/* resident memory */
	uint64_t huge;			/* PMD-mapped memory of every kind (hugetlb aside) */
	uint64_t anon_huge;		/* ... of it anonymous (AnonHugePages) */
};
DAMONCTL_API int damonctl_hugepage_meter_pid(const struct damonctl_hugepage_meter *m,
					     unsigned int i, struct damonctl_hugepage_meter_pid *out);
/* The caller changed huge pages (a collapse): the next read walks the page tables. */
DAMONCTL_API void damonctl_hugepage_meter_invalidate(struct damonctl_hugepage_meter *m);
DAMONCTL_API int damonctl_hugepage_meter_stats(const struct damonctl_hugepage_meter *m,
					       struct damonctl_hugepage_meter_stats *st);

/*
 * Access coverage: the share of the accesses DAMON observed that fall in huge pages. Each
 * region weighs its nr_accesses times its bytes, and the bytes of it that lie in huge pages
 * are covered: coverage = sum(nr_accesses x huge bytes) / sum(nr_accesses x bytes). Where
 * DAMON observed no access at all the coverage is undefined (-ENODATA), neither 0 nor 100%.
 * A coverage is zeroed with its sz set by the caller, then added to (one process's regions
 * and huge ranges at a time) and merged (a kdamond's targets). See
 * damonctl_hugepage_coverage_add(3).
 */
struct damonctl_hugepage_coverage {
	size_t sz;			/* sizeof(struct damonctl_hugepage_coverage) */
	uint64_t bytes;			/* the regions' bytes, */
	uint64_t huge_bytes;		/* ... of them in huge pages */
	double accessed;		/* sum of nr_accesses x bytes */
	double accessed_huge;		/* sum of nr_accesses x bytes in huge pages */
};
/* Regions @regions (in any order) of one process whose huge ranges are @huge ([start, end)
 * pairs, sorted and disjoint, as damonctl_proc_huge_ranges() gives them). */
DAMONCTL_API int damonctl_hugepage_coverage_add(struct damonctl_hugepage_coverage *c,
						const struct damonctl_rec_region *regions,
						size_t nr, const uint64_t (*huge)[2],
						size_t nr_huge);
DAMONCTL_API int damonctl_hugepage_coverage_merge(struct damonctl_hugepage_coverage *into,
						  const struct damonctl_hugepage_coverage *c);
/* The coverage in basis points, rounded down; -ENODATA where no access was observed. */
DAMONCTL_API int damonctl_hugepage_coverage_bp(const struct damonctl_hugepage_coverage *c,
					       uint64_t *bp);
/* damonctl_hugepage_coverage_add() with the huge ranges of @pid that meter @m's last walk
 * found (no walk of its own); -ENOENT where it has none (not one of its pids, exited, no
 * read yet, or measured with smaps_rollup, which tells no ranges). */
DAMONCTL_API int damonctl_hugepage_meter_coverage(const struct damonctl_hugepage_meter *m,
						  int pid,
						  const struct damonctl_rec_region *regions,
						  size_t nr, struct damonctl_hugepage_coverage *c);

/*
 * A collapse plan for one process: which of its 2 MiB-aligned pages are hot and still small,
 * hottest first. Each observation takes the regions DAMON reports for the process (e.g. the
 * tried regions of a stat scheme that matches every region) and the access pattern of the
 * collapse scheme (damonctl_scheme_pattern()): a huge page is hot when it lies
 * wholly inside a region that pattern matches and inside one mapping, and a candidate once
 * it was hot in @confirm observations and in a region accessed as the pattern asks in every
 * observation since (a region DAMON has just split, merged or reset the age of says nothing
 * either way), and is not huge yet. Confirming over observations keeps out cold pages that a
 * region mixing hot and cold memory (or straddling a mapping boundary) passes for hot until
 * DAMON's next split sets them apart.
 */
struct damonctl_hugepage_plan;
DAMONCTL_API int damonctl_hugepage_plan_new(unsigned int confirm,
					    struct damonctl_hugepage_plan **out);
DAMONCTL_API void damonctl_hugepage_plan_free(struct damonctl_hugepage_plan *p);
/* What makes a region hot: a scheme's access pattern, each field a [min, max] bound (bytes,
 * samples with an access per aggregation interval, aggregation intervals). */
enum damonctl_pattern_field {
	DAMONCTL_PAT_SZ_MIN, DAMONCTL_PAT_SZ_MAX, DAMONCTL_PAT_NR_ACCESSES_MIN,
	DAMONCTL_PAT_NR_ACCESSES_MAX, DAMONCTL_PAT_AGE_MIN, DAMONCTL_PAT_AGE_MAX, DAMONCTL_PAT_NR
};
/* The access pattern of scheme @s. */
DAMONCTL_API void damonctl_scheme_pattern(const struct damonctl_scheme *s,
					  uint64_t pattern[DAMONCTL_PAT_NR]);
DAMONCTL_API int damonctl_hugepage_plan_observe(struct damonctl_ctx *ctx,
						struct damonctl_hugepage_plan *p, int pid,
						const struct damonctl_rec_region *regions,
						size_t nr,
						const uint64_t pattern[DAMONCTL_PAT_NR]);
/* What the last observation found, in bytes (ages in aggregation intervals). */
enum damonctl_hplan_value {
	DAMONCTL_HPLAN_HOT_HUGE,	/* accessed as the pattern asks, and huge already */
	DAMONCTL_HPLAN_HOT_SMALL,	/* hot, confirmed, small: what collapsing could add */
	DAMONCTL_HPLAN_UNCONFIRMED,	/* accessed as asked, not confirmed hot yet */
	DAMONCTL_HPLAN_COLD_HUGE,	/* huge, in regions with no access: budget gone cold */
	DAMONCTL_HPLAN_COLD_HUGE_MAX_AGE, /* the oldest such region's age */
	DAMONCTL_HPLAN_COLD_HUGE_AGE_SUM, /* sum of age x bytes (a weighted mean's numerator) */
	DAMONCTL_HPLAN_NR_VALUES
};
DAMONCTL_API uint64_t damonctl_hugepage_plan_get(const struct damonctl_hugepage_plan *p,
						 enum damonctl_hplan_value what);
/* The candidates, hottest first: the address of the @i-th (each 2 MiB long). */
DAMONCTL_API size_t damonctl_hugepage_plan_nr_candidates(const struct damonctl_hugepage_plan *p);
DAMONCTL_API uint64_t damonctl_hugepage_plan_candidate(const struct damonctl_hugepage_plan *p,
						       size_t i);
/* The huge page at @addr could not be collapsed: leave it out for a few observations. */
DAMONCTL_API void damonctl_hugepage_plan_failed(struct damonctl_hugepage_plan *p, uint64_t addr);

/*
 * Collapse the first candidates of @p from user space (process_madvise(MADV_COLLAPSE) on
 * @pidfd, which damonctl_pidfd_open() gives), hottest first: at most @max_pages huge pages,
 * and no new one once @max_us of time was spent (0: no time limit). A page that fails is
 * left out of the next observations for a while. Returns 0, or -ESRCH (the process exited),
 * -EPERM (no CAP_SYS_ADMIN), -ENOSYS (no process_madvise), with what was done in @res,
 * whose first field the caller sets to its size (the library fills only that much, so the
 * struct can grow).
 */
struct damonctl_collapse_result {
	size_t sz;		/* sizeof(struct damonctl_collapse_result), set by the caller */
	size_t pages_tried, pages_collapsed, pages_failed;
	uint64_t busy_us;	/* time spent in the kernel */
	bool out_of_time;	/* stopped by @max_us */
};
DAMONCTL_API int damonctl_hugepage_plan_collapse(struct damonctl_hugepage_plan *p, int pidfd,
						 size_t max_pages, uint64_t max_us,
						 struct damonctl_collapse_result *res);

/* ------------------------------------------------------------------------------------------
 * Process events: forks and exits as they happen, from the kernel's process events connector
 * (NETLINK_CONNECTOR, CN_IDX_PROC), e.g. to notice at once that a monitored process exited
 * or to follow its children. Needs CAP_NET_ADMIN in the initial namespaces. Only processes:
 * a thread's fork or exit is not reported.
 */
struct damonctl_procevents;
enum damonctl_procevent_kind { DAMONCTL_PROCEVENT_FORK, DAMONCTL_PROCEVENT_EXIT };
/* Set @sz (DAMONCTL_PROCEVENT_INIT): fields may be added at the end, and the library fills
 * only those @sz covers. */
struct damonctl_procevent {
	size_t sz;
	enum damonctl_procevent_kind kind;
	int pid;		/* FORK: the new process; EXIT: the process that exited */
	int parent_pid;		/* FORK: the process that forked it */
	int exit_code;		/* EXIT: as wait(2) reports it */
};
#define DAMONCTL_PROCEVENT_INIT { .sz = sizeof(struct damonctl_procevent) }
/*
 * Subscribe, and wait (up to 1 s) for the kernel to acknowledge. -EPERM without
 * CAP_NET_ADMIN, -EPROTONOSUPPORT without the connector, -EOPNOTSUPP when no acknowledgement
 * comes (a kernel without process events).
 */
DAMONCTL_API int damonctl_procevents_open(struct damonctl_procevents **out);
/* A file descriptor to poll(2) for POLLIN. */
DAMONCTL_API int damonctl_procevents_fd(const struct damonctl_procevents *pe);
/*
 * From now on, let the kernel pass only the exits of @pids and the forks they make (a
 * socket filter: the caller is not woken for the other processes of the system); @nr 0
 * passes none. Events queued before the call are still returned. -E2BIG past
 * DAMONCTL_PROCEVENTS_MAX_WATCH processes.
 */
#define DAMONCTL_PROCEVENTS_MAX_WATCH 64
DAMONCTL_API int damonctl_procevents_watch(struct damonctl_procevents *pe, const int *pids,
					   unsigned int nr);
/* The next event, without blocking: 1 with @ev filled, 0 when none is pending, -ENOBUFS
 * when the kernel dropped events (the caller should check what it follows), -EINVAL for an
 * @ev->sz smaller than the first struct with sz, or -errno. */
DAMONCTL_API int damonctl_procevents_next(struct damonctl_procevents *pe,
					  struct damonctl_procevent *ev);
/* Unsubscribe and free. */
DAMONCTL_API void damonctl_procevents_close(struct damonctl_procevents *pe);

/* ------------------------------------------------------------------------------------------
 * A command launched for monitoring (damo's `start -- COMMAND`): forked and held before its
 * exec, so that its pid can be a target of the kdamond being built and checked, then let go
 * before the kdamond starts (DAMON takes the address space a process has when it starts,
 * which before the exec is a copy of the caller's).
 */
struct damonctl_launch;
/* Where execvp(3) would find command @name ("/bin:/usr/bin" without $PATH): its path into
 * @path. -ENOENT, -EACCES (not executable), -EISDIR, -ENAMETOOLONG. */
DAMONCTL_API int damonctl_launch_find(const char *name, char *path, size_t size);
/* Fork a child that waits, then runs @path (damonctl_launch_find()'s) with @argv (NULL-
 * terminated) when released; -errno of socketpair(2), pipe2(2) or fork(2). */
DAMONCTL_API int damonctl_launch_new(const char *path, char *const argv[],
				     struct damonctl_launch **out);
DAMONCTL_API int damonctl_launch_pid(const struct damonctl_launch *l);
/* Let it run: 0 once it has exec'd, the -errno of its failed exec (it has exited with 127
 * then), -ESRCH when it ended before (killed), -EALREADY when released before. The caller
 * waits for it (waitpid(2)) from then on. */
DAMONCTL_API int damonctl_launch_release(struct damonctl_launch *l);
/* Free; a child still held is killed and reaped (the command never runs), one whose exec
 * failed reaped; a released one runs on. */
DAMONCTL_API void damonctl_launch_free(struct damonctl_launch *l);

/* ------------------------------------------------------------------------------------------
 * Units, parsed and printed in one place.
 */
#define DAMONCTL_MAX UINT64_MAX		/* what "max" parses to */

/* "5s", "100ms", "250us", "1.5m", "2h", "max"; a bare number is microseconds. */
DAMONCTL_API int damonctl_parse_time_us(const char *s, uint64_t *us);
/* "4096", "4K", "2MiB", "1.5G" (binary), "1MB" (decimal), "max"; a bare number is bytes. */
DAMONCTL_API int damonctl_parse_size(const char *s, uint64_t *bytes);
/* "80%", "12.5%", "500bp"; a bare number is a percentage. Result in basis points. */
DAMONCTL_API int damonctl_parse_percent_bp(const char *s, uint64_t *bp);
/* "500", "500bp", "5%": basis points; a bare number is basis points. */
DAMONCTL_API int damonctl_parse_bp(const char *s, uint64_t *bp);
/* A plain unsigned integer, base 0 like the kernel's (decimal, 0x hex, 0 octal), or "max". */
DAMONCTL_API int damonctl_parse_u64(const char *s, uint64_t *v);

/* Printing: "5 ms", "1.500 s", "max"; "2 MiB", "1.50 GiB", "max"; "5.00%" from bp. */
DAMONCTL_API int damonctl_fmt_time_us(uint64_t us, char *buf, size_t size);
DAMONCTL_API int damonctl_fmt_size(uint64_t bytes, char *buf, size_t size);
DAMONCTL_API int damonctl_fmt_bp(uint64_t bp, char *buf, size_t size);

/* An access rate in bp of samples to nr_accesses (samples per aggregation), rounding down
 * for minimums and up for maximums, and back; an age in microseconds to aggregations. */
DAMONCTL_API uint64_t damonctl_rate_bp_to_nr_accesses(uint64_t bp, uint64_t sample_us,
						      uint64_t aggr_us, bool round_up);
DAMONCTL_API uint64_t damonctl_nr_accesses_to_rate_bp(uint64_t nr, uint64_t sample_us,
						      uint64_t aggr_us);
DAMONCTL_API uint64_t damonctl_age_us_to_aggrs(uint64_t us, uint64_t aggr_us);

/* ------------------------------------------------------------------------------------------
 * Records: snapshots of DAMON's monitoring results over time, in damonc's binary record
 * format (docs/record-format.md: append-only checksummed chunks, readable up to the last
 * whole chunk after a crash), and damo's record JSON (plain or zlib-compressed).
 *
 * A record is a stream of items: an INFO item first (JSON text: who recorded what, how),
 * then CONFIG (the recorded kdamond's configuration as damonc JSON), SNAPSHOT (the regions
 * of one kdamond/context/target or scheme at one time), STATS (one scheme's stats at one
 * time) items in time order, and an END item when recording stopped cleanly. Readers keep
 * one item in memory at a time, whatever the record's length.
 */
#define DAMONCTL_RECORD_FORMAT_VERSION 1

/*
 * The structures of records grow as the kernel reports more: those the library hands out
 * (through item pointers: a reader's, a capture's, a merger's; valid until the next call on
 * it) may have members added at their end, their sz saying how long they are; those a
 * caller fills for a writer start with sz, set by the caller (the *_INIT macros), and the
 * writer reads only what sz covers, taking what lies past it as absent.
 */

/* A region DAMON found. Frozen: snapshots hold arrays of it, whose stride its size is, so it
 * never grows; new per-region figures come as arrays of the snapshot (as probe_hits). */
struct damonctl_rec_region {
	uint64_t start, end;		/* [start, end), bytes (paddr: in addr_unit) */
	uint32_t nr_accesses;		/* positive samples per aggregation interval */
	uint32_t age;			/* aggregation intervals */
	uint64_t sz_filter_passed;	/* 0 when unknown */
};

struct damonctl_rec_snapshot {
	size_t sz;			/* DAMONCTL_REC_SNAPSHOT_INIT (to write one) */
	uint32_t kdamond, context;
	int32_t target;			/* target index; -1: all targets of the context */
	int32_t scheme;			/* scheme whose tried regions these are; -1: none */
	uint64_t start_ns, end_ns;	/* the aggregation it shows, CLOCK_REALTIME ns */
	uint64_t sample_us, aggr_us, update_us;	/* the intervals in force */
	uint64_t total_bytes;		/* sum of region sizes (tried_regions/total_bytes) */
	bool has_sz_filter_passed;
	uint32_t nr_regions;
	const struct damonctl_rec_region *regions;	/* sorted by address per target */
	/* 7.2's access probes: how many samples of each region passed each probe's filters,
	 * nr_regions x nr_probes bytes, region by region (region i's hit of probe p is
	 * probe_hits[i * nr_probes + p]); 0 and NULL without probes */
	uint32_t nr_probes;
	const uint8_t *probe_hits;
	/* the operations-layer DAMOS filters whose passed bytes the regions' sz_filter_passed
	 * are (a capture's snapshot_filters, damo's scheme_filters): a JSON array of filters
	 * in damonctl-tree's shape ({"type", "matching", "allow", "memcg_path", "min", "max"}),
	 * in the kernel's order; NULL when none was installed or it is unknown (never "[]") */
	const char *ops_filters;
};
#define DAMONCTL_REC_SNAPSHOT_INIT { .sz = sizeof(struct damonctl_rec_snapshot) }

/* A scheme's cumulative stats at one time (stats/ files; has: which were present). */
enum damonctl_rec_stat {
	DAMONCTL_REC_NR_TRIED, DAMONCTL_REC_SZ_TRIED, DAMONCTL_REC_NR_APPLIED,
	DAMONCTL_REC_SZ_APPLIED, DAMONCTL_REC_SZ_OPS_FILTER_PASSED, DAMONCTL_REC_QT_EXCEEDS,
	DAMONCTL_REC_NR_SNAPSHOTS, DAMONCTL_REC_EFFECTIVE_BYTES, DAMONCTL_REC_NR_STATS
};
struct damonctl_rec_stats {
	size_t sz;			/* DAMONCTL_REC_STATS_INIT (to write them) */
	uint64_t time_ns;
	uint32_t kdamond, context, scheme;
	uint32_t has;			/* bit (1 << enum damonctl_rec_stat) per present value */
	char action[24];
	/* last, so that a later kernel's stat makes it longer: values past the caller's sz
	 * are absent to a writer */
	uint64_t v[DAMONCTL_REC_NR_STATS];
};
#define DAMONCTL_REC_STATS_INIT { .sz = sizeof(struct damonctl_rec_stats) }

enum damonctl_rec_end_reason {
	DAMONCTL_REC_END_DURATION,	/* --duration elapsed */
	DAMONCTL_REC_END_SIGNAL,	/* SIGINT or SIGTERM */
	DAMONCTL_REC_END_TARGET_EXITED,	/* every monitored process exited */
	DAMONCTL_REC_END_KDAMOND_STOPPED,
	DAMONCTL_REC_END_COUNT,		/* the requested number of snapshots */
	DAMONCTL_REC_END_CONVERTED,	/* written from another record */
	DAMONCTL_REC_END_OUTPUT_CLOSED,	/* the reader of the output went away */
	DAMONCTL_REC_END_ERROR,		/* recording failed; what came before is whole */
};
DAMONCTL_API const char *damonctl_rec_end_reason_name(enum damonctl_rec_end_reason r);

struct damonctl_rec_end {
	size_t sz;			/* the library's: sizeof its struct */
	uint64_t time_ns;
	uint64_t nr_snapshots;		/* SNAPSHOT items written */
	enum damonctl_rec_end_reason reason;
};

enum damonctl_rec_item_type {
	DAMONCTL_REC_INFO = 1, DAMONCTL_REC_CONFIG, DAMONCTL_REC_SNAPSHOT, DAMONCTL_REC_STATS,
	DAMONCTL_REC_END,
	DAMONCTL_REC_FOOTPRINT,	/* json, time_ns: the memory footprint (docs/record-format.md) */
};

/* An item as a reader or a capture gives it: set @sz (DAMONCTL_REC_ITEM_INIT); the library
 * fills what it covers. The pointers of the other types are NULL. */
struct damonctl_rec_item {
	size_t sz;
	enum damonctl_rec_item_type type;
	const char *json;			/* INFO, CONFIG, FOOTPRINT: NUL-terminated JSON */
	uint64_t time_ns;			/* CONFIG, FOOTPRINT */
	const struct damonctl_rec_snapshot *snapshot;	/* SNAPSHOT */
	const struct damonctl_rec_stats *stats;		/* STATS */
	const struct damonctl_rec_end *end;		/* END */
};
#define DAMONCTL_REC_ITEM_INIT { .sz = sizeof(struct damonctl_rec_item) }

/* Writing damonc's format to @fd (a file or a pipe; never seeks). */
#define DAMONCTL_REC_COMPRESS (1u << 0)	/* zlib-compress snapshot payloads (level 1) */
struct damonctl_rec_writer;
/* Writes the file header and an INFO item holding @info_json (a JSON object, or NULL). */
DAMONCTL_API int damonctl_rec_writer_new(int fd, unsigned int flags, const char *info_json,
					 struct damonctl_rec_writer **out);
DAMONCTL_API int damonctl_rec_write_config(struct damonctl_rec_writer *w, uint64_t time_ns,
					   const char *json);
/* -EINVAL for an @s->sz (@st->sz) smaller than the first struct with sz. */
DAMONCTL_API int damonctl_rec_write_snapshot(struct damonctl_rec_writer *w,
					     const struct damonctl_rec_snapshot *s);
/* The memory footprint at @time_ns: a JSON object as docs/record-format.md describes. */
DAMONCTL_API int damonctl_rec_write_footprint(struct damonctl_rec_writer *w, uint64_t time_ns,
					      const char *json);
DAMONCTL_API int damonctl_rec_write_stats(struct damonctl_rec_writer *w,
					  const struct damonctl_rec_stats *st);
/* Writes END (unless @reason < 0: leave the record open-ended) and frees @w. Does not close
 * the fd. Each item goes out in one write(): -EPIPE when the reader went away. */
DAMONCTL_API int damonctl_rec_writer_finish(struct damonctl_rec_writer *w, int reason);
/* Bytes written so far. */
DAMONCTL_API uint64_t damonctl_rec_writer_bytes(const struct damonctl_rec_writer *w);

/* Reading: damonc's format, damo's JSON or damo's zlib-compressed JSON, told apart by
 * content. damo's document is streamed too, one snapshot object at a time, in its order. */
enum damonctl_rec_format {
	DAMONCTL_REC_FMT_DAMONC, DAMONCTL_REC_FMT_DAMO_JSON, DAMONCTL_REC_FMT_DAMO_ZLIB,
};
struct damonctl_rec_reader;
/* -EBADMSG (with a sentence in @why) when @fd holds none of these formats. */
DAMONCTL_API int damonctl_rec_reader_new(int fd, struct damonctl_rec_reader **out, char *why,
					 size_t size);
/* The next item: 1, 0 at the end of the record (complete or cut short: see the status), or
 * -errno (-EIO for a read error; -EINVAL for an @item->sz smaller than the first struct with
 * sz). Pointers in @item stay valid until the next call. */
DAMONCTL_API int damonctl_rec_next(struct damonctl_rec_reader *r, struct damonctl_rec_item *item);
/* Back to the first item; -ESPIPE when the input cannot seek (a pipe). */
DAMONCTL_API int damonctl_rec_rewind(struct damonctl_rec_reader *r);
/* A damo record's side files (damo record's FILE.mem_footprint and FILE.vmas: their text;
 * @vmas may be NULL) read as FOOTPRINT items among its snapshots, each before the first
 * snapshot that ended after it was taken (memory and mappings in bytes, as damonc records
 * them; damo's pages taken as 4 KiB, as damo takes them). 0, -ENOMEM, or -EINVAL (not a
 * damo record, or not damo's documents). */
DAMONCTL_API int damonctl_rec_reader_damo_footprints(struct damonctl_rec_reader *r,
						      const char *mem_footprint,
						      const char *vmas);
DAMONCTL_API void damonctl_rec_reader_free(struct damonctl_rec_reader *r);

struct damonctl_rec_status {
	enum damonctl_rec_format format;
	uint64_t bytes_ok;	/* bytes of whole, valid chunks read so far */
	uint64_t bytes_lost;	/* at the end: bytes after the last whole chunk */
	bool complete;		/* an END item was read (damo's formats: always) */
	bool corrupt;		/* a checksum or length failed (else the data just stopped) */
	uint64_t nr_snapshots;	/* SNAPSHOT items returned so far */
};
DAMONCTL_API void damonctl_rec_status(const struct damonctl_rec_reader *r,
				      struct damonctl_rec_status *st);

/* Write every snapshot of @r as damo's record JSON (one record per kdamond, context,
 * target and scheme, as damo groups them; zlib-compressed with @zlib, as `damo record`
 * writes by default). Needs a reader that can rewind (one pass per series). */
DAMONCTL_API int damonctl_rec_export_damo(struct damonctl_rec_reader *r, int fd, bool zlib);

/*
 * Re-aggregation: each series' snapshots merged into one per @window_us of monitoring, as a
 * longer aggregation interval would show them (damo adjust --aggregate_interval). Windows lie
 * on a grid from the series' first snapshot; a snapshot joins the window its end falls in.
 * Merged regions are cut at every boundary of the merged ones: a byte's nr_accesses is the
 * sum of those of the regions that held it, its age the newest one's (in the new aggregation
 * intervals: aggr_us is the merged ones' sum, sample_us keeps the access rate exact); its
 * probe hits add up as nr_accesses do, up to 255 (the kernel's byte; -E2BIG past 16 probes).
 * A window's ops_filters are its snapshots' while they are the same, NULL when they change.
 * damonctl_rec_merger_add() returns 1 when @s began a new window and *@out points to the
 * window before it, 0 when it was only kept, -errno; damonctl_rec_merger_flush() gives the
 * windows still open, one per call (1), then 0. *@out is the merger's, valid until the next
 * call (-EINVAL for an @s->sz smaller than the first struct with sz).
 */
struct damonctl_rec_merger;
DAMONCTL_API int damonctl_rec_merger_new(uint64_t window_us, struct damonctl_rec_merger **out);
DAMONCTL_API int damonctl_rec_merger_add(struct damonctl_rec_merger *m,
					 const struct damonctl_rec_snapshot *s,
					 const struct damonctl_rec_snapshot **out);
DAMONCTL_API int damonctl_rec_merger_flush(struct damonctl_rec_merger *m,
					   const struct damonctl_rec_snapshot **out);
DAMONCTL_API void damonctl_rec_merger_free(struct damonctl_rec_merger *m);

/*
 * Reading one scheme's tried regions (after DAMONCTL_CMD_UPDATE_SCHEMES_TRIED_REGIONS)
 * straight from sysfs into @regions (grown with realloc as needed; *cap is its capacity),
 * without building a model: what `damonc record` does for every snapshot. Returns the
 * number of regions or -errno. *total_bytes gets tried_regions/total_bytes (or the sum of
 * the sizes on kernels without it); *has_sz_filter_passed whether regions have that file
 * (@has_sz_filter_passed NULL: that file is not read, a fifth fewer reads for callers that
 * do not need it).
 */
DAMONCTL_API int damonctl_tried_regions_read(struct damonctl_ctx *ctx, unsigned int kdamond,
					     unsigned int context, unsigned int scheme,
					     struct damonctl_rec_region **regions, size_t *cap,
					     uint64_t *total_bytes, bool *has_sz_filter_passed);

/* ------------------------------------------------------------------------------------------
 * Trace events: DAMON's tracepoints (include/trace/events/damon.h) as text and as tracefs's
 * binary ring buffer, and tracefs instances of the caller's own to enable them in. The
 * objects are opaque and their limits internal, so they can grow.
 */

/*
 * One line of trace text, as tracefs's trace_pipe, `trace-cmd report` or `perf script`
 * print it: the task, pid, CPU (-1 when not printed), the trace clock's time, the event's
 * name (without perf's "damon:") and its fields in order. A field is "key=value" (a number,
 * a list when bare numbers follow, as probe_hits=14 00, or text), and a region's
 * "START-END: NR_ACCESSES AGE" gives the fields start, end, nr_accesses and age. Which fields
 * an event has changed over kernel versions: none is assumed. Field indexes run from 0 to
 * _nr_fields() - 1; an index out of range gives NULL, 0 or false.
 */
struct damonctl_trace_event;
DAMONCTL_API int damonctl_trace_event_new(struct damonctl_trace_event **out);
DAMONCTL_API void damonctl_trace_event_free(struct damonctl_trace_event *ev);
/* 0, or -EINVAL for a line that holds no event (a header, a comment, a lost-events note). */
DAMONCTL_API int damonctl_trace_event_parse(struct damonctl_trace_event *ev, const char *line);
DAMONCTL_API const char *damonctl_trace_event_name(const struct damonctl_trace_event *ev);
DAMONCTL_API const char *damonctl_trace_event_task(const struct damonctl_trace_event *ev);
DAMONCTL_API int damonctl_trace_event_pid(const struct damonctl_trace_event *ev);
DAMONCTL_API int damonctl_trace_event_cpu(const struct damonctl_trace_event *ev);
DAMONCTL_API uint64_t damonctl_trace_event_ts_ns(const struct damonctl_trace_event *ev);
DAMONCTL_API unsigned int damonctl_trace_event_nr_fields(const struct damonctl_trace_event *ev);
/* The index of the field named @key, or -ENOENT. */
DAMONCTL_API int damonctl_trace_event_field_index(const struct damonctl_trace_event *ev,
						  const char *key);
DAMONCTL_API const char *damonctl_trace_event_field_key(const struct damonctl_trace_event *ev,
							unsigned int i);
/* The numbers of a field: 1 for a number, any count for a list, 0 for text or "key=". */
DAMONCTL_API unsigned int damonctl_trace_event_field_nr_values(
	const struct damonctl_trace_event *ev, unsigned int i);
DAMONCTL_API uint64_t damonctl_trace_event_field_u64(const struct damonctl_trace_event *ev,
						     unsigned int i, unsigned int j);
/* Whether bare numbers followed "key=value" (a list, even of one). */
DAMONCTL_API bool damonctl_trace_event_field_is_list(const struct damonctl_trace_event *ev,
						     unsigned int i);
/* A value that is no number, or NULL. */
DAMONCTL_API const char *damonctl_trace_event_field_text(const struct damonctl_trace_event *ev,
							 unsigned int i);

/*
 * tracefs's binary ring buffer (per_cpu/cpuN/trace_pipe_raw), decoded without libtraceevent:
 * the page's layout from the instance's events/header_page, the damon_aggregated record's
 * from its events/damon/damon_aggregated/format (its fields changed over kernel versions).
 * Records are in the machine's byte order.
 */
struct damonctl_trace_raw;
DAMONCTL_API int damonctl_trace_raw_new(struct damonctl_trace_raw **out);
DAMONCTL_API void damonctl_trace_raw_free(struct damonctl_trace_raw *r);
/* -EINVAL when a field damonc needs is missing (target_id, nr_regions, start, end,
 * nr_accesses; age is 0 where absent), or a header_page that does not add up. */
DAMONCTL_API int damonctl_trace_raw_set_format(struct damonctl_trace_raw *r, const char *text);
DAMONCTL_API int damonctl_trace_raw_set_header_page(struct damonctl_trace_raw *r,
						    const char *text);
/* What one read of trace_pipe_raw returns; 0 before the header page is set. */
DAMONCTL_API size_t damonctl_trace_raw_page_size(const struct damonctl_trace_raw *r);

/* One damon_aggregated record. @size: sizeof the structure the library filled; fields
 * added later lie past it. */
struct damonctl_trace_region {
	size_t size;
	uint64_t ts_ns;			/* the trace clock */
	uint64_t target_id, start, end;
	uint32_t nr_regions, nr_accesses, age;
};
typedef int (*damonctl_trace_region_fn)(void *arg, const struct damonctl_trace_region *reg);
/*
 * Decode one page of @len bytes: @fn for each damon_aggregated record, in order. 0, @fn's
 * nonzero return, or -EINVAL for a page that does not add up (decoding stops there) or
 * before both the format and the header page are set. *@missed: the kernel lost events
 * before this page (a full buffer).
 */
DAMONCTL_API int damonctl_trace_raw_parse_page(const struct damonctl_trace_raw *r,
					       const unsigned char *page, size_t len,
					       damonctl_trace_region_fn fn, void *arg,
					       bool *missed);

/*
 * A tracefs instance of the caller's own, <sysroot>/sys/kernel/tracing/instances/NAME-PID
 * (PID: the caller's): its own ring buffer and event switches, so nobody else's tracing is
 * touched. @file is relative to the instance ("events/damon/damon_aggregated/enable");
 * events are "group/name" ("damon/damon_aggregated").
 */
struct damonctl_trace_instance;
/* Whether tracefs has @event and it can be enabled. */
DAMONCTL_API bool damonctl_trace_has_event(struct damonctl_ctx *ctx, const char *event);
/* The DAMON trace events kernels have had, in the order they came
 * (damonctl_trace_instance_create(3)):
 * the i-th name ("damon_aggregated", ...), NULL past the last; the version that added it
 * into *@since (DAMONCTL_VERSION; NULL: not wanted). */
DAMONCTL_API const char *damonctl_trace_damon_event(unsigned int i, int *since);
/* Each DAMON event this kernel's tracefs has and can enable (events/damon/), to @fn; a
 * nonzero return of @fn stops the walk and is returned. -ENOENT: no DAMON events. */
DAMONCTL_API int damonctl_trace_kernel_events(struct damonctl_ctx *ctx,
					      int (*fn)(void *data, const char *event),
					      void *data);
/* -ENOENT without tracefs, -EEXIST when this process has one of that name already. */
DAMONCTL_API int damonctl_trace_instance_create(struct damonctl_ctx *ctx, const char *name,
						struct damonctl_trace_instance **out);
/* The instance's directory (per_cpu/ holds each CPU's trace_pipe_raw). */
DAMONCTL_API const char *damonctl_trace_instance_dir(const struct damonctl_trace_instance *t);
DAMONCTL_API int damonctl_trace_instance_put(const struct damonctl_trace_instance *t,
					     const char *file, const char *value);
/* Reads @file into @buf, NUL-terminated: its length (at most @size - 1) or -errno. */
DAMONCTL_API int damonctl_trace_instance_get(const struct damonctl_trace_instance *t,
					     const char *file, char *buf, size_t size);
/* @file opened read-only and non-blocking: a file descriptor or -errno. */
DAMONCTL_API int damonctl_trace_instance_open(const struct damonctl_trace_instance *t,
					      const char *file);
DAMONCTL_API int damonctl_trace_instance_open_pipe(const struct damonctl_trace_instance *t);
/* Disables @events (NULL-terminated, NULL for none) and their filters, removes the instance
 * and frees @t (NULL allowed): 0 or the -errno of the removal. */
DAMONCTL_API int damonctl_trace_instance_remove(struct damonctl_trace_instance *t,
						const char *const *events);
/* Removes the instances NAME-PID whose process no longer exists (killed before removing
 * theirs), as damonctl_trace_instance_remove() does: how many, or -errno. */
DAMONCTL_API int damonctl_trace_instance_remove_stale(struct damonctl_ctx *ctx,
						      const char *name,
						      const char *const *events);

/* ------------------------------------------------------------------------------------------
 * Live capture of a running kdamond: its regions and the stats of its schemes, as the items
 * a record holds (struct damonctl_rec_item: CONFIG first, then SNAPSHOT, STATS and FOOTPRINT
 * items as they are taken), so a live capture and a record file are read the same way.
 *
 * Method "tried-regions": a `stat` scheme matching every region (the capture scheme) is
 * installed with a commit unless the kdamond has one, and each snapshot is
 * update_schemes_tried_regions and a read of its tried_regions directory. Method "trace":
 * the damon:damon_aggregated trace event, filtered to the kdamond's pid in a tracefs
 * instance of the caller's own; it writes nothing under the DAMON tree (stats only where
 * writing is allowed). damonctl_capture_close() undoes what damonctl_capture_open()
 * installed. One capture per kdamond at a time: callers that share a kdamond serialize open
 * and close among themselves (damonc holds its run directory's lock).
 */
enum damonctl_capture_method {
	DAMONCTL_CAPTURE_AUTO,		/* trace where the event is there, else tried-regions */
	DAMONCTL_CAPTURE_TRIED_REGIONS,
	DAMONCTL_CAPTURE_TRACE,
};
/* How method trace reads the ring buffer: the binary per-CPU pages (cheaper), falling back
 * to trace_pipe's text where their layout cannot be read (AUTO), or one of them only. */
enum damonctl_capture_reader {
	DAMONCTL_CAPTURE_READER_AUTO,
	DAMONCTL_CAPTURE_READER_TEXT,
	DAMONCTL_CAPTURE_READER_RAW,
};
struct damonctl_capture;
/* The longest interval or duration a capture takes (a year): its nanosecond arithmetic
 * cannot overflow (-ERANGE above it). */
#define DAMONCTL_WAIT_MAX_US (UINT64_C(366) * 86400 * 1000000)
/* The options; set @sz to sizeof(struct damonctl_capture_opts) (DAMONCTL_CAPTURE_OPTS_INIT
 * does), so fields can be added: the library reads only @sz bytes. */
struct damonctl_capture_opts {
	size_t sz;
	enum damonctl_capture_method method;
	uint64_t interval_us;		/* between snapshots; 0: one second */
	uint64_t duration_us;		/* 0: until ended */
	uint64_t count;			/* snapshots (ticks) to take; 0: unlimited */
	/* the kdamond's first @builtin schemes are capture schemes its start put there
	 * (damonctl_capture_add_schemes): none is installed, and CONFIG leaves them out */
	unsigned int builtin;
	/* writes to the kdamond are agreed to (the caller started it, or its user said so):
	 * method tried-regions needs it, and trace asks for stats only with it */
	bool allow_foreign;
	bool no_footprints;		/* no FOOTPRINT items */
	/* > 0: the capture ends (TARGET_EXITED) when this process exits. It is not reaped:
	 * a child stays the caller's to wait for. */
	int end_pid;
	/* where a note of the installed capture scheme is left while it is installed, so that
	 * damonctl_capture_recover() can remove it if this process is killed; NULL: no note */
	const char *state_dir;
	enum damonctl_capture_reader trace_reader;
	/* operations-layer DAMOS filters the capture schemes apply (damo's
	 * --snapshot_damos_filter): those of this model scheme (its ops_filters, then the
	 * operations-layer types of its filters/, in the kernel's order), copied after each
	 * capture scheme's target filter into the directory this kernel has (ops_filters from
	 * 6.15, filters/ before); each region's sz_filter_passed is then the part of it they
	 * pass, and every snapshot's ops_filters names them. Method tried-regions only (AUTO
	 * takes it). NULL, or a scheme without filters: none. Read during open only. */
	const struct damonctl_scheme *snapshot_filters;
	/* of_scheme: no capture scheme; the snapshots are the tried regions of the kdamond's
	 * own scheme @scheme (damo's --tried_regions_of): the regions it tried, each snapshot's
	 * scheme it, its ops_filters the scheme's ops filters, and its STATS come as usual.
	 * Method tried-regions (AUTO takes it). */
	bool of_scheme;
	unsigned int scheme;
};
#define DAMONCTL_CAPTURE_OPTS_INIT { .sz = sizeof(struct damonctl_capture_opts) }
/*
 * Capture kdamond @kdamond (running, one context). 0 with *@out capturing, or -errno:
 * -ENOENT no such kdamond, -ESRCH it is not running, -EPERM tried-regions without
 * @allow_foreign, -EOPNOTSUPP the method is not available here (no damon_aggregated event,
 * or no tried_regions), -EINVAL bad options or not exactly one context, -E2BIG more than 64
 * schemes, -ESTALE fewer schemes than @builtin. With @snapshot_filters: -EINVAL for a core
 * layer's filter (addr, target) among them or method trace (its events carry no
 * sz_filter_passed); -EOPNOTSUPP for a kernel without allow and sz_filter_passed (6.14), a
 * vaddr or fvaddr kdamond before 6.18 (their stat action counts no filter-passed bytes),
 * or a filter type this kernel lacks; -ENOENT for a memcg path that names no cgroup (the
 * last error has the directory looked up as path and the filter's memcg path as value;
 * -EINVAL when it does not start with '/'). With @of_scheme: -EINVAL with method trace or
 * snapshot filters, -ENOENT for a scheme the kdamond does not have. Those refusals come
 * before anything is written and, but for the cgroup's, leave no last error; a failed file
 * access is named by damonctl_last_error().
 */
DAMONCTL_API int damonctl_capture_open(struct damonctl_ctx *ctx, unsigned int kdamond,
				       const struct damonctl_capture_opts *opts,
				       struct damonctl_capture **out);
/* The next item: 1, 0 when the capture ended (damonctl_capture_end_reason()), -errno
 * (-EINVAL for an @item->sz smaller than the first struct with sz). Pointers in @item stay
 * valid until the next call. */
DAMONCTL_API int damonctl_capture_next(struct damonctl_capture *c,
				       struct damonctl_rec_item *item);
/* Ask the capture to end: damonctl_capture_next() returns 0 at its next wait. Only stores
 * @why in a sig_atomic_t, so a signal handler may call it (async-signal-safe); the first
 * request wins. */
DAMONCTL_API void damonctl_capture_request_end(struct damonctl_capture *c,
					       enum damonctl_rec_end_reason why);
DAMONCTL_API enum damonctl_rec_end_reason
damonctl_capture_end_reason(const struct damonctl_capture *c);
/* The method taken (never AUTO) and the kdamond. */
DAMONCTL_API enum damonctl_capture_method
damonctl_capture_get_method(const struct damonctl_capture *c);
DAMONCTL_API unsigned int damonctl_capture_kdamond(const struct damonctl_capture *c);
/* How well the capture kept up with its interval; set @sz as for the options. */
struct damonctl_capture_pace {
	size_t sz;
	uint64_t interval_us;		/* the interval snapshots were due at */
	uint64_t taken, missed;		/* snapshots (ticks) taken, and due but not taken */
	uint64_t mean_work_us;		/* tried-regions: the time one tick takes */
	uint64_t max_late_us;		/* the worst lateness of a snapshot */
	bool trace;			/* events came from the trace (no work time) */
};
DAMONCTL_API void damonctl_capture_pace(const struct damonctl_capture *c,
					struct damonctl_capture_pace *p);
/* Undo what open installed (the kdamond's configuration committed back, or only staged
 * when it stopped meanwhile) and free @c (NULL allowed): 0 or -errno (the capture scheme
 * may then still be installed; its note stays for damonctl_capture_recover()). */
DAMONCTL_API int damonctl_capture_close(struct damonctl_capture *c);
/* The method AUTO takes on this system; others are themselves. */
DAMONCTL_API enum damonctl_capture_method
damonctl_capture_method_for(struct damonctl_ctx *ctx, enum damonctl_capture_method m);
/* Whether @s is a `stat` scheme with the all-inclusive pattern, no quota, goals or
 * watermarks, and at most @max_filters filters: one that shows every region (0), or one a
 * capture installs (a target filter each where there are several targets). */
DAMONCTL_API bool damonctl_capture_pattern_all(const struct damonctl_scheme *s,
					       unsigned int max_filters);
/* Add the capture schemes a tried-regions capture needs to @c (the context of a kdamond not
 * yet started, its targets in place): one per target where a target filter can tell them
 * apart, else one. How many (pass it as @builtin), or -errno. */
DAMONCTL_API int damonctl_capture_add_schemes(struct damonctl_context *c,
					      const struct damonctl_features *f);
/* Remove the capture schemes that captures killed before their close left, from the notes
 * in @state_dir (those of live processes are left): what was done is logged (WARN) on
 * @ctx. 0, or the -errno of the first that could not be removed (its note stays). */
DAMONCTL_API int damonctl_capture_recover(struct damonctl_ctx *ctx, const char *state_dir);
/* The notes of killed captures not yet recovered: their kdamonds and capturing pids, at
 * most @max. Reads only; how many. */
DAMONCTL_API unsigned int damonctl_capture_leftovers(const char *state_dir,
						     unsigned int *kdamonds, int *pids,
						     unsigned int max);

/* ------------------------------------------------------------------------------------------
 * User-space fallbacks: running a hugepage_mem_bp goal or a collapse scheme on a kernel that
 * lacks them, with a program's help (damonc's agent is one such program).
 *
 * - A hugepage_mem_bp goal the kernel cannot measure (before 7.4, or over the target
 *   processes rather than the system) becomes a user_input goal with the same target, whose
 *   current value the program measures (damonctl_hugepage_measure()) and feeds with
 *   DAMONCTL_CMD_COMMIT_SCHEMES_QUOTA_GOALS.
 * - A collapse scheme with a hugepage_mem_bp goal (or, without the kernel's collapse action,
 *   any collapse scheme) becomes a collapse budget counted in huge pages, per target. A stat
 *   scheme matching every region of the target (the observer) shows DAMON's regions
 *   (tried_regions) to a collapse plan (damonctl_hugepage_plan_new()), and
 *   - where the kernel has the collapse action (7.2), the kernel collapses: the scheme is
 *     allowed no address (allow filters) until the program allows the pages it picked;
 *   - where it has not, the scheme becomes a stat scheme with the same access pattern, and
 *     the program collapses (damonctl_hugepage_plan_collapse()) within the scheme's quota.
 *   On 7.2+ a collapse scheme without a goal is the kernel's alone.
 * See damonctl_fallback_plan(3).
 */
enum damonctl_fallback_kind {
	DAMONCTL_FALLBACK_HUGEPAGE_GOAL,	/* feed goal `goal` of scheme `scheme` */
	DAMONCTL_FALLBACK_COLLAPSE,		/* a collapse budget for target `target` */
};
/*
 * One entry of a plan. Its first field the caller sets to its size: the library reads and
 * fills only that much, so the struct can grow.
 */
struct damonctl_fallback {
	size_t sz;		/* sizeof(struct damonctl_fallback), set by the caller */
	enum damonctl_fallback_kind kind;
	/* HUGEPAGE_GOAL: the scheme with the goal. COLLAPSE: the collapse scheme, the kernel's
	 * (by_kernel) or the stat scheme standing in for it */
	unsigned int scheme;
	unsigned int goal;	/* HUGEPAGE_GOAL: the goal's index in the scheme */
	unsigned int observer;	/* COLLAPSE: the stat scheme matching every region */
	unsigned int tmpl;	/* COLLAPSE: the user's scheme it was made from (per-target
				 * copies share it) */
	unsigned int target;	/* COLLAPSE: the target (index) whose memory it collapses */
	bool by_kernel;		/* COLLAPSE: the kernel collapses what the program allows */
	bool scope_pid;		/* measure over the target processes, not the system */
	uint64_t target_bp;	/* the hugepage_mem_bp goal; 0: none (COLLAPSE only) */
	/* COLLAPSE by the program: the scheme's quota, enforced by the program. By the kernel:
	 * quota_bytes is the user's size quota, to put back while allowing something */
	uint64_t quota_ms, quota_bytes;
	uint64_t reset_ms;	/* the quota interval: the program's round */
	uint64_t pattern[DAMONCTL_PAT_NR];	/* COLLAPSE: the scheme's access pattern */
};
/*
 * The size quota of a kernel's collapse scheme while the program allows it nothing: the
 * kernel cuts regions where the effective quota ends before it looks at filters, and a quota
 * under the minimum region size cuts nothing.
 */
#define DAMONCTL_FALLBACK_CLOSED_QUOTA_BYTES 1

/* A plan: an ordered list of entries (at most 160). */
struct damonctl_fallbacks;
DAMONCTL_API int damonctl_fallbacks_new(struct damonctl_fallbacks **out);
DAMONCTL_API void damonctl_fallbacks_free(struct damonctl_fallbacks *fbs);
DAMONCTL_API unsigned int damonctl_fallbacks_count(const struct damonctl_fallbacks *fbs);
/* Entry @i into @fb (fb->sz set): -ENOENT past the end. */
DAMONCTL_API int damonctl_fallbacks_get(const struct damonctl_fallbacks *fbs, unsigned int i,
					struct damonctl_fallback *fb);
/* Entries changed by the program (a target that moved, a goal retargeted): -EINVAL for an
 * unknown kind or a size too small, -ENOENT past the end; add: -ENOSPC when full. */
DAMONCTL_API int damonctl_fallbacks_set(struct damonctl_fallbacks *fbs, unsigned int i,
					const struct damonctl_fallback *fb);
DAMONCTL_API int damonctl_fallbacks_add(struct damonctl_fallbacks *fbs,
					const struct damonctl_fallback *fb);
DAMONCTL_API int damonctl_fallbacks_remove(struct damonctl_fallbacks *fbs, unsigned int i);
/*
 * Rewrite kdamond @k (its first context) so that this kernel (@f) runs it with the program's
 * help where that is needed, appending what the program must do to @fbs. Schemes an entry
 * of @fbs serves already (a kdamond planned before, being tuned) are left as they are. 0
 * (nothing may be needed); -EOPNOTSUPP when neither the kernel nor a program can do it
 * (collapse without tried_regions), -EINVAL (e.g. collapse on paddr), each with a sentence
 * in @why; @fbs is untouched on failure, @k is not.
 */
DAMONCTL_API int damonctl_fallback_plan(struct damonctl_ctx *ctx, struct damonctl_kdamond *k,
					const struct damonctl_features *f, bool scope_pid,
					struct damonctl_fallbacks *fbs, char *why, size_t size);
/* After a change of @k's schemes: their access patterns and quotas taken again. */
/* The kernel's collapse scheme of each by-kernel COLLAPSE entry of @fbs on running kdamond
 * @kdamond closed again (no address allowed, the closed quota), committed online when one
 * was open: what a server killed with a grant open (SIGKILL, the OOM killer) left the
 * kernel doing. The number closed (0: none was open), or -errno. */
DAMONCTL_API int damonctl_fallbacks_close(struct damonctl_ctx *ctx, unsigned int kdamond,
					  const struct damonctl_fallbacks *fbs);
DAMONCTL_API void damonctl_fallbacks_refresh(struct damonctl_fallbacks *fbs,
					     const struct damonctl_kdamond *k);
/* A hugepage_mem_bp goal of scheme @scheme (of @c, the model the plan serves) moved to
 * @target_bp where the plan stands in for it: the entries of that scheme and of its
 * per-target copies, and the user_input goal the kernel tunes to; @scope_pid 0 or 1 moves the scope with it (-1: kept). Returns
 * how many entries changed (0: the plan serves no goal of that scheme), or -EINVAL. */
DAMONCTL_API int damonctl_fallbacks_set_goal(struct damonctl_fallbacks *fbs,
					     struct damonctl_context *c, unsigned int scheme,
					     uint64_t target_bp, int scope_pid);
/* Whether scheme @scheme is one an entry serves (or observes with). */
DAMONCTL_API bool damonctl_fallbacks_serves(const struct damonctl_fallbacks *fbs,
					    unsigned int scheme);
/* Whether scheme @scheme is the plan's own (an observer, a per-target copy), not the user's. */
DAMONCTL_API bool damonctl_fallbacks_agents_scheme(const struct damonctl_fallbacks *fbs,
						   unsigned int scheme);
/* The user's scheme that entry @i serves (a per-target copy stands for its template);
 * UINT32_MAX past the end. */
DAMONCTL_API unsigned int damonctl_fallbacks_user_scheme(const struct damonctl_fallbacks *fbs,
							 unsigned int i);
/* -EINVAL with @why when @fbs serves more than one of the user's schemes (damonc's agent
 * keeps one set of figures per kdamond). */
DAMONCTL_API int damonctl_fallbacks_check_one_scheme(const struct damonctl_fallbacks *fbs,
						     char *why, size_t size);
/* The plan as a malloc'd JSON array (damonctl-json(5), "fallbacks"), to store with the
 * kdamond; read back into @fbs (replaced; untouched on failure, -EBADMSG with @why). */
DAMONCTL_API char *damonctl_fallbacks_to_json(const struct damonctl_fallbacks *fbs);
DAMONCTL_API int damonctl_fallbacks_from_json(const char *doc, struct damonctl_fallbacks *fbs,
					      char *why, size_t size);
/*
 * After the targets of @c (the context @fbs plans for) changed: target @old_index[k] of
 * before is target k now (k < @nr_live; targets not listed are gone), and target @child
 * (UINT32_MAX: none) is new. Each collapse budget follows its target; the child gets the
 * budget of a target gone, else copies (appended to @c) of the schemes of the first collapse
 * budget, with the hugepage_mem_bp goal fed on them; the schemes of budgets still left over
 * are kept to target @nowhere (an index no target will have) and leave @fbs. 0 (also when
 * @fbs has no collapse budget); -EOPNOTSUPP without target filters (@f), -ENOSPC when @fbs
 * is full, -EINVAL, -ENOMEM: @fbs untouched, @c maybe half changed.
 */
DAMONCTL_API int damonctl_fallbacks_retarget(struct damonctl_fallbacks *fbs,
					     struct damonctl_context *c,
					     const struct damonctl_features *f,
					     const unsigned int *old_index, unsigned int nr_live,
					     unsigned int child, unsigned int nowhere);

/* ------------------------------------------------------------------------------------------
 * Huge-page reports: what a report on huge pages gathers, read only. See damonctl_thp(3),
 * damonctl_hugepage_proc(3), damonctl_khugepaged_trace(3), damonctl_hugepage_rec(3).
 *
 * THP: the modes and khugepaged's settings and counters under
 * <sysroot>/sys/kernel/mm/transparent_hugepage and the THP counters of /proc/vmstat, indexed
 * 0..nr-1 in a fixed order (the modes first). Names are paths under transparent_hugepage/
 * ("enabled", "khugepaged/pages_collapsed"); a mode's value is the selected one ("madvise").
 */
enum damonctl_thp_kind {
	DAMONCTL_THP_MODE,		/* "always [madvise] never": the bracketed one is in force */
	DAMONCTL_THP_NUMBER,		/* a setting */
	DAMONCTL_THP_MILLISECONDS,	/* a setting, in ms */
	DAMONCTL_THP_COUNTER,		/* counts up from boot */
};
struct damonctl_thp;
DAMONCTL_API size_t damonctl_thp_nr_settings(void);
/* NULL past the end; @kind may be NULL. */
DAMONCTL_API const char *damonctl_thp_setting_name(size_t i, enum damonctl_thp_kind *kind);
DAMONCTL_API size_t damonctl_thp_nr_vmstat(void);
DAMONCTL_API const char *damonctl_thp_vmstat_name(size_t i);
/* What this kernel has (files it lacks are left out): 0, -EINVAL or -ENOMEM. */
DAMONCTL_API int damonctl_thp_read(struct damonctl_ctx *ctx, struct damonctl_thp **out);
DAMONCTL_API void damonctl_thp_free(struct damonctl_thp *t);
/* NULL when the kernel lacks the file. */
DAMONCTL_API const char *damonctl_thp_setting(const struct damonctl_thp *t, size_t i);
DAMONCTL_API uint64_t damonctl_thp_vmstat(const struct damonctl_thp *t, size_t i);
/* Who made the huge pages since boot: page faults (thp_fault_alloc), khugepaged
 * (pages_collapsed), MADV_COLLAPSE (thp_collapse_alloc less khugepaged's). */
struct damonctl_thp_made {
	size_t sz;		/* sizeof(struct damonctl_thp_made), set by the caller */
	uint64_t fault, khugepaged, madv_collapse;
};
DAMONCTL_API int damonctl_thp_made(const struct damonctl_thp *t, struct damonctl_thp_made *m);

/* A process's memory figures (smaps_rollup), its huge-page ratio in basis points (as a
 * pid-scope hugepage_mem_bp goal measures), and with @top > 0 (at most 64) its @top mappings
 * of 2 MiB or more that hold memory with the most and with the least AnonHugePages/RSS
 * (ties in the order of the mappings). -ESRCH: no such process. */
struct damonctl_hugepage_proc;
DAMONCTL_API int damonctl_hugepage_proc_read(struct damonctl_ctx *ctx, int pid, size_t top,
					     struct damonctl_hugepage_proc **out);
DAMONCTL_API void damonctl_hugepage_proc_free(struct damonctl_hugepage_proc *p);
DAMONCTL_API const struct damonctl_proc_mem *
damonctl_hugepage_proc_mem(const struct damonctl_hugepage_proc *p);
DAMONCTL_API uint64_t damonctl_hugepage_proc_bp(const struct damonctl_hugepage_proc *p);
DAMONCTL_API size_t damonctl_hugepage_proc_nr_vmas(const struct damonctl_hugepage_proc *p,
						   bool most);
/* NULL past the end. */
DAMONCTL_API const struct damonctl_vma *
damonctl_hugepage_proc_vma(const struct damonctl_hugepage_proc *p, bool most, size_t i);

/* khugepaged's scans: the huge_memory:mm_khugepaged_scan_pmd trace events, counted by their
 * status in the order first seen. damonctl_khugepaged_trace() reads them for @duration_us in
 * a tracefs instance named @instance, added to @s; -ENOENT: no tracefs or no such event. */
struct damonctl_khugepaged_scans;
DAMONCTL_API bool damonctl_khugepaged_trace_available(struct damonctl_ctx *ctx);
DAMONCTL_API int damonctl_khugepaged_scans_new(struct damonctl_khugepaged_scans **out);
DAMONCTL_API void damonctl_khugepaged_scans_free(struct damonctl_khugepaged_scans *s);
DAMONCTL_API int damonctl_khugepaged_trace(struct damonctl_ctx *ctx, const char *instance,
					   uint64_t duration_us,
					   struct damonctl_khugepaged_scans *s);
/* One line of trace text: 1 when it was such an event, 0 when not. */
DAMONCTL_API int damonctl_khugepaged_scans_add_line(struct damonctl_khugepaged_scans *s,
						     const char *line);
DAMONCTL_API uint64_t damonctl_khugepaged_scans_total(const struct damonctl_khugepaged_scans *s);
DAMONCTL_API size_t damonctl_khugepaged_scans_nr_status(const struct damonctl_khugepaged_scans *s);
/* Status @i's name and count; NULL past the end. */
DAMONCTL_API const char *damonctl_khugepaged_scans_status(const struct damonctl_khugepaged_scans *s,
							  size_t i, uint64_t *count);

/* A record's huge pages, fed one item at a time: for each snapshot of the record's first
 * series (kdamond, target, scheme), the accessed memory whole 2 MiB-aligned pages could
 * hold (adjacent accessed regions make one span), and what the collapse and hugepage
 * schemes tried and applied between their first and last stats items. */
struct damonctl_hugepage_rec;
struct damonctl_hugepage_rec_series {
	size_t sz;		/* sizeof(struct damonctl_hugepage_rec_series), set by the caller */
	uint32_t kdamond;
	uint64_t snapshots, first, last, max;	/* bytes */
	uint64_t first_ns, last_ns;		/* the first and last snapshots' end times */
};
struct damonctl_hugepage_rec_scheme {
	size_t sz;		/* sizeof(struct damonctl_hugepage_rec_scheme), set by the caller */
	uint32_t kdamond, scheme;
	char action[24];
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied;
};
DAMONCTL_API uint64_t damonctl_hugepage_rec_huge_bytes(const struct damonctl_rec_snapshot *s);
DAMONCTL_API int damonctl_hugepage_rec_new(struct damonctl_hugepage_rec **out);
DAMONCTL_API void damonctl_hugepage_rec_free(struct damonctl_hugepage_rec *h);
/* 1 when @it was a snapshot of the series (its bytes in @bytes, which may be NULL, for the
 * caller's own distribution), 0 when taken otherwise or ignored, -EINVAL. */
DAMONCTL_API int damonctl_hugepage_rec_add(struct damonctl_hugepage_rec *h,
					   const struct damonctl_rec_item *it, uint64_t *bytes);
DAMONCTL_API int damonctl_hugepage_rec_get_series(const struct damonctl_hugepage_rec *h,
						  struct damonctl_hugepage_rec_series *s);
DAMONCTL_API size_t damonctl_hugepage_rec_nr_schemes(const struct damonctl_hugepage_rec *h);
/* -ENOENT past the end. */
DAMONCTL_API int damonctl_hugepage_rec_get_scheme(const struct damonctl_hugepage_rec *h,
						  size_t i, struct damonctl_hugepage_rec_scheme *s);

/* ------------------------------------------------------------------------------------------
 * Record analyses: what the reports compute from a record's items, fed one at a time, in
 * memory that does not grow with the record (damonctl_qhist_new(3), damonctl_heatmap_new(3),
 * damonctl_rec_info_new(3), damonctl_footprints_new(3), damonctl_wss_bytes(3)).
 */
/* Percentiles of a stream of values: exact while there are at most 2^20 of them (kept, 8
 * bytes each), as damo's are; past that, from a histogram in fixed memory (about 66 KiB):
 * 64 buckets per power of two, each keeping its extremes, so a percentile is within 1.1%
 * and exact when its bucket holds one distinct value. */
struct damonctl_qhist;
/* NULL when out of memory. */
DAMONCTL_API struct damonctl_qhist *damonctl_qhist_new(void);
DAMONCTL_API void damonctl_qhist_free(struct damonctl_qhist *h);
/* Empty again. */
DAMONCTL_API void damonctl_qhist_reset(struct damonctl_qhist *h);
DAMONCTL_API void damonctl_qhist_add(struct damonctl_qhist *h, uint64_t v);
/* Values added, their smallest and largest and their mean (0 when empty). */
DAMONCTL_API uint64_t damonctl_qhist_count(const struct damonctl_qhist *h);
DAMONCTL_API uint64_t damonctl_qhist_min(const struct damonctl_qhist *h);
DAMONCTL_API uint64_t damonctl_qhist_max(const struct damonctl_qhist *h);
DAMONCTL_API double damonctl_qhist_mean(const struct damonctl_qhist *h);
/* The nearest-rank @p-th percentile (0..100); 0 when empty. */
DAMONCTL_API uint64_t damonctl_qhist_percentile(const struct damonctl_qhist *h, double p);
/* The @p-th percentile as damo reports it (its _damo_dist.get_percentile()): the value at
 * index floor(@p / 100 x count) of the values in order, the largest for 100; 0 when empty.
 * It is nearest-rank's or the next value up. */
DAMONCTL_API uint64_t damonctl_qhist_value_at(const struct damonctl_qhist *h, double p);
/* Whether the percentiles are exact: every value is still kept. */
DAMONCTL_API bool damonctl_qhist_exact(const struct damonctl_qhist *h);
/* "0,50,99.9": up to @max percentiles (0..100) into @pcts; their number, or -EINVAL. */
DAMONCTL_API int damonctl_percentiles_parse(const char *arg, double *pcts, unsigned int max);

/* A heatmap of access rate over time and address: damonctl_heatmap_scan() every snapshot
 * (pass 1: the time span and the address spans regions covered) and, where a record has
 * them, damonctl_heatmap_footprint() its footprints (what the process had mapped),
 * damonctl_heatmap_grid(), damonctl_heatmap_feed() every snapshot again (pass 2), then read
 * the cells. The address axis leaves out the gaps between spans and what was never mapped:
 * its rows are aligned blocks of a power of two of bytes, an offset on it an address in
 * them. */
struct damonctl_heatmap;
DAMONCTL_API struct damonctl_heatmap *damonctl_heatmap_new(void);
DAMONCTL_API void damonctl_heatmap_free(struct damonctl_heatmap *h);
/* 0 or -ENOMEM. */
DAMONCTL_API int damonctl_heatmap_scan(struct damonctl_heatmap *h,
				       const struct damonctl_rec_snapshot *s);
/* The mappings FOOTPRINT item @json (docs/record-format.md) gives target @target (its
 * index in the context) join what the process had mapped at some time: the grid leaves
 * the rest of the spans out (a region over the unmapped space between mappings is not
 * memory that went unaccessed). 0 (also for a footprint without them), -ENOMEM, or
 * -EINVAL (not JSON, or after the grid). */
DAMONCTL_API int damonctl_heatmap_footprint(struct damonctl_heatmap *h, int target,
					    const char *json);
/* A new heatmap of span @i of @h alone, over @h's time and with its mappings (to be
 * gridded and fed); NULL when out of memory or out of range. */
DAMONCTL_API struct damonctl_heatmap *damonctl_heatmap_of_span(const struct damonctl_heatmap *h,
							       size_t i);
DAMONCTL_API size_t damonctl_heatmap_nr_spans(const struct damonctl_heatmap *h);
/* Span @i, sorted by address, and (after the grid) the @offset on the gap-free axis of the
 * row its first mapped byte is in; -ERANGE past the end. */
DAMONCTL_API int damonctl_heatmap_span(const struct damonctl_heatmap *h, size_t i,
				       uint64_t *start, uint64_t *end, uint64_t *offset);
/* Lays out @tbins x @abins cells at most: fewer columns when there are fewer snapshots,
 * and rows of the smallest power of two of bytes, at multiples of it, of which the spans'
 * mapped bytes need no more than @abins (so from about half as many); 0, -ENOMEM, or
 * -EINVAL (nothing scanned, a zero count, or a grid already). */
DAMONCTL_API int damonctl_heatmap_grid(struct damonctl_heatmap *h, uint64_t tbins,
				       uint64_t abins);
/* Adds @s's regions, their rate weighted by their mapped bytes (those outside the spans
 * left out, those across an edge or over unmapped space clipped); 0, or -EINVAL before
 * the grid. */
DAMONCTL_API int damonctl_heatmap_feed(struct damonctl_heatmap *h,
				       const struct damonctl_rec_snapshot *s);
/* The scan's and grid's figures; set sz = sizeof before the call. */
struct damonctl_heatmap_layout {
	size_t sz;
	uint64_t nr_snapshots;		/* scanned */
	uint64_t first_ns, last_ns;	/* the first and last snapshot's end */
	unsigned int time_bins, address_bins;
	uint64_t time_bin_ns, address_bin_bytes;
	uint64_t covered_bytes;		/* the gap-free axis' length: its rows' bytes */
};
#define DAMONCTL_HEATMAP_LAYOUT_INIT { .sz = sizeof(struct damonctl_heatmap_layout) }
/* 0, or -EINVAL when @l->sz is too small. */
DAMONCTL_API int damonctl_heatmap_layout(const struct damonctl_heatmap *h,
					 struct damonctl_heatmap_layout *l);
/* The access rate (0..1) of cell [@t][@a], or -1 when no mapped byte of a region fell in
 * it. */
DAMONCTL_API double damonctl_heatmap_cell(const struct damonctl_heatmap *h, unsigned int t,
					  unsigned int a);
/* The address at @offset of the gap-free axis. */
DAMONCTL_API uint64_t damonctl_heatmap_address(const struct damonctl_heatmap *h,
					       uint64_t offset);

/* What a record holds (damo's record_info): damonctl_rec_info_feed() every item (INFO,
 * CONFIG, SNAPSHOT, STATS; others are ignored), then read. */
struct damonctl_rec_info;
DAMONCTL_API struct damonctl_rec_info *damonctl_rec_info_new(void);
DAMONCTL_API void damonctl_rec_info_free(struct damonctl_rec_info *n);
/* 0, -ENOMEM, or -EINVAL for a SNAPSHOT or STATS item that points to none. */
DAMONCTL_API int damonctl_rec_info_feed(struct damonctl_rec_info *n,
					const struct damonctl_rec_item *it);
/* An interval (or any figure) over a series' snapshots. */
struct damonctl_rec_interval {
	uint64_t first, last, min, max;
};
/* One series (kdamond, context, target, scheme as in its snapshots); set sz = sizeof. */
struct damonctl_rec_info_series {
	size_t sz;
	uint32_t kdamond, context;
	int32_t target, scheme;
	uint64_t snapshots;
	uint64_t first_start_ns;	/* where the first snapshot's aggregation began */
	uint64_t first_ns, last_ns;	/* the first and last snapshot's end */
	uint64_t regions_min, regions_max, regions_sum;	/* regions per snapshot */
	uint64_t bytes_min, bytes_max;	/* total_bytes per snapshot */
	struct damonctl_rec_interval sample_us, aggr_us, update_us;
	uint64_t interval_changes;	/* snapshots whose intervals differ from the previous */
	int64_t pid;			/* from the recorded configuration; -1: unknown */
	const char *operations;		/* likewise, NULL: unknown; valid until the next feed */
};
#define DAMONCTL_REC_INFO_SERIES_INIT { .sz = sizeof(struct damonctl_rec_info_series) }
DAMONCTL_API size_t damonctl_rec_info_nr_series(const struct damonctl_rec_info *n);
/* Series @i, in the order they first appeared; 0, -ERANGE, or -EINVAL (sz too small). */
DAMONCTL_API int damonctl_rec_info_series(const struct damonctl_rec_info *n, size_t i,
					  struct damonctl_rec_info_series *s);
/* Snapshots fed; where the series' first aggregation began and their last snapshot ended
 * (either may be NULL; UINT64_MAX and 0 when there is none). */
DAMONCTL_API uint64_t damonctl_rec_info_snapshots(const struct damonctl_rec_info *n,
						  uint64_t *first_ns, uint64_t *last_ns);
/* Whether the record holds the kdamond's configuration (a CONFIG item). */
DAMONCTL_API bool damonctl_rec_info_has_config(const struct damonctl_rec_info *n);
/* STATS items fed; into @untold (may be NULL) those of schemes past the first 64. */
DAMONCTL_API uint64_t damonctl_rec_info_stats(const struct damonctl_rec_info *n,
					      uint64_t *untold);
/* Scheme @i whose stats the record holds, in the order first seen; 0 or -ERANGE. */
DAMONCTL_API int damonctl_rec_info_scheme(const struct damonctl_rec_info *n, size_t i,
					  uint32_t *kdamond, uint32_t *scheme,
					  const char **action, uint64_t *stats);
/* A string member of the recording's description (the INFO item: "recorder", "source",
 * "method", "hostname", "kernel", "converted_from"), or NULL. */
DAMONCTL_API const char *damonctl_rec_info_recording(const struct damonctl_rec_info *n,
						     const char *key);
/* Whether the description has a "subset" (what a conversion kept), and its member @key
 * ("from_us", "to_us", "address_start", "address_end", "kdamond", "target",
 * "aggregate_us") as a number, -1 when absent. */
DAMONCTL_API bool damonctl_rec_info_has_subset(const struct damonctl_rec_info *n);
DAMONCTL_API int64_t damonctl_rec_info_subset(const struct damonctl_rec_info *n,
					      const char *key);

/* The memory footprints a record kept beside its snapshots (FOOTPRINT items,
 * docs/record-format.md): a histogram per metric over the record, and the last sample. */
struct damonctl_footprints;
/* Of target @target alone, or of every target (-1). NULL when out of memory. */
DAMONCTL_API struct damonctl_footprints *damonctl_footprints_new(int32_t target);
DAMONCTL_API void damonctl_footprints_free(struct damonctl_footprints *f);
/* 1 when @it was a footprint taken as the last sample, 0 when it is no footprint or a
 * damaged one (left out), -ENOMEM. */
DAMONCTL_API int damonctl_footprints_feed(struct damonctl_footprints *f,
					  const struct damonctl_rec_item *it);
/* Samples taken, the first's and last's time (either may be NULL). */
DAMONCTL_API uint64_t damonctl_footprints_samples(const struct damonctl_footprints *f,
						  uint64_t *first_ns, uint64_t *last_ns);
/* The last sample; set sz = sizeof. */
struct damonctl_footprint_sample {
	size_t sz;
	uint64_t time_ns;
	bool has_system;		/* used is known (and huge when has_huge) */
	uint64_t used, huge;		/* bytes (damonctl_meminfo_used(), huge pages) */
	int64_t kdamond_cpu_bp;		/* share of a CPU since the sample before; -1: unknown */
	unsigned int nr_targets;	/* damonctl_footprints_sample_target()'s */
	bool has_huge;			/* huge is known (damo's footprints have no huge pages) */
};
struct damonctl_footprint_target {
	size_t sz;
	int target, pid;
	uint64_t vsz, rss;		/* bytes */
	int64_t cpu_bp;			/* share of a CPU since the sample before; -1: unknown */
	int64_t vmas;			/* mappings (the last count recorded); -1: unknown */
};
/* 0, -ENOENT before any sample, -ERANGE past the last target, -EINVAL (sz too small). */
DAMONCTL_API int damonctl_footprints_sample(const struct damonctl_footprints *f,
					    struct damonctl_footprint_sample *s);
DAMONCTL_API int damonctl_footprints_sample_target(const struct damonctl_footprints *f,
						   unsigned int i,
						   struct damonctl_footprint_target *t);
/* Metric @i in the order first seen: a target's "vsz", "rss", "cpu_bp", "vmas", the
 * system's "used", "huge", "huge_bp", the kdamond's "kdamond_cpu_bp"; set sz = sizeof. */
enum damonctl_footprint_unit {
	DAMONCTL_FOOTPRINT_BYTES, DAMONCTL_FOOTPRINT_BP, DAMONCTL_FOOTPRINT_COUNT
};
struct damonctl_footprint_metric {
	size_t sz;
	const char *name;
	int target;			/* -1: the system's or the kdamond's */
	int pid;			/* 0: the system's */
	enum damonctl_footprint_unit unit;
	const struct damonctl_qhist *values;	/* valid until damonctl_footprints_free() */
};
DAMONCTL_API unsigned int damonctl_footprints_nr_metrics(const struct damonctl_footprints *f);
/* 0, -ERANGE, or -EINVAL (sz too small). */
DAMONCTL_API int damonctl_footprints_metric(const struct damonctl_footprints *f, unsigned int i,
					    struct damonctl_footprint_metric *m);

/* Bytes of @s's regions accessed in at least @min_rate_bp of the samples (0: any access). */
DAMONCTL_API uint64_t damonctl_wss_bytes(const struct damonctl_rec_snapshot *s,
					 uint64_t min_rate_bp);
/* The working set of all targets, summed per aggregation (snapshots that ended at the same
 * time), over a record: damonctl_wss_total_feed() every snapshot, then the values. */
struct damonctl_wss_total;
DAMONCTL_API struct damonctl_wss_total *damonctl_wss_total_new(void);
DAMONCTL_API void damonctl_wss_total_free(struct damonctl_wss_total *t);
DAMONCTL_API void damonctl_wss_total_feed(struct damonctl_wss_total *t,
					  const struct damonctl_rec_snapshot *s);
/* The sums of the aggregations fed so far (those still open are closed: feed no more). */
DAMONCTL_API const struct damonctl_qhist *damonctl_wss_total_values(struct damonctl_wss_total *t);

/* ------------------------------------------------------------------------------------------
 * Fallback server: a plan of user-space fallbacks (damonctl_fallback_plan()) served for one
 * running kdamond, round after round, as damonc's agent does: each round feeds the
 * hugepage_mem_bp values of the plan's goals (user_input, commit_schemes_quota_goals),
 * looks at the regions the observers matched, and collapses (or lets the kernel collapse,
 * committed online) huge pages within each budget while its goal is not met. The caller
 * schedules the rounds (every damonctl_fallback_server_interval_ms()), follows the target
 * processes and tells the server of their changes; what the server did is told through a
 * callback (events) and its counters (damonctl_fallback_server_stats()).
 * See damonctl_fallback_server_new(3).
 */
enum damonctl_fallback_event_kind {
	DAMONCTL_FBEV_FEEDING,		/* the first value fed to goal `goal` of `scheme` */
	DAMONCTL_FBEV_GOAL_MET,		/* the ratio reached the goal (by_kernel: its path) */
	DAMONCTL_FBEV_GOAL_MISSED,	/* the ratio fell below a goal that was met */
	DAMONCTL_FBEV_UNREACHABLE,	/* the hot memory cannot reach the goal (hot_*) */
	DAMONCTL_FBEV_REACHABLE,	/* ... and now it can again */
	DAMONCTL_FBEV_COLLAPSED,	/* the program collapsed pages of `pid` */
	DAMONCTL_FBEV_GRANTED,		/* the kernel may collapse `bytes` in `nr` ranges */
	DAMONCTL_FBEV_COLLAPSE_DENIED,	/* process_madvise(MADV_COLLAPSE) failed with `err` */
	DAMONCTL_FBEV_PIDFD_FAILED,	/* pidfd_open(`pid`) failed with `err` (said once) */
};
/* An event; fields the kind does not use are 0. Read only the fields within ev->sz. */
struct damonctl_fallback_event {
	size_t sz;		/* sizeof(struct damonctl_fallback_event) */
	enum damonctl_fallback_event_kind kind;
	unsigned int kdamond, scheme, goal;
	int pid, err;		/* err: -errno */
	bool scope_pid;		/* the ratio is over the targets, not the system */
	bool by_kernel;		/* GOAL_*: the kernel collapses (or nothing does) */
	bool quota_used;	/* COLLAPSED: the quota of this interval is used up */
	bool some_failed;	/* COLLAPSED: some pages failed to collapse */
	uint64_t bp, target_bp;	/* the ratio measured, the goal (0: none) */
	uint64_t reset_ms;	/* FEEDING: the quota interval */
	uint64_t pages;		/* COLLAPSED: huge pages collapsed */
	uint64_t bytes;		/* GRANTED: bytes allowed */
	uint64_t nr;		/* GRANTED: address ranges */
	uint64_t busy_us;	/* COLLAPSED: time in process_madvise() */
	uint64_t hot_bytes, hot_bp, reachable_bp;	/* (UN)REACHABLE */
};
typedef void (*damonctl_fallback_event_fn)(const struct damonctl_fallback_event *ev,
					   void *arg);
struct damonctl_fallback_server_opts {
	size_t sz;		/* sizeof(struct damonctl_fallback_server_opts) */
	uint64_t aggr_us;	/* the kdamond's aggregation interval (0: read it) */
	damonctl_fallback_event_fn on_event;	/* or NULL */
	void *arg;
};
/* The kernel's scheme stats, with their meaning, for what the program does in its place,
 * plus what only it can tell: bytes that became huge, and its time. */
struct damonctl_fallback_scheme_stats {
	unsigned int scheme;
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;
	uint64_t sz_collapsed, busy_us;
};
#define DAMONCTL_FALLBACK_STATS_MAX_SCHEMES 32
#define DAMONCTL_FALLBACK_STATS_MAX_TARGETS 16
struct damonctl_fallback_target_coverage {
	int pid;
	struct damonctl_hugepage_coverage c;
};
struct damonctl_fallback_stats {
	size_t sz;			/* sizeof(struct damonctl_fallback_stats) */
	/* the program's own, kept as given: whose counts, by whom, since when */
	unsigned int kdamond;
	int kdamond_pid;		/* the kdamond these counts are of */
	int agent_pid;			/* the process serving it */
	long long since;		/* unix time it started serving it */
	uint64_t rounds, feeds;		/* rounds served, goal values fed */
	long long updated;		/* unix time of the last round */
	uint64_t measured_bp, target_bp; /* the last ratio measured, its goal (0: none) */
	bool goal_met;
	/* the last look at DAMON's regions (collapse budgets); observed: these are set */
	bool observed, unreachable;
	uint64_t hot_bytes, hot_huge_bytes, hot_bp, reachable_bp;
	uint64_t cold_huge_bytes, cold_huge_idle_us;
	unsigned int nr;
	struct damonctl_fallback_scheme_stats s[DAMONCTL_FALLBACK_STATS_MAX_SCHEMES];
	/* the access coverage of huge pages at the last look (damonctl_hugepage_coverage_add(3)),
	 * over the targets and per target; coverage_known: the huge ranges were known (the
	 * meter's walk with PAGEMAP_SCAN, 6.7+) for nr_coverage targets */
	bool coverage_known;
	struct damonctl_hugepage_coverage coverage;
	unsigned int nr_coverage;
	struct damonctl_fallback_target_coverage tc[DAMONCTL_FALLBACK_STATS_MAX_TARGETS];
};
/*
 * A scheme as what it stands for, where plan @fbs serves part of it (damonctl_fallback_view(3)):
 * a stat scheme standing in for a collapse the kernel lacks shows as that collapse, with
 * the quota and hugepage_mem_bp goal the program enforces; a user_input goal the program
 * feeds shows as the hugepage_mem_bp goal it stands for. Reports read schemes through it.
 */
struct damonctl_fallback_view_goal {
	char metric[32];
	uint64_t target, current;
	bool fed;			/* the program measures it: current is its last value */
};
#define DAMONCTL_FALLBACK_VIEW_MAX_GOALS 16
struct damonctl_fallback_view {
	size_t sz;			/* sizeof(struct damonctl_fallback_view), set by the caller */
	unsigned int scheme;
	char action[24];		/* what it stands for */
	char tuner[16];			/* the quota goal tuner ("" where the kernel has none) */
	bool served;			/* the program collapses, paces or feeds a goal */
	bool program_collapses;		/* the program, not the kernel, collapses */
	bool program_paces;		/* the kernel collapses what the program allows */
	/* the quota: the scheme's, or the one the program enforces where it collapses */
	uint64_t quota_ms, quota_bytes, quota_reset_ms;
	bool has_effective;		/* the kernel's effective quota (of the stand-in) */
	uint64_t effective_bytes;
	uint64_t nr_tried, sz_tried, nr_applied, sz_applied, qt_exceeds;	/* the kernel's */
	struct damonctl_fallback_scheme_stats program;	/* the program's, where it collapses */
	unsigned int nr_goals;		/* at most what the caller's sz holds */
	struct damonctl_fallback_view_goal goals[DAMONCTL_FALLBACK_VIEW_MAX_GOALS];
};
/* Whether scheme @si is about huge pages: a collapse or hugepage action, a hugepage_mem_bp
 * goal, or an entry of @fbs (NULL: no plan). */
DAMONCTL_API bool damonctl_fallback_scheme_is_hugepage(const struct damonctl_scheme *s,
						       unsigned int si,
						       const struct damonctl_fallbacks *fbs);
/* Scheme @si (@s, read from the tree) as @fbs serves it and @st (NULL: no counts) counts it,
 * into @out (its sz set). 0 or -EINVAL. */
DAMONCTL_API int damonctl_fallback_view(const struct damonctl_scheme *s, unsigned int si,
					const struct damonctl_fallbacks *fbs,
					const struct damonctl_fallback_stats *st,
					struct damonctl_fallback_view *out);
/* The bytes a collapse scheme has collapsed, whoever did it; 0 for other actions. */
DAMONCTL_API uint64_t damonctl_fallback_view_collapsed(const struct damonctl_fallback_view *v);
/* The steps of a round, to say which one failed. */
enum damonctl_fallback_step {
	DAMONCTL_FBSTEP_NONE,
	DAMONCTL_FBSTEP_MEASURE,	/* measuring the huge-page ratio */
	DAMONCTL_FBSTEP_GOAL_VALUE,	/* writing a goal's current_value */
	DAMONCTL_FBSTEP_GOAL_COMMIT,	/* commit_schemes_quota_goals */
	DAMONCTL_FBSTEP_GRANT,		/* committing a collapse scheme's allowed ranges */
	DAMONCTL_FBSTEP_TRIED_REGIONS,	/* update_schemes_tried_regions */
	DAMONCTL_FBSTEP_READ_REGIONS,	/* reading the tried regions */
};
struct damonctl_fallback_server;
/* Serve @fbs (copied) for kdamond @kdamond of @ctx, whose targets are @pids (see
 * _set_targets); @opts may be NULL. */
DAMONCTL_API int damonctl_fallback_server_new(struct damonctl_ctx *ctx, unsigned int kdamond,
					      const struct damonctl_fallbacks *fbs,
					      const int *pids, unsigned int nr_pids,
					      const struct damonctl_fallback_server_opts *opts,
					      struct damonctl_fallback_server **out);
DAMONCTL_API void damonctl_fallback_server_free(struct damonctl_fallback_server *srv);
/* The target pids, by index (<= 0: it exited); at most 64. */
DAMONCTL_API int damonctl_fallback_server_set_targets(struct damonctl_fallback_server *srv,
						      const int *pids, unsigned int nr);
/* A new plan. @keep and the same entries (kind, scheme, observer): only the goals, scopes,
 * patterns, intervals and size quotas are taken (a changed quota commits the grant again),
 * and 1 is returned; else what follows the budgets by index starts anew, and 0. */
DAMONCTL_API int damonctl_fallback_server_set_plan(struct damonctl_fallback_server *srv,
						   const struct damonctl_fallbacks *fbs,
						   bool keep);
/* The plan served (changed by _set_plan) into @out (replaced). */
DAMONCTL_API int damonctl_fallback_server_plan(const struct damonctl_fallback_server *srv,
					       struct damonctl_fallbacks *out);
/* One round: 0, or -errno with the failed step in _failed_step(). */
DAMONCTL_API int damonctl_fallback_server_round(struct damonctl_fallback_server *srv);
DAMONCTL_API enum damonctl_fallback_step
damonctl_fallback_server_failed_step(const struct damonctl_fallback_server *srv);
/* The shortest quota interval of the plan (1000 without one): the time between rounds. */
DAMONCTL_API uint64_t
damonctl_fallback_server_interval_ms(const struct damonctl_fallback_server *srv);
/* Its counters into @st (st->sz set: that much is filled); _set_stats goes on counting from
 * @st (a restarted program). */
DAMONCTL_API int damonctl_fallback_server_stats(const struct damonctl_fallback_server *srv,
						struct damonctl_fallback_stats *st);
DAMONCTL_API int damonctl_fallback_server_set_stats(struct damonctl_fallback_server *srv,
						    const struct damonctl_fallback_stats *st);
/* The counters as a malloc'd JSON document (pretty printed: the file damonc's agent keeps
 * for its readers, run/damonc/agent-N.json), or NULL with errno; and such a document back
 * into @st (-EBADMSG: not one, @st untouched). */
DAMONCTL_API char *damonctl_fallback_stats_to_json(const struct damonctl_fallback_stats *st);
DAMONCTL_API int damonctl_fallback_stats_from_json(const char *doc,
						   struct damonctl_fallback_stats *st);

/* ------------------------------------------------------------------------------------------
 * Access patterns of a snapshot (damo's report access): the regions of one
 * struct damonctl_rec_snapshot (from damonctl_rec_next() or damonctl_capture_next()) with
 * their access rate, age and damo's temperature, selected by an access pattern, sorted by a
 * list of keys; histograms and per-byte percentiles of a metric weighted by size, the
 * snapshot's totals, the ranges and scales of damo's region boxes, and damo's snapshot
 * heatmap. See damonctl_access_view_new(3).
 */
/* A region as a report shows it. The library allocates these (fields may be appended). */
struct damonctl_access_region {
	uint64_t start, end;
	uint32_t nr_accesses, age;	/* as recorded: samples, aggregations */
	uint64_t rate_bp;		/* access rate, basis points of the samples, <= 10000 */
	uint64_t age_us;
	double temperature;		/* damo's, with the view's weights */
	double hz;			/* positive samples per second of the aggregation */
	uint64_t sz_filter_passed;	/* 0 when unknown */
	/* its hits of the snapshot's probes (7.2), the view's copy (valid as the region is);
	 * 0 and NULL without */
	uint32_t nr_probes;
	const uint8_t *probe_hits;
};
/* The metrics of histograms, percentiles and ranges: damo's temperature with a size weight
 * of 0; idle time (0 for an accessed region, else its age and one aggregation, in us);
 * access rate (bp), age (us), size (bytes). */
enum damonctl_access_metric {
	DAMONCTL_ACCESS_TEMPERATURE, DAMONCTL_ACCESS_IDLE_US, DAMONCTL_ACCESS_RATE_BP,
	DAMONCTL_ACCESS_AGE_US, DAMONCTL_ACCESS_BYTES, DAMONCTL_ACCESS_NR_METRICS
};
/* Sort keys, each compared in turn, the start address last: HOT is the access rate then the
 * age, both descending; COLD the rate ascending then the age descending; SIZE and AGE
 * descending; TEMPERATURE hottest first, COLDEST coldest first. */
enum damonctl_access_key {
	DAMONCTL_ACCESS_BY_ADDRESS, DAMONCTL_ACCESS_BY_HOT, DAMONCTL_ACCESS_BY_COLD,
	DAMONCTL_ACCESS_BY_SIZE, DAMONCTL_ACCESS_BY_AGE, DAMONCTL_ACCESS_BY_TEMPERATURE,
	DAMONCTL_ACCESS_BY_COLDEST
};
#define DAMONCTL_ACCESS_MAX_KEYS 8
/* A view's choices; sz = sizeof, fields read up to sz (DAMONCTL_ACCESS_OPTS_INIT: damo's
 * weights, every region, by address). */
struct damonctl_access_opts {
	size_t sz;
	double weights[3];	/* temperature: x bytes, x access rate (%), x age (us); >= 0 */
	uint64_t sz_min, sz_max, rate_min_bp, rate_max_bp, age_min_us, age_max_us;
	enum damonctl_access_key keys[DAMONCTL_ACCESS_MAX_KEYS];
	unsigned int nr_keys;
	uint64_t top;		/* only the first top regions after sorting; 0: all */
};
#define DAMONCTL_ACCESS_OPTS_INIT { .sz = sizeof(struct damonctl_access_opts), \
	.weights = { 0, 100, 100 }, .sz_max = UINT64_MAX, .rate_max_bp = 10000, \
	.age_max_us = UINT64_MAX }
/* A region's access rate in basis points of the samples, at most 10000 (0 without
 * intervals). */
DAMONCTL_API uint64_t damonctl_access_rate_bp(uint32_t nr_accesses, uint64_t sample_us,
					      uint64_t aggr_us);
/* Whether region @r of @s has @o's access pattern (size, rate and age ranges). */
DAMONCTL_API bool damonctl_access_match(const struct damonctl_access_opts *o,
					const struct damonctl_rec_snapshot *s,
					const struct damonctl_rec_region *r);
/* The time ranges in which a series' snapshots have regions of @o's pattern, their bytes
 * from @bytes_min to @bytes_max (damo's report times, damonctl_access_times_new(3)): fed a
 * series' snapshots in order, consecutive matching ones make one range. */
struct damonctl_access_span {
	size_t sz;			/* sizeof(struct damonctl_access_span), set by the caller */
	uint64_t start_ns, end_ns;	/* the first matching snapshot's start, the last's end */
	uint64_t snapshots;
	uint64_t bytes_min, bytes_max;	/* the matching regions' bytes of a snapshot */
};
struct damonctl_access_times;
/* 0, -EINVAL (bad sz, @bytes_min above @bytes_max), -ENOMEM. @o is copied. */
DAMONCTL_API int damonctl_access_times_new(const struct damonctl_access_opts *o,
					   uint64_t bytes_min, uint64_t bytes_max,
					   struct damonctl_access_times **out);
DAMONCTL_API void damonctl_access_times_free(struct damonctl_access_times *t);
/* The next snapshot: 1 when it ended a range (then in @span), else 0. */
DAMONCTL_API int damonctl_access_times_feed(struct damonctl_access_times *t,
					    const struct damonctl_rec_snapshot *s,
					    struct damonctl_access_span *span);
/* At the end of the series: 1 with the range still open in @span, else 0. */
DAMONCTL_API int damonctl_access_times_end(struct damonctl_access_times *t,
					   struct damonctl_access_span *span);
/* damo's temperature of region @r with weights @w: negative for a region not accessed. */
DAMONCTL_API double damonctl_access_temperature(const struct damonctl_access_region *r,
						const double w[3]);

/* A view: the regions of the snapshot last built, selected and sorted (one snapshot's
 * memory, reused by the next build). -EINVAL for a bad sz, weight or key. */
struct damonctl_access_view;
DAMONCTL_API int damonctl_access_view_new(const struct damonctl_access_opts *o,
					  struct damonctl_access_view **out);
DAMONCTL_API void damonctl_access_view_free(struct damonctl_access_view *v);
/* The view of @s (the view keeps no pointer into it); 0 or -ENOMEM. */
DAMONCTL_API int damonctl_access_view_build(struct damonctl_access_view *v,
					    const struct damonctl_rec_snapshot *s);
DAMONCTL_API size_t damonctl_access_view_count(const struct damonctl_access_view *v);
/* Region @i in the view's order; NULL past the end. */
DAMONCTL_API const struct damonctl_access_region *
damonctl_access_view_region(const struct damonctl_access_view *v, size_t i);
/* The bytes of the regions in the view. */
DAMONCTL_API uint64_t damonctl_access_view_bytes(const struct damonctl_access_view *v);
/* Metric @m of region @i (NAN past the end). */
DAMONCTL_API double damonctl_access_view_metric(const struct damonctl_access_view *v, size_t i,
						enum damonctl_access_metric m);

/* The smallest and largest of each metric over views added (have: some region was);
 * sz = sizeof, DAMONCTL_ACCESS_RANGE_INIT. */
struct damonctl_access_range {
	size_t sz;
	bool have;
	double min[DAMONCTL_ACCESS_NR_METRICS], max[DAMONCTL_ACCESS_NR_METRICS];
};
#define DAMONCTL_ACCESS_RANGE_INIT { .sz = sizeof(struct damonctl_access_range) }
DAMONCTL_API int damonctl_access_range_add(struct damonctl_access_range *r,
					   const struct damonctl_access_view *v);
/* damo's rescale() of region boxes: @x of metric @m from @r's range to [lo, hi], truncated,
 * lo when the range is one value; @log: log2 (0 for 0), the access rate in percent. */
DAMONCTL_API int damonctl_access_rescale(const struct damonctl_access_range *r,
					 enum damonctl_access_metric m, double x, bool log,
					 unsigned int lo, unsigned int hi);

/* Histograms: the bytes of the regions whose metric is in each range [lo, hi) (a region
 * counts in every range it falls in). Ranges: the given ones, or bins between the smallest
 * and largest value as damo makes them (linear, or doubling: logscale), each from the
 * smallest value with cumulate. df_passed: the bytes that passed DAMOS filters.
 * sz = sizeof, DAMONCTL_ACCESS_HIST_OPTS_INIT (10 linear bins). */
struct damonctl_access_hist_opts {
	size_t sz;
	unsigned int bins;
	bool logscale, cumulate, df_passed;
	const double *ranges;		/* nr_ranges pairs lo, hi */
	unsigned int nr_ranges;
};
#define DAMONCTL_ACCESS_HIST_OPTS_INIT { .sz = sizeof(struct damonctl_access_hist_opts), \
	.bins = 10 }
struct damonctl_access_bin {
	double lo, hi;
	uint64_t bytes;
};
struct damonctl_access_hist;
/* The histogram of @v's regions (none: no bin); -EINVAL, -ENOMEM. */
DAMONCTL_API int damonctl_access_histogram(const struct damonctl_access_view *v,
					   enum damonctl_access_metric m,
					   const struct damonctl_access_hist_opts *o,
					   struct damonctl_access_hist **out);
DAMONCTL_API unsigned int damonctl_access_hist_count(const struct damonctl_access_hist *h);
DAMONCTL_API const struct damonctl_access_bin *
damonctl_access_hist_bin(const struct damonctl_access_hist *h, unsigned int i);
DAMONCTL_API void damonctl_access_hist_free(struct damonctl_access_hist *h);
/* "MIN,MAX[,MIN,MAX...]" (times such as 1s when @time, else numbers), MIN < MAX, into
 * @out (2 x @max values): the number of pairs, or -EINVAL. */
DAMONCTL_API int damonctl_access_parse_ranges(const char *s, bool time, double *out,
					      unsigned int max);
/* damo's per-byte percentiles of metric @m over @v's regions: the metric of the region
 * holding the byte at p% of their bytes (those that passed DAMOS filters: @df_passed), in
 * the metric's order. @pcts (@n, 0 to 100) into @out; 0 with no region; -ENOMEM. */
DAMONCTL_API int damonctl_access_percentiles(const struct damonctl_access_view *v,
					     enum damonctl_access_metric m, bool df_passed,
					     const double *pcts, unsigned int n, double *out);

/* A snapshot's totals over all its regions (damo's snapshot keywords): sz = sizeof. */
struct damonctl_access_totals {
	size_t sz;
	double observed;	/* bytes x positive samples */
	double max_observed;	/* bytes x samples of an aggregation */
	double bw;		/* observed per second of the aggregation (bytes/s) */
	double fp_bw;		/* the same of the bytes that passed DAMOS filters */
	double max_hz;		/* samples per second */
	double samples_pct;	/* positive samples, percent of all the regions' samples */
	uint64_t fp_bytes;	/* bytes that passed DAMOS filters */
};
DAMONCTL_API int damonctl_access_totals(const struct damonctl_rec_snapshot *s,
					struct damonctl_access_totals *t);

/* damo's snapshot heatmap: the regions' total size (fixed: the whole address span) in width
 * columns, each the size-weighted mean temperature of the parts of regions in it, as a level
 * 0-9 between the coolest and the hottest column; gaps between regions as cells of their
 * width in columns. df_passed: only regions that passed DAMOS filters. sz = sizeof. */
struct damonctl_access_heatmap_opts {
	size_t sz;
	double weights[3];
	unsigned int width;
	bool fixed, df_passed;
};
struct damonctl_access_heatmap;
DAMONCTL_API int damonctl_access_heatmap_new(const struct damonctl_rec_snapshot *s,
					     const struct damonctl_access_heatmap_opts *o,
					     struct damonctl_access_heatmap **out);
DAMONCTL_API void damonctl_access_heatmap_free(struct damonctl_access_heatmap *h);
/* Cells, left to right; 0: no region. */
DAMONCTL_API size_t damonctl_access_heatmap_count(const struct damonctl_access_heatmap *h);
/* Cell @i: its level 0-9, or -1 for a gap (*@gap its width in columns); -ENOENT past it. */
DAMONCTL_API int damonctl_access_heatmap_cell(const struct damonctl_access_heatmap *h, size_t i,
					      double *gap);
/* The coolest and hottest column's temperature, the bytes of a column. */
DAMONCTL_API void damonctl_access_heatmap_scale(const struct damonctl_access_heatmap *h,
						double *min, double *max, double *unit);

/* damo's <filters passed type>: the operations-layer DAMOS filters of @ops_filters (a
 * snapshot's, see struct damonctl_rec_snapshot) as damo's DamosFilter.to_str writes them,
 * joined by ", " ("allow anon", "reject none memcg /a", "allow hugepage_size [2.000 MiB,
 * 2.000 MiB]"), "n/a" for NULL or no such filter; into @buf as snprintf does: the length
 * the text needs, or -EINVAL for a document that is not an array of filters. */
DAMONCTL_API int damonctl_access_filters_text(const char *ops_filters, char *buf, size_t size);
/* Whether @ops_filters holds an operations-layer filter (damo's default templates add
 * their df-passed lines for a record that does). */
DAMONCTL_API bool damonctl_access_filters_installed(const char *ops_filters);

/* damo's report templates: the keywords of a region line, of a snapshot's head and tail, of
 * a record's head and tail, each set in the fixed order damonctl_access_view_new(3) lists. */
enum damonctl_access_kwset {
	DAMONCTL_ACCESS_KW_REGION, DAMONCTL_ACCESS_KW_SNAPSHOT, DAMONCTL_ACCESS_KW_RECORD
};
/* Keyword @i of @set ("<...>"), NULL past the end. */
DAMONCTL_API const char *damonctl_access_keyword(enum damonctl_access_kwset set, unsigned int i);
/* The keyword of @set @p starts with: its index, or -1. */
DAMONCTL_API int damonctl_access_keyword_at(enum damonctl_access_kwset set, const char *p);
/* The first "<...>" of template @t that is no keyword of @set: its offset, its length in
 * *@len; -ENOENT when there is none. */
DAMONCTL_API long damonctl_access_template_check(enum damonctl_access_kwset set, const char *t,
						 size_t *len);

/* ---- record selection ---- */
/* What a record report reads of a record, item by item. sz = sizeof
 * (DAMONCTL_REC_SELECT_OPTS_INIT: everything, one series). */
struct damonctl_rec_select_opts {
	size_t sz;
	int64_t kdamond;		/* only this kdamond's snapshots and stats; -1: any */
	int64_t target;			/* only this target's snapshots; -1: any */
	bool one_series;		/* only the first series (kdamond, context, target,
					 * scheme) of the snapshots kept by the above and
					 * the time range */
	/* snapshots that ended, stats and footprints taken from..to microseconds after the
	 * start of the record's first snapshot (or first stats, if they come first) */
	uint64_t time_from_us, time_to_us;
	/* addr_start < addr_end: regions clipped to [addr_start, addr_end) */
	uint64_t addr_start, addr_end;
	/* one_series: the series chosen is the one after this many others, in the order their
	 * first snapshots in the time range come (0: the first); damo reports each in turn, a
	 * pass each */
	uint32_t skip_series;
};
#define DAMONCTL_REC_SELECT_OPTS_INIT { .sz = sizeof(struct damonctl_rec_select_opts), \
	.kdamond = -1, .target = -1, .one_series = true, .time_to_us = UINT64_MAX }
struct damonctl_rec_select;
/* The options are copied. 0, -EINVAL (bad sz, from after to), -ENOMEM. */
DAMONCTL_API int damonctl_rec_select_new(const struct damonctl_rec_select_opts *o,
					 struct damonctl_rec_select **out);
DAMONCTL_API void damonctl_rec_select_free(struct damonctl_rec_select *sel);
/* Feed the record's items in order: 1 (keep @it; a snapshot's item may now point to a copy
 * of it in @sel, its regions clipped, its probe hits and ops filters kept, valid until the
 * next call), 0 (skip it), -ENOMEM,
 * -EINVAL (an @it->sz too small, a SNAPSHOT or STATS item without its struct). */
DAMONCTL_API int damonctl_rec_select_item(struct damonctl_rec_select *sel,
					  struct damonctl_rec_item *it);
/* The origin of the time range (ns); 0 before the first snapshot or stats. */
DAMONCTL_API uint64_t damonctl_rec_select_base_ns(const struct damonctl_rec_select *sel);
/* one_series: the chosen series' kdamond, context, target and scheme into @s (its other
 * fields untouched; -EINVAL for an @s->sz smaller than the first struct with sz); -ENOENT
 * before one is chosen. */
DAMONCTL_API int damonctl_rec_select_series(const struct damonctl_rec_select *sel,
					    struct damonctl_rec_snapshot *s);
/* A time range "START,END" (times as damonctl_parse_time_us(3) reads them; either may be
 * empty: from 0, to the end) into @o's time_from_us and time_to_us. 0; -EINVAL: not
 * START,END (or START of 64 characters or more); -EBADMSG: a part is no time, its offset in
 * @s in *@bad (0: START); -ERANGE: START after END. @o is changed only on success. */
DAMONCTL_API int damonctl_rec_select_parse_time(const char *s,
						struct damonctl_rec_select_opts *o, size_t *bad);
/* An address range "START-END" (addresses, decimal or 0x hex, or sizes such as 4G) into
 * @o's addr_start and addr_end. 0; -EINVAL: not START-END; -EBADMSG: a part is neither;
 * -ERANGE: START not below END. @o is changed only on success. */
DAMONCTL_API int damonctl_rec_select_parse_addr(const char *s,
						struct damonctl_rec_select_opts *o);

#ifdef __cplusplus
}
#endif
#endif
