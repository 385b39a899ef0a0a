/* Internal: SCBF entry points on precomputed hashes, for the scalable filter
 * (which hashes a key once and probes every sub-filter with the same pair),
 * and raw counter-word access for the snapshot codec (snapshot/), which
 * depends on this header; the filter code never depends on the codec. */
#ifndef SCBF_INTERNAL_H
#define SCBF_INTERNAL_H
#include <stdatomic.h>
#include "scbf/scbf.h"

/* Hash functions per filter are bounded; k = ceil(log2(1/P)) covers every
 * P >= 2^-64. */
#define SCBF_MAX_K 64u

enum scbf_op { SCBF_OP_ADD, SCBF_OP_CONTAINS, SCBF_OP_REMOVE };

/* Validates a params struct for scbf_create / the snapshot decoder:
 * 1 <= k <= SCBF_MAX_K, m >= 1, positions == k*m <= SCBF_MAX_POSITIONS,
 * counter_bits 4 or 8, 0 < fpr < 1. */
int scbf_params_check(const scbf_params_t *p);
int scbf_params_equal(const scbf_params_t *a, const scbf_params_t *b);

void scbf_add_hashed(scbf_t *f, uint64_t h1, uint64_t h2);
int scbf_contains_hashed(const scbf_t *f, uint64_t h1, uint64_t h2);
int scbf_remove_hashed(scbf_t *f, uint64_t h1, uint64_t h2); /* 1 removed, 0 absent */

/* Runs op over keys whose hash pairs are hashes[2j], hashes[2j+1], for
 * j = sel[t] (t < n), or j = t when sel is NULL. results[j] gets 1/0 for
 * contains and remove (results may be NULL for add and remove). */
void scbf_hashed_batch(scbf_t *f, enum scbf_op op, const uint64_t *hashes, const uint32_t *sel,
                       size_t n, uint8_t *results);

/* Checks a batch's offsets: non-decreasing, data non-NULL when n > 0. */
int scbf_batch_check(const uint8_t *data, const uint32_t *offsets, size_t n);

/* Raw counter words: slices back to back, each slice padded to whole 64-bit
 * words with zero counters. */
uint64_t scbf_word_count(const scbf_t *f);
uint64_t scbf_load_word(const scbf_t *f, uint64_t i);
/* Only on a fresh filter no other thread can see yet (snapshot decoding):
 * stores word i, then, once every word is stored, scbf_recount sets the
 * filter's count of non-zero counters from the words. */
void scbf_store_word(scbf_t *f, uint64_t i, uint64_t w);
void scbf_recount(scbf_t *f);
#endif
