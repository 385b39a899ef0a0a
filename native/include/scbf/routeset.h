/*
 * routeset.h - many regions' routing bitmaps (scbf/membership.h) in one
 * bit-sliced set, so that "which of N regions may hold this key?" costs one
 * hash and k word reads per 64 regions instead of one bitmap probe per region.
 *
 * Each region is a slot (a small integer the caller assigns). Its bitmap's
 * sub-filters are stored transposed: sub-filters of one shape (k, m, seed)
 * share pages of 64 lanes, where word (slice i, position j) holds bit j of
 * slice i of the 64 lanes' bitmaps. A query hashes the key once per shape,
 * computes its k positions once, and ANDs k words per page: a lane that
 * survives may hold the key, exactly as its bitmap answers.
 *
 * Memory: the same bits as the bitmaps, rounded up to 64 lanes per shape
 * (a partly filled page costs as much as a full one), plus 4 bytes per lane.
 *
 * Updates: a slot set again with the bitmap it holds named as `prev` changes
 * only the bits where prev and next differ (a publication's delta: work in
 * proportion to the bitmap's words, not its bits); anything else rewrites
 * the slot's lanes.
 *
 * Thread safety: queries take an internal read lock, set and clear its write
 * lock, so a query sees each slot as it was before or after a set; free must
 * race with nothing.
 */
#ifndef SCBF_ROUTESET_H
#define SCBF_ROUTESET_H

#include <stddef.h>
#include <stdint.h>
#include "membership.h"
#include "scbf_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Slots are 0 .. SCBF_ROUTESET_MAX_SLOTS - 1. */
#define SCBF_ROUTESET_MAX_SLOTS (UINT32_C(1) << 24)

typedef struct scbf_routeset scbf_routeset_t;

int scbf_routeset_new(scbf_routeset_t **out);
void scbf_routeset_free(scbf_routeset_t *rs); /* NULL is a no-op */

/* Gives slot the bits of next (copied: next stays the caller's). prev, if
 * not NULL, should be the bitmap the slot was last set to: then only the
 * differing bits are flipped; a prev that is not (by content) is ignored and
 * the slot rewritten. On an error the slot keeps its old bits. */
int scbf_routeset_set(scbf_routeset_t *rs, uint32_t slot, const scbf_member_t *prev,
                      const scbf_member_t *next);

/* Empties slot (its lanes go back to their pages). An empty slot is a no-op. */
int scbf_routeset_clear(scbf_routeset_t *rs, uint32_t slot);

/* One past the highest slot ever set: the bits a query's answer needs. */
uint32_t scbf_routeset_slots(const scbf_routeset_t *rs);

/* Sets bit s of out (little-endian words: out[s / 64] bit s % 64) for every
 * slot s whose bitmap may hold the key, clears the others.
 * SCBF_E_BUFFER_TOO_SMALL if out_words * 64 < scbf_routeset_slots. */
int scbf_routeset_query(scbf_routeset_t *rs, const void *key, size_t len, uint64_t *out,
                        size_t out_words);

typedef struct {
    uint32_t slots;  /* slots holding a bitmap */
    uint32_t shapes; /* distinct (k, m, seed) */
    uint64_t lanes;  /* lanes in use, over every shape */
    uint64_t pages;  /* 64-lane pages allocated */
    uint64_t bytes;  /* memory held */
} scbf_routeset_stats_t;

int scbf_routeset_stats(scbf_routeset_t *rs, scbf_routeset_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_ROUTESET_H */
