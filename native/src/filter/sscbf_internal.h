/* Internal: the scalable filter's state, for its snapshot codec
 * (snapshot/sscbf_codec.c). Only sscbf.c changes these fields; the codec
 * reads them under the read lock and fills a fresh, unshared filter. */
#ifndef SCBF_SSCBF_INTERNAL_H
#define SCBF_SSCBF_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include "scbf/sscbf.h"

#define SSCBF_MAX_FILTERS 64u

struct sscbf {
    sscbf_config_t c;
    pthread_rwlock_t lock;
    pthread_mutex_t admin;
    scbf_t *filters[SSCBF_MAX_FILTERS]; /* [0, n) in use, oldest first */
    uint32_t n;
    scbf_t *shadow;     /* compaction target while a compaction runs */
    int growth_blocked; /* next sub-filter could not be sized/allocated */
    _Atomic uint64_t residue, shadow_residue;
    _Atomic uint64_t adds, removes, shadow_adds;
};

/* SCBF_OK if c is usable by sscbf_create (ranges, sizable first filter). */
int sscbf_config_check(const sscbf_config_t *c);

/* A filter with no sub-filters yet; the caller installs filters[0..n). */
int sscbf_alloc(const sscbf_config_t *c, sscbf_t **out);

/* The lock that guards the sub-filter list (readers: queries, snapshots). */
void sscbf_rdlock(const sscbf_t *s);
void sscbf_unlock(const sscbf_t *s);
#endif
