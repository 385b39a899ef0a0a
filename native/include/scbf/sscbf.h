/*
 * sscbf.h - Scalable Split Counting Bloom Filter: a list of SCBFs.
 *
 * Inserts go to the newest sub-filter; when its fill reaches 1/2 a new one is
 * appended, `growth` times larger and with fpr multiplied by `tightening`, so
 * the compound rate 1 - prod(1 - P_i) stays under the configured target.
 * The fill tested is the mean over the newest sub-filter's slices
 * (scbf_fill, O(1), checked after every add and every batch chunk): its
 * rate, the product of the slice fills, is at most mean^k, so at mean 1/2 it
 * is at most 2^-k <= P_i (give or take the few keys added between two
 * checks).
 *
 * remove: a sub-filter is decremented only when the key tests positive in
 * exactly one sub-filter (that one must be its home, since counters never
 * fall below true counts). Positive in several -> nothing is decremented and
 * the key is counted as residue (raises the FPR, never causes a false
 * negative). When residue or the sub-filter count pass their thresholds,
 * sscbf_needs_compaction() says so and the owner calls sscbf_compact() with
 * the real key set.
 *
 * Thread safety: as scbf.h, including growth; sscbf_compact may also run
 * concurrently with add/contains/remove (keys added during compaction are
 * kept). sscbf_free must not race with anything.
 */
#ifndef SCBF_SSCBF_H
#define SCBF_SSCBF_H

#include <stddef.h>
#include <stdint.h>
#include "scbf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sscbf sscbf_t;

typedef struct {
    uint64_t initial_capacity;  /* keys of the first sub-filter (>= 1) */
    double fpr;                 /* target compound false-positive rate */
    double tightening;          /* r in (0,1): P_i = P_0 * r^i; default 0.5 */
    uint32_t growth;            /* capacity multiplier per sub-filter, >= 1; default 2 */
    uint32_t counter_bits;      /* 4 or 8; default 4 */
    uint32_t max_filters;       /* hard cap on sub-filters; default 32 */
    uint64_t residue_threshold; /* needs_compaction when residue exceeds; default capacity/8 */
    uint64_t seed;
} sscbf_config_t;

void sscbf_config_default(sscbf_config_t *c, uint64_t initial_capacity, double fpr);

int sscbf_create(const sscbf_config_t *c, sscbf_t **out);
void sscbf_free(sscbf_t *s);
const sscbf_config_t *sscbf_config(const sscbf_t *s);

int sscbf_add(sscbf_t *s, const void *key, size_t len);
int sscbf_contains(const sscbf_t *s, const void *key, size_t len); /* 1 / 0 / <0 */
/* SCBF_OK decremented, SCBF_E_NOT_FOUND absent; residue is SCBF_OK too
 * (the caller's key is gone from its point of view) and counted in stats. */
int sscbf_remove(sscbf_t *s, const void *key, size_t len);

int sscbf_add_batch(sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n);
int sscbf_contains_batch(const sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n,
                         uint8_t *results);
int sscbf_remove_batch(sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n,
                       uint8_t *results);

/* Sub-filter-wise merge; both must have the same config and sub-filter
 * shapes for the sub-filters src has (dst grows to match). */
int sscbf_merge(sscbf_t *dst, const sscbf_t *src);
void sscbf_clear(sscbf_t *s); /* back to one empty sub-filter */

typedef struct {
    uint32_t filters;
    uint64_t residue;     /* removes skipped because ambiguous */
    double design_fpr;    /* 1 - prod(1 - P_i) over sub-filters */
    double estimated_fpr; /* 1 - prod(1 - est_i) from fills */
    uint64_t bytes;
    uint64_t positions; /* sum over sub-filters */
    uint64_t saturated;
    double newest_fill;     /* highest slice fill of the newest sub-filter */
    uint64_t adds, removes; /* successful operations since create/compact */
} sscbf_stats_t;

/* Reads every counter of every sub-filter (scbf_stats): O(positions), for
 * monitoring rather than per-operation use. */
int sscbf_stats(const sscbf_t *s, sscbf_stats_t *out);
/* Borrowed pointer to sub-filter i (0 = oldest), valid until the next
 * growth/compact/clear/free; NULL if out of range. For stats and tests. */
const scbf_t *sscbf_filter(const sscbf_t *s, uint32_t i);
/* 1 if residue > residue_threshold, or the list reached max_filters, or the
 * next sub-filter could not be created (too large or out of memory): the
 * newest then keeps taking keys past fill 1/2, so the rate degrades. */
int sscbf_needs_compaction(const sscbf_t *s);

/* Key source for compaction: return 1 and set *key,*len for the next key
 * (the pointer must stay valid until the next call), 0 at the end, <0 on
 * error (compaction then aborts and the filter is unchanged). A key present
 * c times (a multiset) must be produced c times. */
typedef int (*scbf_key_source)(void *ctx, const uint8_t **key, size_t *len);
/* Contract with concurrent writers: every key must either be produced by the
 * source or be added after sscbf_compact has begun. Writers that make a key
 * visible to the source before adding it to the filter (index row first,
 * filter second), with a source that starts reading on its first call,
 * satisfy it.
 * Replace all sub-filters by one holding exactly the keys from the source,
 * sized so that max(expected_keys, initial capacity) keys keep its fill under
 * 1/2 (it does not grow again right away), at the first sub-filter's rate.
 * Keys added concurrently are kept (possibly counted twice, which only costs
 * false-positive rate); removes that run concurrently are not applied to the
 * new filter and become its residue. Otherwise residue resets to 0. */
int sscbf_compact(sscbf_t *s, uint64_t expected_keys, scbf_key_source next, void *ctx);

size_t sscbf_snapshot_size(const sscbf_t *s);
int sscbf_snapshot_write(const sscbf_t *s, uint8_t *buf, size_t cap, size_t *written);
int sscbf_snapshot_read(const uint8_t *buf, size_t len, sscbf_t **out);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_SSCBF_H */
