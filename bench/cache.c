/*
 * bench/cache.c - adaptive hotscore vs the paper's formula vs LRU vs Belady's
 * OPT hit ratios (Zipf and every trace in ../shared/traces, at five sizes),
 * and get/put cost of the byte-bounded cache, 1 and 2 threads.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "cache_sim.h"

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t rng_next(rng_t *r) { /* splitmix64 */
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* n draws of a Zipf(alpha) rank over `keys` keys, by inverse CDF. */
static uint64_t *zipf_trace(size_t keys, size_t n, double alpha, uint64_t seed) {
    double *cdf = malloc(keys * sizeof *cdf);
    uint64_t *t = malloc(n * sizeof *t);
    if (!cdf || !t) {
        free(cdf);
        free(t);
        return NULL;
    }
    double sum = 0;
    for (size_t i = 0; i < keys; i++) cdf[i] = sum += pow((double)(i + 1), -alpha);
    rng_t r = {seed};
    for (size_t i = 0; i < n; i++) {
        double u = (double)(rng_next(&r) >> 11) * 0x1p-53 * sum;
        size_t lo = 0, hi = keys - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        t[i] = lo;
    }
    free(cdf);
    return t;
}

/* The policies compared, in column order; OPT is the bound, not a policy. */
static const struct {
    const char *name;
    hotcache_policy policy;
} POLICIES[] = {{"hotscore", HOTCACHE_HOTSCORE}, {"paper", HOTCACHE_PAPER}, {"lru", HOTCACHE_LRU}};
#define NPOL 3

typedef struct {
    double gap_sum[NPOL], worst_vs_lru[NPOL], worst_zipf_vs_paper;
    int rows, zipf_rows;
    double ref_gap_sum[NPOL]; /* at the traces' reference capacities only */
    int ref_rows;
    FILE *csv;
} summary_t;

/* One row: every policy and OPT at `entries`; kind is "zipf" or "trace",
 * reference marks the capacity ../shared/traces/README.md reports at. */
static int hit_ratio_row(const char *name, const char *kind, const uint64_t *t, size_t n,
                         uint64_t entries, const char *size_label, int reference, summary_t *sum) {
    double r[NPOL + 1];
    uint64_t hits;
    for (int p = 0; p < NPOL; p++) {
        hotcache_config_t c;
        cache_sim_config(&c, POLICIES[p].policy, entries);
        int rc = cache_sim_replay(&c, t, n, &hits);
        if (rc != SCBF_OK) {
            fprintf(stderr, "scbf-bench cache: %s: %s\n", name, scbf_strerror(rc));
            return 1;
        }
        r[p] = (double)hits / (double)n;
    }
    if (cache_sim_opt(t, n, entries, &hits) != SCBF_OK) return 1;
    double opt = (double)hits / (double)n;
    printf("%-12s %6s %7llu  %.4f  %.4f  %.4f  %.4f  %+.4f  %+.4f\n", name, size_label,
           (unsigned long long)entries, r[0], r[1], r[2], opt, r[0] - r[2], r[0] - opt);
    if (sum->csv)
        fprintf(sum->csv, "%s,%s,%llu,%d,%.6f,%.6f,%.6f,%.6f\n", kind, name,
                (unsigned long long)entries, reference, r[0], r[1], r[2], opt);
    for (int p = 0; p < NPOL; p++) {
        double vs_lru = r[p] - r[2];
        if (!strcmp(kind, "trace")) {
            sum->gap_sum[p] += opt - r[p];
            if (sum->rows == 0 || vs_lru < sum->worst_vs_lru[p]) sum->worst_vs_lru[p] = vs_lru;
            if (reference) sum->ref_gap_sum[p] += opt - r[p];
        }
    }
    if (!strcmp(kind, "trace")) {
        sum->rows++;
        sum->ref_rows += reference;
    } else {
        double vs_paper = r[0] - r[1];
        if (sum->zipf_rows == 0 || vs_paper < sum->worst_zipf_vs_paper)
            sum->worst_zipf_vs_paper = vs_paper;
        sum->zipf_rows++;
    }
    return 0;
}

static const char *find_traces(const char *given) {
    static const char *candidates[] = {"../shared/traces", "/work/shared/traces"};
    struct stat st;
    if (given) return given;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (stat(candidates[i], &st) == 0 && S_ISDIR(st.st_mode)) return candidates[i];
    return NULL;
}

static int read_trace(const char *dir, const char *name, uint64_t **t, size_t *n) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "zcat '%s/%s.trace.gz'", dir, name);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "scbf-bench cache: cannot run %s\n", cmd);
        return 1;
    }
    int rc = cache_sim_read_trace(p, t, n);
    int status = pclose(p);
    if (rc != SCBF_OK || status != 0 || *n == 0) {
        fprintf(stderr, "scbf-bench cache: cannot read %s/%s.trace.gz\n", dir, name);
        free(*t);
        return 1;
    }
    return 0;
}

