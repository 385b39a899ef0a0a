/*
 * scbf_codec.c - SCBF snapshot codec (layout: docs/snapshot-format.md).
 *
 * Decoding checks, in order: length against each field before reading it,
 * magic, version, header sanity (so the implied total size cannot overflow
 * or be absurd), total length, checksum, then the counters' padding. Memory
 * is allocated only after the input is known to hold every counter, so a
 * hostile header cannot make the decoder allocate more than the input size.
 */
#include "hash.h"
#include "le_bytes.h"
#include "scbf_internal.h"
#include "snapshot_format.h"

size_t scbf_snapshot_size(const scbf_t *f) {
    if (!f) return 0;
    return SCBF_SNAP_HEADER + (size_t)scbf_word_count(f) * 8 + SNAP_CHECKSUM_BYTES;
}

int scbf_snapshot_write(const scbf_t *f, uint8_t *buf, size_t cap, size_t *written) {
    if (!f || !written || (!buf && cap)) return SCBF_E_INVALID_ARG;
    size_t need = scbf_snapshot_size(f);
    *written = need;
    if (cap < need) return SCBF_E_BUFFER_TOO_SMALL;
    const scbf_params_t *p = scbf_params(f);
    memcpy(buf, SCBF_SNAP_MAGIC, 4);
    put_u16le(buf + 4, SNAP_VERSION);
    put_u16le(buf + 6, 0);
    put_u32le(buf + 8, p->k);
    put_u32le(buf + 12, p->counter_bits);
    put_u64le(buf + 16, p->m);
    put_u64le(buf + 24, p->capacity);
    put_f64le(buf + 32, p->fpr);
    put_u64le(buf + 40, p->seed);
    uint64_t nw = scbf_word_count(f);
    put_u64le(buf + 48, nw);
    uint8_t *w = buf + SCBF_SNAP_HEADER;
    for (uint64_t i = 0; i < nw; i++, w += 8) put_u64le(w, scbf_load_word(f, i));
    /* Checksum what was written: each word was read once, so the snapshot is
     * self-consistent even while other threads keep updating the filter. */
    put_u64le(w, scbf_checksum(buf, (size_t)(w - buf)));
    return SCBF_OK;
}

int scbf_snapshot_read(const uint8_t *buf, size_t len, scbf_t **out) {
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return SCBF_E_INVALID_ARG;
    if (len < 4) return SCBF_E_TRUNCATED;
    if (memcmp(buf, SCBF_SNAP_MAGIC, 4)) return SCBF_E_BAD_MAGIC;
    if (len < 6) return SCBF_E_TRUNCATED;
    if (get_u16le(buf + 4) != SNAP_VERSION) return SCBF_E_BAD_VERSION;
    if (len < SCBF_SNAP_HEADER) return SCBF_E_TRUNCATED;
    if (get_u16le(buf + 6) != 0) return SCBF_E_CORRUPT;

    scbf_params_t p;
    memset(&p, 0, sizeof p);
    p.k = get_u32le(buf + 8);
    p.counter_bits = get_u32le(buf + 12);
    p.m = get_u64le(buf + 16);
    p.capacity = get_u64le(buf + 24);
    p.fpr = get_f64le(buf + 32);
    p.seed = get_u64le(buf + 40);
    /* Check k and m separately first so k*m cannot overflow. */
    if (p.k < 1 || p.k > SCBF_MAX_K || p.m < 1 || p.m > SCBF_MAX_POSITIONS) return SCBF_E_CORRUPT;
    p.positions = (uint64_t)p.k * p.m;
    if (scbf_params_check(&p)) return SCBF_E_CORRUPT;
    uint64_t cpw = 64 / p.counter_bits;
    uint64_t wps = (p.m + cpw - 1) / cpw;
    uint64_t nw = get_u64le(buf + 48);
    if (nw != wps * p.k) return SCBF_E_CORRUPT;
    /* nw <= 2^36 here, so the total fits in 64 bits. */
    uint64_t total = SCBF_SNAP_HEADER + nw * 8 + SNAP_CHECKSUM_BYTES;
    if (len < total) return SCBF_E_TRUNCATED;
    if (len > total) return SCBF_E_CORRUPT;
    size_t body = (size_t)(total - SNAP_CHECKSUM_BYTES);
    if (get_u64le(buf + body) != scbf_checksum(buf, body)) return SCBF_E_CHECKSUM;

    /* Counters past m in a slice's last word are padding and must be zero. */
    uint64_t used = p.m - (wps - 1) * cpw;
    uint64_t pad_mask = used == cpw ? 0 : ~UINT64_C(0) << (used * p.counter_bits);
    for (uint64_t s = 0; s < p.k; s++)
        if (get_u64le(buf + SCBF_SNAP_HEADER + ((s + 1) * wps - 1) * 8) & pad_mask)
            return SCBF_E_CORRUPT;

    scbf_t *f;
    int rc = scbf_create(&p, &f);
    if (rc) return rc;
    for (uint64_t i = 0; i < nw; i++)
        scbf_store_word(f, i, get_u64le(buf + SCBF_SNAP_HEADER + i * 8));
    scbf_recount(f);
    *out = f;
    return SCBF_OK;
}
