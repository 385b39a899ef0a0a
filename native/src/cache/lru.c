/*
 * lru.c - the LRU policy (HOTCACHE_LRU): one list, most recent first, its
 * tail evicted to make room. The baseline the other policies are measured
 * against.
 */
#include "shard_internal.h"

static void lru_lookup(struct shard *h, uint64_t hash, struct entry *e) {
    if (e) list_move_front(h, e, Q_WINDOW);
}

static void lru_drop(struct shard *h, struct entry *e) {
    list_unlink(h, e);
    entries_destroy(h, e);
}

static int lru_put(struct shard *h, struct entry *old, struct entry **nodep, uint64_t hash,
                   int hopeless, uint64_t charge, int *admitted) {
    if (old) lru_drop(h, old);
    *admitted = 0;
    if (hopeless || !entries_fit(h, 0, h->entry_bytes, charge)) return SCBF_OK;
    while (!entries_fit(h, h->nentries, 0, charge)) {
        lru_drop(h, h->q[Q_WINDOW].lru);
        h->evictions++;
    }
    int rc = entries_link(h, *nodep);
    if (rc != SCBF_OK) return rc;
    list_push_front(h, *nodep, Q_WINDOW);
    *nodep = NULL;
    *admitted = 1;
    return SCBF_OK;
}

static void lru_clear(struct shard *h) { memset(h->q, 0, sizeof h->q); }

const struct policy lru_policy = {lru_lookup, lru_put, lru_drop, lru_clear};
