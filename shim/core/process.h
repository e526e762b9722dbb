// The one way sandshim starts a program: a ProcessSpec (what the child gets) and Spawn, which
// returns a Child owning a pidfd. Waiting polls that pidfd (no sleeping loops); signals go
// through it, so they can never reach a recycled pid. Helpers that run a program to its end
// and capture its output are in process_run.h.
//
// The start is clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD), what glibc's posix_spawn does
// inside (no page-table copy: a forked sandshim cost ~6 ms per session exec) plus what
// posix_spawn cannot do: hand back the pidfd atomically, a parent-death signal, and close
// every descriptor that was not asked for. Everything the child touches is prepared by the
// parent; the child only makes syscalls, then execs.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::process {

using Clock = std::chrono::steady_clock;

struct ProcessSpec {
  std::string exe;  // the path to run; empty: Resolve(argv[0])
  std::vector<std::string> argv;
  std::optional<std::vector<std::string>> env;  // exactly these; nullopt: our environment
  std::filesystem::path cwd;                    // empty: ours
  // Applied in order in the child: open `path` (flags) as fd `target`, or dup2 `source`
  // onto `target` (which clears close-on-exec, also when source == target). The child keeps
  // fds 0-2 (ours unless an action replaces them) and the targets: nothing else.
  struct FdAction {
    int target = -1;
    int source = -1;
    std::string path;
    int flags = 0;
  };
  std::vector<FdAction> fds;
  // A new session; a terminal opened (without O_NOCTTY) by one of the actions then becomes
  // its controlling terminal.
  bool new_session = false;
  std::optional<sigset_t> sigmask;  // the child's signal mask; nullopt: the caller's
  // Sent to the child when the thread that started it dies; if that already happened before
  // the child could ask for it, the child exits 127 instead of running unowned.
  int pdeathsig = 0;
  // Non-empty: the network namespace the child starts in (runsc verbs run in their
  // sandbox's private control namespace: see shim/runsc/control_netns.h).
  std::filesystem::path netns;
  // Cgroup directories the child joins before it runs (a helper charged to a container's
  // limits, not its caller's: issue #34); one that refuses (gone, full) is skipped.
  std::vector<std::filesystem::path> cgroups;
  // Descriptors the actions read from, closed when the spec goes away.
  std::vector<UniqueFd> owned;

  void Dup(int source, int target) { fds.push_back({.target = target, .source = source}); }
  void Open(const std::string& p, int flags, int target) { fds.push_back({.target = target, .path = p, .flags = flags}); }
  // Keeps `fd` (moved into the spec) at `target` in the child.
  void Give(UniqueFd fd, int target) {
    Dup(fd.get(), target);
    owned.push_back(std::move(fd));
  }
};

// How a child ended.
struct ExitStatus {
  int code = 0;    // valid when signal == 0
  int signal = 0;  // the signal that ended it, if any
  // Shell convention: exit code, or 128 + signal.
  int Shell() const { return signal ? 128 + signal : code; }
  bool Success() const { return signal == 0 && code == 0; }
  std::string Describe() const;  // "exit status 1", "killed by signal 9"
};

// Whether Wait also reaps other children of ours that exit meanwhile. A child subreaper
// (the CLI is one) adopts runsc's sandbox and gofer when runsc exits before them; `runsc
// delete` then polls them with kill(pid, 0), to which an unreaped zombie looks alive (5 s
// timeouts, measured). Only for callers that start nothing else they will wait for.
enum class Reap { kOnlyThis, kAdoptedToo };

class Child {
 public:
  Child() = default;
  Child(pid_t pid, UniqueFd pidfd) : pid_(pid), pidfd_(std::move(pidfd)) {}

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_.get(); }  // readable once it has exited
  bool valid() const { return pidfd_.valid(); }

  // Waits until it exits (then reaps it) or until deadline (then nullopt: still running).
  Result<std::optional<ExitStatus>> Wait(std::optional<Clock::time_point> deadline = std::nullopt,
                                         Reap reap = Reap::kOnlyThis);
  Status Signal(int sig);
  // SIGKILL, then the status.
  Result<ExitStatus> Kill();
  // Stops owning it: the pid is the caller's to wait for (it is not reaped here).
  pid_t Release();

 private:
  pid_t pid_ = -1;
  UniqueFd pidfd_;
};

Result<Child> Spawn(const ProcessSpec& spec);

// SIGKILLs every pid that `target` accepts (asked after a pidfd pins the pid, so the answer
// and the signal concern the same process), then waits for them by polling their pidfds,
// at most `within`; reaps those that are our children. Returns the pids still alive.
std::vector<pid_t> KillAndAwait(const std::vector<pid_t>& pids, std::chrono::milliseconds within,
                                const std::function<bool(pid_t)>& target = nullptr);

// The path of a program on the host: names with a '/' if executable; bare names in PATH,
// then in Debian's directories (callers such as podman's cleanup run us with a bare PATH).
// Empty if there is none.
std::string FindOnHost(const std::string& name);
// FindOnHost, or name itself (so exec reports ENOENT with the name the user gave).
std::string Resolve(const std::string& name);

}  // namespace sandshim::process
