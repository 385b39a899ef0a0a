/* Internal: the frequency sketch of the adaptive hotscore policy.
 *
 * A count-min sketch of 4-bit counters (four per key, in four different
 * 64-bit words) estimates how often each key was accessed recently: its
 * hotscore. Every `sample` increments the sketch ages: every counter halves,
 * which is the HiBase score update score = a * visits + (1 - a) * score with
 * a = 1/2, applied to all keys at once. The halving is lazy: each word
 * carries the epoch it was last brought up to date in, and a word is halved
 * (once per epoch it missed) the next time it is touched, so aging costs
 * O(1) per access and never pauses. */
#ifndef SCBF_CACHE_SKETCH_H
#define SCBF_CACHE_SKETCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *words;
    uint8_t *epochs; /* per word: the epoch its counters are current for */
    uint64_t mask;   /* words - 1 (a power of two) */
    uint64_t sample; /* increments per epoch */
    uint64_t count;  /* increments in this epoch */
    uint64_t ages;   /* epochs so far */
    uint8_t epoch;   /* ages mod 256; a word untouched for 256 epochs passes as current */
} sketch_t;

/* Bytes sketch_init allocates for `keys` expected distinct hot keys. */
uint64_t sketch_bytes(uint64_t keys);

/* Sized for `keys` (at least 8 words); 0 on success, -1 if out of memory. */
int sketch_init(sketch_t *s, uint64_t keys);
void sketch_destroy(sketch_t *s);
void sketch_clear(sketch_t *s);

/* Estimated recent accesses of the key whose 64-bit hash is h, 0..15. */
unsigned sketch_frequency(sketch_t *s, uint64_t h);

/* Count one access; ages the sketch every `sample` increments. */
void sketch_increment(sketch_t *s, uint64_t h);

#endif
