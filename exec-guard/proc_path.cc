// An execve path as the tracee means it (guard.h InTracee). The tracer looks paths up in its
// own process, where /proc/self, /proc/thread-self and /dev/fd name the tracer's descriptors
// and cwd, not the tracee's (polred2 F8: `/proc/self/fd/3` ran a denied program, and
// `/proc/self/cwd/x` was refused as absent). Only the spellings a path starts with are
// rewritten: a link elsewhere that leads into /proc/self is beyond a string, and the check at
// the exec event (tracer.cc), which judges the file the kernel loaded, is the one that holds.
// Pure.
#include <string>
#include <vector>

#include "exec-guard/guard.h"

namespace sandshim::guard {
namespace {

// The path's components, with empty and "." ones dropped (the kernel skips them too).
std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= path.size();) {
    size_t end = path.find('/', at);
    if (end == std::string::npos) end = path.size();
    std::string c = path.substr(at, end - at);
    if (!c.empty() && c != ".") out.push_back(std::move(c));
    at = end + 1;
  }
  return out;
}

std::string Join(const std::string& head, const std::vector<std::string>& c, size_t from) {
  std::string out = head;
  for (size_t i = from; i < c.size(); ++i) out += "/" + c[i];
  return out;
}

}  // namespace

std::string InTracee(const std::string& path, pid_t tid) {
  if (path.empty() || path.front() != '/') return path;
  auto c = Components(path);
  std::string proc = "/proc/" + std::to_string(tid);
  if (c.size() >= 2 && c[0] == "proc" && (c[1] == "self" || c[1] == "thread-self")) return Join(proc, c, 2);
  if (c.size() >= 2 && c[0] == "dev" && c[1] == "fd") return Join(proc + "/fd", c, 2);
  if (c.size() >= 2 && c[0] == "dev") {
    static const char* const kStd[] = {"stdin", "stdout", "stderr"};
    for (int fd = 0; fd < 3; ++fd)
      if (c[1] == kStd[fd]) return Join(proc + "/fd/" + std::to_string(fd), c, 2);
  }
  return path;
}

}  // namespace sandshim::guard
