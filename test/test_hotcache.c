/*
 * test_hotcache.c - the cache's three policies, and the OPT simulator.
 *
 * The central checks replay random workloads through the cache and through
 * slow references: for the paper's policy, an eager implementation written
 * straight from the paper (every score recomputed at every period close,
 * victims found by linear scan); for adaptive hotscore, plain arrays scanned
 * linearly with the same sketch and climber. Both must make the same
 * decisions after every operation.
 * Tcase "concurrency" is the one to run under ThreadSanitizer
 * (CK_RUN_CASE=concurrency).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hotcache_test_util.h"
#include "cache_sim.h"
#include "hash.h"
#include "shard_internal.h"
#include "sketch.h"

/* ---- score formula ------------------------------------------------------ */

START_TEST(score_formula_exact) {
    const uint32_t P = 4;
    const double a = 0.5;
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 0, P, a, 64);
    double s;
    uint32_t v;
    /* Period 0: K three visits, X one. */
    for (int i = 0; i < 3; i++) get_u64(h, 1);
    get_u64(h, 2);
    ck_assert_int_eq(peek_u64(h, 1, &s, &v, NULL), SCBF_OK);
    ck_assert(s == 0 && v == 3);
    ck_assert_uint_eq(stats(h).periods, 0); /* closes at the next lookup */
    /* Period 1: K once, Y three times. */
    get_u64(h, 1);
    ck_assert_uint_eq(stats(h).periods, 1);
    double s1 = a * 3 / P;
    ck_assert_int_eq(peek_u64(h, 1, &s, &v, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, s1, 1e-15);
    ck_assert_uint_eq(v, 1);
    for (int i = 0; i < 3; i++) get_u64(h, 3);
    /* Periods 2 and 3: Y only. */
    for (int i = 0; i < 8; i++) get_u64(h, 3);
    get_u64(h, 3); /* opens period 4 */
    ck_assert_uint_eq(stats(h).periods, 4);
    double s2 = a * 1 / P + (1 - a) * s1;
    double s4 = (1 - a) * (1 - a) * s2;
    ck_assert_int_eq(peek_u64(h, 1, &s, &v, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, s4, 1e-15);
    ck_assert_uint_eq(v, 0);
    /* Y: 3 visits in period 1, 4 in periods 2 and 3. */
    double y = a * 3 / P;
    y = a * 4 / P + (1 - a) * y;
    y = a * 4 / P + (1 - a) * y;
    ck_assert_int_eq(peek_u64(h, 3, &s, &v, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, y, 1e-15);
    ck_assert_uint_eq(v, 1);
    ck_assert_int_eq(peek_u64(h, 99, &s, &v, NULL), SCBF_E_NOT_FOUND);
    hotcache_free(h);
}
END_TEST

START_TEST(score_memoryless) {
    /* a = 1: only the last closed period counts. */
    const uint32_t P = 5;
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 0, P, 1.0, 64);
    double s;
    for (int i = 0; i < 2; i++) get_u64(h, 1);
    for (int i = 0; i < 3; i++) get_u64(h, 2);
    get_u64(h, 2);
    ck_assert_int_eq(peek_u64(h, 1, &s, NULL, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, 2.0 / P, 1e-15);
    for (int i = 0; i < 5; i++) get_u64(h, 2);
    ck_assert_int_eq(peek_u64(h, 1, &s, NULL, NULL), SCBF_OK);
    ck_assert(s == 0);
    ck_assert_int_eq(peek_u64(h, 2, &s, NULL, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, 5.0 / P, 1e-15); /* all 5 lookups of period 1 */
    hotcache_free(h);
}
END_TEST

START_TEST(period_ns_closes) {
    const uint32_t P = 1u << 30;
    const double a = 0.25;
    hotcache_config_t c;
    hotcache_config_default(&c, HOTCACHE_PAPER, 1 << 20);
    c.period = P;
    c.decay = a;
    c.period_ns = 20 * 1000 * 1000;
    hotcache_t *h;
    uint64_t p0;
    /* Both visits must land in one period; a descheduled thread could
     * straddle a boundary, so try again on a fresh cache if it did. */
    for (;;) {
        ck_assert_int_eq(hotcache_create(&c, &h), SCBF_OK);
        p0 = stats(h).periods;
        get_u64(h, 1);
        get_u64(h, 1);
        if (stats(h).periods == p0) break;
        hotcache_free(h);
    }
    struct timespec ts = {0, 70 * 1000 * 1000};
    nanosleep(&ts, NULL);
    get_u64(h, 2);
    uint64_t p = stats(h).periods;
    ck_assert_uint_ge(p - p0, 3);
    double s;
    ck_assert_int_eq(peek_u64(h, 1, &s, NULL, NULL), SCBF_OK);
    ck_assert_double_eq_tol(s, a * 2 / P * pow(1 - a, (double)(p - p0 - 1)), 1e-25);
    hotcache_free(h);
}
END_TEST

/* ---- eager reference ---------------------------------------------------- */

enum { R_NONE, R_GHOST, R_ENTRY };
typedef struct {
    int state;
    double score;
    uint32_t visits;
    uint64_t seq;
} ref_key;
typedef struct {
    ref_key *k;
    size_t nkeys, cap, gcap, entries, ghosts;
    uint32_t P, lookups;
    double a;
    uint64_t seq, periods;
} ref_cache;

static double ref_proj(const ref_cache *r, const ref_key *k) {
    return r->a * k->visits / r->P + (1 - r->a) * k->score;
}

static void ref_ghost_offer(ref_cache *r, size_t i) {
    if (r->ghosts == r->gcap) {
        size_t m = SIZE_MAX;
        for (size_t j = 0; j < r->nkeys; j++) {
            if (r->k[j].state != R_GHOST) continue;
            if (m == SIZE_MAX || ref_proj(r, &r->k[j]) < ref_proj(r, &r->k[m]) ||
                (ref_proj(r, &r->k[j]) == ref_proj(r, &r->k[m]) && r->k[j].seq < r->k[m].seq))
                m = j;
        }
        int beats = ref_proj(r, &r->k[m]) < ref_proj(r, &r->k[i]) ||
                    (ref_proj(r, &r->k[m]) == ref_proj(r, &r->k[i]) && r->k[m].seq < r->k[i].seq);
        if (!beats) {
            memset(&r->k[i], 0, sizeof r->k[i]);
            return;
        }
        memset(&r->k[m], 0, sizeof r->k[m]);
        r->ghosts--;
    }
    r->k[i].state = R_GHOST;
    r->ghosts++;
}

static int ref_get(ref_cache *r, size_t i) {
    if (r->lookups == r->P) {
        for (size_t j = 0; j < r->nkeys; j++) {
            if (r->k[j].state == R_NONE) continue;
            r->k[j].score = r->a * r->k[j].visits / r->P + (1 - r->a) * r->k[j].score;
            r->k[j].visits = 0;
        }
        r->periods++;
        r->lookups = 0;
    }
    r->lookups++;
    ref_key *k = &r->k[i];
    int state = k->state;
    if (state == R_NONE) memset(k, 0, sizeof *k);
    k->visits++;
    if (state != R_ENTRY) k->seq = ++r->seq; /* hits keep their put order */
    if (state == R_NONE) ref_ghost_offer(r, i);
    return state == R_ENTRY;
}

static int ref_put(ref_cache *r, size_t i) {
    ref_key *k = &r->k[i];
    if (k->state == R_ENTRY) r->entries--;
    if (k->state == R_GHOST) r->ghosts--;
    k->state = R_NONE;
    k->seq = ++r->seq;
    if (r->entries == r->cap) {
        size_t m = SIZE_MAX;
        for (size_t j = 0; j < r->nkeys; j++) {
            if (r->k[j].state != R_ENTRY) continue;
            if (m == SIZE_MAX || r->k[j].score < r->k[m].score ||
                (r->k[j].score == r->k[m].score && r->k[j].seq < r->k[m].seq))
                m = j;
        }
        if (!(r->k[m].score < k->score)) {
            ref_ghost_offer(r, i);
            return 0;
        }
        r->k[m].state = R_NONE;
        r->entries--;
        ref_ghost_offer(r, m);
    }
    k->state = R_ENTRY;
    r->entries++;
    return 1;
}

static void ref_invalidate(ref_cache *r, size_t i) {
    if (r->k[i].state != R_ENTRY) return;
    r->k[i].state = R_NONE;
    r->entries--;
    ref_ghost_offer(r, i);
}

static void lazy_vs_eager(uint64_t seed, size_t nkeys, size_t cap, size_t gcap, uint32_t P,
                          double a, uint64_t ops) {
    ref_cache r = {.nkeys = nkeys, .cap = cap, .gcap = gcap, .P = P, .a = a};
    r.k = calloc(nkeys, sizeof *r.k);
    hotcache_t *h = make(HOTCACHE_PAPER, UINT64_MAX, cap, P, a, gcap);
    tu_rng rng = {seed};
    for (uint64_t op = 0; op < ops; op++) {
        /* Skewed keys so that some are hot and scores really differ. */
        size_t i = (size_t)tu_below(&rng, 1 + tu_below(&rng, nkeys));
        uint64_t dice = tu_below(&rng, 100);
        if (dice < 85) {
            int hit = get_u64(h, i) == SCBF_OK;
            ck_assert_int_eq(hit, ref_get(&r, i));
            if (!hit) ck_assert_int_eq(put_u64(h, i), ref_put(&r, i));
        } else if (dice < 95) {
            ck_assert_int_eq(put_u64(h, i), ref_put(&r, i));
        } else {
            uint8_t kb[8];
            tu_key64(i, kb);
            int rc = hotcache_invalidate(h, kb, 8);
            ck_assert_int_eq(rc == SCBF_OK, r.k[i].state == R_ENTRY);
            ref_invalidate(&r, i);
        }
        for (size_t j = 0; j < nkeys; j++) {
            double s;
            uint32_t v;
            int cached;
            int rc = peek_u64(h, j, &s, &v, &cached);
            ck_assert_int_eq(rc == SCBF_OK, r.k[j].state != R_NONE);
            if (rc != SCBF_OK) continue;
            ck_assert_int_eq(cached, r.k[j].state == R_ENTRY);
            ck_assert_uint_eq(v, r.k[j].visits);
            ck_assert_double_eq_tol(s, r.k[j].score, 1e-12 * (1 + r.k[j].score));
        }
        hotcache_stats_t st = stats(h);
        ck_assert_uint_eq(st.entries, r.entries);
        ck_assert_uint_eq(st.ghosts, r.ghosts);
        ck_assert_uint_eq(st.periods, r.periods);
    }
    hotcache_free(h);
    free(r.k);
}

START_TEST(lazy_equals_eager) {
    uint64_t ops = tu_scaled(40000, 2000);
    lazy_vs_eager(1, 48, 8, 12, 7, 0.3, ops);
    lazy_vs_eager(2, 48, 8, 12, 3, 0.85, ops);
    lazy_vs_eager(3, 200, 30, 40, 50, 0.1, ops / 4);
    lazy_vs_eager(4, 20, 5, 3, 1, 0.37, ops);
    /* a = 1/2 and a power-of-two period make every score dyadic: both sides
     * must then agree bit for bit, ties included. */
    lazy_vs_eager(5, 64, 10, 16, 8, 0.5, ops);
}
END_TEST

/* ---- admission and eviction order --------------------------------------- */

START_TEST(admit_while_not_full) {
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 50, 1000, 0.5, 0);
    for (uint64_t k = 0; k < 50; k++) ck_assert_int_eq(put_u64(h, k), 1);
    hotcache_stats_t s = stats(h);
    ck_assert_uint_eq(s.entries, 50);
    ck_assert_uint_eq(s.admissions, 50);
    ck_assert_uint_eq(s.evictions, 0);
    /* Full, and every score is 0: a newcomer with score 0 does not outscore anyone. */
    ck_assert_int_eq(put_u64(h, 1000), 0);
    ck_assert_uint_eq(stats(h).rejections, 1);
    hotcache_free(h);
}
END_TEST

/* Lookups of an uncached filler key until the current period has closed. */
static void close_period(hotcache_t *h) {
    uint64_t p = stats(h).periods;
    while (stats(h).periods == p) get_u64(h, 1000);
}

START_TEST(paper_eviction_order) {
    const uint32_t P = 10;
    const double a = 0.5;
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 3, P, a, 16);
    put_u64(h, 1);
    put_u64(h, 2);
    put_u64(h, 3);
    for (int i = 0; i < 4; i++) get_u64(h, 1);
    for (int i = 0; i < 3; i++) get_u64(h, 2);
    for (int i = 0; i < 2; i++) get_u64(h, 3);
    close_period(h);                    /* scores 0.2, 0.15, 0.1 */
    ck_assert_int_eq(put_u64(h, 4), 0); /* score 0 outscores nobody */
    for (int i = 0; i < 5; i++) get_u64(h, 4);
    close_period(h); /* 4: 0.25; 1, 2, 3: 0.1, 0.075, 0.05 */
    double s1, s2, s3, s4;
    peek_u64(h, 3, &s3, NULL, NULL);
    peek_u64(h, 4, &s4, NULL, NULL);
    ck_assert_double_eq_tol(s3, (1 - a) * a * 2 / P, 1e-15);
    ck_assert_double_eq_tol(s4, a * 5 / P, 1e-15);
    ck_assert_int_eq(put_u64(h, 4), 1);
    ck_assert(!is_cached(h, 3));
    ck_assert(is_cached(h, 1) && is_cached(h, 2) && is_cached(h, 4));
    ck_assert_uint_eq(stats(h).evictions, 1);
    /* Key 3 keeps its history as a ghost. */
    int cached;
    ck_assert_int_eq(peek_u64(h, 3, &s3, NULL, &cached), SCBF_OK);
    ck_assert(!cached && s3 > 0);
    /* Next lowest is key 2, then key 1. */
    for (int i = 0; i < 5; i++) get_u64(h, 6);
    close_period(h);
    peek_u64(h, 1, &s1, NULL, NULL);
    peek_u64(h, 2, &s2, NULL, NULL);
    ck_assert(s2 < s1);
    ck_assert_int_eq(put_u64(h, 6), 1);
    ck_assert(!is_cached(h, 2) && is_cached(h, 1) && is_cached(h, 4) && is_cached(h, 6));
    for (int i = 0; i < 5; i++) get_u64(h, 7);
    close_period(h);
    ck_assert_int_eq(put_u64(h, 7), 1);
    ck_assert(!is_cached(h, 1) && is_cached(h, 4) && is_cached(h, 6) && is_cached(h, 7));
    ck_assert_uint_eq(stats(h).evictions, 3);
    hotcache_free(h);
}
END_TEST

START_TEST(lru_order) {
    hotcache_t *h = make(HOTCACHE_LRU, 1 << 20, 3, 0, 0, 0);
    put_u64(h, 1);
    put_u64(h, 2);
    put_u64(h, 3);
    ck_assert_int_eq(get_u64(h, 1), SCBF_OK);
    ck_assert_int_eq(put_u64(h, 4), 1); /* evicts 2 */
    ck_assert(!is_cached(h, 2) && is_cached(h, 1) && is_cached(h, 3));
    ck_assert_int_eq(get_u64(h, 3), SCBF_OK);
    ck_assert_int_eq(put_u64(h, 5), 1); /* evicts 1 */
    ck_assert(!is_cached(h, 1) && is_cached(h, 3) && is_cached(h, 4) && is_cached(h, 5));
    ck_assert_int_eq(get_u64(h, 1), SCBF_E_NOT_FOUND);
    hotcache_stats_t s = stats(h);
    ck_assert_uint_eq(s.evictions, 2);
    ck_assert_uint_eq(s.hits, 2);
    ck_assert_uint_eq(s.misses, 1);
    ck_assert_uint_eq(s.periods, 0);
    hotcache_free(h);
}
END_TEST

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

/* ---- bytes ------------------------------------------------------------ */

static void fill_value(uint8_t *v, size_t len, uint64_t key, uint64_t version) {
    tu_rng r = {key * 1000003 + version};
    for (size_t i = 0; i < len; i++) v[i] = (uint8_t)tu_next(&r);
}

static void random_bytes_workload(hotcache_policy p, uint64_t seed, uint32_t shards) {
    const uint64_t cap = 64 * 1024 * (shards ? shards : 1);
    const size_t nkeys = 400 * (shards ? shards : 1), maxv = 3000;
    hotcache_t *h = make_sharded(p, cap, 0, 300, 0.4, 0, shards);
    uint64_t *version = calloc(nkeys, sizeof *version); /* 0 = must miss */
    size_t *len = calloc(nkeys, sizeof *len);
    uint8_t *v = malloc(maxv), *expect = malloc(maxv);
    tu_rng rng = {seed};
    uint64_t ops = tu_scaled(200000, 5000), next_version = 1, puts = 0;
    for (uint64_t op = 0; op < ops; op++) {
        size_t i = (size_t)tu_below(&rng, 1 + tu_below(&rng, nkeys));
        uint8_t kb[8];
        tu_key64(i, kb);
        uint64_t dice = tu_below(&rng, 100);
        if (dice < 60) {
            size_t vlen;
            int rc = hotcache_get(h, kb, 8, v, maxv, &vlen);
            if (rc == SCBF_OK) {
                ck_assert_uint_ne(version[i], 0);
                ck_assert_uint_eq(vlen, len[i]);
                fill_value(expect, vlen, i, version[i]);
                ck_assert(memcmp(v, expect, vlen) == 0);
            } else {
                ck_assert_int_eq(rc, SCBF_E_NOT_FOUND);
                version[i] = 0; /* evicted */
            }
        } else if (dice < 95) {
            size_t vlen = (size_t)tu_below(&rng, maxv);
            uint64_t ver = next_version++;
            fill_value(v, vlen, i, ver);
            int admitted = -1;
            ck_assert_int_eq(hotcache_put(h, kb, 8, v, vlen, &admitted), SCBF_OK);
            version[i] = admitted ? ver : 0;
            len[i] = vlen;
            puts++;
        } else {
            int rc = hotcache_invalidate(h, kb, 8);
            ck_assert(rc == SCBF_OK || rc == SCBF_E_NOT_FOUND);
            version[i] = 0;
            ck_assert_int_eq(get_u64(h, i), SCBF_E_NOT_FOUND);
        }
        hotcache_stats_t s = stats(h);
        ck_assert_uint_le(s.bytes_used, s.capacity_bytes);
        ck_assert_uint_eq(s.capacity_bytes, cap);
        /* Each entry costs more than its value: at least 64 bytes of node. */
        ck_assert_uint_le(s.entries * 64, s.bytes_used);
        ck_assert_uint_eq(s.admissions + s.rejections, puts);
    }
    hotcache_stats_t s = stats(h);
    ck_assert_uint_gt(s.entries, 10);
    ck_assert_uint_gt(s.evictions, 0);
    hotcache_clear(h);
    s = stats(h);
    ck_assert_uint_eq(s.entries, 0);
    ck_assert_uint_eq(s.ghosts, 0);
    hotcache_free(h);
    free(version);
    free(len);
    free(v);
    free(expect);
}

START_TEST(bytes_never_exceeded_hotscore) { random_bytes_workload(HOTCACHE_HOTSCORE, 11, 0); }
END_TEST
START_TEST(bytes_never_exceeded_paper) { random_bytes_workload(HOTCACHE_PAPER, 13, 0); }
END_TEST
START_TEST(bytes_never_exceeded_lru) { random_bytes_workload(HOTCACHE_LRU, 12, 0); }
END_TEST
/* Four shards, each with a quarter of the capacity: the sum stays bounded. */
START_TEST(bytes_never_exceeded_sharded) {
    for (int p = 0; p < NPOLICIES; p++) random_bytes_workload((hotcache_policy)p, 14 + p, 4);
}
END_TEST

/* The automatic shard count: one below 4 MiB, up to 64 of at least 2 MiB. */
START_TEST(shards_bad_and_automatic) {
    hotcache_config_t c;
    hotcache_t *h = NULL;
    hotcache_config_default(&c, HOTCACHE_HOTSCORE, 1 << 20);
    c.shards = 3; /* not a power of two */
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    c.shards = 128;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    c.shards = 8;
    c.max_entries = 4; /* fewer entries than shards */
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    ck_assert_ptr_null(h);
    /* 64 MiB makes 32 shards of 2 MiB: each holds one 1.5 MiB value (one
     * 64 MiB shard would hold 42), and a 5 MiB value fits none. */
    h = make(HOTCACHE_LRU, UINT64_C(64) << 20, 0, 0, 0, 0);
    static uint8_t big[5 << 20];
    int admitted_all = 1, admitted;
    for (uint64_t k = 0; k < 200; k++) {
        uint8_t kb[8];
        tu_key64(k, kb);
        ck_assert_int_eq(hotcache_put(h, kb, 8, big, 1536 << 10, &admitted), SCBF_OK);
        admitted_all &= admitted;
    }
    hotcache_stats_t s = stats(h);
    ck_assert_uint_le(s.entries, 32);
    ck_assert_uint_ge(s.entries, 24);
    ck_assert_uint_le(s.bytes_used, s.capacity_bytes);
    ck_assert_int_eq(admitted_all, 1); /* each value fits its shard alone */
    uint8_t kb[8];
    tu_key64(1000, kb);
    ck_assert_int_eq(hotcache_put(h, kb, 8, big, sizeof big, &admitted), SCBF_OK);
    ck_assert_int_eq(admitted, 0);
    hotcache_free(h);
}
END_TEST

START_TEST(bytes_accounted) {
    for (int p = 0; p < NPOLICIES; p++) {
        hotcache_t *h = make((hotcache_policy)p, 1 << 20, 0, 0, 0, 0);
        uint64_t empty = stats(h).bytes_used;
        ck_assert_uint_gt(empty, 0); /* struct, index, ghost arena */
        uint8_t kb[8], v[1000] = {0};
        tu_key64(7, kb);
        ck_assert_int_eq(hotcache_put(h, kb, 8, v, sizeof v, NULL), SCBF_OK);
        uint64_t one = stats(h).bytes_used;
        ck_assert_uint_ge(one - empty, 8 + sizeof v);
        ck_assert_uint_le(one - empty, 8 + sizeof v + 128);
        ck_assert_int_eq(hotcache_invalidate(h, kb, 8), SCBF_OK);
        ck_assert_uint_eq(stats(h).bytes_used, empty);
        hotcache_free(h);
    }
}
END_TEST

/* ---- invalidation, replacement, oversized values ------------------------ */

START_TEST(invalidate_keeps_history) {
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 0, 2, 0.5, 16);
    put_u64(h, 1);
    get_u64(h, 1);
    get_u64(h, 1);
    get_u64(h, 2); /* closes period 0 */
    uint8_t kb[8];
    tu_key64(1, kb);
    ck_assert_int_eq(hotcache_invalidate(h, kb, 8), SCBF_OK);
    ck_assert_int_eq(hotcache_invalidate(h, kb, 8), SCBF_E_NOT_FOUND);
    double s;
    int cached;
    ck_assert_int_eq(peek_u64(h, 1, &s, NULL, &cached), SCBF_OK);
    ck_assert(!cached);
    ck_assert_double_eq_tol(s, 0.5 * 2 / 2, 1e-15);
    ck_assert_int_eq(get_u64(h, 1), SCBF_E_NOT_FOUND);
    hotcache_stats_t st = stats(h);
    ck_assert_uint_eq(st.invalidations, 1);
    ck_assert_uint_eq(st.entries, 0);
    hotcache_free(h);
}
END_TEST

