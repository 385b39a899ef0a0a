/* Concurrency: several threads on one SCBF / scalable SCBF, each checking its
 * own keys against its own exact model while the others add and remove,
 * while snapshots, merges, clears, growth and compaction run alongside.
 * Built and run under ThreadSanitizer by scripts/test.sh (ctest -R concurrency).
 * Threads never call ck_assert (it longjmps); they count failures and the
 * test thread asserts the counts are zero. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/scbf.h"
#include "scbf/sscbf.h"
#include "testutil.h"

#define THREADS         2
#define KEYS_PER_THREAD 20000

typedef struct {
    scbf_t *f;
    sscbf_t *s;
    uint32_t id;
    uint64_t ops;
    _Atomic int *stop; /* optional: run until set instead of `ops` */
    uint64_t failures; /* false negatives and unexpected codes */
    uint32_t cnt[KEYS_PER_THREAD];
} worker_t;

static void key_of(uint32_t thread, uint32_t i, uint8_t out[8]) {
    tu_key64(((uint64_t)thread << 32) | i, out);
}

static int w_add(worker_t *w, const uint8_t *k) {
    return w->f ? scbf_add(w->f, k, 8) : sscbf_add(w->s, k, 8);
}
static int w_has(worker_t *w, const uint8_t *k) {
    return w->f ? scbf_contains(w->f, k, 8) : sscbf_contains(w->s, k, 8);
}
static int w_rm(worker_t *w, const uint8_t *k) {
    return w->f ? scbf_remove(w->f, k, 8) : sscbf_remove(w->s, k, 8);
}

/* Mixed single and batch operations on this thread's keys only: whatever the
 * other threads do, a key of ours with a positive count must test positive. */
static void *worker(void *arg) {
    worker_t *w = arg;
    tu_rng r = {0x1000 + w->id};
    uint8_t k[8];
    uint8_t data[32 * 8], res[32];
    uint32_t offs[33], ids[32];
    for (uint64_t op = 0; w->stop ? !atomic_load(w->stop) : op < w->ops;) {
        uint32_t i = (uint32_t)tu_below(&r, KEYS_PER_THREAD);
        uint32_t dice = (uint32_t)tu_below(&r, 10);
        key_of(w->id, i, k);
        if (dice < 4) {
            if (w_add(w, k) != SCBF_OK) w->failures++;
            w->cnt[i]++;
            op++;
        } else if (dice < 6) {
            if (w->cnt[i]) {
                if (w_rm(w, k) != SCBF_OK) w->failures++;
                w->cnt[i]--;
            }
            op++;
        } else if (dice < 8) {
            if (w->cnt[i] && w_has(w, k) != 1) w->failures++;
            op++;
        } else {
            /* A batch: adds of random keys, then a contains over them. */
            size_t n = 1 + tu_below(&r, 32);
            for (size_t j = 0; j < n; j++) {
                ids[j] = (uint32_t)tu_below(&r, KEYS_PER_THREAD);
                key_of(w->id, ids[j], data + 8 * j);
                offs[j] = (uint32_t)(8 * j);
            }
            offs[n] = (uint32_t)(8 * n);
            int rc =
                w->f ? scbf_add_batch(w->f, data, offs, n) : sscbf_add_batch(w->s, data, offs, n);
            if (rc) w->failures++;
            for (size_t j = 0; j < n; j++) w->cnt[ids[j]]++;
            rc = w->f ? scbf_contains_batch(w->f, data, offs, n, res)
                      : sscbf_contains_batch(w->s, data, offs, n, res);
            if (rc) w->failures++;
            for (size_t j = 0; j < n; j++)
                if (res[j] != 1) w->failures++;
            op += 2 * n;
        }
    }
    return NULL;
}

static uint64_t final_check(worker_t *w) {
    uint64_t bad = 0;
    uint8_t k[8];
    for (uint32_t i = 0; i < KEYS_PER_THREAD; i++) {
        key_of(w->id, i, k);
        if (w->cnt[i] && w_has(w, k) != 1) bad++;
    }
    return bad;
}

static void run_workers(scbf_t *f, sscbf_t *s, uint64_t ops, _Atomic int *stop, worker_t **ws,
                        pthread_t *th) {
    for (uint32_t t = 0; t < THREADS; t++) {
        ws[t] = calloc(1, sizeof *ws[t]);
        ws[t]->f = f;
        ws[t]->s = s;
        ws[t]->id = t;
        ws[t]->ops = ops;
        ws[t]->stop = stop;
        ck_assert_int_eq(pthread_create(&th[t], NULL, worker, ws[t]), 0);
    }
}

static void join_and_check(worker_t **ws, pthread_t *th) {
    for (uint32_t t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        ck_assert_uint_eq(ws[t]->failures, 0);
        ck_assert_uint_eq(final_check(ws[t]), 0);
        free(ws[t]);
    }
}

/* The incrementally maintained non-zero count (scbf_fill) must equal a
 * recount of the words once the threads are done, in the filter and in its
 * snapshot-decoded copy. */
