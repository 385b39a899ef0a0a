/* Internal: one shard of a hotcache, the whole cache behind one lock. The
 * public hotcache_* functions (hotcache.c) pick a shard by key hash and
 * call these with the hash already computed; arguments are checked there.
 * Each shard has its own capacity, policy state and counters. */
#ifndef SCBF_CACHE_SHARD_H
#define SCBF_CACHE_SHARD_H

#include <stddef.h>
#include <stdint.h>
#include "scbf/hotcache.h"

struct shard;

void shard_config_default(hotcache_config_t *c, hotcache_policy policy, uint64_t capacity_bytes);
int shard_create(const hotcache_config_t *c, struct shard **out);
void shard_free(struct shard *s);
int shard_get(struct shard *s, uint64_t hash, const void *key, size_t klen, void *buf, size_t cap,
              size_t *vlen);
int shard_put(struct shard *s, uint64_t hash, const void *key, size_t klen, const void *val,
              size_t vlen, int *admitted);
int shard_invalidate(struct shard *s, uint64_t hash, const void *key, size_t klen);
void shard_clear(struct shard *s);
/* Fills every field of *out from this shard alone. */
void shard_stats(struct shard *s, hotcache_stats_t *out);
int shard_peek(struct shard *s, uint64_t hash, const void *key, size_t klen, double *score,
               uint32_t *visits, int *cached);

#endif
