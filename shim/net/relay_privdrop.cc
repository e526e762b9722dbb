#include "shim/net/relay_privdrop.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <filesystem>

#include "shim/core/ids.h"

namespace sandshim::net {

static int LastCap() {
  // /proc/sys/kernel/cap_last_cap may be unreadable in odd setups: probe the bounding set
  // instead, PR_CAPBSET_READ fails with EINVAL past the last capability the kernel knows.
  int c = 0;
  while (c < 64 && ::prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0) ++c;
  return c - 1;
}

uid_t RelayUidFor(const std::string& netns_path) { return kRelayUidBase + (PathHash(netns_path) & 0xffff); }

Status DropRelayPrivileges(uid_t uid, gid_t gid) {
  // The bounding set needs CAP_SETPCAP, so it goes first, while still root.
  for (int c = 0, last = LastCap(); c <= last; ++c)
    if (::prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
      return ErrnoError("drop bounding capability " + std::to_string(c));
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return ErrnoError("clear ambient capabilities");
  if (::setgroups(0, nullptr) != 0) return ErrnoError("setgroups");
  if (::setresgid(gid, gid, gid) != 0) return ErrnoError("setresgid " + std::to_string(gid));
  // Leaving uid 0 for a non-zero uid in all three ids clears permitted and effective sets
  // (no SECBIT_KEEP_CAPS is ever set here).
  if (::setresuid(uid, uid, uid) != 0) return ErrnoError("setresuid " + std::to_string(uid));
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return ErrnoError("no_new_privs");
  // Verify rather than trust: a kernel or LSM that let any of it silently not happen must
  // stop the relay before it reads a byte from the sandbox.
  uid_t r, e, s;
  if (::getresuid(&r, &e, &s) != 0 || r == 0 || e == 0 || s == 0) return MakeError("relay still has uid 0", EPERM);
  if (::setresuid(0, 0, 0) == 0) return MakeError("relay could regain uid 0", EPERM);
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &hdr, data) != 0) return ErrnoError("capget");
  for (const auto& d : data)
    if (d.effective || d.permitted || d.inheritable) return MakeError("relay still holds capabilities", EPERM);
  return Ok();
}

Result<NetnsDirWatch> NetnsDirWatch::Open(const std::string& netns_path) {
  std::filesystem::path p(netns_path);
  NetnsDirWatch w;
  w.fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (w.fd_ < 0) return ErrnoError("inotify_init1");
  w.name_ = p.filename().string();
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  if (::inotify_add_watch(w.fd_, dir.c_str(), IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF) < 0)
    return ErrnoError("watch " + dir);
  return w;
}

NetnsDirWatch& NetnsDirWatch::operator=(NetnsDirWatch&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    name_ = std::move(o.name_);
    o.fd_ = -1;
  }
  return *this;
}

NetnsDirWatch::~NetnsDirWatch() {
  if (fd_ >= 0) ::close(fd_);
}

bool NetnsDirWatch::Gone() {
  if (fd_ < 0) return false;
  alignas(inotify_event) char buf[4096];
  bool gone = false;
  while (true) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) gone = true;
      if ((ev->mask & (IN_DELETE | IN_MOVED_FROM)) && ev->len && name_ == ev->name) gone = true;
      p += sizeof(inotify_event) + ev->len;
    }
  }
  return gone;
}

}  // namespace sandshim::net