static void assert_counts_exact(const scbf_t *f) {
    size_t len = scbf_snapshot_size(f), w;
    uint8_t *buf = malloc(len);
    ck_assert_int_eq(scbf_snapshot_write(f, buf, len, &w), SCBF_OK);
    scbf_t *g;
    ck_assert_int_eq(scbf_snapshot_read(buf, len, &g), SCBF_OK);
    scbf_stats_t a, b;
    scbf_stats(f, &a);
    scbf_stats(g, &b);
    ck_assert_uint_eq(a.nonzero, b.nonzero);
    ck_assert_uint_eq(a.saturated, b.saturated);
    ck_assert_double_eq(scbf_fill(f), (double)a.nonzero / (double)a.positions);
    ck_assert_double_eq(scbf_fill(g), (double)b.nonzero / (double)b.positions);
    scbf_free(g);
    free(buf);
}

static scbf_t *make_scbf(uint64_t cap) {
    scbf_params_t p;
    scbf_t *f;
    ck_assert_int_eq(scbf_params_from_capacity(cap, 0.01, &p), SCBF_OK);
    ck_assert_int_eq(scbf_create(&p, &f), SCBF_OK);
    return f;
}

START_TEST(concurrency_scbf_mixed) {
    scbf_t *f = make_scbf(THREADS * KEYS_PER_THREAD);
    worker_t *ws[THREADS];
    pthread_t th[THREADS];
    run_workers(f, NULL, tu_scaled(600000, 5000), NULL, ws, th);
    join_and_check(ws, th);
    assert_counts_exact(f);
    scbf_free(f);
}
END_TEST

/* Snapshots and merges while workers run; snapshots must always decode. */
START_TEST(concurrency_scbf_snapshot_merge) {
    scbf_t *f = make_scbf(THREADS * KEYS_PER_THREAD), *side = make_scbf(THREADS * KEYS_PER_THREAD);
    _Atomic int stop = 0;
    worker_t *ws[THREADS];
    pthread_t th[THREADS];
    uint8_t k[8];
    for (uint32_t i = 0; i < 2000; i++) {
        tu_key64(UINT64_C(0xfeed00000000) + i, k);
        scbf_add(side, k, 8);
    }
    run_workers(f, NULL, 0, &stop, ws, th);
    size_t len = scbf_snapshot_size(f), w;
    uint8_t *buf = malloc(len);
    int rounds = (int)tu_scaled(40, 4);
    for (int i = 0; i < rounds; i++) {
        ck_assert_int_eq(scbf_snapshot_write(f, buf, len, &w), SCBF_OK);
        scbf_t *g;
        ck_assert_int_eq(scbf_snapshot_read(buf, w, &g), SCBF_OK);
        scbf_free(g);
        if (i % 4 == 0) ck_assert_int_eq(scbf_merge(f, side), SCBF_OK);
        scbf_stats_t st;
        ck_assert_int_eq(scbf_stats(f, &st), SCBF_OK);
    }
    atomic_store(&stop, 1);
    join_and_check(ws, th);
    for (uint32_t i = 0; i < 2000; i++) {
        tu_key64(UINT64_C(0xfeed00000000) + i, k);
        ck_assert_int_eq(scbf_contains(f, k, 8), 1);
    }
    assert_counts_exact(f);
    free(buf);
    scbf_free(side);
    scbf_free(f);
}
END_TEST

/* Clear racing adds: afterwards the fill counts still equal the counters. */
static void *adder(void *arg) {
    scbf_t *f = arg;
    uint8_t k[8];
    for (uint64_t i = 0; i < 200000; i++) {
        tu_key64(i * 7919, k);
        scbf_add(f, k, 8);
        if (i % 3 == 0) scbf_contains(f, k, 8);
    }
    return NULL;
}

START_TEST(concurrency_scbf_clear_counts) {
    scbf_t *f = make_scbf(50000);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) ck_assert_int_eq(pthread_create(&th[t], NULL, adder, f), 0);
    for (int i = 0; i < 20; i++) scbf_clear(f);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    assert_counts_exact(f);
    scbf_clear(f);
    scbf_stats_t st;
    scbf_stats(f, &st);
    ck_assert_uint_eq(st.nonzero, 0);
    scbf_free(f);
}
END_TEST

START_TEST(concurrency_sscbf_growth) {
    sscbf_config_t c;
    sscbf_t *s;
    sscbf_config_default(&c, 1000, 0.01);
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    worker_t *ws[THREADS];
    pthread_t th[THREADS];
    run_workers(NULL, s, tu_scaled(600000, 5000), NULL, ws, th);
    join_and_check(ws, th);
    sscbf_stats_t st;
    sscbf_stats(s, &st);
    ck_assert_uint_ge(st.filters, 3);
    sscbf_free(s);
}
END_TEST

/* Compaction while a writer keeps adding and a reader keeps checking. The
 * writer follows the compaction contract of sscbf.h: a key becomes visible
 * to the key source (`visible`) before it is added, and the source reads its
 * end on its first call, so every key is either produced by the source or
 * added after the compaction began (then the shadow filter keeps it). */
