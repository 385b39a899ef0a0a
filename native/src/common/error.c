#include "scbf/scbf_error.h"

const char *scbf_strerror(int status) {
    switch (status) {
    case SCBF_OK: return "ok";
    case SCBF_E_INVALID_ARG: return "invalid argument";
    case SCBF_E_NOMEM: return "out of memory";
    case SCBF_E_PARAM_MISMATCH: return "filters have different parameters";
    case SCBF_E_TRUNCATED: return "snapshot truncated";
    case SCBF_E_BAD_MAGIC: return "not a snapshot (bad magic)";
    case SCBF_E_BAD_VERSION: return "unsupported snapshot version";
    case SCBF_E_CHECKSUM: return "snapshot checksum mismatch";
    case SCBF_E_CORRUPT: return "snapshot corrupt (inconsistent fields)";
    case SCBF_E_TOO_LARGE: return "size beyond limits";
    case SCBF_E_NOT_FOUND: return "not found";
    case SCBF_E_BUFFER_TOO_SMALL: return "buffer too small";
    case SCBF_E_ITER: return "key source failed";
    default: return "unknown error";
    }
}
