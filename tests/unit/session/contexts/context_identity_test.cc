// A context's identity (docs/CONTEXTS.md, "Threat model"): its own HOME, bound per container,
// and a trusted context's environment and tools (pure parts).
#include <doctest/doctest.h>

#include <algorithm>

#include "bundle/session_spec.h"
#include "shim/session/contexts/context_home.h"
#include "shim/session/contexts/context_spec.h"
#include "shim/session/contexts/trusted_context.h"
#include "shim/session/contexts/trusted_git.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

json::object SessionDoc(uint32_t id_base = 0) {
  bundle::SessionProfile p;
  p.rootfs = "/rootfs";
  p.workspace = "/ws";
  p.id_base = id_base;
  return bundle::SessionSpec(p).value();
}

std::string EnvOf(const json::object& spec, const std::string& key) {
  for (const auto& v : spec.at("process").at("env").as_array()) {
    std::string s(v.as_string());
    if (s.rfind(key + "=", 0) == 0) return s.substr(key.size() + 1);
  }
  return "<unset>";
}

const json::object* MountAt(const json::object& spec, const std::string& dest) {
  for (const auto& m : spec.at("mounts").as_array())
    if (m.as_object().at("destination") == json::string_view(dest)) return &m.as_object();
  return nullptr;
}

ContextPlacement Placed() {
  return {.in_session_sandbox = true, .session_container = "sess-s1", .home_path = "/state/c/home", .trusted_path = "/state/trusted-x"};
}

}  // namespace

TEST_CASE("context home: a named context's HOME is its own, not the workspace; default keeps the session's") {
  CHECK(EnvOf(SessionDoc(), "HOME") == "/workspace");
  auto spec = ContextSpec(SessionDoc(), {.name = "platform", .uid = 2000}, Placed()).value();
  CHECK(EnvOf(spec, "HOME") == kContextHome);
  auto* home = MountAt(spec, kContextHome);
  REQUIRE(home);
  CHECK(home->at("source") == "/state/c/home");
  auto* tools = MountAt(spec, kTrustedDir);
  REQUIRE(tools);
  auto& opts = tools->at("options").as_array();
  CHECK(std::find(opts.begin(), opts.end(), json::value("ro")) != opts.end());
  auto def = ContextSpec(SessionDoc(), {.name = "default"}, Placed()).value();
  CHECK(EnvOf(def, "HOME") == "/workspace");
  // The context's own --env HOME wins (the suite's positive control uses it).
  auto own = ContextSpec(SessionDoc(), {.name = "u", .env = {{"HOME", "/ws"}}}, Placed()).value();
  CHECK(EnvOf(own, "HOME") == "/ws");
  // Without a home placed (an old caller), nothing changes.
  auto bare = ContextSpec(SessionDoc(), {.name = "p"}, {.in_session_sandbox = true, .session_container = "s"}).value();
  CHECK(EnvOf(bare, "HOME") == "/workspace");
  CHECK_FALSE(MountAt(bare, kContextHome));
}

TEST_CASE("trusted context: git, curl, npm settings over everything, even the context's own --env HOME") {
  ContextOptions o{.name = "platform", .env = {{"HOME", "/ws"}, {"PATH", "/opt/bin:/usr/bin"}}, .uid = 2000};
  o.trusted = true;
  auto spec = ContextSpec(SessionDoc(), o, Placed(), {{"HTTP_PROXY", "http://ctx-platform:t@127.0.0.1:3128"}}).value();
  CHECK(EnvOf(spec, "HOME") == kContextHome);
  CHECK(EnvOf(spec, "PATH") == std::string(kTrustedDir) + "/bin:/opt/bin:/usr/bin");
  CHECK(EnvOf(spec, "GIT_CONFIG_NOSYSTEM") == "1");
  CHECK(EnvOf(spec, "GIT_CONFIG_GLOBAL") == std::string(kTrustedDir) + "/gitconfig");
  // Protocols in the command-line scope (GIT_ALLOW_PROTOCOL would beat git's own guard on a
  // submodule's file URL): replace refs and grafts off.
  CHECK(EnvOf(spec, "GIT_ALLOW_PROTOCOL") == "<unset>");
  CHECK(EnvOf(spec, "GIT_PROTOCOL_FROM_USER") == "<unset>");
  CHECK(EnvOf(spec, "GIT_NO_REPLACE_OBJECTS") == "1");
  CHECK(EnvOf(spec, "GIT_GRAFT_FILE") == "/dev/null/grafts");
  CHECK(EnvOf(spec, "CURL_HOME") == kContextHome);
  CHECK(EnvOf(spec, "npm_config_ignore_scripts") == "true");
  CHECK(EnvOf(spec, "npm_config_proxy") == "http://ctx-platform:t@127.0.0.1:3128");
  // Command-line scope, which no repository config overrides: hooks and fsmonitor off.
  int count = std::stoi(EnvOf(spec, "GIT_CONFIG_COUNT"));
  std::map<std::string, std::string> cfg;
  for (int i = 0; i < count; ++i)
    cfg[EnvOf(spec, "GIT_CONFIG_KEY_" + std::to_string(i))] = EnvOf(spec, "GIT_CONFIG_VALUE_" + std::to_string(i));
  CHECK(cfg.at("core.hooksPath") == "/dev/null");
  CHECK(cfg.at("core.fsmonitor") == "false");
  CHECK(cfg.at("credential.helper").empty());
  CHECK(cfg.at("core.sshCommand") == "ssh");
  CHECK(cfg.at("protocol.allow") == "never");
  CHECK(cfg.at("protocol.file.allow") == "user");
  CHECK(cfg.at("protocol.https.allow") == "always");
  CHECK(cfg.find("protocol.ext.allow") == cfg.end());
  // Untrusted: none of it.
  o.trusted = false;
  auto plain = ContextSpec(SessionDoc(), o, Placed()).value();
  CHECK(EnvOf(plain, "GIT_CONFIG_GLOBAL") == "<unset>");
  // Trusted needs its home and the tools bound.
  o.trusted = true;
  CHECK_FALSE(ContextSpec(SessionDoc(), o, {.in_session_sandbox = true, .session_container = "s"}));
}

