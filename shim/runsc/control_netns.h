// The private network namespace sandboxes' control sockets live in.
//
// This runsc (Debian 12's 0.0~20221219) binds its control server to the ABSTRACT unix name
// @runsc-sandbox.<id>, in the network namespace of the `runsc create` that makes the sandbox
// (it creates the socket before the sandbox joins the container's network). Abstract names
// have no file mode, and the server's only check (peer uid == its own, 65534 inside the
// sandbox's user namespace, where every other host uid also reads as 65534) passes for
// anyone: in the host namespace any local user could run commands in the sandbox as root.
// So every runsc verb of a container, and sandshim's own control connections, run inside a
// namespace only root can enter (CAP_SYS_ADMIN, to setns).
//
// One such namespace per --root, shared by that root's containers (making one costs ~2 ms of
// a create): <root>/@control/netns, an nsfs bind mount in a 0700 directory. Each container
// using it holds a marker, <root>/@control/users/<runsc id> naming the container, made after its journal entry
// names the namespace and removed by that entry's undo; whoever removes the last marker
// unmounts the namespace, all under a flock on the root directory (never removed, so no
// lock on a deleted file). gc sweeps markers of containers it no longer knows and a
// namespace nobody holds (a crash between its mount and the first marker).
//
// Containers made before the namespace was shared have their own, <state dir>/control.netns
// (ControlNetnsPath), removed by their undo as before.
#pragma once

#include <filesystem>
#include <vector>
#include <string>

#include "shim/core/result.h"

namespace sandshim::runsc {

// The per-container namespace of older records; also the probe's private one.
std::filesystem::path ControlNetnsPath(const std::filesystem::path& state_dir);
// Creates it (idempotent: an existing namespace at the path is kept).
Status CreateControlNetns(const std::filesystem::path& path);
Status RemoveControlNetns(const std::filesystem::path& path);

// <root>/@control/netns (pure).
std::filesystem::path SharedControlNetns(const std::filesystem::path& root);
bool IsSharedControlNetns(const std::filesystem::path& netns);  // pure: by its path's shape
// Makes the namespace if missing and records `user` (a runsc id) as holding it for the
// container `id` (whose state dir is <root>/<id>).
Status HoldSharedControlNetns(const std::filesystem::path& netns, const std::string& user, const std::string& id);
// Drops `user`'s hold; the last one out removes the namespace (idempotent).
Status ReleaseSharedControlNetns(const std::filesystem::path& netns, const std::string& user);
// gc: drops every hold whose container has no state dir any more (checked under the lock, so
// a create in progress, whose dir exists before its hold, is never swept), then removes the
// namespace if nothing holds it. Returns what it removed.
Result<std::vector<std::string>> SweepSharedControlNetns(const std::filesystem::path& root);

// Who makes, holds and removes the namespaces above for the gVisor backend and the probe: the
// seam that lets unit tests drive them over a fake runsc (which binds no socket) without
// CAP_SYS_ADMIN, as native::Sys is for the native runtime's system calls. Production has only
// SystemControlNetns(); the unprivileged one is a test fake (tests/fakes/caller_netns.h).
class ControlNetnsKeeper {
 public:
  virtual ~ControlNetnsKeeper() = default;
  // The namespace a root's new containers run every runsc verb in, journaled and recorded
  // (empty: the caller's own, entered by no one).
  virtual std::filesystem::path SharedFor(const std::filesystem::path& root) const = 0;
  virtual Status Hold(const std::filesystem::path& netns, const std::string& user, const std::string& id) = 0;
  virtual Status Release(const std::filesystem::path& netns, const std::string& user) = 0;
  // The probe's private namespace pinned at path: what to enter (empty: none).
  virtual Result<std::filesystem::path> MakePrivate(const std::filesystem::path& path) = 0;
  virtual Status RemovePrivate(const std::filesystem::path& path) = 0;
};

// The real one: the functions above (SharedControlNetns, Hold/ReleaseSharedControlNetns,
// Create/RemoveControlNetns).
ControlNetnsKeeper& SystemControlNetns();

}  // namespace sandshim::runsc
