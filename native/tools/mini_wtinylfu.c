/*
 * mini_wtinylfu.c - W-TinyLFU (Einziger, Friedman and Manes, "TinyLFU: A
 * Highly Efficient Cache Admission Policy", ACM TOS 2017), as Caffeine builds
 * it: an LRU window in front of a segmented LRU main area (probation 20%,
 * protected 80%); a key leaving the window replaces probation's LRU key only
 * if the frequency sketch has seen it more often. The sketch is Caffeine's
 * FrequencySketch (4-bit counters, four per key within 16, halved every
 * 10 x capacity increments), hashed as Caffeine hashes a long key.
 *
 * With `climb`, the window's share is tuned as Caffeine's cache tunes it
 * (simple hill climbing): every 10 x capacity accesses the hit ratio of the
 * sample is compared with the previous one; the window keeps moving in the
 * direction that helped, by 6.25% of the capacity at first, decaying by 0.98
 * per step, restarting after a change of 5% or more. Without it the window
 * stays at 1%.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mini.h"
#include "scbf/scbf_error.h"

enum { NONE = 0, WINDOW, PROBATION, PROTECTED };

/* ---- Caffeine's FrequencySketch ----------------------------------------- */

static const uint64_t SEED[4] = {UINT64_C(0xc3a5c85c97cb3127), UINT64_C(0xb492b66fbe98f273),
                                 UINT64_C(0x9ae16a3b2f90404f), UINT64_C(0xcbf29ce484222325)};

static int32_t spread(int32_t x) {
    uint32_t u = (uint32_t)x;
    u = ((u >> 16) ^ u) * 0x45d9f3bu;
    u = ((u >> 16) ^ u) * 0x45d9f3bu;
    return (int32_t)((u >> 16) ^ u);
}

static uint64_t index_of(const mini_sketch_t *s, int32_t item, int i) {
    uint64_t h = ((uint64_t)(int64_t)item + SEED[i]) * SEED[i];
    h += h >> 32;
    return (uint64_t)(uint32_t)(int32_t)h & s->mask;
}

static int32_t long_hash(uint64_t key) { return (int32_t)(uint32_t)(key ^ (key >> 32)); }

static int sketch_init(mini_sketch_t *s, uint64_t capacity) {
    uint64_t len = 1;
    while (len < capacity) len <<= 1;
    s->table = calloc(len, sizeof *s->table);
    s->mask = len - 1;
    s->size = 0;
    s->sample = 10 * capacity;
    return s->table ? 0 : -1;
}

static unsigned sketch_frequency(const mini_sketch_t *s, uint64_t key) {
    int32_t h = spread(long_hash(key));
    int start = (h & 3) << 2;
    unsigned f = 15;
    for (int i = 0; i < 4; i++) {
        unsigned c = (unsigned)(s->table[index_of(s, h, i)] >> ((start + i) << 2)) & 0xf;
        if (c < f) f = c;
    }
    return f;
}

static void sketch_increment(mini_sketch_t *s, uint64_t key) {
    int32_t h = spread(long_hash(key));
    int start = (h & 3) << 2;
    int added = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t *w = &s->table[index_of(s, h, i)];
        int off = (start + i) << 2;
        if (((*w >> off) & 0xf) != 0xf) {
            *w += UINT64_C(1) << off;
            added = 1;
        }
    }
    if (added && ++s->size == s->sample) {
        uint64_t odd = 0;
        for (uint64_t i = 0; i <= s->mask; i++) {
            odd += (uint64_t)__builtin_popcountll(s->table[i] & UINT64_C(0x1111111111111111));
            s->table[i] = (s->table[i] >> 1) & UINT64_C(0x7777777777777777);
        }
        s->size = (s->size >> 1) - (odd >> 2);
    }
}

/* ---- the policy --------------------------------------------------------- */

static void move(mini_wtinylfu_t *c, ref_list_t *from, ref_list_t *to, int where, uint32_t id) {
    ref_list_transfer(&c->l, from, to, id);
    c->where[id] = (unsigned char)where;
}

/* Protected over its share: its LRU keys go back to probation. */
static void demote_protected(mini_wtinylfu_t *c) {
    while (c->protect.size > c->protected_max)
        move(c, &c->protect, &c->probation, PROBATION, c->protect.tail);
}

