// Container and session ids become directory names and runsc arguments, so they are
// validated before anything touches the disk: runc's rule (letters, digits, "_+-.") plus a
// length cap, and never "." or "..".
#pragma once

#include <string_view>

#include "shim/core/result.h"

namespace sandshim {

inline constexpr std::size_t kMaxIdLength = 1024;

Status ValidateId(std::string_view id);

}  // namespace sandshim
