/*
 * scbf.c - Split Counting Bloom Filter.
 *
 * Layout: slice i owns words [i*wps, (i+1)*wps) of one 64-byte aligned array;
 * counters are packed low bits first (counter j of a slice lives in word
 * j / cpw at bit offset (j % cpw) * bits). Every counter update is a CAS on
 * its 64-bit word, so neighbours updated by other threads are never lost, and
 * a reader sees each counter either before or after any update.
 *
 * Positions: slice i probes (a + i*b + c*i*(i-1)/2) mod m with a = h1 mod m,
 * b = h2 mod m, c = (h1 div m) mod m (see probe_start for why not plain
 * (h1 + i*h2) mod m). All arithmetic is exact (no 64-bit wrap-around), so a
 * Java reader of the snapshot format can reproduce it.
 *
 * Fill: one count of non-zero counters over all slices. Each operation sums
 * the 0 <-> non-zero transitions its own CASes made and publishes the net
 * change with a single atomic add (none when it is 0); batches publish once
 * per chunk. The count is exact once concurrent operations finish, and gives
 * the scalable filter its growth test (mean fill) in O(1). Per-slice fill and
 * saturated counters are needed only by stats, so they are counted from the
 * words on demand instead of being maintained by every operation: keeping
 * them exact per operation cost up to k + 1 atomic adds on shared cache
 * lines, which made single add/remove up to 2.7x slower than a plain
 * counting Bloom filter.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "scbf_internal.h"
#include "hash.h"
#include "probe.h"

/* Keys hashed per chunk of a batch (the hash pairs live on the stack). */
#define BATCH_CHUNK 256
/* Counter lines kept in flight by batch prefetching: enough to cover DRAM
 * latency with the core's outstanding-miss slots, few enough that the
 * prefetched lines are still in L1 when their key is processed. */
#define PREFETCH_LINES 40

struct scbf {
    scbf_params_t p;
    uint64_t cmax;    /* counter maximum (15 or 255), the sticky value */
    uint64_t wps;     /* words per slice */
    uint32_t pf_keys; /* batch prefetch distance in keys */
    _Atomic uint64_t *words;
    void *words_mem; /* allocation backing `words` (aligned inside) */
    /* Non-zero counters, all slices; may dip below 0 transiently (a remove's
     * change published before the add it undoes). Written by nearly every
     * add and remove, so it gets a cache line of its own: otherwise each
     * write would also invalidate the read-only fields above in the other
     * cores' caches. */
    _Alignas(64) _Atomic int64_t nonzero;
};

/* ---------- sizing ---------- */

static int fpr_to_k(double fpr, uint32_t *k) {
    if (!(fpr > 0.0 && fpr < 1.0)) return SCBF_E_INVALID_ARG;
    double kk = ceil(-log2(fpr));
    if (kk < 1.0) kk = 1.0;
    if (kk > SCBF_MAX_K) return SCBF_E_INVALID_ARG;
    *k = (uint32_t)kk;
    return SCBF_OK;
}

/* Keys per position at the optimum: n = M * ln(2)^2 / |ln P|. */
static double keys_per_position(double fpr) {
    double ln2 = log(2.0);
    return ln2 * ln2 / fabs(log(fpr));
}

/* Saturates: an fpr near 1 makes keys_per_position huge, and casting a
 * double at or past 2^64 to uint64_t is undefined behaviour. */
static uint64_t capacity_of(uint64_t positions, double fpr) {
    double c = floor((double)positions * keys_per_position(fpr));
    return c >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)c;
}

static void params_fill(scbf_params_t *out, uint32_t k, uint64_t m, double fpr) {
    memset(out, 0, sizeof *out);
    out->k = k;
    out->m = m;
    out->positions = (uint64_t)k * m;
    out->capacity = capacity_of(out->positions, fpr);
    out->fpr = fpr;
    out->counter_bits = SCBF_DEFAULT_COUNTER_BITS;
    out->seed = 0;
}

