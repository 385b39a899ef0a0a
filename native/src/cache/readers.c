/*
 * readers.c - lookups that take no lock (the LRU and adaptive policies).
 * The bottom of the shard: it reads the table, and hands the lookups it
 * buffered to the shard's policy through the policy's interface.
 *
 * With a lock per shard, every lookup wrote the shard's lock word and its
 * policy state (list moves, sketch, shadow LRU), so two threads reading the
 * same hot entries moved those cache lines between their cores on every
 * access, and two threads ran slower than one on a small cache. A lookup
 * here only reads the table and copies the value; what the policy must
 * learn from it, the key's hash, goes into a small ring of the thread's stripe,
 * and whoever next holds the lock (a put, an invalidate, stats, or a lookup
 * that finds its ring full) replays the rings into the policy first
 * (Caffeine's read buffers). A single thread's lookups are replayed in
 * order before its next put, so a single-threaded run (the trace simulator)
 * decides exactly as when lookups held the lock.
 *
 * Memory. An unlinked entry or bucket array may still be read by a lookup
 * that found it before, so it is retired, not freed. Epochs say when it is
 * safe: a lookup counts itself in its stripe's active[epoch & 1] while it
 * reads; the lock holder flips the epoch only when no lookup of the
 * previous parity is active, and frees what was retired before the last
 * flip (every lookup that could hold it has left). The lookup re-reads the
 * epoch after counting itself, so a flip it missed sends it round again
 * before it reads anything. Sequentially consistent atomics on the epoch
 * and the counts make that argument hold; the rest is acquire/release.
 */
#define _GNU_SOURCE /* sched_getcpu */
#include "shard_internal.h"

#include <sched.h>
#include <stdlib.h>

/* Retired entries that make the lock holder try an epoch flip. */
#define RECLAIM_BATCH 64

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

#define SEQ_LOAD(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)

/* A thread keeps the stripe of the CPU it first looked up on: its lookups
 * then sit in one ring, in order (a single thread's run replays exactly),
 * and threads started on different cores write different cache lines. */
static struct read_stripe *stripe_of_thread(struct shard *h) {
    static _Thread_local unsigned stripe_plus_one;
    if (!stripe_plus_one) {
        int cpu = sched_getcpu();
        stripe_plus_one = 1 + ((unsigned)(cpu < 0 ? 0 : cpu) & (READ_STRIPES - 1));
    }
    return &h->stripes[stripe_plus_one - 1];
}

static uint64_t enter(struct shard *h, struct read_stripe *s) {
    for (;;) {
        uint64_t epoch = SEQ_LOAD(&h->epoch);
        __atomic_fetch_add(&s->active[epoch & 1], 1, __ATOMIC_SEQ_CST);
        if (SEQ_LOAD(&h->epoch) == epoch) return epoch;
        __atomic_fetch_sub(&s->active[epoch & 1], 1, __ATOMIC_RELEASE);
    }
}

static void leave(struct read_stripe *s, uint64_t epoch) {
    __atomic_fetch_sub(&s->active[epoch & 1], 1, __ATOMIC_RELEASE);
}

static int lookup(struct shard *h, uint64_t hash, const void *key, size_t klen, void *buf,
                  size_t cap, size_t *vlen) {
    /* Sequentially consistent (plain loads on x86): see readers_reclaim. */
    const struct table *t = SEQ_LOAD(&h->tab);
    struct entry *e = SEQ_LOAD(&t->slot[hash & (t->n - 1)]);
    while (e && !entry_has_key(e, hash, key, klen)) e = SEQ_LOAD(&e->chain);
    if (!e) return SCBF_E_NOT_FOUND;
    if (vlen) *vlen = e->vlen;
    if (cap < e->vlen) return SCBF_E_BUFFER_TOO_SMALL;
    if (e->vlen) memcpy(buf, e->data + e->klen, e->vlen);
    return SCBF_OK;
}

void readers_drain(struct shard *h) {
    if (!h->lockfree_reads) return;
    for (int i = 0; i < READ_STRIPES; i++) {
        struct read_stripe *s = &h->stripes[i];
        uint64_t head = s->head, tail = LOAD(&s->tail);
        for (; head != tail; head++) {
            /* A slot claimed but not yet written stops the replay there: its
             * lookup and the ones after it are replayed next time. */
            uint64_t hash =
                __atomic_exchange_n(&s->ring[head & (READ_RING - 1)], 0, __ATOMIC_ACQUIRE);
            if (!hash) break;
            h->policy->lookup(h, hash, entries_find_hash(h, hash));
        }
        __atomic_store_n(&s->head, head, __ATOMIC_RELEASE);
    }
}

