/* Internal: cache policies one access at a time over small integer key ids,
 * with unit-size entries: LIRS, S3-FIFO and W-TinyLFU. One implementation
 * of each serves the simulator's reference replays (native/tools, over a
 * trace's dense ids, reproducing the published hit ratios) and the
 * chooser's sampled shadow simulations (chooser.c, over the slots of an
 * idmap).
 *
 * A policy tracks at most *_slots(capacity) ids at once, counting the one
 * just accessed; when it stops tracking one it calls `forget`, so a shadow
 * can give the slot to another key (dense replays pass no forget). Every
 * access is O(1) amortized and allocates nothing. */
#ifndef SCBF_CACHE_MINI_H
#define SCBF_CACHE_MINI_H

#include <stddef.h>
#include <stdint.h>

#include "idlist.h"

typedef struct {
    void (*fn)(void *ctx, uint32_t id);
    void *ctx;
} mini_forget_t;

/* ---- LIRS (Jiang and Zhang, SIGMETRICS 2002) ----------------------------- */

typedef struct {
    ref_links_t ls, lq; /* stack links; queue links (resident HIR in q, non-resident in gone) */
    ref_list_t s, q, gone;
    unsigned char *status, *in_s;
    uint64_t lir_count, lir_cap, capacity, max_gone;
    mini_forget_t forget;
} mini_lirs_t;

/* max_gone bounds the non-resident HIR keys kept in the stack (the oldest
 * is dropped); 0: unbounded, as the paper has it. Capacity >= 2. */
int mini_lirs_init(mini_lirs_t *c, uint64_t capacity, uint64_t max_gone, size_t slots,
                   mini_forget_t forget);
size_t mini_lirs_slots(uint64_t capacity, uint64_t max_gone);
int mini_lirs_access(mini_lirs_t *c, uint32_t id);
void mini_lirs_free(mini_lirs_t *c);

/* ---- S3-FIFO (Yang et al., SOSP 2023) ------------------------------------ */

typedef struct {
    ref_links_t l;
    ref_list_t s, m, g;
    unsigned char *where, *freq;
    uint64_t capacity, s_cap, m_cap;
    mini_forget_t forget;
} mini_s3fifo_t;

int mini_s3fifo_init(mini_s3fifo_t *c, uint64_t capacity, size_t slots, mini_forget_t forget);
size_t mini_s3fifo_slots(uint64_t capacity);
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
    mini_forget_t forget;
} mini_wtinylfu_t;

int mini_wtinylfu_init(mini_wtinylfu_t *c, uint64_t capacity, int climbing, size_t slots,
                       mini_forget_t forget);
size_t mini_wtinylfu_slots(uint64_t capacity);
/* `key` feeds the frequency sketch, hashed as Caffeine hashes a long. */
int mini_wtinylfu_access(mini_wtinylfu_t *c, uint32_t id, uint64_t key);
void mini_wtinylfu_free(mini_wtinylfu_t *c);

/* Whether the policy tracks `id` now (once it called forget on it, it may
 * track it again within the same access: S3-FIFO's ghost, re-inserted). */
static inline int mini_lirs_tracks(const mini_lirs_t *c, uint32_t id) { return c->status[id] != 0; }
static inline int mini_s3fifo_tracks(const mini_s3fifo_t *c, uint32_t id) {
    return c->where[id] != 0;
}
static inline int mini_wtinylfu_tracks(const mini_wtinylfu_t *c, uint32_t id) {
    return c->where[id] != 0;
}

/* Bytes each policy allocates for `slots` ids (W-TinyLFU: and its sketch). */
uint64_t mini_lirs_bytes(size_t slots);
uint64_t mini_s3fifo_bytes(size_t slots);
uint64_t mini_wtinylfu_bytes(size_t slots, uint64_t capacity);

#endif
