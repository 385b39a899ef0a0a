/*
 * paper.c - the paper's policy (HOTCACHE_PAPER): every tracked key has a
 * hotscore, cached entries and ghosts (uncached keys' records) sit in
 * min-heaps on it, and a candidate must outscore what it would displace.
 *
 * The paper's scores. The paper closes a period every `period` lookups and recomputes
 * every tracked key:  score = a * visits / period + (1 - a) * score.  A key
 * nobody looks up only decays by (1 - a) per period, so a record keeps just
 * S, its score when the last period in which it had visits (p) closed, plus
 * the visits of its open period; the score at any later period is
 * S * (1 - a)^k. Closing a period is `period++`: nothing is revisited.
 *
 * Selection. Entries sit in a binary min-heap on score, ghosts (uncached
 * keys' records) in another. Because all idle records decay alike, two heap
 * keys keep their order over time, so a heap stays valid while periods pass;
 * the only change is that an entry's rank rises when the period holding its
 * pending visits closes, which is repaired lazily when it reaches the top.
 * Admission ("does the candidate outscore the entries it would displace?")
 * and eviction cost O(log n), instead of the paper's sort per period.
 * test_hotcache_policy.c checks all of this against an eager implementation.
 */
#define _GNU_SOURCE /* clock_gettime */
#include "shard_internal.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

uint64_t paper_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- scores ------------------------------------------------------------ */

static double decay_by(const struct shard *h, uint64_t periods) {
    return periods < 64 ? h->keep_pow[periods] : pow(h->keep, (double)periods);
}

/* The score the record gets when period vstamp closes (the paper's formula
 * with the idle decay since p folded in). */
static double closed_value(const struct shard *h, const rec_t *r) {
    double old = r->S > 0 ? r->S * decay_by(h, r->vstamp - r->p) : 0;
    return h->cfg.decay * r->visits / h->cfg.period + old;
}

/* Fold the visits of a finished period into S. */
static void rec_close(const struct shard *h, rec_t *r) {
    if (!r->visits || r->vstamp == h->period) return;
    r->S = closed_value(h, r);
    r->p = r->vstamp;
    r->visits = 0;
}

/* Score as of the start of the current period (what the eager loop holds). */
static double score_now(const struct shard *h, const rec_t *r) {
    rec_t c = *r;
    rec_close(h, &c);
    return c.S > 0 ? c.S * decay_by(h, h->period - c.p - 1) : 0;
}

/* Entries rank by score, closed periods only. That rank goes stale when the
 * period of a record's pending visits closes; stale ranks only understate,
 * so the heap is repaired lazily from the top (entry_min). */
static void rank_as_entry(rec_t *r) {
    r->kv = r->S;
    r->kp = r->p;
}

static int entry_stale(const struct shard *h, const rec_t *r) {
    return r->visits && r->vstamp != h->period;
}

/* Ghosts rank by projected score, pending visits included: a key being
 * looked up right now must be able to displace a ghost that went cold, or
 * it could never start earning a score. */
static void rank_as_ghost(const struct shard *h, rec_t *r) {
    if (!r->visits) {
        rank_as_entry(r);
        return;
    }
    r->kv = closed_value(h, r);
    r->kp = r->vstamp;
}

/* Idle records all decay by (1 - a) per period, so two heap keys compare at
 * any later time as they do once brought to the later of their periods;
 * the order never changes while the records sit untouched. With a = 1 an
 * older period's score is worth nothing, so the period decides first. */
static int rank_less(const struct shard *h, const rec_t *x, const rec_t *y) {
    double xv = x->kv, yv = y->kv;
    if (x->kp != y->kp) {
        if (h->memoryless) return x->kp < y->kp;
        if (x->kp > y->kp)
            yv *= decay_by(h, x->kp - y->kp);
        else
            xv *= decay_by(h, y->kp - x->kp);
    }
    if (xv != yv) return xv < yv;
    return x->seq < y->seq;
}

static void rec_init(rec_t *r) { memset(r, 0, sizeof *r); }

