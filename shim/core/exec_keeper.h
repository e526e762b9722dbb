// The host process that stands for a detached exec whose command runs where the host cannot
// signal it (inside a gVisor sandbox). A runc caller (containerd's shim) keeps the detached
// exec's pid from --pid-file, signals it with kill(2) (`ctr task kill --exec-id`) and reaps
// it for the exit status. The keeper is that pid: it forwards every catchable signal it gets
// to the command, exits with the command's exit code (128 + N for a signal), and if it is
// SIGKILLed itself, a guardian child sends SIGKILL on to the command, as kill -9 of a runc
// exec's pid would end it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "shim/core/running.h"

namespace sandshim::proc {

// Forks the keeper (its own session, stdio /dev/null, no descriptor but cmd's wait one) and
// returns its pid; this process's copy of cmd is closed. cmd must be waitable from another
// process (a control-socket wait, not a host child of this process).
// The keeper joins each of cgroup_dirs (the container's host cgroups that exist) before it
// forks its guardian, so both count against the container's pids and memory limits, not
// the caller's (review N4).
Result<pid_t> StartExecKeeper(std::unique_ptr<Running> cmd, const std::vector<std::filesystem::path>& cgroup_dirs = {});

}  // namespace sandshim::proc
