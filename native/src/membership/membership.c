/*
 * membership.c - routing bitmaps of scalable SCBFs and the deltas between
 * them (contract in scbf/membership.h, bytes in docs/snapshot-format.md).
 *
 * A bitmap keeps its own encoding as its only state: queries read the words
 * in place, a delta flips bits in place and re-checks the encoding's checksum,
 * and serializing is a copy. So the bitmap a holder keeps is, byte for byte,
 * the one its publisher derived.
 */
#include <stdlib.h>
#include <string.h>
#include "hash.h"
#include "le_bytes.h"
#include "probe.h"
#include "scbf/membership.h"
#include "scbf_internal.h"
#include "sscbf_internal.h"
#include "membership_internal.h"

#define MEMBER_MAGIC     "SMBR"
#define DELTA_MAGIC      "SMBD"
#define FORMAT_VERSION   1u
#define MEMBER_HEADER    16u /* magic, version, flags, sub-filters, reserved */
#define SUB_HEADER       32u /* k, reserved, m, seed, words */
#define DELTA_HEADER     32u /* magic, version, flags, base and result checksums, count */
#define CHECKSUM_BYTES   8u
#define VARINT_MAX_BYTES 10u

static uint64_t words_per_slice(uint64_t m) { return (m + 63) / 64; }

/* ---------- deriving from a counting filter ---------- */

static size_t member_size_locked(const sscbf_t *s) {
    size_t size = MEMBER_HEADER + CHECKSUM_BYTES;
    for (uint32_t i = 0; i < s->n; i++) {
        const scbf_params_t *p = scbf_params(s->filters[i]);
        size += SUB_HEADER + 8 * (size_t)(p->k * words_per_slice(p->m));
    }
    return size;
}

/* Bit j of slice i is set iff counter j of slice i is non-zero. */
static uint8_t *write_sub_bits(const scbf_t *f, uint8_t *out) {
    const scbf_params_t *p = scbf_params(f);
    const uint32_t bits = p->counter_bits, cpw = 64 / bits;
    const uint64_t cwps = (p->m + cpw - 1) / cpw, bwps = words_per_slice(p->m);
    const uint64_t cmask = (UINT64_C(1) << bits) - 1;
    for (uint32_t i = 0; i < p->k; i++) {
        uint8_t *slice = out + 8 * (size_t)(i * bwps);
        memset(slice, 0, 8 * (size_t)bwps);
        for (uint64_t cw = 0; cw < cwps; cw++) {
            uint64_t w = scbf_load_word(f, i * cwps + cw);
            if (!w) continue;
            for (uint32_t c = 0; c < cpw; c++) {
                if (!((w >> (c * bits)) & cmask)) continue;
                uint64_t j = cw * cpw + c; /* padding counters are zero, so j < m */
                uint8_t *word = slice + 8 * (size_t)(j / 64);
                put_u64le(word, get_u64le(word) | (UINT64_C(1) << (j % 64)));
            }
        }
    }
    return out + 8 * (size_t)(p->k * bwps);
}

int sscbf_member_write(const sscbf_t *s, uint8_t *buf, size_t cap, size_t *written) {
    if (!s || !written || (!buf && cap)) return SCBF_E_INVALID_ARG;
    sscbf_rdlock(s);
    size_t need = member_size_locked(s);
    *written = need;
    if (cap < need) {
        sscbf_unlock(s);
        return SCBF_E_BUFFER_TOO_SMALL;
    }
    memcpy(buf, MEMBER_MAGIC, 4);
    put_u16le(buf + 4, FORMAT_VERSION);
    put_u16le(buf + 6, 0);
    put_u32le(buf + 8, s->n);
    put_u32le(buf + 12, 0);
    uint8_t *p = buf + MEMBER_HEADER;
    for (uint32_t i = 0; i < s->n; i++) {
        const scbf_params_t *fp = scbf_params(s->filters[i]);
        put_u32le(p, fp->k);
        put_u32le(p + 4, 0);
        put_u64le(p + 8, fp->m);
        put_u64le(p + 16, fp->seed);
        put_u64le(p + 24, fp->k * words_per_slice(fp->m));
        p = write_sub_bits(s->filters[i], p + SUB_HEADER);
    }
    sscbf_unlock(s);
    put_u64le(p, scbf_checksum(buf, (size_t)(p - buf)));
    return SCBF_OK;
}

/* ---------- decoding ---------- */

