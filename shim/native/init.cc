#include "shim/native/init.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "shim/core/fs.h"
#include "shim/core/look_path.h"
#include "shim/core/passwd_home.h"
#include "shim/native/caps.h"
#include "shim/linux/cgroups.h"
#include "shim/linux/console.h"
#include "shim/linux/hooks.h"
#include "shim/native/keyring.h"
#include "shim/native/mounts.h"
#include "shim/native/ns_order.h"
#include "shim/native/seccomp.h"

namespace sandshim::native {
namespace {

[[noreturn]] void Die(int sync, const std::string& msg) {
  std::string m = "E" + msg;
  if (sync < 0 || ::send(sync, m.data(), m.size(), MSG_NOSIGNAL) < 0) {
    std::string line = "sandshim init: " + msg + "\n";
    (void)!::write(2, line.data(), line.size());
  }
  ::_exit(127);
}

Status JoinNamespaces(Sys& sys, const LaunchPlan& plan) {
  for (const auto& ns : plan.namespaces) {
    // Those the launcher joined around the clone (ns_order.h) are ours already.
    if (ns.path.empty() || JoinedAroundClone(plan, ns.flag)) continue;
    UniqueFd fd(sys.Open(ns.path.c_str(), O_RDONLY | O_CLOEXEC, 0));
    if (!fd.valid()) return ErrnoError("open namespace " + ns.path);
    if (sys.Setns(fd.get(), ns.flag) != 0) return ErrnoError("join namespace " + ns.path);
  }
  return Ok();
}

// /proc/sys files are written in place, in one write (the kernel parses each write whole).
Status Sysctl(Sys& sys, const std::vector<std::pair<std::string, std::string>>& kv) {
  for (const auto& [key, value] : kv) {
    std::string path = "/proc/sys/" + key;
    for (auto& c : path)
      if (c == '.') c = '/';
    if (path.find("..") != std::string::npos) return MakeError("bad sysctl " + key, EINVAL);
    UniqueFd fd(sys.Open(path.c_str(), O_WRONLY | O_CLOEXEC, 0));
    if (!fd.valid()) return ErrnoError("sysctl " + key);
    if (sys.Write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size()))
      return ErrnoError("sysctl " + key + "=" + value);
  }
  return Ok();
}

}  // namespace

Status SetupContainer(Sys& sys, const LaunchPlan& plan, const InitFds& fds, const std::function<Status()>& in_cgroups) {
  TRY(JoinNamespaces(sys, plan));
  if (plan.clone_flags & CLONE_NEWUSER) {
    if (sys.Setresgid(0, 0, 0) != 0 || sys.Setresuid(0, 0, 0) != 0)
      return ErrnoError("become root in the user namespace");
  }
  // A new network namespace starts with lo down: connecting to 127.0.0.1 fails with
  // ENETUNREACH. runc brings it up (its "loopback" network); so do we.
  if ((plan.clone_flags & CLONE_NEWNET) && sys.SetLinkUp("lo") != 0) return ErrnoError("bring up lo");
  UniqueFd host_mnt_ns;
  if (plan.host_mount_ns) host_mnt_ns = TRY(LeaveHostMountNs(sys));
  TRY(PrepareRootfs(sys, plan));
  TRY(ApplyMounts(sys, plan));  // the cgroup mount binds dirs the runtime made before the clone
  // What follows needs us in the container's cgroups: the cgroup namespace's root, device
  // nodes (the devices controller judges mknod), the processes of createContainer hooks.
  // The runtime may still be moving us in until in_cgroups returns.
  if (in_cgroups) TRY(in_cgroups());
  if ((plan.clone_flags & CLONE_NEWCGROUP) && sys.Unshare(CLONE_NEWCGROUP) != 0)
    return ErrnoError("unshare the cgroup namespace");
  TRY(CreateDevices(sys, plan, plan.clone_flags & CLONE_NEWUSER));
  // createContainer hooks: in the container's namespaces, the mounts done, the root not
  // yet changed (their paths resolve in the runtime's view, as the spec says).
  if (!plan.create_container_hooks.empty())
    TRY(RunHooks(plan.create_container_hooks, "createContainer", StateWith(plan.hook_state, "creating", ::getpid())));
  if (plan.no_pivot) TRY(MoveRoot(sys, plan.rootfs));
  else TRY(PivotRoot(sys, plan.rootfs));
  // A shared rootfsPropagation is set once the root is in place (pivot_root refuses a
  // shared parent; PrepareRootfs kept everything private until now), as runc does.
  if (plan.rootfs_propagation & MS_SHARED) TRY(ApplyRootPropagation(sys, plan.rootfs_propagation));
  if (!plan.hostname.empty() && sys.Sethostname(plan.hostname.data(), plan.hostname.size()) != 0)
    return ErrnoError("sethostname " + plan.hostname);
  if (!plan.domainname.empty() && sys.Setdomainname(plan.domainname.data(), plan.domainname.size()) != 0)
    return ErrnoError("setdomainname " + plan.domainname);
  TRY(Sysctl(sys, plan.sysctl));
  TRY(MaskPaths(sys, plan.masked_paths));
  TRY(ReadonlyPaths(sys, plan.readonly_paths));
  if (plan.readonly_root) TRY(ReadonlyRoot(sys));
  if (plan.host_mount_ns) TRY(EnterDetachedRoot(sys, host_mnt_ns.get()));
  if (plan.process.terminal) {
    if (fds.console < 0) return MakeError("terminal requested but no --console-socket given", EINVAL);
    TRY(SetupConsole(fds.console));
    ::close(fds.console);
  }
  return Ok();
}

