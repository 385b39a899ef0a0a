/* Internal to native/src/cache: the state of one shard and the functions
 * that the files implementing it share. Calls go one way, down this list;
 * a lower file reaches a policy only through `struct policy`:
 *
 *   shard.c     top: the lock and shard.h's functions, each handed to the
 *               shard's policy (h->policy); it creates an adaptive shard's
 *               mode shadows, which are shards themselves
 *   adaptive.c  policies: the adaptive hotscore policy (window, sketch
 *   paper.c       admission, segmented main area, window tuned against a
 *   lru.c         shadow LRU, mode chosen by chooser.c from small
 *                 shadow shards of itself); the paper's formula (scores,
 *                 record heaps, ghosts); LRU
 *   entries.c   the hash table of entries (link, unlink, fit, grow)
 *   readers.c   bottom: lookups without the lock (LRU and adaptive), the
 *               read buffers they leave their accesses in, and the epochs
 *               that keep what they read alive
 *   this header the structs, the accounting, chains and lists (inline)
 *   chooser.c   the choice of the adaptive policy's mode (pure logic)
 *   sketch.c, shadow.c, idmap.c  self-contained structures
 *
 * Everything here runs with the shard's lock held, except readers_get. */
#ifndef SCBF_CACHE_SHARD_INTERNAL_H
#define SCBF_CACHE_SHARD_INTERNAL_H

#include "chooser.h"
#include "shadow.h"
#include "shard.h"
#include "sketch.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Entries the sketch, the shadow LRU and the paper's period assume per
 * byte of capacity when no entry cap is set (see shard_config_default). */
#define ASSUMED_ENTRY_BYTES 256

/* The entries a shard is sized for: its cap, else its capacity at the
 * assumed entry size. */
static inline uint64_t nominal_entries(const hotcache_config_t *c) {
    return c->max_entries ? c->max_entries : c->capacity_bytes / ASSUMED_ENTRY_BYTES;
}

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
 * adaptive policy all three (see adaptive.c). */
enum { Q_WINDOW = 0, Q_PROBATION = 1, Q_PROTECTED = 2, NQUEUES = 3 };

struct entry {
    union {      /* first, so a heap's rec_t * is the entry */
        rec_t r; /* paper */
        struct {
            struct entry *prev, *next;
            uint8_t queue;
            uint8_t seen; /* adaptive: hit since it entered its list's window */
        } lru;            /* lru, adaptive */
    } u;
    struct entry *chain; /* bucket chain */
    uint64_t hash;
    uint32_t klen, vlen;
    unsigned char data[]; /* key, then value */
};

/* A bucket array: replaced whole when it grows, so a lookup without the lock
 * reads `n` and the slots of one array. `retired` links arrays waiting for
 * their readers to leave. */
struct table {
    size_t n;
    struct table *retired;
    struct entry *slot[];
};

static inline uint64_t table_bytes(size_t n) {
    return sizeof(struct table) + (uint64_t)n * sizeof(struct entry *);
}

/* Lookups without the lock (readers.c). A thread writes one stripe (the one
 * of the CPU it first ran a lookup on), on its own cache lines, so two
 * threads on two cores share no line on a hit:
 * `active` counts the readers inside the table by epoch parity, `ring`
 * holds the key hashes of their lookups until the lock holder replays them
 * into the policy (lossy: a lookup finding its ring full while the lock is
 * busy is not replayed). */
#define READ_STRIPES 4  /* power of two */
#define READ_RING    16 /* power of two */

