#include "shim/runsc/probe.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/control_netns.h"
#include "shim/runsc/leftovers.h"
#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

constexpr auto kBootTimeout = std::chrono::seconds(6);

// A spec that boots the host's own / read-only and runs /bin/true: no rootfs to build.
std::string ProbeSpec() {
  json::object spec{
      {"ociVersion", "1.0.2"},
      {"process", {{"args", json::array{"/bin/true"}}, {"cwd", "/"}, {"user", {{"uid", 0}, {"gid", 0}}},
                   {"env", json::array{"PATH=/usr/bin:/bin"}}}},
      {"root", {{"path", "/"}, {"readonly", true}}},
      {"mounts", json::array{json::object{{"destination", "/proc"}, {"type", "proc"}, {"source", "proc"}}}},
      {"linux", {{"namespaces", json::array{json::object{{"type", "pid"}}, json::object{{"type", "mount"}},
                                             json::object{{"type", "ipc"}}, json::object{{"type", "uts"}},
                                             json::object{{"type", "network"}}}}}}};
  return json::serialize(spec);
}

// Boots one sandbox on platform; empty string on success, else why not.
std::string TryPlatform(const std::string& runsc, const std::string& platform, const std::filesystem::path& dir,
                        ControlNetnsKeeper& keeper) {
  // --ignore-cgroups: a probe killed on timeout (kvm hangs here) would leak its cgroups.
  Global g{runsc, dir / "root", {"--network=none", "--ignore-cgroups", "--platform=" + platform}};
  std::string id = "probe-" + std::to_string(::getpid()) + "-" + platform;
  auto argv = RunArgv(g, CreateOpts{.bundle = dir / "bundle"}, id, false);
  // The probe's sandbox binds its abstract control socket in the namespace of the runsc that
  // makes it (see control_netns.h): a private one, as for every container, so no local user
  // can reach it in the host namespace while it boots.
  auto ns_path = keeper.MakePrivate(dir / "control.netns");
  if (!ns_path) return "control netns: " + ns_path.error().msg;
  std::string why;
  {
    auto ns = NetnsScope::Enter(*ns_path);
    if (!ns) {
      why = "control netns: " + ns.error().msg;
    } else {
      auto o = process::Run({.argv = argv, .timeout = kBootTimeout, .reap = process::Reap::kAdoptedToo});
      if (!o) why = o.error().msg;
      else if (!o->Success()) why = o->Describe();
      // Nothing of the probe may outlive it, whatever happened.
      (void)process::Run({.argv = DeleteArgv(g, id, true), .timeout = std::chrono::seconds(10), .reap = process::Reap::kAdoptedToo});
    }
  }
  (void)KillProcesses(Owner{g.root, id, dir / "bundle"});
  (void)keeper.RemovePrivate(dir / "control.netns");
  return why;
}

ProbeResult RunProbe(const std::string& binary, const std::filesystem::path& cache_dir, const std::string& forced,
                     ControlNetnsKeeper& keeper) {
  ProbeResult r;
  r.binary = binary;
  auto ver = process::Run({.argv = {binary, "--version"}, .timeout = std::chrono::seconds(10)});
  if (!ver || !ver->Success()) {
    r.error = binary + " --version failed";
    return r;
  }
  r.version = ver->out.substr(0, ver->out.find('\n'));
  auto dir = cache_dir / ("probe." + std::to_string(::getpid()));
  (void)fs::RemoveAll(dir);
  if (auto s = fs::MkdirAll(dir / "bundle", 0755); !s) {
    r.error = s.error().msg;
    return r;
  }
  (void)fs::WriteFileAtomic(dir / "bundle" / "config.json", ProbeSpec());
  std::vector<std::string> candidates{forced};
  if (forced.empty()) {
    auto help = process::Run({.argv = {binary, "help", "platforms"}, .timeout = std::chrono::seconds(10)});
    candidates = PlatformCandidates(help ? help->out : "", ::access("/dev/kvm", R_OK | W_OK) == 0);
  }
  for (const auto& p : candidates) {
    std::string why = TryPlatform(binary, p, dir, keeper);
    if (why.empty()) {
      r.usable = true;
      r.platform = p;
      break;
    }
    r.notes.push_back(p + ": " + why);
  }
  if (!r.usable) {
    r.error = "no runsc platform could boot a sandbox here";
    for (const auto& n : r.notes) r.error += "; " + n;
  }
  (void)fs::RemoveAll(dir);
  return r;
}

json::object ToJson(const ProbeResult& r, const std::string& identity) {
  json::array notes;
  for (const auto& n : r.notes) notes.emplace_back(n);
  return {{"identity", identity}, {"usable", r.usable}, {"platform", r.platform}, {"version", r.version},
          {"binary", r.binary},   {"error", r.error},   {"notes", std::move(notes)}};
}

std::optional<ProbeResult> FromCache(const std::filesystem::path& file, const std::string& identity) {
  auto text = fs::ReadFile(file);
  if (!text) return std::nullopt;
  auto v = bundle::ParseJson(*text, "probe cache");
  if (!v || !v->is_object()) return std::nullopt;
  const auto& o = v->get_object();
  if (bundle::GetString(o, "identity") != identity) return std::nullopt;
  ProbeResult r;
  r.usable = bundle::GetBool(o, "usable");
  r.platform = bundle::GetString(o, "platform");
  r.version = bundle::GetString(o, "version");
  r.binary = bundle::GetString(o, "binary");
  r.error = bundle::GetString(o, "error");
  r.notes = bundle::GetStrings(o, "notes");
  return r;
}

}  // namespace

std::vector<std::string> PlatformCandidates(const std::string& help, bool have_kvm) {
  std::vector<std::string> out;
  // systrap is the fast default of newer runsc; kvm needs /dev/kvm; ptrace works almost anywhere.
  for (std::string p : {"systrap", "kvm", "ptrace"}) {
    if (p == "kvm" && !have_kvm) continue;
    if (help.find(p) != std::string::npos) out.push_back(p);
  }
  if (out.empty()) out.emplace_back("ptrace");
  return out;
}

std::string BinaryIdentity(const std::string& path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

ProbeResult Probe(const std::string& runsc, const std::filesystem::path& cache_dir, const std::string& forced,
                  ControlNetnsKeeper& keeper) {
  std::string binary = process::FindOnHost(runsc);
  if (binary.empty()) return ProbeResult{.error = "runsc (\"" + runsc + "\") is not installed or not executable"};
  std::string identity = BinaryIdentity(binary) + (forced.empty() ? "" : "|" + forced);
  auto file = cache_dir / "runsc-probe.json";
  if (auto cached = FromCache(file, identity)) return *cached;
  if (auto s = fs::MkdirAll(cache_dir, 0755); !s) return ProbeResult{.error = s.error().msg};
  // One prober at a time; the others wait and read its verdict.
  UniqueFd lock(::open((cache_dir / ".probe.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (lock.valid()) ::flock(lock.get(), LOCK_EX);
  if (auto cached = FromCache(file, identity)) return *cached;
  log::Info("probing runsc " + binary + " (first use of this runsc binary)");
  ProbeResult r = RunProbe(binary, cache_dir, forced, keeper);
  (void)fs::WriteFileAtomic(file, json::serialize(ToJson(r, identity)));
  return r;
}

}  // namespace sandshim::runsc
