#include "shim/session/trusted_git.h"

namespace sandshim::session {
namespace {

// Command-line scope: read after the system, global, local and worktree files, so a
// repository's config cannot override these (a later `git -c` by the platform itself can).
// Each names a command git would run, or a signing program.
constexpr std::pair<const char*, const char*> kGitOverrides[] = {
    {"core.hooksPath", "/dev/null"},  // no hooks: /dev/null/<hook> never exists
    {"core.fsmonitor", "false"},
    {"core.sshCommand", "ssh"},
    {"core.askPass", ""},
    {"core.alternateRefsCommand", "true"},
    {"credential.helper", ""},  // empty: resets the helper list (URL-scoped ones too)
    {"diff.external", ""},
    {"commit.gpgSign", "false"},
    {"tag.gpgSign", "false"},
    {"tag.forceSignAnnotated", "false"},
    {"push.gpgSign", "false"},
    {"gpg.program", "gpg"},
    {"gpg.openpgp.program", "gpg"},
    {"gpg.x509.program", "gpgsm"},
    {"gpg.ssh.program", "ssh-keygen"},
    {"submodule.recurse", "false"},
};

// Keys a repository's own config may set (git's canonical spelling: section and name lower
// case, subsection as written): plain data. Everything else is refused, which covers
// aliases, filter/diff/merge drivers, remote.*.uploadpack/receivepack/proxy, url rewrites,
// includes, http.*, credential.*, pager.*, core.*Command and whatever git adds later.
constexpr const char* kAllowedLocalKeys =
    "core.repositoryformatversion|core.filemode|core.bare|core.logallrefupdates|core.ignorecase|"
    "core.precomposeunicode|core.symlinks|core.sharedrepository|core.autocrlf|core.eol|core.safecrlf|"
    "core.quotepath|core.abbrev|core.compression|core.bigfilethreshold|core.checkstat|core.trustctime|"
    "core.untrackedcache|core.splitindex|core.commitgraph|core.multipackindex|core.sparsecheckout|"
    "core.sparsecheckoutcone|core.protecthfs|core.protectntfs|core.warnambiguousrefs|"
    "extensions.*|init.defaultbranch|user.name|user.email|user.useconfigonly|"
    "remote.*.url|remote.*.pushurl|remote.*.fetch|remote.*.push|remote.*.tagopt|remote.*.prune|"
    "remote.*.mirror|remote.*.promisor|remote.*.partialclonefilter|remote.*.skipdefaultupdate|"
    "branch.*.remote|branch.*.merge|branch.*.rebase|branch.*.pushremote|branch.*.description|"
    "submodule.*.url|submodule.*.active|submodule.*.branch|"
    "gc.auto|gc.autopacklimit|gc.autodetach|pack.threads|index.version|index.threads|"
    "fetch.prune|fetch.prunetags|fetch.writecommitgraph|pull.rebase|pull.ff|push.default|push.autosetupremote|"
    "push.followtags|merge.ff|merge.conflictstyle|rebase.autosquash|rebase.autostash|"
    "advice.*|color.ui|status.showuntrackedfiles|receive.denycurrentbranch|receive.denynonfastforwards|"
    "lfs.repositoryformatversion";

std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TrustedGitEnv(const std::string& global_config) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"GIT_CONFIG_NOSYSTEM", "1"},
      {"GIT_CONFIG_GLOBAL", global_config},
      // Variables that beat the matching config keys (core.pager and pager.<cmd>, core.editor,
      // sequence.editor, core.gitProxy, core.askPass, protocol.*).
      {"GIT_PAGER", "cat"},
      {"GIT_EDITOR", "true"},
      {"GIT_SEQUENCE_EDITOR", "true"},
      {"GIT_PROXY_COMMAND", ""},
      {"GIT_ASKPASS", ""},
      {"GIT_TERMINAL_PROMPT", "0"},
      {"GIT_ALLOW_PROTOCOL", "https:http:ssh:git:file"},  // not ext:: (a command) nor fd::
      {"GIT_PROTOCOL_FROM_USER", "0"},
  };
  int n = 0;
  for (const auto& [k, v] : kGitOverrides) {
    env.emplace_back("GIT_CONFIG_KEY_" + std::to_string(n), k);
    env.emplace_back("GIT_CONFIG_VALUE_" + std::to_string(n), v);
    ++n;
  }
  env.emplace_back("GIT_CONFIG_COUNT", std::to_string(n));
  return env;
}

