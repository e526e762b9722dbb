// The programs sandshim carries inside itself (the context broker, its exec client, the exec
// guard: .incbin'd by ctx_helper_embed.S) and writes into a session's directory, named by their
// content so two sandshim builds on one root each get their own file and a running context
// keeps the one it started with.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::session {

// FNV-1a of bytes, 16 hex digits: names versions of an installed file apart (not a security
// boundary: the directory is root's).
std::string ContentHash(std::string_view bytes);
// "<name>-<ContentHash(bytes)>": the file InstallBinary writes.
std::string InstalledBinaryName(const std::string& name, std::string_view bytes);
// <dir>/<InstalledBinaryName>, 0755, written atomically unless a file of that name and size is
// there (the name is the content's hash). what names the program in the error of an empty
// embed (a build without it).
Result<std::filesystem::path> InstallBinary(const std::filesystem::path& dir, const std::string& name,
                                            std::string_view bytes, const std::string& what);

}  // namespace sandshim::session
