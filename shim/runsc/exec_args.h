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
// The guest descriptor numbers of the n files sent with the call: 0..n-1, in order. runsc
// since 2023 requires the list (ExecArgs.GuestFDs: "length of payload files does not match
// length of file descriptor array" without it); 2022's decoder ignores the unknown field.
void SetGuestFds(boost::json::object& exec_args, size_t n);

}  // namespace sandshim::runsc