/* Padding bits (j >= m in a slice's last word) must be zero. */
static int padding_clear(const uint8_t *words, const member_sub_t *sb) {
    if (sb->m % 64 == 0) return 1;
    uint64_t keep = (UINT64_C(1) << (sb->m % 64)) - 1;
    for (uint32_t i = 0; i < sb->k; i++) {
        uint64_t last = get_u64le(words + 8 * (size_t)((i + 1) * sb->wps - 1));
        if (last & ~keep) return 0;
    }
    return 1;
}

/* Walks and checks the layout into out (its buf not set yet). */
static int parse_layout(const uint8_t *buf, size_t len, scbf_member_t *out) {
    if (len < 4) return SCBF_E_TRUNCATED;
    if (memcmp(buf, MEMBER_MAGIC, 4)) return SCBF_E_BAD_MAGIC;
    if (len < 6) return SCBF_E_TRUNCATED;
    if (get_u16le(buf + 4) != FORMAT_VERSION) return SCBF_E_BAD_VERSION;
    if (len < MEMBER_HEADER) return SCBF_E_TRUNCATED;
    uint32_t n = get_u32le(buf + 8);
    if (get_u16le(buf + 6) != 0 || get_u32le(buf + 12) != 0) return SCBF_E_CORRUPT;
    if (n < 1 || n > SSCBF_MAX_FILTERS) return SCBF_E_CORRUPT;
    size_t off = MEMBER_HEADER;
    uint64_t words = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < SUB_HEADER) return SCBF_E_TRUNCATED;
        member_sub_t *sb = &out->sub[i];
        sb->k = get_u32le(buf + off);
        sb->m = get_u64le(buf + off + 8);
        sb->seed = get_u64le(buf + off + 16);
        uint64_t w = get_u64le(buf + off + 24);
        if (sb->k < 1 || sb->k > SCBF_MAX_K || get_u32le(buf + off + 4) != 0) return SCBF_E_CORRUPT;
        if (sb->m < 1 || sb->m > SCBF_MAX_POSITIONS / sb->k) return SCBF_E_CORRUPT;
        sb->wps = words_per_slice(sb->m);
        if (w != sb->k * sb->wps) return SCBF_E_CORRUPT;
        off += SUB_HEADER;
        if ((len - off) / 8 < w) return SCBF_E_TRUNCATED;
        sb->off = off;
        sb->first = words;
        words += w;
        off += 8 * (size_t)w;
    }
    if (len - off < CHECKSUM_BYTES) return SCBF_E_TRUNCATED;
    if (len - off > CHECKSUM_BYTES) return SCBF_E_CORRUPT;
    if (get_u64le(buf + off) != scbf_checksum(buf, off)) return SCBF_E_CHECKSUM;
    for (uint32_t i = 0; i < n; i++)
        if (!padding_clear(buf + out->sub[i].off, &out->sub[i])) return SCBF_E_CORRUPT;
    out->n = n;
    out->words = words;
    return SCBF_OK;
}

/* Wraps an encoding that parse_layout accepted; takes ownership of buf. */
static int adopt(uint8_t *buf, size_t len, const scbf_member_t *layout, scbf_member_t **out) {
    scbf_member_t *m = malloc(sizeof *m);
    if (!m) {
        free(buf);
        return SCBF_E_NOMEM;
    }
    *m = *layout;
    m->buf = buf;
    m->len = len;
    *out = m;
    return SCBF_OK;
}

int scbf_member_read(const uint8_t *buf, size_t len, scbf_member_t **out) {
    if (!out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    if (!buf && len) return SCBF_E_INVALID_ARG;
    scbf_member_t layout;
    int rc = parse_layout(buf, len, &layout);
    if (rc != SCBF_OK) return rc;
    uint8_t *copy = malloc(len);
    if (!copy) return SCBF_E_NOMEM;
    memcpy(copy, buf, len);
    return adopt(copy, len, &layout, out);
}

int sscbf_member_of(const sscbf_t *s, scbf_member_t **out) {
    if (!s || !out) return SCBF_E_INVALID_ARG;
    *out = NULL;
    size_t need = 0;
    int rc = sscbf_member_write(s, NULL, 0, &need);
    /* The filter may grow between sizing and writing: then size again. */
    while (rc == SCBF_E_BUFFER_TOO_SMALL) {
        uint8_t *buf = malloc(need);
        if (!buf) return SCBF_E_NOMEM;
        size_t cap = need;
        rc = sscbf_member_write(s, buf, cap, &need);
        if (rc == SCBF_OK) {
            scbf_member_t layout;
            rc = parse_layout(buf, need, &layout);
            if (rc == SCBF_OK) return adopt(buf, need, &layout, out);
        }
        free(buf);
    }
    return rc;
}

void scbf_member_free(scbf_member_t *m) {
    if (!m) return;
    free(m->buf);
    free(m);
}

const uint8_t *scbf_member_bytes(const scbf_member_t *m, size_t *len) {
    if (!m || !len) return NULL;
    *len = m->len;
    return m->buf;
}

/* ---------- queries ---------- */

static int sub_contains(const scbf_member_t *mb, const member_sub_t *sb, uint64_t h1, uint64_t h2) {
    probe_t p = probe_start(h1, h2, sb->m);
    const uint8_t *words = mb->buf + sb->off;
    for (uint32_t i = 0; i < sb->k; i++) {
        uint64_t w = get_u64le(words + 8 * (size_t)(i * sb->wps + p.pos / 64));
        if (!((w >> (p.pos % 64)) & 1)) return 0;
        probe_next(&p, sb->m);
    }
    return 1;
}

int scbf_member_contains(const scbf_member_t *m, const void *key, size_t len) {
    if (!m || (!key && len)) return SCBF_E_INVALID_ARG;
    uint64_t h1 = 0, h2 = 0, seed = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        const member_sub_t *sb = &m->sub[i];
        if (i == 0 || sb->seed != seed) { /* sub-filters of one filter share a seed */
            seed = sb->seed;
            scbf_hash_pair(key, len, seed, &h1, &h2);
        }
        if (sub_contains(m, sb, h1, h2)) return 1;
    }
    return 0;
}

