// The session relay parses HTTP the sandbox writes, so once everything that needs root is
// done (netns entered, listener bound, policy read, log and audit files open) it gives root
// up for good: finding M12 of the 2026-11 security review.
#pragma once

#include <sys/types.h>

#include <string>

#include "shim/core/result.h"

namespace sandshim::net {

// nobody:nogroup on Debian; the relay needs no file of its own after the drop.
inline constexpr uid_t kRelayUid = 65534;
inline constexpr gid_t kRelayGid = 65534;

// Clears supplementary groups, empties the bounding and ambient sets, switches real, effective
// and saved ids to uid/gid (which clears permitted and effective capabilities) and sets
// NO_NEW_PRIVS; then checks that no capability and no id 0 is left. Single-threaded callers
// only: capability sets are per thread.
Status DropRelayPrivileges(uid_t uid = kRelayUid, gid_t gid = kRelayGid);

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
