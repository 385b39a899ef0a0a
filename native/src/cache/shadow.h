/* Internal: a shadow LRU of key hashes, no values.
 *
 * The adaptive policy runs it beside the real cache, sized like it, to know
 * whether plain LRU would have hit each lookup: a lookup LRU hits and the
 * cache misses says recency pays (grow the window); one the cache hits and
 * LRU misses says frequency pays (shrink it). Both see the same accesses, so
 * the comparison needs no sampling over time. Fixed arrays, O(1) per access. */
#ifndef SCBF_CACHE_SHADOW_H
#define SCBF_CACHE_SHADOW_H

#include <stdint.h>

#include "idlist.h"
#include "idmap.h"

typedef struct {
    idmap_t map;       /* hash -> id */
    ref_links_t links; /* by id */
    ref_list_t list;   /* most recent at the head */
    uint32_t cap, limit;
} shadow_t;

/* Bytes shadow_init allocates for `cap` hashes. */
uint64_t shadow_bytes(uint32_t cap);

/* Room for `cap` (>= 1) hashes; 0, or -1 if out of memory. The limit starts at cap. */
int shadow_init(shadow_t *s, uint32_t cap);
void shadow_destroy(shadow_t *s);
void shadow_clear(shadow_t *s);

/* Keep at most `limit` (clamped to [1, cap]) most recent hashes. */
void shadow_set_limit(shadow_t *s, uint32_t limit);

/* An access: 1 if h was among the `limit` most recent hashes (an LRU hit),
 * else 0; either way h becomes the most recent. */
int shadow_access(shadow_t *s, uint64_t h);

#endif
