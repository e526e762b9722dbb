#include "shim/runsc/mount_targets.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/unique_fd.h"

namespace sandshim::runsc {
namespace json = boost::json;

static bool IsBind(const json::object& m) {
  if (auto* t = m.if_contains("type"); t && t->is_string() && t->as_string() == "bind") return true;
  if (auto* o = m.if_contains("options"); o && o->is_array())
    for (const auto& v : o->as_array())
      if (v.is_string() && (v.as_string() == "bind" || v.as_string() == "rbind")) return true;
  return false;
}

Status CheckBindTargets(const json::object& doc, const std::filesystem::path& rootfs) {
  const auto* mounts = doc.if_contains("mounts") ? doc.at("mounts").if_array() : nullptr;
  if (!mounts) return Ok();
  UniqueFd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return Ok();
  for (const auto& v : *mounts) {
    const auto* m = v.if_object();
    if (!m || !IsBind(*m)) continue;
    const auto* d = m->if_contains("destination");
    if (!d || !d->is_string()) continue;
    std::string dest(d->as_string());
    while (!dest.empty() && dest.front() == '/') dest.erase(0, 1);
    if (dest.empty()) continue;
    // O_PATH never opens the FIFO itself; links resolve inside the rootfs, as the gofer's do.
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, root.get(), dest.c_str(), &how, sizeof how)));
    struct stat st;
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) continue;
    if (S_ISFIFO(st.st_mode))
      return MakeError("the image has a FIFO at /" + dest + ", where a bind mount goes (runsc would block on it)",
                       EINVAL);
  }
  return Ok();
}

}  // namespace sandshim::runsc
