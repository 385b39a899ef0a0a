/* ref_policy.c - names of the reference policies and the replay dispatch. */
#include "ref_policy.h"

#include <string.h>

#include "scbf/scbf_error.h"

static const char *const NAMES[REF_POLICIES] = {"arc",   "lirs",     "s3fifo",
                                                "sieve", "wtinylfu", "wtinylfu-1pct"};

int ref_policy_parse(const char *name, ref_policy *out) {
    for (int p = 0; p < REF_POLICIES; p++) {
        if (name && !strcmp(name, NAMES[p])) {
            *out = (ref_policy)p;
            return 0;
        }
    }
    return -1;
}

const char *ref_policy_name(ref_policy p) { return p >= 0 && p < REF_POLICIES ? NAMES[p] : "?"; }

int ref_replay(ref_policy p, const uint64_t *keys, const uint32_t *ids, size_t n, size_t distinct,
               uint64_t capacity, uint64_t *hits) {
    if ((n && (!keys || !ids)) || !hits) return SCBF_E_INVALID_ARG;
    switch (p) {
    case REF_ARC: return ref_arc(ids, n, distinct, capacity, hits);
    case REF_LIRS: return ref_lirs(ids, n, distinct, capacity, hits);
    case REF_S3FIFO: return ref_s3fifo(ids, n, distinct, capacity, hits);
    case REF_SIEVE: return ref_sieve(ids, n, distinct, capacity, hits);
    case REF_WTINYLFU: return ref_wtinylfu(ids, keys, n, distinct, capacity, 1, hits);
    case REF_WTINYLFU_1PCT: return ref_wtinylfu(ids, keys, n, distinct, capacity, 0, hits);
    default: return SCBF_E_INVALID_ARG;
    }
}
