/* Internal: little-endian field access, independent of the host's byte
 * order, for the snapshot codecs. */
#ifndef SCBF_LE_BYTES_H
#define SCBF_LE_BYTES_H
#include <stdint.h>
#include <string.h>

static inline void put_u16le(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void put_u32le(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_u64le(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_f64le(uint8_t *p, double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put_u64le(p, v);
}
static inline uint16_t get_u16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t get_u32le(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint64_t get_u64le(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline double get_f64le(const uint8_t *p) {
    uint64_t v = get_u64le(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}
#endif
