#include "shim/core/wait_file.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"

namespace sandshim::fs {

Result<bool> WaitForFile(const std::filesystem::path& file, int gone_fd,
                         std::chrono::steady_clock::time_point deadline) {
  UniqueFd in(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!in.valid()) return ErrnoError("inotify_init1");
  if (::inotify_add_watch(in.get(), file.parent_path().c_str(), IN_CREATE | IN_MOVED_TO) < 0)
    return ErrnoError("watch " + file.parent_path().string());
  for (;;) {
    if (Exists(file)) return true;  // checked after the watch is set: no creation missed
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return MakeError("timed out waiting for " + file.string(), ETIMEDOUT);
    pollfd fds[2] = {{in.get(), POLLIN, 0}, {gone_fd, POLLIN, 0}};
    if (::poll(fds, gone_fd >= 0 ? 2 : 1, static_cast<int>(left)) < 0 && errno != EINTR) return ErrnoError("poll");
    if (gone_fd >= 0 && fds[1].revents) return Exists(file);
    char buf[4096];
    while (::read(in.get(), buf, sizeof buf) > 0) {
    }
  }
}

}  // namespace sandshim::fs
