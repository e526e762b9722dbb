#include "shim/linux/netns.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace sandshim::net {

Result<UniqueFd> OpenNetns(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open " + path.string());
  return UniqueFd(fd);
}

Status EnterNetns(int ns_fd) {
  if (::setns(ns_fd, CLONE_NEWNET) != 0) return ErrnoError("setns(CLONE_NEWNET)");
  return Ok();
}

bool IsNetns(const std::filesystem::path& path) {
  struct statfs sf {};
  return ::statfs(path.c_str(), &sf) == 0 && sf.f_type == static_cast<decltype(sf.f_type)>(NSFS_MAGIC);
}

static Status LoopbackUp() {
  // SIOCSIFFLAGS on a socket made inside the namespace: the one ioctl `ip link set lo up`
  // boils down to, with no netlink and no `ip` binary.
  UniqueFd s(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return ErrnoError("socket");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(s.get(), SIOCGIFFLAGS, &ifr) != 0) return ErrnoError("SIOCGIFFLAGS lo");
  ifr.ifr_flags |= IFF_UP;
  if (::ioctl(s.get(), SIOCSIFFLAGS, &ifr) != 0) return ErrnoError("SIOCSIFFLAGS lo up");
  return Ok();
}

Status CreateNetns(const std::filesystem::path& path) {
  if (IsNetns(path)) return MakeError("netns " + path.string() + " already exists", EEXIST);
  {
    int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) return ErrnoError("create " + path.string());
    ::close(fd);
  }
  // unshare(CLONE_NEWNET) moves only the calling thread, so a short-lived thread makes the
  // namespace and this one never leaves its own; the mount keeps the namespace alive after
  // the thread is gone.
  Status result;
  std::thread t([&] {
    if (::unshare(CLONE_NEWNET) != 0) {
      result = ErrnoError("unshare(CLONE_NEWNET)");
      return;
    }
    if (auto s = LoopbackUp(); !s) {
      result = s;
      return;
    }
    std::string self = "/proc/self/task/" + std::to_string(::gettid()) + "/ns/net";
    if (::mount(self.c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0)
      result = ErrnoError("bind-mount " + self + " on " + path.string());
  });
  t.join();
  if (!result) {
    (void)RemoveNetns(path);
    return result.error().Wrap("create netns " + path.string());
  }
  return Ok();
}

Status SetNetSysctl(const std::filesystem::path& path, const std::string& key, std::string_view value) {
  if (key.empty() || key.find("..") != std::string::npos) return MakeError("bad net sysctl \"" + key + "\"", EINVAL);
  auto ns = TRY(OpenNetns(path));
  std::string file = "/proc/sys/net/" + key;
  // /proc/sys/net is the namespace of the thread that opens it.
  return InNetns(ns.get(), [&]() -> Status {
    UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return ErrnoError("open " + file + " in " + path.string());
    if (::write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size()))
      return ErrnoError("write " + file + " in " + path.string());
    return Ok();
  });
}

Status RemoveNetns(const std::filesystem::path& path) {
  // MNT_DETACH: a process still inside (a relay that has not exited yet) must not make the
  // removal fail; the namespace itself goes when its last user does.
  if (::umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
    return ErrnoError("umount " + path.string());
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + path.string());
  return Ok();
}

}  // namespace sandshim::net
