// Kubernetes pods on gVisor: every container of a pod in the pod sandbox's one gVisor
// sandbox, as runsc's multi-container mode runs them (runsc/pod.h for the annotations).
//
// containerd's CRI plugin creates the pause container first (an ordinary sandshim gVisor
// container: it owns the sandbox and the control namespace), then each app container with
// its own `sandshim create`. An app container is made with the pause container's runsc root,
// flags and control namespace, and its spec names the pause container's runsc id as the
// sandbox to join. Its host-side stand-in is a waiter process (pod_waiter.h): runsc has no
// host process per subcontainer, and the shim learns of exits only by reaping.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/netns_scope.h"
#include "shim/core/process_run.h"
#include "shim/runsc/control_netns.h"
#include "shim/runsc/pod.h"
#include "shim/runsc/runsc_cli.h"
#include "shim/gvisor/gvisor_backend.h"
#include "shim/gvisor/pod_waiter.h"
#include "shim/runtime/record.h"

namespace sandshim::runtime {
namespace json = boost::json;

bool InPod(const ContainerRecord& c) { return !GvisorOf(c.backend_data).pod_sandbox.empty(); }

namespace {

// The pod sandbox's record as it is now; it must be a live gVisor container to be joined.
Result<ContainerRecord> LoadPodSandbox(const std::filesystem::path& root, const std::string& sandbox_id) {
  auto text = fs::ReadFile(root / sandbox_id / "state.json");
  if (!text) return MakeError("pod sandbox " + sandbox_id + " is not a sandshim container under this --root", ENOENT);
  auto rec = TRY(RecordFromJson(*text));
  if (rec.backend != "gvisor")
    return MakeError("pod sandbox " + sandbox_id + " runs on the " + rec.backend +
                         " backend: a gVisor container cannot join it",
                     EINVAL);
  if (!proc::IsAlive(rec.init)) return MakeError("pod sandbox " + sandbox_id + " is not running", ESRCH);
  return rec;
}

// Runs f with the container's stdio as ours (fds 0-2), restoring ours afterwards.
template <typename F>
auto WithStdio(std::array<UniqueFd, 3>& stdio, F f) -> decltype(f()) {
  std::array<UniqueFd, 3> saved;
  for (int fd = 0; fd < 3; ++fd) {
    saved[fd] = UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    ::dup2(stdio[fd].get(), fd);
  }
  auto out = f();
  for (int fd = 0; fd < 3; ++fd)
    if (saved[fd].valid()) ::dup2(saved[fd].get(), fd);
  return out;
}

}  // namespace

Result<Created> GvisorBackend::CreateInPod(const CreateRequest& r, ContainerJournal& j, const std::string& sandbox_id) {
  auto sandbox = TRY(LoadPodSandbox(root_, sandbox_id));
  auto flags = GvisorOf(sandbox.backend_data).flags;
  auto netns = NetnsOf(sandbox);
  auto sandbox_runsc_id = RunscId(root_, sandbox_id);
  auto cid = RunscId(root_, r.id);
  // Journal first, as for any gVisor container. The control namespace is the root's shared
  // one, which the sandbox holds: this container holds it too, and its undo lets go.
  TRY(j.Append(step::RunscContainer{.runsc_root = RunscRoot(root_).string(),
                                    .id = cid,
                                    .bundle = r.bundle.string(),
                                    .runsc_bundle = RunscBundleDir(r.state_dir).string(),
                                    .cgroups_path = r.spec.cgroups_path,
                                    .control_netns = netns.string(),
                                    .flags = flags}));
  if (runsc::IsSharedControlNetns(netns)) TRY(netns_.Hold(netns, cid, r.id));
  // The spec names the pod's network namespace; runsc joins the sandbox's anyway.
  TRY(WriteRunscBundle(r, {.flags = flags, .host_netns = "/proc/self/ns/net", .pod_sandbox_runsc_id = sandbox_runsc_id}));
  // runsc writes the sandbox's pid for every container; the waiter's replaces it below.
  TRY(ClientFor(flags, r.state_dir, netns)
          .Create(cid, {.bundle = RunscBundleDir(r.state_dir), .pid_file = r.state_dir / "sandbox.pid", .console_socket = r.console_socket}));
  auto waiter = TRY(pod::StartWaiter(r.state_dir, {ControlAddressOf(sandbox), cid, sandbox.init}));
  if (r.pid_file) TRY(fs::WriteFileAtomic(*r.pid_file, std::to_string(waiter.pid), 0644, /*sync=*/false));
  Created c;
  c.init = waiter;
  // No "control": session exec's direct path talks to a sandbox's own container only.
  c.data = GvisorData{.flags = flags,
                      .platform = GvisorOf(sandbox.backend_data).platform,
                      .network = GvisorOf(sandbox.backend_data).network,
                      .cgroups_path = r.spec.cgroups_path,
                      .control_netns = netns.string(),
                      .pod_sandbox = sandbox_id};
  return c;
}

Status GvisorBackend::StartInPod(const ContainerRecord& c) {
  // runsc hands a subcontainer the stdio `runsc start` runs with (not create's): the
  // container's, which its waiter has held since create.
  auto stdio = TRY(pod::WaiterStdio(c.init.pid));
  runsc::Global g{config_.runsc, RunscRoot(root_), GvisorOf(c.backend_data).flags, NetnsOf(c)};
  auto ran = WithStdio(stdio, [&]() -> Result<process::Outcome> {
    auto ns = TRY(NetnsScope::Enter(g.netns));  // where the sandbox's control socket is
    return process::Run({.argv = runsc::StartArgv(g, RunscId(root_, c.id)), .capture = false,
                       .timeout = std::chrono::seconds(60)});
  });
  if (!ran) return ran.error().Wrap("runsc start");
  if (!ran->Success()) {
    ::kill(c.init.pid, SIGKILL);  // nothing will run: the container reads as stopped
    return MakeError("runsc start " + c.id + ": " + ran->Describe(), EIO);
  }
  return pod::ReleaseWaiter(root_ / c.id);
}

Status GvisorBackend::KillInPod(const ContainerRecord& c, int signal, bool all) {
  auto s = ClientFor(c).Kill(RunscId(root_, c.id), signal, all);
  // Before start runsc has no process to signal; SIGKILL must end the container now. Either
  // way the waiter stands for it: its death is the exit the shim reports.
  if ((!s || signal == SIGKILL) && proc::IsAlive(c.init)) {
    ::kill(c.init.pid, signal);
    return Ok();
  }
  return s;
}

}  // namespace sandshim::runtime
