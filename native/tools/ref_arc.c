/*
 * ref_arc.c - ARC (Megiddo and Modha, "ARC: A Self-Tuning, Low Overhead
 * Replacement Cache", FAST 2003), Figure 4 of the paper.
 *
 * T1 holds keys seen once recently, T2 keys seen at least twice; B1 and B2
 * remember the keys evicted from each (ghosts). A hit in a ghost list moves
 * the target size p of T1 towards the list that would have hit.
 */
#include "idlist.h"
#include "ref_policy.h"
#include "scbf/scbf_error.h"

enum { NONE = 0, T1, T2, B1, B2 };

typedef struct {
    ref_links_t l;
    ref_list_t t1, t2, b1, b2;
    unsigned char *where;
    uint64_t p;
} arc_t;

static void move_head(arc_t *c, ref_list_t *from, ref_list_t *to, int where, uint32_t id) {
    ref_list_transfer(&c->l, from, to, id);
    c->where[id] = (unsigned char)where;
}

static void replace(arc_t *c, int in_b2) {
    if (c->t1.size >= 1 && ((in_b2 && c->t1.size == c->p) || c->t1.size > c->p))
        move_head(c, &c->t1, &c->b1, B1, c->t1.tail);
    else if (c->t2.size >= 1)
        move_head(c, &c->t2, &c->b2, B2, c->t2.tail);
    else
        move_head(c, &c->t1, &c->b1, B1, c->t1.tail);
}

static void drop_tail(arc_t *c, ref_list_t *q) { c->where[ref_list_pop_tail(&c->l, q)] = NONE; }

int ref_arc(const uint32_t *ids, size_t n, size_t distinct, uint64_t capacity, uint64_t *hits) {
    if (!capacity || !hits) return SCBF_E_INVALID_ARG;
    arc_t c;
    c.where = calloc(distinct ? distinct : 1, 1);
    if (ref_links_init(&c.l, distinct) || !c.where) {
        ref_links_free(&c.l);
        free(c.where);
        return SCBF_E_NOMEM;
    }
    ref_list_init(&c.t1);
    ref_list_init(&c.t2);
    ref_list_init(&c.b1);
    ref_list_init(&c.b2);
    c.p = 0;
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t id = ids[i];
        switch (c.where[id]) {
        case T1:
            h++;
            move_head(&c, &c.t1, &c.t2, T2, id);
            continue;
        case T2:
            h++;
            ref_list_move_head(&c.l, &c.t2, id);
            continue;
        case B1: {
            uint64_t d = c.b1.size >= c.b2.size ? 1 : c.b2.size / c.b1.size;
            c.p = c.p + d < capacity ? c.p + d : capacity;
            replace(&c, 0);
            move_head(&c, &c.b1, &c.t2, T2, id);
            continue;
        }
        case B2: {
            uint64_t d = c.b2.size >= c.b1.size ? 1 : c.b1.size / c.b2.size;
            c.p = c.p > d ? c.p - d : 0;
            replace(&c, 1);
            move_head(&c, &c.b2, &c.t2, T2, id);
            continue;
        }
        default: break;
        }
        uint64_t l1 = c.t1.size + c.b1.size;
        uint64_t all = l1 + c.t2.size + c.b2.size;
        if (l1 == capacity) {
            if (c.t1.size < capacity) {
                drop_tail(&c, &c.b1);
                replace(&c, 0);
            } else {
                drop_tail(&c, &c.t1);
            }
        } else if (all >= capacity) {
            if (all >= 2 * capacity) drop_tail(&c, &c.b2);
            replace(&c, 0);
        }
        ref_list_push_head(&c.l, &c.t1, id);
        c.where[id] = T1;
    }
    *hits = h;
    ref_links_free(&c.l);
    free(c.where);
    return SCBF_OK;
}
