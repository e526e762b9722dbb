// linux.maskedPaths and linux.readonlyPaths on gVisor. runsc (2022) ignores both, so a spec
// that hides /etc/secret or makes /data read-only got neither. sandshim turns each path into
// a mount runsc does make, appended after the spec's own (runc applies them after mounts,
// read-only paths before masked ones):
//   masked file -> a read-only bind of an empty file; masked directory -> of an empty directory
//   read-only path -> a read-only bind of the path onto itself
// Paths under /proc and /sys are left to gVisor: its procfs and sysfs are the Sentry's own,
// with none of the host's data those entries hide, and its /proc/sys is already read-only.
// Missing paths are skipped, as runc skips them. A device node, FIFO or socket is skipped
// with a warning: the gofer cannot bind over it (upstream runtime-tools' masked-device case
// made the sandbox fail to start), and only that path goes unmasked. A path under a mount other than a bind (a
// tmpfs) has no host file to look at before the container runs: it is skipped with a warning.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "bundle/spec.h"
#include "shim/core/result.h"

namespace sandshim::runtime {

// Devices the Sentry puts in every container's /dev whatever the spec's linux.devices say
// (runsc 2022 and 2024 alike: /dev/fuse, /dev/net/tun). runc's /dev has only what the spec
// lists, and docker's defaults list neither: a bind of the empty file over each that the spec
// does not list (nor mount something at, nor bind the host's /dev for) makes gVisor's /dev
// docker's. They matter where a process gets capabilities in a user namespace of its own (an
// exec, with no seccomp filter on gVisor): FUSE mounts and tun devices are more Sentry code.
inline constexpr const char* kSentryOnlyDevices[] = {"/dev/fuse", "/dev/net/tun"};

// The mounts that hide kSentryOnlyDevices the spec does not ask for (pure).
std::vector<boost::json::object> SentryDeviceMasks(const bundle::Spec& spec, const std::string& empty_file);

// What a container path is on the host before the container runs.
struct HostPath {
  // kSpecial: a device node, FIFO or socket, which runsc's gofer cannot bind over (its open
  // of the node fails, and the whole sandbox with it).
  enum class Kind { kMissing, kFile, kDir, kSpecial, kUnknown } kind = Kind::kMissing;
  std::string host;  // for kFile/kDir: the real host path (inside the rootfs or bind source)
};
using HostLookup = std::function<HostPath(const std::string& container_path)>;

// The mounts that apply the spec's masked and read-only paths (pure, given lookup). empty_file
// and empty_dir are the sources for masking.
std::vector<boost::json::object> PathMaskMounts(const bundle::Spec& spec, const HostLookup& lookup,
                                                const std::string& empty_file, const std::string& empty_dir);

// The lookup PathMaskMounts needs, over this host: container paths resolved inside the rootfs
// or a bind source (openat2 RESOLVE_IN_ROOT), so an image's symlink never names a host path.
// It keeps the rootfs open while it lives. A spec without masked or read-only paths opens nothing.
Result<HostLookup> HostPathLookup(const bundle::Spec& spec, const std::filesystem::path& bundle_dir);

}  // namespace sandshim::runtime
