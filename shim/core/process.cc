#include "shim/core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "shim/core/netns_scope.h"

extern char** environ;

namespace sandshim::process {
namespace {

// What the child does, laid out by the parent: the child shares our memory until it execs,
// so it must not allocate, lock or log; it reads this and makes syscalls.
struct ChildPlan {
  struct Action {
    int target, source;
    const char* path;
    int flags;
  };
  const char* exe = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* cwd = nullptr;
  const Action* actions = nullptr;
  size_t n_actions = 0;
  const std::array<unsigned, 2>* cloexec = nullptr;  // [first, last] ranges made close-on-exec
  size_t n_cloexec = 0;
  bool new_session = false;
  int pdeathsig = 0;
  pid_t parent = 0;
  const char* const* cgroup_procs = nullptr;  // <dir>/cgroup.procs of each cgroup to join
  size_t n_cgroups = 0;
  sigset_t mask;
  // Written by the child before it gives up (the parent reads it after the vfork returns).
  int err = 0;
  const char* step = nullptr;
};

[[noreturn]] void Fail(ChildPlan* p, const char* step) {
  p->err = errno;
  p->step = step;
  ::_exit(127);
}

int ChildMain(void* arg) {
  auto* p = static_cast<ChildPlan*>(arg);
  // A handler of ours must not run here: it would run on our memory. As posix_spawn does.
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa;
    if (::sigaction(sig, nullptr, &sa) != 0 || sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL) continue;
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
    ::sigaction(sig, &sa, nullptr);
  }
  if (p->pdeathsig) {
    if (::prctl(PR_SET_PDEATHSIG, p->pdeathsig) != 0) Fail(p, "prctl");
    if (::getppid() != p->parent) ::_exit(127);  // our parent is already gone
  }
  if (p->new_session && ::setsid() < 0) Fail(p, "setsid");
  for (size_t i = 0; i < p->n_cgroups; ++i) {
    int fd = ::open(p->cgroup_procs[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)!::write(fd, "0", 1);  // "0": the writer
    ::close(fd);
  }
  for (size_t i = 0; i < p->n_actions; ++i) {
    const auto& a = p->actions[i];
    if (a.path) {
      int fd = ::open(a.path, a.flags & ~O_CLOEXEC, 0644);
      if (fd < 0) Fail(p, "open");
      if (fd != a.target) {
        if (::dup2(fd, a.target) < 0) Fail(p, "dup2");
        ::close(fd);
      }
    } else if (a.source == a.target) {
      if (::fcntl(a.target, F_SETFD, 0) != 0) Fail(p, "fcntl");
    } else if (::dup2(a.source, a.target) < 0) {
      Fail(p, "dup2");
    }
  }
  for (size_t i = 0; i < p->n_cloexec; ++i)
    if (::close_range(p->cloexec[i][0], p->cloexec[i][1], CLOSE_RANGE_CLOEXEC) != 0) Fail(p, "close_range");
  if (p->cwd && ::chdir(p->cwd) != 0) Fail(p, "chdir");
  ::sigprocmask(SIG_SETMASK, &p->mask, nullptr);
  ::execve(p->exe, p->argv, p->envp);
  Fail(p, "exec");
}

std::vector<char*> CStrings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Every fd from 3 up that no action targets: close-on-exec in the child.
std::vector<std::array<unsigned, 2>> CloexecRanges(const std::vector<ProcessSpec::FdAction>& fds) {
  std::vector<unsigned> keep;
  for (const auto& a : fds)
    if (a.target >= 3) keep.push_back(static_cast<unsigned>(a.target));
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  std::vector<std::array<unsigned, 2>> out;
  unsigned from = 3;
  for (unsigned k : keep) {
    if (k > from) out.push_back({from, k - 1});
    from = k + 1;
  }
  out.push_back({from, ~0U});
  return out;
}

// Enough for the child's few syscalls: it never calls back into our code.
constexpr size_t kChildStack = 64 * 1024;

// Reaps our exited children other than pid (see Reap::kAdoptedToo).
void ReapAdopted(pid_t pid) {
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0 || info.si_pid == pid) return;
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

int MillisUntil(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 24 * 3600 * 1000));
}

}  // namespace

std::string ExitStatus::Describe() const {
  return signal ? "killed by signal " + std::to_string(signal) : "exit status " + std::to_string(code);
}

