/* The bit-sliced route set answers, for every slot and key, exactly what the
 * slot's own bitmap answers (scbf_member_contains is the oracle): across
 * shapes and seeds, after deltas (prev named), after a prev that is not the
 * slot's content, after a filter grew a sub-filter, after clears and lane
 * reuse; concurrent queries during updates never lose a key that both the
 * old and the new bitmap hold. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/membership.h"
#include "scbf/routeset.h"
#include "scbf/sscbf.h"
#include "testutil.h"

#define SLOTS 150

static sscbf_t *filter(uint64_t cap, uint64_t seed) {
    sscbf_config_t c;
    sscbf_config_default(&c, cap, 0.01);
    c.seed = seed;
    sscbf_t *s;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    return s;
}

static void add_keys(sscbf_t *s, uint64_t from, uint64_t to) {
    uint8_t k[8];
    for (uint64_t i = from; i < to; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(sscbf_add(s, k, 8), SCBF_OK);
    }
}

static scbf_member_t *member_of(const sscbf_t *s) {
    scbf_member_t *m;
    ck_assert_int_eq(sscbf_member_of(s, &m), SCBF_OK);
    return m;
}

/* Every slot's answer for keys [0, keys) equals its bitmap's; NULL = empty. */
static void check_against_oracle(scbf_routeset_t *rs, scbf_member_t **members, uint32_t n,
                                 uint64_t keys) {
    uint64_t out[(SLOTS + 63) / 64 + 1];
    uint8_t k[8];
    for (uint64_t key = 0; key < keys; key++) {
        tu_key64(key, k);
        /* Check's assertions cost a write each without fork: test first, assert on failure. */
        if (scbf_routeset_query(rs, k, 8, out, sizeof out / sizeof *out) != SCBF_OK)
            ck_abort_msg("query failed at key %llu", (unsigned long long)key);
        for (uint32_t s = 0; s < n; s++) {
            int want = members[s] ? scbf_member_contains(members[s], k, 8) : 0;
            int got = (int)((out[s / 64] >> (s % 64)) & 1);
            if (got != want)
                ck_abort_msg("slot %u key %llu: set says %d, bitmap %d", s, (unsigned long long)key,
                             got, want);
        }
    }
}

/* Slot s: a filter of one of three capacities and two seeds, with its own keys
 * (s * 1000 .. s * 1000 + count) so slots differ. */
static sscbf_t *slot_filter(uint32_t s, uint64_t count) {
    sscbf_t *f = filter(s % 3 == 0 ? 200 : s % 3 == 1 ? 500 : 1000, 7 + s % 2);
    add_keys(f, s * UINT64_C(1000), s * UINT64_C(1000) + count);
    return f;
}

START_TEST(answers_as_each_bitmap) {
    scbf_routeset_t *rs;
    ck_assert_int_eq(scbf_routeset_new(&rs), SCBF_OK);
    sscbf_t *f[SLOTS];
    scbf_member_t *m[SLOTS];
    for (uint32_t s = 0; s < SLOTS; s++) {
        f[s] = slot_filter(s, 100);
        m[s] = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, NULL, m[s]), SCBF_OK);
    }
    ck_assert_uint_eq(scbf_routeset_slots(rs), SLOTS);
    uint64_t keys = tu_scaled(SLOTS * 1000, 20000);
    check_against_oracle(rs, m, SLOTS, keys);

    scbf_routeset_stats_t st;
    ck_assert_int_eq(scbf_routeset_stats(rs, &st), SCBF_OK);
    ck_assert_uint_eq(st.slots, SLOTS);
    ck_assert_uint_eq(st.shapes, 6); /* three capacities x two seeds */
    ck_assert_uint_eq(st.lanes, SLOTS);
    ck_assert_uint_eq(st.pages, 6); /* 25 lanes per shape: one page each */

    /* Deltas: more keys in every slot, set with the held bitmap as prev. */
    for (uint32_t s = 0; s < SLOTS; s++) {
        add_keys(f[s], s * UINT64_C(1000) + 100, s * UINT64_C(1000) + 150);
        scbf_member_t *next = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, m[s], next), SCBF_OK);
        scbf_member_free(m[s]);
        m[s] = next;
    }
    check_against_oracle(rs, m, SLOTS, keys);

    /* Deletes clear bits through the same path. */
    uint8_t k[8];
    for (uint32_t s = 0; s < SLOTS; s += 2) {
        for (uint64_t i = s * UINT64_C(1000); i < s * UINT64_C(1000) + 120; i++) {
            tu_key64(i, k);
            ck_assert_int_eq(sscbf_remove(f[s], k, 8), SCBF_OK);
        }
        scbf_member_t *next = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, m[s], next), SCBF_OK);
        scbf_member_free(m[s]);
        m[s] = next;
    }
    check_against_oracle(rs, m, SLOTS, keys);

    for (uint32_t s = 0; s < SLOTS; s++) {
        scbf_member_free(m[s]);
        sscbf_free(f[s]);
    }
    scbf_routeset_free(rs);
}
END_TEST

