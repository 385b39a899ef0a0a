/* Internal: the reference policies of the cache simulator, beside hotcache's
 * own: published algorithms implemented from their papers (and, for
 * W-TinyLFU, Caffeine's code), so the shipped policy is compared with them on
 * the same traces. ARC and SIEVE replay a whole trace in one call
 * (ref_arc.c, ref_sieve.c); LIRS, S3-FIFO and W-TinyLFU take one access at
 * a time (mini.h). None is linked into the library.
 *
 * Every replay takes a trace as dense key ids (0 .. distinct-1), a capacity
 * in unit-size entries, and counts hits with demand paging: a missed key is
 * inserted (admission policies may then drop it at once). */
#ifndef SCBF_REF_POLICY_H
#define SCBF_REF_POLICY_H
#include <stddef.h>
#include <stdint.h>

typedef enum {
    REF_ARC,           /* Megiddo and Modha, FAST 2003 */
    REF_LIRS,          /* Jiang and Zhang, SIGMETRICS 2002 */
    REF_S3FIFO,        /* Yang et al., SOSP 2023 */
    REF_SIEVE,         /* Zhang et al., NSDI 2024 */
    REF_WTINYLFU,      /* Einziger, Friedman and Manes, ACM TOS 2017; window tuned
                   * by Caffeine's hill climber */
    REF_WTINYLFU_1PCT, /* the same with a fixed 1% window, no climbing */
    REF_POLICIES
} ref_policy;

/* The policy named `name` (arc, lirs, s3fifo, sieve, wtinylfu,
 * wtinylfu-1pct); -1 if none. */
int ref_policy_parse(const char *name, ref_policy *out);
const char *ref_policy_name(ref_policy p);

/* Replays the trace (keys[i], and its dense id ids[i]) through policy p.
 * SCBF_OK, SCBF_E_NOMEM, SCBF_E_INVALID_ARG (also: LIRS with a capacity
 * below 2, which cannot hold a LIR and a HIR entry). */
int ref_replay(ref_policy p, const uint64_t *keys, const uint32_t *ids, size_t n, size_t distinct,
               uint64_t capacity, uint64_t *hits);

int ref_arc(const uint32_t *ids, size_t n, size_t distinct, uint64_t capacity, uint64_t *hits);
int ref_sieve(const uint32_t *ids, size_t n, size_t distinct, uint64_t capacity, uint64_t *hits);
#endif
