/* libFuzzer target: arbitrary bytes into the routing-bitmap decoder and, as a
 * delta, into scbf_member_apply on a fixed bitmap. A decoded bitmap must
 * re-encode to the same bytes; a refused delta must leave the bitmap's bytes
 * unchanged; an applied one must leave a bitmap that decodes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/membership.h"
#include "scbf/sscbf.h"

static scbf_member_t *base_bitmap(void) {
    sscbf_config_t c;
    sscbf_config_default(&c, 64, 0.01);
    sscbf_t *s;
    if (sscbf_create(&c, &s) != SCBF_OK) abort();
    for (uint32_t i = 0; i < 100; i++) sscbf_add(s, &i, sizeof i);
    size_t len;
    sscbf_member_write(s, NULL, 0, &len);
    uint8_t *buf = malloc(len);
    scbf_member_t *m;
    if (!buf || sscbf_member_write(s, buf, len, &len) != SCBF_OK ||
        scbf_member_read(buf, len, &m) != SCBF_OK)
        abort();
    free(buf);
    sscbf_free(s);
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    scbf_member_t *m = NULL;
    if (scbf_member_read(data, size, &m) == SCBF_OK) {
        size_t len;
        const uint8_t *bytes = scbf_member_bytes(m, &len);
        if (len != size || memcmp(bytes, data, size) != 0) abort();
        scbf_member_contains(m, "k", 1);
        scbf_member_free(m);
    }
    m = base_bitmap();
    size_t len;
    const uint8_t *bytes = scbf_member_bytes(m, &len);
    uint8_t *before = malloc(len);
    if (!before) abort();
    memcpy(before, bytes, len);
    if (scbf_member_apply(m, data, size) != SCBF_OK) {
        bytes = scbf_member_bytes(m, &len);
        if (memcmp(bytes, before, len) != 0) abort();
    } else {
        scbf_member_t *again;
        bytes = scbf_member_bytes(m, &len);
        if (scbf_member_read(bytes, len, &again) != SCBF_OK) abort();
        scbf_member_free(again);
    }
    free(before);
    scbf_member_free(m);
    return 0;
}
