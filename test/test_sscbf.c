/* Scalable SCBF: growth and tightening, the remove rule (residue), compaction,
 * merge, clear, batch forms and the measured compound false-positive rate. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/sscbf.h"
#include "testutil.h"

static sscbf_t *make(uint64_t cap, double fpr) {
    sscbf_config_t c;
    sscbf_t *s = NULL;
    sscbf_config_default(&c, cap, fpr);
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    return s;
}

static int add64(sscbf_t *s, uint64_t v) {
    uint8_t k[8];
    tu_key64(v, k);
    return sscbf_add(s, k, 8);
}
static int has64(const sscbf_t *s, uint64_t v) {
    uint8_t k[8];
    tu_key64(v, k);
    return sscbf_contains(s, k, 8);
}
static int rm64(sscbf_t *s, uint64_t v) {
    uint8_t k[8];
    tu_key64(v, k);
    return sscbf_remove(s, k, 8);
}
/* Called after every add in some tests, so not via sscbf_stats (which reads
 * every counter). */
static uint32_t nfilters(const sscbf_t *s) {
    uint32_t n = 0;
    while (sscbf_filter(s, n)) n++;
    return n;
}

START_TEST(config_validation) {
    sscbf_config_t c;
    sscbf_t *s = NULL;
    sscbf_config_default(&c, 1000, 0.01);
    ck_assert_double_eq(c.tightening, 0.5);
    ck_assert_uint_eq(c.growth, 2);
    ck_assert_uint_eq(c.counter_bits, 4);
    ck_assert_uint_eq(c.max_filters, 32);
    ck_assert_uint_eq(c.residue_threshold, 125);
    c.tightening = 1.0;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    c.tightening = 0.5;
    c.growth = 0;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    c.growth = 2;
    c.max_filters = 0;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    c.max_filters = 1000;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    c.max_filters = 32;
    c.initial_capacity = 0;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    c.initial_capacity = 1000;
    c.counter_bits = 6;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_E_INVALID_ARG);
    ck_assert_ptr_null(s);
    c.counter_bits = 8;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    ck_assert_uint_eq(scbf_params(sscbf_filter(s, 0))->counter_bits, 8);
    ck_assert_ptr_null(sscbf_filter(s, 1));
    sscbf_free(s);
    sscbf_free(NULL);
}
END_TEST

/* Growth is decided on the newest sub-filter's mean fill (scbf_fill, O(1)).
 * Every sub-filter but the newest must have stopped taking keys as soon as
 * that reached 1/2: single adds check after every key, batches after every
 * chunk of at most capacity/64 keys, and each key moves the mean by at most
 * k/M = 1/m. Its highest slice fill stays within a few standard deviations
 * (0.28/sqrt(m) at fill 1/2) of the mean, and its false-positive rate (the
 * product of the slice fills, at most mean^k) within its design rate. */
static void check_full_subfilters(const sscbf_t *s, int batch) {
    const uint32_t n = nfilters(s);
    ck_assert_uint_ge(n, 2);
    for (uint32_t i = 0; i + 1 < n; i++) {
        const scbf_t *sub = sscbf_filter(s, i);
        const scbf_params_t *p = scbf_params(sub);
        const double fill = scbf_fill(sub), m = (double)p->m;
        const uint64_t step = batch && p->capacity / 64 > 1 ? p->capacity / 64 : 1;
        scbf_stats_t fs;
        scbf_stats(sub, &fs);
        ck_assert_double_eq(fill, (double)fs.nonzero / (double)fs.positions);
        ck_assert_double_ge(fill, 0.5);
        ck_assert_double_lt(fill, 0.5 + (double)step / m);
        ck_assert_double_lt(fs.max_fill, fill + 6.0 * 0.28 / sqrt(m));
        ck_assert_double_le(fs.estimated_fpr, pow(fill, p->k) * (1.0 + 1e-12));
        ck_assert_double_lt(fs.estimated_fpr, p->fpr);
    }
}

/* A nearly empty filter's estimated rate is tiny but not zero: monitoring
 * must tell "almost no keys" from "no keys". */
START_TEST(tiny_estimated_fpr_is_not_rounded_to_zero) {
    sscbf_t *s = make(100000, 0.001);
    sscbf_stats_t st;
    ck_assert_int_eq(sscbf_stats(s, &st), SCBF_OK);
    ck_assert(st.estimated_fpr == 0.0);
    for (uint64_t i = 0; i < 3; i++) ck_assert_int_eq(add64(s, i), SCBF_OK);
    ck_assert_int_eq(sscbf_stats(s, &st), SCBF_OK);
    ck_assert_msg(st.estimated_fpr > 0.0 && st.estimated_fpr < 1e-20, "estimated_fpr=%g",
                  st.estimated_fpr);
    ck_assert(st.design_fpr > 0.0 && st.design_fpr <= 0.001);
    sscbf_free(s);
}
END_TEST

