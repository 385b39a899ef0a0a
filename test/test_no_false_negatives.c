/* No false negatives, ever: long randomized runs of mixed operations against
 * an exact model (true count per key). Multiset adds, removes of present
 * keys, hot keys added hundreds of times (4-bit counters saturate), merges,
 * snapshot round-trips, scalable growth, compaction, single and batch forms.
 * At SCBF_TEST_SCALE=1 this file runs 9.5 million operations;
 * test_concurrency.c adds the multi-threaded runs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/scbf.h"
#include "scbf/sscbf.h"
#include "testutil.h"

/* ---------- exact model: counts plus a sampleable list of present keys ---------- */

typedef struct {
    uint32_t universe;
    uint32_t *cnt, *where, *present;
    uint32_t npresent;
    uint64_t total;
} model_t;

static void model_init(model_t *m, uint32_t universe) {
    m->universe = universe;
    m->cnt = calloc(universe, sizeof *m->cnt);
    m->where = calloc(universe, sizeof *m->where);
    m->present = calloc(universe, sizeof *m->present);
    m->npresent = 0;
    m->total = 0;
}
static void model_free(model_t *m) {
    free(m->cnt);
    free(m->where);
    free(m->present);
}
static void model_add(model_t *m, uint32_t id) {
    if (m->cnt[id]++ == 0) {
        m->where[id] = m->npresent;
        m->present[m->npresent++] = id;
    }
    m->total++;
}
static void model_rm(model_t *m, uint32_t id) {
    ck_assert_uint_gt(m->cnt[id], 0);
    if (--m->cnt[id] == 0) {
        uint32_t last = m->present[--m->npresent];
        m->present[m->where[id]] = last;
        m->where[last] = m->where[id];
    }
    m->total--;
}
static uint32_t model_pick(const model_t *m, tu_rng *r) {
    return m->present[tu_below(r, m->npresent)];
}

/* ---------- the filter under test, either kind ---------- */

typedef struct {
    scbf_t *f;
    sscbf_t *s;
    uint64_t salt; /* keys are 8 bytes: id ^ salt */
} target_t;

static void key_of(const target_t *t, uint32_t id, uint8_t out[8]) { tu_key64(id ^ t->salt, out); }

static void t_add(target_t *t, uint32_t id) {
    uint8_t k[8];
    key_of(t, id, k);
    ck_assert_int_eq(t->f ? scbf_add(t->f, k, 8) : sscbf_add(t->s, k, 8), SCBF_OK);
}
static int t_has(const target_t *t, uint32_t id) {
    uint8_t k[8];
    key_of(t, id, k);
    return t->f ? scbf_contains(t->f, k, 8) : sscbf_contains(t->s, k, 8);
}
static int t_rm(target_t *t, uint32_t id) {
    uint8_t k[8];
    key_of(t, id, k);
    return t->f ? scbf_remove(t->f, k, 8) : sscbf_remove(t->s, k, 8);
}

/* Batch of ids -> packed keys. */
typedef struct {
    uint8_t data[64 * 8];
    uint32_t offs[65];
    uint8_t res[64];
    uint32_t ids[64];
    size_t n;
} batch_t;

static void batch_pack(const target_t *t, batch_t *b) {
    for (size_t i = 0; i < b->n; i++) {
        key_of(t, b->ids[i], b->data + 8 * i);
        b->offs[i] = (uint32_t)(8 * i);
    }
    b->offs[b->n] = (uint32_t)(8 * b->n);
}

static void check_all(const target_t *t, const model_t *m) {
    for (uint32_t i = 0; i < m->npresent; i++)
        ck_assert_msg(t_has(t, m->present[i]) == 1, "false negative for id %u (count %u)",
                      m->present[i], m->cnt[m->present[i]]);
}