int scbf_params_from_positions(uint64_t positions, double fpr, scbf_params_t *out) {
    uint32_t k;
    if (!out) return SCBF_E_INVALID_ARG;
    int rc = fpr_to_k(fpr, &k);
    if (rc) return rc;
    if (positions > SCBF_MAX_POSITIONS) return SCBF_E_TOO_LARGE;
    if (positions < k) return SCBF_E_INVALID_ARG;
    params_fill(out, k, positions / k, fpr);
    return SCBF_OK;
}

int scbf_params_from_capacity(uint64_t capacity, double fpr, scbf_params_t *out) {
    uint32_t k;
    if (!out || capacity == 0) return SCBF_E_INVALID_ARG;
    int rc = fpr_to_k(fpr, &k);
    if (rc) return rc;
    /* The smallest m whose capacity (as from_positions computes it) suffices.
     * capacity_of is monotone in m, so a binary search finds it exactly in at
     * most 36 steps for any input, including ones read from a snapshot. */
    uint64_t lo = 1, hi = SCBF_MAX_POSITIONS / k;
    if (capacity_of((uint64_t)k * hi, fpr) < capacity) return SCBF_E_TOO_LARGE;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (capacity_of((uint64_t)k * mid, fpr) >= capacity)
            hi = mid;
        else
            lo = mid + 1;
    }
    params_fill(out, k, lo, fpr);
    return SCBF_OK;
}

static uint64_t words_per_slice(uint64_t m, uint32_t bits) {
    uint64_t cpw = 64 / bits;
    return (m + cpw - 1) / cpw;
}

uint64_t scbf_params_counter_bytes(const scbf_params_t *p) {
    if (!p || scbf_params_check(p)) return 0;
    return (uint64_t)p->k * words_per_slice(p->m, p->counter_bits) * 8;
}

int scbf_params_check(const scbf_params_t *p) {
    if (!p) return SCBF_E_INVALID_ARG;
    if (p->k < 1 || p->k > SCBF_MAX_K || p->m < 1) return SCBF_E_INVALID_ARG;
    if (p->counter_bits != 4 && p->counter_bits != 8) return SCBF_E_INVALID_ARG;
    if (!(p->fpr > 0.0 && p->fpr < 1.0)) return SCBF_E_INVALID_ARG;
    if (p->m > SCBF_MAX_POSITIONS || (uint64_t)p->k * p->m > SCBF_MAX_POSITIONS)
        return SCBF_E_TOO_LARGE;
    if (p->positions != (uint64_t)p->k * p->m) return SCBF_E_INVALID_ARG;
    return SCBF_OK;
}

int scbf_params_equal(const scbf_params_t *a, const scbf_params_t *b) {
    return a->positions == b->positions && a->k == b->k && a->m == b->m &&
           a->capacity == b->capacity && a->fpr == b->fpr && a->counter_bits == b->counter_bits &&
           a->seed == b->seed;
}

/* ---------- lifecycle ---------- */

int scbf_create(const scbf_params_t *params, scbf_t **out) {
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    int rc = scbf_params_check(params);
    if (rc) return rc;
    /* sizeof *f is a multiple of its 64-byte alignment, as aligned_alloc
     * requires. */
    scbf_t *f = aligned_alloc(_Alignof(scbf_t), sizeof *f);
    if (!f) return SCBF_E_NOMEM;
    memset(f, 0, sizeof *f);
    f->p = *params;
    f->cmax = (UINT64_C(1) << params->counter_bits) - 1;
    f->wps = words_per_slice(params->m, params->counter_bits);
    f->pf_keys = PREFETCH_LINES / params->k;
    if (f->pf_keys < 1) f->pf_keys = 1;
    /* calloc, not aligned_alloc + memset: big filters get lazily zeroed pages. */
    size_t bytes = (size_t)(f->wps * params->k * 8);
    f->words_mem = calloc(1, bytes + 64);
    if (!f->words_mem) {
        scbf_free(f);
        return SCBF_E_NOMEM;
    }
    f->words = (_Atomic uint64_t *)(((uintptr_t)f->words_mem + 63) & ~(uintptr_t)63);
    *out = f;
    return SCBF_OK;
}

