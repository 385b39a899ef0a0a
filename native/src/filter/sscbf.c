/*
 * sscbf.c - Scalable Split Counting Bloom Filter.
 *
 * Locking: per-key operations hold `lock` for reading; anything that changes
 * the list of sub-filters (growth, the compaction swap, clear, merge) holds it
 * for writing, so a key operation always sees one fixed list. Counter updates
 * inside a sub-filter are lock-free (scbf.c), so readers never block each
 * other. `admin` serialises the whole-filter operations (compact, merge,
 * clear) with each other: a merge during a compaction would otherwise land
 * only in the filters about to be replaced.
 *
 * Compaction builds the new filter outside the write lock. While it runs,
 * `shadow` points to it and every add also goes there, so keys added
 * concurrently survive the swap. Removes during compaction are not applied to
 * the shadow (the key source may not have produced the key yet, and
 * decrementing a key that is not there could create false negatives); they
 * become the new filter's residue instead.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "hash.h"
#include "scbf_internal.h"
#include "sscbf_internal.h"

#define CHUNK 256

void sscbf_config_default(sscbf_config_t *c, uint64_t initial_capacity, double fpr) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->initial_capacity = initial_capacity;
    c->fpr = fpr;
    c->tightening = 0.5;
    c->growth = 2;
    c->counter_bits = SCBF_DEFAULT_COUNTER_BITS;
    c->max_filters = 32;
    c->residue_threshold = initial_capacity / 8 ? initial_capacity / 8 : 1;
    c->seed = 0;
}

/* Sub-filter i gets P_i = P_0 * r^i with P_0 = P * (1 - r): the P_i sum to
 * less than P, and 1 - prod(1 - P_i) <= sum P_i. */
static double first_fpr(const sscbf_config_t *c) { return c->fpr * (1.0 - c->tightening); }

static int sized_params(const sscbf_config_t *c, uint64_t capacity, double fpr, scbf_params_t *p) {
    int rc = scbf_params_from_capacity(capacity, fpr, p);
    if (rc) return rc;
    p->counter_bits = c->counter_bits;
    p->seed = c->seed;
    return scbf_params_check(p);
}

int sscbf_config_check(const sscbf_config_t *c) {
    scbf_params_t p;
    if (!c || c->initial_capacity < 1) return SCBF_E_INVALID_ARG;
    if (!(c->fpr > 0.0 && c->fpr < 1.0)) return SCBF_E_INVALID_ARG;
    if (!(c->tightening > 0.0 && c->tightening < 1.0)) return SCBF_E_INVALID_ARG;
    if (c->growth < 1 || c->max_filters < 1 || c->max_filters > SSCBF_MAX_FILTERS)
        return SCBF_E_INVALID_ARG;
    if (c->counter_bits != 4 && c->counter_bits != 8) return SCBF_E_INVALID_ARG;
    return sized_params(c, c->initial_capacity, first_fpr(c), &p);
}

static int config_equal(const sscbf_config_t *a, const sscbf_config_t *b) {
    return a->initial_capacity == b->initial_capacity && a->fpr == b->fpr &&
           a->tightening == b->tightening && a->growth == b->growth &&
           a->counter_bits == b->counter_bits && a->max_filters == b->max_filters &&
           a->residue_threshold == b->residue_threshold && a->seed == b->seed;
}

