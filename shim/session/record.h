// What sandshim remembers about a session (<root>/@sessions/<id>/session.json, mode 0600):
// identity, the backend it actually got, its profile without environment values, and the
// counters that `inspect` and `metrics` report. Pure conversion to and from JSON.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

struct SessionRecord {
  std::string id, name, container_id, backend, workspace, rootfs, audit;
  std::string created, last_used;  // RFC 3339
  std::string state = "running";   // what we last made it: running | stopped
  std::string layer;               // "overlayfs", "gvisor-overlay" or "" (read-only root)
  boost::json::object profile;     // bundle::ProfileSummary
  std::string network = "none";    // none | proxy | host
  std::vector<std::string> relay_args;  // proxy mode: the relay's `sandshim proxy` flags, to restart it
  // Native with a user namespace (M11): the host ids container 0.. maps to; 0: none.
  uint64_t id_base = 0;
  uint64_t execs = 0, exec_failures = 0, exec_timeouts = 0;
  double exec_seconds = 0;
  // Not stored: the container's live status ("running", "stopped", "gone").
  std::string status;
};

boost::json::object RecordToJson(const SessionRecord& r);
Result<SessionRecord> RecordFromJson(const boost::json::value& v);

}  // namespace sandshim::session
