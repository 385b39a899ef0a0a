/* shadow.c - a shadow LRU of key hashes (see shadow.h). */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

static uint64_t index_slots(uint32_t cap) {
    uint64_t n = 2;
    while (n < 2 * (uint64_t)cap) n <<= 1;
    return n;
}

uint64_t shadow_bytes(uint32_t cap) {
    return (uint64_t)cap * (sizeof(uint64_t) + 2 * sizeof(uint32_t)) +
           index_slots(cap) * sizeof(uint32_t);
}

int shadow_init(shadow_t *s, uint32_t cap) {
    memset(s, 0, sizeof *s);
    if (cap < 1) cap = 1;
    s->cap = s->limit = cap;
    s->imask = index_slots(cap) - 1;
    s->hash = malloc((size_t)cap * sizeof *s->hash);
    s->prev = malloc((size_t)cap * sizeof *s->prev);
    s->next = malloc((size_t)cap * sizeof *s->next);
    s->index = calloc(s->imask + 1, sizeof *s->index);
    if (!s->hash || !s->prev || !s->next || !s->index) {
        shadow_destroy(s);
        return -1;
    }
    s->mru = s->lru = NIL;
    return 0;
}

void shadow_destroy(shadow_t *s) {
    free(s->hash);
    free(s->prev);
    free(s->next);
    free(s->index);
    memset(s, 0, sizeof *s);
}

void shadow_clear(shadow_t *s) {
    memset(s->index, 0, (s->imask + 1) * sizeof *s->index);
    s->n = 0;
    s->mru = s->lru = NIL;
}

static uint64_t home(const shadow_t *s, uint64_t h) {
    return (h ^ (h >> 29)) & s->imask; /* the cache's hash, remixed for a smaller table */
}

static uint64_t find(const shadow_t *s, uint64_t h) {
    uint64_t i = home(s, h);
    while (s->index[i] && s->hash[s->index[i] - 1] != h) i = (i + 1) & s->imask;
    return i;
}

/* Backward-shift deletion, as for the paper policy's ghost index. */
static void index_delete(shadow_t *s, uint64_t hole) {
    uint64_t i = hole, j = hole;
    for (;;) {
        j = (j + 1) & s->imask;
        if (!s->index[j]) break;
        uint64_t k = home(s, s->hash[s->index[j] - 1]);
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            s->index[i] = s->index[j];
            i = j;
        }
    }
    s->index[i] = 0;
}

static void unlink_slot(shadow_t *s, uint32_t x) {
    if (s->prev[x] != NIL)
        s->next[s->prev[x]] = s->next[x];
    else
        s->mru = s->next[x];
    if (s->next[x] != NIL)
        s->prev[s->next[x]] = s->prev[x];
    else
        s->lru = s->prev[x];
}

static void push_front(shadow_t *s, uint32_t x) {
    s->prev[x] = NIL;
    s->next[x] = s->mru;
    if (s->mru != NIL)
        s->prev[s->mru] = x;
    else
        s->lru = x;
    s->mru = x;
}

/* Drops the least recent hash; its slot is moved to the array's end's hole
 * so used slots stay dense in [0, n). */
static void drop_lru(shadow_t *s) {
    uint32_t x = s->lru;
    unlink_slot(s, x);
    index_delete(s, find(s, s->hash[x]));
    uint32_t last = --s->n;
    if (x != last) {
        s->hash[x] = s->hash[last];
        s->prev[x] = s->prev[last];
        s->next[x] = s->next[last];
        if (s->prev[x] != NIL)
            s->next[s->prev[x]] = x;
        else
            s->mru = x;
        if (s->next[x] != NIL)
            s->prev[s->next[x]] = x;
        else
            s->lru = x;
        s->index[find(s, s->hash[x])] = x + 1;
    }
}

void shadow_set_limit(shadow_t *s, uint32_t limit) {
    s->limit = limit < 1 ? 1 : limit > s->cap ? s->cap : limit;
    while (s->n > s->limit) drop_lru(s);
}

int shadow_access(shadow_t *s, uint64_t h) {
    uint64_t i = find(s, h);
    if (s->index[i]) {
        uint32_t x = s->index[i] - 1;
        unlink_slot(s, x);
        push_front(s, x);
        return 1;
    }
    if (s->n == s->limit) {
        drop_lru(s);
        i = find(s, h);
    }
    uint32_t x = s->n++;
    s->hash[x] = h;
    s->index[i] = x + 1;
    push_front(s, x);
    return 0;
}