/* A filter with no sub-filters yet; the caller installs filters[0]. */
int sscbf_alloc(const sscbf_config_t *c, sscbf_t **out) {
    pthread_rwlockattr_t attr;
    sscbf_t *s = calloc(1, sizeof *s);
    if (!s) return SCBF_E_NOMEM;
    s->c = *c;
    if (pthread_rwlockattr_init(&attr)) {
        free(s);
        return SCBF_E_NOMEM;
    }
#ifdef __GLIBC__
    /* Growth must not starve behind a steady stream of readers. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
    int bad = pthread_rwlock_init(&s->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (bad) {
        free(s);
        return SCBF_E_NOMEM;
    }
    if (pthread_mutex_init(&s->admin, NULL)) {
        pthread_rwlock_destroy(&s->lock);
        free(s);
        return SCBF_E_NOMEM;
    }
    *out = s;
    return SCBF_OK;
}

int sscbf_create(const sscbf_config_t *c, sscbf_t **out) {
    scbf_params_t p;
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    int rc = sscbf_config_check(c);
    if (rc) return rc;
    sized_params(c, c->initial_capacity, first_fpr(c), &p);
    sscbf_t *s;
    if ((rc = sscbf_alloc(c, &s))) return rc;
    if ((rc = scbf_create(&p, &s->filters[0]))) {
        sscbf_free(s);
        return rc;
    }
    s->n = 1;
    *out = s;
    return SCBF_OK;
}

void sscbf_free(sscbf_t *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->n; i++) scbf_free(s->filters[i]);
    pthread_mutex_destroy(&s->admin);
    pthread_rwlock_destroy(&s->lock);
    free(s);
}

const sscbf_config_t *sscbf_config(const sscbf_t *s) { return s ? &s->c : NULL; }

void sscbf_rdlock(const sscbf_t *s) { pthread_rwlock_rdlock((pthread_rwlock_t *)&s->lock); }
static void wrlock(sscbf_t *s) { pthread_rwlock_wrlock(&s->lock); }
void sscbf_unlock(const sscbf_t *s) { pthread_rwlock_unlock((pthread_rwlock_t *)&s->lock); }

/* Caller holds the read lock: does the newest sub-filter want a successor?
 * Runs after every add, so it reads the O(1) mean fill (see sscbf.h for why
 * the mean, not the highest slice, is the right test). */
static int wants_growth(const sscbf_t *s) {
    return !s->growth_blocked && s->n < s->c.max_filters && scbf_fill(s->filters[s->n - 1]) >= 0.5;
}

/* Appends a sub-filter if `newest` is still the newest and still at fill 1/2
 * (another thread may have grown the list meanwhile). */
static void grow(sscbf_t *s, const scbf_t *newest) {
    wrlock(s);
    if (s->filters[s->n - 1] == newest && wants_growth(s)) {
        const scbf_params_t *np = scbf_params(newest);
        scbf_params_t p;
        scbf_t *f = NULL;
        if (np->capacity > UINT64_MAX / s->c.growth ||
            sized_params(&s->c, np->capacity * s->c.growth, np->fpr * s->c.tightening, &p) ||
            scbf_create(&p, &f))
            s->growth_blocked = 1; /* keep filling the newest; needs_compaction says so */
        else
            s->filters[s->n++] = f;
    }
    sscbf_unlock(s);
}

int sscbf_add(sscbf_t *s, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!s || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, s->c.seed, &h1, &h2);
    sscbf_rdlock(s);
    scbf_t *newest = s->filters[s->n - 1];
    scbf_add_hashed(newest, h1, h2);
    if (s->shadow) {
        scbf_add_hashed(s->shadow, h1, h2);
        atomic_fetch_add_explicit(&s->shadow_adds, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&s->adds, 1, memory_order_relaxed);
    int grow_now = wants_growth(s);
    sscbf_unlock(s);
    if (grow_now) grow(s, newest);
    return SCBF_OK;
}

int sscbf_contains(const sscbf_t *s, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!s || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, s->c.seed, &h1, &h2);
    int found = 0;
    sscbf_rdlock(s);
    for (uint32_t i = s->n; i-- > 0 && !found;) found = scbf_contains_hashed(s->filters[i], h1, h2);
    sscbf_unlock(s);
    return found;
}

/* Caller holds the read lock. An ambiguous (residue) remove also counts in
 * the shadow's residue, as does any remove during a compaction. */
static void count_residue(sscbf_t *s, int ambiguous) {
    if (ambiguous) atomic_fetch_add_explicit(&s->residue, 1, memory_order_relaxed);
    if (s->shadow) atomic_fetch_add_explicit(&s->shadow_residue, 1, memory_order_relaxed);
}

int sscbf_remove(sscbf_t *s, const void *key, size_t len) {
    uint64_t h1, h2;
    if (!s || (!key && len)) return SCBF_E_INVALID_ARG;
    scbf_hash_pair(key, len, s->c.seed, &h1, &h2);
    sscbf_rdlock(s);
    uint32_t hits = 0, home = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (scbf_contains_hashed(s->filters[i], h1, h2)) {
            hits++;
            home = i;
        }
    if (hits == 1) scbf_remove_hashed(s->filters[home], h1, h2);
    if (hits) {
        count_residue(s, hits > 1);
        atomic_fetch_add_explicit(&s->removes, 1, memory_order_relaxed);
    }
    sscbf_unlock(s);
    return hits ? SCBF_OK : SCBF_E_NOT_FOUND;
}

