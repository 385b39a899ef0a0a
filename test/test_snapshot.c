/* Snapshot codec: round-trip identity (bytes and answers) for both filter
 * kinds, and rejection of every truncation, every single-bit flip, wrong
 * magic/version and absurd or inconsistent headers with the right code. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/scbf.h"
#include "scbf/sscbf.h"
#include "hash.h"
#include "testutil.h"

static void put64(uint8_t *p, uint64_t v) { tu_key64(v, p); }
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
/* Re-seal a hand-edited snapshot so only the edited field is wrong. */
static void reseal(uint8_t *buf, size_t len) { put64(buf + len - 8, XXH64(buf, len - 8, 0)); }

static scbf_t *sample_scbf(uint32_t bits, uint64_t cap, uint64_t keys) {
    scbf_params_t p;
    scbf_t *f;
    ck_assert_int_eq(scbf_params_from_capacity(cap, 0.01, &p), SCBF_OK);
    p.counter_bits = bits;
    p.seed = 0x1234;
    ck_assert_int_eq(scbf_create(&p, &f), SCBF_OK);
    uint8_t k[8];
    for (uint64_t i = 0; i < keys; i++) {
        tu_key64(i, k);
        scbf_add(f, k, 8);
    }
    for (int i = 0; i < 300; i++) scbf_add(f, "hot", 3); /* saturates 4 and 8 bit */
    return f;
}

static uint8_t *encode(const scbf_t *f, size_t *len) {
    size_t w;
    *len = scbf_snapshot_size(f);
    uint8_t *buf = malloc(*len);
    ck_assert_int_eq(scbf_snapshot_write(f, buf, *len, &w), SCBF_OK);
    ck_assert_uint_eq(w, *len);
    return buf;
}

static uint8_t *encode_s(const sscbf_t *s, size_t *len) {
    size_t w;
    *len = sscbf_snapshot_size(s);
    uint8_t *buf = malloc(*len);
    ck_assert_int_eq(sscbf_snapshot_write(s, buf, *len, &w), SCBF_OK);
    ck_assert_uint_eq(w, *len);
    return buf;
}

