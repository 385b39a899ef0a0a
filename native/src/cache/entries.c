/*
 * entries.c - a shard's hash table of entries, shared by every policy: a
 * policy links an entry here, then files it in its own lists or heap.
 *
 * Accounting. Every allocation is charged at the size glibc's malloc
 * actually reserves for it (16-byte rounding plus an 8-byte header, 32
 * minimum): the cache struct, the ghost arena and its index and heap (all
 * preallocated at create), the bucket array, the entry heap, and each entry
 * node with its key and value.  Growing the bucket array or the heap is
 * charged before it happens, so bytes_used never exceeds capacity_bytes.
 * (An unlinked entry or array still waiting for lookups that take no lock to
 * leave, readers.c, is no longer charged: none while no lookup runs beside
 * the lock holder, about two batches of 64 per shard under contention.)
 *
 * Lookups without the lock read the chains while this file changes them:
 * every store to a published link is an atomic release (link_set), a node is
 * complete before it is linked, and an unlinked node or array is retired,
 * not freed. Growing the table rewires nodes into the new array's chains; a
 * lookup walking an old chain then ends in a new one, which can make it
 * miss (a miss is always a correct answer of a cache), never loop.
 */
#include "shard_internal.h"

#include <stdlib.h>

void entries_destroy(struct shard *h, struct entry *e) {
    struct entry **link = chain_link(h, e->hash, e->data, e->klen);
    link_set(link, e->chain);
    h->nentries--;
    h->entry_bytes -= entry_charge(e->klen, e->vlen);
    readers_retire_entry(h, e);
}

/* Includes the growth of the bucket array it would trigger; `charge` holds
 * the entry's bytes and whatever else the policy will grow for it. */
int entries_fit(const struct shard *h, size_t n, uint64_t freed, uint64_t charge) {
    uint64_t n1 = (uint64_t)n + 1;
    if (h->cfg.max_entries && n1 > h->cfg.max_entries) return 0;
    if (n1 >= UINT32_MAX) return 0; /* heap slots are 32-bit */
    uint64_t need = charge;
    if (n1 > h->tab->n)
        need += alloc_bytes(table_bytes(2 * h->tab->n)) - alloc_bytes(table_bytes(h->tab->n));
    return bytes_used(h) - freed + need <= h->cfg.capacity_bytes;
}

struct table *entries_table(size_t n) {
    struct table *t = calloc(1, table_bytes(n));
    if (t) t->n = n;
    return t;
}

static int grow_buckets(struct shard *h) {
    struct table *old = h->tab;
    size_t nb = 2 * old->n;
    struct table *b = entries_table(nb);
    if (!b) return SCBF_E_NOMEM;
    for (size_t i = 0; i < old->n; i++) {
        struct entry *e = old->slot[i];
        while (e) {
            struct entry *next = e->chain;
            link_set(&e->chain, b->slot[e->hash & (nb - 1)]);
            b->slot[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    __atomic_store_n(&h->tab, b, __ATOMIC_RELEASE);
    readers_retire_table(h, old);
    return SCBF_OK;
}

/* Room has been made, except in the adaptive policy, which links first and
 * then evicts until the cache fits. */
int entries_link(struct shard *h, struct entry *e) {
    int rc;
    if (h->nentries + 1 > h->tab->n && (rc = grow_buckets(h)) != SCBF_OK) return rc;
    struct entry **head = &h->tab->slot[e->hash & (h->tab->n - 1)];
    e->chain = *head;
    link_set(head, e);
    h->nentries++;
    h->entry_bytes += entry_charge(e->klen, e->vlen);
    return SCBF_OK;
}

void entries_free_all(struct shard *h) {
    for (size_t i = 0; i < h->tab->n; i++) {
        struct entry *e = h->tab->slot[i];
        link_set(&h->tab->slot[i], NULL);
        while (e) {
            struct entry *next = e->chain;
            readers_retire_entry(h, e);
            e = next;
        }
    }
    h->nentries = 0;
    h->entry_bytes = 0;
}