static void snapshot_roundtrip(target_t *t) {
    size_t len = t->f ? scbf_snapshot_size(t->f) : sscbf_snapshot_size(t->s), w;
    uint8_t *buf = malloc(len);
    if (t->f) {
        scbf_t *g;
        ck_assert_int_eq(scbf_snapshot_write(t->f, buf, len, &w), SCBF_OK);
        ck_assert_int_eq(scbf_snapshot_read(buf, w, &g), SCBF_OK);
        scbf_free(t->f);
        t->f = g;
    } else {
        sscbf_t *g;
        ck_assert_int_eq(sscbf_snapshot_write(t->s, buf, len, &w), SCBF_OK);
        ck_assert_int_eq(sscbf_snapshot_read(buf, w, &g), SCBF_OK);
        sscbf_free(t->s);
        t->s = g;
    }
    free(buf);
}

/* Merge in a second filter of the same shape holding fresh keys. */
static void merge_fresh(target_t *t, model_t *m, tu_rng *r) {
    target_t other = {NULL, NULL, t->salt};
    if (t->f) {
        ck_assert_int_eq(scbf_create(scbf_params(t->f), &other.f), SCBF_OK);
    } else {
        /* Same sub-filter shapes (a compaction may have resized the oldest):
         * a copy of the target, emptied. */
        size_t len = sscbf_snapshot_size(t->s), w;
        uint8_t *buf = malloc(len);
        ck_assert_int_eq(sscbf_snapshot_write(t->s, buf, len, &w), SCBF_OK);
        ck_assert_int_eq(sscbf_snapshot_read(buf, w, &other.s), SCBF_OK);
        free(buf);
        sscbf_clear(other.s);
    }
    for (int i = 0; i < 500; i++) {
        uint32_t id = (uint32_t)tu_below(r, m->universe);
        t_add(&other, id);
        model_add(m, id);
    }
    ck_assert_int_eq(t->f ? scbf_merge(t->f, other.f) : sscbf_merge(t->s, other.s), SCBF_OK);
    scbf_free(other.f);
    sscbf_free(other.s);
}

typedef struct {
    const model_t *m;
    const target_t *t;
    uint32_t id, left, emitted;
    uint8_t key[8];
} model_source_t;

/* Yields every present key as many times as its count. */
static int model_next(void *ctx, const uint8_t **key, size_t *len) {
    model_source_t *src = ctx;
    while (src->left == 0) {
        if (src->emitted == src->m->npresent) return 0;
        src->id = src->m->present[src->emitted++];
        src->left = src->m->cnt[src->id];
    }
    src->left--;
    key_of(src->t, src->id, src->key);
    *key = src->key;
    *len = 8;
    return 1;
}

/* The workload. `target_total` is the population (sum of counts) the mix
 * steers toward, so fill stays meaningful instead of drifting to 1. */
typedef struct {
    uint64_t ops;
    uint32_t universe;
    uint64_t target_total; /* final population; ramps up from 1/20 of it */
    int batch;
    uint64_t seed;
} workload_t;

