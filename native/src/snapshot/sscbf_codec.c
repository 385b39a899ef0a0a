/*
 * sscbf_codec.c - scalable SCBF snapshot codec (layout: docs/snapshot-format.md):
 * a header, then each sub-filter's SCBF snapshot with its length, then a
 * checksum of everything before it. The decoder checks every length, the total
 * and the checksum before it allocates or decodes anything.
 */
#include <string.h>
#include "hash.h"
#include "le_bytes.h"
#include "scbf_internal.h"
#include "snapshot_format.h"
#include "sscbf_internal.h"

size_t sscbf_snapshot_size(const sscbf_t *s) {
    if (!s) return 0;
    size_t size = SSCBF_SNAP_HEADER + SNAP_CHECKSUM_BYTES;
    sscbf_rdlock(s);
    for (uint32_t i = 0; i < s->n; i++) size += 8 + scbf_snapshot_size(s->filters[i]);
    sscbf_unlock(s);
    return size;
}

int sscbf_snapshot_write(const sscbf_t *s, uint8_t *buf, size_t cap, size_t *written) {
    if (!s || !written || (!buf && cap)) return SCBF_E_INVALID_ARG;
    sscbf_rdlock(s);
    size_t need = SSCBF_SNAP_HEADER + SNAP_CHECKSUM_BYTES;
    for (uint32_t i = 0; i < s->n; i++) need += 8 + scbf_snapshot_size(s->filters[i]);
    *written = need;
    if (cap < need) {
        /* The list may have grown since sscbf_snapshot_size: *written says
         * how much to allocate for the retry. */
        sscbf_unlock(s);
        return SCBF_E_BUFFER_TOO_SMALL;
    }
    memcpy(buf, SSCBF_SNAP_MAGIC, 4);
    put_u16le(buf + 4, SNAP_VERSION);
    put_u16le(buf + 6, 0);
    put_u64le(buf + 8, s->c.initial_capacity);
    put_f64le(buf + 16, s->c.fpr);
    put_f64le(buf + 24, s->c.tightening);
    put_u32le(buf + 32, s->c.growth);
    put_u32le(buf + 36, s->c.counter_bits);
    put_u32le(buf + 40, s->c.max_filters);
    put_u32le(buf + 44, s->n);
    put_u64le(buf + 48, s->c.residue_threshold);
    put_u64le(buf + 56, s->c.seed);
    put_u64le(buf + 64, atomic_load_explicit(&s->residue, memory_order_relaxed));
    put_u64le(buf + 72, atomic_load_explicit(&s->adds, memory_order_relaxed));
    put_u64le(buf + 80, atomic_load_explicit(&s->removes, memory_order_relaxed));
    size_t off = SSCBF_SNAP_HEADER;
    for (uint32_t i = 0; i < s->n; i++) {
        size_t w;
        scbf_snapshot_write(s->filters[i], buf + off + 8, need - off - 8, &w);
        put_u64le(buf + off, w);
        off += 8 + w;
    }
    sscbf_unlock(s);
    put_u64le(buf + off, scbf_checksum(buf, off));
    return SCBF_OK;
}

int sscbf_snapshot_read(const uint8_t *buf, size_t len, sscbf_t **out) {
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return SCBF_E_INVALID_ARG;
    if (len < 4) return SCBF_E_TRUNCATED;
    if (memcmp(buf, SSCBF_SNAP_MAGIC, 4)) return SCBF_E_BAD_MAGIC;
    if (len < 6) return SCBF_E_TRUNCATED;
    if (get_u16le(buf + 4) != SNAP_VERSION) return SCBF_E_BAD_VERSION;
    if (len < SSCBF_SNAP_HEADER) return SCBF_E_TRUNCATED;
    if (get_u16le(buf + 6) != 0) return SCBF_E_CORRUPT;
    sscbf_config_t c;
    memset(&c, 0, sizeof c);
    c.initial_capacity = get_u64le(buf + 8);
    c.fpr = get_f64le(buf + 16);
    c.tightening = get_f64le(buf + 24);
    c.growth = get_u32le(buf + 32);
    c.counter_bits = get_u32le(buf + 36);
    c.max_filters = get_u32le(buf + 40);
    uint32_t n = get_u32le(buf + 44);
    c.residue_threshold = get_u64le(buf + 48);
    c.seed = get_u64le(buf + 56);
    if (sscbf_config_check(&c) || n < 1 || n > c.max_filters) return SCBF_E_CORRUPT;

    /* Walk the sub-filter lengths first: the total must be exact and the
     * checksum right before anything is decoded or allocated. */
    size_t off = SSCBF_SNAP_HEADER;
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < 8) return SCBF_E_TRUNCATED;
        uint64_t sub = get_u64le(buf + off);
        off += 8;
        if (sub > len - off) return SCBF_E_TRUNCATED;
        off += (size_t)sub;
    }
    if (len - off < SNAP_CHECKSUM_BYTES) return SCBF_E_TRUNCATED;
    if (len - off > SNAP_CHECKSUM_BYTES) return SCBF_E_CORRUPT;
    if (get_u64le(buf + off) != scbf_checksum(buf, off)) return SCBF_E_CHECKSUM;

    sscbf_t *s;
    int rc = sscbf_alloc(&c, &s);
    if (rc) return rc;
    off = SSCBF_SNAP_HEADER;
    for (uint32_t i = 0; i < n && !rc; i++) {
        size_t sub = (size_t)get_u64le(buf + off);
        rc = scbf_snapshot_read(buf + off + 8, sub, &s->filters[i]);
        if (!rc) {
            s->n = i + 1;
            const scbf_params_t *p = scbf_params(s->filters[i]);
            if (p->counter_bits != c.counter_bits || p->seed != c.seed) rc = SCBF_E_CORRUPT;
        }
        off += 8 + sub;
    }
    if (rc) {
        sscbf_free(s);
        return rc;
    }
    atomic_store(&s->residue, get_u64le(buf + 64));
    atomic_store(&s->adds, get_u64le(buf + 72));
    atomic_store(&s->removes, get_u64le(buf + 80));
    *out = s;
    return SCBF_OK;
}