static void evict(mini_wtinylfu_t *c) {
    while (c->window.size > c->window_max) {
        uint32_t cand = c->window.tail;
        move(c, &c->window, &c->probation, PROBATION, cand);
        if (c->window.size + c->probation.size + c->protect.size <= c->capacity) continue;
        uint32_t victim = c->probation.tail;
        if (victim == cand) { /* probation holds only the candidate */
            victim = c->protect.tail != REF_NIL ? c->protect.tail : cand;
        }
        uint32_t out = victim;
        if (victim != cand && !(sketch_frequency(&c->sketch, c->key_of[cand]) >
                                sketch_frequency(&c->sketch, c->key_of[victim])))
            out = cand;
        ref_list_remove(&c->l, c->where[out] == PROTECTED ? &c->protect : &c->probation, out);
        c->where[out] = NONE;
    }
}

static void climb(mini_wtinylfu_t *c) {
    uint64_t samples = c->sample_hits + c->sample_misses;
    if (samples < c->sketch.sample) return;
    double rate = (double)c->sample_hits / (double)samples;
    double delta = rate - c->prev_rate;
    double amount = delta >= 0 ? c->step : -c->step;
    double next =
        fabs(delta) >= 0.05 ? 0.0625 * (double)c->capacity * (amount >= 0 ? 1 : -1) : 0.98 * amount;
    c->prev_rate = rate;
    c->step = next;
    c->sample_hits = c->sample_misses = 0;
    int64_t adjust = (int64_t)amount;
    if (adjust > 0) { /* a larger window: main's protected share gives way */
        uint64_t q = (uint64_t)adjust;
        if (q > c->protected_max) q = c->protected_max;
        c->protected_max -= q;
        c->window_max += q;
        demote_protected(c);
        for (uint64_t k = 0; k < q && c->probation.tail != REF_NIL; k++)
            move(c, &c->probation, &c->window, WINDOW, c->probation.tail);
    } else if (adjust < 0) {
        uint64_t q = (uint64_t)-adjust;
        if (q > c->window_max - 1) q = c->window_max - 1;
        c->window_max -= q;
        c->protected_max += q;
        for (uint64_t k = 0; k < q && c->window.tail != REF_NIL; k++)
            move(c, &c->window, &c->probation, PROBATION, c->window.tail);
    }
}

int mini_wtinylfu_init(mini_wtinylfu_t *c, uint64_t capacity, int climbing, size_t distinct) {
    if (!capacity) return SCBF_E_INVALID_ARG;
    memset(c, 0, sizeof *c);
    size_t d = distinct ? distinct : 1;
    c->where = calloc(d, 1);
    c->key_of = malloc(d * sizeof *c->key_of);
    int bad = ref_links_init(&c->l, distinct) || sketch_init(&c->sketch, capacity);
    if (bad || !c->where || !c->key_of) {
        mini_wtinylfu_free(c);
        return SCBF_E_NOMEM;
    }
    ref_list_init(&c->window);
    ref_list_init(&c->probation);
    ref_list_init(&c->protect);
    c->capacity = capacity;
    c->climbing = climbing;
    c->window_max = (uint64_t)fmax(1.0, floor(0.01 * (double)capacity));
    c->protected_max = (uint64_t)(0.8 * (double)(capacity - c->window_max));
    c->step = -0.0625 * (double)capacity;
    return SCBF_OK;
}

void mini_wtinylfu_free(mini_wtinylfu_t *c) {
    ref_links_free(&c->l);
    free(c->sketch.table);
    free(c->where);
    free(c->key_of);
    c->sketch.table = c->key_of = NULL;
    c->where = NULL;
}

int mini_wtinylfu_access(mini_wtinylfu_t *c, uint32_t id, uint64_t key) {
    sketch_increment(&c->sketch, key);
    int hit = c->where[id] != NONE;
    switch (c->where[id]) {
    case WINDOW: ref_list_move_head(&c->l, &c->window, id); break;
    case PROBATION:
        move(c, &c->probation, &c->protect, PROTECTED, id);
        demote_protected(c);
        break;
    case PROTECTED: ref_list_move_head(&c->l, &c->protect, id); break;
    default:
        c->key_of[id] = key;
        ref_list_push_head(&c->l, &c->window, id);
        c->where[id] = WINDOW;
        evict(c);
        break;
    }
    if (c->climbing) {
        if (hit)
            c->sample_hits++;
        else
            c->sample_misses++;
        climb(c);
    }
    return hit;
}
