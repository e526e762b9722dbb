#include "shim/runsc/checkpoint_probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/leftovers.h"
#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {
namespace json = boost::json;
namespace {

constexpr auto kVerbTimeout = std::chrono::seconds(30);
// How long a restored sandbox must stay up: 2022's stops within milliseconds.
constexpr auto kSettle = std::chrono::seconds(1);

// A sandbox that sleeps on the host's / (read-only): no rootfs to build.
constexpr const char* kSleeperSpec = R"({"ociVersion":"1.0.2",
  "process":{"args":["/bin/sleep","120"],"cwd":"/","user":{"uid":0,"gid":0},"env":["PATH=/usr/bin:/bin"]},
  "root":{"path":"/","readonly":true},
  "mounts":[{"destination":"/proc","type":"proc","source":"proc"}],
  "linux":{"namespaces":[{"type":"pid"},{"type":"mount"},{"type":"ipc"},{"type":"uts"},{"type":"network"}]}})";

// One runsc verb in the probe's namespace: its stdout, or why it failed. stdin an empty memory
// file, never /dev/null (runsc chowns the stdio it hands a sandbox).
Result<std::string> Verb(const Global& g, std::vector<std::string> argv, std::string_view what) {
  auto ns = TRY(NetnsScope::Enter(g.netns));
  auto o = TRY(process::Run({.argv = std::move(argv), .input = "", .timeout = kVerbTimeout,
                             .reap = process::Reap::kAdoptedToo}));
  if (!o.Success()) return MakeError(std::string(what) + ": " + o.Describe(), EIO);
  return o.out;
}

// The whole round trip; Ok when the restored sandbox still runs after kSettle.
Status RoundTrip(const Global& g, const std::filesystem::path& dir, const std::string& id) {
  CreateOpts o{.bundle = dir / "bundle", .pid_file = dir / "pid"};
  TRY(Verb(g, CreateArgv(g, o, id), "create"));
  TRY(Verb(g, StartArgv(g, id), "start"));
  TRY(Verb(g, CheckpointArgv(g, id, dir / "image"), "checkpoint"));
  TRY(Verb(g, DeleteArgv(g, id, true), "delete after checkpoint"));
  ::unlink(o.pid_file->c_str());
  TRY(Verb(g, RestoreArgv(g, o, id, dir / "image"), "restore"));
  std::this_thread::sleep_for(kSettle);
  auto state = TRY(Verb(g, StateArgv(g, id), "state after restore"));
  auto v = TRY(bundle::ParseJson(state, "runsc state"));
  std::string status = v.is_object() ? bundle::GetString(v.get_object(), "status") : "";
  pid_t pid = static_cast<pid_t>(std::atoi(fs::ReadFile(*o.pid_file).value_or("0").c_str()));
  if (status != "running" || pid <= 0 || ::kill(pid, 0) != 0)
    return MakeError("the restored container did not keep running (status \"" + status + "\")", EIO);
  // Its process too, not only the sandbox: `ps` lists the sleeper's pid.
  auto ps = TRY(Verb(g, PsArgv(g, id, true), "ps after restore"));
  if (ps.find_first_of("0123456789") == std::string::npos) {
    std::replace(ps.begin(), ps.end(), '\n', ' ');
    return MakeError("the restored container has no process (ps: " + ps.substr(0, 80) + ")", EIO);
  }
  return Ok();
}

CheckpointVerdict RunProbe(const ProbeResult& p, const std::filesystem::path& cache_dir, ControlNetnsKeeper& keeper) {
  auto dir = cache_dir / ("ckpt-probe." + std::to_string(::getpid()));
  (void)fs::RemoveAll(dir);
  CheckpointVerdict v;
  for (auto sub : {"bundle", "root", "image"})
    if (auto s = fs::MkdirAll(dir / sub, 0700); !s) return {false, s.error().msg};
  if (auto s = fs::WriteFileAtomic(dir / "bundle" / "config.json", kSleeperSpec); !s) return {false, s.error().msg};
  auto ns = keeper.MakePrivate(dir / "control.netns");
  if (!ns) return {false, "control netns: " + ns.error().msg};
  // As sessions run: their writable layer in the sandbox's memory, saved with it.
  std::vector<std::string> flags{"--network=none", "--ignore-cgroups", "--platform=" + p.platform};
  if (p.HasFlag("overlay2")) flags.emplace_back("--overlay2=root:memory");
  Global g{p.binary, dir / "root", flags, *ns};
  std::string id = "probe-" + std::to_string(::getpid()) + "-ckpt";
  auto s = RoundTrip(g, dir, id);
  v.works = static_cast<bool>(s);
  if (!s) v.why = s.error().msg;
  {
    auto in = NetnsScope::Enter(g.netns);
    (void)process::Run({.argv = DeleteArgv(g, id, true), .input = "", .timeout = std::chrono::seconds(10),
                        .reap = process::Reap::kAdoptedToo});
  }
  (void)KillProcesses(Owner{g.root, id, dir / "bundle"});
  (void)keeper.RemovePrivate(dir / "control.netns");
  (void)fs::RemoveAll(dir);
  return v;
}

}  // namespace

CheckpointVerdict ProbeCheckpoint(const ProbeResult& p, const std::filesystem::path& cache_dir,
                                  ControlNetnsKeeper& keeper) {
  if (!p.usable) return {false, "runsc is not usable: " + p.error};
  std::string identity = "ckpt1|" + BinaryIdentity(p.binary) + "|" + p.platform;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : identity) h = (h ^ ch) * 1099511628211ull;
  char name[56];
  std::snprintf(name, sizeof name, "runsc-checkpoint-%016llx.json", static_cast<unsigned long long>(h));
  auto file = cache_dir / name;
  auto cached = [&]() -> std::optional<CheckpointVerdict> {
    auto text = fs::ReadFile(file);
    if (!text) return std::nullopt;
    auto v = bundle::ParseJson(*text, "checkpoint probe cache");
    if (!v || !v->is_object() || bundle::GetString(v->get_object(), "identity") != identity) return std::nullopt;
    return CheckpointVerdict{bundle::GetBool(v->get_object(), "works"), bundle::GetString(v->get_object(), "why")};
  };
  if (auto c = cached()) return *c;
  if (auto s = fs::MkdirAll(cache_dir, 0755); !s) return {false, s.error().msg};
  // One prober at a time (the main probe's lock); the others wait and read its verdict.
  UniqueFd lock(::open((cache_dir / ".probe.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (lock.valid()) ::flock(lock.get(), LOCK_EX);
  if (auto c = cached()) return *c;
  log::Info("probing whether runsc " + p.binary + " can checkpoint and restore (once per runsc binary)");
  auto v = RunProbe(p, cache_dir, keeper);
  (void)fs::WriteFileAtomic(file, json::serialize(json::object{{"identity", identity}, {"works", v.works}, {"why", v.why}}));
  return v;
}

}  // namespace sandshim::runsc