int scbf_member_stats(const scbf_member_t *m, scbf_member_stats_t *out) {
    if (!m || !out) return SCBF_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->filters = m->n;
    out->bytes = m->len;
    double none = 1.0;
    for (uint32_t i = 0; i < m->n; i++) {
        const member_sub_t *sb = &m->sub[i];
        double rate = 1.0;
        for (uint32_t s = 0; s < sb->k; s++) {
            uint64_t set = 0;
            for (uint64_t w = 0; w < sb->wps; w++)
                set += (uint64_t)__builtin_popcountll(
                    get_u64le(m->buf + sb->off + 8 * (size_t)(s * sb->wps + w)));
            out->set_bits += set;
            rate *= (double)set / (double)sb->m;
        }
        out->bits += sb->k * sb->m;
        none *= 1.0 - rate;
    }
    out->estimated_fpr = 1.0 - none;
    return SCBF_OK;
}

/* ---------- deltas ---------- */

static size_t varint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a varint from [*p, end); 0 if it runs past end or past 64 bits. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return 0;
        uint8_t b = *(*p)++;
        if (shift == 63 && b > 1) return 0;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return 0;
}

static int same_shape(const scbf_member_t *a, const scbf_member_t *b) {
    if (a->n != b->n) return 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const member_sub_t *x = &a->sub[i], *y = &b->sub[i];
        if (x->k != y->k || x->m != y->m || x->seed != y->seed) return 0;
    }
    return 1;
}

/* Word g (over all sub-filters) of m's encoding; *sub is a cursor that only
 * moves forward, as positions are visited in increasing order. */
static uint8_t *word_at(const scbf_member_t *m, uint32_t *sub, uint64_t g) {
    while (g >= m->sub[*sub].first + m->sub[*sub].k * m->sub[*sub].wps) (*sub)++;
    return m->buf + m->sub[*sub].off + 8 * (size_t)(g - m->sub[*sub].first);
}

/* Walks the bits where two same-shaped bitmaps differ, in increasing order. */
typedef struct {
    const scbf_member_t *a, *b;
    uint32_t sub_a, sub_b;
    uint64_t g, x; /* current word index and its bits still to visit */
} flip_iter_t;

static flip_iter_t flips(const scbf_member_t *a, const scbf_member_t *b) {
    flip_iter_t it = {a, b, 0, 0, 0, 0};
    if (a->words) it.x = get_u64le(word_at(a, &it.sub_a, 0)) ^ get_u64le(word_at(b, &it.sub_b, 0));
    return it;
}

static int next_flip(flip_iter_t *it, uint64_t *pos) {
    while (!it->x) {
        if (++it->g >= it->a->words) return 0;
        it->x = get_u64le(word_at(it->a, &it->sub_a, it->g)) ^
                get_u64le(word_at(it->b, &it->sub_b, it->g));
    }
    *pos = it->g * 64 + (uint64_t)__builtin_ctzll(it->x);
    it->x &= it->x - 1;
    return 1;
}

