// GvisorBackend::StartExec: every exec into a gVisor sandbox, by the first means that applies.
//  1. The sandbox's control server (runsc/control, runsc/exec_args): containerManager.
//     ExecuteAsync with the caller's three descriptors, then WaitPID on the same connection,
//     whose answer makes it readable when the command exits. No host process, no runsc.
//  2. `runsc exec`, prepared here and started with posix_spawn (a terminal, a sandbox whose
//     runsc release sandshim does not speak the control protocol of, a process the control
//     call cannot express). Its --internal-pid-file says where the command's tree hangs.
//  3. Detached (runc's exec --detach, how containerd's shim runs every exec): without a
//     terminal, 1. with a keeper (core/exec_keeper.h) as the host pid the caller signals and
//     reaps, since a signal to a `runsc exec` without a terminal never reaches the command;
//     otherwise a background `runsc exec` (runsc.ExecDetached), which forwards signals to a
//     command with a terminal.
// Each returns a handle that ends the command's tree itself: through the control server
// (1: its process list and Signal calls), or through runsc (2: `runsc ps`, `runsc kill`).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <random>

#include "shim/core/cgroupfs.h"
#include "shim/core/proc.h"
#include "shim/core/exec_keeper.h"
#include "shim/core/fs.h"
#include "shim/core/wait_file.h"
#include "shim/core/log.h"
#include "shim/core/process_tree.h"
#include "shim/linux/console.h"
#include "shim/runsc/control.h"
#include "shim/runsc/exec_args.h"
#include "shim/gvisor/exec_caps.h"
#include "shim/runtime/exec_terminal.h"
#include "shim/gvisor/gvisor_backend.h"
#include "shim/runtime/record.h"

namespace sandshim::runtime {
namespace json = boost::json;
namespace {

constexpr pid_t kSandboxInit = 1;  // never part of an exec's tree

std::string RandomSuffix() {
  static std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(rng() % 1000000000);
}

// The processes of the sandbox's container as `runsc ps` lists them.
Result<std::vector<proc::ProcEntry>> RunscTable(runsc::Client& client, const std::string& rid) {
  std::vector<proc::ProcEntry> out;
  for (auto [pid, ppid] : runsc::ParsePsTable(TRY(client.Ps(rid, false)))) out.push_back({pid, ppid});
  return out;
}

// The same from the control server (containerManager.Processes, what `runsc ps` calls): the
// answer is untrusted, so no throwing conversions.
Result<std::vector<proc::ProcEntry>> ControlTable(const runsc::ControlAddress& at, const std::string& cid,
                                                  const proc::ProcessId& sandbox) {
  auto conn = TRY(runsc::ControlConnection::Connect(at, sandbox));
  auto answer = TRY(conn.Call("containerManager.Processes", json::string(cid)));
  if (!answer.is_array()) return MakeError("sandbox: Processes answered without a list", EPROTO);
  std::vector<proc::ProcEntry> out;
  for (const auto& v : answer.get_array()) {
    const auto* o = v.if_object();
    const auto* pid = o ? o->if_contains("pid") : nullptr;
    const auto* ppid = o ? o->if_contains("ppid") : nullptr;
    boost::system::error_code e1, e2;
    auto p = pid ? pid->to_number<int32_t>(e1) : 0;
    auto pp = ppid ? ppid->to_number<int32_t>(e2) : 0;
    if (!pid || !ppid || e1 || e2) return MakeError("sandbox: Processes answered an entry without pid/ppid", EPROTO);
    out.push_back({p, pp});
  }
  return out;
}

// A process inside the sandbox, started through the control server and waited on through a
// WaitPID call sent at start.
class SandboxRunning : public proc::Running {
 public:
  SandboxRunning(runsc::ControlConnection wait, pid_t pid, runsc::ControlAddress at, std::string cid,
                 proc::ProcessId sandbox, runsc::Client client, std::string rid)
      : wait_(std::move(wait)), pid_(pid), at_(std::move(at)), cid_(std::move(cid)), sandbox_(sandbox),
        client_(std::move(client)), rid_(std::move(rid)) {}
  pid_t Pid() const override { return pid_; }
  int WaitFd() const override { return wait_.fd(); }
  Result<int> Reap() override {
    auto ws = TRY(wait_.Receive());
    boost::system::error_code ec;
    auto status = ws.to_number<uint32_t>(ec);  // the sandbox is not trusted: no throwing conversions
    if (ec) return MakeError("sandbox: WaitPID answered without a status", EPROTO);
    return static_cast<int>(status);
  }
  Status Signal(int sig) override { return runsc::SignalInSandbox(at_, cid_, sandbox_, pid_, sig); }
  Status KillTree(int sig) override {
    // The process list from the control server; runsc ps only if that fails (a Sentry that
    // answers ExecuteAsync but not Processes).
    auto table = [&]() -> Result<std::vector<proc::ProcEntry>> {
      auto t = ControlTable(at_, cid_, sandbox_);
      if (t) return t;
      log::Debug("process list through the control server: " + t.error().msg + "; asking runsc ps");
      return RunscTable(client_, rid_);
    };
    auto send = [&](pid_t p, int s) { (void)runsc::SignalInSandbox(at_, cid_, sandbox_, p, s); };
    size_t n = proc::SignalTree(table, send, pid_, kSandboxInit, sig);
    log::Info("exec tree signalled: " + std::to_string(n) + " processes");
    return Signal(sig);  // the command itself, in case the list could not be read
  }

