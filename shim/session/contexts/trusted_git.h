// git in a trusted context (trusted_context.h): the environment that protects it and the
// wrapper that checks a repository's own config first. Pure text; trusted_context.cc installs it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sandshim::session {

// Ordered KEY=VALUE pairs: git's command-line-scope settings (GIT_CONFIG_COUNT/KEY_n/VALUE_n)
// and the variables that beat configuration (GIT_PAGER, GIT_EDITOR, GIT_ALLOW_PROTOCOL...).
// GIT_EXEC_PATH is exec_dir: the context's own, whose git is the wrapper.
std::vector<std::pair<std::string, std::string>> TrustedGitEnv(const std::string& global_config,
                                                                const std::string& exec_dir);
// The protected global config (GIT_CONFIG_GLOBAL): safe.directory=* (the user's repositories
// are read as data: the wrapper's check and the settings above are what make that safe) and
// an include of the context's own ~/.gitconfig.
std::string TrustedGitConfig();
// /bin/sh script, installed as bin/git and exec_dir/git: re-exports TrustedGitEnv, finds the
// next git in PATH (skipping bin_dir and exec_dir), refuses a repository whose local or
// worktree config sets a key off the allow list (includes not followed), a ~/.gitconfig that
// includes or names drivers, a work tree whose git directory is in another trust zone
// (HOME and /tmp vs the rest), and a git directory holding anything but files and
// directories (links, FIFOs) where git writes; then execs git.
std::string TrustedGitWrapper(const std::string& global_config, const std::string& bin_dir, const std::string& exec_dir);
// exec_dir/git-receive-pack etc.: the wrapper with that command.
std::string TrustedGitDashed(const std::string& exec_dir, const std::string& command);
// exec_dir/git-sh-i18n etc., sourced by git's scripts from $(git --exec-path): the real one.
std::string TrustedGitSourced(const std::string& name);

}  // namespace sandshim::session
