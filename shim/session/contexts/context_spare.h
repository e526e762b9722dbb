// Warm spare context containers (docs/CONTEXTS.md, "Create cost"): a gVisor session that has
// contexts keeps one subcontainer ready in its sandbox, made from ContextContainerSpec and
// bound to no context, so `context create` claims it instead of paying runsc create + start
// (~200 ms) on its path; a detached refill makes the next one.
//
// Layout (under the session's directory):
//   spares/                          its flock is the refill lock: one refill at a time
//   spares/<id>/bundle/config.json   the unbound spec (the container's bundle)
//   spares/<id>/ready                written (tmp + rename) under the session lock once it runs
// Journal: "session-context-spare" {id, dir} before the directory or the container exist;
// undone by deleting the container and the directory. A claim, under the session lock, takes
// the ready marker away (nothing else can take that spare after), journals the context
// ("session-context" naming the spare's container and, as "spare", its directory), renames
// the spare's directory to the context's and commits with the context's record. A spare
// serves one context and is never given back: its container goes with the context.
// Lock order: the refill lock before the session lock (refill, session delete and stop); gc
// holds the session lock and only tries the refill lock.
#pragma once

#include <sys/types.h>

#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"
#include "shim/runtime/containers.h"
#include "shim/session/store/session_steps.h"

namespace sandshim::session {


struct Spare {
  std::string container_id;
  std::filesystem::path dir;
};

std::filesystem::path SparesDir(const std::filesystem::path& session_dir);
// "spare-<12 hex>+<session id>": never a cold context's id, which starts with "ctx-".
Result<std::string> NewSpareId(std::string_view session_id);

// Under the session lock: a ready spare whose container runs, taken (its ready marker is
// gone: no other claim can have it), or nullopt. Dead spares are left to gc.
std::optional<Spare> TakeReadySpare(runtime::Containers& containers, const std::filesystem::path& session_dir);
// The claim's renames: the spare's directory becomes the context's and the container's
// record (its bundle path) follows.
Status AdoptSpare(const runtime::Options& o, const Spare& s, const std::filesystem::path& context_dir);

// The refill lock. Try: nullopt while a refill holds it (or when there is no spares dir).
// Wait: blocks until no refill runs; nullopt when there is no spares dir (no refill ever ran).
Result<std::optional<UniqueFd>> TryLockRefill(const std::filesystem::path& session_dir);
Result<std::optional<UniqueFd>> WaitForRefill(const std::filesystem::path& session_dir);
// Before the first refill can start (under the session lock): the spares dir exists, so a
// session delete that runs next waits for the refill rather than racing it.
Status PrepareSpares(const std::filesystem::path& session_dir);

// The spare depth: how many ready spares the refill keeps (`spares/depth`, written by
// `session create --context-spares N`; without it 1, made only once the session has
// contexts). A session that asked for spares gets them before its first context, so its
// first create (which also makes "default") and the next claim instead of going cold.
inline constexpr int kMaxSpareDepth = 4;
Status SetSpareDepth(const std::filesystem::path& session_dir, int depth);
// 0 when none was asked for (then 1 once contexts exist).
int AskedSpareDepth(const std::filesystem::path& session_dir);

// Runs argv (`sandshim [global flags] session context refill ID`) detached: its own session
// and process group, /dev/null stdio, no inherited fd, a bare environment. A caller that
// reads our output through a pipe sees EOF when we exit. wait: the caller waits for it
// (session create --context-spares) and gets its failure; else it is left running.
Status StartRefill(const std::vector<std::string>& argv, bool wait = false);

// The session layer's hooks (sessions.cc, session_gc.cc), as for contexts.
Status UndoSpare(runtime::Containers& containers, const step::SessionContextSpare& data);
// Spares whose refill died half-way (no ready marker, no refill running) or whose container
// died: undone. Returns what was removed.
std::vector<std::string> GcSpares(runtime::Containers& containers, const std::filesystem::path& session_dir,
                                  std::vector<std::string>& errors);
// Session stop: the spares end with the sandbox.
Status StopSpares(runtime::Containers& containers, const std::filesystem::path& session_dir);

struct SpareCount {
  int64_t ready = 0, making = 0;
};
SpareCount CountSpares(const std::filesystem::path& session_dir);

}  // namespace sandshim::session
