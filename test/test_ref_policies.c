/* The simulator's reference policies (native/tools/ref_*.c): exact answers
 * where they are known, OPT as a bound everywhere, and the behaviour each
 * policy is published for (LIRS keeps part of a loop larger than the cache,
 * ARC and SIEVE keep a hot set through a scan). Their hit ratios on the real
 * traces are checked against published figures by test/cli_reference_policies.sh. */
#include <stdlib.h>
#include <string.h>

#include "cache_sim.h"
#include "ref_policy.h"
#include "scbf/scbf_error.h"
#include "testutil.h"

static const char *const POLICIES[] = {"arc",   "lirs",     "s3fifo",
                                       "sieve", "wtinylfu", "wtinylfu-1pct"};
#define NPOLICIES (sizeof POLICIES / sizeof *POLICIES)

static uint64_t hits_of(const char *policy, const uint64_t *t, size_t n, uint64_t cap) {
    uint64_t hits = UINT64_MAX;
    ck_assert_int_eq(cache_sim_reference(policy, t, n, cap, &hits), SCBF_OK);
    return hits;
}

START_TEST(names_parse) {
    for (size_t p = 0; p < NPOLICIES; p++) {
        ref_policy r;
        ck_assert_int_eq(ref_policy_parse(POLICIES[p], &r), 0);
        ck_assert_str_eq(ref_policy_name(r), POLICIES[p]);
        ck_assert(cache_sim_is_reference(POLICIES[p]));
    }
    ck_assert(!cache_sim_is_reference("lru"));
    ck_assert(!cache_sim_is_reference("opt"));
    ck_assert(!cache_sim_is_reference(NULL));
    uint64_t hits;
    uint64_t key = 1;
    ck_assert_int_eq(cache_sim_reference("nope", &key, 1, 10, &hits), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(cache_sim_reference("arc", &key, 1, 0, &hits), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(cache_sim_reference("arc", &key, 1, 10, NULL), SCBF_E_INVALID_ARG);
}
END_TEST

/* Every key fits: each policy misses each key once and hits every other access. */
START_TEST(everything_fits) {
    tu_rng r = {11};
    size_t n = tu_scaled(20000, 2000);
    uint64_t *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i] = 1000 + tu_below(&r, 300);
    for (size_t p = 0; p < NPOLICIES; p++) {
        uint64_t want = n - 300;
        ck_assert_msg(hits_of(POLICIES[p], t, n, 400) == want, "%s", POLICIES[p]);
    }
    free(t);
}
END_TEST

/* No online policy beats Belady's OPT, on skewed traces with scans mixed in. */
START_TEST(opt_bounds_every_policy) {
    tu_rng r = {5};
    size_t n = tu_scaled(50000, 5000);
    uint64_t *t = malloc(n * sizeof *t);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < n; i++) {
            t[i] = i % 7 == 0 ? 100000 + i : tu_below(&r, 2000) * tu_below(&r, 2000) / 2000;
        }
        for (uint64_t cap = 8; cap <= 1024; cap *= 4) {
            uint64_t opt;
            ck_assert_int_eq(cache_sim_opt(t, n, cap, &opt), SCBF_OK);
            for (size_t p = 0; p < NPOLICIES; p++) {
                uint64_t h = hits_of(POLICIES[p], t, n, cap);
                ck_assert_msg(h <= opt, "%s at %llu: %llu > OPT %llu", POLICIES[p],
                              (unsigned long long)cap, (unsigned long long)h,
                              (unsigned long long)opt);
                ck_assert_msg(h > 0, "%s at %llu hit nothing", POLICIES[p],
                              (unsigned long long)cap);
            }
        }
    }
    free(t);
}
END_TEST

/* A loop 10% larger than the cache: ARC and SIEVE, like LRU, keep none of
 * it (each key is evicted just before its turn comes); LIRS keeps its LIR
 * set, W-TinyLFU its main area: most of the cache hits on every pass.
 * (S3-FIFO's ghost queue readmits part of the loop: no claim either way.) */
START_TEST(loop_larger_than_cache) {
    const uint64_t cap = 500, keys = 550, passes = 40;
    size_t n = keys * passes;
    uint64_t *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) t[i] = i % keys;
    double best = (double)(cap - 1) / (double)keys;
    for (size_t p = 0; p < NPOLICIES; p++) {
        double ratio = (double)hits_of(POLICIES[p], t, n, cap) / (double)n;
        char first = POLICIES[p][0];
        if (first == 's' && POLICIES[p][1] == '3') continue;
        if (first == 'l' || first == 'w')
            ck_assert_msg(ratio > 0.8 * best, "%s keeps too little of a loop: %.4f", POLICIES[p],
                          ratio);
        else
            ck_assert_msg(ratio < 0.05, "%s on a loop: %.4f", POLICIES[p], ratio);
    }
    free(t);
}
END_TEST

