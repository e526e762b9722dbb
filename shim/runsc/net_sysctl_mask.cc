#include "shim/runsc/net_sysctl_mask.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>

#include <cstdlib>

#include "shim/runsc/flags.h"

namespace sandshim::runsc {

bool UsesNetstack(const std::vector<std::string>& flags) { return EffectiveNetwork(flags) == "sandbox"; }

Result<NetSysctlMask> NetSysctlMask::Enter(bool netstack) {
  if (!netstack) return NetSysctlMask(UniqueFd());
  UniqueFd back(::open("/proc/thread-self/ns/mnt", O_RDONLY | O_CLOEXEC));
  if (!back.valid()) return ErrnoError("open /proc/thread-self/ns/mnt");
  if (::unshare(CLONE_NEWNS) != 0) return ErrnoError("netstack setup: unshare the mount namespace");
  NetSysctlMask scope(std::move(back));  // from here on, leaving goes back
  // Nothing done here may reach the host's mounts.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return ErrnoError("netstack setup: make the mount namespace private");
  if (::mount("sandshim-netmask", "/proc/sys/net", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
              "size=4k,mode=0555") != 0)
    return ErrnoError("netstack setup: hide /proc/sys/net from runsc");
  return scope;
}

NetSysctlMask::~NetSysctlMask() {
  if (!back_.valid()) return;
  // setns into a mount namespace moves the root and working directory to that namespace's
  // root: keep the working directory (relative paths of the caller, e.g. a bundle).
  UniqueFd cwd(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  // Staying in the private namespace would hide later mounts from the host (and the host's
  // from us): better to stop than to carry on there.
  if (::setns(back_.get(), CLONE_NEWNS) != 0) std::abort();
  if (cwd.valid() && ::fchdir(cwd.get()) != 0) {
    // The directory is gone from the host's view: stay at the root rather than fail.
  }
}

}  // namespace sandshim::runsc
