/*
 * adaptive.c - the adaptive hotscore policy (HOTCACHE_HOTSCORE, the default).
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
#include "shard_internal.h"

#include <math.h>
#include <stdlib.h>

/* The cache starts close to LRU (a main area of 1/8) and moves towards
 * frequency only as the main area earns hits LRU would miss: a workload on
 * which LRU is already optimal (back-and-forth scans) then loses at most
 * that 1/8 on its first pass, while a loop or a skewed workload, where the
 * main area soon out-hits LRU, pays a short descent (faster while the main
 * area is small, see main_evidence_weight). Starting halfway, as built
 * first, lost up to 0.023 to LRU on those short scans. Tuned on the traces
 * in docs/benchmarks-cache.md, like the sketch's aging rate. */
#define INITIAL_WINDOW_SHARE 0.875
/* The windows of the chooser's modes (chooser.h): W-TinyLFU's 1%; for the
 * FIFO mode a quarter, where it did best over the eight sizes of the shared
 * traces (S3-FIFO's own 10% did worst of 5%..30%: docs/benchmarks-cache.md). */
#define FREQUENCY_WINDOW_SHARE 0.01
#define FIFO_WINDOW_SHARE      0.25
/* The chooser's shadows may take this share of the cache's bytes. */
#define CHOOSER_BUDGET_SHARE 0.02
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

static void adaptive_drop(struct shard *h, struct entry *e) {
    list_unlink(h, e);
    entries_destroy(h, e);
}

static void adaptive_evict(struct shard *h, struct entry *e) {
    adaptive_drop(h, e);
    h->evictions++;
}

/* A candidate that just left the window for probation meets the entries it
 * would displace, least recently used first: it stays only if it is hotter
 * than each, by more than ADAPTIVE_ADMIT_MARGIN (ties keep the incumbent).
 * Returns 0 if it was evicted. */