 private:
  runsc::ControlConnection wait_;
  pid_t pid_;
  runsc::ControlAddress at_;  // whose control socket
  std::string cid_;           // which container the process is in
  proc::ProcessId sandbox_;
  runsc::Client client_;
  std::string rid_;
};

// A posix_spawned `runsc exec` (a host child of ours) and the command it runs in the sandbox,
// whose pid runsc writes to internal_pid_file.
class RunscExecRunning : public proc::Running {
 public:
  RunscExecRunning(std::unique_ptr<proc::Running> child, runsc::Client client, std::string rid,
                   std::filesystem::path internal_pid_file, UniqueFd master)
      : child_(std::move(child)), client_(std::move(client)), rid_(std::move(rid)),
        internal_(std::move(internal_pid_file)), master_(std::move(master)) {}
  ~RunscExecRunning() override { ::unlink(internal_.c_str()); }
  pid_t Pid() const override { return child_->Pid(); }
  int WaitFd() const override { return child_->WaitFd(); }
  Result<int> Reap() override { return child_->Reap(); }
  Status Signal(int sig) override { return child_->Signal(sig); }  // runsc exec forwards it
  int TerminalMaster() const override { return master_.get(); }
  Status KillTree(int sig) override {
    // runsc writes the pid once the command runs; a deadline may come before that (a second
    // at most, or until runsc exec is gone).
    (void)fs::WaitForFile(internal_, child_->WaitFd(), std::chrono::steady_clock::now() + std::chrono::seconds(1));
    auto root = static_cast<pid_t>(std::atoi(fs::ReadFile(internal_).value_or("0").c_str()));
    auto send = [&](pid_t p, int s) { (void)client_.KillPid(rid_, p, s); };
    size_t n = proc::SignalTree([&] { return RunscTable(client_, rid_); }, send, root, kSandboxInit, sig);
    log::Info("exec tree signalled: " + std::to_string(n) + " processes");
    return child_->Signal(sig);
  }

