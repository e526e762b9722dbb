// An OCI process as the ExecArgs of gVisor's containerManager.ExecuteAsync: what `runsc exec
// --process` would send (runsc/cmd/exec.go argsFromProcess, specutils.Capabilities).
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>

#include "shim/core/result.h"

namespace sandshim::runsc {

// nullopt when the process needs what only runsc exec does (a terminal, no capabilities of
// its own: runsc would take the container's). net_raw: whether CAP_NET_RAW may stay (runsc's
// --net-raw); without it runsc strips it from every set, and so does this.
Result<std::optional<boost::json::object>> ExecArgsFor(const boost::json::object& process, const std::string& container_id,
                                                       bool net_raw);

}  // namespace sandshim::runsc