struct read_stripe {
    _Alignas(64) uint64_t active[2];
    uint64_t hits, misses;
    uint64_t tail;                         /* lookups that claimed a ring slot */
    uint64_t head;                         /* lookups replayed; written by the lock holder */
    _Alignas(64) uint64_t ring[READ_RING]; /* hash, or 0 while empty */
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

/* A policy: what a shard's lookups and puts do beyond the table. Every
 * function runs with the lock held. */
struct policy {
    /* A lookup of `hash`; e is its cached entry or NULL. */
    void (*lookup)(struct shard *h, uint64_t hash, struct entry *e);
    /* Put *nodep (NULL when hopeless: never cached), replacing `old` if not
     * NULL; the cache owns the node once it sets *nodep to NULL. */
    int (*put)(struct shard *h, struct entry *old, struct entry **nodep, uint64_t hash,
               int hopeless, uint64_t charge, int *admitted);
    /* Remove a cached entry (invalidate). */
    void (*drop)(struct shard *h, struct entry *e);
    /* After entries_free_all: forget everything. */
    void (*clear)(struct shard *h);
};

extern const struct policy lru_policy, paper_policy, adaptive_policy;

struct shard {
    /* first: the stripes' alignment is the struct's */
    struct read_stripe stripes[READ_STRIPES];
    uint64_t epoch;          /* readers.c; atomic */
    int lockfree_reads;      /* LRU and adaptive; the paper's lookups write its records */
    struct entry *limbo;     /* unlinked since the last epoch flip, by u.lru.next */
    struct entry *limbo_old; /* unlinked before it: freed once that epoch's readers leave */
    size_t limbo_n;
    struct table *tables, *tables_old; /* the same for bucket arrays */

    pthread_mutex_t lock;
    const struct policy *policy;
    hotcache_config_t cfg;
    int paper;           /* the paper's policy: heaps and ghosts; otherwise lists */
    int memoryless;      /* a == 1 */
    double keep;         /* 1 - a */
    double keep_pow[64]; /* (1 - a)^k, the common decay gaps */

    struct table *tab; /* atomic: lookups without the lock read it */
    size_t nentries;
    rec_t **heap; /* hotscore: min-heap of entries */
    size_t heap_n, heap_cap;
    struct list q[NQUEUES]; /* lru, adaptive */

