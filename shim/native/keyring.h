// A session keyring of the container's own (runc: "_ses.<id>"), so nothing inside can reach
// keys in the caller's session keyring (an operator's login keyring, a platform service's).
// The init makes it; every exec joins the same one by name, as runc's setns init does.
#pragma once

#include <string>

#include "shim/core/result.h"

namespace sandshim::native {

// The keyring name of a container (pure).
std::string KeyringName(std::string_view container_id);
// Joins (or creates) the named session keyring and lets its owner search it, so later execs
// (running as host root, not possessing it) can join it by name. No keyrings in the kernel
// (ENOSYS) is not an error, as in runc.
Status JoinSessionKeyring(const std::string& name);

}  // namespace sandshim::native
