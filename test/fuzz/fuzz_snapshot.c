/* libFuzzer target: arbitrary bytes into both snapshot decoders. Whatever
 * decodes must re-encode to the very same bytes (the format has exactly one
 * encoding per filter state) and answer queries without crashing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "scbf/scbf.h"
#include "scbf/sscbf.h"

static void check_roundtrip(const uint8_t *data, size_t size, size_t len, const uint8_t *out) {
    if (len != size || memcmp(out, data, size) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    scbf_t *f = NULL;
    if (scbf_snapshot_read(data, size, &f) == SCBF_OK) {
        size_t len = scbf_snapshot_size(f), w;
        uint8_t *out = malloc(len);
        if (!out || scbf_snapshot_write(f, out, len, &w) != SCBF_OK) abort();
        check_roundtrip(data, size, w, out);
        scbf_add(f, "k", 1);
        if (scbf_contains(f, "k", 1) != 1) abort();
        free(out);
        scbf_free(f);
    }
    sscbf_t *s = NULL;
    if (sscbf_snapshot_read(data, size, &s) == SCBF_OK) {
        size_t len = sscbf_snapshot_size(s), w;
        uint8_t *out = malloc(len);
        if (!out || sscbf_snapshot_write(s, out, len, &w) != SCBF_OK) abort();
        check_roundtrip(data, size, w, out);
        sscbf_add(s, "k", 1);
        if (sscbf_contains(s, "k", 1) != 1) abort();
        free(out);
        sscbf_free(s);
    }
    return 0;
}
