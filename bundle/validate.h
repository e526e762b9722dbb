// ValidateSpec checks a config.json before any backend sees it, so that bad input fails with
// one clear line naming the field instead of a backend's stack of errors — and before
// anything has been created that would need undoing.
#pragma once

#include <filesystem>

#include "bundle/spec.h"

namespace sandshim::bundle {

// bundle_dir is used to check that the rootfs exists; pass empty to skip filesystem checks.
Status ValidateSpec(const Spec& spec, const std::filesystem::path& bundle_dir);

}  // namespace sandshim::bundle