// Every signal at its default and none blocked, as runc starts a container process: an
// ignored disposition survives execve, so a signal the runtime's caller ignored (nohup's HUP;
// a background job's INT and QUIT, down through containerd and its shim) would stay ignored
// in the container, where a shell cannot even trap it (POSIX: ignored on entry stays ignored).
static void DefaultSignals() {
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);  // glibc's own two: EINVAL, harmless
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

Status Finalize(const ProcessPlan& p, const SeccompPlan& seccomp) {
  DefaultSignals();  // before the seccomp filter, which may not allow rt_sigaction
  for (const auto& r : p.rlimits) {
    struct rlimit rl {r.soft, r.hard};
    if (::setrlimit(r.resource, &rl) != 0) return ErrnoError("setrlimit " + std::to_string(r.resource));
  }
  // In place and while we still have CAP_SYS_RESOURCE (a lower value needs it): a procfs
  // file cannot be replaced by rename. runc fails the container when this fails; so do we.
  if (p.oom_score_adj) {
    std::string v = std::to_string(*p.oom_score_adj);
    UniqueFd f(::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC));
    if (!f.valid() || ::write(f.get(), v.data(), v.size()) != static_cast<ssize_t>(v.size()))
      return ErrnoError("set oom_score_adj " + v);
  }
  TRY(DropBounding(p.caps));
  // Without no_new_privs the filter needs CAP_SYS_ADMIN to load: load it while we have it.
  if (!p.no_new_privs) TRY(LoadSeccomp(seccomp));
  TRY(SwitchUser(p));
  TRY(ApplyCaps(p.caps));
  if (p.no_new_privs) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return ErrnoError("no_new_privs");
    TRY(LoadSeccomp(seccomp));
  }
  if (::chdir(p.cwd.c_str()) != 0) return ErrnoError("chdir " + p.cwd);
  return Ok();
}

Error ExecProcess(const ProcessPlan& p, const std::string& exe, int preserve_fds) {
  // No descriptor of ours survives into the workload but stdio and the preserved ones.
  ::syscall(SYS_close_range, 3 + preserve_fds, ~0U, CLOSE_RANGE_CLOEXEC);
  std::vector<char*> argv, envp;
  for (const auto& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // HOME as runc sets it when the process has none (docker gives none): from the passwd of
  // the container's root, which is ours by now (the init has pivoted, an exec has chrooted).
  auto env = EnvWithHome(p.env, p.uid);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ::execve(exe.c_str(), argv.data(), envp.data());
  return ErrnoError("exec " + exe);
}

Error FinalizeAndExec(const ProcessPlan& p, const SeccompPlan& seccomp, int preserve_fds) {
  UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  auto exe = LookPath(root.get(), p.args[0], p.env, p.cwd);
  if (!exe) return exe.error();
  if (auto s = Finalize(p, seccomp); !s) return s.error();
  return ExecProcess(p, *exe, preserve_fds);
}

// The init lives on after `create` returns, until `start`: it must not keep any descriptor
// of sandshim's (the container's state lock above all, or `start` would wait on it forever).
void CloseAllBut(std::vector<int> keep, int preserve_fds) {
  for (int fd = 0; fd < 3 + preserve_fds; ++fd) keep.push_back(fd);
  std::sort(keep.begin(), keep.end());
  unsigned from = 0;
  for (int k : keep) {
    if (k < 0) continue;
    if (static_cast<unsigned>(k) > from) ::syscall(SYS_close_range, from, static_cast<unsigned>(k) - 1, 0);
    from = static_cast<unsigned>(k) + 1;
  }
  ::syscall(SYS_close_range, from, ~0U, 0);
}

// The caller's stdio must not stay open in a long-lived init (a session's: other processes
// of the same uid could take the caller's terminal from it with pidfd_getfd or ptrace).
static Status NullStdio() {
  UniqueFd null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!null.valid()) return ErrnoError("open /dev/null");
  for (int fd = 0; fd < 3; ++fd)
    if (::dup2(null.get(), fd) < 0) return ErrnoError("dup2 /dev/null");
  return Ok();
}

