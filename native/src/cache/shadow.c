/* shadow.c - a shadow LRU of key hashes (see shadow.h). */
#include "shadow.h"

#include <string.h>

uint64_t shadow_bytes(uint32_t cap) {
    return idmap_bytes(cap < 1 ? 1 : cap) + (uint64_t)(cap < 1 ? 1 : cap) * 2 * sizeof(uint32_t);
}

int shadow_init(shadow_t *s, uint32_t cap) {
    memset(s, 0, sizeof *s);
    if (cap < 1) cap = 1;
    s->cap = s->limit = cap;
    if (idmap_init(&s->map, cap) || ref_links_init(&s->links, cap)) {
        shadow_destroy(s);
        return -1;
    }
    ref_list_init(&s->list);
    return 0;
}

void shadow_destroy(shadow_t *s) {
    idmap_destroy(&s->map);
    ref_links_free(&s->links);
    memset(s, 0, sizeof *s);
}

void shadow_clear(shadow_t *s) {
    idmap_clear(&s->map);
    ref_list_init(&s->list);
}

static void drop_lru(shadow_t *s) { idmap_remove(&s->map, ref_list_pop_tail(&s->links, &s->list)); }

void shadow_set_limit(shadow_t *s, uint32_t limit) {
    s->limit = limit < 1 ? 1 : limit > s->cap ? s->cap : limit;
    while (s->list.size > s->limit) drop_lru(s);
}

int shadow_access(shadow_t *s, uint64_t h) {
    uint32_t x = idmap_find(&s->map, h);
    if (x != IDMAP_NONE) {
        ref_list_move_head(&s->links, &s->list, x);
        return 1;
    }
    if (s->list.size == s->limit) drop_lru(s);
    ref_list_push_head(&s->links, &s->list, idmap_add(&s->map, h));
    return 0;
}
