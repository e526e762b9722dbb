#include "shim/native/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/self_clone.h"
#include "shim/core/signal_forwarder.h"
#include "shim/core/unique_fd.h"
#include "shim/linux/cgroups.h"
#include "shim/linux/console.h"
#include "shim/native/init.h"
#include "shim/native/keyring.h"
#include "shim/native/ns_order.h"

namespace sandshim::native {
namespace {

// clone3's argument block (linux/sched.h's struct clone_args, which clashes with <sched.h>).
struct CloneArgs {
  uint64_t flags = 0, pidfd = 0, child_tid = 0, parent_tid = 0, exit_signal = 0, stack = 0, stack_size = 0, tls = 0,
           set_tid = 0, set_tid_size = 0, cgroup = 0;
};
constexpr uint64_t kCloneIntoCgroup = 0x200000000ULL;

pid_t CloneInto(int flags, int cgroup2_dir, bool* in_cgroup2) {
  // Like fork(), but the child starts in the new namespaces (and as pid 1 of a new pid ns).
  // Not process::Spawn: the child does not exec at once but runs the container's setup in
  // our memory image (init.cc), and needs namespace flags; the exec path below forks twice
  // for the same reason (setns, then a child that lands in the joined pid namespace).
  *in_cgroup2 = false;
  if (cgroup2_dir >= 0) {
    CloneArgs a;
    a.flags = static_cast<uint64_t>(static_cast<unsigned>(flags)) | kCloneIntoCgroup;
    a.exit_signal = SIGCHLD;
    a.cgroup = static_cast<uint64_t>(cgroup2_dir);
    long pid = ::syscall(SYS_clone3, &a, sizeof a);
    if (pid >= 0) {
      *in_cgroup2 = true;
      return static_cast<pid_t>(pid);
    }
    // Refused (an old kernel, a cgroup that takes no process): the plain clone, moved later.
  }
  return static_cast<pid_t>(::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0));
}

// The namespaces the init cannot join itself (ns_order.h: a pid namespace by path, and with
// a new user namespace every namespace by path) are joined here around the clone, as runc's
// nsexec does: our pid_for_children and this thread's net/ipc/uts are switched to them, the
// clone inherits them (and makes the new userns inside them), and we switch back to ours.
class JoinedAround {
 public:
  ~JoinedAround() { (void)Restore(); }
  Status Join(int flag, const std::string& path, const char* self) {
    UniqueFd target(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), ours(::open(self, O_RDONLY | O_CLOEXEC));
    if (!target.valid() || !ours.valid()) return ErrnoError("open namespace " + path);
    if (::setns(target.get(), flag) != 0) return ErrnoError("join namespace " + path);
    back_.emplace_back(std::move(ours), flag);
    return Ok();
  }
  Status Restore() {
    Status result = Ok();
    for (; !back_.empty(); back_.pop_back())
      if (::setns(back_.back().first.get(), back_.back().second) != 0 && result) result = ErrnoError("return to our namespace");
    return result;
  }

