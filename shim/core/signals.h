// Signal names as runc accepts them: "TERM", "SIGTERM", "sigterm" or "15".
#pragma once

#include <string_view>

#include "shim/core/result.h"

namespace sandshim {

Result<int> ParseSignal(std::string_view s);

}  // namespace sandshim