void scbf_free(scbf_t *f) {
    if (!f) return;
    free(f->words_mem);
    free(f);
}

const scbf_params_t *scbf_params(const scbf_t *f) { return f ? &f->p : NULL; }

/* ---------- counter words ---------- */

/* Per-counter masks for the packed word: low bit of each counter. */
static inline uint64_t low_bits(uint32_t bits) {
    return bits == 4 ? UINT64_C(0x1111111111111111) : UINT64_C(0x0101010101010101);
}

/* Set bits of y, which has bits only at counters' low bits. The multiply
 * sums them into the top counter (each lower counter's partial sum stays
 * below 2^bits, so nothing carries); only all-set overflows it. Not
 * __builtin_popcountll: the build targets baseline x86-64, where that is a
 * library call, and stats scans run this on every counter word. */
static inline uint32_t count_low_bits(uint64_t y, uint32_t bits) {
    const uint64_t lo = low_bits(bits);
    if (y == lo) return 64 / bits;
    return (uint32_t)((y * lo) >> (64 - bits));
}

/* Non-zero counters in a word (each counter OR-folded onto its low bit). */
static inline uint32_t count_nonzero(uint64_t w, uint32_t bits) {
    uint64_t x = w;
    for (uint32_t s = 1; s < bits; s <<= 1) x |= x >> s;
    return count_low_bits(x & low_bits(bits), bits);
}

/* Counters at their maximum (each counter AND-folded onto its low bit). */
static inline uint32_t count_max(uint64_t w, uint32_t bits) {
    uint64_t x = w;
    for (uint32_t s = 1; s < bits; s <<= 1) x &= x >> s;
    return count_low_bits(x & low_bits(bits), bits);
}

uint64_t scbf_word_count(const scbf_t *f) { return f->wps * f->p.k; }

uint64_t scbf_load_word(const scbf_t *f, uint64_t i) {
    return atomic_load_explicit(&f->words[i], memory_order_relaxed);
}

void scbf_store_word(scbf_t *f, uint64_t i, uint64_t w) {
    atomic_store_explicit(&f->words[i], w, memory_order_relaxed);
}

void scbf_recount(scbf_t *f) {
    const uint32_t bits = f->p.counter_bits;
    int64_t nz = 0;
    for (uint64_t j = 0; j < scbf_word_count(f); j++)
        nz += count_nonzero(atomic_load_explicit(&f->words[j], memory_order_relaxed), bits);
    atomic_store_explicit(&f->nonzero, nz, memory_order_relaxed);
}

/* Forced inlining for the per-key functions: each is instantiated with
 * constant counter width and operation, which only pays off when inlined
 * (GCC otherwise keeps one out-of-line copy of the batch loop with all of
 * them as run-time variables). */
#define HOT static inline __attribute__((always_inline))

/* What a per-key operation reads from the filter, copied into locals once
 * per call: GCC does not keep struct fields in registers across atomic
 * operations, and would otherwise reload them for each counter. The counter
 * width is not here: the hot functions take it as a parameter and are only
 * called with the constants 4 and 8 (WITH_BITS), so each instance has its
 * shifts and masks folded. With the forced inlining this took L2-sized
 * batch contains from 38 to 32 ns per key and batch add from 80 to 72. */
typedef struct {
    _Atomic uint64_t *words;
    uint64_t m, wps;
    uint32_t k;
} geom_t;

static inline geom_t geom_of(const scbf_t *f) {
    geom_t g = {f->words, f->p.m, f->wps, f->p.k};
    return g;
}

/* Runs `stmt` with the constant `bits` equal to the filter's counter width. */
#define WITH_BITS(f, stmt)                                                                         \
    do {                                                                                           \
        if ((f)->p.counter_bits == 4) {                                                            \
            const uint32_t bits = 4;                                                               \
            stmt;                                                                                  \
        } else {                                                                                   \
            const uint32_t bits = 8;                                                               \
            stmt;                                                                                  \
        }                                                                                          \
    } while (0)