 private:
  std::unique_ptr<proc::Running> child_;
  runsc::Client client_;
  std::string rid_;
  std::filesystem::path internal_;
  UniqueFd master_;
};

// runsc's boolean flag as runsc reads it: the last of --net-raw, --net-raw=true|false wins.
bool NetRaw(const std::vector<std::string>& flags) {
  bool net_raw = false;
  for (const auto& f : flags) {
    std::string_view v = f;
    if (v.rfind("--", 0) == 0) v.remove_prefix(1);  // runsc takes -flag and --flag alike
    if (v == "-net-raw") net_raw = true;
    else if (v.rfind("-net-raw=", 0) == 0) net_raw = v.substr(9) == "true" || v.substr(9) == "1";
  }
  return net_raw;
}

}  // namespace

// Whose control socket an exec into c goes through; nullopt: none that speaks our protocol.
runsc::ControlAddress GvisorBackend::ControlAddressOf(const ContainerRecord& sandbox) const {
  return {.kind = runsc::ControlSocketOf(GvisorOf(sandbox.backend_data).control),
          .sandbox_id = RunscId(root_, sandbox.id),
          .runsc_root = RunscRoot(root_),
          .netns = NetnsOf(sandbox)};
}

std::optional<GvisorBackend::ControlTarget> GvisorBackend::ControlTargetOf(const ContainerRecord& c) const {
  if (!InPod(c)) {
    auto at = ControlAddressOf(c);
    if (at.kind == runsc::ControlSocket::kNone) return std::nullopt;
    return ControlTarget{std::move(at), c.init};
  }
  auto text = fs::ReadFile(root_ / GvisorOf(c.backend_data).pod_sandbox / "state.json");
  auto sandbox = text ? RecordFromJson(*text) : Result<ContainerRecord>(text.error());
  if (!sandbox || sandbox->backend != "gvisor") return std::nullopt;
  auto at = ControlAddressOf(*sandbox);
  if (at.kind == runsc::ControlSocket::kNone) return std::nullopt;
  return ControlTarget{std::move(at), sandbox->init};
}

Result<std::unique_ptr<proc::Running>> GvisorBackend::StartExec(const ContainerRecord& c, const ExecRequest& asked,
                                                               const ExecStdio& stdio) {
  // gVisor starts the process without an execve: give it the sets one would leave (N11).
  ExecRequest r = asked;
  auto spec = bundle::LoadSpec(c.bundle);
  const json::object* proc = spec ? bundle::GetObject(spec->doc, "process") : nullptr;
  r.process = ExecveCaps(std::move(r.process), proc ? bundle::GetObject(*proc, "capabilities") : nullptr);
  if (r.preserve_fds > 0) return MakeError("--preserve-fds is not supported by the gvisor backend", ENOTSUP);
  if (r.detach && stdio.extra.empty()) return ExecDetached(c, r, stdio);
  if (!stdio.terminal && !r.detach)
    if (auto direct = TRY(ExecThroughControl(c, r, stdio))) return direct;
  // runsc exec passes its own stdio only.
  if (!stdio.extra.empty()) return MakeError("extra descriptors need the sandbox's control server", ENOTSUP);
  return ExecThroughRunsc(c, r, stdio);
}

// nullptr when the control server cannot take this exec (then runsc exec).
Result<std::unique_ptr<proc::Running>> GvisorBackend::ExecThroughControl(const ContainerRecord& c, const ExecRequest& r,
                                                                        const ExecStdio& stdio) {
  std::unique_ptr<proc::Running> none;
  auto cid = RunscId(root_, c.id);
  // A sandbox's own container: its id is the sandbox's, its pid the sandbox's as recorded
  // (checked against its start time before this call). A container in a pod sandbox (a
  // session's credential context) is reached through the sandbox it runs in.
  auto target = ControlTargetOf(c);
  if (!target) return none;
  auto args = TRY(runsc::ExecArgsFor(r.process, cid, NetRaw(GvisorOf(c.backend_data).flags)));
  if (!args) return none;
  auto conn = runsc::ControlConnection::Connect(target->at, target->sandbox);
  if (!conn) {
    log::Debug(conn.error().msg + ": exec through runsc");
    return none;
  }
  // Unlike runsc exec, nothing is done to the stdio first: runsc chowns it to the container's
  // user (a caller's /dev/null included); the Sentry serves it without that (a uid-1000
  // command reopens /dev/stdout on our root-owned pipe fine).
  // The payload's files become the command's fds in order (the Sentry's fdimport.Import
  // numbers them by position): stdio, then the extra ones as 3, 4, ...
  std::vector<int> files(stdio.fds.begin(), stdio.fds.end());
  files.insert(files.end(), stdio.extra.begin(), stdio.extra.end());
  runsc::SetGuestFds(*args, files.size());
  runsc::ProtectStdio({stdio.fds[1], stdio.fds[2]});
  if (r.start_deadline) conn->SetDeadline(*r.start_deadline);
  auto answer = conn->Call("containerManager.ExecuteAsync", *args, files);
  if (!answer) {
    // The Sentry's words for a command that is not there (what a shell reports as 127): by
    // name ("error finding executable") or by path ("failed to load /x: no such file or
    // directory"), on 2022's and 2024's runsc alike.
    // One that is there but cannot be run ("failed to load /x: permission denied": a file
    // without x bits, a directory) is 126, as a shell and runc report it.
    const auto& msg = answer.error().msg;
    bool load = msg.find("failed to load") != std::string::npos;
    bool missing = msg.find("error finding executable") != std::string::npos ||
                   (load && msg.find("no such file or directory") != std::string::npos);
    bool denied = load && (msg.find("permission denied") != std::string::npos ||
                           msg.find("is a directory") != std::string::npos);
    return MakeError(answer.error().msg, missing ? ENOENT : denied ? EACCES : answer.error().err_no);
  }
  boost::system::error_code ec;
  auto p = answer->to_number<int32_t>(ec);
  if (ec || p <= 0) return MakeError("sandbox: ExecuteAsync answered without a pid", EPROTO);
  if (auto sent = conn->Send("containerManager.WaitPID", json::object{{"PID", p}, {"CID", cid}}); !sent) {
    // Started but nobody would wait for it: end it rather than leave it running.
    (void)runsc::SignalInSandbox(target->at, cid, target->sandbox, p, SIGKILL);
    return sent.error();
  }
  return std::unique_ptr<proc::Running>(
      std::make_unique<SandboxRunning>(std::move(*conn), p, target->at, cid, target->sandbox, ClientFor(c), cid));
}

// The sandbox's host cgroups, read from its process (wherever runsc or a caller put it):
// where its keeper belongs. Never a hierarchy's root.
static std::vector<std::filesystem::path> SandboxCgroupDirs(const ContainerRecord& c) {
  std::vector<std::filesystem::path> dirs;
  auto text = fs::ReadFile("/proc/" + std::to_string(c.init.pid) + "/cgroup");
  if (!text || !proc::IsAlive(c.init)) return dirs;
  auto theirs = cgroupfs::ParseProcCgroup(*text);
  for (const auto& h : cgroupfs::Hierarchies())
    if (auto d = cgroupfs::OwnDir(h, theirs); d != h.mount) dirs.push_back(std::move(d));
  return dirs;
}

Result<std::unique_ptr<proc::Running>> GvisorBackend::ExecThroughRunsc(const ContainerRecord& c, const ExecRequest& r,
                                                                      const ExecStdio& stdio) {
  auto client = ClientFor(c);
  auto rid = RunscId(root_, c.id);
  // runsc writes it in about a millisecond; KillTree needs it.
  auto internal = root_ / c.id / ("exec-" + std::to_string(::getpid()) + "-" + RandomSuffix() + ".pid");
  // A terminal: a host pty whose slave is runsc exec's stdio and controlling terminal (runsc
  // presents it as the command's terminal); its master goes to the console socket or stays
  // with the handle.
  UniqueFd master;
  std::string slave_path;
  if (stdio.terminal && stdio.console_socket) {
    UniqueFd sock(TRY(native::ConnectConsoleSocket(stdio.console_socket->string())));
    UniqueFd slave(TRY(native::OpenPtySendingMaster(sock.get())));
    std::error_code ec;
    slave_path = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(slave.get()), ec).string();
    if (ec) return MakeError("pty slave: " + ec.message(), ec.value());
  } else if (stdio.terminal) {
    auto pty = TRY(OpenHostPty());
    master = std::move(pty.master);
    slave_path = pty.slave_path;
  }
  std::vector<int> inherited;
  for (int i = 0; i < 3 && !stdio.terminal; ++i)
    if (stdio.fds[i] == i) inherited.push_back(i);
  auto l = TRY(client.ExecLaunch(rid, json::serialize(r.process), {.internal_pid_file = internal}, inherited));
  if (stdio.terminal) {
    l.new_session = true;
    l.Open(slave_path, O_RDWR, 0);  // without O_NOCTTY: the new session's controlling terminal
    l.Dup(0, 1);
    l.Dup(0, 2);
  } else {
    for (int i = 0; i < 3; ++i)
      if (stdio.fds[i] != i) l.Dup(stdio.fds[i], i);
  }
  sigset_t none;
  sigemptyset(&none);
  l.sigmask = none;  // whatever the caller blocks for itself, the command gets every signal
  l.cgroups = SandboxCgroupDirs(c);  // runsc exec stands for the command: charged where it runs
  pid_t pid = TRY(process::Spawn(l)).Release();  // HostChild below owns it
  l.owned.clear();
  auto child = TRY(proc::HostChild(pid));
  return std::unique_ptr<proc::Running>(
      std::make_unique<RunscExecRunning>(std::move(child), std::move(client), rid, internal, std::move(master)));
}

