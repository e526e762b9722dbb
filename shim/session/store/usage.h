// What a session's sandbox uses now, typed, from the stats event both backends give (runc's
// `events --stats` shape: {"data": {"memory": {"usage": {"usage": N}}, "pids": {"current": N},
// "cpu": {"usage": {"total": N}}}}). Inspect and metrics read fields, not a JSON walk.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>

namespace sandshim::session {

struct ResourceUsage {
  std::optional<uint64_t> memory_bytes;  // nullopt: unknown (no stats, or not this backend's)
  std::optional<uint64_t> pids;
  std::optional<uint64_t> cpu_ns;
  std::optional<uint64_t> oom_kills;
};

// A field that is missing, or not a non-negative integer, reads as unknown: stats are a
// best-effort report, and an unknown value is shown as such, never as 0.
ResourceUsage UsageFromStats(const boost::json::value& stats);

}  // namespace sandshim::session
