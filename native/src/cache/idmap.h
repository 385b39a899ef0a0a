/* Internal: key hashes to small ids, 0 .. cap-1, each id reusable once
 * removed. Open addressing (backward-shift deletion, no tombstones), load at
 * most 1/2; O(1) expected per call, nothing allocated after init. The
 * shadow LRU and the chooser's shadow policies keep their per-key state in
 * arrays indexed by these ids (idlist.h). */
#ifndef SCBF_CACHE_IDMAP_H
#define SCBF_CACHE_IDMAP_H

#include <stdint.h>

#define IDMAP_NONE UINT32_MAX

typedef struct {
    uint64_t *hash;     /* id -> hash */
    uint32_t *index;    /* id + 1, 0 = empty */
    uint32_t *free_ids; /* a stack; the lowest id on top at first */
    uint32_t cap, nfree;
    uint64_t imask;
} idmap_t;

uint64_t idmap_bytes(uint32_t cap);
/* Room for cap (>= 1) ids; 0, or -1 if out of memory. */
int idmap_init(idmap_t *m, uint32_t cap);
void idmap_destroy(idmap_t *m);
void idmap_clear(idmap_t *m);
/* The id of h, or IDMAP_NONE. */
uint32_t idmap_find(const idmap_t *m, uint64_t h);
/* A free id for h, which must be absent; IDMAP_NONE if every id is taken. */
uint32_t idmap_add(idmap_t *m, uint64_t h);
void idmap_remove(idmap_t *m, uint32_t id);

#endif