/* The word holding position pos of the slice starting at `slice`; *shift
 * gets the counter's bit offset in it. */
HOT _Atomic uint64_t *counter_word(_Atomic uint64_t *slice, uint64_t pos, uint32_t bits,
                                   uint32_t *shift) {
    const uint32_t cpw = 64 / bits;
    *shift = (uint32_t)(pos % cpw) * bits;
    return slice + pos / cpw;
}

/* +1 unless saturated. Returns the counter's value before. */
HOT uint64_t counter_inc(_Atomic uint64_t *w, uint32_t shift, uint32_t bits) {
    const uint64_t cmax = (UINT64_C(1) << bits) - 1;
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        uint64_t c = (old >> shift) & cmax;
        if (c == cmax) return c;
        if (atomic_compare_exchange_weak_explicit(w, &old, old + (UINT64_C(1) << shift),
                                                  memory_order_relaxed, memory_order_relaxed))
            return c;
    }
}

/* -1 unless saturated (sticky) or zero (never below zero). Returns the
 * counter's value before. */
HOT uint64_t counter_dec(_Atomic uint64_t *w, uint32_t shift, uint32_t bits) {
    const uint64_t cmax = (UINT64_C(1) << bits) - 1;
    uint64_t old = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        uint64_t c = (old >> shift) & cmax;
        if (c == cmax || c == 0) return c;
        if (atomic_compare_exchange_weak_explicit(w, &old, old - (UINT64_C(1) << shift),
                                                  memory_order_relaxed, memory_order_relaxed))
            return c;
    }
}

/* ---------- per-key operations ---------- */

/* Publishes a net change of the non-zero count. Skipping zero matters: a
 * key whose counters were all non-zero already (or a remove that emptied
 * none) then touches no shared line at all. */
static inline void publish_nonzero(scbf_t *f, int64_t delta) {
    if (delta) atomic_fetch_add_explicit(&f->nonzero, delta, memory_order_relaxed);
}

/* Returns the number of counters this add moved from 0 to 1. */
HOT int64_t key_add(geom_t g, probe_t pr, uint32_t bits) {
    int64_t born = 0;
    _Atomic uint64_t *slice = g.words;
    for (uint32_t i = 0; i < g.k; i++, slice += g.wps) {
        uint32_t sh;
        _Atomic uint64_t *w = counter_word(slice, pr.pos, bits, &sh);
        born += counter_inc(w, sh, bits) == 0;
        probe_next(&pr, g.m);
    }
    return born;
}

HOT int key_contains(geom_t g, probe_t pr, uint32_t bits) {
    const uint64_t cmax = (UINT64_C(1) << bits) - 1;
    _Atomic uint64_t *slice = g.words;
    for (uint32_t i = 0; i < g.k; i++, slice += g.wps) {
        uint32_t sh;
        _Atomic uint64_t *w = counter_word(slice, pr.pos, bits, &sh);
        if (((atomic_load_explicit(w, memory_order_relaxed) >> sh) & cmax) == 0) return 0;
        probe_next(&pr, g.m);
    }
    return 1;
}

/* Returns 1 if the key tested positive and was decremented; *emptied gets
 * the number of counters it moved from 1 to 0 added to it. */
HOT int key_remove(geom_t g, probe_t pr, uint32_t bits, int64_t *emptied) {
    if (!key_contains(g, pr, bits)) return 0;
    _Atomic uint64_t *slice = g.words;
    for (uint32_t i = 0; i < g.k; i++, slice += g.wps) {
        uint32_t sh;
        _Atomic uint64_t *w = counter_word(slice, pr.pos, bits, &sh);
        *emptied += counter_dec(w, sh, bits) == 1;
        probe_next(&pr, g.m);
    }
    return 1;
}

