/*
 * shard.c - one lock's worth of the cache: a byte-bounded hash table with the
 * three policies of hotcache.h (adaptive hotscore, the paper's formula, LRU).
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
 * test_hotcache.c checks all of this against an eager implementation.
 *
 * Accounting. Every allocation is charged at the size glibc's malloc
 * actually reserves for it (16-byte rounding plus an 8-byte header, 32
 * minimum): the cache struct, the ghost arena and its index and heap (all
 * preallocated at create), the bucket array, the entry heap, and each entry
 * node with its key and value.  Growing the bucket array or the heap is
 * charged before it happens, so bytes_used never exceeds capacity_bytes.
 */
#define _GNU_SOURCE /* clock_gettime, PTHREAD_MUTEX_ADAPTIVE_NP */
#include "shard.h"

#include "shadow.h"
#include "sketch.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INITIAL_BUCKETS 16
#define INITIAL_HEAP    16
/* Defaults, tuned on Zipf and the LIRS traces (docs/benchmarks-cache.md):
 * a period of about 8 lookups per cached entry, a = 0.2, and about two
 * ghosts per entry. In byte mode the entry count is unknown at config time,
 * so the period assumes ~256-byte entries and ghosts get a quarter of the
 * capacity (about one ghost per 100-byte-value entry). */
#define GHOST_BYTES_DIV     4
#define GHOSTS_PER_ENTRY    2
#define PERIOD_PER_ENTRY    8
#define ASSUMED_ENTRY_BYTES 256
#define MIN_PERIOD          1024
#define MAX_PERIOD          (UINT32_C(1) << 24)
#define DEFAULT_DECAY       0.2

/* Scoring state of one tracked key (cached entry or ghost). The closed
 * history is one number, S = the score when period p closed (p = the last
 * closed period with visits); every later score is S * (1 - a)^k. Visits of
 * the open period `vstamp` are kept apart until that period is over. Both
 * parts are pure functions of the key's visit history, however often the
 * record was touched, so equal histories give bit-identical scores. */
typedef struct {
    double S;
    uint64_t p;
    uint64_t vstamp;
    uint32_t visits; /* in period vstamp */
    uint32_t slot;   /* position in its heap */
    uint64_t seq;    /* last touch, breaks rank ties */
    double kv;       /* heap key: a score the record had when period kp */
    uint64_t kp;     /*   closed; see rank_less */
} rec_t;

/* The lists of the list-based policies: LRU uses Q_WINDOW alone; the
 * adaptive policy all three (see the adaptive section below). */
enum { Q_WINDOW = 0, Q_PROBATION = 1, Q_PROTECTED = 2, NQUEUES = 3 };

struct entry {
    union {      /* first, so a heap's rec_t * is the entry */
        rec_t r; /* paper */
        struct {
            struct entry *prev, *next;
            uint8_t queue;
        } lru; /* lru, adaptive */
    } u;
    struct entry *chain; /* bucket chain */
    uint64_t hash;
    uint32_t klen, vlen;
    unsigned char data[]; /* key, then value */
};

struct ghost {
    rec_t r; /* first, so a heap's rec_t * is the ghost */
    uint64_t hash;
};

/* One list, most recently used first; sizes in units (see units_of). */
struct list {
    struct entry *mru, *lru;
    uint64_t units;
};

struct shard {
    pthread_mutex_t lock;
    hotcache_config_t cfg;
    int paper;           /* the paper's policy: heaps and ghosts; otherwise lists */
    int memoryless;      /* a == 1 */
    double keep;         /* 1 - a */
    double keep_pow[64]; /* (1 - a)^k, the common decay gaps */

    struct entry **buckets;
    size_t nbuckets, nentries;
    rec_t **heap; /* hotscore: min-heap of entries */
    size_t heap_n, heap_cap;
    struct list q[NQUEUES]; /* lru, adaptive */

    /* adaptive: the frequency sketch, the window's share of the capacity,
     * and the shadow LRU that tunes it (see tune_window) */
    sketch_t sketch;
    shadow_t shadow;
    double window_share;

    struct ghost *ghosts; /* arena, ghosts[0 .. nghosts) live */
    rec_t **gheap;        /* min-heap of ghosts */
    uint32_t *gindex;     /* linear probing, arena index + 1, 0 = empty */
    size_t nghosts, ghost_cap, gmask;