TEST_CASE("trusted git wrapper: the environment again, the allow list, exec of the next git") {
  auto w = TrustedGitWrapper("/g", "/b", "/x");
  CHECK(w.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(w.find("export GIT_CONFIG_GLOBAL='/g'") != std::string::npos);
  CHECK(w.find("export GIT_EXEC_PATH='/x'") != std::string::npos);
  // Never follows an include (a FIFO of the user's would hang it).
  CHECK(w.find("config --list --show-scope --name-only --no-includes") != std::string::npos);
  CHECK(w.find("-P \"$@\" config --list") != std::string::npos);
  CHECK(w.find("--includes)") == std::string::npos);
  CHECK(TrustedGitDashed("/x", "receive-pack") == "#!/bin/sh\nexec '/x/git' receive-pack \"$@\"\n");
  CHECK(w.find("remote.*.url|") != std::string::npos);
  CHECK(TrustedGitConfig().find("directory = *") != std::string::npos);
}

TEST_CASE("trusted git wrapper: lstat checks for FIFOs before any git runs, transports too") {
  auto w = TrustedGitWrapper("/g", "/b", "/x");
  auto pre = w.find("g0=$(gitdir_of");
  REQUIRE(pre != std::string::npos);
  CHECK(pre < w.find("config --list --show-scope"));  // before the first git reads the repository
  CHECK(w.find("-name .gitignore -o -name .gitattributes -o -name .gitmodules -o -name .mailmap") != std::string::npos);
}

TEST_CASE("trusted git wrapper: a transport's far end gets the whole guard, zones as named") {
  auto w = TrustedGitWrapper("/g", "/b", "/x");
  CHECK(w.find("upload-pack|receive-pack|upload-archive)") != std::string::npos);
  CHECK(w.find("guard 3 -C \"$x\" --git-dir=.") != std::string::npos);
  CHECK(w.find("export SANDSHIM_GIT_ZONE=$z") != std::string::npos);
  CHECK(w.find("named_of \"$@\"; zone") < w.find("alt=$(altbad"));
  CHECK(w.find("-name .git -print -prune") != std::string::npos);  // embedded repositories
  CHECK(w.find("-path '*/objects/pack' \\) -type d -prune") != std::string::npos);  // a link there is seen
}

TEST_CASE("trusted env: npm's program and path keys are the context's own") {
  auto env = TrustedEnv("/usr/bin", {{"HTTP_PROXY", "http://p"}, {"NO_PROXY", "localhost"}});
  const std::string home = kContextHome;
  CHECK(env.at("npm_config_init_module") == home + "/.npm-init.js");
  CHECK(env.at("npm_config_prefix") == home + "/.npm-global");
  CHECK(env.at("npm_config_cache") == home + "/.npm");
  CHECK(env.at("npm_config_logs_dir") == home + "/.npm/_logs");
  CHECK(env.at("npm_config_browser") == "false");
  CHECK(env.at("npm_config_viewer") == "man");
  CHECK(env.at("npm_config_ignore_scripts") == "true");
  CHECK(env.at("npm_config_noproxy") == "localhost");
  CHECK(env.at("npm_config_proxy") == "http://p");
  CHECK(env.count("npm_config_node_gyp") == 0);  // an empty path would be the current directory
}

TEST_CASE("context home: host ids through the spec's mappings") {
  CHECK(HostId(SessionDoc(), "uidMappings", 2000) == 2000);
  auto mapped = SessionDoc(0x10000000);
  CHECK(HostId(mapped, "uidMappings", 2000) == 0x10000000 + 2000);
  CHECK(HostId(mapped, "gidMappings", 0) == 0x10000000);
  CHECK(HostId(mapped, "uidMappings", 70000) == 70000);  // outside the range: as is
}

}  // namespace sandshim::session
