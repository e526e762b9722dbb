// Trusted contexts (`session context create ... --trusted`, docs/CONTEXTS.md "Trusted
// contexts"): the platform's context treats the shared workspace as data. The tools it runs
// must not execute configuration or code the workspace supplies. How, per tool:
//   - git: a protected global config (read-only, root's; system config off) and
//     command-line-scope settings (GIT_CONFIG_COUNT/KEY/VALUE, which repository config cannot
//     override) that turn off hooks, fsmonitor, credential helpers, askpass, ssh and proxy
//     commands, signing programs; pager, editor and proxy command by environment; only the
//     https, http, ssh, git and file protocols. A wrapper first in PATH
//     (kTrustedDir/bin/git) refuses a repository whose own config (local or worktree scope,
//     includes followed) sets anything but plain data keys (allow list, trusted_git.cc).
//   - curl, pip and everything reading ~: HOME is the context's own (context_home.h), and
//     CURL_HOME/XDG_CONFIG_HOME point there.
//   - npm: npm_config_* variables (which beat a project's .npmrc) for the keys that run
//     commands or carry traffic elsewhere.
// The files are written once per session (<session>/trusted-<hash>/) and bound read-only at
// kTrustedDir into every context container (a spare does not know whether its context will
// be trusted); only a trusted context's environment uses them.
#pragma once

#include <filesystem>
#include <map>
#include <vector>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

inline constexpr const char* kTrustedDir = "/.sshim/trusted";

// The environment a trusted context gets over its own (pure): path is the session's PATH.
std::map<std::string, std::string> TrustedEnv(const std::string& path, const std::map<std::string, std::string>& proxy);
// The files under kTrustedDir: relative path -> (mode, content) (pure).
struct TrustedFile {
  std::string path;
  unsigned mode;
  std::string content;
};
std::vector<TrustedFile> TrustedFiles();
// Writes them into <session>/trusted-<hash>/ (root's, read-only) once; returns that directory.
Result<std::filesystem::path> InstallTrustedTools(const std::filesystem::path& session_dir);

}  // namespace sandshim::session
