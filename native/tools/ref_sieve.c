/*
 * ref_sieve.c - SIEVE (Zhang et al., "SIEVE is Simpler than LRU", NSDI 2024).
 *
 * One FIFO queue and a visited bit per entry. A hit only sets the bit. On a
 * miss with the cache full, the hand walks from where it stopped last (the
 * tail at first) towards the head, clearing visited bits, and evicts the
 * first unvisited entry; the hand stays there, and wraps to the tail past
 * the head. New entries go to the head.
 */
#include "idlist.h"
#include "ref_policy.h"
#include "scbf/scbf_error.h"

int ref_sieve(const uint32_t *ids, size_t n, size_t distinct, uint64_t capacity, uint64_t *hits) {
    if (!capacity || !hits) return SCBF_E_INVALID_ARG;
    ref_links_t l;
    unsigned char *state = calloc(distinct ? distinct : 1, 1); /* 1 cached, 2 visited */
    if (ref_links_init(&l, distinct) || !state) {
        ref_links_free(&l);
        free(state);
        return SCBF_E_NOMEM;
    }
    ref_list_t q;
    ref_list_init(&q);
    uint32_t hand = REF_NIL;
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids[i];
        if (state[id]) {
            h++;
            state[id] = 2;
            continue;
        }
        if (q.size >= capacity) {
            uint32_t v = hand != REF_NIL ? hand : q.tail;
            while (state[v] == 2) {
                state[v] = 1;
                v = l.prev[v] != REF_NIL ? l.prev[v] : q.tail;
            }
            hand = l.prev[v]; /* REF_NIL: restart at the tail */
            ref_list_remove(&l, &q, v);
            state[v] = 0;
        }
        ref_list_push_head(&l, &q, id);
        state[id] = 1;
    }
    *hits = h;
    ref_links_free(&l);
    free(state);
    return SCBF_OK;
}