/* Leave the lookup's hash for the policy; drop it if the ring is full and
 * the lock busy (the owner will drain soon). */
static void record(struct shard *h, struct read_stripe *s, uint64_t hash) {
    uint64_t v = hash ? hash : 1; /* 0 marks an empty slot */
    uint64_t tail = LOAD(&s->tail);
    for (;;) {
        if (tail - LOAD(&s->head) >= READ_RING) {
            if (pthread_mutex_trylock(&h->lock) != 0) return;
            readers_drain(h);
            readers_reclaim(h);
            pthread_mutex_unlock(&h->lock);
            tail = LOAD(&s->tail);
            continue;
        }
        if (__atomic_compare_exchange_n(&s->tail, &tail, tail + 1, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            break;
    }
    __atomic_store_n(&s->ring[tail & (READ_RING - 1)], v, __ATOMIC_RELEASE);
}

int readers_get(struct shard *h, uint64_t hash, const void *key, size_t klen, void *buf, size_t cap,
                size_t *vlen) {
    struct read_stripe *s = stripe_of_thread(h);
    uint64_t epoch = enter(h, s);
    int rc = lookup(h, hash, key, klen, buf, cap, vlen);
    leave(s, epoch);
    __atomic_fetch_add(rc == SCBF_E_NOT_FOUND ? &s->misses : &s->hits, 1, __ATOMIC_RELAXED);
    record(h, s, hash);
    return rc;
}

void readers_retire_entry(struct shard *h, struct entry *e) {
    if (!h->lockfree_reads) {
        free(e);
        return;
    }
    e->u.lru.next = h->limbo;
    h->limbo = e;
    h->limbo_n++;
}

void readers_retire_table(struct shard *h, struct table *t) {
    if (!h->lockfree_reads) {
        free(t);
        return;
    }
    t->retired = h->tables;
    h->tables = t;
    h->limbo_n += RECLAIM_BATCH; /* an array is worth a flip at once */
}

static void free_retired(struct entry *e, struct table *t) {
    while (e) {
        struct entry *next = e->u.lru.next;
        free(e);
        e = next;
    }
    while (t) {
        struct table *next = t->retired;
        free(t);
        t = next;
    }
}

/* ThreadSanitizer does not model fences; a sequentially consistent
 * read-modify-write of the epoch (which every lookup reads) orders the same
 * accesses in a way it sees, at the price of a shared cache line, so it
 * stands in for the fence in TSan builds only. */
static void full_fence(struct shard *h) {
#if defined(__SANITIZE_THREAD__)
    __atomic_fetch_add(&h->epoch, 0, __ATOMIC_SEQ_CST);
#else
    (void)h;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static int none_active(struct shard *h, int parity) {
    for (int i = 0; i < READ_STRIPES; i++)
        if (SEQ_LOAD(&h->stripes[i].active[parity])) return 0;
    return 1;
}

void readers_reclaim(struct shard *h) {
    if (!h->limbo_n) return;
    /* No lookup inside at all: one that enters after the fence reads the
     * table with sequentially consistent loads that follow the fence, so it
     * sees every unlink made before it and cannot reach what was retired.
     * The usual case of a single thread, and it lets malloc reuse the memory
     * at once. */
    full_fence(h);
    if (none_active(h, 0) && none_active(h, 1)) {
        readers_free_all(h);
        return;
    }
    if (h->limbo_n < RECLAIM_BATCH) return;
    uint64_t epoch = h->epoch; /* only the lock holder writes it */
    if (!none_active(h, (epoch - 1) & 1)) return;
    free_retired(h->limbo_old, h->tables_old);
    h->limbo_old = h->limbo;
    h->tables_old = h->tables;
    h->limbo = NULL;
    h->tables = NULL;
    h->limbo_n = 0;
    __atomic_store_n(&h->epoch, epoch + 1, __ATOMIC_SEQ_CST);
}

void readers_free_all(struct shard *h) {
    free_retired(h->limbo_old, h->tables_old);
    free_retired(h->limbo, h->tables);
    h->limbo_old = h->limbo = NULL;
    h->tables_old = h->tables = NULL;
    h->limbo_n = 0;
}

void readers_counts(struct shard *h, uint64_t *hits, uint64_t *misses) {
    *hits = *misses = 0;
    for (int i = 0; i < READ_STRIPES; i++) {
        *hits += __atomic_load_n(&h->stripes[i].hits, __ATOMIC_RELAXED);
        *misses += __atomic_load_n(&h->stripes[i].misses, __ATOMIC_RELAXED);
    }
}
