#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"sizing", cmd_sizing, "SCBF sizing from (positions, fpr) or (capacity, fpr)"},
    {"fpr", cmd_fpr, "measure the false-positive rate at design capacity"},
    {"cache-sim", cmd_cache_sim, "replay a key trace through hotscore, lru or opt"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: scbf <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nbenchmarks: scbf-bench (see docs/benchmarks.md)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "scbf: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

int cli_parse_u64(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double *out) {
    if (!s || !*s) return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int cli_usage_error(const char *cmd, const char *usage_text, const char *msg) {
    fprintf(stderr, "scbf %s: %s\nusage: scbf %s %s\n", cmd, msg, cmd, usage_text);
    return 2;
}