 private:
  std::vector<std::pair<UniqueFd, int>> back_;
};

const char* OwnNamespaceFile(int flag) {
  switch (flag) {
    case CLONE_NEWPID: return "/proc/thread-self/ns/pid_for_children";
    case CLONE_NEWNET: return "/proc/thread-self/ns/net";
    case CLONE_NEWIPC: return "/proc/thread-self/ns/ipc";
    case CLONE_NEWUTS: return "/proc/thread-self/ns/uts";
    default: return nullptr;
  }
}

Result<pid_t> CloneInit(const LaunchPlan& plan, int cgroup2_dir, bool* in_cgroup2) {
  // The cgroup namespace is made by the init once it is in its cgroups (after before_go),
  // so its root is the container's cgroup, not ours (as runc does).
  int flags = plan.clone_flags & ~CLONE_NEWCGROUP;
  JoinedAround joined;
  for (const auto& ns : plan.namespaces) {
    if (ns.path.empty() || !JoinedAroundClone(plan, ns.flag) || !OwnNamespaceFile(ns.flag)) continue;
    TRY(joined.Join(ns.flag, ns.path, OwnNamespaceFile(ns.flag)));
    flags &= ~ns.flag;
  }
  pid_t pid = CloneInto(flags, cgroup2_dir, in_cgroup2);
  if (pid == 0) return pid;  // the init: it lives in those namespaces, nothing to switch back
  int clone_errno = errno;
  if (auto s = joined.Restore(); !s) {
    if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
    return s.error();
  }
  if (pid < 0) return MakeError(std::string("clone the container init: ") + std::strerror(clone_errno), clone_errno);
  return pid;
}

std::string NamespaceFileName(int flag) {
  switch (flag) {
    case CLONE_NEWUSER: return "user";
    case CLONE_NEWIPC: return "ipc";
    case CLONE_NEWUTS: return "uts";
    case CLONE_NEWNET: return "net";
    case CLONE_NEWPID: return "pid";
    case CLONE_NEWCGROUP: return "cgroup";
    default: return "mnt";
  }
}

// /proc files cannot be replaced by rename: write them in place.
Status WriteProcFile(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return ErrnoError("write " + path);
  return Ok();
}

Status SetIdMaps(pid_t pid, const LaunchPlan& plan) {
  if (!(plan.clone_flags & CLONE_NEWUSER)) return Ok();
  std::string base = "/proc/" + std::to_string(pid);
  TRY(WriteProcFile(base + "/uid_map", IdMapText(plan.uid_map)));
  TRY(WriteProcFile(base + "/gid_map", IdMapText(plan.gid_map.empty() ? plan.uid_map : plan.gid_map)));
  return Ok();
}

Result<std::string> AwaitReady(int sync, pid_t pid) {
  pollfd p{sync, POLLIN, 0};
  if (::poll(&p, 1, 60000) <= 0) return MakeError("container init did not finish its setup within 60s", ETIMEDOUT);
  char buf[4096];
  ssize_t n = ::recv(sync, buf, sizeof buf, 0);
  if (n <= 0) {
    int status = 0;
    ::waitpid(pid, &status, WNOHANG);
    return MakeError("container init exited during setup", EIO);
  }
  return std::string(buf, static_cast<size_t>(n));
}

// After 'P' an init that failed its early setup said why and went; what we then failed at
// (moving a dead pid into a cgroup) is only the consequence.
std::optional<Error> InitsWord(int sync) {
  char buf[4096];
  ssize_t n = ::recv(sync, buf, sizeof buf, MSG_DONTWAIT);
  if (n <= 1 || buf[0] != 'E') return std::nullopt;
  return MakeError(std::string(buf + 1, static_cast<size_t>(n - 1)), EIO);
}

}  // namespace

std::string IdMapText(const std::vector<IdMap>& maps) {
  std::string out;
  for (const auto& m : maps)
    out += std::to_string(m.container) + " " + std::to_string(m.host) + " " + std::to_string(m.size) + "\n";
  return out;
}

