// Container and session ids become directory names and runsc arguments, so they are
// validated before anything touches the disk: runc's rule (letters, digits, "_+-.") plus a
// length cap, and never "." or "..".
#pragma once

#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim {

inline constexpr std::size_t kMaxIdLength = 1024;

Status ValidateId(std::string_view id);

// A fresh id for a caller that names none: PREFIX plus 12 hex digits from getrandom(2).
Result<std::string> NewId(std::string_view prefix);

}  // namespace sandshim
