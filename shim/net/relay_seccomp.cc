#include "shim/net/relay_seccomp.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

namespace sandshim::net {
namespace {

// Allowed whatever their arguments.
constexpr const char* kAllowed[] = {
    // descriptors and files (opened read-only: see openat below)
    "read", "write", "readv", "writev", "pread64", "lseek", "close", "fcntl", "dup", "dup2", "dup3", "fstat",
    "newfstatat", "stat", "lstat", "statx", "access", "faccessat", "faccessat2",
    // network I/O on sockets the relay has or makes
    "connect", "accept", "accept4", "getsockname", "getpeername", "setsockopt", "getsockopt", "shutdown",
    "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
    // event loop, timers, tunnels
    "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "poll", "ppoll", "select", "pselect6",
    "timerfd_create", "timerfd_settime", "timerfd_gettime", "eventfd2", "pipe2", "splice",
    // memory, threads, signals, time
    "mmap", "munmap", "mprotect", "madvise", "mlock", "munlock", "brk", "mremap", "futex", "set_robust_list", "rseq",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall", "sched_yield",
    "sched_getaffinity", "clock_gettime", "clock_getres", "gettimeofday", "clock_nanosleep", "nanosleep",
    "getrandom", "uname", "getpid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "exit", "exit_group"};

Status Add(scmp_filter_ctx ctx, const char* name, std::initializer_list<scmp_arg_cmp> args = {}) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return Ok();  // not a syscall on this architecture
  int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, static_cast<unsigned>(args.size()), args.begin());
  if (rc != 0) return MakeError(std::string("relay seccomp: rule for ") + name, -rc);
  return Ok();
}

}  // namespace

Status LoadRelaySeccomp() {
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)), seccomp_release);
  if (!ctx) return MakeError("relay seccomp: init", ENOMEM);
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_TSYNC, 1); rc != 0)
    return MakeError("relay seccomp: tsync", -rc);
  for (const char* name : kAllowed) TRY(Add(ctx.get(), name));
  for (int family : {AF_INET, AF_INET6, AF_UNIX, AF_NETLINK}) TRY(Add(ctx.get(), "socket", {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family))}));
  for (unsigned long req : {FIONBIO, FIONREAD}) TRY(Add(ctx.get(), "ioctl", {SCMP_A1(SCMP_CMP_EQ, req)}));
  // Read-only, never creating or truncating (O_TMPFILE needs a write mode, so it is out too).
  const scmp_datum_t kNoWrite = O_ACCMODE | O_CREAT | O_TRUNC;
  TRY(Add(ctx.get(), "openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, kNoWrite, 0)}));
  TRY(Add(ctx.get(), "open", {SCMP_A1(SCMP_CMP_MASKED_EQ, kNoWrite, 0)}));
  const scmp_datum_t kNamespaces =
      CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP;
  TRY(Add(ctx.get(), "clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, kNamespaces, 0)}));
  if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), nr, 0); rc != 0)
      return MakeError("relay seccomp: clone3", -rc);
  TRY(Add(ctx.get(), "tgkill", {SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(::getpid()))}));
  if (int rc = seccomp_load(ctx.get()); rc != 0) return MakeError("relay seccomp: load", -rc);
  return Ok();
}

}  // namespace sandshim::net