Result<pid_t> Launch(const LaunchPlan& plan, const LaunchOptions& o) {
  UniqueFd fifo;
  if (!o.fifo.empty()) {
    if (::mkfifo(o.fifo.c_str(), 0600) != 0 && errno != EEXIST) return ErrnoError("mkfifo " + o.fifo.string());
    fifo.Reset(::open(o.fifo.c_str(), O_RDWR | O_CLOEXEC));
    if (!fifo.valid()) return ErrnoError("open " + o.fifo.string());
  }
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return ErrnoError("socketpair");
  UniqueFd parent_end(sv[0]), child_end(sv[1]);
  UniqueFd console;
  if (o.console_socket) console.Reset(TRY(ConnectConsoleSocket(*o.console_socket)));
  // The sealed overlay's mount fd (self_clone.h): both copies are closed right after the
  // clone, the init's last, so the RCU grace period its close waits for passes in the init
  // while we set up the cgroups, instead of in the runtime before the re-exec.
  int sealed = TakeSealedMountFd();
  bool in_cgroup2 = false;
  pid_t pid = TRY(CloneInit(plan, o.early_setup ? o.cgroup2_dir : -1, &in_cgroup2));
  if (sealed >= 0) ::close(sealed);
  if (pid == 0) {
    parent_end.release();
    RunInit(plan,
            InitFds{child_end.get(), fifo.valid() ? fifo.get() : -1, console.valid() ? console.get() : -1,
                    o.early_setup ? o.self_join : std::vector<int>{}},
            o.preserve_fds);
  }
  child_end.Reset();
  fifo.Reset();
  console.Reset();
  auto fail = [&](Error e) -> Result<pid_t> {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return e;
  };
  if (auto s = SetIdMaps(pid, plan); !s) return fail(s.error());
  // 'P': the init sets up what needs no cgroups while we place it (the first cgroup.procs
  // write of a v1 host sleeps through an RCU grace period): the two overlap.
  if (o.early_setup && ::send(parent_end.get(), "P", 1, MSG_NOSIGNAL) != 1)
    return fail(ErrnoError("signal the container init"));
  if (o.before_go)
    if (auto s = o.before_go(pid, in_cgroup2); !s) return fail(InitsWord(parent_end.get()).value_or(s.error()));
  int go_errno = ::send(parent_end.get(), "G", 1, MSG_NOSIGNAL) == 1 ? 0 : errno;
  // An init whose early setup failed has said why and gone: its word, not our EPIPE.
  auto answer = AwaitReady(parent_end.get(), pid);
  if (answer && *answer != "R") return fail(MakeError(answer->substr(1), EIO));
  if (go_errno) return fail(MakeError(std::string("signal the container init: ") + std::strerror(go_errno), go_errno));
  if (!answer) return fail(answer.error());
  return pid;
}

Status ReleaseInit(const std::filesystem::path& fifo) {
  // Non-blocking: with no reader left (the init died) this fails at once instead of hanging.
  UniqueFd fd(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + fifo.string() + " (container init gone?)");
  // A read end of our own, never read from (the byte is the init's): it reports a hang-up
  // once no writer is left, that is when the init's close-on-exec descriptor went with its
  // execve (or the init died). Only then has the workload started: a `kill` after `start`
  // must reach it, not sandshim's init (runc's exec.fifo gives the same promise).
  UniqueFd watch(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!watch.valid()) return ErrnoError("open " + fifo.string());
  if (::write(fd.get(), "0", 1) != 1) return ErrnoError("release the container init");
  fd.Reset();
  ::unlink(fifo.c_str());
  pollfd p{watch.get(), 0, 0};
  while (!(p.revents & (POLLHUP | POLLERR))) {
    p.revents = 0;
    if (::poll(&p, 1, -1) < 0 && errno != EINTR) return ErrnoError("wait for the container process to start");
  }
  return Ok();
}

namespace {
// The caller's death (PR_SET_PDEATHSIG): a real-time signal nobody forwards or sends else.
volatile sig_atomic_t g_caller_gone = 0;
void OnCallerGone(int) { g_caller_gone = 1; }
int CallerGoneSignal() { return SIGRTMIN + 3; }

void WatchCaller(pid_t caller) {
  struct sigaction sa {};
  sa.sa_handler = OnCallerGone;  // no SA_RESTART: the waitpid below returns EINTR
  ::sigaction(CallerGoneSignal(), &sa, nullptr);
  ::prctl(PR_SET_PDEATHSIG, CallerGoneSignal(), 0, 0, 0);
  if (::getppid() != caller) g_caller_gone = 1;  // gone before the prctl
}

// The caller died: nobody waits for this exec. Its command goes, with everything in the
// exec's own cgroups (what it started); without those (--keep), the command alone.
void EndForCaller(const ExecOptions& o, pid_t child) {
  g_caller_gone = 0;
  if (!o.own_cgroups.empty()) {
    if (auto s = DestroyCgroups(o.own_cgroups); !s) log::Warn("exec: its caller gone: " + s.error().msg);
  } else if (child > 0) {
    (void)::kill(child, SIGKILL);
  }
}
}  // namespace

