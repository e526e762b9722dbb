#include "shim/gvisor/gvisor_path_masks.h"

#include <fcntl.h>

#include <algorithm>
#include <memory>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bundle/mount_views.h"
#include "shim/core/container_path.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"

namespace sandshim::runtime {
namespace json = boost::json;

static bool LeftToGvisor(const std::string& p) {
  for (const char* top : {"/proc", "/sys"})
    if (p == top || p.rfind(std::string(top) + "/", 0) == 0) return true;
  return false;
}

static json::object RoBind(const std::string& dest, const std::string& source) {
  return json::object{{"destination", dest}, {"type", "bind"}, {"source", source},
                      {"options", json::array{"rbind", "ro"}}};
}

std::vector<json::object> PathMaskMounts(const bundle::Spec& spec, const HostLookup& lookup,
                                         const std::string& empty_file, const std::string& empty_dir) {
  std::vector<json::object> out;
  auto each = [&](const std::vector<std::string>& paths, bool mask) {
    for (const auto& raw : paths) {
      auto p = CleanContainerPath(raw);
      if (p.empty() || p == "/" || LeftToGvisor(p)) continue;
      auto hp = lookup(p);
      if (hp.kind == HostPath::Kind::kMissing) continue;
      if (hp.kind == HostPath::Kind::kUnknown) {
        log::Warn(std::string("gvisor: ") + (mask ? "masked path " : "read-only path ") + p +
                  " is on a mount sandshim cannot look into before start: not applied");
        continue;
      }
      if (hp.kind == HostPath::Kind::kSpecial) {
        log::Warn(std::string("gvisor: ") + (mask ? "masked path " : "read-only path ") + p +
                  " is a device node, FIFO or socket, which runsc cannot bind over: not applied");
        continue;
      }
      bool dir = hp.kind == HostPath::Kind::kDir;
      out.push_back(RoBind(p, mask ? (dir ? empty_dir : empty_file) : hp.host));
    }
  };
  // runc's order: read-only paths first, so a masked path below one stays masked.
  each(spec.readonly_paths, false);
  each(spec.masked_paths, true);
  return out;
}

std::vector<json::object> SentryDeviceMasks(const bundle::Spec& spec, const std::string& empty_file) {
  std::vector<json::object> out;
  for (const char* dev : kSentryOnlyDevices) {
    bool asked = std::any_of(spec.devices.begin(), spec.devices.end(),
                             [&](const bundle::Device& d) { return CleanContainerPath(d.path) == dev; });
    // a mount of the spec's own at the path or above it: but for /dev itself only a bind (the
    // host's /dev asked for, whose nodes the gofer cannot mount over), not the usual tmpfs
    for (const auto& m : spec.mounts) {
      auto d = CleanContainerPath(m.destination);
      bool bind = m.type == "bind" || std::any_of(m.options.begin(), m.options.end(),
                                                  [](const std::string& o) { return o == "bind" || o == "rbind"; });
      asked |= (d != "/dev" || bind) && (d == dev || std::string(dev).rfind(d + "/", 0) == 0);
    }
    if (!asked) out.push_back(RoBind(dev, empty_file));
  }
  return out;
}

// What fd is: its kind and the host path it was reached by.
static HostPath Describe(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return {};
  char buf[PATH_MAX];
  auto link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf);
  if (n <= 0 || n >= static_cast<ssize_t>(sizeof buf)) return {HostPath::Kind::kUnknown, ""};
  auto kind = S_ISDIR(st.st_mode) ? HostPath::Kind::kDir
              : S_ISREG(st.st_mode) ? HostPath::Kind::kFile
                                    : HostPath::Kind::kSpecial;
  return {kind, std::string(buf, n)};
}

// rel beneath dir, resolved as if dir were "/" ("" is dir itself, which may be a file: a
// bind mount of one file).
static HostPath Beneath(int dir, const std::string& rel) {
  if (rel.empty()) return Describe(dir);
  struct open_how how {};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how)));
  return fd.valid() ? Describe(fd.get()) : HostPath{};
}

Result<HostLookup> HostPathLookup(const bundle::Spec& spec, const std::filesystem::path& bundle_dir) {
  if (spec.masked_paths.empty() && spec.readonly_paths.empty()) return HostLookup([](const std::string&) { return HostPath{}; });
  auto root = std::make_shared<UniqueFd>(::open(bundle::RootfsPath(spec, bundle_dir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root->valid()) return ErrnoError("open rootfs");
  auto views = bundle::MountViews(spec, bundle_dir);
  return HostLookup([root, views = std::move(views)](const std::string& p) -> HostPath {
    auto cover = FindCoveringMount(views, p);
    if (!cover) return Beneath(root->get(), p.substr(1));
    if (!cover->mount->bind || cover->mount->source.empty() || cover->mount->source[0] != '/')
      return {HostPath::Kind::kUnknown, ""};
    UniqueFd src(::open(cover->mount->source.c_str(), O_PATH | O_CLOEXEC));
    return src.valid() ? Beneath(src.get(), cover->rel) : HostPath{};
  });
}

}  // namespace sandshim::runtime