int scbf_member_delta(const scbf_member_t *from, const scbf_member_t *to, uint8_t *buf, size_t cap,
                      size_t *written) {
    if (!from || !to || !written || (!buf && cap)) return SCBF_E_INVALID_ARG;
    if (!same_shape(from, to)) return SCBF_E_PARAM_MISMATCH;
    /* One pass sizes and writes: a bitmap changed meanwhile (a caller breaking the
     * no-apply-during-delta contract) can then make the size wrong, never the write
     * go past cap or the count disagree with the positions written. */
    uint64_t count = 0, prev = 0, pos;
    size_t need = DELTA_HEADER;
    for (flip_iter_t it = flips(from, to); next_flip(&it, &pos); prev = pos, count++) {
        uint64_t gap = count ? pos - prev - 1 : pos;
        size_t n = varint_size(gap);
        if (need + n + CHECKSUM_BYTES <= cap) put_varint(buf + need, gap);
        need += n;
    }
    need += CHECKSUM_BYTES;
    *written = need;
    if (cap < need) return SCBF_E_BUFFER_TOO_SMALL;
    memcpy(buf, DELTA_MAGIC, 4);
    put_u16le(buf + 4, FORMAT_VERSION);
    put_u16le(buf + 6, 0);
    put_u64le(buf + 8, get_u64le(from->buf + from->len - CHECKSUM_BYTES));
    put_u64le(buf + 16, get_u64le(to->buf + to->len - CHECKSUM_BYTES));
    put_u64le(buf + 24, count);
    put_u64le(buf + need - CHECKSUM_BYTES, scbf_checksum(buf, need - CHECKSUM_BYTES));
    return SCBF_OK;
}

/* Flips the bits the delta names; the delta was validated by delta_check. */
static void flip_all(scbf_member_t *m, const uint8_t *delta, size_t len) {
    const uint8_t *p = delta + DELTA_HEADER, *end = delta + len - CHECKSUM_BYTES;
    uint64_t count = get_u64le(delta + 24), pos = 0, gap = 0;
    uint32_t sub = 0;
    for (uint64_t i = 0; i < count; i++) {
        get_varint(&p, end, &gap);
        pos = i ? pos + gap + 1 : gap;
        uint8_t *word = word_at(m, &sub, pos / 64);
        put_u64le(word, get_u64le(word) ^ (UINT64_C(1) << (pos % 64)));
    }
}

/* Checks the delta's framing and that every position is a real bit of m. */
static int delta_check(const scbf_member_t *m, const uint8_t *delta, size_t len) {
    if (len < 4) return SCBF_E_TRUNCATED;
    if (memcmp(delta, DELTA_MAGIC, 4)) return SCBF_E_BAD_MAGIC;
    if (len < 6) return SCBF_E_TRUNCATED;
    if (get_u16le(delta + 4) != FORMAT_VERSION) return SCBF_E_BAD_VERSION;
    if (len < DELTA_HEADER + CHECKSUM_BYTES) return SCBF_E_TRUNCATED;
    if (get_u16le(delta + 6) != 0) return SCBF_E_CORRUPT;
    size_t body = len - CHECKSUM_BYTES;
    if (get_u64le(delta + body) != scbf_checksum(delta, body)) return SCBF_E_CHECKSUM;
    uint64_t count = get_u64le(delta + 24);
    if (count > (body - DELTA_HEADER)) return SCBF_E_CORRUPT; /* >= 1 byte per position */
    const uint8_t *p = delta + DELTA_HEADER, *end = delta + body;
    uint64_t pos = 0, gap;
    uint32_t sub = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (!get_varint(&p, end, &gap)) return SCBF_E_CORRUPT;
        if (i && gap >= UINT64_MAX - pos) return SCBF_E_CORRUPT;
        pos = i ? pos + gap + 1 : gap;
        if (pos / 64 >= m->words) return SCBF_E_CORRUPT;
        word_at(m, &sub, pos / 64);
        const member_sub_t *sb = &m->sub[sub];
        if (((pos / 64 - sb->first) % sb->wps) * 64 + pos % 64 >= sb->m) return SCBF_E_CORRUPT;
    }
    return p == end ? SCBF_OK : SCBF_E_CORRUPT;
}

int scbf_member_apply(scbf_member_t *m, const uint8_t *delta, size_t len) {
    if (!m || (!delta && len)) return SCBF_E_INVALID_ARG;
    int rc = delta_check(m, delta, len);
    if (rc != SCBF_OK) return rc;
    size_t body = m->len - CHECKSUM_BYTES;
    if (get_u64le(delta + 8) != get_u64le(m->buf + body)) return SCBF_E_PARAM_MISMATCH;
    flip_all(m, delta, len);
    uint64_t sum = scbf_checksum(m->buf, body);
    if (sum != get_u64le(delta + 16)) {
        flip_all(m, delta, len); /* undo: XOR twice is the identity */
        return SCBF_E_CORRUPT;
    }
    put_u64le(m->buf + body, sum);
    return SCBF_OK;
}