START_TEST(growth_and_tightening) {
    sscbf_t *s = make(1000, 0.01);
    for (uint64_t i = 0; i < 20000; i++) ck_assert_int_eq(add64(s, i), SCBF_OK);
    sscbf_stats_t st;
    sscbf_stats(s, &st);
    ck_assert_uint_ge(st.filters, 4);
    ck_assert_uint_eq(st.adds, 20000);
    double keep = 1.0;
    for (uint32_t i = 0; i < st.filters; i++) {
        const scbf_params_t *p = scbf_params(sscbf_filter(s, i));
        ck_assert_double_eq_tol(p->fpr, 0.005 * pow(0.5, i), 1e-15);
        ck_assert_uint_ge(p->capacity, 1000u << i);
        keep *= 1.0 - p->fpr;
    }
    check_full_subfilters(s, 0);
    ck_assert_double_eq_tol(st.design_fpr, 1.0 - keep, 1e-12);
    ck_assert_double_lt(st.design_fpr, 0.01);
    ck_assert_double_lt(st.newest_fill, 0.5);
    for (uint64_t i = 0; i < 20000; i++) ck_assert_int_eq(has64(s, i), 1);
    sscbf_free(s);
}
END_TEST

/* As growth_and_tightening, through the batch path. */
START_TEST(growth_at_half_fill_batch) {
    sscbf_t *s = make(1000, 0.01);
    enum { B = 1000 };
    uint8_t data[B * 8];
    uint32_t offs[B + 1];
    for (uint64_t base = 0; base < 20000; base += B) {
        for (uint32_t j = 0; j < B; j++) {
            tu_key64(base + j, data + 8 * j);
            offs[j] = 8 * j;
        }
        offs[B] = 8 * B;
        ck_assert_int_eq(sscbf_add_batch(s, data, offs, B), SCBF_OK);
    }
    ck_assert_uint_ge(nfilters(s), 4);
    check_full_subfilters(s, 1);
    for (uint64_t i = 0; i < 20000; i++) ck_assert_int_eq(has64(s, i), 1);
    sscbf_free(s);
}
END_TEST

/* A key never added that tests negative, for the not-found paths. */
static uint64_t absent_key(const sscbf_t *s, uint64_t from) {
    while (has64(s, from)) from++;
    return from;
}

START_TEST(remove_rule_and_residue) {
    sscbf_config_t c;
    sscbf_t *s;
    sscbf_config_default(&c, 500, 0.001);
    c.residue_threshold = 2;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    const uint64_t X = UINT64_C(1) << 40, Y = (UINT64_C(1) << 40) + 1;
    add64(s, X);
    add64(s, Y);
    for (uint64_t i = 0; nfilters(s) < 2; i++) add64(s, i);
    add64(s, Y);                           /* Y now has a copy in both sub-filters */
    ck_assert_int_eq(rm64(s, X), SCBF_OK); /* only in the oldest: decremented */
    ck_assert_int_eq(has64(s, X), 0);
    sscbf_stats_t st;
    sscbf_stats(s, &st);
    ck_assert_uint_eq(st.residue, 0);
    ck_assert_int_eq(rm64(s, Y), SCBF_OK); /* ambiguous: residue */
    sscbf_stats(s, &st);
    ck_assert_uint_eq(st.residue, 1);
    ck_assert_int_eq(has64(s, Y), 1);
    ck_assert_int_eq(sscbf_needs_compaction(s), 0);
    ck_assert_int_eq(rm64(s, Y), SCBF_OK);
    ck_assert_int_eq(rm64(s, Y), SCBF_OK);
    sscbf_stats(s, &st);
    ck_assert_uint_eq(st.residue, 3);
    ck_assert_uint_eq(st.removes, 4);
    ck_assert_int_eq(sscbf_needs_compaction(s), 1);
    ck_assert_int_eq(rm64(s, absent_key(s, UINT64_C(1) << 50)), SCBF_E_NOT_FOUND);
    sscbf_free(s);
}
END_TEST

START_TEST(needs_compaction_at_max_filters) {
    sscbf_config_t c;
    sscbf_t *s;
    sscbf_config_default(&c, 200, 0.01);
    c.max_filters = 3;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    for (uint64_t i = 0; i < 5000; i++) add64(s, i);
    ck_assert_uint_eq(nfilters(s), 3);
    ck_assert_int_eq(sscbf_needs_compaction(s), 1);
    for (uint64_t i = 0; i < 5000; i++) ck_assert_int_eq(has64(s, i), 1);
    sscbf_free(s);
}
END_TEST

