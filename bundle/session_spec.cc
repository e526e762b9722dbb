#include "bundle/session_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "bundle/default_spec.h"
#include "shim/core/fs.h"

namespace sandshim::bundle {
namespace json = boost::json;

Result<std::pair<std::string, std::string>> ParseEnv(std::string_view kv) {
  auto eq = kv.find('=');
  std::string key(kv.substr(0, eq));
  bool ok = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0]));
  for (unsigned char c : key) ok &= std::isalnum(c) || c == '_';
  if (eq == std::string_view::npos || !ok) return MakeError("invalid --env \"" + std::string(kv) + "\": want KEY=VALUE", EINVAL);
  return std::pair{key, std::string(kv.substr(eq + 1))};
}

Result<std::vector<std::pair<std::string, std::string>>> ReadEnvFiles(const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : files) {
    auto text = TRY_CTX(fs::ReadFile(f), "--env-file " + f);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      out.push_back(TRY_CTX(ParseEnv(line), "--env-file " + f));
    }
  }
  return out;
}

Result<ExtraMount> ParseMount(std::string_view spec) {
  ExtraMount m;
  auto a = spec.find(':');
  if (a == std::string_view::npos) return MakeError("invalid --mount \"" + std::string(spec) + "\": want SRC:DST[:ro]", EINVAL);
  m.source = spec.substr(0, a);
  auto rest = spec.substr(a + 1);
  auto b = rest.find(':');
  m.destination = rest.substr(0, b);
  if (b != std::string_view::npos) {
    if (rest.substr(b + 1) != "ro") return MakeError("invalid --mount option \"" + std::string(rest.substr(b + 1)) + "\": only ro", EINVAL);
    m.readonly = true;
  }
  if (m.source.empty() || m.source[0] != '/' || m.destination.empty() || m.destination[0] != '/')
    return MakeError("invalid --mount \"" + std::string(spec) + "\": paths must be absolute", EINVAL);
  return m;
}

Result<int64_t> ParseBytes(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || v < 0) return MakeError("invalid size \"" + std::string(s) + "\"", EINVAL);
  std::string_view unit(p, static_cast<size_t>(s.data() + s.size() - p));
  if (unit.empty() || unit == "b") return v;
  if (unit == "k" || unit == "K") return v << 10;
  if (unit == "m" || unit == "M") return v << 20;
  if (unit == "g" || unit == "G") return v << 30;
  return MakeError("invalid size \"" + std::string(s) + "\": unit must be k, m or g", EINVAL);
}

bool ValidNetworkMode(std::string_view mode) { return mode == "none" || mode == "proxy" || mode == "host"; }
bool ValidNetworkStack(std::string_view stack) { return stack == "netstack" || stack == "hostinet"; }

std::string RedactUrl(std::string_view url) {
  auto scheme = url.find("://");
  size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  auto at = url.find('@', start);
  auto slash = url.find('/', start);
  if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at)) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(url.substr(at + 1));
}

Status CheckProxyCredentials(std::string_view proxy, std::string_view network) {
  if (network == "proxy" || RedactUrl(proxy) == proxy) return Ok();
  return MakeError("--proxy has credentials, which would enter the sandbox (environment and config.json): use "
                   "--network proxy, whose relay keeps them on the host",
                   EINVAL);
}

static json::array Env(const SessionProfile& p) {
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                                            {"HOME", p.workspace_dest},
                                            {"TERM", "xterm"}};
  // In proxy mode the variables name the relay; the user's proxy is the relay's upstream
  // and its address (and credentials) never enter the sandbox.
  std::string proxy =
      p.network == "proxy" ? std::string("http://") + kRelayAddress + ":" + std::to_string(kRelayPort) : p.proxy;
  if (!proxy.empty())
    for (const char* k : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}) env[k] = proxy;
  if (!proxy.empty()) env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1";
  for (const auto& [k, v] : p.env) env[k] = v;
  json::array out;
  for (const auto& [k, v] : env) out.emplace_back(k + "=" + v);
  return out;
}

static json::object Bind(const std::string& src, const std::string& dst, bool ro) {
  json::array opts{"rbind", "nosuid", "nodev"};
  opts.emplace_back(ro ? "ro" : "rw");
  return {{"destination", dst}, {"type", "bind"}, {"source", src}, {"options", std::move(opts)}};
}

int64_t HostMemoryWithHeadroom(int64_t inside) { return inside + std::max<int64_t>(64ll << 20, inside / 4); }

