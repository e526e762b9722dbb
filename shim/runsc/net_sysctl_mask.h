// Lets this runsc (release 20221219) set up netstack on a kernel whose net.core sysctls are
// per network namespace. Before taking over a namespace's interfaces, runsc refuses "the root
// network namespace", which it recognises by /proc/sys/net/core/rmem_default existing; since
// Linux 6.x that file exists in every namespace, so `runsc start` (and `run`) with
// --network=sandbox fails on every container ("cannot run with network enabled in root
// network namespace"). The check runs in the runsc process that sets up the network, after
// it has joined the container's namespace (never the host's: sandshim only picks netstack for
// a new namespace, flags.h), so that process runs with /proc/sys/net hidden: in a private
// mount namespace with an empty tmpfs there. runsc reads nothing else below /proc/sys/net.
#pragma once

#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::runsc {

// True when runsc, given these flags, will set up netstack itself (--network=sandbox, which is
// also runsc's default when no --network flag is given).
bool UsesNetstack(const std::vector<std::string>& flags);

// While it lives, the calling process (which must be single-threaded: a mount namespace is
// shared by threads) and what it spawns see an empty /proc/sys/net; afterwards the process is
// back in the mount namespace it came from. Enter with netstack=false does nothing.
class NetSysctlMask {
 public:
  static Result<NetSysctlMask> Enter(bool netstack);
  ~NetSysctlMask();
  NetSysctlMask(NetSysctlMask&&) = default;
  NetSysctlMask& operator=(NetSysctlMask&&) = delete;

 private:
  explicit NetSysctlMask(UniqueFd back) : back_(std::move(back)) {}
  UniqueFd back_;
};

}  // namespace sandshim::runsc
