#include "shim/core/self_clone.h"

#include <fcntl.h>
#include <unistd.h>

#include "shim/core/log.h"
#include "shim/core/sealed_exe.h"
#include "shim/core/unique_fd.h"

namespace sandshim {
namespace {

char** g_argv = nullptr;
char** g_envp = nullptr;

// The overlay's second (empty) lower layer. '@' keeps it out of container listings when
// /run/sandshim is also the state root.
constexpr const char* kEmptyLayer = "/run/sandshim/@empty";

}  // namespace

void RememberArgv(int, char** argv, char** envp) {
  g_argv = argv;
  g_envp = envp;
}

bool RunningFromSealedCopy() {
  UniqueFd self(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  return self.valid() && IsSealedExe(self.get());
}

void EnsureSealedSelf() {
  if (!g_argv || RunningFromSealedCopy()) return;
  if (auto exe = OverlaySealedExe(kEmptyLayer); exe) {
    ::execveat(exe->get(), "", g_argv, g_envp, AT_EMPTY_PATH);
    log::Debug("exec from the sealed overlay: " + ErrnoError("execveat").msg);
  } else {
    log::Debug("sealed overlay unavailable (" + exe.error().msg + "): copying sandshim into a memfd");
  }
  if (auto exe = MemfdSealedExe(); exe) ::execveat(exe->get(), "", g_argv, g_envp, AT_EMPTY_PATH);
}

}  // namespace sandshim
