/* Status names (for logs and host tools). */
#include "axfw/error.h"

const char* axfw_status_name(uint32_t code) {
  static const char* const names[AXFW_STATUS_COUNT] = {
      "ok",          "txn_header",   "txn_device",      "txn_opcode",
      "txn_length",  "txn_count",    "txn_unsupported", "patch_unbound",
      "patch_range", "poll_timeout", "token_timeout",   "token_error",
      "stash_full",  "submission",   "spec_hash"};
  return code < AXFW_STATUS_COUNT ? names[code] : "unknown";
}
