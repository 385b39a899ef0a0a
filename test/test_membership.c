/* Routing bitmaps and their deltas: a bitmap answers exactly as the counting
 * filter it was derived from; encodings round-trip byte for byte; every
 * truncation, bit flip and hand-made inconsistency is refused with the right
 * code; a delta turns its base into its target exactly, and is refused
 * (leaving the bitmap unchanged) when applied to anything else: a lost,
 * duplicated or reordered delta can never silently change a bitmap. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "hash.h"
#include "scbf/membership.h"
#include "scbf/sscbf.h"
#include "testutil.h"

static void put64(uint8_t *p, uint64_t v) { tu_key64(v, p); }
static void reseal(uint8_t *buf, size_t len) { put64(buf + len - 8, XXH64(buf, len - 8, 0)); }

static sscbf_t *filter(uint64_t cap, uint32_t bits) {
    sscbf_config_t c;
    sscbf_config_default(&c, cap, 0.01);
    c.counter_bits = bits;
    c.seed = 77;
    sscbf_t *s;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    return s;
}

static void add_range(sscbf_t *s, uint64_t from, uint64_t to) {
    uint8_t k[8];
    for (uint64_t i = from; i < to; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(sscbf_add(s, k, 8), SCBF_OK);
    }
}

static uint8_t *derive(const sscbf_t *s, size_t *len) {
    size_t need;
    ck_assert_int_eq(sscbf_member_write(s, NULL, 0, &need), SCBF_E_BUFFER_TOO_SMALL);
    uint8_t *buf = malloc(need);
    ck_assert_int_eq(sscbf_member_write(s, buf, need, len), SCBF_OK);
    ck_assert_uint_eq(*len, need);
    return buf;
}

/* sscbf_member_of, checked against decoding the encoding sscbf_member_write gives. */
static scbf_member_t *member_of(const sscbf_t *s) {
    size_t len, got;
    uint8_t *buf = derive(s, &len);
    scbf_member_t *m;
    ck_assert_int_eq(sscbf_member_of(s, &m), SCBF_OK);
    const uint8_t *bytes = scbf_member_bytes(m, &got);
    ck_assert_uint_eq(got, len);
    ck_assert_int_eq(memcmp(bytes, buf, len), 0);
    free(buf);
    return m;
}

static uint8_t *delta(const scbf_member_t *from, const scbf_member_t *to, size_t *len) {
    size_t need;
    ck_assert_int_eq(scbf_member_delta(from, to, NULL, 0, &need), SCBF_E_BUFFER_TOO_SMALL);
    uint8_t *buf = malloc(need);
    ck_assert_int_eq(scbf_member_delta(from, to, buf, need, len), SCBF_OK);
    return buf;
}

static void assert_same_bytes(const scbf_member_t *a, const scbf_member_t *b) {
    size_t la, lb;
    const uint8_t *x = scbf_member_bytes(a, &la), *y = scbf_member_bytes(b, &lb);
    ck_assert_uint_eq(la, lb);
    ck_assert_int_eq(memcmp(x, y, la), 0);
}

static void answers_as_counting_filter(uint32_t bits) {
    sscbf_t *s = filter(500, bits);
    add_range(s, 0, 3000); /* several sub-filters */
    uint8_t k[8];
    for (uint64_t i = 0; i < 3000; i += 3) { /* removes clear counters back to zero */
        tu_key64(i, k);
        sscbf_remove(s, k, 8);
    }
    ck_assert_ptr_nonnull(sscbf_filter(s, 2));
    scbf_member_t *m = member_of(s);
    for (uint64_t i = 0; i < 60000; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(scbf_member_contains(m, k, 8), sscbf_contains(s, k, 8));
    }
    scbf_member_stats_t st;
    ck_assert_int_eq(scbf_member_stats(m, &st), SCBF_OK);
    sscbf_stats_t fs;
    sscbf_stats(s, &fs);
    ck_assert_uint_eq(st.filters, fs.filters);
    ck_assert_uint_eq(st.bits, fs.positions);
    ck_assert(st.set_bits > 0 && st.set_bits < st.bits);
    ck_assert_double_eq_tol(st.estimated_fpr, fs.estimated_fpr, 1e-12);
    scbf_member_free(m);
    sscbf_free(s);
}

START_TEST(answers_as_counting_filter_4bit) { answers_as_counting_filter(4); }
END_TEST

START_TEST(answers_as_counting_filter_8bit) { answers_as_counting_filter(8); }
END_TEST

START_TEST(quarter_of_the_counting_filter) {
    sscbf_t *s = filter(10000, 4);
    add_range(s, 0, 10000);
    size_t len;
    uint8_t *buf = derive(s, &len);
    ck_assert_uint_lt(len, sscbf_snapshot_size(s) / 4 + 200);
    free(buf);
    sscbf_free(s);
}
END_TEST

