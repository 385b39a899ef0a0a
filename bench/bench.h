/* scbf-bench: benchmark programs that print figures (never assert speed).
 * Each suite compares against a baseline measured in the same run. */
#ifndef SCBF_BENCH_H
#define SCBF_BENCH_H
#include <stdint.h>
#include <time.h>

int bench_filters(int argc, char **argv); /* bench/filters.c */
int bench_cache(int argc, char **argv);   /* bench/cache.c */

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