static void hash_chunk(const sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t base,
                       size_t cn, uint64_t *hashes) {
    for (size_t t = 0; t < cn; t++)
        scbf_hash_pair(data + offsets[base + t], offsets[base + t + 1] - offsets[base + t],
                       s->c.seed, &hashes[2 * t], &hashes[2 * t + 1]);
}

int sscbf_add_batch(sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n) {
    uint64_t hashes[2 * CHUNK];
    if (!s) return SCBF_E_INVALID_ARG;
    int rc = scbf_batch_check(data, offsets, n);
    if (rc) return rc;
    for (size_t base = 0; base < n;) {
        sscbf_rdlock(s);
        scbf_t *newest = s->filters[s->n - 1];
        /* Growth is checked between chunks, so a chunk may overshoot fill 1/2;
         * bounding it by 1/64 of the capacity keeps that overshoot small. */
        size_t cn = scbf_params(newest)->capacity / 64;
        if (cn < 1) cn = 1;
        if (cn > CHUNK) cn = CHUNK;
        if (cn > n - base) cn = n - base;
        hash_chunk(s, data, offsets, base, cn, hashes);
        scbf_hashed_batch(newest, SCBF_OP_ADD, hashes, NULL, cn, NULL);
        if (s->shadow) {
            scbf_hashed_batch(s->shadow, SCBF_OP_ADD, hashes, NULL, cn, NULL);
            atomic_fetch_add_explicit(&s->shadow_adds, cn, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&s->adds, cn, memory_order_relaxed);
        int grow_now = wants_growth(s);
        sscbf_unlock(s);
        if (grow_now) grow(s, newest);
        base += cn;
    }
    return SCBF_OK;
}

int sscbf_contains_batch(const sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n,
                         uint8_t *results) {
    uint64_t hashes[2 * CHUNK];
    uint32_t sel[CHUNK];
    if (!s || (n && !results)) return SCBF_E_INVALID_ARG;
    int rc = scbf_batch_check(data, offsets, n);
    if (rc) return rc;
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t cn = n - base < CHUNK ? n - base : CHUNK;
        uint8_t *res = results + base;
        hash_chunk(s, data, offsets, base, cn, hashes);
        memset(res, 0, cn);
        sscbf_rdlock(s);
        /* Newest first (it holds the most recent keys); each older filter
         * only sees the keys still undecided. */
        for (uint32_t i = s->n; i-- > 0;) {
            size_t ns = 0;
            for (size_t t = 0; t < cn; t++)
                if (!res[t]) sel[ns++] = (uint32_t)t;
            if (!ns) break;
            scbf_hashed_batch(s->filters[i], SCBF_OP_CONTAINS, hashes, sel, ns, res);
        }
        sscbf_unlock(s);
    }
    return SCBF_OK;
}

int sscbf_remove_batch(sscbf_t *s, const uint8_t *data, const uint32_t *offsets, size_t n,
                       uint8_t *results) {
    uint64_t hashes[2 * CHUNK];
    uint32_t sel[CHUNK];
    uint8_t hit[CHUNK], hits[CHUNK], home[CHUNK];
    if (!s) return SCBF_E_INVALID_ARG;
    int rc = scbf_batch_check(data, offsets, n);
    if (rc) return rc;
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t cn = n - base < CHUNK ? n - base : CHUNK;
        hash_chunk(s, data, offsets, base, cn, hashes);
        memset(hits, 0, cn);
        sscbf_rdlock(s);
        for (uint32_t i = 0; i < s->n; i++) {
            scbf_hashed_batch(s->filters[i], SCBF_OP_CONTAINS, hashes, NULL, cn, hit);
            for (size_t t = 0; t < cn; t++)
                if (hit[t]) {
                    hits[t] = hits[t] < 2 ? hits[t] + 1 : 2;
                    home[t] = (uint8_t)i;
                }
        }
        /* Unambiguous removes, grouped by their home sub-filter. */
        for (uint32_t i = 0; i < s->n; i++) {
            size_t ns = 0;
            for (size_t t = 0; t < cn; t++)
                if (hits[t] == 1 && home[t] == i) sel[ns++] = (uint32_t)t;
            if (ns) scbf_hashed_batch(s->filters[i], SCBF_OP_REMOVE, hashes, sel, ns, NULL);
        }
        uint64_t removed = 0;
        for (size_t t = 0; t < cn; t++) {
            if (hits[t]) {
                removed++;
                count_residue(s, hits[t] > 1);
            }
            if (results) results[base + t] = hits[t] != 0;
        }
        atomic_fetch_add_explicit(&s->removes, removed, memory_order_relaxed);
        sscbf_unlock(s);
    }
    return SCBF_OK;
}

