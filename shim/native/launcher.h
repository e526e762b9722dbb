// The parent side of the native runtime: clone the init into its new namespaces, give it
// its cgroups, id maps and prestart hooks (before_go), let it set itself up, and wait for
// READY; `start` releases it through exec.fifo; `exec` joins a running container.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <vector>

#include "shim/native/plan.h"

namespace sandshim::native {

struct LaunchOptions {
  // Created here; `start` writes to it. Empty (`run`): no exec.fifo, the init execs the
  // process as soon as it has reported READY, as `runc run` and `crun run` do: nothing
  // happens between create and start there, so the round trip through the fifo (our wake-
  // up, then the init's) was only latency.
  std::filesystem::path fifo;
  std::optional<std::string> console_socket;
  int preserve_fds = 0;
  // Runs once the init exists (pid known) and before it may go on: journal, cgroups, hooks.
  // in_cgroup2: the init was cloned into cgroup2_dir (nothing to move there).
  std::function<Status(pid_t, bool in_cgroup2)> before_go;
  // A cgroup2 directory (O_PATH) to clone the init straight into (clone3 CLONE_INTO_CGROUP:
  // no migration, no cgroup.procs write, no RCU grace period); -1: none. Where clone3
  // refuses, a plain clone, and before_go moves the init as before.
  int cgroup2_dir = -1;
  // The init makes its mounts while before_go runs (init.h), instead of after it: only when
  // before_go runs no hooks (they must see the namespaces before any setup, as they always
  // have) and the cgroup dirs exist before the clone (the cgroup mount binds them).
  bool early_setup = false;
  // With early_setup: descriptors the init moves itself into its v1 cgroups with, right
  // after 'P' (cgroups.h, OpenSelfJoin); before_go joins the rest. Owned by the caller.
  std::vector<int> self_join;
};

Result<pid_t> Launch(const LaunchPlan& plan, const LaunchOptions& o);
// Releases a created container's init (fails if it is gone) and returns once its process
// has been exec'd (or the init died).
Status ReleaseInit(const std::filesystem::path& fifo);
// Writes uid_map/gid_map of pid (pure formatting in IdMapText).
std::string IdMapText(const std::vector<IdMap>& maps);

struct ExecOptions {
  pid_t init = 0;
  std::vector<std::filesystem::path> cgroups;
  std::optional<std::string> console_socket;
  bool detach = false;
  int preserve_fds = 0;
  std::string keyring;  // the container's session keyring to join; empty: keep ours
  // Non-empty: cgroups of the exec's own (made by the caller below cgroups), joined instead
  // of cgroups; a foreground exec ends everything in them when its command ends (a named
  // credential context's exec: a double-forked, setsid'd daemon goes too, docs/CONTEXTS.md).
  std::vector<std::filesystem::path> own_cgroups;
  // Non-zero (a foreground exec forked by its caller): when that process dies, however
  // (SIGKILL included: PR_SET_PDEATHSIG), the exec ends its command, and its own cgroups
  // whole, instead of waiting on as an orphan (red team F6: a killed `session exec` left the
  // platform's command running).
  pid_t caller = 0;
};

// Runs p inside the container of o.init. Foreground: the exit status (128+n for a signal).
// Detached: the pid of the new process (the caller's subreaper will reap it).
Result<int> ExecInto(const ProcessPlan& p, const SeccompPlan& seccomp, const ExecOptions& o);

}  // namespace sandshim::native
