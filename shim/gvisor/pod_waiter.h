// The host process that stands for a pod's app container on gVisor.
//
// runsc runs an app container inside its pod's sandbox, so it has no host process of its
// own: runsc writes the sandbox's pid as every container's pid. But containerd's runc shim
// learns that a container exited only by reaping the pid sandshim reports. So each app
// container gets a waiter: a child of `sandshim create` (reparented to the shim, a
// subreaper, when create exits) that holds the container's stdio until start, then asks
// the sandbox's control server to Wait for the container and exits with its status
// (128+signal for a signalled one, as the shim reports a runc container's).
//
// Until start it waits on a FIFO in the container's state dir, and gives up (exit 137) if
// the record or the sandbox goes away first, so a create that is rolled back leaves no
// waiter behind.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "shim/core/proc.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"
#include "shim/runsc/control.h"

namespace sandshim::runtime::pod {

struct WaiterTarget {
  runsc::ControlAddress control;   // whose control socket to call
  std::string container_runsc_id;  // which container to wait for
  proc::ProcessId sandbox;         // the sandbox process (the socket's listener must be it)
};

// Forks the waiter; it inherits our stdin/stdout/stderr (the container's).
Result<proc::ProcessId> StartWaiter(const std::filesystem::path& state_dir, const WaiterTarget& t);
// After runsc start: the waiter goes on to wait for the container.
Status ReleaseWaiter(const std::filesystem::path& state_dir);
// The container's stdio, reopened from the waiter's descriptors (for runsc start, which
// hands a subcontainer the stdio it runs with).
Result<std::array<UniqueFd, 3>> WaiterStdio(pid_t waiter);
// A wait status as the exit code the shim would report for a host process. Pure.
int ExitCodeOf(uint32_t wait_status);

}  // namespace sandshim::runtime::pod