typedef struct {
    const uint64_t *keys;
    size_t n, next;
    size_t fail_at; /* report an error at this index (SIZE_MAX: never) */
    uint8_t buf[8];
} source_t;

static int next_key(void *ctx, const uint8_t **key, size_t *len) {
    source_t *src = ctx;
    if (src->next == src->fail_at) return -1;
    if (src->next == src->n) return 0;
    tu_key64(src->keys[src->next++], src->buf);
    *key = src->buf;
    *len = 8;
    return 1;
}

START_TEST(compaction) {
    sscbf_t *s = make(1000, 0.01);
    enum { N = 6000 };
    uint64_t *live = malloc(N * sizeof *live);
    size_t nlive = 0;
    for (uint64_t i = 0; i < N; i++) add64(s, i);
    for (uint64_t i = 0; i < N; i++) {
        if (i % 3 == 0)
            ck_assert_int_eq(rm64(s, i), SCBF_OK);
        else
            live[nlive++] = i;
    }
    sscbf_stats_t before;
    sscbf_stats(s, &before);
    ck_assert_uint_ge(before.filters, 3);

    source_t bad = {live, nlive, 0, 100, {0}};
    ck_assert_int_eq(sscbf_compact(s, nlive, next_key, &bad), SCBF_E_ITER);
    sscbf_stats_t st;
    sscbf_stats(s, &st);
    ck_assert_uint_eq(st.filters, before.filters);
    ck_assert_uint_eq(st.residue, before.residue);

    source_t ok = {live, nlive, 0, SIZE_MAX, {0}};
    ck_assert_int_eq(sscbf_compact(s, nlive, next_key, &ok), SCBF_OK);
    sscbf_stats(s, &st);
    ck_assert_uint_eq(st.filters, 1);
    ck_assert_uint_eq(st.residue, 0);
    ck_assert_uint_eq(st.adds, nlive);
    ck_assert_uint_ge(scbf_params(sscbf_filter(s, 0))->capacity, nlive);
    ck_assert_double_lt(st.newest_fill, 0.5);
    for (size_t i = 0; i < nlive; i++) ck_assert_int_eq(has64(s, live[i]), 1);
    /* Removed keys are gone (up to false positives at the design rate). */
    int fp = 0;
    for (uint64_t i = 0; i < N; i += 3) fp += has64(s, i);
    ck_assert_int_lt(fp, 20);
    ck_assert_int_eq(sscbf_compact(s, 0, NULL, NULL), SCBF_E_INVALID_ARG);
    free(live);
    sscbf_free(s);
}
END_TEST

