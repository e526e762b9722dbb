#include "shim/session/contexts/trusted_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/remove_tree.h"
#include "shim/session/contexts/context_home.h"
#include "shim/session/contexts/ctx_helper.h"
#include "shim/session/contexts/trusted_git.h"
#include "shim/session/store/installed_binary.h"

namespace sandshim::session {

namespace {
std::string GitConfigPath() { return std::string(kTrustedDir) + "/gitconfig"; }
std::string BinDir() { return std::string(kTrustedDir) + "/bin"; }
std::string ExecDir() { return std::string(kTrustedDir) + "/libexec"; }
}  // namespace

std::map<std::string, std::string> TrustedEnv(const std::string& path, const std::map<std::string, std::string>& proxy) {
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : TrustedGitEnv(GitConfigPath(), ExecDir())) env[k] = v;
  env["PATH"] = BinDir() + (path.empty() ? "" : ":" + path);  // the git wrapper first
  // curl reads $CURL_HOME, then $XDG_CONFIG_HOME, then $HOME: all the context's own.
  env["CURL_HOME"] = kContextHome;
  env["XDG_CONFIG_HOME"] = std::string(kContextHome) + "/.config";
  // npm: the environment beats a project's .npmrc. No lifecycle scripts; the shells and
  // programs it would run are fixed; its proxy is the context's (a project's could send the
  // platform's traffic and tokens elsewhere).
  // python3 -m pip / -m venv / -c with the workspace as cwd: no current directory (nor the
  // script's) first on sys.path, so a planted pip/, venv.py or json.py is not imported
  // (3.11+; older pythons ignore it). User site stays on: it is in the context's own HOME.
  env["PYTHONSAFEPATH"] = "1";
  env["npm_config_ignore_scripts"] = "true";
  env["npm_config_script_shell"] = "/bin/sh";
  env["npm_config_shell"] = "/bin/sh";
  env["npm_config_git"] = "git";
  env["npm_config_editor"] = "true";
  env["npm_config_node_options"] = "";
  env["npm_config_strict_ssl"] = "true";
  env["npm_config_userconfig"] = std::string(kContextHome) + "/.npmrc";
  // Keys that name a program npm runs, a file it loads or a place it writes (a project's
  // .npmrc chose them, or npm derives other paths from them): the context's own or the
  // trusted directory's. init-module is require()d by `npm init`; browser/viewer are run by
  // `npm docs/help`; prefix is where -g installs (and their bins) are written; cache and
  // logs-dir are written (and the cache read back). (node-gyp is not set: npm resolves an
  // empty path to the current directory; lifecycle scripts, which run it, are off. Nor is
  // globalconfig: a project's wins over the environment there, measured with npm 11, and the
  // file it names can set nothing the project's own .npmrc could not: this environment
  // beats both.)
  const std::string home = kContextHome;
  env["npm_config_init_module"] = home + "/.npm-init.js";
  env["npm_config_browser"] = "false";
  env["npm_config_viewer"] = "man";
  env["npm_config_prefix"] = home + "/.npm-global";
  env["npm_config_cache"] = home + "/.npm";
  env["npm_config_logs_dir"] = home + "/.npm/_logs";
  if (auto p = proxy.find("NO_PROXY"); p != proxy.end()) env["npm_config_noproxy"] = p->second;
  if (auto p = proxy.find("HTTP_PROXY"); p != proxy.end()) env["npm_config_proxy"] = p->second;
  if (auto p = proxy.find("HTTPS_PROXY"); p != proxy.end()) env["npm_config_https_proxy"] = p->second;
  return env;
}

std::vector<TrustedFile> TrustedFiles() {
  auto wrapper = TrustedGitWrapper(GitConfigPath(), BinDir(), ExecDir());
  std::vector<TrustedFile> files = {{"gitconfig", 0644, TrustedGitConfig()},
                                    {"bin/git", 0755, wrapper},
                                    {"libexec/git", 0755, wrapper}};
  for (const char* c : {"receive-pack", "upload-pack", "upload-archive"})
    files.push_back({std::string("libexec/git-") + c, 0755, TrustedGitDashed(ExecDir(), c)});
  for (const char* f : {"git-sh-i18n", "git-sh-setup", "git-mergetool--lib"})
    files.push_back({std::string("libexec/") + f, 0644, TrustedGitSourced(f)});
  return files;
}

Result<std::filesystem::path> InstallTrustedTools(const std::filesystem::path& session_dir) {
  auto files = TrustedFiles();
  std::string all;
  for (const auto& f : files) all += f.path + '\0' + f.content + '\0';
  auto dir = session_dir / ("trusted-" + ContentHash(all));
  if (fs::Exists(dir)) return dir;
  // Made aside and renamed into place: a reader sees it whole or not at all.
  auto tmp = session_dir / (dir.filename().string() + ".tmp-" + std::to_string(::getpid()));
  (void)fs::RemoveTree(tmp);
  TRY(fs::MkdirAll(tmp / "bin", 0755));
  TRY(fs::MkdirAll(tmp / "libexec", 0755));
  for (const auto& f : files) TRY(fs::WriteFileAtomic(tmp / f.path, f.content, f.mode, /*sync=*/false));
  if (::chmod(tmp.c_str(), 0755) != 0) return ErrnoError("chmod " + tmp.string());
  if (::rename(tmp.c_str(), dir.c_str()) != 0) {
    int err = errno;
    (void)fs::RemoveTree(tmp);
    if (fs::Exists(dir)) return dir;  // another create installed it meanwhile
    return ErrnoError("install " + dir.string(), err);
  }
  return dir;
}

}  // namespace sandshim::session
