/* scbf fpr: fill a filter to its design capacity and measure its
 * false-positive rate with keys that were never inserted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "scbf/scbf.h"
#include "scbf/sscbf.h"

static const char *USAGE = "--capacity N --fpr P [--scalable] [--seed S] [--probes Q]";

#define BATCH   4096
#define KEY_LEN 9

/* Inserted keys are tag 0 + LE64(i), probes tag 1 + LE64(i): disjoint sets. */
static void make_batch(uint8_t tag, uint64_t first, size_t n, uint8_t *data, uint32_t *offs) {
    for (size_t i = 0; i < n; i++) {
        uint8_t *k = data + i * KEY_LEN;
        uint64_t v = first + i;
        k[0] = tag;
        for (int b = 0; b < 8; b++) k[1 + b] = (uint8_t)(v >> (8 * b));
        offs[i] = (uint32_t)(i * KEY_LEN);
    }
    offs[n] = (uint32_t)(n * KEY_LEN);
}

typedef struct {
    scbf_t *f;
    sscbf_t *s;
} filter_t;

static int run_with(filter_t *fl, uint64_t capacity, uint64_t probes, uint64_t *fp, uint8_t *data,
                    uint32_t *offs, uint8_t *res) {
    int rc;
    if (!data || !offs) return SCBF_E_NOMEM;
    for (uint64_t i = 0; i < capacity; i += BATCH) {
        size_t n = capacity - i < BATCH ? (size_t)(capacity - i) : BATCH;
        make_batch(0, i, n, data, offs);
        rc = fl->f ? scbf_add_batch(fl->f, data, offs, n) : sscbf_add_batch(fl->s, data, offs, n);
        if (rc) return rc;
    }
    *fp = 0;
    for (uint64_t i = 0; i < probes; i += BATCH) {
        size_t n = probes - i < BATCH ? (size_t)(probes - i) : BATCH;
        make_batch(1, i, n, data, offs);
        rc = fl->f ? scbf_contains_batch(fl->f, data, offs, n, res)
                   : sscbf_contains_batch(fl->s, data, offs, n, res);
        if (rc) return rc;
        for (size_t j = 0; j < n; j++) *fp += res[j];
    }
    return SCBF_OK;
}

static int run(filter_t *fl, uint64_t capacity, uint64_t probes, uint64_t *fp) {
    uint8_t *data = malloc(BATCH * KEY_LEN + BATCH);
    uint32_t *offs = malloc((BATCH + 1) * sizeof *offs);
    int rc = run_with(fl, capacity, probes, fp, data, offs, data ? data + BATCH * KEY_LEN : NULL);
    free(data);
    free(offs);
    return rc;
}

int cmd_fpr(int argc, char **argv) {
    uint64_t capacity = 0, seed = 0, probes = 0;
    double fpr = 0;
    int have_capacity = 0, have_fpr = 0, scalable = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--scalable")) {
            scalable = 1;
            continue;
        }
        if (i + 1 >= argc) return cli_usage_error("fpr", USAGE, "missing option value");
        const char *val = argv[++i];
        if (!strcmp(opt, "--capacity")) {
            if (cli_parse_u64(val, &capacity) || capacity == 0)
                return cli_usage_error("fpr", USAGE, "bad --capacity");
            have_capacity = 1;
        } else if (!strcmp(opt, "--fpr")) {
            if (cli_parse_double(val, &fpr) || !(fpr > 0 && fpr < 1))
                return cli_usage_error("fpr", USAGE, "--fpr must be in (0, 1)");
            have_fpr = 1;
        } else if (!strcmp(opt, "--seed")) {
            if (cli_parse_u64(val, &seed)) return cli_usage_error("fpr", USAGE, "bad --seed");
        } else if (!strcmp(opt, "--probes")) {
            if (cli_parse_u64(val, &probes) || probes == 0)
                return cli_usage_error("fpr", USAGE, "bad --probes");
        } else {
            return cli_usage_error("fpr", USAGE, "unknown option");
        }
    }
    if (!have_capacity || !have_fpr)
        return cli_usage_error("fpr", USAGE, "--capacity and --fpr are required");
    if (capacity > UINT64_C(1) << 32) return cli_usage_error("fpr", USAGE, "--capacity too large");
    if (!probes) {
        /* ~1000 expected false positives: a ~3% standard error on the rate. */
        double q = ceil(1000.0 / fpr);
        probes = q < 1e6 ? 1000000 : q > 2e8 ? 200000000 : (uint64_t)q;
    }

    filter_t fl = {NULL, NULL};
    int rc;
    if (scalable) {
        sscbf_config_t c;
        sscbf_config_default(&c, capacity, fpr);
        c.seed = seed;
        rc = sscbf_create(&c, &fl.s);
    } else {
        scbf_params_t p;
        rc = scbf_params_from_capacity(capacity, fpr, &p);
        if (rc == SCBF_OK) {
            p.seed = seed;
            rc = scbf_create(&p, &fl.f);
        }
    }
    if (rc == SCBF_E_INVALID_ARG || rc == SCBF_E_TOO_LARGE)
        return cli_usage_error("fpr", USAGE, scbf_strerror(rc));
    uint64_t fp = 0;
    if (rc == SCBF_OK) rc = run(&fl, capacity, probes, &fp);
    if (rc) {
        fprintf(stderr, "scbf fpr: %s\n", scbf_strerror(rc));
        scbf_free(fl.f);
        sscbf_free(fl.s);
        return 1;
    }
    if (fl.f) {
        scbf_stats_t st;
        scbf_stats(fl.f, &st);
        printf("filter=scbf keys=%llu probes=%llu k=%u m=%llu bytes=%llu estimated_fpr=%.6g\n",
               (unsigned long long)capacity, (unsigned long long)probes, st.k,
               (unsigned long long)st.m, (unsigned long long)st.bytes, st.estimated_fpr);
    } else {
        sscbf_stats_t st;
        sscbf_stats(fl.s, &st);
        printf("filter=sscbf keys=%llu probes=%llu filters=%u bytes=%llu design_fpr=%.6g "
               "estimated_fpr=%.6g\n",
               (unsigned long long)capacity, (unsigned long long)probes, st.filters,
               (unsigned long long)st.bytes, st.design_fpr, st.estimated_fpr);
    }
    printf("measured_fpr=%.6g target_fpr=%.6g\n", (double)fp / (double)probes, fpr);
    scbf_free(fl.f);
    sscbf_free(fl.s);
    return 0;
}