START_TEST(replace_value) {
    for (int p = 0; p < NPOLICIES; p++) {
        hotcache_t *h = make((hotcache_policy)p, 8192, 0, 0, 0, 0);
        uint8_t kb[8], buf[4096];
        size_t vlen;
        tu_key64(5, kb);
        int admitted;
        ck_assert_int_eq(hotcache_put(h, kb, 8, "first", 5, &admitted), SCBF_OK);
        ck_assert_int_eq(admitted, 1);
        uint64_t b1 = stats(h).bytes_used;
        ck_assert_int_eq(
            hotcache_put(h, kb, 8, "second value, longer than the first", 36, &admitted), SCBF_OK);
        ck_assert_int_eq(admitted, 1);
        ck_assert_int_eq(hotcache_get(h, kb, 8, buf, sizeof buf, &vlen), SCBF_OK);
        ck_assert_uint_eq(vlen, 36);
        ck_assert(memcmp(buf, "second", 6) == 0);
        hotcache_stats_t s = stats(h);
        ck_assert_uint_eq(s.entries, 1);
        ck_assert_uint_gt(s.bytes_used, b1);
        /* Too small a buffer: the needed length, and it still counts as a hit. */
        ck_assert_int_eq(hotcache_get(h, kb, 8, buf, 3, &vlen), SCBF_E_BUFFER_TOO_SMALL);
        ck_assert_uint_eq(vlen, 36);
        ck_assert_uint_eq(stats(h).hits, 2);
        /* A replacement that cannot fit drops the old value too. */
        static uint8_t big[16384];
        ck_assert_int_eq(hotcache_put(h, kb, 8, big, sizeof big, &admitted), SCBF_OK);
        ck_assert_int_eq(admitted, 0);
        ck_assert_int_eq(hotcache_get(h, kb, 8, buf, sizeof buf, &vlen), SCBF_E_NOT_FOUND);
        hotcache_free(h);
    }
}
END_TEST

