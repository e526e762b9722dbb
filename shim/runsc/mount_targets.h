// Bind-mount destinations that an image can use to hang runsc. The gofer opens each bind's
// destination in the rootfs to mount over it; when the image put a FIFO there (say at
// /etc/ssl/certs/ca-certificates.crt, where a session with secrets binds its trust bundle,
// or /etc/resolv.conf), that open blocks for good and so does create (red team: a session
// create and a docker run never returned). Checked on the host before runsc starts.
#pragma once

#include <filesystem>

#include <boost/json.hpp>

#include "shim/core/result.h"

namespace sandshim::runsc {

// Fails when a bind mount of doc lands on a FIFO of the rootfs (the destination resolved
// inside it, as the gofer resolves it). A missing destination or a rootfs that cannot be
// opened is not this check's business.
Status CheckBindTargets(const boost::json::object& doc, const std::filesystem::path& rootfs);

}  // namespace sandshim::runsc