/* What splitting a cache into 16 shards (hotcache.h: each with 1/16 of the
 * entries and its own policy state) costs in hit ratio, per policy. */
static int sharding_row(const char *name, const uint64_t *t, size_t n, uint64_t entries) {
    printf("%-12s %7llu", name, (unsigned long long)entries);
    for (int p = 0; p < NPOL; p++) {
        uint64_t one, sixteen;
        hotcache_config_t c;
        cache_sim_config(&c, POLICIES[p].policy, entries);
        if (cache_sim_replay(&c, t, n, &one) != SCBF_OK) return 1;
        c.shards = 16;
        if (cache_sim_replay(&c, t, n, &sixteen) != SCBF_OK) return 1;
        printf("  %-8s %.4f -> %.4f (%+.4f)", POLICIES[p].name, (double)one / (double)n,
               (double)sixteen / (double)n, ((double)sixteen - (double)one) / (double)n);
    }
    printf("\n");
    return 0;
}

static int sharding_rows(const char *dir, int quick) {
    static const struct {
        const char *name;
        uint64_t capacity;
    } traces[] = {{"orm-night", 5000}, {"w106", 20000}};
    printf("\nhit ratio, 1 shard -> 16 shards (each 1/16 of the entries), reference capacity:\n");
    uint64_t *z = zipf_trace(100000, quick ? 200000 : 1000000, 0.99, 44);
    if (!z || sharding_row("zipf-0.99", z, quick ? 200000 : 1000000, 5000)) {
        free(z);
        return 1;
    }
    free(z);
    for (size_t i = 0; i < sizeof traces / sizeof traces[0] && !quick; i++) {
        uint64_t *t = NULL;
        size_t n = 0;
        if (read_trace(dir, traces[i].name, &t, &n)) return 1;
        int rc = sharding_row(traces[i].name, t, n, traces[i].capacity);
        free(t);
        if (rc) return rc;
    }
    return 0;
}

/* Every trace of ../shared/traces/README.md at its reference capacity and
 * at 1/4, 1/2, 2 and 4 times it (--quick: the five small traces only). */
static int trace_rows(const char *dir, int quick, summary_t *sum) {
    static const struct {
        const char *name;
        uint64_t capacity;
        int big;
    } traces[] = {{"multi1", 500, 0},       {"loop", 500, 0},       {"cpp", 300, 0},
                  {"zigzag", 300, 0},       {"backf", 200, 0},      {"scan", 500, 0},
                  {"corda-vault", 5000, 1}, {"orm-night", 5000, 1}, {"w106", 20000, 1}};
    static const double scales[] = {0.25, 0.5, 1, 2, 4};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        if (quick && traces[i].big) continue;
        uint64_t *t = NULL;
        size_t n = 0;
        int rc = read_trace(dir, traces[i].name, &t, &n);
        if (rc) return rc;
        for (size_t s = 0; s < sizeof scales / sizeof scales[0] && rc == 0; s++) {
            char label[16];
            snprintf(label, sizeof label, "%gx", scales[s]);
            uint64_t entries = (uint64_t)(scales[s] * (double)traces[i].capacity);
            rc = hit_ratio_row(traces[i].name, "trace", t, n, entries, label, scales[s] == 1, sum);
        }
        free(t);
        if (rc) return rc;
    }
    return 0;
}

/* ---- get/put cost --------------------------------------------------------- */

#define VALUE_BYTES 100

typedef enum { OP_PUT, OP_GET, OP_GET_OR_PUT } op_t;

typedef struct {
    hotcache_t *h;
    const uint64_t *keys;
    size_t n;
    op_t op;
} job_t;

static void *run_job(void *p) {
    job_t *j = p;
    unsigned char v[VALUE_BYTES] = {0}, buf[VALUE_BYTES];
    for (size_t i = 0; i < j->n; i++) {
        unsigned char k[8];
        memcpy(k, &j->keys[i], 8);
        size_t vlen;
        if (j->op == OP_PUT ||
            (hotcache_get(j->h, k, 8, buf, sizeof buf, &vlen) != SCBF_OK && j->op == OP_GET_OR_PUT))
            hotcache_put(j->h, k, 8, v, sizeof v, NULL);
    }
    return NULL;
}

