/* Helpers shared by the test_hotcache_*.c suites. CMake makes each test/test_*.c its own
 * executable linked with testutil.c only, so they live here as static inline. */
#ifndef SCBF_HOTCACHE_TEST_UTIL_H
#define SCBF_HOTCACHE_TEST_UTIL_H
#include <check.h>

#include "scbf/hotcache.h"
#include "testutil.h"

/* Loops over every policy cast the index: 0 hotscore, 1 LRU, 2 paper. */
#define NPOLICIES 3

static inline hotcache_t *make_sharded(hotcache_policy p, uint64_t cap_bytes, uint64_t max_entries,
                                       uint32_t period, double decay, uint64_t ghosts,
                                       uint32_t shards) {
    hotcache_config_t c;
    hotcache_config_default(&c, p, cap_bytes);
    c.max_entries = max_entries;
    if (period) c.period = period;
    if (decay > 0) c.decay = decay;
    c.ghost_entries = ghosts;
    c.shards = shards;
    hotcache_t *h = NULL;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_OK);
    return h;
}

/* A hotscore cache that also chooses its mode (hotcache_config_t.chooser). */
static inline hotcache_t *make_choosing(hotcache_policy p, uint64_t cap_bytes, uint64_t max_entries,
                                        uint32_t shards, int chooser) {
    hotcache_config_t c;
    hotcache_config_default(&c, p, cap_bytes);
    c.max_entries = max_entries;
    c.shards = shards;
    c.chooser = chooser;
    hotcache_t *h = NULL;
    ck_assert_int_eq(hotcache_create(&c, &h), SCBF_OK);
    return h;
}

static inline hotcache_t *make(hotcache_policy p, uint64_t cap_bytes, uint64_t max_entries,
                               uint32_t period, double decay, uint64_t ghosts) {
    return make_sharded(p, cap_bytes, max_entries, period, decay, ghosts, 0);
}

static inline int get_u64(hotcache_t *h, uint64_t k) {
    uint8_t kb[8], v[16];
    size_t vlen;
    tu_key64(k, kb);
    return hotcache_get(h, kb, 8, v, sizeof v, &vlen);
}

static inline int put_u64(hotcache_t *h, uint64_t k) {
    uint8_t kb[8];
    int admitted = -1;
    tu_key64(k, kb);
    ck_assert_int_eq(hotcache_put(h, kb, 8, "v", 1, &admitted), SCBF_OK);
    return admitted;
}

static inline int peek_u64(hotcache_t *h, uint64_t k, double *score, uint32_t *visits,
                           int *cached) {
    uint8_t kb[8];
    tu_key64(k, kb);
    return hotcache_peek(h, kb, 8, score, visits, cached);
}

static inline int is_cached(hotcache_t *h, uint64_t k) {
    int cached = 0;
    return peek_u64(h, k, NULL, NULL, &cached) == SCBF_OK && cached;
}

static inline hotcache_stats_t stats(hotcache_t *h) {
    hotcache_stats_t s;
    ck_assert_int_eq(hotcache_stats(h, &s), SCBF_OK);
    return s;
}
#endif
