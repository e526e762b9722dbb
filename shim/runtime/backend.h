// The Backend interface: what a sandbox technology must do for the runtime. runtime::Runtime
// owns ids, locks, status checks, records and rollback; a backend only makes and drives the
// sandbox, journaling each resource it is about to create.
#pragma once

#include <sys/types.h>

#include <array>
#include <boost/json.hpp>
#include <memory>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bundle/spec.h"
#include "shim/core/launch.h"
#include "shim/core/running.h"
#include "shim/runtime/journal.h"
#include "shim/runtime/record.h"

namespace sandshim::runtime {

struct CreateRequest {
  std::string id;
  std::filesystem::path bundle;
  bundle::Spec spec;
  std::optional<std::filesystem::path> pid_file, console_socket;
  int preserve_fds = 0;
  bool no_pivot = false;
  bool no_new_keyring = false;
  // The container's stdio is /dev/null, not ours (a session's idle init must not hold the
  // caller's terminal or pipes for its whole life).
  bool null_stdio = false;
  std::filesystem::path state_dir;  // <root>/<id>, filled in by the runtime
};

struct Created {
  proc::ProcessId init;
  BackendData data;  // saved as the record's backend_data
};

struct ExecRequest {
  boost::json::object process;  // OCI process
  bool detach = false;
  // gVisor: where runsc writes the process's pid inside the sandbox (what SignalProcess
  // takes); the native backend's processes are host processes and need none.
  std::optional<std::filesystem::path> internal_pid_file;
  std::optional<std::filesystem::path> pid_file, console_socket;
  int preserve_fds = 0;
  // Which of our stdin/stdout/stderr the process inherits (ExecLaunch: the caller puts its
  // own pipes or terminal at the others).
  std::vector<int> inherited_stdio{0, 1, 2};
};

// One process of a container, in the pid space SignalProcess uses (host pids for native,
// the sandbox's own for gVisor).
struct ProcEntry {
  pid_t pid = 0, ppid = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view Name() const = 0;
  virtual Result<Created> Create(const CreateRequest& r, Journal& j) = 0;
  // Foreground create + start + wait; returns the container's exit status. The runtime
  // replays the journal afterwards.
  virtual Result<int> Run(const CreateRequest& r, Journal& j) = 0;
  virtual Status Start(const ContainerRecord& c) = 0;
  // Exit status, or with detach the pid the caller should wait on.
  virtual Result<int> Exec(const ContainerRecord& c, const ExecRequest& r) = 0;
  // A foreground exec as a program the caller starts and supervises, when the backend can
  // prepare one up front (gVisor: `runsc exec`); nullopt when the exec has to run in a
  // process of ours (native: it enters the container's namespaces itself).
  virtual Result<std::optional<spawn::Launch>> ExecLaunch(const ContainerRecord&, const ExecRequest&) {
    return std::optional<spawn::Launch>();
  }
  // A foreground exec started inside the sandbox with no host process of its own (gVisor:
  // through the sandbox's control server), its stdin/stdout/stderr being stdio; nullptr
  // when this backend or this exec cannot (then ExecLaunch or Exec).
  virtual Result<std::unique_ptr<proc::Running>> ExecDirect(const ContainerRecord&, const ExecRequest&,
                                                            const std::array<int, 3>& /*stdio*/) {
    return std::unique_ptr<proc::Running>();
  }
  virtual Status Kill(const ContainerRecord& c, int signal, bool all) = 0;
  virtual Status Pause(const ContainerRecord& c) = 0;
  virtual Status Resume(const ContainerRecord& c) = 0;
  // Host pids that make up the container (what `ps --format json` prints).
  virtual Result<std::vector<pid_t>> Pids(const ContainerRecord& c) = 0;
  virtual Result<std::string> PsTable(const ContainerRecord& c) = 0;
  // Every process of the container with its parent, and a signal to one of them: what
  // killing one exec's process tree (a session exec's --timeout) needs.
  virtual Result<std::vector<ProcEntry>> ProcessTable(const ContainerRecord& c) = 0;
  virtual Status SignalProcess(const ContainerRecord& c, pid_t pid, int signal) = 0;
  virtual Result<boost::json::value> Stats(const ContainerRecord& c) = 0;
  virtual Status Update(const ContainerRecord& c, const boost::json::object& resources) = 0;
  // Undoes one journal entry of a kind this backend writes. Idempotent.
  virtual Status Undo(const JournalEntry& e) = 0;
};

}  // namespace sandshim::runtime
