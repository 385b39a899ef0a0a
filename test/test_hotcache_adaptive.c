/*
 * test_hotcache_adaptive.c - adaptive hotscore and its chooser, and the OPT
 * simulator they are measured against.
 *
 * The central check replays random workloads through the cache and through a
 * slow reference: plain arrays scanned linearly with the same sketch and
 * climber, and the chooser's decision rule written out again. Both must make
 * the same decisions after every operation.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hotcache_test_util.h"
#include "cache_sim.h"
#include "hash.h"
#include "shard_internal.h"
#include "sketch.h"

/* The cache's private hash seed; if it drifts, the reference's sketch sees
 * other hashes and adaptive_matches_reference fails. */
#define CACHE_HASH_SEED UINT64_C(0x5CBFCAC4E5EED001)

static uint64_t aref_hash(uint64_t k) {
    uint8_t kb[8];
    tu_key64(k, kb);
    return scbf_hash64(kb, 8, CACHE_HASH_SEED);
}

/* ---- the chooser: reference model --------------------------------------- */

/* The decision rule of chooser.h written out again: which keys are sampled,
 * the counts kept per mode and per pair of modes, scaled at every decision,
 * and a switch to the mode with most hits when it leads the current one by
 * 1% of the lookups and three standard deviations. */
typedef struct {
    uint64_t threshold, period, in_period;
    double hits[3], won[3][3], lookups;
    int mode, switches;
} cref;

static void cref_init(cref *c, uint64_t entries, uint64_t mini) {
    memset(c, 0, sizeof *c);
    double rate = (double)mini / (double)entries;
    c->threshold = rate >= 1 ? UINT64_C(1) << 32 : (uint64_t)(rate * 4294967296.0);
    c->period = mini > 128 ? mini : 128;
}

static int cref_sampled(const cref *c, uint64_t hash) {
    return ((hash >> 24) & UINT32_MAX) < c->threshold;
}

static int cref_vote(cref *c, const int hit[3]) {
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) c->won[a][b] += hit[a] && !hit[b];
    for (int a = 0; a < 3; a++) c->hits[a] += hit[a];
    c->lookups += 1;
    if (++c->in_period < c->period) return c->mode;
    c->in_period = 0;
    int best = c->mode;
    for (int m = 0; m < 3; m++)
        if (c->hits[m] > c->hits[best]) best = m;
    double won = c->won[best][c->mode], lost = c->won[c->mode][best];
    if (won - lost > 0.01 * c->lookups && won - lost > 3.0 * sqrt(won + lost)) {
        c->mode = best;
        c->switches++;
    }
    for (int a = 0; a < 3; a++) {
        c->hits[a] *= 0.95;
        for (int b = 0; b < 3; b++) c->won[a][b] *= 0.95;
    }
    c->lookups *= 0.95;
    return c->mode;
}

/* The decision alone, fed mode shadows' verdicts whose odds change by
 * phase (each mode leads in one, all tie in another): after every lookup
 * its counts and its mode equal the reference's, and it followed the
 * leaders. */
START_TEST(chooser_matches_reference) {
    cref r;
    chooser_t c;
    const uint64_t entries = 4000, mini = 256;
    cref_init(&r, entries, mini);
    chooser_init(&c, entries, mini);
    tu_rng rng = {77};
    uint64_t ops = tu_scaled(2000000, 400000), sampled = 0;
    for (uint64_t op = 0; op < ops; op++) {
        uint64_t hash = tu_next(&rng);
        ck_assert_int_eq(chooser_sampled(&c, hash), cref_sampled(&r, hash));
        if (!chooser_sampled(&c, hash)) continue;
        sampled++;
        int lead = (int)((op / (ops / 20)) % 4); /* 3: no mode leads */
        int hit[3];
        for (int m = 0; m < 3; m++) hit[m] = tu_below(&rng, 100) < (m == lead ? 60u : 40u);
        ck_assert_int_eq((int)chooser_vote(&c, hit), cref_vote(&r, hit));
        for (int m = 0; m < 3; m++) ck_assert(c.hits[m] == r.hits[m]);
    }
    ck_assert_uint_gt(sampled, ops / 20);
    ck_assert_uint_lt(sampled, ops / 10);
    ck_assert_int_ge(r.switches, 3);
    ck_assert_uint_eq(c.switches, (uint64_t)r.switches);
}
END_TEST