    /* adaptive: the frequency sketch, the window's share of the capacity,
     * and the shadow LRU that tunes it (see tune_window) */
    sketch_t sketch;
    shadow_t shadow;
    double window_share;
    /* the sketch the policy reads: its own, or for the frequency and FIFO
     * mode shadows the adaptive one's, which alone counts (all three see
     * the same lookups, so their counts would be equal) */
    sketch_t *counts;
    int counts_borrowed;
    /* adaptive: the mode the chooser picked from the sampled shadows of the
     * cache in each mode (chooser.h), or the one mode of such a shadow */
    chooser_t chooser;
    struct shard *mode_shadows[NMODES]; /* NULL without the chooser */
    chooser_mode mode;
    int mode_fixed; /* a mode shadow: its mode never changes */

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
static inline uint64_t alloc_bytes(uint64_t n) {
    uint64_t c = (n + 8 + 15) & ~(uint64_t)15;
    return c < 32 ? 32 : c;
}

static inline uint64_t entry_charge(size_t klen, size_t vlen) {
    return alloc_bytes(sizeof(struct entry) + (uint64_t)klen + vlen);
}

static inline uint64_t bytes_used(const struct shard *h) {
    uint64_t b = h->fixed_bytes + h->entry_bytes + alloc_bytes(table_bytes(h->tab->n));
    if (h->paper) b += alloc_bytes((uint64_t)h->heap_cap * sizeof(rec_t *));
    return b;
}

/* Whether e holds this key (lookups with or without the lock). */
static inline int entry_has_key(const struct entry *e, uint64_t hash, const void *key,
                                size_t klen) {
    return e->hash == hash && e->klen == klen && (klen == 0 || !memcmp(e->data, key, klen));
}

/* Lock held. Links are read plainly here (only the lock holder writes them)
 * and written with link_set, since readers.c reads them without the lock. */
static inline struct entry **chain_link(const struct shard *h, uint64_t hash, const void *key,
                                        size_t klen) {
    struct entry **link = &h->tab->slot[hash & (h->tab->n - 1)];
    for (; *link; link = &(*link)->chain)
        if (entry_has_key(*link, hash, key, klen)) break;
    return link;
}

static inline void link_set(struct entry **link, struct entry *e) {
    __atomic_store_n(link, e, __ATOMIC_RELEASE);
}

/* Lock held: the cached entry whose key hashes to `hash`, or NULL (replayed
 * lookups carry only the hash). */
static inline struct entry *entries_find_hash(const struct shard *h, uint64_t hash) {
    struct entry *e = h->tab->slot[hash & (h->tab->n - 1)];
    while (e && e->hash != hash) e = e->chain;
    return e;
}

/* An entry's size against the capacity: one with max_entries (the trace
 * simulator's unit-size entries), else its bytes. */
static inline uint64_t units_of(const struct shard *h, const struct entry *e) {
    return h->cfg.max_entries ? 1 : entry_charge(e->klen, e->vlen);
}

static inline void list_unlink(struct shard *h, struct entry *e) {
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

static inline void list_push_front(struct shard *h, struct entry *e, int queue) {
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

static inline void list_move_front(struct shard *h, struct entry *e, int queue) {
    list_unlink(h, e);
    list_push_front(h, e, queue);
}

/* ---- readers.c --------------------------------------------------------- */

/* A lookup without the lock: the value is copied while the epoch keeps the
 * entry alive, and the access is left in the CPU's read buffer. */
int readers_get(struct shard *h, uint64_t hash, const void *key, size_t klen, void *buf, size_t cap,
                size_t *vlen);
/* Replay the buffered lookups into the policy, oldest first per stripe. */
void readers_drain(struct shard *h);
/* An unlinked entry or bucket array: freed once no lookup can read it. */
void readers_retire_entry(struct shard *h, struct entry *e);
void readers_retire_table(struct shard *h, struct table *t);
/* Free what no reader can hold any more; cheap unless enough is waiting. */
void readers_reclaim(struct shard *h);
/* Free everything retired (no lookup may run: shard_free). */
void readers_free_all(struct shard *h);
void readers_counts(struct shard *h, uint64_t *hits, uint64_t *misses);

/* ---- entries.c --------------------------------------------------------- */

/* Would an entry of `charge` bytes fit next to `n` entries once `freed`
 * bytes of entries are gone? */
int entries_fit(const struct shard *h, size_t n, uint64_t freed, uint64_t charge);
/* Link a new entry into the table (its policy then files it). */
int entries_link(struct shard *h, struct entry *e);
/* Unlink from its chain and free; the caller has already taken it out of
 * the heap or its list. */
void entries_destroy(struct shard *h, struct entry *e);
/* Free every entry and empty the table (the policy's clear follows). */
void entries_free_all(struct shard *h);
/* An empty bucket array of n slots, or NULL. */
struct table *entries_table(size_t n);

/* ---- paper.c ----------------------------------------------------------- */

uint64_t paper_now_ns(void);
/* Bytes one ghost takes: arena record, heap slot, two index slots. */
uint64_t paper_ghost_record_bytes(void);
/* The record of a key (entry e, else its ghost), or NULL. */
const rec_t *paper_record(const struct shard *h, const struct entry *e, uint64_t hash);
/* A record's score as of the start of the current period. */
double paper_score(const struct shard *h, const rec_t *r);

/* ---- adaptive.c -------------------------------------------------------- */

/* A candidate enters the main area only if the sketch counts it more than
 * this above the entry it would evict. Where true counts are equal (a loop
 * larger than the cache), sketch collisions alone decide the contests, and
 * with no margin they flushed a cold main area in one pass: on loop's first
 * 5,000 accesses the cache hit 0.0008 where OPT reaches 0.081. Chosen on the
 * tuning traces (mean gap to OPT 0.0463 -> 0.0440; short traces 0.0497 ->
 * 0.0476; 2 and 3 did about as well there and cost more on Zipf) and
 * confirmed on the validation traces (0.0369 -> 0.0338, worst vs LRU the
 * same): docs/benchmarks-cache.md. */
#define ADAPTIVE_ADMIT_MARGIN 1u

/* Keys the sketch and the shadow LRU are sized for. */
uint64_t adaptive_expected_keys(const hotcache_config_t *c);
/* Bytes of the sketch and the shadow LRU for `keys` keys. */
uint64_t adaptive_state_bytes(uint64_t keys);
/* Entries of each of the chooser's mode shadows (0: none), all of them
 * within 2% of the cache's bytes... */
uint64_t adaptive_chooser_entries(const hotcache_config_t *c);
/* ... and the capacity in bytes of one of `mini` entries. */
uint64_t adaptive_mode_shadow_bytes(uint64_t mini);
/* Make a new shard a mode shadow: fixed in `mode`, fed by its parent. */
void adaptive_fix_mode(struct shard *h, chooser_mode mode);
void adaptive_reset(struct shard *h);

#endif
