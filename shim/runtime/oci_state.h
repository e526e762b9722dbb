// The OCI `state` document, shaped as runc prints it (containerd's go-runc parses id, pid,
// status, bundle, rootfs, created, annotations). A stopped container reports pid 0.
#pragma once

#include <boost/json.hpp>

#include "shim/runtime/record.h"

namespace sandshim::runtime {

inline constexpr const char* kOciVersion = "1.0.2";

boost::json::object OciState(const ContainerRecord& live);

}  // namespace sandshim::runtime
