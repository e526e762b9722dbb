#include "shim/native/keyring.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sandshim::native {

std::string KeyringName(std::string_view container_id) { return "_ses.sandshim." + std::string(container_id); }

Status JoinSessionKeyring(const std::string& name) {
  long id = ::syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, name.c_str(), 0, 0, 0);
  if (id < 0) return errno == ENOSYS ? Ok() : ErrnoError("join session keyring " + name);
  // Possessor: everything; owner (host root, the creator): view, read, search, link, so an
  // exec can find it by name. Nobody else (another uid, another user namespace) sees it.
  constexpr unsigned long kPerm = 0x3f000000 | 0x001b0000;
  if (::syscall(SYS_keyctl, KEYCTL_SETPERM, id, kPerm, 0, 0) != 0) return ErrnoError("set session keyring permissions");
  return Ok();
}

}  // namespace sandshim::native
