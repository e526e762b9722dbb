#include "shim/core/ids.h"

#include <cctype>

namespace sandshim {

Status ValidateId(std::string_view id) {
  if (id.empty()) return MakeError("container id must not be empty", EINVAL);
  if (id.size() > kMaxIdLength) return MakeError("container id is longer than 1024 characters", EINVAL);
  if (id == "." || id == "..") return MakeError("invalid container id \"" + std::string(id) + "\"", EINVAL);
  for (unsigned char c : id) {
    if (std::isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.') continue;
    return MakeError("invalid container id \"" + std::string(id) +
                         "\": only letters, digits, '_', '+', '-' and '.' are allowed",
                     EINVAL);
  }
  return Ok();
}

}  // namespace sandshim