START_TEST(value_larger_than_capacity) {
    for (int p = 0; p < NPOLICIES; p++) {
        hotcache_t *h = make((hotcache_policy)p, 16384, 0, 0, 0, 0);
        for (uint64_t k = 0; k < 5; k++) put_u64(h, k);
        hotcache_stats_t before = stats(h);
        uint8_t kb[8];
        tu_key64(100, kb);
        size_t n = 20000;
        uint8_t *big = calloc(1, n);
        int admitted = -1;
        ck_assert_int_eq(hotcache_put(h, kb, 8, big, n, &admitted), SCBF_OK);
        ck_assert_int_eq(admitted, 0);
        /* Just under capacity is still more than fits beside the fixed overhead. */
        ck_assert_int_eq(hotcache_put(h, kb, 8, big, 16384 - 100, &admitted), SCBF_OK);
        ck_assert_int_eq(admitted, 0);
        hotcache_stats_t after = stats(h);
        ck_assert_uint_eq(after.entries, before.entries); /* nothing evicted */
        ck_assert_uint_eq(after.evictions, 0);
        ck_assert_uint_eq(after.rejections, before.rejections + 2);
        free(big);
        hotcache_free(h);
    }
}
END_TEST

START_TEST(ghosts_bounded) {
    hotcache_t *h = make(HOTCACHE_PAPER, 1 << 20, 4, 16, 0.5, 10);
    tu_rng rng = {5};
    for (int i = 0; i < 3000; i++) {
        uint64_t k = tu_below(&rng, 500);
        if (get_u64(h, k) != SCBF_OK) put_u64(h, k);
        hotcache_stats_t s = stats(h);
        ck_assert_uint_le(s.ghosts, 10);
        ck_assert_uint_le(s.entries, 4);
    }
    ck_assert_uint_eq(stats(h).ghosts, 10);
    hotcache_free(h);
}
END_TEST

