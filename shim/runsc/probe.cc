#include "shim/runsc/probe.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <algorithm>
#include <cstdio>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/control_netns.h"
#include "shim/runsc/control_probe.h"
#include "shim/runsc/leftovers.h"
#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

constexpr auto kBootTimeout = std::chrono::seconds(6);

// A spec that boots the host's own / read-only and runs args: no rootfs to build.
std::string ProbeSpec(json::array args) {
  json::object spec{
      {"ociVersion", "1.0.2"},
      {"process", {{"args", std::move(args)}, {"cwd", "/"}, {"user", {{"uid", 0}, {"gid", 0}}},
                   {"env", json::array{"PATH=/usr/bin:/bin"}}}},
      {"root", {{"path", "/"}, {"readonly", true}}},
      {"mounts", json::array{json::object{{"destination", "/proc"}, {"type", "proc"}, {"source", "proc"}}}},
      {"linux", {{"namespaces", json::array{json::object{{"type", "pid"}}, json::object{{"type", "mount"}},
                                             json::object{{"type", "ipc"}}, json::object{{"type", "uts"}},
                                             json::object{{"type", "network"}}}}}}};
  return json::serialize(spec);
}

// The global flags of every probe sandbox on platform: its own root, no network, no cgroups
// (a probe killed on timeout, as kvm hangs here, would leak them).
Global ProbeGlobal(const std::string& runsc, const std::string& platform, const std::filesystem::path& dir,
                   const std::filesystem::path& netns) {
  return Global{runsc, dir / "root", {"--network=none", "--ignore-cgroups", "--platform=" + platform}, netns};
}

// Boots one sandbox on platform; empty string on success, else why not. Runs in netns: the
// probe's sandbox binds an abstract control socket (2022's runsc) in the namespace of the
// runsc that makes it (see control_netns.h), so no local user can reach it while it boots.
std::string TryPlatform(const Global& g, const std::string& platform, const std::filesystem::path& dir) {
  std::string id = "probe-" + std::to_string(::getpid()) + "-" + platform;
  auto argv = RunArgv(g, CreateOpts{.bundle = dir / "bundle"}, id, false);
  std::string why;
  {
    auto ns = NetnsScope::Enter(g.netns);
    if (!ns) {
      why = "control netns: " + ns.error().msg;
    } else {
      // stdin an empty memory file, never /dev/null: runsc run hands its stdio to the sandbox
      // and chowns it to the sandbox's user (the host's /dev/null would become nobody's).
      auto o = process::Run({.argv = argv, .input = "", .timeout = kBootTimeout, .reap = process::Reap::kAdoptedToo});
      if (!o) why = o.error().msg;
      else if (!o->Success()) why = o->Describe();
      // Nothing of the probe may outlive it, whatever happened.
      (void)process::Run({.argv = DeleteArgv(g, id, true), .input = "", .timeout = std::chrono::seconds(10),
                          .reap = process::Reap::kAdoptedToo});
    }
  }
  (void)KillProcesses(Owner{g.root, id, dir / "bundle"});
  return why;
}

// The names of the global flags the binary takes (`runsc flags`: "  -name value" lines).
std::vector<std::string> FlagNames(const std::string& binary) {
  auto o = process::Run({.argv = {binary, "flags"}, .input = "", .timeout = std::chrono::seconds(10)});
  return o ? ParseFlagNames(o->out + o->err) : std::vector<std::string>{};
}

// Platforms first, fastest first; then, on the one that booted, the control server.
void ProbePlatforms(ProbeResult& r, const std::string& forced, const std::filesystem::path& dir,
                    const std::filesystem::path& netns) {
  std::vector<std::string> candidates{forced};
  if (forced.empty()) {
    auto help = process::Run({.argv = {r.binary, "help", "platforms"}, .input = "", .timeout = std::chrono::seconds(10)});
    candidates = PlatformCandidates(help ? help->out : "", ::access("/dev/kvm", R_OK | W_OK) == 0);
  }
  for (const auto& p : candidates) {
    std::string why = TryPlatform(ProbeGlobal(r.binary, p, dir, netns), p, dir);
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
    return;
  }
  auto c = ProbeControl(ProbeGlobal(r.binary, r.platform, dir, netns), dir / "sleeper" / "bundle",
                        "probe-" + std::to_string(::getpid()) + "-control");
  r.control = c.protocol;
  r.sandbox_uid = c.sandbox_uid;
  if (c.protocol.empty()) r.notes.push_back("control server: " + c.why + " (every exec through runsc exec)");
}

