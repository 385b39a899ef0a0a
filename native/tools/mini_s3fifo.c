/*
 * mini_s3fifo.c - S3-FIFO (Yang et al., "FIFO queues are all you need for
 * cache eviction", SOSP 2023), as its Algorithm 1 states it.
 *
 * A small FIFO S (10% of the entries) takes new keys, a main FIFO M the
 * rest; a ghost FIFO G remembers as many keys as M holds. A hit raises a
 * 2-bit frequency. Leaving S, a key seen more than once moves to M, others
 * go to G; a key found in G enters M directly. Leaving M, a key with a
 * non-zero frequency is reinserted with it decremented. A key promoted from S
 * to M starts again at frequency 0, as in the authors' code (libCacheSim):
 * without that reset orm-night gives 0.878 instead of the published 0.905.
 */
#include <stdlib.h>

#include "mini.h"
#include "scbf/scbf_error.h"

enum { NONE = 0, IN_S, IN_M, IN_G };

static void evict_m(mini_s3fifo_t *c) {
    while (c->m.size > 0) {
        uint32_t t = ref_list_pop_tail(&c->l, &c->m);
        if (c->freq[t] > 0) {
            c->freq[t]--;
            ref_list_push_head(&c->l, &c->m, t);
        } else {
            c->where[t] = NONE;
            return;
        }
    }
}

static void ghost_add(mini_s3fifo_t *c, uint32_t id) {
    if (c->g.size >= c->m_cap) c->where[ref_list_pop_tail(&c->l, &c->g)] = NONE;
    ref_list_push_head(&c->l, &c->g, id);
    c->where[id] = IN_G;
}

static void evict_s(mini_s3fifo_t *c) {
    while (c->s.size > 0) {
        uint32_t t = ref_list_pop_tail(&c->l, &c->s);
        if (c->freq[t] > 1) {
            ref_list_push_head(&c->l, &c->m, t);
            c->where[t] = IN_M;
            c->freq[t] = 0; /* as the authors' code does: M earns its own hits */
            if (c->m.size >= c->m_cap) evict_m(c);
        } else {
            ghost_add(c, t);
            return;
        }
    }
}

int mini_s3fifo_init(mini_s3fifo_t *c, uint64_t capacity, size_t distinct) {
    if (!capacity) return SCBF_E_INVALID_ARG;
    c->where = calloc(distinct ? distinct : 1, 1);
    c->freq = calloc(distinct ? distinct : 1, 1);
    if (ref_links_init(&c->l, distinct) || !c->where || !c->freq) {
        mini_s3fifo_free(c);
        return SCBF_E_NOMEM;
    }
    ref_list_init(&c->s);
    ref_list_init(&c->m);
    ref_list_init(&c->g);
    c->capacity = capacity;
    c->s_cap = capacity / 10 ? capacity / 10 : 1;
    c->m_cap = capacity - c->s_cap ? capacity - c->s_cap : 1;
    return SCBF_OK;
}

void mini_s3fifo_free(mini_s3fifo_t *c) {
    ref_links_free(&c->l);
    free(c->where);
    free(c->freq);
    c->where = c->freq = NULL;
}

int mini_s3fifo_access(mini_s3fifo_t *c, uint32_t id) {
    if (c->where[id] == IN_S || c->where[id] == IN_M) {
        if (c->freq[id] < 3) c->freq[id]++;
        return 1;
    }
    while (c->s.size + c->m.size >= c->capacity) {
        if (c->s.size >= c->s_cap)
            evict_s(c);
        else
            evict_m(c);
    }
    c->freq[id] = 0;
    if (c->where[id] == IN_G) {
        ref_list_transfer(&c->l, &c->g, &c->m, id);
        c->where[id] = IN_M;
    } else {
        ref_list_push_head(&c->l, &c->s, id);
        c->where[id] = IN_S;
    }
    return 0;
}
