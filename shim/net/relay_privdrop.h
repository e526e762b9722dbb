// The session relay parses HTTP the sandbox writes, so once everything that needs root is
// done (netns entered, listener bound, policy read, log and audit files open) it gives root
// up for good: finding M12 of the 2026-11 security review.
#pragma once

#include <sys/types.h>

#include <string>

#include "shim/core/result.h"

namespace sandshim::net {

// Not nobody: host nobody could SIGSTOP or kill every session's relay (review N2). Each relay
// gets a uid (and the same gid) of its own from a range no host account or subuid range
// uses, picked by its netns file's path (one per session): no host user can signal it, and
// relays of different sessions share a uid only by a 1-in-65536 chance. The relay needs no
// file of its own after the drop.
inline constexpr uid_t kRelayUidBase = 0x7E000000;
uid_t RelayUidFor(const std::string& netns_path);

// Clears supplementary groups, empties the bounding and ambient sets, switches real, effective
// and saved ids to uid/gid (which clears permitted and effective capabilities) and sets
// NO_NEW_PRIVS; then checks that no capability and no id 0 is left. Single-threaded callers
// only: capability sets are per thread.
Status DropRelayPrivileges(uid_t uid, gid_t gid);

// Watches the directory holding the relay's netns file, set up while still root: after the
// drop the relay can no longer stat a file under a 0700 session directory, but inotify
// delivers events on a watch added before it. Gone() is true once the file (or the directory)
// was deleted or moved (RemoveNetns unmounts, then unlinks).
class NetnsDirWatch {
 public:
  static Result<NetnsDirWatch> Open(const std::string& netns_path);
  NetnsDirWatch() = default;
  NetnsDirWatch(NetnsDirWatch&& o) noexcept : fd_(o.fd_), name_(std::move(o.name_)) { o.fd_ = -1; }
  NetnsDirWatch& operator=(NetnsDirWatch&& o) noexcept;
  ~NetnsDirWatch();
  bool Gone();  // non-blocking: drains pending events

 private:
  int fd_ = -1;
  std::string name_;
};

}  // namespace sandshim::net
