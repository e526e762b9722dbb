// ContainerRecord: what sandshim remembers about one container, saved as
// <root>/<id>/state.json. Pids are stored with their start time so a recycled pid reads as
// dead; the owner is the sandshim process that is creating (or foreground-running) the
// container, so gc can tell a half-made container whose creator died from one in progress.
#pragma once

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <string>

#include "shim/core/proc.h"
#include "shim/runtime/backend_data.h"
#include "shim/runtime/status.h"

namespace sandshim::runtime {

struct ContainerRecord {
  std::string id;
  std::string backend;  // "gvisor" | "native"
  std::filesystem::path bundle;
  std::filesystem::path rootfs;
  ContainerStatus status = ContainerStatus::kCreating;
  proc::ProcessId init;   // the process the caller waits on (for runsc: the sandbox)
  proc::ProcessId owner;  // sandshim process that must finish creating / running it
  std::string created;
  std::map<std::string, std::string> annotations;
  BackendData backend_data;  // backend-specific facts (runsc flags, platform; native cgroups)
  // Whether the record and journal are fsync'd. Only what can outlive the kernel needs it
  // (runsc's state files, hooks' side effects); see docs/CRASH_SAFETY.md. Absent = true.
  bool durable = true;
};
// What state.json holds: these members under their own names (bundle/described.h), and
// backend_data, read after them because its type depends on backend.
BOOST_DESCRIBE_STRUCT(ContainerRecord, (),
                      (id, backend, bundle, rootfs, status, init, owner, created, annotations, durable))

boost::json::object ToJson(const ContainerRecord& r);
Result<ContainerRecord> RecordFromJson(std::string_view text);

// The status as it is now: a recorded live status whose init died is stopped.
ContainerStatus LiveStatus(const ContainerRecord& r);

}  // namespace sandshim::runtime