static void rec_visit(const struct shard *h, rec_t *r) {
    rec_close(h, r);
    if (!r->visits) r->vstamp = h->period;
    r->visits++;
}

/* Close the periods that are due. A count-based close waits for the next
 * lookup to arrive, so the put that usually follows the period's last
 * lookup still sees that lookup's visit as current, like every other miss:
 * a key must not be admitted just because its miss happened to end a period. */
static void paper_close_due_periods(struct shard *h, int lookup) {
    uint64_t now = h->cfg.period_ns ? paper_now_ns() : 0;
    if (h->cfg.period_ns && now - h->period_start_ns >= h->cfg.period_ns) {
        uint64_t k = (now - h->period_start_ns) / h->cfg.period_ns;
        h->period += k;
        h->period_start_ns += k * h->cfg.period_ns;
        h->lookups = 0;
    }
    if (lookup && h->lookups == h->cfg.period) {
        h->period++;
        h->lookups = 0;
        h->period_start_ns = now;
    }
}

/* ---- binary min-heap of records ---------------------------------------- */

static void heap_put(rec_t **a, size_t i, rec_t *r) {
    a[i] = r;
    r->slot = (uint32_t)i;
}

static void sift_up(const struct shard *h, rec_t **a, size_t i) {
    rec_t *r = a[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!rank_less(h, r, a[p])) break;
        heap_put(a, i, a[p]);
        i = p;
    }
    heap_put(a, i, r);
}

static void sift_down(const struct shard *h, rec_t **a, size_t n, size_t i) {
    rec_t *r = a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && rank_less(h, a[c + 1], a[c])) c++;
        if (!rank_less(h, a[c], r)) break;
        heap_put(a, i, a[c]);
        i = c;
    }
    heap_put(a, i, r);
}

static void heap_push(const struct shard *h, rec_t **a, size_t *n, rec_t *r) {
    heap_put(a, *n, r);
    sift_up(h, a, (*n)++);
}

static void heap_remove(const struct shard *h, rec_t **a, size_t *n, size_t i) {
    rec_t *last = a[--*n];
    if (i == *n) return;
    heap_put(a, i, last);
    sift_up(h, a, i);
    sift_down(h, a, *n, last->slot);
}

/* Pop the minimum but leave it just past the heap's end (heapsort style),
 * so a rejected admission can push it back without allocating. */
static rec_t *heap_pop_to_tail(const struct shard *h, rec_t **a, size_t *n) {
    rec_t *min = a[0];
    heap_remove(h, a, n, 0);
    a[*n] = min;
    return min;
}

/* The lowest-scoring entry, after refreshing stale ranks at the top: each
 * refresh only raises a rank, and a fresh top bounds every stored rank
 * below it, which in turn understates its record's true rank. */
static rec_t *entry_min(struct shard *h) {
    while (h->heap_n && entry_stale(h, h->heap[0])) {
        rec_close(h, h->heap[0]);
        rank_as_entry(h->heap[0]);
        sift_down(h, h->heap, h->heap_n, 0);
    }
    return h->heap_n ? h->heap[0] : NULL;
}

/* ---- ghosts ------------------------------------------------------------ */

static size_t ghost_slot(const struct shard *h, uint64_t hash) {
    size_t i = (size_t)hash & h->gmask;
    while (h->gindex[i] && h->ghosts[h->gindex[i] - 1].hash != hash) i = (i + 1) & h->gmask;
    return i;
}

static struct ghost *ghost_find(const struct shard *h, uint64_t hash) {
    if (!h->ghost_cap) return NULL;
    uint32_t v = h->gindex[ghost_slot(h, hash)];
    return v ? &h->ghosts[v - 1] : NULL;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void gindex_delete(struct shard *h, size_t hole) {
    size_t i = hole, j = hole;
    for (;;) {
        j = (j + 1) & h->gmask;
        if (!h->gindex[j]) break;
        size_t home = (size_t)h->ghosts[h->gindex[j] - 1].hash & h->gmask;
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            h->gindex[i] = h->gindex[j];
            i = j;
        }
    }
    h->gindex[i] = 0;
}

