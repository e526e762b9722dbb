#include "shim/gvisor/gvisor_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "bundle/mount_views.h"
#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/look_path.h"
#include "shim/core/unique_fd.h"
#include "shim/core/log.h"
#include "shim/linux/cgroups.h"
#include "shim/linux/hooks.h"
#include "shim/runsc/control.h"
#include "shim/runsc/flags.h"
#include "shim/runsc/mount_targets.h"
#include "shim/linux/netns.h"
#include "shim/runsc/control_netns.h"
#include "shim/runsc/pod.h"
#include "shim/gvisor/gvisor_hooks.h"
#include "shim/gvisor/spec_fixups.h"

namespace sandshim::runtime {
namespace json = boost::json;
namespace {

std::vector<std::string> FlagsOf(const ContainerRecord& c) { return GvisorOf(c.backend_data).flags; }

Result<pid_t> ReadPidFile(const std::filesystem::path& file) {
  auto text = TRY_CTX(fs::ReadFile(file), "read pid file");
  pid_t pid = 0;
  auto b = text.data();
  while (b < text.data() + text.size() && (*b == ' ' || *b == '\n')) ++b;
  auto [p, ec] = std::from_chars(b, text.data() + text.size(), pid);
  if (ec != std::errc() || pid <= 0) return MakeError("pid file " + file.string() + ": no pid in it", EINVAL);
  return pid;
}

// An open reference to the network namespace this thread is in, named by a path that stays
// valid while it lives (runsc opens it during create, which we wait for).
class HostNetns {
 public:
  Result<std::string> Path() {
    if (!fd_.valid()) fd_ = UniqueFd(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
    if (!fd_.valid()) return ErrnoError("open /proc/thread-self/ns/net");
    return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_.get());
  }

