/*
 * hotcache.c - the public cache: keys hashed once, then handed to one of
 * the cache's shards (shard.c), each a complete cache behind its own lock.
 * The shard is chosen by the hash's top bits; shards use the low bits for
 * their tables, so the two choices are independent.
 */
#include "scbf/hotcache.h"

#include <stdlib.h>

#include "hash.h"
#include "shard.h"

#define HASH_SEED UINT64_C(0x5CBFCAC4E5EED001)

#define MAX_SHARDS      64
#define AUTO_MAX_SHARDS 64
/* Automatic shards are at least 2 MiB: large enough for the chooser's mode
 * shadows (2% of a shard under about 1.7 MiB holds none). 4 MiB shards gave
 * larger shadows but cost the lock's spread: a 4 MiB cache in one shard ran
 * two threads at 0.4-1.1x of one in JMH, against 1.55x in two shards. */
#define AUTO_SHARD_BYTES (UINT64_C(2) << 20)

struct hotcache {
    uint32_t nshards, shift; /* shard = hash >> shift (shift 64 means shard 0) */
    uint64_t capacity_bytes, own_bytes;
    struct shard *shard[];
};

void hotcache_config_default(hotcache_config_t *c, hotcache_policy policy,
                             uint64_t capacity_bytes) {
    shard_config_default(c, policy, capacity_bytes);
}

static uint32_t shard_count(const hotcache_config_t *c) {
    if (c->shards) return c->shards;
    if (c->max_entries) return 1;
    uint32_t n = 1;
    while (n < AUTO_MAX_SHARDS && c->capacity_bytes / (2 * n) >= AUTO_SHARD_BYTES) n *= 2;
    return n;
}

int hotcache_create(const hotcache_config_t *c, hotcache_t **out) {
    if (!c || !out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    uint32_t n = shard_count(c);
    if (n > MAX_SHARDS || (n & (n - 1))) return SCBF_E_INVALID_ARG;
    /* This struct is charged too: its size, plus malloc's most overhead. */
    uint64_t own = sizeof(struct hotcache) + n * sizeof(struct shard *) + 32;
    if (c->capacity_bytes <= own || (c->max_entries && c->max_entries < n))
        return SCBF_E_INVALID_ARG;
    struct hotcache *h = calloc(1, sizeof *h + n * sizeof(struct shard *));
    if (!h) return SCBF_E_NOMEM;
    h->nshards = n;
    h->shift = 64;
    for (uint32_t b = n; b > 1; b /= 2) h->shift--;
    h->capacity_bytes = c->capacity_bytes;
    h->own_bytes = own;
    hotcache_config_t part = *c;
    part.capacity_bytes = (c->capacity_bytes - own) / n;
    part.max_entries = c->max_entries / n;
    part.ghost_entries = c->ghost_entries ? (c->ghost_entries + n - 1) / n : 0;
    for (uint32_t i = 0; i < n; i++) {
        int rc = shard_create(&part, &h->shard[i]);
        if (rc != SCBF_OK) {
            hotcache_free(h);
            return rc;
        }
    }
    *out = h;
    return SCBF_OK;
}

void hotcache_free(hotcache_t *h) {
    if (!h) return;
    for (uint32_t i = 0; i < h->nshards; i++)
        if (h->shard[i]) shard_free(h->shard[i]);
    free(h);
}

static struct shard *shard_of(const hotcache_t *h, uint64_t hash) {
    return h->shard[h->shift == 64 ? 0 : hash >> h->shift];
}

int hotcache_get(hotcache_t *h, const void *key, size_t klen, void *buf, size_t cap, size_t *vlen) {
    if (!h || (!key && klen) || (!buf && cap)) return SCBF_E_INVALID_ARG;
    uint64_t hash = scbf_hash64(key, klen, HASH_SEED);
    return shard_get(shard_of(h, hash), hash, key, klen, buf, cap, vlen);
}

int hotcache_put(hotcache_t *h, const void *key, size_t klen, const void *val, size_t vlen,
                 int *admitted) {
    if (admitted) *admitted = 0;
    if (!h || (!key && klen) || (!val && vlen)) return SCBF_E_INVALID_ARG;
    uint64_t hash = scbf_hash64(key, klen, HASH_SEED);
    return shard_put(shard_of(h, hash), hash, key, klen, val, vlen, admitted);
}

int hotcache_invalidate(hotcache_t *h, const void *key, size_t klen) {
    if (!h || (!key && klen)) return SCBF_E_INVALID_ARG;
    uint64_t hash = scbf_hash64(key, klen, HASH_SEED);
    return shard_invalidate(shard_of(h, hash), hash, key, klen);
}

void hotcache_clear(hotcache_t *h) {
    if (!h) return;
    for (uint32_t i = 0; i < h->nshards; i++) shard_clear(h->shard[i]);
}

int hotcache_stats(const hotcache_t *h, hotcache_stats_t *out) {
    if (!h || !out) return SCBF_E_INVALID_ARG;
    hotcache_stats_t sum = {0};
    for (uint32_t i = 0; i < h->nshards; i++) {
        hotcache_stats_t s;
        shard_stats(h->shard[i], &s);
        sum.hits += s.hits;
        sum.misses += s.misses;
        sum.admissions += s.admissions;
        sum.rejections += s.rejections;
        sum.evictions += s.evictions;
        sum.invalidations += s.invalidations;
        sum.entries += s.entries;
        sum.ghosts += s.ghosts;
        sum.bytes_used += s.bytes_used;
        if (s.periods > sum.periods) sum.periods = s.periods;
        sum.window_share += s.window_share / h->nshards;
    }
    sum.bytes_used += h->own_bytes;
    sum.capacity_bytes = h->capacity_bytes;
    *out = sum;
    return SCBF_OK;
}

int hotcache_peek(const hotcache_t *h, const void *key, size_t klen, double *score,
                  uint32_t *visits, int *cached) {
    if (!h || (!key && klen)) return SCBF_E_INVALID_ARG;
    uint64_t hash = scbf_hash64(key, klen, HASH_SEED);
    return shard_peek(shard_of(h, hash), hash, key, klen, score, visits, cached);
}