START_TEST(bad_arguments) {
    hotcache_config_t c;
    hotcache_t *h = NULL;
    hotcache_config_default(&c, HOTCACHE_HOTSCORE, 0);
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    hotcache_config_default(&c, HOTCACHE_PAPER, 1 << 20);
    c.decay = 0;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    c.decay = 1.5;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    c.decay = 0.5;
    c.period = 0;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    hotcache_config_default(&c, HOTCACHE_HOTSCORE, 100); /* below the fixed overhead */
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    hotcache_config_default(&c, (hotcache_policy)3, 1 << 20);
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_E_INVALID_ARG);
    ck_assert_ptr_null(h);
    ck_assert_int_eq(hotcache_create(NULL, &h), SCBF_E_INVALID_ARG);
}
END_TEST

/* ---- concurrency -------------------------------------------------------- */

/* Gets take no lock (readers.c): they read entries that puts, invalidates
 * and clears unlink and retire meanwhile, and tables that grow under them.
 * Under ASan a retired entry freed too early is a use after free; under
 * TSan an unordered access is a race; here a value read torn or from
 * another key fails the comparison. */

typedef struct {
    hotcache_t *h;
    uint64_t seed, gets;
} worker_arg;

static void *worker(void *p) {
    worker_arg *w = p;
    tu_rng rng = {w->seed};
    uint8_t v[512], got[512];
    uint64_t ops = tu_scaled(200000, 5000);
    for (uint64_t op = 0; op < ops; op++) {
        uint64_t k = tu_below(&rng, 1 + tu_below(&rng, 2000));
        uint8_t kb[8];
        tu_key64(k, kb);
        uint64_t dice = tu_below(&rng, 100);
        if (dice < 70) {
            size_t vlen;
            w->gets++;
            int rc = hotcache_get(w->h, kb, 8, got, sizeof got, &vlen);
            if (rc == SCBF_OK) {
                /* Values depend on the key only, so any writer's value must match. */
                fill_value(v, vlen, k, 0);
                ck_assert(memcmp(v, got, vlen) == 0);
            } else {
                ck_assert_int_eq(rc, SCBF_E_NOT_FOUND);
            }
        } else if (dice < 97) {
            size_t vlen = (size_t)tu_below(&rng, sizeof v);
            fill_value(v, vlen, k, 0);
            ck_assert_int_eq(hotcache_put(w->h, kb, 8, v, vlen, NULL), SCBF_OK);
        } else if (dice < 99 || tu_below(&rng, 50)) {
            hotcache_invalidate(w->h, kb, 8);
        } else {
            /* Retires every entry while the other threads' gets may be reading them. */
            hotcache_clear(w->h);
        }
        if (op % 64 == 0) {
            hotcache_stats_t s;
            hotcache_stats(w->h, &s);
            ck_assert_uint_le(s.bytes_used, s.capacity_bytes);
        }
    }
    return NULL;
}

