/* idmap.c - key hashes to reusable small ids (see idmap.h). */
#include "idmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t index_slots(uint32_t cap) {
    uint64_t n = 2;
    while (n < 2 * (uint64_t)cap) n <<= 1;
    return n;
}

uint64_t idmap_bytes(uint32_t cap) {
    return (uint64_t)cap * (sizeof(uint64_t) + sizeof(uint32_t)) +
           index_slots(cap) * sizeof(uint32_t);
}

int idmap_init(idmap_t *m, uint32_t cap) {
    memset(m, 0, sizeof *m);
    if (cap < 1) cap = 1;
    m->cap = cap;
    m->imask = index_slots(cap) - 1;
    m->hash = malloc((size_t)cap * sizeof *m->hash);
    m->free_ids = malloc((size_t)cap * sizeof *m->free_ids);
    m->index = calloc(m->imask + 1, sizeof *m->index);
    if (!m->hash || !m->free_ids || !m->index) {
        idmap_destroy(m);
        return -1;
    }
    idmap_clear(m);
    return 0;
}

void idmap_destroy(idmap_t *m) {
    free(m->hash);
    free(m->free_ids);
    free(m->index);
    memset(m, 0, sizeof *m);
}

void idmap_clear(idmap_t *m) {
    memset(m->index, 0, (m->imask + 1) * sizeof *m->index);
    for (uint32_t i = 0; i < m->cap; i++) m->free_ids[i] = m->cap - 1 - i;
    m->nfree = m->cap;
}

static uint64_t home(const idmap_t *m, uint64_t h) {
    return (h ^ (h >> 29)) & m->imask; /* the cache's hash, remixed for a smaller table */
}

static uint64_t find(const idmap_t *m, uint64_t h) {
    uint64_t i = home(m, h);
    while (m->index[i] && m->hash[m->index[i] - 1] != h) i = (i + 1) & m->imask;
    return i;
}

uint32_t idmap_find(const idmap_t *m, uint64_t h) {
    uint32_t v = m->index[find(m, h)];
    return v ? v - 1 : IDMAP_NONE;
}

uint32_t idmap_add(idmap_t *m, uint64_t h) {
    if (!m->nfree) return IDMAP_NONE;
    uint32_t id = m->free_ids[--m->nfree];
    m->hash[id] = h;
    m->index[find(m, h)] = id + 1;
    return id;
}

/* Backward-shift deletion, as for the paper policy's ghost index. */
void idmap_remove(idmap_t *m, uint32_t id) {
    uint64_t i = find(m, m->hash[id]), j = i;
    for (;;) {
        j = (j + 1) & m->imask;
        if (!m->index[j]) break;
        uint64_t k = home(m, m->hash[m->index[j] - 1]);
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            m->index[i] = m->index[j];
            i = j;
        }
    }
    m->index[i] = 0;
    m->free_ids[m->nfree++] = id;
}
