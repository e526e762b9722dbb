// Containers: every lifecycle operation on the containers under one root, and the only thing
// the CLI (and later sessions) call. Each verb is lock -> load -> check the live status ->
// backend -> save. create arms a rollback that replays the journal until it has succeeded;
// delete replays the journal and keeps the record if any undo step failed, so nothing a
// backend made is ever forgotten.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "shim/runtime/backend.h"
#include "shim/runtime/backend_select.h"
#include "shim/runtime/config.h"
#include "shim/runtime/state_store.h"

namespace sandshim::runtime {

struct Options {
  std::filesystem::path root = "/run/sandshim";
  Config config;
  std::string backend_flag;              // --backend
  std::vector<std::string> runsc_flags;  // --runsc-flag, after the config's
  bool debug = false;
};

struct GcReport {
  std::vector<std::string> removed;  // "container abc (creator died)", "runsc sandbox xyz (no record)"
  std::vector<std::string> errors;
};

class Containers {
 public:
  explicit Containers(Options o);
  ~Containers();
  Containers(Containers&&) = default;
  Containers& operator=(Containers&&) = default;

  Status Create(CreateRequest r);
  // Foreground run returns the exit status; with detach it returns 0 once started.
  Result<int> Run(CreateRequest r, bool detach);
  Status Start(std::string_view id);
  Result<ContainerRecord> State(std::string_view id);
  Status Kill(std::string_view id, int signal, bool all);
  Status Delete(std::string_view id, bool force);
  Result<int> Exec(std::string_view id, ExecRequest r);
  // A foreground exec into id as a program for the caller to start and supervise (see
  // Backend::ExecLaunch); nullopt: run Exec in a process of the caller's own.
  Result<std::optional<spawn::Launch>> ExecLaunch(std::string_view id, const ExecRequest& r);
  // A foreground exec into id started inside the sandbox (see Backend::ExecDirect); nullptr
  // when that is not possible.
  Result<std::unique_ptr<proc::Running>> ExecDirect(std::string_view id, const ExecRequest& r,
                                                    const std::array<int, 3>& stdio);
  Status Pause(std::string_view id);
  Status Resume(std::string_view id);
  Result<std::vector<pid_t>> Pids(std::string_view id);
  Result<std::string> PsTable(std::string_view id);
  Result<std::vector<ProcEntry>> ProcessTable(std::string_view id);
  Status SignalProcess(std::string_view id, pid_t pid, int signal);
  // Seals this process (re-executes from a sealed copy) when exec into id will use the
  // native backend: callers that fork before calling Exec do it first.
  Status PrepareExec(std::string_view id);
  Result<boost::json::value> Stats(std::string_view id);
  Status Update(std::string_view id, const boost::json::object& resources);
  std::vector<ContainerRecord> List();
  GcReport Gc();

  // Does what must happen before any state exists for a container of this spec: today,
  // re-executing from a sealed copy when the native backend will run it. Callers that make
  // their own state first (sessions) call it before that.
  // Returns the backend that will run it (and why).
  Result<BackendChoice> Prepare(const bundle::Spec& spec);
  // The process of `exec` requested by args: the container's process with overrides.
  Result<bundle::Spec> SpecOf(std::string_view id);
  const StateStore& store() const { return store_; }

 private:
  Result<BackendChoice> Choose(const bundle::Spec& spec, std::string* platform);
  Backend& BackendNamed(std::string_view name, const std::string& platform = "");
  Status Undo(const JournalEntry& e);
  Status ReplayAndErase(const RecordLock& lock);
  Result<ContainerRecord> BeginCreate(CreateRequest& r, const RecordLock& lock, const BackendChoice& choice,
                                      ContainerStatus status);
  Result<std::pair<RecordLock, ContainerRecord>> LockLoaded(std::string_view id);
  bool Orphaned(const ContainerRecord& rec, std::string* why) const;

  Options opts_;
  StateStore store_;
  std::unique_ptr<Backend> gvisor_;
  std::string runsc_version_;  // from the probe of the last Choose
  std::unique_ptr<Backend> native_;
};

}  // namespace sandshim::runtime
