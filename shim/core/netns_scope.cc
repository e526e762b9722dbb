#include "shim/core/netns_scope.h"

#include <fcntl.h>
#include <sched.h>

#include <cstdlib>

namespace sandshim {

Result<NetnsScope> NetnsScope::Enter(const std::filesystem::path& ns) {
  if (ns.empty()) return NetnsScope(UniqueFd());
  UniqueFd back(::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC));
  if (!back.valid()) return ErrnoError("open /proc/thread-self/ns/net");
  UniqueFd target(::open(ns.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!target.valid()) return ErrnoError("open network namespace " + ns.string());
  if (::setns(target.get(), CLONE_NEWNET) != 0) return ErrnoError("setns " + ns.string());
  return NetnsScope(std::move(back));
}

NetnsScope::~NetnsScope() {
  // Staying in the wrong namespace would make every later socket of this thread wrong
  // (the relay, the proxy): better to stop than to carry on there.
  if (back_.valid() && ::setns(back_.get(), CLONE_NEWNET) != 0) std::abort();
}

}  // namespace sandshim
