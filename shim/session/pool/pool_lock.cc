#include "shim/session/pool/pool_lock.h"

#include <fcntl.h>
#include <sys/file.h>

namespace sandshim::session {

static Result<UniqueFd> Open(const std::filesystem::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return ErrnoError("open " + file.string());
  return fd;
}

Result<UniqueFd> LockFile(const std::filesystem::path& file) {
  auto fd = TRY(Open(file));
  while (::flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) return ErrnoError("lock " + file.string());
  return fd;
}

Result<std::optional<UniqueFd>> TryLockFile(const std::filesystem::path& file) {
  auto fd = TRY(Open(file));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return std::optional<UniqueFd>(std::move(fd));
  if (errno == EWOULDBLOCK) return std::optional<UniqueFd>();
  return ErrnoError("lock " + file.string());
}

}  // namespace sandshim::session
