// git in a trusted context (trusted_context.h): the environment that protects it and the
// wrapper that checks a repository's own config first. Pure text; trusted_context.cc installs it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sandshim::session {

// Ordered KEY=VALUE pairs: git's command-line-scope settings (GIT_CONFIG_COUNT/KEY_n/VALUE_n)
// and the variables that beat configuration (GIT_PAGER, GIT_EDITOR, GIT_ALLOW_PROTOCOL...).
std::vector<std::pair<std::string, std::string>> TrustedGitEnv(const std::string& global_config);
// The protected global config (GIT_CONFIG_GLOBAL): safe.directory=* (the user's repositories
// are read as data: the wrapper's check and the settings above are what make that safe) and
// an include of the context's own ~/.gitconfig.
std::string TrustedGitConfig();
// /bin/sh script: re-exports TrustedGitEnv, finds the next git in PATH, lists the
// repository's config (git config --list --show-scope --name-only) and refuses any local or
// worktree key off the allow list, then execs git.
std::string TrustedGitWrapper(const std::string& global_config, const std::string& self_dir);

}  // namespace sandshim::session
