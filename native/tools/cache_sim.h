/* Internal: cache trace replay shared by `scbf cache-sim` and scbf-bench.
 * Traces are arrays of integer keys; entries are unit-size (the cache is
 * bounded by max_entries, with a byte capacity too large to matter). */
#ifndef SCBF_CACHE_SIM_H
#define SCBF_CACHE_SIM_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "scbf/hotcache.h"

/* Reads one integer key per line (optional sign, surrounding blanks);
 * every other line is skipped. *keys is malloc'd, owned by the caller.
 * SCBF_E_ITER on a read error, SCBF_E_NOMEM. */
int cache_sim_read_trace(FILE *f, uint64_t **keys, size_t *n);

/* Unit-size configuration holding `entries` entries, with the simulator's
 * tuned hotscore defaults (see docs/benchmarks-cache.md). */
void cache_sim_config(hotcache_config_t *c, hotcache_policy policy, uint64_t entries);

/* Replays keys through a hotcache built from c: get, and put on a miss. */
int cache_sim_replay(const hotcache_config_t *c, const uint64_t *keys, size_t n, uint64_t *hits);

/* Replays keys through a reference policy (ref_policy.h) named `policy`:
 * SCBF_E_INVALID_ARG if there is none by that name. */
int cache_sim_reference(const char *policy, const uint64_t *keys, size_t n, uint64_t entries,
                        uint64_t *hits);

/* 1 if `policy` names a reference policy, else 0. */
int cache_sim_is_reference(const char *policy);

/* Belady's optimum for a cache of `entries` unit-size entries with demand
 * paging and bypass: the maximum number of hits any policy can achieve. */
int cache_sim_opt(const uint64_t *keys, size_t n, uint64_t entries, uint64_t *hits);
#endif
