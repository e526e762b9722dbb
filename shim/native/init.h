// The container side of the native runtime, in the one order it must happen:
//   wait for the parent (cgroups, id maps, prestart hooks done) -> join namespaces by path ->
//   rootfs propagation + bind -> spec mounts -> devices -> pivot_root -> hostname, sysctl ->
//   masked, read-only paths, read-only root -> console -> find the executable -> READY ->
//   wait for `start` on exec.fifo -> rlimits, capabilities, user, seccomp -> execve.
// Everything after clone runs in a single-threaded copy of sandshim; errors before READY go
// back to the parent over the sync socket as one line, errors after it to stderr.
#pragma once

#include "shim/native/plan.h"

namespace sandshim::native {

struct InitFds {
  int sync = -1;     // SOCK_SEQPACKET to the parent
  int fifo = -1;     // exec.fifo opened O_RDWR: a read blocks until `start` writes
  int console = -1;  // connected console socket, or -1
};

[[noreturn]] void RunInit(const LaunchPlan& plan, const InitFds& fds, int preserve_fds);

// The last steps shared by init and exec: limits, caps, user, seccomp, fds, cwd, execve.
// Returns only with the error that stopped it.
Error FinalizeAndExec(const ProcessPlan& p, const SeccompPlan& seccomp, int preserve_fds);

}  // namespace sandshim::native
