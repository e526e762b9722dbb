// The default spec `sandshim spec` writes, in the shape `runc spec` gives: a read-only
// rootfs at ./rootfs, new namespaces, runc's default capability set and masked paths, plus
// Docker's default seccomp profile for that capability set (default_seccomp.h).
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace sandshim::bundle {

boost::json::object DefaultSpec(const std::vector<std::string>& args = {"sh"}, bool terminal = true);

}  // namespace sandshim::bundle
