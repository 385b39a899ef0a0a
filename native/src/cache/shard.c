/*
 * shard.c - one lock's worth of the cache: a byte-bounded hash table with the
 * three policies of hotcache.h (adaptive hotscore, the paper's formula, LRU).
 * This file holds the lock and the functions of shard.h, which check nothing
 * (hotcache.c did) and hand each lookup and put to the shard's policy:
 * adaptive.c, paper.c or lru.c (map: shard_internal.h).
 */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "shard_internal.h"

#include <math.h>
#include <stdlib.h>

#define INITIAL_BUCKETS 16
#define INITIAL_HEAP    16
/* Defaults, tuned on Zipf and the LIRS traces (docs/benchmarks-cache.md):
 * a period of about 8 lookups per cached entry, a = 0.2, and about two
 * ghosts per entry. In byte mode the entry count is unknown at config time,
 * so the period assumes ~256-byte entries and ghosts get a quarter of the
 * capacity (about one ghost per 100-byte-value entry). */
#define GHOST_BYTES_DIV  4
#define GHOSTS_PER_ENTRY 2
#define PERIOD_PER_ENTRY 8
#define MIN_PERIOD       1024
#define MAX_PERIOD       (UINT32_C(1) << 24)
#define DEFAULT_DECAY    0.2

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
    c->chooser = 1;
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

/* One of the chooser's mode shadows (chooser.h): a small shard of the
 * adaptive policy fixed in `mode`, fed only by its parent under the
 * parent's lock, so it needs no reads without a lock of its own. */
static int create_mode_shadow(uint64_t mini, chooser_mode mode, struct shard **out) {
    hotcache_config_t c;
    shard_config_default(&c, HOTCACHE_HOTSCORE, adaptive_mode_shadow_bytes(mini));
    c.max_entries = mini;
    c.chooser = 0;
    int rc = shard_create(&c, out);
    if (rc != SCBF_OK) return rc;
    (*out)->lockfree_reads = 0;
    adaptive_fix_mode(*out, mode);
    return SCBF_OK;
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
            ghosts = c->capacity_bytes / GHOST_BYTES_DIV / paper_ghost_record_bytes();
            if (c->max_entries && c->max_entries <= UINT32_MAX / GHOSTS_PER_ENTRY &&
                c->max_entries * GHOSTS_PER_ENTRY < ghosts)
                ghosts = c->max_entries * GHOSTS_PER_ENTRY;
        }
        if (ghosts > UINT32_MAX / 4) return SCBF_E_TOO_LARGE;
    }
    uint64_t keys = adaptive ? adaptive_expected_keys(c) : 0;
    uint64_t mini = adaptive && c->chooser ? adaptive_chooser_entries(c) : 0;

    /* The read stripes are cache-line aligned (shard_internal.h). */
    size_t size = (sizeof(struct shard) + 63) & ~(size_t)63;
    struct shard *h = aligned_alloc(64, size);
    if (!h) return SCBF_E_NOMEM;
    memset(h, 0, size);
    h->cfg = *c;
    h->policy = paper ? &paper_policy : adaptive ? &adaptive_policy : &lru_policy;
    h->lockfree_reads = !paper;
    h->paper = paper;
    h->memoryless = paper && c->decay == 1.0;
    h->keep = 1.0 - c->decay;
    for (int k = 0; k < 64; k++) h->keep_pow[k] = pow(h->keep, k);
    h->ghost_cap = (size_t)ghosts;
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
        h->fixed_bytes +=
            adaptive_state_bytes(keys) + (mini ? NMODES * adaptive_mode_shadow_bytes(mini) : 0);
        adaptive_reset(h);
    }
    h->tab = entries_table(INITIAL_BUCKETS);
    if (!h->tab) {
        free(h);
        return SCBF_E_NOMEM;
    }
    if (bytes_used(h) > c->capacity_bytes) {
        free(h->tab);
        free(h);
        return SCBF_E_INVALID_ARG; /* capacity below the fixed overhead */
    }
    if (init_lock(&h->lock)) {
        free(h->tab);
        free(h);
        return SCBF_E_NOMEM;
    }
    if (paper) h->heap = malloc(h->heap_cap * sizeof *h->heap);
    if (ghosts) {
        h->ghosts = malloc(ghosts * sizeof *h->ghosts);
        h->gheap = malloc(ghosts * sizeof *h->gheap);
        h->gindex = calloc(h->gmask + 1, sizeof *h->gindex);
    }
    int sketch_failed = adaptive && (sketch_init(&h->sketch, keys) != 0 ||
                                     shadow_init(&h->shadow, (uint32_t)keys) != 0);
    h->counts = &h->sketch;
    for (int m = 0; mini && m < NMODES && !sketch_failed; m++)
        sketch_failed = create_mode_shadow(mini, (chooser_mode)m, &h->mode_shadows[m]) != SCBF_OK;
    for (int m = 1; mini && m < NMODES && !sketch_failed; m++) {
        h->mode_shadows[m]->counts = &h->mode_shadows[MODE_ADAPTIVE]->sketch;
        h->mode_shadows[m]->counts_borrowed = 1;
    }
    if (mini && !sketch_failed) chooser_init(&h->chooser, nominal_entries(c), mini);
    if ((paper && !h->heap) || (ghosts && (!h->ghosts || !h->gheap || !h->gindex)) ||
        sketch_failed) {
        shard_free(h);
        return SCBF_E_NOMEM;
    }
    if (c->period_ns) h->period_start_ns = paper_now_ns();
    *out = h;
    return SCBF_OK;
}

