/* Internal: the adaptive policy's online choice among policies.
 *
 * Beside the real cache run miniature simulations (Waldspurger et al.,
 * "Cache Modeling and Optimization using Miniature Simulations", USENIX ATC
 * 2017) of LIRS, S3-FIFO and W-TinyLFU (mini.h): each sees only the keys
 * whose hash falls in a fixed sample (spatial sampling, rate R), with R times
 * the cache's entries, so its hit ratio estimates the full-size policy's.
 * On the same sampled keys the chooser counts the real cache's own hits and
 * those of the full-size shadow LRU the adaptive policy already runs. Every
 * period it compares the decayed counts and says which mode the real cache
 * should run in; the cache moves there without a flush (adaptive.c).
 *
 * Cost: O(1) amortized per sampled lookup, nothing for the others; memory
 * chooser_bytes, held to 2% of the cache (chooser_size). */
#ifndef SCBF_CACHE_CHOOSER_H
#define SCBF_CACHE_CHOOSER_H

#include <stdint.h>

#include "idmap.h"
#include "mini.h"

/* Shadows smaller than this say little (LIRS's 1% HIR set is one entry)... */
#define CHOOSER_MIN_MINI 64
/* ... and larger ones cost CPU on more sampled keys for accuracy the
 * decision does not need. */
#define CHOOSER_MAX_MINI 1024
/* Sampled lookups between decisions: PERIOD_PER_MINI per shadow entry, at
 * least MIN_PERIOD. */
#define CHOOSER_MIN_PERIOD      512
#define CHOOSER_PERIOD_PER_MINI 4
/* A shadow must lead the real cache by this share of the lookups... */
#define CHOOSER_SWITCH_MARGIN 0.01
/* ... and by this many standard deviations (see chooser.c, significant). */
#define CHOOSER_SWITCH_Z 2.0
/* Decisions a mode that failed its trial stays out. */
#define CHOOSER_VETO_PERIODS 64

/* The real cache's modes. */
typedef enum {
    MODE_ADAPTIVE = 0, /* the window tuned against the shadow LRU */
    MODE_FREQUENCY,    /* LIRS or W-TinyLFU won: a 1% window, sketch admission */
    MODE_FIFO,         /* S3-FIFO won: a 10% window, admission by a hit in it */
    NMODES
} chooser_mode;

/* The counted candidates: the real cache, the full-size shadow LRU, and
 * the three sampled shadows. */
enum { C_REAL = 0, C_LRU, C_LIRS, C_S3FIFO, C_WTINYLFU, NCAND };

/* One shadow's keys: the id it is accessing is released after the access,
 * and only if the shadow stopped tracking it (see mini_*_tracks). */
typedef struct {
    idmap_t map;
    uint32_t accessing;
    int forgot_accessing;
} chooser_keys_t;

typedef struct {
    chooser_keys_t keys[3]; /* LIRS, S3-FIFO, W-TinyLFU */
    mini_lirs_t lirs;
    mini_s3fifo_t s3fifo;
    mini_wtinylfu_t wtinylfu;
    uint64_t threshold;    /* a hash is sampled if its bits 24..55 are below this */
    uint64_t mini_entries; /* the shadows' capacity */
    uint64_t period;       /* sampled lookups between decisions */
    uint64_t in_period, decisions;
    uint32_t veto[NMODES]; /* periods a mode that failed its trial stays out */
    int in_trial;
    chooser_mode trial_from;
    double trial_edge;    /* the real cache's lead over LRU before the switch */
    double trial_hits[2]; /* the real cache's and LRU's since the switch */
    double trial_lookups;
    double hits[NCAND]; /* decayed: halved at every decision */
    double won[NCAND];  /* lookups k hit and the real cache missed, decayed */
    double lost[NCAND]; /* lookups the real cache hit and k missed, decayed */
    double lookups;     /* decayed the same way */
    chooser_mode mode;
    int enabled;
} chooser_t;

/* The shadows' entries for a cache of `entries` entries whose budget for
 * shadows is `budget` bytes; 0 if even the smallest shadows would not fit. */
uint64_t chooser_size(uint64_t entries, uint64_t budget);
/* The same, but never fewer than CHOOSER_MIN_MINI (or the cache's entries):
 * the trace simulator's unit-size caches, whose bytes are nominal. */
uint64_t chooser_size_floor(uint64_t entries, uint64_t budget);
/* Bytes the chooser allocates with shadows of `mini` entries. */
uint64_t chooser_bytes(uint64_t mini);
/* Shadows of `mini` entries for a cache of `entries`; mini == 0 disables
 * the chooser (it then stays in MODE_ADAPTIVE). 0, or -1 out of memory. */
int chooser_init(chooser_t *c, uint64_t entries, uint64_t mini);
void chooser_destroy(chooser_t *c);
void chooser_clear(chooser_t *c);
/* Whether a lookup of `hash` is in the sample. */
int chooser_sampled(const chooser_t *c, uint64_t hash);
/* A sampled lookup: did the real cache and the shadow LRU hit it? Returns
 * the mode the cache should now be in. */
chooser_mode chooser_access(chooser_t *c, uint64_t hash, int real_hit, int lru_hit);

#endif