START_TEST(threads_hammer) {
    /* the last run: one 2 MiB hotscore shard, large enough for the chooser's
     * shadows (fed by the lookups the lock holder replays) */
    for (int run = 0; run <= 2 * NPOLICIES; run++) {
        int last = run == 2 * NPOLICIES;
        int p = last ? 0 : run % NPOLICIES, shards = last ? 1 : run < NPOLICIES ? 0 : 4;
        uint64_t bytes = last ? 2u << 20 : 256 * 1024 * (shards ? 2 : 1);
        hotcache_t *h =
            last ? make_choosing(HOTCACHE_HOTSCORE, bytes, 0, 1, 1)
                 : make_sharded((hotcache_policy)p, bytes, 0, 500, 0.3, 0, (uint32_t)shards);
        enum { T = 4 };
        pthread_t t[T];
        worker_arg w[T];
        for (int i = 0; i < T; i++) {
            w[i] = (worker_arg){h, 100 + (uint64_t)i, 0};
            ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
        }
        uint64_t gets = 0;
        for (int i = 0; i < T; i++) {
            pthread_join(t[i], NULL);
            gets += w[i].gets;
        }
        hotcache_stats_t s = stats(h);
        ck_assert_uint_eq(s.hits + s.misses, gets);
        ck_assert_uint_le(s.bytes_used, s.capacity_bytes);
        ck_assert_uint_gt(s.hits, 0);
        hotcache_free(h);
    }
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
    Suite *s = suite_create("hotcache");
    TCase *tc = tcase_create("score");
    tcase_add_test(tc, score_formula_exact);
    tcase_add_test(tc, score_memoryless);
    tcase_add_test(tc, period_ns_closes);
    tcase_add_test(tc, lazy_equals_eager);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("policy");
    tcase_add_test(tc, admit_while_not_full);
    tcase_add_test(tc, paper_eviction_order);
    tcase_add_test(tc, lru_order);
    tcase_add_test(tc, invalidate_keeps_history);
    tcase_add_test(tc, replace_value);
    tcase_add_test(tc, value_larger_than_capacity);
    tcase_add_test(tc, ghosts_bounded);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("adaptive");
    tcase_add_test(tc, adaptive_matches_reference);
    tcase_add_test(tc, chooser_matches_reference);
    tcase_add_test(tc, chooser_within_two_percent);
    tcase_add_test(tc, adaptive_window_moves);
    tcase_add_test(tc, adaptive_close_to_lru_on_reversals);
    tcase_add_test(tc, adaptive_keeps_part_of_a_short_loop);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("bytes");
    tcase_add_test(tc, bytes_accounted);
    tcase_add_test(tc, bytes_never_exceeded_hotscore);
    tcase_add_test(tc, bytes_never_exceeded_paper);
    tcase_add_test(tc, bytes_never_exceeded_lru);
    tcase_add_test(tc, bytes_never_exceeded_sharded);
    tcase_add_test(tc, shards_bad_and_automatic);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("opt");
    tcase_add_test(tc, opt_is_exact);
    tcase_add_test(tc, opt_bounds_online_policies);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("concurrency");
    tcase_add_test(tc, threads_hammer);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
