#include "shim/session/ctx_helper.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>

#include "shim/core/fs.h"

// ctx_helper_embed.S (CMakeLists.txt): the static sandshim-ctx, .incbin'd.
extern "C" const char sandshim_ctx_helper_begin[];
extern "C" const char sandshim_ctx_helper_end[];
extern "C" const char sandshim_ctx_run_begin[];
extern "C" const char sandshim_ctx_run_end[];

namespace sandshim::session {

std::string_view CtxHelperBytes() {
  return {sandshim_ctx_helper_begin, static_cast<size_t>(sandshim_ctx_helper_end - sandshim_ctx_helper_begin)};
}

std::string_view CtxRunBytes() {
  return {sandshim_ctx_run_begin, static_cast<size_t>(sandshim_ctx_run_end - sandshim_ctx_run_begin)};
}

// FNV-1a: names versions apart (two sandshim builds on one root each get their own file);
// not a security boundary (the directory is root's).
std::string ContentHash(std::string_view bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return out;
}

namespace {

Result<std::filesystem::path> Install(const std::filesystem::path& session_dir, const std::string& name, std::string_view bytes) {
  if (bytes.empty()) return MakeError("this sandshim was built without its context helper", ENOEXEC);
  auto path = session_dir / (name + "-" + ContentHash(bytes));
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && static_cast<size_t>(st.st_size) == bytes.size()) return path;
  TRY_CTX(fs::WriteFileAtomic(path, bytes, 0755), "context helper");
  return path;
}

}  // namespace

Result<std::filesystem::path> InstallCtxHelper(const std::filesystem::path& session_dir) {
  return Install(session_dir, "sandshim-ctx", CtxHelperBytes());
}

Result<std::filesystem::path> InstallCtxRun(const std::filesystem::path& session_dir) {
  return Install(session_dir, "sandshim-ctx-run", CtxRunBytes());
}

const std::string& CtxRunFileName() {
  static const std::string name = "sandshim-ctx-run-" + ContentHash(CtxRunBytes());
  return name;
}

}  // namespace sandshim::session
