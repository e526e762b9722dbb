// Read-only handles on sandshim's own binary, for the re-exec in self_clone.h. A process that
// runs from one of these has a /proc/<pid>/exe that nobody can open for writing, so a
// container reaching it (CVE-2019-5736 class) cannot overwrite the host's sandshim.
#pragma once

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim {

// An O_PATH handle on /proc/self/exe seen through a private, detached, lower-layers-only
// overlayfs (runc 1.2's approach): no copy, ~0.5 ms. Such an overlay has no upper layer, so
// its superblock cannot be written whatever its mount flags become, and it is attached
// nowhere, so no process can remount it. empty_dir: an empty directory for the second lower
// layer overlayfs requires (created if missing).
// mount_out, when given, receives the overlay's mount fd instead of it being closed here:
// closing the last handle on the detached mount waits for an RCU grace period (0.3-2 ms),
// which the caller may rather pay off its critical path (self_clone.h, SealedMountFd).
Result<UniqueFd> OverlaySealedExe(const char* empty_dir, UniqueFd* mount_out = nullptr);
// A sealed memfd copy of /proc/self/exe (F_SEAL_WRITE and friends): works everywhere, but
// copies the whole binary on every call.
Result<UniqueFd> MemfdSealedExe();
// True when fd (an open file) cannot be written through any path a process can reach from
// it: a memfd with the write seals, or a file on a read-only mount (our overlay, or a
// binary installed on a read-only filesystem).
bool IsSealedExe(int fd);

}  // namespace sandshim
