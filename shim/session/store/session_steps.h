// The steps a session's journal records (shim/runtime/journal.h), one described struct each;
// Sessions::Undo is the one visitor over them. Member names are the JSON keys on disk, kKind
// the entry's "kind": both are the format older sandshims wrote, so their sessions still
// delete. Adding a member is compatible (an older entry reads its default); renaming is not.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "bundle/described.h"
#include "shim/runtime/journal.h"

namespace sandshim::session::step {

// The session's sandbox container (its own container journal undoes what it holds).
struct SessionContainer {
  static constexpr std::string_view kKind = "session-container";
  std::string id;
};
BOOST_DESCRIBE_STRUCT(SessionContainer, (), (id))

// The name symlink <root>/@names/<name> -> id; removed only while it still names this session.
struct SessionName {
  static constexpr std::string_view kKind = "session-name";
  std::string path, id;
};
BOOST_DESCRIBE_STRUCT(SessionName, (), (path, id))

// A mount point (overlay root, idmapped bind, shared workspace root): unmounted (detached).
struct SessionLayer {
  static constexpr std::string_view kKind = "session-layer";
  std::string path;
};
BOOST_DESCRIBE_STRUCT(SessionLayer, (), (path))

// An id range claimed in the slots directory `dir` for `session`. Journals written before the
// slots directory held a file named by `path` instead.
struct SessionIdRange {
  static constexpr std::string_view kKind = "session-idrange";
  std::string dir, session, path;
};
BOOST_DESCRIBE_STRUCT(SessionIdRange, (), (dir, session, path))

// A network namespace bind-mounted at path (shim/linux/netns.h), mode none or proxy.
struct Netns {
  static constexpr std::string_view kKind = "netns";
  std::string path;
};
BOOST_DESCRIBE_STRUCT(Netns, (), (path))

// The egress relay whose pid (and start time) pid_file holds (shim/net/relay.h).
struct EgressRelay {
  static constexpr std::string_view kKind = "egress-relay";
  std::string pid_file;
};
BOOST_DESCRIBE_STRUCT(EgressRelay, (), (pid_file))

// A context (contexts.h): its container, directory, egress identity in the file `egress`,
// own network (native, proxy mode), secrets declared to the relay at socket `secrets`, and
// the spare's directory it was claimed from (until renamed to dir; context_spare.h).
struct SessionContext {
  static constexpr std::string_view kKind = "session-context";
  std::string id, dir, name, egress;
  bool network = false;
  std::string secrets, spare;
};
BOOST_DESCRIBE_STRUCT(SessionContext, (), (id, dir, name, egress, network, secrets, spare))

// A warm spare context container (context_spare.h) and its directory, journaled before either
// exists; a claim moves the directory to its context, whose entry then owns the container.
struct SessionContextSpare {
  static constexpr std::string_view kKind = "session-context-spare";
  std::string id, dir;
};
BOOST_DESCRIBE_STRUCT(SessionContextSpare, (), (id, dir))

// The session `holder` among the holders of the nosuid guard over the workspace's host
// path (workspace_guard.h), whose record is in the state root's `registry` directory.
struct WorkspaceGuard {
  static constexpr std::string_view kKind = "workspace-guard";
  std::string path, registry, holder;
};
BOOST_DESCRIBE_STRUCT(WorkspaceGuard, (), (path, registry, holder))

// #35: a paused session's checkpoint image directory (session_pause.cc), journaled before it
// is made; removed. Resume removes the directory and keeps the entry (undoing it is a no-op).
struct SessionSnapshot {
  static constexpr std::string_view kKind = "session-snapshot";
  std::string path;
};
BOOST_DESCRIBE_STRUCT(SessionSnapshot, (), (path))

}  // namespace sandshim::session::step

namespace sandshim::session {

using SessionStep = std::variant<step::SessionContainer, step::SessionName, step::SessionLayer, step::SessionIdRange,
                                 step::Netns, step::EgressRelay, step::SessionContext, step::SessionContextSpare,
                                 step::WorkspaceGuard, step::SessionSnapshot>;
using SessionJournal = runtime::TypedJournal<SessionStep>;

}  // namespace sandshim::session