/* The mode shadows of a shard with real (byte) capacity stay within 2% of
 * it, filled or not; a shard too small for useful ones has none, nor does
 * one whose chooser is turned off. */
START_TEST(chooser_within_two_percent) {
    const uint64_t sizes[] = {UINT64_C(1) << 16, UINT64_C(1) << 20, UINT64_C(1) << 22,
                              UINT64_C(1) << 26, UINT64_C(1) << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        hotcache_config_t c;
        shard_config_default(&c, HOTCACHE_HOTSCORE, sizes[i]); /* the default: choosing */
        ck_assert_int_eq(c.chooser, 1);
        struct shard *sh = NULL;
        ck_assert_int_eq(shard_create(&c, &sh), SCBF_OK);
        uint64_t mini = sh->mode_shadows[0] ? sh->mode_shadows[0]->cfg.max_entries : 0;
        ck_assert_int_eq(sh->chooser.enabled, mini > 0);
        ck_assert(sizes[i] < (UINT64_C(2) << 20) ? mini == 0 : mini >= 64);
        uint64_t shadows = 0;
        for (int m = 0; m < NMODES; m++)
            if (sh->mode_shadows[m]) shadows += sh->mode_shadows[m]->cfg.capacity_bytes;
        ck_assert_uint_le(shadows, sizes[i] / 50);
        /* 200,000 distinct keys: the smaller shards' shadows fill and evict */
        char v[100] = {0};
        uint64_t sampled = 0;
        for (uint64_t k = 0; k < 200000 && mini; k++) {
            uint8_t kb[8];
            tu_key64(k, kb);
            uint64_t hash = scbf_hash64(kb, 8, CACHE_HASH_SEED);
            sampled += chooser_sampled(&sh->chooser, hash);
            if (shard_get(sh, hash, kb, 8, v, sizeof v, NULL) == SCBF_E_NOT_FOUND)
                ck_assert_int_eq(shard_put(sh, hash, kb, 8, v, sizeof v, NULL), SCBF_OK);
        }
        for (int m = 0; m < NMODES && mini; m++) {
            struct shard *s = sh->mode_shadows[m];
            ck_assert_uint_eq(s->nentries, sampled < mini ? sampled : mini);
            ck_assert_uint_le(bytes_used(s), s->cfg.capacity_bytes);
            ck_assert_int_eq((int)s->mode, m);
        }
        hotcache_stats_t st;
        shard_stats(sh, &st);
        ck_assert_uint_le(st.bytes_used, sizes[i]);
        shard_free(sh);
        c.chooser = 0;
        ck_assert_int_eq(shard_create(&c, &sh), SCBF_OK);
        ck_assert_int_eq(sh->chooser.enabled, 0);
        for (int m = 0; m < NMODES; m++) ck_assert_ptr_null(sh->mode_shadows[m]);
        shard_free(sh);
    }
}
END_TEST

/* ---- adaptive hotscore: reference model -------------------------------- */

/* Unit-size entries, three ordered arrays (index 0 = most recently used),
 * everything found by linear scan; the same sketch, and the window tuned by
 * the same rule against an LRU kept here as one more plain array, written
 * out again from hotcache.c's description; the mode the reference chooser
 * picks, and what each mode does to the window and the admission. */
typedef struct aref {
    uint64_t key[3][512];
    size_t n[3];
    uint64_t lru[512]; /* LRU of the hashes of the last `total` distinct keys */
    size_t nlru;
    sketch_t sk;
    uint64_t cap;
    double share, adaptive_share;
    int mode;            /* 0 adaptive, 1 frequency, 2 fifo */
    int fixed;           /* a mode shadow: the mode never changes */
    uint64_t visited[3]; /* lookups made in each mode */
    uint8_t seen[1024];  /* by key: hit since it entered the window */
    int choosing;        /* hotcache_config_t.chooser */
    cref ch;
    struct aref *shadows[3]; /* the mode shadows: this model again, fixed in each mode */
} aref;

