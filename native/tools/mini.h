/* Internal to the simulator: LIRS, S3-FIFO and W-TinyLFU one access at a
 * time over a trace's dense key ids (0 .. distinct-1, never reused), with
 * unit-size entries. ref_policy.c replays traces through them to compare
 * hotcache with the published hit ratios. Each *_access returns 1 on a hit,
 * 0 on a miss (the key is then inserted; W-TinyLFU may drop it at once).
 *
 * Every per-id array is sized by `distinct` at init, so an access is O(1)
 * amortized and allocates nothing; a policy may keep any number of ids
 * (LIRS's non-resident keys are unbounded, as in the paper). */
#ifndef SCBF_TOOLS_MINI_H
#define SCBF_TOOLS_MINI_H

#include <stddef.h>
#include <stdint.h>

#include "idlist.h"

/* ---- LIRS (Jiang and Zhang, SIGMETRICS 2002) ----------------------------- */

typedef struct {
    ref_links_t ls, lq; /* stack links; queue links (resident HIR keys) */
    ref_list_t s, q;
    unsigned char *status, *in_s;
    uint64_t lir_count, lir_cap, capacity;
} mini_lirs_t;

/* Capacity >= 2. */
int mini_lirs_init(mini_lirs_t *c, uint64_t capacity, size_t distinct);
int mini_lirs_access(mini_lirs_t *c, uint32_t id);
void mini_lirs_free(mini_lirs_t *c);

/* ---- S3-FIFO (Yang et al., SOSP 2023) ------------------------------------ */

typedef struct {
    ref_links_t l;
    ref_list_t s, m, g;
    unsigned char *where, *freq;
    uint64_t capacity, s_cap, m_cap;
} mini_s3fifo_t;

int mini_s3fifo_init(mini_s3fifo_t *c, uint64_t capacity, size_t distinct);
int mini_s3fifo_access(mini_s3fifo_t *c, uint32_t id);
void mini_s3fifo_free(mini_s3fifo_t *c);

/* ---- W-TinyLFU (Einziger, Friedman and Manes, ACM TOS 2017; Caffeine) ---- */

typedef struct {
    uint64_t *table;
    uint64_t mask, size, sample;
} mini_sketch_t;

typedef struct {
    ref_links_t l;
    ref_list_t window, probation, protect;
    unsigned char *where;
    uint64_t *key_of;
    mini_sketch_t sketch;
    uint64_t capacity, window_max, protected_max;
    int climbing; /* Caffeine's hill climber; else a fixed 1% window */
    uint64_t sample_hits, sample_misses;
    double prev_rate, step;
} mini_wtinylfu_t;

int mini_wtinylfu_init(mini_wtinylfu_t *c, uint64_t capacity, int climbing, size_t distinct);
/* `key` feeds the frequency sketch, hashed as Caffeine hashes a long. */
int mini_wtinylfu_access(mini_wtinylfu_t *c, uint32_t id, uint64_t key);
void mini_wtinylfu_free(mini_wtinylfu_t *c);

#endif