/* dst's admin mutex first (nothing waits for an admin mutex while holding a
 * list lock), then both list locks in address order, so merge(a, b) racing
 * merge(b, a) cannot deadlock. */
static void lock_pair(sscbf_t *dst, const sscbf_t *src) {
    pthread_mutex_lock(&dst->admin);
    if ((uintptr_t)dst < (uintptr_t)src) {
        wrlock(dst);
        sscbf_rdlock(src);
    } else {
        sscbf_rdlock(src);
        wrlock(dst);
    }
}

int sscbf_merge(sscbf_t *dst, const sscbf_t *src) {
    scbf_t *added[SSCBF_MAX_FILTERS];
    if (!dst || !src || dst == src) return SCBF_E_INVALID_ARG;
    if (!config_equal(&dst->c, &src->c)) return SCBF_E_PARAM_MISMATCH;
    lock_pair(dst, src);
    int rc = SCBF_OK;
    uint32_t n_old = dst->n, n_new = src->n > dst->n ? src->n : dst->n, made = 0;
    for (uint32_t i = 0; i < src->n && i < n_old && !rc; i++)
        if (!scbf_params_equal(scbf_params(dst->filters[i]), scbf_params(src->filters[i])))
            rc = SCBF_E_PARAM_MISMATCH;
    /* Allocate every missing sub-filter before touching dst: all or nothing. */
    for (uint32_t i = n_old; i < n_new && !rc; i++, made++)
        rc = scbf_create(scbf_params(src->filters[i]), &added[made]);
    if (rc) {
        while (made) scbf_free(added[--made]);
    } else {
        for (uint32_t i = n_old; i < n_new; i++) dst->filters[i] = added[i - n_old];
        dst->n = n_new;
        for (uint32_t i = 0; i < src->n; i++) scbf_merge(dst->filters[i], src->filters[i]);
        atomic_fetch_add(&dst->residue, atomic_load(&src->residue));
        atomic_fetch_add(&dst->adds, atomic_load(&src->adds));
        atomic_fetch_add(&dst->removes, atomic_load(&src->removes));
        dst->growth_blocked = 0;
    }
    sscbf_unlock(src);
    sscbf_unlock(dst);
    pthread_mutex_unlock(&dst->admin);
    return rc;
}

void sscbf_clear(sscbf_t *s) {
    if (!s) return;
    pthread_mutex_lock(&s->admin);
    wrlock(s);
    /* Keep the oldest sub-filter's shape (after a compaction it is the
     * right-sized one) so clear never has to allocate. */
    for (uint32_t i = 1; i < s->n; i++) scbf_free(s->filters[i]);
    s->n = 1;
    scbf_clear(s->filters[0]);
    s->growth_blocked = 0;
    atomic_store(&s->residue, 0);
    atomic_store(&s->adds, 0);
    atomic_store(&s->removes, 0);
    sscbf_unlock(s);
    pthread_mutex_unlock(&s->admin);
}

