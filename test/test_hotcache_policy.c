/*
 * test_hotcache_policy.c - the paper's score, and what each policy admits,
 * evicts and keeps.
 *
 * The central check replays random workloads through the paper's policy and
 * through an eager implementation written straight from the paper (every
 * score recomputed at every period close, victims found by linear scan): both
 * must make the same decisions after every operation.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hotcache_test_util.h"

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

static Suite *suite(void) {
    Suite *s = suite_create("hotcache_policy");
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
    return s;
}

int main(void) { return tu_run(suite()); }
