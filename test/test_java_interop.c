/* Cross-language snapshots: the C half of the Java interop test.
 *
 * A fixed recipe (below, and again in java/src/test/java/io/scbf/SnapshotInteropTest.java) builds
 * one SCBF and one scalable SCBF. The golden files in java/src/test/resources/io/scbf/interop/ are
 * their snapshots as written by this C code. This test proves that C still writes exactly those
 * bytes and reads them back with the same answers as the filter that wrote them; the Java test
 * proves that Java (through JNI) writes the same bytes for the same recipe and reads the golden
 * files with identical answers. Together: C-written snapshots are read by Java, Java-written ones
 * by C, with identical answers.
 *
 * After an intentional format change: SCBF_WRITE_GOLDEN=1 ./test_java_interop rewrites the files
 * (then bump the snapshot version and say so in docs/snapshot-format.md). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/scbf.h"
#include "scbf/sscbf.h"
#include "testutil.h"

#define QUERIES 4000

/* The recipe's keys: "key-<i>" in ASCII, and "hot". */
static size_t recipe_key(int i, char *buf) {
    if (i < 0) return (size_t)sprintf(buf, "hot");
    return (size_t)sprintf(buf, "key-%d", i);
}

static scbf_t *recipe_scbf(void) {
    scbf_params_t p;
    scbf_t *f = NULL;
    char k[32];
    ck_assert_int_eq(scbf_params_from_capacity(1000, 0.01, &p), SCBF_OK);
    ck_assert_int_eq(scbf_create(&p, &f), SCBF_OK);
    for (int i = 0; i < 1500; i++) ck_assert_int_eq(scbf_add(f, k, recipe_key(i, k)), SCBF_OK);
    for (int i = 0; i < 20; i++) ck_assert_int_eq(scbf_add(f, k, recipe_key(-1, k)), SCBF_OK);
    for (int i = 0; i < 500; i++) ck_assert_int_eq(scbf_remove(f, k, recipe_key(i, k)), SCBF_OK);
    return f;
}

static sscbf_t *recipe_sscbf(void) {
    sscbf_config_t c;
    sscbf_t *s = NULL;
    char k[32];
    sscbf_config_default(&c, 200, 0.01);
    ck_assert_int_eq(sscbf_create(&c, &s), SCBF_OK);
    for (int i = 0; i < 3000; i++) ck_assert_int_eq(sscbf_add(s, k, recipe_key(i, k)), SCBF_OK);
    for (int i = 0; i < 1000; i++) ck_assert_int_eq(sscbf_remove(s, k, recipe_key(i, k)), SCBF_OK);
    return s;
}

/* Directory of the golden files, found from this source file's absolute path. */
static void golden_path(const char *name, char *out, size_t cap) {
    const char *env = getenv("SCBF_INTEROP_DIR");
    if (env) {
        snprintf(out, cap, "%s/%s", env, name);
        return;
    }
    const char *file = __FILE__;
    const char *slash = strrchr(file, '/');
    int dir_len = slash ? (int)(slash - file) : 1;
    snprintf(out, cap, "%.*s/../java/src/test/resources/io/scbf/interop/%s", dir_len,
             slash ? file : ".", name);
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open golden snapshot %s", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

/* Compares the written bytes with the golden file (or rewrites it on request). */
static void check_golden(const char *name, const uint8_t *bytes, size_t len) {
    char path[4096];
    golden_path(name, path, sizeof path);
    if (getenv("SCBF_WRITE_GOLDEN")) {
        FILE *fp = fopen(path, "wb");
        ck_assert_msg(fp != NULL, "cannot write %s", path);
        ck_assert_uint_eq(fwrite(bytes, 1, len, fp), len);
        fclose(fp);
    }
    size_t glen;
    uint8_t *golden = read_file(path, &glen);
    ck_assert_msg(glen == len && memcmp(golden, bytes, len) == 0,
                  "%s: C now writes different bytes than the golden snapshot (%zu vs %zu bytes)",
                  name, len, glen);
    free(golden);
}

START_TEST(scbf_snapshot_matches_golden) {
    scbf_t *f = recipe_scbf();
    size_t cap = scbf_snapshot_size(f), written = 0;
    uint8_t *buf = malloc(cap);
    ck_assert_int_eq(scbf_snapshot_write(f, buf, cap, &written), SCBF_OK);
    check_golden("scbf-v1.snap", buf, written);

    char path[4096];
    golden_path("scbf-v1.snap", path, sizeof path);
    size_t glen;
    uint8_t *golden = read_file(path, &glen);
    scbf_t *g = NULL;
    ck_assert_int_eq(scbf_snapshot_read(golden, glen, &g), SCBF_OK);
    char k[32];
    for (int i = -1; i < QUERIES; i++) {
        size_t n = recipe_key(i, k);
        ck_assert_int_eq(scbf_contains(g, k, n), scbf_contains(f, k, n));
        if (i < 0 || (i >= 500 && i < 1500)) ck_assert_int_eq(scbf_contains(g, k, n), 1);
    }
    scbf_free(g);
    free(golden);
    free(buf);
    scbf_free(f);
}
END_TEST

START_TEST(sscbf_snapshot_matches_golden) {
    sscbf_t *s = recipe_sscbf();
    size_t cap = sscbf_snapshot_size(s), written = 0;
    uint8_t *buf = malloc(cap);
    ck_assert_int_eq(sscbf_snapshot_write(s, buf, cap, &written), SCBF_OK);
    check_golden("sscbf-v1.snap", buf, written);

    char path[4096];
    golden_path("sscbf-v1.snap", path, sizeof path);
    size_t glen;
    uint8_t *golden = read_file(path, &glen);
    sscbf_t *g = NULL;
    ck_assert_int_eq(sscbf_snapshot_read(golden, glen, &g), SCBF_OK);
    char k[32];
    for (int i = 0; i < QUERIES; i++) {
        size_t n = recipe_key(i, k);
        ck_assert_int_eq(sscbf_contains(g, k, n), sscbf_contains(s, k, n));
        if (i >= 1000 && i < 3000) ck_assert_int_eq(sscbf_contains(g, k, n), 1);
    }
    sscbf_free(g);
    free(golden);
    free(buf);
    sscbf_free(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("java_interop");
    TCase *tc = tcase_create("golden");
    tcase_add_test(tc, scbf_snapshot_matches_golden);
    tcase_add_test(tc, sscbf_snapshot_matches_golden);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
