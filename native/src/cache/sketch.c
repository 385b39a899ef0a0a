/* sketch.c - count-min frequency sketch with lazy halving (see sketch.h). */
#include "sketch.h"

#include <stdlib.h>
#include <string.h>

/* Per-nibble masks after shifting a word right by 1, 2 or 3 bits. */
static const uint64_t HALVE_MASK[4] = {
    UINT64_C(0xFFFFFFFFFFFFFFFF),
    UINT64_C(0x7777777777777777),
    UINT64_C(0x3333333333333333),
    UINT64_C(0x1111111111111111),
};

/* One word (16 counters) per key, as Caffeine sizes its sketch. */
static uint64_t words_for(uint64_t keys) {
    uint64_t want = keys, n = 8;
    while (n < want && n < (UINT64_C(1) << 40)) n <<= 1;
    return n;
}

uint64_t sketch_bytes(uint64_t keys) {
    return words_for(keys) * (sizeof(uint64_t) + sizeof(uint8_t));
}

int sketch_init(sketch_t *s, uint64_t keys) {
    memset(s, 0, sizeof *s);
    uint64_t n = words_for(keys);
    s->words = calloc(n, sizeof *s->words);
    s->epochs = calloc(n, sizeof *s->epochs);
    if (!s->words || !s->epochs) {
        sketch_destroy(s);
        return -1;
    }
    s->mask = n - 1;
    /* Age after twenty increments per expected key (Caffeine ages after ten;
     * twenty did better on the Zipf workloads and traces of
     * docs/benchmarks-cache.md: a longer memory of what is hot). */
    s->sample = 20 * (keys < 8 ? 8 : keys);
    return 0;
}

void sketch_destroy(sketch_t *s) {
    free(s->words);
    free(s->epochs);
    s->words = NULL;
    s->epochs = NULL;
}

void sketch_clear(sketch_t *s) {
    memset(s->words, 0, (s->mask + 1) * sizeof *s->words);
    memset(s->epochs, 0, (s->mask + 1) * sizeof *s->epochs);
    s->count = 0;
    s->ages = 0;
    s->epoch = 0;
}

/* Brings word w up to the current epoch: one halving per missed epoch. */
static uint64_t *current(sketch_t *s, uint64_t w) {
    uint8_t behind = (uint8_t)(s->epoch - s->epochs[w]);
    if (behind) {
        s->words[w] = behind >= 4 ? 0 : (s->words[w] >> behind) & HALVE_MASK[behind];
        s->epochs[w] = s->epoch;
    }
    return &s->words[w];
}

/* Counter i of a key: word and nibble from an independent remix of h. */
static void locate(const sketch_t *s, uint64_t h, int i, uint64_t *w, unsigned *shift) {
    uint64_t x = h + (uint64_t)(i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    x ^= x >> 31;
    *w = x & s->mask;
    *shift = (unsigned)(x >> 60) * 4;
}

unsigned sketch_frequency(sketch_t *s, uint64_t h) {
    unsigned f = 15;
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        unsigned shift;
        locate(s, h, i, &w, &shift);
        unsigned c = (unsigned)(*current(s, w) >> shift) & 15;
        if (c < f) f = c;
    }
    return f;
}

void sketch_increment(sketch_t *s, uint64_t h) {
    int added = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t w;
        unsigned shift;
        locate(s, h, i, &w, &shift);
        uint64_t *word = current(s, w);
        if (((*word >> shift) & 15) != 15) {
            *word += UINT64_C(1) << shift;
            added = 1;
        }
    }
    if (added && ++s->count >= s->sample) {
        s->epoch++;
        s->ages++;
        s->count /= 2;
    }
}
