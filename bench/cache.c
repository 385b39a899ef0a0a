/*
 * bench/cache.c - hotscore vs LRU vs Belady's OPT hit ratios (Zipf and the
 * LIRS traces), and get/put cost of the byte-bounded cache, 1 and 2 threads.
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

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t distinct(const uint64_t *t, size_t n) {
    uint64_t *c = malloc(n * sizeof *c);
    if (!c) return 0;
    memcpy(c, t, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u64);
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += i == 0 || c[i] != c[i - 1];
    free(c);
    return d;
}

typedef struct {
    double gap_sum, worst_vs_lru;
    int rows;
} summary_t;

static int hit_ratio_rows(const char *name, const uint64_t *t, size_t n, summary_t *sum) {
    static const double fractions[] = {0.05, 0.10, 0.20};
    size_t d = distinct(t, n);
    for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
        uint64_t entries = (uint64_t)(fractions[f] * (double)d);
        uint64_t hot, lru, opt;
        hotcache_config_t c;
        cache_sim_config(&c, HOTCACHE_HOTSCORE, entries);
        int rc = cache_sim_replay(&c, t, n, &hot);
        cache_sim_config(&c, HOTCACHE_LRU, entries);
        if (rc == SCBF_OK) rc = cache_sim_replay(&c, t, n, &lru);
        if (rc == SCBF_OK) rc = cache_sim_opt(t, n, entries, &opt);
        if (rc != SCBF_OK) {
            fprintf(stderr, "scbf-bench cache: %s: %s\n", name, scbf_strerror(rc));
            return 1;
        }
        double H = (double)hot / (double)n, L = (double)lru / (double)n,
               O = (double)opt / (double)n;
        printf("%-14s %4.0f%% %7llu  %.4f  %.4f  %.4f  %+.4f  %+.4f\n", name, fractions[f] * 100,
               (unsigned long long)entries, H, L, O, H - L, H - O);
        sum->gap_sum += O - H;
        if (sum->rows == 0 || H - L < sum->worst_vs_lru) sum->worst_vs_lru = H - L;
        sum->rows++;
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

static int trace_rows(const char *dir, summary_t *sum) {
    static const char *names[] = {"cpp", "loop", "multi1", "zigzag"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "zcat '%s/%s.trace.gz'", dir, names[i]);
        FILE *p = popen(cmd, "r");
        if (!p) {
            fprintf(stderr, "scbf-bench cache: cannot run %s\n", cmd);
            return 1;
        }
        uint64_t *t = NULL;
        size_t n = 0;
        int rc = cache_sim_read_trace(p, &t, &n);
        int status = pclose(p);
        if (rc != SCBF_OK || status != 0 || n == 0) {
            fprintf(stderr, "scbf-bench cache: cannot read %s/%s.trace.gz\n", dir, names[i]);
            free(t);
            return 1;
        }
        char label[32];
        snprintf(label, sizeof label, "%s", names[i]);
        rc = hit_ratio_rows(label, t, n, sum);
        free(t);
        if (rc) return rc;
    }
    return 0;
}

/* ---- get/put cost --------------------------------------------------------- */

#define VALUE_BYTES 100

typedef struct {
    hotcache_t *h;
    const uint64_t *keys;
    size_t n;
    int put;
} job_t;

static void *run_job(void *p) {
    job_t *j = p;
    unsigned char v[VALUE_BYTES] = {0}, buf[VALUE_BYTES];
    for (size_t i = 0; i < j->n; i++) {
        unsigned char k[8];
        memcpy(k, &j->keys[i], 8);
        size_t vlen;
        if (j->put)
            hotcache_put(j->h, k, 8, v, sizeof v, NULL);
        else
            hotcache_get(j->h, k, 8, buf, sizeof buf, &vlen);
    }
    return NULL;
}

/* Wall-clock ns per operation with `threads` threads splitting the keys. */
static double timed(hotcache_t *h, const uint64_t *keys, size_t n, int threads, int put) {
    pthread_t t[2];
    job_t j[2];
    size_t per = n / (size_t)threads;
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < threads; i++) {
        j[i] = (job_t){h, keys + (size_t)i * per, per, put};
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
    printf("\nget/put cost: capacity 64 MiB, 8-byte keys, %d-byte values, Zipf 0.99 over 1M keys,\n"
           "%zu puts then %zu gets per row; ns per op = wall time / ops (all threads\n"
           "together); entries = what the 64 MiB held (hotscore reserves 1/4 for ghosts)\n\n",
           VALUE_BYTES, n, n);
    printf("%-9s %7s  %8s  %8s  %9s\n", "policy", "threads", "put ns", "get ns", "entries");
    for (int p = 0; p < 2; p++) {
        for (int threads = 1; threads <= 2; threads++) {
            hotcache_config_t c;
            hotcache_config_default(&c, p ? HOTCACHE_LRU : HOTCACHE_HOTSCORE, cap);
            hotcache_t *h;
            if (hotcache_create(&c, &h) != SCBF_OK) {
                free(keys);
                return 1;
            }
            double put_ns = timed(h, keys, n, threads, 1);
            double get_ns = timed(h, keys, n, threads, 0);
            hotcache_stats_t st;
            hotcache_stats(h, &st);
            printf("%-9s %7d  %8.0f  %8.0f  %9llu\n", p ? "lru" : "hotscore", threads, put_ns,
                   get_ns, (unsigned long long)st.entries);
            hotcache_free(h);
        }
    }
    free(keys);
    return 0;
}

int bench_cache(int argc, char **argv) {
    int quick = 0;
    const char *traces = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--traces") && i + 1 < argc)
            traces = argv[++i];
        else {
            fprintf(stderr, "usage: scbf-bench cache [--quick] [--traces DIR]\n");
            return 2;
        }
    }
    size_t accesses = quick ? 200000 : 1000000;
    printf("cache hit ratios: Zipf = 100k keys, %zu accesses, fixed seeds; cache = 5/10/20%%\n"
           "of the distinct keys; unit-size entries; hotscore defaults (period 8 x entries,\n"
           "a = 0.2, 2 ghosts per entry)\n\n",
           accesses);
    printf("%-14s %5s %7s  %-6s  %-6s  %-6s  %-7s  %-7s\n", "workload", "cache", "entries", "hot",
           "lru", "opt", "hot-lru", "hot-opt");
    summary_t sum = {0, 0, 0};
    static const double alphas[] = {0.8, 0.99};
    for (int a = 0; a < 2; a++) {
        uint64_t *t = zipf_trace(100000, accesses, alphas[a], 42 + (uint64_t)a);
        if (!t) return 1;
        char name[32];
        snprintf(name, sizeof name, "zipf-%.2f", alphas[a]);
        int rc = hit_ratio_rows(name, t, accesses, &sum);
        free(t);
        if (rc) return rc;
    }
    const char *dir = find_traces(traces);
    if (!dir) {
        fprintf(stderr, "scbf-bench cache: no trace directory (use --traces DIR)\n");
        return 1;
    }
    if (trace_rows(dir, &sum)) return 1;
    printf("\naverage gap to OPT: %.4f (target <= 0.05)\n", sum.gap_sum / sum.rows);
    printf("worst hotscore - LRU: %+.4f (target >= -0.01)\n", sum.worst_vs_lru);
    return cost_rows(quick);
}
