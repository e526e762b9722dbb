// A pool's counters (<pool>/stats.json), updated under the pool's lock, and their
// Prometheus form for `sandshim metrics`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

struct PoolStats {
  uint64_t claims = 0, misses = 0, members_made = 0, refills = 0;
  double last_refill_seconds = 0, refill_seconds_total = 0;
};

PoolStats ReadPoolStats(const std::filesystem::path& file);  // missing or unreadable: zeros
Status WritePoolStats(const std::filesystem::path& file, const PoolStats& s);

struct PoolSample {
  std::string name;
  uint32_t size = 0, ready = 0;
  PoolStats stats;
};
std::string PoolPrometheusText(const std::vector<PoolSample>& pools);

}  // namespace sandshim::session