START_TEST(merge_grows_dst) {
    sscbf_t *a = make(500, 0.01), *b = make(500, 0.01), *c = make(500, 0.02);
    for (uint64_t i = 0; i < 300; i++) add64(a, i);
    for (uint64_t i = 1000; i < 5000; i++) add64(b, i);
    ck_assert_uint_eq(nfilters(a), 1);
    ck_assert_uint_ge(nfilters(b), 3);
    ck_assert_int_eq(sscbf_merge(a, c), SCBF_E_PARAM_MISMATCH);
    ck_assert_int_eq(sscbf_merge(a, a), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(sscbf_merge(a, b), SCBF_OK);
    ck_assert_uint_eq(nfilters(a), nfilters(b));
    for (uint64_t i = 0; i < 300; i++) ck_assert_int_eq(has64(a, i), 1);
    for (uint64_t i = 1000; i < 5000; i++) ck_assert_int_eq(has64(a, i), 1);
    sscbf_stats_t st;
    sscbf_stats(a, &st);
    ck_assert_uint_eq(st.adds, 300 + 4000);
    sscbf_clear(a);
    sscbf_stats(a, &st);
    ck_assert_uint_eq(st.filters, 1);
    ck_assert_uint_eq(st.adds, 0);
    ck_assert_double_eq(st.newest_fill, 0.0);
    for (uint64_t i = 0; i < 300; i++) ck_assert_int_eq(has64(a, i), 0);
    sscbf_free(a);
    sscbf_free(b);
    sscbf_free(c);
}
END_TEST

START_TEST(batch_forms) {
    enum { N = 5000 };
    sscbf_t *a = make(400, 0.01), *b = make(400, 0.01);
    uint8_t *data = malloc(N * 8), *res = malloc(N);
    uint32_t *offs = malloc((N + 1) * sizeof *offs);
    for (uint32_t i = 0; i < N; i++) {
        tu_key64(i, data + 8 * i);
        offs[i] = 8 * i;
    }
    offs[N] = 8 * N;
    ck_assert_int_eq(sscbf_add_batch(a, data, offs, N), SCBF_OK);
    for (uint32_t i = 0; i < N; i++) add64(b, i);
    sscbf_stats_t sa, sb;
    sscbf_stats(a, &sa);
    sscbf_stats(b, &sb);
    ck_assert_uint_ge(sa.filters, 4);
    ck_assert_uint_le(sa.filters, sb.filters + 1);
    ck_assert_uint_ge(sa.filters + 1, sb.filters);
    ck_assert_int_eq(sscbf_contains_batch(a, data, offs, N, res), SCBF_OK);
    for (uint32_t i = 0; i < N; i++) ck_assert_int_eq(res[i], 1);
    /* Probe fresh keys: batch and single answers agree. */
    for (uint32_t i = 0; i < N; i++) tu_key64(i + 1000000, data + 8 * i);
    ck_assert_int_eq(sscbf_contains_batch(a, data, offs, N, res), SCBF_OK);
    for (uint32_t i = 0; i < N; i++) ck_assert_int_eq(res[i], has64(a, i + 1000000));
    /* Remove the first half in a batch: all found, the rest still present. */
    for (uint32_t i = 0; i < N; i++) tu_key64(i, data + 8 * i);
    ck_assert_int_eq(sscbf_remove_batch(a, data, offs, N / 2, res), SCBF_OK);
    for (uint32_t i = 0; i < N / 2; i++) ck_assert_int_eq(res[i], 1);
    for (uint32_t i = N / 2; i < N; i++) ck_assert_int_eq(has64(a, i), 1);
    sscbf_stats(a, &sa);
    ck_assert_uint_eq(sa.removes, N / 2);
    free(data);
    free(res);
    free(offs);
    sscbf_free(a);
    sscbf_free(b);
}
END_TEST

/* Measured compound rate once `full` sub-filters have filled up (the list
 * has just grown to full + 1). With P a power of two and r = 1/2 each
 * sub-filter's rate at fill 1/2 is exactly P_i = 2^-k_i, so the measured rate
 * must match 1 - prod(1 - P_i) over the full ones within 15% (probe counts
 * as in test_scbf.c), and stay under the configured target. */
static void scalable_fpr_case(uint64_t cap, int log2p, uint32_t full) {
    const double target = ldexp(1.0, -log2p);
    sscbf_t *s = make(cap, target);
    uint64_t key = 0;
    while (nfilters(s) < full + 1) add64(s, key++);
    double keep = 1.0;
    for (uint32_t i = 0; i < full; i++) keep *= 1.0 - scbf_params(sscbf_filter(s, i))->fpr;
    const double design = 1.0 - keep;
    uint64_t probes = tu_scaled((uint64_t)(4000.0 / design), (uint64_t)(1000.0 / design));
    enum { B = 1024 };
    uint8_t data[B * 8], res[B];
    uint32_t offs[B + 1];
    uint64_t fp = 0, done = 0;
    for (; done < probes; done += B) {
        for (uint32_t j = 0; j < B; j++) {
            tu_key64((UINT64_C(1) << 62) | (done + j), data + 8 * j);
            offs[j] = 8 * j;
        }
        offs[B] = 8 * B;
        sscbf_contains_batch(s, data, offs, B, res);
        for (uint32_t j = 0; j < B; j++) fp += res[j];
    }
    double measured = (double)fp / (double)done;
    ck_assert_msg(fabs(measured - design) <= 0.15 * design, "measured %g design %g keys %llu",
                  measured, design, (unsigned long long)key);
    ck_assert_double_lt(measured, target);
    sscbf_free(s);
}

START_TEST(scalable_fpr_2e9) { scalable_fpr_case(20000, 9, 3); }
END_TEST
START_TEST(scalable_fpr_2e6) { scalable_fpr_case(50000, 6, 2); }
END_TEST
START_TEST(scalable_fpr_2e12) { scalable_fpr_case(10000, 12, 4); }
END_TEST

int main(void) {
    Suite *s = suite_create("sscbf");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, config_validation);
    tcase_add_test(tc, growth_and_tightening);
    tcase_add_test(tc, tiny_estimated_fpr_is_not_rounded_to_zero);
    tcase_add_test(tc, growth_at_half_fill_batch);
    tcase_add_test(tc, remove_rule_and_residue);
    tcase_add_test(tc, needs_compaction_at_max_filters);
    tcase_add_test(tc, compaction);
    tcase_add_test(tc, merge_grows_dst);
    tcase_add_test(tc, batch_forms);
    tcase_add_test(tc, scalable_fpr_2e9);
    tcase_add_test(tc, scalable_fpr_2e6);
    tcase_add_test(tc, scalable_fpr_2e12);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