ProbeResult RunProbe(const std::string& binary, const std::filesystem::path& cache_dir, const std::string& forced,
                     ControlNetnsKeeper& keeper) {
  ProbeResult r;
  r.binary = binary;
  auto ver = process::Run({.argv = {binary, "--version"}, .input = "", .timeout = std::chrono::seconds(10)});
  if (!ver || !ver->Success()) {
    r.error = binary + " --version failed";
    return r;
  }
  r.version = ver->out.substr(0, ver->out.find('\n'));
  r.flags = FlagNames(binary);
  auto dir = cache_dir / ("probe." + std::to_string(::getpid()));
  (void)fs::RemoveAll(dir);
  for (auto sub : {"bundle", "sleeper/bundle"})
    if (auto s = fs::MkdirAll(dir / sub, 0755); !s) {
      r.error = s.error().msg;
      return r;
    }
  // The runsc root holds 2024's control sockets: root's alone, as sandshim's own (control.h).
  (void)fs::MkdirAll(dir / "root", 0700);
  (void)fs::WriteFileAtomic(dir / "bundle" / "config.json", ProbeSpec(json::array{"/bin/true"}));
  (void)fs::WriteFileAtomic(dir / "sleeper" / "bundle" / "config.json", ProbeSpec(json::array{"/bin/sleep", "30"}));
  auto ns_path = keeper.MakePrivate(dir / "control.netns");
  if (!ns_path) {
    r.error = "control netns: " + ns_path.error().msg;
  } else {
    ProbePlatforms(r, forced, dir, *ns_path);
    (void)keeper.RemovePrivate(dir / "control.netns");
  }
  (void)fs::RemoveAll(dir);
  return r;
}

json::object ToJson(const ProbeResult& r, const std::string& identity) {
  json::array notes;
  for (const auto& n : r.notes) notes.emplace_back(n);
  json::array flags;
  for (const auto& f : r.flags) flags.emplace_back(f);
  return {{"identity", identity}, {"usable", r.usable}, {"platform", r.platform}, {"version", r.version},
          {"binary", r.binary},   {"error", r.error},   {"notes", std::move(notes)}, {"control", r.control},
          {"flags", std::move(flags)}, {"sandbox_uid", r.sandbox_uid}};
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
  r.control = bundle::GetString(o, "control");
  r.flags = bundle::GetStrings(o, "flags");
  if (const auto* u = o.if_contains("sandbox_uid"); u && u->is_int64()) r.sandbox_uid = u->as_int64();
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

std::vector<std::string> ParseFlagNames(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    // "  -name" or "  -name value": a flag's first line; its usage lines start with a tab.
    if (line.size() < 4 || line.substr(0, 3) != "  -") continue;
    auto name = line.substr(3, line.find(' ', 3) == std::string_view::npos ? std::string_view::npos : line.find(' ', 3) - 3);
    if (!name.empty()) out.emplace_back(name);
  }
  return out;
}

bool ProbeResult::HasFlag(std::string_view name) const {
  return std::find(flags.begin(), flags.end(), name) != flags.end();
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
  // "v3": the verdict's fields (control, flags, sandbox_uid); a cache written before them is
  // probed again.
  std::string identity = "v3|" + BinaryIdentity(binary) + (forced.empty() ? "" : "|" + forced);
  // One file per binary (and forced platform): hosts and test runs with two runsc versions
  // keep both verdicts instead of probing again at every switch.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : identity) h = (h ^ ch) * 1099511628211ull;
  char name[48];
  std::snprintf(name, sizeof name, "runsc-probe-%016llx.json", static_cast<unsigned long long>(h));
  auto file = cache_dir / name;
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
