#include "shim/core/self_clone.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "shim/core/unique_fd.h"

namespace sandshim {
namespace {

char** g_argv = nullptr;
char** g_envp = nullptr;

}  // namespace

void RememberArgv(int, char** argv, char** envp) {
  g_argv = argv;
  g_envp = envp;
}

bool RunningFromSealedCopy() {
  char buf[256];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return false;
  return std::string(buf, static_cast<size_t>(n)).rfind("/memfd:sandshim", 0) == 0;
}

void EnsureSealedSelf() {
  if (!g_argv || RunningFromSealedCopy()) return;
  UniqueFd self(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  if (!self.valid()) return;
  struct stat st;
  if (::fstat(self.get(), &st) != 0) return;
  UniqueFd copy(::memfd_create("sandshim", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!copy.valid()) return;
  off_t off = 0;
  while (off < st.st_size)
    if (::sendfile(copy.get(), self.get(), &off, static_cast<size_t>(st.st_size - off)) <= 0) return;
  if (::fcntl(copy.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0) return;
  ::fexecve(copy.get(), g_argv, g_envp);
}

}  // namespace sandshim
