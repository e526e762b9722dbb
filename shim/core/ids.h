// Container and session ids become directory names and runsc arguments, so they are
// validated before anything touches the disk: runc's rule (letters, digits, "_+-.") plus a
// length cap, and never "." or "..".
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim {

inline constexpr std::size_t kMaxIdLength = 1024;

Status ValidateId(std::string_view id);

// A fresh id for a caller that names none: PREFIX plus 12 hex digits from getrandom(2).
Result<std::string> NewId(std::string_view prefix);
// 8 hex digits naming a state root (FNV-1a of its absolute path; stable across builds and
// runs): what keeps host-wide names apart when two roots use the same id (review N1, N12).
std::string RootTag(const std::filesystem::path& state_root);
// FNV-1a of a path made absolute and normal ("/a/" is "/a"): RootTag's number.
uint32_t PathHash(const std::filesystem::path& path);

}  // namespace sandshim
