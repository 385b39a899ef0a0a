/*
 * mini_lirs.c - LIRS (Jiang and Zhang, "LIRS: An Efficient Low Inter-reference
 * Recency Set Replacement Policy", SIGMETRICS 2002), section 3.3.
 *
 * Keys with a low inter-reference recency (LIR) hold 99% of the cache; the
 * other 1% holds resident HIR keys, in a FIFO queue Q, which are the ones
 * evicted. The stack S orders keys by recency (LIR, resident HIR, and
 * non-resident HIR keys that still carry a recency); its bottom is always
 * a LIR key ("stack pruning"). A HIR key referenced again while in S has a
 * reuse distance shorter than the oldest LIR key's: they swap status.
 *
 * The non-resident keys S holds are unbounded, as in the paper: they leave
 * S only through pruning. Bounding them would save no memory, since the
 * arrays are sized for every distinct id of the trace.
 */
#include <stdlib.h>

#include "mini.h"
#include "scbf/scbf_error.h"

enum { UNKNOWN = 0, LIR, HIR_RESIDENT, HIR_GONE };

static void push_s(mini_lirs_t *c, uint32_t id) {
    if (c->in_s[id]) ref_list_remove(&c->ls, &c->s, id);
    ref_list_push_head(&c->ls, &c->s, id);
    c->in_s[id] = 1;
}

/* Removes the HIR keys at the bottom of S until a LIR key is there. */
static void prune(mini_lirs_t *c) {
    while (c->s.tail != REF_NIL && c->status[c->s.tail] != LIR) {
        uint32_t b = ref_list_pop_tail(&c->ls, &c->s);
        c->in_s[b] = 0;
        if (c->status[b] == HIR_GONE) c->status[b] = UNKNOWN; /* no recency left: untracked */
    }
}

/* The LIR key at the bottom of S becomes a resident HIR key, newest in Q. */
static void demote_bottom(mini_lirs_t *c) {
    uint32_t b = ref_list_pop_tail(&c->ls, &c->s);
    c->in_s[b] = 0;
    c->status[b] = HIR_RESIDENT;
    ref_list_push_head(&c->lq, &c->q, b);
    c->lir_count--;
    prune(c);
}

int mini_lirs_init(mini_lirs_t *c, uint64_t capacity, size_t distinct) {
    /* One LIR and one resident HIR entry at least: a single entry cannot hold both sets. */
    if (capacity < 2) return SCBF_E_INVALID_ARG;
    size_t d = distinct ? distinct : 1;
    c->status = calloc(d, 1);
    c->in_s = calloc(d, 1);
    int bad = ref_links_init(&c->ls, distinct);
    bad |= ref_links_init(&c->lq, distinct);
    if (bad || !c->status || !c->in_s) {
        mini_lirs_free(c);
        return SCBF_E_NOMEM;
    }
    ref_list_init(&c->s);
    ref_list_init(&c->q);
    c->lir_count = 0;
    c->capacity = capacity;
    uint64_t hir_cap = capacity / 100 ? capacity / 100 : 1;
    c->lir_cap = capacity - hir_cap;
    return SCBF_OK;
}

void mini_lirs_free(mini_lirs_t *c) {
    ref_links_free(&c->ls);
    ref_links_free(&c->lq);
    free(c->status);
    free(c->in_s);
    c->status = c->in_s = NULL;
}

int mini_lirs_access(mini_lirs_t *c, uint32_t id) {
    switch (c->status[id]) {
    case LIR: {
        int was_bottom = c->s.tail == id;
        push_s(c, id);
        if (was_bottom) prune(c);
        return 1;
    }
    case HIR_RESIDENT:
        if (c->in_s[id]) {
            ref_list_remove(&c->lq, &c->q, id);
            c->status[id] = LIR;
            c->lir_count++;
            push_s(c, id);
            demote_bottom(c);
        } else {
            push_s(c, id);
            ref_list_move_head(&c->lq, &c->q, id);
        }
        return 1;
    default: break;
    }
    /* A miss: make room by evicting the oldest resident HIR key. */
    if (c->lir_count + c->q.size >= c->capacity) {
        uint32_t v = ref_list_pop_tail(&c->lq, &c->q);
        /* Still in S, it keeps its recency as a non-resident key. */
        if (v != REF_NIL) c->status[v] = c->in_s[v] ? HIR_GONE : UNKNOWN;
    }
    if (c->lir_count < c->lir_cap && c->status[id] == UNKNOWN) {
        c->status[id] = LIR; /* warming up: the first keys fill the LIR set */
        c->lir_count++;
        push_s(c, id);
    } else if (c->in_s[id]) { /* non-resident HIR with a recency */
        c->status[id] = LIR;
        c->lir_count++;
        push_s(c, id);
        demote_bottom(c);
    } else {
        c->status[id] = HIR_RESIDENT;
        push_s(c, id);
        ref_list_push_head(&c->lq, &c->q, id);
    }
    return 0;
}
