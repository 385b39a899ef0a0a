/* Internal: the layout of a decoded routing bitmap (scbf/membership.h), for
 * the modules that read its words in place (routeset.c). */
#ifndef SCBF_MEMBERSHIP_INTERNAL_H
#define SCBF_MEMBERSHIP_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "le_bytes.h"
#include "scbf/membership.h"
#include "sscbf_internal.h"

typedef struct {
    uint32_t k;
    uint64_t m, seed;
    uint64_t wps;   /* bitmap words per slice: ceil(m / 64) */
    size_t off;     /* byte offset of the sub-filter's first word in buf */
    uint64_t first; /* index of that word among all the bitmap's words */
} member_sub_t;

struct scbf_member {
    uint8_t *buf;
    size_t len;
    uint32_t n;
    uint64_t words; /* over all sub-filters */
    member_sub_t sub[SSCBF_MAX_FILTERS];
};

/* The sub-filter's slice s, word w (little-endian in the encoding). */
static inline uint64_t member_word(const scbf_member_t *mb, const member_sub_t *sb, uint64_t s,
                                   uint64_t w) {
    return get_u64le(mb->buf + sb->off + 8 * (size_t)(s * sb->wps + w));
}

/* The encoding's checksum: identifies a bitmap's content. */
static inline uint64_t member_checksum(const scbf_member_t *mb) {
    return get_u64le(mb->buf + mb->len - 8);
}
#endif
