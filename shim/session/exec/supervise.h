// The loop every session exec runs once its command has started (Backend::StartExec): poll the
// command's wait descriptor, the signals we catch, and the streams that move its I/O (two
// pipes, or a terminal); forward INT/TERM/HUP/QUIT to the command; at the deadline end its
// whole tree through its own handle (Running::KillTree). Output still in flight from
// background processes after the command exits is moved for RunnerOptions::drain, then we
// stop waiting.
#pragma once

#include <poll.h>
#include <signal.h>

#include <chrono>
#include <vector>

#include "shim/core/running.h"
#include "shim/core/unique_fd.h"
#include "shim/runtime/backend.h"
#include "shim/session/exec/runner_types.h"

namespace sandshim::session {

class Streams {
 public:
  virtual ~Streams() = default;
  // Where the command's stdin, stdout and stderr go: what StartExec is given.
  virtual runtime::ExecStdio Stdio() const = 0;
  // Once the command has started: close our copies of its ends, take its terminal.
  virtual void Started(proc::Running&) {}
  // The descriptors to poll this round (appended), and whether any of them is still open.
  virtual void Fill(std::vector<pollfd>& fds) = 0;
  virtual bool Open() const = 0;
  // fds[first..] are the ones Fill appended, with revents set.
  virtual Status Ready(const pollfd* fds, RunnerOutcome& r) = 0;
  // Once the command has exited and the loop is done: take what is still buffered.
  virtual void Finish(RunnerOutcome&) {}
  // Extra signals this kind of I/O wants (SIGWINCH for a terminal), and their handling.
  virtual std::vector<int> Signals() const { return {}; }
  virtual void OnSignal(int) {}
  // Whether a reader of ours went away (EPIPE on our stdout or stderr) since the last ask.
  virtual bool TakeBrokenPipe() { return false; }
};

// INT/TERM/HUP/QUIT (and the streams' own) blocked and readable from a signalfd while alive:
// made before the command starts, so a ^C during the start is forwarded, not lost.
class CaughtSignals {
 public:
  explicit CaughtSignals(const std::vector<int>& extra);
  ~CaughtSignals();
  CaughtSignals(const CaughtSignals&) = delete;
  CaughtSignals& operator=(const CaughtSignals&) = delete;
  int fd() const { return fd_.get(); }

 private:
  sigset_t old_;
  UniqueFd fd_;
};

Result<RunnerOutcome> Supervise(proc::Running& cmd, Streams& io, const CaughtSignals& sigs, const RunnerOptions& o,
                                std::chrono::steady_clock::time_point start);

// Copies what is readable from `from` to `to`, or into keep up to limit (limit 0: copy);
// false at EOF or error (EIO on a pty master: its last holder is gone). *broken is set when
// `to` is a pipe or socket whose reader has gone (EPIPE); other write errors are ignored.
bool Pump(int from, int to, uint64_t* count, std::string* keep = nullptr, size_t limit = 0, bool* broken = nullptr);

}  // namespace sandshim::session