void shard_free(struct shard *h) {
    if (!h) return;
    entries_free_all(h);
    readers_free_all(h);
    free(h->tab);
    free(h->heap);
    free(h->ghosts);
    free(h->gheap);
    free(h->gindex);
    sketch_destroy(&h->sketch);
    shadow_destroy(&h->shadow);
    for (int m = 0; m < NMODES; m++) shard_free(h->mode_shadows[m]);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* Every operation that takes the lock first replays the lookups made
 * without it (readers.c), so the policy sees them before it decides. */
static void lock_shard(struct shard *h) {
    pthread_mutex_lock(&h->lock);
    readers_drain(h);
}

static void unlock_shard(struct shard *h) {
    readers_reclaim(h);
    pthread_mutex_unlock(&h->lock);
}

int shard_get(struct shard *h, uint64_t hash, const void *key, size_t klen, void *buf, size_t cap,
              size_t *vlen) {
    if (h->lockfree_reads) return readers_get(h, hash, key, klen, buf, cap, vlen);
    /* The paper's policy: a lookup closes periods and writes the key's record. */
    int rc;
    pthread_mutex_lock(&h->lock);
    struct entry *e = *chain_link(h, hash, key, klen);
    h->policy->lookup(h, hash, e);
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
    lock_shard(h);
    /* The old value goes first: if the new one is refused, neither stays. */
    struct entry *old = *chain_link(h, hash, key, klen);
    rc = h->policy->put(h, old, &node, hash, hopeless, charge, &in);
    if (in)
        h->admissions++;
    else
        h->rejections++;
    free(node); /* NULL if the cache took it */
    if (admitted) *admitted = in;
    unlock_shard(h);
    return rc;
}

int shard_invalidate(struct shard *h, uint64_t hash, const void *key, size_t klen) {
    lock_shard(h);
    struct entry *e = *chain_link(h, hash, key, klen);
    if (e) {
        h->policy->drop(h, e);
        h->invalidations++;
    }
    unlock_shard(h);
    return e ? SCBF_OK : SCBF_E_NOT_FOUND;
}

void shard_clear(struct shard *h) {
    lock_shard(h);
    entries_free_all(h);
    h->policy->clear(h);
    unlock_shard(h);
}

void shard_stats(struct shard *h, hotcache_stats_t *out) {
    lock_shard(h);
    readers_counts(h, &out->hits, &out->misses);
    out->hits += h->hits;
    out->misses += h->misses;
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
    unlock_shard(h);
}

int shard_peek(struct shard *h, uint64_t hash, const void *key, size_t klen, double *score,
               uint32_t *visits, int *cached) {
    lock_shard(h);
    struct entry *e = *chain_link(h, hash, key, klen);
    const rec_t *r = h->paper ? paper_record(h, e, hash) : NULL;
    int found = e || r;
    if (found) {
        double adaptive_score =
            h->cfg.policy == HOTCACHE_HOTSCORE ? sketch_frequency(&h->sketch, hash) : 0;
        if (score) *score = r ? paper_score(h, r) : adaptive_score;
        if (visits) *visits = r && r->visits && r->vstamp == h->period ? r->visits : 0;
        if (cached) *cached = e != NULL;
    }
    unlock_shard(h);
    return found ? SCBF_OK : SCBF_E_NOT_FOUND;
}