HOT void prefetch_key(geom_t g, probe_t pr, uint32_t bits, int write) {
    _Atomic uint64_t *slice = g.words;
    for (uint32_t i = 0; i < g.k; i++, slice += g.wps) {
        uint32_t sh;
        const _Atomic uint64_t *w = counter_word(slice, pr.pos, bits, &sh);
        if (write)
            __builtin_prefetch((const void *)w, 1, 3);
        else
            __builtin_prefetch((const void *)w, 0, 3);
        probe_next(&pr, g.m);
    }
}

void scbf_add_hashed(scbf_t *f, uint64_t h1, uint64_t h2) {
    const probe_t pr = probe_start(h1, h2, f->p.m);
    int64_t born;
    WITH_BITS(f, born = key_add(geom_of(f), pr, bits));
    publish_nonzero(f, born);
}

int scbf_contains_hashed(const scbf_t *f, uint64_t h1, uint64_t h2) {
    const probe_t pr = probe_start(h1, h2, f->p.m);
    int found;
    WITH_BITS(f, found = key_contains(geom_of(f), pr, bits));
    return found;
}

int scbf_remove_hashed(scbf_t *f, uint64_t h1, uint64_t h2) {
    const probe_t pr = probe_start(h1, h2, f->p.m);
    int64_t emptied = 0;
    int removed;
    WITH_BITS(f, removed = key_remove(geom_of(f), pr, bits, &emptied));
    publish_nonzero(f, -emptied);
    return removed;
}

int scbf_add(scbf_t *f, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!f || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, f->p.seed, &h1, &h2);
    scbf_add_hashed(f, h1, h2);
    return SCBF_OK;
}

int scbf_contains(const scbf_t *f, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!f || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, f->p.seed, &h1, &h2);
    return scbf_contains_hashed(f, h1, h2);
}

int scbf_remove(scbf_t *f, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!f || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, f->p.seed, &h1, &h2);
    return scbf_remove_hashed(f, h1, h2) ? SCBF_OK : SCBF_E_NOT_FOUND;
}

/* ---------- batches ---------- */

/* One chunk (cn <= BATCH_CHUNK keys) as a software pipeline: key t + pf_keys
 * has its probe started and its counters prefetched while key t is
 * processed, so about PREFETCH_LINES cache misses are in flight (and the
 * probe's divisions overlap with the counter updates instead of running as
 * a pass of their own). Returns the chunk's net change of the non-zero
 * count. Called with constant op and bits, so each instance has neither a
 * switch nor variable shifts in its loop. */
HOT int64_t chunk_run(geom_t g, uint32_t pf_keys, enum scbf_op op, uint32_t bits,
                      const uint64_t *hashes, const uint32_t *sel, size_t base, size_t cn,
                      uint8_t *results) {
    probe_t pr[BATCH_CHUNK];
    const int write = op != SCBF_OP_CONTAINS;
    int64_t delta = 0;
    size_t ahead = pf_keys < cn ? pf_keys : cn;
    for (size_t t = 0; t < ahead; t++) {
        size_t j = sel ? sel[base + t] : base + t;
        pr[t] = probe_start(hashes[2 * j], hashes[2 * j + 1], g.m);
        prefetch_key(g, pr[t], bits, write);
    }
    for (size_t t = 0; t < cn; t++) {
        if (t + ahead < cn) {
            size_t j = sel ? sel[base + t + ahead] : base + t + ahead;
            pr[t + ahead] = probe_start(hashes[2 * j], hashes[2 * j + 1], g.m);
            prefetch_key(g, pr[t + ahead], bits, write);
        }
        size_t j = sel ? sel[base + t] : base + t;
        if (op == SCBF_OP_ADD) {
            delta += key_add(g, pr[t], bits);
        } else if (op == SCBF_OP_CONTAINS) {
            results[j] = (uint8_t)key_contains(g, pr[t], bits);
        } else {
            int64_t emptied = 0;
            int r = key_remove(g, pr[t], bits, &emptied);
            delta -= emptied;
            if (results) results[j] = (uint8_t)r;
        }
    }
    return delta;
}

