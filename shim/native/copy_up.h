// "tmpcopyup", runc's mount option for a tmpfs (podman puts it on every --tmpfs and on the
// /tmp, /run and /var/tmp of a --read-only container): the new tmpfs starts with a copy of
// what the image has at the mount point, instead of hiding it. A tmpfs refuses the word as a
// mount option (EINVAL), so without this podman's --read-only and --tmpfs failed natively.
#pragma once

#include "shim/core/result.h"

namespace sandshim::native {

// Copies the tree under the directory from (an fd opened on it before the tmpfs hid it) into
// the directory to: directories, regular files and symlinks, with their mode and owner.
// Device nodes, fifos and sockets are skipped: a tmpfs mount point of an image has none that
// runc's users rely on, and a device node from an image must not gain a second path.
// Nothing is followed: every name is opened relative to its parent with O_NOFOLLOW.
Status CopyTree(int from, int to);

}  // namespace sandshim::native
