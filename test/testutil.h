/* Shared helpers for the Check suites: a fast seeded RNG and a scale factor
 * (env SCBF_TEST_SCALE, default 1.0) so sanitizer builds can run the same
 * randomized tests with fewer operations. */
#ifndef SCBF_TESTUTIL_H
#define SCBF_TESTUTIL_H
#include <stdint.h>
#include <stddef.h>
#include <check.h>

typedef struct {
    uint64_t s;
} tu_rng;

static inline uint64_t tu_next(tu_rng *r) { /* splitmix64 */
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static inline uint64_t tu_below(tu_rng *r, uint64_t n) { return tu_next(r) % n; }

/* Scaled operation count, never below `floor_ops`. */
uint64_t tu_scaled(uint64_t ops, uint64_t floor_ops);
/* Runs a suite and returns the process exit status (Check prints its summary line). */
int tu_run(Suite *s);
/* Writes an 8-byte little-endian encoding of v into out (key material). */
void tu_key64(uint64_t v, uint8_t out[8]);
#endif