    uint64_t period;  /* periods closed so far */
    uint32_t lookups; /* lookups in the current period */
    uint64_t period_start_ns;
    uint64_t seq;

    uint64_t fixed_bytes; /* struct + ghost structures */
    uint64_t entry_bytes; /* entry nodes */
    uint64_t hits, misses, admissions, rejections, evictions, invalidations;
};

/* ---- accounting -------------------------------------------------------- */

/* Bytes glibc reserves for a malloc(n): header + 16-byte rounding, 32 min. */
static uint64_t alloc_bytes(uint64_t n) {
    uint64_t c = (n + 8 + 15) & ~(uint64_t)15;
    return c < 32 ? 32 : c;
}

static uint64_t entry_charge(size_t klen, size_t vlen) {
    return alloc_bytes(sizeof(struct entry) + (uint64_t)klen + vlen);
}

static uint64_t bytes_used(const struct shard *h) {
    uint64_t b = h->fixed_bytes + h->entry_bytes +
                 alloc_bytes((uint64_t)h->nbuckets * sizeof(struct entry *));
    if (h->paper) b += alloc_bytes((uint64_t)h->heap_cap * sizeof(rec_t *));
    return b;
}

static uint64_t now_ns(void) {
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
static void close_due_periods(struct shard *h, int lookup) {
    uint64_t now = h->cfg.period_ns ? now_ns() : 0;
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

/* ---- entries ----------------------------------------------------------- */

static struct entry **chain_link(const struct shard *h, uint64_t hash, const void *key,
                                 size_t klen) {
    struct entry **link = &h->buckets[hash & (h->nbuckets - 1)];
    for (; *link; link = &(*link)->chain) {
        struct entry *e = *link;
        if (e->hash == hash && e->klen == klen && (klen == 0 || !memcmp(e->data, key, klen))) break;
    }
    return link;
}

/* An entry's size against the capacity: one with max_entries (the trace
 * simulator's unit-size entries), else its bytes. */
static uint64_t units_of(const struct shard *h, const struct entry *e) {
    return h->cfg.max_entries ? 1 : entry_charge(e->klen, e->vlen);
}

static void list_unlink(struct shard *h, struct entry *e) {
    struct list *l = &h->q[e->u.lru.queue];
    if (e->u.lru.prev)
        e->u.lru.prev->u.lru.next = e->u.lru.next;
    else
        l->mru = e->u.lru.next;
    if (e->u.lru.next)
        e->u.lru.next->u.lru.prev = e->u.lru.prev;
    else
        l->lru = e->u.lru.prev;
    l->units -= units_of(h, e);
}

static void list_push_front(struct shard *h, struct entry *e, int queue) {
    struct list *l = &h->q[queue];
    e->u.lru.queue = (uint8_t)queue;
    e->u.lru.prev = NULL;
    e->u.lru.next = l->mru;
    if (l->mru)
        l->mru->u.lru.prev = e;
    else
        l->lru = e;
    l->mru = e;
    l->units += units_of(h, e);
}

static void list_move_front(struct shard *h, struct entry *e, int queue) {
    list_unlink(h, e);
    list_push_front(h, e, queue);
}

/* Unlink from its chain and free; the caller has already taken it out of
 * the heap or the LRU list. */
static void entry_destroy(struct shard *h, struct entry *e) {
    struct entry **link = chain_link(h, e->hash, e->data, e->klen);
    *link = e->chain;
    h->nentries--;
    h->entry_bytes -= entry_charge(e->klen, e->vlen);
    free(e);
}

/* Remove a cached entry; its score history (hotscore) goes to the ghosts. */
static void entry_drop(struct shard *h, struct entry *e) {
    if (!h->paper) {
        list_unlink(h, e);
        entry_destroy(h, e);
        return;
    }
    rec_t r = e->u.r;
    uint64_t hash = e->hash;
    heap_remove(h, h->heap, &h->heap_n, r.slot);
    entry_destroy(h, e);
    ghost_offer(h, hash, r);
}

/* Would an entry of `charge` bytes fit next to `n` entries once `freed`
 * bytes of entries are gone?  Includes the index growth it would trigger. */
static int fits(const struct shard *h, size_t n, uint64_t freed, uint64_t charge) {
    uint64_t n1 = (uint64_t)n + 1;
    if (h->cfg.max_entries && n1 > h->cfg.max_entries) return 0;
    if (n1 >= UINT32_MAX) return 0; /* heap slots are 32-bit */
    uint64_t need = charge;
    if (n1 > h->nbuckets)
        need += alloc_bytes(2 * (uint64_t)h->nbuckets * sizeof(struct entry *)) -
                alloc_bytes((uint64_t)h->nbuckets * sizeof(struct entry *));
    if (h->paper && n1 > h->heap_cap)
        need += alloc_bytes(2 * (uint64_t)h->heap_cap * sizeof(rec_t *)) -
                alloc_bytes((uint64_t)h->heap_cap * sizeof(rec_t *));
    return bytes_used(h) - freed + need <= h->cfg.capacity_bytes;
}

/* Hotscore admission: pop the lowest-scoring entries until the candidate
 * fits; it must score strictly higher than each (so on a tie the incumbent
 * stays, which is what keeps a loop larger than the cache from flushing it).
 * Otherwise put them all back. */
static int hotscore_make_room(struct shard *h, const rec_t *cand, uint64_t charge) {
    size_t n = h->heap_n, k = 0;
    uint64_t freed = 0;
    double cs = score_now(h, cand);
    while (!fits(h, n - k, freed, charge)) {
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
        entry_destroy(h, v);
        h->evictions++;
        ghost_offer(h, hash, r);
    }
    return 1;
}

static int lru_make_room(struct shard *h, uint64_t charge) {
    while (!fits(h, h->nentries, 0, charge)) {
        struct entry *v = h->q[Q_WINDOW].lru;
        list_unlink(h, v);
        entry_destroy(h, v);
        h->evictions++;
    }
    return 1;
}

static int grow_buckets(struct shard *h) {
    size_t nb = 2 * h->nbuckets;
    struct entry **b = calloc(nb, sizeof *b);
    if (!b) return SCBF_E_NOMEM;
    for (size_t i = 0; i < h->nbuckets; i++) {
        struct entry *e = h->buckets[i];
        while (e) {
            struct entry *next = e->chain;
            e->chain = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    free(h->buckets);
    h->buckets = b;
    h->nbuckets = nb;
    return SCBF_OK;
}

static int grow_heap(struct shard *h) {
    rec_t **a = realloc(h->heap, 2 * h->heap_cap * sizeof *a);
    if (!a) return SCBF_E_NOMEM;
    h->heap = a;
    h->heap_cap *= 2;
    return SCBF_OK;
}

/* Link a new entry: into the paper's heap with record r, or at the front of
 * list `queue`. Room has been made by make_room, except in the adaptive
 * policy, which links first and then evicts until the cache fits. */
static int entry_link(struct shard *h, struct entry *e, const rec_t *r, int queue) {
    int rc;
    if (h->nentries + 1 > h->nbuckets && (rc = grow_buckets(h)) != SCBF_OK) return rc;
    if (h->paper && h->heap_n + 1 > h->heap_cap && (rc = grow_heap(h)) != SCBF_OK) return rc;
    struct entry **head = &h->buckets[e->hash & (h->nbuckets - 1)];
    e->chain = *head;
    *head = e;
    h->nentries++;
    h->entry_bytes += entry_charge(e->klen, e->vlen);
    if (h->paper) {
        e->u.r = *r;
        heap_push(h, h->heap, &h->heap_n, &e->u.r);
    } else {
        list_push_front(h, e, queue);
    }
    return SCBF_OK;
}

/* ---- adaptive hotscore -------------------------------------------------
 *
 * New entries enter a small LRU *window*; entries leaving the window enter
 * the *main* area only if their hotscore (the sketch's estimate of their
 * recent accesses) is higher than that of the main entry they would evict,
 * the least recently used of the *probation* segment. A second hit in main
 * promotes an entry to the *protected* segment (80% of main); entries
 * demoted from it return to probation. So a key earns its place by being
 * used, at once, not when a period closes; a burst of one-time keys passes
 * through the window without flushing the hot set; and a loop larger than
 * the cache keeps a fixed part of itself cached.
 *
 * The window's share of the capacity is tuned online by comparing the cache
 * with plain LRU on the same lookups: a shadow LRU of key hashes, as large
 * as the cache, says for each lookup whether LRU would have hit. A lookup
 * LRU hits and the cache misses moves the share up one entry's worth (more
 * recency); one the cache hits and LRU misses moves it down one (more
 * frequency; up to four while the main area is small). The share settles
 * where the two kinds balance, that is where the cache hits at least as
 * often as LRU would, unless frequency does better, when it keeps going
 * down. Both sides see the same accesses, so unlike hill climbing over
 * successive samples (W-TinyLFU's adaptive variant) a phase change of the
 * workload is not mistaken for the effect of the last step. At a share of 1 the cache is LRU and the two never
 * disagree, so it then steps down one notch on its own to keep a small main
 * area that can show frequency paying again.
 *
 * Admission by frequency sketch and the segmented main area follow
 * W-TinyLFU (Einziger, Friedman and Manes, "TinyLFU", ACM TOS 2017); the
 * duel with a shadow policy follows set dueling and ARC's ghost lists in
 * spirit, with the whole cache as the shadow's size. */

/* The cache starts close to LRU (a main area of 1/8) and moves towards
 * frequency only as the main area earns hits LRU would miss: a workload on
 * which LRU is already optimal (back-and-forth scans) then loses at most
 * that 1/8 on its first pass, while a loop or a skewed workload, where the
 * main area soon out-hits LRU, pays a short descent (faster while the main
 * area is small, see main_evidence_weight). Starting halfway, as built
 * first, lost up to 0.023 to LRU on those short scans. Tuned on the traces
 * in docs/benchmarks-cache.md, like the sketch's aging rate. */
#define INITIAL_WINDOW_SHARE 0.875
#define PROTECTED_SHARE      0.8
#define MIN_STEP_ENTRIES     64
#define MAX_MAIN_WEIGHT      4.0

/* Units entries may take: the entry cap, else the bytes the fixed
 * structures and the bucket array leave. */
static uint64_t unit_budget(const struct shard *h) {
    if (h->cfg.max_entries) return h->cfg.max_entries;
    uint64_t overhead = bytes_used(h) - h->entry_bytes;
    return h->cfg.capacity_bytes > overhead ? h->cfg.capacity_bytes - overhead : 0;
}

static uint64_t window_target(const struct shard *h) {
    return (uint64_t)(h->window_share * (double)unit_budget(h));
}

static uint64_t protected_target(const struct shard *h) {
    uint64_t budget = unit_budget(h), window = window_target(h);
    return budget > window ? (uint64_t)(PROTECTED_SHARE * (double)(budget - window)) : 0;
}

static int over_capacity(const struct shard *h) {
    return bytes_used(h) > h->cfg.capacity_bytes ||
           (h->cfg.max_entries && h->nentries > h->cfg.max_entries);
}

static void adaptive_evict(struct shard *h, struct entry *e) {
    list_unlink(h, e);
    entry_destroy(h, e);
    h->evictions++;
}

/* A candidate that just left the window for probation meets the entries it
 * would displace, least recently used first: it stays only if it is hotter
 * than each (ties keep the incumbent). Returns 0 if it was evicted. */
static int admit(struct shard *h, struct entry *cand) {
    unsigned f = sketch_frequency(&h->sketch, cand->hash);
    while (over_capacity(h)) {
        struct entry *v = h->q[Q_PROBATION].lru;
        if (v == cand) v = NULL; /* cand, at the front, is all probation holds */
        if (!v) v = h->q[Q_PROTECTED].lru;
        if (!v) return 1; /* main holds nothing else: the window makes room */
        if (f > sketch_frequency(&h->sketch, v->hash)) {
            adaptive_evict(h, v);
        } else {
            adaptive_evict(h, cand);
            return 0;
        }
    }
    return 1;
}

/* Make the cache fit after `node` was linked; returns 0 if node itself had
 * to go. */
static int adaptive_fit(struct shard *h, struct entry *node) {
    int kept = 1;
    uint64_t window = window_target(h);
    while (h->q[Q_WINDOW].units > window) {
        struct entry *c = h->q[Q_WINDOW].lru;
        list_move_front(h, c, Q_PROBATION);
        if (!admit(h, c) && c == node) kept = 0;
    }
    /* Still too full (the window grew, or is all there is): main shrinks
     * by recency, then the window. */
    while (over_capacity(h)) {
        struct entry *v = h->q[Q_PROBATION].lru;
        if (!v) v = h->q[Q_PROTECTED].lru;
        if (!v) v = h->q[Q_WINDOW].lru;
        if (v == node) kept = 0;
        adaptive_evict(h, v);
    }
    return kept;
}

static void adaptive_hit(struct shard *h, struct entry *e) {
    if (e->u.lru.queue != Q_PROBATION) {
        list_move_front(h, e, e->u.lru.queue);
        return;
    }
    list_move_front(h, e, Q_PROTECTED);
    uint64_t cap = protected_target(h);
    while (h->q[Q_PROTECTED].units > cap && h->q[Q_PROTECTED].lru != e)
        list_move_front(h, h->q[Q_PROTECTED].lru, Q_PROBATION);
}

/* How much one hit that only the main area explains counts: a main area
 * smaller than half the cache can show only a fraction of what frequency
 * would earn at full size, so its evidence is scaled up by the shortfall
 * (at most MAX_MAIN_WEIGHT times, so one lucky hit cannot swing the share). */
static double main_evidence_weight(double window_share) {
    double main_share = 1.0 - window_share;
    if (main_share <= 0.5 / MAX_MAIN_WEIGHT)
        return MAX_MAIN_WEIGHT; /* also keeps 0 from dividing */
    return fmax(1.0, 0.5 / main_share);
}

/* One lookup's verdict against the shadow LRU (see the section comment). */
static void tune_window(struct shard *h, uint64_t hash, int hit) {
    uint64_t n = h->nentries;
    shadow_set_limit(&h->shadow, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
    int lru_hit = shadow_access(&h->shadow, hash);
    double step = 1.0 / (double)(n < MIN_STEP_ENTRIES ? MIN_STEP_ENTRIES : n);
    if (lru_hit && !hit)
        h->window_share = fmin(1.0, h->window_share + step);
    else if (hit && !lru_hit)
        h->window_share = fmax(0.0, h->window_share - step * main_evidence_weight(h->window_share));
    else if (h->window_share >= 1.0)
        h->window_share = 1.0 - step;
}

static void adaptive_reset(struct shard *h) { h->window_share = INITIAL_WINDOW_SHARE; }

/* Keys the sketch and the shadow LRU are sized for: the entry cap, else the
 * capacity at the assumed entry size, together held to 1/4 of the capacity
 * (the paper's ghosts get the same share; at the assumed size they take
 * about 1/8). With smaller entries than assumed, the shadow covers only the
 * most recent part of the cache, which biases the window towards frequency
 * but never breaks the cache. */
static uint64_t expected_keys(const hotcache_config_t *c) {
    uint64_t keys = c->max_entries ? c->max_entries : c->capacity_bytes / ASSUMED_ENTRY_BYTES;
    if (keys > UINT32_MAX / 2) keys = UINT32_MAX / 2;
    while (keys > 32 && sketch_bytes(keys) + shadow_bytes((uint32_t)keys) > c->capacity_bytes / 4)
        keys /= 2;
    return keys ? keys : 1;
}

/* ---- public API -------------------------------------------------------- */

void shard_config_default(hotcache_config_t *c, hotcache_policy policy, uint64_t capacity_bytes) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->policy = policy;
    c->capacity_bytes = capacity_bytes;
    uint64_t period = capacity_bytes / ASSUMED_ENTRY_BYTES * PERIOD_PER_ENTRY;
    c->period = period < MIN_PERIOD   ? MIN_PERIOD
                : period > MAX_PERIOD ? MAX_PERIOD
                                      : (uint32_t)period;
    c->decay = DEFAULT_DECAY;
}

static uint64_t ghost_record_bytes(void) {
    /* arena record + heap slot + two index slots (load factor <= 1/2) */
    return sizeof(struct ghost) + sizeof(rec_t *) + 2 * sizeof(uint32_t);
}

/* A shard's lock is held for a few hundred nanoseconds (one lookup and its
 * policy bookkeeping). A plain mutex puts a thread that finds it taken to
 * sleep in the kernel, which costs microseconds; glibc's adaptive mutex
 * spins briefly first, and the holder is nearly always done by then. */
static int init_lock(pthread_mutex_t *lock) {
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr)) return -1;
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    int rc = pthread_mutex_init(lock, &attr);
    pthread_mutexattr_destroy(&attr);
    return rc;
}

int shard_create(const hotcache_config_t *c, struct shard **out) {
    if (!c || !out || c->capacity_bytes == 0) return SCBF_E_INVALID_ARG;
    if (c->policy != HOTCACHE_HOTSCORE && c->policy != HOTCACHE_LRU && c->policy != HOTCACHE_PAPER)
        return SCBF_E_INVALID_ARG;
    int paper = c->policy == HOTCACHE_PAPER;
    int adaptive = c->policy == HOTCACHE_HOTSCORE;
    if (paper && (c->period == 0 || !(c->decay > 0 && c->decay <= 1))) return SCBF_E_INVALID_ARG;
    *out = NULL;

    uint64_t ghosts = 0;
    if (paper) {
        ghosts = c->ghost_entries;
        if (!ghosts) {
            ghosts = c->capacity_bytes / GHOST_BYTES_DIV / ghost_record_bytes();
            if (c->max_entries && c->max_entries <= UINT32_MAX / GHOSTS_PER_ENTRY &&
                c->max_entries * GHOSTS_PER_ENTRY < ghosts)
                ghosts = c->max_entries * GHOSTS_PER_ENTRY;
        }
        if (ghosts > UINT32_MAX / 4) return SCBF_E_TOO_LARGE;
    }
    uint64_t keys = adaptive ? expected_keys(c) : 0;

    struct shard *h = calloc(1, sizeof *h);
    if (!h) return SCBF_E_NOMEM;
    h->cfg = *c;
    h->paper = paper;
    h->memoryless = paper && c->decay == 1.0;
    h->keep = 1.0 - c->decay;
    for (int k = 0; k < 64; k++) h->keep_pow[k] = pow(h->keep, k);
    h->ghost_cap = (size_t)ghosts;
    h->nbuckets = INITIAL_BUCKETS;
    h->heap_cap = paper ? INITIAL_HEAP : 0;
    h->fixed_bytes = alloc_bytes(sizeof *h);
    if (ghosts) {
        size_t slots = 2;
        while (slots < 2 * h->ghost_cap) slots *= 2;
        h->gmask = slots - 1;
        h->fixed_bytes += alloc_bytes(ghosts * sizeof(struct ghost)) +
                          alloc_bytes(ghosts * sizeof(rec_t *)) +
                          alloc_bytes(slots * sizeof(uint32_t));
    }
    if (adaptive) {
        /* the sketch's two arrays and the shadow's four, each charged its
         * size plus malloc's most overhead (32 bytes) */
        h->fixed_bytes += sketch_bytes(keys) + 2 * 32 + shadow_bytes((uint32_t)keys) + 4 * 32;
        adaptive_reset(h);
    }
    if (bytes_used(h) > c->capacity_bytes) {
        free(h);
        return SCBF_E_INVALID_ARG; /* capacity below the fixed overhead */
    }
    if (init_lock(&h->lock)) {
        free(h);
        return SCBF_E_NOMEM;
    }
    h->buckets = calloc(h->nbuckets, sizeof *h->buckets);
    if (paper) h->heap = malloc(h->heap_cap * sizeof *h->heap);
    if (ghosts) {
        h->ghosts = malloc(ghosts * sizeof *h->ghosts);
        h->gheap = malloc(ghosts * sizeof *h->gheap);
        h->gindex = calloc(h->gmask + 1, sizeof *h->gindex);
    }
    int sketch_failed = adaptive && (sketch_init(&h->sketch, keys) != 0 ||
                                     shadow_init(&h->shadow, (uint32_t)keys) != 0);
    if (!h->buckets || (paper && !h->heap) || (ghosts && (!h->ghosts || !h->gheap || !h->gindex)) ||
        sketch_failed) {
        shard_free(h);
        return SCBF_E_NOMEM;
    }
    if (c->period_ns) h->period_start_ns = now_ns();
    *out = h;
    return SCBF_OK;
}

static void free_entries(struct shard *h) {
    for (size_t i = 0; i < h->nbuckets; i++) {
        struct entry *e = h->buckets[i];
        while (e) {
            struct entry *next = e->chain;
            free(e);
            e = next;
        }
        h->buckets[i] = NULL;
    }
    h->nentries = 0;
    h->heap_n = 0;
    h->entry_bytes = 0;
    memset(h->q, 0, sizeof h->q);
}

void shard_free(struct shard *h) {
    if (!h) return;
    if (h->buckets) free_entries(h);
    free(h->buckets);
    free(h->heap);
    free(h->ghosts);
    free(h->gheap);
    free(h->gindex);
    sketch_destroy(&h->sketch);
    shadow_destroy(&h->shadow);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* A paper-policy lookup's visit: to the entry's record, or to the ghost's. */
static void paper_visit(struct shard *h, struct entry *e, uint64_t hash) {
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

int shard_get(struct shard *h, uint64_t hash, const void *key, size_t klen, void *buf, size_t cap,
              size_t *vlen) {
    int rc;
    pthread_mutex_lock(&h->lock);
    if (h->paper) {
        close_due_periods(h, 1);
        h->lookups++;
    }
    struct entry *e = *chain_link(h, hash, key, klen);
    if (h->paper) {
        paper_visit(h, e, hash);
    } else if (h->cfg.policy == HOTCACHE_HOTSCORE) {
        sketch_increment(&h->sketch, hash);
        if (e) adaptive_hit(h, e);
        tune_window(h, hash, e != NULL);
    } else if (e) {
        list_move_front(h, e, Q_WINDOW);
    }
    if (e) {
        h->hits++;
        if (vlen) *vlen = e->vlen;
        rc = cap < e->vlen ? SCBF_E_BUFFER_TOO_SMALL : SCBF_OK;
        if (rc == SCBF_OK && e->vlen) memcpy(buf, e->data + e->klen, e->vlen);
    } else {
        h->misses++;
        rc = SCBF_E_NOT_FOUND;
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

/* The paper's put: the candidate carries the key's record (from the old
 * entry or its ghost) and must outscore whatever it displaces. */
static int paper_put(struct shard *h, struct entry *old, struct entry *node, uint64_t hash,
                     int hopeless, uint64_t charge, int *admitted) {
    rec_t cand;
    struct ghost *g;
    close_due_periods(h, 0);
    if (old) {
        cand = old->u.r;
        heap_remove(h, h->heap, &h->heap_n, cand.slot);
        entry_destroy(h, old);
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
        !hopeless && fits(h, 0, h->entry_bytes, charge) && hotscore_make_room(h, &cand, charge);
    if (ok) rc = entry_link(h, node, &cand, 0);
    *admitted = ok && rc == SCBF_OK;
    if (!*admitted) ghost_offer(h, hash, cand);
    return rc;
}

static int lru_put(struct shard *h, struct entry *old, struct entry *node, int hopeless,
                   uint64_t charge, int *admitted) {
    if (old) {
        list_unlink(h, old);
        entry_destroy(h, old);
    }
    int rc = SCBF_OK;
    int ok = !hopeless && fits(h, 0, h->entry_bytes, charge) && lru_make_room(h, charge);
    if (ok) rc = entry_link(h, node, NULL, Q_WINDOW);
    *admitted = ok && rc == SCBF_OK;
    return rc;
}

/* The adaptive put: a new key enters the window; a replaced value keeps the
 * old one's place (window, probation or protected). Once linked, the node
 * belongs to the cache (*nodep = NULL), even if making room evicts it. */
static int adaptive_put(struct shard *h, struct entry *old, struct entry **nodep, int hopeless,
                        uint64_t charge, int *admitted) {
    struct entry *node = *nodep;
    int queue = Q_WINDOW;
    if (old) {
        queue = old->u.lru.queue;
        list_unlink(h, old);
        entry_destroy(h, old);
    }
    *admitted = 0;
    if (hopeless || !fits(h, 0, h->entry_bytes, charge)) return SCBF_OK;
    int rc = entry_link(h, node, NULL, queue);
    if (rc != SCBF_OK) return rc;
    *nodep = NULL;
    *admitted = adaptive_fit(h, node);
    return SCBF_OK;
}

int shard_put(struct shard *h, uint64_t hash, const void *key, size_t klen, const void *val,
              size_t vlen, int *admitted) {
    /* Values of 4 GiB or more are never admitted (lengths are 32-bit). */
    int hopeless =
        klen > UINT32_MAX || vlen > UINT32_MAX || entry_charge(klen, vlen) > h->cfg.capacity_bytes;
    uint64_t charge = hopeless ? 0 : entry_charge(klen, vlen);
    struct entry *node = NULL;
    if (!hopeless) {
        node = malloc(sizeof *node + klen + vlen);
        if (!node) return SCBF_E_NOMEM;
        node->hash = hash;
        node->klen = (uint32_t)klen;
        node->vlen = (uint32_t)vlen;
        if (klen) memcpy(node->data, key, klen);
        if (vlen) memcpy(node->data + klen, val, vlen);
    }

    int rc, in = 0;
    pthread_mutex_lock(&h->lock);
    /* The old value goes first: if the new one is refused, neither stays. */
    struct entry *old = *chain_link(h, hash, key, klen);
    if (h->paper)
        rc = paper_put(h, old, node, hash, hopeless, charge, &in);
    else if (h->cfg.policy == HOTCACHE_LRU)
        rc = lru_put(h, old, node, hopeless, charge, &in);
    else
        rc = adaptive_put(h, old, &node, hopeless, charge, &in);
    if (in) {
        h->admissions++;
    } else {
        h->rejections++;
        free(node); /* NULL if the cache took it */
    }
    if (admitted) *admitted = in;
    pthread_mutex_unlock(&h->lock);
    return rc;
}

int shard_invalidate(struct shard *h, uint64_t hash, const void *key, size_t klen) {
    pthread_mutex_lock(&h->lock);
    struct entry *e = *chain_link(h, hash, key, klen);
    if (e) {
        entry_drop(h, e);
        h->invalidations++;
    }
    pthread_mutex_unlock(&h->lock);
    return e ? SCBF_OK : SCBF_E_NOT_FOUND;
}

void shard_clear(struct shard *h) {
    pthread_mutex_lock(&h->lock);
    free_entries(h);
    h->nghosts = 0;
    if (h->ghost_cap) memset(h->gindex, 0, (h->gmask + 1) * sizeof *h->gindex);
    if (h->cfg.policy == HOTCACHE_HOTSCORE) {
        sketch_clear(&h->sketch);
        shadow_clear(&h->shadow);
        adaptive_reset(h);
    }
    pthread_mutex_unlock(&h->lock);
}

void shard_stats(struct shard *h, hotcache_stats_t *out) {
    pthread_mutex_lock(&h->lock);
    out->hits = h->hits;
    out->misses = h->misses;
    out->admissions = h->admissions;
    out->rejections = h->rejections;
    out->evictions = h->evictions;
    out->invalidations = h->invalidations;
    out->entries = h->nentries;
    out->ghosts = h->nghosts;
    out->bytes_used = bytes_used(h);
    out->capacity_bytes = h->cfg.capacity_bytes;
    out->periods = h->paper ? h->period : h->sketch.ages;
    out->window_share = h->cfg.policy == HOTCACHE_HOTSCORE ? h->window_share : 0;
    pthread_mutex_unlock(&h->lock);
}

int shard_peek(struct shard *h, uint64_t hash, const void *key, size_t klen, double *score,
               uint32_t *visits, int *cached) {
    pthread_mutex_lock(&h->lock);
    struct entry *e = *chain_link(h, hash, key, klen);
    const rec_t *r = NULL;
    if (h->paper) {
        struct ghost *g = e ? NULL : ghost_find(h, hash);
        r = e ? &e->u.r : g ? &g->r : NULL;
    }
    int found = e || r;
    if (found) {
        double adaptive_score =
            h->cfg.policy == HOTCACHE_HOTSCORE ? sketch_frequency(&h->sketch, hash) : 0;
        if (score) *score = r ? score_now(h, r) : adaptive_score;
        if (visits) *visits = r && r->visits && r->vstamp == h->period ? r->visits : 0;
        if (cached) *cached = e != NULL;
    }
    pthread_mutex_unlock(&h->lock);
    return found ? SCBF_OK : SCBF_E_NOT_FOUND;
}
