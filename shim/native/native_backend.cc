#include "shim/native/native_backend.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <sstream>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/self_clone.h"
#include "shim/core/signal_forwarder.h"
#include "shim/native/cgroup_mounts.h"
#include "shim/linux/cgroups.h"
#include "shim/linux/hooks.h"
#include "shim/native/keyring.h"
#include "shim/native/launcher.h"
#include "shim/linux/oom.h"
#include "shim/runtime/oci_state.h"

namespace sandshim::runtime {
namespace json = boost::json;
namespace {

std::vector<std::filesystem::path> Dirs(const BackendData& data) {
  const auto& cgroups = NativeOf(data).cgroups;
  return {cgroups.begin(), cgroups.end()};
}

std::string HookState(const CreateRequest& r, pid_t pid, std::string_view status) {
  ContainerRecord rec;
  rec.id = r.id;
  rec.bundle = r.bundle;
  rec.init.pid = pid;
  rec.annotations = r.spec.annotations;
  auto o = OciState(rec);
  o["status"] = status;
  o["pid"] = pid;
  return json::serialize(o);
}

// The native runtime applies no LSM (`features` says so). A profile the spec asks for is
// refused, not warned about (issue #34 item 6): a container that believes it is confined
// must not run unconfined. runc refuses the same on a host without the LSM. Under docker on
// an AppArmor host, use --security-opt apparmor=unconfined (docs/SECCOMP.md).
Status RefuseUnappliedLsm(const bundle::Spec& spec) {
  const auto* p = bundle::GetObject(spec.doc, "process");
  if (!p) return Ok();
  for (const char* key : {"apparmorProfile", "selinuxLabel"})
    if (auto v = bundle::GetString(*p, key); !v.empty())
      return MakeError("the native runtime does not apply process." + std::string(key) + " \"" + v +
                           "\" (no LSM support): refused",
                       ENOTSUP);
  return Ok();
}

}  // namespace

Result<Created> NativeBackend::Create(const CreateRequest& r, ContainerJournal& j) { return CreateContainer(r, j, false); }

Result<Created> NativeBackend::CreateContainer(const CreateRequest& r, ContainerJournal& j, bool exec_at_once) {
  auto plan = TRY(native::PlanFromSpec(r.spec, r.bundle));
  TRY(RefuseUnappliedLsm(r.spec));
  plan.no_pivot = r.no_pivot;
  plan.hook_state = HookState(r, 0, "creating");
  if (!r.no_new_keyring) plan.keyring = native::KeyringName(r.id);
  plan.null_stdio = r.null_stdio;
  if (!RunningFromSealedCopy()) log::Warn("native runtime running from the sandshim file, not a sealed copy");
  TRY(native::CheckCgroupsPath(plan.cgroups_path));
  auto dirs = native::CgroupDirs(plan.cgroups_path, native::DefaultCgroupName(r.state_dir.parent_path(), r.id));
  const auto* linux_obj = bundle::GetObject(r.spec.doc, "linux");
  const json::object* resources = linux_obj ? bundle::GetObject(*linux_obj, "resources") : nullptr;
  plan.cgroup_binds = native::CgroupBindsFor(dirs, resources);
  std::vector<std::string> cg;
  for (const auto& d : dirs) cg.push_back(d.string());
  // Someone else's cgroup is refused before it is journaled: undo kills and removes what
  // the journal names, and a refused create must not touch what it did not make (N1).
  TRY(native::CheckCgroupsFree(dirs));
  // Journal before the cgroup is made: it (and everything the init leaves in it) is undone from here.
  TRY(j.Append(step::NativeContainer{.id = r.id, .cgroups = cg, .bundle = r.bundle.string()}));
  fault::Point("create.after-journal");
  // Made (limits and device rules included) before the clone, joined after it: the init binds
  // its own cgroup dirs while we move it in (LaunchOptions::early_setup).
  TRY(native::MakeCgroups(dirs, resources));
  native::LaunchOptions o;
  if (!exec_at_once) o.fifo = r.state_dir / "exec.fifo";
  if (r.console_socket) o.console_socket = r.console_socket->string();
  o.preserve_fds = r.preserve_fds;
  o.early_setup = native::HooksOf(r.spec.doc, "prestart").empty() && native::HooksOf(r.spec.doc, "createRuntime").empty();
  // With early setup the init moves itself into the v1 cgroups (no RCU grace period for
  // anyone: cgroups.h); with those hooks we move it before they run, as before.
  native::SelfJoin self;
  if (o.early_setup) self = TRY(native::OpenSelfJoin(dirs, resources));
  for (const auto& fd : self.fds) o.self_join.push_back(fd.get());
  o.cgroup2_dir = self.cgroup2_dir.valid() ? self.cgroup2_dir.get() : -1;
  o.before_go = [&](pid_t pid, bool in_cgroup2) -> Status {
    auto start = proc::StartTime(pid);
    TRY(j.Append(step::Process{.pid = pid, .start = start ? *start : 0}));
    auto skip = self.self;
    if (in_cgroup2 && self.cgroup2_index < skip.size()) skip[self.cgroup2_index] = true;
    TRY(native::JoinCgroups(dirs, resources, pid, skip));
    auto state = HookState(r, pid, "creating");
    TRY(native::RunLifecycleHooks(r.spec, "prestart", state));
    return native::RunLifecycleHooks(r.spec, "createRuntime", state);
  };
  pid_t pid = TRY(native::Launch(plan, o));
  if (r.pid_file) TRY(fs::WriteFileAtomic(*r.pid_file, std::to_string(pid), 0644, false));
  auto start = proc::StartTime(pid);
  Created c;
  c.init = {pid, start ? *start : 0};
  c.data = NativeData{{dirs.begin(), dirs.end()}, o.fifo.string(), plan.keyring};
  return c;
}

Result<int> NativeBackend::Run(const CreateRequest& r, ContainerJournal& j) {
  // The init goes on to exec the process once it is READY: no exec.fifo round trip. A ^C
  // from then on is the container's (the init sets its own mask).
  process::HeldSignals held;
  auto created = TRY(CreateContainer(r, j, true));
  fault::Point("run.after-journal");
  // The container has a session of its own (setsid): ^C on our terminal reaches only us, so
  // we pass INT/TERM/HUP/... on to it, as `runc run` does.
  process::SignalForwarder forward(created.init.pid);
  held.Release();
  int status = 0;
  while (::waitpid(created.init.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Status NativeBackend::Start(const ContainerRecord& c) {
  TRY(native::ReleaseInit(NativeOf(c.backend_data).fifo));
  auto spec = bundle::LoadSpec(c.bundle);
  if (spec) (void)native::RunLifecycleHooks(*spec, "poststart", json::serialize(OciState(c)));
  return Ok();
}

Status NativeBackend::Kill(const ContainerRecord& c, int signal, bool all) {
  if (all) {
    for (pid_t p : native::CgroupPids(Dirs(c.backend_data))) ::kill(p, signal);
    return Ok();
  }
  if (!proc::IsAlive(c.init)) return MakeError("container not running", ESRCH);
  if (::kill(c.init.pid, signal) != 0) return ErrnoError("kill");
  return Ok();
}

Status NativeBackend::Pause(const ContainerRecord& c) { return native::Freeze(Dirs(c.backend_data), true); }
Status NativeBackend::Resume(const ContainerRecord& c) { return native::Freeze(Dirs(c.backend_data), false); }

Result<std::vector<pid_t>> NativeBackend::Pids(const ContainerRecord& c) { return native::CgroupPids(Dirs(c.backend_data)); }

Result<std::string> NativeBackend::PsTable(const ContainerRecord& c) {
  std::ostringstream out;
  out << "PID\tCMD\n";
  auto pids = native::CgroupPids(Dirs(c.backend_data));
  // And the execs' own cgroups (ExecRequest::end_leftovers: "exec-*" below the container's).
  std::error_code ec;
  for (const auto& d : Dirs(c.backend_data))
    for (const auto& e : std::filesystem::directory_iterator(d, ec))
      if (e.is_directory(ec) && e.path().filename().string().rfind("exec-", 0) == 0)
        for (pid_t p : native::CgroupPids({e.path()}))
          if (std::find(pids.begin(), pids.end(), p) == pids.end()) pids.push_back(p);
  for (pid_t p : pids) {
    std::string cmd;
    for (const auto& a : proc::Cmdline(p)) cmd += (cmd.empty() ? "" : " ") + a;
    out << p << "\t" << cmd << "\n";
  }
  return out.str();
}

Result<json::value> NativeBackend::Stats(const ContainerRecord& c) {
  json::object data;
  for (const auto& d : Dirs(c.backend_data)) {
    auto num = [&](const char* f) { return std::strtoll(fs::ReadFile(d / f).value_or("0").c_str(), nullptr, 10); };
    if (fs::Exists(d / "memory.usage_in_bytes")) data["memory"] = {{"usage", {{"usage", num("memory.usage_in_bytes")}}}};
    if (fs::Exists(d / "memory.current")) data["memory"] = {{"usage", {{"usage", num("memory.current")}}}};
    if (fs::Exists(d / "pids.current")) data["pids"] = {{"current", num("pids.current")}};
    if (fs::Exists(d / "cpuacct.usage")) data["cpu"] = {{"usage", {{"total", num("cpuacct.usage")}}}};
  }
  // OOM kills so far; `events` reports a rise as {"type":"oom"} (as runc does).
  if (auto ooms = native::OomKills(Dirs(c.backend_data))) {
    auto& mem = data["memory"];
    if (!mem.is_object()) mem.emplace_object();
    mem.as_object()["oom_kill"] = *ooms;
  }
  return json::value{{"type", "stats"}, {"id", c.id}, {"data", data}};
}

Status NativeBackend::Update(const ContainerRecord& c, const json::object& resources) {
  return native::UpdateCgroups(Dirs(c.backend_data), resources);
}

Status NativeBackend::Undo(const ContainerStep& s) {
  if (const auto* p = std::get_if<step::Process>(&s)) {
    proc::ProcessId id{static_cast<pid_t>(p->pid), p->start};
    if (id.pid > 0 && proc::IsAlive(id)) ::kill(id.pid, SIGKILL);
    return Ok();
  }
  const auto* e = std::get_if<step::NativeContainer>(&s);
  if (!e) return MakeError("native backend cannot undo \"" + std::string(KindOf(s)) + "\"", EINVAL);
  std::vector<std::filesystem::path> dirs(e->cgroups.begin(), e->cgroups.end());
  TRY(native::DestroyCgroups(dirs));
  // poststop hooks run once the container is gone, as runc does on delete.
  if (auto spec = bundle::LoadSpec(e->bundle); spec) {
    boost::json::object st{{"ociVersion", kOciVersion}, {"id", e->id}, {"status", "stopped"},
                           {"pid", 0}, {"bundle", e->bundle}};
    (void)native::RunLifecycleHooks(*spec, "poststop", json::serialize(st));
  }
  return Ok();
}

std::vector<ContainerStep> NativeBackend::RecordedSteps(const ContainerRecord& c, const std::filesystem::path&) {
  std::vector<ContainerStep> out{step::NativeContainer{.id = c.id, .cgroups = NativeOf(c.backend_data).cgroups}};
  if (c.init.pid > 0) out.push_back(step::Process{.pid = c.init.pid, .start = c.init.start});
  return out;
}

}  // namespace sandshim::runtime