 private:
  UniqueFd fd_;
};


}  // namespace

GvisorBackend::GvisorBackend(std::filesystem::path root, Config config, std::vector<std::string> user_flags,
                             bool debug, runsc::ControlNetnsKeeper& netns)
    : root_(std::move(root)),
      config_(std::move(config)),
      user_flags_(std::move(user_flags)),
      probe_(std::make_shared<ProbedRunsc>(config_, netns)),
      debug_(debug),
      netns_(netns) {}

runsc::Client GvisorBackend::ClientFor(const std::vector<std::string>& flags, const std::filesystem::path& state_dir,
                                       const std::filesystem::path& netns) const {
  return runsc::Client(runsc::Global{config_.runsc, RunscRoot(root_), flags, netns}, state_dir / "runsc-error.json");
}

// The control namespace of a recorded container: as recorded at create, or (a foreground run,
// whose record is saved before runsc runs) the root's shared one, or an older record's own.
std::filesystem::path GvisorBackend::NetnsOf(const ContainerRecord& c) const {
  std::filesystem::path recorded = GvisorOf(c.backend_data).control_netns;
  if (!recorded.empty()) return recorded;
  for (const auto& fixed : {runsc::SharedControlNetns(root_), runsc::ControlNetnsPath(root_ / c.id)})
    if (net::IsNetns(fixed)) return fixed;
  return {};
}

runsc::Client GvisorBackend::ClientFor(const ContainerRecord& c) const {
  return ClientFor(FlagsOf(c), root_ / c.id, NetnsOf(c));
}

std::string GvisorBackend::RunscId(const std::filesystem::path& root, std::string_view id) {
  // FNV-1a 64 of root and id: stable, fixed length (so no id is a prefix of another: runsc
  // resolves ids by prefix) and distinct across roots (runsc's control socket is the
  // abstract @runsc-sandbox.<id>, global to the host).
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) {
    for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  };
  mix(root.string());
  mix(std::string_view("\0", 1));
  mix(id);
  char buf[32];
  std::snprintf(buf, sizeof buf, "sshim-%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Result<std::vector<std::string>> GvisorBackend::PrepareCreate(const CreateRequest& r, ContainerJournal& j, bool hooks_by_sandshim) {
  if (r.preserve_fds > 0)
    return MakeError("--preserve-fds is not supported by the gvisor backend: runsc cannot pass extra fds into a sandbox",
                     ENOTSUP);
  if (r.no_pivot) log::Debug("--no-pivot ignored: gVisor sets up its own root");
  // The config's flags, the request's own (a session's overlay), then the user's: the last wins.
  auto extra = config_.runsc_flags;
  extra.insert(extra.end(), r.runsc_flags.begin(), r.runsc_flags.end());
  extra.insert(extra.end(), user_flags_.begin(), user_flags_.end());
  runsc::PolicyInput in{probe_->Get().platform, extra, debug_ ? (r.state_dir / "runsc-debug/").string() : "",
                        probe_->Get().HasFlag("overlay2")};
  auto flags = runsc::PolicyFlags(r.spec, in);
  TRY(fs::MkdirAll(RunscRoot(root_), 0700));
  // runsc 2024+ puts each sandbox's control socket there (control.h): root's alone, whatever
  // made the directory before.
  if (::chmod(RunscRoot(root_).c_str(), 0700) != 0) return ErrnoError("chmod " + RunscRoot(root_).string());
  // Journal first: a crash between here and a finished create leaves a record gc can undo.
  step::RunscContainer e{.runsc_root = RunscRoot(root_).string(),
                         .id = RunscId(root_, r.id),
                         .bundle = r.bundle.string(),
                         .runsc_bundle = RunscBundleDir(r.state_dir).string(),
                         .cgroups_path = r.spec.cgroups_path,
                         .control_netns = netns_.SharedFor(root_).string(),
                         .flags = flags};
  // Set when sandshim runs the hooks (gvisor_hooks.h): poststop's state needs the real id.
  if (hooks_by_sandshim) e.container_id = r.id;
  TRY(j.Append(e));
  TRY(netns_.Hold(netns_.SharedFor(root_), RunscId(root_, r.id), r.id));
  return flags;
}

// Every container gets a bundle of its own in its state dir (config.json from the spec plan,
// spec_plan.h). Besides carrying sandshim's edits, it makes the gofer findable: its command
// line names only --bundle, and callers share bundles (tests, platforms running one image many
// times), so the caller's bundle would match other containers' gofers too.
Result<SpecPlan> WriteRunscBundle(const CreateRequest& r, SpecPlanInput in) {
  in.bundle = r.bundle;
  in.out_dir = RunscBundleDir(r.state_dir);
  auto plan = PlanSpec(r.spec, in, TRY(GatherSpecFacts(r.spec, r.bundle)));
  TRY(fs::MkdirAll(in.out_dir, 0700));  // runsc reads it as root: the spec's env stays private
  if (plan.needs_mask_sources) {
    TRY(fs::MkdirAll(in.out_dir / "masked-dir", 0555));
    TRY(fs::WriteFileAtomic(in.out_dir / "masked-file", "", 0444));
  }
  TRY(fs::WriteFileAtomic(in.out_dir / "config.json", json::serialize(plan.doc), 0600));
  return plan;
}

// runc looks the command up at create; runsc only at start, too late for docker and podman to
// report 127. Look it up now as the container will see it: the rootfs with the spec's bind
// mounts over it (docker --init bind-mounts /sbin/docker-init, which no image has).
static Status CheckExecutable(const CreateRequest& r) {
  TRY(runsc::CheckBindTargets(r.spec.doc, bundle::RootfsPath(r.spec, r.bundle)));  // before anything exists
  UniqueFd root(::open(bundle::RootfsPath(r.spec, r.bundle).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid() || !r.spec.process || r.spec.process->args.empty()) return Ok();  // ValidateSpec refused it
  const auto& p = *r.spec.process;
  auto found = LookPath(root.get(), bundle::MountViews(r.spec, r.bundle), p.args[0], p.env, p.cwd);
  if (!found) return found.error();
  return Ok();
}

// The sandbox is in the cgroup runsc made; the guest has not run yet (create), so the weights
// hold from its first instruction, as runc's do.
static Status ApplyBlkioWeights(const CreateRequest& r, const json::object& weights) {
  std::vector<std::filesystem::path> dirs;
  for (auto& d : native::CgroupDirs(r.spec.cgroups_path, native::DefaultCgroupName(r.state_dir.parent_path(), r.id)))
    if (fs::Exists(d)) dirs.push_back(std::move(d));
  if (dirs.empty()) {
    log::Warn("blockIO weights not applied: the sandbox has no host cgroup (no linux.cgroupsPath)");
    return Ok();
  }
  return native::UpdateCgroups(dirs, json::object{{"blockIO", weights}});
}

Result<Created> GvisorBackend::Create(const CreateRequest& r, ContainerJournal& j) {
  // runsc would create the container with no pty anywhere (its output lost, as runc refuses
  // it); the native backend's words.
  if (r.spec.process && r.spec.process->terminal && !r.console_socket)
    return MakeError("terminal requested but no --console-socket given", EINVAL);
  TRY(CheckExecutable(r));
  if (auto pod = runsc::PodInfoOf(r.spec.annotations); pod.role == runsc::PodRole::kContainer)
    return CreateInPod(r, j, pod.sandbox_id);
  auto flags = TRY(PrepareCreate(r, j, /*hooks_by_sandshim=*/true));
  fault::Point("create.after-journal");
  auto pid_file = r.pid_file.value_or(r.state_dir / "init.pid");
  HostNetns host;
  auto plan = TRY(WriteRunscBundle(r, {.flags = flags, .host_netns = TRY(host.Path()), .hooks_by_sandshim = true,
                                       .take_blkio_weights = true}));
  auto client = ClientFor(flags, r.state_dir, netns_.SharedFor(root_));
  runsc::CreateOpts opts{.bundle = RunscBundleDir(r.state_dir), .pid_file = pid_file, .console_socket = r.console_socket};
  if (r.restore_image.empty()) TRY(client.Create(RunscId(root_, r.id), opts));
  else TRY(client.Restore(RunscId(root_, r.id), opts, r.restore_image));  // running already
  if (!plan.blkio_weights.empty()) TRY(ApplyBlkioWeights(r, plan.blkio_weights));
  pid_t pid = TRY(ReadPidFile(pid_file));
  auto start = proc::StartTime(pid);
  ContainerRecord rec;
  rec.id = r.id;
  rec.bundle = r.bundle;
  rec.annotations = r.spec.annotations;
  auto state = HookStateOf(rec, "creating", pid);
  // A failing one fails create; the caller's rollback destroys the sandbox.
  TRY(native::RunLifecycleHooks(r.spec, "prestart", state));
  TRY(native::RunLifecycleHooks(r.spec, "createRuntime", state));
  Created c;
  c.init = {pid, start ? *start : 0};
  c.data = GvisorData{.flags = flags,
                      .platform = probe_->Get().platform,
                      .network = runsc::EffectiveNetwork(flags),
                      .cgroups_path = r.spec.cgroups_path,
                      .control = probe_->Get().control,
                      .control_netns = netns_.SharedFor(root_).string()};
  return c;
}

Result<int> GvisorBackend::Run(const CreateRequest& r, ContainerJournal& j) {
  TRY(CheckExecutable(r));
  // `runsc run` leaves no point between create and start to run hooks at: runsc keeps them.
  auto flags = TRY(PrepareCreate(r, j, /*hooks_by_sandshim=*/false));
  fault::Point("run.after-journal");
  HostNetns host;
  TRY(WriteRunscBundle(r, {.flags = flags, .host_netns = TRY(host.Path())}));
  return ClientFor(flags, r.state_dir, netns_.SharedFor(root_))
      .Run(RunscId(root_, r.id),
           {.bundle = RunscBundleDir(r.state_dir), .pid_file = r.pid_file, .console_socket = r.console_socket});
}

Status GvisorBackend::Start(const ContainerRecord& c) {
  if (InPod(c)) return StartInPod(c);
  auto s = ClientFor(c).Start(RunscId(root_, c.id));
  if (!s) {
    // The sandbox stays up after a failed start and the caller would wait on it forever
    // (docker leaks a task and a shim this way): end it, so the container reads as stopped.
    if (proc::IsAlive(c.init)) ::kill(c.init.pid, SIGKILL);
    return s;
  }
  if (auto h = RunBundleHooks(c.bundle, "poststart", HookStateOf(c, "running", c.init.pid)); !h)
    log::Warn(h.error().msg);
  return s;
}

Status GvisorBackend::Kill(const ContainerRecord& c, int signal, bool all) {
  if (InPod(c)) return KillInPod(c, signal, all);  // its init is a waiter, not the pod's sandbox
  auto s = ClientFor(c).Kill(RunscId(root_, c.id), signal, all);
  if (signal == SIGKILL && proc::IsAlive(c.init)) {
    // runsc reports a SIGKILLed init as 143 to whoever waits on the sandbox; runc callers
    // expect 137. Killing the sandbox process itself ends the container with the right
    // status, and nothing inside it can outlive its sandbox.
    ::kill(c.init.pid, SIGKILL);
    return Ok();
  }
  return s;
}

Status GvisorBackend::Pause(const ContainerRecord& c) { return ClientFor(c).Pause(RunscId(root_, c.id)); }
Status GvisorBackend::Resume(const ContainerRecord& c) { return ClientFor(c).Resume(RunscId(root_, c.id)); }

Status GvisorBackend::Checkpoint(const ContainerRecord& c, const std::filesystem::path& image) {
  if (InPod(c)) return MakeError("checkpoint: a pod's container is saved with its sandbox, not alone", ENOTSUP);
  return ClientFor(c).Checkpoint(RunscId(root_, c.id), image);
}

Result<std::vector<pid_t>> GvisorBackend::Pids(const ContainerRecord& c) {
  // Processes inside gVisor are not host processes; the sandbox process stands for them all.
  // (Reporting sandbox-internal pids would make `docker top` look them up on the host.)
  std::vector<pid_t> pids;
  if (proc::IsAlive(c.init)) pids.push_back(c.init.pid);
  return pids;
}

Result<std::string> GvisorBackend::PsTable(const ContainerRecord& c) { return ClientFor(c).Ps(RunscId(root_, c.id), false); }

Result<json::value> GvisorBackend::Stats(const ContainerRecord& c) {
  auto out = TRY(ClientFor(c).Stats(RunscId(root_, c.id)));
  return bundle::ParseJson(out, "runsc events --stats");
}

Status GvisorBackend::Update(const ContainerRecord& c, const json::object& resources) {
  // This runsc has no update verb, but the whole sandbox (Sentry, gofer, ptrace stubs) lives
  // in the container's host cgroups, which runsc made: CPU, memory and block IO limits
  // written there bound everything inside, as they bound runc's processes. Only existing
  // directories: nothing is made or moved under a live sandbox.
  std::vector<std::filesystem::path> dirs;
  for (auto& d : native::CgroupDirs(GvisorOf(c.backend_data).cgroups_path, native::DefaultCgroupName(root_, c.id)))
    if (fs::Exists(d)) dirs.push_back(std::move(d));
  if (dirs.empty()) return MakeError("update: the sandbox has no host cgroup to change", ENOENT);
  json::object res = resources;
  if (auto* pids = res.if_contains("pids") ? res["pids"].if_object() : nullptr;
      pids && pids->if_contains("limit") && (*pids)["limit"].is_number()) {
    int64_t limit = (*pids)["limit"].to_number<int64_t>();
    if (limit > 0) (*pids)["limit"] = HostPidsLimit(limit);
    else res.erase("pids");
    log::Warn("update: the pids limit inside the sandbox (RLIMIT_NPROC) is fixed at start; only the host backstop changes");
  }
  return native::UpdateCgroups(dirs, res);
}

Status GvisorBackend::Undo(const ContainerStep& s) {
  const auto* e = std::get_if<step::RunscContainer>(&s);
  if (!e) return MakeError("gvisor backend cannot undo \"" + std::string(KindOf(s)) + "\"", EINVAL);
  std::filesystem::path runsc_root = e->runsc_root;
  const std::string& id = e->id;
  std::filesystem::path recorded = e->control_netns;
  // A namespace never made (a crash before it) is entered by no one.
  std::filesystem::path netns = !recorded.empty() && net::IsNetns(recorded) ? recorded : std::filesystem::path();
  runsc::Client client(runsc::Global{config_.runsc, runsc_root, e->flags, netns},
                       runsc_root / (id + ".error.json"));
  // Processes are matched by runsc id or by our own per-container bundle, never by the
  // caller's bundle (which other containers may share).
  auto destroyed = client.Destroy({runsc_root, id, e->runsc_bundle}, e->cgroups_path);
  // The root's shared namespace loses this container's hold (the last one removes it); an
  // older container's own namespace goes with it.
  auto removed = runsc::IsSharedControlNetns(recorded) ? netns_.Release(recorded, id)
                 : netns.empty()                        ? Status(Ok())
                                                        : runsc::RemoveControlNetns(netns);
  if (!destroyed) return destroyed;
  TRY(removed);
  // poststop once the container is gone, as runc does on delete. Journals written before
  // sandshim ran the hooks have no container_id: runsc had them and ran them itself.
  if (!e->container_id.empty()) {
    ContainerRecord rec;
    rec.id = e->container_id;
    rec.bundle = e->bundle;
    if (auto h = RunBundleHooks(rec.bundle, "poststop", HookStateOf(rec, "stopped", 0)); !h) log::Warn(h.error().msg);
  }
  return Ok();
}

std::vector<ContainerStep> GvisorBackend::RecordedSteps(const ContainerRecord& c, const std::filesystem::path& state_dir) {
  const auto& g = GvisorOf(c.backend_data);
  return {step::RunscContainer{.runsc_root = RunscRoot(root_).string(),
                               .id = RunscId(root_, c.id),
                               .runsc_bundle = (state_dir / "bundle").string(),
                               .cgroups_path = g.cgroups_path,
                               .control_netns = g.control_netns,
                               .flags = g.flags}};
}

}  // namespace sandshim::runtime