Result<json::object> SessionSpec(const SessionProfile& p) {
  if (p.rootfs.empty() || p.rootfs[0] != '/') return MakeError("session rootfs must be an absolute path", EINVAL);
  if (p.workspace.empty() || p.workspace[0] != '/') return MakeError("--workspace must be an absolute path", EINVAL);
  if (!ValidNetworkMode(p.network)) return MakeError("--network must be " + std::string(kNetworkModes), EINVAL);
  if (p.network == "proxy" && (p.netns_path.empty() || p.netns_path[0] != '/'))
    return MakeError("proxy network mode needs the session's namespace path", EINVAL);
  if (!ValidNetworkStack(p.network_stack)) return MakeError("--network-stack must be " + std::string(kNetworkStacks), EINVAL);
  // An init that idles, ends on TERM and reaps orphans of exec'd commands.
  auto spec = DefaultSpec({"/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"}, false);
  auto& proc = spec["process"].as_object();
  proc["user"] = {{"uid", p.uid}, {"gid", p.gid}};
  proc["env"] = Env(p);
  proc["cwd"] = p.workspace_dest;
  spec["root"] = {{"path", p.root_path.empty() ? p.rootfs : p.root_path}, {"readonly", !p.writable_layer}};
  spec["hostname"] = p.hostname;
  auto& mounts = spec["mounts"].as_array();
  // The default /tmp (256m) is at most half the session's memory: its pages are the session's
  // memory, and on gVisor a /tmp larger than the limit let a tenant's write kill the sandbox
  // instead of failing with ENOSPC (red team, --memory 128m).
  std::string tmp_size = p.tmp_size;
  if (tmp_size == kDefaultTmpSize && p.memory_bytes > 0 && p.memory_bytes / 2 < (int64_t{256} << 20))
    tmp_size = std::to_string(p.memory_bytes / 2);
  mounts.push_back({{"destination", "/tmp"}, {"type", "tmpfs"}, {"source", "tmpfs"},
                    {"options", json::array{"nosuid", "nodev", "mode=1777", "size=" + tmp_size}}});
  if (!p.shared_ws_parent.empty()) {
    mounts.push_back(Bind(p.shared_ws_parent, kSharedWorkspaceMount, false));
    proc["cwd"] = "/";
  } else {
    mounts.push_back(Bind(p.workspace_source.empty() ? p.workspace : p.workspace_source, p.workspace_dest, false));
  }
  for (const auto& m : p.mounts) mounts.push_back(Bind(m.source, m.destination, m.readonly));
  auto& linux_obj = spec["linux"].as_object();
  json::object res = linux_obj["resources"].as_object();
  if (p.memory_bytes > 0 && p.limit_memory_inside) {
    res["memory"] = {{"limit", HostMemoryWithHeadroom(p.memory_bytes)}};
    proc["rlimits"].as_array().push_back(
        {{"type", "RLIMIT_AS"}, {"hard", p.memory_bytes}, {"soft", p.memory_bytes}});
  } else if (p.memory_bytes > 0) {
    res["memory"] = {{"limit", p.memory_bytes}};
  } else {
    res["memory"] = {{"limit", kDefaultSessionMemoryBackstop}};
  }
  double cpus = p.cpus > 0 ? p.cpus : kDefaultSessionCpus;
  res["cpu"] = {{"quota", static_cast<int64_t>(cpus * 100000)}, {"period", 100000}};
  res["pids"] = {{"limit", p.pids > 0 ? p.pids : kDefaultSessionPids}};
  linux_obj["resources"] = std::move(res);
  if (p.network != "none") {  // host: no network namespace entry; proxy: join the session's
    json::array kept;
    for (auto& ns : linux_obj["namespaces"].as_array())
      if (ns.as_object()["type"] != "network") kept.push_back(ns);
    if (p.network == "proxy") kept.push_back({{"type", "network"}, {"path", p.netns_path}});
    linux_obj["namespaces"] = std::move(kept);
  }
  if (p.id_base) {
    linux_obj["namespaces"].as_array().push_back(json::object{{"type", "user"}});
    json::array map{json::object{{"containerID", 0}, {"hostID", p.id_base}, {"size", 65536}}};
    linux_obj["uidMappings"] = map;
    linux_obj["gidMappings"] = std::move(map);
  }
  spec["annotations"] = {{"dev.sandshim.session.workspace", p.workspace}};
  if (p.network == "proxy") spec["annotations"].as_object()[kNetworkStackAnnotation] = p.network_stack;
  return spec;
}

}  // namespace sandshim::bundle
