// NativeBackend::StartExec: an exec into a native container is a forked child of ours that
// enters the container's namespaces, cgroups and keyring (native::ExecInto) and waits there
// for the command, forwarding the signals it gets. The handle ends the command's tree from
// the container's cgroups: every process in them below our child, read with its parent from
// /proc, host pids throughout. A terminal is made inside the container (its devpts) and its
// master comes back over a console socket: the caller's, or one of ours whose master the
// handle keeps.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <random>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/process_tree.h"
#include "shim/core/scope_exit.h"
#include "shim/core/self_clone.h"
#include "shim/linux/cgroups.h"
#include "shim/native/launcher.h"
#include "shim/runtime/exec_terminal.h"
#include "shim/native/native_backend.h"

namespace sandshim::runtime {
namespace {

std::vector<std::filesystem::path> CgroupDirsOf(const ContainerRecord& c) {
  std::vector<std::filesystem::path> out;
  for (const auto& d : NativeOf(c.backend_data).cgroups) out.emplace_back(d);
  return out;
}

// Every process in the container's cgroups with its parent (host pids).
std::vector<proc::ProcEntry> CgroupTable(const std::vector<std::filesystem::path>& dirs) {
  std::vector<proc::ProcEntry> out;
  for (pid_t p : native::CgroupPids(dirs)) {
    auto stat = fs::ReadFile("/proc/" + std::to_string(p) + "/stat");
    if (!stat) continue;
    auto close = stat->rfind(')');
    if (close == std::string::npos) continue;
    pid_t ppid = 0;
    char state = 0;
    if (std::sscanf(stat->c_str() + close + 1, " %c %d", &state, &ppid) == 2) out.push_back({p, ppid});
  }
  return out;
}

std::string RandomSuffix() {
  static std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(rng() % 1000000000);
}

class NativeExecRunning : public proc::Running {
 public:
  NativeExecRunning(std::unique_ptr<proc::Running> child, pid_t init, std::vector<std::filesystem::path> cgroups,
                    UniqueFd master, std::vector<std::filesystem::path> own)
      : child_(std::move(child)), init_(init), cgroups_(std::move(cgroups)), master_(std::move(master)), own_(std::move(own)) {}
  pid_t Pid() const override { return child_->Pid(); }
  int WaitFd() const override { return child_->WaitFd(); }
  Result<int> Reap() override {
    auto r = child_->Reap();
    // The exec's own cgroups (ExecRequest::end_leftovers): our child ended them, unless it
    // was killed first (a --timeout): then here.
    if (!own_.empty())
      if (auto s = native::DestroyCgroups(own_); !s) log::Warn("exec: its leftovers: " + s.error().msg);
    return r;
  }
  Status Signal(int sig) override { return child_->Signal(sig); }  // our child forwards it
  int TerminalMaster() const override { return master_.get(); }
  Status KillTree(int sig) override {
    // Our child is not in the container's cgroup; what it started there hangs below it (or
    // in the exec's own cgroups, every process of which is the exec's).
    for (pid_t p : native::CgroupPids(own_)) (void)::kill(p, sig);
    auto table = [&]() -> Result<std::vector<proc::ProcEntry>> { return CgroupTable(cgroups_); };
    auto send = [](pid_t p, int s) { (void)::kill(p, s); };
    size_t n = proc::SignalTree(table, send, child_->Pid(), init_, sig);
    log::Info("exec tree signalled: " + std::to_string(n) + " processes");
    return child_->Signal(sig);
  }