void scbf_hashed_batch(scbf_t *f, enum scbf_op op, const uint64_t *hashes, const uint32_t *sel,
                       size_t n, uint8_t *results) {
    const geom_t g = geom_of(f);
    for (size_t base = 0; base < n; base += BATCH_CHUNK) {
        size_t cn = n - base < BATCH_CHUNK ? n - base : BATCH_CHUNK;
        int64_t delta = 0;
        switch (op) {
        case SCBF_OP_ADD:
            WITH_BITS(f, delta = chunk_run(g, f->pf_keys, SCBF_OP_ADD, bits, hashes, sel, base, cn,
                                           results));
            break;
        case SCBF_OP_CONTAINS:
            WITH_BITS(f, chunk_run(g, f->pf_keys, SCBF_OP_CONTAINS, bits, hashes, sel, base, cn,
                                   results));
            break;
        case SCBF_OP_REMOVE:
            WITH_BITS(f, delta = chunk_run(g, f->pf_keys, SCBF_OP_REMOVE, bits, hashes, sel, base,
                                           cn, results));
            break;
        }
        publish_nonzero(f, delta);
    }
}

int scbf_batch_check(const uint8_t *data, const uint32_t *offsets, size_t n) {
    if (n == 0) return SCBF_OK;
    if (!offsets || !data) return SCBF_E_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (offsets[i + 1] < offsets[i]) return SCBF_E_INVALID_ARG;
    return SCBF_OK;
}

static int keys_batch(scbf_t *f, enum scbf_op op, const uint8_t *data, const uint32_t *offsets,
                      size_t n, uint8_t *results) {
    uint64_t hashes[2 * BATCH_CHUNK];
    if (!f) return SCBF_E_INVALID_ARG;
    int rc = scbf_batch_check(data, offsets, n);
    if (rc) return rc;
    for (size_t base = 0; base < n; base += BATCH_CHUNK) {
        size_t cn = n - base < BATCH_CHUNK ? n - base : BATCH_CHUNK;
        for (size_t t = 0; t < cn; t++) {
            size_t i = base + t;
            scbf_hash_pair(data + offsets[i], offsets[i + 1] - offsets[i], f->p.seed,
                           &hashes[2 * t], &hashes[2 * t + 1]);
        }
        scbf_hashed_batch(f, op, hashes, NULL, cn, results ? results + base : NULL);
    }
    return SCBF_OK;
}

int scbf_add_batch(scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n) {
    return keys_batch(f, SCBF_OP_ADD, data, offsets, n, NULL);
}

int scbf_contains_batch(const scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n,
                        uint8_t *results) {
    if (n && !results) return SCBF_E_INVALID_ARG;
    /* Contains never writes the filter; the shared batch driver is just not
     * const-qualified. */
    return keys_batch((scbf_t *)f, SCBF_OP_CONTAINS, data, offsets, n, results);
}

int scbf_remove_batch(scbf_t *f, const uint8_t *data, const uint32_t *offsets, size_t n,
                      uint8_t *results) {
    return keys_batch(f, SCBF_OP_REMOVE, data, offsets, n, results);
}

/* ---------- whole-filter operations ---------- */

/* Counter-wise saturating sum of two packed words; a saturated counter on
 * either side stays saturated (its true count is unknown). */
static uint64_t saturating_add(uint64_t x, uint64_t y, uint32_t bits, uint64_t cmax) {
    uint64_t r = 0;
    for (uint32_t sh = 0; sh < 64; sh += bits) {
        uint64_t a = (x >> sh) & cmax, b = (y >> sh) & cmax;
        uint64_t s = (a == cmax || b == cmax || a + b > cmax) ? cmax : a + b;
        r |= s << sh;
    }
    return r;
}

