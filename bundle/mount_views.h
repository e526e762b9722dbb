// The spec's mounts as path lookup needs them (shim/core/container_path.h): destination,
// source made absolute against the bundle (runc reads a relative source that way), and
// whether it is a bind mount.
#pragma once

#include <filesystem>
#include <vector>

#include "bundle/spec.h"
#include "shim/core/container_path.h"

namespace sandshim::bundle {

std::vector<MountView> MountViews(const Spec& spec, const std::filesystem::path& bundle_dir);

}  // namespace sandshim::bundle
