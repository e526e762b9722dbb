// The Backend interface: what a sandbox technology must do for the runtime. runtime::Runtime
// owns ids, locks, status checks, records and rollback; a backend only makes and drives the
// sandbox, journaling each resource it is about to create.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <boost/json.hpp>
#include <memory>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bundle/spec.h"
#include "shim/core/running.h"
#include "shim/runtime/journal_steps.h"
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
  // Per container, over the runtime's options: the backend to use ("": flag > config >
  // annotation, see backend_select.h), and runsc flags put after the config's and before the
  // user's --runsc-flag (the last of a flag wins).
  std::string backend;
  std::vector<std::string> runsc_flags;
  std::filesystem::path state_dir;  // <root>/<id>, filled in by the runtime
  // Not empty: the container is restored from this checkpoint image (Backend::Checkpoint)
  // instead of booted, and is running once created (no start).
  std::filesystem::path restore_image;
};

struct Created {
  proc::ProcessId init;
  BackendData data;  // saved as the record's backend_data
};

struct ExecRequest {
  boost::json::object process;  // OCI process
  // Started in the background: the handle's Pid() is what the caller reports (runc's
  // --detach); nobody waits for it here.
  bool detach = false;
  std::optional<std::filesystem::path> pid_file;
  int preserve_fds = 0;
  // Every process the exec starts ends when its command ends (a named credential context's
  // exec, docs/CONTEXTS.md): native: a cgroup of the exec's own, killed then.
  bool end_leftovers = false;
  // When the caller gives up on starting the command (its --timeout): a sandbox that does
  // not answer (stopped) fails the start then (ETIMEDOUT) instead of holding the caller.
  std::optional<std::chrono::steady_clock::time_point> start_deadline;
};

// Where an exec's stdin, stdout and stderr go: three descriptors of ours, or a terminal the
// backend makes (how is its business: a pty inside the container, or a host pty). A
// terminal's master goes to console_socket when one is given (runc's protocol), else it stays
// with the handle (proc::Running::TerminalMaster).
struct ExecStdio {
  std::array<int, 3> fds{0, 1, 2};
  bool terminal = false;
  std::optional<std::filesystem::path> console_socket;
  // Descriptors of ours the command gets as its fds 3, 4, ... (a channel only it has, such as
  // the persistent shell's state pipe). A backend that cannot give them fails the exec (ENOTSUP).
  std::vector<int> extra;

  static ExecStdio Fds(int in, int out, int err) { return {{in, out, err}, false, std::nullopt, {}}; }
  static ExecStdio Terminal(std::optional<std::filesystem::path> socket = std::nullopt) {
    return {{0, 1, 2}, true, std::move(socket), {}};
  }
};

// Whether a backend can make containers on this host (gVisor: the runsc probe's verdict).
struct Availability {
  bool usable = true;
  std::string problem;  // why not, when not usable
};

struct GcReport {
  std::vector<std::string> removed;  // "container abc (creator died)", "runsc sandbox xyz (no record)"
  std::vector<std::string> errors;
};

// Backends are made by the composition root (shim/cli/backends.cc) and handed to Containers;
// the runtime itself names none of them.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view Name() const = 0;
  // Asked before a container is placed on this backend; may probe (once per backend object).
  virtual Availability Probe() { return {}; }
  // Whether containers of this backend can be checkpointed and restored here, with the reason
  // when not (gVisor: the checkpoint probe).
  virtual Status CheckpointSupport() {
    return MakeError("the " + std::string(Name()) + " backend cannot checkpoint a container", ENOTSUP);
  }
  virtual Result<Created> Create(const CreateRequest& r, ContainerJournal& j) = 0;
  // Foreground create + start + wait; returns the container's exit status. The runtime
  // replays the journal afterwards.
  virtual Result<int> Run(const CreateRequest& r, ContainerJournal& j) = 0;
  virtual Status Start(const ContainerRecord& c) = 0;
  // The one way a process starts in a running container. The handle waits for it, signals
  // it, and ends its whole tree (KillTree), each by the means the backend started it with;
  // the caller never needs to know which. An error with ENOENT means the command is not
  // there (a shell's 127).
  virtual Result<std::unique_ptr<proc::Running>> StartExec(const ContainerRecord& c, const ExecRequest& r,
                                                           const ExecStdio& stdio) = 0;
  virtual Status Kill(const ContainerRecord& c, int signal, bool all) = 0;
  virtual Status Pause(const ContainerRecord& c) = 0;
  virtual Status Resume(const ContainerRecord& c) = 0;
  // Saves the running container's whole state into the directory image; the container then
  // ends (delete removes what is left of it). A CreateRequest's restore_image
  // boots a new one from it. Only a backend that can restore what it saves says yes.
  virtual Status Checkpoint(const ContainerRecord& c, const std::filesystem::path& image) {
    (void)c, (void)image;
    return MakeError("the " + std::string(Name()) + " backend cannot checkpoint a container", ENOTSUP);
  }
  // Host pids that make up the container (what `ps --format json` prints).
  virtual Result<std::vector<pid_t>> Pids(const ContainerRecord& c) = 0;
  virtual Result<std::string> PsTable(const ContainerRecord& c) = 0;
  // How many processes the container has, its init included: PsTable's rows but the header.
  virtual Result<size_t> ProcessCount(const ContainerRecord& c) {
    auto table = TRY(PsTable(c));
    size_t rows = 0;
    for (size_t at = 0; at < table.size();) {
      auto end = table.find('\n', at);
      if (end == std::string::npos) end = table.size();
      if (end > at) ++rows;
      at = end + 1;
    }
    return rows > 0 ? rows - 1 : 0;
  }
  virtual Result<boost::json::value> Stats(const ContainerRecord& c) = 0;
  virtual Status Update(const ContainerRecord& c, const boost::json::object& resources) = 0;
  // Whether journal step s is of a kind this backend writes (Containers routes its undo here).
  virtual bool Owns(const ContainerStep& s) const = 0;
  // Undoes one journal step of a kind this backend writes (Containers::Undo routes each step
  // to the backend that writes it). Idempotent.
  virtual Status Undo(const ContainerStep& s) = 0;
  // The steps that undo what a record names, for a forced teardown whose journal cannot be
  // read (Containers::Delete --force, gc): the record, not the journal, is then the list.
  // Hooks are not run from it (which bundle's hooks ran is the journal's to say).
  virtual std::vector<ContainerStep> RecordedSteps(const ContainerRecord& c, const std::filesystem::path& state_dir) = 0;
  // A forced teardown (delete --force, gc) of the container whose directory is state_dir:
  // what the directory may hold that no journal names (gVisor: an older container's own
  // control namespace). Idempotent.
  virtual Status RemoveUnjournaled(const std::filesystem::path& state_dir) {
    (void)state_dir;
    return Ok();
  }
  // gc, after every orphaned container is gone: what this backend keeps under the root that
  // no container with a directory (ids) owns any more (gVisor: runsc sandboxes, the shared
  // control namespace). Busy containers are among ids, so nothing of theirs is touched.
  virtual void Gc(const std::set<std::string>& ids, GcReport& report) { (void)ids, (void)report; }
};

}  // namespace sandshim::runtime