void RunInit(const LaunchPlan& plan, const InitFds& fds, int preserve_fds) {
  std::vector<int> keep{fds.sync, fds.fifo, fds.console};
  keep.insert(keep.end(), fds.self_join.begin(), fds.self_join.end());
  CloseAllBut(keep, preserve_fds);
  // Nothing in the container may open /proc/<us>/exe (the runc CVE-2019-5736 class) or
  // ptrace us while we still run sandshim's code.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  ::prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
  // 'G': in the cgroups, go. 'P' (LaunchOptions::early_setup): make the mounts while the
  // runtime moves us into the cgroups (the first cgroup.procs write of a v1 host waits out an RCU grace
  // period, ~10 ms); its 'G' follows.
  char go = 0;
  if (::recv(fds.sync, &go, 1, 0) != 1 || (go != 'G' && go != 'P')) ::_exit(1);  // the parent gave up
  // Into the v1 cgroups by our own hand, first (limits and the device policy hold from here
  // on): a thread moving itself waits for no RCU grace period (cgroups.h, OpenSelfJoin).
  if (auto s = JoinSelf(fds.self_join); !s) Die(fds.sync, s.error().msg);
  for (int fd : fds.self_join) ::close(fd);
  auto in_cgroups = [&]() -> Status {
    if (go == 'G') return Ok();
    if (::recv(fds.sync, &go, 1, 0) != 1 || go != 'G') ::_exit(1);
    return Ok();
  };
  if (plan.null_stdio)
    if (auto s = NullStdio(); !s) Die(fds.sync, s.error().msg);
  // A session of its own, as runc gives every container process: no controlling terminal
  // of the caller's, so /dev/tty is ENXIO and TIOCSTI reaches nobody's shell.
  ::setsid();
  if (!plan.keyring.empty())
    if (auto s = JoinSessionKeyring(plan.keyring); !s) Die(fds.sync, s.error().msg);
  if (auto s = SetupContainer(LinuxSys(), plan, fds, in_cgroups); !s) Die(fds.sync, s.error().msg);
  UniqueFd root(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  auto exe = LookPath(root.get(), plan.process.args[0], plan.process.env, plan.process.cwd);
  if (!exe) Die(fds.sync, exe.error().msg);
  root.Reset();
  // Everything that can fail happens before READY, so `create` reports it (a capability that
  // cannot be set, an oomScoreAdj that cannot be written), as runc's init does.
  if (auto s = Finalize(plan.process, plan.seccomp); !s) Die(fds.sync, s.error().msg);
  if (::send(fds.sync, "R", 1, MSG_NOSIGNAL) != 1) ::_exit(1);
  ::close(fds.sync);
  char start = 0;
  while (fds.fifo >= 0 && ::read(fds.fifo, &start, 1) < 0 && errno == EINTR) {
  }
  // fds.fifo stays open (close-on-exec): `start` waits for it to close, so it returns only
  // once the execve below happened (runc's exec.fifo) and a kill after it hits the workload.
  // startContainer hooks: with the process's own rlimits, capabilities, user, no_new_privs
  // and seccomp (runc runs them at this point too).
  if (!plan.start_container_hooks.empty())
    if (auto s = RunHooks(plan.start_container_hooks, "startContainer", StateWith(plan.hook_state, "created", ::getpid())); !s)
      Die(-1, s.error().msg);
  Error e = ExecProcess(plan.process, *exe, preserve_fds);
  Die(-1, e.msg);
}

}  // namespace sandshim::native
