/* Internal: the adaptive policy's online choice of its mode.
 *
 * The real cache can run in a few modes (below). Beside it run miniature
 * simulations (Waldspurger et al., "Cache Modeling and Optimization using
 * Miniature Simulations", USENIX ATC 2017) of the cache itself, one fixed in
 * each mode (adaptive.c, mode shadows): each sees only the keys whose hash
 * falls in a fixed sample (spatial sampling, rate R), with R times the
 * cache's entries, so its hits estimate what the full cache would hit in that
 * mode. The chooser counts their hits and, every period, says which mode the
 * real cache should run in; the cache moves there without a flush.
 *
 * An earlier chooser ran shadows of LIRS, S3-FIFO and W-TinyLFU and sent the
 * cache to the mode that resembled the winner; the modes are not those
 * policies, so it often moved the cache where the cache itself lost
 * (docs/benchmarks-cache.md). Simulating the modes asks the right question.
 *
 * This file is only the decision: O(1) per sampled lookup, no allocation. */
#ifndef SCBF_CACHE_CHOOSER_H
#define SCBF_CACHE_CHOOSER_H

#include <stdint.h>

/* Shadows smaller than this say little... */
#define CHOOSER_MIN_MINI 64
/* ... and larger ones cost CPU on more sampled keys for accuracy the
 * decision does not need. */
#define CHOOSER_MAX_MINI 1024
/* Sampled lookups between decisions: one per shadow entry, at least
 * MIN_PERIOD; at each decision the counts are scaled by KEEP, so they
 * remember about 1 / (1 - KEEP) periods. Deciding often on a long memory:
 * the traces are often shorter than a few hundred periods of the first
 * chooser (4 x the shadow, memory of 2 periods), which then never left the
 * adaptive mode; a short memory followed each phase of a workload and paid
 * a switch every time (docs/benchmarks-cache.md, "Choosing the mode"). */
#define CHOOSER_MIN_PERIOD 128
#define CHOOSER_KEEP       0.95
/* A mode's shadow must lead the current mode's by this share of the
 * lookups... */
#define CHOOSER_SWITCH_MARGIN 0.01
/* ... and by this many standard deviations (see chooser.c). */
#define CHOOSER_SWITCH_Z 3.0

/* The real cache's modes. */
typedef enum {
    MODE_ADAPTIVE = 0, /* the window tuned against the shadow LRU */
    MODE_FREQUENCY,    /* a 1% window, sketch admission (W-TinyLFU's setting) */
    MODE_FIFO,         /* a 25% window, admission by a hit in it (S3-FIFO's rule) */
    NMODES
} chooser_mode;

typedef struct {
    uint64_t threshold; /* a hash is sampled if its bits 24..55 are below this */
    uint64_t period;    /* sampled lookups between decisions */
    uint64_t in_period, switches;
    double hits[NMODES];        /* decayed: halved at every decision */
    double won[NMODES][NMODES]; /* won[a][b]: lookups a's shadow hit and b's missed, decayed */
    double lookups;             /* decayed the same way */
    chooser_mode mode;
    int enabled;
} chooser_t;

/* The shadows' entries for a cache of `entries` entries, given what a
 * shadow of m entries takes (shadow_bytes(m), for all modes together) and
 * the bytes they may take; 0 if even the smallest would not fit. */
uint64_t chooser_size(uint64_t entries, uint64_t budget, uint64_t (*shadow_bytes)(uint64_t));
/* Sampling for shadows of `mini` entries beside a cache of `entries`;
 * mini == 0 disables the chooser (it then stays in MODE_ADAPTIVE). */
void chooser_init(chooser_t *c, uint64_t entries, uint64_t mini);
/* Counts restart; the mode goes back to the adaptive one. */
void chooser_clear(chooser_t *c);
/* Whether a lookup of `hash` is in the sample. */
int chooser_sampled(const chooser_t *c, uint64_t hash);
/* A sampled lookup: which mode shadows hit it. Returns the mode the cache
 * should now be in. */
chooser_mode chooser_vote(chooser_t *c, const int hit[NMODES]);

#endif
