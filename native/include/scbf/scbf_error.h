/*
 * scbf_error.h - status codes shared by every scbf-hbase native module.
 *
 * Every fallible function returns an int: SCBF_OK (0) on success, a negative
 * scbf_status otherwise. Nothing aborts or prints; callers (the CLI, the JNI
 * glue) turn codes into messages with scbf_strerror().
 */
#ifndef SCBF_ERROR_H
#define SCBF_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SCBF_OK = 0,
    SCBF_E_INVALID_ARG = -1,       /* NULL pointer, out-of-range parameter */
    SCBF_E_NOMEM = -2,             /* allocation failed */
    SCBF_E_PARAM_MISMATCH = -3,    /* merge of filters with different parameters */
    SCBF_E_TRUNCATED = -4,         /* snapshot shorter than its header says */
    SCBF_E_BAD_MAGIC = -5,         /* snapshot does not start with the magic */
    SCBF_E_BAD_VERSION = -6,       /* snapshot version not supported */
    SCBF_E_CHECKSUM = -7,          /* snapshot checksum does not match */
    SCBF_E_CORRUPT = -8,           /* snapshot fields inconsistent or absurd */
    SCBF_E_TOO_LARGE = -9,         /* requested size beyond the library's limits */
    SCBF_E_NOT_FOUND = -10,        /* key absent (remove, cache get, invalidate) */
    SCBF_E_BUFFER_TOO_SMALL = -11, /* output buffer too small; needed size reported */
    SCBF_E_ITER = -12              /* a caller-supplied key source reported an error */
} scbf_status;

/* Static, human-readable text for a status code (never NULL). */
const char *scbf_strerror(int status);

#ifdef __cplusplus
}
#endif
#endif /* SCBF_ERROR_H */