int sscbf_stats(const sscbf_t *s, sscbf_stats_t *out) {
    if (!s || !out) return SCBF_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    /* 1 - prod(1 - P_i) as -expm1(sum log1p(-P_i)): the plain product
     * rounds rates below ~1e-16 to exactly 0. */
    double log_keep_design = 0.0, log_keep_est = 0.0;
    sscbf_rdlock(s);
    out->filters = s->n;
    for (uint32_t i = 0; i < s->n; i++) {
        scbf_stats_t fs;
        scbf_stats(s->filters[i], &fs);
        log_keep_design += log1p(-scbf_params(s->filters[i])->fpr);
        log_keep_est += log1p(-fs.estimated_fpr);
        out->bytes += fs.bytes;
        out->positions += fs.positions;
        out->saturated += fs.saturated;
        if (i == s->n - 1) out->newest_fill = fs.max_fill;
    }
    out->bytes += sizeof *s;
    out->residue = atomic_load_explicit(&s->residue, memory_order_relaxed);
    out->adds = atomic_load_explicit(&s->adds, memory_order_relaxed);
    out->removes = atomic_load_explicit(&s->removes, memory_order_relaxed);
    sscbf_unlock(s);
    out->design_fpr = -expm1(log_keep_design);
    out->estimated_fpr = -expm1(log_keep_est);
    return SCBF_OK;
}

const scbf_t *sscbf_filter(const sscbf_t *s, uint32_t i) {
    if (!s) return NULL;
    sscbf_rdlock(s);
    const scbf_t *f = i < s->n ? s->filters[i] : NULL;
    sscbf_unlock(s);
    return f;
}

int sscbf_needs_compaction(const sscbf_t *s) {
    if (!s) return 0;
    sscbf_rdlock(s);
    int need = atomic_load_explicit(&s->residue, memory_order_relaxed) > s->c.residue_threshold ||
               s->n >= s->c.max_filters || s->growth_blocked;
    sscbf_unlock(s);
    return need;
}

int sscbf_compact(sscbf_t *s, uint64_t expected_keys, scbf_key_source next, void *ctx) {
    scbf_params_t p;
    scbf_t *f, *old[SSCBF_MAX_FILTERS];
    if (!s || !next) return SCBF_E_INVALID_ARG;
    uint64_t cap = expected_keys > s->c.initial_capacity ? expected_keys : s->c.initial_capacity;
    int rc = sized_params(&s->c, cap, first_fpr(&s->c), &p);
    if (rc) return rc;
    /* At its nominal capacity a slice is a little past fill 1/2 whenever
     * log2(1/P) is not an integer, so the compacted filter would grow on the
     * next insert. Size it so `cap` keys leave every slice under 1/2:
     * m > cap / ln 2, with 2% headroom for slice-to-slice variation. */
    double m_half = ceil((double)cap / log(2.0) * 1.02) + 64;
    if ((double)p.m < m_half) {
        if (m_half * p.k > (double)SCBF_MAX_POSITIONS) return SCBF_E_TOO_LARGE;
        if ((rc = scbf_params_from_positions((uint64_t)m_half * p.k, p.fpr, &p))) return rc;
        p.counter_bits = s->c.counter_bits;
        p.seed = s->c.seed;
    }
    if ((rc = scbf_create(&p, &f))) return rc;
    pthread_mutex_lock(&s->admin);
    wrlock(s);
    s->shadow = f;
    atomic_store(&s->shadow_residue, 0);
    atomic_store(&s->shadow_adds, 0);
    sscbf_unlock(s);

    uint64_t fed = 0;
    for (;;) {
        const uint8_t *key = NULL;
        size_t len = 0;
        uint64_t h1, h2;
        int r = next(ctx, &key, &len);
        if (r == 0) break;
        if (r < 0 || (!key && len)) {
            rc = r < 0 ? SCBF_E_ITER : SCBF_E_INVALID_ARG;
            break;
        }
        scbf_hash_pair(key, len, s->c.seed, &h1, &h2);
        scbf_add_hashed(f, h1, h2);
        fed++;
    }

    wrlock(s);
    s->shadow = NULL;
    uint32_t n_old = 0;
    if (!rc) {
        n_old = s->n;
        memcpy(old, s->filters, n_old * sizeof old[0]);
        s->filters[0] = f;
        s->n = 1;
        s->growth_blocked = 0;
        atomic_store(&s->residue, atomic_load(&s->shadow_residue));
        atomic_store(&s->adds, fed + atomic_load(&s->shadow_adds));
        atomic_store(&s->removes, 0);
    }
    int grow_now = !rc && wants_growth(s);
    sscbf_unlock(s);
    if (rc) scbf_free(f);
    for (uint32_t i = 0; i < n_old; i++) scbf_free(old[i]);
    if (grow_now) grow(s, f);
    pthread_mutex_unlock(&s->admin);
    return rc;
}