static void ghost_remove(struct shard *h, struct ghost *g) {
    size_t pos = (size_t)(g - h->ghosts);
    gindex_delete(h, ghost_slot(h, g->hash));
    heap_remove(h, h->gheap, &h->nghosts, g->r.slot);
    /* heap_remove shrank nghosts; keep the arena dense by moving the last
     * ghost into the hole. */
    size_t last = h->nghosts;
    if (pos != last) {
        h->ghosts[pos] = h->ghosts[last];
        h->gindex[ghost_slot(h, h->ghosts[pos].hash)] = (uint32_t)pos + 1;
        h->gheap[h->ghosts[pos].r.slot] = &h->ghosts[pos].r;
    }
}

/* Track an uncached key's score, displacing the lowest-ranked ghost when
 * full; a newcomer that ranks below every ghost is not kept. */
static void ghost_offer(struct shard *h, uint64_t hash, rec_t r) {
    if (!h->ghost_cap) return;
    rank_as_ghost(h, &r);
    if (h->nghosts == h->ghost_cap) {
        if (!rank_less(h, h->gheap[0], &r)) return;
        ghost_remove(h, (struct ghost *)h->gheap[0]);
    }
    size_t pos = h->nghosts;
    h->ghosts[pos].r = r;
    h->ghosts[pos].hash = hash;
    h->gindex[ghost_slot(h, hash)] = (uint32_t)pos + 1;
    size_t n = h->nghosts;
    heap_push(h, h->gheap, &n, &h->ghosts[pos].r);
    h->nghosts = n;
}

/* ---- the policy -------------------------------------------------------- */

/* entries_fit, with the growth of the entry heap a new entry would trigger. */
static int paper_fit(const struct shard *h, size_t n, uint64_t freed, uint64_t charge) {
    if ((uint64_t)n + 1 > h->heap_cap)
        charge += alloc_bytes(2 * (uint64_t)h->heap_cap * sizeof(rec_t *)) -
                  alloc_bytes((uint64_t)h->heap_cap * sizeof(rec_t *));
    return entries_fit(h, n, freed, charge);
}

static int grow_heap(struct shard *h) {
    rec_t **a = realloc(h->heap, 2 * h->heap_cap * sizeof *a);
    if (!a) return SCBF_E_NOMEM;
    h->heap = a;
    h->heap_cap *= 2;
    return SCBF_OK;
}

/* Hotscore admission: pop the lowest-scoring entries until the candidate
 * fits; it must score strictly higher than each (so on a tie the incumbent
 * stays, which is what keeps a loop larger than the cache from flushing it).
 * Otherwise put them all back. */
static int admit_by_score(struct shard *h, const rec_t *cand, uint64_t charge) {
    size_t n = h->heap_n, k = 0;
    uint64_t freed = 0;
    double cs = score_now(h, cand);
    while (!paper_fit(h, n - k, freed, charge)) {
        rec_t *min = entry_min(h);
        if (!min || !(score_now(h, min) < cs)) {
            while (k > 0) { /* rejected: restore the victims */
                size_t m = h->heap_n;
                heap_push(h, h->heap, &m, h->heap[h->heap_n]);
                h->heap_n = m;
                k--;
            }
            return 0;
        }
        struct entry *v = (struct entry *)heap_pop_to_tail(h, h->heap, &h->heap_n);
        freed += entry_charge(v->klen, v->vlen);
        k++;
    }
    /* Victims sit at heap[heap_n .. n), the first popped at the end:
     * evict them in the order they were chosen. */
    for (size_t i = n; i-- > h->heap_n;) {
        struct entry *v = (struct entry *)h->heap[i];
        rec_t r = v->u.r;
        uint64_t hash = v->hash;
        entries_destroy(h, v);
        h->evictions++;
        ghost_offer(h, hash, r);
    }
    return 1;
}

