#include "shim/session/workspace/idmap.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "shim/core/fs.h"
#include "shim/core/ids.h"

namespace sandshim::session {

std::filesystem::path IdSlotFile(const std::filesystem::path& dir, uint32_t slot) { return dir / std::to_string(slot); }

static std::filesystem::path ClaimFile(const std::filesystem::path& dir, const std::string& session) {
  return dir / (".claim." + session);
}

std::string IdOwner(const std::filesystem::path& root, const std::string& session) {
  return RootTag(root) + "-" + session;
}

Result<uint32_t> ClaimIdSlot(const std::filesystem::path& dir, const std::string& session) {
  // The host-wide dir's parent is the default state root: traversable, as the store makes it.
  if (!fs::Exists(dir.parent_path())) TRY(fs::MkdirAll(dir.parent_path(), 0711));
  TRY(fs::MkdirAll(dir, 0700));
  auto claim = ClaimFile(dir, session);
  TRY(fs::WriteFileAtomic(claim, session, 0600, /*sync=*/false));
  for (uint32_t slot = 0; slot < kIdSlots; ++slot) {
    if (::link(claim.c_str(), IdSlotFile(dir, slot).c_str()) != 0) {
      if (errno == EEXIST) continue;
      auto e = ErrnoError("claim id range " + std::to_string(slot));
      ::unlink(claim.c_str());
      return e;
    }
    ::unlink(claim.c_str());
    return slot;
  }
  ::unlink(claim.c_str());
  return MakeError("no free id range for a session (" + std::to_string(kIdSlots) + " in use)", ENOSPC);
}

Status ReleaseIdSlots(const std::filesystem::path& dir, const std::string& session) {
  if (::unlink(ClaimFile(dir, session).c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink id range claim");
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (auto owner = fs::ReadFile(e.path()); owner && *owner == session)
      if (::unlink(e.path().c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + e.path().string());
  }
  return Ok();
}

Result<UniqueFd> MappingNamespace(uint32_t base) {
  std::vector<IdExtent> all{{0, base, kIdRangeSize}};
  return MappingNamespace(all, all);
}

std::vector<IdExtent> OwnerAsUserMap(uint32_t owner, uint32_t user, uint32_t base, uint32_t size) {
  std::vector<IdExtent> out;
  std::vector<std::pair<uint32_t, uint32_t>> special{{owner, user}};  // on disk -> seen as
  if (owner < size) special.push_back({user, owner});
  else if (user < size) special.push_back({user, UINT32_MAX});  // left unmapped
  std::sort(special.begin(), special.end());
  uint32_t at = 0;
  for (auto [disk, seen] : special) {
    if (disk >= size) break;
    if (disk > at) out.push_back({at, base + at, disk - at});
    if (seen != UINT32_MAX) out.push_back({disk, base + seen, 1});
    at = disk + 1;
  }
  if (at < size) out.push_back({at, base + at, size - at});
  if (owner >= size) out.push_back({owner, base + user, 1});
  return out;
}

static std::string MapText(const std::vector<IdExtent>& m) {
  std::string out;
  for (const auto& e : m)
    out += std::to_string(e.inside) + " " + std::to_string(e.outside) + " " + std::to_string(e.count) + "\n";
  return out;
}

Result<UniqueFd> MappingNamespace(const std::vector<IdExtent>& uids, const std::vector<IdExtent>& gids) {
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) return ErrnoError("pipe");
  UniqueFd rd(ready[0]), wr(ready[1]);
  pid_t child = ::fork();
  if (child < 0) return ErrnoError("fork");
  if (child == 0) {  // holds the namespace while we write its maps and open it
    char c = ::unshare(CLONE_NEWUSER) == 0 ? 'u' : 'e';
    (void)!::write(wr.get(), &c, 1);
    ::pause();
    ::_exit(0);
  }
  wr.Reset();
  auto reap = [&] {
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  };
  char c = 0;
  if (::read(rd.get(), &c, 1) != 1 || c != 'u') {
    reap();
    return MakeError("cannot make a user namespace for the id mapping", EPERM);
  }
  std::string proc = "/proc/" + std::to_string(child);
  for (const char* f : {"/uid_map", "/gid_map"}) {
    std::string map = MapText(f == std::string("/uid_map") ? uids : gids);
    UniqueFd m(::open((proc + f).c_str(), O_WRONLY | O_CLOEXEC));
    if (!m.valid() || ::write(m.get(), map.data(), map.size()) != static_cast<ssize_t>(map.size())) {
      auto e = ErrnoError("write " + proc + f);
      reap();
      return e;
    }
  }
  UniqueFd ns(::open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC));
  int open_errno = errno;
  reap();
  if (!ns.valid()) return MakeError("open " + proc + "/ns/user", open_errno);
  return ns;
}

Status IdmappedBind(const std::filesystem::path& src, const std::filesystem::path& target, int userns_fd) {
  TRY(fs::MkdirAll(target, 0755));
  UniqueFd tree(static_cast<int>(::syscall(SYS_open_tree, AT_FDCWD, src.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)));
  if (!tree.valid()) return ErrnoError("open_tree " + src.string());
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  attr.userns_fd = static_cast<uint64_t>(userns_fd);
  if (::syscall(SYS_mount_setattr, tree.get(), "", AT_EMPTY_PATH, &attr, sizeof attr) != 0)
    return ErrnoError("idmapped mount of " + src.string());
  if (::syscall(SYS_move_mount, tree.get(), "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
    return ErrnoError("attach " + target.string());
  return Ok();
}

}  // namespace sandshim::session