static void run(target_t *t, const workload_t *w) {
    model_t m;
    tu_rng r = {w->seed};
    model_init(&m, w->universe);
    const uint64_t period = w->ops / 12 + 1;
    uint64_t saturating_adds = 0;
    batch_t b;
    for (uint64_t op = 0; op < w->ops;) {
        uint64_t want = w->target_total / 20 + w->target_total * op / w->ops;
        uint32_t dice = (uint32_t)tu_below(&r, 100);
        uint32_t add_share = m.total < want ? 55 : 25;
        if (dice < 5) {
            /* Hot keys: 16 ids that collect hundreds of adds each (in batch
             * mode 32 copies of one key per batch). */
            uint32_t id = (uint32_t)tu_below(&r, 16);
            if (w->batch) {
                b.n = 32;
                for (size_t i = 0; i < b.n; i++) b.ids[i] = id;
                batch_pack(t, &b);
                ck_assert_int_eq(t->f ? scbf_add_batch(t->f, b.data, b.offs, b.n)
                                      : sscbf_add_batch(t->s, b.data, b.offs, b.n),
                                 SCBF_OK);
            } else {
                b.n = 1;
                t_add(t, id);
            }
            for (size_t i = 0; i < b.n; i++) model_add(&m, id);
            saturating_adds += b.n;
            op += b.n;
        } else if (dice < add_share) {
            if (w->batch) {
                b.n = 1 + tu_below(&r, 64);
                for (size_t i = 0; i < b.n; i++) b.ids[i] = (uint32_t)tu_below(&r, w->universe);
                batch_pack(t, &b);
                ck_assert_int_eq(t->f ? scbf_add_batch(t->f, b.data, b.offs, b.n)
                                      : sscbf_add_batch(t->s, b.data, b.offs, b.n),
                                 SCBF_OK);
                for (size_t i = 0; i < b.n; i++) model_add(&m, b.ids[i]);
                op += b.n;
            } else {
                uint32_t id = (uint32_t)tu_below(&r, w->universe);
                t_add(t, id);
                model_add(&m, id);
                op++;
            }
        } else if (dice < 80) {
            if (!m.npresent) continue;
            if (w->batch) {
                /* Removes of present keys; the model is updated as ids are
                 * picked so a batch never removes more copies than exist. */
                b.n = 0;
                size_t want_n = 1 + tu_below(&r, 64);
                while (b.n < want_n && m.npresent) {
                    uint32_t id = model_pick(&m, &r);
                    b.ids[b.n++] = id;
                    model_rm(&m, id);
                }
                batch_pack(t, &b);
                ck_assert_int_eq(t->f ? scbf_remove_batch(t->f, b.data, b.offs, b.n, b.res)
                                      : sscbf_remove_batch(t->s, b.data, b.offs, b.n, b.res),
                                 SCBF_OK);
                for (size_t i = 0; i < b.n; i++)
                    ck_assert_msg(b.res[i] == 1, "batch remove missed id %u", b.ids[i]);
                op += b.n;
            } else {
                uint32_t id = model_pick(&m, &r);
                ck_assert_int_eq(t_rm(t, id), SCBF_OK);
                model_rm(&m, id);
                op++;
            }
        } else {
            if (!m.npresent) continue;
            if (w->batch) {
                b.n = 1 + tu_below(&r, 64);
                for (size_t i = 0; i < b.n; i++) b.ids[i] = model_pick(&m, &r);
                batch_pack(t, &b);
                ck_assert_int_eq(t->f ? scbf_contains_batch(t->f, b.data, b.offs, b.n, b.res)
                                      : sscbf_contains_batch(t->s, b.data, b.offs, b.n, b.res),
                                 SCBF_OK);
                for (size_t i = 0; i < b.n; i++) ck_assert_int_eq(b.res[i], 1);
                op += b.n;
            } else {
                ck_assert_int_eq(t_has(t, model_pick(&m, &r)), 1);
                op++;
            }
        }
        if (op / period != (op - 1) / period || op >= w->ops) {
            check_all(t, &m);
            switch ((op / period) % 3) {
            case 0: snapshot_roundtrip(t); break;
            case 1: merge_fresh(t, &m, &r); break;
            case 2:
                if (t->s) {
                    model_source_t src = {&m, t, 0, 0, 0, {0}};
                    ck_assert_int_eq(sscbf_compact(t->s, m.total, model_next, &src), SCBF_OK);
                }
                break;
            }
            check_all(t, &m);
        }
    }
    ck_assert_uint_gt(saturating_adds, 16 * 16); /* enough to saturate 4-bit */
    /* Sensitivity: the filter still says "no" to most absent keys, so the
     * checks above were not vacuous. */
    uint32_t absent = 0, positive = 0;
    for (uint32_t id = 0; id < w->universe && absent < 20000; id++)
        if (!m.cnt[id]) {
            absent++;
            positive += t_has(t, id) == 1;
        }
    ck_assert_uint_gt(absent, 1000);
    ck_assert_msg(positive < absent / 2, "%u of %u absent keys positive", positive, absent);
    model_free(&m);
}