Result<std::optional<ExitStatus>> Child::Wait(std::optional<Clock::time_point> deadline, Reap reap) {
  if (!pidfd_.valid()) return MakeError("wait: no child", ECHILD);
  // Adopted children announce their end only by SIGCHLD: read it from a signalfd beside the
  // pidfd, blocked in this thread meanwhile so it is queued rather than ignored.
  UniqueFd sigfd;
  sigset_t chld, old;
  if (reap == Reap::kAdoptedToo) {
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    ::pthread_sigmask(SIG_BLOCK, &chld, &old);
    sigfd.Reset(::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK));
  }
  struct RestoreMask {
    bool on;
    sigset_t* old;
    ~RestoreMask() {
      if (on) ::pthread_sigmask(SIG_SETMASK, old, nullptr);
    }
  } restore{reap == Reap::kAdoptedToo, &old};
  for (;;) {
    if (reap == Reap::kAdoptedToo) ReapAdopted(pid_);
    pollfd fds[2] = {{pidfd_.get(), POLLIN, 0}, {sigfd.get(), POLLIN, 0}};
    int n = ::poll(fds, sigfd.valid() ? 2 : 1, MillisUntil(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("poll pidfd");
    if (n == 0 && deadline && Clock::now() >= *deadline) return std::optional<ExitStatus>();
    if (fds[1].revents) {
      signalfd_siginfo si;
      while (::read(sigfd.get(), &si, sizeof si) == sizeof si) {
      }
    }
    if (fds[0].revents) break;
  }
  siginfo_t info{};
  while (::waitid(P_PIDFD, static_cast<id_t>(pidfd_.get()), &info, WEXITED) != 0)
    if (errno != EINTR) return ErrnoError("wait " + std::to_string(pid_));
  pidfd_.Reset();
  ExitStatus s;
  if (info.si_code == CLD_EXITED) s.code = info.si_status;
  else s.signal = info.si_status;
  return std::optional(s);
}

Status Child::Signal(int sig) {
  if (!pidfd_.valid()) return MakeError("signal: no child", ESRCH);
  if (::syscall(SYS_pidfd_send_signal, pidfd_.get(), sig, nullptr, 0) != 0 && errno != ESRCH)
    return ErrnoError("signal " + std::to_string(pid_));
  return Ok();
}

Result<ExitStatus> Child::Kill() {
  TRY(Signal(SIGKILL));
  auto s = TRY(Wait());
  return *s;
}

pid_t Child::Release() {
  pidfd_.Reset();
  return std::exchange(pid_, -1);
}

Result<Child> Spawn(const ProcessSpec& spec) {
  if (spec.argv.empty()) return MakeError("spawn: empty command", EINVAL);
  std::string exe = spec.exe.empty() ? Resolve(spec.argv[0]) : spec.exe;
  auto argv = CStrings(spec.argv);
  std::vector<char*> envp;
  if (spec.env) envp = CStrings(*spec.env);
  std::vector<ChildPlan::Action> actions;
  for (const auto& a : spec.fds)
    actions.push_back({a.target, a.source, a.path.empty() ? nullptr : a.path.c_str(), a.flags});
  auto ranges = CloexecRanges(spec.fds);

  ChildPlan plan;
  plan.exe = exe.c_str();
  plan.argv = argv.data();
  plan.envp = spec.env ? envp.data() : environ;
  plan.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  plan.actions = actions.data();
  plan.n_actions = actions.size();
  plan.cloexec = ranges.data();
  plan.n_cloexec = ranges.size();
  plan.new_session = spec.new_session;
  plan.pdeathsig = spec.pdeathsig;
  plan.parent = ::getpid();
  std::vector<std::string> cgroup_files;
  for (const auto& d : spec.cgroups) cgroup_files.push_back((d / "cgroup.procs").string());
  auto cgroup_ptrs = CStrings(cgroup_files);
  plan.cgroup_procs = cgroup_ptrs.data();
  plan.n_cgroups = cgroup_files.size();

  void* stack = ::mmap(nullptr, kChildStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return ErrnoError("spawn " + exe + ": stack");
  auto ns = NetnsScope::Enter(spec.netns);  // the child starts where this thread is
  if (!ns) {
    ::munmap(stack, kChildStack);
    return std::move(ns).error();
  }
  // Every signal blocked until the child has reset its handlers (as posix_spawn does).
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  plan.mask = spec.sigmask ? *spec.sigmask : old;
  int pidfd = -1;
  pid_t pid = ::clone(ChildMain, static_cast<char*>(stack) + kChildStack,
                      CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &plan, &pidfd);
  int clone_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::munmap(stack, kChildStack);
  if (pid < 0) return ErrnoError("spawn " + exe, clone_errno);
  Child child(pid, UniqueFd(pidfd));
  if (plan.err != 0 || plan.step != nullptr) {
    (void)child.Wait();
    std::string step = plan.step ? plan.step : "start";
    return MakeError(step + " " + exe + ": " + std::strerror(plan.err), plan.err ? plan.err : EIO);
  }
  return child;
}

std::vector<pid_t> KillAndAwait(const std::vector<pid_t>& pids, std::chrono::milliseconds within,
                                const std::function<bool(pid_t)>& target) {
  struct Victim {
    pid_t pid;
    UniqueFd fd;
  };
  std::vector<Victim> victims;
  for (pid_t pid : pids) {
    UniqueFd fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (!fd.valid() || (target && !target(pid))) continue;  // gone already, or not ours to kill
    ::syscall(SYS_pidfd_send_signal, fd.get(), SIGKILL, nullptr, 0);
    victims.push_back({pid, std::move(fd)});
  }
  // A pidfd turns readable once its process has exited (a zombie counts).
  auto deadline = Clock::now() + within;
  std::vector<pollfd> fds;
  while (!victims.empty()) {
    fds.clear();
    for (const auto& v : victims) fds.push_back({v.fd.get(), POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), MillisUntil(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (size_t i = fds.size(); i-- > 0;)
      if (fds[i].revents) {
        ::waitpid(victims[i].pid, nullptr, WNOHANG);  // only ours; others' parents reap theirs
        victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(i));
      }
  }
  std::vector<pid_t> alive;
  for (const auto& v : victims) alive.push_back(v.pid);
  return alive;
}

std::string FindOnHost(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = std::string(path ? path : "") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::istringstream in(dirs);
  std::string dir;
  while (std::getline(in, dir, ':')) {
    std::string cand = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
  }
  return "";
}

std::string Resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  std::string found = FindOnHost(name);
  return found.empty() ? name : found;
}

}  // namespace sandshim::process
