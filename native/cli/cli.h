/* The `scbf` command-line tool: one cmd_* per sub-command, dispatched by main.c.
 * Each returns the process exit code (0 ok, 2 usage error, 1 runtime error). */
#ifndef SCBF_CLI_H
#define SCBF_CLI_H
#include <stdint.h>

int cmd_sizing(int argc, char **argv);
int cmd_fpr(int argc, char **argv);
int cmd_cache_sim(int argc, char **argv);

/* Argument helpers: strict parsing (whole string, in range), 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_double(const char *s, double *out);
/* Prints "scbf <cmd>: <msg>" and the command's usage to stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *usage, const char *msg);
#endif
