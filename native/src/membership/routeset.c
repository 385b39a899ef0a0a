/*
 * routeset.c - bit-sliced routing bitmaps of many regions (contract in
 * scbf/routeset.h).
 *
 * A shape is one (k, m, seed): every sub-filter of that shape probes the same
 * k positions for a key. Its lanes live in pages of 64; a page's word
 * i * m + j holds bit j of slice i of its 64 lanes, so a query reads k words
 * per page, wherever the lanes' bitmaps came from. A slot (region) owns one
 * lane per sub-filter of its bitmap.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hash.h"
#include "membership_internal.h"
#include "probe.h"
#include "scbf_internal.h"
#include "scbf/routeset.h"

#define LANES 64u

typedef struct {
    uint64_t used;        /* lanes in use */
    uint32_t slot[LANES]; /* each used lane's slot */
    uint64_t words[];     /* k * m words */
} page_t;

typedef struct {
    uint32_t k;
    uint64_t m, seed;
    size_t npages; /* pages[0, npages) allocated or NULL (emptied) */
    page_t **pages;
} shape_t;

typedef struct {
    uint32_t shape;
    uint32_t lane; /* page * LANES + bit */
} lane_ref_t;

typedef struct {
    uint32_t n;        /* lanes held: the bitmap's sub-filters; 0 = empty */
    uint64_t checksum; /* of the bitmap the slot was set to */
    lane_ref_t *lanes;
} slot_t;

struct scbf_routeset {
    pthread_rwlock_t lock;
    shape_t *shapes;
    uint32_t nshapes;
    slot_t *slots;
    uint32_t cap_slots;
    uint32_t top; /* one past the highest slot ever set */
};

