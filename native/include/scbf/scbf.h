/*
 * scbf.h - Split Counting Bloom Filter (SCBF).
 *
 * M counter positions are split into k slices of m = M/k counters; hash i
 * maps only into slice i. One 128-bit XXH3 of the key gives (h1, h2); slice i
 * uses position (a + i*b + c*i*(i-1)/2) mod m with a = h1 mod m, b = h2 mod m,
 * c = (h1 div m) mod m: triple rather than plain double hashing, because
 * with slices as small as the paper's (m ~ 20,000) the m^2 distinct
 * double-hashing sequences alone push the false-positive rate past the
 * target (details in docs/snapshot-format.md).
 *
 * Invariant: a key added more times than removed always tests positive.
 *  - Counters saturate (sticky): a counter at its maximum stays there and is
 *    never decremented again. Counters never wrap.
 *  - remove() decrements only if the key currently tests positive; callers
 *    must only remove keys they added (removing foreign keys can create false
 *    negatives for other keys; this is the counting Bloom filter contract).
 *
 * Thread safety: add / contains / remove (single and batch) may be called
 * concurrently from any number of threads on one filter. merge, clear,
 * snapshot and stats may run concurrently with them and see a consistent
 * per-counter (not global) state. scbf_free must not race with anything.
 */
#ifndef SCBF_SCBF_H
#define SCBF_SCBF_H

#include <stddef.h>
#include <stdint.h>
#include "scbf_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scbf scbf_t;

/* Sizing. positions = k * m (rounded down from the request so slices are
 * equal). capacity = keys at which every slice's fill reaches 1/2. */
typedef struct {
    uint64_t positions;    /* M: total counters actually allocated (k*m) */
    uint32_t k;            /* slices = hash functions */
    uint64_t m;            /* counters per slice */
    uint64_t capacity;     /* n: design capacity in keys */
    double fpr;            /* P: target false-positive rate */
    uint32_t counter_bits; /* 4 or 8 */
    uint64_t seed;         /* hash seed (XXH3 seed); 0 by default */
} scbf_params_t;

#define SCBF_DEFAULT_COUNTER_BITS 4u
/* Upper bound on positions, to refuse absurd requests and snapshots. */
#define SCBF_MAX_POSITIONS (UINT64_C(1) << 36)

/* From (M, P): k = ceil(log2(1/P)), m = floor(M/k),
 * n = floor(M * ln(2)^2 / |ln P|). Counter bits default 4, seed 0. */
int scbf_params_from_positions(uint64_t positions, double fpr, scbf_params_t *out);
/* Inverse: the smallest M whose capacity n (as above) is >= capacity. */
int scbf_params_from_capacity(uint64_t capacity, double fpr, scbf_params_t *out);
/* Bytes of counter memory the params imply. */
uint64_t scbf_params_counter_bytes(const scbf_params_t *p);

int scbf_create(const scbf_params_t *params, scbf_t **out);
void scbf_free(scbf_t *f); /* NULL is a no-op */
const scbf_params_t *scbf_params(const scbf_t *f);

int scbf_add(scbf_t *f, const void *key, size_t len);
/* Returns 1 if the key may be present, 0 if surely absent, <0 on error. */
int scbf_contains(const scbf_t *f, const void *key, size_t len);
/* SCBF_OK if decremented, SCBF_E_NOT_FOUND if the key tests negative. */
int scbf_remove(scbf_t *f, const void *key, size_t len);

/* Batch forms: n keys packed in `data`, key i = data[offsets[i] .. offsets[i+1])
 * (so offsets has n+1 entries, non-decreasing). Hashing and memory prefetch
 * are pipelined across keys. results (n bytes, may be NULL for add):
 * contains -> 1/0, remove -> 1 removed / 0 not present. */
int scbf_add_batch(scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n);
int scbf_contains_batch(const scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n,
                        uint8_t *results);
int scbf_remove_batch(scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n,
                      uint8_t *results);

/* Counter-wise saturating add of src into dst (equal params required). */
int scbf_merge(scbf_t *dst, const scbf_t *src);
void scbf_clear(scbf_t *f);

/* Counted from the counters when asked: exact when no operation runs
 * concurrently, otherwise each counter is seen before or after any update. */
typedef struct {
    uint64_t positions, m, capacity;
    uint32_t k, counter_bits;
    uint64_t nonzero;     /* non-zero counters, all slices */
    uint64_t saturated;   /* counters at their maximum */
    double max_fill;      /* highest per-slice fill (non-zero / m) */
    double estimated_fpr; /* product over slices of fill */
    uint64_t bytes;       /* memory owned by the filter */
} scbf_stats_t;

/* Reads every counter word once: O(M), about 0.4 ms per MiB of counters on
 * the benchmark machine, so meant for monitoring, not for every operation. */
int scbf_stats(const scbf_t *f, scbf_stats_t *out);
/* fills[i] = non-zero counters of slice i / m, for i < min(k, cap).
 * Reads slice i's counter words: O(M) for all slices, like scbf_stats. */
int scbf_slice_fill(const scbf_t *f, double *fills, uint32_t cap);
/* Mean fill over all slices (non-zero counters / M), O(1): read from a
 * count every add and remove keeps up to date, so the scalable filter can
 * test it on every insert. Exact once concurrent operations finish. The
 * slices fill alike (each gets exactly one increment per key), so this
 * tracks every slice's fill closely; the highest slice fill (max_fill in
 * scbf_stats) exceeds it by a few standard deviations of a slice's fill,
 * about 0.28/sqrt(m) at fill 1/2. And since the product of the slice fills
 * (the false-positive rate) is largest when they are equal, it is at most
 * scbf_fill^k: at mean fill 1/2 the estimated rate is at most 2^-k. */
double scbf_fill(const scbf_t *f);

/* Snapshot (format in docs/snapshot-format.md). */
size_t scbf_snapshot_size(const scbf_t *f);
int scbf_snapshot_write(const scbf_t *f, uint8_t *buf, size_t cap, size_t *written);
/* Never reads outside [buf, buf+len); any malformed input -> error code. */
int scbf_snapshot_read(const uint8_t *buf, size_t len, scbf_t **out);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_SCBF_H */