START_TEST(roundtrip_and_every_corruption_refused) {
    sscbf_t *s = filter(300, 4);
    add_range(s, 0, 700);
    size_t len;
    uint8_t *buf = derive(s, &len);
    scbf_member_t *m;
    ck_assert_int_eq(scbf_member_read(buf, len, &m), SCBF_OK);
    size_t l2;
    ck_assert_int_eq(memcmp(scbf_member_bytes(m, &l2), buf, len), 0);
    ck_assert_uint_eq(l2, len);
    scbf_member_free(m);
    for (size_t cut = 0; cut < len; cut++) {
        int rc = scbf_member_read(buf, cut, &m);
        ck_assert_msg(rc == SCBF_E_TRUNCATED || rc == SCBF_E_CORRUPT, "cut %zu: %d", cut, rc);
        ck_assert_ptr_null(m);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    ck_assert_int_eq(scbf_member_read(longer, len + 1, &m), SCBF_E_CORRUPT);
    free(longer);
    for (size_t i = 0; i < len; i++) {
        for (int b = 0; b < 8; b += 3) {
            buf[i] ^= (uint8_t)(1u << b);
            ck_assert_int_ne(scbf_member_read(buf, len, &m), SCBF_OK);
            buf[i] ^= (uint8_t)(1u << b);
        }
    }
    /* Resealed edits: wrong magic, version, k, word count, a padding bit. */
    uint8_t *e = malloc(len);
    memcpy(e, buf, len);
    e[0] = 'X';
    ck_assert_int_eq(scbf_member_read(e, len, &m), SCBF_E_BAD_MAGIC);
    memcpy(e, buf, len);
    e[4] = 2;
    reseal(e, len);
    ck_assert_int_eq(scbf_member_read(e, len, &m), SCBF_E_BAD_VERSION);
    memcpy(e, buf, len);
    e[16] = 0; /* k of sub-filter 0 */
    reseal(e, len);
    ck_assert_int_eq(scbf_member_read(e, len, &m), SCBF_E_CORRUPT);
    memcpy(e, buf, len);
    e[16 + 24] ^= 1; /* word count */
    reseal(e, len);
    ck_assert_int_ne(scbf_member_read(e, len, &m), SCBF_OK);
    memcpy(e, buf, len);
    uint64_t mm = 0;
    for (int i = 7; i >= 0; i--) mm = (mm << 8) | e[16 + 8 + i];
    if (mm % 64) { /* the last word of slice 0 has padding bits */
        size_t word = 16 + 32 + 8 * (size_t)((mm + 63) / 64 - 1);
        e[word + 7] |= 0x80;
        reseal(e, len);
        ck_assert_int_eq(scbf_member_read(e, len, &m), SCBF_E_CORRUPT);
    }
    free(e);
    free(buf);
    sscbf_free(s);
}
END_TEST

START_TEST(delta_turns_base_into_target) {
    sscbf_t *s = filter(5000, 4);
    add_range(s, 0, 2000);
    scbf_member_t *v1 = member_of(s);
    add_range(s, 2000, 2010);
    uint8_t k[8];
    tu_key64(5, k);
    sscbf_remove(s, k, 8); /* bits going off too */
    scbf_member_t *v2 = member_of(s);
    size_t dlen;
    uint8_t *d12 = delta(v1, v2, &dlen);
    /* 11 changed keys, k bits each, a few bytes per bit. */
    ck_assert_uint_lt(dlen, 40 + 11 * 7 * 4);
    scbf_member_t *held;
    size_t l1;
    const uint8_t *b1 = scbf_member_bytes(v1, &l1);
    ck_assert_int_eq(scbf_member_read(b1, l1, &held), SCBF_OK);
    ck_assert_int_eq(scbf_member_apply(held, d12, dlen), SCBF_OK);
    assert_same_bytes(held, v2);
    /* Duplicated: held is v2 now, not the delta's base. */
    ck_assert_int_eq(scbf_member_apply(held, d12, dlen), SCBF_E_PARAM_MISMATCH);
    assert_same_bytes(held, v2);
    /* Reordered: v2 -> v3 applied to v1. */
    add_range(s, 3000, 3005);
    scbf_member_t *v3 = member_of(s);
    size_t d23len;
    uint8_t *d23 = delta(v2, v3, &d23len);
    scbf_member_t *old;
    ck_assert_int_eq(scbf_member_read(b1, l1, &old), SCBF_OK);
    ck_assert_int_eq(scbf_member_apply(old, d23, d23len), SCBF_E_PARAM_MISMATCH);
    assert_same_bytes(old, v1);
    ck_assert_int_eq(scbf_member_apply(old, d12, dlen), SCBF_OK);
    ck_assert_int_eq(scbf_member_apply(old, d23, d23len), SCBF_OK);
    assert_same_bytes(old, v3);
    /* No change: an empty delta. */
    size_t elen;
    uint8_t *empty = delta(v3, v3, &elen);
    ck_assert_uint_eq(elen, 40);
    ck_assert_int_eq(scbf_member_apply(old, empty, elen), SCBF_OK);
    assert_same_bytes(old, v3);
    free(empty);
    free(d23);
    scbf_member_free(v3);
    scbf_member_free(old);
    free(d12);
    scbf_member_free(held);
    scbf_member_free(v2);
    scbf_member_free(v1);
    sscbf_free(s);
}
END_TEST

/* Each buffer is malloc'd at its exact size, so the sanitizer build sees any write past it. */
START_TEST(short_delta_buffer_refused_and_never_overrun) {
    sscbf_t *s = filter(2000, 4);
    add_range(s, 0, 300);
    scbf_member_t *v1 = member_of(s);
    add_range(s, 300, 306);
    scbf_member_t *v2 = member_of(s);
    size_t need, got;
    uint8_t *whole = delta(v1, v2, &need);
    for (size_t cap = 1; cap < need; cap++) {
        uint8_t *buf = malloc(cap);
        ck_assert_int_eq(scbf_member_delta(v1, v2, buf, cap, &got), SCBF_E_BUFFER_TOO_SMALL);
        ck_assert_uint_eq(got, need);
        free(buf);
    }
    uint8_t *exact = malloc(need);
    ck_assert_int_eq(scbf_member_delta(v1, v2, exact, need, &got), SCBF_OK);
    ck_assert_int_eq(memcmp(exact, whole, need), 0);
    free(exact);
    free(whole);
    scbf_member_free(v2);
    scbf_member_free(v1);
    sscbf_free(s);
}
END_TEST

START_TEST(corrupt_delta_refused_and_bitmap_unchanged) {
    sscbf_t *s = filter(2000, 4);
    add_range(s, 0, 500);
    scbf_member_t *a = member_of(s);
    add_range(s, 500, 520);
    scbf_member_t *b = member_of(s);
    size_t len;
    uint8_t *d = delta(a, b, &len);
    size_t la;
    uint8_t *before = malloc(scbf_member_bytes(a, &la) ? la : 1);
    memcpy(before, scbf_member_bytes(a, &la), la);
    for (size_t cut = 0; cut < len; cut++) ck_assert_int_ne(scbf_member_apply(a, d, cut), SCBF_OK);
    for (size_t i = 0; i < len; i++) {
        d[i] ^= 0x10;
        ck_assert_int_ne(scbf_member_apply(a, d, len), SCBF_OK);
        d[i] ^= 0x10;
    }
    /* Well framed but naming a result it does not produce. */
    d[16] ^= 1;
    reseal(d, len);
    ck_assert_int_eq(scbf_member_apply(a, d, len), SCBF_E_CORRUPT);
    size_t l2;
    ck_assert_int_eq(memcmp(scbf_member_bytes(a, &l2), before, la), 0);
    d[16] ^= 1;
    reseal(d, len);
    ck_assert_int_eq(scbf_member_apply(a, d, len), SCBF_OK);
    assert_same_bytes(a, b);
    free(before);
    free(d);
    scbf_member_free(a);
    scbf_member_free(b);
    sscbf_free(s);
}
END_TEST

START_TEST(shape_change_needs_full_bitmap) {
    sscbf_t *s = filter(100, 4);
    add_range(s, 0, 40);
    scbf_member_t *a = member_of(s);
    add_range(s, 40, 400); /* grows a sub-filter */
    scbf_member_t *b = member_of(s);
    size_t w;
    ck_assert_int_eq(scbf_member_delta(a, b, NULL, 0, &w), SCBF_E_PARAM_MISMATCH);
    scbf_member_free(a);
    scbf_member_free(b);
    sscbf_free(s);
}
END_TEST

START_TEST(bad_arguments) {
    scbf_member_t *m = NULL;
    size_t w;
    ck_assert_int_eq(scbf_member_read(NULL, 4, &m), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_member_read(NULL, 0, NULL), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(sscbf_member_write(NULL, NULL, 0, &w), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(sscbf_member_of(NULL, &m), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_member_contains(NULL, "k", 1), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_member_apply(NULL, NULL, 0), SCBF_E_INVALID_ARG);
    scbf_member_free(NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("membership");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, answers_as_counting_filter_4bit);
    tcase_add_test(tc, answers_as_counting_filter_8bit);
    tcase_add_test(tc, quarter_of_the_counting_filter);
    tcase_add_test(tc, roundtrip_and_every_corruption_refused);
    tcase_add_test(tc, delta_turns_base_into_target);
    tcase_add_test(tc, short_delta_buffer_refused_and_never_overrun);
    tcase_add_test(tc, corrupt_delta_refused_and_bitmap_unchanged);
    tcase_add_test(tc, shape_change_needs_full_bitmap);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