static size_t aref_total(const aref *r) { return r->n[0] + r->n[1] + r->n[2]; }

/* Back in the adaptive mode, the window's share is its shadow's. */
static void aref_enter(aref *r, int mode, double adaptive_share) {
    r->mode = mode;
    double one = 1.0 / (double)r->cap;
    if (mode == 0) r->share = adaptive_share;
    if (mode == 1) r->share = fmax(0.01, one);
    if (mode == 2) r->share = fmax(0.25, one);
}

static aref *aref_new(uint64_t cap, int fixed, int mode) {
    aref *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(sketch_init(&r->sk, cap), 0);
    r->cap = cap;
    r->fixed = fixed;
    aref_enter(r, mode, 0.875);
    return r;
}

static void aref_free(aref *r) {
    for (int m = 0; m < 3; m++)
        if (r->shadows[m]) aref_free(r->shadows[m]);
    sketch_destroy(&r->sk);
    free(r);
}

static int aref_put(aref *r, uint64_t k);

static int aref_find(const aref *r, uint64_t k, int *q, size_t *i) {
    for (*q = 0; *q < 3; (*q)++)
        for (*i = 0; *i < r->n[*q]; (*i)++)
            if (r->key[*q][*i] == k) return 1;
    return 0;
}

static void aref_remove(aref *r, int q, size_t i) {
    memmove(&r->key[q][i], &r->key[q][i + 1], (r->n[q] - i - 1) * sizeof(uint64_t));
    r->n[q]--;
}

static void aref_push_front(aref *r, int q, uint64_t k) {
    memmove(&r->key[q][1], &r->key[q][0], r->n[q] * sizeof(uint64_t));
    r->key[q][0] = k;
    r->n[q]++;
}

static uint64_t aref_window_target(const aref *r) { return (uint64_t)(r->share * (double)r->cap); }

static uint64_t aref_protected_target(const aref *r) {
    uint64_t w = aref_window_target(r);
    return r->cap > w ? (uint64_t)(0.8 * (double)(r->cap - w)) : 0;
}

static unsigned aref_freq(aref *r, uint64_t k) { return sketch_frequency(&r->sk, aref_hash(k)); }

/* Would an LRU as large as the cache have hit? Then the window verdict (in
 * the adaptive mode). */
static void aref_tune(aref *r, uint64_t k, int hit) {
    uint64_t h = aref_hash(k);
    size_t n = aref_total(r), limit = n < 1 ? 1 : n, i;
    if (r->nlru > limit) r->nlru = limit;
    for (i = 0; i < r->nlru && r->lru[i] != h; i++) continue;
    int lru_hit = i < r->nlru;
    if (lru_hit)
        memmove(&r->lru[1], &r->lru[0], i * sizeof(uint64_t));
    else {
        if (r->nlru == limit) r->nlru--;
        memmove(&r->lru[1], &r->lru[0], r->nlru * sizeof(uint64_t));
        r->nlru++;
    }
    r->lru[0] = h;
    if (r->mode != 0) return;
    double step = 1.0 / (double)(n < 64 ? 64 : n);
    if (lru_hit && !hit)
        r->share = fmin(1.0, r->share + step);
    else if (hit && !lru_hit) {
        /* evidence from a main area under half the cache weighs up to 4x */
        double main_share = 1.0 - r->share;
        double weight = main_share * 8 <= 1.0 ? 4.0 : fmax(1.0, 0.5 / main_share);
        r->share = fmax(0.0, r->share - step * weight);
    } else if (r->share >= 1.0)
        r->share = 1.0 - step;
}

