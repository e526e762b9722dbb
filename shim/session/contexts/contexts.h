// Credential contexts (docs/CONTEXTS.md): several principals in one session, sharing the
// workspace and nothing else. A context is a container of its own: on gVisor a container in
// the session's sandbox (no second kernel) whose init, the broker (ctx-helper/), holds a
// network namespace of its own and starts its execs, on the native backend its own namespaces beside
// the session's (in proxy mode a network namespace and relay of its own too). Each has its own processes, /tmp, environment and
// user; the workspace and the base are the session's.
//
// The first context a session gets also makes the "default" context, which every plain
// `session exec` then runs in: the session's own container is the namespace parent of its
// contexts' (it would see them all), so after that it keeps only its idle init.
//
// Journal: "session-context" (container id, directory) in the session's journal before the
// container is made; undone by deleting the container and the directory. Session delete
// replays it (contexts first: they were journaled after the session's container); gc undoes
// the entries whose context has no record (a create that died).
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/runtime/backend_select.h"
#include "shim/runtime/containers.h"
#include "shim/session/contexts/context_record.h"
#include "shim/session/contexts/context_spec.h"
#include "shim/session/store/record.h"
#include "shim/session/store/session_steps.h"

namespace sandshim::session {

// Whether the session's contexts are containers in its own sandbox (its backend's traits).
inline bool InSandbox(const SessionRecord& s) { return runtime::TraitsOf(s.backend).contexts_in_sandbox; }


class Contexts {
 public:
  Contexts(runtime::Options o, SessionLookup& sessions);
  Result<ContextRecord> Create(const std::string& session_ref, const ContextOptions& o);
  // The contexts of a session; without any, the default context is the session's container.
  Result<std::vector<ContextRecord>> List(const std::string& session_ref);
  Status Remove(const std::string& session_ref, const std::string& name);
  // What runs in a context now (the backend's table: `sandshim ps` of its container).
  Result<std::string> Ps(const std::string& session_ref, const std::string& name);
  // gVisor: how a create starts the spare refill in the background (`sandshim [global flags]
  // session context refill`; the session id is appended). Empty: no refill (creates go cold).
  void SetRefillArgv(std::vector<std::string> argv) { refill_argv_ = std::move(argv); }
  // Makes the session's spare context containers up to its depth (context_spare.cc; run by
  // the detached refill).
  Status Refill(const std::string& session_ref);
  // session create --context-spares N (gVisor): records the depth and makes the spares now
  // (the refill, waited for), so the first context create claims instead of going cold.
  Status WarmSpares(const std::string& session_ref, int depth);
  // Tests: the names of a create's steps, in the order they start (store/assembly.h).
  void TraceCreate(std::vector<std::string>* trace) { create_trace_ = trace; }

 private:
  Result<ContextRecord> CreateInSession(const std::string& id, const ContextOptions& o);
  struct CreatePlan;  // contexts_create.cc: a create's decisions and steps
  Result<ContextRecord> CreateLocked(const SessionRecord& s, const ContextOptions& o);
  Status RequireIdleRoot(const SessionRecord& s);
  Result<bool> RefillOne(const std::string& session_id);

  runtime::Options opts_;
  SessionLookup& sessions_;
  runtime::Containers containers_;
  std::vector<std::string> refill_argv_;
  native::Sys& sys_;  // the host seam (store/host.h)
  std::vector<std::string>* create_trace_ = nullptr;
};

// Where a session exec goes: the context's container and bundle (its process defaults).
struct ExecTarget {
  std::string container_id;
  std::filesystem::path bundle;
};
// One small file read on the latency path (the context record names its container). An empty
// context is the default one (the session's container until contexts exist); a named context
// that does not exist is ENOENT.
Result<ExecTarget> ExecTargetFor(const std::filesystem::path& session_dir, const SessionRecord& s,
                                 const std::string& context);

// Where the relay answers the session's sandbox: the link address, or loopback (sessions from
// before the relay link).
std::string RelayHost(const std::filesystem::path& session_dir);
// How the session's relay knows a request's context by the way it came (docs/CONTEXTS.md,
// "Replayed tokens"), as relay flags: native, only the default context's container reaches
// the session's relay (each context has a relay of its own), so it is bound to "default";
// gVisor, every context reaches the one relay, each through its outside half, which starts its
// connections with the context's path line.
std::vector<std::string> ContextPathArgs(const std::string& backend);

// gVisor on netstack: the broker (its helper written out) and, in proxy mode, its egress
// forward and (a relay that reads them) its path key file in container_dir, into at; nothing
// for other sessions. Names no context: a spare's is a cold one's.
Status PlaceBroker(const std::filesystem::path& session_dir, const SessionRecord& s,
                   const boost::json::object& session_spec, const std::filesystem::path& container_dir,
                   ContextPlacement& at);
// A gVisor context container's path key (ContextPathArgs): beside its bundle, made with the
// container (a spare's moves with it to the context that claims it).
std::filesystem::path PathKeyFile(const std::filesystem::path& container_dir);

// The session layer's hooks (sessions.cc, session_gc.cc).
Status UndoContext(runtime::Containers& containers, const step::SessionContext& data, native::Sys& sys = native::LinuxSys());
// Journaled contexts with no record (their create died): undone. Returns what was removed.
std::vector<std::string> GcContexts(runtime::Containers& containers, const std::filesystem::path& session_dir,
                                    std::vector<std::string>& errors);
// The contexts with a record (metrics).
int64_t CountContexts(const std::filesystem::path& session_dir);
// Session stop: the sandbox's contexts end with it; their containers and records go.
Status StopContexts(runtime::Containers& containers, const std::filesystem::path& session_dir);

}  // namespace sandshim::session
