#include "shim/session/contexts/ctx_helper.h"

#include "shim/session/store/installed_binary.h"

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

Result<std::filesystem::path> InstallCtxHelper(const std::filesystem::path& session_dir) {
  return InstallBinary(session_dir, "sandshim-ctx", CtxHelperBytes(), "context helper");
}

Result<std::filesystem::path> InstallCtxRun(const std::filesystem::path& session_dir) {
  return InstallBinary(session_dir, "sandshim-ctx-run", CtxRunBytes(), "context helper");
}

const std::string& CtxRunFileName() {
  static const std::string name = InstalledBinaryName("sandshim-ctx-run", CtxRunBytes());
  return name;
}

}  // namespace sandshim::session