static int admit(struct shard *h, struct entry *cand) {
    /* In the FIFO mode, S3-FIFO's rule: a candidate hit while in the window
     * enters main, displacing its least recent entries; one never hit
     * leaves when room is needed. */
    int fifo = h->mode == MODE_FIFO;
    if (fifo && !cand->u.lru.seen) {
        if (!over_capacity(h)) return 1;
        adaptive_evict(h, cand);
        return 0;
    }
    unsigned f = fifo ? 0 : sketch_frequency(h->counts, cand->hash);
    while (over_capacity(h)) {
        struct entry *v = h->q[Q_PROBATION].lru;
        if (v == cand) v = NULL; /* cand, at the front, is all probation holds */
        if (!v) v = h->q[Q_PROTECTED].lru;
        if (!v) return 1; /* main holds nothing else: the window makes room */
        if (fifo || f > sketch_frequency(h->counts, v->hash) + ADAPTIVE_ADMIT_MARGIN) {
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
    if (e->u.lru.queue == Q_WINDOW) e->u.lru.seen = 1;
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
static void tune_window(struct shard *h, int hit, int lru_hit) {
    uint64_t n = h->nentries;
    double step = 1.0 / (double)(n < MIN_STEP_ENTRIES ? MIN_STEP_ENTRIES : n);
    if (lru_hit && !hit)
        h->window_share = fmin(1.0, h->window_share + step);
    else if (hit && !lru_hit)
        h->window_share = fmax(0.0, h->window_share - step * main_evidence_weight(h->window_share));
    else if (h->window_share >= 1.0)
        h->window_share = 1.0 - step;
}

/* The chooser's verdict: another mode sets the window at once (entries
 * move between the window and main as puts make room, none is dropped);
 * back in the adaptive mode the duel goes on from `adaptive_share`. */
static void enter_mode(struct shard *h, chooser_mode mode, double adaptive_share) {
    h->mode = mode;
    /* at least one entry: a window of none sends every new key straight to
     * an admission contest it cannot win */
    uint64_t n = h->cfg.max_entries ? h->cfg.max_entries : h->nentries;
    double one = 1.0 / (double)(n ? n : 1);
    if (mode == MODE_ADAPTIVE) h->window_share = adaptive_share;
    if (mode == MODE_FREQUENCY) h->window_share = fmax(FREQUENCY_WINDOW_SHARE, one);
    if (mode == MODE_FIFO) h->window_share = fmax(FIFO_WINDOW_SHARE, one);
}

void adaptive_reset(struct shard *h) {
    if (h->mode_fixed)
        enter_mode(h, h->mode, INITIAL_WINDOW_SHARE);
    else
        enter_mode(h, MODE_ADAPTIVE, INITIAL_WINDOW_SHARE);
}

void adaptive_fix_mode(struct shard *h, chooser_mode mode) {
    h->mode_fixed = 1;
    enter_mode(h, mode, INITIAL_WINDOW_SHARE);
}

uint64_t adaptive_state_bytes(uint64_t keys) {
    /* the sketch's two arrays and the shadow's five, each charged its size
     * plus malloc's most overhead (32 bytes) */
    return sketch_bytes(keys) + 2 * 32 + shadow_bytes((uint32_t)keys) + 5 * 32;
}

/* Keys the sketch and the shadow LRU are sized for: the entry cap, else the
 * capacity at the assumed entry size, together held to 1/4 of the capacity
 * (the paper's ghosts get the same share; at the assumed size they take
 * about 1/8). With smaller entries than assumed, the shadow covers only the
 * most recent part of the cache, which biases the window towards frequency
 * but never breaks the cache. */
uint64_t adaptive_expected_keys(const hotcache_config_t *c) {
    uint64_t keys = nominal_entries(c);
    if (keys > UINT32_MAX / 2) keys = UINT32_MAX / 2;
    while (keys > 32 && sketch_bytes(keys) + shadow_bytes((uint32_t)keys) > c->capacity_bytes / 4)
        keys /= 2;
    return keys ? keys : 1;
}

static int adaptive_put(struct shard *h, struct entry *old, struct entry **nodep, uint64_t hash,
                        int hopeless, uint64_t charge, int *admitted);
static int mode_shadow_access(struct shard *m, uint64_t hash);

/* A lookup: counted in the sketch, a hit promoted, the window tuned; if
 * the key is in the chooser's sample, replayed into the mode shadows, and
 * the mode they vote for taken (returning to the adaptive mode at the
 * share its shadow has now, the duel having gone on there). */
static void adaptive_lookup(struct shard *h, uint64_t hash, struct entry *e) {
    if (!h->counts_borrowed) sketch_increment(h->counts, hash);
    if (e) adaptive_hit(h, e);
    if (h->mode == MODE_ADAPTIVE || !h->mode_fixed) {
        uint64_t n = h->nentries;
        shadow_set_limit(&h->shadow, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
        int lru_hit = shadow_access(&h->shadow, hash);
        if (h->mode == MODE_ADAPTIVE) tune_window(h, e != NULL, lru_hit);
    }
    if (chooser_sampled(&h->chooser, hash)) {
        int hit[NMODES];
        for (int m = 0; m < NMODES; m++) hit[m] = mode_shadow_access(h->mode_shadows[m], hash);
        chooser_mode mode = chooser_vote(&h->chooser, hit);
        if (mode != h->mode) enter_mode(h, mode, h->mode_shadows[MODE_ADAPTIVE]->window_share);
    }
}

/* A sampled lookup in a mode shadow, which holds the key's hash alone:
 * the lookup, then on a miss the put a caller of the cache would make.
 * Out of memory, the key is simply not put (the shadow misses it again). */
static int mode_shadow_access(struct shard *m, uint64_t hash) {
    struct entry *e = entries_find_hash(m, hash);
    adaptive_lookup(m, hash, e);
    if (e) return 1;
    struct entry *node = malloc(sizeof *node);
    if (!node) return 0;
    node->hash = hash;
    node->klen = node->vlen = 0;
    int admitted;
    adaptive_put(m, NULL, &node, hash, 0, entry_charge(0, 0), &admitted);
    free(node); /* NULL if the shadow took it */
    return 0;
}

static uint64_t all_mode_shadows_bytes(uint64_t mini) {
    return NMODES * adaptive_mode_shadow_bytes(mini);
}

uint64_t adaptive_mode_shadow_bytes(uint64_t mini) {
    /* the table grows to hold one entry over the cap while it is evicted */
    uint64_t buckets = 16;
    while (buckets < mini + 1) buckets *= 2;
    return alloc_bytes((sizeof(struct shard) + 63) & ~(size_t)63) + adaptive_state_bytes(mini) +
           (mini + 1) * entry_charge(0, 0) + alloc_bytes(table_bytes(buckets));
}

/* The trace simulator's unit-size caches (max_entries) have nominal bytes:
 * their shadows take what 2% of that would hold, and at least
 * CHOOSER_MIN_MINI entries (or as many as the cache): below that the
 * cache would not choose at all. */
uint64_t adaptive_chooser_entries(const hotcache_config_t *c) {
    if (c->max_entries) {
        uint64_t nominal = c->max_entries < UINT64_MAX / ASSUMED_ENTRY_BYTES
                               ? c->max_entries * ASSUMED_ENTRY_BYTES
                               : UINT64_MAX;
        uint64_t mini =
            chooser_size(c->max_entries, (uint64_t)(CHOOSER_BUDGET_SHARE * (double)nominal),
                         all_mode_shadows_bytes);
        if (mini) return mini;
        return c->max_entries < CHOOSER_MIN_MINI ? c->max_entries : CHOOSER_MIN_MINI;
    }
    return chooser_size(c->capacity_bytes / ASSUMED_ENTRY_BYTES,
                        (uint64_t)(CHOOSER_BUDGET_SHARE * (double)c->capacity_bytes),
                        all_mode_shadows_bytes);
}

/* The adaptive put: a new key enters the window; a replaced value keeps the
 * old one's place (window, probation or protected). Once linked, the node
 * belongs to the cache (*nodep = NULL), even if making room evicts it. */
static int adaptive_put(struct shard *h, struct entry *old, struct entry **nodep, uint64_t hash,
                        int hopeless, uint64_t charge, int *admitted) {
    struct entry *node = *nodep;
    int queue = Q_WINDOW;
    if (old) {
        queue = old->u.lru.queue;
        adaptive_drop(h, old);
    }
    *admitted = 0;
    if (hopeless || !entries_fit(h, 0, h->entry_bytes, charge)) return SCBF_OK;
    int rc = entries_link(h, node);
    if (rc != SCBF_OK) return rc;
    node->u.lru.seen = 0;
    list_push_front(h, node, queue);
    *nodep = NULL;
    *admitted = adaptive_fit(h, node);
    return SCBF_OK;
}

static void adaptive_clear(struct shard *h) {
    for (int m = 0; m < NMODES; m++) {
        if (!h->mode_shadows[m]) continue;
        entries_free_all(h->mode_shadows[m]);
        adaptive_clear(h->mode_shadows[m]);
    }
    memset(h->q, 0, sizeof h->q);
    sketch_clear(&h->sketch);
    shadow_clear(&h->shadow);
    chooser_clear(&h->chooser);
    adaptive_reset(h);
}

const struct policy adaptive_policy = {adaptive_lookup, adaptive_put, adaptive_drop,
                                       adaptive_clear};