Result<std::unique_ptr<proc::Running>> GvisorBackend::ExecDetached(const ContainerRecord& c, const ExecRequest& r,
                                                                  const ExecStdio& stdio) {
  if (stdio.terminal && !stdio.console_socket)
    return MakeError("a detached exec with a terminal needs a console socket", EINVAL);
  if (!stdio.terminal)
    if (auto direct = TRY(ExecThroughControl(c, r, stdio)))
      return proc::Detached(TRY(proc::StartExecKeeper(std::move(direct), SandboxCgroupDirs(c))));
  auto dir = root_ / c.id;
  auto process_file = dir / ("exec-" + std::to_string(::getpid()) + "-" + RandomSuffix() + ".json");
  TRY(fs::WriteFileAtomic(process_file, json::serialize(r.process), 0600, /*sync=*/false));
  // The terminal is ours to make (exec_terminal.h): runsc would ignore the console socket.
  std::unique_ptr<TerminalStdio> tty;
  if (stdio.console_socket) {
    auto opened = TerminalStdio::Open(*stdio.console_socket);
    if (!opened) ::unlink(process_file.c_str());
    tty = TRY(std::move(opened));
  }
  auto internal = dir / ("exec-" + std::to_string(::getpid()) + "-" + RandomSuffix() + ".pid");
  auto pid = ClientFor(c).ExecDetached(RunscId(root_, c.id), {.process_file = process_file}, internal,
                                       SandboxCgroupDirs(c));
  tty.reset();
  ::unlink(process_file.c_str());
  ::unlink(internal.c_str());
  if (!pid) return pid.error();
  return proc::Detached(*pid);
}

// The control server's list (one call; `runsc ps` is a runsc process start, ~40 ms of the
// first context create, which checks the session's container is idle); runsc ps if the
// sandbox cannot answer it.
Result<size_t> GvisorBackend::ProcessCount(const ContainerRecord& c) {
  if (auto target = ControlTargetOf(c)) {
    auto t = ControlTable(target->at, RunscId(root_, c.id), target->sandbox);
    if (t) return t->size();
    log::Debug("process list through the control server: " + t.error().msg + "; asking runsc ps");
  }
  return Backend::ProcessCount(c);
}

}  // namespace sandshim::runtime
