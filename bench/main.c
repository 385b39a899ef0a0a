#include <stdio.h>
#include <string.h>
#include "bench.h"

int main(int argc, char **argv) {
    const char *suite = argc > 1 ? argv[1] : "all";
    if (!strcmp(suite, "filters")) return bench_filters(argc - 1, argv + 1);
    if (!strcmp(suite, "cache")) return bench_cache(argc - 1, argv + 1);
    if (!strcmp(suite, "all")) {
        int rc = bench_filters(argc - 1, argv + 1);
        return rc ? rc : bench_cache(argc - 1, argv + 1);
    }
    fprintf(stderr, "usage: scbf-bench [filters|cache|all] [--quick]\n");
    return 2;
}
