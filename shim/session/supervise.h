// What both session exec runners share: start the command's side (in the sandbox, by
// posix_spawn, or by fork: see CommandSide), forward INT/TERM/HUP/QUIT to it, end its tree
// at the deadline, and wait for its exit status while a Streams object moves its I/O (two
// pipes, or a terminal). Output still in flight from background processes after the
// command exits is moved for RunnerOptions::drain, then we stop waiting.
#pragma once

#include <poll.h>

#include <functional>
#include <vector>

#include "shim/core/launch.h"
#include "shim/session/exec_runner.h"

namespace sandshim::session {

class Streams {
 public:
  virtual ~Streams() = default;
  // In the forked child, before the command's side runs: put its stdio in place.
  virtual void InChild() = 0;
  // The same for a prepared program: the actions that put its stdio in place.
  virtual void AddStdio(spawn::Launch& l) = 0;
  // The same for a command started inside the sandbox: its stdin, stdout and stderr, or
  // nothing when this kind of I/O cannot be handed over like that (a terminal).
  virtual std::optional<std::array<int, 3>> ChildStdio() const { return std::nullopt; }
  // In the parent right after the fork: close the child's ends.
  virtual void AfterFork() {}
  // The descriptors to poll this round (appended), and whether any of them is still open.
  virtual void Fill(std::vector<pollfd>& fds) = 0;
  virtual bool Open() const = 0;
  // fds[first..] are the ones Fill appended, with revents set.
  virtual Status Ready(const pollfd* fds, RunnerOutcome& r) = 0;
  // Extra signals this kind of I/O wants (SIGWINCH for a terminal), and their handling.
  virtual std::vector<int> Signals() const { return {}; }
  virtual void OnSignal(int) {}
};

Result<RunnerOutcome> Supervise(CommandSide& side, Streams& io, const RunnerOptions& o,
                                const std::function<void(proc::Running&)>& on_timeout);

// Copies what is readable from `from` to `to`, or into keep up to limit (limit 0: copy);
// false at EOF or error (EIO on a pty master: its last holder is gone).
bool Pump(int from, int to, uint64_t* count, std::string* keep = nullptr, size_t limit = 0);

}  // namespace sandshim::session
