/*
 * membership.h - the routing form of a scalable SCBF: one bit per counter
 * (counter > 0 -> 1), so a quarter of the 4-bit counting filter's memory, and
 * deltas between two such bitmaps so a publisher sends what changed rather
 * than the whole filter.
 *
 * Routing only asks "may this bucket hold the key?", which the bitmap
 * answers exactly as its counting filter does: a key tests positive in the
 * bitmap iff it tests positive in the counting filter. Deletes still happen
 * only in the counting filter (a bit cannot be decremented); the owner derives
 * a new bitmap after changes and publishes the difference.
 *
 * A delta names the checksum of the bitmap it applies to and of the bitmap it
 * produces, so a delta applied to anything but its base (lost, duplicated or
 * reordered messages) is refused and the bitmap is left unchanged; the
 * receiver then asks for a full bitmap.
 *
 * Byte layouts: docs/snapshot-format.md ("SMBR", "SMBD").
 *
 * Thread safety: contains / write / delta / stats may run concurrently with
 * each other; scbf_member_apply and scbf_member_free must not race with
 * anything on the same bitmap (the owner locks).
 */
#ifndef SCBF_MEMBERSHIP_H
#define SCBF_MEMBERSHIP_H

#include <stddef.h>
#include <stdint.h>
#include "scbf_error.h"
#include "sscbf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scbf_member scbf_member_t;

/* Derives the bitmap of s now. Writes its encoding into buf (cap bytes);
 * *written gets the size needed, also on SCBF_E_BUFFER_TOO_SMALL (the filter
 * may grow between a sizing call and the write: retry with *written). */
int sscbf_member_write(const sscbf_t *s, uint8_t *buf, size_t cap, size_t *written);

/* The bitmap of s now, as a new bitmap (sscbf_member_write, sized again if
 * the filter grows meanwhile). */
int sscbf_member_of(const sscbf_t *s, scbf_member_t **out);

/* Decodes a bitmap; allocates only after every length and the checksum
 * check out. */
int scbf_member_read(const uint8_t *buf, size_t len, scbf_member_t **out);
void scbf_member_free(scbf_member_t *m); /* NULL is a no-op */

/* 1 if the key may be present, 0 if surely absent. */
int scbf_member_contains(const scbf_member_t *m, const void *key, size_t len);

/* The bitmap's encoding (owned by m, valid until the next apply or free). */
const uint8_t *scbf_member_bytes(const scbf_member_t *m, size_t *len);

/* The delta from `from` to `to`: SCBF_E_PARAM_MISMATCH if their shapes
 * differ (the filter grew or was compacted: send `to` in full). Sizes as
 * sscbf_member_write (buf NULL and cap 0 asks for the size). */
int scbf_member_delta(const scbf_member_t *from, const scbf_member_t *to, uint8_t *buf, size_t cap,
                      size_t *written);

/* Applies a delta in place. SCBF_E_PARAM_MISMATCH if m is not the delta's
 * base; a decoding error if the delta is malformed or does not produce the
 * bitmap it names. m is unchanged on any error. */
int scbf_member_apply(scbf_member_t *m, const uint8_t *delta, size_t len);

typedef struct {
    uint32_t filters;     /* sub-filters */
    uint64_t bits;        /* k*m summed over sub-filters */
    uint64_t set_bits;    /* bits at 1 */
    uint64_t bytes;       /* encoding size (what a holder keeps) */
    double estimated_fpr; /* 1 - prod(1 - prod(slice fills)) */
} scbf_member_stats_t;

int scbf_member_stats(const scbf_member_t *m, scbf_member_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_MEMBERSHIP_H */