static int aref_get(aref *r, uint64_t k) {
    int q;
    size_t i;
    sketch_increment(&r->sk, aref_hash(k));
    int hit = aref_find(r, k, &q, &i);
    if (hit) {
        if (q == 0) r->seen[k] = 1;
        aref_remove(r, q, i);
        if (q == 1) {
            aref_push_front(r, 2, k);
            uint64_t cap = aref_protected_target(r);
            while (r->n[2] > cap && r->key[2][r->n[2] - 1] != k) {
                uint64_t d = r->key[2][r->n[2] - 1];
                r->n[2]--;
                aref_push_front(r, 1, d);
            }
        } else {
            aref_push_front(r, q, k);
        }
    }
    aref_tune(r, k, hit);
    uint64_t h = aref_hash(k);
    if (r->choosing && cref_sampled(&r->ch, h)) {
        int votes[3];
        for (int m = 0; m < 3; m++) {
            votes[m] = aref_get(r->shadows[m], k);
            if (!votes[m]) aref_put(r->shadows[m], k);
        }
        int mode = cref_vote(&r->ch, votes);
        if (mode != r->mode) aref_enter(r, mode, r->shadows[0]->share);
    }
    r->visited[r->mode]++;
    return hit;
}

/* Returns whether k is cached afterwards. */
static int aref_put(aref *r, uint64_t k) {
    int q, alive = 1;
    size_t i;
    if (aref_find(r, k, &q, &i))
        aref_remove(r, q, i);
    else
        q = 0;
    aref_push_front(r, q, k);
    r->seen[k] = 0;
    while (r->n[0] > aref_window_target(r)) {
        uint64_t c = r->key[0][--r->n[0]];
        aref_push_front(r, 1, c);
        unsigned f = aref_freq(r, c);
        /* fifo: one never hit in the window leaves, if room is needed;
         * one hit there enters, whatever it displaces */
        if (r->mode == 2 && !r->seen[c]) {
            if (aref_total(r) > r->cap) {
                aref_remove(r, 1, 0);
                if (c == k) alive = 0;
            }
            continue;
        }
        while (aref_total(r) > r->cap) {
            int vq = r->n[1] > 1 ? 1 : r->n[2] ? 2 : -1;
            if (vq < 0) break;
            uint64_t v = r->key[vq][r->n[vq] - 1];
            if (r->mode == 2 || f > aref_freq(r, v) + ADAPTIVE_ADMIT_MARGIN) {
                r->n[vq]--;
            } else {
                aref_remove(r, 1, 0);
                if (c == k) alive = 0;
                break;
            }
        }
    }
    while (aref_total(r) > r->cap) {
        int vq = r->n[1] ? 1 : r->n[2] ? 2 : 0;
        if (r->key[vq][r->n[vq] - 1] == k) alive = 0;
        r->n[vq]--;
    }
    return alive;
}

/* Both ways: with the chooser (the default) and the adaptive window alone. */
START_TEST(adaptive_matches_reference) {
    uint64_t visited[3] = {0};
    for (int trial = 0; trial < 6; trial++) {
        const uint64_t cap = 20 + 40 * (uint64_t)(trial / 2), nkeys = 6 * cap;
        aref *r = aref_new(cap, 0, 0);
        r->choosing = trial % 2 == 0;
        /* too small for shadows within 2% of 256-byte entries: the chooser
         * takes min(cap, 64) entries, all of the keys sampled below 64 */
        uint64_t mini = cap < 64 ? cap : 64;
        cref_init(&r->ch, cap, mini);
        for (int m = 0; m < 3 && r->choosing; m++) r->shadows[m] = aref_new(mini, 1, m);
        hotcache_t *h = make_choosing(HOTCACHE_HOTSCORE, UINT64_MAX, cap, 0, r->choosing);
        tu_rng rng = {500 + (uint64_t)trial / 2};
        uint64_t ops = tu_scaled(160000, 40000);
        for (uint64_t op = 0; op < ops; op++) {
            /* Phases: skewed reuse, a loop larger than the cache, short
             * scans, a hot set that moves on every 2,000 lookups (where
             * admission by frequency holds on to the keys that were hot) */
            uint64_t phase = (op / 10000) % 4, k, hot = cap * 7 / 10;
            if (phase == 0)
                k = tu_below(&rng, 1 + tu_below(&rng, nkeys));
            else if (phase == 1)
                k = op % (cap + cap / 2);
            else if (phase == 2)
                k = (op / 3) % nkeys;
            else if (tu_below(&rng, 5))
                k = (op / 2000 * hot + tu_below(&rng, hot)) % nkeys;
            else
                k = tu_below(&rng, nkeys);
            int hit = aref_get(r, k);
            ck_assert_int_eq(get_u64(h, k) == SCBF_OK, hit);
            if (!hit || tu_below(&rng, 20) == 0) ck_assert_int_eq(put_u64(h, k), aref_put(r, k));
            if (op % 97 == 0) {
                for (uint64_t x = 0; x < nkeys; x++) {
                    int q;
                    size_t i;
                    ck_assert_int_eq(is_cached(h, x), aref_find(r, x, &q, &i));
                }
                ck_assert(stats(h).window_share == r->share);
            }
        }
        for (int m = 0; m < 3 && r->choosing; m++) visited[m] += r->visited[m];
        if (!r->choosing) ck_assert_uint_eq(r->visited[0], ops);
        hotcache_free(h);
        aref_free(r);
    }
    /* the phases favour different modes: the cache ran in each */
    for (int m = 0; m < 3; m++) ck_assert_uint_gt(visited[m], 0);
}
END_TEST

