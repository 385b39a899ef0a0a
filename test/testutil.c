#include "testutil.h"
#include <stdlib.h>

uint64_t tu_scaled(uint64_t ops, uint64_t floor_ops) {
    const char *s = getenv("SCBF_TEST_SCALE");
    double scale = s ? strtod(s, NULL) : 1.0;
    if (!(scale > 0)) scale = 1.0;
    uint64_t n = (uint64_t)((double)ops * scale);
    return n < floor_ops ? floor_ops : n;
}

void tu_key64(uint64_t v, uint8_t out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

int tu_run(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
