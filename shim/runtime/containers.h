// Containers: every lifecycle operation on the containers under one root, and the only thing
// the CLI (and later sessions) call. Each verb is lock -> load -> check the live status ->
// backend -> save. create arms a rollback that replays the journal until it has succeeded;
// delete replays the journal and keeps the record if any undo step failed, so nothing a
// backend made is ever forgotten.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "shim/linux/sys.h"
#include "shim/runtime/backend.h"
#include "shim/runtime/backend_select.h"
#include "shim/runtime/config.h"
#include "shim/runtime/state_store.h"

namespace sandshim::runtime {

struct Options;
// Makes the backends a Containers drives, the first one the default for records that name
// none it knows. Set by the composition root (shim/cli/backends.h); unit tests pass theirs.
using BackendFactory = std::function<std::vector<std::unique_ptr<Backend>>(const Options&)>;

struct Options {
  std::filesystem::path root = "/run/sandshim";
  Config config;
  std::string backend_flag;              // --backend
  std::vector<std::string> runsc_flags;  // --runsc-flag, after the config's
  bool debug = false;
  BackendFactory make_backends;
  // The session layer's host effects (mounts, binds, links, renames: shim/session/store/host.h);
  // null: the real calls. Only unit tests pass another (tests/fakes/recording_sys.h).
  native::Sys* host_sys = nullptr;
};

class Containers {
 public:
  // Builds every backend at once from the options (o.make_backends: no backend depends on
  // which verb or which journal entry asked for it first).
  explicit Containers(Options o);
  ~Containers();
  Containers(Containers&&) = default;
  Containers& operator=(Containers&&) = default;

  // Which backend a container of this spec gets: forced (a CreateRequest's backend) > the
  // --backend flag > config > annotation. A query: it probes runsc (once per Containers,
  // cached on disk across processes) and changes nothing; the caller that will create the
  // container calls EnsureSealedFor(choice.traits) itself, at its top.
  Result<BackendChoice> Choose(const bundle::Spec& spec, const std::string& forced = "");
  // The traits of the backend an existing container runs on (EnsureSealedFor before exec).
  Result<BackendTraits> TraitsOf(std::string_view id);

  Status Create(CreateRequest r);
  // Foreground run returns the exit status; with detach it returns 0 once started.
  Result<int> Run(CreateRequest r, bool detach);
  Status Start(std::string_view id);
  Result<ContainerRecord> State(std::string_view id);
  Status Kill(std::string_view id, int signal, bool all);
  Status Delete(std::string_view id, bool force);
  // A process started in running container id (Backend::StartExec): the handle to wait on,
  // signal and end. One record load; a missing container is ESRCH (ENOENT is kept for "the
  // command is not there").
  Result<std::unique_ptr<proc::Running>> StartExec(std::string_view id, const ExecRequest& r,
                                                   const ExecStdio& stdio);
  // The exec verb: StartExec, then with detach the pid (also written to r.pid_file), else
  // its exit code once it ends, passing our signals on to it.
  Result<int> Exec(std::string_view id, ExecRequest r, const ExecStdio& stdio = {});
  Status Pause(std::string_view id);
  Status Resume(std::string_view id);
  // Whether containers of this backend can be checkpointed and restored here
  // (Backend::CheckpointSupport), with the reason
  // when not; then the checkpoint itself: the running container saved into image, after
  // which it ends (Delete it; Create/Run with restore_image boots it again).
  Status CheckpointSupport(std::string_view backend);
  Status Checkpoint(std::string_view id, const std::filesystem::path& image);
  Result<std::vector<pid_t>> Pids(std::string_view id);
  Result<std::string> PsTable(std::string_view id);
  Result<size_t> ProcessCount(std::string_view id);  // its init included
  Result<boost::json::value> Stats(std::string_view id);
  Status Update(std::string_view id, const boost::json::object& resources);
  std::vector<ContainerRecord> List();
  GcReport Gc();

  // The process of `exec` requested by args: the container's process with overrides.
  Result<bundle::Spec> SpecOf(std::string_view id);
  const StateStore& store() const { return store_; }

 private:
  Backend& BackendNamed(std::string_view name);
  Status Undo(const ContainerStep& s);
  // rec: the container's record when it has one. force (delete --force, gc): a journal that
  // cannot be read does not stop the teardown (see StepsToUndo).
  Status ReplayAndErase(const RecordLock& lock, const ContainerRecord* rec = nullptr, bool force = false);
  Result<std::vector<ContainerStep>> StepsToUndo(const RecordLock& lock, const ContainerRecord* rec, bool force);
  Result<ContainerRecord> BeginCreate(CreateRequest& r, const RecordLock& lock, const BackendChoice& choice,
                                      ContainerStatus status);
  Result<std::pair<RecordLock, ContainerRecord>> LockLoaded(std::string_view id);
  bool Orphaned(const ContainerRecord& rec, std::string* why) const;

  Backend* Find(std::string_view name);

  Options opts_;
  StateStore store_;
  std::vector<std::unique_ptr<Backend>> backends_;
};

}  // namespace sandshim::runtime
