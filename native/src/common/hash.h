/* Internal: the library's only hashing entry points. xxHash is compiled in
 * (XXH_INLINE_ALL), so neither the library nor the JNI .so needs libxxhash. */
#ifndef SCBF_HASH_H
#define SCBF_HASH_H
#include <stddef.h>
#include <stdint.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

/* (h1, h2) for Kirsch-Mitzenmacher double hashing. h2 is forced odd so that
 * successive probes never collapse onto one position when m is a power of two. */
static inline void scbf_hash_pair(const void *key, size_t len, uint64_t seed, uint64_t *h1,
                                  uint64_t *h2) {
    XXH128_hash_t h = XXH3_128bits_withSeed(key, len, seed);
    *h1 = h.low64;
    *h2 = h.high64 | 1u;
}

static inline uint64_t scbf_hash64(const void *data, size_t len, uint64_t seed) {
    return XXH3_64bits_withSeed(data, len, seed);
}

/* Snapshot checksum (XXH64, as fixed by the snapshot format). */
static inline uint64_t scbf_checksum(const void *data, size_t len) { return XXH64(data, len, 0); }
#endif