/* Back-and-forth scans over more keys than the cache holds: LRU is optimal
 * (each reversal re-reads the most recent keys first), so the adaptive
 * policy must stay close to it even on a short run of a few passes. The
 * policy built first, starting with half the cache as window, lost 2.3% of
 * all accesses to LRU here; the budget is 1%. */
START_TEST(adaptive_close_to_lru_on_reversals) {
    const uint64_t cap = 400, span = 750;
    hotcache_t *h = make(HOTCACHE_HOTSCORE, UINT64_MAX, cap, 0, 0, 0);
    hotcache_t *lru = make(HOTCACHE_LRU, UINT64_MAX, cap, 0, 0, 0);
    uint64_t ops = 0;
    for (int pass = 0; pass < 12; pass++)
        for (uint64_t i = 0; i < span; i++, ops++) {
            uint64_t k = pass % 2 ? span - 1 - i : i;
            if (get_u64(h, k) != SCBF_OK) put_u64(h, k);
            if (get_u64(lru, k) != SCBF_OK) put_u64(lru, k);
        }
    double ours = (double)stats(h).hits / (double)ops,
           theirs = (double)stats(lru).hits / (double)ops;
    ck_assert_msg(theirs > 0.4, "LRU hit ratio %.4f: the workload is not what it claims", theirs);
    ck_assert_msg(ours >= theirs - 0.01, "adaptive %.4f vs LRU %.4f", ours, theirs);
    hotcache_free(h);
    hotcache_free(lru);
}
END_TEST

/* A short trace of a loop ten times the cache (five passes): the cold main
 * area must survive the admission contests that only sketch collisions
 * decide (every key's true count is the same), or nothing ever hits. With
 * no admission margin the adaptive policy hit 4 times here (0.0008); OPT
 * hits about 0.08. */
START_TEST(adaptive_keeps_part_of_a_short_loop) {
    const uint64_t cap = 101, span = 1011, passes = 5;
    hotcache_config_t c;
    cache_sim_config(&c, HOTCACHE_HOTSCORE, cap);
    size_t n = span * passes;
    uint64_t *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i] = i % span;
    uint64_t hits, opt;
    ck_assert_int_eq(cache_sim_replay(&c, t, n, &hits), SCBF_OK);
    ck_assert_int_eq(cache_sim_opt(t, n, cap, &opt), SCBF_OK);
    ck_assert_msg(hits * 4 > opt, "adaptive %llu hits on a short loop, OPT %llu",
                  (unsigned long long)hits, (unsigned long long)opt);
    free(t);
}
END_TEST

/* The window follows the workload: a loop larger than the cache wants it
 * small (frequency keeps part of the loop); a stream of new keys, each
 * re-read a few times while still among the cache-size most recent ones,
 * wants it large (recency: LRU hits every re-read); then the loop again. */
