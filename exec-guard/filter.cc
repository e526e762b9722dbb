// The command's seccomp filter (guard.h). Every ABI's execve stops for the tracer, which
// judges only the native one and refuses the rest (a 32-bit or x32 execve is never read
// with the wrong layout). Raw syscalls only: it runs in the command's child, which shares the
// tracer's memory until its exec (main.cc).
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctx-helper/clone_vm.h"
#include "exec-guard/guard.h"

#if !defined(__x86_64__)
#error "sandshim-guard: only x86_64 is supported (registers and syscall numbers below)"
#endif

namespace sandshim::guard {
namespace {

constexpr unsigned kX32 = 0x40000000;
constexpr unsigned kI386Execve = 11, kI386Execveat = 358;

int Install(const sock_fprog& prog) {
  return static_cast<int>(-rawsys::Sys(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, reinterpret_cast<long>(&prog)));
}

}  // namespace

int InstallExecFilter() {
  const unsigned kTrace = SECCOMP_RET_TRACE, kAllow = SECCOMP_RET_ALLOW, kEperm = SECCOMP_RET_ERRNO | EPERM;
  sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 4, 0),
      // Another ABI (i386): its execve numbers stop, the tracer refuses them.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kI386Execve, 11, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kI386Execveat, 10, 0),
      BPF_STMT(BPF_RET | BPF_K, kAllow),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 7, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 6, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kX32 | 520, 5, 0),  // x32 execve
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kX32 | 545, 4, 0),  // x32 execveat
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_writev, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, kAllow),
      BPF_STMT(BPF_RET | BPF_K, kEperm),
      BPF_STMT(BPF_RET | BPF_K, kTrace),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof f / sizeof f[0]), f};
  int err = Install(prog);
  if (err != EACCES) return err;
  // No CAP_SYS_ADMIN: a filter needs no_new_privs (set-user-ID programs then run unprivileged).
  if (long r = rawsys::Sys(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); r != 0) return static_cast<int>(-r);
  return Install(prog);
}

}  // namespace sandshim::guard
