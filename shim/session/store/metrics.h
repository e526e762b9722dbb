// `sandshim metrics`: Prometheus text exposition of the sessions under one root, for a
// node-exporter textfile collector. Pure formatting from a snapshot of records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shim/session/store/record.h"

namespace sandshim::session {

struct SessionSample {
  SessionRecord record;          // with .status filled in
  int64_t workspace_bytes = -1;  // -1: unknown
  int64_t memory_bytes = -1;
  int64_t contexts = -1;         // credential contexts with a record (contexts.h); -1: unknown
  int64_t spare_contexts = -1;   // ready spare context containers (context_spare.h); -1: unknown
};

std::string PrometheusText(const std::vector<SessionSample>& samples);
// Seconds since the epoch of an RFC 3339 time as sandshim writes it; 0 if unparsable.
double EpochSeconds(const std::string& rfc3339);

}  // namespace sandshim::session