static target_t make_scbf(uint64_t capacity, uint32_t bits) {
    scbf_params_t p;
    target_t t = {NULL, NULL, UINT64_C(0x5eed5eed00000000)};
    ck_assert_int_eq(scbf_params_from_capacity(capacity, 0.01, &p), SCBF_OK);
    p.counter_bits = bits;
    ck_assert_int_eq(scbf_create(&p, &t.f), SCBF_OK);
    return t;
}

static target_t make_sscbf(uint64_t capacity, uint32_t bits) {
    sscbf_config_t c;
    target_t t = {NULL, NULL, UINT64_C(0xabcdef0000000000)};
    sscbf_config_default(&c, capacity, 0.01);
    c.counter_bits = bits;
    ck_assert_int_eq(sscbf_create(&c, &t.s), SCBF_OK);
    return t;
}

START_TEST(scbf_single_ops_4bit) {
    target_t t = make_scbf(60000, 4);
    workload_t w = {tu_scaled(3000000, 20000), 200000, 60000, 0, 1};
    run(&t, &w);
    scbf_stats_t st;
    scbf_stats(t.f, &st);
    ck_assert_uint_ge(st.saturated, st.k); /* the hot keys did saturate */
    scbf_free(t.f);
}
END_TEST

START_TEST(scbf_batch_ops_8bit) {
    target_t t = make_scbf(60000, 8);
    workload_t w = {tu_scaled(2000000, 20000), 200000, 60000, 1, 2};
    run(&t, &w);
    scbf_free(t.f);
}
END_TEST

START_TEST(sscbf_single_ops_growth) {
    target_t t = make_sscbf(2000, 4);
    workload_t w = {tu_scaled(2500000, 20000), 200000, 50000, 0, 3};
    run(&t, &w);
    sscbf_stats_t st;
    sscbf_stats(t.s, &st);
    ck_assert_uint_ge(st.filters, 1);
    sscbf_free(t.s);
}
END_TEST

START_TEST(sscbf_batch_ops_growth) {
    target_t t = make_sscbf(2000, 4);
    workload_t w = {tu_scaled(2000000, 20000), 200000, 50000, 1, 4};
    run(&t, &w);
    sscbf_free(t.s);
}
END_TEST

/* Growth without compaction in between: removes across many sub-filters
 * exercise the residue rule. */
START_TEST(sscbf_growth_no_compaction) {
    target_t t = make_sscbf(500, 4);
    model_t m;
    tu_rng r = {5};
    model_init(&m, 100000);
    uint64_t ops = tu_scaled(400000, 20000);
    for (uint64_t op = 0; op < ops; op++) {
        uint32_t id = (uint32_t)tu_below(&r, 100000);
        if (tu_below(&r, 3) == 0 && m.npresent) {
            uint32_t v = model_pick(&m, &r);
            ck_assert_int_eq(t_rm(&t, v), SCBF_OK);
            model_rm(&m, v);
        } else {
            t_add(&t, id);
            model_add(&m, id);
        }
    }
    check_all(&t, &m);
    sscbf_stats_t st;
    sscbf_stats(t.s, &st);
    ck_assert_uint_ge(st.filters, 4);
    ck_assert_uint_gt(st.residue, 0);
    model_free(&m);
    sscbf_free(t.s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("no_false_negatives");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, scbf_single_ops_4bit);
    tcase_add_test(tc, scbf_batch_ops_8bit);
    tcase_add_test(tc, sscbf_single_ops_growth);
    tcase_add_test(tc, sscbf_batch_ops_growth);
    tcase_add_test(tc, sscbf_growth_no_compaction);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