// The exec's child (forked, maybe in the container's namespaces already): its one-line
// complaint, then its exit.
[[noreturn]] static void ExecChildFail(const std::string& what, int code = 127) {
  std::string m = "sandshim exec: " + what + "\n";
  (void)!::write(2, m.data(), m.size());
  ::_exit(code);
}

// The exec's command failed before its execve: its errno (negated, where the pid would go)
// and message, for the runtime to report as the exec's error.
static void ReportStartFailure(int fd, const Error& e) {
  pid_t code = -(e.err_no > 0 ? e.err_no : EIO);
  std::string m(reinterpret_cast<const char*>(&code), sizeof code);
  m += e.msg;
  (void)!::write(fd, m.data(), m.size());  // one write below PIPE_BUF: nothing is waited for
  ::close(fd);
}

// Copies a failure from `fail` (closed by a successful execve: nothing) to `to`; whether one came.
static bool ForwardStartFailure(int fail, int to) {
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = ::read(fail, buf.data(), buf.size())) < 0 && errno == EINTR) {
  }
  if (n <= 0) return false;
  (void)!::write(to, buf.data(), static_cast<size_t>(n));
  return true;
}

static int ReapQuietly(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return 126;
}

// The exec's command (forked in the container's namespaces and root): its own session (no
// controlling terminal of the caller's: /dev/tty is ENXIO, TIOCSTI has no target) and the
// container's keyring, as runc's exec does; a failure before the execve goes to `fail`.
[[noreturn]] static void StartCommand(const ProcessPlan& p, const SeccompPlan& seccomp, const ExecOptions& o,
                                      int console, const sigset_t& mask, int fail) {
  ::setsid();
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (!o.keyring.empty())
    if (auto s = JoinSessionKeyring(o.keyring); !s) ExecChildFail(s.error().msg);
  if (console >= 0)
    if (auto s = SetupConsole(console); !s) ExecChildFail(s.error().msg);
  Error e = FinalizeAndExec(p, seccomp, o.preserve_fds);
  ReportStartFailure(fail, e);
  ::_exit(e.err_no == ENOENT ? 127 : 126);
}

static std::string ReadAll(int fd) {
  std::string out;
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf.data(), static_cast<size_t>(n));
  return out;
}