/* A hot set of half the cache, read between one-time keys: ARC and SIEVE
 * (and every other policy) keep the hot set, so nearly every hot read hits. */
START_TEST(hot_set_survives_one_time_keys) {
    const uint64_t cap = 200, hot = 100;
    size_t n = tu_scaled(40000, 4000);
    uint64_t *t = malloc(n * sizeof *t);
    size_t hot_reads = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 2) {
            t[i] = i % hot;
            hot_reads++;
        } else {
            t[i] = 1000000 + i;
        }
    }
    for (size_t p = 0; p < NPOLICIES; p++) {
        uint64_t h = hits_of(POLICIES[p], t, n, cap);
        ck_assert_msg(h >= hot_reads - 2 * hot, "%s lost the hot set: %llu of %zu", POLICIES[p],
                      (unsigned long long)h, hot_reads);
    }
    free(t);
}
END_TEST

/* ARC's two lists: keys seen twice survive a run of new keys as long as T2
 * holds them (an LRU of the same size would have evicted them). */
START_TEST(arc_protects_repeated_keys) {
    uint64_t t[64];
    size_t n = 0;
    for (uint64_t k = 0; k < 4; k++) t[n++] = k;
    for (uint64_t k = 0; k < 4; k++) t[n++] = k;     /* 4 hits, now in T2 */
    for (uint64_t k = 100; k < 106; k++) t[n++] = k; /* six new keys, cache of 8 */
    for (uint64_t k = 0; k < 4; k++) t[n++] = k;     /* hits again under ARC */
    ck_assert_uint_eq(hits_of("arc", t, n, 8), 8);
}
END_TEST

/* S3-FIFO: a key evicted from the small queue once is remembered by the
 * ghost queue and, when it comes back, goes straight to the main queue. */
START_TEST(s3fifo_ghost_readmits_to_main) {
    /* cache of 10: small queue 1, main 9. */
    uint64_t t[64];
    size_t n = 0;
    t[n++] = 1;                                    /* into S */
    for (uint64_t k = 2; k < 4; k++) t[n++] = k;   /* 1 leaves S for the ghosts */
    t[n++] = 1;                                    /* miss, readmitted into M */
    for (uint64_t k = 10; k < 30; k++) t[n++] = k; /* one-time keys churn S only */
    t[n++] = 1;                                    /* still in M: a hit */
    ck_assert_uint_eq(hits_of("s3fifo", t, n, 10), 1);
}
END_TEST

/* Two keys in turn with room for one: a policy that keeps at most one entry
 * never hits. (LIRS needs room for two and says so.) */
START_TEST(capacity_is_respected) {
    uint64_t t[200];
    for (size_t i = 0; i < 200; i++) t[i] = i % 2;
    for (size_t p = 0; p < NPOLICIES; p++) {
        uint64_t hits = 0;
        int rc = cache_sim_reference(POLICIES[p], t, 200, 1, &hits);
        if (!strcmp(POLICIES[p], "lirs")) {
            ck_assert_int_eq(rc, SCBF_E_INVALID_ARG);
            continue;
        }
        ck_assert_int_eq(rc, SCBF_OK);
        ck_assert_msg(hits == 0, "%s hit %llu times with room for one key", POLICIES[p],
                      (unsigned long long)hits);
    }
    /* Three keys in turn with room for two: only what two entries can hold. */
    for (size_t i = 0; i < 200; i++) t[i] = i % 3;
    uint64_t opt;
    ck_assert_int_eq(cache_sim_opt(t, 200, 2, &opt), SCBF_OK);
    for (size_t p = 0; p < NPOLICIES; p++) {
        ck_assert_msg(hits_of(POLICIES[p], t, 200, 2) <= opt, "%s over OPT at 2", POLICIES[p]);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("ref_policies");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, names_parse);
    tcase_add_test(tc, capacity_is_respected);
    tcase_add_test(tc, everything_fits);
    tcase_add_test(tc, opt_bounds_every_policy);
    tcase_add_test(tc, loop_larger_than_cache);
    tcase_add_test(tc, hot_set_survives_one_time_keys);
    tcase_add_test(tc, arc_protects_repeated_keys);
    tcase_add_test(tc, s3fifo_ghost_readmits_to_main);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