int scbf_merge(scbf_t *dst, const scbf_t *src) {
    if (!dst || !src || dst == src) return SCBF_E_INVALID_ARG;
    if (!scbf_params_equal(&dst->p, &src->p)) return SCBF_E_PARAM_MISMATCH;
    const uint32_t bits = dst->p.counter_bits;
    int64_t nz = 0;
    for (uint64_t j = 0; j < scbf_word_count(dst); j++) {
        uint64_t s = atomic_load_explicit(&src->words[j], memory_order_relaxed);
        if (!s) continue;
        uint64_t old = atomic_load_explicit(&dst->words[j], memory_order_relaxed), nw;
        do {
            nw = saturating_add(old, s, bits, dst->cmax);
        } while (!atomic_compare_exchange_weak_explicit(
            &dst->words[j], &old, nw, memory_order_relaxed, memory_order_relaxed));
        nz += (int64_t)count_nonzero(nw, bits) - count_nonzero(old, bits);
    }
    publish_nonzero(dst, nz);
    return SCBF_OK;
}

void scbf_clear(scbf_t *f) {
    if (!f) return;
    const uint32_t bits = f->p.counter_bits;
    /* Exchange, not store: what a concurrent add put in a word is subtracted
     * exactly, so the non-zero count stays equal to the counters. */
    int64_t nz = 0;
    for (uint64_t j = 0; j < scbf_word_count(f); j++) {
        if (!atomic_load_explicit(&f->words[j], memory_order_relaxed)) continue;
        uint64_t old = atomic_exchange_explicit(&f->words[j], 0, memory_order_relaxed);
        nz += count_nonzero(old, bits);
    }
    publish_nonzero(f, -nz);
}

/* Clamped to [0, M]: see `nonzero`. */
double scbf_fill(const scbf_t *f) {
    if (!f) return 0.0;
    int64_t nz = atomic_load_explicit(&f->nonzero, memory_order_relaxed);
    if (nz < 0) nz = 0;
    if ((uint64_t)nz > f->p.positions) nz = (int64_t)f->p.positions;
    return (double)nz / (double)f->p.positions;
}

/* Non-zero and saturated counters of slice i, counted from its words (the
 * padding counters are always zero). Exact when no operation runs
 * concurrently; otherwise each word is read before or after any update. */
static void slice_scan(const scbf_t *f, uint32_t i, uint64_t *nonzero, uint64_t *saturated) {
    const uint32_t bits = f->p.counter_bits;
    uint64_t nz = 0, sat = 0;
    for (uint64_t j = i * f->wps; j < (i + 1) * f->wps; j++) {
        uint64_t w = atomic_load_explicit(&f->words[j], memory_order_relaxed);
        nz += count_nonzero(w, bits);
        sat += count_max(w, bits);
    }
    *nonzero = nz;
    *saturated = sat;
}

int scbf_slice_fill(const scbf_t *f, double *fills, uint32_t cap) {
    if (!f || (!fills && cap)) return SCBF_E_INVALID_ARG;
    for (uint32_t i = 0; i < f->p.k && i < cap; i++) {
        uint64_t nz, sat;
        slice_scan(f, i, &nz, &sat);
        fills[i] = (double)nz / (double)f->p.m;
    }
    return SCBF_OK;
}

int scbf_stats(const scbf_t *f, scbf_stats_t *out) {
    if (!f || !out) return SCBF_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->positions = f->p.positions;
    out->m = f->p.m;
    out->capacity = f->p.capacity;
    out->k = f->p.k;
    out->counter_bits = f->p.counter_bits;
    out->estimated_fpr = 1.0;
    for (uint32_t i = 0; i < f->p.k; i++) {
        uint64_t nz, sat;
        slice_scan(f, i, &nz, &sat);
        double x = (double)nz / (double)f->p.m;
        out->nonzero += nz;
        out->saturated += sat;
        if (x > out->max_fill) out->max_fill = x;
        out->estimated_fpr *= x;
    }
    out->bytes = sizeof *f + scbf_word_count(f) * 8 + 64;
    return SCBF_OK;
}
