#include "shim/core/launch.h"

#include <spawn.h>

#include <cstring>

#include "shim/core/netns_scope.h"
#include "shim/core/scope_exit.h"

extern char** environ;

namespace sandshim::spawn {

Result<pid_t> Start(const Launch& l, const sigset_t& mask) {
  if (l.argv.empty() || l.exe.empty()) return MakeError("spawn: empty command", EINVAL);
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&fa);
  ::posix_spawnattr_init(&attr);
  ScopeExit done([&] {
    ::posix_spawn_file_actions_destroy(&fa);
    ::posix_spawnattr_destroy(&attr);
  });
  for (const auto& a : l.fds) {
    int rc = a.path.empty() ? ::posix_spawn_file_actions_adddup2(&fa, a.source, a.target)
                            : ::posix_spawn_file_actions_addopen(&fa, a.target, a.path.c_str(), a.flags, 0);
    if (rc != 0) return MakeError("spawn " + l.exe + ": file action: " + std::strerror(rc), rc);
  }
  short flags = POSIX_SPAWN_SETSIGMASK;
  if (l.new_session) flags |= POSIX_SPAWN_SETSID;
  ::posix_spawnattr_setflags(&attr, flags);
  ::posix_spawnattr_setsigmask(&attr, &mask);
  std::vector<char*> argv;
  for (const auto& a : l.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  auto ns = TRY(NetnsScope::Enter(l.netns));  // posix_spawn's child starts where this thread is
  int rc = ::posix_spawn(&pid, l.exe.c_str(), &fa, &attr, argv.data(), environ);
  if (rc != 0) return MakeError("exec " + l.exe + ": " + std::strerror(rc), rc);
  return pid;
}

}  // namespace sandshim::spawn
