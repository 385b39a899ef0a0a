/* scbf cache-sim: replay a key trace through adaptive hotscore (the
 * default), the paper's hotscore, LRU or Belady's OPT with unit-size
 * entries and print the hit ratio. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cache_sim.h"

static const char USAGE[] =
    "[--policy POLICY] --capacity ENTRIES [--period LOOKUPS]\n"
    "       [--decay A] [--ghosts N] TRACE_FILE\n"
    "  TRACE_FILE: one integer key per line (other lines are skipped); '-' reads\n"
    "  stdin, so a gzipped trace replays with: zcat t.gz | scbf cache-sim ... -\n"
    "  hotscore (the default) is the adaptive policy, choosing its mode from\n"
    "  sampled shadows of itself; hotscore-adaptive the same with one mode\n"
    "  (hotscore-chooser: hotscore's old name); paper is the HiBase\n"
    "  formula, which --period, --decay, --ghosts tune (defaults: 8 x ENTRIES,\n"
    "  0.2, 2 x ENTRIES).\n"
    "  POLICY: hotcache's own, hotscore (default), hotscore-adaptive, paper or lru;\n"
    "  Belady's opt;\n"
    "  or a reference policy: arc, lirs, s3fifo, sieve, wtinylfu (Caffeine's\n"
    "  hill climber) or wtinylfu-1pct (a fixed 1% window).";

static int usage_error(const char *msg) { return cli_usage_error("cache-sim", USAGE, msg); }

int cmd_cache_sim(int argc, char **argv) {
    const char *policy = NULL, *path = NULL;
    uint64_t entries = 0, period = 0, ghosts = 0;
    double decay = 0;
    int have_entries = 0, have_period = 0, have_decay = 0, have_ghosts = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: scbf cache-sim %s\n", USAGE);
            return 0;
        }
        if (a[0] == '-' && a[1] == '-') {
            if (i + 1 >= argc) return usage_error("option needs a value");
            const char *v = argv[++i];
            if (!strcmp(a, "--policy")) {
                policy = v;
            } else if (!strcmp(a, "--capacity")) {
                if (cli_parse_u64(v, &entries) || entries == 0)
                    return usage_error("--capacity must be a positive integer");
                have_entries = 1;
            } else if (!strcmp(a, "--period")) {
                if (cli_parse_u64(v, &period) || period == 0 || period > UINT32_MAX)
                    return usage_error("--period must be an integer in [1, 2^32)");
                have_period = 1;
            } else if (!strcmp(a, "--decay")) {
                if (cli_parse_double(v, &decay) || !(decay > 0 && decay <= 1))
                    return usage_error("--decay must be in (0, 1]");
                have_decay = 1;
            } else if (!strcmp(a, "--ghosts")) {
                if (cli_parse_u64(v, &ghosts) || ghosts == 0)
                    return usage_error("--ghosts must be a positive integer");
                have_ghosts = 1;
            } else {
                return usage_error("unknown option");
            }
        } else if (!path) {
            path = a;
        } else {
            return usage_error("more than one trace file");
        }
    }
    if (!policy) policy = "hotscore";
    int opt = !strcmp(policy, "opt");
    int reference = cache_sim_is_reference(policy);
    hotcache_policy kind = HOTCACHE_HOTSCORE;
    /* hotscore chooses its mode by default; hotscore-chooser, its name
     * while that was a setting, stays accepted */
    int alone = !strcmp(policy, "hotscore-adaptive");
    if (!strcmp(policy, "hotscore") || !strcmp(policy, "hotscore-chooser") || alone)
        kind = HOTCACHE_HOTSCORE;
    else if (!strcmp(policy, "paper"))
        kind = HOTCACHE_PAPER;
    else if (!strcmp(policy, "lru"))
        kind = HOTCACHE_LRU;
    else if (!opt && !reference)
        return usage_error("--policy must be hotscore, hotscore-adaptive, paper, lru, opt, arc, "
                           "lirs, s3fifo, sieve,"
                           " wtinylfu or wtinylfu-1pct");
    if (!have_entries) return usage_error("--capacity is required");
    if (!strcmp(policy, "lirs") && entries < 2) return usage_error("lirs needs --capacity >= 2");
    if (!path) return usage_error("a trace file is required");
    if ((opt || reference || kind != HOTCACHE_PAPER) && (have_period || have_decay || have_ghosts))
        return usage_error("--period, --decay and --ghosts apply to paper only");

    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "scbf cache-sim: cannot open '%s': %s\n", path, strerror(errno));
        return 1;
    }
    uint64_t *keys = NULL;
    size_t n = 0;
    int rc = cache_sim_read_trace(f, &keys, &n);
    if (f != stdin) fclose(f);
    if (rc != SCBF_OK) {
        fprintf(stderr, "scbf cache-sim: reading '%s': %s\n", path,
                rc == SCBF_E_ITER ? strerror(errno) : scbf_strerror(rc));
        return 1;
    }
    if (n == 0) {
        fprintf(stderr, "scbf cache-sim: '%s' holds no keys\n", path);
        free(keys);
        return 1;
    }

    uint64_t hits = 0;
    if (opt) {
        rc = cache_sim_opt(keys, n, entries, &hits);
    } else if (reference) {
        rc = cache_sim_reference(policy, keys, n, entries, &hits);
    } else {
        hotcache_config_t c;
        cache_sim_config(&c, kind, entries);
        if (alone) c.chooser = 0;
        if (have_period) c.period = (uint32_t)period;
        if (have_decay) c.decay = decay;
        if (have_ghosts) c.ghost_entries = ghosts;
        rc = cache_sim_replay(&c, keys, n, &hits);
    }
    free(keys);
    if (rc != SCBF_OK) {
        fprintf(stderr, "scbf cache-sim: %s\n", scbf_strerror(rc));
        return 1;
    }
    printf("policy=%s capacity=%llu accesses=%zu hits=%llu\n", policy, (unsigned long long)entries,
           n, (unsigned long long)hits);
    printf("hit_ratio=%.4f\n", (double)hits / (double)n);
    return 0;
}