/* Wall-clock ns per operation with `threads` threads splitting the keys. */
static double timed(hotcache_t *h, const uint64_t *keys, size_t n, int threads, op_t op) {
    pthread_t t[2];
    job_t j[2];
    size_t per = n / (size_t)threads;
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < threads; i++) {
        j[i] = (job_t){h, keys + (size_t)i * per, per, op};
        if (threads == 1)
            run_job(&j[i]);
        else
            pthread_create(&t[i], NULL, run_job, &j[i]);
    }
    if (threads > 1)
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return (double)(bench_now_ns() - t0) / (double)(per * (size_t)threads);
}

static int cost_rows(int quick) {
    const uint64_t cap = UINT64_C(64) << 20;
    size_t n = quick ? 400000 : 4000000;
    /* Zipf 0.99 over 1M keys: a 64 MiB cache of 100-byte values holds about
     * a third of them, so gets mix hits and misses and puts evict. */
    uint64_t *keys = zipf_trace(1000000, n, 0.99, 7);
    if (!keys) return 1;
    for (size_t i = 0; i < n; i++) keys[i] = keys[i] * UINT64_C(0x9E3779B97F4A7C15);
    printf("\nget/put cost: capacity 64 MiB (32 shards, the automatic count; 'x1' rows: 1 shard;\n"
           "'4M' row: 4 MiB, 2 shards; '-ch' row: hotscore without its chooser), 8-byte keys,\n"
           "%d-byte values, Zipf 0.99 over 1M keys,\n"
           "%zu puts, then %zu gets, then %zu get-or-puts (a get, and a put on a miss) per row;\n"
           "ns per op = wall time / ops (all threads together); x = throughput over the same\n"
           "row's 1-thread figure; entries = what the cache held\n\n",
           VALUE_BYTES, n, n, n);
    printf("%-12s %7s  %8s  %8s  %6s  %8s  %6s  %9s\n", "policy", "threads", "put ns", "get ns",
           "get x", "mix ns", "mix x", "entries");
    for (int row = 0; row <= NPOL + 2; row++) {
        /* then hotscore in one shard, in 4 MiB, and without its chooser */
        int p = row < NPOL ? row : 0;
        double get1 = 0, mix1 = 0;
        for (int threads = 1; threads <= 2; threads++) {
            hotcache_config_t c;
            hotcache_config_default(&c, POLICIES[p].policy, row == NPOL + 1 ? cap / 16 : cap);
            if (row == NPOL) c.shards = 1;
            if (row == NPOL + 2) c.chooser = 0;
            hotcache_t *h;
            if (hotcache_create(&c, &h) != SCBF_OK) {
                free(keys);
                return 1;
            }
            double put_ns = timed(h, keys, n, threads, OP_PUT);
            double get_ns = timed(h, keys, n, threads, OP_GET);
            double mix_ns = timed(h, keys, n, threads, OP_GET_OR_PUT);
            if (threads == 1) {
                get1 = get_ns;
                mix1 = mix_ns;
            }
            hotcache_stats_t st;
            hotcache_stats(h, &st);
            char name[24];
            snprintf(name, sizeof name, "%s%s", POLICIES[p].name,
                     row == NPOL       ? " x1"
                     : row == NPOL + 1 ? " 4M"
                     : row == NPOL + 2 ? " -ch"
                                       : "");
            printf("%-12s %7d  %8.0f  %8.0f  %6.2f  %8.0f  %6.2f  %9llu\n", name, threads, put_ns,
                   get_ns, get1 / get_ns, mix_ns, mix1 / mix_ns, (unsigned long long)st.entries);
            hotcache_free(h);
        }
    }
    free(keys);
    return 0;
}

