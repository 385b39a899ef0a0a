/* Internal: doubly-linked lists threaded through arrays indexed by key ids
 * (a trace's dense ids in the simulator's reference policies, the shadow
 * LRU's slots), so a policy's lists cost two uint32 per key and no
 * allocation per access. A key is in at most
 * one list of a given ref_links_t (a policy that needs a key in two lists at
 * once, like LIRS's stack and queue, uses two). */
#ifndef SCBF_CACHE_IDLIST_H
#define SCBF_CACHE_IDLIST_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define REF_NIL UINT32_MAX

typedef struct {
    uint32_t *prev, *next;
} ref_links_t;

/* One list: head is the most recent end, tail the oldest. */
typedef struct {
    uint32_t head, tail;
    size_t size;
} ref_list_t;

static inline int ref_links_init(ref_links_t *l, size_t distinct) {
    l->prev = malloc((distinct ? distinct : 1) * sizeof *l->prev);
    l->next = malloc((distinct ? distinct : 1) * sizeof *l->next);
    return l->prev && l->next ? 0 : -1;
}

static inline void ref_links_free(ref_links_t *l) {
    free(l->prev);
    free(l->next);
}

static inline void ref_list_init(ref_list_t *q) {
    q->head = q->tail = REF_NIL;
    q->size = 0;
}

static inline void ref_list_push_head(ref_links_t *l, ref_list_t *q, uint32_t id) {
    l->prev[id] = REF_NIL;
    l->next[id] = q->head;
    if (q->head != REF_NIL)
        l->prev[q->head] = id;
    else
        q->tail = id;
    q->head = id;
    q->size++;
}

static inline void ref_list_remove(ref_links_t *l, ref_list_t *q, uint32_t id) {
    if (l->prev[id] != REF_NIL)
        l->next[l->prev[id]] = l->next[id];
    else
        q->head = l->next[id];
    if (l->next[id] != REF_NIL)
        l->prev[l->next[id]] = l->prev[id];
    else
        q->tail = l->prev[id];
    q->size--;
}

static inline uint32_t ref_list_pop_tail(ref_links_t *l, ref_list_t *q) {
    uint32_t id = q->tail;
    if (id != REF_NIL) ref_list_remove(l, q, id);
    return id;
}

/* Moves id from list `from` to the head of list `to` (the same list: to its head). */
static inline void ref_list_transfer(ref_links_t *l, ref_list_t *from, ref_list_t *to,
                                     uint32_t id) {
    ref_list_remove(l, from, id);
    ref_list_push_head(l, to, id);
}

static inline void ref_list_move_head(ref_links_t *l, ref_list_t *q, uint32_t id) {
    ref_list_transfer(l, q, q, id);
}
#endif