START_TEST(wrong_prev_grown_filters_and_clears) {
    scbf_routeset_t *rs;
    ck_assert_int_eq(scbf_routeset_new(&rs), SCBF_OK);
    sscbf_t *f[SLOTS];
    scbf_member_t *m[SLOTS];
    for (uint32_t s = 0; s < SLOTS; s++) {
        f[s] = slot_filter(s, 50);
        m[s] = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, NULL, m[s]), SCBF_OK);
    }
    /* A prev that is not the slot's content (a lost update): the slot is rewritten. */
    sscbf_t *other = slot_filter(3, 10);
    scbf_member_t *stranger = member_of(other);
    add_keys(f[3], 3000 + 50, 3000 + 90);
    scbf_member_t *next3 = member_of(f[3]);
    ck_assert_int_eq(scbf_routeset_set(rs, 3, stranger, next3), SCBF_OK);
    scbf_member_free(m[3]);
    m[3] = next3;
    /* Grown filters (a new sub-filter, a new shape): full rewrites. */
    for (uint32_t s = 0; s < SLOTS; s += 5) {
        add_keys(f[s], s * UINT64_C(1000) + 50, s * UINT64_C(1000) + 900);
        scbf_member_t *next = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, m[s], next), SCBF_OK);
        scbf_member_free(m[s]);
        m[s] = next;
    }
    /* Clears, then some slots set again (lanes reused). */
    for (uint32_t s = 1; s < SLOTS; s += 3) {
        ck_assert_int_eq(scbf_routeset_clear(rs, s), SCBF_OK);
        scbf_member_free(m[s]);
        m[s] = NULL;
    }
    ck_assert_int_eq(scbf_routeset_clear(rs, 1), SCBF_OK); /* already empty */
    for (uint32_t s = 1; s < SLOTS; s += 6) {
        m[s] = member_of(f[s]);
        ck_assert_int_eq(scbf_routeset_set(rs, s, NULL, m[s]), SCBF_OK);
    }
    check_against_oracle(rs, m, SLOTS, tu_scaled(SLOTS * 1000, 20000));

    for (uint32_t s = 0; s < SLOTS; s++) ck_assert_int_eq(scbf_routeset_clear(rs, s), SCBF_OK);
    scbf_routeset_stats_t st;
    ck_assert_int_eq(scbf_routeset_stats(rs, &st), SCBF_OK);
    ck_assert_uint_eq(st.slots, 0);
    ck_assert_uint_eq(st.lanes, 0);
    ck_assert_uint_eq(st.pages, 0); /* empty pages are freed */

    scbf_member_free(stranger);
    sscbf_free(other);
    for (uint32_t s = 0; s < SLOTS; s++) {
        scbf_member_free(m[s]);
        sscbf_free(f[s]);
    }
    scbf_routeset_free(rs);
}
END_TEST

START_TEST(bad_arguments) {
    scbf_routeset_t *rs;
    ck_assert_int_eq(scbf_routeset_new(NULL), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_new(&rs), SCBF_OK);
    sscbf_t *f = slot_filter(0, 10);
    scbf_member_t *m = member_of(f);
    uint64_t out[2];
    ck_assert_int_eq(scbf_routeset_set(rs, SCBF_ROUTESET_MAX_SLOTS, NULL, m), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_set(rs, 0, NULL, NULL), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_set(NULL, 0, NULL, m), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_clear(rs, SCBF_ROUTESET_MAX_SLOTS), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_set(rs, 200, NULL, m), SCBF_OK);
    ck_assert_uint_eq(scbf_routeset_slots(rs), 201);
    ck_assert_int_eq(scbf_routeset_query(rs, "k", 1, out, 2), SCBF_E_BUFFER_TOO_SMALL);
    ck_assert_int_eq(scbf_routeset_query(rs, NULL, 1, out, 2), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_query(rs, "k", 1, NULL, 2), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_routeset_stats(rs, NULL), SCBF_E_INVALID_ARG);
    scbf_member_free(m);
    sscbf_free(f);
    scbf_routeset_free(rs);
    scbf_routeset_free(NULL);
}
END_TEST

/* ---------- concurrency ---------- */

typedef struct {
    scbf_routeset_t *rs;
    volatile int stop;
    int misses;
    uint64_t queries;
} reader_t;

/* Keys 0..99 of slot 0 are in every bitmap the writer sets: always found. */
static void *reader(void *arg) {
    reader_t *r = arg;
    uint64_t out[4];
    uint8_t k[8];
    for (uint64_t i = 0; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++) {
        tu_key64(i % 100, k);
        if (scbf_routeset_query(r->rs, k, 8, out, 4) != SCBF_OK || !(out[0] & 1))
            __atomic_add_fetch(&r->misses, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&r->queries, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

START_TEST(queries_during_updates_keep_held_keys) {
    scbf_routeset_t *rs;
    ck_assert_int_eq(scbf_routeset_new(&rs), SCBF_OK);
    sscbf_t *f = filter(300, 11);
    add_keys(f, 0, 100);
    scbf_member_t *m = member_of(f);
    ck_assert_int_eq(scbf_routeset_set(rs, 0, NULL, m), SCBF_OK);
    reader_t r = {rs, 0, 0, 0};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, reader, &r), 0);
    uint64_t rounds = tu_scaled(400, 40);
    for (uint64_t i = 0; i < rounds; i++) {
        /* Other keys come and go (deltas), and now and then the filter grows (rewrite). */
        add_keys(f, 1000 + i * 10, 1000 + i * 10 + 10);
        scbf_member_t *next = member_of(f);
        ck_assert_int_eq(scbf_routeset_set(rs, 0, i % 7 ? m : NULL, next), SCBF_OK);
        scbf_member_free(m);
        m = next;
        ck_assert_int_eq(scbf_routeset_set(rs, 1 + (uint32_t)(i % 100), NULL, m), SCBF_OK);
    }
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    ck_assert_int_eq(r.misses, 0);
    scbf_member_free(m);
    sscbf_free(f);
    scbf_routeset_free(rs);
}
END_TEST

int main(void) {
    Suite *s = suite_create("routeset");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, answers_as_each_bitmap);
    tcase_add_test(tc, wrong_prev_grown_filters_and_clears);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("concurrency");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, queries_during_updates_keep_held_keys);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