std::string TrustedGitConfig() {
  return "# sandshim: a trusted context's git config (read-only; docs/CONTEXTS.md, \"Trusted contexts\").\n"
         "# Repositories in the workspace are data: the wrapper refuses one whose config sets more than\n"
         "# data keys, and the command-line-scope settings (GIT_CONFIG_COUNT) turn off what runs commands.\n"
         "[safe]\n\tdirectory = *\n"
         "[include]\n\tpath = ~/.gitconfig\n";
}

std::string TrustedGitWrapper(const std::string& global_config, const std::string& self_dir) {
  std::string s =
      "#!/bin/sh\n"
      "# sandshim: git in a trusted context (docs/CONTEXTS.md, \"Trusted contexts\"). Generated.\n"
      "# The protections again, whatever the caller's environment did to them:\n";
  for (const auto& [k, v] : TrustedGitEnv(global_config)) s += "export " + k + "=" + Quote(v) + "\n";
  s += "self=" + Quote(self_dir) +
       "\n"
       "# The real git: the next one in PATH after this directory.\n"
       "p=; old=$IFS; IFS=:\n"
       "for d in $PATH; do [ \"$d\" = \"$self\" ] || p=${p:+$p:}$d; done\n"
       "IFS=$old\n"
       "real=$(PATH=$p command -v git) || { echo 'sandshim trusted git: no git in PATH' >&2; exit 127; }\n"
       "# git's own options before the command (-C, -c, --git-dir...), for the check below.\n"
       "n=0; want=; cmd=\n"
       "for a; do\n"
       "  if [ -n \"$want\" ]; then want=; n=$((n+1)); continue; fi\n"
       "  case $a in\n"
       "    -C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix) want=1; n=$((n+1)) ;;\n"
       "    -*) n=$((n+1)) ;;\n"
       "    *) cmd=$a; break ;;\n"
       "  esac\n"
       "done\n"
       "allowed() {\n"
       "  case $1 in\n"
       "    " + std::string(kAllowedLocalKeys) + ") return 0 ;;\n"
       "  esac\n"
       "  return 1\n"
       "}\n"
       "check() { # N ARGS...: git's first N arguments, then the repository's config keys by scope\n"
       "  k=$1; shift; i=0\n"
       "  for a; do shift; [ $i -lt $k ] && set -- \"$@\" \"$a\"; i=$((i+1)); done\n"
       "  \"$real\" \"$@\" config --list --show-scope --name-only --includes\n"
       "}\n"
       "if [ -n \"$cmd\" ]; then\n"
       "  keys=$(check \"$n\" \"$@\") || { echo 'sandshim trusted git: cannot read the repository config' >&2; exit 128; }\n"
       "  bad=$(printf '%s\\n' \"$keys\" | while IFS=\"$(printf '\\t')\" read -r scope key; do\n"
       "    case $scope in local|worktree) allowed \"$key\" || { printf '%s (%s)\\n' \"$key\" \"$scope\"; break; } ;; esac\n"
       "  done)\n"
       "  if [ -n \"$bad\" ]; then\n"
       "    echo \"sandshim trusted git: refusing: the repository's config sets $bad, which a trusted context does not run (docs/CONTEXTS.md)\" >&2\n"
       "    exit 128\n"
       "  fi\n"
       "fi\n"
       "exec \"$real\" \"$@\"\n";
  return s;
}

}  // namespace sandshim::session