static void roundtrip_case(uint32_t bits) {
    scbf_t *f = sample_scbf(bits, 5000, 4000);
    size_t len, len2;
    uint8_t *buf = encode(f, &len);
    ck_assert_mem_eq(buf, "SCBF", 4);
    scbf_t *g;
    ck_assert_int_eq(scbf_snapshot_read(buf, len, &g), SCBF_OK);
    ck_assert_int_eq(memcmp(scbf_params(f), scbf_params(g), sizeof(scbf_params_t)), 0);
    uint8_t *buf2 = encode(g, &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(buf, buf2, len);
    scbf_stats_t a, b;
    scbf_stats(f, &a);
    scbf_stats(g, &b);
    ck_assert_uint_eq(a.nonzero, b.nonzero);
    ck_assert_uint_eq(a.saturated, b.saturated);
    ck_assert_uint_ge(b.saturated, b.k);
    uint8_t k[8];
    for (uint64_t i = 0; i < 20000; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(scbf_contains(g, k, 8), scbf_contains(f, k, 8));
    }
    ck_assert_int_eq(scbf_contains(g, "hot", 3), 1);
    /* Too-small buffer reports the size needed. */
    size_t need = 0;
    ck_assert_int_eq(scbf_snapshot_write(f, buf2, len - 1, &need), SCBF_E_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(need, len);
    free(buf);
    free(buf2);
    scbf_free(f);
    scbf_free(g);
}

START_TEST(scbf_roundtrip_4bit) { roundtrip_case(4); }
END_TEST
START_TEST(scbf_roundtrip_8bit) { roundtrip_case(8); }
END_TEST

START_TEST(sscbf_roundtrip) {
    sscbf_config_t c;
    sscbf_t *s, *t;
    sscbf_config_default(&c, 300, 0.01);
    c.seed = 99;
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    uint8_t k[8];
    for (uint64_t i = 0; i < 3000; i++) {
        tu_key64(i, k);
        sscbf_add(s, k, 8);
    }
    for (uint64_t i = 0; i < 3000; i += 7) {
        tu_key64(i, k);
        sscbf_remove(s, k, 8);
    }
    size_t len, len2;
    uint8_t *buf = encode_s(s, &len);
    ck_assert_int_eq(sscbf_snapshot_read(buf, len, &t), SCBF_OK);
    uint8_t *buf2 = encode_s(t, &len2);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(buf, buf2, len);
    sscbf_stats_t a, b;
    sscbf_stats(s, &a);
    sscbf_stats(t, &b);
    ck_assert_uint_ge(a.filters, 3);
    ck_assert_uint_eq(a.filters, b.filters);
    ck_assert_uint_eq(a.residue, b.residue);
    ck_assert_uint_eq(a.adds, b.adds);
    ck_assert_uint_eq(a.removes, b.removes);
    ck_assert_double_eq(a.design_fpr, b.design_fpr);
    ck_assert_int_eq(memcmp(sscbf_config(s), sscbf_config(t), sizeof c), 0);
    for (uint64_t i = 0; i < 10000; i++) {
        tu_key64(i, k);
        ck_assert_int_eq(sscbf_contains(t, k, 8), sscbf_contains(s, k, 8));
    }
    /* The decoded filter keeps working: growth continues. */
    for (uint64_t i = 10000; i < 20000; i++) {
        tu_key64(i, k);
        sscbf_add(t, k, 8);
    }
    sscbf_stats(t, &b);
    ck_assert_uint_gt(b.filters, a.filters);
    free(buf);
    free(buf2);
    sscbf_free(s);
    sscbf_free(t);
}
END_TEST

/* Decoders under one signature for the rejection sweep: the status, with
 * the decoded filter freed, and a failed decode must leave *out NULL. */
static int decode_scbf(const uint8_t *buf, size_t len) {
    scbf_t *f = (scbf_t *)1;
    int rc = scbf_snapshot_read(buf, len, &f);
    if (rc != SCBF_OK) ck_assert_ptr_null(f);
    scbf_free(rc == SCBF_OK ? f : NULL);
    return rc;
}

static int decode_sscbf(const uint8_t *buf, size_t len) {
    sscbf_t *s = (sscbf_t *)1;
    int rc = sscbf_snapshot_read(buf, len, &s);
    if (rc != SCBF_OK) ck_assert_ptr_null(s);
    sscbf_free(rc == SCBF_OK ? s : NULL);
    return rc;
}

/* Every proper prefix is TRUNCATED; every single-bit flip is rejected; the
 * untouched snapshot still decodes. Prefixes are copied to buffers of their
 * exact size so ASan sees any overread. */
static void assert_rejects_damage(uint8_t *buf, size_t len,
                                  int (*decode)(const uint8_t *, size_t)) {
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, buf, n);
        ck_assert_int_eq(decode(copy, n), SCBF_E_TRUNCATED);
        free(copy);
    }
    for (size_t bit = 0; bit < len * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ck_assert_msg(decode(buf, len) < 0, "bit %zu accepted", bit);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    ck_assert_int_eq(decode(buf, len), SCBF_OK);
}

START_TEST(scbf_truncation_and_bitflips) {
    scbf_t *f = sample_scbf(4, 60, 50);
    size_t len;
    uint8_t *buf = encode(f, &len);
    assert_rejects_damage(buf, len, decode_scbf);
    free(buf);
    scbf_free(f);
}
END_TEST

START_TEST(sscbf_truncation_and_bitflips) {
    sscbf_config_t c;
    sscbf_t *s;
    sscbf_config_default(&c, 20, 0.05);
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    uint8_t k[8];
    for (uint64_t i = 0; i < 60; i++) {
        tu_key64(i, k);
        sscbf_add(s, k, 8);
    }
    size_t len;
    uint8_t *buf = encode_s(s, &len);
    assert_rejects_damage(buf, len, decode_sscbf);
    free(buf);
    sscbf_free(s);
}
END_TEST

/* Header edits with a valid checksum: each must give its specific code. */
START_TEST(scbf_bad_headers) {
    scbf_t *f = sample_scbf(4, 60, 50), *g;
    size_t len;
    uint8_t *buf = encode(f, &len);
    uint8_t *e = malloc(len + 8);
#define EDIT(stmt, want)                                                                           \
    do {                                                                                           \
        memcpy(e, buf, len);                                                                       \
        stmt;                                                                                      \
        reseal(e, len);                                                                            \
        ck_assert_int_eq(scbf_snapshot_read(e, len, &g), (want));                                  \
    } while (0)
    EDIT(e[0] = 'X', SCBF_E_BAD_MAGIC);
    EDIT(e[4] = 2, SCBF_E_BAD_VERSION);
    EDIT(e[6] = 1, SCBF_E_CORRUPT);                                    /* flags */
    EDIT(put32(e + 8, 0), SCBF_E_CORRUPT);                             /* k = 0 */
    EDIT(put32(e + 8, 65), SCBF_E_CORRUPT);                            /* k > 64 */
    EDIT(put32(e + 12, 5), SCBF_E_CORRUPT);                            /* counter bits */
    EDIT(put64(e + 16, 0), SCBF_E_CORRUPT);                            /* m = 0 */
    EDIT(put64(e + 16, UINT64_C(1) << 40), SCBF_E_CORRUPT);            /* k*m too large */
    EDIT(put64(e + 32, 0), SCBF_E_CORRUPT);                            /* fpr 0.0 */
    EDIT(put64(e + 48, 3), SCBF_E_CORRUPT);                            /* word count */
    EDIT(put64(e + 32, UINT64_C(0x3ff0000000000000)), SCBF_E_CORRUPT); /* fpr 1.0 */
    /* A plausible huge m (consistent word count) in a short buffer: the
     * decoder must say TRUNCATED without allocating it. */
    memcpy(e, buf, len);
    uint32_t k = scbf_params(f)->k;
    uint64_t m = UINT64_C(1) << 30;
    put64(e + 16, m);
    put64(e + 48, k * (m / 16));
    ck_assert_int_eq(scbf_snapshot_read(e, len, &g), SCBF_E_TRUNCATED);
    /* Trailing bytes. */
    memcpy(e, buf, len);
    memset(e + len, 0, 8);
    ck_assert_int_eq(scbf_snapshot_read(e, len + 8, &g), SCBF_E_CORRUPT);
    /* Non-zero padding counter past m (m is not a multiple of 16 here). */
    const scbf_params_t *p = scbf_params(f);
    ck_assert_uint_ne(p->m % 16, 0);
    uint64_t wps = (p->m + 15) / 16;
    EDIT(e[56 + wps * 8 - 1] |= 0xf0, SCBF_E_CORRUPT);
    /* Bad checksum alone. */
    memcpy(e, buf, len);
    e[len - 1] ^= 1;
    ck_assert_int_eq(scbf_snapshot_read(e, len, &g), SCBF_E_CHECKSUM);
    /* Argument errors. */
    ck_assert_int_eq(scbf_snapshot_read(NULL, 10, &g), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_snapshot_read(buf, len, NULL), SCBF_E_INVALID_ARG);
    ck_assert_int_eq(scbf_snapshot_read(NULL, 0, &g), SCBF_E_TRUNCATED);
    /* The other kind's magic. */
    memcpy(e, buf, len);
    memcpy(e, "SSCB", 4);
    ck_assert_int_eq(scbf_snapshot_read(e, len, &g), SCBF_E_BAD_MAGIC);
#undef EDIT
    free(e);
    free(buf);
    scbf_free(f);
}
END_TEST

START_TEST(sscbf_bad_headers) {
    sscbf_config_t c;
    sscbf_t *s, *t;
    sscbf_config_default(&c, 20, 0.05);
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    uint8_t k[8];
    for (uint64_t i = 0; i < 60; i++) {
        tu_key64(i, k);
        sscbf_add(s, k, 8);
    }
    size_t len;
    uint8_t *buf = encode_s(s, &len);
    uint8_t *e = malloc(len);
    sscbf_stats_t st;
    sscbf_stats(s, &st);
    uint32_t n = st.filters;
    ck_assert_uint_ge(n, 2);
#define EDIT(stmt, want)                                                                           \
    do {                                                                                           \
        memcpy(e, buf, len);                                                                       \
        stmt;                                                                                      \
        reseal(e, len);                                                                            \
        ck_assert_int_eq(sscbf_snapshot_read(e, len, &t), (want));                                 \
    } while (0)
    EDIT(e[1] = 'X', SCBF_E_BAD_MAGIC);
    EDIT(e[5] = 1, SCBF_E_BAD_VERSION);
    EDIT(put32(e + 44, 0), SCBF_E_CORRUPT);            /* no sub-filters */
    EDIT(put32(e + 44, 33), SCBF_E_CORRUPT);           /* more than max_filters */
    EDIT(put32(e + 40, 100), SCBF_E_CORRUPT);          /* max_filters absurd */
    EDIT(put32(e + 32, 0), SCBF_E_CORRUPT);            /* growth 0 */
    EDIT(put64(e + 24, 0), SCBF_E_CORRUPT);            /* tightening 0 */
    EDIT(put32(e + 44, n - 1), SCBF_E_CORRUPT);        /* fewer filters: trailing bytes */
    EDIT(put32(e + 44, n + 1), SCBF_E_TRUNCATED);      /* more filters than bytes */
    EDIT(put64(e + 88, UINT64_MAX), SCBF_E_TRUNCATED); /* sub-filter length absurd */
    EDIT(put32(e + 36, 8), SCBF_E_CORRUPT);            /* sub-filters are 4-bit */
    EDIT(put64(e + 56, 1), SCBF_E_CORRUPT);            /* seed differs from sub-filters */
    /* A sub-filter's own checksum is checked too. */
    memcpy(e, buf, len);
    e[88 + 8 + 60] ^= 1;
    reseal(e, len);
    ck_assert_int_eq(sscbf_snapshot_read(e, len, &t), SCBF_E_CHECKSUM);
#undef EDIT
    free(e);
    free(buf);
    sscbf_free(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("snapshot");
    TCase *tc = tcase_create("codec");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, scbf_roundtrip_4bit);
    tcase_add_test(tc, scbf_roundtrip_8bit);
    tcase_add_test(tc, sscbf_roundtrip);
    tcase_add_test(tc, scbf_truncation_and_bitflips);
    tcase_add_test(tc, sscbf_truncation_and_bitflips);
    tcase_add_test(tc, scbf_bad_headers);
    tcase_add_test(tc, sscbf_bad_headers);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
