// Where a path inside a container lives before the container exists: under the rootfs, or
// under the source of a bind mount whose destination covers it. docker's `--init` is the
// case that needs this: /sbin/docker-init is not in the image, docker bind-mounts it there.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sandshim {

// A spec mount as far as path lookup cares (core knows nothing of the OCI model).
struct MountView {
  std::string destination;  // absolute path in the container
  std::string source;       // host path (bind) or a device/fs name
  bool bind = false;        // type "bind" or a bind/rbind option
};

// The mount that provides path: the last one (later mounts stack over earlier ones) whose
// destination is path or one of its parent directories. rel is path below the destination,
// without a leading '/' ("" when path is the destination itself). Pure: no syscalls.
struct CoveringMount {
  const MountView* mount;
  std::string rel;
};
std::optional<CoveringMount> FindCoveringMount(const std::vector<MountView>& mounts, const std::string& path);

// "/a//b/./c/" -> "/a/b/c": lexical only ("..": left alone, the callers resolve beneath a root).
std::string CleanContainerPath(const std::string& path);

}  // namespace sandshim