START_TEST(adaptive_window_moves) {
    const uint64_t cap = 400;
    hotcache_t *h = make(HOTCACHE_HOTSCORE, UINT64_MAX, cap, 0, 0, 0);
    tu_rng rng = {9};
    uint64_t fresh = 1000000;
    double after[3];
    for (int phase = 0; phase < 3; phase++) {
        for (uint64_t op = 0; op < 400000; op++) {
            uint64_t k;
            if (phase != 1)
                k = op % (2 * cap);
            else if (tu_below(&rng, 2) == 0)
                k = fresh++;
            else
                k = fresh - 1 - tu_below(&rng, cap * 9 / 10);
            if (get_u64(h, k) != SCBF_OK) put_u64(h, k);
        }
        after[phase] = stats(h).window_share;
    }
    ck_assert_msg(after[0] < 0.2, "loop: window share %.3f", after[0]);
    ck_assert_msg(after[1] > 0.5, "reuse at half the cache: window share %.3f", after[1]);
    ck_assert_msg(after[2] < 0.2, "loop again: window share %.3f", after[2]);
    hotcache_free(h);
}
END_TEST

/* ---- OPT ---------------------------------------------------------------- */

/* Best hit count over every demand-paging schedule: on a miss, bypass,
 * insert into a free slot, or evict any cached key. */
static unsigned brute(const uint64_t *t, size_t n, size_t i, unsigned cached, unsigned cap) {
    if (i == n) return 0;
    unsigned bit = 1u << t[i];
    if (cached & bit) return 1 + brute(t, n, i + 1, cached, cap);
    unsigned best = brute(t, n, i + 1, cached, cap); /* bypass */
    if ((unsigned)__builtin_popcount(cached) < cap) {
        unsigned r = brute(t, n, i + 1, cached | bit, cap);
        if (r > best) best = r;
    } else {
        for (unsigned v = cached; v; v &= v - 1) {
            unsigned r = brute(t, n, i + 1, (cached & ~(v & -v)) | bit, cap);
            if (r > best) best = r;
        }
    }
    return best;
}

START_TEST(opt_is_exact) {
    tu_rng rng = {77};
    uint64_t t[14];
    for (int trial = 0; trial < 1500; trial++) {
        size_t n = 1 + (size_t)tu_below(&rng, 14);
        uint64_t keys = 1 + tu_below(&rng, 6);
        for (size_t i = 0; i < n; i++) t[i] = tu_below(&rng, keys);
        for (unsigned cap = 0; cap <= 4; cap++) {
            uint64_t hits;
            ck_assert_int_eq(cache_sim_opt(t, n, cap, &hits), SCBF_OK);
            ck_assert_uint_eq(hits, brute(t, n, 0, 0, cap));
        }
    }
}
END_TEST

START_TEST(opt_bounds_online_policies) {
    tu_rng rng = {78};
    size_t n = (size_t)tu_scaled(50000, 5000);
    uint64_t *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i] = tu_below(&rng, 1 + tu_below(&rng, 3000));
    for (uint64_t cap = 10; cap <= 1000; cap *= 10) {
        uint64_t opt, lru, hot, paper;
        hotcache_config_t c;
        ck_assert_int_eq(cache_sim_opt(t, n, cap, &opt), SCBF_OK);
        cache_sim_config(&c, HOTCACHE_LRU, cap);
        ck_assert_int_eq(cache_sim_replay(&c, t, n, &lru), SCBF_OK);
        cache_sim_config(&c, HOTCACHE_HOTSCORE, cap);
        ck_assert_int_eq(cache_sim_replay(&c, t, n, &hot), SCBF_OK);
        cache_sim_config(&c, HOTCACHE_PAPER, cap);
        ck_assert_int_eq(cache_sim_replay(&c, t, n, &paper), SCBF_OK);
        ck_assert_uint_ge(opt, lru);
        ck_assert_uint_ge(opt, hot);
        ck_assert_uint_ge(opt, paper);
        ck_assert_uint_gt(hot, 0);
    }
    free(t);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("hotcache_adaptive");
    TCase *tc = tcase_create("adaptive");
    tcase_add_test(tc, adaptive_matches_reference);
    tcase_add_test(tc, chooser_matches_reference);
    tcase_add_test(tc, chooser_within_two_percent);
    tcase_add_test(tc, adaptive_window_moves);
    tcase_add_test(tc, adaptive_close_to_lru_on_reversals);
    tcase_add_test(tc, adaptive_keeps_part_of_a_short_loop);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("opt");
    tcase_add_test(tc, opt_is_exact);
    tcase_add_test(tc, opt_bounds_online_policies);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
