#include "shim/core/ids.h"

#include <sys/random.h>

#include <cctype>
#include <cerrno>

namespace sandshim {

// The id as it may be printed: a newline or escape sequence in a refused id must not make
// the one-line error several lines or recolour the terminal (review N10).
static std::string Printable(std::string_view id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : id.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }
  return id.size() > 64 ? out + "..." : out;
}

Status ValidateId(std::string_view id) {
  if (id.empty()) return MakeError("container id must not be empty", EINVAL);
  if (id.size() > kMaxIdLength) return MakeError("container id is longer than 1024 characters", EINVAL);
  if (id == "." || id == "..") return MakeError("invalid container id \"" + Printable(id) + "\"", EINVAL);
  for (unsigned char c : id) {
    if (std::isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.') continue;
    return MakeError("invalid container id \"" + Printable(id) +
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

uint32_t PathHash(const std::filesystem::path& path) {
  auto p = std::filesystem::absolute(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "/run/a/" is "/run/a"
  uint32_t h = 2166136261u;
  for (unsigned char c : p.string()) h = (h ^ c) * 16777619u;
  return h;
}

std::string RootTag(const std::filesystem::path& state_root) {
  uint32_t h = PathHash(state_root);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string tag(8, '0');
  for (int i = 7; i >= 0; --i, h >>= 4) tag[i] = kHex[h & 15];
  return tag;
}

}  // namespace sandshim