int scbf_routeset_new(scbf_routeset_t **out) {
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    scbf_routeset_t *rs = calloc(1, sizeof *rs);
    if (!rs) return SCBF_E_NOMEM;
    pthread_rwlockattr_t attr;
    if (pthread_rwlockattr_init(&attr)) {
        free(rs);
        return SCBF_E_NOMEM;
    }
#ifdef __GLIBC__
    /* Publications must not starve behind a steady stream of routes. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
#endif
    int bad = pthread_rwlock_init(&rs->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (bad) {
        free(rs);
        return SCBF_E_NOMEM;
    }
    *out = rs;
    return SCBF_OK;
}

void scbf_routeset_free(scbf_routeset_t *rs) {
    if (!rs) return;
    for (uint32_t s = 0; s < rs->cap_slots; s++) free(rs->slots[s].lanes);
    for (uint32_t i = 0; i < rs->nshapes; i++) {
        for (size_t p = 0; p < rs->shapes[i].npages; p++) free(rs->shapes[i].pages[p]);
        free(rs->shapes[i].pages);
    }
    free(rs->shapes);
    free(rs->slots);
    pthread_rwlock_destroy(&rs->lock);
    free(rs);
}

/* ---------- lanes ---------- */

static size_t page_bytes(const shape_t *sh) { return sizeof(page_t) + 8 * (size_t)(sh->k * sh->m); }

static uint64_t lane_bit(uint32_t lane) { return UINT64_C(1) << (lane % LANES); }

/* The shape's index, added if new; -1 without memory. */
static int64_t shape_of(scbf_routeset_t *rs, const member_sub_t *sb) {
    for (uint32_t i = 0; i < rs->nshapes; i++) {
        const shape_t *sh = &rs->shapes[i];
        if (sh->k == sb->k && sh->m == sb->m && sh->seed == sb->seed) return i;
    }
    shape_t *grown = realloc(rs->shapes, (rs->nshapes + 1) * sizeof *grown);
    if (!grown) return -1;
    rs->shapes = grown;
    shape_t *sh = &rs->shapes[rs->nshapes];
    memset(sh, 0, sizeof *sh);
    sh->k = sb->k;
    sh->m = sb->m;
    sh->seed = sb->seed;
    return rs->nshapes++;
}

/* A free lane of the shape, for slot; -1 without memory. */
static int64_t lane_alloc(shape_t *sh, uint32_t slot) {
    size_t p = 0;
    while (p < sh->npages && sh->pages[p] && sh->pages[p]->used == UINT64_MAX) p++;
    if (p == sh->npages) {
        page_t **grown = realloc(sh->pages, (sh->npages + 1) * sizeof *grown);
        if (!grown) return -1;
        sh->pages = grown;
        sh->pages[sh->npages++] = NULL;
    }
    if (!sh->pages[p]) {
        /* k * m <= SCBF_MAX_POSITIONS (the decoder checks): the size fits. */
        sh->pages[p] = calloc(1, page_bytes(sh));
        if (!sh->pages[p]) return -1;
    }
    page_t *pg = sh->pages[p];
    uint32_t bit = (uint32_t)__builtin_ctzll(~pg->used);
    pg->used |= UINT64_C(1) << bit;
    pg->slot[bit] = slot;
    return (int64_t)(p * LANES + bit);
}

/* Clears the lane's bits and returns it to its page (freed when empty). */
static void lane_release(shape_t *sh, uint32_t lane) {
    page_t *pg = sh->pages[lane / LANES];
    uint64_t keep = ~lane_bit(lane);
    pg->used &= keep;
    if (!pg->used) {
        free(pg);
        sh->pages[lane / LANES] = NULL;
        return;
    }
    for (uint64_t w = 0; w < (uint64_t)sh->k * sh->m; w++) pg->words[w] &= keep;
}

/* Writes sub-filter sb of mb into an empty lane. */
static void lane_write(shape_t *sh, uint32_t lane, const scbf_member_t *mb,
                       const member_sub_t *sb) {
    page_t *pg = sh->pages[lane / LANES];
    uint64_t bit = lane_bit(lane);
    for (uint32_t s = 0; s < sb->k; s++) {
        uint64_t *slice = pg->words + (size_t)s * sh->m;
        for (uint64_t w = 0; w < sb->wps; w++) {
            for (uint64_t x = member_word(mb, sb, s, w); x; x &= x - 1)
                slice[w * 64 + (uint64_t)__builtin_ctzll(x)] |= bit;
        }
    }
}

/* Gives the lane next's bits where they differ from prev's. */
static void lane_diff(shape_t *sh, uint32_t lane, const scbf_member_t *prev,
                      const scbf_member_t *next, uint32_t i) {
    page_t *pg = sh->pages[lane / LANES];
    uint64_t bit = lane_bit(lane);
    const member_sub_t *a = &prev->sub[i], *b = &next->sub[i];
    for (uint32_t s = 0; s < b->k; s++) {
        uint64_t *slice = pg->words + (size_t)s * sh->m;
        for (uint64_t w = 0; w < b->wps; w++) {
            uint64_t now = member_word(next, b, s, w);
            for (uint64_t x = member_word(prev, a, s, w) ^ now; x; x &= x - 1) {
                unsigned j = (unsigned)__builtin_ctzll(x);
                uint64_t *word = &slice[w * 64 + j];
                *word = (now >> j) & 1 ? *word | bit : *word & ~bit;
            }
        }
    }
}

/* ---------- slots ---------- */

static int slots_reserve(scbf_routeset_t *rs, uint32_t slot) {
    if (slot < rs->cap_slots) return SCBF_OK;
    uint32_t cap = rs->cap_slots ? rs->cap_slots : 64;
    while (cap <= slot) cap = cap > SCBF_ROUTESET_MAX_SLOTS / 2 ? SCBF_ROUTESET_MAX_SLOTS : cap * 2;
    slot_t *grown = realloc(rs->slots, cap * sizeof *grown);
    if (!grown) return SCBF_E_NOMEM;
    memset(grown + rs->cap_slots, 0, (cap - rs->cap_slots) * sizeof *grown);
    rs->slots = grown;
    rs->cap_slots = cap;
    return SCBF_OK;
}

static void slot_release(scbf_routeset_t *rs, slot_t *st) {
    for (uint32_t i = 0; i < st->n; i++)
        lane_release(&rs->shapes[st->lanes[i].shape], st->lanes[i].lane);
    free(st->lanes);
    st->lanes = NULL;
    st->n = 0;
}

/* True if the slot holds prev (by content) and next has prev's shapes. */
static int diffable(const scbf_routeset_t *rs, const slot_t *st, const scbf_member_t *prev,
                    const scbf_member_t *next) {
    if (!prev || !st->n || st->n != prev->n || prev->n != next->n) return 0;
    if (st->checksum != member_checksum(prev)) return 0;
    for (uint32_t i = 0; i < st->n; i++) {
        const shape_t *sh = &rs->shapes[st->lanes[i].shape];
        const member_sub_t *a = &prev->sub[i], *b = &next->sub[i];
        if (a->k != sh->k || a->m != sh->m || a->seed != sh->seed) return 0;
        if (b->k != sh->k || b->m != sh->m || b->seed != sh->seed) return 0;
    }
    return 1;
}

/* New lanes for next, written; on NOMEM every lane taken is given back. */
static int lanes_for(scbf_routeset_t *rs, uint32_t slot, const scbf_member_t *next,
                     lane_ref_t **out) {
    lane_ref_t *lanes = malloc(next->n * sizeof *lanes);
    if (!lanes) return SCBF_E_NOMEM;
    for (uint32_t i = 0; i < next->n; i++) {
        int64_t shape = shape_of(rs, &next->sub[i]);
        int64_t lane = shape < 0 ? -1 : lane_alloc(&rs->shapes[shape], slot);
        if (lane < 0) {
            while (i--) lane_release(&rs->shapes[lanes[i].shape], lanes[i].lane);
            free(lanes);
            return SCBF_E_NOMEM;
        }
        lanes[i].shape = (uint32_t)shape;
        lanes[i].lane = (uint32_t)lane;
        lane_write(&rs->shapes[shape], (uint32_t)lane, next, &next->sub[i]);
    }
    *out = lanes;
    return SCBF_OK;
}

int scbf_routeset_set(scbf_routeset_t *rs, uint32_t slot, const scbf_member_t *prev,
                      const scbf_member_t *next) {
    if (!rs || !next || slot >= SCBF_ROUTESET_MAX_SLOTS) return SCBF_E_INVALID_ARG;
    pthread_rwlock_wrlock(&rs->lock);
    int rc = slots_reserve(rs, slot);
    if (rc == SCBF_OK) {
        slot_t *st = &rs->slots[slot];
        if (diffable(rs, st, prev, next)) {
            for (uint32_t i = 0; i < st->n; i++)
                lane_diff(&rs->shapes[st->lanes[i].shape], st->lanes[i].lane, prev, next, i);
        } else {
            lane_ref_t *lanes;
            rc = lanes_for(rs, slot, next, &lanes);
            if (rc == SCBF_OK) {
                slot_release(rs, st);
                st->lanes = lanes;
                st->n = next->n;
            }
        }
        if (rc == SCBF_OK) {
            st->checksum = member_checksum(next);
            if (slot >= rs->top) rs->top = slot + 1;
        }
    }
    pthread_rwlock_unlock(&rs->lock);
    return rc;
}

int scbf_routeset_clear(scbf_routeset_t *rs, uint32_t slot) {
    if (!rs || slot >= SCBF_ROUTESET_MAX_SLOTS) return SCBF_E_INVALID_ARG;
    pthread_rwlock_wrlock(&rs->lock);
    if (slot < rs->cap_slots) slot_release(rs, &rs->slots[slot]);
    pthread_rwlock_unlock(&rs->lock);
    return SCBF_OK;
}

uint32_t scbf_routeset_slots(const scbf_routeset_t *rs) {
    if (!rs) return 0;
    pthread_rwlock_rdlock((pthread_rwlock_t *)&rs->lock);
    uint32_t top = rs->top;
    pthread_rwlock_unlock((pthread_rwlock_t *)&rs->lock);
    return top;
}

/* ---------- queries ---------- */

static void query_shape(const shape_t *sh, const void *key, size_t len, uint64_t *out) {
    uint64_t h1, h2, at[SCBF_MAX_K];
    scbf_hash_pair(key, len, sh->seed, &h1, &h2);
    probe_t p = probe_start(h1, h2, sh->m);
    for (uint32_t i = 0; i < sh->k; i++) {
        at[i] = (uint64_t)i * sh->m + p.pos;
        probe_next(&p, sh->m);
    }
    for (size_t n = 0; n < sh->npages; n++) {
        const page_t *pg = sh->pages[n];
        if (!pg) continue;
        uint64_t maybe = pg->used;
        for (uint32_t i = 0; i < sh->k && maybe; i++) maybe &= pg->words[at[i]];
        for (; maybe; maybe &= maybe - 1) {
            uint32_t slot = pg->slot[__builtin_ctzll(maybe)];
            out[slot / 64] |= UINT64_C(1) << (slot % 64);
        }
    }
}

int scbf_routeset_query(scbf_routeset_t *rs, const void *key, size_t len, uint64_t *out,
                        size_t out_words) {
    if (!rs || (!key && len) || (!out && out_words)) return SCBF_E_INVALID_ARG;
    pthread_rwlock_rdlock(&rs->lock);
    int rc = SCBF_OK;
    if (out_words < (rs->top + 63) / 64) {
        rc = SCBF_E_BUFFER_TOO_SMALL;
    } else {
        memset(out, 0, out_words * sizeof *out);
        for (uint32_t i = 0; i < rs->nshapes; i++) query_shape(&rs->shapes[i], key, len, out);
    }
    pthread_rwlock_unlock(&rs->lock);
    return rc;
}

int scbf_routeset_stats(scbf_routeset_t *rs, scbf_routeset_stats_t *out) {
    if (!rs || !out) return SCBF_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    pthread_rwlock_rdlock(&rs->lock);
    out->shapes = rs->nshapes;
    out->bytes = sizeof *rs + rs->nshapes * sizeof(shape_t) + rs->cap_slots * sizeof(slot_t);
    for (uint32_t s = 0; s < rs->cap_slots; s++) {
        if (!rs->slots[s].n) continue;
        out->slots++;
        out->bytes += rs->slots[s].n * sizeof(lane_ref_t);
    }
    for (uint32_t i = 0; i < rs->nshapes; i++) {
        const shape_t *sh = &rs->shapes[i];
        out->bytes += sh->npages * sizeof(page_t *);
        for (size_t p = 0; p < sh->npages; p++) {
            if (!sh->pages[p]) continue;
            out->pages++;
            out->lanes += (uint64_t)__builtin_popcountll(sh->pages[p]->used);
            out->bytes += page_bytes(sh);
        }
    }
    pthread_rwlock_unlock(&rs->lock);
    return SCBF_OK;
}
