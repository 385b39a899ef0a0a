/*
 * hotcache.h - byte-bounded key/value cache in native memory, with three
 * replacement policies behind one interface.
 *
 * HOTCACHE_HOTSCORE (the default): adaptive hotscore. A key's hotscore is
 * its recent access count, kept for every key looked up (cached or not) in
 * a 4-bit count-min sketch that halves all counts every ten lookups per
 * cached entry: the HiBase score update with a = 1/2, applied lazily, so no
 * period close ever pauses. New values enter a small LRU window; leaving it,
 * a value enters the main area only if its hotscore beats that of the main
 * entry it would evict (segmented LRU: probation, then protected after a
 * second hit). The window's share of the capacity adapts to the workload: a
 * shadow LRU of key hashes, as large as the cache, tells for each lookup
 * whether plain LRU would have hit; lookups LRU hits and the cache misses
 * grow the window, lookups the cache hits and LRU misses shrink it, from 0%
 * (frequency-heavy workloads) to 100% (recency-heavy: the cache then behaves
 * as LRU). O(1) per operation; no ghost records (the sketch remembers
 * uncached keys).
 *
 * HOTCACHE_PAPER: the HiBase paper's formula. Each tracked key keeps
 * `visits` in the current period and a `score`. Every `period` lookups (and,
 * if period_ns > 0, every period_ns nanoseconds) the period closes:
 * score = a * visits / period + (1 - a) * score, visits reset. The cache
 * keeps the keys with the highest scores that fit: a candidate must score
 * strictly more than each entry it would displace (ties keep the incumbent;
 * among equal entries the earliest put leaves first). A count-based period
 * closes when the next lookup arrives, so a miss and the put that follows it
 * fall in the same period. Keys not cached keep a bounded ghost record
 * (hash, score, visits) so they can earn their way in; ghosts rank by
 * projected score (pending visits included), so a key being looked up now
 * can displace a ghost that went cold. Decay is lazy (scores carry a period
 * stamp), so closing a period costs O(1), not O(tracked keys).
 *
 * HOTCACHE_LRU: least recently used, the baseline.
 *
 * Capacity is in bytes of native memory, and every byte is charged: keys,
 * values, per-entry metadata, index slots, ghost records and the sketch
 * (both allocated, and charged, at create). put replaces a cached value;
 * if the new value is refused, the old one is dropped too. max_entries,
 * when non-zero, caps the entry count too (the trace simulator uses it with
 * unit-size entries).
 *
 * Concurrency. A cache is split into shards by key hash, each an
 * independent cache with its own lock and share of the capacity (and of
 * max_entries); the policy works per shard. With the LRU and hotscore
 * policies hotcache_get takes no lock: it copies the value while an epoch
 * keeps the entry alive and leaves the access in a small read buffer, which the
 * next operation that holds the shard's lock replays into the policy (a
 * lookup that finds its buffer full and the lock busy is not replayed: the
 * policy may miss a few accesses under contention, never a value). A single
 * thread's accesses are all replayed, in order, before its next put. The
 * paper's policy locks on every lookup. All functions are thread-safe;
 * hotcache_free must not race with anything.
 */
#ifndef SCBF_HOTCACHE_H
#define SCBF_HOTCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "scbf_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hotcache hotcache_t;

typedef enum { HOTCACHE_HOTSCORE = 0, HOTCACHE_LRU = 1, HOTCACHE_PAPER = 2 } hotcache_policy;

typedef struct {
    hotcache_policy policy;
    uint64_t capacity_bytes; /* > 0 */
    uint64_t max_entries;    /* 0 = no entry cap */
    uint32_t period;         /* paper: lookups per period, > 0 */
    double decay;            /* paper: a in (0, 1] */
    uint64_t period_ns;      /* paper: also close a period every this many ns; 0 = off */
    uint64_t ghost_entries;  /* paper: max ghost records; 0 = derived from capacity */
    uint32_t shards;         /* independent parts, each with its own lock and 1/shards of the
                                capacity: a power of two <= 64; 0 = automatic (1 with
                                max_entries, else up to 64 of at least 2 MiB each) */
    int chooser;             /* hotscore: 1 (default) = choose the mode (adaptive window,
                                frequency, FIFO) while it runs, from sampled shadows of the
                                cache in each mode within 2% of the bytes (a shard under
                                about 1.7 MiB has none); 0 = the adaptive window alone
                                (docs/benchmarks-cache.md) */
} hotcache_config_t;

/* Sensible defaults for a given policy and capacity. */
void hotcache_config_default(hotcache_config_t *c, hotcache_policy policy, uint64_t capacity_bytes);

int hotcache_create(const hotcache_config_t *c, hotcache_t **out);
void hotcache_free(hotcache_t *h);

/* Lookup; counts a visit for the key whether cached or not.
 * Hit: SCBF_OK, value copied to buf, *vlen = its length; if cap is too small,
 * SCBF_E_BUFFER_TOO_SMALL with *vlen = needed length (counted as a hit).
 * Miss: SCBF_E_NOT_FOUND. */
int hotcache_get(hotcache_t *h, const void *key, size_t klen, void *buf, size_t cap, size_t *vlen);
/* Offer a value (typically after a miss). *admitted (nullable) = 1 if now
 * cached. Replaces an existing value for the key. A value larger than the
 * whole capacity is not admitted (SCBF_OK, *admitted = 0). */
int hotcache_put(hotcache_t *h, const void *key, size_t klen, const void *val, size_t vlen,
                 int *admitted);
/* Drop the cached value (its score history is kept). SCBF_E_NOT_FOUND if not cached. */
int hotcache_invalidate(hotcache_t *h, const void *key, size_t klen);
/* Drop every entry and ghost (all score history); counters are kept. */
void hotcache_clear(hotcache_t *h);

typedef struct {
    uint64_t hits, misses, admissions, rejections, evictions, invalidations;
    uint64_t entries, ghosts;
    uint64_t bytes_used, capacity_bytes;
    uint64_t periods;    /* paper: periods closed; hotscore: times the sketch aged */
    double window_share; /* hotscore: the window's share of the capacity now; else 0 */
} hotcache_stats_t;

int hotcache_stats(const hotcache_t *h, hotcache_stats_t *out);

/* Introspection that counts no visit (tests, diagnostics). Paper: the
 * key's score as of the last closed period, its visits so far in the current
 * one, and whether its value is cached; SCBF_E_NOT_FOUND if the key is
 * neither cached nor a ghost. Hotscore (adaptive): for cached keys, the
 * sketch's estimate of recent accesses (0..15) as score, visits 0, cached 1.
 * LRU: score 0, visits 0, cached 1 for cached keys. Others: SCBF_E_NOT_FOUND.
 * Out-pointers are nullable. */
int hotcache_peek(const hotcache_t *h, const void *key, size_t klen, double *score,
                  uint32_t *visits, int *cached);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_HOTCACHE_H */
