/* ref_policy.c - names of the reference policies and the replay dispatch. */
#include "ref_policy.h"

#include <string.h>

#include "mini.h"

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

/* The step-wise policies (mini.h) over the trace's dense ids. */
static int replay_mini(ref_policy p, const uint64_t *keys, const uint32_t *ids, size_t n,
                       size_t distinct, uint64_t capacity, uint64_t *hits) {
    mini_lirs_t lirs;
    mini_s3fifo_t s3;
    mini_wtinylfu_t w;
    int rc = p == REF_LIRS     ? mini_lirs_init(&lirs, capacity, distinct)
             : p == REF_S3FIFO ? mini_s3fifo_init(&s3, capacity, distinct)
                               : mini_wtinylfu_init(&w, capacity, p == REF_WTINYLFU, distinct);
    if (rc != SCBF_OK) return rc;
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h += (unsigned)(p == REF_LIRS     ? mini_lirs_access(&lirs, ids[i])
                        : p == REF_S3FIFO ? mini_s3fifo_access(&s3, ids[i])
                                          : mini_wtinylfu_access(&w, ids[i], keys[i]));
    if (p == REF_LIRS)
        mini_lirs_free(&lirs);
    else if (p == REF_S3FIFO)
        mini_s3fifo_free(&s3);
    else
        mini_wtinylfu_free(&w);
    *hits = h;
    return SCBF_OK;
}

int ref_replay(ref_policy p, const uint64_t *keys, const uint32_t *ids, size_t n, size_t distinct,
               uint64_t capacity, uint64_t *hits) {
    if ((n && (!keys || !ids)) || !hits) return SCBF_E_INVALID_ARG;
    switch (p) {
    case REF_ARC: return ref_arc(ids, n, distinct, capacity, hits);
    case REF_LIRS:
    case REF_S3FIFO:
    case REF_WTINYLFU:
    case REF_WTINYLFU_1PCT: return replay_mini(p, keys, ids, n, distinct, capacity, hits);
    case REF_SIEVE: return ref_sieve(ids, n, distinct, capacity, hits);
    default: return SCBF_E_INVALID_ARG;
    }
}
