// Runs one session command and stays with it: stdout and stderr come back through two pipes
// and are copied to ours unmixed (and counted, for the audit log), or the command gets a
// terminal whose master we relay; stdin is passed through, INT/TERM/HUP/QUIT are forwarded,
// and a deadline ends the command's whole process tree. The caller reads top to bottom:
//   auto runner = ExecRunner::Pipes(o);                      // streams, signals caught
//   auto cmd = containers.StartExec(id, req, runner->Stdio()); // the backend starts it
//   auto outcome = runner->Run(std::move(cmd));               // supervised to its end
// How the command was started is the backend's business; the runner only holds its handle.
#pragma once

#include <chrono>
#include <memory>

#include "shim/core/running.h"
#include "shim/runtime/backend.h"
#include "shim/session/exec/runner_types.h"

namespace sandshim::session {

class Streams;
class CaughtSignals;
class RawMode;

class ExecRunner {
 public:
  // stdout and stderr on two pipes of ours.
  static Result<std::unique_ptr<ExecRunner>> Pipes(const RunnerOptions& o);
  // A terminal made by the backend, its master relayed to our stdio (our terminal, if any,
  // in raw mode until the runner is gone).
  static Result<std::unique_ptr<ExecRunner>> Terminal(const RunnerOptions& o);
  ~ExecRunner();

  runtime::ExecStdio Stdio() const;
  // Supervises the started command to its end. A command that is not there (ENOENT) is the
  // command's failure, as in a shell: 127 with its message on its stderr, not our error.
  Result<RunnerOutcome> Run(Result<std::unique_ptr<proc::Running>> started);

 private:
  ExecRunner(const RunnerOptions& o, std::unique_ptr<Streams> io);
  RunnerOptions o_;
  std::unique_ptr<Streams> io_;
  std::unique_ptr<CaughtSignals> signals_;
  std::unique_ptr<RawMode> raw_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace sandshim::session
