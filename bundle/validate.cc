#include "bundle/validate.h"

#include <set>
#include <sys/stat.h>

namespace sandshim::bundle {
namespace {

Status Invalid(const std::string& field, const std::string& why) {
  return MakeError("invalid config.json: " + field + ": " + why, EINVAL);
}

Status ValidateProcess(const Spec& s) {
  if (!s.process) return Invalid("process", "missing (a container needs a process to run)");
  if (s.process->args.empty()) return Invalid("process.args", "must name a command");
  if (s.process->cwd.empty() || s.process->cwd[0] != '/') return Invalid("process.cwd", "must be an absolute path");
  return Ok();
}

Status ValidateNamespaces(const Spec& s) {
  static const std::set<std::string> kKnown = {"pid", "network", "mount", "ipc", "uts", "user", "cgroup"};
  std::set<std::string> seen;
  for (const auto& ns : s.namespaces) {
    if (!kKnown.contains(ns.type)) return Invalid("linux.namespaces", "unknown type \"" + ns.type + "\"");
    if (!seen.insert(ns.type).second) return Invalid("linux.namespaces", "duplicate type \"" + ns.type + "\"");
    if (!ns.path.empty() && ns.path[0] != '/')
      return Invalid("linux.namespaces", ns.type + " path must be absolute");
  }
  return Ok();
}

Status ValidateMounts(const Spec& s) {
  for (const auto& m : s.mounts) {
    const auto& dst = m.destination;
    if (dst.empty() || dst[0] != '/') return Invalid("mounts", "destination \"" + dst + "\" must be an absolute path");
  }
  return Ok();
}

}  // namespace

Status ValidateSpec(const Spec& s, const std::filesystem::path& bundle_dir) {
  if (s.oci_version.empty()) return Invalid("ociVersion", "missing");
  if (s.root_path.empty()) return Invalid("root.path", "missing");
  TRY(ValidateProcess(s));
  TRY(ValidateNamespaces(s));
  TRY(ValidateMounts(s));
  if (!bundle_dir.empty()) {
    auto rootfs = RootfsPath(s, bundle_dir);
    struct stat st;
    if (::stat(rootfs.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return Invalid("root.path", "rootfs " + rootfs.string() + ": no such file or directory");
  }
  return Ok();
}

}  // namespace sandshim::bundle