/* Per-operation latency: is any single get or put slow (a period close, an
 * aging pass, a rehash)? Every op is timed on its own; the clock costs about
 * 20 ns, and the OS's own interruptions also land in the tail, so the
 * policies are compared side by side in one run. */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int latency_rows(int quick) {
    const uint64_t cap = UINT64_C(64) << 20;
    size_t n = quick ? 200000 : 2000000;
    uint64_t *keys = zipf_trace(1000000, n, 0.99, 9);
    uint64_t *ns = malloc(n * sizeof *ns);
    if (!keys || !ns) {
        free(keys);
        free(ns);
        return 1;
    }
    printf(
        "\nper-operation latency once the cache is full (after an untimed pass), get and put on\n"
        "a miss, 64 MiB, Zipf 0.99 over 1M keys, %zu ops, 1 thread (adaptive: hotscore\n"
        "without its chooser):\n\n",
        n);
    printf("%-9s %8s %8s %8s %10s %10s\n", "policy", "p50 ns", "p99 ns", "p99.9 ns", "max ns",
           "ops >10us");
    /* the last row: hotscore without its chooser, so the chooser's cost
     * shows beside it in the same run */
    for (int row = 0; row <= NPOL; row++) {
        int p = row < NPOL ? row : 0;
        hotcache_config_t c;
        hotcache_config_default(&c, POLICIES[p].policy, cap);
        if (row == NPOL) c.chooser = 0;
        hotcache_t *h;
        if (hotcache_create(&c, &h) != SCBF_OK) break;
        unsigned char v[VALUE_BYTES] = {0}, buf[VALUE_BYTES];
        /* First an untimed pass, so the table has grown and the memory is
         * mapped: the timed pass sees the steady state (a full cache). */
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < n; i++) {
                uint64_t k = keys[i] * UINT64_C(0x9E3779B97F4A7C15);
                size_t vlen;
                uint64_t t0 = bench_now_ns();
                if (hotcache_get(h, &k, 8, buf, sizeof buf, &vlen) == SCBF_E_NOT_FOUND)
                    hotcache_put(h, &k, 8, v, sizeof v, NULL);
                ns[i] = bench_now_ns() - t0;
            }
        hotcache_free(h);
        size_t slow = 0;
        for (size_t i = 0; i < n; i++) slow += ns[i] > 10000;
        qsort(ns, n, sizeof *ns, cmp_u64);
        printf("%-9s %8llu %8llu %8llu %10llu %10zu\n", row < NPOL ? POLICIES[p].name : "adaptive",
               (unsigned long long)ns[n / 2], (unsigned long long)ns[n / 100 * 99],
               (unsigned long long)ns[n / 1000 * 999], (unsigned long long)ns[n - 1], slow);
    }
    free(keys);
    free(ns);
    return 0;
}

int bench_cache(int argc, char **argv) {
    int quick = 0;
    const char *traces = NULL, *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--traces") && i + 1 < argc)
            traces = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: scbf-bench cache [--quick] [--traces DIR] [--csv FILE]\n");
            return 2;
        }
    }
    summary_t sum;
    memset(&sum, 0, sizeof sum);
    if (csv) {
        sum.csv = fopen(csv, "w");
        if (!sum.csv) {
            fprintf(stderr, "scbf-bench cache: cannot write %s\n", csv);
            return 1;
        }
        fprintf(sum.csv, "kind,workload,entries,reference,hotscore,paper,lru,opt\n");
    }
    size_t accesses = quick ? 200000 : 1000000;
    printf("cache hit ratios, unit-size entries, get then put on a miss. hotscore = adaptive\n"
           "(the default), paper = the HiBase formula (period 8 x entries, a = 0.2, 2 ghosts per\n"
           "entry), OPT = Belady with bypass. Zipf: 100k keys, %zu accesses, fixed seeds, cache\n"
           "= 1/5/20%% of the keys. Traces: ../shared/traces at the reference capacity (1x) and\n"
           "1/4, 1/2, 2, 4 times it.\n\n",
           accesses);
    printf("%-12s %6s %7s  %-6s  %-6s  %-6s  %-6s  %-7s  %-7s\n", "workload", "cache", "entries",
           "hot", "paper", "lru", "opt", "hot-lru", "hot-opt");
    static const double alphas[] = {0.6, 0.8, 0.99, 1.2};
    static const double fractions[] = {0.01, 0.05, 0.20};
    int rc = 0;
    for (int a = 0; a < 4 && !rc; a++) {
        uint64_t *t = zipf_trace(100000, accesses, alphas[a], 42 + (uint64_t)a);
        if (!t) return 1;
        char name[32];
        snprintf(name, sizeof name, "zipf-%.2f", alphas[a]);
        for (int f = 0; f < 3 && !rc; f++) {
            char label[16];
            snprintf(label, sizeof label, "%.0f%%", fractions[f] * 100);
            rc = hit_ratio_row(name, "zipf", t, accesses, (uint64_t)(fractions[f] * 100000), label,
                               0, &sum);
        }
        free(t);
    }
    const char *dir = find_traces(traces);
    if (!rc && !dir) {
        fprintf(stderr, "scbf-bench cache: no trace directory (use --traces DIR)\n");
        rc = 1;
    }
    if (!rc) rc = trace_rows(dir, quick, &sum);
    if (sum.csv) fclose(sum.csv);
    if (rc) return rc;
    printf("\n%-10s %22s %22s %18s\n", "policy", "mean gap to OPT (1x)", "mean gap (all sizes)",
           "worst vs LRU");
    for (int p = 0; p < NPOL; p++)
        printf("%-10s %22.4f %22.4f %+18.4f\n", POLICIES[p].name, sum.ref_gap_sum[p] / sum.ref_rows,
               sum.gap_sum[p] / sum.rows, sum.worst_vs_lru[p]);
    printf("Zipf, worst hotscore - paper: %+.4f\n", sum.worst_zipf_vs_paper);
    if (sharding_rows(dir, quick)) return 1;
    if (latency_rows(quick)) return 1;
    return cost_rows(quick);
}
