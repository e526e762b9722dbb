#include "shim/core/self_clone.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/log.h"
#include "shim/core/sealed_exe.h"
#include "shim/core/unique_fd.h"

namespace sandshim {
namespace {

char** g_argv = nullptr;
char** g_envp = nullptr;
int g_sealed_mount = -1;

// The variable that carries the mount fd's number across the re-exec (removed on arrival).
constexpr const char* kMountFdVar = "SANDSHIM_SEALED_MOUNT_FD";

// Only an overlay directory is taken as ours: a number planted in the environment by a
// caller names some other descriptor, which is left alone.
int AdoptSealedMount() {
  const char* v = ::getenv(kMountFdVar);
  if (!v) return -1;
  int fd = std::atoi(v);
  ::unsetenv(kMountFdVar);
  struct statfs sf;
  struct stat st;
  if (fd < 3 || ::fstatfs(fd, &sf) != 0 || sf.f_type != OVERLAYFS_SUPER_MAGIC || ::fstat(fd, &st) != 0 ||
      !S_ISDIR(st.st_mode))
    return -1;
  (void)::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

// The overlay's second (empty) lower layer. '@' keeps it out of container listings when
// /run/sandshim is also the state root.
constexpr const char* kEmptyLayer = "/run/sandshim/@empty";

}  // namespace

void RememberArgv(int, char** argv, char** envp) {
  g_argv = argv;
  g_envp = envp;
  g_sealed_mount = AdoptSealedMount();
}

int TakeSealedMountFd() {
  int fd = g_sealed_mount;
  g_sealed_mount = -1;
  return fd;
}

bool RunningFromSealedCopy() {
  UniqueFd self(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  return self.valid() && IsSealedExe(self.get());
}

void EnsureSealedSelf() {
  if (!g_argv || RunningFromSealedCopy()) return;
  UniqueFd mount;
  if (auto exe = OverlaySealedExe(kEmptyLayer, &mount); exe) {
    // The mount fd goes along (not close-on-exec), its number in the environment.
    std::vector<std::string> env_store;
    std::vector<char*> env;
    for (char** e = g_envp; e && *e; ++e)
      if (std::string_view(*e).rfind(std::string(kMountFdVar) + "=", 0) != 0) env.push_back(*e);
    if (mount.valid() && ::fcntl(mount.get(), F_SETFD, 0) == 0) {
      env_store.push_back(std::string(kMountFdVar) + "=" + std::to_string(mount.get()));
      env.push_back(env_store.back().data());
    }
    env.push_back(nullptr);
    ::execveat(exe->get(), "", g_argv, env.data(), AT_EMPTY_PATH);
    log::Debug("exec from the sealed overlay: " + ErrnoError("execveat").msg);
  } else {
    log::Debug("sealed overlay unavailable (" + exe.error().msg + "): copying sandshim into a memfd");
  }
  if (auto exe = MemfdSealedExe(); exe) ::execveat(exe->get(), "", g_argv, g_envp, AT_EMPTY_PATH);
}

}  // namespace sandshim
