#include "shim/core/ids.h"

#include <sys/random.h>

#include <cctype>
#include <cerrno>

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

Result<std::string> NewId(std::string_view prefix) {
  unsigned char bytes[6];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) return ErrnoError("getrandom");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(prefix);
  for (unsigned char b : bytes) {
    id += kHex[b >> 4];
    id += kHex[b & 15];
  }
  return id;
}

}  // namespace sandshim
