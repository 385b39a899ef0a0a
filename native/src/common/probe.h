/* Internal: the SCBF's probe sequence, shared by the filter and by the plain
 * counting-filter baseline of bench/filters.c (which must probe the same way
 * for the comparison to be fair). */
#ifndef SCBF_PROBE_H
#define SCBF_PROBE_H
#include <stdint.h>

/* A key's probe sequence: pos_i = (a + i*b + c*i*(i-1)/2) mod m, walked
 * with two modular additions per slice. */
typedef struct {
    uint64_t pos, step, c;
} probe_t;

static inline uint64_t add_mod(uint64_t x, uint64_t y, uint64_t m) {
    x += y;
    return x >= m ? x - m : x;
}

/* a, b, c are three base-m digits of the 128-bit hash (h1 mod m, h2 mod m,
 * (h1 / m) mod m). Plain double hashing (a + i*b) has only m^2 distinct
 * probe sequences: with m in the tens of thousands (the paper's 45 KB
 * filters) a fresh key repeats an inserted key's whole sequence with
 * probability ~n/m^2, which exceeds the target rate itself at P = 1e-6.
 * The quadratic term makes that m^3 at the cost of one more division. */
static inline probe_t probe_start(uint64_t h1, uint64_t h2, uint64_t m) {
    probe_t p;
    uint64_t q = h1 / m;
    p.pos = h1 - q * m;
    p.step = h2 % m;
    p.c = q % m;
    return p;
}

static inline void probe_next(probe_t *p, uint64_t m) {
    p->pos = add_mod(p->pos, p->step, m);
    p->step = add_mod(p->step, p->c, m);
}
#endif