/* A lookup's visit: to the entry's record, or to the key's ghost. */
static void paper_lookup(struct shard *h, uint64_t hash, struct entry *e) {
    paper_close_due_periods(h, 1);
    h->lookups++;
    if (e) {
        /* A hit changes the entry's rank only when it closes a pending
         * period (and only upward); `seq` is not bumped, so that the
         * common hit costs no heap walk. Among equal scores entries
         * therefore leave in the order they were put. */
        int stale = entry_stale(h, &e->u.r);
        rec_visit(h, &e->u.r);
        if (stale) {
            rank_as_entry(&e->u.r);
            sift_down(h, h->heap, h->heap_n, e->u.r.slot);
        }
        return;
    }
    struct ghost *g = ghost_find(h, hash);
    if (g) {
        rec_visit(h, &g->r);
        g->r.seq = ++h->seq;
        rank_as_ghost(h, &g->r);
        sift_down(h, h->gheap, h->nghosts, g->r.slot);
    } else {
        rec_t r;
        rec_init(&r);
        rec_visit(h, &r);
        r.seq = ++h->seq;
        ghost_offer(h, hash, r);
    }
}

static void heap_add(struct shard *h, struct entry *e, const rec_t *r) {
    e->u.r = *r;
    heap_push(h, h->heap, &h->heap_n, &e->u.r);
}

/* Room has been made (admit_by_score). */
static int link_entry(struct shard *h, struct entry *e, const rec_t *r) {
    int rc;
    if (h->heap_n + 1 > h->heap_cap && (rc = grow_heap(h)) != SCBF_OK) return rc;
    if ((rc = entries_link(h, e)) != SCBF_OK) return rc;
    heap_add(h, e, r);
    return SCBF_OK;
}

/* The paper's put: the candidate carries the key's record (from the old
 * entry or its ghost) and must outscore whatever it displaces. */
static int paper_put(struct shard *h, struct entry *old, struct entry **nodep, uint64_t hash,
                     int hopeless, uint64_t charge, int *admitted) {
    rec_t cand;
    struct ghost *g;
    paper_close_due_periods(h, 0);
    if (old) {
        cand = old->u.r;
        heap_remove(h, h->heap, &h->heap_n, cand.slot);
        entries_destroy(h, old);
    } else if ((g = ghost_find(h, hash)) != NULL) {
        cand = g->r;
        ghost_remove(h, g);
    } else {
        rec_init(&cand);
    }
    rec_close(h, &cand);
    cand.seq = ++h->seq;
    rank_as_entry(&cand);
    int rc = SCBF_OK;
    int ok =
        !hopeless && paper_fit(h, 0, h->entry_bytes, charge) && admit_by_score(h, &cand, charge);
    if (ok) rc = link_entry(h, *nodep, &cand);
    *admitted = ok && rc == SCBF_OK;
    if (*admitted)
        *nodep = NULL;
    else
        ghost_offer(h, hash, cand);
    return rc;
}

/* Take an entry out of the heap and free it; its record becomes a ghost. */
static void paper_drop(struct shard *h, struct entry *e) {
    rec_t r = e->u.r;
    uint64_t hash = e->hash;
    heap_remove(h, h->heap, &h->heap_n, r.slot);
    entries_destroy(h, e);
    ghost_offer(h, hash, r);
}

static void paper_clear(struct shard *h) {
    h->heap_n = 0;
    h->nghosts = 0;
    if (h->ghost_cap) memset(h->gindex, 0, (h->gmask + 1) * sizeof *h->gindex);
}

const struct policy paper_policy = {paper_lookup, paper_put, paper_drop, paper_clear};

const rec_t *paper_record(const struct shard *h, const struct entry *e, uint64_t hash) {
    if (e) return &e->u.r;
    struct ghost *g = ghost_find(h, hash);
    return g ? &g->r : NULL;
}

double paper_score(const struct shard *h, const rec_t *r) { return score_now(h, r); }

uint64_t paper_ghost_record_bytes(void) {
    /* two index slots: the index's load factor is at most 1/2 */
    return sizeof(struct ghost) + sizeof(rec_t *) + 2 * sizeof(uint32_t);
}