typedef struct {
    sscbf_t *s;
    uint64_t total;
    _Atomic uint64_t visible;   /* keys [0, visible) are in the source of truth */
    _Atomic uint64_t published; /* keys [0, published) are fully added */
    _Atomic int stop;
    uint64_t failures;
} compact_ctx_t;

static void *compact_writer(void *arg) {
    compact_ctx_t *c = arg;
    uint8_t k[8];
    for (uint64_t i = 0; i < c->total; i++) {
        tu_key64(i, k);
        atomic_store(&c->visible, i + 1);
        if (sscbf_add(c->s, k, 8) != SCBF_OK) c->failures++;
        atomic_store_explicit(&c->published, i + 1, memory_order_release);
    }
    atomic_store(&c->stop, 1);
    return NULL;
}

static void *compact_reader(void *arg) {
    compact_ctx_t *c = arg;
    tu_rng r = {77};
    uint8_t k[8];
    while (!atomic_load(&c->stop)) {
        uint64_t n = atomic_load_explicit(&c->published, memory_order_acquire);
        if (!n) continue;
        tu_key64(tu_below(&r, n), k);
        if (sscbf_contains(c->s, k, 8) != 1) c->failures++;
    }
    return NULL;
}

typedef struct {
    compact_ctx_t *c;
    uint64_t next, end;
    int started;
    uint8_t key[8];
} range_source_t;

static int range_next(void *ctx, const uint8_t **key, size_t *len) {
    range_source_t *r = ctx;
    if (!r->started) {
        r->end = atomic_load(&r->c->visible);
        r->started = 1;
    }
    if (r->next == r->end) return 0;
    tu_key64(r->next++, r->key);
    *key = r->key;
    *len = 8;
    return 1;
}

START_TEST(concurrency_sscbf_compaction) {
    sscbf_config_t cfg;
    compact_ctx_t c;
    memset(&c, 0, sizeof c);
    sscbf_config_default(&cfg, 2000, 0.01);
    ck_assert_int_eq(sscbf_create(&cfg, &c.s), SCBF_OK);
    c.total = tu_scaled(300000, 20000);
    pthread_t w, rd;
    ck_assert_int_eq(pthread_create(&w, NULL, compact_writer, &c), 0);
    ck_assert_int_eq(pthread_create(&rd, NULL, compact_reader, &c), 0);
    int compactions = 0;
    while (!atomic_load(&c.stop)) {
        range_source_t src = {&c, 0, 0, 0, {0}};
        ck_assert_int_eq(sscbf_compact(c.s, atomic_load(&c.visible), range_next, &src), SCBF_OK);
        compactions++;
    }
    pthread_join(w, NULL);
    pthread_join(rd, NULL);
    ck_assert_uint_eq(c.failures, 0);
    ck_assert_int_gt(compactions, 0);
    uint8_t k[8];
    for (uint64_t i = 0; i < c.total; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(sscbf_contains(c.s, k, 8), 1);
    }
    sscbf_free(c.s);
}
END_TEST

/* Merges in both directions at once must not deadlock. */
typedef struct {
    sscbf_t *dst, *src;
    int rounds;
    int failures;
} merge_ctx_t;

static void *merger(void *arg) {
    merge_ctx_t *m = arg;
    for (int i = 0; i < m->rounds; i++)
        if (sscbf_merge(m->dst, m->src) != SCBF_OK) m->failures++;
    return NULL;
}

START_TEST(concurrency_sscbf_cross_merge) {
    sscbf_config_t c;
    sscbf_t *a, *b;
    sscbf_config_default(&c, 1000, 0.01);
    ck_assert_int_eq(sscbf_create(&c, &a), SCBF_OK);
    ck_assert_int_eq(sscbf_create(&c, &b), SCBF_OK);
    uint8_t k[8];
    for (uint64_t i = 0; i < 500; i++) {
        tu_key64(i, k);
        sscbf_add(a, k, 8);
        tu_key64(i + 100000, k);
        sscbf_add(b, k, 8);
    }
    int rounds = (int)tu_scaled(200, 20);
    merge_ctx_t x = {a, b, rounds, 0}, y = {b, a, rounds, 0};
    pthread_t t1, t2;
    ck_assert_int_eq(pthread_create(&t1, NULL, merger, &x), 0);
    ck_assert_int_eq(pthread_create(&t2, NULL, merger, &y), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    ck_assert_int_eq(x.failures + y.failures, 0);
    for (uint64_t i = 0; i < 500; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(sscbf_contains(b, k, 8), 1);
        tu_key64(i + 100000, k);
        ck_assert_int_eq(sscbf_contains(a, k, 8), 1);
    }
    sscbf_free(a);
    sscbf_free(b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("concurrency");
    TCase *tc = tcase_create("concurrency");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, concurrency_scbf_mixed);
    tcase_add_test(tc, concurrency_scbf_snapshot_merge);
    tcase_add_test(tc, concurrency_scbf_clear_counts);
    tcase_add_test(tc, concurrency_sscbf_growth);
    tcase_add_test(tc, concurrency_sscbf_compaction);
    tcase_add_test(tc, concurrency_sscbf_cross_merge);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