// The container init's namespaces to join, as fds from the host's view, in kExecJoinOrder:
// the user namespace last, so a netns owned by the host's userns (a session's proxy or host
// network) is still ours to join. One we share is skipped; our own mount namespace (a spec
// without one) gives `root` instead: the container's root is a detached tree
// (EnterDetachedRoot) that no setns gives us, and its init's root is the way in.
static Status OpenExecNamespaces(pid_t init, std::vector<std::pair<UniqueFd, int>>& nss, UniqueFd& root) {
  for (int flag : kExecJoinOrder) {
    std::string name = NamespaceFileName(flag);
    std::string theirs = "/proc/" + std::to_string(init) + "/ns/" + name;
    struct stat a, b;
    if (::stat(theirs.c_str(), &a) != 0) return ErrnoError("container init " + std::to_string(init) + " gone");
    if (::stat(("/proc/self/ns/" + name).c_str(), &b) == 0 && a.st_ino == b.st_ino) {
      if (flag == CLONE_NEWNS) {
        root.Reset(::open(("/proc/" + std::to_string(init) + "/root").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (!root.valid()) return ErrnoError("open the root of container init " + std::to_string(init));
      }
      continue;
    }
    UniqueFd fd(::open(theirs.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return ErrnoError("open " + theirs);
    nss.emplace_back(std::move(fd), flag);
  }
  return Ok();
}

Result<int> ExecInto(const ProcessPlan& p, const SeccompPlan& seccomp, const ExecOptions& o) {
  std::vector<std::pair<UniqueFd, int>> nss;
  UniqueFd root;
  TRY(OpenExecNamespaces(o.init, nss, root));
  UniqueFd console;
  if (p.terminal) {
    if (!o.console_socket) return MakeError("exec --tty needs --console-socket", EINVAL);
    console.Reset(TRY(ConnectConsoleSocket(*o.console_socket)));
  }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return ErrnoError("pipe");
  UniqueFd rd(pipefd[0]), wr(pipefd[1]);
  process::HeldSignals held;  // the caller's handle may signal us before the forwarder is in place
  pid_t mid = ::fork();
  if (mid < 0) return ErrnoError("fork");
  if (mid == 0) {
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    // We are one thread moving itself: "0" into a v1 `tasks` file takes no global lock and
    // waits for no RCU grace period (cgroups.h, OpenSelfJoin); cgroup2 has no such file.
    std::string self = std::to_string(::getpid());
    for (const auto& dir : o.own_cgroups.empty() ? o.cgroups : o.own_cgroups) {
      if (UniqueFd t(::open((dir / "tasks").c_str(), O_WRONLY | O_CLOEXEC)); t.valid()) {
        (void)!::write(t.get(), "0", 1);
        continue;
      }
      UniqueFd f(::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
      if (f.valid()) (void)!::write(f.get(), self.data(), self.size());
    }
    for (auto& [fd, flag] : nss)
      if (::setns(fd.get(), flag) != 0) ExecChildFail("setns: " + std::string(std::strerror(errno)));
    if (root.valid() && (::fchdir(root.get()) != 0 || ::chroot(".") != 0 || ::chdir("/") != 0))
      ExecChildFail("enter the container's root: " + std::string(std::strerror(errno)));
    int fail[2];  // the command's start failure, as runc's exec reports it: an error, not a status
    if (::pipe2(fail, O_CLOEXEC) != 0) ExecChildFail("pipe: " + std::string(std::strerror(errno)));
    pid_t child = ::fork();  // only a child of ours enters the joined pid namespace
    if (child == 0) {
      ::close(fail[0]);
      StartCommand(p, seccomp, o, console.get(), held.before(), fail[1]);
    }
    ::close(fail[1]);
    // Nothing comes before the execve closes it; a failure goes up in place of the pid.
    if (ForwardStartFailure(fail[0], wr.get())) ::_exit(ReapQuietly(child));
    ::close(fail[0]);
    (void)!::write(wr.get(), &child, sizeof child);
    if (o.detach) ::_exit(0);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  wr.Reset();
  pid_t child = 0;
  if (::read(rd.get(), &child, sizeof child) != sizeof child) child = 0;
  if (child < 0) {  // the command could not start (not there, not executable): runc's exec error
    std::string msg = ReadAll(rd.get());
    ReapQuietly(mid);
    return MakeError(msg, -child);
  }
  if (o.detach) {
    int status = 0;
    ::waitpid(mid, &status, 0);
    if (child <= 0) return MakeError("exec: the process did not start", EIO);
    return static_cast<int>(child);
  }
  // Signals meant for the command (a session exec's TERM, ^C) go to it, not to us: it ends,
  // and its status comes back through mid, instead of us dying and leaving it running.
  std::optional<process::SignalForwarder> forward;
  if (child > 0) forward.emplace(child);
  held.Release();
  if (o.caller > 0) WatchCaller(o.caller);
  int status = 0;
  while (::waitpid(mid, &status, 0) < 0 && errno == EINTR) {
    if (g_caller_gone) EndForCaller(o, child);
  }
  // The command ended: so does everything it started (its own cgroups), before the caller
  // hears of it. (Killed before this, the caller's handle does it when it reaps us.)
  if (!o.own_cgroups.empty())
    if (auto s = DestroyCgroups(o.own_cgroups); !s) log::Warn("exec: its leftovers: " + s.error().msg);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace sandshim::native
