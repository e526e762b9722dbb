// The container side of the native runtime, in the one order it must happen:
//   wait for the parent (id maps; cgroups and prestart/createRuntime hooks too, unless it
//   sent 'P': see RunInit) -> /dev/null stdio (sessions) -> setsid -> own session keyring ->
//   join namespaces by path -> rootfs propagation + bind -> spec mounts -> [wait for 'G'
//   after 'P'] -> cgroup namespace -> devices -> createContainer hooks -> pivot_root (or
//   MS_MOVE + chroot with --no-pivot) -> hostname, sysctl -> masked, read-only paths,
//   read-only root -> console -> find the executable -> rlimits, oom_score_adj,
//   capabilities, user, no_new_privs, seccomp -> READY -> wait for `start` on exec.fifo ->
//   startContainer hooks -> execve (which closes exec.fifo: `start` returns then).
// Everything after clone runs in a single-threaded copy of sandshim; errors before READY go
// back to the parent over the sync socket as one line, errors after it to stderr. The
// kernel is reached through Sys (sys.h), so the sequence is unit-tested with a fake.
#pragma once

#include <functional>
#include <vector>

#include "shim/native/plan.h"
#include "shim/linux/sys.h"

namespace sandshim::native {

struct InitFds {
  int sync = -1;     // SOCK_SEQPACKET to the parent
  int fifo = -1;     // exec.fifo opened O_RDWR: a read blocks until `start` writes; -1: exec at once
  int console = -1;  // connected console socket, or -1
  // The cgroups' v1 `tasks` files (OpenSelfJoin): after 'P' the init writes "0" to each.
  std::vector<int> self_join;
};

// Everything from joining namespaces to the console, through sys (tests pass a fake).
// in_cgroups returns once the runtime has moved the init into its cgroups: called after the
// mounts, before anything that needs the init in them.
Status SetupContainer(Sys& sys, const LaunchPlan& plan, const InitFds& fds,
                      const std::function<Status()>& in_cgroups = {});

[[noreturn]] void RunInit(const LaunchPlan& plan, const InitFds& fds, int preserve_fds);

// The process's own settings, shared by init and exec: default signal dispositions and an
// empty mask, rlimits, oom_score_adj, capabilities, user, no_new_privs, seccomp, cwd (runc's
// finalizeNamespace + seccomp).
Status Finalize(const ProcessPlan& p, const SeccompPlan& seccomp);
// Marks our descriptors close-on-exec and execs exe. Returns only with the error.
Error ExecProcess(const ProcessPlan& p, const std::string& exe, int preserve_fds);
// Finds the executable, Finalize, ExecProcess. Returns only with the error that stopped it.
Error FinalizeAndExec(const ProcessPlan& p, const SeccompPlan& seccomp, int preserve_fds);

}  // namespace sandshim::native