 private:
  std::unique_ptr<proc::Running> child_;
  pid_t init_;
  std::vector<std::filesystem::path> cgroups_;
  UniqueFd master_;
  std::vector<std::filesystem::path> own_;
};

// ExecRequest::end_leftovers: a cgroup of the exec's own below each of the container's that
// exists, which its processes join instead (ExecInto) and which is ended with its command.
Result<std::vector<std::filesystem::path>> OwnCgroups(const std::vector<std::filesystem::path>& dirs) {
  std::vector<std::filesystem::path> out;
  std::string name = "exec-" + std::to_string(::getpid()) + "-" + RandomSuffix();
  for (const auto& d : dirs) {
    if (!fs::Exists(d)) continue;  // (a hierarchy the container has no directory in)
    if (::mkdir((d / name).c_str(), 0755) != 0) {
      (void)native::DestroyCgroups(out);
      return ErrnoError("exec: a cgroup of its own in " + d.string());
    }
    out.push_back(d / name);
  }
  return out;
}

// Waits for the pty master on our console socket, or for the child to end first (it failed
// before making a terminal: its status says why).
Result<UniqueFd> AwaitMaster(int listener, proc::Running& child) {
  for (;;) {
    pollfd fds[2] = {{listener, POLLIN, 0}, {child.WaitFd(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("poll console socket");
    }
    if (fds[0].revents) return ReceiveMaster(listener);
    if (fds[1].revents) return UniqueFd();
  }
}

}  // namespace

Result<std::unique_ptr<proc::Running>> NativeBackend::StartExec(const ContainerRecord& c, const ExecRequest& r,
                                                               const ExecStdio& stdio) {
  if (!RunningFromSealedCopy()) log::Warn("native exec running from the sandshim file, not a sealed copy");
  auto p = TRY(native::ProcessPlanFrom(r.process));
  auto spec = TRY(bundle::LoadSpec(c.bundle));
  auto plan = TRY(native::PlanFromSpec(spec, c.bundle));
  if (!stdio.extra.empty() && (r.detach || r.preserve_fds > 0))
    return MakeError("extra descriptors are given to a foreground exec without --preserve-fds only", ENOTSUP);
  const int extra = static_cast<int>(stdio.extra.size());
  native::ExecOptions o{c.init.pid, CgroupDirsOf(c), std::nullopt, r.detach, r.preserve_fds + extra,
                        NativeOf(c.backend_data).keyring};
  if (r.end_leftovers && !r.detach) o.own_cgroups = TRY(OwnCgroups(o.cgroups));
  // (Ended by the handle once it exists; until then, by this.)
  bool handed = false;
  ScopeExit drop([&] {
    if (!handed && !o.own_cgroups.empty()) (void)native::DestroyCgroups(o.own_cgroups);
  });
  if (stdio.console_socket) o.console_socket = stdio.console_socket->string();
  if (r.detach) {
    if (stdio.terminal && !stdio.console_socket)
      return MakeError("a detached exec with a terminal needs a console socket", EINVAL);
    return proc::Detached(TRY(native::ExecInto(p, plan.seccomp, o)));
  }
  UniqueFd listener;
  std::filesystem::path own_socket;
  if (stdio.terminal && !stdio.console_socket) {
    own_socket = root_ / c.id / ("tty-" + std::to_string(::getpid()) + "-" + RandomSuffix() + ".sock");
    listener = TRY(ListenConsole(own_socket));
    o.console_socket = own_socket.string();
  }
  o.caller = ::getpid();  // the forked exec ends its command if we die (SIGKILL'd client)
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork");
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);  // whatever the caller blocks for itself, the command gets every signal
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Out of the caller's session (its terminal, its ^C): the handle forwards the signals
    // meant for the command, and nothing started here may reach the caller's terminal.
    ::setsid();
    if (!stdio.terminal)
      for (int i = 0; i < 3; ++i)
        if (stdio.fds[i] != i) ::dup2(stdio.fds[i], i);  // dup2 leaves the copies inheritable
    // The extra ones as 3, 4, ...: first out of the way of every target number (a source
    // may sit on another's target), then into place; ExecInto keeps 3..3+extra open.
    std::vector<int> moved;
    for (int fd : stdio.extra) moved.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 3 + extra));
    for (int i = 0; i < extra; ++i)
      if (moved[i] < 0 || ::dup2(moved[i], 3 + i) < 0) ::_exit(125);
    auto status = native::ExecInto(p, plan.seccomp, o);
    if (status) ::_exit(*status);
    std::cerr << "sandshim: exec " << c.id << ": " << status.error().msg << "\n";
    // The command did not start: a shell's statuses (not there 127, not executable 126).
    int err = status.error().err_no;
    ::_exit(err == ENOENT ? 127 : err == EACCES ? 126 : 125);
  }
  auto child = TRY(proc::HostChild(pid));
  UniqueFd master;
  if (listener.valid()) {
    auto got = AwaitMaster(listener.get(), *child);
    ::unlink(own_socket.c_str());
    if (!got) {
      (void)child->Signal(SIGKILL);
      (void)child->Reap();
      return got.error();
    }
    master = std::move(*got);
  }
  handed = true;
  return std::unique_ptr<proc::Running>(std::make_unique<NativeExecRunning>(std::move(child), c.init.pid, CgroupDirsOf(c),
                                                                            std::move(master), o.own_cgroups));
}

}  // namespace sandshim::runtime
