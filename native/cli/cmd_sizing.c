/* scbf sizing: the paper's SCBF sizing, from positions or from capacity. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "scbf/scbf.h"

static const char *USAGE = "(--positions M | --capacity N) --fpr P";

int cmd_sizing(int argc, char **argv) {
    uint64_t positions = 0, capacity = 0;
    int have_positions = 0, have_capacity = 0, have_fpr = 0;
    double fpr = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (i + 1 >= argc) return cli_usage_error("sizing", USAGE, "missing option value");
        const char *val = argv[++i];
        if (!strcmp(opt, "--positions")) {
            if (cli_parse_u64(val, &positions))
                return cli_usage_error("sizing", USAGE, "bad --positions");
            have_positions = 1;
        } else if (!strcmp(opt, "--capacity")) {
            if (cli_parse_u64(val, &capacity))
                return cli_usage_error("sizing", USAGE, "bad --capacity");
            have_capacity = 1;
        } else if (!strcmp(opt, "--fpr")) {
            if (cli_parse_double(val, &fpr)) return cli_usage_error("sizing", USAGE, "bad --fpr");
            have_fpr = 1;
        } else {
            return cli_usage_error("sizing", USAGE, "unknown option");
        }
    }
    if (have_positions == have_capacity)
        return cli_usage_error("sizing", USAGE, "give exactly one of --positions and --capacity");
    if (!have_fpr) return cli_usage_error("sizing", USAGE, "--fpr is required");
    if (!(fpr > 0 && fpr < 1)) return cli_usage_error("sizing", USAGE, "--fpr must be in (0, 1)");

    scbf_params_t p;
    int rc = have_positions ? scbf_params_from_positions(positions, fpr, &p)
                            : scbf_params_from_capacity(capacity, fpr, &p);
    if (rc) return cli_usage_error("sizing", USAGE, scbf_strerror(rc));
    if (have_positions)
        printf("k=%u m=%llu n=%llu\n", p.k, (unsigned long long)p.m,
               (unsigned long long)p.capacity);
    else
        printf("positions=%llu k=%u m=%llu bytes=%llu\n", (unsigned long long)p.positions, p.k,
               (unsigned long long)p.m, (unsigned long long)scbf_params_counter_bytes(&p));
    return 0;
}
