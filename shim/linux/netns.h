// Named network namespaces without the `ip` binary: a namespace lives as long as something
// references it, and a bind mount of its nsfs file onto a plain file is such a reference
// (what `ip netns add` does under /run/netns). Creation and removal are both safe to repeat,
// so a journal replay after a crash at any point (file created, not yet mounted; mounted;
// unmounted, not yet unlinked) finishes the job.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::net {

// Creates a new network namespace with only `lo`, brought up, and pins it at path (a new
// file; its directory must exist). Fails with EEXIST if path is already a namespace.
Status CreateNetns(const std::filesystem::path& path);
// Unmounts and unlinks path. A missing path, or one that is no longer a mount, counts as done.
Status RemoveNetns(const std::filesystem::path& path);
// Writes value to /proc/sys/net/<key> of the namespace at path, e.g. "ipv4/ip_forward".
// A new namespace copies the host's net.ipv4 settings (net.core.devconf_inherit_init_net=0),
// so where docker runs it forwards until told not to. ENOENT: no such setting here.
Status SetNetSysctl(const std::filesystem::path& path, const std::string& key, std::string_view value);
// True when path is a mounted network namespace.
bool IsNetns(const std::filesystem::path& path);
// Opens a namespace file (O_RDONLY | O_CLOEXEC) for setns.
Result<UniqueFd> OpenNetns(const std::filesystem::path& path);

// Runs fn with the calling thread inside the namespace ns_fd, then returns the thread to the
// namespace it was in. Sockets created inside keep that namespace for their whole life.
template <typename F>
Status InNetns(int ns_fd, F&& fn);

Status EnterNetns(int ns_fd);

template <typename F>
Status InNetns(int ns_fd, F&& fn) {
  auto self = TRY(OpenNetns("/proc/thread-self/ns/net"));
  TRY(EnterNetns(ns_fd));
  Status s = fn();
  Status back = EnterNetns(self.get());
  if (!back) return back.error().Wrap("return to the original network namespace");
  return s;
}

}  // namespace sandshim::net
