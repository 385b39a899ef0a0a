/*
 * test_hotcache_bytes.c - the byte bound, byte accounting and shards, and
 * lookups beside concurrent writers.
 *
 * Random workloads with values up to 3 KB check every value read and the
 * bound after every operation, for every policy, sharded and not; four
 * threads check every value read against its key while puts, invalidates
 * and clears retire entries under their lock-free gets. Tcase "concurrency"
 * is the one to run under ThreadSanitizer (CK_RUN_CASE=concurrency).
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hotcache_test_util.h"

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

static Suite *suite(void) {
    Suite *s = suite_create("hotcache_bytes");
    TCase *tc = tcase_create("bytes");
    tcase_add_test(tc, bytes_accounted);
    tcase_add_test(tc, bytes_never_exceeded_hotscore);
    tcase_add_test(tc, bytes_never_exceeded_paper);
    tcase_add_test(tc, bytes_never_exceeded_lru);
    tcase_add_test(tc, bytes_never_exceeded_sharded);
    tcase_add_test(tc, shards_bad_and_automatic);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);

    tc = tcase_create("concurrency");
    tcase_add_test(tc, threads_hammer);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run(suite()); }
